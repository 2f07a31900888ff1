/* test-cli-bo.c — `skewgp bo` end to end: the problem list, the JSON Lines
 * of each mode and surrogate, determinism, and bad flags. */
#include "cli-harness.h"

#include <math.h>
#include <string.h>

/* Runs `skewgp bo ARGS...` (NULL-terminated). */
static CliResult
run_bo (const char *first, ...)
{
  const char *exe = g_getenv ("SKEWGP");
  g_assert_nonnull (exe);
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) exe);
  g_ptr_array_add (argv, (gpointer) "bo");
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (
      (const char *const *) argv->pdata,
      G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_ptr_array_free (argv, TRUE);
  CliResult r = { 0 };
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  r.status = g_subprocess_get_exit_status (proc);
  return r;
}

/* The JSON objects of the output lines. */
static GPtrArray *
parse_lines (const char *out)
{
  GPtrArray *objs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (**l == '\0')
        continue;
      g_autoptr (JsonParser) p = json_parser_new ();
      g_autoptr (GError) error = NULL;
      g_assert_true (json_parser_load_from_data (p, *l, -1, &error));
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p)));
      g_ptr_array_add (objs, json_node_copy (json_parser_get_root (p)));
    }
  return objs;
}

static JsonObject *
line (GPtrArray *objs, guint i)
{
  return json_node_get_object (g_ptr_array_index (objs, i));
}

static void
test_list (void)
{
  CliResult r = run_bo ("--list", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (GPtrArray) objs = parse_lines (r.out);
  const char *names[] = { "cos1d", "six-hump-camel", "langermann", "colville",
                          "rosenbrock5", "hartmann6", "safe-gp1d" };
  for (gsize k = 0; k < G_N_ELEMENTS (names); k++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < objs->len; i++)
        if (strcmp (json_object_get_string_member (line (objs, i), "name"), names[k]) == 0)
          {
            found = TRUE;
            JsonObject *o = line (objs, i);
            gint64 dim = json_object_get_int_member (o, "dim");
            g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "lower")),
                             ==, dim);
          }
      g_assert_true (found);
    }
  cli_result_clear (&r);
}

/* Checks the common fields of a run's output and returns the lines. */
static GPtrArray *
check_run (CliResult *r, guint expect_lines, gint64 dim, gboolean safe)
{
  if (r->status != 0)
    g_test_message ("stderr: %s", r->err);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (r->err, ==, "");
  GPtrArray *objs = parse_lines (r->out);
  g_assert_cmpuint (objs->len, ==, expect_lines + 1);
  double last_best = NAN;
  for (guint i = 0; i < expect_lines; i++)
    {
      JsonObject *o = line (objs, i);
      g_assert_cmpint (json_object_get_int_member (o, "iteration"), ==, i + 1);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "query")), ==,
                        dim);
      g_assert_true (json_object_has_member (o, "answer"));
      g_assert_true (json_object_has_member (o, "best_x"));
      g_assert_true (json_object_has_member (o, "best_value"));
      g_assert_cmpfloat (json_object_get_double_member (o, "seconds"), >=, 0);
      g_assert_cmpint (json_object_has_member (o, "violation"), ==, safe);
      /* the model behind this proposal, in `skewgp fit`'s form */
      JsonObject *kernel = json_object_get_object_member (
        json_object_get_object_member (o, "hyperparameters"), "kernel");
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (kernel, "lengthscales")),
                        ==, dim);
      g_assert_cmpfloat (json_object_get_double_member (kernel, "variance"), >, 0);
      if (!json_object_get_null_member (o, "best_value"))
        last_best = json_object_get_double_member (o, "best_value");
    }
  JsonObject *s = line (objs, expect_lines);
  g_assert_true (json_object_get_boolean_member (s, "summary"));
  double best = json_object_get_double_member (s, "best_value");
  g_assert_cmpfloat (best, ==, last_best);
  /* the true objective at x_r can never beat the problem's optimum */
  g_assert_cmpfloat (best, <=, json_object_get_double_member (s, "optimum") + 1e-12);
  g_assert_cmpfloat (fabs (json_object_get_double_member (s, "regret")
                           - (json_object_get_double_member (s, "optimum") - best)),
                     <, 1e-12);
  return objs;
}

/* Without --acquisition, preference duels ask by the measured default for
 * the problem's number of parameters: hb-ucb up to 4, ucb from 5. */
static void
test_default_acquisition (void)
{
  const struct { const char *problem; gint64 dim; const char *acquisition; } cases[] = {
    { "six-hump-camel", 2, "hb-ucb" }, { "hartmann4", 4, "hb-ucb" },
    { "rosenbrock5", 5, "ucb" }, { "hartmann6", 6, "ucb" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CliResult r = run_bo ("--problem", cases[i].problem, "--iterations", "1", "--initial", "2",
                            "--samples", "100", "--candidates", "50", NULL);
      g_autoptr (GPtrArray) objs = check_run (&r, 3, cases[i].dim, FALSE);
      g_assert_cmpstr (json_object_get_string_member (line (objs, 3), "acquisition"), ==,
                       cases[i].acquisition);
      cli_result_clear (&r);
    }
}

static void
test_preference (void)
{
  CliResult r = run_bo ("--problem", "six-hump-camel", "--iterations", "3", "--initial", "2",
                        "--seed", "4", "--samples", "200", "--candidates", "50", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 5, 2, FALSE);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *o = line (objs, i);
      g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "duel");
      g_assert_cmpint (json_object_get_boolean_member (o, "initial"), ==, i < 2);
      const char *ans = json_object_get_string_member (o, "answer");
      g_assert_true (strcmp (ans, "A") == 0 || strcmp (ans, "B") == 0);
      JsonArray *q = json_object_get_array_member (o, "query");
      /* inside the box [-2,2] x [-1,1] */
      g_assert_cmpfloat (fabs (json_array_get_double_element (q, 0)), <=, 2);
      g_assert_cmpfloat (fabs (json_array_get_double_element (q, 1)), <=, 1);
      /* the winner becomes best_x */
      JsonArray *best = json_object_get_array_member (o, "best_x");
      JsonArray *win = strcmp (ans, "A") == 0 ? q : json_object_get_array_member (o, "reference");
      g_assert_cmpfloat (json_array_get_double_element (best, 0), ==,
                         json_array_get_double_element (win, 0));
    }
  /* the same seed gives the same queries and answers */
  CliResult r2 = run_bo ("--problem", "six-hump-camel", "--iterations", "3", "--initial", "2",
                         "--seed", "4", "--samples", "200", "--candidates", "50", NULL);
  g_autoptr (GPtrArray) objs2 = check_run (&r2, 5, 2, FALSE);
  for (guint i = 0; i < 5; i++)
    {
      JsonArray *a = json_object_get_array_member (line (objs, i), "query");
      JsonArray *b = json_object_get_array_member (line (objs2, i), "query");
      g_assert_cmpfloat (json_array_get_double_element (a, 0), ==,
                         json_array_get_double_element (b, 0));
      g_assert_cmpstr (json_object_get_string_member (line (objs, i), "answer"), ==,
                       json_object_get_string_member (line (objs2, i), "answer"));
    }
  cli_result_clear (&r);
  cli_result_clear (&r2);
}

static void
test_surrogates (void)
{
  const char *sur[] = { "laplace", "ep", "random" };
  const char *acq[] = { "eiig", "epi", "thompson" };
  for (gsize k = 0; k < G_N_ELEMENTS (sur); k++)
    {
      CliResult r = run_bo ("--problem", "cos1d", "--surrogate", sur[k], "--acquisition", acq[k],
                            "--iterations", "3", "--initial", "2", "--samples", "100",
                            "--candidates", "30", "--noise", "0.1", NULL);
      g_autoptr (GPtrArray) objs = check_run (&r, 5, 1, FALSE);
      JsonObject *s = line (objs, 5);
      g_assert_cmpstr (json_object_get_string_member (s, "surrogate"), ==, sur[k]);
      /* random search proposes no model-based point */
      g_assert_cmpint (json_object_get_int_member (s, "proposals"), ==,
                       strcmp (sur[k], "random") == 0 ? 0 : 3);
      cli_result_clear (&r);
    }
}

static void
test_mixed (void)
{
  CliResult r = run_bo ("--problem", "cos1d", "--mode", "mixed", "--iterations", "4",
                        "--initial", "1", "--samples", "100", "--candidates", "30", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 6, 1, FALSE);
  /* 1 initial duel, 1 initial value, then BO iterations 1-4: a value at 4 */
  const char *kinds[] = { "duel", "value", "duel", "duel", "duel", "value" };
  for (guint i = 0; i < 6; i++)
    {
      JsonObject *o = line (objs, i);
      g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, kinds[i]);
      if (strcmp (kinds[i], "value") == 0)
        {
          /* noiseless: the answer is g(x) = cos 5x + exp(-x^2/2) */
          double x = json_array_get_double_element (json_object_get_array_member (o, "query"), 0);
          g_assert_cmpfloat (fabs (json_object_get_double_member (o, "answer")
                                   - (cos (5 * x) + exp (-x * x / 2))), <, 1e-12);
        }
    }
  cli_result_clear (&r);
}

static void
test_safe (void)
{
  CliResult r = run_bo ("--problem", "safe-gp1d", "--mode", "safe", "--iterations", "4",
                        "--seed", "3", "--samples", "200", "--candidates", "50", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 5, 1, TRUE);
  /* the safe start x = 0 first, which is valid by construction */
  JsonObject *o = line (objs, 0);
  g_assert_cmpfloat (json_array_get_double_element (json_object_get_array_member (o, "query"), 0),
                     ==, 0);
  g_assert_false (json_object_get_boolean_member (o, "violation"));
  g_assert_true (json_object_get_boolean_member (o, "initial"));
  gint64 violations = 0;
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *l = line (objs, i);
      gboolean v = json_object_get_boolean_member (l, "violation");
      violations += v;
      JsonNode *ans = json_object_get_member (l, "answer");
      g_assert_cmpint (v, ==, JSON_NODE_HOLDS_VALUE (ans)
                                && json_node_get_value_type (ans) == G_TYPE_STRING);
    }
  g_assert_cmpint (json_object_get_int_member (line (objs, 5), "violations"), ==, violations);
  cli_result_clear (&r);

  /* any problem can run safe with a threshold */
  r = run_bo ("--problem", "cos1d", "--mode", "safe", "--threshold", "0.5", "--iterations", "2",
              "--initial", "2", "--samples", "100", "--candidates", "30", NULL);
  g_autoptr (GPtrArray) objs2 = check_run (&r, 4, 1, TRUE);
  cli_result_clear (&r);
}

static void
assert_bad (const char *needle, const char *first, ...)
{
  const char *args[16];
  int n = 0;
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a != NULL && n < 15; a = va_arg (ap, const char *))
    args[n++] = a;
  va_end (ap);
  args[n] = NULL;
  CliResult r = run_bo (n > 0 ? args[0] : NULL, n > 1 ? args[1] : NULL, n > 2 ? args[2] : NULL,
                        n > 3 ? args[3] : NULL, n > 4 ? args[4] : NULL, n > 5 ? args[5] : NULL,
                        NULL);
  if (r.status != 2 || !strstr (r.err, needle))
    g_test_message ("status %d stderr: %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, needle));
  g_assert_true (strchr (r.err, '\n') == r.err + strlen (r.err) - 1); /* one line */
  cli_result_clear (&r);
}

static void
test_bad_input (void)
{
  assert_bad ("--problem is required", NULL);
  assert_bad ("unknown problem 'nope'", "--problem", "nope", NULL);
  assert_bad ("--mode", "--problem", "cos1d", "--mode", "greedy", NULL);
  assert_bad ("--surrogate", "--problem", "cos1d", "--surrogate", "gp", NULL);
  assert_bad ("--acquisition", "--problem", "cos1d", "--acquisition", "ei", NULL);
  assert_bad ("--iterations", "--problem", "cos1d", "--iterations", "-3", NULL);
  assert_bad ("--noise", "--problem", "cos1d", "--noise", "x", NULL);
  assert_bad ("--threshold", "--problem", "cos1d", "--mode", "safe", NULL);
  assert_bad ("unknown option '--bogus'", "--problem", "cos1d", "--bogus", "1", NULL);
  assert_bad ("--seed needs a value", "--problem", "cos1d", "--seed", NULL);

  /* help documents the flags */
  const char *exe = g_getenv ("SKEWGP");
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, exe,
                                                   "bo", "--help", NULL);
  g_autofree char *out = NULL;
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  const char *flags[] = { "--problem", "--mode", "--acquisition", "--surrogate", "--iterations",
                          "--initial", "--seed", "--noise", "--list", "--question",
                          "--options", "--ties", "--tie-margin", "qeubo" };
  for (gsize k = 0; k < G_N_ELEMENTS (flags); k++)
    g_assert_nonnull (strstr (out, flags[k]));
  /* every acquisition is listed with its source: each name of the
   * --acquisition summary has an entry "  NAME  ..." in the Acquisitions
   * section that cites paper 001 or a dated paper */
  const char *names[] = { "ucb", "eiig", "epi", "thompson", "qeubo", "hb-ei", "hb-ucb", "dts",
                          "muc" };
  const char *acqs = strstr (out, "Acquisitions");
  g_assert_nonnull (acqs);
  for (gsize k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *listed = g_strdup_printf (" %s ", names[k]);
      g_autofree char *entry = g_strdup_printf ("\n  %s ", names[k]);
      g_assert_nonnull (strstr (out, listed));
      const char *at = strstr (acqs, entry);
      g_assert_nonnull (at);
      /* the entry runs to the next line indented by exactly two spaces */
      const char *end = at + 1;
      while ((end = strstr (end, "\n  ")) != NULL && end[3] == ' ')
        end++;
      g_autofree char *text = g_strndup (at, end ? (gsize) (end - at) : strlen (at));
      g_assert_true (g_regex_match_simple ("paper 001|20[0-9][0-9]", text, 0, 0));
    }
  assert_bad ("--noise-model", "--problem", "cos1d", "--noise-model", "gumbel", NULL);
  assert_bad ("--lengthscale-min", "--problem", "cos1d", "--lengthscale-min", "0", NULL);
  assert_bad ("--variance-max", "--problem", "cos1d", "--variance-max", "0", NULL);
  assert_bad ("--variance-max", "--problem", "cos1d", "--variance-max", "inf", NULL);
  /* the duel rules that need the exact posterior or preference mode say so */
  assert_bad ("needs --surrogate skewgp", "--problem", "cos1d", "--acquisition", "hb-ei",
              "--surrogate", "ep", NULL);
  assert_bad ("is for --mode preference", "--problem", "cos1d", "--acquisition", "dts",
              "--mode", "mixed", NULL);
}

/* Safe mode with the SafeOpt-style two-GP baseline: same line format,
 * the safe start first; the run is deterministic; the two-GP surrogate is
 * refused outside safe mode. */
static void
test_safe_two_gp (void)
{
  CliResult r = run_bo ("--problem", "safe-gp1d", "--mode", "safe", "--surrogate", "two-gp",
                        "--iterations", "6", "--seed", "2", "--samples", "200", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 7, 1, TRUE);
  g_assert_cmpfloat (json_array_get_double_element (
                       json_object_get_array_member (line (objs, 0), "query"), 0), ==, 0);
  JsonObject *s = line (objs, 7);
  g_assert_cmpstr (json_object_get_string_member (s, "surrogate"), ==, "two-gp");
  for (guint i = 1; i < 7; i++)
    {
      double x = json_array_get_double_element (
        json_object_get_array_member (line (objs, i), "query"), 0);
      g_assert_cmpfloat (x, >=, -10);
      g_assert_cmpfloat (x, <=, 10);
      g_assert_false (json_object_get_null_member (line (objs, i), "acquisition"));
    }
  CliResult r2 = run_bo ("--problem", "safe-gp1d", "--mode", "safe", "--surrogate", "two-gp",
                         "--iterations", "6", "--seed", "2", "--samples", "200", NULL);
  g_autoptr (GPtrArray) objs2 = check_run (&r2, 7, 1, TRUE);
  for (guint i = 0; i < 7; i++)
    g_assert_cmpfloat (json_array_get_double_element (
                         json_object_get_array_member (line (objs, i), "query"), 0), ==,
                       json_array_get_double_element (
                         json_object_get_array_member (line (objs2, i), "query"), 0));
  cli_result_clear (&r);
  cli_result_clear (&r2);
  assert_bad ("safe mode only", "--problem", "cos1d", "--surrogate", "two-gp", NULL);
}

/* Active mode: label queries, accuracy in [0, 1] after every answer, the
 * summary's labels / unique_fraction; random labelling is judged by a
 * SkewGP classifier (so it has an accuracy too); a threshold is needed
 * for problems without one. */
static void
test_active (void)
{
  const char *sur[] = { "skewgp", "ep", "random" };
  for (gsize k = 0; k < G_N_ELEMENTS (sur); k++)
    {
      CliResult r = run_bo ("--problem", "cos1d", "--mode", "active", "--threshold", "0.5",
                            "--surrogate", sur[k], "--iterations", "3", "--initial", "3",
                            "--seed", "1", "--samples", "200", "--candidates", "50", NULL);
      if (r.status != 0)
        g_test_message ("stderr: %s", r.err);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (GPtrArray) objs = parse_lines (r.out);
      g_assert_cmpuint (objs->len, ==, 7);
      for (guint i = 0; i < 6; i++)
        {
          JsonObject *o = line (objs, i);
          g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "label");
          gint64 label = json_object_get_int_member (o, "answer");
          g_assert_true (label == 1 || label == -1);
          g_assert_cmpint (json_object_get_boolean_member (o, "initial"), ==, i < 3);
          double acc = json_object_get_double_member (o, "accuracy");
          g_assert_cmpfloat (acc, >=, 0);
          g_assert_cmpfloat (acc, <=, 1);
          if (i >= 3 && strcmp (sur[k], "random") != 0)
            g_assert_false (json_object_get_null_member (o, "acquisition"));  /* BALD */
        }
      JsonObject *s = line (objs, 6);
      g_assert_true (json_object_get_boolean_member (s, "summary"));
      g_assert_cmpstr (json_object_get_string_member (s, "mode"), ==, "active");
      g_assert_cmpint (json_object_get_int_member (s, "labels"), ==, 6);
      g_assert_cmpint (json_object_get_int_member (s, "test_points"), ==, 201);
      double u = json_object_get_double_member (s, "unique_fraction");
      g_assert_cmpfloat (u, >, 0);
      g_assert_cmpfloat (u, <=, 1);
      g_assert_cmpfloat (json_object_get_double_member (s, "accuracy"), ==,
                         json_object_get_double_member (line (objs, 5), "accuracy"));
      cli_result_clear (&r);
    }
  assert_bad ("--threshold", "--problem", "cos1d", "--mode", "active", NULL);
}


/* Best of 4 by qEUBO: every line shows 4 distinct options inside the box,
 * the answer is the index of the one with the largest true value (an
 * exact oracle), that option becomes best_x, and options_shown counts 4
 * per question. */
static void
test_choice (void)
{
  CliResult r = run_bo ("--problem", "six-hump-camel", "--question", "choice", "--options", "4",
                        "--iterations", "3", "--initial", "2", "--seed", "4", "--samples", "200",
                        "--candidates", "50", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 5, 2, FALSE);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *o = line (objs, i);
      g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "choice");
      JsonArray *opts = json_object_get_array_member (o, "options");
      g_assert_cmpint (json_array_get_length (opts), ==, 4);
      gint64 ans = json_object_get_int_member (o, "answer");
      g_assert_cmpint (ans, >=, 0);
      g_assert_cmpint (ans, <, 4);
      double best = -INFINITY;
      gint64 argbest = -1;
      for (guint k = 0; k < 4; k++)
        {
          JsonArray *x = json_array_get_array_element (opts, k);
          double x1 = json_array_get_double_element (x, 0), x2 = json_array_get_double_element (x, 1);
          g_assert_cmpfloat (fabs (x1), <=, 2);
          g_assert_cmpfloat (fabs (x2), <=, 1);
          /* six-hump camel, maximisation convention */
          double g = -((4 - 2.1 * x1 * x1 + x1 * x1 * x1 * x1 / 3) * x1 * x1 + x1 * x2
                       + (-4 + 4 * x2 * x2) * x2 * x2);
          if (g > best)
            best = g, argbest = k;
        }
      g_assert_cmpint (ans, ==, argbest);
      JsonArray *bx = json_object_get_array_member (o, "best_x");
      JsonArray *win = json_array_get_array_element (opts, (guint) ans);
      g_assert_cmpfloat (json_array_get_double_element (bx, 0), ==,
                         json_array_get_double_element (win, 0));
      g_assert_cmpint (json_object_get_int_member (o, "options_shown"), ==, 4 * (i + 1));
    }
  JsonObject *s = line (objs, 5);
  g_assert_cmpstr (json_object_get_string_member (s, "question"), ==, "choice");
  g_assert_cmpstr (json_object_get_string_member (s, "acquisition"), ==, "qeubo");
  g_assert_cmpint (json_object_get_int_member (s, "options_shown"), ==, 20);
  cli_result_clear (&r);
}

/* Ties: a person whose margin exceeds every difference of cos1d's values
 * (range < 3.1) answers every duel "about the same"; with a tiny margin
 * they answer A or B and the duels still offer a tie. A free duel
 * (qEUBO) shows two options. */
static void
test_ties (void)
{
  CliResult r = run_bo ("--problem", "cos1d", "--ties", "--tie-margin", "10", "--iterations", "3",
                        "--initial", "2", "--seed", "1", "--samples", "200", "--candidates", "50",
                        NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 5, 1, FALSE);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *o = line (objs, i);
      g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "duel");
      g_assert_true (json_object_get_boolean_member (o, "tie_offered"));
      g_assert_cmpstr (json_object_get_string_member (o, "answer"), ==, "tie");
    }
  g_assert_cmpint (json_object_get_int_member (line (objs, 5), "ties_answered"), ==, 5);
  g_assert_true (json_object_get_boolean_member (line (objs, 5), "ties"));
  cli_result_clear (&r);

  r = run_bo ("--problem", "cos1d", "--ties", "--tie-margin", "1e-9", "--iterations", "2",
              "--initial", "2", "--seed", "1", "--samples", "200", "--candidates", "50", NULL);
  g_autoptr (GPtrArray) objs2 = check_run (&r, 4, 1, FALSE);
  for (guint i = 0; i < 4; i++)
    {
      const char *ans = json_object_get_string_member (line (objs2, i), "answer");
      g_assert_true (strcmp (ans, "A") == 0 || strcmp (ans, "B") == 0);
      g_assert_true (json_object_get_boolean_member (line (objs2, i), "tie_offered"));
    }
  g_assert_cmpint (json_object_get_int_member (line (objs2, 4), "ties_answered"), ==, 0);
  cli_result_clear (&r);

  r = run_bo ("--problem", "cos1d", "--acquisition", "qeubo", "--iterations", "2", "--initial",
              "2", "--seed", "1", "--samples", "200", "--candidates", "50", NULL);
  g_autoptr (GPtrArray) objs3 = check_run (&r, 4, 1, FALSE);
  JsonArray *opts = json_object_get_array_member (line (objs3, 3), "options");
  g_assert_cmpint (json_array_get_length (opts), ==, 2);
  g_assert_cmpfloat (json_array_get_double_element (json_array_get_array_element (opts, 0), 0),
                     !=, json_array_get_double_element (json_array_get_array_element (opts, 1), 0));
  g_assert_cmpint (json_object_get_int_member (line (objs3, 4), "options_shown"), ==, 8);
  cli_result_clear (&r);
}

static void
test_bad_questions (void)
{
  assert_bad ("--question", "--problem", "cos1d", "--question", "rank", NULL);
  assert_bad ("--options is for --question choice", "--problem", "cos1d", "--options", "3",
              NULL);
  assert_bad ("--options", "--problem", "cos1d", "--question", "choice", "--options", "7", NULL);
  assert_bad ("--tie-margin needs --ties", "--problem", "cos1d", "--tie-margin", "0.2", NULL);
  assert_bad ("--tie-margin", "--problem", "cos1d", "--ties", "--tie-margin", "-1", NULL);
  assert_bad ("qeubo only", "--problem", "cos1d", "--question", "choice", "--acquisition", "ucb",
              NULL);
  assert_bad ("--ties is for --question duel", "--problem", "cos1d", "--question", "choice",
              "--ties", NULL);
  assert_bad ("for --mode preference", "--problem", "cos1d", "--question", "choice", "--mode",
              "mixed", NULL);
  assert_bad ("need --surrogate skewgp", "--problem", "cos1d", "--question", "choice",
              "--surrogate", "laplace", NULL);
  assert_bad ("need --surrogate skewgp", "--problem", "cos1d", "--ties", "--surrogate", "ep",
              NULL);
}

/* Recommendations: the summary reports the evaluated and box rules with
 * their true values and regrets (regret = optimum - value); with
 * --recommend-every 3 iterations 6 and 9 (not the initial design's 3) carry
 * the values; random search recommends its winner by every rule. */
static void
test_recommend (void)
{
  CliResult r = run_bo ("--problem", "cos1d", "--iterations", "6", "--initial", "3", "--seed",
                        "4", "--samples", "200", "--recommend-every", "3", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 9, 1, FALSE);
  JsonObject *s = line (objs, 9);
  double opt = json_object_get_double_member (s, "optimum");
  const char *rules[] = { "evaluated", "box" };
  for (gsize k = 0; k < G_N_ELEMENTS (rules); k++)
    {
      g_autofree char *xk = g_strdup_printf ("x_%s", rules[k]);
      g_autofree char *vk = g_strdup_printf ("value_%s", rules[k]);
      g_autofree char *rk = g_strdup_printf ("regret_%s", rules[k]);
      double x = json_array_get_double_element (json_object_get_array_member (s, xk), 0);
      double v = json_object_get_double_member (s, vk);
      g_assert_cmpfloat (x, >=, -2.6);
      g_assert_cmpfloat (x, <=, 2.6);
      g_assert_cmpfloat (fabs (v - (cos (5 * x) + exp (-x * x / 2))), <, 1e-12);
      g_assert_cmpfloat (fabs (json_object_get_double_member (s, rk) - (opt - v)), <, 1e-12);
      for (guint i = 0; i < 9; i++)
        g_assert_cmpint (json_object_has_member (line (objs, i), vk), ==, i == 5 || i == 8);
    }
  cli_result_clear (&r);

  /* qEUBO's protocol: logistic judge, recorded in the summary */
  r = run_bo ("--problem", "alpine1-7", "--iterations", "2", "--initial", "2", "--seed", "1",
              "--samples", "100", "--noise", "0.5726", "--noise-model", "logistic",
              "--acquisition", "hb-ucb", NULL);
  g_autoptr (GPtrArray) lobjs = check_run (&r, 4, 7, FALSE);
  g_assert_cmpstr (json_object_get_string_member (line (lobjs, 4), "noise_model"), ==, "logistic");
  cli_result_clear (&r);

  r = run_bo ("--problem", "cos1d", "--iterations", "4", "--seed", "4", "--surrogate", "random",
              NULL);
  g_autoptr (GPtrArray) robjs = check_run (&r, 9, 1, FALSE);
  s = line (robjs, 9);
  double best = json_object_get_double_member (s, "best_value");
  g_assert_cmpfloat (json_object_get_double_member (s, "value_evaluated"), ==, best);
  g_assert_cmpfloat (json_object_get_double_member (s, "value_box"), ==, best);
  cli_result_clear (&r);
}

/* --variance-max caps every refit's kernel variance; the summary records
 * it. Consistent duels (an exact judge) push the fit to the cap. */
static void
test_variance_max (void)
{
  CliResult r = run_bo ("--problem", "cos1d", "--iterations", "6", "--initial", "4", "--seed",
                        "2", "--samples", "100", "--variance-max", "3.5", NULL);
  g_autoptr (GPtrArray) objs = check_run (&r, 10, 1, FALSE);
  double largest = 0;
  for (guint i = 0; i < 10; i++)
    {
      JsonObject *k = json_object_get_object_member (
          json_object_get_object_member (line (objs, i), "hyperparameters"), "kernel");
      largest = fmax (largest, json_object_get_double_member (k, "variance"));
    }
  g_assert_cmpfloat (largest, <=, 3.5 * (1 + 1e-12));
  g_assert_cmpfloat (largest, >, 3.0);
  g_assert_cmpfloat (json_object_get_double_member (line (objs, 10), "variance_max"), ==, 3.5);
  cli_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/bo/list", test_list);
  g_test_add_func ("/cli/bo/preference", test_preference);
  g_test_add_func ("/cli/bo/default-acquisition", test_default_acquisition);
  g_test_add_func ("/cli/bo/surrogates", test_surrogates);
  g_test_add_func ("/cli/bo/mixed", test_mixed);
  g_test_add_func ("/cli/bo/safe", test_safe);
  g_test_add_func ("/cli/bo/bad-input", test_bad_input);
  g_test_add_func ("/cli/bo/safe-two-gp", test_safe_two_gp);
  g_test_add_func ("/cli/bo/active", test_active);
  g_test_add_func ("/cli/bo/choice", test_choice);
  g_test_add_func ("/cli/bo/ties", test_ties);
  g_test_add_func ("/cli/bo/bad-questions", test_bad_questions);
  g_test_add_func ("/cli/bo/recommend", test_recommend);
  g_test_add_func ("/cli/bo/variance-max", test_variance_max);
  return g_test_run ();
}
