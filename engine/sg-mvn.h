/* sg-mvn.h — multivariate normal rectangle probabilities.
 *
 *   P(lower < X < upper),  X ~ N(mean, cov),  dimension d
 *
 * Genz's separation-of-variables algorithm (Genz 1992; Genz & Bretz 2009,
 * sec. 4.1.3) with variable reordering (Gibson, Glasbey & Elston 1994) and
 * randomised rank-1 lattice QMC (CBC rules, Richtmyer beyond them); several
 * random shifts give the error estimate. Each point's product of conditional probabilities is summed in
 * log space, so probabilities like 1e-200 keep a small relative error.
 * By default the conditional normals are exponentially tilted with Botev's
 * minimax shifts (Botev 2017, JRSS-B 79:125), which keeps the relative error
 * small for tiny probabilities; with the shifts set to zero the integrand is
 * exactly Genz's. d = 1 is closed form; d = 2 is Genz's one-dimensional
 * conditional integral done by adaptive Gauss-Kronrod quadrature to ~1e-13
 * relative error, also in the far tails (exact to round-off). One-factor
 * covariances (see qmc_only) are integrated the same way over the factor.
 * Covariances with a few dominant eigenvalues (factor models) get their
 * latent factors drawn first from a proposal fitted by a pilot run, when
 * the pilot shows the plain SOV's weights spread (see sg-mvn.c, step 6;
 * plain_sov turns it off).
 */
#pragma once

#include "sg-common.h"

typedef enum {
  SG_MVN_TILTED = 0,  /* Genz SOV + minimax exponential tilting (default)   */
  SG_MVN_GENZ = 1,    /* plain Genz SOV (no tilting)                        */
} sg_mvn_method;

typedef struct {
  size_t n_points;    /* total QMC points, split over the shifts (default
                         10000, at least 1). Without rel_tol the points per
                         shift are rounded up to a lattice rule of the table
                         (sg-lattice.h) when one is within 5%: 10000 points
                         in 10 shifts run 10 x 1009 (res->n_points says)     */
  size_t n_shifts;    /* random shifts for the error estimate (default 10,
                         at least 2)                                            */
  uint64_t seed;      /* seed of the random shifts                              */
  int deterministic;  /* nonzero: the same point set on every call with the same
                         seed and d (common random numbers inside optimisers);
                         rel_tol is then ignored so the point count is fixed.
                         The estimate is then smooth in mean, cov and bounds
                         except where the variable order chosen per call
                         changes; such a switch moves it by about its error
                         (keep_order avoids that).
                         Zero: call k on a workspace uses stream k of SEED, so
                         repeated calls give independent estimates.            */
  double rel_tol;     /* stop early when error <= rel_tol * value (0 = never)   */
  sg_mvn_method method;  /* default SG_MVN_TILTED                            */
  int keep_order;     /* nonzero: factor the variables in the order chosen by the
                         last call on this workspace with the same d and the
                         same coordinates bounded (else choose afresh). The
                         workspace remembers the orders of the 4 most recently
                         used such problem shapes, so problems of different
                         shapes may be interleaved on it (e.g. the m- and
                         s-dimensional probabilities of a SkewGP evidence).
                         With deterministic, keeps an optimiser's objective
                         smooth across parameter changes that would reorder. */
  int qmc_only;       /* nonzero: always use the QMC algorithm. Zero: a
                         covariance that is one-factor, a a^T + diag(s^2)
                         with s_i^2 > 1e-8 S_ii and off-diagonals matching to
                         1e-12 relative (equicorrelated matrices, one-factor
                         models), is integrated exactly over its factor: a
                         1-D adaptive Gauss-Kronrod quadrature in log space
                         to ~1e-13 (result marked exact, no points used).  */
  int plain_sov;      /* nonzero: never split latent factors off (see the
                         file comment); the SOV over x alone. For comparisons
                         and independent references.                          */
} sg_mvn_options;

typedef struct {
  double value;       /* the probability (may underflow to 0: use log_value)   */
  double log_value;   /* log of the probability, finite even when value == 0
                         underflows; -inf only for an exact 0                 */
  double error;       /* absolute error estimate of value: Student-t 99% interval
                         over the shifts (covered the true error in 99% of
                         1440 runs of tests/bench/bench-mvn part A and in
                         84/84 reference problems of tests/test-mvn.c)       */
  double log_error;   /* error estimate of log_value (relative error of value) */
  size_t n_points;    /* points actually used                                  */
  int exact;          /* 1 when a closed form was used (errors are round-off)  */
} sg_mvn_result;

typedef struct sg_mvn_workspace sg_mvn_workspace;

void sg_mvn_options_default (sg_mvn_options *opt);
/* Workspace for dimensions up to D_MAX (about 6 D_MAX^2 doubles); NULL on
 * ENOMEM. One workspace per thread: calls on it must not overlap. */
sg_mvn_workspace *sg_mvn_workspace_new (size_t d_max);
void sg_mvn_workspace_free (sg_mvn_workspace *w);

/* MEAN may be NULL (zeros); LOWER NULL means all -inf, UPPER NULL all +inf;
 * single bounds may be -INFINITY / INFINITY. COV is d x d row-major, PSD
 * (symmetric to 1e-8 relative; singular is fine). OPT may be NULL (defaults).
 * PROGRESS (may be NULL) is polled between blocks of QMC points.
 * Coordinates with both bounds infinite are integrated out exactly; the PSD
 * check covers the others (use sg_mvn_check_cov for the whole matrix).
 * lower == upper somewhere gives value 0, log_value -inf (exact), as do
 * bounds that contradict a singular covariance where it is exactly
 * degenerate (a zero variance, X_j = c X_i, a rank-deficient one-factor
 * matrix: see reduce_degenerate in sg-mvn.c). A bound more than 1e8 sds
 * beyond the mean counts as infinite.
 * Returns SG_OK, SG_EINVAL (sizes, NaN, lower > upper, d > d_max, asymmetric
 * cov, n_points = 0, n_shifts < 2), SG_ENOTPD (cov not PSD), SG_ENOMEM,
 * SG_ECANCELLED, SG_ENUMERIC (the result is not a number, or its log is
 * beyond the double range). RES is written only on success. */
sg_status sg_mvn_prob (sg_mvn_workspace *w, size_t d, const double *mean,
                       const double *cov, const double *lower,
                       const double *upper, const sg_mvn_options *opt,
                       const sg_progress *progress, sg_mvn_result *res);

/* Checks that the d x d row-major COV is finite, symmetric (to 1e-8 relative)
 * and positive semi-definite (no pivot of a diagonally pivoted Cholesky
 * below -1e-9 of its diagonal entry). SG_OK, SG_EINVAL (non-finite or
 * asymmetric; *BAD_ROW and *BAD_COL name the entry when non-NULL), SG_ENOTPD
 * (*BAD_ROW names the offending variable), SG_ENOMEM. */
sg_status sg_mvn_check_cov (size_t d, const double *cov, size_t *bad_row,
                            size_t *bad_col);
