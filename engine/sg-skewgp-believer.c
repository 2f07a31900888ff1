/* sg-skewgp-believer.c — the Gaussian f | t = t_j of the stored samples
 * (sg_skewgp_conditional, sg_skewgp_conditional_all; sg-skewgp.h). */
#include "sg-skewgp-private.h"

#include "sg-linalg.h"

#include <math.h>
#include <stdlib.h>

sg_status
sg_skewgp_conditional (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
                       size_t j, const double *XS, size_t b, double *mean, double *var)
{
  if (post == NULL || samples == NULL || samples->mh != post->mh || j >= samples->N
      || XS == NULL || b == 0 || mean == NULL || var == NULL)
    return SG_EINVAL;
  size_t mh = post->mh, N = samples->N;
  double *WQ = malloc ((mh * b + 1) * sizeof *WQ);
  double *V = malloc (b * sizeof *V);
  double *scratch = malloc ((b * post->nz + 1) * sizeof *scratch);
  sg_status status = (WQ && V && scratch) ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_skewgp_whiten_points (post, XS, b, WQ, V, scratch);
  if (status == SG_OK)
    for (size_t i = 0; i < b; i++)
      {
        /* xi + w(x)^T E_j: column J of E is the whitened h_j = [y; t_j] */
        double m = post->xi;
        for (size_t k = 0; k < mh; k++)
          m += WQ[k * b + i] * samples->E[k * N + j];
        mean[i] = m;
        var[i] = fmax (V[i], 0.0);
      }
  free (WQ); free (V); free (scratch);
  return status;
}

sg_status
sg_skewgp_conditional_all (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
                           const double *XS, size_t b, double *mean, double *var, double *cov)
{
  if (post == NULL || samples == NULL || samples->mh != post->mh || XS == NULL || b == 0
      || mean == NULL || var == NULL)
    return SG_EINVAL;
  size_t mh = post->mh, N = samples->N;
  double *WQ = malloc ((mh * b + 1) * sizeof *WQ);
  double *V = malloc (b * sizeof *V);
  double *scratch = malloc ((b * post->nz + 1) * sizeof *scratch);
  sg_status status = (WQ && V && scratch) ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_skewgp_whiten_points (post, XS, b, WQ, V, scratch);
  if (status == SG_OK)
    {
      /* row i: xi + w(x_i)^T E, every stored sample at once */
      sg_gemm (1, 0, b, N, mh, 1, WQ, samples->E, 0, mean);
      for (size_t i = 0; i < b * N; i++)
        mean[i] += post->xi;
      for (size_t i = 0; i < b; i++)
        var[i] = fmax (V[i], 0.0);
      if (cov != NULL)
        {
          /* the remainder covariance K(XS, XS) - W^T W */
          sg_kernel_matrix (&post->kernel, XS, b, XS, b, cov);
          sg_gemm (1, 0, b, b, mh, -1, WQ, WQ, 1, cov);
          sg_symmetrize (cov, b);
          for (size_t i = 0; i < b; i++)
            cov[i * b + i] = var[i];
        }
    }
  free (WQ); free (V); free (scratch);
  return status;
}
