/* test-kernel.c — kernel values and log-hyperparameter derivatives. */
#include "sg-common.h"
#include "sg-kernel.h"

#include <glib.h>
#include <math.h>

static void
test_values (void)
{
  sg_kernel k;
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 2, 2.0, 0.5), ==, SG_OK);
  double x[2] = { 0, 0 }, y[2] = { 0.5, 0 };
  /* r = 1: v exp(-1/2) */
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, x, y), 2.0 * exp (-0.5), 1e-15);
  k.type = SG_KERNEL_MATERN52;
  /* r = 1: v (1 + sqrt5 + 5/3) exp(-sqrt5) */
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, x, y),
                                  2.0 * (1 + sqrt (5) + 5.0 / 3) * exp (-sqrt (5)), 1e-15);
  g_assert_cmpfloat (sg_kernel_eval (&k, x, x), ==, 2.0);

  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 0, 1, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 1, -1, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 1, 1, NAN), ==, SG_EINVAL);
  sg_kernel_type t;
  g_assert_cmpint (sg_kernel_type_parse ("matern52", &t), ==, SG_OK);
  g_assert_cmpint (t, ==, SG_KERNEL_MATERN52);
  g_assert_cmpint (sg_kernel_type_parse ("cubic", &t), ==, SG_EINVAL);
}

/* Analytic derivatives against central finite differences in theta. */
static void
check_gradient (sg_kernel_type type)
{
  sg_kernel k;
  g_assert_cmpint (sg_kernel_init (&k, type, 3, 1.7, 1.0), ==, SG_OK);
  k.lengthscales[1] = 0.4;
  k.lengthscales[2] = 2.5;
  double X[4 * 3] = { 0, 0, 0,  0.3, -0.2, 1.0,  1.1, 0.5, -0.7,  0.3, -0.2, 1.0 };
  size_t n = 4, np = sg_kernel_n_params (&k);
  double theta[4], dK[16], Kp[16], Km[16];
  sg_kernel_get_params (&k, theta);
  for (size_t p = 0; p < np; p++)
    {
      sg_kernel_matrix_grad (&k, X, n, X, n, p, dK);
      const double h = 1e-6;
      sg_kernel kp = k, km = k;
      double tp[4], tm[4];
      for (size_t q = 0; q < np; q++)
        tp[q] = tm[q] = theta[q];
      tp[p] += h;
      tm[p] -= h;
      sg_kernel_set_params (&kp, tp);
      sg_kernel_set_params (&km, tm);
      sg_kernel_matrix (&kp, X, n, X, n, Kp);
      sg_kernel_matrix (&km, X, n, X, n, Km);
      for (size_t i = 0; i < n * n; i++)
        g_assert_cmpfloat_with_epsilon (dK[i], (Kp[i] - Km[i]) / (2 * h), 1e-7);
    }
}

/* A grouped kernel of POP (variance 1.3) and IND (0.6) on 2 setting
 * coordinates with the given type. */
static void
grouped_kernel (sg_kernel_type type, sg_kernel *k)
{
  sg_kernel pop, ind;
  g_assert_cmpint (sg_kernel_init (&pop, type, 2, 1.3, 0.8), ==, SG_OK);
  g_assert_cmpint (sg_kernel_init (&ind, type, 2, 0.6, 0.5), ==, SG_OK);
  pop.lengthscales[1] = 1.7;
  ind.lengthscales[0] = 0.3;
  g_assert_cmpint (sg_kernel_grouped (k, &pop, &ind), ==, SG_OK);
}

/* k((x,p),(y,q)) = k_pop + [p == q >= 0] k_ind; the population (-1)
 * shares only k_pop, with everyone and with itself. */
static void
test_grouped_values (void)
{
  sg_kernel pop, ind, k;
  g_assert_cmpint (sg_kernel_init (&pop, SG_KERNEL_RBF, 2, 1.3, 0.8), ==, SG_OK);
  g_assert_cmpint (sg_kernel_init (&ind, SG_KERNEL_RBF, 2, 0.6, 0.5), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_OK);
  g_assert_cmpuint (k.dim, ==, 3);
  g_assert_cmpuint (sg_kernel_n_params (&k), ==, 6);
  double x[2] = { 0.1, -0.4 }, y[2] = { 0.7, 0.2 };
  double x0[3] = { 0.1, -0.4, 0 }, y0[3] = { 0.7, 0.2, 0 }, y1[3] = { 0.7, 0.2, 1 };
  double xp[3] = { 0.1, -0.4, -1 }, yp[3] = { 0.7, 0.2, -1 };
  double kp = sg_kernel_eval (&pop, x, y), ki = sg_kernel_eval (&ind, x, y);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, x0, y0), kp + ki, 1e-15);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, x0, y1), kp, 1e-15);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, xp, y0), kp, 1e-15);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, xp, yp), kp, 1e-15);
  g_assert_cmpfloat (sg_kernel_eval (&k, x0, x0), ==, 1.3 + 0.6);

  /* one part may be absent, not both; the parts must match */
  g_assert_cmpint (sg_kernel_grouped (&k, NULL, &ind), ==, SG_OK);
  g_assert_cmpfloat (sg_kernel_eval (&k, x0, y1), ==, 0);
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, NULL, NULL), ==, SG_EINVAL);
  ind.type = SG_KERNEL_MATERN52;
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_init (&ind, SG_KERNEL_RBF, 3, 0.6, 0.5), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, NULL), ==, SG_OK);
  k.variance = 0;
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);
  k.variance = NAN;
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);
}

/* The grouped kernel's 2 d + 2 derivatives, over points of two people and
 * the population, against central differences. */
static void
check_grouped_gradient (sg_kernel_type type)
{
  sg_kernel k;
  grouped_kernel (type, &k);
  double X[5 * 3] = { 0, 0, 0,  0.3, -0.2, 0,  1.1, 0.5, 1,  0.3, -0.2, 1,
                      0.2, 0.4, -1 };
  size_t n = 5, np = sg_kernel_n_params (&k);
  g_assert_cmpuint (np, ==, 6);
  double theta[6], dK[25], Kp[25], Km[25];
  sg_kernel_get_params (&k, theta);
  for (size_t p = 0; p < np; p++)
    {
      sg_kernel_matrix_grad (&k, X, n, X, n, p, dK);
      const double h = 1e-6;
      sg_kernel kp = k, km = k;
      double tp[6], tm[6];
      for (size_t q = 0; q < np; q++)
        tp[q] = tm[q] = theta[q];
      tp[p] += h;
      tm[p] -= h;
      sg_kernel_set_params (&kp, tp);
      sg_kernel_set_params (&km, tm);
      sg_kernel_matrix (&kp, X, n, X, n, Kp);
      sg_kernel_matrix (&km, X, n, X, n, Km);
      double nonzero = 0;
      for (size_t i = 0; i < n * n; i++)
        {
          g_assert_cmpfloat_with_epsilon (dK[i], (Kp[i] - Km[i]) / (2 * h), 1e-7);
          nonzero += fabs (dK[i]);
        }
      g_assert_cmpfloat (nonzero, >, 1e-3);  /* every parameter matters here */
    }
}

static void
test_gradient_grouped (void)
{
  check_grouped_gradient (SG_KERNEL_RBF);
  check_grouped_gradient (SG_KERNEL_MATERN52);
}

static void
test_gradient_rbf (void)
{
  check_gradient (SG_KERNEL_RBF);
}

static void
test_gradient_matern (void)
{
  check_gradient (SG_KERNEL_MATERN52);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel/values", test_values);
  g_test_add_func ("/kernel/gradient-rbf", test_gradient_rbf);
  g_test_add_func ("/kernel/gradient-matern52", test_gradient_matern);
  g_test_add_func ("/kernel/grouped-values", test_grouped_values);
  g_test_add_func ("/kernel/gradient-grouped", test_gradient_grouped);
  return g_test_run ();
}
