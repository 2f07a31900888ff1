/* sg-bo-recommend.c — the point reported as the optimum (sg_bo_recommend,
 * sg-bo.h), from the public interface of the loop only. */
#include "sg-bo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const recommend_names[] = { "winner", "evaluated", "box" };

const char *
sg_bo_recommend_name (sg_bo_recommend_rule rule)
{
  return sg_name_of (recommend_names, sizeof recommend_names / sizeof recommend_names[0],
                     (size_t) rule);
}

sg_status
sg_bo_recommend_parse (const char *name, sg_bo_recommend_rule *rule)
{
  size_t i;
  sg_status status = sg_name_lookup (recommend_names,
                                     sizeof recommend_names / sizeof recommend_names[0], name, &i);
  if (status == SG_OK)
    *rule = (sg_bo_recommend_rule) i;
  return status;
}

/* Posterior means of the model at the N points X into MEAN. */
static sg_status
means_at (const sg_bo *bo, const double *X, size_t n, double *mean)
{
  sg_point_summary *s = malloc (n * sizeof *s);
  if (s == NULL)
    return SG_ENOMEM;
  sg_status status = sg_bo_summarize (bo, X, n, SG_SUMMARY_MOMENTS, 0.95, NULL, s);
  if (status == SG_OK)
    for (size_t i = 0; i < n; i++)
      mean[i] = s[i].mean;
  free (s);
  return status;
}

typedef struct {
  const sg_bo *bo;
  sg_status status;
} mean_ctx;

static void
mean_batch (const double *X, size_t n, void *user_data, double *values)
{
  mean_ctx *m = user_data;
  sg_status status = m->status == SG_OK ? means_at (m->bo, X, n, values) : m->status;
  if (status != SG_OK)
    {
      m->status = status;
      for (size_t i = 0; i < n; i++)
        values[i] = -INFINITY;
    }
}

static double
mean_one (const double *x, void *user_data)
{
  double v;
  mean_batch (x, 1, user_data, &v);
  return v;
}

/* The evaluated input of largest posterior mean. */
static sg_status
best_evaluated (const sg_bo *bo, double *x, double *mean)
{
  const sg_data *d = sg_bo_data (bo);
  size_t n = d->n_inputs, dim = sg_bo_get_config (bo)->dim;
  if (n == 0)
    return SG_EINVAL;
  double *m = malloc (n * sizeof *m);
  if (m == NULL)
    return SG_ENOMEM;
  sg_status status = means_at (bo, d->X, n, m);
  if (status == SG_OK)
    {
      size_t best = 0;
      for (size_t i = 1; i < n; i++)
        if (m[i] > m[best])
          best = i;
      memcpy (x, d->X + best * dim, dim * sizeof *x);
      *mean = m[best];
    }
  free (m);
  return status;
}

sg_status
sg_bo_recommend (const sg_bo *bo, sg_bo_recommend_rule rule, gsl_rng *rng,
                 const sg_progress *progress, double *x, double *mean)
{
  if (bo == NULL || x == NULL || mean == NULL || (unsigned) rule > SG_BO_RECOMMEND_BOX)
    return SG_EINVAL;
  const sg_bo_config *c = sg_bo_get_config (bo);
  double xb[SG_BO_MAX_DIM], mb;
  sg_status status;
  if (rule == SG_BO_RECOMMEND_WINNER)
    {
      if (!sg_bo_best (bo, xb))
        return SG_EINVAL;
      status = means_at (bo, xb, 1, &mb);
    }
  else if (rule == SG_BO_RECOMMEND_EVALUATED)
    status = best_evaluated (bo, xb, &mb);
  else if (rng == NULL)
    status = SG_EINVAL;
  else
    {
      mean_ctx m = { bo, SG_OK };
      const sg_data *d = sg_bo_data (bo);
      status = sg_acq_maximize_batched (c->dim, c->lower, c->upper, mean_one, mean_batch, &m,
                                        d->X, d->n_inputs, &c->search, rng, progress, xb, &mb);
      if (status == SG_OK)
        status = m.status;
      if (status == SG_OK)  /* the value alone, as means_at gives it */
        status = means_at (bo, xb, 1, &mb);
    }
  if (status == SG_OK)
    {
      memcpy (x, xb, c->dim * sizeof *x);
      *mean = mb;
    }
  return status;
}
