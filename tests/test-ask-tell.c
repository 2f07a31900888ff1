/* test-ask-tell.c — the ask/tell protocol on a session (core/sb-ask-tell.h):
 * the same question until it is answered, answers mapped to log entries
 * with their details, stale and unknown questions refused with nothing
 * changed, the pending question through the file, the long CSV. */
#include "sb-ask-tell.h"
#include "sb-confidence-scale.h"
#include "sb-experiment-templates.h"
#include "sb-parameter-kinds.h"
#include "sb-question-json.h"
#include "sb-recommend.h"
#include "sb-session.h"
#include "sb-worker.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static SbExperiment *
experiment (SbMode mode)
{
  SbExperiment *exp = sb_experiment_new ();

  g_assert_true (sb_experiment_add_parameter (exp, "gain", "dB", 0.0, 10.0));
  g_assert_true (sb_experiment_add_parameter (exp, "offset", "", -5.0, 5.0));
  exp->mode = mode;
  exp->budget = 10;
  exp->seed = 11;
  return exp;
}

/* An answer to question ID. */
static SbAnswer
answer_of (guint64 id, SbAnswerKind kind)
{
  SbAnswer a = { .question = id, .kind = kind };
  return a;
}

/* A value question for SESSION, stored as the pending one. */
static void
pose_value_question (SbSession *session, double gain, double offset)
{
  SbQuestion q = { 0 };

  q.id = sb_session_get_questions_asked (session) + 1;
  q.kind = SB_QUESTION_VALUE;
  q.n_options = 1;
  q.options[0][0] = gain;
  q.options[0][1] = offset;
  q.n_log = sb_session_get_n_observations (session);
  g_assert_true (sb_session_set_open_question (session, &q, NULL));
}

static void
test_same_question_until_answered (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (GError) error = NULL;
  const SbQuestion *q1, *again, *q2;
  SbQuestion first;
  SbAnswer answer = answer_of (1, SB_ANSWER_CHOSEN);

  q1 = sb_ask_tell_ask (session, &error);
  g_assert_no_error (error);
  g_assert_nonnull (q1);
  g_assert_cmpuint (q1->id, ==, 1);
  g_assert_cmpint (q1->kind, ==, SB_QUESTION_DUEL);
  g_assert_cmpuint (q1->n_options, ==, 2);
  first = *q1;
  again = sb_ask_tell_ask (session, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (again, sizeof *again, &first, sizeof first);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 0);

  answer.chosen = 1;
  answer.has_response_time = TRUE;
  answer.response_time = 2.25;
  answer.confidence = SG_CONFIDENCE_STRONG;
  g_assert_true (sb_ask_tell_tell (session, &answer, &error));
  g_assert_no_error (error);
  g_assert_null (sb_session_get_open_question (session));

  const SbLogEntry *e = sb_session_get_observation (session, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
  g_assert_cmpint (e->winner, ==, 1);
  g_assert_cmpmem (e->a, 2 * sizeof (double), first.options[0], 2 * sizeof (double));
  g_assert_cmpmem (e->b, 2 * sizeof (double), first.options[1], 2 * sizeof (double));
  g_assert_cmpuint (e->question, ==, 1);
  g_assert_cmpuint (e->n_shown, ==, 2);
  g_assert_cmpmem (e->shown_order, sizeof e->shown_order, first.shown_order,
                   sizeof first.shown_order);
  g_assert_true (e->has_response_time && e->response_time == 2.25);
  g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_STRONG);

  q2 = sb_ask_tell_ask (session, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q2->id, ==, 2);
  g_assert_cmpuint (q2->n_log, ==, 1);
}

/* Refused answers change neither the log nor the pending question. */
static void
assert_refused (SbSession *session, const SbAnswer *answer, SbQuestionError code,
                const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *before = sb_session_to_data (session, NULL);
  g_autofree char *after = NULL;

  g_assert_false (sb_ask_tell_tell (session, answer, &error));
  g_assert_error (error, SB_QUESTION_ERROR, (gint) code);
  if (strstr (error->message, needle) == NULL)
    g_test_message ("message: %s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
  after = sb_session_to_data (session, NULL);
  g_assert_cmpstr (after, ==, before);
}

static void
test_stale_unknown_unsupported (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (SbSession) session = sb_session_new (exp);
  SbAnswer answer = answer_of (1, SB_ANSWER_CHOSEN);

  /* Nothing asked yet: question 1 is unknown. */
  assert_refused (session, &answer, SB_QUESTION_ERROR_STALE, "never asked");
  g_assert_nonnull (sb_ask_tell_ask (session, NULL));
  g_assert_true (sb_ask_tell_tell (session, &answer, NULL));
  g_assert_nonnull (sb_ask_tell_ask (session, NULL));
  /* Answered already; never asked. */
  assert_refused (session, &answer, SB_QUESTION_ERROR_STALE, "not open");
  answer.question = 3;
  assert_refused (session, &answer, SB_QUESTION_ERROR_STALE, "never asked");
  /* Question 2 is a duel: ties, rankings and values are refused. */
  answer = answer_of (2, SB_ANSWER_TIE);
  assert_refused (session, &answer, SB_QUESTION_ERROR_UNSUPPORTED, "duel question without ties");
  answer.kind = SB_ANSWER_RANKING;
  assert_refused (session, &answer, SB_QUESTION_ERROR_UNSUPPORTED, "ranking");
  answer = answer_of (2, SB_ANSWER_VALUE);
  answer.value = 1.0;
  assert_refused (session, &answer, SB_QUESTION_ERROR_INVALID, "is a duel");
  answer = answer_of (2, SB_ANSWER_FAILED);
  assert_refused (session, &answer, SB_QUESTION_ERROR_INVALID, "is a duel");

  /* The app answers a duel of its own: question 2 is out of date, and the
   * next ask gives question 3. */
  const SbQuestion *q = sb_session_get_open_question (session);
  g_assert_true (sb_session_add_duel (session, q->options[0], q->options[1], 0, NULL));
  answer = answer_of (2, SB_ANSWER_CHOSEN);
  assert_refused (session, &answer, SB_QUESTION_ERROR_STALE, "out of date");
  g_assert_null (sb_ask_tell_current (session));
  q = sb_ask_tell_ask (session, NULL);
  g_assert_cmpuint (q->id, ==, 3);
}

static void
test_value_questions (void)
{
  g_autoptr (SbExperiment) safe_exp = experiment (SB_MODE_SAFE);
  g_autoptr (SbExperiment) mixed_exp = experiment (SB_MODE_MIXED);
  g_autoptr (SbSession) safe = sb_session_new (safe_exp);
  g_autoptr (SbSession) mixed = sb_session_new (mixed_exp);
  g_autoptr (GError) error = NULL;
  SbAnswer answer;
  const SbLogEntry *e;

  /* Safe mode: a value, then a failed setting, both observations. */
  pose_value_question (safe, 2.0, 1.0);
  /* its document words a measurement, not the preference question (the
   * experiment's wording is a duel's) */
  {
    g_autoptr (JsonNode) doc = sb_question_to_json (sb_session_get_open_question (safe), safe_exp);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (doc), "question_text"),
                     ==, SB_VALUE_QUESTION_TEXT);
  }
  answer = answer_of (1, SB_ANSWER_CHOSEN);
  assert_refused (safe, &answer, SB_QUESTION_ERROR_INVALID, "asks for a value");
  answer = answer_of (1, SB_ANSWER_VALUE);
  answer.value = 0.75;
  g_assert_true (sb_ask_tell_tell (safe, &answer, &error));
  g_assert_no_error (error);
  e = sb_session_get_observation (safe, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_VALUE);
  g_assert_cmpfloat (e->value, ==, 0.75);
  g_assert_cmpfloat (e->a[0], ==, 2.0);
  g_assert_null (e->b);
  pose_value_question (safe, 3.0, -1.0);
  answer = answer_of (2, SB_ANSWER_FAILED);
  g_assert_true (sb_ask_tell_tell (safe, &answer, &error));
  g_assert_cmpint (sb_session_get_observation (safe, 1)->kind, ==, SB_LOG_FAILED);
  g_assert_cmpuint (sb_session_get_n_answers (safe), ==, 2);

  /* Mixed mode: "it failed" is an answer too, the same observation
   * (below the failure level). */
  pose_value_question (mixed, 4.0, 0.5);
  answer = answer_of (1, SB_ANSWER_FAILED);
  g_assert_true (sb_ask_tell_tell (mixed, &answer, &error));
  g_assert_no_error (error);
  e = sb_session_get_observation (mixed, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_FAILED);
  g_assert_null (e->note);
  g_assert_cmpfloat (e->a[0], ==, 4.0);
  g_assert_null (e->b);
  g_assert_cmpuint (sb_session_get_n_answers (mixed), ==, 1);
  g_assert_null (sb_session_get_open_question (mixed));
  /* the plots draw it as a failed setting, as in safe mode */
  {
    SbPlotSnapshot *snap = sb_plot_snapshot_new_for_session (mixed);
    g_assert_cmpuint (sb_plot_snapshot_get_n_observations (snap), ==, 1);
    g_assert_cmpint (sb_plot_snapshot_get_observation (snap, 0)->kind, ==, SG_OBS_INVALID);
    sb_plot_snapshot_unref (snap);
  }
}

/* The side of the current best: reproducible per (seed, id), and both
 * sides occur. Over 64 questions a fair coin gives 32 +- 4 first places;
 * the hash is fixed, so the count is too, and must be inside 3 sd. */
static void
test_shown_order (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (SbSession) a = NULL;
  g_autoptr (SbSession) b = NULL;
  guint best_first = 0;

  /* Random proposals: the order does not depend on the model. */
  exp->budget = 100;
  exp->surrogate = SG_BO_SURROGATE_RANDOM;
  a = sb_session_new (exp);
  b = sb_session_new (exp);
  for (guint i = 0; i < 64; i++)
    {
      const SbQuestion *qa = sb_ask_tell_ask (a, NULL);
      const SbQuestion *qb = sb_ask_tell_ask (b, NULL);
      SbAnswer answer = answer_of (qa->id, SB_ANSWER_CHOSEN);

      g_assert_cmpuint (qa->id, ==, i + 1);
      g_assert_cmpmem (qa->shown_order, sizeof qa->shown_order, qb->shown_order,
                       sizeof qb->shown_order);
      g_assert_true (qa->shown_order[0] + qa->shown_order[1] == 1);
      best_first += qa->shown_order[0] == 0;
      g_assert_true (sb_ask_tell_tell (a, &answer, NULL));
      g_assert_true (sb_ask_tell_tell (b, &answer, NULL));
    }
  g_test_message ("current best shown first in %u of 64 questions", best_first);
  g_assert_cmpuint (best_first, >=, 20);
  g_assert_cmpuint (best_first, <=, 44);
}

static void
test_file_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-ask-tell-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (SbSession) loaded = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *saved = NULL, *reloaded = NULL;
  SbAnswer answer = answer_of (1, SB_ANSWER_CHOSEN);

  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_nonnull (sb_ask_tell_ask (session, &error));
  answer.confidence = SG_CONFIDENCE_WEAK;
  g_assert_true (sb_ask_tell_tell (session, &answer, &error));
  g_assert_nonnull (sb_ask_tell_ask (session, &error));
  g_assert_no_error (error);

  /* What is on disk is the session in memory, and it loads back whole. */
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  loaded = sb_session_load (file, &error);
  g_assert_no_error (error);
  reloaded = sb_session_to_data (loaded, NULL);
  g_assert_cmpstr (reloaded, ==, saved);
  g_assert_cmpuint (sb_session_get_questions_asked (loaded), ==, 2);
  const SbQuestion *p = sb_session_get_open_question (loaded);
  const SbQuestion *q = sb_session_get_open_question (session);
  g_assert_cmpuint (p->id, ==, q->id);
  g_assert_cmpint (p->kind, ==, q->kind);
  g_assert_cmpuint (p->n_options, ==, q->n_options);
  g_assert_cmpmem (p->options, sizeof p->options, q->options, sizeof q->options);
  g_assert_cmpmem (p->shown_order, sizeof p->shown_order, q->shown_order,
                   sizeof q->shown_order);
  g_assert_cmpint (p->created, ==, q->created);
  g_assert_cmpuint (p->n_log, ==, q->n_log);
  g_assert_cmpuint (sb_session_get_observation (loaded, 0)->question, ==, 1);
  g_assert_cmpint (sb_session_get_observation (loaded, 0)->confidence, ==, SG_CONFIDENCE_WEAK);
  g_assert_false (sb_session_get_observation (loaded, 0)->has_response_time);

  /* Undo in the app: the question asked after the undone answer is
   * dropped, and the session still saves and reloads. */
  g_assert_true (sb_session_undo (session, &error));
  g_assert_no_error (error);
  g_assert_null (sb_session_get_open_question (session));
  g_assert_cmpuint (sb_session_get_questions_asked (session), ==, 2);
  g_clear_object (&loaded);
  loaded = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_null (sb_session_get_open_question (loaded));
  g_assert_cmpuint (sb_ask_tell_ask (loaded, &error)->id, ==, 3);

  /* A damaged pending question is refused by name, like any content. */
  g_autofree char *bad = g_strdup (saved);
  char *id = strstr (bad, "\"id\": 2");
  g_assert_nonnull (id);
  id[6] = '7';
  g_clear_object (&loaded);
  loaded = sb_session_load_from_data (bad, -1, "bad.json", &error);
  g_assert_null (loaded);
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "never given out"));

  /* A safety probability on a duel, or outside 0..1, is refused by name. */
  {
    g_autoptr (GString) hostile = g_string_new (saved);
    const char *at = strstr (hostile->str, "\"log_length\"");
    g_assert_nonnull (at);
    g_string_insert (hostile, at - hostile->str, "\"prob_safe\": 0.97, ");
    g_clear_object (&loaded);
    g_clear_error (&error);
    loaded = sb_session_load_from_data (hostile->str, -1, "bad.json", &error);
    g_assert_null (loaded);
    g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "'prob_safe' 0.97 is not a probability of a value "
                                              "question"));
  }

  g_unlink (path);
  g_rmdir (dir);
}

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, text, -1, NULL));
  return json_node_copy (json_parser_get_root (p));
}

static void
test_answer_document (void)
{
  static const struct { const char *text; const char *needle; } bad[] = {
    { "{\"answer\": {\"chosen\": 0}}", "'question' is missing" },
    { "{\"question\": 0, \"answer\": {\"chosen\": 0}}", "question id" },
    { "{\"question\": 1}", "'answer' is missing" },
    { "{\"question\": 1, \"answer\": {}}", "exactly one" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0, \"value\": 1}}", "exactly one" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 6}}", "index of an option" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0.5}}", "index of an option" },
    { "{\"question\": 1, \"answer\": {\"value\": \"3\"}}", "finite number" },
    { "{\"question\": 1, \"answer\": {\"failed\": false}}", "must be true" },
    { "{\"question\": 1, \"answer\": {\"winner\": 0}}", "unknown member 'winner'" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0}, \"time\": 3}", "unknown member 'time'" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0}, \"response_time\": -1}", "response_time" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0}, \"confidence\": 8}", "\"weak\", \"normal\"" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0}, \"confidence\": 0}", "whole number from 1" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0}, \"confidence\": 2.5}", "whole number from 1" },
    { "{\"question\": 1, \"answer\": {\"chosen\": 0}, \"confidence\": \"sure\"}", "confidence" },
  };
  g_autoptr (JsonNode) good = parse ("{\"question\": 4, \"answer\": {\"value\": -2.5}, "
                                     "\"response_time\": 0.8, \"confidence\": \"weak\"}");
  SbAnswer answer;

  g_assert_true (sb_answer_from_json (good, &answer, NULL));
  g_assert_cmpuint (answer.question, ==, 4);
  g_assert_cmpint (answer.kind, ==, SB_ANSWER_VALUE);
  g_assert_cmpfloat (answer.value, ==, -2.5);
  g_assert_true (answer.has_response_time && answer.response_time == 0.8);
  g_assert_cmpint (answer.confidence, ==, SG_CONFIDENCE_WEAK);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (JsonNode) doc = parse (bad[i].text);
      g_autoptr (GError) error = NULL;
      g_assert_false (sb_answer_from_json (doc, &answer, &error));
      g_assert_error (error, SB_QUESTION_ERROR, SB_QUESTION_ERROR_INVALID);
      if (strstr (error->message, bad[i].needle) == NULL)
        g_test_message ("%s: %s", bad[i].text, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
    }
}

/* Tells ANSWER (a JSON document) to SESSION; NULL when recorded, else the
 * refusal's message (nothing recorded then). */
static char *
tell_text (SbSession *session, const char *text)
{
  g_autoptr (JsonNode) doc = json_from_string (text, NULL);
  g_autoptr (GError) error = NULL;
  guint before = sb_session_get_n_observations (session);
  SbAnswer answer;

  g_assert_true (sb_answer_from_json (doc, &answer, &error));
  if (sb_ask_tell_tell (session, &answer, &error))
    return NULL;
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, before);
  return g_strdup (error->message);
}

/* The experiment's confidence scale and wording: a 1-5 rating is what tell
 * takes (a word refused naming the scale), the question document names
 * the scale and carries the wording, the rating goes through the session
 * file and into the long CSV as given; the words scale refuses a number
 * by naming its words. */
static void
test_confidence_rating (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (GError) error = NULL;

  exp->confidence_levels = 5;
  exp->question_text = g_strdup ("Which sound is more pleasant?");
  g_assert_true (sb_experiment_validate (exp, &error));
  g_autoptr (SbSession) session = sb_session_new (exp);

  const SbQuestion *q = sb_ask_tell_ask (session, &error);
  g_assert_no_error (error);
  g_autoptr (JsonNode) doc = sb_question_to_json (q, exp);
  g_autofree char *text = json_to_string (doc, FALSE);
  g_assert_nonnull (strstr (text, "\"question_text\":\"Which sound is more pleasant?\""));
  g_assert_nonnull (strstr (text, "\"confidence_scale\":{\"kind\":\"rating\",\"levels\":5}"));

  g_autofree char *word = tell_text (session, "{\"question\": 1, \"answer\": {\"chosen\": 1}, "
                                              "\"confidence\": \"strong\"}");
  g_autofree char *high = tell_text (session, "{\"question\": 1, \"answer\": {\"chosen\": 1}, "
                                              "\"confidence\": 6}");
  g_assert_nonnull (strstr (word, "whole number from 1 (least sure) to 5"));
  g_assert_nonnull (strstr (high, "'confidence' 6 is not on this experiment's confidence scale"));
  g_assert_null (tell_text (session, "{\"question\": 1, \"answer\": {\"chosen\": 1}, "
                                     "\"confidence\": 3}"));
  unsigned r = 0, k = 0;
  const SbLogEntry *e = sb_session_get_observation (session, 0);
  g_assert_true (sg_confidence_rating_of (e->confidence, &r, &k));
  g_assert_cmpuint (r, ==, 3);
  g_assert_cmpuint (k, ==, 5);

  /* the session file keeps the scale, the wording and the rating */
  g_autofree char *data = sb_session_to_data (session, NULL);
  g_assert_nonnull (strstr (data, "\"confidence\": 3"));
  g_autoptr (SbSession) loaded = sb_session_load_from_data (data, -1, "rating.json", &error);
  g_assert_no_error (error);
  const SbExperiment *lexp = sb_session_get_experiment (loaded);
  g_assert_cmpuint (lexp->confidence_levels, ==, 5);
  g_assert_cmpstr (lexp->question_text, ==, "Which sound is more pleasant?");
  g_assert_cmpint (sb_session_get_observation (loaded, 0)->confidence, ==, e->confidence);
  g_autofree char *again = sb_session_to_data (loaded, NULL);
  g_assert_cmpstr (again, ==, data);

  /* the long CSV's confidence column holds what the person gave */
  g_autofree char *csv = sb_session_to_csv_long (loaded);
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_auto (GStrv) cells = g_strsplit (lines[1], ",", -1);
  g_assert_cmpstr (cells[10], ==, "3");

  /* the words scale: a number is refused by naming the words */
  g_autoptr (SbExperiment) words = experiment (SB_MODE_PREFERENCE);
  g_autoptr (SbSession) ws = sb_session_new (words);
  g_assert_nonnull (sb_ask_tell_ask (ws, NULL));
  g_autofree char *number = tell_text (ws, "{\"question\": 1, \"answer\": {\"chosen\": 0}, "
                                           "\"confidence\": 3}");
  g_assert_nonnull (strstr (number, "it takes \"weak\", \"normal\" or \"strong\""));
  g_autoptr (JsonNode) wdoc = sb_question_to_json (sb_session_get_open_question (ws), words);
  g_autofree char *wtext = json_to_string (wdoc, FALSE);
  g_assert_nonnull (strstr (wtext, "\"question_text\":\"Which setting works better?\""));
  g_assert_nonnull (strstr (wtext, "\"confidence_scale\":{\"kind\":\"words\"}"));
}

/* A session file's scale and wording are checked like every member: the
 * message names the member and points at it. */
static void
test_confidence_scale_file (void)
{
  static const struct { const char *from, *to, *needle; } bad[] = {
    { "\"levels\": 5", "\"levels\": 9", "'confidence_scale' of kind \"rating\" needs" },
    { "\"levels\": 5", "\"levels\": 1", "from 2 to 7" },
    { "\"rating\"", "\"stars\"", "kind 'stars' is unknown" },
    { "\"Which sound is more pleasant?\"", "\"  \"", "'question_text' is empty" },
    { "\"Which sound is more pleasant?\"", "7", "'question_text' must be a string" },
    { "\"confidence\": 3", "\"confidence\": \"weak\"", "it takes a whole number from 1" },
    { "\"confidence\": 3", "\"confidence\": 7", "'confidence' 7 is not on" },
  };
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (GError) error = NULL;

  exp->confidence_levels = 5;
  exp->question_text = g_strdup ("Which sound is more pleasant?");
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_assert_nonnull (sb_ask_tell_ask (session, NULL));
  g_assert_null (tell_text (session, "{\"question\": 1, \"answer\": {\"chosen\": 0}, "
                                     "\"confidence\": 3}"));
  g_autofree char *data = sb_session_to_data (session, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GString) text = g_string_new (data);
      g_autoptr (GError) err = NULL;
      g_assert_cmpuint (g_string_replace (text, bad[i].from, bad[i].to, 1), ==, 1);
      g_autoptr (SbSession) s = sb_session_load_from_data (text->str, -1, "bad.json", &err);
      g_assert_null (s);
      g_assert_error (err, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
      if (strstr (err->message, bad[i].needle) == NULL)
        g_test_message ("%s -> %s: %s", bad[i].from, bad[i].to, err->message);
      g_assert_nonnull (strstr (err->message, bad[i].needle));
      g_assert_true (g_str_has_prefix (err->message, "bad.json:"));
    }
  /* an experiment built in code is checked the same way */
  exp->confidence_levels = 8;
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_nonnull (strstr (error->message, "'confidence_scale'"));
}

static void
test_long_csv (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_MIXED);
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autofree char *csv = NULL;
  g_auto (GStrv) lines = NULL;
  SbQuestion q = { .id = 1, .kind = SB_QUESTION_DUEL, .n_options = 2,
                          .options = { { 1.0, 2.0 }, { 3.0, -4.0 } },
                          .shown_order = { 1, 0 } };
  SbAnswer answer = answer_of (1, SB_ANSWER_CHOSEN);

  answer.chosen = 1;
  answer.has_response_time = TRUE;
  answer.response_time = 1.5;
  g_assert_true (sb_session_set_open_question (session, &q, NULL));
  g_assert_true (sb_ask_tell_tell (session, &answer, NULL));
  pose_value_question (session, 5.0, 0.0);
  answer = answer_of (2, SB_ANSWER_VALUE);
  answer.value = -0.5;
  g_assert_true (sb_ask_tell_tell (session, &answer, NULL));

  csv = sb_session_to_csv_long (session);
  lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "index,question,time,kind,option,position,chosen,rank,value,"
                                 "response_time,confidence,note,x_gain,x_offset");
  /* The duel: a shown second and not chosen, b shown first and chosen. */
  g_assert_true (g_str_has_prefix (lines[1], "1,1,"));
  g_assert_true (g_str_has_suffix (lines[1], ",duel,a,2,0,,,1.5,,,1,2"));
  g_assert_true (g_str_has_suffix (lines[2], ",duel,b,1,1,,,1.5,,,3,-4"));
  g_assert_true (g_str_has_suffix (lines[3], ",value,a,1,,,-0.5,,,,5,0"));
  g_assert_cmpstr (lines[4], ==, "");
}

static void
on_recommend_finished (SbWorker *worker, guint lane, guint64 generation, gpointer result,
                       SbRecommendation *out)
{
  g_assert_cmpuint (lane, ==, SB_WORKER_LANE_RECOMMEND);
  *out = *(const SbRecommendation *) result;
}

static void
assert_same_recommendation (const SbRecommendation *a, const SbRecommendation *b)
{
  g_assert_cmpint (a->has_best, ==, b->has_best);
  g_assert_cmpmem (a->best, sizeof a->best, b->best, sizeof b->best);
  g_assert_cmpfloat (a->mean, ==, b->mean);
  g_assert_cmpfloat (a->lower, ==, b->lower);
  g_assert_cmpfloat (a->upper, ==, b->upper);
  g_assert_cmpuint (a->n_answers, ==, b->n_answers);
  g_assert_cmpfloat (a->hyper.variance, ==, b->hyper.variance);
}

/* The recommendation is one computation whoever asks: skewgp status
 * (sb_ask_tell_recommend), a snapshot (sb_recommend_from_input) and the
 * worker's job (on another thread) give the same numbers, since the model
 * is seeded by the experiment and the answers; the JSON export holds them
 * with the parameters' names and units and the hyperparameters. */
static void
test_recommendation (void)
{
  g_autoptr (SbExperiment) exp = experiment (SB_MODE_PREFERENCE);
  g_autoptr (SbSession) session = NULL;
  g_autoptr (SbWorker) worker = sb_worker_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sb-recommend-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "recommendation.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (JsonParser) parser = json_parser_new ();
  SbRecommendation r0, r1, r2, r3 = { 0 };
  SbJobInput *input;
  JsonObject *root, *interval;
  JsonArray *best, *params;

  exp->initial = 2;
  session = sb_session_new (exp);
  /* no answer yet: no best, no model */
  g_assert_true (sb_ask_tell_recommend (session, &r0, &error));
  g_assert_false (r0.has_best);
  g_assert_true (isnan (r0.mean));
  g_assert_true (sb_recommendation_save (exp, &r0, file, &error));
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_get_null_member (root, "best"));
  g_assert_true (json_object_get_null_member (root, "posterior_mean"));
  g_assert_true (json_object_get_null_member (root, "credible_interval"));

  /* gain 8 beats everything */
  {
    const double duels[][4] = { { 8, 0, 2, 1 }, { 8, 0, 5, -3 }, { 8, 0, 1, 4 }, { 6, 2, 3, -1 } };
    for (guint i = 0; i < G_N_ELEMENTS (duels); i++)
      g_assert_true (sb_session_add_duel (session, duels[i], duels[i] + 2, 0, &error));
  }
  g_assert_true (sb_ask_tell_recommend (session, &r1, &error));
  g_assert_no_error (error);
  g_assert_true (r1.has_best);
  g_assert_cmpuint (r1.n_answers, ==, 4);
  g_assert_true (r1.lower < r1.mean && r1.mean < r1.upper);
  g_assert_true (r1.hyper.valid && r1.hyper.variance > 0);
  input = sb_job_input_new (session);
  g_assert_true (sb_recommend_from_input (input, &r2, &error));
  sb_job_input_free (input);
  assert_same_recommendation (&r1, &r2);

  g_signal_connect (worker, "job-finished", G_CALLBACK (on_recommend_finished), &r3);
  sb_worker_submit (worker, SB_WORKER_LANE_RECOMMEND, sb_job_recommend, sb_job_input_new (session),
                    (GDestroyNotify) sb_job_input_free, g_free);
  while (r3.n_answers == 0)
    g_main_context_iteration (NULL, TRUE);
  assert_same_recommendation (&r1, &r3);

  g_assert_true (sb_recommendation_save (exp, &r1, file, &error));
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "skewbench-recommendation");
  g_assert_cmpint (json_object_get_int_member (root, "answers"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (root, "budget"), ==, 10);
  best = json_object_get_array_member (root, "best");
  params = json_object_get_array_member (root, "parameters");
  for (guint j = 0; j < 2; j++)
    {
      JsonObject *p = json_array_get_object_element (params, j);
      g_assert_cmpfloat (json_array_get_double_element (best, j), ==, r1.best[j]);
      g_assert_cmpfloat (json_object_get_double_member (p, "value"), ==, r1.best[j]);
      g_assert_cmpstr (json_object_get_string_member (p, "name"), ==, exp->parameters[j].name);
      g_assert_cmpstr (json_object_get_string_member (p, "unit"), ==, exp->parameters[j].unit);
    }
  g_assert_nonnull (strstr (json_object_get_string_member (root, "best_description"), " dB"));
  g_assert_cmpfloat (json_object_get_double_member (root, "posterior_mean"), ==, r1.mean);
  interval = json_object_get_object_member (root, "credible_interval");
  g_assert_cmpfloat (json_object_get_double_member (interval, "level"), ==, 0.95);
  g_assert_cmpfloat (json_object_get_double_member (interval, "lower"), ==, r1.lower);
  g_assert_cmpfloat (json_object_get_double_member (interval, "upper"), ==, r1.upper);
  {
    JsonObject *h = json_object_get_object_member (root, "hyperparameters");
    g_assert_cmpstr (json_object_get_string_member (h, "kernel"), ==, "rbf");
    g_assert_cmpfloat (json_object_get_double_member (h, "variance"), ==, r1.hyper.variance);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (h, "lengthscales")), ==, 2);
    g_assert_true (json_object_has_member (h, "probit_sd"));
  }
  g_unlink (path);
  g_rmdir (dir);
}

/* Degrees from A to B the short way round the hue circle. */
static double
hue_distance (double a, double b)
{
  double d = fmod (fabs (a - b), 360);
  return MIN (d, 360 - d);
}

/* The colour template's hue is periodic: a person whose favourite hue is
 * 350 (just below the wrap) answers duels by the hue's distance from it
 * round the circle; every option asked has a hue in [0, 360) (360 is 0),
 * and the recommendation lands near 350 the short way round. */
static void
test_colour_hue_wraps (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GError) error = NULL;
  SbRecommendation rec;

  g_assert_cmpint (exp->parameters[0].scale, ==, SB_SCALE_PERIODIC);
  g_assert_cmpint (sb_parameter_dim_kind (&exp->parameters[0]), ==, SG_DIM_PERIODIC);
  exp->budget = 12;
  g_autoptr (SbSession) session = sb_session_new (exp);
  for (guint i = 0; i < exp->budget; i++)
    {
      const SbQuestion *q = sb_ask_tell_ask (session, &error);
      g_assert_no_error (error);
      g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);
      for (guint k = 0; k < q->n_options; k++)
        {
          g_assert_cmpfloat (q->options[k][0], >=, 0);
          g_assert_cmpfloat (q->options[k][0], <, 360);
        }
      SbAnswer answer = answer_of (q->id, SB_ANSWER_CHOSEN);
      answer.chosen = hue_distance (q->options[1][0], 350) < hue_distance (q->options[0][0], 350);
      g_assert_true (sb_ask_tell_tell (session, &answer, &error));
      g_assert_no_error (error);
    }
  g_assert_true (sb_ask_tell_recommend (session, &rec, &error));
  g_assert_no_error (error);
  g_assert_true (rec.has_best);
  g_test_message ("best hue %g", rec.best[0]);
  g_assert_cmpfloat (hue_distance (rec.best[0], 350), <, 30);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ask-tell/same-question-until-answered", test_same_question_until_answered);
  g_test_add_func ("/ask-tell/stale-unknown-unsupported", test_stale_unknown_unsupported);
  g_test_add_func ("/ask-tell/value-questions", test_value_questions);
  g_test_add_func ("/ask-tell/shown-order", test_shown_order);
  g_test_add_func ("/ask-tell/file-round-trip", test_file_round_trip);
  g_test_add_func ("/ask-tell/answer-document", test_answer_document);
  g_test_add_func ("/ask-tell/long-csv", test_long_csv);
  g_test_add_func ("/ask-tell/confidence-rating", test_confidence_rating);
  g_test_add_func ("/ask-tell/confidence-scale-file", test_confidence_scale_file);
  g_test_add_func ("/ask-tell/recommendation", test_recommendation);
  g_test_add_func ("/ask-tell/colour-hue-wraps", test_colour_hue_wraps);
  return g_test_run ();
}
