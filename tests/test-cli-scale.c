/* test-cli-scale.c — questions never wait for a fit, through the real
 * `skewgp` binary: a session of 2,000 answers and a hierarchical study of
 * 50 participants x 30 answers are refused a question (naming skewgp
 * refit) until a fit is stored; `skewgp refit` stores it; then `ask`
 * proposes from it, with an answer told after it, and runs no fit or
 * refresh (the programs' test points, SB_PROGRESS_FD, not the clock);
 * `status` names the model and the answers its fit saw; `refit --if-due`
 * does nothing when the schedule does not ask; a stored fit whose answers
 * were undone is not used. */
#include "cli-harness.h"
#include "remove-tree.h"
#include "scale-fixtures.h"
#include "sb-file-lock.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>


/* Runs `skewgp ARGV...` (NULL-terminated, INPUT on stdin) with its test
 * points written to a file; *POINTS gets them (one per line). */
static CliResult G_GNUC_NULL_TERMINATED
run_with_points (char **points, const char *input, const char *first, ...)
{
  const char *exe = g_getenv ("SKEWGP");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autofree char *path = NULL;
  CliResult r = { 0 };
  va_list ap;
  int fd;

  g_assert_nonnull (exe);
  g_ptr_array_add (argv, (gpointer) exe);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  fd = g_file_open_tmp ("skewgp-points-XXXXXX", &path, &error);
  g_assert_no_error (error);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                                        | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "SB_PROGRESS_FD", "3", TRUE);
  g_subprocess_launcher_take_fd (launcher, fd, 3);
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, input, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  r.status = g_subprocess_get_exit_status (proc);
  if (r.out && *r.out && json_parser_load_from_data (parser, r.out, -1, NULL))
    r.json = json_node_copy (json_parser_get_root (parser));
  if (r.status != 0)
    g_test_message ("%s: exit %d: %s", first, r.status, r.err);
  g_assert_true (g_file_get_contents (path, points, NULL, NULL));
  g_unlink (path);
  return r;
}

/* POINTS hold no fit and no population refresh. */
static void
assert_no_fit (const char *points)
{
  g_test_message ("points: %s", points);
  g_assert_null (strstr (points, "fit-"));
  g_assert_null (strstr (points, "population-refresh"));
}

/* The model member of R's object (status: top level, or under MEMBER). */
static JsonObject *
model_of (const CliResult *r, const char *member)
{
  JsonObject *o = cli_object (r);
  if (member != NULL)
    o = json_object_get_object_member (o, member);
  g_assert_true (json_object_has_member (o, "model"));
  return json_object_get_object_member (o, "model");
}

/* Tells the open question ID of `skewgp ask ARGS` option 0 chosen. */
static void
tell_first (const CliResult *asked, const char *target, const char *participant)
{
  gint64 id = json_object_get_int_member (cli_object (asked), "question");
  g_autofree char *answer = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", "
                                             "\"answer\": {\"chosen\": 0}}", id);
  CliResult r = participant
                  ? cli_run_args (answer, "tell", target, "--participant", participant, "-", NULL)
                  : cli_run_args (answer, "tell", target, "-", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
}

static void
test_long_session (void)
{
  g_autofree char *dir = g_dir_make_tmp ("skewgp-scale-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "long.json", NULL);
  g_autofree char *fit = g_build_filename (dir, "long.fit", NULL);
  g_autofree char *points = NULL;
  JsonObject *model;
  CliResult r;

  scale_session_write (path, 2000, 3);

  /* beyond the exact model without a stored fit: refused, naming refit,
   * and nothing written */
  r = run_with_points (&points, NULL, "ask", path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "skewgp refit"));
  g_assert_cmpstr (r.out, ==, "");
  assert_no_fit (points);
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  r = run_with_points (&points, NULL, "refit", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (points, "fit-session"));
  g_assert_true (json_object_get_boolean_member (cli_object (&r), "refitted"));
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 2000);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "file"), ==, fit);
  model = model_of (&r, NULL);
  g_assert_cmpstr (json_object_get_string_member (model, "name"), ==,
                   "sparse variational, 200 inducing points");
  g_assert_cmpint (json_object_get_int_member (model, "fit_answers"), ==, 2000);
  g_assert_true (g_file_test (fit, G_FILE_TEST_IS_REGULAR));
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  /* two questions by the default rule (hb-ucb: its hallucination samples
   * the answers since the fit, the fit's pseudo-observations are
   * Gaussian rows), an answer between them: from the stored fit, no fit */
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);
    g_autoptr (SbSession) session = sb_session_load (file, NULL);
    g_assert_cmpint (sb_session_get_experiment (session)->acquisition, ==, SG_BO_ACQ_HB_UCB);
  }
  for (guint k = 0; k < 2; k++)
    {
      r = run_with_points (&points, NULL, "ask", path, NULL);
      g_assert_cmpint (r.status, ==, 0);
      assert_no_fit (points);
      g_assert_nonnull (strstr (points,
                                "question-proposed: sparse variational, 200 inducing points"));
      tell_first (&r, path, NULL);
      g_clear_pointer (&points, g_free);
      cli_result_clear (&r);
    }

  r = run_with_points (&points, NULL, "status", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_fit (points);
  model = model_of (&r, NULL);
  g_assert_cmpstr (json_object_get_string_member (model, "name"), ==,
                   "sparse variational, 200 inducing points");
  g_assert_cmpint (json_object_get_int_member (model, "answers"), ==, 2002);
  g_assert_cmpint (json_object_get_int_member (model, "fit_answers"), ==, 2000);
  g_assert_cmpint (json_object_get_int_member (model, "exact_answers"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (model, "inducing"), ==, 200);
  g_assert_false (json_object_get_boolean_member (model, "refit_due"));
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  /* two answers since a fit of 2,000 are not due (5% are) */
  r = run_with_points (&points, NULL, "refit", path, "--if-due", NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_fit (points);
  g_assert_false (json_object_get_boolean_member (cli_object (&r), "refitted"));
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  /* answers the fit saw undone (the two since and one of its own): the
   * stored fit is not used for other answers; the question is refused
   * naming why, not asked from it */
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);
    g_autoptr (GError) error = NULL;
    g_autoptr (SbSession) session = sb_session_load (file, &error);
    g_assert_no_error (error);
    for (guint k = 0; k < 3; k++)
      g_assert_true (sb_session_undo (session, &error));
    g_assert_no_error (error);
  }
  r = cli_run_args (NULL, "ask", path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "undone or removed"));
  g_assert_nonnull (strstr (r.err, "skewgp refit"));
  cli_result_clear (&r);

  remove_tree (dir);
}

static void
test_large_study (void)
{
  g_autofree char *root = g_dir_make_tmp ("skewgp-scale-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, "study", NULL);
  g_autofree char *cache = g_build_filename (dir, "population.fit", NULL);
  g_autofree char *points = NULL;
  const char *who[] = { "P7", "P31", "P7" };
  JsonObject *model;
  CliResult r;

  scale_study_write (dir, 50, 30, 9);
  /* the default experiment's hb-ucb became the population's ucb, so the
   * questions below come from the population model */
  {
    g_autoptr (SbStudy) study = sb_study_open (dir, NULL);
    g_assert_cmpint (sb_study_get_experiment (study)->acquisition, ==, SG_BO_ACQ_UCB);
  }

  /* 1,500 answers and no cache: refused naming refit */
  r = run_with_points (&points, NULL, "ask", dir, "--participant", "P7", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "skewgp refit"));
  assert_no_fit (points);
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  r = run_with_points (&points, NULL, "refit", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (points, "fit-population"));
  g_assert_nonnull (strstr (points, "population-refresh"));
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 1500);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "file"), ==, cache);
  model = model_of (&r, NULL);
  g_assert_cmpstr (json_object_get_string_member (model, "name"), ==,
                   "sparse variational population, 100 inducing points");
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  /* questions from the cache and each one's own answers, one told after
   * the cache among them: no fit, no refresh */
  for (guint k = 0; k < G_N_ELEMENTS (who); k++)
    {
      r = run_with_points (&points, NULL, "ask", dir, "--participant", who[k], NULL);
      g_assert_cmpint (r.status, ==, 0);
      assert_no_fit (points);
      g_assert_nonnull (strstr (points, "question-proposed: sparse variational population, "
                                        "100 inducing points"));
      tell_first (&r, dir, who[k]);
      g_clear_pointer (&points, g_free);
      cli_result_clear (&r);
    }

  /* status refreshes the cache (answers came since) without fitting */
  r = run_with_points (&points, NULL, "status", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (points, "population-refresh"));
  g_assert_null (strstr (points, "fit-"));
  model = model_of (&r, "population");
  g_assert_cmpstr (json_object_get_string_member (model, "name"), ==,
                   "sparse variational population, 100 inducing points");
  g_assert_cmpint (json_object_get_int_member (model, "answers"), ==, 1503);
  g_assert_cmpint (json_object_get_int_member (model, "fit_answers"), ==, 1503);
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  /* the refreshed cache saw every answer: a refit is not due */
  r = run_with_points (&points, NULL, "refit", dir, "--if-due", NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_no_fit (points);
  g_assert_false (json_object_get_boolean_member (cli_object (&r), "refitted"));
  g_clear_pointer (&points, g_free);
  cli_result_clear (&r);

  remove_tree (root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-scale/long-session", test_long_session);
  g_test_add_func ("/cli-scale/large-study", test_large_study);
  return g_test_run ();
}
