/* bench-hier.c — does the hierarchical model find a population's optimum
 * better than each participant's own model? (tests/bench/results-hier.md)
 *
 * Simulated study, per seed: a shared utility g(x) on [0, 1] (a bump of
 * height 1 and width 0.15 at a random x* in [0.2, 0.8], plus a smaller
 * bump elsewhere so the optimum is not trivially anywhere high), and P
 * participants with utilities f_p = g + h_p, each h_p an independent draw
 * of a GP(0, v_ind RBF(0.2)) (random Fourier features, 200 of them). Each
 * participant answers N duels between uniform random settings, the answer
 * drawn from the probit model Phi((f_p(a) - f_p(b)) / (sqrt2 sigma)),
 * sigma = 0.1.
 *
 * Models (hyperparameters fixed at the simulation's: k_pop RBF(1, 0.15),
 * k_ind RBF(v_ind, 0.2), probit sd sigma; no fitting, so the comparison is
 * of the models, not of fits):
 *   hier   the hierarchical model on everyone's answers; recommends the
 *          grid point with the largest posterior mean of g;
 *   own    each participant's separate model (their answers only, prior
 *          k_pop + k_ind = f_p's marginal prior); recommends the argmax of
 *          the posterior mean of f_p;
 *   pooled one GP on everyone's answers ignoring who gave them: the same
 *          model with k_ind = 0 (the deviations h_p left as model error).
 * Rows marked "fitted" instead fit both kernels' variances and
 * lengthscales on the exact evidence of everyone's answers (sg_hier_fit,
 * 2 starts, 150 evaluations, from v_pop 1, l 0.3, v_ind 0.1, l 0.3; the
 * probit sd at sigma) and give the fitted model to all three.
 * Regret of a recommendation x_rec on the population utility:
 *   g(x*) - g(x_rec)   (grid of 201 points; x* the grid's best).
 * The table gives means over seeds, and the paired difference hier - own
 * (own = the mean over the P participants' separate models of that seed)
 * with its standard error over seeds. A second column pair gives the
 * person-level view: regret of f_p's recommendation on f_p itself, from
 * the hierarchical model vs the person's own model (borrowing strength).
 * For scale, "people's average known": the regret on g of the setting
 * that maximises the P people's mean utility (1/P) sum_p f_p, known
 * exactly: with few people the average of their h_p moves the optimum,
 * and no model of these answers can tell g from g + mean h_p.
 * Also the mean over people of P(person's best differs from the
 * population's) (tolerance 0.05) from the hierarchical posterior.
 *
 * Usage: bench-hier [--quick]. One process; run with nice -n 19 and
 * OPENBLAS_NUM_THREADS=1.
 */
#include "sg-hier.h"
#include "sg-normal.h"
#include "sg-rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern char *openblas_get_config (void);

#define GRID 201
#define N_FEATURES 200
#define MAX_PEOPLE 16
#define SIGMA 0.1
#define POP_LS 0.15
#define IND_LS 0.2

typedef struct {
  double x_star, x_second, h_second;
  double w[MAX_PEOPLE][N_FEATURES], b[MAX_PEOPLE][N_FEATURES];
  double v_ind;
  size_t P;
} study;

static double
g_of (const study *s, double x)
{
  double u = (x - s->x_star) / POP_LS, v = (x - s->x_second) / POP_LS;
  return exp (-0.5 * u * u) + s->h_second * exp (-0.5 * v * v);
}

/* h_p by random Fourier features: sqrt(2 v / M) sum cos(w x + b),
 * w ~ N(0, 1 / l^2), b ~ U[0, 2 pi): a draw of GP(0, v RBF(l)) as M grows. */
static double
h_of (const study *s, size_t p, double x)
{
  double sum = 0;
  for (size_t m = 0; m < N_FEATURES; m++)
    sum += cos (s->w[p][m] * x + s->b[p][m]);
  return sqrt (2 * s->v_ind / N_FEATURES) * sum;
}

static void
study_init (study *s, size_t P, double v_ind, gsl_rng *rng)
{
  s->P = P;
  s->v_ind = v_ind;
  s->x_star = 0.2 + 0.6 * gsl_rng_uniform (rng);
  do
    s->x_second = gsl_rng_uniform (rng);
  while (fabs (s->x_second - s->x_star) < 0.35);
  s->h_second = 0.6;
  for (size_t p = 0; p < P; p++)
    for (size_t m = 0; m < N_FEATURES; m++)
      {
        s->w[p][m] = sg_rng_gaussian (rng) / IND_LS;
        s->b[p][m] = 2 * M_PI * gsl_rng_uniform (rng);
      }
}

/* P participants answer N random duels each. */
static void
answer (const study *s, size_t N, gsl_rng *rng, sg_hier_data *hd)
{
  sg_hier_data_init (hd, 1, s->P);
  for (size_t p = 0; p < s->P; p++)
    for (size_t k = 0; k < N; k++)
      {
        double a = gsl_rng_uniform (rng), b = gsl_rng_uniform (rng);
        double fa = g_of (s, a) + h_of (s, p, a), fb = g_of (s, b) + h_of (s, p, b);
        int a_wins = gsl_rng_uniform (rng) < sg_norm_cdf ((fa - fb) / (M_SQRT2 * SIGMA));
        double w = a_wins ? a : b, l = a_wins ? b : a;
        if (sg_hier_add_preference (hd, p, &w, &l) != SG_OK)
          k--;   /* a == b: draw again */
      }
}

static double grid[GRID];

/* The grid index of the largest posterior mean of PERSON's utility (or
 * g) under MODEL on HD. */
static size_t
recommend (const sg_hier_model *model, const sg_hier_data *hd, size_t person,
           gsl_rng *rng, double *prob_differs)
{
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  sg_skewgp_sample_options so;
  sg_skewgp_sample_options_default (&so);
  size_t best = 0;
  if (sg_hier_posterior_new (model, hd, &post) != SG_OK
      || sg_skewgp_sample (post, 400, &so, rng, NULL, &samples) != SG_OK
      || sg_hier_best_mean (post, samples, grid, GRID, person, &best, NULL) != SG_OK)
    {
      fprintf (stderr, "bench-hier: posterior failed\n");
      exit (1);
    }
  if (prob_differs)
    {
      /* every person's P(best differs) from the same posterior; a coarser
       * candidate set (every 4th grid point) keeps the joint draw small */
      double cand[GRID / 4 + 1];
      size_t c = 0;
      for (size_t i = 0; i < GRID; i += 4)
        cand[c++] = grid[i];
      double sum = 0;
      for (size_t p = 0; p < hd->n_people; p++)
        {
          double pr;
          if (sg_hier_prob_best_differs (post, samples, cand, c, p, 0.05, rng, &pr, NULL)
              != SG_OK)
            exit (1);
          sum += pr;
        }
      *prob_differs = sum / (double) hd->n_people;
    }
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  return best;
}

typedef struct {
  double sum, sum2;
  size_t n;
} acc;

static void
acc_add (acc *a, double v)
{
  a->sum += v;
  a->sum2 += v * v;
  a->n++;
}

static double
acc_mean (const acc *a)
{
  return a->sum / (double) a->n;
}

static double
acc_se (const acc *a)
{
  double m = acc_mean (a), var = (a->sum2 - (double) a->n * m * m) / (double) (a->n - 1);
  return sqrt (fmax (var, 0) / (double) a->n);
}

/* MODEL's kernels fitted on HD's exact evidence (both parts' variances
 * and lengthscales free; the probit sd stays at the simulation's), from
 * a start that knows nothing of the truth. */
static void
fit (sg_hier_model *model, const sg_hier_data *hd, gsl_rng *rng, acc *evals)
{
  sg_hier_model_init (model, SG_KERNEL_RBF, 1, 1, 0.3, 0.1, 0.3);
  model->noise.probit_sd = SIGMA;
  sg_fit_options fo;
  sg_fit_options_default (&fo);
  fo.n_starts = 2;
  fo.max_evals = 150;
  sg_fit_result res;
  if (sg_hier_fit (NULL, model, hd, &fo, rng, NULL, &res) != SG_OK)
    {
      fprintf (stderr, "bench-hier: fit failed\n");
      exit (1);
    }
  acc_add (evals, (double) res.n_evals);
}

static void
run (size_t P, size_t N, double v_ind, size_t n_seeds, int fitted)
{
  acc hier = { 0 }, own = { 0 }, pooled = { 0 }, diff = { 0 }, diff_pooled = { 0 };
  acc person_hier = { 0 }, person_own = { 0 }, person_diff = { 0 }, differs = { 0 };
  acc evals = { 0 }, fit_v_pop = { 0 }, fit_v_ind = { 0 }, oracle = { 0 };
  double t0 = (double) clock () / CLOCKS_PER_SEC;
  for (size_t seed = 0; seed < n_seeds; seed++)
    {
      gsl_rng *rng = sg_rng_new (1000 + seed, 0);
      study s;
      study_init (&s, P, v_ind, rng);
      sg_hier_data hd;
      answer (&s, N, rng, &hd);
      double gbest = -INFINITY, fbest[MAX_PEOPLE], avg_best = -INFINITY, g_at_avg = 0;
      for (size_t i = 0; i < GRID; i++)
        {
          gbest = fmax (gbest, g_of (&s, grid[i]));
          /* the setting these people prefer on average, known exactly */
          double avg = 0;
          for (size_t p = 0; p < P; p++)
            avg += g_of (&s, grid[i]) + h_of (&s, p, grid[i]);
          if (avg > avg_best)
            {
              avg_best = avg;
              g_at_avg = g_of (&s, grid[i]);
            }
        }
      for (size_t p = 0; p < P; p++)
        {
          fbest[p] = -INFINITY;
          for (size_t i = 0; i < GRID; i++)
            fbest[p] = fmax (fbest[p], g_of (&s, grid[i]) + h_of (&s, p, grid[i]));
        }
      sg_hier_model model = { 0 }, pool = { 0 };
      sg_hier_model_init (&model, SG_KERNEL_RBF, 1, 1, POP_LS, v_ind, IND_LS);
      model.noise.probit_sd = SIGMA;
      if (fitted)
        {
          fit (&model, &hd, rng, &evals);
          acc_add (&fit_v_pop, log (model.pop.variance));
          acc_add (&fit_v_ind, log (model.ind.variance));
        }
      pool = model;
      pool.ind.variance = 0;

      double pd;
      size_t r = recommend (&model, &hd, SG_HIER_POPULATION, rng, &pd);
      double reg_hier = gbest - g_of (&s, grid[r]);
      r = recommend (&pool, &hd, SG_HIER_POPULATION, rng, NULL);
      double reg_pool = gbest - g_of (&s, grid[r]);
      double reg_own = 0, ph = 0, po = 0;
      for (size_t p = 0; p < P; p++)
        {
          sg_hier_data mine;
          sg_hier_data_person (&hd, p, &mine);
          r = recommend (&model, &mine, p, rng, NULL);
          reg_own += gbest - g_of (&s, grid[r]);
          po += fbest[p] - (g_of (&s, grid[r]) + h_of (&s, p, grid[r]));
          sg_hier_data_clear (&mine);
          r = recommend (&model, &hd, p, rng, NULL);
          ph += fbest[p] - (g_of (&s, grid[r]) + h_of (&s, p, grid[r]));
        }
      reg_own /= (double) P;
      ph /= (double) P;
      po /= (double) P;
      acc_add (&oracle, gbest - g_at_avg);
      acc_add (&hier, reg_hier);
      acc_add (&own, reg_own);
      acc_add (&pooled, reg_pool);
      acc_add (&diff, reg_hier - reg_own);
      acc_add (&diff_pooled, reg_hier - reg_pool);
      acc_add (&person_hier, ph);
      acc_add (&person_own, po);
      acc_add (&person_diff, ph - po);
      acc_add (&differs, pd);
      sg_hier_data_clear (&hd);
      sg_rng_free (rng);
      sg_hier_model_clear (&model);
      sg_hier_model_clear (&pool);
    }
  double cpu = (double) clock () / CLOCKS_PER_SEC - t0;
  printf ("| %s | %2zu | %3zu | %4.2f | %.3f | %.3f | %.3f | %.3f | %+.3f ± %.3f | %+.3f ± %.3f "
          "| %.3f | %.3f | %+.3f ± %.3f | %.2f | %5.2f |\n",
          fitted ? "fitted" : "true", P, N, v_ind, acc_mean (&oracle), acc_mean (&hier), acc_mean (&own), acc_mean (&pooled),
          acc_mean (&diff), acc_se (&diff), acc_mean (&diff_pooled), acc_se (&diff_pooled),
          acc_mean (&person_hier), acc_mean (&person_own), acc_mean (&person_diff),
          acc_se (&person_diff), acc_mean (&differs), cpu / (double) n_seeds);
  if (fitted)
    fprintf (stderr, "fitted P=%zu N=%zu v_ind=%.2f: geometric mean v_pop %.3f v_ind %.3f, %.0f evaluations\n",
             P, N, v_ind, exp (acc_mean (&fit_v_pop)), exp (acc_mean (&fit_v_ind)),
             acc_mean (&evals));
  fflush (stdout);
}

int
main (int argc, char *argv[])
{
  int quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  size_t n_seeds = quick ? 3 : 30;
  for (size_t i = 0; i < GRID; i++)
    grid[i] = (double) i / (GRID - 1);
  printf ("OpenBLAS: %s (%s)\n", openblas_get_corename (), openblas_get_config ());
  printf ("%zu seeds per row; regret on g unless said; ± = standard error of the paired "
          "difference over seeds\n\n", n_seeds);
  printf ("| hyper | P | N duels each | v_ind | regret g: people's average known | hier | own (mean over people) | pooled GP "
          "| hier - own | hier - pooled | regret f_p: hier | own | hier - own "
          "| P(best differs) | CPU s / seed (all threads) |\n");
  printf ("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  static const size_t Ns[] = { 5, 10, 20, 40 };
  static const double vs[] = { 0.05, 0.2 };
  for (size_t iv = 0; iv < 2; iv++)
    for (size_t in = 0; in < 4; in++)
      run (5, Ns[in], vs[iv], n_seeds, 0);
  for (size_t iv = 0; iv < 2; iv++)
    run (10, 10, vs[iv], n_seeds, 0);
  /* hyperparameters fitted on the evidence (the realistic case) */
  for (size_t iv = 0; iv < 2; iv++)
    for (size_t in = 1; in < 3; in++)
      run (5, Ns[in], vs[iv], quick ? n_seeds : n_seeds / 2, 1);
  return 0;
}
