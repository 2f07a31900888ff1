/* sg-gaussian-post-private.h — the row-space problem shared by the Laplace
 * and EP code (not part of the public engine API).
 *
 * The numeric block is Gaussian and is conditioned on exactly first
 * (GP regression, R&W alg. 2.1): with S = C K C^T + R = Ls Ls^T,
 *   beta = S^{-1} (y - C m0),  m1 = m0 + K C^T beta,
 *   K1 = K - Q^T Q,  Q = Ls^{-1} C K,
 * and log N(y; C m0, S) is the numeric part of the evidence. The probit
 * rows t = z + W f then have the prior N(b, Kt) with b = z + W m1 and
 * Kt = W K1 W^T = W K W^T - P^T P, P = Q W^T, and Laplace / EP run on
 * u = t - b ~ N(0, Kt) (rows 0 .. m-1 are the probit rows only).
 */
#pragma once

#include "sg-gaussian-post.h"

typedef struct {
  size_t n, dim, m, m_numeric;
  const double *X;  /* borrowed: the data's input table */
  double *K;        /* n x n prior covariance k(X, X) */
  /* probit block */
  double *A;        /* m x n: W */
  double *b;        /* m: E[t_k | numeric data] */
  double *sigma;    /* m: probit scales */
  double *Kt;       /* m x m: Cov[t | numeric data] (without probit noise) */
  /* numeric block */
  double *C;        /* m_numeric x n */
  double *Ls;       /* m_numeric x m_numeric: chol(C K C^T + R) */
  double *beta;     /* m_numeric */
  double *G;        /* m_numeric x n: Ls^{-1} C */
  double *P;        /* m_numeric x m: Ls^{-1} C K W^T */
  double *gamma;    /* n: C^T beta */
  double log_evidence_numeric;
} sg_rows;

/* Validates MODEL against DATA, lowers the data, conditions on the numeric
 * rows and forms the probit-row prior (b, Kt). SG_ENUMERIC if C K C^T + R
 * cannot be factorised. */
sg_status sg_rows_build (const sg_approx_model *model, const sg_data *data,
                         sg_rows *rows);
void sg_rows_clear (sg_rows *rows);

/* L = chol(I + diag(s) Kt diag(s)), m x m. */
sg_status sg_rows_factor (const sg_rows *rows, const double *s, double *L);

/* alpha = nu - s .* B^{-1} (s .* (Kt nu)): Kt^{-1} times the posterior
 * mean of u for a Gaussian with site precisions s^2 and natural means nu
 * (R&W alg. 3.6 line 5). */
void sg_rows_alpha (const sg_rows *rows, const double *s, const double *L,
                    const double *nu, double *alpha);

/* Posterior covariance of u: Sigma = Kt - V^T V, V = L^{-1} diag(s) Kt. */
sg_status sg_rows_posterior_cov (const sg_rows *rows, const double *s,
                                 const double *L, double *Sigma);

/* Rp = diag(s) B^{-1} diag(s) (R&W alg. 5.1 line 7), m x m. */
sg_status sg_rows_prec_term (const sg_rows *rows, const double *s, const double *L,
                             double *Rp);

/* The derivatives with respect to kernel parameter P (sg-kernel.h) of the
 * three things the kernel moves: the probit-row prior covariance
 * (dKt, m x m), its mean (db, m) and the numeric evidence (*dnum). */
typedef struct sg_rows_grad_work sg_rows_grad_work;
sg_status sg_rows_grad_work_new (const sg_rows *rows, sg_rows_grad_work **work);
void sg_rows_grad_work_free (sg_rows_grad_work *work);
sg_status sg_rows_prior_grad (const sg_rows *rows, const sg_kernel *kernel, size_t p,
                              sg_rows_grad_work *work, double *dKt, double *db,
                              double *dnum);

/* 0.5 alpha^T dKt alpha - 0.5 tr(Rp dKt): the explicit derivative of
 * either approximate log evidence (R&W eqs. 5.23 first part, 5.27). */
double sg_rows_explicit_grad (const sg_rows *rows, const double *alpha,
                              const double *Rp, const double *dKt);

/* Copies everything predictions need into POST (which it initialises). */
sg_status sg_gauss_post_set (sg_gauss_post *post, const sg_approx_model *model,
                             const sg_rows *rows, const double *s, const double *L,
                             const double *alpha, double log_evidence,
                             size_t iterations);
