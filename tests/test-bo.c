/* test-bo.c — the BO state machine (sg-bo): answers, undo, the initial
 * design and schedules, determinism, robustness to odd answer sequences,
 * cancellation, refits, and short seeded runs against random search. */
#include "sg-bo.h"
#include "sg-normal.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Small and fast settings for tests that only exercise the machinery. */
static void
small_config (sg_bo_config *c, size_t dim, sg_bo_mode mode, sg_bo_surrogate s)
{
  double lo[8] = { -1, -1, -1, -1, -1, -1, -1, -1 }, up[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
  g_assert_cmpuint (dim, <=, 8);
  g_assert_cmpint (sg_bo_config_default (c, dim, lo, up), ==, SG_OK);
  c->mode = mode;
  c->surrogate = s;
  c->n_initial = 2;
  c->n_samples = 64;
  c->sampling.tmvn.burn_in = 50;
  c->sampling.tmvn.thin = 2;
  c->search.n_candidates = 32;
  c->search.local_maxeval = 10;
  c->search.n_starts = 1;
  c->refit.max_evals = 20;
  c->refit_until = 0;
  c->refit_every = 0;
  if (mode == SG_BO_SAFE)
    {
      c->has_safe_start = 1;
      memset (c->safe_start, 0, sizeof c->safe_start);
    }
}

static void
test_config (void)
{
  sg_bo_config c = { 0 };
  double lo[] = { 0, 0 }, up[] = { 1, 2 }, bad[] = { 1, 0 };
  g_assert_cmpint (sg_bo_config_default (&c, 2, lo, bad), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_config_default (&c, 0, lo, up), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_config_default (&c, 2, lo, up), ==, SG_OK);
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  g_assert_cmpfloat (c.prior.kernel.lengthscales[1], ==, 0.4);
  g_assert_cmpfloat (c.ucb_level, ==, 0.95);
  g_assert_cmpfloat (c.eiig_k, ==, 0.1);
  g_assert_cmpint (c.safe_rule, ==, SG_BO_SAFE_SAFEOPT);
  g_assert_cmpfloat (c.safe_probability, ==, 0.95);
  g_assert_cmpfloat (c.safe_penalty, ==, 1000);
  sg_bo_config b = c;
  b.ucb_level = 1;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b = c;
  b.has_safe_start = 1;
  b.safe_start[0] = 3;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  /* a kernel of 3 coordinates in a 2-parameter problem */
  b = c;
  sg_kernel wide = { 0 };
  g_assert_cmpint (sg_kernel_init (&wide, SG_KERNEL_RBF, 3, 1.0, 0.4), ==, SG_OK);
  b.prior.kernel = wide;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  sg_kernel_clear (&wide);
  /* a SkewGP latent part is for the exact surrogate only */
  double U[2] = { 0.5, 1 }, L[1] = { 1 }, g[1] = { 0.3 };
  b = c;
  b.prior.s = 1;
  b.prior.pseudo_points = U;
  b.prior.phases = L;
  b.prior.gamma = g;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_OK);
  b.surrogate = SG_BO_SURROGATE_EP;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&b, &bo), ==, SG_EINVAL);
  g_assert_null (bo);
  /* names round-trip */
  for (int m = 0; m < 3; m++)
    {
      sg_bo_mode mm;
      g_assert_cmpint (sg_bo_mode_parse (sg_bo_mode_name ((sg_bo_mode) m), &mm), ==, SG_OK);
      g_assert_cmpint (mm, ==, m);
    }
  sg_bo_surrogate ss;
  g_assert_cmpint (sg_bo_surrogate_parse ("laplace", &ss), ==, SG_OK);
  g_assert_cmpint (ss, ==, SG_BO_SURROGATE_LAPLACE);
  sg_bo_acquisition aa;
  g_assert_cmpint (sg_bo_acquisition_parse ("eiig", &aa), ==, SG_OK);
  g_assert_cmpint (aa, ==, SG_BO_ACQ_EIIG);
  g_assert_cmpint (sg_bo_acquisition_parse ("EIIG", &aa), ==, SG_EINVAL);
  sg_bo_config_clear (&c);
}

static void
test_answers_preference (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 2, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double a[] = { 0.1, 0.2 }, b[] = { -0.5, 0.3 }, d[] = { 0.9, -0.9 }, out[] = { 2, 0 };
  double best[2];
  g_assert_false (sg_bo_best (bo, best));
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_EINVAL);

  g_assert_cmpint (sg_bo_answer_duel (bo, a, b, 0), ==, SG_OK);
  g_assert_true (sg_bo_best (bo, best));
  g_assert_cmpfloat (best[0], ==, b[0]);  /* B won: B is x_r */
  g_assert_cmpint (sg_bo_answer_duel (bo, d, b, 1), ==, SG_OK);
  sg_bo_best (bo, best);
  g_assert_cmpfloat (best[0], ==, d[0]);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, 2);
  g_assert_cmpuint (sg_bo_data (bo)->n_obs, ==, 2);
  g_assert_cmpuint (sg_bo_data (bo)->n_inputs, ==, 3);

  /* rejected answers change nothing */
  g_assert_cmpint (sg_bo_answer_duel (bo, a, a, 1), ==, SG_EINVAL);  /* self-duel */
  g_assert_cmpint (sg_bo_answer_duel (bo, a, out, 1), ==, SG_EINVAL);  /* outside */
  g_assert_cmpint (sg_bo_answer_value (bo, a, 1.0), ==, SG_EINVAL);  /* no values */
  g_assert_cmpint (sg_bo_answer_invalid (bo, a), ==, SG_EINVAL);
  double nan_x[] = { NAN, 0 };
  g_assert_cmpint (sg_bo_answer_duel (bo, nan_x, a, 1), ==, SG_EINVAL);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, 2);
  g_assert_cmpuint (sg_bo_data (bo)->n_obs, ==, 2);

  /* undo restores x_r and drops the unreferenced input */
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  sg_bo_best (bo, best);
  g_assert_cmpfloat (best[0], ==, b[0]);
  g_assert_cmpuint (sg_bo_data (bo)->n_inputs, ==, 2);
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  g_assert_false (sg_bo_best (bo, best));
  g_assert_cmpuint (sg_bo_data (bo)->n_inputs, ==, 0);
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_EINVAL);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

static void
test_answers_mixed_safe (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_MIXED, SG_BO_SURROGATE_SKEWGP);
  sg_bo *bo = NULL;
  sg_bo_new (&c, &bo);
  double a = 0.1, b = -0.4, d = 0.7, best;
  g_assert_cmpint (sg_bo_answer_duel (bo, &a, &b, 1), ==, SG_OK);   /* x_r = a */
  /* a value elsewhere cannot be compared with the unmeasured duel winner */
  g_assert_cmpint (sg_bo_answer_value (bo, &d, 0.5), ==, SG_OK);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, a);
  g_assert_cmpint (sg_bo_answer_value (bo, &a, 0.4), ==, SG_OK);    /* x_r measured */
  g_assert_cmpint (sg_bo_answer_value (bo, &d, 0.5), ==, SG_OK);    /* higher: x_r = d */
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, d);
  g_assert_cmpint (sg_bo_answer_value (bo, &b, 0.2), ==, SG_OK);    /* lower: unchanged */
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, d);
  g_assert_cmpint (sg_bo_answer_value (bo, &b, INFINITY), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_duel (bo, &b, &d, 1), ==, SG_OK);   /* duel: x_r = b */
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, b);
  sg_bo_undo (bo);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, d);
  g_assert_cmpuint (sg_bo_data (bo)->n_obs, ==, 5);
  sg_bo_undo (bo);
  sg_bo_undo (bo);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, a);
  sg_bo_free (bo);

  sg_bo_config_clear (&c);
  small_config (&c, 1, SG_BO_SAFE, SG_BO_SURROGATE_SKEWGP);
  sg_bo_new (&c, &bo);
  g_assert_cmpint (sg_bo_answer_duel (bo, &a, &b, 1), ==, SG_EINVAL); /* no duels */
  g_assert_cmpint (sg_bo_answer_invalid (bo, &d), ==, SG_OK);
  g_assert_false (sg_bo_best (bo, &best));  /* invalid: no best */
  g_assert_cmpint (sg_bo_answer_value (bo, &a, 0.3), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, &b, 0.9), ==, SG_OK);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, b);
  const sg_data *data = sg_bo_data (bo);
  g_assert_cmpint (data->obs[0].kind, ==, SG_OBS_INVALID);
  g_assert_cmpint (data->obs[1].kind, ==, SG_OBS_VALID);
  g_assert_cmpfloat (data->obs[1].threshold, ==, c.threshold);
  sg_bo_undo (bo);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, a);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* Mixed mode: "it failed" is the censored row Phi((h - f(x)) / numeric_sd)
 * of 001 eq. 40 with h the failure level. After a value question's
 * setting fails, the posterior mean there drops (below h, where the
 * measured values around it were above it) and the next value question
 * goes elsewhere; a failed x_r gives its place to the best measured
 * setting; undo restores it. */
static void
test_mixed_failed (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_MIXED, SG_BO_SURROGATE_SKEWGP);
  c.mixed_every = 1;   /* every question after the initial design is a value */
  c.threshold = -1.0;  /* the failure level */
  c.n_samples = 400;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double a = 0.5, b = -0.5, d = 0.0, e = -0.8;
  g_assert_cmpint (sg_bo_answer_duel (bo, &a, &b, 1), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_duel (bo, &d, &e, 1), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, &a, 1.0), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, &b, 0.2), ==, SG_OK);

  sg_bo_query q1, q2;
  gsl_rng *rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q1), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpint (q1.kind, ==, SG_BO_QUERY_VALUE);
  g_assert_false (q1.random);
  sg_point_summary before, after;
  g_assert_cmpint (sg_bo_summarize (bo, q1.x, 1, SG_SUMMARY_ALL, 0.95, NULL, &before), ==, SG_OK);

  g_assert_cmpint (sg_bo_answer_invalid (bo, q1.x), ==, SG_OK);
  const sg_data *data = sg_bo_data (bo);
  g_assert_cmpint (data->obs[data->n_obs - 1].kind, ==, SG_OBS_INVALID);
  g_assert_cmpfloat (data->obs[data->n_obs - 1].threshold, ==, c.threshold);
  rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q2), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpint (sg_bo_summarize (bo, q1.x, 1, SG_SUMMARY_ALL, 0.95, NULL, &after), ==, SG_OK);
  g_test_message ("failed at %.3f: mean %.3f -> %.3f (sd %.3f -> %.3f); next value at %.3f",
                  q1.x[0], before.mean, after.mean, before.sd, after.sd, q2.x[0]);
  /* the drop is several posterior sds, far beyond the Monte Carlo error
   * of 400 samples (sd / 20 for the mean) */
  g_assert_cmpfloat (after.mean, <, before.mean - 2 * before.sd);
  g_assert_cmpfloat (after.mean, <, c.threshold + after.sd);
  g_assert_cmpint (q2.kind, ==, SG_BO_QUERY_VALUE);
  g_assert_cmpfloat (fabs (q2.x[0] - q1.x[0]), >, 0.2);

  /* a failed x_r hands its place to the best measured setting */
  double best;
  g_assert_cmpint (sg_bo_answer_duel (bo, &e, &a, 1), ==, SG_OK);  /* x_r = e */
  g_assert_cmpint (sg_bo_answer_invalid (bo, &e), ==, SG_OK);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, a);  /* a measured 1.0, the highest */
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  sg_bo_best (bo, &best);
  g_assert_cmpfloat (best, ==, e);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* Answers the query Q with an exact oracle of P (threshold h in safe mode). */
static int
answer (sg_bo *bo, const sg_problem *p, const sg_bo_query *q, double h, int *violation)
{
  *violation = 0;
  if (q->kind == SG_BO_QUERY_DUEL)
    return sg_bo_answer_duel (bo, q->x, q->x_ref,
                              sg_problem_value (p, q->x) >= sg_problem_value (p, q->x_ref));
  double v = sg_problem_value (p, q->x);
  if (sg_bo_get_config (bo)->mode == SG_BO_SAFE && v < h)
    {
      *violation = 1;
      return sg_bo_answer_invalid (bo, q->x);
    }
  return sg_bo_answer_value (bo, q->x, v);
}

static void
test_initial_design_and_schedule (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_MIXED, SG_BO_SURROGATE_RANDOM);
  c.n_initial = 3;
  c.mixed_every = 4;
  sg_bo *bo = NULL;
  sg_bo_new (&c, &bo);
  sg_problem *p = NULL;
  sg_problem_new ("cos1d", 0, &p);
  /* answers 0-2: initial duels (the first between two random points),
   * 3-5: initial values, then BO iterations k = 1, 2, ...: a value at
   * k = 4, 8 (answers 9 and 13) */
  for (size_t n = 0; n < 16; n++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      sg_bo_query_kind expect = (n >= 3 && n < 6) || n == 9 || n == 13 ? SG_BO_QUERY_VALUE
                                                                       : SG_BO_QUERY_DUEL;
      g_assert_cmpint (q.kind, ==, expect);
      g_assert_cmpint (q.initial, ==, n < 6);
      g_assert_true (q.random);
      g_assert_true (q.x[0] >= -1 && q.x[0] <= 1);
      double best;
      if (n == 0)
        g_assert_false (sg_bo_best (bo, &best));
      else if (q.kind == SG_BO_QUERY_DUEL)
        {
          sg_bo_best (bo, &best);
          g_assert_cmpfloat (q.x_ref[0], ==, best);
        }
      int v;
      g_assert_cmpint (answer (bo, p, &q, 0, &v), ==, SG_OK);
    }
  sg_bo_free (bo);

  /* safe mode: the safe start first */
  sg_bo_config_clear (&c);
  small_config (&c, 1, SG_BO_SAFE, SG_BO_SURROGATE_SKEWGP);
  c.safe_start[0] = 0.25;
  sg_bo_new (&c, &bo);
  gsl_rng *rng = sg_bo_rng (bo);
  sg_bo_query q;
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  g_assert_cmpint (q.kind, ==, SG_BO_QUERY_VALUE);
  g_assert_cmpfloat (q.x[0], ==, 0.25);
  g_assert_true (q.initial);
  sg_rng_free (rng);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}

/* With a measurement resolution, safe mode never asks a setting again that
 * it already measured (within the resolution): four consecutive questions
 * at one setting were seen without it. A negative resolution, or one as
 * wide as the box, is refused. */
static void
test_resolution_no_repeats (void)
{
  sg_problem *p = NULL;
  sg_bo_config c = { 0 };
  sg_bo *bo = NULL;
  double asked[16];
  guint n = 0;

  g_assert_cmpint (sg_problem_new ("cos1d", 0, &p), ==, SG_OK);
  small_config (&c, 1, SG_BO_SAFE, SG_BO_SURROGATE_SKEWGP);
  c.threshold = -5;     /* every setting safe: the acquisition alone decides */
  c.resolution[0] = 0.05;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  for (guint it = 0; it < G_N_ELEMENTS (asked); it++)
    {
      sg_bo_query q;
      gsl_rng *rng = sg_bo_rng (bo);
      int v;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      if (q.safe_exhausted)
        break;  /* nothing new is safe enough: x is x_r, not a question */
      for (guint i = 0; i < n; i++)
        g_assert_cmpfloat (fabs (q.x[0] - asked[i]), >, c.resolution[0]);
      asked[n++] = q.x[0];
      g_assert_cmpint (answer (bo, p, &q, c.threshold, &v), ==, SG_OK);
    }
  g_test_message ("%u settings asked before nothing new was safe enough", n);
  g_assert_cmpuint (n, >=, 8);
  sg_bo_free (bo);
  c.resolution[0] = -0.1;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.resolution[0] = 2;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}

/* A random initial duel never asks x_r against itself, even when the
 * proposal's RNG stream draws x_r exactly: after an answer is taken back
 * the stream of an earlier proposal replays, and its random point may be
 * the setting that has since become x_r. */
static void
test_random_duel_not_against_ref (void)
{
  sg_bo_config c = { 0 };
  sg_bo *bo = NULL;
  sg_bo_query q;
  double replayed[1], other[1] = { -0.5 };
  gsl_rng *rng;

  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  c.n_initial = 3;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  /* the point the stream of a one-answer loop draws first */
  g_assert_cmpint (sg_bo_answer_duel (bo, other, (double[]) { 0.5 }, 1), ==, SG_OK);
  rng = sg_bo_rng (bo);
  replayed[0] = c.lower[0] + gsl_rng_uniform (rng) * (c.upper[0] - c.lower[0]);
  sg_rng_free (rng);
  sg_bo_free (bo);

  /* one answer that makes that point x_r */
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_duel (bo, replayed, other, 1), ==, SG_OK);
  rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_true (q.random);
  g_assert_cmpfloat (q.x_ref[0], ==, replayed[0]);
  g_assert_cmpfloat (fabs (q.x[0] - q.x_ref[0]), >, 1e-6);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* Rebuilding from the same answers and proposing with sg_bo_rng gives the
 * same query, bit for bit, for every surrogate. */
static void
test_deterministic (void)
{
  sg_problem *p = NULL;
  sg_problem_new ("six-hump-camel", 0, &p);
  for (int s = 0; s < 3; s++)
    {
      sg_bo_config c = { 0 };
      small_config (&c, 2, SG_BO_PREFERENCE, (sg_bo_surrogate) s);
      double lo[] = { -2, -1 }, up[] = { 2, 1 };
      memcpy (c.lower, lo, sizeof lo);
      memcpy (c.upper, up, sizeof up);
      c.seed = 17;
      sg_bo *a = NULL, *b = NULL;
      sg_bo_new (&c, &a);
      sg_bo_new (&c, &b);
      for (int it = 0; it < 6; it++)
        {
          sg_bo_query qa, qb;
          gsl_rng *ra = sg_bo_rng (a), *rb = sg_bo_rng (b);
          g_assert_cmpint (sg_bo_propose (a, ra, NULL, &qa), ==, SG_OK);
          g_assert_cmpint (sg_bo_propose (b, rb, NULL, &qb), ==, SG_OK);
          sg_rng_free (ra);
          sg_rng_free (rb);
          g_assert_true (memcmp (qa.x, qb.x, sizeof qa.x) == 0);
          g_assert_true (memcmp (qa.x_ref, qb.x_ref, sizeof qa.x_ref) == 0);
          int v;
          answer (a, p, &qa, 0, &v);
          answer (b, p, &qb, 0, &v);
        }
      sg_bo_free (a);
      sg_bo_free (b);
      sg_bo_config_clear (&c);
    }
  sg_problem_free (p);
}

/* ---- Robustness: random operation sequences ---------------------------------- */

typedef struct {
  int kind;   /* 0 duel, 1 value, 2 invalid */
  double xa[2], xb[2];
  int a_won;
  double y;
} logged;

static void
replay (const sg_bo_config *c, const logged *log, size_t n, sg_bo **out)
{
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (c, &bo), ==, SG_OK);
  for (size_t i = 0; i < n; i++)
    {
      int st = log[i].kind == 0   ? sg_bo_answer_duel (bo, log[i].xa, log[i].xb, log[i].a_won)
               : log[i].kind == 1 ? sg_bo_answer_value (bo, log[i].xa, log[i].y)
                                  : sg_bo_answer_invalid (bo, log[i].xa);
      g_assert_cmpint (st, ==, SG_OK);
    }
  *out = bo;
}

static void
assert_same_state (const sg_bo *a, const sg_bo *b)
{
  const sg_data *da = sg_bo_data (a), *db = sg_bo_data (b);
  g_assert_cmpuint (sg_bo_n_answers (a), ==, sg_bo_n_answers (b));
  g_assert_cmpuint (da->n_obs, ==, sg_bo_n_answers (a));
  g_assert_cmpuint (da->n_obs, ==, db->n_obs);
  g_assert_cmpuint (da->n_inputs, ==, db->n_inputs);
  /* memcmp on an empty table would pass NULL (undefined behaviour) */
  if (da->n_inputs > 0)
    g_assert_true (memcmp (da->X, db->X, da->n_inputs * da->dim * sizeof *da->X) == 0);
  for (size_t i = 0; i < da->n_obs; i++)
    {
      g_assert_cmpint (da->obs[i].kind, ==, db->obs[i].kind);
      g_assert_cmpuint (da->obs[i].a, ==, db->obs[i].a);
      g_assert_cmpuint (da->obs[i].b, ==, db->obs[i].b);
      g_assert_cmpuint (da->obs[i].a, <, da->n_inputs);
    }
  double xa[2], xb[2];
  int ha = sg_bo_best (a, xa), hb = sg_bo_best (b, xb);
  g_assert_cmpint (ha, ==, hb);
  if (ha)
    g_assert_true (memcmp (xa, xb, sg_bo_get_config (a)->dim * sizeof *xa) == 0);
}

/* Random sequences of proposals, answers (honest, contradictory, repeated
 * duels of the same pair, repeated values at one point, invalid answers)
 * and undos, for every mode and model surrogate. After every step the
 * data must equal a fresh replay of the surviving answers, and every
 * proposal must succeed with a query inside the box. */
static void
test_fuzz (void)
{
  gsl_rng *r = sg_rng_new (2024, 0);
  for (int mode = 0; mode < 3; mode++)
    for (int s = 0; s < 3; s++)
      {
        sg_bo_config c = { 0 };
        small_config (&c, 2, (sg_bo_mode) mode, (sg_bo_surrogate) s);
        c.seed = (uint64_t) (10 * mode + s);
        sg_bo *bo = NULL;
        sg_bo_new (&c, &bo);
        logged log[200];
        size_t n = 0;
        sg_bo_query last;
        int have_last = 0;
        for (int step = 0; step < 40; step++)
          {
            double u = gsl_rng_uniform (r);
            if (u < 0.15 && n > 0)
              {
                g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
                n--;
              }
            else if (u < 0.35 || !have_last)
              {
                gsl_rng *rng = sg_bo_rng (bo);
                int st = sg_bo_propose (bo, rng, NULL, &last);
                sg_rng_free (rng);
                if (st != SG_OK)
                  g_test_message ("mode %d surrogate %d step %d: %s", mode, s, step,
                                  sg_strerror (st));
                g_assert_cmpint (st, ==, SG_OK);
                for (size_t j = 0; j < 2; j++)
                  g_assert_true (last.x[j] >= -1 && last.x[j] <= 1);
                /* never a duel of x_r against itself */
                if (last.kind == SG_BO_QUERY_DUEL)
                  g_assert_true (memcmp (last.x, last.x_ref, sizeof last.x) != 0);
                have_last = 1;
              }
            else
              {
                logged e = { 0 };
                memcpy (e.xa, last.x, sizeof e.xa);
                if (last.kind == SG_BO_QUERY_DUEL && mode != SG_BO_SAFE)
                  {
                    e.kind = 0;
                    memcpy (e.xb, last.x_ref, sizeof e.xb);
                    e.a_won = gsl_rng_uniform (r) < 0.5;  /* any, even contradictory */
                    if (sg_bo_answer_duel (bo, e.xa, e.xb, e.a_won) != SG_OK)
                      continue; /* e.g. the query went stale after an undo */
                  }
                else if (mode == SG_BO_SAFE && gsl_rng_uniform (r) < 0.4)
                  {
                    e.kind = 2;
                    g_assert_cmpint (sg_bo_answer_invalid (bo, e.xa), ==, SG_OK);
                  }
                else if (mode != SG_BO_PREFERENCE)
                  {
                    e.kind = 1;
                    e.y = sg_rng_gaussian (r);
                    g_assert_cmpint (sg_bo_answer_value (bo, e.xa, e.y), ==, SG_OK);
                  }
                else
                  continue;
                log[n++] = e;
              }
            sg_bo *re = NULL;
            replay (&c, log, n, &re);
            assert_same_state (bo, re);
            sg_bo_free (re);
          }
        sg_bo_free (bo);
        sg_bo_config_clear (&c);
      }
  sg_rng_free (r);
}

static int
cancel_now (double fraction, void *data)
{
  (void) fraction;
  int *calls = data;
  (*calls)++;
  return 1;
}

static void
test_cancel_and_model (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  c.n_initial = 1;
  sg_bo *bo = NULL;
  sg_bo_new (&c, &bo);
  double a = 0.2, b = -0.6;
  sg_bo_answer_duel (bo, &a, &b, 1);
  sg_bo_answer_duel (bo, &b, &a, 0);
  double grid[5] = { -1, -0.5, 0, 0.5, 1 };
  sg_point_summary sum[5];
  g_assert_cmpint (sg_bo_summarize (bo, grid, 5, SG_SUMMARY_ALL, 0.9, NULL, sum), ==, SG_EINVAL); /* no model */
  g_assert_cmpuint (sg_bo_model_n_answers (bo), ==, SIZE_MAX);

  int calls = 0;
  sg_progress cancel = { cancel_now, &calls };
  gsl_rng *rng = sg_bo_rng (bo);
  sg_bo_query q;
  g_assert_cmpint (sg_bo_propose (bo, rng, &cancel, &q), ==, SG_ECANCELLED);
  g_assert_cmpint (calls, >=, 1);
  sg_rng_free (rng);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, 2);

  rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_false (q.random);
  g_assert_true (isfinite (q.acquisition));
  g_assert_true (q.prob_better >= 0 && q.prob_better <= 1);
  g_assert_cmpfloat (q.x_ref[0], ==, a);
  g_assert_cmpuint (sg_bo_model_n_answers (bo), ==, 2);
  g_assert_nonnull (sg_bo_skewgp_posterior (bo));
  g_assert_nonnull (sg_bo_skewgp_samples (bo));
  g_assert_null (sg_bo_gauss_post (bo));
  g_assert_cmpint (sg_bo_summarize (bo, grid, 5, SG_SUMMARY_ALL, 0.9, NULL, sum), ==, SG_OK);
  /* a beat b twice: at x_r = a the probability of being better than x_r
   * is 0, and the posterior mean is higher at a than at b */
  for (int i = 0; i < 5; i++)
    g_assert_true (sum[i].hpd_lower <= sum[i].hpd_upper);
  double ab[2] = { a, b };
  sg_point_summary s2[2];
  sg_bo_summarize (bo, ab, 2, SG_SUMMARY_ALL, 0.9, NULL, s2);
  g_assert_cmpfloat (s2[0].mean, >, s2[1].mean);

  /* moments only (the plots' map path): mean and sd are the same sample
   * statistics (round-off: 1e-12 relative); with m = 2 truncated rows the
   * skewness expansion keeps every direction whose variance matters or
   * falls back to the exact sample moment, so it differs from the sample
   * statistic by round-off too, well inside 1e-9; fields not asked for
   * are NaN */
  sg_point_summary mom[5];
  g_assert_cmpint (sg_bo_summarize (bo, grid, 5, SG_SUMMARY_MOMENTS, 0.9, NULL, mom), ==, SG_OK);
  for (int i = 0; i < 5; i++)
    {
      g_assert_cmpfloat (fabs (mom[i].mean - sum[i].mean), <=, 1e-12 * (1 + fabs (sum[i].mean)));
      g_assert_cmpfloat (fabs (mom[i].sd - sum[i].sd), <=, 1e-12 * sum[i].sd);
      g_assert_cmpfloat (fabs (mom[i].skewness - sum[i].skewness), <=, 1e-9);
      g_assert_true (isnan (mom[i].median) && isnan (mom[i].hpd_lower));
    }
  g_assert_cmpint (sg_bo_summarize (bo, grid, 5, 0, 0.9, NULL, mom), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_summarize (bo, grid, 5, 1u << 7, 0.9, NULL, mom), ==, SG_EINVAL);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

static void
test_refit (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_LAPLACE);
  c.refit_until = 3;
  c.refit_every = 5;
  sg_bo *bo = NULL;
  sg_bo_new (&c, &bo);
  sg_problem *p = NULL;
  sg_problem_new ("cos1d", 0, &p);
  g_assert_false (sg_bo_refit_due (bo)); /* no answers */
  int due[11] = { 0 };
  for (int n = 1; n <= 10; n++)
    {
      double xa = -1 + 0.19 * n, xb = 0.95 - 0.17 * n;
      int v;
      sg_bo_query q = { .kind = SG_BO_QUERY_DUEL };
      q.x[0] = xa;
      q.x_ref[0] = xb;
      g_assert_cmpint (answer (bo, p, &q, 0, &v), ==, SG_OK);
      due[n] = sg_bo_refit_due (bo);
      if (due[n])
        {
          sg_fit_result res;
          g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, &res), ==, SG_OK);
          g_assert_false (sg_bo_refit_due (bo));
          if (n >= 2)
            g_assert_cmpuint (res.n_evals, >, 0);
        }
    }
  int expect[11] = { 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1 };
  for (int n = 1; n <= 10; n++)
    g_assert_cmpint (due[n], ==, expect[n]);
  const sg_hyper *h = sg_bo_get_hyper (bo);
  g_assert_true (h->kernel.lengthscales[0] != c.prior.kernel.lengthscales[0]
                 || h->kernel.variance != c.prior.kernel.variance);
  g_assert_cmpfloat (h->kernel.variance, <=, 60.0 * (1 + 1e-12));
  /* set_hyper round trip, and rejection of a bad kernel */
  sg_hyper copy = *h;
  g_assert_cmpint (sg_kernel_copy (&copy.kernel, &h->kernel), ==, SG_OK);
  copy.kernel.lengthscales[0] = 0.123;
  g_assert_cmpint (sg_bo_set_hyper (bo, &copy), ==, SG_OK);
  g_assert_cmpfloat (sg_bo_get_hyper (bo)->kernel.lengthscales[0], ==, 0.123);
  copy.kernel.variance = -1;
  g_assert_cmpint (sg_bo_set_hyper (bo, &copy), ==, SG_EINVAL);
  sg_kernel_clear (&copy.kernel);
  g_assert_cmpfloat (sg_bo_get_hyper (bo)->kernel.variance, >, 0);
  /* a cancelled refit changes nothing */
  int calls = 0;
  sg_progress cancel = { cancel_now, &calls };
  double before = sg_bo_get_hyper (bo)->kernel.lengthscales[0];
  g_assert_cmpint (sg_bo_refit (bo, NULL, &cancel, NULL), ==, SG_ECANCELLED);
  g_assert_cmpint (calls, >=, 1);
  g_assert_cmpfloat (sg_bo_get_hyper (bo)->kernel.lengthscales[0], ==, before);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}

/* The refit's variance cap: consistent duels (an exact judge) are
 * separable, so the exact evidence grows with the variance and the fit
 * ends at the cap, whichever it is; a bad cap is refused. */
static void
test_refit_variance_cap (void)
{
  double fitted[2];
  const double caps[2] = { 5.0, 60.0 };
  sg_problem *p = NULL;
  sg_problem_new ("cos1d", 0, &p);
  for (int k = 0; k < 2; k++)
    {
      sg_bo_config c;
      small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
      c.refit_variance_max = caps[k];
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      sg_bo_config_clear (&c);
      for (int n = 1; n <= 12; n++)
        {
          sg_bo_query q = { .kind = SG_BO_QUERY_DUEL };
          int v;
          q.x[0] = -0.95 + 0.15 * n;
          q.x_ref[0] = 0.93 - 0.155 * n;
          g_assert_cmpint (answer (bo, p, &q, 0, &v), ==, SG_OK);
        }
      g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
      fitted[k] = sg_bo_get_hyper (bo)->kernel.variance;
      g_test_message ("variance cap %g: fitted %g", caps[k], fitted[k]);
      g_assert_cmpfloat (fitted[k], <=, caps[k] * (1 + 1e-12));
      sg_bo_free (bo);
    }
  g_assert_cmpfloat (fitted[0], >, 0.9 * caps[0]);
  g_assert_cmpfloat (fitted[1], >, caps[0]);
  sg_problem_free (p);
  sg_bo_config c;
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  c.refit_variance_max = 0;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.refit_variance_max = INFINITY;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  sg_bo_config_clear (&c);
}

/* The whole proposal chain (joint samples of (f(x), f(x_r)) with common
 * random numbers, their difference, the HPD) against closed forms: with
 * the Laplace surrogate h = f(x) - f(x_r) is exactly Gaussian N(m, s^2),
 * so the dueling UCB is m + 1.96 s and P(h > 0) = Phi(m / s), up to Monte
 * Carlo error with N = 1000 samples: the 97.5% quantile has sd
 * sqrt(0.975 0.025 / N) / phi(1.96) s = 0.084 s (tolerance 5 sd = 0.42 s;
 * the reported value is the largest over ~150 candidates, so selection
 * biases it upwards by a few sd: 0.22 s here), the probability sd <=
 * sqrt(0.25 / N) = 0.016 (tolerance 0.08). */
static void
test_acquisition_closed_form (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_LAPLACE);
  c.n_samples = 1000;
  c.n_initial = 1;
  sg_bo *bo = NULL;
  sg_bo_new (&c, &bo);
  double a = 0.3, b = -0.5, d = 0.8;
  sg_bo_answer_duel (bo, &a, &b, 1);
  sg_bo_answer_duel (bo, &d, &a, 0);
  gsl_rng *rng = sg_bo_rng (bo);
  sg_bo_query q;
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  sg_rng_free (rng);
  const sg_gauss_post *gp = sg_bo_gauss_post (bo);
  g_assert_nonnull (gp);
  double xx[2] = { q.x[0], q.x_ref[0] }, mean[2], cov[4];
  g_assert_cmpint (sg_gauss_post_joint (gp, xx, 2, mean, cov), ==, SG_OK);
  double m = mean[0] - mean[1], sd = sqrt (cov[0] + cov[3] - 2 * cov[1]);
  g_test_message ("UCB %.4f vs %.4f (sd %.4f), P(better) %.4f vs %.4f", q.acquisition, m + 1.96 * sd, sd,
                  q.prob_better, sg_norm_cdf (m / sd));
  g_assert_cmpfloat (fabs (q.acquisition - (m + 1.96 * sd)), <, 0.42 * sd);
  g_assert_cmpfloat (fabs (q.prob_better - sg_norm_cdf (m / sd)), <, 0.08);
  /* the maximiser: no grid point has a larger closed-form UCB (allowing
   * the Monte Carlo tolerance) */
  for (int k = 0; k <= 200; k++)
    {
      double g[2] = { -1 + 0.01 * k, q.x_ref[0] };
      if (fabs (g[0] - q.x_ref[0]) < 1e-9)
        continue;
      sg_gauss_post_joint (gp, g, 2, mean, cov);
      double u = mean[0] - mean[1] + 1.96 * sqrt (fmax (0, cov[0] + cov[3] - 2 * cov[1]));
      g_assert_cmpfloat (u, <, q.acquisition + 0.42 * sd + 0.05);
    }
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* The CONFIDENT mixed policy asks for a value when P(x beats x_r) is
 * outside [1 - c, c]: with c just above 1/2 (almost any duel is
 * "certain") every model query is a value, with c = 1 none is. */
static void
test_mixed_confident (void)
{
  sg_problem *p = NULL;
  sg_problem_new ("cos1d", 0, &p);
  for (int k = 0; k < 2; k++)
    {
      sg_bo_config c = { 0 };
      small_config (&c, 1, SG_BO_MIXED, SG_BO_SURROGATE_SKEWGP);
      c.mixed_policy = SG_BO_MIXED_CONFIDENT;
      c.mixed_confidence = k == 0 ? 0.5 + 1e-9 : 1.0;
      c.n_initial = 2;
      double lo = -2.6, up = 2.6;
      c.lower[0] = lo;
      c.upper[0] = up;
      c.prior.kernel.lengthscales[0] = 0.5;
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      int values = 0, model_queries = 0;
      for (int it = 0; it < 10; it++)
        {
          gsl_rng *rng = sg_bo_rng (bo);
          sg_bo_query q;
          g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
          sg_rng_free (rng);
          if (!q.initial)
            {
              model_queries++;
              values += q.kind == SG_BO_QUERY_VALUE;
            }
          int v;
          g_assert_cmpint (answer (bo, p, &q, 0, &v), ==, SG_OK);
        }
      g_assert_cmpint (model_queries, ==, 6);
      g_assert_cmpint (values, ==, k == 0 ? model_queries : 0);
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
  sg_problem_free (p);
}

/* ---- Short seeded runs against random search -------------------------------- */

typedef struct {
  double best;       /* true objective at x_r after the run */
  int violations;
} run_result;

static run_result
run (const char *problem, sg_bo_mode mode, sg_bo_surrogate s, sg_bo_acquisition acq,
     uint64_t seed, int iterations, double threshold, double safe_start)
{
  sg_problem *p = NULL;
  g_assert_cmpint (sg_problem_new (problem, seed, &p), ==, SG_OK);
  size_t dim = sg_problem_dim (p);
  sg_bo_config c = { 0 };
  sg_bo_config_default (&c, dim, sg_problem_lower (p), sg_problem_upper (p));
  c.mode = mode;
  c.surrogate = s;
  c.acquisition = acq;
  c.seed = seed;
  c.n_initial = 4;
  c.n_samples = 400;
  c.search.n_candidates = 200;
  c.refit_until = 12;
  c.refit_every = 4;
  c.refit.max_evals = 60;
  if (mode == SG_BO_MIXED)
    c.refit_free |= SG_FIT_MEAN | SG_FIT_PROBIT_SD;
  if (mode == SG_BO_SAFE)
    {
      /* 001 sec. 5.2.3: its penalty rule at 0.7, fixed hyperparameters
       * (lengthscale 1.5 on the 20-wide safe-gp1d box, scaled for others) */
      c.safe_rule = SG_BO_SAFE_PENALTY;
      c.safe_probability = 0.7;
      c.refit_until = c.refit_every = 0;
      c.prior.kernel.variance = 2;
      for (size_t j = 0; j < dim; j++)
        c.prior.kernel.lengthscales[j] = 1.5 * (c.upper[j] - c.lower[j]) / 20;
      c.prior.noise.numeric_sd = 0.05;
      c.threshold = threshold;
      c.has_safe_start = 1;
      for (size_t j = 0; j < dim; j++)
        c.safe_start[j] = safe_start;
    }
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  run_result r = { NAN, 0 };
  size_t total = (mode == SG_BO_MIXED ? 8 : mode == SG_BO_SAFE ? 1 : 4) + (size_t) iterations;
  for (size_t it = 0; it < total; it++)
    {
      if (sg_bo_refit_due (bo))
        g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      int v;
      g_assert_cmpint (answer (bo, p, &q, threshold, &v), ==, SG_OK);
      r.violations += v;
    }
  double best[SG_BO_MAX_DIM];
  g_assert_true (sg_bo_best (bo, best));
  r.best = sg_problem_value (p, best);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
  return r;
}

static int
cmp_double (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return (a > b) - (a < b);
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
  const char *problem;
  sg_bo_mode mode;
  sg_bo_acquisition acq;
  double threshold;   /* safe mode: h, and the safe start (all coordinates) */
  double start;
} race;

/* Each mode's loop with the exact SkewGP ends at a better true objective
 * than random search with the same seeds (and thus the same initial
 * design), comparing medians over 5 seeds (a median, so that one run
 * stuck on a local maximum, which short runs of any method have, does not
 * decide the race); in safe mode it also violates the constraint less
 * often in total. Deterministic (fixed seeds); it fails if the
 * acquisition or the model is broken (the margins are in the log).
 * The acquisitions are those that work in such short runs: dueling UCB
 * explores the boundary of Six-hump camel for a long time (in 30-iteration
 * runs it does not beat random search there: see results-bo.md), EIIG
 * does. Safe mode on cos1d uses h = 0.5 from x = 0.3, whose safe
 * component [-0.4, 0.4] holds the maximum; on Six-hump camel h = -1 from
 * the origin. */
static void
test_beats_random (void)
{
  const race races[] = {
    { "cos1d", SG_BO_PREFERENCE, SG_BO_ACQ_UCB, NAN, 0 },
    { "six-hump-camel", SG_BO_PREFERENCE, SG_BO_ACQ_EIIG, NAN, 0 },
    { "cos1d", SG_BO_PREFERENCE, SG_BO_ACQ_HB_UCB, NAN, 0 },
    { "six-hump-camel", SG_BO_PREFERENCE, SG_BO_ACQ_HB_UCB, NAN, 0 },
    { "cos1d", SG_BO_MIXED, SG_BO_ACQ_UCB, NAN, 0 },
    { "six-hump-camel", SG_BO_MIXED, SG_BO_ACQ_EIIG, NAN, 0 },
    { "cos1d", SG_BO_SAFE, SG_BO_ACQ_UCB, 0.5, 0.3 },
    { "six-hump-camel", SG_BO_SAFE, SG_BO_ACQ_UCB, -1.0, 0 },
  };
  const char *env_seeds = g_getenv ("BO_RACE_SEEDS"), *env_iter = g_getenv ("BO_RACE_ITERATIONS");
  const int seeds = env_seeds ? atoi (env_seeds) : 5;
  const int iterations = env_iter ? atoi (env_iter) : 14;
  for (size_t k = 0; k < G_N_ELEMENTS (races); k++)
    {
      const race *rc = &races[k];
      double bo_best[16], rs_best[16];
      int bo_viol = 0, rs_viol = 0;
      for (int s = 0; s < seeds && s < 16; s++)
        {
          run_result a = run (rc->problem, rc->mode, SG_BO_SURROGATE_SKEWGP, rc->acq,
                              (uint64_t) s + 1, iterations, rc->threshold, rc->start);
          run_result b = run (rc->problem, rc->mode, SG_BO_SURROGATE_RANDOM, rc->acq,
                              (uint64_t) s + 1, iterations, rc->threshold, rc->start);
          bo_best[s] = a.best;
          rs_best[s] = b.best;
          bo_viol += a.violations;
          rs_viol += b.violations;
        }
      double bo_mean = median (bo_best, seeds), rs_mean = median (rs_best, seeds);
      g_test_message ("%s %s %s: median SkewGP %.4f vs random %.4f; violations %d vs %d",
                      rc->problem, sg_bo_mode_name (rc->mode),
                      sg_bo_acquisition_name (rc->acq), bo_mean, rs_mean, bo_viol, rs_viol);
      if (g_getenv ("BO_RACE_REPORT_ONLY"))
        continue;
      g_assert_cmpfloat (bo_mean, >, rs_mean);
      if (rc->mode == SG_BO_SAFE)
        g_assert_cmpint (bo_viol, <=, rs_viol);
    }
}

/* ---- The last proposal's acquisition, evaluated anywhere -------------------- */

/* Runs LOOP on cos1d (scaled into [-1, 1]) until it has proposed from the
 * model after at least MIN_ANSWERS answers; Q receives that proposal. */
static sg_bo *
loop_to_model_query (const sg_bo_config *c, int min_answers, sg_bo_query *q)
{
  sg_problem *p = NULL;
  g_assert_cmpint (sg_problem_new ("cos1d", 0, &p), ==, SG_OK);
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (c, &bo), ==, SG_OK);
  for (int it = 0; it < 40; it++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, q), ==, SG_OK);
      sg_rng_free (rng);
      if (!q->random && (int) sg_bo_n_answers (bo) >= min_answers)
        break;
      /* answer with cos1d on [-1, 1] mapped to its box [-2.6, 2.6] */
      double v = sg_problem_value (p, (double[]) { 2.6 * q->x[0] });
      int ok;
      if (q->kind == SG_BO_QUERY_DUEL)
        ok = sg_bo_answer_duel (bo, q->x, q->x_ref,
                                v >= sg_problem_value (p, (double[]) { 2.6 * q->x_ref[0] }));
      else if (c->mode == SG_BO_SAFE && v < c->threshold)
        ok = sg_bo_answer_invalid (bo, q->x);
      else
        ok = sg_bo_answer_value (bo, q->x, v);
      g_assert_cmpint (ok, ==, SG_OK);
    }
  g_assert_false (q->random);
  sg_problem_free (p);
  return bo;
}

/* sg_bo_acquisition_at is the function the proposal maximised:
 *  - at the proposed x it returns query.acquisition exactly (same samples,
 *    same common random numbers, same arithmetic);
 *  - on a fine grid nothing beats the proposal by more than what the
 *    search can miss: the search starts from 500 Sobol candidates (spacing
 *    ~ 1/512 of the box in 1-D, finer than the grid's 1/400), so the grid's
 *    best point has a candidate closer than one grid step, whose value is
 *    lower by at most the grid's change over one step around that point;
 *  - it stays the same function after an answer moves x_r, and is gone
 *    after a refit of the hyperparameters.
 * For every surrogate family (SkewGP samples, Laplace Gaussian) and every
 * target (dueling UCB / EIIG, numeric EI of mixed mode, safe UCB). */
static void
test_acquisition_at (void)
{
  struct {
    sg_bo_mode mode;
    sg_bo_surrogate surrogate;
    sg_bo_acquisition acq;
    sg_bo_acq_target target;
    const char *name;
  } cases[] = {
    { SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP, SG_BO_ACQ_UCB, SG_BO_ACQ_TARGET_DUEL, "dueling UCB" },
    { SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP, SG_BO_ACQ_EIIG, SG_BO_ACQ_TARGET_DUEL, "EIIG" },
    { SG_BO_PREFERENCE, SG_BO_SURROGATE_LAPLACE, SG_BO_ACQ_UCB, SG_BO_ACQ_TARGET_DUEL, "dueling UCB" },
    { SG_BO_MIXED, SG_BO_SURROGATE_SKEWGP, SG_BO_ACQ_UCB, SG_BO_ACQ_TARGET_NUMERIC, "EI" },
    { SG_BO_SAFE, SG_BO_SURROGATE_SKEWGP, SG_BO_ACQ_UCB, SG_BO_ACQ_TARGET_SAFE, "safe UCB" },
  };
  enum { G = 401 };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      sg_bo_config c = { 0 };
      small_config (&c, 1, cases[k].mode, cases[k].surrogate);
      c.acquisition = cases[k].acq;
      c.numeric_acquisition = SG_BO_NUMERIC_EI;
      c.mixed_every = 1;                 /* every model query is a value */
      c.n_samples = 200;
      c.search.n_candidates = 500;
      c.search.n_starts = 2;
      c.search.local_maxeval = 60;
      c.threshold = 0.3;
      c.safe_start[0] = 0;
      c.safe_rule = SG_BO_SAFE_PENALTY;  /* the SafeOpt rule: test-bo-safe.c */
      c.safe_probability = 0.7;
      c.prior.kernel.lengthscales[0] = 0.3;
      sg_bo_query q;
      sg_bo *bo = loop_to_model_query (&c, 6, &q);
      g_assert_cmpint (q.kind, ==, cases[k].target == SG_BO_ACQ_TARGET_DUEL
                                     ? SG_BO_QUERY_DUEL : SG_BO_QUERY_VALUE);

      sg_bo_acq_info info;
      g_assert_cmpint (sg_bo_last_acquisition (bo, &info), ==, SG_OK);
      g_assert_cmpint (info.target, ==, cases[k].target);
      g_assert_cmpstr (info.name, ==, cases[k].name);
      g_assert_cmpfloat (info.x[0], ==, q.x[0]);
      g_assert_cmpfloat (info.value, ==, q.acquisition);

      double at_q;
      g_assert_cmpint (sg_bo_acquisition_at (bo, q.x, 1, NULL, &at_q), ==, SG_OK);
      g_assert_cmpfloat (at_q, ==, q.acquisition);

      double grid[G], a[G], again[G];
      for (int i = 0; i < G; i++)
        grid[i] = -1 + 2.0 * i / (G - 1);
      g_assert_cmpint (sg_bo_acquisition_at (bo, grid, G, NULL, a), ==, SG_OK);
      double amax = -INFINITY, step = 0, range = 0;
      int finite = 0, imax = 0;
      for (int i = 0; i < G; i++)
        {
          finite += isfinite (a[i]) != 0;
          if (a[i] > amax)
            {
              amax = a[i];
              imax = i;
            }
        }
      for (int i = MAX (imax - 1, 1); i <= MIN (imax + 1, G - 1); i++)
        if (isfinite (a[i]) && isfinite (a[i - 1]))
          step = fmax (step, fabs (a[i] - a[i - 1]));
      for (int i = 1; i < G; i++)
        if (isfinite (a[i]) && isfinite (a[0]))
          range = fmax (range, fabs (a[i] - a[0]));
      g_test_message ("%s/%s: a(x_q = %.4f) = %.5f, grid max %.5f at %.4f, step there %.5f",
                      sg_bo_mode_name (c.mode), info.name, q.x[0], q.acquisition, amax,
                      grid[imax], step);
      g_assert_cmpint (finite, >=, G - 1);     /* at most x_r itself excluded */
      g_assert_cmpfloat (amax, <=, q.acquisition + step);
      g_assert_cmpfloat (range, >, 0);         /* not a constant function */

      /* the same function after an answer that moves x_r */
      if (cases[k].mode == SG_BO_PREFERENCE)
        g_assert_cmpint (sg_bo_answer_duel (bo, q.x, q.x_ref, 1), ==, SG_OK);
      else
        g_assert_cmpint (sg_bo_answer_value (bo, q.x, 5.0), ==, SG_OK);
      g_assert_cmpint (sg_bo_acquisition_at (bo, grid, G, NULL, again), ==, SG_OK);
      g_assert_cmpmem (a, sizeof a, again, sizeof again);

      /* a cancelled evaluation leaves OUT alone */
      int calls = 0;
      sg_progress cancel = { cancel_now, &calls };
      again[0] = 12345;
      g_assert_cmpint (sg_bo_acquisition_at (bo, grid, G, &cancel, again), ==, SG_ECANCELLED);
      g_assert_cmpfloat (again[0], ==, 12345);
      g_assert_cmpint (sg_bo_acquisition_at (bo, grid, 0, NULL, again), ==, SG_EINVAL);
      double bad = NAN;
      g_assert_cmpint (sg_bo_acquisition_at (bo, &bad, 1, NULL, again), ==, SG_EINVAL);

      /* new hyperparameters drop the model and its acquisition */
      g_assert_cmpint (sg_bo_set_hyper (bo, sg_bo_get_hyper (bo)), ==, SG_OK);
      g_assert_cmpint (sg_bo_last_acquisition (bo, &info), ==, SG_EINVAL);
      g_assert_cmpint (sg_bo_acquisition_at (bo, grid, 1, NULL, again), ==, SG_EINVAL);
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }

  /* no model yet: nothing to evaluate */
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  sg_bo *bo = NULL;
  sg_bo_new (&c, &bo);
  double x = 0, out;
  sg_bo_acq_info info;
  g_assert_cmpint (sg_bo_acquisition_at (bo, &x, 1, NULL, &out), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_prob_valid_at (bo, &x, 1, NULL, &out), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_last_acquisition (bo, &info), ==, SG_EINVAL);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* P(valid) = P(f(x) >= h) in safe mode on a constructed case: with h = 0,
 * values well above h at x = -0.6 and -0.3 and failures at 0.5 and 0.8
 * (lengthscale 0.3), P(valid) is a probability everywhere, equals
 * query.prob_safe at the proposal, is near 1 at the valid points and (for
 * the exact posterior; Laplace's mode-centred Gaussian is known to be
 * poor for such sharp probit factors) near 0 at the failed ones, and
 * decreases from the valid region to the failed one. With the Laplace surrogate it matches the closed form
 * Phi((mu(x) - h) / sd(x)) of its Gaussian up to Monte Carlo error: with
 * N = 2000 samples the sd is sqrt(p (1 - p) / N) <= 0.0112; tolerance
 * 5 sd = 0.056. */
static void
test_prob_valid (void)
{
  for (int k = 0; k < 2; k++)
    {
      sg_bo_config c = { 0 };
      small_config (&c, 1, SG_BO_SAFE, k == 0 ? SG_BO_SURROGATE_SKEWGP : SG_BO_SURROGATE_LAPLACE);
      c.n_samples = 2000;
      c.threshold = 0;
      c.has_safe_start = 1;
      c.safe_start[0] = -0.6;
      c.prior.kernel.lengthscales[0] = 0.3;
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      double xv[2] = { -0.6, -0.3 }, yv[2] = { 1.5, 1.2 }, xi[2] = { 0.5, 0.8 };
      for (int i = 0; i < 2; i++)
        {
          g_assert_cmpint (sg_bo_answer_value (bo, &xv[i], yv[i]), ==, SG_OK);
          g_assert_cmpint (sg_bo_answer_invalid (bo, &xi[i]), ==, SG_OK);
        }
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_false (q.random);

      double pq;
      g_assert_cmpint (sg_bo_prob_valid_at (bo, q.x, 1, NULL, &pq), ==, SG_OK);
      g_assert_cmpfloat (pq, ==, q.prob_safe);

      enum { G = 101 };
      double grid[G], p[G];
      for (int i = 0; i < G; i++)
        grid[i] = -1 + 2.0 * i / (G - 1);
      g_assert_cmpint (sg_bo_prob_valid_at (bo, grid, G, NULL, p), ==, SG_OK);
      for (int i = 0; i < G; i++)
        g_assert_true (p[i] >= 0 && p[i] <= 1);
      /* grid index of x: (x + 1) * 50 */
      double p_valid = fmin (p[20], p[35]), p_failed = fmax (p[75], p[90]);
      g_test_message ("%s: P(valid) at the valid points %.3f %.3f, at the failures %.3f %.3f, "
                      "at 0.1: %.3f", sg_bo_surrogate_name (c.surrogate), p[20], p[35], p[75],
                      p[90], p[55]);
      g_assert_cmpfloat (p_valid, >, 0.9);
      if (c.surrogate == SG_BO_SURROGATE_SKEWGP)
        g_assert_cmpfloat (p_failed, <, 0.1);
      else
        g_assert_cmpfloat (p_failed, <, 0.5);
      /* decreasing through the gap between the last valid and the first
       * failed point, up to Monte Carlo noise (5 sd of the larger value) */
      for (int i = 35; i < 75; i++)
        g_assert_cmpfloat (p[i + 1], <=, p[i] + 5 * sqrt (0.25 / c.n_samples));

      const sg_gauss_post *gp = sg_bo_gauss_post (bo);
      if (gp)
        {
          double mean[G], var[G], worst = 0;
          g_assert_cmpint (sg_gauss_post_predict (gp, grid, G, mean, var), ==, SG_OK);
          for (int i = 0; i < G; i++)
            worst = fmax (worst, fabs (p[i] - sg_norm_cdf ((mean[i] - c.threshold) / sqrt (var[i]))));
          g_test_message ("Laplace: largest |P(valid) - Phi((mu - h) / sd)| = %.4f", worst);
          g_assert_cmpfloat (worst, <, 0.056);
        }
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
}

/* ---- Two-GP surrogate (safe mode; 001 sec. 5.2.3, Figure 15 baseline) ---- */

/* The safe-gp1d setting of the paper: box [-10, 10], variance 2,
 * lengthscale 1.5, measurement sd 0.05, h = 0, safe start 0. */
static void
safe_gp1d_config (sg_bo_config *c, sg_bo_surrogate s)
{
  double lo = -10, up = 10;
  g_assert_cmpint (sg_bo_config_default (c, 1, &lo, &up), ==, SG_OK);
  c->mode = SG_BO_SAFE;
  c->surrogate = s;
  /* the paper's experiment: its penalty rule at 0.7 (the SafeOpt rule is
   * test-bo-safe.c's) */
  c->safe_rule = SG_BO_SAFE_PENALTY;
  c->safe_probability = 0.7;
  c->prior.kernel.variance = 2;
  c->prior.kernel.lengthscales[0] = 1.5;
  c->prior.noise.numeric_sd = 0.05;
  c->refit_until = c->refit_every = 0;
  c->has_safe_start = 1;
  c->safe_start[0] = 0;
  c->n_samples = 400;
  c->search.n_candidates = 200;
}

static void
test_two_gp_config (void)
{
  sg_bo_config c = { 0 };
  safe_gp1d_config (&c, SG_BO_SURROGATE_TWO_GP);
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  /* the two-GP baseline is a safe-mode surrogate only */
  for (int m = 0; m <= SG_BO_ACTIVE; m++)
    {
      c.mode = (sg_bo_mode) m;
      g_assert_cmpint (sg_bo_config_check (&c), ==, m == SG_BO_SAFE ? SG_OK : SG_EINVAL);
    }
  sg_bo_surrogate ss;
  g_assert_cmpint (sg_bo_surrogate_parse ("two-gp", &ss), ==, SG_OK);
  g_assert_cmpint (ss, ==, SG_BO_SURROGATE_TWO_GP);
  g_assert_cmpstr (sg_bo_surrogate_name (SG_BO_SURROGATE_TWO_GP), ==, "two-gp");
  sg_bo_mode mm;
  g_assert_cmpint (sg_bo_mode_parse ("active", &mm), ==, SG_OK);
  g_assert_cmpint (mm, ==, SG_BO_ACTIVE);
  g_assert_cmpstr (sg_bo_mode_name (SG_BO_ACTIVE), ==, "active");
  sg_bo_config_clear (&c);
}

/* A seeded two-GP safe loop on a safe-gp1d draw: every query is inside the
 * box, the two posteriors exist after a proposal and describe the data
 * (the regression GP interpolates the valid values to within a few
 * measurement sds; the classifier says "valid" at the safe start), and
 * undo / re-propose reproduces the same query. */
static void
test_two_gp_runs (void)
{
  sg_problem *p = NULL;
  g_assert_cmpint (sg_problem_new ("safe-gp1d", 3, &p), ==, SG_OK);
  sg_bo_config c = { 0 };
  safe_gp1d_config (&c, SG_BO_SURROGATE_TWO_GP);
  c.seed = 3;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  g_assert_null (sg_bo_two_gp_classifier (bo));
  int violations = 0;
  for (int it = 0; it < 12; it++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpint (q.kind, ==, SG_BO_QUERY_VALUE);
      g_assert_cmpfloat (q.x[0], >=, -10);
      g_assert_cmpfloat (q.x[0], <=, 10);
      if (it > 0)
        {
          g_assert_false (q.random);
          g_assert_nonnull (sg_bo_two_gp_classifier (bo));
          g_assert_cmpfloat (q.prob_safe, >=, 0);
          g_assert_cmpfloat (q.prob_safe, <=, 1);
          g_assert_true (isfinite (q.acquisition));
        }
      int v;
      g_assert_cmpint (answer (bo, p, &q, 0.0, &v), ==, SG_OK);
      violations += v;
    }
  g_test_message ("two-gp on safe-gp1d seed 3: %d violations in 12 queries", violations);
  /* the regression GP at the safe start: the measured g(0) (exact oracle)
   * within 4 measurement sds (0.05) */
  gsl_rng *rng = sg_bo_rng (bo);
  sg_bo_query q1, q2;
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q1), ==, SG_OK);
  sg_rng_free (rng);
  double x0 = 0, g0 = sg_problem_value (p, &x0);
  sg_point_summary s;
  g_assert_cmpint (sg_bo_summarize (bo, &x0, 1, SG_SUMMARY_ALL, 0.95, NULL, &s), ==, SG_OK);
  g_assert_cmpfloat (fabs (s.mean - g0), <, 4 * 0.05);
  g_assert_nonnull (sg_bo_two_gp_regression (bo));
  double mc, vc;
  g_assert_cmpint (sg_gauss_post_predict (sg_bo_two_gp_classifier (bo), &x0, 1, &mc, &vc),
                   ==, SG_OK);
  g_assert_cmpfloat (mc, >, 0);  /* valid at the safe start */
  /* determinism: undo + redo of the last answer gives the same query */
  int v;
  g_assert_cmpint (answer (bo, p, &q1, 0.0, &v), ==, SG_OK);
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q2), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpfloat (q1.x[0], ==, q2.x[0]);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}

/* The penalty on a constructed case: g(0) = 0.1 is valid and x = 2.5 is
 * invalid. The regression GP's UCB is largest far from x = 0 (the prior's
 * 95% upper end, about 1.96 sqrt(2) = 2.8, against about 0.1 at 0), where the
 * classifier knows nothing (P(f_c >= 0) near 1/2). With the penalty the
 * proposal must be a point the classifier deems safe (P >= 0.7) and its
 * acquisition unpenalised; without it (penalty 0) the UCB alone takes the
 * proposal out of the safe region (P < 0.7) — so the rule, not the
 * landscape, keeps it safe. */
static void
test_two_gp_penalty (void)
{
  double q_prob[2], q_x[2], q_acq[2];
  for (int k = 0; k < 2; k++)
    {
      sg_bo_config c = { 0 };
      safe_gp1d_config (&c, SG_BO_SURROGATE_TWO_GP);
      c.safe_penalty = k == 0 ? 1000 : 0;
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      double x0 = 0, x1 = 2.5;
      g_assert_cmpint (sg_bo_answer_value (bo, &x0, 0.1), ==, SG_OK);
      g_assert_cmpint (sg_bo_answer_invalid (bo, &x1), ==, SG_OK);
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      q_prob[k] = q.prob_safe;
      q_x[k] = q.x[0];
      q_acq[k] = q.acquisition;
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
  g_test_message ("penalty 1000: x = %.3f, P(valid) = %.3f, acq %.3f; penalty 0: x = %.3f, "
                  "P(valid) = %.3f, acq %.3f", q_x[0], q_prob[0], q_acq[0], q_x[1], q_prob[1],
                  q_acq[1]);
  g_assert_cmpfloat (q_prob[0], >=, 0.7);
  g_assert_cmpfloat (q_acq[0], >, 0);       /* not penalised (UCB > 0 here) */
  g_assert_cmpfloat (q_prob[1], <, 0.7);
  g_assert_cmpfloat (q_acq[1], >, q_acq[0]); /* the penalty cost UCB */
}

/* The two-GP safe loop against random search on safe-gp1d (seeds 1-5, the
 * seed also picks the function), 10 iterations after the safe start: the
 * median true objective at x_r is higher and the constraint is violated
 * less often in total. (Random search samples the whole box; over longer
 * runs it finds higher values in other valid components only by many
 * violations: results-bo.md.) */
static void
test_two_gp_beats_random (void)
{
  double tg[5], rs[5];
  int tv = 0, rv = 0;
  for (int s = 0; s < 5; s++)
    {
      run_result a = run ("safe-gp1d", SG_BO_SAFE, SG_BO_SURROGATE_TWO_GP, SG_BO_ACQ_UCB,
                          (uint64_t) s + 1, 10, 0.0, 0.0);
      run_result b = run ("safe-gp1d", SG_BO_SAFE, SG_BO_SURROGATE_RANDOM, SG_BO_ACQ_UCB,
                          (uint64_t) s + 1, 10, 0.0, 0.0);
      tg[s] = a.best;
      rs[s] = b.best;
      tv += a.violations;
      rv += b.violations;
    }
  double mt = median (tg, 5), mr = median (rs, 5);
  g_test_message ("safe-gp1d, 10 iterations, seeds 1-5: median two-GP %.4f vs random %.4f; "
                  "violations %d vs %d", mt, mr, tv, rv);
  g_assert_cmpfloat (mt, >, mr);
  g_assert_cmpint (tv, <, rv);
}

/* Odd answer sequences for the new surrogate / mode: the two-GP safe loop
 * and the active loop take random, repeated and contradictory answers
 * (the same point valid and invalid, or labelled +1 and -1) and undos in
 * any order; every proposal succeeds, stays in the box, and the data hold
 * one observation per answer. */
static void
test_two_gp_active_fuzz (void)
{
  gsl_rng *r = sg_rng_new (77, 0);
  for (int k = 0; k < 2; k++)
    {
      sg_bo_config c = { 0 };
      if (k == 0)
        small_config (&c, 2, SG_BO_SAFE, SG_BO_SURROGATE_TWO_GP);
      else
        small_config (&c, 2, SG_BO_ACTIVE, SG_BO_SURROGATE_SKEWGP);
      c.seed = 5 + (uint64_t) k;
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      sg_bo_query last;
      int have_last = 0, model_proposals = 0;
      for (int step = 0; step < 40; step++)
        {
          double u = gsl_rng_uniform (r);
          if (u < 0.15 && sg_bo_n_answers (bo) > 0)
            g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
          else if (u < 0.4 || !have_last)
            {
              gsl_rng *rng = sg_bo_rng (bo);
              int st = sg_bo_propose (bo, rng, NULL, &last);
              sg_rng_free (rng);
              if (st != SG_OK)
                g_test_message ("case %d step %d: %s", k, step, sg_strerror (st));
              g_assert_cmpint (st, ==, SG_OK);
              for (size_t j = 0; j < 2; j++)
                g_assert_true (last.x[j] >= -1 && last.x[j] <= 1);
              have_last = 1;
              model_proposals += !last.random;
            }
          else if (k == 0)
            {
              if (gsl_rng_uniform (r) < 0.4)
                g_assert_cmpint (sg_bo_answer_invalid (bo, last.x), ==, SG_OK);
              else
                g_assert_cmpint (sg_bo_answer_value (bo, last.x, sg_rng_gaussian (r)), ==, SG_OK);
            }
          else
            g_assert_cmpint (sg_bo_answer_label (bo, last.x, gsl_rng_uniform (r) < 0.5 ? 1 : -1),
                             ==, SG_OK);
          g_assert_cmpuint (sg_bo_data (bo)->n_obs, ==, sg_bo_n_answers (bo));
        }
      g_test_message ("case %d: %d proposals from the model", k, model_proposals);
      g_assert_cmpint (model_proposals, >, 3);  /* the models were exercised */
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
  sg_rng_free (r);
}

/* The plot accessors of the last proposal (sg_bo_acquisition_at,
 * sg_bo_prob_valid_at) know the new surrogate and mode: at the proposal
 * they return exactly query.acquisition and query.prob_safe (same samples
 * and common random numbers), and the target is named. */
static void
test_two_gp_active_plot_accessors (void)
{
  for (int k = 0; k < 2; k++)
    {
      sg_bo_config c = { 0 };
      if (k == 0)
        {
          small_config (&c, 1, SG_BO_SAFE, SG_BO_SURROGATE_TWO_GP);
          c.safe_rule = SG_BO_SAFE_PENALTY;  /* its SafeOpt rule: test-bo-safe.c */
        }
      else
        small_config (&c, 1, SG_BO_ACTIVE, SG_BO_SURROGATE_SKEWGP);
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      double x0 = 0, x1 = 0.6, x2 = -0.5;
      if (k == 0)
        {
          g_assert_cmpint (sg_bo_answer_value (bo, &x0, 0.5), ==, SG_OK);
          g_assert_cmpint (sg_bo_answer_invalid (bo, &x1), ==, SG_OK);
        }
      else
        {
          g_assert_cmpint (sg_bo_answer_label (bo, &x0, 1), ==, SG_OK);
          g_assert_cmpint (sg_bo_answer_label (bo, &x1, -1), ==, SG_OK);
          g_assert_cmpint (sg_bo_answer_label (bo, &x2, 1), ==, SG_OK);
        }
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_false (q.random);
      sg_bo_acq_info info;
      g_assert_cmpint (sg_bo_last_acquisition (bo, &info), ==, SG_OK);
      g_assert_cmpint (info.target, ==, k == 0 ? SG_BO_ACQ_TARGET_SAFE : SG_BO_ACQ_TARGET_BALD);
      g_assert_cmpstr (info.name, ==, k == 0 ? "safe UCB" : "BALD");
      double acq, pv;
      g_assert_cmpint (sg_bo_acquisition_at (bo, q.x, 1, NULL, &acq), ==, SG_OK);
      g_assert_cmpfloat (acq, ==, q.acquisition);
      if (k == 0)
        {
          g_assert_cmpint (sg_bo_prob_valid_at (bo, q.x, 1, NULL, &pv), ==, SG_OK);
          g_assert_cmpfloat (pv, ==, q.prob_safe);
          /* the classifier: valid at 0 is likelier than at the invalid 0.6 */
          double pts[2] = { 0, 0.6 }, p2[2];
          g_assert_cmpint (sg_bo_prob_valid_at (bo, pts, 2, NULL, p2), ==, SG_OK);
          g_assert_cmpfloat (p2[0], >, p2[1]);
        }
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
}

/* ---- Active learning (BALD; 001 sec. 5.1) --------------------------------- */

static void
test_active_answers (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 2, SG_BO_ACTIVE, SG_BO_SURROGATE_SKEWGP);
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double a[] = { 0.1, 0.2 }, b[] = { -0.5, 0.3 }, out[] = { 2, 0 };
  /* only labels are answers in active mode */
  g_assert_cmpint (sg_bo_answer_duel (bo, a, b, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_value (bo, a, 1.0), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_invalid (bo, a), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_label (bo, a, 0), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_label (bo, out, 1), ==, SG_EINVAL);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, 0);
  /* no model yet */
  double prob;
  g_assert_cmpint (sg_bo_class_probability (bo, a, 1, NULL, &prob), ==, SG_EINVAL);
  /* the initial design: n_initial random label queries */
  for (size_t i = 0; i < c.n_initial; i++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpint (q.kind, ==, SG_BO_QUERY_LABEL);
      g_assert_true (q.initial);
      g_assert_cmpint (sg_bo_answer_label (bo, q.x, q.x[0] > 0 ? 1 : -1), ==, SG_OK);
    }
  /* then BALD: a label query inside the box, with a BALD value in
   * [0, log 2] (an information gain in nats about a binary label) */
  gsl_rng *rng = sg_bo_rng (bo);
  sg_bo_query q;
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpint (q.kind, ==, SG_BO_QUERY_LABEL);
  g_assert_false (q.initial);
  g_assert_false (q.random);
  for (int j = 0; j < 2; j++)
    {
      g_assert_cmpfloat (q.x[j], >=, -1);
      g_assert_cmpfloat (q.x[j], <=, 1);
    }
  g_assert_cmpfloat (q.acquisition, >=, 0);
  g_assert_cmpfloat (q.acquisition, <=, log (2.0) + 1e-12);
  g_assert_false (sg_bo_best (bo, NULL));
  /* the model predicts the labels it was given: P(+1) at (0.9, 0) above
   * the one at (-0.9, 0) (labels were sign(x_1)) */
  double XS[] = { 0.9, 0, -0.9, 0 }, pr[2];
  g_assert_cmpint (sg_bo_class_probability (bo, XS, 2, NULL, pr), ==, SG_OK);
  g_assert_cmpfloat (pr[0], >, pr[1]);
  /* undo */
  g_assert_cmpint (sg_bo_answer_label (bo, q.x, -1), ==, SG_OK);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, c.n_initial + 1);
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, c.n_initial);
  /* sg_bo_fit_model rebuilds a model; not for the random surrogate */
  rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_fit_model (bo, rng, NULL), ==, SG_OK);
  g_assert_cmpuint (sg_bo_model_n_answers (bo), ==, c.n_initial);
  sg_rng_free (rng);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* Accuracy on the 201-point grid of cos1d's box of the classifier
 * sign(g(x) - 0.5) (several alternating intervals) after an active run of
 * N_LABELS labels (5 random, then BALD; refits after every answer up to
 * 30, as the CLI does). RANDOM_LABELS: uniform points instead, judged by
 * the same exact SkewGP classifier. */
static double
active_accuracy_run (uint64_t seed, int random_labels, size_t n_labels)
{
  sg_problem *p = NULL;
  g_assert_cmpint (sg_problem_new ("cos1d", 0, &p), ==, SG_OK);
  const double h = 0.5;
  sg_bo_config c = { 0 };
  sg_bo_config_default (&c, 1, sg_problem_lower (p), sg_problem_upper (p));
  c.mode = SG_BO_ACTIVE;
  c.seed = seed;
  c.n_samples = 400;
  c.search.n_candidates = 200;
  c.refit.max_evals = 60;
  sg_bo *bo = NULL, *judge = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  c.surrogate = SG_BO_SURROGATE_RANDOM;
  if (random_labels)
    g_assert_cmpint (sg_bo_new (&c, &judge), ==, SG_OK);
  sg_bo *pick = random_labels ? judge : bo;  /* chooses the points */
  for (size_t i = 0; i < n_labels; i++)
    {
      if (sg_bo_refit_due (bo))
        g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
      gsl_rng *rng = sg_bo_rng (pick);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (pick, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpfloat (q.x[0], >=, sg_problem_lower (p)[0]);
      g_assert_cmpfloat (q.x[0], <=, sg_problem_upper (p)[0]);
      int label = sg_problem_value (p, q.x) >= h ? 1 : -1;
      g_assert_cmpint (sg_bo_answer_label (bo, q.x, label), ==, SG_OK);
      if (judge)
        g_assert_cmpint (sg_bo_answer_label (judge, q.x, label), ==, SG_OK);
    }
  if (sg_bo_refit_due (bo))
    g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
  gsl_rng *rng = sg_bo_rng (bo);
  g_assert_cmpint (sg_bo_fit_model (bo, rng, NULL), ==, SG_OK);
  sg_rng_free (rng);
  enum { G = 201 };
  double X[G], prob[G];
  for (int i = 0; i < G; i++)
    X[i] = -2.6 + 5.2 * i / (G - 1);
  g_assert_cmpint (sg_bo_class_probability (bo, X, G, NULL, prob), ==, SG_OK);
  int right = 0;
  for (int i = 0; i < G; i++)
    right += (prob[i] > 0.5) == (sg_problem_value (p, &X[i]) >= h);
  sg_bo_free (judge);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
  return (double) right / G;
}

/* BALD active learning beats random labelling: after 25 labels on the 1-D
 * oracle sign(cos(5x) + exp(-x^2/2) - 0.5) the median accuracy over seeds
 * 1-5 of the exact SkewGP classifier is higher when BALD chose the points.
 * The margin in scratch runs (CLI, 6 seeds): mean 0.88 vs 0.77. */
static void
test_active_beats_random (void)
{
  double bald[5], rnd[5];
  for (int s = 0; s < 5; s++)
    {
      bald[s] = active_accuracy_run ((uint64_t) s + 1, 0, 25);
      rnd[s] = active_accuracy_run ((uint64_t) s + 1, 1, 25);
      g_test_message ("seed %d: accuracy BALD %.3f, random %.3f", s + 1, bald[s], rnd[s]);
    }
  double mb = median (bald, 5), mr = median (rnd, 5);
  g_test_message ("median accuracy after 25 labels: BALD %.3f vs random %.3f", mb, mr);
  g_assert_cmpfloat (mb, >, mr);
}

/* The SVGP surrogate (paper 004, sg-svgp.h): preference mode only; 20
 * proposals on cos1d answered by the oracle all succeed inside the box;
 * the model is the SVGP (no SkewGP or Gaussian posterior), its summaries
 * exist, and its mean ranks the two inputs of at least 80% of the answered
 * duels as answered (the oracle is noise-free, so a model that learned
 * nothing ranks ~50%; measured value printed); a refit leaves the
 * hyperparameters alone (SVGP learns its lengthscales by its ELBO). */
static void
test_svgp_surrogate (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_MIXED, SG_BO_SURROGATE_SVGP);
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  sg_bo_config_clear (&c);
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SVGP);
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  sg_bo_surrogate ss;
  g_assert_cmpint (sg_bo_surrogate_parse ("svgp", &ss), ==, SG_OK);
  g_assert_cmpint (ss, ==, SG_BO_SURROGATE_SVGP);
  g_assert_cmpstr (sg_bo_surrogate_name (SG_BO_SURROGATE_SVGP), ==, "svgp");
  c.seed = 3;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_problem *p = NULL;
  sg_problem_new ("cos1d", 0, &p);
  double xa[20], xb[20];
  int won[20];
  for (int it = 0; it < 20; it++)
    {
      sg_bo_query q;
      gsl_rng *rng = sg_bo_rng (bo);
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpint (q.kind, ==, SG_BO_QUERY_DUEL);
      g_assert_true (q.x[0] >= -1 && q.x[0] <= 1);
      int v;
      g_assert_cmpint (answer (bo, p, &q, 0, &v), ==, SG_OK);
      xa[it] = q.x[0];
      xb[it] = q.x_ref[0];
      won[it] = sg_problem_value (p, q.x) >= sg_problem_value (p, q.x_ref);
    }
  g_assert_null (sg_bo_skewgp_posterior (bo));
  g_assert_null (sg_bo_gauss_post (bo));
  g_assert_cmpuint (sg_bo_model_n_answers (bo), ==, 19);
  sg_point_summary sa[20], sb[20];
  g_assert_cmpint (sg_bo_summarize (bo, xa, 20, SG_SUMMARY_ALL, 0.9, NULL, sa), ==, SG_OK);
  g_assert_cmpint (sg_bo_summarize (bo, xb, 20, SG_SUMMARY_ALL, 0.9, NULL, sb), ==, SG_OK);
  int right = 0, counted = 0;
  for (int it = 0; it < 20; it++)
    if (xa[it] != xb[it])
      {
        counted++;
        right += (sa[it].mean > sb[it].mean) == won[it];
      }
  g_test_message ("svgp surrogate: %d of %d answered duels ranked as answered", right, counted);
  g_assert_cmpint (counted, >=, 15);
  g_assert_cmpfloat ((double) right / counted, >=, 0.8);
  double before = sg_bo_get_hyper (bo)->kernel.lengthscales[0];
  g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
  g_assert_cmpfloat (sg_bo_get_hyper (bo)->kernel.lengthscales[0], ==, before);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}


/* ---- Question kinds --------------------------------------------------------- */

static void
test_questions_config (void)
{
  sg_bo_config c = { 0 }, b = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  c.question = SG_BO_QUESTION_CHOICE;
  c.n_options = 4;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);  /* choice needs qEUBO */
  c.acquisition = SG_BO_ACQ_QEUBO;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  b = c; b.n_options = SG_BO_MAX_OPTIONS + 1;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b = c; b.n_options = 1;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b = c; b.surrogate = SG_BO_SURROGATE_LAPLACE;  /* correlated rows */
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b.n_options = 2;  /* a choice of two is one independent row */
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_OK);
  b = c; b.surrogate = SG_BO_SURROGATE_SVGP;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b = c; b.mode = SG_BO_MIXED;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  small_config (&b, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  b.n_options = 3;  /* a duel shows two */
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b.n_options = 2;
  b.ties = 1;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_OK);
  b.surrogate = SG_BO_SURROGATE_EP;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);
  b.surrogate = SG_BO_SURROGATE_RANDOM;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_OK);
  b.prior.noise.tie_margin = 0;
  g_assert_cmpint (sg_bo_config_check (&b), ==, SG_EINVAL);

  sg_bo_acquisition a;
  g_assert_cmpint (sg_bo_acquisition_parse ("qeubo", &a), ==, SG_OK);
  g_assert_cmpint (a, ==, SG_BO_ACQ_QEUBO);
  g_assert_cmpstr (sg_bo_acquisition_name (SG_BO_ACQ_QEUBO), ==, "qeubo");
  sg_bo_question qk;
  g_assert_cmpint (sg_bo_question_parse ("choice", &qk), ==, SG_OK);
  g_assert_cmpint (qk, ==, SG_BO_QUESTION_CHOICE);
  g_assert_cmpint (sg_bo_question_parse ("rank", &qk), ==, SG_EINVAL);
  g_assert_cmpstr (sg_bo_question_name (SG_BO_QUESTION_DUEL), ==, "duel");
  sg_bo_config_clear (&c);
  sg_bo_config_clear (&b);
}

/* The index of the option of Q with the largest value of P. */
static size_t
best_option (const sg_problem *p, const sg_bo_query *q)
{
  size_t best = 0;
  for (size_t i = 1; i < q->n_options; i++)
    if (sg_problem_value (p, q->options[i]) > sg_problem_value (p, q->options[best]))
      best = i;
  return best;
}

/* Best of 4 on cos1d with an exact person: every query shows 4 distinct
 * options in the box, each answer is recorded as one choice observation of
 * 4 options (3 probit rows), the chosen one becomes x_r, undo restores it,
 * and a refit on the choices works (its mvn workspace has one row per
 * probit row, 3 per answer, not one per answer). */
static void
test_choice_loop (void)
{
  sg_problem *p;
  g_assert_cmpint (sg_problem_new ("cos1d", 0, &p), ==, SG_OK);
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  c.lower[0] = sg_problem_lower (p)[0];
  c.upper[0] = sg_problem_upper (p)[0];
  c.prior.kernel.lengthscales[0] = 1.0;
  c.question = SG_BO_QUESTION_CHOICE;
  c.n_options = 4;
  c.acquisition = SG_BO_ACQ_QEUBO;
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double prev_best[SG_BO_MAX_DIM] = { 0 };
  for (size_t n = 0; n < 6; n++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpint (q.kind, ==, SG_BO_QUERY_CHOICE);
      g_assert_cmpint (q.n_options, ==, 4);
      g_assert_cmpint (q.initial, ==, n < 2);
      for (size_t i = 0; i < 4; i++)
        {
          g_assert_cmpfloat (q.options[i][0], >=, c.lower[0]);
          g_assert_cmpfloat (q.options[i][0], <=, c.upper[0]);
          for (size_t j = 0; j < i; j++)
            g_assert_cmpfloat (q.options[i][0], !=, q.options[j][0]);
        }
      g_assert_cmpfloat (q.x[0], ==, q.options[0][0]);
      if (!q.initial)
        g_assert_true (isfinite (q.acquisition));
      size_t chosen = best_option (p, &q);
      double packed[4];
      for (size_t i = 0; i < 4; i++)
        packed[i] = q.options[i][0];
      sg_bo_best (bo, prev_best);
      g_assert_cmpint (sg_bo_answer_choice (bo, packed, 4, chosen, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_OK);
      double best[SG_BO_MAX_DIM];
      g_assert_true (sg_bo_best (bo, best));
      g_assert_cmpfloat (best[0], ==, packed[chosen]);
    }
  const sg_data *d = sg_bo_data (bo);
  g_assert_cmpint (d->n_obs, ==, 6);
  for (size_t i = 0; i < d->n_obs; i++)
    {
      g_assert_cmpint (d->obs[i].kind, ==, SG_OBS_CHOICE);
      g_assert_cmpint (d->obs[i].count, ==, 4);
    }
  g_assert_cmpint (sg_data_n_probit_rows (d), ==, 18);

  sg_fit_result res;
  g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, &res), ==, SG_OK);
  g_assert_cmpint (res.n_evals, >, 0);
  g_assert_true (isfinite (res.log_evidence));

  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  double best[SG_BO_MAX_DIM];
  g_assert_true (sg_bo_best (bo, best));
  g_assert_cmpfloat (best[0], ==, prev_best[0]);
  g_assert_cmpint (sg_bo_data (bo)->n_obs, ==, 5);

  /* bad choices change nothing */
  const double same[] = { 0.1, 0.1, 0.3 }, outside[] = { 0.1, 9.0 };
  g_assert_cmpint (sg_bo_answer_choice (bo, same, 3, 0, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_choice (bo, outside, 2, 0, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_choice (bo, same + 1, 2, 2, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_data (bo)->n_obs, ==, 5);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}

/* A choice between two options is a duel: the same answers given as
 * duels and as choices of 2 give the same proposal (same samples, same
 * acquisition) to round-off. */
static void
test_choice_of_two_is_duel (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 2, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  sg_bo *duels, *choices;
  g_assert_cmpint (sg_bo_new (&c, &duels), ==, SG_OK);
  g_assert_cmpint (sg_bo_new (&c, &choices), ==, SG_OK);
  gsl_rng *pts = sg_rng_new (3, 3);
  for (int n = 0; n < 5; n++)
    {
      double ab[4];
      for (int j = 0; j < 4; j++)
        ab[j] = -1 + 2 * gsl_rng_uniform (pts);
      int a_won = ab[0] + ab[1] > ab[2] + ab[3];
      g_assert_cmpint (sg_bo_answer_duel (duels, ab, ab + 2, a_won), ==, SG_OK);
      g_assert_cmpint (sg_bo_answer_choice (choices, ab, 2, a_won ? 0 : 1, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_OK);
    }
  sg_rng_free (pts);
  double b1[2], b2[2];
  sg_bo_best (duels, b1);
  sg_bo_best (choices, b2);
  g_assert_cmpfloat (b1[0], ==, b2[0]);
  sg_bo_query q1, q2;
  gsl_rng *r1 = sg_rng_new (7, 1), *r2 = sg_rng_new (7, 1);
  g_assert_cmpint (sg_bo_propose (duels, r1, NULL, &q1), ==, SG_OK);
  g_assert_cmpint (sg_bo_propose (choices, r2, NULL, &q2), ==, SG_OK);
  g_assert_cmpint (sg_bo_data (choices)->obs[0].kind, ==, SG_OBS_CHOICE);
  for (int j = 0; j < 2; j++)
    g_assert_cmpfloat (fabs (q1.x[j] - q2.x[j]), <, 1e-9);
  g_assert_cmpfloat (fabs (q1.acquisition - q2.acquisition), <, 1e-9);
  sg_rng_free (r1);
  sg_rng_free (r2);
  sg_bo_free (duels);
  sg_bo_free (choices);
  sg_bo_config_clear (&c);
}

/* Ties offered, by dueling UCB and by the default HB-UCB (whose
 * hallucination samples the tie intervals' latent variables too): every
 * duel query says so; a person with a margin larger than cos1d's range
 * answers only ties (recorded as tie observations, x_r never moves from
 * the first point), a person with no margin only decisive duels
 * (recorded with tie_offered); a refit frees the tie margin; without
 * ties offered a tie answer is refused. */
static void
test_ties_loop (void)
{
  sg_problem *p;
  g_assert_cmpint (sg_problem_new ("cos1d", 0, &p), ==, SG_OK);
  for (int run = 0; run < 4; run++)
    {
      int wide = run % 2;
      sg_bo_config c = { 0 };
      small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
      c.acquisition = run < 2 ? SG_BO_ACQ_UCB : SG_BO_ACQ_HB_UCB;
      c.lower[0] = sg_problem_lower (p)[0];
      c.upper[0] = sg_problem_upper (p)[0];
      c.prior.kernel.lengthscales[0] = 1.0;
      c.ties = 1;
      c.refit_free |= SG_FIT_TIE_MARGIN;
      sg_bo *bo;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      double margin = wide ? 10 : 0, first[1];
      size_t n_model = 0;
      for (size_t n = 0; n < 5; n++)
        {
          gsl_rng *rng = sg_bo_rng (bo);
          sg_bo_query q;
          g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
          sg_rng_free (rng);
          g_assert_cmpint (q.kind, ==, SG_BO_QUERY_DUEL);
          g_assert_true (q.tie_offered);
          n_model += !q.random;
          double d = sg_problem_value (p, q.x) - sg_problem_value (p, q.x_ref);
          if (n == 0)
            first[0] = q.x[0];
          if (fabs (d) < margin)
            g_assert_cmpint (sg_bo_answer_tie (bo, q.x, q.x_ref), ==, SG_OK);
          else
            g_assert_cmpint (sg_bo_answer_duel (bo, q.x, q.x_ref, d >= 0), ==, SG_OK);
        }
      /* the rule under test asked past the initial design */
      g_assert_cmpuint (n_model, >=, 2);
      const sg_data *d = sg_bo_data (bo);
      for (size_t i = 0; i < d->n_obs; i++)
        if (wide)
          g_assert_cmpint (d->obs[i].kind, ==, SG_OBS_TIE);
        else
          {
            g_assert_cmpint (d->obs[i].kind, ==, SG_OBS_PREFERENCE);
            g_assert_true (d->obs[i].tie_offered);
          }
      double best[1];
      g_assert_true (sg_bo_best (bo, best));
      if (wide)
        g_assert_cmpfloat (best[0], ==, first[0]);
      double before = sg_bo_get_hyper (bo)->noise.tie_margin;
      g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
      g_assert_cmpfloat (sg_bo_get_hyper (bo)->noise.tie_margin, !=, before);
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
  sg_bo_config c = { 0 };
  small_config (&c, 1, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  const double a[] = { 0.1 }, b[] = { 0.5 };
  /* Without config.ties a decisive duel carries no tie_offered; a tie the
   * caller records anyway (an app replaying a log) is still a tie. */
  g_assert_cmpint (sg_bo_answer_duel (bo, a, b, 1), ==, SG_OK);
  g_assert_false (sg_bo_data (bo)->obs[0].tie_offered);
  g_assert_cmpint (sg_bo_answer_tie (bo, a, a), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_tie (bo, a, b), ==, SG_OK);
  g_assert_cmpint (sg_bo_data (bo)->obs[1].kind, ==, SG_OBS_TIE);
  sg_bo_free (bo);
  sg_problem_free (p);
  sg_bo_config_clear (&c);
}

/* A duel with both points free (qEUBO): two distinct options, the last
 * proposal's acquisition is qEUBO with the first option fixed, its value
 * at the second option is the query's exactly, and it is -inf at the
 * fixed option (a choice needs distinct options). */
static void
test_qeubo_free_duel (void)
{
  sg_bo_config c = { 0 };
  small_config (&c, 2, SG_BO_PREFERENCE, SG_BO_SURROGATE_SKEWGP);
  c.acquisition = SG_BO_ACQ_QEUBO;
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  const double x[] = { 0.1, 0.2, -0.5, 0.3, 0.6, -0.7 };
  g_assert_cmpint (sg_bo_answer_duel (bo, x, x + 2, 1), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_duel (bo, x + 4, x, 0), ==, SG_OK);
  gsl_rng *rng = sg_bo_rng (bo);
  sg_bo_query q;
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpint (q.kind, ==, SG_BO_QUERY_DUEL);
  g_assert_false (q.initial);
  g_assert_cmpint (q.n_options, ==, 2);
  g_assert_true (q.options[0][0] != q.options[1][0] || q.options[0][1] != q.options[1][1]);
  g_assert_cmpfloat (q.x_ref[0], ==, q.options[1][0]);
  sg_bo_acq_info info;
  g_assert_cmpint (sg_bo_last_acquisition (bo, &info), ==, SG_OK);
  g_assert_cmpint (info.target, ==, SG_BO_ACQ_TARGET_QEUBO);
  g_assert_cmpstr (info.name, ==, "qEUBO");
  double pts[4] = { q.options[1][0], q.options[1][1], q.options[0][0], q.options[0][1] }, v[2];
  g_assert_cmpint (sg_bo_acquisition_at (bo, pts, 2, NULL, v), ==, SG_OK);
  g_assert_cmpfloat (v[0], ==, q.acquisition);
  g_assert_true (isinf (v[1]) && v[1] < 0);
  g_assert_cmpint (sg_bo_answer_duel (bo, q.x, q.x_ref, 1), ==, SG_OK);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* The measured default duel rule: hb-ucb for exact-SkewGP preference
 * duels of up to 4 parameters, ucb from 5, qeubo for choices, ucb
 * elsewhere; and for every mode, question, surrogate, ties setting and
 * number of parameters that some acquisition can run, the default is one
 * of them (it never turns a valid experiment into a refused one). */
static void
test_default_acquisition (void)
{
  const struct {
    sg_bo_mode mode;
    sg_bo_question question;
    sg_bo_surrogate surrogate;
    size_t dim;
    sg_bo_acquisition want;
  } cases[] = {
    { SG_BO_PREFERENCE, SG_BO_QUESTION_DUEL, SG_BO_SURROGATE_SKEWGP, 1, SG_BO_ACQ_HB_UCB },
    { SG_BO_PREFERENCE, SG_BO_QUESTION_DUEL, SG_BO_SURROGATE_SKEWGP, 4, SG_BO_ACQ_HB_UCB },
    { SG_BO_PREFERENCE, SG_BO_QUESTION_DUEL, SG_BO_SURROGATE_SKEWGP, 5, SG_BO_ACQ_UCB },
    { SG_BO_PREFERENCE, SG_BO_QUESTION_DUEL, SG_BO_SURROGATE_LAPLACE, 2, SG_BO_ACQ_UCB },
    { SG_BO_MIXED, SG_BO_QUESTION_DUEL, SG_BO_SURROGATE_SKEWGP, 2, SG_BO_ACQ_UCB },
    { SG_BO_PREFERENCE, SG_BO_QUESTION_CHOICE, SG_BO_SURROGATE_SKEWGP, 6, SG_BO_ACQ_QEUBO },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (sg_bo_default_acquisition (cases[i].mode, cases[i].question,
                                                cases[i].surrogate, cases[i].dim),
                     ==, cases[i].want);
  guint valid = 0;
  for (size_t dim = 2; dim <= 6; dim += 4)
  for (int mode = 0; mode <= SG_BO_ACTIVE; mode++)
    for (int question = 0; question <= SG_BO_QUESTION_CHOICE; question++)
      for (int sur = 0; sur <= SG_BO_SURROGATE_SVGP; sur++)
        for (int ties = 0; ties <= 1; ties++)
          {
            sg_bo_config c = { 0 };
            gboolean any = FALSE;
            small_config (&c, dim, (sg_bo_mode) mode, (sg_bo_surrogate) sur);
            c.question = (sg_bo_question) question;
            c.n_options = question == SG_BO_QUESTION_CHOICE ? 3 : 2;
            c.ties = ties;
            for (int a = 0; a <= SG_BO_ACQ_LAST; a++)
              {
                c.acquisition = (sg_bo_acquisition) a;
                any = any || sg_bo_config_check (&c) == SG_OK;
              }
            c.acquisition = sg_bo_default_acquisition (c.mode, c.question, c.surrogate, c.dim);
            if (any)
              {
                g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
                valid++;
              }
            sg_bo_config_clear (&c);
          }
  g_test_message ("%u valid combinations of dimension, mode, question, surrogate and ties",
                  valid);
  g_assert_cmpuint (valid, >=, 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bo/config", test_config);
  g_test_add_func ("/bo/default-acquisition", test_default_acquisition);
  g_test_add_func ("/bo/random-duel-not-against-ref", test_random_duel_not_against_ref);
  g_test_add_func ("/bo/questions-config", test_questions_config);
  g_test_add_func ("/bo/choice-loop", test_choice_loop);
  g_test_add_func ("/bo/choice-of-two-is-duel", test_choice_of_two_is_duel);
  g_test_add_func ("/bo/ties-loop", test_ties_loop);
  g_test_add_func ("/bo/qeubo-free-duel", test_qeubo_free_duel);
  g_test_add_func ("/bo/answers-preference", test_answers_preference);
  g_test_add_func ("/bo/answers-mixed-safe", test_answers_mixed_safe);
  g_test_add_func ("/bo/mixed-failed", test_mixed_failed);
  g_test_add_func ("/bo/initial-design-and-schedule", test_initial_design_and_schedule);
  g_test_add_func ("/bo/deterministic", test_deterministic);
  g_test_add_func ("/bo/fuzz", test_fuzz);
  g_test_add_func ("/bo/cancel-and-model", test_cancel_and_model);
  g_test_add_func ("/bo/refit", test_refit);
  g_test_add_func ("/bo/refit-variance-cap", test_refit_variance_cap);
  g_test_add_func ("/bo/resolution-no-repeats", test_resolution_no_repeats);
  g_test_add_func ("/bo/mixed-confident", test_mixed_confident);
  g_test_add_func ("/bo/acquisition-closed-form", test_acquisition_closed_form);
  /* /slow/: thorough cases, run by the slow suite (tests/meson.build). */
  g_test_add_func ("/slow/bo/beats-random", test_beats_random);
  g_test_add_func ("/bo/acquisition-at", test_acquisition_at);
  g_test_add_func ("/bo/prob-valid", test_prob_valid);
  g_test_add_func ("/bo/two-gp/config", test_two_gp_config);
  g_test_add_func ("/bo/two-gp/runs", test_two_gp_runs);
  g_test_add_func ("/bo/two-gp/penalty", test_two_gp_penalty);
  g_test_add_func ("/bo/two-gp/beats-random", test_two_gp_beats_random);
  g_test_add_func ("/bo/two-gp-active/fuzz", test_two_gp_active_fuzz);
  g_test_add_func ("/bo/two-gp-active/plot-accessors", test_two_gp_active_plot_accessors);
  g_test_add_func ("/bo/active/answers", test_active_answers);
  g_test_add_func ("/slow/bo/active/beats-random", test_active_beats_random);
  g_test_add_func ("/bo/svgp-surrogate", test_svgp_surrogate);
  return g_test_run ();
}
