/* make-demos.c — generates the prepared sessions of the guided demos
 * (ui/sb-demos.c) with the settings of paper 001, reproducibly (fixed
 * seeds; the session times are fixed too, so the files are byte-stable):
 *
 *   build/tests/make-demos resources/demos        write the three files
 *   build/tests/make-demos --check resources/demos  compare (exit 1 if not)
 *
 * preference-skewed.json         001 Figure 5 (sec. 3.2): g(x) = cos(5x) +
 *     exp(-x^2/2) on [-2.6, 2.6] (engine problem cos1d); 25 uniform random
 *     points, 45 random pairs of distinct points, each answered exactly by
 *     g (no preference noise); the duel with the dataset's best point comes
 *     last, so x_r is that point (the paper's x_r = 0.05). Prior: zero
 *     mean, RBF, lengthscale 0.33, variance 50; probit_sd 1/sqrt2 (the
 *     duel likelihood Phi(f(a) - f(b)) of the authors' code).
 * mixed-numeric-preference.json  001 Figure 6 (sec. 3.3) on the data of
 *     Figure 1 (the authors' notebook Mixed_regression_preference):
 *     f(x) = (4 sin(pi x/2) - 0.5 sin(2 pi x)) / 6 at x_i = 5 i / 59,
 *     i = 0..59; values f(x_i) without noise for i < 30 (x < 2.5), duels
 *     "x_i vs x_23" answered exactly by f for i >= 30. Prior: zero mean,
 *     RBF, lengthscale 0.19, variance 1, noise variance 0.001 (numeric_sd
 *     0.0316). The paper does not draw its 60 points' noise; we use the
 *     noise-free values its text describes.
 * safe-step-by-step.json         001 sec. 5.2.3's safe problem (Figures
 *     13-14's setting): the engine problem safe-gp1d (a GP draw, RBF
 *     variance 2, lengthscale ~ U[1, 2], g(0) >= 0, on [-10, 10]) with
 *     threshold 0, start x = 0, answered exactly by the simulated oracle;
 *     sg_bo in safe mode exactly as the application configures it
 *     (core/sb-jobs.c build_config: the SafeOpt rule at the default
 *     confidence level 0.95, 1000 samples), prior RBF variance 2,
 *     lengthscale 1.5 kept fixed; 8 answers. The draw (SAFE_SEED) is the
 *     first seed >= 1 whose run neither stops (nothing new safe) within
 *     the 8 answers and the question after them nor grows the safe set by
 *     maximisers alone: the steps show expanders and maximisers at work;
 *     the same seed is the proposal seed, so the application, replaying
 *     the log, proposes the same next settings.
 */
#include "sb-experiment-templates.h"
#include "sb-json-write.h"
#include "sb-session.h"

#include "sg-bo.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define T0 G_GINT64_CONSTANT (1767225600000000) /* 2026-01-01T00:00:00Z */

#define PREF_SEED 5
#define SAFE_SEED_FIRST 1
#define SAFE_ITERATIONS 8

/* The canonical document with fixed times: the session is serialised,
 * its times replaced (created = T0, answer i at T0 + i s), and parsed and
 * serialised again by the session code itself. */
static char *
canonical (SbSession *session, GError **error)
{
  g_autofree char *data = sb_session_to_data (session, NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *log;
  g_autoptr (GDateTime) t0 = g_date_time_new_from_unix_utc (T0 / G_USEC_PER_SEC);
  g_autofree char *created = g_date_time_format_iso8601 (t0);
  g_autofree char *fixed = NULL;
  g_autoptr (SbSession) again = NULL;

  if (!json_parser_load_from_data (parser, data, -1, error))
    return NULL;
  root = json_node_get_object (json_parser_get_root (parser));
  json_object_set_string_member (root, "created", created);
  log = json_object_get_array_member (root, "observations");
  for (guint i = 0; i < json_array_get_length (log); i++)
    {
      JsonObject *o = json_array_get_object_element (log, i);
      json_object_remove_member (o, "time");
      json_object_set_int_member (o, "time_us", T0 + (gint64) (i + 1) * G_USEC_PER_SEC);
    }
  fixed = sb_json_write (json_parser_get_root (parser), TRUE, NULL);
  again = sb_session_load_from_data (fixed, -1, "generated", error);
  return again ? sb_session_to_data (again, NULL) : NULL;
}

static void
set_hyper (SbSession *s, double variance, double lengthscale, double numeric_sd)
{
  SbHyper h = { 0 };

  h.valid = TRUE;
  h.n_answers = sb_session_get_n_answers (s);
  h.variance = variance;
  h.lengthscales[0] = lengthscale;
  h.mean = 0.0;
  h.numeric_sd = numeric_sd;
  h.probit_sd = M_SQRT1_2;
  h.log_evidence = NAN;
  g_assert_true (sb_session_set_hyper (s, &h, NULL));
}

/* ---- 001 Figure 5 ------------------------------------------------------------ */

static double
cos1d (double x)
{
  return cos (5 * x) + exp (-x * x / 2);
}

static SbSession *
make_preference (void)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("cos1d", NULL);
  gsl_rng *rng = sg_rng_new (PREF_SEED, 0);
  double x[25];
  guint pa[45], pb[45], best = 0, last = 0;
  SbSession *s;

  g_free (exp->title);
  exp->title = g_strdup ("Demo: preference posteriors are skewed (001 Fig. 5)");
  /* paper 001's duel rule, whose figure the demo reproduces */
  exp->acquisition = SG_BO_ACQ_UCB;
  exp->seed = PREF_SEED;
  exp->budget = 65;
  exp->autoplay_ms = 600;
  for (guint i = 0; i < 25; i++)
    {
      /* Rounded to 4 decimals: the points read well in the answer list. */
      x[i] = round ((-2.6 + 5.2 * sg_rng_uniform_pos (rng)) * 1e4) / 1e4;
      if (cos1d (x[i]) > cos1d (x[best]))
        best = i;
    }
  for (guint k = 0; k < 45; k++)
    {
      pa[k] = (guint) (sg_rng_uniform_pos (rng) * 25) % 25;
      do
        pb[k] = (guint) (sg_rng_uniform_pos (rng) * 25) % 25;
      while (pb[k] == pa[k] || x[pb[k]] == x[pa[k]]);
    }
  sg_rng_free (rng);
  /* The best point must be in some duel; make it the last one. */
  for (guint k = 0; k < 45; k++)
    if (pa[k] == best || pb[k] == best)
      last = k;
  if (pa[last] != best && pb[last] != best)
    pb[last = 44] = best;
  {
    guint ta = pa[last], tb = pb[last];
    pa[last] = pa[44], pb[last] = pb[44];
    pa[44] = ta, pb[44] = tb;
  }

  s = sb_session_new (exp);
  for (guint k = 0; k < 45; k++)
    {
      double a = x[pa[k]], b = x[pb[k]];
      g_assert_true (sb_session_add_duel (s, &a, &b, cos1d (b) > cos1d (a), NULL));
    }
  set_hyper (s, 50.0, 0.33, 0.1);
  return s;
}

/* ---- 001 Figure 6 ------------------------------------------------------------ */

static double
fig1 (double x)
{
  return (4 * sin (x / 2 * M_PI) - 0.5 * sin (2 * x * M_PI)) / 6;
}

static SbSession *
make_mixed (void)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  const guint iref = 23;
  double xref;
  SbSession *s;

  g_free (exp->title);
  exp->title = g_strdup ("Demo: mixed numeric and preference data (001 Fig. 6)");
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  exp->budget = 80;
  exp->initial = 5;
  exp->numeric_every = 4;
  exp->seed = 42;
  sb_experiment_add_parameter (exp, "x", "", 0.0, 5.0);
  xref = 5.0 * iref / 59.0;

  s = sb_session_new (exp);
  for (guint i = 0; i < 30; i++)
    {
      double xi = 5.0 * i / 59.0;
      g_assert_true (sb_session_add_value (s, &xi, fig1 (xi), NULL));
    }
  for (guint i = 30; i < 60; i++)
    {
      double xi = 5.0 * i / 59.0;
      /* a = x_ref, b = x_i; winner 1 = b preferred. */
      g_assert_true (sb_session_add_duel (s, &xref, &xi, fig1 (xi) > fig1 (xref), NULL));
    }
  set_hyper (s, 1.0, 0.19, sqrt (0.001));
  return s;
}

/* ---- 001 Figures 13-14 --------------------------------------------------------- */

/* The loop as core/sb-jobs.c configures it for a safe benchmark session. */
static sg_bo *
safe_loop (const SbExperiment *exp, const sg_problem *p)
{
  sg_bo_config cfg = { 0 };
  sg_bo *bo = NULL;
  sg_hyper h;

  g_assert_cmpint (sg_bo_config_default (&cfg, 1, sg_problem_lower (p), sg_problem_upper (p)), ==, SG_OK);
  cfg.mode = SG_BO_SAFE;
  cfg.acquisition = exp->acquisition;
  cfg.surrogate = exp->surrogate;
  cfg.threshold = exp->threshold;
  cfg.n_initial = exp->initial;
  cfg.seed = exp->seed;
  cfg.refit_until = 10;
  cfg.refit_every = 5;
  cfg.refit_free = sg_bo_default_refit_free (cfg.mode);
  cfg.safe_probability = exp->confidence_level;
  cfg.has_safe_start = 1;
  cfg.safe_start[0] = sg_problem_safe_start (p)[0];
  g_assert_cmpint (sg_bo_new (&cfg, &bo), ==, SG_OK);
  h = *sg_bo_get_hyper (bo);
  h.kernel.variance = 2.0;
  h.kernel.lengthscales[0] = 1.5;
  g_assert_cmpint (sg_bo_set_hyper (bo, &h), ==, SG_OK);
  sg_bo_config_clear (&cfg);
  return bo;
}

/* The run of draw SEED: N_FAILED failed settings, N_EXPANDERS proposals
 * made to grow the safe set, STOPPED when a proposal (the 8 answered and
 * the one after them) said that nothing new is safe enough. */
static SbSession *
run_safe (guint64 seed, guint *n_failed, guint *n_expanders, gboolean *stopped)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("safe-gp1d", NULL);
  sg_problem *p = NULL;
  sg_bo *bo;
  SbSession *s;

  g_free (exp->title);
  exp->title = g_strdup ("Demo: safe optimisation step by step (001 sec. 5.2.3)");
  exp->seed = seed;
  exp->budget = 20;
  g_assert_cmpint (sg_problem_new ("safe-gp1d", seed, &p), ==, SG_OK);
  bo = safe_loop (exp, p);
  s = sb_session_new (exp);
  *n_failed = *n_expanders = 0;
  *stopped = FALSE;
  for (guint it = 0; it <= SAFE_ITERATIONS; it++)
    {
      /* sg_bo_rng = the application's proposal stream (seed, 1 + answers). */
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      sg_oracle oracle;
      double y = NAN;
      int valid = 1;

      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpint (q.kind, ==, SG_BO_QUERY_VALUE);
      *stopped |= q.safe_exhausted != 0;
      if (it == SAFE_ITERATIONS)
        break;  /* the question after the answers: asked, not answered */
      *n_expanders += q.safe_role == SG_BO_SAFE_ROLE_EXPANDER;
      sg_oracle_init (&oracle, p);
      oracle.threshold = exp->threshold;
      oracle.has_threshold = 1;
      g_assert_cmpint (sg_oracle_measure (&oracle, NULL, q.x, &y, &valid), ==, SG_OK);
      if (valid)
        {
          g_assert_cmpint (sg_bo_answer_value (bo, q.x, y), ==, SG_OK);
          g_assert_true (sb_session_add_value (s, q.x, y, NULL));
        }
      else
        {
          g_assert_cmpint (sg_bo_answer_invalid (bo, q.x), ==, SG_OK);
          g_assert_true (sb_session_add_failed (s, q.x, NULL));
          (*n_failed)++;
        }
    }
  set_hyper (s, 2.0, 1.5, sg_bo_get_hyper (bo)->noise.numeric_sd);
  sg_bo_free (bo);
  sg_problem_free (p);
  return s;
}

static SbSession *
make_safe (void)
{
  for (guint64 seed = SAFE_SEED_FIRST; seed < SAFE_SEED_FIRST + 100; seed++)
    {
      guint n_failed = 0, n_expanders = 0;
      gboolean stopped = FALSE;
      SbSession *s = run_safe (seed, &n_failed, &n_expanders, &stopped);
      if (!stopped && n_expanders > 0)
        {
          g_printerr ("safe-step-by-step: seed %" G_GUINT64_FORMAT ", %u failed, %u expanders\n",
                      seed, n_failed, n_expanders);
          return s;
        }
      g_object_unref (s);
    }
  g_error ("no seed gave a safe run that grows by expanders for 8 answers");
}

/* ---- main ------------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  struct { const char *name; SbSession *(*make) (void); } demos[] = {
    { "preference-skewed.json", make_preference },
    { "mixed-numeric-preference.json", make_mixed },
    { "safe-step-by-step.json", make_safe },
  };
  gboolean check = argc == 3 && g_str_equal (argv[1], "--check");
  const char *dir = check ? argv[2] : argc == 2 ? argv[1] : NULL;
  int status = 0;

  if (dir == NULL)
    {
      g_printerr ("usage: make-demos [--check] DIR\n");
      return 2;
    }
  for (guint i = 0; i < G_N_ELEMENTS (demos); i++)
    {
      g_autoptr (SbSession) s = demos[i].make ();
      g_autoptr (GError) error = NULL;
      g_autofree char *data = canonical (s, &error);
      g_autofree char *path = g_build_filename (dir, demos[i].name, NULL);

      if (data == NULL)
        g_error ("%s: %s", demos[i].name, error->message);
      if (check)
        {
          g_autofree char *old = NULL;
          if (!g_file_get_contents (path, &old, NULL, &error) || !g_str_equal (old, data))
            {
              g_printerr ("%s differs from the generator's output\n", path);
              status = 1;
            }
        }
      else if (!g_file_set_contents (path, data, -1, &error))
        g_error ("%s: %s", path, error->message);
      else
        g_printerr ("wrote %s (%u answers)\n", path, sb_session_get_n_answers (s));
    }
  return status;
}
