/* sg-bo-acquisition.c — the next question from the model: acquisitions
 * evaluated on joint posterior samples with common random numbers,
 * maximised over the box or a candidate set (see sg-bo.h). */
#include "sg-bo-private.h"

#include "sg-linalg.h"
#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Acquisition on joint samples -------------------------------------------- */

typedef struct {
  const sg_bo *bo;
  sg_bo_acq_target target;
  size_t N, b;          /* samples; points per evaluation: x alone, x
                           and x_r, or qEUBO's fixed options and x   */
  double XX[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  double *F;            /* b x N joint samples                      */
  double *h;            /* N: f(x) - f(x_r)                          */
  double *scratch;      /* N                                         */
  double *Z;            /* SG_BO_MAX_OPTIONS x N common normal variates
                           (Gaussian surrogates)                     */
  size_t n_fixed;       /* qEUBO: options already chosen (fixed)     */
  double fixed[(SG_BO_MAX_OPTIONS - 1) * SG_BO_MAX_DIM];
  size_t sample;        /* hallucination believer: the sample of t   */
  double eta;           /* and the believer's mean at x_r (EI's bar) */
  gsl_rng *crn;         /* common random numbers (SkewGP remainder) */
  unsigned long crn_seed;
  int has_ref;          /* x_r of the proposal                       */
  double ref[SG_BO_MAX_DIM];
  double min_sep[SG_BO_MAX_DIM];  /* a duel needs |x - x_r| above this */
  int status;           /* first failure inside an evaluation        */
} acq_ctx;

/* F = joint samples of f at XX (b points), with the same normal variates
 * at every call. */
static int
joint_samples (acq_ctx *a)
{
  const sg_bo *bo = a->bo;
  size_t N = a->N, b = a->b;
  if (bo->post != NULL)
    {
      gsl_rng_set (a->crn, a->crn_seed);
      return sg_skewgp_joint_samples (bo->post, bo->samples, a->XX, b, a->crn, a->F);
    }
  enum { B = SG_BO_MAX_OPTIONS };
  double mean[B], cov[B * B], L[B * B];
  int status = bo->has_svgp ? sg_svgp_joint (&bo->svgp, a->XX, b, mean, cov)
                            : sg_gauss_post_joint (&bo->gpost, a->XX, b, mean, cov);
  if (status != SG_OK)
    return status;
  /* b x b Cholesky factor; a (near-)singular covariance, as at x = x_r,
   * gets a zero pivot (and column) instead of failing. */
  memset (L, 0, sizeof L);
  for (size_t i = 0; i < b; i++)
    for (size_t k = 0; k <= i; k++)
      {
        double v = cov[i * b + k];
        for (size_t l = 0; l < k; l++)
          v -= L[i * b + l] * L[k * b + l];
        if (k == i)
          L[i * b + i] = sqrt (fmax (v, 0));
        else
          L[i * b + k] = L[k * b + k] > 0 ? v / L[k * b + k] : 0;
      }
  sg_gemm (0, 0, b, N, b, 1.0, L, a->Z, 0.0, a->F);
  for (size_t i = 0; i < b; i++)
    for (size_t j = 0; j < N; j++)
      a->F[i * N + j] += mean[i];
  return SG_OK;
}

/* |x_j - y_j| along coordinate J (the shorter way round a periodic one). */
static double
coord_distance (const sg_bo_config *c, size_t j, const double *x, const double *y)
{
  return sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j], x[j], y[j]);
}

static int
too_close (const acq_ctx *a, const double *x, const double *y)
{
  const sg_bo *bo = a->bo;
  for (size_t j = 0; j < bo->cfg.dim; j++)
    if (coord_distance (&bo->cfg, j, x, y) > a->min_sep[j])
      return 0;
  return 1;
}

static int
too_close_to_ref (const acq_ctx *a, const double *x)
{
  return too_close (a, x, a->ref);
}

/* Targets that pick the challenger of a duel against a->ref. */
static int
is_duel_target (sg_bo_acq_target target)
{
  return target == SG_BO_ACQ_TARGET_DUEL || target == SG_BO_ACQ_TARGET_BELIEVER;
}

/* The points sampled jointly per evaluation: x and x_r (2) or x alone. */
static size_t
points_per_eval (const acq_ctx *a)
{
  return a->has_ref && a->bo->cfg.mode != SG_BO_SAFE && a->target != SG_BO_ACQ_TARGET_SAMPLE
           ? 2 : 1;
}

/* X repeats one of qEUBO's fixed options (a choice needs distinct ones). */
static int
too_close_to_fixed (const acq_ctx *a, const double *x)
{
  for (size_t i = 0; i < a->n_fixed; i++)
    if (too_close (a, x, a->fixed + i * a->bo->cfg.dim))
      return 1;
  return 0;
}

/* qEUBO's samples: F = the joint samples of (fixed options..., X), the
 * fixed ones first so that their rows are the same at every X. */
static int
set_samples_at (acq_ctx *a, const double *x)
{
  size_t dim = a->bo->cfg.dim;
  a->b = a->n_fixed + 1;
  memcpy (a->XX, a->fixed, a->n_fixed * dim * sizeof *x);
  memcpy (a->XX + a->n_fixed * dim, x, dim * sizeof *x);
  return joint_samples (a);
}

/* Fills F (and h when b = 2) at X; returns SG_OK or a status. */
static int
samples_at (acq_ctx *a, const double *x)
{
  size_t dim = a->bo->cfg.dim, N = a->N;
  if (a->target == SG_BO_ACQ_TARGET_QEUBO)
    return set_samples_at (a, x);
  if (a->target == SG_BO_ACQ_TARGET_BELIEVER)  /* F[0], F[1]: mean, variance */
    return sg_skewgp_conditional (a->bo->post, a->bo->samples, a->sample, x, 1, a->F, a->F + 1);
  a->b = points_per_eval (a);
  memcpy (a->XX, x, dim * sizeof *x);
  if (a->b == 2)
    memcpy (a->XX + dim, a->ref, dim * sizeof *x);
  if (a->bo->has_two_gp)
    return _sg_bo_two_gp_samples (a->bo, x, N, a->Z, a->F);
  int status = joint_samples (a);
  if (status == SG_OK && a->b == 2)
    for (size_t j = 0; j < N; j++)
      a->h[j] = a->F[j] - a->F[N + j];
  return status;
}

static double
acquisition_value (const acq_ctx *a)
{
  const sg_bo_config *c = &a->bo->cfg;
  size_t N = a->N;
  double sd = a->bo->hyper.noise.probit_sd;
  switch (a->target)
    {
    case SG_BO_ACQ_TARGET_DUEL:
      switch (c->acquisition)
        {
        case SG_BO_ACQ_EIIG: return sg_acq_eiig (a->h, N, sd, c->eiig_k);
        case SG_BO_ACQ_EPI: return sg_acq_epi (a->h, N, sd);
        case SG_BO_ACQ_THOMPSON: return a->h[N - 1];
        case SG_BO_ACQ_DTS:
        case SG_BO_ACQ_MUC: return sg_acq_win_variance (a->h, N, sd);
        case SG_BO_ACQ_UCB:
        default: return sg_acq_hpd (a->h, N, c->ucb_level, a->scratch, NULL);
        }
    case SG_BO_ACQ_TARGET_NUMERIC:
      if (c->numeric_acquisition == SG_BO_NUMERIC_EI && a->b == 2)
        return sg_acq_expected_improvement (a->h, N);
      return sg_acq_hpd (a->F, N, c->ucb_level, a->scratch, NULL);
    case SG_BO_ACQ_TARGET_BALD:
      return sg_acq_bald (a->F, N, sd);
    case SG_BO_ACQ_TARGET_QEUBO:
      return sg_acq_qeubo (a->F, a->b, N);
    case SG_BO_ACQ_TARGET_BELIEVER:
      return c->acquisition == SG_BO_ACQ_HB_EI
               ? sg_acq_gauss_ei (a->F[0], sqrt (a->F[1]), a->eta)
               : sg_acq_gauss_ucb (a->F[0], sqrt (a->F[1]), SG_BO_HB_BETA_ROOT);
    case SG_BO_ACQ_TARGET_SAMPLE:
      return a->F[N - 1];
    case SG_BO_ACQ_TARGET_SAFE:
    default:
      if (a->bo->has_two_gp)
        return _sg_bo_two_gp_safe_ucb (a->bo, a->F, N, a->scratch);
      return sg_acq_safe_ucb (a->F, N, c->ucb_level, c->threshold,
                              c->safe_probability, c->safe_penalty, a->scratch);
    }
}

/* X repeats a setting already answered, within the measurement resolution
 * (none given: never). */
static int
repeats_answered (const acq_ctx *a, const double *x)
{
  const sg_bo *bo = a->bo;
  size_t dim = bo->cfg.dim;
  int has_resolution = 0;

  for (size_t j = 0; j < dim; j++)
    has_resolution |= bo->cfg.resolution[j] > 0;
  if (!has_resolution)
    return 0;
  for (size_t i = 0; i < bo->data.n_inputs; i++)
    {
      const double *y = bo->data.X + i * dim;
      size_t j = 0;
      while (j < dim && coord_distance (&bo->cfg, j, x, y) <= bo->cfg.resolution[j])
        j++;
      if (j == dim)
        return 1;
    }
  return 0;
}

static double
acq_eval_snapped (const double *x, acq_ctx *a);

/* The local search's objective: the acquisition at the setting X stands
 * for (_sg_bo_snap_point), so it is flat across each integer or level step. */
static double
acq_eval (const double *x0, void *user_data)
{
  acq_ctx *a = user_data;
  double x[SG_BO_MAX_DIM];
  memcpy (x, x0, a->bo->cfg.dim * sizeof *x);
  _sg_bo_snap_point (&a->bo->cfg, x);
  return acq_eval_snapped (x, a);
}

static double
acq_eval_snapped (const double *x, acq_ctx *a)
{
  if (a->status != SG_OK)
    return -INFINITY;
  if (is_duel_target (a->target) && too_close_to_ref (a, x))
    return -INFINITY;  /* a duel of x_r against itself says nothing */
  if (a->target != SG_BO_ACQ_TARGET_NONE && repeats_answered (a, x))
    return -INFINITY;  /* the same setting, as far as it can be measured */
  if (a->target == SG_BO_ACQ_TARGET_QEUBO && too_close_to_fixed (a, x))
    return -INFINITY;
  int status = samples_at (a, x);
  if (status != SG_OK)
    {
      a->status = status;
      return -INFINITY;
    }
  return acquisition_value (a);
}

static void
acq_ctx_clear (acq_ctx *a)
{
  free (a->F);
  free (a->h);
  free (a->scratch);
  free (a->Z);
  if (a->crn)
    gsl_rng_free (a->crn);
}

/* What a point's joint samples (a->F, a->h) are turned into. */
typedef double (*sample_value_fn) (const acq_ctx *a);

/* The probability that f(x) >= h (safe mode's P(valid)) from a->F. */
static double
prob_valid_value (const acq_ctx *a)
{
  if (a->bo->has_two_gp)  /* the classifier's P(f_c(x) >= 0) */
    return sg_acq_prob_at_least (a->F + a->N, a->N, 0.0);
  return sg_acq_prob_at_least (a->F, a->N, a->bo->cfg.threshold);
}

typedef struct {
  acq_ctx *a;
  const double *X;      /* the block's points                        */
  sample_value_fn value;
  double *values;
} batch_ctx;

/* A duel of x_r against (nearly) itself says nothing. */
static int
excluded (const batch_ctx *bc, const double *x)
{
  return bc->value == acquisition_value
         && ((is_duel_target (bc->a->target) && too_close_to_ref (bc->a, x))
             || (bc->a->target == SG_BO_ACQ_TARGET_QEUBO && too_close_to_fixed (bc->a, x))
             || repeats_answered (bc->a, x));
}

static void
score_point (size_t c, const double *F, void *user_data)
{
  batch_ctx *bc = user_data;
  acq_ctx *a = bc->a;
  size_t N = a->N;

  if (excluded (bc, bc->X + c * a->bo->cfg.dim))
    {
      bc->values[c] = -INFINITY;
      return;
    }
  memcpy (a->F, F, a->b * N * sizeof *F);
  if (a->b == 2)
    for (size_t j = 0; j < N; j++)
      a->h[j] = a->F[j] - a->F[N + j];
  bc->values[c] = bc->value (a);
}

/* The believer's Gaussian (sg_skewgp_conditional) at all N points of the
 * block at once, one whitening of the block as the pairs' joint samples
 * have, then VALUE at each point not excluded. */
static int
score_believer (batch_ctx *bc, size_t n)
{
  acq_ctx *a = bc->a;
  const sg_bo *bo = a->bo;
  double *mv = malloc ((2 * n + 1) * sizeof *mv);
  int status = mv ? sg_skewgp_conditional (bo->post, bo->samples, a->sample, bc->X, n, mv, mv + n)
                  : SG_ENOMEM;

  for (size_t c = 0; c < n && status == SG_OK; c++)
    if (excluded (bc, bc->X + c * bo->cfg.dim))
      bc->values[c] = -INFINITY;
    else
      {
        a->F[0] = mv[c];
        a->F[1] = mv[n + c];
        bc->values[c] = bc->value (a);
      }
  free (mv);
  return status;
}

/* VALUE at each of the N points X, into VALUES: for the exact posterior
 * one product of the latent samples with all the points (the common
 * random numbers of the remainder are Z's first b x N normals, what
 * samples_at's restarted stream draws; the believer: its Gaussian at
 * all of them), for the other models point by
 * point. A failure is kept in a->status (the values are then -inf). */
static void
score_points (acq_ctx *a, const double *X, size_t n, sample_value_fn value, double *values)
{
  const sg_bo *bo = a->bo;
  batch_ctx bc = { a, X, value, values };
  int status = a->status;
  /* P(valid) wants the samples of f(x) (and f(x_r)) whatever the
   * acquisition's own set (qEUBO's is its fixed options and x). */
  sg_bo_acq_target target = a->target;
  int pairs;

  if (value == prob_valid_value)
    a->target = SG_BO_ACQ_TARGET_NONE;
  pairs = a->target != SG_BO_ACQ_TARGET_QEUBO && a->target != SG_BO_ACQ_TARGET_BELIEVER;
  if (status == SG_OK && bo->post != NULL && !bo->has_two_gp && pairs)
    {
      a->b = points_per_eval (a);
      status = sg_skewgp_joint_samples_each (bo->post, bo->samples, X, n,
                                             a->b == 2 ? a->ref : NULL, a->Z, score_point, &bc);
    }
  else if (status == SG_OK && bo->post != NULL && a->target == SG_BO_ACQ_TARGET_BELIEVER)
    status = score_believer (&bc, n);
  else
    for (size_t c = 0; c < n && status == SG_OK; c++)
      {
        const double *x = X + c * bo->cfg.dim;
        if (excluded (&bc, x))
          values[c] = -INFINITY;
        else if ((status = samples_at (a, x)) == SG_OK)
          values[c] = value (a);
      }
  a->target = target;
  if (status != SG_OK)
    {
      a->status = status;
      for (size_t c = 0; c < n; c++)
        values[c] = -INFINITY;
    }
}

/* sg_acq_batch_fn of the search: the acquisition at the candidates. */
static void
acq_eval_batch (const double *X, size_t n, void *user_data, double *values)
{
  acq_ctx *a = user_data;
  const sg_bo_config *c = &a->bo->cfg;
  if (!_sg_bo_has_kinds (c))
    {
      score_points (a, X, n, acquisition_value, values);
      return;
    }
  /* the candidates as the settings they stand for (_sg_bo_snap_point) */
  double *S = malloc ((n * c->dim + 1) * sizeof *S);
  if (S == NULL)
    {
      a->status = SG_ENOMEM;
      for (size_t i = 0; i < n; i++)
        values[i] = -INFINITY;
      return;
    }
  memcpy (S, X, n * c->dim * sizeof *S);
  for (size_t i = 0; i < n; i++)
    _sg_bo_snap_point (c, S + i * c->dim);
  score_points (a, S, n, acquisition_value, values);
  free (S);
}

/* A context for the acquisitions of BO's model with x_r = REF (NULL: none)
 * and the common random numbers of CRN_SEED: the Gaussian variates Z are
 * the first 2N normals of that stream, and the SkewGP remainder restarts
 * it at every evaluation, so the same seed gives the same function. */
static int
acq_ctx_init (acq_ctx *a, const sg_bo *bo, unsigned long crn_seed, const double *ref)
{
  memset (a, 0, sizeof *a);
  a->bo = bo;
  a->N = bo->post ? sg_skewgp_samples_count (bo->samples) : bo->cfg.n_samples;
  a->has_ref = ref != NULL;
  if (ref)
    memcpy (a->ref, ref, bo->cfg.dim * sizeof *ref);
  a->b = a->has_ref && bo->cfg.mode != SG_BO_SAFE ? 2 : 1;
  size_t N = a->N, rows = SG_BO_MAX_OPTIONS;
  a->F = malloc (rows * N * sizeof *a->F);
  a->h = malloc (N * sizeof *a->h);
  a->scratch = malloc (N * sizeof *a->scratch);
  a->Z = malloc (rows * N * sizeof *a->Z);
  a->crn = gsl_rng_alloc (gsl_rng_mt19937);
  if (!a->F || !a->h || !a->scratch || !a->Z || !a->crn)
    {
      acq_ctx_clear (a);
      return SG_ENOMEM;
    }
  a->crn_seed = crn_seed;
  gsl_rng_set (a->crn, a->crn_seed);
  for (size_t i = 0; i < rows * N; i++)
    a->Z[i] = sg_rng_gaussian (a->crn);
  for (size_t j = 0; j < bo->cfg.dim; j++)
    a->min_sep[j] = fmax (1e-6 * (bo->cfg.upper[j] - bo->cfg.lower[j]), bo->cfg.resolution[j]);
  return SG_OK;
}

/* Points scored per product of the latent samples (and per progress
 * report) when every candidate or a plot's points are scored. */
#define EVAL_BLOCK 64

/* The index of the data's input X (exact: answers hold candidate rows). */
static int
find_input (const sg_data *d, const double *x, size_t *index)
{
  for (size_t i = 0; i < d->n_inputs; i++)
    if (memcmp (d->X + i * d->dim, x, d->dim * sizeof *x) == 0)
      {
        *index = i;
        return 1;
      }
  return 0;
}

/* The input indices of observation O's options into IDX (at most
 * SG_BO_MAX_OPTIONS of them, else 0 is returned): a duel's or tie's two,
 * a choice's or ranking's k, a value's or label's one. */
static size_t
obs_options (const sg_data *d, const sg_obs *o, size_t *idx)
{
  switch (o->kind)
    {
    case SG_OBS_PREFERENCE:
    case SG_OBS_TIE:
      idx[0] = o->a;
      idx[1] = o->b;
      return 2;
    case SG_OBS_CHOICE:
    case SG_OBS_RANKING:
      if (o->count > SG_BO_MAX_OPTIONS)
        return 0;
      for (size_t i = 0; i < o->count; i++)
        idx[i] = d->options[o->first + i];
      return o->count;
    default:
      idx[0] = o->a;
      return 1;
    }
}

/* An observation of KIND answers the question TARGET asks. */
static int
answers_target (sg_bo_acq_target target, sg_obs_kind kind)
{
  switch (target)
    {
    case SG_BO_ACQ_TARGET_DUEL:
    case SG_BO_ACQ_TARGET_BELIEVER:
    case SG_BO_ACQ_TARGET_QEUBO:
      return kind == SG_OBS_PREFERENCE || kind == SG_OBS_TIE || kind == SG_OBS_CHOICE
             || kind == SG_OBS_RANKING;
    case SG_BO_ACQ_TARGET_NUMERIC:
    case SG_BO_ACQ_TARGET_SAFE:
      return kind == SG_OBS_NUMERIC || kind == SG_OBS_VALID || kind == SG_OBS_INVALID;
    case SG_BO_ACQ_TARGET_BALD:
      return kind == SG_OBS_BINARY;
    case SG_BO_ACQ_TARGET_NONE:
    default:
      return 0;
    }
}

/* The question the search would ask with X was asked before (the same
 * options, in any order): a duel of x_r against X (a challenger's or the
 * believer's), the qEUBO set of the
 * fixed options and X once the set is complete, a value or label at X.
 * Only the candidate search avoids these (sg-bo.h, "Candidate sets"). */
static int
question_asked (const acq_ctx *a, const double *x)
{
  const sg_bo *bo = a->bo;
  const sg_data *d = &bo->data;
  size_t dim = bo->cfg.dim, want[SG_BO_MAX_OPTIONS], k = 0;

  if (is_duel_target (a->target))
    {
      if (!a->has_ref || !find_input (d, a->ref, &want[k++]))
        return 0;
    }
  else if (a->target == SG_BO_ACQ_TARGET_QEUBO)
    {
      if (a->n_fixed + 1 != bo->cfg.n_options)
        return 0;  /* a partial set: its question is not known yet */
      for (size_t i = 0; i < a->n_fixed; i++)
        if (!find_input (d, a->fixed + i * dim, &want[k++]))
          return 0;
    }
  if (!find_input (d, x, &want[k++]))
    return 0;
  for (size_t i = 0; i < d->n_obs; i++)
    {
      size_t idx[SG_BO_MAX_OPTIONS], n, hits = 0;
      if (!answers_target (a->target, d->obs[i].kind)
          || (n = obs_options (d, &d->obs[i], idx)) != k)
        continue;
      for (size_t p = 0; p < n; p++)
        for (size_t q = 0; q < k; q++)
          hits += idx[p] == want[q];
      if (hits == k)
        return 1;
    }
  return 0;
}

/* The argmax of VALUES (n), skipping the candidates SKIP marks (NULL: none);
 * SIZE_MAX when no value is finite. The first of equal values wins. */
static size_t
argmax_finite (const double *values, const unsigned char *skip, size_t n)
{
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < n; i++)
    if (isfinite (values[i]) && (skip == NULL || !skip[i])
        && (best == SIZE_MAX || values[i] > values[best]))
      best = i;
  return best;
}

/* The search over a candidate set: the acquisition at every candidate,
 * EVAL_BLOCK at a time (one product of the latent samples per block, and
 * a progress report), then the best candidate whose question was not
 * asked before, else the best one. X and *VALUE receive it (*VALUE = -inf
 * when every candidate is excluded outright). */
static int
search_candidates (acq_ctx *a, const sg_progress *progress, double *x, double *value)
{
  const sg_bo_config *c = &a->bo->cfg;
  size_t n = c->n_candidates, dim = c->dim;
  double *v = malloc (n * sizeof *v);
  unsigned char *asked = malloc (n);
  int status = v && asked ? SG_OK : SG_ENOMEM;

  for (size_t i = 0; i < n && status == SG_OK; i += EVAL_BLOCK)
    {
      status = sg_progress_report (progress, (double) i / (double) n);
      if (status == SG_OK)
        {
          score_points (a, c->candidates + i * dim, n - i < EVAL_BLOCK ? n - i : EVAL_BLOCK,
                        acquisition_value, v + i);
          status = a->status;
        }
    }
  if (status == SG_OK)
    {
      for (size_t i = 0; i < n; i++)
        asked[i] = isfinite (v[i]) && question_asked (a, c->candidates + i * dim);
      size_t best = argmax_finite (v, asked, n);
      if (best == SIZE_MAX)
        best = argmax_finite (v, NULL, n);
      *value = best == SIZE_MAX ? -INFINITY : v[best];
      memcpy (x, c->candidates + (best == SIZE_MAX ? 0 : best) * dim, dim * sizeof *x);
    }
  free (v);
  free (asked);
  return status;
}

/* Maximises the acquisition for TARGET; X and *VALUE receive the result. */
static int
maximise (acq_ctx *a, sg_bo_acq_target target, gsl_rng *rng, const sg_progress *progress,
          double *x, double *value)
{
  const sg_bo *bo = a->bo;
  a->target = target;
  a->status = SG_OK;
  int status = bo->cfg.n_candidates > 0
                 ? search_candidates (a, progress, x, value)
                 : (int) sg_acq_maximize_batched (bo->cfg.dim, bo->cfg.lower, bo->cfg.upper, acq_eval,
                                            acq_eval_batch, a, bo->data.X, bo->data.n_inputs,
                                            &bo->cfg.search, rng, progress, x, value);
  if (status == SG_OK && a->status != SG_OK)
    status = a->status;
  if (status == SG_OK)
    _sg_bo_snap_point (&bo->cfg, x);  /* what the search scored at x */
  /* The value reported is the maximiser's alone, as sg_bo_acquisition_at
   * gives it at that point (the search's block products and refinement
   * differ from it in the last bits). */
  if (status == SG_OK && isfinite (*value))
    score_points (a, x, 1, acquisition_value, value);
  if (status == SG_OK && a->status != SG_OK)
    status = a->status;
  if (status == SG_OK && !isfinite (*value))
    {
      /* Every candidate was excluded (a duel whose box has collapsed onto
       * x_r, or candidates all within the resolution of the answers):
       * fall back to a random distinct point (candidate). */
      if (bo->cfg.n_candidates > 0)
        {
          double avoid[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
          size_t n_avoid = 0;
          if (is_duel_target (target) && a->has_ref)
            memcpy (avoid, a->ref, bo->cfg.dim * sizeof *avoid), n_avoid = 1;
          else if (target == SG_BO_ACQ_TARGET_QEUBO)
            memcpy (avoid, a->fixed, a->n_fixed * bo->cfg.dim * sizeof *avoid),
              n_avoid = a->n_fixed;
          _sg_bo_random_setting (bo, rng, avoid, n_avoid, x);
        }
      else
        do
          _sg_bo_random_point (&bo->cfg, rng, x);
        while ((is_duel_target (target) && too_close_to_ref (a, x))
               || (target == SG_BO_ACQ_TARGET_QEUBO && too_close_to_fixed (a, x)));
      *value = NAN;
    }
  return status;
}

/* The probabilities reported with a query, from the samples at X. */
static int
describe (acq_ctx *a, const double *x, sg_bo_query *q)
{
  sg_bo_acq_target target = a->target;
  a->target = SG_BO_ACQ_TARGET_DUEL;  /* the samples of (f(x), f(x_ref)) */
  int status = samples_at (a, x);
  a->target = target;
  if (status != SG_OK)
    return status;
  if (a->b == 2)
    {
      size_t c = 0;
      for (size_t j = 0; j < a->N; j++)
        c += a->h[j] > 0;
      q->prob_better = (double) c / (double) a->N;
    }
  if (a->bo->cfg.mode == SG_BO_SAFE)
    q->prob_safe = a->bo->has_two_gp ? sg_acq_prob_at_least (a->F + a->N, a->N, 0.0)
                                     : sg_acq_prob_at_least (a->F, a->N, a->bo->cfg.threshold);
  return SG_OK;
}

/* qEUBO's k options, by greedy construction and one cyclic pass.
 * Greedy: option i maximises the qEUBO of {options 0..i-1, x} (so the
 * first is the maximiser of the posterior mean, the second the maximiser
 * of the expected improvement over it, and so on). E[max] over a set is
 * monotone submodular in the set, so the greedy set is within a factor
 * 1 - 1/e of the best one (Wilson, Hutter and Deisenroth, "Maximizing
 * acquisition functions for Bayesian optimization", NeurIPS 2018, sec.
 * 3.3). The cyclic pass then re-optimises each option in turn given the
 * k - 1 others (BoTorch's optimize_acqf_cyclic: greedy start, then
 * cyclic re-optimisation), which frees the first option from pure
 * exploitation of the mean. Every step searches the same candidates
 * (space-filling points plus the data's inputs, the incumbent among
 * them) with BOBYQA refinement, as every acquisition. OPTS receives
 * k x dim values, *VALUE the set's qEUBO; the context is left at the
 * last step (option k - 1 free, the others fixed). */
/* One step: option I maximises the qEUBO of the set with the other
 * options among the first N_SET; in the cyclic pass (I < N_SET) the new
 * point replaces option I only if it improves on it. *VALUE: the set's
 * qEUBO with option I free, as the context evaluates it. */
static int
qeubo_step (acq_ctx *a, size_t i, size_t n_set, gsl_rng *rng, const sg_progress *progress,
            double *opts, double *value)
{
  size_t dim = a->bo->cfg.dim;
  a->n_fixed = 0;
  for (size_t o = 0; o < n_set; o++)
    if (o != i)
      memcpy (a->fixed + (a->n_fixed++) * dim, opts + o * dim, dim * sizeof *opts);
  a->target = SG_BO_ACQ_TARGET_QEUBO;
  double current = i < n_set ? acq_eval (opts + i * dim, a) : -INFINITY;
  /* a set shown before gives way to any other (candidate sets) */
  if (i < n_set && a->bo->cfg.n_candidates > 0 && question_asked (a, opts + i * dim))
    current = -INFINITY;
  double x[SG_BO_MAX_DIM], v;
  int status = maximise (a, SG_BO_ACQ_TARGET_QEUBO, rng, progress, x, &v);
  if (status == SG_OK && a->status != SG_OK)
    status = a->status;
  if (status != SG_OK)
    return status;
  if (i >= n_set || v > current)
    {
      memcpy (opts + i * dim, x, dim * sizeof *x);
      *value = v;
    }
  else
    *value = current;
  return SG_OK;
}

static int
qeubo_options (acq_ctx *a, size_t k, gsl_rng *rng, const sg_progress *progress,
               double *opts, double *value)
{
  int status = SG_OK;
  size_t steps = 2 * k;
  sg_progress_part sp;
  for (size_t step = 0; step < steps && status == SG_OK; step++)
    {
      size_t i = step % k, n_set = step < k ? i : k;
      const sg_progress *sub
        = sg_progress_part_init (&sp, progress, 0.5 + 0.5 * (double) step / (double) steps,
                                 0.5 + 0.5 * (double) (step + 1) / (double) steps);
      status = qeubo_step (a, i, n_set, rng, sub, opts, value);
    }
  return status;
}

/* The hallucination believer's sample (uniform over the stored ones,
 * from RNG) and its mean at x_r, EI's bar (sg-bo.h). Without an x_r the
 * bar is the prior mean. */
static int
believer_init (acq_ctx *a, gsl_rng *rng)
{
  const sg_bo *bo = a->bo;
  if (bo->post == NULL)
    return SG_EINVAL;
  a->sample = (size_t) gsl_rng_uniform_int (rng, a->N);
  a->eta = bo->hyper.mean;
  if (!a->has_ref)
    return SG_OK;
  double var;
  return sg_skewgp_conditional (bo->post, bo->samples, a->sample, a->ref, 1, &a->eta, &var);
}

/* Dueling Thompson sampling (sg-bo.h): X1 maximises posterior sample N - 1
 * of f, then X maximises the variance of its win probability against X1;
 * the context is left with x_ref = X1 (the duel is X vs X1). */
static int
dueling_thompson (acq_ctx *a, gsl_rng *rng, const sg_progress *progress, double *x,
                  double *value)
{
  sg_progress_part sp;
  double x1[SG_BO_MAX_DIM], v1;
  a->has_ref = 0;
  int status = maximise (a, SG_BO_ACQ_TARGET_SAMPLE, rng,
                         sg_progress_part_init (&sp, progress, 0.5, 0.75), x1, &v1);
  if (status != SG_OK)
    return status;
  a->has_ref = 1;
  memcpy (a->ref, x1, a->bo->cfg.dim * sizeof *x1);
  return maximise (a, SG_BO_ACQ_TARGET_DUEL, rng,
                   sg_progress_part_init (&sp, progress, 0.75, 1.0), x, value);
}

int
_sg_bo_model_query (sg_bo *bo, gsl_rng *rng, const sg_progress *progress, sg_bo_query *q)
{
  acq_ctx a;
  int status = acq_ctx_init (&a, bo, gsl_rng_get (rng), bo->has_ref ? bo->ref : NULL);
  if (status != SG_OK)
    return status;
  const sg_bo_config *c = &bo->cfg;
  double x[SG_BO_MAX_DIM], v = NAN;
  double opts[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  size_t k = 0;         /* options of a qEUBO question (0: x alone) */
  sg_progress_part sp;
  if (c->mode == SG_BO_PREFERENCE && c->acquisition == SG_BO_ACQ_QEUBO)
    {
      q->kind = c->question == SG_BO_QUESTION_CHOICE ? SG_BO_QUERY_CHOICE : SG_BO_QUERY_DUEL;
      k = c->n_options;
      status = qeubo_options (&a, k, rng, progress, opts, &v);
      if (status == SG_OK)
        memcpy (x, opts + (k - 1) * c->dim, c->dim * sizeof *x);
    }
  else if (c->mode == SG_BO_PREFERENCE
           && (c->acquisition == SG_BO_ACQ_HB_EI || c->acquisition == SG_BO_ACQ_HB_UCB))
    {
      q->kind = SG_BO_QUERY_DUEL;
      status = believer_init (&a, rng);
      if (status == SG_OK)
        status = maximise (&a, SG_BO_ACQ_TARGET_BELIEVER, rng,
                           sg_progress_part_init (&sp, progress, 0.5, 1.0), x, &v);
    }
  else if (c->mode == SG_BO_PREFERENCE && c->acquisition == SG_BO_ACQ_DTS)
    {
      q->kind = SG_BO_QUERY_DUEL;
      status = dueling_thompson (&a, rng, progress, x, &v);
    }
  else if (c->mode == SG_BO_ACTIVE)
    {
      q->kind = SG_BO_QUERY_LABEL;
      status = maximise (&a, SG_BO_ACQ_TARGET_BALD, rng,
                         sg_progress_part_init (&sp, progress, 0.5, 1.0), x, &v);
    }
  else if (_sg_bo_safe_rule_on (bo))
    {
      a.target = SG_BO_ACQ_TARGET_SAFE;
      status = _sg_bo_safe_query (bo, rng, sg_progress_part_init (&sp, progress, 0.5, 1.0), q);
      memcpy (x, q->x, c->dim * sizeof *x);
      v = q->acquisition;
      a.crn_seed = bo->safe_crn_seed;
    }
  else if (c->mode == SG_BO_SAFE)
    {
      q->kind = SG_BO_QUERY_VALUE;
      status = maximise (&a, SG_BO_ACQ_TARGET_SAFE, rng,
                         sg_progress_part_init (&sp, progress, 0.5, 1.0), x, &v);
    }
  else if (c->mode == SG_BO_MIXED && c->mixed_policy == SG_BO_MIXED_SCHEDULE
           && _sg_bo_schedule_wants_value (bo))
    {
      q->kind = SG_BO_QUERY_VALUE;
      status = maximise (&a, SG_BO_ACQ_TARGET_NUMERIC, rng,
                         sg_progress_part_init (&sp, progress, 0.5, 1.0), x, &v);
    }
  else
    {
      q->kind = SG_BO_QUERY_DUEL;
      status = maximise (&a, SG_BO_ACQ_TARGET_DUEL, rng,
                         sg_progress_part_init (&sp, progress, 0.5, 0.8), x, &v);
      if (status == SG_OK && c->mode == SG_BO_MIXED && c->mixed_policy == SG_BO_MIXED_CONFIDENT)
        {
          status = samples_at (&a, x);
          double p = status == SG_OK
                       ? sg_acq_epi (a.h, a.N, bo->hyper.noise.probit_sd) : NAN;
          if (status == SG_OK && (p > c->mixed_confidence || p < 1 - c->mixed_confidence))
            {
              q->kind = SG_BO_QUERY_VALUE;
              status = maximise (&a, SG_BO_ACQ_TARGET_NUMERIC, rng,
                                 sg_progress_part_init (&sp, progress, 0.8, 1.0), x, &v);
            }
        }
    }
  /* (the SafeOpt rule describes its own proposal) */
  if (status == SG_OK && k == 0 && !_sg_bo_safe_rule_on (bo))
    status = describe (&a, x, q);
  if (status == SG_OK)
    {
      memcpy (q->x, x, c->dim * sizeof *x);
      if (a.has_ref)  /* x_r, or dts's first point */
        memcpy (q->x_ref, a.ref, c->dim * sizeof *x);
      if (k > 0)
        _sg_bo_set_options (c, q, opts, k);
      else if (q->kind == SG_BO_QUERY_DUEL)
        {
          memcpy (opts, q->x, c->dim * sizeof *x);
          memcpy (opts + c->dim, q->x_ref, c->dim * sizeof *x);
          _sg_bo_set_options (c, q, opts, 2);
        }
      q->acquisition = v;
      /* Remember the function just maximised, for sg_bo_acquisition_at. */
      acq_record *r = &bo->acq;
      r->valid = 1;
      r->target = a.target;
      r->crn_seed = a.crn_seed;
      r->has_ref = a.has_ref;
      memcpy (r->ref, a.ref, sizeof r->ref);
      r->n_fixed = a.n_fixed;
      memcpy (r->fixed, a.fixed, sizeof r->fixed);
      r->sample = a.sample;
      r->eta = a.eta;
      memcpy (r->x, x, c->dim * sizeof *x);
      r->value = v;
    }
  acq_ctx_clear (&a);
  return status;
}

/* ---- The acquisition of the last proposal ------------------------------------- */

static const char *
acq_target_name (const sg_bo_config *c, sg_bo_acq_target target)
{
  switch (target)
    {
    case SG_BO_ACQ_TARGET_DUEL:
      switch (c->acquisition)
        {
        case SG_BO_ACQ_EIIG: return "EIIG";
        case SG_BO_ACQ_EPI: return "EPI";
        case SG_BO_ACQ_THOMPSON: return "Thompson";
        case SG_BO_ACQ_QEUBO: return "qEUBO";
        case SG_BO_ACQ_DTS: return "DTS";
        case SG_BO_ACQ_MUC: return "MUC";
        case SG_BO_ACQ_UCB: default: return "dueling UCB";
        }
    case SG_BO_ACQ_TARGET_BELIEVER:
      return c->acquisition == SG_BO_ACQ_HB_EI ? "HB-EI" : "HB-UCB";
    case SG_BO_ACQ_TARGET_SAMPLE:
      return "Thompson sample";
    case SG_BO_ACQ_TARGET_NUMERIC:
      return c->numeric_acquisition == SG_BO_NUMERIC_EI ? "EI" : "UCB";
    case SG_BO_ACQ_TARGET_SAFE:
      return c->safe_rule == SG_BO_SAFE_SAFEOPT && c->surrogate != SG_BO_SURROGATE_RANDOM
                 && c->surrogate != SG_BO_SURROGATE_TWO_GP
               ? "SafeOpt" : "safe UCB";
    case SG_BO_ACQ_TARGET_BALD:
      return "BALD";
    case SG_BO_ACQ_TARGET_QEUBO:
      return "qEUBO";
    case SG_BO_ACQ_TARGET_NONE:
    default:
      return NULL;
    }
}

sg_status
sg_bo_last_acquisition (const sg_bo *bo, sg_bo_acq_info *info)
{
  if (bo == NULL || info == NULL || !bo->acq.valid)
    return SG_EINVAL;
  const acq_record *r = &bo->acq;
  memset (info, 0, sizeof *info);
  info->target = r->target;
  info->name = acq_target_name (&bo->cfg, r->target);
  memcpy (info->x, r->x, sizeof info->x);
  info->value = r->value;
  info->has_ref = r->has_ref;
  memcpy (info->x_ref, r->ref, sizeof info->x_ref);
  return SG_OK;
}

/* Shared loop of sg_bo_acquisition_at / sg_bo_prob_valid_at: the joint
 * samples at each point, as the proposal drew them, turned into a number
 * by VALUE_AT. Writes OUT only on success. */

static int
eval_last (const sg_bo *bo, const double *XS, size_t b, const sg_progress *progress,
           sample_value_fn value, double *out)
{
  if (bo == NULL || XS == NULL || out == NULL || b == 0 || !bo->acq.valid)
    return SG_EINVAL;
  size_t dim = bo->cfg.dim;
  for (size_t i = 0; i < b * dim; i++)
    if (!isfinite (XS[i]))
      return SG_EINVAL;
  double *v = malloc (b * sizeof *v);
  if (v == NULL)
    return SG_ENOMEM;
  acq_ctx a;
  int status = acq_ctx_init (&a, bo, bo->acq.crn_seed, bo->acq.has_ref ? bo->acq.ref : NULL);
  if (status == SG_OK)
    {
      a.target = bo->acq.target;
      a.n_fixed = bo->acq.n_fixed;
      memcpy (a.fixed, bo->acq.fixed, sizeof a.fixed);
      a.sample = bo->acq.sample;
      a.eta = bo->acq.eta;
      for (size_t i = 0; i < b && status == SG_OK; i += EVAL_BLOCK)
        {
          status = sg_progress_report (progress, (double) i / (double) b);
          if (status == SG_OK)
            {
              score_points (&a, XS + i * dim, b - i < EVAL_BLOCK ? b - i : EVAL_BLOCK, value, v + i);
              status = a.status;
            }
        }
      acq_ctx_clear (&a);
    }
  if (status == SG_OK)
    memcpy (out, v, b * sizeof *v);
  free (v);
  return status;
}

/* Safe mode's SafeOpt rule at B points, blocks of EVAL_BLOCK with a
 * progress report each: P(safe) into P, the rule's acquisition into ACQ
 * (either may be NULL). */
static int
safe_eval_last (const sg_bo *bo, const double *XS, size_t b, const sg_progress *progress,
                double *p, double *acq)
{
  if (bo == NULL || XS == NULL || b == 0 || !bo->acq.valid)
    return SG_EINVAL;
  size_t dim = bo->cfg.dim;
  for (size_t i = 0; i < b * dim; i++)
    if (!isfinite (XS[i]))
      return SG_EINVAL;
  double *v = malloc (b * sizeof *v);
  int status = v ? SG_OK : SG_ENOMEM;
  for (size_t i = 0; i < b && status == SG_OK; i += EVAL_BLOCK)
    {
      size_t n = b - i < EVAL_BLOCK ? b - i : EVAL_BLOCK;
      status = sg_progress_report (progress, (double) i / (double) b);
      if (status == SG_OK)
        status = _sg_bo_safe_eval (bo, XS + i * dim, n, p ? v + i : NULL, acq ? v + i : NULL);
    }
  if (status == SG_OK)
    memcpy (p ? p : acq, v, b * sizeof *v);
  free (v);
  return status;
}

sg_status
sg_bo_acquisition_at (const sg_bo *bo, const double *XS, size_t b,
                      const sg_progress *progress, double *out)
{
  if (bo != NULL && _sg_bo_safe_rule_on (bo) && out != NULL)
    return safe_eval_last (bo, XS, b, progress, NULL, out);
  return eval_last (bo, XS, b, progress, acquisition_value, out);
}

sg_status
sg_bo_prob_valid_at (const sg_bo *bo, const double *XS, size_t b,
                     const sg_progress *progress, double *out)
{
  if (bo != NULL && _sg_bo_safe_rule_on (bo) && out != NULL)
    return safe_eval_last (bo, XS, b, progress, out, NULL);
  return eval_last (bo, XS, b, progress, prob_valid_value, out);
}
