/* test-kernel.c — kernel values and log-hyperparameter derivatives. */
#include "sg-common.h"
#include "sg-kernel.h"

#include <glib.h>
#include <math.h>

static void
test_values (void)
{
  sg_kernel k = { 0 };
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
  sg_kernel_clear (&k);
}

/* Analytic derivatives against central finite differences in theta;
 * KINDS (NULL: all linear) gives the coordinates' kinds, periods 1.3. */
static void
check_gradient_kinds (sg_kernel_type type, const sg_dim_kind *kinds)
{
  sg_kernel k = { 0 };
  g_assert_cmpint (sg_kernel_init (&k, type, 3, 1.7, 1.0), ==, SG_OK);
  k.lengthscales[1] = 0.4;
  k.lengthscales[2] = 2.5;
  for (size_t j = 0; kinds && j < 3; j++)
    g_assert_cmpint (sg_kernel_set_dim_kind (&k, j, kinds[j], 1.3), ==, SG_OK);
  /* categorical coordinates read as levels 0, 1, 2 (rounded) */
  double X[4 * 3] = { 0, 0, 0,  0.3, -0.2, 1.0,  1.1, 0.5, -0.7,  0.3, -0.2, 2.0 };
  size_t n = 4, np = sg_kernel_n_params (&k);
  double theta[4], dK[16], Kp[16], Km[16];
  sg_kernel_get_params (&k, theta);
  for (size_t p = 0; p < np; p++)
    {
      sg_kernel_matrix_grad (&k, X, n, X, n, p, dK);
      const double h = 1e-6;
      sg_kernel kp = { 0 }, km = { 0 };
      g_assert_cmpint (sg_kernel_copy (&kp, &k), ==, SG_OK);
      g_assert_cmpint (sg_kernel_copy (&km, &k), ==, SG_OK);
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
      sg_kernel_clear (&kp);
      sg_kernel_clear (&km);
    }
  sg_kernel_clear (&k);
}

/* A grouped kernel of POP (variance 1.3) and IND (0.6) on 2 setting
 * coordinates with the given type; KINDS (NULL: both linear) the setting
 * coordinates' kinds in both parts, periods 1.3. */
static void
grouped_kernel (sg_kernel_type type, const sg_dim_kind *kinds, sg_kernel *k)
{
  sg_kernel pop = { 0 }, ind = { 0 };
  g_assert_cmpint (sg_kernel_init (&pop, type, 2, 1.3, 0.8), ==, SG_OK);
  g_assert_cmpint (sg_kernel_init (&ind, type, 2, 0.6, 0.5), ==, SG_OK);
  pop.lengthscales[1] = 1.7;
  ind.lengthscales[0] = 0.3;
  for (size_t j = 0; kinds && j < 2; j++)
    {
      g_assert_cmpint (sg_kernel_set_dim_kind (&pop, j, kinds[j], 1.3), ==, SG_OK);
      g_assert_cmpint (sg_kernel_set_dim_kind (&ind, j, kinds[j], 1.3), ==, SG_OK);
    }
  g_assert_cmpint (sg_kernel_grouped (k, &pop, &ind), ==, SG_OK);
  sg_kernel_clear (&pop);
  sg_kernel_clear (&ind);
}

/* k((x,p),(y,q)) = k_pop + [p == q >= 0] k_ind; the population (-1)
 * shares only k_pop, with everyone and with itself. */
static void
test_grouped_values (void)
{
  sg_kernel pop = { 0 }, ind = { 0 }, k = { 0 };
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

  /* one part may be absent, not both; the parts must match (K and IND
   * are overwritten, not released, by the calls that succeed) */
  sg_kernel_clear (&k);
  g_assert_cmpint (sg_kernel_grouped (&k, NULL, &ind), ==, SG_OK);
  g_assert_cmpfloat (sg_kernel_eval (&k, x0, y1), ==, 0);
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, NULL, NULL), ==, SG_EINVAL);
  ind.type = SG_KERNEL_MATERN52;
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_EINVAL);
  sg_kernel_clear (&ind);
  g_assert_cmpint (sg_kernel_init (&ind, SG_KERNEL_RBF, 3, 0.6, 0.5), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_EINVAL);
  sg_kernel_clear (&k);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, NULL), ==, SG_OK);
  k.variance = 0;
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);
  k.variance = NAN;
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);
  sg_kernel_clear (&pop);
  sg_kernel_clear (&ind);
  sg_kernel_clear (&k);
}

/* The grouped kernel's 2 d + 2 derivatives, over points of two people and
 * the population, against central differences. */
static void
check_grouped_gradient (sg_kernel_type type, const sg_dim_kind *kinds)
{
  sg_kernel k = { 0 };
  grouped_kernel (type, kinds, &k);
  /* a categorical coordinate reads these as levels 0, 0, 1, 0, 0 and
   * 0, 0, 1, 0, 0: distinct and equal pairs within and across people */
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
      sg_kernel kp = { 0 }, km = { 0 };
      g_assert_cmpint (sg_kernel_copy (&kp, &k), ==, SG_OK);
      g_assert_cmpint (sg_kernel_copy (&km, &k), ==, SG_OK);
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
      sg_kernel_clear (&kp);
      sg_kernel_clear (&km);
    }
  sg_kernel_clear (&k);
}

static void
test_gradient_grouped (void)
{
  const sg_dim_kind kinds[2] = { SG_DIM_PERIODIC, SG_DIM_INTEGER };
  const sg_dim_kind kinds2[2] = { SG_DIM_LINEAR, SG_DIM_PERIODIC };
  for (int t = 0; t < 2; t++)
    {
      sg_kernel_type type = t ? SG_KERNEL_MATERN52 : SG_KERNEL_RBF;
      check_grouped_gradient (type, NULL);
      check_grouped_gradient (type, kinds);
      check_grouped_gradient (type, kinds2);
    }
}

/* Both parts of a grouped kernel measure settings with the same kinds:
 * a periodic coordinate wraps in the population part and in the
 * individual part, parts with different kinds are refused, and the group
 * coordinate takes no kind. */
static void
test_grouped_kinds (void)
{
  const sg_dim_kind kinds[2] = { SG_DIM_PERIODIC, SG_DIM_CATEGORICAL };
  sg_kernel k = { 0 };
  grouped_kernel (SG_KERNEL_RBF, kinds, &k);
  g_assert_cmpint (k.kinds[0], ==, SG_DIM_PERIODIC);
  g_assert_cmpint (k.kinds[1], ==, SG_DIM_CATEGORICAL);
  g_assert_cmpint (k.kinds[2], ==, SG_DIM_LINEAR);
  g_assert_cmpfloat (k.periods[0], ==, 1.3);
  /* a period apart (and levels 1 and 1.2, the same level): one point,
   * for a person (both parts) and for the population */
  double a[3] = { 0.2, 1, 0 }, b[3] = { 1.5, 1.2, 0 }, ap[3] = { 0.2, 1, -1 }, bp[3] = { 1.5, 1.2, -1 };
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, a, b), 1.3 + 0.6, 1e-12);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, ap, bp), 1.3, 1e-12);
  /* across the wrap as close as inside it, in both parts */
  double c[3] = { 0.05, 0, 0 }, d[3] = { 1.25, 0, 0 }, e[3] = { 0.6, 0, 0 }, f[3] = { 0.7, 0, 0 };
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, c, d), sg_kernel_eval (&k, e, f), 1e-12);

  g_assert_cmpint (sg_kernel_set_dim_kind (&k, 2, SG_DIM_PERIODIC, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_OK);
  k.kinds[2] = SG_DIM_CATEGORICAL;
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);

  sg_kernel pop = { 0 }, ind = { 0 };
  g_assert_cmpint (sg_kernel_init (&pop, SG_KERNEL_RBF, 2, 1, 1), ==, SG_OK);
  g_assert_cmpint (sg_kernel_copy (&ind, &pop), ==, SG_OK);
  sg_kernel_clear (&k);
  g_assert_cmpint (sg_kernel_set_dim_kind (&pop, 0, SG_DIM_PERIODIC, 2), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_set_dim_kind (&ind, 0, SG_DIM_PERIODIC, 3), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_set_dim_kind (&ind, 0, SG_DIM_PERIODIC, 2), ==, SG_OK);
  g_assert_cmpint (sg_kernel_grouped (&k, &pop, &ind), ==, SG_OK);
  sg_kernel_clear (&k);
  /* one part alone gives its kinds */
  g_assert_cmpint (sg_kernel_grouped (&k, NULL, &ind), ==, SG_OK);
  g_assert_cmpint (k.kinds[0], ==, SG_DIM_PERIODIC);
  sg_kernel_clear (&pop);
  sg_kernel_clear (&ind);
  sg_kernel_clear (&k);
}

static void
check_gradient (sg_kernel_type type)
{
  check_gradient_kinds (type, NULL);
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

/* The lengthscale derivatives of periodic and categorical terms (and of
 * an integer one, linear to the kernel) for both kernels. */
static void
test_gradient_kinds (void)
{
  const sg_dim_kind kinds[3] = { SG_DIM_PERIODIC, SG_DIM_INTEGER, SG_DIM_CATEGORICAL };
  const sg_dim_kind kinds2[3] = { SG_DIM_CATEGORICAL, SG_DIM_PERIODIC, SG_DIM_LINEAR };
  check_gradient_kinds (SG_KERNEL_RBF, kinds);
  check_gradient_kinds (SG_KERNEL_MATERN52, kinds);
  check_gradient_kinds (SG_KERNEL_RBF, kinds2);
  check_gradient_kinds (SG_KERNEL_MATERN52, kinds2);
}

/* A periodic coordinate (a hue in degrees, period 360): continuous across
 * the wrap, 359 and 1 as close as 0 and 2, a full period apart the same
 * point, and near 0 the term is the plain squared distance (the
 * lengthscale keeps degrees). */
static void
test_periodic (void)
{
  sg_kernel k = { 0 };
  for (int t = 0; t < 2; t++)
    {
      sg_kernel_clear (&k);
      g_assert_cmpint (sg_kernel_init (&k, t ? SG_KERNEL_MATERN52 : SG_KERNEL_RBF, 1, 1.5, 40),
                       ==, SG_OK);
      g_assert_cmpint (sg_kernel_set_dim_kind (&k, 0, SG_DIM_PERIODIC, 360), ==, SG_OK);
      double a = 359, b = 1, c = 0, d = 2, e = 360;
      double across = sg_kernel_eval (&k, &a, &b), inside = sg_kernel_eval (&k, &c, &d);
      /* the same distance (2 degrees) either side of the wrap: equal to
       * round-off of sin near pi */
      g_assert_cmpfloat_with_epsilon (across, inside, 1e-12);
      g_assert_cmpfloat (across, >, 0.99 * 1.5);
      g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, &c, &e), 1.5, 1e-12);
      /* a linear kernel would call 359 and 1 nearly independent */
      sg_kernel lin = { 0 };
      g_assert_cmpint (sg_kernel_copy (&lin, &k), ==, SG_OK);
      lin.kinds[0] = SG_DIM_LINEAR;
      g_assert_cmpfloat (sg_kernel_eval (&lin, &a, &b), <, 1e-6);
      sg_kernel_clear (&lin);
    }
  /* (p / pi)^2 sin^2(pi d / p) = d^2 (1 - (pi d / p)^2 / 3 + ...) */
  double d2 = sg_kernel_dim_sqdist (&k, 0, 10, 11);
  g_assert_cmpfloat (fabs (d2 - 1.0), <, 1e-4);
  /* opposite points: the circle's diameter squared, (p / pi)^2 */
  g_assert_cmpfloat_with_epsilon (sg_kernel_dim_sqdist (&k, 0, 0, 180),
                                  (360 / M_PI) * (360 / M_PI), 1e-9);
  g_assert_cmpfloat_with_epsilon (sg_dim_distance (SG_DIM_PERIODIC, 360, 359, 1), 2, 1e-12);
  g_assert_cmpfloat_with_epsilon (sg_dim_distance (SG_DIM_PERIODIC, 360, 10, 730), 0, 1e-12);
  g_assert_cmpint (sg_kernel_set_dim_kind (&k, 0, SG_DIM_PERIODIC, 0), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_set_dim_kind (&k, 0, SG_DIM_PERIODIC, NAN), ==, SG_EINVAL);
  g_assert_cmpint (sg_kernel_set_dim_kind (&k, 1, SG_DIM_LINEAR, 0), ==, SG_EINVAL);
  k.periods[0] = -1;
  g_assert_cmpint (sg_kernel_check (&k), ==, SG_EINVAL);
  sg_kernel_clear (&k);
}

/* Categorical levels: exchangeable, v for the same level and
 * v shape(1 / l^2) for any two different ones. */
static void
test_categorical (void)
{
  sg_kernel k = { 0 };
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, 1, 2.0, 0.8), ==, SG_OK);
  g_assert_cmpint (sg_kernel_set_dim_kind (&k, 0, SG_DIM_CATEGORICAL, 0), ==, SG_OK);
  double l0 = 0, l1 = 1, l2 = 2, l4 = 4;
  double same = 2.0, other = 2.0 * exp (-0.5 / (0.8 * 0.8));
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, &l1, &l1), same, 1e-15);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, &l0, &l1), other, 1e-15);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, &l0, &l4), other, 1e-15);
  g_assert_cmpfloat_with_epsilon (sg_kernel_eval (&k, &l2, &l4), other, 1e-15);
  g_assert_cmpfloat (sg_dim_distance (SG_DIM_CATEGORICAL, 0, 0, 4), ==, 1);
  sg_dim_kind kind;
  g_assert_cmpint (sg_dim_kind_parse ("periodic", &kind), ==, SG_OK);
  g_assert_cmpint (kind, ==, SG_DIM_PERIODIC);
  g_assert_cmpstr (sg_dim_kind_name (SG_DIM_CATEGORICAL), ==, "categorical");
  g_assert_cmpint (sg_dim_kind_parse ("log", &kind), ==, SG_EINVAL);
  sg_kernel_clear (&k);
}

/* Positive definiteness with every kind: the Gram matrix of 40 random
 * mixed points (periodic, categorical, linear) has a Cholesky factor for
 * both kernels. A non-embedding distance (e.g. |sin| instead of sin^2
 * under Matern) could fail this. */
static void
test_kinds_positive_definite (void)
{
  enum { N = 40 };
  GRand *r = g_rand_new_with_seed (5);
  double X[N * 3], K[N * N];
  for (size_t i = 0; i < N; i++)
    {
      X[3 * i] = g_rand_double_range (r, 0, 360);
      X[3 * i + 1] = g_rand_int_range (r, 0, 4);
      X[3 * i + 2] = g_rand_double_range (r, -1, 1);
    }
  for (int t = 0; t < 2; t++)
    {
      sg_kernel k = { 0 };
      g_assert_cmpint (sg_kernel_init (&k, t ? SG_KERNEL_MATERN52 : SG_KERNEL_RBF, 3, 1, 1),
                       ==, SG_OK);
      k.lengthscales[0] = 200;   /* smooth across the circle: near-singular */
      k.lengthscales[1] = 3;     /* strongly correlated levels */
      k.lengthscales[2] = 5;
      sg_kernel_set_dim_kind (&k, 0, SG_DIM_PERIODIC, 360);
      sg_kernel_set_dim_kind (&k, 1, SG_DIM_CATEGORICAL, 0);
      sg_kernel_matrix (&k, X, N, X, N, K);
      /* smallest pivot of an in-place Cholesky, with a 1e-10 jitter */
      double min_pivot = INFINITY;
      for (size_t j = 0; j < N; j++)
        {
          double s = K[j * N + j] + 1e-10;
          for (size_t q = 0; q < j; q++)
            s -= K[j * N + q] * K[j * N + q];
          g_assert_cmpfloat (s, >, 0);
          min_pivot = fmin (min_pivot, s);
          double L = sqrt (s);
          K[j * N + j] = L;
          for (size_t i = j + 1; i < N; i++)
            {
              double v = K[i * N + j];
              for (size_t q = 0; q < j; q++)
                v -= K[i * N + q] * K[j * N + q];
              K[i * N + j] = v / L;
            }
        }
      g_test_message ("kernel %d: smallest Cholesky pivot %g", t, min_pivot);
      sg_kernel_clear (&k);
    }
  g_rand_free (r);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel/values", test_values);
  g_test_add_func ("/kernel/gradient-rbf", test_gradient_rbf);
  g_test_add_func ("/kernel/gradient-matern52", test_gradient_matern);
  g_test_add_func ("/kernel/gradient-kinds", test_gradient_kinds);
  g_test_add_func ("/kernel/periodic", test_periodic);
  g_test_add_func ("/kernel/categorical", test_categorical);
  g_test_add_func ("/kernel/kinds-positive-definite", test_kinds_positive_definite);
  g_test_add_func ("/kernel/grouped-values", test_grouped_values);
  g_test_add_func ("/kernel/gradient-grouped", test_gradient_grouped);
  g_test_add_func ("/kernel/grouped-kinds", test_grouped_kinds);
  return g_test_run ();
}
