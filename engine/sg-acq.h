/* sg-acq.h — acquisition functions on posterior samples, and their
 * maximisation over a box (docs/DESIGN.md §3.8; paper 001 section 5; the formulas
 * of the reference implementation benavoli/SkewGP BO.py).
 *
 * Every acquisition is a function of N joint posterior samples at the
 * candidate x (and the reference x_r). With
 *     h_j = f_j(x) - f_j(x_r),   j = 1..N,
 * and the preference model of sg-data.h, P(x beats x_r | f) =
 * Phi(h / (sqrt2 sigma_p)) (001 eq. 4), they are (larger is better):
 *
 *   dueling UCB   upper end of the LEVEL (0.95) highest-density interval of
 *                 h (the shortest interval holding ceil(LEVEL N) sorted
 *                 samples), 001 sec. 5.2.1;
 *   EPI           E[Phi(h / (sqrt2 sigma_p))], the expected probability of
 *                 improvement;
 *   EIIG          k log p + IG, p = EPI clamped to [1e-15, 1 - 1e-15],
 *                 IG = H(p) - E[H(Phi(h / (sqrt2 sigma_p)))], H the binary
 *                 entropy (natural log) with the same clamp; k = 0.1
 *                 (001 sec. 5.2.1; the reference minimises -k log p - IG);
 *   Thompson      h of one posterior sample (the reference uses the last);
 *   BALD          H(E[Phi(f/sigma)]) - E[H(Phi(f/sigma))] on samples of
 *                 f(x) (001 eq. 43, Houlsby et al. 2011);
 *   numeric UCB   upper end of the LEVEL HPD interval of f(x);
 *   numeric EI    E[max(f(x) - f(x_r), 0)] = mean of max(h_j, 0): the
 *                 improvement over the incumbent's latent value, sampled
 *                 jointly with it (so noise in the incumbent is included);
 *   qEUBO         E[max_i f(x_i)] over a set of k points x_1..x_k shown
 *                 together (a best-of-k choice, or a duel whose two points
 *                 are both free): the expected utility of the best option
 *                 (Astudillo, Lin, Bakshy and Frazier, "qEUBO: a decision-
 *                 theoretic acquisition function for preferential Bayesian
 *                 optimization", AISTATS 2023, eq. 3; EUBO for k = 2), the
 *                 mean over the N joint samples of the largest of the k
 *                 values; it does not depend on the incumbent;
 *   win variance  Var_j[Phi(h_j / (sqrt2 sigma_p))]: the epistemic variance
 *                 of the probability that x wins the duel (the variance over
 *                 the posterior of P(x beats x_r | f), the Bernoulli noise
 *                 of the answer itself excluded). The challenger rule of
 *                 "maximally uncertain challenge" (Fauvel and Chalk,
 *                 "Efficient exploration in binary and preferential Bayesian
 *                 optimization", 2021, sec. 4: only epistemic uncertainty is
 *                 worth exploring) and the second point of dueling Thompson
 *                 sampling (Gonzalez, Dai, Damianou and Lawrence,
 *                 "Preferential Bayesian optimization", ICML 2017, sec. 4.3:
 *                 the point whose duel with the first has the largest
 *                 variance of the preference probability);
 *   Gaussian EI   (mu - eta) Phi(z) + sd phi(z), z = (mu - eta) / sd, and
 *   Gaussian UCB  mu + beta_root sd: the classic EI and GP-UCB of a Gaussian
 *                 f(x) ~ N(mu, sd^2), used by the hallucination believer
 *                 (Takeno, Nomura and Karasuyama, "Towards practical
 *                 preferential Bayesian optimization with skew Gaussian
 *                 processes", ICML 2023, sec. 5; sg-bo.h says how);
 *   safe UCB      numeric UCB - PENALTY * [P(f(x) >= h) < P_SAFE], with
 *                 P(f(x) >= h) the fraction of samples at or above h
 *                 (001 sec. 5.2.3: UCB plus a penalty 1000 where the
 *                 constraint is likely violated; P_SAFE = 0.7).
 */
#pragma once

#include "sg-common.h"

#include <gsl/gsl_rng.h>

/* Binary entropy -p log p - (1-p) log(1-p), p clamped to [1e-15, 1-1e-15]
 * as in the reference code (so H(0) = H(1) ~ 3.5e-14, never NaN). */
double sg_acq_binary_entropy (double p);

/* Upper and lower ends of the LEVEL highest-density (minimum-width)
 * interval of the N values V: among the windows of K = ceil(LEVEL N)
 * consecutive order statistics the narrowest (the first one on ties).
 * SCRATCH holds N doubles (V is not modified). Returns the upper end;
 * *LOWER receives the lower end when non-NULL. N >= 1, LEVEL in (0, 1]. */
double sg_acq_hpd (const double *v, size_t n, double level, double *scratch,
                   double *lower);

/* P(x beats x_r) averaged over samples: mean_j Phi(h_j / (sqrt2 sigma_p)). */
double sg_acq_epi (const double *h, size_t n, double probit_sd);
/* EIIG = k log p + IG (see above). */
double sg_acq_eiig (const double *h, size_t n, double probit_sd, double k);
/* The dueling information gain IG alone (the reference's 'IGAIN'). */
double sg_acq_info_gain (const double *h, size_t n, double probit_sd);
/* BALD on samples F of f(x): probabilities Phi(F_j / probit_sd). */
double sg_acq_bald (const double *f, size_t n, double probit_sd);
/* mean_j max(h_j, 0). */
double sg_acq_expected_improvement (const double *h, size_t n);
/* qEUBO: (1/N) sum_j max_i F[i N + j] for K rows of N joint samples F
 * (k x N, row i = the samples of f(x_i)). K >= 1, N >= 1. */
double sg_acq_qeubo (const double *f, size_t k, size_t n);
/* Var_j Phi(h_j / (sqrt2 sigma_p)) (the population variance over the N
 * samples, divisor N). */
double sg_acq_win_variance (const double *h, size_t n, double probit_sd);
/* E[max(f - eta, 0)] for f ~ N(MU, SD^2); max(MU - ETA, 0) when SD = 0. */
double sg_acq_gauss_ei (double mu, double sd, double eta);
/* MU + BETA_ROOT * SD. */
double sg_acq_gauss_ucb (double mu, double sd, double beta_root);
/* Fraction of samples with f_j >= threshold. */
double sg_acq_prob_at_least (const double *f, size_t n, double threshold);
/* UCB_LEVEL(f) - penalty when the fraction of f_j >= threshold is below
 * p_safe. SCRATCH: N doubles. */
double sg_acq_safe_ucb (const double *f, size_t n, double level,
                        double threshold, double p_safe, double penalty,
                        double *scratch);

/* ---- Maximisation over a box -------------------------------------------
 * maximise a(x) over lower <= x <= upper:
 *  1. N_CANDIDATES space-filling points: a Sobol sequence (GSL QRNG) with a
 *     random shift (Cranley-Patterson rotation, from RNG) so that
 *     different seeds see different points, plus any EXTRA points the
 *     caller adds (e.g. the incumbent and the training inputs);
 *  2. the best N_STARTS candidates are refined by NLopt's derivative-free
 *     bound-constrained BOBYQA (sample-based acquisitions are piecewise
 *     smooth, so no gradients), at most LOCAL_MAXEVAL evaluations each.
 * Deterministic given RNG's state. PROGRESS is polled every 16
 * evaluations; on cancel the function returns SG_ECANCELLED promptly. */
typedef double (*sg_acq_fn) (const double *x, void *user_data);

typedef struct {
  size_t n_candidates;   /* default 500                                 */
  size_t n_starts;       /* default 2                                   */
  size_t local_maxeval;  /* default 60 per start                        */
  double xtol_rel;       /* default 1e-4 (relative to the box width)    */
} sg_acq_max_options;

void sg_acq_max_options_default (sg_acq_max_options *opt);

/* X_BEST (dim) and *VALUE receive the maximiser found. EXTRA is n_extra x
 * dim (may be NULL). Points where FN returns NaN count as -inf.
 * Returns SG_OK, SG_EINVAL (dim = 0 or > 32, lower > upper, no points),
 * SG_ENOMEM, SG_ECANCELLED. */
sg_status sg_acq_maximize (size_t dim, const double *lower, const double *upper,
                           sg_acq_fn fn, void *user_data, const double *extra,
                           size_t n_extra, const sg_acq_max_options *opt,
                           gsl_rng *rng, const sg_progress *progress,
                           double *x_best, double *value);
/* The same with the candidates of step 1 scored by BATCH: VALUES (n) of
 * the N points X (n x dim), each what FN would give; for acquisitions
 * that are cheaper per point over many points at once (one matrix product
 * for all candidates instead of one pass over the posterior samples per
 * candidate). The refinement still calls FN. */
typedef void (*sg_acq_batch_fn) (const double *X, size_t n, void *user_data, double *values);
sg_status sg_acq_maximize_batched (size_t dim, const double *lower, const double *upper,
                                   sg_acq_fn fn, sg_acq_batch_fn batch, void *user_data,
                                   const double *extra, size_t n_extra,
                                   const sg_acq_max_options *opt, gsl_rng *rng,
                                   const sg_progress *progress, double *x_best,
                                   double *value);
