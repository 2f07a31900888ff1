/* sb-smooth-hpd.c — the smoothed HPD band (sb-smooth-hpd.h). */
#include "config.h"

#include "sb-smooth-hpd.h"
#include "sg-rng.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The interval [Q(a), Q(a + level)] for start probabilities a on a grid of
 * HPD_N_START values in (0, 1 - level); Q(p) = sum_i w_i(p) f_(i), the
 * Harrell-Davis weights w_i(p) the Beta(p (N+1), (1-p)(N+1)) mass of
 * ((i-1)/N, i/N], with O(1/N) bias. The weights do not depend on x and are
 * computed once per band; each Beta's mass lies within 9 standard
 * deviations of its mean, so each weight vector is a short window of the
 * sorted samples. */
enum { HPD_N_START = 41 };

typedef struct {
  gsize first, len;   /* the order statistics f_(first+1) .. f_(first+len) */
  double *w;          /* their weights (len)                              */
} HdWeights;

typedef struct {
  gsize N;
  double level;
  double start[HPD_N_START];                       /* the grid of a      */
  HdWeights lo[HPD_N_START], hi[HPD_N_START];      /* Q(a), Q(a + level) */
  double *sorted;                                  /* N                  */
  sg_point_summary *out;
} SmoothHpd;

static void
hd_weights_init (HdWeights *hw, double p, gsize N)
{
  double a = p * (N + 1), b = (1 - p) * (N + 1);
  double sd = sqrt (p * (1 - p) / (N + 2));
  gsize first = (gsize) MAX (0.0, floor ((p - 9 * sd) * N));
  gsize last = (gsize) MIN ((double) N, ceil ((p + 9 * sd) * N));
  double prev = gsl_cdf_beta_P ((double) first / N, a, b), sum = 0;

  hw->first = first;
  hw->len = last - first;
  hw->w = g_new (double, hw->len);
  for (gsize i = 0; i < hw->len; i++)
    {
      double next = gsl_cdf_beta_P ((double) (first + i + 1) / N, a, b);
      hw->w[i] = next - prev;
      sum += hw->w[i];
      prev = next;
    }
  /* The mass outside the window (below 1e-15) is put back in. */
  for (gsize i = 0; i < hw->len; i++)
    hw->w[i] /= sum;
}

static double
hd_quantile (const HdWeights *hw, const double *sorted)
{
  double q = 0;
  for (gsize i = 0; i < hw->len; i++)
    q += hw->w[i] * sorted[hw->first + i];
  return q;
}

static void
smooth_hpd_init (SmoothHpd *h, gsize N, double level, sg_point_summary *out)
{
  /* a in [1, (1 - level) N] / (N + 1): the Beta shapes stay >= 1. */
  double a0 = 1.0 / (N + 1), a1 = (1 - level) * N / (N + 1);

  h->N = N;
  h->level = level;
  h->out = out;
  h->sorted = g_new (double, N);
  for (int k = 0; k < HPD_N_START; k++)
    {
      h->start[k] = a0 + (a1 - a0) * k / (HPD_N_START - 1);
      hd_weights_init (&h->lo[k], h->start[k], N);
      hd_weights_init (&h->hi[k], h->start[k] + level, N);
    }
}

static void
smooth_hpd_clear (SmoothHpd *h)
{
  for (int k = 0; k < HPD_N_START; k++)
    {
      g_free (h->lo[k].w);
      g_free (h->hi[k].w);
    }
  g_free (h->sorted);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The minimiser, as a fractional index in [0, n - 1], of the curve W[K],
 * K = 0..n-1: the vertex of a weighted least-squares parabola, the weights
 * exp(-(W[K] - min W)^2 / (2 (0.01 min W)^2)) keeping the points within
 * about 2% of the minimum (the width curve steepens sharply towards the
 * extreme tails, where a parabola does not fit). The weights change
 * continuously with W, so the vertex does too; the raw argmin when the
 * fit has no minimum. */
static double
smooth_minimum (const double *w, int n)
{
  int best = 0;
  for (int k = 1; k < n; k++)
    if (w[k] < w[best])
      best = k;
  double scale = 0.01 * fabs (w[best]) + 1e-300;
  /* Moments about the raw argmin: sum om u^p (p = 0..4), sum om u^p w. */
  double S[5] = { 0 }, T[3] = { 0 };
  for (int k = 0; k < n; k++)
    {
      double z = (w[k] - w[best]) / scale, om = exp (-0.5 * z * z), u = k - best, up = 1;
      for (int p = 0; p < 5; p++, up *= u)
        {
          S[p] += om * up;
          if (p < 3)
            T[p] += om * up * w[k];
        }
    }
  /* Normal equations [S0 S1 S2; S1 S2 S3; S2 S3 S4] c = T, by Cramer's rule. */
  double det = S[0] * (S[2] * S[4] - S[3] * S[3]) - S[1] * (S[1] * S[4] - S[3] * S[2])
               + S[2] * (S[1] * S[3] - S[2] * S[2]);
  double d1 = S[0] * (T[1] * S[4] - S[3] * T[2]) - T[0] * (S[1] * S[4] - S[3] * S[2])
              + S[2] * (S[1] * T[2] - T[1] * S[2]);
  double d2 = S[0] * (S[2] * T[2] - T[1] * S[3]) - S[1] * (S[1] * T[2] - T[1] * S[2])
              + T[0] * (S[1] * S[3] - S[2] * S[2]);
  if (!(fabs (det) > 1e-12 * S[0] * S[2] * S[4]) || !(d2 / det > 0))
    return best;
  return CLAMP (best - d1 / (2 * d2), 0.0, n - 1.0);
}

/* Y at the fractional index T by linear interpolation. */
static double
interpolate (const double *y, int n, double t)
{
  int k = MIN ((int) t, n - 2);
  return y[k] + (t - k) * (y[k + 1] - y[k]);
}

/* sg_skewgp_point_fn: the smoothed HPD bounds of cell C from its samples F.
 * The width is flat near its minimum, so the minimiser of the raw grid
 * values wanders with the Monte Carlo noise and drags both bounds along
 * their quantile curves; the vertex of a parabola fitted around the
 * minimum does not. */
static void
smooth_hpd_cell (size_t c, const double *F, void *user_data)
{
  SmoothHpd *h = user_data;
  double lo[HPD_N_START], hi[HPD_N_START], w[HPD_N_START];

  memcpy (h->sorted, F, h->N * sizeof *F);
  qsort (h->sorted, h->N, sizeof *h->sorted, compare_doubles);
  for (int k = 0; k < HPD_N_START; k++)
    {
      lo[k] = hd_quantile (&h->lo[k], h->sorted);
      hi[k] = hd_quantile (&h->hi[k], h->sorted);
      w[k] = hi[k] - lo[k];
    }
  double t = smooth_minimum (w, HPD_N_START);
  h->out[c].hpd_lower = interpolate (lo, HPD_N_START, t);
  h->out[c].hpd_upper = interpolate (hi, HPD_N_START, t);
}

int
sb_smooth_hpd_band (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
                    const double *xs, gsize n, double level, gsl_rng *rng,
                    sg_point_summary *out)
{
  gsize N = sg_skewgp_samples_count (samples);
  SmoothHpd h;
  int status;

  if (N < SB_SMOOTH_HPD_MIN_SAMPLES || !(level > 0 && level < 1))
    return SG_EINVAL;
  g_autofree double *G = g_new (double, N);
  for (gsize j = 0; j < N; j++)
    G[j] = sg_rng_gaussian (rng);
  smooth_hpd_init (&h, N, level, out);
  status = sg_skewgp_joint_samples_each (post, samples, xs, n, NULL, G, smooth_hpd_cell, &h);
  smooth_hpd_clear (&h);
  return status;
}
