/* test-session-history.c — the experimenter's history edits
 * (core/sb-session-history.h): any past answer removed and restored,
 * never deleted, every change in the file's journal, undo and redo of
 * edits, notes, and removed answers kept away from the engine. */
#include "sb-jobs.h"
#include "sb-session-history.h"
#include "sg-bo.h"

#include <glib/gstdio.h>
#include <string.h>

static SbSession *
session_with_duels (guint n)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  SbSession *session;

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 1.0));
  exp->budget = 20;
  session = sb_session_new (exp);
  for (guint i = 0; i < n; i++)
    {
      double a = 0.05 + 0.1 * i, b = 0.9 - 0.05 * i;
      g_assert_true (sb_session_add_duel (session, &a, &b, (int) (i % 2), NULL));
    }
  return session;
}

/* The number of answers the engine takes from SESSION's log. */
static gsize
engine_answers (SbSession *session)
{
  g_autoptr (GError) error = NULL;
  SbJobInput *input = sb_job_input_new (session);
  sg_bo *bo = sb_job_replay (input, &error);
  gsize n;

  g_assert_no_error (error);
  n = sg_bo_n_answers (bo);
  sg_bo_free (bo);
  sb_job_input_free (input);
  return n;
}

static SbSession *
round_trip (SbSession *session)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *data = sb_session_to_data (session, NULL);
  SbSession *back = sb_session_load_from_data (data, -1, "history.json", &error);

  g_assert_no_error (error);
  g_assert_nonnull (back);
  return back;
}

static void
test_remove_any_answer (void)
{
  g_autoptr (SbSession) session = session_with_duels (5);
  g_autoptr (SbSession) back = NULL;
  g_autoptr (GError) error = NULL;
  const SbLogEntry *e;

  g_assert_cmpuint (engine_answers (session), ==, 5);
  /* The second answer of five: not the last. */
  g_assert_true (sb_session_remove_entry (session, 1, "dr. lee", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 5);
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 4);
  g_assert_cmpuint (engine_answers (session), ==, 4);
  e = sb_session_get_observation (session, 1);
  g_assert_true (sb_log_entry_is_removed (e));
  g_assert_cmpstr (e->removed_by, ==, "dr. lee");

  /* Kept in the file with its flag, and the journal. */
  back = round_trip (session);
  e = sb_session_get_observation (back, 1);
  g_assert_true (sb_log_entry_is_removed (e));
  g_assert_cmpint (e->removed_time, ==, sb_session_get_observation (session, 1)->removed_time);
  g_assert_cmpstr (e->removed_by, ==, "dr. lee");
  g_assert_cmpuint (sb_session_get_n_answers (back), ==, 4);
  g_assert_cmpuint (sb_session_get_n_edits (back), ==, 1);
  g_assert_cmpint (sb_session_get_edit (back, 0)->action, ==, SB_EDIT_REMOVE);
  g_assert_cmpuint (sb_session_get_edit (back, 0)->entry, ==, 1);
  g_assert_cmpuint (engine_answers (back), ==, 4);

  /* Restored: it counts again, and the journal has both changes. */
  g_assert_true (sb_session_restore_entry (back, 1, "dr. lee", &error));
  g_assert_false (sb_log_entry_is_removed (sb_session_get_observation (back, 1)));
  g_assert_cmpuint (engine_answers (back), ==, 5);
  g_assert_cmpuint (sb_session_get_n_edits (back), ==, 2);
  g_assert_cmpint (sb_session_get_edit (back, 1)->action, ==, SB_EDIT_RESTORE);
}

static void
test_refused_edits (void)
{
  g_autoptr (SbSession) session = session_with_duels (3);
  g_autoptr (GError) error = NULL;

  g_assert_false (sb_session_restore_entry (session, 0, NULL, &error));
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "not removed"));
  g_clear_error (&error);
  g_assert_false (sb_session_remove_entry (session, 3, NULL, &error));
  g_assert_nonnull (strstr (error->message, "no answer 4"));
  g_clear_error (&error);
  g_assert_true (sb_session_remove_entry (session, 2, NULL, NULL));
  g_assert_false (sb_session_remove_entry (session, 2, NULL, &error));
  g_assert_nonnull (strstr (error->message, "removed already"));
  g_clear_error (&error);
  /* The last-answer undo does not delete an edited answer. */
  g_assert_false (sb_session_undo (session, &error));
  g_assert_nonnull (strstr (error->message, "edited"));
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 3);
  g_assert_cmpuint (sb_session_get_n_edits (session), ==, 1);
}

static void
test_undo_redo (void)
{
  g_autoptr (SbSession) session = session_with_duels (4);
  g_autoptr (SbSession) back = NULL;
  const SbEdit *edit;

  g_assert_false (sb_session_can_undo_edit (session));
  g_assert_true (sb_session_remove_entry (session, 0, "a", NULL));
  g_assert_true (sb_session_remove_entry (session, 2, "a", NULL));
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 2);

  /* Undo restores the latest removal first, then the one before. */
  g_assert_true (sb_session_undo_edit (session, "b", NULL));
  g_assert_false (sb_log_entry_is_removed (sb_session_get_observation (session, 2)));
  g_assert_true (sb_log_entry_is_removed (sb_session_get_observation (session, 0)));
  g_assert_true (sb_session_undo_edit (session, "b", NULL));
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 4);
  g_assert_false (sb_session_can_undo_edit (session));

  /* Redo removes answer 1 again. */
  g_assert_true (sb_session_can_redo_edit (session));
  g_assert_true (sb_session_redo_edit (session, "c", NULL));
  g_assert_true (sb_log_entry_is_removed (sb_session_get_observation (session, 0)));
  g_assert_cmpstr (sb_session_get_observation (session, 0)->removed_by, ==, "c");
  g_assert_true (sb_session_can_redo_edit (session));

  /* A new edit ends what could be redone. */
  g_assert_true (sb_session_remove_entry (session, 3, "d", NULL));
  g_assert_false (sb_session_can_redo_edit (session));
  g_assert_false (sb_session_redo_edit (session, "d", NULL));

  /* Every step is in the journal: remove, remove, restore (reverts 2),
   * restore (reverts 1), remove (redo), remove. */
  back = round_trip (session);
  g_assert_cmpuint (sb_session_get_n_edits (back), ==, 6);
  edit = sb_session_get_edit (back, 2);
  g_assert_cmpint (edit->action, ==, SB_EDIT_RESTORE);
  g_assert_cmpuint (edit->entry, ==, 2);
  g_assert_cmpuint (edit->reverts, ==, 2);
  g_assert_cmpstr (edit->by, ==, "b");
  edit = sb_session_get_edit (back, 3);
  g_assert_cmpuint (edit->reverts, ==, 1);
  g_assert_cmpuint (edit->entry, ==, 0);
  edit = sb_session_get_edit (back, 4);
  g_assert_cmpint (edit->action, ==, SB_EDIT_REMOVE);
  g_assert_cmpuint (edit->reverts, ==, 0);
  g_assert_cmpuint (sb_session_get_n_answers (back), ==, 2);
}

static void
test_notes (void)
{
  g_autoptr (SbSession) session = session_with_duels (2);
  g_autoptr (SbSession) back = NULL;

  g_assert_true (sb_session_set_entry_note (session, 0, "pressed too early", "a", NULL));
  g_assert_true (sb_session_set_entry_note (session, 0, "sneezed", "a", NULL));
  g_assert_cmpstr (sb_session_get_observation (session, 0)->note, ==, "sneezed");
  g_assert_true (sb_session_undo_edit (session, "a", NULL));
  g_assert_cmpstr (sb_session_get_observation (session, 0)->note, ==, "pressed too early");
  g_assert_true (sb_session_undo_edit (session, "a", NULL));
  g_assert_null (sb_session_get_observation (session, 0)->note);
  g_assert_true (sb_session_redo_edit (session, "a", NULL));
  g_assert_cmpstr (sb_session_get_observation (session, 0)->note, ==, "pressed too early");
  /* A note does not change what counts. */
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 2);
  back = round_trip (session);
  g_assert_cmpstr (sb_session_get_observation (back, 0)->note, ==, "pressed too early");
  g_assert_cmpuint (sb_session_get_n_edits (back), ==, 5);
  g_assert_cmpstr (sb_session_get_edit (back, 1)->previous, ==, "pressed too early");
  g_assert_cmpstr (sb_session_get_edit (back, 1)->note, ==, "sneezed");
}

/* An edit drops the open ask/tell question and is on disk at once. */
static void
test_edit_saves_and_drops_pending (void)
{
  g_autoptr (SbSession) session = session_with_duels (2);
  g_autoptr (SbSession) back = NULL;
  g_autofree char *dir = g_dir_make_tmp ("history-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SbQuestion q = { .id = 1, .kind = SB_QUESTION_DUEL, .n_options = 2,
                          .options = { { 0.3 }, { 0.6 } }, .shown_order = { 1, 0 },
                          .n_log = 2 };

  g_assert_true (sb_session_save_as (session, file, NULL));
  g_assert_true (sb_session_set_open_question (session, &q, NULL));
  g_assert_true (sb_session_remove_entry (session, 0, "a", NULL));
  g_assert_null (sb_session_get_open_question (session));
  back = sb_session_load (file, NULL);
  g_assert_nonnull (back);
  g_assert_true (sb_log_entry_is_removed (sb_session_get_observation (back, 0)));
  g_assert_null (sb_session_get_open_question (back));
  g_assert_cmpuint (sb_session_get_questions_asked (back), ==, 1);
  g_unlink (path);
  g_rmdir (dir);
}

/* A damaged journal is refused naming the place. */
static void
test_damaged_journal (void)
{
  g_autoptr (SbSession) session = session_with_duels (2);
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  g_autofree char *bad = NULL;
  SbSession *back;

  g_assert_true (sb_session_remove_entry (session, 1, "a", NULL));
  data = sb_session_to_data (session, NULL);
  bad = g_strdup (data);
  /* "entry": 2 becomes 7 */
  char *at = strstr (bad, "\"entry\": 2");
  g_assert_nonnull (at);
  at[strlen ("\"entry\": ")] = '7';
  back = sb_session_load_from_data (bad, -1, "bad.json", &error);
  g_assert_null (back);
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "bad.json:"));
  g_assert_nonnull (strstr (error->message, "entry 7 does not exist"));
  g_clear_error (&error);

  g_free (bad);
  bad = g_strdup (data);
  at = strstr (bad, "\"action\": \"remove\"");
  g_assert_nonnull (at);
  memcpy (at + strlen ("\"action\": \""), "delete", 6);
  back = sb_session_load_from_data (bad, -1, "bad.json", &error);
  g_assert_null (back);
  g_assert_nonnull (strstr (error->message, "unknown action 'delete'"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/history/remove-any-answer", test_remove_any_answer);
  g_test_add_func ("/history/refused", test_refused_edits);
  g_test_add_func ("/history/undo-redo", test_undo_redo);
  g_test_add_func ("/history/notes", test_notes);
  g_test_add_func ("/history/saves-drops-pending", test_edit_saves_and_drops_pending);
  g_test_add_func ("/history/damaged-journal", test_damaged_journal);
  return g_test_run ();
}
