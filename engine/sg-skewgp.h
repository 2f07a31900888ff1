/* sg-skewgp.h — the exact SkewGP posterior (paper 001 sections 2-4).
 *
 * Prior (001 eq. 11, 000 eq. 14): f ~ SkewGP_s(xi, K, Delta, gamma, Gamma)
 * with constant mean xi, kernel K (variance sigma^2), s pseudo-points U,
 * phases L = diag(+-1), Kbar = K / sigma^2,
 *     Gamma = L Kbar(U,U) L,   Delta(X) = Kbar(X,U) L.
 * Equivalently (001 sec. 2.2): f ~ GP(xi, K) conditioned on the s
 * noise-free events  L_ii (f(u_i) - xi) / sigma + gamma_i > 0.  s = 0 is a GP.
 *
 * Likelihood: the lowered sg_likelihood (sg-data.h): probit rows
 * P(0 < z + W f + e < upper), e ~ N(0, Sigma) with Sigma block diagonal
 * (001 eq. 22 with a full Sigma; upper = +inf except for ties), and
 * numeric rows N(y; C f, noise_var).
 *
 * Posterior (docs/DESIGN.md §3.3; the same SUN as 001 Lemma 2 + Lemma 1 =
 * Theorem 3.3, see sg-skewgp-sun.h): stack the latent vector
 *     t = [ L (f(U) - xi) / sigma + gamma ;  z + W f(X) + e ],  e ~ N(0, Sigma)
 * (m = s + m_probit rows); the data say 0 < t < upper (upper = +inf for
 * the pseudo-point rows and all rows but ties). (t, f, y) is jointly
 * Gaussian. Conditioning on the numeric values y gives
 *     t | y ~ N(mu_t, S_tt),   truncated to 0 < t < upper,
 * and, for any points X*, f(X*) | t, y is Gaussian with a mean linear in t
 * and a covariance that does not depend on t (001 eq. 8, the additive
 * representation). So samples of t are drawn once (sg_tmvn: exact HMC by
 * default, or lin-ess) and reused for every set of test points: one GEMM
 * per batch of points.
 *
 * Log marginal likelihood (001 Corollaries 1-3, eq. 39):
 *     log p(data) = log N(y; C xi, C K C^T + R) + log Phi_m(mu_t; S_tt)
 *                   - log Phi_s(gamma; Gamma),
 * where Phi_m(mu; S) = P(0 < t < upper), t ~ N(mu, S) (sg_mvn_prob: a
 * rectangle probability; an orthant without ties).
 *
 * Threading: a posterior and a sample set are immutable after creation and
 * may be read from several threads at once. Randomness only from the
 * gsl_rng the caller passes. Functions that allocate scratch do so per call
 * and return SG_ENOMEM when that fails; outputs are untouched on failure.
 */
#pragma once

#include "sg-common.h"
#include "sg-data.h"
#include "sg-kernel.h"
#include "sg-mvn.h"
#include "sg-summary.h"
#include "sg-tmvn.h"

#include <gsl/gsl_rng.h>

/* The SkewGP_s prior. Arrays are borrowed (the caller keeps them alive
 * while a function that takes the prior runs; a posterior copies them). */
typedef struct {
  sg_kernel kernel;
  double mean;                  /* constant location xi                    */
  size_t s;                     /* latent dimension; 0 = GP prior          */
  const double *pseudo_points;  /* s x kernel.dim, row-major (U)           */
  const double *phases;         /* s entries, each +1 or -1 (diag L)       */
  const double *gamma;          /* s entries                               */
} sg_skewgp_prior;

/* A GP prior (s = 0) with the given kernel and mean. */
void sg_skewgp_prior_gp (sg_skewgp_prior *prior, const sg_kernel *kernel,
                         double mean);
/* SG_OK if the prior is usable: valid kernel, finite mean/gamma, phases
 * +-1, finite pseudo-points. */
sg_status sg_skewgp_prior_check (const sg_skewgp_prior *prior);

typedef struct sg_skewgp_posterior sg_skewgp_posterior;

/* Builds the posterior for inputs X (n x kernel.dim, row-major; n = lik->n)
 * and the lowered likelihood LIK. Cost O((n+s)^2 (m + m_r) + (m + m_r)^3).
 * Returns SG_OK, SG_EINVAL (sizes, bad prior), SG_ENOTPD, SG_ENOMEM. */
sg_status sg_skewgp_posterior_new (const sg_skewgp_prior *prior, const double *X,
                                   const sg_likelihood *lik,
                                   sg_skewgp_posterior **out);
void sg_skewgp_posterior_free (sg_skewgp_posterior *post);
/* The prior itself as a "posterior" with no data (n = 0, no likelihood
 * rows): t is then the s pseudo-point events alone, truncated to t > 0, so
 * sg_skewgp_sample, sg_skewgp_sample_paths, sg_skewgp_summarize and
 * sg_skewgp_density give prior sample paths and prior summaries (000
 * Figure 3; the prior explorer). The evidence is exactly 1. */
sg_status sg_skewgp_prior_posterior (const sg_skewgp_prior *prior,
                                     sg_skewgp_posterior **out);

/* Sizes: n inputs, s pseudo-points, m = s + m_probit truncated rows,
 * m_numeric numeric rows, dim. */
size_t sg_skewgp_posterior_n_latent (const sg_skewgp_posterior *post); /* m */
size_t sg_skewgp_posterior_dim (const sg_skewgp_posterior *post);
/* The truncated Gaussian of t given y: mean (m) and covariance (m x m),
 * borrowed pointers valid while POST lives. */
const double *sg_skewgp_posterior_t_mean (const sg_skewgp_posterior *post);
const double *sg_skewgp_posterior_t_cov (const sg_skewgp_posterior *post);

/* ---- Log marginal likelihood ------------------------------------------ */

typedef struct {
  double log_ml;        /* log p(data) (001 eq. 39)                         */
  double error;         /* error estimate of log_ml (from sg_mvn log_error) */
  double log_normal;    /* log N(y; C xi, C K C^T + R), 0 without numerics  */
  double log_phi_m;     /* log Phi_m(mu_t; S_tt) = log P(0 < t < upper | y) */
  double log_phi_s;     /* log Phi_s(gamma; Gamma) (prior normaliser)        */
  int exact;            /* 1 when both probabilities were closed forms      */
} sg_skewgp_evidence;

/* The log evidence of a posterior already built. W is an sg_mvn workspace
 * for dimension >= m (NULL: allocated per call); OPT NULL = defaults. */
sg_status sg_skewgp_posterior_log_evidence (const sg_skewgp_posterior *post,
                                            sg_mvn_workspace *w,
                                            const sg_mvn_options *opt,
                                            sg_skewgp_evidence *res);
/* Only the log evidence for given prior + likelihood, without building the
 * predictive machinery (for hyperparameter fitting; pass
 * opt->deterministic = 1 for common random numbers across calls). */
sg_status sg_skewgp_log_evidence (const sg_skewgp_prior *prior, const double *X,
                                  const sg_likelihood *lik, sg_mvn_workspace *w,
                                  const sg_mvn_options *opt, sg_skewgp_evidence *res);

/* The batch lower bound of 001 Prop. 1 (eq. 42):
 *   Phi_m(mu_t; S_tt) >= sum_i Phi_{|B_i|}(mu_B_i; S_B_i) - (b - 1)
 * over a partition of the m rows of t into blocks of at most BATCH rows
 * (consecutive rows, or a random partition when RNG is non-NULL). Writes
 * the bound on Phi_m to *BOUND and the corresponding bound on log p(data)
 * (-inf when the bound is <= 0, i.e. useless) to *LOG_ML_BOUND. */
sg_status sg_skewgp_posterior_batch_bound (const sg_skewgp_posterior *post,
                                           size_t batch, gsl_rng *rng,
                                           sg_mvn_workspace *w,
                                           const sg_mvn_options *opt,
                                           double *bound, double *log_ml_bound);

/* ---- Samples of t, then anything at any points ------------------------ */

typedef struct {
  sg_tmvn_options tmvn;  /* the truncated-Gaussian sampler: defaults are
                            sg_tmvn_options_default with method =
                            SG_TMVN_EXACT_HMC, thin = 1, n_chains =
                            SG_SKEWGP_DEFAULT_CHAINS (why: see
                            sg_skewgp_sample_options_default)             */
} sg_skewgp_sample_options;

#define SG_SKEWGP_DEFAULT_CHAINS 2

void sg_skewgp_sample_options_default (sg_skewgp_sample_options *opt);

typedef struct sg_skewgp_samples sg_skewgp_samples;

/* Draws N posterior samples of t (N(mu_t, S_tt) restricted to t > 0, by
 * the sg_tmvn sampler of OPT->tmvn: exact HMC with the defaults, lin-ess
 * if asked) and N standard normal variates used for the Gaussian remainder
 * of marginal summaries. When m = 0 (Gaussian posterior) no chain runs.
 * OPT NULL = defaults. PROGRESS is polled by the chains. */
sg_status sg_skewgp_sample (const sg_skewgp_posterior *post, size_t n_samples,
                            const sg_skewgp_sample_options *opt, gsl_rng *rng,
                            const sg_progress *progress, sg_skewgp_samples **out);
void sg_skewgp_samples_free (sg_skewgp_samples *samples);
size_t sg_skewgp_samples_count (const sg_skewgp_samples *samples);
/* The samples of t, N x m row-major (borrowed); with several chains,
 * chain k holds the contiguous rows [k N / c, (k + 1) N / c). */
const double *sg_skewgp_samples_t (const sg_skewgp_samples *samples);
size_t sg_skewgp_samples_n_chains (const sg_skewgp_samples *samples);
/* Effective sample size: N / (largest integrated autocorrelation time over
 * the m coordinates of t, sg_mcmc_iat_max over the chains). N when m = 0. */
sg_status sg_skewgp_samples_ess (const sg_skewgp_samples *samples, double *ess);

/* Joint posterior samples of f at B points XS (b x dim): OUT is b x N
 * (row i = the N samples of f(XS_i)). The Gaussian remainder is drawn
 * jointly for the B points from RNG, so differences such as
 * f(x) - f(x_r) have the right distribution. Meant for a few points
 * (O(b^3) for the remainder, O(b N) Gaussian draws); for plot paths use
 * sg_skewgp_sample_paths. */
sg_status sg_skewgp_joint_samples (const sg_skewgp_posterior *post,
                                   const sg_skewgp_samples *samples,
                                   const double *XS, size_t b, gsl_rng *rng,
                                   double *out);

/* The joint samples of sg_skewgp_joint_samples at [XS_c; REF] (b = 2) or
 * at XS_c alone (REF NULL, b = 1), for each of N_POINTS points XS_c, as an
 * acquisition search over candidates needs them: FN (c, F, USER_DATA)
 * receives point c's b x N samples (valid during the call). The remainder
 * uses the same normal variates G (b x N, the caller's common random
 * numbers) for every point, exactly as sg_skewgp_joint_samples does with
 * an RNG restarted at the same state, and gives the same samples up to
 * the rounding of the products. The latent part, W_Q(XS)^T E, is one
 * matrix product per block of points instead of one pass over the mh x N
 * samples per point. */
typedef void (*sg_skewgp_point_fn) (size_t c, const double *F, void *user_data);
sg_status sg_skewgp_joint_samples_each (const sg_skewgp_posterior *post,
                                        const sg_skewgp_samples *samples,
                                        const double *XS, size_t n_points,
                                        const double *ref, const double *G,
                                        sg_skewgp_point_fn fn, void *user_data);

/* The Gaussian f(x) | t = t_J given the stored sample J (< N) of the
 * latent t (and the numeric data): MEAN[i] = E[f(XS_i) | y, t_J] and VAR[i]
 * = Var[f(XS_i) | y, t] (the remainder variance r0 of docs/DESIGN.md §3.3 step 3,
 * the same for every sample) at B points XS. A GP given a "hallucinated"
 * latent vector: the believer model of Takeno et al. 2023 (sg-bo.h).
 * SG_EINVAL, SG_ENOMEM. */
sg_status sg_skewgp_conditional (const sg_skewgp_posterior *post,
                                 const sg_skewgp_samples *samples, size_t j,
                                 const double *XS, size_t b, double *mean, double *var);
/* The same for every stored sample at once: MEAN (b x N) row i holds
 * E[f(XS_i) | y, t_j] for j = 0 .. N-1, VAR (b) the remainder variances,
 * and COV (b x b, NULL: not wanted) the remainder covariance
 * K(XS, XS) - W^T W of the B points (its diagonal is VAR). So f(XS) given
 * the data is the equal-weight mixture over j of N(MEAN[., j], COV):
 * P(f(x) >= h) = mean_j Phi((MEAN[i, j] - h) / sqrt(VAR[i])) integrates
 * the remainder exactly (Rao-Blackwellised), and conditioning the
 * Gaussian part on one more measurement at XS_k is the textbook update
 * with COV's column k, the latent samples held fixed (safe mode's
 * expanders, sg-bo.h). SG_EINVAL, SG_ENOMEM. */
sg_status sg_skewgp_conditional_all (const sg_skewgp_posterior *post,
                                     const sg_skewgp_samples *samples, const double *XS,
                                     size_t b, double *mean, double *var, double *cov);

/* Sample paths for plots: like sg_skewgp_joint_samples, but only for the K
 * stored samples whose indices (< N) are listed in WHICH; OUT is b x K.
 * The remainder covariance of a fine grid is numerically singular; it is
 * factorised by Cholesky with jitter or, failing that, by an
 * eigendecomposition with the round-off eigenvalues clipped at zero. */
sg_status sg_skewgp_sample_paths (const sg_skewgp_posterior *post,
                                  const sg_skewgp_samples *samples,
                                  const double *XS, size_t b, const size_t *which,
                                  size_t k, gsl_rng *rng, double *out);

/* Which fields sg_skewgp_summarize fills (others are set to NaN). */
enum {
  SG_SUMMARY_MOMENTS    = 1 << 0,  /* mean, sd, skewness                      */
  SG_SUMMARY_QUANTILES  = 1 << 1,  /* median, lower, upper                    */
  SG_SUMMARY_HPD        = 1 << 2,  /* hpd_lower, hpd_upper                    */
  SG_SUMMARY_CLASS_PROB = 1 << 3,  /* class_probability                       */
  SG_SUMMARY_PROB_BETTER = 1 << 4, /* prob_better (needs a reference point)   */
  SG_SUMMARY_ALL = 0x1f,
};

typedef struct {
  unsigned fields;          /* SG_SUMMARY_* mask (default SG_SUMMARY_ALL)     */
  double level;             /* credible level in (0, 1) (default 0.95)        */
  const double *reference;  /* x_r (dim) for prob_better, or NULL             */
  size_t batch;             /* points per GEMM batch (default 256)            */
  double probit_sd;         /* class_probability = E[Phi(f(x) / probit_sd)],
                               the predictive P(label = +1) (default 1)      */
  size_t n_threads;         /* threads sharing the points (default 1; 0 and 1
                               = the calling thread only). Results do not
                               depend on it; PROGRESS is called from the
                               calling thread only                           */
  int fast_moments;         /* nonzero, with fields == SG_SUMMARY_MOMENTS: the
                               map path for large grids (sg-skewgp-moments.c).
                               Mean and sd are the sample mean and sd of the
                               full-sample path to round-off, computed from
                               the first two sample moments of t (O(m^2) per
                               point instead of O(N m)); the skewness comes
                               from a low-rank expansion of the field with an
                               exact fallback where the expansion misses
                               more than 1e-4 of a point's variance (error
                               vs the full-sample statistic measured below
                               0.01, tests/bench/results-skewgp.md). One
                               thread; default 0 (the sample path).
                               SG_SUMMARY_FAST_MEAN_SD: mean and sd only
                               (skewness NaN), about a third of the cost   */
} sg_summary_options;

/* Values of sg_summary_options.fast_moments. */
enum {
  SG_SUMMARY_FAST_MOMENTS = 1,   /* mean, sd, skewness (expansion)            */
  SG_SUMMARY_FAST_MEAN_SD = 2,   /* mean and sd only                          */
};

void sg_summary_options_default (sg_summary_options *opt);

/* Marginal summaries at B points XS (b x dim) into OUT[b].
 * Per point, f_j = xi + a(x)^T (t_j - mu) + sqrt(v(x)) eps_j, j = 1..N,
 * with the stored t samples and eps variates. Moments, class probability
 * and P(f(x) > f(x_r)) are Rao-Blackwellised (the Gaussian remainder is
 * integrated exactly: mean = xi + mean_j a^T(t_j - mu), var = var_j(.) + v,
 * third central moment of the linear part only; E[Phi(f)] =
 * mean_j Phi(m_j / sqrt(probit_sd^2 + v)); P(f(x) > f(x_r)) = mean_j Phi(d_j / s_d)).
 * Quantiles by selection and the HPD interval (shortest interval holding
 * ceil(level N) sorted samples) from the two sorted tails only, O(N) per
 * point. PROGRESS is polled once per batch. */
sg_status sg_skewgp_summarize (const sg_skewgp_posterior *post,
                               const sg_skewgp_samples *samples,
                               const double *XS, size_t b,
                               const sg_summary_options *opt,
                               const sg_progress *progress,
                               sg_point_summary *out);

/* Density of f(x) at the K values GRID (for density plots): the mixture
 * (1/N) sum_j N(c; m_j, v(x)) over the samples, which is the exact
 * Rao-Blackwellised density estimate; where v(x) is tiny compared with the
 * spread of the m_j a Gaussian kernel with Silverman's bandwidth is added
 * to the variance. */
sg_status sg_skewgp_density (const sg_skewgp_posterior *post,
                             const sg_skewgp_samples *samples, const double *x,
                             const double *grid, size_t k, double *density);

/* Exact predictive class probability E[Phi(f(x))] = P(y* = 1 | data)
 * (000 Corollary 2): the ratio of orthant probabilities
 *   P(t > 0, f(x) + e > 0 | y) / P(t > 0 | y),  e ~ N(0, 1),
 * for small m (dimension m + 1 <= what sg_mvn handles well). Writes the
 * probability and an error estimate (propagated from sg_mvn). PROGRESS is
 * polled by sg_mvn_prob. */
sg_status sg_skewgp_class_probability_exact (const sg_skewgp_posterior *post,
                                             const double *x,
                                             sg_mvn_workspace *w,
                                             const sg_mvn_options *opt,
                                             const sg_progress *progress,
                                             double *prob, double *error);

/* The Gaussian location and scale at B points XS given the numeric data
 * only (001 eqs. 33-34, the xi~ and diag Omega~ of the posterior SUN):
 * MEAN[i] = xi + k(x,X) C^T (C K C^T + R)^{-1} (y - C xi), VAR[i] the
 * corresponding GP variance. Either output may be NULL. */
sg_status sg_skewgp_gaussian_part (const sg_skewgp_posterior *post, const double *XS,
                                   size_t b, double *mean, double *var);
