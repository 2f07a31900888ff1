/* sg-svgp-rows.h — the sparse variational model for every answer kind
 * (sg-data.h), for one long session or the population of a study, and
 * its Gaussian summary as pseudo-observations for the exact model.
 *
 * Likelihood. The answers are lowered as for the exact model (sg-data.h,
 * 001 eq. 22 and eq. 12), in the sparse form: probit row k
 *   t_k = z_k + w_k^T f(X) + e_k,   e_k ~ N(0, sigma_k^2),
 * says 0 < t_k < upper_k (upper = +inf but for ties), and numeric row r
 * says y_r = f(X_{c_r}) + N(0, noise_var_r). Paper 004's robust
 * likelihood (eqs. 3-5) is applied row by row: t_k is 004's g = f + eps,
 * the event H_k = [0 < t_k < upper_k] is reported with a flip
 * probability delta,
 *   p(row k | t_k) = (1 - delta)^{H_k} delta^{1 - H_k}.
 * As delta -> 0 the product over an answer's rows is the indicator of
 * the whole answer's event, i.e. the exact model's likelihood; delta > 0
 * is a lapse rate per row (learned, as in 004). Because log p is a sum
 * over rows, the ELBO needs only each row's marginal under q: the
 * correlation between the rows of one choice or ranking (their shared
 * option noise, sg-data.h's block covariance) does not enter it, only
 * each row's variance sigma_k^2 does. (A flip per answer would need an
 * MVN probability of each block and its derivatives; the per-row flip is
 * the one with a closed form.)
 *
 * Two row likelihoods, chosen by sg_svgp_rows_data.likelihood:
 *   PROBIT (default): the exact model's row itself, E_k = E_q[log P(0 <
 *     z_k + l_k + e_k < upper_k | l_k)] = E_q[log(Phi(alpha(l)) -
 *     Phi(beta(l)))] with l_k = w_k^T f, a one-dimensional expectation
 *     under q(l_k) = N(mu_k, nu_k) computed by a 20-node Gauss-Hermite rule
 *     (the standard sparse variational GP of Hensman, Matthews & Ghahramani
 *     2015 with these rows; its gradients are the rule's own). For the
 *     single-row answers (binary, duels, ties, failures, valid) this is
 *     the exact likelihood; for a choice or a ranking it is the product of
 *     the rows' marginal probabilities, which leaves out the correlation
 *     of their shared option noise (sg-data.h's block covariance).
 *   STEP: paper 004's per-row flip model below (delta learned), whose
 *     row terms have closed forms but which is a looser bound: measured
 *     against the exact posterior in tests/bench/results-scale.md.
 *
 * Variational posterior: sg_svgp's whitened q(v) = N(m, L L^T), u = f(Z) =
 * xi + Lk v (sg-svgp.h). For row k with options x_kj and coefficients
 * w_kj (at most two; sg-data.h):
 *   a_k = Lk^{-1} sum_j w_kj k(Z, x_kj),  kd_k = sum_jj' w_kj w_kj' k(x_kj, x_kj'),
 *   mu_k = a_k^T m,  nu_k = kd_k - a_k^T a_k + a_k^T L L^T a_k,
 *   q(t_k) = N(z_k + mu_k, s_k^2),  s_k^2 = nu_k + sigma_k^2,
 * and, for STEP, the ELBO (004 eq. 8, per row)
 *   E_k = log delta + log((1 - delta) / delta) P_k,
 *   P_k = Phi(alpha_k) - Phi(beta_k),  alpha_k = (z_k + mu_k) / s_k,
 *   beta_k = (z_k + mu_k - upper_k) / s_k  (Phi(beta) = 0 without ties);
 *   E_r = log N(y_r; mu_r, noise_var_r) - nu_r / (2 noise_var_r)  (numeric);
 *   ELBO = sum_k E_k + sum_r E_r - KL(q(v) || N(0, I)).
 * The constant prior mean xi enters as z_k += xi sum_j w_kj, y_r -= xi.
 * Gradients in m, L, delta and the kernel's log-hyperparameters are
 * exact (sg-svgp-rows.c).
 *
 * Studies (sg-hier.h). With the grouped kernel the inducing points are
 * population points (group -1): u = g(Z). A row of person p is on
 * f_p = g + h_p, and k((x, p), (z, -1)) = k_pop(x, z), so a_k sees g only
 * and kd_k - a_k^T a_k includes h_p's variance. q(h_p) is h_p's prior:
 * the bound is a valid ELBO of the whole hierarchical model, in which each
 * person's deviation acts as extra noise on their rows (its correlation
 * across one person's answers is not used for g). The bound cannot learn
 * k_ind (it would only shrink it), so the individual part is held. This
 * is the model whose ELBO fits a study's population kernel at any size
 * (sg_hier_sparse_fit); a study's questions use the cached population of
 * sg-hier.h instead, which keeps each person's h correlated across their
 * answers (measured: 11 % of test settings within 0.1 sd of the exact
 * model on a 5 x 40 study with this one, 100 % with the cache).
 *
 * Fitting: the inducing inputs are k-means centres of the settings
 * (sg_svgp_kmeans), then sg_svgp_train's Adam on minibatches of rows
 * when the kernel (or delta) is learned, then full-batch natural-gradient
 * steps (below), which make q the fixed point that the pseudo-
 * observations rely on.
 *
 * Sites and pseudo-observations. At a stationary point of the ELBO in
 * (m, L L^T) (Opper & Archambeau 2009; Khan & Lin 2017, "conjugate-
 * computation variational inference"):
 *   (L L^T)^{-1} = I + sum_k lambda_k a_k a_k^T,
 *   (L L^T)^{-1} m = sum_k a_k (g_k + lambda_k a_k^T m),
 *   g_k = dE_k/dmu_k,  lambda_k = -2 dE_k/dnu_k,
 * i.e. q(v) is the prior N(0, I) times one Gaussian site per row. The
 * natural-gradient step of sg_svgp_rows_refine sets q to the right-hand
 * sides (damped). The sites of any subset of the rows, summed
 * (sg_svgp_rows_sites: Lambda = sum lambda_k a_k a_k^T, eta = sum a_k
 * (g_k + lambda_k a_k^T m)), summarise what those rows say about u as a
 * Gaussian likelihood exp(eta^T v - v^T Lambda v / 2). Subtracting one
 * person's sites from all gives the others' (the cavity, as in EP).
 * sg_svgp_pseudo_from_sites writes that likelihood as numeric
 * pseudo-observations of f(Z) (Lambda = U D U^T; one row per positive
 * eigenvalue: c_j = Lk^{-T} U_j, value (U^T eta)_j / D_j + xi c_j^T 1,
 * noise 1 / D_j; directions with D_j <= 0, where sites of misfitted rows
 * outweigh the rest, are dropped), so that the exact SkewGP (sg-skewgp.h)
 * with the GP prior and these rows has exactly the posterior p(f | u)
 * q_summary(u): the sparse predictive. A long session's question
 * (sg_bo_set_summary) conditions f exactly on the answers a stored fit has
 * not seen plus the pseudo-observations of those it has; a study's cache
 * (sg-hier.h) writes its summary the same way (sg_svgp_pseudo_make).
 *
 * What is exact and what is not, for a session: the answers since the
 * stored fit, the prior and the truncated-Gaussian posterior given the
 * pseudo-observations are exact; what the earlier answers say is the
 * sparse model's (M inducing points, Gaussian q; for a choice or a
 * ranking the product of its rows' marginals; with STEP rows, per-row
 * flips), evaluated at the fit.
 */
#pragma once

#include "sg-common.h"
#include "sg-data.h"
#include "sg-fit.h"
#include "sg-kernel.h"
#include "sg-svgp.h"

#include <gsl/gsl_rng.h>

/* How a probit row enters the ELBO (see above). */
typedef enum {
  SG_SVGP_ROWS_PROBIT = 0,  /* E_q[log P(0 < t_k < upper_k | f)], the exact
                               model's row, by Gauss-Hermite quadrature     */
  SG_SVGP_ROWS_STEP,        /* paper 004's step likelihood with a flip
                               probability delta per row                    */
} sg_svgp_rows_likelihood;

/* Nodes of the Gauss-Hermite rule of SG_SVGP_ROWS_PROBIT. */
#define SG_SVGP_ROWS_GH_NODES 20

/* Inputs and lowered answers, borrowed from the caller. */
typedef struct {
  size_t dim;                /* coordinates of a point (d + 1 in a study)  */
  size_t n;                  /* inputs                                     */
  const double *X;           /* n x dim                                    */
  const sg_likelihood *lik;  /* the sparse form (sg_likelihood_build_sparse,
                                sg_hier_likelihood_build_sparse), lik->n = n */
  double mean;               /* constant prior mean xi                     */
  sg_svgp_rows_likelihood likelihood;   /* default (0): PROBIT             */
} sg_svgp_rows_data;

/* SG_OK if DATA is consistent: sparse rows, indices < n, positive sds,
 * finite inputs and values. */
sg_status sg_svgp_rows_check (const sg_svgp_rows_data *data);
/* Units the ELBO sums over: m_probit + m_numeric. */
size_t sg_svgp_rows_count (const sg_svgp_rows_data *data);

/* The ELBO above from the units ROWS[0 .. nb - 1] (probit rows 0 ..
 * m_probit - 1, then the numeric rows; NULL: all, exact) scaled by
 * count / nb, and its gradient (sg_svgp_get_params packing; NULL: value
 * only). Q's noise_sd is not used (each row has its own sd). WS from
 * sg_svgp_workspace_new (Q's dim and M, any batch). */
sg_status sg_svgp_rows_elbo (const sg_svgp *q, const sg_svgp_rows_data *data,
                             const size_t *rows, size_t nb, sg_svgp_workspace *ws,
                             double *elbo, double *grad);

typedef struct {
  size_t n_inducing;           /* at most this many (default 200)          */
  size_t kmeans_iterations;    /* Lloyd steps (default 25)                 */
  double delta_init;           /* (0, 1/2) (default 0.01)                  */
  size_t refine_iterations;    /* natural-gradient steps after Adam, or
                                  alone (below) (default 60)                */
  sg_svgp_train_options train; /* sg_svgp_train_options_default; for a
                                  grouped kernel the individual part is
                                  held whatever fix_kernel says            */
} sg_svgp_rows_options;

void sg_svgp_rows_options_default (sg_svgp_rows_options *opt);

/* Trains Q (sg_svgp_init'ed, any kernel) on DATA: Adam as sg_svgp_train,
 * then OPT->refine_iterations steps of sg_svgp_rows_refine. With the
 * kernel held (OPT->train.fix_kernel) and nothing else but q(v) to learn
 * (PROBIT rows, or STEP rows with fix_delta), the natural-gradient steps
 * alone: they converge to the same optimum (measured on 1,000 duels, M =
 * 200: 0.9 s cpu against 23 s with Adam first, both within 0.02 sd of the
 * exact model; tests/bench/results-scale.md). Q untouched on failure. */
sg_status sg_svgp_rows_train (sg_svgp *q, const sg_svgp_rows_data *data,
                              const sg_svgp_rows_options *opt, gsl_rng *rng,
                              const sg_progress *progress);
/* The whole recipe: Z = min(n_inducing, inputs) k-means centres of the
 * inputs' settings (a grouped kernel: the first dim - 1 coordinates,
 * and group -1), q = the prior, delta = delta_init, then
 * sg_svgp_rows_train. Q is initialised by the call. */
sg_status sg_svgp_rows_fit (const sg_kernel *kernel, const sg_svgp_rows_data *data,
                            const sg_svgp_rows_options *opt, gsl_rng *rng,
                            const sg_progress *progress, sg_svgp *q);

/* ITERATIONS natural-gradient steps in (m, L L^T) with the kernel and
 * delta held: the natural parameters move a fraction STEP (0, 1] of the
 * way to the right-hand sides of the fixed point above, full batch. Each
 * step costs O(count M^2 + M^3). Stops early (SG_OK) when the precision
 * cannot be factorised, keeping the last good q. */
sg_status sg_svgp_rows_refine (sg_svgp *q, const sg_svgp_rows_data *data,
                               size_t iterations, double step);

/* Adds the summed sites of the units ROWS[0 .. nb - 1] (NULL: all) at Q
 * to LAMBDA (M x M, symmetric) and ETA (M): the caller zeroes them first,
 * or passes sums to add to (or SIGN = -1 to subtract). */
sg_status sg_svgp_rows_sites (const sg_svgp *q, const sg_svgp_rows_data *data,
                              const size_t *rows, size_t nb, double sign,
                              double *lambda, double *eta);

/* Numeric pseudo-observations of f at the inducing points Z: row j says
 * sum_i C[j, i] f(Z_i) = y_j + N(0, noise_var_j). Owns its arrays. */
typedef struct {
  size_t dim, M;     /* Z: M x dim (a study's population points: group -1) */
  double *Z;
  size_t r;          /* rows, <= M                                          */
  double *C;         /* r x M                                               */
  double *y;         /* r                                                   */
  double *noise_var; /* r, > 0                                              */
} sg_svgp_pseudo;

/* The pseudo-observations of the Gaussian likelihood (LAMBDA, ETA) on Q's
 * whitened v, for a GP prior of constant mean MEAN (above). OUT is
 * initialised by the call. */
sg_status sg_svgp_pseudo_from_sites (const sg_svgp *q, const double *lambda,
                                     const double *eta, double mean,
                                     sg_svgp_pseudo *out);
/* The same for whitened coordinates v = Lk^{-1} (u - mean) of any M
 * points Z (M x DIM) with Lk = chol(k(Z, Z) + jitter) (sg-hier.h's
 * population cache). */
sg_status sg_svgp_pseudo_make (const double *Z, const double *Lk, size_t M, size_t dim,
                               const double *lambda, const double *eta, double mean,
                               sg_svgp_pseudo *out);
void sg_svgp_pseudo_clear (sg_svgp_pseudo *ps);
/* Appends PS to inputs X (n x dim) and a DENSE likelihood LIK on them:
 * *X_OUT (malloc'ed, (n + M) x dim) = [X; Z] and LIK_OUT (initialised)
 * = LIK's rows on the first n inputs plus PS's numeric rows on the last
 * M. For sg_skewgp_posterior_new. */
sg_status sg_svgp_pseudo_append (const sg_svgp_pseudo *ps, const double *X, size_t n,
                                 const sg_likelihood *lik, double **x_out,
                                 sg_likelihood *lik_out);

/* A long session's stored fit: the sparse model (sg_svgp_rows_fit, PROBIT
 * rows) of the first N_SEEN answers of DATA under HYPER's kernel, mean
 * and noise (a GP prior: HYPER's pseudo-points, if any, are not used),
 * and the pseudo-observations of all its sites, for sg_bo_set_summary.
 * OPT NULL = defaults (the kernel learned by the ELBO unless
 * OPT->train.fix_kernel). Q (may be NULL) receives the fit, whose kernel
 * holds the learned hyperparameters. OUT is initialised by the call. */
sg_status sg_svgp_rows_session_summary (const sg_hyper *hyper, const sg_data *data,
                                        size_t n_seen, const sg_svgp_rows_options *opt,
                                        gsl_rng *rng, const sg_progress *progress,
                                        sg_svgp *q, sg_svgp_pseudo *out);
