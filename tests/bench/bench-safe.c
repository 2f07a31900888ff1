/* bench-safe.c — safe Bayesian optimisation on the safe benchmarks of
 * sg-problems.h: how often each method evaluates an unsafe setting, the
 * regret after 20 and 40 evaluations, and whether the P(safe) it shows
 * for its proposals is calibrated.
 *
 * Methods (the loop of the app and of skewgp ask/tell in safe mode: the
 * exact SkewGP of paper 001 eq. 40, the engine's defaults, refits of the
 * lengthscales and the variance every 5 answers (and, with the SafeOpt
 * rule, after each of the first 10), the problem's kinds and resolution):
 *   penalty    paper 001 sec. 5.2.3's rule: the UCB of f minus 1000 where
 *              P(f >= h) < 0.7, hyperparameters refitted as they come;
 *   safeopt    the SafeOpt rule of sg-bo.h ("Safe mode"): proposals only
 *              where P(safe) >= 0.95, expanders and maximisers, grown from
 *              measured safe settings, conservative hyperparameters;
 * and on safe-gp1d also both with the paper's fixed hyperparameters
 * (variance 2, lengthscale 1.5, measurement sd 0.05; no refits):
 * penalty-fixed and safeopt-fixed, and the SafeOpt rule at the paper's
 * level 0.7 (safeopt-0.7-fixed): what the level alone costs or buys.
 *
 * Each run starts at the problem's safe start and makes up to EVALS
 * evaluations (the start included), answered by the exact oracle: a
 * setting with g(x) < h fails (no value), except on safe-machine, whose
 * operator types the values it reads down to h / 2 (a value below the
 * threshold) and reports a failure below that. A run ends early when the
 * method says no new setting is safe enough to try.
 *   unsafe     the share of evaluations with g(x) < h (the true value);
 *   regret@n   the safe optimum (sg_problem_safe_optimum) minus the best
 *              true value among the safe evaluations of the first n;
 *   calibration  over the model's proposals (the start excluded), the
 *              share truly safe among those shown with P(safe) in a bin,
 *              and among those shown with P(safe) >= p.
 *
 * Usage: bench-safe [STATE [SEEDS [EVALS]]]   (defaults bench-safe.state,
 * 20, 40). Every finished run is appended to STATE as one line; a second
 * start skips the runs STATE holds (resumable), then prints the tables
 * from all of STATE. Long: run under nice -n 19 with
 * OPENBLAS_NUM_THREADS=1. BENCH_SAFE_ONLY=problem[:method] limits the
 * runs made (the tables still cover STATE); BENCH_SAFE_TRACE=1 prints
 * every proposal to stderr (setting, true value, P(safe), the rule's
 * role and counts, the model's variance and lengthscales).
 */
#include "sg-bo.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern void openblas_set_num_threads (int);

#define MAX_EVALS 200

static const char *const problems[] = { "safe-gp1d", "safe-branin", "safe-hartmann3",
                                        "safe-hartmann4", "safe-machine" };
#define N_PROBLEMS (sizeof problems / sizeof problems[0])

typedef struct {
  const char *name;
  sg_bo_safe_rule rule;
  double level;     /* the confidence level                            */
  int fixed;        /* the paper's fixed hyperparameters (safe-gp1d only) */
} method;

static const method methods[] = { { "penalty", SG_BO_SAFE_PENALTY, 0.7, 0 },
                                  { "safeopt", SG_BO_SAFE_SAFEOPT, 0.95, 0 },
                                  { "penalty-fixed", SG_BO_SAFE_PENALTY, 0.7, 1 },
                                  { "safeopt-fixed", SG_BO_SAFE_SAFEOPT, 0.95, 1 },
                                  { "safeopt-0.7-fixed", SG_BO_SAFE_SAFEOPT, 0.7, 1 } };
#define N_METHODS (sizeof methods / sizeof methods[0])

/* One finished run: per evaluation the true value, whether it was safe,
 * the P(safe) shown (NaN for the start) and whether the model chose it. */
typedef struct {
  char problem[32], method[32];
  unsigned seed;
  size_t n;
  double g[MAX_EVALS], p[MAX_EVALS];
  int safe[MAX_EVALS];
  double cpu;
} run;

static double
cpu_now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* The configuration a person gets in the app for problem P (sb-jobs.c),
 * with method M's rule. */
static int
configure (const sg_problem *p, const method *m, unsigned seed, sg_bo_config *c)
{
  size_t dim = sg_problem_dim (p);
  if (sg_bo_config_default (c, dim, sg_problem_lower (p), sg_problem_upper (p)) != SG_OK)
    return 0;
  c->mode = SG_BO_SAFE;
  c->safe_rule = m->rule;
  c->safe_probability = m->level;
  c->threshold = sg_problem_threshold (p);
  c->has_safe_start = 1;
  memcpy (c->safe_start, sg_problem_safe_start (p), dim * sizeof *c->safe_start);
  c->seed = seed;
  /* the app's refit schedule: today's every 5 answers for the penalty
   * rule; after each of the first 10 answers too in safe mode now */
  c->refit_until = m->rule == SG_BO_SAFE_SAFEOPT ? 10 : 0;
  c->refit_every = 5;
  c->refit_free = sg_bo_default_refit_free (SG_BO_SAFE);
  for (size_t j = 0; j < dim; j++)
    {
      c->resolution[j] = sg_problem_resolution (p, j);
      if (sg_bo_config_set_kind (c, j, sg_problem_kind (p, j)) != SG_OK)
        return 0;
    }
  if (m->fixed)
    {
      /* 001 sec. 5.2.3 (skewgp bo's safe mode) */
      c->refit_until = c->refit_every = 0;
      c->prior.kernel.variance = 2.0;
      for (size_t j = 0; j < dim; j++)
        c->prior.kernel.lengthscales[j] = 1.5 * (c->upper[j] - c->lower[j]) / 20.0;
      c->prior.noise.numeric_sd = 0.05;
    }
  return sg_bo_config_check (c) == SG_OK;
}

/* The operator: a value, or a failure (sg-problems.h's oracle with the
 * reporting level described at the top). */
static int
measure (const sg_problem *p, const double *x, double *y)
{
  double g = sg_problem_value (p, x), h = sg_problem_threshold (p);
  double level = strcmp (sg_problem_name (p), "safe-machine") == 0 ? 0.5 * h : h;
  *y = g;
  return g >= level;
}

static int
do_run (const char *pname, const method *m, unsigned seed, size_t evals, run *r)
{
  sg_problem *p = NULL;
  sg_bo_config c;
  sg_bo *bo = NULL;
  memset (&c, 0, sizeof c);
  int ok = sg_problem_new (pname, seed, &p) == SG_OK && configure (p, m, seed, &c)
           && sg_bo_new (&c, &bo) == SG_OK;
  sg_bo_config_clear (&c);
  double t0 = cpu_now ();
  int trace = getenv ("BENCH_SAFE_TRACE") != NULL;

  memset (r, 0, sizeof *r);
  snprintf (r->problem, sizeof r->problem, "%s", pname);
  snprintf (r->method, sizeof r->method, "%s", m->name);
  r->seed = seed;
  for (size_t i = 0; ok && i < evals; i++)
    {
      if (sg_bo_refit_due (bo))
        {
          gsl_rng *rr = sg_rng_new (seed, 7000 + i);
          int st = sg_bo_refit (bo, rr, NULL, NULL);
          sg_rng_free (rr);
          if (st != SG_OK)
            fprintf (stderr, "%s %s %u: refit at %zu: %s\n", pname, m->name, seed, i,
                     sg_strerror (st));
        }
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      int st = sg_bo_propose (bo, rng, NULL, &q);
      sg_rng_free (rng);
      if (st != SG_OK)
        {
          fprintf (stderr, "%s %s %u: propose %zu: %s\n", pname, m->name, seed, i,
                   sg_strerror (st));
          ok = 0;
          break;
        }
      sg_bo_safe_info info;
      int has_info = sg_bo_safe_last (bo, &info) == SG_OK;
      if (trace)
        {
          fprintf (stderr, "%s %s %u #%zu x=(", pname, m->name, seed, i);
          for (size_t j = 0; j < c.dim; j++)
            fprintf (stderr, "%s%.4g", j ? ", " : "", q.x[j]);
          fprintf (stderr, ") g=%.4g p=%.4f", sg_problem_value (p, q.x), q.prob_safe);
          if (has_info)
            {
              fprintf (stderr, " %s state=%d safe=%zu max=%zu exp=%zu var=%.3g l=(",
                       info.role == SG_BO_SAFE_ROLE_EXPANDER ? "expander" : "maximiser",
                       (int) info.state, info.n_safe, info.n_maximisers, info.n_expanders,
                       info.variance);
              for (size_t j = 0; j < c.dim; j++)
                fprintf (stderr, "%s%.3g", j ? ", " : "", info.lengthscales[j]);
              fprintf (stderr, ")");
            }
          fputc ('\n', stderr);
        }
      if (q.safe_exhausted)
        break;
      double y;
      int valid = measure (p, q.x, &y);
      r->g[r->n] = y;
      r->safe[r->n] = sg_problem_is_valid (p, q.x);
      r->p[r->n] = q.initial ? NAN : q.prob_safe;
      r->n++;
      st = valid ? sg_bo_answer_value (bo, q.x, y) : sg_bo_answer_invalid (bo, q.x);
      if (st != SG_OK)
        {
          fprintf (stderr, "%s %s %u: answer %zu: %s\n", pname, m->name, seed, i,
                   sg_strerror (st));
          ok = 0;
        }
    }
  r->cpu = cpu_now () - t0;
  sg_bo_free (bo);
  sg_problem_free (p);
  return ok;
}

/* ---- The state file: one line per run ---------------------------------- */

static void
write_run (FILE *f, const run *r)
{
  fprintf (f, "%s %s %u %zu %.3f", r->problem, r->method, r->seed, r->n, r->cpu);
  for (size_t i = 0; i < r->n; i++)
    fprintf (f, " %.17g:%d:%.6g", r->g[i], r->safe[i], r->p[i]);
  fputc ('\n', f);
  fflush (f);
}

static int
read_run (char *line, run *r)
{
  memset (r, 0, sizeof *r);
  int used = 0;
  if (sscanf (line, "%31s %31s %u %zu %lf%n", r->problem, r->method, &r->seed, &r->n, &r->cpu,
              &used) != 5 || r->n > MAX_EVALS)
    return 0;
  char *s = line + used;
  for (size_t i = 0; i < r->n; i++)
    {
      int k = 0;
      char pbuf[32];
      if (sscanf (s, " %lf:%d:%31[^ \n]%n", &r->g[i], &r->safe[i], pbuf, &k) != 3)
        return 0;
      r->p[i] = strcmp (pbuf, "nan") == 0 ? NAN : strtod (pbuf, NULL);
      s += k;
    }
  return 1;
}

static run *
read_state (const char *path, size_t *n)
{
  FILE *f = fopen (path, "r");
  run *runs = NULL;
  size_t cap = 0;
  char line[65536];
  *n = 0;
  if (f == NULL)
    return NULL;
  while (fgets (line, sizeof line, f))
    {
      if (*n == cap)
        runs = realloc (runs, (cap = cap ? 2 * cap : 64) * sizeof *runs);
      if (read_run (line, &runs[*n]))
        (*n)++;
    }
  fclose (f);
  return runs;
}

static int
have_run (const run *runs, size_t n, const char *pname, const char *mname, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    if (runs[i].seed == seed && strcmp (runs[i].problem, pname) == 0
        && strcmp (runs[i].method, mname) == 0)
      return 1;
  return 0;
}

/* ---- Tables ----------------------------------------------------------------- */

/* Regret after the first K evaluations of R (its last when it stopped). */
static double
regret_at (const run *r, size_t k, double optimum)
{
  double best = -INFINITY;
  for (size_t i = 0; i < r->n && i < k; i++)
    if (r->safe[i])
      best = fmax (best, r->g[i]);
  return optimum - best;
}

static double
safe_optimum_of (const char *pname, unsigned seed)
{
  sg_problem *p = NULL;
  double v = NAN;
  if (sg_problem_new (pname, seed, &p) == SG_OK)
    v = sg_problem_safe_optimum (p);
  sg_problem_free (p);
  return v;
}

static void
mean_se (const double *v, size_t n, double *mean, double *se)
{
  double s = 0, ss = 0;
  for (size_t i = 0; i < n; i++)
    s += v[i];
  *mean = n ? s / (double) n : NAN;
  for (size_t i = 0; i < n; i++)
    ss += (v[i] - *mean) * (v[i] - *mean);
  *se = n > 1 ? sqrt (ss / (double) (n - 1) / (double) n) : NAN;
}

/* The share of R's K runs' model proposals (the start excluded) that
 * were truly safe, its standard error over runs (the runs are the
 * independent units: a ratio estimator's), and the one-sided 95 %
 * Clopper-Pearson upper bound of the unsafe share. */
static void
proposal_safety (const run *const *r, size_t k, double *share, double *se, double *upper)
{
  double n = 0, u = 0, ss = 0;
  for (size_t i = 0; i < k; i++)
    for (size_t e = 0; e < r[i]->n; e++)
      if (!isnan (r[i]->p[e]))
        n++, u += !r[i]->safe[e];
  double p_unsafe = n > 0 ? u / n : NAN;
  for (size_t i = 0; i < k; i++)
    {
      double ni = 0, ui = 0;
      for (size_t e = 0; e < r[i]->n; e++)
        if (!isnan (r[i]->p[e]))
          ni++, ui += !r[i]->safe[e];
      ss += (ui - p_unsafe * ni) * (ui - p_unsafe * ni);
    }
  *share = 1 - p_unsafe;
  *se = k > 1 && n > 0 ? sqrt (ss / ((double) k * (double) (k - 1))) / (n / (double) k) : NAN;
  *upper = n == 0 ? NAN : u >= n ? 1 : gsl_cdf_beta_Pinv (0.95, u + 1, n - u);
}

static void
print_outcomes (const run *runs, size_t n_runs)
{
  printf ("| problem | method | runs | evaluations | unsafe | unsafe share | runs with an "
          "unsafe one | stopped early | proposals truly safe (± SE) | unsafe share <= (95 %%) "
          "| regret@20 | regret@40 | CPU s / run |\n");
  printf ("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t pi = 0; pi < N_PROBLEMS; pi++)
    for (size_t mi = 0; mi < N_METHODS; mi++)
      {
        double r20[256], r40[256], cpu = 0;
        const run *of[256];
        size_t k = 0, evals = 0, unsafe = 0, runs_unsafe = 0, early = 0;
        for (size_t i = 0; i < n_runs && k < 256; i++)
          {
            const run *r = &runs[i];
            if (strcmp (r->problem, problems[pi]) || strcmp (r->method, methods[mi].name))
              continue;
            double opt = safe_optimum_of (r->problem, r->seed);
            size_t u = 0;
            for (size_t e = 0; e < r->n; e++)
              u += !r->safe[e];
            evals += r->n;
            unsafe += u;
            runs_unsafe += u > 0;
            early += r->n < 40;
            r20[k] = regret_at (r, 20, opt);
            r40[k] = regret_at (r, 40, opt);
            cpu += r->cpu;
            of[k++] = r;
          }
        if (k == 0)
          continue;
        double m20, s20, m40, s40, share, share_se, upper;
        mean_se (r20, k, &m20, &s20);
        mean_se (r40, k, &m40, &s40);
        proposal_safety (of, k, &share, &share_se, &upper);
        printf ("| %s | %s | %zu | %zu | %zu | %.1f %% | %zu | %zu | %.1f ± %.1f %% | %.1f %% "
                "| %.3g ± %.2g | %.3g ± %.2g | %.1f |\n", problems[pi], methods[mi].name, k, evals,
                unsafe, 100.0 * (double) unsafe / (double) evals, runs_unsafe, early,
                100 * share, 100 * share_se, 100 * upper, m20, s20, m40, s40, cpu / (double) k);
      }
}

/* The reliability table of method MNAME (all problems, or PNAME only):
 * proposals in bins of shown P(safe), and cumulatively above p. */
static void
print_calibration (const run *runs, size_t n_runs, const char *mname)
{
  static const double edges[] = { 0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99, 0.999, 1.0000001 };
  const size_t nb = sizeof edges / sizeof edges[0] - 1;
  size_t count[16] = { 0 }, safe[16] = { 0 };
  double psum[16] = { 0 };
  for (size_t i = 0; i < n_runs; i++)
    {
      const run *r = &runs[i];
      if (strcmp (r->method, mname))
        continue;
      for (size_t e = 0; e < r->n; e++)
        {
          if (isnan (r->p[e]))
            continue;
          for (size_t b = 0; b < nb; b++)
            if (r->p[e] >= edges[b] && r->p[e] < edges[b + 1])
              {
                count[b]++;
                safe[b] += r->safe[e];
                psum[b] += r->p[e];
              }
        }
    }
  printf ("\n%s — proposals by the P(safe) shown (all problems):\n\n", mname);
  printf ("| P(safe) shown | proposals | mean shown | truly safe | share safe |\n");
  printf ("|---|---:|---:|---:|---:|\n");
  for (size_t b = 0; b < nb; b++)
    if (count[b])
      printf ("| [%.3g, %.3g) | %zu | %.4f | %zu | %.4f |\n", edges[b], fmin (edges[b + 1], 1),
              count[b], psum[b] / (double) count[b], safe[b],
              (double) safe[b] / (double) count[b]);
  printf ("\n| shown P(safe) >= p | proposals | share safe | promise kept |\n");
  printf ("|---|---:|---:|---|\n");
  static const double ps[] = { 0.7, 0.9, 0.95, 0.99 };
  for (size_t k = 0; k < 4; k++)
    {
      size_t c = 0, s = 0;
      for (size_t b = 0; b < nb; b++)
        if (edges[b] >= ps[k])
          c += count[b], s += safe[b];
      if (c)
        printf ("| %.2f | %zu | %.4f | %s |\n", ps[k], c, (double) s / (double) c,
                (double) s / (double) c >= ps[k] ? "yes" : "no");
    }
}

static const run *
find_run (const run *runs, size_t n_runs, const char *pname, const char *mname, unsigned seed)
{
  for (size_t i = 0; i < n_runs; i++)
    if (runs[i].seed == seed && strcmp (runs[i].problem, pname) == 0
        && strcmp (runs[i].method, mname) == 0)
      return &runs[i];
  return NULL;
}

/* safe-gp1d seed by seed: why the SafeOpt rule stops where it does. The
 * start's true value g0 = f(0) above h = 0, and the farthest setting any
 * correct GP model (the draw's own prior: variance 2, lengthscale at most
 * 2) can call safe at 95 % from it, even knowing f(0) exactly: with
 * k = exp(-d^2 / (2 l^2)) the posterior at d is N(g0 k, 2 (1 - k^2)), safe
 * at 95 % while g0 k / sqrt(2 (1 - k^2)) >= z = 1.645, that is up to
 *   d* = l sqrt(ln(1 + r^2)),  r = g0 / (sqrt 2 z).
 * Below the resolution (0.5 % of the range, 0.1) no new setting can be
 * safe at 95 % under the true model: stopping there is SafeOpt's promise
 * at work, not a defect. */
static void
print_gp1d_seeds (const run *runs, size_t n_runs)
{
  static const char *const shown[] = { "penalty-fixed", "safeopt-fixed", "penalty", "safeopt" };
  printf ("\nsafe-gp1d seed by seed (regret@40; evaluations made; unsafe ones):\n\n");
  printf ("| seed | g0 = f(start) | d* (l = 2) | new setting safe at 95 %% possible |");
  for (size_t m = 0; m < 4; m++)
    printf (" %s |", shown[m]);
  printf ("\n|---:|---:|---:|---|---:|---:|---:|---:|\n");
  for (unsigned seed = 1; seed <= 256; seed++)
    {
      const run *first = find_run (runs, n_runs, "safe-gp1d", "safeopt", seed);
      if (first == NULL || first->n == 0)
        continue;
      double g0 = first->g[0], opt = safe_optimum_of ("safe-gp1d", seed);
      double r = g0 / (M_SQRT2 * 1.6448536269514722), dstar = 2 * sqrt (log1p (r * r));
      printf ("| %u | %.3f | %.3f | %s |", seed, g0, dstar, dstar > 0.1 ? "yes" : "no");
      for (size_t m = 0; m < 4; m++)
        {
          const run *x = find_run (runs, n_runs, "safe-gp1d", shown[m], seed);
          size_t u = 0;
          for (size_t e = 0; x && e < x->n; e++)
            u += !x->safe[e];
          if (x)
            printf (" %.3f (%zu; %zu) |", regret_at (x, 40, opt), x->n, u);
          else
            printf (" |");
        }
      printf ("\n");
    }
}

int
main (int argc, char **argv)
{
  const char *state = argc > 1 ? argv[1] : "bench-safe.state";
  unsigned seeds = argc > 2 ? (unsigned) atoi (argv[2]) : 20;
  size_t evals = argc > 3 ? (size_t) atoi (argv[3]) : 40;
  const char *only = getenv ("BENCH_SAFE_ONLY");
  if (evals > MAX_EVALS)
    evals = MAX_EVALS;
  openblas_set_num_threads (1);

  size_t n_runs = 0;
  run *runs = read_state (state, &n_runs);
  FILE *out = fopen (state, "a");
  if (out == NULL)
    {
      perror (state);
      return 2;
    }
  run r;
  for (unsigned seed = 1; seed <= seeds; seed++)
    for (size_t pi = 0; pi < N_PROBLEMS; pi++)
      for (size_t mi = 0; mi < N_METHODS; mi++)
        {
          const method *m = &methods[mi];
          char key[80];
          snprintf (key, sizeof key, "%s:%s", problems[pi], m->name);
          if ((m->fixed && strcmp (problems[pi], "safe-gp1d") != 0)
              || have_run (runs, n_runs, problems[pi], m->name, seed)
              || (only && strncmp (key, only, strlen (only)) != 0))
            continue;
          if (do_run (problems[pi], m, seed, evals, &r))
            write_run (out, &r);
          fprintf (stderr, "%s seed %u: %zu evaluations, %.0f s\n", key, seed, r.n, r.cpu);
        }
  fclose (out);
  free (runs);
  runs = read_state (state, &n_runs);

  printf ("OpenBLAS core: %s; %zu runs in %s\n\n", openblas_get_corename (), n_runs, state);
  print_outcomes (runs, n_runs);
  print_gp1d_seeds (runs, n_runs);
  for (size_t mi = 0; mi < N_METHODS; mi++)
    print_calibration (runs, n_runs, methods[mi].name);
  free (runs);
  return 0;
}
