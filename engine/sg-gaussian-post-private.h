/* sg-gaussian-post-private.h — the row-space problem shared by the Laplace
 * and EP code (not part of the public engine API).
 *
 * Rows 0 .. m_probit-1 are the probit block, rows m_probit .. m-1 the
 * numeric block of the lowered likelihood (sg-data.h). For each row the
 * prior mean of t_k is b_k; the approximations work with u = t - b.
 */
#pragma once

#include "sg-gaussian-post.h"

typedef struct {
  size_t n, dim, m, m_probit;
  const double *X;  /* borrowed: the data's input table */
  double *A;        /* m x n */
  double *b;        /* m: prior mean of t_k */
  double *sigma;    /* m: probit scale (probit rows) */
  double *y;        /* m: observed value (numeric rows) */
  double *r;        /* m: noise variance (numeric rows) */
  double *K;        /* n x n prior covariance k(X, X) */
  double *Kt;       /* m x m: A K A^T */
} sg_rows;

/* Validates MODEL against DATA, lowers the data and forms A, b, Kt. */
int sg_rows_build (const sg_approx_model *model, const sg_data *data,
                   sg_rows *rows);
void sg_rows_clear (sg_rows *rows);

/* L = chol(I + diag(s) Kt diag(s)), m x m. */
int sg_rows_factor (const sg_rows *rows, const double *s, double *L);

/* alpha = nu - s .* B^{-1} (s .* (Kt nu)): Kt^{-1} times the posterior
 * mean of u for a Gaussian with site precisions s^2 and natural means nu
 * (R&W alg. 3.6 line 5). */
void sg_rows_alpha (const sg_rows *rows, const double *s, const double *L,
                    const double *nu, double *alpha);

/* Posterior covariance of u: Sigma = Kt - V^T V, V = L^{-1} diag(s) Kt. */
int sg_rows_posterior_cov (const sg_rows *rows, const double *s,
                           const double *L, double *Sigma);

/* Rp = diag(s) B^{-1} diag(s) (R&W alg. 5.1 line 7), m x m. */
int sg_rows_prec_term (const sg_rows *rows, const double *s, const double *L,
                       double *Rp);

/* dKt = A (d K / d theta_p) A^T for kernel parameter P. */
int sg_rows_kt_grad (const sg_rows *rows, const sg_kernel *kernel, size_t p,
                     double *dKt);

/* 0.5 alpha^T dKt alpha - 0.5 tr(Rp dKt): the explicit derivative of
 * either approximate log evidence (R&W eqs. 5.23 first part, 5.27). */
double sg_rows_explicit_grad (const sg_rows *rows, const double *alpha,
                              const double *Rp, const double *dKt);

/* Copies everything predictions need into POST (which it initialises). */
int sg_gauss_post_set (sg_gauss_post *post, const sg_approx_model *model,
                       const sg_rows *rows, const double *s, const double *L,
                       const double *alpha, double log_evidence,
                       int iterations);
