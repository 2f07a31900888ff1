/* sb-population-model.c — a study's answers as the hierarchical model
 * reads them (sb-population-model.h). */
#include "config.h"

#include "sb-population-model.h"
#include "sb-engine-job.h"
#include "sb-parameter-kinds.h"
#include "sb-test-points.h"

#include "sg-rng.h"
#include "sg-svgp-rows.h"

#include <math.h>
#include <string.h>

#define FITTED_EXACT "exact evidence"
#define FITTED_ELBO "ELBO of the sparse variational model (population lengthscales)"

/* ---- The snapshot --------------------------------------------------------- */

static void
input_free_logs (SbPopulationInput *input)
{
  for (guint i = 0; input->logs && i < input->n_people; i++)
    g_clear_pointer (&input->logs[i], g_ptr_array_unref);
  g_clear_pointer (&input->logs, g_free);
}

void
sb_population_input_free (SbPopulationInput *input)
{
  if (input == NULL)
    return;
  g_clear_pointer (&input->experiment, sb_experiment_free);
  g_free (input->dir);
  input_free_logs (input);
  g_strfreev (input->codes);
  g_free (input);
}

SbPopulationInput *
sb_population_input_new (SbStudy *study, GError **error)
{
  g_autoptr (SbPopulationInput) input = g_new0 (SbPopulationInput, 1);
  guint n = sb_study_get_n_participants (study);

  input->experiment = sb_experiment_copy (sb_study_get_experiment (study));
  input->dir = g_strdup (sb_study_get_dir (study));
  input->codes = g_new0 (char *, n + 1);
  input->logs = g_new0 (GPtrArray *, n);
  for (guint i = 0; i < n; i++)
    {
      const SbParticipant *p = sb_study_get_participant (study, i);
      g_autoptr (SbSession) session = NULL;
      if (p->status == SB_PARTICIPANT_EXCLUDED)
        continue;
      session = sb_study_open_session (study, p->code, NULL);
      if (session == NULL)
        {
          input->n_unreadable++;
          continue;
        }
      input->codes[input->n_people] = g_strdup (p->code);
      input->logs[input->n_people] = sb_session_dup_observations (session);
      input->n_people++;
    }
  input->fit = TRUE;
  input->pop_variance = 1;
  input->pop_lengthscale = 0.2;
  input->ind_variance = SB_POPULATION_IND_VARIANCE;
  input->ind_lengthscale = 0.2;
  input->probit_sd = M_SQRT1_2;
  input->fit_max_evals = 150;
  return g_steal_pointer (&input);
}

int
sb_population_input_find (const SbPopulationInput *input, const char *code)
{
  for (guint i = 0; code && i < input->n_people; i++)
    if (g_ascii_strcasecmp (input->codes[i], code) == 0)
      return (int) i;
  return -1;
}

gboolean
sb_population_entry_counts (const SbLogEntry *e)
{
  return !sb_log_entry_is_removed (e) && e->kind != SB_LOG_SKIP;
}

guint
sb_population_input_person_answers (const SbPopulationInput *input, guint p)
{
  guint n = 0;

  for (guint i = 0; i < input->logs[p]->len; i++)
    n += sb_population_entry_counts (g_ptr_array_index (input->logs[p], i));
  return n;
}

guint
sb_population_input_n_answers (const SbPopulationInput *input)
{
  guint n = 0;

  for (guint p = 0; p < input->n_people; p++)
    n += sb_population_input_person_answers (input, p);
  return n;
}

/* ---- Coordinates: the box scaled to [0, 1] ---------------------------------- */

/* The model's coordinates (sb-parameter-kinds.h: log scales in log
 * space, categorical levels by index) scaled so that the box is [0, 1]^d;
 * a periodic coordinate's range is one period, so its period is 1. */
static double
unit_width (const SbParameter *p, double *lower)
{
  *lower = sb_parameter_to_model (p, p->lower);
  return sb_parameter_to_model (p, p->upper) - *lower;
}

void
sb_population_to_unit (const SbExperiment *exp, const double *x, double *u)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      double lower, width = unit_width (&exp->parameters[j], &lower);
      u[j] = (sb_parameter_to_model (&exp->parameters[j], x[j]) - lower) / width;
    }
}

void
sb_population_from_unit (const SbExperiment *exp, const double *u, double *x)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      double lower, width = unit_width (&exp->parameters[j], &lower);
      x[j] = sb_parameter_from_model (&exp->parameters[j], lower + u[j] * width);
    }
}

/* X = the setting of LOG's answers it is within round-off of, if any:
 * TRUE when it is. */
static gboolean
snap_in_log (const SbExperiment *exp, GPtrArray *log, double *x)
{
  for (guint i = 0; i < log->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (log, i);
      if (!sb_population_entry_counts (e))
        continue;
      for (guint k = 0; k < sb_log_entry_n_options (e); k++)
        {
          const double *o = sb_log_entry_option (e, k);
          gboolean same = TRUE;
          for (guint j = 0; j < exp->n_parameters && same; j++)
            same = fabs (o[j] - x[j])
                   <= 1e-9 * (exp->parameters[j].upper - exp->parameters[j].lower);
          if (same)
            {
              memcpy (x, o, exp->n_parameters * sizeof (double));
              return TRUE;
            }
        }
    }
  return FALSE;
}

void
sb_population_snap_to_log (const SbExperiment *exp, GPtrArray *log, double *x)
{
  snap_in_log (exp, log, x);
}

void
sb_population_snap_to_answered (const SbPopulationInput *input, double *x)
{
  for (guint p = 0; p < input->n_people; p++)
    if (snap_in_log (input->experiment, input->logs[p], x))
      return;
}

/* ---- Answers into the model's data (as sb-jobs.c replays a session) -------- */

/* The option shown first of a two-option entry, as the data name it:
 * 0 = the winner, 1 = the loser. */
static size_t
duel_shown_first (const SbLogEntry *e)
{
  if (e->n_shown == 0)
    return SG_SHOWN_NONE;
  return (e->shown_order[0] == 0) == (e->winner == 0) ? 0 : 1;
}

static int
add_choice (sg_hier_data *hd, size_t p, const SbExperiment *exp, const SbLogEntry *e)
{
  guint d = exp->n_parameters, k = e->n_options;
  double chosen[SB_MAX_PARAMETERS];
  g_autofree double *others = g_new (double, (gsize) (k - 1) * d);
  size_t first = SG_SHOWN_NONE;

  sb_population_to_unit (exp, sb_log_entry_option (e, e->chosen), chosen);
  for (guint i = 0, j = 0; i < k; i++)
    if (i != e->chosen)
      sb_population_to_unit (exp, sb_log_entry_option (e, i), others + (gsize) (j++) * d);
  if (e->n_shown > 0)
    {
      guint s = e->shown_order[0];
      first = s == e->chosen ? 0 : s < e->chosen ? s + 1 : s;
    }
  return sg_hier_add_choice (hd, p, chosen, others, k - 1, e->confidence, first);
}

static int
add_ranking (sg_hier_data *hd, size_t p, const SbExperiment *exp, const SbLogEntry *e)
{
  guint d = exp->n_parameters;
  g_autofree double *order = g_new (double, (gsize) e->n_options * d);

  for (guint r = 0; r < e->n_options; r++)
    sb_population_to_unit (exp, sb_log_entry_option (e, e->ranking[r]), order + (gsize) r * d);
  return sg_hier_add_ranking (hd, p, order, e->n_options);
}

/* A measured value or a failed setting: numeric in preference and mixed
 * mode, valid above the threshold in safe mode; failed: below it. */
static int
add_measurement (sg_hier_data *hd, size_t p, const SbExperiment *exp, const SbLogEntry *e)
{
  double u[SB_MAX_PARAMETERS], point[SB_MAX_PARAMETERS + 1];

  sb_population_to_unit (exp, e->a, u);
  if (e->kind == SB_LOG_VALUE && exp->mode != SB_MODE_SAFE)
    return sg_hier_add_numeric (hd, p, u, e->value);
  if (sg_hier_points (hd->dim, p, u, 1, point) != SG_OK)
    return SG_EINVAL;
  if (e->kind == SB_LOG_VALUE)
    return sg_data_add_valid (&hd->data, point, e->value, exp->threshold);
  return sg_data_add_invalid (&hd->data, point, exp->threshold);
}

int
sb_population_add_entry (sg_hier_data *hd, size_t p, const SbExperiment *exp, const SbLogEntry *e)
{
  double a[SB_MAX_PARAMETERS], b[SB_MAX_PARAMETERS];

  switch (e->kind)
    {
    case SB_LOG_DUEL:
      sb_population_to_unit (exp, e->a, a);
      sb_population_to_unit (exp, e->b, b);
      return sg_hier_add_duel (hd, p, e->winner == 0 ? a : b, e->winner == 0 ? b : a,
                               e->confidence, duel_shown_first (e), exp->ties_allowed);
    case SB_LOG_TIE:
      sb_population_to_unit (exp, e->a, a);
      sb_population_to_unit (exp, e->b, b);
      return sg_hier_add_tie (hd, p, a, b);
    case SB_LOG_CHOICE:
      return add_choice (hd, p, exp, e);
    case SB_LOG_RANKING:
      return add_ranking (hd, p, exp, e);
    case SB_LOG_VALUE:
    case SB_LOG_FAILED:
      return add_measurement (hd, p, exp, e);
    case SB_LOG_SKIP:
    default:
      return SG_OK;
    }
}

/* Adds LOG's answers that count as person P's to HD; FALSE with ERROR
 * naming CODE and the observation that does not fit. */
static gboolean
add_log (sg_hier_data *hd, const SbExperiment *exp, GPtrArray *log, const char *code,
         guint p, GError **error)
{
  for (guint i = 0; i < log->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (log, i);
      int status;
      if (!sb_experiment_check_observation (exp, e, i, error))
        return FALSE;
      if (!sb_population_entry_counts (e))
        continue;
      status = sb_population_add_entry (hd, p, exp, e);
      if (status != SG_OK)
        {
          g_set_error (error, SB_ENGINE_ERROR, status,
                       "participant '%s', observation %u (%s) does not fit the study: %s",
                       code, i + 1, sb_log_kind_to_string (e->kind), sg_strerror (status));
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sb_population_person_data (const SbExperiment *exp, GPtrArray *log, const char *code,
                           guint p, guint n_people, sg_hier_data *hd, GError **error)
{
  g_return_val_if_fail (p < n_people, FALSE);
  if (sb_engine_failed (sg_hier_data_init (hd, exp->n_parameters, n_people),
                        "the study's model", error))
    return FALSE;
  if (!add_log (hd, exp, log, code, p, error))
    {
      sg_hier_data_clear (hd);
      return FALSE;
    }
  return TRUE;
}

gboolean
sb_population_build_data (const SbPopulationInput *input, sg_hier_data *hd, GError **error)
{
  const SbExperiment *exp = input->experiment;

  if (sb_engine_failed (sg_hier_data_init (hd, exp->n_parameters, MAX (input->n_people, 1)),
                        "the study's model", error))
    return FALSE;
  for (guint p = 0; p < input->n_people; p++)
    if (!add_log (hd, exp, input->logs[p], input->codes[p], p, error))
      {
        sg_hier_data_clear (hd);
        return FALSE;
      }
  return TRUE;
}

/* ---- The model ------------------------------------------------------------------------ */

void
sb_population_kernels_default (const SbPopulationInput *input, SbPopulationKernels *k)
{
  memset (k, 0, sizeof *k);
  k->pop_variance = input->pop_variance;
  k->ind_variance = input->ind_variance;
  for (guint j = 0; j < input->experiment->n_parameters; j++)
    {
      k->pop_lengthscales[j] = input->pop_lengthscale;
      k->ind_lengthscales[j] = input->ind_lengthscale;
    }
  k->probit_sd = input->probit_sd;
  /* a session's model of measured values (sg_bo_config_default) */
  k->numeric_sd = 0.1;
  k->mean = 0;
}

void
sb_population_kernels_from_model (const sg_hier_model *model, guint dim, SbPopulationKernels *k)
{
  memset (k, 0, sizeof *k);
  k->pop_variance = model->pop.variance;
  k->ind_variance = model->ind.variance;
  for (guint j = 0; j < dim; j++)
    {
      k->pop_lengthscales[j] = model->pop.lengthscales[j];
      k->ind_lengthscales[j] = model->ind.lengthscales[j];
    }
  k->probit_sd = model->noise.probit_sd;
  k->numeric_sd = model->noise.numeric_sd;
  k->mean = model->mean;
}

gboolean
sb_population_model_new (const SbExperiment *exp, const SbPopulationKernels *k,
                         sg_hier_model *model, GError **error)
{
  guint d = exp->n_parameters;

  memset (model, 0, sizeof *model);
  if (sb_engine_failed (sg_hier_model_init (model, SG_KERNEL_RBF, d, k->pop_variance, 1.0,
                                            k->ind_variance, 1.0),
                        "the study's model", error))
    return FALSE;
  for (guint j = 0; j < d; j++)
    {
      sg_dim_kind kind = sb_parameter_dim_kind (&exp->parameters[j]);
      model->pop.lengthscales[j] = k->pop_lengthscales[j];
      model->ind.lengthscales[j] = k->ind_lengthscales[j];
      if (kind == SG_DIM_LINEAR)
        continue;
      if (sb_engine_failed (sg_kernel_set_dim_kind (&model->pop, j, kind, 1.0),
                            "the study's model", error)
          || sb_engine_failed (sg_kernel_set_dim_kind (&model->ind, j, kind, 1.0),
                               "the study's model", error))
        {
          sg_hier_model_clear (model);
          return FALSE;
        }
    }
  model->noise.probit_sd = k->probit_sd;
  model->noise.numeric_sd = k->numeric_sd;
  model->mean = k->mean;
  return TRUE;
}


void
sb_population_hyper_from_model (const SbExperiment *exp, const sg_hier_model *model,
                                SbPopulationHyper *h)
{
  h->matern52 = model->pop.type == SG_KERNEL_MATERN52;
  h->pop_variance = model->pop.variance;
  h->ind_variance = model->ind.variance;
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      double lower, width = unit_width (&exp->parameters[j], &lower);
      h->pop_lengthscales[j] = model->pop.lengthscales[j] * width;
      h->ind_lengthscales[j] = model->ind.lengthscales[j] * width;
    }
  h->probit_sd = model->noise.probit_sd;
}

/* ---- Fits ------------------------------------------------------------------------------ */

const char *
sb_population_fitted_on (const char *text)
{
  static const char *const names[] = { FITTED_EXACT, FITTED_ELBO };

  for (guint i = 0; text && i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (text, names[i]))
      return names[i];
  return "";
}

/* The ELBO fit: as many inducing points as the population cache, and
 * Adam steps enough for the lengthscales from a warm start. */
#define ELBO_INDUCING 100
#define ELBO_ITERATIONS 600

/* The exact evidence (sg_hier_fit), in the boxes of the header. */
static gboolean
fit_exact (const SbExperiment *exp, guint max_evals, sg_hier_model *model,
           const sg_hier_data *hd, const sg_progress *progress, SbPopulationHyper *hyper)
{
  sg_hier_fit_spec spec;
  sg_fit_options fo;
  sg_fit_result res;
  gsl_rng *rng;
  gboolean ok;

  /* lengthscales from 0.05 to 2 box widths, as a session's refits
   * (sg_bo_config: a few duels otherwise favour white-noise lengthscales) */
  if (sg_hier_fit_spec_default (&spec, 0, hd) != SG_OK)
    return FALSE;
  /* variances: g's from 0.1 to 100; a person's deviation from 0.01 to 1
   * (a deviation of sd 1 on the probit scale turns a sure duel into an
   * 84% one), so that a few answers per person, which cannot tell shared
   * from personal preferences apart, do not hand everything to h_p */
  spec.variance.lower = 0.1;
  spec.variance.upper = 100;
  spec.ind_variance.lower = 0.01;
  spec.ind_variance.upper = 1;
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      spec.lengthscale[j].lower = spec.ind_lengthscale[j].lower = 0.05;
      spec.lengthscale[j].upper = spec.ind_lengthscale[j].upper = 2;
    }
  sg_fit_options_default (&fo);
  fo.n_starts = 2;
  fo.max_evals = max_evals;
  rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_FIT);
  ok = rng != NULL && sg_hier_fit (&spec, model, hd, &fo, rng, progress, &res) == SG_OK;
  if (ok)
    {
      hyper->log_evidence = res.log_evidence;
      hyper->n_evals = res.n_evals;
      hyper->fitted_on = FITTED_EXACT;
    }
  sg_rng_free (rng);
  return ok;
}

/* g's lengthscales on the ELBO (sg_hier_sparse_fit), kept within the
 * boxes of the exact fit. */
static gboolean
fit_elbo (const SbExperiment *exp, sg_hier_model *model, const sg_hier_data *hd,
          const sg_progress *progress, SbPopulationHyper *hyper)
{
  sg_svgp_rows_options opt;
  sg_svgp q = { 0 };
  gsl_rng *rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_FIT);
  gboolean ok;

  sg_svgp_rows_options_default (&opt);
  opt.n_inducing = ELBO_INDUCING;
  opt.train.iterations = ELBO_ITERATIONS;
  opt.train.fix_kernel = 0;
  ok = rng != NULL && sg_hier_sparse_fit (model, hd, &opt, rng, progress, &q) == SG_OK;
  sg_rng_free (rng);
  if (!ok)
    return FALSE;
  for (guint j = 0; j < exp->n_parameters; j++)
    model->pop.lengthscales[j] = CLAMP (q.kernel.lengthscales[j], 0.05, 2.0);
  hyper->log_evidence = NAN;
  hyper->n_evals = (guint) opt.train.iterations;
  hyper->fitted_on = FITTED_ELBO;
  sg_svgp_clear (&q);
  return TRUE;
}

void
sb_population_fit (const SbExperiment *exp, guint max_evals, sg_hier_model *model,
                   const sg_hier_data *hd, const sg_progress *progress, SbPopulationHyper *hyper)
{
  hyper->fitted = FALSE;
  hyper->fitted_on = "";
  hyper->log_evidence = NAN;
  hyper->n_evals = 0;
  if (hd->data.n_obs == 0)
    return;
  sb_test_point ("fit-population");
  hyper->fitted = hd->data.n_obs <= SB_POPULATION_EXACT_FIT_MAX
                    ? fit_exact (exp, max_evals, model, hd, progress, hyper)
                    : fit_elbo (exp, model, hd, progress, hyper);
}
