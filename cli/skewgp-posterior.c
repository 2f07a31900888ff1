/* skewgp-posterior.c — `skewgp posterior`: the exact SkewGP posterior at
 * given points, and the log marginal likelihood. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-model-json.h"

#include "sg-rng.h"
#include "sg-skewgp.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>

/* samples x (observations + pseudo-points) at most: the samples hold about
 * twice that many doubles, 0.8 GB at the limit */
#define MAX_SAMPLE_NUMBERS 5e7

static const char posterior_help[] =
  "Usage: skewgp posterior FILE|-\n\n"
  "The exact SkewGP posterior (paper 001, Lemma 1, Lemma 2, Theorem 3.3):\n"
  "summaries of f at the requested points and the log marginal likelihood\n"
  "(001 Corollary 3, with an error estimate of the orthant probability).\n\n"
  "Input fields:\n"
  SKEWGP_MODEL_HELP
  "  \"predict\": {\"points\": [[...], ...],  points where f is summarised\n"
  "              \"reference\": [...],      optional x_r for prob_better\n"
  "              \"samples\": N,            posterior samples (default 2000;\n"
  "                                      N x (observations + pseudo-points)\n"
  "                                      at most 5e7)\n"
  "              \"seed\": S,               random seed (default 0)\n"
  "              \"credible\": 0.95}        credible level in (0, 1)\n\n"
  "Output: {\"log_marginal_likelihood\": v, \"log_marginal_likelihood_error\": e,\n"
  "         \"points\": [{\"mean\", \"median\", \"sd\", \"lower\", \"upper\",\n"
  "                     \"hpd_lower\", \"hpd_upper\", \"skewness\",\n"
  "                     \"class_probability\", \"prob_better\"?}]}\n"
  "lower/upper: equal-tailed interval; hpd_*: highest-density interval;\n"
  "skewness: E[(f-mu)^3] / E[(f-mu)^2]^(3/2); class_probability: E[Phi(f(x)/probit_sd)];\n"
  "prob_better: P(f(x) > f(reference)), only with a reference.\n"
  "Exit status: 0 success, 1 numerical failure (a result that is not\n"
  "finite, e.g. the log marginal likelihood of y = 1e308 under a prior of\n"
  "variance 2, or a posterior mean too large against its sd for doubles to\n"
  "hold the samples' spread), 2 bad input.\n";

typedef struct {
  double *points;
  gsize n_points;
  double *reference;
  gint64 samples, seed;
  double credible;
} PredictRequest;

static void
predict_request_clear (PredictRequest *p)
{
  g_clear_pointer (&p->points, g_free);
  g_clear_pointer (&p->reference, g_free);
}

static gboolean
read_predict (JsonObject *root, gsize dim, PredictRequest *req, GError **error)
{
  *req = (PredictRequest) { .samples = 2000, .seed = 0, .credible = 0.95 };
  JsonNode *node = json_object_has_member (root, "predict")
                     ? json_object_get_member (root, "predict") : NULL;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   node ? "field 'predict' must be an object" : "field 'predict' is required");
      return FALSE;
    }
  JsonObject *p = json_node_get_object (node);
  static const char *const known[] = { "points", "reference", "samples", "seed",
                                       "credible", NULL };
  gsize cols, len;
  if (!skewgp_check_fields (p, "predict", known, error)
      || !skewgp_get_matrix (p, "points", TRUE, 0, dim, &req->points, &req->n_points,
                             &cols, error)
      || !skewgp_get_vector (p, "reference", FALSE, dim, FALSE, 0, &req->reference, &len,
                             error)
      || !skewgp_get_int (p, "samples", FALSE, 10, 10000000, &req->samples, error)
      || !skewgp_get_int (p, "seed", FALSE, 0, G_MAXINT64, &req->seed, error)
      || !skewgp_get_double (p, "credible", FALSE, &req->credible, error))
    {
      g_prefix_error (error, "predict: ");
      return FALSE;
    }
  if (!(req->credible > 0 && req->credible < 1))
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "predict.credible must be in (0, 1), got %g", req->credible);
      return FALSE;
    }
  return TRUE;
}

static JsonNode *
summary_node (const sg_point_summary *s, gboolean with_ref)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  skewgp_add_double (b, "mean", s->mean);
  skewgp_add_double (b, "median", s->median);
  skewgp_add_double (b, "sd", s->sd);
  skewgp_add_double (b, "lower", s->lower);
  skewgp_add_double (b, "upper", s->upper);
  skewgp_add_double (b, "hpd_lower", s->hpd_lower);
  skewgp_add_double (b, "hpd_upper", s->hpd_upper);
  skewgp_add_double (b, "skewness", s->skewness);
  skewgp_add_double (b, "class_probability", s->class_probability);
  if (with_ref)
    skewgp_add_double (b, "prob_better", s->prob_better);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
print_result (const sg_skewgp_evidence *ev, const sg_point_summary *sum, gsize n,
              gboolean with_ref)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  skewgp_add_double (b, "log_marginal_likelihood", ev->log_ml);
  skewgp_add_double (b, "log_marginal_likelihood_error", ev->error);
  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (gsize i = 0; i < n; i++)
    json_builder_add_value (b, summary_node (&sum[i], with_ref));
  json_builder_end_array (b);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

static gboolean
numeric_failure (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
numeric_failure (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, msg);
  return FALSE;
}

/* What would print as null is a numerical failure (exit 1), never null
 * with exit 0: the log marginal likelihood (below -1.8e308 when numeric y
 * lie ~1e154 prior sds out), and each point's summary. A summary whose
 * mean is so large against its sd that doubles cannot hold three digits
 * of the samples' spread (|mean| eps > 1e-3 sd) fails too: its sd and
 * intervals would be rounding noise. A zero sd (no spread) leaves the
 * skewness undefined; prob_better is NaN without a reference. */
static gboolean
check_results (const sg_skewgp_evidence *ev, const sg_point_summary *sum, gsize n,
               gboolean with_ref, GError **error)
{
  if (!isfinite (ev->log_ml) || !isfinite (ev->error))
    return numeric_failure (error, "the log marginal likelihood is not finite (%g): the "
                            "observations lie too far out for the prior's scale", ev->log_ml);
  for (gsize i = 0; i < n; i++)
    {
      const sg_point_summary *s = &sum[i];
      const double v[] = { s->mean, s->median, s->sd, s->lower, s->upper, s->hpd_lower,
                           s->hpd_upper, s->class_probability,
                           s->sd > 0 ? s->skewness : 0, with_ref ? s->prob_better : 0 };
      static const char *const names[] = { "mean", "median", "sd", "lower", "upper",
                                           "hpd_lower", "hpd_upper", "class_probability",
                                           "skewness", "prob_better" };
      if (s->sd > 0 && isfinite (s->sd) && fabs (s->mean) * DBL_EPSILON > 1e-3 * s->sd)
        return numeric_failure (error, "point %" G_GSIZE_FORMAT ": the posterior mean %g is "
                                "too large against its sd %g for double precision to hold "
                                "the samples' spread (observations far beyond the prior's "
                                "scale?)", i, s->mean, s->sd);
      for (gsize k = 0; k < G_N_ELEMENTS (v); k++)
        if (!isfinite (v[k]))
          return numeric_failure (error, "point %" G_GSIZE_FORMAT ": the posterior %s is not "
                                  "finite", i, names[k]);
    }
  return TRUE;
}

static gboolean
run_posterior (JsonObject *input, GError **error)
{
  static const char *const known[] = { SKEWGP_MODEL_FIELDS, "predict", NULL };
  SkewgpModel model = { 0 };
  PredictRequest req = { 0 };
  gboolean ok = FALSE;
  sg_likelihood lik = { 0 };
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  gsl_rng *rng = NULL;
  sg_point_summary *sum = NULL;
  sg_skewgp_prior prior;
  sg_mvn_options mo;
  sg_skewgp_evidence ev;
  sg_summary_options so;
  int status;

  if (!skewgp_check_fields (input, NULL, known, error)
      || !skewgp_model_from_json (input, &model, error)
      || !read_predict (input, model.kernel.dim, &req, error))
    goto out;

  /* the samples keep ~2 numbers per observation each */
  if ((double) req.samples * (double) (model.data.n_obs + model.s) > MAX_SAMPLE_NUMBERS)
    {
      skewgp_input_error (error, "predict.samples: %" G_GINT64_FORMAT " samples of %" G_GSIZE_FORMAT
                          " observations and pseudo-points exceed the limit of %.0e numbers "
                          "(samples x (observations + pseudo-points); ~0.8 GB)", req.samples,
                          (gsize) (model.data.n_obs + model.s), MAX_SAMPLE_NUMBERS);
      goto out;
    }
  skewgp_model_prior (&model, &prior);
  status = sg_likelihood_build (&model.data, &model.noise, &lik);
  if (status != SG_OK)
    {
      skewgp_numeric_error (error, "likelihood", status);
      goto out;
    }
  status = sg_skewgp_posterior_new (&prior, model.data.X, &lik, &post);
  if (status != SG_OK)
    {
      skewgp_numeric_error (error, "posterior", status);
      goto out;
    }
  sg_mvn_options_default (&mo);
  mo.seed = (uint64_t) req.seed;
  status = sg_skewgp_posterior_log_evidence (post, NULL, &mo, &ev);
  if (status != SG_OK)
    {
      skewgp_numeric_error (error, "log marginal likelihood", status);
      goto out;
    }
  rng = sg_rng_new ((uint64_t) req.seed, 0);
  status = rng ? sg_skewgp_sample (post, (size_t) req.samples, NULL, rng, NULL, &samples)
               : SG_ENOMEM;
  if (status != SG_OK)
    {
      skewgp_numeric_error (error, "posterior sampling", status);
      goto out;
    }
  sg_summary_options_default (&so);
  so.level = req.credible;
  so.reference = req.reference;
  so.probit_sd = model.noise.probit_sd;
  sum = g_new (sg_point_summary, req.n_points);
  status = sg_skewgp_summarize (post, samples, req.points, req.n_points, &so, NULL, sum);
  if (status != SG_OK)
    {
      skewgp_numeric_error (error, "summaries", status);
      goto out;
    }

  if (!check_results (&ev, sum, req.n_points, req.reference != NULL, error))
    goto out;
  print_result (&ev, sum, req.n_points, req.reference != NULL);
  ok = TRUE;

out:
  g_free (sum);
  sg_rng_free (rng);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  predict_request_clear (&req);
  skewgp_model_clear (&model);
  return ok;
}

const SkewgpCommand skewgp_command_posterior = {
  .name = "posterior",
  .summary = "exact SkewGP posterior summaries and log marginal likelihood",
  .help = posterior_help,
  .run = run_posterior,
};
