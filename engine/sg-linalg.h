/* sg-linalg.h — dense linear algebra on row-major, contiguous matrices.
 *
 * Thin wrappers over CBLAS/LAPACKE (OpenBLAS); matrix products go to BLAS,
 * never to hand-written loops. An n x m matrix A is stored as A[i*m + j].
 */
#pragma once

#include "sg-common.h"

#include <stddef.h>

/* The jitter ladder's usual top for sg_cholesky. */
#define SG_CHOLESKY_MAX_JITTER 1e-6

/* Lower Cholesky factor L of the symmetric n x n matrix A (A = L L^T),
 * written to L (may alias A only if the call succeeds: on failure L is left
 * untouched, so pass a separate buffer to keep A). Tries no jitter first,
 * then adds jitter * mean(diag A) to the diagonal with jitter = 1e-12, 1e-11,
 * ..., up to MAX_REL_JITTER (>= 0; 0 allows no jitter; usually
 * SG_CHOLESKY_MAX_JITTER). The jitter used (relative) is stored in
 * *JITTER_USED when non-NULL. The strict upper triangle of L is set to zero.
 * Returns SG_OK, SG_EINVAL (NaN/inf, negative or NaN MAX_REL_JITTER) or
 * SG_ENOTPD. */
sg_status sg_cholesky (const double *A, size_t n, double max_rel_jitter,
                       double *L, double *jitter_used);

/* Solve L X = B (lower) or L^T X = B in place; B is n x nrhs. */
void sg_trsm_lower (const double *L, size_t n, double *B, size_t nrhs);
void sg_trsm_lower_trans (const double *L, size_t n, double *B, size_t nrhs);
/* Solve (L L^T) X = B in place; B is n x nrhs. */
void sg_cholesky_solve (const double *L, size_t n, double *B, size_t nrhs);
/* log det(L L^T) = 2 sum log L_ii. */
double sg_cholesky_logdet (const double *L, size_t n);
/* Inverse of L L^T (full symmetric), from its Cholesky factor, into Ainv. */
sg_status sg_cholesky_inverse (const double *L, size_t n, double *Ainv);

/* C = alpha op(A) op(B) + beta C, with op = transpose when trans_* != 0.
 * op(A) is m x k, op(B) is k x n, C is m x n. */
void sg_gemm (int trans_a, int trans_b, size_t m, size_t n, size_t k,
              double alpha, const double *A, const double *B,
              double beta, double *C);
/* y = alpha op(A) x + beta y; A is m x n. */
void sg_gemv (int trans, size_t m, size_t n, double alpha, const double *A,
              const double *x, double beta, double *y);
/* As sg_gemm / sg_gemv on submatrices of row-major arrays: LDA, LDB, LDC
 * are the row strides (leading dimensions) of A, B and C as stored. */
void sg_gemm_ld (int trans_a, int trans_b, size_t m, size_t n, size_t k,
                 double alpha, const double *A, size_t lda, const double *B,
                 size_t ldb, double beta, double *C, size_t ldc);
void sg_gemv_ld (int trans, size_t m, size_t n, double alpha, const double *A,
                 size_t lda, const double *x, double beta, double *y);
/* (x, y) = (c x + s y, c y - s x) over N entries: a plane rotation (drot). */
void sg_rot (size_t n, double *x, double *y, double c, double s);
/* y = L x in place (L lower triangular n x n). */
void sg_trmv_lower (const double *L, size_t n, double *x);

/* Eigendecomposition of the symmetric n x n A in place (A becomes the
 * eigenvectors, in its columns), eigenvalues ascending in EV (LAPACK dsyevd).
 * SG_OK or SG_ENUMERIC. */
sg_status sg_sym_eigen (double *A, size_t n, double *ev);
/* The K <= n largest eigenvalues of the symmetric n x n A (destroyed),
 * descending in EV, and their eigenvectors as the columns of the n x K
 * matrix V (LAPACK dsyevr: a tridiagonal reduction, then only K vectors).
 * SG_OK, SG_ENOMEM or SG_ENUMERIC. */
sg_status sg_sym_eigen_top (double *A, size_t n, size_t k, double *ev, double *V);

/* Symmetrise A in place: A = (A + A^T) / 2. */
void sg_symmetrize (double *A, size_t n);
/* 1 if every entry is finite. */
int sg_all_finite (const double *x, size_t n);

/* For the engine's elementwise loops (these, and exit_times in sg-tmvn.c):
 * GCC vectorises at -O2 only in its "very cheap" mode (no loops of run-time
 * length): ask for the full vectoriser on such loops, and on x86-64 for
 * AVX2 / AVX-512 versions picked at load time (the baseline is SSE2).
 * Nothing is reassociated; where the CPU fuses a multiply-add (axpy,
 * sub_squares) a result can differ in its last bit from the SSE2 loop's,
 * as OpenBLAS's own kernels differ between CPUs. The grid-wide moment maps
 * spend most of their time in these loops. (sqrt vectorises because the
 * engine is built with -fno-math-errno.) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SG_VECTORIZE __attribute__ ((optimize ("tree-vectorize"), \
                                     target_clones ("avx512f", "avx2", "default")))
#elif defined(__GNUC__) && !defined(__clang__)
#define SG_VECTORIZE __attribute__ ((optimize ("tree-vectorize")))
#else
#define SG_VECTORIZE
#endif

/* Elementwise kernels over N entries, for the loops over grid points and
 * samples that BLAS has no call for (or none cheaper than the loop). */
void sg_vec_mul (const double *x, const double *y, size_t n, double *out);  /* out = x .* y  */
void sg_vec_scale (double alpha, const double *x, size_t n, double *out);   /* out = alpha x */
void sg_vec_axpy (double alpha, const double *x, size_t n, double *y);      /* y += alpha x  */
void sg_vec_sub_squares (const double *x, size_t n, double *acc);           /* acc -= x .* x */

/* Process-wide BLAS threading for the programs (call once from main(),
 * before any other thread starts): one BLAS thread, unless the user asked
 * for a number with OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or
 * OMP_NUM_THREADS. Why: the engine's matrices have at most a few hundred
 * rows and its parallelism is its own (sampler chains, the worker next to
 * the refit); OpenBLAS's threads busy-wait between calls and, measured on
 * the 2-core machine, made a preferential-BO run 2.4x slower in wall time
 * (tests/bench/results-bo.md). */
void sg_blas_use_default_threads (void);
