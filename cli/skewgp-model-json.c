/* skewgp-model-json.c — JSON -> (kernel, skew prior, noise, sg_data). */
#include "config.h"

#include "skewgp-model-json.h"

#include <math.h>
#include <string.h>

/* Rewrites "field 'NAME'" in ERROR's message into "PATH.NAME" (or "PATH"
 * when NAME is NULL), so nested fields are named by their full path. */
static gboolean
qualify (GError **error, const char *path, const char *name)
{
  if (error == NULL || *error == NULL)
    return FALSE;
  g_autofree char *needle = g_strdup_printf ("field '%s'", name);
  g_autofree char *full = g_strdup_printf ("%s.%s", path, name);
  char *at = strstr ((*error)->message, needle);
  if (at != NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%.*s%s%s", (int) (at - (*error)->message),
                                              (*error)->message, full, at + strlen (needle));
      g_free ((*error)->message);
      (*error)->message = g_steal_pointer (&msg);
    }
  return FALSE;
}

/* The object at ROOT.FIELD (NULL if absent and optional). */
static gboolean
get_object (JsonObject *root, const char *field, gboolean required,
            JsonObject **out, GError **error)
{
  JsonNode *node = json_object_has_member (root, field)
                     ? json_object_get_member (root, field) : NULL;
  if (node != NULL && JSON_NODE_HOLDS_NULL (node))
    node = NULL;
  if (node == NULL)
    {
      *out = NULL;
      return required ? skewgp_input_error (error, "field '%s' is required", field) : TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "field '%s' must be an object", field);
  *out = json_node_get_object (node);
  return TRUE;
}

static gboolean
read_kernel (JsonObject *root, SkewgpModel *model, GError **error)
{
  JsonObject *k;
  if (!get_object (root, "kernel", TRUE, &k, error))
    return FALSE;
  static const char *const known[] = { "type", "variance", "lengthscales", NULL };
  if (!skewgp_check_fields (k, "kernel", known, error))
    return FALSE;
  const char *type = NULL;
  double variance = 0;
  g_autofree double *ls = NULL;
  gsize dim = 0;
  if (!skewgp_get_string (k, "type", TRUE, &type, error))
    return qualify (error, "kernel", "type");
  sg_kernel_type kt;
  if (sg_kernel_type_parse (type, &kt) != SG_OK)
    return skewgp_input_error (error, "kernel.type must be \"rbf\" or \"matern52\", got \"%s\"", type);
  if (!skewgp_get_double (k, "variance", TRUE, &variance, error))
    return qualify (error, "kernel", "variance");
  if (!(variance > 0))
    return skewgp_input_error (error, "kernel.variance must be positive, got %g", variance);
  if (!skewgp_get_vector (k, "lengthscales", TRUE, 0, FALSE, 0, &ls, &dim, error))
    return qualify (error, "kernel", "lengthscales");
  if (dim == 0)
    return skewgp_input_error (error, "kernel.lengthscales must have at least one entry");
  if (sg_kernel_init (&model->kernel, kt, dim, variance, 1.0) != SG_OK)
    return skewgp_input_error (error, "kernel: no memory for %" G_GSIZE_FORMAT " inputs", dim);
  for (gsize j = 0; j < dim; j++)
    {
      if (!(ls[j] > 0))
        return skewgp_input_error (error, "kernel.lengthscales[%" G_GSIZE_FORMAT
                            "] must be positive, got %g", j, ls[j]);
      model->kernel.lengthscales[j] = ls[j];
    }
  return TRUE;
}

static gboolean
read_skew (JsonObject *root, SkewgpModel *model, GError **error)
{
  JsonObject *sk;
  if (!get_object (root, "skew", FALSE, &sk, error))
    return FALSE;
  if (sk == NULL)
    return TRUE;
  static const char *const known[] = { "pseudo_points", "phases", "gamma", NULL };
  if (!skewgp_check_fields (sk, "skew", known, error))
    return FALSE;
  gsize dim = model->kernel.dim, s = 0, cols = 0, len = 0;
  if (!skewgp_get_matrix (sk, "pseudo_points", TRUE, 0, dim, &model->pseudo_points,
                          &s, &cols, error))
    return qualify (error, "skew", "pseudo_points");
  model->s = s;
  if (!skewgp_get_vector (sk, "phases", TRUE, s, FALSE, 0, &model->phases, &len, error))
    return qualify (error, "skew", "phases");
  for (gsize i = 0; i < s; i++)
    if (model->phases[i] != 1 && model->phases[i] != -1)
      return skewgp_input_error (error, "skew.phases[%" G_GSIZE_FORMAT "] must be 1 or -1, got %g",
                          i, model->phases[i]);
  if (!skewgp_get_vector (sk, "gamma", TRUE, s, FALSE, 0, &model->gamma, &len, error))
    return qualify (error, "skew", "gamma");
  return TRUE;
}

static gboolean
read_noise (JsonObject *root, SkewgpModel *model, GError **error)
{
  JsonObject *no;
  sg_noise_default (&model->noise);
  if (!get_object (root, "noise", FALSE, &no, error))
    return FALSE;
  if (no == NULL)
    return TRUE;
  static const char *const known[] = { "numeric_sd", "probit_sd", "tie_margin",
                                       "side_bias", "weak_scale", "strong_scale", NULL };
  if (!skewgp_check_fields (no, "noise", known, error))
    return FALSE;
  sg_noise *nz = &model->noise;
  const struct {
    const char *name;
    double *value;
    gboolean positive;
  } fields[] = {
    { "numeric_sd", &nz->numeric_sd, TRUE }, { "probit_sd", &nz->probit_sd, TRUE },
    { "tie_margin", &nz->tie_margin, TRUE }, { "side_bias", &nz->side_bias, FALSE },
    { "weak_scale", &nz->weak_scale, TRUE }, { "strong_scale", &nz->strong_scale, TRUE },
  };
  for (gsize k = 0; k < G_N_ELEMENTS (fields); k++)
    {
      if (!skewgp_get_double (no, fields[k].name, FALSE, fields[k].value, error))
        return qualify (error, "noise", fields[k].name);
      if (fields[k].positive && !(*fields[k].value > 0))
        return skewgp_input_error (error, "noise.%s must be positive", fields[k].name);
    }
  return TRUE;
}

static gboolean
read_point (JsonObject *o, const char *path, const char *field, gsize dim,
            double **out, GError **error)
{
  gsize len;
  if (!skewgp_get_vector (o, field, TRUE, dim, FALSE, 0, out, &len, error))
    return qualify (error, path, field);
  return TRUE;
}

/* The optional "confidence" of O into *C (SG_CONFIDENCE_NONE if absent). */
static gboolean
read_confidence (JsonObject *o, const char *path, sg_confidence *c, GError **error)
{
  const char *name = NULL;
  *c = SG_CONFIDENCE_NONE;
  if (!skewgp_get_string (o, "confidence", FALSE, &name, error))
    return qualify (error, path, "confidence");
  if (name != NULL && sg_confidence_parse (name, c) != SG_OK)
    return skewgp_input_error (error, "%s.confidence must be \"weak\", \"normal\" or "
                               "\"strong\", got \"%s\"", path, name);
  return TRUE;
}

/* The points at O.FIELD (an array of points, at least MIN_ROWS of them). */
static gboolean
read_points (JsonObject *o, const char *path, const char *field, gsize dim,
             gsize min_rows, const char *what, double **out, gsize *rows,
             GError **error)
{
  JsonNode *node = json_object_has_member (o, field) ? json_object_get_member (o, field) : NULL;
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node)
      && json_array_get_length (json_node_get_array (node)) < min_rows)
    return skewgp_input_error (error, "%s.%s: %s", path, field, what);
  gsize cols = 0;
  if (!skewgp_get_matrix (o, field, TRUE, 0, dim, out, rows, &cols, error))
    return qualify (error, path, field);
  if (*rows < min_rows)
    return skewgp_input_error (error, "%s.%s: %s", path, field, what);
  return TRUE;
}

static gboolean
read_preference (JsonObject *o, const char *path, SkewgpModel *model, GError **error)
{
  static const char *const known[] = { "kind", "winner", "loser", "confidence",
                                       "shown_first", "tie_offered", NULL };
  g_autofree double *x = NULL, *loser = NULL;
  sg_confidence conf;
  const char *first = NULL;
  gboolean tie_offered = FALSE;
  if (!skewgp_check_fields (o, path, known, error)
      || !read_point (o, path, "winner", model->kernel.dim, &x, error)
      || !read_point (o, path, "loser", model->kernel.dim, &loser, error)
      || !read_confidence (o, path, &conf, error))
    return FALSE;
  if (!skewgp_get_string (o, "shown_first", FALSE, &first, error))
    return qualify (error, path, "shown_first");
  if (!skewgp_get_bool (o, "tie_offered", FALSE, &tie_offered, error))
    return qualify (error, path, "tie_offered");
  size_t shown = SG_SHOWN_NONE;
  if (first != NULL && strcmp (first, "winner") == 0)
    shown = 0;
  else if (first != NULL && strcmp (first, "loser") == 0)
    shown = 1;
  else if (first != NULL)
    return skewgp_input_error (error, "%s.shown_first must be \"winner\" or \"loser\", "
                               "got \"%s\"", path, first);
  if (sg_data_add_duel (&model->data, x, loser, conf, shown, tie_offered) == SG_EINVAL)
    return skewgp_input_error (error, "%s: winner and loser are the same point", path);
  return TRUE;
}

static gboolean
read_tie (JsonObject *o, const char *path, SkewgpModel *model, GError **error)
{
  static const char *const known[] = { "kind", "a", "b", NULL };
  g_autofree double *a = NULL, *b = NULL;
  if (!skewgp_check_fields (o, path, known, error)
      || !read_point (o, path, "a", model->kernel.dim, &a, error)
      || !read_point (o, path, "b", model->kernel.dim, &b, error))
    return FALSE;
  if (sg_data_add_tie (&model->data, a, b) == SG_EINVAL)
    return skewgp_input_error (error, "%s: a and b are the same point (a tie needs two "
                               "different options)", path);
  return TRUE;
}

static gboolean
read_choice (JsonObject *o, const char *path, SkewgpModel *model, GError **error)
{
  static const char *const known[] = { "kind", "chosen", "others", "confidence",
                                       "shown_first", NULL };
  gsize dim = model->kernel.dim, n_others = 0;
  g_autofree double *chosen = NULL, *others = NULL;
  sg_confidence conf;
  gint64 first = -1;
  if (!skewgp_check_fields (o, path, known, error)
      || !read_point (o, path, "chosen", dim, &chosen, error)
      || !read_points (o, path, "others", dim, 1,
                       "a choice needs at least one other option", &others,
                       &n_others, error)
      || !read_confidence (o, path, &conf, error))
    return FALSE;
  if (!skewgp_get_int (o, "shown_first", FALSE, 0, (gint64) n_others, &first, error))
    return qualify (error, path, "shown_first");
  size_t shown = first < 0 ? SG_SHOWN_NONE : (size_t) first;
  if (sg_data_add_choice (&model->data, chosen, others, n_others, conf, shown) == SG_EINVAL)
    return skewgp_input_error (error, "%s: the chosen and other options must be %"
                               G_GSIZE_FORMAT " different points", path, n_others + 1);
  return TRUE;
}

static gboolean
read_ranking (JsonObject *o, const char *path, SkewgpModel *model, GError **error)
{
  static const char *const known[] = { "kind", "order", NULL };
  g_autofree double *order = NULL;
  gsize k = 0;
  if (!skewgp_check_fields (o, path, known, error)
      || !read_points (o, path, "order", model->kernel.dim, 2,
                       "a ranking needs at least two options", &order, &k, error))
    return FALSE;
  if (sg_data_add_ranking (&model->data, order, k) == SG_EINVAL)
    return skewgp_input_error (error, "%s.order: the %" G_GSIZE_FORMAT
                               " options must be different points", path, k);
  return TRUE;
}

static gboolean
read_observation (JsonObject *o, const char *path, SkewgpModel *model, GError **error)
{
  gsize dim = model->kernel.dim;
  const char *name = NULL;
  sg_obs_kind kind;
  if (!skewgp_get_string (o, "kind", TRUE, &name, error))
    return qualify (error, path, "kind");
  if (sg_obs_kind_parse (name, &kind) != SG_OK)
    return skewgp_input_error (error, "%s.kind must be \"numeric\", \"binary\", \"preference\", "
                        "\"tie\", \"choice\", \"ranking\", \"valid\" or \"invalid\", "
                        "got \"%s\"", path, name);
  g_autofree double *x = NULL;
  double y = 0, label = 0, h = 0;
  int status;
  if (kind == SG_OBS_PREFERENCE)
    return read_preference (o, path, model, error);
  else if (kind == SG_OBS_TIE)
    return read_tie (o, path, model, error);
  else if (kind == SG_OBS_CHOICE)
    return read_choice (o, path, model, error);
  else if (kind == SG_OBS_RANKING)
    return read_ranking (o, path, model, error);
  else if (kind == SG_OBS_NUMERIC || kind == SG_OBS_VALID)
    {
      gboolean valid = kind == SG_OBS_VALID;
      static const char *const known_n[] = { "kind", "x", "y", NULL };
      static const char *const known_v[] = { "kind", "x", "y", "threshold", NULL };
      if (!skewgp_check_fields (o, path, valid ? known_v : known_n, error)
          || !read_point (o, path, "x", dim, &x, error))
        return FALSE;
      if (!skewgp_get_double (o, "y", TRUE, &y, error))
        return qualify (error, path, "y");
      if (valid && !skewgp_get_double (o, "threshold", TRUE, &h, error))
        return qualify (error, path, "threshold");
      status = valid ? sg_data_add_valid (&model->data, x, y, h)
                     : sg_data_add_numeric (&model->data, x, y);
    }
  else if (kind == SG_OBS_BINARY)
    {
      static const char *const known[] = { "kind", "x", "label", NULL };
      if (!skewgp_check_fields (o, path, known, error)
          || !read_point (o, path, "x", dim, &x, error))
        return FALSE;
      if (!skewgp_get_double (o, "label", TRUE, &label, error))
        return qualify (error, path, "label");
      if (label != 1 && label != -1)
        return skewgp_input_error (error, "%s.label must be 1 or -1, got %g", path, label);
      status = sg_data_add_binary (&model->data, x, (int) label);
    }
  else  /* SG_OBS_INVALID */
    {
      static const char *const known[] = { "kind", "x", "threshold", NULL };
      if (!skewgp_check_fields (o, path, known, error)
          || !read_point (o, path, "x", dim, &x, error))
        return FALSE;
      if (!skewgp_get_double (o, "threshold", TRUE, &h, error))
        return qualify (error, path, "threshold");
      status = sg_data_add_invalid (&model->data, x, h);
    }
  if (status != SG_OK)
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, "%s: %s", path,
                   sg_strerror (status));
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_observations (JsonObject *root, SkewgpModel *model, GError **error)
{
  JsonNode *node = json_object_has_member (root, "observations")
                     ? json_object_get_member (root, "observations") : NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return skewgp_input_error (error, "field 'observations' is required");
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return skewgp_input_error (error, "field 'observations' must be an array of objects");
  JsonArray *array = json_node_get_array (node);
  guint n = json_array_get_length (array);
  if (n > SKEWGP_MAX_OBSERVATIONS)
    return skewgp_input_error (error, "field 'observations': %u observations, above the limit "
                               "of %d (the exact posterior keeps a few n x n matrices: ~0.8 GB "
                               "at the limit)", n, SKEWGP_MAX_OBSERVATIONS);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("observations[%u]", i);
      JsonNode *el = json_array_get_element (array, i);
      if (!JSON_NODE_HOLDS_OBJECT (el))
        return skewgp_input_error (error, "%s must be an object", path);
      if (!read_observation (json_node_get_object (el), path, model, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
skewgp_model_from_json (JsonObject *root, SkewgpModel *model, GError **error)
{
  memset (model, 0, sizeof *model);
  sg_data_init (&model->data, 1);
  if (!read_kernel (root, model, error))
    return FALSE;
  sg_data_init (&model->data, model->kernel.dim);
  if (!skewgp_get_double (root, "mean", FALSE, &model->mean, error))
    return FALSE;
  return read_skew (root, model, error) && read_noise (root, model, error)
         && read_observations (root, model, error);
}

void
skewgp_model_clear (SkewgpModel *model)
{
  g_clear_pointer (&model->pseudo_points, g_free);
  g_clear_pointer (&model->phases, g_free);
  g_clear_pointer (&model->gamma, g_free);
  sg_kernel_clear (&model->kernel);
  sg_data_clear (&model->data);
}

void
skewgp_model_prior (const SkewgpModel *model, sg_skewgp_prior *prior)
{
  *prior = (sg_skewgp_prior) {
    .kernel = model->kernel,
    .mean = model->mean,
    .s = model->s,
    .pseudo_points = model->pseudo_points,
    .phases = model->phases,
    .gamma = model->gamma,
  };
}

void
skewgp_add_model_members (JsonBuilder *b, const sg_hyper *h)
{
  size_t dim = h->kernel.dim;
  json_builder_set_member_name (b, "kernel");
  json_builder_begin_object (b);
  sb_json_add_string (b, "type", sg_kernel_type_name (h->kernel.type));
  skewgp_add_double (b, "variance", h->kernel.variance);
  skewgp_add_vector (b, "lengthscales", h->kernel.lengthscales, dim);
  json_builder_end_object (b);
  skewgp_add_double (b, "mean", h->mean);
  json_builder_set_member_name (b, "noise");
  json_builder_begin_object (b);
  skewgp_add_double (b, "numeric_sd", h->noise.numeric_sd);
  skewgp_add_double (b, "probit_sd", h->noise.probit_sd);
  skewgp_add_double (b, "tie_margin", h->noise.tie_margin);
  skewgp_add_double (b, "side_bias", h->noise.side_bias);
  skewgp_add_double (b, "weak_scale", h->noise.weak_scale);
  skewgp_add_double (b, "strong_scale", h->noise.strong_scale);
  json_builder_end_object (b);
  if (h->s > 0)
    {
      json_builder_set_member_name (b, "skew");
      json_builder_begin_object (b);
      skewgp_add_matrix (b, "pseudo_points", h->pseudo_points, h->s, dim);
      skewgp_add_vector (b, "phases", h->phases, h->s);
      skewgp_add_vector (b, "gamma", h->gamma, h->s);
      json_builder_end_object (b);
    }
}
