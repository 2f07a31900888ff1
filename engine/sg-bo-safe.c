/* sg-bo-safe.c — safe mode's SafeOpt rule (sg-bo.h, "Safe mode"): the
 * hyperparameters the model may use, the safe set, maximisers and
 * expanders (Sui, Gotovos, Burdick and Krause, "Safe exploration for
 * optimization with Gaussian processes", ICML 2015, sec. 3; Berkenkamp,
 * Krause and Schoellig, "Bayesian optimization with safety constraints:
 * safe and automatic parameter tuning in robotics", Machine Learning
 * 2023, sec. 3-4) on the exact SkewGP posterior of paper 001 eq. 40. */
#include "sg-bo-private.h"

#include "sg-normal.h"
#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Candidates drawn around the measured safe settings, and the extra
 * ones drawn around the chosen point to refine it. */
#define SAFE_LOCAL 512
#define SAFE_REFINE 48
/* Points scored per model call (the block's means are SAFE_BLOCK x N). */
#define SAFE_BLOCK 64
/* The unsafe candidates an expander test conditions on: the nearest. */
#define SAFE_NEIGHBOURS 48
/* How far from a measured safe setting a proposal may lie: one
 * lengthscale (in the metric of the model's lengthscales). */
#define SAFE_STEP 1.0
/* Half the 95 % quantile of chi-square(1): the log-evidence drop that
 * bounds the profile-likelihood interval of a lengthscale. */
#define SAFE_PROFILE_DROP 1.92
/* Bisection steps of that interval's end (a factor 2^-7 of its log). */
#define SAFE_PROFILE_STEPS 7

int
_sg_bo_safe_rule_on (const sg_bo *bo)
{
  return bo->cfg.mode == SG_BO_SAFE && bo->cfg.safe_rule == SG_BO_SAFE_SAFEOPT
         && bo->cfg.surrogate != SG_BO_SURROGATE_RANDOM
         && bo->cfg.surrogate != SG_BO_SURROGATE_TWO_GP;
}

/* ---- The hyperparameters the model may use ---------------------------------- */

/* Observation I holds a measured value (valid, or below the threshold). */
static int
has_value (const sg_obs *o)
{
  return o->kind == SG_OBS_VALID || o->kind == SG_OBS_NUMERIC;
}

/* The lengthscale the model assumes along J before the data say more,
 * the floor of its fits and of its caps: the refit's smallest
 * (config.refit_lengthscale_min of the range, 5 % by default), and for an
 * integer coordinate at least 2 (a step of one is then correlated
 * exp(-1/8) = 0.88, enough to judge a neighbour safe once the settings
 * around it are measured; with a short lengthscale no neighbour ever
 * could be, and the coordinate would never move). */
static double
default_lengthscale (const sg_bo *bo, size_t j)
{
  double l = bo->cfg.refit_lengthscale_min * (bo->cfg.upper[j] - bo->cfg.lower[j]);
  return bo->cfg.kind[j] == SG_DIM_INTEGER ? fmax (l, 2.0) : l;
}

/* The spread of the measured settings along J: the longest distance
 * between two of them (the shorter way round a periodic coordinate). */
static double
data_spread (const sg_bo *bo, size_t j)
{
  const sg_bo_config *c = &bo->cfg;
  const sg_data *d = &bo->data;
  double s = 0;
  for (size_t a = 0; a < d->n_inputs; a++)
    for (size_t b = a + 1; b < d->n_inputs; b++)
      s = fmax (s, sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j],
                                    d->X[a * c->dim + j], d->X[b * c->dim + j]));
  return s;
}

double
_sg_bo_safe_lengthscale_cap (const sg_bo *bo, size_t j)
{
  if (bo->cfg.kind[j] == SG_DIM_CATEGORICAL)
    return INFINITY;  /* levels are 0 or 1 apart: nothing to extrapolate */
  return fmax (default_lengthscale (bo, j), data_spread (bo, j));
}

double
_sg_bo_safe_variance_floor (const sg_bo *bo)
{
  const sg_data *d = &bo->data;
  double v = 0;
  for (size_t i = 0; i < d->n_obs; i++)
    if (has_value (&d->obs[i]))
      v = fmax (v, (d->obs[i].y - bo->cfg.threshold) * (d->obs[i].y - bo->cfg.threshold));
  return v;
}

void
_sg_bo_safe_model_hyper (const sg_bo *bo, sg_hyper *h, sg_bo_safe_info *info)
{
  const sg_bo_config *c = &bo->cfg;
  double floor = _sg_bo_safe_variance_floor (bo);
  info->adjusted = 0;
  memset (info->capped, 0, sizeof info->capped);
  /* far from every measurement f returns to its prior mean: at h, the
   * model can say neither safe nor unsafe there (P = 1/2) */
  if (h->mean != c->threshold)
    info->adjusted |= SG_BO_SAFE_MEAN_AT_THRESHOLD;
  h->mean = c->threshold;
  /* f may fall from any measured value to h: its prior sd reaches the
   * largest distance of a measured value from h */
  if (h->kernel.variance < floor)
    {
      h->kernel.variance = floor;
      info->adjusted |= SG_BO_SAFE_VARIANCE_RAISED;
    }
  info->variance_floor = floor;
  for (size_t j = 0; j < c->dim; j++)
    {
      double cap = _sg_bo_safe_lengthscale_cap (bo, j);
      info->lengthscale_cap[j] = cap;
      if (h->kernel.lengthscales[j] > cap)
        {
          h->kernel.lengthscales[j] = cap;
          info->capped[j] = 1;
        }
      if (c->kind[j] == SG_DIM_INTEGER)  /* a step of one stays in reach */
        h->kernel.lengthscales[j] = fmax (h->kernel.lengthscales[j], 2.0);
    }
  info->mean = h->mean;
  info->variance = h->kernel.variance;
  memcpy (info->lengthscales, h->kernel.lengthscales, c->dim * sizeof (double));
}

/* ---- The refit: bounds, and the conservative end of a poor fit ------------- */

void
_sg_bo_safe_fit_spec (const sg_bo *bo, sg_fit_spec *spec, sg_hyper *h)
{
  const sg_bo_config *c = &bo->cfg;
  double floor = _sg_bo_safe_variance_floor (bo);
  spec->free &= ~(unsigned) SG_FIT_MEAN;
  h->mean = c->threshold;
  if (floor > 0)
    {
      spec->variance.lower = floor;
      spec->variance.upper = fmax (spec->variance.upper, 100 * floor);
      h->kernel.variance = fmax (h->kernel.variance, floor);
    }
  for (size_t j = 0; j < c->dim; j++)
    {
      double cap = _sg_bo_safe_lengthscale_cap (bo, j);
      if (isfinite (cap))
        {
          spec->lengthscale[j].upper = cap;
          spec->lengthscale[j].lower = fmin (default_lengthscale (bo, j), 0.5 * cap);
        }
      h->kernel.lengthscales[j] = fmin (fmax (h->kernel.lengthscales[j],
                                              spec->lengthscale[j].lower),
                                        spec->lengthscale[j].upper);
    }
}

/* The log evidence of H with lengthscale J set to L (H as it was after). */
static int
evidence_with (sg_evidence_fn eval, void *ctx, sg_hyper *h, size_t j, double l, double *value)
{
  double keep = h->kernel.lengthscales[j];
  h->kernel.lengthscales[j] = l;
  int status = eval (h, ctx, value, NULL);
  h->kernel.lengthscales[j] = keep;
  return status;
}

int
_sg_bo_safe_profile (sg_bo *bo, sg_evidence_fn eval, void *ctx, double best_log_evidence,
                     const sg_progress *progress, sg_hyper *h)
{
  const sg_bo_config *c = &bo->cfg;
  sg_bo_safe_fit *fit = &bo->safe_fit;
  double chosen[SG_BO_MAX_DIM];
  memset (fit, 0, sizeof *fit);
  fit->log_evidence = best_log_evidence;
  for (size_t j = 0; j < c->dim; j++)
    {
      double lhat = h->kernel.lengthscales[j], l0 = default_lengthscale (bo, j), v;
      fit->fitted[j] = chosen[j] = lhat;
      if (c->kind[j] == SG_DIM_CATEGORICAL || !(lhat > 1.01 * l0))
        continue;  /* as short as the assumption, or shorter: the data say so */
      int status = sg_progress_report (progress, (double) j / (double) c->dim);
      if (status == SG_OK)
        status = evidence_with (eval, ctx, h, j, l0, &v);
      if (status != SG_OK)
        return status;
      double lo = l0, hi = lhat;  /* the interval's end lies in [lo, hi] */
      if (v < best_log_evidence - SAFE_PROFILE_DROP)
        for (int k = 0; k < SAFE_PROFILE_STEPS; k++)
          {
            double mid = sqrt (lo * hi);
            status = evidence_with (eval, ctx, h, j, mid, &v);
            if (status != SG_OK)
              return status;
            if (v >= best_log_evidence - SAFE_PROFILE_DROP)
              hi = mid;
            else
              lo = mid;
          }
      else
        hi = l0;
      /* the shortest lengthscale the evidence does not reject at 95 %, the
       * others held at the fit */
      chosen[j] = hi;
      fit->shortened[j] = hi < lhat;
    }
  memcpy (h->kernel.lengthscales, chosen, c->dim * sizeof *chosen);
  fit->valid = 1;
  return SG_OK;
}

/* ---- The safety function and the objective at points ---------------------- */

/* What the rule reads off the model at one point. */
typedef struct {
  double p_safe;       /* P(s(x) >= threshold of s)                         */
  double lower, upper; /* the LEVEL HPD interval of the objective f(x)      */
} safe_score;

/* The model at B points as a mixture: f(x) is the equal mixture over K
 * components N(M[i K + k], V[i]), K the SkewGP's latent samples (1 for
 * the Laplace and EP Gaussians), C (b x b, when asked) the components'
 * common covariance. */
static size_t
n_components (const sg_bo *bo)
{
  return bo->post != NULL ? sg_skewgp_samples_count (bo->samples) : 1;
}

static int
safety_at (const sg_bo *bo, const double *X, size_t b, double *M, double *V, double *C)
{
  if (bo->post != NULL)
    return sg_skewgp_conditional_all (bo->post, bo->samples, X, b, M, V, C);
  if (!bo->has_gpost)
    return SG_EINVAL;
  if (C == NULL)
    return sg_gauss_post_predict (&bo->gpost, X, b, M, V);
  int status = sg_gauss_post_joint (&bo->gpost, X, b, M, C);
  for (size_t i = 0; status == SG_OK && i < b; i++)
    V[i] = fmax (C[i * b + i], 0);
  return status;
}

/* P(s >= t) of a mixture of K Gaussians N(M_k, v). */
static double
mixture_above (const double *M, size_t K, double v, double t)
{
  double acc = 0;
  if (v > 1e-300)
    {
      double inv = 1 / sqrt (v);
      for (size_t k = 0; k < K; k++)
        acc += sg_norm_cdf ((M[k] - t) * inv);
    }
  else
    for (size_t k = 0; k < K; k++)
      acc += M[k] >= t;
  return acc / (double) K;
}

typedef struct {
  const sg_bo *bo;
  double level;
  size_t K, N;        /* safety components; objective samples          */
  double *eps;        /* N common normal variates                     */
  double *M, *V;      /* SAFE_BLOCK x K, SAFE_BLOCK                    */
  double *F, *scratch;/* N, N                                          */
} scorer;

static void
scorer_clear (scorer *s)
{
  free (s->eps); free (s->M); free (s->V); free (s->F); free (s->scratch);
}

static int
scorer_init (scorer *s, const sg_bo *bo, unsigned long seed)
{
  memset (s, 0, sizeof *s);
  s->bo = bo;
  s->level = bo->cfg.safe_probability;
  s->K = n_components (bo);
  s->N = bo->cfg.n_samples;
  s->eps = malloc (s->N * sizeof *s->eps);
  s->M = malloc (SAFE_BLOCK * s->K * sizeof *s->M);
  s->V = malloc (SAFE_BLOCK * sizeof *s->V);
  s->F = malloc (s->N * sizeof *s->F);
  s->scratch = malloc (s->N * sizeof *s->scratch);
  if (!s->eps || !s->M || !s->V || !s->F || !s->scratch)
    return SG_ENOMEM;
  gsl_rng *crn = sg_rng_new (seed, 0x5afe);
  if (crn == NULL)
    return SG_ENOMEM;
  for (size_t j = 0; j < s->N; j++)
    s->eps[j] = sg_rng_gaussian (crn);
  sg_rng_free (crn);
  return SG_OK;
}

/* N samples of f at point I of the block: its components with the
 * remainder, from the common normal variates. */
static void
objective_samples (scorer *s, size_t i)
{
  double sd = sqrt (s->V[i]);
  for (size_t j = 0; j < s->N; j++)
    s->F[j] = s->M[i * s->K + j % s->K] + sd * s->eps[j];
}

/* Scores of the N points X into OUT. */
static int
score_points (scorer *s, const double *X, size_t n, safe_score *out)
{
  const sg_bo *bo = s->bo;
  size_t dim = bo->cfg.dim;
  for (size_t b0 = 0; b0 < n; b0 += SAFE_BLOCK)
    {
      size_t bb = n - b0 < SAFE_BLOCK ? n - b0 : SAFE_BLOCK;
      int status = safety_at (bo, X + b0 * dim, bb, s->M, s->V, NULL);
      if (status != SG_OK)
        return status;
      for (size_t i = 0; i < bb; i++)
        {
          safe_score *o = &out[b0 + i];
          o->p_safe = mixture_above (s->M + i * s->K, s->K, s->V[i], bo->cfg.threshold);
          objective_samples (s, i);
          o->upper = sg_acq_hpd (s->F, s->N, s->level, s->scratch, &o->lower);
        }
    }
  return SG_OK;
}

/* ---- Geometry: steps, repeats, failures ------------------------------------ */

/* The distance of X from Y in lengthscales of the model (Euclidean over
 * the coordinates, each along its kind). */
static double
scaled_distance (const sg_bo *bo, const double *x, const double *y)
{
  const sg_bo_config *c = &bo->cfg;
  double s = 0;
  for (size_t j = 0; j < c->dim; j++)
    {
      double d = sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j], x[j], y[j])
                 / bo->model_hyper.kernel.lengthscales[j];
      s += d * d;
    }
  return sqrt (s);
}

double
sg_bo_safe_resolution (const sg_bo_config *c, size_t j)
{
  switch (c->kind[j])
    {
    case SG_DIM_INTEGER:
      return fmax (c->resolution[j], 0.5);
    case SG_DIM_CATEGORICAL:
      return 0;
    default:
      return fmax (c->resolution[j], 0.005 * (c->upper[j] - c->lower[j]));
    }
}

/* X is within the safe mode's resolution of Y in every coordinate: the
 * same setting as far as it can be measured. */
static int
same_measured (const sg_bo_config *c, const double *x, const double *y)
{
  for (size_t j = 0; j < c->dim; j++)
    if (sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j], x[j], y[j])
        > sg_bo_safe_resolution (c, j))
      return 0;
  return 1;
}

/* The measured settings of the first N_OBS observations, as indices into
 * data->X: ALL of them, split into SAFE (a value at or above h) and BAD
 * (a failure, or a value below h). A setting measured both ways counts
 * by its last answer. */
typedef struct {
  size_t n_all, n_safe, n_bad;
  size_t *all, *safe, *bad;
} measured;

static int
measured_init (measured *m, const sg_bo *bo, size_t n_obs)
{
  const sg_data *d = &bo->data;
  m->n_all = m->n_safe = m->n_bad = 0;
  m->all = malloc ((d->n_inputs + 1) * sizeof *m->all);
  m->safe = malloc ((d->n_inputs + 1) * sizeof *m->safe);
  m->bad = malloc ((d->n_inputs + 1) * sizeof *m->bad);
  signed char *last = calloc (d->n_inputs + 1, 1);  /* 1 safe, -1 bad */
  if (m->all == NULL || m->safe == NULL || m->bad == NULL || last == NULL)
    {
      free (last);
      return SG_ENOMEM;
    }
  for (size_t i = 0; i < n_obs && i < d->n_obs; i++)
    {
      const sg_obs *o = &d->obs[i];
      if (o->kind == SG_OBS_VALID)
        last[o->a] = o->y >= bo->cfg.threshold ? 1 : -1;
      else if (o->kind == SG_OBS_INVALID || o->kind == SG_OBS_NUMERIC)
        last[o->a] = -1;
    }
  for (size_t i = 0; i < d->n_inputs; i++)
    {
      if (last[i] != 0)
        m->all[m->n_all++] = i;
      if (last[i] > 0)
        m->safe[m->n_safe++] = i;
      else if (last[i] < 0)
        m->bad[m->n_bad++] = i;
    }
  free (last);
  return SG_OK;
}

static void
measured_clear (measured *m)
{
  free (m->all);
  free (m->safe);
  free (m->bad);
}

/* ---- The search --------------------------------------------------------- */

enum {
  CAND_SAFE = 1 << 0,       /* in the safe set: may be proposed        */
  CAND_MAXIMISER = 1 << 1,
  CAND_EXPANDER = 1 << 2,
  CAND_TESTED = 1 << 3,     /* the expander test ran                    */
};

typedef struct {
  sg_bo *bo;
  measured meas;
  scorer sc;
  size_t n, cap;
  double *X;                /* cap x dim                                */
  safe_score *score;        /* cap                                      */
  unsigned char *flags;     /* cap                                      */
  double best_lower;        /* the largest lower bound of a safe setting */
  double width_floor;       /* widths below this teach nothing          */
  double widest_maximiser;  /* the width an expander has to beat         */
} search;

static void
search_clear (search *s)
{
  measured_clear (&s->meas);
  scorer_clear (&s->sc);
  free (s->X); free (s->score); free (s->flags);
}

static int
add_candidate (search *s, const double *x)
{
  if (s->n == s->cap)
    return 0;
  memcpy (s->X + s->n * s->bo->cfg.dim, x, s->bo->cfg.dim * sizeof *x);
  s->n++;
  return 1;
}

/* A point around SEED: a uniform direction, a radius uniform in the ball
 * of RADIUS lengthscales, then clipped into the box and moved onto a
 * setting (integers rounded, periodic coordinates wrapped; a categorical
 * coordinate takes a random other level with probability 1/3). */
static void
draw_around (const sg_bo *bo, gsl_rng *rng, const double *seed, double radius, double *x)
{
  const sg_bo_config *c = &bo->cfg;
  double u[SG_BO_MAX_DIM], norm = 0;
  size_t n_cont = 0;
  for (size_t j = 0; j < c->dim; j++)
    if (c->kind[j] != SG_DIM_CATEGORICAL)
      {
        u[j] = sg_rng_gaussian (rng);
        norm += u[j] * u[j];
        n_cont++;
      }
  double r = radius * pow (gsl_rng_uniform (rng), 1.0 / (double) (n_cont ? n_cont : 1));
  norm = norm > 0 ? sqrt (norm) : 1;
  for (size_t j = 0; j < c->dim; j++)
    {
      if (c->kind[j] == SG_DIM_CATEGORICAL)
        {
          double levels = c->upper[j] - c->lower[j] + 1;
          x[j] = gsl_rng_uniform (rng) < 1.0 / 3 ? c->lower[j] + floor (gsl_rng_uniform (rng) * levels)
                                                 : seed[j];
          continue;
        }
      x[j] = seed[j] + r * u[j] / norm * bo->model_hyper.kernel.lengthscales[j];
      if (c->kind[j] != SG_DIM_PERIODIC)
        x[j] = fmin (fmax (x[j], c->lower[j]), c->upper[j]);
    }
  _sg_bo_snap_point (c, x);
}

/* Steps along one coordinate from SEED: +- a quarter and a half
 * lengthscale, and +- 1 for an integer one. */
static void
axis_steps (search *s, const double *seed)
{
  const sg_bo_config *c = &s->bo->cfg;
  static const double frac[] = { 0.25, 0.5 };
  double x[SG_BO_MAX_DIM];
  for (size_t j = 0; j < c->dim; j++)
    {
      if (c->kind[j] == SG_DIM_CATEGORICAL)
        continue;
      for (int sign = -1; sign <= 1; sign += 2)
        for (size_t f = 0; f < 3; f++)
          {
            memcpy (x, seed, c->dim * sizeof *x);
            double step = f < 2 ? frac[f] * s->bo->model_hyper.kernel.lengthscales[j]
                                : (c->kind[j] == SG_DIM_INTEGER ? 1 : 0);
            if (step == 0)
              continue;
            x[j] += sign * step;
            if (c->kind[j] != SG_DIM_PERIODIC && (x[j] < c->lower[j] || x[j] > c->upper[j]))
              continue;
            _sg_bo_snap_point (c, x);
            add_candidate (s, x);
          }
    }
}

/* The candidates: steps along each axis and SAFE_LOCAL points in balls of
 * SAFE_STEP lengthscales around the measured safe settings; with a
 * candidate set, its rows. */
static void
draw_candidates (search *s, gsl_rng *rng)
{
  const sg_bo *bo = s->bo;
  size_t dim = bo->cfg.dim, ns = s->meas.n_safe;
  if (bo->cfg.n_candidates > 0)
    {
      /* a candidate set: its rows are the settings there are */
      for (size_t i = 0; i < bo->cfg.n_candidates; i++)
        add_candidate (s, bo->cfg.candidates + i * dim);
      return;
    }
  for (size_t i = 0; i < ns; i++)
    axis_steps (s, bo->data.X + s->meas.safe[i] * dim);
  double x[SG_BO_MAX_DIM];
  for (size_t k = 0; k < SAFE_LOCAL; k++)
    {
      const double *seed = bo->data.X + s->meas.safe[k % ns] * dim;
      draw_around (bo, rng, seed, SAFE_STEP, x);
      add_candidate (s, x);
    }
}

/* X may be proposed as far as geometry goes: within SAFE_STEP of a
 * measured safe setting, farther than the resolution from every measured
 * setting, and not a failed setting (within the resolution of one) while
 * the model still says that one is unsafe at the level (BAD_SAFE[i]). */
static int
allowed (const search *s, const double *x, const unsigned char *bad_safe)
{
  const sg_bo *bo = s->bo;
  const sg_data *d = &bo->data;
  size_t dim = bo->cfg.dim;
  int near_safe = 0;
  for (size_t i = 0; i < s->meas.n_all; i++)
    if (same_measured (&bo->cfg, x, d->X + s->meas.all[i] * dim))
      return 0;
  for (size_t i = 0; i < s->meas.n_bad; i++)
    if (!bad_safe[i] && same_measured (&bo->cfg, x, d->X + s->meas.bad[i] * dim))
      return 0;
  for (size_t i = 0; i < s->meas.n_safe && !near_safe; i++)
    near_safe = scaled_distance (bo, x, d->X + s->meas.safe[i] * dim) <= SAFE_STEP * (1 + 1e-9);
  return near_safe;
}

/* Whether a measurement of the objective at candidate C as high as its
 * upper bound would make one of the unsafe candidates near it safe at
 * the level (SafeOpt's expander test, Sui et al. 2015 sec. 3). The model
 * is updated as a Gaussian given each latent component (the components'
 * weights held fixed), with the measurement's noise: for a neighbour z,
 *   m'(z) = m(z) + C(z, x) (y - m(x)) / (V(x) + noise),
 *   V'(z) = V(z) - C(z, x)^2 / (V(x) + noise),
 * y the upper bound of the safety function at x. */
static int
is_expander (search *s, size_t c, int *yes)
{
  const sg_bo *bo = s->bo;
  size_t dim = bo->cfg.dim, K = s->sc.K;
  double level = bo->cfg.safe_probability, t = bo->cfg.threshold;
  /* the nearest unsafe candidates */
  size_t idx[SAFE_NEIGHBOURS], m = 0;
  double dist[SAFE_NEIGHBOURS];
  for (size_t i = 0; i < s->n; i++)
    {
      if (s->flags[i] & CAND_SAFE || s->score[i].p_safe >= level)
        continue;
      double dd = scaled_distance (bo, s->X + i * dim, s->X + c * dim);
      if (dd > 2 * SAFE_STEP)
        continue;
      size_t pos = m < SAFE_NEIGHBOURS ? m++ : SAFE_NEIGHBOURS;
      if (pos == SAFE_NEIGHBOURS && dd >= dist[SAFE_NEIGHBOURS - 1])
        continue;
      if (pos == SAFE_NEIGHBOURS)
        pos--;
      while (pos > 0 && dist[pos - 1] > dd)
        {
          dist[pos] = dist[pos - 1];
          idx[pos] = idx[pos - 1];
          pos--;
        }
      dist[pos] = dd;
      idx[pos] = i;
    }
  *yes = 0;
  if (m == 0)
    return SG_OK;
  size_t b = m + 1;
  double *X = malloc (b * dim * sizeof *X), *M = malloc (b * K * sizeof *M);
  double *V = malloc (b * sizeof *V), *C = malloc (b * b * sizeof *C);
  int status = X && M && V && C ? SG_OK : SG_ENOMEM;
  for (size_t i = 0; status == SG_OK && i < m; i++)
    memcpy (X + i * dim, s->X + idx[i] * dim, dim * sizeof *X);
  if (status == SG_OK)
    {
      memcpy (X + m * dim, s->X + c * dim, dim * sizeof *X);
      status = safety_at (bo, X, b, M, V, C);
    }
  if (status == SG_OK)
    {
      /* a measurement as high as x's upper bound, with its noise */
      const double *Mx = M + m * K;
      double y = s->score[c].upper, sn = bo->model_hyper.noise.numeric_sd;
      double denom = V[m] + sn * sn;
      double *Mz = malloc (K * sizeof *Mz);
      if (Mz == NULL)
        status = SG_ENOMEM;
      for (size_t i = 0; status == SG_OK && i < m && !*yes; i++)
        {
          double cz = C[i * b + m], g = denom > 0 ? cz / denom : 0;
          for (size_t k = 0; k < K; k++)
            Mz[k] = M[i * K + k] + g * (y - Mx[k]);
          *yes = mixture_above (Mz, K, fmax (V[i] - cz * g, 0), t) >= level;
        }
      free (Mz);
    }
  free (X); free (M); free (V); free (C);
  return status;
}

static double
width_of (const search *s, size_t i)
{
  return s->score[i].upper - s->score[i].lower;
}

/* Marks the safe set, the maximisers and (widest first, until one is
 * found, as SafeOpt's search does) an expander among candidates FROM ..
 * n; returns the index of the widest maximiser or expander, or SIZE_MAX. */
static int
classify (search *s, size_t from, const unsigned char *bad_safe, size_t *choice)
{
  const sg_bo *bo = s->bo;
  size_t dim = bo->cfg.dim;
  double level = bo->cfg.safe_probability;
  for (size_t i = from; i < s->n; i++)
    {
      s->flags[i] = 0;
      if (s->score[i].p_safe >= level && allowed (s, s->X + i * dim, bad_safe))
        s->flags[i] |= CAND_SAFE;
    }
  for (size_t i = 0; i < s->n; i++)
    if (s->flags[i] & CAND_SAFE)
      s->best_lower = fmax (s->best_lower, s->score[i].lower);
  size_t best = SIZE_MAX;
  double best_w = s->width_floor;
  for (size_t i = 0; i < s->n; i++)
    {
      s->flags[i] &= (unsigned char) ~CAND_MAXIMISER;
      if ((s->flags[i] & CAND_EXPANDER) && width_of (s, i) > best_w)
        best_w = width_of (s, i), best = i;
      if ((s->flags[i] & CAND_SAFE) && s->score[i].upper >= s->best_lower)
        {
          s->flags[i] |= CAND_MAXIMISER;
          if (width_of (s, i) > best_w)
            best_w = width_of (s, i), best = i;
        }
    }
  s->widest_maximiser = s->width_floor;
  for (size_t i = 0; i < s->n; i++)
    if (s->flags[i] & CAND_MAXIMISER)
      s->widest_maximiser = fmax (s->widest_maximiser, width_of (s, i));
  /* expanders wider than every maximiser, widest first */
  for (;;)
    {
      size_t e = SIZE_MAX;
      for (size_t i = 0; i < s->n; i++)
        if ((s->flags[i] & CAND_SAFE) && !(s->flags[i] & (CAND_MAXIMISER | CAND_TESTED))
            && width_of (s, i) > best_w && (e == SIZE_MAX || width_of (s, i) > width_of (s, e)))
          e = i;
      if (e == SIZE_MAX)
        break;
      int yes;
      int status = is_expander (s, e, &yes);
      if (status != SG_OK)
        return status;
      s->flags[e] |= CAND_TESTED;
      if (yes)
        {
          s->flags[e] |= CAND_EXPANDER;
          best = e;
          break;
        }
    }
  *choice = best;
  return SG_OK;
}

/* Points around the chosen candidate (a quarter of the step), scored and
 * classified with the rest: the proposal is the widest maximiser or
 * expander among all. */
static int
refine (search *s, gsl_rng *rng, const unsigned char *bad_safe, size_t *choice)
{
  size_t dim = s->bo->cfg.dim, from = s->n;
  double centre[SG_BO_MAX_DIM], x[SG_BO_MAX_DIM];
  memcpy (centre, s->X + *choice * dim, dim * sizeof *centre);
  for (size_t k = 0; k < SAFE_REFINE; k++)
    {
      draw_around (s->bo, rng, centre, 0.25 * SAFE_STEP, x);
      add_candidate (s, x);
    }
  int status = score_points (&s->sc, s->X + from * dim, s->n - from, s->score + from);
  if (status == SG_OK)
    status = classify (s, from, bad_safe, choice);
  return status;
}

/* The best measured safe setting's row of the data (x_r), or SIZE_MAX. */
static size_t
ref_row (const sg_bo *bo)
{
  const sg_data *d = &bo->data;
  for (size_t i = 0; bo->has_ref && i < d->n_inputs; i++)
    if (memcmp (d->X + i * bo->cfg.dim, bo->ref, bo->cfg.dim * sizeof *bo->ref) == 0)
      return i;
  return SIZE_MAX;
}

int
_sg_bo_safe_query (sg_bo *bo, gsl_rng *rng, const sg_progress *progress, sg_bo_query *q)
{
  search s;
  memset (&s, 0, sizeof s);
  s.bo = bo;
  s.best_lower = -INFINITY;
  const sg_bo_config *c = &bo->cfg;
  size_t dim = c->dim;
  sg_bo_safe_info *info = &bo->safe_info;
  int status = measured_init (&s.meas, bo, bo->data.n_obs);
  bo->safe_crn_seed = gsl_rng_get (rng);
  bo->safe_n_obs = bo->data.n_obs;
  if (status == SG_OK)
    status = scorer_init (&s.sc, bo, bo->safe_crn_seed);
  s.cap = c->n_candidates > 0 ? c->n_candidates
                              : s.meas.n_safe * 6 * dim + SAFE_LOCAL + SAFE_REFINE;
  s.X = malloc (s.cap * dim * sizeof *s.X);
  s.score = malloc (s.cap * sizeof *s.score);
  s.flags = calloc (s.cap, 1);
  unsigned char *bad_safe = calloc (s.meas.n_bad + 1, 1);
  if (status == SG_OK && (!s.X || !s.score || !s.flags || !bad_safe))
    status = SG_ENOMEM;
  /* a failed setting that the evidence has since moved past (the model
   * now says it is safe at the level) no longer bars its neighbourhood */
  for (size_t i = 0; status == SG_OK && i < s.meas.n_bad; i++)
    {
      safe_score sc;
      status = score_points (&s.sc, bo->data.X + s.meas.bad[i] * dim, 1, &sc);
      bad_safe[i] = sc.p_safe >= c->safe_probability;
    }
  /* the measured safe settings' lower bounds count for the maximisers */
  for (size_t i = 0; status == SG_OK && i < s.meas.n_safe; i++)
    {
      safe_score sc;
      status = score_points (&s.sc, bo->data.X + s.meas.safe[i] * dim, 1, &sc);
      s.best_lower = fmax (s.best_lower, sc.lower);
    }
  /* widths within the measurement noise teach nothing: a 95 % interval
   * narrower than +- 2 noise sds is as known as one more measurement can
   * make it */
  s.width_floor = 4 * bo->model_hyper.noise.numeric_sd;
  if (status == SG_OK)
    status = sg_progress_report (progress, 0.6);
  size_t choice = SIZE_MAX;
  if (status == SG_OK && s.meas.n_safe > 0)
    {
      draw_candidates (&s, rng);
      status = score_points (&s.sc, s.X, s.n, s.score);
      if (status == SG_OK)
        status = sg_progress_report (progress, 0.8);
      if (status == SG_OK)
        status = classify (&s, 0, bad_safe, &choice);
      if (status == SG_OK && choice != SIZE_MAX && c->n_candidates == 0)
        status = refine (&s, rng, bad_safe, &choice);
    }
  if (status == SG_OK)
    {
      info->n_candidates = s.n;
      info->n_safe = info->n_maximisers = info->n_expanders = 0;
      for (size_t i = 0; i < s.n; i++)
        {
          info->n_safe += (s.flags[i] & CAND_SAFE) != 0;
          info->n_maximisers += (s.flags[i] & CAND_MAXIMISER) != 0;
          info->n_expanders += (s.flags[i] & CAND_EXPANDER) != 0;
        }
      info->best_lower = s.best_lower;
      info->width_floor = s.width_floor;
      bo->safe_widest_maximiser = s.widest_maximiser;
      q->kind = SG_BO_QUERY_VALUE;
      if (choice == SIZE_MAX)
        {
          /* nothing new is safe enough, or nothing safe teaches anything:
           * the best measured safe setting stands */
          info->role = SG_BO_SAFE_ROLE_NONE;
          info->state = info->n_safe == 0 ? SG_BO_SAFE_NOTHING_SAFE : SG_BO_SAFE_KNOWN_ENOUGH;
          q->safe_exhausted = 1;
          size_t r = ref_row (bo);
          if (r != SIZE_MAX)
            {
              memcpy (q->x, bo->data.X + r * dim, dim * sizeof *q->x);
              safe_score sc;
              status = score_points (&s.sc, q->x, 1, &sc);
              q->prob_safe = sc.p_safe;
            }
          else if (s.meas.n_safe == 0)
            memcpy (q->x, c->has_safe_start ? c->safe_start : bo->data.X, dim * sizeof *q->x);
        }
      else
        {
          info->state = SG_BO_SAFE_GROWING;
          info->role = s.flags[choice] & CAND_EXPANDER ? SG_BO_SAFE_ROLE_EXPANDER
                                                       : SG_BO_SAFE_ROLE_MAXIMISER;
          memcpy (q->x, s.X + choice * dim, dim * sizeof *q->x);
          q->prob_safe = s.score[choice].p_safe;
          q->acquisition = width_of (&s, choice);
        }
      q->safe_role = info->role;
      if (bo->has_ref)
        memcpy (q->x_ref, bo->ref, dim * sizeof *q->x_ref);
      info->valid = status == SG_OK;
      info->level = c->safe_probability;
      memcpy (info->x, q->x, dim * sizeof *q->x);
      info->value = q->acquisition;
    }
  free (bad_safe);
  search_clear (&s);
  return status;
}

/* ---- The rule at any points (plots) ---------------------------------------- */

int
_sg_bo_safe_eval (const sg_bo *bo, const double *X, size_t n, double *p_safe, double *acq)
{
  search s;
  memset (&s, 0, sizeof s);
  s.bo = (sg_bo *) bo;
  s.n = s.cap = n;
  s.best_lower = bo->safe_info.best_lower;
  s.width_floor = bo->safe_info.width_floor;
  /* the answers as they were at the proposal */
  int status = measured_init (&s.meas, bo, bo->safe_n_obs);
  if (status == SG_OK)
    status = scorer_init (&s.sc, bo, bo->safe_crn_seed);
  s.X = malloc ((n + 1) * bo->cfg.dim * sizeof *s.X);
  s.score = malloc ((n + 1) * sizeof *s.score);
  s.flags = calloc (n + 1, 1);
  unsigned char *bad_safe = calloc (s.meas.n_bad + 1, 1);
  if (status == SG_OK && (!s.X || !s.score || !s.flags || !bad_safe))
    status = SG_ENOMEM;
  if (status == SG_OK)
    {
      memcpy (s.X, X, n * bo->cfg.dim * sizeof *X);
      status = score_points (&s.sc, s.X, n, s.score);
    }
  for (size_t i = 0; status == SG_OK && acq && i < s.meas.n_bad; i++)
    {
      safe_score sc;
      status = score_points (&s.sc, bo->data.X + s.meas.bad[i] * bo->cfg.dim, 1, &sc);
      bad_safe[i] = sc.p_safe >= bo->cfg.safe_probability;
    }
  for (size_t i = 0; status == SG_OK && i < n; i++)
    {
      if (p_safe)
        p_safe[i] = s.score[i].p_safe;
      if (!acq)
        continue;
      /* as the proposal judged: the width at a maximiser of its safe set,
       * or at an expander wider than its widest maximiser */
      acq[i] = -INFINITY;
      if (!(s.score[i].p_safe >= bo->cfg.safe_probability)
          || !allowed (&s, s.X + i * bo->cfg.dim, bad_safe))
        continue;
      s.flags[i] |= CAND_SAFE;
      int yes = s.score[i].upper >= s.best_lower && width_of (&s, i) > s.width_floor;
      if (!yes && width_of (&s, i) > bo->safe_widest_maximiser)
        status = is_expander (&s, i, &yes);
      if (yes)
        acq[i] = width_of (&s, i);
    }
  free (bad_safe);
  search_clear (&s);
  return status;
}
