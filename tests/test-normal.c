/* test-normal.c — normal CDF, log CDF, quantiles, truncated quantiles, and
 * the branch-free kernels of sg-normal-kernels.h against them. */
#include "sg-normal.h"
#include "sg-normal-kernels.h"

#include <float.h>
#include <glib.h>
#include <math.h>

/* |got - want| <= tol * max(1, |want|) with a message naming the case. */
#define assert_close(got, want, tol) \
  g_assert_cmpfloat_with_epsilon ((got), (want), (tol) * fmax (1.0, fabs (want)))
#define assert_rel(got, want, tol) \
  g_assert_cmpfloat_with_epsilon ((got), (want), (tol) * fabs (want))

static void
test_cdf_values (void)
{
  /* Reference values: mpmath ncdf / npdf at 50 digits
   * (tests/data/README.md). */
  assert_rel (sg_norm_cdf (0.0), 0.5, 1e-15);
  assert_rel (sg_norm_cdf (1.0), 0.8413447460685429, 1e-15);
  assert_rel (sg_norm_cdf (-3.0), 0.0013498980316300946, 1e-14);
  assert_rel (sg_norm_cdf (-10.0), 7.6198530241605261e-24, 1e-13);
  assert_rel (sg_norm_pdf (1.0), 0.24197072451914337, 1e-15);
}

static void
test_logcdf_tails (void)
{
  /* mpmath: log(ncdf(x)) at 50 digits. */
  assert_rel (sg_norm_logcdf (-40.0), -804.60844201375379, 1e-13);
  assert_rel (sg_norm_logcdf (-10.0), -53.231285150512471, 1e-13);
  assert_rel (sg_norm_logcdf (-38.0), -726.55721601882013, 1e-13);
  assert_rel (sg_norm_logcdf (-1000.0), -500007.82669481218, 1e-13);
  assert_rel (sg_norm_logcdf (5.0), -2.8665161296376359e-07, 1e-12);
  assert_rel (sg_norm_logcdf (10.0), -7.6198530241605261e-24, 1e-13);
  g_assert_true (isinf (sg_norm_logcdf (-INFINITY)));
  g_assert_cmpfloat (sg_norm_logcdf (INFINITY), ==, 0.0);
  g_assert_true (isnan (sg_norm_logcdf (NAN)));

  /* Continuity across the branch points of the implementation. */
  for (double x = -25; x < 1; x += 0.37)
    assert_rel (sg_norm_logcdf (x), log (sg_norm_cdf (x)), 1e-12);
}

static void
test_quantile (void)
{
  g_assert_true (isinf (sg_norm_quantile (0)) && sg_norm_quantile (0) < 0);
  g_assert_true (isinf (sg_norm_quantile (1)) && sg_norm_quantile (1) > 0);
  g_assert_true (isnan (sg_norm_quantile (1.5)));
  /* Upper tail excluded: Phi(x) rounds near 1, so inverting it is
   * ill-conditioned there (error ~ 1e-16 / phi(x)); the log version below
   * covers it. */
  for (double x = -8; x <= 3; x += 0.25)
    assert_close (sg_norm_quantile (sg_norm_cdf (x)), x, 1e-9);
  /* Log-space inverse, also where exp(logp) underflows. */
  double xs[] = { -60, -40, -38.6, -20, -3, 0, 2, 5 };
  for (gsize i = 0; i < G_N_ELEMENTS (xs); i++)
    assert_close (sg_norm_quantile_log (sg_norm_logcdf (xs[i])), xs[i], 1e-9);
}

static void
test_logdiff (void)
{
  /* log(Phi(b) - Phi(a)) in both tails and across zero. */
  assert_rel (sg_norm_logdiff (-1, 1), log (0.6826894921370859), 1e-14);
  /* Upper tail: Phi(11) - Phi(10) = Phi(-10) - Phi(-11) (mpmath). */
  assert_rel (sg_norm_logdiff (10, 11), -53.231310225583125, 1e-12);
  assert_rel (sg_norm_logdiff (-11, -10), -53.231310225583125, 1e-12);
  g_assert_true (isinf (sg_norm_logdiff (1, 1)));
  g_assert_true (isnan (sg_norm_logdiff (2, 1)));
}

static void
test_trunc_quantile (void)
{
  /* Round trip: the w-quantile of N(0,1) on [a, b] has CDF fraction w. */
  double intervals[][2] = { { -1, 1 }, { -INFINITY, -30 }, { 30, INFINITY },
                            { 8, 9 }, { -9, -8 }, { -2, INFINITY }, { 0.5, 0.5000001 } };
  double ws[] = { 0, 1e-9, 0.1, 0.5, 0.9, 1 - 1e-9, 1 };
  for (gsize i = 0; i < G_N_ELEMENTS (intervals); i++)
    for (gsize j = 0; j < G_N_ELEMENTS (ws); j++)
      {
        double a = intervals[i][0], b = intervals[i][1], w = ws[j];
        double x = sg_norm_trunc_quantile (a, b, w);
        g_assert_true (x >= a && x <= b);
        if (w > 0 && w < 1 && isfinite (x))
          {
            /* fraction = (Phi(x) - Phi(a)) / (Phi(b) - Phi(a)) in log space */
            double lf = x > a ? sg_norm_logdiff (a, x) - sg_norm_logdiff (a, b) : -INFINITY;
            g_assert_cmpfloat_with_epsilon (exp (lf), w, 1e-6 + 1e-6 * w);
          }
      }
}

/* Relative tolerance for sg_norm_cdf(x) as the reference: it is erfc of
 * the rounded x / sqrt 2, which is off by ~x^2 eps relative in the tails
 * (1.5e-13 at x = -37; the kernel corrects the rounding of x^2). */
static double
cdf_tol (double x)
{
  return 1e-14 + 4 * DBL_EPSILON * x * x;
}

/* The vectorisable kernels against sg-normal and libm, on dense grids
 * that include every branch point of the approximations. Both sides are
 * good to ~1e-15 relative (measured: <= 9.4e-16 against the scalar forms
 * the kernels replaced), so 1e-14 leaves a 10x margin for the reference. */
static void
test_kernels (void)
{
  for (double x = -37.0; x <= 9.0; x += 0.000731)
    {
      double want = sg_norm_cdf (x);
      g_assert_cmpfloat (fabs (sg_phi_kernel (x) - want), <=, cdf_tol (x) * want);
    }
  const double edges[] = { 0.67448975, 5.656854249492380195206754896838792314, 38.5 };
  for (gsize i = 0; i < G_N_ELEMENTS (edges); i++)
    for (int side = -1; side <= 1; side += 2)
      for (double t = -1e-12; t <= 1e-12; t += 1e-12)
        {
          double x = side * edges[i] + t, want = sg_norm_cdf (x);
          if (want > 1e-300)
            g_assert_cmpfloat (fabs (sg_phi_kernel (x) - want), <=, cdf_tol (x) * want);
        }
  /* below 1e-300 the SOV takes its log-space route: only the bound matters */
  for (double x = -37.7; x > -60; x -= 0.5)
    g_assert_cmpfloat (sg_phi_kernel (x), <, 1e-300);
  g_assert_cmpfloat (sg_phi_kernel (INFINITY), ==, 1.0);
  g_assert_cmpfloat (sg_phi_kernel (-INFINITY), ==, 0.0);

  for (int k = 1; k <= 320; k++)
    for (int j = 1; j < 10; j++)
      {
        double p = j * pow (10, -k);
        g_assert_cmpfloat (fabs (sg_phiinv_kernel (p) - sg_norm_quantile (p)), <=,
                           1e-14 * fabs (sg_norm_quantile (p)));
        if (1 - p < 1)
          g_assert_cmpfloat (fabs (sg_phiinv_kernel (1 - p) - sg_norm_quantile (1 - p)), <=,
                             1e-14 * fabs (sg_norm_quantile (1 - p)));
      }
  for (double p = 0.0005; p < 1; p += 0.000977)
    assert_close (sg_phiinv_kernel (p), sg_norm_quantile (p), 1e-14);

  for (int e = -1074; e < 1024; e++)
    for (int j = 0; j < 16; j++)
      {
        double x = ldexp (1 + j / 16.0, e);
        if (x > 0 && isfinite (x) && x != 1)
          g_assert_cmpfloat (fabs (sg_log_positive (x) - log (x)), <=, 1e-15 * fabs (log (x)));
      }
  for (double x = 0; x >= -708; x -= 0.0173)
    g_assert_cmpfloat (fabs (sg_exp_nonpositive (x) - exp (x)), <=, 1e-15 * exp (x));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/normal/cdf", test_cdf_values);
  g_test_add_func ("/normal/logcdf-tails", test_logcdf_tails);
  g_test_add_func ("/normal/quantile", test_quantile);
  g_test_add_func ("/normal/logdiff", test_logdiff);
  g_test_add_func ("/normal/trunc-quantile", test_trunc_quantile);
  g_test_add_func ("/normal/kernels", test_kernels);
  return g_test_run ();
}
