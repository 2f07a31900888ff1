/* skewgp-tmvn-sample.c — `skewgp tmvn-sample`: samples of a Gaussian
 * restricted to a box (engine/sg-tmvn), summarised by their mean and
 * covariance. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sg-linalg.h"
#include "sg-mcmc.h"
#include "sg-rng.h"
#include "sg-tmvn.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* samples x dimension numbers held in memory at most (160 MB). */
#define MAX_NUMBERS 20000000
/* Peak memory at the limits (measured, tests/bench/results-fuzz.md): d =
 * 2000 with 10,000 samples ~1 GB; 10^6 x 2 returned samples 0.36 GB
 * (2 x 10^7 returned took 3.4 GB in the JSON tree). */
#define MAX_DIM 2000
#define MAX_RETURNED_NUMBERS 2000000

static const char tmvn_help[] =
  "Usage: skewgp tmvn-sample FILE|-\n\n"
  "Samples of X ~ N(mean, cov) restricted to lower < X < upper, by linear\n"
  "elliptical slice sampling (lin-ess; Gessner, Kanjilal & Hennig 2020;\n"
  "paper 001 Algorithm 1) or exact Hamiltonian Monte Carlo (Pakman &\n"
  "Paninski 2014). Both are rejection-free Markov chains started at a\n"
  "feasible point found automatically.\n\n"
  "Input fields:\n"
  "  \"mean\": [...]            the Gaussian's mean, d numbers, d <= 2000\n"
  "                           (required)\n"
  "  \"cov\": [[...], ...]      its covariance, d x d, symmetric positive\n"
  "                           semi-definite (required); a zero-variance\n"
  "                           coordinate is fixed at its mean\n"
  "  \"lower\": [...]           lower bounds, d numbers or null for -infinity\n"
  "                           (optional; the whole field null or absent =\n"
  "                           unbounded below)\n"
  "  \"upper\": [...]           upper bounds, likewise (+infinity)\n"
  "  \"samples\": N             states to return, 1 <= N <= 10^7 and\n"
  "                           N d <= 2 10^7 (required)\n"
  "  \"burn_in\": B             steps discarded at the start of each chain\n"
  "                           (default 100)\n"
  "  \"thin\": T                keep every T-th state (default 1); 0 chooses T\n"
  "                           from the autocorrelation time of a pilot run\n"
  "  \"chains\": C              independent chains, run on threads (default 1)\n"
  "  \"method\": \"lin-ess\"      or \"exact-hmc\" (default \"lin-ess\"); exact\n"
  "                           HMC mixes much better on strongly truncated\n"
  "                           Gaussians such as SkewGP posteriors\n"
  "  \"seed\": S                random seed, 0 <= S < 2^53 (default 0)\n"
  "  \"return_samples\": bool   include the samples in the output\n"
  "                           (default false; then N d <= 2 10^6)\n\n"
  "Output: {\"mean\": [...], \"covariance\": [[...], ...],\n"
  "         \"effective_sample_size\": n_eff, \"thin\": T,\n"
  "         \"samples\": [[...], ...]?}\n"
  "mean and covariance are the sample mean and covariance (divisor N - 1);\n"
  "effective_sample_size is N / tau, tau the largest integrated\n"
  "autocorrelation time over the coordinates (null when a chain has fewer\n"
  "than 2 states); the Monte Carlo error of a mean is about\n"
  "sd / sqrt(effective_sample_size). With C chains, chain c holds the rows\n"
  "[c N / C, (c + 1) N / C) of samples.\n"
  "A bound more than 1e8 standard deviations beyond the mean (1e100 written\n"
  "for infinity) is taken as infinite when no bound lies near that far.\n"
  "Exit status: 0 success, 1 numerical failure (a result that overflows,\n"
  "or a mean so large against its sd that doubles cannot hold the\n"
  "samples' spread, e.g. mean 1e308 with sd 1), 2 bad input (malformed\n"
  "JSON, wrong sizes, lower > upper, cov not symmetric or not positive\n"
  "semi-definite, a box of probability zero).\n";

typedef struct {
  double *mean, *cov, *lower, *upper;
  gsize d;
  gint64 samples, burn_in, thin, chains, seed;
  gboolean return_samples;
  sg_tmvn_method method;
} TmvnRequest;

static void
tmvn_request_clear (TmvnRequest *r)
{
  g_clear_pointer (&r->mean, g_free);
  g_clear_pointer (&r->cov, g_free);
  g_clear_pointer (&r->lower, g_free);
  g_clear_pointer (&r->upper, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TmvnRequest, tmvn_request_clear)

static gboolean
read_method (JsonObject *input, sg_tmvn_method *method, GError **error)
{
  const char *name = NULL;
  if (!skewgp_get_string (input, "method", FALSE, &name, error))
    return FALSE;
  if (name == NULL || strcmp (name, "lin-ess") == 0)
    *method = SG_TMVN_LIN_ESS;
  else if (strcmp (name, "exact-hmc") == 0)
    *method = SG_TMVN_EXACT_HMC;
  else
    return skewgp_input_error (error, "field 'method' must be \"lin-ess\" or \"exact-hmc\", got \"%s\"",
                        name);
  return TRUE;
}

/* Reads and checks everything the engine would reject, so that each
 * problem is reported with its field. */
static gboolean
read_request (JsonObject *input, TmvnRequest *r, GError **error)
{
  static const char *const known[] = { "mean", "cov", "lower", "upper", "samples",
                                       "burn_in", "thin", "chains", "method", "seed",
                                       "return_samples", NULL };
  *r = (TmvnRequest) { .burn_in = 100, .thin = 1, .chains = 1, .seed = 0 };
  gsize rows, cols;
  if (!skewgp_check_fields (input, NULL, known, error)
      || !skewgp_get_vector (input, "mean", TRUE, 0, FALSE, 0, &r->mean, &r->d, error))
    return FALSE;
  if (r->d > MAX_DIM)
    return skewgp_input_error (error, "field 'mean': dimension %" G_GSIZE_FORMAT " is above the "
                               "limit %d", r->d, MAX_DIM);
  if (!skewgp_get_matrix (input, "cov", TRUE, r->d, r->d, &r->cov, &rows, &cols, error)
      || !skewgp_get_vector (input, "lower", FALSE, r->d, TRUE, -INFINITY, &r->lower,
                             NULL, error)
      || !skewgp_get_vector (input, "upper", FALSE, r->d, TRUE, INFINITY, &r->upper,
                             NULL, error)
      || !skewgp_get_int (input, "samples", TRUE, 1, 10000000, &r->samples, error)
      || !skewgp_get_int (input, "burn_in", FALSE, 0, 100000000, &r->burn_in, error)
      || !skewgp_get_int (input, "thin", FALSE, 0, 100000, &r->thin, error)
      || !skewgp_get_int (input, "chains", FALSE, 1, 64, &r->chains, error)
      || !skewgp_get_int (input, "seed", FALSE, 0, (G_GINT64_CONSTANT (1) << 53) - 1,
                          &r->seed, error)
      || !skewgp_get_bool (input, "return_samples", FALSE, &r->return_samples, error)
      || !read_method (input, &r->method, error))
    return FALSE;

  if (r->return_samples && (double) r->samples * (double) r->d > MAX_RETURNED_NUMBERS)
    return skewgp_input_error (error, "field 'samples': %" G_GINT64_FORMAT " samples of dimension %"
                               G_GSIZE_FORMAT " to return exceed the limit of %d numbers "
                               "(return_samples: each costs ~170 bytes on the way out)",
                               r->samples, r->d, MAX_RETURNED_NUMBERS);
  if ((double) r->samples * (double) r->d > MAX_NUMBERS)
    return skewgp_input_error (error, "field 'samples': %" G_GINT64_FORMAT " samples of dimension %"
                        G_GSIZE_FORMAT " exceed the limit of %d numbers", r->samples, r->d,
                        MAX_NUMBERS);
  double maxdiag = 0;
  for (gsize i = 0; i < r->d; i++)
    maxdiag = fmax (maxdiag, fabs (r->cov[i * r->d + i]));
  for (gsize i = 0; i < r->d; i++)
    {
      if (r->cov[i * r->d + i] < 0)
        return skewgp_input_error (error, "field 'cov': diagonal entry %" G_GSIZE_FORMAT
                            " is negative, so cov is not positive semi-definite", i);
      for (gsize j = 0; j < i; j++)
        if (!(fabs (r->cov[i * r->d + j] - r->cov[j * r->d + i]) <= 1e-8 * maxdiag))
          return skewgp_input_error (error, "field 'cov' is not symmetric: entries [%" G_GSIZE_FORMAT
                              "][%" G_GSIZE_FORMAT "] and [%" G_GSIZE_FORMAT "][%"
                              G_GSIZE_FORMAT "] differ", i, j, j, i);
    }
  if (r->lower && r->upper)
    for (gsize i = 0; i < r->d; i++)
      if (r->lower[i] > r->upper[i])
        return skewgp_input_error (error, "fields 'lower' and 'upper': entry %" G_GSIZE_FORMAT
                            " has lower %g > upper %g", i, r->lower[i], r->upper[i]);
  return TRUE;
}

/* Sample mean and covariance (divisor n - 1; zero for n = 1). */
static void
moments (const double *x, gsize n, gsize d, double *mean, double *cov)
{
  for (gsize j = 0; j < d; j++)
    mean[j] = 0;
  for (gsize t = 0; t < n; t++)
    for (gsize j = 0; j < d; j++)
      mean[j] += x[t * d + j];
  for (gsize j = 0; j < d; j++)
    mean[j] /= (double) n;
  g_autofree double *centred = g_new (double, n * d);
  for (gsize t = 0; t < n; t++)
    for (gsize j = 0; j < d; j++)
      centred[t * d + j] = x[t * d + j] - mean[j];
  sg_gemm (1, 0, d, d, n, n > 1 ? 1.0 / (double) (n - 1) : 0.0, centred, centred, 0.0, cov);
  sg_symmetrize (cov, d);
}

/* N / tau, tau the largest IAT over coordinates and chains; NAN when a
 * chain is too short to estimate it. */
static double
effective_size (const double *x, gsize n, gsize d, gsize chains)
{
  double tau = 0;
  for (gsize c = 0; c < chains; c++)
    {
      gsize r0 = c * n / chains, r1 = (c + 1) * n / chains;
      double t;
      if (r1 - r0 < 2 || sg_mcmc_iat_max (x + r0 * d, 1, r1 - r0, d, &t, NULL) != SG_OK)
        return NAN;
      tau = fmax (tau, t);
    }
  return (double) n / tau;
}

static gboolean
engine_error (int status, GError **error)
{
  switch (status)
    {
    case SG_ENOTPD:
      return skewgp_input_error (error, "field 'cov' is not positive semi-definite");
    case SG_EINFEASIBLE:
      return skewgp_input_error (error, "fields 'lower' and 'upper': the box has probability zero "
                          "under N(mean, cov)");
    case SG_EINVAL:
      return skewgp_input_error (error, "invalid input: %s", sg_strerror (status));
    default:
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, "sampling failed: %s",
                   sg_strerror (status));
      return FALSE;
    }
}

/* Numbers the command would print that are not numbers: a numerical
 * failure (exit 1), never null. A coordinate whose mean is so large
 * against its sd that a double cannot hold three digits of its spread
 * (|mean| eps > 1e-3 sd, e.g. mean 1e308 and sd 1) fails too: its samples
 * are all the same number and the covariance would read 0. */
static gboolean
check_results (const TmvnRequest *req, const double *x, gsize n, const double *mean,
               const double *cov, GError **error)
{
  gsize d = req->d;
  for (gsize j = 0; j < d; j++)
    {
      double sd = sqrt (req->cov[j * d + j]);
      if (sd > 0 && fabs (req->mean[j]) * DBL_EPSILON > 1e-3 * sd)
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC,
                       "coordinate %" G_GSIZE_FORMAT ": its mean %g is too large against its "
                       "standard deviation %g for double precision to hold the samples' "
                       "spread (centre the problem: sample X - mean)", j, req->mean[j], sd);
          return FALSE;
        }
    }
  const char *what = !sg_all_finite (x, n * d) ? "a sample"
                     : !sg_all_finite (mean, d) ? "the sample mean"
                     : !sg_all_finite (cov, d * d) ? "the sample covariance" : NULL;
  if (what == NULL)
    return TRUE;
  g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC,
               "%s is not finite (overflow beyond 1.8e308)", what);
  return FALSE;
}

static gboolean
tmvn_run (JsonObject *input, GError **error)
{
  g_auto (TmvnRequest) req = { 0 };
  if (!read_request (input, &req, error))
    return FALSE;

  sg_tmvn_options opt;
  sg_tmvn_options_default (&opt);
  opt.burn_in = (size_t) req.burn_in;
  opt.thin = (size_t) req.thin;
  opt.n_chains = (size_t) req.chains;
  opt.method = req.method;

  sg_tmvn *sampler = NULL;
  int status = sg_tmvn_new (req.d, req.mean, req.cov, req.lower, req.upper, &opt, &sampler);
  if (status != SG_OK)
    return engine_error (status, error);

  gsize n = (gsize) req.samples, d = req.d;
  g_autofree double *x = g_try_new (double, n * d);
  gsl_rng *rng = sg_rng_new ((uint64_t) req.seed, 0);
  status = x && rng ? sg_tmvn_sample (sampler, rng, n, NULL, x) : SG_ENOMEM;
  sg_tmvn_info info;
  sg_tmvn_get_info (sampler, &info);
  sg_rng_free (rng);
  sg_tmvn_free (sampler);
  if (status != SG_OK)
    return engine_error (status, error);

  g_autofree double *mean = g_new (double, d);
  g_autofree double *cov = g_new (double, d * d);
  moments (x, n, d, mean, cov);
  if (!check_results (&req, x, n, mean, cov, error))
    return FALSE;
  double ess = effective_size (x, n, d, (gsize) req.chains);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  skewgp_add_vector (b, "mean", mean, d);
  skewgp_add_matrix (b, "covariance", cov, d, d);
  skewgp_add_double (b, "effective_sample_size", ess);
  sb_json_add_int (b, "thin", (gint64) info.thin);
  if (req.return_samples)
    skewgp_add_matrix (b, "samples", x, n, d);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

const SkewgpCommand skewgp_command_tmvn_sample = {
  .name = "tmvn-sample",
  .summary = "samples of a Gaussian restricted to a box (lin-ess / exact HMC)",
  .help = tmvn_help,
  .run = tmvn_run,
};
