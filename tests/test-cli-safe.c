/* test-cli-safe.c — safe mode through `skewgp new / ask / tell / refit /
 * status`, as an engineer tuning a machine that can break uses it:
 * what `new` refuses in safe mode (naming the field), what `status` says
 * of the confidence level and of a safe set that cannot grow, and the
 * engineer's machine end to end (log-scaled gain, integer taps, a
 * temperature with a 2 degree resolution, threshold 50, a safe start):
 * every proposal lies within the measured-safe reach, respects the
 * parameter kinds and the resolution, and the run ends with the budget or
 * with safe_exhausted, with at most one unsafe measurement in 20. */
#include "cli-harness.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

typedef struct {
  char *dir;
  char *experiment;
  char *session;
} Bench;

static void
bench_init (Bench *b, const char *experiment)
{
  b->dir = g_dir_make_tmp ("skewgp-safe-XXXXXX", NULL);
  g_assert_nonnull (b->dir);
  b->experiment = g_build_filename (b->dir, "experiment.json", NULL);
  b->session = g_build_filename (b->dir, "session.json", NULL);
  g_assert_true (g_file_set_contents (b->experiment, experiment, -1, NULL));
}

static void
bench_clear (Bench *b)
{
  g_autoptr (GDir) d = g_dir_open (b->dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (b->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (b->dir);
  g_free (b->dir);
  g_free (b->experiment);
  g_free (b->session);
}

static void
bench_new (Bench *b)
{
  CliResult r = cli_run_args (NULL, "new", b->experiment, b->session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
}

/* The machine: gain on a log scale 0.01-100, integer taps 1-9,
 * temperature 180-260 degrees with a 2 degree resolution, threshold 50,
 * measured safe at gain 1, 3 taps, 210 degrees. */
#define MACHINE_PARAMETERS \
  "\"parameters\": [{\"name\": \"gain\", \"lower\": 0.01, \"upper\": 100, \"scale\": \"log\"},\n" \
  "  {\"name\": \"taps\", \"lower\": 1, \"upper\": 9, \"scale\": \"integer\"},\n" \
  "  {\"name\": \"temperature\", \"lower\": 180, \"upper\": 260, \"unit\": \"C\", " \
  "\"resolution\": 2}]"
#define MACHINE(rest) \
  "{\"title\": \"Machine\", \"mode\": \"safe\", \"budget\": 20, " MACHINE_PARAMETERS rest "}"

/* Safe mode refuses what it cannot serve or must have, naming the field;
 * the same experiment with threshold and safe start is accepted, and a
 * preference experiment still needs neither. */
static void
test_new_refuses (void)
{
  static const struct { const char *json; const char *needle; } bad[] = {
    { MACHINE (", \"safe_start\": [1, 3, 210]"), "safe mode needs 'threshold'" },
    { MACHINE (", \"threshold\": 50"), "safe mode needs a safe start ('safe_start')" },
    { MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210], "
               "\"question\": {\"kind\": \"duel\"}"), "'question': safe mode asks for the "
                                                       "measured value of one setting" },
    { MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210], \"acquisition\": \"ucb\""),
      "'acquisition': safe mode chooses its settings by the SafeOpt rule" },
    { MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210], \"initial\": 3"),
      "'initial': safe mode asks no random settings" },
    { MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210], \"surrogate\": \"random\""),
      "safe mode cannot use the 'random' surrogate" },
    { MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210], \"confidence_level\": 1"),
      "'confidence_level'" },
    { MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3.5, 210]"), "not a whole number" },
  };
  Bench b;

  bench_init (&b, MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210]"));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      CliResult r = cli_run_args (bad[i].json, "new", "-", b.session, NULL);
      if (!r.err || !strstr (r.err, bad[i].needle))
        g_test_message ("expected '%s', got %s", bad[i].needle, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_cmpstr (r.out, ==, "");
      g_assert_nonnull (strstr (r.err, bad[i].needle));
      g_assert_false (g_file_test (b.session, G_FILE_TEST_EXISTS));
      cli_result_clear (&r);
    }
  bench_new (&b);
  {
    /* outside safe mode a threshold and a safe start are not asked for */
    g_autofree char *other = g_build_filename (b.dir, "preference.json", NULL);
    CliResult r = cli_run_args ("{\"title\": \"t\", \"mode\": \"preference\", \"budget\": 5, "
                                "\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 1}]}",
                                "new", "-", other, NULL);
    g_assert_cmpint (r.status, ==, 0);
    cli_result_clear (&r);
    r = cli_run_args (NULL, "status", other, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_false (json_object_has_member (cli_object (&r), "safe_exhausted"));
    g_assert_false (json_object_has_member (cli_object (&r), "confidence_level"));
    cli_result_clear (&r);
  }
  bench_clear (&b);
}

static gint64
ask_id (const CliResult *r)
{
  return json_object_get_int_member (cli_object (r), "question");
}

static void
tell (const Bench *b, gint64 id, const char *answer)
{
  g_autofree char *doc = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", \"answer\": %s}",
                                          id, answer);
  CliResult r = cli_run_args (doc, "tell", b->session, "-", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
}

/* status reports the level, and a safe set that cannot grow as ask does:
 * a safe start measured barely above the threshold (within the
 * measurement noise) makes no other setting safe at 90 %. */
static void
test_status_exhausted (void)
{
  Bench b;
  CliResult r;
  gint64 id;

  bench_init (&b, "{\"title\": \"Barely safe\", \"mode\": \"safe\", \"budget\": 10, "
                  "\"parameters\": [{\"name\": \"x\", \"lower\": 0, \"upper\": 10}], "
                  "\"threshold\": 1, \"safe_start\": [5], \"confidence_level\": 0.9}");
  bench_new (&b);
  r = cli_run_args (NULL, "status", b.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (cli_object (&r), "confidence_level"), ==,
                     0.9);
  g_assert_false (json_object_get_boolean_member (cli_object (&r), "safe_exhausted"));
  g_assert_false (json_object_get_boolean_member (cli_object (&r), "done"));
  cli_result_clear (&r);

  r = cli_run_args (NULL, "ask", b.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  id = ask_id (&r);
  cli_result_clear (&r);
  /* a question is open: not exhausted */
  r = cli_run_args (NULL, "status", b.session, NULL);
  g_assert_false (json_object_get_boolean_member (cli_object (&r), "safe_exhausted"));
  g_assert_cmpint (json_object_get_int_member (cli_object (&r), "open_question"), ==, id);
  cli_result_clear (&r);
  tell (&b, id, "{\"value\": 1.01}");

  r = cli_run_args (NULL, "status", b.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    JsonObject *o = cli_object (&r);
    g_test_message ("status: %s", r.out);
    g_assert_true (json_object_get_boolean_member (o, "safe_exhausted"));
    g_assert_true (json_object_get_boolean_member (o, "done"));
    g_assert_cmpint (json_object_get_int_member (o, "answers"), ==, 1);
    g_assert_nonnull (strstr (json_object_get_string_member (o, "reason"),
                              "Best safe setting found"));
    g_assert_nonnull (strstr (json_object_get_string_member (o, "reason"), "90 %"));
    g_assert_cmpfloat (json_array_get_double_element (json_object_get_array_member (o, "best"), 0),
                       ==, 5);
  }
  cli_result_clear (&r);
  /* ask says the same, and stores no question */
  r = cli_run_args (NULL, "ask", b.session, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (json_object_get_boolean_member (cli_object (&r), "safe_exhausted"));
  cli_result_clear (&r);
  r = cli_run_args (NULL, "status", b.session, NULL);
  g_assert_true (json_object_get_boolean_member (cli_object (&r), "safe_exhausted"));
  g_assert_true (json_object_get_null_member (cli_object (&r), "open_question"));
  cli_result_clear (&r);
  bench_clear (&b);
}

/* ---- The engineer's machine ----------------------------------------------- */

/* The machine's output at gain G, T taps and temperature C: 100 at its
 * best (gain e^0.9, 5 taps, 220 degrees), falling off with a correlated
 * quadratic form in (ln G, T, C); it breaks (no output) below 25. */
static double
machine_output (const double *x)
{
  double a = (log (x[0]) - 0.9) / 1.6, b = (x[1] - 5) / 3.0, c = (x[2] - 220) / 22.0;
  return 100 * exp (-0.5 * (a * a + b * b + c * c + 0.6 * a * c));
}

#define THRESHOLD 50.0
#define BREAKS 25.0
#define BUDGET 20
#define DIM 3

/* The model's coordinates: ln gain, taps, temperature. */
static void
to_model (const double *x, double *z)
{
  z[0] = log (x[0]);
  z[1] = x[1];
  z[2] = x[2];
}

/* The reach of one step along each coordinate: safe mode's lengthscales
 * are at most the larger of their default (5 % of the range, 2 for an
 * integer) and the spread of the measured settings, and a proposal lies
 * within one lengthscale of a setting measured safe. */
static void
reach_of (const double (*z)[DIM], guint n, double *reach)
{
  const double range[DIM] = { log (100) - log (0.01), 8, 80 };
  for (guint j = 0; j < DIM; j++)
    {
      double spread = 0;
      for (guint a = 0; a < n; a++)
        for (guint c = a + 1; c < n; c++)
          spread = fmax (spread, fabs (z[a][j] - z[c][j]));
      reach[j] = fmax (j == 1 ? 2 : 0.05 * range[j], spread);
    }
}

/* Safe mode's resolution: 0.5 % of the range of ln gain, a whole tap,
 * the 2 degrees given. Two settings closer than it in every coordinate
 * are the same setting. */
static gboolean
same_setting (const double *z, const double *w)
{
  return fabs (z[0] - w[0]) <= 0.005 * (log (100) - log (0.01)) && z[1] == w[1]
         && fabs (z[2] - w[2]) <= 2;
}

static void
check_option (JsonArray *option, double *x)
{
  JsonNode *taps = json_array_get_element (option, 1);

  g_assert_cmpuint (json_array_get_length (option), ==, DIM);
  g_assert_true (json_node_get_value_type (taps) == G_TYPE_INT64);
  for (guint j = 0; j < DIM; j++)
    x[j] = json_array_get_double_element (option, j);
  g_assert_cmpfloat (x[0], >=, 0.01);
  g_assert_cmpfloat (x[0], <=, 100);
  g_assert_cmpint (json_node_get_int (taps), >=, 1);
  g_assert_cmpint (json_node_get_int (taps), <=, 9);
  g_assert_cmpfloat (x[2], >=, 180);
  g_assert_cmpfloat (x[2], <=, 260);
}

static void
test_machine (void)
{
  Bench b;
  double z[BUDGET][DIM], y[BUDGET];
  gboolean safe[BUDGET];
  guint n = 0, unsafe = 0;
  gboolean exhausted = FALSE;
  double best = -INFINITY;

  bench_init (&b, MACHINE (", \"threshold\": 50, \"safe_start\": [1, 3, 210], \"seed\": 5"));
  bench_new (&b);
  for (;;)
    {
      CliResult r = cli_run_args (NULL, "ask", b.session, NULL);
      JsonObject *o = cli_object (&r);
      double x[DIM], zx[DIM], reach[DIM];
      gint64 id;
      gboolean in_reach = FALSE;

      g_assert_cmpint (r.status, ==, 0);
      if (json_object_has_member (o, "done"))
        {
          g_assert_true (json_object_get_boolean_member (o, "done"));
          exhausted = json_object_has_member (o, "safe_exhausted")
                      && json_object_get_boolean_member (o, "safe_exhausted");
          g_assert_true (exhausted || n == BUDGET);
          if (exhausted)
            g_test_message ("after %u measurements: %s", n,
                            json_object_get_string_member (o, "reason"));
          cli_result_clear (&r);
          break;
        }
      g_assert_cmpuint (n, <, BUDGET);
      g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, "value");
      check_option (json_array_get_array_element (json_object_get_array_member (o, "options"),
                                                  0), x);
      id = ask_id (&r);
      /* the engineer sees the model's P(safe) before setting the machine:
       * at least the confidence level (95 %) for every setting a model
       * chose, and the same when the open question is printed again */
      if (n == 0)
        g_assert_false (json_object_has_member (o, "prob_safe"));
      else
        {
          double p = json_object_get_double_member (o, "prob_safe");
          CliResult again = cli_run_args (NULL, "ask", b.session, NULL);
          g_assert_cmpfloat (p, >=, 0.95);
          g_assert_cmpfloat (p, <=, 1);
          g_assert_cmpfloat (json_object_get_double_member (cli_object (&again), "prob_safe"), ==, p);
          cli_result_clear (&again);
        }
      cli_result_clear (&r);
      to_model (x, zx);
      if (n == 0)
        {
          /* the safe start first */
          g_assert_cmpfloat (fabs (x[0] - 1), <, 1e-9);
          g_assert_cmpfloat (x[1], ==, 3);
          g_assert_cmpfloat (x[2], ==, 210);
        }
      else
        {
          /* a step from a setting measured safe, along the log scale of
           * the gain; never a setting measured already (nor one that
           * failed) within the resolution */
          reach_of (z, n, reach);
          for (guint i = 0; i < n; i++)
            {
              gboolean near = safe[i];
              for (guint j = 0; j < DIM; j++)
                near = near && fabs (zx[j] - z[i][j]) <= reach[j] * (1 + 1e-6);
              in_reach = in_reach || near;
              g_assert_false (same_setting (zx, z[i]));
            }
          if (!in_reach)
            g_test_message ("gain %g, %g taps, %g C is beyond one step (%g, %g, %g) of every "
                            "setting measured safe", x[0], x[1], x[2], reach[0], reach[1],
                            reach[2]);
          g_assert_true (in_reach);
        }
      y[n] = machine_output (x);
      safe[n] = y[n] >= THRESHOLD;
      unsafe += !safe[n];
      if (safe[n])
        best = fmax (best, y[n]);
      memcpy (z[n], zx, sizeof zx);
      g_test_message ("%2u: gain %.4g, %g taps, %.4g C -> %.1f%s", n + 1, x[0], x[1], x[2], y[n],
                      y[n] < BREAKS ? " (broke)" : y[n] < THRESHOLD ? " (unsafe)" : "");
      if (y[n] < BREAKS)
        tell (&b, id, "{\"failed\": true}");
      else
        {
          g_autofree char *v = g_strdup_printf ("{\"value\": %.6f}", y[n]);
          tell (&b, id, v);
        }
      n++;
      {
        /* the engineer's loop refits when the schedule asks */
        CliResult f = cli_run_args (NULL, "refit", b.session, "--if-due", NULL);
        g_assert_cmpint (f.status, ==, 0);
        cli_result_clear (&f);
      }
    }
  g_test_message ("%u measurements, %u unsafe, best safe %.1f (the optimum is 100)", n, unsafe,
                  best);
  /* SafeOpt at 95 %: at most 5 % of the measurements unsafe */
  g_assert_cmpuint (unsafe, <=, 1);
  g_assert_cmpuint (n, >=, 5);
  g_assert_cmpfloat (best, >, 57);  /* better than the safe start */
  {
    CliResult r = cli_run_args (NULL, "status", b.session, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpint (json_object_get_boolean_member (cli_object (&r), "safe_exhausted"), ==,
                     exhausted);
    g_assert_true (json_object_get_boolean_member (cli_object (&r), "done"));
    cli_result_clear (&r);
  }
  bench_clear (&b);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/safe/new-refuses", test_new_refuses);
  g_test_add_func ("/cli/safe/status-exhausted", test_status_exhausted);
  g_test_add_func ("/cli/safe/machine", test_machine);
  return g_test_run ();
}
