/* test-session.c — the session file: round trip, atomic save, refusal
 * of damaged and foreign files (with line and column), CSV export.
 * Needs no display (the session has no widgets). */
#include "sb-experiment-templates.h"
#include "sb-session.h"
#include "sb-session-history.h"
#include "sg-bo.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *
temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("sb-session-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
test_round_trip (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (SbSession) loaded = NULL;
  g_autoptr (GError) error = NULL;
  double a[2] = { 25.0, 3.5 }, b[2] = { 70.25, 12.0 }, c[2] = { 33.0, 1.0 };
  SbHyper hyper = { .valid = TRUE, .n_answers = 2, .variance = 1.5, .lengthscales = { 4, 2 },
                    .mean = 0.25, .numeric_sd = 0.1, .probit_sd = 0.70710678118654752,
                    .log_evidence = -3.25 };
  const SbExperiment *e;

  /* Mixed mode: duels, values and a failed setting (below the failure
   * level 'threshold'). */
  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  exp->threshold = 1.5;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_no_error (error);
  g_assert_true (sb_session_add_duel (session, a, b, 1, &error));
  g_assert_true (sb_session_add_skip (session, b, c, &error));
  g_assert_true (sb_session_add_value (session, c, 2.75, &error));
  g_assert_true (sb_session_add_value (session, a, -0.5, &error));
  g_assert_true (sb_session_add_failed (session, b, &error));
  g_assert_true (sb_session_set_hyper (session, &hyper, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 5);
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 4);

  /* Every append saved the file: reading it back gives the same log. */
  loaded = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  e = sb_session_get_experiment (loaded);
  g_assert_cmpstr (e->title, ==, exp->title);
  g_assert_cmpint (e->mode, ==, SB_MODE_MIXED);
  g_assert_cmpfloat (e->threshold, ==, 1.5);
  g_assert_cmpuint (e->n_parameters, ==, 2);
  g_assert_cmpstr (e->parameters[0].unit, ==, "°C");
  g_assert_cmpuint (sb_session_get_n_observations (loaded), ==, 5);
  g_assert_cmpint (sb_session_get_observation (loaded, 4)->kind, ==, SB_LOG_FAILED);
  g_assert_null (sb_session_get_observation (loaded, 4)->b);
  for (guint i = 0; i < 5; i++)
    {
      const SbLogEntry *x = sb_session_get_observation (session, i);
      const SbLogEntry *y = sb_session_get_observation (loaded, i);
      g_assert_cmpint (x->kind, ==, y->kind);
      g_assert_cmpint (x->winner, ==, y->winner);
      /* Timestamps keep microseconds (the time_us member). */
      g_assert_cmpint (x->time, ==, y->time);
      for (guint j = 0; j < 2; j++)
        {
          /* Doubles survive the JSON text exactly (json-glib prints 17
           * significant digits). */
          g_assert_cmpfloat (x->a[j], ==, y->a[j]);
          if (x->b)
            g_assert_cmpfloat (x->b[j], ==, y->b[j]);
        }
      if (x->kind == SB_LOG_VALUE)
        g_assert_cmpfloat (x->value, ==, y->value);
    }
  g_assert_true (sb_session_get_hyper (loaded)->valid);
  g_assert_cmpfloat (sb_session_get_hyper (loaded)->lengthscales[1], ==, 2.0);
  g_assert_cmpfloat (sb_session_get_hyper (loaded)->probit_sd, ==, hyper.probit_sd);

  /* Undo removes the last entry and saves. */
  g_assert_true (sb_session_undo (session, &error));
  g_clear_object (&loaded);
  loaded = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_n_observations (loaded), ==, 4);
  remove_dir (dir);
}

/* Saving leaves no temporary file behind and the document always parses. */
static void
test_atomic_save (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) d = NULL;
  double a[3] = { 10, 50, 50 }, b[3] = { 200, 60, 40 };
  guint n_files = 0;

  g_assert_true (sb_session_save_as (session, file, &error));
  for (int i = 0; i < 50; i++)
    {
      g_autoptr (SbSession) again = NULL;
      g_assert_true (sb_session_add_duel (session, a, b, i % 2, &error));
      again = sb_session_load (file, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (sb_session_get_n_observations (again), ==, i + 1);
    }
  d = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (d))
    n_files++;
  g_assert_cmpuint (n_files, ==, 1);
  remove_dir (dir);
}

typedef struct {
  const char *text;
  SbSessionError code;
  guint line, column;   /* expected position in the message (0: any) */
} BadFile;

static void
test_refuse_damaged (void)
{
  g_autofree char *dir = temp_dir ();
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) good = sb_session_new (exp);
  g_autofree char *valid = sb_session_to_data (good, NULL);
  g_autofree char *truncated = g_strndup (valid, strlen (valid) / 2);
  g_autofree char *newer = NULL;
  g_autofree char *deep = g_strnfill (100000, '[');
  char *v;
  const BadFile cases[] = {
    /* Not JSON: the line and column of the offending character. */
    { "{\n  \"format\": \"skewbench-session\",\n  \"version\": 1,,\n}\n", SB_SESSION_ERROR_PARSE, 3, 16 },
    /* JSON json-glib would misread or crash on (sb-json-read.h). */
    { deep, SB_SESSION_ERROR_PARSE, 1, 257 },
    { "{\"format\": \"skewbench-session\",\n \"format\": \"other\"}", SB_SESSION_ERROR_PARSE, 2, 2 },
    { "{\"format\": \"skewbench-session\", \"version\": 99999999999999999999}", SB_SESSION_ERROR_PARSE, 1, 44 },
    { "{\"format\": \"skewbench-session\", \"version\": 1} {}", SB_SESSION_ERROR_PARSE, 1, 47 },
    { truncated, SB_SESSION_ERROR_PARSE, 0, 0 },
    /* JSON, but someone else's. */
    { "{\n  \"name\": \"package\",\n  \"format\": \"npm\"\n}\n", SB_SESSION_ERROR_FOREIGN, 3, 3 },
    { "[1, 2, 3]\n", SB_SESSION_ERROR_FOREIGN, 1, 1 },
    { "", SB_SESSION_ERROR_FOREIGN, 1, 1 },
    /* Ours, but malformed. */
    { "{\"format\": \"skewbench-session\", \"version\": 1,\n \"experiment\": {\"template\": \"colour\", \"mode\": \"preference\", \"parameters\": []},\n \"observations\": []}\n",
      SB_SESSION_ERROR_INVALID, 0, 0 },
    { NULL, SB_SESSION_ERROR_VERSION, 0, 0 },
  };

  newer = g_strdup (valid);
  v = strstr (newer, "\"version\": 1");
  g_assert_nonnull (v);
  v[strlen ("\"version\": ")] = '9';

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *text = cases[i].text ? cases[i].text : newer;
      g_autofree char *path = g_strdup_printf ("%s/bad%u.json", dir, i);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (GError) error = NULL;
      g_autoptr (SbSession) session = NULL;
      g_autofree char *after = NULL;
      gsize len;

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      session = sb_session_load (file, &error);
      g_assert_null (session);
      g_assert_error (error, SB_SESSION_ERROR, (int) cases[i].code);
      g_test_message ("case %u: %s", i, error->message);
      /* "PATH:LINE:COLUMN: message" */
      g_assert_true (g_str_has_prefix (error->message, path));
      {
        guint line = 0, column = 0;
        g_assert_cmpint (sscanf (error->message + strlen (path), ":%u:%u:", &line, &column), ==, 2);
        g_assert_cmpuint (line, >=, 1);
        g_assert_cmpuint (column, >=, 1);
        if (cases[i].line)
          {
            g_assert_cmpuint (line, ==, cases[i].line);
            g_assert_cmpuint (column, ==, cases[i].column);
          }
      }
      /* Never modified. */
      g_assert_true (g_file_get_contents (path, &after, &len, NULL));
      g_assert_cmpstr (after, ==, text);
    }
  remove_dir (dir);
}

static void
test_csv (void)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autofree char *csv = NULL;
  g_auto (GStrv) lines = NULL;
  double a[2] = { 25.0, 3.5 }, b[2] = { 70.25, 12.0 };

  g_free (exp->parameters[1].name);
  exp->parameters[1].name = g_strdup ("time, \"wall\"");
  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  session = sb_session_new (exp);
  g_assert_true (sb_session_add_duel (session, a, b, 0, NULL));
  g_assert_true (sb_session_add_value (session, b, -1.5, NULL));
  csv = sb_session_to_csv (session);
  lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpstr (lines[0], ==,
                   "index,time,kind,answer,value,a_temperature,\"a_time, \"\"wall\"\"\","
                   "b_temperature,\"b_time, \"\"wall\"\"\","
                   "question,shown_order,response_time,confidence,note");
  g_assert_true (g_str_has_prefix (lines[1], "1,"));
  g_assert_true (g_str_has_suffix (lines[1], ",duel,a,,25,3.5,70.25,12,,,,,"));
  g_assert_true (g_str_has_suffix (lines[2], ",value,,-1.5,70.25,12,,,,,,,"));
  g_assert_cmpstr (lines[3], ==, "");
}

/* Text cells a spreadsheet would evaluate are written as text (OWASP's
 * CSV injection rule); numbers and plain-number texts are untouched. */
static void
test_csv_formulas (void)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  double a[2] = { 25.0, 3.5 }, b[2] = { 70.25, 12.0 };
  const struct { const char *note, *cell; } cases[] = {
    { "=SUM(1+2)", "\"'=SUM(1+2)\"" },
    { "+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\"" },
    { "-2+3", "\"'-2+3\"" },
    { "@SUM(A1)", "\"'@SUM(A1)\"" },
    { "\tx", "\"'\tx\"" },
    { "\rx", "\"'\rx\"" },
    { "=\"a\",b", "\"'=\"\"a\"\",b\"" },
    { "-1.5", "-1.5" },
    { "+3e2", "+3e2" },
    { "looked away", "looked away" },
  };

  g_free (exp->parameters[0].name);
  exp->parameters[0].name = g_strdup ("=HYPERLINK(\"x\")");
  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  session = sb_session_new (exp);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *csv = NULL;
      g_autofree char *long_csv = NULL;
      g_autofree char *suffix = g_strdup_printf (",%s\n", cases[i].cell);

      g_assert_true (sb_session_add_value (session, b, -1.5, NULL));
      g_assert_true (sb_session_set_entry_note (session, i, cases[i].note, "tester", NULL));
      csv = sb_session_to_csv (session);
      g_assert_true (g_str_has_suffix (csv, suffix));
      long_csv = sb_session_to_csv_long (session);
      g_autofree char *inner = g_strdup_printf (",%s,", cases[i].cell);
      g_assert_nonnull (strstr (long_csv, inner));
    }
  /* the value column stays a number */
  g_assert_true (sb_session_add_duel (session, a, b, 0, NULL));
  g_autofree char *wide = sb_session_to_csv (session);
  g_assert_nonnull (strstr (wide, ",value,,-1.5,"));
  g_assert_true (g_str_has_prefix (wide, "index,time,kind,answer,value,\"a_=HYPERLINK"));
}

static void
test_validation (void)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GError) error = NULL;

  g_assert_false (sb_experiment_validate (exp, &error));
  g_clear_error (&error);
  g_assert_false (sb_experiment_add_parameter (exp, "x", "", 1.0, 1.0));
  g_assert_false (sb_experiment_add_parameter (exp, "", "", 0.0, 1.0));
  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 1.0));
  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 2.0));
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_nonnull (strstr (error->message, "two parameters"));
  g_clear_error (&error);

  /* ranges the model cannot scale: named with the parameter */
  const struct { double lower, upper; const char *why; } ranges[] = {
    { -1e308, 1e308, "parameter 'y': the range [-1e+308, 1e+308] is wider than a number" },
    { 1e300, 1.0000000000000002e300, "parameter 'y': the range [1e+300, 1.0000000000000002e+300] "
                                     "is too narrow" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
    {
      g_autoptr (SbExperiment) r = sb_experiment_new ();
      g_assert_true (sb_experiment_add_parameter (r, "y", "", ranges[i].lower, ranges[i].upper));
      g_assert_false (sb_experiment_validate (r, &error));
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, ranges[i].why));
      g_clear_error (&error);
    }
  g_autoptr (SbExperiment) wide = sb_experiment_new ();
  g_assert_true (sb_experiment_add_parameter (wide, "y", "", 0, 1e308));
  g_assert_true (sb_experiment_validate (wide, &error));
  g_assert_no_error (error);

  /* Surrogates: each in the modes it serves (unknown names are refused
   * when the file is read: test_engine_names). */
  g_autoptr (SbExperiment) one = sb_experiment_new ();
  g_assert_true (sb_experiment_add_parameter (one, "x", "", 0.0, 1.0));
  const struct { sg_bo_surrogate surrogate; SbMode mode; gboolean ok; } cases[] = {
    { SG_BO_SURROGATE_SVGP, SB_MODE_PREFERENCE, TRUE },
    { SG_BO_SURROGATE_SVGP, SB_MODE_SAFE, FALSE },
    { SG_BO_SURROGATE_SVGP, SB_MODE_MIXED, FALSE },
    { SG_BO_SURROGATE_TWO_GP, SB_MODE_SAFE, TRUE },
    { SG_BO_SURROGATE_TWO_GP, SB_MODE_PREFERENCE, FALSE },
    { SG_BO_SURROGATE_LAPLACE, SB_MODE_MIXED, TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      one->surrogate = cases[i].surrogate;
      one->mode = cases[i].mode;
      g_assert_cmpint (sb_experiment_validate (one, &error), ==, cases[i].ok);
      if (!cases[i].ok)
        g_assert_nonnull (strstr (error->message, sg_bo_surrogate_name (cases[i].surrogate)));
      g_clear_error (&error);
    }
}

/* The session document with MEMBER's string value replaced by VALUE. */
static char *
with_member (const char *document, const char *member, const char *value)
{
  g_autofree char *pattern = g_strdup_printf ("(\"%s\": )\"[^\"]*\"", member);
  g_autofree char *replacement = g_strdup_printf ("\\1\"%s\"", value);
  g_autoptr (GRegex) re = g_regex_new (pattern, 0, 0, NULL);
  char *out = g_regex_replace (re, document, -1, 0, replacement, 0, NULL);

  g_assert_cmpstr (out, !=, document);
  return out;
}

/* Mode, acquisition and surrogate are the engine's enums in memory and
 * the engine's names in the file: every value is written under its name
 * and read back as itself; an unknown name is refused with a message that
 * names it, says where it is and lists the known ones. */
static void
test_engine_names (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GError) error = NULL;
  const struct { sg_bo_surrogate surrogate; SbMode mode; } served[] = {
    { SG_BO_SURROGATE_SKEWGP, SB_MODE_PREFERENCE }, { SG_BO_SURROGATE_LAPLACE, SB_MODE_MIXED },
    { SG_BO_SURROGATE_EP, SB_MODE_SAFE },           { SG_BO_SURROGATE_RANDOM, SB_MODE_MIXED },
    { SG_BO_SURROGATE_TWO_GP, SB_MODE_SAFE },       { SG_BO_SURROGATE_SVGP, SB_MODE_PREFERENCE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (served); i++)
    {
      g_autoptr (SbSession) session = NULL;
      g_autoptr (SbSession) loaded = NULL;
      g_autofree char *data = NULL;
      g_autofree char *acq = NULL, *sur = NULL, *mode = NULL;
      const SbExperiment *e;

      exp->acquisition = (sg_bo_acquisition) (i % (SG_BO_ACQ_THOMPSON + 1));  /* any mode */
      exp->surrogate = served[i].surrogate;
      exp->mode = served[i].mode;
      session = sb_session_new (exp);
      data = sb_session_to_data (session, NULL);
      acq = g_strdup_printf ("\"acquisition\": \"%s\"", sg_bo_acquisition_name (exp->acquisition));
      sur = g_strdup_printf ("\"surrogate\": \"%s\"", sg_bo_surrogate_name (exp->surrogate));
      mode = g_strdup_printf ("\"mode\": \"%s\"", sb_mode_to_string (exp->mode));
      g_assert_nonnull (strstr (data, acq));
      g_assert_nonnull (strstr (data, sur));
      g_assert_nonnull (strstr (data, mode));
      loaded = sb_session_load_from_data (data, -1, "names.json", &error);
      g_assert_no_error (error);
      e = sb_session_get_experiment (loaded);
      g_assert_cmpint (e->acquisition, ==, exp->acquisition);
      g_assert_cmpint (e->surrogate, ==, exp->surrogate);
      g_assert_cmpint (e->mode, ==, exp->mode);
    }
  /* test_every_acquisition takes every acquisition through the file */

  g_autoptr (SbSession) good = sb_session_new (exp);
  g_autofree char *valid = sb_session_to_data (good, NULL);
  const struct { const char *member, *value, *expect; } bad[] = {
    { "acquisition", "ucb-plus", "unknown acquisition 'ucb-plus' (expected 'ucb', 'eiig', 'epi', 'thompson', 'qeubo', 'hb-ei', 'hb-ucb', 'dts' or 'muc')" },
    { "surrogate", "gpflow", "unknown surrogate 'gpflow' (expected 'skewgp', 'laplace', 'ep', 'random', 'two-gp' or 'svgp')" },
    { "mode", "active", "unknown mode 'active'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = with_member (valid, bad[i].member, bad[i].value);
      g_autofree char *member = g_strdup_printf ("\"%s\"", bad[i].member);
      g_autoptr (SbSession) refused = sb_session_load_from_data (text, -1, "bad.json", &error);
      g_autofree char *where = NULL;
      guint line = 1;

      for (const char *p = text; p < strstr (text, member); p++)
        line += *p == '\n';
      where = g_strdup_printf ("bad.json:%u:", line);
      g_assert_null (refused);
      g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, where));
      g_assert_nonnull (strstr (error->message, bad[i].expect));
      g_clear_error (&error);
    }
}

/* Every acquisition of the engine, by its engine name, is written and
 * read back as itself in preference mode; the ones that ask
 * preference-mode duels only (qeubo, hb-*, dts) are refused in mixed
 * mode, and the believer without the exact posterior, each with a
 * message naming the acquisition. */
static void
test_every_acquisition (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GError) error = NULL;
  const sg_bo_acquisition preference_only[] = {
    SG_BO_ACQ_QEUBO, SG_BO_ACQ_HB_EI, SG_BO_ACQ_HB_UCB, SG_BO_ACQ_DTS,
  };

  for (int a = 0; a <= SG_BO_ACQ_LAST; a++)
    {
      g_autoptr (SbSession) session = NULL;
      g_autoptr (SbSession) loaded = NULL;
      g_autofree char *data = NULL;
      g_autofree char *named = NULL;

      exp->mode = SB_MODE_PREFERENCE;
      exp->surrogate = SG_BO_SURROGATE_SKEWGP;
      exp->acquisition = (sg_bo_acquisition) a;
      g_assert_true (sb_experiment_validate (exp, &error));
      g_assert_no_error (error);
      session = sb_session_new (exp);
      data = sb_session_to_data (session, NULL);
      named = g_strdup_printf ("\"acquisition\": \"%s\"", sg_bo_acquisition_name (exp->acquisition));
      g_assert_nonnull (strstr (data, named));
      loaded = sb_session_load_from_data (data, -1, "every.json", &error);
      g_assert_no_error (error);
      g_assert_cmpint (sb_session_get_experiment (loaded)->acquisition, ==, a);
    }
  for (guint i = 0; i < G_N_ELEMENTS (preference_only); i++)
    {
      g_autofree char *expect = g_strdup_printf ("the acquisition '%s' asks preference-mode "
                                                 "duels only; mixed mode takes",
                                                 sg_bo_acquisition_name (preference_only[i]));
      exp->mode = SB_MODE_MIXED;
      sb_experiment_use_default_acquisition (exp);
      exp->acquisition = preference_only[i];
      g_assert_false (sb_experiment_validate (exp, &error));
      g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, expect));
      g_clear_error (&error);
    }
  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  exp->acquisition = SG_BO_ACQ_MUC;
  g_assert_true (sb_experiment_validate (exp, &error));
  exp->mode = SB_MODE_PREFERENCE;
  exp->acquisition = SG_BO_ACQ_HB_EI;
  exp->surrogate = SG_BO_SURROGATE_LAPLACE;
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_nonnull (strstr (error->message, "'hb-ei' needs the 'skewgp' surrogate"));
  g_clear_error (&error);
  exp->acquisition = (sg_bo_acquisition) (SG_BO_ACQ_LAST + 1);
  exp->surrogate = SG_BO_SURROGATE_SKEWGP;
  g_assert_false (sb_experiment_validate (exp, &error));
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
}

static void
test_templates (void)
{
  g_autoptr (SbExperiment) colour = sb_template_colour ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) problems = sb_template_list_problems ();
  double grey[3] = { 100, 0, 60 }, r, g, b;

  g_assert_true (sb_experiment_validate (colour, NULL));
  g_assert_cmpuint (colour->n_parameters, ==, 3);
  /* OKLCH with no chroma is a neutral grey (test-stimulus.c checks the
   * colours against references). */
  sb_template_colour_rgb (colour, grey, &r, &g, &b);
  g_assert_cmpfloat_with_epsilon (r, g, 1e-6);
  g_assert_cmpfloat_with_epsilon (g, b, 1e-6);

  g_assert_nonnull (problems);
  g_assert_true (g_strv_contains ((const char *const *) problems, "six-hump-camel"));
  for (guint i = 0; problems[i]; i++)
    {
      g_autoptr (SbExperiment) exp = sb_template_benchmark (problems[i], &error);
      g_assert_no_error (error);
      g_assert_true (sb_experiment_validate (exp, NULL));
    }
  g_assert_null (sb_template_benchmark ("no-such-problem", &error));
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
}

/* A colour session document (hue [0, 360], saturation [15, 100],
 * lightness [25, 80]) in MODE with the given observations. */
static char *
colour_document (const char *mode, const char *observations)
{
  return g_strdup_printf ("{\n"
                          "  \"format\": \"skewbench-session\",\n"
                          "  \"version\": 1,\n"
                          "  \"experiment\": {\n"
                          "    \"template\": \"colour\",\n"
                          "    \"mode\": \"%s\",\n"
                          "    \"oracle_noise\": 0.1,\n"
                          "    \"parameters\": [\n"
                          "      {\"name\": \"hue\", \"lower\": 0, \"upper\": 360},\n"
                          "      {\"name\": \"saturation\", \"lower\": 15, \"upper\": 100},\n"
                          "      {\"name\": \"lightness\", \"lower\": 25, \"upper\": 80}\n"
                          "    ]\n"
                          "  },\n"
                          "  \"observations\": [%s]\n"
                          "}\n", mode, observations);
}

/* Writes TEXT to DIR/NAME, loads it expecting a refusal with CODE, and
 * checks that the file was left as it was. Returns the message. */
static char *
load_refused (const char *dir, const char *name, const char *text, SbSessionError code)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *after = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  session = sb_session_load (file, &error);
  g_assert_null (session);
  g_assert_error (error, SB_SESSION_ERROR, (int) code);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, text);
  return g_strdup (error->message);
}

/* What the engine would refuse (sg_bo_answer_*) is refused when the file
 * is read, with the observation's number and the reason, instead of
 * loading and then failing in the window with "invalid argument". */
static void
test_refuse_what_engine_refuses (void)
{
  g_autofree char *dir = temp_dir ();
  const char *duel = "{\"kind\": \"duel\", \"a\": [10, 50, 50], \"b\": [200, 60, 40], \"winner\": \"a\"}";
  const struct { const char *mode; const char *obs; const char *expect; } cases[] = {
    { "preference", "{\"kind\": \"duel\", \"a\": [10, 50, 50], \"b\": [400, 60, 40], \"winner\": \"a\"}",
      "observation 2 (duel): coordinate 1 (hue) of b = 400 is outside [0, 360]" },
    { "preference", "{\"kind\": \"duel\", \"a\": [10, 50, 50], \"b\": [10, 50, 50], \"winner\": \"b\"}",
      "observation 2 (duel): a and b are the same setting" },
    { "mixed", "{\"kind\": \"value\", \"x\": [10, 50, 24.5], \"value\": 1}",
      "observation 2 (value): coordinate 3 (lightness) = 24.5 is outside [25, 80]" },
    { "preference", "{\"kind\": \"value\", \"x\": [10, 50, 50], \"value\": 1}",
      "observation 2 (value): a value answer has no place in preference mode" },
    { "preference", "{\"kind\": \"failed\", \"x\": [10, 50, 50]}",
      "observation 2 (failed): a failed answer has no place in preference mode" },
    { "mixed", "{\"kind\": \"skip\", \"a\": [-1, 50, 50], \"b\": [10, 50, 50]}",
      "observation 2 (skip): coordinate 1 (hue) of a = -1 is outside [0, 360]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *list = g_strdup_printf ("%s,\n    %s", duel, cases[i].obs);
      g_autofree char *text = colour_document (cases[i].mode, list);
      g_autofree char *name = g_strdup_printf ("engine%u.json", i);
      g_autofree char *msg = load_refused (dir, name, text, SB_SESSION_ERROR_INVALID);

      g_assert_nonnull (strstr (msg, cases[i].expect));
    }
  /* The same observations inside the box load. */
  {
    g_autofree char *text = colour_document ("mixed", duel);
    g_autoptr (SbSession) ok = sb_session_load_from_data (text, -1, "ok.json", NULL);
    g_assert_nonnull (ok);
  }
  remove_dir (dir);
}

/* A number that is not finite never gets into a session: a file holding
 * one (1e999 overflows to infinity) is refused and left untouched, the
 * add functions and set_hyper refuse one, and a session created with one
 * in its experiment is not written (the writer would have to write null,
 * which the next load refuses). */
static void
test_non_finite_refused (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  double a[3] = { 10, 50, 50 }, b[3] = { 200, 60, 40 }, bad[3] = { 10, NAN, 50 };
  SbHyper hyper = { .valid = TRUE, .n_answers = 1, .variance = 1, .lengthscales = { 1, 1, 1 },
                    .mean = 0, .numeric_sd = 0.1, .probit_sd = 1, .log_evidence = NAN };
  const char *files[] = {
    "{\"kind\": \"value\", \"x\": [10, 50, 50], \"value\": 1e999}",
    "{\"kind\": \"value\", \"x\": [10, 1e999, 50], \"value\": 1}",
    "{\"kind\": \"value\", \"x\": [10, 50, 50], \"value\": 1, "
    "\"time_us\": 9223372036854775807}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *text = colour_document ("mixed", files[i]);
      g_autofree char *name = g_strdup_printf ("inf%u.json", i);
      g_autofree char *msg = NULL;
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_autoptr (GFile) f = g_file_new_for_path (p);
      g_autoptr (SbSession) s = NULL;
      g_autoptr (GError) e = NULL;

      g_assert_true (g_file_set_contents (p, text, -1, NULL));
      s = sb_session_load (f, &e);
      g_assert_null (s);
      /* Refused by the reader (a syntax-level fault) or by the session's
       * check, which names the field: either way with the file's name. */
      g_assert_true (g_error_matches (e, SB_SESSION_ERROR, SB_SESSION_ERROR_PARSE)
                     || g_error_matches (e, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID));
      g_test_message ("%s", e->message);
      g_assert_true (g_str_has_prefix (e->message, p));
      if (i == 2)
        g_assert_nonnull (strstr (e->message, "'time_us' 9223372036854775807 is not a time"));
      g_assert_true (g_file_get_contents (p, &msg, NULL, NULL));
      g_assert_cmpstr (msg, ==, text);
    }

  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_true (sb_session_add_duel (session, a, b, 0, &error));
  g_assert_false (sb_session_add_value (session, a, INFINITY, &error));
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "value"));
  g_clear_error (&error);
  g_assert_false (sb_session_add_value (session, bad, 1.0, &error));
  g_assert_nonnull (strstr (error->message, "coordinate 2 (chroma) is not a finite number"));
  g_clear_error (&error);
  g_assert_false (sb_session_add_duel (session, a, bad, 1, &error));
  g_clear_error (&error);
  hyper.variance = INFINITY;
  g_assert_false (sb_session_set_hyper (session, &hyper, &error));
  g_assert_nonnull (strstr (error->message, "variance"));
  g_clear_error (&error);
  g_assert_false (sb_session_get_hyper (session)->valid);
  hyper.variance = 1;
  hyper.lengthscales[2] = NAN;
  g_assert_false (sb_session_set_hyper (session, &hyper, &error));
  g_assert_nonnull (strstr (error->message, "lengthscale 3"));
  g_clear_error (&error);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 1);
  {
    g_autoptr (SbSession) again = sb_session_load (file, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (sb_session_get_n_observations (again), ==, 1);
  }

  /* An experiment holding infinity (sb_session_new takes any) is not
   * written over the file; the file keeps the last good save. */
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));
  {
    g_autoptr (SbExperiment) noisy = sb_experiment_copy (exp);
    g_autoptr (SbSession) s = NULL;

    noisy->oracle_noise = INFINITY;
    s = sb_session_new (noisy);
    g_assert_false (sb_session_save_as (s, file, &error));
    g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "oracle_noise"));
    g_clear_error (&error);
    g_assert_null (sb_session_get_file (s));
  }
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  remove_dir (dir);
}

/* The engine takes every observation of LOADED (the loop the app builds
 * from a session, sb-jobs.c, reduced to what checks the answers). */
static void
assert_engine_takes (SbSession *loaded)
{
  const SbExperiment *exp = sb_session_get_experiment (loaded);
  double lower[SB_MAX_PARAMETERS], upper[SB_MAX_PARAMETERS];
  sg_bo_config config = { 0 };
  sg_bo *bo = NULL;

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      lower[j] = exp->parameters[j].lower;
      upper[j] = exp->parameters[j].upper;
    }
  g_assert_cmpint (sg_bo_config_default (&config, exp->n_parameters, lower, upper), ==, SG_OK);
  config.mode = (sg_bo_mode) exp->mode;
  config.threshold = exp->threshold;
  g_assert_cmpint (sg_bo_new (&config, &bo), ==, SG_OK);
  for (guint i = 0; i < sb_session_get_n_observations (loaded); i++)
    {
      const SbLogEntry *e = sb_session_get_observation (loaded, i);
      int status = SG_OK;

      if (e->kind == SB_LOG_DUEL)
        status = sg_bo_answer_duel (bo, e->a, e->b, e->winner == 0);
      else if (e->kind == SB_LOG_VALUE)
        status = sg_bo_answer_value (bo, e->a, e->value);
      else if (e->kind == SB_LOG_FAILED)
        status = sg_bo_answer_invalid (bo, e->a);
      g_assert_cmpint (status, ==, SG_OK);
    }
  sg_bo_free (bo);
  sg_bo_config_clear (&config);
}

/* A point for the colour experiment: usually inside the box, sometimes
 * outside it, not finite, or equal to OTHER. */
static void
random_point (GRand *rng, const double *other, double *x)
{
  const double lower[3] = { 0, 5, 35 }, upper[3] = { 360, 80, 85 };
  guint fault = g_rand_int_range (rng, 0, 12);

  for (guint j = 0; j < 3; j++)
    x[j] = g_rand_double_range (rng, lower[j], upper[j]);
  if (fault == 0)
    x[g_rand_int_range (rng, 0, 3)] = upper[2] + 1000;
  else if (fault == 1)
    x[g_rand_int_range (rng, 0, 3)] = g_rand_boolean (rng) ? NAN : -INFINITY;
  else if (fault == 2 && other)
    memcpy (x, other, 3 * sizeof (double));
  else if (fault == 3)
    x[0] = 360;  /* on the boundary: inside */
}

/* Whatever sequence of answers, undos and refits the app makes, the file
 * on disk loads after every step, holds what memory holds, and the engine
 * takes all of it. */
static void
test_add_undo_reloads (void)
{
  g_autofree char *dir = temp_dir ();
  g_autoptr (GRand) rng = g_rand_new_with_seed (20240517);
  const SbMode modes[] = { SB_MODE_PREFERENCE, SB_MODE_MIXED, SB_MODE_SAFE };
  guint accepted = 0, refused = 0;

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *path = g_strdup_printf ("%s/seq%u.json", dir, m);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (SbExperiment) exp = sb_template_colour ();
      g_autoptr (SbSession) session = NULL;

      exp->mode = modes[m];
      sb_experiment_use_default_acquisition (exp);
      session = sb_session_new (exp);
      g_assert_true (sb_session_save_as (session, file, NULL));
      for (guint step = 0; step < 150; step++)
        {
          g_autoptr (SbSession) loaded = NULL;
          g_autoptr (GError) error = NULL;
          double a[3], b[3], value = g_rand_double_range (rng, -5, 5);
          SbHyper h = { .valid = TRUE, .n_answers = step, .variance = 1.5,
                        .lengthscales = { 30, 10, 10 }, .mean = 0.5, .numeric_sd = 0.2,
                        .probit_sd = 1, .log_evidence = -10 };
          guint action = g_rand_int_range (rng, 0, 7);

          random_point (rng, NULL, a);
          random_point (rng, a, b);
          if (g_rand_int_range (rng, 0, 10) == 0)
            value = g_rand_boolean (rng) ? NAN : INFINITY;
          if (g_rand_int_range (rng, 0, 10) == 0)
            h.lengthscales[1] = g_rand_boolean (rng) ? NAN : -1;
          gboolean ok;

          switch (action)
            {
            case 0: case 1: ok = sb_session_add_duel (session, a, b, g_rand_boolean (rng), &error); break;
            case 2: ok = sb_session_add_value (session, a, value, &error); break;
            case 3: ok = sb_session_add_failed (session, a, &error); break;
            case 4: ok = sb_session_add_skip (session, a, b, &error); break;
            case 5: ok = sb_session_undo (session, &error); break;
            default: ok = sb_session_set_hyper (session, &h, &error); break;
            }
          if (ok)
            accepted++;
          else
            refused++;
          /* Refused answers and refits set ERROR; the file must load anyway. */
          g_clear_error (&error);
          loaded = sb_session_load (file, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (sb_session_get_n_observations (loaded), ==,
                            sb_session_get_n_observations (session));
          g_assert_cmpint (sb_session_get_hyper (loaded)->valid, ==,
                           sb_session_get_hyper (session)->valid);
          assert_engine_takes (loaded);
        }
    }
  /* Both paths were taken many times. */
  g_test_message ("%u changes accepted, %u refused", accepted, refused);
  g_assert_cmpuint (accepted, >, 100);
  g_assert_cmpuint (refused, >, 50);
  remove_dir (dir);
}

/* TEXT with its line ends ("\n") replaced by EOL. */
static char *
with_line_ends (const char *text, const char *eol)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  return g_strjoinv (eol, lines);
}

/* Files written on other systems load, and errors point at the right
 * line and column whether lines end in LF, CRLF or a lone CR. */
static void
test_line_ends (void)
{
  const char *duel = "{\"kind\": \"duel\", \"a\": [10, 50, 50], \"b\": [200, 60, 40], \"winner\": \"a\"}";
  g_autofree char *good = colour_document ("preference", duel);
  g_autofree char *bad_mode = colour_document ("sideways", duel);
  g_autofree char *bad_syntax = colour_document ("preference", "{\"kind\": \"duel\",, }");
  const char *eols[] = { "\n", "\r\n", "\r" };

  for (guint i = 0; i < G_N_ELEMENTS (eols); i++)
    {
      g_autofree char *text = with_line_ends (good, eols[i]);
      g_autofree char *mode = with_line_ends (bad_mode, eols[i]);
      g_autofree char *syntax = with_line_ends (bad_syntax, eols[i]);
      g_autoptr (SbSession) ok = NULL;
      g_autoptr (SbSession) refused = NULL;
      g_autoptr (GError) error = NULL;

      ok = sb_session_load_from_data (text, -1, "eol.json", &error);
      g_assert_no_error (error);
      g_assert_cmpuint (sb_session_get_n_observations (ok), ==, 1);

      /* A content error: the "mode" member, line 6 column 5. */
      refused = sb_session_load_from_data (mode, -1, "eol.json", &error);
      g_assert_null (refused);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, "eol.json:6:5: unknown mode 'sideways'"));
      g_clear_error (&error);

      /* A syntax error (the reader's): the second comma, line 14 column 36. */
      refused = sb_session_load_from_data (syntax, -1, "eol.json", &error);
      g_assert_null (refused);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, "eol.json:14:36:"));
      g_assert_null (strchr (error->message, '\r'));
    }
}

/* Saving through a symbolic link replaces the link's target (atomically)
 * and leaves the link a link, save after save. */
static void
test_symlink_written_through (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *sub = g_build_filename (dir, "data", NULL);
  g_autofree char *target = g_build_filename (sub, "real.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (link);
  g_autoptr (GFile) target_file = g_file_new_for_path (target);
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (SbSession) loaded = NULL;
  g_autoptr (GError) error = NULL;
  double a[3] = { 10, 50, 50 }, b[3] = { 200, 60, 40 };
  GStatBuf st;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_true (g_file_set_contents (target, "", 0, NULL));
  /* A relative link into another directory. */
  g_assert_cmpint (symlink ("data/real.json", link), ==, 0);

  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_no_error (error);
  g_assert_true (sb_session_add_duel (session, a, b, 0, &error));
  g_assert_true (sb_session_add_duel (session, b, a, 1, &error));
  while (g_main_context_iteration (NULL, FALSE))
    ;

  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  loaded = sb_session_load (target_file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_n_observations (loaded), ==, 2);
  /* No temporary file next to the link or the target. */
  {
    g_autoptr (GDir) d = g_dir_open (sub, 0, NULL);
    g_assert_cmpstr (g_dir_read_name (d), ==, "real.json");
    g_assert_null (g_dir_read_name (d));
  }
  g_unlink (target);
  g_rmdir (sub);
  remove_dir (dir);
}

/* The id of a process that has exited (spawned, not forked, so that a
 * checker such as valgrind does not follow a copy of this test). */
static pid_t
dead_process (void)
{
  char *argv[] = { (char *) "true", NULL };
  g_autoptr (GError) error = NULL;
  GPid pid = 0;

  g_assert_true (g_spawn_async (NULL, argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  return pid;
}

static char *
make_temp (const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, "{\"format\": \"skewbench-se", -1, NULL));
  return path;
}

/* A save killed between writing its temporary file and renaming it
 * leaves ".NAME.saving-PID-XXXXXX": the next open and the next save remove
 * it, and only it (not a save in progress, nor other files). */
static void
test_stale_temp_removed (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (SbSession) opened = NULL;
  g_autoptr (GError) error = NULL;
  double a[3] = { 10, 50, 50 }, b[3] = { 200, 60, 40 };
  g_autofree char *name = NULL;
  g_autofree char *stale = NULL, *live = NULL, *other = NULL, *stale2 = NULL;

  g_assert_true (sb_session_save_as (session, file, &error));
  name = g_strdup_printf (".s.json.saving-%d-Ab12Cd", (int) dead_process ());
  stale = make_temp (dir, name);
  g_free (name);
  name = g_strdup_printf (".s.json.saving-%d-Xy34Zw", (int) getpid ());
  live = make_temp (dir, name);
  other = make_temp (dir, ".t.json.saving-1-Ab12Cd");

  opened = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));

  g_free (name);
  name = g_strdup_printf (".s.json.saving-%d-Qq56Rr", (int) dead_process ());
  stale2 = make_temp (dir, name);
  g_assert_true (sb_session_add_duel (opened, a, b, 0, &error));
  g_assert_false (g_file_test (stale2, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live, G_FILE_TEST_EXISTS));
  remove_dir (dir);
}

/* A directory is refused by name, when opening and when saving. */
static void
test_directory_refused (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *sub = g_build_filename (dir, "folder.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (sub);
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (SbSession) opened = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expect = g_strdup_printf ("%s is a directory, not a session file", sub);

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  opened = sb_session_load (file, &error);
  g_assert_null (opened);
  g_test_message ("%s", error->message);
  g_assert_cmpstr (error->message, ==, expect);
  g_clear_error (&error);

  g_assert_false (sb_session_save_as (session, file, &error));
  g_test_message ("%s", error->message);
  g_assert_cmpstr (error->message, ==, expect);
  g_assert_null (sb_session_get_file (session));
  g_assert_true (g_file_test (sub, G_FILE_TEST_IS_DIR));
  g_rmdir (sub);
  remove_dir (dir);
}

/* Members a newer SkewBench wrote (at the top, in the experiment, in a
 * parameter, in an answer) survive this program's next save, in their
 * places; a later answer does not take an earlier one's member. */
static void
test_unknown_members (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (SbSession) opened = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) after = NULL;
  g_autofree char *text = NULL, *written = NULL;
  double a[2] = { 25.0, 3.5 }, b[2] = { 70.25, 12.0 };
  JsonObject *o, *e, *p0, *obs0, *obs1;

  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_true (sb_session_add_duel (session, a, b, 1, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  root = json_from_string (text, &error);
  g_assert_no_error (error);
  o = json_node_get_object (root);
  json_object_set_string_member (o, "future_session", "kept");
  e = json_object_get_object_member (o, "experiment");
  json_object_set_int_member (e, "future_experiment", 3);
  p0 = json_array_get_object_element (json_object_get_array_member (e, "parameters"), 0);
  json_object_set_boolean_member (p0, "future_parameter", TRUE);
  obs0 = json_array_get_object_element (json_object_get_array_member (o, "observations"), 0);
  json_object_set_string_member (obs0, "future_answer", "left eye");
  g_free (text);
  text = json_to_string (root, TRUE);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));

  opened = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_true (sb_session_add_duel (opened, b, a, 0, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
  after = json_from_string (written, &error);
  g_assert_no_error (error);
  o = json_node_get_object (after);
  g_assert_cmpstr (json_object_get_string_member (o, "future_session"), ==, "kept");
  e = json_object_get_object_member (o, "experiment");
  g_assert_cmpint (json_object_get_int_member (e, "future_experiment"), ==, 3);
  p0 = json_array_get_object_element (json_object_get_array_member (e, "parameters"), 0);
  g_assert_true (json_object_get_boolean_member (p0, "future_parameter"));
  obs0 = json_array_get_object_element (json_object_get_array_member (o, "observations"), 0);
  obs1 = json_array_get_object_element (json_object_get_array_member (o, "observations"), 1);
  g_assert_cmpstr (json_object_get_string_member (obs0, "future_answer"), ==, "left eye");
  g_assert_false (json_object_has_member (obs1, "future_answer"));
  remove_dir (dir);
}

/* A negative seed is refused when the file is read, as skewgp new
 * refuses it, naming the member (it was read as a huge unsigned seed). */
static void
test_negative_seed (void)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (GError) error = NULL;
  gsize length;
  g_autofree char *text = sb_session_to_data (session, &length);
  g_autoptr (GString) bad = g_string_new (text);
  g_autoptr (SbSession) back = NULL;

  g_assert_cmpuint (g_string_replace (bad, "\"seed\": 1,", "\"seed\": -1,", 1), ==, 1);
  back = sb_session_load_from_data (bad->str, -1, "s.json", &error);
  g_assert_null (back);
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'seed' must be 0 or more, not -1"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session/round-trip", test_round_trip);
  g_test_add_func ("/session/unknown-members", test_unknown_members);
  g_test_add_func ("/session/negative-seed", test_negative_seed);
  g_test_add_func ("/session/atomic-save", test_atomic_save);
  g_test_add_func ("/session/refuse-damaged", test_refuse_damaged);
  g_test_add_func ("/session/csv", test_csv);
  g_test_add_func ("/session/csv-formulas", test_csv_formulas);
  g_test_add_func ("/session/validation", test_validation);
  g_test_add_func ("/session/engine-names", test_engine_names);
  g_test_add_func ("/session/every-acquisition", test_every_acquisition);
  g_test_add_func ("/session/templates", test_templates);
  g_test_add_func ("/session/refuse-what-engine-refuses", test_refuse_what_engine_refuses);
  g_test_add_func ("/session/non-finite-refused", test_non_finite_refused);
  g_test_add_func ("/session/add-undo-reloads", test_add_undo_reloads);
  g_test_add_func ("/session/line-ends", test_line_ends);
  g_test_add_func ("/session/symlink-written-through", test_symlink_written_through);
  g_test_add_func ("/session/stale-temp-removed", test_stale_temp_removed);
  g_test_add_func ("/session/directory-refused", test_directory_refused);
  return g_test_run ();
}
