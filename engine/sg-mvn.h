/* sg-mvn.h — multivariate normal rectangle probabilities.
 *
 *   P(lower < X < upper),  X ~ N(mean, cov),  dimension d
 *
 * Genz's separation-of-variables algorithm (Genz 1992; Genz & Bretz 2009,
 * sec. 4.1.3) with variable reordering (Gibson, Glasbey & Elston 1994) and
 * randomised Richtmyer lattice QMC; several random shifts give the error
 * estimate. Each point's product of conditional probabilities is summed in
 * log space, so probabilities like 1e-200 keep a small relative error.
 * d = 1 and d = 2 use exact closed forms (the bivariate normal CDF of Drezner
 * & Wesolowsky 1990 / Genz 2004).
 */
#pragma once

#include "sg-common.h"

typedef struct {
  size_t n_points;    /* total QMC points, split over the shifts (default 10000) */
  size_t n_shifts;    /* random shifts for the error estimate (default 10)     */
  uint64_t seed;      /* seed of the random shifts                              */
  int deterministic;  /* nonzero: the same point set on every call with the same
                         seed and d (common random numbers inside optimisers)   */
  double rel_tol;     /* stop early when error <= rel_tol * value (0 = never)   */
} sg_mvn_options;

typedef struct {
  double value;       /* the probability (may underflow to 0: use log_value)   */
  double log_value;   /* log of the probability, finite even when value == 0   */
  double error;       /* absolute error estimate of value (~99% coverage)      */
  double log_error;   /* error estimate of log_value (relative error of value) */
  size_t n_points;    /* points actually used                                  */
  int exact;          /* 1 when a closed form was used (errors are round-off)  */
} sg_mvn_result;

typedef struct sg_mvn_workspace sg_mvn_workspace;

void sg_mvn_options_default (sg_mvn_options *opt);
/* Workspace for dimensions up to D_MAX; NULL on ENOMEM. */
sg_mvn_workspace *sg_mvn_workspace_new (size_t d_max);
void sg_mvn_workspace_free (sg_mvn_workspace *w);

/* MEAN may be NULL (zeros); LOWER NULL means all -inf, UPPER NULL all +inf;
 * single bounds may be -INFINITY / INFINITY. COV is d x d row-major, PSD.
 * Returns SG_OK, SG_EINVAL (sizes, NaN, lower > upper, d > d_max),
 * SG_ENOTPD (cov not PSD), SG_ENOMEM. RES is written only on success. */
int sg_mvn_prob (sg_mvn_workspace *w, size_t d, const double *mean,
                 const double *cov, const double *lower, const double *upper,
                 const sg_mvn_options *opt, sg_mvn_result *res);
