/* sg-tmvn.c — lin-ess: linear elliptical slice sampling of a Gaussian
 * restricted to a box (Gessner, Kanjilal & Hennig 2020, "Integrals over
 * Gaussians under linear domain constraints", AISTATS; paper 001 section 4,
 * Algorithm 1).
 *
 * The chain is kept in the original coordinates x. With cov = L L^T and
 * nu ~ N(0, I_r), one transition draws the ellipse
 *
 *   x(theta) = mean + (x0 - mean) cos theta + (L nu) sin theta
 *
 * through the current state x0 (theta = 0) and moves to a uniformly chosen
 * feasible angle. Every bound is a constraint a cos theta + b sin theta + c
 * > 0, violated on at most one arc of the circle; the feasible set is the
 * complement of the union of those arcs, possibly several disjoint arcs,
 * always containing theta = 0. Drawing theta uniformly on the whole set
 * (not only on the arc through 0, as in 001 Algorithm 1's simplified
 * pseudo-code) is the lin-ess transition: it leaves the truncated Gaussian
 * invariant because the map (x0, nu) -> (x(theta), x'(theta)) preserves
 * N(0, cov) x N(0, cov) and the slice is the same set seen from any point
 * of the ellipse (Murray, Adams & MacKay 2010, sec. 2.3). The transition
 * depends on L only through L nu ~ N(0, cov), so any square root works; we
 * use a pivoted Cholesky factor, which also handles a singular cov.
 *
 * Cost of a transition: one triangular product L nu (O(d r)), O(d) for the
 * 2d bounds, and O(k) to combine the k arcs that the ellipse actually cuts
 * (O(k log k), a sort, only when the feasible set is several arcs).
 *
 * The second transition, exact Hamiltonian Monte Carlo (Pakman & Paninski
 * 2014), is further below: same ellipses, but the state travels along them
 * and reflects off the bounds; it mixes far better when the box removes most
 * of the Gaussian's mass (tests/bench/results-tmvn.md).
 */
#include "sg-tmvn.h"
#include "sg-linalg.h"
#include "sg-mcmc.h"
#include "sg-normal.h"
#include "sg-rng.h"

#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TWO_PI (2 * M_PI)

/* Each violated arc is widened by this many radians on both sides, so that
 * round-off in acos/atan2 near a boundary does not propose a point just
 * outside the box. The bias it introduces (2e-10 of the circle per cut) is
 * far below any Monte Carlo error; a proposal that still violates a bound is
 * redrawn (see MAX_REDRAWS). */
#define ARC_EPS 1e-10
#define MAX_REDRAWS 20

/* Steps between two progress reports / cancellation checks. */
#define PROGRESS_EVERY 256

typedef struct {
  double s, e;   /* start and end angle, 0 <= s < e <= 2 pi */
} arc;

typedef struct {
  double *x;      /* current state, permuted coordinates (d)             */
  double *w;      /* L nu for the current ellipse (d)                     */
  double *xnew;   /* proposal; exact HMC: the position offset (d)          */
  arc *arcs;      /* violated arcs (up to 2 per bound, 4 d in all)        */
  arc *gaps;      /* feasible arcs (up to 4 d + 1)                        */
  double *u;      /* exact HMC: half-angle exit times of the walls (2 d)  */
  size_t steps, multi_arc, bounces, stuck;
} chain;

struct sg_tmvn {
  size_t d, r;
  size_t *perm;              /* permuted coordinate k is original perm[k] */
  double *mean, *lower, *upper;  /* permuted                              */
  double *L;                 /* d x r pivoted Cholesky factor, lda = r    */
  double *cov;               /* permuted cov, exact HMC only (else NULL)  */
  double *c_lo, *c_up;       /* exact HMC: mean - lower, upper - mean of the
                                moving coordinates, INFINITY where no wall  */
  int any_lo, any_up;        /* exact HMC: some finite lower / upper wall    */
  unsigned char *moving;     /* 0 for a zero-variance (fixed) coordinate  */
  sg_tmvn_options opt;
  size_t thin;               /* in use (automatic choice once made)       */
  double pilot_iat;
  int started;               /* burn-in (and pilot) done                  */
  chain *chains;
};

void
sg_tmvn_options_default (sg_tmvn_options *opt)
{
  opt->burn_in = 100;
  opt->thin = 1;
  opt->pilot = 2000;
  opt->max_thin = 1000;
  opt->n_chains = 1;
  opt->n_threads = 0;
  opt->method = SG_TMVN_LIN_ESS;
  opt->hmc_time = M_PI / 2;
}

/* ---- Factorisation -------------------------------------------------- */

/* Pivoted Cholesky P^T cov P = L L^T with rank detection (LAPACK dpstrf,
 * Higham 2009 "Cholesky factorization", WIREs Comp Stat 1:251), then a
 * check that the part left over is zero: dpstrf stops at the first pivot
 * below its tolerance, which an indefinite matrix also reaches, so the
 * remaining Schur complement must vanish (to sqrt(eps) relative) for cov to
 * be positive semi-definite. Fills S->perm, S->L, S->r, S->moving. */
static int
factor_covariance (sg_tmvn *s, const double *cov)
{
  size_t d = s->d;
  double maxdiag = 0;
  for (size_t i = 0; i < d; i++)
    {
      if (cov[i * d + i] < 0)
        return SG_ENOTPD;
      if (cov[i * d + i] > maxdiag)
        maxdiag = cov[i * d + i];
    }
  /* Symmetric up to round-off of a computed product (dpstrf then reads the
   * lower triangle only). */
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < i; j++)
      if (!(fabs (cov[i * d + j] - cov[j * d + i]) <= 1e-8 * maxdiag))
        return SG_EINVAL;

  double *work = malloc (d * d * sizeof *work);
  lapack_int *piv = malloc (d * sizeof *piv);
  if (work == NULL || piv == NULL)
    {
      free (work);
      free (piv);
      return SG_ENOMEM;
    }
  memcpy (work, cov, d * d * sizeof *work);
  lapack_int rank = 0;
  lapack_int info = 0;
  if (maxdiag > 0)
    info = LAPACKE_dpstrf (LAPACK_ROW_MAJOR, 'L', (lapack_int) d, work,
                           (lapack_int) d, piv, &rank, -1.0);
  else
    for (size_t i = 0; i < d; i++)
      piv[i] = (lapack_int) i + 1;
  if (info < 0)
    {
      free (work);
      free (piv);
      return SG_ENUMERIC;
    }

  size_t r = (size_t) rank;
  s->r = r;
  for (size_t k = 0; k < d; k++)
    s->perm[k] = (size_t) piv[k] - 1;
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < r; j++)
      s->L[i * r + j] = j <= i ? work[i * d + j] : 0;

  int status = SG_OK;
  if (r < d)
    {
      /* Schur complement C22 - L21 L21^T of the rows that dpstrf left. */
      size_t m = d - r;
      double *schur = work;   /* reuse: m x m fits in d x d */
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
          schur[i * m + j] = cov[s->perm[r + i] * d + s->perm[r + j]];
      sg_gemm (0, 1, m, m, r, -1.0, s->L + r * r, s->L + r * r, 1.0, schur);
      double tol = sqrt (2.2e-16) * maxdiag;
      for (size_t i = 0; i < m * m && status == SG_OK; i++)
        if (!(fabs (schur[i]) <= tol))
          status = SG_ENOTPD;
    }

  /* A coordinate whose variance is below dpstrf's rank tolerance (d eps
   * max diag, its default) is fixed at its mean. */
  double fixed_tol = (double) d * 2.2e-16 * maxdiag;
  for (size_t k = 0; k < d; k++)
    {
      size_t i = s->perm[k];
      s->moving[k] = cov[i * d + i] > fixed_tol;
      if (!s->moving[k])
        for (size_t j = 0; j < r; j++)
          s->L[k * r + j] = 0;
    }
  free (work);
  free (piv);
  return status;
}

/* ---- Feasible start ------------------------------------------------- */

/* Last column of row K of L that matters: coefficients below 1e-8 of the
 * row's norm only add round-off to the constraint, and choosing z_j from a
 * tiny coefficient would throw z_j far into the tails. -1 for a fixed row. */
static long
last_column (const sg_tmvn *s, size_t k)
{
  const double *row = s->L + k * s->r;
  double norm2 = 0;
  for (size_t j = 0; j < s->r; j++)
    norm2 += row[j] * row[j];
  if (!s->moving[k] || norm2 == 0)
    return -1;
  double cut = 1e-8 * sqrt (norm2);
  for (size_t j = s->r; j-- > 0;)
    if (fabs (row[j]) > cut)
      return (long) j;
  return -1;
}

/* Chooses whitened coordinates z_0, z_1, ... in turn. Row k of L has
 * nonzeros in columns 0..last(k) only (lower trapezoidal), so once
 * z_0..z_{j-1} are fixed, every row whose last column is j constrains z_j to
 * an interval; z_j is the median of N(0, 1) truncated to their intersection
 * (sg_norm_trunc_quantile, accurate far in the tails). For a full-rank cov
 * this always succeeds when the box is nonempty; for a singular one it is a
 * greedy choice that may miss a feasible point of a thin (measure-zero in
 * some direction) box, which is then reported as SG_EINFEASIBLE. Writes the
 * start, in permuted coordinates, to X. */
static int
feasible_start (const sg_tmvn *s, double *x)
{
  size_t d = s->d, r = s->r;
  long *last = malloc (d * sizeof *last);
  if (last == NULL)
    return SG_ENOMEM;
  for (size_t k = 0; k < d; k++)
    {
      last[k] = last_column (s, k);
      x[k] = s->mean[k];   /* partial sums mean + sum_{j < col} L_kj z_j */
    }

  int status = SG_OK;
  for (size_t j = 0; j < r && status == SG_OK; j++)
    {
      double lo = -INFINITY, hi = INFINITY;
      for (size_t k = 0; k < d; k++)
        if (last[k] == (long) j)
          {
            double c = s->L[k * r + j];
            double a = (s->lower[k] - x[k]) / c, b = (s->upper[k] - x[k]) / c;
            if (c < 0)
              {
                double t = a;
                a = b;
                b = t;
              }
            lo = fmax (lo, a);
            hi = fmin (hi, b);
          }
      double z;
      if (!(lo < hi))
        status = SG_EINFEASIBLE;
      else
        {
          z = sg_norm_trunc_quantile (lo, hi, 0.5);
          if (!(z > lo && z < hi) && isfinite (lo) && isfinite (hi))
            z = 0.5 * (lo + hi);
          if (!(z > lo && z < hi))
            status = SG_EINFEASIBLE;
          else
            for (size_t k = j; k < d; k++)
              x[k] += s->L[k * r + j] * z;
        }
    }
  free (last);
  if (status != SG_OK)
    return status;

  for (size_t k = 0; k < d; k++)
    {
      int inside = s->moving[k] ? x[k] > s->lower[k] && x[k] < s->upper[k]
                                : x[k] >= s->lower[k] && x[k] <= s->upper[k];
      if (!inside)
        return SG_EINFEASIBLE;
    }
  return SG_OK;
}

/* ---- Construction --------------------------------------------------- */

static void
chain_clear (chain *ch)
{
  free (ch->x);
  free (ch->w);
  free (ch->xnew);
  free (ch->arcs);
  free (ch->gaps);
  free (ch->u);
}

void
sg_tmvn_free (sg_tmvn *s)
{
  if (s == NULL)
    return;
  if (s->chains)
    for (size_t c = 0; c < s->opt.n_chains; c++)
      chain_clear (&s->chains[c]);
  free (s->chains);
  free (s->perm);
  free (s->mean);
  free (s->lower);
  free (s->upper);
  free (s->L);
  free (s->cov);
  free (s->c_lo);
  free (s->moving);
  free (s);
}

static int
check_arguments (size_t d, const double *mean, const double *cov,
                 const double *lower, const double *upper,
                 const sg_tmvn_options *opt)
{
  if (d == 0 || mean == NULL || cov == NULL)
    return SG_EINVAL;
  if (!sg_all_finite (mean, d) || !sg_all_finite (cov, d * d))
    return SG_EINVAL;
  for (size_t i = 0; i < d; i++)
    {
      double l = lower ? lower[i] : -INFINITY, u = upper ? upper[i] : INFINITY;
      if (isnan (l) || isnan (u) || l > u || l == INFINITY || u == -INFINITY)
        return SG_EINVAL;
    }
  if (opt->n_chains == 0 || (opt->thin == 0 && opt->pilot < 2))
    return SG_EINVAL;
  if (opt->method != SG_TMVN_LIN_ESS && opt->method != SG_TMVN_EXACT_HMC)
    return SG_EINVAL;
  if (opt->method == SG_TMVN_EXACT_HMC
      && !(opt->hmc_time > 0 && isfinite (opt->hmc_time)))
    return SG_EINVAL;
  return SG_OK;
}

/* The walls of the moving coordinates as distances from the mean (exact
 * HMC's exit times take them in this form). */
static void
set_wall_distances (sg_tmvn *s)
{
  size_t d = s->d;
  s->c_up = s->c_lo + d;
  s->any_lo = s->any_up = 0;
  for (size_t k = 0; k < d; k++)
    {
      int lo = s->moving[k] && s->lower[k] > -INFINITY;
      int up = s->moving[k] && s->upper[k] < INFINITY;
      s->c_lo[k] = lo ? s->mean[k] - s->lower[k] : INFINITY;
      s->c_up[k] = up ? s->upper[k] - s->mean[k] : INFINITY;
      s->any_lo |= lo;
      s->any_up |= up;
    }
}

sg_status
sg_tmvn_new (size_t d, const double *mean, const double *cov,
             const double *lower, const double *upper,
             const sg_tmvn_options *opt, sg_tmvn **out)
{
  sg_tmvn_options defaults;
  sg_tmvn_options_default (&defaults);
  if (opt == NULL)
    opt = &defaults;
  if (out == NULL)
    return SG_EINVAL;
  int status = check_arguments (d, mean, cov, lower, upper, opt);
  if (status != SG_OK)
    return status;

  sg_tmvn *s = calloc (1, sizeof *s);
  if (s == NULL)
    return SG_ENOMEM;
  s->d = d;
  s->opt = *opt;
  s->thin = opt->thin;
  s->perm = malloc (d * sizeof *s->perm);
  s->mean = malloc (d * sizeof *s->mean);
  s->lower = malloc (d * sizeof *s->lower);
  s->upper = malloc (d * sizeof *s->upper);
  s->L = malloc (d * d * sizeof *s->L);
  s->moving = malloc (d);
  s->chains = calloc (opt->n_chains, sizeof *s->chains);
  if (!s->perm || !s->mean || !s->lower || !s->upper || !s->L || !s->moving
      || !s->chains)
    {
      sg_tmvn_free (s);
      return SG_ENOMEM;
    }
  for (size_t c = 0; c < opt->n_chains; c++)
    {
      chain *ch = &s->chains[c];
      ch->x = malloc (d * sizeof *ch->x);
      ch->w = malloc (d * sizeof *ch->w);
      ch->xnew = malloc (d * sizeof *ch->xnew);
      ch->arcs = malloc (4 * d * sizeof *ch->arcs);
      ch->gaps = malloc ((4 * d + 1) * sizeof *ch->gaps);
      ch->u = malloc (2 * d * sizeof *ch->u);
      if (!ch->x || !ch->w || !ch->xnew || !ch->arcs || !ch->gaps || !ch->u)
        {
          sg_tmvn_free (s);
          return SG_ENOMEM;
        }
    }

  status = factor_covariance (s, cov);
  if (status == SG_OK)
    {
      for (size_t k = 0; k < d; k++)
        {
          size_t i = s->perm[k];
          s->mean[k] = mean[i];
          s->lower[k] = lower ? lower[i] : -INFINITY;
          s->upper[k] = upper ? upper[i] : INFINITY;
        }
      status = feasible_start (s, s->chains[0].x);
    }
  if (status == SG_OK && opt->method == SG_TMVN_EXACT_HMC)
    {
      /* the reflections need cov's columns (in permuted order) */
      s->cov = malloc (d * d * sizeof *s->cov);
      s->c_lo = malloc (2 * d * sizeof *s->c_lo);
      if (s->cov == NULL || s->c_lo == NULL)
        status = SG_ENOMEM;
      else
        {
          for (size_t k = 0; k < d; k++)
            for (size_t l = 0; l < d; l++)
              s->cov[k * d + l] = cov[s->perm[k] * d + s->perm[l]];
          set_wall_distances (s);
        }
    }
  if (status != SG_OK)
    {
      sg_tmvn_free (s);
      return status;
    }
  for (size_t c = 1; c < opt->n_chains; c++)
    memcpy (s->chains[c].x, s->chains[0].x, d * sizeof *s->chains[c].x);
  *out = s;
  return SG_OK;
}

/* ---- One lin-ess transition ----------------------------------------- */

/* Appends the arc of theta in [0, 2 pi) where a cos theta + b sin theta + c
 * <= 0, widened by ARC_EPS; returns how many arcs were written (0-2).
 * With R = hypot(a, b) and phi = atan2(b, a) the left side is
 * R cos(theta - phi) + c, negative for |theta - phi - pi| < pi - alpha,
 * alpha = acos(-c / R). When R <= c the ellipse never reaches the bound. */
static size_t
violated_arc (double a, double b, double c, arc *out)
{
  double r2 = a * a + b * b;
  if (c >= 0 && r2 <= c * c)
    return 0;
  double R = sqrt (r2);
  if (R == 0)
    return 0;
  double ratio = -c / R;
  if (ratio < -1)
    ratio = -1;
  if (ratio > 1)
    ratio = 1;
  double alpha = acos (ratio);
  double len = TWO_PI - 2 * alpha + 2 * ARC_EPS;
  if (len <= 2 * ARC_EPS)
    return 0;   /* the ellipse only touches the bound */
  double start = fmod (atan2 (b, a) + alpha - ARC_EPS, TWO_PI);
  if (start < 0)
    start += TWO_PI;
  if (len >= TWO_PI)
    {
      /* only round-off makes the current point look infeasible */
      out[0] = (arc) { 0, TWO_PI };
      return 1;
    }
  double end = start + len;
  if (end <= TWO_PI)
    {
      out[0] = (arc) { start, end };
      return 1;
    }
  /* Wraps past 0: possible only when x0 sits within ARC_EPS of a bound. */
  out[0] = (arc) { start, TWO_PI };
  out[1] = (arc) { 0, end - TWO_PI };
  return 2;
}

/* Sorts arcs by start angle: insertion sort for short runs, quicksort
 * (median of three) above. Written out because qsort's indirect comparisons
 * dominate a d = 200 step otherwise. */
static void
sort_arcs (arc *a, size_t n)
{
  while (n > 16)
    {
      size_t mid = n / 2;
      if (a[mid].s < a[0].s) { arc t = a[mid]; a[mid] = a[0]; a[0] = t; }
      if (a[n - 1].s < a[0].s) { arc t = a[n - 1]; a[n - 1] = a[0]; a[0] = t; }
      if (a[n - 1].s < a[mid].s) { arc t = a[n - 1]; a[n - 1] = a[mid]; a[mid] = t; }
      double pivot = a[mid].s;
      size_t i = 0, j = n - 1;
      for (;;)
        {
          while (a[i].s < pivot)
            i++;
          while (a[j].s > pivot)
            j--;
          if (i >= j)
            break;
          arc t = a[i]; a[i] = a[j]; a[j] = t;
          i++;
          j--;
        }
      /* recurse on the smaller part, loop on the larger */
      size_t left = j + 1;
      if (left < n - left)
        {
          sort_arcs (a, left);
          a += left;
          n -= left;
        }
      else
        {
          sort_arcs (a + left, n - left);
          n = left;
        }
    }
  for (size_t i = 1; i < n; i++)
    {
      arc t = a[i];
      size_t j = i;
      while (j > 0 && a[j - 1].s > t.s)
        {
          a[j] = a[j - 1];
          j--;
        }
      a[j] = t;
    }
}

/* The complement in [0, 2 pi) of the union of N_ARCS violated arcs, as
 * disjoint gaps; returns their number and their total length in *TOTAL. */
static size_t
feasible_gaps (arc *arcs, size_t n_arcs, arc *gaps, double *total)
{
  size_t n = 0;
  double cur = 0, sum = 0;
  if (n_arcs > 1)
    {
      /* Fast path, O(k): if the arc that starts first overlaps the arc that
       * ends last, together they cover [min start, max end] and the only
       * gap is the arc through theta = 0. This is the usual case (always
       * when the mean sits on the bounds, since every cut is then a half
       * circle); only otherwise are the arcs sorted and merged. */
      size_t first = 0, last = 0;
      for (size_t i = 1; i < n_arcs; i++)
        {
          if (arcs[i].s < arcs[first].s)
            first = i;
          if (arcs[i].e > arcs[last].e)
            last = i;
        }
      if (arcs[first].e >= arcs[last].s)
        {
          arc lo = arcs[first], hi = arcs[last];
          arcs[0] = lo;
          arcs[1] = (arc) { lo.e, hi.e > lo.e ? hi.e : lo.e };
          n_arcs = 2;
        }
    }
  sort_arcs (arcs, n_arcs);
  for (size_t i = 0; i < n_arcs; i++)
    {
      if (arcs[i].s > cur)
        {
          gaps[n++] = (arc) { cur, arcs[i].s };
          sum += arcs[i].s - cur;
        }
      if (arcs[i].e > cur)
        cur = arcs[i].e;
    }
  if (cur < TWO_PI)
    {
      gaps[n++] = (arc) { cur, TWO_PI };
      sum += TWO_PI - cur;
    }
  *total = sum;
  return n;
}

static double
uniform_on_gaps (const arc *gaps, size_t n, double total, gsl_rng *rng)
{
  double u = sg_rng_uniform_pos (rng) * total;
  for (size_t i = 0; i < n; i++)
    {
      double len = gaps[i].e - gaps[i].s;
      if (u < len || i == n - 1)
        return gaps[i].s + fmin (u, len);
      u -= len;
    }
  return 0;
}

static int
inside_box (const sg_tmvn *s, const double *x)
{
  for (size_t k = 0; k < s->d; k++)
    if (s->moving[k] && !(x[k] > s->lower[k] && x[k] < s->upper[k]))
      return 0;
  return 1;
}

/* w = L nu, nu ~ N(0, I_r), i.e. w ~ N(0, cov): the bottom (d - r) rows
 * first, since the triangular product overwrites nu in place. */
static void
draw_direction (const sg_tmvn *s, double *w, gsl_rng *rng)
{
  size_t d = s->d, r = s->r;
  for (size_t j = 0; j < r; j++)
    w[j] = sg_rng_gaussian (rng);
  if (d > r)
    sg_gemv (0, d - r, r, 1.0, s->L + r * r, w, 0.0, w + r);
  sg_trmv_lower (s->L, r, w);
}

static void
lin_ess_step (const sg_tmvn *s, chain *ch, gsl_rng *rng)
{
  size_t d = s->d;
  double *x = ch->x, *w = ch->w;
  draw_direction (s, w, rng);

  size_t n_arcs = 0;
  for (size_t k = 0; k < d; k++)
    {
      if (!s->moving[k])
        continue;
      double a = x[k] - s->mean[k], b = w[k];
      if (s->lower[k] > -INFINITY)   /* x - lower > 0 */
        n_arcs += violated_arc (a, b, s->mean[k] - s->lower[k], ch->arcs + n_arcs);
      if (s->upper[k] < INFINITY)    /* upper - x > 0 */
        n_arcs += violated_arc (-a, -b, s->upper[k] - s->mean[k], ch->arcs + n_arcs);
    }

  double total;
  size_t n_gaps = feasible_gaps (ch->arcs, n_arcs, ch->gaps, &total);
  /* gaps [0, .) and [., 2 pi) are one arc of the circle, through 0 */
  size_t n_circle_arcs = n_gaps > 1 && ch->gaps[0].s == 0
                         && ch->gaps[n_gaps - 1].e == TWO_PI ? n_gaps - 1 : n_gaps;
  if (n_circle_arcs > 1)
    ch->multi_arc++;
  for (int attempt = 0; attempt < MAX_REDRAWS && n_gaps > 0 && total > 0; attempt++)
    {
      double theta = uniform_on_gaps (ch->gaps, n_gaps, total, rng);
      double ct = cos (theta), st = sin (theta);
      for (size_t k = 0; k < d; k++)
        ch->xnew[k] = s->moving[k]
          ? s->mean[k] + (x[k] - s->mean[k]) * ct + w[k] * st : x[k];
      if (inside_box (s, ch->xnew))
        {
          memcpy (x, ch->xnew, d * sizeof *x);
          return;
        }
    }
  ch->stuck++;   /* keep x: a valid, if lazy, transition */
}

/* ---- One exact-HMC transition ----------------------------------------- */

/* Pakman & Paninski (2014), sec. 2-3, written in x rather than whitened
 * coordinates. With z-space momentum v ~ N(0, I) the motion is
 *   x(t) = mean + A cos t + B sin t,   A = x0 - mean,  B = L v ~ N(0, cov),
 * a bound on coordinate i is a wall with normal f_i = L^T e_i in z-space,
 * and the elastic reflection v' = v - 2 (f_i.v / f_i.f_i) f_i reads in x
 *   xdot' = xdot - 2 (xdot_i / cov_ii) cov[:, i]
 * (f_i.v = xdot_i, f_i.f_i = cov_ii, L f_i = cov e_i): O(d) per bounce. */

/* Reflections closer than this (in time) to the previous one are ignored:
 * after a reflection the particle sits on the wall moving inwards, and
 * round-off can place the wall's crossing at t = 1e-17 instead of 0. */
#define HIT_EPS 1e-12

/* Exit times of the walls. Along the motion a wall function is
 * g(t) = a cos t + b sin t + c (a, b: the coordinate's position offset and
 * velocity, c: the wall's distance from the mean), and the particle leaves
 * through the wall where g turns negative. With u = tan(t/2),
 * (1 + u^2) g(t) is the quadratic q(u) = (a + c) + 2 b u + (c - a) u^2, and
 * t -> u increases on (0, pi). The root where g turns negative is
 *   u = (a + c) / (sqrt(s) - b) = (sqrt(s) + b) / (a - c),  s = a^2 + b^2 - c^2
 * (none when s < 0, or when the value is not positive): the first form is
 * free of cancellation for b <= 0, the second for b > 0, in particular on
 * the wall just left, where a + c ~ 0 and b > 0. No trigonometry and no
 * branches per wall, so the scan over all walls vectorises, and the wall
 * hit first costs one atan. The form covers t < pi, so a longer travel
 * time is covered in segments of at most SEGMENT (the motion is the same;
 * the scan restarts).
 * U_EPS plays HIT_EPS's part (t = 2 atan u ~ 2 u). */
#define SEGMENT 3.0
#define U_EPS (0.5 * HIT_EPS)

/* U[k] = exit time in half-angle form of one wall of each coordinate k,
 * for the wall functions SIGN (A[k] cos t + B[k] sin t) + C[k] (C[k] =
 * INFINITY: no wall); INFINITY where there is no exit before t = pi.
 * Returns the smallest. One loop body with the minimum as a plain
 * reduction, so that it vectorises (a helper with other optimisation
 * options would not be inlined; an arg-min would not vectorise). All the
 * values are positive (> U_EPS) or INFINITY. */
SG_VECTORIZE static double
exit_times_u (const double *restrict A, const double *restrict B,
              const double *restrict C, double sign, size_t d, double *restrict U)
{
  /* positive doubles order as their bit patterns: an integer minimum
   * vectorises, a floating-point one would not (NaN and -0 rules) */
  const double inf = INFINITY;
  int64_t m;
  memcpy (&m, &inf, sizeof m);
  for (size_t k = 0; k < d; k++)
    {
      double a = sign * A[k], b = sign * B[k], c = C[k];
      double s = a * a + b * b - c * c;
      double r = sqrt (s > 0 ? s : 0);
      double num = b > 0 ? r + b : a + c;
      double den = b > 0 ? a - c : r - b;
      double u = num / den;   /* c = INFINITY: -0, INFINITY or NaN, all dropped */
      u = (s >= 0) & (u > U_EPS) ? u : INFINITY;
      U[k] = u;
      int64_t bits;
      memcpy (&bits, &u, sizeof bits);
      m = bits < m ? bits : m;
    }
  double u_min;
  memcpy (&u_min, &m, sizeof u_min);
  return u_min;
}

/* First wall hit by the motion (A, B) and when: the time (INFINITY if
 * none before pi), its coordinate in *WALL and bound in *BOUND. */
static double
first_wall (const sg_tmvn *s, const double *A, const double *B, double *U,
            size_t *wall, double *bound)
{
  size_t d = s->d;
  double lo = s->any_lo ? exit_times_u (A, B, s->c_lo, 1, d, U) : INFINITY;
  double up = s->any_up ? exit_times_u (A, B, s->c_up, -1, d, U + d) : INFINITY;
  double u_min = lo <= up ? lo : up;
  if (u_min == INFINITY)
    return INFINITY;
  const double *side = lo <= up ? U : U + d;
  size_t k = 0;
  while (side[k] != u_min)
    k++;
  *wall = k;
  *bound = lo <= up ? s->lower[k] : s->upper[k];
  return 2 * atan (u_min);
}

static void
hmc_step (const sg_tmvn *s, chain *ch, gsl_rng *rng)
{
  size_t d = s->d;
  double *x = ch->x, *A = ch->xnew, *B = ch->w;
  draw_direction (s, B, rng);
  for (size_t k = 0; k < d; k++)
    A[k] = x[k] - s->mean[k];

  double left = s->opt.hmc_time;
  /* A guard against endless bouncing, not a limit of the dynamics: with
   * the mean far outside a wall the particle bounces on it like a ball on
   * the floor, ~T R / (2 |v|) times in travel time T (a start 30 sd out
   * makes ~600 bounces in pi / 2), so the guard grows with T. */
  size_t max_bounces = (1000 + 100 * d) * (size_t) ceil (left / (M_PI / 2)), bounces = 0;
  while (left > 0)
    {
      double bound = 0;
      size_t wall = 0;
      double t_hit = first_wall (s, A, B, ch->u, &wall, &bound);
      double segment = left < SEGMENT ? left : SEGMENT;
      double t = t_hit < segment ? t_hit : segment;
      /* position offset A and velocity B at time t */
      sg_rot (d, A, B, cos (t), sin (t));
      left -= t;
      if (t_hit >= segment)
        continue;
      /* reflect at the wall; put the particle exactly on it */
      A[wall] = bound - s->mean[wall];
      double f = 2 * B[wall] / s->cov[wall * d + wall];
      sg_vec_axpy (-f, s->cov + wall * d, d, B);   /* cov is symmetric */
      if (++bounces > max_bounces)
        {
          ch->stuck++;
          return;
        }
    }
  ch->bounces += bounces;
  for (size_t k = 0; k < d; k++)
    if (s->moving[k])
      {
        double xk = s->mean[k] + A[k];
        if (!(xk > s->lower[k] && xk < s->upper[k]))
          {
            ch->stuck++;   /* round-off left it on a wall: keep x */
            return;
          }
      }
  for (size_t k = 0; k < d; k++)
    if (s->moving[k])
      x[k] = s->mean[k] + A[k];
}

static void
chain_step (const sg_tmvn *s, chain *ch, gsl_rng *rng)
{
  ch->steps++;
  if (s->r == 0)
    return;   /* cov = 0: the distribution is the point mass at mean */
  if (s->opt.method == SG_TMVN_EXACT_HMC)
    hmc_step (s, ch, rng);
  else
    lin_ess_step (s, ch, rng);
}

/* ---- Running chains, possibly on threads ------------------------------ */

/* The work one chain does in one phase: BURN steps, then PILOT steps stored
 * in PILOT_OUT, then ROWS states THIN steps apart stored in OUT. Everything
 * in permuted coordinates except OUT. */
typedef struct {
  sg_tmvn *s;
  chain *ch;
  gsl_rng *rng;
  size_t burn, pilot, rows, thin;
  double *pilot_out, *out;
  atomic_int *cancel;
  const sg_progress *progress;   /* only for the task on the calling thread */
  double *done, total;           /* shared step counter of that thread     */
  double frac0, frac_span;       /* this phase's share of the progress bar */
  int status;
} chain_task;

static int
task_tick (chain_task *t)
{
  if (atomic_load_explicit (t->cancel, memory_order_relaxed))
    return SG_ECANCELLED;
  if (t->progress == NULL)
    return SG_OK;
  *t->done += PROGRESS_EVERY;
  double fraction = t->frac0 + t->frac_span * fmin (1, *t->done / t->total);
  if (sg_progress_report (t->progress, fraction) != SG_OK)
    {
      atomic_store (t->cancel, 1);
      return SG_ECANCELLED;
    }
  return SG_OK;
}

static int
run_steps (chain_task *t, size_t n, size_t *counter)
{
  for (size_t i = 0; i < n; i++)
    {
      chain_step (t->s, t->ch, t->rng);
      if (++*counter % PROGRESS_EVERY == 0 && task_tick (t) != SG_OK)
        return SG_ECANCELLED;
    }
  return SG_OK;
}

static void
chain_task_run (chain_task *t)
{
  const sg_tmvn *s = t->s;
  size_t d = s->d, counter = 0;
  t->status = run_steps (t, t->burn, &counter);
  for (size_t i = 0; i < t->pilot && t->status == SG_OK; i++)
    {
      t->status = run_steps (t, 1, &counter);
      memcpy (t->pilot_out + i * d, t->ch->x, d * sizeof *t->pilot_out);
    }
  for (size_t i = 0; i < t->rows && t->status == SG_OK; i++)
    {
      t->status = run_steps (t, t->thin, &counter);
      for (size_t k = 0; k < d; k++)
        t->out[i * d + s->perm[k]] = t->ch->x[k];
    }
}

typedef struct {
  chain_task *tasks;
  size_t n_tasks, first, step;   /* runs tasks first, first + step, ... */
} thread_job;

static void *
thread_main (void *data)
{
  thread_job *job = data;
  for (size_t c = job->first; c < job->n_tasks; c += job->step)
    chain_task_run (&job->tasks[c]);
  return NULL;
}

static size_t
thread_count (const sg_tmvn_options *opt)
{
  size_t n = opt->n_threads;
  if (n == 0)
    {
      long cpus = sysconf (_SC_NPROCESSORS_ONLN);
      n = cpus > 0 ? (size_t) cpus : 1;
    }
  return n < opt->n_chains ? n : opt->n_chains;
}

/* Runs every task; thread t (t = 0 the calling thread) takes tasks
 * t, t + T, ... A thread that cannot be created leaves its tasks to the
 * calling thread, which only costs time. */
static int
run_tasks (const sg_tmvn *s, chain_task *tasks, const sg_progress *progress,
           double frac0, double frac_span)
{
  size_t nc = s->opt.n_chains, nt = thread_count (&s->opt);
  pthread_t *threads = calloc (nt, sizeof *threads);
  thread_job *jobs = calloc (nt, sizeof *jobs);
  unsigned char *started = calloc (nt, 1);
  if (threads == NULL || jobs == NULL || started == NULL)
    {
      free (threads);
      free (jobs);
      free (started);
      return SG_ENOMEM;
    }

  /* Progress: the calling thread counts its own steps. */
  double done = 0, total = 0;
  for (size_t c = 0; c < nc; c += nt)
    total += (double) (tasks[c].burn + tasks[c].pilot
                       + tasks[c].rows * tasks[c].thin);
  for (size_t c = 0; c < nc; c += nt)
    {
      tasks[c].progress = progress;
      tasks[c].done = &done;
      tasks[c].total = total > 0 ? total : 1;
      tasks[c].frac0 = frac0;
      tasks[c].frac_span = frac_span;
    }

  for (size_t t = 1; t < nt; t++)
    {
      jobs[t] = (thread_job) { tasks, nc, t, nt };
      started[t] = pthread_create (&threads[t], NULL, thread_main, &jobs[t]) == 0;
    }
  jobs[0] = (thread_job) { tasks, nc, 0, nt };
  thread_main (&jobs[0]);
  for (size_t t = 1; t < nt; t++)
    if (started[t])
      pthread_join (threads[t], NULL);
    else
      thread_main (&jobs[t]);
  free (threads);
  free (jobs);
  free (started);

  int status = SG_OK;
  for (size_t c = 0; c < nc; c++)
    if (tasks[c].status != SG_OK && status == SG_OK)
      status = tasks[c].status;
  for (size_t c = 0; c < nc; c++)
    if (tasks[c].status == SG_ECANCELLED)
      status = SG_ECANCELLED;
  return status;
}

/* Per-chain random streams derived from the caller's generator: the result
 * depends on RNG's state only, never on which thread runs which chain. */
static int
chain_rngs (const sg_tmvn *s, gsl_rng *rng, gsl_rng **rngs)
{
  size_t nc = s->opt.n_chains;
  if (nc == 1)
    {
      rngs[0] = rng;
      return SG_OK;
    }
  uint64_t seed = ((uint64_t) gsl_rng_get (rng) << 32) ^ gsl_rng_get (rng);
  for (size_t c = 0; c < nc; c++)
    if ((rngs[c] = sg_rng_new (seed, c)) == NULL)
      {
        for (size_t i = 0; i < c; i++)
          sg_rng_free (rngs[i]);
        return SG_ENOMEM;
      }
  return SG_OK;
}

static void
chain_rngs_free (const sg_tmvn *s, gsl_rng **rngs)
{
  if (s->opt.n_chains > 1)
    for (size_t c = 0; c < s->opt.n_chains; c++)
      sg_rng_free (rngs[c]);
}

/* Burn-in and, for thin = 0, the pilot run that sets the thinning. */
static int
start_chains (sg_tmvn *s, chain_task *tasks, const sg_progress *progress,
              double frac_span)
{
  size_t nc = s->opt.n_chains, d = s->d;
  size_t pilot = s->opt.thin == 0 ? s->opt.pilot : 0;
  double *pilot_out = NULL;
  if (pilot > 0 && (pilot_out = malloc (nc * pilot * d * sizeof *pilot_out)) == NULL)
    return SG_ENOMEM;
  for (size_t c = 0; c < nc; c++)
    {
      tasks[c].burn = s->opt.burn_in;
      tasks[c].pilot = pilot;
      tasks[c].pilot_out = pilot_out ? pilot_out + c * pilot * d : NULL;
      tasks[c].rows = 0;
    }
  int status = run_tasks (s, tasks, progress, 0, frac_span);
  if (status == SG_OK && pilot > 0)
    {
      double tau;
      status = sg_mcmc_iat_max (pilot_out, nc, pilot, d, &tau, NULL);
      if (status == SG_OK)
        {
          /* rounded: an IAT of 1.02 (independent states plus noise)
           * should not double the cost */
          double thin = floor (tau + 0.5);
          s->pilot_iat = tau;
          s->thin = thin > (double) s->opt.max_thin ? s->opt.max_thin
                    : thin < 1 ? 1 : (size_t) thin;
        }
    }
  free (pilot_out);
  if (status == SG_OK)
    s->started = 1;
  return status;
}

sg_status
sg_tmvn_sample (sg_tmvn *s, gsl_rng *rng, size_t n, const sg_progress *progress,
                double *out)
{
  if (s == NULL || rng == NULL || (n > 0 && out == NULL))
    return SG_EINVAL;
  if (n == 0)
    return SG_OK;
  size_t nc = s->opt.n_chains;
  gsl_rng **rngs = calloc (nc, sizeof *rngs);
  chain_task *tasks = calloc (nc, sizeof *tasks);
  atomic_int cancel = 0;
  int status = rngs && tasks ? chain_rngs (s, rng, rngs) : SG_ENOMEM;
  if (status != SG_OK)
    {
      free (rngs);
      free (tasks);
      return status;
    }
  for (size_t c = 0; c < nc; c++)
    tasks[c] = (chain_task) { .s = s, .ch = &s->chains[c], .rng = rngs[c],
                              .cancel = &cancel };

  /* Progress: burn-in (and pilot) first, then sampling, in proportion to
   * their steps (with an automatic thin not chosen yet counted as 1). */
  double start_share = 0;
  if (!s->started)
    {
      double w1 = (double) (s->opt.burn_in + (s->opt.thin == 0 ? s->opt.pilot : 0));
      double w2 = (double) ((n + nc - 1) / nc) * (double) (s->thin ? s->thin : 1);
      start_share = w1 / (w1 + w2);
      status = start_chains (s, tasks, progress, start_share);
    }
  if (status == SG_OK)
    {
      for (size_t c = 0; c < nc; c++)
        {
          size_t r0 = c * n / nc, r1 = (c + 1) * n / nc;
          tasks[c].burn = tasks[c].pilot = 0;
          tasks[c].rows = r1 - r0;
          tasks[c].thin = s->thin;
          tasks[c].out = out + r0 * s->d;
        }
      status = run_tasks (s, tasks, progress, start_share, 1 - start_share);
    }
  chain_rngs_free (s, rngs);
  free (rngs);
  free (tasks);
  return status;
}

void
sg_tmvn_get_info (const sg_tmvn *s, sg_tmvn_info *info)
{
  info->rank = s->r;
  info->thin = s->thin;
  info->pilot_iat = s->pilot_iat;
  info->steps = info->multi_arc = info->bounces = info->stuck = 0;
  for (size_t c = 0; c < s->opt.n_chains; c++)
    {
      info->steps += s->chains[c].steps;
      info->multi_arc += s->chains[c].multi_arc;
      info->bounces += s->chains[c].bounces;
      info->stuck += s->chains[c].stuck;
    }
}
