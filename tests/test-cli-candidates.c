/* test-cli-candidates.c — `skewgp new / ask / tell / status / export`
 * over a fixed candidate set (the committed example, examples/candidates):
 * every question shows rows of the CSV with their files, a simulated
 * participant's study converges to the best stimulus, the export names
 * each option's file, and bad candidate sets are refused naming the fault. */
#include "cli-harness.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* The simulated participant: likes mid-sized, mid-grey discs best (the
 * example's disc-08: size 26, lightness 50). */
static double
utility (double size, double lightness)
{
  double a = (size - 26) / 8, b = (lightness - 50) / 25;
  return -(a * a) - b * b;
}

/* The example's CSV row of FILE's base name: its size and lightness. */
static void
row_of_file (const char *file, double *size, double *lightness)
{
  g_autofree char *csv_path = g_build_filename (EXAMPLES_DIR, "candidates", "stimuli.csv", NULL);
  g_autofree char *text = NULL;
  g_autofree char *base = g_path_get_basename (file);
  g_assert_true (g_file_get_contents (csv_path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i], ",", -1);
      if (cells[0] != NULL && g_str_equal (cells[0], base))
        {
          *size = g_ascii_strtod (cells[1], NULL);
          *lightness = g_ascii_strtod (cells[2], NULL);
          return;
        }
    }
  g_assert_not_reached ();
}

static char *
example_experiment (void)
{
  return g_build_filename (EXAMPLES_DIR, "candidates", "experiment.json", NULL);
}

/* 15 questions of the example answered by the simulated participant: each
 * option is the row of its file, the files exist, and the study ends with
 * disc-08 as the best; the export has a file column naming it. */
static void
test_example_converges (void)
{
  g_autofree char *dir = g_dir_make_tmp ("skewgp-cand-XXXXXX", NULL);
  g_autofree char *session = g_build_filename (dir, "study.json", NULL);
  g_autofree char *experiment = example_experiment ();
  CliResult r = cli_run_args (NULL, "new", experiment, session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  for (guint t = 0; t < 15; t++)
    {
      r = cli_run_args (NULL, "ask", session, NULL);
      g_assert_cmpint (r.status, ==, 0);
      JsonObject *q = cli_object (&r);
      JsonArray *options = json_object_get_array_member (q, "options");
      JsonArray *files = json_object_get_array_member (q, "files");
      g_assert_nonnull (files);
      g_assert_cmpuint (json_array_get_length (files), ==, json_array_get_length (options));
      guint best = 0;
      double best_u = -INFINITY;
      for (guint i = 0; i < json_array_get_length (options); i++)
        {
          const char *file = json_array_get_string_element (files, i);
          JsonArray *x = json_array_get_array_element (options, i);
          double size, lightness;
          g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
          row_of_file (file, &size, &lightness);
          g_assert_cmpfloat (json_array_get_double_element (x, 0), ==, size);
          g_assert_cmpfloat (json_array_get_double_element (x, 1), ==, lightness);
          if (utility (size, lightness) > best_u)
            {
              best_u = utility (size, lightness);
              best = i;
            }
        }
      g_autofree char *answer = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", "
                                                 "\"answer\": {\"chosen\": %u}}",
                                                 json_object_get_int_member (q, "question"),
                                                 best);
      cli_result_clear (&r);
      r = cli_run_args (answer, "tell", session, "-", NULL);
      g_assert_cmpint (r.status, ==, 0);
      cli_result_clear (&r);
    }

  r = cli_run_args (NULL, "status", session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonArray *best = json_object_get_array_member (cli_object (&r), "best");
  g_assert_cmpfloat (json_array_get_double_element (best, 0), ==, 26);
  g_assert_cmpfloat (json_array_get_double_element (best, 1), ==, 50);
  g_assert_true (json_object_get_boolean_member (cli_object (&r), "done"));
  cli_result_clear (&r);

  r = cli_run_args (NULL, "export", session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  g_assert_true (g_str_has_suffix (lines[0], ",x_size,x_lightness,file"));
  g_assert_true (g_str_has_suffix (lines[1], ".svg"));
  g_assert_nonnull (strstr (r.out, ",26,50,disc-08.svg\n"));
  cli_result_clear (&r);
  g_remove (session);
  g_rmdir (dir);
}

/* Writes NAME in DIR with TEXT. */
static void
put (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* A session next to its experiment keeps the paths as written (relative:
 * the folder can move), and bad candidate sets are refused naming the
 * fault, without creating the session. */
static void
test_refused (void)
{
  g_autofree char *dir = g_dir_make_tmp ("skewgp-cand-XXXXXX", NULL);
  g_autofree char *exp = g_build_filename (dir, "exp.json", NULL);
  g_autofree char *session = g_build_filename (dir, "s.json", NULL);
  put (dir, "a.png", "x");
  put (dir, "b.png", "x");
  put (dir, "c.png", "x");
  put (dir, "exp.json",
       "{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 5,"
       " \"parameters\": [{\"name\": \"w\"}, {\"name\": \"h\", \"lower\": 0, \"upper\": 10}],"
       " \"candidates\": {\"csv\": \"c.csv\"}}");
  struct { const char *csv; const char *needle; } cases[] = {
    { NULL, "c.csv" },
    { "file,w\na.png,1\nb.png,2\n", "no column 'h' for the parameter 'h'" },
    { "name,w,h\na.png,1,2\nb.png,2,3\n", "no column 'file'" },
    { "file,w,h\na.png,1,2\nb.png,x2,3\n", "line 3: cell 2 'x2' is not a number" },
    { "file,w,h\na.png,1,2\nb.png,1,2\n", "lines 2 and 3: two stimuli with the same" },
    { "file,w,h\na.png,1,2\nd.png,1,3\n", "line 3: the stimulus file" },
    { "file,w,h\na.png,1,2\nb.png,1,30\n", "outside the range [0, 10] of the parameter 'h'" },
    { "a.png,1,2\nb.png,1,3\n", "the first line must name the columns" },
    { "file,w,h\na.png,1,2\n", "fewer than the 2 options" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *csv = g_build_filename (dir, "c.csv", NULL);
      g_remove (csv);
      if (cases[i].csv)
        put (dir, "c.csv", cases[i].csv);
      CliResult r = cli_run_args (NULL, "new", exp, session, NULL);
      g_test_message ("case %u: %s", i, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].needle));
      g_assert_false (g_file_test (session, G_FILE_TEST_EXISTS));
      cli_result_clear (&r);
    }

  /* a good set: the range of w comes from the CSV, the paths stay relative */
  put (dir, "c.csv", "file,w,h,comment\na.png,1,2,x\nb.png,3,2,y\nc.png,2,7,z\n");
  CliResult r = cli_run_args (NULL, "new", exp, session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (session, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"csv\": \"c.csv\""));
  g_assert_nonnull (strstr (text, "\"lower\": 1,"));
  g_assert_nonnull (strstr (text, "\"upper\": 3"));
  r = cli_run_args (NULL, "ask", session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonArray *files = json_object_get_array_member (cli_object (&r), "files");
  g_assert_cmpuint (json_array_get_length (files), ==, 2);
  cli_result_clear (&r);
  const char *names[] = { "a.png", "b.png", "c.png", "c.csv", "exp.json", "s.json" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/candidates/example-converges", test_example_converges);
  g_test_add_func ("/cli/candidates/refused", test_refused);
  return g_test_run ();
}
