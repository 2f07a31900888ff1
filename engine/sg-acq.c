/* sg-acq.c — acquisition functions on samples and the box maximiser. */
#include "sg-acq.h"

#include "sg-normal.h"
#include "sg-order.h"

#include <gsl/gsl_qrng.h>
#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

#define PROB_CLAMP 1e-15

static double
clamp_prob (double p)
{
  return fmax (PROB_CLAMP, fmin (1 - PROB_CLAMP, p));
}

double
sg_acq_binary_entropy (double p)
{
  p = clamp_prob (p);
  return -p * log (p) - (1 - p) * log1p (-p);
}

/* ---- Highest-density interval by selection ------------------------------
 * The windows of K consecutive order statistics start at i = 0..N-K, so
 * only the N-K+1 smallest and the N-K+1 largest values matter: two
 * quickselect partitions and two small sorts, O(N) instead of O(N log N).
 */

double
sg_acq_hpd (const double *v, size_t n, double level, double *scratch,
            double *lower)
{
  size_t K = (size_t) ceil (level * (double) n - 1e-9 * (double) n);
  if (K < 1)
    K = 1;
  if (K > n)
    K = n;
  size_t w = n - K + 1; /* number of windows */
  memcpy (scratch, v, n * sizeof *v);
  if (2 * w <= n)
    {
      /* scratch[0..w) = the w smallest, scratch[n-w..n) = the w largest
       * (K - 1 = n - w), each then sorted: exactly the order statistics
       * the windows use. */
      sg_select_kth (scratch, n, w - 1);
      if (n - w > w)
        sg_select_kth (scratch + w, n - w, n - 2 * w);
      sg_sort_doubles (scratch, w);
      sg_sort_doubles (scratch + (n - w), w);
    }
  else /* the two tails overlap (small N or LEVEL): sort everything */
    sg_sort_doubles (scratch, n);
  size_t best = 0;
  double width = INFINITY;
  for (size_t i = 0; i < w; i++)
    {
      double d = scratch[i + K - 1] - scratch[i];
      if (d < width)
        width = d, best = i;
    }
  if (lower)
    *lower = scratch[best];
  return scratch[best + K - 1];
}

/* ---- Sample averages ------------------------------------------------------ */

double
sg_acq_epi (const double *h, size_t n, double probit_sd)
{
  double s = 0, scale = 1 / (M_SQRT2 * probit_sd);
  for (size_t j = 0; j < n; j++)
    s += sg_norm_cdf (h[j] * scale);
  return s / (double) n;
}

/* p = mean Phi(.) and the mean of the entropies, in one pass. */
static void
probit_moments (const double *h, size_t n, double scale, double *p, double *mean_h)
{
  double s = 0, e = 0;
  for (size_t j = 0; j < n; j++)
    {
      double q = sg_norm_cdf (h[j] * scale);
      s += q;
      e += sg_acq_binary_entropy (q);
    }
  *p = s / (double) n;
  *mean_h = e / (double) n;
}

double
sg_acq_info_gain (const double *h, size_t n, double probit_sd)
{
  double p, eh;
  probit_moments (h, n, 1 / (M_SQRT2 * probit_sd), &p, &eh);
  return sg_acq_binary_entropy (p) - eh;
}

double
sg_acq_eiig (const double *h, size_t n, double probit_sd, double k)
{
  double p, eh;
  probit_moments (h, n, 1 / (M_SQRT2 * probit_sd), &p, &eh);
  return k * log (clamp_prob (p)) + sg_acq_binary_entropy (p) - eh;
}

double
sg_acq_bald (const double *f, size_t n, double probit_sd)
{
  double p, eh;
  probit_moments (f, n, 1 / probit_sd, &p, &eh);
  return sg_acq_binary_entropy (p) - eh;
}

double
sg_acq_expected_improvement (const double *h, size_t n)
{
  double s = 0;
  for (size_t j = 0; j < n; j++)
    s += h[j] > 0 ? h[j] : 0;
  return s / (double) n;
}

double
sg_acq_win_variance (const double *h, size_t n, double probit_sd)
{
  double s = 0, s2 = 0, scale = 1 / (M_SQRT2 * probit_sd);
  for (size_t j = 0; j < n; j++)
    {
      double p = sg_norm_cdf (h[j] * scale);
      s += p;
      s2 += p * p;
    }
  double mean = s / (double) n;
  return fmax (s2 / (double) n - mean * mean, 0.0);
}

double
sg_acq_gauss_ei (double mu, double sd, double eta)
{
  if (!(sd > 0))
    return fmax (mu - eta, 0.0);
  double z = (mu - eta) / sd;
  return (mu - eta) * sg_norm_cdf (z) + sd * sg_norm_pdf (z);
}

double
sg_acq_gauss_ucb (double mu, double sd, double beta_root)
{
  return mu + beta_root * sd;
}

double
sg_acq_qeubo (const double *f, size_t k, size_t n)
{
  double s = 0;
  for (size_t j = 0; j < n; j++)
    {
      double m = f[j];
      for (size_t i = 1; i < k; i++)
        m = fmax (m, f[i * n + j]);
      s += m;
    }
  return s / (double) n;
}

double
sg_acq_prob_at_least (const double *f, size_t n, double threshold)
{
  size_t c = 0;
  for (size_t j = 0; j < n; j++)
    c += f[j] >= threshold;
  return (double) c / (double) n;
}

double
sg_acq_safe_ucb (const double *f, size_t n, double level, double threshold,
                 double p_safe, double penalty, double *scratch)
{
  double ucb = sg_acq_hpd (f, n, level, scratch, NULL);
  if (sg_acq_prob_at_least (f, n, threshold) < p_safe)
    ucb -= penalty;
  return ucb;
}

/* ---- Maximisation over a box ---------------------------------------------- */

void
sg_acq_max_options_default (sg_acq_max_options *opt)
{
  opt->n_candidates = 500;
  opt->n_starts = 2;
  opt->local_maxeval = 60;
  opt->xtol_rel = 1e-4;
}

typedef struct {
  sg_acq_fn fn;
  void *user_data;
  const sg_progress *progress;
  size_t evals, total;
  int cancelled;
  nlopt_opt opt;
} max_ctx;

static double
evaluate (max_ctx *c, const double *x)
{
  double v = c->fn (x, c->user_data);
  c->evals++;
  if (c->progress && c->evals % 16 == 0
      && sg_progress_report (c->progress, fmin (1.0, (double) c->evals
                                                     / (double) c->total)) != SG_OK)
    {
      c->cancelled = 1;
      if (c->opt)
        nlopt_force_stop (c->opt);
    }
  return isnan (v) ? -INFINITY : v;
}

static double
nlopt_objective (unsigned n, const double *x, double *grad, void *data)
{
  (void) n;
  (void) grad; /* derivative-free algorithm: never requested */
  max_ctx *c = data;
  if (c->cancelled)
    {
      nlopt_force_stop (c->opt);
      return -HUGE_VAL;
    }
  double v = evaluate (c, x);
  /* NLopt dislikes infinities in a model-based method: a large finite
   * floor keeps BOBYQA's quadratic model usable. */
  return isfinite (v) ? v : -1e300;
}

typedef struct {
  double value;
  size_t index;
} scored;

static int
cmp_scored_desc (const void *pa, const void *pb)
{
  const scored *a = pa, *b = pb;
  if (a->value != b->value)
    return a->value < b->value ? 1 : -1;
  return (a->index > b->index) - (a->index < b->index); /* stable */
}

/* Local refinement of X (in/out, value *V) by BOBYQA, or Nelder-Mead in
 * 1-D where NLopt's BOBYQA needs n >= 2. */
static void
refine (max_ctx *c, size_t dim, const double *lower, const double *upper,
        const sg_acq_max_options *o, double *x, double *v)
{
  nlopt_algorithm alg = dim >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_NELDERMEAD;
  nlopt_opt opt = nlopt_create (alg, (unsigned) dim);
  if (opt == NULL)
    return;
  double step[32], xtol[32];
  for (size_t j = 0; j < dim; j++)
    {
      step[j] = 0.05 * (upper[j] - lower[j]);
      xtol[j] = o->xtol_rel * (upper[j] - lower[j]);
    }
  nlopt_set_lower_bounds (opt, lower);
  nlopt_set_upper_bounds (opt, upper);
  nlopt_set_initial_step (opt, step);
  nlopt_set_max_objective (opt, nlopt_objective, c);
  nlopt_set_maxeval (opt, (int) o->local_maxeval);
  nlopt_set_xtol_abs (opt, xtol);  /* relative to the box, not to |x| */
  c->opt = opt;
  double y[32], fy = -HUGE_VAL;
  memcpy (y, x, dim * sizeof *x);
  nlopt_result r = nlopt_optimize (opt, y, &fy);
  c->opt = NULL;
  nlopt_destroy (opt);
  /* Accept only a genuine improvement found inside the box (any result
   * code, including MAXEVAL_REACHED, carries the best point so far). */
  if (!c->cancelled && r != NLOPT_INVALID_ARGS && r != NLOPT_OUT_OF_MEMORY
      && isfinite (fy) && fy > *v)
    {
      int inside = 1;
      for (size_t j = 0; j < dim; j++)
        inside &= y[j] >= lower[j] && y[j] <= upper[j];
      if (inside)
        {
          memcpy (x, y, dim * sizeof *x);
          *v = fy;
        }
    }
}

sg_status
sg_acq_maximize (size_t dim, const double *lower, const double *upper,
                 sg_acq_fn fn, void *user_data, const double *extra,
                 size_t n_extra, const sg_acq_max_options *opt,
                 gsl_rng *rng, const sg_progress *progress,
                 double *x_best, double *value)
{
  return sg_acq_maximize_batched (dim, lower, upper, fn, NULL, user_data, extra, n_extra, opt,
                                  rng, progress, x_best, value);
}

/* Scores the candidates PTS (ntot x dim) into SC: by BATCH in blocks (a
 * progress report and a cancel check per block), else point by point. */
#define SCORE_BLOCK 128

static void
score_candidates (max_ctx *c, sg_acq_batch_fn batch, const double *pts, size_t ntot, size_t dim,
                  scored *sc)
{
  double values[SCORE_BLOCK];

  for (size_t first = 0; first < ntot && !c->cancelled; first += SCORE_BLOCK)
    {
      size_t n = ntot - first < SCORE_BLOCK ? ntot - first : SCORE_BLOCK;
      if (batch)
        batch (pts + first * dim, n, c->user_data, values);
      for (size_t i = 0; i < n && !c->cancelled; i++)
        {
          size_t k = first + i;
          sc[k].index = k;
          if (batch)
            {
              sc[k].value = isnan (values[i]) ? -INFINITY : values[i];
              c->evals++;
            }
          else
            sc[k].value = evaluate (c, pts + k * dim);
        }
      if (batch && c->progress
          && sg_progress_report (c->progress, fmin (1.0, (double) c->evals / (double) c->total))
             != SG_OK)
        c->cancelled = 1;
    }
}

sg_status
sg_acq_maximize_batched (size_t dim, const double *lower, const double *upper,
                         sg_acq_fn fn, sg_acq_batch_fn batch, void *user_data,
                         const double *extra, size_t n_extra, const sg_acq_max_options *opt,
                         gsl_rng *rng, const sg_progress *progress, double *x_best,
                         double *value)
{
  sg_acq_max_options defaults;
  if (opt == NULL)
    {
      sg_acq_max_options_default (&defaults);
      opt = &defaults;
    }
  if (dim == 0 || dim > 32 || lower == NULL || upper == NULL || fn == NULL
      || rng == NULL || x_best == NULL || value == NULL
      || opt->n_candidates + n_extra == 0 || (n_extra > 0 && extra == NULL))
    return SG_EINVAL;
  for (size_t j = 0; j < dim; j++)
    if (!(lower[j] <= upper[j]) || !isfinite (lower[j]) || !isfinite (upper[j]))
      return SG_EINVAL;

  size_t nc = opt->n_candidates, ntot = nc + n_extra;
  double *pts = malloc (ntot * dim * sizeof *pts);
  scored *sc = malloc (ntot * sizeof *sc);
  gsl_qrng *q = nc > 0 ? gsl_qrng_alloc (gsl_qrng_sobol, (unsigned) dim) : NULL;
  if (pts == NULL || sc == NULL || (nc > 0 && q == NULL))
    {
      free (pts); free (sc);
      if (q) gsl_qrng_free (q);
      return SG_ENOMEM;
    }
  double shift[32], u[32];
  for (size_t j = 0; j < dim; j++)
    shift[j] = gsl_rng_uniform (rng);
  for (size_t i = 0; i < nc; i++)
    {
      gsl_qrng_get (q, u);
      for (size_t j = 0; j < dim; j++)
        {
          double s = u[j] + shift[j];
          s -= floor (s);
          pts[i * dim + j] = lower[j] + s * (upper[j] - lower[j]);
        }
    }
  if (q)
    gsl_qrng_free (q);
  if (n_extra > 0)
    memcpy (pts + nc * dim, extra, n_extra * dim * sizeof *pts);

  max_ctx c = { fn, user_data, progress, 0,
                ntot + opt->n_starts * opt->local_maxeval, 0, NULL };
  score_candidates (&c, batch, pts, ntot, dim, sc);
  if (c.cancelled)
    {
      free (pts); free (sc);
      return SG_ECANCELLED;
    }
  qsort (sc, ntot, sizeof *sc, cmp_scored_desc);

  double xb[32], vb = sc[0].value;
  memcpy (xb, pts + sc[0].index * dim, dim * sizeof *xb);
  size_t starts = opt->n_starts < ntot ? opt->n_starts : ntot;
  for (size_t s = 0; s < starts && opt->local_maxeval > 0 && !c.cancelled; s++)
    {
      double x[32], v = sc[s].value;
      memcpy (x, pts + sc[s].index * dim, dim * sizeof *x);
      refine (&c, dim, lower, upper, opt, x, &v);
      if (v > vb)
        {
          vb = v;
          memcpy (xb, x, dim * sizeof *xb);
        }
    }
  free (pts);
  free (sc);
  if (c.cancelled)
    return SG_ECANCELLED;
  memcpy (x_best, xb, dim * sizeof *xb);
  *value = vb;
  return SG_OK;
}
