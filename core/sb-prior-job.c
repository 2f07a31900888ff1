/* sb-prior-job.c — the prior explorer's engine jobs (sb-prior-job.h). */
#include "config.h"

#include "sb-prior-job.h"
#include "sb-engine-job.h"
#include "sb-jobs.h"
#include "sb-smooth-hpd.h"

#include "sg-rng.h"
#include "sg-skewgp-sun.h"
#include "sg-skewgp.h"

#include <math.h>
#include <string.h>

void
sb_prior_input_init (SbPriorInput *in)
{
  memset (in, 0, sizeof *in);
  in->kernel = SG_KERNEL_RBF;
  in->lengthscale = 0.3;
  in->variance = 1.0;
  in->mean = 0.0;
  in->s = 2;
  in->pseudo[0] = 0.3;
  in->pseudo[1] = 0.7;
  in->pseudo[2] = 0.5;
  in->pseudo[3] = 0.15;
  for (guint i = 0; i < SB_PRIOR_MAX_S; i++)
    {
      in->phase[i] = 1;
      in->gamma[i] = -0.5;
    }
  in->phase[1] = -1;
  in->x_lo = 0;
  in->x_hi = 1;
  in->n_grid = 161;
  in->n_samples = 2000;
  in->n_paths = 12;
  in->seed = 8;
  in->pair = SB_PRIOR_PAIR_POINTS;
  in->pair_x[0] = 0.25;   /* Omega_12 = 0.88 at l = 0.3, as in 000 Figure 2 */
  in->pair_x[1] = 0.4;
  in->n_pair_grid = 61;
}

SbPriorInput *
sb_prior_input_copy (const SbPriorInput *input)
{
  return g_memdup2 (input, sizeof *input);
}

void
sb_prior_input_free (SbPriorInput *input)
{
  g_free (input);
}

static gboolean
prior_equal (const SbPriorInput *a, const SbPriorInput *b)
{
  if (a->kernel != b->kernel || a->lengthscale != b->lengthscale
      || a->variance != b->variance || a->mean != b->mean || a->s != b->s)
    return FALSE;
  for (guint i = 0; i < a->s; i++)
    if (a->pseudo[i] != b->pseudo[i] || a->phase[i] != b->phase[i]
        || a->gamma[i] != b->gamma[i])
      return FALSE;
  return TRUE;
}

gboolean
sb_prior_input_equal_curves (const SbPriorInput *a, const SbPriorInput *b)
{
  return prior_equal (a, b) && a->x_lo == b->x_lo && a->x_hi == b->x_hi
         && a->n_grid == b->n_grid && a->n_samples == b->n_samples
         && a->n_paths == b->n_paths && a->seed == b->seed;
}

gboolean
sb_prior_input_equal_pair (const SbPriorInput *a, const SbPriorInput *b)
{
  if (a->pair != b->pair || a->n_pair_grid != b->n_pair_grid)
    return FALSE;
  if (a->pair != SB_PRIOR_PAIR_POINTS)
    return TRUE;   /* the figure's SUNs do not depend on the prior */
  return prior_equal (a, b) && a->pair_x[0] == b->pair_x[0] && a->pair_x[1] == b->pair_x[1];
}

const char *
sb_prior_pair_mode_label (SbPriorPairMode mode)
{
  switch (mode)
    {
    case SB_PRIOR_PAIR_POINTS: return "f(x_a), f(x_b) under this prior";
    case SB_PRIOR_PAIR_FIGURE2_A1: return "000 Figure 2 (a1): s = 1";
    case SB_PRIOR_PAIR_FIGURE2_A2: return "000 Figure 2 (a2): s = 1";
    case SB_PRIOR_PAIR_FIGURE2_A3: return "000 Figure 2 (a3): s = 2, Γ₁₂ = 0.96";
    case SB_PRIOR_PAIR_FIGURE2_A4: return "000 Figure 2 (a4): s = 2, Γ₁₂ = 0.33";
    default: return "";
    }
}

/* ---- Shared ----------------------------------------------------------------- */

/* The engine's prior from the input (arrays borrowed from IN, the kernel
 * a view of K, made here). */
static gboolean
make_prior (const SbPriorInput *in, sg_kernel *k, sg_skewgp_prior *prior, GError **error)
{
  if (in->s > SB_PRIOR_MAX_S)
    {
      g_set_error (error, SB_ENGINE_ERROR, SG_EINVAL, "latent dimension %u > %d", in->s,
                   SB_PRIOR_MAX_S);
      return FALSE;
    }
  if (sb_engine_failed (sg_kernel_init (k, in->kernel, 1, in->variance, in->lengthscale),
                        "the kernel", error))
    return FALSE;
  sg_skewgp_prior_gp (prior, k, in->mean);
  prior->s = in->s;
  prior->pseudo_points = in->pseudo;
  prior->phases = in->phase;
  prior->gamma = in->gamma;
  return !sb_engine_failed (sg_skewgp_prior_check (prior), "the prior", error);
}

/* ---- Curves: 000 Figure 3 ----------------------------------------------------- */

/* Closed-form mean and sd at the grid (sg_sun_marginal_moments) in place of
 * the sampled ones. FALSE when they do not exist in closed form here (two
 * pseudo-points at the same place make a 2 x 2 block of Gamma singular). */
static gboolean
closed_form_moments (const sg_skewgp_prior *prior, const double *xs, guint n,
                     sg_point_summary *sum)
{
  sg_sun sun;
  if (sg_sun_from_skewgp_prior (prior, xs, n, &sun) != SG_OK)
    return FALSE;
  g_autofree double *mean = g_new (double, n);
  g_autofree double *var = g_new (double, n);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;   /* s = 4 needs one QMC Phi_3: smooth across updates */
  int status = sg_sun_marginal_moments (&sun, NULL, &mo, mean, var);
  sg_sun_clear (&sun);
  if (status != SG_OK)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!isfinite (mean[i]) || !(var[i] >= 0))
      return FALSE;
  for (guint i = 0; i < n; i++)
    {
      sum[i].mean = mean[i];
      sum[i].sd = sqrt (var[i]);
    }
  return TRUE;
}

gpointer
sb_prior_job_curves (SbWorkerJob *job, gpointer data, GError **error)
{
  const SbPriorInput *in = data;
  SbJobProgress pctx = { job, NULL };
  sg_progress progress = { sb_job_forward_progress, &pctx };
  sg_skewgp_prior prior;
  g_auto (sg_kernel) kernel = { 0 };
  guint n = MAX (in->n_grid, 2);
  gsize ns = MAX (in->n_samples, 10);

  if (!make_prior (in, &kernel, &prior, error))
    return NULL;
  g_autofree double *xs = g_new (double, n);
  for (guint i = 0; i < n; i++)
    xs[i] = in->x_lo + (in->x_hi - in->x_lo) * i / (double) (n - 1);

  sg_skewgp_posterior *post = NULL;
  if (sb_engine_failed (sg_skewgp_prior_posterior (&prior, &post), "the prior", error))
    return NULL;

  sg_skewgp_samples *samples = NULL;
  gsl_rng *rng = sg_rng_new (in->seed, 1);
  int status = rng ? sg_skewgp_sample (post, ns, NULL, rng, &progress, &samples) : SG_ENOMEM;
  g_autofree sg_point_summary *sum = g_new0 (sg_point_summary, n);
  sg_summary_options so;
  sg_summary_options_default (&so);
  if (status == SG_OK)
    {
      so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_QUANTILES | SG_SUMMARY_HPD;
      status = sg_skewgp_summarize (post, samples, xs, n, &so, &progress, sum);
    }
  if (status == SG_OK && ns >= SB_SMOOTH_HPD_MIN_SAMPLES)
    status = sb_smooth_hpd_band (post, samples, xs, n, so.level, rng, sum);
  guint k = MIN (in->n_paths, ns);
  g_autofree double *out = g_new (double, (gsize) n * MAX (k, 1));
  if (status == SG_OK && k > 0)
    {
      size_t which[64];
      k = MIN (k, G_N_ELEMENTS (which));
      for (guint j = 0; j < k; j++)
        which[j] = j * (ns / k);
      gsl_rng *rng2 = sg_rng_new (in->seed, 2);
      status = rng2 ? sg_skewgp_sample_paths (post, samples, xs, n, which, k, rng2, out)
                    : SG_ENOMEM;
      sg_rng_free (rng2);
    }
  sg_rng_free (rng);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  if (sb_worker_job_is_cancelled (job))
    status = SG_ECANCELLED;
  if (sb_engine_failed (status, "the prior samples", error))
    return NULL;

  closed_form_moments (&prior, xs, n, sum);

  SbPlotSnapshot *snap = sb_plot_snapshot_new (1, sb_worker_job_get_generation (job));
  sb_plot_snapshot_set_parameter (snap, 0, "x", in->x_lo, in->x_hi);
  sb_plot_snapshot_set_curve_grid (snap, 0, n, xs);
  sb_plot_snapshot_set_summaries (snap, SB_POSTERIOR_EXACT, sum);
  if (k > 0)
    {
      /* OUT is n x k; the snapshot wants k paths of n values. */
      g_autofree double *paths = g_new (double, (gsize) k * n);
      for (guint j = 0; j < k; j++)
        for (guint i = 0; i < n; i++)
          paths[(gsize) j * n + i] = out[(gsize) i * k + j];
      sb_plot_snapshot_set_sample_paths (snap, k, paths);
    }
  sb_plot_snapshot_freeze (snap);
  return snap;
}

/* ---- Pair: 000 Figures 1-2 ------------------------------------------------------ */

void
sb_prior_pair_free (SbPriorPair *pair)
{
  if (pair == NULL)
    return;
  g_clear_pointer (&pair->sun, sb_grid2_unref);
  g_clear_pointer (&pair->gauss, sb_grid2_unref);
  g_free (pair->title);
  g_free (pair->subtitle);
  g_free (pair->x_label);
  g_free (pair->y_label);
  g_free (pair);
}

/* The SUN_{2,s} of 000 Figure 2 panel MODE: xi = 0, Omega a correlation
 * matrix with Omega_12 = 0.88, gamma = 0, Gamma a correlation matrix; the
 * Delta of the caption (row i = component i). */
static void
figure2_sun (SbPriorPairMode mode, sg_sun *sun, char **subtitle)
{
  size_t s = mode <= SB_PRIOR_PAIR_FIGURE2_A2 ? 1 : 2;
  sg_sun_init (sun, 2, s);
  sun->Omega[0] = sun->Omega[3] = 1;
  sun->Omega[1] = sun->Omega[2] = 0.88;
  switch (mode)
    {
    case SB_PRIOR_PAIR_FIGURE2_A1:
      sun->Delta[0] = 0.88, sun->Delta[1] = 0.61, sun->Gamma[0] = 1;
      *subtitle = g_strdup ("ξ = 0, Ω₁₂ = 0.88, γ = 0, Γ = 1, Δ = (0.88, 0.61)ᵀ");
      break;
    case SB_PRIOR_PAIR_FIGURE2_A2:
      sun->Delta[0] = 0.61, sun->Delta[1] = 0.88, sun->Gamma[0] = 1;
      *subtitle = g_strdup ("ξ = 0, Ω₁₂ = 0.88, γ = 0, Γ = 1, Δ = (0.61, 0.88)ᵀ");
      break;
    case SB_PRIOR_PAIR_FIGURE2_A3:
      {
        const double D[4] = { 0.61, 0.76, 0.88, 0.97 }, G[4] = { 1, 0.96, 0.96, 1 };
        memcpy (sun->Delta, D, sizeof D);
        memcpy (sun->Gamma, G, sizeof G);
        *subtitle = g_strdup ("ξ = 0, Ω₁₂ = 0.88, γ = 0, Γ₁₂ = 0.96, Δ = [0.61 0.76; 0.88 0.97]");
      }
      break;
    default:
      {
        const double D[4] = { 0.61, 0.88, 0.88, 0.61 }, G[4] = { 1, 0.33, 0.33, 1 };
        memcpy (sun->Delta, D, sizeof D);
        memcpy (sun->Gamma, G, sizeof G);
        *subtitle = g_strdup ("ξ = 0, Ω₁₂ = 0.88, γ = 0, Γ₁₂ = 0.33, Δ = [0.61 0.88; 0.88 0.61]");
      }
      break;
    }
}

/* The density of SUN on the NG x NG grid over BOX (x0, x1, y0, y1). */
static int
density_grid (const sg_sun *sun, guint ng, const double *box, const sg_mvn_options *mo,
              SbWorkerJob *job, SbGrid2 **out)
{
  gsize nn = (gsize) ng * ng;
  g_autofree double *Z = g_new (double, 2 * nn);
  g_autofree double *d = g_new (double, nn);
  for (guint j = 0; j < ng; j++)
    for (guint i = 0; i < ng; i++)
      {
        Z[2 * ((gsize) j * ng + i)] = box[0] + (box[1] - box[0]) * i / (double) (ng - 1);
        Z[2 * ((gsize) j * ng + i) + 1] = box[2] + (box[3] - box[2]) * j / (double) (ng - 1);
      }
  sg_mvn_workspace *w = sg_mvn_workspace_new (MAX (sun->s, 1));
  int status = w ? SG_OK : SG_ENOMEM;
  /* Row by row, so a superseded job stops within one row. */
  for (guint j = 0; j < ng && status == SG_OK; j++)
    {
      if (sb_worker_job_is_cancelled (job))
        status = SG_ECANCELLED;
      else
        status = sg_sun_density (sun, Z + 2 * (gsize) j * ng, ng, w, mo, d + (gsize) j * ng);
    }
  sg_mvn_workspace_free (w);
  if (status == SG_OK)
    *out = sb_grid2_new (ng, ng, box[0], box[1], box[2], box[3], d);
  return status;
}

gpointer
sb_prior_job_pair (SbWorkerJob *job, gpointer data, GError **error)
{
  const SbPriorInput *in = data;
  guint ng = MAX (in->n_pair_grid, 5);
  g_autoptr (SbPriorPair) pair = g_new0 (SbPriorPair, 1);
  sg_sun sun;
  double box[4];

  pair->generation = sb_worker_job_get_generation (job);
  if (in->pair == SB_PRIOR_PAIR_POINTS)
    {
      sg_skewgp_prior prior;
      g_auto (sg_kernel) kernel = { 0 };
      if (!make_prior (in, &kernel, &prior, error)
          || sb_engine_failed (sg_sun_from_skewgp_prior (&prior, in->pair_x, 2, &sun),
                               "the SUN of the pair", error))
        return NULL;
      pair->title = g_strdup_printf ("SUN density of f(%.2f), f(%.2f)", in->pair_x[0],
                                     in->pair_x[1]);
      pair->subtitle = g_strdup ("000 eq. 1 at x_a, x_b; dashed: the GP (s = 0)");
      pair->x_label = g_strdup_printf ("f(x_a = %.2f)", in->pair_x[0]);
      pair->y_label = g_strdup_printf ("f(x_b = %.2f)", in->pair_x[1]);
    }
  else
    {
      figure2_sun (in->pair, &sun, &pair->subtitle);
      pair->title = g_strdup_printf ("SUN₂,%zu density, %s", sun.s,
                                     sb_prior_pair_mode_label (in->pair));
      pair->x_label = g_strdup ("z₁");
      pair->y_label = g_strdup ("z₂");
    }

  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;   /* one QMC point set for the whole grid: smooth contours */
  if (sun.s >= 3)
    {
      /* Phi_s, s >= 3, is QMC at every grid point: plain Genz with 500
       * points on a 41 x 41 grid keeps the job interactive. Against 2e4
       * tilted points the density differs by < 0.5% of its maximum
       * (measured for s = 3, 4 on the default prior), invisible in
       * contours drawn at 5-80% of the maximum. s <= 2 is exact. */
      mo.method = SG_MVN_GENZ;
      mo.n_points = 500;
      ng = MIN (ng, 41);
    }
  double mean[2] = { NAN, NAN }, var[2] = { NAN, NAN };
  if (sg_sun_marginal_moments (&sun, NULL, &mo, mean, var) != SG_OK)
    mean[0] = mean[1] = var[0] = var[1] = NAN;
  /* The box: the SUN's mean +- 3.5 of its sd joined with the Gaussian's
   * +-2.5 sd around xi (its inner contours; the SUN is a shifted, often
   * squeezed Gaussian, so this keeps the SUN large on the plot). */
  for (int a = 0; a < 2; a++)
    {
      double sd = sqrt (sun.Omega[a * 2 + a]);
      box[2 * a] = sun.xi[a] - 2.5 * sd;
      box[2 * a + 1] = sun.xi[a] + 2.5 * sd;
      if (isfinite (mean[a]) && var[a] > 0)
        {
          box[2 * a] = MIN (box[2 * a], mean[a] - 3.5 * sqrt (var[a]));
          box[2 * a + 1] = MAX (box[2 * a + 1], mean[a] + 3.5 * sqrt (var[a]));
        }
    }
  int status = density_grid (&sun, ng, box, &mo, job, &pair->sun);
  if (status == SG_OK)
    {
      sg_sun gauss;
      status = sg_sun_init (&gauss, 2, 0);
      if (status == SG_OK)
        {
          memcpy (gauss.xi, sun.xi, 2 * sizeof (double));
          memcpy (gauss.Omega, sun.Omega, 4 * sizeof (double));
          status = density_grid (&gauss, ng, box, &mo, job, &pair->gauss);
          sg_sun_clear (&gauss);
        }
    }
  sg_sun_clear (&sun);
  if (sb_engine_failed (status, "the SUN density", error))
    return NULL;
  pair->mean[0] = mean[0];
  pair->mean[1] = mean[1];
  return g_steal_pointer (&pair);
}
