/* sb-question.c — questions and answers, their rules and the log entry
 * an answer becomes (sb-question.h). */
#include "config.h"

#include "sb-question.h"

#include "sb-confidence-scale.h"
#include "sb-enum-names.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sb-question-error-quark, sb_question_error)

static const char *const kind_names[] = { "duel", "value", "choice", "ranking" };
SB_NAMED_ENUM (SbQuestionKind, sb_question_kind_to_string, sb_question_kind_from_string,
               kind_names, "duel")

static const char *const answer_names[] = { "chosen", "value", "failed", "tie", "ranking",
                                            "skip" };

SB_NAMED_ENUM (SbAnswerKind, sb_answer_kind_to_string, sb_answer_kind_from_string, answer_names,
               "?")

gboolean
sb_question_fail (GError **error, SbQuestionError code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (SB_QUESTION_ERROR, code, format, args));
  va_end (args);
  return FALSE;
}

/* ---- Questions ----------------------------------------------------------------- */

guint64
sb_splitmix64 (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void
sb_shuffle_order (guint64 seed, guint64 number, guint n, guint *order)
{
  guint64 state = seed ^ (number * G_GUINT64_CONSTANT (0xd1342543de82ef95));

  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (guint i = n; i > 1; i--)
    {
      guint j = (guint) (sb_splitmix64 (&state) % i);
      guint t = order[i - 1];
      order[i - 1] = order[j];
      order[j] = t;
    }
}

void
sb_question_shuffle (SbQuestion *q, guint64 seed)
{
  sb_shuffle_order (seed, q->id - 1, q->n_options, q->shown_order);
}

guint
sb_question_n_options (const SbExperiment *exp, SbQuestionKind kind)
{
  return kind == SB_QUESTION_DUEL ? 2 : kind == SB_QUESTION_VALUE ? 1 : exp->n_options;
}

/* The log entry an answer to a question of KIND becomes (ties and skips
 * aside). */
static SbLogKind
kind_as_log (SbQuestionKind kind)
{
  static const SbLogKind as_log[] = { SB_LOG_DUEL, SB_LOG_VALUE, SB_LOG_CHOICE, SB_LOG_RANKING };
  return as_log[kind];
}

/* Q's options: settings of EXP, distinct but for a value question's one. */
static gboolean
check_options (const SbExperiment *exp, const SbQuestion *q, GError **error)
{
  for (guint i = 0; i < q->n_options; i++)
    {
      g_autofree char *side = g_strdup_printf (" of option %u", i);
      if (!sb_experiment_check_setting (exp, q->options[i], "pending question", side, error))
        return FALSE;
    }
  for (guint i = 0; q->kind != SB_QUESTION_VALUE && i < q->n_options; i++)
    for (guint j = 0; j < i; j++)
      if (sb_same_setting (q->options[i], q->options[j], exp->n_parameters))
        return sb_invalid (error, "pending question: options %u and %u are the same setting",
                           j, i);
  return TRUE;
}

gboolean
sb_question_check (const SbExperiment *exp, const SbQuestion *q, guint n_log, guint64 asked,
                   GError **error)
{
  const char *kind = sb_question_kind_to_string (q->kind);
  SbLogKind as_log;
  guint n;

  if ((guint) q->kind > SB_QUESTION_RANKING)
    return sb_invalid (error, "pending question: unknown kind");
  as_log = kind_as_log (q->kind);
  n = sb_question_n_options (exp, q->kind);
  if (q->id == 0 || q->id > asked)
    return sb_invalid (error, "pending question: id %" G_GUINT64_FORMAT " was never given out "
                       "(questions asked: %" G_GUINT64_FORMAT ")", q->id, asked);
  if (q->n_options != n)
    return sb_invalid (error, "pending question: a %s question has %u option%s, not %u", kind,
                       n, n == 1 ? "" : "s", q->n_options);
  if (!sb_log_kind_fits_mode (as_log, exp->mode))
    return sb_invalid (error, "pending question: a %s question has no place in %s mode", kind,
                       sb_mode_to_string (exp->mode));
  if (as_log != SB_LOG_VALUE && !sb_log_kind_fits_question (as_log, exp))
    return sb_invalid (error, "pending question: this experiment asks %s questions, not %s",
                       sb_ask_kind_to_string (exp->question), kind);
  if (!check_options (exp, q, error))
    return FALSE;
  if (!sb_is_permutation (q->shown_order, q->n_options))
    return sb_invalid (error, "pending question: 'shown_order' must list each option once");
  if (q->repeat_of > n_log || (q->repeat_of != 0 && q->kind != SB_QUESTION_DUEL))
    return sb_invalid (error, "pending question: 'repeat_of' must name a duel of the log");
  if (q->n_log > n_log)
    return sb_invalid (error, "pending question: asked after %u observations, but the log has %u",
                       q->n_log, n_log);
  return TRUE;
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
      return sb_question_fail (error, SB_QUESTION_ERROR_INVALID, "unknown member '%s' in %s",
                               (const char *) l->data, where);
  return TRUE;
}

static gboolean
parse_inner_answer (JsonObject *obj, SbAnswer *answer, GError **error)
{
  static const char *const known[] = { "chosen", "value", "failed", "tie", "ranking", "skip",
                                       NULL };
  g_autoptr (GList) members = json_object_get_members (obj);
  const char *name;
  JsonNode *node;

  if (!only_known (obj, "'answer'", known, error))
    return FALSE;
  if (g_list_length (members) != 1)
    return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                             "'answer' must hold exactly one of 'chosen', 'value', 'failed', "
                             "'tie', 'ranking' or 'skip'");
  name = members->data;
  node = json_object_get_member (obj, name);
  if (g_str_equal (name, "chosen"))
    {
      if (!holds_type (node, G_TYPE_INT64) || json_node_get_int (node) < 0
          || json_node_get_int (node) >= SB_MAX_OPTIONS)
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                 "'chosen' must be the index of an option (0, 1, ...)");
      answer->kind = SB_ANSWER_CHOSEN;
      answer->chosen = (guint) json_node_get_int (node);
    }
  else if (g_str_equal (name, "value"))
    {
      if (!holds_number (node) || !isfinite (json_node_get_double (node)))
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                 "'value' must be a finite number");
      answer->kind = SB_ANSWER_VALUE;
      answer->value = json_node_get_double (node);
    }
  else if (g_str_equal (name, "failed") || g_str_equal (name, "tie")
           || g_str_equal (name, "skip"))
    {
      if (!holds_type (node, G_TYPE_BOOLEAN) || !json_node_get_boolean (node))
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID, "'%s' must be true", name);
      answer->kind = g_str_equal (name, "tie") ? SB_ANSWER_TIE
                     : g_str_equal (name, "skip") ? SB_ANSWER_SKIP : SB_ANSWER_FAILED;
    }
  else
    {
      JsonArray *order = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
      guint n = order ? json_array_get_length (order) : 0;

      if (order == NULL || n < 2 || n > SB_MAX_OPTIONS)
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                 "'ranking' must be an array of 2 to %d option indices, best first",
                                 SB_MAX_OPTIONS);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *element = json_array_get_element (order, i);
          if (!holds_type (element, G_TYPE_INT64) || json_node_get_int (element) < 0
              || json_node_get_int (element) >= SB_MAX_OPTIONS)
            return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                     "'ranking' entry %u must be the index of an option "
                                     "(0, 1, ...)", i + 1);
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
    return sb_question_fail (error, SB_QUESTION_ERROR_INVALID, "the answer must be a JSON object");
  obj = json_node_get_object (root);
  if (!only_known (obj, "the answer", known, error))
    return FALSE;

  node = json_object_get_member (obj, "question");
  if (node == NULL)
    return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                             "'question' is missing: name the question you answer (its id "
                             "from ask)");
  if (!holds_type (node, G_TYPE_INT64) || json_node_get_int (node) < 1)
    return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                             "'question' must be a question id (1, 2, ...)");
  out.question = (guint64) json_node_get_int (node);

  node = json_object_get_member (obj, "answer");
  if (node == NULL)
    return sb_question_fail (error, SB_QUESTION_ERROR_INVALID, "'answer' is missing");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                             "'answer' must be an object, e.g. {\"chosen\": 1} or "
                             "{\"value\": 2.5}");
  if (!parse_inner_answer (json_node_get_object (node), &out, error))
    return FALSE;

  node = json_object_get_member (obj, "response_time");
  if (node != NULL)
    {
      if (!holds_number (node) || !(json_node_get_double (node) >= 0)
          || !isfinite (json_node_get_double (node)))
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                 "'response_time' must be a number of seconds >= 0");
      out.has_response_time = TRUE;
      out.response_time = json_node_get_double (node);
    }
  node = json_object_get_member (obj, "confidence");
  if (node != NULL)
    {
      gboolean number = holds_type (node, G_TYPE_INT64);
      if (number && json_node_get_int (node) >= 1 && json_node_get_int (node) <= SG_CONFIDENCE_MAX_LEVELS)
        out.confidence_rating = (guint) json_node_get_int (node);
      else if (number || !holds_type (node, G_TYPE_STRING)
               || sg_confidence_parse (json_node_get_string (node), &out.confidence) != SG_OK)
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                 "'confidence' must be \"weak\", \"normal\" or \"strong\", or "
                                 "a whole number from 1 to %d where the experiment's confidence "
                                 "scale is a rating (the question's 'confidence_scale')",
                                 SG_CONFIDENCE_MAX_LEVELS);
    }
  *answer = out;
  return TRUE;
}


/* ---- The log entry of an answer ------------------------------------------------ */

/* How Q is answered, for the messages. */
static const char *
how_to_answer (const SbExperiment *exp, const SbQuestion *q)
{
  switch (q->kind)
    {
    case SB_QUESTION_DUEL:
      return exp->ties_allowed ? "{\"chosen\": 0}, {\"chosen\": 1} or {\"tie\": true}"
                               : "{\"chosen\": 0} or {\"chosen\": 1}";
    case SB_QUESTION_CHOICE:
      return "{\"chosen\": i}, the index of the best option";
    case SB_QUESTION_RANKING:
      return "{\"ranking\": [i, ...]}, every option once, best first";
    case SB_QUESTION_VALUE:
    default:
      return "{\"value\": y} or {\"failed\": true}";
    }
}

/* ANSWER (named WHAT) is not what Q asks for. */
static gboolean
wrong_kind (const SbExperiment *exp, const SbQuestion *q, SbQuestionError code,
            const char *what, GError **error)
{
  if (q->kind == SB_QUESTION_VALUE)
    return sb_question_fail (error, code,
                             "question %" G_GUINT64_FORMAT " asks for a value and takes no %s: "
                             "answer %s", q->id, what, how_to_answer (exp, q));
  return sb_question_fail (error, code,
                           "question %" G_GUINT64_FORMAT " is a %s question%s and takes no "
                           "%s: answer %s", q->id, sb_question_kind_to_string (q->kind),
                           q->kind == SB_QUESTION_DUEL && !exp->ties_allowed
                             ? " without ties" : "",
                           what, how_to_answer (exp, q));
}

/* A ranking of all of Q's options, each once (N_RANKED 0: as many as Q
 * has). A log rule, so refused as the log refuses it (SB_SESSION_ERROR). */
static gboolean
check_ranking (const SbQuestion *q, const SbAnswer *answer, GError **error)
{
  gboolean seen[SB_MAX_OPTIONS] = { FALSE };

  guint n = answer->n_ranked ? answer->n_ranked : q->n_options;

  if (n != q->n_options)
    return sb_invalid (error, "'ranking' lists %u options, but the question has %u (0 to %u)",
                       n, q->n_options, q->n_options - 1);
  for (guint i = 0; i < n; i++)
    {
      guint o = answer->ranking[i];
      if (o >= q->n_options || seen[o])
        return sb_invalid (error,
                           "'ranking' must list each option 0 to %u once; entry %u (%u) %s",
                           q->n_options - 1, i + 1, o,
                           o >= q->n_options ? "is not an option" : "is repeated");
      seen[o] = TRUE;
    }
  return TRUE;
}

/* The kind of entry ANSWER to Q is, its choice, ranking or value set in
 * E; FALSE with ERROR when Q does not take ANSWER. */
static gboolean
answer_kind (const SbExperiment *exp, const SbQuestion *q, const SbAnswer *answer, SbLogEntry *e,
             GError **error)
{
  gboolean many = q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING;

  switch (answer->kind)
    {
    case SB_ANSWER_SKIP:
      e->kind = SB_LOG_SKIP;
      return TRUE;
    case SB_ANSWER_TIE:
      if (q->kind != SB_QUESTION_DUEL || !exp->ties_allowed)
        return wrong_kind (exp, q, SB_QUESTION_ERROR_UNSUPPORTED, "tie", error);
      e->kind = SB_LOG_TIE;
      return TRUE;
    case SB_ANSWER_RANKING:
      if (q->kind != SB_QUESTION_RANKING)
        return wrong_kind (exp, q, SB_QUESTION_ERROR_UNSUPPORTED, "ranking", error);
      if (!check_ranking (q, answer, error))
        return FALSE;
      e->kind = SB_LOG_RANKING;
      memcpy (e->ranking, answer->ranking, sizeof e->ranking);
      return TRUE;
    case SB_ANSWER_CHOSEN:
      if (q->kind == SB_QUESTION_VALUE || q->kind == SB_QUESTION_RANKING)
        return wrong_kind (exp, q, SB_QUESTION_ERROR_INVALID, "'chosen'", error);
      if (answer->chosen >= q->n_options)
        return sb_question_fail (error, SB_QUESTION_ERROR_INVALID,
                                 "'chosen' is %u, but the question has options 0 to %u",
                                 answer->chosen, q->n_options - 1);
      e->kind = many ? SB_LOG_CHOICE : SB_LOG_DUEL;
      e->chosen = many ? answer->chosen : 0;
      e->winner = many ? 0 : (int) answer->chosen;
      return TRUE;
    case SB_ANSWER_VALUE:
    case SB_ANSWER_FAILED:
      if (q->kind != SB_QUESTION_VALUE)
        return wrong_kind (exp, q, SB_QUESTION_ERROR_INVALID,
                           answer->kind == SB_ANSWER_VALUE ? "value" : "failed setting", error);
      e->kind = answer->kind == SB_ANSWER_VALUE ? SB_LOG_VALUE : SB_LOG_FAILED;
      e->value = answer->kind == SB_ANSWER_VALUE ? answer->value : NAN;
      return TRUE;
    default:
      return sb_question_fail (error, SB_QUESTION_ERROR_INVALID, "unknown answer");
    }
}

/* Q's options into E: a choice's or ranking's k rows (their skip too),
 * a duel's a and b, a value question's one setting (twice for its skip,
 * as the log holds a skip). */
static void
entry_options (const SbExperiment *exp, const SbQuestion *q, SbLogEntry *e)
{
  guint dim = exp->n_parameters;

  e->dim = dim;
  if (q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING)
    {
      e->n_options = q->n_options;
      e->options = g_new (double, (gsize) q->n_options * dim);
      for (guint i = 0; i < q->n_options; i++)
        memcpy (e->options + (gsize) i * dim, q->options[i], dim * sizeof (double));
      return;
    }
  e->a = g_memdup2 (q->options[0], dim * sizeof (double));
  if (q->kind == SB_QUESTION_DUEL)
    e->b = g_memdup2 (q->options[1], dim * sizeof (double));
  else if (e->kind == SB_LOG_SKIP)
    e->b = g_memdup2 (q->options[0], dim * sizeof (double));
}

SbLogEntry *
sb_answer_to_entry (const SbExperiment *exp, const SbQuestion *q, const SbAnswer *answer,
                    GError **error)
{
  g_autoptr (SbLogEntry) e = g_new0 (SbLogEntry, 1);
  gboolean value_q = q->kind == SB_QUESTION_VALUE;

  e->value = NAN;
  if (!answer_kind (exp, q, answer, e, error))
    return NULL;
  entry_options (exp, q, e);
  e->question = q->id;
  /* a value question's skip holds its one setting twice: no order */
  e->n_shown = value_q && e->kind == SB_LOG_SKIP ? 0
               : answer->n_shown ? answer->n_shown : q->n_options;
  memcpy (e->shown_order, answer->n_shown ? answer->shown_order : q->shown_order,
          sizeof e->shown_order);
  e->has_response_time = answer->has_response_time;
  e->response_time = answer->response_time;
  if (answer->kind != SB_ANSWER_SKIP
      && (answer->confidence != SG_CONFIDENCE_NONE || answer->confidence_rating != 0))
    {
      g_autoptr (GError) local = NULL;
      if (!sb_confidence_on_scale (exp->confidence_levels, answer->confidence_rating,
                                   answer->confidence, &e->confidence, &local))
        {
          sb_question_fail (error, SB_QUESTION_ERROR_INVALID, "%s", local->message);
          return NULL;
        }
    }
  return g_steal_pointer (&e);
}

/* TRUE when C, as recorded, is the confidence ANSWER gives. */
static gboolean
same_confidence (const SbAnswer *answer, sg_confidence c)
{
  unsigned r;

  if (answer->confidence_rating != 0)
    return sg_confidence_rating_of (c, &r, NULL) && r == answer->confidence_rating;
  return c == answer->confidence;
}

gboolean
sb_answer_matches_entry (const SbAnswer *answer, const SbLogEntry *entry)
{
  static const SbLogKind as_log[] = { SB_LOG_DUEL, SB_LOG_VALUE, SB_LOG_FAILED, SB_LOG_TIE,
                                      SB_LOG_RANKING, SB_LOG_SKIP };
  SbLogKind kind = answer->kind == SB_ANSWER_CHOSEN && entry->kind == SB_LOG_CHOICE
                   ? SB_LOG_CHOICE : as_log[MIN ((guint) answer->kind, SB_ANSWER_SKIP)];
  guint n = sb_log_entry_n_options (entry);

  if (entry->question != answer->question || entry->kind != kind
      || entry->has_response_time != answer->has_response_time
      || (answer->has_response_time && entry->response_time != answer->response_time)
      || (kind != SB_LOG_SKIP && !same_confidence (answer, entry->confidence)))
    return FALSE;
  switch (kind)
    {
    case SB_LOG_DUEL:
      return entry->winner == (int) answer->chosen;
    case SB_LOG_CHOICE:
      return entry->chosen == answer->chosen;
    case SB_LOG_RANKING:
      return (answer->n_ranked == n || answer->n_ranked == 0)
             && memcmp (entry->ranking, answer->ranking, n * sizeof (guint)) == 0;
    case SB_LOG_VALUE:
      return entry->value == answer->value;
    default:
      return TRUE;
    }
}
