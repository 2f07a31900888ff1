/* sb-ask-tell.c — ask for the next question, tell the answer, on the
 * session file (sb-ask-tell.h). */
#include "config.h"

#include "sb-ask-tell.h"
#include "sb-consistency.h"
#include "sb-experiment-templates.h"
#include "sb-jobs.h"
#include "sb-parameter-kinds.h"
#include "sb-recommend.h"
#include "sb-session.h"

#include "sg-bo.h"
#include "sg-rng.h"

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
                     "'chosen' must be the index of an option (0, 1, ...)");
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
      JsonArray *order = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
      guint n = order ? json_array_get_length (order) : 0;

      if (order == NULL || n < 2 || n > SB_MAX_OPTIONS)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'ranking' must be an array of 2 to %d option indices, best first",
                     SB_MAX_OPTIONS);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *element = json_array_get_element (order, i);
          if (!holds_type (element, G_TYPE_INT64) || json_node_get_int (element) < 0
              || json_node_get_int (element) >= SB_MAX_OPTIONS)
            return fail (error, SB_ASK_TELL_ERROR_INVALID,
                         "'ranking' entry %u must be the index of an option (0, 1, ...)", i + 1);
          answer->ranking[i] = (guint) json_node_get_int (element);
        }
      answer->kind = SB_ANSWER_RANKING;
      answer->n_ranked = n;
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

/* A repeat of the past duel ENTRY as question Q: its options swapped
 * (option 0 is the old b) and shown on the other sides (sb-consistency.h). */
static void
pose_repeat (SbSession *session, guint entry, SbPendingQuestion *q)
{
  const SbLogEntry *e = sb_session_get_observation (session, entry);
  gsize size = e->dim * sizeof (double);

  q->kind = SB_PENDING_DUEL;
  q->n_options = 2;
  memcpy (q->options[0], e->b, size);
  memcpy (q->options[1], e->a, size);
  /* The old option k is the new option 1 - k: the same order numbers
   * put the other setting first. Unrecorded (the app showed a first):
   * the old b first now. */
  q->shown_order[0] = e->n_shown == 2 ? e->shown_order[0] : 0;
  q->shown_order[1] = 1 - q->shown_order[0];
}

const SbPendingQuestion *
sb_ask_tell_ask (SbSession *session, GError **error)
{
  return sb_ask_tell_ask_with_repeats (session, 0.0, error);
}

const SbPendingQuestion *
sb_ask_tell_ask_with_repeats (SbSession *session, double repeat_rate, GError **error)
{
  return sb_ask_tell_ask_with_proposer (session, repeat_rate, NULL, NULL, error);
}

/* Q (id and log length set) = PROPOSER's duel; *DECLINED when it leaves
 * the question to the session. */
static gboolean
pose_from_proposer (SbSession *session, SbAskProposer proposer, gpointer user_data,
                    SbPendingQuestion *q, gboolean *declined, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);

  *declined = FALSE;
  if (!proposer (session, user_data, q->options[0], q->options[1], declined, error))
    return FALSE;
  if (*declined)
    return TRUE;
  q->kind = SB_PENDING_DUEL;
  q->n_options = 2;
  sb_shuffle_order (exp->seed, q->id, q->n_options, q->shown_order);
  return TRUE;
}

const SbPendingQuestion *
sb_ask_tell_ask_with_proposer (SbSession *session, double repeat_rate, SbAskProposer proposer,
                               gpointer user_data, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  const SbPendingQuestion *current = sb_ask_tell_current (session);
  g_autoptr (SbQuestion) proposal = NULL;
  SbPendingQuestion q = { 0 };
  SbJobInput *input;
  gsize size = exp->n_parameters * sizeof (double);
  guint repeat;

  if (current != NULL)
    return current;
  if (sb_ask_tell_is_done (session))
    {
      fail (error, SB_ASK_TELL_ERROR_DONE, "the budget of %u answers is used", exp->budget);
      return NULL;
    }
  q.id = sb_session_get_questions_asked (session) + 1;
  q.created = g_get_real_time ();
  q.n_log = sb_session_get_n_observations (session);
  {
    g_autoptr (GPtrArray) log = sb_session_dup_observations (session);
    if (sb_consistency_pick_repeat (exp, log, exp->seed, q.id, repeat_rate, &repeat))
      {
        pose_repeat (session, repeat, &q);
        if (!sb_session_set_pending (session, &q, error))
          return NULL;
        return sb_session_get_pending (session);
      }
  }
  if (proposer != NULL)
    {
      gboolean declined;
      if (!pose_from_proposer (session, proposer, user_data, &q, &declined, error))
        return NULL;
      if (!declined)
        return sb_session_set_pending (session, &q, error) ? sb_session_get_pending (session)
                                                           : NULL;
    }
  if (!refit_if_due (session, error))
    return NULL;
  input = sb_job_input_new (session);
  proposal = sb_job_propose (NULL, input, error);
  sb_job_input_free (input);
  if (proposal == NULL)
    return NULL;

  if (proposal->kind == SB_QUESTION_DUEL)
    {
      q.kind = SB_PENDING_DUEL;
      q.n_options = 2;
      memcpy (q.options[0], proposal->a, size);
      memcpy (q.options[1], proposal->b, size);
    }
  else if (proposal->kind == SB_QUESTION_VALUE)
    {
      q.kind = SB_PENDING_VALUE;
      q.n_options = 1;
      memcpy (q.options[0], proposal->b, size);
    }
  else
    {
      q.kind = proposal->kind == SB_QUESTION_CHOICE ? SB_PENDING_CHOICE : SB_PENDING_RANKING;
      q.n_options = proposal->n_options;
      for (guint i = 0; i < q.n_options; i++)
        memcpy (q.options[i], proposal->options[i], size);
    }
  sb_shuffle_order (exp->seed, q.id, q.n_options, q.shown_order);
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

/* How Q is answered, for the messages. */
static const char *
how_to_answer (const SbExperiment *exp, const SbPendingQuestion *q)
{
  switch (q->kind)
    {
    case SB_PENDING_DUEL:
      return exp->ties_allowed ? "{\"chosen\": 0}, {\"chosen\": 1} or {\"tie\": true}"
                               : "{\"chosen\": 0} or {\"chosen\": 1}";
    case SB_PENDING_CHOICE:
      return "{\"chosen\": i}, the index of the best option";
    case SB_PENDING_RANKING:
      return "{\"ranking\": [i, ...]}, every option once, best first";
    case SB_PENDING_VALUE:
    default:
      return "{\"value\": y} or {\"failed\": true}";
    }
}

/* ANSWER (a tie, a ranking: _UNSUPPORTED; a choice or a value:
 * _INVALID) is not what Q asks for. */
static gboolean
wrong_kind (const SbExperiment *exp, const SbPendingQuestion *q, SbAskTellError code,
            const char *answer, GError **error)
{
  if (q->kind == SB_PENDING_VALUE)
    return fail (error, code, "question %" G_GUINT64_FORMAT " asks for a value and takes no %s: "
                 "answer %s", q->id, answer, how_to_answer (exp, q));
  return fail (error, code,
               "question %" G_GUINT64_FORMAT " is a %s question%s and takes no %s: answer %s",
               q->id, sb_pending_kind_to_string (q->kind),
               q->kind == SB_PENDING_DUEL && !exp->ties_allowed ? " without ties" : "", answer,
               how_to_answer (exp, q));
}

/* The log entry ANSWER to Q becomes (its kind and points); a choice's
 * and a ranking's options are copied into OPTIONS (SB_MAX_OPTIONS x dim). */
static gboolean
map_answer (const SbExperiment *exp, const SbPendingQuestion *q, const SbAnswer *answer,
            SbLogEntry *entry, double *options, GError **error)
{
  gsize size = exp->n_parameters * sizeof (double);
  gboolean many = q->kind == SB_PENDING_CHOICE || q->kind == SB_PENDING_RANKING;

  switch (answer->kind)
    {
    case SB_ANSWER_TIE:
      if (q->kind != SB_PENDING_DUEL || !exp->ties_allowed)
        return wrong_kind (exp, q, SB_ASK_TELL_ERROR_UNSUPPORTED, "tie", error);
      entry->kind = SB_LOG_TIE;
      entry->b = (double *) q->options[1];
      break;
    case SB_ANSWER_RANKING:
      if (q->kind != SB_PENDING_RANKING)
        return wrong_kind (exp, q, SB_ASK_TELL_ERROR_UNSUPPORTED, "ranking", error);
      {
        gboolean seen[SB_MAX_OPTIONS] = { FALSE };
        if (answer->n_ranked != q->n_options)
          return fail (error, SB_ASK_TELL_ERROR_INVALID,
                       "'ranking' lists %u options, but the question has %u (0 to %u)",
                       answer->n_ranked, q->n_options, q->n_options - 1);
        for (guint i = 0; i < answer->n_ranked; i++)
          {
            guint o = answer->ranking[i];
            if (o >= q->n_options || seen[o])
              return fail (error, SB_ASK_TELL_ERROR_INVALID,
                           "'ranking' must list each option 0 to %u once; entry %u (%u) %s",
                           q->n_options - 1, i + 1, o,
                           o >= q->n_options ? "is not an option" : "is repeated");
            seen[o] = TRUE;
            entry->ranking[i] = o;
          }
      }
      entry->kind = SB_LOG_RANKING;
      break;
    case SB_ANSWER_CHOSEN:
      if (q->kind == SB_PENDING_VALUE || q->kind == SB_PENDING_RANKING)
        return wrong_kind (exp, q, SB_ASK_TELL_ERROR_INVALID, "'chosen'", error);
      if (answer->chosen >= q->n_options)
        return fail (error, SB_ASK_TELL_ERROR_INVALID,
                     "'chosen' is %u, but the question has options 0 to %u", answer->chosen,
                     q->n_options - 1);
      if (many)
        {
          entry->kind = SB_LOG_CHOICE;
          entry->chosen = answer->chosen;
        }
      else
        {
          entry->kind = SB_LOG_DUEL;
          entry->winner = (int) answer->chosen;
          entry->b = (double *) q->options[1];
        }
      break;
    case SB_ANSWER_VALUE:
    case SB_ANSWER_FAILED:
      if (q->kind != SB_PENDING_VALUE)
        return wrong_kind (exp, q, SB_ASK_TELL_ERROR_INVALID,
                           answer->kind == SB_ANSWER_VALUE ? "value" : "failed setting", error);
      if (answer->kind == SB_ANSWER_VALUE)
        {
          entry->kind = SB_LOG_VALUE;
          entry->value = answer->value;
        }
      else
        entry->kind = SB_LOG_FAILED;
      break;
    }
  if (many)
    {
      for (guint i = 0; i < q->n_options; i++)
        memcpy (options + i * exp->n_parameters, q->options[i], size);
      entry->n_options = q->n_options;
      entry->options = options;
    }
  else
    entry->a = (double *) q->options[0];
  return TRUE;
}

gboolean
sb_ask_tell_tell (SbSession *session, const SbAnswer *answer, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  const SbPendingQuestion *q;
  SbLogEntry entry = { 0 };
  double options[SB_MAX_OPTIONS * SB_MAX_PARAMETERS];

  if (!check_question (session, answer, error))
    return FALSE;
  q = sb_session_get_pending (session);
  /* The entry borrows the question's arrays; the session copies it. */
  entry.value = NAN;
  entry.dim = exp->n_parameters;
  if (!map_answer (exp, q, answer, &entry, options, error))
    return FALSE;
  entry.question = q->id;
  entry.n_shown = q->n_options;
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
sb_ask_tell_recommend (SbSession *session, SbRecommendation *out, GError **error)
{
  SbJobInput *input = sb_job_input_new (session);
  gboolean ok = sb_recommend_from_input (input, out, error);

  sb_job_input_free (input);
  return ok;
}

/* ---- Writers ---------------------------------------------------------------------- */

