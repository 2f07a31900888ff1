/* sb-session-parse.c — a session document (JSON text) into a session.
 *
 * The text goes through the strict reader (sb-json-read.h); every member
 * is then checked for its type and range, and a fault is reported as
 * "FILE:LINE:COLUMN: message" pointing at the member, like a syntax error.
 * Nothing here writes: a file that fails to load is left as it is.
 */
#include "config.h"

#include "sb-session.h"
#include "sb-session-private.h"
#include "sb-atomic-file.h"
#include "sb-candidates.h"
#include "sb-confidence-scale.h"
#include "sb-json-read.h"
#include "sb-parameter-kinds.h"
#include "sb-stimulus.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* Line and column (1-based, columns in characters) of the first
 * occurrence of "KEY": in DATA, so that content errors point into the file
 * like the reader's syntax errors do. A line ends at "\n", "\r\n" or a
 * lone "\r", as for the reader. */
static void
locate_member (const char *data, const char *key, guint *line, guint *column)
{
  g_autofree char *needle = g_strdup_printf ("\"%s\"", key);
  const char *hit = data ? strstr (data, needle) : NULL;

  *line = 1;
  *column = 1;
  if (hit == NULL)
    return;
  for (const char *p = data; p < hit; p++)
    {
      if (*p == '\n' || (*p == '\r' && p[1] != '\n'))
        {
          (*line)++;
          *column = 1;
        }
      else if ((*p & 0xC0) != 0x80 && *p != '\r')
        (*column)++;
    }
}

typedef struct {
  const char *name;  /* file name for messages */
  const char *data;
  const char *dir;   /* its folder: relative paths in the file start there */
  SbJsonSeen *seen;  /* the members read (may be NULL) */
} ParseContext;

/* Member KEY of OBJ (NULL when absent), marked as read. */
static JsonNode *
member (const ParseContext *ctx, JsonObject *obj, const char *key)
{
  sb_json_seen_mark (ctx->seen, obj, key);
  return json_object_get_member (obj, key);
}

G_GNUC_PRINTF (5, 6) static void
content_error (const ParseContext *ctx, GError **error, SbSessionError code,
               const char *key, const char *format, ...)
{
  g_autofree char *msg = NULL;
  guint line, column;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  locate_member (ctx->data, key, &line, &column);
  g_set_error (error, SB_SESSION_ERROR, code, "%s:%u:%u: %s", ctx->name, line, column, msg);
}

static gboolean
get_member (const ParseContext *ctx, JsonObject *obj, const char *key, GType type,
            gboolean required, JsonNode **out, GError **error)
{
  JsonNode *node = member (ctx, obj, key);

  *out = NULL;
  if (node == NULL)
    {
      if (required)
        content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                       "the member '%s' is missing", key);
      return !required;
    }
  if (type == JSON_TYPE_OBJECT || type == JSON_TYPE_ARRAY)
    {
      JsonNodeType want = type == JSON_TYPE_OBJECT ? JSON_NODE_OBJECT : JSON_NODE_ARRAY;
      if (JSON_NODE_TYPE (node) != want)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, key, "'%s' must be %s", key,
                         want == JSON_NODE_OBJECT ? "an object" : "an array");
          return FALSE;
        }
    }
  else
    {
      GType vt = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
      gboolean ok = type == G_TYPE_DOUBLE ? (vt == G_TYPE_DOUBLE || vt == G_TYPE_INT64)
                  : type == G_TYPE_INT64 ? vt == G_TYPE_INT64
                  : vt == type;
      if (!ok)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, key, "'%s' must be %s", key,
                         type == G_TYPE_STRING ? "a string"
                         : type == G_TYPE_BOOLEAN ? "true or false"
                         : type == G_TYPE_INT64 ? "an integer" : "a number");
          return FALSE;
        }
      if (type == G_TYPE_DOUBLE && !isfinite (json_node_get_double (node)))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                         "'%s' is not a finite number", key);
          return FALSE;
        }
    }
  *out = node;
  return TRUE;
}

#define GET_OR_FAIL(obj, key, type, required, node)                     \
  if (!get_member (ctx, obj, key, type, required, &node, error))        \
    return FALSE

static gboolean
parse_count (const ParseContext *ctx, JsonObject *obj, const char *key, guint min, guint max,
             guint *out, GError **error)
{
  JsonNode *node;
  gint64 v;

  GET_OR_FAIL (obj, key, G_TYPE_INT64, FALSE, node);
  if (node == NULL)
    return TRUE;
  v = json_node_get_int (node);
  if (v < min || v > max)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                     "'%s' must lie in [%u, %u]", key, min, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_string (const ParseContext *ctx, JsonObject *obj, const char *key,
              gboolean required, char **out, GError **error)
{
  JsonNode *node;

  GET_OR_FAIL (obj, key, G_TYPE_STRING, required, node);
  if (node != NULL)
    {
      g_free (*out);
      *out = g_strdup (json_node_get_string (node));
    }
  return TRUE;
}

/* A parameter's optional "scale" (default linear) and a categorical one's
 * "levels" (strings; at least two, so that the range 0 .. n - 1 is not
 * empty: the experiment's validation checks the rest). */
static gboolean
parse_scale (const ParseContext *ctx, JsonObject *po, const char *pname, SbScale *scale,
             GStrv *levels, GError **error)
{
  JsonNode *node;
  JsonArray *array;
  guint n;

  GET_OR_FAIL (po, "scale", G_TYPE_STRING, FALSE, node);
  if (node && !sb_scale_from_string (json_node_get_string (node), scale))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "scale",
                     "parameter '%s': unknown scale '%s' (expected \"linear\", \"log\", "
                     "\"integer\", \"periodic\" or \"categorical\")", pname,
                     json_node_get_string (node));
      return FALSE;
    }
  GET_OR_FAIL (po, "levels", JSON_TYPE_ARRAY, FALSE, node);
  if (node == NULL)
    return TRUE;
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n < 2)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "levels",
                     "parameter '%s': 'levels' must name 2 or more levels", pname);
      return FALSE;
    }
  *levels = g_new0 (char *, n + 1);
  for (guint k = 0; k < n; k++)
    {
      JsonNode *level = json_array_get_element (array, k);
      if (!JSON_NODE_HOLDS_VALUE (level) || json_node_get_value_type (level) != G_TYPE_STRING)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "levels",
                         "parameter '%s': level %u of 'levels' is not a string", pname, k + 1);
          return FALSE;
        }
      (*levels)[k] = g_strdup (json_node_get_string (level));
    }
  return TRUE;
}

/* Names of the engine's enums (sg-bo.h), indexed by value. */
typedef struct {
  const char *key;            /* the member that holds the name        */
  int last;                   /* the enum's values run from 0 to LAST  */
  const char *(*name) (int);  /* the engine's name of a value          */
} EngineNames;

static const char *
acquisition_name (int i)
{
  return sg_bo_acquisition_name ((sg_bo_acquisition) i);
}

static const char *
surrogate_name (int i)
{
  return sg_bo_surrogate_name ((sg_bo_surrogate) i);
}

static const EngineNames acquisition_names = { "acquisition", SG_BO_ACQ_LAST, acquisition_name };
static const EngineNames surrogate_names = { "surrogate", SG_BO_SURROGATE_SVGP, surrogate_name };

/* "'a', 'b' or 'c'": every name, for the message that refuses another. */
static char *
known_names (const EngineNames *names)
{
  GString *out = g_string_new (NULL);

  for (int i = 0; i <= names->last; i++)
    g_string_append_printf (out, "%s'%s'", i == 0 ? "" : i == names->last ? " or " : ", ",
                            names->name (i));
  return g_string_free (out, FALSE);
}

char *
sb_acquisition_known_names (void)
{
  return known_names (&acquisition_names);
}

/* The optional member NAMES->key: one of the engine's names, its value in
 * OUT (left alone when the member is absent). */
static gboolean
parse_engine_name (const ParseContext *ctx, JsonObject *obj, const EngineNames *names,
                   int *out, GError **error)
{
  g_autofree char *name = NULL;
  g_autofree char *known = NULL;

  if (!parse_string (ctx, obj, names->key, FALSE, &name, error))
    return FALSE;
  if (name == NULL)
    return TRUE;
  for (int i = 0; i <= names->last; i++)
    if (g_str_equal (name, names->name (i)))
      {
        *out = i;
        return TRUE;
      }
  known = known_names (names);
  content_error (ctx, error, SB_SESSION_ERROR_INVALID, names->key,
                 "unknown %s '%s' (expected %s)", names->key, name, known);
  return FALSE;
}

/* "question", "options" and "ties_allowed" (absent in older files: a
 * duel of two options without ties). */
static gboolean
parse_question (const ParseContext *ctx, JsonObject *obj, SbExperiment *exp, GError **error)
{
  g_autofree char *name = NULL;
  JsonNode *node;

  if (!parse_string (ctx, obj, "question", FALSE, &name, error))
    return FALSE;
  if (name != NULL && !sb_ask_kind_from_string (name, &exp->question))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "question",
                     "unknown question kind '%s' (expected duel, choice or ranking)", name);
      return FALSE;
    }
  if (!parse_count (ctx, obj, "options", 2, SB_MAX_OPTIONS, &exp->n_options, error))
    return FALSE;
  GET_OR_FAIL (obj, "ties_allowed", G_TYPE_BOOLEAN, FALSE, node);
  if (node)
    exp->ties_allowed = json_node_get_boolean (node);
  return TRUE;
}

/* "question_text" and "confidence_scale" (sb-confidence-scale.h; absent
 * in older files: the default wording, the words). */
static gboolean
parse_wording (const ParseContext *ctx, JsonObject *obj, SbExperiment *exp, GError **error)
{
  JsonNode *node = member (ctx, obj, "confidence_scale");
  GError *local = NULL;

  if (!parse_string (ctx, obj, "question_text", FALSE, &exp->question_text, error))
    return FALSE;
  const char *key = exp->question_text != NULL
                      && !sb_question_text_validate (exp->question_text, &local)
                      ? "question_text"
                    : node != NULL && !sb_confidence_scale_from_json (node, &exp->confidence_levels,
                                                                     &local)
                      ? "confidence_scale" : NULL;
  if (key == NULL)
    return TRUE;
  content_error (ctx, error, SB_SESSION_ERROR_INVALID, key, "%s", local->message);
  g_error_free (local);
  return FALSE;
}

/* "stimulus" (sb-stimulus.h). A colour experiment written before it
 * existed showed HSL swatches, and still does. */
static gboolean
parse_stimulus (const ParseContext *ctx, JsonObject *obj, SbExperiment *exp, GError **error)
{
  JsonNode *node = member (ctx, obj, "stimulus");
  GError *local = NULL;

  if (node == NULL)
    {
      if (exp->template_kind == SB_TEMPLATE_COLOUR)
        {
          exp->stimulus.kind = SB_STIMULUS_COLOUR;
          exp->stimulus.colour_space = SB_COLOUR_HSL;
        }
      return TRUE;
    }
  if (!sb_stimulus_from_json (node, &exp->stimulus, &local))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "stimulus", "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static gboolean parse_vector (const ParseContext *ctx, JsonObject *obj, const char *key,
                              const char *what, const char *at, const SbExperiment *exp,
                              double **out, GError **error);

/* "candidates": {"csv", "file_column"?, "folder"?} (sb-candidates.h),
 * read after the parameters; DERIVE marks those without a range. */
static gboolean
parse_candidates (const ParseContext *ctx, JsonObject *obj, SbExperiment *exp,
                  const gboolean *derive, GError **error)
{
  JsonNode *node;
  JsonObject *co;
  g_autofree char *csv = NULL, *column = NULL, *folder = NULL;
  GError *local = NULL;

  GET_OR_FAIL (obj, "candidates", JSON_TYPE_OBJECT, FALSE, node);
  if (node == NULL)
    return TRUE;
  co = json_node_get_object (node);
  if (!parse_string (ctx, co, "csv", TRUE, &csv, error)
      || !parse_string (ctx, co, "file_column", FALSE, &column, error)
      || !parse_string (ctx, co, "folder", FALSE, &folder, error))
    return FALSE;
  if (!sb_experiment_load_candidates (exp, csv, column, folder, ctx->dir, derive, &local))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "candidates", "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_experiment (const ParseContext *ctx, JsonObject *obj, SbExperiment *exp, GError **error)
{
  JsonNode *node;
  g_autofree char *name = NULL;
  JsonArray *params;
  int acquisition = exp->acquisition, surrogate = exp->surrogate;
  gboolean has_candidates = json_object_has_member (obj, "candidates");
  gboolean derive[SB_MAX_PARAMETERS] = { FALSE };

  if (!parse_string (ctx, obj, "title", FALSE, &exp->title, error))
    return FALSE;
  if (!parse_string (ctx, obj, "template", TRUE, &name, error))
    return FALSE;
  if (!sb_template_from_string (name, &exp->template_kind))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "template",
                     "unknown template '%s'", name);
      return FALSE;
    }
  g_clear_pointer (&name, g_free);
  if (!parse_string (ctx, obj, "mode", TRUE, &name, error))
    return FALSE;
  if (!sb_mode_from_string (name, &exp->mode))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "mode", "unknown mode '%s'", name);
      return FALSE;
    }
  if (!parse_engine_name (ctx, obj, &acquisition_names, &acquisition, error)
      || !parse_engine_name (ctx, obj, &surrogate_names, &surrogate, error))
    return FALSE;
  exp->acquisition = (sg_bo_acquisition) acquisition;
  exp->surrogate = (sg_bo_surrogate) surrogate;
  if (!parse_string (ctx, obj, "problem", FALSE, &exp->problem, error)
      || !parse_count (ctx, obj, "budget", 1, SB_SESSION_MAX_BUDGET, &exp->budget, error)
      || !parse_count (ctx, obj, "initial", 0, SB_SESSION_MAX_INITIAL, &exp->initial, error)
      || !parse_count (ctx, obj, "numeric_every", 0, SB_SESSION_MAX_NUMERIC_EVERY,
                       &exp->numeric_every, error)
      || !parse_count (ctx, obj, "autoplay_ms", 0, SB_SESSION_MAX_AUTOPLAY_MS,
                       &exp->autoplay_ms, error))
    return FALSE;

  GET_OR_FAIL (obj, "seed", G_TYPE_INT64, FALSE, node);
  if (node && json_node_get_int (node) < 0)
    {
      /* the range skewgp new accepts: a seed is 0 or more */
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "seed",
                     "'seed' must be 0 or more, not %" G_GINT64_FORMAT, json_node_get_int (node));
      return FALSE;
    }
  if (node)
    exp->seed = (guint64) json_node_get_int (node);
  GET_OR_FAIL (obj, "threshold", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    exp->threshold = json_node_get_double (node);
  GET_OR_FAIL (obj, "confidence_level", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    exp->confidence_level = json_node_get_double (node);
  GET_OR_FAIL (obj, "oracle_noise", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    exp->oracle_noise = json_node_get_double (node);
  GET_OR_FAIL (obj, "show_truth", G_TYPE_BOOLEAN, FALSE, node);
  if (node)
    exp->show_truth = json_node_get_boolean (node);
  if (!parse_question (ctx, obj, exp, error) || !parse_wording (ctx, obj, exp, error)
      || !parse_stimulus (ctx, obj, exp, error))
    return FALSE;
  GET_OR_FAIL (obj, "oracle", G_TYPE_STRING, FALSE, node);
  if (node)
    {
      const char *oracle = json_node_get_string (node);
      if (!g_str_equal (oracle, "human") && !g_str_equal (oracle, "simulated"))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "oracle",
                         "'oracle' must be \"human\" or \"simulated\"");
          return FALSE;
        }
      exp->simulated = g_str_equal (oracle, "simulated");
    }

  GET_OR_FAIL (obj, "parameters", JSON_TYPE_ARRAY, TRUE, node);
  params = json_node_get_array (node);
  if (json_array_get_length (params) > SB_MAX_PARAMETERS)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                     "at most %d parameters are supported", SB_MAX_PARAMETERS);
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (params); i++)
    {
      JsonNode *pn = json_array_get_element (params, i);
      JsonObject *po;
      JsonNode *lower, *upper;
      g_autofree char *pname = NULL, *unit = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (pn))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                         "parameter %u is not an object", i + 1);
          return FALSE;
        }
      po = json_node_get_object (pn);
      SbScale scale = SB_SCALE_LINEAR;
      g_auto (GStrv) levels = NULL;
      if (!parse_string (ctx, po, "name", TRUE, &pname, error)
          || !parse_string (ctx, po, "unit", FALSE, &unit, error)
          || !parse_scale (ctx, po, pname, &scale, &levels, error))
        return FALSE;
      /* categorical levels imply the range 0 .. n - 1; with a candidate
       * set, a range left out comes from the CSV */
      GET_OR_FAIL (po, "lower", G_TYPE_DOUBLE, levels == NULL && !has_candidates, lower);
      GET_OR_FAIL (po, "upper", G_TYPE_DOUBLE, levels == NULL && !has_candidates, upper);
      if (levels == NULL && (lower == NULL) != (upper == NULL))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                         "parameter %u ('%s'): give both 'lower' and 'upper', or neither "
                         "(the range of the candidate set)", i + 1, pname);
          return FALSE;
        }
      derive[i] = levels == NULL && lower == NULL;
      if (!sb_experiment_add_parameter (exp, pname, unit, lower ? json_node_get_double (lower) : 0,
                                        upper ? json_node_get_double (upper)
                                        : levels ? g_strv_length (levels) - 1.0 : 1))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                         "parameter %u ('%s') has an empty range", i + 1, pname);
          return FALSE;
        }
      exp->parameters[exp->n_parameters - 1].scale = scale;
      exp->parameters[exp->n_parameters - 1].levels = g_steal_pointer (&levels);
      GET_OR_FAIL (po, "resolution", G_TYPE_DOUBLE, FALSE, lower);
      if (lower)
        exp->parameters[exp->n_parameters - 1].resolution = json_node_get_double (lower);
    }
  if (!parse_candidates (ctx, obj, exp, derive, error))
    return FALSE;
  if (json_object_has_member (obj, "safe_start"))
    {
      g_autofree double *start = NULL;
      if (!parse_vector (ctx, obj, "safe_start", "the experiment's safe start", "safe_start",
                         exp, &start, error))
        return FALSE;
      exp->has_safe_start = TRUE;
      memcpy (exp->safe_start, start, exp->n_parameters * sizeof (double));
    }
  {
    GError *local = NULL;
    if (!sb_experiment_validate (exp, &local))
      {
        content_error (ctx, error, SB_SESSION_ERROR_INVALID, "experiment", "%s", local->message);
        g_error_free (local);
        return FALSE;
      }
  }
  return TRUE;
}

/* The array KEY of OBJ: the experiment's dimension of finite numbers.
 * WHAT names its owner in messages ("observation 3 (duel)",
 * "hyperparameters"), AT the member whose position they give. */
static gboolean
parse_vector (const ParseContext *ctx, JsonObject *obj, const char *key, const char *what,
              const char *at, const SbExperiment *exp, double **out, GError **error)
{
  JsonNode *node;
  JsonArray *array;
  g_autofree double *x = NULL;

  GET_OR_FAIL (obj, key, JSON_TYPE_ARRAY, TRUE, node);
  array = json_node_get_array (node);
  if (json_array_get_length (array) != exp->n_parameters)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, at,
                     "%s: '%s' has %u coordinates, expected %u",
                     what, key, json_array_get_length (array), exp->n_parameters);
      return FALSE;
    }
  x = g_new (double, exp->n_parameters);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      JsonNode *e = json_array_get_element (array, j);
      GType vt = JSON_NODE_HOLDS_VALUE (e) ? json_node_get_value_type (e) : G_TYPE_INVALID;
      if (vt != G_TYPE_DOUBLE && vt != G_TYPE_INT64)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, at,
                         "%s: '%s' holds something that is not a number", what, key);
          return FALSE;
        }
      x[j] = json_node_get_double (e);
      if (!isfinite (x[j]))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, at,
                         "%s: '%s' entry %u (%s) is not a finite number",
                         what, key, j + 1, exp->parameters[j].name);
          return FALSE;
        }
    }
  *out = g_steal_pointer (&x);
  return TRUE;
}

/* The optional array KEY of OBJ: N option indices (a permutation, which
 * the session's validation checks), into ORDER; *N_READ = N, or 0 when
 * the member is absent. */
static gboolean
parse_index_list (const ParseContext *ctx, JsonObject *obj, const char *key, const char *what,
                  guint n, guint *order, guint *n_read, GError **error)
{
  JsonNode *node;
  JsonArray *array;

  *n_read = 0;
  GET_OR_FAIL (obj, key, JSON_TYPE_ARRAY, FALSE, node);
  if (node == NULL)
    return TRUE;
  array = json_node_get_array (node);
  if (json_array_get_length (array) != n)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                     "%s: '%s' has %u entries, expected %u", what, key,
                     json_array_get_length (array), n);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (array, i);
      gint64 v;
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_INT64
          || (v = json_node_get_int (e)) < 0 || v >= n)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                         "%s: '%s' entry %u is not an option index (0 .. %u)",
                         what, key, i + 1, n - 1);
          return FALSE;
        }
      order[i] = (guint) v;
    }
  *n_read = n;
  return TRUE;
}

/* The optional member "shown_order" of OBJ: a permutation of N options. */
static gboolean
parse_order (const ParseContext *ctx, JsonObject *obj, const char *what, guint n,
             guint *order, guint *n_shown, GError **error)
{
  return parse_index_list (ctx, obj, "shown_order", what, n, order, n_shown, error);
}

/* The member "options" of a choice, a ranking or their skip: 2 ..
 * SB_MAX_OPTIONS settings of the experiment's dimension. */
static gboolean
parse_options (const ParseContext *ctx, JsonObject *o, const char *what,
               const SbExperiment *exp, SbLogEntry *obs, GError **error)
{
  JsonNode *node;
  JsonArray *array;
  guint k;

  GET_OR_FAIL (o, "options", JSON_TYPE_ARRAY, TRUE, node);
  array = json_node_get_array (node);
  k = json_array_get_length (array);
  if (k < 2 || k > SB_MAX_OPTIONS)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "options",
                     "%s: 'options' has %u settings, expected 2 .. %d", what, k, SB_MAX_OPTIONS);
      return FALSE;
    }
  obs->options = g_new (double, (gsize) k * exp->n_parameters);
  obs->n_options = k;
  for (guint i = 0; i < k; i++)
    {
      JsonNode *e = json_array_get_element (array, i);
      g_autoptr (JsonObject) wrap = json_object_new ();
      g_autofree double *x = NULL;

      /* each row is read as the vector "option" of a one-member object */
      json_object_set_member (wrap, "option", json_node_copy (e));
      if (!parse_vector (ctx, wrap, "option", what, "options", exp, &x, error))
        return FALSE;
      memcpy (obs->options + (gsize) i * exp->n_parameters, x, exp->n_parameters * sizeof *x);
    }
  return TRUE;
}

/* The optional "confidence" on the experiment's scale: a word, or a
 * rating's number. A number in a file whose experiment has the words is
 * an older file's note on the experimenter's own scale, kept in the note. */
static gboolean
parse_confidence (const ParseContext *ctx, JsonObject *o, const char *what,
                  const SbExperiment *exp, SbLogEntry *obs, GError **error)
{
  JsonNode *given = member (ctx, o, "confidence");
  g_autofree char *scale = sb_confidence_scale_describe (exp->confidence_levels);
  GError *local = NULL;
  GType vt;

  if (given == NULL)
    return TRUE;
  vt = JSON_NODE_HOLDS_VALUE (given) ? json_node_get_value_type (given) : G_TYPE_INVALID;
  if (vt == G_TYPE_STRING || (vt == G_TYPE_INT64 && exp->confidence_levels != 0))
    {
      sg_confidence word = SG_CONFIDENCE_NONE;
      gint64 rating = vt == G_TYPE_INT64 ? json_node_get_int (given) : 0;
      if ((vt == G_TYPE_STRING
           && sg_confidence_parse (json_node_get_string (given), &word) != SG_OK)
          || (vt == G_TYPE_INT64 && (rating < 1 || rating > SG_CONFIDENCE_MAX_LEVELS)))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "confidence",
                         "%s: 'confidence' must be %s", what, scale);
          return FALSE;
        }
      if (!sb_confidence_on_scale (exp->confidence_levels, (guint) rating, word,
                                   &obs->confidence, &local))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "confidence", "%s: %s", what,
                         local->message);
          g_error_free (local);
          return FALSE;
        }
      return TRUE;
    }
  if (exp->confidence_levels == 0 && (vt == G_TYPE_DOUBLE || vt == G_TYPE_INT64))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double v = json_node_get_double (given);
      g_autofree char *old = obs->note;

      if (!isfinite (v))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "confidence",
                         "%s: 'confidence' is not a finite number", what);
          return FALSE;
        }
      g_ascii_formatd (buf, sizeof buf, "%.17g", v);
      obs->note = old ? g_strdup_printf ("%s; confidence: %s", old, buf)
                      : g_strdup_printf ("confidence: %s", buf);
      return TRUE;
    }
  content_error (ctx, error, SB_SESSION_ERROR_INVALID, "confidence",
                 "%s: 'confidence' must be %s", what, scale);
  return FALSE;
}

/* The optional details an ask/tell answer carries (sb-session.h). */
static gboolean
parse_answer_details (const ParseContext *ctx, JsonObject *o, const char *what,
                      const SbExperiment *exp, SbLogEntry *obs, GError **error)
{
  JsonNode *member;

  GET_OR_FAIL (o, "question", G_TYPE_INT64, FALSE, member);
  if (member)
    {
      if (json_node_get_int (member) < 1)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "question",
                         "%s: 'question' must be a question id (1, 2, ...)", what);
          return FALSE;
        }
      obs->question = (guint64) json_node_get_int (member);
    }
  if (!parse_order (ctx, o, what, sb_log_entry_n_options (obs), obs->shown_order,
                    &obs->n_shown, error))
    return FALSE;
  GET_OR_FAIL (o, "response_time", G_TYPE_DOUBLE, FALSE, member);
  if (member)
    {
      obs->has_response_time = TRUE;
      obs->response_time = json_node_get_double (member);
    }
  return parse_string (ctx, o, "note", FALSE, &obs->note, error)
         && parse_confidence (ctx, o, what, exp, obs, error);
}

/* 9999-12-31T23:59:59.999999Z, the last time an ISO 8601 date holds. */
#define SB_TIME_US_MAX G_GINT64_CONSTANT (253402300799999999)

/* A time given as "time_us" (microseconds since the epoch) or, when that
 * is absent, as the ISO 8601 "time"; REQUIRED: one of them must be there. */
static gboolean
parse_time (const ParseContext *ctx, JsonObject *o, const char *what, gboolean required,
            gint64 *out, GError **error)
{
  g_autofree char *time = NULL;
  JsonNode *member;

  GET_OR_FAIL (o, "time_us", G_TYPE_INT64, FALSE, member);
  if (member)
    {
      *out = json_node_get_int (member);
      if (*out < 0 || *out > SB_TIME_US_MAX)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "time_us",
                         "%s: 'time_us' %" G_GINT64_FORMAT " is not a time from 1970 to the "
                         "year 9999 (microseconds since 1970-01-01)", what, *out);
          return FALSE;
        }
      return TRUE;
    }
  if (!parse_string (ctx, o, "time", required, &time, error))
    return FALSE;
  if (time)
    {
      g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (time, NULL);
      if (dt == NULL)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "time",
                         "%s: '%s' is not an ISO 8601 time", what, time);
          return FALSE;
        }
      *out = g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
    }
  return TRUE;
}

/* The optional "removed": {"time", "by"} of an entry the experimenter
 * removed (sb-session-history.h). */
static gboolean
parse_removed (const ParseContext *ctx, JsonObject *o, const char *what, SbLogEntry *obs,
               GError **error)
{
  g_autofree char *where = g_strdup_printf ("%s: 'removed'", what);
  JsonObject *r;
  JsonNode *member;

  if (!get_member (ctx, o, "removed", JSON_TYPE_OBJECT, FALSE, &member, error))
    return FALSE;
  if (member == NULL)
    return TRUE;
  r = json_node_get_object (member);
  if (!parse_time (ctx, r, where, TRUE, &obs->removed_time, error)
      || !parse_string (ctx, r, "by", FALSE, &obs->removed_by, error))
    return FALSE;
  if (obs->removed_time == 0)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "removed",
                     "%s: the time of the removal is 0", what);
      return FALSE;
    }
  if (obs->removed_by == NULL)
    obs->removed_by = g_strdup ("");
  return TRUE;
}

/* One record of the edit journal ("edits"), checked against the log. */
static gboolean
parse_edit (const ParseContext *ctx, JsonNode *node, guint index, guint n_log, SbEdit *edit,
            GError **error)
{
  g_autofree char *what = g_strdup_printf ("edit %u", index + 1);
  g_autofree char *action = NULL;
  GError *local = NULL;
  JsonObject *o;
  JsonNode *member;
  gint64 entry;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "edits", "%s is not an object", what);
      return FALSE;
    }
  o = json_node_get_object (node);
  if (!parse_string (ctx, o, "action", TRUE, &action, error))
    return FALSE;
  if (!sb_edit_action_from_string (action, &edit->action))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "action",
                     "%s: unknown action '%s' (expected \"remove\", \"restore\" or \"note\")",
                     what, action);
      return FALSE;
    }
  GET_OR_FAIL (o, "entry", G_TYPE_INT64, TRUE, member);
  entry = json_node_get_int (member);
  edit->entry = entry >= 1 && entry <= G_MAXUINT ? (guint) (entry - 1) : G_MAXUINT;
  GET_OR_FAIL (o, "reverts", G_TYPE_INT64, FALSE, member);
  if (member)
    edit->reverts = json_node_get_int (member) >= 1 && json_node_get_int (member) <= G_MAXUINT
                    ? (guint) json_node_get_int (member) : G_MAXUINT;
  if (!parse_time (ctx, o, what, TRUE, &edit->time, error)
      || !parse_string (ctx, o, "by", FALSE, &edit->by, error)
      || !parse_string (ctx, o, "note", FALSE, &edit->note, error)
      || !parse_string (ctx, o, "previous", FALSE, &edit->previous, error))
    return FALSE;
  if (!sb_edit_check (edit, n_log, index, &local))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "edits", "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_observation (const ParseContext *ctx, JsonNode *node, guint index,
                   const SbExperiment *exp, SbLogEntry **out, GError **error)
{
  g_autoptr (SbLogEntry) obs = g_new0 (SbLogEntry, 1);
  g_autofree char *kind = NULL;
  g_autofree char *what = NULL;
  GError *local = NULL;
  JsonObject *o;
  JsonNode *member;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "observations",
                     "observation %u is not an object", index + 1);
      return FALSE;
    }
  o = json_node_get_object (node);
  if (!parse_string (ctx, o, "kind", TRUE, &kind, error))
    return FALSE;
  if (!sb_log_kind_from_string (kind, &obs->kind))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "kind",
                     "observation %u: unknown kind '%s'", index + 1, kind);
      return FALSE;
    }
  obs->dim = exp->n_parameters;
  obs->value = NAN;
  what = g_strdup_printf ("observation %u (%s)", index + 1, kind);
  if (obs->kind == SB_LOG_CHOICE || obs->kind == SB_LOG_RANKING
      || (obs->kind == SB_LOG_SKIP && json_object_has_member (o, "options")))
    {
      if (!parse_options (ctx, o, what, exp, obs, error))
        return FALSE;
    }
  else if (obs->kind == SB_LOG_DUEL || obs->kind == SB_LOG_SKIP || obs->kind == SB_LOG_TIE)
    {
      if (!parse_vector (ctx, o, "a", what, "observations", exp, &obs->a, error)
          || !parse_vector (ctx, o, "b", what, "observations", exp, &obs->b, error))
        return FALSE;
    }
  else if (!parse_vector (ctx, o, "x", what, "observations", exp, &obs->a, error))
    return FALSE;

  if (obs->kind == SB_LOG_DUEL)
    {
      g_autofree char *winner = NULL;
      if (!parse_string (ctx, o, "winner", TRUE, &winner, error))
        return FALSE;
      if (!g_str_equal (winner, "a") && !g_str_equal (winner, "b"))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "winner",
                         "observation %u: 'winner' must be \"a\" or \"b\"", index + 1);
          return FALSE;
        }
      obs->winner = g_str_equal (winner, "b");
    }
  if (obs->kind == SB_LOG_CHOICE)
    {
      GET_OR_FAIL (o, "chosen", G_TYPE_INT64, TRUE, member);
      if (json_node_get_int (member) < 0 || json_node_get_int (member) >= obs->n_options)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "chosen",
                         "%s: 'chosen' must be an option index (0 .. %u)", what,
                         obs->n_options - 1);
          return FALSE;
        }
      obs->chosen = (guint) json_node_get_int (member);
    }
  if (obs->kind == SB_LOG_RANKING)
    {
      guint n_read;
      if (!parse_index_list (ctx, o, "ranking", what, obs->n_options, obs->ranking, &n_read,
                             error))
        return FALSE;
      if (n_read == 0)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "ranking",
                         "%s: the member 'ranking' is missing", what);
          return FALSE;
        }
    }
  if (obs->kind == SB_LOG_VALUE)
    {
      GET_OR_FAIL (o, "value", G_TYPE_DOUBLE, TRUE, member);
      obs->value = json_node_get_double (member);
    }
  {
    g_autofree char *where = g_strdup_printf ("observation %u", index + 1);
    if (!parse_time (ctx, o, where, FALSE, &obs->time, error))
      return FALSE;
  }
  if (!parse_answer_details (ctx, o, what, exp, obs, error)
      || !parse_removed (ctx, o, what, obs, error))
    return FALSE;
  /* What the engine would refuse is refused here, by the same check. */
  if (!sb_experiment_check_observation (exp, obs, index, &local))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "observations", "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  *out = g_steal_pointer (&obs);
  return TRUE;
}

static gboolean
parse_hyper (const ParseContext *ctx, JsonObject *o, const SbExperiment *exp, SbHyper *h,
             GError **error)
{
  JsonNode *node;
  double *ls = NULL;
  g_autofree char *kernel = NULL;
  GError *local = NULL;
  struct { const char *key; double *out; } scalars[] = {
    { "variance", &h->variance }, { "mean", &h->mean },
    { "numeric_sd", &h->numeric_sd }, { "probit_sd", &h->probit_sd },
  };

  memset (h, 0, sizeof *h);
  h->log_evidence = NAN;
  if (!parse_count (ctx, o, "answers", 0, G_MAXINT, &h->n_answers, error)
      || !parse_string (ctx, o, "kernel", TRUE, &kernel, error))
    return FALSE;
  if (!g_str_equal (kernel, "rbf") && !g_str_equal (kernel, "matern52"))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "kernel",
                     "unknown kernel '%s'", kernel);
      return FALSE;
    }
  h->matern52 = g_str_equal (kernel, "matern52");
  for (guint i = 0; i < G_N_ELEMENTS (scalars); i++)
    {
      GET_OR_FAIL (o, scalars[i].key, G_TYPE_DOUBLE, TRUE, node);
      *scalars[i].out = json_node_get_double (node);
    }
  GET_OR_FAIL (o, "log_evidence", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    h->log_evidence = json_node_get_double (node);
  if (!parse_vector (ctx, o, "lengthscales", "hyperparameters", "lengthscales", exp, &ls, error))
    return FALSE;
  memcpy (h->lengthscales, ls, exp->n_parameters * sizeof (double));
  g_clear_pointer (&ls, g_free);
  if (json_object_has_member (o, "fitted_lengthscales"))
    {
      if (!parse_vector (ctx, o, "fitted_lengthscales", "hyperparameters", "fitted_lengthscales",
                         exp, &ls, error))
        return FALSE;
      memcpy (h->fitted_lengthscales, ls, exp->n_parameters * sizeof (double));
      g_free (ls);
    }
  h->valid = TRUE;
  if (!sb_hyper_validate (h, exp->n_parameters, &local))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "hyperparameters", "%s",
                     local->message);
      g_error_free (local);
      return FALSE;
    }
  return TRUE;
}

/* The pending ask/tell question (sb-session.h); checked in full by the
 * session's validation once the log is known. */
static gboolean
parse_pending (const ParseContext *ctx, JsonObject *o, const SbExperiment *exp,
               SbQuestion *q, GError **error)
{
  const char *what = "pending question";
  g_autofree char *kind = NULL;
  JsonNode *node;
  JsonArray *options;
  guint n_shown;

  memset (q, 0, sizeof *q);
  GET_OR_FAIL (o, "id", G_TYPE_INT64, TRUE, node);
  if (json_node_get_int (node) < 1)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "id",
                     "%s: 'id' must be a question id (1, 2, ...)", what);
      return FALSE;
    }
  q->id = (guint64) json_node_get_int (node);
  if (!parse_string (ctx, o, "kind", TRUE, &kind, error))
    return FALSE;
  if (!sb_question_kind_from_string (kind, &q->kind))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "pending",
                     "%s: unknown kind '%s' (expected 'duel', 'value', 'choice' or "
                     "'ranking')", what, kind);
      return FALSE;
    }
  GET_OR_FAIL (o, "options", JSON_TYPE_ARRAY, TRUE, node);
  options = json_node_get_array (node);
  q->n_options = json_array_get_length (options);
  /* The number the kind asks for is checked with the rest of the
   * question (sb_question_check). */
  if (q->n_options < 1 || q->n_options > SB_MAX_OPTIONS)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "options",
                     "%s: %u options, expected 1 to %d", what, q->n_options, SB_MAX_OPTIONS);
      return FALSE;
    }
  for (guint i = 0; i < q->n_options; i++)
    {
      g_autoptr (JsonObject) holder = json_object_new ();
      g_autofree double *x = NULL;
      json_object_set_member (holder, "option", json_node_copy (json_array_get_element (options, i)));
      if (!parse_vector (ctx, holder, "option", what, "options", exp, &x, error))
        return FALSE;
      memcpy (q->options[i], x, exp->n_parameters * sizeof (double));
    }
  if (!parse_order (ctx, o, what, q->n_options, q->shown_order, &n_shown, error))
    return FALSE;
  if (n_shown == 0)
    for (guint i = 0; i < q->n_options; i++)
      q->shown_order[i] = i;
  GET_OR_FAIL (o, "created_us", G_TYPE_INT64, FALSE, node);
  if (node)
    q->created = json_node_get_int (node);
  if (!parse_count (ctx, o, "repeat_of", 0, G_MAXINT, &q->repeat_of, error))
    return FALSE;
  GET_OR_FAIL (o, "prob_safe", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    {
      q->has_prob_safe = TRUE;
      q->prob_safe = json_node_get_double (node);
      if (q->kind != SB_QUESTION_VALUE || q->prob_safe < 0 || q->prob_safe > 1)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "prob_safe",
                         "%s: 'prob_safe' %g is not a probability of a value question", what,
                         q->prob_safe);
          return FALSE;
        }
    }
  return parse_count (ctx, o, "log_length", 0, G_MAXINT, &q->n_log, error);
}

SbExperiment *
sb_experiment_from_node (JsonObject *obj, const char *name, const char *data, SbJsonSeen *seen,
                         GError **error)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  ParseContext context = { name, data, NULL, seen };
  GError *local = NULL;

  if (!parse_experiment (&context, obj, exp, error))
    return NULL;
  if (!sb_experiment_validate (exp, &local))
    {
      content_error (&context, error, SB_SESSION_ERROR_INVALID, "experiment", "%s",
                     local->message);
      g_error_free (local);
      return NULL;
    }
  return g_steal_pointer (&exp);
}

void
sb_json_locate_member (const char *data, const char *key, guint *line, guint *column)
{
  locate_member (data, key, line, column);
}

SbSession *
sb_session_load_from_data (const char *data, gssize len, const char *name, GError **error)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GPtrArray) log = NULL;
  g_autofree char *text = len < 0 ? g_strdup (data) : g_strndup (data, len);
  g_autofree char *dir = g_path_get_dirname (name);
  g_autoptr (SbJsonSeen) seen = sb_json_seen_new ();
  ParseContext context = { name, text, dir, seen }, *ctx = &context;
  GError *local = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonNode *node;
  JsonObject *obj;
  SbSession *self;

  /* The strict reader says "LINE:COL: what is wrong"; put the file name
   * in front. */
  root = sb_json_read (text, -1, &local);
  if (root == NULL)
    {
      if (g_error_matches (local, SB_JSON_READ_ERROR, SB_JSON_READ_ERROR_EMPTY))
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_FOREIGN,
                     "%s:1:1: not a SkewBench session (the file is empty)", name);
      else
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_PARSE, "%s:%s", name,
                     local->message);
      g_error_free (local);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_FOREIGN,
                   "%s:1:1: not a SkewBench session (the document is not a JSON object)", name);
      return NULL;
    }
  obj = json_node_get_object (root);
  node = member (ctx, obj, "format");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING
      || !g_str_equal (json_node_get_string (node), SB_SESSION_FORMAT))
    {
      content_error (ctx, error, SB_SESSION_ERROR_FOREIGN, "format",
                     "not a SkewBench session (\"format\" is not \"%s\")", SB_SESSION_FORMAT);
      return NULL;
    }
  if (!get_member (ctx, obj, "version", G_TYPE_INT64, TRUE, &node, error))
    return NULL;
  if (json_node_get_int (node) < 1 || json_node_get_int (node) > SB_SESSION_VERSION)
    {
      content_error (ctx, error, SB_SESSION_ERROR_VERSION, "version",
                     "session version %" G_GINT64_FORMAT " is not supported (this program reads version %d)",
                     json_node_get_int (node), SB_SESSION_VERSION);
      return NULL;
    }
  if (!get_member (ctx, obj, "experiment", JSON_TYPE_OBJECT, TRUE, &node, error)
      || !parse_experiment (ctx, json_node_get_object (node), exp, error))
    return NULL;
  if (!get_member (ctx, obj, "observations", JSON_TYPE_ARRAY, TRUE, &node, error))
    return NULL;

  log = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_log_entry_free);
  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    {
      SbLogEntry *obs;
      if (!parse_observation (ctx, json_array_get_element (json_node_get_array (node), i),
                              i, exp, &obs, error))
        return NULL;
      g_ptr_array_add (log, obs);
    }

  SbHyper hyper = { 0 };
  if (!get_member (ctx, obj, "hyperparameters", JSON_TYPE_OBJECT, FALSE, &node, error))
    return NULL;
  if (node && !parse_hyper (ctx, json_node_get_object (node), exp, &hyper, error))
    return NULL;

  g_autoptr (GArray) refits = g_array_new (FALSE, FALSE, sizeof (SbHyper));
  if (!get_member (ctx, obj, "refits", JSON_TYPE_ARRAY, FALSE, &node, error))
    return NULL;
  for (guint i = 0; node && i < json_array_get_length (json_node_get_array (node)); i++)
    {
      JsonNode *fit = json_array_get_element (json_node_get_array (node), i);
      SbHyper h = { 0 };
      if (!JSON_NODE_HOLDS_OBJECT (fit))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "refits",
                         "refit %u is not an object", i + 1);
          return NULL;
        }
      if (!parse_hyper (ctx, json_node_get_object (fit), exp, &h, error))
        return NULL;
      g_array_append_val (refits, h);
    }

  gint64 asked = 0;
  if (!get_member (ctx, obj, "questions_asked", G_TYPE_INT64, FALSE, &node, error))
    return NULL;
  if (node && (asked = json_node_get_int (node)) < 0)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "questions_asked",
                     "'questions_asked' must be 0 or more");
      return NULL;
    }
  g_autofree SbQuestion *pending = NULL;
  if (!get_member (ctx, obj, "pending", JSON_TYPE_OBJECT, FALSE, &node, error))
    return NULL;
  if (node)
    {
      pending = g_new0 (SbQuestion, 1);
      if (!parse_pending (ctx, json_node_get_object (node), exp, pending, error))
        return NULL;
      if (!sb_question_check (exp, pending, log->len, (guint64) asked, &local))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "pending", "%s", local->message);
          g_error_free (local);
          return NULL;
        }
    }

  g_autoptr (GArray) edits = sb_edit_array_new ();
  if (!get_member (ctx, obj, "edits", JSON_TYPE_ARRAY, FALSE, &node, error))
    return NULL;
  for (guint i = 0; node && i < json_array_get_length (json_node_get_array (node)); i++)
    {
      SbEdit edit = { 0 };
      gboolean ok = parse_edit (ctx, json_array_get_element (json_node_get_array (node), i), i,
                                log->len, &edit, error);
      g_array_append_val (edits, edit);  /* cleared with the array on failure too */
      if (!ok)
        return NULL;
    }

  self = g_object_new (SB_TYPE_SESSION, NULL);
  SB_SWAP (GArray *, self->edits, edits);
  self->hyper = hyper;
  self->questions_asked = (guint64) asked;
  self->pending = g_steal_pointer (&pending);
  g_array_append_vals (self->refits, refits->data, refits->len);
  self->experiment = g_steal_pointer (&exp);
  g_ptr_array_unref (self->observations);
  self->observations = g_steal_pointer (&log);
  node = member (ctx, obj, "created");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (json_node_get_string (node), NULL);
      if (dt)
        self->created = g_date_time_to_unix (dt) * G_USEC_PER_SEC
                        + g_date_time_get_microsecond (dt);
    }
  self->unknown = sb_json_unknown_collect (root, seen);
  return self;
}

/* Reading a directory fails with a message that does not name it, and
 * reading a FIFO blocks: refuse both by name first. A file that does not
 * exist is left to the read, whose error names it. */
static gboolean
is_regular_file (GFile *file, const char *name, GError **error)
{
  GFileType type = g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL);

  if (type == G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   "%s is a directory, not a session file", name);
      return FALSE;
    }
  if (type == G_FILE_TYPE_SPECIAL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s is a device, pipe or socket, not a session file", name);
      return FALSE;
    }
  return TRUE;
}

SbSession *
sb_session_load (GFile *file, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *name = NULL;
  gsize len;
  SbSession *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  name = g_file_get_parse_name (file);
  if (!is_regular_file (file, name, error)
      || !g_file_load_contents (file, NULL, &data, &len, NULL, error))
    return NULL;
  if (memchr (data, '\0', len) != NULL || !g_utf8_validate (data, len, NULL))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_FOREIGN,
                   "%s:1:1: not a SkewBench session (the file is not UTF-8 text)", name);
      return NULL;
    }
  self = sb_session_load_from_data (data, len, name, error);
  if (self == NULL)
    return NULL;
  self->file = g_object_ref (file);
  if (g_file_is_native (file))
    {
      g_autofree char *path = g_file_get_path (file);
      g_autofree char *target = sb_atomic_file_resolve_path (path);
      sb_atomic_file_remove_stale_temps (target);
    }
  return self;
}

gboolean
sb_session_reload (SbSession *self, GError **error)
{
  g_autoptr (SbSession) fresh = NULL;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (self->file != NULL, FALSE);

  fresh = sb_session_load (self->file, error);
  if (fresh == NULL)
    return FALSE;
  /* Take the file's contents; FRESH leaves with what was here. */
  SB_SWAP (SbExperiment *, self->experiment, fresh->experiment);
  SB_SWAP (GPtrArray *, self->observations, fresh->observations);
  SB_SWAP (GArray *, self->refits, fresh->refits);
  SB_SWAP (SbHyper, self->hyper, fresh->hyper);
  SB_SWAP (SbQuestion *, self->pending, fresh->pending);
  SB_SWAP (GArray *, self->edits, fresh->edits);
  SB_SWAP (SbJsonUnknown *, self->unknown, fresh->unknown);
  /* Edits made elsewhere: the stacks of this object's edits no longer apply. */
  g_array_set_size (self->undo_edits, 0);
  g_array_set_size (self->redo_edits, 0);
  self->questions_asked = fresh->questions_asked;
  self->created = fresh->created;
  g_object_notify (G_OBJECT (self), "n-observations");
  g_signal_emit_by_name (self, "changed");
  return TRUE;
}
