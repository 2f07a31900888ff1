/* sg-ep.c — expectation propagation in the row space
 * (Rasmussen & Williams 2006, algorithms 3.5, 3.6; eqs. 3.56-3.59, 3.65,
 * 5.27). See sg-ep.h for the formulas.
 */
#include "sg-ep.h"
#include "sg-gaussian-post-private.h"
#include "sg-linalg.h"
#include "sg-normal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_SWEEPS 200
#define DEFAULT_TOL 1e-9

void
sg_ep_warm_clear (sg_ep_warm *warm)
{
  free (warm->tau);
  free (warm->nu);
  memset (warm, 0, sizeof *warm);
}

typedef struct {
  size_t m;
  double *tau, *nu;      /* sites */
  double *s, *L;         /* s = sqrt(tau), L = chol(I + s Kt s) */
  double *Sigma, *mu;    /* posterior of u */
  double *col;           /* scratch column */
  size_t sweeps;
  double log_evidence;
} ep_state;

static void
ep_state_clear (ep_state *st)
{
  free (st->tau);
  free (st->nu);
  free (st->s);
  free (st->L);
  free (st->Sigma);
  free (st->mu);
  free (st->col);
  memset (st, 0, sizeof *st);
}

static int
ep_state_init (ep_state *st, size_t m)
{
  memset (st, 0, sizeof *st);
  st->m = m;
  st->tau = calloc (m + 1, sizeof (double));
  st->nu = calloc (m + 1, sizeof (double));
  st->s = calloc (m + 1, sizeof (double));
  st->mu = calloc (m + 1, sizeof (double));
  st->col = calloc (m + 1, sizeof (double));
  st->L = calloc (m * m + 1, sizeof (double));
  st->Sigma = calloc (m * m + 1, sizeof (double));
  if (!st->tau || !st->nu || !st->s || !st->mu || !st->col || !st->L
      || !st->Sigma)
    {
      ep_state_clear (st);
      return SG_ENOMEM;
    }
  return SG_OK;
}

/* The warm start's shared prefix of sites, or zero (the site that does
 * nothing). */
static void
init_sites (const sg_rows *R, const sg_ep_warm *warm, ep_state *st)
{
  memset (st->tau, 0, R->m * sizeof *st->tau);
  memset (st->nu, 0, R->m * sizeof *st->nu);
  if (warm && warm->tau && warm->nu)
    {
      size_t np = warm->m_probit < R->m ? warm->m_probit : R->m;
      memcpy (st->tau, warm->tau, np * sizeof *st->tau);
      memcpy (st->nu, warm->nu, np * sizeof *st->nu);
    }
}

/* Sigma = (Kt^{-1} + diag tau)^{-1}, mu = Sigma nu from the sites
 * (R&W alg. 3.5 lines 11-13: refreshes the accumulated rank-one updates). */
static int
recompute_posterior (const sg_rows *R, ep_state *st)
{
  size_t m = st->m;
  for (size_t k = 0; k < m; k++)
    st->s[k] = sqrt (st->tau[k] > 0 ? st->tau[k] : 0);
  int status = sg_rows_factor (R, st->s, st->L);
  if (status == SG_OK)
    status = sg_rows_posterior_cov (R, st->s, st->L, st->Sigma);
  if (status != SG_OK)
    return status;
  sg_gemv (0, m, m, 1.0, st->Sigma, st->nu, 0.0, st->mu);
  return sg_all_finite (st->mu, m) ? SG_OK : SG_ENUMERIC;
}

/* Cavity of row k (R&W eq. 3.56); 0 when it is degenerate. */
static int
cavity (const ep_state *st, size_t k, double *mc, double *vc)
{
  double Skk = st->Sigma[k * st->m + k];
  double tau_c = 1 / Skk - st->tau[k];
  if (!(Skk > 0) || !(tau_c > 0) || !isfinite (tau_c))
    return 0;
  *vc = 1 / tau_c;
  *mc = (st->mu[k] / Skk - st->nu[k]) * *vc;
  return 1;
}

/* Moment matching of one probit site and the rank-one update of Sigma
 * (R&W alg. 3.5 lines 5-10). Returns the relative change of the site. */
static double
update_site (const sg_rows *R, ep_state *st, size_t k, double damping)
{
  size_t m = st->m;
  double mc, vc;
  if (!cavity (st, k, &mc, &vc))
    return 0;   /* no information reaches this row; leave its site */
  double sig2 = R->sigma[k] * R->sigma[k], sd = sqrt (sig2 + vc);
  double x = (R->b[k] + mc) / sd, h = sg_norm_hazard (x), g = h * (x + h);
  g = g < 0 ? 0 : (g > 1 ? 1 : g);
  double tau_new = g / (sig2 + vc * (1 - g));
  double nu_new = tau_new * mc + (1 + tau_new * vc) * h / sd;
  tau_new = damping * tau_new + (1 - damping) * st->tau[k];
  nu_new = damping * nu_new + (1 - damping) * st->nu[k];
  if (tau_new < 0)
    tau_new = 0;
  double dtau = tau_new - st->tau[k], dnu = nu_new - st->nu[k];
  double change = fmax (fabs (dtau) / (1 + st->tau[k]),
                        fabs (dnu) / (1 + fabs (st->nu[k])));
  /* Sigma <- Sigma - c s_k s_k^T, c = dtau / (1 + dtau Sigma_kk), with
   * s_k = Sigma e_k; then mu = Sigma nu follows in O(m): since
   * s_k^T nu = mu_k,  mu <- mu + s_k (dnu (1 - c Sigma_kk) - c mu_k). */
  double Skk = st->Sigma[k * m + k];
  double c = dtau / (1 + dtau * Skk);
  double coef = dnu * (1 - c * Skk) - c * st->mu[k];
  for (size_t i = 0; i < m; i++)
    st->col[i] = st->Sigma[i * m + k];
  sg_gemm (0, 0, m, m, 1, -c, st->col, st->col, 1.0, st->Sigma);
  for (size_t i = 0; i < m; i++)
    st->mu[i] += coef * st->col[i];
  st->tau[k] = tau_new;
  st->nu[k] = nu_new;
  return change;
}

/* The cavity of row k at convergence: x_k = (b_k + mc) / sd and sd =
 * sqrt(sigma_k^2 + vc), so that Zhat_k = Phi(x_k). An empty site
 * (tau_k = 0) has the posterior marginal as its cavity. 0 if degenerate. */
static int
final_cavity (const sg_rows *R, const ep_state *st, size_t k, double *mc,
              double *vc, double *x, double *sd)
{
  double Skk = st->Sigma[k * st->m + k];
  if (st->tau[k] == 0)
    {
      *mc = st->mu[k];
      *vc = Skk > 0 ? Skk : 0;
    }
  else if (!cavity (st, k, mc, vc))
    return 0;
  *sd = sqrt (R->sigma[k] * R->sigma[k] + *vc);
  *x = (R->b[k] + *mc) / *sd;
  return 1;
}

/* log Z_EP of the converged sites (sg-ep.h; R&W eq. 3.65) plus the exact
 * numeric part. */
static int
ep_evidence (const sg_rows *R, ep_state *st)
{
  size_t m = st->m;
  double sum = R->log_evidence_numeric;
  for (size_t k = 0; k < m; k++)
    {
      double mc, vc, x, sd, Skk = st->Sigma[k * m + k];
      if (!final_cavity (R, st, k, &mc, &vc, &x, &sd))
        return SG_ENUMERIC;
      sum += sg_norm_logcdf (x);
      /* for an empty site C_k = Zhat_k: the other terms cancel */
      if (st->tau[k] != 0)
        sum += 0.5 * log1p (st->tau[k] * vc) - 0.5 * st->mu[k] * st->mu[k] / Skk
               + 0.5 * mc * mc / vc;
    }
  double quad = 0;
  for (size_t k = 0; k < m; k++)
    quad += st->nu[k] * st->mu[k];
  st->log_evidence = sum - 0.5 * sg_cholesky_logdet (st->L, m) + 0.5 * quad;
  return isfinite (st->log_evidence) ? SG_OK : SG_ENUMERIC;
}

static int
run_sweeps (const sg_rows *R, const sg_ep_options *opt,
            const sg_progress *progress, ep_state *st)
{
  size_t max_sweeps = opt->max_sweeps;
  double tol = opt->tol, damping = opt->damping;

  int status = recompute_posterior (R, st);
  int converged = R->m == 0;
  for (size_t sweep = 1; status == SG_OK && !converged && sweep <= max_sweeps; sweep++)
    {
      status = sg_progress_report (progress, (double) sweep / (double) max_sweeps);
      double change = 0;
      for (size_t k = 0; status == SG_OK && k < R->m; k++)
        change = fmax (change, update_site (R, st, k, damping));
      if (status == SG_OK)
        status = recompute_posterior (R, st);
      converged = change < tol;
      st->sweeps = sweep;
    }
  if (status == SG_OK && !converged)
    status = SG_ENUMERIC;
  if (status == SG_OK)
    status = ep_evidence (R, st);
  return status;
}

void
sg_ep_options_default (sg_ep_options *opt)
{
  opt->max_sweeps = DEFAULT_MAX_SWEEPS;
  opt->damping = 1.0;
  opt->tol = DEFAULT_TOL;
}

static int
check_options (const sg_approx_model *model, const sg_ep_options *opt)
{
  if (model == NULL || model->link != SG_LINK_PROBIT)
    return SG_EINVAL;
  if (opt->max_sweeps == 0 || !(opt->damping > 0 && opt->damping <= 1)
      || !(opt->tol > 0))
    return SG_EINVAL;
  return SG_OK;
}

/* Builds the rows and runs EP from the warm start, falling back to a cold
 * start if that does not converge. */
static int
ep_run (const sg_approx_model *model, const sg_data *data,
        const sg_ep_options *opt_in, const sg_progress *progress,
        const sg_ep_warm *warm, sg_rows *R, ep_state *st)
{
  sg_ep_options opt;
  if (opt_in != NULL)
    opt = *opt_in;
  else
    sg_ep_options_default (&opt);
  int status = check_options (model, &opt);
  if (status == SG_OK)
    status = sg_rows_build (model, data, R);
  if (status != SG_OK)
    return status;
  status = ep_state_init (st, R->m);
  if (status == SG_OK)
    {
      init_sites (R, warm, st);
      status = run_sweeps (R, &opt, progress, st);
      if (status == SG_ENUMERIC && warm && warm->tau)
        {
          init_sites (R, NULL, st);
          status = run_sweeps (R, &opt, progress, st);
        }
    }
  if (status != SG_OK)
    {
      ep_state_clear (st);
      sg_rows_clear (R);
    }
  return status;
}

static int
store_warm (sg_ep_warm *warm, const sg_rows *R, const ep_state *st)
{
  if (warm == NULL)
    return SG_OK;
  size_t mp = R->m;
  double *tau = malloc ((mp + 1) * sizeof *tau);
  double *nu = malloc ((mp + 1) * sizeof *nu);
  if (tau == NULL || nu == NULL)
    {
      free (tau);
      free (nu);
      return SG_ENOMEM;
    }
  memcpy (tau, st->tau, mp * sizeof *tau);
  memcpy (nu, st->nu, mp * sizeof *nu);
  sg_ep_warm_clear (warm);
  warm->tau = tau;
  warm->nu = nu;
  warm->m_probit = mp;
  return SG_OK;
}

sg_status
sg_ep_posterior (const sg_approx_model *model, const sg_data *data,
                 const sg_ep_options *opt, const sg_progress *progress,
                 sg_ep_warm *warm, sg_gauss_post *post)
{
  if (post == NULL)
    return SG_EINVAL;
  sg_rows R;
  ep_state st;
  int status = ep_run (model, data, opt, progress, warm, &R, &st);
  if (status != SG_OK)
    return status;
  /* R&W alg. 3.6: the predictive mean is k*^T alpha, alpha = Kt^{-1} mu */
  double *alpha = malloc ((R.m + 1) * sizeof *alpha);
  sg_gauss_post P = { 0 };
  status = alpha ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      sg_rows_alpha (&R, st.s, st.L, st.nu, alpha);
      status = sg_gauss_post_set (&P, model, &R, st.s, st.L, alpha,
                                  st.log_evidence, st.sweeps);
    }
  if (status == SG_OK)
    status = store_warm (warm, &R, &st);
  if (status == SG_OK)
    *post = P;
  else
    sg_gauss_post_clear (&P);
  free (alpha);
  ep_state_clear (&st);
  sg_rows_clear (&R);
  return status;
}

/* R&W eq. 5.27 for every kernel parameter, plus the numeric part and the
 * dependence on the conditioned prior mean b of the probit rows: with the
 * sites at their fixed point only log Zhat_k depends on b_k explicitly,
 * d log Zhat_k / d b_k = h(x_k) / sd_k. */
static int
evidence_gradient (const sg_rows *R, const sg_kernel *kernel,
                   const ep_state *st, double *grad)
{
  size_t m = R->m, np = sg_kernel_n_params (kernel);
  double *alpha = malloc ((m + 1) * sizeof *alpha);
  double *Rp = malloc ((m * m + 1) * sizeof *Rp);
  double *dKt = malloc ((m * m + 1) * sizeof *dKt);
  double *db = malloc ((m + 1) * sizeof *db);
  double *gb = malloc ((m + 1) * sizeof *gb);
  sg_rows_grad_work *work = NULL;
  int status = alpha && Rp && dKt && db && gb ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_rows_grad_work_new (R, &work);
  if (status == SG_OK)
    {
      sg_rows_alpha (R, st->s, st->L, st->nu, alpha);
      sg_rows_prec_term (R, st->s, st->L, Rp);
    }
  for (size_t k = 0; status == SG_OK && k < m; k++)
    {
      double mc, vc, x, sd;
      if (!final_cavity (R, st, k, &mc, &vc, &x, &sd))
        status = SG_ENUMERIC;
      else
        gb[k] = sg_norm_hazard (x) / sd;
    }
  for (size_t p = 0; status == SG_OK && p < np; p++)
    {
      double dnum, through_mean = 0;
      status = sg_rows_prior_grad (R, kernel, p, work, dKt, db, &dnum);
      for (size_t k = 0; k < m; k++)
        through_mean += gb[k] * db[k];
      if (status == SG_OK)
        grad[p] = dnum + sg_rows_explicit_grad (R, alpha, Rp, dKt) + through_mean;
    }
  sg_rows_grad_work_free (work);
  free (alpha);
  free (Rp);
  free (dKt);
  free (db);
  free (gb);
  return status;
}

sg_status
sg_ep_log_evidence (const sg_approx_model *model, const sg_data *data,
                    const sg_ep_options *opt, const sg_progress *progress,
                    sg_ep_warm *warm, double *log_evidence, double *grad)
{
  if (log_evidence == NULL)
    return SG_EINVAL;
  sg_rows R;
  ep_state st;
  int status = ep_run (model, data, opt, progress, warm, &R, &st);
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
  ep_state_clear (&st);
  sg_rows_clear (&R);
  return status;
}
