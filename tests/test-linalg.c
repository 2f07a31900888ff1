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
      g_assert_cmpint (sg_cholesky (A, n, SG_CHOLESKY_MAX_JITTER, L, &jitter), ==, SG_OK);
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
  g_assert_cmpint (sg_cholesky (A, 3, SG_CHOLESKY_MAX_JITTER, L, &jitter), ==, SG_OK);
  g_assert_cmpfloat (jitter, >=, 1e-12);
  g_assert_cmpfloat (jitter, <=, 1e-6);
  /* a cap of 0 allows no jitter (it is not "the default"); below 0 is refused */
  g_assert_cmpint (sg_cholesky (A, 3, 0, L, NULL), ==, SG_ENOTPD);
  g_assert_cmpint (sg_cholesky (A, 3, -1, L, NULL), ==, SG_EINVAL);

  /* Indefinite: a clear error, and the output buffer is untouched. */
  double B[4] = { 1, 2, 2, 1 };
  for (int i = 0; i < 9; i++)
    keep[i] = L[i] = 42;
  g_assert_cmpint (sg_cholesky (B, 2, SG_CHOLESKY_MAX_JITTER, L, NULL), ==, SG_ENOTPD);
  g_assert_cmpmem (L, sizeof L, keep, sizeof keep);

  double C[4] = { 1, NAN, NAN, 1 };
  g_assert_cmpint (sg_cholesky (C, 2, SG_CHOLESKY_MAX_JITTER, L, NULL), ==, SG_EINVAL);
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
  g_assert_cmpint (sg_cholesky (A, n, SG_CHOLESKY_MAX_JITTER, L, NULL), ==, SG_OK);
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
  g_assert_cmpint (sg_cholesky (D, 2, SG_CHOLESKY_MAX_JITTER, LD, NULL), ==, SG_OK);
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

/* sg_sym_eigen_top into EV, which has N spare entries after its K: they
 * must come back untouched. LAPACK's dsyevr uses its W (n long) as
 * workspace, and an uninstrumented library's overrun is invisible to ASan,
 * so these sentinels check it in every build. */
static void
eigen_top_checked (double *A, size_t n, size_t k, double *ev, double *V)
{
  for (size_t i = k; i < k + n; i++)
    ev[i] = -1234.5;
  g_assert_cmpint (sg_sym_eigen_top (A, n, k, ev, V), ==, SG_OK);
  for (size_t i = k; i < k + n; i++)
    g_assert_cmpfloat (ev[i], ==, -1234.5);
}

static void
test_eigen_top_matches_full (void)
{
  /* The top K eigenpairs agree with the full decomposition's, and A v = l v. */
  gsl_rng *rng = sg_rng_new (7, 0);
  const size_t n = 30;
  double *A = g_new (double, n * n), *work = g_new (double, n * n);
  double *all = g_new (double, n);
  random_spd (rng, n, A);
  memcpy (work, A, n * n * sizeof *A);
  g_assert_cmpint (sg_sym_eigen (work, n, all), ==, SG_OK);
  for (size_t k = 1; k <= n; k += 14)
    {
      double *ev = g_new (double, k + n), *V = g_new (double, n * k);
      memcpy (work, A, n * n * sizeof *A);
      eigen_top_checked (work, n, k, ev, V);
      for (size_t a = 0; a < k; a++)
        {
          /* backward-stable solvers: eigenvalues to ~n eps ||A|| */
          g_assert_cmpfloat_with_epsilon (ev[a], all[n - 1 - a], 1e-12 * all[n - 1]);
          for (size_t i = 0; i < n; i++)
            {
              double Av = 0;
              for (size_t j = 0; j < n; j++)
                Av += A[i * n + j] * V[j * k + a];
              g_assert_cmpfloat_with_epsilon (Av, ev[a] * V[i * k + a], 1e-10 * all[n - 1]);
            }
        }
      g_free (ev); g_free (V);
    }
  g_assert_cmpint (sg_sym_eigen_top (work, n, n + 1, all, NULL), ==, SG_EINVAL);

  /* Equicorrelation rho: one eigenvalue 1 + (n-1) rho, then n-1 tied at
   * 1 - rho; ties are where dsyevr's bisection finds more than K values. */
  const double rho = 0.5;
  for (size_t k = 1; k <= 3; k++)
    {
      double *ev = g_new (double, k + n), *V = g_new (double, n * k);
      for (size_t i = 0; i < n * n; i++)
        work[i] = i % (n + 1) == 0 ? 1 : rho;
      eigen_top_checked (work, n, k, ev, V);
      g_assert_cmpfloat_with_epsilon (ev[0], 1 + (n - 1) * rho, 1e-12 * n);
      for (size_t a = 1; a < k; a++)
        g_assert_cmpfloat_with_epsilon (ev[a], 1 - rho, 1e-12 * n);
      g_free (ev); g_free (V);
    }
  g_free (A); g_free (work); g_free (all);
  sg_rng_free (rng);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/linalg/cholesky", test_cholesky_reconstructs);
  g_test_add_func ("/linalg/cholesky-jitter", test_cholesky_jitter_and_failure);
  g_test_add_func ("/linalg/solve", test_solve_logdet_inverse);
  g_test_add_func ("/linalg/gemm", test_gemm_transposes);
  g_test_add_func ("/linalg/eigen-top", test_eigen_top_matches_full);
  return g_test_run ();
}
