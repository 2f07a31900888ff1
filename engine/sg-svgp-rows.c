/* sg-svgp-rows.c — the sparse variational model for every answer kind.
 * Model, ELBO, sites and pseudo-observations: sg-svgp-rows.h.
 *
 * Gradients. Per probit row, with c = log((1 - delta) / delta):
 *   dE/dmu = c (phi(alpha) - phi(beta)) / s,
 *   dE/dnu = -c (alpha phi(alpha) - beta phi(beta)) / (2 s^2),
 *   dE/ddelta = (1 - P) / delta - P / (1 - delta);
 * per numeric row dE/dmu = (y - mu) / v, dE/dnu = -1 / (2 v). From these
 * the gradients in m, L and through k(Z, Z) are sg-svgp.c's (shared
 * through sg-svgp-private.h); the cross-covariance of a row is
 * c_k = sum_j w_kj k(Z, x_kj), so dc_k/dtheta = sum_j w_kj dk(Z, x_kj)/dtheta,
 * and kd_k = sum_jj' w_kj w_kj' k(x_kj, x_kj') likewise.
 */
#include "sg-svgp-rows.h"

#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-svgp-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INDUCING 200
#define DEFAULT_KMEANS_ITERATIONS 25
#define DEFAULT_DELTA 0.01
#define DEFAULT_REFINE 60
#define REFINE_STEP 0.5
#define GH_NODES SG_SVGP_ROWS_GH_NODES
/* Eigenvalues of a site sum below this fraction of the largest are
 * treated as no information (pseudo-observations of noise > 1e10 x). */
#define PSEUDO_REL_EIGEN 1e-10

/* One chunk's rows as gathered: up to two options each. */
typedef struct {
  size_t b;
  double *w1, *w2;    /* coefficients (w2 = 0: one option)             */
  double *off;        /* z_k + xi (w1 + w2); numeric: y_r - xi          */
  double *s2;         /* sigma_k^2, or noise_var_r                      */
  double *upper;      /* upper_k (+inf), unused for numeric             */
  unsigned char *numeric;
  double gh_x[SG_SVGP_ROWS_GH_NODES], gh_w[SG_SVGP_ROWS_GH_NODES];   /* the rule */
} chunk;

static void
chunk_free (chunk *c)
{
  free (c->w1);
  free (c->w2);
  free (c->off);
  free (c->s2);
  free (c->upper);
  free (c->numeric);
}

/* Gauss-Hermite nodes x and weights w / sqrt(pi) for E[h(mu + sqrt(2 nu) x)]
 * under the weight exp(-x^2) (Golub & Welsch 1969: the eigenvalues of the
 * Jacobi matrix with off-diagonal sqrt(k / 2), weights from the first
 * components of its eigenvectors). */
int
_sg_svgp_hermite_rule (double *x, double *w)
{
  double J[GH_NODES * GH_NODES] = { 0 };
  for (size_t k = 1; k < GH_NODES; k++)
    J[k * GH_NODES + k - 1] = J[(k - 1) * GH_NODES + k] = sqrt ((double) k / 2);
  int status = sg_sym_eigen (J, GH_NODES, x);
  for (size_t k = 0; k < GH_NODES && status == SG_OK; k++)
    w[k] = J[k] * J[k];   /* sqrt(pi) v_0k^2 / sqrt(pi) */
  return status;
}

static int
chunk_alloc (chunk *c, size_t batch)
{
  memset (c, 0, sizeof *c);
  c->w1 = malloc (batch * sizeof *c->w1);
  c->w2 = malloc (batch * sizeof *c->w2);
  c->off = malloc (batch * sizeof *c->off);
  c->s2 = malloc (batch * sizeof *c->s2);
  c->upper = malloc (batch * sizeof *c->upper);
  c->numeric = malloc (batch);
  if (!c->w1 || !c->w2 || !c->off || !c->s2 || !c->upper || !c->numeric)
    {
      chunk_free (c);
      return SG_ENOMEM;
    }
  int status = _sg_svgp_hermite_rule (c->gh_x, c->gh_w);
  if (status != SG_OK)
    chunk_free (c);
  return status;
}

size_t
sg_svgp_rows_count (const sg_svgp_rows_data *data)
{
  return data->lik->m_probit + data->lik->m_numeric;
}

sg_status
sg_svgp_rows_check (const sg_svgp_rows_data *data)
{
  if (data == NULL || data->lik == NULL || data->X == NULL || data->dim == 0
      || data->lik->n != data->n
      || data->lik->w_index == NULL || data->lik->w_value == NULL
      || data->lik->c_index == NULL || sg_svgp_rows_count (data) == 0
      || !isfinite (data->mean) || !sg_all_finite (data->X, data->n * data->dim))
    return SG_EINVAL;
  const sg_likelihood *L = data->lik;
  for (size_t k = 0; k < L->m_probit; k++)
    if (L->w_index[2 * k] >= data->n || L->w_index[2 * k + 1] >= data->n
        || !(L->sigma[k] > 0) || !isfinite (L->sigma[k]) || !isfinite (L->z[k])
        || !isfinite (L->w_value[2 * k]) || !isfinite (L->w_value[2 * k + 1])
        || isnan (L->upper[k]))
      return SG_EINVAL;
  for (size_t r = 0; r < L->m_numeric; r++)
    if (L->c_index[r] >= data->n || !(L->noise_var[r] > 0)
        || !isfinite (L->noise_var[r]) || !isfinite (L->y[r]))
      return SG_EINVAL;
  return SG_OK;
}

/* Unit U's options into row I of the workspace and the chunk. */
static void
gather_unit (const sg_svgp_rows_data *data, size_t u, size_t i,
             sg_svgp_workspace *ws, chunk *c)
{
  const sg_likelihood *L = data->lik;
  size_t d = data->dim, i1, i2;
  if (u < L->m_probit)
    {
      i1 = L->w_index[2 * u];
      i2 = L->w_index[2 * u + 1];
      c->w1[i] = L->w_value[2 * u];
      c->w2[i] = L->w_value[2 * u + 1];
      c->off[i] = L->z[u] + data->mean * (c->w1[i] + c->w2[i]);
      c->s2[i] = L->sigma[u] * L->sigma[u];
      c->upper[i] = L->upper ? L->upper[u] : INFINITY;
      c->numeric[i] = 0;
    }
  else
    {
      size_t r = u - L->m_probit;
      i1 = i2 = L->c_index[r];
      c->w1[i] = 1;
      c->w2[i] = 0;
      c->off[i] = L->y[r] - data->mean;
      c->s2[i] = L->noise_var[r];
      c->upper[i] = INFINITY;
      c->numeric[i] = 1;
    }
  memcpy (ws->Xb + i * d, data->X + i1 * d, d * sizeof (double));
  memcpy (ws->X2b + i * d, data->X + i2 * d, d * sizeof (double));
}

/* C = w1 k(X1, Z) + w2 k(X2, Z) and kd, the rows' prior variances. */
static void
rows_cross_cov (const sg_svgp *q, const chunk *c, sg_svgp_workspace *ws)
{
  size_t M = q->M, d = q->dim, b = c->b;
  sg_kernel_matrix (&q->kernel, ws->Xb, b, q->Z, M, ws->C);
  sg_kernel_matrix (&q->kernel, ws->X2b, b, q->Z, M, ws->C2);
  for (size_t i = 0; i < b; i++)
    {
      const double *x1 = ws->Xb + i * d, *x2 = ws->X2b + i * d;
      double w1 = c->w1[i], w2 = c->w2[i];
      for (size_t j = 0; j < M; j++)
        ws->C[i * M + j] = w1 * ws->C[i * M + j] + w2 * ws->C2[i * M + j];
      double kd = w1 * w1 * sg_kernel_eval (&q->kernel, x1, x1);
      if (w2 != 0)
        kd += w2 * w2 * sg_kernel_eval (&q->kernel, x2, x2)
              + 2 * w1 * w2 * sg_kernel_eval (&q->kernel, x1, x2);
      ws->kd[i] = kd;
    }
}

/* log P(row | l) = log P(0 < off + l + e < upper), e ~ N(0, sd^2), and its
 * derivative in l. */
static double
probit_log (double l, double off, double sd, double upper, double *dl)
{
  double a = (off + l) / sd;
  if (!isfinite (upper))
    {
      *dl = sg_norm_hazard (a) / sd;
      return sg_norm_logcdf (a);
    }
  double b = (off + l - upper) / sd, h = sg_norm_logdiff (b, a);
  *dl = (exp (sg_norm_logpdf (a) - h) - exp (sg_norm_logpdf (b) - h)) / sd;
  return h;
}

double
_sg_svgp_probit_expect (double off, double s2, double upper, double mu, double nu,
                        const double *gh_x, const double *gh_w, double *dmu, double *dnu)
{
  /* the rule's own derivatives: d/dnu through the nodes' spread */
  double s = sqrt (2 * fmax (nu, 1e-300)), sd = sqrt (s2), e = 0, gm = 0, gn = 0;
  for (size_t k = 0; k < GH_NODES; k++)
    {
      double dl, h = probit_log (mu + s * gh_x[k], off, sd, upper, &dl);
      e += gh_w[k] * h;
      gm += gh_w[k] * dl;
      gn += gh_w[k] * dl * gh_x[k];
    }
  *dmu = gm;
  *dnu = gn / s;
  return e;
}

/* E of row I and, into ws->gmu / gnu (unscaled), its derivatives;
 * *GDELTA receives dE/ddelta. */
static double
row_term (const sg_svgp *q, const sg_svgp_rows_data *data, const chunk *c, size_t i,
          sg_svgp_workspace *ws, double *gdelta)
{
  double mu = ws->mu[i], nu = ws->nu[i];
  *gdelta = 0;
  if (c->numeric[i])
    {
      double v = c->s2[i], r = c->off[i] - mu;
      ws->gmu[i] = r / v;
      ws->gnu[i] = -0.5 / v;
      return -0.5 * log (2 * M_PI * v) - (r * r + nu) / (2 * v);
    }
  if (data->likelihood == SG_SVGP_ROWS_PROBIT)
    return _sg_svgp_probit_expect (c->off[i], c->s2[i], c->upper[i], mu, nu, c->gh_x,
                                   c->gh_w, &ws->gmu[i], &ws->gnu[i]);
  double delta = q->delta, logd = log (delta), cc = log1p (-delta) - logd;
  double s = sqrt (nu + c->s2[i]), o = c->off[i] + mu;
  double alpha = o / s, pa = sg_norm_pdf (alpha), P, dmu = pa, dnu = alpha * pa;
  if (isfinite (c->upper[i]))
    {
      double beta = (o - c->upper[i]) / s, pb = sg_norm_pdf (beta);
      /* Phi(alpha) - Phi(beta), from the tail that keeps its digits */
      P = alpha > 0 ? sg_norm_cdf (-beta) - sg_norm_cdf (-alpha)
                    : sg_norm_cdf (alpha) - sg_norm_cdf (beta);
      dmu -= pb;
      dnu -= beta * pb;
    }
  else
    P = sg_norm_cdf (alpha);
  ws->gmu[i] = cc * dmu / s;
  ws->gnu[i] = -cc * dnu / (2 * s * s);
  *gdelta = (1 - P) / delta - P / (1 - delta);
  return logd + cc * P;
}

/* <dF/dC, dC/dtheta> + sum g_nu dkd/dtheta for the chunk, into gtheta. */
static void
rows_theta_grad (const sg_svgp *q, const chunk *c, sg_svgp_workspace *ws)
{
  size_t M = q->M, d = q->dim, b = c->b, np = sg_kernel_n_params (&q->kernel);
  _sg_svgp_chunk_abar (q, b, ws);
  for (size_t p = 0; p < np; p++)
    {
      sg_kernel_matrix_grad (&q->kernel, ws->Xb, b, q->Z, M, p, ws->C);
      sg_kernel_matrix_grad (&q->kernel, ws->X2b, b, q->Z, M, p, ws->C2);
      double g = 0;
      for (size_t i = 0; i < b; i++)
        {
          const double *x1 = ws->Xb + i * d, *x2 = ws->X2b + i * d;
          double w1 = c->w1[i], w2 = c->w2[i], dk11, dk22, dk12, dkd;
          for (size_t j = 0; j < M; j++)
            g += ws->Abar[j * b + i] * (w1 * ws->C[i * M + j] + w2 * ws->C2[i * M + j]);
          sg_kernel_matrix_grad (&q->kernel, x1, 1, x1, 1, p, &dk11);
          dkd = w1 * w1 * dk11;
          if (w2 != 0)
            {
              sg_kernel_matrix_grad (&q->kernel, x2, 1, x2, 1, p, &dk22);
              sg_kernel_matrix_grad (&q->kernel, x1, 1, x2, 1, p, &dk12);
              dkd += w2 * w2 * dk22 + 2 * w1 * w2 * dk12;
            }
          g += ws->gnu[i] * dkd;
        }
      ws->gtheta[p] += g;
    }
}

/* Units ROWS[start .. start + b) (or start .. without ROWS) into the
 * workspace, and their latent moments under Q. */
static void
chunk_moments (const sg_svgp *q, const sg_svgp_rows_data *data, const size_t *rows,
               size_t start, size_t b, sg_svgp_workspace *ws, chunk *c)
{
  c->b = b;
  for (size_t i = 0; i < b; i++)
    gather_unit (data, rows ? rows[start + i] : start + i, i, ws, c);
  rows_cross_cov (q, c, ws);
  _sg_svgp_latent_moments (q, b, ws);
}

static int
units_ok (const sg_svgp_rows_data *data, const size_t *rows, size_t nb)
{
  size_t n = sg_svgp_rows_count (data);
  if (rows == NULL)
    return 1;
  if (nb == 0)
    return 0;
  for (size_t i = 0; i < nb; i++)
    if (rows[i] >= n)
      return 0;
  return 1;
}

static int
rows_elbo_eval (const sg_svgp *q, const sg_svgp_rows_data *data, const size_t *rows,
                size_t nb, sg_svgp_workspace *ws, int want_theta, double *elbo,
                double *grad)
{
  if (q == NULL || ws == NULL || elbo == NULL || ws->dim != q->dim || ws->M != q->M
      || data->dim != q->dim || !units_ok (data, rows, nb))
    return SG_EINVAL;
  size_t n = sg_svgp_rows_count (data), M = q->M;
  if (rows == NULL)
    nb = n;
  chunk c;
  int status = chunk_alloc (&c, ws->batch);
  if (status != SG_OK)
    return status;
  double scale = (double) n / (double) nb, sum = 0, gdelta = 0;
  if (grad)
    {
      memset (ws->gm, 0, M * sizeof (double));
      memset (ws->GS, 0, M * M * sizeof (double));
      memset (ws->Lbar, 0, M * M * sizeof (double));
      memset (ws->gtheta, 0, SG_SVGP_WS_PARAMS (ws->dim) * sizeof (double));
    }
  for (size_t start = 0; start < nb; start += ws->batch)
    {
      size_t b = nb - start < ws->batch ? nb - start : ws->batch;
      chunk_moments (q, data, rows, start, b, ws, &c);
      for (size_t i = 0; i < b; i++)
        {
          double gd;
          sum += scale * row_term (q, data, &c, i, ws, &gd);
          ws->gmu[i] *= scale;
          ws->gnu[i] *= scale;
          gdelta += scale * gd;
        }
      if (grad == NULL)
        continue;
      _sg_svgp_chunk_accumulate (q, b, ws);
      if (want_theta)
        rows_theta_grad (q, &c, ws);
    }
  chunk_free (&c);
  double value = sum - _sg_svgp_whitened_kl (q);
  if (!isfinite (value))
    return SG_ENUMERIC;
  if (grad)
    _sg_svgp_pack_gradient (q, gdelta, want_theta, ws, grad);
  *elbo = value;
  return SG_OK;
}

sg_status
sg_svgp_rows_elbo (const sg_svgp *q, const sg_svgp_rows_data *data, const size_t *rows,
                   size_t nb, sg_svgp_workspace *ws, double *elbo, double *grad)
{
  if (sg_svgp_rows_check (data) != SG_OK)
    return SG_EINVAL;
  return rows_elbo_eval (q, data, rows, nb, ws, 1, elbo, grad);
}

/* ---- Sites and natural-gradient steps ----------------------------------- */

sg_status
sg_svgp_rows_sites (const sg_svgp *q, const sg_svgp_rows_data *data, const size_t *rows,
                    size_t nb, double sign, double *lambda, double *eta)
{
  if (q == NULL || lambda == NULL || eta == NULL || sg_svgp_rows_check (data) != SG_OK
      || data->dim != q->dim || !units_ok (data, rows, nb) || !isfinite (sign))
    return SG_EINVAL;
  size_t M = q->M, n = rows ? nb : sg_svgp_rows_count (data), batch = 256;
  sg_svgp_workspace *ws = sg_svgp_workspace_new (q->dim, M, batch);
  chunk c;
  if (ws == NULL)
    return SG_ENOMEM;
  int status = chunk_alloc (&c, batch);
  if (status != SG_OK)
    {
      sg_svgp_workspace_free (ws);
      return status;
    }
  for (size_t start = 0; start < n; start += batch)
    {
      size_t b = n - start < batch ? n - start : batch;
      chunk_moments (q, data, rows, start, b, ws, &c);
      for (size_t i = 0; i < b; i++)
        {
          double gd;
          row_term (q, data, &c, i, ws, &gd);
          double lam = -2 * ws->gnu[i];
          /* eta's coefficient g + lambda mu, Lambda's lambda */
          ws->gmu[i] = sign * (ws->gmu[i] + lam * ws->mu[i]);
          ws->gnu[i] = sign * lam;
        }
      sg_gemv (0, M, b, 1, ws->A, ws->gmu, 1, eta);
      for (size_t j = 0; j < M; j++)
        for (size_t i = 0; i < b; i++)
          ws->AD[j * b + i] = ws->A[j * b + i] * ws->gnu[i];
      sg_gemm (0, 1, M, M, b, 1, ws->AD, ws->A, 1, lambda);
    }
  chunk_free (&c);
  sg_svgp_workspace_free (ws);
  sg_symmetrize (lambda, M);
  return sg_all_finite (lambda, M * M) && sg_all_finite (eta, M) ? SG_OK : SG_ENUMERIC;
}

/* P = (L L^T)^{-1} and h = P m, Q's natural parameters. */
static int
natural_params (const sg_svgp *q, double *P, double *h)
{
  size_t M = q->M;
  /* (L L^T)^{-1} = L^{-T} L^{-1}: Linv = L^{-1} by a solve of I */
  double *Linv = calloc (M * M, sizeof *Linv);
  if (Linv == NULL)
    return SG_ENOMEM;
  for (size_t j = 0; j < M; j++)
    Linv[j * M + j] = 1;
  sg_trsm_lower (q->L, M, Linv, M);
  sg_gemm (1, 0, M, M, M, 1, Linv, Linv, 0, P);
  sg_gemv (0, M, M, 1, P, q->m, 0, h);
  free (Linv);
  return SG_OK;
}

/* Q's m and L from natural parameters P, h: L = chol(P^{-1}), m = P^{-1} h. */
static int
set_natural (sg_svgp *q, const double *P, const double *h)
{
  size_t M = q->M;
  double *R = malloc (M * M * sizeof *R), *S = malloc (M * M * sizeof *S);
  double *L = malloc (M * M * sizeof *L);
  int status = R && S && L ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_cholesky (P, M, 0, R, NULL);
  if (status == SG_OK)
    status = sg_cholesky_inverse (R, M, S);
  if (status == SG_OK)
    status = sg_cholesky (S, M, 0, L, NULL);
  if (status == SG_OK)
    {
      sg_gemv (0, M, M, 1, S, h, 0, q->m);
      memcpy (q->L, L, M * M * sizeof *L);
      _sg_svgp_update_w (q);
    }
  free (R);
  free (S);
  free (L);
  return status;
}

sg_status
sg_svgp_rows_refine (sg_svgp *q, const sg_svgp_rows_data *data, size_t iterations,
                     double step)
{
  if (q == NULL || sg_svgp_rows_check (data) != SG_OK || !(step > 0 && step <= 1))
    return SG_EINVAL;
  size_t M = q->M;
  double *P = malloc (M * M * sizeof *P), *h = malloc (M * sizeof *h);
  double *Lam = malloc (M * M * sizeof *Lam), *eta = malloc (M * sizeof *eta);
  int status = P && h && Lam && eta ? SG_OK : SG_ENOMEM;
  for (size_t it = 0; it < iterations && status == SG_OK; it++)
    {
      memset (Lam, 0, M * M * sizeof *Lam);
      memset (eta, 0, M * sizeof *eta);
      status = sg_svgp_rows_sites (q, data, NULL, 0, 1, Lam, eta);
      if (status == SG_OK)
        status = natural_params (q, P, h);
      if (status != SG_OK)
        break;
      for (size_t j = 0; j < M; j++)
        Lam[j * M + j] += 1;   /* the prior's precision I */
      for (size_t t = 0; t < M * M; t++)
        P[t] = (1 - step) * P[t] + step * Lam[t];
      for (size_t j = 0; j < M; j++)
        h[j] = (1 - step) * h[j] + step * eta[j];
      if (set_natural (q, P, h) != SG_OK)
        break;   /* an indefinite step: keep the last good q */
    }
  free (P);
  free (h);
  free (Lam);
  free (eta);
  return status;
}

/* ---- Training ------------------------------------------------------------- */

void
sg_svgp_rows_options_default (sg_svgp_rows_options *opt)
{
  memset (opt, 0, sizeof *opt);
  opt->n_inducing = DEFAULT_INDUCING;
  opt->kmeans_iterations = DEFAULT_KMEANS_ITERATIONS;
  opt->delta_init = DEFAULT_DELTA;
  opt->refine_iterations = DEFAULT_REFINE;
  sg_svgp_train_options_default (&opt->train);
}

/* The training ELBO: a grouped kernel's individual part is held. */
static int
train_elbo (const sg_svgp *q, const size_t *rows, size_t nb, void *user,
            sg_svgp_workspace *ws, int want_theta, double *elbo, double *grad)
{
  int status = rows_elbo_eval (q, user, rows, nb, ws, want_theta, elbo, grad);
  if (status == SG_OK && grad && q->kernel.grouped)
    {
      size_t k_theta = sg_svgp_n_params (q) - sg_kernel_n_params (&q->kernel);
      /* theta = (log v, log l_1..l_d, log v_ind, log l_ind_1..l_ind_d) */
      for (size_t j = q->dim; j < sg_kernel_n_params (&q->kernel); j++)
        grad[k_theta + j] = 0;
    }
  return status;
}

sg_status
sg_svgp_rows_train (sg_svgp *q, const sg_svgp_rows_data *data,
                    const sg_svgp_rows_options *opt_in, gsl_rng *rng,
                    const sg_progress *progress)
{
  sg_svgp_rows_options defaults;
  if (opt_in == NULL)
    sg_svgp_rows_options_default (&defaults);
  const sg_svgp_rows_options *opt = opt_in ? opt_in : &defaults;
  if (q == NULL || rng == NULL || sg_svgp_rows_check (data) != SG_OK
      || data->dim != q->dim || !_sg_svgp_train_options_ok (&opt->train))
    return SG_EINVAL;
  size_t n = sg_svgp_rows_count (data), b = opt->train.batch < n ? opt->train.batch : n;
  sg_svgp_workspace *ws = sg_svgp_workspace_new (q->dim, q->M, b);
  if (ws == NULL)
    return SG_ENOMEM;
  sg_svgp work;
  int status = _sg_svgp_copy (&work, q);
  /* with nothing but q(v) to move, the ELBO's optimum is the CVI fixed
   * point: the natural-gradient steps alone find it */
  int cvi_only = opt->train.fix_kernel
                 && (data->likelihood == SG_SVGP_ROWS_PROBIT || opt->train.fix_delta);
  if (status == SG_OK && !cvi_only)
    status = _sg_svgp_train_with (&work, n, train_elbo, (void *) data, &opt->train, rng,
                                  progress, ws);
  if (status == SG_OK && opt->refine_iterations > 0)
    status = sg_svgp_rows_refine (&work, data, opt->refine_iterations, REFINE_STEP);
  if (status == SG_OK)
    status = rows_elbo_eval (&work, data, NULL, 0, ws, 0, &work.elbo, NULL);
  sg_svgp_workspace_free (ws);
  if (status != SG_OK)
    {
      sg_svgp_clear (&work);
      return status;
    }
  sg_svgp_clear (q);
  *q = work;
  return SG_OK;
}

/* The settings of DATA's inputs (the first DIM - GROUPED coordinates). */
static double *
input_settings (const sg_svgp_rows_data *data, size_t d)
{
  double *S = malloc (data->n * d * sizeof *S);
  if (S)
    for (size_t i = 0; i < data->n; i++)
      memcpy (S + i * d, data->X + i * data->dim, d * sizeof *S);
  return S;
}

sg_status
sg_svgp_rows_fit (const sg_kernel *kernel, const sg_svgp_rows_data *data,
                  const sg_svgp_rows_options *opt_in, gsl_rng *rng,
                  const sg_progress *progress, sg_svgp *q)
{
  sg_svgp_rows_options defaults;
  if (opt_in == NULL)
    sg_svgp_rows_options_default (&defaults);
  const sg_svgp_rows_options *opt = opt_in ? opt_in : &defaults;
  if (kernel == NULL || q == NULL || rng == NULL || sg_svgp_rows_check (data) != SG_OK
      || kernel->dim != data->dim || opt->n_inducing == 0)
    return SG_EINVAL;
  size_t D = data->dim, d = kernel->grouped ? D - 1 : D;
  size_t M = opt->n_inducing < data->n ? opt->n_inducing : data->n;
  double *S = input_settings (data, d), *ones = malloc (data->n * sizeof *ones);
  double *C = malloc (M * d * sizeof *C), *Z = malloc (M * D * sizeof *Z);
  int status = S && ones && C && Z ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      for (size_t i = 0; i < data->n; i++)
        ones[i] = 1;
      sg_svgp_data kd = { .dim = d, .n = data->n, .X = S, .y = ones };
      status = sg_svgp_kmeans (&kd, M, opt->kmeans_iterations, rng, C);
    }
  if (status == SG_OK)
    for (size_t j = 0; j < M; j++)
      {
        memcpy (Z + j * D, C + j * d, d * sizeof *Z);
        if (kernel->grouped)
          Z[j * D + d] = -1;   /* population points: u = g(Z) */
      }
  sg_svgp t = { 0 };
  if (status == SG_OK)
    status = sg_svgp_init (&t, kernel, Z, M, 1, opt->delta_init);
  if (status == SG_OK)
    {
      status = sg_svgp_rows_train (&t, data, opt, rng, progress);
      if (status != SG_OK)
        sg_svgp_clear (&t);
    }
  free (S);
  free (ones);
  free (C);
  free (Z);
  if (status == SG_OK)
    *q = t;
  return status;
}

/* ---- Pseudo-observations ------------------------------------------------- */

void
sg_svgp_pseudo_clear (sg_svgp_pseudo *ps)
{
  if (ps == NULL)
    return;
  free (ps->Z);
  free (ps->C);
  free (ps->y);
  free (ps->noise_var);
  memset (ps, 0, sizeof *ps);
}

sg_status
sg_svgp_pseudo_from_sites (const sg_svgp *q, const double *lambda, const double *eta,
                           double mean, sg_svgp_pseudo *out)
{
  if (q == NULL)
    return SG_EINVAL;
  return sg_svgp_pseudo_make (q->Z, q->Lk, q->M, q->dim, lambda, eta, mean, out);
}

sg_status
sg_svgp_pseudo_make (const double *Z, const double *Lk, size_t M, size_t D,
                     const double *lambda, const double *eta, double mean,
                     sg_svgp_pseudo *out)
{
  if (Z == NULL || Lk == NULL || M == 0 || lambda == NULL || eta == NULL || out == NULL
      || !isfinite (mean) || !sg_all_finite (lambda, M * M) || !sg_all_finite (eta, M))
    return SG_EINVAL;
  double *U = malloc (M * M * sizeof *U), *ev = malloc (M * sizeof *ev);
  double *B = malloc (M * M * sizeof *B), *Ute = malloc (M * sizeof *Ute);
  sg_svgp_pseudo ps = { .dim = D, .M = M };
  ps.Z = malloc (M * D * sizeof *ps.Z);
  ps.C = malloc (M * M * sizeof *ps.C);
  ps.y = malloc (M * sizeof *ps.y);
  ps.noise_var = malloc (M * sizeof *ps.noise_var);
  int status = U && ev && B && Ute && ps.Z && ps.C && ps.y && ps.noise_var ? SG_OK
                                                                          : SG_ENOMEM;
  if (status == SG_OK)
    {
      memcpy (U, lambda, M * M * sizeof *U);
      status = sg_sym_eigen (U, M, ev);
    }
  if (status == SG_OK)
    {
      double top = ev[M - 1];
      size_t r = 0;
      /* B (M x r) = the kept eigenvectors, then Lk^{-T} B */
      for (size_t j = 0; j < M; j++)
        if (top > 0 && ev[j] > PSEUDO_REL_EIGEN * top)
          {
            double s = 0;
            for (size_t i = 0; i < M; i++)
              s += U[i * M + j] * eta[i];
            Ute[r] = s / ev[j];
            ps.noise_var[r] = 1 / ev[j];
            for (size_t i = 0; i < M; i++)
              B[i * M + r] = U[i * M + j];
            r++;
          }
      if (r > 0)
        {
          double *Bc = malloc (M * r * sizeof *Bc);
          if (Bc == NULL)
            status = SG_ENOMEM;
          else
            {
              for (size_t i = 0; i < M; i++)
                memcpy (Bc + i * r, B + i * M, r * sizeof *Bc);
              sg_trsm_lower_trans (Lk, M, Bc, r);
              for (size_t j = 0; j < r; j++)
                {
                  double sum = 0;
                  for (size_t i = 0; i < M; i++)
                    {
                      ps.C[j * M + i] = Bc[i * r + j];
                      sum += Bc[i * r + j];
                    }
                  ps.y[j] = Ute[j] + mean * sum;
                }
              free (Bc);
            }
        }
      ps.r = r;
      memcpy (ps.Z, Z, M * D * sizeof *ps.Z);
    }
  free (U);
  free (ev);
  free (B);
  free (Ute);
  if (status != SG_OK)
    {
      sg_svgp_pseudo_clear (&ps);
      return status;
    }
  *out = ps;
  return SG_OK;
}

sg_status
sg_svgp_pseudo_append (const sg_svgp_pseudo *ps, const double *X, size_t n,
                       const sg_likelihood *lik, double **x_out, sg_likelihood *lik_out)
{
  if (ps == NULL || lik == NULL || x_out == NULL || lik_out == NULL || lik->n != n
      || (n > 0 && X == NULL) || (lik->m_probit > 0 && lik->W == NULL)
      || (lik->m_numeric > 0 && lik->C == NULL))
    return SG_EINVAL;
  size_t D = ps->dim, M = ps->M, N = n + M, ma = lik->m_probit;
  size_t mr = lik->m_numeric + ps->r, nb = lik->n_blocks;
  size_t nc = nb ? lik->cov_start[nb] : 0;
  sg_likelihood L = { .n = N, .m_probit = ma, .m_numeric = mr, .n_blocks = nb };
  double *XO = malloc (N * D * sizeof *XO);
  L.W = calloc (ma * N + 1, sizeof *L.W);
  L.z = malloc ((ma + 1) * sizeof *L.z);
  L.sigma = malloc ((ma + 1) * sizeof *L.sigma);
  L.upper = malloc ((ma + 1) * sizeof *L.upper);
  L.C = calloc (mr * N + 1, sizeof *L.C);
  L.y = malloc ((mr + 1) * sizeof *L.y);
  L.noise_var = malloc ((mr + 1) * sizeof *L.noise_var);
  if (nb)
    {
      L.block_start = malloc ((nb + 1) * sizeof *L.block_start);
      L.cov_start = malloc ((nb + 1) * sizeof *L.cov_start);
      L.block_cov = malloc ((nc + 1) * sizeof *L.block_cov);
    }
  if (!XO || !L.W || !L.z || !L.sigma || !L.upper || !L.C || !L.y || !L.noise_var
      || (nb && (!L.block_start || !L.cov_start || !L.block_cov)))
    {
      free (XO);
      sg_likelihood_clear (&L);
      return SG_ENOMEM;
    }
  if (n > 0)
    memcpy (XO, X, n * D * sizeof *XO);
  memcpy (XO + n * D, ps->Z, M * D * sizeof *XO);
  for (size_t k = 0; k < ma; k++)
    {
      memcpy (L.W + k * N, lik->W + k * n, n * sizeof *L.W);
      L.z[k] = lik->z[k];
      L.sigma[k] = lik->sigma[k];
      L.upper[k] = lik->upper ? lik->upper[k] : INFINITY;
    }
  if (nb)
    {
      memcpy (L.block_start, lik->block_start, (nb + 1) * sizeof *L.block_start);
      memcpy (L.cov_start, lik->cov_start, (nb + 1) * sizeof *L.cov_start);
      memcpy (L.block_cov, lik->block_cov, nc * sizeof *L.block_cov);
    }
  for (size_t r = 0; r < lik->m_numeric; r++)
    {
      memcpy (L.C + r * N, lik->C + r * n, n * sizeof *L.C);
      L.y[r] = lik->y[r];
      L.noise_var[r] = lik->noise_var[r];
    }
  for (size_t j = 0; j < ps->r; j++)
    {
      size_t r = lik->m_numeric + j;
      memcpy (L.C + r * N + n, ps->C + j * M, M * sizeof *L.C);
      L.y[r] = ps->y[j];
      L.noise_var[r] = ps->noise_var[j];
    }
  *x_out = XO;
  *lik_out = L;
  return SG_OK;
}

sg_status
sg_svgp_rows_session_summary (const sg_hyper *hyper, const sg_data *data, size_t n_seen,
                              const sg_svgp_rows_options *opt, gsl_rng *rng,
                              const sg_progress *progress, sg_svgp *q_out,
                              sg_svgp_pseudo *out)
{
  if (hyper == NULL || data == NULL || out == NULL || n_seen == 0 || n_seen > data->n_obs)
    return SG_EINVAL;
  sg_data seen;
  sg_likelihood lik;
  int status = sg_data_copy (&seen, data);
  if (status != SG_OK)
    return status;
  while (status == SG_OK && seen.n_obs > n_seen)
    status = sg_data_remove_last (&seen);
  if (status == SG_OK)
    status = sg_likelihood_build_sparse (&seen, &hyper->noise, &lik);
  if (status != SG_OK)
    {
      sg_data_clear (&seen);
      return status;
    }
  sg_svgp_rows_data rd = { .dim = data->dim, .n = seen.n_inputs, .X = seen.X, .lik = &lik,
                           .mean = hyper->mean };
  sg_svgp q = { 0 };
  size_t M = 0;
  double *Lam = NULL, *eta = NULL;
  status = sg_svgp_rows_fit (&hyper->kernel, &rd, opt, rng, progress, &q);
  if (status == SG_OK)
    {
      M = q.M;
      Lam = calloc (M * M, sizeof *Lam);
      eta = calloc (M, sizeof *eta);
      status = Lam && eta ? SG_OK : SG_ENOMEM;
    }
  if (status == SG_OK)
    status = sg_svgp_rows_sites (&q, &rd, NULL, 0, 1, Lam, eta);
  if (status == SG_OK)
    status = sg_svgp_pseudo_from_sites (&q, Lam, eta, hyper->mean, out);
  free (Lam);
  free (eta);
  sg_likelihood_clear (&lik);
  sg_data_clear (&seen);
  if (status == SG_OK && q_out)
    *q_out = q;
  else
    sg_svgp_clear (&q);
  return status;
}
