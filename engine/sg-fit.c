/* sg-fit.c — hyperparameter fitting: parameter spec, evidence adapters and
 * the multi-start NLopt driver (see sg-fit.h).
 */
#include "sg-fit.h"

#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Value returned to the optimiser at an infeasible point (a Cholesky that
 * fails even with jitter, an evidence that underflows). Finite, so that
 * the quadratic models of BOBYQA stay finite; far above any -log evidence
 * of a data set this engine can handle. */
#define INFEASIBLE_PENALTY 1e10

/* ---- Hyperparameters ---------------------------------------------------- */

void
sg_hyper_skewgp_prior (const sg_hyper *h, sg_skewgp_prior *prior)
{
  memset (prior, 0, sizeof *prior);
  prior->kernel = h->kernel;
  prior->mean = h->mean;
  prior->s = h->s;
  prior->pseudo_points = h->pseudo_points;
  prior->phases = h->phases;
  prior->gamma = h->gamma;
}

void
sg_hyper_approx_model (const sg_hyper *h, sg_link link, sg_approx_model *model)
{
  memset (model, 0, sizeof *model);
  model->kernel = h->kernel;
  model->prior_mean = h->mean;
  model->noise = h->noise;
  model->link = link;
}

/* ---- Parameter spec ----------------------------------------------------- */

static sg_fit_range
range (double lower, double upper)
{
  return (sg_fit_range) { lower, upper };
}

/* The numeric values of DATA (numeric and valid observations): mean and
 * sd (sd 1 and mean 0 when there are fewer than two). */
static void
numeric_scale (const sg_data *data, double *mean, double *sd)
{
  double sum = 0, sum2 = 0;
  size_t count = 0;
  for (size_t k = 0; data && k < data->n_obs; k++)
    if (data->obs[k].kind == SG_OBS_NUMERIC || data->obs[k].kind == SG_OBS_VALID)
      {
        sum += data->obs[k].y;
        count++;
      }
  *mean = count ? sum / (double) count : 0;
  for (size_t k = 0; data && k < data->n_obs; k++)
    if (data->obs[k].kind == SG_OBS_NUMERIC || data->obs[k].kind == SG_OBS_VALID)
      sum2 += (data->obs[k].y - *mean) * (data->obs[k].y - *mean);
  *sd = count > 1 ? sqrt (sum2 / (double) (count - 1)) : 1;
  if (!(*sd > 0))
    *sd = 1;
}

void
sg_fit_spec_clear (sg_fit_spec *spec)
{
  if (spec == NULL)
    return;
  free (spec->lengthscale);
  memset (spec, 0, sizeof *spec);
}

sg_status
sg_fit_spec_default (sg_fit_spec *spec, unsigned free, size_t dim, const sg_data *data)
{
  if (spec == NULL || (free & ~(unsigned) SG_FIT_ALL) != 0 || dim == 0
      || (data && data->dim != dim))
    return SG_EINVAL;
  sg_fit_range *boxes = malloc (2 * dim * sizeof *boxes);
  if (boxes == NULL)
    return SG_ENOMEM;
  memset (spec, 0, sizeof *spec);
  spec->free = free;
  spec->dim = dim;
  spec->lengthscale = boxes;
  spec->pseudo_point = boxes + dim;
  for (size_t j = 0; j < dim; j++)
    {
      double lo = 0, hi = 0;
      if (data && data->n_inputs > 0)
        {
          lo = hi = data->X[j];
          for (size_t i = 1; i < data->n_inputs; i++)
            {
              double v = data->X[i * dim + j];
              lo = v < lo ? v : lo;
              hi = v > hi ? v : hi;
            }
        }
      if (!(hi > lo))
        {
          lo -= 1;
          hi += 1;
        }
      double r = data && data->n_inputs > 1 ? hi - lo : 1;
      spec->lengthscale[j] = range (0.01 * r, 10 * r);
      spec->pseudo_point[j] = range (lo, hi);
    }
  double my, sy;
  numeric_scale (data, &my, &sy);
  spec->variance = range (1e-2 * sy * sy, 1e3 * sy * sy);
  spec->numeric_sd = range (1e-3 * sy, 10 * sy);
  spec->probit_sd = range (1e-2, 1e2);
  spec->mean = range (my - 3 * sy, my + 3 * sy);
  spec->gamma = range (-3, 3);
  spec->tie_margin = range (1e-3, 10);
  spec->side_bias = range (-3, 3);
  spec->weak_scale = range (1, 10);
  spec->strong_scale = range (0.1, 1);
  return SG_OK;
}

static int
range_ok (sg_fit_range r, int scale)
{
  return isfinite (r.lower) && isfinite (r.upper) && r.lower < r.upper
         && (!scale || r.lower > 0);
}

sg_status
sg_fit_spec_check (const sg_fit_spec *spec, const sg_hyper *h)
{
  if (spec == NULL || h == NULL || (spec->free & ~(unsigned) SG_FIT_ALL) != 0
      || sg_kernel_check (&h->kernel) != SG_OK || spec->dim != h->kernel.dim
      || spec->lengthscale == NULL)
    return SG_EINVAL;
  unsigned f = spec->free;
  size_t dim = h->kernel.dim;
  for (size_t j = 0; j < dim; j++)
    if (((f & SG_FIT_LENGTHSCALES) && !range_ok (spec->lengthscale[j], 1))
        || ((f & SG_FIT_PSEUDO_POINTS) && !range_ok (spec->pseudo_point[j], 0)))
      return SG_EINVAL;
  if (((f & SG_FIT_VARIANCE) && !range_ok (spec->variance, 1))
      || ((f & SG_FIT_NUMERIC_SD) && !range_ok (spec->numeric_sd, 1))
      || ((f & SG_FIT_PROBIT_SD) && !range_ok (spec->probit_sd, 1))
      || ((f & SG_FIT_MEAN) && !range_ok (spec->mean, 0))
      || ((f & SG_FIT_GAMMA) && !range_ok (spec->gamma, 0))
      || ((f & SG_FIT_TIE_MARGIN) && !range_ok (spec->tie_margin, 1))
      || ((f & SG_FIT_SIDE_BIAS) && !range_ok (spec->side_bias, 0))
      || ((f & SG_FIT_CONFIDENCE) && (!range_ok (spec->weak_scale, 1)
                                      || !range_ok (spec->strong_scale, 1))))
    return SG_EINVAL;
  if ((f & (SG_FIT_GAMMA | SG_FIT_PSEUDO_POINTS)) && h->s == 0)
    return SG_EINVAL;
  if (h->s > 0 && (h->gamma == NULL || h->pseudo_points == NULL
                   || h->phases == NULL))
    return SG_EINVAL;
  return SG_OK;
}

size_t
sg_fit_spec_n_free (const sg_fit_spec *spec, const sg_hyper *h)
{
  unsigned f = spec->free;
  size_t n = 0;
  n += (f & SG_FIT_LENGTHSCALES) ? h->kernel.dim : 0;
  n += (f & SG_FIT_VARIANCE) ? 1 : 0;
  n += (f & SG_FIT_NUMERIC_SD) ? 1 : 0;
  n += (f & SG_FIT_PROBIT_SD) ? 1 : 0;
  n += (f & SG_FIT_MEAN) ? 1 : 0;
  n += (f & SG_FIT_GAMMA) ? h->s : 0;
  n += (f & SG_FIT_PSEUDO_POINTS) ? h->s * h->kernel.dim : 0;
  n += (f & SG_FIT_TIE_MARGIN) ? 1 : 0;
  n += (f & SG_FIT_SIDE_BIAS) ? 1 : 0;
  n += (f & SG_FIT_CONFIDENCE) ? 2 : 0;
  return n;
}

/* One pass over the free coordinates in their fixed order. For each one,
 * VISIT gets its range (natural units), whether it is a log scale, and a
 * pointer to the value inside H. Pack, unpack and bounds are all this walk. */
typedef void (*coord_visit) (size_t i, sg_fit_range r, int is_log,
                             double *value, void *ctx);

static void
walk_free (const sg_fit_spec *spec, sg_hyper *h, coord_visit visit, void *ctx)
{
  unsigned f = spec->free;
  size_t i = 0, dim = h->kernel.dim;
  if (f & SG_FIT_LENGTHSCALES)
    for (size_t j = 0; j < dim; j++)
      visit (i++, spec->lengthscale[j], 1, &h->kernel.lengthscales[j], ctx);
  if (f & SG_FIT_VARIANCE)
    visit (i++, spec->variance, 1, &h->kernel.variance, ctx);
  if (f & SG_FIT_NUMERIC_SD)
    visit (i++, spec->numeric_sd, 1, &h->noise.numeric_sd, ctx);
  if (f & SG_FIT_PROBIT_SD)
    visit (i++, spec->probit_sd, 1, &h->noise.probit_sd, ctx);
  if (f & SG_FIT_MEAN)
    visit (i++, spec->mean, 0, &h->mean, ctx);
  if (f & SG_FIT_GAMMA)
    for (size_t k = 0; k < h->s; k++)
      visit (i++, spec->gamma, 0, &h->gamma[k], ctx);
  if (f & SG_FIT_PSEUDO_POINTS)
    for (size_t k = 0; k < h->s; k++)
      for (size_t j = 0; j < dim; j++)
        visit (i++, spec->pseudo_point[j], 0, &h->pseudo_points[k * dim + j], ctx);
  if (f & SG_FIT_TIE_MARGIN)
    visit (i++, spec->tie_margin, 1, &h->noise.tie_margin, ctx);
  if (f & SG_FIT_SIDE_BIAS)
    visit (i++, spec->side_bias, 0, &h->noise.side_bias, ctx);
  if (f & SG_FIT_CONFIDENCE)
    {
      visit (i++, spec->weak_scale, 1, &h->noise.weak_scale, ctx);
      visit (i++, spec->strong_scale, 1, &h->noise.strong_scale, ctx);
    }
}

static double
to_coord (double v, int is_log)
{
  return is_log ? log (v) : v;
}

static void
visit_pack (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  double *x = ctx;
  double lo = to_coord (r.lower, is_log), hi = to_coord (r.upper, is_log);
  double v = is_log && !(*value > 0) ? lo : to_coord (*value, is_log);
  x[i] = v < lo ? lo : v > hi ? hi : v;
}

static void
visit_unpack (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  const double *x = ctx;
  *value = is_log ? exp (x[i]) : x[i];
}

typedef struct {
  double *lower, *upper;
} bounds_ctx;

static void
visit_bounds (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  bounds_ctx *b = ctx;
  b->lower[i] = to_coord (r.lower, is_log);
  b->upper[i] = to_coord (r.upper, is_log);
}

void
sg_fit_spec_pack (const sg_fit_spec *spec, const sg_hyper *h, double *x)
{
  /* The walk only reads through the pointers here. */
  walk_free (spec, (sg_hyper *) h, visit_pack, x);
}

void
sg_fit_spec_unpack (const sg_fit_spec *spec, const double *x, sg_hyper *h)
{
  walk_free (spec, h, visit_unpack, (void *) x);
}

void
sg_fit_spec_bounds (const sg_fit_spec *spec, const sg_hyper *h, double *lower,
                    double *upper)
{
  bounds_ctx b = { lower, upper };
  walk_free (spec, (sg_hyper *) h, visit_bounds, &b);
}

/* ---- Evidence adapters -------------------------------------------------- */

void
sg_evidence_ctx_init (sg_evidence_ctx *ctx, sg_fit_method method,
                      const sg_data *data)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->method = method;
  ctx->data = data;
  sg_mvn_options_default (&ctx->mvn);
  ctx->mvn.deterministic = 1;
  ctx->mvn.keep_order = 1;
  ctx->link = SG_LINK_PROBIT;
  sg_laplace_options_default (&ctx->laplace);
  sg_ep_options_default (&ctx->ep);
}

/* 001 eq. 39 through sg_skewgp_log_evidence. The first call through CTX
 * lets sg_mvn choose the variable order; later calls keep it when asked
 * (see sg_evidence_ctx). */
static int
skewgp_evidence (const sg_hyper *h, sg_evidence_ctx *ctx,
                 double *log_evidence, double *error)
{
  sg_mvn_options mvn = ctx->mvn;
  mvn.keep_order = ctx->mvn.keep_order && ctx->calls > 0;
  ctx->calls++;
  sg_likelihood lik;
  int status = sg_likelihood_build (ctx->data, &h->noise, &lik);
  if (status != SG_OK)
    return status;
  sg_skewgp_prior prior;
  sg_hyper_skewgp_prior (h, &prior);
  sg_skewgp_evidence ev;
  status = sg_skewgp_log_evidence (&prior, ctx->data->X, &lik, ctx->workspace,
                                   &mvn, &ev);
  sg_likelihood_clear (&lik);
  if (status != SG_OK)
    return status;
  *log_evidence = ev.log_ml;
  if (error)
    *error = ev.error;
  return SG_OK;
}

/* Laplace (R&W eq. 3.32) and EP (R&W eq. 3.65) evidences of a GP prior. */
static int
gaussian_evidence (const sg_hyper *h, const sg_evidence_ctx *ctx,
                   double *log_evidence, double *error)
{
  if (h->s != 0)
    return SG_EINVAL;
  sg_approx_model model;
  sg_hyper_approx_model (h, ctx->link, &model);
  int status;
  if (ctx->method == SG_FIT_METHOD_LAPLACE)
    {
      status = sg_laplace_log_evidence (&model, ctx->data, &ctx->laplace, NULL,
                                        ctx->laplace_warm, log_evidence, NULL);
    }
  else
    {
      status = sg_ep_log_evidence (&model, ctx->data, &ctx->ep, NULL,
                                   ctx->ep_warm, log_evidence, NULL);
    }
  if (status == SG_OK && error)
    *error = 0;
  return status;
}

sg_status
sg_evidence_eval (const sg_hyper *h, void *user_data, double *log_evidence,
                  double *error)
{
  sg_evidence_ctx *ctx = user_data;
  if (h == NULL || ctx == NULL || ctx->data == NULL || log_evidence == NULL
      || h->kernel.dim != ctx->data->dim)
    return SG_EINVAL;
  switch (ctx->method)
    {
    case SG_FIT_METHOD_SKEWGP:
      return skewgp_evidence (h, ctx, log_evidence, error);
    case SG_FIT_METHOD_LAPLACE:
    case SG_FIT_METHOD_EP:
      return gaussian_evidence (h, ctx, log_evidence, error);
    default:
      return SG_EINVAL;
    }
}

/* ---- The fitter --------------------------------------------------------- */

void
sg_fit_options_default (sg_fit_options *opt)
{
  memset (opt, 0, sizeof *opt);
  opt->n_starts = 4;
  opt->max_evals = 400;
  opt->max_seconds = 0;
  opt->xtol_abs = 1e-3;
  opt->ftol_abs = 1e-4;
  opt->algorithm = SG_FIT_BOBYQA;
}

/* Scratch copy of the caller's hyperparameters with arrays of its own, so
 * the caller's H stays untouched until the fit succeeds. */
static int
hyper_clone (const sg_hyper *src, sg_hyper *dst)
{
  *dst = *src;
  size_t s = src->s, dim = src->kernel.dim;
  dst->pseudo_points = dst->phases = dst->gamma = NULL;
  if (sg_kernel_copy (&dst->kernel, &src->kernel) != SG_OK)
    {
      memset (&dst->kernel, 0, sizeof dst->kernel);
      return SG_ENOMEM;
    }
  if (s == 0)
    return SG_OK;
  dst->pseudo_points = malloc (s * dim * sizeof (double));
  dst->phases = malloc (s * sizeof (double));
  dst->gamma = malloc (s * sizeof (double));
  if (!dst->pseudo_points || !dst->phases || !dst->gamma)
    return SG_ENOMEM;
  memcpy (dst->pseudo_points, src->pseudo_points, s * dim * sizeof (double));
  memcpy (dst->phases, src->phases, s * sizeof (double));
  memcpy (dst->gamma, src->gamma, s * sizeof (double));
  return SG_OK;
}

static void
hyper_clone_free (sg_hyper *h)
{
  sg_kernel_clear (&h->kernel);
  free (h->pseudo_points);
  free (h->phases);
  free (h->gamma);
}

typedef struct {
  sg_fit_objective_fn objective;
  void *user_data;
  const sg_fit_options *opt;
  const sg_progress *progress;
  nlopt_opt nl;           /* the running local optimiser (for force_stop)   */
  size_t n;               /* free coordinates                               */
  size_t n_evals, n_failed, max_evals;
  double t0;
  int status;             /* fatal status or SG_ECANCELLED; SG_OK otherwise */
  int stop;               /* an sg_fit_stop reached by a budget             */
  size_t run;             /* index of the current run                       */
  size_t runs_started;
  double *last_x;         /* the last point evaluated and its value: NLopt  */
  double last_value;      /* re-evaluates its start, which costs nothing    */
  int have_last;
  int have_best;
  double best_value;      /* best -log evidence                             */
  double best_error;
  double *best_x;
  size_t best_run;
} fit_state;

static int
is_infeasible (int status)
{
  return status == SG_ENOTPD || status == SG_ENUMERIC || status == SG_EINFEASIBLE;
}

/* Evaluates -log evidence at X; records the best point. Returns the
 * penalty for infeasible points. Budgets and cancellation are checked
 * before each evaluation so that a stop is prompt. */
static double
evaluate (fit_state *st, const double *x)
{
  const sg_fit_options *opt = st->opt;
  if (st->have_last && memcmp (x, st->last_x, st->n * sizeof *x) == 0)
    return st->last_value;
  double elapsed = sg_monotonic_seconds () - st->t0;
  double fraction = (double) st->n_evals / (double) st->max_evals;
  if (opt->max_seconds > 0 && elapsed / opt->max_seconds > fraction)
    fraction = elapsed / opt->max_seconds;
  if (sg_progress_report (st->progress, fraction > 1 ? 1 : fraction) != SG_OK)
    {
      st->status = SG_ECANCELLED;
      return INFEASIBLE_PENALTY;
    }
  if (st->n_evals >= st->max_evals)
    {
      st->stop = SG_FIT_MAX_EVALS;
      return INFEASIBLE_PENALTY;
    }
  if (opt->max_seconds > 0 && elapsed >= opt->max_seconds)
    {
      st->stop = SG_FIT_MAX_SECONDS;
      return INFEASIBLE_PENALTY;
    }

  double le = -INFINITY, err = 0;
  int status = st->objective (x, st->user_data, &le, &err);
  st->n_evals++;
  if (status == SG_OK && !isfinite (le))
    status = SG_ENUMERIC;
  double value = -le;
  if (status != SG_OK)
    {
      if (!is_infeasible (status))
        st->status = status;
      st->n_failed++;
      value = INFEASIBLE_PENALTY;
    }
  st->have_last = 1;
  st->last_value = value;
  memcpy (st->last_x, x, st->n * sizeof *x);
  if (status != SG_OK)
    return value;
  if (!st->have_best || value < st->best_value)
    {
      st->have_best = 1;
      st->best_value = value;
      st->best_error = err;
      st->best_run = st->run;
      memcpy (st->best_x, x, st->n * sizeof *x);
    }
  return value;
}

static double
nlopt_objective (unsigned n, const double *x, double *grad, void *data)
{
  fit_state *st = data;
  double value = evaluate (st, x);
  if (st->status != SG_OK || st->stop != SG_FIT_CONVERGED)
    nlopt_force_stop (st->nl);
  return value;
}

static nlopt_algorithm
nlopt_algorithm_of (sg_fit_algorithm a)
{
  switch (a)
    {
    case SG_FIT_SBPLX:
      return NLOPT_LN_SBPLX;
    case SG_FIT_NELDERMEAD:
      return NLOPT_LN_NELDERMEAD;
    case SG_FIT_BOBYQA:
    default:
      return NLOPT_LN_BOBYQA;
    }
}

/* One local run from X (modified in place) with at most MAX_EVALS
 * evaluations. Budgets and failures are recorded in ST. */
static int
local_run (fit_state *st, const double *lower, const double *upper, double *x,
           size_t max_evals)
{
  const sg_fit_options *opt = st->opt;
  nlopt_opt nl = nlopt_create (nlopt_algorithm_of (opt->algorithm),
                               (unsigned) st->n);
  if (nl == NULL)
    return SG_ENOMEM;
  st->nl = nl;
  double *step = malloc (st->n * sizeof *step);
  if (step == NULL)
    {
      nlopt_destroy (nl);
      return SG_ENOMEM;
    }
  /* A first step of a tenth of the box: large enough to leave a poor
   * start, small enough to stay in its basin. */
  for (size_t i = 0; i < st->n; i++)
    step[i] = 0.1 * (upper[i] - lower[i]);
  nlopt_set_lower_bounds (nl, lower);
  nlopt_set_upper_bounds (nl, upper);
  nlopt_set_initial_step (nl, step);
  nlopt_set_min_objective (nl, nlopt_objective, st);
  nlopt_set_xtol_abs1 (nl, opt->xtol_abs);
  nlopt_set_ftol_abs (nl, opt->ftol_abs);
  nlopt_set_maxeval (nl, (int) max_evals);
  if (opt->max_seconds > 0)
    {
      /* maxtime <= 0 means "no limit" to NLopt. */
      double left = opt->max_seconds - (sg_monotonic_seconds () - st->t0);
      nlopt_set_maxtime (nl, left > 1e-3 ? left : 1e-3);
    }
  double f;
  nlopt_result r = nlopt_optimize (nl, x, &f);
  if (r == NLOPT_MAXEVAL_REACHED && st->stop == SG_FIT_CONVERGED
      && st->n_evals >= st->max_evals)
    st->stop = SG_FIT_MAX_EVALS;
  if (r == NLOPT_MAXTIME_REACHED && st->stop == SG_FIT_CONVERGED)
    st->stop = SG_FIT_MAX_SECONDS;
  free (step);
  nlopt_destroy (nl);
  st->nl = NULL;
  /* NLOPT_INVALID_ARGS / OUT_OF_MEMORY would be our bug or ENOMEM; other
   * negative codes (roundoff, forced stop) leave the best point valid. */
  if (r == NLOPT_OUT_OF_MEMORY)
    return SG_ENOMEM;
  if (r == NLOPT_INVALID_ARGS)
    return SG_EINVAL;
  return SG_OK;
}

/* Latin hypercube: K points in the box, one per stratum in every
 * coordinate (McKay, Beckman & Conover 1979). STARTS is k x n. */
static int
latin_hypercube (gsl_rng *rng, size_t k, size_t n, const double *lower,
                 const double *upper, double *starts)
{
  size_t *perm = malloc ((k + 1) * sizeof *perm);
  if (perm == NULL)
    return SG_ENOMEM;
  for (size_t j = 0; j < n; j++)
    {
      for (size_t i = 0; i < k; i++)
        perm[i] = i;
      for (size_t i = k; i > 1; i--)
        {
          size_t r = gsl_rng_uniform_int (rng, i), tmp = perm[i - 1];
          perm[i - 1] = perm[r];
          perm[r] = tmp;
        }
      for (size_t i = 0; i < k; i++)
        {
          double u = ((double) perm[i] + gsl_rng_uniform (rng)) / (double) k;
          starts[i * n + j] = lower[j] + u * (upper[j] - lower[j]);
        }
    }
  free (perm);
  return SG_OK;
}

static int
check_options (const sg_fit_options *opt)
{
  if (opt->n_starts == 0 || opt->max_evals == 0 || !(opt->max_seconds >= 0)
      || !(opt->xtol_abs >= 0) || !(opt->ftol_abs >= 0)
      || (opt->algorithm != SG_FIT_BOBYQA && opt->algorithm != SG_FIT_SBPLX
          && opt->algorithm != SG_FIT_NELDERMEAD))
    return SG_EINVAL;
  return SG_OK;
}

/* The runs: first from X0, then from the hypercube. */
static int
run_all (fit_state *st, gsl_rng *rng, const double *lower, const double *upper,
         const double *x0)
{
  size_t n = st->n, n_starts = st->opt->n_starts;
  double *x = malloc ((1 + (n_starts - 1)) * n * sizeof *x);
  if (x == NULL)
    return SG_ENOMEM;
  double *starts = x + n;
  int status = SG_OK;
  if (n_starts > 1)
    status = latin_hypercube (rng, n_starts - 1, n, lower, upper, starts);
  for (size_t r = 0; status == SG_OK && r < n_starts; r++)
    {
      if (st->stop != SG_FIT_CONVERGED || st->n_evals >= st->max_evals)
        {
          if (st->stop == SG_FIT_CONVERGED)
            st->stop = SG_FIT_MAX_EVALS;
          break;
        }
      if (r == 0)
        memcpy (x, x0, n * sizeof *x);
      else
        memcpy (x, starts + (r - 1) * n, n * sizeof *x);
      st->run = r;
      st->runs_started = r + 1;
      /* Share what is left of the budget among the runs still to go; a
       * run that converges early leaves its share to the later ones. */
      size_t left = st->max_evals - st->n_evals;
      size_t share = (left + (n_starts - r) - 1) / (n_starts - r);
      status = local_run (st, lower, upper, x, share);
      if (status == SG_OK)
        status = st->status;
    }
  free (x);
  return status;
}

sg_status
sg_fit_box (size_t n, const double *lower, const double *upper,
            sg_fit_objective_fn objective, void *user_data,
            const sg_fit_options *opt, gsl_rng *rng, const sg_progress *progress,
            double *x, sg_fit_result *res)
{
  sg_fit_options defaults;
  if (opt == NULL)
    {
      sg_fit_options_default (&defaults);
      opt = &defaults;
    }
  if (objective == NULL || res == NULL || x == NULL
      || (n > 0 && (lower == NULL || upper == NULL))
      || check_options (opt) != SG_OK || (opt->n_starts > 1 && rng == NULL))
    return SG_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!(lower[i] < upper[i]) || !isfinite (lower[i]) || !isfinite (upper[i]))
      return SG_EINVAL;

  fit_state st = { .objective = objective, .user_data = user_data,
                   .opt = opt, .progress = progress, .max_evals = opt->max_evals,
                   .t0 = sg_monotonic_seconds (), .stop = SG_FIT_CONVERGED, .n = n };
  int status = SG_OK;
  st.best_x = malloc ((n + 1) * sizeof *st.best_x);
  st.last_x = malloc ((n + 1) * sizeof *st.last_x);
  double *x0 = malloc ((n + 1) * sizeof *x0);
  if (st.best_x == NULL || st.last_x == NULL || x0 == NULL)
    status = SG_ENOMEM;

  double start_value = INFINITY;
  if (status == SG_OK)
    {
      /* The start (clamped into the box) is evaluated first: the result
       * never reports anything worse than where the caller began. */
      for (size_t i = 0; i < n; i++)
        x0[i] = x[i] < lower[i] ? lower[i] : x[i] > upper[i] ? upper[i] : x[i];
      memcpy (st.best_x, x0, n * sizeof *x0);
      double v = evaluate (&st, st.best_x);
      if (st.have_best)
        start_value = v;
      status = st.status;
    }
  if (status == SG_OK && n > 0)
    status = run_all (&st, rng, lower, upper, x0);
  if (status == SG_OK && !st.have_best)
    status = SG_ENUMERIC;

  if (status == SG_OK)
    {
      memcpy (x, st.best_x, n * sizeof *x);
      *res = (sg_fit_result) {
        .log_evidence = -st.best_value, .error = st.best_error,
        .start_log_evidence = -start_value, .n_evals = st.n_evals,
        .n_failed = st.n_failed, .n_starts = st.runs_started,
        .best_start = st.best_run, .stop = st.stop,
        .seconds = sg_monotonic_seconds () - st.t0,
      };
    }
  free (x0);
  free (st.best_x);
  free (st.last_x);
  return status;
}

/* sg_fit's objective: the free vector unpacked into a scratch copy of the
 * hyperparameters, then the evidence function. */
typedef struct {
  const sg_fit_spec *spec;
  sg_evidence_fn evidence;
  void *user_data;
  sg_hyper work;
} hyper_objective;

static sg_status
hyper_objective_eval (const double *x, void *user_data, double *value, double *error)
{
  hyper_objective *ho = user_data;
  sg_fit_spec_unpack (ho->spec, x, &ho->work);
  return ho->evidence (&ho->work, ho->user_data, value, error);
}

sg_status
sg_fit (const sg_fit_spec *spec, sg_evidence_fn evidence, void *user_data,
        const sg_fit_options *opt, gsl_rng *rng, const sg_progress *progress,
        sg_hyper *h, sg_fit_result *res)
{
  if (evidence == NULL || res == NULL || sg_fit_spec_check (spec, h) != SG_OK)
    return SG_EINVAL;
  size_t n = sg_fit_spec_n_free (spec, h);
  hyper_objective ho = { .spec = spec, .evidence = evidence, .user_data = user_data };
  int status = hyper_clone (h, &ho.work);
  double *x = malloc ((3 * n + 1) * sizeof *x);
  if (status == SG_OK && x == NULL)
    status = SG_ENOMEM;
  if (status == SG_OK)
    {
      double *lower = x + n, *upper = lower + n;
      sg_fit_spec_pack (spec, h, x);
      sg_fit_spec_bounds (spec, h, lower, upper);
      status = sg_fit_box (n, lower, upper, hyper_objective_eval, &ho, opt, rng,
                           progress, x, res);
      if (status == SG_OK)
        sg_fit_spec_unpack (spec, x, h);
    }
  free (x);
  hyper_clone_free (&ho.work);
  return status;
}
