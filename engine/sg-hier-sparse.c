/* sg-hier-sparse.c — a study at scale (sg-hier.h, sg-svgp-rows.h): the
 * sparse population model, its summed sites (the population cache), and
 * a person's exact posterior given their own answers and the others'
 * pseudo-observations of g. */
#include "sg-hier.h"

#include "sg-linalg.h"
#include "sg-svgp-private.h"

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
    {
      sg_kernel_clear (&k);
      return status;
    }
  sg_svgp_rows_data rd = { .dim = hd->dim + 1, .n = hd->data.n_inputs,
                           .X = hd->data.X, .lik = &lik, .mean = model->mean };
  status = sg_svgp_rows_fit (&k, &rd, opt, rng, progress, q);
  sg_likelihood_clear (&lik);
  sg_kernel_clear (&k);
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
  if (status == SG_OK)
    {
      status = sg_svgp_pseudo_append (population, hd->data.X, hd->data.n_inputs, &lik, &X,
                                      &all);
      sg_likelihood_clear (&lik);
    }
  if (status == SG_OK)
    {
      sg_skewgp_prior prior;
      sg_skewgp_prior_gp (&prior, &k, model->mean);
      status = sg_skewgp_posterior_new (&prior, X, &all, out);
      sg_likelihood_clear (&all);
      free (X);
    }
  sg_kernel_clear (&k);
  return status;
}

/* ---- The cached population -------------------------------------------------- */

#define CVI_DAMPING 0.5
#define CVI_TOLERANCE 1e-6

/* One person's rows: options, coefficients, offsets (row latent
 * l = w^T (f - mean)), noise, and their loadings B (M x r) on v and
 * covariance Sig (r x r) given v. */
typedef struct {
  size_t r, dim;
  double *x1, *x2, *w1, *w2, *off, *s2, *upper;
  unsigned char *numeric;
  double *B, *Sig;
} block;

static void
block_clear (block *b)
{
  double *arrays[] = { b->x1, b->x2, b->w1, b->w2, b->off, b->s2, b->upper, b->B, b->Sig };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free (arrays[i]);
  free (b->numeric);
  memset (b, 0, sizeof *b);
}

/* The first probit and numeric row of each observation of LIK (sparse). */
static int
row_map (const sg_hier_data *hd, size_t **pfirst, size_t **nfirst)
{
  size_t n = hd->data.n_obs, pr = 0, nr = 0;
  *pfirst = malloc ((n + 1) * sizeof **pfirst);
  *nfirst = malloc ((n + 1) * sizeof **nfirst);
  if (*pfirst == NULL || *nfirst == NULL)
    return SG_ENOMEM;
  for (size_t k = 0; k < n; k++)
    {
      (*pfirst)[k] = pr;
      (*nfirst)[k] = nr;
      pr += sg_obs_n_probit_rows (&hd->data.obs[k]);
      nr += sg_obs_n_numeric_rows (&hd->data.obs[k]);
    }
  return SG_OK;
}

/* Gathers the rows of PERSON's first LIMIT answers in HD into B (its
 * loadings not yet computed). */
static int
gather_person (const sg_hier_data *hd, const sg_likelihood *lik, const size_t *pfirst,
               const size_t *nfirst, size_t person, size_t limit, double mean, block *b)
{
  size_t D = hd->dim + 1, r = 0, answered = 0;
  for (size_t k = 0; k < hd->data.n_obs && answered < limit; k++)
    if (sg_hier_obs_person (hd, k) == person)
      {
        r += sg_obs_n_probit_rows (&hd->data.obs[k]) + sg_obs_n_numeric_rows (&hd->data.obs[k]);
        answered++;
      }
  memset (b, 0, sizeof *b);
  b->r = r;
  b->dim = D;
  size_t n1 = r + 1;
  b->x1 = malloc (n1 * D * sizeof *b->x1);
  b->x2 = malloc (n1 * D * sizeof *b->x2);
  b->w1 = malloc (n1 * sizeof *b->w1);
  b->w2 = malloc (n1 * sizeof *b->w2);
  b->off = malloc (n1 * sizeof *b->off);
  b->s2 = malloc (n1 * sizeof *b->s2);
  b->upper = malloc (n1 * sizeof *b->upper);
  b->numeric = malloc (n1);
  if (!b->x1 || !b->x2 || !b->w1 || !b->w2 || !b->off || !b->s2 || !b->upper || !b->numeric)
    return SG_ENOMEM;
  size_t j = 0;
  answered = 0;
  for (size_t k = 0; k < hd->data.n_obs && answered < limit; k++)
    {
      if (sg_hier_obs_person (hd, k) != person)
        continue;
      answered++;
      const sg_obs *o = &hd->data.obs[k];
      for (size_t t = 0; t < sg_obs_n_probit_rows (o); t++, j++)
        {
          size_t u = pfirst[k] + t, i1 = lik->w_index[2 * u], i2 = lik->w_index[2 * u + 1];
          memcpy (b->x1 + j * D, hd->data.X + i1 * D, D * sizeof (double));
          memcpy (b->x2 + j * D, hd->data.X + i2 * D, D * sizeof (double));
          b->w1[j] = lik->w_value[2 * u];
          b->w2[j] = lik->w_value[2 * u + 1];
          b->off[j] = lik->z[u] + mean * (b->w1[j] + b->w2[j]);
          b->s2[j] = lik->sigma[u] * lik->sigma[u];
          b->upper[j] = lik->upper ? lik->upper[u] : INFINITY;
          b->numeric[j] = 0;
        }
      if (sg_obs_n_numeric_rows (o))
        {
          size_t u = nfirst[k], i1 = lik->c_index[u];
          memcpy (b->x1 + j * D, hd->data.X + i1 * D, D * sizeof (double));
          memcpy (b->x2 + j * D, hd->data.X + i1 * D, D * sizeof (double));
          b->w1[j] = 1;
          b->w2[j] = 0;
          b->off[j] = lik->y[u] - mean;
          b->s2[j] = lik->noise_var[u];
          b->upper[j] = INFINITY;
          b->numeric[j++] = 1;
        }
    }
  return SG_OK;
}

/* K_ab = k(Xa, Xb) combined with the coefficients: W_a K W_b^T. */
static void
row_cov (const sg_kernel *k, const block *b, double *out, double *tmp)
{
  size_t r = b->r;
  const double *xs[2] = { b->x1, b->x2 }, *ws[2] = { b->w1, b->w2 };
  memset (out, 0, r * r * sizeof *out);
  for (int s = 0; s < 2; s++)
    for (int t = 0; t < 2; t++)
      {
        sg_kernel_matrix (k, xs[s], r, xs[t], r, tmp);
        for (size_t i = 0; i < r; i++)
          for (size_t j = 0; j < r; j++)
            out[i * r + j] += ws[s][i] * ws[t][j] * tmp[i * r + j];
      }
}

/* B = Lk^{-1} (W k_pop(Z, X))^T and Sig = W k(X, X) W^T - B^T B. */
static int
block_loadings (const sg_kernel *k, const double *Z, const double *Lk, size_t M, block *b)
{
  size_t r = b->r;
  double *C1 = malloc ((r * M + 1) * sizeof *C1), *C2 = malloc ((r * M + 1) * sizeof *C2);
  double *tmp = malloc ((r * r + 1) * sizeof *tmp);
  b->B = malloc ((M * r + 1) * sizeof *b->B);
  b->Sig = malloc ((r * r + 1) * sizeof *b->Sig);
  int status = C1 && C2 && tmp && b->B && b->Sig ? SG_OK : SG_ENOMEM;
  if (status == SG_OK && r > 0)
    {
      sg_kernel_matrix (k, b->x1, r, Z, M, C1);
      sg_kernel_matrix (k, b->x2, r, Z, M, C2);
      for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < M; j++)
          b->B[j * r + i] = b->w1[i] * C1[i * M + j] + b->w2[i] * C2[i * M + j];
      sg_trsm_lower (Lk, M, b->B, r);
      row_cov (k, b, b->Sig, tmp);
      sg_gemm (1, 0, r, r, M, -1, b->B, b->B, 1, b->Sig);
      sg_symmetrize (b->Sig, r);
    }
  free (C1);
  free (C2);
  free (tmp);
  return status;
}

/* Scratch for one block's algebra (sizes for R rows, M points). */
typedef struct {
  double *s, *G, *Lg, *Y, *t, *u, *Ke, *V, *R;
} block_ws;

static void
block_ws_free (block_ws *w)
{
  double *arrays[] = { w->s, w->G, w->Lg, w->Y, w->t, w->u, w->Ke, w->V, w->R };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free (arrays[i]);
}

static int
block_ws_alloc (block_ws *w, size_t r, size_t M)
{
  size_t big = (r > M ? r : M) * r + 1;
  w->s = malloc ((r + 1) * sizeof (double));
  w->G = malloc ((r * r + 1) * sizeof (double));
  w->Lg = malloc ((r * r + 1) * sizeof (double));
  w->Y = malloc (big * sizeof (double));
  w->t = malloc ((r + 1) * sizeof (double));
  w->u = malloc ((r + 1) * sizeof (double));
  w->Ke = malloc ((r * r + 1) * sizeof (double));
  w->V = malloc ((r * r + 1) * sizeof (double));
  w->R = malloc (big * sizeof (double));
  return w->s && w->G && w->Lg && w->Y && w->t && w->u && w->Ke && w->V && w->R
           ? SG_OK : SG_ENOMEM;
}

/* Lg = chol(I + S Sig S), S = diag(sqrt(max(lambda, 0))). */
static int
block_factor (const block *b, const double *lambda, block_ws *w)
{
  size_t r = b->r;
  for (size_t i = 0; i < r; i++)
    w->s[i] = sqrt (fmax (lambda[i], 0));
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < r; j++)
      w->G[i * r + j] = w->s[i] * b->Sig[i * r + j] * w->s[j] + (i == j);
  return sg_cholesky (w->G, r, SG_CHOLESKY_MAX_JITTER, w->Lg, NULL);
}

/* Adds SIGN x the person's term to P (M x M) and H (M) (header). */
static int
block_terms (const block *b, const double *lambda, const double *eta, size_t M,
             double sign, double *P, double *H, block_ws *w)
{
  size_t r = b->r;
  if (r == 0)
    return SG_OK;
  int status = block_factor (b, lambda, w);
  if (status != SG_OK)
    return status;
  /* Y = Lg^{-1} S B^T (r x M): P_q = Y^T Y */
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < M; j++)
      w->Y[i * M + j] = w->s[i] * b->B[j * r + i];
  sg_trsm_lower (w->Lg, r, w->Y, M);
  sg_gemm (1, 0, M, M, r, sign, w->Y, w->Y, 1, P);
  /* x = eta - S G S Sig eta; H += B x */
  sg_gemv (0, r, r, 1, b->Sig, eta, 0, w->t);
  for (size_t i = 0; i < r; i++)
    w->t[i] *= w->s[i];
  sg_cholesky_solve (w->Lg, r, w->t, 1);
  for (size_t i = 0; i < r; i++)
    w->u[i] = eta[i] - w->s[i] * w->t[i];
  sg_gemv (0, M, r, sign, b->B, w->u, 1, H);
  return SG_OK;
}

/* The rows' marginal means and variances under q(v) = N(m, (Lv Lv^T)^{-1})
 * and the person's own sites (header: l = (I - Ke Lambda) B^T v + Ke eta
 * + noise of covariance Ke = Sig - Sig S G S Sig). */
static int
block_marginals (const block *b, const double *lambda, const double *eta, size_t M,
                 const double *m, const double *Lv, double *mu, double *nu, block_ws *w)
{
  size_t r = b->r;
  int status = block_factor (b, lambda, w);
  if (status != SG_OK)
    return status;
  /* V = Lg^{-1} S Sig; Ke = Sig - V^T V */
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < r; j++)
      w->V[i * r + j] = w->s[i] * b->Sig[i * r + j];
  sg_trsm_lower (w->Lg, r, w->V, r);
  memcpy (w->Ke, b->Sig, r * r * sizeof *w->Ke);
  sg_gemm (1, 0, r, r, r, -1, w->V, w->V, 1, w->Ke);
  /* R = B T^T = B - B Lambda Ke (M x r) */
  memcpy (w->R, b->B, M * r * sizeof *w->R);
  for (size_t j = 0; j < M; j++)
    for (size_t i = 0; i < r; i++)
      w->Y[j * r + i] = b->B[j * r + i] * lambda[i];
  sg_gemm (0, 0, M, r, r, -1, w->Y, w->Ke, 1, w->R);
  /* mean = R^T m + Ke eta */
  sg_gemv (1, M, r, 1, w->R, m, 0, mu);
  sg_gemv (0, r, r, 1, w->Ke, eta, 1, mu);
  /* var = diag(R^T P_v^{-1} R) + diag(Ke): Lv^{-1} R column norms */
  sg_trsm_lower (Lv, M, w->R, r);
  for (size_t i = 0; i < r; i++)
    nu[i] = w->Ke[i * r + i];
  for (size_t j = 0; j < M; j++)
    for (size_t i = 0; i < r; i++)
      nu[i] += w->R[j * r + i] * w->R[j * r + i];
  return SG_OK;
}

void
sg_hier_population_clear (sg_hier_population *pop)
{
  if (pop == NULL)
    return;
  sg_kernel_clear (&pop->kernel);
  free (pop->Z);
  free (pop->Lk);
  free (pop->P);
  free (pop->h);
  free (pop->seen);
  free (pop->site_start);
  free (pop->lambda);
  free (pop->eta);
  memset (pop, 0, sizeof *pop);
}

sg_status
sg_hier_population_restore (sg_hier_population *pop)
{
  if (pop == NULL || pop->Z == NULL || pop->M == 0 || pop->dim != pop->kernel.dim
      || sg_kernel_check (&pop->kernel) != SG_OK || !pop->kernel.grouped)
    return SG_EINVAL;
  if (pop->Lk == NULL && (pop->Lk = malloc (pop->M * pop->M * sizeof *pop->Lk)) == NULL)
    return SG_ENOMEM;
  return _sg_svgp_factor_kzz (&pop->kernel, pop->Z, pop->M, pop->Lk);
}

/* k-means population points (group -1) of HD's settings. */
static int
population_points (const sg_hier_data *hd, size_t n_inducing, size_t iterations,
                   gsl_rng *rng, double **Z_out, size_t *M_out)
{
  size_t d = hd->dim, D = d + 1, n = hd->data.n_inputs;
  size_t M = n_inducing < n ? n_inducing : n;
  double *S = malloc (n * d * sizeof *S), *ones = malloc (n * sizeof *ones);
  double *C = malloc (M * d * sizeof *C), *Z = malloc (M * D * sizeof *Z);
  int status = S && ones && C && Z ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      for (size_t i = 0; i < n; i++)
        {
          memcpy (S + i * d, hd->data.X + i * D, d * sizeof *S);
          ones[i] = 1;
        }
      sg_svgp_data kd = { .dim = d, .n = n, .X = S, .y = ones };
      status = sg_svgp_kmeans (&kd, M, iterations, rng, C);
    }
  if (status == SG_OK)
    for (size_t j = 0; j < M; j++)
      {
        memcpy (Z + j * D, C + j * d, d * sizeof *Z);
        Z[j * D + d] = -1;
      }
  free (S);
  free (ones);
  free (C);
  if (status != SG_OK)
    {
      free (Z);
      return status;
    }
  *Z_out = Z;
  *M_out = M;
  return SG_OK;
}

/* New sites of a block from its marginals; returns the largest change. */
static double
update_sites (const block *b, const double *mu, const double *nu, const double *gh_x,
              const double *gh_w, double *lambda, double *eta)
{
  double change = 0;
  for (size_t i = 0; i < b->r; i++)
    {
      if (b->numeric[i])
        continue;   /* exact from the start */
      double dmu, dnu;
      _sg_svgp_probit_expect (b->off[i], b->s2[i], b->upper[i], mu[i], nu[i], gh_x, gh_w,
                              &dmu, &dnu);
      double lam = fmax (-2 * dnu, 0), et = dmu + lam * mu[i];
      double nl = (1 - CVI_DAMPING) * lambda[i] + CVI_DAMPING * lam;
      double ne = (1 - CVI_DAMPING) * eta[i] + CVI_DAMPING * et;
      change = fmax (change, fabs (nl - lambda[i]) / (1 + fabs (nl)));
      change = fmax (change, fabs (ne - eta[i]) / (1 + fabs (ne)));
      lambda[i] = nl;
      eta[i] = ne;
    }
  return change;
}

/* Sum of every block's terms into POP->P, POP->h. */
static int
sum_terms (sg_hier_population *pop, const block *blocks, block_ws *w)
{
  size_t M = pop->M;
  memset (pop->P, 0, M * M * sizeof *pop->P);
  memset (pop->h, 0, M * sizeof *pop->h);
  int status = SG_OK;
  for (size_t q = 0; q < pop->n_people && status == SG_OK; q++)
    status = block_terms (&blocks[q], pop->lambda + pop->site_start[q],
                          pop->eta + pop->site_start[q], M, 1, pop->P, pop->h, w);
  if (status == SG_OK)
    sg_symmetrize (pop->P, M);
  return status;
}

/* m and Lv = chol(I + P) of q(v). */
static int
posterior_v (const sg_hier_population *pop, double *Pv, double *Lv, double *m)
{
  size_t M = pop->M;
  memcpy (Pv, pop->P, M * M * sizeof *Pv);
  for (size_t j = 0; j < M; j++)
    Pv[j * M + j] += 1;
  int status = sg_cholesky (Pv, M, SG_CHOLESKY_MAX_JITTER, Lv, NULL);
  if (status == SG_OK)
    {
      memcpy (m, pop->h, M * sizeof *m);
      sg_cholesky_solve (Lv, M, m, 1);
    }
  return status;
}

static int
cvi_iterate (sg_hier_population *pop, block *blocks, size_t iterations,
             const sg_progress *progress)
{
  size_t M = pop->M, rmax = 0;
  for (size_t q = 0; q < pop->n_people; q++)
    rmax = blocks[q].r > rmax ? blocks[q].r : rmax;
  block_ws w = { 0 };
  double gh_x[SG_SVGP_ROWS_GH_NODES], gh_w[SG_SVGP_ROWS_GH_NODES];
  double *Pv = malloc (M * M * sizeof *Pv), *Lv = malloc (M * M * sizeof *Lv);
  double *m = malloc (M * sizeof *m), *mu = malloc ((rmax + 1) * sizeof *mu);
  double *nu = malloc ((rmax + 1) * sizeof *nu);
  int status = Pv && Lv && m && mu && nu ? block_ws_alloc (&w, rmax, M) : SG_ENOMEM;
  if (status == SG_OK)
    status = _sg_svgp_hermite_rule (gh_x, gh_w);
  pop->change = INFINITY;
  pop->iterations = 0;
  while (status == SG_OK && pop->iterations < iterations && pop->change > CVI_TOLERANCE)
    {
      status = sg_progress_report (progress, (double) pop->iterations / (double) iterations);
      if (status == SG_OK)
        status = sum_terms (pop, blocks, &w);
      if (status == SG_OK)
        status = posterior_v (pop, Pv, Lv, m);
      double change = 0;
      for (size_t q = 0; q < pop->n_people && status == SG_OK; q++)
        {
          double *lam = pop->lambda + pop->site_start[q], *et = pop->eta + pop->site_start[q];
          if (blocks[q].r == 0)
            continue;
          status = block_marginals (&blocks[q], lam, et, M, m, Lv, mu, nu, &w);
          if (status == SG_OK)
            change = fmax (change, update_sites (&blocks[q], mu, nu, gh_x, gh_w, lam, et));
        }
      pop->change = change;
      pop->iterations++;
    }
  if (status == SG_OK)
    status = sum_terms (pop, blocks, &w);
  if (status == SG_OK && !(sg_all_finite (pop->P, M * M) && sg_all_finite (pop->h, M)))
    status = SG_ENUMERIC;
  block_ws_free (&w);
  free (Pv);
  free (Lv);
  free (m);
  free (mu);
  free (nu);
  return status;
}

/* Every person's block of HD (their first LIMIT[q] answers; NULL: all). */
static int
make_blocks (const sg_hier_model *model, const sg_hier_data *hd, const size_t *limit,
             const sg_kernel *k, const double *Z, const double *Lk, size_t M, block *blocks)
{
  sg_likelihood lik;
  size_t *pf = NULL, *nf = NULL;
  int status = sg_hier_likelihood_build_sparse (model, hd, &lik);
  if (status != SG_OK)
    return status;
  status = row_map (hd, &pf, &nf);
  for (size_t q = 0; q < hd->n_people && status == SG_OK; q++)
    {
      status = gather_person (hd, &lik, pf, nf, q, limit ? limit[q] : (size_t) -1,
                              model->mean, &blocks[q]);
      if (status == SG_OK)
        status = block_loadings (k, Z, Lk, M, &blocks[q]);
    }
  free (pf);
  free (nf);
  sg_likelihood_clear (&lik);
  return status;
}

static int
population_alloc (sg_hier_population *pop, const sg_hier_data *hd, const block *blocks)
{
  size_t P = hd->n_people, M = pop->M, rows = 0;
  pop->n_people = P;
  pop->seen = calloc (P + 1, sizeof *pop->seen);
  pop->site_start = malloc ((P + 1) * sizeof *pop->site_start);
  pop->P = malloc (M * M * sizeof *pop->P);
  pop->h = malloc (M * sizeof *pop->h);
  if (!pop->seen || !pop->site_start || !pop->P || !pop->h)
    return SG_ENOMEM;
  for (size_t q = 0; q < P; q++)
    {
      pop->site_start[q] = rows;
      rows += blocks[q].r;
    }
  pop->site_start[P] = rows;
  pop->lambda = calloc (rows + 1, sizeof *pop->lambda);
  pop->eta = calloc (rows + 1, sizeof *pop->eta);
  if (!pop->lambda || !pop->eta)
    return SG_ENOMEM;
  for (size_t k = 0; k < hd->data.n_obs; k++)
    pop->seen[sg_hier_obs_person (hd, k)]++;
  /* numeric rows' sites are exact: lambda = 1 / v, eta = (y - mean) / v */
  for (size_t q = 0; q < P; q++)
    for (size_t i = 0; i < blocks[q].r; i++)
      if (blocks[q].numeric[i])
        {
          pop->lambda[pop->site_start[q] + i] = 1 / blocks[q].s2[i];
          pop->eta[pop->site_start[q] + i] = blocks[q].off[i] / blocks[q].s2[i];
        }
  return SG_OK;
}

sg_status
sg_hier_population_new (const sg_hier_model *model, const sg_hier_data *hd,
                        size_t n_inducing, size_t iterations, gsl_rng *rng,
                        const sg_progress *progress, sg_hier_population *out)
{
  if (sg_hier_model_check (model, hd) != SG_OK || out == NULL || rng == NULL
      || hd->data.n_obs == 0 || n_inducing == 0 || !(model->pop.variance > 0))
    return SG_EINVAL;
  sg_hier_population pop = { .mean = model->mean, .dim = hd->dim + 1 };
  block *blocks = calloc (hd->n_people, sizeof *blocks);
  int status = blocks ? sg_hier_model_kernel (model, &pop.kernel) : SG_ENOMEM;
  if (status == SG_OK)
    status = population_points (hd, n_inducing, 25, rng, &pop.Z, &pop.M);
  if (status == SG_OK)
    status = (pop.Lk = malloc (pop.M * pop.M * sizeof *pop.Lk)) ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = _sg_svgp_factor_kzz (&pop.kernel, pop.Z, pop.M, pop.Lk);
  if (status == SG_OK)
    status = make_blocks (model, hd, NULL, &pop.kernel, pop.Z, pop.Lk, pop.M, blocks);
  if (status == SG_OK)
    status = population_alloc (&pop, hd, blocks);
  if (status == SG_OK)
    status = cvi_iterate (&pop, blocks, iterations, progress);
  for (size_t q = 0; blocks && q < hd->n_people; q++)
    block_clear (&blocks[q]);
  free (blocks);
  if (status != SG_OK)
    {
      sg_hier_population_clear (&pop);
      return status;
    }
  *out = pop;
  return SG_OK;
}

sg_status
sg_hier_population_pseudo (const sg_hier_population *pop, const sg_hier_model *model,
                           const sg_hier_data *own, size_t person, sg_svgp_pseudo *out)
{
  if (pop == NULL || model == NULL || out == NULL || pop->Lk == NULL
      || (person != SG_HIER_POPULATION && person < pop->n_people
          && (own == NULL || own->dim + 1 != pop->dim)))
    return SG_EINVAL;
  size_t M = pop->M;
  double *P = malloc (M * M * sizeof *P), *h = malloc (M * sizeof *h);
  int status = P && h ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      memcpy (P, pop->P, M * M * sizeof *P);
      memcpy (h, pop->h, M * sizeof *h);
    }
  if (status == SG_OK && person != SG_HIER_POPULATION && person < pop->n_people
      && pop->seen[person] > 0)
    {
      block *blocks = calloc (own->n_people, sizeof *blocks);
      size_t *limit = calloc (own->n_people, sizeof *limit);
      block_ws w = { 0 };
      status = blocks && limit && person < own->n_people ? SG_OK : SG_EINVAL;
      if (status == SG_OK)
        {
          limit[person] = pop->seen[person];
          status = make_blocks (model, own, limit, &pop->kernel, pop->Z, pop->Lk, M, blocks);
        }
      const block *b = status == SG_OK ? &blocks[person] : NULL;
      size_t first = pop->site_start[person];
      /* OWN must hold the answers the cache saw: the same rows */
      if (status == SG_OK && b->r != pop->site_start[person + 1] - first)
        status = SG_EINVAL;
      if (status == SG_OK)
        status = block_ws_alloc (&w, b->r, M);
      if (status == SG_OK)
        status = block_terms (b, pop->lambda + first, pop->eta + first, M, -1, P, h, &w);
      block_ws_free (&w);
      for (size_t q = 0; blocks && q < own->n_people; q++)
        block_clear (&blocks[q]);
      free (blocks);
      free (limit);
    }
  if (status == SG_OK)
    {
      sg_symmetrize (P, M);
      status = sg_svgp_pseudo_make (pop->Z, pop->Lk, M, pop->dim, P, h, pop->mean, out);
    }
  free (P);
  free (h);
  return status;
}
