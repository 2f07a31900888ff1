/* sb-jobs.h — the engine jobs the window runs on the worker (docs/DESIGN.md §2).
 *
 *   answer -> session appends + saves -> sb_job_input_new (copies the
 *   experiment, the observation log and the stored hyperparameters)
 *   -> worker thread: sg_bo rebuilt from the log, sg_bo_propose
 *   -> SbProposal (an immutable result snapshot) -> main thread, applied
 *   only if the job is still current (sb-worker.h).
 *
 * Every job rebuilds its sg_bo from the copied log: the session stays the
 * single source of truth, undo is just a shorter log, and a job never
 * shares mutable state with the main thread. Replaying answers is cheap;
 * the posterior and the acquisition search are the heavy part anyway.
 *
 * Jobs:
 *   sb_job_propose   the next question (+ the simulated oracle's answer,
 *                    + true values for benchmark problems); keeps the
 *                    model (SbModel) for the plot job;
 *   sb_job_fit       a hyperparameter refit (progress, cancellable);
 *   sb_job_plot      summaries of the model on a 1-D / 2-D grid.
 * sb_job_propose and sb_job_fit also run outside the worker, on the
 * calling thread, with JOB = NULL (sb-ask-tell.c).
 */
#pragma once

#include "sb-question.h"
#include "sb-session.h"
#include "sb-stored-fit.h"
#include "sb-worker.h"
#include "sb-engine-job.h"

#include "sb-plot-data.h"
#include "sg-summary.h"

G_BEGIN_DECLS

/* ---- Inputs ------------------------------------------------------------- */

typedef struct {
  SbExperiment *experiment;
  GPtrArray *observations;   /* SbLogEntry */
  SbHyper hyper;
  char *path;                /* the session file, or NULL                  */
  /* Beyond SB_EXACT_MAX_ANSWERS answers: the session's stored sparse fit
   * when it is usable for this log (sb-stored-fit.h), else NULL and
   * FIT_PROBLEM says why (missing, damaged, or it saw answers since
   * removed). */
  SbSessionFit *fit;
  char *fit_problem;
} SbJobInput;

SbJobInput *sb_job_input_new (SbSession *session);
void sb_job_input_free (SbJobInput *input);
/* The model a question of INPUT uses (sb-stored-fit.h's rule) into INFO:
 * FALSE with ERROR (SB_FIT_ERROR) when none can serve one. */
gboolean sb_job_input_model (const SbJobInput *input, SbModelInfo *info, GError **error);

/* ---- The model of a proposal (shared, immutable once published) -------- */

typedef struct _SbModel SbModel;
SbModel *sb_model_ref (SbModel *model);
void sb_model_unref (SbModel *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbModel, sb_model_unref)

/* ---- Questions ----------------------------------------------------------- */


typedef struct {
  SbQuestionKind kind;
  guint dim;
  /* A = the current best (duels), B = the new candidate. For value
   * questions only B is asked about; A is the current best if any. */
  double a[SB_MAX_PARAMETERS];
  double b[SB_MAX_PARAMETERS];
  /* The options in the engine's order: a duel's are A and B, a value
   * question's is B; a choice or ranking question's k options are, in
   * preference mode, the engine's qEUBO proposal of k options (sg-bo.h).
   * In mixed mode, where the engine asks duels, they are its duel (A, the
   * current best, and B, the candidate) followed by k - 2 space-filling
   * settings: each is, of 64 uniform draws in the box, the one farthest
   * from the options before it, in coordinates scaled to the box, seeded
   * by the experiment's seed and the question's number. */
  guint n_options;
  double options[SB_MAX_OPTIONS][SB_MAX_PARAMETERS];
  /* The order the options are shown in (left to right, or a grid's
   * reading order): a random permutation per question, seeded by the
   * experiment's seed and the question's number (n_log), so the side on
   * which the current best appears is balanced and reproducible. */
  guint shown_order[SB_MAX_OPTIONS];
  gboolean has_best;
  double best[SB_MAX_PARAMETERS];
  guint n_log;               /* session log length the question answers   */
  guint n_answers;           /* answers (non-skips) behind it             */
  gboolean initial;          /* from the random initial design            */
  double prob_better;        /* P(f(B) > f(A)) from the model, or NaN      */
  double prob_safe;          /* safe mode: P(f(B) >= h), or NaN           */
  /* Safe mode's SafeOpt rule (sg-bo.h, "Safe mode"): SAFE_EXHAUSTED when
   * no new setting is safe enough to ask (B is then the best safe setting
   * measured, and nothing is asked: sb_proposal_safe_statement says why);
   * HAS_SAFE when SAFE holds the rule's account of this proposal (its
   * role, counts and the hyperparameters its model used, in the engine's
   * coordinates: a log parameter's lengthscale in natural-log units). */
  gboolean safe_exhausted;
  gboolean has_safe;
  sg_bo_safe_info safe;
  /* Simulated oracle (benchmark template with simulated = TRUE). */
  gboolean has_oracle;
  int oracle_winner;         /* duels: 0 = A, 1 = B; choices: the option  */
  guint oracle_ranking[SB_MAX_OPTIONS]; /* rankings: options, best first  */
  gboolean oracle_failed;    /* value questions: invalid (safe mode)      */
  double oracle_value;
  /* True objective (benchmark template), NaN otherwise. */
  double truth_a, truth_b, truth_best, truth_optimum;
  gboolean refit_due;        /* the refit schedule asks for a refit       */
  SbModelInfo model_info;    /* the model that made it                    */
  double seconds;            /* time spent in the job                     */
  SbModel *model;            /* owned reference, NULL for random proposals */
} SbProposal;

void sb_proposal_free (SbProposal *q);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbProposal, sb_proposal_free)

/* What safe mode's rule says of proposal Q in a sentence a person reads
 * (g_free; NULL outside safe mode's SafeOpt rule): when it is exhausted,
 * "Best safe setting found: no setting outside the measured region is
 * safe at 95 %." (or that the safe settings left are known within the
 * measurement noise and none can grow the safe set); otherwise whether it
 * grows the safe set or seeks the best inside it. */
char *sb_proposal_safe_statement (const SbExperiment *exp, const SbProposal *q);
/* The hyperparameters Q's model used in safe mode and why, in a sentence
 * per change (g_free; NULL when there is no account): the mean at the
 * threshold, the variance raised to its floor, a lengthscale cut to the
 * measured settings' spread, and, from the stored fit HYPER (may be
 * NULL), a lengthscale the refit shortened because the evidence could not
 * tell it from a shorter one. */
char *sb_proposal_safe_model_text (const SbExperiment *exp, const SbProposal *q,
                                   const SbHyper *hyper);
/* Safe mode, read only: *EXHAUSTED when a new question of SESSION
 * would find no new setting safe enough to ask (the proposal the engine
 * makes now from the same answers and stored fit, as sb_ask_tell_ask does
 * when no question is open; nothing is stored), with
 * sb_proposal_safe_statement's sentence in *REASON (g_free; NULL when not
 * exhausted). Outside safe mode *EXHAUSTED is FALSE and nothing runs.
 * FALSE with ERROR when the engine failed. */
gboolean sb_session_safe_exhausted (SbSession *session, gboolean *exhausted, char **reason,
                                    GError **error);

/* SbWorkerFunc: INPUT is an SbJobInput, the result an SbProposal
 * (free with sb_proposal_free). */
gpointer sb_job_propose (SbWorkerJob *job, gpointer input, GError **error);

/* ---- Hyperparameter fits -------------------------------------------------- */

/* A session's refit, on the one schedule (sb_fit_schedule_due): up to
 * SB_EXACT_MAX_ANSWERS answers the hyperparameters that maximise the
 * exact evidence (sg_bo_refit); beyond, the sparse variational model of
 * every answer (SB_SESSION_INDUCING points) with its lengthscales fitted
 * on its ELBO (the variance and noise held: the ELBO of probit answers
 * cannot tell the variance from the noise), which is also the stored
 * sparse fit the questions use (SbSessionFit). */
typedef struct {
  SbHyper hyper;            /* the fitted values (valid)                  */
  SbSessionFit *sparse;     /* beyond the exact model: the sparse fit, or
                               NULL                                       */
  const char *fitted;       /* "exact evidence" or the ELBO's name        */
  guint n_evals;
  double seconds;           /* CPU time of the fit                        */
} SbFitResult;

void sb_fit_result_free (SbFitResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbFitResult, sb_fit_result_free)

/* SbWorkerFunc: INPUT an SbJobInput, result an SbFitResult
 * (sb_fit_result_free). A sparse fit is written beside the session file
 * (INPUT->path) before the job returns; storing the hyperparameters in
 * the session is the caller's (sb_session_set_hyper, on its thread). */
gpointer sb_job_fit (SbWorkerJob *job, gpointer input, GError **error);
/* The same with PROGRESS (may be NULL) instead of a worker job: for
 * `skewgp refit` and the study server's background refits
 * (sb_session_refit_async). */
SbFitResult *sb_session_refit (const SbJobInput *input, const sg_progress *progress,
                               GError **error);

/* The refit in a thread of its own (GTask), for a process that keeps
 * answering while it runs (the study server): a snapshot of SESSION is
 * taken now; PROGRESS_FUNC (may be NULL) is called on the caller's
 * thread-default main context with the fraction done; CANCELLABLE stops
 * it. sb_session_refit_finish gives the result (the sparse fit is on
 * disk already); store it with sb_session_store_fit. */
void sb_session_refit_async (SbSession *session, GCancellable *cancellable,
                             SbFitProgressFunc progress_func, gpointer progress_data,
                             GAsyncReadyCallback callback, gpointer user_data);
SbFitResult *sb_session_refit_finish (GAsyncResult *result, GError **error);
/* Stores RESULT's hyperparameters in SESSION (saved; they join the refit
 * history). */
gboolean sb_session_store_fit (SbSession *session, const SbFitResult *result, GError **error);
/* TRUE when the refit schedule asks for a refit of SESSION now. */
gboolean sb_session_refit_due (SbSession *session);

/* ---- Plot data ------------------------------------------------------------
 * The plot job fills an SbPlotSnapshot (core/sb-plot-data.h, the plots'
 * immutable input) from the model of a proposal: exact summaries on a 1-D
 * curve grid along parameter AXIS (other coordinates at the current best),
 * for dim >= 2 mean / sd / skewness fields on the slice of the first two
 * parameters, a few joint posterior sample paths (SkewGP), the true
 * function (benchmarks), the observations, the best point, the next
 * question and, when a numeric best is known, the convergence history.
 * Also the acquisition the proposal maximised (sg_bo_acquisition_at: same
 * samples and random numbers, so the curve peaks at the proposal) with its
 * maximiser, as a curve and a slice field; in safe mode P(f(x) >= h) as a
 * curve and a field (the safe UCB is left out where P(valid) is below the
 * required probability: its penalty would flatten the plot); and, with
 * COMPARE, the Laplace and EP posteriors of the same data and GP
 * hyperparameters (summaries on the curve, mean and sd on the slice). */

typedef struct {
  SbModel *model;             /* reference                                 */
  SbExperiment *experiment;   /* copy                                      */
  GPtrArray *log;             /* SbLogEntry copies                         */
  GArray *refits;             /* SbHyper: the session's refit history      */
  SbProposal next;            /* the question shown (model not referenced) */
  gboolean show_next;         /* mark it (default TRUE; FALSE once the
                                 budget is used and nothing is asked)     */
  guint axis;                 /* 1-D curve parameter                       */
  guint n_curve;              /* points on the curve (default 160)         */
  guint n_slice;              /* points per side of the 2-D slice (40)     */
  gboolean has_slice;         /* the user chose the slice (else: axes 0, 1
                                 through the current best)                 */
  guint slice_x, slice_y;
  double slice_fixed[SB_MAX_PARAMETERS];
  gboolean compare;           /* also Laplace and EP (default TRUE)        */
  guint64 generation;
} SbPlotInput;

SbPlotInput *sb_plot_input_new (SbModel *model, SbSession *session,
                                const SbProposal *next, guint axis,
                                guint64 generation);
void sb_plot_input_free (SbPlotInput *input);
/* The plots of SESSION before its first model: its parameters' axes, its
 * study and its answers, no posterior (frozen). */
SbPlotSnapshot *sb_plot_snapshot_new_for_session (SbSession *session);
/* SbWorkerFunc: INPUT an SbPlotInput, the result a frozen SbPlotSnapshot
 * (free with sb_plot_snapshot_unref). */
gpointer sb_job_plot (SbWorkerJob *job, gpointer input, GError **error);

/* ---- Predictive density at a point --------------------------------------
 * The density of f(x) at a clicked point (docs/DESIGN.md §3.7): the exact
 * Rao-Blackwellised mixture on a grid spanning the posterior there, and the
 * raw joint samples for the histogram, next to the Laplace and EP
 * Gaussians of the same data (the compare overlays); for a Laplace / EP
 * model its Gaussian. */
typedef struct {
  SbModel *model;             /* reference */
  guint dim;
  double x[SB_MAX_PARAMETERS];
  guint64 generation;
} SbDensityInput;

SbDensityInput *sb_density_input_new (SbModel *model, guint dim, const double *x,
                                      guint64 generation);
void sb_density_input_free (SbDensityInput *input);
/* SbWorkerFunc: INPUT an SbDensityInput, the result a frozen SbDensityData
 * (free with sb_density_data_unref). */
gpointer sb_job_density (SbWorkerJob *job, gpointer input, GError **error);

/* ---- Replay --------------------------------------------------------------
 * The optimisation loop rebuilt from INPUT's log, with the stored
 * hyperparameters restored and the model a question uses set up
 * (sb_job_input_model: beyond the exact model, the stored sparse fit):
 * the first step of every job above, for jobs that live elsewhere (the
 * link diagnostic, sb-link-job.c; the recommendation). NULL with ERROR
 * (SB_ENGINE_ERROR) when the log does not fit the experiment, or
 * SB_FIT_ERROR when no model can serve it. Free with sg_bo_free. */
struct sg_bo *sb_job_replay (const SbJobInput *input, GError **error);
/* The engine's hyperparameters H as the session stores them (VALID, with
 * N_ANSWERS the answers they describe, LOG_EVIDENCE unknown). */
void sb_hyper_from_engine (const sg_hyper *h, guint dim, guint n_answers, SbHyper *out);

G_END_DECLS
