/* sg-svgp-multi.h — sparse variational GP classification of C >= 2
 * classes with additive noise (paper 004 sec. III, Liu et al.).
 *
 * Model (004 eq. 11): C independent latent functions f^c ~ GP(0, k), one
 * kernel shared by all classes, and the label y in {0, .., C-1}. Two
 * likelihoods:
 *
 * PROBIT (004 sec. III-B, "GPC-II"; the step likelihood "GPC-I" is its
 * noise_sd -> 0 limit): internals g^c = f^c + eps^c, eps^c ~ N(0, sigma^2)
 * i.i.d., and the robust step likelihood (004 eq. 15)
 *   p(y | g) = (1 - delta)^{H} (delta / (C - 1))^{1 - H},
 *   H = [g^y > g^c for every c != y],
 * with a learned label-flip probability delta in (0, (C - 1) / C). With
 * q(g^c_i) = N(mu^c_i, nu^c_i + sigma^2) the ELBO is (004 eq. 18)
 *   sum_i [ P_i log(1 - delta) + (1 - P_i) log(delta / (C - 1)) ] - KL,
 *   P_i = int N(t; 0, 1) prod_{c != y_i} Phi((mu^y_i + s^y_i t - mu^c_i) / s^c_i) dt,
 *   s^c_i = sqrt(nu^c_i + sigma^2),
 * the probability that the observed class has the largest internal; the
 * one-dimensional integral is Gauss-Hermite quadrature with
 * SG_SVGP_MULTI_QUADRATURE nodes. Prediction (004 eq. 19):
 *   p(y* = c) = (1 - delta) P_c + delta / (C - 1) (1 - P_c)
 * with P_c the same integral at x* for class c. The P_c sum to one in
 * exact arithmetic (they are the probabilities of which internal is
 * largest); they are divided by their quadrature sum, so the returned
 * probabilities sum to one to rounding. With C = 2 this is exactly the
 * binary model of sg-svgp.h.
 *
 * SOFTMAX (004 sec. III-D, "GPCsm"): p(y | f) = exp(f^y) / sum_c exp(f^c),
 * written with Gumbel noise (004 eqs. 20-21); the Gumbel variable's
 * optimal variational factor (004 eq. 23) leaves the closed-form bound
 * (004 eq. 25)
 *   sum_i -log(1 + sum_{c != y_i} exp(mu^c_i - mu^y_i + (nu^c_i + nu^y_i) / 2)) - KL,
 * which by Jensen's inequality is at most E_q[log p(y | f)] - KL (so it
 * is a lower bound of the evidence). Prediction (004 eq. 26) averages the
 * softmax over q(f*) by Monte Carlo with SG_SVGP_MULTI_MC_DRAWS draws from
 * a fixed stream (the same for every call and point, so predictions are
 * deterministic); each draw's softmax sums to one, so their mean does.
 *
 * Variational posterior: M inducing inputs Z shared by the classes,
 * u^c = f^c(Z) = Lk v^c with q(v^c) = N(m^c, L^c L^c^T) (whitened, as in
 * sg-svgp.h), KL = sum_c KL(q(v^c) || N(0, I)). With a_i = Lk^{-1} k(Z, x_i):
 *   mu^c_i = a_i^T m^c,  nu^c_i = k(x_i, x_i) - a_i^T a_i + a_i^T L^c L^c^T a_i.
 * Training: k-means inducing inputs (sg_svgp_kmeans), then Adam on
 * minibatches (sg-adam.h) of (n / |B|) sum_{i in B} E_i - KL with exact
 * gradients in m^c, L^c and delta. The kernel is held as given: choose
 * its lengthscales beforehand (for standardised inputs sqrt(dim) is a
 * usable default).
 */
#pragma once

#include "sg-common.h"
#include "sg-kernel.h"

#include <gsl/gsl_rng.h>

#define SG_SVGP_MULTI_QUADRATURE 32
#define SG_SVGP_MULTI_MC_DRAWS 2000

typedef enum {
  SG_SVGP_MULTI_PROBIT = 0,   /* 004 sec. III-B (robust step + Gaussian noise) */
  SG_SVGP_MULTI_SOFTMAX,      /* 004 sec. III-D (GPCsm)                        */
} sg_svgp_multi_lik;

/* "probit" / "softmax" and back (SG_EINVAL for other names). */
const char *sg_svgp_multi_lik_name (sg_svgp_multi_lik lik);
sg_status sg_svgp_multi_lik_parse (const char *name, sg_svgp_multi_lik *lik);

/* Training rows, borrowed: X (n x dim), labels y_i in 0 .. n_classes - 1. */
typedef struct {
  size_t dim, n, n_classes;
  const double *X;
  const size_t *y;
} sg_svgp_multi_data;

/* SG_OK for consistent sizes, finite inputs, labels in range, C >= 2. */
sg_status sg_svgp_multi_data_check (const sg_svgp_multi_data *data);

/* The variational posterior; owns its arrays (sg_svgp_multi_clear).
 * Read-only queries may run on several threads at once. */
typedef struct {
  sg_svgp_multi_lik lik;
  sg_kernel kernel;    /* shared by the classes (a copy of its own)      */
  double noise_sd;     /* PROBIT: sigma of the additive noise             */
  double delta;        /* PROBIT: label-flip probability                 */
  size_t dim, M, C;
  double *Z;           /* M x dim inducing inputs                        */
  double *m;           /* C x M: whitened means, class by class          */
  double *L;           /* C x M x M lower: whitened covariance factors    */
  double *Lk;          /* M x M lower: chol(k(Z, Z) + jitter)            */
  double *W;           /* C x M: Lk^{-T} m^c, so mu^c(x) = k(x, Z) W_c    */
  double elbo;         /* full-data ELBO after training (NaN before)     */
  size_t iterations;   /* Adam steps taken by the last training          */
} sg_svgp_multi;

/* Q with q(v^c) = N(0, I) for every class. SG_EINVAL for bad sizes or
 * values (C < 2, M = 0, a grouped kernel, noise_sd <= 0 for PROBIT,
 * delta outside (0, (C - 1) / C) for PROBIT, non-finite Z), SG_ENOTPD,
 * SG_ENOMEM; Q untouched on failure. */
sg_status sg_svgp_multi_init (sg_svgp_multi *q, sg_svgp_multi_lik lik,
                              const sg_kernel *kernel, const double *Z, size_t M,
                              size_t n_classes, double noise_sd, double delta);
void sg_svgp_multi_clear (sg_svgp_multi *q);

/* Parameters in the optimiser's coordinates: m (C M), the lower
 * triangles of L^1 .. L^C row by row (C M (M + 1) / 2), and for PROBIT
 * eta with delta = ((C - 1) / C) / (1 + exp(-eta)). */
size_t sg_svgp_multi_n_params (const sg_svgp_multi *q);
void sg_svgp_multi_get_params (const sg_svgp_multi *q, double *params);
/* SG_EINVAL (non-finite) leaves Q untouched. */
sg_status sg_svgp_multi_set_params (sg_svgp_multi *q, const double *params);

/* The ELBO estimated from rows ROWS[0 .. nb - 1] of DATA (ROWS NULL: all
 * rows, the exact ELBO), (n / nb) sum_i E_i - KL, and its gradient in the
 * packed coordinates (GRAD may be NULL). SG_EINVAL for mismatched sizes,
 * SG_ENUMERIC for a non-finite value, SG_ENOMEM. */
sg_status sg_svgp_multi_elbo (const sg_svgp_multi *q, const sg_svgp_multi_data *data,
                              const size_t *rows, size_t nb, double *elbo, double *grad);

/* The marginals q(f^c) at NS points: MEAN and VAR are ns x C. */
sg_status sg_svgp_multi_latent (const sg_svgp_multi *q, const double *Xs, size_t ns,
                                double *mean, double *var);
/* Class probabilities at NS points (PROB ns x C, rows summing to one). */
sg_status sg_svgp_multi_predict (const sg_svgp_multi *q, const double *Xs, size_t ns,
                                 double *prob);

typedef struct {
  sg_svgp_multi_lik lik;       /* default PROBIT                           */
  size_t n_inducing;           /* at most this many, >= 1 (default 100)    */
  size_t kmeans_iterations;    /* Lloyd steps (default 25)                 */
  double noise_sd;             /* PROBIT: > 0 (default 1)                  */
  double delta_init;           /* PROBIT: in (0, (C - 1) / C) (default
                                  0.05)                                    */
  size_t batch;                /* minibatch rows >= 1 (default 256)        */
  size_t iterations;           /* Adam steps >= 1 (default 2000)           */
  double learning_rate;        /* > 0 (default 0.01)                       */
  double warmup_fraction;      /* share of the steps before delta moves,
                                  in [0, 1] (default 0.25; see sg-svgp.h)  */
  double max_seconds;          /* budget of the steps, >= 0 (0 = none):
                                  training ends after the step that
                                  reaches it, keeping what it learned      */
} sg_svgp_multi_options;

void sg_svgp_multi_options_default (sg_svgp_multi_options *opt);

/* The whole recipe: min(n_inducing, n) k-means centres of the inputs,
 * q(v^c) = N(0, I), delta = delta_init, Adam. On SG_OK Q is initialised
 * (sg_svgp_multi_clear it); SG_ECANCELLED when PROGRESS asks to stop. */
sg_status sg_svgp_multi_fit (const sg_kernel *kernel, const sg_svgp_multi_data *data,
                             const sg_svgp_multi_options *opt, gsl_rng *rng,
                             const sg_progress *progress, sg_svgp_multi *q);
