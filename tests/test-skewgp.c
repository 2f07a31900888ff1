/* test-skewgp.c — the exact SkewGP posterior against independent references.
 *
 *  - s = 0 with numeric data only: textbook GP regression (GSL Cholesky in
 *    this file) to round-off;
 *  - the SUN parameters of 001 Lemma 2 then Lemma 1 (= Theorem 3.3),
 *    computed literally, against the joint-Gaussian route;
 *  - moments, class probabilities and the log marginal likelihood against
 *    tensor-product quadrature over 1-3 latent values;
 *  - exact class probability (000 Corollary 2) against Monte Carlo;
 *  - the 1-D preference example of 001 sec. 3.2 and the skewed prior of
 *    000 Figure 3, qualitatively.
 */
#include "sg-data.h"
#include "sg-kernel.h"
#include "sg-linalg.h"
#include "sg-mcmc.h"
#include "sg-mvn.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-skewgp-sun.h"
#include "sg-skewgp.h"

#include <glib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

static sg_skewgp_posterior *
make_posterior (const sg_skewgp_prior *prior, const sg_data *data,
                const sg_noise *noise, sg_likelihood *lik)
{
  g_assert_cmpint (sg_likelihood_build (data, noise, lik), ==, SG_OK);
  sg_skewgp_posterior *post = NULL;
  g_assert_cmpint (sg_skewgp_posterior_new (prior, data->X, lik, &post), ==, SG_OK);
  return post;
}

static sg_skewgp_samples *
make_samples (const sg_skewgp_posterior *post, size_t N, uint64_t seed)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  sg_skewgp_samples *s = NULL;
  g_assert_cmpint (sg_skewgp_sample (post, N, NULL, rng, NULL, &s), ==, SG_OK);
  sg_rng_free (rng);
  return s;
}

/* Effective sample size of the stored t samples (worst coordinate). */
static double
samples_ess (const sg_skewgp_posterior *post, const sg_skewgp_samples *s)
{
  (void) post;
  double ess;
  g_assert_cmpint (sg_skewgp_samples_ess (s, &ess), ==, SG_OK);
  return ess;
}

/* ---- 1. GP regression ---------------------------------------------------- */

static void
test_gp_regression (void)
{
  const size_t n = 7, dim = 2;
  double X[7 * 2], y[7];
  gsl_rng *rng = sg_rng_new (11, 0);
  for (size_t i = 0; i < n; i++)
    {
      X[i * dim] = gsl_rng_uniform (rng) * 3;
      X[i * dim + 1] = gsl_rng_uniform (rng) * 3;
      y[i] = sin (X[i * dim]) + 0.5 * cos (2 * X[i * dim + 1]);
    }
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_MATERN52, dim, 1.7, 0.8);
  k.lengthscales[1] = 1.3;
  const double xi = 0.25, sn = 0.3;
  sg_data data;
  sg_data_init (&data, dim);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpint (sg_data_add_numeric (&data, X + i * dim, y[i]), ==, SG_OK);
  sg_noise noise = { .numeric_sd = sn, .probit_sd = 1 };
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, xi);
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);

  /* Textbook (R&W alg. 2.1) with GSL: A = K + sn^2 I = L L^T,
   * alpha = A^{-1}(y - xi), mean* = xi + k*^T alpha, var* = k** - |L^{-1} k*|^2,
   * log p(y) = -y^T alpha / 2 - sum log L_ii - n/2 log 2 pi. */
  gsl_matrix *A = gsl_matrix_alloc (n, n);
  gsl_vector *alpha = gsl_vector_alloc (n);
  for (size_t i = 0; i < n; i++)
    {
      for (size_t j = 0; j < n; j++)
        gsl_matrix_set (A, i, j, sg_kernel_eval (&k, X + i * dim, X + j * dim)
                                 + (i == j ? sn * sn : 0));
      gsl_vector_set (alpha, i, y[i] - xi);
    }
  gsl_linalg_cholesky_decomp1 (A);
  gsl_vector *rhs = gsl_vector_alloc (n);
  gsl_vector_memcpy (rhs, alpha);
  gsl_linalg_cholesky_svx (A, alpha);
  double logml = -0.5 * n * log (2 * M_PI);
  for (size_t i = 0; i < n; i++)
    logml += -0.5 * gsl_vector_get (rhs, i) * gsl_vector_get (alpha, i)
             - log (gsl_matrix_get (A, i, i));

  const size_t b = 5;
  double XS[5 * 2];
  for (size_t i = 0; i < b; i++)
    {
      XS[i * dim] = 0.7 * (double) i - 0.3;
      XS[i * dim + 1] = 2.9 - 0.6 * (double) i;
    }
  sg_skewgp_samples *s = make_samples (post, 50, 1);
  sg_point_summary sum[5];
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, b, NULL, NULL, sum), ==, SG_OK);
  double gmean[5], gvar[5];
  g_assert_cmpint (sg_skewgp_gaussian_part (post, XS, b, gmean, gvar), ==, SG_OK);
  gsl_vector *ks = gsl_vector_alloc (n);
  double worst = 0;
  for (size_t p = 0; p < b; p++)
    {
      double mean = xi;
      for (size_t i = 0; i < n; i++)
        {
          double kv = sg_kernel_eval (&k, XS + p * dim, X + i * dim);
          gsl_vector_set (ks, i, kv);
          mean += kv * gsl_vector_get (alpha, i);
        }
      gsl_blas_dtrsv (CblasLower, CblasNoTrans, CblasNonUnit, A, ks);
      double var = sg_kernel_eval (&k, XS + p * dim, XS + p * dim)
                   - gsl_pow_2 (gsl_blas_dnrm2 (ks));
      /* condition number of A is ~1e2, so round-off is ~1e-13 relative */
      worst = fmax (worst, fabs (sum[p].mean - mean));
      worst = fmax (worst, fabs (gmean[p] - mean));
      worst = fmax (worst, fabs (sum[p].sd - sqrt (var)));
      worst = fmax (worst, fabs (gvar[p] - var));
      /* a Gaussian posterior has no skewness: the linear part is constant */
      g_assert_cmpfloat (fabs (sum[p].skewness), <, 1e-12);
      /* class probabilities use a tabulated Phi, absolute error < 2.1e-10 */
      g_assert_cmpfloat (fabs (sum[p].class_probability
                               - sg_norm_cdf (mean / sqrt (1 + var))), <, 3e-10);
    }
  g_test_message ("GP regression: max |difference| %.3g", worst);
  g_assert_cmpfloat (worst, <, 1e-11);

  /* Every sample's conditional is the GP itself: constant rows, and the
   * remainder covariance k(p, q) - k_p^T A^{-1} k_q. */
  double M[5 * 50], V[5], C[5 * 5], kq[5][7];
  g_assert_cmpint (sg_skewgp_conditional_all (post, s, XS, b, M, V, C), ==, SG_OK);
  for (size_t p = 0; p < b; p++)
    {
      for (size_t i = 0; i < n; i++)
        gsl_vector_set (ks, i, sg_kernel_eval (&k, XS + p * dim, X + i * dim));
      gsl_blas_dtrsv (CblasLower, CblasNoTrans, CblasNonUnit, A, ks);
      for (size_t i = 0; i < n; i++)
        kq[p][i] = gsl_vector_get (ks, i);
    }
  worst = 0;
  for (size_t p = 0; p < b; p++)
    {
      for (size_t j = 0; j < 50; j++)
        worst = fmax (worst, fabs (M[p * 50 + j] - gmean[p]));
      worst = fmax (worst, fabs (V[p] - gvar[p]));
      for (size_t q = 0; q < b; q++)
        {
          double c = sg_kernel_eval (&k, XS + p * dim, XS + q * dim);
          for (size_t i = 0; i < n; i++)
            c -= kq[p][i] * kq[q][i];
          worst = fmax (worst, fabs (C[p * b + q] - c));
        }
    }
  g_test_message ("conditional_all against the textbook GP: max |difference| %.3g", worst);
  g_assert_cmpfloat (worst, <, 1e-11);

  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_skewgp_posterior_log_evidence (post, NULL, NULL, &ev), ==, SG_OK);
  g_test_message ("log ML %.15g textbook %.15g", ev.log_ml, logml);
  g_assert_cmpfloat (fabs (ev.log_ml - logml), <, 1e-11 * fabs (logml));
  g_assert_cmpfloat (ev.error, ==, 0);

  gsl_vector_free (ks);
  gsl_vector_free (rhs);
  gsl_vector_free (alpha);
  gsl_matrix_free (A);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_rng_free (rng);
  sg_kernel_clear (&k);
}

/* ---- 1a. Every sample's conditional ------------------------------------- */

/* sg_skewgp_conditional_all on a safe-mode posterior (001 eq. 40: values
 * with their validity rows, a failed setting): each row is the one-sample
 * conditional of that sample; the mixture's P(f >= h), Rao-Blackwellised,
 * agrees with the fraction of joint samples at or above h (their Monte
 * Carlo error, with the chain's autocorrelation, below 0.03 at N = 4000:
 * tolerance 0.05); and the mixture's covariance of two points, the
 * samples' covariance of the means plus COV, agrees with the joint
 * samples' covariance. */
static void
test_conditional_all (void)
{
  sg_kernel k;
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 0.7);
  sg_data data;
  sg_data_init (&data, 1);
  double x0 = 0, x1 = -1, x2 = 1.2;
  sg_data_add_valid (&data, &x0, 0.8, 0.0);
  sg_data_add_valid (&data, &x1, 0.3, 0.0);
  sg_data_add_invalid (&data, &x2, 0.0);
  sg_noise noise = { .numeric_sd = 0.1, .probit_sd = 0.1 };
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0.0);
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  const size_t N = 4000, b = 3;
  sg_skewgp_samples *s = make_samples (post, N, 5);
  double XS[3] = { 0.5, 0.9, -1.6 };
  double *M = g_new (double, b * N), V[3], C[9];
  g_assert_cmpint (sg_skewgp_conditional_all (post, s, XS, b, M, V, C), ==, SG_OK);
  for (size_t j = 0; j < N; j += 397)
    for (size_t i = 0; i < b; i++)
      {
        double mu, var;
        g_assert_cmpint (sg_skewgp_conditional (post, s, j, XS + i, 1, &mu, &var), ==, SG_OK);
        g_assert_cmpfloat (fabs (M[i * N + j] - mu), <, 1e-12 * (1 + fabs (mu)));
        g_assert_cmpfloat (fabs (V[i] - var), <, 1e-12);
      }
  double *F = g_new (double, b * N);
  gsl_rng *rng = sg_rng_new (9, 1);
  g_assert_cmpint (sg_skewgp_joint_samples (post, s, XS, b, rng, F), ==, SG_OK);
  for (size_t i = 0; i < b; i++)
    {
      double rb = 0, frac = 0;
      for (size_t j = 0; j < N; j++)
        {
          rb += sg_norm_cdf (M[i * N + j] / sqrt (V[i])) / (double) N;
          frac += (F[i * N + j] >= 0) / (double) N;
        }
      g_test_message ("P(f(%.1f) >= 0): %.4f Rao-Blackwellised, %.4f by samples", XS[i], rb,
                      frac);
      g_assert_cmpfloat (fabs (rb - frac), <, 0.05);
    }
  /* covariance of f(0.5) and f(0.9): mixture against joint samples */
  double m0 = 0, m1 = 0, f0 = 0, f1 = 0, cm = 0, cf = 0;
  for (size_t j = 0; j < N; j++)
    m0 += M[j] / N, m1 += M[N + j] / N, f0 += F[j] / N, f1 += F[N + j] / N;
  for (size_t j = 0; j < N; j++)
    {
      cm += (M[j] - m0) * (M[N + j] - m1) / N;
      cf += (F[j] - f0) * (F[N + j] - f1) / N;
    }
  cm += C[1];
  g_test_message ("Cov(f(0.5), f(0.9)): %.4f mixture, %.4f joint samples", cm, cf);
  g_assert_cmpfloat (fabs (cm - cf), <, 0.15 * fabs (cm) + 0.01);
  g_assert_cmpfloat (C[1], ==, C[3]);
  g_assert_cmpfloat (C[0], ==, V[0]);
  g_free (M);
  g_free (F);
  sg_rng_free (rng);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_kernel_clear (&k);
}

/* ---- 1b. Order statistics: selection vs a full sort ----------------------- */

static int
cmp_d (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* With numeric data only (m = 0) the marginal sample at x is exactly
 * mean + sd eps_j, and sg_skewgp_sample draws eps_j as the first N
 * Gaussians of its RNG: the test can rebuild the sample, sort it fully and
 * compare quantiles and the HPD interval (must agree to round-off). */
static void
test_order_statistics (void)
{
  double x0[1] = { 0.3 };
  sg_data data;
  sg_data_init (&data, 1);
  sg_data_add_numeric (&data, x0, 0.7);
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 1.0);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_noise noise = { 0.5, 1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  const size_t Ns[] = { 100, 300, 2000, 4001 };
  const double levels[] = { 0.5, 0.9, 0.95, 0.99 };
  double xs[1] = { 1.1 };
  for (size_t a = 0; a < G_N_ELEMENTS (Ns); a++)
    {
      size_t N = Ns[a];
      sg_skewgp_samples *s = make_samples (post, N, 55 + a);
      gsl_rng *rng = sg_rng_new (55 + a, 0);
      double *v = g_new (double, N);
      double mean, var;
      g_assert_cmpint (sg_skewgp_summarize (post, s, xs, 1, NULL, NULL,
                                            &(sg_point_summary) { 0 }), ==, SG_OK);
      sg_point_summary ref;
      g_assert_cmpint (sg_skewgp_summarize (post, s, xs, 1, NULL, NULL, &ref), ==, SG_OK);
      mean = ref.mean;
      var = ref.sd * ref.sd;
      for (size_t j = 0; j < N; j++)
        v[j] = mean + sqrt (var) * sg_rng_gaussian (rng);
      qsort (v, N, sizeof *v, cmp_d);
      for (size_t l = 0; l < G_N_ELEMENTS (levels); l++)
        {
          sg_summary_options o;
          sg_summary_options_default (&o);
          o.level = levels[l];
          sg_point_summary sum;
          g_assert_cmpint (sg_skewgp_summarize (post, s, xs, 1, &o, NULL, &sum), ==, SG_OK);
          double tail = 0.5 * (1 - o.level);
          double q[3] = { tail, 0.5, 1 - tail }, got[3] = { sum.lower, sum.median, sum.upper };
          for (int t = 0; t < 3; t++)
            {
              double h = q[t] * (double) (N - 1);
              size_t kk = (size_t) floor (h);
              double want = kk + 1 < N ? v[kk] + (h - kk) * (v[kk + 1] - v[kk]) : v[N - 1];
              g_assert_cmpfloat (fabs (got[t] - want), <, 1e-12);
            }
          long K = (long) ceil (o.level * (double) N - 1e-9);
          double best = INFINITY, lo = 0, hi = 0;
          for (long i = 0; i + K - 1 < (long) N; i++)
            if (v[i + K - 1] - v[i] < best)
              {
                best = v[i + K - 1] - v[i];
                lo = v[i];
                hi = v[i + K - 1];
              }
          /* the sample is rebuilt with different round-off: 1e-12 */
          g_assert_cmpfloat (fabs (sum.hpd_lower - lo), <, 1e-12);
          g_assert_cmpfloat (fabs (sum.hpd_upper - hi), <, 1e-12);
        }
      g_free (v);
      sg_rng_free (rng);
      sg_skewgp_samples_free (s);
    }
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_kernel_clear (&k);
}

/* ---- 1c. Sample paths on a fine grid (numerically singular remainder) ---- */

static void
test_sample_paths (void)
{
  double x[3] = { 0.2, 1.0, 2.1 };
  sg_data data;
  sg_data_init (&data, 1);
  sg_data_add_numeric (&data, &x[0], 0.5);
  sg_data_add_preference (&data, &x[1], &x[2]);
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 0.7);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_noise noise = { 0.3, 0.5 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  const size_t N = 2000, b = 300;
  sg_skewgp_samples *s = make_samples (post, N, 21);
  double ess = samples_ess (post, s);
  double *XS = g_new (double, b);
  for (size_t i = 0; i < b; i++)
    XS[i] = 3.0 * (double) i / (double) (b - 1);
  size_t *which = g_new (size_t, N);
  for (size_t j = 0; j < N; j++)
    which[j] = j;
  double *paths = g_new (double, b * N);
  gsl_rng *rng = sg_rng_new (22, 0);
  /* a 300-point grid at lengthscale 0.7: the remainder covariance is
   * numerically singular (condition number far beyond 1e16); the jitter
   * ladder of its factorisation must cope */
  g_assert_cmpint (sg_skewgp_sample_paths (post, s, XS, b, which, N, rng, paths), ==, SG_OK);
  sg_point_summary *sum = g_new (sg_point_summary, b);
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, b, NULL, NULL, sum), ==, SG_OK);
  double worst = 0;
  for (size_t i = 0; i < b; i += 7)
    {
      double mu = 0, v = 0;
      for (size_t j = 0; j < N; j++)
        mu += paths[i * N + j];
      mu /= N;
      for (size_t j = 0; j < N; j++)
        v += gsl_pow_2 (paths[i * N + j] - mu);
      v /= N;
      /* the paths share the t samples with the summary; only the remainder
       * is redrawn, so 5 standard errors of the remainder bound the mean
       * difference and the variance agrees to 5 standard errors of a
       * sample variance (sqrt(2/ESS) relative) */
      g_assert_cmpfloat (fabs (mu - sum[i].mean), <, 5 * sum[i].sd / sqrt (ess));
      g_assert_cmpfloat (fabs (v - gsl_pow_2 (sum[i].sd)), <,
                         5 * sqrt (2 / ess) * gsl_pow_2 (sum[i].sd));
      worst = fmax (worst, fabs (mu - sum[i].mean) / sum[i].sd);
    }
  g_test_message ("sample paths: max |mean difference| %.3f sd (ESS %.0f)", worst, ess);
  /* bad index */
  which[0] = N;
  g_assert_cmpint (sg_skewgp_sample_paths (post, s, XS, b, which, 1, rng, paths), ==,
                   SG_EINVAL);
  sg_rng_free (rng);
  g_free (sum);
  g_free (paths);
  g_free (which);
  g_free (XS);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_kernel_clear (&k);
}

/* ---- 1d. Density of f(x) --------------------------------------------------- */

static void build_case (int kinds, sg_data *data);

static void
test_density (void)
{
  /* (a) numeric data only: the density is exactly the Gaussian posterior */
  double x0[2] = { 0.0, 1.0 };
  sg_data data;
  sg_data_init (&data, 1);
  sg_data_add_numeric (&data, &x0[0], 0.4);
  sg_data_add_numeric (&data, &x0[1], -0.2);
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_MATERN52, 1, 1.5, 0.8);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0.1);
  sg_noise noise = { 0.3, 1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  sg_skewgp_samples *s = make_samples (post, 100, 3);
  double xs[1] = { 0.6 }, grid[41], dens[41];
  sg_point_summary sum;
  g_assert_cmpint (sg_skewgp_summarize (post, s, xs, 1, NULL, NULL, &sum), ==, SG_OK);
  for (int i = 0; i < 41; i++)
    grid[i] = sum.mean + sum.sd * (-4 + 0.2 * i);
  g_assert_cmpint (sg_skewgp_density (post, s, xs, grid, 41, dens), ==, SG_OK);
  for (int i = 0; i < 41; i++)
    {
      double want = sg_norm_pdf ((grid[i] - sum.mean) / sum.sd) / sum.sd;
      g_assert_cmpfloat (fabs (dens[i] - want), <, 1e-12 * (want + 1e-300) + 1e-300);
    }
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);

  /* (b) a skewed posterior: a proper density whose mean is the summary mean
   * (the mixture's mean is exactly xi + mean_j a^T(t_j - mu); the only
   * error is the trapezoid rule on a 2001-point grid over +-10 sd, < 1e-6) */
  build_case (3, &data);
  sg_kernel_clear (&k);
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.3, 0.7);
  sg_skewgp_prior_gp (&prior, &k, 0.2);
  noise = (sg_noise) { 0.4, 0.6 };
  post = make_posterior (&prior, &data, &noise, &lik);
  s = make_samples (post, 4000, 4);
  g_assert_cmpint (sg_skewgp_summarize (post, s, xs, 1, NULL, NULL, &sum), ==, SG_OK);
  const int G = 2001;
  double *gg = g_new (double, G), *dd = g_new (double, G);
  double h = 20 * sum.sd / (G - 1);
  for (int i = 0; i < G; i++)
    gg[i] = sum.mean - 10 * sum.sd + h * i;
  g_assert_cmpint (sg_skewgp_density (post, s, xs, gg, G, dd), ==, SG_OK);
  double mass = 0, first = 0;
  for (int i = 0; i < G; i++)
    {
      double w = (i == 0 || i == G - 1) ? 0.5 * h : h;
      mass += w * dd[i];
      first += w * dd[i] * gg[i];
    }
  g_test_message ("density: mass %.8f, mean %.6f vs summary %.6f", mass, first / mass, sum.mean);
  g_assert_cmpfloat (fabs (mass - 1), <, 1e-6);
  g_assert_cmpfloat (fabs (first - sum.mean), <, 1e-6 * (1 + fabs (sum.mean)) + 1e-6 * sum.sd);
  g_free (gg);
  g_free (dd);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_kernel_clear (&k);
}

/* ---- 2. SUN parameters: paper literally vs implementation ---------------- */

static double
max_rel_diff (const double *a, const double *b, size_t n)
{
  double scale = 0, diff = 0;
  for (size_t i = 0; i < n; i++)
    {
      scale = fmax (scale, fabs (a[i]));
      diff = fmax (diff, fabs (a[i] - b[i]));
    }
  return diff / fmax (scale, 1e-300);
}

/* A random mixed data set in 1-D: every observation kind at least once. */
static void
random_mixed_data (gsl_rng *rng, sg_data *data, size_t n)
{
  double x[8];
  for (size_t i = 0; i < n; i++)
    x[i] = 3 * gsl_rng_uniform (rng);
  sg_data_init (data, 1);
  sg_data_add_numeric (data, &x[0], sin (x[0]));
  sg_data_add_valid (data, &x[1], 0.4 + gsl_rng_uniform (rng), 0.2);
  sg_data_add_binary (data, &x[2], gsl_rng_uniform (rng) < 0.5 ? 1 : -1);
  sg_data_add_preference (data, &x[3], &x[0]);
  sg_data_add_invalid (data, &x[2], 0.5);
  for (size_t i = 4; i < n; i++)
    sg_data_add_preference (data, &x[i], &x[i - 1]);
}

/* 001 Theorem 3.3 eqs. 37-38 as printed: Delta_p = Omega~ D~ D^{-1}
 * Omegabar^{-1} Delta*, Gamma~ = Gamma_p - Delta*^T Omegabar^{-1} Delta*
 * + Delta_p^T Omega~^{-1} Delta_p. With BARRED = 1 the correlation matrix
 * Omegabar~ replaces Omega~ in both places, which is Lemma 1 (eqs. 15,
 * 17) applied to Lemma 2, as the paper says the theorem is obtained.
 * Writes Gamma~ (s x s) to OUT. */
static void
theorem33_gamma (const sg_sun *lemma2, const sg_sun *post, int barred, double *out)
{
  size_t p = lemma2->p, s = lemma2->s;
  gsl_matrix *OB = gsl_matrix_alloc (p, p), *OT = gsl_matrix_alloc (p, p);
  gsl_matrix *A = gsl_matrix_alloc (p, s), *B = gsl_matrix_alloc (p, s);
  gsl_matrix *Dp = gsl_matrix_alloc (p, s), *T = gsl_matrix_alloc (p, s);
  double D[16], Dt[16];
  for (size_t i = 0; i < p; i++)
    {
      D[i] = sqrt (lemma2->Omega[i * p + i]);
      Dt[i] = sqrt (post->Omega[i * p + i]);
    }
  for (size_t i = 0; i < p; i++)
    for (size_t j = 0; j < p; j++)
      {
        gsl_matrix_set (OB, i, j, lemma2->Omega[i * p + j] / (D[i] * D[j]));
        double o = post->Omega[i * p + j];
        gsl_matrix_set (OT, i, j, barred ? o / (Dt[i] * Dt[j]) : o);
      }
  for (size_t i = 0; i < p; i++)
    for (size_t a = 0; a < s; a++)
      gsl_matrix_set (A, i, a, lemma2->Delta[i * s + a]);
  /* B = Omegabar^{-1} Delta* */
  gsl_matrix_memcpy (B, A);
  gsl_linalg_cholesky_decomp1 (OB);
  for (size_t a = 0; a < s; a++)
    {
      gsl_vector_view col = gsl_matrix_column (B, a);
      gsl_linalg_cholesky_svx (OB, &col.vector);
    }
  /* Delta_p = OT D~ D^{-1} B */
  for (size_t i = 0; i < p; i++)
    for (size_t a = 0; a < s; a++)
      gsl_matrix_set (T, i, a, Dt[i] / D[i] * gsl_matrix_get (B, i, a));
  gsl_blas_dgemm (CblasNoTrans, CblasNoTrans, 1, OT, T, 0, Dp);
  /* Gamma~ = Gamma_p - Delta*^T B + Delta_p^T OT^{-1} Delta_p */
  gsl_matrix *G = gsl_matrix_alloc (s, s);
  for (size_t a = 0; a < s; a++)
    for (size_t b = 0; b < s; b++)
      gsl_matrix_set (G, a, b, lemma2->Gamma[a * s + b]);
  gsl_blas_dgemm (CblasTrans, CblasNoTrans, -1, A, B, 1, G);
  gsl_matrix_memcpy (T, Dp);
  gsl_linalg_cholesky_decomp1 (OT);
  for (size_t a = 0; a < s; a++)
    {
      gsl_vector_view col = gsl_matrix_column (T, a);
      gsl_linalg_cholesky_svx (OT, &col.vector);
    }
  gsl_blas_dgemm (CblasTrans, CblasNoTrans, 1, Dp, T, 1, G);
  for (size_t a = 0; a < s; a++)
    for (size_t b = 0; b < s; b++)
      out[a * s + b] = gsl_matrix_get (G, a, b);
  gsl_matrix_free (OB); gsl_matrix_free (OT); gsl_matrix_free (A); gsl_matrix_free (B);
  gsl_matrix_free (Dp); gsl_matrix_free (T); gsl_matrix_free (G);
}

static void
test_sun_literal (void)
{
  gsl_rng *rng = sg_rng_new (2024, 0);
  for (int rep = 0; rep < 6; rep++)
    {
      size_t n = 4 + (size_t) rep % 3;
      sg_data data;
      random_mixed_data (rng, &data, n);
      sg_kernel k = { 0 };
      sg_kernel_init (&k, rep % 2 ? SG_KERNEL_MATERN52 : SG_KERNEL_RBF, 1,
                      0.5 + 2 * gsl_rng_uniform (rng), 0.5 + gsl_rng_uniform (rng));
      double U[2] = { 3 * gsl_rng_uniform (rng), 3 * gsl_rng_uniform (rng) };
      double L[2] = { 1, rep % 2 ? -1 : 1 };
      double g[2] = { gsl_ran_gaussian (rng, 1), gsl_ran_gaussian (rng, 1) };
      sg_skewgp_prior prior = { .kernel = k, .mean = gsl_ran_gaussian (rng, 1),
                                .s = rep % 3, .pseudo_points = U, .phases = L,
                                .gamma = g };
      sg_noise noise = { .numeric_sd = 0.3 + gsl_rng_uniform (rng),
                         .probit_sd = 0.3 + gsl_rng_uniform (rng) };
      sg_likelihood lik;
      sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);

      /* Literal: prior SUN (001 eqs. 10-11) -> Lemma 2 -> Lemma 1. */
      size_t ma = lik.m_probit, mr = lik.m_numeric, nx = lik.n;
      double *Sigma = g_new0 (double, ma * ma);
      double *R = g_new0 (double, mr * mr);
      for (size_t i = 0; i < ma; i++)
        Sigma[i * ma + i] = lik.sigma[i] * lik.sigma[i];
      for (size_t i = 0; i < mr; i++)
        R[i * mr + i] = lik.noise_var[i];
      sg_sun s0, s1, s2, impl;
      g_assert_cmpint (sg_sun_from_skewgp_prior (&prior, data.X, nx, &s0), ==, SG_OK);
      g_assert_cmpint (sg_sun_probit_update (&s0, ma, lik.W, lik.z, Sigma, &s1), ==, SG_OK);
      g_assert_cmpint (sg_sun_normal_update (&s1, mr, lik.C, lik.y, R, &s2), ==, SG_OK);
      g_assert_cmpint (sg_skewgp_posterior_sun (post, &impl), ==, SG_OK);
      g_assert_cmpuint (impl.s, ==, s2.s);
      /* Before normalising the two agree already (same scaling of t); the
       * comparison is made in the normalisation diag(Gamma) = 1, the
       * SUN's only invariance here. */
      double raw = max_rel_diff (s2.Gamma, impl.Gamma, s2.s * s2.s);
      /* Theorem 3.3 eqs. 37-38: as printed (Omega~ where Lemma 1 has the
       * correlation Omegabar~) they differ unless diag Omega~ = 1; with
       * the bars restored they are Lemma 1's eq. 17. */
      double *g_printed = g_new (double, s2.s * s2.s), *g_barred = g_new (double, s2.s * s2.s);
      theorem33_gamma (&s1, &s2, 0, g_printed);
      theorem33_gamma (&s1, &s2, 1, g_barred);
      double d_printed = max_rel_diff (impl.Gamma, g_printed, s2.s * s2.s);
      double d_barred = max_rel_diff (impl.Gamma, g_barred, s2.s * s2.s);
      g_test_message ("rep %d: Theorem 3.3 Gamma~ as printed: rel diff %.2g; with "
                      "Omegabar~ in eqs. 37-38: %.2g", rep, d_printed, d_barred);
      g_assert_cmpfloat (d_barred, <, 1e-8);
      g_free (g_printed);
      g_free (g_barred);
      sg_sun_normalize (&s2);
      sg_sun_normalize (&impl);
      size_t p = nx, sl = s2.s;
      double d[5] = {
        max_rel_diff (s2.xi, impl.xi, p),
        max_rel_diff (s2.Omega, impl.Omega, p * p),
        max_rel_diff (s2.Delta, impl.Delta, p * sl),
        max_rel_diff (s2.gamma, impl.gamma, sl),
        max_rel_diff (s2.Gamma, impl.Gamma, sl * sl),
      };
      g_test_message ("rep %d (n=%zu s=%zu m=%zu): rel diff xi %.2g Omega %.2g "
                      "Delta %.2g gamma %.2g Gamma %.2g (raw Gamma %.2g)",
                      rep, p, prior.s, sl, d[0], d[1], d[2], d[3], d[4], raw);
      /* Explicit inverses of kernel correlation matrices with condition
       * numbers up to ~1e5 in the literal route: 1e-8 is ~1e3 x the
       * round-off one would expect from them. */
      for (int q = 0; q < 5; q++)
        g_assert_cmpfloat (d[q], <, 1e-8);
      g_assert_cmpfloat (raw, <, 1e-8);
      sg_sun_clear (&s0);
      sg_sun_clear (&s1);
      sg_sun_clear (&s2);
      sg_sun_clear (&impl);
      g_free (Sigma);
      g_free (R);
      sg_skewgp_posterior_free (post);
      sg_likelihood_clear (&lik);
      sg_data_clear (&data);
      sg_kernel_clear (&k);
    }
  sg_rng_free (rng);
}

/* ---- 3. Brute-force quadrature over 1-3 latent values --------------------- */

typedef struct {
  double log_ml;
  double mean, var, third, class_prob;  /* of f(x*) */
} quad_result;

/* Integrates prior x likelihood over f(X) (n <= 3) on a tensor grid in
 * whitened coordinates f = xi + L_K z, z in [-R, R]^n (trapezoid rule,
 * spectrally accurate for these smooth, Gaussian-tailed integrands). The
 * skew factor of a prior with s = 1 is P(L (f(u) - xi)/sigma + gamma > 0 |
 * f(X)) / Phi(gamma / sqrt(Gamma)) (the SUN density, 001 eq. 6). */
static quad_result
quadrature (const sg_skewgp_prior *prior, const double *X, const sg_likelihood *lik,
            const double *xs, size_t G)
{
  size_t n = lik->n, dim = prior->kernel.dim;
  g_assert_cmpuint (n, <=, 3);
  g_assert_cmpuint (prior->s, <=, 1);
  const sg_kernel *k = &prior->kernel;
  gsl_matrix *K = gsl_matrix_alloc (n, n);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set (K, i, j, sg_kernel_eval (k, X + i * dim, X + j * dim));
  gsl_matrix *LK = gsl_matrix_alloc (n, n);
  gsl_matrix_memcpy (LK, K);
  gsl_linalg_cholesky_decomp1 (LK);
  /* f(x*) | f(X): a^T (f - xi) + xi, variance vs; same for f(u). */
  double as[3], au[3], vs, vu = 0, kx[3], ku[3];
  for (size_t i = 0; i < n; i++)
    {
      kx[i] = sg_kernel_eval (k, xs, X + i * dim);
      ku[i] = prior->s ? sg_kernel_eval (k, prior->pseudo_points, X + i * dim) : 0;
    }
  gsl_vector_view kxv = gsl_vector_view_array (kx, n), kuv = gsl_vector_view_array (ku, n);
  memcpy (as, kx, sizeof kx);
  memcpy (au, ku, sizeof ku);
  gsl_vector_view asv = gsl_vector_view_array (as, n), auv = gsl_vector_view_array (au, n);
  gsl_linalg_cholesky_svx (LK, &asv.vector);
  gsl_linalg_cholesky_svx (LK, &auv.vector);
  double dot;
  gsl_blas_ddot (&kxv.vector, &asv.vector, &dot);
  vs = sg_kernel_eval (k, xs, xs) - dot;
  if (prior->s)
    {
      gsl_blas_ddot (&kuv.vector, &auv.vector, &dot);
      vu = sg_kernel_eval (k, prior->pseudo_points, prior->pseudo_points) - dot;
    }
  double sigma = sqrt (k->variance), xi = prior->mean;
  double log_norm_s = prior->s ? sg_norm_logcdf (prior->gamma[0]) : 0;  /* Gamma = 1 */
  /* event e = L (f(u) - xi)/sigma + gamma: given f(X) its sd and its
   * covariance with f(x*) (f(x*) is correlated with f(u) beyond f(X)) */
  double sd_e = prior->s ? sqrt (vu) / sigma : 1, g_e = 0;
  if (prior->s)
    {
      gsl_blas_ddot (&kxv.vector, &auv.vector, &dot);
      double c = prior->phases[0]
                 * (sg_kernel_eval (k, xs, prior->pseudo_points) - dot) / sigma;
      g_e = c / sd_e;   /* f* = a + g_e Z + eta, Z = (e - mean_e)/sd_e */
    }
  double w_eta = vs - g_e * g_e;
  gsl_integration_glfixed_table *gl = gsl_integration_glfixed_table_alloc (64);

  const double R = 7.5, h = 2 * R / (double) (G - 1);
  size_t total = 1;
  for (size_t i = 0; i < n; i++)
    total *= G;
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0, SC = 0;
  for (size_t idx = 0; idx < total; idx++)
    {
      double z[3], f[3], logw = 0;
      size_t rem = idx;
      for (size_t i = 0; i < n; i++)
        {
          size_t g = rem % G;
          rem /= G;
          z[i] = -R + h * (double) g;
          double wt = (g == 0 || g == G - 1) ? 0.5 : 1;
          logw += log (wt * h) + sg_norm_logpdf (z[i]);
        }
      for (size_t i = 0; i < n; i++)
        {
          f[i] = xi;
          for (size_t j = 0; j <= i; j++)
            f[i] += gsl_matrix_get (LK, i, j) * z[j];
        }
      for (size_t r = 0; r < lik->m_probit; r++)
        {
          double a = lik->z[r];
          for (size_t i = 0; i < n; i++)
            a += lik->W[r * n + i] * f[i];
          logw += sg_norm_logcdf (a / lik->sigma[r]);
        }
      for (size_t r = 0; r < lik->m_numeric; r++)
        {
          double a = lik->y[r];
          for (size_t i = 0; i < n; i++)
            a -= lik->C[r * n + i] * f[i];
          logw += sg_norm_logpdf (a / sqrt (lik->noise_var[r]))
                  - 0.5 * log (lik->noise_var[r]);
        }
      double a = xi;
      for (size_t i = 0; i < n; i++)
        a += as[i] * (f[i] - xi);
      /* raw moments of Z = (e - mean_e)/sd_e given e > 0 (a standard normal
       * truncated below alpha): E Z = lam, E Z^2 = 1 + alpha lam,
       * E Z^3 = (alpha^2 + 2) lam; Z = 0 without skew. */
      double EZ = 0, EZ2 = 0, EZ3 = 0, cpw;   /* class prob x weight */
      if (prior->s)
        {
          double mu = 0;
          for (size_t i = 0; i < n; i++)
            mu += au[i] * (f[i] - xi);
          double mean_e = prior->phases[0] * mu / sigma + prior->gamma[0];
          double alpha = -mean_e / sd_e, lam = sg_norm_hazard (mean_e / sd_e);
          double logw_pre = logw - log_norm_s;
          logw += sg_norm_logcdf (mean_e / sd_e) - log_norm_s;
          EZ = lam;
          EZ2 = 1 + alpha * lam;
          EZ3 = (alpha * alpha + 2) * lam;
          /* E[Phi(f*) | e > 0] = P(f* + eps > 0, e > 0) / P(e > 0): a
           * bivariate orthant, by 64-point Gauss-Legendre over Z */
          double acc = 0;
          for (size_t q = 0; q < 64; q++)
            {
              double zq, wq;
              gsl_integration_glfixed_point (alpha, alpha + 12, q, &zq, &wq, gl);
              acc += wq * sg_norm_pdf (zq)
                     * sg_norm_cdf ((a + g_e * zq) / sqrt (1 + w_eta));
            }
          cpw = exp (logw_pre) * acc;
        }
      else
        cpw = exp (logw) * sg_norm_cdf (a / sqrt (1 + vs));
      double w = exp (logw);
      double M1 = a + g_e * EZ;
      double M2 = a * a + 2 * a * g_e * EZ + g_e * g_e * EZ2 + w_eta;
      double M3 = a * a * a + 3 * a * a * g_e * EZ + 3 * a * g_e * g_e * EZ2
                  + g_e * g_e * g_e * EZ3 + 3 * w_eta * (a + g_e * EZ);
      S0 += w;
      S1 += w * M1;
      S2 += w * M2;
      S3 += w * M3;
      SC += cpw;
    }
  gsl_integration_glfixed_table_free (gl);
  quad_result r;
  r.log_ml = log (S0);
  r.mean = S1 / S0;
  r.var = S2 / S0 - r.mean * r.mean;
  r.third = S3 / S0 - 3 * r.mean * S2 / S0 + 2 * pow (r.mean, 3);
  r.class_prob = SC / S0;
  gsl_matrix_free (K);
  gsl_matrix_free (LK);
  return r;
}

typedef struct {
  const char *name;
  size_t n_inputs;
  int kinds;   /* which data set */
  size_t s;
} quad_case;

static void
build_case (int kinds, sg_data *data)
{
  double x[3] = { -0.4, 0.3, 1.1 };
  sg_data_init (data, 1);
  switch (kinds)
    {
    case 0:  /* one binary label */
      sg_data_add_binary (data, &x[0], 1);
      break;
    case 1:  /* two inputs: preferences both ways round plus a label */
      sg_data_add_preference (data, &x[1], &x[0]);
      sg_data_add_binary (data, &x[0], -1);
      break;
    case 2:  /* three inputs: numeric, valid, invalid, preference */
      sg_data_add_numeric (data, &x[0], 0.4);
      sg_data_add_valid (data, &x[1], 0.9, 0.5);
      sg_data_add_invalid (data, &x[2], 0.1);
      sg_data_add_preference (data, &x[2], &x[0]);
      break;
    default: /* three inputs, probit only (m = 3 + s: QMC for the evidence) */
      sg_data_add_preference (data, &x[1], &x[0]);
      sg_data_add_preference (data, &x[2], &x[1]);
      sg_data_add_binary (data, &x[2], -1);
      break;
    }
}

static void
test_quadrature (void)
{
  const int kinds[] = { 0, 1, 2, 3, 0, 2 };
  const size_t svals[] = { 0, 0, 0, 0, 1, 1 };
  double U[1] = { 0.6 }, L[1] = { -1 }, g[1] = { -0.5 };
  double xs[1] = { 0.55 };
  for (size_t c = 0; c < G_N_ELEMENTS (kinds); c++)
    {
      sg_data data;
      build_case (kinds[c], &data);
      sg_kernel k = { 0 };
      sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.3, 0.7);
      sg_skewgp_prior prior = { .kernel = k, .mean = 0.2, .s = svals[c],
                                .pseudo_points = U, .phases = L, .gamma = g };
      sg_noise noise = { .numeric_sd = 0.4, .probit_sd = 0.6 };
      sg_likelihood lik;
      sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
      size_t G = lik.n == 3 ? 121 : 401;
      quad_result q = quadrature (&prior, data.X, &lik, xs, G);

      /* Evidence: closed forms for m <= 2 (round-off), QMC otherwise (the
       * estimate's own error bar). Quadrature error is far below 1e-7 at
       * these grids (checked by halving h: changes < 1e-9). */
      sg_mvn_options mo;
      sg_mvn_options_default (&mo);
      mo.n_points = 200000;
      sg_skewgp_evidence ev;
      g_assert_cmpint (sg_skewgp_posterior_log_evidence (post, NULL, &mo, &ev), ==, SG_OK);
      double tol_ml = 1e-7 + 3 * ev.error;
      g_test_message ("case %zu (n=%zu s=%zu m=%zu): log ML %.10f quadrature %.10f "
                      "(error est %.2g, exact %d)", c, lik.n, prior.s,
                      sg_skewgp_posterior_n_latent (post), ev.log_ml, q.log_ml,
                      ev.error, ev.exact);
      g_assert_cmpfloat (fabs (ev.log_ml - q.log_ml), <, tol_ml);

      /* Exact class probability (000 Corollary 2) vs quadrature. */
      double cp, cp_err;
      g_assert_cmpint (sg_skewgp_class_probability_exact (post, xs, NULL, &mo, NULL, &cp, &cp_err),
                       ==, SG_OK);
      g_test_message ("  class prob exact %.8f quadrature %.8f (err %.2g)", cp,
                      q.class_prob, cp_err);
      g_assert_cmpfloat (fabs (cp - q.class_prob), <, 1e-7 + 3 * cp_err);

      /* Monte Carlo summaries vs quadrature: tolerance 5 standard errors
       * with the effective sample size of the chain. */
      const size_t N = 8000;
      sg_skewgp_samples *s = make_samples (post, N, 100 + c);
      double ess = samples_ess (post, s);
      sg_point_summary sum;
      g_assert_cmpint (sg_skewgp_summarize (post, s, xs, 1, NULL, NULL, &sum), ==, SG_OK);
      double sd = sqrt (q.var);
      double se_mean = sd / sqrt (ess);
      /* var of the sample variance ~ (mu4 - sd^4)/ess <= 3 sd^4 / ess for
       * these near-Gaussian laws: se(sd) ~ sd sqrt(3/(4 ess)) */
      double se_sd = sd * sqrt (0.75 / ess) + 1e-12;
      double skew_q = q.third / pow (q.var, 1.5);
      double se_skew = sqrt (6 / ess) + 1e-12;
      g_test_message ("  ESS %.0f: mean %.5f vs %.5f (se %.2g); sd %.5f vs %.5f; "
                      "skew %.4f vs %.4f; class %.5f vs %.5f", ess, sum.mean, q.mean,
                      se_mean, sum.sd, sd, sum.skewness, skew_q,
                      sum.class_probability, q.class_prob);
      g_assert_cmpfloat (fabs (sum.mean - q.mean), <, 5 * se_mean);
      g_assert_cmpfloat (fabs (sum.sd - sd), <, 5 * se_sd);
      g_assert_cmpfloat (fabs (sum.skewness - skew_q), <, 5 * se_skew);
      g_assert_cmpfloat (fabs (sum.class_probability - q.class_prob), <,
                         5 * 0.4 * se_mean + 1e-12);  /* |dPhi/df| <= 0.4 */
      g_assert_cmpfloat (sum.lower, <, sum.median);
      g_assert_cmpfloat (sum.median, <, sum.upper);
      g_assert_cmpfloat (sum.hpd_upper - sum.hpd_lower, <=, sum.upper - sum.lower + 1e-12);

      sg_skewgp_samples_free (s);
      sg_skewgp_posterior_free (post);
      sg_likelihood_clear (&lik);
      sg_data_clear (&data);
      sg_kernel_clear (&k);
    }
}

/* ---- 3b. Log evidence vs R (mvtnorm) for m = 8-12 -------------------------- */

/* The data sets of tests/data/gen-skewgp-ref.R, rebuilt here. */
static void
build_r_case (size_t n, size_t s, sg_data *data, sg_skewgp_prior *prior,
              double *U, double *L, double *g)
{
  double x[16];
  for (size_t i = 0; i < n; i++)
    x[i] = fmod (0.37 * (double) i, 3.1);
  sg_data_init (data, 1);
  sg_data_add_numeric (data, &x[0], 0.4);
  sg_data_add_numeric (data, &x[1], -0.3);
  sg_data_add_valid (data, &x[2], 0.9, 0.5);
  sg_data_add_invalid (data, &x[3], 0.6);
  sg_data_add_binary (data, &x[4], 1);
  sg_data_add_binary (data, &x[5], -1);
  for (size_t i = 6; i + 1 < n; i++)
    sg_data_add_preference (data, &x[i], &x[i + 1]);
  sg_data_add_preference (data, &x[6], &x[0]);
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.3, 0.6);
  U[0] = 0.8; U[1] = 2.2; L[0] = 1; L[1] = -1; g[0] = 0.3; g[1] = -0.2;
  *prior = (sg_skewgp_prior) { .kernel = k, .mean = 0.1, .s = s, .pseudo_points = U,
                               .phases = L, .gamma = g };
}

static void
test_evidence_r (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
                                                 "skewgp-evidence-ref.csv", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  int checked = 0;
  for (int i = 1; lines[i] && *lines[i]; i++)
    {
      size_t n, s, m;
      double ref, ref_err;
      g_assert_cmpint (sscanf (lines[i], "%zu,%zu,%zu,%lf,%lf", &n, &s, &m, &ref, &ref_err),
                       ==, 5);
      sg_data data;
      sg_skewgp_prior prior;
      double U[2], L[2], g[2];
      build_r_case (n, s, &data, &prior, U, L, g);
      sg_noise noise = { 0.3, 0.5 };
      sg_likelihood lik;
      sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
      g_assert_cmpuint (sg_skewgp_posterior_n_latent (post), ==, m);
      sg_mvn_options mo;
      sg_mvn_options_default (&mo);
      mo.n_points = 400000;
      sg_skewgp_evidence ev;
      g_assert_cmpint (sg_skewgp_posterior_log_evidence (post, NULL, &mo, &ev), ==, SG_OK);
      g_test_message ("n=%zu s=%zu m=%zu: log ML %.8f, R %.8f (errors %.2g, %.2g)", n, s,
                      m, ev.log_ml, ref, ev.error, ref_err);
      /* both error estimates are ~99% bounds of relative errors */
      g_assert_cmpfloat (fabs (ev.log_ml - ref), <, 2 * (ev.error + ref_err) + 1e-9);
      /* the paper's batch bound: below the evidence (up to the QMC error) */
      double bound, lbound;
      g_assert_cmpint (sg_skewgp_posterior_batch_bound (post, 4, NULL, NULL, &mo, &bound,
                                                        &lbound), ==, SG_OK);
      g_assert_cmpfloat (lbound, <=, ev.log_ml + 2 * ev.error);
      checked++;
      sg_skewgp_posterior_free (post);
      sg_likelihood_clear (&lik);
      sg_kernel_clear (&prior.kernel);
      sg_data_clear (&data);
    }
  g_assert_cmpint (checked, ==, 3);
}

/* ---- 4. Exact class probability vs Monte Carlo on a larger problem ------- */

static void
test_class_probability_mc (void)
{
  gsl_rng *rng = sg_rng_new (5, 0);
  sg_data data;
  sg_data_init (&data, 2);
  for (int i = 0; i < 8; i++)
    {
      double x[2] = { gsl_rng_uniform (rng) * 2 - 1, gsl_rng_uniform (rng) * 2 - 1 };
      sg_data_add_binary (&data, x, x[0] + 0.5 * x[1] > 0 ? 1 : -1);
    }
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 2, 2.0, 0.6);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_noise noise = { .numeric_sd = 1, .probit_sd = 1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  const size_t N = 10000;
  sg_skewgp_samples *s = make_samples (post, N, 77);
  double ess = samples_ess (post, s);
  double XS[4 * 2] = { 0.8, 0.1, -0.5, 0.3, 0.0, 0.0, 1.5, -1.5 };
  sg_point_summary sum[4];
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, 4, NULL, NULL, sum), ==, SG_OK);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 100000;
  for (int i = 0; i < 4; i++)
    {
      double cp, err;
      g_assert_cmpint (sg_skewgp_class_probability_exact (post, XS + 2 * i, NULL, &mo, NULL,
                                                          &cp, &err), ==, SG_OK);
      /* SE of the Rao-Blackwellised MC estimate <= 0.4 sd(f) / sqrt(ESS) */
      double se = 0.4 * sum[i].sd / sqrt (ess);
      g_test_message ("x%d: exact %.5f (err %.1g) MC %.5f (se %.2g, ESS %.0f)", i, cp,
                      err, sum[i].class_probability, se, ess);
      g_assert_cmpfloat (fabs (cp - sum[i].class_probability), <, 5 * se + 3 * err);
    }
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_rng_free (rng);
  sg_kernel_clear (&k);
}

/* ---- 5. The 1-D preference example of 001 sec. 3.2 ---------------------- */

static double
g_true (double x)
{
  return cos (5 * x) + exp (-x * x / 2);
}

static void
test_preference_example (void)
{
  gsl_rng *rng = sg_rng_new (3, 0);
  double x[25];
  for (int i = 0; i < 25; i++)
    x[i] = -2.6 + 5.2 * gsl_rng_uniform (rng);
  sg_data data;
  sg_data_init (&data, 1);
  int added = 0;
  while (added < 45)
    {
      int a = (int) gsl_rng_uniform_int (rng, 25), b = (int) gsl_rng_uniform_int (rng, 25);
      if (a == b)
        continue;
      int win = g_true (x[a]) > g_true (x[b]) ? a : b;
      int lose = win == a ? b : a;
      g_assert_cmpint (sg_data_add_preference (&data, &x[win], &x[lose]), ==, SG_OK);
      added++;
    }
  /* reference: the best point of the data set */
  double xr = x[0];
  for (int i = 1; i < 25; i++)
    if (g_true (x[i]) > g_true (xr))
      xr = x[i];
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 50, 0.33);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  /* probit_sd = 1/sqrt2 makes the factor Phi(f(w) - f(l)), the paper's
   * likelihood (24) with sigma_v = 1 */
  sg_noise noise = { .numeric_sd = 1, .probit_sd = M_SQRT1_2 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  const size_t N = 6000;
  sg_skewgp_samples *s = make_samples (post, N, 9);
  double ess = samples_ess (post, s);

  /* SS of h(x) = f(x) - f(x_r) from joint samples on a grid */
  gsl_rng *rng2 = sg_rng_new (4, 0);
  double max_abs_ss = 0, at = 0, pair[2], out[2 * 6000];
  for (int i = 0; i <= 100; i++)
    {
      pair[0] = -2.6 + 5.2 * i / 100.0;
      pair[1] = xr;
      if (fabs (pair[0] - xr) < 1e-9)
        continue;
      g_assert_cmpint (sg_skewgp_joint_samples (post, s, pair, 2, rng2, out), ==, SG_OK);
      double mu = 0, c2 = 0, c3 = 0;
      for (size_t j = 0; j < N; j++)
        mu += out[j] - out[N + j];
      mu /= N;
      for (size_t j = 0; j < N; j++)
        {
          double d = out[j] - out[N + j] - mu;
          c2 += d * d;
          c3 += d * d * d;
        }
      double ss = (c3 / N) / pow (c2 / N, 1.5);
      if (fabs (ss) > max_abs_ss)
        {
          max_abs_ss = fabs (ss);
          at = pair[0];
        }
    }
  g_test_message ("preference example: x_r = %.3f, max |SS(h)| = %.3f at x = %.2f, "
                  "ESS %.0f of %zu", xr, max_abs_ss, at, ess, N);
  /* A Gaussian (Laplace/EP) has SS = 0; the sample SS of a Gaussian has
   * standard error sqrt(6/ESS) (< 0.05 here), so 0.5 is > 10 standard
   * errors away from symmetry. Measured: max |SS| = 0.79 near x = 1.25
   * (seed 3 data set; the paper's Figure 5 shows |SS| of the same order). */
  g_assert_cmpfloat (sqrt (6 / ess), <, 0.05);
  g_assert_cmpfloat (max_abs_ss, >, 0.5);
  sg_rng_free (rng2);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_rng_free (rng);
  sg_kernel_clear (&k);
}

/* ---- 6. The skewed prior of 000 Figure 3 ---------------------------------- */

typedef struct {
  double mean_u1, mean_u2, se;
} prior_means;

static prior_means
skewed_prior_means (double g1, double g2, double L2)
{
  double U[2] = { 0.3, 0.7 }, L[2] = { 1, L2 }, g[2] = { g1, g2 };
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 0.3);
  sg_skewgp_prior prior = { .kernel = k, .mean = 0, .s = 2, .pseudo_points = U,
                            .phases = L, .gamma = g };
  sg_data data;
  sg_data_init (&data, 1);
  sg_noise noise = { 1, 1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  /* no data: the evidence is exactly 1 */
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_skewgp_posterior_log_evidence (post, NULL, NULL, &ev), ==, SG_OK);
  g_assert_cmpfloat (fabs (ev.log_ml), <, 1e-12);
  const size_t N = 4000;
  sg_skewgp_samples *s = make_samples (post, N, 31);
  double ess = samples_ess (post, s);
  sg_point_summary sum[2];
  g_assert_cmpint (sg_skewgp_summarize (post, s, U, 2, NULL, NULL, sum), ==, SG_OK);
  prior_means r = { sum[0].mean, sum[1].mean, 1.0 / sqrt (ess) };  /* prior sd 1 */
  g_test_message ("gamma (%g, %g), L22 %g: mean f(u1) %.3f, f(u2) %.3f, se %.3f",
                  g1, g2, L2, r.mean_u1, r.mean_u2, r.se);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_kernel_clear (&k);
  return r;
}

static void
test_skewed_prior (void)
{
  /* (a) large gamma: a GP, mean 0 (5 standard errors) */
  prior_means a = skewed_prior_means (6, 6, 1);
  g_assert_cmpfloat (fabs (a.mean_u1), <, 5 * a.se);
  g_assert_cmpfloat (fabs (a.mean_u2), <, 5 * a.se);
  /* (b) smaller gamma: the mean shifts up at both pseudo-points */
  prior_means b = skewed_prior_means (-0.5, -0.5, 1);
  g_assert_cmpfloat (b.mean_u1, >, 10 * b.se);
  g_assert_cmpfloat (b.mean_u2, >, 10 * b.se);
  /* (c) phase L22 = -1: the mean shifts down at u2 */
  prior_means c = skewed_prior_means (-0.5, -0.5, -1);
  g_assert_cmpfloat (c.mean_u1, >, 10 * c.se);
  g_assert_cmpfloat (c.mean_u2, <, -10 * c.se);
  /* (d) decreasing both gamma magnifies the effect */
  prior_means d = skewed_prior_means (-1.5, -1.5, -1);
  g_assert_cmpfloat (d.mean_u1 - c.mean_u1, >, 5 * (c.se + d.se));
  g_assert_cmpfloat (c.mean_u2 - d.mean_u2, >, 5 * (c.se + d.se));
}

/* ---- 7. Batch bound and argument checks ------------------------------------ */

static void
test_batch_bound (void)
{
  gsl_rng *rng = sg_rng_new (8, 0);
  sg_data data;
  random_mixed_data (rng, &data, 7);
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 0.8);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_noise noise = { 0.5, 0.5 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 100000;
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_skewgp_posterior_log_evidence (post, NULL, &mo, &ev), ==, SG_OK);
  for (size_t batch = 1; batch <= 8; batch *= 2)
    {
      double bound, lbound;
      g_assert_cmpint (sg_skewgp_posterior_batch_bound (post, batch, rng, NULL, &mo,
                                                        &bound, &lbound), ==, SG_OK);
      g_test_message ("batch %zu: Phi_m >= %.5g, log ML >= %.5g (log ML %.5f +- %.1g)",
                      batch, bound, lbound, ev.log_ml, ev.error);
      /* a lower bound, up to the QMC error of its blocks and of log ML */
      g_assert_cmpfloat (bound, <=, exp (ev.log_phi_m) * (1 + 3 * ev.error) + 1e-6);
      if (batch >= 8)  /* one block: the bound is Phi_m itself */
        g_assert_cmpfloat (fabs (lbound - ev.log_ml), <, 3 * ev.error + 1e-6);
    }
  /* bad arguments */
  sg_skewgp_posterior *p2 = NULL;
  double bad_phase[1] = { 0.5 }, U[1] = { 0 }, g[1] = { 0 };
  sg_skewgp_prior bad = { .kernel = k, .s = 1, .pseudo_points = U, .phases = bad_phase,
                          .gamma = g };
  g_assert_cmpint (sg_skewgp_posterior_new (&bad, data.X, &lik, &p2), ==, SG_EINVAL);
  g_assert_null (p2);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_rng_free (rng);
  sg_kernel_clear (&k);
}

/* ---- 8. Kept variable order across evidence calls (fitting) --------------- */

/* A SkewGP_3 prior with binary data in 1-D: the log evidence needs two QMC
 * probabilities on one workspace, the m-dimensional P(t > 0 | y) (m = 3 + 8)
 * and the 3-dimensional prior normaliser Phi_3(gamma; Gamma). */
static sg_skewgp_posterior *
keep_order_posterior (double lengthscale, const double *gamma, sg_data *data,
                      sg_likelihood *lik)
{
  static const double U[3] = { -0.8, 0.1, 0.9 }, L[3] = { 1, -1, 1 };
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, lengthscale);
  sg_skewgp_prior prior = { .kernel = k, .mean = 0, .s = 3, .pseudo_points = U,
                            .phases = L, .gamma = gamma };
  sg_noise noise = { 0.5, 0.3 };
  sg_skewgp_posterior *post = make_posterior (&prior, data, &noise, lik);
  sg_kernel_clear (&k);
  return post;
}

/* log P(t > 0) of N(mean, cov), deterministic points, on workspace W. */
static double
orthant_on (sg_mvn_workspace *w, size_t d, const double *mean, const double *cov,
            int keep_order)
{
  double lower[16] = { 0 };
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 2000;
  mo.deterministic = 1;
  mo.keep_order = keep_order;
  sg_mvn_result r;
  g_assert_cmpint (sg_mvn_prob (w, d, mean, cov, lower, NULL, &mo, NULL, &r), ==, SG_OK);
  return r.log_value;
}

/* The fitter evaluates the evidence through one workspace with
 * deterministic points and keep_order, so that the objective is a smooth
 * function of the hyperparameters: after the first call, both
 * probabilities must use the variable order chosen at that first call,
 * whatever the other probability did on the workspace in between. The
 * reference computes each probability alone on its own workspace, primed
 * at the first hyperparameters: the values must agree to the last bit
 * (same points, same order, same arithmetic). The two hyperparameter
 * settings are chosen so that a fresh order differs (checked below: the
 * test could not detect a lost order otherwise). */
static void
test_evidence_keeps_order (void)
{
  sg_data data;
  sg_data_init (&data, 1);
  static const double xs[8] = { -0.9, -0.6, -0.35, -0.1, 0.2, 0.45, 0.7, 0.95 };
  static const int labels[8] = { 1, 1, -1, 1, -1, -1, 1, -1 };
  for (size_t i = 0; i < 8; i++)
    sg_data_add_binary (&data, &xs[i], labels[i]);
  const double gamma1[3] = { 0.3, -0.4, 0.8 }, gamma2[3] = { -0.9, 1.2, -0.2 };
  sg_likelihood lik1, lik2;
  sg_skewgp_posterior *p1 = keep_order_posterior (0.3, gamma1, &data, &lik1);
  sg_skewgp_posterior *p2 = keep_order_posterior (1.5, gamma2, &data, &lik2);
  size_t m = sg_skewgp_posterior_n_latent (p1), s = 3;
  g_assert_cmpuint (m, ==, 11);

  /* the evidence path: one workspace, first call chooses, second keeps */
  sg_mvn_workspace *w = sg_mvn_workspace_new (m);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 2000;
  mo.deterministic = 1;
  sg_skewgp_evidence e1, e2;
  g_assert_cmpint (sg_skewgp_posterior_log_evidence (p1, w, &mo, &e1), ==, SG_OK);
  mo.keep_order = 1;
  g_assert_cmpint (sg_skewgp_posterior_log_evidence (p2, w, &mo, &e2), ==, SG_OK);

  /* references: each probability on its own workspace */
  sg_mvn_workspace *wm = sg_mvn_workspace_new (m), *ws = sg_mvn_workspace_new (s);
  double first_m = orthant_on (wm, m, sg_skewgp_posterior_t_mean (p1),
                               sg_skewgp_posterior_t_cov (p1), 0);
  double kept_m = orthant_on (wm, m, sg_skewgp_posterior_t_mean (p2),
                              sg_skewgp_posterior_t_cov (p2), 1);
  double fresh_m = orthant_on (wm, m, sg_skewgp_posterior_t_mean (p2),
                               sg_skewgp_posterior_t_cov (p2), 0);
  /* the prior normaliser: Gamma = L Kbar(U,U) L is the pseudo-point block
   * of S_tt before conditioning; recompute it here from the kernel */
  static const double U[3] = { -0.8, 0.1, 0.9 }, L[3] = { 1, -1, 1 };
  double Gam1[9], Gam2[9];
  sg_kernel k1 = { 0 }, k2 = { 0 };
  sg_kernel_init (&k1, SG_KERNEL_RBF, 1, 1.0, 0.3);
  sg_kernel_init (&k2, SG_KERNEL_RBF, 1, 1.0, 1.5);
  sg_kernel_matrix (&k1, U, 3, U, 3, Gam1);
  sg_kernel_matrix (&k2, U, 3, U, 3, Gam2);
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 3; j++)
      {
        Gam1[i * 3 + j] *= L[i] * L[j];
        Gam2[i * 3 + j] *= L[i] * L[j];
      }
  double first_s = orthant_on (ws, s, gamma1, Gam1, 0);
  double kept_s = orthant_on (ws, s, gamma2, Gam2, 1);
  double fresh_s = orthant_on (ws, s, gamma2, Gam2, 0);
  g_test_message ("log Phi_m: first %.10f, kept %.10f, fresh %.10f, evidence path %.10f",
                  first_m, kept_m, fresh_m, e2.log_phi_m);
  g_test_message ("log Phi_s: first %.10f, kept %.10f, fresh %.10f, evidence path %.10f",
                  first_s, kept_s, fresh_s, e2.log_phi_s);
  /* the first call chose afresh, like the references */
  g_assert_cmpfloat (e1.log_phi_m, ==, first_m);
  g_assert_cmpfloat (e1.log_phi_s, ==, first_s);
  /* a new order would change the estimates by far more than round-off */
  g_assert_cmpfloat (fabs (fresh_m - kept_m), >, 1e-9);
  g_assert_cmpfloat (fabs (fresh_s - kept_s), >, 1e-9);
  /* the evidence path kept both orders */
  g_assert_cmpfloat (e2.log_phi_m, ==, kept_m);
  g_assert_cmpfloat (e2.log_phi_s, ==, kept_s);

  sg_mvn_workspace_free (w);
  sg_mvn_workspace_free (wm);
  sg_mvn_workspace_free (ws);
  sg_skewgp_posterior_free (p1);
  sg_skewgp_posterior_free (p2);
  sg_likelihood_clear (&lik1);
  sg_likelihood_clear (&lik2);
  sg_data_clear (&data);
  sg_kernel_clear (&k1);
  sg_kernel_clear (&k2);
}

/* ---- 9. Moment maps (fast_moments) against the sample path ---------------- */

/* 2-D preference posterior: DUELS duels between uniform points, winner by
 * sin(3 x1) + cos(3 x2) (the benchmark's problem), RBF l = 0.2. */
static double
moment_map_max_errors (size_t duels, size_t grid, int jitter, double *dmean,
                       double *dsd, double *dskew)
{
  gsl_rng *rng = sg_rng_new (40 + duels, 0);
  sg_data data;
  sg_data_init (&data, 2);
  for (size_t k = 0; k < duels; k++)
    {
      double a[2] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      double b[2] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      int a_wins = sin (3 * a[0]) + cos (3 * a[1]) >= sin (3 * b[0]) + cos (3 * b[1]);
      sg_data_add_preference (&data, a_wins ? a : b, a_wins ? b : a);
    }
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 2, 1.0, 0.2);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0.3);
  sg_noise noise = { 1, 0.1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  sg_skewgp_samples *smp = make_samples (post, 2000, 9);
  size_t b = grid * grid;
  double *XS = g_new (double, 2 * b);
  for (size_t i = 0; i < b; i++)
    {
      XS[2 * i] = (double) (i / grid) / (double) (grid - 1);
      XS[2 * i + 1] = (double) (i % grid) / (double) (grid - 1);
      if (jitter)   /* scattered points: no shared coordinate values */
        {
          XS[2 * i] += 1e-3 * gsl_rng_uniform (rng);
          XS[2 * i + 1] += 1e-3 * gsl_rng_uniform (rng);
        }
    }
  sg_point_summary *exact = g_new (sg_point_summary, b), *fast = g_new (sg_point_summary, b);
  sg_summary_options o;
  sg_summary_options_default (&o);
  o.fields = SG_SUMMARY_MOMENTS;
  o.batch = 100;   /* several batches, one partial */
  g_assert_cmpint (sg_skewgp_summarize (post, smp, XS, b, &o, NULL, exact), ==, SG_OK);
  o.fast_moments = 1;
  g_assert_cmpint (sg_skewgp_summarize (post, smp, XS, b, &o, NULL, fast), ==, SG_OK);
  /* mean and sd only: the same numbers, no skewness */
  sg_point_summary *msd = g_new (sg_point_summary, b);
  o.fast_moments = SG_SUMMARY_FAST_MEAN_SD;
  g_assert_cmpint (sg_skewgp_summarize (post, smp, XS, b, &o, NULL, msd), ==, SG_OK);
  for (size_t i = 0; i < b; i++)
    {
      g_assert_cmpfloat (fabs (msd[i].mean - exact[i].mean), <, 1e-10 * exact[i].sd);
      g_assert_cmpfloat (fabs (msd[i].sd - exact[i].sd), <, 1e-10 * exact[i].sd);
      g_assert_true (isnan (msd[i].skewness));
    }
  g_free (msd);
  *dmean = *dsd = *dskew = 0;
  double max_skew = 0;
  for (size_t i = 0; i < b; i++)
    {
      *dmean = fmax (*dmean, fabs (fast[i].mean - exact[i].mean) / exact[i].sd);
      *dsd = fmax (*dsd, fabs (fast[i].sd - exact[i].sd) / exact[i].sd);
      *dskew = fmax (*dskew, fabs (fast[i].skewness - exact[i].skewness));
      max_skew = fmax (max_skew, fabs (exact[i].skewness));
      g_assert_true (isnan (fast[i].median) && isnan (fast[i].class_probability));
    }
  g_free (XS);
  g_free (exact);
  g_free (fast);
  sg_skewgp_samples_free (smp);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_rng_free (rng);
  sg_kernel_clear (&k);
  return max_skew;
}

/* Mean and sd are the same sample moments computed in another order: they
 * agree to round-off (1e-10 of the sd; the sums run over N = 2000 terms of
 * size ~sd; on grids the RBF kernel comes from per-coordinate tables, equal
 * to a few ulp). With m = 20 duels the rank of the expansion is at most m <= 48
 * and nothing is left out, so the skewness agrees to round-off as well.
 * With m = 80 the expansion is truncated: the skewness may differ from the
 * full-sample statistic by the left-out part, measured below 0.012 on the
 * benchmark problems (tests/bench/results-skewgp.md); 0.03 is allowed here,
 * still below the statistic's own Monte Carlo standard error (sqrt(6/N) =
 * 0.055 for N = 2000). The maps must also be skewed enough (max |SS| > 0.15)
 * for the comparison to mean something. */
static void
test_fast_moments (void)
{
  double dm, ds, dk;
  /* a grid (the kernel from per-coordinate tables) and scattered points */
  for (int jitter = 0; jitter < 2; jitter++)
    {
      double sk = moment_map_max_errors (20, 25, jitter, &dm, &ds, &dk);
      g_test_message ("m = 20%s: max |dmean|/sd %.2g, |dsd|/sd %.2g, |dskew| %.2g "
                      "(max |SS| %.2f)", jitter ? " scattered" : "", dm, ds, dk, sk);
      g_assert_cmpfloat (dm, <, 1e-10);
      g_assert_cmpfloat (ds, <, 1e-10);
      g_assert_cmpfloat (dk, <, 1e-10);
      g_assert_cmpfloat (sk, >, 0.15);
    }
  double sk = moment_map_max_errors (80, 40, 0, &dm, &ds, &dk);
  g_test_message ("m = 80: max |dmean|/sd %.2g, |dsd|/sd %.2g, |dskew| %.2g (max |SS| %.2f)",
                  dm, ds, dk, sk);
  g_assert_cmpfloat (dm, <, 1e-10);
  g_assert_cmpfloat (ds, <, 1e-10);
  g_assert_cmpfloat (dk, <, 0.03);
  g_assert_cmpfloat (sk, >, 0.15);
}

static int
cancel_now (double fraction, void *user_data)
{
  (void) fraction;
  (*(int *) user_data)++;
  return 1;
}

static void
test_cancel (void)
{
  sg_data data;
  build_case (3, &data);
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 0.5);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_noise noise = { 1, 1 };
  sg_likelihood lik;
  sg_skewgp_posterior *post = make_posterior (&prior, &data, &noise, &lik);
  sg_skewgp_samples *s = make_samples (post, 100, 1);
  int calls = 0;
  sg_progress p = { cancel_now, &calls };
  sg_point_summary sum = { .mean = 42 };
  double x = 0;
  g_assert_cmpint (sg_skewgp_summarize (post, s, &x, 1, NULL, &p, &sum), ==, SG_ECANCELLED);
  g_assert_cmpfloat (sum.mean, ==, 42);   /* untouched */
  g_assert_cmpint (calls, ==, 1);
  /* threads: identical results, and a cancel stops every thread */
  const size_t b = 1000;
  double *XS = g_new (double, b);
  for (size_t i = 0; i < b; i++)
    XS[i] = -1 + 3.0 * (double) i / (double) b;
  sg_point_summary *one = g_new (sg_point_summary, b), *two = g_new (sg_point_summary, b);
  sg_summary_options o;
  sg_summary_options_default (&o);
  o.batch = 16;
  o.reference = XS;
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, b, &o, NULL, one), ==, SG_OK);
  o.n_threads = 2;
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, b, &o, NULL, two), ==, SG_OK);
  g_assert_cmpint (memcmp (one, two, b * sizeof *one), ==, 0);
  two[0].mean = 42;
  calls = 0;
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, b, &o, &p, two), ==, SG_ECANCELLED);
  g_assert_cmpfloat (two[0].mean, ==, 42);
  g_assert_cmpint (calls, ==, 1);
  g_free (one);
  g_free (two);
  g_free (XS);

  sg_skewgp_samples *s2 = NULL;
  gsl_rng *rng = sg_rng_new (1, 0);
  g_assert_cmpint (sg_skewgp_sample (post, 100000, NULL, rng, &p, &s2), ==, SG_ECANCELLED);
  g_assert_null (s2);
  sg_rng_free (rng);
  sg_skewgp_samples_free (s);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&data);
  sg_kernel_clear (&k);
}


/* ---- 8. SUN density and moments (the prior explorer's engine) ------------- */

/* The SUN of 000 Figure 2 (p = 2, xi = 0, Omegabar_12 = 0.88, gamma = 0):
 * panel 1 = (a1) s = 1, Delta = (0.88, 0.61)^T; panel 3 = (a3) s = 2,
 * Gamma_12 = 0.96, Delta = [0.61 0.76; 0.88 0.97] (row i = component i). */
static void
figure2_sun (int panel, sg_sun *sun)
{
  size_t s = panel == 1 ? 1 : 2;
  g_assert_cmpint (sg_sun_init (sun, 2, s), ==, SG_OK);
  double Om[4] = { 1, 0.88, 0.88, 1 };
  memcpy (sun->Omega, Om, sizeof Om);
  if (panel == 1)
    {
      sun->Delta[0] = 0.88;
      sun->Delta[1] = 0.61;
      sun->Gamma[0] = 1;
    }
  else
    {
      double D[4] = { 0.61, 0.76, 0.88, 0.97 }, G[4] = { 1, 0.96, 0.96, 1 };
      memcpy (sun->Delta, D, sizeof D);
      memcpy (sun->Gamma, G, sizeof G);
    }
}

/* The 1-D marginal SUN_{1,s} of component I (000 eq. 3). */
static void
marginal_sun (const sg_sun *sun, size_t i, sg_sun *out)
{
  size_t p = sun->p, s = sun->s;
  g_assert_cmpint (sg_sun_init (out, 1, s), ==, SG_OK);
  out->xi[0] = sun->xi[i];
  out->Omega[0] = sun->Omega[i * p + i];
  memcpy (out->Delta, sun->Delta + i * s, s * sizeof (double));
  memcpy (out->gamma, sun->gamma, s * sizeof (double));
  memcpy (out->Gamma, sun->Gamma, s * s * sizeof (double));
}

/* Moments of a 1-D SUN by the trapezoid rule on its density over
 * xi +- 12 omega with N points (spectrally accurate for a smooth density
 * with Gaussian tails). */
static void
quadrature_moments (const sg_sun *sun1, size_t N, double *mass, double *mean,
                    double *var)
{
  double omega = sqrt (sun1->Omega[0]), lo = sun1->xi[0] - 12 * omega;
  double h = 24 * omega / (double) (N - 1);
  g_autofree double *z = g_new (double, N);
  g_autofree double *d = g_new (double, N);
  for (size_t j = 0; j < N; j++)
    z[j] = lo + h * (double) j;
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 20000;
  mo.deterministic = 1;
  g_assert_cmpint (sg_sun_density (sun1, z, N, NULL, &mo, d), ==, SG_OK);
  double m0 = 0, m1 = 0, m2 = 0;
  for (size_t j = 0; j < N; j++)
    {
      double wgt = (j == 0 || j == N - 1) ? 0.5 * h : h;
      m0 += wgt * d[j];
      m1 += wgt * d[j] * z[j];
      m2 += wgt * d[j] * z[j] * z[j];
    }
  *mass = m0;
  *mean = m1 / m0;
  *var = m2 / m0 - *mean * *mean;
}

/* s = 1 is the extended skew-normal (Azzalini 2013, sec. 2.2):
 * E = xi + omega delta zeta1(tau), Var = omega^2 (1 - delta^2 zeta1 (tau +
 * zeta1)), zeta1 = phi / Phi, with delta, tau scaled by sqrt(Gamma). The
 * moments are closed forms on both sides: round-off (1e-12). The density
 * with gamma = 0 is Azzalini's 2 phi(z) Phi(alpha z), alpha = delta /
 * sqrt(1 - delta^2), likewise up to the 1e-12 relative jitter that
 * sg_sun_density adds to the conditional Gamma (1e-10). */
static void
test_sun_moments_esn (void)
{
  const double deltas[] = { 0.9, -0.4, 0.99 }, gammas[] = { 0, 1.3, -2.5 };
  for (size_t c = 0; c < G_N_ELEMENTS (deltas); c++)
    {
      sg_sun sun;
      g_assert_cmpint (sg_sun_init (&sun, 1, 1), ==, SG_OK);
      double omega = 1.7, G = 2.0, delta = deltas[c] * sqrt (G);
      sun.xi[0] = 0.3;
      sun.Omega[0] = omega * omega;
      sun.Delta[0] = delta;
      sun.gamma[0] = gammas[c];
      sun.Gamma[0] = G;
      double mean, var;
      g_assert_cmpint (sg_sun_marginal_moments (&sun, NULL, NULL, &mean, &var), ==, SG_OK);
      double tau = gammas[c] / sqrt (G), d = delta / sqrt (G);
      double z1 = exp (sg_norm_logpdf (tau) - sg_norm_logcdf (tau));
      double m_ref = 0.3 + omega * d * z1;
      double v_ref = omega * omega * (1 - d * d * z1 * (tau + z1));
      g_test_message ("ESN delta %g tau %g: mean %.15g (ref %.15g), var %.15g (ref %.15g)",
                      d, tau, mean, m_ref, var, v_ref);
      g_assert_cmpfloat (fabs (mean - m_ref), <, 1e-12 * (1 + fabs (m_ref)));
      g_assert_cmpfloat (fabs (var - v_ref), <, 1e-12 * v_ref);
      if (gammas[c] == 0)
        {
          double z = -0.8, dens;
          g_assert_cmpint (sg_sun_density (&sun, &z, 1, NULL, NULL, &dens), ==, SG_OK);
          double u = (z - 0.3) / omega, alpha = d / sqrt (1 - d * d);
          double ref = 2 / omega * sg_norm_pdf (u) * sg_norm_cdf (alpha * u);
          g_assert_cmpfloat (fabs (dens - ref), <, 1e-10 * ref);
        }
      sg_sun_clear (&sun);
    }
}

/* The prior of SkewGP_s (000 Figure 3: RBF, l = 0.3, sigma^2 = 1, U = (0.3,
 * 0.7), gamma = (-0.5, -0.5), L = (1, -1); and an s = 3 variant) at a few
 * x: the closed-form SUN moments of sg_sun_marginal_moments against
 *  (a) quadrature of the SUN density of f(x) (000 eq. 1): the density
 *      integrates to 1 and its moments agree. For s = 2 every Phi is a
 *      closed form, so the quadrature error (trapezoid, 4001 points,
 *      ~1e-10) bounds the gap: 1e-8. For s = 3 the density's Phi_3 is QMC
 *      with 2e4 points per abscissa (801 of them; relative error ~1e-5 by
 *      sg_mvn's estimate) and the moments' Phi_2 pieces are exact; measured
 *      gaps <= 6e-5, tolerance 5e-4 (a wrong term of the Hessian shows at
 *      the 1e-2 level).
 *  (b) the sampled prior (sg_skewgp_prior_posterior + lin-ess/HMC samples
 *      + summaries, the prior explorer's route): 5 standard errors, with
 *      se(mean) = sd / sqrt(ESS) and se(var) = var sqrt(2 / ESS) (the
 *      Gaussian value; these marginals have small excess kurtosis). */
static void
check_prior_moments (size_t s, const double *U, const double *L, const double *g)
{
  sg_kernel k = { 0 };
  sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1.0, 0.3);
  sg_skewgp_prior prior = { .kernel = k, .mean = 0, .s = s, .pseudo_points = U,
                            .phases = L, .gamma = g };
  /* Not at a pseudo-point: there f(u_i) is a truncated law whose density
   * jumps, and the trapezoid rule would only be first order. */
  const double xs[] = { 0.0, 0.28, 0.5, 0.75, 1.1 };
  const size_t nx = G_N_ELEMENTS (xs);
  sg_sun sun;
  g_assert_cmpint (sg_sun_from_skewgp_prior (&prior, xs, nx, &sun), ==, SG_OK);
  double mean[5], var[5];
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.n_points = 200000;
  g_assert_cmpint (sg_sun_marginal_moments (&sun, NULL, &mo, mean, var), ==, SG_OK);
  double tol = s <= 2 ? 1e-8 : 5e-4;

  sg_skewgp_posterior *post = NULL;
  g_assert_cmpint (sg_skewgp_prior_posterior (&prior, &post), ==, SG_OK);
  g_assert_cmpuint (sg_skewgp_posterior_n_latent (post), ==, s);
  const size_t N = 8000;
  sg_skewgp_samples *smp = make_samples (post, N, 77);
  double ess = samples_ess (post, smp);
  sg_point_summary sum[5];
  g_assert_cmpint (sg_skewgp_summarize (post, smp, xs, nx, NULL, NULL, sum), ==, SG_OK);

  for (size_t i = 0; i < nx; i++)
    {
      sg_sun one;
      double mass, qm, qv;
      marginal_sun (&sun, i, &one);
      quadrature_moments (&one, s <= 2 ? 4001 : 801, &mass, &qm, &qv);
      sg_sun_clear (&one);
      double mc_var = sum[i].sd * sum[i].sd;
      double se_m = sqrt (var[i] / ess), se_v = var[i] * sqrt (2 / ess);
      g_test_message ("s=%zu x=%.2f: closed form mean %.6f var %.6f | quadrature mass %.9f "
                      "mean %.6f var %.6f | samples mean %.4f var %.4f (ESS %.0f)",
                      s, xs[i], mean[i], var[i], mass, qm, qv, sum[i].mean, mc_var, ess);
      g_assert_cmpfloat (fabs (mass - 1), <, tol);
      g_assert_cmpfloat (fabs (qm - mean[i]), <, tol);
      g_assert_cmpfloat (fabs (qv - var[i]), <, tol);
      g_assert_cmpfloat (fabs (sum[i].mean - mean[i]), <, 5 * se_m);
      g_assert_cmpfloat (fabs (mc_var - var[i]), <, 5 * se_v);
    }
  /* The skew is real: near u_1 the mean moved far from 0. */
  g_assert_cmpfloat (fabs (mean[1]), >, 0.2);
  sg_skewgp_samples_free (smp);
  sg_skewgp_posterior_free (post);
  sg_sun_clear (&sun);
  sg_kernel_clear (&k);
}

static void
test_prior_moments (void)
{
  const double U2[2] = { 0.3, 0.7 }, L2[2] = { 1, -1 }, g2[2] = { -0.5, -0.5 };
  check_prior_moments (2, U2, L2, g2);
  const double U3[3] = { 0.2, 0.6, 0.9 }, L3[3] = { 1, -1, 1 }, g3[3] = { -0.5, 0.2, -1.0 };
  check_prior_moments (3, U3, L3, g3);
}

/* The bivariate SUN of 000 Figure 2 on a 241 x 241 grid over [-6, 6]^2
 * (trapezoid rule; s <= 2, so the density is exact to round-off and the
 * quadrature error ~1e-9 sets the tolerance 1e-6):
 *  - it integrates to 1;
 *  - its first moments equal the closed-form means (sg_sun_marginal_moments);
 *  - integrating out z2 at z1 = 0.3 gives the density of the marginal
 *    SUN_{1,s}(xi_1, Omega_11, Delta_1, gamma, Gamma) (000 eq. 3);
 *  - (a1), s = 1: the value at a point equals the skew-normal form
 *    phi_2(z; Omega) Phi(alpha^T z) / Phi(0), alpha = Omega^{-1} delta /
 *    sqrt(1 - delta^T Omega^{-1} delta), computed here by hand. */
static void
test_sun_density_2d (void)
{
  for (int panel = 1; panel <= 3; panel += 2)
    {
      sg_sun sun;
      figure2_sun (panel, &sun);
      const size_t n = 241;
      const double lo = -6, h = 12.0 / (double) (n - 1);
      g_autofree double *Z = g_new (double, 2 * n * n);
      g_autofree double *d = g_new (double, n * n);
      for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
          {
            Z[2 * (j * n + i)] = lo + h * (double) i;
            Z[2 * (j * n + i) + 1] = lo + h * (double) j;
          }
      g_assert_cmpint (sg_sun_density (&sun, Z, n * n, NULL, NULL, d), ==, SG_OK);
      double mass = 0, m1 = 0, m2 = 0;
      for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
          {
            double w = h * h * ((i == 0 || i == n - 1) ? 0.5 : 1) * ((j == 0 || j == n - 1) ? 0.5 : 1);
            mass += w * d[j * n + i];
            m1 += w * d[j * n + i] * Z[2 * (j * n + i)];
            m2 += w * d[j * n + i] * Z[2 * (j * n + i) + 1];
          }
      double mean[2];
      g_assert_cmpint (sg_sun_marginal_moments (&sun, NULL, NULL, mean, NULL), ==, SG_OK);
      g_test_message ("Figure 2 (a%d): mass %.10f, mean (%.6f, %.6f) vs closed form (%.6f, %.6f)",
                      panel, mass, m1, m2, mean[0], mean[1]);
      g_assert_cmpfloat (fabs (mass - 1), <, 1e-6);
      g_assert_cmpfloat (fabs (m1 - mean[0]), <, 1e-6);
      g_assert_cmpfloat (fabs (m2 - mean[1]), <, 1e-6);
      /* skewed towards positive values, as in the figure */
      g_assert_cmpfloat (mean[0], >, 0.3);

      /* marginal at z1 = 0.3 */
      double z1 = 0.3, col = 0, dm;
      g_autofree double *line = g_new (double, 2 * n);
      g_autofree double *dl = g_new (double, n);
      for (size_t j = 0; j < n; j++)
        {
          line[2 * j] = z1;
          line[2 * j + 1] = lo + h * (double) j;
        }
      g_assert_cmpint (sg_sun_density (&sun, line, n, NULL, NULL, dl), ==, SG_OK);
      for (size_t j = 0; j < n; j++)
        col += h * ((j == 0 || j == n - 1) ? 0.5 : 1) * dl[j];
      sg_sun one;
      marginal_sun (&sun, 0, &one);
      g_assert_cmpint (sg_sun_density (&one, &z1, 1, NULL, NULL, &dm), ==, SG_OK);
      sg_sun_clear (&one);
      g_assert_cmpfloat (fabs (col - dm), <, 1e-6);

      if (panel == 1)
        {
          /* Omega = Omegabar here (unit variances). */
          double det = 1 - 0.88 * 0.88, a[2], q = 0;
          a[0] = (0.88 - 0.88 * 0.61) / det;
          a[1] = (0.61 - 0.88 * 0.88) / det;
          q = 0.88 * a[0] + 0.61 * a[1];
          double z[2] = { -0.4, 0.9 };
          double quad = (z[0] * z[0] - 2 * 0.88 * z[0] * z[1] + z[1] * z[1]) / det;
          double ref = exp (-0.5 * quad) / (2 * M_PI * sqrt (det))
                       * sg_norm_cdf ((a[0] * z[0] + a[1] * z[1]) / sqrt (1 - q)) / 0.5;
          double got;
          g_assert_cmpint (sg_sun_density (&sun, z, 1, NULL, NULL, &got), ==, SG_OK);
          g_assert_cmpfloat (fabs (got - ref), <, 1e-10 * ref);  /* S jitter */
        }
      sg_sun_clear (&sun);
    }
  /* Omega must be positive definite. */
  sg_sun bad;
  g_assert_cmpint (sg_sun_init (&bad, 2, 0), ==, SG_OK);
  double z[2] = { 0, 0 }, out = -1;
  g_assert_cmpint (sg_sun_density (&bad, z, 1, NULL, NULL, &out), ==, SG_ENOTPD);
  g_assert_cmpfloat (out, ==, -1);
  sg_sun_clear (&bad);
}

/* Every observation kind has a name that reads back as itself; other
 * names are refused and leave the kind alone. */
static void
test_obs_kind_names (void)
{
  const char *names[] = { "numeric", "binary", "preference", "valid", "invalid" };
  sg_obs_kind kind;

  for (int k = SG_OBS_NUMERIC; k <= SG_OBS_INVALID; k++)
    {
      g_assert_cmpint (sg_obs_kind_parse (sg_obs_kind_name ((sg_obs_kind) k), &kind), ==, SG_OK);
      g_assert_cmpint (kind, ==, k);
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpint (sg_obs_kind_parse (names[i], &kind), ==, SG_OK);
  g_assert_cmpstr (sg_obs_kind_name (SG_OBS_PREFERENCE), ==, "preference");
  kind = SG_OBS_BINARY;
  g_assert_cmpint (sg_obs_kind_parse ("duel", &kind), ==, SG_EINVAL);
  g_assert_cmpint (sg_obs_kind_parse (NULL, &kind), ==, SG_EINVAL);
  g_assert_cmpint (kind, ==, SG_OBS_BINARY);
  g_assert_cmpstr (sg_obs_kind_name ((sg_obs_kind) 99), ==, "?");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/skewgp/gp-regression", test_gp_regression);
  g_test_add_func ("/skewgp/conditional-all", test_conditional_all);
  g_test_add_func ("/skewgp/order-statistics", test_order_statistics);
  g_test_add_func ("/skewgp/sample-paths", test_sample_paths);
  g_test_add_func ("/skewgp/density", test_density);
  g_test_add_func ("/skewgp/sun-literal", test_sun_literal);
  /* /slow/: thorough cases, run by the slow suite (tests/meson.build). */
  g_test_add_func ("/slow/skewgp/quadrature", test_quadrature);
  g_test_add_func ("/skewgp/evidence-r", test_evidence_r);
  g_test_add_func ("/skewgp/class-probability-mc", test_class_probability_mc);
  g_test_add_func ("/skewgp/preference-example", test_preference_example);
  g_test_add_func ("/skewgp/skewed-prior", test_skewed_prior);
  g_test_add_func ("/skewgp/batch-bound", test_batch_bound);
  g_test_add_func ("/skewgp/cancel", test_cancel);
  g_test_add_func ("/skewgp/evidence-keeps-order", test_evidence_keeps_order);
  g_test_add_func ("/skewgp/fast-moments", test_fast_moments);
  g_test_add_func ("/skewgp/sun-moments-esn", test_sun_moments_esn);
  g_test_add_func ("/slow/skewgp/prior-moments", test_prior_moments);
  g_test_add_func ("/skewgp/sun-density-2d", test_sun_density_2d);
  g_test_add_func ("/skewgp/obs-kind-names", test_obs_kind_names);
  return g_test_run ();
}
