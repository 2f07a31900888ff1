/* sg-hier-sparse.c — a study at scale (sg-hier.h, sg-svgp-rows.h): the
 * sparse population model, its summed sites (the population cache), and
 * a person's exact posterior given their own answers and the others'
 * pseudo-observations of g. */
#include "sg-hier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ZERO_PART 1e-12

sg_status
sg_hier_sparse_fit (const sg_hier_model *model, const sg_hier_data *hd,
                    const sg_svgp_rows_options *opt, gsl_rng *rng,
                    const sg_progress *progress, sg_svgp *q)
{
  if (sg_hier_model_check (model, hd) != SG_OK || hd->data.n_obs == 0
      || !(model->pop.variance > 0))
    return SG_EINVAL;
  sg_kernel k;
  sg_likelihood lik;
  int status = sg_hier_model_kernel (model, &k);
  if (status != SG_OK)
    return status;
  /* the optimiser packs log-variances, which must be finite: a part of
   * variance 0 enters as a negligible 1e-12 v_pop (held by the fit) */
  if (k.ind_variance == 0)
    k.ind_variance = ZERO_PART * k.variance;
  status = sg_hier_likelihood_build_sparse (model, hd, &lik);
  if (status != SG_OK)
    return status;
  sg_svgp_rows_data rd = { .dim = hd->dim + 1, .n = hd->data.n_inputs,
                           .X = hd->data.X, .lik = &lik, .mean = model->mean };
  status = sg_svgp_rows_fit (&k, &rd, opt, rng, progress, q);
  sg_likelihood_clear (&lik);
  return status;
}

/* The units (sg_svgp_rows_count numbering: probit rows, then numeric
 * rows) of the answers that count: PERSON's (or everyone's) first
 * SEEN[p]. *NB receives their number. */
static size_t *
counted_units (const sg_hier_data *hd, const sg_likelihood *lik, const size_t *seen,
               size_t person, size_t *nb)
{
  size_t n_units = lik->m_probit + lik->m_numeric;
  size_t *units = malloc ((n_units + 1) * sizeof *units);
  size_t *answered = calloc (hd->n_people, sizeof *answered);
  if (units == NULL || answered == NULL)
    {
      free (units);
      free (answered);
      return NULL;
    }
  size_t probit = 0, numeric = lik->m_probit, k_out = 0;
  for (size_t k = 0; k < hd->data.n_obs; k++)
    {
      const sg_obs *o = &hd->data.obs[k];
      size_t p = sg_hier_obs_person (hd, k), rp = sg_obs_n_probit_rows (o);
      size_t rn = sg_obs_n_numeric_rows (o);
      int counts = (person == SG_HIER_POPULATION || p == person)
                   && (seen == NULL || answered[p] < seen[p]);
      answered[p]++;
      for (size_t r = 0; r < rp && counts; r++)
        units[k_out++] = probit + r;
      for (size_t r = 0; r < rn && counts; r++)
        units[k_out++] = numeric + r;
      probit += rp;
      numeric += rn;
    }
  free (answered);
  *nb = k_out;
  return units;
}

sg_status
sg_hier_population_sites (const sg_hier_model *model, const sg_hier_data *hd,
                          const sg_svgp *q, const size_t *seen, size_t person,
                          double sign, double *lambda, double *eta)
{
  if (sg_hier_model_check (model, hd) != SG_OK || q == NULL || q->dim != hd->dim + 1
      || (person != SG_HIER_POPULATION && person >= hd->n_people))
    return SG_EINVAL;
  if (hd->data.n_obs == 0)
    return SG_OK;
  sg_likelihood lik;
  int status = sg_hier_likelihood_build_sparse (model, hd, &lik);
  if (status != SG_OK)
    return status;
  size_t nb = 0;
  size_t *units = counted_units (hd, &lik, seen, person, &nb);
  sg_svgp_rows_data rd = { .dim = hd->dim + 1, .n = hd->data.n_inputs,
                           .X = hd->data.X, .lik = &lik, .mean = model->mean };
  status = units ? SG_OK : SG_ENOMEM;
  if (status == SG_OK && nb > 0)
    status = sg_svgp_rows_sites (q, &rd, units, nb, sign, lambda, eta);
  free (units);
  sg_likelihood_clear (&lik);
  return status;
}

sg_status
sg_hier_posterior_new_summary (const sg_hier_model *model, const sg_hier_data *hd,
                               const sg_svgp_pseudo *population,
                               sg_skewgp_posterior **out)
{
  if (out == NULL || population == NULL || population->dim != hd->dim + 1)
    return SG_EINVAL;
  sg_kernel k;
  sg_likelihood lik, all;
  double *X = NULL;
  int status = sg_hier_model_kernel (model, &k);
  if (status != SG_OK)
    return status;
  status = sg_hier_likelihood_build (model, hd, &lik);
  if (status != SG_OK)
    return status;
  status = sg_svgp_pseudo_append (population, hd->data.X, hd->data.n_inputs, &lik, &X,
                                  &all);
  sg_likelihood_clear (&lik);
  if (status != SG_OK)
    return status;
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, model->mean);
  status = sg_skewgp_posterior_new (&prior, X, &all, out);
  sg_likelihood_clear (&all);
  free (X);
  return status;
}
