/* bench-mvn.c — speed and accuracy of sg_mvn_prob (not a timed test).
 *
 * Part A (self-contained): orthant probabilities P(X < b) for one-factor
 * covariances (equicorrelated rho = 1/2, and random loadings), with b set
 * so that P is about 1e-10, 1e-50, 1e-100; by default sg_mvn integrates
 * these over the factor ("1-D quad"), the point budgets force the QMC. The truth is the 1-D integral
 *   P = int phi(z) prod_i Phi((b_i - a_i z) / s_i) dz
 * by the trapezoid rule in log space (h = 0.002 around the peak; spectrally
 * accurate for this analytic integrand). Reports, over 20 seeds, the CPU
 * time per call and the largest |log error| at a given point budget.
 *
 * Part C (self-contained): orthant probabilities of general 5-factor
 * covariances (the QMC path) down to 1e-100, against our own estimate with
 * 10^6 points (see part_c).
 * Part B (with a problem file written by build-aux/bench-mvn): one line
 * per problem and point budget (10000 = default, 40000) with our log values
 * and error estimates for REPS = 20 seeds and the median CPU time, for the script
 * to put next to scipy and R. Times are CPU seconds of this process (run
 * with OPENBLAS_NUM_THREADS=1: one core).
 */
#include "sg-linalg.h"
#include "sg-mvn.h"
#include "sg-normal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 20  /* seeds per problem in part B: the rms error of 5 is itself uncertain by ~30% */

char *openblas_get_corename (void);
char *openblas_get_config (void);

static double
cpu_seconds (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* ------------------------------------------------- one-factor truth */

typedef struct {
  size_t d;
  double *a, *s, *b;   /* X_i = a_i Z + s_i E_i, event X_i < b_i */
} Factor;

static double
factor_log_integrand (const Factor *f, double z)
{
  double acc = sg_norm_logpdf (z);
  for (size_t i = 0; i < f->d; i++)
    acc += sg_norm_logcdf ((f->b[i] - f->a[i] * z) / f->s[i]);
  return acc;
}

/* log P by the trapezoid rule with step H around the integrand's peak. */
static double
factor_log_prob (const Factor *f, double h)
{
  double zmax = 0, lmax = -INFINITY;
  for (double z = -60; z <= 60; z += 0.05)
    {
      double v = factor_log_integrand (f, z);
      if (v > lmax)
        {
          lmax = v;
          zmax = z;
        }
    }
  double sum = 0;
  for (double z = zmax - 20; z <= zmax + 20; z += h)
    sum += exp (factor_log_integrand (f, z) - lmax);
  return lmax + log (sum * h);
}

/* Shifts all b_i by a common amount so that log P = TARGET (bisection). */
static void
factor_set_level (Factor *f, const double *b0, double target)
{
  double lo = -40, hi = 10;
  for (int it = 0; it < 50; it++)
    {
      double mid = 0.5 * (lo + hi);
      for (size_t i = 0; i < f->d; i++)
        f->b[i] = b0[i] + mid;
      if (factor_log_prob (f, 0.02) > target)
        hi = mid;
      else
        lo = mid;
    }
  for (size_t i = 0; i < f->d; i++)
    f->b[i] = b0[i] + 0.5 * (lo + hi);
}

static double
uniform (unsigned long long *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double) (*state >> 11) / 9007199254740992.0;
}

static void
part_a (void)
{
  const size_t dims[] = { 10, 50, 100, 200 };
  const double levels[] = { -10 * M_LN10, -50 * M_LN10, -100 * M_LN10 };
  /* 0 = the default options, which integrate a one-factor covariance over
   * its factor (1-D quadrature); the others force the QMC (qmc_only) */
  const size_t budgets[] = { 0, 2000, 4000, 10000 };
  const int seeds = 20;
  printf ("## Part A: orthant probabilities, one-factor covariances (truth: 1-D integral)\n\n");
  printf ("%-6s %4s %9s %8s %12s %12s %10s %8s\n", "case", "d", "log10 P", "points",
          "cpu ms/call", "max|dlogP|", "rms", "covered");
  for (int kind = 0; kind < 2; kind++)
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
      {
        size_t d = dims[di];
        Factor f = { d, malloc (d * sizeof (double)), malloc (d * sizeof (double)),
                     malloc (d * sizeof (double)) };
        double *b0 = malloc (d * sizeof (double)), *cov = malloc (d * d * sizeof (double));
        unsigned long long st = 12345 + d;
        for (size_t i = 0; i < d; i++)
          {
            if (kind == 0)
              {
                f.a[i] = sqrt (0.5);
                f.s[i] = sqrt (0.5);
                b0[i] = 0;
              }
            else
              {
                f.a[i] = 0.2 + 0.8 * uniform (&st);
                f.s[i] = sqrt (0.3 + 1.2 * uniform (&st));
                b0[i] = 0.5 * (uniform (&st) - 0.5);
              }
          }
        for (size_t i = 0; i < d; i++)
          for (size_t j = 0; j < d; j++)
            cov[i * d + j] = f.a[i] * f.a[j] + (i == j ? f.s[i] * f.s[i] : 0);
        sg_mvn_workspace *w = sg_mvn_workspace_new (d);
        for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++)
          {
            factor_set_level (&f, b0, levels[li]);
            double truth = factor_log_prob (&f, 0.002);
            for (size_t bi = 0; bi < sizeof budgets / sizeof budgets[0]; bi++)
              {
                double worst = 0, ss = 0, t = 0;
                int covered = 0;
                for (int s = 0; s < seeds; s++)
                  {
                    sg_mvn_options opt;
                    sg_mvn_options_default (&opt);
                    if (budgets[bi] > 0)
                      {
                        opt.n_points = budgets[bi];
                        opt.qmc_only = 1;
                      }
                    opt.seed = (uint64_t) s;
                    sg_mvn_result r;
                    double t0 = cpu_seconds ();
                    if (sg_mvn_prob (w, d, NULL, cov, NULL, f.b, &opt, NULL, &r) != SG_OK)
                      {
                        printf ("failure\n");
                        continue;
                      }
                    t += cpu_seconds () - t0;
                    double e = r.log_value - truth;
                    worst = fmax (worst, fabs (e));
                    ss += e * e;
                    covered += fabs (expm1 (e)) <= r.log_error;
                  }
                char pts[32];
                if (budgets[bi] > 0)
                  snprintf (pts, sizeof pts, "%zu", budgets[bi]);
                else
                  snprintf (pts, sizeof pts, "1-D quad");
                printf ("%-6s %4zu %9.1f %8s %12.2f %12.2e %10.2e %5d/%d\n",
                        kind == 0 ? "equi" : "factor", d, truth / M_LN10, pts,
                        1e3 * t / seeds, worst, sqrt (ss / seeds), covered, seeds);
                fflush (stdout);
              }
          }
        sg_mvn_workspace_free (w);
        free (f.a);
        free (f.s);
        free (f.b);
        free (b0);
        free (cov);
      }
  printf ("\n");
}

/* ------------------------------------------------- part C: 5-factor orthants */

/* COV = W W^T + diag(V): the covariance of a K-factor model (W d x k). */
static void
factor_covariance (const double *W, const double *v, size_t d, size_t k, double *cov)
{
  sg_gemm (0, 1, d, d, k, 1.0, W, W, 0.0, cov);
  for (size_t i = 0; i < d; i++)
    cov[i * d + i] += v[i];
}

/* Random 5-factor correlation (loadings N(0, 1/5), residual variances
 * U(0.2, 1), scaled to unit variances), d x d into COV. */
static void
five_factor_cov (size_t d, unsigned long long *st, double *cov)
{
  const size_t k = 5;
  double *W = malloc (d * k * sizeof *W), *v = malloc (d * sizeof *v);
  for (size_t i = 0; i < d * k; i++)
    {
      /* Box-Muller from the bench's own uniform generator */
      double u1 = uniform (st), u2 = uniform (st);
      W[i] = sqrt (-2 * log (u1 > 0 ? u1 : 1e-300)) * cos (2 * M_PI * u2) / sqrt ((double) k);
    }
  for (size_t i = 0; i < d; i++)
    v[i] = 0.2 + 0.8 * uniform (st);
  factor_covariance (W, v, d, k, cov);
  for (size_t i = 0; i < d; i++)
    v[i] = sqrt (cov[i * d + i]);
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < d; j++)
      cov[i * d + j] /= v[i] * v[j];
  free (W);
  free (v);
}

/* log P(X < B0 + c) for the common shift c: our estimate with 2000 points. */
static double
shifted_log_prob (sg_mvn_workspace *w, size_t d, const double *cov, const double *b0,
                  double c, double *b)
{
  for (size_t i = 0; i < d; i++)
    b[i] = b0[i] + c;
  sg_mvn_options opt;
  sg_mvn_options_default (&opt);
  opt.n_points = 2000;
  sg_mvn_result r;
  return sg_mvn_prob (w, d, NULL, cov, NULL, b, &opt, NULL, &r) == SG_OK ? r.log_value : NAN;
}

/* Orthant probabilities of general (not one-factor: the QMC path) 5-factor
 * covariances, bounds b0_i ~ U(-0.25, 0.25) shifted together to P ~ 1e-10,
 * 1e-50, 1e-100; the truth is our estimate with 10^6 points (10 shifts of
 * the 100003-point lattice rule; its 99% error is printed). 5 covariances
 * x 4 seeds per row at the default 10000 points. */
static void
part_c (void)
{
  const size_t dims[] = { 50, 100, 200 };
  const double levels[] = { -10 * M_LN10, -50 * M_LN10, -100 * M_LN10 };
  const int n_cov = 5, seeds = 4;
  const size_t budgets[2] = { 10000, 5000 };   /* the default; half */
  printf ("## Part C: orthant probabilities, 5-factor covariances (QMC; truth: 10^6 points)\n\n");
  printf ("%4s %9s %8s %12s %12s %10s %8s %12s\n", "d", "log10 P", "points", "cpu ms/call",
          "max|dlogP|", "rms", "covered", "truth err");
  for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
    {
      size_t d = dims[di];
      double *cov = malloc (d * d * sizeof *cov), *b0 = malloc (d * sizeof *b0);
      double *b = malloc (d * sizeof *b);
      sg_mvn_workspace *w = sg_mvn_workspace_new (d);
      for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++)
        {
          double worst[2] = { 0 }, ss[2] = { 0 }, t[2] = { 0 }, truth_err = 0;
          int covered[2] = { 0 }, n[2] = { 0 };
          for (int c = 0; c < n_cov; c++)
            {
              unsigned long long st = 777 + 31 * d + (unsigned long long) c;
              five_factor_cov (d, &st, cov);
              for (size_t i = 0; i < d; i++)
                b0[i] = 0.5 * (uniform (&st) - 0.5);
              /* bisection on the common shift for log P = level */
              double lo = -12, hi = 2;
              for (int it = 0; it < 40; it++)
                {
                  double mid = 0.5 * (lo + hi);
                  if (shifted_log_prob (w, d, cov, b0, mid, b) < levels[li])
                    lo = mid;
                  else
                    hi = mid;
                }
              shifted_log_prob (w, d, cov, b0, 0.5 * (lo + hi), b);
              sg_mvn_options opt;
              sg_mvn_options_default (&opt);
              opt.n_points = 1000000;
              opt.seed = 99;
              opt.plain_sov = 1;   /* independent of the split under test */
              sg_mvn_result ref;
              if (sg_mvn_prob (w, d, NULL, cov, NULL, b, &opt, NULL, &ref) != SG_OK)
                continue;
              truth_err = fmax (truth_err, ref.log_error);
              for (int s = 0; s < seeds; s++)
                for (int bi = 0; bi < 2; bi++)
                  {
                    sg_mvn_options_default (&opt);
                    opt.n_points = budgets[bi];
                    opt.seed = (uint64_t) s;
                    sg_mvn_result r;
                    double t0 = cpu_seconds ();
                    if (sg_mvn_prob (w, d, NULL, cov, NULL, b, &opt, NULL, &r) != SG_OK)
                      continue;
                    t[bi] += cpu_seconds () - t0;
                    double e = r.log_value - ref.log_value;
                    worst[bi] = fmax (worst[bi], fabs (e));
                    ss[bi] += e * e;
                    covered[bi] += fabs (expm1 (e)) <= r.log_error;
                    n[bi]++;
                  }
            }
          for (int bi = 0; bi < 2; bi++)
            printf ("%4zu %9.1f %8zu %12.2f %12.2e %10.2e %5d/%d %12.1e\n", d,
                    levels[li] / M_LN10, budgets[bi], 1e3 * t[bi] / n[bi], worst[bi],
                    sqrt (ss[bi] / n[bi]), covered[bi], n[bi], truth_err);
          fflush (stdout);
        }
      sg_mvn_workspace_free (w);
      free (cov);
      free (b0);
      free (b);
    }
  printf ("\n");
}

/* ------------------------------------------------- part B: problem file */

static double *
read_numbers (FILE *in, size_t n)
{
  double *v = malloc (n * sizeof *v);
  char tok[64];
  for (size_t i = 0; i < n; i++)
    {
      if (fscanf (in, "%63s", tok) != 1)
        {
          free (v);
          return NULL;
        }
      v[i] = strtod (tok, NULL);   /* accepts Inf / -Inf */
    }
  return v;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Problem file: "P id name d k" then mean, lower, upper, v (d numbers
 * each) and W (d x k): Sigma = W W^T + diag(v). */
static int
part_b (const char *path)
{
  FILE *in = fopen (path, "r");
  if (in == NULL)
    {
      perror (path);
      return 1;
    }
  char line[256];
  printf ("## Part B: problems of %s, %d seeds at 10000 (default) and 40000 points\n"
          "## B id case d points median_cpu_s then (log_value rel_error_estimate) per seed\n",
          path, REPS);
  while (fgets (line, sizeof line, in))
    {
      int id;
      char name[64];
      size_t d, k;
      if (sscanf (line, "P %d %63s %zu %zu", &id, name, &d, &k) != 4)
        continue;
      double *m = read_numbers (in, d), *lo = read_numbers (in, d), *up = read_numbers (in, d);
      double *v = read_numbers (in, d), *W = read_numbers (in, d * k);
      if (!m || !lo || !up || !v || !W)
        {
          fprintf (stderr, "bench-mvn: truncated problem %d\n", id);
          return 1;
        }
      double *cov = malloc (d * d * sizeof *cov);
      factor_covariance (W, v, d, k, cov);
      sg_mvn_workspace *w = sg_mvn_workspace_new (d);
      const size_t budgets[2] = { 10000, 40000 };
      for (int bi = 0; bi < 2; bi++)
        {
          double times[REPS], logs[REPS], est[REPS];
          for (int rep = 0; rep < REPS; rep++)
            {
              sg_mvn_options opt;
              sg_mvn_options_default (&opt);
              opt.n_points = budgets[bi];
              opt.seed = (uint64_t) rep;
              sg_mvn_result r;
              double t0 = cpu_seconds ();
              int status = sg_mvn_prob (w, d, m, cov, lo, up, &opt, NULL, &r);
              times[rep] = cpu_seconds () - t0;
              if (status != SG_OK)
                {
                  fprintf (stderr, "bench-mvn: problem %d: %s\n", id, sg_strerror (status));
                  return 1;
                }
              logs[rep] = r.log_value;
              est[rep] = r.log_error;
            }
          qsort (times, REPS, sizeof times[0], compare_double);
          printf ("B %d %s %zu %zu %.6f", id, name, d, budgets[bi], times[REPS / 2]);
          for (int rep = 0; rep < REPS; rep++)
            printf (" %.17g %.4g", logs[rep], est[rep]);
          printf ("\n");
        }
      fflush (stdout);
      sg_mvn_workspace_free (w);
      free (cov);
      free (m);
      free (lo);
      free (up);
      free (v);
      free (W);
    }
  fclose (in);
  return 0;
}

int
main (int argc, char *argv[])
{
  printf ("# bench-mvn: OpenBLAS core %s (%s)\n\n", openblas_get_corename (),
          openblas_get_config ());
  if (argc > 1 && strcmp (argv[1], "--part-c") == 0)
    {
      part_c ();
      return 0;
    }
  if (argc > 1)
    return part_b (argv[1]);
  part_a ();
  part_c ();
  return 0;
}
