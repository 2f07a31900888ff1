/* skewgp-fit.c — `skewgp fit`: type-II maximum likelihood of the
 * hyperparameters of the model document of `skewgp posterior` (engine
 * sg_fit), for the exact SkewGP evidence or the Laplace / EP ones. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-model-json.h"

#include "sg-fit.h"
#include "sg-rng.h"

#include <math.h>
#include <string.h>

/* QMC points of the CRN objective while fitting, and of the reported log
 * evidence: see tests/bench/results-fit.md (the noise measurement). */
#define FIT_POINTS 1000
#define FINAL_POINTS 40000

static const char fit_help[] =
  "Usage: skewgp fit FILE|-\n\n"
  "Fits hyperparameters by maximising the log marginal likelihood (type-II\n"
  "maximum likelihood; paper 001 sec. 4). The exact SkewGP evidence (001\n"
  "Corollaries 1-3) uses Genz/Botev QMC for log Phi_m with a fixed point set\n"
  "and a fixed variable order while fitting (a deterministic, smooth\n"
  "objective; tests/bench/results-fit.md), then\n"
  "re-evaluates the optimum with a fresh, larger point set; Laplace and EP\n"
  "use their own approximations of the evidence (GP prior only). The local\n"
  "optimiser (NLopt, derivative-free) runs from the document's values and\n"
  "from a Latin hypercube of further starts in the bounds.\n\n"
  "Input: the document of `skewgp posterior` (\"predict\" is accepted and\n"
  "ignored) plus \"fit\". Start values are the model fields; they are\n"
  "clamped into the bounds.\n"
  SKEWGP_MODEL_HELP
  "  \"fit\": {\n"
  "     \"free\": [...]        any of \"lengthscales\", \"variance\", \"numeric_sd\",\n"
  "                          \"probit_sd\", \"mean\", \"gamma\", \"pseudo_points\"\n"
  "                          (these two need \"skew\"), \"tie_margin\", \"side_bias\",\n"
  "                          \"confidence\" (weak_scale and strong_scale; \"normal\"\n"
  "                          is the unit); default [\"lengthscales\", \"variance\"]\n"
  "     \"method\": \"skewgp\" | \"laplace\" | \"ep\"          (default \"skewgp\")\n"
  "     \"link\": \"probit\" | \"logistic\"   Laplace only  (default \"probit\")\n"
  "     \"restarts\": k        extra starts after the first (default 3)\n"
  "     \"seed\": s            Latin hypercube and QMC seed (default 0)\n"
  "     \"algorithm\": \"bobyqa\" | \"sbplx\" | \"neldermead\" (default \"bobyqa\")\n"
  "     \"max_evaluations\": n total over all starts (default 400)\n"
  "     \"max_seconds\": t     wall-clock budget, 0 = none (default 0)\n"
  "     \"points\": n          QMC points per evaluation while fitting\n"
  "                          (skewgp; default 1000)\n"
  "     \"final_points\": n    QMC points of the reported evidence (default 40000)\n"
  "     \"bounds\": {          optional boxes, natural units (not logs):\n"
  "        \"lengthscales\": [lo, hi] | [[lo, hi], ...] (one per dimension),\n"
  "        \"variance\", \"numeric_sd\", \"probit_sd\", \"mean\", \"gamma\": [lo, hi],\n"
  "        \"pseudo_points\": [lo, hi] | [[lo, hi], ...] (per input coordinate),\n"
  "        \"tie_margin\", \"side_bias\", \"weak_scale\", \"strong_scale\": [lo, hi]}\n"
  "        Defaults scale with the data: lengthscale_j in [0.01, 10] x range_j,\n"
  "        variance [1e-2, 1e3] x sy^2, numeric_sd [1e-3, 10] x sy,\n"
  "        probit_sd [1e-2, 1e2], mean mean(y) -+ 3 sy, gamma [-3, 3],\n"
  "        pseudo-points the box of the inputs (sy = sd of numeric values, or 1),\n"
  "        tie_margin [1e-3, 10], side_bias [-3, 3], weak_scale [1, 10],\n"
  "        strong_scale [0.1, 1].\n"
  "  }\n\n"
  "Output: {\"kernel\": {...}, \"mean\": c, \"noise\": {...}, \"skew\": {...}?\n"
  "           (the fitted model, ready to paste into a posterior document),\n"
  "         \"method\": ..., \"log_marginal_likelihood\": v,\n"
  "         \"log_marginal_likelihood_error\": e   (skewgp: re-evaluated with\n"
  "           final_points fresh points; laplace/ep: their value, error 0),\n"
  "         \"objective\": the best value the optimiser saw (skewgp: the\n"
  "           fixed-point-set estimate, biased upwards by the selection),\n"
  "         \"start_log_marginal_likelihood\": at the start values,\n"
  "         \"evaluations\": n, \"failed_evaluations\": n, \"starts\": n,\n"
  "         \"stopped_by\": \"converged\" | \"max_evaluations\" | \"max_seconds\",\n"
  "         \"seconds\": t}\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input.\n";

typedef struct {
  sg_fit_spec spec;
  sg_fit_method method;
  sg_link link;
  sg_fit_options opt;
  gint64 restarts, seed, max_evals, points, final_points;
} FitRequest;

static const struct {
  const char *name;
  unsigned flag;
} free_names[] = {
  { "lengthscales", SG_FIT_LENGTHSCALES },
  { "variance", SG_FIT_VARIANCE },
  { "numeric_sd", SG_FIT_NUMERIC_SD },
  { "probit_sd", SG_FIT_PROBIT_SD },
  { "mean", SG_FIT_MEAN },
  { "gamma", SG_FIT_GAMMA },
  { "pseudo_points", SG_FIT_PSEUDO_POINTS },
  { "tie_margin", SG_FIT_TIE_MARGIN },
  { "side_bias", SG_FIT_SIDE_BIAS },
  { "confidence", SG_FIT_CONFIDENCE },
};

static gboolean
read_free (JsonObject *fit, unsigned *mask, GError **error)
{
  *mask = SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE;
  if (!json_object_has_member (fit, "free"))
    return TRUE;
  JsonNode *node = json_object_get_member (fit, "free");
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return skewgp_input_error (error, "fit.free must be an array of names");
  JsonArray *a = json_node_get_array (node);
  *mask = 0;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *el = json_array_get_element (a, i);
      const char *name = JSON_NODE_HOLDS_VALUE (el)
                             && json_node_get_value_type (el) == G_TYPE_STRING
                           ? json_node_get_string (el) : NULL;
      gsize k = 0;
      while (name && k < G_N_ELEMENTS (free_names) && strcmp (free_names[k].name, name))
        k++;
      if (name == NULL || k == G_N_ELEMENTS (free_names))
        return skewgp_input_error (error, "fit.free: entry %u is not one of lengthscales, "
                            "variance, numeric_sd, probit_sd, mean, gamma, pseudo_points, "
                            "tie_margin, side_bias, confidence", i);
      *mask |= free_names[k].flag;
    }
  return TRUE;
}

/* [lo, hi] at NODE into R; WHAT names it. SCALE: 0 < lo required. */
static gboolean
read_pair (JsonNode *node, const char *what, gboolean scale, sg_fit_range *r,
           GError **error)
{
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  double v[2];
  for (guint i = 0; a && i < 2 && json_array_get_length (a) == 2; i++)
    {
      JsonNode *el = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (el) || json_node_get_value_type (el) == G_TYPE_STRING
          || json_node_get_value_type (el) == G_TYPE_BOOLEAN)
        a = NULL;
      else
        v[i] = json_node_get_double (el);
    }
  if (a == NULL || json_array_get_length (a) != 2)
    return skewgp_input_error (error, "%s must be [lower, upper]", what);
  if (!(isfinite (v[0]) && isfinite (v[1]) && v[0] < v[1]) || (scale && !(v[0] > 0)))
    return skewgp_input_error (error, "%s must have %slower < upper, got [%g, %g]", what,
                        scale ? "0 < " : "", v[0], v[1]);
  *r = (sg_fit_range) { v[0], v[1] };
  return TRUE;
}

/* [lo, hi] for every coordinate, or [[lo, hi], ...] one per coordinate. */
static gboolean
read_pairs (JsonNode *node, const char *what, gboolean scale, size_t dim,
            sg_fit_range *r, GError **error)
{
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  if (a && json_array_get_length (a) > 0
      && JSON_NODE_HOLDS_ARRAY (json_array_get_element (a, 0)))
    {
      if (json_array_get_length (a) != dim)
        return skewgp_input_error (error, "%s has %u entries, expected %zu (one per dimension)",
                            what, json_array_get_length (a), dim);
      for (size_t j = 0; j < dim; j++)
        {
          g_autofree char *item = g_strdup_printf ("%s[%zu]", what, j);
          if (!read_pair (json_array_get_element (a, (guint) j), item, scale, &r[j], error))
            return FALSE;
        }
      return TRUE;
    }
  sg_fit_range one;
  if (!read_pair (node, what, scale, &one, error))
    return FALSE;
  for (size_t j = 0; j < dim; j++)
    r[j] = one;
  return TRUE;
}

static gboolean
read_bounds (JsonObject *fit, size_t dim, sg_fit_spec *spec, GError **error)
{
  if (!json_object_has_member (fit, "bounds"))
    return TRUE;
  JsonNode *node = json_object_get_member (fit, "bounds");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "fit.bounds must be an object");
  JsonObject *b = json_node_get_object (node);
  static const char *const known[] = { "lengthscales", "variance", "numeric_sd",
                                       "probit_sd", "mean", "gamma", "pseudo_points",
                                       "tie_margin", "side_bias", "weak_scale",
                                       "strong_scale", NULL };
  if (!skewgp_check_fields (b, "fit.bounds", known, error))
    return FALSE;
  const struct {
    const char *name;
    sg_fit_range *range;
    gboolean scale, per_dim;
  } fields[] = {
    { "lengthscales", spec->lengthscale, TRUE, TRUE },
    { "variance", &spec->variance, TRUE, FALSE },
    { "numeric_sd", &spec->numeric_sd, TRUE, FALSE },
    { "probit_sd", &spec->probit_sd, TRUE, FALSE },
    { "mean", &spec->mean, FALSE, FALSE },
    { "gamma", &spec->gamma, FALSE, FALSE },
    { "pseudo_points", spec->pseudo_point, FALSE, TRUE },
    { "tie_margin", &spec->tie_margin, TRUE, FALSE },
    { "side_bias", &spec->side_bias, FALSE, FALSE },
    { "weak_scale", &spec->weak_scale, TRUE, FALSE },
    { "strong_scale", &spec->strong_scale, TRUE, FALSE },
  };
  for (gsize k = 0; k < G_N_ELEMENTS (fields); k++)
    {
      if (!json_object_has_member (b, fields[k].name))
        continue;
      JsonNode *v = json_object_get_member (b, fields[k].name);
      g_autofree char *what = g_strdup_printf ("fit.bounds.%s", fields[k].name);
      gboolean ok = fields[k].per_dim
                      ? read_pairs (v, what, fields[k].scale, dim, fields[k].range, error)
                      : read_pair (v, what, fields[k].scale, fields[k].range, error);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* One of NAMES[] (NULL-terminated) at FIT.FIELD into *INDEX. */
static gboolean
read_choice (JsonObject *fit, const char *field, const char *const *names,
             int *index, GError **error)
{
  const char *value = NULL;
  if (!skewgp_get_string (fit, field, FALSE, &value, error))
    {
      g_prefix_error (error, "fit: ");
      return FALSE;
    }
  if (value == NULL)
    return TRUE;
  for (int i = 0; names[i]; i++)
    if (strcmp (names[i], value) == 0)
      {
        *index = i;
        return TRUE;
      }
  g_autofree char *list = g_strjoinv (", ", (char **) names);
  return skewgp_input_error (error, "fit.%s must be one of %s, got '%s'", field, list, value);
}

static gboolean
read_fit (JsonObject *root, const SkewgpModel *model, FitRequest *req, GError **error)
{
  JsonNode *node = json_object_has_member (root, "fit")
                     ? json_object_get_member (root, "fit") : NULL;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, node ? "field 'fit' must be an object"
                                    : "field 'fit' is required");
  JsonObject *fit = json_node_get_object (node);
  static const char *const known[] = { "free", "method", "link", "restarts", "seed",
                                       "algorithm", "max_evaluations", "max_seconds",
                                       "points", "final_points", "bounds", NULL };
  static const char *const methods[] = { "skewgp", "laplace", "ep", NULL };
  static const char *const links[] = { "probit", "logistic", NULL };
  static const char *const algorithms[] = { "bobyqa", "sbplx", "neldermead", NULL };
  unsigned mask;
  int method = 0, link = 0, algorithm = 0;
  double max_seconds = 0;
  req->restarts = 3;
  req->seed = 0;
  req->max_evals = 400;
  req->points = FIT_POINTS;
  req->final_points = FINAL_POINTS;
  if (!skewgp_check_fields (fit, "fit", known, error) || !read_free (fit, &mask, error)
      || !read_choice (fit, "method", methods, &method, error)
      || !read_choice (fit, "link", links, &link, error)
      || !read_choice (fit, "algorithm", algorithms, &algorithm, error))
    return FALSE;
  if (!skewgp_get_int (fit, "restarts", FALSE, 0, 1000, &req->restarts, error)
      || !skewgp_get_int (fit, "seed", FALSE, 0, G_MAXINT64, &req->seed, error)
      || !skewgp_get_int (fit, "max_evaluations", FALSE, 1, 10000000, &req->max_evals, error)
      || !skewgp_get_double (fit, "max_seconds", FALSE, &max_seconds, error)
      || !skewgp_get_int (fit, "points", FALSE, 100, 100000000, &req->points, error)
      || !skewgp_get_int (fit, "final_points", FALSE, 100, 100000000, &req->final_points,
                          error))
    {
      g_prefix_error (error, "fit: ");
      return FALSE;
    }
  if (!(max_seconds >= 0) || !isfinite (max_seconds))
    return skewgp_input_error (error, "fit.max_seconds must be >= 0, got %g", max_seconds);
  req->method = (sg_fit_method) method;
  req->link = link == 1 ? SG_LINK_LOGISTIC : SG_LINK_PROBIT;
  if (req->method != SG_FIT_METHOD_LAPLACE && req->link != SG_LINK_PROBIT)
    return skewgp_input_error (error, "fit.link: 'logistic' is only available with method 'laplace'");
  if (req->method != SG_FIT_METHOD_SKEWGP && model->s > 0)
    return skewgp_input_error (error, "fit.method: '%s' needs a GP prior; remove 'skew'",
                        methods[method]);
  if (req->method != SG_FIT_METHOD_SKEWGP)
    for (size_t i = 0; i < model->data.n_obs; i++)
      {
        const sg_obs *o = &model->data.obs[i];
        if (o->kind == SG_OBS_TIE || (o->kind == SG_OBS_CHOICE && o->count > 2)
            || o->kind == SG_OBS_RANKING)
          return skewgp_input_error (error, "fit.method: '%s' cannot take observations[%zu] "
                                     "(a %s%s): its sites are one-dimensional and "
                                     "independent; use 'skewgp'", methods[method], i,
                                     sg_obs_kind_name (o->kind),
                                     o->kind == SG_OBS_CHOICE ? " of more than two" : "");
      }
  if ((mask & (SG_FIT_GAMMA | SG_FIT_PSEUDO_POINTS)) && model->s == 0)
    return skewgp_input_error (error, "fit.free: 'gamma' and 'pseudo_points' need a 'skew' prior");
  if (sg_fit_spec_default (&req->spec, mask, model->kernel.dim, &model->data) != SG_OK)
    return skewgp_input_error (error, "fit: no memory for the boxes of %" G_GSIZE_FORMAT
                               " inputs", (gsize) model->kernel.dim);
  if (!read_bounds (fit, model->kernel.dim, &req->spec, error))
    return FALSE;
  sg_fit_options_default (&req->opt);
  req->opt.n_starts = (size_t) req->restarts + 1;
  req->opt.max_evals = (size_t) req->max_evals;
  req->opt.max_seconds = max_seconds;
  req->opt.algorithm = (sg_fit_algorithm) algorithm;
  return TRUE;
}

static void
model_hyper (SkewgpModel *model, sg_hyper *h)
{
  memset (h, 0, sizeof *h);
  h->kernel = model->kernel;
  h->mean = model->mean;
  h->noise = model->noise;
  h->s = model->s;
  h->pseudo_points = model->pseudo_points;
  h->phases = model->phases;
  h->gamma = model->gamma;
}

static const char *
stop_name (sg_fit_stop stop)
{
  switch (stop)
    {
    case SG_FIT_MAX_EVALS:
      return "max_evaluations";
    case SG_FIT_MAX_SECONDS:
      return "max_seconds";
    case SG_FIT_CONVERGED:
    default:
      return "converged";
    }
}

static void
print_result (const sg_hyper *h, const char *method, double le, double err,
              const sg_fit_result *res)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  skewgp_add_model_members (b, h);
  sb_json_add_string (b, "method", method);
  skewgp_add_double (b, "log_marginal_likelihood", le);
  skewgp_add_double (b, "log_marginal_likelihood_error", err);
  skewgp_add_double (b, "objective", res->log_evidence);
  skewgp_add_double (b, "start_log_marginal_likelihood", res->start_log_evidence);
  sb_json_add_int (b, "evaluations", (gint64) res->n_evals);
  sb_json_add_int (b, "failed_evaluations", (gint64) res->n_failed);
  sb_json_add_int (b, "starts", (gint64) res->n_starts);
  sb_json_add_string (b, "stopped_by", stop_name (res->stop));
  skewgp_add_double (b, "seconds", res->seconds);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

/* The MVN workspace every exact evidence evaluation of MODEL shares:
 * dimension s + probit rows. */
static gboolean
new_evidence_workspace (const SkewgpModel *model, sg_mvn_workspace **w, GError **error)
{
  sg_likelihood lik;
  int status = sg_likelihood_build (&model->data, &model->noise, &lik);
  if (status != SG_OK)
    return skewgp_numeric_error (error, "likelihood", status);
  size_t m = model->s + lik.m_probit;
  sg_likelihood_clear (&lik);
  *w = sg_mvn_workspace_new (m > 0 ? m : 1);
  if (*w == NULL)
    return skewgp_numeric_error (error, "workspace", SG_ENOMEM);
  return TRUE;
}

static gboolean
run_fit (JsonObject *input, GError **error)
{
  static const char *const known[] = { SKEWGP_MODEL_FIELDS, "predict", "fit", NULL };
  static const char *const method_names[] = { "skewgp", "laplace", "ep" };
  SkewgpModel model = { 0 };
  FitRequest req = { 0 };
  gboolean ok = FALSE;
  gsl_rng *rng = NULL;
  sg_mvn_workspace *w = NULL;
  sg_hyper h;
  sg_evidence_ctx ctx;
  sg_fit_result res;
  int status;

  if (!skewgp_check_fields (input, NULL, known, error)
      || !skewgp_model_from_json (input, &model, error)
      || !read_fit (input, &model, &req, error))
    goto out;
  if (model.data.n_obs == 0)
    {
      skewgp_input_error (error, "field 'observations' is empty: nothing to fit");
      goto out;
    }
  model_hyper (&model, &h);

  sg_evidence_ctx_init (&ctx, req.method, &model.data);
  ctx.link = req.link;
  ctx.mvn.n_points = (size_t) req.points;
  ctx.mvn.seed = (uint64_t) req.seed;
  if (req.method == SG_FIT_METHOD_SKEWGP)
    {
      if (!new_evidence_workspace (&model, &w, error))
        goto out;
      ctx.workspace = w;
    }
  rng = sg_rng_new ((uint64_t) req.seed, 1);
  if (rng == NULL)
    {
      skewgp_numeric_error (error, "fit", SG_ENOMEM);
      goto out;
    }
  status = sg_fit (&req.spec, sg_evidence_eval, &ctx, &req.opt, rng, NULL, &h, &res);
  if (status == SG_ENUMERIC)
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC,
                   "fit: no hyperparameters tried gave a finite log marginal likelihood");
      goto out;
    }
  if (status != SG_OK)
    {
      skewgp_numeric_error (error, "fit", status);
      goto out;
    }

  /* The reported evidence: a fresh, larger point set for SkewGP (the
   * optimiser's own estimate is biased upwards by the selection). */
  double le = res.log_evidence, err = res.error;
  if (req.method == SG_FIT_METHOD_SKEWGP)
    {
      ctx.mvn.n_points = (size_t) req.final_points;
      ctx.mvn.seed = (uint64_t) req.seed + 0x9e3779b97f4a7c15u;
      status = sg_evidence_eval (&h, &ctx, &le, &err);
      if (status != SG_OK)
        {
          skewgp_numeric_error (error, "log marginal likelihood at the fit", status);
          goto out;
        }
    }
  print_result (&h, method_names[req.method], le, err, &res);
  ok = TRUE;

out:
  sg_rng_free (rng);
  sg_mvn_workspace_free (w);
  skewgp_model_clear (&model);
  sg_fit_spec_clear (&req.spec);
  return ok;
}

const SkewgpCommand skewgp_command_fit = {
  .name = "fit",
  .summary = "fit hyperparameters by maximising the log marginal likelihood",
  .help = fit_help,
  .run = run_fit,
};
