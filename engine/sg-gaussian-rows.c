/* sg-gaussian-rows.c — the probit row-space problem shared by Laplace
 * (sg-laplace.c) and EP (sg-ep.c): exact conditioning on the numeric
 * rows, then the prior of the probit rows and its kernel derivatives.
 *
 * Notation of Rasmussen & Williams, Gaussian Processes for Machine
 * Learning (2006), chapters 2, 3 and 5, with K replaced by Kt; see
 * sg-gaussian-post-private.h. s = D^{1/2}, B = I + s Kt s = L L^T.
 */
#include "sg-gaussian-post-private.h"
#include "sg-linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
sg_rows_clear (sg_rows *rows)
{
  double **arrays[] = { &rows->K, &rows->A, &rows->b, &rows->sigma, &rows->Kt,
                        &rows->C, &rows->Ls, &rows->beta, &rows->G, &rows->P,
                        &rows->gamma };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free (*arrays[i]);
  memset (rows, 0, sizeof *rows);
}

/* calloc of LEN doubles (at least one, so a zero-sized block is not NULL). */
static double *
zeros (size_t len)
{
  return calloc (len + 1, sizeof (double));
}

static int
rows_alloc (sg_rows *R)
{
  size_t n = R->n, m = R->m, mr = R->m_numeric;
  R->K = zeros (n * n);
  R->A = zeros (m * n);
  R->b = zeros (m);
  R->sigma = zeros (m);
  R->Kt = zeros (m * m);
  R->C = zeros (mr * n);
  R->Ls = zeros (mr * mr);
  R->beta = zeros (mr);
  R->G = zeros (mr * n);
  R->P = zeros (mr * m);
  R->gamma = zeros (n);
  return R->K && R->A && R->b && R->sigma && R->Kt && R->C && R->Ls
         && R->beta && R->G && R->P && R->gamma ? SG_OK : SG_ENOMEM;
}

/* GP regression on the numeric rows (R&W alg. 2.1): Ls, beta, G, gamma,
 * the numeric log evidence, and Q = Ls^{-1} C K (m_numeric x n, caller's). */
static int
condition_on_numeric (const sg_likelihood *lik, double m0, sg_rows *R,
                      double *Q)
{
  size_t n = R->n, mr = R->m_numeric;
  double *S = zeros (mr * mr), *r0 = zeros (mr);
  int status = S && r0 ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      memcpy (R->C, lik->C, mr * n * sizeof *R->C);
      sg_gemm (0, 0, mr, n, n, 1.0, R->C, R->K, 0.0, Q);          /* C K */
      sg_gemm (0, 1, mr, mr, n, 1.0, Q, R->C, 0.0, S);             /* C K C^T */
      for (size_t i = 0; i < mr; i++)
        S[i * mr + i] += lik->noise_var[i];
      sg_symmetrize (S, mr);
      /* S >= R > 0: a failure is non-finite input or overflow */
      if (sg_cholesky (S, mr, SG_CHOLESKY_MAX_JITTER, R->Ls, NULL) != SG_OK)
        status = SG_ENUMERIC;
    }
  if (status == SG_OK)
    {
      double rowsum;
      for (size_t i = 0; i < mr; i++)
        {
          rowsum = 0;
          for (size_t j = 0; j < n; j++)
            rowsum += R->C[i * n + j];
          r0[i] = lik->y[i] - m0 * rowsum;
        }
      memcpy (R->beta, r0, mr * sizeof *r0);
      sg_cholesky_solve (R->Ls, mr, R->beta, 1);
      memcpy (R->G, R->C, mr * n * sizeof *R->G);
      sg_trsm_lower (R->Ls, mr, R->G, n);
      sg_trsm_lower (R->Ls, mr, Q, n);
      sg_gemv (1, mr, n, 1.0, R->C, R->beta, 0.0, R->gamma);
      double quad = 0;
      for (size_t i = 0; i < mr; i++)
        quad += r0[i] * R->beta[i];
      R->log_evidence_numeric = -0.5 * quad - 0.5 * sg_cholesky_logdet (R->Ls, mr)
                                - 0.5 * (double) mr * log (2 * M_PI);
    }
  free (S);
  free (r0);
  return status;
}

/* The probit rows under the numeric-conditioned prior: b = z + W m1 with
 * m1 = m0 + K gamma, and Kt = W K W^T - P^T P, P = Q W^T. */
static int
probit_prior (const sg_likelihood *lik, double m0, const double *Q, sg_rows *R)
{
  size_t n = R->n, m = R->m, mr = R->m_numeric;
  double *WK = zeros (m * n), *m1 = zeros (n);
  if (WK == NULL || m1 == NULL)
    {
      free (WK);
      free (m1);
      return SG_ENOMEM;
    }
  memcpy (R->A, lik->W, m * n * sizeof *R->A);
  memcpy (R->sigma, lik->sigma, m * sizeof *R->sigma);
  for (size_t j = 0; j < n; j++)
    m1[j] = m0;
  sg_gemv (0, n, n, 1.0, R->K, R->gamma, 1.0, m1);
  memcpy (R->b, lik->z, m * sizeof *R->b);
  sg_gemv (0, m, n, 1.0, R->A, m1, 1.0, R->b);
  sg_gemm (0, 0, m, n, n, 1.0, R->A, R->K, 0.0, WK);
  sg_gemm (0, 1, m, m, n, 1.0, WK, R->A, 0.0, R->Kt);
  sg_gemm (0, 1, mr, m, n, 1.0, Q, R->A, 0.0, R->P);
  sg_gemm (1, 0, m, m, mr, -1.0, R->P, R->P, 1.0, R->Kt);
  sg_symmetrize (R->Kt, m);
  free (WK);
  free (m1);
  return SG_OK;
}

sg_status
sg_rows_build (const sg_approx_model *model, const sg_data *data,
               sg_rows *rows)
{
  if (data == NULL || sg_approx_model_check (model, data->dim) != SG_OK)
    return SG_EINVAL;
  sg_likelihood lik;
  int status = sg_likelihood_build (data, &model->noise, &lik);
  if (status != SG_OK)
    return status;
  /* Laplace and EP here have one-dimensional sites on independent
   * half-line rows (sg-gaussian-post.h says why) */
  if (!sg_likelihood_independent (&lik) || sg_likelihood_has_intervals (&lik))
    {
      sg_likelihood_clear (&lik);
      return SG_EINVAL;
    }
  sg_rows R = { .n = data->n_inputs, .dim = data->dim, .m = lik.m_probit,
                .m_numeric = lik.m_numeric, .X = data->X };
  double *Q = zeros (R.m_numeric * R.n);
  status = rows_alloc (&R);
  if (status == SG_OK && Q == NULL)
    status = SG_ENOMEM;
  if (status == SG_OK)
    {
      sg_kernel_matrix (&model->kernel, data->X, R.n, data->X, R.n, R.K);
      status = condition_on_numeric (&lik, model->prior_mean, &R, Q);
    }
  if (status == SG_OK)
    status = probit_prior (&lik, model->prior_mean, Q, &R);
  free (Q);
  sg_likelihood_clear (&lik);
  if (status == SG_OK && !sg_all_finite (R.Kt, R.m * R.m))
    status = SG_ENUMERIC;
  if (status != SG_OK)
    {
      sg_rows_clear (&R);
      return status;
    }
  *rows = R;
  return SG_OK;
}

sg_status
sg_rows_factor (const sg_rows *rows, const double *s, double *L)
{
  size_t m = rows->m;
  if (m == 0)
    return SG_OK;
  double *B = malloc (m * m * sizeof *B);
  if (B == NULL)
    return SG_ENOMEM;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      B[i * m + j] = (i == j) + s[i] * rows->Kt[i * m + j] * s[j];
  /* B >= I, so a failure means non-finite input, not indefiniteness. */
  int status = sg_cholesky (B, m, 1e-12, L, NULL);
  free (B);
  return status == SG_OK ? SG_OK : SG_ENUMERIC;
}

void
sg_rows_alpha (const sg_rows *rows, const double *s, const double *L,
               const double *nu, double *alpha)
{
  size_t m = rows->m;
  if (m == 0)
    return;
  sg_gemv (0, m, m, 1.0, rows->Kt, nu, 0.0, alpha);
  for (size_t i = 0; i < m; i++)
    alpha[i] *= s[i];
  sg_cholesky_solve (L, m, alpha, 1);
  for (size_t i = 0; i < m; i++)
    alpha[i] = nu[i] - s[i] * alpha[i];
}

sg_status
sg_rows_posterior_cov (const sg_rows *rows, const double *s, const double *L,
                       double *Sigma)
{
  size_t m = rows->m;
  if (m == 0)
    return SG_OK;
  double *V = malloc (m * m * sizeof *V);
  if (V == NULL)
    return SG_ENOMEM;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      V[i * m + j] = s[i] * rows->Kt[i * m + j];
  sg_trsm_lower (L, m, V, m);
  memcpy (Sigma, rows->Kt, m * m * sizeof *Sigma);
  sg_gemm (1, 0, m, m, m, -1.0, V, V, 1.0, Sigma);
  sg_symmetrize (Sigma, m);
  free (V);
  return SG_OK;
}

sg_status
sg_rows_prec_term (const sg_rows *rows, const double *s, const double *L,
                   double *Rp)
{
  size_t m = rows->m;
  memset (Rp, 0, m * m * sizeof *Rp);
  for (size_t i = 0; i < m; i++)
    Rp[i * m + i] = s[i];
  sg_cholesky_solve (L, m, Rp, m);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      Rp[i * m + j] *= s[i];
  sg_symmetrize (Rp, m);
  return SG_OK;
}

double
sg_rows_explicit_grad (const sg_rows *rows, const double *alpha,
                       const double *Rp, const double *dKt)
{
  size_t m = rows->m;
  double quad = 0, trace = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      {
        quad += alpha[i] * dKt[i * m + j] * alpha[j];
        trace += Rp[i * m + j] * dKt[i * m + j];   /* both symmetric */
      }
  return 0.5 * quad - 0.5 * trace;
}

/* ---- derivatives of the conditioned prior in a kernel parameter -------- */

struct sg_rows_grad_work {
  double *M;      /* m_numeric x m: S^{-1} C K W^T = Ls^{-T} P */
  double *Sinv;   /* m_numeric x m_numeric */
  double *dK;     /* n x n */
  double *WdK;    /* m x n */
  double *CdK;    /* m_numeric x n */
  double *Z;      /* m x m_numeric: W dK C^T */
  double *dS;     /* m_numeric x m_numeric: C dK C^T */
  double *ZM;     /* m x m */
  double *dSM;    /* m_numeric x m */
  double *v;      /* m_numeric */
};

void
sg_rows_grad_work_free (sg_rows_grad_work *w)
{
  if (w == NULL)
    return;
  free (w->M);
  free (w->Sinv);
  free (w->dK);
  free (w->WdK);
  free (w->CdK);
  free (w->Z);
  free (w->dS);
  free (w->ZM);
  free (w->dSM);
  free (w->v);
  free (w);
}

sg_status
sg_rows_grad_work_new (const sg_rows *R, sg_rows_grad_work **work)
{
  size_t n = R->n, m = R->m, mr = R->m_numeric;
  sg_rows_grad_work *w = calloc (1, sizeof *w);
  if (w == NULL)
    return SG_ENOMEM;
  w->M = zeros (mr * m);
  w->Sinv = zeros (mr * mr);
  w->dK = zeros (n * n);
  w->WdK = zeros (m * n);
  w->CdK = zeros (mr * n);
  w->Z = zeros (m * mr);
  w->dS = zeros (mr * mr);
  w->ZM = zeros (m * m);
  w->dSM = zeros (mr * m);
  w->v = zeros (mr);
  if (!w->M || !w->Sinv || !w->dK || !w->WdK || !w->CdK || !w->Z || !w->dS
      || !w->ZM || !w->dSM || !w->v
      || sg_cholesky_inverse (R->Ls, mr, w->Sinv) != SG_OK)
    {
      sg_rows_grad_work_free (w);
      return SG_ENOMEM;
    }
  memcpy (w->M, R->P, mr * m * sizeof *w->M);
  sg_trsm_lower_trans (R->Ls, mr, w->M, m);
  *work = w;
  return SG_OK;
}

/* With dS = C dK C^T, H = S^{-1} C K and M = H W^T:
 *   d(numeric log evidence) = beta^T dS beta / 2 - tr(S^{-1} dS) / 2
 *                                                      (R&W eq. 5.9)
 *   dKt = W dK W^T - Z M - M^T Z^T + M^T dS M,   Z = W dK C^T
 *   db  = W dK gamma - M^T dS beta
 * (differentiating K1 = K - K C^T S^{-1} C K and m1 = m0 + K C^T beta). */
sg_status
sg_rows_prior_grad (const sg_rows *R, const sg_kernel *kernel, size_t p,
                    sg_rows_grad_work *w, double *dKt, double *db,
                    double *dnum)
{
  size_t n = R->n, m = R->m, mr = R->m_numeric;
  sg_kernel_matrix_grad (kernel, R->X, n, R->X, n, p, w->dK);
  sg_gemm (0, 0, m, n, n, 1.0, R->A, w->dK, 0.0, w->WdK);
  sg_gemm (0, 1, m, m, n, 1.0, w->WdK, R->A, 0.0, dKt);
  sg_gemv (0, m, n, 1.0, w->WdK, R->gamma, 0.0, db);
  *dnum = 0;
  if (mr == 0)
    return SG_OK;
  sg_gemm (0, 0, mr, n, n, 1.0, R->C, w->dK, 0.0, w->CdK);
  sg_gemm (0, 1, mr, mr, n, 1.0, w->CdK, R->C, 0.0, w->dS);
  sg_gemm (0, 1, m, mr, n, 1.0, w->WdK, R->C, 0.0, w->Z);
  /* numeric evidence */
  sg_gemv (0, mr, mr, 1.0, w->dS, R->beta, 0.0, w->v);
  double quad = 0, trace = 0;
  for (size_t i = 0; i < mr; i++)
    {
      quad += R->beta[i] * w->v[i];
      for (size_t j = 0; j < mr; j++)
        trace += w->Sinv[i * mr + j] * w->dS[i * mr + j];
    }
  *dnum = 0.5 * quad - 0.5 * trace;
  /* probit prior covariance and mean */
  sg_gemm (0, 0, m, m, mr, 1.0, w->Z, w->M, 0.0, w->ZM);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      dKt[i * m + j] -= w->ZM[i * m + j] + w->ZM[j * m + i];
  sg_gemm (0, 0, mr, m, mr, 1.0, w->dS, w->M, 0.0, w->dSM);
  sg_gemm (1, 0, m, m, mr, 1.0, w->M, w->dSM, 1.0, dKt);
  sg_symmetrize (dKt, m);
  sg_gemv (1, mr, m, -1.0, w->M, w->v, 1.0, db);
  return SG_OK;
}
