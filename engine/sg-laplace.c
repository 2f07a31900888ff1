/* sg-laplace.c — Laplace approximation in the row space
 * (Rasmussen & Williams 2006, algorithms 3.1, 3.2, 5.1; paper 002).
 */
#include "sg-laplace.h"
#include "sg-gaussian-post-private.h"
#include "sg-linalg.h"
#include "sg-normal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_ITER 100
#define DEFAULT_TOL 1e-10

void
sg_laplace_options_default (sg_laplace_options *opt)
{
  opt->max_iter = DEFAULT_MAX_ITER;
  opt->tol = DEFAULT_TOL;
}
#define MAX_HALVINGS 40

void
sg_laplace_warm_clear (sg_laplace_warm *warm)
{
  free (warm->alpha);
  memset (warm, 0, sizeof *warm);
}

/* Log-likelihood of every probit row at u and its derivatives in u:
 * d1 = l', D = -l'' >= 0, d3 = l'''. Returns sum_k l_k(u_k).
 *   probit   l = log Phi(x), x = (b + u) / sigma, h = phi(x) / Phi(x):
 *            l' = h / sigma, -l'' = h (x + h) / sigma^2,
 *            l''' = -h (1 - (x + h)(x + 2h)) / sigma^3
 *   logistic l = log sigma(x), p = sigma(x) (paper 002 eqs. 281-283):
 *            l' = (1 - p) / sigma, -l'' = p (1 - p) / sigma^2,
 *            l''' = -p (1 - p)(1 - 2p) / sigma^3 */
static double
row_terms (const sg_rows *R, sg_link link, const double *u, double *d1,
           double *D, double *d3)
{
  double sum = 0;
  for (size_t k = 0; k < R->m; k++)
    {
      double l, g1, g2, g3, s = R->sigma[k], x = (R->b[k] + u[k]) / s;
      if (link == SG_LINK_PROBIT)
        {
          double h = sg_norm_hazard (x), g = h * (x + h);
          l = sg_norm_logcdf (x);
          /* 0 < h (x + h) < 1 exactly; keep rounding inside */
          g = g < 0 ? 0 : (g > 1 ? 1 : g);
          g1 = h / s;
          g2 = g / (s * s);
          g3 = -h * (1 - (x + h) * (x + 2 * h)) / (s * s * s);
        }
      else
        {
          double p = x >= 0 ? 1 / (1 + exp (-x)) : exp (x) / (1 + exp (x));
          double q = x >= 0 ? exp (-x) / (1 + exp (-x)) : 1 / (1 + exp (x));
          l = x >= 0 ? -log1p (exp (-x)) : x - log1p (exp (x));
          g1 = q / s;
          g2 = p * q / (s * s);
          g3 = -p * q * (q - p) / (s * s * s);
        }
      sum += l;
      if (d1)
        d1[k] = g1;
      if (D)
        D[k] = g2;
      if (d3)
        d3[k] = g3;
    }
  return sum;
}

/* Psi(a) = log p(y | u) - a^T u / 2 with u = Kt a (R&W eq. 3.12). */
static double
objective (const sg_rows *R, sg_link link, const double *a, double *u)
{
  size_t m = R->m;
  sg_gemv (0, m, m, 1.0, R->Kt, a, 0.0, u);
  double quad = 0;
  for (size_t k = 0; k < m; k++)
    quad += a[k] * u[k];
  return row_terms (R, link, u, NULL, NULL, NULL) - 0.5 * quad;
}

typedef struct {
  size_t m;
  double *a, *u, *d1, *D, *d3, *s, *L;   /* the mode and its terms */
  double *a_new, *u_try, *bb;            /* Newton scratch */
  double log_evidence;
  size_t iterations;
} mode_state;

static void
mode_state_clear (mode_state *st)
{
  double **arrays[] = { &st->a, &st->u, &st->d1, &st->D, &st->d3, &st->s,
                        &st->L, &st->a_new, &st->u_try, &st->bb };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    {
      free (*arrays[i]);
      *arrays[i] = NULL;
    }
}

static int
mode_state_init (mode_state *st, size_t m)
{
  memset (st, 0, sizeof *st);
  st->m = m;
  double **arrays[] = { &st->a, &st->u, &st->d1, &st->D, &st->d3, &st->s,
                        &st->a_new, &st->u_try, &st->bb };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    if ((*arrays[i] = calloc (m + 1, sizeof (double))) == NULL)
      {
        mode_state_clear (st);
        return SG_ENOMEM;
      }
  if ((st->L = calloc (m * m + 1, sizeof (double))) == NULL)
    {
      mode_state_clear (st);
      return SG_ENOMEM;
    }
  return SG_OK;
}

/* Copies the probit rows a warm start shares with R (a prefix) into A;
 * returns 0 if there is nothing to reuse. */
static int
warm_rows (const sg_laplace_warm *warm, const sg_rows *R, double *a)
{
  if (warm == NULL || warm->alpha == NULL)
    return 0;
  size_t np = warm->m_probit < R->m ? warm->m_probit : R->m;
  memset (a, 0, R->m * sizeof *a);
  memcpy (a, warm->alpha, np * sizeof *a);
  return np > 0;
}

/* Sets s = sqrt(D) and L = chol(I + s Kt s) at the current u. */
static int
factor_at (const sg_rows *R, sg_link link, mode_state *st)
{
  row_terms (R, link, st->u, st->d1, st->D, st->d3);
  for (size_t k = 0; k < st->m; k++)
    st->s[k] = sqrt (st->D[k]);
  return sg_rows_factor (R, st->s, st->L);
}

/* One damped Newton step from st->a (R&W alg. 3.1 lines 4-8). Sets
 * *CHANGE to max |du|. */
static int
newton_step (const sg_rows *R, sg_link link, double *psi, double *change,
             mode_state *st)
{
  size_t m = st->m;
  int status = factor_at (R, link, st);
  if (status != SG_OK)
    return status;
  for (size_t k = 0; k < m; k++)
    st->bb[k] = st->D[k] * st->u[k] + st->d1[k];
  /* a_new = bb - s B^{-1} s Kt bb */
  sg_rows_alpha (R, st->s, st->L, st->bb, st->a_new);
  for (size_t k = 0; k < m; k++)
    st->a_new[k] -= st->a[k];       /* now the direction da */
  double step = 1, psi_try = -INFINITY;
  for (int h = 0; h <= MAX_HALVINGS; h++, step *= 0.5)
    {
      for (size_t k = 0; k < m; k++)
        st->bb[k] = st->a[k] + step * st->a_new[k];
      psi_try = objective (R, link, st->bb, st->u_try);
      /* accept any increase; a tiny decrease is round-off at the mode */
      if (psi_try >= *psi - 1e-13 * (1 + fabs (*psi)))
        break;
    }
  if (!isfinite (psi_try) || psi_try < *psi - 1e-13 * (1 + fabs (*psi)))
    return SG_ENUMERIC;
  double du = 0;
  for (size_t k = 0; k < m; k++)
    {
      double d = fabs (st->u_try[k] - st->u[k]);
      du = d > du ? d : du;
    }
  memcpy (st->a, st->bb, m * sizeof *st->a);
  memcpy (st->u, st->u_try, m * sizeof *st->u);
  *psi = psi_try;
  *change = du;
  return SG_OK;
}

/* Newton iteration to the mode; on success ST holds a, u, d1, D, d3, s, L
 * at the mode and the evidence (R&W eq. 3.32). */
static int
find_mode (const sg_rows *R, sg_link link, const sg_laplace_options *opt,
           const sg_progress *progress, const sg_laplace_warm *warm,
           mode_state *st)
{
  size_t max_iter = opt->max_iter;
  double tol = opt->tol;
  size_t m = st->m;

  double psi = objective (R, link, st->a, st->u);      /* cold: a = 0 */
  if (warm_rows (warm, R, st->bb))
    {
      double psi_warm = objective (R, link, st->bb, st->u_try);
      if (psi_warm > psi)
        {
          memcpy (st->a, st->bb, m * sizeof *st->a);
          memcpy (st->u, st->u_try, m * sizeof *st->u);
          psi = psi_warm;
        }
    }
  int converged = m == 0;
  for (size_t it = 1; !converged && it <= max_iter; it++)
    {
      int status = sg_progress_report (progress, (double) it / (double) max_iter);
      double change = 0, umax = 0;
      if (status == SG_OK)
        status = newton_step (R, link, &psi, &change, st);
      if (status != SG_OK)
        return status;
      for (size_t k = 0; k < m; k++)
        umax = fabs (st->u[k]) > umax ? fabs (st->u[k]) : umax;
      converged = change <= tol * (1 + umax);
      st->iterations = it;
    }
  if (!converged)
    return SG_ENUMERIC;
  int status = factor_at (R, link, st);
  if (status != SG_OK)
    return status;
  double quad = 0;
  for (size_t k = 0; k < m; k++)
    quad += st->a[k] * st->u[k];
  double ll = row_terms (R, link, st->u, NULL, NULL, NULL);
  st->log_evidence = R->log_evidence_numeric + ll - 0.5 * quad
                     - 0.5 * sg_cholesky_logdet (st->L, m);
  return isfinite (st->log_evidence) ? SG_OK : SG_ENUMERIC;
}

static int
store_warm (sg_laplace_warm *warm, const sg_rows *R, const mode_state *st)
{
  if (warm == NULL)
    return SG_OK;
  double *alpha = realloc (warm->alpha, (R->m + 1) * sizeof *alpha);
  if (alpha == NULL)
    return SG_ENOMEM;
  memcpy (alpha, st->a, R->m * sizeof *alpha);
  warm->alpha = alpha;
  warm->m_probit = R->m;
  return SG_OK;
}

/* Builds the rows and runs Newton: the part both entry points share. */
static int
laplace_run (const sg_approx_model *model, const sg_data *data,
             const sg_laplace_options *opt_in, const sg_progress *progress,
             const sg_laplace_warm *warm, sg_rows *R, mode_state *st)
{
  sg_laplace_options opt;
  if (opt_in != NULL)
    opt = *opt_in;
  else
    sg_laplace_options_default (&opt);
  if (opt.max_iter == 0 || !(opt.tol > 0))
    return SG_EINVAL;
  int status = sg_rows_build (model, data, R);
  if (status != SG_OK)
    return status;
  status = mode_state_init (st, R->m);
  if (status == SG_OK)
    status = find_mode (R, model->link, &opt, progress, warm, st);
  if (status != SG_OK)
    {
      mode_state_clear (st);
      sg_rows_clear (R);
    }
  return status;
}

sg_status
sg_laplace_posterior (const sg_approx_model *model, const sg_data *data,
                      const sg_laplace_options *opt,
                      const sg_progress *progress, sg_laplace_warm *warm,
                      sg_gauss_post *post)
{
  if (post == NULL)
    return SG_EINVAL;
  sg_rows R;
  mode_state st;
  int status = laplace_run (model, data, opt, progress, warm, &R, &st);
  if (status != SG_OK)
    return status;
  /* R&W alg. 3.2: the predictive mean uses grad log p(y | u) at the mode */
  sg_gauss_post P;
  status = sg_gauss_post_set (&P, model, &R, st.s, st.L, st.d1,
                              st.log_evidence, st.iterations);
  if (status == SG_OK)
    status = store_warm (warm, &R, &st);
  if (status == SG_OK)
    *post = P;
  else
    sg_gauss_post_clear (&P);
  mode_state_clear (&st);
  sg_rows_clear (&R);
  return status;
}

/* d log q / d b: the mode moves with the prior mean b of the rows too.
 * Explicitly log p(y|u + b) gives l'; through the mode, the log-determinant
 * term gives s2 (I + Kt D)^{-1} = s2 (I - Kt Rp), since the mode condition
 * u = Kt l'(u + b) implies d(u + b) = (I + Kt D)^{-1} db. */
static void
mean_gradient (const sg_rows *R, const double *d1, const double *Rp,
               const double *s2, double *gb, double *work)
{
  size_t m = R->m;
  sg_gemv (0, m, m, 1.0, R->Kt, s2, 0.0, work);
  sg_gemv (0, m, m, 1.0, Rp, work, 0.0, gb);
  for (size_t k = 0; k < m; k++)
    gb[k] = d1[k] + s2[k] - gb[k];
}

typedef struct {
  double *Rp, *Sigma, *dKt, *db, *s2, *gb, *bj, *rb;
  sg_rows_grad_work *prior;
} grad_work;

static void
grad_work_clear (grad_work *g)
{
  free (g->Rp);
  free (g->Sigma);
  free (g->dKt);
  free (g->db);
  free (g->s2);
  free (g->gb);
  free (g->bj);
  free (g->rb);
  sg_rows_grad_work_free (g->prior);
}

static int
grad_work_init (grad_work *g, const sg_rows *R)
{
  size_t m = R->m;
  memset (g, 0, sizeof *g);
  g->Rp = calloc (m * m + 1, sizeof (double));
  g->Sigma = calloc (m * m + 1, sizeof (double));
  g->dKt = calloc (m * m + 1, sizeof (double));
  g->db = calloc (m + 1, sizeof (double));
  g->s2 = calloc (m + 1, sizeof (double));
  g->gb = calloc (m + 1, sizeof (double));
  g->bj = calloc (m + 1, sizeof (double));
  g->rb = calloc (m + 1, sizeof (double));
  int status = g->Rp && g->Sigma && g->dKt && g->db && g->s2 && g->gb
               && g->bj && g->rb ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_rows_grad_work_new (R, &g->prior);
  if (status != SG_OK)
    grad_work_clear (g);
  return status;
}

/* R&W alg. 5.1 lines 7-15 at the mode held in ST, plus the numeric
 * evidence and the dependence on the conditioned prior mean b. */
static int
evidence_gradient (const sg_rows *R, const sg_kernel *kernel,
                   const mode_state *st, double *grad)
{
  size_t m = R->m, np = sg_kernel_n_params (kernel);
  grad_work g;
  int status = grad_work_init (&g, R);
  if (status != SG_OK)
    return status;
  sg_rows_prec_term (R, st->s, st->L, g.Rp);
  status = sg_rows_posterior_cov (R, st->s, st->L, g.Sigma);
  /* s2 = d log q / d u at fixed Kt: only -log|B| / 2 moves with the mode,
   * through D = -l'', so s2_k = +Sigma_kk l'''_k / 2. (Line 9 of the book
   * prints -1/2; GPML's infLaplace and sklearn use +1/2, and the
   * finite-difference test agrees.) */
  for (size_t k = 0; status == SG_OK && k < m; k++)
    g.s2[k] = 0.5 * g.Sigma[k * m + k] * st->d3[k];
  if (status == SG_OK)
    mean_gradient (R, st->d1, g.Rp, g.s2, g.gb, g.bj);
  for (size_t p = 0; status == SG_OK && p < np; p++)
    {
      double dnum;
      status = sg_rows_prior_grad (R, kernel, p, g.prior, g.dKt, g.db, &dnum);
      if (status != SG_OK)
        break;
      double s1 = sg_rows_explicit_grad (R, st->d1, g.Rp, g.dKt);
      /* s3 = b - Kt Rp b, b = dKt grad log p: the mode's own derivative */
      sg_gemv (0, m, m, 1.0, g.dKt, st->d1, 0.0, g.bj);
      sg_gemv (0, m, m, 1.0, g.Rp, g.bj, 0.0, g.rb);
      sg_gemv (0, m, m, -1.0, R->Kt, g.rb, 1.0, g.bj);
      double implicit = 0, through_mean = 0;
      for (size_t k = 0; k < m; k++)
        {
          implicit += g.s2[k] * g.bj[k];
          through_mean += g.gb[k] * g.db[k];
        }
      grad[p] = dnum + s1 + implicit + through_mean;
    }
  grad_work_clear (&g);
  return status;
}

sg_status
sg_laplace_log_evidence (const sg_approx_model *model, const sg_data *data,
                         const sg_laplace_options *opt,
                         const sg_progress *progress, sg_laplace_warm *warm,
                         double *log_evidence, double *grad)
{
  if (log_evidence == NULL)
    return SG_EINVAL;
  sg_rows R;
  mode_state st;
  int status = laplace_run (model, data, opt, progress, warm, &R, &st);
  if (status != SG_OK)
    return status;
  size_t np = sg_kernel_n_params (&model->kernel);
  double *g = grad ? malloc (np * sizeof *g) : NULL;
  if (grad)
    status = g ? evidence_gradient (&R, &model->kernel, &st, g) : SG_ENOMEM;
  if (status == SG_OK)
    status = store_warm (warm, &R, &st);
  if (status == SG_OK)
    {
      *log_evidence = st.log_evidence;
      if (grad)
        memcpy (grad, g, np * sizeof *grad);
    }
  free (g);
  mode_state_clear (&st);
  sg_rows_clear (&R);
  return status;
}
