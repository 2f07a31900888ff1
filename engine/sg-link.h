/* sg-link.h — a monotone function of one variable with an integrated
 * squared GP (ISGP, paper 003 "All your loss are belong to Bayes").
 *
 * Model (003 Definition 2, eqs. 8-11):
 *     g(x) = g0 + int_{x0}^{x} h(t)^2 dt,   g0 ~ N(mu, 1/gamma),
 *     h(t) = w^T phi(t),                   w ~ N(0, Lambda),
 * so g is non-decreasing for every w, and
 *     g(x) = g0 + w^T psi(x) w,   psi(x) = int_{x0}^{x} phi phi^T dt   (eq. 10, 11).
 * The basis is the trigonometric one of 003 sec. 4.3 (eq. 21): with
 * K = M/2 frequencies, c = 1 / half_width and u = x - x0,
 *     phi = (cos(pi c u), ..., cos(pi K c u), sin(pi c u), ..., sin(pi K c u)),
 *     lambda_m = b / a^m for the cosine and the sine of frequency m,
 * on the domain |x - x0| <= half_width (the basis is periodic beyond it).
 * The prior variance of h is k(0,0) = b (1 - a^{-K}) / (a - 1) (eq. 22),
 * and E[g(x)] = mu + k(0,0) (x - x0) (Theorem 5, eq. 12): the prior is
 * parameterised by that SLOPE and b is derived from it. psi(x) has the
 * closed form of 003 Appendix E (eqs. 36-38).
 *
 * Likelihoods (003 Appendix D.1):
 *   SG_LINK_OBS_GAUSSIAN   y ~ N(g(x), noise_sd^2)      (eq. 31-32, alpha = 1/noise_sd^2):
 *                          a monotone 1-D regression model;
 *   SG_LINK_OBS_BINARY     P(y = 1 | x) = s(g(x)), y in {0, 1} (eq. 33), the
 *                          monotone-link construction of eq. 5/17 with the
 *                          squashing s = Phi (SG_LINK_PROBIT) or the
 *                          logistic sigmoid (SG_LINK_LOGISTIC, the paper's
 *                          choice). With s = Phi the probit model
 *                          P = Phi(x / (sqrt2 sigma)) is the straight line
 *                          g(x) = x / (sqrt2 sigma): the link diagnostic
 *                          centres the prior on it (slope 1/(sqrt2 sigma)).
 *
 * Inference (003 sec. 4.1): the Laplace approximation of the posterior of
 * Gamma = (w, g0): the mode by a damped Newton iteration, covariance the
 * inverse of the negative Hessian at the mode (eq. 13), evidence eq. 28.
 * Predictions: E[g(x)] in closed form (Lemma 7, eq. 14-15, see the note
 * on its misprint in sg-link.c), Var[g(x)] in closed form (moments of a
 * quadratic form in a Gaussian, 003 ref. [42]), and credible bands from
 * draws of Gamma from the Laplace Gaussian, each draw monotone.
 *
 * Conventions: caller-owned structures and workspaces, sg_status codes,
 * outputs untouched on failure, randomness only from the caller's gsl_rng.
 */
#pragma once

#include "sg-common.h"
#include "sg-gaussian-post.h"   /* sg_link: SG_LINK_PROBIT / SG_LINK_LOGISTIC */

#include <gsl/gsl_rng.h>

#define SG_LINK_MAX_BASIS 64
#define SG_LINK_MAX_PARAMS (SG_LINK_MAX_BASIS + 1)

/* The ISGP prior. */
typedef struct {
  size_t n_basis;      /* M: even, 2..SG_LINK_MAX_BASIS (M/2 frequencies)  */
  double a;            /* > 1: eigenvalue decay lambda_m = b / a^m         */
  double slope;        /* > 0: k(0,0), the prior mean slope of g (eq. 12)  */
  double center;       /* x0: where the integral starts                    */
  double half_width;   /* > 0: the basis domain is x0 +- half_width        */
  double mu;           /* prior mean of g0 = g(x0)                         */
  double gamma;        /* > 0: prior precision of g0                       */
} sg_link_prior;

/* M = 32, a = 1.2 (003 sec. 5), slope 1, center 0, half_width 1, mu 0,
 * gamma 1. */
void sg_link_prior_default (sg_link_prior *prior);

/* Sets CENTER and HALF_WIDTH from N inputs X: the basis domain is
 * CENTER +- MARGIN x max |x_i - CENTER| (MARGIN >= 1; 2 keeps the data in
 * the middle half of the period, so h can vanish outside them; a domain of
 * at least 1e-9 is kept for constant inputs). With CENTER = NaN the
 * midrange of X is used. SG_EINVAL for n = 0, non-finite X or MARGIN < 1. */
sg_status sg_link_prior_fit_domain (sg_link_prior *prior, const double *x, size_t n,
                                    double center, double margin);

/* SG_OK if the prior is usable. */
sg_status sg_link_prior_check (const sg_link_prior *prior);

/* The eigenvalues (M entries, the order of the basis: K cosines then K
 * sines). */
void sg_link_eigenvalues (const sg_link_prior *prior, double *lambda);

/* The basis phi(x) (M entries). */
void sg_link_basis (const sg_link_prior *prior, double x, double *phi);

/* psi(x) = int_{x0}^{x} phi(t) phi(t)^T dt, M x M row-major, from the
 * closed forms 003 eqs. 36 (sine pairs), 37 (cosine pairs), 38 (mixed).
 * For x < x0 the integral runs backwards (psi is then negative
 * semidefinite), so g stays non-decreasing on the whole domain. */
void sg_link_psi (const sg_link_prior *prior, double x, double *psi);

typedef enum {
  SG_LINK_OBS_GAUSSIAN = 0,
  SG_LINK_OBS_BINARY,
} sg_link_obs;

typedef struct {
  sg_link_obs kind;
  sg_link squash;      /* BINARY: SG_LINK_PROBIT or SG_LINK_LOGISTIC       */
  double noise_sd;     /* GAUSSIAN: > 0                                    */
} sg_link_likelihood;

typedef struct {
  size_t max_iter;     /* Newton iterations, at least 1 (default 200)      */
  double tol;          /* converged when the Newton decrement
                          delta^2 / 2 = grad^T H^{-1} grad / 2, the
                          increase of the log posterior a full Newton step
                          predicts, is below tol (1 + |log posterior|)
                          with H the exact negative Hessian positive
                          definite; > 0 (default 1e-12)                    */
} sg_link_options;

void sg_link_options_default (sg_link_options *opt);

/* Scratch for fits with up to N_MAX observations and N_BASIS basis
 * functions: the psi matrices of the inputs (n_max x M^2 doubles) and the
 * Newton buffers. NULL on ENOMEM or bad sizes. */
typedef struct sg_link_workspace sg_link_workspace;
sg_link_workspace *sg_link_workspace_new (size_t n_max, size_t n_basis);
void sg_link_workspace_free (sg_link_workspace *ws);

/* A fitted model (the Laplace Gaussian). Plain data (about 70 kB): the
 * caller allocates it. */
typedef struct {
  sg_link_prior prior;
  sg_link_likelihood lik;
  size_t n;                                   /* observations             */
  size_t n_params;                            /* P = M + 1: (w, g0)       */
  double mode[SG_LINK_MAX_PARAMS];            /* Gamma^ = (w^, g0^)       */
  double cov[SG_LINK_MAX_PARAMS * SG_LINK_MAX_PARAMS];      /* H^{-1}     */
  double hess_chol[SG_LINK_MAX_PARAMS * SG_LINK_MAX_PARAMS]; /* lower L, H = L L^T */
  double log_joint;      /* log p(data, Gamma^) (normalised densities)    */
  double log_evidence;   /* Laplace: log_joint - log det H / 2 + P/2 log 2pi (eq. 28) */
  size_t n_iter;         /* Newton iterations taken                       */
  size_t n_gauss_newton; /* of which fell back to the Gauss-Newton matrix */
} sg_link_fit;

/* Fits the model to N pairs (X[i], Y[i]) (Y in {0, 1} for BINARY): the
 * Laplace approximation of 003 sec. 4.1. Newton on the log posterior
 * F(Gamma) = sum_i log p(y_i | g(x_i)) + log N(w; 0, Lambda)
 *            + log N(g0; mu, 1/gamma),
 * started from the ridge fit of h to sqrt(slope) on the inputs' range
 * (the prior mean line; w = 0 is a stationary point and cannot be used,
 * and w and -w give the same g). A step solves with the exact negative
 * Hessian when it is positive definite and with the Gauss-Newton matrix
 * (always positive definite: the likelihoods are log-concave in g)
 * otherwise; it is halved until F increases (Armijo). Convergence: see
 * sg_link_options. PROGRESS is polled every iteration.
 * OPT NULL = defaults.
 * Errors: SG_EINVAL (sizes, NaN, Y not 0/1, X outside the basis domain,
 * N > the workspace's n_max or a different M, bad prior, likelihood or
 * options),
 * SG_ENUMERIC (no convergence, or the converged point is not a maximum),
 * SG_ECANCELLED. FIT is written only on success. */
sg_status sg_link_fit_laplace (const sg_link_prior *prior,
                               const sg_link_likelihood *lik, const double *x,
                               const double *y, size_t n, const sg_link_options *opt,
                               const sg_progress *progress, sg_link_workspace *ws,
                               sg_link_fit *fit);

/* g(x) at the mode Gamma^. */
double sg_link_mode_value (const sg_link_fit *fit, double x);

/* Posterior mean and variance of g(x) under the Laplace Gaussian, in
 * closed form: E = g0^ + tr(psi S_ww) + w^T psi w^ (003 Lemma 7),
 * Var = S_00 + 2 tr((psi S_ww)^2) + 4 w^T psi S_ww psi w^ + 4 S_0w psi w^. */
void sg_link_moments (const sg_link_fit *fit, double x, double *mean,
                      double *var);

/* Summaries of g at one point. prob_* are s(g) for a BINARY fit (s
 * monotone, so the quantiles map through it) and NaN otherwise. */
typedef struct {
  double mean, sd;               /* closed form (sg_link_moments)          */
  double median, lower, upper;   /* equal-tailed, from the draws           */
  double prob_mean;              /* E[s(g(x))] over the draws              */
  double prob_median, prob_lower, prob_upper;
} sg_link_point;

/* Posterior of g on K points X: N_DRAWS draws of Gamma from the Laplace
 * Gaussian (Gamma^ + L^{-T} z, z ~ N(0, I) from RNG), each giving a
 * monotone g; LEVEL in (0, 1) the central credible level of the band.
 * DRAWS (NULL or k x n_draws, row i the draws at X[i]) receives them.
 * N_DRAWS = 0 fills only mean and sd (the rest NaN, RNG unused).
 * Errors: SG_EINVAL, SG_ENOMEM, SG_ECANCELLED (PROGRESS is polled per
 * point); OUT is then untouched, DRAWS may be partly written. */
sg_status sg_link_predict (const sg_link_fit *fit, const double *x, size_t k,
                           size_t n_draws, double level, gsl_rng *rng,
                           const sg_progress *progress, sg_link_point *out,
                           double *draws);

/* The squashing of a BINARY fit: Phi(g) or 1 / (1 + exp(-g)). */
double sg_link_squash (sg_link squash, double g);
