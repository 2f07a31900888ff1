/* sb-recommend.c — the recommendation of a study and its JSON export. */
#include "config.h"

#include "sb-recommend.h"
#include "sb-setting.h"
#include "sb-json-write.h"

#include "sb-experiment-templates.h"
#include "sb-parameter-kinds.h"
#include "sg-bo.h"
#include "sg-rng.h"

#include <math.h>
#include <string.h>

/* RULE's setting (sg_bo_recommend) into X, which is left alone when the
 * model has no posterior means (the random initial questions, the random
 * surrogate): x_r is reported then, without a mean. */
static void
recommend (const sg_bo *bo, sg_bo_recommend_rule rule, double *x)
{
  double best[SG_BO_MAX_DIM], mean;

  if (sg_bo_recommend (bo, rule, NULL, NULL, best, &mean) == SG_OK)
    memcpy (x, best, sg_bo_get_config (bo)->dim * sizeof *x);
}

/* The rule of the setting reported (sb-recommend.h): in preference mode
 * the answered setting of largest posterior mean, which ties and choices
 * move where the last winner stays; mixed and safe mode keep x_r, the
 * setting of the best measured value (or the last decisive winner). */
static sg_bo_recommend_rule
reported_rule (const SbExperiment *exp)
{
  return exp->mode == SB_MODE_PREFERENCE ? SG_BO_RECOMMEND_EVALUATED : SG_BO_RECOMMEND_WINNER;
}

gboolean
sb_recommend_from_input (const SbJobInput *input, SbRecommendation *out, GError **error)
{
  const SbExperiment *exp = input->experiment;
  struct sg_bo *bo = sb_job_replay (input, error);
  SbRecommendation rec;
  sg_bo_query query;
  sg_point_summary summary;
  gsl_rng *rng;

  if (bo == NULL)
    return FALSE;
  memset (&rec, 0, sizeof rec);
  rec.mean = rec.lower = rec.upper = NAN;
  rec.n_answers = sg_bo_n_answers (bo);
  rec.has_best = sg_bo_best (bo, rec.best) != 0;
  rng = sg_rng_new (exp->seed, 1 + sg_bo_n_answers (bo));
  if (rec.has_best && rng != NULL && sg_bo_propose (bo, rng, NULL, &query) == SG_OK)
    {
      recommend (bo, reported_rule (exp), rec.best);
      if (sg_bo_summarize (bo, rec.best, 1, SG_SUMMARY_MOMENTS | SG_SUMMARY_QUANTILES, 0.95,
                           NULL, &summary) == SG_OK)
        {
          rec.mean = summary.mean;
          rec.lower = summary.lower;
          rec.upper = summary.upper;
        }
    }
  sb_hyper_from_engine (sg_bo_get_hyper (bo), exp->n_parameters, rec.n_answers, &rec.hyper);
  (void) sb_job_input_model (input, &rec.model, NULL);
  if (!(rec.has_best && isfinite (rec.mean)))
    rec.model.kind = SB_MODEL_NONE;
  if (rec.has_best)
    sb_experiment_from_model (exp, rec.best, rec.best);  /* model -> natural units */
  sg_rng_free (rng);
  sg_bo_free (bo);
  *out = rec;
  return TRUE;
}

gpointer
sb_job_recommend (SbWorkerJob *job, gpointer input, GError **error)
{
  SbRecommendation *rec = g_new0 (SbRecommendation, 1);

  if (!sb_recommend_from_input (input, rec, error))
    {
      g_free (rec);
      return NULL;
    }
  if (sb_worker_job_is_cancelled (job))
    {
      g_free (rec);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
      return NULL;
    }
  return rec;
}

static void
add_hyper (JsonBuilder *b, const SbExperiment *exp, const SbHyper *h)
{
  json_builder_set_member_name (b, "hyperparameters");
  json_builder_begin_object (b);
  sb_json_add_string (b, "kernel", h->matern52 ? "matern52" : "rbf");
  json_builder_set_member_name (b, "variance");
  json_builder_add_double_value (b, h->variance);
  json_builder_set_member_name (b, "lengthscales");
  json_builder_begin_array (b);
  for (guint j = 0; j < exp->n_parameters; j++)
    json_builder_add_double_value (b, h->lengthscales[j]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "mean");
  json_builder_add_double_value (b, h->mean);
  json_builder_set_member_name (b, "numeric_sd");
  json_builder_add_double_value (b, h->numeric_sd);
  json_builder_set_member_name (b, "probit_sd");
  json_builder_add_double_value (b, h->probit_sd);
  json_builder_end_object (b);
}

static void
add_best (JsonBuilder *b, const SbExperiment *exp, const SbRecommendation *rec)
{
  json_builder_set_member_name (b, "best");
  if (!rec->has_best)
    json_builder_add_null_value (b);
  else
    {
      json_builder_begin_array (b);
      for (guint j = 0; j < exp->n_parameters; j++)
        json_builder_add_double_value (b, rec->best[j]);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      json_builder_begin_object (b);
      sb_json_add_string (b, "name", exp->parameters[j].name);
      sb_json_add_string (b, "unit", exp->parameters[j].unit ? exp->parameters[j].unit : "");
      sb_json_add_number (b, "value", rec->has_best ? rec->best[j] : NAN);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (rec->has_best)
    {
      g_autofree char *text = sb_experiment_describe_setting (exp, rec->best);
      sb_json_add_string (b, "best_description", text);
    }
}

JsonNode *
sb_recommendation_to_json (const SbExperiment *exp, const SbRecommendation *rec)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_string (b, "format", "skewbench-recommendation");
  sb_json_add_int (b, "version", 1);
  sb_json_add_string (b, "title", exp->title ? exp->title : "");
  sb_json_add_int (b, "answers", rec->n_answers);
  sb_json_add_int (b, "budget", exp->budget);
  add_best (b, exp, rec);
  sb_json_add_number (b, "posterior_mean", rec->mean);
  json_builder_set_member_name (b, "credible_interval");
  if (isfinite (rec->lower) && isfinite (rec->upper))
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "level");
      json_builder_add_double_value (b, 0.95);
      json_builder_set_member_name (b, "lower");
      json_builder_add_double_value (b, rec->lower);
      json_builder_set_member_name (b, "upper");
      json_builder_add_double_value (b, rec->upper);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  add_hyper (b, exp, &rec->hyper);
  sb_model_info_add_json (b, "model", &rec->model);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

gboolean
sb_recommendation_save (const SbExperiment *exp, const SbRecommendation *rec, GFile *file,
                        GError **error)
{
  g_autoptr (JsonNode) root = sb_recommendation_to_json (exp, rec);
  gsize len = 0;
  g_autofree char *text = sb_json_write (root, TRUE, &len);

  return g_file_replace_contents (file, text, len, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                  NULL, NULL, error);
}
