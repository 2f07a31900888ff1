/* sg-link.c — the integrated squared GP (paper 003) in one dimension:
 * closed-form psi, Laplace inference, predictions. See sg-link.h.
 *
 * Note on 003 Lemma 7: eq. 14 prints the last term of the mean as
 * w^T Sigma_w w^; its own proof (eq. 15) gives tr(psi (Sigma_w + w^ w^T))
 * = tr(psi Sigma_w) + w^T psi w^, which is what is implemented (and
 * checked against the draws in tests/test-link.c).
 */
#include "sg-link.h"

#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-order.h"
#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sg_link_workspace {
  size_t n_max, m;       /* observations, basis size M                     */
  double *psi;           /* n_max x M x M: psi(x_i)                        */
  double *pw;            /* n_max x M: psi(x_i) w                          */
  double *v;             /* n_max x P: d g_i / d Gamma = (2 psi_i w, 1)    */
  double *vs;            /* n_max x P: rows scaled by sqrt(-l''_i)          */
  double *g;             /* n_max: g(x_i)                                  */
  double *d1, *d2;       /* n_max: l'_i, l''_i                             */
  double *s;             /* M x M: sum_i l'_i psi_i                        */
  double *h, *hgn, *l;   /* P x P: exact and Gauss-Newton neg. Hessians, factor */
  double *grad, *step, *cur, *trial;   /* P                                */
};

void
sg_link_prior_default (sg_link_prior *prior)
{
  prior->n_basis = 32;
  prior->a = 1.2;
  prior->slope = 1.0;
  prior->center = 0.0;
  prior->half_width = 1.0;
  prior->mu = 0.0;
  prior->gamma = 1.0;
}

sg_status
sg_link_prior_check (const sg_link_prior *p)
{
  if (p == NULL || p->n_basis < 2 || p->n_basis > SG_LINK_MAX_BASIS || p->n_basis % 2 != 0)
    return SG_EINVAL;
  if (!(p->a > 1.0 && isfinite (p->a)) || !(p->slope > 0.0 && isfinite (p->slope))
      || !isfinite (p->center) || !(p->half_width > 0.0 && isfinite (p->half_width))
      || !isfinite (p->mu) || !(p->gamma > 0.0 && isfinite (p->gamma)))
    return SG_EINVAL;
  return SG_OK;
}

sg_status
sg_link_prior_fit_domain (sg_link_prior *prior, const double *x, size_t n,
                          double center, double margin)
{
  if (n == 0 || x == NULL || !(margin >= 1.0 && isfinite (margin)))
    return SG_EINVAL;
  double lo = x[0], hi = x[0];
  for (size_t i = 0; i < n; i++)
    {
      if (!isfinite (x[i]))
        return SG_EINVAL;
      lo = fmin (lo, x[i]);
      hi = fmax (hi, x[i]);
    }
  if (isnan (center))
    center = 0.5 * (lo + hi);
  if (!isfinite (center))
    return SG_EINVAL;
  double reach = fmax (fabs (hi - center), fabs (lo - center));
  prior->center = center;
  prior->half_width = fmax (margin * reach, 1e-9);
  return SG_OK;
}

/* b from the slope k(0,0) = b (1 - a^{-K}) / (a - 1) (003 eq. 22). */
static double
output_scale (const sg_link_prior *p)
{
  double k = (double) (p->n_basis / 2);
  return p->slope * (p->a - 1.0) / (1.0 - pow (p->a, -k));
}

void
sg_link_eigenvalues (const sg_link_prior *p, double *lambda)
{
  size_t k = p->n_basis / 2;
  double b = output_scale (p);
  for (size_t i = 0; i < k; i++)
    {
      /* 003 eq. 21: (b / a^m, cos(pi m c x)) and (b / a^m, sin(pi m c x)). */
      lambda[i] = b * pow (p->a, -(double) (i + 1));
      lambda[k + i] = lambda[i];
    }
}

void
sg_link_basis (const sg_link_prior *p, double x, double *phi)
{
  size_t k = p->n_basis / 2;
  double theta = M_PI / p->half_width * (x - p->center);
  for (size_t i = 0; i < k; i++)
    {
      phi[i] = cos ((double) (i + 1) * theta);
      phi[k + i] = sin ((double) (i + 1) * theta);
    }
}

void
sg_link_psi (const sg_link_prior *p, double x, double *psi)
{
  size_t k = p->n_basis / 2, m_all = p->n_basis;
  double th = M_PI / p->half_width;   /* pi c */
  double u = x - p->center;
  double sn[SG_LINK_MAX_BASIS / 2], cs[SG_LINK_MAX_BASIS / 2];

  for (size_t i = 0; i < k; i++)
    {
      sn[i] = sin ((double) (i + 1) * th * u);
      cs[i] = cos ((double) (i + 1) * th * u);
    }
  for (size_t i = 0; i < k; i++)
    for (size_t j = 0; j < k; j++)
      {
        double m = (double) (i + 1), n = (double) (j + 1);
        double cc, ss, sc;   /* cos_m cos_n, sin_m sin_n, sin_m cos_n */
        if (i == j)
          {
            double s2 = sin (2.0 * m * th * u) / (4.0 * th * m);
            cc = u / 2.0 + s2;                           /* eq. 37, m = n */
            ss = u / 2.0 - s2;                           /* eq. 36, m = n */
            sc = sn[i] * sn[i] / (2.0 * th * m);         /* eq. 38, m = n */
          }
        else
          {
            double den = th * (m * m - n * n);
            cc = (m * sn[i] * cs[j] - n * cs[i] * sn[j]) / den;        /* eq. 37 */
            ss = (n * sn[i] * cs[j] - m * cs[i] * sn[j]) / den;        /* eq. 36 */
            sc = (-n * sn[i] * sn[j] - m * cs[i] * cs[j] + m) / den;   /* eq. 38 */
          }
        /* cos-cos and sin-sin blocks: computed for j <= i, mirrored, so
         * psi is exactly symmetric. */
        if (j <= i)
          {
            psi[i * m_all + j] = psi[j * m_all + i] = cc;
            psi[(k + i) * m_all + (k + j)] = psi[(k + j) * m_all + (k + i)] = ss;
          }
        /* Row sin_m, column cos_n, and its mirror (psi is symmetric). */
        psi[(k + i) * m_all + j] = sc;
        psi[j * m_all + (k + i)] = sc;
      }
}

double
sg_link_squash (sg_link squash, double g)
{
  if (squash == SG_LINK_LOGISTIC)
    return g >= 0 ? 1.0 / (1.0 + exp (-g)) : exp (g) / (1.0 + exp (g));
  return sg_norm_cdf (g);
}

void
sg_link_options_default (sg_link_options *opt)
{
  opt->max_iter = 200;
  opt->tol = 1e-12;
}

/* ---- Workspace ----------------------------------------------------------- */

sg_link_workspace *
sg_link_workspace_new (size_t n_max, size_t n_basis)
{
  if (n_max == 0 || n_basis < 2 || n_basis > SG_LINK_MAX_BASIS || n_basis % 2)
    return NULL;
  size_t m = n_basis, p = m + 1;
  if (n_max > SIZE_MAX / (m * m * sizeof (double)))
    return NULL;
  sg_link_workspace *ws = calloc (1, sizeof *ws);
  if (ws == NULL)
    return NULL;
  ws->n_max = n_max;
  ws->m = m;
  ws->psi = malloc (n_max * m * m * sizeof (double));
  ws->pw = malloc (n_max * m * sizeof (double));
  ws->v = malloc (n_max * p * sizeof (double));
  ws->vs = malloc (n_max * p * sizeof (double));
  ws->g = malloc (n_max * sizeof (double));
  ws->d1 = malloc (n_max * sizeof (double));
  ws->d2 = malloc (n_max * sizeof (double));
  ws->s = malloc (m * m * sizeof (double));
  ws->h = malloc (p * p * sizeof (double));
  ws->hgn = malloc (p * p * sizeof (double));
  ws->l = malloc (p * p * sizeof (double));
  ws->grad = malloc (4 * p * sizeof (double));
  if (!ws->psi || !ws->pw || !ws->v || !ws->vs || !ws->g || !ws->d1 || !ws->d2
      || !ws->s || !ws->h || !ws->hgn || !ws->l || !ws->grad)
    {
      sg_link_workspace_free (ws);
      return NULL;
    }
  ws->step = ws->grad + p;
  ws->cur = ws->grad + 2 * p;
  ws->trial = ws->grad + 3 * p;
  return ws;
}

void
sg_link_workspace_free (sg_link_workspace *ws)
{
  if (ws == NULL)
    return;
  free (ws->psi);
  free (ws->pw);
  free (ws->v);
  free (ws->vs);
  free (ws->g);
  free (ws->d1);
  free (ws->d2);
  free (ws->s);
  free (ws->h);
  free (ws->hgn);
  free (ws->l);
  free (ws->grad);
  free (ws);
}

/* ---- Likelihood terms ------------------------------------------------------ */

/* log p(y | g) and its first two derivatives in g (003 eqs. 31-33). All
 * three likelihoods are log-concave in g, so D2 <= 0. */
static double
log_lik (const sg_link_likelihood *lik, double y, double g, double *d1, double *d2)
{
  if (lik->kind == SG_LINK_OBS_GAUSSIAN)
    {
      double prec = 1.0 / (lik->noise_sd * lik->noise_sd), r = y - g;
      *d1 = prec * r;
      *d2 = -prec;
      return -0.5 * log (2.0 * M_PI) + 0.5 * log (prec) - 0.5 * prec * r * r;
    }
  double s = y > 0.5 ? 1.0 : -1.0, t = s * g;
  if (lik->squash == SG_LINK_LOGISTIC)
    {
      double p = sg_link_squash (SG_LINK_LOGISTIC, g);
      *d1 = (y > 0.5 ? 1.0 : 0.0) - p;
      *d2 = -p * (1.0 - p);
      /* log sigma(t), without overflow for either sign of t */
      return t > 0 ? -log1p (exp (-t)) : t - log1p (exp (t));
    }
  double hz = sg_norm_hazard (t);   /* phi(t) / Phi(t) */
  *d1 = s * hz;
  *d2 = -hz * (t + hz);
  return sg_norm_logcdf (t);
}

/* log N(w; 0, Lambda) + log N(g0; mu, 1/gamma) at GAMMA = (w, g0). */
static double
log_prior (const sg_link_prior *p, const double *lambda, const double *gam)
{
  size_t m = p->n_basis;
  double lp = 0.0;
  for (size_t i = 0; i < m; i++)
    lp -= 0.5 * (gam[i] * gam[i] / lambda[i] + log (2.0 * M_PI * lambda[i]));
  double r = gam[m] - p->mu;
  lp -= 0.5 * (p->gamma * r * r - log (p->gamma) + log (2.0 * M_PI));
  return lp;
}

/* The log posterior F at GAM; fills ws->pw, g, d1, d2 for it. */
static double
objective (sg_link_workspace *ws, const sg_link_prior *p, const double *lambda,
           const sg_link_likelihood *lik, const double *y, size_t n,
           const double *gam)
{
  size_t m = p->n_basis;
  /* psi_i w for every i at once: the n psi's stacked as an (n M) x M matrix. */
  sg_gemv (0, n * m, m, 1.0, ws->psi, gam, 0.0, ws->pw);
  /* w^T psi_i w = (psi_i w) . w */
  sg_gemv (0, n, m, 1.0, ws->pw, gam, 0.0, ws->g);
  double f = log_prior (p, lambda, gam);
  for (size_t i = 0; i < n; i++)
    {
      ws->g[i] += gam[m];
      f += log_lik (lik, y[i], ws->g[i], &ws->d1[i], &ws->d2[i]);
    }
  return f;
}

/* Gradient and the negative Hessians of F at the point objective() saw.
 * g_i = g0 + w^T psi_i w has gradient v_i = (2 psi_i w, 1) and Hessian
 * diag(2 psi_i, 0), so with l_i = log p(y_i | g_i)
 *   grad  = sum_i l'_i v_i - (Lambda^{-1} w, gamma (g0 - mu)),
 *   H_gn  = sum_i (-l''_i) v_i v_i^T + diag(Lambda^{-1}, gamma),
 *   H     = H_gn - 2 sum_i l'_i diag(psi_i, 0)     (003 eq. 13). */
static void
derivatives (sg_link_workspace *ws, const sg_link_prior *p, const double *lambda,
             size_t n, const double *gam)
{
  size_t m = p->n_basis, np = m + 1;

  for (size_t i = 0; i < n; i++)
    {
      double sq = sqrt (fmax (-ws->d2[i], 0.0));
      for (size_t j = 0; j < m; j++)
        {
          ws->v[i * np + j] = 2.0 * ws->pw[i * m + j];
          ws->vs[i * np + j] = sq * ws->v[i * np + j];
        }
      ws->v[i * np + m] = 1.0;
      ws->vs[i * np + m] = sq;
    }
  sg_gemv (1, n, np, 1.0, ws->v, ws->d1, 0.0, ws->grad);
  for (size_t j = 0; j < m; j++)
    ws->grad[j] -= gam[j] / lambda[j];
  ws->grad[m] -= p->gamma * (gam[m] - p->mu);

  sg_gemm (1, 0, np, np, n, 1.0, ws->vs, ws->vs, 0.0, ws->hgn);
  for (size_t j = 0; j < m; j++)
    ws->hgn[j * np + j] += 1.0 / lambda[j];
  ws->hgn[m * np + m] += p->gamma;

  /* S = sum_i l'_i psi_i: the stacked psi's as an n x M^2 matrix. */
  sg_gemv (1, n, m * m, 1.0, ws->psi, ws->d1, 0.0, ws->s);
  memcpy (ws->h, ws->hgn, np * np * sizeof (double));
  for (size_t a = 0; a < m; a++)
    for (size_t b = 0; b < m; b++)
      ws->h[a * np + b] -= 2.0 * ws->s[a * m + b];
  sg_symmetrize (ws->h, np);
  sg_symmetrize (ws->hgn, np);
}

/* The start: a ridge fit of h = w^T phi to the constant sqrt(slope) on a
 * grid over the inputs' range, so g starts near the prior mean line
 * mu + slope (x - x0) there (w = 0 is a stationary point of F). */
static int
start_point (const sg_link_prior *p, const double *lambda, const sg_link_likelihood *lik,
             const double *x, const double *y, size_t n, sg_link_workspace *ws,
             double *gam)
{
  size_t m = p->n_basis, nj = 4 * m;
  double lo = x[0], hi = x[0];
  for (size_t i = 1; i < n; i++)
    {
      lo = fmin (lo, x[i]);
      hi = fmax (hi, x[i]);
    }
  if (hi - lo < 1e-3 * p->half_width)
    {
      lo = p->center - 0.5 * p->half_width;
      hi = p->center + 0.5 * p->half_width;
    }
  double *phi = malloc (nj * m * sizeof (double));
  if (phi == NULL)
    return SG_ENOMEM;
  for (size_t j = 0; j < nj; j++)
    sg_link_basis (p, lo + (hi - lo) * (double) j / (double) (nj - 1), phi + j * m);
  /* (Phi^T Phi + rho Lambda^{-1}) w = Phi^T 1 sqrt(slope), rho = 1e-2. */
  double *a = ws->hgn, *rhs = ws->step;
  sg_gemm (1, 0, m, m, nj, 1.0, phi, phi, 0.0, a);
  for (size_t i = 0; i < m; i++)
    {
      a[i * m + i] += 1e-2 / lambda[i];
      rhs[i] = 0.0;
      for (size_t j = 0; j < nj; j++)
        rhs[i] += phi[j * m + i];
      rhs[i] *= sqrt (p->slope);
    }
  free (phi);
  int status = sg_cholesky (a, m, SG_CHOLESKY_MAX_JITTER, ws->l, NULL);
  if (status != SG_OK)
    return SG_ENUMERIC;
  sg_cholesky_solve (ws->l, m, rhs, 1);
  memcpy (gam, rhs, m * sizeof (double));
  gam[m] = p->mu;
  if (lik->kind == SG_LINK_OBS_GAUSSIAN)
    {
      /* g0 so that the start passes through the data on average. */
      double acc = 0.0;
      gam[m] = 0.0;
      (void) objective (ws, p, lambda, lik, y, n, gam);
      for (size_t i = 0; i < n; i++)
        acc += y[i] - ws->g[i];
      gam[m] = acc / (double) n;
    }
  return SG_OK;
}

static int
check_inputs (const sg_link_prior *p, const sg_link_likelihood *lik, const double *x,
              const double *y, size_t n, const sg_link_workspace *ws)
{
  if (sg_link_prior_check (p) != SG_OK || lik == NULL || x == NULL || y == NULL
      || n == 0 || ws == NULL || n > ws->n_max || ws->m != p->n_basis)
    return SG_EINVAL;
  if (lik->kind == SG_LINK_OBS_GAUSSIAN)
    {
      if (!(lik->noise_sd > 0.0 && isfinite (lik->noise_sd)))
        return SG_EINVAL;
    }
  else if (lik->kind != SG_LINK_OBS_BINARY
           || (lik->squash != SG_LINK_PROBIT && lik->squash != SG_LINK_LOGISTIC))
    return SG_EINVAL;
  double reach = p->half_width * (1.0 + 1e-12);
  for (size_t i = 0; i < n; i++)
    {
      if (!isfinite (x[i]) || !isfinite (y[i]) || fabs (x[i] - p->center) > reach)
        return SG_EINVAL;
      if (lik->kind == SG_LINK_OBS_BINARY && y[i] != 0.0 && y[i] != 1.0)
        return SG_EINVAL;
    }
  return SG_OK;
}

/* Armijo backtracking along ws->step from ws->cur (value F); on success
 * ws->cur holds the new point and the return value is its F; NAN if no
 * step length down to 2^-60 increases F. */
static double
line_search (sg_link_workspace *ws, const sg_link_prior *p, const double *lambda,
             const sg_link_likelihood *lik, const double *y, size_t n, double f,
             double decrement)
{
  size_t np = p->n_basis + 1;
  double t = 1.0;
  for (int k = 0; k < 60; k++, t *= 0.5)
    {
      for (size_t j = 0; j < np; j++)
        ws->trial[j] = ws->cur[j] + t * ws->step[j];
      double ft = objective (ws, p, lambda, lik, y, n, ws->trial);
      if (isfinite (ft) && ft >= f + 1e-4 * t * decrement)
        {
          memcpy (ws->cur, ws->trial, np * sizeof (double));
          return ft;
        }
    }
  return NAN;
}

sg_status
sg_link_fit_laplace (const sg_link_prior *prior, const sg_link_likelihood *lik,
                     const double *x, const double *y, size_t n,
                     const sg_link_options *opt, const sg_progress *progress,
                     sg_link_workspace *ws, sg_link_fit *fit)
{
  int status = check_inputs (prior, lik, x, y, n, ws);
  if (status != SG_OK || fit == NULL)
    return SG_EINVAL;
  sg_link_options o;
  if (opt != NULL)
    o = *opt;
  else
    sg_link_options_default (&o);
  if (o.max_iter == 0 || !(o.tol > 0))
    return SG_EINVAL;

  size_t m = prior->n_basis, np = m + 1;
  double lambda[SG_LINK_MAX_BASIS];
  sg_link_eigenvalues (prior, lambda);
  for (size_t i = 0; i < n; i++)
    sg_link_psi (prior, x[i], ws->psi + i * m * m);

  status = start_point (prior, lambda, lik, x, y, n, ws, ws->cur);
  if (status != SG_OK)
    return status;
  double f = objective (ws, prior, lambda, lik, y, n, ws->cur);
  if (!isfinite (f))
    return SG_ENUMERIC;

  size_t it, n_gn = 0;
  int converged = 0;
  for (it = 0; it < o.max_iter; it++)
    {
      if (sg_progress_report (progress, (double) it / (double) o.max_iter) != SG_OK)
        return SG_ECANCELLED;
      derivatives (ws, prior, lambda, n, ws->cur);
      int exact = sg_cholesky (ws->h, np, 1e-300, ws->l, NULL) == SG_OK;
      if (!exact)
        {
          /* Away from the mode the exact Hessian can be indefinite (the
           * l'_i psi_i term); the Gauss-Newton matrix still gives an
           * ascent direction. */
          if (sg_cholesky (ws->hgn, np, SG_CHOLESKY_MAX_JITTER, ws->l, NULL) != SG_OK)
            return SG_ENUMERIC;
          n_gn++;
        }
      memcpy (ws->step, ws->grad, np * sizeof (double));
      sg_cholesky_solve (ws->l, np, ws->step, 1);
      double dec = 0.0;
      for (size_t j = 0; j < np; j++)
        dec += ws->grad[j] * ws->step[j];
      if (!isfinite (dec))
        return SG_ENUMERIC;
      if (exact && 0.5 * dec <= o.tol * (1.0 + fabs (f)))
        {
          converged = 1;
          break;
        }
      double fn = line_search (ws, prior, lambda, lik, y, n, f, dec);
      if (isnan (fn))
        {
          /* No step increases F: at a maximum up to rounding if the
           * predicted gain is at the round-off level of F. */
          converged = exact && 0.5 * dec <= 1e-9 * (1.0 + fabs (f));
          break;
        }
      f = fn;
    }
  if (!converged)
    return SG_ENUMERIC;

  /* The Laplace Gaussian at the mode (003 eq. 13) and the evidence (eq. 28). */
  f = objective (ws, prior, lambda, lik, y, n, ws->cur);
  derivatives (ws, prior, lambda, n, ws->cur);
  if (sg_cholesky (ws->h, np, 1e-300, ws->l, NULL) != SG_OK)
    return SG_ENUMERIC;
  double cov[SG_LINK_MAX_PARAMS * SG_LINK_MAX_PARAMS];
  if (sg_cholesky_inverse (ws->l, np, cov) != SG_OK)
    return SG_ENUMERIC;

  fit->prior = *prior;
  fit->lik = *lik;
  fit->n = n;
  fit->n_params = np;
  memcpy (fit->mode, ws->cur, np * sizeof (double));
  memcpy (fit->cov, cov, np * np * sizeof (double));
  memcpy (fit->hess_chol, ws->l, np * np * sizeof (double));
  fit->log_joint = f;
  fit->log_evidence = f - 0.5 * sg_cholesky_logdet (ws->l, np)
                      + 0.5 * (double) np * log (2.0 * M_PI);
  fit->n_iter = it;
  fit->n_gauss_newton = n_gn;
  return SG_OK;
}

/* ---- Predictions ------------------------------------------------------------ */

double
sg_link_mode_value (const sg_link_fit *fit, double x)
{
  size_t m = fit->prior.n_basis;
  double psi[SG_LINK_MAX_BASIS * SG_LINK_MAX_BASIS], pw[SG_LINK_MAX_BASIS];
  sg_link_psi (&fit->prior, x, psi);
  sg_gemv (0, m, m, 1.0, psi, fit->mode, 0.0, pw);
  double q = 0.0;
  for (size_t j = 0; j < m; j++)
    q += pw[j] * fit->mode[j];
  return fit->mode[m] + q;
}

void
sg_link_moments (const sg_link_fit *fit, double x, double *mean, double *var)
{
  size_t m = fit->prior.n_basis, np = m + 1;
  const double *w = fit->mode, *s = fit->cov;   /* S_ww: the top-left block */
  double psi[SG_LINK_MAX_BASIS * SG_LINK_MAX_BASIS];
  double a[SG_LINK_MAX_BASIS * SG_LINK_MAX_BASIS];
  double v[SG_LINK_MAX_BASIS], u[SG_LINK_MAX_BASIS];

  sg_link_psi (&fit->prior, x, psi);
  /* A = psi S_ww; tr(psi S_ww) = tr A; tr((psi S_ww)^2) = sum_ij A_ij A_ji. */
  sg_gemm_ld (0, 0, m, m, m, 1.0, psi, m, s, np, 0.0, a, m);
  sg_gemv (0, m, m, 1.0, psi, w, 0.0, v);          /* v = psi w^ */
  sg_gemv_ld (0, m, m, 1.0, s, np, v, 0.0, u);     /* u = S_ww psi w^ */
  double tr = 0.0, tr2 = 0.0, wpw = 0.0, vsv = 0.0, cross = 0.0;
  for (size_t i = 0; i < m; i++)
    {
      tr += a[i * m + i];
      for (size_t j = 0; j < m; j++)
        tr2 += a[i * m + j] * a[j * m + i];
      wpw += w[i] * v[i];
      vsv += v[i] * u[i];
      cross += s[m * np + i] * v[i];               /* S_0w psi w^ */
    }
  if (mean)
    *mean = w[m] + tr + wpw;                       /* 003 eq. 14-15 */
  if (var)
    *var = fmax (s[m * np + m] + 2.0 * tr2 + 4.0 * vsv + 4.0 * cross, 0.0);
}

/* Linear interpolation between order statistics of the sorted A (n). */
static double
sorted_quantile (const double *a, size_t n, double p)
{
  double h = p * (double) (n - 1);
  size_t lo = (size_t) floor (h);
  if (lo + 1 >= n)
    return a[n - 1];
  return a[lo] + (h - (double) lo) * (a[lo + 1] - a[lo]);
}

sg_status
sg_link_predict (const sg_link_fit *fit, const double *x, size_t k, size_t n_draws,
                 double level, gsl_rng *rng, const sg_progress *progress,
                 sg_link_point *out, double *draws)
{
  if (fit == NULL || x == NULL || out == NULL || k == 0
      || (n_draws > 0 && (rng == NULL || !(level > 0.0 && level < 1.0))))
    return SG_EINVAL;
  for (size_t i = 0; i < k; i++)
    if (!isfinite (x[i]))
      return SG_EINVAL;
  size_t m = fit->prior.n_basis, np = m + 1, ns = n_draws;
  int binary = fit->lik.kind == SG_LINK_OBS_BINARY;
  double *gam = NULL, *t = NULL, *row = NULL, *tmp = NULL;
  sg_link_point *res = malloc (k * sizeof *res);
  if (res == NULL)
    return SG_ENOMEM;
  if (ns > 0)
    {
      gam = malloc (np * ns * sizeof (double));   /* P x S: the draws of Gamma */
      t = malloc (m * ns * sizeof (double));
      row = malloc (ns * sizeof (double));
      tmp = malloc (m * m * sizeof (double));
      if (!gam || !t || !row || !tmp)
        {
          free (gam), free (t), free (row), free (tmp), free (res);
          return SG_ENOMEM;
        }
      /* Gamma_s = Gamma^ + L^{-T} z_s has covariance (L L^T)^{-1} = H^{-1}. */
      for (size_t i = 0; i < np * ns; i++)
        gam[i] = sg_rng_gaussian (rng);
      sg_trsm_lower_trans (fit->hess_chol, np, gam, ns);
      for (size_t j = 0; j < np; j++)
        for (size_t s = 0; s < ns; s++)
          gam[j * ns + s] += fit->mode[j];
    }

  int status = SG_OK;
  for (size_t i = 0; i < k && status == SG_OK; i++)
    {
      sg_link_point *o = &res[i];
      double var;
      sg_link_moments (fit, x[i], &o->mean, &var);
      o->sd = sqrt (var);
      o->median = o->lower = o->upper = NAN;
      o->prob_mean = o->prob_median = o->prob_lower = o->prob_upper = NAN;
      if (ns == 0)
        continue;
      if (sg_progress_report (progress, (double) i / (double) k) != SG_OK)
        {
          status = SG_ECANCELLED;
          break;
        }
      /* g_s = g0_s + w_s^T psi w_s for all draws: T = psi W (M x S). */
      sg_link_psi (&fit->prior, x[i], tmp);
      sg_gemm (0, 0, m, ns, m, 1.0, tmp, gam, 0.0, t);
      double *g = row, pm = 0.0;
      for (size_t s = 0; s < ns; s++)
        g[s] = gam[m * ns + s];
      for (size_t j = 0; j < m; j++)
        for (size_t s = 0; s < ns; s++)
          g[s] += gam[j * ns + s] * t[j * ns + s];
      if (draws)
        memcpy (draws + i * ns, g, ns * sizeof (double));
      if (binary)
        {
          for (size_t s = 0; s < ns; s++)
            pm += sg_link_squash (fit->lik.squash, g[s]);
          o->prob_mean = pm / (double) ns;
        }
      sg_sort_doubles (g, ns);
      o->median = sorted_quantile (g, ns, 0.5);
      o->lower = sorted_quantile (g, ns, 0.5 * (1.0 - level));
      o->upper = sorted_quantile (g, ns, 0.5 * (1.0 + level));
      if (binary)
        {
          o->prob_median = sg_link_squash (fit->lik.squash, o->median);
          o->prob_lower = sg_link_squash (fit->lik.squash, o->lower);
          o->prob_upper = sg_link_squash (fit->lik.squash, o->upper);
        }
    }
  if (status == SG_OK)
    memcpy (out, res, k * sizeof *res);
  free (gam), free (t), free (row), free (tmp), free (res);
  return status;
}
