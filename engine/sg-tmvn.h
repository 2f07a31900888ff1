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
 */
#pragma once

#include "sg-common.h"

#include <gsl/gsl_rng.h>

typedef struct {
  size_t burn_in;   /* steps discarded at the start (default 100)        */
  size_t thin;      /* keep every thin-th state (default 1)              */
} sg_tmvn_options;

typedef struct sg_tmvn sg_tmvn;

void sg_tmvn_options_default (sg_tmvn_options *opt);

/* Sets up the sampler: factorises COV (jitter ladder), finds a feasible
 * start. LOWER/UPPER may be NULL (unbounded) and hold +-INFINITY entries.
 * Returns SG_OK, SG_EINVAL, SG_ENOTPD, SG_EINFEASIBLE (empty box), SG_ENOMEM;
 * *OUT is set only on success. */
int sg_tmvn_new (size_t d, const double *mean, const double *cov,
                 const double *lower, const double *upper,
                 const sg_tmvn_options *opt, sg_tmvn **out);
void sg_tmvn_free (sg_tmvn *s);

/* Draws N states (after burn-in on the first call, thinning always) into
 * OUT (n x d, row-major). Continues the chain on later calls. PROGRESS may
 * be NULL; on SG_ECANCELLED OUT is left in an unspecified state. */
int sg_tmvn_sample (sg_tmvn *s, gsl_rng *rng, size_t n, double *out,
                    const sg_progress *progress);
