/* sg-svgp.h — sparse variational GP classification with additive noise
 * (paper 004, Liu et al., binary probit case), for data sets too large for
 * the exact SkewGP (O(m^3)) or Laplace / EP (O(n^3)).
 *
 * Model (paper 004 eqs. 3-5): a latent f ~ GP(0, k), an internal
 * g = f + eps with eps ~ N(0, sigma^2), and the robust step likelihood
 *   p(y | g) = (1 - delta)^{H(y g)} delta^{1 - H(y g)}          (004 eq. 5)
 * with a label-flip probability delta in (0, 1/2), learned. Marginally
 * (004 eq. 4) p(y = 1 | f) = delta + (1 - 2 delta) Phi(f / sigma): the
 * probit likelihood of sg-data.h with probit_sd = sigma, mixed with
 * label noise. sigma = 1 is the paper's probit case (GPC-II).
 *
 * Sparse variational posterior (004 sec. II-B1, eq. 6): M inducing values
 * u = f(Z) with q(u) = N(mu_u, S_u); here in the whitened form
 *   u = Lk v,  Kzz = Lk Lk^T,  q(v) = N(m, L L^T)  (L lower triangular),
 * i.e. mu_u = Lk m and S_u = Lk L L^T Lk^T. The ELBO is the same
 * functional of q(u) as in the paper; whitening only changes the
 * coordinates the optimiser walks in (better conditioned when the kernel
 * moves). For a training row with cross-covariance c_i = k(Z, x_i),
 * a_i = Lk^{-1} c_i:
 *   q(f_i) = N(mu_i, nu_i),  mu_i = a_i^T m,
 *   nu_i = k(x_i, x_i) - a_i^T a_i + a_i^T L L^T a_i,
 * q(g_i) = N(mu_i, nu_i + sigma^2) (004 eq. 7) and the closed-form,
 * row-separable ELBO (004 eq. 8)
 *   ELBO = sum_i [ Phi_i log(1 - delta) + (1 - Phi_i) log delta ]
 *          - KL(q(v) || N(0, I)),
 *   Phi_i = Phi(y_i mu_i / sqrt(nu_i + sigma^2)),
 *   KL = (tr(L L^T) + m^T m - M - log det(L L^T)) / 2.
 * Prediction (004 eq. 9): f(x*) ~ N(mu*, nu*) as above and
 *   P(y* = 1) = delta + (1 - 2 delta) Phi(mu* / sqrt(nu* + sigma^2)).
 *
 * Duels (preference data): a row may compare two inputs, with the latent
 * d_i = f(x_i) - f(x'_i) in place of f(x_i) (the paper's binary case
 * applied to differences): c_i = k(Z, x_i) - k(Z, x'_i) and
 * k(x_i, x_i) replaced by k(x, x) + k(x', x') - 2 k(x, x'). sg-data.h's
 * preference convention Phi((f(w) - f(l)) / (sqrt2 probit_sd)) is
 * sigma = sqrt2 probit_sd.
 *
 * Training: the inducing inputs Z are the k-means centres of the inputs
 * (k-means++ seeding, Lloyd iterations) and stay fixed; m, L, delta and,
 * unless fixed, the RBF / Matern log-hyperparameters are moved by Adam
 * (Kingma & Ba 2015) on the minibatch estimate of the ELBO,
 * (n / |B|) sum_{i in B} [...] - KL, with exact gradients (see sg-svgp.c).
 * The kernel variance is fixed by default (see sg_svgp_train).
 * The prior mean is zero.
 */
#pragma once

#include "sg-common.h"
#include "sg-data.h"
#include "sg-kernel.h"
#include "sg-summary.h"

#include <gsl/gsl_rng.h>

/* Training rows, borrowed from the caller. Row i is f(X_i) (binary) or,
 * when X2 is not NULL, the duel f(X_i) - f(X2_i); y_i = +1 or -1
 * (for a duel +1 means X_i won). */
typedef struct {
  size_t dim, n;
  const double *X;    /* n x dim */
  const double *X2;   /* NULL, or n x dim second inputs of duels */
  const double *y;    /* n labels +-1 */
} sg_svgp_data;

/* The variational posterior. Owns its arrays (sg_svgp_clear); read-only
 * queries may run on several threads at once. */
typedef struct {
  sg_kernel kernel;
  double noise_sd;     /* sigma of the additive noise (004 eq. 3) */
  double delta;        /* label-flip probability (004 eq. 5), (0, 1/2) */
  size_t dim, M;
  double *Z;           /* M x dim inducing inputs */
  double *m;           /* M: whitened variational mean */
  double *L;           /* M x M lower: whitened variational covariance L L^T */
  double *Lk;          /* M x M lower: chol(k(Z, Z) + jitter I) */
  double *w;           /* M: Lk^{-T} m, so mu* = k(x*, Z) w */
  double elbo;         /* full-data ELBO after sg_svgp_train (NaN before) */
  size_t iterations;   /* Adam steps taken by the last sg_svgp_train */
} sg_svgp;

/* k(Z, Z) gets jitter SG_SVGP_JITTER * variance on its diagonal (part of
 * the model, included in the gradients). */
#define SG_SVGP_JITTER 1e-6


/* Initialises Q with q(v) = N(0, I) (q(u) = the prior), the given kernel,
 * inducing inputs Z (M x kernel->dim, copied), noise sd and delta. The
 * kernel may be grouped (sg-kernel.h: inducing points then carry a group
 * coordinate, e.g. -1 for the population part; sg-svgp-rows.h).
 * SG_EINVAL for bad sizes / values (a kernel variance of 0, M = 0, delta outside (0, 1/2),
 * noise_sd <= 0, non-finite Z), SG_ENOTPD if k(Z, Z) cannot be factorised
 * (duplicate inducing points are tolerated through the jitter ladder of
 * sg_cholesky), SG_ENOMEM. Q is untouched on failure. */
sg_status sg_svgp_init (sg_svgp *q, const sg_kernel *kernel, const double *Z,
                        size_t M, double noise_sd, double delta);
void sg_svgp_clear (sg_svgp *q);

/* Checks a data set: sizes, finite inputs, labels +-1. */
sg_status sg_svgp_data_check (const sg_svgp_data *data);

/* M k-means centres (k-means++ seeding from RNG, then at most ITERATIONS
 * Lloyd steps, 0 for the seeding alone) of the inputs X_i (and X2_i for duels),
 * written to Z (M x dim). An emptied cluster is re-seeded at the point
 * farthest from its centre. SG_EINVAL if M = 0 or M exceeds the number of
 * input rows. */
sg_status sg_svgp_kmeans (const sg_svgp_data *data, size_t M, size_t iterations,
                          gsl_rng *rng, double *Z);

/* Parameters in the optimiser's coordinates, packed as
 *   m (M), L's lower triangle row by row (M (M + 1) / 2),
 *   eta with delta = 1 / (2 (1 + exp(-eta))),
 *   theta = (log variance, log l_1, ..., log l_d) (sg_kernel_get_params). */
size_t sg_svgp_n_params (const sg_svgp *q);
void sg_svgp_get_params (const sg_svgp *q, double *params);
/* Sets them and refactors k(Z, Z); SG_ENOTPD / SG_EINVAL (non-finite) on
 * failure, Q untouched then. */
sg_status sg_svgp_set_params (sg_svgp *q, const double *params);

/* Scratch memory for sg_svgp_elbo / sg_svgp_train: rows are processed in
 * chunks of at most BATCH. NULL on ENOMEM. */
typedef struct sg_svgp_workspace sg_svgp_workspace;
sg_svgp_workspace *sg_svgp_workspace_new (size_t dim, size_t M, size_t batch);
void sg_svgp_workspace_free (sg_svgp_workspace *ws);

/* The ELBO (004 eq. 8) estimated from the rows ROWS[0..nb-1] of DATA
 * (ROWS = NULL: all rows, nb ignored): (n / nb) sum_{i in rows} E_i - KL,
 * which is the exact ELBO when all rows are used. GRAD (may be NULL;
 * sg_svgp_n_params entries) receives its gradient in the packed
 * coordinates. SG_EINVAL for mismatched sizes / a workspace made for
 * another M or dim, or a grouped kernel (studies: sg-svgp-rows.h). */
sg_status sg_svgp_elbo (const sg_svgp *q, const sg_svgp_data *data,
                        const size_t *rows, size_t nb, sg_svgp_workspace *ws,
                        double *elbo, double *grad);

typedef struct {
  size_t batch;          /* minibatch rows, at least 1; >= n: full batch
                            (default 256)                                   */
  size_t iterations;     /* Adam steps, at least 1 (default 2000)           */
  double learning_rate;  /* Adam step size, > 0 (default 0.01)              */
  int fix_kernel;        /* 1: keep all kernel hyperparameters (default 0)  */
  double warmup_fraction;  /* share of the steps, in [0, 1], taken before
                              delta and the kernel move (default 0.25)      */
  int learn_variance;    /* 1: also move the kernel variance (see below)    */
  int fix_delta;         /* 1: keep delta (default 0)                       */
  double max_seconds;    /* wall-clock budget of the steps, >= 0 (0 = none,
                            the default): training ends after the step that
                            reaches it, with what it learned so far (not a
                            failure; Q->iterations counts the steps)       */
} sg_svgp_train_options;

void sg_svgp_train_options_default (sg_svgp_train_options *opt);

/* Maximises the ELBO over m, L, delta and the lengthscales with Adam (beta1 = 0.9,
 * beta2 = 0.999, eps = 1e-8) on minibatches drawn without replacement
 * (a new random permutation of the rows every epoch, from RNG), starting
 * from Q's current state. On success Q holds the final parameters and
 * Q->elbo the full-data ELBO. WS must have been made for Q's dim and M and
 * a batch >= the effective batch.
 * The kernel variance v stays fixed unless LEARN_VARIANCE: the ELBO
 * depends on v and sigma only through v / sigma^2 (z_i is scale-free and
 * the whitened KL does not involve v), and paper 004 (sec. III-C,
 * appendix B) shows it increases as sigma^2 decreases, i.e. as v grows:
 * learning v drives the model towards the step likelihood (v -> infinity,
 * observed: v ~ 10^3 within 2000 steps) with over-confident predictions.
 * Delta and the kernel are held for the first warmup_fraction x
 * iterations steps: while q(u)
 * is still near the prior (every Phi_i = 1/2) the ELBO pulls delta towards
 * its closed-form optimum mean(1 - Phi_i) = 1/2 (004 eq. 27), where the
 * likelihood term goes flat and q stays at the prior (seen on 20 rows:
 * delta 0.46, every P(y = 1) within 0.01 of 1/2), and its lengthscale
 * gradient favours over-smooth kernels (seen: one lengthscale 16x too
 * long, training accuracy 0.87 instead of 0.99 on test-svgp's
 * /svgp/train problem).
 * OPT NULL = defaults; PROGRESS (may be NULL) is polled every step.
 * SG_ECANCELLED, SG_ENUMERIC (a step gave a
 * non-finite ELBO or k(Z, Z) stopped being factorisable), SG_EINVAL;
 * Q is untouched on failure. */
sg_status sg_svgp_train (sg_svgp *q, const sg_svgp_data *data,
                         const sg_svgp_train_options *opt, gsl_rng *rng,
                         const sg_progress *progress, sg_svgp_workspace *ws);

/* The whole recipe: min(n_inducing, input rows) k-means centres,
 * q(v) = N(0, I), delta = delta_init, then sg_svgp_train. OPT NULL =
 * defaults. Q is initialised by the call (sg_svgp_clear it after SG_OK only). */
typedef struct {
  size_t n_inducing;           /* at most this many inducing points, at
                                  least 1 (default 100)                     */
  size_t kmeans_iterations;    /* Lloyd steps (default 25)                 */
  double noise_sd;             /* > 0 (default 1: 004's probit case)       */
  double delta_init;           /* in (0, 1/2) (default 0.05)               */
  sg_svgp_train_options train; /* sg_svgp_train_options_default            */
} sg_svgp_options;

void sg_svgp_options_default (sg_svgp_options *opt);
sg_status sg_svgp_fit (const sg_kernel *kernel, const sg_svgp_data *data,
                       const sg_svgp_options *opt, gsl_rng *rng,
                       const sg_progress *progress, sg_svgp *q);

/* sg_svgp_fit on the preference observations of DATA (sg-data.h): row i
 * is the duel winner - loser with y = +1, noise_sd = sqrt2 * PROBIT_SD
 * (sg-data.h's convention; OPT's noise_sd is ignored); at most
 * min(n_inducing, number of distinct inputs) inducing points. SG_EINVAL
 * if DATA has an observation of another kind or none. */
sg_status sg_svgp_fit_preferences (const sg_kernel *kernel, double probit_sd,
                                   const sg_data *data,
                                   const sg_svgp_options *opt, gsl_rng *rng,
                                   const sg_progress *progress, sg_svgp *q);

/* Latent marginals mu*, nu* of f at NS points XS (ns x dim). */
sg_status sg_svgp_predict (const sg_svgp *q, const double *Xs, size_t ns,
                           double *mean, double *var);
/* The same for duels: d = f(Xs_i) - f(Xs2_i). */
sg_status sg_svgp_predict_duel (const sg_svgp *q, const double *Xs,
                                const double *Xs2, size_t ns, double *mean,
                                double *var);
/* Joint q of f at NS points: MEAN (ns) and COV (ns x ns). */
sg_status sg_svgp_joint (const sg_svgp *q, const double *Xs, size_t ns,
                         double *mean, double *cov);
/* 004 eq. 9: delta + (1 - 2 delta) Phi(mean / sqrt(var + sigma^2)). */
double sg_svgp_class_probability (const sg_svgp *q, double mean, double var);

/* Per-point summaries (sg-summary.h) of the Gaussian marginals, as
 * sg_gauss_post_summaries: median = mean, intervals mu -+ z sd with
 * z = Phi^{-1}((1 + LEVEL) / 2), skewness 0, class_probability by 004
 * eq. 9 (so it includes delta), prob_better = P(f(x) > f(x_ref)) from the
 * joint q of the pair (NaN when X_REF is NULL). */
sg_status sg_svgp_summaries (const sg_svgp *q, const double *Xs, size_t ns,
                             double level, const double *x_ref,
                             sg_point_summary *out);
