/* sb-ask-tell.c — ask for the next question, tell the answer, on the
 * session file (sb-ask-tell.h). */
#include "config.h"

#include "sb-ask-tell.h"
#include "sb-experiment-templates.h"
#include "sb-jobs.h"
#include "sb-session-private.h"

#include "sg-bo.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sb-ask-tell-error-quark, sb_ask_tell_error)

static gboolean
fail (GError **error, SbAskTellError code, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (GError **error, SbAskTellError code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (SB_ASK_TELL_ERROR, code, format, args));
  va_end (args);
  return FALSE;
}

/* ---- The answer document ---------------------------------------------------- */

static gboolean
holds_type (JsonNode *node, GType type)
{
  return node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

static gboolean
holds_number (JsonNode *node)
{
  return holds_type (node, G_TYPE_DOUBLE) || holds_type (node, G_TYPE_INT64);
}

/* Every member of OBJ is one of KNOWN. */
static gboolean
only_known (JsonObject *obj, const char *where, const char *const *known, GError **error)
{
  g_autoptr (GList) members = json_object_get_members (obj);

  for (GList *l = members; l; l = l->next)
    if (!g_strv_contains (known, l->data))
      return fail (error, SB_ASK_TELL_ERROR_INVALID, "unknown member '%s' in %s",
                   (const char *) l->data, where);
  return TRUE;
}

static gboolean
parse_inner_answer (JsonObject *obj, SbAnswer *answer, GError **error)
{
  static const char *const known[] = { "chosen", "value", "failed", "tie", "ranking", NULL };
  g_autoptr (GList) members = json_object_get_members (obj);
  const char *name;
  JsonNode *node;

  if (!only_known (obj, "'answer'", known, error))
    return FALSE;
  if (g_list_length (members) != 1)
    return fail (error, SB_ASK_TELL_ERROR_INVALID,
                 "'answer' must hold exactly one of 'chosen', 'value', 'failed', 'tie' "
                 "or 'ranking'");
  name = members->data;
  node = json_object_get_member (obj, name);
  if (g_str_equal (name, "chosen"))
    {
      if (!holds_type (node, G_TYPE_INT64) || json_node_get_int (node) < 0
          || json_node_get_int (node) >= SB_MAX_OPTIONS)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'chosen' must be the index of an option (0 or 1)");
      answer->kind = SB_ANSWER_CHOSEN;
      answer->chosen = (guint) json_node_get_int (node);
    }
  else if (g_str_equal (name, "value"))
    {
      if (!holds_number (node) || !isfinite (json_node_get_double (node)))
        return fail (error, SB_ASK_TELL_ERROR_INVALID, "'value' must be a finite number");
      answer->kind = SB_ANSWER_VALUE;
      answer->value = json_node_get_double (node);
    }
  else if (g_str_equal (name, "failed") || g_str_equal (name, "tie"))
    {
      if (!holds_type (node, G_TYPE_BOOLEAN) || !json_node_get_boolean (node))
        return fail (error, SB_ASK_TELL_ERROR_INVALID, "'%s' must be true", name);
      answer->kind = g_str_equal (name, "tie") ? SB_ANSWER_TIE : SB_ANSWER_FAILED;
    }
  else
    {
      if (!JSON_NODE_HOLDS_ARRAY (node))
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'ranking' must be an array of option indices");
      answer->kind = SB_ANSWER_RANKING;
    }
  return TRUE;
}

gboolean
sb_answer_from_json (JsonNode *root, SbAnswer *answer, GError **error)
{
  static const char *const known[] = { "question", "answer", "response_time", "confidence",
                                       NULL };
  SbAnswer out = { 0 };
  JsonObject *obj;
  JsonNode *node;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return fail (error, SB_ASK_TELL_ERROR_INVALID, "the answer must be a JSON object");
  obj = json_node_get_object (root);
  if (!only_known (obj, "the answer", known, error))
    return FALSE;

  node = json_object_get_member (obj, "question");
  if (node == NULL)
    return fail (error, SB_ASK_TELL_ERROR_INVALID,
                 "'question' is missing: name the question you answer (its id from ask)");
  if (!holds_type (node, G_TYPE_INT64) || json_node_get_int (node) < 1)
    return fail (error, SB_ASK_TELL_ERROR_INVALID,
                 "'question' must be a question id (1, 2, ...)");
  out.question = (guint64) json_node_get_int (node);

  node = json_object_get_member (obj, "answer");
  if (node == NULL)
    return fail (error, SB_ASK_TELL_ERROR_INVALID, "'answer' is missing");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, SB_ASK_TELL_ERROR_INVALID,
                 "'answer' must be an object, e.g. {\"chosen\": 1} or {\"value\": 2.5}");
  if (!parse_inner_answer (json_node_get_object (node), &out, error))
    return FALSE;

  node = json_object_get_member (obj, "response_time");
  if (node != NULL)
    {
      if (!holds_number (node) || !(json_node_get_double (node) >= 0)
          || !isfinite (json_node_get_double (node)))
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'response_time' must be a number of seconds >= 0");
      out.has_response_time = TRUE;
      out.response_time = json_node_get_double (node);
    }
  node = json_object_get_member (obj, "confidence");
  if (node != NULL)
    {
      if (!holds_type (node, G_TYPE_STRING)
          || sg_confidence_parse (json_node_get_string (node), &out.confidence) != SG_OK)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'confidence' must be \"weak\", \"normal\" or \"strong\"");
    }
  *answer = out;
  return TRUE;
}

/* ---- Asking ------------------------------------------------------------------ */

gboolean
sb_ask_tell_is_done (SbSession *session)
{
  return sb_session_get_n_answers (session) >= sb_session_get_experiment (session)->budget;
}

const SbPendingQuestion *
sb_ask_tell_current (SbSession *session)
{
  const SbPendingQuestion *q = sb_session_get_pending (session);

  if (q == NULL || q->n_log != sb_session_get_n_observations (session))
    return NULL;
  return q;
}

/* SplitMix64 (Steele, Lea & Flood 2014): a well-mixed 64-bit hash, so the
 * side of the current best is a fair coin for every (seed, id). */
static guint64
splitmix64 (guint64 x)
{
  x += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return x ^ (x >> 31);
}

static void
choose_shown_order (guint64 seed, SbPendingQuestion *q)
{
  gboolean swap = q->n_options == 2 && (splitmix64 (seed ^ splitmix64 (q->id)) >> 63);

  for (guint i = 0; i < q->n_options; i++)
    q->shown_order[i] = swap ? q->n_options - 1 - i : i;
}

/* Refits the hyperparameters when the engine's schedule asks for it and
 * the stored ones did not see these answers yet, as the window does
 * (sb-campaign.c). A failed fit keeps the stored values: a fit is an
 * improvement, never a condition for the next question. */
static gboolean
refit_if_due (SbSession *session, GError **error)
{
  g_autoptr (GError) fit_error = NULL;
  SbJobInput *input = sb_job_input_new (session);
  const SbHyper *stored = sb_session_get_hyper (session);
  SbFitResult *fit = NULL;
  struct sg_bo *bo = sb_job_replay (input, error);
  gboolean due, ok = TRUE;
  size_t n;

  if (bo == NULL)
    {
      sb_job_input_free (input);
      return FALSE;
    }
  due = sg_bo_refit_due (bo);
  n = sg_bo_n_answers (bo);
  sg_bo_free (bo);
  if (due && !(stored->valid && stored->n_answers == n))
    {
      fit = sb_job_fit (NULL, input, &fit_error);
      if (fit != NULL)
        ok = sb_session_set_hyper (session, &fit->hyper, error);
      else
        g_debug ("refit failed, keeping the stored hyperparameters: %s", fit_error->message);
    }
  g_free (fit);
  sb_job_input_free (input);
  return ok;
}

const SbPendingQuestion *
sb_ask_tell_ask (SbSession *session, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  const SbPendingQuestion *current = sb_ask_tell_current (session);
  g_autoptr (SbQuestion) proposal = NULL;
  SbPendingQuestion q = { 0 };
  SbJobInput *input;
  gsize size = exp->n_parameters * sizeof (double);

  if (current != NULL)
    return current;
  if (sb_ask_tell_is_done (session))
    {
      fail (error, SB_ASK_TELL_ERROR_DONE, "the budget of %u answers is used", exp->budget);
      return NULL;
    }
  if (!refit_if_due (session, error))
    return NULL;
  input = sb_job_input_new (session);
  proposal = sb_job_propose (NULL, input, error);
  sb_job_input_free (input);
  if (proposal == NULL)
    return NULL;

  q.id = sb_session_get_questions_asked (session) + 1;
  q.created = g_get_real_time ();
  q.n_log = sb_session_get_n_observations (session);
  if (proposal->kind == SB_QUESTION_DUEL)
    {
      q.kind = SB_PENDING_DUEL;
      q.n_options = 2;
      memcpy (q.options[0], proposal->a, size);
      memcpy (q.options[1], proposal->b, size);
    }
  else
    {
      q.kind = SB_PENDING_VALUE;
      q.n_options = 1;
      memcpy (q.options[0], proposal->b, size);
    }
  choose_shown_order (exp->seed, &q);
  if (!sb_session_set_pending (session, &q, error))
    return NULL;
  return sb_session_get_pending (session);
}

/* ---- Telling ------------------------------------------------------------------ */

/* ANSWER is for the open question, or ERROR says why not. */
static gboolean
check_question (SbSession *session, const SbAnswer *answer, GError **error)
{
  const SbPendingQuestion *open = sb_session_get_pending (session);
  guint64 asked = sb_session_get_questions_asked (session);
  guint64 id = answer->question;

  if (id > asked)
    return fail (error, SB_ASK_TELL_ERROR_STALE,
                 "question %" G_GUINT64_FORMAT " was never asked (the last question asked is %"
                 G_GUINT64_FORMAT ")", id, asked);
  if (open == NULL || open->id != id)
    return fail (error, SB_ASK_TELL_ERROR_STALE,
                 "question %" G_GUINT64_FORMAT " is not open: it was answered or replaced "
                 "(ask again for the open question)", id);
  if (sb_ask_tell_current (session) == NULL)
    return fail (error, SB_ASK_TELL_ERROR_STALE,
                 "question %" G_GUINT64_FORMAT " is out of date: answers were added or undone "
                 "since it was asked (ask again)", id);
  return TRUE;
}

/* The log entry ANSWER to Q becomes (its kind and points). */
static gboolean
map_answer (const SbExperiment *exp, const SbPendingQuestion *q, const SbAnswer *answer,
            SbLogEntry *entry, GError **error)
{
  gboolean duel = q->kind == SB_PENDING_DUEL;

  switch (answer->kind)
    {
    case SB_ANSWER_TIE:
    case SB_ANSWER_RANKING:
      return fail (error, SB_ASK_TELL_ERROR_UNSUPPORTED,
                   "a %s is not supported by this experiment's question kind (%s): answer %s",
                   answer->kind == SB_ANSWER_TIE ? "tie" : "ranking",
                   sb_pending_kind_to_string (q->kind),
                   duel ? "{\"chosen\": 0} or {\"chosen\": 1}"
                        : "{\"value\": y} or {\"failed\": true}");
    case SB_ANSWER_CHOSEN:
      if (!duel)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "question %" G_GUINT64_FORMAT " asks for a value: answer {\"value\": y} "
                     "or {\"failed\": true}", q->id);
      if (answer->chosen >= q->n_options)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'chosen' is %u, but the question has options 0 and 1", answer->chosen);
      entry->kind = SB_LOG_DUEL;
      entry->winner = (int) answer->chosen;
      entry->b = (double *) q->options[1];
      break;
    case SB_ANSWER_VALUE:
    case SB_ANSWER_FAILED:
      if (duel)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "question %" G_GUINT64_FORMAT " is a duel: answer {\"chosen\": 0} or "
                     "{\"chosen\": 1}", q->id);
      if (answer->kind == SB_ANSWER_VALUE)
        {
          entry->kind = SB_LOG_VALUE;
          entry->value = answer->value;
        }
      else if (exp->mode == SB_MODE_SAFE)
        entry->kind = SB_LOG_FAILED;
      else
        {
          /* The model of mixed mode has no failed observation: keep the
           * answer as a skip of this setting, saying so. */
          entry->kind = SB_LOG_SKIP;
          entry->b = (double *) q->options[0];
          entry->note = (char *) "failed (kept as a skip: mixed mode does not model failed "
                                 "settings)";
        }
      break;
    }
  entry->a = (double *) q->options[0];
  return TRUE;
}

gboolean
sb_ask_tell_tell (SbSession *session, const SbAnswer *answer, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  const SbPendingQuestion *q;
  SbLogEntry entry = { 0 };

  if (!check_question (session, answer, error))
    return FALSE;
  q = sb_session_get_pending (session);
  /* The entry borrows the question's arrays; the session copies it. */
  entry.value = NAN;
  entry.dim = exp->n_parameters;
  if (!map_answer (exp, q, answer, &entry, error))
    return FALSE;
  entry.question = q->id;
  entry.n_shown = entry.b != NULL ? 2 : 1;
  if (entry.kind == SB_LOG_SKIP)
    entry.n_shown = 0;  /* a value question's skip: one setting, twice */
  memcpy (entry.shown_order, q->shown_order, sizeof entry.shown_order);
  entry.has_response_time = answer->has_response_time;
  entry.response_time = answer->response_time;
  entry.confidence = answer->confidence;
  return sb_session_add_entry (session, &entry, error);
}

/* ---- Status --------------------------------------------------------------------- */

gboolean
sb_ask_tell_best (SbSession *session, double *best, gboolean *has_best, GError **error)
{
  SbJobInput *input = sb_job_input_new (session);
  struct sg_bo *bo = sb_job_replay (input, error);

  sb_job_input_free (input);
  if (bo == NULL)
    return FALSE;
  *has_best = sg_bo_best (bo, best) != 0;
  sg_bo_free (bo);
  return TRUE;
}

char *
sb_ask_tell_describe (const SbExperiment *exp, const double *x)
{
  GString *out;

  if (exp->template_kind == SB_TEMPLATE_COLOUR)
    return sb_template_colour_describe (exp, x);
  out = g_string_new (NULL);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      g_autofree char *value = sb_format_coordinate (&exp->parameters[j], x[j]);
      g_string_append_printf (out, "%s%s = %s", j ? ", " : "", exp->parameters[j].name, value);
    }
  return g_string_free (out, FALSE);
}

/* ---- Writers ---------------------------------------------------------------------- */

