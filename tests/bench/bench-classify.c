/* bench-classify.c — time of the Laplace, EP and exact SkewGP posteriors
 * for binary GP classification, side by side (tests/bench/results-classify.md).
 *
 * Data: n binary observations at uniform random inputs in [-2, 2]^2,
 * label = sign(g(x) + e), g(x) = sin(2 x1) + x2^2 / 2 - 0.5, e ~ N(0, 1)
 * (the probit model of 000 eq. 6). Fixed RBF kernel (variance 1,
 * lengthscale 0.5), probit_sd 1, GP prior (s = 0) and SkewGP_2 prior.
 * Per method: build the posterior and predict P(y = 1), mean and sd at
 * 1000 test points:
 *   Laplace  sg_laplace_posterior + sg_gauss_post_summaries
 *   EP       sg_ep_posterior + sg_gauss_post_summaries
 *   SkewGP   sg_skewgp_posterior_new + sg_skewgp_sample (N samples, default
 *            options: exact HMC, 2 chains) + sg_skewgp_summarize
 *            (moments and class probability)
 * Wall-clock milliseconds, median of REPS runs (3 for n <= 500, 1 above).
 *
 * Usage: bench-classify [N_SAMPLES] [MAX_N]   (defaults 2000, 2000)
 */
#include "sg-ep.h"
#include "sg-laplace.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern char *openblas_get_config (void);

#define N_TEST 1000

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return 1e3 * (double) ts.tv_sec + 1e-6 * (double) ts.tv_nsec;
}

static void
make_data (size_t n, uint64_t seed, sg_data *data, double *Xs)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  sg_data_init (data, 2);
  for (size_t i = 0; i < n; i++)
    {
      double x[2] = { -2 + 4 * gsl_rng_uniform (rng), -2 + 4 * gsl_rng_uniform (rng) };
      double g = sin (2 * x[0]) + 0.5 * x[1] * x[1] - 0.5;
      sg_data_add_binary (data, x, g + sg_rng_gaussian (rng) > 0 ? 1 : -1);
    }
  for (size_t i = 0; i < N_TEST; i++)
    {
      Xs[2 * i] = -2 + 4 * gsl_rng_uniform (rng);
      Xs[2 * i + 1] = -2 + 4 * gsl_rng_uniform (rng);
    }
  sg_rng_free (rng);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, int k)
{
  qsort (v, (size_t) k, sizeof *v, cmp_double);
  return v[k / 2];
}

static double
time_gaussian (int ep, const sg_approx_model *model, const sg_data *data, const double *Xs,
               sg_point_summary *out, int *iters)
{
  sg_gauss_post post;
  double t0 = now_ms ();
  int st = ep ? sg_ep_posterior (model, data, NULL, NULL, NULL, &post)
              : sg_laplace_posterior (model, data, NULL, NULL, NULL, &post);
  if (st != SG_OK)
    {
      fprintf (stderr, "%s failed: %s\n", ep ? "EP" : "Laplace", sg_strerror (st));
      exit (1);
    }
  *iters = post.iterations;
  sg_gauss_post_summaries (&post, Xs, N_TEST, 0.95, NULL, out);
  double t = now_ms () - t0;
  sg_gauss_post_clear (&post);
  return t;
}

typedef struct {
  double posterior, sampling, summaries, total, ess;
} skew_times;

static skew_times
time_skewgp (const sg_skewgp_prior *prior, const sg_data *data, const double *Xs,
             size_t n_samples, sg_point_summary *out)
{
  skew_times t;
  sg_noise noise = { 1, 1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post;
  sg_skewgp_samples *samples;
  gsl_rng *rng = sg_rng_new (7, 0);
  double t0 = now_ms ();
  if (sg_likelihood_build (data, &noise, &lik) != SG_OK
      || sg_skewgp_posterior_new (prior, data->X, &lik, &post) != SG_OK)
    {
      fprintf (stderr, "SkewGP posterior failed\n");
      exit (1);
    }
  double t1 = now_ms ();
  if (sg_skewgp_sample (post, n_samples, NULL, rng, NULL, &samples) != SG_OK)
    {
      fprintf (stderr, "SkewGP sampling failed\n");
      exit (1);
    }
  double t2 = now_ms ();
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_CLASS_PROB;
  sg_skewgp_summarize (post, samples, Xs, N_TEST, &so, NULL, out);
  double t3 = now_ms ();
  t.posterior = t1 - t0;
  t.sampling = t2 - t1;
  t.summaries = t3 - t2;
  t.total = t3 - t0;
  sg_skewgp_samples_ess (samples, &t.ess);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_rng_free (rng);
  return t;
}

/* Mean absolute difference of the class probabilities. */
static double
mad_prob (const sg_point_summary *a, const sg_point_summary *b)
{
  double s = 0;
  for (int i = 0; i < N_TEST; i++)
    s += fabs (a[i].class_probability - b[i].class_probability);
  return s / N_TEST;
}

int
main (int argc, char **argv)
{
  size_t n_samples = argc > 1 ? (size_t) atol (argv[1]) : 2000;
  size_t max_n = argc > 2 ? (size_t) atol (argv[2]) : 2000;
  printf ("OpenBLAS core: %s; config: %s\n", openblas_get_corename (), openblas_get_config ());
  printf ("SkewGP samples: %zu; test points: %d; times in ms (wall clock)\n\n", n_samples,
          N_TEST);
  printf ("| n | Laplace ms (Newton it.) | EP ms (sweeps) | SkewGP s=0 total ms "
          "(posterior / sampling / summaries) | ESS | SkewGP s=2 total ms | "
          "mean abs dP Laplace-exact | mean abs dP EP-exact |\n");
  printf ("|---|---|---|---|---|---|---|---|\n");
  const size_t ns[] = { 100, 500, 2000 };
  sg_point_summary *sl = malloc (N_TEST * sizeof *sl), *se = malloc (N_TEST * sizeof *se),
                   *ss = malloc (N_TEST * sizeof *ss), *ss2 = malloc (N_TEST * sizeof *ss2);
  double *Xs = malloc (2 * N_TEST * sizeof *Xs);
  for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++)
    {
      size_t n = ns[q];
      if (n > max_n)
        break;
      sg_data data;
      make_data (n, 1000 + n, &data, Xs);
      sg_kernel k = { 0 };
      sg_kernel_init (&k, SG_KERNEL_RBF, 2, 1.0, 0.5);
      sg_approx_model model = { .kernel = k, .prior_mean = 0, .noise = { 1, 1 },
                                .link = SG_LINK_PROBIT };
      int reps = n <= 500 ? 3 : 1, it_l = 0, it_e = 0;
      double tl[3], te[3], ts[3], ts2[3];
      skew_times st[3];
      sg_skewgp_prior gp;
      sg_skewgp_prior_gp (&gp, &k, 0);
      /* SkewGP_2: pseudo-points at the first input of each class, phases
       * = their labels, gamma = 0 (as `skewgp classify --skew-dim 2`). */
      double U[4], L[2], gam[2] = { 0, 0 };
      size_t got = 0;
      for (int cls = 1; cls >= -1; cls -= 2)
        for (size_t i = 0; i < data.n_obs; i++)
          if ((int) data.obs[i].y == cls)
            {
              memcpy (U + 2 * got, data.X + 2 * data.obs[i].a, 2 * sizeof (double));
              L[got++] = cls;
              break;
            }
      sg_skewgp_prior skew = gp;
      skew.s = 2;
      skew.pseudo_points = U;
      skew.phases = L;
      skew.gamma = gam;
      for (int r = 0; r < reps; r++)
        {
          tl[r] = time_gaussian (0, &model, &data, Xs, sl, &it_l);
          te[r] = time_gaussian (1, &model, &data, Xs, se, &it_e);
          st[r] = time_skewgp (&gp, &data, Xs, n_samples, ss);
          ts[r] = st[r].total;
          ts2[r] = time_skewgp (&skew, &data, Xs, n_samples, ss2).total;
        }
      /* per-stage numbers of the run with the median total */
      skew_times mid = st[0];
      double ts_sorted[3];
      memcpy (ts_sorted, ts, sizeof ts);
      double m = median (ts_sorted, reps);
      for (int r = 0; r < reps; r++)
        if (st[r].total == m)
          mid = st[r];
      printf ("| %zu | %.1f (%d) | %.1f (%d) | %.0f (%.1f / %.0f / %.0f) | %.0f | %.0f | %.4f | %.4f |\n",
              n, median (tl, reps), it_l, median (te, reps), it_e, m, mid.posterior,
              mid.sampling, mid.summaries, mid.ess, median (ts2, reps), mad_prob (sl, ss),
              mad_prob (se, ss));
      fflush (stdout);
      sg_data_clear (&data);
      sg_kernel_clear (&k);
    }
  free (sl);
  free (se);
  free (ss);
  free (ss2);
  free (Xs);
  return 0;
}
