/* sb-population.c — the hierarchical model of a study's population
 * (sb-population.h). */
#include "config.h"

#include "sb-population.h"
#include "sb-setting.h"
#include "sb-json-write.h"
#include "sb-parameter-kinds.h"

#include "sb-candidates.h"
#include "sb-engine-job.h"
#include "sb-experiment-check.h"
#include "sb-fit-file.h"
#include "sg-hier.h"
#include "sg-rng.h"

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <string.h>

/* ---- Candidates ------------------------------------------------------------------- */

static gboolean
near_any (const GArray *cand, guint d, const double *u)
{
  for (guint i = 0; i < cand->len / d; i++)
    {
      const double *c = &g_array_index (cand, double, (gsize) i * d);
      gboolean same = TRUE;
      for (guint j = 0; j < d && same; j++)
        same = fabs (c[j] - u[j]) <= 1e-9;
      if (same)
        return TRUE;
    }
  return FALSE;
}

/* The candidate set of the header, in box units (c x d). */
static GArray *
candidates_new (const SbPopulationInput *input)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, n_answered = 0;
  GArray *cand = g_array_new (FALSE, FALSE, sizeof (double));
  double u[SB_MAX_PARAMETERS];

  if (exp->candidates != NULL)
    {
      for (guint i = 0; i < exp->candidates->n; i++)
        {
          sb_population_to_unit (exp, exp->candidates->values + (gsize) i * d, u);
          g_array_append_vals (cand, u, d);
        }
      return cand;
    }
  for (guint p = 0; p < input->n_people; p++)
    for (guint i = 0; i < input->logs[p]->len; i++)
      {
        const SbLogEntry *e = g_ptr_array_index (input->logs[p], i);
        if (!sb_population_entry_counts (e))
          continue;
        for (guint k = 0; k < sb_log_entry_n_options (e); k++)
          {
            if (n_answered >= SB_POPULATION_MAX_ANSWERED)
              break;
            sb_population_to_unit (exp, sb_log_entry_option (e, k), u);
            if (!near_any (cand, d, u))
              {
                g_array_append_vals (cand, u, d);
                n_answered++;
              }
          }
      }
  {
    gsl_qrng *q = gsl_qrng_alloc (gsl_qrng_sobol, d);
    for (guint i = 0; q != NULL && i < SB_POPULATION_N_SPACE_FILLING; i++)
      {
        gsl_qrng_get (q, u);
        g_array_append_vals (cand, u, d);
      }
    if (q != NULL)
      gsl_qrng_free (q);
  }
  return cand;
}

double *
sb_population_candidates (const SbPopulationInput *input, guint *n)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters;
  g_autoptr (GArray) cand = candidates_new (input);
  double *out = g_new (double, cand->len);

  *n = cand->len / d;
  for (guint i = 0; i < *n; i++)
    {
      sb_population_from_unit (exp, &g_array_index (cand, double, (gsize) i * d), out + (gsize) i * d);
      sb_population_snap_to_answered (input, out + (gsize) i * d);
    }
  return out;
}

/* ---- The population model ------------------------------------------------------- */

static void
plot_free (SbPopulationPlot *plot)
{
  if (plot == NULL)
    return;
  for (guint j = 0; j < plot->dim; j++)
    {
      g_free (plot->curves[j].x);
      g_free (plot->curves[j].g);
      g_free (plot->curves[j].person_mean);
    }
  g_free (plot);
}

static SbPopulationPlot *
plot_copy (const SbPopulationPlot *plot)
{
  SbPopulationPlot *c = g_memdup2 (plot, sizeof *plot);

  for (guint j = 0; j < plot->dim; j++)
    {
      const SbPopulationCurve *from = &plot->curves[j];
      SbPopulationCurve *to = &c->curves[j];
      to->x = g_memdup2 (from->x, from->n * sizeof (double));
      to->g = g_memdup2 (from->g, from->n * sizeof (sg_point_summary));
      to->person_mean = g_memdup2 (from->person_mean,
                                   (gsize) plot->n_people * from->n * sizeof (double));
    }
  return c;
}

void
sb_population_result_free (SbPopulationResult *result)
{
  if (result == NULL)
    return;
  for (guint p = 0; result->people && p < result->n_people; p++)
    g_free (result->people[p].code);
  g_free (result->people);
  plot_free (result->plot);
  g_free (result);
}

SbPopulationResult *
sb_population_result_copy (const SbPopulationResult *result)
{
  SbPopulationResult *c = g_memdup2 (result, sizeof *result);

  c->people = g_memdup2 (result->people, MAX (result->n_people, 1) * sizeof (SbPersonResult));
  for (guint p = 0; p < result->n_people; p++)
    c->people[p].code = g_strdup (result->people[p].code);
  c->plot = result->plot ? plot_copy (result->plot) : NULL;
  return c;
}

static SbPopulationResult *
result_new (const SbPopulationInput *input)
{
  SbPopulationResult *r = g_new0 (SbPopulationResult, 1);

  r->dim = input->experiment->n_parameters;
  r->n_people = input->n_people;
  r->people = g_new0 (SbPersonResult, MAX (input->n_people, 1));
  r->mean = r->lower = r->upper = NAN;
  r->hyper.log_evidence = NAN;
  for (guint p = 0; p < input->n_people; p++)
    {
      r->people[p].code = g_strdup (input->codes[p]);
      r->people[p].n_answers = sb_population_input_person_answers (input, p);
      r->people[p].mean = r->people[p].prob_best_differs = r->people[p].se = NAN;
    }
  return r;
}

/* The population's best of CAND with g's mean and interval there. */
static int
population_best (const SbPopulationInput *input, const sg_skewgp_posterior *post,
                 const sg_skewgp_samples *samples, const GArray *cand, SbPopulationResult *r)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, c = cand->len / d;
  const double *C = (const double *) cand->data;
  double point[SB_MAX_PARAMETERS + 1];
  sg_summary_options so;
  sg_point_summary sum;
  size_t best;
  int status;

  status = sg_hier_best_mean (post, samples, C, c, SG_HIER_POPULATION, &best, NULL);
  if (status != SG_OK)
    return status;
  status = sg_hier_points (d, SG_HIER_POPULATION, C + best * d, 1, point);
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_QUANTILES;
  so.level = 0.95;
  if (status == SG_OK)
    status = sg_skewgp_summarize (post, samples, point, 1, &so, NULL, &sum);
  if (status != SG_OK)
    return status;
  sb_population_from_unit (exp, C + best * d, r->best);
  sb_population_snap_to_answered (input, r->best);
  r->mean = sum.mean;
  r->lower = sum.lower;
  r->upper = sum.upper;
  return SG_OK;
}

/* Person P's best of CAND (f_p's largest posterior mean) and
 * P(their best differs from the population's), from POST, where they are
 * person IDX. */
static int
person_best (const SbPopulationInput *input, guint p, size_t idx,
             const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
             const GArray *cand, gsl_rng *rng, SbPersonResult *pr)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, c = cand->len / d;
  const double *C = (const double *) cand->data;
  size_t best;
  int status;

  status = sg_hier_best_mean (post, samples, C, c, idx, &best, &pr->mean);
  if (status == SG_OK)
    status = sg_hier_prob_best_differs (post, samples, C, c, idx, SB_POPULATION_SAME_BEST,
                                        rng, &pr->prob_best_differs, &pr->se);
  if (status == SG_OK)
    {
      sb_population_from_unit (exp, C + best * d, pr->best);
      sb_population_snap_to_answered (input, pr->best);
    }
  return status;
}

/* ---- The population plot ---------------------------------------------------------- */

/* The values along parameter P (see SbPopulationCurve): N asked for. */
static double *
curve_values (const SbParameter *p, guint n_asked, guint *n)
{
  double lo = sb_parameter_axis_lower (p), hi = sb_parameter_axis_upper (p);
  double *x;

  if ((p->scale == SB_SCALE_INTEGER || p->scale == SB_SCALE_CATEGORICAL)
      && hi - lo + 1 <= n_asked)
    {
      *n = (guint) (hi - lo) + 1;
      x = g_new (double, *n);
      for (guint i = 0; i < *n; i++)
        x[i] = lo + i;
      return x;
    }
  *n = MAX (n_asked, 2);
  x = g_new (double, *n);
  for (guint i = 0; i < *n; i++)
    x[i] = CLAMP (sb_parameter_from_axis (p, lo + (hi - lo) * i / (*n - 1)), p->lower, p->upper);
  return x;
}

/* Curve J's points in box units: BEST (box units) with parameter J at
 * each of CURVE's values (n x d, g_free). */
static double *
curve_points (const SbExperiment *exp, const SbPopulationCurve *curve, const double *best,
              guint j)
{
  guint d = exp->n_parameters;
  double *u = g_new (double, (gsize) curve->n * d);
  double point[SB_MAX_PARAMETERS], unit[SB_MAX_PARAMETERS];

  sb_population_from_unit (exp, best, point);
  for (guint i = 0; i < curve->n; i++)
    {
      point[j] = curve->x[i];
      sb_population_to_unit (exp, point, unit);
      memcpy (u + (gsize) i * d, best, d * sizeof (double));
      u[(gsize) i * d + j] = unit[j];
    }
  return u;
}

/* The plot's curves with g's mean and 95% equal-tailed band from POST
 * (g's posterior: the study's, or the population cache's), the others
 * through BEST (box units); the people's means NaN until plot_person. */
static int
plot_new (const SbPopulationInput *input, const double *best, const sg_skewgp_posterior *post,
          const sg_skewgp_samples *samples, const sg_progress *progress,
          SbPopulationPlot **out)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, P = input->n_people;
  SbPopulationPlot *plot = g_new0 (SbPopulationPlot, 1);
  sg_summary_options so;
  int status = SG_OK;

  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_QUANTILES;
  so.level = 0.95;
  plot->n_people = P;
  for (guint j = 0; status == SG_OK && j < d; j++)
    {
      SbPopulationCurve *curve = &plot->curves[j];
      g_autofree double *u = NULL;
      g_autofree double *points = NULL;
      curve->x = curve_values (&exp->parameters[j], input->n_plot, &curve->n);
      curve->g = g_new (sg_point_summary, curve->n);
      curve->person_mean = g_new (double, (gsize) curve->n * MAX (P, 1));
      for (gsize k = 0; k < (gsize) curve->n * P; k++)
        curve->person_mean[k] = NAN;
      plot->dim = j + 1;
      u = curve_points (exp, curve, best, j);
      points = g_new (double, (gsize) curve->n * (d + 1));
      status = sg_hier_points (d, SG_HIER_POPULATION, u, curve->n, points);
      if (status == SG_OK)
        status = sg_skewgp_summarize (post, samples, points, curve->n, &so, progress, curve->g);
    }
  if (status != SG_OK)
    {
      plot_free (plot);
      return status;
    }
  *out = plot;
  return SG_OK;
}

/* Person P's mean of f_p along every curve, from POST where they are
 * person IDX (the samples' first moment: sg_summary_options' fast path,
 * the sample mean to round-off). */
static int
plot_person (const SbPopulationInput *input, SbPopulationPlot *plot, const double *best,
             guint p, size_t idx, const sg_skewgp_posterior *post,
             const sg_skewgp_samples *samples, const sg_progress *progress)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters;
  sg_summary_options so;
  int status = SG_OK;

  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS;
  so.fast_moments = SG_SUMMARY_FAST_MEAN_SD;
  for (guint j = 0; status == SG_OK && j < plot->dim; j++)
    {
      SbPopulationCurve *curve = &plot->curves[j];
      g_autofree double *u = curve_points (exp, curve, best, j);
      g_autofree double *points = g_new (double, (gsize) curve->n * (d + 1));
      g_autofree sg_point_summary *f = g_new (sg_point_summary, curve->n);
      status = sg_hier_points (d, idx, u, curve->n, points);
      if (status == SG_OK)
        status = sg_skewgp_summarize (post, samples, points, curve->n, &so, progress, f);
      for (guint i = 0; status == SG_OK && i < curve->n; i++)
        curve->person_mean[(gsize) p * curve->n + i] = f[i].mean;
    }
  return status;
}

/* ---- The report from the exact model ------------------------------------------------- */

/* The posterior of MODEL given HD (NULL: the summary alone) and PSEUDO
 * (NULL: HD alone), with its samples (stream STREAM of EXP's seed). */
static int
posterior_with_samples (const SbExperiment *exp, const sg_hier_model *model,
                        const sg_hier_data *hd, const sg_svgp_pseudo *pseudo, guint64 stream,
                        const sg_progress *progress, sg_skewgp_posterior **post,
                        sg_skewgp_samples **samples)
{
  gsl_rng *rng = sg_rng_new (exp->seed, stream);
  int status = rng ? SG_OK : SG_ENOMEM;

  *post = NULL;
  *samples = NULL;
  if (status == SG_OK)
    status = pseudo ? sg_hier_posterior_new_summary (model, hd, pseudo, post)
                    : sg_hier_posterior_new (model, hd, post);
  if (status == SG_OK)
    status = sg_skewgp_sample (*post, SB_POPULATION_N_SAMPLES, NULL, rng, progress, samples);
  sg_rng_free (rng);
  return status;
}

/* Everyone from one exact posterior of HD under MODEL. */
static int
report_exact (const SbPopulationInput *input, const sg_hier_model *model,
              const sg_hier_data *hd, const GArray *cand, const sg_progress *progress,
              SbPopulationResult *r)
{
  const SbExperiment *exp = input->experiment;
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  gsl_rng *rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_BEST_DIFFERS);
  double best[SB_MAX_PARAMETERS];
  int status;

  status = posterior_with_samples (exp, model, hd, NULL, SB_POPULATION_STREAM_SAMPLE, progress,
                                   &post, &samples);
  if (status == SG_OK)
    status = population_best (input, post, samples, cand, r);
  for (guint p = 0; status == SG_OK && p < input->n_people; p++)
    status = rng ? person_best (input, p, p, post, samples, cand, rng, &r->people[p])
                 : SG_ENOMEM;
  sb_population_to_unit (exp, r->best, best);
  if (status == SG_OK && input->n_plot > 0)
    status = plot_new (input, best, post, samples, progress, &r->plot);
  for (guint p = 0; status == SG_OK && r->plot && p < input->n_people; p++)
    status = plot_person (input, r->plot, best, p, p, post, samples, progress);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_rng_free (rng);
  return status;
}

static SbPopulationResult *
compute_exact (const SbPopulationInput *input, const sg_progress *progress, GError **error)
{
  const SbExperiment *exp = input->experiment;
  g_autoptr (SbPopulationResult) r = result_new (input);
  g_autoptr (GArray) cand = NULL;
  SbPopulationKernels k;
  SbPopulationHyper fit = { 0 };
  sg_hier_data hd;
  sg_hier_model model;
  int status;

  if (!sb_population_build_data (input, &hd, error))
    return NULL;
  sb_population_kernels_default (input, &k);
  if (!sb_population_model_new (exp, &k, &model, error))
    {
      sg_hier_data_clear (&hd);
      return NULL;
    }
  r->n_answers = sb_population_input_n_answers (input);
  fit.fitted_on = "";
  fit.log_evidence = NAN;
  if (input->fit)
    sb_population_fit (exp, input->fit_max_evals, &model, &hd, progress, &fit);
  sb_population_hyper_from_model (exp, &model, &r->hyper);
  r->hyper.fitted = fit.fitted;
  r->hyper.fitted_on = fit.fitted_on;
  r->hyper.log_evidence = fit.log_evidence;
  r->hyper.n_evals = fit.n_evals;
  r->model.kind = SB_MODEL_EXACT;
  r->model.answers = r->model.exact_answers = r->n_answers;
  r->model.fit_answers = fit.fitted ? r->n_answers : 0;
  cand = candidates_new (input);
  r->n_candidates = cand->len / exp->n_parameters;
  status = report_exact (input, &model, &hd, cand, progress, r);
  sg_hier_model_clear (&model);
  sg_hier_data_clear (&hd);
  if (sb_engine_failed (status, "the population model", error))
    return NULL;
  return g_steal_pointer (&r);
}

/* ---- The report from the population cache ----------------------------------------------- */

/* Person P's best and plot from their question model: CACHE's summary
 * of everyone else and their own answers exactly. */
static int
report_person (const SbPopulationInput *input, const SbPopulationCache *cache,
               const sg_hier_model *model, guint p, const GArray *cand, const double *best,
               gsl_rng *rng, const sg_progress *progress, SbPopulationResult *r,
               GError **error)
{
  const SbExperiment *exp = input->experiment;
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  sg_svgp_pseudo ps;
  sg_hier_data own;
  size_t idx;
  int status;

  if (!sb_population_cache_person (cache, exp, model, input->codes[p], input->logs[p], &own,
                                   &idx, &ps, error))
    return SG_EINVAL;
  status = posterior_with_samples (exp, model, &own, &ps, SB_POPULATION_STREAM_SAMPLE + 1000 + p,
                                   progress, &post, &samples);
  if (status == SG_OK)
    status = person_best (input, p, idx, post, samples, cand, rng, &r->people[p]);
  if (status == SG_OK && r->plot)
    status = plot_person (input, r->plot, best, p, idx, post, samples, progress);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_svgp_pseudo_clear (&ps);
  sg_hier_data_clear (&own);
  return status;
}

/* g's posterior from everyone in CACHE: its best and the plot's g. */
static int
report_population (const SbPopulationInput *input, const SbPopulationCache *cache,
                   const sg_hier_model *model, const GArray *cand,
                   const sg_progress *progress, SbPopulationResult *r)
{
  const SbExperiment *exp = input->experiment;
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  sg_svgp_pseudo ps;
  sg_hier_data none;
  double best[SB_MAX_PARAMETERS];
  int status;

  status = sg_hier_data_init (&none, exp->n_parameters, MAX (input->n_people, 1));
  if (status != SG_OK)
    return status;
  status = sg_hier_population_pseudo (&cache->pop, model, NULL, SG_HIER_POPULATION, &ps);
  if (status == SG_OK)
    {
      status = posterior_with_samples (exp, model, &none, &ps, SB_POPULATION_STREAM_SAMPLE,
                                       progress, &post, &samples);
      sg_svgp_pseudo_clear (&ps);
    }
  if (status == SG_OK)
    status = population_best (input, post, samples, cand, r);
  sb_population_to_unit (exp, r->best, best);
  if (status == SG_OK && input->n_plot > 0)
    status = plot_new (input, best, post, samples, progress, &r->plot);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_hier_data_clear (&none);
  return status;
}

static SbPopulationResult *
compute_cached (const SbPopulationInput *input, const SbPopulationCache *cache,
                const sg_progress *progress, GError **error)
{
  const SbExperiment *exp = input->experiment;
  g_autoptr (SbPopulationResult) r = result_new (input);
  g_autoptr (GArray) cand = candidates_new (input);
  gsl_rng *rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_BEST_DIFFERS);
  double best[SB_MAX_PARAMETERS];
  sg_hier_model model;
  int status;

  if (!sb_population_model_new (exp, &cache->kernels, &model, error))
    {
      sg_rng_free (rng);
      return NULL;
    }
  r->n_answers = sb_population_input_n_answers (input);
  r->n_candidates = cand->len / exp->n_parameters;
  r->hyper = cache->hyper;
  r->model.kind = SB_MODEL_POPULATION;
  r->model.n_inducing = (guint) cache->pop.M;
  r->model.answers = r->n_answers;
  r->model.fit_answers = cache->n_answers;
  status = rng ? report_population (input, cache, &model, cand, progress, r) : SG_ENOMEM;
  sb_population_to_unit (exp, r->best, best);
  for (guint p = 0; status == SG_OK && p < input->n_people; p++)
    {
      GError *local = NULL;
      status = report_person (input, cache, &model, p, cand, best, rng, progress, r, &local);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          sg_hier_model_clear (&model);
          sg_rng_free (rng);
          return NULL;
        }
    }
  sg_hier_model_clear (&model);
  sg_rng_free (rng);
  if (sb_engine_failed (status, "the population model", error))
    return NULL;
  return g_steal_pointer (&r);
}

SbPopulationResult *
sb_population_compute (const SbPopulationInput *input, const sg_progress *progress,
                       GError **error)
{
  g_autoptr (SbPopulationCache) cache = NULL;
  guint n = sb_population_input_n_answers (input);

  if (n == 0)
    {
      SbPopulationResult *r = result_new (input);
      SbPopulationKernels k;
      sg_hier_model model;
      sb_population_kernels_default (input, &k);
      if (!sb_population_model_new (input->experiment, &k, &model, error))
        {
          sb_population_result_free (r);
          return NULL;
        }
      sb_population_hyper_from_model (input->experiment, &model, &r->hyper);
      r->hyper.fitted_on = "";
      sg_hier_model_clear (&model);
      return r;
    }
  if (n <= SB_STUDY_EXACT_MAX_ANSWERS)
    return compute_exact (input, progress, error);
  /* beyond: from the stored cache when it saw every answer, else from
   * one made now under its kernels and stored, so the questions that
   * follow use it (a folder that cannot take it still gets its report) */
  cache = input->dir ? sb_population_cache_load (input->dir, input->experiment, NULL) : NULL;
  if (cache == NULL || !sb_population_cache_covers (cache, input))
    {
      SbPopulationCache *built = sb_population_cache_build (input, cache, FALSE, progress, error);
      if (built == NULL)
        return NULL;
      g_clear_pointer (&cache, sb_population_cache_unref);
      cache = built;
      if (input->dir != NULL)
        (void) sb_population_cache_save (cache, input->experiment, input->dir, NULL);
    }
  return compute_cached (input, cache, progress, error);
}

gpointer
sb_job_population (SbWorkerJob *job, gpointer input, GError **error)
{
  SbJobProgress jp = { job, "Population model" };
  sg_progress progress = { sb_job_forward_progress, &jp };
  SbPopulationResult *r = sb_population_compute (input, job ? &progress : NULL, error);

  if (r != NULL && job != NULL && sb_worker_job_is_cancelled (job))
    {
      sb_population_result_free (r);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
      return NULL;
    }
  return r;
}

/* ---- JSON ------------------------------------------------------------------------- */

static void
add_vector (JsonBuilder *b, const char *name, const double *x, guint n, gboolean known)
{
  json_builder_set_member_name (b, name);
  if (!known)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_array (b);
  for (guint j = 0; j < n; j++)
    json_builder_add_double_value (b, x[j]);
  json_builder_end_array (b);
}

/* Member NAME: the setting X as people read it (level names, whole
 * numbers), or null when not KNOWN. */
static void
add_setting (JsonBuilder *b, const SbExperiment *exp, const char *name, const double *x,
             gboolean known)
{
  json_builder_set_member_name (b, name);
  if (known)
    json_builder_add_value (b, sb_experiment_setting_to_json (exp, x));
  else
    json_builder_add_null_value (b);
}

static void
add_kernel (JsonBuilder *b, const char *name, double variance, const double *lengthscales,
            guint d)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  sb_json_add_number (b, "variance", variance);
  add_vector (b, "lengthscales", lengthscales, d, TRUE);
  json_builder_end_object (b);
}

static void
add_hyper (JsonBuilder *b, guint d, const SbPopulationHyper *h)
{
  json_builder_set_member_name (b, "hyperparameters");
  json_builder_begin_object (b);
  sb_json_add_string (b, "kernel", h->matern52 ? "matern52" : "rbf");
  add_kernel (b, "population", h->pop_variance, h->pop_lengthscales, d);
  add_kernel (b, "individual", h->ind_variance, h->ind_lengthscales, d);
  sb_json_add_number (b, "probit_sd", h->probit_sd);
  sb_json_add_bool (b, "fitted", h->fitted);
  sb_json_add_string (b, "fitted_on", h->fitted_on ? h->fitted_on : "");
  sb_json_add_number (b, "log_evidence", h->log_evidence);
  sb_json_add_int (b, "evaluations", h->n_evals);
  json_builder_end_object (b);
}

JsonNode *
sb_population_result_to_json (const SbExperiment *exp, const char *study_name,
                              const SbPopulationResult *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  gboolean known = r->n_answers > 0;
  double interval[2] = { r->lower, r->upper };

  json_builder_begin_object (b);
  sb_json_add_string (b, "format", "skewbench-population-model");
  sb_json_add_int (b, "version", 1);
  sb_json_add_string (b, "study", study_name ? study_name : "");
  sb_json_add_string (b, "title", exp->title ? exp->title : "");
  sb_json_add_string (b, "model", "f_p(x) = g(x) + h_p(x), g ~ GP(0, k_pop), "
                                    "h_p ~ GP(0, k_ind)");
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint j = 0; j < exp->n_parameters; j++)
    json_builder_add_string_value (b, exp->parameters[j].name);
  json_builder_end_array (b);
  sb_json_add_int (b, "answers", r->n_answers);
  sb_json_add_int (b, "candidates", r->n_candidates);
  add_hyper (b, exp->n_parameters, &r->hyper);
  json_builder_set_member_name (b, "population");
  json_builder_begin_object (b);
  add_setting (b, exp, "best", r->best, known);
  sb_json_add_number (b, "mean", r->mean);
  add_vector (b, "interval", interval, 2, known && isfinite (r->lower));
  json_builder_end_object (b);
  json_builder_set_member_name (b, "participants");
  json_builder_begin_array (b);
  for (guint p = 0; p < r->n_people; p++)
    {
      const SbPersonResult *pr = &r->people[p];
      json_builder_begin_object (b);
      sb_json_add_string (b, "code", pr->code);
      sb_json_add_int (b, "answers", pr->n_answers);
      add_setting (b, exp, "best", pr->best, known);
      sb_json_add_number (b, "mean", pr->mean);
      sb_json_add_number (b, "prob_best_differs", pr->prob_best_differs);
      sb_json_add_number (b, "se", pr->se);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* ---- Questions --------------------------------------------------------------------- */

gboolean
sb_population_can_propose (const SbExperiment *exp)
{
  /* the hierarchical duel challenges x_r by ucb, eiig, epi or thompson;
   * the other rules ask from the participant's own model */
  if (exp->acquisition != SG_BO_ACQ_UCB && exp->acquisition != SG_BO_ACQ_EIIG
      && exp->acquisition != SG_BO_ACQ_EPI && exp->acquisition != SG_BO_ACQ_THOMPSON)
    return FALSE;
  return sb_experiment_population_fits (exp);
}

/* The duel of Q (box units) in the parameters' units, snapped to the
 * answered settings of LOG (a person's) or INPUT (everyone's). */
static void
duel_from_unit (const SbExperiment *exp, const sg_hier_question *q, GPtrArray *log,
                const SbPopulationInput *input, double *a, double *b)
{
  sb_population_from_unit (exp, q->x_ref, a);
  sb_population_from_unit (exp, q->x, b);
  if (input != NULL)
    {
      sb_population_snap_to_answered (input, a);
      sb_population_snap_to_answered (input, b);
    }
  else
    {
      sb_population_snap_to_log (exp, log, a);
      sb_population_snap_to_log (exp, log, b);
    }
}

/* A stream per state of the study and per person. */
static gsl_rng *
propose_rng (const SbExperiment *exp, guint n_answers, size_t person)
{
  guint64 stream = ((guint64) n_answers << 32) ^ ((guint64) person << 8)
                   ^ SB_POPULATION_STREAM_PROPOSE;
  return sg_rng_new (exp->seed, stream);
}

gboolean
sb_population_propose_duel (const SbPopulationInput *input, guint person, double *a,
                            double *b, GError **error)
{
  const SbExperiment *exp = input->experiment;
  sg_hier_propose_options opt;
  SbPopulationKernels k;
  sg_hier_question q;
  sg_hier_data hd;
  sg_hier_model model;
  gsl_rng *rng;
  int status;

  g_return_val_if_fail (person < input->n_people, FALSE);
  if (!sb_population_build_data (input, &hd, error))
    return FALSE;
  sb_population_kernels_default (input, &k);
  if (!sb_population_model_new (exp, &k, &model, error))
    {
      sg_hier_data_clear (&hd);
      return FALSE;
    }
  sg_hier_propose_options_default (&opt, exp->n_parameters);
  opt.acquisition = exp->acquisition;
  rng = propose_rng (exp, sb_population_input_n_answers (input), person);
  status = rng ? sg_hier_propose_duel (&model, &hd, person, &opt, rng, NULL, &q) : SG_ENOMEM;
  sg_rng_free (rng);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
  if (sb_engine_failed (status, "the study's duel", error))
    return FALSE;
  duel_from_unit (exp, &q, NULL, input, a, b);
  return TRUE;
}

typedef struct {
  SbStudy *study;
  const char *code;
} AskContext;

/* The duel from CACHE's summary and LOG (the person's answers) exactly. */
static gboolean
propose_from_cache (const SbExperiment *exp, const SbPopulationCache *cache, const char *code,
                    GPtrArray *log, double *a, double *b, SbModelInfo *info, GError **error)
{
  sg_hier_propose_options opt;
  sg_hier_question q;
  sg_svgp_pseudo ps;
  sg_hier_data own;
  sg_hier_model model;
  size_t person;
  gsl_rng *rng;
  int status;

  if (!sb_population_model_new (exp, &cache->kernels, &model, error))
    return FALSE;
  if (!sb_population_cache_person (cache, exp, &model, code, log, &own, &person, &ps, error))
    {
      sg_hier_model_clear (&model);
      return FALSE;
    }
  sg_hier_propose_options_default (&opt, exp->n_parameters);
  opt.acquisition = exp->acquisition;
  opt.population = &ps;
  rng = propose_rng (exp, cache->n_answers + (guint) own.data.n_obs, person);
  status = rng ? sg_hier_propose_duel (&model, &own, person, &opt, rng, NULL, &q) : SG_ENOMEM;
  sg_rng_free (rng);
  info->kind = SB_MODEL_POPULATION;
  info->n_inducing = (guint) cache->pop.M;
  info->exact_answers = (guint) own.data.n_obs;
  sg_svgp_pseudo_clear (&ps);
  sg_hier_data_clear (&own);
  sg_hier_model_clear (&model);
  if (sb_engine_failed (status, "the study's duel", error))
    return FALSE;
  duel_from_unit (exp, &q, log, NULL, a, b);
  return TRUE;
}

/* The answers the study's model sees now, from CACHE and the person's
 * own LOG (their answers since the cache are theirs to add). */
static guint
answers_now (const SbPopulationCache *cache, const char *code, GPtrArray *log)
{
  int index = sb_population_cache_find (cache, code);
  guint seen = index >= 0 ? (guint) cache->pop.seen[index] : 0;

  return cache->n_answers - seen + sb_answers_count (log);
}

/* Without a cache: the exact model of everyone's answers, up to its size. */
static gboolean
propose_exact (AskContext *ctx, const char *why, double *a, double *b, gboolean *declined,
               SbModelInfo *info, GError **error)
{
  g_autoptr (SbPopulationInput) input = sb_population_input_new (ctx->study, error);
  guint n;
  int person;

  if (input == NULL)
    return FALSE;
  n = sb_population_input_n_answers (input);
  person = sb_population_input_find (input, ctx->code);
  if (person < 0 || n < input->experiment->initial)
    {
      *declined = TRUE;
      return TRUE;
    }
  if (n > SB_STUDY_EXACT_MAX_ANSWERS)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                   "the study has %u answers: beyond %u a question uses the population cache "
                   "(%s), and %s; run skewgp refit %s (or skewgp status %s, which refreshes "
                   "it)", n, SB_STUDY_EXACT_MAX_ANSWERS, SB_POPULATION_CACHE_FILE, why,
                   sb_study_get_dir (ctx->study), sb_study_get_dir (ctx->study));
      return FALSE;
    }
  info->kind = SB_MODEL_EXACT;
  info->answers = info->exact_answers = n;
  return sb_population_propose_duel (input, (guint) person, a, b, error);
}

static gboolean
propose_hierarchical (SbSession *session, gpointer user_data, double *a, double *b,
                      gboolean *declined, SbModelInfo *info, GError **error)
{
  AskContext *ctx = user_data;
  const SbExperiment *exp = sb_study_get_experiment (ctx->study);
  g_autoptr (GPtrArray) log = sb_session_dup_observations (session);
  g_autoptr (GError) why = NULL;
  g_autoptr (GError) conflict = NULL;
  g_autoptr (SbPopulationCache) cache = sb_population_cache_load (sb_study_get_dir (ctx->study),
                                                                   exp, &why);

  if (cache == NULL)
    return propose_exact (ctx, g_error_matches (why, SB_FIT_FILE_ERROR,
                                                SB_FIT_FILE_ERROR_MISSING)
                                 ? "none is stored" : why->message,
                          a, b, declined, info, error);
  info->answers = answers_now (cache, ctx->code, log);
  info->fit_answers = cache->n_answers;
  info->refit_due = sb_population_cache_due (cache, info->answers);
  if (info->answers < exp->initial)
    {
      *declined = TRUE;
      return TRUE;
    }
  if (propose_from_cache (exp, cache, ctx->code, log, a, b, info, &conflict))
    return TRUE;
  if (!g_error_matches (conflict, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT))
    {
      g_propagate_error (error, g_steal_pointer (&conflict));
      return FALSE;
    }
  /* their answers changed under the cache: their own model asks */
  g_snprintf (info->note, sizeof info->note, "asked from this participant's own answers "
              "until the population cache is refreshed: %s", conflict->message);
  *declined = TRUE;
  return TRUE;
}

const SbQuestion *
sb_population_ask (SbStudy *study, const char *code, SbSession *session, SbModelInfo *info,
                   GError **error)
{
  AskContext ctx = { study, code };
  double rate = sb_study_get_repeat_rate (study);

  if (sb_study_get_model (study) != SB_STUDY_MODEL_HIERARCHICAL
      || !sb_population_can_propose (sb_study_get_experiment (study)))
    return sb_ask_tell_ask_with_proposer (session, rate, NULL, NULL, info, error);
  return sb_ask_tell_ask_with_proposer (session, rate, propose_hierarchical, &ctx, info, error);
}
