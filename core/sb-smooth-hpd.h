/* sb-smooth-hpd.h — an exact posterior's HPD band that does not step from
 * point to point.
 *
 * The shortest interval holding LEVEL of the posterior of f(x), taken from
 * raw order statistics of N samples (sg_skewgp_summarize's
 * SG_SUMMARY_HPD), is jagged along a grid: which run of sorted samples is
 * shortest switches between neighbouring points and the bounds jump by
 * the gap between tail samples. sb_smooth_hpd_band estimates the same
 * interval from the same samples with
 *   - common random numbers across the points (the same chain draws and
 *     the same normal variates for the Gaussian remainder at every point,
 *     sg_skewgp_joint_samples_each), so each sample is a smooth function
 *     of x and neighbouring points share their Monte Carlo error;
 *   - Harrell-Davis quantiles (Harrell & Davis 1982, Biometrika 69:635),
 *     smooth in the probability and in the samples;
 *   - the interval's start probability chosen by a parabola fitted around
 *     the minimum width, so it moves continuously with x.
 * The band's remaining cell-to-cell roughness is below its Monte Carlo
 * standard error (tests/test-smooth-hpd.c measures both). */
#pragma once

#include <glib.h>

#include "sg-skewgp.h"
#include "sg-summary.h"

G_BEGIN_DECLS

/* The fewest samples the smoothed band is computed from (a few samples in
 * each tail of a 95% band); callers with fewer keep the raw HPD bounds. */
#define SB_SMOOTH_HPD_MIN_SAMPLES 100

/* Replaces OUT[i].hpd_lower / hpd_upper (N points XS, n x dim) by the
 * smoothed LEVEL band of POST from SAMPLES (at least
 * SB_SMOOTH_HPD_MIN_SAMPLES); the normal variates come from RNG. The
 * other fields of OUT are left as they are. Returns an sg_status. */
int sb_smooth_hpd_band (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
                        const double *xs, gsize n, double level, gsl_rng *rng,
                        sg_point_summary *out);

G_END_DECLS
