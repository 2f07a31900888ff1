#include "sg-data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const obs_kind_names[] = {
  [SG_OBS_NUMERIC] = "numeric",
  [SG_OBS_BINARY] = "binary",
  [SG_OBS_PREFERENCE] = "preference",
  [SG_OBS_VALID] = "valid",
  [SG_OBS_INVALID] = "invalid",
  [SG_OBS_TIE] = "tie",
  [SG_OBS_CHOICE] = "choice",
  [SG_OBS_RANKING] = "ranking",
};
#define N_OBS_KINDS (sizeof obs_kind_names / sizeof obs_kind_names[0])

const char *
sg_obs_kind_name (sg_obs_kind kind)
{
  return sg_name_of (obs_kind_names, N_OBS_KINDS, (size_t) kind);
}

sg_status
sg_obs_kind_parse (const char *name, sg_obs_kind *kind)
{
  size_t i;
  sg_status status = sg_name_lookup (obs_kind_names, N_OBS_KINDS, name, &i);
  if (status == SG_OK)
    *kind = (sg_obs_kind) i;
  return status;
}

static const char *const confidence_names[] = {
  [SG_CONFIDENCE_NONE] = "",
  [SG_CONFIDENCE_WEAK] = "weak",
  [SG_CONFIDENCE_NORMAL] = "normal",
  [SG_CONFIDENCE_STRONG] = "strong",
};
#define N_CONFIDENCES (sizeof confidence_names / sizeof confidence_names[0])

/* A rating's value: past the words, one block of SG_CONFIDENCE_MAX_LEVELS
 * values per scale length. */
#define RATING_BASE 16u

sg_status
sg_confidence_rating (unsigned rating, unsigned levels, sg_confidence *confidence)
{
  if (levels < 2 || levels > SG_CONFIDENCE_MAX_LEVELS || rating < 1 || rating > levels)
    return SG_EINVAL;
  *confidence = (sg_confidence) (RATING_BASE + (levels - 2) * SG_CONFIDENCE_MAX_LEVELS
                                 + rating - 1);
  return SG_OK;
}

int
sg_confidence_rating_of (sg_confidence confidence, unsigned *rating, unsigned *levels)
{
  unsigned v = (unsigned) confidence;
  if (v < RATING_BASE || v >= RATING_BASE + (SG_CONFIDENCE_MAX_LEVELS - 1) * SG_CONFIDENCE_MAX_LEVELS)
    return 0;
  unsigned k = (v - RATING_BASE) / SG_CONFIDENCE_MAX_LEVELS + 2;
  unsigned r = (v - RATING_BASE) % SG_CONFIDENCE_MAX_LEVELS + 1;
  if (r > k)
    return 0;
  if (rating)
    *rating = r;
  if (levels)
    *levels = k;
  return 1;
}

const char *
sg_confidence_name (sg_confidence confidence)
{
  static const char *const numbers[] = { "1", "2", "3", "4", "5", "6", "7" };
  unsigned r;
  if (sg_confidence_rating_of (confidence, &r, NULL))
    return numbers[r - 1];
  return sg_name_of (confidence_names, N_CONFIDENCES, (size_t) confidence);
}

double
sg_confidence_noise_scale (sg_confidence confidence, const sg_noise *noise)
{
  unsigned r, k;
  if (sg_confidence_rating_of (confidence, &r, &k))
    {
      double u = 2.0 * (r - 1) / (k - 1) - 1;
      return u < 0 ? pow (noise->weak_scale, -u) : pow (noise->strong_scale, u);
    }
  switch (confidence)
    {
    case SG_CONFIDENCE_NONE:
    case SG_CONFIDENCE_NORMAL: return 1;
    case SG_CONFIDENCE_WEAK: return noise->weak_scale;
    case SG_CONFIDENCE_STRONG: return noise->strong_scale;
    default: return NAN;
    }
}

/* "" (no confidence) is not a name one can give. */
sg_status
sg_confidence_parse (const char *name, sg_confidence *confidence)
{
  size_t i;
  sg_status status = sg_name_lookup (confidence_names, N_CONFIDENCES, name, &i);
  if (status == SG_OK)
    *confidence = (sg_confidence) i;
  return status;
}

void
sg_noise_default (sg_noise *noise)
{
  *noise = (sg_noise) { .numeric_sd = 1, .probit_sd = 1, .tie_margin = 0.5,
                        .side_bias = 0, .weak_scale = 2, .strong_scale = 0.5 };
}

void
sg_data_init (sg_data *data, size_t dim)
{
  memset (data, 0, sizeof *data);
  data->dim = dim;
}

void
sg_data_clear (sg_data *data)
{
  free (data->X);
  free (data->obs);
  free (data->options);
  sg_data_init (data, data->dim);
}

sg_status
sg_data_copy (sg_data *dst, const sg_data *src)
{
  sg_data_init (dst, src->dim);
  size_t nx = src->n_inputs * src->dim;
  dst->X = malloc ((nx ? nx : 1) * sizeof *dst->X);
  dst->obs = malloc ((src->n_obs ? src->n_obs : 1) * sizeof *dst->obs);
  dst->options = malloc ((src->n_options ? src->n_options : 1) * sizeof *dst->options);
  if (dst->X == NULL || dst->obs == NULL || dst->options == NULL)
    {
      sg_data_clear (dst);
      return SG_ENOMEM;
    }
  memcpy (dst->X, src->X, nx * sizeof *dst->X);
  memcpy (dst->obs, src->obs, src->n_obs * sizeof *dst->obs);
  if (src->n_options)
    memcpy (dst->options, src->options, src->n_options * sizeof *dst->options);
  dst->n_inputs = dst->cap_inputs = src->n_inputs;
  dst->n_obs = dst->cap_obs = src->n_obs;
  dst->n_options = dst->cap_options = src->n_options;
  return SG_OK;
}

sg_status
sg_data_input_index (sg_data *data, const double *x, size_t *index)
{
  size_t d = data->dim;
  for (size_t j = 0; j < d; j++)
    if (!isfinite (x[j]))
      return SG_EINVAL;
  for (size_t i = 0; i < data->n_inputs; i++)
    if (memcmp (data->X + i * d, x, d * sizeof *x) == 0)
      {
        *index = i;
        return SG_OK;
      }
  if (data->n_inputs == data->cap_inputs)
    {
      size_t cap = data->cap_inputs ? 2 * data->cap_inputs : 16;
      double *X = realloc (data->X, cap * d * sizeof *X);
      if (X == NULL)
        return SG_ENOMEM;
      data->X = X;
      data->cap_inputs = cap;
    }
  memcpy (data->X + data->n_inputs * d, x, d * sizeof *x);
  *index = data->n_inputs++;
  return SG_OK;
}

static int
push_obs (sg_data *data, const sg_obs *o)
{
  if (data->n_obs == data->cap_obs)
    {
      size_t cap = data->cap_obs ? 2 * data->cap_obs : 16;
      sg_obs *obs = realloc (data->obs, cap * sizeof *obs);
      if (obs == NULL)
        return SG_ENOMEM;
      data->obs = obs;
      data->cap_obs = cap;
    }
  data->obs[data->n_obs++] = *o;
  return SG_OK;
}

/* Adds an observation at one input; on failure the data set is unchanged
 * (a newly added input is dropped again). */
static int
add_single (sg_data *data, sg_obs o, const double *x)
{
  o.shown_first = SG_SHOWN_NONE;
  size_t before = data->n_inputs;
  int status = sg_data_input_index (data, x, &o.a);
  if (status == SG_OK)
    status = push_obs (data, &o);
  if (status != SG_OK)
    data->n_inputs = before;
  return status;
}

sg_status
sg_data_add_numeric (sg_data *data, const double *x, double y)
{
  if (!isfinite (y))
    return SG_EINVAL;
  return add_single (data, (sg_obs) { .kind = SG_OBS_NUMERIC, .y = y }, x);
}

sg_status
sg_data_add_binary (sg_data *data, const double *x, int label)
{
  if (label != 1 && label != -1)
    return SG_EINVAL;
  return add_single (data, (sg_obs) { .kind = SG_OBS_BINARY, .y = label }, x);
}

sg_status
sg_data_add_valid (sg_data *data, const double *x, double y, double threshold)
{
  if (!isfinite (y) || !isfinite (threshold))
    return SG_EINVAL;
  return add_single (data, (sg_obs) { .kind = SG_OBS_VALID, .y = y,
                                      .threshold = threshold }, x);
}

sg_status
sg_data_add_invalid (sg_data *data, const double *x, double threshold)
{
  if (!isfinite (threshold))
    return SG_EINVAL;
  return add_single (data, (sg_obs) { .kind = SG_OBS_INVALID,
                                      .threshold = threshold }, x);
}

sg_status
sg_data_add_preference (sg_data *data, const double *winner, const double *loser)
{
  return sg_data_add_duel (data, winner, loser, SG_CONFIDENCE_NONE, SG_SHOWN_NONE, 0);
}

static int
confidence_ok (sg_confidence c)
{
  return (size_t) c < N_CONFIDENCES || sg_confidence_rating_of (c, NULL, NULL);
}

/* Adds an observation at the two inputs P and Q (o.a, o.b); on failure the
 * data set is unchanged. */
static int
add_pair (sg_data *data, sg_obs o, const double *p, const double *q)
{
  size_t d = data->dim;
  if (memcmp (p, q, d * sizeof *p) == 0)
    return SG_EINVAL;
  size_t before = data->n_inputs;
  int status = sg_data_input_index (data, p, &o.a);
  if (status == SG_OK)
    status = sg_data_input_index (data, q, &o.b);
  if (status == SG_OK)
    status = push_obs (data, &o);
  if (status != SG_OK)
    data->n_inputs = before;
  return status;
}

sg_status
sg_data_add_duel (sg_data *data, const double *winner, const double *loser,
                  sg_confidence confidence, size_t shown_first, int tie_offered)
{
  if (!confidence_ok (confidence)
      || (shown_first != SG_SHOWN_NONE && shown_first > 1))
    return SG_EINVAL;
  return add_pair (data, (sg_obs) { .kind = SG_OBS_PREFERENCE,
                                    .confidence = confidence,
                                    .shown_first = shown_first,
                                    .tie_offered = tie_offered != 0 },
                   winner, loser);
}

sg_status
sg_data_add_tie (sg_data *data, const double *a, const double *b)
{
  return add_pair (data, (sg_obs) { .kind = SG_OBS_TIE,
                                    .shown_first = SG_SHOWN_NONE }, a, b);
}

/* Adds an observation over the K points PTS (k x dim): their input
 * indices go to the options table; SG_EINVAL if two are equal. On failure
 * the data set is unchanged. */
static int
add_options (sg_data *data, sg_obs o, const double *pts, size_t k)
{
  size_t d = data->dim;
  for (size_t i = 0; i < k; i++)
    for (size_t j = 0; j < i; j++)
      if (memcmp (pts + i * d, pts + j * d, d * sizeof *pts) == 0)
        return SG_EINVAL;
  if (data->n_options + k > data->cap_options)
    {
      size_t cap = data->cap_options ? 2 * data->cap_options : 16;
      while (cap < data->n_options + k)
        cap *= 2;
      size_t *opts = realloc (data->options, cap * sizeof *opts);
      if (opts == NULL)
        return SG_ENOMEM;
      data->options = opts;
      data->cap_options = cap;
    }
  size_t before = data->n_inputs;
  int status = SG_OK;
  o.first = data->n_options;
  o.count = k;
  for (size_t i = 0; i < k && status == SG_OK; i++)
    status = sg_data_input_index (data, pts + i * d, &data->options[o.first + i]);
  if (status == SG_OK)
    {
      o.a = data->options[o.first];
      o.b = data->options[o.first + 1];
      status = push_obs (data, &o);
    }
  if (status != SG_OK)
    {
      data->n_inputs = before;
      return status;
    }
  data->n_options += k;
  return SG_OK;
}

sg_status
sg_data_tail (const sg_data *src, size_t first, sg_data *out)
{
  if (src == NULL || out == NULL || first > src->n_obs)
    return SG_EINVAL;
  size_t d = src->dim;
  sg_data t;
  sg_data_init (&t, d);
  int status = SG_OK;
  double *pts = NULL;
  for (size_t k = first; k < src->n_obs && status == SG_OK; k++)
    {
      sg_obs o = src->obs[k];
      if (o.count > 0)   /* choice, ranking: the options again, in order */
        {
          double *p = realloc (pts, o.count * d * sizeof *p);
          if (p == NULL)
            {
              status = SG_ENOMEM;
              break;
            }
          pts = p;
          for (size_t j = 0; j < o.count; j++)
            memcpy (pts + j * d, src->X + src->options[o.first + j] * d, d * sizeof *pts);
          status = add_options (&t, o, pts, o.count);
          continue;
        }
      int pair = o.kind == SG_OBS_PREFERENCE || o.kind == SG_OBS_TIE;
      const double *xb = src->X + (pair ? o.b : o.a) * d;
      status = sg_data_input_index (&t, src->X + o.a * d, &o.a);
      if (status == SG_OK)
        status = sg_data_input_index (&t, xb, &o.b);
      if (status == SG_OK)
        status = push_obs (&t, &o);
    }
  free (pts);
  if (status != SG_OK)
    {
      sg_data_clear (&t);
      return status;
    }
  *out = t;
  return SG_OK;
}

sg_status
sg_data_add_choice (sg_data *data, const double *chosen, const double *others,
                    size_t n_others, sg_confidence confidence, size_t shown_first)
{
  if (n_others == 0 || chosen == NULL || others == NULL
      || !confidence_ok (confidence)
      || (shown_first != SG_SHOWN_NONE && shown_first > n_others))
    return SG_EINVAL;
  size_t d = data->dim, k = n_others + 1;
  double *pts = malloc (k * d * sizeof *pts + 1);
  if (pts == NULL)
    return SG_ENOMEM;
  memcpy (pts, chosen, d * sizeof *pts);
  memcpy (pts + d, others, n_others * d * sizeof *pts);
  int status = add_options (data, (sg_obs) { .kind = SG_OBS_CHOICE,
                                             .confidence = confidence,
                                             .shown_first = shown_first },
                            pts, k);
  free (pts);
  return status;
}

sg_status
sg_data_add_ranking (sg_data *data, const double *order, size_t k)
{
  if (k < 2 || order == NULL)
    return SG_EINVAL;
  return add_options (data, (sg_obs) { .kind = SG_OBS_RANKING,
                                       .shown_first = SG_SHOWN_NONE },
                      order, k);
}

static int
input_used (const sg_data *data, size_t i)
{
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      if (o->a == i || ((o->kind == SG_OBS_PREFERENCE || o->kind == SG_OBS_TIE)
                        && o->b == i))
        return 1;
    }
  for (size_t k = 0; k < data->n_options; k++)
    if (data->options[k] == i)
      return 1;
  return 0;
}

sg_status
sg_data_remove_last (sg_data *data)
{
  if (data->n_obs == 0)
    return SG_EINVAL;
  data->n_obs--;
  const sg_obs *o = &data->obs[data->n_obs];
  if (o->kind == SG_OBS_CHOICE || o->kind == SG_OBS_RANKING)
    data->n_options = o->first;
  /* Inputs are appended in order of first use, so the unreferenced ones
   * left by the removed observation are at the end of the table. */
  while (data->n_inputs > 0 && !input_used (data, data->n_inputs - 1))
    data->n_inputs--;
  return SG_OK;
}

void
sg_likelihood_clear (sg_likelihood *lik)
{
  free (lik->W);
  free (lik->z);
  free (lik->sigma);
  free (lik->upper);
  free (lik->block_start);
  free (lik->cov_start);
  free (lik->block_cov);
  free (lik->C);
  free (lik->y);
  free (lik->noise_var);
  free (lik->w_index);
  free (lik->w_value);
  free (lik->c_index);
  memset (lik, 0, sizeof *lik);
}

int
sg_likelihood_independent (const sg_likelihood *lik)
{
  for (size_t j = 0; lik->block_start && j < lik->n_blocks; j++)
    if (lik->block_start[j + 1] - lik->block_start[j] > 1)
      return 0;
  return 1;
}

int
sg_likelihood_has_intervals (const sg_likelihood *lik)
{
  for (size_t k = 0; lik->upper && k < lik->m_probit; k++)
    if (lik->upper[k] < INFINITY)
      return 1;
  return 0;
}

void
sg_likelihood_add_noise_cov (const sg_likelihood *lik, double *S, size_t ld,
                             size_t offset)
{
  if (lik->block_start == NULL)
    {
      for (size_t k = 0; k < lik->m_probit; k++)
        S[(offset + k) * ld + offset + k] += lik->sigma[k] * lik->sigma[k];
      return;
    }
  for (size_t j = 0; j < lik->n_blocks; j++)
    {
      size_t r0 = lik->block_start[j], kb = lik->block_start[j + 1] - r0;
      const double *B = lik->block_cov + lik->cov_start[j];
      for (size_t a = 0; a < kb; a++)
        for (size_t b = 0; b < kb; b++)
          S[(offset + r0 + a) * ld + offset + r0 + b] += B[a * kb + b];
    }
}

/* Probit rows of one observation. */
size_t
sg_obs_n_probit_rows (const sg_obs *o)
{
  switch (o->kind)
    {
    case SG_OBS_NUMERIC: return 0;
    case SG_OBS_CHOICE:
    case SG_OBS_RANKING: return o->count - 1;
    default: return 1;
    }
}

size_t
sg_obs_n_numeric_rows (const sg_obs *o)
{
  return o->kind == SG_OBS_NUMERIC || o->kind == SG_OBS_VALID;
}

size_t
sg_data_n_probit_rows (const sg_data *data)
{
  size_t m = 0;
  for (size_t k = 0; k < data->n_obs; k++)
    m += sg_obs_n_probit_rows (&data->obs[k]);
  return m;
}

/* Rows, blocks and block-covariance entries of the lowering. */
static void
count_rows (const sg_data *data, size_t *m_probit, size_t *m_numeric,
            size_t *n_blocks, size_t *n_cov)
{
  *m_probit = *m_numeric = *n_blocks = *n_cov = 0;
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      size_t rows = sg_obs_n_probit_rows (o);
      *m_numeric += sg_obs_n_numeric_rows (o);
      *m_probit += rows;
      *n_blocks += rows > 0;
      *n_cov += rows * rows;
    }
}

static int
positive (double v)
{
  return v > 0 && isfinite (v);
}

/* SG_OK when NOISE has every value DATA uses. */
static int
check_noise (const sg_data *data, const sg_noise *noise)
{
  if (!positive (noise->numeric_sd) || !positive (noise->probit_sd))
    return SG_EINVAL;
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      if ((o->kind == SG_OBS_TIE || o->tie_offered) && !positive (noise->tie_margin))
        return SG_EINVAL;
      if (o->shown_first != SG_SHOWN_NONE && !isfinite (noise->side_bias))
        return SG_EINVAL;
      if (!positive (sg_confidence_noise_scale (o->confidence, noise)))
        return SG_EINVAL;
    }
  return SG_OK;
}

/* The noise sd of one option shown in answer O. */
static double
option_sd (const sg_obs *o, const sg_noise *noise)
{
  return noise->probit_sd * sg_confidence_noise_scale (o->confidence, noise);
}

/* The side bias of option J of answer O minus that of option 0: the
 * offset of the row "option 0 beats option J". */
static double
bias_of (const sg_obs *o, size_t j, const sg_noise *noise)
{
  return o->shown_first == j ? noise->side_bias : 0;
}

/* A builder: the next row, block and block entry to write. */
typedef struct {
  sg_likelihood *L;
  size_t row, block, cov;
} lowering;

/* Opens a block of K rows; returns its covariance (k x k, zeroed). */
static double *
open_block (lowering *w, size_t k)
{
  sg_likelihood *L = w->L;
  L->block_start[w->block] = w->row;
  L->cov_start[w->block] = w->cov;
  double *B = L->block_cov + w->cov;
  w->block++;
  w->cov += k * k;
  return B;
}

/* W[r, i] += v, in the dense or the sparse form (at most two inputs a
 * row: the first free slot, or the one that already holds I). */
static void
add_coef (sg_likelihood *L, size_t r, size_t i, double v)
{
  if (L->W)
    {
      L->W[r * L->n + i] += v;
      return;
    }
  size_t *ix = L->w_index + 2 * r;
  double *wv = L->w_value + 2 * r;
  size_t s = wv[0] != 0 && ix[0] != i;
  ix[s] = i;
  wv[s] += v;
}

/* Numeric row R observes f(X_I). */
static void
set_numeric (sg_likelihood *L, size_t r, size_t i)
{
  if (L->C)
    L->C[r * L->n + i] = 1;
  else
    L->c_index[r] = i;
}

/* Row R: t = z + f(p) - f(q) + e. */
static void
difference_row (sg_likelihood *L, size_t r, size_t p, size_t q, double z)
{
  add_coef (L, r, p, 1);
  add_coef (L, r, q, -1);
  L->z[r] = z;
}

static void
lower_answer (lowering *w, const sg_data *data, const sg_obs *o,
              const sg_noise *noise)
{
  sg_likelihood *L = w->L;
  size_t r = w->row;
  double sd = option_sd (o, noise), v = sd * sd, row_sd = M_SQRT2 * sd;
  if (o->kind == SG_OBS_PREFERENCE || o->kind == SG_OBS_TIE)
    {
      double *B = open_block (w, 1);
      if (o->kind == SG_OBS_PREFERENCE)   /* u(w) - u(l) > 0, or > delta */
        difference_row (L, r, o->a, o->b, bias_of (o, 0, noise) - bias_of (o, 1, noise)
                                          - (o->tie_offered ? noise->tie_margin : 0));
      else                                /* 0 < u(a) - u(b) + delta < 2 delta */
        {
          difference_row (L, r, o->a, o->b, noise->tie_margin);
          L->upper[r] = 2 * noise->tie_margin;
        }
      L->sigma[r] = row_sd;
      B[0] = row_sd * row_sd;
      w->row++;
      return;
    }
  const size_t *opt = data->options + o->first;
  size_t k = o->count - 1;
  double *B = open_block (w, k);
  for (size_t i = 0; i < k; i++)
    {
      L->sigma[r + i] = row_sd;
      if (o->kind == SG_OBS_CHOICE)   /* u(c) - u(o_i) > 0, shared e(c) */
        {
          difference_row (L, r + i, opt[0], opt[i + 1],
                          bias_of (o, 0, noise) - bias_of (o, i + 1, noise));
          for (size_t j = 0; j < k; j++)
            B[i * k + j] = i == j ? row_sd * row_sd : v;
        }
      else                            /* u(x_i) - u(x_{i+1}) > 0 */
        {
          difference_row (L, r + i, opt[i], opt[i + 1], 0);
          for (size_t j = 0; j < k; j++)
            B[i * k + j] = i == j ? row_sd * row_sd
                                  : (i + 1 == j || j + 1 == i ? -v : 0);
        }
    }
  w->row += k;
}

/* A one-row block of sd SD for the classic kinds. */
static void
single_row (lowering *w, double sd)
{
  double *B = open_block (w, 1);
  w->L->sigma[w->row] = sd;
  B[0] = sd * sd;
  w->row++;
}

static sg_status
likelihood_build (const sg_data *data, const sg_noise *noise, int sparse,
                  sg_likelihood *lik)
{
  if (check_noise (data, noise) != SG_OK)
    return SG_EINVAL;
  size_t n = data->n_inputs, ma, mr, nb, nc;
  count_rows (data, &ma, &mr, &nb, &nc);
  sg_likelihood L = { .n = n, .m_probit = ma, .m_numeric = mr, .n_blocks = nb };
  if (sparse)
    {
      L.w_index = calloc (2 * ma + 1, sizeof *L.w_index);
      L.w_value = calloc (2 * ma + 1, sizeof *L.w_value);
      L.c_index = calloc (mr + 1, sizeof *L.c_index);
    }
  else
    {
      L.W = calloc (ma * n + 1, sizeof *L.W);
      L.C = calloc (mr * n + 1, sizeof *L.C);
    }
  L.z = calloc (ma + 1, sizeof *L.z);
  L.sigma = calloc (ma + 1, sizeof *L.sigma);
  L.upper = calloc (ma + 1, sizeof *L.upper);
  L.block_start = calloc (nb + 1, sizeof *L.block_start);
  L.cov_start = calloc (nb + 1, sizeof *L.cov_start);
  L.block_cov = calloc (nc + 1, sizeof *L.block_cov);
  L.y = calloc (mr + 1, sizeof *L.y);
  L.noise_var = calloc (mr + 1, sizeof *L.noise_var);
  int have_rows = sparse ? L.w_index && L.w_value && L.c_index : L.W && L.C;
  if (!have_rows || !L.z || !L.sigma || !L.upper || !L.block_start || !L.cov_start
      || !L.block_cov || !L.y || !L.noise_var)
    {
      sg_likelihood_clear (&L);
      return SG_ENOMEM;
    }
  for (size_t k = 0; k < ma; k++)
    L.upper[k] = INFINITY;
  double s1 = noise->numeric_sd, s2 = noise->probit_sd;
  lowering w = { .L = &L };
  size_t r = 0;
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      size_t p = w.row;
      switch (o->kind)
        {
        case SG_OBS_NUMERIC:
        case SG_OBS_VALID:
          set_numeric (&L, r, o->a);
          L.y[r] = o->y;
          L.noise_var[r++] = s1 * s1;
          if (o->kind == SG_OBS_NUMERIC)
            break;
          /* valid: Phi((f - h) / s1) */
          add_coef (&L, p, o->a, 1);
          L.z[p] = -o->threshold;
          single_row (&w, s1);
          break;
        case SG_OBS_INVALID:        /* Phi((h - f) / s1) */
          add_coef (&L, p, o->a, -1);
          L.z[p] = o->threshold;
          single_row (&w, s1);
          break;
        case SG_OBS_BINARY:         /* Phi(label f / s2) */
          add_coef (&L, p, o->a, o->y);
          single_row (&w, s2);
          break;
        default:                    /* the human answers (top of sg-data.h) */
          lower_answer (&w, data, o, noise);
          break;
        }
    }
  L.block_start[nb] = ma;
  L.cov_start[nb] = nc;
  *lik = L;
  return SG_OK;
}

sg_status
sg_likelihood_build (const sg_data *data, const sg_noise *noise,
                     sg_likelihood *lik)
{
  return likelihood_build (data, noise, 0, lik);
}

sg_status
sg_likelihood_build_sparse (const sg_data *data, const sg_noise *noise,
                            sg_likelihood *lik)
{
  return likelihood_build (data, noise, 1, lik);
}
