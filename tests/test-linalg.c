/* test-linalg.c — Cholesky with jitter, solves, BLAS wrappers. */
#include "sg-common.h"
#include "sg-linalg.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <string.h>

static void
random_spd (gsl_rng *rng, size_t n, double *A)
{
  double *B = g_new (double, n * n);
  for (size_t i = 0; i < n * n; i++)
    B[i] = sg_rng_gaussian (rng);
  sg_gemm (0, 1, n, n, n, 1.0, B, B, 0.0, A);
  for (size_t i = 0; i < n; i++)
    A[i * n + i] += 1e-3 * n;
  g_free (B);
}

static void
test_cholesky_reconstructs (void)
{
  gsl_rng *rng = sg_rng_new (1, 0);
  for (size_t n = 1; n <= 40; n += 13)
    {
      double *A = g_new (double, n * n), *L = g_new (double, n * n), *R = g_new (double, n * n);
      random_spd (rng, n, A);
      double jitter = -1;
      g_assert_cmpint (sg_cholesky (A, n, 0, L, &jitter), ==, SG_OK);
      g_assert_cmpfloat (jitter, ==, 0);
      sg_gemm (0, 1, n, n, n, 1.0, L, L, 0.0, R);
      for (size_t i = 0; i < n * n; i++)
        g_assert_cmpfloat_with_epsilon (R[i], A[i], 1e-12 * n * n);
      for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
          g_assert_cmpfloat (L[i * n + j], ==, 0);
      g_free (A); g_free (L); g_free (R);
    }
  sg_rng_free (rng);
}

static void
test_cholesky_jitter_and_failure (void)
{
  /* Rank-one PSD matrix: needs jitter, and the jitter reported is the one
   * that worked (a power of ten between 1e-12 and the cap). */
  double A[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  double L[9], keep[9];
  double jitter = 0;
  g_assert_cmpint (sg_cholesky (A, 3, 0, L, &jitter), ==, SG_OK);
  g_assert_cmpfloat (jitter, >=, 1e-12);
  g_assert_cmpfloat (jitter, <=, 1e-6);

  /* Indefinite: a clear error, and the output buffer is untouched. */
  double B[4] = { 1, 2, 2, 1 };
  for (int i = 0; i < 9; i++)
    keep[i] = L[i] = 42;
  g_assert_cmpint (sg_cholesky (B, 2, 0, L, NULL), ==, SG_ENOTPD);
  g_assert_cmpmem (L, sizeof L, keep, sizeof keep);

  double C[4] = { 1, NAN, NAN, 1 };
  g_assert_cmpint (sg_cholesky (C, 2, 0, L, NULL), ==, SG_EINVAL);
  g_assert_cmpstr (sg_strerror (SG_ENOTPD), !=, sg_strerror (SG_EINVAL));
}

static void
test_solve_logdet_inverse (void)
{
  gsl_rng *rng = sg_rng_new (2, 0);
  size_t n = 17;
  double *A = g_new (double, n * n), *L = g_new (double, n * n);
  double *Ainv = g_new (double, n * n), *I = g_new (double, n * n);
  double *b = g_new (double, n), *x = g_new (double, n), *Ax = g_new (double, n);
  random_spd (rng, n, A);
  g_assert_cmpint (sg_cholesky (A, n, 0, L, NULL), ==, SG_OK);
  for (size_t i = 0; i < n; i++)
    b[i] = x[i] = sg_rng_gaussian (rng);
  sg_cholesky_solve (L, n, x, 1);
  sg_gemv (0, n, n, 1.0, A, x, 0.0, Ax);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (Ax[i], b[i], 1e-9);

  g_assert_cmpint (sg_cholesky_inverse (L, n, Ainv), ==, SG_OK);
  sg_gemm (0, 0, n, n, n, 1.0, A, Ainv, 0.0, I);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      g_assert_cmpfloat_with_epsilon (I[i * n + j], i == j ? 1.0 : 0.0, 1e-9);

  /* log det via LU-free check: det of a diagonal scaling. */
  double D[4] = { 4, 0, 0, 9 }, LD[4];
  g_assert_cmpint (sg_cholesky (D, 2, 0, LD, NULL), ==, SG_OK);
  g_assert_cmpfloat_with_epsilon (sg_cholesky_logdet (LD, 2), log (36.0), 1e-14);
  g_free (A); g_free (L); g_free (Ainv); g_free (I); g_free (b); g_free (x); g_free (Ax);
  sg_rng_free (rng);
}

static void
test_gemm_transposes (void)
{
  /* op(A) 2x3, op(B) 3x2 with every transpose combination. */
  double A[6] = { 1, 2, 3, 4, 5, 6 };        /* 2x3 */
  double At[6] = { 1, 4, 2, 5, 3, 6 };       /* 3x2 */
  double B[6] = { 1, 0, 0, 1, 1, 1 };        /* 3x2 */
  double Bt[6] = { 1, 0, 1, 0, 1, 1 };       /* 2x3 */
  double want[4] = { 4, 5, 10, 11 };
  double C[4];
  sg_gemm (0, 0, 2, 2, 3, 1, A, B, 0, C);
  g_assert_cmpmem (C, sizeof C, want, sizeof want);
  sg_gemm (1, 0, 2, 2, 3, 1, At, B, 0, C);
  g_assert_cmpmem (C, sizeof C, want, sizeof want);
  sg_gemm (0, 1, 2, 2, 3, 1, A, Bt, 0, C);
  g_assert_cmpmem (C, sizeof C, want, sizeof want);
  sg_gemm (1, 1, 2, 2, 3, 1, At, Bt, 0, C);
  g_assert_cmpmem (C, sizeof C, want, sizeof want);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/linalg/cholesky", test_cholesky_reconstructs);
  g_test_add_func ("/linalg/cholesky-jitter", test_cholesky_jitter_and_failure);
  g_test_add_func ("/linalg/solve", test_solve_logdet_inverse);
  g_test_add_func ("/linalg/gemm", test_gemm_transposes);
  return g_test_run ();
}
