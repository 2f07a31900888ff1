/* bench-bo.c — latency of one full preferential-BO iteration:
 * exact SkewGP posterior + truncated-Gaussian samples + acquisition maximisation ->
 * next duel, i.e. one sg_bo_propose, for 10, 50, 100, 200 duels in 1, 2
 * and 6 dimensions (cos1d, six-hump-camel, hartmann6); hyperparameter
 * refits timed separately.
 *
 * The duels are those a preferential loop makes: uniform points dueled
 * against the running best x_r by the exact oracle (so n duels have n + 1
 * distinct inputs and the x_r chain structure of real runs). Settings are
 * the defaults of sg_bo_config_default (1000 samples with the default
 * truncated-Gaussian sampler of sg_skewgp_sample_options_default, 500
 * Sobol candidates + training inputs, 2 BOBYQA starts of 60 evaluations,
 * dueling UCB), fixed hyperparameters
 * (variance 10, lengthscales 0.2 x box width) so every repetition does
 * the same work.
 *
 * Usage: bench-bo [REPS [REFIT_MAX_DUELS]]   (defaults 5 and 100)
 *        bench-bo --acquisitions [REPS]     (default 5)
 * The second form prints only the cost of one proposal per duel
 * acquisition (ucb, eiig, hb-ei, hb-ucb, qeubo) after 20, 50 and 110
 * duels in 2, 4 and 6 dimensions (branin, levy4, hartmann6: the Takeno
 * protocol's sizes; results-acq.md "Cost per proposal").
 * Prints markdown tables. Times are process CPU milliseconds (all threads:
 * one BLAS thread, the sampler's chains) and wall milliseconds; the median
 * over REPS proposals (different random streams).
 */
#include "sg-bo.h"
#include "sg-problems.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern char *openblas_get_config (void);
extern void openblas_set_num_threads (int);

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static double
wall (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static int
cmp_d (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A loop asking by ACQ with N_DUELS answered duels of uniform points
 * against x_r. */
static sg_bo *
make_loop_acq (const sg_problem *p, size_t n_duels, uint64_t seed, sg_bo_acquisition acq)
{
  size_t dim = sg_problem_dim (p);
  sg_bo_config c = { 0 };
  sg_bo_config_default (&c, dim, sg_problem_lower (p), sg_problem_upper (p));
  c.acquisition = acq;
  c.prior.kernel.variance = 10;
  c.refit_until = c.refit_every = 0;
  c.n_initial = 0;
  c.seed = seed;
  sg_bo *bo = NULL;
  if (sg_bo_new (&c, &bo) != SG_OK)
    return NULL;
  gsl_rng *rng = sg_rng_new (seed, 99);
  double xr[SG_BO_MAX_DIM], x[SG_BO_MAX_DIM];
  for (size_t j = 0; j < dim; j++)
    xr[j] = c.lower[j] + gsl_rng_uniform (rng) * (c.upper[j] - c.lower[j]);
  for (size_t k = 0; k < n_duels; k++)
    {
      for (size_t j = 0; j < dim; j++)
        x[j] = c.lower[j] + gsl_rng_uniform (rng) * (c.upper[j] - c.lower[j]);
      int a_wins = sg_problem_value (p, x) >= sg_problem_value (p, xr);
      sg_bo_answer_duel (bo, x, xr, a_wins);
      if (a_wins)
        memcpy (xr, x, dim * sizeof *x);
    }
  sg_rng_free (rng);
  sg_bo_config_clear (&c);
  return bo;
}

static sg_bo *
make_loop (const sg_problem *p, size_t n_duels, uint64_t seed)
{
  return make_loop_acq (p, n_duels, seed, SG_BO_ACQ_UCB);
}

/* CPU and wall ms of one sg_bo_propose per duel acquisition, median of
 * REPS loops (different duels and streams). */
static void
acquisition_costs (int reps)
{
  const char *problems[] = { "branin", "levy4", "hartmann6" };
  const size_t duels[] = { 20, 50, 110 };
  const sg_bo_acquisition acqs[] = { SG_BO_ACQ_UCB, SG_BO_ACQ_EIIG, SG_BO_ACQ_HB_EI,
                                     SG_BO_ACQ_HB_UCB, SG_BO_ACQ_QEUBO };
  enum { N_ACQ = sizeof acqs / sizeof acqs[0] };
  printf ("One proposal (sg_bo_propose: posterior, 1000 samples, the acquisition's search), "
          "median of %d, CPU ms (wall ms in brackets)\n\n", reps);
  printf ("| problem (dim) | duels |");
  for (int a = 0; a < N_ACQ; a++)
    printf (" %s |", sg_bo_acquisition_name (acqs[a]));
  printf ("\n|---|---:|");
  for (int a = 0; a < N_ACQ; a++)
    printf ("---:|");
  printf ("\n");
  for (size_t pi = 0; pi < sizeof problems / sizeof *problems; pi++)
    {
      sg_problem *p = NULL;
      sg_problem_new (problems[pi], 0, &p);
      for (size_t di = 0; di < sizeof duels / sizeof *duels; di++)
        {
          printf ("| %s (%zu) | %zu |", problems[pi], sg_problem_dim (p), duels[di]);
          for (int a = 0; a < N_ACQ; a++)
            {
              double t[64], w[64];
              int n = reps < 64 ? reps : 64;
              for (int r = 0; r < n; r++)
                {
                  sg_bo *bo = make_loop_acq (p, duels[di], (uint64_t) (100 * di + r + 1), acqs[a]);
                  gsl_rng *rng = sg_bo_rng (bo);
                  sg_bo_query q;
                  double w0 = wall (), t0 = now ();
                  int st = sg_bo_propose (bo, rng, NULL, &q);
                  t[r] = 1e3 * (now () - t0);
                  w[r] = 1e3 * (wall () - w0);
                  if (st != SG_OK)
                    fprintf (stderr, "propose: %s\n", sg_strerror (st));
                  sg_rng_free (rng);
                  sg_bo_free (bo);
                }
              printf (" %.0f [%.0f] |", median (t, n), median (w, n));
              fflush (stdout);
            }
          printf ("\n");
        }
      sg_problem_free (p);
    }
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--acquisitions") == 0)
    {
      int reps = argc > 2 ? atoi (argv[2]) : 5;
      openblas_set_num_threads (1);
      printf ("OpenBLAS core: %s; config: %s\n\n", openblas_get_corename (), openblas_get_config ());
      acquisition_costs (reps < 1 ? 1 : reps);
      return 0;
    }
  int reps = argc > 1 ? atoi (argv[1]) : 5;
  size_t refit_max = argc > 2 ? (size_t) atoi (argv[2]) : 100;
  if (reps < 1)
    reps = 1;
  openblas_set_num_threads (1);
  printf ("OpenBLAS core: %s; config: %s\n\n", openblas_get_corename (), openblas_get_config ());

  const char *problems[] = { "cos1d", "six-hump-camel", "hartmann6" };
  const size_t duels[] = { 10, 50, 100, 200 };
  printf ("One full iteration = sg_bo_propose (posterior + 1000 samples + acquisition "
          "maximisation), median of %d, CPU ms (wall ms in brackets)\n\n", reps);
  printf ("| problem (dim) | duels | posterior + samples | full iteration | acq. share |\n");
  printf ("|---|---:|---:|---:|---:|\n");
  for (size_t pi = 0; pi < 3; pi++)
    {
      sg_problem *p = NULL;
      sg_problem_new (problems[pi], 0, &p);
      for (size_t di = 0; di < 4; di++)
        {
          double t_model[64], t_full[64], w_full[64];
          for (int r = 0; r < reps && r < 64; r++)
            {
              sg_bo *bo = make_loop (p, duels[di], (uint64_t) (100 * di + r + 1));
              gsl_rng *rng = sg_bo_rng (bo);
              /* the model alone, with the same settings */
              const sg_bo_config *c = sg_bo_get_config (bo);
              sg_skewgp_prior prior;
              sg_hyper_skewgp_prior (sg_bo_get_hyper (bo), &prior);
              sg_likelihood lik;
              sg_likelihood_build (sg_bo_data (bo), &sg_bo_get_hyper (bo)->noise, &lik);
              double t0 = now ();
              sg_skewgp_posterior *post = NULL;
              sg_skewgp_samples *smp = NULL;
              sg_skewgp_posterior_new (&prior, sg_bo_data (bo)->X, &lik, &post);
              sg_skewgp_sample (post, c->n_samples, &c->sampling, rng, NULL, &smp);
              t_model[r] = 1e3 * (now () - t0);
              sg_skewgp_samples_free (smp);
              sg_skewgp_posterior_free (post);
              sg_likelihood_clear (&lik);
              sg_rng_free (rng);

              rng = sg_bo_rng (bo);
              sg_bo_query q;
              double w0 = wall ();
              t0 = now ();
              int st = sg_bo_propose (bo, rng, NULL, &q);
              t_full[r] = 1e3 * (now () - t0);
              w_full[r] = 1e3 * (wall () - w0);
              if (st != SG_OK)
                fprintf (stderr, "propose: %s\n", sg_strerror (st));
              sg_rng_free (rng);
              sg_bo_free (bo);
            }
          int n = reps < 64 ? reps : 64;
          double m = median (t_model, n), f = median (t_full, n), w = median (w_full, n);
          printf ("| %s (%zu) | %zu | %.0f | %.0f [%.0f] | %.0f%% |\n", problems[pi],
                  sg_problem_dim (p), duels[di], m, f, w, 100 * (f - m) / f);
          fflush (stdout);
        }
      sg_problem_free (p);
    }

  printf ("\nHyperparameter refit (sg_bo_refit: exact SkewGP evidence, lengthscales + "
          "variance, 1 BOBYQA start, up to 150 evaluations), one run each, CPU ms\n\n");
  printf ("| problem (dim) | duels | refit | evaluations | ms / evaluation |\n");
  printf ("|---|---:|---:|---:|---:|\n");
  for (size_t pi = 0; pi < 3; pi++)
    {
      sg_problem *p = NULL;
      sg_problem_new (problems[pi], 0, &p);
      for (size_t di = 0; di < 4 && duels[di] <= refit_max; di++)
        {
          sg_bo *bo = make_loop (p, duels[di], 7);
          sg_fit_result res;
          double t0 = now ();
          int st = sg_bo_refit (bo, NULL, NULL, &res);
          double t = 1e3 * (now () - t0);
          if (st != SG_OK)
            printf ("| %s (%zu) | %zu | failed: %s | | |\n", problems[pi], sg_problem_dim (p),
                    duels[di], sg_strerror (st));
          else
            printf ("| %s (%zu) | %zu | %.0f | %zu | %.1f |\n", problems[pi], sg_problem_dim (p),
                    duels[di], t, res.n_evals, t / (double) (res.n_evals ? res.n_evals : 1));
          fflush (stdout);
          sg_bo_free (bo);
        }
      sg_problem_free (p);
    }
  return 0;
}
