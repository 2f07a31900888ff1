/* test-cli-posterior.c — `skewgp posterior` end to end: a case with a
 * closed-form answer, a mixed data set, and bad input naming the field. */
#include "cli-harness.h"

#include <math.h>
#include <string.h>

#define KERNEL_2D "\"kernel\": {\"type\": \"rbf\", \"variance\": 1.0, \"lengthscales\": [0.5, 0.7]}"

/* One numeric observation: everything is Gaussian and known in closed form.
 * f(0) ~ N(0.5, 2), y = 1, noise sd 0.5: p(y) = N(1; 0.5, 2.25),
 * f(0) | y ~ N(0.5 + 2/2.25 * 0.5, 2 - 4/2.25). */
static void
test_closed_form (void)
{
  const char *doc =
    "{\"kernel\": {\"type\": \"matern52\", \"variance\": 2.0, \"lengthscales\": [1.0]},"
    " \"mean\": 0.5, \"noise\": {\"numeric_sd\": 0.5},"
    " \"observations\": [{\"kind\": \"numeric\", \"x\": [0], \"y\": 1}],"
    " \"predict\": {\"points\": [[0]], \"samples\": 100, \"seed\": 3}}";
  CliResult r = cli_run ("posterior", NULL, doc);
  if (r.status != 0)
    g_test_message ("stderr: %s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (r.json);
  JsonObject *o = json_node_get_object (r.json);
  double lml = json_object_get_double_member (o, "log_marginal_likelihood");
  double want = -0.5 * log (2 * M_PI * 2.25) - 0.5 * 0.25 / 2.25;
  /* exact Gaussian formulas on both sides: round-off only */
  g_assert_cmpfloat (fabs (lml - want), <, 1e-12);
  g_assert_cmpfloat (json_object_get_double_member (o, "log_marginal_likelihood_error"), ==, 0);
  JsonArray *pts = json_object_get_array_member (o, "points");
  g_assert_cmpuint (json_array_get_length (pts), ==, 1);
  JsonObject *p = json_array_get_object_element (pts, 0);
  double mean = 0.5 + 2 / 2.25 * 0.5, sd = sqrt (2 - 4 / 2.25);
  g_assert_cmpfloat (fabs (json_object_get_double_member (p, "mean") - mean), <, 1e-12);
  g_assert_cmpfloat (fabs (json_object_get_double_member (p, "sd") - sd), <, 1e-12);
  g_assert_cmpfloat (fabs (json_object_get_double_member (p, "skewness")), <, 1e-12);
  g_assert_false (json_object_has_member (p, "prob_better"));
  /* the median of 100 draws of a Gaussian: within 5 standard errors
   * (se of a sample median = 1.2533 sd / sqrt(N)) */
  g_assert_cmpfloat (fabs (json_object_get_double_member (p, "median") - mean), <,
                     5 * 1.2533 * sd / 10);
  cli_result_clear (&r);
}

static void
test_mixed (void)
{
  const char *doc =
    "{" KERNEL_2D ", \"mean\": 0,"
    " \"skew\": {\"pseudo_points\": [[0.5, 0.5]], \"phases\": [-1], \"gamma\": [0.3]},"
    " \"noise\": {\"numeric_sd\": 0.2, \"probit_sd\": 0.5},"
    " \"observations\": ["
    "  {\"kind\": \"numeric\", \"x\": [0, 0], \"y\": 0.3},"
    "  {\"kind\": \"binary\", \"x\": [1, 0], \"label\": -1},"
    "  {\"kind\": \"preference\", \"winner\": [0, 1], \"loser\": [1, 1]},"
    "  {\"kind\": \"valid\", \"x\": [0.5, 0], \"y\": 0.8, \"threshold\": 0.1},"
    "  {\"kind\": \"invalid\", \"x\": [1, 0.5], \"threshold\": 0.1}],"
    " \"predict\": {\"points\": [[0, 1], [1, 1], [0.2, 0.3]], \"reference\": [0, 0],"
    "   \"samples\": 1000, \"seed\": 1, \"credible\": 0.9}}";
  CliResult r = cli_run ("posterior", NULL, doc);
  if (r.status != 0)
    g_test_message ("stderr: %s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = json_node_get_object (r.json);
  g_assert_true (isfinite (json_object_get_double_member (o, "log_marginal_likelihood")));
  JsonArray *pts = json_object_get_array_member (o, "points");
  g_assert_cmpuint (json_array_get_length (pts), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *p = json_array_get_object_element (pts, i);
      double lo = json_object_get_double_member (p, "lower");
      double med = json_object_get_double_member (p, "median");
      double hi = json_object_get_double_member (p, "upper");
      double hlo = json_object_get_double_member (p, "hpd_lower");
      double hhi = json_object_get_double_member (p, "hpd_upper");
      double cp = json_object_get_double_member (p, "class_probability");
      double pb = json_object_get_double_member (p, "prob_better");
      g_assert_cmpfloat (lo, <, med);
      g_assert_cmpfloat (med, <, hi);
      g_assert_cmpfloat (hlo, <, hhi);
      /* the HPD interval is the shortest one with the same coverage */
      g_assert_cmpfloat (hhi - hlo, <=, hi - lo + 1e-12);
      g_assert_cmpfloat (cp, >, 0);
      g_assert_cmpfloat (cp, <, 1);
      g_assert_cmpfloat (pb, >=, 0);
      g_assert_cmpfloat (pb, <=, 1);
    }
  /* the preference says f([0,1]) > f([1,1]) */
  double m0 = json_object_get_double_member (json_array_get_object_element (pts, 0), "mean");
  double m1 = json_object_get_double_member (json_array_get_object_element (pts, 1), "mean");
  g_assert_cmpfloat (m0, >, m1);
  cli_result_clear (&r);
}

#define OBS_OK "{\"kind\": \"numeric\", \"x\": [0, 0], \"y\": 1}"
#define PREDICT_OK "\"predict\": {\"points\": [[0, 0]]}"

static void
test_bad_input (void)
{
  /* the example of the contract */
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [" OBS_OK ", " OBS_OK ", " OBS_OK ","
    " {\"kind\": \"numeric\", \"x\": [0], \"y\": 1}], " PREDICT_OK "}",
    "observations[3].x has 1 entries, expected 2");
  cli_assert_input_error ("posterior", "{\"observations\": [], " PREDICT_OK "}",
                          "'kernel' is required");
  cli_assert_input_error ("posterior",
    "{\"kernel\": {\"type\": \"cubic\", \"variance\": 1, \"lengthscales\": [1]},"
    " \"observations\": [], \"predict\": {\"points\": [[0]]}}", "kernel.type");
  cli_assert_input_error ("posterior",
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": -1, \"lengthscales\": [1]},"
    " \"observations\": [], \"predict\": {\"points\": [[0]]}}", "kernel.variance");
  cli_assert_input_error ("posterior",
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [1, 0]},"
    " \"observations\": [], " PREDICT_OK "}", "kernel.lengthscales[1]");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [{\"kind\": \"binary\", \"x\": [0, 0], \"label\": 0}], "
    PREDICT_OK "}", "observations[0].label must be 1 or -1");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [{\"kind\": \"preference\", \"winner\": [0, 0],"
    " \"loser\": [0, 0]}], " PREDICT_OK "}", "observations[0]: winner and loser");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [{\"kind\": \"preference\", \"winner\": [0, 0]}], "
    PREDICT_OK "}", "observations[0].loser");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [{\"kind\": \"valid\", \"x\": [0, 0], \"y\": 1}], "
    PREDICT_OK "}", "observations[0].threshold");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [{\"kind\": \"guess\", \"x\": [0, 0]}], "
    PREDICT_OK "}", "observations[0].kind");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [{\"kind\": \"numeric\", \"x\": [0, 0], \"y\": 1,"
    " \"z\": 2}], " PREDICT_OK "}", "unknown field 'z' in observations[0]");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"skew\": {\"pseudo_points\": [[0, 0]], \"phases\": [0.5],"
    " \"gamma\": [0]}, \"observations\": [], " PREDICT_OK "}", "skew.phases[0]");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"skew\": {\"pseudo_points\": [[0, 0, 1]], \"phases\": [1],"
    " \"gamma\": [0]}, \"observations\": [], " PREDICT_OK "}", "skew.pseudo_points");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"skew\": {\"pseudo_points\": [[0, 0]], \"phases\": [1],"
    " \"gamma\": [0, 1]}, \"observations\": [], " PREDICT_OK "}", "skew.gamma");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"noise\": {\"numeric_sd\": 0}, \"observations\": [], " PREDICT_OK "}",
    "noise.numeric_sd");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [" OBS_OK "]}", "'predict' is required");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [" OBS_OK "], \"predict\": {\"points\": [[0]]}}",
    "'points' has 1 columns, expected 2");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [" OBS_OK "], \"predict\": {\"points\": [[0, 0]],"
    " \"credible\": 1.5}}", "predict.credible");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [" OBS_OK "], \"predict\": {\"points\": [[0, 0]],"
    " \"reference\": [1]}}", "'reference' has 1 entries, expected 2");
  cli_assert_input_error ("posterior",
    "{" KERNEL_2D ", \"observations\": [" OBS_OK "], " PREDICT_OK ", \"extra\": 1}",
    "unknown field 'extra'");
  cli_assert_input_error ("posterior", "{\"kernel\": ", "malformed JSON");
}

/* A kernel variance that overflows the covariance is a numerical failure:
 * exit 1, one line on stderr, nothing on stdout. */
static void
test_numeric_failure (void)
{
  CliResult r = cli_run ("posterior", NULL,
    "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1e308, \"lengthscales\": [1]},"
    " \"observations\": [{\"kind\": \"preference\", \"winner\": [0], \"loser\": [5]}],"
    " \"predict\": {\"points\": [[0]]}}");
  g_test_message ("status %d, stderr: %s", r.status, r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (strchr (r.err, '\n') == r.err + strlen (r.err) - 1);
  cli_result_clear (&r);
}

/* Non-finite results exit 1 naming the quantity, never null with exit 0:
 * y = +-1e308 under a prior of variance 2 (log marginal likelihood below
 * -1.8e308; was null with exit 0), and y = 1e150, whose posterior mean
 * 8.9e149 cannot hold the samples' spread of sd 0.47 (the sd printed was
 * rounding noise, 9e134). */
static void
test_non_finite (void)
{
#define ONE_D "{\"kernel\": {\"type\": \"matern52\", \"variance\": 2.0, \"lengthscales\": [1.0]}," \
  " \"mean\": 0.5, \"noise\": {\"numeric_sd\": 0.5}, \"predict\": {\"points\": [[0]], " \
  "\"samples\": 100, \"seed\": 3}, "
  cli_assert_numeric_error ("posterior", ONE_D "\"observations\": ["
                            "{\"kind\": \"numeric\", \"x\": [0], \"y\": 1e308},"
                            "{\"kind\": \"numeric\", \"x\": [1], \"y\": -1e308}]}",
                            "log marginal likelihood");
  cli_assert_numeric_error ("posterior", ONE_D "\"observations\": ["
                            "{\"kind\": \"numeric\", \"x\": [0], \"y\": 1e150}]}",
                            "posterior mean");
  /* y = 1e6 is fine: mean 0.5 + (2 / 2.25) (1e6 - 0.5), exact formulas */
  CliResult r = cli_run ("posterior", NULL, ONE_D "\"observations\": ["
                         "{\"kind\": \"numeric\", \"x\": [0], \"y\": 1e6}]}");
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *p = json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (r.json), "points"), 0);
  double mean = 0.5 + 2 / 2.25 * (1e6 - 0.5);
  g_assert_cmpfloat (fabs (json_object_get_double_member (p, "mean") - mean), <, 1e-6);
  cli_result_clear (&r);
#undef ONE_D
}

/* 5000 observations at most (0.8 GB measured at 5000); samples x
 * (observations + pseudo-points) <= 5e7. */
static void
test_size_limits (void)
{
  GString *doc = g_string_new ("{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, "
                               "\"lengthscales\": [0.3]}, \"noise\": {\"numeric_sd\": 0.1}, "
                               "\"predict\": {\"points\": [[0.5]]}, \"observations\": [");
  for (int i = 0; i < 5001; i++)
    g_string_append_printf (doc, "%s{\"kind\": \"numeric\", \"x\": [%d], \"y\": 0}",
                            i ? "," : "", i);
  g_string_append (doc, "]}");
  cli_assert_input_error ("posterior", doc->str, "5001 observations, above the limit of 5000");
  g_string_free (doc, TRUE);
  cli_assert_input_error ("posterior",
                          "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [1]},"
                          " \"noise\": {\"numeric_sd\": 0.1}, \"observations\": ["
                          "{\"kind\": \"numeric\", \"x\": [0], \"y\": 0},"
                          "{\"kind\": \"numeric\", \"x\": [1], \"y\": 0},"
                          "{\"kind\": \"numeric\", \"x\": [2], \"y\": 0},"
                          "{\"kind\": \"numeric\", \"x\": [3], \"y\": 0},"
                          "{\"kind\": \"numeric\", \"x\": [4], \"y\": 0},"
                          "{\"kind\": \"numeric\", \"x\": [5], \"y\": 0}],"
                          " \"predict\": {\"points\": [[0]], \"samples\": 10000000}}",
                          "exceed the limit of 5e+07 numbers");
}

/* ---- human answers ---------------------------------------------------------- */

#define KERNEL_1D "\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [0.8]}"
#define NOISE_ANSWERS "\"noise\": {\"probit_sd\": 0.5, \"tie_margin\": 0.3, \"side_bias\": 0.4}"

static double
answers_lml (const char *observations)
{
  g_autofree char *doc = g_strdup_printf (
    "{" KERNEL_1D ", " NOISE_ANSWERS ", \"observations\": [%s],"
    " \"predict\": {\"points\": [[0]], \"samples\": 200}}", observations);
  CliResult r = cli_run ("posterior", NULL, doc);
  if (r.status != 0)
    g_test_message ("stderr: %s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  double lml = json_object_get_double_member (json_node_get_object (r.json),
                                              "log_marginal_likelihood");
  cli_result_clear (&r);
  return lml;
}

static void
test_answers (void)
{
  /* the tie case of tests/test-answers.c, whose evidence matches
   * quadrature of the utility model there (two rows: a closed form) */
  double tie = answers_lml (
    "{\"kind\": \"tie\", \"a\": [0], \"b\": [0.5]},"
    " {\"kind\": \"preference\", \"winner\": [0.5], \"loser\": [1.2],"
    "  \"shown_first\": \"loser\", \"tie_offered\": true}");
  g_assert_cmpfloat (fabs (tie - -2.74626260), <, 1e-7);
  /* a choice of two is a duel; "normal" is no confidence */
  const char *duel = "{\"kind\": \"preference\", \"winner\": [0], \"loser\": [1.2],"
                     " \"confidence\": \"strong\", \"shown_first\": \"winner\"}";
  const char *choice = "{\"kind\": \"choice\", \"chosen\": [0], \"others\": [[1.2]],"
                       " \"confidence\": \"strong\", \"shown_first\": 0}";
  g_assert_cmpfloat (answers_lml (duel), ==, answers_lml (choice));
  g_assert_cmpfloat (answers_lml ("{\"kind\": \"choice\", \"chosen\": [0], \"others\": "
                                  "[[1.2], [0.5]], \"confidence\": \"normal\"}"), ==,
                     answers_lml ("{\"kind\": \"choice\", \"chosen\": [0], \"others\": "
                                  "[[1.2], [0.5]]}"));
  /* P(u1 > u2 > u3) < P(u1 > u2): the ranking holds its first duel */
  double rank = answers_lml ("{\"kind\": \"ranking\", \"order\": [[1.2], [0], [0.5]]}");
  double first = answers_lml ("{\"kind\": \"preference\", \"winner\": [1.2], \"loser\": [0]}");
  g_assert_cmpfloat (rank, <, first);
}

static void
test_bad_answers (void)
{
  static const struct {
    const char *obs, *needle;
  } cases[] = {
    { "{\"kind\": \"choice\", \"chosen\": [0], \"others\": []}",
      "observations[0].others: a choice needs at least one other option" },
    { "{\"kind\": \"choice\", \"chosen\": [0]}", "observations[0].others" },
    { "{\"kind\": \"ranking\", \"order\": [[1]]}",
      "observations[0].order: a ranking needs at least two options" },
    { "{\"kind\": \"ranking\", \"order\": [[1], [2], [1]]}", "observations[0].order" },
    { "{\"kind\": \"tie\", \"a\": [0.5], \"b\": [0.5]}",
      "observations[0]: a and b are the same point" },
    { "{\"kind\": \"choice\", \"chosen\": [0], \"others\": [[1]], \"confidence\": \"sure\"}",
      "observations[0].confidence must be \"weak\", \"normal\" or \"strong\", got \"sure\"" },
    { "{\"kind\": \"preference\", \"winner\": [0], \"loser\": [1], \"confidence\": 2}",
      "observations[0].confidence" },
    { "{\"kind\": \"choice\", \"chosen\": [0], \"others\": [[1]], \"shown_first\": 2}",
      "observations[0].shown_first" },
    { "{\"kind\": \"preference\", \"winner\": [0], \"loser\": [1], \"shown_first\": \"left\"}",
      "observations[0].shown_first must be \"winner\" or \"loser\"" },
    { "{\"kind\": \"choice\", \"chosen\": [0], \"others\": [[0]]}",
      "observations[0]: the chosen and other options" },
    { "{\"kind\": \"tie\", \"a\": [0], \"b\": [1], \"confidence\": \"weak\"}",
      "confidence" },
    { "{\"kind\": \"draw\", \"a\": [0], \"b\": [1]}", "\"tie\", \"choice\", \"ranking\"" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *doc = g_strdup_printf (
        "{" KERNEL_1D ", \"observations\": [%s], \"predict\": {\"points\": [[0]]}}",
        cases[i].obs);
      cli_assert_input_error ("posterior", doc, cases[i].needle);
    }
  cli_assert_input_error ("posterior",
    "{" KERNEL_1D ", \"noise\": {\"tie_margin\": 0}, \"observations\": [],"
    " \"predict\": {\"points\": [[0]]}}", "noise.tie_margin must be positive");
  cli_assert_input_error ("posterior",
    "{" KERNEL_1D ", \"noise\": {\"side_bias\": \"left\"}, \"observations\": [],"
    " \"predict\": {\"points\": [[0]]}}", "noise.side_bias");
}

static void
test_help_documents_answers (void)
{
  CliResult r = cli_run ("posterior", "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  const char *needles[] = { "\"kind\": \"tie\"", "\"kind\": \"choice\"",
                            "\"kind\": \"ranking\"", "tie_margin", "side_bias",
                            "weak_scale", "strong_scale", "shown_first", "tie_offered",
                            "s^2 (I + 11^T)" };
  for (gsize i = 0; i < G_N_ELEMENTS (needles); i++)
    g_assert_nonnull (strstr (r.out, needles[i]));
  cli_result_clear (&r);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/posterior/closed-form", test_closed_form);
  g_test_add_func ("/cli/posterior/non-finite", test_non_finite);
  g_test_add_func ("/cli/posterior/mixed", test_mixed);
  g_test_add_func ("/cli/posterior/bad-input", test_bad_input);
  g_test_add_func ("/cli/posterior/numeric-failure", test_numeric_failure);
  g_test_add_func ("/cli/posterior/size-limits", test_size_limits);
  g_test_add_func ("/cli/posterior/answers", test_answers);
  g_test_add_func ("/cli/posterior/bad-answers", test_bad_answers);
  g_test_add_func ("/cli/posterior/help-documents-answers", test_help_documents_answers);
  return g_test_run ();
}
