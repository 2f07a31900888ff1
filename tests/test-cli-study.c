/* test-cli-study.c — `skewgp study` and ask/tell/status/export with
 * --participant, run as the real binary: a study of two participants
 * answered to the end with repeats, the population status, history edits,
 * the long CSV (notes only when asked), and refusals with exit 2. */
#include "cli-harness.h"
#include "remove-tree.h"

#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>

static const char experiment[] =
  "{\"title\": \"Display\", \"mode\": \"preference\", \"budget\": 8, \"seed\": 4,\n"
  " \"parameters\": [{\"name\": \"gamma\", \"lower\": 1.8, \"upper\": 2.6},\n"
  "                {\"name\": \"brightness\", \"lower\": 0, \"upper\": 100, \"unit\": \"cd/m2\"}]}";

typedef struct {
  char *root;
  char *study;
} Fixture;

static void
set_up (Fixture *f, gconstpointer data)
{
  CliResult r;

  f->root = g_dir_make_tmp ("skewgp-study-XXXXXX", NULL);
  f->study = g_build_filename (f->root, "display", NULL);
  r = cli_run_args (experiment, "study", "new", "-", f->study, "--repeat-rate", "0.4", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (cli_object (&r), "repeat_rate"), ==, 0.4);
  cli_result_clear (&r);
}

static void
tear_down (Fixture *f, gconstpointer data)
{
  remove_tree (f->root);
  g_free (f->root);
  g_free (f->study);
}

/* Answers every question of CODE: the larger gamma wins, and at equal
 * gamma the larger brightness (a strict preference, so a repeated pair
 * is answered the same way whichever side each option is on: the
 * hierarchical duels often hold gamma at its bound). */
static guint
answer_all (Fixture *f, const char *code)
{
  guint n = 0;

  for (;;)
    {
      CliResult q = cli_run_args (NULL, "ask", f->study, "--participant", code, NULL);
      g_assert_cmpint (q.status, ==, 0);
      if (json_object_has_member (cli_object (&q), "done"))
        {
          cli_result_clear (&q);
          return n;
        }
      JsonArray *options = json_object_get_array_member (cli_object (&q), "options");
      double g0 = json_array_get_double_element (json_array_get_array_element (options, 0), 0);
      double g1 = json_array_get_double_element (json_array_get_array_element (options, 1), 0);
      double b0 = json_array_get_double_element (json_array_get_array_element (options, 0), 1);
      double b1 = json_array_get_double_element (json_array_get_array_element (options, 1), 1);
      g_autofree char *answer = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", "
                                                 "\"answer\": {\"chosen\": %d}, "
                                                 "\"response_time\": 0.8}",
                                                 json_object_get_int_member (cli_object (&q), "question"),
                                                 g1 > g0 || (g1 == g0 && b1 > b0));
      CliResult t = cli_run_args (answer, "tell", f->study, "--participant", code, "-", NULL);
      g_assert_cmpint (t.status, ==, 0);
      n++;
      cli_result_clear (&q);
      cli_result_clear (&t);
    }
}

static void
test_two_participants (Fixture *f, gconstpointer data)
{
  CliResult r = cli_run_args (NULL, "study", "add", f->study, "--code", "lab-1", "--note", "glasses", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "add", f->study, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *code = g_strdup (json_object_get_string_member (cli_object (&r), "participant"));
  g_assert_true (g_str_has_prefix (code, "P-") && strlen (code) == 6);
  cli_result_clear (&r);

  g_assert_cmpuint (answer_all (f, "lab-1"), ==, 8);
  g_assert_cmpuint (answer_all (f, code), ==, 8);

  /* The population: two participants, 16 answers; a consistent rule
   * agrees with itself on every repeat. */
  r = cli_run_args (NULL, "status", f->study, NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *pop = json_object_get_object_member (cli_object (&r), "population");
  g_assert_cmpint (json_object_get_int_member (pop, "included"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (pop, "answers"), ==, 16);
  g_assert_cmpint (json_object_get_int_member (pop, "done"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (pop, "repeats"), >, 0);
  g_assert_cmpint (json_object_get_int_member (pop, "repeats_agreeing"), ==,
                   json_object_get_int_member (pop, "repeats"));
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (cli_object (&r),
                                                                        "participants")), ==, 2);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "status", f->study, "--participant", "lab-1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "participant"), ==, "lab-1");
  g_assert_true (json_object_has_member (cli_object (&r), "consistency"));
  g_assert_true (json_object_get_boolean_member (cli_object (&r), "done"));
  cli_result_clear (&r);

  /* The export: a header and two rows per duel; notes only when asked. */
  r = cli_run_args (NULL, "export", f->study, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "study,participant,question,trial,kind,option,gamma,brightness,"
                   "shown_position,answer,tie,rank,value,confidence,response_time,time");
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 32 + 1);
  g_assert_true (g_str_has_prefix (lines[1], "display,lab-1,1,1,duel,0,"));
  g_assert_null (strstr (r.out, "glasses"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "export", f->study, "--participant", "lab-1", "--with-notes", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, ",note,participant_note\n"));
  g_assert_nonnull (strstr (r.out, ",glasses\n"));
  g_assert_null (strstr (r.out, code));
  cli_result_clear (&r);

  /* An answer removed: not exported, one question more to ask; restored. */
  r = cli_run_args (NULL, "study", "remove", f->study, "--participant", "lab-1", "--answer", "2",
           "--by", "experimenter", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 7);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "export", f->study, "--participant", "lab-1", NULL);
  g_assert_null (strstr (r.out, "display,lab-1,2,2,"));
  g_assert_nonnull (strstr (r.out, "display,lab-1,3,3,"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "ask", f->study, "--participant", "lab-1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (json_object_has_member (cli_object (&r), "question"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "restore", f->study, "--participant", "lab-1", "--answer", "2", NULL);
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 8);
  cli_result_clear (&r);

  /* Withdrawn: nothing more is asked. */
  r = cli_run_args (NULL, "study", "set", f->study, "--participant", code, "--status", "withdrawn", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "ask", f->study, "--participant", code, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "withdrawn"));
  cli_result_clear (&r);
}

static void
test_refusals (Fixture *f, gconstpointer data)
{
  g_autofree char *index = g_build_filename (f->study, "study.json", NULL);
  g_autofree char *text = NULL;
  CliResult r;

  r = cli_run_args (NULL, "study", "add", f->study, "--code", "Jane Doe", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "only letters"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "add", f->study, "--code", "p1", NULL);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "add", f->study, "--code", "P1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "taken"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "ask", f->study, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--participant"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "ask", f->study, "--participant", "nobody", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no participant 'nobody'"));
  cli_result_clear (&r);
  r = cli_run_args (experiment, "study", "new", "-", f->study, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "exists"));
  cli_result_clear (&r);

  /* A damaged index: refused with its place, and left as it is. */
  g_assert_true (g_file_get_contents (index, &text, NULL, NULL));
  g_autofree char *bad = g_strdup (text);
  *strstr (bad, "\"participants\"") = '{';
  g_assert_true (g_file_set_contents (index, bad, -1, NULL));
  r = cli_run_args (NULL, "status", f->study, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "study.json:"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "add", f->study, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  g_autofree char *after = NULL;
  g_assert_true (g_file_get_contents (index, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, bad);

  r = cli_run_args (NULL, "study", "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--repeat-rate"));
  cli_result_clear (&r);
}

/* The study at F->study with its index's "model" member replaced by
 * MEMBER (NULL: removed, as in a study written before it existed). */
static void
set_model_member (Fixture *f, const char *member)
{
  g_autofree char *index = g_build_filename (f->study, "study.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (index, &text, NULL, NULL));
  char *at = strstr (text, "\"model\": \"hierarchical\",");
  g_assert_nonnull (at);
  g_autoptr (GString) out = g_string_new_len (text, at - text);
  if (member)
    g_string_append (out, member);
  g_string_append (out, at + strlen ("\"model\": \"hierarchical\","));
  g_assert_true (g_file_set_contents (index, out->str, -1, NULL));
}

/* A new study at F->study (repeat rate 0, so no repeat stands in for a
 * proposal) with its model MEMBER (see set_model_member), and three
 * answers of participants A and B each (option 1 always chosen). */
static void
study_with_answers (Fixture *f, const char *member, gboolean replace)
{
  CliResult r;

  remove_tree (f->study);
  r = cli_run_args (experiment, "study", "new", "-", f->study, "--repeat-rate", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  if (replace)
    set_model_member (f, member);
  r = cli_run_args (NULL, "study", "add", f->study, "--code", "A", NULL);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "add", f->study, "--code", "B", NULL);
  cli_result_clear (&r);
  for (guint i = 0; i < 3; i++)
    for (const char *const *c = (const char *const[]) { "A", "B", NULL }; *c; c++)
      {
        CliResult q = cli_run_args (NULL, "ask", f->study, "--participant", *c, NULL);
        g_assert_cmpint (q.status, ==, 0);
        g_autofree char *answer = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", "
                                                   "\"answer\": {\"chosen\": 1}}",
                                                   json_object_get_int_member (cli_object (&q),
                                                                               "question"));
        CliResult t = cli_run_args (answer, "tell", f->study, "--participant", *c, "-", NULL);
        g_assert_cmpint (t.status, ==, 0);
        cli_result_clear (&q);
        cli_result_clear (&t);
      }
}

/* The next question of B (its JSON text), asked through the study, or
 * with ALONE of a copy of B's session file as a lone session (its own
 * model, the behaviour of a study before the "model" field). */
static char *
ask_b (Fixture *f, gboolean alone)
{
  g_autofree char *session = g_build_filename (f->study, "participants", "B.json", NULL);
  g_autofree char *copy = g_build_filename (f->root, "B-alone.json", NULL);
  g_autofree char *text = NULL;
  CliResult r;
  char *out;

  if (alone)
    {
      g_assert_true (g_file_get_contents (session, &text, NULL, NULL));
      g_assert_true (g_file_set_contents (copy, text, -1, NULL));
      r = cli_run_args (NULL, "ask", copy, NULL);
    }
  else
    r = cli_run_args (NULL, "ask", f->study, "--participant", "B", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "kind"), ==, "duel");
  out = g_strdup (r.out);
  cli_result_clear (&r);
  g_unlink (copy);
  return out;
}

/* A study.json without "model" (written before it existed) asks as
 * before: B's question through the study is the one B's session proposes
 * alone. With the default hierarchical model the question differs from
 * that one (so the comparison can fail), is stored (asked again, the
 * same) and answerable; status reports the population model and export
 * --model writes it. */
static void
test_model_option (Fixture *f, gconstpointer data)
{
  g_autofree char *old = NULL, *old_alone = NULL, *hier = NULL, *hier_alone = NULL;
  g_autofree char *again = NULL;
  CliResult r;

  study_with_answers (f, NULL, TRUE);
  old_alone = ask_b (f, TRUE);
  old = ask_b (f, FALSE);
  g_assert_cmpstr (old, ==, old_alone);

  study_with_answers (f, NULL, FALSE);
  hier_alone = ask_b (f, TRUE);
  hier = ask_b (f, FALSE);
  g_test_message ("independent: %s\nhierarchical: %s", old, hier);
  g_assert_cmpstr (hier, !=, hier_alone);
  again = ask_b (f, FALSE);
  g_assert_cmpstr (again, ==, hier);
  {
    g_autoptr (JsonParser) parser = json_parser_new ();
    g_assert_true (json_parser_load_from_data (parser, hier, -1, NULL));
    g_autofree char *answer = g_strdup_printf (
      "{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"chosen\": 0}}",
      json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)),
                                  "question"));
    r = cli_run_args (answer, "tell", f->study, "--participant", "B", "-", NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 4);
    cli_result_clear (&r);
  }

  r = cli_run_args (NULL, "status", f->study, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "model"), ==, "hierarchical");
  JsonObject *pop = json_object_get_object_member (cli_object (&r), "population");
  g_assert_cmpint (json_object_get_int_member (pop, "answers"), ==, 7);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (pop, "best")), ==, 2);
  JsonArray *interval = json_object_get_array_member (pop, "interval");
  double mean = json_object_get_double_member (pop, "mean");
  g_assert_cmpfloat (json_array_get_double_element (interval, 0), <, mean);
  g_assert_cmpfloat (mean, <, json_array_get_double_element (interval, 1));
  g_assert_true (json_object_has_member (json_object_get_object_member (pop, "hyperparameters"),
                                         "individual"));
  JsonObject *a = json_array_get_object_element (json_object_get_array_member (cli_object (&r),
                                                                               "participants"), 0);
  double pr = json_object_get_double_member (a, "prob_best_differs");
  g_assert_true (pr >= 0 && pr <= 1);
  g_assert_true (json_object_has_member (a, "se"));
  cli_result_clear (&r);

  g_autofree char *model_path = g_build_filename (f->root, "model.json", NULL);
  r = cli_run_args (NULL, "export", f->study, "--model", model_path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  g_autofree char *model = NULL;
  g_assert_true (g_file_get_contents (model_path, &model, NULL, NULL));
  g_assert_nonnull (strstr (model, "\"format\": \"skewbench-population-model\""));
  g_assert_nonnull (strstr (model, "\"prob_best_differs\""));
  r = cli_run_args (NULL, "export", f->study, "--model", model_path, "--wide", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
}

/* A study's best settings read as ask's options do: a categorical
 * parameter by its level's name, in status and in the exported model. */
static void
test_levels_in_status (Fixture *f, gconstpointer data)
{
  static const char exp[] =
    "{\"title\": \"Fonts\", \"mode\": \"preference\", \"budget\": 6, \"seed\": 4,"
    " \"parameters\": [{\"name\": \"size\", \"lower\": 8, \"upper\": 64, \"scale\": \"log\"},"
    " {\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"serif\", \"sans\", \"mono\"]}]}";
  g_autofree char *dir = g_build_filename (f->root, "fonts", NULL);
  CliResult r = cli_run_args (exp, "study", "new", "-", dir, NULL);

  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "study", "add", dir, "--code", "A", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  for (guint i = 0; i < 3; i++)
    {
      CliResult q = cli_run_args (NULL, "ask", dir, "--participant", "A", NULL);
      g_assert_cmpint (q.status, ==, 0);
      g_autofree char *answer = g_strdup_printf (
        "{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"chosen\": 0}}",
        json_object_get_int_member (cli_object (&q), "question"));
      CliResult t = cli_run_args (answer, "tell", dir, "--participant", "A", "-", NULL);
      g_assert_cmpint (t.status, ==, 0);
      cli_result_clear (&q);
      cli_result_clear (&t);
    }
  r = cli_run_args (NULL, "status", dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonArray *best = json_object_get_array_member (
    json_object_get_object_member (cli_object (&r), "population"), "best");
  g_assert_cmpuint (json_node_get_value_type (json_array_get_element (best, 1)), ==, G_TYPE_STRING);
  const char *font = json_array_get_string_element (best, 1);
  g_assert_true (g_str_equal (font, "serif") || g_str_equal (font, "sans")
                 || g_str_equal (font, "mono"));
  JsonObject *a = json_array_get_object_element (
    json_object_get_array_member (cli_object (&r), "participants"), 0);
  g_assert_cmpuint (json_node_get_value_type (
    json_array_get_element (json_object_get_array_member (a, "best"), 1)), ==, G_TYPE_STRING);
  cli_result_clear (&r);
}

/* An unknown model is refused: in study.json (naming the member and its
 * place, exit 2) and in study new --model. */
static void
test_model_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *other = g_build_filename (f->root, "other", NULL);
  CliResult r;

  set_model_member (f, "\"model\": \"bayesian\",");
  r = cli_run_args (NULL, "status", f->study, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "study.json:"));
  g_assert_nonnull (strstr (r.err, "unknown model 'bayesian'"));
  cli_result_clear (&r);
  r = cli_run_args (experiment, "study", "new", "-", other, "--model", "pooled", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "unknown --model 'pooled'"));
  g_assert_false (g_file_test (other, G_FILE_TEST_EXISTS));
  cli_result_clear (&r);
  r = cli_run_args (experiment, "study", "new", "-", other, "--model", "independent", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "model"), ==, "independent");
  cli_result_clear (&r);
}

/* examples/ask-tell-study-many.sh on a small study (4 people, 3 duels
 * each): it runs to the end, times every ask and tell, and the study's
 * status after it has every answer, each person done, and the population
 * model the questions used. */
static void
test_many_example (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "..", "examples",
                                                   "ask-tell-study-many.sh", NULL);
  g_autofree char *dir = g_dir_make_tmp ("skewgp-many-XXXXXX", NULL);
  g_autofree char *study = g_build_filename (dir, "study", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                           &error, "/bin/sh", script, study, "4", "3", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  if (g_subprocess_get_exit_status (proc) != 0)
    g_test_message ("stderr: %s", err);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_true (g_str_has_prefix (out, "ask: 12 commands, median "));
  g_assert_nonnull (strstr (out, "\ntell: 12 commands, median "));
  g_assert_true (json_parser_load_from_data (parser, strchr (out, '{'), -1, &error));
  g_assert_no_error (error);
  JsonObject *status = json_node_get_object (json_parser_get_root (parser));
  JsonArray *people = json_object_get_array_member (status, "participants");
  g_assert_cmpuint (json_array_get_length (people), ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_true (json_object_get_boolean_member (json_array_get_object_element (people, i),
                                                   "done"));
  JsonObject *pop = json_object_get_object_member (status, "population");
  g_assert_cmpint (json_object_get_int_member (pop, "answers"), ==, 12);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (pop, "model"),
                                               "answers"), ==, 12);
  remove_tree (dir);
}

/* A roster entry whose session file is gone: status STUDY still reports
 * everyone else and the population of the readable ones, and names the
 * lost file on that participant's entry (it used to fail for all). */
static void
test_lost_file (Fixture *f, gconstpointer data)
{
  const char *codes[] = { "lab-1", "lab-2", "lab-3" };
  for (guint i = 0; i < 3; i++)
    {
      CliResult r = cli_run_args (NULL, "study", "add", f->study, "--code", codes[i], NULL);
      g_assert_cmpint (r.status, ==, 0);
      cli_result_clear (&r);
      g_assert_cmpuint (answer_all (f, codes[i]), ==, 8);
    }
  g_autofree char *lost = g_build_filename (f->study, "participants", "lab-2.json", NULL);
  g_assert_cmpint (g_unlink (lost), ==, 0);

  CliResult r = cli_run_args (NULL, "status", f->study, NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonArray *people = json_object_get_array_member (cli_object (&r), "participants");
  g_assert_cmpuint (json_array_get_length (people), ==, 3);
  JsonObject *gone = json_array_get_object_element (people, 1);
  g_assert_cmpstr (json_object_get_string_member (gone, "code"), ==, "lab-2");
  g_assert_nonnull (strstr (json_object_get_string_member (gone, "error"), "lab-2.json"));
  g_assert_false (json_object_has_member (gone, "answers"));
  for (guint i = 0; i < 3; i += 2)
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (people, i),
                                                 "answers"), ==, 8);
  JsonObject *pop = json_object_get_object_member (cli_object (&r), "population");
  g_assert_cmpint (json_object_get_int_member (pop, "included"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (pop, "unreadable"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (pop, "answers"), ==, 16);
  g_assert_false (json_node_is_null (json_object_get_member (pop, "best")));
  cli_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/cli/study/two-participants", Fixture, NULL, set_up, test_two_participants,
              tear_down);
  g_test_add ("/cli/study/refusals", Fixture, NULL, set_up, test_refusals, tear_down);
  g_test_add ("/cli/study/model-option", Fixture, NULL, set_up, test_model_option, tear_down);
  g_test_add ("/cli/study/levels-in-status", Fixture, NULL, set_up, test_levels_in_status,
              tear_down);
  g_test_add ("/cli/study/model-refused", Fixture, NULL, set_up, test_model_refused, tear_down);
  g_test_add ("/cli/study/lost-file", Fixture, NULL, set_up, test_lost_file, tear_down);
  g_test_add_func ("/cli/study/many-example", test_many_example);
  return g_test_run ();
}
