/* sg-laplace.h — Laplace approximation for GP models with probit (or
 * logistic) factors mixed with numeric observations.
 *
 * Paper 002 treats binary labels with the logistic link. Two of its
 * formulas are misprinted: eq. 286 must read (K^{-1} - W)^{-1} (its W is
 * the negative-definite Hessian of eq. 283, as in eqs. 284 and 287), and
 * the plug-in sigma(E f*) of eq. 295 is not the predictive probability:
 * sg_gauss_post_summaries averages the link over the Gaussian (R&W
 * eq. 3.25). Below, D = -(paper's W) >= 0 and W is the probit row matrix
 * of sg-data.h.
 *
 * Numeric rows are conditioned on exactly (sg-gaussian-post.h); the
 * Laplace approximation treats the probit rows, as Rasmussen & Williams
 * (2006) algorithms 3.1 (mode, evidence eq. 3.32), 3.2 (prediction) and
 * 5.1 (evidence gradient) in the row space: the Newton iteration runs on
 * u = t - E[t] with prior N(0, Kt), Kt = A K A^T, and B = I + D^{1/2} Kt
 * D^{1/2}, D the negative second derivatives of the row log-likelihoods.
 * For binary data A is a signed selection and this is R&W verbatim; for
 * preferences Kt = W K W^T couples the two duel inputs of each row.
 * A Newton step is halved while the objective
 * Psi = log p(y|u) - u^T Kt^{-1} u / 2 would decrease (as GPML's infLaplace).
 */
#pragma once

#include "sg-gaussian-post.h"

typedef struct {
  size_t max_iter;     /* Newton iterations, at least 1 (default 100)     */
  double tol;          /* > 0: converged when max_k |du_k| <= tol
                          (1 + max |u|) (default 1e-10)                   */
} sg_laplace_options;

void sg_laplace_options_default (sg_laplace_options *opt);

/* Warm start for repeated fits (hyperparameter search, one more answer):
 * the mode of the probit rows as alpha = Kt^{-1} u, in the order of the
 * lowering. Initialise with `sg_laplace_warm w = { 0 };`, free with
 * sg_laplace_warm_clear. A warm start from a data set with fewer or more
 * probit rows reuses the rows they share (observations are appended /
 * undone at the end); it is used only if its objective beats the cold
 * start u = 0. */
typedef struct {
  size_t m_probit;
  double *alpha;
} sg_laplace_warm;

void sg_laplace_warm_clear (sg_laplace_warm *warm);

/* Finds the mode and fills POST (initialised by the call; free with
 * sg_gauss_post_clear), including post->log_evidence (R&W eq. 3.32).
 * OPT (NULL: defaults), PROGRESS (polled every iteration) and WARM may be
 * NULL; WARM is updated on success.
 * SG_EINVAL for a malformed model, data (kernel dimension != data
 * dimension, bad noise) or options, SG_ENUMERIC when Newton does not converge within
 * opt->max_iter, SG_ECANCELLED, SG_ENOMEM. */
sg_status sg_laplace_posterior (const sg_approx_model *model,
                                const sg_data *data,
                                const sg_laplace_options *opt,
                                const sg_progress *progress,
                                sg_laplace_warm *warm, sg_gauss_post *post);

/* The Laplace approximation of log p(data | kernel) and, when GRAD is not
 * NULL, its gradient with respect to the kernel's log-hyperparameters
 * theta = (log variance, log l_1, ..., log l_d) (sg_kernel_n_params
 * entries; R&W alg. 5.1 including the implicit dependence of the mode,
 * plus the numeric part, R&W eq. 5.9, and the dependence of the probit
 * rows' conditioned prior mean on the kernel).
 * Errors as sg_laplace_posterior; outputs untouched on failure. */
sg_status sg_laplace_log_evidence (const sg_approx_model *model,
                                   const sg_data *data,
                                   const sg_laplace_options *opt,
                                   const sg_progress *progress,
                                   sg_laplace_warm *warm,
                                   double *log_evidence, double *grad);
