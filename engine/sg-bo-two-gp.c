/* sg-bo-two-gp.c — the two-GP safe surrogate (see sg-bo.h). */
#include "sg-bo-private.h"

#include <math.h>

/* ---- Two-GP surrogate ----------------------------------------------------------
 * SafeOpt-style baseline (sg-bo.h): an EP GP classifier of validity and a
 * GP regression of the valid values, independent given the kernel. */

/* REG: the measured values as numeric observations; CLS: every safe answer
 * as a binary label (+1 valid, -1 invalid or a value below h). Both
 * initialised by the call. */
int
_sg_bo_two_gp_split (const sg_data *data, sg_data *reg, sg_data *cls)
{
  sg_data_init (reg, data->dim);
  sg_data_init (cls, data->dim);
  int status = SG_OK;
  for (size_t i = 0; i < data->n_obs && status == SG_OK; i++)
    {
      const sg_obs *o = &data->obs[i];
      const double *x = data->X + o->a * data->dim;
      if (o->kind == SG_OBS_VALID)
        {
          status = sg_data_add_numeric (reg, x, o->y);
          if (status == SG_OK)
            status = sg_data_add_binary (cls, x, +1);
        }
      else if (o->kind == SG_OBS_NUMERIC)  /* a value below h: unsafe */
        {
          status = sg_data_add_numeric (reg, x, o->y);
          if (status == SG_OK)
            status = sg_data_add_binary (cls, x, -1);
        }
      else if (o->kind == SG_OBS_INVALID)
        status = sg_data_add_binary (cls, x, -1);
    }
  if (status != SG_OK)
    {
      sg_data_clear (reg);
      sg_data_clear (cls);
    }
  return status;
}

int
_sg_bo_two_gp_build (sg_bo *bo, const sg_progress *progress)
{
  sg_data reg, cls;
  int status = _sg_bo_two_gp_split (&bo->data, &reg, &cls);
  if (status != SG_OK)
    return status;
  /* the classifier: latent f_c with mean 0, labels through probit_sd, on
   * the scale of the hyperparameters (a floor on f's variance in f's units
   * says nothing of f_c's) */
  sg_approx_model model;
  sg_hyper_approx_model (&bo->model_hyper, SG_LINK_PROBIT, &model);
  model.prior_mean = 0;
  model.kernel.variance = bo->hyper.kernel.variance;
  status = sg_ep_posterior (&model, &cls, NULL, progress, &bo->cls_warm,
                            &bo->cls_post);
  if (status == SG_OK)
    {
      bo->has_two_gp = 1;
      /* the regression: exact GP on the valid values (numeric rows only, so
       * sg_laplace_posterior does no approximation) */
      if (reg.n_obs > 0)
        {
          sg_hyper_approx_model (&bo->model_hyper, SG_LINK_PROBIT, &model);
          status = sg_laplace_posterior (&model, &reg, NULL, progress, NULL,
                                         &bo->reg_post);
          bo->has_reg = status == SG_OK;
        }
    }
  sg_data_clear (&reg);
  sg_data_clear (&cls);
  return status;
}

/* F[0..n): samples of the regression GP at X; F[n..2n): of the classifier's
 * latent f_c(x); from the common normal variates Z (2n). */
int
_sg_bo_two_gp_samples (const sg_bo *bo, const double *x, size_t n, const double *Z, double *F)
{
  double mean = bo->model_hyper.mean, var = bo->model_hyper.kernel.variance;  /* the prior */
  int status = SG_OK;
  if (bo->has_reg)
    status = sg_gauss_post_predict (&bo->reg_post, x, 1, &mean, &var);
  double mc = 0, vc = 0;
  if (status == SG_OK)
    status = sg_gauss_post_predict (&bo->cls_post, x, 1, &mc, &vc);
  if (status != SG_OK)
    return status;
  double sd = sqrt (fmax (var, 0)), sdc = sqrt (fmax (vc, 0));
  for (size_t j = 0; j < n; j++)
    {
      F[j] = mean + sd * Z[j];
      F[n + j] = mc + sdc * Z[n + j];
    }
  return SG_OK;
}

/* The safe-UCB rule of sg_acq_safe_ucb with the two models: the HPD upper
 * end of the regression samples, penalised where the classifier's
 * P(f_c(x) >= 0) is below safe_probability. */
double
_sg_bo_two_gp_safe_ucb (const sg_bo *bo, const double *F, size_t n, double *scratch)
{
  const sg_bo_config *c = &bo->cfg;
  double ucb = sg_acq_hpd (F, n, c->ucb_level, scratch, NULL);
  double p_valid = sg_acq_prob_at_least (F + n, n, 0.0);
  return p_valid < c->safe_probability ? ucb - c->safe_penalty : ucb;
}

const sg_gauss_post *
sg_bo_two_gp_classifier (const sg_bo *bo)
{
  return bo->has_two_gp ? &bo->cls_post : NULL;
}

const sg_gauss_post *
sg_bo_two_gp_regression (const sg_bo *bo)
{
  return bo->has_reg ? &bo->reg_post : NULL;
}
