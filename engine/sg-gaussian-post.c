/* sg-gaussian-post.c — predictions and summaries of the Gaussian
 * posteriors that Laplace (sg-laplace.c) and EP (sg-ep.c) produce; the
 * formulas are in sg-gaussian-post.h (R&W 2006 alg. 3.2 / 3.6 with the
 * numeric conditioning of sg-gaussian-rows.c written out).
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

sg_status
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
sg_gauss_post_clear (sg_gauss_post *post)
{
  double **arrays[] = { &post->X, &post->A, &post->sqrt_prec, &post->L,
                        &post->alpha, &post->G, &post->P, &post->weights,
                        &post->p_alpha };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free (*arrays[i]);
  sg_kernel_clear (&post->kernel);
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

sg_status
sg_gauss_post_set (sg_gauss_post *post, const sg_approx_model *model,
                   const sg_rows *rows, const double *s, const double *L,
                   const double *alpha, double log_evidence, size_t iterations)
{
  size_t n = rows->n, m = rows->m, mr = rows->m_numeric;
  sg_gauss_post P = {
    .prior_mean = model->prior_mean,
    .link = model->link, .probit_sd = model->noise.probit_sd,
    .dim = rows->dim, .n = n, .m = m, .m_numeric = mr,
    .log_evidence = log_evidence, .iterations = iterations,
  };
  P.X = dup_array (rows->X, n * rows->dim);
  P.A = dup_array (rows->A, m * n);
  P.sqrt_prec = dup_array (s, m);
  P.L = dup_array (L, m * m);
  P.alpha = dup_array (alpha, m);
  P.G = dup_array (rows->G, mr * n);
  P.P = dup_array (rows->P, mr * m);
  P.weights = dup_array (rows->gamma, n);
  P.p_alpha = calloc (mr + 1, sizeof *P.p_alpha);
  int own_kernel = sg_kernel_copy (&P.kernel, &model->kernel) == SG_OK;
  if (!own_kernel || !P.X || !P.A || !P.sqrt_prec || !P.L || !P.alpha || !P.G || !P.P
      || !P.weights || !P.p_alpha)
    {
      sg_gauss_post_clear (&P);
      return SG_ENOMEM;
    }
  sg_gemv (1, m, n, 1.0, P.A, alpha, 1.0, P.weights);   /* + W^T alpha */
  sg_gemv (0, mr, m, 1.0, P.P, alpha, 0.0, P.p_alpha);
  *post = P;
  return SG_OK;
}

/* For a block of NS test points: the mean (ns), q = G k(X, Xs)
 * (m_numeric x ns) and V = L^{-1} s (W k(X, Xs) - P^T q) (m x ns), the
 * pieces of R&W alg. 3.2 lines 4-5 after the numeric conditioning.
 * KXS is an n x ns workspace. Cannot fail. */
static void
predict_block (const sg_gauss_post *post, const double *Xs, size_t ns,
               double *Kxs, double *mean, double *q, double *V)
{
  size_t n = post->n, m = post->m, mr = post->m_numeric;
  sg_kernel_matrix (&post->kernel, post->X, n, Xs, ns, Kxs);
  for (size_t j = 0; j < ns; j++)
    mean[j] = post->prior_mean;
  sg_gemv (1, n, ns, 1.0, Kxs, post->weights, 1.0, mean);
  sg_gemm (0, 0, mr, ns, n, 1.0, post->G, Kxs, 0.0, q);
  sg_gemv (1, mr, ns, -1.0, q, post->p_alpha, 1.0, mean);
  sg_gemm (0, 0, m, ns, n, 1.0, post->A, Kxs, 0.0, V);
  sg_gemm (1, 0, m, ns, mr, -1.0, post->P, q, 1.0, V);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < ns; j++)
      V[i * ns + j] *= post->sqrt_prec[i];
  sg_trsm_lower (post->L, m, V, ns);
}

/* k(x, x') - q_x^T q_x' - V_x^T V_x' for columns J, K of a block of NS. */
static double
block_cov (const sg_gauss_post *post, const double *xj, const double *xk,
           const double *q, const double *V, size_t ns, size_t j, size_t k)
{
  double c = sg_kernel_eval (&post->kernel, xj, xk);
  for (size_t i = 0; i < post->m_numeric; i++)
    c -= q[i * ns + j] * q[i * ns + k];
  for (size_t i = 0; i < post->m; i++)
    c -= V[i * ns + j] * V[i * ns + k];
  return c;
}

/* Workspaces for blocks of up to COLS test points. */
typedef struct {
  double *Kxs, *q, *V, *mu;
} predict_work;

static int
predict_work_init (predict_work *w, const sg_gauss_post *post, size_t cols)
{
  w->Kxs = malloc ((post->n * cols + 1) * sizeof *w->Kxs);
  w->q = malloc ((post->m_numeric * cols + 1) * sizeof *w->q);
  w->V = malloc ((post->m * cols + 1) * sizeof *w->V);
  w->mu = malloc ((cols + 1) * sizeof *w->mu);
  return w->Kxs && w->q && w->V && w->mu ? SG_OK : SG_ENOMEM;
}

static void
predict_work_clear (predict_work *w)
{
  free (w->Kxs);
  free (w->q);
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

sg_status
sg_gauss_post_predict (const sg_gauss_post *post, const double *Xs,
                       size_t ns, double *mean, double *var)
{
  int status = check_points (post, Xs, ns);
  if (status != SG_OK)
    return status;
  size_t d = post->dim;
  predict_work w;
  status = predict_work_init (&w, post, PREDICT_BLOCK);
  for (size_t start = 0; status == SG_OK && start < ns; start += PREDICT_BLOCK)
    {
      size_t nb = ns - start < PREDICT_BLOCK ? ns - start : PREDICT_BLOCK;
      const double *Xb = Xs + start * d;
      predict_block (post, Xb, nb, w.Kxs, w.mu, w.q, w.V);
      for (size_t j = 0; j < nb; j++)
        {
          double v = block_cov (post, Xb + j * d, Xb + j * d, w.q, w.V, nb, j, j);
          mean[start + j] = w.mu[j];
          var[start + j] = v > 0 ? v : 0;
        }
    }
  predict_work_clear (&w);
  return status;
}

sg_status
sg_gauss_post_joint (const sg_gauss_post *post, const double *Xs, size_t ns,
                     double *mean, double *cov)
{
  int status = check_points (post, Xs, ns);
  if (status != SG_OK)
    return status;
  size_t m = post->m, mr = post->m_numeric;
  predict_work w;
  double *S = malloc ((ns * ns + 1) * sizeof *S);
  status = predict_work_init (&w, post, ns);
  if (status == SG_OK && S != NULL)
    {
      predict_block (post, Xs, ns, w.Kxs, w.mu, w.q, w.V);
      sg_kernel_matrix (&post->kernel, Xs, ns, Xs, ns, S);
      sg_gemm (1, 0, ns, ns, mr, -1.0, w.q, w.q, 1.0, S);
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
  size_t d = post->dim, cols = nb + (with_ref != 0);
  const double *mu = w->mu, *xr = P + nb * d;
  predict_block (post, P, cols, w->Kxs, w->mu, w->q, w->V);
  double vr = 0;
  if (with_ref)
    {
      vr = block_cov (post, xr, xr, w->q, w->V, cols, nb, nb);
      vr = vr > 0 ? vr : 0;
    }
  for (size_t j = 0; j < nb; j++)
    {
      const double *x = P + j * d;
      double v = block_cov (post, x, x, w->q, w->V, cols, j, j);
      v = v > 0 ? v : 0;
      fill_summary (post, mu[j], v, z, &out[j]);
      if (!with_ref)
        continue;
      /* h = f(x) - f(x_r): var h = v + vr - 2 cov(f(x), f(x_r)) */
      double c = block_cov (post, x, xr, w->q, w->V, cols, j, nb);
      double vh = v + vr - 2 * c;
      /* at x = x_r, h is identically zero; rounding must not make it 1/2 */
      if (vh <= 1e-12 * (v + vr))
        vh = 0;
      out[j].prob_better = prob_positive (mu[j] - mu[nb], vh);
    }
}

sg_status
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

sg_status
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
