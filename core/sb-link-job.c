/* sb-link-job.c — the link diagnostic: duel differences from the exact
 * SkewGP, the ISGP link fit, the verdict (see sb-link-job.h). */
#include "config.h"

#include "sb-link-job.h"
#include "sb-engine-job.h"

#include "sg-bo.h"
#include "sg-link.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <math.h>
#include <string.h>

void
sb_link_options_init (SbLinkOptions *opt)
{
  opt->n_samples = 1000;
  opt->n_draws = 2000;
  opt->n_grid = 121;
  opt->n_basis = 32;
  opt->level = 0.95;
  opt->seed = 0;
}

void
sb_link_duels_clear (SbLinkDuels *duels)
{
  g_clear_pointer (&duels->d, g_free);
  g_clear_pointer (&duels->answer, g_free);
  duels->n = 0;
}

SbLinkResult *
sb_link_result_copy (const SbLinkResult *res)
{
  SbLinkResult *c = g_memdup2 (res, sizeof *res);
  gsize g = res->n_grid * sizeof (double);

  c->d = g_memdup2 (res->d, res->n * sizeof (double));
  c->answer = g_memdup2 (res->answer, res->n * sizeof (double));
  c->grid = g_memdup2 (res->grid, g);
  c->p_mean = g_memdup2 (res->p_mean, g);
  c->p_lower = g_memdup2 (res->p_lower, g);
  c->p_upper = g_memdup2 (res->p_upper, g);
  c->p_probit = g_memdup2 (res->p_probit, g);
  c->verdict = g_strdup (res->verdict);
  return c;
}

void
sb_link_result_free (SbLinkResult *res)
{
  if (res == NULL)
    return;
  g_free (res->d);
  g_free (res->answer);
  g_free (res->grid);
  g_free (res->p_mean);
  g_free (res->p_lower);
  g_free (res->p_upper);
  g_free (res->p_probit);
  g_free (res->verdict);
  g_free (res);
}

/* A sub-range [FROM, TO] of an outer progress callback. */
typedef struct {
  const sg_progress *outer;
  double from, to;
} SubProgress;

static int
sub_progress (double fraction, void *user_data)
{
  SubProgress *sp = user_data;
  if (sp->outer == NULL || sp->outer->func == NULL)
    return 0;
  return sp->outer->func (sp->from + (sp->to - sp->from) * fraction, sp->outer->user_data);
}

/* ---- Differences ------------------------------------------------------------ */

/* The posterior means of f at the N_POINTS rows of XS under the exact
 * SkewGP of BO's answers and hyperparameters (Rao-Blackwellised means,
 * sg_skewgp_summarize). */
static gboolean
posterior_means (const sg_bo *bo, const double *xs, gsize n_points,
                 const SbLinkOptions *opt, const sg_progress *progress, double *mean,
                 GError **error)
{
  const sg_data *data = sg_bo_data (bo);
  const sg_hyper *h = sg_bo_get_hyper (bo);
  sg_skewgp_prior prior;
  sg_likelihood lik;
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  gboolean ok = FALSE;

  sg_hyper_skewgp_prior (h, &prior);
  if (sb_engine_failed (sg_likelihood_build (data, &h->noise, &lik), "lowering the answers", error))
    return FALSE;
  gsl_rng *rng = sg_rng_new (opt->seed, 0x11c);
  sg_point_summary *sum = g_new (sg_point_summary, n_points);
  SubProgress sp_sample = { progress, 0.0, 0.5 }, sp_sum = { progress, 0.5, 0.6 };
  sg_progress p_sample = { sub_progress, &sp_sample }, p_sum = { sub_progress, &sp_sum };
  sg_skewgp_sample_options so;
  sg_summary_options sopt;
  sg_skewgp_sample_options_default (&so);
  sg_summary_options_default (&sopt);
  sopt.fields = SG_SUMMARY_MOMENTS;

  if (rng == NULL)
    g_set_error (error, SB_ENGINE_ERROR, SG_ENOMEM, "out of memory");
  else if (!sb_engine_failed (sg_skewgp_posterior_new (&prior, data->X, &lik, &post),
                              "the SkewGP posterior", error)
           && !sb_engine_failed (sg_skewgp_sample (post, opt->n_samples, &so, rng, &p_sample,
                                                &samples),
                              "sampling the SkewGP posterior", error)
           && !sb_engine_failed (sg_skewgp_summarize (post, samples, xs, n_points, &sopt, &p_sum,
                                                   sum),
                              "the posterior means", error))
    {
      for (gsize i = 0; i < n_points; i++)
        mean[i] = sum[i].mean;
      ok = TRUE;
    }
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_rng_free (rng);
  g_free (sum);
  return ok;
}

gboolean
sb_link_duel_differences (const SbJobInput *input, const SbLinkOptions *opt,
                          const sg_progress *progress, SbLinkDuels *duels, GError **error)
{
  SbLinkOptions o;
  if (opt == NULL)
    sb_link_options_init (&o);
  else
    o = *opt;
  memset (duels, 0, sizeof *duels);

  guint dim = input->experiment->n_parameters, n = 0;
  for (guint i = 0; i < input->observations->len; i++)
    {
      const SbLogEntry *obs = g_ptr_array_index (input->observations, i);
      n += obs->kind == SB_LOG_DUEL && !sb_log_entry_is_removed (obs);
    }
  if (n == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the session has no answered duel to fit a link to");
      return FALSE;
    }

  sg_bo *bo = sb_job_replay (input, error);
  if (bo == NULL)
    return FALSE;

  /* Rows 2k and 2k + 1: the first and second candidate of duel k. */
  g_autofree double *xs = g_new (double, 2 * (gsize) n * dim);
  g_autofree double *mean = g_new (double, 2 * (gsize) n);
  double *answer = g_new (double, n);
  guint k = 0;
  for (guint i = 0; i < input->observations->len; i++)
    {
      const SbLogEntry *obs = g_ptr_array_index (input->observations, i);
      if (obs->kind != SB_LOG_DUEL || sb_log_entry_is_removed (obs))
        continue;
      memcpy (xs + (2 * (gsize) k) * dim, obs->a, dim * sizeof (double));
      memcpy (xs + (2 * (gsize) k + 1) * dim, obs->b, dim * sizeof (double));
      answer[k++] = obs->winner == 0 ? 1.0 : 0.0;
    }

  gboolean ok = posterior_means (bo, xs, 2 * (gsize) n, &o, progress, mean, error);
  double probit_sd = sg_bo_get_hyper (bo)->noise.probit_sd;
  sg_bo_free (bo);
  if (!ok)
    {
      g_free (answer);
      return FALSE;
    }
  duels->n = n;
  duels->d = g_new (double, n);
  for (guint j = 0; j < n; j++)
    duels->d[j] = mean[2 * j] - mean[2 * j + 1];
  duels->answer = answer;
  duels->probit_sd = probit_sd;
  return TRUE;
}

/* ---- The link fit ------------------------------------------------------------ */

static gboolean
check_duels (const double *d, const double *answer, guint n, double probit_sd,
             GError **error)
{
  if (n == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "no duels to fit a link to");
      return FALSE;
    }
  if (!(probit_sd > 0 && isfinite (probit_sd)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "probit_sd must be positive, got %g", probit_sd);
      return FALSE;
    }
  double reach = 0.0;
  for (guint i = 0; i < n; i++)
    {
      if (!isfinite (d[i]))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "d[%u] is not finite", i);
          return FALSE;
        }
      if (answer[i] != 0.0 && answer[i] != 1.0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "answer[%u] must be 0 or 1, got %g", i, answer[i]);
          return FALSE;
        }
      reach = fmax (reach, fabs (d[i]));
    }
  if (!(reach > 0))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "every d is 0: the model cannot tell the duels apart yet");
      return FALSE;
    }
  return TRUE;
}

static void
write_verdict (SbLinkResult *res)
{
  int pct = (int) lround (100.0 * res->coverage);
  int lev = (int) lround (100.0 * res->level);
  if (res->consistent)
    res->verdict = g_strdup_printf (
        "Consistent with the probit model: \u03a6(d/(\u221a2\u03c3)) stays inside the "
        "%d%% band on %d%% of the duels' range (%u duels, \u03c3 = %.3g).",
        lev, pct, res->n, res->probit_sd);
  else
    res->verdict = g_strdup_printf (
        "Not consistent with the probit model: \u03a6(d/(\u221a2\u03c3)) is inside the "
        "%d%% band on only %d%% of the duels' range; the answers are %s than the "
        "model assumes (%u duels, \u03c3 = %.3g).",
        lev, pct, res->direction >= 0 ? "more decisive" : "less decisive", res->n,
        res->probit_sd);
}

SbLinkResult *
sb_link_fit (const double *d, const double *answer, guint n, double probit_sd,
             const SbLinkOptions *opt, const sg_progress *progress, GError **error)
{
  gint64 start = g_get_monotonic_time ();
  SbLinkOptions o;
  if (opt == NULL)
    sb_link_options_init (&o);
  else
    o = *opt;
  if (!check_duels (d, answer, n, probit_sd, error))
    return NULL;
  if (o.n_grid < 2 || o.n_draws < 10 || !(o.level > 0 && o.level < 1))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "the link needs at least 2 grid points, 10 draws and a level in (0, 1)");
      return NULL;
    }

  /* The prior: mean line g(d) = d / (sqrt2 sigma), the model's own probit
   * link; the basis over +-2 max |d| (sg_link_prior_fit_domain); g(0) ~
   * N(0, 1): a bias of one probit unit towards either candidate is a
   * priori plausible. */
  sg_link_prior prior;
  sg_link_prior_default (&prior);
  prior.n_basis = o.n_basis;
  prior.slope = 1.0 / (G_SQRT2 * probit_sd);
  prior.gamma = 1.0;
  int status = sg_link_prior_fit_domain (&prior, d, n, 0.0, 2.0);
  if (status == SG_OK)
    status = sg_link_prior_check (&prior);
  if (sb_engine_failed (status, "the link prior", error))
    return NULL;
  sg_link_likelihood lik = { SG_LINK_OBS_BINARY, SG_LINK_PROBIT, 0.0 };

  sg_link_workspace *ws = sg_link_workspace_new (n, prior.n_basis);
  g_autofree sg_link_fit *fit = g_new0 (sg_link_fit, 1);
  SubProgress sp_fit = { progress, 0.6, 0.7 }, sp_band = { progress, 0.7, 1.0 };
  sg_progress p_fit = { sub_progress, &sp_fit }, p_band = { sub_progress, &sp_band };
  if (ws == NULL)
    status = SG_ENOMEM;
  else
    status = sg_link_fit_laplace (&prior, &lik, d, answer, n, NULL, &p_fit, ws, fit);
  sg_link_workspace_free (ws);
  if (sb_engine_failed (status, "fitting the link", error))
    return NULL;

  g_autoptr (SbLinkResult) res = g_new0 (SbLinkResult, 1);
  res->n = n;
  res->d = g_memdup2 (d, n * sizeof (double));
  res->answer = g_memdup2 (answer, n * sizeof (double));
  res->probit_sd = probit_sd;
  res->level = o.level;
  res->n_grid = o.n_grid;
  res->grid = g_new (double, o.n_grid);
  res->p_mean = g_new (double, o.n_grid);
  res->p_lower = g_new (double, o.n_grid);
  res->p_upper = g_new (double, o.n_grid);
  res->p_probit = g_new (double, o.n_grid);
  res->log_evidence = fit->log_evidence;
  res->newton_iterations = fit->n_iter;

  double lo = d[0], hi = d[0];
  for (guint i = 1; i < n; i++)
    {
      lo = fmin (lo, d[i]);
      hi = fmax (hi, d[i]);
    }
  /* A symmetric grid (the probit link is symmetric about 0) a little
   * wider than the data, inside the basis domain (+-2 max |d|). */
  double reach = 1.15 * fmax (fabs (lo), fabs (hi));
  for (guint i = 0; i < o.n_grid; i++)
    res->grid[i] = -reach + 2.0 * reach * i / (o.n_grid - 1);

  g_autofree sg_link_point *pt = g_new (sg_link_point, o.n_grid);
  gsl_rng *rng = sg_rng_new (o.seed, 0x11d);
  status = rng ? sg_link_predict (fit, res->grid, o.n_grid, o.n_draws, o.level, rng, &p_band,
                                  pt, NULL)
               : SG_ENOMEM;
  sg_rng_free (rng);
  if (sb_engine_failed (status, "the link's credible band", error))
    return NULL;

  guint in_range = 0, inside = 0;
  double lean = 0.0;
  for (guint i = 0; i < o.n_grid; i++)
    {
      double x = res->grid[i];
      res->p_mean[i] = pt[i].prob_mean;
      res->p_lower[i] = pt[i].prob_lower;
      res->p_upper[i] = pt[i].prob_upper;
      res->p_probit[i] = sg_norm_cdf (x / (G_SQRT2 * probit_sd));
      if (x < lo || x > hi)
        continue;
      in_range++;
      inside += res->p_probit[i] >= res->p_lower[i] && res->p_probit[i] <= res->p_upper[i];
      lean += (x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0) * (res->p_mean[i] - res->p_probit[i]);
    }
  /* With a single distinct d the range holds no grid point: judge there. */
  res->coverage = in_range ? (double) inside / in_range : 1.0;
  res->consistent = res->coverage >= SB_LINK_CONSISTENT_COVERAGE;
  res->direction = lean > 0 ? 1 : lean < 0 ? -1 : 0;
  write_verdict (res);
  res->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  return g_steal_pointer (&res);
}

/* ---- The worker job ------------------------------------------------------------ */

SbLinkInput *
sb_link_input_new (SbSession *session)
{
  SbLinkInput *input = g_new0 (SbLinkInput, 1);
  input->job = sb_job_input_new (session);
  sb_link_options_init (&input->options);
  input->options.seed = input->job->experiment->seed;
  return input;
}

void
sb_link_input_free (SbLinkInput *input)
{
  if (input == NULL)
    return;
  sb_job_input_free (input->job);
  g_free (input);
}

static int
forward_progress (double fraction, void *user_data)
{
  SbWorkerJob *job = user_data;
  if (sb_worker_job_is_cancelled (job))
    return 1;
  sb_worker_job_progress (job, fraction,
                          fraction < 0.6 ? "Posterior utility differences of the duels"
                                         : "Fitting the link");
  return 0;
}

gpointer
sb_link_job (SbWorkerJob *job, gpointer data, GError **error)
{
  SbLinkInput *input = data;
  gint64 start = g_get_monotonic_time ();
  sg_progress progress = { forward_progress, job };
  SbLinkDuels duels = { 0 };

  if (!sb_link_duel_differences (input->job, &input->options, &progress, &duels, error))
    return NULL;
  SbLinkResult *res = sb_link_fit (duels.d, duels.answer, duels.n, duels.probit_sd,
                                   &input->options, &progress, error);
  sb_link_duels_clear (&duels);
  if (res)
    res->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  return res;
}
