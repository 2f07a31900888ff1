/* bench-fit.c — log evidence accuracy and hyperparameter fitting speed.
 *
 * Prints the tables of tests/bench/results-fit.md:
 *   1. QMC noise of the exact SkewGP log evidence (001 eq. 39) against the
 *      number of points, for the tilted (Botev) and plain Genz integrands,
 *      on realistic preference data sets, measured against a
 *      high-precision reference (many points, several seeds). This is the
 *      measurement that fixes the point count used while fitting.
 *   2. Smoothness of the common-random-numbers objective along a line.
 *   3. The batch lower bound of 001 Prop. 1 on the same data.
 *   4. Full fits (SkewGP, Laplace, EP): time, evaluations, fitted values,
 *      and the fitted SkewGP log evidence against a reference recomputed
 *      at the fitted hyperparameters.
 *
 * Usage: bench-fit [--quick]   (--quick: fewer repetitions, for a smoke run)
 * Timings are wall clock on a shared 2-core machine: noisy.
 */
#include "sg-data.h"
#include "sg-fit.h"
#include "sg-mvn.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern char *openblas_get_config (void);

static int quick = 0;

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* CPU time of this process: on a shared, overloaded machine a better
 * guess of the unloaded wall-clock time of single-threaded work than the
 * wall clock itself (run with OPENBLAS_NUM_THREADS=1). */
static double
cpu_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* ---- Data sets: noise-free duels between uniform random points --------- */

static double
cos1d (const double *x)
{
  return cos (5 * x[0]) + exp (-x[0] * x[0] / 2);
}

/* Six-hump camel, negated into a maximisation problem. */
static double
camel (const double *x)
{
  double a = x[0], b = x[1];
  return -((4 - 2.1 * a * a + a * a * a * a / 3) * a * a + a * b
           + (-4 + 4 * b * b) * b * b);
}

/* Duels between uniform random points; the oracle prefers a over b when
 * g(a) - g(b) + N(0, 2 * 0.1^2) > 0 (a slightly noisy person, so that the
 * maximum-likelihood variance stays finite). */
#define ORACLE_NOISE_SD 0.1

typedef struct {
  const char *name;
  size_t dim;
  double lo[2], hi[2];
  double (*g) (const double *);
  size_t n_duels;
} dataset;

static const dataset datasets[] = {
  { "cos1d-50", 1, { -2.6 }, { 2.6 }, cos1d, 50 },
  { "camel-50", 2, { -2, -1 }, { 2, 1 }, camel, 50 },
  { "camel-70", 2, { -2, -1 }, { 2, 1 }, camel, 70 },
  { "camel-100", 2, { -2, -1 }, { 2, 1 }, camel, 100 },
};
#define N_DATASETS (sizeof datasets / sizeof *datasets)

static void
make_duels (const dataset *ds, uint64_t seed, sg_data *data)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  sg_data_init (data, ds->dim);
  for (size_t k = 0; k < ds->n_duels; k++)
    {
      double a[2], b[2];
      for (size_t j = 0; j < ds->dim; j++)
        {
          a[j] = ds->lo[j] + (ds->hi[j] - ds->lo[j]) * gsl_rng_uniform (rng);
          b[j] = ds->lo[j] + (ds->hi[j] - ds->lo[j]) * gsl_rng_uniform (rng);
        }
      double noise = ORACLE_NOISE_SD * sqrt (2.0) * sg_rng_gaussian (rng);
      if (ds->g (a) - ds->g (b) + noise >= 0)
        sg_data_add_preference (data, a, b);
      else
        sg_data_add_preference (data, b, a);
    }
  sg_rng_free (rng);
}

static void
hyper_init (sg_hyper *h, const dataset *ds)
{
  memset (h, 0, sizeof *h);
  sg_kernel_init (&h->kernel, SG_KERNEL_RBF, ds->dim, 1.0, 0.5);
  h->noise.numeric_sd = 1;
  h->noise.probit_sd = 1;
}

/* ---- Log evidence with given point count / method / seed --------------- */

typedef struct {
  double value, error, seconds;
} ev_result;

/* One evaluation; KEEP: reuse the variable order of the previous call on
 * W (sg_mvn_options.keep_order), otherwise choose it afresh. */
static ev_result
log_evidence_keep (const sg_hyper *h, const sg_data *data, sg_mvn_workspace *w,
                   size_t n_points, size_t n_shifts, sg_mvn_method method,
                   uint64_t seed, int keep)
{
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, data);
  ctx.calls = keep ? 1 : 0;   /* as if the order had been chosen already */
  ctx.workspace = w;
  ctx.mvn.n_points = n_points;
  ctx.mvn.n_shifts = n_shifts;
  ctx.mvn.method = method;
  ctx.mvn.seed = seed;
  ev_result r = { NAN, NAN, 0 };
  double t = now ();
  if (sg_evidence_eval (h, &ctx, &r.value, &r.error) != SG_OK)
    r.value = NAN;
  r.seconds = now () - t;
  return r;
}

static ev_result
log_evidence (const sg_hyper *h, const sg_data *data, sg_mvn_workspace *w,
              size_t n_points, size_t n_shifts, sg_mvn_method method,
              uint64_t seed)
{
  return log_evidence_keep (h, data, w, n_points, n_shifts, method, seed, 0);
}

/* High-precision reference: the mean of NSEED independent estimates with
 * N points each (tilted); its standard error from their spread. */
static void
reference (const sg_hyper *h, const sg_data *data, sg_mvn_workspace *w,
           size_t n, size_t nseed, double *mean, double *se)
{
  double s = 0, s2 = 0;
  for (size_t k = 0; k < nseed; k++)
    {
      ev_result r = log_evidence (h, data, w, n, 10, SG_MVN_TILTED, 1000 + k);
      s += r.value;
      s2 += r.value * r.value;
    }
  *mean = s / (double) nseed;
  double var = (s2 - s * s / (double) nseed) / (double) (nseed - 1);
  *se = sqrt ((var > 0 ? var : 0) / (double) nseed);
}

/* ---- Fitting ------------------------------------------------------------ */

typedef struct {
  sg_fit_method method;
  size_t n_points;       /* QMC points of the CRN objective (SkewGP)         */
  size_t n_starts;
  sg_fit_algorithm algorithm;
  int keep_order;        /* the sg_evidence_ctx default (1) or 0             */
} fit_config;

/* Fits lengthscales + variance from l = 0.5, v = 1 (probit_sd fixed at 1:
 * only the ratio of v to probit_sd is identifiable from duels). */
static int
fit (const sg_data *data, const dataset *ds, const fit_config *cfg,
     sg_mvn_workspace *w, sg_hyper *h, sg_fit_result *res)
{
  hyper_init (h, ds);
  sg_fit_spec spec;
  sg_fit_spec_default (&spec, SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE, data->dim, data);
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, cfg->method, data);
  ctx.workspace = w;
  ctx.mvn.n_points = cfg->n_points;
  ctx.mvn.seed = 7;
  ctx.mvn.keep_order = cfg->keep_order;
  sg_laplace_warm lw = { 0 };
  sg_ep_warm ew = { 0 };
  ctx.laplace_warm = &lw;
  ctx.ep_warm = &ew;
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.algorithm = cfg->algorithm;
  opt.n_starts = cfg->n_starts;
  gsl_rng *rng = sg_rng_new (11, 0);
  int status = sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, h, res);
  sg_rng_free (rng);
  sg_laplace_warm_clear (&lw);
  sg_ep_warm_clear (&ew);
  return status;
}

static void
print_hyper (const sg_hyper *h)
{
  printf ("l = (");
  for (size_t j = 0; j < h->kernel.dim; j++)
    printf ("%s%.3f", j ? ", " : "", h->kernel.lengthscales[j]);
  printf ("), v = %.1f", h->kernel.variance);
}

/* ---- Tables ------------------------------------------------------------- */

static const size_t ref_points = 200000, ref_seeds = 8;

static void
table_noise (const dataset *ds, const sg_data *data, const sg_hyper *h,
             sg_mvn_workspace *w)
{
  double ref, se;
  size_t rp = quick ? 50000 : ref_points, rs = quick ? 4 : ref_seeds;
  reference (h, data, w, rp, rs, &ref, &se);
  printf ("\n%s at ", ds->name);
  print_hyper (h);
  printf (": reference log evidence %.4f (se %.1e; tilted, %zu seeds x %zu points)\n",
          ref, se, rs, rp);
  printf ("| method | points | ms/eval | sd over seeds | max abs dev from ref | mean reported error |\n");
  printf ("|---|---:|---:|---:|---:|---:|\n");
  static const size_t counts[] = { 500, 1000, 2000, 4000, 10000, 40000 };
  const size_t n_seeds = quick ? 5 : 20;
  for (int method = 0; method < 2; method++)
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
      {
        if (method == SG_MVN_GENZ && counts[c] > 10000)
          continue;
        double sum = 0, sum2 = 0, dev = 0, err = 0, secs = 0;
        for (size_t k = 0; k < n_seeds; k++)
          {
            ev_result r = log_evidence (h, data, w, counts[c], 10,
                                        (sg_mvn_method) method, 1 + k);
            sum += r.value;
            sum2 += r.value * r.value;
            err += r.error;
            secs += r.seconds;
            dev = fabs (r.value - ref) > dev ? fabs (r.value - ref) : dev;
          }
        double sd = sqrt (fmax (0, (sum2 - sum * sum / n_seeds) / (n_seeds - 1)));
        printf ("| %s | %zu | %.1f | %.4f | %.4f | %.4f |\n",
                method == SG_MVN_TILTED ? "tilted" : "genz", counts[c],
                1e3 * secs / n_seeds, sd, dev, err / n_seeds);
      }
}

/* The CRN objective along log l_1 around H in 60 steps of 0.002: a smooth
 * function has second differences ~ h^2 |f''| ~ 1e-4 here; a change of
 * the variable ordering inside sg_mvn shows up as a jump. */
static void
table_smoothness (const dataset *ds, const sg_data *data, const sg_hyper *h0,
                  sg_mvn_workspace *w, size_t n_points, int keep)
{
  enum { N = 61 };
  const double step = 0.002;
  double f[N];
  for (int i = 0; i < N; i++)
    {
      sg_hyper h = *h0;
      sg_kernel_copy (&h.kernel, &h0->kernel);
      h.kernel.lengthscales[0] *= exp ((i - N / 2) * step);
      /* with KEEP, the first point of the scan chooses the order */
      f[i] = log_evidence_keep (&h, data, w, n_points, 10, SG_MVN_TILTED, 7,
                                keep && i > 0).value;
      sg_kernel_clear (&h.kernel);
    }
  double max_jump = 0;
  int jumps = 0;
  for (int i = 1; i < N - 1; i++)
    {
      double d2 = fabs (f[i - 1] - 2 * f[i] + f[i + 1]);
      if (d2 > 1e-3)
        jumps++;
      max_jump = d2 > max_jump ? d2 : max_jump;
    }
  printf ("| %s | %zu | %s | %.4f | %d of %d | %.2g |\n", ds->name, n_points,
          keep ? "kept" : "per call", f[N - 1] - f[0], jumps, N - 2, max_jump);
}

static void
table_bound (const dataset *ds, const sg_data *data, const sg_hyper *h,
             sg_mvn_workspace *w, double ref)
{
  sg_likelihood lik;
  sg_likelihood_build (data, &h->noise, &lik);
  sg_skewgp_prior prior;
  sg_hyper_skewgp_prior (h, &prior);
  sg_skewgp_posterior *post = NULL;
  if (sg_skewgp_posterior_new (&prior, data->X, &lik, &post) != SG_OK)
    {
      printf ("| %s | posterior failed |\n", ds->name);
      sg_likelihood_clear (&lik);
      return;
    }
  static const size_t batches[] = { 5, 10, 25, 50, 70 };
  sg_mvn_options opt;
  sg_mvn_options_default (&opt);
  opt.n_points = 20000;
  opt.deterministic = 1;
  for (size_t b = 0; b < sizeof batches / sizeof *batches; b++)
    {
      gsl_rng *rng = sg_rng_new (3, b);
      double bound, log_bound;
      double t = now ();
      int st = sg_skewgp_posterior_batch_bound (post, batches[b], rng, w, &opt,
                                                &bound, &log_bound);
      t = now () - t;
      sg_rng_free (rng);
      if (st != SG_OK)
        printf ("| %s | %zu | failed (%s) | | | |\n", ds->name, batches[b],
                sg_strerror (st));
      else if (isfinite (log_bound))
        printf ("| %s | %zu | %.3g | %.3f | %.3f | %.0f |\n", ds->name,
                batches[b], bound, log_bound, ref, 1e3 * t);
      else
        printf ("| %s | %zu | %.3g | useless (bound <= 0) | %.3f | %.0f |\n",
                ds->name, batches[b], bound, ref, 1e3 * t);
    }
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
}

/* Fits with N CRN points: time, evaluations, and the true (reference) log
 * evidence at the fitted hyperparameters. */
typedef struct {
  double seconds, cpu, ref, se, crn;
  size_t evals;
  sg_hyper h;
} fit_run;

static fit_run
run_fit (const dataset *ds, const sg_data *data, const fit_config *cfg,
         sg_mvn_workspace *w)
{
  fit_run r = { 0 };
  sg_fit_result res;
  double t = now (), c = cpu_now ();
  if (fit (data, ds, cfg, w, &r.h, &res) != SG_OK)
    {
      r.ref = NAN;
      return r;
    }
  r.seconds = now () - t;
  r.cpu = cpu_now () - c;
  r.evals = res.n_evals;
  r.crn = res.log_evidence;
  reference (&r.h, data, w, quick ? 50000 : 100000, 4, &r.ref, &r.se);
  return r;
}

static void
table_points (const dataset *ds, const sg_data *data, sg_mvn_workspace *w)
{
  static const size_t counts[] = { 500, 1000, 2000, 4000, 500, 1000, 2000, 4000, 10000 };
  static const int keeps[] = { 1, 1, 1, 1, 0, 0, 0, 0, 0 };
  enum { NC = sizeof counts / sizeof *counts };
  fit_run runs[NC];
  double best = -INFINITY;
  for (size_t c = 0; c < NC; c++)
    {
      fit_config cfg = { SG_FIT_METHOD_SKEWGP, counts[c], 4, SG_FIT_BOBYQA, keeps[c] };
      runs[c] = run_fit (ds, data, &cfg, w);
      best = runs[c].ref > best ? runs[c].ref : best;
    }
  for (size_t c = 0; c < NC; c++)
    {
      printf ("| %s | %zu | %s | %.2f | %.2f | %zu | ", ds->name, counts[c],
              keeps[c] ? "kept" : "per call", runs[c].seconds, runs[c].cpu, runs[c].evals);
      print_hyper (&runs[c].h);
      printf (" | %.3f | %.3f (se %.3f) | %.3f | %.3f |\n", runs[c].crn,
              runs[c].ref, runs[c].se, runs[c].crn - runs[c].ref,
              best - runs[c].ref);
    }
}

/* The configuration of `skewgp fit` (FIT_POINTS CRN points, 4 starts,
 * BOBYQA), then the reported value from a fresh FINAL_POINTS set, against
 * the high-precision reference at the same hyperparameters. */
#define FINAL_POINTS 40000

static void
table_full_fit (const dataset *ds, const sg_data *data, sg_mvn_workspace *w,
                size_t fit_points, int with_baselines)
{
  fit_config cfg = { SG_FIT_METHOD_SKEWGP, fit_points, 4, SG_FIT_BOBYQA, 1 };
  sg_hyper h;
  sg_fit_result res;
  double t = now (), c = cpu_now ();
  int st = fit (data, ds, &cfg, w, &h, &res);
  double t_fit = now () - t;
  ev_result fin = log_evidence (&h, data, w, FINAL_POINTS, 10, SG_MVN_TILTED, 99);
  double t_all = now () - t, c_all = cpu_now () - c;
  if (st != SG_OK)
    {
      printf ("| %s | skewgp | failed: %s |\n", ds->name, sg_strerror (st));
      return;
    }
  double ref, se;
  reference (&h, data, w, quick ? 50000 : ref_points, quick ? 4 : ref_seeds, &ref, &se);
  printf ("| %s | skewgp (%zu) | %.2f | %.2f | %.2f | %zu | ", ds->name, fit_points,
          t_fit, t_all, c_all, res.n_evals);
  print_hyper (&h);
  printf (" | %.3f +- %.3f | %.3f (se %.3f) | %.3f |\n", fin.value, fin.error, ref,
          se, fabs (fin.value - ref));

  /* Laplace and EP through the same machinery; their hyperparameters
   * judged by the exact evidence. */
  for (int m = 0; with_baselines && m < 2; m++)
    {
      fit_config c2 = { m ? SG_FIT_METHOD_EP : SG_FIT_METHOD_LAPLACE, 0, 4,
                        SG_FIT_BOBYQA, 1 };
      t = now ();
      c = cpu_now ();
      st = fit (data, ds, &c2, w, &h, &res);
      t_fit = now () - t;
      c_all = cpu_now () - c;
      if (st != SG_OK)
        {
          printf ("| %s | %s | failed: %s |\n", ds->name, m ? "ep" : "laplace",
                  sg_strerror (st));
          continue;
        }
      reference (&h, data, w, quick ? 50000 : 100000, 4, &ref, &se);
      printf ("| %s | %s | %.2f | %.2f | %.2f | %zu | ", ds->name, m ? "ep" : "laplace",
              t_fit, t_fit, c_all, res.n_evals);
      print_hyper (&h);
      printf (" | %.3f (own approximation) | exact at these: %.3f (se %.3f) | |\n",
              res.log_evidence, ref, se);
    }
}

int
main (int argc, char **argv)
{
  quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  printf ("OpenBLAS core: %s; config: %s\n", openblas_get_corename (),
          openblas_get_config ());
  printf ("Data: noise-free inputs uniform in the box, oracle noise sd %.2f; "
          "RBF kernel, probit_sd 1; lengthscales + variance free.\n", ORACLE_NOISE_SD);
  sg_data data[N_DATASETS];
  sg_hyper fitted[N_DATASETS];
  sg_mvn_workspace *w = sg_mvn_workspace_new (128);

  /* Hyperparameters for the measurements: a fit with many points, so the
   * noise is measured where fits end. */
  for (size_t d = 0; d < N_DATASETS; d++)
    {
      make_duels (&datasets[d], 2024 + d, &data[d]);
      sg_fit_result res;
      fit_config cfg = { SG_FIT_METHOD_SKEWGP, 10000, 2, SG_FIT_BOBYQA, 1 };
      fit (&data[d], &datasets[d], &cfg, w, &fitted[d], &res);
    }

  printf ("\n## 1. QMC noise of the log evidence vs points (fixed point sets, 10 shifts)\n");
  for (size_t d = 0; d < N_DATASETS; d++)
    table_noise (&datasets[d], &data[d], &fitted[d], w);

  printf ("\n## 2. Is the fixed-point-set objective smooth? log l_1 scanned in 60 steps of 0.002\n"
          "(variable order of sg_mvn chosen per call, or chosen at the first point and kept)\n");
  printf ("| data | points | variable order | f(end) - f(start) | steps with abs 2nd diff > 1e-3 | largest abs 2nd diff |\n");
  printf ("|---|---:|---|---:|---:|---:|\n");
  for (size_t d = 0; d < N_DATASETS; d++)
    for (int keep = 0; keep < 2; keep++)
      for (size_t n = 1000; n <= 16000; n *= 4)
        table_smoothness (&datasets[d], &data[d], &fitted[d], w, n, keep);

  printf ("\n## 3. Batch lower bound (001 Prop. 1) vs reference log evidence\n");
  printf ("| data | batch | bound on Phi_m | log-evidence bound | reference | ms |\n");
  printf ("|---|---:|---:|---:|---:|---:|\n");
  for (size_t d = 0; d < N_DATASETS; d++)
    {
      double ref, se;
      reference (&fitted[d], &data[d], w, 100000, 4, &ref, &se);
      table_bound (&datasets[d], &data[d], &fitted[d], w, ref);
    }

  printf ("\n## 4. Points of the CRN objective vs fit quality (BOBYQA, 4 starts; variable order kept or per call)\n");
  printf ("| data | points | variable order | fit s (wall) | fit s (CPU) | evals | fitted | CRN objective | reference at fit | CRN - ref | regret vs best |\n");
  printf ("|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
  for (size_t d = 0; d < N_DATASETS; d++)
    table_points (&datasets[d], &data[d], w);

  printf ("\n## 5. Full fits as `skewgp fit` does them (CRN points in brackets, 4 starts, "
          "re-evaluated with %d fresh points)\n", FINAL_POINTS);
  printf ("| data | method | fit s (wall) | fit + final s (wall) | fit + final s (CPU) | evals | fitted | reported | reference | abs diff |\n");
  printf ("|---|---|---:|---:|---:|---:|---|---:|---:|---:|\n");
  for (size_t d = 0; d < N_DATASETS; d++)
    {
      table_full_fit (&datasets[d], &data[d], w, 1000, 0);
      table_full_fit (&datasets[d], &data[d], w, 2000, 1);
    }

  sg_mvn_workspace_free (w);
  for (size_t d = 0; d < N_DATASETS; d++)
    sg_data_clear (&data[d]);
  return 0;
}
