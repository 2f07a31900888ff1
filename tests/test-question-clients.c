/* test-question-clients.c — one question protocol, three clients: the
 * same answers given through the window's campaign, through the core of
 * `skewgp ask` / `skewgp tell` (sb_ask_tell_ask, sb_ask_tell_tell) and
 * through a plain client of the protocol (sb-question.h and the session's
 * open question alone) are stored identically: the session files and
 * both exports (`skewgp export`, long and --wide) agree byte for byte
 * once the times are blanked. Every kind of answer is given: duels with
 * a confidence, ties and skips (mixed mode), values, failed settings
 * and skips (safe mode), choices and rankings, each with a response time and the order shown.
 */
#include "sb-ask-tell.h"
#include "sb-campaign.h"
#include "sb-experiment-templates.h"
#include "sb-json-write.h"
#include "sb-question.h"
#include "loop-harness.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define N_ANSWERS 7


/* The I-th answer to question Q: the kinds in turn, each with details. */
static SbAnswer
answer_for (const SbQuestion *q, guint i)
{
  SbAnswer a = { .question = q->id, .has_response_time = TRUE,
                 .response_time = 0.25 * (i + 1) };

  switch (q->kind)
    {
    case SB_QUESTION_DUEL:
      {
        static const SbAnswerKind kinds[] = { SB_ANSWER_CHOSEN, SB_ANSWER_TIE, SB_ANSWER_CHOSEN,
                                              SB_ANSWER_SKIP };
        a.kind = kinds[i % G_N_ELEMENTS (kinds)];
        a.chosen = i % 3 == 0 ? 1 : 0;
        a.confidence = a.kind == SB_ANSWER_CHOSEN ? SG_CONFIDENCE_STRONG : SG_CONFIDENCE_NONE;
      }
      break;
    case SB_QUESTION_VALUE:
      a.kind = i % 3 == 2 ? SB_ANSWER_SKIP : i % 3 ? SB_ANSWER_FAILED : SB_ANSWER_VALUE;
      a.value = -1.5 + i;
      break;
    case SB_QUESTION_CHOICE:
      a.kind = i % 4 == 3 ? SB_ANSWER_SKIP : SB_ANSWER_CHOSEN;
      a.chosen = (i + 2) % q->n_options;
      a.confidence = a.kind == SB_ANSWER_CHOSEN ? SG_CONFIDENCE_WEAK : SG_CONFIDENCE_NONE;
      break;
    case SB_QUESTION_RANKING:
      a.kind = SB_ANSWER_RANKING;
      a.n_ranked = q->n_options;
      for (guint k = 0; k < q->n_options; k++)
        a.ranking[k] = (k + i) % q->n_options;
      break;
    }
  /* the way a view that shows the question's order reports it */
  a.n_shown = q->n_options;
  memcpy (a.shown_order, q->shown_order, sizeof a.shown_order);
  return a;
}

static char *
session_path (const char *dir, const char *name)
{
  return g_build_filename (dir, name, NULL);
}

/* The window: the campaign shows the engine's questions, opens each as
 * the session's open question and records the answers. */
static SbSession *
run_campaign (const SbExperiment *exp, const char *path)
{
  g_autoptr (SbCampaign) campaign = sb_campaign_new ();
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SbSession *session = sb_session_new (exp);

  g_assert_true (sb_session_save_as (session, file, NULL));
  sb_campaign_set_auto_refit (campaign, FALSE);
  sb_campaign_set_session (campaign, session);
  for (guint i = 0; i < N_ANSWERS; i++)
    {
      g_autoptr (GError) error = NULL;
      const SbQuestion *open;
      SbAnswer a;

      SPIN_UNTIL (sb_campaign_get_state (campaign) == SB_CAMPAIGN_ASKING);
      open = sb_session_get_open_question (session);
      g_assert_nonnull (open);
      g_assert_cmpmem (open->shown_order, sizeof open->shown_order,
                       sb_campaign_get_question (campaign)->shown_order, sizeof open->shown_order);
      a = answer_for (open, i);
      g_assert_true (sb_campaign_answer (campaign, &a, &error));
      g_assert_no_error (error);
    }
  sb_campaign_set_session (campaign, NULL);
  g_assert_true (sb_worker_wait_all (30 * G_USEC_PER_SEC));
  return session;
}

/* `skewgp ask` and `skewgp tell`: each question proposed on the calling
 * thread, the answer recorded by the protocol. */
static SbSession *
run_ask_tell (const SbExperiment *exp, const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SbSession *session = sb_session_new (exp);

  g_assert_true (sb_session_save_as (session, file, NULL));
  for (guint i = 0; i < N_ANSWERS; i++)
    {
      g_autoptr (GError) error = NULL;
      const SbQuestion *q = sb_ask_tell_ask (session, &error);
      SbAnswer a;

      g_assert_no_error (error);
      a = answer_for (q, i);
      g_assert_true (sb_ask_tell_tell (session, &a, &error));
      g_assert_no_error (error);
    }
  return session;
}

/* A client of the protocol alone: it opens each question the reference
 * session asked (options and kind) with the next id, and records the log
 * entry sb_answer_to_entry makes of the answer. */
static SbSession *
run_plain_client (const SbExperiment *exp, const char *path, SbSession *reference)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SbSession *session = sb_session_new (exp);

  g_assert_true (sb_session_save_as (session, file, NULL));
  for (guint i = 0; i < N_ANSWERS; i++)
    {
      const SbLogEntry *ref = sb_session_get_observation (reference, i);
      g_autoptr (SbLogEntry) entry = NULL;
      g_autoptr (GError) error = NULL;
      guint n = sb_log_entry_n_options (ref);
      SbQuestion q = { .id = sb_session_get_questions_asked (session) + 1,
                       .n_log = sb_session_get_n_observations (session) };
      SbAnswer a;

      q.kind = ref->options ? (exp->question == SB_ASK_CHOICE ? SB_QUESTION_CHOICE
                                                               : SB_QUESTION_RANKING)
               : ref->kind == SB_LOG_VALUE || ref->kind == SB_LOG_FAILED
                 || (ref->kind == SB_LOG_SKIP && ref->n_shown == 0) ? SB_QUESTION_VALUE
               : SB_QUESTION_DUEL;
      q.n_options = sb_question_n_options (exp, q.kind);
      for (guint k = 0; k < MIN (n, q.n_options); k++)
        memcpy (q.options[k], sb_log_entry_option (ref, k), exp->n_parameters * sizeof (double));
      sb_question_shuffle (&q, exp->seed);
      g_assert_true (sb_question_check (exp, &q, q.n_log, q.id, NULL));
      g_assert_true (sb_session_set_open_question (session, &q, &error));
      a = answer_for (&q, i);
      entry = sb_answer_to_entry (exp, sb_session_get_open_question (session), &a, &error);
      g_assert_no_error (error);
      g_assert_true (sb_session_add_entry (session, entry, &error));
      g_assert_no_error (error);
      g_assert_null (sb_session_get_open_question (session));
    }
  return session;
}

/* TEXT with every time blanked: the values of the JSON members "time",
 * "created" and their "_us" forms, and the CSV "time" column (the ISO
 * 8601 UTC stamps). */
static char *
without_times (const char *text)
{
  g_autoptr (GRegex) json = g_regex_new ("\"(time|created|time_us|created_us)\" *: *(\"[^\"]*\"|[0-9-]+)",
                                         0, 0, NULL);
  g_autoptr (GRegex) iso = g_regex_new ("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", 0, 0, NULL);
  g_autofree char *a = g_regex_replace (json, text, -1, 0, "\"\\1\": T", 0, NULL);

  return g_regex_replace (iso, a, -1, 0, "T", 0, NULL);
}

static void
assert_same_text (const char *what, char *a, char *b)
{
  g_autofree char *x = without_times (a);
  g_autofree char *y = without_times (b);

  if (g_strcmp0 (x, y) != 0)
    g_test_message ("%s differ:\n%s\n----\n%s", what, x, y);
  g_assert_cmpstr (x, ==, y);
  g_free (a);
  g_free (b);
}

/* The session file at PATH without the hyperparameters: `skewgp ask`
 * refits on the engine's schedule before it proposes, the window on its
 * worker when it is free; the fits are no answers. */
static char *
answers_of_file (const char *path)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root;

  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  json_object_remove_member (root, "hyperparameters");
  json_object_remove_member (root, "refits");
  return sb_json_write (json_parser_get_root (parser), TRUE, NULL);
}

static void
assert_stored_alike (SbSession *a, SbSession *b, const char *path_a, const char *path_b)
{
  g_autofree char *file_b = NULL;
  g_autoptr (SbSession) reread = NULL;

  g_assert_true (g_file_get_contents (path_b, &file_b, NULL, NULL));
  assert_same_text ("the session files", answers_of_file (path_a), answers_of_file (path_b));
  assert_same_text ("skewgp export", sb_session_to_csv_long (a), sb_session_to_csv_long (b));
  assert_same_text ("skewgp export --wide", sb_session_to_csv (a), sb_session_to_csv (b));
  /* the files read back as what was stored */
  reread = sb_session_load_from_data (file_b, -1, path_b, NULL);
  g_assert_nonnull (reread);
  assert_same_text ("a file read back", sb_session_to_data (reread, NULL),
                    g_strdup (file_b));
}

/* Every answer names its question, ids run 1, 2, ... and the export's
 * question column is filled for every row. */
static void
assert_questions_named (SbSession *s)
{
  g_autofree char *csv = sb_session_to_csv (s);
  g_auto (GStrv) rows = g_strsplit (csv, "\n", -1);

  g_assert_cmpuint (sb_session_get_n_observations (s), ==, N_ANSWERS);
  for (guint i = 0; i < N_ANSWERS; i++)
    g_assert_cmpuint (sb_session_get_observation (s, i)->question, ==, i + 1);
  g_assert_cmpuint (sb_session_get_questions_asked (s), ==, N_ANSWERS);
  for (guint i = 1; rows[i] && *rows[i]; i++)
    {
      g_autofree char *id = g_strdup_printf (",%u,", i);
      g_assert_nonnull (strstr (rows[i], id));
    }
}

static void
check_experiment (SbExperiment *exp, const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-clients-XXXXXX", NULL);
  g_autofree char *path_app = session_path (dir, "app.json");
  g_autofree char *path_cli = session_path (dir, "cli.json");
  g_autofree char *path_plain = session_path (dir, "plain.json");
  g_autoptr (SbSession) app = NULL, cli = NULL, plain = NULL;

  g_test_message ("%s", name);
  exp->budget = N_ANSWERS + 3;
  exp->initial = N_ANSWERS + 3;  /* the seeded initial design: one question per client */
  app = run_campaign (exp, path_app);
  cli = run_ask_tell (exp, path_cli);
  plain = run_plain_client (exp, path_plain, app);
  assert_questions_named (app);
  assert_stored_alike (app, cli, path_app, path_cli);
  assert_stored_alike (app, plain, path_app, path_plain);
  g_unlink (path_app);
  g_unlink (path_cli);
  g_unlink (path_plain);
  g_rmdir (dir);
}

static void
test_duels_ties (void)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("branin", NULL);

  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  exp->numeric_every = 3;
  exp->ties_allowed = TRUE;
  exp->simulated = FALSE;
  check_experiment (exp, "mixed: duels, ties, skips");
}

static void
test_values_failed (void)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("branin", NULL);

  exp->mode = SB_MODE_SAFE;
  sb_experiment_use_default_acquisition (exp);
  exp->threshold = -100;
  exp->simulated = FALSE;
  check_experiment (exp, "safe: values, failed settings");
}

static void
test_choices (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();

  exp->question = SB_ASK_CHOICE;
  exp->n_options = 4;
  check_experiment (exp, "choices of 4 with confidence, a skip");
}

static void
test_rankings (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();

  exp->question = SB_ASK_RANKING;
  exp->n_options = 3;
  check_experiment (exp, "rankings of 3");
}

/* An answer recorded once is recognised when it comes again (a retry
 * after a lost reply), another answer to the same question is not. */
static void
test_retry_recognised (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (GError) error = NULL;
  const SbQuestion *q = sb_ask_tell_ask (session, &error);
  SbAnswer a = answer_for (q, 0), other;

  g_assert_no_error (error);
  g_assert_false (sb_ask_tell_is_recorded (session, &a));
  g_assert_true (sb_ask_tell_tell (session, &a, NULL));
  g_assert_false (sb_ask_tell_tell (session, &a, &error));
  g_assert_error (error, SB_QUESTION_ERROR, SB_QUESTION_ERROR_STALE);
  g_assert_true (sb_ask_tell_is_recorded (session, &a));
  other = a;
  other.chosen = 1 - a.chosen;
  g_assert_false (sb_ask_tell_is_recorded (session, &other));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/question-clients/duels-ties", test_duels_ties);
  g_test_add_func ("/question-clients/values-failed", test_values_failed);
  g_test_add_func ("/question-clients/choices", test_choices);
  g_test_add_func ("/question-clients/rankings", test_rankings);
  g_test_add_func ("/question-clients/retry-recognised", test_retry_recognised);
  return g_test_run ();
}
