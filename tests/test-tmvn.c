/* test-tmvn.c — truncated Gaussian sampler (lin-ess and exact HMC) and MCMC
 * diagnostics.
 *
 * Monte Carlo tolerances. A lin-ess chain is correlated, so the standard
 * error of a sample mean is sd sqrt(tau / n), tau the integrated
 * autocorrelation time of the series averaged (estimated by sg_mcmc_iat);
 * every moment check allows NSE = 4.5 such standard errors. With about 150
 * checks in this file the chance of a false alarm is below 1e-3 (two-sided
 * normal tail at 4.5 is 6.8e-6), and the seeds are fixed anyway. Exact
 * formulas (1-D truncated normal moments) are evaluated in double precision
 * and are far more accurate than any of these tolerances.
 */
#include "sg-common.h"
#include "sg-linalg.h"
#include "sg-mcmc.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-tmvn.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSE 4.5

/* ---- helpers ---------------------------------------------------------- */

/* Runs one sampler and returns n x d samples (g_free). */
static double *
draw (size_t d, const double *mean, const double *cov, const double *lower,
      const double *upper, const sg_tmvn_options *opt, uint64_t seed, size_t n,
      sg_tmvn_info *info)
{
  sg_tmvn *s = NULL;
  g_assert_cmpint (sg_tmvn_new (d, mean, cov, lower, upper, opt, &s), ==, SG_OK);
  gsl_rng *rng = sg_rng_new (seed, 0);
  double *out = g_new (double, n * d);
  g_assert_cmpint (sg_tmvn_sample (s, rng, n, NULL, out), ==, SG_OK);
  if (info)
    sg_tmvn_get_info (s, info);
  sg_rng_free (rng);
  sg_tmvn_free (s);
  return out;
}

/* Mean of Y[0], Y[stride], ... over n_chains contiguous chains and its
 * Markov-chain standard error sd sqrt(tau / N). */
static void
mean_and_se (const double *y, size_t n_chains, size_t n, size_t stride,
             double *mean, double *se, double *tau)
{
  size_t total = n_chains * n;
  double m = 0, v = 0;
  for (size_t t = 0; t < total; t++)
    m += y[t * stride];
  m /= (double) total;
  for (size_t t = 0; t < total; t++)
    v += (y[t * stride] - m) * (y[t * stride] - m);
  v /= (double) (total - 1);
  double t_iat = 1;
  g_assert_cmpint (sg_mcmc_iat (y, n_chains, n, n * stride, stride, &t_iat), ==, SG_OK);
  *mean = m;
  *se = sqrt (v * t_iat / (double) total);
  if (tau)
    *tau = t_iat;
}

/* Checks the sample mean of column J and the sample covariances of columns
 * (J, K) of X (n_chains chains of n rows, d columns) against exact values
 * E[J] and C(J, K). The covariance is the mean of the product series
 * (x_j - E_j)(x_k - E_k) centred on the exact means, so its standard error
 * comes from the same IAT machinery. Returns the largest |error| / se. */
static double
check_moments (const double *x, size_t n_chains, size_t n, size_t d,
               const double *E, const double *C, const char *what)
{
  size_t total = n_chains * n;
  double worst = 0;
  double *y = g_new (double, total);
  for (size_t j = 0; j < d; j++)
    {
      double m, se, tau;
      mean_and_se (x + j, n_chains, n, d, &m, &se, &tau);
      g_test_message ("%s: E[x%zu] = %.5f, exact %.5f, se %.5f (tau %.1f)",
                      what, j, m, E[j], se, tau);
      g_assert_cmpfloat (fabs (m - E[j]), <=, NSE * se);
      worst = fmax (worst, fabs (m - E[j]) / se);
      for (size_t k = 0; k <= j; k++)
        {
          for (size_t t = 0; t < total; t++)
            y[t] = (x[t * d + j] - E[j]) * (x[t * d + k] - E[k]);
          mean_and_se (y, n_chains, n, 1, &m, &se, &tau);
          g_test_message ("%s: C[%zu,%zu] = %.5f, exact %.5f, se %.5f (tau %.1f)",
                          what, j, k, m, C[j * d + k], se, tau);
          g_assert_cmpfloat (fabs (m - C[j * d + k]), <=, NSE * se);
          worst = fmax (worst, fabs (m - C[j * d + k]) / se);
        }
    }
  g_free (y);
  return worst;
}

/* Mean and variance of N(mu, sigma^2) truncated to (a, b) (Johnson, Kotz &
 * Balakrishnan vol. 1, eq. 13.134-13.135), in a form that stays accurate in
 * the far tails: for a one-sided truncation the ratio phi / (1 - Phi) is
 * sg_norm_hazard, which does not cancel. */
static void
trunc_moments_1d (double mu, double sigma, double a, double b,
                  double *mean, double *var)
{
  double al = (a - mu) / sigma, be = (b - mu) / sigma;
  double r1, r2;   /* (phi(al) - phi(be)) / Z and (al phi(al) - be phi(be)) / Z */
  if (isinf (be))
    {
      r1 = sg_norm_hazard (-al);
      r2 = isinf (al) ? 0 : al * r1;
    }
  else if (isinf (al))
    {
      r1 = -sg_norm_hazard (be);
      r2 = be * r1;
    }
  else
    {
      double Z = exp (sg_norm_logdiff (al, be));
      r1 = (sg_norm_pdf (al) - sg_norm_pdf (be)) / Z;
      r2 = (al * sg_norm_pdf (al) - be * sg_norm_pdf (be)) / Z;
    }
  *mean = mu + sigma * r1;
  *var = sigma * sigma * (1 + r2 - r1 * r1);
}

/* A random SPD matrix with unit-ish diagonal and strong correlations. */
static void
random_cov (gsl_rng *rng, size_t d, double *S)
{
  double *B = g_new (double, d * d);
  for (size_t i = 0; i < d * d; i++)
    B[i] = sg_rng_gaussian (rng);
  sg_gemm (0, 1, d, d, d, 1.0 / (double) d, B, B, 0.0, S);
  for (size_t i = 0; i < d; i++)
    S[i * d + i] += 0.05;
  g_free (B);
}

/* Test data for exact HMC with a travel time beyond pi: the walls' exit
 * times then come from the wall-by-wall trigonometric scan instead of the
 * vectorised half-angle form that serves the default pi / 2. */
#define EXACT_HMC_LONG 100

/* Options for the method a test was registered with (test data). */
static sg_tmvn_options
options_for (gconstpointer method)
{
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  if (GPOINTER_TO_INT (method) == EXACT_HMC_LONG)
    {
      opt.method = SG_TMVN_EXACT_HMC;
      opt.hmc_time = 4;
    }
  else
    opt.method = (sg_tmvn_method) GPOINTER_TO_INT (method);
  return opt;
}

static const char *
method_name (gconstpointer method)
{
  switch (GPOINTER_TO_INT (method))
    {
    case SG_TMVN_EXACT_HMC:
      return "exact HMC";
    case EXACT_HMC_LONG:
      return "exact HMC, travel time 4";
    default:
      return "lin-ess";
    }
}

/* ---- 1-D ------------------------------------------------------------- */

static void
test_1d_moments (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  /* mu, sigma^2, a, b: a two-sided box, the orthant, an upper tail, and a
   * start 30 sd outside the box (the feasible start must still work). */
  const double cases[][4] = {
    { 0.3, 2.0, -0.5, 1.7 },
    { -1.0, 1.0, 0.0, INFINITY },
    { 0.0, 1.0, -INFINITY, -3.0 },
    { -30.0, 1.0, 0.0, INFINITY },
    { 2.0, 0.25, 1.9, 2.05 },
  };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      double mu = cases[c][0], var = cases[c][1];
      double a = cases[c][2], b = cases[c][3];
      double E, V;
      trunc_moments_1d (mu, sqrt (var), a, b, &E, &V);
      size_t n = 20000;
      sg_tmvn_info info;
      double *x = draw (1, &mu, &var, &a, &b, &mopt, 10 + c, n, &info);
      for (size_t t = 0; t < n; t++)
        g_assert_true (x[t] > a && x[t] < b);
      g_autofree char *what = g_strdup_printf ("%s, 1-D case %zu", method_name (method),
                                               (size_t) c);
      check_moments (x, 1, n, 1, &E, &V, what);
      g_assert_cmpuint (info.stuck, ==, 0);
      g_free (x);
    }
}

/* ---- 2-D against exact moments (tests/data/tmvn-2d.txt) -------------- */

static void
test_2d_moments (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "tmvn-2d.txt", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  size_t cases = 0, multi_arc_total = 0, bounces_total = 0;
  for (char **line = lines; *line; line++)
    {
      if (**line == '\0')
        continue;
      double v[14];
      char *p = *line;
      for (int i = 0; i < 14; i++)
        {
          char *end;
          v[i] = g_ascii_strtod (p, &end);
          g_assert_true (end != p);
          p = end;
        }
      double mean[2] = { v[0], v[1] };
      double cov[4] = { v[2], v[3], v[3], v[4] };
      double lower[2] = { v[5], v[7] }, upper[2] = { v[6], v[8] };
      double E[2] = { v[9], v[10] };
      double C[4] = { v[11], v[12], v[12], v[13] };
      size_t n = 40000;
      sg_tmvn_info info;
      double *x = draw (2, mean, cov, lower, upper, &mopt, 100 + cases, n, &info);
      g_autofree char *what = g_strdup_printf ("%s, 2-D case %zu", method_name (method),
                                               cases);
      check_moments (x, 1, n, 2, E, C, what);
      g_test_message ("%s: %zu of %zu transitions had several feasible arcs, "
                      "%zu reflections", what, info.multi_arc, info.steps, info.bounces);
      g_assert_cmpuint (info.stuck, ==, 0);
      multi_arc_total += info.multi_arc;
      bounces_total += info.bounces;
      g_free (x);
      cases++;
    }
  g_assert_cmpuint (cases, ==, 6);
  /* the box cases must exercise slices made of several arcs (lin-ess) and
   * reflections (HMC) */
  if (mopt.method == SG_TMVN_LIN_ESS)
    g_assert_cmpuint (multi_arc_total, >, 1000);
  else
    g_assert_cmpuint (bounces_total, >, 10000);
}

/* ---- Kolmogorov-Smirnov test of a marginal ----------------------------- */

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* sup |F_n - F| for the truncated normal CDF F of N(mu, sigma^2) on (a, b). */
static double
ks_statistic (double *sorted, size_t n, double mu, double sigma, double a, double b)
{
  double la = sg_norm_cdf ((a - mu) / sigma), lb = sg_norm_cdf ((b - mu) / sigma);
  double D = 0;
  for (size_t i = 0; i < n; i++)
    {
      double F = (sg_norm_cdf ((sorted[i] - mu) / sigma) - la) / (lb - la);
      D = fmax (D, fmax ((double) (i + 1) / (double) n - F, F - (double) i / (double) n));
    }
  return D;
}

static void
test_ks_marginal (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  /* 3-D correlated Gaussian, only x0 bounded: the marginal of x0 is the
   * 1-D truncated normal, while lin-ess moves all three coordinates. */
  double mean[3] = { 0.2, -0.5, 1.0 };
  double cov[9] = { 1.5, 0.9, -0.6,
                    0.9, 1.0, -0.3,
                   -0.6, -0.3, 0.8 };
  double lower[3] = { -0.3, -INFINITY, -INFINITY };
  double upper[3] = { 1.2, INFINITY, INFINITY };
  sg_tmvn_options opt = mopt;
  opt.thin = 0;   /* automatic: nearly independent states */
  size_t n = 3000;
  sg_tmvn_info info;
  double *x = draw (3, mean, cov, lower, upper, &opt, 7, n, &info);
  double *x0 = g_new (double, n);
  for (size_t t = 0; t < n; t++)
    x0[t] = x[t * 3];
  double tau;
  g_assert_cmpint (sg_mcmc_iat (x0, 1, n, 0, 1, &tau), ==, SG_OK);
  qsort (x0, n, sizeof *x0, compare_doubles);
  double sigma = sqrt (cov[0]);
  double D = ks_statistic (x0, n, mean[0], sigma, lower[0], upper[0]);
  /* The kept states are nearly independent; the remaining correlation is
   * accounted for by the effective size n / tau. 1.949 is the 0.999
   * quantile of the Kolmogorov distribution. */
  double n_eff = (double) n / tau;
  g_test_message ("KS: thin %zu (pilot IAT %.2f), thinned IAT %.2f, D %.4f, "
                  "sqrt(n_eff) D = %.3f", info.thin, info.pilot_iat, tau, D,
                  sqrt (n_eff) * D);
  g_assert_cmpfloat (sqrt (n_eff) * D, <, 1.949);
  /* Power: a marginal off by 0.3 sd in location is rejected. */
  double D_wrong = ks_statistic (x0, n, mean[0] + 0.3 * sigma, sigma, lower[0], upper[0]);
  g_assert_cmpfloat (sqrt (n_eff) * D_wrong, >, 1.949);
  g_free (x0);
  g_free (x);
}

/* ---- 5-D against rejection sampling ----------------------------------- */

static void
test_rejection_5d (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  const size_t d = 5;
  gsl_rng *rng = sg_rng_new (55, 0);
  double cov[25], L[25];
  random_cov (rng, d, cov);
  double mean[5] = { 0.3, -0.2, 0.5, 0.0, -0.4 };
  double lower[5] = { 0.0, -0.5, -INFINITY, -1.0, 0.0 };
  double upper[5] = { INFINITY, 1.0, 1.5, 0.5, INFINITY };
  g_assert_cmpint (sg_cholesky (cov, d, SG_CHOLESKY_MAX_JITTER, L, NULL), ==, SG_OK);

  /* Rejection: independent draws, so se = sd / sqrt(n). */
  size_t n_rej = 40000, tried = 0, got = 0;
  double *xr = g_new (double, n_rej * d);
  double z[5];
  while (got < n_rej)
    {
      for (size_t i = 0; i < d; i++)
        z[i] = sg_rng_gaussian (rng);
      sg_trmv_lower (L, d, z);
      int ok = 1;
      for (size_t i = 0; i < d; i++)
        {
          z[i] += mean[i];
          ok &= z[i] > lower[i] && z[i] < upper[i];
        }
      tried++;
      if (ok)
        memcpy (xr + d * got++, z, sizeof z);
    }
  g_test_message ("rejection acceptance rate %.3f", (double) n_rej / (double) tried);

  size_t n = 40000;
  sg_tmvn_info info;
  double *xl = draw (d, mean, cov, lower, upper, &mopt, 56, n, &info);
  g_assert_cmpuint (info.stuck, ==, 0);

  /* Compare every mean and covariance: difference of two independent
   * estimates, se = sqrt(se_lin^2 + se_rej^2). */
  double *y = g_new (double, n), *yr = g_new (double, n_rej);
  double Er[5];
  for (size_t j = 0; j < d; j++)
    {
      double m, se, mr, ser;
      mean_and_se (xl + j, 1, n, d, &m, &se, NULL);
      for (size_t t = 0; t < n_rej; t++)
        yr[t] = xr[t * d + j];
      double v = 0;
      mr = 0;
      for (size_t t = 0; t < n_rej; t++)
        mr += yr[t];
      mr /= (double) n_rej;
      for (size_t t = 0; t < n_rej; t++)
        v += (yr[t] - mr) * (yr[t] - mr);
      ser = sqrt (v / (double) (n_rej - 1) / (double) n_rej);
      Er[j] = mr;
      g_test_message ("5-D E[x%zu]: lin-ess %.4f (se %.4f), rejection %.4f (se %.4f)",
                      j, m, se, mr, ser);
      g_assert_cmpfloat (fabs (m - mr), <=, NSE * hypot (se, ser));
    }
  for (size_t j = 0; j < d; j++)
    for (size_t k = 0; k <= j; k++)
      {
        /* centred on the rejection means: E[(x_j - Er_j)(x_k - Er_k)] is the
         * same number for both samplers */
        for (size_t t = 0; t < n; t++)
          y[t] = (xl[t * d + j] - Er[j]) * (xl[t * d + k] - Er[k]);
        for (size_t t = 0; t < n_rej; t++)
          yr[t] = (xr[t * d + j] - Er[j]) * (xr[t * d + k] - Er[k]);
        double m, se, mr, ser;
        mean_and_se (y, 1, n, 1, &m, &se, NULL);
        double v = 0;
        mr = 0;
        for (size_t t = 0; t < n_rej; t++)
          mr += yr[t];
        mr /= (double) n_rej;
        for (size_t t = 0; t < n_rej; t++)
          v += (yr[t] - mr) * (yr[t] - mr);
        ser = sqrt (v / (double) (n_rej - 1) / (double) n_rej);
        g_test_message ("5-D C[%zu,%zu]: lin-ess %.4f (se %.4f), rejection %.4f (se %.4f)",
                        j, k, m, se, mr, ser);
        g_assert_cmpfloat (fabs (m - mr), <=, NSE * hypot (se, ser));
      }
  g_free (y);
  g_free (yr);
  g_free (xl);
  g_free (xr);
  sg_rng_free (rng);
}

/* ---- several chains on threads ------------------------------------------ */

static void
test_chains (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  /* 2-D correlated orthant (case 2 of tmvn-2d.txt). */
  double mean[2] = { 0.3, -0.2 }, cov[4] = { 1.0, 0.8, 0.8, 1.5 };
  double lower[2] = { 0, 0 };
  double E[2] = { 1.1121290331972544, 0.9728802410672921 };
  double C[4] = { 0.4753999402794742, 0.2054662379467156,
                  0.2054662379467156, 0.5153844103605146 };
  sg_tmvn_options opt = mopt;
  opt.n_chains = 4;
  opt.thin = 2;
  size_t n = 40000;
  sg_tmvn_info info;
  double *x = draw (2, mean, cov, lower, NULL, &opt, 3, n, &info);
  check_moments (x, 4, n / 4, 2, E, C, "4 chains");
  g_assert_cmpuint (info.steps, ==, 4 * opt.burn_in + 2 * n);

  /* The output depends on the seed only, not on the number of threads. */
  opt.n_threads = 1;
  double *x1 = draw (2, mean, cov, lower, NULL, &opt, 3, n, NULL);
  g_assert_cmpmem (x, n * 2 * sizeof *x, x1, n * 2 * sizeof *x1);
  opt.n_threads = 3;
  double *x3 = draw (2, mean, cov, lower, NULL, &opt, 3, n, NULL);
  g_assert_cmpmem (x, n * 2 * sizeof *x, x3, n * 2 * sizeof *x3);
  /* ... and the chains are different streams. */
  g_assert_cmpfloat (x[0], !=, x[(n / 4) * 2]);
  g_free (x);
  g_free (x1);
  g_free (x3);
}

/* ---- automatic thinning ------------------------------------------------- */

static void
test_auto_thin (void)
{
  /* A strongly correlated 10-D orthant: a slowly mixing chain. */
  const size_t d = 10;
  gsl_rng *rng = sg_rng_new (77, 0);
  double cov[100], mean[10], lower[10];
  random_cov (rng, d, cov);
  for (size_t i = 0; i < d; i++)
    {
      mean[i] = -0.5;
      lower[i] = 0;
    }
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  size_t n = 4000;
  double *plain = draw (d, mean, cov, lower, NULL, &opt, 78, n, NULL);
  double tau_plain;
  g_assert_cmpint (sg_mcmc_iat_max (plain, 1, n, d, &tau_plain, NULL), ==, SG_OK);

  opt.thin = 0;
  opt.pilot = 4000;
  sg_tmvn_info info;
  double *thinned = draw (d, mean, cov, lower, NULL, &opt, 78, n, &info);
  double tau_thin;
  g_assert_cmpint (sg_mcmc_iat_max (thinned, 1, n, d, &tau_thin, NULL), ==, SG_OK);
  g_test_message ("auto thin: plain IAT %.1f, pilot IAT %.1f, thin %zu, thinned IAT %.2f",
                  tau_plain, info.pilot_iat, info.thin, tau_thin);
  g_assert_cmpuint (info.thin, ==, (size_t) floor (info.pilot_iat + 0.5));
  g_assert_cmpfloat (tau_plain, >, 3);   /* the test case does need thinning */
  /* thin ~ IAT leaves lag-1 autocorrelation ~ exp(-1) for an exponentially
   * decaying ACF, i.e. IAT (1 + e^-1) / (1 - e^-1) = 2.2; allow for the
   * estimation noise of both IATs. */
  g_assert_cmpfloat (tau_thin, <, 3.5);
  g_assert_cmpuint (info.steps, ==, opt.burn_in + opt.pilot + info.thin * n);
  g_free (plain);
  g_free (thinned);
  sg_rng_free (rng);
}

/* ---- feasible start, singular covariances, errors ------------------------ */

static void
test_orthant_far_from_mean (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  /* 50-D orthant with the mean 5 sd below every bound, correlated. */
  const size_t d = 50;
  gsl_rng *rng = sg_rng_new (5, 0);
  double *cov = g_new (double, d * d), *mean = g_new (double, d), *lower = g_new (double, d);
  random_cov (rng, d, cov);
  for (size_t i = 0; i < d; i++)
    {
      mean[i] = -5 * sqrt (cov[i * d + i]);
      lower[i] = 0;
    }
  size_t n = 500;
  double *x = draw (d, mean, cov, lower, NULL, &mopt, 6, n, NULL);
  for (size_t i = 0; i < n * d; i++)
    g_assert_cmpfloat (x[i], >, 0);
  g_free (x);
  g_free (cov);
  g_free (mean);
  g_free (lower);
  sg_rng_free (rng);
}

static void
test_singular_covariance (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  /* Zero variance: x1 is fixed at its mean, inside [lower, upper] ... */
  double mean[3] = { 0.1, 0.5, -0.2 };
  double cov[9] = { 1, 0, 0.3, 0, 0, 0, 0.3, 0, 2 };
  double lower[3] = { 0, 0.5, -INFINITY }, upper[3] = { INFINITY, 1, INFINITY };
  sg_tmvn_info info;
  size_t n = 1000;
  double *x = draw (3, mean, cov, lower, upper, &mopt, 8, n, &info);
  g_assert_cmpuint (info.rank, ==, 2);
  for (size_t t = 0; t < n; t++)
    {
      g_assert_cmpfloat (x[t * 3 + 1], ==, 0.5);
      g_assert_cmpfloat (x[t * 3], >, 0);
    }
  g_free (x);
  /* ... or outside it: probability zero. */
  sg_tmvn *s = (sg_tmvn *) 0x1;
  mean[1] = 1.5;
  g_assert_cmpint (sg_tmvn_new (3, mean, cov, lower, upper, NULL, &s), ==, SG_EINFEASIBLE);
  g_assert_true (s == (sg_tmvn *) 0x1);

  /* Rank one: x0 = x1 exactly. The box x1 > 1 is reached through x0's
   * direction; E = 1-D truncated mean phi(1) / Phi(-1). */
  double m2[2] = { 0, 0 }, c2[4] = { 1, 1, 1, 1 };
  double l2[2] = { -INFINITY, 1 };
  n = 20000;
  double *y = draw (2, m2, c2, l2, NULL, &mopt, 9, n, &info);
  g_assert_cmpuint (info.rank, ==, 1);
  for (size_t t = 0; t < n; t++)
    {
      g_assert_cmpfloat (y[2 * t + 1], >, 1);
      g_assert_cmpfloat_with_epsilon (y[2 * t], y[2 * t + 1], 1e-12);
    }
  double E, V;
  trunc_moments_1d (0, 1, 1, INFINITY, &E, &V);
  double Ev[2] = { E, E }, Cv[4] = { V, V, V, V };
  check_moments (y, 1, n, 2, Ev, Cv, "rank one");
  g_free (y);
  /* x0 > 1 and x1 < -1 with x0 = x1: empty. */
  double l3[2] = { 1, -INFINITY }, u3[2] = { INFINITY, -1 };
  g_assert_cmpint (sg_tmvn_new (2, m2, c2, l3, u3, NULL, &s), ==, SG_EINFEASIBLE);

  /* cov = 0: every sample is the mean. */
  double z4[4] = { 0, 0, 0, 0 }, m4[2] = { 1, 2 };
  double *w = draw (2, m4, z4, NULL, NULL, &mopt, 1, 10, &info);
  g_assert_cmpuint (info.rank, ==, 0);
  for (size_t t = 0; t < 10; t++)
    g_assert_true (w[2 * t] == 1 && w[2 * t + 1] == 2);
  g_free (w);
}

static void
test_bad_input (void)
{
  sg_tmvn *s = NULL;
  double m[2] = { 0, 0 }, c[4] = { 1, 0.5, 0.5, 1 };
  double lo[2] = { 0, 0 }, up[2] = { 1, 1 };
  double indef[4] = { 1, 2, 2, 1 };
  g_assert_cmpint (sg_tmvn_new (2, m, indef, NULL, NULL, NULL, &s), ==, SG_ENOTPD);
  /* zero diagonal hides the indefiniteness from the pivots */
  double indef3[9] = { 1, 0, 0, 0, 0, 1, 0, 1, 0 };
  double m3[3] = { 0, 0, 0 };
  g_assert_cmpint (sg_tmvn_new (3, m3, indef3, NULL, NULL, NULL, &s), ==, SG_ENOTPD);
  double negdiag[4] = { 1, 0, 0, -1 };
  g_assert_cmpint (sg_tmvn_new (2, m, negdiag, NULL, NULL, NULL, &s), ==, SG_ENOTPD);
  double asym[4] = { 1, 0.5, 0.4, 1 };
  g_assert_cmpint (sg_tmvn_new (2, m, asym, NULL, NULL, NULL, &s), ==, SG_EINVAL);
  double mnan[2] = { NAN, 0 };
  g_assert_cmpint (sg_tmvn_new (2, mnan, c, NULL, NULL, NULL, &s), ==, SG_EINVAL);
  double lbad[2] = { 2, 0 };
  g_assert_cmpint (sg_tmvn_new (2, m, c, lbad, up, NULL, &s), ==, SG_EINVAL);
  double lnan[2] = { NAN, 0 };
  g_assert_cmpint (sg_tmvn_new (2, m, c, lnan, up, NULL, &s), ==, SG_EINVAL);
  double leq[2] = { 1, 0 };
  g_assert_cmpint (sg_tmvn_new (2, m, c, leq, up, NULL, &s), ==, SG_EINFEASIBLE);
  g_assert_cmpint (sg_tmvn_new (0, m, c, lo, up, NULL, &s), ==, SG_EINVAL);
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.n_chains = 0;
  g_assert_cmpint (sg_tmvn_new (2, m, c, lo, up, &opt, &s), ==, SG_EINVAL);
  g_assert_null (s);
}

/* ---- reproducibility, continuation, cancellation --------------------------- */

static int
cancel_after_first (double fraction, void *data)
{
  int *calls = data;
  g_assert_cmpfloat (fraction, >=, 0);
  g_assert_cmpfloat (fraction, <=, 1);
  return ++*calls > 1;
}

static void
test_continuation_and_cancel (void)
{
  double mean[2] = { 0.3, -0.2 }, cov[4] = { 1.0, 0.8, 0.8, 1.5 }, lower[2] = { 0, 0 };
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.thin = 3;
  size_t n = 1000;
  double *whole = draw (2, mean, cov, lower, NULL, &opt, 21, n, NULL);

  /* Two calls continue the chain: identical to one call. */
  sg_tmvn *s;
  g_assert_cmpint (sg_tmvn_new (2, mean, cov, lower, NULL, &opt, &s), ==, SG_OK);
  gsl_rng *rng = sg_rng_new (21, 0);
  double *parts = g_new (double, n * 2);
  g_assert_cmpint (sg_tmvn_sample (s, rng, n / 2, NULL, parts), ==, SG_OK);
  g_assert_cmpint (sg_tmvn_sample (s, rng, n - n / 2, NULL, parts + (n / 2) * 2), ==, SG_OK);
  g_assert_cmpmem (whole, n * 2 * sizeof *whole, parts, n * 2 * sizeof *parts);

  /* Cancellation: the callback stops the loop promptly. */
  int calls = 0;
  sg_progress progress = { cancel_after_first, &calls };
  double *big = g_new (double, 100000 * 2);
  g_assert_cmpint (sg_tmvn_sample (s, rng, 100000, &progress, big), ==, SG_ECANCELLED);
  g_assert_cmpint (calls, ==, 2);
  sg_tmvn_info info;
  sg_tmvn_get_info (s, &info);
  g_assert_cmpuint (info.steps, <, opt.burn_in + 3 * n + 3 * 256);
  g_free (big);
  g_free (parts);
  g_free (whole);
  sg_rng_free (rng);
  sg_tmvn_free (s);
}

/* ---- progress -------------------------------------------------------------- */

typedef struct {
  double last;
  size_t calls;
} progress_log;

static int
record_progress (double fraction, void *data)
{
  progress_log *log = data;
  g_assert_cmpfloat (fraction, >=, log->last);   /* never goes back */
  g_assert_cmpfloat (fraction, <=, 1);
  log->last = fraction;
  log->calls++;
  return 0;
}

static void
test_progress (void)
{
  /* burn-in + pilot + sampling on two chains: one monotone bar */
  double mean[2] = { 0.3, -0.2 }, cov[4] = { 1.0, 0.8, 0.8, 1.5 }, lower[2] = { 0, 0 };
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.thin = 0;
  opt.pilot = 3000;
  opt.burn_in = 3000;
  opt.n_chains = 2;
  sg_tmvn *s;
  g_assert_cmpint (sg_tmvn_new (2, mean, cov, lower, NULL, &opt, &s), ==, SG_OK);
  gsl_rng *rng = sg_rng_new (4, 0);
  size_t n = 20000;
  double *x = g_new (double, n * 2);
  progress_log log = { 0, 0 };
  sg_progress progress = { record_progress, &log };
  g_assert_cmpint (sg_tmvn_sample (s, rng, n, &progress, x), ==, SG_OK);
  g_test_message ("%zu progress calls, last %.3f", log.calls, log.last);
  g_assert_cmpuint (log.calls, >, 20);
  g_assert_cmpfloat (log.last, >, 0.9);
  g_free (x);
  sg_rng_free (rng);
  sg_tmvn_free (s);
}

/* ---- a SkewGP-like preference posterior ----------------------------------- */

/* t ~ N(0, S) on t > 0 with S = W K W^T + s2 I: W the difference rows of M
 * duels between random points of [0, 1], K an RBF kernel (lengthscale 0.2),
 * s2 = 0.02 — the truncated part of a preference posterior (docs/DESIGN.md §3.3). */
static double *
duel_covariance (size_t m, uint64_t seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  size_t n = 2 * m;
  double *X = g_new (double, n), *K = g_new (double, n * n);
  double *W = g_new0 (double, m * n), *WK = g_new (double, m * n);
  double *S = g_new (double, m * m);
  for (size_t i = 0; i < n; i++)
    X[i] = gsl_rng_uniform (rng);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      K[i * n + j] = exp (-0.5 * (X[i] - X[j]) * (X[i] - X[j]) / 0.04);
  for (size_t i = 0; i < m; i++)
    {
      double sign = sin (6 * X[2 * i]) > sin (6 * X[2 * i + 1]) ? 1 : -1;
      W[i * n + 2 * i] = sign;
      W[i * n + 2 * i + 1] = -sign;
    }
  sg_gemm (0, 0, m, n, n, 1.0, W, K, 0.0, WK);
  sg_gemm (0, 1, m, m, n, 1.0, WK, W, 0.0, S);
  sg_symmetrize (S, m);
  for (size_t i = 0; i < m; i++)
    S[i * m + i] += 0.02;
  g_free (X);
  g_free (K);
  g_free (W);
  g_free (WK);
  sg_rng_free (rng);
  return S;
}

static void
test_duel_posterior (void)
{
  /* Both transitions target the same distribution: their means agree
   * within the combined Markov-chain standard error. And the better-mixing
   * option does mix better: exact HMC's IAT is a few steps where lin-ess
   * needs hundreds (results-tmvn.md); this guards against a regression. */
  const size_t m = 20;
  double *S = duel_covariance (m, 12);
  double *mean = g_new0 (double, m), *lower = g_new0 (double, m);
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.burn_in = 2000;
  size_t n_ess = 300000, n_hmc = 20000;
  double *xe = draw (m, mean, S, lower, NULL, &opt, 13, n_ess, NULL);
  opt.method = SG_TMVN_EXACT_HMC;
  sg_tmvn_info info;
  double *xh = draw (m, mean, S, lower, NULL, &opt, 14, n_hmc, &info);
  g_assert_cmpuint (info.stuck, ==, 0);
  double tau_ess_max = 0, tau_hmc_max = 0;
  for (size_t j = 0; j < m; j++)
    {
      double me, se_e, te, mh, se_h, th;
      mean_and_se (xe + j, 1, n_ess, m, &me, &se_e, &te);
      mean_and_se (xh + j, 1, n_hmc, m, &mh, &se_h, &th);
      g_test_message ("duels t%zu: lin-ess %.4f (se %.4f, IAT %.0f), HMC %.4f (se %.4f, IAT %.2f)",
                      j, me, se_e, te, mh, se_h, th);
      g_assert_cmpfloat (fabs (me - mh), <=, NSE * hypot (se_e, se_h));
      tau_ess_max = fmax (tau_ess_max, te);
      tau_hmc_max = fmax (tau_hmc_max, th);
    }
  g_test_message ("IAT max: lin-ess %.1f, exact HMC %.2f (%.1f reflections per step)",
                  tau_ess_max, tau_hmc_max, (double) info.bounces / (double) info.steps);
  g_assert_cmpfloat (tau_hmc_max, <, 3);
  g_assert_cmpfloat (tau_ess_max, >, 10 * tau_hmc_max);
  g_free (xe);
  g_free (xh);
  g_free (S);
  g_free (mean);
  g_free (lower);
}

/* ---- the IAT estimator itself -------------------------------------------- */

static void
test_iat_ar1 (void)
{
  /* AR(1) x_t = phi x_{t-1} + e_t: rho(k) = phi^k, tau = (1 + phi) / (1 - phi)
   * = 19 for phi = 0.9. Sokal's estimator has relative sd about
   * sqrt(2 (2M + 1) / n), M ~ 5 tau = 95: 2% at n = 10^6; allow 10%. */
  size_t n = 1000000;
  double phi = 0.9;
  gsl_rng *rng = sg_rng_new (31, 0);
  double *x = g_new (double, n);
  x[0] = sg_rng_gaussian (rng) / sqrt (1 - phi * phi);
  for (size_t t = 1; t < n; t++)
    x[t] = phi * x[t - 1] + sg_rng_gaussian (rng);
  double tau;
  g_assert_cmpint (sg_mcmc_iat (x, 1, n, 0, 1, &tau), ==, SG_OK);
  g_test_message ("AR(1) phi 0.9: tau %.3f (exact 19)", tau);
  g_assert_cmpfloat (fabs (tau / 19 - 1), <, 0.1);
  /* Four chains of n/4 give the same answer ... */
  g_assert_cmpint (sg_mcmc_iat (x, 4, n / 4, n / 4, 1, &tau), ==, SG_OK);
  g_assert_cmpfloat (fabs (tau / 19 - 1), <, 0.1);
  /* ... unless they disagree: chains stuck at different levels. */
  for (size_t t = 0; t < n / 2; t++)
    x[t] += 3;
  g_assert_cmpint (sg_mcmc_iat (x, 4, n / 4, n / 4, 1, &tau), ==, SG_OK);
  g_assert_cmpfloat (tau, >, 100);
  /* White noise: tau = 1 (sd of the estimate ~ sqrt(22 / n)). */
  for (size_t t = 0; t < n; t++)
    x[t] = sg_rng_gaussian (rng);
  g_assert_cmpint (sg_mcmc_iat (x, 1, n, 0, 1, &tau), ==, SG_OK);
  g_assert_cmpfloat (fabs (tau - 1), <, 0.03);
  /* constant */
  for (size_t t = 0; t < 100; t++)
    x[t] = 2;
  g_assert_cmpint (sg_mcmc_iat (x, 1, 100, 0, 1, &tau), ==, SG_OK);
  g_assert_cmpfloat (tau, ==, 1);
  g_assert_cmpint (sg_mcmc_iat (x, 1, 1, 0, 1, &tau), ==, SG_EINVAL);
  g_free (x);
  sg_rng_free (rng);
}

/* ---- bounds written for infinity --------------------------------------- */

/* An upper bound of 1e60 ... 1e308 is the half-line: the moments of
 * N(0, 1) truncated to (0.2, inf) (E = 0.9295). The mean was 2e66 at
 * 1e100. */
static void
test_far_bounds (gconstpointer method)
{
  sg_tmvn_options mopt = options_for (method);
  double E, V, mu = 0, var = 1, a = 0.2;
  trunc_moments_1d (0, 1, 0.2, INFINITY, &E, &V);
  int k = 0;
  for (double big = 1e60; big <= 1e308; big *= 1e62, k++)
    {
      size_t n = 20000;
      double *x = draw (1, &mu, &var, &a, &big, &mopt, 40 + k, n, NULL);
      g_autofree char *what = g_strdup_printf ("%s, upper %g", method_name (method), big);
      check_moments (x, 1, n, 1, &E, &V, what);
      g_free (x);
    }
  /* 2-D: the same far bound on a correlated pair, against the half-line */
  double mean2[2] = { 0, 0 }, cov2[4] = { 1, 0.5, 0.5, 1 };
  double lo2[2] = { 0.2, -INFINITY }, up2[2] = { 1e100, 1e200 }, upinf[2] = { INFINITY, INFINITY };
  size_t n = 20000;
  double *x = draw (2, mean2, cov2, lo2, up2, &mopt, 77, n, NULL);
  double *y = draw (2, mean2, cov2, lo2, upinf, &mopt, 77, n, NULL);
  g_assert_cmpmem (x, n * 2 * sizeof *x, y, n * 2 * sizeof *y);   /* the same chain */
  g_free (x);
  g_free (y);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* /slow/: thorough cases, run by the slow suite (tests/meson.build). */
  g_test_add_func ("/slow/mcmc/iat-ar1", test_iat_ar1);
  static const struct {
    const char *path;
    GTestDataFunc func;
  } both[] = {
    { "1d-moments", test_1d_moments },
    { "2d-moments", test_2d_moments },
    { "ks-marginal", test_ks_marginal },
    { "rejection-5d", test_rejection_5d },
    { "chains", test_chains },
    { "orthant-far-from-mean", test_orthant_far_from_mean },
    { "singular-covariance", test_singular_covariance },
    { "far-bounds", test_far_bounds },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (both); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/tmvn/lin-ess/%s", both[i].path);
      g_autofree char *p2 = g_strdup_printf ("/tmvn/exact-hmc/%s", both[i].path);
      g_autofree char *p3 = g_strdup_printf ("/tmvn/exact-hmc-long/%s", both[i].path);
      g_test_add_data_func (p1, GINT_TO_POINTER (SG_TMVN_LIN_ESS), both[i].func);
      g_test_add_data_func (p2, GINT_TO_POINTER (SG_TMVN_EXACT_HMC), both[i].func);
      g_test_add_data_func (p3, GINT_TO_POINTER (EXACT_HMC_LONG), both[i].func);
    }
  g_test_add_func ("/tmvn/auto-thin", test_auto_thin);
  g_test_add_func ("/tmvn/bad-input", test_bad_input);
  g_test_add_func ("/tmvn/continuation-and-cancel", test_continuation_and_cancel);
  g_test_add_func ("/tmvn/progress", test_progress);
  g_test_add_func ("/slow/tmvn/duel-posterior", test_duel_posterior);
  return g_test_run ();
}
