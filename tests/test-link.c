/* test-link.c — the integrated squared GP of paper 003 (sg-link.h).
 *
 * Tolerances:
 * - psi (003 eqs. 36-38) against GSL adaptive Gauss-Kronrod quadrature of
 *   phi_i phi_j (QAG, 61 points, epsabs 1e-13): both sides are accurate
 *   to ~1e-14 absolute on |x| <= 1; the closed forms divide differences
 *   of O(1) products by pi c (m^2 - n^2) >= pi, so 1e-10 leaves a margin
 *   of four orders for round-off.
 * - Closed-form posterior moments (Lemma 7 and the quadratic-form
 *   variance) against the mean and sd of S = 40000 draws: 5 standard
 *   errors (sd / sqrt(S) for the mean; for the sd, a relative standard
 *   error of sqrt((kurt - 1) / (4 S)) <= 0.01 for kurtosis <= 17).
 * - Monotonicity of draws: each draw is g0 + w^T psi(x) w with psi(x') -
 *   psi(x) positive semidefinite; the computed increments may be negative
 *   only by the round-off of psi, ~1e-15 x the size of the entries, times
 *   |w|^2: allowed 1e-12 (1 + |g|).
 * - Statistical recovery: seeded data; thresholds set from the posterior
 *   sd (see each test).
 */
#include "sg-common.h"
#include "sg-link.h"
#include "sg-normal.h"
#include "sg-rng.h"

#include <glib.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <string.h>

/* ---- psi against quadrature -------------------------------------------- */

typedef struct {
  const sg_link_prior *prior;
  size_t i, j;
} PsiIntegrand;

static double
phi_product (double t, void *data)
{
  PsiIntegrand *pi = data;
  double phi[SG_LINK_MAX_BASIS];
  sg_link_basis (pi->prior, t, phi);
  return phi[pi->i] * phi[pi->j];
}

static void
test_psi_quadrature (void)
{
  sg_link_prior prior;
  sg_link_prior_default (&prior);
  prior.n_basis = 16;
  gsl_set_error_handler_off ();
  gsl_integration_workspace *gw = gsl_integration_workspace_alloc (1000);
  const double centers[] = { 0.0, 0.3 }, widths[] = { 1.0, 2.5 };
  const double xs[] = { 1e-3, 0.2, -0.37, 0.999, -1.0, 0.5 };
  double worst = 0.0;

  for (size_t c = 0; c < G_N_ELEMENTS (centers); c++)
    {
      prior.center = centers[c];
      prior.half_width = widths[c];
      for (size_t k = 0; k < G_N_ELEMENTS (xs); k++)
        {
          double x = prior.center + xs[k] * prior.half_width;
          double psi[16 * 16];
          sg_link_psi (&prior, x, psi);
          for (size_t i = 0; i < 16; i++)
            for (size_t j = 0; j < 16; j++)
              {
                PsiIntegrand data = { &prior, i, j };
                gsl_function fn = { phi_product, &data };
                double val, err;
                int rc = gsl_integration_qag (&fn, prior.center, x, 1e-13, 1e-12, 1000,
                                              GSL_INTEG_GAUSS61, gw, &val, &err);
                g_assert_cmpint (rc, ==, 0);
                worst = fmax (worst, fabs (psi[i * 16 + j] - val));
                g_assert_cmpfloat (fabs (psi[i * 16 + j] - val), <=, 1e-10);
                g_assert_cmpfloat (psi[i * 16 + j], ==, psi[j * 16 + i]);
              }
        }
      /* psi(x0) = 0: the integral starts at the centre. */
      double psi0[16 * 16];
      sg_link_psi (&prior, prior.center, psi0);
      for (size_t i = 0; i < 16 * 16; i++)
        g_assert_cmpfloat (fabs (psi0[i]), <=, 1e-15);
    }
  g_test_message ("largest |psi closed form - quadrature| = %.3g", worst);
  gsl_integration_workspace_free (gw);
}

/* k(x, x) = k(0, 0) = slope (003 eq. 22) everywhere, so E g(x) has that
 * slope (Theorem 5). */
static void
test_eigenvalues_slope (void)
{
  sg_link_prior prior;
  sg_link_prior_default (&prior);
  prior.slope = 0.7;
  for (size_t m = 2; m <= SG_LINK_MAX_BASIS; m += 14)
    {
      prior.n_basis = m;
      double lambda[SG_LINK_MAX_BASIS], phi[SG_LINK_MAX_BASIS];
      sg_link_eigenvalues (&prior, lambda);
      for (double x = -1.0; x <= 1.0; x += 0.3)
        {
          /* k(x, x) = sum_i lambda_i phi_i(x)^2 (eq. 9) */
          double kxx = 0.0;
          sg_link_basis (&prior, x, phi);
          for (size_t i = 0; i < m; i++)
            kxx += lambda[i] * phi[i] * phi[i];
          g_assert_cmpfloat (fabs (kxx - 0.7), <=, 1e-14);
        }
    }
}

/* ---- Fixtures ---------------------------------------------------------- */

static double
truth_regression (double x)
{
  return x + 0.8 * tanh (4.0 * x);
}

typedef struct {
  size_t n;
  double x[400], y[400];
} Data;

static void
make_regression (Data *d, size_t n, double noise, guint64 seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  d->n = n;
  for (size_t i = 0; i < n; i++)
    {
      d->x[i] = -1.0 + 2.0 * sg_rng_uniform_pos (rng);
      d->y[i] = truth_regression (d->x[i]) + noise * sg_rng_gaussian (rng);
    }
  sg_rng_free (rng);
}

/* Answers with P(y = 1 | d) = Phi(scale d), d ~ U(-3, 3). */
static void
make_binary (Data *d, size_t n, double scale, guint64 seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  d->n = n;
  for (size_t i = 0; i < n; i++)
    {
      d->x[i] = -3.0 + 6.0 * sg_rng_uniform_pos (rng);
      d->y[i] = sg_rng_uniform_pos (rng) < sg_norm_cdf (scale * d->x[i]) ? 1.0 : 0.0;
    }
  sg_rng_free (rng);
}

static sg_link_fit *
fit_or_fail (const sg_link_prior *prior, const sg_link_likelihood *lik, const Data *d)
{
  sg_link_workspace *ws = sg_link_workspace_new (d->n, prior->n_basis);
  g_assert_nonnull (ws);
  sg_link_fit *fit = g_new0 (sg_link_fit, 1);
  int st = sg_link_fit_laplace (prior, lik, d->x, d->y, d->n, NULL, NULL, ws, fit);
  g_assert_cmpint (st, ==, SG_OK);
  g_test_message ("fit: %zu Newton iterations (%zu Gauss-Newton), log evidence %.4f",
                  fit->n_iter, fit->n_gauss_newton, fit->log_evidence);
  sg_link_workspace_free (ws);
  return fit;
}

static void
grid (double lo, double hi, size_t k, double *x)
{
  for (size_t i = 0; i < k; i++)
    x[i] = lo + (hi - lo) * (double) i / (double) (k - 1);
}

static void
assert_monotone_draws (const double *draws, size_t k, size_t ns)
{
  for (size_t s = 0; s < ns; s++)
    for (size_t i = 0; i + 1 < k; i++)
      {
        double a = draws[i * ns + s], b = draws[(i + 1) * ns + s];
        g_assert_cmpfloat (b - a, >=, -1e-12 * (1.0 + fabs (a)));
      }
}

/* ---- Regression --------------------------------------------------------- */

static void
regression_prior (const Data *d, sg_link_prior *prior)
{
  sg_link_prior_default (prior);
  g_assert_cmpint (sg_link_prior_fit_domain (prior, d->x, d->n, NAN, 2.0), ==, SG_OK);
  prior->slope = 1.5;         /* about the data's overall slope */
  prior->mu = 0.0;
  prior->gamma = 0.1;
}

static void
test_regression_recovery (void)
{
  Data d;
  make_regression (&d, 150, 0.1, 11);
  sg_link_prior prior;
  regression_prior (&d, &prior);
  sg_link_likelihood lik = { SG_LINK_OBS_GAUSSIAN, SG_LINK_PROBIT, 0.1 };
  g_autofree sg_link_fit *fit = fit_or_fail (&prior, &lik, &d);

  enum { K = 81, S = 2000 };
  double x[K];
  sg_link_point pt[K];
  g_autofree double *draws = g_new (double, K * S);
  grid (-0.95, 0.95, K, x);
  gsl_rng *rng = sg_rng_new (5, 0);
  g_assert_cmpint (sg_link_predict (fit, x, K, S, 0.95, rng, NULL, pt, draws), ==, SG_OK);
  sg_rng_free (rng);
  assert_monotone_draws (draws, K, S);

  /* 150 points with noise 0.1 pin g down to a posterior sd of ~0.02-0.06;
   * the mean must be within 4 posterior sd of the truth at >= 95% of the
   * grid (pointwise, so a few misses are expected), and its RMS error
   * below 0.08 (the posterior sd is up to 0.06, so errors of about one
   * sd give ~0.05). The prior mean line 1.5 x has an RMS error of 0.43
   * here, so a fit that does not learn from the data fails both. */
  double sse = 0.0, max_sd = 0.0;
  size_t inside = 0;
  for (size_t i = 0; i < K; i++)
    {
      double err = pt[i].mean - truth_regression (x[i]);
      sse += err * err;
      inside += fabs (err) <= 4.0 * pt[i].sd;
      max_sd = fmax (max_sd, pt[i].sd);
      g_assert_cmpfloat (pt[i].lower, <=, pt[i].median);
      g_assert_cmpfloat (pt[i].median, <=, pt[i].upper);
      g_assert_true (isnan (pt[i].prob_mean));
    }
  double rmse = sqrt (sse / K);
  g_test_message ("regression: rmse %.4f, inside 4 sd %zu / %d, max sd %.4f", rmse,
                  inside, K, max_sd);
  g_assert_cmpfloat (rmse, <, 0.08);
  g_assert_cmpuint (inside, >=, (guint) (0.95 * K));
  g_assert_cmpfloat (max_sd, <, 0.1);
}

/* Closed-form mean and sd against the draws, regression and binary fits. */
static void
check_moments (const sg_link_fit *fit, double lo, double hi)
{
  enum { K = 9, S = 40000 };
  double x[K];
  sg_link_point pt[K];
  g_autofree double *draws = g_new (double, K * S);
  grid (lo, hi, K, x);
  gsl_rng *rng = sg_rng_new (21, 3);
  g_assert_cmpint (sg_link_predict (fit, x, K, S, 0.9, rng, NULL, pt, draws), ==, SG_OK);
  sg_rng_free (rng);
  for (size_t i = 0; i < K; i++)
    {
      double m = 0.0, v = 0.0;
      for (size_t s = 0; s < S; s++)
        m += draws[i * S + s];
      m /= S;
      for (size_t s = 0; s < S; s++)
        v += (draws[i * S + s] - m) * (draws[i * S + s] - m);
      double sd = sqrt (v / (S - 1));
      g_assert_cmpfloat (fabs (m - pt[i].mean), <=, 5.0 * pt[i].sd / sqrt ((double) S) + 1e-12);
      g_assert_cmpfloat (fabs (sd / pt[i].sd - 1.0), <=, 0.05);
      /* the mode value is a different statistic, but must be close */
      g_assert_cmpfloat (fabs (sg_link_mode_value (fit, x[i]) - pt[i].mean), <=, 3.0 * pt[i].sd);
    }
  assert_monotone_draws (draws, K, S);
}

static void
test_moments_closed_form (void)
{
  Data d;
  make_regression (&d, 40, 0.2, 3);
  sg_link_prior prior;
  regression_prior (&d, &prior);
  sg_link_likelihood lik = { SG_LINK_OBS_GAUSSIAN, SG_LINK_PROBIT, 0.2 };
  g_autofree sg_link_fit *fit = fit_or_fail (&prior, &lik, &d);
  check_moments (fit, -0.9, 0.9);

  Data b;
  make_binary (&b, 120, 1.0, 4);
  sg_link_prior_default (&prior);
  g_assert_cmpint (sg_link_prior_fit_domain (&prior, b.x, b.n, 0.0, 2.0), ==, SG_OK);
  sg_link_likelihood blik = { SG_LINK_OBS_BINARY, SG_LINK_PROBIT, 0 };
  g_autofree sg_link_fit *bfit = fit_or_fail (&prior, &blik, &b);
  check_moments (bfit, -2.8, 2.8);
}

/* ---- Link fits ------------------------------------------------------------ */

/* Fraction of the grid on [-2.5, 2.5] where Phi(scale_ref d) is inside the
 * 95% band of a fit to answers drawn with Phi(scale_true d). */
static double
probit_coverage (double scale_true, double scale_ref, guint64 seed, sg_link squash)
{
  Data d;
  make_binary (&d, 300, scale_true, seed);
  sg_link_prior prior;
  sg_link_prior_default (&prior);
  g_assert_cmpint (sg_link_prior_fit_domain (&prior, d.x, d.n, 0.0, 2.0), ==, SG_OK);
  prior.slope = scale_ref;    /* the prior mean is the reference probit */
  sg_link_likelihood lik = { SG_LINK_OBS_BINARY, squash, 0 };
  g_autofree sg_link_fit *fit = fit_or_fail (&prior, &lik, &d);

  enum { K = 101, S = 2000 };
  double x[K];
  sg_link_point pt[K];
  g_autofree double *draws = g_new (double, K * S);
  grid (-2.5, 2.5, K, x);
  gsl_rng *rng = sg_rng_new (seed, 7);
  g_assert_cmpint (sg_link_predict (fit, x, K, S, 0.95, rng, NULL, pt, draws), ==, SG_OK);
  sg_rng_free (rng);
  assert_monotone_draws (draws, K, S);
  size_t inside = 0;
  for (size_t i = 0; i < K; i++)
    {
      double ref = sg_norm_cdf (scale_ref * x[i]);
      g_assert_cmpfloat (pt[i].prob_lower, <=, pt[i].prob_upper);
      g_assert_cmpfloat (pt[i].prob_mean, >=, 0.0);
      g_assert_cmpfloat (pt[i].prob_mean, <=, 1.0);
      inside += ref >= pt[i].prob_lower && ref <= pt[i].prob_upper;
    }
  return (double) inside / K;
}

static void
test_probit_band_covers (void)
{
  /* Answers from the probit link itself: a 95% pointwise band should hold
   * Phi almost everywhere; over three seeds the least coverage must
   * exceed 0.8 (pointwise bands of neighbouring points are strongly
   * correlated, so a miss comes in runs; 0.8 allows one run of 20 grid
   * points, 1 in the d units, per seed). */
  for (guint64 seed = 1; seed <= 3; seed++)
    {
      double cov = probit_coverage (1.0, 1.0, seed, SG_LINK_PROBIT);
      g_test_message ("probit data, seed %" G_GUINT64_FORMAT ": coverage %.3f", seed, cov);
      g_assert_cmpfloat (cov, >=, 0.8);
    }
}

static void
test_wrong_link_detected (void)
{
  /* Answers four times steeper than the reference (a person far more
   * consistent than the model says): with 300 answers the band must
   * leave Phi(d) on most of the range. This is the check that the
   * coverage test above can fail. */
  double cov = probit_coverage (4.0, 1.0, 9, SG_LINK_PROBIT);
  g_test_message ("steep data vs Phi(d): coverage %.3f", cov);
  g_assert_cmpfloat (cov, <, 0.5);
  /* The logistic squashing (the paper's eq. 33) also fits and stays
   * monotone. */
  cov = probit_coverage (1.0, 1.0, 2, SG_LINK_LOGISTIC);
  g_test_message ("logistic squashing, probit data: coverage %.3f", cov);
}

/* ---- Bad input ------------------------------------------------------------- */

static void
test_bad_input (void)
{
  double x[3] = { -0.5, 0.0, 0.5 }, y[3] = { 0, 1, 1 };
  sg_link_prior prior;
  sg_link_prior_default (&prior);
  sg_link_likelihood bin = { SG_LINK_OBS_BINARY, SG_LINK_PROBIT, 0 };
  sg_link_likelihood gau = { SG_LINK_OBS_GAUSSIAN, SG_LINK_PROBIT, 0.1 };
  sg_link_workspace *ws = sg_link_workspace_new (3, prior.n_basis);
  g_assert_nonnull (ws);
  sg_link_fit *fit = g_new (sg_link_fit, 1);
  memset (fit, 0xab, sizeof *fit);
  sg_link_fit *before = g_memdup2 (fit, sizeof *fit);

#define EXPECT_EINVAL(call)                                   \
  do {                                                        \
    g_assert_cmpint ((call), ==, SG_EINVAL);                  \
    g_assert_cmpint (memcmp (fit, before, sizeof *fit), ==, 0); \
  } while (0)

  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &bin, x, y, 0, NULL, NULL, ws, fit));
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &bin, x, y, 4, NULL, NULL, ws, fit));
  double ynan[3] = { 0, NAN, 1 }, yhalf[3] = { 0, 0.5, 1 }, xfar[3] = { -0.5, 0, 1.5 };
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &bin, x, ynan, 3, NULL, NULL, ws, fit));
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &bin, x, yhalf, 3, NULL, NULL, ws, fit));
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &bin, xfar, y, 3, NULL, NULL, ws, fit));
  gau.noise_sd = 0.0;
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &gau, x, y, 3, NULL, NULL, ws, fit));
  gau.noise_sd = 0.1;
  /* zero iterations or tolerance is refused, not read as "the default" */
  sg_link_options zero;
  sg_link_options_default (&zero);
  zero.max_iter = 0;
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &gau, x, y, 3, &zero, NULL, ws, fit));
  sg_link_options_default (&zero);
  zero.tol = 0;
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &gau, x, y, 3, &zero, NULL, ws, fit));

  sg_link_prior bad = prior;
  bad.n_basis = 7;
  EXPECT_EINVAL (sg_link_fit_laplace (&bad, &bin, x, y, 3, NULL, NULL, ws, fit));
  bad = prior;
  bad.n_basis = 16;   /* not the workspace's M */
  EXPECT_EINVAL (sg_link_fit_laplace (&bad, &bin, x, y, 3, NULL, NULL, ws, fit));
  bad = prior;
  bad.a = 1.0;
  EXPECT_EINVAL (sg_link_fit_laplace (&bad, &bin, x, y, 3, NULL, NULL, ws, fit));
  bad = prior;
  bad.slope = -1.0;
  EXPECT_EINVAL (sg_link_fit_laplace (&bad, &bin, x, y, 3, NULL, NULL, ws, fit));
  bad = prior;
  bad.gamma = 0.0;
  EXPECT_EINVAL (sg_link_fit_laplace (&bad, &bin, x, y, 3, NULL, NULL, ws, fit));
  bad = prior;
  bad.half_width = NAN;
  EXPECT_EINVAL (sg_link_fit_laplace (&bad, &bin, x, y, 3, NULL, NULL, ws, fit));
  sg_link_likelihood badsq = { SG_LINK_OBS_BINARY, (sg_link) 7, 0 };
  EXPECT_EINVAL (sg_link_fit_laplace (&prior, &badsq, x, y, 3, NULL, NULL, ws, fit));

  g_assert_null (sg_link_workspace_new (0, 32));
  g_assert_null (sg_link_workspace_new (3, 31));
  g_assert_null (sg_link_workspace_new (3, SG_LINK_MAX_BASIS + 2));
  g_assert_cmpint (sg_link_prior_fit_domain (&bad, x, 0, 0, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_link_prior_fit_domain (&bad, ynan, 3, 0, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_link_prior_fit_domain (&bad, x, 3, 0, 0.5), ==, SG_EINVAL);

  /* A valid fit, then bad prediction requests leave OUT untouched. */
  g_assert_cmpint (sg_link_fit_laplace (&prior, &bin, x, y, 3, NULL, NULL, ws, fit), ==, SG_OK);
  sg_link_point pt[2], pt0[2];
  memset (pt, 0x5a, sizeof pt);
  memcpy (pt0, pt, sizeof pt);
  double xs[2] = { 0.1, NAN };
  gsl_rng *rng = sg_rng_new (1, 0);
  g_assert_cmpint (sg_link_predict (fit, xs, 2, 10, 0.9, rng, NULL, pt, NULL), ==, SG_EINVAL);
  xs[1] = 0.2;
  g_assert_cmpint (sg_link_predict (fit, xs, 2, 10, 1.0, rng, NULL, pt, NULL), ==, SG_EINVAL);
  g_assert_cmpint (sg_link_predict (fit, xs, 2, 10, 0.9, NULL, NULL, pt, NULL), ==, SG_EINVAL);
  g_assert_cmpint (memcmp (pt, pt0, sizeof pt), ==, 0);
  g_assert_cmpint (sg_link_predict (fit, xs, 2, 0, 0.9, NULL, NULL, pt, NULL), ==, SG_OK);
  g_assert_true (isnan (pt[0].median) && pt[0].sd > 0);
  sg_rng_free (rng);
  sg_link_workspace_free (ws);
  g_free (fit);
  g_free (before);
}

static int
cancel_at_once (double fraction, void *user_data)
{
  (void) fraction;
  (void) user_data;
  return 1;
}

static void
test_cancel (void)
{
  Data d;
  make_binary (&d, 50, 1.0, 5);
  sg_link_prior prior;
  sg_link_prior_default (&prior);
  g_assert_cmpint (sg_link_prior_fit_domain (&prior, d.x, d.n, 0.0, 2.0), ==, SG_OK);
  sg_link_likelihood lik = { SG_LINK_OBS_BINARY, SG_LINK_PROBIT, 0 };
  sg_link_workspace *ws = sg_link_workspace_new (d.n, prior.n_basis);
  sg_link_fit *fit = g_new0 (sg_link_fit, 1);
  sg_progress stop = { cancel_at_once, NULL };
  g_assert_cmpint (sg_link_fit_laplace (&prior, &lik, d.x, d.y, d.n, NULL, &stop, ws, fit),
                   ==, SG_ECANCELLED);
  g_assert_cmpuint (fit->n_params, ==, 0);
  sg_link_workspace_free (ws);
  g_free (fit);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/link/psi-quadrature", test_psi_quadrature);
  g_test_add_func ("/link/eigenvalues-slope", test_eigenvalues_slope);
  g_test_add_func ("/link/regression-recovery", test_regression_recovery);
  g_test_add_func ("/link/moments-closed-form", test_moments_closed_form);
  g_test_add_func ("/link/probit-band-covers", test_probit_band_covers);
  g_test_add_func ("/link/wrong-link-detected", test_wrong_link_detected);
  g_test_add_func ("/link/bad-input", test_bad_input);
  g_test_add_func ("/link/cancel", test_cancel);
  return g_test_run ();
}
