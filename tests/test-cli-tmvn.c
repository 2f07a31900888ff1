/* test-cli-tmvn.c — `skewgp tmvn-sample` end to end.
 *
 * Monte Carlo checks allow 4.5 standard errors, the standard error taken
 * from the command's own effective sample size (sd / sqrt(n_eff)); seeds are
 * fixed. Squared comparisons, so that the program needs no libm.
 */
#include "cli-harness.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static double
member_double (JsonObject *o, const char *name)
{
  return json_node_get_double (json_object_get_member (o, name));
}

static double
array_double (JsonArray *a, guint i)
{
  return json_node_get_double (json_array_get_element (a, i));
}

static void
test_half_normal (void)
{
  /* N(0, 1) on (0, inf): mean sqrt(2/pi), variance 1 - 2/pi. */
  CliResult r = cli_run ("tmvn-sample", NULL,
                         "{\"mean\": [0], \"cov\": [[1]], \"lower\": [0], \"upper\": [null],"
                         " \"samples\": 20000, \"seed\": 1, \"return_samples\": true}");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_nonnull (r.json);
  JsonObject *o = json_node_get_object (r.json);
  double mean = array_double (json_object_get_array_member (o, "mean"), 0);
  JsonArray *cov = json_object_get_array_member (o, "covariance");
  double var = array_double (json_array_get_array_element (cov, 0), 0);
  double ess = member_double (o, "effective_sample_size");
  g_assert_cmpfloat (ess, >, 1000);
  g_assert_cmpfloat (ess, <=, 20000 * 1.2);
  g_assert_cmpint (json_object_get_int_member (o, "thin"), ==, 1);

  JsonArray *samples = json_object_get_array_member (o, "samples");
  g_assert_cmpuint (json_array_get_length (samples), ==, 20000);
  double m4 = 0;   /* fourth central moment */
  for (guint t = 0; t < 20000; t++)
    {
      JsonArray *row = json_array_get_array_element (samples, t);
      g_assert_cmpuint (json_array_get_length (row), ==, 1);
      double x = array_double (row, 0);
      g_assert_cmpfloat (x, >, 0);
      double c2 = (x - mean) * (x - mean);
      m4 += c2 * c2 / 20000;
    }
  double exact_mean = 0.79788456080286536, exact_var = 0.36338022763241865;
  g_test_message ("mean %.4f (exact %.4f), var %.4f (exact %.4f), n_eff %.0f",
                  mean, exact_mean, var, exact_var, ess);
  /* |error| <= 4.5 se, squared; se^2 of a mean var / n_eff, of a sample
   * variance (m4 - var^2) / n_eff */
  g_assert_cmpfloat ((mean - exact_mean) * (mean - exact_mean), <=, 4.5 * 4.5 * var / ess);
  g_assert_cmpfloat ((var - exact_var) * (var - exact_var), <=,
                     4.5 * 4.5 * (m4 - var * var) / ess);
  cli_result_clear (&r);
}

static void
test_box_2d_and_options (void)
{
  const char *input =
    "{\"mean\": [0.5, 0.5], \"cov\": [[1, 0.95], [0.95, 1]],"
    " \"lower\": [-1, -1], \"upper\": [1, 1], \"samples\": 500, \"burn_in\": 50,"
    " \"thin\": 0, \"chains\": 2, \"method\": \"exact-hmc\", \"seed\": 42,"
    " \"return_samples\": true}";
  CliResult r = cli_run ("tmvn-sample", NULL, input);
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = json_node_get_object (r.json);
  g_assert_cmpint (json_object_get_int_member (o, "thin"), >=, 1);
  JsonArray *samples = json_object_get_array_member (o, "samples");
  g_assert_cmpuint (json_array_get_length (samples), ==, 500);
  for (guint t = 0; t < 500; t++)
    {
      JsonArray *row = json_array_get_array_element (samples, t);
      g_assert_cmpuint (json_array_get_length (row), ==, 2);
      for (guint j = 0; j < 2; j++)
        {
          double x = array_double (row, j);
          g_assert_true (x > -1 && x < 1);
        }
    }
  /* exact moments (tests/data/tmvn-2d.txt, case 3): E = 0.118835 */
  double mean0 = array_double (json_object_get_array_member (o, "mean"), 0);
  JsonArray *cov = json_object_get_array_member (o, "covariance");
  double var0 = array_double (json_array_get_array_element (cov, 0), 0);
  double c01 = array_double (json_array_get_array_element (cov, 0), 1);
  double c10 = array_double (json_array_get_array_element (cov, 1), 0);
  g_assert_cmpfloat (c01, ==, c10);
  double ess = member_double (o, "effective_sample_size");
  double err = mean0 - 0.11883503999189376;
  g_assert_cmpfloat (err * err, <=, 4.5 * 4.5 * var0 / ess);

  /* Same seed: the same output, byte for byte. */
  CliResult again = cli_run ("tmvn-sample", NULL, input);
  g_assert_cmpstr (r.out, ==, again.out);
  cli_result_clear (&again);
  cli_result_clear (&r);

  /* Without return_samples there is no "samples" member; lower/upper may be
   * null or absent. */
  r = cli_run ("tmvn-sample", NULL,
               "{\"mean\": [1, 2], \"cov\": [[1, 0], [0, 1]], \"lower\": null,"
               " \"samples\": 10}");
  g_assert_cmpint (r.status, ==, 0);
  o = json_node_get_object (r.json);
  g_assert_false (json_object_has_member (o, "samples"));
  g_assert_true (json_object_has_member (o, "effective_sample_size"));
  cli_result_clear (&r);
}

static void
test_file_argument_and_help (void)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("tmvn-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, "{\"mean\": [0], \"cov\": [[0]], \"lower\": [-1],"
                                      " \"upper\": [1], \"samples\": 3}", -1, NULL));
  CliResult r = cli_run ("tmvn-sample", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* zero variance: every sample is the mean, the covariance is 0 */
  JsonObject *o = json_node_get_object (r.json);
  g_assert_cmpfloat (array_double (json_object_get_array_member (o, "mean"), 0), ==, 0);
  cli_result_clear (&r);
  g_unlink (path);

  r = cli_run ("tmvn-sample", "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  const char *fields[] = { "\"mean\"", "\"cov\"", "\"lower\"", "\"upper\"", "\"samples\"",
                           "\"burn_in\"", "\"thin\"", "\"chains\"", "\"method\"", "\"seed\"",
                           "\"return_samples\"", "\"covariance\"",
                           "\"effective_sample_size\"" };
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    g_assert_nonnull (strstr (r.out, fields[i]));
  cli_result_clear (&r);
}

static void
test_bad_input (void)
{
  const char *c = "tmvn-sample";
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 5", "malformed JSON");
  cli_assert_input_error (c, "{\"mean\": [NaN], \"cov\": [[1]], \"samples\": 5}", "malformed JSON");
  cli_assert_input_error (c, "[1, 2]", "object");
  cli_assert_input_error (c, "{\"cov\": [[1]], \"samples\": 5}", "'mean'");
  cli_assert_input_error (c, "{\"mean\": [0], \"samples\": 5}", "'cov'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]]}", "'samples'");
  cli_assert_input_error (c, "{\"mean\": [0, 0], \"cov\": [[1, 0]], \"samples\": 5}", "'cov'");
  cli_assert_input_error (c, "{\"mean\": [0, 0], \"cov\": [[1, 0], [0]], \"samples\": 5}",
                          "'cov'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[\"a\"]], \"samples\": 5}", "'cov'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"lower\": [0, 1], \"samples\": 5}",
                          "'lower'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"upper\": [true], \"samples\": 5}",
                          "'upper'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"lower\": [2], \"upper\": [1],"
                          " \"samples\": 5}", "'lower'");
  cli_assert_input_error (c, "{\"mean\": [0, 0], \"cov\": [[1, 0.5], [0.4, 1]], \"samples\": 5}",
                          "symmetric");
  cli_assert_input_error (c, "{\"mean\": [0, 0], \"cov\": [[1, 2], [2, 1]], \"samples\": 5}",
                          "positive semi-definite");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[-1]], \"samples\": 5}",
                          "positive semi-definite");
  cli_assert_input_error (c, "{\"mean\": [0, 5], \"cov\": [[1, 0], [0, 0]], \"upper\": [null, 1],"
                          " \"samples\": 5}", "probability zero");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 0}", "'samples'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 2.5}", "'samples'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 10000000,"
                          " \"return_samples\": true, \"mean2\": 1}", "'mean2'");
  cli_assert_input_error (c, "{\"mean\": [0, 0, 0], \"cov\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],"
                          " \"samples\": 10000000}", "'samples'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 5, \"method\": \"gibbs\"}",
                          "'method'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 5, \"chains\": 0}",
                          "'chains'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 5, \"seed\": -1}",
                          "'seed'");
  cli_assert_input_error (c, "{\"mean\": [0], \"cov\": [[1]], \"samples\": 5,"
                          " \"return_samples\": 1}", "'return_samples'");
}

/* Non-finite results are numerical failures (exit 1 naming the quantity),
 * never null with exit 0; a bound written for infinity is infinity. */
static void
test_numeric_contract (void)
{
  /* mean 1e308 with sd 1: the samples cannot hold their spread (was mean
   * [null, null] with exit 0) */
  cli_assert_numeric_error ("tmvn-sample", "{\"mean\":[1e308,-1e308],\"cov\":[[1,0],[0,1]],"
                            "\"lower\":[0,null],\"samples\":10}", "coordinate 0");
  /* variance 1.5e308: the samples' squares overflow the covariance */
  cli_assert_numeric_error ("tmvn-sample", "{\"mean\":[0],\"cov\":[[1.5e308]],"
                            "\"lower\":[-1e155],\"samples\":100}", "sample covariance");
  /* N(0, 1) on (0.2, 1e100): the half-line, E = phi(0.2) / Phi(-0.2) =
   * 0.9294158481, variance 1 + 0.2 E - E^2 = 0.3220693509 (R) */
  CliResult r = cli_run ("tmvn-sample", NULL,
                         "{\"mean\":[0],\"cov\":[[1]],\"lower\":[0.2],\"upper\":[1e100],"
                         "\"samples\":20000,\"seed\":5}");
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = json_node_get_object (r.json);
  double mean = array_double (json_object_get_array_member (o, "mean"), 0);
  double ess = member_double (o, "effective_sample_size");
  double se2 = 0.3220693509 / ess;   /* variance of the truncated normal / n_eff */
  g_test_message ("mean %.4f, n_eff %.0f", mean, ess);
  g_assert_cmpfloat ((mean - 0.9294158481) * (mean - 0.9294158481), <=, 4.5 * 4.5 * se2);
  cli_result_clear (&r);
}

/* d <= 2000; returned samples N d <= 2e6 (2e7 returned peaked at 3.4 GB). */
static void
test_size_limits (void)
{
  GString *doc = g_string_new ("{\"cov\": [[1]], \"samples\": 1, \"mean\": [0");
  for (int i = 1; i < 2001; i++)
    g_string_append (doc, ",0");
  g_string_append (doc, "]}");
  cli_assert_input_error ("tmvn-sample", doc->str, "dimension 2001 is above the limit 2000");
  g_string_free (doc, TRUE);
  cli_assert_input_error ("tmvn-sample", "{\"mean\": [0, 0], \"cov\": [[1, 0], [0, 1]], "
                          "\"samples\": 1000001, \"return_samples\": true}",
                          "to return exceed the limit of 2000000 numbers");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/tmvn-sample/half-normal", test_half_normal);
  g_test_add_func ("/cli/tmvn-sample/box-2d-and-options", test_box_2d_and_options);
  g_test_add_func ("/cli/tmvn-sample/file-argument-and-help", test_file_argument_and_help);
  g_test_add_func ("/cli/tmvn-sample/bad-input", test_bad_input);
  g_test_add_func ("/cli/tmvn-sample/numeric-contract", test_numeric_contract);
  g_test_add_func ("/cli/tmvn-sample/size-limits", test_size_limits);
  return g_test_run ();
}
