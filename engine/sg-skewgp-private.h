/* sg-skewgp-private.h — the posterior's layout, shared by the sg-skewgp*.c
 * files only (not installed, not for callers). See sg-skewgp.c for the
 * notation. */
#pragma once

#include "sg-skewgp.h"

struct sg_skewgp_posterior {
  sg_kernel kernel;
  double xi;            /* constant prior mean                              */
  size_t dim, n, s, ma, mr;
  size_t m;             /* s + ma: rows of t                                */
  size_t mh;            /* mr + m: rows of h = [y; t]                       */
  size_t nz;            /* n + s: inputs Z = [X; U]                         */
  double *Z;            /* nz x dim                                         */
  double *P;            /* mh x nz                                          */
  /* P in compressed rows when it is sparse (preferences, binary and
   * numeric rows touch one or two inputs each): row k holds the entries
   * p_col[j], p_val[j] for j in [p_row[k], p_row[k+1]). NULL when dense. */
  size_t *p_row, *p_col;
  double *p_val;
  double *mu_h;         /* mh: prior mean of h                              */
  double *y;            /* mr: observed numeric values                      */
  double *Lh;           /* mh x mh: Cholesky factor of S_hh                 */
  double jitter;        /* relative jitter the Cholesky needed              */
  double *r;            /* mr: Ly^{-1} (y - C xi)                           */
  double log_normal;    /* log N(y; C xi, C K C^T + R)                      */
  double *mu_t;         /* m: E[t | y]                                      */
  double *S_tt;         /* m x m: Cov[t | y]                                */
  double *upper;        /* m: the data say 0 < t < upper (+inf but ties)    */
  int intervals;        /* some upper is finite                             */
  double *gamma;        /* s                                                */
  double *Gamma;        /* s x s: prior L Kbar(U,U) L                       */
};

struct sg_skewgp_samples {
  size_t N, m, mh;
  size_t n_chains;  /* chains, in contiguous row blocks of T (sg-tmvn.h) */
  double *T;    /* N x m samples of t                                       */
  double *E;    /* mh x N: Lh^{-1} (h_j - mu_h), h_j = [y; t_j]             */
  double *eps;  /* N standard normal variates (remainder of marginals)      */
};

/* WQ (mh x b) = Lh^{-1} P K(Z, XS); V (b, may be NULL) = k(x,x) - |w|^2.
 * SCRATCH holds b * nz doubles. With a sparse P the product P K(Z, XS)
 * costs nnz(P) b instead of mh nz b. */
sg_status sg_skewgp_whiten_points (const sg_skewgp_posterior *p, const double *XS,
                                   size_t b, double *WQ, double *V, double *scratch);
/* The same from a kernel matrix KS = K(Z, XS) (nz x b) already computed. */
void sg_skewgp_whiten_kernel (const sg_skewgp_posterior *p, const double *Ks,
                              const double *XS, size_t b, double *WQ, double *V);
/* Its first step: PK (mh x b) = P KS, before the solve with Lh. */
void sg_skewgp_project_kernel (const sg_skewgp_posterior *p, const double *Ks,
                               size_t b, double *PK);

/* The fast_moments path of sg_skewgp_summarize (sg-skewgp-moments.c):
 * mean, sd and skewness of B points in batches of BS. */
sg_status sg_skewgp_summarize_moments (const sg_skewgp_posterior *post,
                                       const sg_skewgp_samples *samples,
                                       const double *XS, size_t b, size_t bs,
                                       int with_skew, const sg_progress *progress,
                                       sg_point_summary *res);
