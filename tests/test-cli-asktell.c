/* test-cli-asktell.c — `skewgp new / ask / tell / status / export` end to
 * end: each command as documented, the same question until it is
 * answered, stale and unknown answers refused with the file byte-identical,
 * a second writer refused naming the holder, a 25-question study against a
 * simulated participant that converges, and the example shell client. */
#include "cli-harness.h"
#include "remove-tree.h"
#include "sb-file-lock.h"
#include "sb-session.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static char *
read_file (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

typedef struct {
  char *dir;
  char *experiment;
  char *session;
} Study;

/* A 2-D preference experiment: gain in [0, 10] dB, offset in [-5, 5]. */
static const char experiment_json[] =
  "{\"title\": \"Gain and offset\", \"mode\": \"preference\",\n"
  " \"parameters\": [{\"name\": \"gain\", \"lower\": 0, \"upper\": 10, \"unit\": \"dB\"},\n"
  "                {\"name\": \"offset\", \"lower\": -5, \"upper\": 5, \"scale\": \"linear\"}],\n"
  " \"budget\": 25, \"question\": {\"kind\": \"duel\", \"options\": 2}, \"seed\": 7}\n";

static void
study_init (Study *s, const char *experiment)
{
  s->dir = g_dir_make_tmp ("skewgp-asktell-XXXXXX", NULL);
  g_assert_nonnull (s->dir);
  s->experiment = g_build_filename (s->dir, "experiment.json", NULL);
  s->session = g_build_filename (s->dir, "session.json", NULL);
  g_assert_true (g_file_set_contents (s->experiment, experiment, -1, NULL));
}

static void
study_clear (Study *s)
{
  g_autoptr (GDir) d = g_dir_open (s->dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (s->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (s->dir);
  g_free (s->dir);
  g_free (s->experiment);
  g_free (s->session);
}

static void
study_new (Study *s)
{
  CliResult r = cli_run_args (NULL, "new", s->experiment, s->session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "session"), ==, s->session);
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "budget"), ==, 25);
  cli_result_clear (&r);
}

/* Asserts a refusal: exit 2, nothing on stdout, one stderr line holding
 * NEEDLE, and the session file byte-identical. */
static void
assert_refused (const Study *s, CliResult *r, const char *before, const char *needle)
{
  g_autofree char *after = read_file (s->session);

  g_assert_cmpint (r->status, ==, 2);
  g_assert_cmpstr (r->out, ==, "");
  g_assert_nonnull (strstr (r->err, needle));
  g_assert_true (strchr (r->err, '\n') == r->err + strlen (r->err) - 1);
  g_assert_cmpstr (after, ==, before);
  cli_result_clear (r);
}

static void
test_new (void)
{
  static const struct { const char *json; const char *needle; } bad[] = {
#define ONE_SCALED(param) \
    "{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 5, \"parameters\": [" param "]}"
    { ONE_SCALED ("{\"name\": \"x\", \"lower\": 0, \"upper\": 10, \"scale\": \"log\"}"),
      "parameter 'x': a log scale needs 'lower' above 0" },
    { ONE_SCALED ("{\"name\": \"x\", \"lower\": 1, \"upper\": 10, \"scale\": \"cubic\"}"),
      "parameter 'x': unknown scale 'cubic'" },
    { ONE_SCALED ("{\"name\": \"x\", \"lower\": 0.5, \"upper\": 10, \"scale\": \"integer\"}"),
      "parameter 'x': an integer parameter needs whole-number 'lower' and 'upper'" },
    { ONE_SCALED ("{\"name\": \"f\", \"scale\": \"categorical\"}"),
      "field 'lower' is required" },
    { ONE_SCALED ("{\"name\": \"f\", \"scale\": \"categorical\", \"levels\": [\"a\", \"b\", \"a\"]}"),
      "parameter 'f': 'levels': 'a' is listed twice" },
    { ONE_SCALED ("{\"name\": \"f\", \"scale\": \"categorical\", \"levels\": [\"a\"]}"),
      "'levels' must be an array of 2 or more names" },
    { ONE_SCALED ("{\"name\": \"f\", \"scale\": \"categorical\", \"levels\": [\"a\", 2]}"),
      "level 2 of 'levels' is not a string" },
    { ONE_SCALED ("{\"name\": \"f\", \"scale\": \"categorical\", \"levels\": [\"a\", \"b\"], "
                  "\"resolution\": 0.5}"),
      "parameter 'f': 'resolution' has no meaning for categorical levels" },
    { ONE_SCALED ("{\"name\": \"x\", \"lower\": 0, \"upper\": 1, \"levels\": [\"a\", \"b\"]}"),
      "parameter 'x': 'levels' belong to a categorical parameter, not a linear one" },
    { ONE_SCALED ("{\"name\": \"h\", \"lower\": 0, \"upper\": 360, \"scale\": \"periodic\", "
                  "\"resolution\": 200}"),
      "parameter 'h': 'resolution' 200 must be below half the period 360" },
    { "{\"title\": \"t\", \"mode\": \"active\", \"budget\": 5, \"parameters\": "
      "[{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}", "unknown mode 'active'" },
    { "{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 5, \"parameters\": "
      "[{\"name\": \"x\", \"lower\": 1, \"upper\": 0}]}", "'lower' must be below 'upper'" },
#define ONE_PARAMETER(mode, rest) \
    "{\"title\": \"t\", \"mode\": \"" mode "\", \"budget\": 5, \"parameters\": " \
    "[{\"name\": \"x\", \"lower\": 0, \"upper\": 1}], " rest "}"
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"ranking\"}"),
      "a ranking question needs \"options\": k (3 to 6)" },
    { ONE_PARAMETER ("preference", "\"stimulus\": {\"kind\": \"image\", "
                     "\"command\": \"draw --x {y} -o {output}\"}"),
      "unknown placeholder {y} in \"draw --x {y} -o {output}\" (known: {x}, {output})" },
    { ONE_PARAMETER ("preference", "\"stimulus\": {\"kind\": \"sound\", "
                     "\"command\": \"synth --x {x}\"}"),
      "'command' must name the file it writes as {output}" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"choice\", \"options\": 2}"),
      "two options are a duel" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"choice\", \"options\": 7}"),
      "field 'options'" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"duel\", \"options\": 3}"),
      "a duel shows 2 options, not 3" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"best\"}"),
      "unknown question kind 'best'" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"choice\", \"options\": 4, "
                     "\"ties\": true}"), "\"ties\" applies to duels, not to choice questions" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"choice\", \"options\": 4}, "
                     "\"surrogate\": \"laplace\""),
      "choices need the 'skewgp' surrogate ('laplace' cannot represent them)" },
    { ONE_PARAMETER ("preference", "\"question\": {\"kind\": \"duel\", \"ties\": true}, "
                     "\"surrogate\": \"ep\""),
      "ties need the 'skewgp' surrogate ('ep' cannot represent them)" },
    { ONE_PARAMETER ("safe", "\"question\": {\"kind\": \"ranking\", \"options\": 3}"),
      "safe mode asks for values, not choices or rankings" },
    { "{\"title\": \"t\", \"mode\": \"preference\", \"parameters\": "
      "[{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}", "field 'budget' is required" },
    { ONE_PARAMETER ("preference", "\"confidence_scale\": {\"kind\": \"rating\", \"levels\": 8}"),
      "'confidence_scale' of kind \"rating\" needs \"levels\": a whole number from 2 to 7" },
    { ONE_PARAMETER ("preference", "\"confidence_scale\": {\"kind\": \"likert\"}"),
      "'confidence_scale' kind 'likert' is unknown" },
    { ONE_PARAMETER ("preference", "\"confidence_scale\": \"words\""),
      "'confidence_scale' must be an object" },
    { ONE_PARAMETER ("preference", "\"question_text\": \"\""), "'question_text' is empty" },
    { ONE_PARAMETER ("preference", "\"question_text\": 3"), "question_text" },
    { "{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 5, \"colour\": 1, "
      "\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}",
      "unknown field 'colour'" },
  };
  Study s;
  g_autofree char *before = NULL;
  CliResult r;

  study_init (&s, experiment_json);
  study_new (&s);
  before = read_file (s.session);
  g_assert_nonnull (strstr (before, "\"format\": \"skewbench-session\""));
  /* An existing session is never overwritten. */
  r = cli_run_args (NULL, "new", s.experiment, s.session, NULL);
  assert_refused (&s, &r, before, "exists already");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *other = g_build_filename (s.dir, "other.json", NULL);
      r = cli_run_args (bad[i].json, "new", "-", other, NULL);
      if (!strstr (r.err, bad[i].needle))
        g_test_message ("expected '%s', got %s", bad[i].needle, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, bad[i].needle));
      g_assert_false (g_file_test (other, G_FILE_TEST_EXISTS));
      cli_result_clear (&r);
    }
  study_clear (&s);
}

/* Every acquisition of the engine is accepted by its engine name and
 * kept in the session; `new --help` lists each with its source (the text
 * of `bo --help`); an unknown name is refused naming the field and
 * listing the known ones; the rules added after paper 001's (qeubo duels,
 * the believers, dueling Thompson, maximally uncertain challenge) ask
 * and take three questions each past the initial design. */
static void
test_new_every_acquisition (void)
{
  const char *names[] = { "ucb", "eiig", "epi", "thompson", "qeubo", "hb-ei", "hb-ucb", "dts",
                          "muc" };
  CliResult help = cli_run_args (NULL, "new", "--help", NULL);
  CliResult bo_help = cli_run_args (NULL, "bo", "--help", NULL);

  g_assert_cmpint (help.status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *entry = g_strdup_printf ("\n  %-9s ", names[i]);
      const char *in_new = strstr (help.out, entry), *in_bo = strstr (bo_help.out, entry);
      g_assert_nonnull (in_new);
      g_assert_nonnull (in_bo);
      /* the same entry, up to the end of its first line */
      g_assert_cmpint (strcspn (in_new + 1, "\n"), ==, strcspn (in_bo + 1, "\n"));
      g_assert_true (strncmp (in_new, in_bo, strcspn (in_bo + 1, "\n")) == 0);
    }
  g_assert_nonnull (strstr (help.out, "Takeno et al., ICML 2023"));
  g_assert_nonnull (strstr (help.out, "Fauvel & Chalk 2021"));
  cli_result_clear (&help);
  cli_result_clear (&bo_help);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *json = g_strdup_printf (
        "{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 10, \"initial\": 1, "
        "\"seed\": 3, \"acquisition\": \"%s\", "
        "\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}", names[i]);
      g_autofree char *text = NULL;
      g_autofree char *named = g_strdup_printf ("\"acquisition\": \"%s\"", names[i]);
      gboolean new_rule = i >= 4;
      Study s;
      CliResult r;

      study_init (&s, json);
      r = cli_run_args (NULL, "new", s.experiment, s.session, NULL);
      g_assert_cmpint (r.status, ==, 0);
      cli_result_clear (&r);
      text = read_file (s.session);
      g_assert_nonnull (strstr (text, named));
      for (int q = 1; new_rule && q <= 4; q++)
        {
          g_autofree char *answer = g_strdup_printf ("{\"question\": %d, \"answer\": "
                                                     "{\"chosen\": %d}}", q, q % 2);
          r = cli_run_args (NULL, "ask", s.session, NULL);
          g_assert_cmpint (r.status, ==, 0);
          g_assert_cmpint (json_object_get_int_member (cli_object (&r), "question"), ==, q);
          cli_result_clear (&r);
          r = cli_run_args (answer, "tell", s.session, "-", NULL);
          g_assert_cmpint (r.status, ==, 0);
          g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, q);
          cli_result_clear (&r);
        }
      study_clear (&s);
    }

  {
    Study s;
    CliResult r;
    study_init (&s, experiment_json);
    r = cli_run_args ("{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 5, "
             "\"acquisition\": \"hb-pi\", "
             "\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}",
             "new", "-", s.session, NULL);
    g_assert_cmpint (r.status, ==, 2);
    g_assert_nonnull (strstr (r.err, "unknown acquisition 'hb-pi' (expected 'ucb', 'eiig', "
                                     "'epi', 'thompson', 'qeubo', 'hb-ei', 'hb-ucb', 'dts' "
                                     "or 'muc'"));
    g_assert_false (g_file_test (s.session, G_FILE_TEST_EXISTS));
    cli_result_clear (&r);
    r = cli_run_args ("{\"title\": \"t\", \"mode\": \"mixed\", \"budget\": 5, "
             "\"acquisition\": \"hb-ucb\", "
             "\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}",
             "new", "-", s.session, NULL);
    g_assert_cmpint (r.status, ==, 2);
    g_assert_nonnull (strstr (r.err, "'hb-ucb' asks preference-mode duels only"));
    cli_result_clear (&r);
    study_clear (&s);
  }
}

/* status reports the answered setting of largest posterior mean, not the
 * last winner: gain 8 beat four settings, then (1, -4) won one duel far
 * away, against (0, 4). The last winner is the engine's x_r (the duel's
 * incumbent); the recommendation is (8, 0). */
/* An experiment that names no acquisition asks by the measured default
 * of its mode, question, surrogate and number of parameters, and its
 * session says which: hb-ucb for preference duels of up to 4 parameters
 * with the exact SkewGP (ties and integer parameters too), ucb from 5,
 * in mixed and safe mode and with a Gaussian surrogate, qeubo for
 * choices; a named one is kept. A hierarchical
 * study of the default experiment asks by ucb and says so; an
 * independent one keeps hb-ucb. */
static void
test_new_default_acquisition (void)
{
#define ONE_X(mode, rest) \
    "{\"title\": \"t\", \"mode\": \"" mode "\", \"budget\": 5, \"parameters\": " \
    "[{\"name\": \"x\", \"lower\": 0, \"upper\": 4" rest
  static const struct { const char *json; const char *acquisition; } cases[] = {
    { ONE_X ("preference", "}]}"), "hb-ucb" },
    { ONE_X ("preference", "}], \"question\": {\"kind\": \"duel\", \"ties\": true}}"),
      "hb-ucb" },
    { ONE_X ("preference", ", \"scale\": \"integer\"}]}"), "hb-ucb" },
    { ONE_X ("preference", "}], \"surrogate\": \"laplace\"}"), "ucb" },
    { ONE_X ("preference", "}], \"surrogate\": \"random\"}"), "ucb" },
    { ONE_X ("preference", "}], \"acquisition\": \"ucb\"}"), "ucb" },
    { ONE_X ("preference", "}], \"question\": {\"kind\": \"choice\", \"options\": 3}}"),
      "qeubo" },
    { ONE_X ("mixed", "}]}"), "ucb" },
    { ONE_X ("preference", "}, {\"name\": \"y\", \"lower\": 0, \"upper\": 1}, "
             "{\"name\": \"z\", \"lower\": 0, \"upper\": 1}, "
             "{\"name\": \"u\", \"lower\": 0, \"upper\": 1}]}"), "hb-ucb" },
    { ONE_X ("preference", "}, {\"name\": \"y\", \"lower\": 0, \"upper\": 1}, "
             "{\"name\": \"z\", \"lower\": 0, \"upper\": 1}, "
             "{\"name\": \"u\", \"lower\": 0, \"upper\": 1}, "
             "{\"name\": \"v\", \"lower\": 0, \"upper\": 1}]}"), "ucb" },
    { ONE_X ("safe", "}], \"threshold\": 0, \"safe_start\": [1]}"), "ucb" },
  };
#undef ONE_X
  g_autofree char *dir = g_dir_make_tmp ("skewgp-default-acq-XXXXXX", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/s%u.json", dir, i);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (SbSession) session = NULL;
      g_autoptr (GError) error = NULL;
      CliResult r = cli_run_args (cases[i].json, "new", "-", path, NULL);

      if (r.status != 0)
        g_test_message ("case %u: %s", i, r.err);
      g_assert_cmpint (r.status, ==, 0);
      /* `new` says which rule it wrote (safe mode has none) */
      if (g_str_equal (json_object_get_string_member (cli_object (&r), "mode"), "safe"))
        g_assert_false (json_object_has_member (cli_object (&r), "acquisition"));
      else
        g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "acquisition"), ==,
                         cases[i].acquisition);
      cli_result_clear (&r);
      session = sb_session_load (file, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (sg_bo_acquisition_name (sb_session_get_experiment (session)->acquisition),
                       ==, cases[i].acquisition);
    }
  for (int independent = 0; independent <= 1; independent++)
    {
      g_autofree char *study = g_strdup_printf ("%s/study%d", dir, independent);
      CliResult r = cli_run_args (cases[0].json, "study", "new", "-", study,
                                  independent ? "--model" : NULL, "independent", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "model"), ==,
                       independent ? "independent" : "hierarchical");
      g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "acquisition"), ==,
                       independent ? "hb-ucb" : "ucb");
      cli_result_clear (&r);
    }
  remove_tree (dir);
}

static void
test_status_best_mean (void)
{
  const double duels[][4] = { { 8, 0, 2, 1 }, { 8, 0, 5, -3 }, { 8, 0, 1, 4 }, { 8, 0, 3, -1 },
                              { 1, -4, 0, 4 } };
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;
  Study s;
  CliResult r;
  JsonArray *best;

  g_assert_true (sb_experiment_add_parameter (exp, "gain", "dB", 0.0, 10.0));
  g_assert_true (sb_experiment_add_parameter (exp, "offset", "", -5.0, 5.0));
  exp->budget = 10;
  exp->initial = 2;
  exp->seed = 11;
  session = sb_session_new (exp);
  for (guint i = 0; i < G_N_ELEMENTS (duels); i++)
    g_assert_true (sb_session_add_duel (session, duels[i], duels[i] + 2, 0, &error));
  study_init (&s, experiment_json);
  file = g_file_new_for_path (s.session);
  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_no_error (error);

  r = cli_run_args (NULL, "status", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  best = json_object_get_array_member (cli_object (&r), "best");
  g_test_message ("best (%g, %g)", json_array_get_double_element (best, 0),
                  json_array_get_double_element (best, 1));
  g_assert_cmpfloat (json_array_get_double_element (best, 0), ==, 8);
  g_assert_cmpfloat (json_array_get_double_element (best, 1), ==, 0);
  g_assert_false (json_object_get_null_member (cli_object (&r), "best_mean"));
  cli_result_clear (&r);
  study_clear (&s);
}

/* The image experiment of examples/stimulus-face makes a session that
 * keeps its stimulus. */
static void
test_new_stimulus_example (void)
{
  g_autofree char *example = g_test_build_filename (G_TEST_DIST, "..", "examples",
                                                    "stimulus-face", "experiment.json", NULL);
  g_autofree char *text = NULL;
  Study s;
  CliResult r;

  study_init (&s, experiment_json);
  r = cli_run_args (NULL, "new", example, s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  text = read_file (s.session);
  g_assert_nonnull (strstr (text, "\"kind\": \"image\""));
  g_assert_nonnull (strstr (text, "./render-face.sh --width {width} --smile {smile} -o {output}"));
  study_clear (&s);
}

static void
test_ask_tell_status_export (void)
{
  Study s;
  CliResult first, again, told, status, csv;
  g_autofree char *after_ask = NULL, *after_again = NULL, *csv_path = NULL, *csv_text = NULL;

  study_init (&s, experiment_json);
  study_new (&s);

  /* ask: the question, then the very same output without writing. */
  first = cli_run_args (NULL, "ask", s.session, NULL);
  g_assert_cmpint (first.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (cli_object (&first), "question"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&first), "kind"), ==, "duel");
  JsonArray *options = json_object_get_array_member (cli_object (&first), "options");
  g_assert_cmpuint (json_array_get_length (options), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_array_get_array_element (options, 0)), ==, 2);
  JsonArray *order = json_object_get_array_member (cli_object (&first), "shown_order");
  g_assert_cmpuint (json_array_get_length (order), ==, 2);
  g_assert_cmpint (json_array_get_int_element (order, 0) + json_array_get_int_element (order, 1),
                   ==, 1);
  g_assert_cmpuint (json_object_get_size (cli_object (&first)), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&first), "question_text"), ==,
                   "Which setting works better?");
  JsonObject *scale = json_object_get_object_member (cli_object (&first), "confidence_scale");
  g_assert_cmpstr (json_object_get_string_member (scale, "kind"), ==, "words");
  after_ask = read_file (s.session);
  again = cli_run_args (NULL, "ask", s.session, NULL);
  g_assert_cmpint (again.status, ==, 0);
  g_assert_cmpstr (again.out, ==, first.out);
  after_again = read_file (s.session);
  g_assert_cmpstr (after_again, ==, after_ask);

  /* a number is refused under the words scale, naming the words */
  g_autofree char *before_tell = read_file (s.session);
  told = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 1}, \"confidence\": 3}",
                       "tell", s.session, "-", NULL);
  assert_refused (&s, &told, before_tell, "it takes \"weak\", \"normal\" or \"strong\"");

  /* tell, with the optional details. */
  told = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 1}, \"response_time\": 2.5, "
              "\"confidence\": \"strong\"}", "tell", s.session, "-", NULL);
  g_assert_cmpint (told.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (cli_object (&told), "recorded"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (cli_object (&told), "answers"), ==, 1);
  g_assert_false (json_object_get_boolean_member (cli_object (&told), "done"));

  /* status: the winner is the incumbent. */
  status = cli_run_args (NULL, "status", s.session, NULL);
  g_assert_cmpint (status.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (cli_object (&status), "answers"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (cli_object (&status), "budget"), ==, 25);
  g_assert_false (json_object_get_boolean_member (cli_object (&status), "done"));
  JsonArray *best = json_object_get_array_member (cli_object (&status), "best");
  JsonArray *winner = json_array_get_array_element (options, 1);
  for (guint j = 0; j < 2; j++)
    g_assert_cmpfloat (json_array_get_double_element (best, j), ==,
                       json_array_get_double_element (winner, j));
  g_assert_nonnull (strstr (json_object_get_string_member (cli_object (&status), "best_description"),
                            "gain = "));
  g_assert_nonnull (strstr (json_object_get_string_member (cli_object (&status), "best_description"),
                            " dB"));

  /* export -o: the long CSV, one row per option, the details kept. */
  csv_path = g_build_filename (s.dir, "answers.csv", NULL);
  csv = cli_run_args (NULL, "export", s.session, "-o", csv_path, NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_cmpstr (csv.out, ==, "");
  csv_text = read_file (csv_path);
  g_auto (GStrv) lines = g_strsplit (csv_text, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "index,question,time,kind,option,position,chosen,rank,value,"
                                 "response_time,confidence,note,x_gain,x_offset");
  g_assert_nonnull (strstr (lines[1], ",duel,a,"));
  g_assert_nonnull (strstr (lines[1], ",0,,,2.5,strong,,"));
  g_assert_nonnull (strstr (lines[2], ",duel,b,"));
  g_assert_nonnull (strstr (lines[2], ",1,,,2.5,strong,,"));
  g_assert_cmpstr (lines[3], ==, "");
  cli_result_clear (&csv);
  /* To stdout, and --wide. */
  csv = cli_run_args (NULL, "export", s.session, NULL);
  g_assert_cmpstr (csv.out, ==, csv_text);
  cli_result_clear (&csv);
  csv = cli_run_args (NULL, "export", s.session, "--wide", NULL);
  g_assert_true (g_str_has_prefix (csv.out, "index,time,kind,answer,value,a_gain,a_offset,"
                                            "b_gain,b_offset,question,shown_order,"
                                            "response_time,confidence,note\n"));

  cli_result_clear (&csv);
  cli_result_clear (&status);
  cli_result_clear (&told);
  cli_result_clear (&again);
  cli_result_clear (&first);
  study_clear (&s);
}

/* A study of QUESTION ("question" member) on the 2-D experiment. */
static char *
experiment_with (const char *question)
{
  return g_strdup_printf ("{\"title\": \"Kinds\", \"mode\": \"preference\",\n"
                          " \"parameters\": [{\"name\": \"gain\", \"lower\": 0, \"upper\": 10},\n"
                          "                {\"name\": \"offset\", \"lower\": -5, \"upper\": 5}],\n"
                          " \"budget\": 25, \"question\": %s, \"seed\": 3}\n", question);
}

/* Asks the next question of S: its id, checking the kind and that it
 * shows N distinct options in a shown_order that is a permutation. */
static gint64
ask_kind (const Study *s, const char *kind, guint n)
{
  CliResult r = cli_run_args (NULL, "ask", s->session, NULL);
  gboolean seen[8] = { FALSE };
  gint64 id;
  JsonArray *options, *order;

  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "kind"), ==, kind);
  options = json_object_get_array_member (cli_object (&r), "options");
  order = json_object_get_array_member (cli_object (&r), "shown_order");
  g_assert_cmpuint (json_array_get_length (options), ==, n);
  g_assert_cmpuint (json_array_get_length (order), ==, n);
  for (guint i = 0; i < n; i++)
    {
      gint64 o = json_array_get_int_element (order, i);
      g_assert_true (o >= 0 && o < n && !seen[o]);
      seen[o] = TRUE;
      for (guint j = 0; j < i; j++)
        {
          JsonArray *a = json_array_get_array_element (options, i);
          JsonArray *b = json_array_get_array_element (options, j);
          g_assert_false (json_array_get_double_element (a, 0) == json_array_get_double_element (b, 0)
                          && json_array_get_double_element (a, 1) == json_array_get_double_element (b, 1));
        }
    }
  id = json_object_get_int_member (cli_object (&r), "question");
  cli_result_clear (&r);
  return id;
}

/* Tells ANSWER (the "answer" member and the rest, after the question id)
 * for question ID: recorded. */
static void
tell_ok (const Study *s, gint64 id, const char *answer)
{
  g_autofree char *doc = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", %s}", id, answer);
  CliResult r = cli_run_args (doc, "tell", s->session, "-", NULL);

  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "recorded"), ==, id);
  cli_result_clear (&r);
}

static void
tell_refused (const Study *s, gint64 id, const char *answer, const char *needle)
{
  g_autofree char *doc = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", %s}", id, answer);
  g_autofree char *before = read_file (s->session);
  CliResult r = cli_run_args (doc, "tell", s->session, "-", NULL);

  assert_refused (s, &r, before, needle);
}

/* The long CSV's rows of the answers, without the header. */
static char **
export_rows (const Study *s)
{
  CliResult r = cli_run_args (NULL, "export", s->session, NULL);
  char **lines;

  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (r.out, "\n", -1);
  cli_result_clear (&r);
  return lines;
}

/* An experiment with its own wording and a 1-5 confidence rating, as the
 * README's example: ask carries both, tell takes "confidence": 3 and
 * refuses a word naming the scale, export writes the 3 as given. */
static void
test_confidence_rating (void)
{
  Study s;
  CliResult r;

  study_init (&s, "{\"title\": \"Pictures\", \"mode\": \"preference\",\n"
              " \"parameters\": [{\"name\": \"gamma\", \"lower\": 1.8, \"upper\": 2.6}],\n"
              " \"budget\": 25, \"question_text\": \"Which picture looks more natural?\",\n"
              " \"confidence_scale\": {\"kind\": \"rating\", \"levels\": 5}, \"seed\": 7}\n");
  study_new (&s);
  r = cli_run_args (NULL, "ask", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (json_object_get_string_member (cli_object (&r), "question_text"), ==,
                   "Which picture looks more natural?");
  JsonObject *scale = json_object_get_object_member (cli_object (&r), "confidence_scale");
  g_assert_cmpstr (json_object_get_string_member (scale, "kind"), ==, "rating");
  g_assert_cmpint (json_object_get_int_member (scale, "levels"), ==, 5);
  gint64 id = json_object_get_int_member (cli_object (&r), "question");
  cli_result_clear (&r);

  tell_refused (&s, id, "\"answer\": {\"chosen\": 1}, \"confidence\": \"strong\"",
                "it takes a whole number from 1 (least sure) to 5 (surest)");
  tell_refused (&s, id, "\"answer\": {\"chosen\": 1}, \"confidence\": 6",
                "'confidence' 6 is not on this experiment's confidence scale");
  tell_ok (&s, id, "\"answer\": {\"chosen\": 1}, \"response_time\": 2.4, \"confidence\": 3");
  g_auto (GStrv) rows = export_rows (&s);
  g_assert_nonnull (strstr (rows[1], ",2.4,3,,"));
  g_assert_nonnull (strstr (rows[2], ",2.4,3,,"));
  g_autofree char *file = read_file (s.session);
  g_assert_nonnull (strstr (file, "\"confidence\": 3"));
  g_assert_nonnull (strstr (file, "\"confidence_scale\": {"));
  g_assert_nonnull (strstr (file, "\"levels\": 5"));
  study_clear (&s);
}

/* Ties, best-of-k choices and rankings through new / ask / tell: ask
 * shows k options for choices and rankings, tell takes {"tie": true} only
 * where ties are allowed, {"chosen": i} among the k, a ranking only as a
 * permutation of them, with a confidence where the session keeps one;
 * the answers reach the CSV as what they are. */
static void
test_question_kinds (void)
{
  Study s;
  g_autofree char *ties = experiment_with ("{\"kind\": \"duel\", \"ties\": true}");
  g_autofree char *choice = experiment_with ("{\"kind\": \"choice\", \"options\": 4}");
  g_autofree char *ranking = experiment_with ("{\"kind\": \"ranking\", \"options\": 3}");
  g_auto (GStrv) rows = NULL;
  gint64 id;

  /* Duels with ties. */
  study_init (&s, ties);
  study_new (&s);
  id = ask_kind (&s, "duel", 2);
  tell_refused (&s, id, "\"answer\": {\"ranking\": [1, 0]}", "takes no ranking: answer "
                "{\"chosen\": 0}, {\"chosen\": 1} or {\"tie\": true}");
  tell_refused (&s, id, "\"answer\": {\"tie\": false}", "'tie' must be true");
  tell_ok (&s, id, "\"answer\": {\"tie\": true}, \"response_time\": 1.5");
  id = ask_kind (&s, "duel", 2);
  tell_ok (&s, id, "\"answer\": {\"chosen\": 0}, \"confidence\": \"weak\"");
  rows = export_rows (&s);
  g_assert_nonnull (strstr (rows[1], ",tie,a,"));
  g_assert_nonnull (strstr (rows[2], ",tie,b,"));
  g_assert_nonnull (strstr (rows[3], ",duel,a,"));
  g_assert_nonnull (strstr (rows[3], ",weak,"));
  g_clear_pointer (&rows, g_strfreev);
  study_clear (&s);

  /* Best of 4. */
  study_init (&s, choice);
  study_new (&s);
  id = ask_kind (&s, "choice", 4);
  tell_refused (&s, id, "\"answer\": {\"chosen\": 4}", "'chosen' is 4, but the question has "
                "options 0 to 3");
  tell_refused (&s, id, "\"answer\": {\"tie\": true}", "is a choice question and takes no tie");
  tell_refused (&s, id, "\"answer\": {\"ranking\": [0, 1, 2, 3]}", "takes no ranking");
  tell_ok (&s, id, "\"answer\": {\"chosen\": 2}, \"confidence\": \"strong\"");
  id = ask_kind (&s, "choice", 4);
  g_assert_cmpint (id, ==, 2);
  rows = export_rows (&s);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *option = g_strdup_printf (",choice,%c,", 'a' + i);
      g_autofree char *chosen = g_strdup_printf (",%d,,,", i == 2);
      g_assert_nonnull (strstr (rows[1 + i], option));
      g_assert_nonnull (strstr (rows[1 + i], chosen));
      g_assert_nonnull (strstr (rows[1 + i], ",strong,"));
    }
  g_assert_cmpstr (rows[5], ==, "");
  g_clear_pointer (&rows, g_strfreev);
  study_clear (&s);

  /* Rank 3. */
  study_init (&s, ranking);
  study_new (&s);
  id = ask_kind (&s, "ranking", 3);
  tell_refused (&s, id, "\"answer\": {\"chosen\": 0}", "is a ranking question and takes no "
                "'chosen': answer {\"ranking\": [i, ...]}");
  tell_refused (&s, id, "\"answer\": {\"ranking\": [0, 1]}", "'ranking' lists 2 options, but "
                "the question has 3");
  tell_refused (&s, id, "\"answer\": {\"ranking\": [0, 1, 1]}", "entry 3 (1) is repeated");
  tell_refused (&s, id, "\"answer\": {\"ranking\": [0, 1, 3]}", "entry 3 (3) is not an option");
  tell_refused (&s, id, "\"answer\": {\"ranking\": [0, \"b\", 1]}", "'ranking' entry 2");
  tell_ok (&s, id, "\"answer\": {\"ranking\": [2, 0, 1]}");
  rows = export_rows (&s);
  /* chosen and rank columns: option a is 2nd, b 3rd, c 1st (the best). */
  g_assert_nonnull (strstr (rows[1], ",ranking,a,"));
  g_assert_nonnull (strstr (rows[1], ",0,2,,"));
  g_assert_nonnull (strstr (rows[2], ",0,3,,"));
  g_assert_nonnull (strstr (rows[3], ",ranking,c,"));
  g_assert_nonnull (strstr (rows[3], ",1,1,,"));
  id = ask_kind (&s, "ranking", 3);
  g_assert_cmpint (id, ==, 2);
  study_clear (&s);
}

/* Mixed mode: a value question answered {"failed": true} is recorded as a
 * failed setting (the engine's censored observation below the failure
 * level), exported as "failed", and counts as an answer. */
static void
test_mixed_failed (void)
{
  Study s;
  static const char mixed[] =
    "{\"title\": \"Yield\", \"mode\": \"mixed\", \"threshold\": -1,\n"
    " \"parameters\": [{\"name\": \"gain\", \"lower\": 0, \"upper\": 10}],\n"
    " \"budget\": 25, \"initial\": 1, \"seed\": 5}\n";
  g_auto (GStrv) rows = NULL;
  gint64 id;
  CliResult r;

  study_init (&s, mixed);
  study_new (&s);
  id = ask_kind (&s, "duel", 2);
  tell_ok (&s, id, "\"answer\": {\"chosen\": 0}");
  id = ask_kind (&s, "value", 1);
  tell_refused (&s, id, "\"answer\": {\"failed\": false}", "'failed' must be true");
  tell_ok (&s, id, "\"answer\": {\"failed\": true}");
  rows = export_rows (&s);
  g_assert_nonnull (strstr (rows[3], ",failed,"));
  g_assert_cmpstr (rows[4], ==, "");
  r = cli_run_args (NULL, "status", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 2);
  cli_result_clear (&r);
  /* the log replays: the next question is asked */
  id = ask_kind (&s, "duel", 2);
  g_assert_cmpint (id, ==, 3);
  study_clear (&s);
}

static void
test_stale_and_unknown_refused (void)
{
  Study s;
  g_autofree char *before = NULL;
  CliResult r;

  study_init (&s, experiment_json);
  study_new (&s);
  before = read_file (s.session);
  /* Nothing asked yet. */
  r = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 0}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "never asked");

  r = cli_run_args (NULL, "ask", s.session, NULL);
  cli_result_clear (&r);
  r = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 0}}", "tell", s.session, "-", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "ask", s.session, NULL);
  cli_result_clear (&r);
  g_free (before);
  before = read_file (s.session);

  /* Stale (answered already), unknown, unsupported, malformed. */
  r = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 1}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "question 1 is not open");
  r = cli_run_args ("{\"question\": 99, \"answer\": {\"chosen\": 1}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "question 99 was never asked");
  r = cli_run_args ("{\"question\": 2, \"answer\": {\"tie\": true}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "is a duel question without ties and takes no tie");
  r = cli_run_args ("{\"question\": 2, \"answer\": {\"ranking\": [1, 0]}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "takes no ranking");
  r = cli_run_args ("{\"question\": 2, \"answer\": {\"value\": 3}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "is a duel");
  r = cli_run_args ("{\"question\": 2, \"answer\": {\"chosen\": 1}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "malformed JSON");
  r = cli_run_args (NULL, "tell", s.session, NULL);
  assert_refused (&s, &r, before, "expected SESSION.json ANSWER.json|-");
  study_clear (&s);
}

static void
test_second_writer_refused (void)
{
  Study s;
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL;
  SbFileLock *lock;
  CliResult r, asked;

  study_init (&s, experiment_json);
  study_new (&s);
  asked = cli_run_args (NULL, "ask", s.session, NULL);
  g_assert_cmpint (asked.status, ==, 0);
  before = read_file (s.session);

  lock = sb_file_lock_acquire (s.session, "the test's writer", &error);
  g_assert_no_error (error);
  r = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 0}}", "tell", s.session, "-", NULL);
  assert_refused (&s, &r, before, "is being written by the test's writer");
  /* A reader still gets the open question. */
  r = cli_run_args (NULL, "ask", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, asked.out);
  cli_result_clear (&r);
  r = cli_run_args (NULL, "status", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  sb_file_lock_release (lock);

  /* Once the lock is released the answer is taken; a new question needs
   * the lock too. */
  r = cli_run_args ("{\"question\": 1, \"answer\": {\"chosen\": 0}}", "tell", s.session, "-", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  g_free (before);
  before = read_file (s.session);
  lock = sb_file_lock_acquire (s.session, "the test's writer", &error);
  g_assert_no_error (error);
  r = cli_run_args (NULL, "ask", s.session, NULL);
  assert_refused (&s, &r, before, "is being written by the test's writer");
  sb_file_lock_release (lock);

  cli_result_clear (&asked);
  study_clear (&s);
}

/* The simulated participant's utility: its best setting is gain = 6.5 dB,
 * offset = -1.5, and the parameters are measured in units of their range. */
static double
utility (double gain, double offset)
{
  double u = (gain - 6.5) / 10.0, v = (offset + 1.5) / 10.0;
  return -(u * u + v * v);
}

/* Distance from X to the optimum, as a fraction of the box's width (both
 * ranges are 10 wide). */
static double
distance_to_optimum (JsonArray *x)
{
  return hypot (json_array_get_double_element (x, 0) - 6.5,
                json_array_get_double_element (x, 1) + 1.5) / 10.0;
}

/* 25 duels answered by the utility above (a participant who never errs),
 * driven through the CLI as a lab script would. Tolerance: with seeds 1 to
 * 8 the final best lay 0.008 to 0.060 box widths from the optimum (median
 * 0.023; this seed, 7: 0.025), while the best of 26 uniformly random
 * settings has median distance 0.092 (pi r^2 = 1 - 0.5^(1/26), the disc
 * inside the unit box) and is within 0.05 with probability
 * 1 - (1 - pi 0.05^2)^26 = 0.19. 0.05 leaves this seed room for another
 * BLAS's rounding and still fails a study that did not home in. */
static void
test_study_converges (void)
{
  Study s;
  CliResult r;
  guint asked = 0;

  study_init (&s, experiment_json);
  study_new (&s);
  for (;;)
    {
      r = cli_run_args (NULL, "ask", s.session, NULL);
      g_assert_cmpint (r.status, ==, 0);
      if (json_object_has_member (cli_object (&r), "done"))
        {
          g_assert_true (json_object_get_boolean_member (cli_object (&r), "done"));
          g_assert_cmpint (json_object_get_int_member (cli_object (&r), "answers"), ==, 25);
          cli_result_clear (&r);
          break;
        }
      gint64 id = json_object_get_int_member (cli_object (&r), "question");
      JsonArray *options = json_object_get_array_member (cli_object (&r), "options");
      double u[2];
      for (guint k = 0; k < 2; k++)
        {
          JsonArray *x = json_array_get_array_element (options, k);
          u[k] = utility (json_array_get_double_element (x, 0),
                          json_array_get_double_element (x, 1));
        }
      g_autofree char *answer = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT
                                                 ", \"answer\": {\"chosen\": %d}}", id,
                                                 u[1] > u[0] ? 1 : 0);
      cli_result_clear (&r);
      r = cli_run_args (answer, "tell", s.session, "-", NULL);
      g_assert_cmpint (r.status, ==, 0);
      cli_result_clear (&r);
      g_assert_cmpuint (++asked, <=, 25);
    }
  g_assert_cmpuint (asked, ==, 25);

  r = cli_run_args (NULL, "status", s.session, NULL);
  g_assert_true (json_object_get_boolean_member (cli_object (&r), "done"));
  double d = distance_to_optimum (json_object_get_array_member (cli_object (&r), "best"));
  g_test_message ("best after 25 duels: %s (%.3f box widths from the optimum)",
                  json_object_get_string_member (cli_object (&r), "best_description"), d);
  g_assert_cmpfloat (d, <, 0.05);
  /* The recommendation carries the model's utility there: a mean inside
   * its 95% interval, the same numbers when asked again (seeded). */
  {
    JsonArray *interval = json_object_get_array_member (cli_object (&r), "best_interval");
    double mean = json_object_get_double_member (cli_object (&r), "best_mean");
    g_autofree char *first = g_strdup (r.out);
    CliResult again;
    g_assert_nonnull (interval);
    g_assert_cmpuint (json_array_get_length (interval), ==, 2);
    g_assert_cmpfloat (json_array_get_double_element (interval, 0), <, mean);
    g_assert_cmpfloat (mean, <, json_array_get_double_element (interval, 1));
    again = cli_run_args (NULL, "status", s.session, NULL);
    g_assert_cmpstr (again.out, ==, first);
    cli_result_clear (&again);
  }
  cli_result_clear (&r);
  study_clear (&s);
}

/* examples/ask-tell-study.sh runs its 25-question study; its participant's
 * optimum is x = 0.3, y = -0.2 on [-1, 1]^2 (box width 2), so 0.05 box
 * widths (the tolerance of test_study_converges) is 0.1; it ends 0.033
 * from the optimum. */
static void
test_example_script (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "..", "examples",
                                                   "ask-tell-study.sh", NULL);
  g_autofree char *dir = g_dir_make_tmp ("skewgp-example-XXXXXX", NULL);
  g_autofree char *session = g_build_filename (dir, "study.json", NULL);
  g_autofree char *csv = g_build_filename (dir, "study.csv", NULL);
  g_autofree char *csv_text = NULL;
  CliResult r = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                           &error, "/bin/sh", script, session, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  if (g_subprocess_get_exit_status (proc) != 0)
    g_test_message ("stderr: %s", r.err);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  JsonObject *status = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (status, "answers"), ==, 25);
  g_assert_true (json_object_get_boolean_member (status, "done"));
  JsonArray *best = json_object_get_array_member (status, "best");
  double d = hypot (json_array_get_double_element (best, 0) - 0.3,
                    json_array_get_double_element (best, 1) + 0.2);
  g_test_message ("example: best %s, %.3f from the optimum",
                  json_object_get_string_member (status, "best_description"), d);
  /* 25 noiseless duels in a 2 x 2 box find the optimum to about a tenth
   * of a side; which duels are asked depends on round-off (gcc -O2: 0.047
   * from the optimum, the -O0 sanitizer build's path: 0.125), so the
   * bound is on the method, 0.2 (7 % of the box's diagonal), not on one
   * path. */
  g_assert_cmpfloat (d, <, 0.2);
  /* The CSV it wrote: a header and two rows per duel. */
  csv_text = read_file (csv);
  g_auto (GStrv) lines = g_strsplit (csv_text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 50 + 1);
  g_unlink (csv);
  g_unlink (session);
  g_rmdir (dir);
  cli_result_clear (&r);
}

/* Every parameter kind through new / ask / tell / status and the session
 * file: the options printed are settings of the experiment (a log gain
 * inside its range, whole taps as JSON integers, a hue in [0, 360), a
 * font as one of its level names), the file keeps each scale and the
 * levels and stores a level's index, and status names the best level. */
static const char kinds_json[] =
  "{\"title\": \"Kinds\", \"mode\": \"preference\", \"budget\": 25, \"seed\": 3,\n"
  " \"parameters\": [{\"name\": \"gain\", \"lower\": 0.01, \"upper\": 100, \"scale\": \"log\"},\n"
  "  {\"name\": \"taps\", \"lower\": 1, \"upper\": 9, \"scale\": \"integer\"},\n"
  "  {\"name\": \"hue\", \"lower\": 0, \"upper\": 360, \"scale\": \"periodic\"},\n"
  "  {\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"serif\", \"sans\", \"mono\"]}]}\n";

/* The participant's utility of an option of ask: best at gain 1 (log
 * scale), 5 taps, hue 350 and the "mono" font. */
static double
kinds_utility (JsonArray *x)
{
  double g = log10 (json_array_get_double_element (x, 0));
  double t = (double) json_array_get_int_element (x, 1);
  double h = json_array_get_double_element (x, 2);
  const char *font = json_array_get_string_element (x, 3);
  return -g * g - 0.1 * (t - 5) * (t - 5) + cos ((h - 350) * G_PI / 180)
         + (g_str_equal (font, "mono") ? 1 : 0);
}

static void
test_parameter_kinds (void)
{
  Study s;
  CliResult r;
  g_autofree char *text = NULL;

  study_init (&s, kinds_json);
  r = cli_run_args (NULL, "new", s.experiment, s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  for (guint it = 0; it < 10; it++)
    {
      CliResult ask = cli_run_args (NULL, "ask", s.session, NULL);
      JsonArray *options = json_object_get_array_member (cli_object (&ask), "options");
      double u[2];
      g_autofree char *answer = NULL;

      g_assert_cmpint (ask.status, ==, 0);
      g_assert_cmpuint (json_array_get_length (options), ==, 2);
      for (guint i = 0; i < 2; i++)
        {
          JsonArray *x = json_array_get_array_element (options, i);
          JsonNode *taps = json_array_get_element (x, 1), *font = json_array_get_element (x, 3);
          double g = json_array_get_double_element (x, 0);
          double h = json_array_get_double_element (x, 2);
          g_assert_cmpfloat (g, >=, 0.01);
          g_assert_cmpfloat (g, <=, 100);
          g_assert_true (json_node_get_value_type (taps) == G_TYPE_INT64);
          g_assert_cmpint (json_node_get_int (taps), >=, 1);
          g_assert_cmpint (json_node_get_int (taps), <=, 9);
          g_assert_cmpfloat (h, >=, 0);
          g_assert_cmpfloat (h, <, 360);
          g_assert_true (json_node_get_value_type (font) == G_TYPE_STRING);
          g_assert_true (g_strv_contains ((const char *const[]) { "serif", "sans", "mono", NULL },
                                          json_node_get_string (font)));
          u[i] = kinds_utility (x);
        }
      answer = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"chosen\": %d}}",
                                json_object_get_int_member (cli_object (&ask), "question"),
                                u[1] > u[0] ? 1 : 0);
      cli_result_clear (&ask);
      r = cli_run_args (answer, "tell", s.session, "-", NULL);
      g_assert_cmpint (r.status, ==, 0);
      cli_result_clear (&r);
    }
  /* the session file: the scales and levels, a font stored as an index */
  text = read_file (s.session);
  g_assert_nonnull (strstr (text, "\"scale\": \"log\""));
  g_assert_nonnull (strstr (text, "\"scale\": \"integer\""));
  g_assert_nonnull (strstr (text, "\"scale\": \"periodic\""));
  g_assert_nonnull (strstr (text, "\"scale\": \"categorical\""));
  g_assert_nonnull (strstr (text, "\"levels\": [\"serif\", \"sans\", \"mono\"]"));
  g_assert_null (strstr (text, "\"mono\"]]"));
  r = cli_run_args (NULL, "status", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    JsonArray *best = json_object_get_array_member (cli_object (&r), "best");
    const char *font = json_array_get_string_element (best, 3);
    const char *text_best = json_object_get_string_member (cli_object (&r), "best_description");
    g_test_message ("best after 10 duels: %s (utility %g, max 2)", text_best,
                    kinds_utility (best));
    g_assert_nonnull (strstr (text_best, font));
  }
  cli_result_clear (&r);
  /* the CSV names the levels: the x_font column of every row is one */
  r = cli_run_args (NULL, "export", s.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
    g_assert_true (g_str_has_suffix (lines[0], ",x_gain,x_taps,x_hue,x_font"));
    for (guint i = 1; lines[i] && *lines[i]; i++)
      g_assert_true (g_str_has_suffix (lines[i], ",serif") || g_str_has_suffix (lines[i], ",sans")
                     || g_str_has_suffix (lines[i], ",mono"));
  }
  cli_result_clear (&r);
  study_clear (&s);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/asktell/new", test_new);
  g_test_add_func ("/cli/asktell/new-every-acquisition", test_new_every_acquisition);
  g_test_add_func ("/cli/asktell/new-default-acquisition", test_new_default_acquisition);
  g_test_add_func ("/cli/asktell/status-best-mean", test_status_best_mean);
  g_test_add_func ("/cli/asktell/parameter-kinds", test_parameter_kinds);
  g_test_add_func ("/cli/asktell/new-stimulus-example", test_new_stimulus_example);
  g_test_add_func ("/cli/asktell/ask-tell-status-export", test_ask_tell_status_export);
  g_test_add_func ("/cli/asktell/stale-and-unknown-refused", test_stale_and_unknown_refused);
  g_test_add_func ("/cli/asktell/question-kinds", test_question_kinds);
  g_test_add_func ("/cli/asktell/confidence-rating", test_confidence_rating);
  g_test_add_func ("/cli/asktell/mixed-failed", test_mixed_failed);
  g_test_add_func ("/cli/asktell/second-writer-refused", test_second_writer_refused);
  g_test_add_func ("/cli/asktell/study-converges", test_study_converges);
  g_test_add_func ("/cli/asktell/example-script", test_example_script);
  return g_test_run ();
}
