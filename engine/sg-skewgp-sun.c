/* sg-skewgp-sun.c — 001 Lemma 1 and Lemma 2, literally (reference code). */
#include "sg-skewgp-sun.h"
#include "sg-linalg.h"
#include "sg-skewgp-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sg_status
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

sg_status
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

sg_status
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

sg_status
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

sg_status
sg_skewgp_posterior_sun (const sg_skewgp_posterior *post, sg_sun *out)
{
  size_t n = post->n, m = post->m, mr = post->mr, mh = post->mh;
  if (post->intervals)
    return SG_EINVAL;
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

/* ---- Density and moments --------------------------------------------------- */

/* log Phi_d(c; S) = log P(X <= c), X ~ N(0, S); 0 for d = 0. */
static int
log_cdf (sg_mvn_workspace *w, size_t d, const double *c, const double *S,
         const sg_mvn_options *opt, double *out)
{
  if (d == 0)
    {
      *out = 0;
      return SG_OK;
    }
  sg_mvn_result res;
  int status = sg_mvn_prob (w, d, NULL, S, NULL, c, opt, NULL, &res);
  if (status == SG_OK)
    *out = res.log_value;
  return status;
}

/* An mvn workspace for dimension S: W itself, or a new one in *OWNED. */
static sg_mvn_workspace *
workspace_for (sg_mvn_workspace *w, size_t s, sg_mvn_workspace **owned)
{
  *owned = NULL;
  if (w != NULL)
    return w;
  *owned = sg_mvn_workspace_new (s > 0 ? s : 1);
  return *owned;
}

sg_status
sg_sun_density (const sg_sun *sun, const double *Z, size_t k,
                sg_mvn_workspace *w, const sg_mvn_options *opt,
                double *density)
{
  if (sun == NULL || sun->p == 0 || (k > 0 && (Z == NULL || density == NULL))
      || !sg_all_finite (Z, k * sun->p))
    return SG_EINVAL;
  size_t p = sun->p, s = sun->s;
  sg_mvn_workspace *owned;
  sg_mvn_workspace *ws = workspace_for (w, s, &owned);
  double *Lo = malloc ((p * p + 1) * sizeof *Lo);
  double *B = malloc ((p * s + 1) * sizeof *B);   /* D Delta            */
  double *X = malloc ((p * s + 1) * sizeof *X);   /* Omega^{-1} D Delta */
  double *S = malloc ((s * s + 1) * sizeof *S);   /* conditional Gamma  */
  double *r = malloc ((2 * p + s + 1) * sizeof *r);
  double *out = malloc ((k + 1) * sizeof *out);
  int status = (ws && Lo && B && X && S && r && out) ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_cholesky (sun->Omega, p, 1e-300, Lo, NULL);
  double log_z = 0;
  if (status == SG_OK)
    status = log_cdf (ws, s, sun->gamma, sun->Gamma, opt, &log_z);
  if (status == SG_OK)
    {
      for (size_t i = 0; i < p; i++)
        for (size_t a = 0; a < s; a++)
          B[i * s + a] = sqrt (sun->Omega[i * p + i]) * sun->Delta[i * s + a];
      memcpy (X, B, p * s * sizeof *X);
      if (s > 0)
        sg_cholesky_solve (Lo, p, X, s);
      /* S = Gamma - Delta^T Omegabar^{-1} Delta = Gamma - B^T Omega^{-1} B,
       * plus a 1e-12 relative jitter: where a pseudo-point coincides with
       * a point of Z, S is singular and round-off would make it indefinite. */
      double dmax = 0;
      memcpy (S, sun->Gamma, s * s * sizeof *S);
      if (s > 0)
        sg_gemm (1, 0, s, s, p, -1, B, X, 1, S);
      sg_symmetrize (S, s);
      for (size_t a = 0; a < s; a++)
        dmax = fmax (dmax, sun->Gamma[a * s + a]);
      for (size_t a = 0; a < s; a++)
        S[a * s + a] = fmax (S[a * s + a], 0) + 1e-12 * dmax;
    }
  double log_norm = -0.5 * (double) p * log (2 * M_PI)
                    - (status == SG_OK ? 0.5 * sg_cholesky_logdet (Lo, p) : 0);
  for (size_t j = 0; j < k && status == SG_OK; j++)
    {
      double *u = r, *c = r + p;
      for (size_t i = 0; i < p; i++)
        u[i] = Z[j * p + i] - sun->xi[i];
      memcpy (c, sun->gamma, s * sizeof *c);
      if (s > 0)
        sg_gemv (1, p, s, 1, X, u, 1, c);
      double log_phi_s = 0;
      status = log_cdf (ws, s, c, S, opt, &log_phi_s);
      sg_trsm_lower (Lo, p, u, 1);
      double q = 0;
      for (size_t i = 0; i < p; i++)
        q += u[i] * u[i];
      out[j] = exp (log_norm - 0.5 * q + log_phi_s - log_z);
    }
  if (status == SG_OK && k > 0)
    memcpy (density, out, k * sizeof *out);
  sg_mvn_workspace_free (owned);
  free (Lo);
  free (B);
  free (X);
  free (S);
  free (r);
  free (out);
  return status;
}

/* log of the density of the NA (1 or 2) coordinates IDX of N(0, Gamma) at
 * C[IDX] plus log Phi of the other s - NA coordinates given them:
 * log(phi_A(c_A) Phi_{s-na}(c_B - G_BA G_AA^{-1} c_A;
 *                            G_BB - G_BA G_AA^{-1} G_AB)).
 * SCRATCH holds s + s^2 doubles. */
static int
log_partial (const sg_sun *sun, const double *c, const size_t *idx, size_t na,
             sg_mvn_workspace *w, const sg_mvn_options *opt, double *scratch,
             double *out)
{
  size_t s = sun->s;
  const double *G = sun->Gamma;
  size_t a0 = idx[0], a1 = na > 1 ? idx[1] : idx[0];
  /* G_AA^{-1} (1 x 1 or 2 x 2) and phi_A(c_A). */
  double inv[4] = { 0, 0, 0, 0 }, log_phi;
  if (na == 1)
    {
      double v = G[a0 * s + a0];
      if (!(v > 0))
        return SG_ENOTPD;
      inv[0] = 1 / v;
      log_phi = -0.5 * log (2 * M_PI * v) - 0.5 * c[a0] * c[a0] / v;
    }
  else
    {
      double g00 = G[a0 * s + a0], g11 = G[a1 * s + a1], g01 = G[a0 * s + a1];
      double det = g00 * g11 - g01 * g01;
      if (!(det > 1e-12 * g00 * g11))
        return SG_ENOTPD;
      inv[0] = g11 / det;
      inv[1] = inv[2] = -g01 / det;
      inv[3] = g00 / det;
      double q = c[a0] * (inv[0] * c[a0] + inv[1] * c[a1])
                 + c[a1] * (inv[2] * c[a0] + inv[3] * c[a1]);
      log_phi = -log (2 * M_PI) - 0.5 * log (det) - 0.5 * q;
    }
  size_t nb = 0, rest[64];
  for (size_t b = 0; b < s; b++)
    if (b != a0 && b != a1)
      rest[nb++] = b;
  double *cb = scratch, *Sb = scratch + s;
  for (size_t i = 0; i < nb; i++)
    {
      size_t bi = rest[i];
      double gba[2] = { G[bi * s + a0], G[bi * s + a1] };
      double h0 = na == 1 ? gba[0] * inv[0] : gba[0] * inv[0] + gba[1] * inv[2];
      double h1 = na == 1 ? 0 : gba[0] * inv[1] + gba[1] * inv[3];
      cb[i] = c[bi] - h0 * c[a0] - (na > 1 ? h1 * c[a1] : 0);
      for (size_t j = 0; j < nb; j++)
        {
          size_t bj = rest[j];
          Sb[i * nb + j] = G[bi * s + bj] - h0 * G[a0 * s + bj]
                           - (na > 1 ? h1 * G[a1 * s + bj] : 0);
        }
    }
  sg_symmetrize (Sb, nb);
  double log_rest;
  int status = log_cdf (w, nb, cb, Sb, opt, &log_rest);
  if (status == SG_OK)
    *out = log_phi + log_rest;
  return status;
}

sg_status
sg_sun_marginal_moments (const sg_sun *sun, sg_mvn_workspace *w,
                         const sg_mvn_options *opt, double *mean, double *var)
{
  if (sun == NULL || sun->p == 0 || sun->s > 64)
    return SG_EINVAL;
  size_t p = sun->p, s = sun->s;
  sg_mvn_workspace *owned;
  sg_mvn_workspace *ws = workspace_for (w, s, &owned);
  double *g = malloc ((s + 1) * sizeof *g);        /* grad Phi_s / Phi_s    */
  double *H = malloc ((s * s + 1) * sizeof *H);    /* Hessian  / Phi_s      */
  double *scratch = malloc ((s + s * s + 1) * sizeof *scratch);
  double *m = malloc ((2 * p + 1) * sizeof *m);
  int status = (ws && g && H && scratch && m) ? SG_OK : SG_ENOMEM;
  double log_z = 0;
  if (status == SG_OK)
    status = log_cdf (ws, s, sun->gamma, sun->Gamma, opt, &log_z);
  for (size_t k = 0; k < s && status == SG_OK; k++)
    {
      double lp;
      status = log_partial (sun, sun->gamma, &k, 1, ws, opt, scratch, &lp);
      g[k] = exp (lp - log_z);
      for (size_t l = k + 1; l < s && status == SG_OK; l++)
        {
          size_t idx[2] = { k, l };
          status = log_partial (sun, sun->gamma, idx, 2, ws, opt, scratch, &lp);
          H[k * s + l] = H[l * s + k] = exp (lp - log_z);
        }
    }
  /* The diagonal: d g_k / d c_k = -(c_k g_k + sum_l Gamma_kl H_kl) / Gamma_kk. */
  for (size_t k = 0; k < s && status == SG_OK; k++)
    {
      double acc = sun->gamma[k] * g[k];
      for (size_t l = 0; l < s; l++)
        if (l != k)
          acc += sun->Gamma[k * s + l] * H[k * s + l];
      H[k * s + k] = -acc / sun->Gamma[k * s + k];
    }
  for (size_t i = 0; i < p && status == SG_OK; i++)
    {
      const double *d = sun->Delta + i * s;
      double omega = sqrt (sun->Omega[i * p + i]), dg = 0, dhd = 0;
      for (size_t k = 0; k < s; k++)
        {
          dg += d[k] * g[k];
          for (size_t l = 0; l < s; l++)
            dhd += d[k] * H[k * s + l] * d[l];
        }
      m[i] = sun->xi[i] + omega * dg;
      m[p + i] = omega * omega * (1 + dhd - dg * dg);
    }
  if (status == SG_OK)
    {
      if (mean)
        memcpy (mean, m, p * sizeof *m);
      if (var)
        memcpy (var, m + p, p * sizeof *m);
    }
  sg_mvn_workspace_free (owned);
  free (g);
  free (H);
  free (scratch);
  free (m);
  return status;
}
