/* bench-tmvn.c — lin-ess speed and mixing (results in results-tmvn.md).
 *
 * Part 1, speed: samples per second of an orthant-truncated Gaussian
 * N(0, S), S a random correlated covariance, t > 0, for d = 50, 200, 1000
 * (one chain, thin 1; set OPENBLAS_NUM_THREADS=1 for the one-core figure).
 *
 * Part 2, mixing on a SkewGP-like posterior: t ~ N(0, S) truncated to
 * t > 0, S = W K W^T + s2 I, W the difference rows (winner - loser) of M
 * random duels between points of [0, 1]^D, K an RBF kernel on those points,
 * the winner given by a probit-noisy comparison of a test function. This
 * is exactly the truncated part of a preference posterior (docs/DESIGN.md §3.3).
 * Reports the integrated autocorrelation time (IAT) of every coordinate
 * (max and median) and of a linear read-out (the mean of t), and the
 * effective samples per second of three ways to ask for N samples:
 * one plain chain, two chains on two threads, and two chains with the
 * automatic thinning (thin = 0).
 *
 * Usage: bench-tmvn [--quick] [--speed]   (--speed: part 1 only)
 */
#include "sg-common.h"
#include "sg-kernel.h"
#include "sg-linalg.h"
#include "sg-mcmc.h"
#include "sg-rng.h"
#include "sg-tmvn.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void
die_if (int status, const char *what)
{
  if (status != SG_OK)
    {
      fprintf (stderr, "bench-tmvn: %s: %s\n", what, sg_strerror (status));
      exit (1);
    }
}

static void
random_cov (gsl_rng *rng, size_t d, double *S)
{
  double *B = malloc (d * d * sizeof *B);
  for (size_t i = 0; i < d * d; i++)
    B[i] = sg_rng_gaussian (rng);
  sg_gemm (0, 1, d, d, d, 1.0 / (double) d, B, B, 0.0, S);
  for (size_t i = 0; i < d; i++)
    S[i * d + i] += 0.05;
  free (B);
}

/* ---- Part 1 ------------------------------------------------------------- */

static void
speed (sg_tmvn_method method, size_t d, size_t n)
{
  gsl_rng *rng = sg_rng_new (1000 + d, 0);
  double *S = malloc (d * d * sizeof *S), *mean = calloc (d, sizeof *mean);
  double *lower = calloc (d, sizeof *lower), *out = malloc (n * d * sizeof *out);
  random_cov (rng, d, S);
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.burn_in = 0;
  opt.method = method;

  double t0 = now ();
  sg_tmvn *s;
  die_if (sg_tmvn_new (d, mean, S, lower, NULL, &opt, &s), "sg_tmvn_new");
  double t1 = now ();
  die_if (sg_tmvn_sample (s, rng, n, NULL, out), "sg_tmvn_sample");
  double t2 = now ();
  double tau;
  size_t which;
  die_if (sg_mcmc_iat_max (out, 1, n, d, &tau, &which), "iat");
  sg_tmvn_info info;
  sg_tmvn_get_info (s, &info);
  printf ("| %-9s | %5zu | %6zu | %8.3f | %8.3f | %10.0f | %8.1f | %7.1f | %9.0f | %9.3f | %9.1f |\n",
          method == SG_TMVN_EXACT_HMC ? "exact HMC" : "lin-ess", d, n, t1 - t0, t2 - t1,
          (double) n / (t2 - t1), 1e6 * (t2 - t1) / (double) n, tau,
          (double) n / tau / (t2 - t1),
          (double) info.multi_arc / (double) info.steps,
          (double) info.bounces / (double) info.steps);
  sg_tmvn_free (s);
  free (S);
  free (mean);
  free (lower);
  free (out);
  sg_rng_free (rng);
}

/* ---- Part 2 ------------------------------------------------------------- */

/* A smooth test function on [0, 1]^D with a few bumps. */
static double
test_function (const double *x, size_t D)
{
  double v = 0;
  for (size_t k = 0; k < D; k++)
    v += cos (5 * (2.6 * x[k] - 1.3)) + exp (-0.5 * (2.6 * x[k] - 1.3) * (2.6 * x[k] - 1.3));
  return v;
}

typedef struct {
  size_t m;          /* duels = dimension of t */
  double *S, *mean;  /* m x m, m */
} duel_case;

/* Builds S = W K W^T + s2 I for M duels in D dimensions: 2M random points,
 * duel i compares points 2i and 2i+1; the winner is the one with the
 * larger g(x) + N(0, s2 / 2) noise (a probit preference with noise sd
 * sqrt(s2 / 2) per point, 001 eq. 4). */
static duel_case
make_duels (size_t m, size_t D, double lengthscale, double s2, uint64_t seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  size_t n = 2 * m;
  double *X = malloc (n * D * sizeof *X);
  for (size_t i = 0; i < n * D; i++)
    X[i] = gsl_rng_uniform (rng);
  double *K = malloc (n * n * sizeof *K);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        double r2 = 0;
        for (size_t k = 0; k < D; k++)
          r2 += (X[i * D + k] - X[j * D + k]) * (X[i * D + k] - X[j * D + k]);
        K[i * n + j] = exp (-0.5 * r2 / (lengthscale * lengthscale));
      }
  double *W = calloc (m * n, sizeof *W);
  for (size_t i = 0; i < m; i++)
    {
      double ga = test_function (X + 2 * i * D, D) + sqrt (s2 / 2) * sg_rng_gaussian (rng);
      double gb = test_function (X + (2 * i + 1) * D, D) + sqrt (s2 / 2) * sg_rng_gaussian (rng);
      double sign = ga > gb ? 1 : -1;
      W[i * n + 2 * i] = sign;
      W[i * n + 2 * i + 1] = -sign;
    }
  double *WK = malloc (m * n * sizeof *WK);
  duel_case c = { m, malloc (m * m * sizeof *c.S), calloc (m, sizeof *c.mean) };
  sg_gemm (0, 0, m, n, n, 1.0, W, K, 0.0, WK);
  sg_gemm (0, 1, m, m, n, 1.0, WK, W, 0.0, c.S);
  sg_symmetrize (c.S, m);
  for (size_t i = 0; i < m; i++)
    c.S[i * m + i] += s2;
  free (X);
  free (K);
  free (W);
  free (WK);
  sg_rng_free (rng);
  return c;
}

/* IAT summary of n x m samples made of N_CHAINS chains: max and median
 * over coordinates, and of the row mean. */
static void
iat_summary (const double *x, size_t n_chains, size_t n, size_t m,
             double *tmax, double *tmed, double *tsum)
{
  double *taus = malloc (m * sizeof *taus);
  for (size_t j = 0; j < m; j++)
    die_if (sg_mcmc_iat (x + j, n_chains, n, n * m, m, &taus[j]), "iat");
  double *rowmean = malloc (n_chains * n * sizeof *rowmean);
  for (size_t t = 0; t < n_chains * n; t++)
    {
      rowmean[t] = 0;
      for (size_t j = 0; j < m; j++)
        rowmean[t] += x[t * m + j] / (double) m;
    }
  die_if (sg_mcmc_iat (rowmean, n_chains, n, n, 1, tsum), "iat");
  /* median by a simple sort */
  for (size_t i = 1; i < m; i++)
    for (size_t j = i; j > 0 && taus[j - 1] > taus[j]; j--)
      {
        double t = taus[j];
        taus[j] = taus[j - 1];
        taus[j - 1] = t;
      }
  *tmax = taus[m - 1];
  *tmed = taus[m / 2];
  free (taus);
  free (rowmean);
}

/* One configuration: N requested samples; prints time, IATs, ESS. */
static void
mixing_run (const char *label, const duel_case *c, sg_tmvn_method method,
            size_t n_chains, size_t thin, size_t n, uint64_t seed)
{
  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.method = method;
  opt.n_chains = n_chains;
  opt.thin = thin;
  opt.burn_in = 1000;
  /* the pilot must cover ~50 IATs: long for lin-ess, short for HMC */
  opt.pilot = method == SG_TMVN_EXACT_HMC ? 2000 : 20000;
  double *out = malloc (n * c->m * sizeof *out);
  gsl_rng *rng = sg_rng_new (seed, 0);
  double *lower = calloc (c->m, sizeof *lower);
  double t0 = now ();
  sg_tmvn *s;
  die_if (sg_tmvn_new (c->m, c->mean, c->S, lower, NULL, &opt, &s), "new");
  die_if (sg_tmvn_sample (s, rng, n, NULL, out), "sample");
  double t1 = now ();
  sg_tmvn_info info;
  sg_tmvn_get_info (s, &info);
  double tmax, tmed, tsum;
  iat_summary (out, n_chains, n / n_chains, c->m, &tmax, &tmed, &tsum);
  double ess = (double) n / tmax;
  printf ("| %-25s | %6zu | %4zu | %7.3f | %7.1f | %7.1f | %7.1f | %8.0f | %9.0f | %9.1f |\n",
          label, n, info.thin, t1 - t0, tmax, tmed, tsum, ess, ess / (t1 - t0),
          (double) info.bounces / (double) info.steps);
  sg_tmvn_free (s);
  free (lower);
  free (out);
  sg_rng_free (rng);
}

static void
mixing (size_t m, size_t D, double lengthscale, double s2, size_t n, int quick)
{
  duel_case c = make_duels (m, D, lengthscale, s2, 17 + m + D);
  printf ("\nSkewGP-like case: %zu duels, D = %zu, RBF lengthscale %.2f, noise variance %.3g\n\n",
          m, D, lengthscale, s2);
  printf ("| %-25s | %6s | %4s | %7s | %7s | %7s | %7s | %8s | %9s | %9s |\n",
          "request", "N", "thin", "time s", "IAT max", "IAT med", "IAT sum",
          "ESS min", "ESS/s", "refl/step");
  printf ("|---------------------------|--------|------|---------|---------|---------|---------|----------|-----------|-----------|\n");
  /* IAT of a plain chain, measured on a long run */
  mixing_run ("lin-ess, 1 chain", &c, SG_TMVN_LIN_ESS, 1, 1, quick ? 20000 : 200000, 5);
  mixing_run ("lin-ess, 2 chains", &c, SG_TMVN_LIN_ESS, 2, 1, quick ? 20000 : 200000, 6);
  mixing_run ("lin-ess, 2 ch., auto thin", &c, SG_TMVN_LIN_ESS, 2, 0, quick ? 200 : 1000, 7);
  mixing_run ("HMC, 1 chain", &c, SG_TMVN_EXACT_HMC, 1, 1, quick ? 2000 : 10000, 8);
  mixing_run ("HMC, 2 chains", &c, SG_TMVN_EXACT_HMC, 2, 1, quick ? 2000 : 10000, 9);
  mixing_run ("HMC, 2 ch., auto thin", &c, SG_TMVN_EXACT_HMC, 2, 0, quick ? 1000 : 2000, 10);
  free (c.S);
  free (c.mean);
}

int
main (int argc, char *argv[])
{
  int quick = 0, speed_only = 0;
  for (int i = 1; i < argc; i++)
    {
      quick |= strcmp (argv[i], "--quick") == 0;
      speed_only |= strcmp (argv[i], "--speed") == 0;
    }
  setvbuf (stdout, NULL, _IOLBF, 0);   /* tables appear as they are made */
  printf ("OpenBLAS: %s (core %s)\n", openblas_get_config (), openblas_get_corename ());
  printf ("OPENBLAS_NUM_THREADS=%s\n\n", getenv ("OPENBLAS_NUM_THREADS")
          ? getenv ("OPENBLAS_NUM_THREADS") : "(unset)");

  printf ("Speed: N(0, S) truncated to t > 0, S random correlated, one chain, thin 1\n\n");
  printf ("| %-9s | %5s | %6s | %8s | %8s | %10s | %8s | %7s | %9s | %9s | %9s |\n", "method",
          "d", "N", "setup s", "sample s", "samples/s", "us/step", "IAT max", "ESS/s",
          "multi-arc", "refl/step");
  printf ("|-----------|-------|--------|----------|----------|------------|----------|---------|-----------|-----------|-----------|\n");
  speed (SG_TMVN_LIN_ESS, 50, 10000);
  speed (SG_TMVN_LIN_ESS, 200, 10000);
  speed (SG_TMVN_LIN_ESS, 1000, quick ? 1000 : 5000);
  speed (SG_TMVN_EXACT_HMC, 50, 2000);
  speed (SG_TMVN_EXACT_HMC, 200, quick ? 200 : 1000);
  speed (SG_TMVN_EXACT_HMC, 1000, quick ? 50 : 200);
  if (speed_only)
    return 0;

  mixing (50, 1, 0.2, 0.02, 0, quick);
  mixing (100, 1, 0.2, 0.02, 0, quick);
  mixing (100, 2, 0.3, 0.02, 0, quick);
  mixing (100, 1, 0.2, 0.5, 0, quick);
  return 0;
}
