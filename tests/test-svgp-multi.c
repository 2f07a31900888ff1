/* test-svgp-multi.c — paper 004's multi-class sparse variational GPs
 * (sg-svgp-multi.h): each ELBO against a brute-force Monte Carlo estimate
 * that samples the inducing values and the latents jointly, analytic
 * gradients against finite differences, probabilities that sum to one,
 * and training on three separated classes. */
#include "sg-linalg.h"
#include "sg-rng.h"
#include "sg-svgp-multi.h"

#include <glib.h>
#include <math.h>
#include <string.h>

enum { D = 2, N = 6, C = 3, M = 4 };

static const double X6[N * D] = { -1, 0.2,  0.5, 1,  1.3, -0.4,  0, 0,  -0.7, -1.1,  0.9, 0.6 };
static const size_t Y6[N] = { 0, 1, 2, 0, 2, 1 };
static const double Z4[M * D] = { -0.8, 0,  0.6, 0.9,  1, -0.5,  0, -0.2 };

/* A posterior with random m^c and L^c (not the prior: the test must see
 * the covariance formulas at work). */
static void
tiny_posterior (sg_svgp_multi_lik lik, sg_svgp_multi *q)
{
  sg_kernel k = { 0 };
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, D, 1.3, 0.9), ==, SG_OK);
  g_assert_cmpint (sg_svgp_multi_init (q, lik, &k, Z4, M, C, 0.7, 0.1), ==, SG_OK);
  sg_kernel_clear (&k);
  size_t np = sg_svgp_multi_n_params (q);
  double *p = g_new (double, np);
  sg_svgp_multi_get_params (q, p);
  gsl_rng *rng = sg_rng_new (11, 0);
  for (size_t t = 0; t < C * M; t++)
    p[t] = sg_rng_gaussian (rng);
  size_t k0 = C * M;
  for (size_t c = 0; c < C; c++)
    for (size_t i = 0; i < M; i++)
      for (size_t j = 0; j <= i; j++)
        p[k0++] = i == j ? 0.5 + 0.5 * gsl_rng_uniform (rng) : 0.3 * sg_rng_gaussian (rng);
  g_assert_cmpint (sg_svgp_multi_set_params (q, p), ==, SG_OK);
  sg_rng_free (rng);
  g_free (p);
}

/* KL(q(v^c) || N(0, I)) summed, computed here from the definition. */
static double
kl_of (const sg_svgp_multi *q)
{
  double kl = 0;
  for (size_t c = 0; c < C; c++)
    {
      const double *m = q->m + c * M, *L = q->L + c * M * M;
      double tr = 0, mm = 0, logdet = 0;
      for (size_t i = 0; i < M; i++)
        {
          mm += m[i] * m[i];
          logdet += 2 * log (fabs (L[i * M + i]));
          for (size_t j = 0; j < M; j++)
            tr += L[i * M + j] * L[i * M + j];
        }
      kl += 0.5 * (tr + mm - M - logdet);
    }
  return kl;
}

/* Brute force: S joint draws of v^c ~ q, f^c_i | v^c from the prior
 * conditional (mean a_i^T v^c, variance k_ii - a_i^T a_i with a_i =
 * Lk^{-1} k(Z, x_i)), and per draw the data term TERM (f) of all rows. */
typedef double (*term_fn) (const sg_svgp_multi *q, const double *f, gsl_rng *rng);

static void
brute_force (const sg_svgp_multi *q, term_fn term, size_t S, double *mean, double *se)
{
  double Kzx[M * N], A[M * N], resid[N];
  sg_kernel_matrix (&q->kernel, Z4, M, X6, N, Kzx);
  memcpy (A, Kzx, sizeof A);
  sg_trsm_lower (q->Lk, M, A, N);
  for (size_t i = 0; i < N; i++)
    {
      double aa = 0;
      for (size_t j = 0; j < M; j++)
        aa += A[j * N + i] * A[j * N + i];
      resid[i] = sqrt (fmax (q->kernel.variance - aa, 0));
    }
  gsl_rng *rng = sg_rng_new (2024, 7);
  double sum = 0, sum2 = 0, v[M], f[N * C];
  for (size_t s = 0; s < S; s++)
    {
      for (size_t c = 0; c < C; c++)
        {
          double e[M];
          for (size_t j = 0; j < M; j++)
            e[j] = sg_rng_gaussian (rng);
          for (size_t j = 0; j < M; j++)
            {
              v[j] = q->m[c * M + j];
              for (size_t l = 0; l <= j; l++)
                v[j] += q->L[(c * M + j) * M + l] * e[l];
            }
          for (size_t i = 0; i < N; i++)
            {
              double mu = 0;
              for (size_t j = 0; j < M; j++)
                mu += A[j * N + i] * v[j];
              f[i * C + c] = mu + resid[i] * sg_rng_gaussian (rng);
            }
        }
      double t = term (q, f, rng);
      sum += t;
      sum2 += t * t;
    }
  *mean = sum / (double) S;
  *se = sqrt ((sum2 / (double) S - *mean * *mean) / (double) S);
  sg_rng_free (rng);
}

/* PROBIT: the robust step likelihood of g = f + sigma eps (004 eq. 15). */
static double
probit_term (const sg_svgp_multi *q, const double *f, gsl_rng *rng)
{
  double t = 0;
  for (size_t i = 0; i < N; i++)
    {
      size_t best = 0;
      double gbest = -INFINITY;
      for (size_t c = 0; c < C; c++)
        {
          double g = f[i * C + c] + q->noise_sd * sg_rng_gaussian (rng);
          if (g > gbest)
            {
              gbest = g;
              best = c;
            }
        }
      t += best == Y6[i] ? log (1 - q->delta) : log (q->delta / (C - 1));
    }
  return t;
}

static void
test_elbo_mc_probit (void)
{
  sg_svgp_multi q;
  tiny_posterior (SG_SVGP_MULTI_PROBIT, &q);
  sg_svgp_multi_data data = { .dim = D, .n = N, .n_classes = C, .X = X6, .y = Y6 };
  double elbo, mc, se;
  g_assert_cmpint (sg_svgp_multi_elbo (&q, &data, NULL, 0, &elbo, NULL), ==, SG_OK);
  brute_force (&q, probit_term, 200000, &mc, &se);
  double data_term = elbo + kl_of (&q);
  g_test_message ("004 eq. 18 data term %.6f, brute force %.6f +- %.6f", data_term, mc, se);
  /* 4 standard errors; the 32-node quadrature is exact to ~1e-10 here */
  g_assert_cmpfloat (fabs (data_term - mc), <=, 4 * se + 1e-8);
  g_assert_cmpfloat (se, <, 0.01);
  sg_svgp_multi_clear (&q);
}

/* SOFTMAX: the bound's sum_c exp(f^c - f^y) per row (its expectation is
 * what 004 eq. 25 has in closed form), and log softmax itself. */
static double mc_sums[N];
static double mc_sums2[N];
static double
softmax_sum_term (const sg_svgp_multi *q, const double *f, gsl_rng *rng)
{
  (void) q; (void) rng;
  double logp = 0;
  for (size_t i = 0; i < N; i++)
    {
      double s = 0, norm = 0;
      for (size_t c = 0; c < C; c++)
        {
          norm += exp (f[i * C + c]);
          if (c != Y6[i])
            s += exp (f[i * C + c] - f[i * C + Y6[i]]);
        }
      mc_sums[i] += s;
      mc_sums2[i] += s * s;
      logp += f[i * C + Y6[i]] - log (norm);
    }
  return logp;
}

static void
test_elbo_mc_softmax (void)
{
  sg_svgp_multi q;
  tiny_posterior (SG_SVGP_MULTI_SOFTMAX, &q);
  sg_svgp_multi_data data = { .dim = D, .n = N, .n_classes = C, .X = X6, .y = Y6 };
  double elbo, logp, se_logp;
  const size_t S = 200000;
  memset (mc_sums, 0, sizeof mc_sums);
  memset (mc_sums2, 0, sizeof mc_sums2);
  g_assert_cmpint (sg_svgp_multi_elbo (&q, &data, NULL, 0, &elbo, NULL), ==, SG_OK);
  brute_force (&q, softmax_sum_term, S, &logp, &se_logp);
  /* -sum_i log(1 + E S_i) from the draws; its standard error by the delta
   * method, se(S_i) / (1 + E S_i) per row (rows are independent given q,
   * so the variances add) */
  double bound = 0, var = 0;
  for (size_t i = 0; i < N; i++)
    {
      double m = mc_sums[i] / S, v = (mc_sums2[i] / S - m * m) / S;
      bound -= log1p (m);
      var += v / ((1 + m) * (1 + m));
    }
  double data_term = elbo + kl_of (&q), se = sqrt (var);
  g_test_message ("004 eq. 25 data term %.6f, brute force %.6f +- %.6f; E log softmax %.6f",
                  data_term, bound, se, logp);
  g_assert_cmpfloat (fabs (data_term - bound), <=, 4 * se + 1e-10);
  /* Jensen: the bound lies below the expected log-likelihood */
  g_assert_cmpfloat (data_term, <=, logp + 4 * se_logp);
  sg_svgp_multi_clear (&q);
}

/* Analytic gradients against central differences, on a minibatch (the
 * n / |B| scaling included). */
static void
check_gradient (sg_svgp_multi_lik lik)
{
  sg_svgp_multi q;
  tiny_posterior (lik, &q);
  sg_svgp_multi_data data = { .dim = D, .n = N, .n_classes = C, .X = X6, .y = Y6 };
  const size_t rows[4] = { 5, 0, 3, 2 };
  size_t np = sg_svgp_multi_n_params (&q);
  double *p = g_new (double, np), *g = g_new (double, np), e0, ep, em;
  sg_svgp_multi_get_params (&q, p);
  g_assert_cmpint (sg_svgp_multi_elbo (&q, &data, rows, 4, &e0, g), ==, SG_OK);
  for (size_t k = 0; k < np; k++)
    {
      const double h = 1e-6, keep = p[k];
      p[k] = keep + h;
      sg_svgp_multi_set_params (&q, p);
      sg_svgp_multi_elbo (&q, &data, rows, 4, &ep, NULL);
      p[k] = keep - h;
      sg_svgp_multi_set_params (&q, p);
      sg_svgp_multi_elbo (&q, &data, rows, 4, &em, NULL);
      p[k] = keep;
      double fd = (ep - em) / (2 * h);
      g_assert_cmpfloat (fabs (g[k] - fd), <=, 1e-5 * (1 + fabs (fd)));
    }
  sg_svgp_multi_set_params (&q, p);
  g_free (p);
  g_free (g);
  sg_svgp_multi_clear (&q);
}

static void
test_gradient_probit (void)
{
  check_gradient (SG_SVGP_MULTI_PROBIT);
}

static void
test_gradient_softmax (void)
{
  check_gradient (SG_SVGP_MULTI_SOFTMAX);
}

/* Three Gaussian blobs in 2-D: both models learn them, and every
 * predicted row is a probability vector. */
static void
check_three_classes (sg_svgp_multi_lik lik)
{
  const size_t n = 150;
  double X[150 * 2];
  size_t y[150];
  gsl_rng *rng = sg_rng_new (5, 1);
  const double centre[3][2] = { { -2, 0 }, { 2, 0 }, { 0, 2.5 } };
  for (size_t i = 0; i < n; i++)
    {
      y[i] = i % 3;
      X[2 * i] = centre[y[i]][0] + 0.7 * sg_rng_gaussian (rng);
      X[2 * i + 1] = centre[y[i]][1] + 0.7 * sg_rng_gaussian (rng);
    }
  sg_svgp_multi_data data = { .dim = 2, .n = n, .n_classes = 3, .X = X, .y = y };
  sg_kernel k = { 0 };
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 2, 2.0, 1.0), ==, SG_OK);
  sg_svgp_multi_options opt;
  sg_svgp_multi_options_default (&opt);
  opt.lik = lik;
  opt.n_inducing = 20;
  opt.batch = 50;
  opt.iterations = 1500;
  opt.learning_rate = 0.03;
  sg_svgp_multi q;
  g_assert_cmpint (sg_svgp_multi_fit (&k, &data, &opt, rng, NULL, &q), ==, SG_OK);
  g_assert_true (isfinite (q.elbo));
  g_assert_cmpuint (q.iterations, ==, 1500);
  double *prob = g_new (double, n * 3);
  g_assert_cmpint (sg_svgp_multi_predict (&q, X, n, prob), ==, SG_OK);
  size_t right = 0;
  for (size_t i = 0; i < n; i++)
    {
      double sum = 0;
      size_t best = 0;
      for (size_t c = 0; c < 3; c++)
        {
          g_assert_cmpfloat (prob[i * 3 + c], >=, 0);
          g_assert_cmpfloat (prob[i * 3 + c], <=, 1);
          sum += prob[i * 3 + c];
          if (prob[i * 3 + c] > prob[i * 3 + best])
            best = c;
        }
      g_assert_cmpfloat (fabs (sum - 1), <=, 1e-12);
      right += best == y[i];
    }
  g_test_message ("%s: training accuracy %zu / %zu, ELBO %.3f", sg_svgp_multi_lik_name (lik),
                  right, n, q.elbo);
  g_assert_cmpfloat ((double) right / n, >=, 0.93);
  /* a far-away point: the classes are equally likely again */
  double far[2] = { 40, -40 }, pf[3];
  g_assert_cmpint (sg_svgp_multi_predict (&q, far, 1, pf), ==, SG_OK);
  for (size_t c = 0; c < 3; c++)
    g_assert_cmpfloat (fabs (pf[c] - 1.0 / 3), <=, 0.02);
  g_free (prob);
  sg_svgp_multi_clear (&q);
  sg_kernel_clear (&k);
  sg_rng_free (rng);
}

static void
test_three_probit (void)
{
  check_three_classes (SG_SVGP_MULTI_PROBIT);
}

static void
test_three_softmax (void)
{
  check_three_classes (SG_SVGP_MULTI_SOFTMAX);
}

static void
test_bad_input (void)
{
  sg_kernel k = { 0 };
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, D, 1, 1), ==, SG_OK);
  sg_svgp_multi q = { 0 };
  g_assert_cmpint (sg_svgp_multi_init (&q, SG_SVGP_MULTI_PROBIT, &k, Z4, M, 1, 1, 0.1), ==,
                   SG_EINVAL);
  /* delta must stay below (C - 1) / C = 2/3 */
  g_assert_cmpint (sg_svgp_multi_init (&q, SG_SVGP_MULTI_PROBIT, &k, Z4, M, C, 1, 0.7), ==,
                   SG_EINVAL);
  g_assert_cmpint (sg_svgp_multi_init (&q, SG_SVGP_MULTI_SOFTMAX, &k, Z4, M, C, 0, 0), ==,
                   SG_OK);
  size_t bad_y[N] = { 0, 1, 2, 3, 0, 1 };
  sg_svgp_multi_data data = { .dim = D, .n = N, .n_classes = C, .X = X6, .y = bad_y };
  double e;
  g_assert_cmpint (sg_svgp_multi_elbo (&q, &data, NULL, 0, &e, NULL), ==, SG_EINVAL);
  sg_svgp_multi_lik lik;
  g_assert_cmpint (sg_svgp_multi_lik_parse ("softmax", &lik), ==, SG_OK);
  g_assert_cmpint (lik, ==, SG_SVGP_MULTI_SOFTMAX);
  g_assert_cmpint (sg_svgp_multi_lik_parse ("logit", &lik), ==, SG_EINVAL);
  sg_svgp_multi_clear (&q);
  sg_kernel_clear (&k);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/svgp-multi/elbo-mc-probit", test_elbo_mc_probit);
  g_test_add_func ("/svgp-multi/elbo-mc-softmax", test_elbo_mc_softmax);
  g_test_add_func ("/svgp-multi/gradient-probit", test_gradient_probit);
  g_test_add_func ("/svgp-multi/gradient-softmax", test_gradient_softmax);
  g_test_add_func ("/svgp-multi/three-classes-probit", test_three_probit);
  g_test_add_func ("/svgp-multi/three-classes-softmax", test_three_softmax);
  g_test_add_func ("/svgp-multi/bad-input", test_bad_input);
  return g_test_run ();
}
