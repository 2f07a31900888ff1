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

#include <lapacke.h>
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
#define SIGMA_FLOOR 1e-13   /* directions of C_w below this * its largest
                               eigenvalue carry no sample variation          */

/* Everything the batches share, built once per call. */
typedef struct {
  size_t m, mh, mr, N, r, P;   /* P = r (r + 1) / 2 pairs                   */
  double *M;      /* (m + 1) x mh: rows 0..m-1 map a to c = U^T R^T a_t,
                     row m maps a to the linear mean ebar^T a                */
  double *T;      /* r x P: T[c][q(a,b)] = mult(a,b,c) mean_j z_aj z_bj z_cj
                     for a <= b <= c, 0 for c < b; q(a,b) = b (b + 1) / 2 + a
                     (colex); mult = 1, 3 or 6 (all equal, two, none), so
                     c3 = sum_c c_c sum_q T[c][q] c_a c_b                    */
  double *D;      /* mh x N: e_j - ebar (for the exact fallback)             */
} moment_basis;

static void
moment_basis_clear (moment_basis *mb)
{
  free (mb->M);
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

/* Symmetric eigendecomposition in place (A becomes the eigenvectors in its
 * columns), eigenvalues ascending in EV. */
static int
sym_eigen (double *A, size_t n, double *ev)
{
  if (n == 0)
    return SG_OK;
  lapack_int info = LAPACKE_dsyevd (LAPACK_ROW_MAJOR, 'V', 'L', (lapack_int) n,
                                    A, (lapack_int) n, ev);
  return info == 0 ? SG_OK : SG_ENUMERIC;
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

/* Builds the basis: C_w = V diag(s2) V^T, R = V diag(s); the pilot
 * average K of y y^T (y = R^T a_t) = U diag(lambda) U^T; M; the rank r;
 * the sample coordinates Z = U_r^T diag(1/s) V^T D_t and the tensor T. */
static int
moment_basis_build (const sg_skewgp_posterior *post, const sg_skewgp_samples *smp,
                    const double *XS, size_t b, int with_skew, moment_basis *mb)
{
  size_t m = post->m, mh = post->mh, mr = post->mr, N = smp->N, nz = post->nz;
  *mb = (moment_basis) { .m = m, .mh = mh, .mr = mr, .N = N };
  size_t np = b < PILOT_POINTS ? b : PILOT_POINTS;
  mb->M = calloc ((m + 1) * mh + 1, sizeof *mb->M);
  mb->D = malloc ((mh * N + 1) * sizeof *mb->D);
  double *V = malloc ((m * m + 1) * sizeof *V);        /* C_w, then its vectors */
  double *s2 = malloc ((m + 1) * sizeof *s2);
  double *RU = malloc ((m * m + 1) * sizeof *RU);       /* R, then R U          */
  double *K = malloc ((m * m + 1) * sizeof *K);         /* pilot average, then U */
  double *lam = malloc ((m + 1) * sizeof *lam);
  double *Xp = malloc ((np * post->dim + 1) * sizeof *Xp);
  double *WQ = malloc ((mh * np + 1) * sizeof *WQ);
  double *Y = malloc ((m * np + 1) * sizeof *Y);
  double *scratch = malloc ((np * nz + 1) * sizeof *scratch);
  double *W = malloc ((m * N + 1) * sizeof *W);
  double *RUK = malloc ((m * m + 1) * sizeof *RUK);
  int status = (mb->M && mb->D && V && s2 && RU && K && lam && Xp && WQ && Y
                && scratch && W && RUK) ? SG_OK : SG_ENOMEM;
  if (status != SG_OK)
    goto out;

  /* centred samples and their mean (row m of M) */
  for (size_t k = 0; k < mh; k++)
    {
      const double *e = smp->E + k * N;
      double mean = 0;
      for (size_t j = 0; j < N; j++)
        mean += e[j];
      mean /= (double) N;
      mb->M[m * mh + k] = mean;
      for (size_t j = 0; j < N; j++)
        mb->D[k * N + j] = e[j] - mean;
    }
  if (m == 0)
    goto out;

  /* C_w = D_t D_t^T / N = V diag(s2) V^T */
  const double *Dt = mb->D + mr * N;
  sg_gemm (0, 1, m, m, N, 1.0 / (double) N, Dt, Dt, 0, V);
  sg_symmetrize (V, m);
  if ((status = sym_eigen (V, m, s2)) != SG_OK)
    goto out;
  double floor_s2 = SIGMA_FLOOR * (s2[m - 1] > 0 ? s2[m - 1] : 0);
  for (size_t i = 0; i < m; i++)
    for (size_t k = 0; k < m; k++)
      RU[i * m + k] = s2[k] > floor_s2 ? V[i * m + k] * sqrt (s2[k]) : 0;

  if (!with_skew)
    {
      /* mean and sd only: any orthonormal basis will do (U = I) */
      for (size_t k = 0; k < m; k++)
        for (size_t i = 0; i < m; i++)
          mb->M[k * mh + mr + i] = RU[i * m + k];
      goto out;
    }
  /* K = mean over pilot points of y y^T, y = R^T a_t */
  size_t npts = pilot_points (post, XS, b, Xp);
  sg_skewgp_whiten_points (post, Xp, npts, WQ, NULL, scratch);
  sg_gemm (1, 0, m, npts, m, 1, RU, WQ + mr * npts, 0, Y);
  sg_gemm (0, 1, m, m, npts, 1.0 / (double) npts, Y, Y, 0, K);
  sg_symmetrize (K, m);
  if ((status = sym_eigen (K, m, lam)) != SG_OK)
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

  /* M rows 0..m-1: (R U)^T acting on a_t (columns mr.. of M); RUK = R K
   * holds R u_k in column m-1-k (K's eigenvectors are ascending) */
  sg_gemm (0, 0, m, m, m, 1, RU, K, 0, RUK);
  for (size_t k = 0; k < m; k++)
    for (size_t i = 0; i < m; i++)
      mb->M[k * mh + mr + i] = RUK[i * m + (m - 1 - k)];

  if (r == 0)
    goto out;
  /* W = diag(1/s) V^T D_t (whitened sample coordinates, m x N), then
   * Z = U_r^T W (r x N), stored in W's first r rows */
  sg_gemm (1, 0, m, N, m, 1, V, Dt, 0, W);
  for (size_t k = 0; k < m; k++)
    {
      double inv = s2[k] > floor_s2 ? 1 / sqrt (s2[k]) : 0;
      for (size_t j = 0; j < N; j++)
        W[k * N + j] *= inv;
    }
  double *Ur = RU;   /* m x r: the first r directions; RU no longer needed */
  for (size_t i = 0; i < m; i++)
    for (size_t k = 0; k < r; k++)
      Ur[i * r + k] = K[i * m + (m - 1 - k)];
  double *Z = malloc (r * N * sizeof *Z);
  double *pair = malloc (r * N * sizeof *pair);
  mb->T = malloc (r * mb->P * sizeof *mb->T);
  double *Tb = malloc (r * r * sizeof *Tb);
  if (!Z || !pair || !mb->T || !Tb)
    {
      free (Z); free (pair); free (Tb);
      status = SG_ENOMEM;
      goto out;
    }
  sg_gemm (1, 0, r, N, m, 1, Ur, W, 0, Z);
  /* T: for each a, the pairs (a, b >= a) against every c */
  for (size_t a = 0; a < r; a++)
    {
      size_t nb = r - a;
      for (size_t bb = 0; bb < nb; bb++)
        for (size_t j = 0; j < N; j++)
          pair[bb * N + j] = Z[a * N + j] * Z[(a + bb) * N + j];
      /* Tb (nb x r) = pair Z^T / N */
      sg_gemm (0, 1, nb, r, N, 1.0 / (double) N, pair, Z, 0, Tb);
      for (size_t bb = 0; bb < nb; bb++)
        {
          size_t hi = a + bb, q = hi * (hi + 1) / 2 + a;
          for (size_t c = 0; c < r; c++)
            mb->T[c * mb->P + q] = c < hi ? 0 : triple_multiplicity (a, hi, c) * Tb[bb * r + c];
        }
    }
  free (Z); free (pair); free (Tb);

out:
  free (V); free (s2); free (RU); free (K); free (lam); free (Xp); free (WQ);
  free (Y); free (scratch); free (W); free (RUK);
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

/* Builds the tables when the kernel is RBF and the distinct values of all
 * coordinates together number at most b / 8; returns 1 if built, 0 if not
 * worthwhile (or out of memory: the caller then evaluates the kernel). */
static int
grid_kernel_init (grid_kernel *g, const sg_skewgp_posterior *post,
                  const double *XS, size_t b)
{
  size_t dim = post->dim, nz = post->nz;
  memset (g, 0, sizeof *g);
  if (post->kernel.type != SG_KERNEL_RBF || b < 64)
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
      double inv = 1 / post->kernel.lengthscales[d];
      for (size_t i = 0; i < nz; i++)
        for (size_t c = 0; c < q; c++)
          {
            double t = (post->Z[i * dim + d] - u[c]) * inv;
            g->tab[i * total + g->off[d] + c] = exp (-0.5 * t * t);
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

int
sg_skewgp_summarize_moments (const sg_skewgp_posterior *post,
                             const sg_skewgp_samples *smp, const double *XS,
                             size_t b, size_t bs, int with_skew,
                             const sg_progress *progress, sg_point_summary *res)
{
  moment_basis mb;
  int status = moment_basis_build (post, smp, XS, b, with_skew, &mb);
  if (status != SG_OK)
    return status;
  size_t m = mb.m, mh = mb.mh, r = mb.r, P = mb.P, N = mb.N, dim = post->dim;
  double *WQ = malloc ((mh * bs + 1) * sizeof *WQ);
  double *V = malloc (bs * sizeof *V);
  double *scratch = malloc ((bs * post->nz + 1) * sizeof *scratch);
  double *O = malloc (((m + 1) * bs + 1) * sizeof *O);
  double *S = malloc ((PAIR_CHUNK * bs + 1) * sizeof *S);
  double *vl = malloc (bs * sizeof *vl), *left = malloc (bs * sizeof *left);
  double *G = malloc ((r * bs + 1) * sizeof *G);
  double *Af = malloc ((mh * bs + 1) * sizeof *Af);
  double *F = malloc ((bs * N + 1) * sizeof *F);
  double *c3 = malloc (bs * sizeof *c3);
  size_t *fb = malloc (bs * sizeof *fb);
  status = (WQ && V && scratch && O && S && G && Af && F && c3 && fb && vl && left)
           ? SG_OK : SG_ENOMEM;
  grid_kernel gk;
  int tables = status == SG_OK && grid_kernel_init (&gk, post, XS, b);
  for (size_t b0 = 0; status == SG_OK && b0 < b; b0 += bs)
    {
      if (progress != NULL
          && (status = sg_progress_report (progress, (double) b0 / (double) b)) != SG_OK)
        break;
      size_t bb = b - b0 < bs ? b - b0 : bs;
      if (tables)
        {
          grid_kernel_matrix (&gk, b0, bb, scratch);
          sg_skewgp_whiten_kernel (post, scratch, XS + b0 * dim, bb, WQ, V);
        }
      else
        sg_skewgp_whiten_points (post, XS + b0 * dim, bb, WQ, V, scratch);
      /* O = M WQ: rows 0..m-1 the coordinates c, row m the linear mean */
      sg_gemm (0, 0, m + 1, bb, mh, 1, mb.M, WQ, 0, O);
      if (r > 0)
        {
          /* G = T S (r x bb), S the pair products c_a c_b (P x bb) in
           * colex order (pairs lo <= hi), in chunks of PAIR_CHUNK pairs so
           * that S stays in cache; a chunk whose first pair has hi = h0
           * needs the rows c >= h0 only (T is 0 above them; the first
           * chunk, h0 = 0, sets every row of G) */
          size_t p = 0, lo = 0, hi = 0;
          while (p < P)
            {
              size_t np = P - p < PAIR_CHUNK ? P - p : PAIR_CHUNK, first_b = hi;
              for (size_t q = 0; q < np; q++)
                {
                  sg_vec_mul (O + lo * bb, O + hi * bb, bb, S + q * bb);
                  if (++lo > hi)
                    lo = 0, hi++;
                }
              sg_gemm_ld (0, 0, r - first_b, bb, np, 1, mb.T + first_b * P + p, P, S, bb,
                          p == 0 ? 0 : 1, G + first_b * bb, bb);
              p += np;
            }
        }
      /* per point: linear variance, the part left out of the basis, c3 */
      for (size_t i = 0; i < bb; i++)
        c3[i] = vl[i] = left[i] = 0;
      for (size_t k = 0; k < m; k++)
        {
          const double *ok = O + k * bb;
          double *acc = k < r ? vl : left;
          for (size_t i = 0; i < bb; i++)
            acc[i] += ok[i] * ok[i];
        }
      for (size_t k = 0; k < r; k++)
        {
          const double *ok = O + k * bb, *gkk = G + k * bb;
          for (size_t i = 0; i < bb; i++)
            c3[i] += gkk[i] * ok[i];
        }
      size_t nf = 0;
      for (size_t i = 0; i < bb; i++)
        {
          V[i] += vl[i] + left[i];   /* the total variance from here on */
          if (with_skew && left[i] > POINT_TOL * V[i])
            fb[nf++] = i;
        }
      if (nf > 0)
        {
          /* the exact sample third moment of these points: F = Af^T D */
          for (size_t k = 0; k < mh; k++)
            for (size_t f = 0; f < nf; f++)
              Af[k * nf + f] = WQ[k * bb + fb[f]];
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
          double var = V[i], nan = NAN;
          sg_point_summary *out = &res[b0 + i];
          *out = (sg_point_summary) { nan, nan, nan, nan, nan, nan, nan, nan, nan, nan };
          out->mean = post->xi + O[m * bb + i];
          out->sd = sqrt (var);
          out->skewness = !with_skew ? NAN : var > 0 ? c3[i] / (var * sqrt (var)) : 0;
        }
    }
  free (WQ); free (V); free (scratch); free (O); free (S); free (G);
  free (Af); free (F); free (c3); free (fb); free (vl); free (left);
  if (tables)
    grid_kernel_clear (&gk);
  moment_basis_clear (&mb);
  return status;
}
