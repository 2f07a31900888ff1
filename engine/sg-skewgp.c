/* sg-skewgp.c — the exact SkewGP posterior by the joint-Gaussian route.
 *
 * Notation (see sg-skewgp.h and docs/DESIGN.md §3.3). Z = [X; U] are the n + s
 * inputs where f is needed. The "observed" Gaussian vector is
 *     h = [ y (m_r rows) ; t (m = s + m_a rows) ] = P (f(Z) - xi) + mu_h + noise,
 * with P the (m_r + m) x (n + s) matrix
 *     numeric rows   C                        (001 eq. 12)
 *     pseudo rows    L_ii / sigma at u_i      (000 eq. 14, 001 eq. 11)
 *     probit rows    W                        (001 eq. 22)
 * and mu_h = [C xi; gamma; z + W xi], noise variances [R; 0; sigma_k^2].
 * S_hh = P K(Z,Z) P^T + diag(noise) = Lh Lh^T (one Cholesky). Because y
 * comes first, Lh = [[Ly, 0], [B, Lc]] gives at once
 *     t | y ~ N(mu_t + B Ly^{-1}(y - C xi), Lc Lc^T)         (t's conditional)
 *     log N(y; C xi, C K C^T + R) from Ly                     (001 eq. 39)
 * and for any x, with q(x) = P k(Z, x) and w(x) = Lh^{-1} q(x):
 *     f(x) | h ~ N(xi + w(x)^T Lh^{-1}(h - mu_h), k(x,x) - |w(x)|^2).
 * A sample j of t gives e_j = Lh^{-1}(h_j - mu_h); f at a batch of points is
 * then xi + W_q^T E + remainder: one GEMM per batch (001 sec. 4: the
 * truncated part does not depend on the test point).
 */
#include "sg-skewgp.h"
#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-skewgp-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG_2PI 1.83787706640934548356

void
sg_skewgp_prior_gp (sg_skewgp_prior *prior, const sg_kernel *kernel, double mean)
{
  memset (prior, 0, sizeof *prior);
  prior->kernel = *kernel;
  prior->mean = mean;
}

sg_status
sg_skewgp_prior_check (const sg_skewgp_prior *prior)
{
  if (prior == NULL || sg_kernel_check (&prior->kernel) != SG_OK
      || !isfinite (prior->mean))
    return SG_EINVAL;
  if (prior->s == 0)
    return SG_OK;
  /* The latent part normalises by the kernel variance (Kbar = K / sigma^2),
   * which a grouped kernel does not have: its prior is a GP only. */
  if (prior->kernel.grouped)
    return SG_EINVAL;
  if (!prior->pseudo_points || !prior->phases || !prior->gamma)
    return SG_EINVAL;
  if (!sg_all_finite (prior->pseudo_points, prior->s * prior->kernel.dim)
      || !sg_all_finite (prior->gamma, prior->s))
    return SG_EINVAL;
  for (size_t i = 0; i < prior->s; i++)
    if (prior->phases[i] != 1 && prior->phases[i] != -1)
      return SG_EINVAL;
  return SG_OK;
}

void
sg_skewgp_posterior_free (sg_skewgp_posterior *post)
{
  if (post == NULL)
    return;
  free (post->Z);
  free (post->P);
  free (post->p_row);
  free (post->p_col);
  free (post->p_val);
  free (post->mu_h);
  free (post->y);
  free (post->Lh);
  free (post->r);
  free (post->mu_t);
  free (post->S_tt);
  free (post->upper);
  free (post->Gamma);
  free (post->gamma);
  sg_kernel_clear (&post->kernel);
  free (post);
}

static int
check_likelihood (const sg_likelihood *lik)
{
  if (lik == NULL)
    return SG_EINVAL;
  if (!sg_all_finite (lik->W, lik->m_probit * lik->n)
      || !sg_all_finite (lik->z, lik->m_probit)
      || !sg_all_finite (lik->C, lik->m_numeric * lik->n)
      || !sg_all_finite (lik->y, lik->m_numeric))
    return SG_EINVAL;
  for (size_t k = 0; k < lik->m_probit; k++)
    if (!(lik->sigma[k] > 0) || !isfinite (lik->sigma[k])
        || (lik->upper && !(lik->upper[k] > 0)))
      return SG_EINVAL;
  if (lik->block_start != NULL
      && (lik->block_start[lik->n_blocks] != lik->m_probit
          || !sg_all_finite (lik->block_cov, lik->cov_start[lik->n_blocks])))
    return SG_EINVAL;
  for (size_t k = 0; k < lik->m_numeric; k++)
    if (!(lik->noise_var[k] > 0) || !isfinite (lik->noise_var[k]))
      return SG_EINVAL;
  return SG_OK;
}

static sg_skewgp_posterior *
posterior_alloc (size_t dim, size_t n, size_t s, size_t ma, size_t mr)
{
  sg_skewgp_posterior *p = calloc (1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->dim = dim;
  p->n = n;
  p->s = s;
  p->ma = ma;
  p->mr = mr;
  p->m = s + ma;
  p->mh = mr + p->m;
  p->nz = n + s;
  p->Z = malloc ((p->nz * dim + 1) * sizeof *p->Z);
  p->P = calloc (p->mh * p->nz + 1, sizeof *p->P);
  p->mu_h = malloc ((p->mh + 1) * sizeof *p->mu_h);
  p->y = malloc ((mr + 1) * sizeof *p->y);
  p->Lh = malloc ((p->mh * p->mh + 1) * sizeof *p->Lh);
  p->r = malloc ((mr + 1) * sizeof *p->r);
  p->mu_t = malloc ((p->m + 1) * sizeof *p->mu_t);
  p->S_tt = malloc ((p->m * p->m + 1) * sizeof *p->S_tt);
  p->upper = malloc ((p->m + 1) * sizeof *p->upper);
  p->Gamma = malloc ((s * s + 1) * sizeof *p->Gamma);
  p->gamma = malloc ((s + 1) * sizeof *p->gamma);
  if (!p->Z || !p->P || !p->mu_h || !p->y || !p->Lh || !p->r || !p->mu_t
      || !p->S_tt || !p->upper || !p->Gamma || !p->gamma)
    {
      sg_skewgp_posterior_free (p);
      return NULL;
    }
  return p;
}

/* P and mu_h in the row order [numeric; pseudo; probit] (see the top). */
static void
build_observation_map (sg_skewgp_posterior *p, const sg_skewgp_prior *prior,
                       const sg_likelihood *lik)
{
  size_t n = p->n, nz = p->nz, mr = p->mr, s = p->s;
  double xi = prior->mean, inv_sigma = 1 / sqrt (prior->kernel.variance);
  for (size_t k = 0; k < mr; k++)
    {
      double rowsum = 0;
      for (size_t i = 0; i < n; i++)
        {
          p->P[k * nz + i] = lik->C[k * n + i];
          rowsum += lik->C[k * n + i];
        }
      p->mu_h[k] = xi * rowsum;
      p->y[k] = lik->y[k];
    }
  for (size_t i = 0; i < s; i++)
    {
      p->P[(mr + i) * nz + n + i] = prior->phases[i] * inv_sigma;
      p->mu_h[mr + i] = prior->gamma[i];
      p->gamma[i] = prior->gamma[i];
    }
  for (size_t k = 0; k < p->ma; k++)
    {
      size_t row = mr + s + k;
      double rowsum = 0;
      for (size_t i = 0; i < n; i++)
        {
          p->P[row * nz + i] = lik->W[k * n + i];
          rowsum += lik->W[k * n + i];
        }
      p->mu_h[row] = lik->z[k] + xi * rowsum;
    }
  for (size_t a = 0; a < p->m; a++)
    p->upper[a] = a >= s && lik->upper ? lik->upper[a - s] : INFINITY;
  p->intervals = lik->upper && sg_likelihood_has_intervals (lik);
}

/* The compressed-row copy of P when at most a quarter of its entries are
 * nonzero (otherwise a dense GEMM is as fast). SG_ENOMEM on failure. */
static int
build_sparse_map (sg_skewgp_posterior *p)
{
  size_t mh = p->mh, nz = p->nz, nnz = 0;
  for (size_t i = 0; i < mh * nz; i++)
    nnz += p->P[i] != 0;
  if (4 * nnz > mh * nz)
    return SG_OK;
  p->p_row = malloc ((mh + 1) * sizeof *p->p_row);
  p->p_col = malloc ((nnz + 1) * sizeof *p->p_col);
  p->p_val = malloc ((nnz + 1) * sizeof *p->p_val);
  if (!p->p_row || !p->p_col || !p->p_val)
    return SG_ENOMEM;
  size_t j = 0;
  for (size_t k = 0; k < mh; k++)
    {
      p->p_row[k] = j;
      for (size_t i = 0; i < nz; i++)
        if (p->P[k * nz + i] != 0)
          {
            p->p_col[j] = i;
            p->p_val[j++] = p->P[k * nz + i];
          }
    }
  p->p_row[mh] = j;
  return SG_OK;
}

/* S_hh = P K(Z,Z) P^T + diag(noise), written to OUT (mh x mh). */
static int
build_shh (const sg_skewgp_posterior *p, const sg_likelihood *lik, double *out)
{
  size_t nz = p->nz, mh = p->mh;
  double *K = malloc ((nz * nz + 1) * sizeof *K);
  double *PK = malloc ((mh * nz + 1) * sizeof *PK);
  if (!K || !PK)
    {
      free (K);
      free (PK);
      return SG_ENOMEM;
    }
  sg_kernel_matrix (&p->kernel, p->Z, nz, p->Z, nz, K);
  sg_gemm (0, 0, mh, nz, nz, 1, p->P, K, 0, PK);
  sg_gemm (0, 1, mh, mh, nz, 1, PK, p->P, 0, out);
  sg_symmetrize (out, mh);
  int finite = sg_all_finite (out, mh * mh);
  for (size_t k = 0; k < p->mr; k++)
    out[k * mh + k] += lik->noise_var[k];
  sg_likelihood_add_noise_cov (lik, out, mh, p->mr + p->s);
  free (K);
  free (PK);
  /* an overflowing kernel variance is a numerical, not an argument, error */
  return finite ? SG_OK : SG_ENUMERIC;
}

/* From Lh = [[Ly, 0], [B, Lc]]: r = Ly^{-1}(y - C xi), log N(y; ...),
 * mu_t = mu_h_t + B r, S_tt = Lc Lc^T; Gamma = prior block of t's pseudo rows. */
static void
condition_on_numeric (sg_skewgp_posterior *p, const double *Shh)
{
  size_t mr = p->mr, m = p->m, mh = p->mh;
  for (size_t k = 0; k < mr; k++)
    {
      double acc = p->y[k] - p->mu_h[k];
      for (size_t j = 0; j < k; j++)
        acc -= p->Lh[k * mh + j] * p->r[j];
      p->r[k] = acc / p->Lh[k * mh + k];
    }
  double quad = 0, logdet = 0;
  for (size_t k = 0; k < mr; k++)
    {
      quad += p->r[k] * p->r[k];
      logdet += 2 * log (p->Lh[k * mh + k]);
    }
  p->log_normal = -0.5 * (quad + logdet + (double) mr * LOG_2PI);
  for (size_t a = 0; a < m; a++)
    {
      double acc = p->mu_h[mr + a];
      for (size_t k = 0; k < mr; k++)
        acc += p->Lh[(mr + a) * mh + k] * p->r[k];
      p->mu_t[a] = acc;
    }
  /* S_tt = Lc Lc^T with Lc the trailing m x m block of Lh. */
  for (size_t a = 0; a < m; a++)
    for (size_t b = 0; b <= a; b++)
      {
        double acc = 0;
        for (size_t k = 0; k <= b; k++)
          acc += p->Lh[(mr + a) * mh + mr + k] * p->Lh[(mr + b) * mh + mr + k];
        p->S_tt[a * m + b] = p->S_tt[b * m + a] = acc;
      }
  for (size_t i = 0; i < p->s; i++)
    for (size_t j = 0; j < p->s; j++)
      p->Gamma[i * p->s + j] = Shh[(mr + i) * mh + mr + j];
}

sg_status
sg_skewgp_posterior_new (const sg_skewgp_prior *prior, const double *X,
                         const sg_likelihood *lik, sg_skewgp_posterior **out)
{
  if (out == NULL || sg_skewgp_prior_check (prior) != SG_OK
      || check_likelihood (lik) != SG_OK || (lik->n > 0 && X == NULL)
      || !sg_all_finite (X, lik->n * prior->kernel.dim))
    return SG_EINVAL;
  size_t dim = prior->kernel.dim;
  sg_skewgp_posterior *p = posterior_alloc (dim, lik->n, prior->s,
                                            lik->m_probit, lik->m_numeric);
  if (p == NULL)
    return SG_ENOMEM;
  if (sg_kernel_copy (&p->kernel, &prior->kernel) != SG_OK)
    {
      sg_skewgp_posterior_free (p);
      return SG_ENOMEM;
    }
  p->xi = prior->mean;
  if (p->n > 0)
    memcpy (p->Z, X, p->n * dim * sizeof *X);
  if (p->s > 0)
    memcpy (p->Z + p->n * dim, prior->pseudo_points, p->s * dim * sizeof *X);
  build_observation_map (p, prior, lik);
  if (build_sparse_map (p) != SG_OK)
    {
      sg_skewgp_posterior_free (p);
      return SG_ENOMEM;
    }

  double *Shh = malloc ((p->mh * p->mh + 1) * sizeof *Shh);
  if (Shh == NULL)
    {
      sg_skewgp_posterior_free (p);
      return SG_ENOMEM;
    }
  int status = build_shh (p, lik, Shh);
  if (status == SG_OK)
    status = sg_cholesky (Shh, p->mh, SG_CHOLESKY_MAX_JITTER, p->Lh, &p->jitter);
  if (status == SG_OK)
    condition_on_numeric (p, Shh);
  free (Shh);
  if (status != SG_OK)
    {
      sg_skewgp_posterior_free (p);
      return status;
    }
  *out = p;
  return SG_OK;
}

sg_status
sg_skewgp_prior_posterior (const sg_skewgp_prior *prior,
                           sg_skewgp_posterior **out)
{
  sg_likelihood none;
  memset (&none, 0, sizeof none);
  return sg_skewgp_posterior_new (prior, NULL, &none, out);
}

size_t
sg_skewgp_posterior_n_latent (const sg_skewgp_posterior *post)
{
  return post->m;
}

size_t
sg_skewgp_posterior_dim (const sg_skewgp_posterior *post)
{
  return post->dim;
}

const double *
sg_skewgp_posterior_t_mean (const sg_skewgp_posterior *post)
{
  return post->mu_t;
}

const double *
sg_skewgp_posterior_t_cov (const sg_skewgp_posterior *post)
{
  return post->S_tt;
}

/* ---- Evidence ------------------------------------------------------------ */

/* log P(0 < x < upper), x ~ N(mean, cov) of dimension d (0 for d = 0);
 * UPPER NULL = +inf. */
static int
log_box (sg_mvn_workspace *w, size_t d, const double *mean,
         const double *cov, const double *upper, const sg_mvn_options *opt,
         sg_mvn_result *res)
{
  if (d == 0)
    {
      *res = (sg_mvn_result) { .value = 1, .log_value = 0, .exact = 1 };
      return SG_OK;
    }
  double *lower = calloc (d, sizeof *lower);
  if (lower == NULL)
    return SG_ENOMEM;
  int status = sg_mvn_prob (w, d, mean, cov, lower, upper, opt, NULL, res);
  free (lower);
  return status;
}

/* Runs F with W, or with a workspace of dimension D allocated for the call. */
static sg_mvn_workspace *
workspace_or_new (sg_mvn_workspace *w, size_t d, int *owned)
{
  *owned = 0;
  if (w != NULL)
    return w;
  *owned = 1;
  return sg_mvn_workspace_new (d ? d : 1);
}

sg_status
sg_skewgp_posterior_log_evidence (const sg_skewgp_posterior *post,
                                  sg_mvn_workspace *w,
                                  const sg_mvn_options *opt,
                                  sg_skewgp_evidence *res)
{
  if (post == NULL || res == NULL)
    return SG_EINVAL;
  sg_mvn_options defaults;
  if (opt == NULL)
    {
      sg_mvn_options_default (&defaults);
      opt = &defaults;
    }
  int owned;
  sg_mvn_workspace *ws = workspace_or_new (w, post->m, &owned);
  if (ws == NULL)
    return SG_ENOMEM;
  sg_mvn_result pm, ps;
  int status = log_box (ws, post->m, post->mu_t, post->S_tt, post->upper, opt, &pm);
  if (status == SG_OK)
    status = log_box (ws, post->s, post->gamma, post->Gamma, NULL, opt, &ps);
  if (owned)
    sg_mvn_workspace_free (ws);
  if (status != SG_OK)
    return status;
  if (!isfinite (pm.log_value))
    return SG_ENUMERIC;
  res->log_normal = post->log_normal;
  res->log_phi_m = pm.log_value;
  res->log_phi_s = ps.log_value;
  res->log_ml = post->log_normal + pm.log_value - ps.log_value;
  /* The two estimates are independent (or share points); adding the
   * relative errors is the conservative combination. */
  res->error = (pm.exact ? 0 : pm.log_error) + (ps.exact ? 0 : ps.log_error);
  res->exact = pm.exact && ps.exact;
  return SG_OK;
}

sg_status
sg_skewgp_log_evidence (const sg_skewgp_prior *prior, const double *X,
                        const sg_likelihood *lik, sg_mvn_workspace *w,
                        const sg_mvn_options *opt, sg_skewgp_evidence *res)
{
  sg_skewgp_posterior *post = NULL;
  int status = sg_skewgp_posterior_new (prior, X, lik, &post);
  if (status != SG_OK)
    return status;
  status = sg_skewgp_posterior_log_evidence (post, w, opt, res);
  sg_skewgp_posterior_free (post);
  return status;
}

sg_status
sg_skewgp_posterior_batch_bound (const sg_skewgp_posterior *post,
                                 size_t batch, gsl_rng *rng,
                                 sg_mvn_workspace *w,
                                 const sg_mvn_options *opt,
                                 double *bound, double *log_ml_bound)
{
  if (post == NULL || batch == 0 || bound == NULL || log_ml_bound == NULL)
    return SG_EINVAL;
  size_t m = post->m, bmax = batch < m ? batch : m;
  sg_mvn_options defaults;
  if (opt == NULL)
    {
      sg_mvn_options_default (&defaults);
      opt = &defaults;
    }
  size_t *perm = malloc ((m + 1) * sizeof *perm);
  double *mu = malloc ((bmax + 1) * sizeof *mu);
  double *cov = malloc ((bmax * bmax + 1) * sizeof *cov);
  double *up = malloc ((bmax + 1) * sizeof *up);
  int owned = 0;
  sg_mvn_workspace *ws = workspace_or_new (w, bmax, &owned);
  int status = (perm && mu && cov && up && ws) ? SG_OK : SG_ENOMEM;
  for (size_t i = 0; i < m && perm; i++)
    perm[i] = i;
  if (status == SG_OK && rng != NULL)
    for (size_t i = m; i > 1; i--)   /* Fisher-Yates */
      {
        size_t j = gsl_rng_uniform_int (rng, i);
        size_t tmp = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = tmp;
      }
  double sum = 0;
  size_t n_blocks = 0;
  for (size_t start = 0; status == SG_OK && start < m; start += batch)
    {
      size_t d = m - start < batch ? m - start : batch;
      for (size_t a = 0; a < d; a++)
        {
          mu[a] = post->mu_t[perm[start + a]];
          up[a] = post->upper[perm[start + a]];
          for (size_t b = 0; b < d; b++)
            cov[a * d + b] = post->S_tt[perm[start + a] * m + perm[start + b]];
        }
      sg_mvn_result r;
      status = log_box (ws, d, mu, cov, up, opt, &r);
      if (status == SG_OK)
        sum += exp (r.log_value);
      n_blocks++;
    }
  sg_mvn_result ps = { .log_value = 0 };
  if (status == SG_OK)
    status = log_box (ws, post->s, post->gamma, post->Gamma, NULL, opt, &ps);
  if (owned)
    sg_mvn_workspace_free (ws);
  free (perm);
  free (mu);
  free (cov);
  free (up);
  if (status != SG_OK)
    return status;
  double value = n_blocks ? sum - (double) (n_blocks - 1) : 1.0;
  *bound = value;
  *log_ml_bound = value > 0 ? post->log_normal + log (value) - ps.log_value
                            : -INFINITY;
  return SG_OK;
}

/* ---- Gaussian part at points --------------------------------------------- */

/* For B points XS: WQ = Lh^{-1} P K(Z, XS) (mh x b) and the remainder
 * variances V (b) = k(x,x) - |w(x)|^2 (clamped at 0). */
sg_status
sg_skewgp_whiten_points (const sg_skewgp_posterior *p, const double *XS,
                         size_t b, double *WQ, double *V, double *scratch)
{
  double *Ks = scratch;  /* nz x b: K(Z, XS) */
  sg_kernel_matrix (&p->kernel, p->Z, p->nz, XS, b, Ks);
  sg_skewgp_whiten_kernel (p, Ks, XS, b, WQ, V);
  return SG_OK;
}

void
sg_skewgp_project_kernel (const sg_skewgp_posterior *p, const double *Ks, size_t b,
                          double *WQ)
{
  size_t nz = p->nz, mh = p->mh;
  if (p->p_row != NULL)
    for (size_t k = 0; k < mh; k++)
      {
        double *row = WQ + k * b;
        memset (row, 0, b * sizeof *row);
        for (size_t j = p->p_row[k]; j < p->p_row[k + 1]; j++)
          {
            sg_vec_axpy (p->p_val[j], Ks + p->p_col[j] * b, b, row);
          }
      }
  else
    sg_gemm (0, 0, mh, b, nz, 1, p->P, Ks, 0, WQ);
}

void
sg_skewgp_whiten_kernel (const sg_skewgp_posterior *p, const double *Ks,
                         const double *XS, size_t b, double *WQ, double *V)
{
  size_t mh = p->mh;
  sg_skewgp_project_kernel (p, Ks, b, WQ);
  sg_trsm_lower (p->Lh, mh, WQ, b);
  if (V == NULL)
    return;
  /* row by row (contiguous), subtracting in the same order as point by point */
  for (size_t i = 0; i < b; i++)
    V[i] = sg_kernel_eval (&p->kernel, XS + i * p->dim, XS + i * p->dim);
  for (size_t k = 0; k < mh; k++)
    sg_vec_sub_squares (WQ + k * b, b, V);
  for (size_t i = 0; i < b; i++)
    V[i] = V[i] > 0 ? V[i] : 0;
}

sg_status
sg_skewgp_gaussian_part (const sg_skewgp_posterior *post, const double *XS,
                         size_t b, double *mean, double *var)
{
  if (post == NULL || (b > 0 && XS == NULL))
    return SG_EINVAL;
  size_t mh = post->mh, mr = post->mr;
  double *WQ = malloc ((mh * b + 1) * sizeof *WQ);
  double *scratch = malloc ((b * post->nz + 1) * sizeof *scratch);
  if (!WQ || !scratch)
    {
      free (WQ);
      free (scratch);
      return SG_ENOMEM;
    }
  sg_skewgp_whiten_points (post, XS, b, WQ, NULL, scratch);
  /* Given y only (001 eqs. 33-34): mean xi + w_y^T r, variance
   * k(x,x) - |w_y|^2, w_y the first m_r entries of w(x). */
  for (size_t i = 0; i < b; i++)
    {
      double mu = post->xi;
      double v = sg_kernel_eval (&post->kernel, XS + i * post->dim,
                                 XS + i * post->dim);
      for (size_t k = 0; k < mr; k++)
        {
          mu += WQ[k * b + i] * post->r[k];
          v -= WQ[k * b + i] * WQ[k * b + i];
        }
      if (mean)
        mean[i] = mu;
      if (var)
        var[i] = v > 0 ? v : 0;
    }
  free (WQ);
  free (scratch);
  return SG_OK;
}
