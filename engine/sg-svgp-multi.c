/* sg-svgp-multi.c — multi-class sparse variational GP classification
 * (paper 004 sec. III). Model and notation: sg-svgp-multi.h.
 *
 * Gradients. Per row the likelihood term E_i depends on the C pairs
 * (mu^c_i, nu^c_i); with g_mu^c_i = dE_i/dmu^c_i and g_nu^c_i =
 * dE_i/dnu^c_i each class's whitened parameters get, exactly as the
 * binary model (sg-svgp.c),
 *   dELBO/dm^c = A g_mu^c - m^c,
 *   dELBO/dL^c = lower(2 A diag(g_nu^c) A^T L^c) - L^c + diag(1 / L^c_jj).
 * PROBIT, E = log(delta / (C - 1)) + P k, k = log((1 - delta)(C - 1) / delta),
 * with quadrature nodes t_q, weights w_q, z_qc = (mu^y + s^y t_q - mu^c) / s^c
 * and R_qc = prod_{c' != y, c} Phi(z_qc') (leave-one-out products):
 *   dP/dmu^c = -sum_q w_q R_qc phi(z_qc) / s^c            (c != y)
 *   dP/ds^c  = -sum_q w_q R_qc phi(z_qc) z_qc / s^c        (c != y)
 *   dP/dmu^y = -sum_{c != y} dP/dmu^c
 *   dP/ds^y  =  sum_q w_q t_q sum_{c != y} R_qc phi(z_qc) / s^c
 * and d/dnu = d/ds / (2 s). dE/ddelta = -P / (1 - delta) + (1 - P) / delta.
 * SOFTMAX, E = -log(1 + sum_{c != y} e_c), e_c = exp(a_c),
 * a_c = mu^c - mu^y + (nu^c + nu^y) / 2, r_c = e_c / (1 + sum e):
 *   dE/dmu^c = -r_c, dE/dnu^c = -r_c / 2 (c != y),
 *   dE/dmu^y = sum r, dE/dnu^y = -sum r / 2.
 */
#include "sg-svgp-multi.h"

#include "sg-adam.h"
#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-svgp-private.h"

#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 256
#define MC_SEED 0x6d756c7469ull   /* the fixed stream of softmax predictions */

/* ---- Names, data -------------------------------------------------------- */

static const char *const lik_names[] = { "probit", "softmax" };

const char *
sg_svgp_multi_lik_name (sg_svgp_multi_lik lik)
{
  return sg_name_of (lik_names, 2, (size_t) lik);
}

sg_status
sg_svgp_multi_lik_parse (const char *name, sg_svgp_multi_lik *lik)
{
  size_t i;
  sg_status status = sg_name_lookup (lik_names, 2, name, &i);
  if (status == SG_OK)
    *lik = (sg_svgp_multi_lik) i;
  return status;
}

sg_status
sg_svgp_multi_data_check (const sg_svgp_multi_data *data)
{
  if (data == NULL || data->X == NULL || data->y == NULL || data->n == 0
      || data->dim == 0 || data->n_classes < 2
      || !sg_all_finite (data->X, data->n * data->dim))
    return SG_EINVAL;
  for (size_t i = 0; i < data->n; i++)
    if (data->y[i] >= data->n_classes)
      return SG_EINVAL;
  return SG_OK;
}

/* ---- The posterior object ---------------------------------------------- */

static size_t
n_lower (size_t M)
{
  return M * (M + 1) / 2;
}

/* delta in (0, (C - 1) / C) from eta, and back. */
static double
delta_of_eta (double eta, size_t C)
{
  return ((double) (C - 1) / (double) C) / (1 + exp (-eta));
}

static double
eta_of_delta (double delta, size_t C)
{
  double top = (double) (C - 1) / (double) C;
  return log (delta / (top - delta));
}

static int
delta_ok (double delta, size_t C)
{
  return delta > 0 && delta < (double) (C - 1) / (double) C;
}

/* W_c = Lk^{-T} m^c for every class. */
static void
update_w (sg_svgp_multi *q)
{
  memcpy (q->W, q->m, q->C * q->M * sizeof *q->W);
  for (size_t c = 0; c < q->C; c++)
    sg_trsm_lower_trans (q->Lk, q->M, q->W + c * q->M, 1);
}

void
sg_svgp_multi_clear (sg_svgp_multi *q)
{
  if (q == NULL)
    return;
  free (q->Z);
  free (q->m);
  free (q->L);
  free (q->Lk);
  free (q->W);
  sg_kernel_clear (&q->kernel);
  memset (q, 0, sizeof *q);
}

sg_status
sg_svgp_multi_init (sg_svgp_multi *q, sg_svgp_multi_lik lik, const sg_kernel *kernel,
                    const double *Z, size_t M, size_t n_classes, double noise_sd,
                    double delta)
{
  size_t C = n_classes;
  int probit = lik == SG_SVGP_MULTI_PROBIT;
  if (q == NULL || kernel == NULL || Z == NULL || M == 0 || C < 2
      || (lik != SG_SVGP_MULTI_PROBIT && lik != SG_SVGP_MULTI_SOFTMAX)
      || sg_kernel_check (kernel) != SG_OK || kernel->grouped
      || (probit && (!(noise_sd > 0) || !isfinite (noise_sd) || !delta_ok (delta, C)))
      || !sg_all_finite (Z, M * kernel->dim))
    return SG_EINVAL;
  sg_svgp_multi t = { .lik = lik, .noise_sd = probit ? noise_sd : NAN,
                      .delta = probit ? delta : NAN, .dim = kernel->dim, .M = M, .C = C,
                      .elbo = NAN };
  t.Z = malloc (M * t.dim * sizeof *t.Z);
  t.m = calloc (C * M, sizeof *t.m);
  t.L = calloc (C * M * M, sizeof *t.L);
  t.Lk = malloc (M * M * sizeof *t.Lk);
  t.W = malloc (C * M * sizeof *t.W);
  int status = t.Z && t.m && t.L && t.Lk && t.W ? SG_OK : SG_ENOMEM;
  if (status == SG_OK && sg_kernel_copy (&t.kernel, kernel) != SG_OK)
    status = SG_ENOMEM;
  if (status == SG_OK)
    status = _sg_svgp_factor_kzz (kernel, Z, M, t.Lk);
  if (status != SG_OK)
    {
      sg_svgp_multi_clear (&t);
      return status;
    }
  memcpy (t.Z, Z, M * t.dim * sizeof *t.Z);
  for (size_t c = 0; c < C; c++)
    for (size_t j = 0; j < M; j++)
      t.L[(c * M + j) * M + j] = 1;
  update_w (&t);
  *q = t;
  return SG_OK;
}

size_t
sg_svgp_multi_n_params (const sg_svgp_multi *q)
{
  return q->C * (q->M + n_lower (q->M)) + (q->lik == SG_SVGP_MULTI_PROBIT);
}

void
sg_svgp_multi_get_params (const sg_svgp_multi *q, double *params)
{
  size_t M = q->M, C = q->C, k = C * M;
  memcpy (params, q->m, C * M * sizeof *params);
  for (size_t c = 0; c < C; c++)
    for (size_t i = 0; i < M; i++)
      for (size_t j = 0; j <= i; j++)
        params[k++] = q->L[(c * M + i) * M + j];
  if (q->lik == SG_SVGP_MULTI_PROBIT)
    params[k] = eta_of_delta (q->delta, C);
}

sg_status
sg_svgp_multi_set_params (sg_svgp_multi *q, const double *params)
{
  size_t M = q->M, C = q->C, k = C * M;
  if (!sg_all_finite (params, sg_svgp_multi_n_params (q)))
    return SG_EINVAL;
  memcpy (q->m, params, C * M * sizeof *params);
  for (size_t c = 0; c < C; c++)
    for (size_t i = 0; i < M; i++)
      for (size_t j = 0; j <= i; j++)
        q->L[(c * M + i) * M + j] = params[k++];
  if (q->lik == SG_SVGP_MULTI_PROBIT)
    q->delta = delta_of_eta (params[k], C);
  update_w (q);
  return SG_OK;
}

/* ---- Gauss-Hermite nodes for E over N(0, 1) ---------------------------- */

typedef struct {
  double t[SG_SVGP_MULTI_QUADRATURE], w[SG_SVGP_MULTI_QUADRATURE];
} gh_rule;

/* GSL's Hermite rule integrates f(x) exp(-x^2); t = sqrt2 x, w / sqrt(pi). */
static int
gh_rule_init (gh_rule *r)
{
  gsl_integration_fixed_workspace *ws
    = gsl_integration_fixed_alloc (gsl_integration_fixed_hermite, SG_SVGP_MULTI_QUADRATURE,
                                   0, 1, 0, 0);
  if (ws == NULL)
    return SG_ENOMEM;
  const double *x = gsl_integration_fixed_nodes (ws), *w = gsl_integration_fixed_weights (ws);
  for (size_t q = 0; q < SG_SVGP_MULTI_QUADRATURE; q++)
    {
      r->t[q] = M_SQRT2 * x[q];
      r->w[q] = w[q] / sqrt (M_PI);
    }
  gsl_integration_fixed_free (ws);
  return SG_OK;
}

/* ---- Per-row likelihood terms ------------------------------------------ */

/* Scratch of one row: C entries each, and the quadrature's products. */
typedef struct {
  double *s, *gs, *z_, *pre, *suf;   /* s^c, dP/ds^c, z_c, prefix, suffix */
} row_scratch;

/* P = P(the internal of class Y is the largest) by quadrature, and its
 * derivatives dP/dmu (C) and dP/ds (C) when GMU is not NULL. */
static double
probit_largest (const gh_rule *gh, size_t C, size_t y, const double *mu, const double *s,
                row_scratch *rs, double *gmu, double *gs)
{
  double P = 0;
  if (gmu)
    for (size_t c = 0; c < C; c++)
      gmu[c] = gs[c] = 0;
  for (size_t q = 0; q < SG_SVGP_MULTI_QUADRATURE; q++)
    {
      double g = mu[y] + s[y] * gh->t[q];
      /* prefix / suffix products of Phi(z_c) over c != y */
      double run = 1;
      for (size_t c = 0; c < C; c++)
        {
          rs->pre[c] = run;
          if (c != y)
            {
              double z = (g - mu[c]) / s[c];
              rs->z_[c] = z;
              run *= sg_norm_cdf (z);
            }
        }
      P += gh->w[q] * run;
      if (gmu == NULL)
        continue;
      run = 1;
      for (size_t c = C; c-- > 0;)
        {
          rs->suf[c] = run;
          if (c != y)
            run *= sg_norm_cdf (rs->z_[c]);
        }
      for (size_t c = 0; c < C; c++)
        {
          if (c == y)
            continue;
          double z = rs->z_[c];
          double d = gh->w[q] * rs->pre[c] * rs->suf[c] * sg_norm_pdf (z) / s[c];
          gmu[c] -= d;
          gs[c] -= d * z;
          gmu[y] += d;
          gs[y] += d * gh->t[q];
        }
    }
  return P;
}

/* E_i and, with GMU, dE/dmu and dE/dnu (into GMU, GNU) and dE/ddelta. */
static double
row_term (const sg_svgp_multi *q, const gh_rule *gh, size_t y, const double *mu,
          const double *nu, row_scratch *rs, double *gmu, double *gnu, double *gdelta)
{
  size_t C = q->C;
  if (q->lik == SG_SVGP_MULTI_SOFTMAX)
    {
      /* -log(1 + sum exp(a_c)) by log-sum-exp from 0 */
      double amax = 0;
      for (size_t c = 0; c < C; c++)
        if (c != y)
          amax = fmax (amax, mu[c] - mu[y] + 0.5 * (nu[c] + nu[y]));
      double sum = exp (-amax);
      for (size_t c = 0; c < C; c++)
        if (c != y)
          sum += exp (mu[c] - mu[y] + 0.5 * (nu[c] + nu[y]) - amax);
      double lse = amax + log (sum);
      if (gmu)
        {
          double rsum = 0;
          for (size_t c = 0; c < C; c++)
            {
              if (c == y)
                continue;
              double r = exp (mu[c] - mu[y] + 0.5 * (nu[c] + nu[y]) - lse);
              gmu[c] = -r;
              gnu[c] = -0.5 * r;
              rsum += r;
            }
          gmu[y] = rsum;
          gnu[y] = -0.5 * rsum;
        }
      return -lse;
    }
  double s2 = q->noise_sd * q->noise_sd, delta = q->delta;
  for (size_t c = 0; c < C; c++)
    rs->s[c] = sqrt (nu[c] + s2);
  double P = probit_largest (gh, C, y, mu, rs->s, rs, gmu, rs->gs);
  P = fmin (fmax (P, 0), 1);
  double lo = log (delta / (double) (C - 1)), hi = log1p (-delta), k = hi - lo;
  if (gmu)
    {
      for (size_t c = 0; c < C; c++)
        {
          gmu[c] *= k;
          gnu[c] = k * rs->gs[c] / (2 * rs->s[c]);
        }
      *gdelta += -P / (1 - delta) + (1 - P) / delta;
    }
  return lo + P * k;
}

/* ---- The ELBO -------------------------------------------------------- */

/* KL(q(v^c) || N(0, I)) summed over the classes. */
static double
whitened_kl (const sg_svgp_multi *q)
{
  size_t M = q->M;
  double kl = 0;
  for (size_t c = 0; c < q->C; c++)
    {
      const double *m = q->m + c * M, *L = q->L + c * M * M;
      kl -= (double) M;
      for (size_t i = 0; i < M; i++)
        {
          kl += m[i] * m[i] - 2 * log (fabs (L[i * M + i]));
          for (size_t j = 0; j <= i; j++)
            kl += L[i * M + j] * L[i * M + j];
        }
    }
  return 0.5 * kl;
}

/* Scratch of one evaluation. */
typedef struct {
  double *Xb;          /* CHUNK x dim                                    */
  double *Cb, *A, *T;  /* CHUNK x M, M x CHUNK, M x CHUNK                */
  double *mu, *nu;     /* C x CHUNK                                      */
  double *gmu, *gnu;   /* C x CHUNK                                      */
  double *AD;          /* M x CHUNK                                      */
  double *gm, *GS;     /* C x M, C x M x M                               */
  double *row;         /* 7 C: one row's mu, nu, gmu, gnu and scratch    */
} eval_ws;

static void
eval_ws_free (eval_ws *w)
{
  double **arrays[] = { &w->Xb, &w->Cb, &w->A, &w->T, &w->mu, &w->nu, &w->gmu,
                        &w->gnu, &w->AD, &w->gm, &w->GS, &w->row };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free (*arrays[i]);
}

static int
eval_ws_init (eval_ws *w, const sg_svgp_multi *q, int want_grad)
{
  size_t M = q->M, C = q->C, b = CHUNK;
  memset (w, 0, sizeof *w);
  w->Xb = malloc (b * q->dim * sizeof (double));
  w->Cb = malloc (b * M * sizeof (double));
  w->A = malloc (M * b * sizeof (double));
  w->T = malloc (M * b * sizeof (double));
  w->mu = malloc (C * b * sizeof (double));
  w->nu = malloc (C * b * sizeof (double));
  w->gmu = malloc (C * b * sizeof (double));
  w->gnu = malloc (C * b * sizeof (double));
  w->AD = malloc (M * b * sizeof (double));
  w->row = malloc (9 * C * sizeof (double));
  w->gm = want_grad ? calloc (C * M, sizeof (double)) : malloc (sizeof (double));
  w->GS = want_grad ? calloc (C * M * M, sizeof (double)) : malloc (sizeof (double));
  if (!w->Xb || !w->Cb || !w->A || !w->T || !w->mu || !w->nu || !w->gmu || !w->gnu
      || !w->AD || !w->row || !w->gm || !w->GS)
    {
      eval_ws_free (w);
      return SG_ENOMEM;
    }
  return SG_OK;
}

/* A = Lk^{-1} k(Z, Xb) (M x b); mu^c = A^T m^c, nu^c as in the header. */
static void
chunk_moments (const sg_svgp_multi *q, const double *Xb, size_t b, eval_ws *w)
{
  size_t M = q->M;
  sg_kernel_matrix (&q->kernel, Xb, b, q->Z, M, w->Cb);
  for (size_t i = 0; i < b; i++)
    for (size_t j = 0; j < M; j++)
      w->A[j * b + i] = w->Cb[i * M + j];
  sg_trsm_lower (q->Lk, M, w->A, b);
  for (size_t c = 0; c < q->C; c++)
    {
      double *mu = w->mu + c * b, *nu = w->nu + c * b;
      sg_gemv (1, M, b, 1, w->A, q->m + c * M, 0, mu);
      sg_gemm (1, 0, M, b, M, 1, q->L + c * M * M, w->A, 0, w->T);
      for (size_t i = 0; i < b; i++)
        nu[i] = q->kernel.variance;
      for (size_t j = 0; j < M; j++)
        for (size_t i = 0; i < b; i++)
          {
            double a = w->A[j * b + i], t = w->T[j * b + i];
            nu[i] += t * t - a * a;
          }
      for (size_t i = 0; i < b; i++)
        nu[i] = fmax (nu[i], 0);
    }
}

/* One chunk: the rows' terms (scaled) and, with WANT_GRAD, the per-class
 * gradient accumulators gm^c += A g_mu^c, GS^c += A diag(g_nu^c) A^T. */
static double
chunk_terms (const sg_svgp_multi *q, const gh_rule *gh, const size_t *yb, size_t b,
             double scale, int want_grad, eval_ws *w, double *gdelta)
{
  size_t M = q->M, C = q->C;
  double *mu = w->row, *nu = mu + C, *gmu = nu + C, *gnu = gmu + C;
  row_scratch rs = { gnu + C, gnu + 2 * C, gnu + 3 * C, gnu + 4 * C, gnu + 5 * C };
  double sum = 0, gd = 0;
  for (size_t i = 0; i < b; i++)
    {
      for (size_t c = 0; c < C; c++)
        {
          mu[c] = w->mu[c * b + i];
          nu[c] = w->nu[c * b + i];
        }
      sum += row_term (q, gh, yb[i], mu, nu, &rs, want_grad ? gmu : NULL, gnu, &gd);
      if (want_grad)
        for (size_t c = 0; c < C; c++)
          {
            w->gmu[c * b + i] = scale * gmu[c];
            w->gnu[c * b + i] = scale * gnu[c];
          }
    }
  *gdelta += scale * gd;
  if (!want_grad)
    return scale * sum;
  for (size_t c = 0; c < C; c++)
    {
      const double *gnu_c = w->gnu + c * b;
      sg_gemv (0, M, b, 1, w->A, w->gmu + c * b, 1, w->gm + c * M);
      for (size_t j = 0; j < M; j++)
        for (size_t i = 0; i < b; i++)
          w->AD[j * b + i] = w->A[j * b + i] * gnu_c[i];
      sg_gemm (0, 1, M, M, b, 1, w->AD, w->A, 1, w->GS + c * M * M);
    }
  return scale * sum;
}

/* The packed gradient from the accumulators and the KL. */
static void
pack_gradient (const sg_svgp_multi *q, const eval_ws *w, double gdelta, double *grad)
{
  size_t M = q->M, C = q->C, k = C * M;
  double *tmp = w->T;   /* M x M fits: M x CHUNK when M <= CHUNK, else below */
  double *own = M > CHUNK ? malloc (M * M * sizeof *own) : NULL;
  if (own)
    tmp = own;
  for (size_t t = 0; t < C * M; t++)
    grad[t] = w->gm[t] - q->m[t];
  for (size_t c = 0; c < C; c++)
    {
      const double *L = q->L + c * M * M;
      sg_gemm (0, 0, M, M, M, 2, w->GS + c * M * M, L, 0, tmp);
      for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j <= i; j++)
          {
            double g = tmp[i * M + j] - L[i * M + j];
            if (i == j)
              g += 1 / L[i * M + i];
            grad[k++] = g;
          }
    }
  if (q->lik == SG_SVGP_MULTI_PROBIT)
    {
      /* d delta / d eta = delta (1 - delta / top), top = (C - 1) / C */
      double top = (double) (C - 1) / (double) C;
      grad[k] = gdelta * q->delta * (1 - q->delta / top);
    }
  free (own);
}

sg_status
sg_svgp_multi_elbo (const sg_svgp_multi *q, const sg_svgp_multi_data *data,
                    const size_t *rows, size_t nb, double *elbo, double *grad)
{
  if (q == NULL || elbo == NULL || sg_svgp_multi_data_check (data) != SG_OK
      || data->dim != q->dim || data->n_classes != q->C)
    return SG_EINVAL;
  if (rows == NULL)
    nb = data->n;
  if (nb == 0)
    return SG_EINVAL;
  for (size_t i = 0; rows && i < nb; i++)
    if (rows[i] >= data->n)
      return SG_EINVAL;
  gh_rule gh;
  eval_ws w;
  int status = gh_rule_init (&gh);
  if (status == SG_OK)
    status = eval_ws_init (&w, q, grad != NULL);
  if (status != SG_OK)
    return status;
  size_t d = q->dim, yb[CHUNK];
  double scale = (double) data->n / (double) nb, sum = 0, gdelta = 0;
  for (size_t start = 0; start < nb; start += CHUNK)
    {
      size_t b = nb - start < CHUNK ? nb - start : CHUNK;
      for (size_t i = 0; i < b; i++)
        {
          size_t r = rows ? rows[start + i] : start + i;
          memcpy (w.Xb + i * d, data->X + r * d, d * sizeof (double));
          yb[i] = data->y[r];
        }
      chunk_moments (q, w.Xb, b, &w);
      sum += chunk_terms (q, &gh, yb, b, scale, grad != NULL, &w, &gdelta);
    }
  double value = sum - whitened_kl (q);
  if (!isfinite (value))
    status = SG_ENUMERIC;
  if (status == SG_OK && grad)
    pack_gradient (q, &w, gdelta, grad);
  if (status == SG_OK)
    *elbo = value;
  eval_ws_free (&w);
  return status;
}

/* ---- Prediction ------------------------------------------------------- */

sg_status
sg_svgp_multi_latent (const sg_svgp_multi *q, const double *Xs, size_t ns, double *mean,
                      double *var)
{
  if (q == NULL || (ns > 0 && (Xs == NULL || mean == NULL || var == NULL))
      || !sg_all_finite (Xs, ns * q->dim))
    return SG_EINVAL;
  eval_ws w;
  int status = eval_ws_init (&w, q, 0);
  if (status != SG_OK)
    return status;
  size_t C = q->C;
  for (size_t start = 0; start < ns; start += CHUNK)
    {
      size_t b = ns - start < CHUNK ? ns - start : CHUNK;
      chunk_moments (q, Xs + start * q->dim, b, &w);
      for (size_t i = 0; i < b; i++)
        for (size_t c = 0; c < C; c++)
          {
            mean[(start + i) * C + c] = w.mu[c * b + i];
            var[(start + i) * C + c] = w.nu[c * b + i];
          }
    }
  eval_ws_free (&w);
  return SG_OK;
}

/* PROBIT: 004 eq. 19, the P_c renormalised (header). */
static void
predict_probit (const sg_svgp_multi *q, const gh_rule *gh, const double *mu,
                const double *nu, row_scratch *rs, double *p)
{
  size_t C = q->C;
  double s2 = q->noise_sd * q->noise_sd, total = 0, delta = q->delta;
  for (size_t c = 0; c < C; c++)
    rs->s[c] = sqrt (nu[c] + s2);
  for (size_t c = 0; c < C; c++)
    {
      p[c] = fmax (probit_largest (gh, C, c, mu, rs->s, rs, NULL, NULL), 0);
      total += p[c];
    }
  for (size_t c = 0; c < C; c++)
    {
      double P = total > 0 ? p[c] / total : 1.0 / (double) C;
      p[c] = (1 - delta) * P + delta / (double) (C - 1) * (1 - P);
    }
}

/* SOFTMAX: E_q[softmax(f)] over the fixed draws G (DRAWS x C normals). */
static void
predict_softmax (size_t C, const double *G, const double *mu, const double *nu,
                 double *f, double *p)
{
  for (size_t c = 0; c < C; c++)
    p[c] = 0;
  for (size_t r = 0; r < SG_SVGP_MULTI_MC_DRAWS; r++)
    {
      double fmax_ = -INFINITY, sum = 0;
      for (size_t c = 0; c < C; c++)
        {
          f[c] = mu[c] + sqrt (nu[c]) * G[r * C + c];
          fmax_ = fmax (fmax_, f[c]);
        }
      for (size_t c = 0; c < C; c++)
        {
          f[c] = exp (f[c] - fmax_);
          sum += f[c];
        }
      for (size_t c = 0; c < C; c++)
        p[c] += f[c] / sum;
    }
  for (size_t c = 0; c < C; c++)
    p[c] /= SG_SVGP_MULTI_MC_DRAWS;
}

sg_status
sg_svgp_multi_predict (const sg_svgp_multi *q, const double *Xs, size_t ns, double *prob)
{
  if (q == NULL || (ns > 0 && prob == NULL))
    return SG_EINVAL;
  size_t C = q->C;
  double *mean = malloc ((ns * C + 1) * sizeof *mean), *var = malloc ((ns * C + 1) * sizeof *var);
  double *row = malloc (9 * C * sizeof *row), *G = NULL;
  gh_rule gh;
  int status = mean && var && row ? gh_rule_init (&gh) : SG_ENOMEM;
  if (status == SG_OK && q->lik == SG_SVGP_MULTI_SOFTMAX)
    {
      G = malloc (SG_SVGP_MULTI_MC_DRAWS * C * sizeof *G);
      gsl_rng *rng = sg_rng_new (MC_SEED, 0);
      if (G && rng)
        for (size_t t = 0; t < SG_SVGP_MULTI_MC_DRAWS * C; t++)
          G[t] = sg_rng_gaussian (rng);
      else
        status = SG_ENOMEM;
      sg_rng_free (rng);
    }
  if (status == SG_OK)
    status = sg_svgp_multi_latent (q, Xs, ns, mean, var);
  if (status == SG_OK)
    {
      row_scratch rs = { row, row + C, row + 2 * C, row + 3 * C, row + 4 * C };
      for (size_t i = 0; i < ns; i++)
        if (q->lik == SG_SVGP_MULTI_SOFTMAX)
          predict_softmax (C, G, mean + i * C, var + i * C, row, prob + i * C);
        else
          predict_probit (q, &gh, mean + i * C, var + i * C, &rs, prob + i * C);
    }
  free (mean); free (var); free (row); free (G);
  return status;
}

/* ---- Training ----------------------------------------------------------- */

void
sg_svgp_multi_options_default (sg_svgp_multi_options *opt)
{
  memset (opt, 0, sizeof *opt);
  opt->lik = SG_SVGP_MULTI_PROBIT;
  opt->n_inducing = 100;
  opt->kmeans_iterations = 25;
  opt->noise_sd = 1;
  opt->delta_init = 0.05;
  opt->batch = 256;
  opt->iterations = 2000;
  opt->learning_rate = 0.01;
  opt->warmup_fraction = 0.25;
}

static int
options_ok (const sg_svgp_multi_options *o, size_t C)
{
  return o->n_inducing > 0 && o->batch > 0 && o->iterations > 0 && o->learning_rate > 0
         && o->warmup_fraction >= 0 && o->warmup_fraction <= 1 && o->max_seconds >= 0
         && (o->lik == SG_SVGP_MULTI_SOFTMAX
             || (o->noise_sd > 0 && isfinite (o->noise_sd) && delta_ok (o->delta_init, C)));
}

/* Adam from Q's state; delta held for the warm-up (sg-svgp.h says why). */
static int
train (sg_svgp_multi *q, const sg_svgp_multi_data *data, const sg_svgp_multi_options *opt,
       gsl_rng *rng, const sg_progress *progress)
{
  size_t n = data->n, np = sg_svgp_multi_n_params (q);
  size_t b = opt->batch < n ? opt->batch : n;
  size_t k_eta = q->lik == SG_SVGP_MULTI_PROBIT ? np - 1 : np;
  size_t warmup = (size_t) (opt->warmup_fraction * (double) opt->iterations);
  double *buf = malloc (4 * np * sizeof *buf);
  size_t *perm = malloc (n * sizeof *perm);
  if (buf == NULL || perm == NULL)
    {
      free (buf);
      free (perm);
      return SG_ENOMEM;
    }
  double *params = buf, *grad = buf + np, *m1 = buf + 2 * np, *m2 = buf + 3 * np;
  memset (m1, 0, 2 * np * sizeof *m1);
  sg_svgp_multi_get_params (q, params);
  for (size_t i = 0; i < n; i++)
    perm[i] = i;
  size_t pos = n, taken = 0;
  double t0 = sg_monotonic_seconds ();
  int status = SG_OK;
  for (size_t t = 1; t <= opt->iterations && status == SG_OK; t++)
    {
      if (opt->max_seconds > 0 && sg_monotonic_seconds () - t0 >= opt->max_seconds)
        break;
      status = sg_progress_report (progress, (double) (t - 1) / (double) opt->iterations);
      if (status != SG_OK)
        break;
      const size_t *rows = sg_minibatch_next (perm, n, b, &pos, rng);
      double e;
      status = sg_svgp_multi_elbo (q, data, rows, b, &e, grad);
      if (status == SG_OK && !sg_all_finite (grad, np))
        status = SG_ENUMERIC;
      if (status != SG_OK)
        break;
      sg_adam_step (params, grad, m1, m2, 0, k_eta, t, opt->learning_rate);
      if (t > warmup && k_eta < np)
        sg_adam_step (params, grad, m1, m2, k_eta, np, t - warmup, opt->learning_rate);
      status = sg_svgp_multi_set_params (q, params);
      taken = t;
    }
  free (buf);
  free (perm);
  if (status == SG_EINVAL)
    status = SG_ENUMERIC;
  q->iterations = taken;
  if (status == SG_OK)
    status = sg_svgp_multi_elbo (q, data, NULL, 0, &q->elbo, NULL);
  if (status == SG_OK)
    status = sg_progress_report (progress, 1.0);
  return status;
}

sg_status
sg_svgp_multi_fit (const sg_kernel *kernel, const sg_svgp_multi_data *data,
                   const sg_svgp_multi_options *opt_in, gsl_rng *rng,
                   const sg_progress *progress, sg_svgp_multi *q)
{
  sg_svgp_multi_options defaults;
  if (opt_in == NULL)
    sg_svgp_multi_options_default (&defaults);
  const sg_svgp_multi_options *opt = opt_in ? opt_in : &defaults;
  if (kernel == NULL || q == NULL || rng == NULL || sg_svgp_multi_data_check (data) != SG_OK
      || kernel->dim != data->dim || !options_ok (opt, data->n_classes))
    return SG_EINVAL;
  size_t n = data->n, M = opt->n_inducing < n ? opt->n_inducing : n;
  double *Z = malloc (M * data->dim * sizeof *Z), *ones = malloc (n * sizeof *ones);
  int status = Z && ones ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      for (size_t i = 0; i < n; i++)
        ones[i] = 1;
      sg_svgp_data inputs = { .dim = data->dim, .n = n, .X = data->X, .y = ones };
      status = sg_svgp_kmeans (&inputs, M, opt->kmeans_iterations, rng, Z);
    }
  free (ones);
  sg_svgp_multi t = { 0 };
  if (status == SG_OK)
    status = sg_svgp_multi_init (&t, opt->lik, kernel, Z, M, data->n_classes, opt->noise_sd,
                                 opt->delta_init);
  free (Z);
  if (status == SG_OK)
    status = train (&t, data, opt, rng, progress);
  if (status != SG_OK)
    {
      sg_svgp_multi_clear (&t);
      return status;
    }
  *q = t;
  return SG_OK;
}
