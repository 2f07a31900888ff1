/* sb-jobs.c — engine jobs: propose, refit, plot (run on worker threads). */
#include "sb-jobs.h"

#include "sg-bo.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sb-engine-error-quark, sb_engine_error)

struct _SbModel
{
  gatomicrefcount ref_count;
  GMutex lock;         /* an sg_bo is used by one thread at a time, and a
                          superseded plot job may still be running */
  sg_bo *bo;           /* holds the posterior of the proposal; only read */
  guint n_log;
  gboolean has_best;
  double best[SB_MAX_PARAMETERS];
};

SbModel *
sb_model_ref (SbModel *model)
{
  g_atomic_ref_count_inc (&model->ref_count);
  return model;
}

void
sb_model_unref (SbModel *model)
{
  if (model && g_atomic_ref_count_dec (&model->ref_count))
    {
      sg_bo_free (model->bo);
      g_mutex_clear (&model->lock);
      g_free (model);
    }
}

/* ---- Inputs ------------------------------------------------------------- */

SbJobInput *
sb_job_input_new (SbSession *session)
{
  SbJobInput *input = g_new0 (SbJobInput, 1);

  input->experiment = sb_experiment_copy (sb_session_get_experiment (session));
  input->observations = sb_session_dup_observations (session);
  input->hyper = *sb_session_get_hyper (session);
  return input;
}

void
sb_job_input_free (SbJobInput *input)
{
  if (input == NULL)
    return;
  sb_experiment_free (input->experiment);
  g_ptr_array_unref (input->observations);
  g_free (input);
}

void
sb_question_free (SbQuestion *q)
{
  if (q == NULL)
    return;
  g_clear_pointer (&q->model, sb_model_unref);
  g_free (q);
}

/* ---- Shared steps -------------------------------------------------------- */

static gboolean
engine_failed (int status, const char *what, GError **error)
{
  if (status == SG_OK)
    return FALSE;
  if (status == SG_ECANCELLED)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s was cancelled", what);
  else
    g_set_error (error, SB_ENGINE_ERROR, status, "%s failed: %s", what, sg_strerror (status));
  return TRUE;
}

/* The progress callback of engine loops: forwards to the worker (which
 * coalesces) and stops the loop when the job was superseded. */
typedef struct {
  SbWorkerJob *job;
  const char *text;
} ProgressContext;

static int
forward_progress (double fraction, void *user_data)
{
  ProgressContext *ctx = user_data;

  if (sb_worker_job_is_cancelled (ctx->job))
    return 1;
  if (ctx->text)
    sb_worker_job_progress (ctx->job, fraction, ctx->text);
  return 0;
}

static gboolean
build_config (const SbExperiment *exp, sg_bo_config *config, GError **error)
{
  double lower[SB_MAX_PARAMETERS], upper[SB_MAX_PARAMETERS];
  int status;

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      lower[j] = exp->parameters[j].lower;
      upper[j] = exp->parameters[j].upper;
    }
  if (engine_failed (sg_bo_config_default (config, exp->n_parameters, lower, upper),
                     "the experiment's parameter box", error))
    return FALSE;

  switch (exp->mode)
    {
    case SB_MODE_MIXED: config->mode = SG_BO_MIXED; break;
    case SB_MODE_SAFE: config->mode = SG_BO_SAFE; break;
    case SB_MODE_PREFERENCE: default: config->mode = SG_BO_PREFERENCE; break;
    }
  if (sg_bo_acquisition_parse (exp->acquisition, &config->acquisition) != SG_OK)
    {
      g_set_error (error, SB_ENGINE_ERROR, SG_EINVAL, "unknown acquisition function '%s'",
                   exp->acquisition);
      return FALSE;
    }
  if (sg_bo_surrogate_parse (exp->surrogate, &config->surrogate) != SG_OK)
    {
      g_set_error (error, SB_ENGINE_ERROR, SG_EINVAL, "unknown surrogate '%s'", exp->surrogate);
      return FALSE;
    }
  config->threshold = exp->threshold;
  if (exp->numeric_every > 0)
    config->mixed_every = exp->numeric_every;
  config->n_initial = exp->initial;
  config->seed = exp->seed;
  /* Values have units of the person's measurements: let the refit move the
   * constant mean and the measurement noise too. */
  if (exp->mode != SB_MODE_PREFERENCE)
    config->refit_free |= SG_FIT_MEAN | SG_FIT_NUMERIC_SD;

  if (exp->mode == SB_MODE_SAFE && exp->template_kind == SB_TEMPLATE_BENCHMARK)
    {
      sg_problem *p = NULL;
      if (sg_problem_new (exp->problem, exp->seed, &p) == SG_OK)
        {
          const double *start = sg_problem_safe_start (p);
          if (start && sg_problem_dim (p) == exp->n_parameters)
            {
              config->has_safe_start = 1;
              memcpy (config->safe_start, start, exp->n_parameters * sizeof (double));
            }
          sg_problem_free (p);
        }
    }
  status = sg_bo_config_check (config);
  return !engine_failed (status, "checking the experiment's settings", error);
}

static void
hyper_to_engine (const SbHyper *h, guint dim, sg_hyper *out)
{
  out->kernel.type = h->matern52 ? SG_KERNEL_MATERN52 : SG_KERNEL_RBF;
  out->kernel.variance = h->variance;
  for (guint j = 0; j < dim; j++)
    out->kernel.lengthscales[j] = h->lengthscales[j];
  out->mean = h->mean;
  out->noise.numeric_sd = h->numeric_sd;
  out->noise.probit_sd = h->probit_sd;
}

static void
hyper_from_engine (const sg_hyper *h, guint dim, guint n_answers, SbHyper *out)
{
  memset (out, 0, sizeof *out);
  out->valid = TRUE;
  out->n_answers = n_answers;
  out->matern52 = h->kernel.type == SG_KERNEL_MATERN52;
  out->variance = h->kernel.variance;
  for (guint j = 0; j < dim; j++)
    out->lengthscales[j] = h->kernel.lengthscales[j];
  out->mean = h->mean;
  out->numeric_sd = h->noise.numeric_sd;
  out->probit_sd = h->noise.probit_sd;
  out->log_evidence = NAN;
}

/* Rebuilds the loop from the session log. *N_SKIPS counts the skips after
 * the last answer (they change the proposal's random stream, so skipping
 * gives a different question). */
static sg_bo *
replay (const SbJobInput *input, guint *n_skips, GError **error)
{
  const SbExperiment *exp = input->experiment;
  sg_bo_config config;
  sg_bo *bo = NULL;

  if (!build_config (exp, &config, error))
    return NULL;
  if (engine_failed (sg_bo_new (&config, &bo), "creating the optimisation loop", error))
    return NULL;

  *n_skips = 0;
  for (guint i = 0; i < input->observations->len; i++)
    {
      const SbObservation *obs = g_ptr_array_index (input->observations, i);
      int status = SG_OK;

      switch (obs->kind)
        {
        case SB_OBSERVATION_DUEL:
          status = sg_bo_answer_duel (bo, obs->a, obs->b, obs->winner == 0);
          break;
        case SB_OBSERVATION_VALUE:
          status = sg_bo_answer_value (bo, obs->a, obs->value);
          break;
        case SB_OBSERVATION_FAILED:
          status = sg_bo_answer_invalid (bo, obs->a);
          break;
        case SB_OBSERVATION_SKIP:
          (*n_skips)++;
          continue;
        }
      *n_skips = 0;
      if (status != SG_OK)
        {
          g_set_error (error, SB_ENGINE_ERROR, status,
                       "observation %u (%s) does not fit this experiment: %s",
                       i + 1, sb_observation_kind_to_string (obs->kind), sg_strerror (status));
          sg_bo_free (bo);
          return NULL;
        }
    }

  if (input->hyper.valid)
    {
      sg_hyper h = *sg_bo_get_hyper (bo);
      hyper_to_engine (&input->hyper, exp->n_parameters, &h);
      /* Stored values that no longer fit (edited file) fall back to the
       * defaults rather than failing the experiment. */
      (void) sg_bo_set_hyper (bo, &h);
    }
  return bo;
}

/* ---- Propose -------------------------------------------------------------- */

static void
fill_oracle (const SbJobInput *input, SbQuestion *q)
{
  const SbExperiment *exp = input->experiment;
  sg_problem *p = NULL;

  q->truth_a = q->truth_b = q->truth_best = q->truth_optimum = NAN;
  if (exp->template_kind != SB_TEMPLATE_BENCHMARK
      || sg_problem_new (exp->problem, exp->seed, &p) != SG_OK)
    return;
  if (sg_problem_dim (p) != exp->n_parameters)
    {
      sg_problem_free (p);
      return;
    }
  q->truth_b = sg_problem_value (p, q->b);
  if (q->kind == SB_QUESTION_DUEL || q->has_best)
    q->truth_a = sg_problem_value (p, q->a);
  if (q->has_best)
    q->truth_best = sg_problem_value (p, q->best);
  q->truth_optimum = sg_problem_optimum (p);

  if (exp->simulated)
    {
      /* The simulated person has its own random stream, separate from the
       * proposal's, and deterministic per question. */
      gsl_rng *rng = sg_rng_new (exp->seed ^ G_GUINT64_CONSTANT (0x5eedface), q->n_log + 1);
      sg_oracle oracle = { p, exp->oracle_noise, exp->oracle_noise };
      if (rng)
        {
          if (q->kind == SB_QUESTION_DUEL)
            {
              int a_wins = 1;
              if (sg_oracle_duel (&oracle, rng, q->a, q->b, &a_wins) == SG_OK)
                {
                  q->has_oracle = TRUE;
                  q->oracle_winner = a_wins ? 0 : 1;
                }
            }
          else
            {
              int valid = 1;
              double y = NAN;
              if (sg_oracle_measure (&oracle, rng, q->b, &y, &valid) == SG_OK)
                {
                  q->has_oracle = TRUE;
                  q->oracle_failed = !valid;
                  q->oracle_value = y;
                  /* Outside safe mode every setting "works". */
                  if (exp->mode != SB_MODE_SAFE && !valid)
                    {
                      q->oracle_failed = FALSE;
                      q->oracle_value = sg_problem_value (p, q->b);
                    }
                }
            }
          sg_rng_free (rng);
        }
    }
  sg_problem_free (p);
}

gpointer
sb_job_propose (SbWorkerJob *job, gpointer data, GError **error)
{
  SbJobInput *input = data;
  g_autoptr (SbQuestion) q = g_new0 (SbQuestion, 1);
  ProgressContext pctx = { job, NULL };
  sg_progress progress = { forward_progress, &pctx };
  gint64 start = g_get_monotonic_time ();
  sg_bo_query query;
  guint n_skips = 0;
  gsl_rng *rng;
  sg_bo *bo;
  int status;

  bo = replay (input, &n_skips, error);
  if (bo == NULL)
    return NULL;

  /* sg_bo_rng's stream (seed, 1 + answers), moved aside per skip. */
  rng = sg_rng_new (input->experiment->seed,
                    1 + sg_bo_n_answers (bo) + ((guint64) n_skips << 32));
  if (rng == NULL)
    {
      sg_bo_free (bo);
      g_set_error (error, SB_ENGINE_ERROR, SG_ENOMEM, "out of memory");
      return NULL;
    }
  status = sg_bo_propose (bo, rng, &progress, &query);
  sg_rng_free (rng);
  if (engine_failed (status, "computing the next question", error))
    {
      sg_bo_free (bo);
      return NULL;
    }

  q->dim = input->experiment->n_parameters;
  q->n_log = input->observations->len;
  q->n_answers = sg_bo_n_answers (bo);
  q->initial = query.initial;
  q->has_best = sg_bo_best (bo, q->best);
  if (query.kind == SG_BO_QUERY_DUEL)
    {
      /* The engine's duel is "x (new) or x_ref (best)"; the panel shows
       * the current best as A and the new candidate as B. */
      q->kind = SB_QUESTION_DUEL;
      memcpy (q->a, query.x_ref, q->dim * sizeof (double));
      memcpy (q->b, query.x, q->dim * sizeof (double));
    }
  else
    {
      q->kind = SB_QUESTION_VALUE;
      memcpy (q->b, query.x, q->dim * sizeof (double));
      memcpy (q->a, q->has_best ? q->best : query.x, q->dim * sizeof (double));
    }
  q->prob_better = query.prob_better;
  q->prob_safe = query.prob_safe;
  q->refit_due = sg_bo_refit_due (bo);
  fill_oracle (input, q);

  if (sg_bo_model_n_answers (bo) != SIZE_MAX && !query.random)
    {
      q->model = g_new0 (SbModel, 1);
      g_atomic_ref_count_init (&q->model->ref_count);
      g_mutex_init (&q->model->lock);
      q->model->bo = bo;
      q->model->n_log = q->n_log;
      q->model->has_best = q->has_best;
      memcpy (q->model->best, q->best, sizeof q->best);
    }
  else
    sg_bo_free (bo);
  q->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  return g_steal_pointer (&q);
}

/* ---- Fit ------------------------------------------------------------------ */

gpointer
sb_job_fit (SbWorkerJob *job, gpointer data, GError **error)
{
  SbJobInput *input = data;
  ProgressContext pctx = { job, "Fitting hyperparameters" };
  sg_progress progress = { forward_progress, &pctx };
  SbFitResult *result;
  sg_fit_result res = { 0 };
  guint n_skips;
  sg_bo *bo;
  int status;

  bo = replay (input, &n_skips, error);
  if (bo == NULL)
    return NULL;
  sb_worker_job_progress (job, 0.0, "Fitting hyperparameters");
  status = sg_bo_refit (bo, NULL, &progress, &res);
  if (engine_failed (status, "fitting the hyperparameters", error))
    {
      sg_bo_free (bo);
      return NULL;
    }
  result = g_new0 (SbFitResult, 1);
  hyper_from_engine (sg_bo_get_hyper (bo), input->experiment->n_parameters,
                     sg_bo_n_answers (bo), &result->hyper);
  result->hyper.log_evidence = res.n_evals > 0 ? res.log_evidence : NAN;
  result->n_evals = res.n_evals;
  result->seconds = res.seconds;
  sg_bo_free (bo);
  return result;
}

/* ---- Plot data -------------------------------------------------------------- */

SbPlotInput *
sb_plot_input_new (SbModel *model, const SbExperiment *exp, guint n_axes,
                   guint axis0, guint axis1, guint n)
{
  SbPlotInput *input = g_new0 (SbPlotInput, 1);

  input->model = sb_model_ref (model);
  input->experiment = sb_experiment_copy (exp);
  input->n_axes = CLAMP (n_axes, 1, MIN (2, exp->n_parameters));
  input->axes[0] = MIN (axis0, exp->n_parameters - 1);
  input->axes[1] = MIN (axis1, exp->n_parameters - 1);
  input->n[0] = input->n[1] = MAX (n, 2);
  input->level = 0.95;
  return input;
}

void
sb_plot_input_free (SbPlotInput *input)
{
  if (input == NULL)
    return;
  sb_model_unref (input->model);
  sb_experiment_free (input->experiment);
  g_free (input);
}

void
sb_plot_data_free (SbPlotData *data)
{
  if (data == NULL)
    return;
  g_free (data->points);
  g_free (data->summary);
  g_free (data->truth);
  g_free (data);
}

gpointer
sb_job_plot (SbWorkerJob *job, gpointer data, GError **error)
{
  SbPlotInput *input = data;
  const SbExperiment *exp = input->experiment;
  g_autoptr (SbPlotData) plot = g_new0 (SbPlotData, 1);
  ProgressContext pctx = { job, NULL };
  sg_progress progress = { forward_progress, &pctx };
  guint dim = exp->n_parameters;
  int status;

  plot->dim = dim;
  plot->n_axes = input->n_axes;
  plot->n_log = input->model->n_log;
  for (guint k = 0; k < 2; k++)
    {
      plot->axes[k] = input->axes[k];
      plot->n[k] = k < plot->n_axes ? input->n[k] : 1;
      plot->lower[k] = exp->parameters[plot->axes[k]].lower;
      plot->upper[k] = exp->parameters[plot->axes[k]].upper;
    }
  for (guint j = 0; j < dim; j++)
    plot->fixed[j] = input->model->has_best
                     ? input->model->best[j]
                     : 0.5 * (exp->parameters[j].lower + exp->parameters[j].upper);
  plot->n_points = plot->n[0] * plot->n[1];
  plot->points = g_new (double, (gsize) plot->n_points * dim);
  for (guint i1 = 0; i1 < plot->n[1]; i1++)
    for (guint i0 = 0; i0 < plot->n[0]; i0++)
      {
        double *x = plot->points + ((gsize) i1 * plot->n[0] + i0) * dim;
        memcpy (x, plot->fixed, dim * sizeof (double));
        x[plot->axes[0]] = plot->lower[0]
                           + (plot->upper[0] - plot->lower[0]) * i0 / (plot->n[0] - 1);
        if (plot->n_axes == 2)
          x[plot->axes[1]] = plot->lower[1]
                             + (plot->upper[1] - plot->lower[1]) * i1 / (plot->n[1] - 1);
      }
  plot->summary = g_new (sg_point_summary, plot->n_points);
  g_mutex_lock (&input->model->lock);
  status = sg_bo_summarize (input->model->bo, plot->points, plot->n_points,
                            input->level, &progress, plot->summary);
  g_mutex_unlock (&input->model->lock);
  if (engine_failed (status, "summarising the posterior", error))
    return NULL;

  if (exp->template_kind == SB_TEMPLATE_BENCHMARK)
    {
      sg_problem *p = NULL;
      if (sg_problem_new (exp->problem, exp->seed, &p) == SG_OK)
        {
          if (sg_problem_dim (p) == dim)
            {
              plot->truth = g_new (double, plot->n_points);
              for (guint i = 0; i < plot->n_points; i++)
                plot->truth[i] = sg_problem_value (p, plot->points + (gsize) i * dim);
            }
          sg_problem_free (p);
        }
    }
  return g_steal_pointer (&plot);
}
