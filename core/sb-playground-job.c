/* sb-playground-job.c — exact SkewGP vs Laplace vs EP on a grid, two
 * classes or three one-vs-rest, and BALD (see sb-playground-job.h). */
#include "config.h"

#include "sb-playground-job.h"

#include "sb-engine-job.h"
#include "sb-jobs.h"
#include "sb-smooth-hpd.h"
#include "sg-acq.h"
#include "sg-fit.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Inputs ----------------------------------------------------------------- */

SbPlaygroundInput *
sb_playground_input_new (guint dim, const double *lower, const double *upper)
{
  SbPlaygroundInput *in = g_new0 (SbPlaygroundInput, 1);

  in->dim = CLAMP (dim, 1, 2);
  for (guint j = 0; j < in->dim; j++)
    {
      in->lower[j] = lower[j];
      in->upper[j] = upper[j];
    }
  in->points = g_new0 (SbPlaygroundPoint, SB_PLAYGROUND_MAX_POINTS);
  in->n_classes = 2;
  in->lengthscale = 1;
  in->variance = 1;
  in->laplace = in->ep = TRUE;
  in->n_grid = in->dim == 1 ? 160 : 36;
  in->n_samples = 2000;
  in->seed = 1;
  return in;
}

SbPlaygroundInput *
sb_playground_input_copy (const SbPlaygroundInput *input)
{
  SbPlaygroundInput *in = g_memdup2 (input, sizeof *input);

  in->points = g_memdup2 (input->points, SB_PLAYGROUND_MAX_POINTS * sizeof *input->points);
  return in;
}

void
sb_playground_input_free (SbPlaygroundInput *input)
{
  if (input == NULL)
    return;
  g_free (input->points);
  g_free (input);
}

gboolean
sb_playground_input_add (SbPlaygroundInput *input, const double *x, guint label)
{
  SbPlaygroundPoint *p;

  if (input->n_points >= SB_PLAYGROUND_MAX_POINTS || label >= input->n_classes)
    return FALSE;
  p = &input->points[input->n_points++];
  memset (p, 0, sizeof *p);
  for (guint j = 0; j < input->dim; j++)
    p->x[j] = CLAMP (x[j], input->lower[j], input->upper[j]);
  p->label = label;
  return TRUE;
}

guint
sb_playground_input_n_cells (const SbPlaygroundInput *input)
{
  return input->dim == 1 ? input->n_grid : input->n_grid * input->n_grid;
}

void
sb_playground_input_cell (const SbPlaygroundInput *input, guint c, double *x)
{
  guint n = input->n_grid, i = input->dim == 1 ? c : c % n, j = input->dim == 1 ? 0 : c / n;

  x[0] = input->lower[0] + (input->upper[0] - input->lower[0]) * i / (n - 1);
  if (input->dim == 2)
    x[1] = input->lower[1] + (input->upper[1] - input->lower[1]) * j / (n - 1);
}

void
sb_playground_result_free (SbPlaygroundResult *result)
{
  if (result == NULL)
    return;
  for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
    {
      g_free (result->method[k].error);
      g_free (result->method[k].summary);
      g_free (result->method[k].prob);
    }
  g_free (result->bald);
  sb_playground_input_free (result->input);
  g_free (result);
}

/* ---- Engine plumbing ------------------------------------------------------------ */

/* Storage of an sg_hyper's kernel and SkewGP prior arrays (the hyper
 * borrows them). */
typedef struct {
  sg_kernel kernel;
  double pseudo_points[SB_PLAYGROUND_MAX_S * 2];
  double gamma[SB_PLAYGROUND_MAX_S];
  double phases[SB_PLAYGROUND_MAX_S];
} SkewArrays;

static void
skew_arrays_clear (SkewArrays *a)
{
  sg_kernel_clear (&a->kernel);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SkewArrays, skew_arrays_clear)

/* The hyperparameters of the input; with SKEW (the exact method) its
 * SkewGP prior when in->s > 0, arrays in A. */
static int
init_hyper (const SbPlaygroundInput *in, gboolean skew, SkewArrays *a, sg_hyper *h)
{
  memset (h, 0, sizeof *h);
  /* RBF kernel, zero prior mean, probit noise 1: the model of 000 sec. 6
   * (Figures 5-6) with s = 0, i.e. a GP prior. */
  int status = sg_kernel_init (&a->kernel, SG_KERNEL_RBF, in->dim, in->variance,
                               in->lengthscale);
  if (status != SG_OK)
    return status;
  h->kernel = a->kernel;
  h->mean = 0;
  h->noise.numeric_sd = 1;
  h->noise.probit_sd = 1;
  h->s = 0;
  if (skew && in->s > 0)
    {
      h->s = MIN (in->s, SB_PLAYGROUND_MAX_S);
      memcpy (a->pseudo_points, in->pseudo_points, h->s * in->dim * sizeof (double));
      memcpy (a->gamma, in->gamma, h->s * sizeof (double));
      for (size_t i = 0; i < h->s; i++)
        a->phases[i] = 1;
      h->pseudo_points = a->pseudo_points;
      h->gamma = a->gamma;
      h->phases = a->phases;
    }
  return SG_OK;
}

/* Type-II maximum likelihood of the kernel's lengthscales and variance
 * for METHOD's evidence (sg-fit.h). The box: lengthscales within
 * [0.02, 2] domain widths; the variance in [0.05, 60] — with separable
 * labels the evidence keeps growing with the variance, so it needs a cap
 * (sg-bo.c caps at 60 for the same reason). */
static int
fit_hyper (const SbPlaygroundInput *in, const sg_data *data, sg_fit_method method,
           gsl_rng *rng, const sg_progress *progress, sg_hyper *h)
{
  sg_fit_spec spec;
  sg_evidence_ctx ctx;
  sg_fit_options opt;
  sg_fit_result res;
  int status;

  /* A SkewGP prior also frees its pseudo-points (boxed by the inputs'
   * range) and gamma (in [-3, 3]), as 000 sec. 6 does for Figure 7. */
  status = sg_fit_spec_default (&spec, SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE
                                       | (h->s > 0 ? SG_FIT_GAMMA | SG_FIT_PSEUDO_POINTS : 0),
                                in->dim, data);
  if (status != SG_OK)
    return status;
  for (guint j = 0; j < in->dim; j++)
    {
      double w = in->upper[j] - in->lower[j];
      spec.lengthscale[j] = (sg_fit_range) { 0.02 * w, 2 * w };
    }
  spec.variance = (sg_fit_range) { 0.05, 60 };
  sg_evidence_ctx_init (&ctx, method, data);
  if (method == SG_FIT_METHOD_SKEWGP)
    {
      ctx.workspace = sg_mvn_workspace_new (sg_data_n_probit_rows (data) + h->s + 1);
      if (ctx.workspace == NULL)
        {
          sg_fit_spec_clear (&spec);
          return SG_ENOMEM;
        }
    }
  sg_fit_options_default (&opt);
  opt.n_starts = 3;
  opt.max_seconds = 20;
  status = sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, progress, h, &res);
  if (ctx.workspace)
    sg_mvn_workspace_free (ctx.workspace);
  sg_fit_spec_clear (&spec);
  return status;
}

static void
record_fit (SbPlaygroundFit *f, const sg_hyper *h, guint dim)
{
  f->lengthscale[0] = h->kernel.lengthscales[0];
  f->lengthscale[1] = dim > 1 ? h->kernel.lengthscales[1] : NAN;
  f->variance = h->kernel.variance;
  f->s = (guint) h->s;
  if (h->s > 0)
    {
      memcpy (f->pseudo_points, h->pseudo_points, h->s * dim * sizeof (double));
      memcpy (f->gamma, h->gamma, h->s * sizeof (double));
    }
}

/* ---- The exact posterior ----------------------------------------------------------- */

/* One binary model's computation: model MODEL of N_MODELS on DATA. */
typedef struct {
  const SbPlaygroundInput *in;
  const sg_data *data;
  guint model, n_models;
  const double *cells;       /* n_cells x dim */
  guint n_cells;
  gsl_rng *rng;
  SbWorkerJob *job;
} Ctx;

/* The progress text of STEP, naming the class of a one-vs-rest model. */
static char *
step_text (const Ctx *c, const char *step)
{
  if (c->n_models == 1)
    return g_strdup (step);
  return g_strdup_printf ("%s, class %u against the rest", step, c->model);
}

/* The summaries block of model C->model. */
static sg_point_summary *
model_block (const Ctx *c, SbPlaygroundMethod *m)
{
  return m->summary + (gsize) c->model * c->n_cells;
}

/* BALD (001 eq. 43) at every cell from N samples of f(x) under the exact
 * posterior. Samples are drawn for batches of cells at once
 * (sg_skewgp_joint_samples); BALD depends only on each cell's marginal,
 * which joint draws reproduce exactly, and a batch shares one GEMM. */
static int
compute_bald (const Ctx *c, const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
              const sg_progress *progress, SbPlaygroundResult *r)
{
  enum { BATCH = 32 };
  gsize N = sg_skewgp_samples_count (samples);
  guint dim = c->in->dim;
  g_autofree double *f = g_new (double, BATCH * N);
  g_autofree double *bald = g_new (double, c->n_cells);
  guint best = 0;

  for (guint c0 = 0; c0 < c->n_cells; c0 += BATCH)
    {
      guint b = MIN (BATCH, c->n_cells - c0);
      int status = sg_progress_report (progress, (double) c0 / c->n_cells);
      if (status == SG_OK)
        status = sg_skewgp_joint_samples (post, samples, c->cells + (gsize) c0 * dim, b,
                                          c->rng, f);
      if (status != SG_OK)
        return status;
      for (guint i = 0; i < b; i++)
        {
          bald[c0 + i] = sg_acq_bald (f + (gsize) i * N, N, 1.0);
          if (bald[c0 + i] > bald[best])
            best = c0 + i;
        }
    }
  r->bald = g_steal_pointer (&bald);
  r->bald_cell = best;
  r->bald_max = r->bald[best];
  memcpy (r->bald_x, c->cells + (gsize) best * dim, dim * sizeof (double));
  return SG_OK;
}

/* 000 Corollary 2 at SB_PLAYGROUND_N_CHECK evenly spaced cells: one
 * orthant probability of dimension m + 1 per cell over the common
 * denominator P(t > 0 | y) (sg_skewgp_class_probability_exact). */
static int
compute_checks (const Ctx *c, const sg_skewgp_posterior *post, const sg_progress *progress,
                SbPlaygroundResult *r)
{
  sg_mvn_workspace *w = sg_mvn_workspace_new (sg_skewgp_posterior_n_latent (post) + 1);
  sg_mvn_options opt;
  int status = w ? SG_OK : SG_ENOMEM;

  sg_mvn_options_default (&opt);
  opt.seed = c->in->seed;
  /* The ratio of two probabilities of dimension ~m: the default 10000
   * QMC points leave 1-2% relative error at m = 50; 50000 bring it to a
   * few 1e-3 (error ~ 1/n) for about 0.1 s per cell at m = 50. */
  opt.n_points = 50000;
  for (guint k = 0; status == SG_OK && k < SB_PLAYGROUND_N_CHECK; k++)
    {
      guint cell = (guint) lround ((double) k * (c->n_cells - 1) / (SB_PLAYGROUND_N_CHECK - 1));
      status = sg_progress_report (progress, (double) k / SB_PLAYGROUND_N_CHECK);
      if (status == SG_OK)
        status = sg_skewgp_class_probability_exact (post, c->cells + cell, w, &opt, progress,
                                                    &r->check_prob[k], &r->check_error[k]);
      r->check_cell[k] = cell;
    }
  if (status == SG_OK)
    r->n_check = SB_PLAYGROUND_N_CHECK;
  sg_mvn_workspace_free (w);
  return status;
}

static gboolean
compute_exact (const Ctx *c, SbPlaygroundResult *r, GError **error)
{
  const SbPlaygroundInput *in = c->in;
  SbPlaygroundMethod *m = &r->method[SB_POSTERIOR_EXACT];
  g_autofree char *text = step_text (c, "Fitting the exact SkewGP evidence");
  SbJobProgress pctx = { c->job, text };
  sg_progress progress = { sb_job_forward_progress, &pctx };
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  sg_skewgp_sample_options so;
  sg_summary_options sopt;
  sg_skewgp_evidence ev;
  sg_skewgp_prior prior;
  sg_likelihood lik;
  g_auto (SkewArrays) arrays = { 0 };
  sg_hyper h;
  double ess = NAN;
  int status = init_hyper (in, TRUE, &arrays, &h);

  if (sb_engine_failed (status, "the kernel", error))
    return FALSE;
  if (in->fit && c->data->n_obs >= 2)
    {
      status = fit_hyper (in, c->data, SG_FIT_METHOD_SKEWGP, c->rng, &progress, &h);
      if (sb_engine_failed (status, "fitting the exact evidence", error))
        return FALSE;
    }
  record_fit (&m->fit[c->model], &h, in->dim);

  sg_hyper_skewgp_prior (&h, &prior);
  status = sg_likelihood_build (c->data, &h.noise, &lik);
  if (sb_engine_failed (status, "building the likelihood", error))
    return FALSE;
  status = sg_skewgp_posterior_new (&prior, c->data->X, &lik, &post);
  sg_likelihood_clear (&lik);
  if (sb_engine_failed (status, "the exact posterior", error))
    return FALSE;

  g_free (text);
  pctx.text = text = step_text (c, "Sampling the exact posterior");
  /* The band is drawn only for a binary model (the 1-D view). */
  gboolean smooth_hpd = in->n_samples >= SB_SMOOTH_HPD_MIN_SAMPLES && c->n_models == 1;
  sg_skewgp_sample_options_default (&so);
  status = sg_skewgp_sample (post, in->n_samples, &so, c->rng, &progress, &samples);
  if (status == SG_OK)
    status = sg_skewgp_samples_ess (samples, &ess);
  if (status == SG_OK)
    {
      g_free (text);
      pctx.text = text = step_text (c, "Summarising the exact posterior");
      sg_summary_options_default (&sopt);
      sopt.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_CLASS_PROB
                    | (c->n_models == 1 ? SG_SUMMARY_QUANTILES : 0)
                    | (c->n_models == 1 && !smooth_hpd ? SG_SUMMARY_HPD : 0);
      status = sg_skewgp_summarize (post, samples, c->cells, c->n_cells, &sopt, &progress,
                                    model_block (c, m));
    }
  if (status == SG_OK && smooth_hpd)
    status = sg_progress_report (&progress, 1);
  if (status == SG_OK && smooth_hpd)
    status = sb_smooth_hpd_band (post, samples, c->cells, c->n_cells, sopt.level, c->rng,
                                 model_block (c, m));
  if (status == SG_OK && !(r->ess <= ess))
    r->ess = ess;
  /* The evidence at the hyperparameters used, for the read-out. */
  m->fit[c->model].log_evidence = status == SG_OK
                                  && sg_skewgp_posterior_log_evidence (post, NULL, NULL, &ev) == SG_OK
                                  ? ev.log_ml : NAN;
  if (status == SG_OK && c->n_models == 1 && in->dim == 1
      && c->data->n_obs <= SB_PLAYGROUND_CHECK_MAX_LABELS)
    {
      pctx.text = "Exact class probability (000 Corollary 2)";
      status = compute_checks (c, post, &progress, r);
    }
  if (status == SG_OK && c->n_models == 1 && in->bald)
    {
      pctx.text = "BALD on the grid";
      status = compute_bald (c, post, samples, &progress, r);
    }
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  return !sb_engine_failed (status, "the exact posterior summaries", error);
}

/* ---- Laplace and EP ------------------------------------------------------------------ */

/* Returns FALSE only on cancellation (ERROR set); any other failure is
 * recorded in the method (which is then not ok) and the job goes on. */
static gboolean
compute_gaussian (const Ctx *c, SbPosteriorMethod which, SbPlaygroundResult *r, GError **error)
{
  const SbPlaygroundInput *in = c->in;
  SbPlaygroundMethod *m = &r->method[which];
  gboolean laplace = which == SB_POSTERIOR_LAPLACE;
  const char *name = laplace ? "Laplace approximation" : "Expectation propagation";
  g_autofree char *text = step_text (c, name);
  SbJobProgress pctx = { c->job, text };
  sg_progress progress = { sb_job_forward_progress, &pctx };
  sg_gauss_post gp;
  sg_approx_model model;
  g_auto (SkewArrays) arrays = { 0 };
  sg_hyper h;
  int status = init_hyper (in, FALSE, &arrays, &h);

  if (m->error)
    return TRUE;   /* an earlier model of this method failed */
  if (status == SG_OK && in->fit && c->data->n_obs >= 2)
    status = fit_hyper (in, c->data, laplace ? SG_FIT_METHOD_LAPLACE : SG_FIT_METHOD_EP,
                        c->rng, &progress, &h);
  record_fit (&m->fit[c->model], &h, in->dim);
  if (status == SG_OK)
    {
      sg_hyper_approx_model (&h, SG_LINK_PROBIT, &model);
      if (laplace)
        status = sg_laplace_posterior (&model, c->data, NULL, &progress, NULL, &gp);
      else
        status = sg_ep_posterior (&model, c->data, NULL, &progress, NULL, &gp);
      if (status == SG_OK)
        {
          m->fit[c->model].log_evidence = gp.log_evidence;
          status = sg_gauss_post_summaries (&gp, c->cells, c->n_cells, 0.95, NULL,
                                            model_block (c, m));
          sg_gauss_post_clear (&gp);
        }
    }
  if (status == SG_ECANCELLED)
    return !sb_engine_failed (status, text, error);
  if (status != SG_OK)
    m->error = g_strdup_printf ("%s failed: %s", text, sg_strerror (status));
  return TRUE;
}

/* The class probabilities of method M from its models' P(y = +1): two
 * classes (1 - p, p); three P(c) = p_c / sum_k p_k (000 sec. 7.2). */
static void
class_probabilities (SbPlaygroundMethod *m, guint n_classes, guint n_cells)
{
  m->prob = g_new (double, (gsize) n_cells * n_classes);
  for (guint i = 0; i < n_cells; i++)
    {
      double *p = m->prob + (gsize) i * n_classes, sum = 0;
      if (m->n_models == 1)
        {
          p[1] = CLAMP (m->summary[i].class_probability, 0.0, 1.0);
          p[0] = 1 - p[1];
          continue;
        }
      for (guint k = 0; k < n_classes; k++)
        sum += p[k] = MAX (m->summary[(gsize) k * n_cells + i].class_probability, 0.0);
      for (guint k = 0; k < n_classes; k++)
        p[k] = sum > 0 ? p[k] / sum : 1.0 / n_classes;
    }
}

/* The binary labels of model MODEL: two classes, label 1 is +1; three,
 * class MODEL against the rest. */
static gboolean
model_data (const SbPlaygroundInput *in, guint model, guint n_models, sg_data *data)
{
  sg_data_init (data, in->dim);
  for (guint i = 0; i < in->n_points; i++)
    {
      guint positive = n_models == 1 ? 1 : model;
      if (sg_data_add_binary (data, in->points[i].x, in->points[i].label == positive ? 1 : -1)
          != SG_OK)
        return FALSE;
    }
  return TRUE;
}

/* ---- The job -------------------------------------------------------------------------- */

/* Model MODEL of every method: its data, its random stream (the binary
 * model's is the one a two-class input always had; one-vs-rest model m
 * has its own, so a class's pictures do not depend on the others), the
 * exact posterior, then Laplace and EP. */
static gboolean
compute_model (SbWorkerJob *job, const SbPlaygroundInput *in, const double *cells,
               guint model, SbPlaygroundResult *r, GError **error)
{
  sg_data data;
  gboolean ok = TRUE;
  Ctx c = { in, &data, model, r->method[0].n_models, cells, r->n_cells, NULL, job };

  if (!model_data (in, model, c.n_models, &data))
    {
      sg_data_clear (&data);
      g_set_error (error, SB_ENGINE_ERROR, SG_EINVAL, "a point is not finite");
      return FALSE;
    }
  c.rng = sg_rng_new (in->seed, in->n_points + ((guint64) model << 32));
  if (c.rng == NULL)
    ok = !sb_engine_failed (SG_ENOMEM, "the random stream", error);
  if (ok)
    ok = compute_exact (&c, r, error);
  if (ok && in->laplace)
    ok = compute_gaussian (&c, SB_POSTERIOR_LAPLACE, r, error);
  if (ok && in->ep)
    ok = compute_gaussian (&c, SB_POSTERIOR_EP, r, error);
  sg_rng_free (c.rng);
  sg_data_clear (&data);
  return ok;
}

SbPlaygroundResult *
sb_playground_compute (SbWorkerJob *job, const SbPlaygroundInput *input, GError **error)
{
  g_autoptr (SbPlaygroundResult) r = g_new0 (SbPlaygroundResult, 1);
  gint64 start = g_get_monotonic_time ();
  guint dim = input->dim, n_models;
  g_autofree double *cells = NULL;
  gboolean wanted[SB_N_POSTERIOR_METHODS] = { TRUE, input->laplace, input->ep };

  if (input->n_grid < 2 || input->n_samples < 2 || !(input->lengthscale > 0)
      || !(input->variance > 0) || input->n_classes < 2
      || input->n_classes > SB_PLAYGROUND_MAX_CLASSES)
    {
      g_set_error (error, SB_ENGINE_ERROR, SG_EINVAL, "invalid playground settings");
      return NULL;
    }
  for (guint i = 0; i < input->n_points; i++)
    if (input->points[i].label >= input->n_classes)
      {
        g_set_error (error, SB_ENGINE_ERROR, SG_EINVAL, "point %u has class %u of %u", i + 1,
                     input->points[i].label, input->n_classes);
        return NULL;
      }
  r->generation = input->generation;
  r->input = sb_playground_input_copy (input);
  r->n_classes = input->n_classes;
  r->n_cells = sb_playground_input_n_cells (input);
  n_models = input->n_classes == 2 ? 1 : input->n_classes;
  for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
    {
      SbPlaygroundMethod *m = &r->method[k];
      m->n_models = n_models;
      for (guint j = 0; j < n_models; j++)
        m->fit[j].log_evidence = NAN;
      if (wanted[k])
        m->summary = g_new0 (sg_point_summary, (gsize) n_models * r->n_cells);
    }
  r->ess = NAN;

  cells = g_new (double, (gsize) r->n_cells * dim);
  for (guint i = 0; i < r->n_cells; i++)
    sb_playground_input_cell (input, i, cells + (gsize) i * dim);

  for (guint model = 0; model < n_models; model++)
    if (!compute_model (job, input, cells, model, r, error))
      return NULL;
  for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
    {
      SbPlaygroundMethod *m = &r->method[k];
      m->ok = wanted[k] && m->error == NULL;
      if (m->ok)
        class_probabilities (m, r->n_classes, r->n_cells);
      else
        g_clear_pointer (&m->summary, g_free);
    }
  r->seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;
  return g_steal_pointer (&r);
}

gpointer
sb_playground_job (SbWorkerJob *job, gpointer input, GError **error)
{
  return sb_playground_compute (job, input, error);
}
