/* skewgp-experiment.c — the experiment document of `skewgp new` and
 * `skewgp study new` (skewgp new --help) into a checked experiment. */
#include "config.h"

#include "skewgp-experiment.h"

#include "skewgp-cli.h"

#include "sb-candidates.h"
#include "sb-confidence-scale.h"
#include "sb-experiment-templates.h"
#include "sb-parameter-kinds.h"
#include "sb-stimulus.h"
#include "sg-bo.h"

#include <math.h>
#include <string.h>

/* A categorical parameter's "levels": an array of 2 or more strings. */
static gboolean
parse_levels (JsonObject *p, const char *where, GStrv *levels, GError **error)
{
  JsonNode *node = json_object_get_member (p, "levels");
  JsonArray *array;
  guint n;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node) || (n = json_array_get_length (array = json_node_get_array (node))) < 2)
    return skewgp_input_error (error, "%s: 'levels' must be an array of 2 or more names", where);
  *levels = g_new0 (char *, n + 1);
  for (guint k = 0; k < n; k++)
    {
      JsonNode *level = json_array_get_element (array, k);
      if (!JSON_NODE_HOLDS_VALUE (level) || json_node_get_value_type (level) != G_TYPE_STRING)
        return skewgp_input_error (error, "%s: level %u of 'levels' is not a string", where,
                                   k + 1);
      (*levels)[k] = g_strdup (json_node_get_string (level));
    }
  return TRUE;
}

/* A parameter; with a candidate set (HAS_CANDIDATES) its range may be
 * left out, and *DERIVE then says that the CSV gives it. */
static gboolean
parse_parameter (JsonNode *node, guint index, SbExperiment *exp, gboolean has_candidates,
                 gboolean *derive, GError **error)
{
  static const char *const known[] = { "name", "lower", "upper", "unit", "scale",
                                       "resolution", "levels", NULL };
  const char *name = NULL, *unit = "", *scale = "linear";
  double lower = 0, upper = 0, resolution = 0;
  SbScale kind = SB_SCALE_LINEAR;
  g_auto (GStrv) levels = NULL;
  g_autofree char *where = g_strdup_printf ("parameter %u", index + 1);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "%s is not an object", where);
  JsonObject *p = json_node_get_object (node);
  if (!skewgp_check_fields (p, where, known, error)
      || !skewgp_get_string (p, "name", TRUE, &name, error)
      || !skewgp_get_string (p, "unit", FALSE, &unit, error)
      || !skewgp_get_string (p, "scale", FALSE, &scale, error)
      || !parse_levels (p, where, &levels, error)
      /* categorical levels imply the range 0 .. n - 1 */
      || !skewgp_get_double (p, "lower", levels == NULL && !has_candidates, &lower, error)
      || !skewgp_get_double (p, "upper", levels == NULL && !has_candidates, &upper, error)
      || !skewgp_get_double (p, "resolution", FALSE, &resolution, error))
    return FALSE;
  if (*name == '\0')
    return skewgp_input_error (error, "%s: 'name' is empty", where);
  if (!sb_scale_from_string (scale, &kind))
    return skewgp_input_error (error, "parameter '%s': unknown scale '%s' (expected "
                               "\"linear\", \"log\", \"integer\", \"periodic\" or "
                               "\"categorical\")", name, scale);
  if (levels && !json_object_has_member (p, "upper"))
    upper = g_strv_length (levels) - 1.0;
  *derive = levels == NULL && !json_object_has_member (p, "lower")
            && !json_object_has_member (p, "upper");
  if (!*derive && levels == NULL
      && json_object_has_member (p, "lower") != json_object_has_member (p, "upper"))
    return skewgp_input_error (error, "parameter '%s': give both 'lower' and 'upper', or "
                               "neither (the range of the candidate set)", name);
  if (*derive)
    upper = 1;  /* until the candidate set gives the range */
  if (!(lower < upper))
    return skewgp_input_error (error, "parameter '%s': 'lower' must be below 'upper'", name);
  if (!sb_experiment_add_parameter (exp, name, unit, lower, upper))
    return skewgp_input_error (error, "parameter '%s' cannot be added", name);
  /* the scale's rules are the experiment's validation (sb_parameter_check_scale) */
  exp->parameters[exp->n_parameters - 1].resolution = resolution;
  exp->parameters[exp->n_parameters - 1].scale = kind;
  exp->parameters[exp->n_parameters - 1].levels = g_steal_pointer (&levels);
  return TRUE;
}

/* "question": {"kind", "options", "ties"} into EXP; whether the mode and
 * the surrogate can serve it is the experiment's validation. */
static gboolean
parse_question (JsonObject *obj, SbExperiment *exp, GError **error)
{
  static const char *const known[] = { "kind", "options", "ties", NULL };
  const char *kind = "duel";
  gint64 options = 0;
  gboolean ties = FALSE;
  JsonNode *node = json_object_get_member (obj, "question");
  JsonObject *q;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "field 'question' must be an object");
  q = json_node_get_object (node);
  if (!skewgp_check_fields (q, "'question'", known, error)
      || !skewgp_get_string (q, "kind", FALSE, &kind, error)
      || !skewgp_get_int (q, "options", FALSE, 2, SB_MAX_OPTIONS, &options, error)
      || !skewgp_get_bool (q, "ties", FALSE, &ties, error))
    return FALSE;
  if (!sb_ask_kind_from_string (kind, &exp->question))
    return skewgp_input_error (error, "unknown question kind '%s' (expected \"duel\", "
                               "\"choice\" or \"ranking\")", kind);
  if (exp->question == SB_ASK_DUEL)
    {
      if (options != 0 && options != 2)
        return skewgp_input_error (error, "'question': a duel shows 2 options, not %"
                                   G_GINT64_FORMAT, options);
      exp->n_options = 2;
    }
  else
    {
      if (options == 0)
        return skewgp_input_error (error, "'question': a %s question needs \"options\": k "
                                   "(%d to %d)", kind, SB_MIN_CHOICE_OPTIONS, SB_MAX_OPTIONS);
      if (options < SB_MIN_CHOICE_OPTIONS)
        return skewgp_input_error (error, "'question': a %s question shows %d to %d options, "
                                   "not %" G_GINT64_FORMAT " (two options are a duel)", kind,
                                   SB_MIN_CHOICE_OPTIONS, SB_MAX_OPTIONS, options);
      exp->n_options = (guint) options;
    }
  if (ties && exp->question != SB_ASK_DUEL)
    return skewgp_input_error (error, "'question': \"ties\" applies to duels, not to %s "
                               "questions", kind);
  exp->ties_allowed = ties;
  return TRUE;
}

/* An engine name field (acquisition, surrogate) through PARSE; KNOWN
 * (may be NULL) lists the names an unknown one is refused with. */
static gboolean
parse_engine_name (JsonObject *obj, const char *field, sg_status (*parse) (const char *, int *),
                   char *(*known) (void), int *out, GError **error)
{
  const char *name = NULL;
  g_autofree char *names = NULL;

  if (!skewgp_get_string (obj, field, FALSE, &name, error))
    return FALSE;
  if (name == NULL || parse (name, out) == SG_OK)
    return TRUE;
  names = known ? known () : NULL;
  return skewgp_input_error (error, "unknown %s '%s' (%s%s%ssee skewgp new --help)", field, name,
                             names ? "expected " : "", names ? names : "",
                             names ? "; " : "");
}

static sg_status
parse_acquisition (const char *name, int *out)
{
  sg_bo_acquisition a;
  sg_status s = sg_bo_acquisition_parse (name, &a);
  *out = (int) a;
  return s;
}

static sg_status
parse_surrogate (const char *name, int *out)
{
  sg_bo_surrogate v;
  sg_status s = sg_bo_surrogate_parse (name, &v);
  *out = (int) v;
  return s;
}

/* "candidates": {"csv", "file_column"?, "folder"?} read for EXP's
 * parameters, relative to BASE_DIR. */
static gboolean
parse_candidates (JsonObject *obj, SbExperiment *exp, const char *base_dir,
                  const gboolean *derive, GError **error)
{
  static const char *const known[] = { "csv", "file_column", "folder", NULL };
  const char *csv = NULL, *column = NULL, *folder = NULL;
  JsonNode *node = json_object_get_member (obj, "candidates");
  GError *err = NULL;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "field 'candidates' must be an object");
  JsonObject *c = json_node_get_object (node);
  if (!skewgp_check_fields (c, "'candidates'", known, error)
      || !skewgp_get_string (c, "csv", TRUE, &csv, error)
      || !skewgp_get_string (c, "file_column", FALSE, &column, error)
      || !skewgp_get_string (c, "folder", FALSE, &folder, error))
    return FALSE;
  if (!sb_experiment_load_candidates (exp, csv, column, folder, base_dir, derive, &err))
    return skewgp_forward_error (err, error);
  return TRUE;
}

SbExperiment *
skewgp_parse_experiment (JsonObject *obj, const char *base_dir, GError **error)
{
  static const char *const known[] = { "title", "mode", "parameters", "budget", "question",
                                       "seed", "initial", "acquisition", "surrogate",
                                       "numeric_every", "threshold", "confidence_level", "safe_start",
                                       "candidates", "stimulus", "question_text",
                                       "confidence_scale", NULL };
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  const char *title = NULL, *mode = NULL, *question_text = NULL;
  gint64 budget = 0, seed = (gint64) exp->seed, initial = exp->initial;
  gint64 numeric_every = exp->numeric_every;
  int acquisition = exp->acquisition, surrogate = exp->surrogate;
  JsonNode *params;
  GError *err = NULL;
  gboolean has_candidates = json_object_has_member (obj, "candidates");
  gboolean derive[SB_MAX_PARAMETERS] = { FALSE };

  if (!skewgp_check_fields (obj, "the experiment", known, error)
      || !skewgp_get_string (obj, "title", TRUE, &title, error)
      || !skewgp_get_string (obj, "mode", TRUE, &mode, error)
      || !skewgp_get_string (obj, "question_text", FALSE, &question_text, error)
      || !skewgp_get_int (obj, "budget", TRUE, 1, SB_MAX_BUDGET, &budget, error)
      || !skewgp_get_int (obj, "seed", FALSE, 0, G_MAXINT64, &seed, error)
      || !skewgp_get_int (obj, "initial", FALSE, 0, 1000, &initial, error)
      || !skewgp_get_int (obj, "numeric_every", FALSE, 0, 100000, &numeric_every, error)
      || !skewgp_get_double (obj, "threshold", FALSE, &exp->threshold, error)
      || !skewgp_get_double (obj, "confidence_level", FALSE, &exp->confidence_level, error)
      || !parse_engine_name (obj, "acquisition", parse_acquisition, sb_acquisition_known_names,
                             &acquisition, error)
      || !parse_engine_name (obj, "surrogate", parse_surrogate, NULL, &surrogate, error)
      || !parse_question (obj, exp, error))
    return NULL;
  if (!sb_mode_from_string (mode, &exp->mode))
    {
      skewgp_input_error (error, "unknown mode '%s' (expected \"preference\", \"mixed\" or "
                          "\"safe\")", mode);
      return NULL;
    }
  params = json_object_get_member (obj, "parameters");
  if (params == NULL || !JSON_NODE_HOLDS_ARRAY (params)
      || json_array_get_length (json_node_get_array (params)) == 0)
    {
      skewgp_input_error (error, "field 'parameters' must be a non-empty array");
      return NULL;
    }
  if (json_array_get_length (json_node_get_array (params)) > SB_MAX_PARAMETERS)
    {
      skewgp_input_error (error, "at most %d parameters are supported", SB_MAX_PARAMETERS);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (params)); i++)
    if (!parse_parameter (json_array_get_element (json_node_get_array (params), i), i, exp,
                          has_candidates, &derive[i], error))
      return NULL;
  if (!parse_candidates (obj, exp, base_dir, derive, error))
    return NULL;

  if (json_object_has_member (obj, "safe_start"))
    {
      g_autofree double *start = NULL;
      if (!skewgp_get_vector (obj, "safe_start", TRUE, exp->n_parameters, FALSE, 0, &start, NULL,
                              error))
        return NULL;
      exp->has_safe_start = TRUE;
      memcpy (exp->safe_start, start, exp->n_parameters * sizeof (double));
    }
  if (json_object_has_member (obj, "confidence_scale")
      && !sb_confidence_scale_from_json (json_object_get_member (obj, "confidence_scale"),
                                         &exp->confidence_levels, &err))
    {
      skewgp_forward_error (err, error);
      return NULL;
    }
  exp->question_text = g_strdup (question_text);
  if (json_object_has_member (obj, "stimulus")
      && !sb_stimulus_from_json (json_object_get_member (obj, "stimulus"), &exp->stimulus, &err))
    {
      skewgp_forward_error (err, error);
      return NULL;
    }
  g_free (exp->title);
  exp->title = g_strdup (title);
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->budget = (guint) budget;
  exp->seed = (guint64) seed;
  exp->initial = (guint) initial;
  exp->numeric_every = (guint) numeric_every;
  exp->acquisition = (sg_bo_acquisition) acquisition;
  exp->surrogate = (sg_bo_surrogate) surrogate;
  if (!json_object_has_member (obj, "acquisition"))
    sb_experiment_use_default_acquisition (exp);
  if (!sb_experiment_validate (exp, &err))
    {
      skewgp_forward_error (err, error);
      return NULL;
    }
  return g_steal_pointer (&exp);
}
