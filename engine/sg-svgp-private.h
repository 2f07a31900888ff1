/* sg-svgp-private.h — the parts of sg-svgp.c that other sparse
 * variational models of the engine (sg-svgp-rows.c) share: the workspace,
 * the whitened parametrisation's helpers, the gradient assembly and the
 * Adam training loop. Not installed, not for callers of the engine. */
#pragma once

#include "sg-svgp-rows.h"
#include "sg-svgp.h"

struct sg_svgp_workspace {
  size_t dim, M, batch;
  double *Xb, *X2b, *yb;          /* batch x dim, batch x dim, batch */
  double *C, *C2;                 /* batch x M */
  double *A, *T, *AD, *Abar;      /* M x batch */
  double *mu, *nu, *kd, *gmu, *gnu;   /* batch */
  double *GS, *Lbar, *tmp, *tmp2; /* M x M */
  double *gm;                     /* M */
  double *gtheta;                 /* SG_SVGP_WS_PARAMS (dim) */
};

/* Room for the log-hyperparameters of any kernel on DIM coordinates (a
 * grouped one has 2 dim). */
#define SG_SVGP_WS_PARAMS(dim) (2 * (dim) + 2)

/* Lk = chol(k(Z, Z) + jitter v I). */
int _sg_svgp_factor_kzz (const sg_kernel *k, const double *Z, size_t M, double *Lk);
/* w = Lk^{-T} m. */
void _sg_svgp_update_w (sg_svgp *q);
/* Q's arrays for M inducing points of DIM coordinates (Q zeroed first). */
int _sg_svgp_alloc (sg_svgp *q, size_t M, size_t dim);
int _sg_svgp_copy (sg_svgp *dst, const sg_svgp *src);
/* KL(N(m, L L^T) || N(0, I)). */
double _sg_svgp_whitened_kl (const sg_svgp *q);

/* From C = k(rows, Z) (b x M) and kd (the rows' prior variances):
 * A = Lk^{-1} C^T (M x b), mu = A^T m, T = L^T A, nu = kd - |a|^2 + |T|^2. */
void _sg_svgp_latent_moments (const sg_svgp *q, size_t b, sg_svgp_workspace *ws);
/* With g_mu, g_nu of the chunk's rows: gm += A g_mu, GS += A diag(g_nu) A^T
 * (and AD = A diag(g_nu)). */
void _sg_svgp_chunk_accumulate (const sg_svgp *q, size_t b, sg_svgp_workspace *ws);
/* Abar = (dF/dC)^T (M x b) and Lbar -= Abar A^T (sg-svgp.c's header);
 * after _sg_svgp_chunk_accumulate; overwrites T. */
void _sg_svgp_chunk_abar (const sg_svgp *q, size_t b, sg_svgp_workspace *ws);
/* GRAD (packed as sg_svgp_get_params) from the accumulated gm, GS, Lbar,
 * gtheta and GDELTA = d(sum of row terms)/d delta, plus the KL's part;
 * WANT_THETA adds the k(Z, Z) part of the kernel gradient. */
void _sg_svgp_pack_gradient (const sg_svgp *q, double gdelta, int want_theta,
                             sg_svgp_workspace *ws, double *grad);

/* An ELBO over N units (rows): ROWS[0 .. nb-1] of them (NULL: all, nb =
 * N), scaled by N / nb, as sg_svgp_elbo. GRAD NULL: the value only;
 * WANT_THETA 0: the kernel part of GRAD may be left 0. */
typedef int (*_sg_svgp_elbo_fn) (const sg_svgp *q, const size_t *rows, size_t nb,
                                 void *user, sg_svgp_workspace *ws, int want_theta,
                                 double *elbo, double *grad);

int _sg_svgp_train_options_ok (const sg_svgp_train_options *opt);
/* sg_svgp_train for any ELBO of Q's parameters over N units: Adam on
 * minibatches with sg_svgp_train's rules (warm-up, held variance, fixed
 * delta or kernel), Q->elbo the full ELBO at the end; Q untouched on
 * failure. */
sg_status _sg_svgp_train_with (sg_svgp *q, size_t n, _sg_svgp_elbo_fn elbo_fn,
                               void *user, const sg_svgp_train_options *opt,
                               gsl_rng *rng, const sg_progress *progress,
                               sg_svgp_workspace *ws);

/* The SG_SVGP_ROWS_GH_NODES-node Gauss-Hermite rule: nodes X and weights W
 * with E[h(mu + sqrt(2 nu) x)] ~ sum_k W_k h(mu + sqrt(2 nu) X_k). */
int _sg_svgp_hermite_rule (double *x, double *w);
/* E_{l ~ N(mu, nu)}[log P(0 < off + l + e < upper)], e ~ N(0, s2), by
 * the rule (GH_X, GH_W), and its derivatives in mu and nu (those of the
 * rule itself). */
double _sg_svgp_probit_expect (double off, double s2, double upper, double mu, double nu,
                               const double *gh_x, const double *gh_w, double *dmu,
                               double *dnu);
