/* sb-jobs.c — engine jobs: propose, refit, plot (run on worker threads). */
#include "config.h"

#include "sb-jobs.h"
#include "sb-question.h"
#include "sb-candidates.h"
#include "sb-engine-job.h"
#include "sb-fit-file.h"
#include "sb-parameter-kinds.h"
#include "sb-smooth-hpd.h"
#include "sb-test-points.h"

#include "sg-bo.h"
#include "sg-ep.h"
#include "sg-fit.h"
#include "sg-laplace.h"
#include "sg-problems.h"
#include "sg-rng.h"
#include "sg-svgp-rows.h"

#include <math.h>
#include <string.h>
#include <time.h>

struct _SbModel
{
  gatomicrefcount ref_count;
  GMutex lock;         /* an sg_bo is used by one thread at a time, and a
                          superseded plot job may still be running */
  sg_bo *bo;           /* holds the posterior of the proposal; only read */
  SbExperiment *experiment;  /* its parameters map natural <-> model units */
  guint n_log;
  gboolean has_best;
  double best[SB_MAX_PARAMETERS];  /* natural units */
  SbModelInfo info;    /* which model this is                          */
  /* The Laplace and EP posteriors of the same data and GP hyperparameters
   * (the "compare" overlays), built once under LOCK by the first plot or
   * density job that needs them (index SB_POSTERIOR_LAPLACE / _EP). */
  gboolean approx_tried;
  gboolean has_approx[SB_N_POSTERIOR_METHODS];
  sg_gauss_post approx[SB_N_POSTERIOR_METHODS];
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
      for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
        if (model->has_approx[k])
          sg_gauss_post_clear (&model->approx[k]);
      sg_bo_free (model->bo);
      sb_experiment_free (model->experiment);
      g_mutex_clear (&model->lock);
      g_free (model);
    }
}

/* ---- Inputs ------------------------------------------------------------- */

SbJobInput *
sb_job_input_new (SbSession *session)
{
  SbJobInput *input = g_new0 (SbJobInput, 1);

  GFile *file = sb_session_get_file (session);
  g_autoptr (GError) error = NULL;

  input->experiment = sb_experiment_copy (sb_session_get_experiment (session));
  input->observations = sb_session_dup_observations (session);
  input->hyper = *sb_session_get_hyper (session);
  input->path = file ? g_file_get_path (file) : NULL;
  /* the stored sparse fit matters beyond the exact model only */
  if (sb_answers_count (input->observations) <= SB_EXACT_MAX_ANSWERS)
    return input;
  if (input->path == NULL)
    {
      input->fit_problem = g_strdup ("the session has no file, so no stored fit");
      return input;
    }
  input->fit = sb_session_fit_load (input->path, input->experiment->n_parameters, &error);
  if (input->fit != NULL && !sb_session_fit_matches (input->fit, input->observations, &error))
    g_clear_pointer (&input->fit, sb_session_fit_unref);
  if (input->fit == NULL)
    input->fit_problem = g_error_matches (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_MISSING)
                           ? g_strdup ("no sparse fit is stored")
                           : g_strdup (error->message);
  return input;
}

void
sb_job_input_free (SbJobInput *input)
{
  if (input == NULL)
    return;
  sb_experiment_free (input->experiment);
  g_ptr_array_unref (input->observations);
  g_free (input->path);
  g_clear_pointer (&input->fit, sb_session_fit_unref);
  g_free (input->fit_problem);
  g_free (input);
}

/* Safe mode refits after each answer up to this many. */
#define SB_SAFE_REFIT_UNTIL 10

/* The refit schedule for INPUT with N answers: the exact model's fit is
 * the stored hyperparameters, a sparse model's the stored sparse fit. */

static gboolean
refit_due (const SbJobInput *input, guint n)
{
  if (input->experiment->surrogate == SG_BO_SURROGATE_RANDOM)
    return FALSE;
  /* safe mode refits after each of its first answers too: its first
   * steps lean on the fit's variance and lengthscale bounds, and fits of
   * a few answers are quick (build_config's refit_until) */
  if (input->experiment->mode == SB_MODE_SAFE && n >= 2 && n <= SB_SAFE_REFIT_UNTIL
      && !(input->hyper.valid && input->hyper.n_answers >= n))
    return TRUE;
  if (n <= SB_EXACT_MAX_ANSWERS || input->experiment->surrogate != SG_BO_SURROGATE_SKEWGP)
    return sb_fit_schedule_due (n, input->hyper.valid, input->hyper.n_answers);
  return sb_fit_schedule_due (n, input->fit != NULL, input->fit ? input->fit->n_seen : 0);
}

gboolean
sb_job_input_model (const SbJobInput *input, SbModelInfo *info, GError **error)
{
  const SbExperiment *exp = input->experiment;
  guint n = sb_answers_count (input->observations);

  memset (info, 0, sizeof *info);
  info->answers = info->exact_answers = n;
  info->surrogate = exp->surrogate;
  info->fit_answers = input->hyper.valid ? input->hyper.n_answers : 0;
  info->refit_due = refit_due (input, n);
  if (n > SB_SESSION_MAX_ANSWERS)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_TOO_LARGE,
                   "the session has %u answers; its models run up to %u answers "
                   "(skewgp --help, \"Sizes\")", n, SB_SESSION_MAX_ANSWERS);
      return FALSE;
    }
  switch (exp->surrogate)
    {
    case SG_BO_SURROGATE_RANDOM:
      info->kind = SB_MODEL_NONE;
      return TRUE;
    case SG_BO_SURROGATE_SKEWGP:
      info->kind = SB_MODEL_EXACT;
      break;
    case SG_BO_SURROGATE_SVGP:
      info->kind = SB_MODEL_APPROXIMATE;
      return TRUE;
    default:
      info->kind = SB_MODEL_APPROXIMATE;
      break;
    }
  if (n <= SB_EXACT_MAX_ANSWERS)
    return TRUE;
  if (exp->surrogate != SG_BO_SURROGATE_SKEWGP)
    {
      g_autofree char *name = sb_model_info_name (info);
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_TOO_LARGE,
                   "the session has %u answers; the %s surrogate runs up to %u (the exact "
                   "SkewGP surrogate, \"skewgp\", runs beyond with a stored sparse fit)",
                   n, name, SB_EXACT_MAX_ANSWERS);
      return FALSE;
    }
  if (input->fit == NULL)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                   "the session has %u answers: beyond %u a question uses the stored sparse "
                   "fit of its answers, and %s; run skewgp refit %s (its questions are then "
                   "answered from the fit, however many answers come after it, up to %u)",
                   n, SB_EXACT_MAX_ANSWERS, input->fit_problem,
                   input->path ? input->path : "SESSION", SB_EXACT_MAX_ANSWERS);
      return FALSE;
    }
  if (n - input->fit->n_seen > SB_EXACT_MAX_ANSWERS)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                   "%u answers came after the stored sparse fit (of %u answers), more than "
                   "the %u a question conditions on exactly; run skewgp refit %s",
                   n - input->fit->n_seen, input->fit->n_seen, SB_EXACT_MAX_ANSWERS,
                   input->path ? input->path : "SESSION");
      return FALSE;
    }
  info->kind = SB_MODEL_SPARSE;
  info->n_inducing = (guint) input->fit->summary.M;
  info->fit_answers = input->fit->n_seen;
  info->exact_answers = n - input->fit->n_seen;
  return TRUE;
}

void
sb_proposal_free (SbProposal *q)
{
  if (q == NULL)
    return;
  g_clear_pointer (&q->model, sb_model_unref);
  g_free (q);
}

/* ---- Shared steps -------------------------------------------------------- */

static gboolean
build_config (const SbExperiment *exp, sg_bo_config *config, double **cand_model,
              GError **error)
{
  double lower[SB_MAX_PARAMETERS], upper[SB_MAX_PARAMETERS];
  int status;

  /* the engine's box in model coordinates (sb-parameter-kinds.h) */
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      lower[j] = sb_parameter_to_model (&exp->parameters[j], exp->parameters[j].lower);
      upper[j] = sb_parameter_to_model (&exp->parameters[j], exp->parameters[j].upper);
    }
  if (sb_engine_failed (sg_bo_config_default (config, exp->n_parameters, lower, upper),
                        "the experiment's parameter box", error))
    return FALSE;

  config->mode = (sg_bo_mode) exp->mode;
  config->acquisition = exp->acquisition;
  config->surrogate = exp->surrogate;
  config->threshold = exp->threshold;
  if (exp->numeric_every > 0)
    config->mixed_every = exp->numeric_every;
  config->n_initial = exp->initial;
  config->seed = exp->seed;
  /* A person answers every few seconds: refit every 5 answers rather than
   * after each of the first 30 (the batch experiments' schedule), so the
   * fit does not compete with every proposal for the CPU. Safe mode refits
   * after each of its first 10 answers too: its first steps lean on the
   * fit's variance and lengthscale bounds, and fits of a few answers are
   * quick. */
  config->refit_until = exp->mode == SB_MODE_SAFE ? SB_SAFE_REFIT_UNTIL : 0;
  config->refit_every = 5;
  config->refit_free = sg_bo_default_refit_free (config->mode);
  config->safe_probability = exp->confidence_level;
  /* Best-of-k and rank-k questions: the engine proposes the k options by
   * qEUBO (a ranking is asked of the same options); duels that offer
   * "about the same" carry tie_offered. Both in preference mode, where
   * the engine asks them; the replay records any tie the log holds. */
  if (exp->mode == SB_MODE_PREFERENCE && exp->question != SB_ASK_DUEL)
    {
      config->question = SG_BO_QUESTION_CHOICE;
      config->n_options = exp->n_options;
      config->acquisition = SG_BO_ACQ_QEUBO;
    }
  if (exp->mode == SB_MODE_PREFERENCE && exp->question == SB_ASK_DUEL)
    config->ties = exp->ties_allowed;

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      config->resolution[j] = sb_parameter_model_resolution (p);
      if (sb_engine_failed (sg_bo_config_set_kind (config, j, sb_parameter_dim_kind (p)),
                            "the parameter's scale", error))
        return FALSE;
    }
  /* a candidate set: the engine chooses among its rows, in model
   * coordinates (*CAND_MODEL, the caller's until sg_bo_new copies them) */
  if (exp->candidates != NULL)
    {
      const SbCandidates *c = exp->candidates;
      *cand_model = g_new (double, (gsize) c->n * c->dim + 1);
      for (guint i = 0; i < c->n; i++)
        sb_experiment_to_model (exp, c->values + (gsize) i * c->dim,
                                *cand_model + (gsize) i * c->dim);
      config->n_candidates = c->n;
      config->candidates = *cand_model;
    }
  if (exp->has_safe_start)
    {
      config->has_safe_start = 1;
      sb_experiment_to_model (exp, exp->safe_start, config->safe_start);
    }
  else if (exp->mode == SB_MODE_SAFE && exp->template_kind == SB_TEMPLATE_BENCHMARK)
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
  return !sb_engine_failed (status, "checking the experiment's settings", error);
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

void
sb_hyper_from_engine (const sg_hyper *h, guint dim, guint n_answers, SbHyper *out)
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

/* The option OBS showed first (SG_SHOWN_NONE when not recorded). */
static size_t
shown_first (const SbLogEntry *obs)
{
  return obs->n_shown > 0 ? obs->shown_order[0] : SG_SHOWN_NONE;
}

/* A duel, tie, choice or ranking as the engine's observation of that
 * kind, with its confidence and the option shown first; a duel is
 * tie_offered when the experiment allows ties (the win is then by more
 * than the tie margin). */
static int
replay_preference (sg_bo *bo, const SbExperiment *exp, const SbLogEntry *obs)
{
  switch (obs->kind)
    {
    case SB_LOG_DUEL:
      return sg_bo_answer_duel_details (bo, obs->a, obs->b, obs->winner == 0, obs->confidence,
                                        shown_first (obs), exp->ties_allowed);
    case SB_LOG_TIE:
      return sg_bo_answer_tie (bo, obs->a, obs->b);
    case SB_LOG_CHOICE:
      return sg_bo_answer_choice (bo, obs->options, obs->n_options, obs->chosen,
                                  obs->confidence, shown_first (obs));
    case SB_LOG_RANKING:
      {
        g_autofree double *order = g_new (double, (gsize) obs->n_options * obs->dim);
        for (guint r = 0; r < obs->n_options; r++)
          memcpy (order + (gsize) r * obs->dim, sb_log_entry_option (obs, obs->ranking[r]),
                  obs->dim * sizeof (double));
        return sg_bo_answer_ranking (bo, order, obs->n_options);
      }
    default:
      return SG_EINVAL;
    }
}

/* OBS in the engine's model coordinates (a copy; sb-parameter-kinds.h). */
static SbLogEntry *
entry_to_model (const SbExperiment *exp, const SbLogEntry *obs)
{
  SbLogEntry *copy = sb_log_entry_copy (obs);

  if (copy->a)
    sb_experiment_to_model (exp, obs->a, copy->a);
  if (copy->b)
    sb_experiment_to_model (exp, obs->b, copy->b);
  for (guint i = 0; copy->options && i < copy->n_options; i++)
    sb_experiment_to_model (exp, obs->options + (gsize) i * obs->dim,
                            copy->options + (gsize) i * obs->dim);
  return copy;
}

/* Uses INPUT's stored sparse fit in BO when INFO says so: its
 * hyperparameters and its pseudo-observations of the answers it saw. */
static gboolean
use_model (const SbJobInput *input, const SbModelInfo *info, sg_bo *bo, GError **error)
{
  g_auto (sg_kernel) kernel = { 0 };
  sg_hyper h;

  if (info->kind != SB_MODEL_SPARSE)
    return TRUE;
  /* a kernel of its own to write the fit's values into */
  h = *sg_bo_get_hyper (bo);
  if (sb_engine_failed (sg_kernel_copy (&kernel, &h.kernel), "the stored fit's kernel", error))
    return FALSE;
  h.kernel = kernel;
  hyper_to_engine (&input->fit->hyper, input->experiment->n_parameters, &h);
  return !sb_engine_failed (sg_bo_set_hyper (bo, &h), "the stored fit's hyperparameters", error)
         && !sb_engine_failed (sg_bo_set_summary (bo, &input->fit->summary, input->fit->n_seen),
                               "the stored sparse fit", error);
}

/* Rebuilds the loop from the session log. *N_SKIPS counts the skips after
 * the last answer (they change the proposal's random stream, so skipping
 * gives a different question). With INFO (a question's, a plot's or a
 * recommendation's loop) the model the rule of sb-stored-fit.h chooses
 * is set up and described there, or the sizes it refuses fail; without
 * (a refit), every answer enters the exact model as it is. */
static sg_bo *
replay (const SbJobInput *input, guint *n_skips, SbModelInfo *info, GError **error)
{
  const SbExperiment *exp = input->experiment;
  sg_bo_config config = { 0 };
  g_autofree double *cand_model = NULL;
  sg_bo *bo = NULL;

  if (!build_config (exp, &config, &cand_model, error))
    {
      sg_bo_config_clear (&config);
      return NULL;
    }
  int created = sg_bo_new (&config, &bo);
  sg_bo_config_clear (&config);
  if (sb_engine_failed (created, "creating the optimisation loop", error))
    return NULL;

  *n_skips = 0;
  for (guint i = 0; i < input->observations->len; i++)
    {
      const SbLogEntry *natural = g_ptr_array_index (input->observations, i);
      g_autoptr (SbLogEntry) obs = NULL;
      int status = SG_OK;

      /* The session's check names what the engine would only call
       * "invalid argument". */
      if (!sb_experiment_check_observation (exp, natural, i, error))
        {
          sg_bo_free (bo);
          return NULL;
        }
      /* An answer the experimenter removed never reaches the engine. */
      if (sb_log_entry_is_removed (natural))
        continue;
      obs = entry_to_model (exp, natural);
      switch (obs->kind)
        {
        case SB_LOG_DUEL:
        case SB_LOG_TIE:
        case SB_LOG_CHOICE:
        case SB_LOG_RANKING:
          status = replay_preference (bo, exp, obs);
          break;
        case SB_LOG_VALUE:
          status = sg_bo_answer_value (bo, obs->a, obs->value);
          break;
        case SB_LOG_FAILED:
          status = sg_bo_answer_invalid (bo, obs->a);
          break;
        case SB_LOG_SKIP:
          (*n_skips)++;
          continue;
        }
      *n_skips = 0;
      if (status != SG_OK)
        {
          g_set_error (error, SB_ENGINE_ERROR, status,
                       "observation %u (%s) does not fit this experiment: %s",
                       i + 1, sb_log_kind_to_string (obs->kind), sg_strerror (status));
          sg_bo_free (bo);
          return NULL;
        }
    }

  if (input->hyper.valid)
    {
      /* a kernel of its own: the loop's stays as it is if the stored
       * values are refused */
      sg_hyper h = *sg_bo_get_hyper (bo);
      g_auto (sg_kernel) kernel = { 0 };
      if (sg_kernel_copy (&kernel, &h.kernel) == SG_OK)
        {
          h.kernel = kernel;
          hyper_to_engine (&input->hyper, exp->n_parameters, &h);
          /* Stored values that no longer fit (edited file) fall back to
           * the defaults rather than failing the experiment. */
          (void) sg_bo_set_hyper (bo, &h);
        }
    }
  if (info != NULL
      && (!sb_job_input_model (input, info, error) || !use_model (input, info, bo, error)))
    {
      sg_bo_free (bo);
      return NULL;
    }
  return bo;
}

/* ---- Propose -------------------------------------------------------------- */


/* Uniform in [0, 1) from the stream. */
static double
stream_uniform (guint64 *state)
{
  return (sb_splitmix64 (state) >> 11) * (1.0 / 9007199254740992.0);
}


/* The engine's point X (model coordinates) in natural units; with a
 * candidate set, the natural values of its candidate row exactly (the map
 * back through a log need not give the CSV's digits). */
static void
point_from_model (const SbExperiment *exp, double *x)
{
  gssize row;

  sb_experiment_from_model (exp, x, x);
  if (exp->candidates != NULL && (row = sb_experiment_candidate_index (exp, x)) >= 0)
    memcpy (x, exp->candidates->values + (gsize) row * exp->candidates->dim,
            exp->candidates->dim * sizeof *x);
}

/* The engine's points of Q (model coordinates) in natural units. */
static void
question_from_model (const SbExperiment *exp, SbProposal *q)
{
  point_from_model (exp, q->a);
  point_from_model (exp, q->b);
  for (guint i = 0; i < q->n_options; i++)
    point_from_model (exp, q->options[i]);
  if (q->has_best)
    point_from_model (exp, q->best);
}

/* Squared distance of X and Y in model coordinates scaled to the box,
 * each along its parameter's kind (the shorter way round a periodic one,
 * 0 or 1 between categorical levels). */
static double
box_distance2 (const SbExperiment *exp, const double *x, const double *y)
{
  double d2 = 0;

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      double lo = sb_parameter_to_model (p, p->lower), hi = sb_parameter_to_model (p, p->upper);
      double t = sg_dim_distance (sb_parameter_dim_kind (p), hi - lo, sb_parameter_to_model (p, x[j]),
                                  sb_parameter_to_model (p, y[j]))
                 / (hi - lo);
      d2 += t * t;
    }
  return d2;
}

/* A uniform draw for the space-filling options: a point of the box, or
 * with a candidate set a uniform candidate row. */
static void
draw_setting (const SbExperiment *exp, guint64 *state, double *x)
{
  const SbCandidates *c = exp->candidates;
  if (c != NULL)
    {
      guint i = (guint) (stream_uniform (state) * c->n);
      memcpy (x, c->values + (gsize) MIN (i, c->n - 1) * c->dim, c->dim * sizeof *x);
      return;
    }
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      /* uniform in model coordinates, onto the parameter's settings */
      const SbParameter *p = &exp->parameters[j];
      double lo = sb_parameter_to_model (p, p->lower), hi = sb_parameter_to_model (p, p->upper);
      x[j] = sb_parameter_from_model (p, lo + stream_uniform (state) * (hi - lo));
    }
}

/* Options 2 .. k-1 of a choice or ranking question in mixed mode (see
 * SbProposal.options: maximin over 64 uniform draws per option; a draw
 * equal to an option already there has distance 0 and loses to any
 * other, and a candidate set has at least k rows). */
static void
fill_space_filling (const SbExperiment *exp, SbProposal *q)
{
  guint64 state = exp->seed ^ G_GUINT64_CONSTANT (0x0b7105ca1e) ^ ((guint64) q->n_log << 20);

  while (q->n_options < exp->n_options)
    {
      double best[SB_MAX_PARAMETERS], best_d2 = -1;
      for (guint c = 0; c < 64; c++)
        {
          double x[SB_MAX_PARAMETERS], d2 = INFINITY;
          draw_setting (exp, &state, x);
          for (guint i = 0; i < q->n_options; i++)
            d2 = MIN (d2, box_distance2 (exp, x, q->options[i]));
          if (d2 > best_d2)
            {
              best_d2 = d2;
              memcpy (best, x, sizeof best);
            }
        }
      memcpy (q->options[q->n_options++], best, sizeof best);
    }
}

/* The options of Q (its A and B set) and the order they are shown in. */
static void
fill_options (const SbExperiment *exp, SbProposal *q)
{
  if (q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING)
    ;  /* the engine's k options */
  else if (q->kind == SB_QUESTION_VALUE)
    {
      q->n_options = 1;
      memcpy (q->options[0], q->b, sizeof q->b);
    }
  else
    {
      q->n_options = 2;
      memcpy (q->options[0], q->a, sizeof q->a);
      memcpy (q->options[1], q->b, sizeof q->b);
      if (exp->question != SB_ASK_DUEL)
        {
          q->kind = exp->question == SB_ASK_CHOICE ? SB_QUESTION_CHOICE : SB_QUESTION_RANKING;
          fill_space_filling (exp, q);
        }
    }
  sb_shuffle_order (exp->seed, q->n_log, q->n_options, q->shown_order);
}

/* The simulated person's choice or ranking of Q's options: the problem's
 * value plus independent N(0, noise^2) per option shown (the utility
 * model of sg-data.h), best first. */
static void
oracle_rank (const SbExperiment *exp, sg_problem *p, gsl_rng *rng, SbProposal *q)
{
  double u[SB_MAX_OPTIONS];

  for (guint i = 0; i < q->n_options; i++)
    {
      u[i] = sg_problem_value (p, q->options[i]);
      if (exp->oracle_noise > 0)
        u[i] += exp->oracle_noise * sg_rng_gaussian (rng);
      q->oracle_ranking[i] = i;
    }
  for (guint i = 1; i < q->n_options; i++)
    for (guint j = i; j > 0 && u[q->oracle_ranking[j]] > u[q->oracle_ranking[j - 1]]; j--)
      {
        guint t = q->oracle_ranking[j];
        q->oracle_ranking[j] = q->oracle_ranking[j - 1];
        q->oracle_ranking[j - 1] = t;
      }
  q->oracle_winner = (int) q->oracle_ranking[0];
  q->has_oracle = TRUE;
}

static void
fill_oracle (const SbJobInput *input, SbProposal *q)
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
  if (q->kind != SB_QUESTION_VALUE || q->has_best)
    q->truth_a = sg_problem_value (p, q->a);
  if (q->has_best)
    q->truth_best = sg_problem_value (p, q->best);
  q->truth_optimum = sg_problem_optimum (p);

  if (exp->simulated)
    {
      /* The simulated person has its own random stream, separate from the
       * proposal's, and deterministic per question. */
      gsl_rng *rng = sg_rng_new (exp->seed ^ G_GUINT64_CONSTANT (0x5eedface), q->n_log + 1);
      /* In safe mode the simulated setting fails below the experiment's
       * threshold, whatever the problem's own default. */
      sg_oracle oracle = { p, exp->oracle_noise, exp->oracle_noise,
                           .threshold = exp->threshold,
                           .has_threshold = exp->mode == SB_MODE_SAFE };
      if (rng)
        {
          if (q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING)
            oracle_rank (exp, p, rng, q);
          else if (q->kind == SB_QUESTION_DUEL)
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
  g_autoptr (SbProposal) q = g_new0 (SbProposal, 1);
  SbJobProgress pctx = { job, NULL };
  sg_progress progress = { sb_job_forward_progress, &pctx };
  gint64 start = g_get_monotonic_time ();
  sg_bo_query query;
  guint n_skips = 0;
  gsl_rng *rng;
  sg_bo *bo;
  int status;

  bo = replay (input, &n_skips, &q->model_info, error);
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
  if (sb_engine_failed (status, "computing the next question", error))
    {
      sg_bo_free (bo);
      return NULL;
    }

  q->dim = input->experiment->n_parameters;
  q->n_log = input->observations->len;
  q->n_answers = sg_bo_n_answers (bo);
  q->initial = query.initial;
  q->has_best = sg_bo_best (bo, q->best);
  if (query.kind == SG_BO_QUERY_CHOICE)
    {
      /* The engine's k options, the incumbent among them when it is one;
       * A and B name the first two for the panel's table. */
      q->kind = input->experiment->question == SB_ASK_RANKING ? SB_QUESTION_RANKING
                                                               : SB_QUESTION_CHOICE;
      q->n_options = (guint) query.n_options;
      for (guint i = 0; i < q->n_options; i++)
        memcpy (q->options[i], query.options[i], q->dim * sizeof (double));
      memcpy (q->a, query.options[0], q->dim * sizeof (double));
      memcpy (q->b, query.options[1], q->dim * sizeof (double));
    }
  else if (query.kind == SG_BO_QUERY_DUEL)
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
  q->safe_exhausted = query.safe_exhausted;
  q->has_safe = sg_bo_safe_last (bo, &q->safe) == SG_OK;
  if (query.random && q->model_info.kind != SB_MODEL_NONE)
    q->model_info.kind = SB_MODEL_NONE;   /* the initial design */
  q->refit_due = q->model_info.refit_due;
  question_from_model (input->experiment, q);
  fill_options (input->experiment, q);
  fill_oracle (input, q);

  if (sg_bo_model_n_answers (bo) != SIZE_MAX && !query.random)
    {
      q->model = g_new0 (SbModel, 1);
      g_atomic_ref_count_init (&q->model->ref_count);
      g_mutex_init (&q->model->lock);
      q->model->bo = bo;
      q->model->experiment = sb_experiment_copy (input->experiment);
      q->model->n_log = q->n_log;
      q->model->info = q->model_info;
      q->model->has_best = q->has_best;
      memcpy (q->model->best, q->best, sizeof q->best);
    }
  else
    sg_bo_free (bo);
  q->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  return g_steal_pointer (&q);
}

/* ---- Fit ------------------------------------------------------------------ */

void
sb_fit_result_free (SbFitResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->sparse, sb_session_fit_unref);
  g_free (result);
}

#define SPARSE_FITTED "ELBO of the sparse variational model (lengthscales)"
#define SB_STREAM_SESSION_FIT 201

static double
cpu_seconds (void)
{
  return (double) clock () / CLOCKS_PER_SEC;
}

/* Beyond the exact model: the sparse variational model of BO's answers
 * with its lengthscales fitted on the ELBO, from the current values. */
static SbSessionFit *
sparse_fit (const SbJobInput *input, sg_bo *bo, const sg_progress *progress, GError **error)
{
  const SbExperiment *exp = input->experiment;
  g_autoptr (SbSessionFit) fit = g_new0 (SbSessionFit, 1);
  sg_svgp_rows_options opt;
  sg_hyper h = *sg_bo_get_hyper (bo);
  sg_svgp q = { 0 };
  gsl_rng *rng = sg_rng_new (exp->seed, SB_STREAM_SESSION_FIT);
  size_t n = sg_bo_n_answers (bo);
  double start = cpu_seconds ();
  int status;

  g_atomic_ref_count_init (&fit->ref_count);
  sg_svgp_rows_options_default (&opt);
  opt.n_inducing = SB_SESSION_INDUCING;
  status = rng ? sg_svgp_rows_session_summary (&h, sg_bo_data (bo), n, &opt, rng, progress, &q,
                                               &fit->summary)
               : SG_ENOMEM;
  sg_rng_free (rng);
  if (sb_engine_failed (status, "the sparse variational fit", error))
    return NULL;
  /* the learned kernel is the fit's: the pseudo-observations hold under it */
  sb_hyper_from_engine (&h, exp->n_parameters, (guint) n, &fit->hyper);
  for (guint j = 0; j < exp->n_parameters; j++)
    fit->hyper.lengthscales[j] = q.kernel.lengthscales[j];
  fit->hyper.variance = q.kernel.variance;
  sg_svgp_clear (&q);
  fit->dim = exp->n_parameters;
  fit->fitted = g_strdup (SPARSE_FITTED);
  fit->n_seen = (guint) n;
  fit->digest = sb_answers_digest (input->observations, (guint) n);
  fit->seconds = cpu_seconds () - start;
  if (input->path != NULL && !sb_session_fit_save (fit, input->path, error))
    return NULL;
  return g_steal_pointer (&fit);
}

/* TRUE when a question of INPUT has a model at its size once fitted: the
 * sizes of sb_job_input_model, whatever fit is stored now. */
static gboolean
within_model_sizes (const SbJobInput *input, GError **error)
{
  SbJobInput sized = *input;
  SbSessionFit none = { .n_seen = sb_answers_count (input->observations) };
  SbModelInfo info;

  sized.fit = &none;
  return sb_job_input_model (&sized, &info, error);
}

SbFitResult *
sb_session_refit (const SbJobInput *input, const sg_progress *progress, GError **error)
{
  g_autoptr (SbFitResult) result = g_new0 (SbFitResult, 1);
  sg_fit_result res = { 0 };
  double start = cpu_seconds ();
  guint n_skips;
  sg_bo *bo;

  sb_test_point ("fit-session");
  if (!within_model_sizes (input, error))
    return NULL;
  bo = replay (input, &n_skips, NULL, error);
  if (bo == NULL)
    return NULL;
  if (sg_bo_n_answers (bo) > SB_EXACT_MAX_ANSWERS
      && input->experiment->surrogate == SG_BO_SURROGATE_SKEWGP)
    {
      result->sparse = sparse_fit (input, bo, progress, error);
      sg_bo_free (bo);
      if (result->sparse == NULL)
        return NULL;
      result->hyper = result->sparse->hyper;
      result->fitted = SPARSE_FITTED;
      result->seconds = result->sparse->seconds;
      return g_steal_pointer (&result);
    }
  if (sb_engine_failed (sg_bo_refit (bo, NULL, progress, &res), "fitting the hyperparameters",
                        error))
    {
      sg_bo_free (bo);
      return NULL;
    }
  sb_hyper_from_engine (sg_bo_get_hyper (bo), input->experiment->n_parameters,
                        sg_bo_n_answers (bo), &result->hyper);
  result->hyper.log_evidence = res.n_evals > 0 ? res.log_evidence : NAN;
  {
    /* safe mode: where the fit was shortened to its conservative end */
    sg_bo_safe_fit fit;
    if (sg_bo_safe_last_fit (bo, &fit) == SG_OK)
      for (guint j = 0; j < input->experiment->n_parameters; j++)
        result->hyper.fitted_lengthscales[j] = fit.shortened[j] ? fit.fitted[j] : 0;
  }
  result->n_evals = res.n_evals;
  result->fitted = "exact evidence";
  result->seconds = cpu_seconds () - start;
  sg_bo_free (bo);
  return g_steal_pointer (&result);
}

gpointer
sb_job_fit (SbWorkerJob *job, gpointer data, GError **error)
{
  SbJobProgress pctx = { job, "Fitting hyperparameters" };
  sg_progress progress = { sb_job_forward_progress, &pctx };

  if (job != NULL)
    sb_worker_job_progress (job, 0.0, "Fitting hyperparameters");
  return sb_session_refit (data, &progress, error);
}

/* ---- The refit in a thread of its own -------------------------------------------- */

typedef struct {
  SbJobInput *input;
  SbFitProgress *progress;
} RefitTask;

static void
refit_task_free (RefitTask *t)
{
  sb_job_input_free (t->input);
  sb_fit_progress_free (t->progress);
  g_free (t);
}

static void
refit_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  RefitTask *t = task_data;
  GError *error = NULL;
  SbFitResult *result = sb_session_refit (t->input, sb_fit_progress_get (t->progress), &error);

  if (result != NULL)
    g_task_return_pointer (task, result, (GDestroyNotify) sb_fit_result_free);
  else
    g_task_return_error (task, error);
}

void
sb_session_refit_async (SbSession *session, GCancellable *cancellable,
                        SbFitProgressFunc progress_func, gpointer progress_data,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  RefitTask *t = g_new0 (RefitTask, 1);

  t->input = sb_job_input_new (session);
  t->progress = sb_fit_progress_new (cancellable, progress_func, progress_data);
  g_task_set_source_tag (task, sb_session_refit_async);
  g_task_set_task_data (task, t, (GDestroyNotify) refit_task_free);
  g_task_run_in_thread (task, refit_thread);
}

SbFitResult *
sb_session_refit_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
sb_session_store_fit (SbSession *session, const SbFitResult *result, GError **error)
{
  return sb_session_set_hyper (session, &result->hyper, error);
}

gboolean
sb_session_refit_due (SbSession *session)
{
  SbJobInput *input = sb_job_input_new (session);
  gboolean due = refit_due (input, sb_answers_count (input->observations));

  sb_job_input_free (input);
  return due;
}

/* ---- Plot data -------------------------------------------------------------- */

/* How the plots' legends name the session's own model: the exact SkewGP
 * posterior is "exact"; an approximate surrogate is named as such. */
static char *
model_label (const SbModel *model)
{
  return sb_model_info_name (&model->info);
}

static GArray *
dup_refits (SbSession *session)
{
  guint n = sb_session_get_n_refits (session);
  GArray *refits = g_array_sized_new (FALSE, FALSE, sizeof (SbHyper), n);

  for (guint i = 0; i < n; i++)
    g_array_append_val (refits, *sb_session_get_refit (session, i));
  return refits;
}

/* The refit history as the Hyperparameters plot draws it: one row per
 * fit, the kernel's variance and lengthscales and the noise scales the
 * mode fits (probit for duels, numeric for values). */
static void
add_refit_history (SbPlotSnapshot *snap, const SbExperiment *exp, GArray *refits)
{
  gboolean duels = exp->mode != SB_MODE_SAFE;
  gboolean values = exp->mode != SB_MODE_PREFERENCE;
  guint m = 1 + exp->n_parameters + duels + values;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *v = NULL;

  if (refits->len == 0)
    return;
  g_ptr_array_add (names, g_strdup ("variance"));
  for (guint j = 0; j < exp->n_parameters; j++)
    g_ptr_array_add (names, g_strdup_printf ("lengthscale %s", exp->parameters[j].name));
  if (duels)
    g_ptr_array_add (names, g_strdup ("probit sd"));
  if (values)
    g_ptr_array_add (names, g_strdup ("numeric sd"));
  v = g_new (double, (gsize) refits->len * m);
  for (guint i = 0; i < refits->len; i++)
    {
      const SbHyper *h = &g_array_index (refits, SbHyper, i);
      double *row = v + (gsize) i * m;
      guint k = 0;

      row[k++] = h->variance;
      for (guint j = 0; j < exp->n_parameters; j++)
        row[k++] = h->lengthscales[j];
      if (duels)
        row[k++] = h->probit_sd;
      if (values)
        row[k++] = h->numeric_sd;
    }
  sb_plot_snapshot_set_hyper_history (snap, refits->len, m,
                                      (const char *const *) names->pdata, v);
}

SbPlotInput *
sb_plot_input_new (SbModel *model, SbSession *session, const SbProposal *next, guint axis,
                   guint64 generation)
{
  SbPlotInput *input = g_new0 (SbPlotInput, 1);
  const SbExperiment *exp = sb_session_get_experiment (session);

  input->model = sb_model_ref (model);
  input->experiment = sb_experiment_copy (exp);
  input->log = sb_session_dup_observations (session);
  input->refits = dup_refits (session);
  input->next = *next;
  input->next.model = NULL;
  input->axis = MIN (axis, exp->n_parameters - 1);
  input->n_curve = 160;
  input->n_slice = 40;
  input->compare = TRUE;
  input->show_next = TRUE;
  input->generation = generation;
  return input;
}

void
sb_plot_input_free (SbPlotInput *input)
{
  if (input == NULL)
    return;
  sb_model_unref (input->model);
  sb_experiment_free (input->experiment);
  g_ptr_array_unref (input->log);
  g_array_unref (input->refits);
  g_free (input);
}

/* N points XS (natural units) in the model's coordinates (a new array). */
static double *
points_to_model (const SbModel *model, const double *xs, gsize n)
{
  guint dim = model->experiment->n_parameters;
  double *u = g_new (double, n * dim + 1);

  for (gsize i = 0; i < n; i++)
    sb_experiment_to_model (model->experiment, xs + i * dim, u + i * dim);
  return u;
}

static int
summarize_locked (SbModel *model, const double *xs, gsize n, unsigned fields,
                  const sg_progress *progress, sg_point_summary *out)
{
  g_autofree double *u = points_to_model (model, xs, n);
  int status;

  g_mutex_lock (&model->lock);
  status = sg_bo_summarize (model->bo, u, n, fields, 0.95, progress, out);
  g_mutex_unlock (&model->lock);
  return status;
}

/* Replaces the band of the exact posterior's summaries OUT at N points XS
 * by the smoothed one (sb-smooth-hpd.h); the Gaussian models' bands are in
 * closed form and stay. The same normal variates for every curve of one
 * model (the experiment's seed), so the band does not flicker between
 * redraws. */
static int
smooth_band_locked (SbModel *model, const double *xs, gsize n, sg_point_summary *out)
{
  g_autofree double *u = points_to_model (model, xs, n);
  int status = SG_OK;

  g_mutex_lock (&model->lock);
  const sg_skewgp_posterior *post = sg_bo_skewgp_posterior (model->bo);
  const sg_skewgp_samples *samples = sg_bo_skewgp_samples (model->bo);
  if (post && samples && sg_skewgp_samples_count (samples) >= SB_SMOOTH_HPD_MIN_SAMPLES)
    {
      gsl_rng *rng = sg_rng_new (model->experiment->seed, G_GUINT64_CONSTANT (0xba4d));
      status = rng ? sb_smooth_hpd_band (post, samples, u, n, 0.95, rng, out) : SG_ENOMEM;
      sg_rng_free (rng);
    }
  g_mutex_unlock (&model->lock);
  return status;
}

/* The Laplace (002; R&W alg. 3.1/3.2) and EP (R&W alg. 3.5) posteriors
 * of the model's data with its GP hyperparameters (docs/DESIGN.md §3.9: the s = 0
 * part of a SkewGP prior), computed once per model. A failure (EP not
 * converging, say) leaves that overlay out; the plots go on without it.
 * Call with model->lock held. */
static void
ensure_approx_locked (SbModel *model, const sg_progress *progress)
{
  const sg_data *data = sg_bo_data (model->bo);
  sg_approx_model am;

  if (model->approx_tried)
    return;
  /* Beside a sparse model the overlays would be Laplace and EP on every
   * answer, the cost the sparse model is there to avoid: left out. */
  if (model->info.kind == SB_MODEL_SPARSE)
    {
      model->approx_tried = TRUE;
      return;
    }
  sg_hyper_approx_model (sg_bo_get_hyper (model->bo), SG_LINK_PROBIT, &am);
  model->has_approx[SB_POSTERIOR_LAPLACE]
    = sg_laplace_posterior (&am, data, NULL, progress, NULL,
                            &model->approx[SB_POSTERIOR_LAPLACE]) == SG_OK;
  model->has_approx[SB_POSTERIOR_EP]
    = sg_ep_posterior (&am, data, NULL, progress, NULL,
                       &model->approx[SB_POSTERIOR_EP]) == SG_OK;
  /* A cancelled attempt is not final: the next job tries again. */
  model->approx_tried = sg_progress_report (progress, 0) == SG_OK;
  if (!model->approx_tried)
    for (int k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
      if (model->has_approx[k])
        {
          sg_gauss_post_clear (&model->approx[k]);
          model->has_approx[k] = FALSE;
        }
}

/* Summaries of the Laplace / EP overlay K at XS (FALSE when it failed). */
static gboolean
approx_summaries (SbModel *model, SbPosteriorMethod k, const double *xs, gsize n,
                  const sg_progress *progress, sg_point_summary *out)
{
  g_autofree double *u = points_to_model (model, xs, n);
  double best[SB_MAX_PARAMETERS];
  gboolean ok;

  sb_experiment_to_model (model->experiment, model->best, best);
  g_mutex_lock (&model->lock);
  ensure_approx_locked (model, progress);
  ok = model->has_approx[k]
       && sg_gauss_post_summaries (&model->approx[k], u, n, 0.95,
                                   model->has_best ? best : NULL, out) == SG_OK;
  g_mutex_unlock (&model->lock);
  return ok;
}

/* The last proposal's acquisition (and, with P_VALID, P(f >= h)) at XS.
 * The safe UCB's penalty (1000 where P(valid) < required) would squash
 * the rest of the curve into a line, so penalised points are left out
 * (NaN: a gap, or a transparent cell) instead. FALSE when the proposal
 * did not use the model. */
static gboolean
acquisition_locked (SbModel *model, const double *xs, gsize n, const sg_progress *progress,
                    sg_bo_acq_info *info, double *acq, double *p_valid, int *status)
{
  const sg_bo_config *c = sg_bo_get_config (model->bo);
  g_autofree double *u = points_to_model (model, xs, n);

  g_mutex_lock (&model->lock);
  *status = sg_bo_last_acquisition (model->bo, info);
  if (*status == SG_OK)
    *status = sg_bo_acquisition_at (model->bo, u, n, progress, acq);
  if (*status == SG_OK && p_valid)
    *status = sg_bo_prob_valid_at (model->bo, u, n, progress, p_valid);
  g_mutex_unlock (&model->lock);
  if (*status == SG_OK)  /* its maximiser in natural units */
    sb_experiment_from_model (model->experiment, info->x, info->x);
  if (*status == SG_EINVAL)
    {
      *status = SG_OK;   /* no acquisition to show */
      return FALSE;
    }
  if (*status != SG_OK)
    return FALSE;
  if (info->target == SG_BO_ACQ_TARGET_SAFE && p_valid)
    for (gsize i = 0; i < n; i++)
      if (p_valid[i] < c->safe_probability)
        acq[i] = NAN;
  return TRUE;
}

/* OBS in the plots' axis coordinates (a copy; sb-parameter-kinds.h). */
static SbLogEntry *
entry_to_axis (const SbExperiment *exp, const SbLogEntry *obs)
{
  SbLogEntry *copy = sb_log_entry_copy (obs);

  if (copy->a)
    sb_experiment_to_axis (exp, obs->a, copy->a);
  if (copy->b)
    sb_experiment_to_axis (exp, obs->b, copy->b);
  for (guint i = 0; copy->options && i < copy->n_options; i++)
    sb_experiment_to_axis (exp, obs->options + (gsize) i * obs->dim,
                           copy->options + (gsize) i * obs->dim);
  return copy;
}

/* The parameters' names, axis ranges and scales in SNAP. WITH_UNITS: the
 * name reads "name [unit]". */
static void
set_parameters (SbPlotSnapshot *snap, const SbExperiment *exp, gboolean with_units)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      g_autofree char *name = with_units && p->unit && *p->unit
                                ? g_strdup_printf ("%s [%s]", p->name, p->unit)
                                : g_strdup (p->name);
      sb_plot_snapshot_set_parameter (snap, j, name, sb_parameter_axis_lower (p),
                                      sb_parameter_axis_upper (p));
      sb_plot_snapshot_set_parameter_scale (snap, j, p->scale, (const char *const *) p->levels);
    }
}

/* Observations as the plots draw them. */
static void
add_observations (SbPlotSnapshot *snap, const SbExperiment *exp, GPtrArray *log)
{
  gboolean safe = exp->mode == SB_MODE_SAFE;

  for (guint i = 0; i < log->len; i++)
    {
      const SbLogEntry *natural = g_ptr_array_index (log, i);
      if (sb_log_entry_is_removed (natural))
        continue;
      g_autoptr (SbLogEntry) e = entry_to_axis (exp, natural);
      switch (e->kind)
        {
        case SB_LOG_DUEL:
          sb_plot_snapshot_add_observation (snap, SG_OBS_PREFERENCE, e->winner ? e->b : e->a,
                                            e->winner ? e->a : e->b, NAN);
          break;
        case SB_LOG_TIE:
          sb_plot_snapshot_add_observation (snap, SG_OBS_TIE, e->a, e->b, NAN);
          break;
        case SB_LOG_CHOICE:
          /* the winner linked to each other option */
          for (guint k = 0; k < e->n_options; k++)
            if (k != e->chosen)
              sb_plot_snapshot_add_observation (snap, SG_OBS_CHOICE,
                                                sb_log_entry_option (e, e->chosen),
                                                sb_log_entry_option (e, k), NAN);
          break;
        case SB_LOG_RANKING:
          /* each option linked to the next one down */
          for (guint r = 0; r + 1 < e->n_options; r++)
            sb_plot_snapshot_add_observation (snap, SG_OBS_PREFERENCE,
                                              sb_log_entry_option (e, e->ranking[r]),
                                              sb_log_entry_option (e, e->ranking[r + 1]), NAN);
          break;
        case SB_LOG_VALUE:
          sb_plot_snapshot_add_observation (snap, safe ? SG_OBS_VALID : SG_OBS_NUMERIC,
                                            e->a, NULL, e->value);
          break;
        case SB_LOG_FAILED:
          sb_plot_snapshot_add_observation (snap, SG_OBS_INVALID, e->a, NULL, NAN);
          break;
        case SB_LOG_SKIP:
        default:
          break;
        }
    }
}

SbPlotSnapshot *
sb_plot_snapshot_new_for_session (SbSession *session)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  g_autoptr (GPtrArray) log = sb_session_dup_observations (session);
  SbPlotSnapshot *snap = sb_plot_snapshot_new (exp->n_parameters, 0);

  sb_plot_snapshot_set_study (snap, (sg_bo_mode) exp->mode,
                              exp->template_kind == SB_TEMPLATE_BENCHMARK);
  set_parameters (snap, exp, FALSE);
  g_autoptr (GArray) refits = dup_refits (session);

  add_observations (snap, exp, log);
  add_refit_history (snap, exp, refits);
  sb_plot_snapshot_freeze (snap);
  return snap;
}

/* Best value after each answer: the true objective at the current best for
 * benchmark problems (the curve of 001 Figures 11-12), otherwise the best
 * measured value when the experiment measures values. */
static void
add_convergence (SbPlotSnapshot *snap, const SbPlotInput *input, sg_problem *problem)
{
  guint dim = input->experiment->n_parameters;
  g_autoptr (GArray) best = g_array_new (FALSE, FALSE, sizeof (double));
  double best_x[SB_MAX_PARAMETERS];
  gboolean has_x = FALSE;
  double best_value = -INFINITY;

  for (guint i = 0; i < input->log->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (input->log, i);
      double v;

      if (sb_log_entry_is_removed (e))
        continue;
      switch (e->kind)
        {
        case SB_LOG_DUEL:
        case SB_LOG_CHOICE:
        case SB_LOG_RANKING:
          memcpy (best_x, sb_log_entry_option (e, sb_log_entry_best_option (e)),
                  dim * sizeof (double));
          has_x = TRUE;
          break;
        case SB_LOG_VALUE:
          if (e->value > best_value || !has_x)
            {
              memcpy (best_x, e->a, dim * sizeof (double));
              has_x = TRUE;
            }
          best_value = MAX (best_value, e->value);
          break;
        default:
          continue;
        }
      v = problem && has_x ? sg_problem_value (problem, best_x) : best_value;
      if (isfinite (v))
        g_array_append_val (best, v);
    }
  if (best->len > 0)
    sb_plot_snapshot_set_convergence (snap, best->len, (const double *) best->data,
                                      problem ? sg_problem_optimum (problem) : NAN);
}

static gboolean
add_curve (SbPlotSnapshot *snap, const SbPlotInput *input, const double *fixed,
           sg_problem *problem, const sg_progress *progress, GError **error)
{
  const SbExperiment *exp = input->experiment;
  guint dim = exp->n_parameters, n = input->n_curve, axis = input->axis;
  g_autofree double *grid = g_new (double, n);
  g_autofree double *xs = g_new (double, (gsize) n * dim);
  g_autofree sg_point_summary *summary = g_new (sg_point_summary, n);
  const SbParameter *p = &exp->parameters[axis];
  double lo = sb_parameter_axis_lower (p), hi = sb_parameter_axis_upper (p);

  /* evenly spaced along the plot's axis (in log10 for a log scale) */
  for (guint i = 0; i < n; i++)
    {
      grid[i] = lo + (hi - lo) * i / (n - 1);
      memcpy (xs + (gsize) i * dim, fixed, dim * sizeof (double));
      xs[(gsize) i * dim + axis] = CLAMP (sb_parameter_from_axis (p, grid[i]), p->lower, p->upper);
    }
  if (sb_engine_failed (summarize_locked (input->model, xs, n, SG_SUMMARY_ALL, progress, summary),
                        "summarising the posterior", error)
      || sb_engine_failed (smooth_band_locked (input->model, xs, n, summary),
                           "smoothing the posterior's band", error))
    return FALSE;
  sb_plot_snapshot_set_curve_grid (snap, axis, n, grid);
  sb_plot_snapshot_set_summaries (snap, SB_POSTERIOR_EXACT, summary);

  if (problem)
    {
      g_autofree double *truth = g_new (double, n);
      for (guint i = 0; i < n; i++)
        truth[i] = sg_problem_value (problem, xs + (gsize) i * dim);
      sb_plot_snapshot_set_truth (snap, truth);
    }

  /* A few sample paths of the exact posterior (the truncated samples of t
   * are shared; only the Gaussian remainder is drawn here). */
  {
    const sg_skewgp_posterior *post = sg_bo_skewgp_posterior (input->model->bo);
    const sg_skewgp_samples *samples = sg_bo_skewgp_samples (input->model->bo);
    gsize ns = samples ? sg_skewgp_samples_count (samples) : 0;
    if (post && ns > 0)
      {
        enum { N_PATHS = 8 };
        size_t which[N_PATHS];
        guint k = MIN (N_PATHS, ns);
        g_autofree double *out = g_new (double, (gsize) n * k);
        gsl_rng *rng = sg_rng_new (exp->seed, G_GUINT64_CONSTANT (0x9a7b5) + input->log->len);
        int status;

        for (guint j = 0; j < k; j++)
          which[j] = j * (ns / k);
        g_autofree double *u = points_to_model (input->model, xs, n);

        g_mutex_lock (&input->model->lock);
        status = rng ? sg_skewgp_sample_paths (post, samples, u, n, which, k, rng, out) : SG_ENOMEM;
        g_mutex_unlock (&input->model->lock);
        sg_rng_free (rng);
        if (status == SG_OK)
          {
            /* OUT is n x k; the snapshot wants k paths of n values. */
            g_autofree double *paths = g_new (double, (gsize) k * n);
            for (guint j = 0; j < k; j++)
              for (guint i = 0; i < n; i++)
                paths[(gsize) j * n + i] = out[(gsize) i * k + j];
            sb_plot_snapshot_set_sample_paths (snap, k, paths);
          }
      }
  }

  /* The acquisition the proposal maximised, its maximiser, and P(valid). */
  {
    gboolean safe = exp->mode == SB_MODE_SAFE;
    g_autofree double *acq = g_new (double, n);
    g_autofree double *p_valid = safe ? g_new (double, n) : NULL;
    sg_bo_acq_info info;
    int status;

    if (acquisition_locked (input->model, xs, n, progress, &info, acq, p_valid, &status))
      {
        sb_experiment_to_axis (exp, info.x, info.x);
        sb_plot_snapshot_set_acquisition (snap, info.name, acq, info.x);
        if (safe)
          sb_plot_snapshot_set_validity (snap, p_valid,
                                         sg_bo_get_config (input->model->bo)->safe_probability);
      }
    if (sb_engine_failed (status, "evaluating the acquisition", error))
      return FALSE;
  }

  /* Laplace and EP on the same curve (the "compare" overlays). */
  if (input->compare)
    for (SbPosteriorMethod k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
      if (approx_summaries (input->model, k, xs, n, progress, summary))
        sb_plot_snapshot_set_summaries (snap, k, summary);
  if (sg_progress_report (progress, 0) != SG_OK)
    return !sb_engine_failed (SG_ECANCELLED, "the plot", error);
  return TRUE;
}

static gboolean
add_slice (SbPlotSnapshot *snap, const SbPlotInput *input, const double *best,
           const sg_progress *progress, GError **error)
{
  const SbExperiment *exp = input->experiment;
  guint dim = exp->n_parameters, m = input->n_slice, n = m * m;
  guint ax = input->has_slice ? input->slice_x : 0, ay = input->has_slice ? input->slice_y : 1;
  const SbParameter *px = &exp->parameters[ax], *py = &exp->parameters[ay];
  g_autofree double *xs = g_new (double, (gsize) n * dim);
  g_autofree sg_point_summary *summary = g_new (sg_point_summary, n);
  g_autofree double *values = g_new (double, n);
  double fixed[SB_MAX_PARAMETERS], fixed_axis[SB_MAX_PARAMETERS];
  /* the slice's axis ranges (log10 for a log scale; the grids are even
   * along them) */
  double x0 = sb_parameter_axis_lower (px), x1 = sb_parameter_axis_upper (px);
  double y0 = sb_parameter_axis_lower (py), y1 = sb_parameter_axis_upper (py);

  /* the plot's slice controls speak axis coordinates, BEST natural units */
  if (input->has_slice)
    sb_experiment_from_axis (exp, input->slice_fixed, fixed);
  else
    memcpy (fixed, best, dim * sizeof (double));
  sb_experiment_to_axis (exp, fixed, fixed_axis);
  for (guint j = 0; j < m; j++)
    for (guint i = 0; i < m; i++)
      {
        double *x = xs + ((gsize) j * m + i) * dim;
        memcpy (x, fixed, dim * sizeof (double));
        x[ax] = CLAMP (sb_parameter_from_axis (px, x0 + (x1 - x0) * i / (m - 1)), px->lower,
                       px->upper);
        x[ay] = CLAMP (sb_parameter_from_axis (py, y0 + (y1 - y0) * j / (m - 1)), py->lower,
                       py->upper);
      }
  if (sb_engine_failed (summarize_locked (input->model, xs, n, SG_SUMMARY_MOMENTS, progress, summary),
                        "summarising the posterior on the slice", error))
    return FALSE;
  sb_plot_snapshot_set_slice (snap, ax, ay, fixed_axis);
  for (SbField f = SB_FIELD_MEAN; f <= SB_FIELD_SKEWNESS; f++)
    {
      g_autoptr (SbGrid2) grid = NULL;
      for (guint i = 0; i < n; i++)
        values[i] = f == SB_FIELD_MEAN ? summary[i].mean
                    : f == SB_FIELD_SD ? summary[i].sd : summary[i].skewness;
      grid = sb_grid2_new (m, m, x0, x1, y0, y1, values);
      sb_plot_snapshot_set_field (snap, f, SB_POSTERIOR_EXACT, grid);
    }

  /* Acquisition and P(valid) fields on the slice. */
  {
    gboolean safe = exp->mode == SB_MODE_SAFE;
    g_autofree double *p_valid = safe ? g_new (double, n) : NULL;
    sg_bo_acq_info info;
    int status;

    if (acquisition_locked (input->model, xs, n, progress, &info, values, p_valid, &status))
      {
        g_autoptr (SbGrid2) grid = sb_grid2_new (m, m, x0, x1, y0, y1, values);
        sb_plot_snapshot_set_field (snap, SB_FIELD_ACQUISITION, SB_POSTERIOR_EXACT, grid);
        if (safe)
          {
            g_autoptr (SbGrid2) pv = sb_grid2_new (m, m, x0, x1, y0, y1, p_valid);
            sb_plot_snapshot_set_field (snap, SB_FIELD_P_VALID, SB_POSTERIOR_EXACT, pv);
          }
      }
    if (sb_engine_failed (status, "evaluating the acquisition on the slice", error))
      return FALSE;
  }

  /* Laplace / EP mean and sd fields (drawn as contours over the exact
   * field when "compare" is on). */
  if (input->compare)
    for (SbPosteriorMethod k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
      if (approx_summaries (input->model, k, xs, n, progress, summary))
        for (SbField f = SB_FIELD_MEAN; f <= SB_FIELD_SD; f++)
          {
            g_autoptr (SbGrid2) grid = NULL;
            for (guint i = 0; i < n; i++)
              values[i] = f == SB_FIELD_MEAN ? summary[i].mean : summary[i].sd;
            grid = sb_grid2_new (m, m, x0, x1, y0, y1, values);
            sb_plot_snapshot_set_field (snap, f, k, grid);
          }
  return TRUE;
}

gpointer
sb_job_plot (SbWorkerJob *job, gpointer data, GError **error)
{
  SbPlotInput *input = data;
  const SbExperiment *exp = input->experiment;
  guint dim = exp->n_parameters;
  g_autoptr (SbPlotSnapshot) snap = sb_plot_snapshot_new (dim, input->generation);

  sb_plot_snapshot_set_study (snap, (sg_bo_mode) exp->mode,
                              exp->template_kind == SB_TEMPLATE_BENCHMARK);
  SbJobProgress pctx = { job, NULL };
  sg_progress progress = { sb_job_forward_progress, &pctx };
  double fixed[SB_MAX_PARAMETERS];
  sg_problem *problem = NULL;
  gboolean ok;

  g_autofree char *label = model_label (input->model);
  sb_plot_snapshot_set_model_label (snap, label);
  set_parameters (snap, exp, TRUE);
  for (guint j = 0; j < dim; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      fixed[j] = input->model->has_best
                   ? input->model->best[j]
                   : sb_parameter_from_model (p, 0.5 * (sb_parameter_to_model (p, p->lower)
                                                        + sb_parameter_to_model (p, p->upper)));
    }
  if (exp->template_kind == SB_TEMPLATE_BENCHMARK
      && (sg_problem_new (exp->problem, exp->seed, &problem) != SG_OK
          || sg_problem_dim (problem) != dim))
    g_clear_pointer (&problem, sg_problem_free);

  ok = add_curve (snap, input, fixed, exp->show_truth ? problem : NULL, &progress, error)
       && (dim < 2 || add_slice (snap, input, fixed, &progress, error));
  if (ok)
    {
      add_observations (snap, input->experiment, input->log);
      add_refit_history (snap, input->experiment, input->refits);
      add_convergence (snap, input, problem);
      double best[SB_MAX_PARAMETERS], a[SB_MAX_PARAMETERS], b[SB_MAX_PARAMETERS];
      sb_experiment_to_axis (exp, input->model->best, best);
      sb_experiment_to_axis (exp, input->next.a, a);
      sb_experiment_to_axis (exp, input->next.b, b);
      if (input->model->has_best)
        sb_plot_snapshot_set_best (snap, best);
      if (input->show_next && input->next.kind == SB_QUESTION_DUEL)
        sb_plot_snapshot_set_next (snap, a, b);
      else if (input->show_next)
        sb_plot_snapshot_set_next (snap, b, NULL);
      sb_plot_snapshot_freeze (snap);
    }
  g_clear_pointer (&problem, sg_problem_free);
  return ok ? g_steal_pointer (&snap) : NULL;
}

/* ---- Density at a point --------------------------------------------------------- */

SbDensityInput *
sb_density_input_new (SbModel *model, guint dim, const double *x, guint64 generation)
{
  SbDensityInput *input = g_new0 (SbDensityInput, 1);

  input->model = sb_model_ref (model);
  input->dim = MIN (dim, SB_MAX_PARAMETERS);
  memcpy (input->x, x, input->dim * sizeof (double));
  input->generation = generation;
  return input;
}

void
sb_density_input_free (SbDensityInput *input)
{
  if (input == NULL)
    return;
  sb_model_unref (input->model);
  g_free (input);
}

gpointer
sb_job_density (SbWorkerJob *job, gpointer data, GError **error)
{
  SbDensityInput *input = data;
  g_autoptr (SbDensityData) d = sb_density_data_new (input->dim, input->x, FALSE, input->generation);
  SbJobProgress pctx = { job, NULL };
  sg_progress progress = { sb_job_forward_progress, &pctx };
  const sg_skewgp_posterior *post = sg_bo_skewgp_posterior (input->model->bo);
  const sg_skewgp_samples *samples = sg_bo_skewgp_samples (input->model->bo);
  enum { K = 200 };
  double grid[K], density[K];
  double x[SB_MAX_PARAMETERS], u[SB_MAX_PARAMETERS];
  sg_point_summary summary;
  double lo, hi;
  int status;

  /* the plots' point (axis coordinates) in natural units and the model's */
  sb_experiment_from_axis (input->model->experiment, input->x, x);
  sb_experiment_to_model (input->model->experiment, x, u);
  if (sb_engine_failed (summarize_locked (input->model, x, 1, SG_SUMMARY_ALL, &progress, &summary),
                        "summarising the posterior", error))
    return NULL;
  /* A grid over the bulk of the distribution and a little beyond. */
  lo = MIN (summary.mean - 4.5 * summary.sd, summary.lower);
  hi = MAX (summary.mean + 4.5 * summary.sd, summary.upper);
  if (!(hi > lo) || !isfinite (lo) || !isfinite (hi))
    {
      g_set_error (error, SB_ENGINE_ERROR, SG_ENUMERIC, "the posterior at this point is degenerate");
      return NULL;
    }
  for (guint i = 0; i < K; i++)
    grid[i] = lo + (hi - lo) * i / (K - 1);
  sb_density_data_set_grid (d, K, grid);

  if (post && samples)
    {
      gsize ns = sg_skewgp_samples_count (samples);
      g_autofree double *draws = g_new (double, ns);
      gsl_rng *rng = sg_rng_new (G_GUINT64_CONSTANT (0xde57), input->generation);

      g_mutex_lock (&input->model->lock);
      status = sg_skewgp_density (post, samples, u, grid, K, density);
      if (status == SG_OK)
        status = rng ? sg_skewgp_joint_samples (post, samples, u, 1, rng, draws) : SG_ENOMEM;
      g_mutex_unlock (&input->model->lock);
      sg_rng_free (rng);
      if (sb_engine_failed (status, "computing the density", error))
        return NULL;
      sb_density_data_set_density (d, SB_POSTERIOR_EXACT, density);
      sb_density_data_set_samples (d, ns, draws);

      /* The Laplace and EP Gaussians at x, for the compare toggles. */
      g_mutex_lock (&input->model->lock);
      ensure_approx_locked (input->model, &progress);
      for (SbPosteriorMethod k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
        if (input->model->has_approx[k]
            && sg_gauss_post_density (&input->model->approx[k], u, K, grid,
                                      density) == SG_OK)
          sb_density_data_set_density (d, k, density);
      g_mutex_unlock (&input->model->lock);
      if (sg_progress_report (&progress, 0) != SG_OK)
        {
          sb_engine_failed (SG_ECANCELLED, "the density", error);
          return NULL;
        }
    }
  else
    {
      /* Laplace / EP: their Gaussian at x. */
      SbPosteriorMethod which = sg_bo_get_config (input->model->bo)->surrogate == SG_BO_SURROGATE_EP
                          ? SB_POSTERIOR_EP : SB_POSTERIOR_LAPLACE;
      for (guint i = 0; i < K; i++)
        {
          double z = (grid[i] - summary.mean) / summary.sd;
          density[i] = exp (-0.5 * z * z) / (summary.sd * sqrt (2 * G_PI));
        }
      sb_density_data_set_density (d, which, density);
    }
  sb_density_data_freeze (d);
  return g_steal_pointer (&d);
}

sg_bo *
sb_job_replay (const SbJobInput *input, GError **error)
{
  guint n_skips;
  SbModelInfo info;

  return replay (input, &n_skips, &info, error);
}
