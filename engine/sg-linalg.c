/* sg-linalg.c — Cholesky with a jitter ladder and BLAS wrappers.
 *
 * The jitter ladder follows common GP practice (e.g. GPy's jitchol): kernel
 * matrices are PSD in exact arithmetic but often numerically singular, so a
 * small multiple of the mean diagonal is added, growing tenfold per try.
 */
#include "sg-linalg.h"
#include "sg-common.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
sg_all_finite (const double *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite (x[i]))
      return 0;
  return 1;
}

static int
try_cholesky (const double *A, size_t n, double add, double *work)
{
  memcpy (work, A, n * n * sizeof *work);
  for (size_t i = 0; i < n; i++)
    work[i * n + i] += add;
  lapack_int info = LAPACKE_dpotrf (LAPACK_ROW_MAJOR, 'L', (lapack_int) n,
                                    work, (lapack_int) n);
  return info == 0;
}

sg_status
sg_cholesky (const double *A, size_t n, double max_rel_jitter,
             double *L, double *jitter_used)
{
  if (n == 0)
    return SG_OK;
  if (A == NULL || L == NULL || !sg_all_finite (A, n * n)
      || !(max_rel_jitter >= 0))
    return SG_EINVAL;

  double mean_diag = 0;
  for (size_t i = 0; i < n; i++)
    mean_diag += A[i * n + i];
  mean_diag /= (double) n;
  if (!(mean_diag > 0))
    return SG_ENOTPD;

  double *work = malloc (n * n * sizeof *work);
  if (work == NULL)
    return SG_ENOMEM;

  double jitter = 0;
  int ok = try_cholesky (A, n, 0, work);
  while (!ok)
    {
      jitter = jitter == 0 ? 1e-12 : jitter * 10;
      if (jitter > max_rel_jitter * (1 + 1e-9))
        {
          free (work);
          return SG_ENOTPD;
        }
      ok = try_cholesky (A, n, jitter * mean_diag, work);
    }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      work[i * n + j] = 0;
  memcpy (L, work, n * n * sizeof *L);
  free (work);
  if (jitter_used)
    *jitter_used = jitter;
  return SG_OK;
}

void
sg_trsm_lower (const double *L, size_t n, double *B, size_t nrhs)
{
  if (n == 0 || nrhs == 0)
    return;
  cblas_dtrsm (CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans,
               CblasNonUnit, (int) n, (int) nrhs, 1.0, L, (int) n, B,
               (int) nrhs);
}

void
sg_trsm_lower_trans (const double *L, size_t n, double *B, size_t nrhs)
{
  if (n == 0 || nrhs == 0)
    return;
  cblas_dtrsm (CblasRowMajor, CblasLeft, CblasLower, CblasTrans,
               CblasNonUnit, (int) n, (int) nrhs, 1.0, L, (int) n, B,
               (int) nrhs);
}

void
sg_cholesky_solve (const double *L, size_t n, double *B, size_t nrhs)
{
  sg_trsm_lower (L, n, B, nrhs);
  sg_trsm_lower_trans (L, n, B, nrhs);
}

double
sg_cholesky_logdet (const double *L, size_t n)
{
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += log (L[i * n + i]);
  return 2 * s;
}

sg_status
sg_cholesky_inverse (const double *L, size_t n, double *Ainv)
{
  if (n == 0)
    return SG_OK;
  double *work = malloc (n * n * sizeof *work);
  if (work == NULL)
    return SG_ENOMEM;
  memcpy (work, L, n * n * sizeof *work);
  lapack_int info = LAPACKE_dpotri (LAPACK_ROW_MAJOR, 'L', (lapack_int) n,
                                    work, (lapack_int) n);
  if (info != 0)
    {
      free (work);
      return SG_ENUMERIC;
    }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      work[i * n + j] = work[j * n + i];
  memcpy (Ainv, work, n * n * sizeof *work);
  free (work);
  return SG_OK;
}

void
sg_gemm (int trans_a, int trans_b, size_t m, size_t n, size_t k,
         double alpha, const double *A, const double *B,
         double beta, double *C)
{
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    {
      for (size_t i = 0; i < m * n; i++)
        C[i] = beta == 0 ? 0 : beta * C[i];
      return;
    }
  cblas_dgemm (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
               trans_b ? CblasTrans : CblasNoTrans, (int) m, (int) n, (int) k,
               alpha, A, trans_a ? (int) m : (int) k, B,
               trans_b ? (int) k : (int) n, beta, C, (int) n);
}

void
sg_gemv (int trans, size_t m, size_t n, double alpha, const double *A,
         const double *x, double beta, double *y)
{
  size_t out = trans ? n : m;
  if (out == 0)
    return;
  if (m == 0 || n == 0)
    {
      for (size_t i = 0; i < out; i++)
        y[i] = beta == 0 ? 0 : beta * y[i];
      return;
    }
  cblas_dgemv (CblasRowMajor, trans ? CblasTrans : CblasNoTrans, (int) m,
               (int) n, alpha, A, (int) n, x, 1, beta, y, 1);
}

void
sg_rot (size_t n, double *x, double *y, double c, double s)
{
  if (n > 0)
    cblas_drot ((int) n, x, 1, y, 1, c, s);
}

void
sg_gemm_ld (int trans_a, int trans_b, size_t m, size_t n, size_t k,
            double alpha, const double *A, size_t lda, const double *B,
            size_t ldb, double beta, double *C, size_t ldc)
{
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    {
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
          C[i * ldc + j] = beta == 0 ? 0 : beta * C[i * ldc + j];
      return;
    }
  cblas_dgemm (CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
               trans_b ? CblasTrans : CblasNoTrans, (int) m, (int) n, (int) k,
               alpha, A, (int) lda, B, (int) ldb, beta, C, (int) ldc);
}

void
sg_gemv_ld (int trans, size_t m, size_t n, double alpha, const double *A,
            size_t lda, const double *x, double beta, double *y)
{
  size_t out = trans ? n : m;
  if (out == 0)
    return;
  if (m == 0 || n == 0)
    {
      for (size_t i = 0; i < out; i++)
        y[i] = beta == 0 ? 0 : beta * y[i];
      return;
    }
  cblas_dgemv (CblasRowMajor, trans ? CblasTrans : CblasNoTrans, (int) m,
               (int) n, alpha, A, (int) lda, x, 1, beta, y, 1);
}

void
sg_trmv_lower (const double *L, size_t n, double *x)
{
  if (n == 0)
    return;
  cblas_dtrmv (CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit,
               (int) n, L, (int) n, x, 1);
}

sg_status
sg_sym_eigen (double *A, size_t n, double *ev)
{
  if (n == 0)
    return SG_OK;
  lapack_int info = LAPACKE_dsyevd (LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int) n,
                                    A, (lapack_int) n, ev);
  return info == 0 ? SG_OK : SG_ENUMERIC;
}

sg_status
sg_sym_eigen_top (double *A, size_t n, size_t k, double *ev, double *V)
{
  if (k == 0 || k > n)
    return k == 0 ? SG_OK : SG_EINVAL;
  /* dsyevr's W must hold n values even when only k are asked for: it is
   * also workspace, and with tied eigenvalues its bisection fills more
   * than k (an equicorrelated matrix overran a k-long EV on the stack) */
  lapack_int *isuppz = malloc (2 * k * sizeof *isuppz), found = 0;
  double *w = malloc (n * sizeof *w);
  if (isuppz == NULL || w == NULL)
    {
      free (isuppz);
      free (w);
      return SG_ENOMEM;
    }
  /* eigenvalues n-k+1 .. n (1-based, ascending) */
  lapack_int info = LAPACKE_dsyevr (LAPACK_ROW_MAJOR, 'V', 'I', 'L', (lapack_int) n,
                                    A, (lapack_int) n, 0, 0, (lapack_int) (n - k + 1),
                                    (lapack_int) n, 0, &found, w, V, (lapack_int) k,
                                    isuppz);
  memcpy (ev, w, k * sizeof *ev);
  free (isuppz);
  free (w);
  if (info != 0 || found != (lapack_int) k)
    return SG_ENUMERIC;
  for (size_t a = 0, b = k - 1; a < b; a++, b--)   /* ascending -> descending */
    {
      double t = ev[a];
      ev[a] = ev[b];
      ev[b] = t;
      for (size_t i = 0; i < n; i++)
        {
          t = V[i * k + a];
          V[i * k + a] = V[i * k + b];
          V[i * k + b] = t;
        }
    }
  return SG_OK;
}

void
sg_symmetrize (double *A, size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      {
        double v = 0.5 * (A[i * n + j] + A[j * n + i]);
        A[i * n + j] = A[j * n + i] = v;
      }
}

SG_VECTORIZE void
sg_vec_mul (const double *restrict x, const double *restrict y, size_t n,
            double *restrict out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = x[i] * y[i];
}

SG_VECTORIZE void
sg_vec_scale (double alpha, const double *restrict x, size_t n, double *restrict out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = alpha * x[i];
}

SG_VECTORIZE void
sg_vec_axpy (double alpha, const double *restrict x, size_t n, double *restrict y)
{
  for (size_t i = 0; i < n; i++)
    y[i] += alpha * x[i];
}

SG_VECTORIZE void
sg_vec_sub_squares (const double *restrict x, size_t n, double *restrict acc)
{
  for (size_t i = 0; i < n; i++)
    acc[i] -= x[i] * x[i];
}

void
sg_blas_use_default_threads (void)
{
  static const char *const user_settings[] = {
    "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS", NULL
  };
  for (const char *const *name = user_settings; *name; name++)
    {
      const char *value = getenv (*name);
      if (value != NULL && *value != '\0')
        return;
    }
  openblas_set_num_threads (1);
}
