/* sb-link-job.h — the link diagnostic of a preference campaign (paper
 * 003): is the person's answering consistent with the probit link
 * the SkewGP model assumes?
 *
 *   session log -> sg_bo replay (sb_job_replay) -> exact SkewGP posterior
 *   -> d_i = E[f(a_i) - f(b_i)] for every answered duel (a = the first
 *      candidate, the current best), answer_i = 1 if a won
 *   -> monotone link P(answer = 1 | d) = Phi(g(d)), g an integrated
 *      squared GP (engine/sg-link.h) whose prior mean is the model's own
 *      probit link g(d) = d / (sqrt2 sigma) (sigma = probit_sd)
 *   -> the fitted link with its credible band on a grid, the probit
 *      reference Phi(d / (sqrt2 sigma)), and a verdict.
 *
 * Verdict: the probit model is called consistent with the answers when
 * Phi(d / (sqrt2 sigma)) lies inside the pointwise band on at least
 * SB_LINK_CONSISTENT_COVERAGE of the grid points within the range of the
 * duels' d. Pointwise bands of neighbouring points are strongly
 * correlated, so answers drawn from the probit link itself leave the band
 * in runs; 0.8 tolerates one such run (tests/test-link.c measures 0.91-1.0
 * coverage on probit data and 0.09 on answers four times steeper).
 *
 * Caveats shown with the result: d uses the same answers that fitted f,
 * so in-sample differences lean towards agreeing with the answers; and the
 * scale of f and probit_sd are confounded, so after a hyperparameter refit
 * (variance free, probit_sd fixed) a uniformly steeper or flatter link is
 * absorbed by the kernel variance (tests/data/link-session-decisive.json:
 * not consistent with the default hyperparameters, consistent after the
 * window's refit). Departures in shape are not absorbed: asymmetry, a bias
 * towards the first candidate (g(0) != 0), lapses (plateaus below 1).
 *
 * No GTK here: the `skewgp link` command uses the same code.
 */
#pragma once

#include "sb-jobs.h"
#include "sg-common.h"

G_BEGIN_DECLS

#define SB_LINK_CONSISTENT_COVERAGE 0.8

typedef struct {
  guint n_samples;     /* SkewGP posterior samples for the d_i (1000)    */
  guint n_draws;       /* Laplace draws of the link for the band (2000)  */
  guint n_grid;        /* points of the curve (121)                      */
  guint n_basis;       /* ISGP basis size M (32)                         */
  double level;        /* credible level of the band (0.95)              */
  guint64 seed;        /* RNG seed of both samplers (0)                  */
} SbLinkOptions;

void sb_link_options_init (SbLinkOptions *opt);

/* The answered duels of a campaign as (d, answer) pairs. */
typedef struct {
  guint n;
  double *d;           /* E[f(a)] - E[f(b)] under the exact SkewGP       */
  double *answer;      /* 1 if a (the first candidate) won, else 0       */
  double probit_sd;    /* sigma of the model: Phi((f_a - f_b)/(sqrt2 sigma)) */
} SbLinkDuels;

void sb_link_duels_clear (SbLinkDuels *duels);

/* Replays INPUT's log (sb_job_replay), builds the exact SkewGP posterior
 * with the session's hyperparameters and writes the duels' mean utility
 * differences to DUELS (initialised by the call). Errors: no answered
 * duel (G_IO_ERROR_INVALID_DATA), engine failures (SB_ENGINE_ERROR),
 * cancellation (G_IO_ERROR_CANCELLED). */
gboolean sb_link_duel_differences (const SbJobInput *input, const SbLinkOptions *opt,
                                   const sg_progress *progress, SbLinkDuels *duels,
                                   GError **error);

/* The fitted link on a grid. */
typedef struct {
  guint n;             /* duels */
  double *d, *answer;  /* copies of the data                             */
  double probit_sd;
  double level;
  guint n_grid;
  double *grid;        /* n_grid d values over the duels' range, padded  */
  double *p_mean;      /* E[Phi(g(d))]                                   */
  double *p_lower, *p_upper;   /* the credible band                      */
  double *p_probit;    /* Phi(d / (sqrt2 sigma))                         */
  double coverage;     /* fraction of grid points in [min d, max d] where
                          p_probit is inside the band                    */
  gboolean consistent; /* coverage >= SB_LINK_CONSISTENT_COVERAGE        */
  int direction;       /* +1: answers more decisive than probit (the
                          fitted link is steeper), -1: less, 0: neither  */
  char *verdict;       /* one sentence                                   */
  double log_evidence; /* Laplace evidence of the link fit (003 eq. 28)  */
  guint newton_iterations;
  double seconds;      /* whole computation                              */
} SbLinkResult;

SbLinkResult *sb_link_result_copy (const SbLinkResult *res);
void sb_link_result_free (SbLinkResult *res);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbLinkResult, sb_link_result_free)

/* Fits the link to N pairs (D, ANSWER) with the probit reference of
 * PROBIT_SD. Errors: bad data (G_IO_ERROR_INVALID_DATA: n = 0, NaN,
 * answers other than 0/1, all d equal to 0), engine failures
 * (SB_ENGINE_ERROR), cancellation (G_IO_ERROR_CANCELLED). */
SbLinkResult *sb_link_fit (const double *d, const double *answer, guint n,
                           double probit_sd, const SbLinkOptions *opt,
                           const sg_progress *progress, GError **error);

/* Worker job input: the copied session plus the options. */
typedef struct {
  SbJobInput *job;
  SbLinkOptions options;
} SbLinkInput;

SbLinkInput *sb_link_input_new (SbSession *session);
void sb_link_input_free (SbLinkInput *input);

/* SbWorkerFunc: INPUT an SbLinkInput, the result an SbLinkResult (free
 * with sb_link_result_free). Reports progress. */
gpointer sb_link_job (SbWorkerJob *job, gpointer input, GError **error);

G_END_DECLS
