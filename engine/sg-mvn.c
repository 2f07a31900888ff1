/* sg-mvn.c — multivariate normal rectangle probabilities (Genz SOV).
 *
 * Outline (X ~ N(0, Sigma) after subtracting the mean from the bounds):
 *
 * 1. Coordinates with both bounds infinite are dropped (integrated out
 *    exactly), bounds beyond REACH sds first taken as infinite. lower ==
 *    upper anywhere gives probability 0. Exactly degenerate coordinates
 *    (zero variance, perfectly correlated pairs) are folded into the
 *    interval of another (reduce_degenerate), which finds contradictory
 *    bounds exactly.
 * 2. Ordered Cholesky Sigma = L L^T (Gibson, Glasbey & Elston 1994, as in
 *    Genz & Bretz 2009 sec. 4.1.3 and Botev 2017 "cholperm"): at step j the
 *    variable with the smallest conditional interval probability is taken
 *    next, and its conditional expectation given the truncation feeds the
 *    conditional means of the others. Rows are then scaled so that L has a
 *    unit diagonal, X_k = sum_{j<k} L_kj Z_j + Z_k with independent
 *    Z_j ~ N(0, 1), the bounds divided by the diagonal.
 * 3. Separation of variables (Genz 1992): with c_k = sum_{j<k} L_kj z_j,
 *      P = E[ prod_k (Phi(u_k - c_k) - Phi(l_k - c_k)) ]
 *    where z_k is drawn from N(0,1) truncated to [l_k - c_k, u_k - c_k] by
 *    the inverse CDF of a uniform w_k. Minimax exponential tilting (Botev
 *    2017, sec. 3-4) draws z_k from N(mu_k, 1) truncated instead and
 *    multiplies the weight by exp(mu_k^2 / 2 - mu_k z_k); the shifts mu solve
 *    the saddle-point equations of Botev's psi(x, mu) by Newton's method.
 *    mu = 0 is exactly Genz's integrand. The w_k are a randomly shifted
 *    rank-1 lattice rule (w = frac(i z_k / n + shift_k), z from the CBC
 *    table of sg-lattice.h) when the table has a rule of about the points
 *    per shift asked for, else the Richtmyer sequence (w = frac(i sqrt(p_k)
 *    + shift_k), p_k the k-th prime), which also serves the coordinates
 *    beyond the table's and the staged (rel_tol) runs; both with Genz's
 *    periodising baker's transform w -> 1 - |2w - 1|. The lattice rules
 *    are 1.2-2x more accurate per point on factor-structured problems and
 *    level with Richtmyer on SkewGP evidences (tests/bench/results-mvn.md,
 *    results-fit.md).
 * 4. Points are processed in blocks of BLOCK: the conditional means of a
 *    panel of PANEL variables are one GEMM over the block, the remaining
 *    in-panel terms one GEMV per variable. Each point's product of
 *    conditional probabilities is kept as a product in linear scale that is
 *    folded into a log sum whenever it gets small, and the average over
 *    points is a log-sum-exp: no underflow at any probability size.
 * 5. Each random shift gives an independent unbiased estimate; the error is
 *    the Student-t 99% quantile times the standard error over shifts.
 * 6. Latent factors (default calls of dimension >= FACTOR_MIN_DIM; not in
 *    the deterministic and keep_order modes used inside optimisers): when
 *    the covariance's top eigenvalues stand apart from the rest (a gap ratio
 *    >= FACTOR_GAP after at most FACTOR_MAX of them), S = F F^T + R with R
 *    PSD (factor_split), so X = F f + E, f ~ N(0, I_r). The SOV above gives
 *    each variable the right conditional mean but unit scale, and when a
 *    probability is small only collectively (marginals ~0.7, P = 1e-10 at
 *    d = 100) the truncation pins the factors to a fraction of their prior
 *    sd, which those proposals spread over all d weights. A pilot run of
 *    the plain SOV (one shift's worth of points) measures that: when its
 *    effective sample size is below SPLIT_BELOW_ESS of its points, f is drawn
 *    first from a proposal fitted to the pilot's weighted E[f | x]
 *    (logistic in the directions of its covariance, 1.2x wider, for finite
 *    weight variance; see sample_factors), with the weight N(f; 0, I) /
 *    proposal(f), and x given f by the
 *    tilted SOV on R (factor_pilot, prepare_split). Unbiased either way (the
 *    pilot's points are not reused); the pilot's points are counted in
 *    n_points. Measured (tests/bench/results-mvn.md, part C): the sd of the
 *    log estimate of 5-factor orthants at P = 1e-10 fell 1.7x (d = 50) to
 *    8x (d = 200).
 *
 * Dimension 1 is closed form; dimension 2 is the conditional 1-D integral
 * of step 3 done by adaptive Gauss-Kronrod quadrature in scaled log space,
 * from the unfloored correlation and with the edges of the conditional
 * step as starting points, so that correlations within the double spacing
 * of +-1 stay exact (bvn_prob).
 * A one-factor covariance (a a^T + positive diagonal, e.g. equicorrelated)
 * is recognised and integrated over its factor, also a 1-D integral done
 * the same way (see one_factor_prob), unless qmc_only asks for the QMC.
 */
#include "sg-mvn.h"
#include "sg-lattice.h"
#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-normal-kernels.h"
#include "sg-rng.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 128         /* QMC points processed together */
#define PANEL 32          /* variables whose conditional means share a GEMM */
#define SYM_TOL 1e-8      /* |S_ij - S_ji| <= SYM_TOL sqrt(S_ii S_jj) */
#define PSD_TOL 1e-9      /* a pivot below -PSD_TOL S_jj means "not PSD" */
#define VAR_FLOOR 1e-10   /* pivots are floored at VAR_FLOOR S_jj (singular) */
/* A bound more than REACH standard deviations out on the side away from
 * the mean (an upper bound above mean + REACH sd, a lower one below mean -
 * REACH sd) is replaced by infinity: it removes at most Phi(-REACH) =
 * exp(-5e15) of probability, while bounds like 1e62 or 1e308 written for
 * "infinite" would overflow the squares of the tilting and quadrature. A
 * result whose log is below LOG_BEYOND_REACH is then no longer justified
 * by that bound and is a numerical failure (an exact zero is not: the
 * set only grew). */
#define REACH 1e8
#define LOG_BEYOND_REACH (-0.5 * REACH * REACH + 50)
/* A bound still beyond this many sds on the near side of the mean has a
 * log probability below -DBL_MAX / 2: not representable. */
#define LOG_OVERFLOW_BOUND 1e150
/* A near-perfectly correlated pair is folded into one interval only when
 * that interval is longer than this many sds of the pair's residual. */
#define FOLD_MARGIN 1e6
#define FOLD_BELOW 1e-200 /* fold a point's running product into its log sum */
#define DEFAULT_POINTS 10000
#define DEFAULT_SHIFTS 10
#define ERROR_QUANTILE 0.995 /* two-sided 99% Student-t interval over shifts */
#define ORDER_SLOTS 4     /* problem shapes whose variable order is remembered */
#define FACTOR_MAX 8      /* latent factors split off at most */
#define FACTOR_MIN_DIM 16 /* smaller problems are not split */
#define FACTOR_GAP 4.0    /* eigenvalue ratio lambda_r / lambda_r+1 that splits */
#define FACTOR_MIN_EIG 1e-8  /* ... when lambda_r+1 > FACTOR_MIN_EIG lambda_1 */
#define PILOT_MIN_POINTS 251 /* the pilot run has as many points as a shift, at least these */
#define PILOT_MIN_ESS 20.0   /* smaller pilot effective sample sizes: no split */
#define SPLIT_BELOW_ESS 0.7  /* split only when the pilot's ESS is below this fraction */
#define FACTOR_SCALE 1.2  /* proposal sd / the pilot's posterior sd */
#define PILOT_STREAM (UINT64_C (1) << 63)   /* pilot streams: apart from the runs' */

struct sg_mvn_workspace {
  size_t d_max;
  uint64_t calls;   /* stream counter of non-deterministic calls */
  size_t *active;   /* original index of each kept coordinate */
  size_t *perm;     /* pivot order (kept-coordinate numbering) */
  size_t *perm2;    /* pivot order of the PSD check; scratch */
  /* Remembered variable orders (keep_order), one per problem shape: the
   * slot of a call is the one with the same d and the same bounded
   * coordinates; a new shape takes the least recently used slot. */
  struct {
    size_t *order;  /* coordinates in the factor order chosen          */
    size_t m, d;    /* their number; the dimension of that call        */
    uint64_t used;  /* stamp of the last call that used the slot (0 = empty) */
  } slot[ORDER_SLOTS];
  uint64_t stamp;
  double *S;        /* d_max^2: covariance of the kept coordinates */
  double *L;        /* d_max^2: ordered Cholesky factor, unit diagonal */
  double *lo, *up;  /* scaled bounds */
  double *resid;    /* residual variances during the factorisation */
  double *cmean;    /* conditional means during the factorisation */
  double *mu, *x;   /* tilting shifts and Botev's x */
  double *gen;      /* Richtmyer generators: sqrt(prime) mod 1 */
  double *G, *H;    /* d_max^2 each: Newton matrices */
  double *vec;      /* 10 d_max scratch */
  double *Y;        /* d_max x BLOCK sampled z's of a block */
  double *C;        /* PANEL x BLOCK conditional means */
  double *logw;     /* BLOCK per-point log weights */
  double *prod;     /* BLOCK per-point running products */
  double *scratch;  /* 3 BLOCK scratch of sample_variable */
  double *dk;       /* d_max: diagonal of the ordered Cholesky before scaling */
  /* Latent-factor split (factor_split): the problem is then the (nf + m)-
   * dimensional one of (f, x), f first; L, lo, up, mu, Y and gen have room
   * for FACTOR_MAX more variables than d_max. */
  size_t nf;        /* factors split off (0: the plain problem) */
  double *S0, *lo0, *up0;   /* the kept problem before ordering */
  double *F;        /* d_max x FACTOR_MAX: loadings, F F^T + R = S0 */
  double fmean[FACTOR_MAX];                /* proposal of f: mean,        */
  double fchol[FACTOR_MAX * FACTOR_MAX];   /* its Cholesky factor,        */
  double flogdet;                          /* log det of fchol            */
};

/* ---------------------------------------------------------------- options */

void
sg_mvn_options_default (sg_mvn_options *opt)
{
  memset (opt, 0, sizeof *opt);
  opt->n_points = DEFAULT_POINTS;
  opt->n_shifts = DEFAULT_SHIFTS;
  opt->seed = 0;
  opt->deterministic = 0;
  opt->rel_tol = 0;
  opt->method = SG_MVN_TILTED;
}

/* -------------------------------------------------------------- workspace */

/* The first N primes into P (trial division: N is at most a few thousand). */
static void
first_primes (size_t n, double *p)
{
  size_t found = 0;
  for (unsigned long c = 2; found < n; c++)
    {
      int prime = 1;
      for (size_t i = 0; i < found && p[i] * p[i] <= (double) c; i++)
        if (c % (unsigned long) p[i] == 0)
          {
            prime = 0;
            break;
          }
      if (prime)
        p[found++] = (double) c;
    }
}

sg_mvn_workspace *
sg_mvn_workspace_new (size_t d_max)
{
  if (d_max == 0)
    d_max = 1;
  sg_mvn_workspace *w = calloc (1, sizeof *w);
  if (w == NULL)
    return NULL;
  size_t d = d_max, d2 = d_max * d_max, da = d_max + FACTOR_MAX;
  w->d_max = d;
  w->active = malloc (d * sizeof *w->active);
  w->perm = malloc (d * sizeof *w->perm);
  w->perm2 = malloc (d * sizeof *w->perm2);
  int slots_ok = 1;
  for (size_t k = 0; k < ORDER_SLOTS; k++)
    slots_ok &= (w->slot[k].order = malloc (d * sizeof (size_t))) != NULL;
  w->S = malloc (d2 * sizeof (double));
  w->L = malloc (da * da * sizeof (double));
  w->G = malloc (d2 * sizeof (double));
  w->H = malloc (d2 * sizeof (double));
  w->lo = malloc (da * sizeof (double));
  w->up = malloc (da * sizeof (double));
  w->resid = malloc (d * sizeof (double));
  w->cmean = malloc (d * sizeof (double));
  w->mu = malloc (da * sizeof (double));
  w->x = malloc (d * sizeof (double));
  w->gen = malloc (da * sizeof (double));
  w->vec = malloc (10 * d * sizeof (double));
  w->Y = malloc (da * BLOCK * sizeof (double));
  w->C = malloc (PANEL * BLOCK * sizeof (double));
  w->logw = malloc (BLOCK * sizeof (double));
  w->prod = malloc (BLOCK * sizeof (double));
  w->scratch = malloc (3 * BLOCK * sizeof (double));
  w->dk = malloc (d * sizeof (double));
  w->S0 = malloc (d2 * sizeof (double));
  w->lo0 = malloc (d * sizeof (double));
  w->up0 = malloc (d * sizeof (double));
  w->F = malloc (d * FACTOR_MAX * sizeof (double));
  if (!w->active || !w->perm || !w->perm2 || !slots_ok || !w->S || !w->L || !w->G || !w->H || !w->lo
      || !w->up || !w->resid || !w->cmean || !w->mu || !w->x || !w->gen
      || !w->vec || !w->Y || !w->C || !w->logw || !w->prod || !w->scratch || !w->dk
      || !w->S0 || !w->lo0 || !w->up0 || !w->F)
    {
      sg_mvn_workspace_free (w);
      return NULL;
    }
  first_primes (da, w->gen);
  for (size_t k = 0; k < da; k++)
    {
      double s = sqrt (w->gen[k]);
      w->gen[k] = s - floor (s);
    }
  return w;
}

void
sg_mvn_workspace_free (sg_mvn_workspace *w)
{
  if (w == NULL)
    return;
  free (w->active);
  free (w->perm);
  free (w->perm2);
  for (size_t k = 0; k < ORDER_SLOTS; k++)
    free (w->slot[k].order);
  free (w->S);
  free (w->L);
  free (w->G);
  free (w->H);
  free (w->lo);
  free (w->up);
  free (w->resid);
  free (w->cmean);
  free (w->mu);
  free (w->x);
  free (w->gen);
  free (w->vec);
  free (w->Y);
  free (w->C);
  free (w->logw);
  free (w->prod);
  free (w->scratch);
  free (w->dk);
  free (w->S0);
  free (w->lo0);
  free (w->up0);
  free (w->F);
  free (w);
}

/* ------------------------------------------------------ normal primitives */

/* E[Z | a < Z < b] for Z ~ N(0,1): (phi(a) - phi(b)) / (Phi(b) - Phi(a)),
 * with the ratio formed in log space so that it holds in the far tails. */
static double
trunc_mean (double a, double b)
{
  double ld = sg_norm_logdiff (a, b);
  if (!isfinite (ld))
    return isfinite (a) ? a : (isfinite (b) ? b : 0);
  double ta = isfinite (a) ? exp (sg_norm_logpdf (a) - ld) : 0;
  double tb = isfinite (b) ? exp (sg_norm_logpdf (b) - ld) : 0;
  return ta - tb;
}

/* ------------------------------------------------ ordered Cholesky (GGE) */

static void
swap_d (double *a, size_t i, size_t j)
{
  double t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/* Swaps variables I < J of the symmetric M x M matrix S (rows and columns)
 * and rows I, J of the first I columns of L. */
static void
swap_vars (double *S, double *L, size_t m, size_t i, size_t j)
{
  for (size_t k = 0; k < m; k++)
    {
      double t = S[i * m + k];
      S[i * m + k] = S[j * m + k];
      S[j * m + k] = t;
    }
  for (size_t k = 0; k < m; k++)
    {
      double t = S[k * m + i];
      S[k * m + i] = S[k * m + j];
      S[k * m + j] = t;
    }
  for (size_t k = 0; k < i; k++)
    {
      double t = L[i * m + k];
      L[i * m + k] = L[j * m + k];
      L[j * m + k] = t;
    }
}

/* Pivoted Cholesky of the M x M matrix S (overwritten by its permutation)
 * into L (M x M, lower). With bounds LO/UP (not NULL) the pivot is the
 * variable with the smallest conditional interval probability given the
 * truncated conditional expectations of the variables already chosen
 * (Gibson, Glasbey & Elston 1994); without bounds it is the largest
 * residual variance: the usual PSD test, which fails with SG_ENOTPD (*BAD =
 * PERM entry of the variable) at a pivot below -PSD_TOL S_jj. LO, UP and
 * PERM are permuted along; FIXED_ORDER keeps the given order (no pivoting).
 * Pivots below VAR_FLOOR S_jj are floored
 * (singular but PSD; with bounds the matrix has passed the PSD test, and
 * the probability ordering can leave rounding noise of ~1e-9 S_jj in the
 * pivots of a singular matrix, which is not evidence of indefiniteness).
 * RESID, CMEAN, TMP: M doubles of scratch. */
static int
ordered_cholesky (double *S, size_t m, double *lo, double *up, int fixed_order,
                  size_t *perm, double *L, double *resid, double *cmean,
                  double *tmp, size_t *bad)
{
  double max_diag = 0;
  for (size_t i = 0; i < m; i++)
    {
      resid[i] = S[i * m + i];
      cmean[i] = 0;
      if (resid[i] > max_diag)
        max_diag = resid[i];
    }
  memset (L, 0, m * m * sizeof *L);
  for (size_t j = 0; j < m; j++)
    {
      size_t piv = j;
      double best = INFINITY;
      for (size_t i = j; i < m && !fixed_order; i++)
        {
          double score;
          if (lo != NULL)
            {
              double floor_i = VAR_FLOOR * (S[i * m + i] > 0 ? S[i * m + i] : max_diag);
              double s = sqrt (fmax (resid[i], floor_i));
              if (!(s > 0))
                s = 1;
              score = sg_norm_logdiff ((lo[i] - cmean[i]) / s, (up[i] - cmean[i]) / s);
            }
          else
            score = -resid[i];
          if (score < best)
            {
              best = score;
              piv = i;
            }
        }
      if (piv != j)
        {
          swap_vars (S, L, m, j, piv);
          swap_d (resid, j, piv);
          swap_d (cmean, j, piv);
          if (lo != NULL)
            {
              swap_d (lo, j, piv);
              swap_d (up, j, piv);
            }
          size_t t = perm[j];
          perm[j] = perm[piv];
          perm[piv] = t;
        }
      double sjj = S[j * m + j];
      if (lo == NULL && (resid[j] < -PSD_TOL * sjj || sjj < 0))
        {
          *bad = perm[j];
          return SG_ENOTPD;
        }
      double floor_j = VAR_FLOOR * (sjj > 0 ? sjj : max_diag);
      double ljj = sqrt (fmax (resid[j], floor_j));
      if (!(ljj > 0))
        ljj = 1;   /* max_diag == 0: every variable is a constant */
      L[j * m + j] = ljj;
      size_t rest = m - j - 1;
      if (rest == 0)
        break;
      /* column j below the diagonal: (S_ij - sum_k<j L_ik L_jk) / L_jj */
      for (size_t i = 0; i < rest; i++)
        tmp[i] = S[(j + 1 + i) * m + j];
      sg_gemv_ld (0, rest, j, -1.0, L + (j + 1) * m, m, L + j * m, 1.0, tmp);
      double y = 0;
      if (lo != NULL)
        y = trunc_mean ((lo[j] - cmean[j]) / ljj, (up[j] - cmean[j]) / ljj);
      for (size_t i = 0; i < rest; i++)
        {
          double lij = tmp[i] / ljj;
          L[(j + 1 + i) * m + j] = lij;
          resid[j + 1 + i] -= lij * lij;
          cmean[j + 1 + i] += lij * y;
        }
    }
  return SG_OK;
}

sg_status
sg_mvn_check_cov (size_t d, const double *cov, size_t *bad_row, size_t *bad_col)
{
  if (d == 0 || cov == NULL)
    return SG_EINVAL;
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < d; j++)
      if (!isfinite (cov[i * d + j]))
        {
          if (bad_row)
            *bad_row = i;
          if (bad_col)
            *bad_col = j;
          return SG_EINVAL;
        }
  for (size_t i = 0; i < d; i++)
    {
      if (cov[i * d + i] < 0)
        {
          if (bad_row)
            *bad_row = i;
          if (bad_col)
            *bad_col = i;
          return SG_ENOTPD;
        }
      for (size_t j = 0; j < i; j++)
        if (fabs (cov[i * d + j] - cov[j * d + i])
            > SYM_TOL * sqrt (cov[i * d + i] * cov[j * d + j]) + 1e-300)
          {
            if (bad_row)
              *bad_row = i;
            if (bad_col)
              *bad_col = j;
            return SG_EINVAL;
          }
    }
  double *S = malloc (d * d * sizeof *S), *L = malloc (d * d * sizeof *L);
  double *v = malloc (3 * d * sizeof *v);
  size_t *perm = malloc (d * sizeof *perm);
  int status = SG_ENOMEM;
  if (S && L && v && perm)
    {
      for (size_t i = 0; i < d; i++)
        {
          perm[i] = i;
          for (size_t j = 0; j < d; j++)
            S[i * d + j] = 0.5 * cov[i * d + j] + 0.5 * cov[j * d + i];
        }
      size_t bad = 0;
      status = ordered_cholesky (S, d, NULL, NULL, 0, perm, L, v, v + d, v + 2 * d, &bad);
      if (status == SG_ENOTPD)
        {
          if (bad_row)
            *bad_row = bad;
          if (bad_col)
            *bad_col = bad;
        }
    }
  free (S);
  free (L);
  free (v);
  free (perm);
  return status;
}

/* ------------------------------------------------------- problem set-up */

/* Validates the input and copies the kept coordinates (at least one finite
 * bound) into W: S, lo, up (centred), active. *M = their number; *ZERO = 1
 * when some lower == upper (probability 0). */
static int
extract_problem (sg_mvn_workspace *w, size_t d, const double *mean,
                 const double *cov, const double *lower, const double *upper,
                 size_t *m_out, int *zero, int *beyond_reach)
{
  size_t m = 0;
  *zero = 0;
  *beyond_reach = 0;
  for (size_t i = 0; i < d; i++)
    {
      double lo = lower ? lower[i] : -INFINITY;
      double up = upper ? upper[i] : INFINITY;
      double mi = mean ? mean[i] : 0;
      if (isnan (lo) || isnan (up) || !isfinite (mi) || lo > up)
        return SG_EINVAL;
      if (lo == up)
        *zero = 1;
      double sd = sqrt (fabs (cov[i * d + i]));
      if (up < INFINITY && (up - mi) / sd > REACH)
        {
          up = INFINITY;   /* beyond the distribution's reach (see REACH) */
          *beyond_reach = 1;
        }
      if (lo > -INFINITY && (lo - mi) / sd < -REACH)
        {
          lo = -INFINITY;
          *beyond_reach = 1;
        }
      if (lo == -INFINITY && up == INFINITY)
        continue;
      w->active[m] = i;
      w->lo[m] = lo - mi;
      w->up[m] = up - mi;
      m++;
    }
  for (size_t i = 0; i < d * d; i++)
    if (!isfinite (cov[i]))
      return SG_EINVAL;
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < i; j++)
      if (fabs (cov[i * d + j] - cov[j * d + i])
          > SYM_TOL * sqrt (fabs (cov[i * d + i] * cov[j * d + j])) + 1e-300)
        return SG_EINVAL;
  for (size_t a = 0; a < m; a++)
    {
      size_t ia = w->active[a];
      if (cov[ia * d + ia] < 0)
        return SG_ENOTPD;
      for (size_t b = 0; b < m; b++)
        {
          size_t ib = w->active[b];
          w->S[a * m + b] = 0.5 * cov[ia * d + ib] + 0.5 * cov[ib * d + ia];
        }
    }
  *m_out = m;
  return SG_OK;
}

/* Removes the coordinates with DROP[j] set from the kept problem in W
 * (S, lo, up, active: M of them), keeping the others in their order;
 * returns how many are kept. */
static size_t
compact_kept (sg_mvn_workspace *w, size_t m, const size_t *drop)
{
  double *S = w->S;
  size_t n = 0;
  for (size_t j = 0; j < m; j++)
    {
      if (drop[j])
        continue;
      w->active[n] = w->active[j];
      w->lo[n] = w->lo[j];
      w->up[n] = w->up[j];
      n++;
    }
  if (n < m)
    {
      size_t a = 0;
      for (size_t i = 0; i < m; i++)
        {
          if (drop[i])
            continue;
          size_t b = 0;
          for (size_t j = 0; j < m; j++)
            if (!drop[j])
              S[a * n + b++] = S[i * m + j];
          a++;
        }
    }
  return n;
}

static void bvn_prob (const double *S, const double *lo, const double *up, sg_mvn_result *res);

/* Degenerate coordinates of the kept problem in W (S, lo, up, active: M
 * of them), removed exactly:
 *   - a constant (S_ii = 0 and its row zero, so X_i = its mean): its bounds
 *     must hold the mean, else the probability is 0 (*ZERO = 1);
 *   - a coordinate perfectly correlated with an earlier kept one
 *     (1 - rho^2 <= VAR_FLOOR, the level at which the Cholesky would floor
 *     its pivot, and a covariance row that agrees, as it must for a PSD
 *     matrix): X_j = c X_i with c = S_ij / S_ii, so its interval becomes
 *     one for X_i, [lo_j / c, up_j / c] (swapped when c < 0), intersected
 *     with X_i's own; an empty or single-point intersection is probability
 *     0 (*ZERO = 1). X1 = X2 with disjoint intervals is exactly 0 this
 *     way, and a rank-1 covariance is exactly one interval.
 * Rows that fail these tests stay (the PSD check sees them). The kept
 * coordinates are compacted in their order; *M is updated. Also
 * SG_ENUMERIC when a bound is more than LOG_OVERFLOW_BOUND sds into the
 * tail (log P below -DBL_MAX / 2, not representable). */
static int
reduce_degenerate (sg_mvn_workspace *w, size_t *m_io, int *zero)
{
  size_t m = *m_io;
  double *S = w->S, *sd = w->vec;
  size_t *drop = w->perm2;
  for (size_t i = 0; i < m; i++)
    {
      sd[i] = sqrt (S[i * m + i]);
      drop[i] = 0;
      if (sd[i] > 0 && ((w->lo[i] < INFINITY && w->lo[i] / sd[i] > LOG_OVERFLOW_BOUND)
                        || (w->up[i] > -INFINITY
                            && w->up[i] / sd[i] < -LOG_OVERFLOW_BOUND)))
        return SG_ENUMERIC;
    }
  for (size_t j = 0; j < m; j++)
    {
      if (sd[j] == 0)
        {
          int row_zero = 1;
          for (size_t k = 0; k < m; k++)
            row_zero &= S[j * m + k] == 0;
          if (row_zero)
            {
              drop[j] = 1;
              if (!(w->lo[j] <= 0 && 0 <= w->up[j]))
                *zero = 1;
            }
          continue;
        }
      for (size_t i = 0; i < j && !drop[j]; i++)
        {
          if (drop[i] || sd[i] == 0)
            continue;
          double rho = S[i * m + j] / sd[i] / sd[j];
          double gap = 1 - rho * rho;
          if (!(fabs (gap) <= VAR_FLOOR))
            continue;
          /* Two coordinates short of perfect correlation: bvn_prob is
           * exact for them, and folding would drop the strip of width
           * sqrt(1 - rho^2) that can hold all of the probability (X1 ~ -X2,
           * both below 0). */
          if (m == 2 && fabs (rho) < 1)
            continue;
          /* Cov(X_j - c X_i, X_k) is at most sd(X_j - c X_i) sd_k */
          double c = S[i * m + j] / sd[i] / sd[i];
          double slack = 2 * sqrt (fmax (fabs (gap), DBL_EPSILON)) * sd[j];
          int consistent = 1;
          for (size_t k = 0; k < m && consistent; k++)
            consistent = fabs (S[j * m + k] - c * S[i * m + k]) <= slack * sd[k] + 1e-300;
          if (!consistent)
            continue;
          double a = w->lo[j] / c, b = w->up[j] / c;
          if (c < 0)
            {
              double t = a;
              a = b;
              b = t;
            }
          /* Short of perfect correlation, X_j - c X_i has the sd RESID (in
           * X_i's units): folding moves X_j's ends by that much, which is
           * negligible unless the folded interval is itself that short (or
           * empty by about that much), where all of the probability can lie
           * in the strip folding drops. Such a pair is left to the
           * factorisation. */
          double resid = sd[j] * sqrt (fmax (gap, 0)) / fabs (c);
          double ends_lo = fmax (w->lo[i], a), ends_up = fmin (w->up[i], b);
          if (resid > 0 && !(ends_up - ends_lo > FOLD_MARGIN * resid))
            continue;
          w->lo[i] = fmax (w->lo[i], a);
          w->up[i] = fmin (w->up[i], b);
          if (!(w->lo[i] < w->up[i]))
            *zero = 1;
          drop[j] = 1;
        }
    }
  *m_io = compact_kept (w, m, drop);
  return SG_OK;
}

/* Coordinates of the kept problem in W that are independent of all the
 * others but at most one (blocks of size 1 or 2 of a block-diagonal
 * covariance) are integrated exactly on their own (closed form, bvn_prob)
 * and removed: their log probability is added to *LOG_P, and *REL_ERR
 * gets their relative error. A near-singular pair independent of the rest
 * is then as exact as in dimension 2. *M is updated. */
static void
split_small_blocks (sg_mvn_workspace *w, size_t *m_io, double *log_p, double *rel_err)
{
  size_t m = *m_io;
  const double *S = w->S;
  size_t *drop = w->perm2;
  for (size_t i = 0; i < m; i++)
    drop[i] = 0;
  for (size_t i = 0; i < m; i++)
    {
      size_t partner = m, links = 0;
      for (size_t k = 0; k < m; k++)
        if (k != i && S[i * m + k] != 0)
          {
            partner = k;
            links++;
          }
      if (links == 0)
        {
          *log_p += sg_norm_logdiff (w->lo[i] / sqrt (S[i * m + i]),
                                     w->up[i] / sqrt (S[i * m + i]));
          *rel_err += 100 * DBL_EPSILON;
          drop[i] = 1;
          continue;
        }
      if (links > 1 || partner < i)
        continue;
      int alone = 1;
      for (size_t k = 0; k < m && alone; k++)
        alone = k == i || k == partner || S[partner * m + k] == 0;
      if (!alone)
        continue;
      double S2[4] = { S[i * m + i], S[i * m + partner], S[partner * m + i],
                       S[partner * m + partner] };
      double lo2[2] = { w->lo[i], w->lo[partner] }, up2[2] = { w->up[i], w->up[partner] };
      double gap = S2[0] * S2[3] - S2[1] * S2[2];
      if (!(gap > 0))
        continue;   /* not positive definite: the factorisation decides */
      sg_mvn_result r;
      bvn_prob (S2, lo2, up2, &r);
      *log_p += r.log_value;
      *rel_err += r.log_error;
      drop[i] = drop[partner] = 1;
    }
  *m_io = compact_kept (w, m, drop);
}

/* Position of coordinate C among the sorted kept coordinates, or M. */
static size_t
active_position (const sg_mvn_workspace *w, size_t m, size_t c)
{
  size_t lo = 0, hi = m;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (w->active[mid] < c)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < m && w->active[lo] == c ? lo : m;
}

/* The slot remembering the order of problems shaped like this call's (the
 * same D and bounded coordinates active[0..M)), or ORDER_SLOTS. */
static size_t
find_order_slot (sg_mvn_workspace *w, size_t m, size_t d)
{
  for (size_t k = 0; k < ORDER_SLOTS; k++)
    {
      if (w->slot[k].used == 0 || w->slot[k].m != m || w->slot[k].d != d)
        continue;
      size_t i = 0;
      while (i < m && active_position (w, m, w->slot[k].order[i]) < m)
        i++;
      if (i == m)   /* m distinct coordinates, all bounded now: same set */
        return k;
    }
  return ORDER_SLOTS;
}

/* Reorders S, lo, up of the kept coordinates into the order remembered in
 * slot K (which has the same coordinates). */
static void
apply_order (sg_mvn_workspace *w, size_t m, size_t k)
{
  const size_t *order = w->slot[k].order;
  size_t *pos = w->perm2;
  for (size_t i = 0; i < m; i++)
    pos[i] = active_position (w, m, order[i]);
  double *v = w->vec;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      w->G[i * m + j] = w->S[pos[i] * m + pos[j]];
  memcpy (w->S, w->G, m * m * sizeof *w->S);
  for (size_t i = 0; i < m; i++)
    v[i] = w->lo[pos[i]];
  memcpy (w->lo, v, m * sizeof *v);
  for (size_t i = 0; i < m; i++)
    v[i] = w->up[pos[i]];
  memcpy (w->up, v, m * sizeof *v);
  for (size_t i = 0; i < m; i++)
    w->active[i] = order[i];   /* active now lists the factor order */
}

/* PSD test, then the ordered Cholesky of the kept coordinates (in the
 * remembered order of this problem shape when KEEP_ORDER allows), then
 * unit-diagonal scaling: row k of L and the bounds l_k, u_k are divided by
 * L_kk (kept in w->dk). With REMEMBER the order used is remembered in the
 * shape's slot (a new shape replaces the least recently used one), so
 * interleaved problems of different shapes on one workspace each keep their
 * own order. */
static int
prepare_factor (sg_mvn_workspace *w, size_t m, size_t d, int keep_order,
                int remember)
{
  /* PSD test first, with diagonal pivoting (scratch: G, H, perm2) */
  memcpy (w->G, w->S, m * m * sizeof *w->G);
  for (size_t i = 0; i < m; i++)
    w->perm[i] = w->perm2[i] = i;
  size_t bad;
  int status = ordered_cholesky (w->G, m, NULL, NULL, 0, w->perm2, w->H,
                                 w->resid, w->cmean, w->vec, &bad);
  if (status != SG_OK)
    return status;
  size_t k = find_order_slot (w, m, d);
  int fixed = keep_order && k < ORDER_SLOTS;
  if (fixed)
    apply_order (w, m, k);
  ordered_cholesky (w->S, m, w->lo, w->up, fixed, w->perm, w->L, w->resid,
                    w->cmean, w->vec, &bad);
  if (remember)
    {
      if (k == ORDER_SLOTS)
        {
          k = 0;
          for (size_t j = 1; j < ORDER_SLOTS; j++)
            if (w->slot[j].used < w->slot[k].used)
              k = j;
        }
      for (size_t i = 0; i < m; i++)
        w->slot[k].order[i] = w->active[w->perm[i]];
      w->slot[k].m = m;
      w->slot[k].d = d;
      w->slot[k].used = ++w->stamp;
    }
  for (size_t r = 0; r < m; r++)
    {
      double dk = w->L[r * m + r];
      w->dk[r] = dk;
      for (size_t j = 0; j < r; j++)
        w->L[r * m + j] /= dk;
      w->L[r * m + r] = 1;
      w->lo[r] /= dk;
      w->up[r] /= dk;
    }
  return SG_OK;
}

/* ------------------------------------------------- minimax tilting (Botev) */

/* Botev (2017) eq. (9)-(10): psi(x, mu) = sum_k [ log(Phi(u_k - mu_k - c_k)
 * - Phi(l_k - mu_k - c_k)) + mu_k^2/2 - x_k mu_k ], c = (L - I) x, with
 * x, mu in R^{m-1} (x_m = mu_m = 0). Fills the gradient (GX, GM: m-1 each)
 * and, for the Newton step, P (truncated means) and DP (variance - 1) of
 * each of the m conditional truncated normals. Returns |grad|^2. */
static double
tilt_gradient (sg_mvn_workspace *w, size_t m, const double *x, const double *mu,
               double *gx, double *gm, double *P, double *dP)
{
  size_t n = m - 1;
  double *c = w->vec + 8 * w->d_max;
  /* c = L x - x (x has x_{m-1} = 0) */
  sg_gemv (0, m, m, 1.0, w->L, x, 0.0, c);
  for (size_t k = 0; k < m; k++)
    {
      c[k] -= x[k];
      double lt = w->lo[k] - mu[k] - c[k], ut = w->up[k] - mu[k] - c[k];
      double lw = sg_norm_logdiff (lt, ut);
      double pl = isfinite (lt) ? exp (sg_norm_logpdf (lt) - lw) : 0;
      double pu = isfinite (ut) ? exp (sg_norm_logpdf (ut) - lw) : 0;
      P[k] = pl - pu;
      dP[k] = -P[k] * P[k] + (isfinite (lt) ? lt * pl : 0) - (isfinite (ut) ? ut * pu : 0);
      if (!(dP[k] > -1 + 1e-12))
        dP[k] = -1 + 1e-12;
      if (dP[k] > 0)
        dP[k] = 0;
    }
  /* gx = (L - I)^T P - mu, restricted to the first n entries */
  sg_gemv (1, m, m, 1.0, w->L, P, 0.0, gx);
  double norm2 = 0;
  for (size_t j = 0; j < n; j++)
    {
      gx[j] += -P[j] - mu[j];
      gm[j] = mu[j] - x[j] + P[j];
      norm2 += gx[j] * gx[j] + gm[j] * gm[j];
    }
  return norm2;
}

/* Newton step for grad psi = 0. The Jacobian [[A, B^T], [B, C]] has
 * A = Lo^T diag(dP) Lo, B = -I + diag(dP) Lo, C = diag(1 + dP) (Lo = L - I,
 * restricted). The Schur complement on C simplifies to
 *   A - B^T C^{-1} B = -(G^T G + I),  G = diag(r) L[:, :n],
 *   r_k = sqrt(-dP_k / (1 + dP_k)) (k < n),  r_{m-1} = sqrt(-dP_{m-1}),
 * which is negative definite, so one Cholesky solves the step. */
static int
tilt_newton_step (sg_mvn_workspace *w, size_t m, const double *gx,
                  const double *gm, const double *dP, double *dx, double *dm)
{
  size_t n = m - 1;
  double *G = w->G, *H = w->H;
  double *v = w->vec + 9 * w->d_max;
  for (size_t k = 0; k < m; k++)
    {
      double r = k < n ? sqrt (-dP[k] / (1 + dP[k])) : sqrt (-dP[k]);
      for (size_t j = 0; j < n; j++)
        G[k * n + j] = r * w->L[k * m + j];
    }
  sg_gemm (1, 0, n, n, m, 1.0, G, G, 0.0, H);
  for (size_t j = 0; j < n; j++)
    H[j * n + j] += 1;
  /* H dx = gx + v - Lo^T (dP o v),  v = gm / (1 + dP) */
  for (size_t k = 0; k < n; k++)
    {
      v[k] = gm[k] / (1 + dP[k]);
      dm[k] = dP[k] * v[k];   /* temporary: dP o v */
    }
  sg_gemv_ld (1, n, n, 1.0, w->L, m, dm, 0.0, dx);   /* L[:n,:n]^T (dP o v) */
  for (size_t j = 0; j < n; j++)
    dx[j] = gx[j] + v[j] - (dx[j] - dm[j]);
  int status = sg_cholesky (H, n, SG_CHOLESKY_MAX_JITTER, H, NULL);
  if (status != SG_OK)
    return status;
  sg_cholesky_solve (H, n, dx, 1);
  /* dm = (-gm + dx - dP o (Lo dx)) / (1 + dP) */
  sg_gemv_ld (0, n, n, 1.0, w->L, m, dx, 0.0, dm);
  for (size_t k = 0; k < n; k++)
    {
      double lo_dx = dm[k] - dx[k];
      dm[k] = (-gm[k] + dx[k] - dP[k] * lo_dx) / (1 + dP[k]);
    }
  return SG_OK;
}

/* Solves for the tilting shifts w->mu by damped Newton from (x, mu) = 0.
 * On failure mu is left at zero (plain Genz), which is still unbiased. */
static void
solve_tilting (sg_mvn_workspace *w, size_t m)
{
  size_t n = m - 1, D = w->d_max;
  double *x = w->x, *mu = w->mu;
  double *gx = w->vec, *gm = w->vec + D, *P = w->vec + 2 * D, *dP = w->vec + 3 * D;
  double *dx = w->vec + 4 * D, *dm = w->vec + 5 * D;
  double *xt = w->vec + 6 * D, *mt = w->vec + 7 * D;
  memset (x, 0, m * sizeof *x);
  memset (mu, 0, m * sizeof *mu);
  double norm2 = tilt_gradient (w, m, x, mu, gx, gm, P, dP);
  const double tol = 1e-20 * (double) m;
  int converged = norm2 <= tol;
  for (int iter = 0; iter < 100 && !converged; iter++)
    {
      if (tilt_newton_step (w, m, gx, gm, dP, dx, dm) != SG_OK)
        break;
      double t = 1, trial = INFINITY;
      for (int half = 0; half < 40; half++, t *= 0.5)
        {
          for (size_t j = 0; j < n; j++)
            {
              xt[j] = x[j] + t * dx[j];
              mt[j] = mu[j] + t * dm[j];
            }
          xt[n] = mt[n] = 0;
          trial = tilt_gradient (w, m, xt, mt, gx, gm, P, dP);
          if (trial < (1 - 1e-4 * t) * norm2)
            break;
        }
      if (!(trial < norm2))
        {
          converged = norm2 <= 1e-10 * (double) m;   /* stuck at round-off */
          break;
        }
      memcpy (x, xt, m * sizeof *x);
      memcpy (mu, mt, m * sizeof *mu);
      norm2 = trial;
      converged = norm2 <= tol;
    }
  if (!converged)
    memset (mu, 0, m * sizeof *mu);
}

/* ------------------------------------------------------------ QMC kernel */

/* Coordinate frac(I GEN + SHIFT) of point I, baker-transformed (w -> 1 -
 * |2w - 1|) and kept 1e-15 away from 0 and 1. I is a double (an integer
 * below 2^53) because converting 64-bit integers does not vectorise
 * without AVX-512DQ. */
SG_KERNEL double
lattice_coordinate (double i, double gen, double shift)
{
  double q = i * gen + shift;
  q -= floor (q);
  q = 1 - fabs (2 * q - 1);
  return q < 1e-15 ? 1e-15 : (q > 1 - 1e-15 ? 1 - 1e-15 : q);
}

/* Pass 1 of sample_variable, for the NB points with conditional bounds
 * TL = LM - C, TU = UM - C: the interval probability into DIFF and the
 * probability whose quantile is the draw (the lattice coordinate's
 * position in the interval) into ARG, both from Phi on whichever side of 0
 * the interval starts, so no probability is formed as 1 - tiny. SGN is the
 * side (+-1: the draw is SGN Phi^-1(ARG)), or 0 where the fast path does
 * not hold (interval below 1e-300 or narrower than 1e-4 of its Phi). */
SG_VECTORIZE static void
interval_pass (size_t nb, double lm, double um, const double *restrict c,
               size_t i0, double gen, double shift, double *restrict arg,
               double *restrict diff, double *restrict sgn)
{
  for (size_t b = 0; b < nb; b++)
    {
      double tl = lm - c[b], tu = um - c[b];
      int upper = tl > 0;   /* interval in the upper tail: Phi(-t) */
      double p1 = sg_phi_kernel (upper ? -tl : tl), p2 = sg_phi_kernel (upper ? -tu : tu);
      double dp = upper ? p1 - p2 : p2 - p1, big = upper ? p1 : p2;
      double q = lattice_coordinate ((double) i0 + (double) (int) b, gen, shift);
      arg[b] = p1 + (upper ? -q : q) * dp;
      diff[b] = dp;
      sgn[b] = big > 1e-300 && dp > 1e-4 * big ? (upper ? -1.0 : 1.0) : 0.0;
    }
}

/* Pass 3: the draws z = SGN Phi^-1(ARG) of the fast path (SGN != 0; the
 * others hold their quantile already). */
SG_VECTORIZE static void
quantile_pass (size_t nb, const double *restrict arg, const double *restrict sgn,
               double *restrict z)
{
  for (size_t b = 0; b < nb; b++)
    z[b] = sgn[b] != 0 ? sgn[b] * sg_phiinv_kernel (arg[b]) : arg[b];
}

/* Pass 4: the draws clamped into their intervals (round-off), shifted by
 * MU, the tilting factor exp(mu^2/2 - mu z) into LOGW, and the interval
 * probabilities DIFF into PROD. */
SG_VECTORIZE static void
weight_pass (size_t nb, double lm, double um, double mu, const double *restrict c,
             const double *restrict diff, double *restrict z, double *restrict prod,
             double *restrict logw, int last)
{
  for (size_t b = 0; b < nb; b++)
    {
      prod[b] *= diff[b];
      if (!last)
        {
          double tl = lm - c[b], tu = um - c[b];
          double e = z[b] < tl ? tl : (z[b] > tu ? tu : z[b]);
          z[b] = mu + e;
          logw[b] += mu * (0.5 * mu - z[b]);
        }
    }
}

/* Variable k for NB points: conditional bounds l - mu - c, u - mu - c;
 * multiplies each point's weight by Phi(tu) - Phi(tl) (times the tilting
 * factor) and, unless LAST, draws z = mu + the truncated-normal quantile of
 * the lattice coordinate (baker-transformed) into Z. Vectorised passes
 * over the block (interval_pass, quantile_pass, weight_pass) with scalar
 * fix-ups in between for the few points they do not cover: intervals too
 * narrow or too deep in a tail for the fast path (the log-space routines
 * of sg-normal) and tiny interval probabilities (into the log weight).
 * SCRATCH is 3 BLOCK doubles. */
static void
sample_variable (size_t nb, double l, double u, double mu, const double *c,
                 double gen, double shift, size_t i0, double *z, double *scratch,
                 double *prod, double *logw, int last)
{
  double *arg = scratch, *diff = scratch + BLOCK, *sgn = scratch + 2 * BLOCK;
  double lm = l - mu, um = u - mu;
  interval_pass (nb, lm, um, c, i0, gen, shift, arg, diff, sgn);
  for (size_t b = 0; b < nb; b++)
    {
      if (sgn[b] == 0)
        {
          double tl = lm - c[b], tu = um - c[b];
          logw[b] += sg_norm_logdiff (tl, tu);
          diff[b] = 1;
          if (!last)
            {
              double q = lattice_coordinate ((double) (i0 + b), gen, shift);
              double e = sg_norm_trunc_quantile (tl, tu, q);
              /* intervals ~1e10 sd out (floored singular pivots) defeat the
               * quantile's Newton steps; the mass sits within 1/|t| of the
               * bound nearest to 0 */
              if (!isfinite (e))
                e = tl > 0 ? tl : (tu < 0 ? tu : 0);
              arg[b] = e;
            }
        }
      else if (diff[b] < 1e-100)   /* keep prod * diff >= 1e-300: no underflow */
        {
          logw[b] += log (diff[b]);
          diff[b] = 1;
        }
    }
  if (!last)
    quantile_pass (nb, arg, sgn, z);
  weight_pass (nb, lm, um, mu, c, diff, z, prod, logw, last);
  for (size_t b = 0; b < nb; b++)
    if (prod[b] < FOLD_BELOW)
      {
        logw[b] += log (prod[b]);
        prod[b] = 1;
      }
}

/* The factors' proposal in each direction: the logistic distribution with
 * unit variance (scale sqrt 3 / pi), whose quantile and density are closed
 * forms. */
#define LOGISTIC_S 0.55132889542179204

static double
logistic_quantile (double p)
{
  return LOGISTIC_S * log (p / (1 - p));
}

static double
logistic_logpdf (double u)
{
  double a = fabs (u) / LOGISTIC_S;
  return -a - 2 * log1p (exp (-a)) - log (LOGISTIC_S);
}

/* The latent factors f of points I0 .. I0+NB-1 (split problems) into rows
 * 0 .. nf-1 of Y: f = fmean + fchol u with u_j independent unit-variance
 * logistic (the quantile of the point's coordinate j), and the weight
 * times N(f; 0, I) / q(f), q(f) = prod logistic(u_j) / det(fchol). Why not
 * a Gaussian: the factors' law given the truncation has the prior's tail
 * (sd 1) on the side where every bound is slack, far wider than its bulk
 * (sd 0.15-0.4 in bench-mvn's orthants), so a Gaussian fitted to the bulk
 * gives weights of infinite variance, and its error estimates did not
 * cover (14/20 on a d = 200 equicorrelated orthant at 1e-100). Against
 * exponential tails N(f; 0, I)^2 / q(f) is integrable, and the integrand
 * decays smoothly at both ends of every coordinate, which the lattice
 * rules reward. Measured (sd of log P over 20 seeds, 10000 points): that
 * d = 200 equicorrelated orthant 2.1e-5 -> 5.8e-6; 5-factor orthants
 * (bench-mvn part C's first covariances) 1.1-1.35x more than with the
 * Gaussian; Student t_4 (closed-form quantile too) gave 6e-9 on the former
 * but 1.5-1.9x the Gaussian's on the latter, its heavy tails in every
 * direction at once. */
static void
sample_factors (sg_mvn_workspace *w, const double *gen, const double *shift,
                size_t i0, size_t nb)
{
  size_t r = w->nf;
  double u[FACTOR_MAX];
  for (size_t b = 0; b < nb; b++)
    {
      double lw = w->flogdet - 0.5 * (double) r * log (2 * M_PI);
      for (size_t j = 0; j < r; j++)
        {
          u[j] = logistic_quantile (lattice_coordinate ((double) (i0 + b), gen[j], shift[j]));
          lw -= logistic_logpdf (u[j]);
        }
      for (size_t j = 0; j < r; j++)
        {
          double f = w->fmean[j];
          for (size_t k = 0; k <= j; k++)
            f += w->fchol[j * r + k] * u[k];
          w->Y[j * BLOCK + b] = f;
          lw -= 0.5 * f * f;
        }
      w->logw[b] = lw;
    }
}

/* Log weights of points I0 .. I0+NB-1 of one shift into w->logw: the
 * point i has coordinates frac(i GEN_k + SHIFT_k). */
static void
run_block (sg_mvn_workspace *w, size_t m, const double *gen, const double *shift,
           size_t i0, size_t nb)
{
  double *Y = w->Y, *C = w->C, *L = w->L;
  for (size_t b = 0; b < nb; b++)
    {
      w->prod[b] = 1;
      w->logw[b] = 0;
    }
  if (w->nf > 0)
    sample_factors (w, gen, shift, i0, nb);
  for (size_t k0 = w->nf; k0 < m; k0 += PANEL)
    {
      size_t kp = m - k0 < PANEL ? m - k0 : PANEL;
      /* C = L[k0:k0+kp, 0:k0] Y[0:k0, :] */
      sg_gemm_ld (0, 0, kp, nb, k0, 1.0, L + k0 * m, m, Y, BLOCK, 0.0, C, BLOCK);
      for (size_t k = k0; k < k0 + kp; k++)
        {
          double *c = C + (k - k0) * BLOCK;
          if (k > k0)   /* c += Y[k0:k, :]^T L[k, k0:k] */
            sg_gemv_ld (1, k - k0, nb, 1.0, Y + k0 * BLOCK, BLOCK, L + k * m + k0, 1.0, c);
          int last = k == m - 1;
          sample_variable (nb, w->lo[k], w->up[k], last ? 0 : w->mu[k], c,
                           last ? 0 : gen[k], last ? 0 : shift[k], i0,
                           Y + k * BLOCK, w->scratch, w->prod, w->logw, last);
        }
    }
  for (size_t b = 0; b < nb; b++)
    w->logw[b] += log (w->prod[b]);
}

/* Adds exp(LOGW[0..n)) to the running sum exp(*MAX) * *SUM. */
static void
accumulate_logsumexp (const double *logw, size_t n, double *max, double *sum)
{
  double bmax = -INFINITY;
  for (size_t b = 0; b < n; b++)
    if (logw[b] > bmax)
      bmax = logw[b];
  if (bmax == -INFINITY)
    return;
  if (bmax > *max)
    {
      *sum = *max == -INFINITY ? 0 : *sum * exp (*max - bmax);
      *max = bmax;
    }
  double s = 0;
  for (size_t b = 0; b < n; b++)
    s += exp (logw[b] - *max);
  *sum += s;
}

/* Combines the per-shift log estimates LS[0..S) into the result. */
static void
combine_shifts (const double *ls, size_t S, sg_mvn_result *res)
{
  double lmax = -INFINITY;
  for (size_t s = 0; s < S; s++)
    if (ls[s] > lmax)
      lmax = ls[s];
  if (lmax == -INFINITY)
    {
      res->value = 0;
      res->log_value = -INFINITY;
      res->error = 0;
      res->log_error = 0;
      return;
    }
  double mean = 0, var = 0;
  for (size_t s = 0; s < S; s++)
    mean += exp (ls[s] - lmax);
  mean /= (double) S;
  for (size_t s = 0; s < S; s++)
    {
      double dv = exp (ls[s] - lmax) - mean;
      var += dv * dv;
    }
  var /= (double) (S - 1);
  double tq = gsl_cdf_tdist_Pinv (ERROR_QUANTILE, (double) (S - 1));
  res->log_value = lmax + log (mean);
  res->value = exp (res->log_value);
  res->log_error = tq * sqrt (var / (double) S) / mean;
  res->error = res->log_error * res->value;
}

/* The generators GEN[0..DIMS) of the points of one shift, point i having
 * coordinates frac(i GEN_k + shift_k); returns the number of points. A
 * lattice rule of the table when the count is fixed (not STAGED) and the
 * table has about N points (a lattice is only balanced as a whole, so not
 * for the staged runs' prefixes), else the Richtmyer sequence, which also
 * fills the coordinates beyond the table. */
static size_t
point_generators (const sg_mvn_workspace *w, size_t dims, size_t n, int staged,
                  double *gen)
{
  memcpy (gen, w->gen, dims * sizeof *gen);
  size_t n_lattice;
  const uint32_t *z = staged ? NULL : sg_lattice_rule (n, &n_lattice);
  if (z == NULL)
    return n;
  for (size_t k = 0; k < dims && k < SG_LATTICE_DIMS; k++)
    gen[k] = (double) z[k] / (double) n_lattice;
  return n_lattice;
}

static int
qmc_estimate (sg_mvn_workspace *w, size_t m, const sg_mvn_options *opt,
              const sg_progress *progress, uint64_t stream, sg_mvn_result *res)
{
  size_t S = opt->n_shifts, n_per = opt->n_points / S;
  if (n_per < 1)
    n_per = 1;
  size_t dims = m - 1;
  double *shifts = malloc ((S * (dims + 1) + 3 * S + dims + 1) * sizeof *shifts);
  gsl_rng *rng = sg_rng_new (opt->seed, stream);
  if (shifts == NULL || rng == NULL)
    {
      free (shifts);
      sg_rng_free (rng);
      return SG_ENOMEM;
    }
  double *amax = shifts + S * (dims + 1), *asum = amax + S, *ls = asum + S, *gen = ls + S;
  for (size_t s = 0; s < S; s++)
    {
      for (size_t k = 0; k < dims; k++)
        shifts[s * (dims + 1) + k] = gsl_rng_uniform (rng);
      amax[s] = -INFINITY;
      asum[s] = 0;
    }
  sg_rng_free (rng);

  int staged = opt->rel_tol > 0 && !opt->deterministic;
  n_per = point_generators (w, dims, n_per, staged, gen);
  size_t done = 0, target = staged ? (n_per / 16 > BLOCK ? n_per / 16 : BLOCK) : n_per;
  if (target > n_per)
    target = n_per;
  size_t total_blocks = S * ((n_per + BLOCK - 1) / BLOCK), blocks_done = 0;
  int status = SG_OK;
  sg_mvn_result r = { 0 };
  for (;;)
    {
      for (size_t s = 0; s < S && status == SG_OK; s++)
        for (size_t i0 = done; i0 < target; i0 += BLOCK)
          {
            size_t nb = target - i0 < BLOCK ? target - i0 : BLOCK;
            /* indices 1 .. n_per (for a lattice rule i = n_per is its point 0) */
            run_block (w, m, gen, shifts + s * (dims + 1), i0 + 1, nb);
            accumulate_logsumexp (w->logw, nb, &amax[s], &asum[s]);
            blocks_done++;
            status = sg_progress_report (progress,
                                         (double) blocks_done / (double) total_blocks);
            if (status != SG_OK)
              break;
          }
      if (status != SG_OK)
        break;
      done = target;
      for (size_t s = 0; s < S; s++)
        ls[s] = amax[s] + log (asum[s]) - log ((double) done);
      combine_shifts (ls, S, &r);
      if (done >= n_per || !(r.error > opt->rel_tol * r.value))
        break;
      target = 2 * done < n_per ? 2 * done : n_per;
    }
  free (shifts);
  if (status != SG_OK)
    return status;
  r.n_points = done * S;
  r.exact = 0;
  *res = r;
  return SG_OK;
}

/* ---------------------------------------------------- latent factors */

/* Splits the dominant eigen-directions of the kept covariance S0 off as
 * latent factors. With its eigenvalues lambda_1 >= lambda_2 >= ..., r is the
 * count (<= FACTOR_MAX) with the largest gap ratio lambda_r / lambda_r+1,
 * if that is at least FACTOR_GAP, and with c = lambda_r+1
 *   S0 = F F^T + R,   F = V_r diag(sqrt(lambda_j - c)),   R = S0 - F F^T,
 * R PSD (F F^T takes lambda_j - c off the top r eigenvalues only), so
 * X = F f + E with f ~ N(0, I_r) and E ~ N(0, R) independent. Writes F
 * (m x r, kept order) to w->F; returns r, or 0 when there is no such gap. */
static size_t
factor_split (sg_mvn_workspace *w, size_t m)
{
  const size_t k = FACTOR_MAX + 1;
  double ev[FACTOR_MAX + 1], *V = w->H;   /* m x k */
  memcpy (w->G, w->S0, m * m * sizeof *w->G);
  if (m < k + 1 || sg_sym_eigen_top (w->G, m, k, ev, V) != SG_OK)
    return 0;
  size_t r = 0;
  double best = FACTOR_GAP;
  for (size_t j = 1; j < k; j++)
    if (ev[j] > FACTOR_MIN_EIG * ev[0] && ev[j - 1] >= best * ev[j])
      {
        best = ev[j - 1] / ev[j];
        r = j;
      }
  for (size_t i = 0; i < m && r > 0; i++)
    for (size_t j = 0; j < r; j++)
      w->F[i * r + j] = V[i * k + j] * sqrt (ev[j] - ev[r]);
  return r;
}

/* The factors' proposal from the pilot's points: KEEP holds N rows of
 * (log weight, G^T z) and G the m x r matrix of factor_pilot, whose first
 * DIMS rows go with the drawn z. Returns 1, or 0 (no split) when the
 * effective sample size (sum w)^2 / sum w^2 is below PILOT_MIN_ESS or at
 * least SPLIT_BELOW_ESS N, or the covariance will not factor. Measured on
 * the 5-factor orthants of bench-mvn part C: the split cut the sd of the
 * log estimate 1.7-8x where the pilot's ESS was 0.24-0.64 N (P = 1e-10 at
 * d = 50-200, 1e-50 at d = 200) and was level or up to 3.7x worse where it
 * was 0.74-0.96 N (tilting alone already works there). */
static int
fit_factor_proposal (sg_mvn_workspace *w, size_t r, const double *keep, size_t n,
                     const double *G, size_t dims)
{
  double lmax = -INFINITY, sw = 0, sw2 = 0;
  double mean[FACTOR_MAX] = { 0 }, cov[FACTOR_MAX * FACTOR_MAX];
  for (size_t i = 0; i < n; i++)
    lmax = fmax (lmax, keep[i * (r + 1)]);
  if (!isfinite (lmax))
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      const double *row = keep + i * (r + 1);
      double wi = exp (row[0] - lmax);
      sw += wi;
      sw2 += wi * wi;
      for (size_t j = 0; j < r; j++)
        mean[j] += wi * row[1 + j];
    }
  /* few points carrying the weight: no proposal can be fitted; nearly
   * even weights: the plain SOV is already good, nothing to gain */
  if (sw * sw < PILOT_MIN_ESS * sw2 || sw * sw >= SPLIT_BELOW_ESS * (double) n * sw2)
    return 0;
  for (size_t j = 0; j < r; j++)
    mean[j] /= sw;
  /* I - G^T G, plus the weighted covariance of G^T z */
  sg_gemm_ld (1, 0, r, r, dims, -1.0, G, r, G, r, 0.0, cov, r);
  for (size_t j = 0; j < r; j++)
    cov[j * r + j] += 1;
  for (size_t i = 0; i < n; i++)
    {
      const double *row = keep + i * (r + 1);
      double wi = exp (row[0] - lmax) / sw;
      for (size_t j = 0; j < r; j++)
        for (size_t k = 0; k < r; k++)
          cov[j * r + k] += wi * (row[1 + j] - mean[j]) * (row[1 + k] - mean[k]);
    }
  for (size_t j = 0; j < r * r; j++)
    cov[j] *= FACTOR_SCALE * FACTOR_SCALE;
  if (sg_cholesky (cov, r, SG_CHOLESKY_MAX_JITTER, w->fchol, NULL) != SG_OK)
    return 0;
  memcpy (w->fmean, mean, r * sizeof *mean);
  w->flogdet = 0;
  for (size_t j = 0; j < r; j++)
    w->flogdet += log (w->fchol[j * r + j]);
  return 1;
}

/* Fits the proposal of the R latent factors (w->fmean, fchol, flogdet) to
 * their law given the truncation, from a pilot run of the plain problem as
 * prepared in W. With x = L_u z (L_u = diag(dk) L, the ordered Cholesky
 * before scaling; z the points' SOV variables) and G = L_u^-1 F_perm,
 *   E[f | x] = F^T S^-1 x = G^T z,   Cov[f | x] = I - F^T S^-1 F = I - G^T G,
 * so the pilot's weighted points give the mean E_w[G^T z] and covariance
 * I - G^T G + Cov_w[G^T z] (the last variable's z is not drawn: G and z
 * stop at m - 1, which is Cov[f | x_1..x_m-1], exact for those). The
 * covariance is scaled by FACTOR_SCALE^2 (the proposal is a little wider
 * than the target, as importance sampling wants). The pilot has about N_WANTED
 * points (their count into *N_USED). Returns 1 when the split is to be made
 * (see fit_factor_proposal), 0 when not or on ENOMEM. */
static int
factor_pilot (sg_mvn_workspace *w, size_t m, size_t r, size_t n_wanted,
              uint64_t seed, uint64_t stream, size_t *n_used)
{
  size_t dims = m - 1, n = point_generators (w, dims, n_wanted, 0, w->x);
  *n_used = n;
  double *G = w->G, *keep = malloc ((n * (r + 1) + dims) * sizeof *keep);
  gsl_rng *rng = sg_rng_new (seed, stream | PILOT_STREAM);
  int ok = keep != NULL && rng != NULL;
  if (ok)
    {
      double *shift = keep + n * (r + 1), *g = w->C;   /* g: r x BLOCK */
      for (size_t k = 0; k < dims; k++)
        shift[k] = gsl_rng_uniform (rng);
      for (size_t i = 0; i < m; i++)   /* G = L^-1 diag(1/dk) F_perm */
        for (size_t j = 0; j < r; j++)
          G[i * r + j] = w->F[w->perm[i] * r + j] / w->dk[i];
      sg_trsm_lower (w->L, m, G, r);
      w->nf = 0;
      for (size_t i0 = 0; i0 < n; i0 += BLOCK)
        {
          size_t nb = n - i0 < BLOCK ? n - i0 : BLOCK;
          run_block (w, m, w->x, shift, i0 + 1, nb);
          sg_gemm_ld (1, 0, r, nb, dims, 1.0, G, r, w->Y, BLOCK, 0.0, g, BLOCK);
          for (size_t b = 0; b < nb; b++)
            {
              keep[(i0 + b) * (r + 1)] = w->logw[b];
              for (size_t j = 0; j < r; j++)
                keep[(i0 + b) * (r + 1) + 1 + j] = g[j * BLOCK + b];
            }
        }
      ok = fit_factor_proposal (w, r, keep, n, G, dims);
    }
  free (keep);
  sg_rng_free (rng);
  return ok;
}

/* Prepares the split problem of (f, x) in W, the factors' proposal fitted:
 * the ordered Cholesky of R (the order chosen, and Botev's tilting solved,
 * for x given f = fmean, where most of the proposal's mass is), then the
 * unit lower factor of the (r + m)-vector (f, x),
 *   [ I      0   ]      Ft = diag(1/dk) F_perm, the factors' loadings
 *   [ Ft    L_R  ]      in the scaled, ordered coordinates,
 * with lo, up, mu moved down by r (the factors are unbounded; their draws
 * are sample_factors'). SG_OK, or the status of the PSD check of R. */
static int
prepare_split (sg_mvn_workspace *w, size_t m, size_t d, size_t r)
{
  const double *F = w->F;
  double *fm = w->H;   /* F fmean, kept order */
  sg_gemv (0, m, r, 1.0, F, w->fmean, 0.0, fm);
  for (size_t i = 0; i < m; i++)
    {
      w->lo[i] = w->lo0[i] - fm[i];
      w->up[i] = w->up0[i] - fm[i];
    }
  memcpy (w->S, w->S0, m * m * sizeof *w->S);
  sg_gemm (0, 1, m, m, r, -1.0, F, F, 1.0, w->S);
  int status = prepare_factor (w, m, d, 0, 0);
  if (status != SG_OK)
    return status;
  solve_tilting (w, m);
  /* the per-point factor term replaces the shift by F fmean */
  for (size_t i = 0; i < m; i++)
    {
      w->lo[i] = w->lo0[w->perm[i]] / w->dk[i];
      w->up[i] = w->up0[w->perm[i]] / w->dk[i];
    }
  size_t ma = m + r;
  double *LR = w->G;
  memcpy (LR, w->L, m * m * sizeof *LR);
  memset (w->L, 0, ma * ma * sizeof *w->L);
  for (size_t j = 0; j < r; j++)
    w->L[j * ma + j] = 1;
  for (size_t i = 0; i < m; i++)
    {
      double *row = w->L + (r + i) * ma;
      for (size_t j = 0; j < r; j++)
        row[j] = F[w->perm[i] * r + j] / w->dk[i];
      memcpy (row + r, LR + i * m, (i + 1) * sizeof *row);
    }
  memmove (w->lo + r, w->lo, m * sizeof *w->lo);
  memmove (w->up + r, w->up, m * sizeof *w->up);
  memmove (w->mu + r, w->mu, m * sizeof *w->mu);
  for (size_t j = 0; j < r; j++)
    {
      w->lo[j] = -INFINITY;
      w->up[j] = INFINITY;
      w->mu[j] = 0;
    }
  w->nf = r;
  return SG_OK;
}

/* Restores the plain problem (no factors) after a failed split. */
static void
prepare_plain (sg_mvn_workspace *w, size_t m, size_t d)
{
  memcpy (w->S, w->S0, m * m * sizeof *w->S);
  memcpy (w->lo, w->lo0, m * sizeof *w->lo);
  memcpy (w->up, w->up0, m * sizeof *w->up);
  prepare_factor (w, m, d, 0, 0);   /* passed the PSD check before */
  solve_tilting (w, m);
  w->nf = 0;
}

/* ------------------------------------------------- dimension 2 quadrature */

/* Gauss-Kronrod 7-15 nodes and weights (QUADPACK qk15). */
static const double xgk[8] = {
  0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
  0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
  0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
  0.207784955007898467600689403773245, 0.000000000000000000000000000000000
};
static const double wgk[8] = {
  0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
  0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
  0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
  0.204432940075298892414161999234649, 0.209482141084727828012999174891714
};
static const double wg[4] = {
  0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
  0.381830050505118944950369775488975, 0.417959183673469387755102040816327
};

/* A log-integrand on an interval and the log scale subtracted before exp
 * (so that the integrand's peak is ~1 and nothing underflows). */
typedef struct {
  double (*log_f) (const void *ctx, double x);
  const void *ctx;
  double shift;
} log_integrand;

static double
scaled_f (const log_integrand *f, double x)
{
  return exp (f->log_f (f->ctx, x) - f->shift);
}

static void
gk15 (const log_integrand *f, double a, double b, double *kr, double *err)
{
  double c = 0.5 * (a + b), h = 0.5 * (b - a);
  double fc = scaled_f (f, c);
  double rk = fc * wgk[7], rg = fc * wg[3];
  for (int j = 0; j < 7; j++)
    {
      double f1 = scaled_f (f, c - h * xgk[j]);
      double f2 = scaled_f (f, c + h * xgk[j]);
      rk += wgk[j] * (f1 + f2);
      if (j % 2 == 1)
        rg += wg[j / 2] * (f1 + f2);
    }
  *kr = rk * h;
  *err = fabs ((rk - rg) * h);
}

#define GK_MAX_INTERVALS 400

/* Integral of exp(log_f - shift) over [p_0, p_n] by globally adaptive
 * GK15 (bisect the interval with the largest error estimate) to REL_TOL,
 * starting from the N intervals between the sorted points P[0..N]: an
 * integrand with a kink or a near-step at a known place is resolved when
 * that place is a starting point (a bisection never samples a step
 * narrower than its nodes' spacing otherwise). */
static void
adaptive_gk15_points (const log_integrand *f, const double *p, size_t n, double rel_tol,
                      double *total_out, double *err_out)
{
  double ia[GK_MAX_INTERVALS], ib[GK_MAX_INTERVALS], ik[GK_MAX_INTERVALS],
         ie[GK_MAX_INTERVALS];
  double total = 0, terr = 0;
  for (size_t i = 0; i < n; i++)
    {
      ia[i] = p[i];
      ib[i] = p[i + 1];
      gk15 (f, ia[i], ib[i], &ik[i], &ie[i]);
      total += ik[i];
      terr += ie[i];
    }
  while (n + 1 < GK_MAX_INTERVALS && terr > rel_tol * total)
    {
      size_t worst = 0;
      for (size_t i = 1; i < n; i++)
        if (ie[i] > ie[worst])
          worst = i;
      double mid = 0.5 * (ia[worst] + ib[worst]);
      ia[n] = mid;
      ib[n] = ib[worst];
      ib[worst] = mid;
      gk15 (f, ia[worst], ib[worst], &ik[worst], &ie[worst]);
      gk15 (f, ia[n], ib[n], &ik[n], &ie[n]);
      n++;
      total = 0;
      terr = 0;
      for (size_t i = 0; i < n; i++)
        {
          total += ik[i];
          terr += ie[i];
        }
    }
  *total_out = total;
  *err_out = terr;
}

static void
adaptive_gk15 (const log_integrand *f, double a, double b, double rel_tol,
               double *total_out, double *err_out)
{
  double p[2] = { a, b };
  adaptive_gk15_points (f, p, 1, rel_tol, total_out, err_out);
}

/* The standardised bivariate problem: X0 in [l0, u0] and X1 in [l1, u1]
 * with unit variances and correlation RHO, |RHO| < 1; S = sqrt(1 - RHO^2)
 * computed as sqrt((1 - |RHO|)(1 + |RHO|)), which keeps its relative
 * accuracy as |RHO| -> 1 (1 - RHO^2 would lose it to rounding). */
typedef struct {
  double l0, u0, l1, u1, rho, s;
} bvn_problem;

/* log P(l1 < X1 < u1 | X0 = z) with z the quantile W of X0 truncated to
 * [l0, u0]: P = P(l0 < X0 < u0) int_0^1 exp(this) dw (Genz 1992, SOV). */
static double
bvn_log_integrand (const void *ctx, double w)
{
  const bvn_problem *p = ctx;
  double z = sg_norm_trunc_quantile (p->l0, p->u0, w);
  /* w rounds to 0 or 1 at a node next to a starting point near an end:
   * a single point of no mass (rho z would be inf - inf) */
  if (!isfinite (z))
    return -INFINITY;
  return sg_norm_logdiff ((p->l1 - p->rho * z) / p->s, (p->u1 - p->rho * z) / p->s);
}

/* The quantile level of Z in X0 truncated to [l0, u0], from the smaller
 * of the two tail masses so that levels near 1 keep their accuracy. */
static double
bvn_level (const bvn_problem *p, double z, double log_mass)
{
  double below = exp (sg_norm_logdiff (p->l0, z) - log_mass);
  if (below <= 0.5)
    return below;
  return 1 - exp (sg_norm_logdiff (z, p->u0) - log_mass);
}

/* Sorted, distinct starting points of the quadrature in (0, 1): the
 * conditional probability of X1 steps from 0 to 1 (or back) within a few
 * multiples of s / |rho| of z = l1 / rho and z = u1 / rho; near rho = +-1
 * that width is far below the spacing of the quadrature's nodes, so the
 * step's edges start intervals of their own. Returns the number of
 * intervals (points - 1). */
#define BVN_EDGE_STEPS 9
static size_t
bvn_points (const bvn_problem *p, double log_mass, double *pts)
{
  static const double t[BVN_EDGE_STEPS] = { -40, -8, -3, -1, 0, 1, 3, 8, 40 };
  size_t n = 0;
  pts[n++] = 0;
  for (int side = 0; side < 2 && p->rho != 0; side++)
    {
      double edge = side == 0 ? p->l1 : p->u1;
      if (!isfinite (edge))
        continue;
      for (int k = 0; k < BVN_EDGE_STEPS; k++)
        {
          double z = edge / p->rho + t[k] * p->s / fabs (p->rho);
          if (z > p->l0 && z < p->u0)
            {
              double v = bvn_level (p, z, log_mass);
              if (v > 0 && v < 1)
                pts[n++] = v;
            }
        }
    }
  pts[n++] = 1;
  /* insertion sort of a handful, then drop repeats */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && pts[j - 1] > pts[j]; j--)
      {
        double x = pts[j];
        pts[j] = pts[j - 1];
        pts[j - 1] = x;
      }
  size_t k = 1;
  for (size_t i = 1; i < n; i++)
    if (pts[i] > pts[k - 1])
      pts[k++] = pts[i];
  return k - 1;
}

/* P(l0 < X0 < u0, l1 < X1 < u1) for the 2 x 2 covariance S (both
 * variances positive, |correlation| < 1) and bounds in X's units, by
 * globally adaptive GK15 over the level w of X0, in scaled log space,
 * from starting points at the edges of X1's conditional step
 * (bvn_points). Exact to the quadrature's tolerance for every correlation
 * short of +-1, including 1 - |rho| down to the double spacing near 1,
 * where the conditional step is far narrower than the quadrature's nodes
 * (tests/data/mvn-near-singular.json: mvtnorm's and scipy's values). */
static void
bvn_prob (const double *S, const double *lo, const double *up, sg_mvn_result *res)
{
  double sd0 = sqrt (S[0]), sd1 = sqrt (S[3]);
  double rho = fmax (-1.0, fmin (1.0, S[1] / sd0 / sd1));
  double ar = fabs (rho);
  bvn_problem p = { lo[0] / sd0, up[0] / sd0, lo[1] / sd1, up[1] / sd1, rho,
                    sqrt ((1 - ar) * (1 + ar)) };
  log_integrand f = { bvn_log_integrand, &p, 0 };
  double pts[2 * BVN_EDGE_STEPS + 2];
  double l0 = sg_norm_logdiff (p.l0, p.u0);
  size_t n = bvn_points (&p, l0, pts);
  double peak = -INFINITY;
  for (int i = 0; i <= 64; i++)
    peak = fmax (peak, bvn_log_integrand (&p, (i + 0.5) / 65.5));
  for (size_t i = 1; i < n; i++)
    peak = fmax (peak, bvn_log_integrand (&p, pts[i]));
  f.shift = isfinite (peak) ? peak : 0;
  double total, terr;
  adaptive_gk15_points (&f, pts, n, 1e-14, &total, &terr);
  res->log_value = total > 0 ? l0 + f.shift + log (total) : -INFINITY;
  res->value = exp (res->log_value);
  res->log_error = total > 0 ? terr / total + 100 * DBL_EPSILON : 0;
  res->error = res->log_error * res->value;
  res->n_points = 0;
  res->exact = 1;
}

static void
set_exact (sg_mvn_result *res, double log_value)
{
  res->log_value = log_value;
  res->value = exp (log_value);
  res->log_error = isfinite (log_value) ? 100 * DBL_EPSILON : 0;   /* round-off */
  res->error = res->log_error * res->value;
  res->n_points = 0;
  res->exact = 1;
}

/* ------------------------------------------------ one-factor covariances */

/* A covariance S = a a^T + diag(s^2) with all s_i > 0 (equicorrelated
 * matrices, one-factor models) makes the X_i independent given the factor
 * z ~ N(0, 1): X_i = a_i z + s_i E_i, so
 *   P(l < X < u) = int phi(z) prod_i [Phi((u_i - a_i z)/s_i) - Phi((l_i - a_i z)/s_i)] dz
 * (Dunnett & Sobel 1955; Genz & Bretz 2009 sec. 2.2.1), a one-dimensional
 * integral of a log-concave function (each factor is a log-concave
 * function of z, Prekopa 1973). It is done in log space: the peak by
 * golden-section search, the support where the log integrand is within
 * ONE_FACTOR_DROP of it, then adaptive Gauss-Kronrod to 1e-13 relative
 * (plus the round-off of the log integrand, ~1e-14 |log peak|). */
#define ONE_FACTOR_TOL 1e-12   /* |S_ij - a_i a_j| <= tol sqrt(S_ii S_jj)  */
#define ONE_FACTOR_MIN_RESID 1e-8  /* s_i^2 >= this * S_ii (else not smooth) */
#define ONE_FACTOR_DROP 60.0   /* exp(-60) = 9e-27 of the peak is negligible */

typedef struct {
  size_t m;
  const double *a, *s, *lo, *up;
} one_factor;

static double
one_factor_log_integrand (const void *ctx, double z)
{
  const one_factor *f = ctx;
  double acc = sg_norm_logpdf (z);
  for (size_t i = 0; i < f->m && acc > -INFINITY; i++)
    if (f->s[i] > 0)   /* the others bound the range of z */
      acc += sg_norm_logdiff ((f->lo[i] - f->a[i] * z) / f->s[i],
                              (f->up[i] - f->a[i] * z) / f->s[i]);
  return acc;
}

/* Fits a, s to the kept covariance w->S (m x m, m >= 3) into A and SD;
 * 1 if S is one-factor to ONE_FACTOR_TOL with every s_i^2 above
 * ONE_FACTOR_MIN_RESID S_ii. The loading of the pivot row j comes from a
 * triple (j, k, l): a_j^2 = S_jk S_jl / S_kl; then a_i = S_ij / a_j. */
static int
detect_one_factor (const sg_mvn_workspace *w, size_t m, double *a, double *sd)
{
  const double *S = w->S;
  for (size_t i = 0; i < m; i++)
    if (!(S[i * m + i] > 0))
      return 0;
  /* the pair (j, k) with the largest correlation */
  size_t j = 0, k = 1;
  double best = -1;
  for (size_t p = 0; p < m; p++)
    for (size_t q = p + 1; q < m; q++)
      {
        double c = fabs (S[p * m + q]) / sqrt (S[p * m + p] * S[q * m + q]);
        if (c > best)
          {
            best = c;
            j = p;
            k = q;
          }
      }
  if (best == 0)
    memset (a, 0, m * sizeof *a);   /* independent coordinates */
  else
    {
      size_t l = m;
      double lbest = 0;
      for (size_t q = 0; q < m; q++)
        if (q != j && q != k)
          {
            double c = fabs (S[k * m + q]) * fabs (S[j * m + q]);
            if (c > lbest)
              {
                lbest = c;
                l = q;
              }
          }
      if (l == m)
        return 0;   /* k and j correlated with nothing else: not one factor */
      double aj2 = S[j * m + k] * S[j * m + l] / S[k * m + l];
      if (!(aj2 > 0) || !isfinite (aj2))
        return 0;
      double aj = sqrt (aj2);
      for (size_t i = 0; i < m; i++)
        a[i] = i == j ? aj : S[i * m + j] / aj;
    }
  for (size_t i = 0; i < m; i++)
    {
      double r = S[i * m + i] - a[i] * a[i];
      if (fabs (r) <= VAR_FLOOR * S[i * m + i])
        sd[i] = 0;   /* X_i = a_i z: an interval for the factor */
      else if (r >= ONE_FACTOR_MIN_RESID * S[i * m + i])
        sd[i] = sqrt (r);
      else
        return 0;
      for (size_t q = 0; q < i; q++)
        if (fabs (S[i * m + q] - a[i] * a[q])
            > ONE_FACTOR_TOL * sqrt (S[i * m + i] * S[q * m + q]))
          return 0;
    }
  return 1;
}

/* The peak of the concave log integrand G by golden-section search on
 * [-40, 40] (the factor's density is below e^-800 outside), then the
 * points left and right where G has dropped by ONE_FACTOR_DROP. */
static void
one_factor_support (const log_integrand *g, double zlo, double zhi, double *peak_z,
                    double *peak, double *za, double *zb)
{
  const double phi = 0.6180339887498949;
  double a = fmax (-40, zlo), b = fmin (40, zhi);
  if (!(a < b))   /* the range lies in the far tail of the factor */
    {
      a = zlo > -INFINITY ? zlo : zhi - 1;
      b = zhi < INFINITY ? zhi : zlo + 1;
    }
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double f1 = g->log_f (g->ctx, x1), f2 = g->log_f (g->ctx, x2);
  for (int it = 0; it < 80 && b - a > 1e-9; it++)
    {
      if (f1 < f2)
        {
          a = x1;
          x1 = x2;
          f1 = f2;
          x2 = a + phi * (b - a);
          f2 = g->log_f (g->ctx, x2);
        }
      else
        {
          b = x2;
          x2 = x1;
          f2 = f1;
          x1 = b - phi * (b - a);
          f1 = g->log_f (g->ctx, x1);
        }
    }
  double zm = 0.5 * (a + b), gm = g->log_f (g->ctx, zm);
  *peak_z = zm;
  *peak = gm;
  /* step out by doubling until below the drop (concavity: stays below) */
  for (int side = 0; side < 2; side++)
    {
      double dir = side == 0 ? -1 : 1, step = 0.25, z = zm;
      double end = side == 0 ? zlo : zhi;
      while (step < 80 && fabs (end - zm) > step
             && g->log_f (g->ctx, zm + dir * step) > gm - ONE_FACTOR_DROP)
        step *= 2;
      z = fabs (end - zm) > step ? zm + dir * step : end;
      if (side == 0)
        *za = z;
      else
        *zb = z;
    }
}

/* P(lo < X < up) for the one-factor w->S with loadings A and residual
 * sds SD, by 1-D adaptive quadrature in log space. */
static void
one_factor_prob (const sg_mvn_workspace *w, size_t m, const double *a,
                 const double *sd, sg_mvn_result *res)
{
  int independent = 1;
  for (size_t i = 0; i < m; i++)
    independent &= a[i] == 0;
  if (independent)
    {
      double lp = 0;
      for (size_t i = 0; i < m; i++)
        lp += sg_norm_logdiff (w->lo[i] / sd[i], w->up[i] / sd[i]);
      set_exact (res, lp);
      return;
    }
  /* coordinates with no residual (X_i = a_i z) restrict z to an interval */
  double zlo = -INFINITY, zhi = INFINITY;
  for (size_t i = 0; i < m; i++)
    if (sd[i] == 0)
      {
        double p = w->lo[i] / a[i], q = w->up[i] / a[i];
        zlo = fmax (zlo, a[i] > 0 ? p : q);
        zhi = fmin (zhi, a[i] > 0 ? q : p);
      }
  one_factor f = { m, a, sd, w->lo, w->up };
  log_integrand g = { one_factor_log_integrand, &f, 0 };
  double zm = 0, peak = -INFINITY, za = 0, zb = 0;
  if (zlo < zhi)
    one_factor_support (&g, zlo, zhi, &zm, &peak, &za, &zb);
  if (!isfinite (peak))
    {
      res->log_value = -INFINITY;
      res->value = 0;
      res->log_error = res->error = 0;
    }
  else
    {
      g.shift = peak;
      /* the log integrand is a sum of m terms with round-off ~eps |peak|:
       * asking the quadrature for less than that only bisects noise */
      double noise = 64 * DBL_EPSILON * (1 + fabs (peak)), total, terr;
      adaptive_gk15 (&g, za, zb, 1e-13 + noise, &total, &terr);
      res->log_value = peak + log (total);
      res->value = exp (res->log_value);
      /* quadrature error plus the round-off of the sum of m log terms
       * (each relative ~eps, all of one sign below the peak) */
      res->log_error = terr / total + 16 * DBL_EPSILON * (1 + fabs (peak));
      res->error = res->log_error * res->value;
    }
  res->n_points = 0;
  res->exact = 1;
}

/* ------------------------------------------------------------ entry point */


/* R times the probability of the blocks split off (split_small_blocks):
 * LOG_SPLIT added to its log, SPLIT_ERR to its relative error. */
static void
times_split_blocks (sg_mvn_result *r, int split, double log_split, double split_err)
{
  if (!split)
    return;
  double rel = r->value > 0 ? r->error / r->value : r->log_error;
  r->log_value += log_split;
  r->value = exp (r->log_value);
  r->log_error = rel + split_err;
  r->error = r->log_error * r->value;
}

/* Copies R into RES unless it is not a probability: a NaN or +inf log, a
 * value off [0, 1] beyond its error, or (BEYOND_REACH: a bound was taken
 * as infinite) a finite log below LOG_BEYOND_REACH, where the bound's
 * own probability is no longer negligible. An exact zero has value 0 and
 * log -inf on every path. */
static sg_status
finish_result (sg_mvn_result *r, int beyond_reach, sg_mvn_result *res)
{
  if (isnan (r->log_value) || r->log_value == INFINITY || isnan (r->value)
      || isnan (r->error) || isnan (r->log_error))
    return SG_ENUMERIC;
  if (beyond_reach && r->log_value > -INFINITY && r->log_value < LOG_BEYOND_REACH)
    return SG_ENUMERIC;   /* (an exact zero stays one: the set only grew) */
  if (r->log_value == -INFINITY)
    {
      r->value = 0;
      r->error = r->log_error = 0;
    }
  *res = *r;
  return SG_OK;
}

sg_status
sg_mvn_prob (sg_mvn_workspace *w, size_t d, const double *mean,
             const double *cov, const double *lower, const double *upper,
             const sg_mvn_options *opt_in, const sg_progress *progress,
             sg_mvn_result *res)
{
  sg_mvn_options opt;
  if (opt_in != NULL)
    opt = *opt_in;
  else
    sg_mvn_options_default (&opt);
  if (w == NULL || res == NULL || d == 0 || d > w->d_max || cov == NULL
      || opt.n_points == 0 || opt.n_shifts < 2 || !(opt.rel_tol >= 0)
      || (opt.method != SG_MVN_TILTED && opt.method != SG_MVN_GENZ))
    return SG_EINVAL;

  size_t m;
  int zero, beyond_reach;
  int status = extract_problem (w, d, mean, cov, lower, upper, &m, &zero, &beyond_reach);
  if (status == SG_OK)
    status = reduce_degenerate (w, &m, &zero);
  if (status != SG_OK)
    return status;
  sg_mvn_result r = { 0 };
  double log_split = 0, split_err = 0;
  size_t m_before_split = m;
  if (!zero && m >= 3 && !opt.qmc_only)
    split_small_blocks (w, &m, &log_split, &split_err);
  if (!zero && m >= 3 && !opt.qmc_only && detect_one_factor (w, m, w->mu, w->x))
    {
      /* PSD by construction; no order, no points */
      one_factor_prob (w, m, w->mu, w->x, &r);
      times_split_blocks (&r, m < m_before_split, log_split, split_err);
      return finish_result (&r, beyond_reach, res);
    }
  /* the latent-factor split: not inside optimisers (deterministic,
   * keep_order), whose objective would jump where the split switches */
  int may_split = !zero && m >= FACTOR_MIN_DIM && opt.method == SG_MVN_TILTED
                  && !opt.deterministic && !opt.keep_order && !opt.plain_sov;
  if (may_split)
    {
      memcpy (w->S0, w->S, m * m * sizeof *w->S);
      memcpy (w->lo0, w->lo, m * sizeof *w->lo);
      memcpy (w->up0, w->up, m * sizeof *w->up);
    }
  w->nf = 0;
  double S2[4], lo2[2], up2[2];   /* the bivariate problem before ordering and scaling */
  if (m == 2)
    {
      memcpy (S2, w->S, sizeof S2);
      memcpy (lo2, w->lo, sizeof lo2);
      memcpy (up2, w->up, sizeof up2);
    }
  status = prepare_factor (w, m, d, opt.keep_order, 1);   /* also the PSD check */
  if (status != SG_OK)
    return status;
  if (zero)
    set_exact (&r, -INFINITY);
  else if (m == 0)
    set_exact (&r, 0);
  else if (m == 1)
    set_exact (&r, sg_norm_logdiff (w->lo[0], w->up[0]));
  else if (m == 2)
    bvn_prob (S2, lo2, up2, &r);
  else
    {
      if (opt.method == SG_MVN_TILTED)
        solve_tilting (w, m);
      else
        memset (w->mu, 0, m * sizeof *w->mu);
      uint64_t stream = opt.deterministic ? 0 : w->calls;
      size_t nf = may_split ? factor_split (w, m) : 0, pilot = 0;
      size_t n_pilot = opt.n_points / opt.n_shifts;
      if (n_pilot < PILOT_MIN_POINTS)
        n_pilot = PILOT_MIN_POINTS;
      if (nf > 0 && factor_pilot (w, m, nf, n_pilot, opt.seed, stream, &pilot)
          && prepare_split (w, m, d, nf) != SG_OK)
        prepare_plain (w, m, d);
      status = qmc_estimate (w, m + w->nf, &opt, progress, stream, &r);
      w->nf = 0;
      if (status != SG_OK)
        return status;
      r.n_points += pilot;
      if (!opt.deterministic)
        w->calls++;
    }
  times_split_blocks (&r, m < m_before_split, log_split, split_err);
  return finish_result (&r, beyond_reach, res);
}
