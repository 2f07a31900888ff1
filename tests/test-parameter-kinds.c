/* test-parameter-kinds.c — parameter scales in core: the session file
 * (read, validated, written, read again), refusals naming the field, the
 * natural <-> model map, and proposals of the jobs in natural units. */
#include "sb-jobs.h"
#include "sb-parameter-kinds.h"
#include "sb-session.h"
#include "sg-bo.h"

#include <math.h>
#include <string.h>

/* A session file with one parameter of each kind; FONT (when not NULL)
 * replaces the fourth parameter's description, OBSERVATIONS the log. */
static char *
kinds_file (const char *font, const char *observations)
{
  return g_strdup_printf (
    "{\"format\": \"skewbench-session\", \"version\": 1,\n"
    " \"experiment\": {\"title\": \"Kinds\", \"template\": \"custom\", \"mode\": \"preference\",\n"
    "   \"budget\": 20,\n"
    "   \"initial\": 2, \"seed\": 5,\n"
    "   \"parameters\": [\n"
    "     {\"name\": \"gain\", \"lower\": 0.01, \"upper\": 100, \"scale\": \"log\"},\n"
    "     {\"name\": \"taps\", \"lower\": 1, \"upper\": 9, \"scale\": \"integer\"},\n"
    "     {\"name\": \"hue\", \"lower\": 0, \"upper\": 360, \"scale\": \"periodic\", \"unit\": \"°\"},\n"
    "     %s]},\n"
    " \"observations\": [%s]}\n",
    font ? font : "{\"name\": \"font\", \"scale\": \"categorical\", "
                  "\"levels\": [\"serif\", \"sans\", \"mono\"]}",
    observations ? observations : "");
}

static SbSession *
load (const char *text, GError **error)
{
  return sb_session_load_from_data (text, -1, "kinds.json", error);
}

static void
test_round_trip (void)
{
  g_autofree char *text = kinds_file (NULL,
    "{\"kind\": \"duel\", \"a\": [0.5, 3, 350, 2], \"b\": [20, 8, 10, 0], \"winner\": \"a\","
    " \"time\": \"2026-01-01T00:00:00Z\"}");
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = load (text, &error);
  g_autoptr (SbSession) again = NULL;
  g_autofree char *written = NULL, *rewritten = NULL;
  const SbExperiment *exp;

  g_assert_no_error (error);
  exp = sb_session_get_experiment (session);
  g_assert_cmpint (exp->parameters[0].scale, ==, SB_SCALE_LOG);
  g_assert_cmpint (exp->parameters[1].scale, ==, SB_SCALE_INTEGER);
  g_assert_cmpint (exp->parameters[2].scale, ==, SB_SCALE_PERIODIC);
  g_assert_cmpint (exp->parameters[3].scale, ==, SB_SCALE_CATEGORICAL);
  /* the levels imply the range */
  g_assert_cmpfloat (exp->parameters[3].lower, ==, 0);
  g_assert_cmpfloat (exp->parameters[3].upper, ==, 2);
  g_assert_cmpstr (sb_parameter_level_name (&exp->parameters[3], 1), ==, "sans");
  g_assert_null (sb_parameter_level_name (&exp->parameters[3], 1.5));
  g_assert_null (sb_parameter_level_name (&exp->parameters[2], 1));

  written = sb_session_to_data (session, NULL);
  g_assert_nonnull (strstr (written, "\"scale\": \"log\""));
  g_assert_nonnull (strstr (written, "\"scale\": \"categorical\""));
  again = load (written, &error);
  g_assert_no_error (error);
  rewritten = sb_session_to_data (again, NULL);
  g_assert_cmpstr (written, ==, rewritten);
  exp = sb_session_get_experiment (again);
  for (guint j = 0; j < 4; j++)
    g_assert_cmpint (exp->parameters[j].scale, ==,
                     sb_session_get_experiment (session)->parameters[j].scale);
  g_assert_cmpstrv (exp->parameters[3].levels,
                    ((const char *const[]) { "serif", "sans", "mono", NULL }));
  g_assert_cmpfloat (sb_session_get_observation (again, 0)->a[3], ==, 2);
}

/* A file written before scales existed loads as linear and is written
 * back without a "scale" member. */
static void
test_old_file_linear (void)
{
  g_autofree char *text = kinds_file ("{\"name\": \"x\", \"lower\": -1, \"upper\": 1}", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = load (text, &error);
  g_autofree char *written = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (sb_session_get_experiment (session)->parameters[3].scale, ==,
                   SB_SCALE_LINEAR);
  written = sb_session_to_data (session, NULL);
  /* three scaled parameters, the fourth without the member */
  {
    guint n = 0;
    for (const char *p = written; (p = strstr (p, "\"scale\"")); p++)
      n++;
    g_assert_cmpuint (n, ==, 3);
  }
}

/* Bad scales, levels and settings: refused, the message naming the field. */
static void
test_refusals (void)
{
  static const struct { const char *font, *obs, *needle; } bad[] = {
    { "{\"name\": \"font\", \"scale\": \"fancy\", \"lower\": 0, \"upper\": 1}", NULL,
      "unknown scale 'fancy'" },
    { "{\"name\": \"font\", \"scale\": \"log\", \"lower\": -1, \"upper\": 1}", NULL,
      "parameter 'font': a log scale needs 'lower' above 0" },
    { "{\"name\": \"font\", \"scale\": \"categorical\"}", NULL, "'lower' is missing" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"lower\": 0, \"upper\": 1}", NULL,
      "a categorical parameter needs 'levels'" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"a\", \"a\"]}", NULL,
      "'levels': 'a' is listed twice" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"a\", \"\"]}", NULL,
      "'levels': level 2 is empty" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"a\"]}", NULL,
      "'levels' must name 2 or more levels" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"a\", 3]}", NULL,
      "level 2 of 'levels' is not a string" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"a\", \"b\"], "
      "\"lower\": 0, \"upper\": 5}", NULL, "range is its level indices 0 .. 1" },
    { "{\"name\": \"font\", \"scale\": \"categorical\", \"levels\": [\"a\", \"b\"], "
      "\"resolution\": 0.5}", NULL, "'resolution' has no meaning for categorical levels" },
    { "{\"name\": \"font\", \"lower\": 0, \"upper\": 1, \"levels\": [\"a\", \"b\"]}", NULL,
      "'levels' belong to a categorical parameter, not a linear one" },
    { "{\"name\": \"font\", \"scale\": \"integer\", \"lower\": 0, \"upper\": 2.5}", NULL,
      "whole-number 'lower' and 'upper'" },
    { NULL, "{\"kind\": \"duel\", \"a\": [0.5, 3.5, 350, 2], \"b\": [20, 8, 10, 0], "
      "\"winner\": \"a\", \"time\": \"2026-01-01T00:00:00Z\"}",
      "coordinate 2 (taps) of a = 3.5 is not a whole number" },
    { NULL, "{\"kind\": \"duel\", \"a\": [0.5, 3, 350, 0.5], \"b\": [20, 8, 10, 0], "
      "\"winner\": \"a\", \"time\": \"2026-01-01T00:00:00Z\"}",
      "coordinate 4 (font) of a = 0.5 is not a whole number" },
    { NULL, "{\"kind\": \"duel\", \"a\": [0.001, 3, 350, 1], \"b\": [20, 8, 10, 0], "
      "\"winner\": \"a\", \"time\": \"2026-01-01T00:00:00Z\"}",
      "coordinate 1 (gain) of a = 0.001 is outside [0.01, 100]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = kinds_file (bad[i].font, bad[i].obs);
      g_autoptr (GError) error = NULL;
      g_autoptr (SbSession) session = load (text, &error);

      g_assert_null (session);
      g_assert_nonnull (error);
      if (!strstr (error->message, bad[i].needle))
        g_test_message ("case %u: expected '%s' in: %s", i, bad[i].needle, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
    }
}

/* The map: log <-> ln, whole numbers rounded, results inside the range. */
static void
test_model_map (void)
{
  SbParameter log_p = { .name = (char *) "g", .lower = 0.01, .upper = 100,
                        .scale = SB_SCALE_LOG };
  SbParameter int_p = { .name = (char *) "t", .lower = 1, .upper = 9,
                        .scale = SB_SCALE_INTEGER };

  g_assert_cmpfloat_with_epsilon (sb_parameter_to_model (&log_p, 100), log (100), 1e-15);
  /* exp (log (100)) may overshoot 100 by an ulp: kept inside */
  g_assert_cmpfloat (sb_parameter_from_model (&log_p, log (100)), <=, 100);
  g_assert_cmpfloat (sb_parameter_from_model (&log_p, log (0.01)), >=, 0.01);
  g_assert_cmpfloat_with_epsilon (sb_parameter_from_model (&log_p, log (3.5)), 3.5, 1e-14);
  g_assert_cmpfloat (sb_parameter_from_model (&int_p, 4.4), ==, 4);
  g_assert_cmpfloat_with_epsilon (sb_parameter_to_axis (&log_p, 1000 / 10.0), 2, 1e-15);
  g_assert_cmpfloat_with_epsilon (sb_parameter_from_axis (&log_p, -1), 0.1, 1e-15);
  /* a natural resolution of 0.01 at the low end of [0.01, 100] is a log
   * step of log 2 */
  log_p.resolution = 0.01;
  g_assert_cmpfloat_with_epsilon (sb_parameter_model_resolution (&log_p), log (2), 1e-15);
}

/* Proposals in natural units from a loop in model coordinates: the
 * engine's box is log(0.01) .. log(100) for the gain, its kinds are the
 * parameters', and every question of 8 (the random design and the
 * model's) is a setting of the experiment. */
static void
test_proposals (void)
{
  g_autofree char *text = kinds_file (NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = load (text, &error);
  const SbExperiment *exp;

  g_assert_no_error (error);
  exp = sb_session_get_experiment (session);
  for (guint it = 0; it < 8; it++)
    {
      SbJobInput *input = sb_job_input_new (session);
      g_autoptr (SbProposal) q = sb_job_propose (NULL, input, &error);
      g_assert_no_error (error);
      if (it == 0)
        {
          sg_bo *bo = sb_job_replay (input, &error);
          const sg_bo_config *c = sg_bo_get_config (bo);
          g_assert_cmpfloat_with_epsilon (c->lower[0], log (0.01), 1e-15);
          g_assert_cmpfloat_with_epsilon (c->upper[0], log (100), 1e-15);
          g_assert_cmpint (c->kind[0], ==, SG_DIM_LINEAR);
          g_assert_cmpint (c->kind[1], ==, SG_DIM_INTEGER);
          g_assert_cmpint (c->kind[2], ==, SG_DIM_PERIODIC);
          g_assert_cmpint (c->kind[3], ==, SG_DIM_CATEGORICAL);
          sg_bo_free (bo);
        }
      sb_job_input_free (input);
      g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);
      for (guint side = 0; side < 2; side++)
        {
          const double *x = side ? q->b : q->a;
          g_assert_cmpfloat (x[0], >=, 0.01);
          g_assert_cmpfloat (x[0], <=, 100);
          g_assert_cmpfloat (x[1], ==, round (x[1]));
          g_assert_cmpfloat (x[2], <, 360);
          g_assert_nonnull (sb_parameter_level_name (&exp->parameters[3], x[3]));
        }
      /* the gain's utility peaks at 1 (log scale): the model sees a
       * symmetric bump in log space */
      double ua = -pow (log10 (q->a[0]), 2) + (q->a[3] == 2);
      double ub = -pow (log10 (q->b[0]), 2) + (q->b[3] == 2);
      g_assert_true (sb_session_add_duel (session, q->a, q->b, ua >= ub ? 0 : 1, &error));
      g_assert_no_error (error);
    }
}

/* The plots of a model with a log gain: the snapshot's gain axis is
 * log10 (-2 .. 2), the curve grid even along it, the best point and the
 * next question on it, the scales and levels passed on; and a density at
 * a plot point (axis coordinates) is computed. */
static void
test_plot_snapshot (void)
{
  g_autofree char *text = kinds_file (NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = load (text, &error);
  g_autoptr (SbProposal) q = NULL;

  g_assert_no_error (error);
  for (guint it = 0; it < 5; it++)
    {
      SbJobInput *input = sb_job_input_new (session);
      g_clear_pointer (&q, sb_proposal_free);
      q = sb_job_propose (NULL, input, &error);
      sb_job_input_free (input);
      g_assert_no_error (error);
      if (it < 4)
        g_assert_true (sb_session_add_duel (session, q->a, q->b, q->a[0] < q->b[0], &error));
    }
  g_assert_nonnull (q->model);
  {
    SbPlotInput *input = sb_plot_input_new (q->model, session, q, 0, 1);
    g_autoptr (SbPlotSnapshot) snap = sb_job_plot (NULL, input, &error);
    const double *grid, *best;
    const char *const *levels = NULL;
    double lo, hi;
    guint axis;
    gsize n;

    sb_plot_input_free (input);
    g_assert_no_error (error);
    sb_plot_snapshot_get_parameter (snap, 0, &lo, &hi);
    g_assert_cmpfloat_with_epsilon (lo, -2, 1e-12);
    g_assert_cmpfloat_with_epsilon (hi, 2, 1e-12);
    g_assert_cmpint (sb_plot_snapshot_get_parameter_scale (snap, 0, NULL), ==, SB_SCALE_LOG);
    g_assert_cmpint (sb_plot_snapshot_get_parameter_scale (snap, 3, &levels), ==,
                     SB_SCALE_CATEGORICAL);
    g_assert_cmpstr (levels[2], ==, "mono");
    n = sb_plot_snapshot_get_curve_grid (snap, &axis, &grid);
    g_assert_cmpuint (axis, ==, 0);
    g_assert_cmpfloat_with_epsilon (grid[0], -2, 1e-12);
    g_assert_cmpfloat_with_epsilon (grid[n - 1], 2, 1e-12);
    g_assert_cmpfloat_with_epsilon (grid[1] - grid[0], grid[n - 1] - grid[n - 2], 1e-9);
    best = sb_plot_snapshot_get_best (snap);
    g_assert_cmpfloat_with_epsilon (best[0], log10 (q->best[0]), 1e-12);
  }
  {
    double x[4];
    sb_experiment_to_axis (sb_session_get_experiment (session), q->best, x);
    SbDensityInput *input = sb_density_input_new (q->model, 4, x, 1);
    g_autoptr (SbDensityData) d = sb_job_density (NULL, input, &error);
    sb_density_input_free (input);
    g_assert_no_error (error);
    g_assert_nonnull (d);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parameter-kinds/round-trip", test_round_trip);
  g_test_add_func ("/parameter-kinds/old-file-linear", test_old_file_linear);
  g_test_add_func ("/parameter-kinds/refusals", test_refusals);
  g_test_add_func ("/parameter-kinds/model-map", test_model_map);
  g_test_add_func ("/parameter-kinds/proposals", test_proposals);
  g_test_add_func ("/parameter-kinds/plot-snapshot", test_plot_snapshot);
  return g_test_run ();
}
