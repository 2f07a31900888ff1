/* test-wide.c — kernels and classifiers of many inputs (64 and 784, the
 * sizes of the 8x8 and 28x28 digit images): the kernel's own storage,
 * the blocked squared distances against the direct sum, and every
 * classifier on data whose distances are those of a 2-D problem, so the
 * wide posterior must be the 2-D one. */
#include "sg-common.h"
#include "sg-ep.h"
#include "sg-kernel.h"
#include "sg-laplace.h"
#include "sg-rng.h"
#include "sg-skewgp.h"
#include "sg-svgp.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* Copies are independent, views share, memcpy needs the same shape. */
static void
test_storage (void)
{
  sg_kernel k = { 0 }, c = { 0 }, other = { 0 };
  sg_kernel_clear (&k);   /* a zeroed kernel holds nothing */
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 100000, 1.5, 2.0), ==, SG_OK);
  g_assert_cmpfloat (k.lengthscales[99999], ==, 2.0);
  g_assert_cmpint (k.kinds[99999], ==, SG_DIM_LINEAR);
  g_assert_cmpint (sg_kernel_copy (&c, &k), ==, SG_OK);
  c.lengthscales[5] = 7;
  c.variance = 3;
  g_assert_cmpfloat (k.lengthscales[5], ==, 2.0);
  g_assert_cmpfloat (k.variance, ==, 1.5);
  sg_kernel view = k;
  view.lengthscales[6] = 9;
  g_assert_cmpfloat (k.lengthscales[6], ==, 9);
  g_assert_cmpint (sg_kernel_memcpy (&k, &c), ==, SG_OK);
  g_assert_cmpfloat (k.lengthscales[5], ==, 7);
  g_assert_cmpfloat (k.lengthscales[6], ==, 2.0);
  g_assert_cmpfloat (k.variance, ==, 3);
  g_assert_cmpint (sg_kernel_init (&other, SG_KERNEL_RBF, 3, 1, 1), ==, SG_OK);
  g_assert_cmpint (sg_kernel_memcpy (&other, &k), ==, SG_EINVAL);
  g_assert_cmpfloat (other.lengthscales[0], ==, 1);
  sg_kernel_clear (&other);
  sg_kernel_clear (&c);
  sg_kernel_clear (&k);
  g_assert_null (k.lengthscales);
  sg_kernel_clear (&k);
}

/* The blocked (dgemm) squared distances against sg_kernel_eval, entry by
 * entry, for ARD kernels at D inputs. Cancellation in |x|^2 + |y|^2 -
 * 2 x.y is about eps times the centred norms (here r^2 of order 10), so
 * the kernel values agree to 1e-12 of the variance. */
static void
check_gemm (size_t d)
{
  const size_t n = 300, m = 37;   /* n spans two row blocks */
  gsl_rng *rng = sg_rng_new (d, 1);
  double *X = g_new (double, n * d), *Y = g_new (double, m * d);
  double *K = g_new (double, n * m), *Kxx = g_new (double, m * m);
  for (size_t t = 0; t < n * d; t++)
    X[t] = 5 + sg_rng_gaussian (rng);   /* away from the origin on purpose */
  for (size_t t = 0; t < m * d; t++)
    Y[t] = 5 + sg_rng_gaussian (rng);
  for (int type = 0; type < 2; type++)
    {
      sg_kernel k = { 0 };
      g_assert_cmpint (sg_kernel_init (&k, type, d, 1.7, 1), ==, SG_OK);
      for (size_t j = 0; j < d; j++)
        k.lengthscales[j] = sqrt ((double) d) * (0.5 + gsl_rng_uniform (rng));
      sg_kernel_matrix (&k, X, n, Y, m, K);
      double worst = 0;
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
          worst = fmax (worst, fabs (K[i * m + j] - sg_kernel_eval (&k, X + i * d, Y + j * d)));
      g_test_message ("d = %zu, %s: max |K_gemm - K_direct| = %.2e", d,
                      sg_kernel_type_name (k.type), worst);
      g_assert_cmpfloat (worst, <=, 1e-12 * k.variance);
      /* the same array on both sides: an exact diagonal */
      sg_kernel_matrix (&k, Y, m, Y, m, Kxx);
      for (size_t j = 0; j < m; j++)
        g_assert_cmpfloat (Kxx[j * m + j], ==, k.variance);
      sg_kernel_clear (&k);
    }
  g_free (X); g_free (Y); g_free (K); g_free (Kxx);
  sg_rng_free (rng);
}

static void
test_gemm_64 (void)
{
  check_gemm (64);
}

static void
test_gemm_784 (void)
{
  check_gemm (784);
}

/* A 2-D classification problem and its image in D dimensions under
 * x -> Q x + c, Q a random D x 2 matrix with orthonormal columns: every
 * distance, hence every isotropic kernel value, is the same, so every
 * posterior must be too. */
typedef struct {
  size_t n, nt, d;
  double *X2, *Xt2;      /* n x 2, nt x 2 */
  double *Xd, *Xtd;      /* n x d, nt x d */
  double *y;             /* n labels +-1 */
} Embedded;

static void
embed (const double *P, size_t rows, const double *Q, const double *c, size_t d, double *out)
{
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < d; j++)
      out[i * d + j] = c[j] + Q[j * 2] * P[i * 2] + Q[j * 2 + 1] * P[i * 2 + 1];
}

static void
embedded_init (Embedded *e, size_t d)
{
  gsl_rng *rng = sg_rng_new (42, d);
  e->n = 40;
  e->nt = 25;
  e->d = d;
  e->X2 = g_new (double, e->n * 2);
  e->Xt2 = g_new (double, e->nt * 2);
  e->y = g_new (double, e->n);
  for (size_t i = 0; i < e->n; i++)
    {
      double a = 4 * gsl_rng_uniform (rng) - 2, b = 4 * gsl_rng_uniform (rng) - 2;
      e->X2[2 * i] = a;
      e->X2[2 * i + 1] = b;
      e->y[i] = sin (2 * a) + b + 0.3 * sg_rng_gaussian (rng) > 0 ? 1 : -1;
    }
  for (size_t t = 0; t < e->nt * 2; t++)
    e->Xt2[t] = 4 * gsl_rng_uniform (rng) - 2;
  /* Gram-Schmidt on two Gaussian columns */
  double *Q = g_new (double, d * 2), *c = g_new (double, d), n0 = 0, dot = 0, n1 = 0;
  for (size_t j = 0; j < d; j++)
    {
      Q[j * 2] = sg_rng_gaussian (rng);
      Q[j * 2 + 1] = sg_rng_gaussian (rng);
      c[j] = 3 * sg_rng_gaussian (rng);
      n0 += Q[j * 2] * Q[j * 2];
    }
  for (size_t j = 0; j < d; j++)
    {
      Q[j * 2] /= sqrt (n0);
      dot += Q[j * 2] * Q[j * 2 + 1];
    }
  for (size_t j = 0; j < d; j++)
    {
      Q[j * 2 + 1] -= dot * Q[j * 2];
      n1 += Q[j * 2 + 1] * Q[j * 2 + 1];
    }
  for (size_t j = 0; j < d; j++)
    Q[j * 2 + 1] /= sqrt (n1);
  e->Xd = g_new (double, e->n * d);
  e->Xtd = g_new (double, e->nt * d);
  embed (e->X2, e->n, Q, c, d, e->Xd);
  embed (e->Xt2, e->nt, Q, c, d, e->Xtd);
  g_free (Q);
  g_free (c);
  sg_rng_free (rng);
}

static void
embedded_clear (Embedded *e)
{
  g_free (e->X2); g_free (e->Xt2); g_free (e->Xd); g_free (e->Xtd); g_free (e->y);
}

static void
binary_data (const double *X, size_t n, size_t d, const double *y, sg_data *data)
{
  sg_data_init (data, d);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpint (sg_data_add_binary (data, X + i * d, y[i] > 0 ? 1 : -1), ==, SG_OK);
}

/* Laplace and EP: means and sds at the test points, and the evidence. */
static void
check_gaussian (const Embedded *e, int ep)
{
  double mean[2][25], sd[2][25], lml[2];
  for (int wide = 0; wide < 2; wide++)
    {
      size_t d = wide ? e->d : 2;
      sg_data data;
      binary_data (wide ? e->Xd : e->X2, e->n, d, e->y, &data);
      sg_approx_model model = { .prior_mean = 0, .link = SG_LINK_PROBIT };
      sg_noise_default (&model.noise);
      model.noise.probit_sd = 1;
      g_assert_cmpint (sg_kernel_init (&model.kernel, SG_KERNEL_RBF, d, 2.0, 0.8), ==, SG_OK);
      sg_gauss_post post = { 0 };
      g_assert_cmpint (ep ? sg_ep_posterior (&model, &data, NULL, NULL, NULL, &post)
                          : sg_laplace_posterior (&model, &data, NULL, NULL, NULL, &post), ==, SG_OK);
      sg_point_summary sum[25];
      g_assert_cmpint (sg_gauss_post_summaries (&post, wide ? e->Xtd : e->Xt2, e->nt, 0.95,
                                                NULL, sum), ==, SG_OK);
      for (size_t i = 0; i < e->nt; i++)
        {
          mean[wide][i] = sum[i].mean;
          sd[wide][i] = sum[i].sd;
        }
      lml[wide] = post.log_evidence;
      sg_gauss_post_clear (&post);
      sg_kernel_clear (&model.kernel);
      sg_data_clear (&data);
    }
  for (size_t i = 0; i < e->nt; i++)
    {
      g_assert_cmpfloat (fabs (mean[0][i] - mean[1][i]), <=, 1e-8);
      g_assert_cmpfloat (fabs (sd[0][i] - sd[1][i]), <=, 1e-8);
    }
  g_assert_cmpfloat (fabs (lml[0] - lml[1]), <=, 1e-8);
}

/* The exact SkewGP: the truncated Gaussian's mean E[t | y] (000 Theorem
 * 3.1) and its predictive mean at the test points. */
static void
check_skewgp (const Embedded *e)
{
  double tmean[2][40];
  for (int wide = 0; wide < 2; wide++)
    {
      size_t d = wide ? e->d : 2;
      sg_data data;
      binary_data (wide ? e->Xd : e->X2, e->n, d, e->y, &data);
      sg_noise noise;
      sg_noise_default (&noise);
      noise.probit_sd = 1;
      sg_likelihood lik;
      g_assert_cmpint (sg_likelihood_build (&data, &noise, &lik), ==, SG_OK);
      sg_kernel k = { 0 };
      g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_MATERN52, d, 1.5, 1.1), ==, SG_OK);
      sg_skewgp_prior prior;
      sg_skewgp_prior_gp (&prior, &k, 0);
      sg_skewgp_posterior *post = NULL;
      g_assert_cmpint (sg_skewgp_posterior_new (&prior, data.X, &lik, &post), ==, SG_OK);
      sg_kernel_clear (&k);   /* the posterior keeps its own copy */
      g_assert_cmpuint (sg_skewgp_posterior_n_latent (post), ==, e->n);
      memcpy (tmean[wide], sg_skewgp_posterior_t_mean (post), e->n * sizeof (double));
      sg_skewgp_posterior_free (post);
      sg_likelihood_clear (&lik);
      sg_data_clear (&data);
    }
  for (size_t i = 0; i < e->n; i++)
    g_assert_cmpfloat (fabs (tmean[0][i] - tmean[1][i]), <=, 1e-9);
}

/* Paper 004's sparse variational GP: the same k-means centres (the
 * embedding is affine, so Lloyd's steps map onto each other), the same
 * ELBO and predictions after training with the kernel held. */
static void
check_svgp (const Embedded *e)
{
  double elbo[2], mean[2][25];
  for (int wide = 0; wide < 2; wide++)
    {
      size_t d = wide ? e->d : 2;
      sg_svgp_data data = { .dim = d, .n = e->n, .X = wide ? e->Xd : e->X2, .y = e->y };
      sg_kernel k = { 0 };
      g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, d, 2.0, 0.8), ==, SG_OK);
      sg_svgp_options opt;
      sg_svgp_options_default (&opt);
      opt.n_inducing = 15;
      opt.train.iterations = 200;
      opt.train.fix_kernel = 1;
      gsl_rng *rng = sg_rng_new (3, 0);
      sg_svgp q;
      g_assert_cmpint (sg_svgp_fit (&k, &data, &opt, rng, NULL, &q), ==, SG_OK);
      sg_kernel_clear (&k);
      elbo[wide] = q.elbo;
      double var[25];
      g_assert_cmpint (sg_svgp_predict (&q, wide ? e->Xtd : e->Xt2, e->nt, mean[wide], var),
                       ==, SG_OK);
      sg_svgp_clear (&q);
      sg_rng_free (rng);
    }
  g_test_message ("ELBO 2-D %.12f, wide %.12f", elbo[0], elbo[1]);
  g_assert_cmpfloat (fabs (elbo[0] - elbo[1]), <=, 1e-6 * fabs (elbo[0]));
  for (size_t i = 0; i < e->nt; i++)
    g_assert_cmpfloat (fabs (mean[0][i] - mean[1][i]), <=, 1e-5);
}

static void
check_classifiers (size_t d)
{
  Embedded e;
  embedded_init (&e, d);
  check_gaussian (&e, 0);
  check_gaussian (&e, 1);
  check_skewgp (&e);
  check_svgp (&e);
  embedded_clear (&e);
}

static void
test_classifiers_64 (void)
{
  check_classifiers (64);
}

static void
test_classifiers_784 (void)
{
  check_classifiers (784);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/wide/storage", test_storage);
  g_test_add_func ("/wide/gemm-64", test_gemm_64);
  g_test_add_func ("/wide/gemm-784", test_gemm_784);
  g_test_add_func ("/wide/classifiers-64", test_classifiers_64);
  g_test_add_func ("/wide/classifiers-784", test_classifiers_784);
  return g_test_run ();
}
