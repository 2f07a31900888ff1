/* skewgp-bo.c — `skewgp bo`: run a BO loop against a simulated oracle.
 *
 * Unlike the other subcommands it takes command-line flags, not JSON, and
 * prints JSON Lines: one object per answered query, then a summary.
 */
#include "config.h"

#include "skewgp-acquisitions.h"
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

static const char bo_summary[] =
  "  skewgp bo --problem NAME [OPTION...]\n"
  "  skewgp bo --list\n\n"
  "Runs a Bayesian-optimisation loop (paper 001 sec. 5.2) against a simulated\n"
  "oracle of a benchmark problem and prints one JSON object per answered query\n"
  "(JSON Lines), then one summary object.";

static const char bo_description[] =
  "Acquisitions (--acquisition; all from joint posterior samples, 001 sec. 5\n"
  "footnote 13, maximised over 500 space-filling candidates + BOBYQA):\n"
  SKEWGP_ACQUISITIONS_HELP
  "\n"
  "Questions (preference mode):\n"
  "  --question duel    \"A or B?\" (default). With --acquisition ucb, eiig,\n"
  "                     epi, thompson, muc, hb-ei or hb-ucb A is a challenger\n"
  "                     and B the current best x_r (paper 001); with dts B is\n"
  "                     a posterior sample's maximiser; with --acquisition\n"
  "                     qeubo both points are chosen freely by qEUBO.\n"
  "  --question choice  \"which of these K is best?\" (--options K, 2-6,\n"
  "                     default 4), chosen by qEUBO (the default and only\n"
  "                     acquisition for choices).\n"
  "  --ties             duels may be answered \"about the same\": the simulated\n"
  "                     person says so when its two judged values differ by\n"
  "                     less than --tie-margin M (default 0.1, in units of\n"
  "                     the objective); decisive duels then record that a tie\n"
  "                     was offered, and refits fit the model's tie margin.\n"
  "qEUBO: E[max_i f(x_i)] over the options shown, from joint posterior samples\n"
  "(Astudillo et al., AISTATS 2023), maximised greedily one option at a time\n"
  "(Wilson et al., NeurIPS 2018). Choices of 3 or more and ties need the\n"
  "exact SkewGP (or random search). The simulated person judges every option\n"
  "shown with its own noise (--noise) and picks the best.\n\n"
  "Surrogates:\n"
  "  two-gp  safe mode: SafeOpt-style EP classifier of validity + GP\n"
  "          regression of the valid values\n"
  "  svgp    preference mode: sparse variational GP of paper 004 on the\n"
  "          duels, for long campaigns\n\n"
  "--initial: mixed mode makes K duels and K values; safe mode ignores it when\n"
  "the problem has a safe start. --seed seeds everything: initial design,\n"
  "sampling, oracle noise, safe-gp1d's function. --noise is the preference\n"
  "noise sd of each judged value and the measurement noise sd. --threshold:\n"
  "safe mode's validity threshold; active mode's class boundary, label +1 iff\n"
  "g(x) >= H (default: the problem's; required for problems without one).\n"
  "--test-points: active mode's accuracy grid per dimension for 1-D (default\n"
  "201) and 2-D (41); more dimensions use 2000 uniform points. --refit-until:\n"
  "refit the hyperparameters after every answer up to N answers (default 30),\n"
  "then every --refit-every answers (default 10); safe mode never refits.\n\n"
  "Model: RBF kernel, variance 1 and lengthscales 0.2 x the box widths before\n"
  "the first refit, probit_sd 1/sqrt2. Refits fit lengthscales and variance\n"
  "(mixed mode also the mean and probit_sd, which the values make\n"
  "identifiable); safe mode follows paper 001 sec. 5.2.3:\n"
  "variance 2, lengthscale 1.5 (x box width / 20 for other boxes), fixed, and\n"
  "measurement sd max(SD, 0.05) in the likelihood.\n\n"
  "Each iteration line: iteration, initial (bool), kind (duel|choice|value),\n"
  "query, reference (duels), options (duels and choices: the points shown, A\n"
  "and B for a duel), tie_offered (duels), answer (\"A\" = the query won,\n"
  "\"B\" = the reference won, \"tie\" = about the same; for a choice the\n"
  "index of the chosen option in options, from 0; a number; or \"invalid\"),\n"
  "options_shown (the total so far), best_x,\n"
  "best_value (the true objective at the current best x_r, maximisation\n"
  "convention: minimisation problems negated), violation (safe mode: the\n"
  "query was invalid), acquisition, seconds (proposal), refit_seconds,\n"
  "hyperparameters (the model's after this iteration's refit: kernel,\n"
  "mean, noise, as skewgp fit writes them).\n"
  "Summary line: summary=true, the settings (with question, options, ties,\n"
  "tie_margin), best_x, best_value, optimum, regret, violations,\n"
  "options_shown, ties_answered, proposals, median_seconds, total_seconds,\n"
  "refits, refit_seconds, and the recommendations (below).\n\n"
  "Recommendations (preference and mixed modes): the point reported as the\n"
  "optimum by three rules, from the model of all answers so far: winner (x_r,\n"
  "the last decisive winner: best_x above), evaluated (the answered input of\n"
  "largest posterior mean; Takeno et al. 2023) and box (the posterior-mean\n"
  "maximiser over the box; Astudillo et al. 2023). The summary has x_RULE,\n"
  "value_RULE (the true objective there) and regret_RULE for evaluated and box\n"
  "(regret is the winner's); with --recommend-every N every N-th iteration\n"
  "line has value_evaluated and value_box too. Random search has no model: its\n"
  "recommendation is the winner by every rule.\n\n"
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
  "median_seconds, total_seconds, refits, refit_seconds.\n\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input.";

/* The options as given (NULL: not given), before checking. */
typedef struct {
  char *problem, *mode, *acquisition, *numeric_acquisition, *surrogate;
  char *iterations, *initial, *seed, *noise, *samples, *candidates, *threshold;
  char *test_points, *mixed_every, *refit_until, *refit_every, *refit_evals;
  char *question, *options, *tie_margin, *recommend_every, *noise_model, *lengthscale_min;
  char *variance_max;
  gboolean list, ties;
} BoFlags;

static void
bo_flags_clear (BoFlags *f)
{
  char **texts[] = {
    &f->problem, &f->mode, &f->acquisition, &f->numeric_acquisition, &f->surrogate,
    &f->iterations, &f->initial, &f->seed, &f->noise, &f->samples, &f->candidates,
    &f->threshold, &f->test_points, &f->mixed_every, &f->refit_until, &f->refit_every,
    &f->refit_evals, &f->question, &f->options, &f->tie_margin, &f->recommend_every,
    &f->noise_model, &f->lengthscale_min, &f->variance_max,
  };
  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    g_clear_pointer (texts[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (BoFlags, bo_flags_clear)

static gboolean
parse_flags (int argc, char **argv, BoFlags *f, GError **error)
{
  const GOptionEntry entries[] = {
    { "problem", 0, 0, G_OPTION_ARG_STRING, &f->problem, "benchmark (see --list)", "NAME" },
    { "list", 0, 0, G_OPTION_ARG_NONE, &f->list, "list the benchmarks (JSON Lines)", NULL },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &f->mode,
      "preference (default) | mixed | safe | active", "MODE" },
    { "acquisition", 0, 0, G_OPTION_ARG_STRING, &f->acquisition,
      "hb-ucb (default for preference duels of up to 4 parameters) | ucb (default "
      "otherwise) | eiig | epi | thompson | muc | hb-ei (x vs x_r) | dts | qeubo (free "
      "options)", "A" },
    { "question", 0, 0, G_OPTION_ARG_STRING, &f->question,
      "duel (default) | choice (best of --options K)", "Q" },
    { "options", 0, 0, G_OPTION_ARG_STRING, &f->options,
      "options per choice question, 2-6 (default 4)", "K" },
    { "ties", 0, 0, G_OPTION_ARG_NONE, &f->ties,
      "duels may be answered \"about the same\"", NULL },
    { "tie-margin", 0, 0, G_OPTION_ARG_STRING, &f->tie_margin,
      "the simulated person's tie margin (default 0.1)", "M" },
    { "numeric-acquisition", 0, 0, G_OPTION_ARG_STRING, &f->numeric_acquisition,
      "ucb (default) | ei (value queries of mixed mode)", "A" },
    { "surrogate", 0, 0, G_OPTION_ARG_STRING, &f->surrogate,
      "skewgp (default) | laplace | ep | random | two-gp | svgp", "S" },
    { "iterations", 0, 0, G_OPTION_ARG_STRING, &f->iterations,
      "BO iterations after the initial design (default 20)", "N" },
    { "initial", 0, 0, G_OPTION_ARG_STRING, &f->initial,
      "initial random duels (default 5)", "K" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &f->seed, "seed of everything (default 0)", "S" },
    { "noise", 0, 0, G_OPTION_ARG_STRING, &f->noise, "oracle noise sd (default 0)", "SD" },
    { "noise-model", 0, 0, G_OPTION_ARG_STRING, &f->noise_model,
      "probit (default: normal noise per judged value) | logistic (Gumbel: logistic duels, "
      "softmax choices)", "M" },
    { "samples", 0, 0, G_OPTION_ARG_STRING, &f->samples,
      "posterior samples per proposal (default 1000)", "N" },
    { "candidates", 0, 0, G_OPTION_ARG_STRING, &f->candidates,
      "space-filling candidates per proposal (default 500)", "N" },
    { "threshold", 0, 0, G_OPTION_ARG_STRING, &f->threshold,
      "safe: validity threshold; active: class boundary", "H" },
    { "test-points", 0, 0, G_OPTION_ARG_STRING, &f->test_points,
      "active mode: accuracy test points per dimension", "N" },
    { "mixed-every", 0, 0, G_OPTION_ARG_STRING, &f->mixed_every,
      "mixed mode: a value query every K-th iteration (4)", "K" },
    { "refit-until", 0, 0, G_OPTION_ARG_STRING, &f->refit_until,
      "refit after every answer up to N answers (30)", "N" },
    { "refit-every", 0, 0, G_OPTION_ARG_STRING, &f->refit_every,
      "then every N-th answer (default 10)", "N" },
    { "refit-evals", 0, 0, G_OPTION_ARG_STRING, &f->refit_evals,
      "evidence evaluations per refit (default 150)", "N" },
    { "lengthscale-min", 0, 0, G_OPTION_ARG_STRING, &f->lengthscale_min,
      "smallest refitted lengthscale, fraction of the box width (default 0.05)", "F" },
    { "variance-max", 0, 0, G_OPTION_ARG_STRING, &f->variance_max,
      "largest refitted kernel variance when every answer is a comparison (default 60; "
      "at most 1000, the fit's own bound)", "V" },
    { "recommend-every", 0, 0, G_OPTION_ARG_STRING, &f->recommend_every,
      "recommendations on every N-th iteration line (default 0: summary only)", "N" },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "bo", entries, bo_summary, bo_description, 0 };
  return skewgp_parse_options (&spec, argc, argv, NULL, error);
}

typedef struct {
  const char *problem;
  sg_bo_mode mode;
  sg_bo_acquisition acquisition;
  sg_bo_numeric_acquisition numeric_acquisition;
  sg_bo_surrogate surrogate;
  sg_bo_question question;
  gboolean ties, logistic;
  double tie_margin, lengthscale_min, variance_max;
  long options;
  long iterations, initial, samples, candidates, mixed_every;
  long refit_until, refit_every, refit_evals, test_points, recommend_every;
  guint64 seed;
  double noise, threshold;
  gboolean list;
} bo_args;

static gboolean
invalid_value (const char *flag, const char *value, GError **error)
{
  return skewgp_input_error (error, "invalid value '%s' for %s (see skewgp bo --help)", value,
                             flag);
}

/* The measured default duel rule for A's mode, question, surrogate and
 * problem's number of parameters (an unknown problem is refused later). */
static sg_bo_acquisition
default_acquisition (const bo_args *a)
{
  sg_problem *p = NULL;
  size_t dim = a->problem && sg_problem_new (a->problem, 1, &p) == SG_OK ? sg_problem_dim (p) : 1;

  sg_problem_free (p);
  return sg_bo_default_acquisition (a->mode, a->question, a->surrogate, dim);
}

/* The named choices: mode, acquisitions, surrogate. */
static gboolean
read_choices (const BoFlags *f, bo_args *a, GError **error)
{
  if (f->mode && sg_bo_mode_parse (f->mode, &a->mode) != SG_OK)
    return invalid_value ("--mode", f->mode, error);
  if (f->acquisition && sg_bo_acquisition_parse (f->acquisition, &a->acquisition) != SG_OK)
    return invalid_value ("--acquisition", f->acquisition, error);
  if (f->numeric_acquisition)
    {
      if (strcmp (f->numeric_acquisition, "ucb") != 0 && strcmp (f->numeric_acquisition, "ei") != 0)
        return invalid_value ("--numeric-acquisition", f->numeric_acquisition, error);
      a->numeric_acquisition = strcmp (f->numeric_acquisition, "ei") == 0 ? SG_BO_NUMERIC_EI
                                                                          : SG_BO_NUMERIC_UCB;
    }
  if (f->surrogate && sg_bo_surrogate_parse (f->surrogate, &a->surrogate) != SG_OK)
    return invalid_value ("--surrogate", f->surrogate, error);
  if (f->question && sg_bo_question_parse (f->question, &a->question) != SG_OK)
    return invalid_value ("--question", f->question, error);
  if (!f->acquisition)
    a->acquisition = default_acquisition (a);
  return TRUE;
}

/* The question settings: --options, --ties, --tie-margin. */
static gboolean
read_question (const BoFlags *f, bo_args *a, GError **error)
{
  gboolean choice = a->question == SG_BO_QUESTION_CHOICE;
  a->options = choice ? 4 : 2;
  a->ties = f->ties;
  if (f->options && !skewgp_option_long ("--options", f->options, 2, SG_BO_MAX_OPTIONS,
                                         &a->options, error))
    return FALSE;
  if (!choice && a->options != 2)
    return skewgp_input_error (error, "--options is for --question choice (a duel shows 2)");
  if (choice && a->acquisition != SG_BO_ACQ_QEUBO)
    return skewgp_input_error (error, "--question choice takes --acquisition qeubo only");
  if (choice && a->ties)
    return skewgp_input_error (error, "--ties is for --question duel");
  if (f->tie_margin && !a->ties)
    return skewgp_input_error (error, "--tie-margin needs --ties");
  if (f->tie_margin && !skewgp_option_double ("--tie-margin", f->tie_margin, &a->tie_margin,
                                              error))
    return FALSE;
  if (!(a->tie_margin > 0) || !isfinite (a->tie_margin))
    return invalid_value ("--tie-margin", f->tie_margin, error);
  if ((choice || a->ties || a->acquisition == SG_BO_ACQ_QEUBO) && a->mode != SG_BO_PREFERENCE)
    return skewgp_input_error (error, "--question choice, --ties and --acquisition qeubo are "
                               "for --mode preference");
  return TRUE;
}

/* The numbers: counts with their minimum, the seed, noise and threshold. */
static gboolean
read_numbers (const BoFlags *f, bo_args *a, GError **error)
{
  long seed = 0;
  const struct { const char *flag, *text; long min; long *out; } counts[] = {
    { "--iterations", f->iterations, 0, &a->iterations },
    { "--initial", f->initial, 1, &a->initial },
    { "--seed", f->seed, 0, &seed },
    { "--samples", f->samples, 2, &a->samples },
    { "--candidates", f->candidates, 1, &a->candidates },
    { "--mixed-every", f->mixed_every, 1, &a->mixed_every },
    { "--refit-until", f->refit_until, 0, &a->refit_until },
    { "--refit-every", f->refit_every, 0, &a->refit_every },
    { "--test-points", f->test_points, 2, &a->test_points },
    { "--refit-evals", f->refit_evals, 1, &a->refit_evals },
    { "--recommend-every", f->recommend_every, 0, &a->recommend_every },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (counts); i++)
    if (counts[i].text
        && !skewgp_option_long (counts[i].flag, counts[i].text, counts[i].min, G_MAXLONG,
                                counts[i].out, error))
      return FALSE;
  a->seed = (guint64) seed;
  if (f->noise && !skewgp_option_double ("--noise", f->noise, &a->noise, error))
    return FALSE;
  if (!(a->noise >= 0))
    return invalid_value ("--noise", f->noise, error);
  if (f->noise_model && strcmp (f->noise_model, "probit") != 0
      && strcmp (f->noise_model, "logistic") != 0)
    return invalid_value ("--noise-model", f->noise_model, error);
  a->logistic = f->noise_model && strcmp (f->noise_model, "logistic") == 0;
  if (f->lengthscale_min
      && (!skewgp_option_double ("--lengthscale-min", f->lengthscale_min, &a->lengthscale_min,
                                 error)))
    return FALSE;
  if (!(a->lengthscale_min > 0 && a->lengthscale_min < 2))
    return invalid_value ("--lengthscale-min", f->lengthscale_min, error);
  if (f->variance_max
      && !skewgp_option_double ("--variance-max", f->variance_max, &a->variance_max, error))
    return FALSE;
  if (!(a->variance_max > 0) || !isfinite (a->variance_max))
    return invalid_value ("--variance-max", f->variance_max, error);
  return !f->threshold || skewgp_option_double ("--threshold", f->threshold, &a->threshold, error);
}

/* The arguments of a run from the options F (which must outlive A). */
static gboolean
args_from_flags (const BoFlags *f, bo_args *a, GError **error)
{
  *a = (bo_args) {
    .problem = f->problem, .list = f->list,
    .iterations = 20, .initial = 5, .samples = 1000, .candidates = 500,
    .mixed_every = 4, .refit_until = -1, .refit_every = -1, .refit_evals = 150,
    .threshold = NAN, .tie_margin = 0.1, .lengthscale_min = 0.05, .variance_max = 60,
  };
  if (!read_choices (f, a, error) || !read_numbers (f, a, error)
      || !read_question (f, a, error))
    return FALSE;
  if (!a->list && a->problem == NULL)
    return skewgp_input_error (error, "--problem is required (see skewgp bo --list)");
  return TRUE;
}

static int
list_problems (void)
{
  for (size_t i = 0; i < sg_problem_count (); i++)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      sb_json_add_string (b, "name", sg_problem_name_at (i));
      sb_json_add_string (b, "description", sg_problem_description_at (i));
      sg_problem *p = NULL;
      if (sg_problem_new (sg_problem_name_at (i), 0, &p) == SG_OK)
        {
          sb_json_add_int (b, "dim", (gint64) sg_problem_dim (p));
          skewgp_add_vector (b, "lower", sg_problem_lower (p), sg_problem_dim (p));
          skewgp_add_vector (b, "upper", sg_problem_upper (p), sg_problem_dim (p));
          sb_json_add_number (b, "optimum", sg_problem_optimum (p));
          sb_json_add_bool (b, "safe", sg_problem_safe_start (p) != NULL);
          sg_problem_free (p);
        }
      json_builder_end_object (b);
      skewgp_print_builder (b, TRUE);
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

/* The median of the N values of X (sorted in place); NaN for none. */
static double
median_of (double *x, size_t n)
{
  qsort (x, n, sizeof *x, cmp_double);
  return n == 0 ? NAN : n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
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
  c->question = a->question;
  c->n_options = (size_t) a->options;
  c->ties = a->ties;
  c->n_initial = (size_t) a->initial;
  c->n_samples = (size_t) a->samples;
  c->search.n_candidates = (size_t) a->candidates;
  c->mixed_every = (size_t) a->mixed_every;
  c->seed = a->seed;
  c->refit.max_evals = (size_t) a->refit_evals;
  c->refit_lengthscale_min = a->lengthscale_min;
  c->refit_variance_max = a->variance_max;
  c->refit_free = sg_bo_default_refit_free (a->mode);
  if (a->ties)
    c->refit_free |= SG_FIT_TIE_MARGIN;
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

/* ---- One run --------------------------------------------------------------- */

/* What a run (either mode) owns and counts. */
typedef struct {
  const bo_args *a;
  sg_problem *p;
  sg_bo_config cfg;
  sg_bo *bo;
  sg_bo *eval;       /* active mode with random labelling: the SkewGP judge */
  gsl_rng *refit_rng;
  GTimer *timer;
  double *times;     /* proposal seconds of the non-random queries */
  size_t n_times, refits, violations;
  size_t options_shown, ties_answered;
  double refit_seconds, total_seconds;
} BoRun;

static void
bo_run_clear (BoRun *r)
{
  g_clear_pointer (&r->times, g_free);
  g_clear_pointer (&r->timer, g_timer_destroy);
  g_clear_pointer (&r->refit_rng, sg_rng_free);
  g_clear_pointer (&r->eval, sg_bo_free);
  g_clear_pointer (&r->bo, sg_bo_free);
  g_clear_pointer (&r->p, sg_problem_free);
  sg_bo_config_clear (&r->cfg);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (BoRun, bo_run_clear)

/* Problem A->problem into R, or an input error on stderr (FALSE). */
static gboolean
open_problem (const bo_args *a, BoRun *r)
{
  r->a = a;
  if (sg_problem_new (a->problem, a->seed, &r->p) == SG_OK)
    return TRUE;
  fprintf (stderr, "skewgp bo: unknown problem '%s' (see skewgp bo --list)\n", a->problem);
  return FALSE;
}

/* The model, its refit generator and the counters for TOTAL answers. */
static int
start_run (BoRun *r, size_t total)
{
  int status = make_config (r->a, r->p, &r->cfg);
  if (status == SG_OK)
    status = sg_bo_new (&r->cfg, &r->bo);
  if (status != SG_OK)
    return fail ("configuration", status);
  r->refit_rng = sg_rng_new (r->a->seed, 0x4ef17);
  r->timer = g_timer_new ();
  r->times = g_new0 (double, total + 1);
  return SKEWGP_EXIT_OK;
}

/* One iteration's heavy part, timed: the refit when JUDGE's schedule asks
 * for one (JUDGE is R's model, or the SkewGP that scores random
 * labelling, then the model's own refit is a no-op), then the proposal Q.
 * Adds to R's timings; on failure prints which step failed and returns
 * the exit status. */
static int
refit_and_propose (BoRun *r, sg_bo *judge, sg_bo_query *q, double *t_refit, double *t)
{
  int status = SG_OK;
  *t_refit = 0;
  if (sg_bo_refit_due (judge))
    {
      g_timer_start (r->timer);
      status = sg_bo_refit (judge, r->refit_rng, NULL, NULL);
      if (status == SG_OK && judge != r->bo)
        status = sg_bo_refit (r->bo, r->refit_rng, NULL, NULL);
      *t_refit = g_timer_elapsed (r->timer, NULL);
      r->refit_seconds += *t_refit;
      r->refits++;
      if (status != SG_OK)
        return fail ("hyperparameter refit", status);
    }
  gsl_rng *rng = sg_bo_rng (r->bo);
  g_timer_start (r->timer);
  status = rng ? sg_bo_propose (r->bo, rng, NULL, q) : SG_ENOMEM;
  *t = g_timer_elapsed (r->timer, NULL);
  sg_rng_free (rng);
  if (status != SG_OK)
    return fail ("proposal", status);
  r->total_seconds += *t;
  if (!q->random)
    r->times[r->n_times++] = *t;
  return SKEWGP_EXIT_OK;
}

/* The members every iteration line starts with. */
static void
add_iteration_head (JsonBuilder *b, size_t it, const sg_bo_query *q, const char *kind,
                    size_t dim)
{
  sb_json_add_int (b, "iteration", (gint64) it);
  sb_json_add_bool (b, "initial", q->initial);
  sb_json_add_string (b, "kind", kind);
  skewgp_add_vector (b, "query", q->x, dim);
}

/* The members every iteration line ends with; ends and prints the line. */
static void
print_iteration_tail (JsonBuilder *b, const BoRun *r, double t, double t_refit)
{
  skewgp_add_double (b, "seconds", t);
  skewgp_add_double (b, "refit_seconds", t_refit);
  add_hyperparameters (b, r->bo);
  json_builder_end_object (b);
  skewgp_print_builder (b, TRUE);
}

/* The timing members every summary line ends with. */
static void
add_timings (JsonBuilder *b, BoRun *r)
{
  sb_json_add_number (b, "median_seconds", median_of (r->times, r->n_times));
  skewgp_add_double (b, "total_seconds", r->total_seconds);
  sb_json_add_int (b, "refits", (gint64) r->refits);
  skewgp_add_double (b, "refit_seconds", r->refit_seconds);
}

/* ---- Preference, mixed and safe modes -------------------------------------- */

/* The settings a loop refuses before it starts (exit 2). */
static gboolean
loop_settings_ok (const bo_args *a, const sg_problem *p)
{
  gboolean hb = a->acquisition == SG_BO_ACQ_HB_EI || a->acquisition == SG_BO_ACQ_HB_UCB;
  if (a->mode == SG_BO_SAFE && isnan (a->threshold) && isnan (sg_problem_threshold (p)))
    fprintf (stderr, "skewgp bo: problem '%s' has no threshold; give --threshold for safe mode\n",
             a->problem);
  else if (a->surrogate == SG_BO_SURROGATE_TWO_GP && a->mode != SG_BO_SAFE)
    fprintf (stderr, "skewgp bo: the two-gp surrogate is for safe mode only\n");
  else if (a->surrogate == SG_BO_SURROGATE_SVGP && a->mode != SG_BO_PREFERENCE)
    fprintf (stderr, "skewgp bo: the svgp surrogate is for preference mode only\n");
  else if (((a->question == SG_BO_QUESTION_CHOICE && a->options > 2) || a->ties)
           && a->surrogate != SG_BO_SURROGATE_SKEWGP && a->surrogate != SG_BO_SURROGATE_RANDOM)
    fprintf (stderr, "skewgp bo: choices of 3 or more and ties need --surrogate skewgp "
             "(or random)\n");
  else if (a->question == SG_BO_QUESTION_CHOICE && a->surrogate == SG_BO_SURROGATE_SVGP)
    fprintf (stderr, "skewgp bo: the svgp surrogate takes duels only\n");
  else if ((hb || a->acquisition == SG_BO_ACQ_DTS) && a->mode != SG_BO_PREFERENCE)
    fprintf (stderr, "skewgp bo: --acquisition %s is for --mode preference\n",
             sg_bo_acquisition_name (a->acquisition));
  else if (hb && a->surrogate != SG_BO_SURROGATE_SKEWGP && a->surrogate != SG_BO_SURROGATE_RANDOM)
    fprintf (stderr, "skewgp bo: --acquisition %s needs --surrogate skewgp (its hallucination "
             "is a sample of the exact posterior)\n", sg_bo_acquisition_name (a->acquisition));
  else
    return TRUE;
  return FALSE;
}

/* The simulated person's judged value of option X: the objective plus
 * its preference noise: normal (sg-problems.h: the Thurstone judge of
 * sg_oracle_duel, drawn in the same order) or, with LOGISTIC, Gumbel with
 * scale preference_sd (the difference of two is logistic, so a duel is
 * won with probability 1 / (1 + exp(-(g(a) - g(b)) / s)), and the best of
 * k is a softmax choice: the noise model of the qEUBO experiments). */
static double
judged_value (const sg_oracle *oracle, gboolean logistic, gsl_rng *rng, const double *x)
{
  double u = sg_problem_value (oracle->problem, x), s = oracle->preference_sd;
  if (!(s > 0))
    return u;
  return logistic ? u - s * log (-log (gsl_rng_uniform_pos (rng))) : u + s * sg_rng_gaussian (rng);
}

/* A choice among the K options of Q: the one with the largest judged
 * value (the first on equal values). */
static size_t
oracle_choice (const sg_oracle *oracle, gboolean logistic, gsl_rng *rng, const sg_bo_query *q)
{
  size_t best = 0;
  double ub = -INFINITY;
  for (size_t i = 0; i < q->n_options; i++)
    {
      double u = judged_value (oracle, logistic, rng, q->options[i]);
      if (u > ub)
        ub = u, best = i;
    }
  return best;
}

/* A duel that may end in a tie: -1 "about the same" when the judged values
 * differ by less than MARGIN, else 1 when A wins, 0 when B wins. */
static int
oracle_duel_or_tie (const sg_oracle *oracle, gboolean logistic, gsl_rng *rng, const sg_bo_query *q,
                    double margin)
{
  double ua = judged_value (oracle, logistic, rng, q->x);
  double ub = judged_value (oracle, logistic, rng, q->x_ref);
  return fabs (ua - ub) < margin ? -1 : ua >= ub;
}

/* The simulated person or experiment answering Q: adds "answer" to B and
 * the answer to R's model. */
static int
answer_query (BoRun *r, sg_oracle *oracle, gsl_rng *rng, const sg_bo_query *q, JsonBuilder *b,
              gboolean *violation)
{
  json_builder_set_member_name (b, "answer");
  if (q->kind == SG_BO_QUERY_CHOICE)
    {
      size_t chosen = oracle_choice (oracle, r->a->logistic, rng, q), dim = r->cfg.dim;
      json_builder_add_int_value (b, (gint64) chosen);
      double packed[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
      for (size_t i = 0; i < q->n_options; i++)
        memcpy (packed + i * dim, q->options[i], dim * sizeof *packed);
      return sg_bo_answer_choice (r->bo, packed, q->n_options, chosen, SG_CONFIDENCE_NONE, SG_SHOWN_NONE);
    }
  if (q->kind == SG_BO_QUERY_DUEL && q->tie_offered)
    {
      int outcome = oracle_duel_or_tie (oracle, r->a->logistic, rng, q, r->a->tie_margin);
      json_builder_add_string_value (b, outcome < 0 ? "tie" : outcome ? "A" : "B");
      if (outcome >= 0)
        return sg_bo_answer_duel (r->bo, q->x, q->x_ref, outcome);
      r->ties_answered++;
      return sg_bo_answer_tie (r->bo, q->x, q->x_ref);
    }
  if (q->kind == SG_BO_QUERY_DUEL)
    {
      int a_wins = 0;
      if (r->a->logistic)
        a_wins = judged_value (oracle, TRUE, rng, q->x) >= judged_value (oracle, TRUE, rng, q->x_ref);
      else
        sg_oracle_duel (oracle, rng, q->x, q->x_ref, &a_wins);
      json_builder_add_string_value (b, a_wins ? "A" : "B");
      return sg_bo_answer_duel (r->bo, q->x, q->x_ref, a_wins);
    }
  double y;
  int valid;
  sg_oracle_measure (oracle, rng, q->x, &y, &valid);
  if (valid)
    {
      json_builder_add_double_value (b, y);
      return sg_bo_answer_value (r->bo, q->x, y);
    }
  json_builder_add_string_value (b, "invalid");
  *violation = TRUE;
  r->violations++;
  return sg_bo_answer_invalid (r->bo, q->x);
}

/* Recommendations are for the loops that look for a maximum by duels. */
static gboolean
recommends (const bo_args *a)
{
  return a->mode == SG_BO_PREFERENCE || a->mode == SG_BO_MIXED;
}

/* The recommendations of sg_bo_recommend (see the help text) from a model
 * of all answers so far, rebuilt with its own stream so that the
 * proposals' streams are unchanged; members x_RULE (FULL only), value_RULE
 * and, with FULL, regret_RULE for the evaluated and box rules. */
static int
add_recommendations (JsonBuilder *b, BoRun *r, gboolean full)
{
  const sg_bo_recommend_rule rules[] = { SG_BO_RECOMMEND_EVALUATED, SG_BO_RECOMMEND_BOX };
  size_t dim = r->cfg.dim;
  double xs[2][SG_BO_MAX_DIM];
  int status = SG_OK;
  gsl_rng *rng = sg_rng_new (r->a->seed, 0x5ec0000 + sg_bo_n_answers (r->bo));
  gboolean model = r->a->surrogate != SG_BO_SURROGATE_RANDOM;
  if (model)
    status = rng ? sg_bo_fit_model (r->bo, rng, NULL) : SG_ENOMEM;
  for (gsize i = 0; i < G_N_ELEMENTS (rules) && status == SG_OK; i++)
    {
      double mean;
      if (!model)
        status = sg_bo_best (r->bo, xs[i]) ? SG_OK : SG_EINVAL;
      else
        status = sg_bo_recommend (r->bo, rules[i], rng, NULL, xs[i], &mean);
    }
  sg_rng_free (rng);
  if (status != SG_OK)
    return fail ("recommendation", status);
  for (gsize i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      const char *name = sg_bo_recommend_name (rules[i]);
      double value = sg_problem_value (r->p, xs[i]);
      g_autofree char *xk = g_strdup_printf ("x_%s", name);
      g_autofree char *vk = g_strdup_printf ("value_%s", name);
      g_autofree char *rk = g_strdup_printf ("regret_%s", name);
      if (full)
        skewgp_add_vector (b, xk, xs[i], dim);
      skewgp_add_double (b, vk, value);
      if (full)
        sb_json_add_number (b, rk, sg_problem_optimum (r->p) - value);
    }
  return SKEWGP_EXIT_OK;
}

/* Iteration IT: refit, propose, answer, print the line. */
static int
loop_iteration (BoRun *r, sg_oracle *oracle, gsl_rng *oracle_rng, size_t it)
{
  size_t dim = r->cfg.dim;
  double t, t_refit;
  sg_bo_query q;
  int code = refit_and_propose (r, r->bo, &q, &t_refit, &t);
  if (code != SKEWGP_EXIT_OK)
    return code;

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  gboolean duel = q.kind == SG_BO_QUERY_DUEL, choice = q.kind == SG_BO_QUERY_CHOICE;
  gboolean violation = FALSE;
  add_iteration_head (b, it, &q, duel ? "duel" : choice ? "choice" : "value", dim);
  if (duel)
    skewgp_add_vector (b, "reference", q.x_ref, dim);
  if (duel || choice)
    {
      json_builder_set_member_name (b, "options");
      json_builder_begin_array (b);
      for (size_t i = 0; i < q.n_options; i++)
        {
          json_builder_begin_array (b);
          for (size_t j = 0; j < dim; j++)
            json_builder_add_double_value (b, q.options[i][j]);
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
    }
  if (duel)
    sb_json_add_bool (b, "tie_offered", q.tie_offered);
  int status = answer_query (r, oracle, oracle_rng, &q, b, &violation);
  if (status != SG_OK)
    return fail ("answer", status);
  r->options_shown += q.n_options;
  sb_json_add_int (b, "options_shown", (gint64) r->options_shown);
  double best[SG_BO_MAX_DIM];
  int has_best = sg_bo_best (r->bo, best);
  skewgp_add_vector (b, "best_x", has_best ? best : NULL, dim);
  sb_json_add_number (b, "best_value", has_best ? sg_problem_value (r->p, best) : NAN);
  if (r->a->mode == SG_BO_SAFE)
    sb_json_add_bool (b, "violation", violation);
  sb_json_add_number (b, "acquisition", q.acquisition);
  if (recommends (r->a) && r->a->recommend_every > 0 && it % (size_t) r->a->recommend_every == 0
      && !q.initial)
    {
      int code2 = add_recommendations (b, r, FALSE);
      if (code2 != SKEWGP_EXIT_OK)
        return code2;
    }
  print_iteration_tail (b, r, t, t_refit);
  return SKEWGP_EXIT_OK;
}

static int
print_loop_summary (BoRun *r, size_t n_init)
{
  const bo_args *a = r->a;
  double best[SG_BO_MAX_DIM];
  int has_best = sg_bo_best (r->bo, best);
  double value = has_best ? sg_problem_value (r->p, best) : NAN;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_bool (b, "summary", TRUE);
  sb_json_add_string (b, "problem", a->problem);
  sb_json_add_string (b, "mode", sg_bo_mode_name (a->mode));
  sb_json_add_string (b, "acquisition", sg_bo_acquisition_name (a->acquisition));
  sb_json_add_string (b, "surrogate", sg_bo_surrogate_name (a->surrogate));
  sb_json_add_string (b, "question", sg_bo_question_name (a->question));
  sb_json_add_int (b, "options", a->options);
  sb_json_add_bool (b, "ties", a->ties);
  sb_json_add_number (b, "tie_margin", a->ties ? a->tie_margin : NAN);
  skewgp_add_double (b, "noise", a->noise);
  sb_json_add_string (b, "noise_model", a->logistic ? "logistic" : "probit");
  skewgp_add_double (b, "lengthscale_min", a->lengthscale_min);
  skewgp_add_double (b, "variance_max", a->variance_max);
  sb_json_add_int (b, "seed", (gint64) a->seed);
  sb_json_add_int (b, "iterations", a->iterations);
  sb_json_add_int (b, "initial", (gint64) n_init);
  skewgp_add_vector (b, "best_x", has_best ? best : NULL, r->cfg.dim);
  sb_json_add_number (b, "best_value", value);
  sb_json_add_number (b, "optimum", sg_problem_optimum (r->p));
  sb_json_add_number (b, "regret", sg_problem_optimum (r->p) - value);
  sb_json_add_int (b, "violations", (gint64) r->violations);
  sb_json_add_int (b, "options_shown", (gint64) r->options_shown);
  sb_json_add_int (b, "ties_answered", (gint64) r->ties_answered);
  sb_json_add_int (b, "proposals", (gint64) r->n_times);
  add_timings (b, r);
  if (recommends (a) && has_best)
    {
      int code = add_recommendations (b, r, TRUE);
      if (code != SKEWGP_EXIT_OK)
        return code;
    }
  json_builder_end_object (b);
  skewgp_print_builder (b, TRUE);
  return SKEWGP_EXIT_OK;
}

static int
run_loop (const bo_args *a)
{
  g_auto (BoRun) r = { 0 };
  if (!open_problem (a, &r) || !loop_settings_ok (a, r.p))
    return SKEWGP_EXIT_INPUT;
  /* Initial design answers, then the BO iterations. */
  size_t n_init = a->mode == SG_BO_MIXED ? 2 * (size_t) a->initial
                  : a->mode == SG_BO_SAFE && sg_problem_safe_start (r.p) ? 1
                                                                          : (size_t) a->initial;
  size_t total = n_init + (size_t) a->iterations;
  int code = start_run (&r, total);
  if (code != SKEWGP_EXIT_OK)
    return code;

  sg_oracle oracle;
  sg_oracle_init (&oracle, r.p);
  oracle.preference_sd = a->noise;
  oracle.measurement_sd = a->noise;
  oracle.has_threshold = 1;
  oracle.threshold = a->mode == SG_BO_SAFE ? r.cfg.threshold : NAN;
  gsl_rng *oracle_rng = sg_rng_new (a->seed, 0x0a11ce);
  for (size_t it = 1; it <= total && code == SKEWGP_EXIT_OK; it++)
    code = loop_iteration (&r, &oracle, oracle_rng, it);
  if (code == SKEWGP_EXIT_OK)
    code = print_loop_summary (&r, n_init);
  sg_rng_free (oracle_rng);
  return code;
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

/* The settings active mode refuses (exit 2); *H is the class boundary. */
static gboolean
active_settings_ok (const bo_args *a, const sg_problem *p, double *h)
{
  *h = isnan (a->threshold) ? sg_problem_threshold (p) : a->threshold;
  if (isnan (*h))
    fprintf (stderr, "skewgp bo: problem '%s' has no threshold; give --threshold for "
             "active mode (the class boundary)\n", a->problem);
  else if (a->surrogate == SG_BO_SURROGATE_TWO_GP || a->surrogate == SG_BO_SURROGATE_SVGP)
    fprintf (stderr, "skewgp bo: the %s surrogate is not for active mode\n",
             sg_bo_surrogate_name (a->surrogate));
  else
    return TRUE;
  return FALSE;
}

/* The accuracy test set: points, their true labels, predicted P(y = +1). */
typedef struct {
  double *X;
  int *truth;
  double *prob;
  size_t n;
} ActiveTest;

static void
active_test_clear (ActiveTest *t)
{
  g_clear_pointer (&t->X, g_free);
  g_clear_pointer (&t->truth, g_free);
  g_clear_pointer (&t->prob, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ActiveTest, active_test_clear)

static void
active_test_init (const bo_args *a, const sg_problem *p, double h, ActiveTest *t)
{
  size_t dim = sg_problem_dim (p);
  t->X = active_test_points (a, p, &t->n);
  t->truth = g_new (int, t->n);
  t->prob = g_new (double, t->n);
  for (size_t i = 0; i < t->n; i++)
    t->truth[i] = sg_problem_value (p, t->X + i * dim) >= h ? 1 : -1;
}

/* Iteration IT: refit, propose, label by the threshold H, score, print. */
static int
active_iteration (BoRun *r, ActiveTest *test, double h, size_t it, double *accuracy)
{
  sg_bo *judge = r->eval ? r->eval : r->bo;
  double t, t_refit;
  sg_bo_query q;
  int code = refit_and_propose (r, judge, &q, &t_refit, &t);
  if (code != SKEWGP_EXIT_OK)
    return code;
  int label = sg_problem_value (r->p, q.x) >= h ? 1 : -1;
  int status = sg_bo_answer_label (r->bo, q.x, label);
  if (status == SG_OK && r->eval)
    status = sg_bo_answer_label (r->eval, q.x, label);
  if (status != SG_OK)
    return fail ("answer", status);
  *accuracy = active_accuracy (judge, r->a->seed, test->X, test->truth, test->n, test->prob);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  add_iteration_head (b, it, &q, "label", r->cfg.dim);
  sb_json_add_int (b, "answer", label);
  sb_json_add_number (b, "acquisition", q.acquisition);
  skewgp_add_double (b, "accuracy", *accuracy);
  print_iteration_tail (b, r, t, t_refit);
  return SKEWGP_EXIT_OK;
}

static void
print_active_summary (BoRun *r, double h, double accuracy, size_t n_test)
{
  const sg_data *d = sg_bo_data (r->bo);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_bool (b, "summary", TRUE);
  sb_json_add_string (b, "problem", r->a->problem);
  sb_json_add_string (b, "mode", "active");
  sb_json_add_string (b, "surrogate", sg_bo_surrogate_name (r->a->surrogate));
  sb_json_add_int (b, "seed", (gint64) r->a->seed);
  skewgp_add_double (b, "threshold", h);
  sb_json_add_int (b, "labels", (gint64) d->n_obs);
  skewgp_add_double (b, "accuracy", accuracy);
  sb_json_add_number (b, "unique_fraction",
                     d->n_obs ? (double) d->n_inputs / (double) d->n_obs : NAN);
  sb_json_add_int (b, "test_points", (gint64) n_test);
  add_timings (b, r);
  json_builder_end_object (b);
  skewgp_print_builder (b, TRUE);
}

static int
run_active (const bo_args *a)
{
  g_auto (BoRun) r = { 0 };
  double h;
  if (!open_problem (a, &r) || !active_settings_ok (a, r.p, &h))
    return SKEWGP_EXIT_INPUT;
  size_t total = (size_t) a->initial + (size_t) a->iterations;
  int code = start_run (&r, total);
  if (code != SKEWGP_EXIT_OK)
    return code;
  /* Random labelling is judged by the exact SkewGP on the same labels. */
  if (a->surrogate == SG_BO_SURROGATE_RANDOM)
    {
      sg_bo_config ecfg = r.cfg;
      ecfg.surrogate = SG_BO_SURROGATE_SKEWGP;
      int status = sg_bo_new (&ecfg, &r.eval);
      if (status != SG_OK)
        return fail ("configuration", status);
    }
  g_auto (ActiveTest) test = { 0 };
  active_test_init (a, r.p, h, &test);
  double accuracy = NAN;
  for (size_t it = 1; it <= total && code == SKEWGP_EXIT_OK; it++)
    code = active_iteration (&r, &test, h, it, &accuracy);
  if (code == SKEWGP_EXIT_OK)
    print_active_summary (&r, h, accuracy, test.n);
  return code;
}

static int
run_bo_argv (int argc, char **argv)
{
  g_auto (BoFlags) flags = { 0 };
  bo_args a;
  g_autoptr (GError) error = NULL;
  if (!parse_flags (argc, argv, &flags, &error) || !args_from_flags (&flags, &a, &error))
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
  .help = NULL,  /* GOptionContext's, see parse_flags */
  .run = run_bo_json,
  .run_argv = run_bo_argv,
};
