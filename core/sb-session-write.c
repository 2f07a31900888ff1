/* sb-session-write.c — a session into its JSON document, and the
 * document onto disk.
 *
 * Saving follows GNOME Text Editor's editor-session.c: serialise the whole
 * state to a versioned document and replace the file atomically, here with
 * g_file_set_contents_full (write a temporary file in the same directory,
 * fsync it, rename it over the old one), so a crash at any moment leaves
 * either the previous or the new complete file, never a torn one.
 */
#include "config.h"

#include "sb-session-private.h"
#include "sb-json-write.h"

#include <json-glib/json-glib.h>
#include <math.h>

char *
sb_session_format_time (gint64 time_us)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (time_us / G_USEC_PER_SEC);
  g_autoptr (GDateTime) exact = dt ? g_date_time_add (dt, time_us % G_USEC_PER_SEC) : NULL;
  return exact ? g_date_time_format_iso8601 (exact) : g_strdup ("");
}

static JsonNode *
vector_node (const double *x, guint n)
{
  JsonArray *array = json_array_sized_new (n);
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < n; i++)
    json_array_add_double_element (array, x[i]);
  json_node_take_array (node, array);
  return node;
}

static JsonNode *
experiment_to_node (const SbExperiment *exp)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, exp->title);
  json_builder_set_member_name (b, "template");
  json_builder_add_string_value (b, sb_template_to_string (exp->template_kind));
  json_builder_set_member_name (b, "mode");
  json_builder_add_string_value (b, sb_mode_to_string (exp->mode));
  json_builder_set_member_name (b, "acquisition");
  json_builder_add_string_value (b, sg_bo_acquisition_name (exp->acquisition));
  json_builder_set_member_name (b, "surrogate");
  json_builder_add_string_value (b, sg_bo_surrogate_name (exp->surrogate));
  json_builder_set_member_name (b, "budget");
  json_builder_add_int_value (b, exp->budget);
  json_builder_set_member_name (b, "initial");
  json_builder_add_int_value (b, exp->initial);
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) exp->seed);
  json_builder_set_member_name (b, "threshold");
  json_builder_add_double_value (b, exp->threshold);
  json_builder_set_member_name (b, "numeric_every");
  json_builder_add_int_value (b, exp->numeric_every);
  json_builder_set_member_name (b, "problem");
  json_builder_add_string_value (b, exp->problem ? exp->problem : "");
  json_builder_set_member_name (b, "oracle");
  json_builder_add_string_value (b, exp->simulated ? "simulated" : "human");
  json_builder_set_member_name (b, "show_truth");
  json_builder_add_boolean_value (b, exp->show_truth);
  json_builder_set_member_name (b, "autoplay_ms");
  json_builder_add_int_value (b, exp->autoplay_ms);
  json_builder_set_member_name (b, "oracle_noise");
  json_builder_add_double_value (b, exp->oracle_noise);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      const SbParameter *p = &exp->parameters[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, p->name);
      json_builder_set_member_name (b, "unit");
      json_builder_add_string_value (b, p->unit);
      json_builder_set_member_name (b, "lower");
      json_builder_add_double_value (b, p->lower);
      json_builder_set_member_name (b, "upper");
      json_builder_add_double_value (b, p->upper);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static JsonNode *
observation_to_node (const SbLogEntry *obs)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "kind", sb_log_kind_to_string (obs->kind));
  {
    g_autofree char *t = sb_session_format_time (obs->time);
    json_object_set_string_member (o, "time", t);
  }
  json_object_set_int_member (o, "time_us", obs->time);
  json_object_set_member (o, obs->b ? "a" : "x", vector_node (obs->a, obs->dim));
  if (obs->b)
    json_object_set_member (o, "b", vector_node (obs->b, obs->dim));
  if (obs->kind == SB_LOG_DUEL)
    json_object_set_string_member (o, "winner", obs->winner ? "b" : "a");
  if (obs->kind == SB_LOG_VALUE)
    json_object_set_double_member (o, "value", obs->value);
  json_node_take_object (node, o);
  return node;
}

static JsonNode *
hyper_to_node (const SbHyper *h, guint dim)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (o, "answers", h->n_answers);
  json_object_set_string_member (o, "kernel", h->matern52 ? "matern52" : "rbf");
  json_object_set_double_member (o, "variance", h->variance);
  json_object_set_member (o, "lengthscales", vector_node (h->lengthscales, dim));
  json_object_set_double_member (o, "mean", h->mean);
  json_object_set_double_member (o, "numeric_sd", h->numeric_sd);
  json_object_set_double_member (o, "probit_sd", h->probit_sd);
  if (isfinite (h->log_evidence))
    json_object_set_double_member (o, "log_evidence", h->log_evidence);
  json_node_take_object (node, o);
  return node;
}

char *
sb_session_to_data (SbSession *self, gsize *length)
{
  JsonObject *root = json_object_new ();
  JsonArray *log = json_array_sized_new (self->observations->len);
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *created = sb_session_format_time (self->created);

  json_object_set_string_member (root, "format", SB_SESSION_FORMAT);
  json_object_set_int_member (root, "version", SB_SESSION_VERSION);
  json_object_set_string_member (root, "created", created);
  json_object_set_member (root, "experiment", experiment_to_node (self->experiment));
  for (guint i = 0; i < self->observations->len; i++)
    json_array_add_element (log, observation_to_node (g_ptr_array_index (self->observations, i)));
  json_object_set_array_member (root, "observations", log);
  if (self->hyper.valid)
    json_object_set_member (root, "hyperparameters",
                            hyper_to_node (&self->hyper, self->experiment->n_parameters));
  json_node_take_object (node, root);

  /* Not json_generator: json-glib 1.6 writes 1e-14 as "1e-14.0". */
  return sb_json_write (node, TRUE, length);
}

gboolean
sb_session_save (SbSession *self, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *path = NULL;
  gsize len;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);

  if (self->file == NULL)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_NO_FILE,
                   "the session has no file");
      return FALSE;
    }
  path = g_file_get_path (self->file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "sessions can only be saved to local files");
      return FALSE;
    }
  if (!sb_session_check (self, error))
    return FALSE;
  data = sb_session_to_data (self, &len);
  /* CONSISTENT: temporary file + fsync + rename, so the file on disk is
   * always a complete document (the old one or the new one). */
  return g_file_set_contents_full (path, data, len,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

