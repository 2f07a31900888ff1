/* sg-svgp.c — sparse variational GP classification with additive noise
 * (paper 004, probit case). Model and notation: sg-svgp.h.
 *
 * Gradients of the ELBO (004 eq. 8). Per row, with s_i^2 = nu_i + sigma^2,
 * z_i = y_i mu_i / s_i, c = log((1 - delta) / delta) and
 * E_i = log delta + c Phi(z_i):
 *   dE_i/dmu_i = c phi(z_i) y_i / s_i,
 *   dE_i/dnu_i = -c phi(z_i) z_i / (2 s_i^2),
 *   dE_i/ddelta = (1 - Phi_i) / delta - Phi_i / (1 - delta).
 * With A = [a_1 .. a_b] = Lk^{-1} C^T (C the b x M cross-covariances),
 * mu = A^T m, nu_i = kd_i + a_i^T (L L^T - I) a_i:
 *   dELBO/dm = A g_mu - m,
 *   dELBO/dL = lower(2 A diag(g_nu) A^T L) - L + diag(1 / L_jj).
 * Kernel hyperparameters enter through C, kd and Lk. With
 *   Abar = m g_mu^T + 2 (L L^T - I) A diag(g_nu)   (= dF/dA),
 * dA = Lk^{-1} (dC^T - dLk A) gives dF/dC = (Lk^{-T} Abar)^T and
 * dF/dLk = -(Lk^{-T} Abar) A^T, and the Cholesky factor's reverse mode
 * (Murray 2016, "Differentiation of the Cholesky decomposition"):
 *   dF/dK = sym(Lk^{-T} Phi(Lk^T dF/dLk) Lk^{-1}),
 * Phi = the lower triangle with the diagonal halved. Finally
 * dF/dtheta_p = <dF/dC, dC/dtheta_p> + <dF/dK, dK/dtheta_p>
 *              + sum_i g_nu_i dkd_i/dtheta_p.
 * The whitened KL does not depend on theta.
 */
#include "sg-svgp.h"
#include "sg-svgp-private.h"

#include "sg-adam.h"
#include "sg-linalg.h"
#include "sg-normal.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BATCH 256
#define DEFAULT_ITERATIONS 2000
#define DEFAULT_LEARNING_RATE 0.01
#define DEFAULT_KMEANS_ITERATIONS 25
#define DEFAULT_INDUCING 100
#define DEFAULT_DELTA 0.05
#define DEFAULT_WARMUP_FRACTION 0.25
#define PREDICT_BLOCK 64


/* ---- Helpers ---------------------------------------------------------- */

static size_t
n_lower (size_t M)
{
  return M * (M + 1) / 2;
}

static double
delta_of_eta (double eta)
{
  return 0.5 / (1 + exp (-eta));
}

static double
eta_of_delta (double delta)
{
  /* delta = sigmoid(eta) / 2 */
  return log (2 * delta / (1 - 2 * delta));
}

/* Lk = chol(k(Z, Z) + jitter v I). */
int
_sg_svgp_factor_kzz (const sg_kernel *k, const double *Z, size_t M, double *Lk)
{
  double *K = malloc (M * M * sizeof *K);
  if (K == NULL)
    return SG_ENOMEM;
  sg_kernel_matrix (k, Z, M, Z, M, K);
  for (size_t j = 0; j < M; j++)
    K[j * M + j] += SG_SVGP_JITTER * k->variance;
  int status = sg_cholesky (K, M, SG_CHOLESKY_MAX_JITTER, Lk, NULL);
  free (K);
  return status;
}

/* w = Lk^{-T} m. */
void
_sg_svgp_update_w (sg_svgp *q)
{
  memcpy (q->w, q->m, q->M * sizeof *q->w);
  sg_trsm_lower_trans (q->Lk, q->M, q->w, 1);
}

int
_sg_svgp_alloc (sg_svgp *q, size_t M, size_t dim)
{
  memset (q, 0, sizeof *q);
  q->Z = malloc (M * dim * sizeof *q->Z);
  q->m = malloc (M * sizeof *q->m);
  q->L = malloc (M * M * sizeof *q->L);
  q->Lk = malloc (M * M * sizeof *q->Lk);
  q->w = malloc (M * sizeof *q->w);
  if (!q->Z || !q->m || !q->L || !q->Lk || !q->w)
    {
      sg_svgp_clear (q);
      return SG_ENOMEM;
    }
  q->M = M;
  q->dim = dim;
  return SG_OK;
}

int
_sg_svgp_copy (sg_svgp *dst, const sg_svgp *src)
{
  int status = _sg_svgp_alloc (dst, src->M, src->dim);
  if (status == SG_OK && sg_kernel_copy (&dst->kernel, &src->kernel) != SG_OK)
    {
      sg_svgp_clear (dst);
      status = SG_ENOMEM;
    }
  if (status != SG_OK)
    return status;
  size_t M = src->M;
  dst->noise_sd = src->noise_sd;
  dst->delta = src->delta;
  dst->elbo = src->elbo;
  dst->iterations = src->iterations;
  memcpy (dst->Z, src->Z, M * src->dim * sizeof *dst->Z);
  memcpy (dst->m, src->m, M * sizeof *dst->m);
  memcpy (dst->L, src->L, M * M * sizeof *dst->L);
  memcpy (dst->Lk, src->Lk, M * M * sizeof *dst->Lk);
  memcpy (dst->w, src->w, M * sizeof *dst->w);
  return SG_OK;
}

/* ---- Construction ----------------------------------------------------- */

sg_status
sg_svgp_init (sg_svgp *q, const sg_kernel *kernel, const double *Z,
              size_t M, double noise_sd, double delta)
{
  if (q == NULL || kernel == NULL || Z == NULL || M == 0
      || sg_kernel_check (kernel) != SG_OK || !(kernel->variance > 0) || !(noise_sd > 0)
      || !isfinite (noise_sd) || !(delta > 0 && delta < 0.5)
      || !sg_all_finite (Z, M * kernel->dim))
    return SG_EINVAL;
  sg_svgp t;
  int status = _sg_svgp_alloc (&t, M, kernel->dim);
  if (status == SG_OK && sg_kernel_copy (&t.kernel, kernel) != SG_OK)
    {
      sg_svgp_clear (&t);
      status = SG_ENOMEM;
    }
  if (status != SG_OK)
    return status;
  t.noise_sd = noise_sd;
  t.delta = delta;
  t.elbo = NAN;
  memcpy (t.Z, Z, M * kernel->dim * sizeof *t.Z);
  memset (t.m, 0, M * sizeof *t.m);
  memset (t.L, 0, M * M * sizeof *t.L);
  for (size_t j = 0; j < M; j++)
    t.L[j * M + j] = 1;
  status = _sg_svgp_factor_kzz (kernel, Z, M, t.Lk);
  if (status != SG_OK)
    {
      sg_svgp_clear (&t);
      return status;
    }
  _sg_svgp_update_w (&t);
  *q = t;
  return SG_OK;
}

void
sg_svgp_clear (sg_svgp *q)
{
  if (q == NULL)
    return;
  free (q->Z);
  free (q->m);
  free (q->L);
  free (q->Lk);
  free (q->w);
  sg_kernel_clear (&q->kernel);
  memset (q, 0, sizeof *q);
}

sg_status
sg_svgp_data_check (const sg_svgp_data *data)
{
  if (data == NULL || data->X == NULL || data->y == NULL || data->n == 0
      || data->dim == 0)
    return SG_EINVAL;
  if (!sg_all_finite (data->X, data->n * data->dim)
      || (data->X2 && !sg_all_finite (data->X2, data->n * data->dim)))
    return SG_EINVAL;
  for (size_t i = 0; i < data->n; i++)
    if (data->y[i] != 1.0 && data->y[i] != -1.0)
      return SG_EINVAL;
  return SG_OK;
}

/* ---- k-means ---------------------------------------------------------- */

/* Point r of the k-means input: X rows, then X2 rows for duels. */
static const double *
kmeans_point (const sg_svgp_data *data, size_t r)
{
  return r < data->n ? data->X + r * data->dim
                     : data->X2 + (r - data->n) * data->dim;
}

static double
sqdist (const double *a, const double *b, size_t d)
{
  double s = 0;
  for (size_t j = 0; j < d; j++)
    s += (a[j] - b[j]) * (a[j] - b[j]);
  return s;
}

/* k-means++ (Arthur & Vassilvitskii 2007): each new centre is a point
 * drawn with probability proportional to its squared distance D2 to the
 * nearest centre so far. */
static void
kmeans_seed (const sg_svgp_data *data, size_t npts, size_t M, gsl_rng *rng,
             double *D2, double *Z)
{
  size_t d = data->dim;
  size_t first = (size_t) gsl_rng_uniform_int (rng, npts);
  memcpy (Z, kmeans_point (data, first), d * sizeof *Z);
  for (size_t r = 0; r < npts; r++)
    D2[r] = sqdist (kmeans_point (data, r), Z, d);
  for (size_t c = 1; c < M; c++)
    {
      double total = 0;
      for (size_t r = 0; r < npts; r++)
        total += D2[r];
      size_t pick = npts - 1;
      if (total > 0)
        {
          double u = gsl_rng_uniform (rng) * total, acc = 0;
          for (size_t r = 0; r < npts; r++)
            if ((acc += D2[r]) > u)
              {
                pick = r;
                break;
              }
        }
      else
        pick = (size_t) gsl_rng_uniform_int (rng, npts);
      double *zc = Z + c * d;
      memcpy (zc, kmeans_point (data, pick), d * sizeof *Z);
      for (size_t r = 0; r < npts; r++)
        {
          double e = sqdist (kmeans_point (data, r), zc, d);
          if (e < D2[r])
            D2[r] = e;
        }
    }
}

/* Assigns every point to its nearest centre; returns how many changed. */
static size_t
kmeans_assign (const sg_svgp_data *data, size_t npts, size_t M,
               const double *Z, size_t *label, double *D2)
{
  size_t d = data->dim, changed = 0;
  for (size_t r = 0; r < npts; r++)
    {
      const double *x = kmeans_point (data, r);
      size_t best = 0;
      double bd = INFINITY;
      for (size_t c = 0; c < M; c++)
        {
          double e = sqdist (x, Z + c * d, d);
          if (e < bd)
            {
              bd = e;
              best = c;
            }
        }
      changed += label[r] != best;
      label[r] = best;
      D2[r] = bd;
    }
  return changed;
}

/* Centres = cluster means; an empty cluster takes the point farthest from
 * its centre (which then leaves its own cluster's sum: D2 is zeroed so it
 * is not taken twice). */
static void
kmeans_update (const sg_svgp_data *data, size_t npts, size_t M,
               const size_t *label, double *D2, size_t *count, double *Z)
{
  size_t d = data->dim;
  memset (Z, 0, M * d * sizeof *Z);
  memset (count, 0, M * sizeof *count);
  for (size_t r = 0; r < npts; r++)
    {
      const double *x = kmeans_point (data, r);
      double *zc = Z + label[r] * d;
      for (size_t j = 0; j < d; j++)
        zc[j] += x[j];
      count[label[r]]++;
    }
  for (size_t c = 0; c < M; c++)
    {
      if (count[c] > 0)
        {
          for (size_t j = 0; j < d; j++)
            Z[c * d + j] /= (double) count[c];
          continue;
        }
      size_t far = 0;
      for (size_t r = 1; r < npts; r++)
        if (D2[r] > D2[far])
          far = r;
      memcpy (Z + c * d, kmeans_point (data, far), d * sizeof *Z);
      D2[far] = 0;
    }
}

sg_status
sg_svgp_kmeans (const sg_svgp_data *data, size_t M, size_t iterations,
                gsl_rng *rng, double *Z)
{
  if (sg_svgp_data_check (data) != SG_OK || rng == NULL || Z == NULL)
    return SG_EINVAL;
  size_t npts = data->X2 ? 2 * data->n : data->n, d = data->dim;
  if (M == 0 || M > npts)
    return SG_EINVAL;
  double *D2 = malloc (npts * sizeof *D2);
  size_t *label = malloc (npts * sizeof *label);
  size_t *count = malloc (M * sizeof *count);
  double *C = malloc (M * d * sizeof *C);
  if (!D2 || !label || !count || !C)
    {
      free (D2);
      free (label);
      free (count);
      free (C);
      return SG_ENOMEM;
    }
  kmeans_seed (data, npts, M, rng, D2, C);
  for (size_t r = 0; r < npts; r++)
    label[r] = M;   /* "unassigned", so the first pass counts as a change */
  for (size_t it = 0; it < iterations; it++)
    {
      if (kmeans_assign (data, npts, M, C, label, D2) == 0)
        break;
      kmeans_update (data, npts, M, label, D2, count, C);
    }
  memcpy (Z, C, M * d * sizeof *Z);
  free (D2);
  free (label);
  free (count);
  free (C);
  return SG_OK;
}

/* ---- Parameters ------------------------------------------------------- */

size_t
sg_svgp_n_params (const sg_svgp *q)
{
  return q->M + n_lower (q->M) + 1 + sg_kernel_n_params (&q->kernel);
}

void
sg_svgp_get_params (const sg_svgp *q, double *params)
{
  size_t M = q->M, k = 0;
  memcpy (params, q->m, M * sizeof *params);
  k = M;
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j <= i; j++)
      params[k++] = q->L[i * M + j];
  params[k++] = eta_of_delta (q->delta);
  sg_kernel_get_params (&q->kernel, params + k);
}

sg_status
sg_svgp_set_params (sg_svgp *q, const double *params)
{
  size_t M = q->M, np = sg_svgp_n_params (q);
  if (!sg_all_finite (params, np))
    return SG_EINVAL;
  size_t k = M + n_lower (M);
  double delta = delta_of_eta (params[k]);
  sg_kernel kern;
  if (sg_kernel_copy (&kern, &q->kernel) != SG_OK)
    return SG_ENOMEM;
  sg_kernel_set_params (&kern, params + k + 1);
  double *Lk = NULL;
  int status = (delta > 0 && delta < 0.5) && sg_kernel_check (&kern) == SG_OK
               ? SG_OK : SG_EINVAL;
  if (status == SG_OK && (Lk = malloc (M * M * sizeof *Lk)) == NULL)
    status = SG_ENOMEM;
  if (status == SG_OK)
    status = _sg_svgp_factor_kzz (&kern, q->Z, M, Lk);
  if (status == SG_OK)
    {
      memcpy (q->Lk, Lk, M * M * sizeof *Lk);
      sg_kernel_memcpy (&q->kernel, &kern);
    }
  free (Lk);
  sg_kernel_clear (&kern);
  if (status != SG_OK)
    return status;
  q->delta = delta;
  memcpy (q->m, params, M * sizeof *q->m);
  k = M;
  memset (q->L, 0, M * M * sizeof *q->L);
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j <= i; j++)
      q->L[i * M + j] = params[k++];
  _sg_svgp_update_w (q);
  return SG_OK;
}

/* ---- Workspace -------------------------------------------------------- */

void
sg_svgp_workspace_free (sg_svgp_workspace *ws)
{
  if (ws == NULL)
    return;
  double **arrays[] = { &ws->Xb, &ws->X2b, &ws->yb, &ws->C, &ws->C2, &ws->A,
                        &ws->T, &ws->AD, &ws->Abar, &ws->mu, &ws->nu, &ws->kd,
                        &ws->gmu, &ws->gnu, &ws->GS, &ws->Lbar, &ws->tmp,
                        &ws->tmp2, &ws->gm, &ws->gtheta };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free (*arrays[i]);
  free (ws);
}

sg_svgp_workspace *
sg_svgp_workspace_new (size_t dim, size_t M, size_t batch)
{
  if (dim == 0 || M == 0 || batch == 0)
    return NULL;
  sg_svgp_workspace *ws = calloc (1, sizeof *ws);
  if (ws == NULL)
    return NULL;
  ws->dim = dim;
  ws->M = M;
  ws->batch = batch;
  size_t b = batch;
  ws->Xb = malloc (b * dim * sizeof (double));
  ws->X2b = malloc (b * dim * sizeof (double));
  ws->yb = malloc (b * sizeof (double));
  ws->C = malloc (b * M * sizeof (double));
  ws->C2 = malloc (b * M * sizeof (double));
  ws->A = malloc (b * M * sizeof (double));
  ws->T = malloc (b * M * sizeof (double));
  ws->AD = malloc (b * M * sizeof (double));
  ws->Abar = malloc (b * M * sizeof (double));
  ws->mu = malloc (b * sizeof (double));
  ws->nu = malloc (b * sizeof (double));
  ws->kd = malloc (b * sizeof (double));
  ws->gmu = malloc (b * sizeof (double));
  ws->gnu = malloc (b * sizeof (double));
  ws->GS = malloc (M * M * sizeof (double));
  ws->Lbar = malloc (M * M * sizeof (double));
  ws->tmp = malloc (M * M * sizeof (double));
  ws->tmp2 = malloc (M * M * sizeof (double));
  ws->gm = malloc (M * sizeof (double));
  ws->gtheta = malloc (SG_SVGP_WS_PARAMS (dim) * sizeof (double));
  if (!ws->Xb || !ws->X2b || !ws->yb || !ws->C || !ws->C2 || !ws->A || !ws->T
      || !ws->AD || !ws->Abar || !ws->mu || !ws->nu || !ws->kd || !ws->gmu
      || !ws->gnu || !ws->GS || !ws->Lbar || !ws->tmp || !ws->tmp2 || !ws->gm
      || !ws->gtheta)
    {
      sg_svgp_workspace_free (ws);
      return NULL;
    }
  return ws;
}

/* ---- The ELBO --------------------------------------------------------- */

/* Accumulators of one ELBO evaluation across chunks. */
typedef struct {
  double sum_e;     /* scale * sum_i E_i */
  double gdelta;    /* d/d delta of the same */
} elbo_acc;

/* Copies rows ROWS[start .. start + b - 1] (or start .. when ROWS is NULL)
 * into the workspace. */
static void
gather_rows (const sg_svgp_data *data, const size_t *rows, size_t start,
             size_t b, sg_svgp_workspace *ws)
{
  size_t d = data->dim;
  for (size_t i = 0; i < b; i++)
    {
      size_t r = rows ? rows[start + i] : start + i;
      memcpy (ws->Xb + i * d, data->X + r * d, d * sizeof (double));
      if (data->X2)
        memcpy (ws->X2b + i * d, data->X2 + r * d, d * sizeof (double));
      ws->yb[i] = data->y[r];
    }
}

/* C = k(Xb, Z) (minus k(X2b, Z) for duels) and kd = prior variance of the
 * row's latent. */
static void
cross_cov (const sg_svgp *q, int duel, size_t b, sg_svgp_workspace *ws)
{
  size_t M = q->M, d = q->dim;
  sg_kernel_matrix (&q->kernel, ws->Xb, b, q->Z, M, ws->C);
  for (size_t i = 0; i < b; i++)
    ws->kd[i] = q->kernel.variance;
  if (!duel)
    return;
  sg_kernel_matrix (&q->kernel, ws->X2b, b, q->Z, M, ws->C2);
  for (size_t t = 0; t < b * M; t++)
    ws->C[t] -= ws->C2[t];
  for (size_t i = 0; i < b; i++)
    ws->kd[i] = 2 * q->kernel.variance
                - 2 * sg_kernel_eval (&q->kernel, ws->Xb + i * d, ws->X2b + i * d);
}

/* A = Lk^{-1} C^T (M x b), mu = A^T m, T = L^T A, nu as in sg-svgp.h. */
void
_sg_svgp_latent_moments (const sg_svgp *q, size_t b, sg_svgp_workspace *ws)
{
  size_t M = q->M;
  for (size_t i = 0; i < b; i++)
    for (size_t j = 0; j < M; j++)
      ws->A[j * b + i] = ws->C[i * M + j];
  sg_trsm_lower (q->Lk, M, ws->A, b);
  sg_gemv (1, M, b, 1, ws->A, q->m, 0, ws->mu);
  sg_gemm (1, 0, M, b, M, 1, q->L, ws->A, 0, ws->T);
  for (size_t i = 0; i < b; i++)
    ws->nu[i] = ws->kd[i];
  for (size_t j = 0; j < M; j++)
    for (size_t i = 0; i < b; i++)
      {
        double a = ws->A[j * b + i], t = ws->T[j * b + i];
        ws->nu[i] += t * t - a * a;
      }
}

/* Abar = Lk^{-T} (m g_mu^T + 2 (L L^T - I) A diag(g_nu)) = (dF/dC)^T
 * (M x b) and Lbar -= Abar A^T (dF/dLk), from A, T = L^T A, AD =
 * A diag(g_nu) and g_mu, g_nu of a chunk of B rows. T is overwritten. */
void
_sg_svgp_chunk_abar (const sg_svgp *q, size_t b, sg_svgp_workspace *ws)
{
  size_t M = q->M;
  for (size_t j = 0; j < M; j++)
    for (size_t i = 0; i < b; i++)
      ws->T[j * b + i] *= ws->gnu[i];
  sg_gemm (0, 0, M, b, M, 2, q->L, ws->T, 0, ws->Abar);
  for (size_t t = 0; t < M * b; t++)
    ws->Abar[t] -= 2 * ws->AD[t];
  sg_gemm (0, 0, M, b, 1, 1, q->m, ws->gmu, 1, ws->Abar);
  sg_trsm_lower_trans (q->Lk, M, ws->Abar, b);
  sg_gemm (0, 1, M, M, b, -1, ws->Abar, ws->A, 1, ws->Lbar);
}

/* Kernel-hyperparameter gradient contributions of one chunk:
 * <dF/dC, dC/dtheta> and sum g_nu dkd/dtheta, and dF/dLk into Lbar. */
static void
chunk_theta_grad (const sg_svgp *q, int duel, size_t b, sg_svgp_workspace *ws)
{
  size_t M = q->M, d = q->dim, np = sg_kernel_n_params (&q->kernel);
  _sg_svgp_chunk_abar (q, b, ws);
  for (size_t p = 0; p < np; p++)
    {
      sg_kernel_matrix_grad (&q->kernel, ws->Xb, b, q->Z, M, p, ws->C);
      if (duel)
        {
          sg_kernel_matrix_grad (&q->kernel, ws->X2b, b, q->Z, M, p, ws->C2);
          for (size_t t = 0; t < b * M; t++)
            ws->C[t] -= ws->C2[t];
        }
      double g = 0;
      for (size_t i = 0; i < b; i++)
        for (size_t j = 0; j < M; j++)
          g += ws->Abar[j * b + i] * ws->C[i * M + j];
      /* kd = v (binary) or 2 v - 2 k(x, x') (duel) */
      double kd_factor = duel ? 2 : 1;
      for (size_t i = 0; i < b; i++)
        {
          double dkd = p == 0 ? kd_factor * q->kernel.variance : 0;
          if (duel)
            {
              double dk;
              sg_kernel_matrix_grad (&q->kernel, ws->Xb + i * d, 1,
                                     ws->X2b + i * d, 1, p, &dk);
              dkd -= 2 * dk;
            }
          g += ws->gnu[i] * dkd;
        }
      ws->gtheta[p] += g;
    }
}

/* gm += A g_mu, AD = A diag(g_nu), GS += AD A^T: the chunk's part of the
 * gradients in m and L. */
void
_sg_svgp_chunk_accumulate (const sg_svgp *q, size_t b, sg_svgp_workspace *ws)
{
  size_t M = q->M;
  sg_gemv (0, M, b, 1, ws->A, ws->gmu, 1, ws->gm);
  for (size_t j = 0; j < M; j++)
    for (size_t i = 0; i < b; i++)
      ws->AD[j * b + i] = ws->A[j * b + i] * ws->gnu[i];
  sg_gemm (0, 1, M, M, b, 1, ws->AD, ws->A, 1, ws->GS);
}

/* One chunk of B rows already gathered in WS. */
static void
elbo_chunk (const sg_svgp *q, int duel, size_t b, double scale, int want_grad,
            int want_theta, sg_svgp_workspace *ws, elbo_acc *acc)
{
  double delta = q->delta, s2 = q->noise_sd * q->noise_sd;
  double log1md = log1p (-delta), logd = log (delta), c = log1md - logd;
  cross_cov (q, duel, b, ws);
  _sg_svgp_latent_moments (q, b, ws);
  for (size_t i = 0; i < b; i++)
    {
      double s = sqrt (ws->nu[i] + s2);
      double z = ws->yb[i] * ws->mu[i] / s;
      double P = sg_norm_cdf (z);
      /* 004 eq. 8: E_q(g)[log p(y | g)] = Phi log(1 - delta) + (1 - Phi) log delta */
      acc->sum_e += scale * (P * log1md + (1 - P) * logd);
      if (!want_grad)
        continue;
      double ph = sg_norm_pdf (z);
      ws->gmu[i] = scale * c * ph * ws->yb[i] / s;
      ws->gnu[i] = -scale * c * ph * z / (2 * s * s);
      acc->gdelta += scale * ((1 - P) / delta - P / (1 - delta));
    }
  if (!want_grad)
    return;
  _sg_svgp_chunk_accumulate (q, b, ws);
  if (want_theta)
    chunk_theta_grad (q, duel, b, ws);
}

/* dF/dK from dF/dLk (Murray 2016), written to ws->tmp2 (symmetric). */
static void
cholesky_reverse (const sg_svgp *q, sg_svgp_workspace *ws)
{
  size_t M = q->M;
  /* tmp = Phi(Lk^T Lbar) */
  sg_gemm (1, 0, M, M, M, 1, q->Lk, ws->Lbar, 0, ws->tmp);
  for (size_t i = 0; i < M; i++)
    {
      ws->tmp[i * M + i] *= 0.5;
      for (size_t j = i + 1; j < M; j++)
        ws->tmp[i * M + j] = 0;
    }
  /* Y = Lk^{-T} tmp; X^T = Lk^{-T} Y^T; dF/dK = sym(X) */
  sg_trsm_lower_trans (q->Lk, M, ws->tmp, M);
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j < M; j++)
      ws->tmp2[i * M + j] = ws->tmp[j * M + i];
  sg_trsm_lower_trans (q->Lk, M, ws->tmp2, M);
  sg_symmetrize (ws->tmp2, M);
}

/* Adds <dF/dK, dK/dtheta_p> (K with its jitter) to ws->gtheta. */
static void
kzz_theta_grad (const sg_svgp *q, sg_svgp_workspace *ws)
{
  size_t M = q->M, np = sg_kernel_n_params (&q->kernel);
  cholesky_reverse (q, ws);
  const double *Kbar = ws->tmp2;
  double *dK = ws->tmp;
  for (size_t p = 0; p < np; p++)
    {
      sg_kernel_matrix_grad (&q->kernel, q->Z, M, q->Z, M, p, dK);
      double g = 0;
      for (size_t t = 0; t < M * M; t++)
        g += Kbar[t] * dK[t];
      if (p == 0)
        for (size_t j = 0; j < M; j++)
          g += Kbar[j * M + j] * SG_SVGP_JITTER * q->kernel.variance;
      ws->gtheta[p] += g;
    }
}

/* KL(N(m, L L^T) || N(0, I)). */
double
_sg_svgp_whitened_kl (const sg_svgp *q)
{
  size_t M = q->M;
  double kl = -(double) M;
  for (size_t i = 0; i < M; i++)
    {
      kl += q->m[i] * q->m[i] - 2 * log (fabs (q->L[i * M + i]));
      for (size_t j = 0; j <= i; j++)
        kl += q->L[i * M + j] * q->L[i * M + j];
    }
  return 0.5 * kl;
}

/* Packs the gradient: likelihood parts accumulated in WS plus the KL. */
void
_sg_svgp_pack_gradient (const sg_svgp *q, double gdelta, int want_theta,
                        sg_svgp_workspace *ws, double *grad)
{
  size_t M = q->M, k = M, np = sg_kernel_n_params (&q->kernel);
  for (size_t j = 0; j < M; j++)
    grad[j] = ws->gm[j] - q->m[j];
  /* d/dL of sum_i g_nu_i a_i^T L L^T a_i = 2 GS L */
  sg_gemm (0, 0, M, M, M, 2, ws->GS, q->L, 0, ws->tmp);
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j <= i; j++)
      {
        double g = ws->tmp[i * M + j] - q->L[i * M + j];
        if (i == j)
          g += 1 / q->L[i * M + i];
        grad[k++] = g;
      }
  double delta = q->delta;
  grad[k++] = gdelta * delta * (1 - 2 * delta);
  if (want_theta)
    kzz_theta_grad (q, ws);
  memcpy (grad + k, ws->gtheta, np * sizeof *grad);
}

/* As sg_svgp_elbo; without WANT_THETA the kernel part of GRAD is left 0
 * (training with a held kernel skips its cost). */
static int
elbo_eval (const sg_svgp *q, const sg_svgp_data *data, const size_t *rows,
           size_t nb, sg_svgp_workspace *ws, int want_theta, double *elbo,
           double *grad)
{
  if (q == NULL || data == NULL || ws == NULL || elbo == NULL || q->kernel.grouped
      || data->X == NULL || data->y == NULL || data->n == 0
      || data->dim != q->dim || ws->dim != q->dim || ws->M != q->M)
    return SG_EINVAL;
  if (rows == NULL)
    nb = data->n;
  if (nb == 0)
    return SG_EINVAL;
  if (rows)
    for (size_t i = 0; i < nb; i++)
      if (rows[i] >= data->n)
        return SG_EINVAL;
  size_t M = q->M;
  int duel = data->X2 != NULL, want_grad = grad != NULL;
  double scale = (double) data->n / (double) nb;
  elbo_acc acc = { 0, 0 };
  if (want_grad)
    {
      memset (ws->gm, 0, M * sizeof (double));
      memset (ws->GS, 0, M * M * sizeof (double));
      memset (ws->Lbar, 0, M * M * sizeof (double));
      memset (ws->gtheta, 0, SG_SVGP_WS_PARAMS (ws->dim) * sizeof (double));
    }
  for (size_t start = 0; start < nb; start += ws->batch)
    {
      size_t b = nb - start < ws->batch ? nb - start : ws->batch;
      gather_rows (data, rows, start, b, ws);
      elbo_chunk (q, duel, b, scale, want_grad, want_theta, ws, &acc);
    }
  double value = acc.sum_e - _sg_svgp_whitened_kl (q);
  if (!isfinite (value))
    return SG_ENUMERIC;
  if (want_grad)
    _sg_svgp_pack_gradient (q, acc.gdelta, want_theta, ws, grad);
  *elbo = value;
  return SG_OK;
}

sg_status
sg_svgp_elbo (const sg_svgp *q, const sg_svgp_data *data, const size_t *rows,
              size_t nb, sg_svgp_workspace *ws, double *elbo, double *grad)
{
  return elbo_eval (q, data, rows, nb, ws, 1, elbo, grad);
}

/* ---- Training --------------------------------------------------------- */

void
sg_svgp_train_options_default (sg_svgp_train_options *opt)
{
  memset (opt, 0, sizeof *opt);
  opt->batch = DEFAULT_BATCH;
  opt->iterations = DEFAULT_ITERATIONS;
  opt->learning_rate = DEFAULT_LEARNING_RATE;
  opt->warmup_fraction = DEFAULT_WARMUP_FRACTION;
}

void
sg_svgp_options_default (sg_svgp_options *opt)
{
  memset (opt, 0, sizeof *opt);
  opt->n_inducing = DEFAULT_INDUCING;
  opt->kmeans_iterations = DEFAULT_KMEANS_ITERATIONS;
  opt->noise_sd = 1;
  opt->delta_init = DEFAULT_DELTA;
  sg_svgp_train_options_default (&opt->train);
}

static int
train_loop (sg_svgp *work, size_t n, _sg_svgp_elbo_fn elbo_fn, void *user,
            const sg_svgp_train_options *opt, size_t b, gsl_rng *rng,
            const sg_progress *progress, sg_svgp_workspace *ws, double *buf,
            size_t *perm)
{
  size_t np = sg_svgp_n_params (work);
  size_t k_eta = work->M + n_lower (work->M);
  double *params = buf, *grad = buf + np, *m1 = buf + 2 * np, *m2 = buf + 3 * np;
  size_t iterations = opt->iterations;
  /* floor (fraction x iterations): the default 0.25 holds iterations / 4 */
  size_t warmup = (size_t) (opt->warmup_fraction * (double) iterations);
  int learn_kernel = !opt->fix_kernel;
  double lr = opt->learning_rate;
  size_t pos = n;   /* forces a shuffle before the first minibatch */
  sg_svgp_get_params (work, params);
  memset (m1, 0, 2 * np * sizeof *m1);
  for (size_t i = 0; i < n; i++)
    perm[i] = i;
  double t0 = sg_monotonic_seconds ();
  size_t taken = 0;
  for (size_t t = 1; t <= iterations; t++)
    {
      if (opt->max_seconds > 0 && sg_monotonic_seconds () - t0 >= opt->max_seconds)
        break;
      if (sg_progress_report (progress, (double) (t - 1) / (double) iterations) != SG_OK)
        return SG_ECANCELLED;
      const size_t *rows = sg_minibatch_next (perm, n, b, &pos, rng);
      double e;
      int status = elbo_fn (work, rows, b, user, ws, learn_kernel && t > warmup, &e, grad);
      if (status != SG_OK || !sg_all_finite (grad, np))
        return SG_ENUMERIC;
      if (opt->fix_delta)
        grad[k_eta] = 0;
      if (!learn_kernel)
        memset (grad + k_eta + 1, 0, (np - k_eta - 1) * sizeof *grad);
      if (!opt->learn_variance)
        grad[k_eta + 1] = 0;   /* log variance: see sg-svgp.h */
      sg_adam_step (params, grad, m1, m2, 0, k_eta, t, lr);
      if (t > warmup)   /* delta and the kernel */
        sg_adam_step (params, grad, m1, m2, k_eta, np, t - warmup, lr);
      status = sg_svgp_set_params (work, params);
      if (status != SG_OK)
        return status == SG_ENOMEM ? SG_ENOMEM : SG_ENUMERIC;
      taken = t;
    }
  work->iterations = taken;
  int status = elbo_fn (work, NULL, n, user, ws, 0, &work->elbo, NULL);
  if (status == SG_OK)
    status = sg_progress_report (progress, 1.0);
  return status;
}

int
_sg_svgp_train_options_ok (const sg_svgp_train_options *opt)
{
  return opt->batch > 0 && opt->iterations > 0 && opt->learning_rate > 0
         && opt->warmup_fraction >= 0 && opt->warmup_fraction <= 1
         && opt->max_seconds >= 0;
}

sg_status
_sg_svgp_train_with (sg_svgp *q, size_t n, _sg_svgp_elbo_fn elbo_fn, void *user,
                     const sg_svgp_train_options *opt, gsl_rng *rng,
                     const sg_progress *progress, sg_svgp_workspace *ws)
{
  if (n == 0 || !_sg_svgp_train_options_ok (opt))
    return SG_EINVAL;
  size_t b = opt->batch;
  if (b > n)
    b = n;
  if (b > ws->batch && b < n)
    return SG_EINVAL;
  size_t np = sg_svgp_n_params (q);
  double *buf = malloc (4 * np * sizeof *buf);
  size_t *perm = malloc (n * sizeof *perm);
  sg_svgp work;
  int status = buf && perm ? _sg_svgp_copy (&work, q) : SG_ENOMEM;
  if (status != SG_OK)
    {
      free (buf);
      free (perm);
      return status;
    }
  status = train_loop (&work, n, elbo_fn, user, opt, b, rng, progress, ws, buf, perm);
  free (buf);
  free (perm);
  if (status != SG_OK)
    {
      sg_svgp_clear (&work);
      return status;
    }
  sg_svgp_clear (q);
  *q = work;
  return SG_OK;
}

static int
labels_elbo (const sg_svgp *q, const size_t *rows, size_t nb, void *user,
             sg_svgp_workspace *ws, int want_theta, double *elbo, double *grad)
{
  return elbo_eval (q, user, rows, nb, ws, want_theta, elbo, grad);
}

sg_status
sg_svgp_train (sg_svgp *q, const sg_svgp_data *data,
               const sg_svgp_train_options *opt_in, gsl_rng *rng,
               const sg_progress *progress, sg_svgp_workspace *ws)
{
  sg_svgp_train_options defaults;
  if (opt_in == NULL)
    sg_svgp_train_options_default (&defaults);
  const sg_svgp_train_options *opt = opt_in ? opt_in : &defaults;
  if (q == NULL || rng == NULL || ws == NULL || sg_svgp_data_check (data) != SG_OK
      || data->dim != q->dim || ws->dim != q->dim || ws->M != q->M)
    return SG_EINVAL;
  return _sg_svgp_train_with (q, data->n, labels_elbo, (void *) data, opt, rng,
                              progress, ws);
}

sg_status
sg_svgp_fit (const sg_kernel *kernel, const sg_svgp_data *data,
             const sg_svgp_options *opt, gsl_rng *rng,
             const sg_progress *progress, sg_svgp *q)
{
  sg_svgp_options defaults;
  if (opt == NULL)
    {
      sg_svgp_options_default (&defaults);
      opt = &defaults;
    }
  if (kernel == NULL || q == NULL || rng == NULL
      || sg_svgp_data_check (data) != SG_OK || kernel->dim != data->dim
      || opt->n_inducing == 0 || opt->train.batch == 0)
    return SG_EINVAL;
  size_t npts = data->X2 ? 2 * data->n : data->n;
  size_t M = opt->n_inducing < npts ? opt->n_inducing : npts;
  size_t b = opt->train.batch;
  if (b > data->n)
    b = data->n;
  double *Z = malloc (M * data->dim * sizeof *Z);
  sg_svgp_workspace *ws = sg_svgp_workspace_new (data->dim, M, b);
  int status = Z && ws ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_svgp_kmeans (data, M, opt->kmeans_iterations, rng, Z);
  sg_svgp t = { 0 };
  if (status == SG_OK)
    status = sg_svgp_init (&t, kernel, Z, M, opt->noise_sd, opt->delta_init);
  if (status == SG_OK)
    {
      status = sg_svgp_train (&t, data, &opt->train, rng, progress, ws);
      if (status != SG_OK)
        sg_svgp_clear (&t);
    }
  free (Z);
  sg_svgp_workspace_free (ws);
  if (status == SG_OK)
    *q = t;
  return status;
}

sg_status
sg_svgp_fit_preferences (const sg_kernel *kernel, double probit_sd,
                         const sg_data *data, const sg_svgp_options *opt,
                         gsl_rng *rng, const sg_progress *progress, sg_svgp *q)
{
  if (data == NULL || data->n_obs == 0 || !(probit_sd > 0)
      || !isfinite (probit_sd))
    return SG_EINVAL;
  size_t n = data->n_obs, d = data->dim;
  for (size_t i = 0; i < n; i++)
    if (data->obs[i].kind != SG_OBS_PREFERENCE)
      return SG_EINVAL;
  double *X = malloc (n * d * sizeof *X), *X2 = malloc (n * d * sizeof *X2);
  double *y = malloc (n * sizeof *y);
  if (!X || !X2 || !y)
    {
      free (X);
      free (X2);
      free (y);
      return SG_ENOMEM;
    }
  for (size_t i = 0; i < n; i++)
    {
      memcpy (X + i * d, data->X + data->obs[i].a * d, d * sizeof *X);
      memcpy (X2 + i * d, data->X + data->obs[i].b * d, d * sizeof *X2);
      y[i] = 1;
    }
  sg_svgp_data sd = { .dim = d, .n = n, .X = X, .X2 = X2, .y = y };
  sg_svgp_options o;
  if (opt != NULL)
    o = *opt;
  else
    sg_svgp_options_default (&o);
  o.noise_sd = M_SQRT2 * probit_sd;
  if (o.n_inducing > data->n_inputs)
    o.n_inducing = data->n_inputs;
  int status = sg_svgp_fit (kernel, &sd, &o, rng, progress, q);
  free (X);
  free (X2);
  free (y);
  return status;
}

/* ---- Prediction ------------------------------------------------------- */

typedef struct {
  double *C, *C2, *A, *T;   /* cols x M, cols x M, M x cols, M x cols */
} predict_work;

static void
predict_work_clear (predict_work *w)
{
  free (w->C);
  free (w->C2);
  free (w->A);
  free (w->T);
}

static int
predict_work_init (predict_work *w, size_t M, size_t cols)
{
  w->C = malloc (cols * M * sizeof (double));
  w->C2 = malloc (cols * M * sizeof (double));
  w->A = malloc (cols * M * sizeof (double));
  w->T = malloc (cols * M * sizeof (double));
  if (!w->C || !w->C2 || !w->A || !w->T)
    {
      predict_work_clear (w);
      return SG_ENOMEM;
    }
  return SG_OK;
}

/* A = Lk^{-1} C^T and T = L^T A for COLS points whose cross-covariance
 * rows are in w->C. */
static void
predict_factors (const sg_svgp *q, size_t cols, predict_work *w)
{
  size_t M = q->M;
  for (size_t i = 0; i < cols; i++)
    for (size_t j = 0; j < M; j++)
      w->A[j * cols + i] = w->C[i * M + j];
  sg_trsm_lower (q->Lk, M, w->A, cols);
  sg_gemm (1, 0, M, cols, M, 1, q->L, w->A, 0, w->T);
}

/* Posterior covariance of columns i and j given their prior covariance. */
static double
block_cov (const sg_svgp *q, const predict_work *w, size_t cols, size_t i,
           size_t j, double prior)
{
  double c = prior;
  for (size_t r = 0; r < q->M; r++)
    c += w->T[r * cols + i] * w->T[r * cols + j]
         - w->A[r * cols + i] * w->A[r * cols + j];
  return c;
}

static int
predict_rows (const sg_svgp *q, const double *Xs, const double *Xs2,
              size_t ns, double *mean, double *var)
{
  if (q == NULL || Xs == NULL || mean == NULL || var == NULL || q->M == 0)
    return SG_EINVAL;
  size_t d = q->dim, M = q->M;
  if (!sg_all_finite (Xs, ns * d) || (Xs2 && !sg_all_finite (Xs2, ns * d)))
    return SG_EINVAL;
  predict_work w;
  if (predict_work_init (&w, M, PREDICT_BLOCK) != SG_OK)
    return SG_ENOMEM;
  for (size_t start = 0; start < ns; start += PREDICT_BLOCK)
    {
      size_t nb = ns - start < PREDICT_BLOCK ? ns - start : PREDICT_BLOCK;
      const double *X = Xs + start * d;
      sg_kernel_matrix (&q->kernel, X, nb, q->Z, M, w.C);
      if (Xs2)
        {
          sg_kernel_matrix (&q->kernel, Xs2 + start * d, nb, q->Z, M, w.C2);
          for (size_t t = 0; t < nb * M; t++)
            w.C[t] -= w.C2[t];
        }
      sg_gemv (0, nb, M, 1, w.C, q->w, 0, mean + start);
      predict_factors (q, nb, &w);
      for (size_t i = 0; i < nb; i++)
        {
          const double *x = X + i * d;
          double prior = sg_kernel_eval (&q->kernel, x, x);
          if (Xs2)
            {
              const double *x2 = Xs2 + (start + i) * d;
              prior += sg_kernel_eval (&q->kernel, x2, x2)
                       - 2 * sg_kernel_eval (&q->kernel, x, x2);
            }
          double v = block_cov (q, &w, nb, i, i, prior);
          var[start + i] = v > 0 ? v : 0;
        }
    }
  predict_work_clear (&w);
  return SG_OK;
}

sg_status
sg_svgp_predict (const sg_svgp *q, const double *Xs, size_t ns, double *mean,
                 double *var)
{
  return predict_rows (q, Xs, NULL, ns, mean, var);
}

sg_status
sg_svgp_predict_duel (const sg_svgp *q, const double *Xs, const double *Xs2,
                      size_t ns, double *mean, double *var)
{
  if (Xs2 == NULL)
    return SG_EINVAL;
  return predict_rows (q, Xs, Xs2, ns, mean, var);
}

sg_status
sg_svgp_joint (const sg_svgp *q, const double *Xs, size_t ns, double *mean,
               double *cov)
{
  if (q == NULL || Xs == NULL || mean == NULL || cov == NULL || ns == 0
      || !sg_all_finite (Xs, ns * q->dim))
    return SG_EINVAL;
  size_t M = q->M;
  predict_work w;
  double *K = malloc (ns * ns * sizeof *K);
  if (K == NULL || predict_work_init (&w, M, ns) != SG_OK)
    {
      free (K);
      return SG_ENOMEM;
    }
  sg_kernel_matrix (&q->kernel, Xs, ns, q->Z, M, w.C);
  sg_gemv (0, ns, M, 1, w.C, q->w, 0, mean);
  predict_factors (q, ns, &w);
  sg_kernel_matrix (&q->kernel, Xs, ns, Xs, ns, K);
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j <= i; j++)
      cov[i * ns + j] = cov[j * ns + i] = block_cov (q, &w, ns, i, j, K[i * ns + j]);
  predict_work_clear (&w);
  free (K);
  return SG_OK;
}

double
sg_svgp_class_probability (const sg_svgp *q, double mean, double var)
{
  double s2 = q->noise_sd * q->noise_sd;
  /* 004 eq. 9 */
  return q->delta + (1 - 2 * q->delta) * sg_norm_cdf (mean / sqrt (var + s2));
}

static void
fill_summary (const sg_svgp *q, double mu, double var, double z,
              sg_point_summary *out)
{
  double sd = sqrt (var);
  out->mean = out->median = mu;
  out->sd = sd;
  out->lower = out->hpd_lower = mu - z * sd;
  out->upper = out->hpd_upper = mu + z * sd;
  out->skewness = 0;
  out->class_probability = sg_svgp_class_probability (q, mu, var);
  out->prob_better = NAN;
}

sg_status
sg_svgp_summaries (const sg_svgp *q, const double *Xs, size_t ns,
                   double level, const double *x_ref, sg_point_summary *out)
{
  if (q == NULL || Xs == NULL || out == NULL || !(level > 0 && level < 1))
    return SG_EINVAL;
  size_t d = q->dim, M = q->M;
  if (!sg_all_finite (Xs, ns * d) || (x_ref && !sg_all_finite (x_ref, d)))
    return SG_EINVAL;
  double z = sg_norm_quantile (0.5 * (1 + level));
  size_t cols_max = PREDICT_BLOCK + 1;
  predict_work w;
  double *P = malloc (cols_max * d * sizeof *P), *mu = malloc (cols_max * sizeof *mu);
  if (P == NULL || mu == NULL || predict_work_init (&w, M, cols_max) != SG_OK)
    {
      free (P);
      free (mu);
      return SG_ENOMEM;
    }
  for (size_t start = 0; start < ns; start += PREDICT_BLOCK)
    {
      size_t nb = ns - start < PREDICT_BLOCK ? ns - start : PREDICT_BLOCK;
      size_t cols = nb + (x_ref != NULL);
      memcpy (P, Xs + start * d, nb * d * sizeof *P);
      if (x_ref)
        memcpy (P + nb * d, x_ref, d * sizeof *P);
      sg_kernel_matrix (&q->kernel, P, cols, q->Z, M, w.C);
      sg_gemv (0, cols, M, 1, w.C, q->w, 0, mu);
      predict_factors (q, cols, &w);
      double vr = 0;
      if (x_ref)
        vr = fmax (block_cov (q, &w, cols, nb, nb, sg_kernel_eval (&q->kernel, x_ref, x_ref)),
                   0);
      for (size_t j = 0; j < nb; j++)
        {
          const double *x = P + j * d;
          double v = fmax (block_cov (q, &w, cols, j, j, sg_kernel_eval (&q->kernel, x, x)), 0);
          fill_summary (q, mu[j], v, z, &out[start + j]);
          if (!x_ref)
            continue;
          double kxr = sg_kernel_eval (&q->kernel, P + j * d, x_ref);
          double c = block_cov (q, &w, cols, j, nb, kxr);
          double vh = v + vr - 2 * c;
          /* at x = x_ref the difference is identically zero */
          if (vh <= 1e-12 * (v + vr))
            vh = 0;
          double diff = mu[j] - mu[nb];
          out[start + j].prob_better = vh > 0 ? sg_norm_cdf (diff / sqrt (vh))
                                              : (diff > 0 ? 1.0 : 0.0);
        }
    }
  predict_work_clear (&w);
  free (P);
  free (mu);
  return SG_OK;
}
