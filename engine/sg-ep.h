/* sg-ep.h — expectation propagation for GP models with probit factors
 * mixed with numeric observations.
 *
 * Rasmussen & Williams (2006) algorithm 3.5 (sequential EP, rank-one
 * updates, posterior recomputed from the sites after every sweep) and
 * 3.6 (prediction), in the row space of sg-gaussian-post.h: each affine
 * probit row Phi((z_k + w_k^T f) / sigma_k) is a one-dimensional Gaussian
 * site on u_k = t_k - E[t_k] with precision tau_k and natural mean nu_k.
 * Moment matching (R&W eqs. 3.58, 3.59) for the cavity N(mc, vc):
 *   x = (b_k + mc) / sqrt(sigma_k^2 + vc),  h = phi(x) / Phi(x),
 *   tau_new = g / (sigma_k^2 + vc (1 - g)),  g = h (x + h),
 *   nu_new  = tau_new mc + (1 + tau_new vc) h / sqrt(sigma_k^2 + vc),
 * the first written so that it stays positive and exact far in the tails.
 * Numeric rows are Gaussian and are conditioned on exactly first
 * (sg-gaussian-post.h); EP runs on the probit rows only.
 *
 * Damping: site <- damping * new + (1 - damping) * old. Convergence: the
 * largest change of any probit site parameter over a sweep,
 * max(|d tau| / (1 + tau), |d nu| / (1 + |nu|)), is below tol.
 *
 * Log evidence (R&W eq. 3.65, written for sites exp(nu u - tau u^2 / 2) C_k):
 *   log Z_EP = sum_k log C_k - sum_k log L_kk + nu^T mu / 2,
 * with the zeroth-moment condition for each probit site
 *   log C_k = log Zhat_k + log(1 + tau_k vc_k) / 2 - mu_k^2 / (2 Sigma_kk)
 *             + mc_k^2 / (2 vc_k),   Zhat_k = Phi(x_k),
 * plus the exact numeric part log N(y; C m0, C K C^T + R). Gradient:
 * R&W eq. 5.27, 0.5 tr((alpha alpha^T - Rp) dKt), plus the numeric part
 * and h(x_k) / sqrt(sigma_k^2 + vc_k) times the derivative of the probit
 * rows' conditioned prior mean.
 * Only the probit link is supported.
 */
#pragma once

#include "sg-gaussian-post.h"

typedef struct {
  size_t max_sweeps;   /* at least 1 (default 200)                        */
  double damping;      /* in (0, 1] (default 1: undamped)                 */
  double tol;          /* > 0 (default 1e-9)                              */
} sg_ep_options;

void sg_ep_options_default (sg_ep_options *opt);

/* Warm start: the probit sites of a previous fit (rows in the order of the
 * lowering; a data set with more or fewer rows reuses the shared prefix).
 * Initialise with `sg_ep_warm w = { 0 };`, free with sg_ep_warm_clear. If
 * EP does not converge from the warm start it is restarted from zero sites. */
typedef struct {
  size_t m_probit;
  double *tau, *nu;
} sg_ep_warm;

void sg_ep_warm_clear (sg_ep_warm *warm);

/* Runs EP and fills POST (initialised by the call; sg_gauss_post_clear),
 * including post->log_evidence. OPT (NULL: defaults), PROGRESS (polled
 * every sweep) and WARM may be NULL; WARM is updated on success.
 * SG_EINVAL for a malformed model, data or options, or a logistic link;
 * SG_ENUMERIC when EP does not converge within opt->max_sweeps;
 * SG_ECANCELLED; SG_ENOMEM. */
sg_status sg_ep_posterior (const sg_approx_model *model, const sg_data *data,
                           const sg_ep_options *opt,
                           const sg_progress *progress, sg_ep_warm *warm,
                           sg_gauss_post *post);

/* The EP approximation of log p(data | kernel) and, when GRAD is not NULL,
 * its gradient in theta = (log variance, log l_1, ..., log l_d) (exact at
 * the EP fixed point, so accurate to about opt->tol). */
sg_status sg_ep_log_evidence (const sg_approx_model *model, const sg_data *data,
                              const sg_ep_options *opt,
                              const sg_progress *progress, sg_ep_warm *warm,
                              double *log_evidence, double *grad);
