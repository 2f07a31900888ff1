/* sg-gaussian-post.c — the row-space problem and Gaussian-posterior
 * predictions shared by Laplace (sg-laplace.c) and EP (sg-ep.c).
 *
 * Notation of Rasmussen & Williams, Gaussian Processes for Machine
 * Learning (2006), chapter 3, with K replaced by Kt = A K A^T (see
 * sg-gaussian-post.h): s = D^{1/2}, B = I + s Kt s = L L^T.
 */
#include "sg-gaussian-post-private.h"
#include "sg-linalg.h"
#include "sg-normal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Test points are processed in blocks so a large grid never needs an
 * m x ns matrix at once. */
#define PREDICT_BLOCK 256

int
sg_approx_model_check (const sg_approx_model *model, size_t dim)
{
  if (model == NULL || sg_kernel_check (&model->kernel) != SG_OK
      || model->kernel.dim != dim || !isfinite (model->prior_mean))
    return SG_EINVAL;
  if (model->link != SG_LINK_PROBIT && model->link != SG_LINK_LOGISTIC)
    return SG_EINVAL;
  const sg_noise *nz = &model->noise;
  if (!(nz->numeric_sd > 0) || !isfinite (nz->numeric_sd)
      || !(nz->probit_sd > 0) || !isfinite (nz->probit_sd))
    return SG_EINVAL;
  return SG_OK;
}

void
sg_rows_clear (sg_rows *rows)
{
  free (rows->A);
  free (rows->b);
  free (rows->sigma);
  free (rows->y);
  free (rows->r);
  free (rows->K);
  free (rows->Kt);
  memset (rows, 0, sizeof *rows);
}

/* Stacks the probit block over the numeric block; b_k = z_k + m0 sum_j
 * A_kj is the prior mean of t_k under the constant prior mean m0. */
static void
stack_rows (const sg_likelihood *lik, double m0, sg_rows *R)
{
  size_t n = R->n, ma = lik->m_probit;
  memcpy (R->A, lik->W, ma * n * sizeof *R->A);
  memcpy (R->A + ma * n, lik->C, lik->m_numeric * n * sizeof *R->A);
  for (size_t k = 0; k < R->m; k++)
    {
      double rowsum = 0;
      for (size_t j = 0; j < n; j++)
        rowsum += R->A[k * n + j];
      R->b[k] = m0 * rowsum + (k < ma ? lik->z[k] : 0);
      R->sigma[k] = k < ma ? lik->sigma[k] : 0;
      R->y[k] = k < ma ? 0 : lik->y[k - ma];
      R->r[k] = k < ma ? 0 : lik->noise_var[k - ma];
    }
}

int
sg_rows_build (const sg_approx_model *model, const sg_data *data,
               sg_rows *rows)
{
  if (data == NULL || sg_approx_model_check (model, data->dim) != SG_OK)
    return SG_EINVAL;
  sg_likelihood lik;
  int status = sg_likelihood_build (data, &model->noise, &lik);
  if (status != SG_OK)
    return status;
  size_t n = data->n_inputs, m = lik.m_probit + lik.m_numeric;
  sg_rows R = { .n = n, .dim = data->dim, .m = m, .m_probit = lik.m_probit,
                .X = data->X };
  R.A = malloc ((m * n + 1) * sizeof *R.A);
  R.b = malloc ((m + 1) * sizeof *R.b);
  R.sigma = malloc ((m + 1) * sizeof *R.sigma);
  R.y = malloc ((m + 1) * sizeof *R.y);
  R.r = malloc ((m + 1) * sizeof *R.r);
  R.K = malloc ((n * n + 1) * sizeof *R.K);
  R.Kt = malloc ((m * m + 1) * sizeof *R.Kt);
  double *AK = malloc ((m * n + 1) * sizeof *AK);
  if (!R.A || !R.b || !R.sigma || !R.y || !R.r || !R.K || !R.Kt || !AK)
    {
      free (AK);
      sg_rows_clear (&R);
      sg_likelihood_clear (&lik);
      return SG_ENOMEM;
    }
  stack_rows (&lik, model->prior_mean, &R);
  sg_likelihood_clear (&lik);
  sg_kernel_matrix (&model->kernel, data->X, n, data->X, n, R.K);
  sg_gemm (0, 0, m, n, n, 1.0, R.A, R.K, 0.0, AK);
  sg_gemm (0, 1, m, m, n, 1.0, AK, R.A, 0.0, R.Kt);
  sg_symmetrize (R.Kt, m);
  free (AK);
  *rows = R;
  return SG_OK;
}

int
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

int
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

int
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

int
sg_rows_kt_grad (const sg_rows *rows, const sg_kernel *kernel, size_t p,
                 double *dKt)
{
  size_t n = rows->n, m = rows->m;
  double *dK = malloc ((n * n + 1) * sizeof *dK);
  double *AdK = malloc ((m * n + 1) * sizeof *AdK);
  if (dK == NULL || AdK == NULL)
    {
      free (dK);
      free (AdK);
      return SG_ENOMEM;
    }
  sg_kernel_matrix_grad (kernel, rows->X, n, rows->X, n, p, dK);
  sg_gemm (0, 0, m, n, n, 1.0, rows->A, dK, 0.0, AdK);
  sg_gemm (0, 1, m, m, n, 1.0, AdK, rows->A, 0.0, dKt);
  free (dK);
  free (AdK);
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

void
sg_gauss_post_clear (sg_gauss_post *post)
{
  free (post->X);
  free (post->A);
  free (post->sqrt_prec);
  free (post->L);
  free (post->alpha);
  memset (post, 0, sizeof *post);
}

static double *
dup_array (const double *src, size_t len)
{
  double *dst = malloc ((len + 1) * sizeof *dst);
  if (dst != NULL && len > 0)
    memcpy (dst, src, len * sizeof *dst);
  return dst;
}

int
sg_gauss_post_set (sg_gauss_post *post, const sg_approx_model *model,
                   const sg_rows *rows, const double *s, const double *L,
                   const double *alpha, double log_evidence, int iterations)
{
  size_t n = rows->n, m = rows->m;
  sg_gauss_post P = {
    .kernel = model->kernel, .prior_mean = model->prior_mean,
    .link = model->link, .probit_sd = model->noise.probit_sd,
    .dim = rows->dim, .n = n, .m = m,
    .log_evidence = log_evidence, .iterations = iterations,
  };
  P.X = dup_array (rows->X, n * rows->dim);
  P.A = dup_array (rows->A, m * n);
  P.sqrt_prec = dup_array (s, m);
  P.L = dup_array (L, m * m);
  P.alpha = dup_array (alpha, m);
  if (!P.X || !P.A || !P.sqrt_prec || !P.L || !P.alpha)
    {
      sg_gauss_post_clear (&P);
      return SG_ENOMEM;
    }
  *post = P;
  return SG_OK;
}

/* For a block of NS test points: mean (ns) and V = L^{-1} s A k(X, Xs)
 * (m x ns), the two pieces of R&W alg. 3.2 lines 4-5. KXS is an n x ns
 * workspace. Cannot fail. */
static void
predict_block (const sg_gauss_post *post, const double *Xs, size_t ns,
               double *Kxs, double *mean, double *V)
{
  size_t n = post->n, m = post->m;
  sg_kernel_matrix (&post->kernel, post->X, n, Xs, ns, Kxs);
  sg_gemm (0, 0, m, ns, n, 1.0, post->A, Kxs, 0.0, V);
  for (size_t j = 0; j < ns; j++)
    mean[j] = post->prior_mean;
  sg_gemv (1, m, ns, 1.0, V, post->alpha, 1.0, mean);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < ns; j++)
      V[i * ns + j] *= post->sqrt_prec[i];
  sg_trsm_lower (post->L, m, V, ns);
}

/* Workspaces for blocks of up to COLS test points. */
typedef struct {
  double *Kxs, *V, *mu;
} predict_work;

static int
predict_work_init (predict_work *w, const sg_gauss_post *post, size_t cols)
{
  w->Kxs = malloc ((post->n * cols + 1) * sizeof *w->Kxs);
  w->V = malloc ((post->m * cols + 1) * sizeof *w->V);
  w->mu = malloc ((cols + 1) * sizeof *w->mu);
  return w->Kxs && w->V && w->mu ? SG_OK : SG_ENOMEM;
}

static void
predict_work_clear (predict_work *w)
{
  free (w->Kxs);
  free (w->V);
  free (w->mu);
}

static int
check_points (const sg_gauss_post *post, const double *Xs, size_t ns)
{
  if (post == NULL || post->X == NULL || (ns > 0 && Xs == NULL))
    return SG_EINVAL;
  return sg_all_finite (Xs, ns * post->dim) ? SG_OK : SG_EINVAL;
}

int
sg_gauss_post_predict (const sg_gauss_post *post, const double *Xs,
                       size_t ns, double *mean, double *var)
{
  int status = check_points (post, Xs, ns);
  if (status != SG_OK)
    return status;
  size_t m = post->m, d = post->dim;
  predict_work w;
  status = predict_work_init (&w, post, PREDICT_BLOCK);
  for (size_t start = 0; status == SG_OK && start < ns; start += PREDICT_BLOCK)
    {
      size_t nb = ns - start < PREDICT_BLOCK ? ns - start : PREDICT_BLOCK;
      predict_block (post, Xs + start * d, nb, w.Kxs, w.mu, w.V);
      for (size_t j = 0; j < nb; j++)
        {
          const double *x = Xs + (start + j) * d;
          double v = sg_kernel_eval (&post->kernel, x, x);
          for (size_t i = 0; i < m; i++)
            v -= w.V[i * nb + j] * w.V[i * nb + j];
          mean[start + j] = w.mu[j];
          var[start + j] = v > 0 ? v : 0;
        }
    }
  predict_work_clear (&w);
  return status;
}

int
sg_gauss_post_joint (const sg_gauss_post *post, const double *Xs, size_t ns,
                     double *mean, double *cov)
{
  int status = check_points (post, Xs, ns);
  if (status != SG_OK)
    return status;
  size_t m = post->m;
  predict_work w;
  double *S = malloc ((ns * ns + 1) * sizeof *S);
  status = predict_work_init (&w, post, ns);
  if (status == SG_OK && S != NULL)
    {
      predict_block (post, Xs, ns, w.Kxs, w.mu, w.V);
      sg_kernel_matrix (&post->kernel, Xs, ns, Xs, ns, S);
      sg_gemm (1, 0, ns, ns, m, -1.0, w.V, w.V, 1.0, S);
      sg_symmetrize (S, ns);
      memcpy (mean, w.mu, ns * sizeof *mean);
      memcpy (cov, S, ns * ns * sizeof *cov);
    }
  else
    status = SG_ENOMEM;
  predict_work_clear (&w);
  free (S);
  return status;
}

/* Gauss-Legendre, 10 nodes on [-1, 1] (Abramowitz & Stegun table 25.4). */
static const double gl_node[5] = {
  0.1488743389816312108848260, 0.4333953941292471907992659,
  0.6794095682990244062343274, 0.8650633666889845107320967,
  0.9739065285171717200779640,
};
static const double gl_weight[5] = {
  0.2955242247147528701738930, 0.2692667193099963550912269,
  0.2190863625159820439955349, 0.1494513491505805931457763,
  0.0666713443086881375935688,
};

static double
logistic (double x)
{
  return x >= 0 ? 1 / (1 + exp (-x)) : exp (x) / (1 + exp (x));
}

/* Integrand of one of the two representations below. */
static double
logistic_normal_integrand (int narrow, double mu, double sd, double t)
{
  if (narrow)   /* sigma(mu + sd t) phi(t) */
    return logistic (mu + sd * t) * sg_norm_pdf (t);
  /* logistic density times Phi((mu + t) / sd) */
  double p = logistic (t);
  return p * (1 - p) * sg_norm_cdf ((mu + t) / sd);
}

double
sg_logistic_normal_mean (double mu, double var)
{
  if (!(var > 0))
    return logistic (mu);
  double sd = sqrt (var);
  /* E[sigma(F)] = int sigma(mu + sd t) phi(t) dt
   *             = P(T < F) = int l(t) Phi((mu + t) / sd) dt,
   * T standard logistic with density l. Integrate in the variable in which
   * the sharper factor is the smooth one: for sd <= 1 the sigmoid's poles
   * are >= pi from the real t axis, for sd > 1 Phi((mu+t)/sd) varies on a
   * scale >= 1 and l has its poles at +-i pi. Composite 10-point
   * Gauss-Legendre on panels of half-width 1/4 resp. 1/2 then converges to
   * round-off; the tails left out weigh phi: < 1e-18, l: e^-38 < 1e-16. */
  int narrow = sd <= 1;
  double lim = narrow ? 9.0 : 38.0, half = narrow ? 0.25 : 0.5;
  double sum = 0;
  for (double left = -lim; left < lim - 1e-12; left += 2 * half)
    {
      double c = left + half;
      for (int q = 0; q < 5; q++)
        sum += half * gl_weight[q]
               * (logistic_normal_integrand (narrow, mu, sd, c - half * gl_node[q])
                  + logistic_normal_integrand (narrow, mu, sd, c + half * gl_node[q]));
    }
  return sum;
}

static double
class_probability (const sg_gauss_post *post, double mu, double var)
{
  double s = post->probit_sd;
  if (post->link == SG_LINK_LOGISTIC)
    return sg_logistic_normal_mean (mu / s, var / (s * s));
  /* E[Phi(f / s)] = Phi(mu / sqrt(s^2 + var)) */
  return sg_norm_cdf (mu / sqrt (s * s + var));
}

static void
fill_summary (const sg_gauss_post *post, double mu, double var, double z,
              sg_point_summary *out)
{
  double sd = sqrt (var);
  out->mean = out->median = mu;
  out->sd = sd;
  out->lower = out->hpd_lower = mu - z * sd;
  out->upper = out->hpd_upper = mu + z * sd;
  out->skewness = 0;
  out->class_probability = class_probability (post, mu, var);
  out->prob_better = NAN;
}

/* P(h > 0) for h ~ N(mean, var); a zero variance means h is exactly MEAN. */
static double
prob_positive (double mean, double var)
{
  if (var > 0)
    return sg_norm_cdf (mean / sqrt (var));
  return mean > 0 ? 1.0 : 0.0;
}

/* Summaries of NB points; the reference point, when given, is the extra
 * last column of the block (P holds the nb + 1 points). */
static void
summaries_block (const sg_gauss_post *post, const double *P, size_t nb,
                 int with_ref, double z, predict_work *w,
                 sg_point_summary *out)
{
  size_t d = post->dim, m = post->m, cols = nb + (with_ref != 0);
  const double *V = w->V, *mu = w->mu;
  predict_block (post, P, cols, w->Kxs, w->mu, w->V);
  double vr = 0;
  if (with_ref)
    {
      const double *xr = P + nb * d;
      vr = sg_kernel_eval (&post->kernel, xr, xr);
      for (size_t i = 0; i < m; i++)
        vr -= V[i * cols + nb] * V[i * cols + nb];
      vr = vr > 0 ? vr : 0;
    }
  for (size_t j = 0; j < nb; j++)
    {
      const double *x = P + j * d;
      double v = sg_kernel_eval (&post->kernel, x, x);
      for (size_t i = 0; i < m; i++)
        v -= V[i * cols + j] * V[i * cols + j];
      v = v > 0 ? v : 0;
      fill_summary (post, mu[j], v, z, &out[j]);
      if (!with_ref)
        continue;
      /* h = f(x) - f(x_r): var h = v + vr - 2 cov, with
       * cov(f(x), f(x_r)) = k(x, x_r) - V_x^T V_r */
      double c = sg_kernel_eval (&post->kernel, x, P + nb * d);
      for (size_t i = 0; i < m; i++)
        c -= V[i * cols + j] * V[i * cols + nb];
      double vh = v + vr - 2 * c;
      /* at x = x_r, h is identically zero; rounding must not make it 1/2 */
      if (vh <= 1e-12 * (v + vr))
        vh = 0;
      out[j].prob_better = prob_positive (mu[j] - mu[nb], vh);
    }
}

int
sg_gauss_post_summaries (const sg_gauss_post *post, const double *Xs,
                         size_t ns, double level, const double *x_ref,
                         sg_point_summary *out)
{
  int status = check_points (post, Xs, ns);
  if (status != SG_OK || !(level > 0 && level < 1))
    return SG_EINVAL;
  if (x_ref && !sg_all_finite (x_ref, post->dim))
    return SG_EINVAL;
  double z = sg_norm_quantile (0.5 * (1 + level));
  size_t d = post->dim;
  predict_work w;
  double *P = malloc (((PREDICT_BLOCK + 1) * d + 1) * sizeof *P);
  status = predict_work_init (&w, post, PREDICT_BLOCK + 1);
  if (status == SG_OK && P == NULL)
    status = SG_ENOMEM;
  for (size_t start = 0; status == SG_OK && start < ns; start += PREDICT_BLOCK)
    {
      size_t nb = ns - start < PREDICT_BLOCK ? ns - start : PREDICT_BLOCK;
      memcpy (P, Xs + start * d, nb * d * sizeof *P);
      if (x_ref)
        memcpy (P + nb * d, x_ref, d * sizeof *P);
      summaries_block (post, P, nb, x_ref != NULL, z, &w, out + start);
    }
  predict_work_clear (&w);
  free (P);
  return status;
}

int
sg_gauss_post_density (const sg_gauss_post *post, const double *x,
                       size_t nv, const double *values, double *density)
{
  double mu, var;
  int status = sg_gauss_post_predict (post, x, 1, &mu, &var);
  if (status != SG_OK)
    return status;
  if (!(var > 0) || !sg_all_finite (values, nv))
    return var > 0 ? SG_EINVAL : SG_ENUMERIC;
  double sd = sqrt (var);
  for (size_t i = 0; i < nv; i++)
    density[i] = sg_norm_pdf ((values[i] - mu) / sd) / sd;
  return SG_OK;
}
