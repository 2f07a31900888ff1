/* sg-skewgp-moments.c — maps of the posterior mean, sd and skewness on
 * large point sets (sg_summary_options.fast_moments).
 *
 * The sample path of sg_skewgp_summarize forms, per point x, the N linear
 * parts  l_j(x) = a(x)^T e_j  (a = w(x), e_j the whitened samples; see
 * sg-skewgp-predict.c): one GEMM of b x N x mh for b points, 16 GFLOP for
 * a 200 x 200 grid with N = 2000 and m = 100. The moment fields need much
 * less:
 *
 *  - mean and variance are linear / quadratic in a(x): with ebar the mean
 *    of the e_j and C_w the sample covariance of their t block (the y block
 *    does not vary), mean = xi + a^T ebar and var = v(x) + a_t^T C_w a_t.
 *    These are the sample mean and variance of the l_j(x) exactly (the
 *    same numbers up to round-off), at O(m mh) per point.
 *
 *  - the third central moment  c3(x) = (1/N) sum_j (a_t^T d_j)^3  (d_j the
 *    centred t block) is a cubic form in a_t with the m x m x m tensor of
 *    the samples. It is evaluated in a rank-r basis of the field: with
 *    C_w = R R^T and y(x) = R^T a_t(x), the points' average of y y^T is
 *    U diag(lambda) U^T (Karhunen-Loeve over the points, estimated on up to
 *    PILOT_POINTS of them); in the coordinates c(x) = U^T y(x) the field is
 *    l_j(x) - mean = c(x)^T z_j with whitened sample coordinates z_j, and
 *    the cubic form restricted to the first r coordinates is a GEMM with
 *    the symmetric third-moment tensor of the z_j. Each multiset {a, b, c}
 *    is taken once, as a <= b <= c with its multiplicity (1, 3 or 6): the
 *    pairs (a, b) in colex order (by b, then a) against the rows c >= b,
 *    about r^3 / 6 multiply-adds per point instead of r^2 (r + 1) / 2
 *    (0.36x at r = 44). r is the smallest rank that leaves at most RANK_TOL of the
 *    points' average linear variance out, at most MAX_RANK.
 *    Per point the variance left out, sum_{k >= r} c_k(x)^2, is known
 *    exactly; where it exceeds POINT_TOL of the point's variance the exact
 *    sample third moment is computed instead (one GEMV with the samples).
 *
 * With fast_moments = SG_SUMMARY_FAST_MEAN_SD the skewness is skipped (NaN):
 * no basis, no tensor, about a third of the cost.
 *
 * Accuracy (tests/bench/results-skewgp.md): mean and sd agree with the
 * sample path to round-off; the skewness differs from the full-sample
 * statistic by at most a few 1e-3 on the benchmark problems, well below
 * the statistic's own Monte Carlo standard error (about sqrt(6 / ESS),
 * 0.05 for 2,000 samples).
 */
#include "sg-skewgp.h"
#include "sg-linalg.h"
#include "sg-order.h"
#include "sg-skewgp-private.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PILOT_POINTS 1024   /* points that estimate the Karhunen-Loeve basis   */
#define RANK_TOL 1e-3       /* average linear variance left out of the basis   */
#define MAX_RANK 48         /* cap of the basis (cost grows like r^3 per point) */
#define POINT_TOL 1e-2      /* a point whose left-out variance exceeds this
                               fraction of its variance gets the exact moment */
#define PAIR_CHUNK 64        /* pair products formed per GEMM (cache-sized)    */
#define PAIR_COLUMNS 64     /* points per pass of the cubic form: S, the
                               PAIR_CHUNK x PAIR_COLUMNS pair products, fits
                               in L1 (32 KiB); over a whole batch of 256 it
                               would spill to L2                            */
#define SIGMA_FLOOR 1e-13   /* directions of C_w below this * its largest
                               eigenvalue carry no sample variation          */

/* Everything the batches share, built once per call. The points enter as
 * u(x) = P k(Z, x) (mh), not as the whitened a(x) = Lh^{-1} u(x): in the
 * rotated coordinates h = B^T a, B = blockdiag(I_mr, V) with V the
 * eigenvectors of C_w = V diag(s2) V^T, the solve with Lh folds into one
 * matrix M (one GEMM per batch instead of a triangular solve and a GEMM):
 *   mean = xi + ebar^T a             = xi + (row mh of M) u
 *   var  = [k(x,x) - |a|^2]_+ + a_t^T C_w a_t
 *        = [k(x,x) - |h|^2]_+ + sum_k s2_k h_{mr+k}^2      (B orthogonal)
 *   c    = U^T R^T a_t = U^T diag(s) h_t                     (R = V diag(s)) */
typedef struct {
  size_t m, mh, mr, N, r, P;   /* P = r (r + 1) / 2 pairs                   */
  double *M;      /* (mh + 1) x mh: rows 0..mh-1 = B^T Lh^{-1} (u to h),
                     row mh = ebar^T Lh^{-1} (u to the linear mean)          */
  double *s2;     /* m: C_w's eigenvalues, 0 below the floor (order of h_t) */
  double *C;      /* r x m: C[k][i] = U_ik s_i, so c = C h_t                */
  double *T;      /* r x P: T[c][q(a,b)] = mult(a,b,c) mean_j z_aj z_bj z_cj
                     for a <= b <= c, 0 for c < b; q(a,b) = b (b + 1) / 2 + a
                     (colex); mult = 1, 3 or 6 (all equal, two, none), so
                     c3 = sum_c c_c sum_q T[c][q] c_a c_b                    */
  double *D;      /* mh x N: B^T (e_j - ebar) (for the exact fallback)      */
} moment_basis;

static void
moment_basis_clear (moment_basis *mb)
{
  free (mb->M);
  free (mb->s2);
  free (mb->C);
  free (mb->T);
  free (mb->D);
}

/* How many of the index triples (i, j, k) are permutations of a <= b <= c. */
static double
triple_multiplicity (size_t a, size_t b, size_t c)
{
  if (a == b && b == c)
    return 1;
  if (a == b || b == c)
    return 3;
  return 6;
}

/* The pilot points: up to PILOT_POINTS of XS, evenly strided. */
static size_t
pilot_points (const sg_skewgp_posterior *post, const double *XS, size_t b,
              double *out)
{
  size_t k = b < PILOT_POINTS ? b : PILOT_POINTS;
  for (size_t i = 0; i < k; i++)
    {
      size_t src = (size_t) ((double) i * (double) b / (double) k);
      memcpy (out + i * post->dim, XS + src * post->dim, post->dim * sizeof *out);
    }
  return k;
}

/* The third-moment tensor of the r x N sample coordinates Z into mb->T. */
static int
moment_tensor (moment_basis *mb, const double *Z)
{
  size_t r = mb->r, N = mb->N;
  double *pair = malloc ((r * N + 1) * sizeof *pair);
  double *Tb = malloc ((r * r + 1) * sizeof *Tb);
  mb->T = malloc ((r * mb->P + 1) * sizeof *mb->T);
  if (!pair || !Tb || !mb->T)
    {
      free (pair); free (Tb);
      return SG_ENOMEM;
    }
  /* for each a, the pairs (a, b >= a) against every c */
  for (size_t a = 0; a < r; a++)
    {
      size_t nb = r - a;
      for (size_t bb = 0; bb < nb; bb++)
        sg_vec_mul (Z + a * N, Z + (a + bb) * N, N, pair + bb * N);
      /* Tb (nb x r) = pair Z^T / N */
      sg_gemm (0, 1, nb, r, N, 1.0 / (double) N, pair, Z, 0, Tb);
      for (size_t bb = 0; bb < nb; bb++)
        {
          size_t hi = a + bb, q = hi * (hi + 1) / 2 + a;
          for (size_t c = 0; c < r; c++)
            mb->T[c * mb->P + q] = c < hi ? 0 : triple_multiplicity (a, hi, c) * Tb[bb * r + c];
        }
    }
  free (pair); free (Tb);
  return SG_OK;
}

/* The skewness part of the basis: the pilot average K of y y^T
 * (y = diag(s) h_t) = U diag(lambda) U^T, the rank r, C, the whitened
 * sample coordinates Z = U_r^T diag(1/s) D_t and the tensor T. */
static int
moment_basis_skew (const sg_skewgp_posterior *post, const double *XS, size_t b,
                   moment_basis *mb)
{
  size_t m = mb->m, mh = mb->mh, mr = mb->mr, N = mb->N, nz = post->nz;
  size_t np = b < PILOT_POINTS ? b : PILOT_POINTS;
  double *Xp = malloc ((np * post->dim + 1) * sizeof *Xp);
  double *Ks = malloc ((np * nz + 1) * sizeof *Ks);
  double *Up = malloc ((mh * np + 1) * sizeof *Up);
  double *Y = malloc ((m * np + 1) * sizeof *Y);
  double *K = malloc ((m * m + 1) * sizeof *K);
  double *lam = malloc ((m + 1) * sizeof *lam);
  double *W = malloc ((m * N + 1) * sizeof *W);
  double *Ur = malloc ((m * m + 1) * sizeof *Ur);
  double *Z = NULL;
  int status = (Xp && Ks && Up && Y && K && lam && W && Ur) ? SG_OK : SG_ENOMEM;
  if (status != SG_OK)
    goto out;
  size_t npts = pilot_points (post, XS, b, Xp);
  sg_kernel_matrix (&post->kernel, post->Z, nz, Xp, npts, Ks);
  sg_skewgp_project_kernel (post, Ks, npts, Up);
  sg_gemm (0, 0, m, npts, mh, 1, mb->M + mr * mh, Up, 0, Y);   /* h_t */
  for (size_t k = 0; k < m; k++)
    sg_vec_scale (sqrt (mb->s2[k]), Y + k * npts, npts, Y + k * npts);
  sg_gemm (0, 1, m, m, npts, 1.0 / (double) npts, Y, Y, 0, K);
  sg_symmetrize (K, m);
  if ((status = sg_sym_eigen (K, m, lam)) != SG_OK)
    goto out;
  /* descending order: column m-1-k of K is the k-th direction */
  double total = 0, left;
  for (size_t k = 0; k < m; k++)
    total += fmax (lam[k], 0);
  size_t r = 0;
  left = total;
  while (r < m && r < MAX_RANK && left > RANK_TOL * total)
    left -= fmax (lam[m - 1 - r++], 0);
  mb->r = r;
  mb->P = r * (r + 1) / 2;
  if (r == 0)
    goto out;
  mb->C = malloc (r * m * sizeof *mb->C);
  Z = malloc (r * N * sizeof *Z);
  if (mb->C == NULL || Z == NULL)
    {
      status = SG_ENOMEM;
      goto out;
    }
  for (size_t i = 0; i < m; i++)
    for (size_t k = 0; k < r; k++)
      {
        Ur[i * r + k] = K[i * m + (m - 1 - k)];
        mb->C[k * m + i] = Ur[i * r + k] * sqrt (mb->s2[i]);
      }
  /* W = diag(1/s) D_t (the t rows of D are V^T (e_j - ebar)_t) */
  for (size_t k = 0; k < m; k++)
    sg_vec_scale (mb->s2[k] > 0 ? 1 / sqrt (mb->s2[k]) : 0, mb->D + (mr + k) * N, N,
                  W + k * N);
  sg_gemm (1, 0, r, N, m, 1, Ur, W, 0, Z);
  status = moment_tensor (mb, Z);
out:
  free (Xp); free (Ks); free (Up); free (Y); free (K); free (lam); free (W);
  free (Ur); free (Z);
  return status;
}

/* Builds the basis (see moment_basis): the centred samples, Lh^{-1}, the
 * eigendecomposition of C_w, M and D; with WITH_SKEW the rest. */
static int
moment_basis_build (const sg_skewgp_posterior *post, const sg_skewgp_samples *smp,
                    const double *XS, size_t b, int with_skew, moment_basis *mb)
{
  size_t m = post->m, mh = post->mh, mr = post->mr, N = smp->N;
  *mb = (moment_basis) { .m = m, .mh = mh, .mr = mr, .N = N };
  mb->M = calloc ((mh + 1) * mh + 1, sizeof *mb->M);
  mb->s2 = calloc (m + 1, sizeof *mb->s2);
  mb->D = malloc ((mh * N + 1) * sizeof *mb->D);
  double *D0 = malloc ((mh * N + 1) * sizeof *D0);
  double *Linv = calloc (mh * mh + 1, sizeof *Linv);
  double *ebar = malloc ((mh + 1) * sizeof *ebar);
  double *V = malloc ((m * m + 1) * sizeof *V);
  int status = (mb->M && mb->s2 && mb->D && D0 && Linv && ebar && V) ? SG_OK : SG_ENOMEM;
  if (status != SG_OK)
    goto out;

  /* centred samples and their mean */
  for (size_t k = 0; k < mh; k++)
    {
      const double *e = smp->E + k * N;
      double mean = 0;
      for (size_t j = 0; j < N; j++)
        mean += e[j];
      ebar[k] = mean / (double) N;
      for (size_t j = 0; j < N; j++)
        D0[k * N + j] = e[j] - ebar[k];
    }
  /* Lh^{-1} (solve Lh X = I); row mh of M = (Lh^{-T} ebar)^T; the y rows
   * of M and D are not rotated */
  for (size_t k = 0; k < mh; k++)
    Linv[k * mh + k] = 1;
  sg_trsm_lower (post->Lh, mh, Linv, mh);
  sg_gemv (1, mh, mh, 1, Linv, ebar, 0, mb->M + mh * mh);
  memcpy (mb->M, Linv, mr * mh * sizeof *mb->M);
  memcpy (mb->D, D0, mr * N * sizeof *mb->D);
  if (m == 0)
    goto out;

  /* C_w = D0_t D0_t^T / N = V diag(s2) V^T; the t rows of M and D rotated
   * by V^T */
  const double *Dt = D0 + mr * N;
  sg_gemm (0, 1, m, m, N, 1.0 / (double) N, Dt, Dt, 0, V);
  sg_symmetrize (V, m);
  if ((status = sg_sym_eigen (V, m, mb->s2)) != SG_OK)
    goto out;
  double floor_s2 = SIGMA_FLOOR * (mb->s2[m - 1] > 0 ? mb->s2[m - 1] : 0);
  for (size_t k = 0; k < m; k++)
    if (!(mb->s2[k] > floor_s2))
      mb->s2[k] = 0;
  sg_gemm (1, 0, m, mh, m, 1, V, Linv + mr * mh, 0, mb->M + mr * mh);
  sg_gemm (1, 0, m, N, m, 1, V, Dt, 0, mb->D + mr * N);
  if (with_skew)
    status = moment_basis_skew (post, XS, b, mb);

out:
  free (D0); free (Linv); free (ebar); free (V);
  if (status != SG_OK)
    moment_basis_clear (mb);
  return status;
}

/* ---- K(Z, XS) for RBF kernels on grids ------------------------------------
 * The RBF kernel is a product over coordinates,
 *   k(z, x) = v prod_d exp(-(z_d - x_d)^2 / (2 l_d^2)),
 * so when the points share few distinct values per coordinate (a 200 x 200
 * grid has 200 + 200) the exponentials are tabulated once per distinct
 * value: nz (q_1 + ... + q_dim) exps instead of nz b, and each kernel entry
 * is a product of dim table entries. The values equal sg_kernel_matrix's to
 * a few ulp (a product of exps instead of the exp of a sum). */
typedef struct {
  size_t dim, nz, b;
  double variance;
  size_t *off;      /* dim + 1: start of coordinate d's table columns      */
  double *tab;      /* nz x off[dim]: table of coordinate d at column off[d] + q */
  uint32_t *idx;    /* b x dim: the point's value index in its coordinate  */
} grid_kernel;

static void
grid_kernel_clear (grid_kernel *g)
{
  free (g->off);
  free (g->tab);
  free (g->idx);
  memset (g, 0, sizeof *g);
}

/* Builds the tables when the kernel is RBF (not grouped: the tables are a
 * product over coordinates) and the distinct values of all
 * coordinates together number at most b / 8; returns 1 if built, 0 if not
 * worthwhile (or out of memory: the caller then evaluates the kernel). */
static int
grid_kernel_init (grid_kernel *g, const sg_skewgp_posterior *post,
                  const double *XS, size_t b)
{
  size_t dim = post->dim, nz = post->nz;
  memset (g, 0, sizeof *g);
  if (post->kernel.type != SG_KERNEL_RBF || post->kernel.grouped || b < 64)
    return 0;
  double *vals = malloc (b * sizeof *vals);
  double *uniq = malloc ((b * dim + 1) * sizeof *uniq);
  g->off = malloc ((dim + 1) * sizeof *g->off);
  g->idx = malloc ((b * dim + 1) * sizeof *g->idx);
  int ok = vals && uniq && g->off && g->idx;
  size_t total = 0;
  for (size_t d = 0; ok && d < dim; d++)
    {
      for (size_t i = 0; i < b; i++)
        vals[i] = XS[i * dim + d];
      sg_sort_doubles (vals, b);
      size_t q = 0;
      for (size_t i = 0; i < b; i++)
        if (q == 0 || vals[i] != uniq[total + q - 1])
          uniq[total + q++] = vals[i];
      g->off[d] = total;
      total += q;
      ok = 8 * total <= b;
    }
  if (ok)
    {
      g->off[dim] = total;
      g->tab = malloc ((nz * total + 1) * sizeof *g->tab);
      ok = g->tab != NULL;
    }
  for (size_t d = 0; ok && d < dim; d++)
    {
      const double *u = uniq + g->off[d];
      size_t q = g->off[d + 1] - g->off[d];
      double l = post->kernel.lengthscales[d];
      for (size_t i = 0; i < nz; i++)
        for (size_t c = 0; c < q; c++)
          {
            double t2 = sg_kernel_dim_sqdist (&post->kernel, d, post->Z[i * dim + d], u[c]);
            g->tab[i * total + g->off[d] + c] = exp (-0.5 * t2 / (l * l));
          }
      for (size_t i = 0; i < b; i++)
        {
          /* binary search of the point's value among the sorted q values */
          double x = XS[i * dim + d];
          size_t lo = 0, hi = q;
          while (hi - lo > 1)
            {
              size_t mid = (lo + hi) / 2;
              if (u[mid] <= x)
                lo = mid;
              else
                hi = mid;
            }
          g->idx[i * dim + d] = (uint32_t) lo;
        }
    }
  free (vals);
  free (uniq);
  if (!ok)
    {
      grid_kernel_clear (g);
      return 0;
    }
  g->dim = dim;
  g->nz = nz;
  g->b = b;
  g->variance = post->kernel.variance;
  return 1;
}

/* Whether point P + 1 continues P's run along the last coordinate: the
 * same values in the other coordinates, the next value in the last. */
static int
continues_run (const grid_kernel *g, size_t p)
{
  const uint32_t *a = g->idx + p * g->dim, *b = a + g->dim;
  size_t last = g->dim - 1;
  for (size_t d = 0; d < last; d++)
    if (a[d] != b[d])
      return 0;
  return b[last] == a[last] + 1;
}

/* KS (nz x bb) = K(Z, XS[b0 .. b0 + bb)) from the tables. The points of a
 * grid come in runs along the last coordinate; within a run an entry is
 * the product over the other coordinates (one number per row of KS) times
 * consecutive entries of the last coordinate's table: a scaled copy. The
 * products are formed in the same order as point by point, so the values
 * are the same. */
static void
grid_kernel_matrix (const grid_kernel *g, size_t b0, size_t bb, double *Ks)
{
  size_t dim = g->dim, total = g->off[dim], last = dim - 1;
  for (size_t j0 = 0; j0 < bb;)
    {
      size_t len = 1;
      while (j0 + len < bb && continues_run (g, b0 + j0 + len - 1))
        len++;
      const uint32_t *ix = g->idx + (b0 + j0) * dim;
      for (size_t i = 0; i < g->nz; i++)
        {
          const double *t = g->tab + i * total;
          double pre = g->variance;
          for (size_t d = 0; d < last; d++)
            pre *= t[g->off[d] + ix[d]];
          sg_vec_scale (pre, t + g->off[last] + ix[last], len, Ks + i * bb + j0);
        }
      j0 += len;
    }
}

/* G = T S (r x bb), the cubic form's coefficients at the bb points whose
 * coordinates c are the rows of OC (r x bb): S holds the pair products
 * c_a c_b in colex order (pairs lo <= hi), formed in chunks of PAIR_CHUNK
 * pairs by PAIR_COLUMNS points so that S stays in L1. A chunk whose first
 * pair has hi = h0 needs the rows c >= h0 only (T is 0 above them; the
 * first chunk, h0 = 0, sets every row of G). */
static void
cubic_form (const moment_basis *mb, const double *Oc, size_t bb, double *S, double *G)
{
  size_t r = mb->r, P = mb->P;
  for (size_t c0 = 0; c0 < bb; c0 += PAIR_COLUMNS)
    {
      size_t cw = bb - c0 < PAIR_COLUMNS ? bb - c0 : PAIR_COLUMNS;
      for (size_t p = 0, lo = 0, hi = 0; p < P;)
        {
          size_t np = P - p < PAIR_CHUNK ? P - p : PAIR_CHUNK, first_b = hi;
          for (size_t q = 0; q < np; q++)
            {
              sg_vec_mul (Oc + lo * bb + c0, Oc + hi * bb + c0, cw, S + q * cw);
              if (++lo > hi)
                lo = 0, hi++;
            }
          sg_gemm_ld (0, 0, r - first_b, cw, np, 1, mb->T + first_b * P + p, P,
                      S, cw, p == 0 ? 0 : 1, G + first_b * bb + c0, bb);
          p += np;
        }
    }
}

sg_status
sg_skewgp_summarize_moments (const sg_skewgp_posterior *post,
                             const sg_skewgp_samples *smp, const double *XS,
                             size_t b, size_t bs, int with_skew,
                             const sg_progress *progress, sg_point_summary *res)
{
  moment_basis mb;
  int status = moment_basis_build (post, smp, XS, b, with_skew, &mb);
  if (status != SG_OK)
    return status;
  size_t m = mb.m, mh = mb.mh, mr = mb.mr, r = mb.r, N = mb.N;
  size_t dim = post->dim, nz = post->nz;
  double *Ks = malloc ((bs * nz + 1) * sizeof *Ks);
  double *U = malloc ((mh * bs + 1) * sizeof *U);
  double *H = malloc (((mh + 1) * bs + 1) * sizeof *H);
  double *Oc = malloc ((r * bs + 1) * sizeof *Oc);
  double *S = malloc ((PAIR_CHUNK * PAIR_COLUMNS + 1) * sizeof *S);
  double *G = malloc ((r * bs + 1) * sizeof *G);
  double *rem = malloc (bs * sizeof *rem), *lin = malloc (bs * sizeof *lin);
  double *vl = malloc (bs * sizeof *vl), *c3 = malloc (bs * sizeof *c3);
  double *Af = malloc ((mh * bs + 1) * sizeof *Af);
  double *F = malloc ((bs * N + 1) * sizeof *F);
  size_t *fb = malloc (bs * sizeof *fb);
  status = (Ks && U && H && Oc && S && G && rem && lin && vl && c3 && Af && F && fb)
           ? SG_OK : SG_ENOMEM;
  grid_kernel gk;
  int tables = status == SG_OK && grid_kernel_init (&gk, post, XS, b);
  for (size_t b0 = 0; status == SG_OK && b0 < b; b0 += bs)
    {
      if (progress != NULL
          && (status = sg_progress_report (progress, (double) b0 / (double) b)) != SG_OK)
        break;
      size_t bb = b - b0 < bs ? b - b0 : bs;
      const double *xs = XS + b0 * dim;
      if (tables)
        grid_kernel_matrix (&gk, b0, bb, Ks);
      else
        sg_kernel_matrix (&post->kernel, post->Z, nz, xs, bb, Ks);
      sg_skewgp_project_kernel (post, Ks, bb, U);
      /* H = M U: rows 0..mh-1 the coordinates h, row mh the linear mean */
      sg_gemm (0, 0, mh + 1, bb, mh, 1, mb.M, U, 0, H);
      /* per point: the remainder k(x,x) - |h|^2 and the linear variance */
      for (size_t i = 0; i < bb; i++)
        {
          rem[i] = sg_kernel_eval (&post->kernel, xs + i * dim, xs + i * dim);
          lin[i] = vl[i] = c3[i] = 0;
        }
      for (size_t k = 0; k < mh; k++)
        sg_vec_sub_squares (H + k * bb, bb, rem);
      for (size_t k = 0; k < m; k++)
        if (mb.s2[k] > 0)
          {
            const double *hk = H + (mr + k) * bb;
            for (size_t i = 0; i < bb; i++)
              lin[i] += mb.s2[k] * hk[i] * hk[i];
          }
      if (r > 0)
        {
          /* Oc = C H_t: the coordinates c */
          sg_gemm (0, 0, r, bb, m, 1, mb.C, H + mr * bb, 0, Oc);
          cubic_form (&mb, Oc, bb, S, G);
          for (size_t k = 0; k < r; k++)
            {
              const double *ok = Oc + k * bb, *gkk = G + k * bb;
              for (size_t i = 0; i < bb; i++)
                {
                  vl[i] += ok[i] * ok[i];
                  c3[i] += gkk[i] * ok[i];
                }
            }
        }
      /* the linear variance the basis leaves out is lin - vl; where it
       * matters, the exact sample third moment: F = Af^T D */
      size_t nf = 0;
      for (size_t i = 0; i < bb; i++)
        {
          double var = fmax (rem[i], 0) + lin[i];
          if (with_skew && lin[i] - vl[i] > POINT_TOL * var)
            fb[nf++] = i;
        }
      if (nf > 0)
        {
          for (size_t k = 0; k < mh; k++)
            for (size_t f = 0; f < nf; f++)
              Af[k * nf + f] = H[k * bb + fb[f]];
          sg_gemm (1, 0, nf, N, mh, 1, Af, mb.D, 0, F);
          for (size_t f = 0; f < nf; f++)
            {
              double acc = 0;
              for (size_t j = 0; j < N; j++)
                {
                  double l = F[f * N + j];
                  acc += l * l * l;
                }
              c3[fb[f]] = acc / (double) N;
            }
        }
      for (size_t i = 0; i < bb; i++)
        {
          double var = fmax (rem[i], 0) + lin[i], nan = NAN;
          sg_point_summary *out = &res[b0 + i];
          *out = (sg_point_summary) { nan, nan, nan, nan, nan, nan, nan, nan, nan, nan };
          out->mean = post->xi + H[mh * bb + i];
          out->sd = sqrt (var);
          out->skewness = !with_skew ? NAN : var > 0 ? c3[i] / (var * sqrt (var)) : 0;
        }
    }
  free (Ks); free (U); free (H); free (Oc); free (S); free (G); free (rem);
  free (lin); free (vl); free (c3); free (Af); free (F); free (fb);
  if (tables)
    grid_kernel_clear (&gk);
  moment_basis_clear (&mb);
  return status;
}
