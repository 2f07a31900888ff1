/* test-cli-mvn.c — `skewgp mvn-cdf` end to end: answers, help, and every
 * kind of bad input (exit 2, one line on stderr naming the field, nothing
 * on stdout). */
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

#include "cli-harness.h"

static double
member_double (JsonNode *root, const char *name)
{
  JsonObject *o = json_node_get_object (root);
  g_assert_true (json_object_has_member (o, name));
  return json_object_get_double_member (o, name);
}

static void
test_values (void)
{
  /* Equicorrelated rho = 1/2 orthant, d = 4: exactly 1/5. */
  CliResult r = cli_run ("mvn-cdf", NULL,
                         "{\"cov\": [[1,0.5,0.5,0.5],[0.5,1,0.5,0.5],[0.5,0.5,1,0.5],"
                         "[0.5,0.5,0.5,1]], \"upper\": [0,0,0,0], \"points\": 20000, \"seed\": 3}");
  g_test_message ("status %d\nstdout: %s\nstderr: %s", r.status, r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_nonnull (r.json);
  double v = member_double (r.json, "value"), e = member_double (r.json, "error");
  g_assert_cmpfloat (fabs (v - 0.2), <=, e);   /* 99% interval */
  g_assert_cmpfloat (e, <, 1e-3);
  /* log(1/5) = -1.6094379124341003; |d log p| ~ |d p| / p (no libm here) */
  g_assert_cmpfloat_with_epsilon (member_double (r.json, "log_value"), -1.6094379124341003,
                                  1.01 * e / 0.2);
  cli_result_clear (&r);

  /* d = 2 closed form with mean, null bounds: P(X1 < 1, X2 > 1) for
   * X ~ N((1,1), I) is 1/4 exactly (round-off). */
  r = cli_run ("mvn-cdf", NULL,
               "{\"cov\": [[1,0],[0,1]], \"mean\": [1,1], \"lower\": [null, 1],"
               " \"upper\": [1, null]}");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpfloat_with_epsilon (member_double (r.json, "value"), 0.25, 1e-14);
  g_assert_true (json_object_get_boolean_member (json_node_get_object (r.json), "exact"));
  cli_result_clear (&r);

  /* Tiny probability: P(X < -40) in 1-D; value underflows, log does not
   * (log Phi(-40) = -804.60844201375379, mpmath). */
  r = cli_run ("mvn-cdf", NULL, "{\"cov\": [[1]], \"upper\": [-40]}");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpfloat (member_double (r.json, "value"), ==, 0.0);
  g_assert_cmpfloat_with_epsilon (member_double (r.json, "log_value"), -804.60844201375379,
                                  1e-10);
  cli_result_clear (&r);

  /* Same seed, same answer; the file argument works like stdin. */
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("mvn-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  const char *doc = "{\"cov\": [[2,0.3,0.1],[0.3,1,0.2],[0.1,0.2,1.5]], \"upper\": [0.5,0,1],"
                    " \"lower\": [-1,null,-2], \"seed\": 9}";
  g_assert_true (g_file_set_contents (path, doc, -1, NULL));
  CliResult a = cli_run ("mvn-cdf", path, NULL);
  CliResult b = cli_run ("mvn-cdf", NULL, doc);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpstr (a.out, ==, b.out);
  cli_result_clear (&a);
  cli_result_clear (&b);
  g_unlink (path);
}


/* The value of INPUT, which must succeed; *LOG_NULL says whether
 * log_value was null. */
static double
value_of (const char *input, gboolean *log_null, gboolean *exact)
{
  CliResult r = cli_run ("mvn-cdf", NULL, input);
  g_test_message ("%s -> %d %s %s", input, r.status, r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (r.json);
  JsonObject *o = json_node_get_object (r.json);
  g_assert_false (json_node_is_null (json_object_get_member (o, "value")));
  double v = json_object_get_double_member (o, "value");
  if (log_null)
    *log_null = json_node_is_null (json_object_get_member (o, "log_value"));
  if (exact)
    *exact = json_object_get_boolean_member (o, "exact");
  cli_result_clear (&r);
  return v;
}

/* Singular covariances (R mvtnorm's regression cases): exact zeros are
 * value 0 with log_value null, never value null; rank-1 is exact. */
static void
test_singular (void)
{
  gboolean log_null = FALSE, exact = FALSE;
  g_assert_cmpfloat (value_of ("{\"cov\":[[1,1],[1,1]],\"lower\":[-2,0],\"upper\":[-1,1]}",
                               &log_null, &exact), ==, 0.0);
  g_assert_true (log_null);
  g_assert_true (exact);
  g_assert_cmpfloat (value_of ("{\"cov\":[[1,1,0],[1,1,0],[0,0,1]],\"lower\":[-2,0,null],"
                               "\"upper\":[-1,1,0]}", &log_null, &exact), ==, 0.0);
  g_assert_true (log_null);
  /* rank 1: X = (0.009, 0.75, 0.25) z, |X| below (0.01, 1, 0.3): z within
   * +-1/0.9, P = 2 Phi(1/0.9) - 1 = 0.73347947419499 (erf(1/(0.9 sqrt 2))) */
  double v = value_of ("{\"cov\":[[0.000081,0.00675,0.00225],[0.00675,0.5625,0.1875],"
                       "[0.00225,0.1875,0.0625]],\"lower\":[-0.01,-1,-0.3],"
                       "\"upper\":[0.01,1,0.3]}", &log_null, &exact);
  g_assert_cmpfloat_with_epsilon (v, 0.73347947419499, 1e-13);
  g_assert_true (exact);
  g_assert_false (log_null);
}

/* Bounds written for infinity (1e60 ... 1e308) and a huge variance. */
static void
test_far_bounds (void)
{
  const char *bigs[] = { "1e60", "1e62", "1e100", "1e200", "1e308" };
  for (gsize i = 0; i < G_N_ELEMENTS (bigs); i++)
    {
      g_autofree char *a = g_strdup_printf ("{\"cov\":[[1]],\"lower\":[0.2],\"upper\":[%s]}",
                                            bigs[i]);
      /* Phi(-0.2) = 0.42074029056089696 */
      g_assert_cmpfloat_with_epsilon (value_of (a, NULL, NULL), 0.42074029056089696, 1e-13);
      g_autofree char *b = g_strdup_printf ("{\"cov\":[[1,0],[0,1]],\"lower\":[0.2,0],"
                                            "\"upper\":[%s,1]}", bigs[i]);
      /* Phi(-0.2) (Phi(1) - 1/2) = 0.14361748764231 */
      g_assert_cmpfloat_with_epsilon (value_of (b, NULL, NULL), 0.14361748764231, 1e-13);
    }
  g_assert_cmpfloat_with_epsilon (value_of ("{\"cov\":[[1e308]],\"upper\":[0]}", NULL, NULL),
                                  0.5, 1e-15);
  /* log P(X > 1e200) = -5e399 is not a double: exit 1, not null */
  cli_assert_numeric_error ("mvn-cdf", "{\"cov\":[[1]],\"lower\":[1e200],\"upper\":[null]}",
                            "probability");
}

static void
test_help (void)
{
  CliResult r = cli_run ("mvn-cdf", "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  const char *fields[] = { "\"cov\"", "\"mean\"", "\"lower\"", "\"upper\"", "\"points\"",
                           "\"shifts\"", "\"seed\"", "\"rel_tol\"", "\"method\"",
                           "\"value\"", "\"log_value\"", "\"error\"", "Exit status" };
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    g_assert_nonnull (strstr (r.out, fields[i]));
  /* the default points are lattice rules from a CBC construction */
  g_assert_nonnull (strstr (r.out, "rank-1 lattice rules"));
  g_assert_null (strstr (r.out, "Richtmyer lattice"));
  cli_result_clear (&r);
}

static void
test_bad_input (void)
{
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1]], \"upper\": [0,", "malformed JSON");
  cli_assert_input_error ("mvn-cdf", "[1,2]", "object");
  cli_assert_input_error ("mvn-cdf", "{\"upper\": [0]}", "'cov'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]]}", "'upper'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1]], \"upper\": [0]}", "'upper'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1]], \"upper\": [0,0], \"mean\": [1]}",
                          "'mean'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1]], \"upper\": [0,0], "
                          "\"lower\": [0,0,0]}", "'lower'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0]], \"upper\": [0,0]}", "'cov'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0,0],[0,1,0]], \"upper\": [0,0]}", "'cov'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,\"a\"],[0,1]], \"upper\": [0,0]}", "'cov'");
  /* NaN / infinity are not JSON; a literal that overflows is not finite */
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1]], \"upper\": [NaN,0]}", "JSON");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1e999]], \"upper\": [0,0]}", "'cov'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0],[0,1]], \"upper\": [0,0], "
                          "\"lower\": [1,null]}", "'lower'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0.5],[0.4,1]], \"upper\": [0,0]}",
                          "symmetric");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,0.9,0.9],[0.9,1,-0.9],[0.9,-0.9,1]],"
                          " \"upper\": [0,0,0]}", "positive semi-definite");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[-1]], \"upper\": [0]}",
                          "positive semi-definite");
  /* not PSD even though the offending coordinate is unbounded */
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1,2],[2,1]], \"upper\": [0,null]}",
                          "positive semi-definite");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"points\": 5}",
                          "'points'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"points\": 1.5}",
                          "'points'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"seed\": -1}", "'seed'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"shifts\": 1}",
                          "'shifts'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"method\": \"mc\"}",
                          "'method'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"rel_tol\": -1}",
                          "'rel_tol'");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"uper\": [1]}", "'uper'");
}

static void
test_missing_file (void)
{
  CliResult r = cli_run ("mvn-cdf", "/nonexistent/mvn.json", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "cannot read"));
  cli_result_clear (&r);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/mvn-cdf/values", test_values);
  g_test_add_func ("/cli/mvn-cdf/help", test_help);
  g_test_add_func ("/cli/mvn-cdf/singular", test_singular);
  g_test_add_func ("/cli/mvn-cdf/far-bounds", test_far_bounds);
  g_test_add_func ("/cli/mvn-cdf/bad-input", test_bad_input);
  g_test_add_func ("/cli/mvn-cdf/missing-file", test_missing_file);
  return g_test_run ();
}
