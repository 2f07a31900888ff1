/* sb-population.c — the hierarchical model of a study's population
 * (sb-population.h). */
#include "config.h"

#include "sb-population.h"
#include "sb-setting.h"
#include "sb-json-write.h"
#include "sb-parameter-kinds.h"

#include "sb-candidates.h"
#include "sb-engine-job.h"
#include "sg-hier.h"
#include "sg-rng.h"

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <string.h>


G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (sg_hier_model, sg_hier_model_clear)

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
  input->codes = g_new0 (char *, n + 1);
  input->logs = g_new0 (GPtrArray *, n);
  for (guint i = 0; i < n; i++)
    {
      const SbParticipant *p = sb_study_get_participant (study, i);
      g_autoptr (SbSession) session = NULL;
      if (p->status == SB_PARTICIPANT_EXCLUDED)
        continue;
      session = sb_study_open_session (study, p->code, error);
      if (session == NULL)
        return NULL;
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

static gboolean
entry_counts (const SbLogEntry *e)
{
  return !sb_log_entry_is_removed (e) && e->kind != SB_LOG_SKIP;
}

static guint
person_n_answers (const SbPopulationInput *input, guint p)
{
  guint n = 0;

  for (guint i = 0; i < input->logs[p]->len; i++)
    n += entry_counts (g_ptr_array_index (input->logs[p], i));
  return n;
}

guint
sb_population_input_n_answers (const SbPopulationInput *input)
{
  guint n = 0;

  for (guint p = 0; p < input->n_people; p++)
    n += person_n_answers (input, p);
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

static void
to_unit (const SbExperiment *exp, const double *x, double *u)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      double lower, width = unit_width (&exp->parameters[j], &lower);
      u[j] = (sb_parameter_to_model (&exp->parameters[j], x[j]) - lower) / width;
    }
}

static void
from_unit (const SbExperiment *exp, const double *u, double *x)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      double lower, width = unit_width (&exp->parameters[j], &lower);
      x[j] = sb_parameter_from_model (&exp->parameters[j], lower + u[j] * width);
    }
}

/* X = the answered setting it is within round-off of (1e-9 box widths in
 * every coordinate), when there is one: the box scaling does not give
 * back the stored digits, and the incumbent of a duel must be the very
 * setting answered (the same input of the model, the same pair when
 * repeated). */
static void
snap_to_answered (const SbPopulationInput *input, double *x)
{
  const SbExperiment *exp = input->experiment;

  for (guint p = 0; p < input->n_people; p++)
    for (guint i = 0; i < input->logs[p]->len; i++)
      {
        const SbLogEntry *e = g_ptr_array_index (input->logs[p], i);
        if (!entry_counts (e))
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
                return;
              }
          }
      }
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

  to_unit (exp, sb_log_entry_option (e, e->chosen), chosen);
  for (guint i = 0, j = 0; i < k; i++)
    if (i != e->chosen)
      to_unit (exp, sb_log_entry_option (e, i), others + (gsize) (j++) * d);
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
    to_unit (exp, sb_log_entry_option (e, e->ranking[r]), order + (gsize) r * d);
  return sg_hier_add_ranking (hd, p, order, e->n_options);
}

/* A measured value or a failed setting: numeric in preference and mixed
 * mode, valid above the threshold in safe mode; failed: below it. */
static int
add_measurement (sg_hier_data *hd, size_t p, const SbExperiment *exp, const SbLogEntry *e)
{
  double u[SB_MAX_PARAMETERS], point[SB_MAX_PARAMETERS + 1];

  to_unit (exp, e->a, u);
  if (e->kind == SB_LOG_VALUE && exp->mode != SB_MODE_SAFE)
    return sg_hier_add_numeric (hd, p, u, e->value);
  if (sg_hier_points (hd->dim, p, u, 1, point) != SG_OK)
    return SG_EINVAL;
  if (e->kind == SB_LOG_VALUE)
    return sg_data_add_valid (&hd->data, point, e->value, exp->threshold);
  return sg_data_add_invalid (&hd->data, point, exp->threshold);
}

static int
add_entry (sg_hier_data *hd, size_t p, const SbExperiment *exp, const SbLogEntry *e)
{
  double a[SB_MAX_PARAMETERS], b[SB_MAX_PARAMETERS];

  switch (e->kind)
    {
    case SB_LOG_DUEL:
      to_unit (exp, e->a, a);
      to_unit (exp, e->b, b);
      return sg_hier_add_duel (hd, p, e->winner == 0 ? a : b, e->winner == 0 ? b : a,
                               e->confidence, duel_shown_first (e), exp->ties_allowed);
    case SB_LOG_TIE:
      to_unit (exp, e->a, a);
      to_unit (exp, e->b, b);
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

/* HD (initialised here) = every included participant's answers that count. */
static gboolean
build_data (const SbPopulationInput *input, sg_hier_data *hd, GError **error)
{
  const SbExperiment *exp = input->experiment;

  if (sb_engine_failed (sg_hier_data_init (hd, exp->n_parameters, MAX (input->n_people, 1)),
                        "the study's model", error))
    return FALSE;
  for (guint p = 0; p < input->n_people; p++)
    for (guint i = 0; i < input->logs[p]->len; i++)
      {
        const SbLogEntry *e = g_ptr_array_index (input->logs[p], i);
        int status;
        if (!sb_experiment_check_observation (exp, e, i, error))
          goto fail;
        if (!entry_counts (e))
          continue;
        status = add_entry (hd, p, exp, e);
        if (status != SG_OK)
          {
            g_set_error (error, SB_ENGINE_ERROR, status,
                         "participant '%s', observation %u (%s) does not fit the study: %s",
                         input->codes[p], i + 1, sb_log_kind_to_string (e->kind),
                         sg_strerror (status));
            goto fail;
          }
      }
  return TRUE;
fail:
  sg_hier_data_clear (hd);
  return FALSE;
}

/* ---- The model and its fit ------------------------------------------------------ */

static gboolean
model_init (const SbPopulationInput *input, sg_hier_model *model, GError **error)
{
  guint d = input->experiment->n_parameters;

  if (sb_engine_failed (sg_hier_model_init (model, SG_KERNEL_RBF, d, input->pop_variance,
                                            input->pop_lengthscale, input->ind_variance,
                                            input->ind_lengthscale),
                        "the study's model", error))
    return FALSE;
  for (guint j = 0; j < d; j++)
    {
      sg_dim_kind kind = sb_parameter_dim_kind (&input->experiment->parameters[j]);
      if (kind == SG_DIM_LINEAR)
        continue;
      if (sb_engine_failed (sg_kernel_set_dim_kind (&model->pop, j, kind, 1.0),
                            "the study's model", error)
          || sb_engine_failed (sg_kernel_set_dim_kind (&model->ind, j, kind, 1.0),
                               "the study's model", error))
        return FALSE;
    }
  model->noise.probit_sd = input->probit_sd;
  /* a session's model of measured values (sg_bo_config_default) */
  model->noise.numeric_sd = 0.1;
  return TRUE;
}

/* Fits MODEL's kernels on HD's exact evidence when INPUT asks for it; a
 * failed fit keeps the start values (a fit improves the model, it is
 * never a condition for one). */
static void
fit_model (const SbPopulationInput *input, sg_hier_model *model, const sg_hier_data *hd,
           const sg_progress *progress, SbPopulationHyper *hyper)
{
  sg_hier_fit_spec spec;
  sg_fit_options fo;
  sg_fit_result res;
  gsl_rng *rng;

  hyper->fitted = FALSE;
  hyper->log_evidence = NAN;
  if (!input->fit || hd->data.n_obs == 0)
    return;
  /* lengthscales from 0.05 to 2 box widths, as a session's refits
   * (sg_bo_config: a few duels otherwise favour white-noise lengthscales) */
  if (sg_hier_fit_spec_default (&spec, 0, hd) != SG_OK)
    return;
  /* variances: g's from 0.1 to 100; a person's deviation from 0.01 to 1
   * (a deviation of sd 1 on the probit scale turns a sure duel into an
   * 84% one), so that a few answers per person, which cannot tell shared
   * from personal preferences apart, do not hand everything to h_p */
  spec.variance.lower = 0.1;
  spec.variance.upper = 100;
  spec.ind_variance.lower = 0.01;
  spec.ind_variance.upper = 1;
  for (guint j = 0; j < input->experiment->n_parameters; j++)
    {
      spec.lengthscale[j].lower = spec.ind_lengthscale[j].lower = 0.05;
      spec.lengthscale[j].upper = spec.ind_lengthscale[j].upper = 2;
    }
  sg_fit_options_default (&fo);
  fo.n_starts = 2;
  fo.max_evals = input->fit_max_evals;
  rng = sg_rng_new (input->experiment->seed, SB_POPULATION_STREAM_FIT);
  if (rng != NULL && sg_hier_fit (&spec, model, hd, &fo, rng, progress, &res) == SG_OK)
    {
      hyper->fitted = TRUE;
      hyper->log_evidence = res.log_evidence;
      hyper->n_evals = res.n_evals;
    }
  sg_rng_free (rng);
}

static void
hyper_from_model (const SbExperiment *exp, const sg_hier_model *model, SbPopulationHyper *h)
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
          to_unit (exp, exp->candidates->values + (gsize) i * d, u);
          g_array_append_vals (cand, u, d);
        }
      return cand;
    }
  for (guint p = 0; p < input->n_people; p++)
    for (guint i = 0; i < input->logs[p]->len; i++)
      {
        const SbLogEntry *e = g_ptr_array_index (input->logs[p], i);
        if (!entry_counts (e))
          continue;
        for (guint k = 0; k < sb_log_entry_n_options (e); k++)
          {
            if (n_answered >= SB_POPULATION_MAX_ANSWERED)
              break;
            to_unit (exp, sb_log_entry_option (e, k), u);
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
      from_unit (exp, &g_array_index (cand, double, (gsize) i * d), out + (gsize) i * d);
      snap_to_answered (input, out + (gsize) i * d);
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
      r->people[p].n_answers = person_n_answers (input, p);
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
  from_unit (exp, C + best * d, r->best);
  snap_to_answered (input, r->best);
  r->mean = sum.mean;
  r->lower = sum.lower;
  r->upper = sum.upper;
  return SG_OK;
}

static int
people_bests (const SbPopulationInput *input, const sg_skewgp_posterior *post,
              const sg_skewgp_samples *samples, const GArray *cand, SbPopulationResult *r)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, c = cand->len / d;
  const double *C = (const double *) cand->data;
  gsl_rng *rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_BEST_DIFFERS);
  int status = rng ? SG_OK : SG_ENOMEM;

  for (guint p = 0; status == SG_OK && p < input->n_people; p++)
    {
      SbPersonResult *pr = &r->people[p];
      size_t best;
      status = sg_hier_best_mean (post, samples, C, c, p, &best, &pr->mean);
      if (status == SG_OK)
        status = sg_hier_prob_best_differs (post, samples, C, c, p, SB_POPULATION_SAME_BEST,
                                            rng, &pr->prob_best_differs, &pr->se);
      if (status == SG_OK)
        {
          from_unit (exp, C + best * d, pr->best);
          snap_to_answered (input, pr->best);
        }
    }
  sg_rng_free (rng);
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

/* Curve J of the plot: g's summaries and every f_p's mean along
 * parameter J, the others at BEST (box units). */
static int
population_curve (const SbPopulationInput *input, const sg_skewgp_posterior *post,
                  const sg_skewgp_samples *samples, const double *best, guint j,
                  const sg_progress *progress, SbPopulationCurve *curve)
{
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, n, P = input->n_people;
  g_autofree double *x = curve_values (&exp->parameters[j], input->n_plot, &n);
  g_autofree double *u = g_new (double, (gsize) n * d);
  g_autofree double *points = g_new (double, (gsize) n * MAX (P, 1) * (d + 1));
  g_autofree sg_point_summary *g = g_new (sg_point_summary, n);
  g_autofree sg_point_summary *f = g_new (sg_point_summary, (gsize) n * MAX (P, 1));
  g_autofree double *person_mean = g_new (double, (gsize) n * MAX (P, 1));
  sg_summary_options so;
  int status;

  for (guint i = 0; i < n; i++)
    {
      double lower, width = unit_width (&exp->parameters[j], &lower);
      memcpy (u + (gsize) i * d, best, d * sizeof (double));
      u[(gsize) i * d + j] = (sb_parameter_to_model (&exp->parameters[j], x[i]) - lower) / width;
    }
  /* g: mean and the 95% equal-tailed band from the samples */
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_QUANTILES;
  so.level = 0.95;
  status = sg_hier_points (d, SG_HIER_POPULATION, u, n, points);
  if (status == SG_OK)
    status = sg_skewgp_summarize (post, samples, points, n, &so, progress, g);
  /* every f_p's mean: the same samples' first moment (sg_summary_options'
   * fast path: the sample mean to round-off) */
  for (guint p = 0; status == SG_OK && p < P; p++)
    status = sg_hier_points (d, p, u, n, points + (gsize) p * n * (d + 1));
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS;
  so.fast_moments = SG_SUMMARY_FAST_MEAN_SD;
  if (status == SG_OK && P > 0)
    status = sg_skewgp_summarize (post, samples, points, (gsize) n * P, &so, progress, f);
  if (status != SG_OK)
    return status;
  for (gsize k = 0; k < (gsize) n * P; k++)
    person_mean[k] = f[k].mean;
  curve->n = n;
  curve->x = g_steal_pointer (&x);
  curve->g = g_steal_pointer (&g);
  curve->person_mean = g_steal_pointer (&person_mean);
  return SG_OK;
}

static int
population_plot (const SbPopulationInput *input, const sg_skewgp_posterior *post,
                 const sg_skewgp_samples *samples, SbPopulationResult *r,
                 const sg_progress *progress)
{
  const SbExperiment *exp = input->experiment;
  SbPopulationPlot *plot = g_new0 (SbPopulationPlot, 1);
  double best[SB_MAX_PARAMETERS];
  int status = SG_OK;

  plot->n_people = input->n_people;
  to_unit (exp, r->best, best);
  for (guint j = 0; status == SG_OK && j < exp->n_parameters; j++)
    {
      status = population_curve (input, post, samples, best, j, progress, &plot->curves[j]);
      if (status == SG_OK)
        plot->dim = j + 1;
    }
  if (status != SG_OK)
    {
      plot_free (plot);
      return status;
    }
  r->plot = plot;
  return SG_OK;
}

SbPopulationResult *
sb_population_compute (const SbPopulationInput *input, const sg_progress *progress,
                       GError **error)
{
  g_autoptr (SbPopulationResult) r = result_new (input);
  g_autoptr (GArray) cand = NULL;
  sg_hier_data hd;
  g_auto (sg_hier_model) model = { 0 };
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  gsl_rng *rng = NULL;
  int status;

  if (!build_data (input, &hd, error))
    return NULL;
  if (!model_init (input, &model, error))
    {
      sg_hier_data_clear (&hd);
      return NULL;
    }
  r->n_answers = sb_population_input_n_answers (input);
  if (r->n_answers == 0 || hd.data.n_obs == 0)
    {
      r->n_answers = 0;
      hyper_from_model (input->experiment, &model, &r->hyper);
      sg_hier_data_clear (&hd);
      return g_steal_pointer (&r);
    }
  fit_model (input, &model, &hd, progress, &r->hyper);
  hyper_from_model (input->experiment, &model, &r->hyper);
  cand = candidates_new (input);
  r->n_candidates = cand->len / input->experiment->n_parameters;

  status = sg_hier_posterior_new (&model, &hd, &post);
  if (status == SG_OK)
    {
      rng = sg_rng_new (input->experiment->seed, SB_POPULATION_STREAM_SAMPLE);
      status = rng ? sg_skewgp_sample (post, SB_POPULATION_N_SAMPLES, NULL, rng, progress,
                                       &samples)
                   : SG_ENOMEM;
    }
  if (status == SG_OK)
    status = population_best (input, post, samples, cand, r);
  if (status == SG_OK)
    status = people_bests (input, post, samples, cand, r);
  if (status == SG_OK && input->n_plot > 0)
    status = population_plot (input, post, samples, r, progress);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_rng_free (rng);
  sg_hier_data_clear (&hd);
  if (sb_engine_failed (status, "the population model", error))
    return NULL;
  return g_steal_pointer (&r);
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
  json_builder_set_member_name (b, "kernel");
  json_builder_add_string_value (b, h->matern52 ? "matern52" : "rbf");
  add_kernel (b, "population", h->pop_variance, h->pop_lengthscales, d);
  add_kernel (b, "individual", h->ind_variance, h->ind_lengthscales, d);
  sb_json_add_number (b, "probit_sd", h->probit_sd);
  json_builder_set_member_name (b, "fitted");
  json_builder_add_boolean_value (b, h->fitted);
  sb_json_add_number (b, "log_evidence", h->log_evidence);
  json_builder_set_member_name (b, "evaluations");
  json_builder_add_int_value (b, h->n_evals);
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
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "skewbench-population-model");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "study");
  json_builder_add_string_value (b, study_name ? study_name : "");
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, exp->title ? exp->title : "");
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, "f_p(x) = g(x) + h_p(x), g ~ GP(0, k_pop), "
                                    "h_p ~ GP(0, k_ind)");
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint j = 0; j < exp->n_parameters; j++)
    json_builder_add_string_value (b, exp->parameters[j].name);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "answers");
  json_builder_add_int_value (b, r->n_answers);
  json_builder_set_member_name (b, "candidates");
  json_builder_add_int_value (b, r->n_candidates);
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
      json_builder_set_member_name (b, "code");
      json_builder_add_string_value (b, pr->code);
      json_builder_set_member_name (b, "answers");
      json_builder_add_int_value (b, pr->n_answers);
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
  /* the population's proposals are not rounded to whole numbers */
  for (guint j = 0; j < exp->n_parameters; j++)
    if (exp->parameters[j].scale == SB_SCALE_INTEGER
        || exp->parameters[j].scale == SB_SCALE_CATEGORICAL)
      return FALSE;
  /* the hierarchical duel challenges x_r by ucb, eiig, epi or thompson;
   * the other rules ask from the participant's own model */
  if (exp->acquisition != SG_BO_ACQ_UCB && exp->acquisition != SG_BO_ACQ_EIIG
      && exp->acquisition != SG_BO_ACQ_EPI && exp->acquisition != SG_BO_ACQ_THOMPSON)
    return FALSE;
  return exp->mode == SB_MODE_PREFERENCE && exp->question == SB_ASK_DUEL
         && exp->surrogate == SG_BO_SURROGATE_SKEWGP && exp->candidates == NULL;
}

gboolean
sb_population_propose_duel (const SbPopulationInput *input, guint person, double *a,
                            double *b, GError **error)
{
  const SbExperiment *exp = input->experiment;
  SbPopulationHyper unused;
  sg_hier_propose_options opt;
  sg_hier_question q;
  sg_hier_data hd;
  g_auto (sg_hier_model) model = { 0 };
  gsl_rng *rng;
  guint64 stream;
  int status;

  g_return_val_if_fail (person < input->n_people, FALSE);
  if (!build_data (input, &hd, error))
    return FALSE;
  if (!model_init (input, &model, error))
    {
      sg_hier_data_clear (&hd);
      return FALSE;
    }
  fit_model (input, &model, &hd, NULL, &unused);
  sg_hier_propose_options_default (&opt, exp->n_parameters);
  opt.acquisition = exp->acquisition;
  /* a stream per state of the study and per person */
  stream = ((guint64) sb_population_input_n_answers (input) << 32)
           ^ ((guint64) person << 8) ^ SB_POPULATION_STREAM_PROPOSE;
  rng = sg_rng_new (exp->seed, stream);
  status = rng ? sg_hier_propose_duel (&model, &hd, person, &opt, rng, NULL, &q) : SG_ENOMEM;
  sg_rng_free (rng);
  sg_hier_data_clear (&hd);
  if (sb_engine_failed (status, "the study's duel", error))
    return FALSE;
  from_unit (exp, q.x_ref, a);
  from_unit (exp, q.x, b);
  snap_to_answered (input, a);
  snap_to_answered (input, b);
  return TRUE;
}

typedef struct {
  SbStudy *study;
  const char *code;
} AskContext;

static gboolean
propose_hierarchical (SbSession *session, gpointer user_data, double *a, double *b,
                      gboolean *declined, GError **error)
{
  AskContext *ctx = user_data;
  g_autoptr (SbPopulationInput) input = sb_population_input_new (ctx->study, error);
  int person;

  if (input == NULL)
    return FALSE;
  person = sb_population_input_find (input, ctx->code);
  if (person < 0 || sb_population_input_n_answers (input) < input->experiment->initial)
    {
      *declined = TRUE;
      return TRUE;
    }
  return sb_population_propose_duel (input, (guint) person, a, b, error);
}

const SbQuestion *
sb_population_ask (SbStudy *study, const char *code, SbSession *session, GError **error)
{
  AskContext ctx = { study, code };
  double rate = sb_study_get_repeat_rate (study);

  if (sb_study_get_model (study) != SB_STUDY_MODEL_HIERARCHICAL
      || !sb_population_can_propose (sb_study_get_experiment (study)))
    return sb_ask_tell_ask_with_repeats (session, rate, error);
  return sb_ask_tell_ask_with_proposer (session, rate, propose_hierarchical, &ctx, error);
}
