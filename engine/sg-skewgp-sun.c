/* sg-skewgp-sun.c — 001 Lemma 1 and Lemma 2, literally (reference code). */
#include "sg-skewgp-sun.h"
#include "sg-linalg.h"
#include "sg-skewgp-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
sg_sun_init (sg_sun *sun, size_t p, size_t s)
{
  sun->p = p;
  sun->s = s;
  sun->xi = calloc (p + 1, sizeof (double));
  sun->Omega = calloc (p * p + 1, sizeof (double));
  sun->Delta = calloc (p * s + 1, sizeof (double));
  sun->gamma = calloc (s + 1, sizeof (double));
  sun->Gamma = calloc (s * s + 1, sizeof (double));
  if (!sun->xi || !sun->Omega || !sun->Delta || !sun->gamma || !sun->Gamma)
    {
      sg_sun_clear (sun);
      return SG_ENOMEM;
    }
  return SG_OK;
}

void
sg_sun_clear (sg_sun *sun)
{
  free (sun->xi);
  free (sun->Omega);
  free (sun->Delta);
  free (sun->gamma);
  free (sun->Gamma);
  memset (sun, 0, sizeof *sun);
}

/* A^{-1} for a symmetric positive definite n x n A (no jitter: the
 * literal formulas need honest inverses). */
static int
spd_inverse (const double *A, size_t n, double *Ainv)
{
  double *L = malloc ((n * n + 1) * sizeof *L);
  if (L == NULL)
    return SG_ENOMEM;
  int status = sg_cholesky (A, n, 1e-300, L, NULL);
  if (status == SG_OK)
    status = sg_cholesky_inverse (L, n, Ainv);
  free (L);
  return status;
}

int
sg_sun_from_skewgp_prior (const sg_skewgp_prior *prior, const double *X,
                          size_t n, sg_sun *out)
{
  if (sg_skewgp_prior_check (prior) != SG_OK)
    return SG_EINVAL;
  size_t s = prior->s;
  sg_sun r;
  if (sg_sun_init (&r, n, s) != SG_OK)
    return SG_ENOMEM;
  double v = prior->kernel.variance;
  for (size_t i = 0; i < n; i++)
    r.xi[i] = prior->mean;
  sg_kernel_matrix (&prior->kernel, X, n, X, n, r.Omega);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < s; j++)
      r.Delta[i * s + j] = sg_kernel_eval (&prior->kernel, X + i * prior->kernel.dim,
                                           prior->pseudo_points + j * prior->kernel.dim)
                           / v * prior->phases[j];
  for (size_t i = 0; i < s; i++)
    {
      r.gamma[i] = prior->gamma[i];
      for (size_t j = 0; j < s; j++)
        r.Gamma[i * s + j] = prior->phases[i] * prior->phases[j] / v
          * sg_kernel_eval (&prior->kernel, prior->pseudo_points + i * prior->kernel.dim,
                            prior->pseudo_points + j * prior->kernel.dim);
    }
  *out = r;
  return SG_OK;
}

int
sg_sun_probit_update (const sg_sun *prior, size_t ma, const double *W,
                      const double *z, const double *Sigma, sg_sun *post)
{
  size_t p = prior->p, s = prior->s, s2 = s + ma;
  sg_sun r;
  if (sg_sun_init (&r, p, s2) != SG_OK)
    return SG_ENOMEM;
  double *D = malloc ((p + 1) * sizeof *D);
  double *DW = malloc ((p * ma + 1) * sizeof *DW);   /* D W^T, p x ma */
  double *OW = malloc ((p * ma + 1) * sizeof *OW);   /* Omega W^T     */
  if (!D || !DW || !OW)
    {
      free (D); free (DW); free (OW);
      sg_sun_clear (&r);
      return SG_ENOMEM;
    }
  for (size_t i = 0; i < p; i++)
    D[i] = sqrt (prior->Omega[i * p + i]);
  /* eq. 26: xi_p = xi, Omega_p = Omega */
  memcpy (r.xi, prior->xi, p * sizeof *r.xi);
  memcpy (r.Omega, prior->Omega, p * p * sizeof *r.Omega);
  /* eq. 27: Delta_p = [Delta, Omegabar D W^T]; Omegabar D = D^{-1} Omega */
  sg_gemm (0, 1, p, ma, p, 1, prior->Omega, W, 0, OW);
  for (size_t i = 0; i < p; i++)
    {
      for (size_t j = 0; j < s; j++)
        r.Delta[i * s2 + j] = prior->Delta[i * s + j];
      for (size_t k = 0; k < ma; k++)
        {
          r.Delta[i * s2 + s + k] = OW[i * ma + k] / D[i];
          DW[i * ma + k] = D[i] * W[k * p + i];
        }
    }
  /* eq. 28: gamma_p = [gamma, z + W xi] */
  for (size_t j = 0; j < s; j++)
    r.gamma[j] = prior->gamma[j];
  for (size_t k = 0; k < ma; k++)
    {
      double acc = z[k];
      for (size_t i = 0; i < p; i++)
        acc += W[k * p + i] * prior->xi[i];
      r.gamma[s + k] = acc;
    }
  /* eq. 29: Gamma_p = [[Gamma, Delta^T D W^T], [W D Delta, W Omega W^T + Sigma]] */
  for (size_t a = 0; a < s; a++)
    for (size_t b = 0; b < s; b++)
      r.Gamma[a * s2 + b] = prior->Gamma[a * s + b];
  for (size_t a = 0; a < s; a++)
    for (size_t k = 0; k < ma; k++)
      {
        double acc = 0;
        for (size_t i = 0; i < p; i++)
          acc += prior->Delta[i * s + a] * DW[i * ma + k];
        r.Gamma[a * s2 + s + k] = r.Gamma[(s + k) * s2 + a] = acc;
      }
  for (size_t k = 0; k < ma; k++)
    for (size_t l = 0; l < ma; l++)
      {
        double acc = Sigma[k * ma + l];
        for (size_t i = 0; i < p; i++)
          acc += W[k * p + i] * OW[i * ma + l];
        r.Gamma[(s + k) * s2 + s + l] = acc;
      }
  free (D); free (DW); free (OW);
  *post = r;
  return SG_OK;
}

/* Omegabar = D^{-1} Omega D^{-1} into OB, D into DV. */
static void
correlation (const double *Omega, size_t p, double *OB, double *DV)
{
  for (size_t i = 0; i < p; i++)
    DV[i] = sqrt (Omega[i * p + i]);
  for (size_t i = 0; i < p; i++)
    for (size_t j = 0; j < p; j++)
      OB[i * p + j] = Omega[i * p + j] / (DV[i] * DV[j]);
}

int
sg_sun_normal_update (const sg_sun *prior, size_t mr, const double *C,
                      const double *y, const double *R, sg_sun *post)
{
  size_t p = prior->p, s = prior->s;
  sg_sun r;
  if (sg_sun_init (&r, p, s) != SG_OK)
    return SG_ENOMEM;
  size_t nbuf = 6 * p * p + 4 * p * mr + 2 * mr * mr + 4 * p * s + 4 * p + mr + 8;
  double *buf = malloc (nbuf * sizeof *buf);
  if (buf == NULL)
    {
      sg_sun_clear (&r);
      return SG_ENOMEM;
    }
  double *OC = buf;                 /* Omega C^T        p x mr  */
  double *S = OC + p * mr;          /* C Omega C^T + R  mr x mr */
  double *Si = S + mr * mr;         /* its inverse              */
  double *G = Si + mr * mr;         /* OC Si            p x mr  */
  double *res = G + p * mr;         /* y - C xi         mr      */
  double *D = res + mr;             /* p */
  double *Dp = D + p;               /* p */
  double *OB = Dp + p;              /* p x p */
  double *OBi = OB + p * p;         /* p x p */
  double *OBp = OBi + p * p;        /* p x p */
  double *OBpi = OBp + p * p;       /* p x p */
  double *A = OBpi + p * p;         /* p x s: Omegabar^{-1} Delta */
  double *B = A + p * s;            /* p x s: Omegabar_p^{-1} Delta_p */
  double *T = B + p * s;            /* p x p scratch */

  sg_gemm (0, 1, p, mr, p, 1, prior->Omega, C, 0, OC);
  sg_gemm (0, 0, mr, mr, p, 1, C, OC, 0, S);
  for (size_t i = 0; i < mr * mr; i++)
    S[i] += R[i];
  int status = spd_inverse (S, mr, Si);
  if (status == SG_OK)
    {
      sg_gemm (0, 0, p, mr, mr, 1, OC, Si, 0, G);
      for (size_t k = 0; k < mr; k++)
        {
          double acc = y[k];
          for (size_t i = 0; i < p; i++)
            acc -= C[k * p + i] * prior->xi[i];
          res[k] = acc;
        }
      /* eq. 13: xi_p = xi + Omega C^T (C Omega C^T + R)^{-1} (y - C xi) */
      memcpy (r.xi, prior->xi, p * sizeof *r.xi);
      sg_gemv (0, p, mr, 1, G, res, 1, r.xi);
      /* eq. 14: Omega_p = Omega - Omega C^T (...)^{-1} C Omega */
      memcpy (r.Omega, prior->Omega, p * p * sizeof *r.Omega);
      sg_gemm (0, 1, p, p, mr, -1, G, OC, 1, r.Omega);
      sg_symmetrize (r.Omega, p);
      correlation (prior->Omega, p, OB, D);
      correlation (r.Omega, p, OBp, Dp);
      status = spd_inverse (OB, p, OBi);
    }
  if (status == SG_OK)
    status = spd_inverse (OBp, p, OBpi);
  if (status == SG_OK)
    {
      /* eq. 15: Delta_p = Omegabar_p D_p D^{-1} Omegabar^{-1} Delta */
      sg_gemm (0, 0, p, s, p, 1, OBi, prior->Delta, 0, A);
      for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < p; j++)
          T[i * p + j] = OBp[i * p + j] * Dp[j] / D[j];
      sg_gemm (0, 0, p, s, p, 1, T, A, 0, r.Delta);
      /* eq. 16: gamma_p = gamma + Delta^T Omegabar^{-1} D^{-1} (xi_p - xi) */
      for (size_t i = 0; i < p; i++)
        T[i] = (r.xi[i] - prior->xi[i]) / D[i];
      memcpy (r.gamma, prior->gamma, s * sizeof *r.gamma);
      sg_gemv (1, p, s, 1, A, T, 1, r.gamma);
      /* eq. 17: Gamma_p = Gamma - Delta^T Omegabar^{-1} Delta
       *                  + Delta_p^T Omegabar_p^{-1} Delta_p */
      memcpy (r.Gamma, prior->Gamma, s * s * sizeof *r.Gamma);
      sg_gemm (1, 0, s, s, p, -1, prior->Delta, A, 1, r.Gamma);
      sg_gemm (0, 0, p, s, p, 1, OBpi, r.Delta, 0, B);
      sg_gemm (1, 0, s, s, p, 1, r.Delta, B, 1, r.Gamma);
      sg_symmetrize (r.Gamma, s);
    }
  free (buf);
  if (status != SG_OK)
    {
      sg_sun_clear (&r);
      return status;
    }
  *post = r;
  return SG_OK;
}

void
sg_sun_normalize (sg_sun *sun)
{
  size_t p = sun->p, s = sun->s;
  for (size_t a = 0; a < s; a++)
    {
      double v = sqrt (sun->Gamma[a * s + a]);
      if (!(v > 0))
        continue;
      sun->gamma[a] /= v;
      for (size_t i = 0; i < p; i++)
        sun->Delta[i * s + a] /= v;
      for (size_t b = 0; b < s; b++)
        {
          sun->Gamma[a * s + b] /= v;
          sun->Gamma[b * s + a] /= v;
        }
    }
}

int
sg_skewgp_posterior_sun (const sg_skewgp_posterior *post, sg_sun *out)
{
  size_t n = post->n, m = post->m, mr = post->mr, mh = post->mh;
  sg_sun r;
  if (sg_sun_init (&r, n, m) != SG_OK)
    return SG_ENOMEM;
  double *WQ = malloc ((mh * n + 1) * sizeof *WQ);
  double *scratch = malloc ((n * post->nz + 1) * sizeof *scratch);
  if (!WQ || !scratch)
    {
      free (WQ);
      free (scratch);
      sg_sun_clear (&r);
      return SG_ENOMEM;
    }
  sg_skewgp_whiten_points (post, post->Z, n, WQ, NULL, scratch);
  /* Given y: E[f] = xi + W_y^T r, Cov[f] = K - W_y^T W_y,
   * Cov[f, t] = W_t^T Lc^T (W_y, W_t: the y and t rows of WQ). */
  sg_kernel_matrix (&post->kernel, post->Z, n, post->Z, n, r.Omega);
  sg_gemm (1, 0, n, n, mr, -1, WQ, WQ, 1, r.Omega);
  sg_symmetrize (r.Omega, n);
  for (size_t i = 0; i < n; i++)
    {
      double mu = post->xi;
      for (size_t k = 0; k < mr; k++)
        mu += WQ[k * n + i] * post->r[k];
      r.xi[i] = mu;
      double d = sqrt (r.Omega[i * n + i]);
      for (size_t a = 0; a < m; a++)
        {
          double c = 0;
          for (size_t k = 0; k <= a; k++)
            c += post->Lh[(mr + a) * mh + mr + k] * WQ[(mr + k) * n + i];
          r.Delta[i * m + a] = c / d;
        }
    }
  memcpy (r.gamma, post->mu_t, m * sizeof *r.gamma);
  memcpy (r.Gamma, post->S_tt, m * m * sizeof *r.Gamma);
  free (WQ);
  free (scratch);
  *out = r;
  return SG_OK;
}
