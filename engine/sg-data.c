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
};
#define N_OBS_KINDS (sizeof obs_kind_names / sizeof obs_kind_names[0])

const char *
sg_obs_kind_name (sg_obs_kind kind)
{
  return (size_t) kind < N_OBS_KINDS ? obs_kind_names[kind] : "?";
}

sg_status
sg_obs_kind_parse (const char *name, sg_obs_kind *kind)
{
  for (size_t i = 0; name != NULL && i < N_OBS_KINDS; i++)
    if (strcmp (name, obs_kind_names[i]) == 0)
      {
        *kind = (sg_obs_kind) i;
        return SG_OK;
      }
  return SG_EINVAL;
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
  sg_data_init (data, data->dim);
}

sg_status
sg_data_copy (sg_data *dst, const sg_data *src)
{
  sg_data_init (dst, src->dim);
  size_t nx = src->n_inputs * src->dim;
  dst->X = malloc ((nx ? nx : 1) * sizeof *dst->X);
  dst->obs = malloc ((src->n_obs ? src->n_obs : 1) * sizeof *dst->obs);
  if (dst->X == NULL || dst->obs == NULL)
    {
      sg_data_clear (dst);
      return SG_ENOMEM;
    }
  memcpy (dst->X, src->X, nx * sizeof *dst->X);
  memcpy (dst->obs, src->obs, src->n_obs * sizeof *dst->obs);
  dst->n_inputs = dst->cap_inputs = src->n_inputs;
  dst->n_obs = dst->cap_obs = src->n_obs;
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
  size_t d = data->dim;
  if (memcmp (winner, loser, d * sizeof *winner) == 0)
    return SG_EINVAL;
  size_t before = data->n_inputs;
  sg_obs o = { .kind = SG_OBS_PREFERENCE };
  int status = sg_data_input_index (data, winner, &o.a);
  if (status == SG_OK)
    status = sg_data_input_index (data, loser, &o.b);
  if (status == SG_OK)
    status = push_obs (data, &o);
  if (status != SG_OK)
    data->n_inputs = before;
  return status;
}

static int
input_used (const sg_data *data, size_t i)
{
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      if (o->a == i || (o->kind == SG_OBS_PREFERENCE && o->b == i))
        return 1;
    }
  return 0;
}

sg_status
sg_data_remove_last (sg_data *data)
{
  if (data->n_obs == 0)
    return SG_EINVAL;
  data->n_obs--;
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
  free (lik->C);
  free (lik->y);
  free (lik->noise_var);
  memset (lik, 0, sizeof *lik);
}

static void
count_rows (const sg_data *data, size_t *m_probit, size_t *m_numeric)
{
  *m_probit = *m_numeric = 0;
  for (size_t k = 0; k < data->n_obs; k++)
    switch (data->obs[k].kind)
      {
      case SG_OBS_NUMERIC: (*m_numeric)++; break;
      case SG_OBS_VALID: (*m_numeric)++; (*m_probit)++; break;
      default: (*m_probit)++; break;
      }
}

sg_status
sg_likelihood_build (const sg_data *data, const sg_noise *noise,
                     sg_likelihood *lik)
{
  if (!(noise->numeric_sd > 0) || !isfinite (noise->numeric_sd)
      || !(noise->probit_sd > 0) || !isfinite (noise->probit_sd))
    return SG_EINVAL;
  size_t n = data->n_inputs, ma, mr;
  count_rows (data, &ma, &mr);
  sg_likelihood L = { .n = n, .m_probit = ma, .m_numeric = mr };
  L.W = calloc (ma * n + 1, sizeof *L.W);
  L.z = calloc (ma + 1, sizeof *L.z);
  L.sigma = calloc (ma + 1, sizeof *L.sigma);
  L.C = calloc (mr * n + 1, sizeof *L.C);
  L.y = calloc (mr + 1, sizeof *L.y);
  L.noise_var = calloc (mr + 1, sizeof *L.noise_var);
  if (!L.W || !L.z || !L.sigma || !L.C || !L.y || !L.noise_var)
    {
      sg_likelihood_clear (&L);
      return SG_ENOMEM;
    }
  double s1 = noise->numeric_sd, s2 = noise->probit_sd;
  size_t p = 0, r = 0;
  for (size_t k = 0; k < data->n_obs; k++)
    {
      const sg_obs *o = &data->obs[k];
      switch (o->kind)
        {
        case SG_OBS_NUMERIC:
        case SG_OBS_VALID:
          L.C[r * n + o->a] = 1;
          L.y[r] = o->y;
          L.noise_var[r++] = s1 * s1;
          if (o->kind == SG_OBS_NUMERIC)
            break;
          /* valid: Phi((f - h) / s1) */
          L.W[p * n + o->a] = 1;
          L.z[p] = -o->threshold;
          L.sigma[p++] = s1;
          break;
        case SG_OBS_INVALID:        /* Phi((h - f) / s1) */
          L.W[p * n + o->a] = -1;
          L.z[p] = o->threshold;
          L.sigma[p++] = s1;
          break;
        case SG_OBS_BINARY:         /* Phi(label f / s2) */
          L.W[p * n + o->a] = o->y;
          L.sigma[p++] = s2;
          break;
        case SG_OBS_PREFERENCE:     /* Phi((f_w - f_l) / (sqrt2 s2)) */
          L.W[p * n + o->a] = 1;
          L.W[p * n + o->b] = -1;
          L.sigma[p++] = M_SQRT2 * s2;
          break;
        }
    }
  *lik = L;
  return SG_OK;
}
