/* test-candidates.c — an experiment's candidate set in the session file
 * (sb-candidates.h): read relative to the file, the stimulus of a
 * setting, answers at other settings refused, and the round trip. */
#include "sb-candidates.h"
#include "sb-session.h"

#include <glib/gstdio.h>
#include <string.h>

static const char session_text[] =
  "{\"format\": \"skewbench-session\", \"version\": 1,"
  " \"experiment\": {\"title\": \"t\", \"template\": \"custom\", \"mode\": \"preference\","
  "  \"budget\": 5, \"parameters\": [{\"name\": \"w\"}],"
  "  \"candidates\": {\"csv\": \"c.csv\", \"folder\": \"img\"}},"
  " \"observations\": []}";

static void
test_session_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-cand-XXXXXX", NULL);
  g_autofree char *img = g_build_filename (dir, "img", NULL);
  g_autofree char *csv = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *a = g_build_filename (img, "a.png", NULL);
  g_autofree char *b = g_build_filename (img, "b.png", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_assert_cmpint (g_mkdir (img, 0700), ==, 0);
  g_assert_true (g_file_set_contents (a, "x", -1, NULL));
  g_assert_true (g_file_set_contents (b, "x", -1, NULL));
  g_assert_true (g_file_set_contents (csv, "file,w\na.png,0.5\nb.png,2.5\n", -1, NULL));
  g_autoptr (GError) error = NULL;

  g_autoptr (SbSession) s = sb_session_load_from_data (session_text, -1, path, &error);
  g_assert_no_error (error);
  const SbExperiment *exp = sb_session_get_experiment (s);
  g_assert_nonnull (exp->candidates);
  g_assert_cmpuint (exp->candidates->n, ==, 2);
  g_assert_cmpfloat (exp->parameters[0].lower, ==, 0.5);
  g_assert_cmpfloat (exp->parameters[0].upper, ==, 2.5);
  double xa = 0.5, xb = 2.5, off = 1.0;
  g_autofree char *fa = sb_experiment_candidate_file (exp, &xb);
  g_assert_cmpstr (fa, ==, b);
  g_assert_null (sb_experiment_candidate_file (exp, &off));

  /* an answer at a setting that is no candidate is refused, naming it */
  g_assert_false (sb_session_add_duel (s, &xa, &off, 0, &error));
  g_assert_nonnull (strstr (error->message, "none of the candidates in c.csv"));
  g_clear_error (&error);
  g_assert_true (sb_session_add_duel (s, &xa, &xb, 0, &error));
  g_assert_no_error (error);

  /* saved next to its CSV, the paths stay relative; it loads back */
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_assert_true (sb_session_save_as (s, file, &error));
  g_assert_no_error (error);
  g_autoptr (SbSession) back = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_experiment (back)->candidates->n, ==, 2);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"folder\": \"img\""));

  /* a stimulus file that has gone: the session is refused, not half-read */
  g_remove (b);
  g_autoptr (SbSession) gone = sb_session_load (file, &error);
  g_assert_null (gone);
  g_assert_nonnull (strstr (error->message, "b.png' does not exist"));
  g_remove (a);
  g_remove (csv);
  g_remove (path);
  g_rmdir (img);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/candidates/session-round-trip", test_session_round_trip);
  return g_test_run ();
}
