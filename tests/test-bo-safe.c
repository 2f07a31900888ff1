/* test-bo-safe.c — safe mode's SafeOpt rule (sg-bo.h, "Safe mode"): what
 * may be proposed (P(safe) at the level, one step from a measured safe
 * setting, new beyond the resolution, away from failures), the
 * hyperparameters the model uses and the refit's conservative choice,
 * failures and values below the threshold, the exhausted state, kinds,
 * and the plots' view of the rule. */
#include "sg-bo.h"
#include "sg-normal.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* A safe loop on a box of DIM coordinates [0, 10] with threshold 0, the
 * safe start at the centre, moderate effort. */
static void
safe_config (sg_bo_config *c, size_t dim)
{
  double lo[4] = { 0, 0, 0, 0 }, up[4] = { 10, 10, 10, 10 };
  g_assert_cmpint (sg_bo_config_default (c, dim, lo, up), ==, SG_OK);
  c->mode = SG_BO_SAFE;
  c->n_samples = 400;
  c->refit_until = c->refit_every = 0;
  c->refit.max_evals = 40;
  c->has_safe_start = 1;
  for (size_t j = 0; j < dim; j++)
    c->safe_start[j] = 5;
  g_assert_cmpint (sg_bo_config_check (c), ==, SG_OK);
}

static int
propose (sg_bo *bo, sg_bo_query *q)
{
  gsl_rng *rng = sg_bo_rng (bo);
  int status = sg_bo_propose (bo, rng, NULL, q);
  sg_rng_free (rng);
  return status;
}

/* A smooth safe function on [0, 10]^d: a bump of 3 at 7 (in each
 * coordinate), 1 at the start, unsafe (below 0) beyond ~ 2.5 from the
 * bump's ridge. */
static double
bump (const double *x, size_t dim)
{
  double q = 0;
  for (size_t j = 0; j < dim; j++)
    q += (x[j] - 7) * (x[j] - 7);
  return 4 * exp (-q / 18) - 1.2;
}

/* The configuration's defaults and checks: the SafeOpt rule at 0.95,
 * the level in [0.5, 1) (the penalty rule keeps [0, 1]), names. */
static void
test_config (void)
{
  sg_bo_config c;
  safe_config (&c, 1);
  g_assert_cmpint (c.safe_rule, ==, SG_BO_SAFE_SAFEOPT);
  g_assert_cmpfloat (c.safe_probability, ==, 0.95);
  c.safe_probability = 0.4;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.safe_probability = 1;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.safe_rule = SG_BO_SAFE_PENALTY;
  c.safe_probability = 0.4;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  c.safe_rule = (sg_bo_safe_rule) 7;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  sg_bo_safe_rule r;
  g_assert_cmpstr (sg_bo_safe_rule_name (SG_BO_SAFE_SAFEOPT), ==, "safeopt");
  g_assert_cmpint (sg_bo_safe_rule_parse ("penalty", &r), ==, SG_OK);
  g_assert_cmpint (r, ==, SG_BO_SAFE_PENALTY);
  g_assert_cmpint (sg_bo_safe_rule_parse ("bold", &r), ==, SG_EINVAL);
  sg_bo_config_clear (&c);
  /* the resolution the rule uses: configured, at least half an integer
   * step and 0.5 % of a continuous range, none for levels */
  safe_config (&c, 3);
  c.resolution[0] = 0.5;
  g_assert_cmpint (sg_bo_config_set_kind (&c, 1, SG_DIM_INTEGER), ==, SG_OK);
  g_assert_cmpint (sg_bo_config_set_kind (&c, 2, SG_DIM_CATEGORICAL), ==, SG_OK);
  g_assert_cmpfloat (sg_bo_safe_resolution (&c, 0), ==, 0.5);
  g_assert_cmpfloat (sg_bo_safe_resolution (&c, 1), ==, 0.5);
  g_assert_cmpfloat (sg_bo_safe_resolution (&c, 2), ==, 0);
  c.resolution[0] = 0;
  g_assert_cmpfloat (sg_bo_safe_resolution (&c, 0), ==, 0.05);
  sg_bo_config_clear (&c);
}

/* Runs the rule for N answers on BUMP in DIM dimensions and checks every
 * proposal: shown P(safe) at least the level and equal to
 * sg_bo_prob_valid_at there; farther than the resolution from every
 * measured setting in some coordinate; within one lengthscale (the
 * model's) of a measured safe setting; the acquisition curve's value at
 * the proposal is the proposal's. Returns the number of unsafe answers. */
static int
run_checked (sg_bo *bo, size_t dim, size_t n)
{
  const sg_bo_config *c = sg_bo_get_config (bo);
  int unsafe = 0;
  for (size_t it = 0; it < n; it++)
    {
      sg_bo_query q;
      g_assert_cmpint (propose (bo, &q), ==, SG_OK);
      g_assert_cmpint (q.kind, ==, SG_BO_QUERY_VALUE);
      if (q.safe_exhausted)
        break;
      if (!q.initial)
        {
          sg_bo_safe_info info;
          g_assert_cmpint (sg_bo_safe_last (bo, &info), ==, SG_OK);
          g_assert_cmpfloat (q.prob_safe, >=, c->safe_probability);
          g_assert_true (q.safe_role == SG_BO_SAFE_ROLE_EXPANDER
                         || q.safe_role == SG_BO_SAFE_ROLE_MAXIMISER);
          double p, a;
          g_assert_cmpint (sg_bo_prob_valid_at (bo, q.x, 1, NULL, &p), ==, SG_OK);
          g_assert_cmpfloat (fabs (p - q.prob_safe), <, 1e-12);
          if (q.safe_role == SG_BO_SAFE_ROLE_MAXIMISER)
            {
              g_assert_cmpint (sg_bo_acquisition_at (bo, q.x, 1, NULL, &a), ==, SG_OK);
              g_assert_cmpfloat (fabs (a - q.acquisition), <, 1e-9 * (1 + fabs (a)));
            }
          const sg_data *d = sg_bo_data (bo);
          double nearest = INFINITY;
          for (size_t i = 0; i < d->n_inputs; i++)
            {
              const double *y = d->X + i * dim;
              size_t far = 0;
              double s = 0;
              for (size_t j = 0; j < dim; j++)
                {
                  far += fabs (q.x[j] - y[j]) > sg_bo_safe_resolution (c, j);
                  s += (q.x[j] - y[j]) * (q.x[j] - y[j])
                       / (info.lengthscales[j] * info.lengthscales[j]);
                }
              g_assert_cmpuint (far, >, 0);
              if (bump (y, dim) >= c->threshold)
                nearest = fmin (nearest, sqrt (s));
            }
          g_assert_cmpfloat (nearest, <=, 1 + 1e-9);
        }
      double v = bump (q.x, dim);
      unsafe += v < c->threshold;
      g_assert_cmpint (v >= c->threshold ? sg_bo_answer_value (bo, q.x, v)
                                         : sg_bo_answer_invalid (bo, q.x), ==, SG_OK);
    }
  return unsafe;
}

static void
test_proposals (void)
{
  for (size_t dim = 1; dim <= 2; dim++)
    {
      sg_bo_config c;
      sg_bo *bo = NULL;
      safe_config (&c, dim);
      c.refit_every = 4;
      c.seed = 3 + dim;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      sg_bo_config_clear (&c);
      int unsafe = 0;
      for (size_t k = 0; k < 12; k++)
        {
          if (sg_bo_refit_due (bo))
            g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
          unsafe += run_checked (bo, dim, 1);
        }
      double best[2];
      g_assert_true (sg_bo_best (bo, best));
      g_test_message ("%zu-D: %d unsafe of %zu, best value %.3f (optimum 2.8)", dim, unsafe,
                      sg_bo_n_answers (bo), bump (best, dim));
      /* the bump is what the model assumes, smooth and wide: 12 answers
       * go from the start (1.0) towards the top and never fail */
      g_assert_cmpint (unsafe, ==, 0);
      g_assert_cmpfloat (bump (best, dim), >, 1.5);
      sg_bo_free (bo);
    }
}

/* The model's hyperparameters (sg_bo_safe_last): the mean at h, the
 * variance at least the largest squared distance of a value from h, each
 * lengthscale at most max(5 % of the range, the measured settings'
 * spread); and the refit's conservative end, never beyond those bounds. */
static void
test_hyperparameters (void)
{
  sg_bo_config c;
  sg_bo *bo = NULL;
  safe_config (&c, 2);
  c.threshold = 1;
  c.prior.kernel.variance = 0.5;
  c.prior.kernel.lengthscales[0] = 8;    /* longer than the data span */
  c.prior.kernel.lengthscales[1] = 0.4;  /* shorter than its cap */
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_bo_config_clear (&c);
  double x0[2] = { 5, 5 }, x1[2] = { 8, 5 };
  g_assert_cmpint (sg_bo_answer_value (bo, x0, 4), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, x1, 3.9), ==, SG_OK);
  sg_bo_query q;
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  sg_bo_safe_info info;
  g_assert_cmpint (sg_bo_safe_last (bo, &info), ==, SG_OK);
  g_assert_cmpfloat (info.mean, ==, 1);
  g_assert_true (info.adjusted & SG_BO_SAFE_MEAN_AT_THRESHOLD);
  g_assert_cmpfloat (info.variance, ==, 9);   /* (4 - 1)^2 */
  g_assert_true (info.adjusted & SG_BO_SAFE_VARIANCE_RAISED);
  g_assert_cmpfloat (info.variance_floor, ==, 9);
  g_assert_true (info.capped[0]);
  g_assert_cmpfloat (info.lengthscale_cap[0], ==, 3);    /* the spread */
  g_assert_cmpfloat (info.lengthscales[0], ==, 3);
  g_assert_false (info.capped[1]);
  g_assert_cmpfloat (info.lengthscale_cap[1], ==, 0.5);  /* 5 % of 10 */
  g_assert_cmpfloat (info.lengthscales[1], ==, 0.4);

  /* the refit: mean at h, variance above the floor, lengthscales within
   * their caps, and the conservative end recorded */
  sg_bo_safe_fit fit;
  g_assert_cmpint (sg_bo_safe_last_fit (bo, &fit), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_refit (bo, NULL, NULL, NULL), ==, SG_OK);
  g_assert_cmpint (sg_bo_safe_last_fit (bo, &fit), ==, SG_OK);
  const sg_hyper *h = sg_bo_get_hyper (bo);
  g_assert_cmpfloat (h->mean, ==, 1);
  g_assert_cmpfloat (h->kernel.variance, >=, 9);
  for (size_t j = 0; j < 2; j++)
    {
      g_test_message ("lengthscale %zu: fitted %.3f, kept %.3f (%s)", j, fit.fitted[j],
                      h->kernel.lengthscales[j], fit.shortened[j] ? "shortened" : "as fitted");
      g_assert_cmpfloat (h->kernel.lengthscales[j], <=, fit.fitted[j]);
      g_assert_cmpfloat (h->kernel.lengthscales[j], <=, info.lengthscale_cap[j] * (1 + 1e-9));
      g_assert_true (!fit.shortened[j] || h->kernel.lengthscales[j] < fit.fitted[j]);
    }
  /* set_hyper forgets the fit's story */
  g_assert_cmpint (sg_bo_set_hyper (bo, h), ==, SG_OK);
  g_assert_cmpint (sg_bo_safe_last_fit (bo, &fit), ==, SG_EINVAL);
  sg_bo_free (bo);
}

/* A failure and a value below the threshold both shrink the safe set at
 * once: P(safe) at the failed setting falls below the level, the value
 * below h is a plain measurement (not eq. 40's valid factor), never x_r,
 * and the next proposal keeps away from both (beyond the resolution). */
static void
test_failures (void)
{
  sg_bo_config c;
  sg_bo *bo = NULL;
  safe_config (&c, 1);
  c.resolution[0] = 0.1;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_bo_config_clear (&c);
  double x0 = 5, x1 = 6;
  g_assert_cmpint (sg_bo_answer_value (bo, &x0, 1.0), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, &x1, 1.2), ==, SG_OK);
  sg_bo_query q;
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  g_assert_false (q.safe_exhausted);
  double first = q.x[0], p_before, p_after;
  g_assert_cmpint (sg_bo_prob_valid_at (bo, &first, 1, NULL, &p_before), ==, SG_OK);
  g_assert_cmpfloat (p_before, >=, 0.95);
  /* it fails */
  g_assert_cmpint (sg_bo_answer_invalid (bo, &first), ==, SG_OK);
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  g_assert_cmpint (sg_bo_prob_valid_at (bo, &first, 1, NULL, &p_after), ==, SG_OK);
  g_test_message ("failed at %.3f: P(safe) %.3f -> %.3f; next %.3f", first, p_before, p_after,
                  q.x[0]);
  /* out of the safe set at once (the failure is a probit row with the
   * measurement's noise: f may still lie just above h there) */
  g_assert_cmpfloat (p_after, <, 0.95);
  g_assert_cmpfloat (p_after, <, p_before - 0.2);
  g_assert_true (q.safe_exhausted || fabs (q.x[0] - first) > 0.1);

  /* a value below h on the other side */
  double below = first > 5.5 ? 4.6 : 6.4;
  double p_below;
  g_assert_cmpint (sg_bo_answer_value (bo, &below, -0.5), ==, SG_OK);
  const sg_data *d = sg_bo_data (bo);
  g_assert_cmpint (d->obs[d->n_obs - 1].kind, ==, SG_OBS_NUMERIC);
  double best;
  g_assert_true (sg_bo_best (bo, &best));
  g_assert_cmpfloat (best, ==, x1);
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  g_assert_cmpint (sg_bo_prob_valid_at (bo, &below, 1, NULL, &p_below), ==, SG_OK);
  g_assert_cmpfloat (p_below, <, 0.05);  /* a value of -0.5, measured */
  g_assert_true (q.safe_exhausted || (fabs (q.x[0] - below) > 0.1 && fabs (q.x[0] - first) > 0.1));
  /* x_r measured below h gives way; failing everywhere leaves none */
  g_assert_cmpint (sg_bo_answer_value (bo, &x1, -0.2), ==, SG_OK);
  g_assert_true (sg_bo_best (bo, &best));
  g_assert_cmpfloat (best, ==, x0);
  g_assert_cmpint (sg_bo_answer_invalid (bo, &x0), ==, SG_OK);
  g_assert_false (sg_bo_best (bo, &best));
  g_assert_cmpint (sg_bo_undo (bo), ==, SG_OK);
  g_assert_true (sg_bo_best (bo, &best));
  g_assert_cmpfloat (best, ==, x0);
  sg_bo_free (bo);
}

/* The start barely above h between two failures one resolution away:
 * nothing new is safe at 95 %, the query says so and offers x_r; the
 * same at a level of 0.5 still finds settings (P = 1/2 is the most a
 * setting beyond the data can have, so nearly nothing is left either,
 * but the tests of the rule run). */
static void
test_exhausted (void)
{
  sg_bo_config c;
  sg_bo *bo = NULL;
  safe_config (&c, 1);
  c.resolution[0] = 0.2;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_bo_config_clear (&c);
  double x0 = 5, a = 4.7, b = 5.3;
  g_assert_cmpint (sg_bo_answer_value (bo, &x0, 0.05), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_invalid (bo, &a), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_invalid (bo, &b), ==, SG_OK);
  sg_bo_query q;
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  g_assert_true (q.safe_exhausted);
  g_assert_cmpfloat (q.x[0], ==, x0);
  g_assert_true (isnan (q.acquisition));
  sg_bo_safe_info info;
  g_assert_cmpint (sg_bo_safe_last (bo, &info), ==, SG_OK);
  g_assert_cmpint (info.state, ==, SG_BO_SAFE_NOTHING_SAFE);
  g_assert_cmpuint (info.n_safe, ==, 0);
  g_assert_cmpint (info.role, ==, SG_BO_SAFE_ROLE_NONE);
  sg_bo_free (bo);
}

/* 001 sec. 5.2.3's setting (the bench's safe-gp1d: [-10, 10], h = 0,
 * variance 2, measurement sd 0.05, the start at 0 measured g0 above h):
 * with one value the model is a Gaussian process, so the safe set has a
 * closed form. P(f(z) >= 0) = Phi(m(z) / s(z)) with k(z) = 2 exp(-z^2 /
 * (2 l^2)), m = k g0 / (2 + sd^2), s^2 = 2 - k^2 / (2 + sd^2), largest
 * just beyond the resolution 0.1 (0.5 % of the range). The rule's
 * P(safe) at its proposal is that value (up to the validity factor of
 * eq. 40 at the start, a small tilt), and it stops at the start
 * exactly when the closed form leaves nothing new safe at 95 %: with the
 * paper's lengthscale 1.5 cut to its cap 1 (5 % of the range), the
 * draw's start 0.1018 (seed 1) is not enough for any lengthscale the
 * draws have (1 to 2), 0.2154 (seed 10) not for 1, 0.6 is. */
static double
closed_form_p_safe (double g0, double l, double z)
{
  double k = 2 * exp (-z * z / (2 * l * l)), d = 2 + 0.05 * 0.05;
  return sg_norm_cdf (k * g0 / d / sqrt (2 - k * k / d));
}

static void
test_closed_form_reach (void)
{
  static const struct { double g0; int exhausted; } cases[] = {
    { 0.1018, 1 }, { 0.2154, 1 }, { 0.6, 0 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double lo = -10, up = 10, x0 = 0, g0 = cases[i].g0;
      sg_bo_config c;
      sg_bo *bo = NULL;
      g_assert_cmpint (sg_bo_config_default (&c, 1, &lo, &up), ==, SG_OK);
      c.mode = SG_BO_SAFE;
      c.n_samples = 400;
      c.refit_until = c.refit_every = 0;
      c.has_safe_start = 1;
      c.safe_start[0] = 0;
      c.prior.kernel.variance = 2;
      c.prior.kernel.lengthscales[0] = 1.5;
      c.prior.noise.numeric_sd = 0.05;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      sg_bo_config_clear (&c);
      g_assert_cmpint (sg_bo_answer_value (bo, &x0, g0), ==, SG_OK);
      sg_bo_query q;
      sg_bo_safe_info info;
      g_assert_cmpint (propose (bo, &q), ==, SG_OK);
      g_assert_cmpint (sg_bo_safe_last (bo, &info), ==, SG_OK);
      g_assert_cmpfloat (info.lengthscales[0], ==, 1);   /* the cap */
      g_assert_cmpfloat (info.variance, ==, 2);
      double beyond = closed_form_p_safe (g0, 1, 0.1);
      g_test_message ("g0 = %g: P(safe) just beyond the resolution %.4f (l = 1), %.4f (l = 2); "
                      "%s", g0, beyond, closed_form_p_safe (g0, 2, 0.1),
                      q.safe_exhausted ? "exhausted" : "proposes");
      g_assert_cmpint (beyond < 0.95, ==, cases[i].exhausted);
      g_assert_cmpint (q.safe_exhausted, ==, cases[i].exhausted);
      if (g0 < 0.2)  /* no draw's lengthscale makes a new setting safe */
        g_assert_cmpfloat (closed_form_p_safe (g0, 2, 0.1), <, 0.95);
      if (!q.safe_exhausted)
        {
          /* one step, beyond the resolution, safe by the closed form */
          g_assert_cmpfloat (fabs (q.x[0]), >, 0.1);
          g_assert_cmpfloat (fabs (q.x[0]), <=, 1 + 1e-9);
          /* eq. 40's validity factor at the start tilts the Gaussian
           * slightly, and its latent samples are Monte Carlo */
          g_assert_cmpfloat (fabs (q.prob_safe - closed_form_p_safe (g0, 1, q.x[0])), <, 0.01);
          g_assert_cmpfloat (q.prob_safe, >=, 0.95);
        }
      sg_bo_free (bo);
    }
}

/* Kinds: an integer, a categorical and a periodic coordinate; every
 * proposal is a setting of the box (whole numbers, levels, [lower,
 * upper)), the integer one moves (a step of one is in reach) and no
 * setting repeats. */
static void
test_kinds (void)
{
  double lo[3] = { 0, 0, 0 }, up[3] = { 8, 2, 360 };
  sg_bo_config c;
  g_assert_cmpint (sg_bo_config_default (&c, 3, lo, up), ==, SG_OK);
  c.mode = SG_BO_SAFE;
  c.n_samples = 300;
  c.has_safe_start = 1;
  c.safe_start[0] = 3;
  c.safe_start[1] = 1;
  c.safe_start[2] = 350;
  c.resolution[2] = 5;
  g_assert_cmpint (sg_bo_config_set_kind (&c, 0, SG_DIM_INTEGER), ==, SG_OK);
  g_assert_cmpint (sg_bo_config_set_kind (&c, 1, SG_DIM_CATEGORICAL), ==, SG_OK);
  g_assert_cmpint (sg_bo_config_set_kind (&c, 2, SG_DIM_PERIODIC), ==, SG_OK);
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_bo_config_clear (&c);
  int integer_moved = 0;
  for (int it = 0; it < 10; it++)
    {
      sg_bo_query q;
      g_assert_cmpint (propose (bo, &q), ==, SG_OK);
      if (q.safe_exhausted)
        break;
      g_assert_cmpfloat (q.x[0], ==, round (q.x[0]));
      g_assert_cmpfloat (q.x[1], ==, round (q.x[1]));
      g_assert_true (q.x[2] >= 0 && q.x[2] < 360);
      integer_moved |= q.x[0] != 3;
      /* smooth in the integer and the angle, the same on every level */
      double d = sg_dim_distance (SG_DIM_PERIODIC, 360, q.x[2], 10);
      double v = 5 - 0.3 * (q.x[0] - 5) * (q.x[0] - 5) - d * d / 800;
      g_assert_cmpint (v >= 0 ? sg_bo_answer_value (bo, q.x, v) : sg_bo_answer_invalid (bo, q.x),
                       ==, SG_OK);
    }
  g_assert_true (integer_moved);
  sg_bo_free (bo);
}

/* The rule on the Laplace and EP Gaussians: they propose only what they
 * judge safe at the level, and the plots' P(safe) is the proposal's. The
 * two-GP baseline keeps the penalty rule at the level (its classifier
 * alone cannot make a setting 95 % safe from one valid label). */
static void
test_surrogates (void)
{
  static const sg_bo_surrogate kinds[] = { SG_BO_SURROGATE_LAPLACE, SG_BO_SURROGATE_EP };
  for (size_t k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      sg_bo_config c;
      sg_bo *bo = NULL;
      safe_config (&c, 1);
      c.surrogate = kinds[k];
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      sg_bo_config_clear (&c);
      int unsafe = run_checked (bo, 1, 8);
      g_test_message ("%s: %d unsafe of %zu", sg_bo_surrogate_name (kinds[k]), unsafe,
                      sg_bo_n_answers (bo));
      g_assert_cmpuint (sg_bo_n_answers (bo), >=, 3);
      sg_bo_free (bo);
    }
  sg_bo_config c;
  sg_bo *bo = NULL;
  safe_config (&c, 1);
  c.surrogate = SG_BO_SURROGATE_TWO_GP;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_bo_config_clear (&c);
  double x0 = 5;
  g_assert_cmpint (sg_bo_answer_value (bo, &x0, 1.0), ==, SG_OK);
  sg_bo_query q;
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  sg_bo_acq_info acq;
  g_assert_cmpint (sg_bo_last_acquisition (bo, &acq), ==, SG_OK);
  g_assert_cmpstr (acq.name, ==, "safe UCB");
  sg_bo_free (bo);
}

/* The penalty rule is paper 001's as published: the safe UCB, P(safe)
 * the fraction of samples, no SafeOpt record. */
static void
test_penalty_rule (void)
{
  sg_bo_config c;
  sg_bo *bo = NULL;
  safe_config (&c, 1);
  c.safe_rule = SG_BO_SAFE_PENALTY;
  c.safe_probability = 0.7;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  sg_bo_config_clear (&c);
  double x0 = 5;
  g_assert_cmpint (sg_bo_answer_value (bo, &x0, 1.0), ==, SG_OK);
  sg_bo_query q;
  g_assert_cmpint (propose (bo, &q), ==, SG_OK);
  g_assert_false (q.safe_exhausted);
  g_assert_cmpint (q.safe_role, ==, SG_BO_SAFE_ROLE_NONE);
  sg_bo_safe_info info;
  g_assert_cmpint (sg_bo_safe_last (bo, &info), ==, SG_EINVAL);
  sg_bo_acq_info acq;
  g_assert_cmpint (sg_bo_last_acquisition (bo, &acq), ==, SG_OK);
  g_assert_cmpstr (acq.name, ==, "safe UCB");
  sg_bo_free (bo);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bo-safe/config", test_config);
  g_test_add_func ("/bo-safe/proposals", test_proposals);
  g_test_add_func ("/bo-safe/hyperparameters", test_hyperparameters);
  g_test_add_func ("/bo-safe/failures", test_failures);
  g_test_add_func ("/bo-safe/exhausted", test_exhausted);
  g_test_add_func ("/bo-safe/closed-form-reach", test_closed_form_reach);
  g_test_add_func ("/bo-safe/kinds", test_kinds);
  g_test_add_func ("/bo-safe/surrogates", test_surrogates);
  g_test_add_func ("/bo-safe/penalty-rule", test_penalty_rule);
  return g_test_run ();
}
