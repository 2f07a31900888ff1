/* bench-skewgp.c — exact SkewGP posterior: time for posterior + samples +
 * grid summaries, and time/accuracy of the log evidence, on 2-D preference
 * data (random duels between uniform points in [0,1]^2, winner by
 * g(x) = sin(3 x1) + cos(3 x2), RBF kernel l = 0.2, variance 1,
 * probit_sd 0.1).
 *
 * Usage: bench-skewgp [N_SAMPLES [GRID [THREADS]]]   (defaults 2000 200 1)
 * "fast" = sg_summary_options.fast_moments (mean/sd exact from the sample
 * moments of t, skewness from the low-rank expansion), compared with the
 * sample path's skewness on the same samples.
 * Prints a markdown table. Single BLAS thread unless THREADS > 1; the
 * sampler's two chains run on THREADS threads. Times are process CPU
 * milliseconds (= wall time on one otherwise idle core when THREADS = 1).
 */
#include "sg-data.h"
#include "sg-mvn.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern char *openblas_get_config (void);
extern void openblas_set_num_threads (int);

/* Process CPU time: with THREADS = 1 everything runs on this thread, and
 * CPU time is robust against the other jobs sharing the machine. */
static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static double
g_true (const double *x)
{
  return sin (3 * x[0]) + cos (3 * x[1]);
}

static void
make_duels (size_t n_duels, uint64_t seed, sg_data *data)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  sg_data_init (data, 2);
  for (size_t k = 0; k < n_duels; k++)
    {
      double a[2] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      double b[2] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      if (g_true (a) >= g_true (b))
        sg_data_add_preference (data, a, b);
      else
        sg_data_add_preference (data, b, a);
    }
  sg_rng_free (rng);
}

int
main (int argc, char *argv[])
{
  size_t N = argc > 1 ? (size_t) atol (argv[1]) : 2000;
  size_t G = argc > 2 ? (size_t) atol (argv[2]) : 200;
  int threads = argc > 3 ? atoi (argv[3]) : 1;
  openblas_set_num_threads (threads);
  printf ("OpenBLAS core: %s; config: %s\n", openblas_get_corename (),
          openblas_get_config ());
  printf ("samples %zu, grid %zux%zu, threads %d, exact HMC, %d chains\n\n", N, G, G,
          threads, SG_SKEWGP_DEFAULT_CHAINS);
  printf ("| duels | inputs | posterior ms | sampling ms | ESS (min over t) | "
          "grid all fields ms | grid mean/sd/skew ms | grid fast mean/sd/skew ms | "
          "fast: max |dskew| (rms) | grid fast mean/sd ms | total ms | total, fast maps ms | "
          "total, fast mean/sd maps ms | log evidence ms | "
          "log ML | est. error | |diff| to 10x points |\n");
  printf ("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");

  double *grid = malloc (G * G * 2 * sizeof *grid);
  for (size_t i = 0; i < G; i++)
    for (size_t j = 0; j < G; j++)
      {
        grid[(i * G + j) * 2] = (double) i / (double) (G - 1);
        grid[(i * G + j) * 2 + 1] = (double) j / (double) (G - 1);
      }
  sg_point_summary *sum = malloc (G * G * sizeof *sum);
  sg_point_summary *fast = malloc (G * G * sizeof *fast);
  const size_t duels[] = { 25, 50, 100, 200, 500 };
  for (size_t c = 0; c < sizeof duels / sizeof duels[0]; c++)
    {
      sg_data data;
      make_duels (duels[c], 1000 + c, &data);
      sg_kernel k = { 0 };
      sg_kernel_init (&k, SG_KERNEL_RBF, 2, 1.0, 0.2);
      sg_skewgp_prior prior;
      sg_skewgp_prior_gp (&prior, &k, 0);
      sg_noise noise = { 1, 0.1 };
      sg_likelihood lik;
      sg_likelihood_build (&data, &noise, &lik);

      double t0 = now ();
      sg_skewgp_posterior *post = NULL;
      if (sg_skewgp_posterior_new (&prior, data.X, &lik, &post) != SG_OK)
        return 1;
      double t1 = now ();
      sg_skewgp_sample_options so;
      sg_skewgp_sample_options_default (&so);
      so.tmvn.n_threads = (size_t) threads;
      gsl_rng *rng = sg_rng_new (7, c);
      sg_skewgp_samples *s = NULL;
      if (sg_skewgp_sample (post, N, &so, rng, NULL, &s) != SG_OK)
        return 1;
      double t2 = now ();
      sg_summary_options opt;
      sg_summary_options_default (&opt);
      double xr[2] = { 0.5, 0.5 };
      opt.reference = xr;
      if (sg_skewgp_summarize (post, s, grid, G * G, &opt, NULL, sum) != SG_OK)
        return 1;
      double t3 = now ();
      opt.fields = SG_SUMMARY_MOMENTS;
      if (sg_skewgp_summarize (post, s, grid, G * G, &opt, NULL, sum) != SG_OK)
        return 1;
      double t4 = now ();
      opt.fast_moments = 1;
      if (sg_skewgp_summarize (post, s, grid, G * G, &opt, NULL, fast) != SG_OK)
        return 1;
      double t4f = now ();
      double dskew = 0, rms = 0;
      for (size_t i = 0; i < G * G; i++)
        {
          double e = fabs (fast[i].skewness - sum[i].skewness);
          dskew = e > dskew ? e : dskew;
          rms += e * e;
        }
      rms = sqrt (rms / (double) (G * G));
      double t4m = now ();
      opt.fast_moments = SG_SUMMARY_FAST_MEAN_SD;
      if (sg_skewgp_summarize (post, s, grid, G * G, &opt, NULL, fast) != SG_OK)
        return 1;
      double t4g = now ();

      size_t m = sg_skewgp_posterior_n_latent (post);
      double ess = NAN;
      sg_skewgp_samples_ess (s, &ess);

      /* log evidence: default options vs 10x the points (reference) */
      sg_mvn_options mo;
      sg_mvn_options_default (&mo);
      sg_mvn_workspace *w = sg_mvn_workspace_new (m);
      sg_skewgp_evidence ev, ref;
      double t5 = now ();
      int st = sg_skewgp_posterior_log_evidence (post, w, &mo, &ev);
      double t6 = now ();
      mo.n_points *= 10;
      mo.seed = 12345;
      int st2 = sg_skewgp_posterior_log_evidence (post, w, &mo, &ref);
      printf ("| %zu | %zu | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.1e (%.1e) | %.0f | %.0f | %.0f | %.0f | %.1f | %.4f | %.2g | %.2g |\n",
              duels[c], data.n_inputs, 1e3 * (t1 - t0), 1e3 * (t2 - t1), ess,
              1e3 * (t3 - t2), 1e3 * (t4 - t3), 1e3 * (t4f - t4), dskew, rms,
              1e3 * (t4g - t4m), 1e3 * (t3 - t0), 1e3 * (t2 - t0 + t4f - t4),
              1e3 * (t2 - t0 + t4g - t4m), 1e3 * (t6 - t5),
              st == SG_OK ? ev.log_ml : NAN, st == SG_OK ? ev.error : NAN,
              st == SG_OK && st2 == SG_OK ? fabs (ev.log_ml - ref.log_ml) : NAN);
      fflush (stdout);
      sg_mvn_workspace_free (w);
      sg_rng_free (rng);
      sg_skewgp_samples_free (s);
      sg_skewgp_posterior_free (post);
      sg_likelihood_clear (&lik);
      sg_data_clear (&data);
      sg_kernel_clear (&k);
    }
  free (grid);
  free (sum);
  free (fast);
  return 0;
}
