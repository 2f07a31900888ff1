/* test-cli-fit.c — `skewgp fit` end to end: GP regression against
 * scikit-learn's optimum through all three methods, a preference fit fed
 * back into `skewgp posterior`, a skew prior, budgets, reproducibility,
 * bad input naming the field (exit 2) and a numerical failure (exit 1). */
#include "cli-harness.h"

#include <math.h>
#include <string.h>

static JsonObject *
run_ok (const char *command, const char *doc, CliResult *r)
{
  *r = cli_run (command, NULL, doc);
  if (r->status != 0)
    g_test_message ("input: %s\nstderr: %s", doc, r->err);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_nonnull (r->json);
  return json_node_get_object (r->json);
}

static double
kernel_member (JsonObject *o, const char *name, guint index)
{
  JsonObject *k = json_object_get_object_member (o, "kernel");
  if (strcmp (name, "variance") == 0)
    return json_object_get_double_member (k, "variance");
  return json_array_get_double_element (json_object_get_array_member (k, name), index);
}

static char *
read_data (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static double
meta_value (const char *text, const char *key)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (g_str_has_prefix (*l, key) && (*l)[strlen (key)] == ',')
      return g_ascii_strtod (*l + strlen (key) + 1, NULL);
  g_assert_not_reached ();
  return NAN;
}

/* GP regression (tests/data/fit-gpr*, scikit-learn's optimum): the same
 * maximum through skewgp, laplace and ep, whose evidences are all exact
 * for numeric observations. */
static void
test_gpr_sklearn (void)
{
  g_autofree char *csv = read_data ("fit-gpr.csv");
  g_autofree char *meta = read_data ("fit-gpr-meta.csv");
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  GString *obs = g_string_new ("");
  for (char **l = lines + 1; *l && **l; l++)
    {
      g_auto (GStrv) f = g_strsplit (*l, ",", -1);
      g_string_append_printf (obs, "%s{\"kind\": \"numeric\", \"x\": [%s], \"y\": %s}",
                              obs->len ? ", " : "", f[0], f[1]);
    }
  const char *methods[] = { "skewgp", "laplace", "ep" };
  for (gsize k = 0; k < G_N_ELEMENTS (methods); k++)
    {
      g_autofree char *doc = g_strdup_printf (
        "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [1]},"
        " \"noise\": {\"numeric_sd\": 0.5}, \"observations\": [%s],"
        " \"fit\": {\"free\": [\"lengthscales\", \"variance\", \"numeric_sd\"],"
        "          \"method\": \"%s\", \"restarts\": 2, \"max_evaluations\": 1000}}",
        obs->str, methods[k]);
      CliResult r;
      JsonObject *o = run_ok ("fit", doc, &r);
      double lml = json_object_get_double_member (o, "log_marginal_likelihood");
      double ref = meta_value (meta, "log_marginal_likelihood");
      g_test_message ("%s: lml %.9f (sklearn %.9f)", methods[k], lml, ref);
      /* Default tolerances (xtol 1e-3 in log units): the value at a
       * maximum is second order in the step, ~1e-6 of the curvature;
       * the maximiser to ~1e-2 relative. */
      g_assert_cmpfloat (fabs (lml - ref), <, 1e-4);
      g_assert_cmpfloat (fabs (kernel_member (o, "lengthscales", 0)
                               / meta_value (meta, "lengthscales") - 1), <, 2e-2);
      g_assert_cmpfloat (fabs (kernel_member (o, "variance", 0)
                               / meta_value (meta, "variance") - 1), <, 5e-2);
      JsonObject *noise = json_object_get_object_member (o, "noise");
      g_assert_cmpfloat (fabs (json_object_get_double_member (noise, "numeric_sd")
                               / meta_value (meta, "noise_sd") - 1), <, 2e-2);
      g_assert_cmpfloat (json_object_get_double_member (o, "log_marginal_likelihood_error"),
                         ==, 0);
      g_assert_cmpstr (json_object_get_string_member (o, "method"), ==, methods[k]);
      g_assert_cmpstr (json_object_get_string_member (o, "stopped_by"), ==, "converged");
      g_assert_cmpint (json_object_get_int_member (o, "starts"), ==, 3);
      cli_result_clear (&r);
    }
  g_string_free (obs, TRUE);
}

#define DUELS \
  "\"observations\": [" \
  "{\"kind\": \"preference\", \"winner\": [0.1], \"loser\": [1.2]}," \
  "{\"kind\": \"preference\", \"winner\": [-0.3], \"loser\": [2.0]}," \
  "{\"kind\": \"preference\", \"winner\": [0.0], \"loser\": [-1.5]}," \
  "{\"kind\": \"preference\", \"winner\": [0.4], \"loser\": [-0.9]}," \
  "{\"kind\": \"preference\", \"winner\": [1.3], \"loser\": [0.9]}," \
  "{\"kind\": \"preference\", \"winner\": [-1.2], \"loser\": [-0.6]}," \
  "{\"kind\": \"preference\", \"winner\": [2.2], \"loser\": [-2.0]}," \
  "{\"kind\": \"preference\", \"winner\": [-1.0], \"loser\": [1.6]}]"

/* A preference fit: improves on the start, is reproducible, and its
 * fitted model pasted into `skewgp posterior` gives the same evidence. */
static void
test_preferences_roundtrip (void)
{
  const char *doc =
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.5]}, "
    DUELS ", \"predict\": {\"points\": [[0]]},"
    " \"fit\": {\"restarts\": 2, \"seed\": 4}}";
  CliResult r1, r2;
  JsonObject *o = run_ok ("fit", doc, &r1);
  run_ok ("fit", doc, &r2);
  /* Same seed: the same numbers, except the wall-clock time. */
  JsonObject *o2 = json_node_get_object (r2.json);
  g_assert_cmpfloat (json_object_get_double_member (o, "log_marginal_likelihood"), ==,
                     json_object_get_double_member (o2, "log_marginal_likelihood"));
  g_assert_cmpfloat (kernel_member (o, "lengthscales", 0), ==,
                     kernel_member (o2, "lengthscales", 0));
  double lml = json_object_get_double_member (o, "log_marginal_likelihood");
  double err = json_object_get_double_member (o, "log_marginal_likelihood_error");
  double start = json_object_get_double_member (o, "start_log_marginal_likelihood");
  g_assert_cmpfloat (lml, >, start);
  g_assert_cmpfloat (err, >, 0);
  g_assert_cmpfloat (err, <, 0.05);
  g_assert_cmpint (json_object_get_int_member (o, "evaluations"), <=, 400);

  /* Paste the fitted kernel, mean and noise into a posterior document. */
  JsonObject *k = json_object_get_object_member (o, "kernel");
  JsonObject *noise = json_object_get_object_member (o, "noise");
  g_autofree char *post_doc = g_strdup_printf (
    "{\"kernel\": {\"type\": \"%s\", \"variance\": %.17g, \"lengthscales\": [%.17g]},"
    " \"mean\": %.17g, \"noise\": {\"numeric_sd\": %.17g, \"probit_sd\": %.17g}, "
    DUELS ", \"predict\": {\"points\": [[0]], \"samples\": 200}}",
    json_object_get_string_member (k, "type"), kernel_member (o, "variance", 0),
    kernel_member (o, "lengthscales", 0), json_object_get_double_member (o, "mean"),
    json_object_get_double_member (noise, "numeric_sd"),
    json_object_get_double_member (noise, "probit_sd"));
  CliResult rp;
  JsonObject *po = run_ok ("posterior", post_doc, &rp);
  double lml_post = json_object_get_double_member (po, "log_marginal_likelihood");
  double err_post = json_object_get_double_member (po, "log_marginal_likelihood_error");
  g_test_message ("fit %.6f +- %.1e, posterior %.6f +- %.1e", lml, err, lml_post, err_post);
  /* two independent estimates with ~99% error bars */
  g_assert_cmpfloat (fabs (lml - lml_post), <, err + err_post);
  cli_result_clear (&rp);
  cli_result_clear (&r1);
  cli_result_clear (&r2);
}

/* A SkewGP_1 prior: gamma and the pseudo-point free, in their bounds. */
static void
test_skew_prior (void)
{
  const char *doc =
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 2, \"lengthscales\": [0.6]}, "
    "\"skew\": {\"pseudo_points\": [[0.3]], \"phases\": [1], \"gamma\": [0]}, "
    DUELS ", \"fit\": {\"free\": [\"gamma\", \"pseudo_points\"], \"restarts\": 1,"
    " \"bounds\": {\"gamma\": [-2, 2], \"pseudo_points\": [[-1, 1]]}}}";
  CliResult r;
  JsonObject *o = run_ok ("fit", doc, &r);
  JsonObject *skew = json_object_get_object_member (o, "skew");
  g_assert_nonnull (skew);
  double gamma = json_array_get_double_element (json_object_get_array_member (skew, "gamma"), 0);
  JsonArray *u = json_object_get_array_member (skew, "pseudo_points");
  double u0 = json_array_get_double_element (json_array_get_array_element (u, 0), 0);
  g_assert_cmpfloat (gamma, >=, -2);
  g_assert_cmpfloat (gamma, <=, 2);
  g_assert_cmpfloat (u0, >=, -1);
  g_assert_cmpfloat (u0, <=, 1);
  g_assert_cmpfloat (json_array_get_double_element (json_object_get_array_member (skew, "phases"), 0),
                     ==, 1);
  /* the kernel was not free */
  g_assert_cmpfloat (kernel_member (o, "variance", 0), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (o, "objective"), >=,
                     json_object_get_double_member (o, "start_log_marginal_likelihood"));
  cli_result_clear (&r);
}

static void
test_budget (void)
{
  const char *doc =
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.5]}, "
    DUELS ", \"fit\": {\"max_evaluations\": 5, \"algorithm\": \"sbplx\"}}";
  CliResult r;
  JsonObject *o = run_ok ("fit", doc, &r);
  g_assert_cmpint (json_object_get_int_member (o, "evaluations"), <=, 5);
  g_assert_cmpstr (json_object_get_string_member (o, "stopped_by"), ==, "max_evaluations");
  cli_result_clear (&r);
}

static void
test_help (void)
{
  CliResult r = cli_run ("fit", "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  const char *fields[] = { "\"free\"", "\"method\"", "\"restarts\"", "\"seed\"",
                           "\"bounds\"", "\"max_evaluations\"", "\"max_seconds\"",
                           "\"points\"", "\"final_points\"", "\"link\"", "\"algorithm\"",
                           "\"observations\"", "stopped_by" };
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    g_assert_nonnull (strstr (r.out, fields[i]));
  cli_result_clear (&r);
}

#define HEAD "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.5]}, " DUELS

static void
test_bad_input (void)
{
  cli_assert_input_error ("fit", HEAD "}", "'fit'");
  cli_assert_input_error ("fit", HEAD ", \"fit\": 3}", "'fit'");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"free\": [\"colour\"]}}", "fit.free");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"free\": \"variance\"}}", "fit.free");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"free\": [\"gamma\"]}}", "fit.free");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"method\": \"mcmc\"}}", "fit.method");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"link\": \"logistic\"}}", "fit.link");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"algorithm\": 7}}", "algorithm");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"restarts\": -1}}", "restarts");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"max_seconds\": -1}}", "fit.max_seconds");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"points\": 3}}", "points");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"colour\": 3}}", "colour");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"bounds\": {\"variance\": [0, 1]}}}",
                          "fit.bounds.variance");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"bounds\": {\"mean\": [1]}}}",
                          "fit.bounds.mean");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"bounds\": {\"lengthscales\": "
                          "[[0.1, 1], [0.1, 1]]}}}", "fit.bounds.lengthscales");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"bounds\": {\"colour\": [0, 1]}}}",
                          "colour");
  cli_assert_input_error ("fit",
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.5]}, "
    "\"skew\": {\"pseudo_points\": [[0.3]], \"phases\": [1], \"gamma\": [0]}, "
    DUELS ", \"fit\": {\"method\": \"laplace\"}}", "fit.method");
  cli_assert_input_error ("fit",
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.5]}, "
    "\"observations\": [], \"fit\": {}}", "observations");
  /* model errors come from the shared model reader */
  cli_assert_input_error ("fit", "{\"kernel\": {\"type\": \"rbf\", \"variance\": -1, "
                          "\"lengthscales\": [0.5]}, " DUELS ", \"fit\": {}}", "variance");
}

#define ANSWERS \
  "\"observations\": [" \
  "{\"kind\": \"tie\", \"a\": [0.1], \"b\": [0.3]}," \
  "{\"kind\": \"tie\", \"a\": [-0.5], \"b\": [0.6]}," \
  "{\"kind\": \"preference\", \"winner\": [0.0], \"loser\": [-1.5], \"tie_offered\": true," \
  " \"shown_first\": \"winner\", \"confidence\": \"strong\"}," \
  "{\"kind\": \"preference\", \"winner\": [1.3], \"loser\": [0.9], \"tie_offered\": true," \
  " \"shown_first\": \"winner\", \"confidence\": \"weak\"}," \
  "{\"kind\": \"choice\", \"chosen\": [0.2], \"others\": [[1.5], [-1.1], [2.0]]," \
  " \"shown_first\": 0}," \
  "{\"kind\": \"ranking\", \"order\": [[0.4], [-0.9], [-2.0]]}]"

/* The new groups are fitted on every answer kind, stay in their bounds,
 * and the fitted model pasted into `skewgp posterior` gives the evidence
 * fit reported. */
static void
test_answers (void)
{
  const char *doc =
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.8]}, "
    ANSWERS ", \"fit\": {\"free\": [\"tie_margin\", \"side_bias\", \"confidence\"],"
    " \"restarts\": 1, \"bounds\": {\"tie_margin\": [0.05, 2], \"side_bias\": [-1, 1]}}}";
  CliResult r;
  JsonObject *o = run_ok ("fit", doc, &r);
  double lml = json_object_get_double_member (o, "log_marginal_likelihood");
  double err = json_object_get_double_member (o, "log_marginal_likelihood_error");
  g_assert_cmpfloat (lml, >, json_object_get_double_member (o, "start_log_marginal_likelihood"));
  JsonObject *noise = json_object_get_object_member (o, "noise");
  double tie = json_object_get_double_member (noise, "tie_margin");
  double bias = json_object_get_double_member (noise, "side_bias");
  double weak = json_object_get_double_member (noise, "weak_scale");
  double strong = json_object_get_double_member (noise, "strong_scale");
  g_test_message ("tie %g bias %g weak %g strong %g lml %g", tie, bias, weak, strong, lml);
  g_assert_cmpfloat (tie, >=, 0.05);
  g_assert_cmpfloat (tie, <=, 2);
  g_assert_cmpfloat (fabs (bias), <=, 1);
  g_assert_cmpfloat (weak, >=, 1);
  g_assert_cmpfloat (strong, <=, 1);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_object_get_member (o, "noise"));
  g_autofree char *noise_json = json_generator_to_data (gen, NULL);
  g_autofree char *post = g_strdup_printf (
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.8]}, "
    "\"noise\": %s, " ANSWERS ", \"predict\": {\"points\": [[0]], \"samples\": 200}}",
    noise_json);
  CliResult p;
  JsonObject *po = run_ok ("posterior", post, &p);
  double plml = json_object_get_double_member (po, "log_marginal_likelihood");
  double perr = json_object_get_double_member (po, "log_marginal_likelihood_error");
  g_assert_cmpfloat (fabs (plml - lml), <, err + perr + 1e-9);
  cli_result_clear (&p);
  cli_result_clear (&r);

  /* Laplace and EP cannot take ties, larger choices or rankings */
  cli_assert_input_error ("fit",
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.8]}, "
    ANSWERS ", \"fit\": {\"method\": \"ep\"}}", "fit.method: 'ep' cannot take observations[0]");
  cli_assert_input_error ("fit",
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.8]}, "
    "\"observations\": [{\"kind\": \"ranking\", \"order\": [[0], [1]]}],"
    " \"fit\": {\"method\": \"laplace\"}}", "observations[0] (a ranking)");
  cli_assert_input_error ("fit", HEAD ", \"fit\": {\"bounds\": {\"tie_margin\": [0, 1]}}}",
                          "fit.bounds.tie_margin");
}

/* A numeric value of 1e300 overflows every evaluation: exit 1. */
static void
test_numeric_failure (void)
{
  const char *doc =
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.5]},"
    " \"observations\": [{\"kind\": \"numeric\", \"x\": [0.3], \"y\": 1e300},"
    "                    {\"kind\": \"numeric\", \"x\": [0.5], \"y\": -1e300}],"
    " \"fit\": {\"restarts\": 0, \"max_evaluations\": 20}}";
  CliResult r = cli_run ("fit", NULL, doc);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "fit"));
  cli_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/fit/help", test_help);
  g_test_add_func ("/cli/fit/gpr-sklearn", test_gpr_sklearn);
  g_test_add_func ("/cli/fit/preferences-roundtrip", test_preferences_roundtrip);
  g_test_add_func ("/cli/fit/skew-prior", test_skew_prior);
  g_test_add_func ("/cli/fit/budget", test_budget);
  g_test_add_func ("/cli/fit/bad-input", test_bad_input);
  g_test_add_func ("/cli/fit/numeric-failure", test_numeric_failure);
  g_test_add_func ("/cli/fit/answers", test_answers);
  return g_test_run ();
}
