/* test-ep.c — expectation propagation (sg-ep.h), and where the Gaussian
 * approximations are exact or not, against brute-force integration of the
 * exact posterior of one or two latent values.
 *
 * Brute force: the posterior of f (1 or 2 latent values) is
 * prod_k factor_k(f) N(f; m, K) / Z. In whitened coordinates f = m + Lz
 * the trapezoid rule on [-10, 10] (1-D, spacing 1e-3) or [-8, 8]^2 (2-D,
 * spacing 0.01) integrates this smooth, Gaussian-decaying integrand to far
 * below 1e-9 (the trapezoid rule is spectrally accurate for such
 * integrands; halving the spacing and widening the box changed every
 * moment and log Z by < 2e-11, the round-off of summing 2.6 million terms,
 * checked when the test was written). So where EP must be exact — a
 * single non-Gaussian site: its first two moments and its evidence — the
 * tolerance is 1e-8.
 *
 * Where the approximations must differ (skewed posteriors: one or two
 * one-sided labels, one preference, small probit noise), the exact mean
 * is shifted away from the mode, which is where Laplace centres its
 * Gaussian (002, R&W sec. 3.4; 000 sec. 7 shows these skews): the test
 * asserts the Laplace error is large and EP's is small: each threshold is
 * at most 2/3 of the Laplace error and at least 30 times the EP error
 * measured (both printed with g_test_message), and these are deterministic
 * computations, so the margins only have to absorb round-off.
 */
#include "gauss-fixtures.h"
#include "sg-common.h"
#include "sg-ep.h"
#include "sg-gaussian-post.h"
#include "sg-laplace.h"
#include "sg-linalg.h"
#include "sg-normal.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* ---- brute force ------------------------------------------------------ */

/* log of the product of non-Gaussian factors at the latent values f. */
typedef double (*log_factor_fn) (const double *f, const void *user);

typedef struct {
  double log_z;       /* log int prod factors N(f; m, K) df */
  double mean[2];
  double cov[4];
  double skew[2];     /* standardised third moments of each marginal */
} exact_moments;

static void
brute_force (size_t d, const double *m, const double *K, log_factor_fn lf,
             const void *user, exact_moments *out)
{
  double L[4];
  g_assert_cmpint (sg_cholesky (K, d, SG_CHOLESKY_MAX_JITTER, L, NULL), ==, SG_OK);
  double lim = d == 1 ? 10 : 8, h = d == 1 ? 1e-3 : 0.01;
  int n = (int) lround (2 * lim / h);
  /* first pass: the largest log integrand, for a stable exponent */
  double s0 = 0, s1[2] = { 0 }, s2[4] = { 0 }, s3[2] = { 0 }, shift = -INFINITY;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i <= n; i++)
      for (int j = 0; j <= (d == 1 ? 0 : n); j++)
        {
          double z[2] = { -lim + i * h, -lim + j * h }, f[2];
          f[0] = m[0] + L[0] * z[0];
          if (d == 2)
            f[1] = m[1] + L[2] * z[0] + L[3] * z[1];
          double lw = lf (f, user) - 0.5 * (z[0] * z[0] + (d == 2 ? z[1] * z[1] : 0));
          if (pass == 0)
            {
              shift = fmax (shift, lw);
              continue;
            }
          double w = exp (lw - shift);
          w *= (i == 0 || i == n) ? 0.5 : 1;
          w *= d == 2 && (j == 0 || j == n) ? 0.5 : 1;
          s0 += w;
          for (size_t a = 0; a < d; a++)
            {
              s1[a] += w * f[a];
              s3[a] += w * f[a] * f[a] * f[a];
              for (size_t b = 0; b < d; b++)
                s2[a * d + b] += w * f[a] * f[b];
            }
        }
  /* the whitening Jacobian |L| cancels against the N(f; m, K) normaliser */
  double cell = pow (h, (double) d);
  out->log_z = shift + log (s0 * cell) - 0.5 * d * log (2 * M_PI);
  for (size_t a = 0; a < d; a++)
    out->mean[a] = s1[a] / s0;
  for (size_t a = 0; a < d; a++)
    for (size_t b = 0; b < d; b++)
      out->cov[a * d + b] = s2[a * d + b] / s0 - out->mean[a] * out->mean[b];
  for (size_t a = 0; a < d; a++)
    {
      double mu = out->mean[a], v = out->cov[a * d + a];
      double m3 = s3[a] / s0 - 3 * mu * v - mu * mu * mu;
      out->skew[a] = m3 / pow (v, 1.5);
    }
}

/* ---- models ---------------------------------------------------------- */

typedef struct {
  double sigma[3];   /* probit scales */
  double h;          /* threshold */
  double y, r;       /* a numeric observation of f[0] */
} factors;

static double
lf_binary_pos (const double *f, const void *user)       /* Phi(f0 / s) */
{
  const factors *p = user;
  return sg_norm_logcdf (f[0] / p->sigma[0]);
}

static double
lf_two_binary_pos (const double *f, const void *user)   /* Phi(f0/s) Phi(f1/s) */
{
  const factors *p = user;
  return sg_norm_logcdf (f[0] / p->sigma[0]) + sg_norm_logcdf (f[1] / p->sigma[1]);
}

static double
lf_preference (const double *f, const void *user)       /* Phi((f0 - f1)/(sqrt2 s)) */
{
  const factors *p = user;
  return sg_norm_logcdf ((f[0] - f[1]) / (M_SQRT2 * p->sigma[0]));
}

static double
lf_numeric_invalid (const double *f, const void *user)  /* N(y; f0, r) Phi((h - f1)/s) */
{
  const factors *p = user;
  double e = p->y - f[0];
  return -0.5 * log (2 * M_PI * p->r) - 0.5 * e * e / p->r
         + sg_norm_logcdf ((p->h - f[1]) / p->sigma[0]);
}

static void
make_model (sg_approx_model *model, double variance, double lengthscale,
            double prior_mean, double numeric_sd, double probit_sd)
{
  memset (model, 0, sizeof *model);
  g_assert_cmpint (sg_kernel_init (&model->kernel, SG_KERNEL_RBF, 1, variance,
                                   lengthscale), ==, SG_OK);
  model->prior_mean = prior_mean;
  model->noise.numeric_sd = numeric_sd;
  model->noise.probit_sd = probit_sd;
  model->link = SG_LINK_PROBIT;
}

/* Joint mean / covariance of the approximation at two 1-D inputs. */
static void
joint2 (const sg_gauss_post *post, double x0, double x1, double *mean, double *cov)
{
  double xs[2] = { x0, x1 };
  g_assert_cmpint (sg_gauss_post_joint (post, xs, 2, mean, cov), ==, SG_OK);
}

/* ---- EP is exact with a single non-Gaussian site ------------------------ */

static void
test_single_binary (void)
{
  sg_approx_model model;
  make_model (&model, 1.7, 0.8, 0.3, 1, 0.5);
  const double x0 = 0.2, x1 = 0.9;
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_binary (&data, &x0, 1), ==, SG_OK);
  sg_gauss_post post;
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, NULL, &post), ==, SG_OK);
  g_assert_cmpint (post.iterations, ==, 2);   /* one update, one confirming sweep */

  /* exact: f0 ~ N(0.3, 1.7) times Phi(f0 / 0.5); f1 | f0 is Gaussian */
  double m = 0.3, v = 1.7, k01 = sg_kernel_eval (&model.kernel, &x0, &x1);
  factors p = { .sigma = { 0.5 } };
  exact_moments ex;
  brute_force (1, &m, &v, lf_binary_pos, &p, &ex);
  double beta = k01 / v;
  double mean1 = m + beta * (ex.mean[0] - m);
  double var1 = 1.7 - beta * k01 + beta * beta * ex.cov[0];

  double mean[2], cov[4];
  joint2 (&post, x0, x1, mean, cov);
  g_test_message ("exact mean %.12f var %.12f log Z %.12f; EP %.12f %.12f %.12f",
                  ex.mean[0], ex.cov[0], ex.log_z, mean[0], cov[0], post.log_evidence);
  g_assert_cmpfloat_with_epsilon (mean[0], ex.mean[0], 1e-8);
  g_assert_cmpfloat_with_epsilon (cov[0], ex.cov[0], 1e-8);
  g_assert_cmpfloat_with_epsilon (mean[1], mean1, 1e-8);
  g_assert_cmpfloat_with_epsilon (cov[3], var1, 1e-8);
  g_assert_cmpfloat_with_epsilon (cov[1], beta * ex.cov[0], 1e-8);
  g_assert_cmpfloat_with_epsilon (post.log_evidence, ex.log_z, 1e-8);
  /* and the closed form of Z = E[Phi(f0 / s)] */
  g_assert_cmpfloat_with_epsilon (post.log_evidence,
                                  sg_norm_logcdf (0.3 / sqrt (0.25 + 1.7)), 1e-12);
  sg_gauss_post_clear (&post);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

static void
test_single_preference (void)
{
  sg_approx_model model;
  make_model (&model, 1.2, 0.5, -0.4, 1, 0.3);
  const double xa = -0.3, xb = 0.4;
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_preference (&data, &xa, &xb), ==, SG_OK);
  sg_gauss_post post;
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, NULL, &post), ==, SG_OK);
  double m[2] = { -0.4, -0.4 }, K[4];
  const double xx[2] = { xa, xb };
  sg_kernel_matrix (&model.kernel, xx, 2, xx, 2, K);
  factors p = { .sigma = { 0.3 } };
  exact_moments ex;
  brute_force (2, m, K, lf_preference, &p, &ex);
  double mean[2], cov[4];
  joint2 (&post, xa, xb, mean, cov);
  for (int i = 0; i < 2; i++)
    g_assert_cmpfloat_with_epsilon (mean[i], ex.mean[i], 1e-8);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (cov[i], ex.cov[i], 1e-8);
  g_assert_cmpfloat_with_epsilon (post.log_evidence, ex.log_z, 1e-8);
  sg_gauss_post_clear (&post);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

/* Safe-BO data: a measured value at xa, "failed" at xb (001 eq. 40). */
static void
test_numeric_and_invalid (void)
{
  sg_approx_model model;
  make_model (&model, 2.0, 0.7, 0.1, 0.4, 1.0);
  const double xa = 0.0, xb = 0.5, y = 0.9, h = 0.2;
  sg_data data;
  sg_data_init (&data, 1);
  g_assert_cmpint (sg_data_add_numeric (&data, &xa, y), ==, SG_OK);
  g_assert_cmpint (sg_data_add_invalid (&data, &xb, h), ==, SG_OK);
  sg_gauss_post post;
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, NULL, &post), ==, SG_OK);
  double m[2] = { 0.1, 0.1 }, K[4];
  const double xx[2] = { xa, xb };
  sg_kernel_matrix (&model.kernel, xx, 2, xx, 2, K);
  factors p = { .sigma = { 0.4 }, .h = h, .y = y, .r = 0.16 };
  exact_moments ex;
  brute_force (2, m, K, lf_numeric_invalid, &p, &ex);
  double mean[2], cov[4];
  joint2 (&post, xa, xb, mean, cov);
  for (int i = 0; i < 2; i++)
    g_assert_cmpfloat_with_epsilon (mean[i], ex.mean[i], 1e-8);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (cov[i], ex.cov[i], 1e-8);
  g_assert_cmpfloat_with_epsilon (post.log_evidence, ex.log_z, 1e-8);
  sg_gauss_post_clear (&post);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

/* Numeric rows only: EP and Laplace are both exact GP regression
 * (test-laplace checks Laplace against the textbook formulas). */
static void
test_gp_regression (void)
{
  sg_approx_model model;
  make_model (&model, 1.3, 0.6, 0.7, 0.3, 1.0);
  const double x[4] = { -1.0, -0.3, 0.2, 0.9 }, y[4] = { 0.1, 1.2, 0.8, -0.4 };
  sg_data data;
  sg_data_init (&data, 1);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (sg_data_add_numeric (&data, &x[i], y[i]), ==, SG_OK);
  sg_gauss_post ep, la;
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, NULL, &ep), ==, SG_OK);
  g_assert_cmpint (sg_laplace_posterior (&model, &data, NULL, NULL, NULL, &la), ==, SG_OK);
  g_assert_cmpint (ep.iterations, ==, 0);
  double m1[2], c1[4], m2[2], c2[4];
  joint2 (&ep, -0.5, 1.5, m1, c1);
  joint2 (&la, -0.5, 1.5, m2, c2);
  for (int i = 0; i < 2; i++)
    g_assert_cmpfloat_with_epsilon (m1[i], m2[i], 1e-12);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (c1[i], c2[i], 1e-12);
  g_assert_cmpfloat_with_epsilon (ep.log_evidence, la.log_evidence, 1e-11);
  sg_gauss_post_clear (&ep);
  sg_gauss_post_clear (&la);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

/* Nearly noise-free numeric values next to a duel (mixed BO with an exact
 * objective): both methods must interpolate the values. Their variance
 * there is at most the noise variance 1e-12; the mean is within a few
 * noise sds of y. (Treating numeric rows as sites with precision 1e12
 * instead of conditioning on them first gave means off by ~1e3 here.) */
static void
test_small_numeric_noise (void)
{
  sg_approx_model model;
  make_model (&model, 1.0, 0.7, 0.0, 1e-6, 0.2);
  const double x[5] = { -1.0, 0.0, 0.5, 1.0, 1.5 }, y[3] = { 0.0, 0.3, 0.6 };
  sg_data data;
  sg_data_init (&data, 1);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (sg_data_add_numeric (&data, &x[i], y[i]), ==, SG_OK);
  g_assert_cmpint (sg_data_add_preference (&data, &x[3], &x[4]), ==, SG_OK);
  sg_gauss_post post[2];
  g_assert_cmpint (sg_laplace_posterior (&model, &data, NULL, NULL, NULL, &post[0]), ==, SG_OK);
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, NULL, &post[1]), ==, SG_OK);
  for (int k = 0; k < 2; k++)
    {
      double mean[3], var[3];
      g_assert_cmpint (sg_gauss_post_predict (&post[k], x, 3, mean, var), ==, SG_OK);
      for (int i = 0; i < 3; i++)
        {
          g_assert_cmpfloat (fabs (mean[i] - y[i]), <, 5e-6);
          /* k - q^T q - V^T V cancels O(1) terms: ~1e-16 absolute slack */
          g_assert_cmpfloat (var[i], <=, 1e-12 + 1e-15);
        }
      g_assert_true (isfinite (post[k].log_evidence));
      sg_gauss_post_clear (&post[k]);
    }
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

/* ---- skewed posteriors: Laplace misplaces the mean, EP does not -------- */

typedef struct {
  double laplace_mean_err, ep_mean_err;   /* in exact posterior sd */
  double laplace_sd_ratio, ep_sd_ratio;   /* approximate sd / exact sd */
  double skew;
  double laplace_diff_err, ep_diff_err;   /* of f0 - f1, in its exact sd */
} skew_report;

static void
compare (const sg_approx_model *model, const sg_data *data, size_t d,
         const double *x, log_factor_fn lf, const factors *p, skew_report *rep)
{
  sg_gauss_post la, ep;
  g_assert_cmpint (sg_laplace_posterior (model, data, NULL, NULL, NULL, &la), ==, SG_OK);
  g_assert_cmpint (sg_ep_posterior (model, data, NULL, NULL, NULL, &ep), ==, SG_OK);
  double m[2] = { model->prior_mean, model->prior_mean }, K[4];
  sg_kernel_matrix (&model->kernel, x, d, x, d, K);
  exact_moments ex;
  brute_force (d, m, K, lf, p, &ex);
  double ml[2], vl[2], me[2], ve[2];
  g_assert_cmpint (sg_gauss_post_predict (&la, x, d, ml, vl), ==, SG_OK);
  g_assert_cmpint (sg_gauss_post_predict (&ep, x, d, me, ve), ==, SG_OK);
  memset (rep, 0, sizeof *rep);
  rep->laplace_sd_ratio = rep->ep_sd_ratio = 1;
  for (size_t a = 0; a < d; a++)
    {
      double sd = sqrt (ex.cov[a * d + a]);
      rep->laplace_mean_err = fmax (rep->laplace_mean_err, fabs (ml[a] - ex.mean[a]) / sd);
      rep->ep_mean_err = fmax (rep->ep_mean_err, fabs (me[a] - ex.mean[a]) / sd);
      rep->laplace_sd_ratio = fmin (rep->laplace_sd_ratio, sqrt (vl[a]) / sd);
      rep->ep_sd_ratio = fmin (rep->ep_sd_ratio, sqrt (ve[a]) / sd);
      rep->skew = fmax (rep->skew, fabs (ex.skew[a]));
    }
  if (d == 2)
    {
      double sd = sqrt (ex.cov[0] + ex.cov[3] - 2 * ex.cov[1]);
      double exact = ex.mean[0] - ex.mean[1];
      rep->laplace_diff_err = fabs (ml[0] - ml[1] - exact) / sd;
      rep->ep_diff_err = fabs (me[0] - me[1] - exact) / sd;
      g_test_message ("f0 - f1: mean error / sd: Laplace %.4f, EP %.2e",
                      rep->laplace_diff_err, rep->ep_diff_err);
    }
  g_test_message ("exact skewness %.3f; mean error / sd: Laplace %.4f, EP %.2e; "
                  "sd ratio: Laplace %.3f, EP %.4f; log Z exact %.5f Laplace %.5f EP %.5f",
                  rep->skew, rep->laplace_mean_err, rep->ep_mean_err,
                  rep->laplace_sd_ratio, rep->ep_sd_ratio, ex.log_z,
                  la.log_evidence, ep.log_evidence);
  sg_gauss_post_clear (&la);
  sg_gauss_post_clear (&ep);
}

static void
test_skewed (void)
{
  sg_approx_model model;
  skew_report rep;
  factors p = { .sigma = { 0.1, 0.1 } };

  /* one binary label, sharp probit: nearly a half-normal posterior, whose
   * mean is 0.8 sd from the mode. EP is exact (single site). */
  make_model (&model, 1.0, 0.5, 0.0, 1, 0.1);
  const double x1 = 0.0;
  sg_data one;
  sg_data_init (&one, 1);
  g_assert_cmpint (sg_data_add_binary (&one, &x1, 1), ==, SG_OK);
  compare (&model, &one, 1, &x1, lf_binary_pos, &p, &rep);
  g_assert_cmpfloat (rep.skew, >, 0.5);
  g_assert_cmpfloat (rep.laplace_mean_err, >, 0.5);
  g_assert_cmpfloat (rep.ep_mean_err, <, 1e-7);
  sg_data_clear (&one);

  /* two one-sided labels at correlated inputs: EP is no longer exact, but
   * close; Laplace is far off */
  const double x2[2] = { 0.0, 0.4 };
  sg_data two;
  sg_data_init (&two, 1);
  g_assert_cmpint (sg_data_add_binary (&two, &x2[0], 1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_binary (&two, &x2[1], 1), ==, SG_OK);
  compare (&model, &two, 2, x2, lf_two_binary_pos, &p, &rep);
  g_assert_cmpfloat (rep.skew, >, 0.3);
  g_assert_cmpfloat (rep.laplace_mean_err, >, 0.3);
  g_assert_cmpfloat (rep.ep_mean_err, <, 0.1);
  g_assert_cmpfloat (rep.ep_mean_err * 3, <, rep.laplace_mean_err);
  sg_data_clear (&two);

  /* a single preference with little noise */
  const double xp[2] = { -0.2, 0.3 };
  sg_data pref;
  sg_data_init (&pref, 1);
  g_assert_cmpint (sg_data_add_preference (&pref, &xp[0], &xp[1]), ==, SG_OK);
  p.sigma[0] = 0.1;
  compare (&model, &pref, 2, xp, lf_preference, &p, &rep);
  /* the skew is in the direction of the duel, f0 - f1 */
  g_assert_cmpfloat (rep.laplace_diff_err, >, 0.5);
  g_assert_cmpfloat (rep.ep_diff_err, <, 1e-7);
  g_assert_cmpfloat (rep.ep_mean_err, <, 1e-7);
  sg_data_clear (&pref);
  sg_kernel_clear (&model.kernel);
}

/* ---- gradient, damping, warm start, errors ---------------------------- */

static void
mixed_model (sg_approx_model *model)
{
  memset (model, 0, sizeof *model);
  g_assert_cmpint (sg_kernel_init (&model->kernel, SG_KERNEL_MATERN52, 2, 1.5, 0.7), ==, SG_OK);
  model->kernel.lengthscales[1] = 1.1;
  model->prior_mean = 0.2;
  model->noise.numeric_sd = 0.25;
  model->noise.probit_sd = 0.5;
}

/* Central differences with step 1e-5 in log hyperparameters; EP converged
 * to 1e-13 so the evidence is smooth to ~1e-13 and the difference quotient
 * accurate to ~1e-8. The analytic gradient is exact at the fixed point. */
static void
test_gradient (void)
{
  sg_data data;
  mixed_data (&data);
  sg_approx_model model;
  mixed_model (&model);
  sg_ep_options opt;
  sg_ep_options_default (&opt);
  opt.tol = 1e-13;
  opt.max_sweeps = 1000;
  double lz, grad[3], theta[3];
  g_assert_cmpint (sg_ep_log_evidence (&model, &data, &opt, NULL, NULL, &lz, grad), ==, SG_OK);
  sg_kernel_get_params (&model.kernel, theta);
  for (int p = 0; p < 3; p++)
    {
      const double h = 1e-5;
      double lp, lm, tp[3], tm[3];
      memcpy (tp, theta, sizeof tp);
      memcpy (tm, theta, sizeof tm);
      tp[p] += h;
      tm[p] -= h;
      sg_approx_model mp = model, mm = model;
      g_assert_cmpint (sg_kernel_copy (&mp.kernel, &model.kernel), ==, SG_OK);
      g_assert_cmpint (sg_kernel_copy (&mm.kernel, &model.kernel), ==, SG_OK);
      sg_kernel_set_params (&mp.kernel, tp);
      sg_kernel_set_params (&mm.kernel, tm);
      g_assert_cmpint (sg_ep_log_evidence (&mp, &data, &opt, NULL, NULL, &lp, NULL), ==, SG_OK);
      g_assert_cmpint (sg_ep_log_evidence (&mm, &data, &opt, NULL, NULL, &lm, NULL), ==, SG_OK);
      sg_kernel_clear (&mp.kernel);
      sg_kernel_clear (&mm.kernel);
      double fd = (lp - lm) / (2 * h);
      g_test_message ("d log Z_EP / d theta_%d: analytic %.10f, central difference %.10f",
                      p, grad[p], fd);
      g_assert_cmpfloat_with_epsilon (grad[p], fd, 1e-6 * (1 + fabs (fd)));
    }
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

static void
test_damping (void)
{
  sg_data data;
  mixed_data (&data);
  sg_approx_model model;
  mixed_model (&model);
  sg_ep_options plain;
  sg_ep_options_default (&plain);
  plain.tol = 1e-12;
  plain.max_sweeps = 1000;
  sg_ep_options damped = plain;
  damped.damping = 0.5;
  sg_gauss_post a, b;
  g_assert_cmpint (sg_ep_posterior (&model, &data, &plain, NULL, NULL, &a), ==, SG_OK);
  g_assert_cmpint (sg_ep_posterior (&model, &data, &damped, NULL, NULL, &b), ==, SG_OK);
  g_test_message ("sweeps: undamped %zu, damping 0.5 %zu", a.iterations, b.iterations);
  g_assert_cmpint (b.iterations, >, a.iterations);
  /* the same fixed point */
  g_assert_cmpfloat_with_epsilon (a.log_evidence, b.log_evidence, 1e-9);
  const double xs[4] = { 0.1, 0.1, -0.5, 0.7 };
  double ma[2], mb[2], ca[4], cb[4];
  g_assert_cmpint (sg_gauss_post_joint (&a, xs, 2, ma, ca), ==, SG_OK);
  g_assert_cmpint (sg_gauss_post_joint (&b, xs, 2, mb, cb), ==, SG_OK);
  for (int i = 0; i < 2; i++)
    g_assert_cmpfloat_with_epsilon (ma[i], mb[i], 1e-9);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (ca[i], cb[i], 1e-9);
  sg_gauss_post_clear (&a);
  sg_gauss_post_clear (&b);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

static void
test_warm_start (void)
{
  sg_data data;
  mixed_data (&data);
  sg_approx_model model;
  mixed_model (&model);
  sg_ep_warm warm = { 0 };
  double cold, hot, grad[3];
  sg_gauss_post a, b;
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, &warm, &a), ==, SG_OK);
  g_assert_cmpuint (warm.m_probit, ==, 7);
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, &warm, &b), ==, SG_OK);
  g_test_message ("sweeps: cold %zu, warm %zu", a.iterations, b.iterations);
  g_assert_cmpint (b.iterations, ==, 1);
  g_assert_cmpfloat_with_epsilon (a.log_evidence, b.log_evidence, 1e-9);
  /* a nearby kernel */
  model.kernel.variance *= 1.1;
  g_assert_cmpint (sg_ep_log_evidence (&model, &data, NULL, NULL, NULL, &cold, NULL), ==, SG_OK);
  g_assert_cmpint (sg_ep_log_evidence (&model, &data, NULL, NULL, &warm, &hot, grad), ==, SG_OK);
  g_assert_cmpfloat_with_epsilon (cold, hot, 1e-8);
  /* an undo: fewer rows than the warm start */
  g_assert_cmpint (sg_data_remove_last (&data), ==, SG_OK);
  sg_gauss_post c;
  g_assert_cmpint (sg_ep_posterior (&model, &data, NULL, NULL, &warm, &c), ==, SG_OK);
  g_assert_cmpuint (warm.m_probit, ==, 6);
  sg_gauss_post_clear (&a);
  sg_gauss_post_clear (&b);
  sg_gauss_post_clear (&c);
  sg_ep_warm_clear (&warm);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

static int
cancel_now (double fraction, void *user_data)
{
  (void) fraction;
  (void) user_data;
  return 1;
}

static void
test_errors (void)
{
  sg_data data;
  mixed_data (&data);
  sg_approx_model model;
  mixed_model (&model);
  sg_gauss_post post = { .log_evidence = 42 };
  double lz = 42;

  sg_approx_model logistic = model;
  logistic.link = SG_LINK_LOGISTIC;
  g_assert_cmpint (sg_ep_posterior (&logistic, &data, NULL, NULL, NULL, &post), ==, SG_EINVAL);
  sg_ep_options bad;
  sg_ep_options_default (&bad);
  bad.damping = 1.5;
  g_assert_cmpint (sg_ep_posterior (&model, &data, &bad, NULL, NULL, &post), ==, SG_EINVAL);
  /* zero is not "the default": no sweeps, no damping or no tolerance is refused */
  sg_ep_options_default (&bad);
  bad.damping = 0;
  g_assert_cmpint (sg_ep_posterior (&model, &data, &bad, NULL, NULL, &post), ==, SG_EINVAL);
  sg_ep_options_default (&bad);
  bad.max_sweeps = 0;
  g_assert_cmpint (sg_ep_posterior (&model, &data, &bad, NULL, NULL, &post), ==, SG_EINVAL);
  sg_ep_options_default (&bad);
  bad.tol = 0;
  g_assert_cmpint (sg_ep_posterior (&model, &data, &bad, NULL, NULL, &post), ==, SG_EINVAL);
  sg_approx_model wrong_dim = model;
  wrong_dim.kernel.dim = 1;
  g_assert_cmpint (sg_ep_log_evidence (&wrong_dim, &data, NULL, NULL, NULL, &lz, NULL), ==, SG_EINVAL);
  /* seven coupled sites do not converge to 1e-9 in one sweep */
  sg_ep_options one;
  sg_ep_options_default (&one);
  one.max_sweeps = 1;
  g_assert_cmpint (sg_ep_posterior (&model, &data, &one, NULL, NULL, &post), ==, SG_ENUMERIC);
  sg_progress progress = { cancel_now, NULL };
  g_assert_cmpint (sg_ep_log_evidence (&model, &data, NULL, &progress, NULL, &lz, NULL), ==, SG_ECANCELLED);
  g_assert_cmpfloat (post.log_evidence, ==, 42);
  g_assert_null (post.X);
  g_assert_cmpfloat (lz, ==, 42);

  /* labels far in the tail of the probit: finite, no NaN */
  sg_data tail;
  sg_data_init (&tail, 2);
  const double xa[2] = { 0, 0 }, xb[2] = { 3, 3 };
  for (int i = 0; i < 5; i++)
    g_assert_cmpint (sg_data_add_binary (&tail, xa, -1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_binary (&tail, xb, 1), ==, SG_OK);
  model.prior_mean = 40;   /* the labels at xa contradict the prior by 40 sd */
  model.noise.probit_sd = 0.01;
  g_assert_cmpint (sg_ep_posterior (&model, &tail, NULL, NULL, NULL, &post), ==, SG_OK);
  g_assert_true (isfinite (post.log_evidence));
  double mu, var;
  g_assert_cmpint (sg_gauss_post_predict (&post, xa, 1, &mu, &var), ==, SG_OK);
  g_test_message ("tail labels: EP mean %.4f sd %.4f log Z %.3f", mu, sqrt (var), post.log_evidence);
  g_assert_cmpfloat (mu, <, 0);
  sg_gauss_post_clear (&post);
  sg_gauss_post la;
  g_assert_cmpint (sg_laplace_posterior (&model, &tail, NULL, NULL, NULL, &la), ==, SG_OK);
  g_assert_true (isfinite (la.log_evidence));
  sg_gauss_post_clear (&la);
  sg_data_clear (&tail);
  sg_data_clear (&data);
  sg_kernel_clear (&model.kernel);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ep/single-binary", test_single_binary);
  g_test_add_func ("/ep/single-preference", test_single_preference);
  g_test_add_func ("/ep/numeric-and-invalid", test_numeric_and_invalid);
  g_test_add_func ("/ep/gp-regression", test_gp_regression);
  g_test_add_func ("/ep/small-numeric-noise", test_small_numeric_noise);
  g_test_add_func ("/ep/skewed-vs-laplace", test_skewed);
  g_test_add_func ("/ep/gradient", test_gradient);
  g_test_add_func ("/ep/damping", test_damping);
  g_test_add_func ("/ep/warm-start", test_warm_start);
  g_test_add_func ("/ep/errors", test_errors);
  return g_test_run ();
}
