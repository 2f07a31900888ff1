/* sb-playground-job.h — the classification playground's engine job.
 *
 * The playground (ui/sb-playground.c) lets a person place class labels
 * on a 1-D line or a 2-D square and compares, on a grid over the
 * domain, the exact SkewGP posterior (001 Theorem 3.3 with s = 0: a GP
 * prior and the probit likelihood, whose posterior is a SUN, 000 sec. 5)
 * with its Laplace and EP approximations. Every edit copies the points
 * into an SbPlaygroundInput and submits sb_playground_job to the
 * window's worker (sb-worker.h): a newer edit supersedes the running job
 * and its result is dropped.
 *
 * Two classes make one binary model. Three classes make one model per
 * class, that class against the rest (000 sec. 7.2), for every method,
 * and the class probabilities P(c) = p_c / sum_k p_k of the one-vs-rest
 * probabilities p_k (as `skewgp classify` does); steps 1-3 below run for
 * each of them, step 4 and the 1-D checks only with two classes.
 *
 * The job, on a worker thread:
 *   1. hyperparameters: the fixed values of the input, or (fit = TRUE)
 *      each method's own type-II maximum likelihood (sg_fit): the exact
 *      evidence (001 eq. 39) for SkewGP, the Laplace and EP evidences for
 *      their posteriors, as in 000 Figure 6;
 *   2. the exact posterior (sg_skewgp_posterior_new), N samples of its
 *      truncated part (sg_skewgp_sample) and per-cell summaries
 *      (sg_skewgp_summarize): mean, the smoothed 95% HPD band
 *      (sb-smooth-hpd.h: it does not step from cell to cell), skewness and the
 *      predictive class probability E[Phi(f(x))] (Rao-Blackwellised over
 *      the Gaussian remainder, i.e. Monte Carlo only in the truncated
 *      part; 000 Corollary 2 gives the same number as a ratio of orthant
 *      probabilities, sg_skewgp_class_probability_exact);
 *   3. Laplace and EP (sg_laplace_posterior, sg_ep_posterior) and their
 *      closed-form summaries (sg_gauss_post_summaries);
 *      in 1-D also 000 Corollary 2 at a few check cells;
 *   4. on request, BALD (001 eq. 43, sg_acq_bald) at every grid cell from
 *      samples of f(x) under the exact posterior, and its maximiser.
 */
#pragma once

#include "sb-worker.h"

#include "sb-plot-data.h"
#include "sg-summary.h"

G_BEGIN_DECLS

#define SB_PLAYGROUND_MAX_POINTS 500
/* Pseudo-points of the exact method's SkewGP prior (000 Figure 7: s = 2). */
#define SB_PLAYGROUND_MAX_S 2
/* Check cells of the exact formula (1-D, at most this many labels). */
#define SB_PLAYGROUND_N_CHECK 9
#define SB_PLAYGROUND_CHECK_MAX_LABELS 120
/* Classes: two (one binary model) or three (one-vs-rest). */
#define SB_PLAYGROUND_MAX_CLASSES 3

typedef struct {
  double x[2];         /* x[1] unused in 1-D                              */
  guint label;         /* the class, < n_classes; with two classes 1 is
                          the binary label +1 and 0 is -1                */
} SbPlaygroundPoint;

typedef struct {
  guint dim;                   /* 1 or 2                                    */
  double lower[2], upper[2];   /* the domain (a box)                        */
  guint n_classes;             /* 2 or SB_PLAYGROUND_MAX_CLASSES            */
  guint n_points;
  SbPlaygroundPoint *points;   /* owned                                     */
  gboolean fit;                /* each method maximises its own evidence    */
  double lengthscale;          /* kernel (RBF) values when fit is off, and  */
  double variance;             /*   the start of the fits when it is on     */
  /* The exact method's prior: a GP (s = 0) or a SkewGP_s (001 eq. 11,
   * 000 eq. 14) with pseudo-points U (s x dim), phases +1 and gamma;
   * fixed values, or the start of the fit (which then frees U and gamma
   * too). Laplace and EP always use the GP prior. */
  guint s;
  double pseudo_points[SB_PLAYGROUND_MAX_S * 2];
  double gamma[SB_PLAYGROUND_MAX_S];
  gboolean laplace, ep;        /* compute these approximations too          */
  gboolean bald;               /* compute BALD and its maximiser (two
                                  classes only)                             */
  guint n_grid;                /* 1-D: points; 2-D: points per side         */
  guint n_samples;             /* exact posterior samples (N)               */
  guint64 seed;
  guint64 generation;          /* echoed in the result                      */
} SbPlaygroundInput;

/* A playground input with no points, two classes, the domain [LOWER,
 * UPPER] (DIM entries each), lengthscale 1, variance 1, Laplace and EP
 * on, no fit, no BALD, 160 grid points in 1-D / 36 per side in 2-D,
 * N = 2000, seed 1. */
SbPlaygroundInput *sb_playground_input_new (guint dim, const double *lower,
                                            const double *upper);
SbPlaygroundInput *sb_playground_input_copy (const SbPlaygroundInput *input);
void sb_playground_input_free (SbPlaygroundInput *input);
/* Appends a point of class LABEL (clamped into the domain); FALSE when
 * full or LABEL >= input->n_classes. */
gboolean sb_playground_input_add (SbPlaygroundInput *input, const double *x,
                                  guint label);
/* Number of grid cells: n_grid in 1-D, n_grid^2 in 2-D. Cell c is at
 * sb_playground_input_cell (c): in 2-D row j = c / n_grid (x[1]) holds
 * n_grid cells i = c % n_grid (x[0]), the layout of SbGrid2. */
guint sb_playground_input_n_cells (const SbPlaygroundInput *input);
void sb_playground_input_cell (const SbPlaygroundInput *input, guint c,
                               double *x);

/* One binary model of a method: its hyperparameters and evidence. */
typedef struct {
  double lengthscale[2];       /* hyperparameters used (fitted or fixed)    */
  double variance;
  guint s;                     /* the exact method's SkewGP prior: s, U     */
  double pseudo_points[SB_PLAYGROUND_MAX_S * 2];  /* (s x dim) and gamma,  */
  double gamma[SB_PLAYGROUND_MAX_S];              /* fitted or fixed       */
  double log_evidence;         /* the model's log evidence at them (NaN
                                  when not computed)                        */
} SbPlaygroundFit;

typedef struct {
  gboolean ok;                 /* the method produced summaries             */
  char *error;                 /* why not (NULL when ok or not requested)   */
  /* Its binary models: one with two classes; with three, model c is
   * class c against the rest. */
  guint n_models;
  SbPlaygroundFit fit[SB_PLAYGROUND_MAX_CLASSES];
  /* n_models blocks of n_cells summaries of each model's latent (NULL
   * unless ok): block m, cell i at summary[m * n_cells + i]. */
  sg_point_summary *summary;
  /* n_cells x n_classes predictive class probabilities, each row summing
   * to one (NULL unless ok): two classes (1 - p, p) with p the model's
   * P(y = 1); three the normalised one-vs-rest probabilities. */
  double *prob;
} SbPlaygroundMethod;

typedef struct {
  guint64 generation;
  SbPlaygroundInput *input;    /* a copy of what was computed               */
  guint n_classes;             /* input->n_classes                          */
  guint n_cells;
  SbPlaygroundMethod method[SB_N_POSTERIOR_METHODS];  /* exact, Laplace, EP        */
  double *bald;                /* n_cells values, or NULL                   */
  guint bald_cell;             /* the maximiser's cell                      */
  double bald_x[2];            /* and its coordinates                       */
  double bald_max;
  /* 1-D: the exact predictive probability by 000 Corollary 2 (a ratio of
   * orthant probabilities, sg_skewgp_class_probability_exact) at a few
   * check cells, against which the sampled curve can be judged. */
  guint n_check;
  guint check_cell[SB_PLAYGROUND_N_CHECK];
  double check_prob[SB_PLAYGROUND_N_CHECK];
  double check_error[SB_PLAYGROUND_N_CHECK];   /* its error estimate */
  double ess;                  /* effective sample size of the exact chain
                                  (the smallest over its models)            */
  double seconds;              /* wall-clock time of the job                */
} SbPlaygroundResult;

void sb_playground_result_free (SbPlaygroundResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPlaygroundResult, sb_playground_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPlaygroundInput, sb_playground_input_free)

/* SbWorkerFunc: INPUT an SbPlaygroundInput, the result an
 * SbPlaygroundResult (free with sb_playground_result_free). Fails only
 * when the exact posterior cannot be computed; a Laplace or EP failure is
 * reported in its SbPlaygroundMethod. Cancellable at every engine loop. */
gpointer sb_playground_job (SbWorkerJob *job, gpointer input, GError **error);

/* Runs the same computation on the calling thread (JOB may be NULL: no
 * progress, no cancellation); for tests and the CLI-style screenshots. */
SbPlaygroundResult *sb_playground_compute (SbWorkerJob *job,
                                           const SbPlaygroundInput *input,
                                           GError **error);

G_END_DECLS
