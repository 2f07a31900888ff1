/* sg-tmvn.h — sampling a Gaussian restricted to a box.
 *
 *   X ~ N(mean, cov) conditioned on lower < X < upper
 *
 * Linear elliptical slice sampling, lin-ess (Gessner, Kanjilal & Hennig
 * 2020; paper 001 Algorithm 1): in whitened coordinates X = mean + L z the
 * box is a set of linear constraints on z; on each ellipse
 * z(theta) = z0 cos theta + nu sin theta the feasible angles are computed in
 * closed form as a union of arcs and theta is drawn uniformly from them, so
 * no proposal is ever rejected. The orthant t > 0 that SkewGP needs is
 * lower = 0, upper = +inf.
 *
 * COV only has to be positive semi-definite: it is factorised by a pivoted
 * Cholesky decomposition with rank detection, so the chain moves in the
 * r-dimensional subspace cov spans (r = rank). A coordinate of zero
 * variance is fixed at its mean, which must then lie in [lower, upper].
 *
 * Mixing. Successive lin-ess states are correlated; on SkewGP preference
 * posteriors the integrated autocorrelation time (IAT) is hundreds to
 * thousands of steps (tests/bench/results-tmvn.md). Three remedies,
 * combinable: METHOD = SG_TMVN_EXACT_HMC (below) has an IAT of 1-2 steps
 * on the same posteriors and is the one to use for them; THIN > 1 keeps
 * every thin-th state (THIN = 0 chooses it from the IAT measured on a pilot
 * run); N_CHAINS > 1 runs independent chains, each with its own burn-in, on
 * threads. See sg-mcmc.h for the IAT / effective-sample-size estimator.
 */
#pragma once

#include "sg-common.h"

#include <gsl/gsl_rng.h>

/* The Markov transition.
 * SG_TMVN_LIN_ESS: linear elliptical slice sampling (above).
 * SG_TMVN_EXACT_HMC: exact Hamiltonian Monte Carlo for truncated Gaussians
 *   (Pakman & Paninski 2014, "Exact Hamiltonian Monte Carlo for truncated
 *   multivariate Gaussians", J. Comput. Graph. Stat. 23:518). The same
 *   ellipses, but instead of jumping to a random feasible angle the state
 *   travels along the ellipse for a time HMC_TIME and is reflected, like a
 *   billiard ball, at every bound it meets. Also rejection-free and exact;
 *   each transition costs one L nu plus O(d) per reflection, and it mixes
 *   far better when the box cuts away most of the Gaussian (SkewGP
 *   preference posteriors: see tests/bench/results-tmvn.md). */
typedef enum {
  SG_TMVN_LIN_ESS = 0,
  SG_TMVN_EXACT_HMC,
} sg_tmvn_method;

typedef struct {
  size_t burn_in;      /* steps discarded at the start of each chain
                          (default 100)                                    */
  size_t thin;         /* keep every thin-th state (default 1); 0 = choose
                          it automatically: after burn-in a pilot run of
                          PILOT steps per chain measures the largest IAT
                          over the coordinates, and thin = IAT rounded
                          (at least 1), so the kept states are nearly
                          independent (their IAT is ~2 at most)            */
  size_t pilot;        /* pilot length per chain for thin = 0 (default
                          2000; the IAT estimate needs ~50 IAT of data)    */
  size_t max_thin;     /* cap on the automatic thin (default 1000)         */
  size_t n_chains;     /* independent chains (default 1)                   */
  size_t n_threads;    /* threads to run them on; 0 = one per chain up to
                          the number of online processors (default 0)      */
  sg_tmvn_method method;  /* default SG_TMVN_LIN_ESS                      */
  double hmc_time;     /* travel time per exact-HMC transition (default
                          pi / 2: without bounds one transition is then an
                          independent draw)                                */
} sg_tmvn_options;

typedef struct sg_tmvn sg_tmvn;

/* What the sampler did so far (for reports and tests). */
typedef struct {
  size_t rank;         /* rank of COV found by the pivoted factorisation   */
  size_t thin;         /* thinning in use (the automatic choice if any)    */
  double pilot_iat;    /* largest IAT over coordinates measured on the
                          pilot run, in steps; 0 if no pilot was run       */
  size_t steps;        /* transitions made, all chains, burn-in and pilot
                          included                                         */
  size_t multi_arc;    /* transitions whose feasible set on the ellipse
                          was two or more disjoint arcs                    */
  size_t bounces;      /* exact HMC: reflections at a bound, in all      */
  size_t stuck;        /* transitions that kept the current state because
                          round-off left no usable arc, or an exact-HMC
                          trajectory that ended outside the box or made
                          over 1000 + 100 d reflections (should stay 0)    */
} sg_tmvn_info;

void sg_tmvn_options_default (sg_tmvn_options *opt);

/* Sets up the sampler: factorises COV (pivoted Cholesky; COV must be
 * symmetric positive semi-definite up to round-off), finds a feasible start
 * for every chain. LOWER/UPPER may be NULL (unbounded) and hold +-INFINITY
 * entries. OPT may be NULL for the defaults.
 * Returns SG_OK, SG_EINVAL (NaN or infinite mean/cov, COV not symmetric to
 * 1e-8 max(diag), lower > upper, n_chains = 0, unknown method, hmc_time
 * not positive), SG_ENOTPD (COV is not
 * positive semi-definite), SG_EINFEASIBLE (no feasible start: the box has
 * probability zero, e.g. lower = upper for a coordinate that varies, or a
 * zero-variance coordinate whose mean lies outside [lower, upper]),
 * SG_ENOMEM; *OUT is set only on success. The start is chosen coordinate by
 * coordinate (conditional medians); that is complete for a positive
 * definite COV, while for a singular one a box reachable only by moving
 * coordinates already chosen is reported as SG_EINFEASIBLE. */
sg_status sg_tmvn_new (size_t d, const double *mean, const double *cov,
                       const double *lower, const double *upper,
                       const sg_tmvn_options *opt, sg_tmvn **out);
void sg_tmvn_free (sg_tmvn *s);

/* Draws N states (after burn-in and, for thin = 0, the pilot run on the
 * first call; thinning always) into OUT (n x d, row-major). Continues the
 * chains on later calls. With several chains, chain c fills the contiguous
 * rows [c n / n_chains, (c + 1) n / n_chains); each chain gets its own
 * random stream seeded from RNG, so the result depends only on RNG's state,
 * never on thread timing. With one chain RNG is used directly.
 * PROGRESS may be NULL; it is called from the calling thread only. On
 * SG_ECANCELLED OUT is left in an unspecified state. */
sg_status sg_tmvn_sample (sg_tmvn *s, gsl_rng *rng, size_t n,
                          const sg_progress *progress, double *out);

void sg_tmvn_get_info (const sg_tmvn *s, sg_tmvn_info *info);
