/* sg-bo-initial.c — questions that need no model: random settings, the
 * initial design of each mode and the random surrogate (see sg-bo.h). */
#include "sg-bo-private.h"

#include <math.h>
#include <string.h>

/* ---- Random and initial queries -------------------------------------------- */

void
_sg_bo_random_point (const sg_bo_config *c, gsl_rng *rng, double *x)
{
  for (size_t j = 0; j < c->dim; j++)
    {
      double lo = c->lower[j], hi = c->upper[j];
      /* whole numbers lo .. hi, each with probability 1 / (hi - lo + 1) */
      if (_sg_bo_is_discrete (c, j))
        x[j] = lo + floor (gsl_rng_uniform (rng) * (hi - lo + 1));
      else
        x[j] = lo + gsl_rng_uniform (rng) * (hi - lo);
    }
  _sg_bo_snap_point (c, x);
}

/* X is one of the N_ROWS rows of ROWS (exactly: candidate rows are
 * copied, never recomputed). */
static int
among_rows (const double *x, const double *rows, size_t n_rows, size_t dim)
{
  for (size_t i = 0; i < n_rows; i++)
    if (memcmp (x, rows + i * dim, dim * sizeof *x) == 0)
      return 1;
  return 0;
}

/* X is within the smallest separation of two options (1e-6 box widths,
 * or the measurement resolution) of one of the N_ROWS rows of ROWS, with
 * distances along each coordinate's kind (the shorter way round a
 * periodic one). */
static int
near_rows (const sg_bo_config *c, const double *x, const double *rows, size_t n_rows)
{
  for (size_t i = 0; i < n_rows; i++)
    {
      size_t j = 0;
      while (j < c->dim
             && sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j], x[j],
                                 rows[i * c->dim + j])
                  <= fmax (1e-6 * (c->upper[j] - c->lower[j]), c->resolution[j]))
        j++;
      if (j == c->dim)
        return 1;
    }
  return 0;
}

/* A random setting for a question whose other options are the N_AVOID
 * rows AVOID: a uniform point of the box, or with a candidate set a
 * uniform candidate outside AVOID, one never asked yet if there is one
 * (a space-filling initial design over the set). The set has at least
 * n_options rows, so one is always left. */
void
_sg_bo_random_setting (const sg_bo *bo, gsl_rng *rng, const double *avoid, size_t n_avoid,
                       double *x)
{
  const sg_bo_config *c = &bo->cfg;
  size_t dim = c->dim, n = c->n_candidates;
  if (n == 0)
    {
      /* A draw the same setting as another option (the proposal's RNG
       * stream replays an earlier one when an answer was taken back) is
       * drawn again; the chance of a second such draw is nil. */
      for (int tries = 0; tries < 64; tries++)
        {
          _sg_bo_random_point (c, rng, x);
          if (!near_rows (c, x, avoid, n_avoid))
            break;
        }
      return;
    }
  const sg_data *d = &bo->data;
  for (int allow_asked = 0; allow_asked < 2; allow_asked++)
    {
      size_t n_ok = 0;
      for (size_t i = 0; i < n; i++)
        {
          const double *row = c->candidates + i * dim;
          n_ok += !among_rows (row, avoid, n_avoid, dim)
                  && (allow_asked || !among_rows (row, d->X, d->n_inputs, dim));
        }
      if (n_ok == 0)
        continue;
      size_t pick = gsl_rng_uniform_int (rng, n_ok);
      for (size_t i = 0; i < n; i++)
        {
          const double *row = c->candidates + i * dim;
          if (!among_rows (row, avoid, n_avoid, dim)
              && (allow_asked || !among_rows (row, d->X, d->n_inputs, dim)) && pick-- == 0)
            {
              memcpy (x, row, dim * sizeof *x);
              return;
            }
        }
    }
}

void
_sg_bo_query_reset (sg_bo_query *q)
{
  memset (q, 0, sizeof *q);
  q->acquisition = NAN;
  q->prob_better = NAN;
  q->prob_safe = NAN;
}

/* Q's options, x and x_ref from its first N_OPTIONS rows OPTS. */
void
_sg_bo_set_options (const sg_bo_config *c, sg_bo_query *q, const double *opts, size_t n_options)
{
  size_t dim = c->dim;
  q->n_options = n_options;
  for (size_t i = 0; i < n_options; i++)
    memcpy (q->options[i], opts + i * dim, dim * sizeof *opts);
  memcpy (q->x, opts, dim * sizeof *opts);
  if (n_options > 1)
    memcpy (q->x_ref, opts + dim, dim * sizeof *opts);
  if (c->mode == SG_BO_PREFERENCE || c->mode == SG_BO_MIXED)
    q->tie_offered = q->kind == SG_BO_QUERY_DUEL && c->ties;
}

/* A random question: a random point against x_r (or against another
 * random point when there is no x_r yet), and for a choice k - 2 more
 * random points. */
static void
random_duel (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q)
{
  const sg_bo_config *c = &bo->cfg;
  size_t dim = c->dim, k = c->mode == SG_BO_PREFERENCE ? c->n_options : 2;
  double opts[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  q->kind = c->mode == SG_BO_PREFERENCE && c->question == SG_BO_QUESTION_CHOICE
              ? SG_BO_QUERY_CHOICE : SG_BO_QUERY_DUEL;
  q->random = 1;
  _sg_bo_random_setting (bo, rng, bo->ref, bo->has_ref, opts);
  if (bo->has_ref)
    memcpy (opts + dim, bo->ref, dim * sizeof *opts);
  else
    _sg_bo_random_setting (bo, rng, opts, 1, opts + dim);
  for (size_t i = 2; i < k; i++)
    _sg_bo_random_setting (bo, rng, opts, i, opts + i * dim);
  _sg_bo_set_options (c, q, opts, k);
}

static void
random_value (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q)
{
  q->kind = SG_BO_QUERY_VALUE;
  q->random = 1;
  _sg_bo_random_setting (bo, rng, NULL, 0, q->x);
  if (bo->has_ref)
    memcpy (q->x_ref, bo->ref, bo->cfg.dim * sizeof *q->x_ref);
}

/* Answers given after the initial design (mixed mode counts both parts). */
static size_t
n_initial_answers (const sg_bo *bo)
{
  return bo->cfg.mode == SG_BO_MIXED ? 2 * bo->cfg.n_initial : bo->cfg.n_initial;
}

/* Mixed schedule (001 sec. 5.2.2): BO iteration k = 1, 2, ... after the
 * initial design asks for a value when k is a multiple of MIXED_EVERY. */
int
_sg_bo_schedule_wants_value (const sg_bo *bo)
{
  size_t n0 = n_initial_answers (bo);
  size_t k = bo->n_log >= n0 ? bo->n_log - n0 + 1 : 1;
  return k % bo->cfg.mixed_every == 0;
}

/* Fills Q and returns 1 when the query does not need the model: the
 * initial design, or the random surrogate. */
int
_sg_bo_initial_query (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q)
{
  const sg_bo_config *c = &bo->cfg;
  size_t n = bo->n_log;
  int is_random = c->surrogate == SG_BO_SURROGATE_RANDOM;
  switch (c->mode)
    {
    case SG_BO_PREFERENCE:
      if (n < c->n_initial || !bo->has_ref || is_random)
        {
          random_duel (bo, rng, q);
          q->initial = n < c->n_initial || !bo->has_ref;
          return 1;
        }
      return 0;
    case SG_BO_MIXED:
      if (n < c->n_initial || !bo->has_ref)
        {
          random_duel (bo, rng, q);
          q->initial = 1;
          return 1;
        }
      if (n < 2 * c->n_initial)
        {
          random_value (bo, rng, q);
          q->initial = 1;
          return 1;
        }
      if (is_random)
        {
          if (_sg_bo_schedule_wants_value (bo))
            random_value (bo, rng, q);
          else
            random_duel (bo, rng, q);
          return 1;
        }
      return 0;
    case SG_BO_ACTIVE:
      if (n < c->n_initial || is_random)
        {
          q->kind = SG_BO_QUERY_LABEL;
          q->random = 1;
          q->initial = n < c->n_initial;
          _sg_bo_random_setting (bo, rng, NULL, 0, q->x);
          return 1;
        }
      return 0;
    case SG_BO_SAFE:
    default:
      if (c->has_safe_start && bo->data.n_obs == 0)
        {
          q->kind = SG_BO_QUERY_VALUE;
          memcpy (q->x, c->safe_start, c->dim * sizeof *q->x);
          q->initial = 1;
          return 1;
        }
      if ((!c->has_safe_start && n < c->n_initial) || is_random)
        {
          random_value (bo, rng, q);
          /* the initial design is the safe start alone when there is one */
          q->initial = !c->has_safe_start && n < c->n_initial;
          return 1;
        }
      return 0;
    }
}
