/* bench-scale.c — questions at scale: the sparse variational model and the
 * cached population beside the exact model (tests/bench/results-scale.md).
 *
 * Simulation (2-D box [0, 1]^2): a population utility g with a bump of
 * height 1 (width 0.15) at a random x* and a second of height 0.6, people
 * f_p = g + h_p with h_p a draw of GP(0, 0.1 RBF(0.2)) (random Fourier
 * features), duels between uniform random settings answered by the probit
 * model with sd 0.1. Model hyperparameters are the simulation's (k_pop
 * RBF(1, 0.15), k_ind RBF(0.1, 0.2), probit sd 0.1), held by every fit, so
 * the comparisons are of the models, not of fits.
 *
 * study P N    P people x N duels. Refresh = sg_hier_population_new (M =
 *              100 population points, at most 50 CVI iterations).
 *              A question for person p = sg_hier_population_pseudo (the
 *              others' summary), sg_hier_propose_duel with .population
 *              (500 samples); timed for 20 questions (people in turn), median
 *              and p95 wall time, with the CPU time of the process.
 *              With --exact also the exact model's question (everyone's
 *              answers) and the agreement figures: for each person (at
 *              most 10), on a 15 x 15 grid, |mean_cached - mean_exact| /
 *              sd_exact of f_p (share <= 0.1, median, 95th percentile),
 *              sd_cached / sd_exact (median), the distance between the
 *              two models' recommended best of f_p (argmax of the mean on
 *              the grid) over the box's diagonal, and |prob_best_differs
 *              cached - exact| (tolerance 0.05).
 * session N    one person, N duels, v_ind = 0. The sparse fit of the first
 *              N - 1 answers (the stored fit: sg_hier_sparse_fit with the
 *              library's defaults, the kernel held: M = 200, 60 natural-
 *              gradient steps; and the summed sites); a question after answer N =
 *              pseudo-observations of the fit's sites + answer N exactly.
 *              With --exact the exact question on all N and the agreement
 *              of f (grid, as above, against the fit's summary of all N).
 *
 * regret session SEED   Hartmann-6 (preference sd 0.05), 200 random duels,
 *              then 40 questions of the exact sg_bo loop and of the same
 *              loop with a sparse summary refreshed every 10 answers
 *              (sg_bo_set_summary); regret of the evaluated recommendation.
 * regret study SEED     the world above with 10 people, 5 random duels each,
 *              then 8 rounds of one question per person from the exact
 *              model or from the cache (refreshed each round); regret on
 *              g of the exact model's recommendation on the grid.
 *
 * Usage: bench-scale study P N [--exact] | session N [--exact] [--inducing M]
 * [--adam N] [--refine K] | regret session|study SEED. One row of
 * the table per run (markdown), peak memory from getrusage. Run with
 * nice -n 19 OPENBLAS_NUM_THREADS=1.
 */
#include "sg-bo.h"
#include "sg-hier.h"
#include "sg-problems.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-svgp-rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

extern char *openblas_get_corename (void);

#define D 2
#define N_FEATURES 100
#define SIGMA 0.1
#define POP_LS 0.15
#define IND_LS 0.2
#define V_IND 0.1
#define GRID 15
#define QUESTIONS 20
#define AGREE_PEOPLE 10
#define M_INDUCING 100
#define CVI_ITERATIONS 50

typedef struct {
  double xs[D], x2[D];
  size_t P;
  double *w, *b;   /* P x N_FEATURES x D, P x N_FEATURES */
  double v_ind;
} world;

static double
bump (const double *x, const double *c)
{
  double r2 = 0;
  for (size_t j = 0; j < D; j++)
    r2 += (x[j] - c[j]) * (x[j] - c[j]);
  return exp (-0.5 * r2 / (POP_LS * POP_LS));
}

static double
f_of (const world *s, size_t p, const double *x)
{
  double g = bump (x, s->xs) + 0.6 * bump (x, s->x2), h = 0;
  if (s->v_ind > 0)
    {
      for (size_t m = 0; m < N_FEATURES; m++)
        {
          const double *w = s->w + (p * N_FEATURES + m) * D;
          h += cos (w[0] * x[0] + w[1] * x[1] + s->b[p * N_FEATURES + m]);
        }
      h *= sqrt (2 * s->v_ind / N_FEATURES);
    }
  return g + h;
}

static void
world_init (world *s, size_t P, double v_ind, gsl_rng *rng)
{
  s->P = P;
  s->v_ind = v_ind;
  for (size_t j = 0; j < D; j++)
    s->xs[j] = 0.2 + 0.6 * gsl_rng_uniform (rng);
  do
    for (size_t j = 0; j < D; j++)
      s->x2[j] = gsl_rng_uniform (rng);
  while (hypot (s->x2[0] - s->xs[0], s->x2[1] - s->xs[1]) < 0.35);
  s->w = malloc (P * N_FEATURES * D * sizeof *s->w);
  s->b = malloc (P * N_FEATURES * sizeof *s->b);
  for (size_t i = 0; i < P * N_FEATURES * D; i++)
    s->w[i] = sg_rng_gaussian (rng) / IND_LS;
  for (size_t i = 0; i < P * N_FEATURES; i++)
    s->b[i] = 2 * M_PI * gsl_rng_uniform (rng);
}

static void
one_duel (const world *s, size_t p, gsl_rng *rng, sg_hier_data *hd)
{
  for (;;)
    {
      double a[D], b[D];
      for (size_t j = 0; j < D; j++)
        {
          a[j] = gsl_rng_uniform (rng);
          b[j] = gsl_rng_uniform (rng);
        }
      double fa = f_of (s, p, a), fb = f_of (s, p, b);
      int a_wins = gsl_rng_uniform (rng) < sg_norm_cdf ((fa - fb) / (M_SQRT2 * SIGMA));
      if (sg_hier_add_preference (hd, p, a_wins ? a : b, a_wins ? b : a) == SG_OK)
        return;
    }
}

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static double
cpu (void)
{
  return (double) clock () / CLOCKS_PER_SEC;
}

static double
peak_mb (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (double) ru.ru_maxrss / 1024.0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The Q-quantile of N values (sorted in place). */
static double
quantile (double *v, size_t n, double q)
{
  qsort (v, n, sizeof *v, cmp_double);
  size_t k = (size_t) ceil (q * (double) n) - 1;
  return v[k < n ? k : n - 1];
}

static void
model_of (sg_hier_model *model, double v_ind)
{
  sg_hier_model_init (model, SG_KERNEL_RBF, D, 1, POP_LS, v_ind, IND_LS);
  model->noise.probit_sd = SIGMA;
}

/* Inducing points of a session's sparse fit (--inducing M), its Adam
 * steps (--adam N) and natural-gradient steps (--refine K). */
static size_t session_inducing = 0, session_adam = 0, session_refine = 0;   /* 0: defaults */

static void
rows_options (sg_svgp_rows_options *o)
{
  sg_svgp_rows_options_default (o);
  o->train.fix_kernel = 1;
  if (session_inducing)
    o->n_inducing = session_inducing;
  if (session_adam)
    o->train.iterations = session_adam;
  if (session_refine)
    o->refine_iterations = session_refine;
}

/* A session's stored fit: the sparse model and the summed sites of the
 * answers it has seen. */
typedef struct {
  sg_svgp q;
  double *lambda, *eta;
} session_fit;

static int
session_refresh (const sg_hier_model *model, const sg_hier_data *hd, gsl_rng *rng,
                 session_fit *c)
{
  sg_svgp_rows_options o;
  rows_options (&o);
  int status = sg_hier_sparse_fit (model, hd, &o, rng, NULL, &c->q);
  if (status != SG_OK)
    {
      fprintf (stderr, "sparse fit: status %d\n", status);
      return status;
    }
  size_t M = c->q.M;
  sg_likelihood lik;
  c->lambda = calloc (M * M, sizeof *c->lambda);
  c->eta = calloc (M, sizeof *c->eta);
  status = sg_hier_likelihood_build_sparse (model, hd, &lik);
  if (status != SG_OK)
    return status;
  sg_svgp_rows_data rd = { .dim = D + 1, .n = hd->data.n_inputs, .X = hd->data.X,
                           .lik = &lik, .mean = model->mean };
  status = sg_svgp_rows_sites (&c->q, &rd, NULL, 0, 1, c->lambda, c->eta);
  sg_likelihood_clear (&lik);
  return status;
}

static void
session_fit_clear (session_fit *c)
{
  sg_svgp_clear (&c->q);
  free (c->lambda);
  free (c->eta);
}

static void
grid_points (double *X)
{
  for (size_t i = 0; i < GRID; i++)
    for (size_t j = 0; j < GRID; j++)
      {
        X[(i * GRID + j) * D] = ((double) i + 0.5) / GRID;
        X[(i * GRID + j) * D + 1] = ((double) j + 0.5) / GRID;
      }
}

/* Mean and sd of f_p (or g) at the grid from a posterior. */
static int
grid_summary (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
              size_t person, double *mean, double *sd)
{
  double G[GRID * GRID * D], XS[GRID * GRID * (D + 1)];
  grid_points (G);
  sg_point_summary sum[GRID * GRID];
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS;
  int status = sg_hier_points (D, person, G, GRID * GRID, XS);
  if (status == SG_OK)
    status = sg_skewgp_summarize (post, samples, XS, GRID * GRID, &so, NULL, sum);
  for (size_t i = 0; i < GRID * GRID && status == SG_OK; i++)
    {
      mean[i] = sum[i].mean;
      sd[i] = sum[i].sd;
    }
  return status;
}

static size_t
argmax (const double *v, size_t n)
{
  size_t b = 0;
  for (size_t i = 1; i < n; i++)
    if (v[i] > v[b])
      b = i;
  return b;
}

typedef struct {
  double within, med_z, p95_z, sd_ratio, best_dist, pbd_diff;
  size_t count;
} agreement;

/* Compares two posteriors of PERSON's f_p on the grid; accumulates. */
static int
compare (const sg_skewgp_posterior *pe, const sg_skewgp_samples *se,
         const sg_skewgp_posterior *pc, const sg_skewgp_samples *sc, size_t person,
         double *zs, double *ratios, size_t *nz, double *best, double *gap, double *pbd,
         gsl_rng *rng)
{
  size_t n = GRID * GRID;
  double me[GRID * GRID], sde[GRID * GRID], mc[GRID * GRID], sdc[GRID * GRID];
  int status = grid_summary (pe, se, person, me, sde);
  if (status == SG_OK)
    status = grid_summary (pc, sc, person, mc, sdc);
  if (status != SG_OK)
    return status;
  for (size_t i = 0; i < n; i++)
    {
      zs[*nz] = fabs (mc[i] - me[i]) / sde[i];
      ratios[(*nz)++] = sdc[i] / sde[i];
    }
  double G[GRID * GRID * D];
  grid_points (G);
  size_t be = argmax (me, n), bc = argmax (mc, n);
  *best = hypot (G[be * D] - G[bc * D], G[be * D + 1] - G[bc * D + 1]) / M_SQRT2;
  /* how far apart the exact model puts the two bests: its mean at its own
   * best minus at the sparse model's, in its posterior sd there */
  *gap = (me[be] - me[bc]) / sde[bc];
  *pbd = NAN;
  if (person != SG_HIER_POPULATION)
    {
      double p1, p2;
      status = sg_hier_prob_best_differs (pe, se, G, n, person, 0.05, rng, &p1, NULL);
      if (status == SG_OK)
        status = sg_hier_prob_best_differs (pc, sc, G, n, person, 0.05, rng, &p2, NULL);
      if (status == SG_OK)
        *pbd = fabs (p1 - p2);
    }
  return status;
}

static void
print_header (void)
{
  printf ("| run | answers | model | refresh s (cpu) | question median s | p95 s | cpu/question s | "
          "exact question s | within 0.1 sd | median / p95 z | sd ratio | best dist / diag (max) | "
          "pbd diff (max) | peak MB |\n");
}

static int
run_study (size_t P, size_t N, int exact, uint64_t seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  world s;
  world_init (&s, P, V_IND, rng);
  sg_hier_data hd;
  sg_hier_data_init (&hd, D, P);
  for (size_t k = 0; k < N; k++)
    for (size_t p = 0; p < P; p++)
      one_duel (&s, p, rng, &hd);
  sg_hier_model model;
  model_of (&model, V_IND);
  sg_hier_population pop;
  double t0 = now (), c0 = cpu ();
  int status = sg_hier_population_new (&model, &hd, M_INDUCING, CVI_ITERATIONS, rng, NULL, &pop);
  double t_refresh = now () - t0, c_refresh = cpu () - c0;
  if (status != SG_OK)
    {
      fprintf (stderr, "refresh failed: %d\n", status);
      return 1;
    }
  /* the people's own answers, as their files hold them */
  sg_hier_data *own = malloc (P * sizeof *own);
  for (size_t p = 0; p < P; p++)
    sg_hier_data_person (&hd, p, &own[p]);
  double tq[QUESTIONS], cq = 0;
  sg_hier_propose_options po;
  sg_hier_propose_options_default (&po, D);
  for (size_t k = 0; k < QUESTIONS && status == SG_OK; k++)
    {
      size_t p = k % P;
      sg_svgp_pseudo ps;
      sg_hier_question qn;
      double a = now (), ca = cpu ();
      status = sg_hier_population_pseudo (&pop, &model, &own[p], p, &ps);
      po.population = &ps;
      if (status == SG_OK)
        status = sg_hier_propose_duel (&model, &own[p], p, &po, rng, NULL, &qn);
      tq[k] = now () - a;
      cq += cpu () - ca;
      sg_svgp_pseudo_clear (&ps);
    }
  double med = quantile (tq, QUESTIONS, 0.5), p95 = quantile (tq, QUESTIONS, 0.95);
  double t_exact = NAN;
  agreement ag = { NAN, NAN, NAN, NAN, NAN, NAN, 0 };
  if (exact && status == SG_OK)
    {
      size_t people = P < AGREE_PEOPLE ? P : AGREE_PEOPLE, nz = 0;
      double *zs = malloc (people * GRID * GRID * sizeof *zs);
      double *ratios = malloc (people * GRID * GRID * sizeof *ratios);
      sg_hier_propose_options pe;
      sg_hier_propose_options_default (&pe, D);
      sg_hier_question qn;
      double a = now ();
      status = sg_hier_propose_duel (&model, &hd, 0, &pe, rng, NULL, &qn);
      t_exact = now () - a;
      sg_skewgp_posterior *post = NULL;
      sg_skewgp_samples *samples = NULL;
      if (status == SG_OK)
        status = sg_hier_posterior_new (&model, &hd, &post);
      if (status == SG_OK)
        status = sg_skewgp_sample (post, 1000, NULL, rng, NULL, &samples);
      double best_max = 0, pbd_max = 0, best_sum = 0, pbd_sum = 0, gap_max = 0;
      size_t n_close = 0;
      for (size_t p = 0; p < people && status == SG_OK; p++)
        {
          sg_svgp_pseudo ps;
          sg_skewgp_posterior *pc = NULL;
          sg_skewgp_samples *sc = NULL;
          double best, pbd, gap;
          status = sg_hier_population_pseudo (&pop, &model, &own[p], p, &ps);
          if (status == SG_OK)
            status = sg_hier_posterior_new_summary (&model, &own[p], &ps, &pc);
          if (status == SG_OK)
            status = sg_skewgp_sample (pc, 1000, NULL, rng, NULL, &sc);
          if (status == SG_OK)
            status = compare (post, samples, pc, sc, p, zs, ratios, &nz, &best, &gap, &pbd, rng);
          best_max = fmax (best_max, best);
          gap_max = fmax (gap_max, gap);
          n_close += best <= 0.05;
          pbd_max = fmax (pbd_max, pbd);
          best_sum += best;
          pbd_sum += pbd;
          sg_skewgp_samples_free (sc);
          sg_skewgp_posterior_free (pc);
          sg_svgp_pseudo_clear (&ps);
        }
      if (status == SG_OK)
        {
          size_t within = 0;
          for (size_t i = 0; i < nz; i++)
            within += zs[i] <= 0.1;
          ag.within = (double) within / (double) nz;
          ag.med_z = quantile (zs, nz, 0.5);
          ag.p95_z = quantile (zs, nz, 0.95);
          ag.sd_ratio = quantile (ratios, nz, 0.5);
          ag.best_dist = best_sum / (double) people;
          ag.pbd_diff = pbd_sum / (double) people;
          printf ("<!-- best max %.3f (%zu of %zu people within 0.05; the exact model's mean "
                  "gap between the two bests at most %.3f of its sd), pbd max %.3f -->\n",
                  best_max, n_close, people, gap_max, pbd_max);
        }
      free (zs);
      free (ratios);
      sg_skewgp_samples_free (samples);
      sg_skewgp_posterior_free (post);
    }
  if (status != SG_OK)
    {
      fprintf (stderr, "study failed: %d\n", status);
      return 1;
    }
  printf ("| study %zu x %zu | %zu | sparse variational population, %zu inducing points (%zu CVI "
          "iterations) + own answers exact | "
          "%.1f (%.1f) | %.3f | %.3f | %.3f | %.2f | %.3f | %.3f / %.3f | %.3f | %.3f | %.3f | %.0f |\n",
          P, N, P * N, pop.M, pop.iterations, t_refresh, c_refresh, med, p95, cq / QUESTIONS, t_exact,
          ag.within, ag.med_z, ag.p95_z, ag.sd_ratio, ag.best_dist, ag.pbd_diff, peak_mb ());
  for (size_t p = 0; p < P; p++)
    sg_hier_data_clear (&own[p]);
  free (own);
  sg_hier_population_clear (&pop);
  sg_hier_data_clear (&hd);
  free (s.w);
  free (s.b);
  sg_rng_free (rng);
  return 0;
}

static int
run_session (size_t N, int exact, uint64_t seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  world s;
  world_init (&s, 1, 0, rng);
  sg_hier_data hd, seen, last;
  sg_hier_data_init (&hd, D, 1);
  for (size_t k = 0; k < N; k++)
    one_duel (&s, 0, rng, &hd);
  /* the stored fit saw the first N - 1 answers; the question follows answer N */
  sg_hier_data_init (&seen, D, 1);
  sg_hier_data_init (&last, D, 1);
  for (size_t k = 0; k < N; k++)
    {
      const sg_obs *o = &hd.data.obs[k];
      sg_hier_add_preference (k + 1 < N ? &seen : &last, 0, hd.data.X + o->a * (D + 1),
                              hd.data.X + o->b * (D + 1));
    }
  sg_hier_model model;
  model_of (&model, 0);
  session_fit c = { 0 };
  double t0 = now (), c0 = cpu ();
  int status = session_refresh (&model, &seen, rng, &c);
  double t_refresh = now () - t0, c_refresh = cpu () - c0;
  double tq[QUESTIONS], cq = 0;
  sg_hier_propose_options po;
  sg_hier_propose_options_default (&po, D);
  for (size_t k = 0; k < QUESTIONS && status == SG_OK; k++)
    {
      sg_svgp_pseudo ps;
      sg_hier_question qn;
      double a = now (), ca = cpu ();
      status = sg_svgp_pseudo_from_sites (&c.q, c.lambda, c.eta, model.mean, &ps);
      po.population = &ps;
      if (status == SG_OK)
        status = sg_hier_propose_duel (&model, &last, 0, &po, rng, NULL, &qn);
      tq[k] = now () - a;
      cq += cpu () - ca;
      sg_svgp_pseudo_clear (&ps);
    }
  double med = quantile (tq, QUESTIONS, 0.5), p95 = quantile (tq, QUESTIONS, 0.95);
  double t_exact = NAN;
  agreement ag = { NAN, NAN, NAN, NAN, NAN, NAN, 0 };
  if (exact && status == SG_OK)
    {
      sg_hier_propose_options pe;
      sg_hier_propose_options_default (&pe, D);
      sg_hier_question qn;
      double a = now ();
      status = sg_hier_propose_duel (&model, &hd, 0, &pe, rng, NULL, &qn);
      t_exact = now () - a;
      /* f from the exact posterior of all N against the fit's summary + answer N */
      sg_skewgp_posterior *post = NULL, *pc = NULL;
      sg_skewgp_samples *samples = NULL, *sc = NULL;
      sg_svgp_pseudo ps;
      if (status == SG_OK)
        status = sg_hier_posterior_new (&model, &hd, &post);
      if (status == SG_OK)
        status = sg_skewgp_sample (post, 1000, NULL, rng, NULL, &samples);
      if (status == SG_OK)
        status = sg_svgp_pseudo_from_sites (&c.q, c.lambda, c.eta, model.mean, &ps);
      if (status == SG_OK)
        status = sg_hier_posterior_new_summary (&model, &last, &ps, &pc);
      if (status == SG_OK)
        status = sg_skewgp_sample (pc, 1000, NULL, rng, NULL, &sc);
      double zs[GRID * GRID], ratios[GRID * GRID], best, pbd, gap;
      size_t nz = 0;
      if (status == SG_OK)
        status = compare (post, samples, pc, sc, SG_HIER_POPULATION, zs, ratios, &nz, &best,
                          &gap, &pbd, rng);
      if (status == SG_OK)
        {
          size_t within = 0;
          for (size_t i = 0; i < nz; i++)
            within += zs[i] <= 0.1;
          ag.within = (double) within / (double) nz;
          ag.med_z = quantile (zs, nz, 0.5);
          ag.p95_z = quantile (zs, nz, 0.95);
          ag.sd_ratio = quantile (ratios, nz, 0.5);
          ag.best_dist = best;
        }
      sg_svgp_pseudo_clear (&ps);
      sg_skewgp_samples_free (samples);
      sg_skewgp_samples_free (sc);
      sg_skewgp_posterior_free (post);
      sg_skewgp_posterior_free (pc);
    }
  if (status != SG_OK)
    {
      fprintf (stderr, "session failed: %d\n", status);
      return 1;
    }
  printf ("| session | %zu | sparse variational, %zu inducing points + 1 new answer exact | "
          "%.1f (%.1f) | %.3f | %.3f | %.3f | %.2f | %.3f | %.3f / %.3f | %.3f | %.3f | - | %.0f |\n",
          N, c.q.M, t_refresh, c_refresh, med, p95, cq / QUESTIONS, t_exact, ag.within,
          ag.med_z, ag.p95_z, ag.sd_ratio, ag.best_dist, peak_mb ());
  session_fit_clear (&c);
  sg_hier_data_clear (&hd);
  sg_hier_data_clear (&seen);
  sg_hier_data_clear (&last);
  free (s.w);
  free (s.b);
  sg_rng_free (rng);
  return 0;
}

/* ---- Regret of the loops ------------------------------------------------------ */

/* Hartmann-6 (maximised), N0 random duels, then STEPS questions of the
 * exact loop or of the sparse one (its summary refreshed every REFRESH
 * answers); the regret of the answered setting of largest posterior
 * mean. */
static double
session_loop (int sparse, size_t n0, size_t steps, size_t refresh, uint64_t seed,
              double *cpu_s)
{
  sg_problem *prob;
  sg_problem_new ("hartmann6", 0, &prob);
  size_t d = sg_problem_dim (prob);
  sg_oracle oracle;
  sg_oracle_init (&oracle, prob);
  oracle.preference_sd = 0.05;
  sg_bo_config cfg;
  sg_bo_config_default (&cfg, d, sg_problem_lower (prob), sg_problem_upper (prob));
  cfg.refit_until = cfg.refit_every = 0;
  cfg.n_samples = 300;
  cfg.n_initial = 0;
  sg_bo *bo;
  sg_bo_new (&cfg, &bo);
  gsl_rng *rng = sg_rng_new (seed, 7);
  for (size_t k = 0; k < n0; k++)
    {
      double a[8], b[8];
      int a_wins;
      for (size_t j = 0; j < d; j++)
        {
          a[j] = gsl_rng_uniform (rng);
          b[j] = gsl_rng_uniform (rng);
        }
      sg_oracle_duel (&oracle, rng, a, b, &a_wins);
      sg_bo_answer_duel (bo, a, b, a_wins);
    }
  double c0 = cpu ();
  sg_svgp_rows_options o;
  rows_options (&o);
  int status = SG_OK;
  for (size_t t = 0; t < steps && status == SG_OK; t++)
    {
      size_t n = sg_bo_n_answers (bo);
      if (sparse && (t % refresh) == 0)
        {
          sg_svgp_pseudo ps;
          status = sg_svgp_rows_session_summary (sg_bo_get_hyper (bo), sg_bo_data (bo), n, &o,
                                                 rng, NULL, NULL, &ps);
          if (status == SG_OK)
            status = sg_bo_set_summary (bo, &ps, n);
          sg_svgp_pseudo_clear (&ps);
        }
      sg_bo_query q;
      gsl_rng *r = sg_bo_rng (bo);
      if (status == SG_OK)
        status = sg_bo_propose (bo, r, NULL, &q);
      sg_rng_free (r);
      int a_wins;
      if (status == SG_OK)
        status = sg_oracle_duel (&oracle, rng, q.x, q.x_ref, &a_wins);
      if (status == SG_OK)
        status = sg_bo_answer_duel (bo, q.x, q.x_ref, a_wins);
    }
  double x[8], mean, regret = NAN;
  gsl_rng *r = sg_bo_rng (bo);
  if (status == SG_OK)
    status = sg_bo_propose (bo, r, NULL, &(sg_bo_query) { 0 });
  if (status == SG_OK)
    status = sg_bo_recommend (bo, SG_BO_RECOMMEND_EVALUATED, r, NULL, x, &mean);
  if (status == SG_OK)
    regret = sg_problem_optimum (prob) - sg_problem_value (prob, x);
  else
    fprintf (stderr, "session loop failed: %d\n", status);
  *cpu_s = cpu () - c0;
  sg_rng_free (r);
  sg_rng_free (rng);
  sg_bo_free (bo);
  sg_problem_free (prob);
  return regret;
}

/* The exact model's recommendation of g on the grid, and its regret. */
static double
g_regret (const world *s, const sg_hier_model *model, const sg_hier_data *hd, gsl_rng *rng)
{
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  double mean[GRID * GRID], sd[GRID * GRID], G[GRID * GRID * D];
  grid_points (G);
  int status = sg_hier_posterior_new (model, hd, &post);
  if (status == SG_OK)
    status = sg_skewgp_sample (post, 500, NULL, rng, NULL, &samples);
  if (status == SG_OK)
    status = grid_summary (post, samples, SG_HIER_POPULATION, mean, sd);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  if (status != SG_OK)
    return NAN;
  world g = *s;
  g.v_ind = 0;   /* g alone */
  double best = -INFINITY;
  for (size_t i = 0; i < GRID * GRID; i++)
    best = fmax (best, f_of (&g, 0, G + i * D));
  return best - f_of (&g, 0, G + argmax (mean, GRID * GRID) * D);
}

/* P people, N0 random duels each, then ROUNDS rounds of one question per
 * person from the exact model or from the cache (refreshed every round);
 * the regret on g of the exact model's recommendation. */
static double
study_loop (int cached, size_t P, size_t n0, size_t rounds, uint64_t seed, double *cpu_s)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  world s;
  world_init (&s, P, V_IND, rng);
  sg_hier_data hd;
  sg_hier_data_init (&hd, D, P);
  for (size_t k = 0; k < n0; k++)
    for (size_t p = 0; p < P; p++)
      one_duel (&s, p, rng, &hd);
  sg_hier_model model;
  model_of (&model, V_IND);
  sg_hier_propose_options po;
  sg_hier_propose_options_default (&po, D);
  double c0 = cpu ();
  int status = SG_OK;
  for (size_t t = 0; t < rounds && status == SG_OK; t++)
    {
      sg_hier_population pop = { 0 };
      if (cached)
        status = sg_hier_population_new (&model, &hd, M_INDUCING, CVI_ITERATIONS, rng, NULL, &pop);
      for (size_t p = 0; p < P && status == SG_OK; p++)
        {
          sg_hier_question q;
          gsl_rng *r = sg_rng_new (seed, 1000 + t * P + p);
          if (cached)
            {
              sg_hier_data own;
              sg_svgp_pseudo ps;
              status = sg_hier_data_person (&hd, p, &own);
              if (status == SG_OK)
                status = sg_hier_population_pseudo (&pop, &model, &own, p, &ps);
              po.population = &ps;
              if (status == SG_OK)
                status = sg_hier_propose_duel (&model, &own, p, &po, r, NULL, &q);
              po.population = NULL;
              sg_svgp_pseudo_clear (&ps);
              sg_hier_data_clear (&own);
            }
          else
            status = sg_hier_propose_duel (&model, &hd, p, &po, r, NULL, &q);
          sg_rng_free (r);
          if (status != SG_OK)
            break;
          double fa = f_of (&s, p, q.x), fb = f_of (&s, p, q.x_ref);
          int a_wins = gsl_rng_uniform (rng) < sg_norm_cdf ((fa - fb) / (M_SQRT2 * SIGMA));
          if (sg_hier_add_preference (&hd, p, a_wins ? q.x : q.x_ref, a_wins ? q.x_ref : q.x)
              != SG_OK)
            one_duel (&s, p, rng, &hd);   /* x == x_r: a random duel instead */
        }
      sg_hier_population_clear (&pop);
    }
  *cpu_s = cpu () - c0;
  double regret = status == SG_OK ? g_regret (&s, &model, &hd, rng) : NAN;
  if (status != SG_OK)
    fprintf (stderr, "study loop failed: %d\n", status);
  sg_hier_data_clear (&hd);
  free (s.w);
  free (s.b);
  sg_rng_free (rng);
  return regret;
}

static int
run_regret (const char *what, uint64_t seed)
{
  double ce, cs;
  if (strcmp (what, "session") == 0)
    {
      double re = session_loop (0, 200, 40, 10, seed, &ce);
      double rs = session_loop (1, 200, 40, 10, seed, &cs);
      printf ("| Hartmann-6, 200 random duels + 40 questions | %llu | %.4f | %.4f | %.0f | %.0f |\n",
              (unsigned long long) seed, re, rs, ce, cs);
    }
  else
    {
      double re = study_loop (0, 10, 5, 8, seed, &ce);
      double rs = study_loop (1, 10, 5, 8, seed, &cs);
      printf ("| bench-hier world, 10 people x (5 random + 8 questions) | %llu | %.4f | %.4f | "
              "%.0f | %.0f |\n", (unsigned long long) seed, re, rs, ce, cs);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  int exact = 0;
  for (int i = 2; i < argc; i++)
    {
      if (strcmp (argv[i], "--exact") == 0)
        exact = 1;
      if (strcmp (argv[i], "--inducing") == 0 && i + 1 < argc)
        session_inducing = (size_t) atol (argv[i + 1]);
      if (strcmp (argv[i], "--adam") == 0 && i + 1 < argc)
        session_adam = (size_t) atol (argv[i + 1]);
      if (strcmp (argv[i], "--refine") == 0 && i + 1 < argc)
        session_refine = (size_t) atol (argv[i + 1]);
    }
  if (argc > 1 && strcmp (argv[1], "--header") == 0)
    {
      printf ("<!-- OpenBLAS kernel %s -->\n", openblas_get_corename ());
      print_header ();
      return 0;
    }
  if (argc >= 4 && strcmp (argv[1], "study") == 0)
    return run_study ((size_t) atol (argv[2]), (size_t) atol (argv[3]), exact, 2026);
  if (argc >= 3 && strcmp (argv[1], "session") == 0)
    return run_session ((size_t) atol (argv[2]), exact, 2026);
  if (argc >= 4 && strcmp (argv[1], "regret") == 0)
    return run_regret (argv[2], (uint64_t) atol (argv[3]));
  fprintf (stderr, "usage: bench-scale --header | study P N [--exact] | session N [--exact]"
           " | regret session|study SEED\n");
  return 2;
}
