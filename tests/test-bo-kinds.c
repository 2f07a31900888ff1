/* test-bo-kinds.c — proposals and answers with integer, periodic and
 * categorical coordinates (sg_bo_config.kind). */
#include "sg-bo.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* A small loop on the box [LO, UP] (dim 2) with coordinate kinds KINDS.
 * C is zeroed or a configuration of its own, released first. */
static void
kinds_config (sg_bo_config *c, sg_bo_mode mode, const double *lo, const double *up,
              const sg_dim_kind *kinds)
{
  sg_bo_config_clear (c);
  g_assert_cmpint (sg_bo_config_default (c, 2, lo, up), ==, SG_OK);
  c->mode = mode;
  c->n_initial = 2;
  c->n_samples = 64;
  c->sampling.tmvn.burn_in = 50;
  c->sampling.tmvn.thin = 2;
  c->search.n_candidates = 32;
  c->search.local_maxeval = 20;
  c->search.n_starts = 1;
  c->refit_until = 0;
  c->refit_every = 0;
  for (size_t j = 0; j < 2; j++)
    g_assert_cmpint (sg_bo_config_set_kind (c, j, kinds[j]), ==, SG_OK);
}

/* The utility the simulated person has: peaked at 7 in coordinate 0 and
 * at 350 degrees in a periodic coordinate 1 (or level 2 when it is
 * categorical). */
static double
utility (const double *x, sg_dim_kind kind1)
{
  double u = -0.1 * (x[0] - 7) * (x[0] - 7);
  if (kind1 == SG_DIM_CATEGORICAL)
    return u + (x[1] == 2 ? 1.0 : 0.0);
  return u + cos ((x[1] - 350) * M_PI / 180);
}

/* Every option of Q is a setting of the box: whole numbers in the integer
 * and categorical coordinates, periodic ones in [lower, upper). */
static void
assert_on_settings (const sg_bo_config *c, const sg_bo_query *q)
{
  for (size_t i = 0; i < q->n_options; i++)
    for (size_t j = 0; j < c->dim; j++)
      {
        double v = q->options[i][j];
        g_assert_cmpfloat (v, >=, c->lower[j]);
        g_assert_cmpfloat (v, <=, c->upper[j]);
        if (c->kind[j] == SG_DIM_INTEGER || c->kind[j] == SG_DIM_CATEGORICAL)
          g_assert_cmpfloat (v, ==, round (v));
        if (c->kind[j] == SG_DIM_PERIODIC)
          g_assert_cmpfloat (v, <, c->upper[j]);
      }
}

/* Runs N duels (or safe-mode values) answered by the utility; returns the
 * loop. Every proposal, from the random initial design to the model's
 * (candidates and BOBYQA refinement), is checked. */
static sg_bo *
run (const sg_bo_config *c, size_t n)
{
  size_t n_model = 0;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (c, &bo), ==, SG_OK);
  for (size_t it = 0; it < n; it++)
    {
      sg_bo_query q;
      gsl_rng *rng = sg_bo_rng (bo);
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      assert_on_settings (c, &q);
      n_model += !q.random;
      if (q.kind == SG_BO_QUERY_DUEL)
        g_assert_cmpint (sg_bo_answer_duel (bo, q.x, q.x_ref,
                                            utility (q.x, c->kind[1])
                                              >= utility (q.x_ref, c->kind[1])), ==, SG_OK);
      else
        g_assert_cmpint (sg_bo_answer_value (bo, q.x, utility (q.x, c->kind[1])), ==, SG_OK);
    }
  /* the model proposed after the initial design */
  g_assert_cmpuint (n_model, >=, n / 2);
  return bo;
}

/* An integer and a periodic coordinate: every proposal integral / wrapped,
 * and the loop finds the optimum's neighbourhood across the wrap (350
 * degrees is 10 degrees from 0: the periodic kernel shares what 0..20
 * teaches). */
static void
test_integer_periodic (void)
{
  double lo[2] = { 0, 0 }, up[2] = { 12, 360 };
  sg_dim_kind kinds[2] = { SG_DIM_INTEGER, SG_DIM_PERIODIC };
  sg_bo_config c = { 0 };
  kinds_config (&c, SG_BO_PREFERENCE, lo, up, kinds);
  sg_bo *bo = run (&c, 14);
  /* the kernels carry the kinds and the period */
  const sg_hyper *h = sg_bo_get_hyper (bo);
  g_assert_cmpint (h->kernel.kinds[1], ==, SG_DIM_PERIODIC);
  g_assert_cmpfloat (h->kernel.periods[1], ==, 360);
  double best[2];
  g_assert_true (sg_bo_best (bo, best));
  g_test_message ("best after 14 duels: %g, %g (utility %g, max 1)", best[0], best[1],
                  utility (best, SG_DIM_PERIODIC));
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* A categorical coordinate: only its levels are asked. */
static void
test_categorical_levels (void)
{
  double lo[2] = { 0, 0 }, up[2] = { 12, 3 };
  sg_dim_kind kinds[2] = { SG_DIM_LINEAR, SG_DIM_CATEGORICAL };
  sg_bo_config c = { 0 };
  for (int mode = 0; mode < 2; mode++)
    {
      kinds_config (&c, mode ? SG_BO_MIXED : SG_BO_PREFERENCE, lo, up, kinds);
      /* the categorical prior lengthscale: 1, not 0.2 x the level count */
      g_assert_cmpfloat (c.prior.kernel.lengthscales[1], ==, 1.0);
      sg_bo *bo = run (&c, 12);
      sg_bo_free (bo);
    }
  /* a choice of 3 options with qEUBO, all free */
  kinds_config (&c, SG_BO_PREFERENCE, lo, up, kinds);
  c.question = SG_BO_QUESTION_CHOICE;
  c.n_options = 3;
  c.acquisition = SG_BO_ACQ_QEUBO;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  for (int it = 0; it < 6; it++)
    {
      sg_bo_query q;
      gsl_rng *rng = sg_bo_rng (bo);
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      assert_on_settings (&c, &q);
      size_t best = 0;
      for (size_t i = 1; i < q.n_options; i++)
        if (utility (q.options[i], SG_DIM_CATEGORICAL) > utility (q.options[best], SG_DIM_CATEGORICAL))
          best = i;
      double packed[3 * 2];
      for (size_t i = 0; i < q.n_options; i++)
        memcpy (packed + 2 * i, q.options[i], 2 * sizeof *packed);
      g_assert_cmpint (sg_bo_answer_choice (bo, packed, q.n_options, best,
                                            SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_OK);
    }
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* The default duel rule, HB-UCB, on integer, periodic and categorical
 * coordinates: its believer's maximiser is rounded and wrapped like every
 * proposal (run checks each one), and it asks past the initial design. */
static void
test_hb_ucb_kinds (void)
{
  double lo[2] = { 0, 0 }, up_periodic[2] = { 12, 360 }, up_levels[2] = { 12, 3 };
  sg_dim_kind periodic[2] = { SG_DIM_INTEGER, SG_DIM_PERIODIC };
  sg_dim_kind levels[2] = { SG_DIM_INTEGER, SG_DIM_CATEGORICAL };
  sg_bo_config c = { 0 };
  for (int k = 0; k < 2; k++)
    {
      kinds_config (&c, SG_BO_PREFERENCE, lo, k ? up_levels : up_periodic,
                    k ? levels : periodic);
      c.acquisition = sg_bo_default_acquisition (c.mode, c.question, c.surrogate, c.dim);
      g_assert_cmpint (c.acquisition, ==, SG_BO_ACQ_HB_UCB);
      sg_bo *bo = run (&c, 12);
      sg_bo_free (bo);
    }
  sg_bo_config_clear (&c);
}

/* Safe mode with an integer coordinate: the safe start must be a whole
 * number, and the model's proposals are. */
static void
test_safe_integer (void)
{
  double lo[2] = { 0, 0 }, up[2] = { 12, 360 };
  sg_dim_kind kinds[2] = { SG_DIM_INTEGER, SG_DIM_PERIODIC };
  sg_bo_config c = { 0 };
  kinds_config (&c, SG_BO_SAFE, lo, up, kinds);
  c.threshold = -100;
  c.has_safe_start = 1;
  c.safe_start[0] = 6.5;
  c.safe_start[1] = 10;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.safe_start[0] = 6;
  sg_bo *bo = run (&c, 6);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* Answers off the settings are refused and change nothing; bad kinds are
 * refused by the configuration. */
static void
test_refusals (void)
{
  double lo[2] = { 0, 0 }, up[2] = { 12, 3 };
  sg_dim_kind kinds[2] = { SG_DIM_INTEGER, SG_DIM_CATEGORICAL };
  sg_bo_config c = { 0 };
  kinds_config (&c, SG_BO_MIXED, lo, up, kinds);
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double a[2] = { 3.5, 1 }, b[2] = { 4, 1.2 }, ok1[2] = { 3, 1 }, ok2[2] = { 4, 2 };
  g_assert_cmpint (sg_bo_answer_duel (bo, a, ok2, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_duel (bo, ok1, b, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_value (bo, a, 1.0), ==, SG_EINVAL);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, 0);
  g_assert_cmpint (sg_bo_answer_duel (bo, ok1, ok2, 1), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, ok2, 1.0), ==, SG_OK);
  sg_bo_free (bo);

  /* a periodic coordinate's lower and upper are one setting: no duel */
  {
    double plo[2] = { 0, 0 }, pup[2] = { 360, 1 };
    sg_dim_kind pk[2] = { SG_DIM_PERIODIC, SG_DIM_LINEAR };
    double x0[2] = { 0, 0.5 }, x360[2] = { 360, 0.5 };
    kinds_config (&c, SG_BO_PREFERENCE, plo, pup, pk);
    g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
    g_assert_cmpint (sg_bo_answer_duel (bo, x0, x360, 1), ==, SG_EINVAL);
    g_assert_cmpint (sg_bo_answer_value (bo, x360, 1), ==, SG_EINVAL);  /* preference mode */
    sg_bo_free (bo);
  }

  /* whole-number bounds for integer and categorical coordinates */
  double frac[2] = { 0.5, 0 };
  sg_bo_config_clear (&c);
  g_assert_cmpint (sg_bo_config_default (&c, 2, frac, up), ==, SG_OK);
  g_assert_cmpint (sg_bo_config_set_kind (&c, 0, SG_DIM_INTEGER), ==, SG_EINVAL);
  g_assert_cmpint (c.kind[0], ==, SG_DIM_LINEAR);
  g_assert_cmpint (sg_bo_config_set_kind (&c, 0, (sg_dim_kind) 9), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_config_set_kind (&c, 2, SG_DIM_LINEAR), ==, SG_EINVAL);
  c.kind[0] = SG_DIM_INTEGER;   /* set directly: the check refuses it */
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  /* no resolution for levels; a periodic one below half the period */
  kinds_config (&c, SG_BO_PREFERENCE, lo, up, kinds);
  c.resolution[1] = 0.5;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  sg_dim_kind per[2] = { SG_DIM_PERIODIC, SG_DIM_LINEAR };
  kinds_config (&c, SG_BO_PREFERENCE, lo, up, per);
  c.resolution[0] = 6;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.resolution[0] = 5;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  /* more options than settings: no question could show distinct ones */
  double lo1[2] = { 0, 0 }, up1[2] = { 1, 1 };
  sg_dim_kind cat2[2] = { SG_DIM_CATEGORICAL, SG_DIM_INTEGER };
  kinds_config (&c, SG_BO_PREFERENCE, lo1, up1, cat2);
  c.question = SG_BO_QUESTION_CHOICE;
  c.acquisition = SG_BO_ACQ_QEUBO;
  c.n_options = 4;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  c.n_options = 5;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  sg_bo_config_clear (&c);
}

/* A periodic coordinate with a resolution: no proposal repeats a setting
 * within it, measured the short way round (a question at 359 after one
 * at 1 would repeat it). */
static void
test_periodic_resolution (void)
{
  double lo[2] = { 0, 0 }, up[2] = { 12, 360 };
  sg_dim_kind kinds[2] = { SG_DIM_INTEGER, SG_DIM_PERIODIC };
  sg_bo_config c = { 0 };
  kinds_config (&c, SG_BO_SAFE, lo, up, kinds);
  c.threshold = -100;
  c.has_safe_start = 1;
  c.safe_start[0] = 7;
  c.safe_start[1] = 355;
  c.resolution[0] = 0.5;
  c.resolution[1] = 15;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double asked[10][2];
  for (size_t it = 0; it < G_N_ELEMENTS (asked); it++)
    {
      sg_bo_query q;
      gsl_rng *rng = sg_bo_rng (bo);
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      for (size_t i = 0; i < it; i++)
        g_assert_true (q.x[0] != asked[i][0]
                       || sg_dim_distance (SG_DIM_PERIODIC, 360, q.x[1], asked[i][1]) > 15);
      memcpy (asked[it], q.x, sizeof asked[it]);
      g_assert_cmpint (sg_bo_answer_value (bo, q.x, utility (q.x, SG_DIM_PERIODIC)), ==, SG_OK);
    }
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bo-kinds/integer-periodic", test_integer_periodic);
  g_test_add_func ("/bo-kinds/categorical-levels", test_categorical_levels);
  g_test_add_func ("/bo-kinds/hb-ucb", test_hb_ucb_kinds);
  g_test_add_func ("/bo-kinds/safe-integer", test_safe_integer);
  g_test_add_func ("/bo-kinds/refusals", test_refusals);
  g_test_add_func ("/bo-kinds/periodic-resolution", test_periodic_resolution);
  return g_test_run ();
}
