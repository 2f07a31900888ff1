/* sb-prior-job.h — the prior explorer's engine jobs.
 *
 * The prior explorer (ui/sb-prior-explorer.c) lets a user play with the
 * SkewGP_s prior of 000 section 4 / 001 eq. 11: kernel, lengthscale,
 * variance, s pseudo-points u_i with phases L_ii = +-1 and gamma_i. Every
 * change copies the controls into an SbPriorInput and submits a job to the
 * explorer's own SbWorker; a newer change supersedes the running job (the
 * worker's lanes and generations, sb-worker.h), so dragging a slider never
 * queues stale work and never blocks the main loop.
 *
 *   sb_prior_job_curves  (lane SB_WORKER_LANE_PLOT) prior sample paths,
 *       mean, 95% HPD band and the skewness statistic SS(x) on a grid
 *       (000 Figure 3), as an SbPlotSnapshot the plot toolkit draws.
 *       Route: sg_skewgp_prior_posterior (the prior as a posterior without
 *       data), truncated samples of the s pseudo-point events, summaries and
 *       sample paths; the mean and sd are replaced by the closed-form SUN
 *       moments (sg_sun_marginal_moments) where those exist.
 *   sb_prior_job_pair    (lane SB_WORKER_LANE_DENSITY) the bivariate SUN
 *       density on a grid (000 eq. 1, Figures 1-2): either of
 *       (f(x_a), f(x_b)) under the current prior, or one of the four SUNs
 *       of 000 Figure 2 with the figure's parameters; plus the Gaussian
 *       N_2(xi, Omega) drawn dashed in the figure. Exact for s <= 2; for
 *       s >= 3 a coarser grid and a 500-point QMC Phi_s (< 0.5% of the
 *       maximum density, see the .c file).
 *
 * A fixed seed (common random numbers) keeps the sample paths from jumping
 * between successive slider positions: only the prior changes.
 */
#pragma once

#include "sb-worker.h"
#include "sb-plot-data.h"

#include "sg-kernel.h"

G_BEGIN_DECLS

#define SB_PRIOR_MAX_S 4

typedef enum {
  SB_PRIOR_PAIR_POINTS = 0,   /* (f(x_a), f(x_b)) under the current prior  */
  SB_PRIOR_PAIR_FIGURE2_A1,   /* 000 Figure 2 (a1): s = 1, Delta = (.88, .61) */
  SB_PRIOR_PAIR_FIGURE2_A2,   /* (a2): s = 1, Delta = (.61, .88)              */
  SB_PRIOR_PAIR_FIGURE2_A3,   /* (a3): s = 2, Gamma_12 = .96                  */
  SB_PRIOR_PAIR_FIGURE2_A4,   /* (a4): s = 2, Gamma_12 = .33                  */
  SB_PRIOR_N_PAIRS,
} SbPriorPairMode;

/* Everything a job needs, copied from the controls (plain values). */
typedef struct {
  sg_kernel_type kernel;
  double lengthscale;               /* > 0                                 */
  double variance;                  /* sigma^2 > 0                         */
  double mean;                      /* constant location xi                */
  guint s;                          /* latent dimension, 0..SB_PRIOR_MAX_S */
  double pseudo[SB_PRIOR_MAX_S];    /* u_i                                 */
  double phase[SB_PRIOR_MAX_S];     /* L_ii, +1 or -1                      */
  double gamma[SB_PRIOR_MAX_S];     /* gamma_i                             */
  double x_lo, x_hi;                /* the plotted input range             */
  guint n_grid;                     /* curve grid points (default 161)     */
  guint n_samples;                  /* truncated samples (default 2000)    */
  guint n_paths;                    /* sample paths drawn (default 12)     */
  guint64 seed;
  SbPriorPairMode pair;
  double pair_x[2];                 /* x_a, x_b for SB_PRIOR_PAIR_POINTS   */
  guint n_pair_grid;                /* points per side (default 61)        */
} SbPriorInput;

/* The defaults: 000 Figure 3's setting (RBF, l = 0.3, sigma^2 = 1, xi = 0
 * on [0, 1]) with s = 2 pseudo-points at 0.3 and 0.7, phases (+1, -1) and
 * gamma = (-0.5, -0.5) (the figure's panel (c) kind of prior). */
void sb_prior_input_init (SbPriorInput *input);
SbPriorInput *sb_prior_input_copy (const SbPriorInput *input);
void sb_prior_input_free (SbPriorInput *input);
/* TRUE when A and B would give the same curves (resp. the same pair plot). */
gboolean sb_prior_input_equal_curves (const SbPriorInput *a, const SbPriorInput *b);
gboolean sb_prior_input_equal_pair (const SbPriorInput *a, const SbPriorInput *b);

/* SbWorkerFunc: INPUT an SbPriorInput, the result a frozen SbPlotSnapshot
 * (dim 1, parameter "x"; exact summaries = the prior's; sample paths);
 * free with sb_plot_snapshot_unref. */
gpointer sb_prior_job_curves (SbWorkerJob *job, gpointer input, GError **error);

/* The bivariate SUN on a grid. */
typedef struct {
  SbGrid2 *sun;          /* the SUN density                                */
  SbGrid2 *gauss;        /* N_2(xi, Omega) on the same grid                */
  double mean[2];        /* the SUN's mean (closed form; NaN if unknown)   */
  char *title;           /* e.g. "SUN of f(0.30), f(0.70)"                 */
  char *subtitle;        /* the parameters                                 */
  char *x_label, *y_label;
  guint64 generation;
} SbPriorPair;

void sb_prior_pair_free (SbPriorPair *pair);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPriorPair, sb_prior_pair_free)

/* SbWorkerFunc: INPUT an SbPriorInput, the result an SbPriorPair (free
 * with sb_prior_pair_free). */
gpointer sb_prior_job_pair (SbWorkerJob *job, gpointer input, GError **error);

const char *sb_prior_pair_mode_label (SbPriorPairMode mode);

G_END_DECLS
