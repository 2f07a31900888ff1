/* test-answers.c — ties, best-of-k choices, rankings, confidence and side
 * bias (sg-data.h) against references that do not use the lowering.
 *
 *  - posterior mean, sd and log evidence of the exact SkewGP against
 *    tensor-product quadrature over 3 latent values, where each answer's
 *    probability is computed from the utility model itself (u = f + e per
 *    option shown): a tie as a difference of two normal CDFs, a choice as
 *    a 1-D integral over the chosen option's noise, a ranking of three as
 *    a 1-D integral over the middle option's utility;
 *  - a choice of two lowers to exactly the rows of a duel; "normal"
 *    confidence to those of no confidence; side bias 0 to those of no
 *    recorded side;
 *  - a tie's probability goes to 0 with its margin, linearly;
 *  - bad answers are refused and leave the data set unchanged;
 *  - Laplace and EP: confidence scales the noise exactly; ties and
 *    correlated rows are refused;
 *  - the exact evidence recovers a simulated person's tie margin and side
 *    bias (sg_fit with the new groups free).
 */
#include "sg-data.h"
#include "sg-ep.h"
#include "sg-fit.h"
#include "sg-kernel.h"
#include "sg-laplace.h"
#include "sg-linalg.h"
#include "sg-mvn.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <glib.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

/* ---- the utility model, from its definition ------------------------------ */

/* Side bias of option J of answer O. */
static double
bias (const sg_obs *o, size_t j, const sg_noise *noise)
{
  return o->shown_first == j ? noise->side_bias : 0;
}

static double
option_sd (const sg_obs *o, const sg_noise *noise)
{
  double c = o->confidence == SG_CONFIDENCE_WEAK ? noise->weak_scale
             : o->confidence == SG_CONFIDENCE_STRONG ? noise->strong_scale : 1;
  return c * noise->probit_sd;
}

/* int phi(z) g(z) dz by the trapezoid rule on [-9, 9] (exponentially
 * accurate for these smooth, Gaussian-weighted integrands). */
#define INNER 241
static double
gauss_average (double (*g) (double z, const void *ctx), const void *ctx)
{
  const double R = 9, h = 2 * R / (INNER - 1);
  double acc = 0;
  for (size_t i = 0; i < INNER; i++)
    {
      double z = -R + h * (double) i;
      acc += sg_norm_pdf (z) * g (z, ctx);
    }
  return acc * h;
}

typedef struct {
  const double *u;   /* mean utilities f + bias of the options */
  size_t k;
  double sd;
} opts_ctx;

/* P(u_0 > u_j for all j | e_0 = sd z) */
static double
choice_given (double z, const void *ctx)
{
  const opts_ctx *c = ctx;
  double p = 1;
  for (size_t j = 1; j < c->k; j++)
    p *= sg_norm_cdf ((c->u[0] - c->u[j] + c->sd * z) / c->sd);
  return p;
}

/* P(u_0 > u_1 > u_2 | u_1 = mean + sd z) */
static double
ranking3_given (double z, const void *ctx)
{
  const opts_ctx *c = ctx;
  double u1 = c->u[1] + c->sd * z;
  return sg_norm_cdf ((c->u[0] - u1) / c->sd) * sg_norm_cdf ((u1 - c->u[2]) / c->sd);
}

/* log P(answers | f) for DATA at latent values F (one per input). */
static double
answers_loglik (const sg_data *data, const sg_noise *noise, const double *f)
{
  double sum = 0;
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      double sd = option_sd (o, noise), u[8];
      switch (o->kind)
        {
        case SG_OBS_PREFERENCE:
          sum += sg_norm_logcdf ((f[o->a] + bias (o, 0, noise) - f[o->b] - bias (o, 1, noise)
                                  - (o->tie_offered ? noise->tie_margin : 0))
                                 / (M_SQRT2 * sd));
          break;
        case SG_OBS_TIE:
          {
            double d = f[o->a] - f[o->b], t = noise->tie_margin, r = M_SQRT2 * sd;
            sum += log (sg_norm_cdf ((t - d) / r) - sg_norm_cdf ((-t - d) / r));
            break;
          }
        case SG_OBS_CHOICE:
        case SG_OBS_RANKING:
          {
            g_assert_cmpuint (o->count, <=, 8);
            for (size_t j = 0; j < o->count; j++)
              u[j] = f[data->options[o->first + j]] + bias (o, j, noise);
            opts_ctx c = { u, o->count, sd };
            if (o->kind == SG_OBS_RANKING)
              g_assert_cmpuint (o->count, ==, 3);
            sum += log (gauss_average (o->kind == SG_OBS_CHOICE ? choice_given
                                                                 : ranking3_given, &c));
            break;
          }
        default:
          g_assert_not_reached ();
        }
    }
  return sum;
}

/* ---- quadrature over the GP prior ----------------------------------------- */

typedef struct {
  double log_ml;
  double mean[3], sd[3];
} quad_result;

/* f = L z, z on a G^n trapezoid grid over [-7, 7]^n, n <= 3. */
static quad_result
quadrature (const sg_kernel *k, const sg_data *data, const sg_noise *noise)
{
  size_t n = data->n_inputs;
  g_assert_cmpuint (n, <=, 3);
  double K[9], L[9];
  sg_kernel_matrix (k, data->X, n, data->X, n, K);
  g_assert_cmpint (sg_cholesky (K, n, 0, L, NULL), ==, SG_OK);
  enum { G = 41 };
  const double R = 7, h = 2 * R / (G - 1);
  size_t total = 1;
  for (size_t i = 0; i < n; i++)
    total *= G;
  double S0 = 0, S1[3] = { 0 }, S2[3] = { 0 };
  for (size_t idx = 0; idx < total; idx++)
    {
      double z[3], f[3], logw = 0;
      size_t rem = idx;
      for (size_t i = 0; i < n; i++)
        {
          size_t g = rem % G;
          rem /= G;
          z[i] = -R + h * (double) g;
          logw += log (h) + sg_norm_logpdf (z[i]);
        }
      for (size_t i = 0; i < n; i++)
        {
          f[i] = 0;
          for (size_t j = 0; j <= i; j++)
            f[i] += L[i * n + j] * z[j];
        }
      double w = exp (logw + answers_loglik (data, noise, f));
      S0 += w;
      for (size_t i = 0; i < n; i++)
        {
          S1[i] += w * f[i];
          S2[i] += w * f[i] * f[i];
        }
    }
  quad_result r = { .log_ml = log (S0) };
  for (size_t i = 0; i < n; i++)
    {
      r.mean[i] = S1[i] / S0;
      r.sd[i] = sqrt (S2[i] / S0 - r.mean[i] * r.mean[i]);
    }
  return r;
}

static void
unit_kernel (sg_kernel *k)
{
  sg_kernel_init (k, SG_KERNEL_RBF, 1, 1.0, 0.8);
}

static void
test_noise (sg_noise *noise)
{
  sg_noise_default (noise);
  noise->probit_sd = 0.5;
  noise->tie_margin = 0.3;
  noise->side_bias = 0.4;
}

/* The exact posterior of DATA against quadrature: log evidence to the
 * quadrature's accuracy, mean and sd to 4.5 Monte Carlo standard errors
 * (sd / sqrt(ESS)). */
static void
check_against_quadrature (const sg_data *data, const sg_noise *noise)
{
  sg_kernel k = { 0 };
  unit_kernel (&k);
  quad_result ref = quadrature (&k, data, noise);

  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (data, noise, &lik), ==, SG_OK);
  sg_skewgp_posterior *post = NULL;
  g_assert_cmpint (sg_skewgp_posterior_new (&prior, data->X, &lik, &post), ==, SG_OK);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 1 << 16;
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_skewgp_posterior_log_evidence (post, NULL, &mo, &ev), ==, SG_OK);
  g_test_message ("log evidence %.8f (error %.2g), quadrature %.8f",
                  ev.log_ml, ev.error, ref.log_ml);
  g_assert_cmpfloat (fabs (ev.log_ml - ref.log_ml), <, 1e-5 + 3 * ev.error);

  const size_t N = 20000;
  gsl_rng *rng = sg_rng_new (7, 0);
  sg_skewgp_samples *s = NULL;
  g_assert_cmpint (sg_skewgp_sample (post, N, NULL, rng, NULL, &s), ==, SG_OK);
  double ess;
  g_assert_cmpint (sg_skewgp_samples_ess (s, &ess), ==, SG_OK);
  size_t n = data->n_inputs;
  sg_point_summary sum[3];
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS;
  g_assert_cmpint (sg_skewgp_summarize (post, s, data->X, n, &so, NULL, sum), ==, SG_OK);
  for (size_t i = 0; i < n; i++)
    {
      double se = ref.sd[i] / sqrt (ess);
      g_test_message ("f%zu: mean %.4f / %.4f, sd %.4f / %.4f (se %.4f)", i,
                      sum[i].mean, ref.mean[i], sum[i].sd, ref.sd[i], se);
      g_assert_cmpfloat (fabs (sum[i].mean - ref.mean[i]), <, 4.5 * se);
      g_assert_cmpfloat (fabs (sum[i].sd - ref.sd[i]), <, 4.5 * se);
    }
  sg_skewgp_samples_free (s);
  sg_rng_free (rng);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_kernel_clear (&k);
}

static const double X0[] = { 0.0 }, X1[] = { 0.5 }, X2[] = { 1.2 };

static void
test_tie_quadrature (void)
{
  sg_noise noise;
  test_noise (&noise);
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_tie (&data, X0, X1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_duel (&data, X1, X2, SG_CONFIDENCE_NONE, 1, 1), ==, SG_OK);
  check_against_quadrature (&data, &noise);
  sg_data_clear (&data);
}

static void
test_choice_quadrature (void)
{
  sg_noise noise;
  test_noise (&noise);
  sg_data data;
  sg_data_init (&data, 1);
  double others[] = { X0[0], X2[0] };
  /* X1 best of three, strong, X2 (the second other) shown first */
  g_assert_cmpint (sg_data_add_choice (&data, X1, others, 2, SG_CONFIDENCE_STRONG, 2),
                   ==, SG_OK);
  double others2[] = { X1[0] };
  g_assert_cmpint (sg_data_add_choice (&data, X0, others2, 1, SG_CONFIDENCE_WEAK, 0),
                   ==, SG_OK);
  check_against_quadrature (&data, &noise);
  sg_data_clear (&data);
}

static void
test_ranking_quadrature (void)
{
  sg_noise noise;
  test_noise (&noise);
  sg_data data;
  sg_data_init (&data, 1);
  double order[] = { X2[0], X0[0], X1[0] };
  g_assert_cmpint (sg_data_add_ranking (&data, order, 3), ==, SG_OK);
  check_against_quadrature (&data, &noise);
  sg_data_clear (&data);
}

/* ---- identities of the lowering -------------------------------------------- */

static void
assert_same_lowering (const sg_data *a, const sg_noise *na,
                      const sg_data *b, const sg_noise *nb)
{
  sg_likelihood la, lb;
  g_assert_cmpint (sg_likelihood_build (a, na, &la), ==, SG_OK);
  g_assert_cmpint (sg_likelihood_build (b, nb, &lb), ==, SG_OK);
  g_assert_cmpuint (la.n, ==, lb.n);
  g_assert_cmpuint (la.m_probit, ==, lb.m_probit);
  g_assert_cmpuint (la.n_blocks, ==, lb.n_blocks);
  size_t m = la.m_probit;
  g_assert_true (memcmp (la.W, lb.W, m * la.n * sizeof *la.W) == 0);
  g_assert_true (memcmp (la.z, lb.z, m * sizeof *la.z) == 0);
  g_assert_true (memcmp (la.sigma, lb.sigma, m * sizeof *la.sigma) == 0);
  g_assert_true (memcmp (la.upper, lb.upper, m * sizeof *la.upper) == 0);
  g_assert_true (memcmp (la.block_cov, lb.block_cov,
                         la.cov_start[la.n_blocks] * sizeof *la.block_cov) == 0);
  sg_likelihood_clear (&la);
  sg_likelihood_clear (&lb);
}

static double
exact_log_evidence (const sg_data *data, const sg_noise *noise)
{
  sg_kernel k = { 0 };
  unit_kernel (&k);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (data, noise, &lik), ==, SG_OK);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_skewgp_log_evidence (&prior, data->X, &lik, NULL, &mo, &ev), ==, SG_OK);
  sg_likelihood_clear (&lik);
  sg_kernel_clear (&k);
  return ev.log_ml;
}

static void
test_choice_of_two_is_duel (void)
{
  sg_noise noise;
  test_noise (&noise);
  for (int conf = SG_CONFIDENCE_NONE; conf <= SG_CONFIDENCE_STRONG; conf++)
    for (size_t first = 0; first <= 2; first++)
      {
        size_t sf = first == 2 ? SG_SHOWN_NONE : first;
        sg_data duel, choice;
        sg_data_init (&duel, 1);
        sg_data_init (&choice, 1);
        g_assert_cmpint (sg_data_add_duel (&duel, X0, X1, conf, sf, 0), ==, SG_OK);
        g_assert_cmpint (sg_data_add_choice (&choice, X0, X1, 1, conf, sf), ==, SG_OK);
        assert_same_lowering (&duel, &noise, &choice, &noise);
        g_assert_cmpfloat (exact_log_evidence (&duel, &noise), ==,
                           exact_log_evidence (&choice, &noise));
        sg_data_clear (&duel);
        sg_data_clear (&choice);
      }
}

static void
test_neutral_settings (void)
{
  sg_noise noise, zero_bias;
  test_noise (&noise);
  zero_bias = noise;
  zero_bias.side_bias = 0;
  double others[] = { X1[0], X2[0] };
  sg_data plain, normal, sided;
  sg_data_init (&plain, 1);
  sg_data_init (&normal, 1);
  sg_data_init (&sided, 1);
  g_assert_cmpint (sg_data_add_preference (&plain, X0, X1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&plain, X2, others, 1, SG_CONFIDENCE_NONE,
                                       SG_SHOWN_NONE), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&plain, X0, others, 2, SG_CONFIDENCE_NONE,
                                       SG_SHOWN_NONE), ==, SG_OK);
  /* "normal" confidence is the reference level */
  g_assert_cmpint (sg_data_add_duel (&normal, X0, X1, SG_CONFIDENCE_NORMAL, SG_SHOWN_NONE, 0),
                   ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&normal, X2, others, 1, SG_CONFIDENCE_NORMAL,
                                       SG_SHOWN_NONE), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&normal, X0, others, 2, SG_CONFIDENCE_NORMAL,
                                       SG_SHOWN_NONE), ==, SG_OK);
  assert_same_lowering (&plain, &noise, &normal, &noise);
  /* a recorded side with beta = 0 */
  g_assert_cmpint (sg_data_add_duel (&sided, X0, X1, SG_CONFIDENCE_NONE, 1, 0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&sided, X2, others, 1, SG_CONFIDENCE_NONE, 0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&sided, X0, others, 2, SG_CONFIDENCE_NONE, 2), ==, SG_OK);
  assert_same_lowering (&plain, &zero_bias, &sided, &zero_bias);
  /* ... and beta != 0 moves exactly the rows of the side shown first */
  sg_likelihood lp, ls;
  g_assert_cmpint (sg_likelihood_build (&plain, &noise, &lp), ==, SG_OK);
  g_assert_cmpint (sg_likelihood_build (&sided, &noise, &ls), ==, SG_OK);
  double shift[] = { -0.4, 0.4, 0, -0.4 };
  g_assert_cmpuint (ls.m_probit, ==, 4);
  for (size_t r = 0; r < 4; r++)
    g_assert_cmpfloat (fabs (ls.z[r] - lp.z[r] - shift[r]), <, 1e-15);
  sg_likelihood_clear (&lp);
  sg_likelihood_clear (&ls);
  sg_data_clear (&plain);
  sg_data_clear (&normal);
  sg_data_clear (&sided);
}

/* A rating on a 1..k scale: the words are the 3-level scale exactly, and
 * the ratings of a 5-level scale step the sd by equal factors between
 * weak_scale and strong_scale (sqrt(weak), 1, sqrt(strong) inside). */
static void
test_confidence_ratings (void)
{
  sg_confidence c = SG_CONFIDENCE_NONE;
  g_assert_cmpint (sg_confidence_rating (1, 1, &c), ==, SG_EINVAL);
  g_assert_cmpint (sg_confidence_rating (1, SG_CONFIDENCE_MAX_LEVELS + 1, &c), ==, SG_EINVAL);
  g_assert_cmpint (sg_confidence_rating (0, 5, &c), ==, SG_EINVAL);
  g_assert_cmpint (sg_confidence_rating (6, 5, &c), ==, SG_EINVAL);
  g_assert_cmpint (c, ==, SG_CONFIDENCE_NONE);
  g_assert_false (sg_confidence_rating_of (SG_CONFIDENCE_STRONG, NULL, NULL));
  for (unsigned k = 2; k <= SG_CONFIDENCE_MAX_LEVELS; k++)
    for (unsigned r = 1; r <= k; r++)
      {
        unsigned r2 = 0, k2 = 0;
        char name[4];
        g_assert_cmpint (sg_confidence_rating (r, k, &c), ==, SG_OK);
        g_assert_true (sg_confidence_rating_of (c, &r2, &k2));
        g_assert_cmpuint (r2, ==, r);
        g_assert_cmpuint (k2, ==, k);
        g_snprintf (name, sizeof name, "%u", r);
        g_assert_cmpstr (sg_confidence_name (c), ==, name);
      }

  sg_noise noise;
  test_noise (&noise);
  const sg_confidence words[] = { SG_CONFIDENCE_WEAK, SG_CONFIDENCE_NORMAL, SG_CONFIDENCE_STRONG };
  sg_data by_words, by_rating;
  sg_data_init (&by_words, 1);
  sg_data_init (&by_rating, 1);
  for (unsigned r = 1; r <= 3; r++)
    {
      g_assert_cmpint (sg_confidence_rating (r, 3, &c), ==, SG_OK);
      g_assert_cmpint (sg_data_add_duel (&by_words, X0, X1, words[r - 1], SG_SHOWN_NONE, 0),
                       ==, SG_OK);
      g_assert_cmpint (sg_data_add_duel (&by_rating, X0, X1, c, SG_SHOWN_NONE, 0), ==, SG_OK);
    }
  assert_same_lowering (&by_words, &noise, &by_rating, &noise);

  sg_data five;
  sg_data_init (&five, 1);
  for (unsigned r = 1; r <= 5; r++)
    {
      g_assert_cmpint (sg_confidence_rating (r, 5, &c), ==, SG_OK);
      g_assert_cmpint (sg_data_add_duel (&five, X0, X1, c, SG_SHOWN_NONE, 0), ==, SG_OK);
    }
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (&five, &noise, &lik), ==, SG_OK);
  const double factor[] = { noise.weak_scale, sqrt (noise.weak_scale), 1,
                            sqrt (noise.strong_scale), noise.strong_scale };
  for (size_t r = 0; r < 5; r++)
    g_assert_cmpfloat (fabs (lik.sigma[r] / lik.sigma[2] - factor[r]), <, 1e-14);
  sg_likelihood_clear (&lik);
  /* a rating below the middle needs a usable weak_scale */
  noise.weak_scale = 0;
  g_assert_cmpint (sg_likelihood_build (&five, &noise, &lik), ==, SG_EINVAL);
  sg_data_clear (&by_words);
  sg_data_clear (&by_rating);
  sg_data_clear (&five);
}

/* The choice and ranking blocks are s^2 (I + 11^T) and s^2 tridiag(-1,2,-1). */
static void
test_block_covariances (void)
{
  sg_noise noise;
  test_noise (&noise);
  double s2 = noise.probit_sd * noise.probit_sd;
  double pts[] = { 0.1, 0.2, 0.3, 0.4 };
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_choice (&data, pts, pts + 1, 3, SG_CONFIDENCE_WEAK,
                                       SG_SHOWN_NONE), ==, SG_OK);
  g_assert_cmpint (sg_data_add_ranking (&data, pts, 4), ==, SG_OK);
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (&data, &noise, &lik), ==, SG_OK);
  g_assert_cmpuint (lik.n_blocks, ==, 2);
  g_assert_false (sg_likelihood_independent (&lik));
  g_assert_false (sg_likelihood_has_intervals (&lik));
  double w2 = s2 * noise.weak_scale * noise.weak_scale;
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 3; j++)
      {
        double c = lik.block_cov[lik.cov_start[0] + i * 3 + j];
        double r = lik.block_cov[lik.cov_start[1] + i * 3 + j];
        g_assert_cmpfloat (fabs (c - w2 * (1.0 + (i == j))), <, 1e-14);
        double t = i == j ? 2 : (i + 1 == j || j + 1 == i ? -1 : 0);
        g_assert_cmpfloat (fabs (r - s2 * t), <, 1e-14);
      }
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
}

/* P(tie) ~ 2 delta p(f(a) - f(b) = 0) as delta -> 0. */
static void
test_tie_margin_to_zero (void)
{
  sg_noise noise;
  test_noise (&noise);
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_tie (&data, X0, X2), ==, SG_OK);
  double p_prev = 1;
  for (int e = 1; e <= 6; e++)
    {
      noise.tie_margin = pow (10, -e);
      double p = exp (exact_log_evidence (&data, &noise));
      g_test_message ("delta %g: P(tie) %.6g", noise.tie_margin, p);
      g_assert_cmpfloat (p, <, p_prev);
      if (e >= 3)   /* linear in delta */
        g_assert_cmpfloat (fabs (p_prev / p - 10), <, 0.01);
      p_prev = p;
    }
  g_assert_cmpfloat (p_prev, <, 1e-6);
  noise.tie_margin = 0;
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (&data, &noise, &lik), ==, SG_EINVAL);
  sg_data_clear (&data);
}

/* ---- bad answers ------------------------------------------------------------ */

static void
test_bad_answers (void)
{
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_preference (&data, X0, X1), ==, SG_OK);
  double same[] = { X1[0], X1[0] }, nan_pt[] = { NAN };
  g_assert_cmpint (sg_data_add_choice (&data, X0, X1, 0, 0, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_choice (&data, X0, X0, 1, 0, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_choice (&data, X2, same, 2, 0, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_choice (&data, X2, X1, 1, 0, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_choice (&data, X2, X1, 1, (sg_confidence) 9,
                                       SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_choice (&data, X2, nan_pt, 1, 0, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_ranking (&data, X2, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_ranking (&data, same, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_tie (&data, X2, X2), ==, SG_EINVAL);
  g_assert_cmpint (sg_data_add_duel (&data, X2, X1, SG_CONFIDENCE_NONE, 2, 0), ==, SG_EINVAL);
  g_assert_cmpuint (data.n_obs, ==, 1);
  g_assert_cmpuint (data.n_inputs, ==, 2);
  g_assert_cmpuint (data.n_options, ==, 0);

  sg_confidence c = SG_CONFIDENCE_NONE;
  g_assert_cmpint (sg_confidence_parse ("sure", &c), ==, SG_EINVAL);
  g_assert_cmpint (c, ==, SG_CONFIDENCE_NONE);
  g_assert_cmpint (sg_confidence_parse ("strong", &c), ==, SG_OK);
  g_assert_cmpint (c, ==, SG_CONFIDENCE_STRONG);
  g_assert_cmpstr (sg_confidence_name (SG_CONFIDENCE_WEAK), ==, "weak");
  sg_obs_kind kind;
  g_assert_cmpint (sg_obs_kind_parse ("ranking", &kind), ==, SG_OK);
  g_assert_cmpint (kind, ==, SG_OBS_RANKING);

  /* a classic noise struct (later fields zero) still lowers classic data */
  sg_noise classic = { 1, 1 };
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (&data, &classic, &lik), ==, SG_OK);
  sg_likelihood_clear (&lik);
  g_assert_cmpint (sg_data_add_duel (&data, X1, X2, SG_CONFIDENCE_WEAK, SG_SHOWN_NONE, 0), ==, SG_OK);
  g_assert_cmpint (sg_likelihood_build (&data, &classic, &lik), ==, SG_EINVAL);
  sg_data_clear (&data);
}

static void
test_copy_and_undo (void)
{
  sg_data data, copy;
  sg_data_init (&data, 1);
  double pts[] = { 0.1, 0.2, 0.3 };
  g_assert_cmpint (sg_data_add_preference (&data, X0, X1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_ranking (&data, pts, 3), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&data, X0, pts, 2, 0, SG_SHOWN_NONE), ==, SG_OK);
  g_assert_cmpuint (sg_data_n_probit_rows (&data), ==, 1 + 2 + 2);
  g_assert_cmpint (sg_data_copy (&copy, &data), ==, SG_OK);
  g_assert_cmpuint (copy.n_options, ==, 6);
  g_assert_true (memcmp (copy.options, data.options, 6 * sizeof *data.options) == 0);
  g_assert_cmpint (sg_data_remove_last (&data), ==, SG_OK);
  g_assert_cmpuint (data.n_options, ==, 3);
  g_assert_cmpuint (data.n_inputs, ==, 5);
  g_assert_cmpint (sg_data_remove_last (&data), ==, SG_OK);
  g_assert_cmpuint (data.n_options, ==, 0);
  g_assert_cmpuint (data.n_inputs, ==, 2);   /* the ranking's points went */
  sg_data_clear (&data);
  sg_data_clear (&copy);
}

/* ---- Laplace and EP --------------------------------------------------------- */

static void
approx_evidences (const sg_data *data, const sg_noise *noise, int *status,
                  double *lap, double *ep)
{
  sg_approx_model model = { .prior_mean = 0, .noise = *noise, .link = SG_LINK_PROBIT };
  unit_kernel (&model.kernel);
  status[0] = sg_laplace_log_evidence (&model, data, NULL, NULL, NULL, lap, NULL);
  status[1] = sg_ep_log_evidence (&model, data, NULL, NULL, NULL, ep, NULL);
  sg_kernel_clear (&model.kernel);
}

static void
test_approximations (void)
{
  sg_noise noise, doubled;
  test_noise (&noise);
  doubled = noise;
  doubled.probit_sd = noise.probit_sd * noise.weak_scale;
  sg_data weak, plain;
  sg_data_init (&weak, 1);
  sg_data_init (&plain, 1);
  g_assert_cmpint (sg_data_add_duel (&weak, X0, X1, SG_CONFIDENCE_WEAK, SG_SHOWN_NONE, 0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&weak, X2, X1, 1, SG_CONFIDENCE_WEAK, SG_SHOWN_NONE), ==, SG_OK);
  g_assert_cmpint (sg_data_add_preference (&plain, X0, X1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_preference (&plain, X2, X1), ==, SG_OK);
  int st[2];
  double lw, ew, lp, ep;
  approx_evidences (&weak, &noise, st, &lw, &ew);
  g_assert_cmpint (st[0], ==, SG_OK);
  g_assert_cmpint (st[1], ==, SG_OK);
  approx_evidences (&plain, &doubled, st, &lp, &ep);
  g_assert_cmpfloat (fabs (lw - lp), <, 1e-12);
  g_assert_cmpfloat (fabs (ew - ep), <, 1e-12);
  /* the side bias moves the duel's offset: a bias towards the winner makes
   * the answer likelier */
  sg_data sided;
  sg_data_init (&sided, 1);
  g_assert_cmpint (sg_data_add_duel (&sided, X0, X1, SG_CONFIDENCE_WEAK, 0, 0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&sided, X2, X1, 1, SG_CONFIDENCE_WEAK, 0), ==, SG_OK);
  double ls, es;
  approx_evidences (&sided, &noise, st, &ls, &es);
  g_assert_cmpint (st[0], ==, SG_OK);
  g_assert_cmpfloat (ls, >, lw + 0.05);
  g_assert_cmpfloat (es, >, ew + 0.05);

  /* ties and correlated rows are refused, not approximated */
  double pts[] = { 0.1, 0.2, 0.3 };
  sg_data tie, choice, ranking;
  sg_data_init (&tie, 1);
  sg_data_init (&choice, 1);
  sg_data_init (&ranking, 1);
  g_assert_cmpint (sg_data_add_tie (&tie, X0, X1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_choice (&choice, pts, pts + 1, 2, 0, SG_SHOWN_NONE), ==, SG_OK);
  g_assert_cmpint (sg_data_add_ranking (&ranking, pts, 3), ==, SG_OK);
  const sg_data *refused[] = { &tie, &choice, &ranking };
  for (size_t i = 0; i < 3; i++)
    {
      double a = 7, b = 7;
      approx_evidences (refused[i], &noise, st, &a, &b);
      g_assert_cmpint (st[0], ==, SG_EINVAL);
      g_assert_cmpint (st[1], ==, SG_EINVAL);
      g_assert_cmpfloat (a, ==, 7);
      g_assert_cmpfloat (b, ==, 7);
    }
  sg_data *all[] = { &weak, &plain, &sided, &tie, &choice, &ranking };
  for (size_t i = 0; i < 6; i++)
    sg_data_clear (all[i]);
}

/* ---- fitting the answer model --------------------------------------------- */

static double
truth (double x)
{
  return sin (6 * x);
}

/* A simulated person: utility truth(x) + N(0, s^2) per option shown, plus
 * BETA for the option shown first (chosen at random); a tie when the two
 * utilities differ by less than DELTA. */
static void
simulate_answers (size_t n, double s, double beta, double delta, uint64_t seed,
                  sg_data *data)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  sg_data_init (data, 1);
  for (size_t i = 0; i < n; i++)
    {
      double x[2] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      size_t first = gsl_rng_uniform_int (rng, 2);
      double u[2];
      for (size_t j = 0; j < 2; j++)
        u[j] = truth (x[j]) + s * gsl_ran_gaussian (rng, 1) + (j == first ? beta : 0);
      int status;
      if (fabs (u[0] - u[1]) < delta)
        status = sg_data_add_tie (data, &x[0], &x[1]);
      else
        {
          size_t w = u[0] > u[1] ? 0 : 1;
          status = sg_data_add_duel (data, &x[w], &x[1 - w], SG_CONFIDENCE_NONE,
                                     first == w ? 0 : 1, 1);
        }
      g_assert_cmpint (status, ==, SG_OK);
    }
  sg_rng_free (rng);
}

static void
test_fit_margin_and_bias (void)
{
  const double s = 0.2, beta = 0.8, delta = 0.4;
  sg_data data;
  simulate_answers (80, s, beta, delta, 11, &data);
  size_t ties = 0;
  for (size_t i = 0; i < data.n_obs; i++)
    ties += data.obs[i].kind == SG_OBS_TIE;
  g_test_message ("%zu ties of %zu answers", ties, data.n_obs);
  g_assert_cmpuint (ties, >, 5);

  sg_hyper h = { .s = 0 };
  sg_kernel_init (&h.kernel, SG_KERNEL_RBF, 1, 1.0, 0.25);
  sg_noise_default (&h.noise);
  h.noise.probit_sd = s;
  sg_fit_spec spec;
  g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_TIE_MARGIN | SG_FIT_SIDE_BIAS, data.dim, &data),
                   ==, SG_OK);
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, &data);
  ctx.workspace = sg_mvn_workspace_new (sg_data_n_probit_rows (&data));
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 1;
  opt.max_evals = 120;
  sg_fit_result res;
  double start;
  g_assert_cmpint (sg_evidence_eval (&h, &ctx, &start, NULL), ==, SG_OK);
  g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, NULL, NULL, &h, &res),
                   ==, SG_OK);
  g_test_message ("fitted tie margin %.3f (true %.2f), side bias %.3f (true %.2f), "
                  "log evidence %.3f (start %.3f)", h.noise.tie_margin, delta,
                  h.noise.side_bias, beta, res.log_evidence, start);
  g_assert_cmpfloat (res.log_evidence, >, start);
  g_assert_cmpfloat (fabs (log (h.noise.tie_margin / delta)), <, log (2.0));
  g_assert_cmpfloat (fabs (h.noise.side_bias - beta), <, 0.4);
  sg_mvn_workspace_free (ctx.workspace);
  sg_data_clear (&data);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/answers/tie-quadrature", test_tie_quadrature);
  g_test_add_func ("/answers/choice-quadrature", test_choice_quadrature);
  g_test_add_func ("/answers/ranking-quadrature", test_ranking_quadrature);
  g_test_add_func ("/answers/choice-of-two-is-duel", test_choice_of_two_is_duel);
  g_test_add_func ("/answers/neutral-settings", test_neutral_settings);
  g_test_add_func ("/answers/confidence-ratings", test_confidence_ratings);
  g_test_add_func ("/answers/block-covariances", test_block_covariances);
  g_test_add_func ("/answers/tie-margin-to-zero", test_tie_margin_to_zero);
  g_test_add_func ("/answers/bad-answers", test_bad_answers);
  g_test_add_func ("/answers/copy-and-undo", test_copy_and_undo);
  g_test_add_func ("/answers/approximations", test_approximations);
  g_test_add_func ("/answers/fit-margin-and-bias", test_fit_margin_and_bias);
  return g_test_run ();
}
