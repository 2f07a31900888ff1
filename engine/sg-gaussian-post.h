/* sg-gaussian-post.h — Gaussian approximations of a GP posterior
 * (Laplace, EP) and what every surrogate must answer about them.
 *
 * Model (docs/DESIGN.md §3.2, sg-data.h): f ~ GP(prior_mean, k), observations
 * lowered into the rows of one stacked likelihood
 *
 *   probit rows   t_k = z_k + w_k^T f,  factor Phi(t_k / sigma_k)
 *                 (or the logistic 1 / (1 + exp(-t_k / sigma_k)), paper 002
 *                 eq. 269, with SG_LINK_LOGISTIC)
 *   numeric rows  t_k = c_k^T f,        factor N(y_k; t_k, noise_var_k)
 *
 * Numeric rows are Gaussian: the GP is conditioned on them exactly first
 * (GP regression, R&W alg. 2.1), and only the probit rows are
 * approximated. Both approximations work in the probit row space: with
 * t = z + W f ~ N(b, Kt) under the numeric-conditioned prior, the
 * likelihood depends on f only through u = t - b ~ N(0, Kt), so the
 * approximation is a Gaussian in u with a diagonal precision D added to
 * the prior (Laplace: D = -d^2 log p(y|u), EP: the site precisions).
 * Rasmussen & Williams (2006) algorithms 3.1, 3.2, 3.5, 5.1 with K
 * replaced by Kt.
 *
 * The approximate posterior at any inputs X* (R&W eqs. 3.21, 3.24, 3.60,
 * with the numeric conditioning written out; notation of
 * sg-gaussian-post-private.h, q* = Ls^{-1} C k(X, X*)):
 *   E[f(X*)]   = prior_mean + k(X*, X) (C^T beta + W^T alpha) - q*^T P alpha
 *   Cov[f(X*)] = k(X*, X*) - q*^T q* - V^T V,
 *   V = L^{-1} D^{1/2} (W k(X, X*) - P^T q*),
 * with L the Cholesky factor of B = I + D^{1/2} Kt D^{1/2}.
 *
 * Human answers (sg-data.h): preferences, k = 2 choices, confidence
 * levels and side bias lower to independent half-line rows and are
 * approximated exactly as above. Ties (a two-sided row 0 < t < upper) and
 * choices of k > 2 or rankings (rows whose noise is correlated) are
 * refused with SG_EINVAL: a factor Phi_k(.; Sigma) with a full Sigma is
 * not a product of one-dimensional sites, and treating its rows as
 * independent would be a different likelihood than the exact posterior
 * uses, so an overlay "exact vs Laplace vs EP" would compare two models.
 */
#pragma once

#include "sg-common.h"
#include "sg-data.h"
#include "sg-kernel.h"
#include "sg-summary.h"

typedef enum {
  SG_LINK_PROBIT = 0,
  SG_LINK_LOGISTIC,   /* Laplace only (paper 002), for sklearn comparison */
} sg_link;

/* Everything but the data: a GP prior with a constant mean, the noise
 * levels of the lowering (sg_likelihood_build) and the link of the
 * probit-block rows. */
typedef struct {
  sg_kernel kernel;
  double prior_mean;
  sg_noise noise;
  sg_link link;
} sg_approx_model;

/* SG_OK if the model is usable with data of dimension DIM. */
sg_status sg_approx_model_check (const sg_approx_model *model, size_t dim);

/* A Gaussian approximation of p(f | data), filled by sg_laplace_posterior
 * or sg_ep_posterior. Owns its arrays; free with sg_gauss_post_clear.
 * Read-only after construction, so several threads may query it. */
typedef struct {
  sg_kernel kernel;
  double prior_mean;
  sg_link link;
  double probit_sd;     /* for the class probability of a new point */
  size_t dim, n;        /* input dimension, training inputs */
  size_t m, m_numeric;  /* probit rows, numeric rows */
  double *X;            /* n x dim training inputs */
  double *A;            /* m x n probit row matrix W */
  double *sqrt_prec;    /* m: D^{1/2} */
  double *L;            /* m x m: lower Cholesky factor of B */
  double *alpha;        /* m: Kt^{-1} E[u] */
  double *G;            /* m_numeric x n: Ls^{-1} C */
  double *P;            /* m_numeric x m: Ls^{-1} C K W^T */
  double *weights;      /* n: C^T beta + W^T alpha */
  double *p_alpha;      /* m_numeric: P alpha */
  double log_evidence;  /* the method's approximation of log p(data) */
  size_t iterations;    /* Newton iterations (Laplace) or sweeps (EP) */
} sg_gauss_post;

void sg_gauss_post_clear (sg_gauss_post *post);

/* Marginal mean and variance at NS points XS (ns x dim). */
sg_status sg_gauss_post_predict (const sg_gauss_post *post, const double *Xs,
                                 size_t ns, double *mean, double *var);
/* Joint mean (ns) and covariance (ns x ns) at a few points. */
sg_status sg_gauss_post_joint (const sg_gauss_post *post, const double *Xs,
                               size_t ns, double *mean, double *cov);
/* The per-point summary (sg-summary.h) of a Gaussian marginal N(mu, v):
 * median = mean, equal-tailed = HPD interval mu -+ z sd with
 * z = Phi^{-1}((1 + LEVEL) / 2), skewness 0, class probability
 * E[link(f(x) / probit_sd)] (probit: Phi(mu / sqrt(probit_sd^2 + v))),
 * prob_better = P(f(x) > f(x_ref)) from the joint 2 x 2 covariance with
 * X_REF (NaN when X_REF is NULL; 0 at x_ref itself, where the difference
 * is identically zero). LEVEL in (0, 1). */
sg_status sg_gauss_post_summaries (const sg_gauss_post *post, const double *Xs,
                                   size_t ns, double level, const double *x_ref,
                                   sg_point_summary *out);
/* Approximate posterior density N(value; mu(x), v(x)) of f(X) at NV
 * values; SG_ENUMERIC where v(x) = 0 (a noise-free observation at x). */
sg_status sg_gauss_post_density (const sg_gauss_post *post, const double *x,
                                 size_t nv, const double *values, double *density);

/* E[1 / (1 + exp(-F))], F ~ N(mu, var), by Gauss-Legendre quadrature
 * (relative error ~1e-14); the logistic class probability. */
double sg_logistic_normal_mean (double mu, double var);
