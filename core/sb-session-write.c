/* sb-session-write.c — a session into its JSON document (sb-session-write.h).
 *
 * Saving follows GNOME Text Editor's editor-session.c: serialise the whole
 * state to a versioned document, which sb-session.c writes over the file
 * atomically (sb-atomic-file.h: symbolic links, and the temporary files a
 * killed save leaves behind).
 */
#include "config.h"

#include "sb-session-write.h"
#include "sb-session-private.h"
#include "sb-atomic-file.h"
#include "sb-candidates.h"
#include "sb-confidence-scale.h"
#include "sb-json-write.h"
#include "sb-parameter-kinds.h"
#include "sb-stimulus.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

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
order_node (const guint *order, guint n)
{
  JsonArray *array = json_array_sized_new (n);
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < n; i++)
    json_array_add_int_element (array, order[i]);
  json_node_take_array (node, array);
  return node;
}

/* "candidates": the paths as the experiment gave them when the session
 * file is in their base folder, else absolute (sb_candidates_path_for). */
static void
add_candidates (JsonBuilder *b, const SbCandidates *c, const char *session_dir)
{
  g_autofree char *csv = sb_candidates_path_for (c, c->csv, session_dir);
  g_autofree char *folder = sb_candidates_path_for (c, c->folder, session_dir);

  json_builder_set_member_name (b, "candidates");
  json_builder_begin_object (b);
  sb_json_add_string (b, "csv", csv);
  sb_json_add_string (b, "file_column", c->file_column);
  if (*folder != '\0')
    {
      sb_json_add_string (b, "folder", folder);
    }
  json_builder_end_object (b);
}

static JsonNode *
experiment_to_node (const SbExperiment *exp, const char *session_dir)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_string (b, "title", exp->title);
  sb_json_add_string (b, "template", sb_template_to_string (exp->template_kind));
  sb_json_add_string (b, "mode", sb_mode_to_string (exp->mode));
  sb_json_add_string (b, "acquisition", sg_bo_acquisition_name (exp->acquisition));
  sb_json_add_string (b, "surrogate", sg_bo_surrogate_name (exp->surrogate));
  sb_json_add_int (b, "budget", exp->budget);
  sb_json_add_int (b, "initial", exp->initial);
  sb_json_add_int (b, "seed", (gint64) exp->seed);
  json_builder_set_member_name (b, "threshold");
  json_builder_add_double_value (b, exp->threshold);
  if (exp->mode == SB_MODE_SAFE)
    {
      json_builder_set_member_name (b, "confidence_level");
      json_builder_add_double_value (b, exp->confidence_level);
    }
  if (exp->has_safe_start)
    {
      json_builder_set_member_name (b, "safe_start");
      json_builder_add_value (b, vector_node (exp->safe_start, exp->n_parameters));
    }
  sb_json_add_int (b, "numeric_every", exp->numeric_every);
  sb_json_add_string (b, "problem", exp->problem ? exp->problem : "");
  sb_json_add_string (b, "oracle", exp->simulated ? "simulated" : "human");
  sb_json_add_bool (b, "show_truth", exp->show_truth);
  sb_json_add_int (b, "autoplay_ms", exp->autoplay_ms);
  json_builder_set_member_name (b, "oracle_noise");
  json_builder_add_double_value (b, exp->oracle_noise);
  /* Duels without ties, the question of older files, are written as
   * before. */
  if (exp->question != SB_ASK_DUEL || exp->ties_allowed)
    {
      sb_json_add_string (b, "question", sb_ask_kind_to_string (exp->question));
      sb_json_add_int (b, "options", exp->n_options);
      sb_json_add_bool (b, "ties_allowed", exp->ties_allowed);
    }
  /* The default wording and the words scale are left out, as older
   * files have them. */
  if (exp->question_text != NULL)
    {
      sb_json_add_string (b, "question_text", exp->question_text);
    }
  if (exp->confidence_levels != 0)
    {
      json_builder_set_member_name (b, "confidence_scale");
      json_builder_add_value (b, sb_confidence_scale_to_json (exp->confidence_levels));
    }
  if (exp->stimulus.kind != SB_STIMULUS_NONE)
    {
      json_builder_set_member_name (b, "stimulus");
      json_builder_add_value (b, sb_stimulus_to_json (&exp->stimulus));
    }
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      const SbParameter *p = &exp->parameters[i];
      json_builder_begin_object (b);
      sb_json_add_string (b, "name", p->name);
      sb_json_add_string (b, "unit", p->unit);
      json_builder_set_member_name (b, "lower");
      json_builder_add_double_value (b, p->lower);
      json_builder_set_member_name (b, "upper");
      json_builder_add_double_value (b, p->upper);
      if (p->resolution > 0)
        {
          json_builder_set_member_name (b, "resolution");
          json_builder_add_double_value (b, p->resolution);
        }
      /* linear parameters are written as before this member existed */
      if (p->scale != SB_SCALE_LINEAR)
        {
          sb_json_add_string (b, "scale", sb_scale_to_string (p->scale));
        }
      if (p->levels)
        {
          json_builder_set_member_name (b, "levels");
          json_builder_begin_array (b);
          for (guint k = 0; p->levels[k]; k++)
            json_builder_add_string_value (b, p->levels[k]);
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (exp->candidates != NULL)
    add_candidates (b, exp->candidates, session_dir);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
sb_experiment_to_node (const SbExperiment *exp)
{
  return experiment_to_node (exp, NULL);
}

static JsonNode *
observation_to_node (const SbLogEntry *obs)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "kind", sb_log_kind_to_string (obs->kind));
  {
    g_autofree char *t = sb_format_time (obs->time);
    json_object_set_string_member (o, "time", t);
  }
  json_object_set_int_member (o, "time_us", obs->time);
  if (obs->options != NULL)
    {
      JsonArray *options = json_array_sized_new (obs->n_options);
      for (guint i = 0; i < obs->n_options; i++)
        json_array_add_element (options, vector_node (sb_log_entry_option (obs, i), obs->dim));
      json_object_set_array_member (o, "options", options);
    }
  else
    {
      json_object_set_member (o, obs->b ? "a" : "x", vector_node (obs->a, obs->dim));
      if (obs->b)
        json_object_set_member (o, "b", vector_node (obs->b, obs->dim));
    }
  if (obs->kind == SB_LOG_DUEL)
    json_object_set_string_member (o, "winner", obs->winner ? "b" : "a");
  if (obs->kind == SB_LOG_CHOICE)
    json_object_set_int_member (o, "chosen", obs->chosen);
  if (obs->kind == SB_LOG_RANKING)
    json_object_set_member (o, "ranking", order_node (obs->ranking, obs->n_options));
  if (obs->kind == SB_LOG_VALUE)
    json_object_set_double_member (o, "value", obs->value);
  if (obs->question != 0)
    json_object_set_int_member (o, "question", (gint64) obs->question);
  if (obs->n_shown != 0)
    json_object_set_member (o, "shown_order", order_node (obs->shown_order, obs->n_shown));
  if (obs->has_response_time)
    json_object_set_double_member (o, "response_time", obs->response_time);
  if (obs->confidence != SG_CONFIDENCE_NONE)
    json_object_set_member (o, "confidence", sb_confidence_to_json (obs->confidence));
  if (obs->note != NULL)
    json_object_set_string_member (o, "note", obs->note);
  if (sb_log_entry_is_removed (obs))
    {
      JsonObject *r = json_object_new ();
      g_autofree char *t = sb_format_time (obs->removed_time);
      json_object_set_string_member (r, "time", t);
      json_object_set_int_member (r, "time_us", obs->removed_time);
      json_object_set_string_member (r, "by", obs->removed_by ? obs->removed_by : "");
      json_object_set_object_member (o, "removed", r);
    }
  json_node_take_object (node, o);
  return node;
}

/* A journal record (sb-session-history.h); entries are 1-based in the file. */
static JsonNode *
edit_to_node (const SbEdit *edit)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *t = sb_format_time (edit->time);

  json_object_set_string_member (o, "action", sb_edit_action_to_string (edit->action));
  json_object_set_int_member (o, "entry", edit->entry + 1);
  json_object_set_string_member (o, "time", t);
  json_object_set_int_member (o, "time_us", edit->time);
  json_object_set_string_member (o, "by", edit->by ? edit->by : "");
  if (edit->action == SB_EDIT_NOTE)
    {
      if (edit->note)
        json_object_set_string_member (o, "note", edit->note);
      if (edit->previous)
        json_object_set_string_member (o, "previous", edit->previous);
    }
  if (edit->reverts)
    json_object_set_int_member (o, "reverts", edit->reverts);
  json_node_take_object (node, o);
  return node;
}

static JsonNode *
pending_to_node (const SbQuestion *q, guint dim)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  JsonArray *options = json_array_sized_new (q->n_options);
  g_autofree char *created = sb_format_time (q->created);

  json_object_set_int_member (o, "id", (gint64) q->id);
  json_object_set_string_member (o, "kind", sb_question_kind_to_string (q->kind));
  for (guint i = 0; i < q->n_options; i++)
    json_array_add_element (options, vector_node (q->options[i], dim));
  json_object_set_array_member (o, "options", options);
  json_object_set_member (o, "shown_order", order_node (q->shown_order, q->n_options));
  if (q->repeat_of != 0)
    json_object_set_int_member (o, "repeat_of", q->repeat_of);
  if (q->has_prob_safe)
    json_object_set_double_member (o, "prob_safe", q->prob_safe);
  json_object_set_string_member (o, "created", created);
  json_object_set_int_member (o, "created_us", q->created);
  json_object_set_int_member (o, "log_length", q->n_log);
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
  for (guint j = 0; j < dim; j++)
    if (h->fitted_lengthscales[j] != 0)
      {
        json_object_set_member (o, "fitted_lengthscales",
                                vector_node (h->fitted_lengthscales, dim));
        break;
      }
  json_node_take_object (node, o);
  return node;
}

char *
sb_session_to_data (SbSession *self, gsize *length)
{
  JsonObject *root = json_object_new ();
  JsonArray *log = json_array_sized_new (self->observations->len);
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *created = sb_format_time (self->created);

  json_object_set_string_member (root, "format", SB_SESSION_FORMAT);
  json_object_set_int_member (root, "version", SB_SESSION_VERSION);
  json_object_set_string_member (root, "created", created);
  g_autoptr (GFile) parent = self->file ? g_file_get_parent (self->file) : NULL;
  g_autofree char *session_dir = parent ? g_file_get_path (parent) : NULL;

  json_object_set_member (root, "experiment", experiment_to_node (self->experiment, session_dir));
  for (guint i = 0; i < self->observations->len; i++)
    json_array_add_element (log, observation_to_node (g_ptr_array_index (self->observations, i)));
  json_object_set_array_member (root, "observations", log);
  if (self->hyper.valid)
    json_object_set_member (root, "hyperparameters",
                            hyper_to_node (&self->hyper, self->experiment->n_parameters));
  if (self->refits->len > 0)
    {
      JsonArray *refits = json_array_new ();
      for (guint i = 0; i < self->refits->len; i++)
        json_array_add_element (refits, hyper_to_node (&g_array_index (self->refits, SbHyper, i),
                                                       self->experiment->n_parameters));
      json_object_set_array_member (root, "refits", refits);
    }
  if (self->questions_asked > 0)
    json_object_set_int_member (root, "questions_asked", (gint64) self->questions_asked);
  if (self->pending)
    json_object_set_member (root, "pending",
                            pending_to_node (self->pending, self->experiment->n_parameters));
  if (self->edits->len > 0)
    {
      JsonArray *edits = json_array_sized_new (self->edits->len);
      for (guint i = 0; i < self->edits->len; i++)
        json_array_add_element (edits, edit_to_node (&g_array_index (self->edits, SbEdit, i)));
      json_object_set_array_member (root, "edits", edits);
    }
  json_node_take_object (node, root);

  /* members of the file read that this program does not know, as they were */
  sb_json_unknown_restore (self->unknown, node);
  /* Not json_generator: json-glib 1.6 writes 1e-14 as "1e-14.0". */
  return sb_json_write (node, TRUE, length);
}

