/* test-problems.c — benchmark objectives and simulated oracles (sg-problems). */
#include "sg-normal.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const required[] = { "cos1d", "six-hump-camel", "langermann", "colville",
                                        "rosenbrock5", "hartmann6", "safe-gp1d",
                                        /* Takeno et al. 2023 */
                                        "branin", "ackley4", "bukin6", "cross-in-tray",
                                        "eggholder", "holder-table", "levy4", "levy13",
                                        "levy4-takeno",
                                        "hartmann3", "hartmann4",
                                        /* qEUBO (Astudillo et al. 2023) */
                                        "ackley6", "alpine1-7" };

static void
test_registry (void)
{
  for (size_t r = 0; r < G_N_ELEMENTS (required); r++)
    {
      int found = 0;
      for (size_t i = 0; i < sg_problem_count (); i++)
        found |= strcmp (sg_problem_name_at (i), required[r]) == 0;
      g_assert_true (found);
      sg_problem *p = NULL;
      g_assert_cmpint (sg_problem_new (required[r], 1, &p), ==, SG_OK);
      g_assert_cmpstr (sg_problem_name (p), ==, required[r]);
      sg_problem_free (p);
    }
  g_assert_null (sg_problem_name_at (sg_problem_count ()));
  sg_problem *p = NULL;
  g_assert_cmpint (sg_problem_new ("no-such-problem", 0, &p), ==, SG_EINVAL);
  g_assert_null (p);
}

/* Values against an independent NumPy implementation
 * (tests/data/gen-problems-ref.py). The formulas are short sums of
 * exp/cos/polynomials, so agreement to 1e-12 relative (a few hundred ulps
 * for Rosenbrock/Colville values of order 1e5) is expected. */
static void
test_reference_values (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "problems-ref.csv", NULL);
  FILE *f = fopen (path, "r");
  g_assert_nonnull (f);
  char line[1024];
  int rows = 0;
  while (fgets (line, sizeof line, f))
    {
      if (line[0] == '#')
        continue;
      g_auto (GStrv) tok = g_strsplit (g_strstrip (line), ",", -1);
      sg_problem *p = NULL;
      g_assert_cmpint (sg_problem_new (tok[0], 0, &p), ==, SG_OK);
      double ref = g_ascii_strtod (tok[1], NULL), x[SG_PROBLEM_MAX_DIM];
      size_t d = g_strv_length (tok) - 2;
      g_assert_cmpuint (d, ==, sg_problem_dim (p));
      for (size_t j = 0; j < d; j++)
        {
          x[j] = g_ascii_strtod (tok[2 + j], NULL);
          /* the reference points include both corners of the box, so this
           * also checks the box of every problem */
          g_assert_cmpfloat (x[j], >=, sg_problem_lower (p)[j]);
          g_assert_cmpfloat (x[j], <=, sg_problem_upper (p)[j]);
        }
      double v = sg_problem_value (p, x);
      g_assert_cmpfloat (fabs (v - ref), <=, 1e-12 * fmax (1.0, fabs (ref)));
      sg_problem_free (p);
      rows++;
    }
  fclose (f);
  g_assert_cmpint (rows, ==, 230);
}

/* The stated optimum is attained at the stated optimiser (to the 8 digits
 * the optimiser is given with: the value error is quadratic in the
 * position error, < 1e-12) and no random point of the box beats it. */
static void
test_optima (void)
{
  gsl_rng *rng = sg_rng_new (7, 0);
  for (size_t i = 0; i < sg_problem_count (); i++)
    {
      sg_problem *p = NULL;
      g_assert_cmpint (sg_problem_new (sg_problem_name_at (i), 3, &p), ==, SG_OK);
      double opt = sg_problem_optimum (p);
      g_assert_true (isfinite (opt));
      g_assert_cmpfloat (fabs (sg_problem_value (p, sg_problem_optimizer (p)) - opt), <=,
                         1e-9 * fmax (1, fabs (opt)));
      size_t d = sg_problem_dim (p);
      for (int k = 0; k < 20000; k++)
        {
          double x[SG_PROBLEM_MAX_DIM];
          for (size_t j = 0; j < d; j++)
            x[j] = sg_problem_lower (p)[j]
                   + gsl_rng_uniform (rng) * (sg_problem_upper (p)[j] - sg_problem_lower (p)[j]);
          g_assert_cmpfloat (sg_problem_value (p, x), <=, opt + 1e-9 * fmax (1, fabs (opt)));
        }
      sg_problem_free (p);
    }
  sg_rng_free (rng);
}

/* safe-gp1d: g(0) >= 0 for every seed; threshold 0 and safe start 0;
 * different seeds give different functions; the draw has the prior's
 * variance: Var g(9) = 2 (x = 9 is 4.5+ lengthscales from the conditioning
 * point, correlation < exp(-81/8) ~ 4e-5). Over 300 seeds the sample
 * variance has relative sd sqrt(2/299) = 0.082; 4.5 sd = 0.37. */
static void
test_safe_gp (void)
{
  double s2 = 0, prev = NAN;
  int invalid_seen = 0, unreachable = 0;
  const int n = 300;
  for (int seed = 0; seed < n; seed++)
    {
      sg_problem *p = NULL;
      g_assert_cmpint (sg_problem_new ("safe-gp1d", (uint64_t) seed, &p), ==, SG_OK);
      double zero = 0, nine = 9;
      g_assert_cmpfloat (sg_problem_value (p, &zero), >=, -1e-6);
      g_assert_cmpfloat (sg_problem_threshold (p), ==, 0.0);
      g_assert_nonnull (sg_problem_safe_start (p));
      g_assert_cmpfloat (sg_problem_safe_start (p)[0], ==, 0.0);
      g_assert_true (sg_problem_is_valid (p, &zero));
      /* the safe optimum: reachable from 0, at most the global one */
      g_assert_cmpfloat (sg_problem_safe_optimum (p), <=, sg_problem_optimum (p));
      g_assert_cmpfloat (sg_problem_safe_optimum (p), >=, sg_problem_value (p, &zero));
      unreachable += sg_problem_safe_optimum (p) < sg_problem_optimum (p);
      double v = sg_problem_value (p, &nine);
      g_assert_true (v != prev);
      prev = v;
      s2 += v * v;
      /* the optimum is the maximum: not beaten on a grid; a zero-initialised
       * oracle uses the problem's threshold 0 */
      sg_oracle o = { p, 0, 0 };
      for (int k = 0; k <= 2000; k++)
        {
          double x = -10 + 0.01 * k, y;
          int valid;
          g_assert_cmpfloat (sg_problem_value (p, &x), <=, sg_problem_optimum (p) + 1e-9);
          if (k % 50 == 0)
            {
              sg_oracle_measure (&o, NULL, &x, &y, &valid);
              g_assert_cmpint (valid, ==, sg_problem_value (p, &x) >= 0);
              invalid_seen += !valid;
            }
        }
      sg_problem_free (p);
    }
  g_assert_cmpint (invalid_seen, >, 0);
  /* some draws hide their global maximum behind an unsafe gap */
  g_test_message ("%d of %d draws have an unreachable global maximum", unreachable, n);
  g_assert_cmpint (unreachable, >, 0);
  double var = s2 / n;
  g_test_message ("Var g(9) over %d draws = %.3f (expect 2)", n, var);
  g_assert_cmpfloat (fabs (var / 2 - 1), <, 0.37);
  /* the same seed gives the same function */
  sg_problem *a = NULL, *b = NULL;
  sg_problem_new ("safe-gp1d", 42, &a);
  sg_problem_new ("safe-gp1d", 42, &b);
  double x = 3.3;
  g_assert_cmpfloat (sg_problem_value (a, &x), ==, sg_problem_value (b, &x));
  sg_problem_free (a);
  sg_problem_free (b);
}

/* Grid cells of a safe problem: N per coordinate (an integer coordinate
 * takes its whole numbers). */
typedef struct {
  const sg_problem *p;
  size_t d, n[SG_PROBLEM_MAX_DIM], total;
} safe_grid;

static void
safe_grid_point (const safe_grid *g, size_t cell, double *x)
{
  for (size_t j = 0; j < g->d; j++)
    {
      size_t i = cell % g->n[j];
      cell /= g->n[j];
      double lo = sg_problem_lower (g->p)[j], hi = sg_problem_upper (g->p)[j];
      x[j] = lo + (hi - lo) * (double) i / (double) (g->n[j] - 1);
    }
}

static size_t
safe_grid_cell (const safe_grid *g, const double *x)
{
  size_t cell = 0, stride = 1;
  for (size_t j = 0; j < g->d; j++)
    {
      double lo = sg_problem_lower (g->p)[j], hi = sg_problem_upper (g->p)[j];
      cell += stride * (size_t) lround ((x[j] - lo) / (hi - lo) * (double) (g->n[j] - 1));
      stride *= g->n[j];
    }
  return cell;
}

/* The safe benchmarks keep their promise (sg-problems.h): the start is
 * safe, and the cells with g >= h reachable from it by grid steps (a
 * flood fill over the 2d neighbours) hold the cell of the maximiser and
 * cover a part of the box that is neither trivial nor everything. */
static void
test_safe_regions (void)
{
  static const struct {
    const char *name;
    size_t n;
    double min_frac, max_frac;
  } cases[] = { { "safe-branin", 151, 0.25, 0.4 }, { "safe-hartmann3", 41, 0.25, 0.4 },
                { "safe-hartmann4", 17, 0.2, 0.35 }, { "safe-machine", 81, 0.08, 0.15 } };
  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      sg_problem *p = NULL;
      g_assert_cmpint (sg_problem_new (cases[c].name, 0, &p), ==, SG_OK);
      safe_grid g = { .p = p, .d = sg_problem_dim (p), .total = 1 };
      for (size_t j = 0; j < g.d; j++)
        {
          g.n[j] = sg_problem_kind (p, j) == SG_DIM_INTEGER
                     ? (size_t) (sg_problem_upper (p)[j] - sg_problem_lower (p)[j] + 1)
                     : cases[c].n;
          g.total *= g.n[j];
        }
      const double *start = sg_problem_safe_start (p);
      g_assert_nonnull (start);
      g_assert_true (sg_problem_is_valid (p, start));
      g_assert_cmpfloat (sg_problem_safe_optimum (p), ==, sg_problem_optimum (p));
      unsigned char *seen = g_malloc0 (g.total);
      size_t *queue = g_new (size_t, g.total), head = 0, tail = 0, n_safe = 0;
      queue[tail++] = safe_grid_cell (&g, start);
      seen[queue[0]] = 1;
      while (head < tail)
        {
          size_t cell = queue[head++], stride = 1;
          double x[SG_PROBLEM_MAX_DIM];
          n_safe++;
          for (size_t j = 0; j < g.d; stride *= g.n[j], j++)
            {
              size_t i = cell / stride % g.n[j];
              for (int dir = -1; dir <= 1; dir += 2)
                {
                  if ((dir < 0 && i == 0) || (dir > 0 && i + 1 == g.n[j]))
                    continue;
                  size_t next = dir < 0 ? cell - stride : cell + stride;
                  safe_grid_point (&g, next, x);
                  if (!seen[next] && sg_problem_is_valid (p, x))
                    {
                      seen[next] = 1;
                      queue[tail++] = next;
                    }
                }
            }
        }
      double frac = (double) n_safe / (double) g.total;
      g_test_message ("%s: the start's safe region is %.3f of the grid", cases[c].name, frac);
      g_assert_true (seen[safe_grid_cell (&g, sg_problem_optimizer (p))]);
      g_assert_cmpfloat (frac, >=, cases[c].min_frac);
      g_assert_cmpfloat (frac, <=, cases[c].max_frac);
      g_free (seen);
      g_free (queue);
      sg_problem_free (p);
    }
  /* the machine's kinds: an integer coordinate and a resolution */
  sg_problem *m = NULL;
  sg_problem_new ("safe-machine", 0, &m);
  g_assert_cmpint (sg_problem_kind (m, 1), ==, SG_DIM_INTEGER);
  g_assert_cmpfloat (sg_problem_resolution (m, 2), ==, 2);
  g_assert_cmpint (sg_problem_kind (m, 0), ==, SG_DIM_LINEAR);
  g_assert_cmpfloat (sg_problem_resolution (m, 0), ==, 0);
  sg_problem_free (m);
}

static void
test_oracle (void)
{
  sg_problem *p = NULL;
  sg_problem_new ("cos1d", 0, &p);
  sg_oracle o;
  sg_oracle_init (&o, p);
  double a = 0, b = 1, y;
  int w, valid;
  /* exact judge */
  g_assert_cmpint (sg_oracle_duel (&o, NULL, &a, &b, &w), ==, SG_OK);
  g_assert_cmpint (w, ==, 1);
  sg_oracle_duel (&o, NULL, &b, &a, &w);
  g_assert_cmpint (w, ==, 0);
  sg_oracle_duel (&o, NULL, &a, &a, &w);
  g_assert_cmpint (w, ==, 1); /* ties go to A */
  g_assert_cmpint (sg_oracle_measure (&o, NULL, &b, &y, &valid), ==, SG_OK);
  g_assert_cmpint (valid, ==, 1);
  g_assert_cmpfloat (y, ==, cos (5.0) + exp (-0.5));
  /* a zero-initialised threshold means "the problem's own": none here,
   * so a negative value is still valid */
  sg_oracle z = { p, 0, 0 };
  double neg = 0.6;
  g_assert_cmpint (sg_oracle_measure (&z, NULL, &neg, &y, &valid), ==, SG_OK);
  g_assert_cmpint (valid, ==, 1);
  g_assert_cmpfloat (y, <, 0);
  /* noise needs an RNG */
  o.preference_sd = 0.5;
  g_assert_cmpint (sg_oracle_duel (&o, NULL, &a, &b, &w), ==, SG_EINVAL);

  /* Thurstone judge: P(A wins) = Phi((g(a) - g(b)) / (sqrt2 s)). Take
   * a, b with g(a) - g(b) ~ 0.3 and s = 0.5: p ~ 0.66; 20000 trials give
   * a standard error of 0.0034; tolerance 4.5 standard errors. */
  gsl_rng *rng = sg_rng_new (11, 0);
  a = 0.3;
  b = 0.38;
  double d = sg_problem_value (p, &a) - sg_problem_value (p, &b);
  double expect = sg_norm_cdf (d / (M_SQRT2 * 0.5));
  int wins = 0, n = 20000;
  for (int i = 0; i < n; i++)
    {
      sg_oracle_duel (&o, rng, &a, &b, &w);
      wins += w;
    }
  double se = sqrt (expect * (1 - expect) / n);
  g_test_message ("noisy duel: %.4f vs %.4f (se %.4f)", (double) wins / n, expect, se);
  g_assert_cmpfloat (fabs ((double) wins / n - expect), <, 4.5 * se);

  /* measurement noise: mean and sd of 20000 measurements (se of the mean
   * 0.2 / sqrt(20000) = 0.0014, of the sd ~ 0.2 / sqrt(40000) = 0.001) */
  o.measurement_sd = 0.2;
  double s = 0, ss = 0, g = sg_problem_value (p, &a);
  for (int i = 0; i < n; i++)
    {
      sg_oracle_measure (&o, rng, &a, &y, &valid);
      s += y - g;
      ss += (y - g) * (y - g);
    }
  g_assert_cmpfloat (fabs (s / n), <, 4.5 * 0.2 / sqrt (n));
  g_assert_cmpfloat (fabs (sqrt (ss / n) - 0.2), <, 4.5 * 0.2 / sqrt (2.0 * n));

  /* a threshold makes low points invalid: g(0.6) = cos 3 + e^-0.18 < 0 */
  o.has_threshold = 1;
  o.threshold = 0;
  double low = 0.6;
  g_assert_cmpfloat (sg_problem_value (p, &low), <, 0);
  sg_oracle_measure (&o, rng, &low, &y, &valid);
  g_assert_cmpint (valid, ==, 0);
  g_assert_true (isnan (y));
  sg_oracle_measure (&o, rng, &a, &y, &valid);
  g_assert_cmpint (valid, ==, 1);
  sg_rng_free (rng);
  sg_problem_free (p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/problems/registry", test_registry);
  g_test_add_func ("/problems/reference-values", test_reference_values);
  g_test_add_func ("/problems/optima", test_optima);
  g_test_add_func ("/problems/safe-gp1d", test_safe_gp);
  g_test_add_func ("/problems/safe-regions", test_safe_regions);
  g_test_add_func ("/problems/oracle", test_oracle);
  return g_test_run ();
}
