/* skewgp-bo.c — `skewgp bo`: run a BO loop against a simulated oracle.
 *
 * Unlike the other subcommands it takes command-line flags, not JSON, and
 * prints JSON Lines: one object per answered query, then a summary.
 */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-model-json.h"

#include "sg-bo.h"
#include "sg-problems.h"
#include "sg-rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char bo_help[] =
  "Usage: skewgp bo --problem NAME [options]\n"
  "       skewgp bo --list\n\n"
  "Runs a Bayesian-optimisation loop (paper 001 sec. 5.2) against a simulated\n"
  "oracle of a benchmark problem and prints one JSON object per answered query\n"
  "(JSON Lines), then one summary object.\n\n"
  "Options:\n"
  "  --problem NAME       benchmark (see --list)\n"
  "  --mode MODE          preference (default) | mixed | safe | active\n"
  "  --acquisition A      ucb (default) | eiig | epi | thompson (duels)\n"
  "  --numeric-acquisition A  ucb (default) | ei (value queries of mixed mode)\n"
  "  --surrogate S        skewgp (default) | laplace | ep | random |\n"
  "                       two-gp (safe mode: SafeOpt-style EP classifier of\n"
  "                       validity + GP regression of the valid values) |\n"
  "                       svgp (preference mode: sparse variational GP of\n"
  "                       paper 004 on the duels, for long campaigns)\n"
  "  --iterations N       BO iterations after the initial design (default 20)\n"
  "  --initial K          initial random duels (mixed: K duels and K values;\n"
  "                       safe: ignored when the problem has a safe start)\n"
  "                       (default 5)\n"
  "  --seed S             seed of everything: initial design, sampling,\n"
  "                       oracle noise, safe-gp1d's function (default 0)\n"
  "  --noise SD           oracle noise: preference noise sd of each judged\n"
  "                       value, and measurement noise sd (default 0)\n"
  "  --samples N          posterior samples per proposal (default 1000)\n"
  "  --candidates N       space-filling candidates per proposal (default 500)\n"
  "  --threshold H        safe mode: validity threshold; active mode: the\n"
  "                       class boundary, label +1 iff g(x) >= H (default:\n"
  "                       the problem's; required for problems without one)\n"
  "  --test-points N      active mode: accuracy test points per dimension\n"
  "                       for 1-D (default 201) and 2-D (41) grids; more\n"
  "                       dimensions use 2000 uniform points\n"
  "  --mixed-every K      mixed mode: a value query every K-th iteration (4)\n"
  "  --refit-until N      refit hyperparameters after every answer up to N\n"
  "                       answers (default 30; safe mode: never)\n"
  "  --refit-every N      then every N-th answer (default 10; safe: never)\n"
  "  --refit-evals N      evidence evaluations per refit (default 150)\n\n"
  "Model: RBF kernel, variance 1 and lengthscales 0.2 x the box widths before\n"
  "the first refit, probit_sd 1/sqrt2. Refits fit lengthscales and variance\n"
  "(mixed mode also the mean and probit_sd, which the values make\n"
  "identifiable); safe mode follows paper 001 sec. 5.2.3:\n"
  "variance 2, lengthscale 1.5 (x box width / 20 for other boxes), fixed, and\n"
  "measurement sd max(SD, 0.05) in the likelihood.\n\n"
  "Each iteration line: iteration, initial (bool), kind (duel|value), query,\n"
  "reference (duels), answer (\"A\" = the query won, \"B\" = the reference\n"
  "won; a number; or \"invalid\"), best_x,\n"
  "best_value (the true objective at the current best x_r, maximisation\n"
  "convention: minimisation problems negated), violation (safe mode: the\n"
  "query was invalid), acquisition, seconds (proposal), refit_seconds,\n"
  "hyperparameters (the model's after this iteration's refit: kernel,\n"
  "mean, noise, as skewgp fit writes them).\n"
  "Summary line: summary=true, the settings, best_x, best_value, optimum,\n"
  "regret, violations, proposals, median_seconds, total_seconds,\n"
  "refits, refit_seconds.\n\n"
  "Active mode (paper 001 sec. 5.1): active learning of the classifier\n"
  "y = sign(g(x) - H) by BALD (001 eq. 43) on posterior samples; --initial\n"
  "random labels first; refits as in preference mode. With --surrogate\n"
  "random the points are uniform and the accuracy is that of the exact\n"
  "SkewGP classifier given the same labels (random labelling). Each line:\n"
  "iteration, initial, kind (label), query, answer (1 or -1),\n"
  "acquisition (BALD), accuracy (fraction of test points whose predicted\n"
  "P(y = +1) > 0.5 matches the true label, after this answer), seconds,\n"
  "refit_seconds, hyperparameters. Summary: the settings, labels,\n"
  "accuracy, unique_fraction\n"
  "(distinct labelled points / labels: the paper's pool diversity),\n"
  "median_seconds, total_seconds, refits, refit_seconds.\n";

typedef struct {
  const char *problem;
  sg_bo_mode mode;
  sg_bo_acquisition acquisition;
  sg_bo_numeric_acquisition numeric_acquisition;
  sg_bo_surrogate surrogate;
  long iterations, initial, samples, candidates, mixed_every;
  long refit_until, refit_every, refit_evals, test_points;
  guint64 seed;
  double noise, threshold;
  gboolean list;
} bo_args;

static gboolean
parse_long (const char *flag, const char *s, long min, long *out, GError **error)
{
  char *end = NULL;
  long v = s ? strtol (s, &end, 10) : 0;
  if (s == NULL || *s == '\0' || *end != '\0' || v < min)
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "%s expects an integer >= %ld, got '%s'", flag, min, s ? s : "");
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_double (const char *flag, const char *s, double *out, GError **error)
{
  char *end = NULL;
  double v = s ? g_ascii_strtod (s, &end) : NAN;
  if (s == NULL || *s == '\0' || *end != '\0' || !isfinite (v))
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "%s expects a number, got '%s'", flag, s ? s : "");
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_args (int argc, char **argv, bo_args *a, GError **error)
{
  memset (a, 0, sizeof *a);
  a->iterations = 20;
  a->initial = 5;
  a->samples = 1000;
  a->candidates = 500;
  a->mixed_every = 4;
  a->refit_until = -1;
  a->refit_every = -1;
  a->refit_evals = 150;
  a->test_points = 0;
  a->threshold = NAN;
  for (int i = 0; i < argc; i++)
    {
      const char *f = argv[i];
      if (strcmp (f, "--list") == 0)
        {
          a->list = TRUE;
          continue;
        }
      if (strncmp (f, "--", 2) != 0)
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "unexpected argument '%s' (flags start with --)", f);
          return FALSE;
        }
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (v == NULL)
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "%s needs a value", f);
          return FALSE;
        }
      i++;
      gboolean ok = TRUE;
      long l = 0;
      if (strcmp (f, "--problem") == 0)
        a->problem = v;
      else if (strcmp (f, "--mode") == 0)
        ok = sg_bo_mode_parse (v, &a->mode) == SG_OK;
      else if (strcmp (f, "--acquisition") == 0)
        ok = sg_bo_acquisition_parse (v, &a->acquisition) == SG_OK;
      else if (strcmp (f, "--numeric-acquisition") == 0)
        {
          ok = strcmp (v, "ucb") == 0 || strcmp (v, "ei") == 0;
          a->numeric_acquisition = strcmp (v, "ei") == 0 ? SG_BO_NUMERIC_EI : SG_BO_NUMERIC_UCB;
        }
      else if (strcmp (f, "--surrogate") == 0)
        ok = sg_bo_surrogate_parse (v, &a->surrogate) == SG_OK;
      else if (strcmp (f, "--iterations") == 0)
        {
          if (!parse_long (f, v, 0, &a->iterations, error))
            return FALSE;
        }
      else if (strcmp (f, "--initial") == 0)
        {
          if (!parse_long (f, v, 1, &a->initial, error))
            return FALSE;
        }
      else if (strcmp (f, "--seed") == 0)
        {
          if (!parse_long (f, v, 0, &l, error))
            return FALSE;
          a->seed = (guint64) l;
        }
      else if (strcmp (f, "--noise") == 0)
        {
          if (!parse_double (f, v, &a->noise, error))
            return FALSE;
          ok = a->noise >= 0;
        }
      else if (strcmp (f, "--samples") == 0)
        {
          if (!parse_long (f, v, 2, &a->samples, error))
            return FALSE;
        }
      else if (strcmp (f, "--candidates") == 0)
        {
          if (!parse_long (f, v, 1, &a->candidates, error))
            return FALSE;
        }
      else if (strcmp (f, "--threshold") == 0)
        {
          if (!parse_double (f, v, &a->threshold, error))
            return FALSE;
        }
      else if (strcmp (f, "--mixed-every") == 0)
        {
          if (!parse_long (f, v, 1, &a->mixed_every, error))
            return FALSE;
        }
      else if (strcmp (f, "--refit-until") == 0)
        {
          if (!parse_long (f, v, 0, &a->refit_until, error))
            return FALSE;
        }
      else if (strcmp (f, "--refit-every") == 0)
        {
          if (!parse_long (f, v, 0, &a->refit_every, error))
            return FALSE;
        }
      else if (strcmp (f, "--test-points") == 0)
        {
          if (!parse_long (f, v, 2, &a->test_points, error))
            return FALSE;
        }
      else if (strcmp (f, "--refit-evals") == 0)
        {
          if (!parse_long (f, v, 1, &a->refit_evals, error))
            return FALSE;
        }
      else
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "unknown option '%s' (see skewgp bo --help)", f);
          return FALSE;
        }
      if (!ok)
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "invalid value '%s' for %s (see skewgp bo --help)", v, f);
          return FALSE;
        }
    }
  if (!a->list && a->problem == NULL)
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "--problem is required (see skewgp bo --list)");
      return FALSE;
    }
  return TRUE;
}

static void
print_line (JsonBuilder *b)
{
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  skewgp_print_json_line (root);
}

static void
add_vector (JsonBuilder *b, const char *name, const double *x, size_t n)
{
  json_builder_set_member_name (b, name);
  if (x == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_array (b);
  for (size_t j = 0; j < n; j++)
    json_builder_add_double_value (b, x[j]);
  json_builder_end_array (b);
}

static void
add_number_or_null (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static int
list_problems (void)
{
  for (size_t i = 0; i < sg_problem_count (); i++)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, sg_problem_name_at (i));
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, sg_problem_description_at (i));
      sg_problem *p = NULL;
      if (sg_problem_new (sg_problem_name_at (i), 0, &p) == SG_OK)
        {
          json_builder_set_member_name (b, "dim");
          json_builder_add_int_value (b, (gint64) sg_problem_dim (p));
          add_vector (b, "lower", sg_problem_lower (p), sg_problem_dim (p));
          add_vector (b, "upper", sg_problem_upper (p), sg_problem_dim (p));
          add_number_or_null (b, "optimum", sg_problem_optimum (p));
          json_builder_set_member_name (b, "safe");
          json_builder_add_boolean_value (b, sg_problem_safe_start (p) != NULL);
          sg_problem_free (p);
        }
      json_builder_end_object (b);
      print_line (b);
    }
  return SKEWGP_EXIT_OK;
}

static int
fail (const char *what, int status)
{
  fprintf (stderr, "skewgp bo: %s: %s\n", what, sg_strerror (status));
  return status == SG_EINVAL ? SKEWGP_EXIT_INPUT : SKEWGP_EXIT_NUMERIC;
}

static int
cmp_double (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return (a > b) - (a < b);
}

/* The configuration for A on problem P (see the help text). */
static int
make_config (const bo_args *a, const sg_problem *p, sg_bo_config *c)
{
  size_t dim = sg_problem_dim (p);
  int status = sg_bo_config_default (c, dim, sg_problem_lower (p), sg_problem_upper (p));
  if (status != SG_OK)
    return status;
  c->mode = a->mode;
  c->acquisition = a->acquisition;
  c->numeric_acquisition = a->numeric_acquisition;
  c->surrogate = a->surrogate;
  c->n_initial = (size_t) a->initial;
  c->n_samples = (size_t) a->samples;
  c->search.n_candidates = (size_t) a->candidates;
  c->mixed_every = (size_t) a->mixed_every;
  c->seed = a->seed;
  c->refit.max_evals = (size_t) a->refit_evals;
  c->refit_free = sg_bo_default_refit_free (a->mode);
  if (a->mode == SG_BO_SAFE)
    {
      /* 001 sec. 5.2.3: hyperparameters fixed, variance 2, lengthscale 1.5
       * on the [-10, 10] family (scaled with the box elsewhere). */
      c->refit_until = c->refit_every = 0;
      c->prior.kernel.variance = 2.0;
      for (size_t j = 0; j < dim; j++)
        c->prior.kernel.lengthscales[j] = 1.5 * (c->upper[j] - c->lower[j]) / 20.0;
      c->prior.noise.numeric_sd = fmax (a->noise, 0.05);
      c->threshold = isnan (a->threshold) ? sg_problem_threshold (p) : a->threshold;
      const double *start = sg_problem_safe_start (p);
      if (start)
        {
          c->has_safe_start = 1;
          memcpy (c->safe_start, start, dim * sizeof *start);
        }
    }
  if (a->refit_until >= 0)
    c->refit_until = (size_t) a->refit_until;
  if (a->refit_every >= 0)
    c->refit_every = (size_t) a->refit_every;
  return sg_bo_config_check (c);
}

/* The model's hyperparameters after this iteration's refit, as `skewgp
 * fit` writes them (kernel, mean, noise). */
static void
add_hyperparameters (JsonBuilder *b, const sg_bo *bo)
{
  json_builder_set_member_name (b, "hyperparameters");
  json_builder_begin_object (b);
  skewgp_add_model_members (b, sg_bo_get_hyper (bo));
  json_builder_end_object (b);
}

/* One iteration's heavy part, timed: the refit when JUDGE's schedule asks
 * for one (JUDGE is BO, or the SkewGP that scores random labelling, then
 * BO's own refit is a no-op), then BO's proposal Q. On failure *STEP names
 * the step that failed. */
static int
refit_and_propose (sg_bo *bo, sg_bo *judge, gsl_rng *refit_rng, GTimer *timer,
                   sg_bo_query *q, double *t, double *t_refit, double *refit_seconds,
                   size_t *refits, const char **step)
{
  int status = SG_OK;

  if (sg_bo_refit_due (judge))
    {
      g_timer_start (timer);
      status = sg_bo_refit (judge, refit_rng, NULL, NULL);
      if (status == SG_OK && judge != bo)
        status = sg_bo_refit (bo, refit_rng, NULL, NULL);
      *t_refit = g_timer_elapsed (timer, NULL);
      *refit_seconds += *t_refit;
      (*refits)++;
      if (status != SG_OK)
        {
          *step = "hyperparameter refit";
          return status;
        }
    }
  gsl_rng *rng = sg_bo_rng (bo);
  g_timer_start (timer);
  status = rng ? sg_bo_propose (bo, rng, NULL, q) : SG_ENOMEM;
  *t = g_timer_elapsed (timer, NULL);
  sg_rng_free (rng);
  *step = "proposal";
  return status;
}

static int
run_loop (const bo_args *a)
{
  sg_problem *p = NULL;
  int status = sg_problem_new (a->problem, a->seed, &p);
  if (status != SG_OK)
    {
      fprintf (stderr, "skewgp bo: unknown problem '%s' (see skewgp bo --list)\n", a->problem);
      return SKEWGP_EXIT_INPUT;
    }
  if (a->mode == SG_BO_SAFE && isnan (a->threshold) && isnan (sg_problem_threshold (p)))
    {
      fprintf (stderr, "skewgp bo: problem '%s' has no threshold; give --threshold for safe mode\n",
               a->problem);
      sg_problem_free (p);
      return SKEWGP_EXIT_INPUT;
    }
  if (a->surrogate == SG_BO_SURROGATE_TWO_GP && a->mode != SG_BO_SAFE)
    {
      fprintf (stderr, "skewgp bo: the two-gp surrogate is for safe mode only\n");
      sg_problem_free (p);
      return SKEWGP_EXIT_INPUT;
    }
  if (a->surrogate == SG_BO_SURROGATE_SVGP && a->mode != SG_BO_PREFERENCE)
    {
      fprintf (stderr, "skewgp bo: the svgp surrogate is for preference mode only\n");
      sg_problem_free (p);
      return SKEWGP_EXIT_INPUT;
    }
  sg_bo_config cfg;
  status = make_config (a, p, &cfg);
  sg_bo *bo = NULL;
  if (status == SG_OK)
    status = sg_bo_new (&cfg, &bo);
  if (status != SG_OK)
    {
      sg_problem_free (p);
      return fail ("configuration", status);
    }
  size_t dim = cfg.dim;
  sg_oracle oracle;
  sg_oracle_init (&oracle, p);
  oracle.preference_sd = a->noise;
  oracle.measurement_sd = a->noise;
  oracle.has_threshold = 1;
  oracle.threshold = a->mode == SG_BO_SAFE ? cfg.threshold : NAN;
  gsl_rng *oracle_rng = sg_rng_new (a->seed, 0x0a11ce);
  gsl_rng *refit_rng = sg_rng_new (a->seed, 0x4ef17);

  /* Initial design answers + BO iterations. */
  size_t n_init = a->mode == SG_BO_MIXED ? 2 * (size_t) a->initial
                  : a->mode == SG_BO_SAFE ? (cfg.has_safe_start ? 1 : (size_t) a->initial)
                                          : (size_t) a->initial;
  size_t total = n_init + (size_t) a->iterations;
  double *times = g_new0 (double, total + 1);
  size_t n_times = 0, violations = 0, refits = 0;
  double refit_seconds = 0, total_seconds = 0;
  g_autoptr (GTimer) timer = g_timer_new ();
  int exit_code = SKEWGP_EXIT_OK;

  for (size_t it = 1; it <= total; it++)
    {
      double t_refit = 0, t = 0;
      sg_bo_query q;
      const char *step = NULL;
      status = refit_and_propose (bo, bo, refit_rng, timer, &q, &t, &t_refit,
                                  &refit_seconds, &refits, &step);
      if (status != SG_OK)
        {
          exit_code = fail (step, status);
          break;
        }
      total_seconds += t;
      if (!q.random)
        times[n_times++] = t;

      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "iteration");
      json_builder_add_int_value (b, (gint64) it);
      json_builder_set_member_name (b, "initial");
      json_builder_add_boolean_value (b, q.initial);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, q.kind == SG_BO_QUERY_DUEL ? "duel" : "value");
      add_vector (b, "query", q.x, dim);
      if (q.kind == SG_BO_QUERY_DUEL)
        add_vector (b, "reference", q.x_ref, dim);
      json_builder_set_member_name (b, "answer");
      int violation = 0;
      if (q.kind == SG_BO_QUERY_DUEL)
        {
          int a_wins = 0;
          sg_oracle_duel (&oracle, oracle_rng, q.x, q.x_ref, &a_wins);
          json_builder_add_string_value (b, a_wins ? "A" : "B");
          status = sg_bo_answer_duel (bo, q.x, q.x_ref, a_wins);
        }
      else
        {
          double y;
          int valid;
          sg_oracle_measure (&oracle, oracle_rng, q.x, &y, &valid);
          if (valid)
            {
              json_builder_add_double_value (b, y);
              status = sg_bo_answer_value (bo, q.x, y);
            }
          else
            {
              json_builder_add_string_value (b, "invalid");
              status = sg_bo_answer_invalid (bo, q.x);
              violation = 1;
              violations++;
            }
        }
      if (status != SG_OK)
        {
          json_builder_end_object (b);
          exit_code = fail ("answer", status);
          break;
        }
      double best[SG_BO_MAX_DIM];
      int has_best = sg_bo_best (bo, best);
      add_vector (b, "best_x", has_best ? best : NULL, dim);
      add_number_or_null (b, "best_value", has_best ? sg_problem_value (p, best) : NAN);
      if (a->mode == SG_BO_SAFE)
        {
          json_builder_set_member_name (b, "violation");
          json_builder_add_boolean_value (b, violation);
        }
      add_number_or_null (b, "acquisition", q.acquisition);
      json_builder_set_member_name (b, "seconds");
      json_builder_add_double_value (b, t);
      json_builder_set_member_name (b, "refit_seconds");
      json_builder_add_double_value (b, t_refit);
      add_hyperparameters (b, bo);
      json_builder_end_object (b);
      print_line (b);
    }

  if (exit_code == SKEWGP_EXIT_OK)
    {
      double best[SG_BO_MAX_DIM];
      int has_best = sg_bo_best (bo, best);
      double value = has_best ? sg_problem_value (p, best) : NAN;
      qsort (times, n_times, sizeof *times, cmp_double);
      double median = n_times == 0 ? NAN
                      : n_times % 2 ? times[n_times / 2]
                                    : 0.5 * (times[n_times / 2 - 1] + times[n_times / 2]);
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "summary");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_set_member_name (b, "problem");
      json_builder_add_string_value (b, a->problem);
      json_builder_set_member_name (b, "mode");
      json_builder_add_string_value (b, sg_bo_mode_name (a->mode));
      json_builder_set_member_name (b, "acquisition");
      json_builder_add_string_value (b, sg_bo_acquisition_name (a->acquisition));
      json_builder_set_member_name (b, "surrogate");
      json_builder_add_string_value (b, sg_bo_surrogate_name (a->surrogate));
      json_builder_set_member_name (b, "seed");
      json_builder_add_int_value (b, (gint64) a->seed);
      json_builder_set_member_name (b, "iterations");
      json_builder_add_int_value (b, a->iterations);
      json_builder_set_member_name (b, "initial");
      json_builder_add_int_value (b, (gint64) n_init);
      add_vector (b, "best_x", has_best ? best : NULL, dim);
      add_number_or_null (b, "best_value", value);
      add_number_or_null (b, "optimum", sg_problem_optimum (p));
      add_number_or_null (b, "regret", sg_problem_optimum (p) - value);
      json_builder_set_member_name (b, "violations");
      json_builder_add_int_value (b, (gint64) violations);
      json_builder_set_member_name (b, "proposals");
      json_builder_add_int_value (b, (gint64) n_times);
      add_number_or_null (b, "median_seconds", median);
      json_builder_set_member_name (b, "total_seconds");
      json_builder_add_double_value (b, total_seconds);
      json_builder_set_member_name (b, "refits");
      json_builder_add_int_value (b, (gint64) refits);
      json_builder_set_member_name (b, "refit_seconds");
      json_builder_add_double_value (b, refit_seconds);
      json_builder_end_object (b);
      print_line (b);
    }

  g_free (times);
  sg_rng_free (oracle_rng);
  sg_rng_free (refit_rng);
  sg_bo_free (bo);
  sg_problem_free (p);
  return exit_code;
}

/* ---- Active mode --------------------------------------------------------- */

/* The accuracy test points of the active mode (see the help text). */
static double *
active_test_points (const bo_args *a, const sg_problem *p, size_t *n_out)
{
  size_t dim = sg_problem_dim (p);
  const double *lo = sg_problem_lower (p), *up = sg_problem_upper (p);
  size_t g = a->test_points > 0 ? (size_t) a->test_points : dim == 1 ? 201 : 41;
  size_t n = dim == 1 ? g : dim == 2 ? g * g : 2000;
  double *X = g_new (double, n * dim);
  if (dim <= 2)
    for (size_t i = 0; i < n; i++)
      {
        size_t idx[2] = { i % g, i / g };
        for (size_t j = 0; j < dim; j++)
          X[i * dim + j] = lo[j] + (up[j] - lo[j]) * (double) idx[j] / (double) (g - 1);
      }
  else
    {
      gsl_rng *r = sg_rng_new (a->seed, 0x7e57);
      for (size_t i = 0; i < n * dim; i++)
        X[i] = lo[i % dim] + (up[i % dim] - lo[i % dim]) * gsl_rng_uniform (r);
      sg_rng_free (r);
    }
  *n_out = n;
  return X;
}

/* Fraction of the N test points X whose predicted class (P(y=+1) > 0.5 under
 * EVAL's model) matches the true one (LABELS); NaN on failure. */
static double
active_accuracy (sg_bo *eval, guint64 seed, const double *X, const int *labels, size_t n,
                 double *prob)
{
  gsl_rng *r = sg_rng_new (seed, 0xacc0 + sg_bo_n_answers (eval));
  int status = sg_bo_fit_model (eval, r, NULL);
  sg_rng_free (r);
  if (status == SG_OK)
    status = sg_bo_class_probability (eval, X, n, NULL, prob);
  if (status != SG_OK)
    return NAN;
  size_t right = 0;
  for (size_t i = 0; i < n; i++)
    right += (prob[i] > 0.5 ? 1 : -1) == labels[i];
  return (double) right / (double) n;
}

static int
run_active (const bo_args *a)
{
  sg_problem *p = NULL;
  if (sg_problem_new (a->problem, a->seed, &p) != SG_OK)
    {
      fprintf (stderr, "skewgp bo: unknown problem '%s' (see skewgp bo --list)\n", a->problem);
      return SKEWGP_EXIT_INPUT;
    }
  double h = isnan (a->threshold) ? sg_problem_threshold (p) : a->threshold;
  if (isnan (h))
    {
      fprintf (stderr, "skewgp bo: problem '%s' has no threshold; give --threshold for "
               "active mode (the class boundary)\n", a->problem);
      sg_problem_free (p);
      return SKEWGP_EXIT_INPUT;
    }
  if (a->surrogate == SG_BO_SURROGATE_TWO_GP || a->surrogate == SG_BO_SURROGATE_SVGP)
    {
      fprintf (stderr, "skewgp bo: the %s surrogate is not for active mode\n",
               sg_bo_surrogate_name (a->surrogate));
      sg_problem_free (p);
      return SKEWGP_EXIT_INPUT;
    }
  sg_bo_config cfg, ecfg;
  int status = make_config (a, p, &cfg);
  sg_bo *bo = NULL, *eval = NULL;
  if (status == SG_OK)
    status = sg_bo_new (&cfg, &bo);
  /* random labelling is judged by the exact SkewGP on the same labels */
  ecfg = cfg;
  ecfg.surrogate = SG_BO_SURROGATE_SKEWGP;
  if (status == SG_OK && a->surrogate == SG_BO_SURROGATE_RANDOM)
    status = sg_bo_new (&ecfg, &eval);
  if (status != SG_OK)
    {
      sg_bo_free (bo);
      sg_problem_free (p);
      return fail ("configuration", status);
    }
  sg_bo *judge = eval ? eval : bo;
  size_t dim = cfg.dim, n_test = 0;
  double *X = active_test_points (a, p, &n_test);
  int *truth = g_new (int, n_test);
  double *prob = g_new (double, n_test);
  for (size_t i = 0; i < n_test; i++)
    truth[i] = sg_problem_value (p, X + i * dim) >= h ? 1 : -1;
  gsl_rng *refit_rng = sg_rng_new (a->seed, 0x4ef17);
  size_t total = (size_t) a->initial + (size_t) a->iterations;
  double *times = g_new0 (double, total + 1);
  size_t n_times = 0, refits = 0;
  double refit_seconds = 0, total_seconds = 0, accuracy = NAN;
  g_autoptr (GTimer) timer = g_timer_new ();
  int exit_code = SKEWGP_EXIT_OK;

  for (size_t it = 1; it <= total; it++)
    {
      double t_refit = 0, t = 0;
      sg_bo_query q;
      const char *step = NULL;
      status = refit_and_propose (bo, judge, refit_rng, timer, &q, &t, &t_refit,
                                  &refit_seconds, &refits, &step);
      if (status != SG_OK)
        {
          exit_code = fail (step, status);
          break;
        }
      total_seconds += t;
      if (!q.random)
        times[n_times++] = t;
      int label = sg_problem_value (p, q.x) >= h ? 1 : -1;
      status = sg_bo_answer_label (bo, q.x, label);
      if (status == SG_OK && eval)
        status = sg_bo_answer_label (eval, q.x, label);
      if (status != SG_OK)
        {
          exit_code = fail ("answer", status);
          break;
        }
      accuracy = active_accuracy (judge, a->seed, X, truth, n_test, prob);

      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "iteration");
      json_builder_add_int_value (b, (gint64) it);
      json_builder_set_member_name (b, "initial");
      json_builder_add_boolean_value (b, q.initial);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, "label");
      add_vector (b, "query", q.x, dim);
      json_builder_set_member_name (b, "answer");
      json_builder_add_int_value (b, label);
      add_number_or_null (b, "acquisition", q.acquisition);
      add_number_or_null (b, "accuracy", accuracy);
      json_builder_set_member_name (b, "seconds");
      json_builder_add_double_value (b, t);
      json_builder_set_member_name (b, "refit_seconds");
      json_builder_add_double_value (b, t_refit);
      add_hyperparameters (b, bo);
      json_builder_end_object (b);
      print_line (b);
    }

  if (exit_code == SKEWGP_EXIT_OK)
    {
      qsort (times, n_times, sizeof *times, cmp_double);
      double median = n_times == 0 ? NAN
                      : n_times % 2 ? times[n_times / 2]
                                    : 0.5 * (times[n_times / 2 - 1] + times[n_times / 2]);
      const sg_data *d = sg_bo_data (bo);
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "summary");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_set_member_name (b, "problem");
      json_builder_add_string_value (b, a->problem);
      json_builder_set_member_name (b, "mode");
      json_builder_add_string_value (b, "active");
      json_builder_set_member_name (b, "surrogate");
      json_builder_add_string_value (b, sg_bo_surrogate_name (a->surrogate));
      json_builder_set_member_name (b, "seed");
      json_builder_add_int_value (b, (gint64) a->seed);
      json_builder_set_member_name (b, "threshold");
      json_builder_add_double_value (b, h);
      json_builder_set_member_name (b, "labels");
      json_builder_add_int_value (b, (gint64) d->n_obs);
      add_number_or_null (b, "accuracy", accuracy);
      add_number_or_null (b, "unique_fraction",
                          d->n_obs ? (double) d->n_inputs / (double) d->n_obs : NAN);
      json_builder_set_member_name (b, "test_points");
      json_builder_add_int_value (b, (gint64) n_test);
      add_number_or_null (b, "median_seconds", median);
      json_builder_set_member_name (b, "total_seconds");
      json_builder_add_double_value (b, total_seconds);
      json_builder_set_member_name (b, "refits");
      json_builder_add_int_value (b, (gint64) refits);
      json_builder_set_member_name (b, "refit_seconds");
      json_builder_add_double_value (b, refit_seconds);
      json_builder_end_object (b);
      print_line (b);
    }
  g_free (times);
  g_free (X);
  g_free (truth);
  g_free (prob);
  sg_rng_free (refit_rng);
  sg_bo_free (eval);
  sg_bo_free (bo);
  sg_problem_free (p);
  return exit_code;
}

static int
run_bo_argv (int argc, char **argv)
{
  bo_args a;
  g_autoptr (GError) error = NULL;
  if (!parse_args (argc, argv, &a, &error))
    {
      fprintf (stderr, "skewgp bo: %s\n", error->message);
      return SKEWGP_EXIT_INPUT;
    }
  if (a.list)
    return list_problems ();
  return a.mode == SG_BO_ACTIVE ? run_active (&a) : run_loop (&a);
}

static gboolean
run_bo_json (JsonObject *input, GError **error)
{
  (void) input;
  g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
               "bo takes command-line flags, not JSON (see skewgp bo --help)");
  return FALSE;
}

const SkewgpCommand skewgp_command_bo = {
  .name = "bo",
  .summary = "run a BO loop on a benchmark with a simulated oracle (flags, JSON Lines out)",
  .help = bo_help,
  .run = run_bo_json,
  .run_argv = run_bo_argv,
};
