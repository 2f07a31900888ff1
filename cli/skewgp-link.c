/* skewgp-link.c — `skewgp link`: a monotone function of one variable with
 * the integrated squared GP of paper 003 (engine/sg-link.h): the link
 * diagnostic of a preference campaign (core/sb-link-job.h) or a monotone
 * 1-D regression. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-link-job.h"
#include "sb-session.h"
#include "sg-link.h"
#include "sg-rng.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char link_help[] =
  "Usage: skewgp link FILE|-\n"
  "       skewgp link --session SESSION.json [--seed N]\n\n"
  "Fits a monotone function g of one variable with an integrated squared GP\n"
  "(paper 003: g(x) = g0 + int h^2, h a GP in a trigonometric basis with\n"
  "closed-form psi matrices, Laplace inference) and prints it on a grid with\n"
  "a credible band.\n\n"
  "Link fit (the diagnostic of a preference campaign):\n"
  "  {\"d\": [...], \"answer\": [0|1, ...], \"probit_sd\": s (default 1/sqrt2)}\n"
  "  P(answer = 1 | d) = Phi(g(d)); the prior mean of g is the probit link\n"
  "  d / (sqrt2 s). The verdict says whether Phi(d / (sqrt2 s)) lies inside\n"
  "  the band on at least 80% of the range of d.\n"
  "  --session SESSION.json computes d from a SkewBench session: for every\n"
  "  answered duel, d = E[f(a)] - E[f(b)] under the exact SkewGP posterior of\n"
  "  all answers (session hyperparameters; a = the first candidate, the\n"
  "  current best) and answer = 1 if a won; s is the session's probit_sd.\n"
  "  Note that d uses the same answers that fitted f (in-sample).\n\n"
  "Regression (a monotone non-decreasing fit):\n"
  "  {\"x\": [...], \"y\": [...], \"noise_sd\": s}\n"
  "  y ~ N(g(x), s^2). Without noise_sd, s is chosen by the Laplace evidence\n"
  "  (003 eq. 28) over 25 values log-spaced in [1e-3, 1] x sd(y).\n"
  "  The prior mean of g is the line through mean(y) with slope\n"
  "  range(y) / range(x), centred at the midrange of x.\n\n"
  "Optional fields (both forms):\n"
  "  \"n_basis\": M       basis size, even, 2..64 (default 32); the\n"
  "                    observations n must have n M^2 <= 2^28\n"
  "                    (262144 at M = 32, 65536 at M = 64)\n"
  "  \"grid\": k          points of the printed curve (default 121)\n"
  "  \"draws\": n         Laplace draws for the band (default 2000)\n"
  "  \"level\": p         credible level of the band (default 0.95)\n"
  "  \"seed\": s          RNG seed (default 0)\n\n"
  "Output (link): {\"kind\": \"link\", \"n\", \"probit_sd\", \"level\", \"grid\",\n"
  "   \"mean\", \"lower\", \"upper\" (P(answer = 1 | d) on the grid), \"probit\"\n"
  "   (Phi(d / (sqrt2 s))), \"coverage\", \"consistent\", \"verdict\",\n"
  "   \"log_evidence\", \"newton_iterations\", \"d\", \"answer\", \"seconds\"}\n"
  "Output (regression): {\"kind\": \"regression\", \"n\", \"noise_sd\",\n"
  "   \"noise_sd_selected\", \"level\", \"grid\", \"mean\", \"sd\", \"median\",\n"
  "   \"lower\", \"upper\", \"log_evidence\", \"newton_iterations\"}\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input.\n";

/* Engine failures are numerical (exit 1), bad data input (exit 2). */
static gboolean
forward_error (GError *err, GError **error)
{
  if (g_error_matches (err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA)
      || g_error_matches (err, SB_ENGINE_ERROR, SG_EINVAL))
    skewgp_input_error (error, "%s", err->message);
  else
    g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, "%s", err->message);
  g_error_free (err);
  return FALSE;
}

static void
print_link (const SbLinkResult *res)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "kind", "link");
  sb_json_add_int (b, "n", res->n);
  skewgp_add_double (b, "probit_sd", res->probit_sd);
  skewgp_add_double (b, "level", res->level);
  skewgp_add_vector (b, "grid", res->grid, res->n_grid);
  skewgp_add_vector (b, "mean", res->p_mean, res->n_grid);
  skewgp_add_vector (b, "lower", res->p_lower, res->n_grid);
  skewgp_add_vector (b, "upper", res->p_upper, res->n_grid);
  skewgp_add_vector (b, "probit", res->p_probit, res->n_grid);
  skewgp_add_double (b, "coverage", res->coverage);
  sb_json_add_bool (b, "consistent", res->consistent);
  sb_json_add_string (b, "verdict", res->verdict);
  skewgp_add_double (b, "log_evidence", res->log_evidence);
  sb_json_add_int (b, "newton_iterations", res->newton_iterations);
  skewgp_add_vector (b, "d", res->d, res->n);
  skewgp_add_vector (b, "answer", res->answer, res->n);
  skewgp_add_double (b, "seconds", res->seconds);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

/* ---- Options shared by both forms ----------------------------------------- */

static gboolean
read_options (JsonObject *in, SbLinkOptions *opt, GError **error)
{
  gint64 n_basis = opt->n_basis, grid = opt->n_grid, draws = opt->n_draws;
  gint64 seed = (gint64) opt->seed;
  if (!skewgp_get_int (in, "n_basis", FALSE, 2, SG_LINK_MAX_BASIS, &n_basis, error)
      || !skewgp_get_int (in, "grid", FALSE, 2, 100000, &grid, error)
      || !skewgp_get_int (in, "draws", FALSE, 10, 1000000, &draws, error)
      || !skewgp_get_int (in, "seed", FALSE, 0, G_MAXINT64, &seed, error)
      || !skewgp_get_double (in, "level", FALSE, &opt->level, error))
    return FALSE;
  if (n_basis % 2 != 0)
    return skewgp_input_error (error, "field 'n_basis' must be even, got %" G_GINT64_FORMAT,
                               n_basis);
  if (!(opt->level > 0 && opt->level < 1))
    return skewgp_input_error (error, "field 'level' must be in (0, 1), got %g", opt->level);
  opt->n_basis = (guint) n_basis;
  opt->n_grid = (guint) grid;
  opt->n_draws = (guint) draws;
  opt->seed = (guint64) seed;
  return TRUE;
}

/* The fit keeps an n_basis x n_basis matrix per observation: n x n_basis^2
 * numbers at most MAX_BASIS_NUMBERS (2^28, ~2.1 GB; measured 0.9 GB at
 * 100,000 observations and n_basis 32, tests/bench/results-fuzz.md). */
#define MAX_BASIS_NUMBERS (1 << 28)

static gboolean
check_size (const char *field, gsize n, guint n_basis, GError **error)
{
  double need = (double) n * n_basis * n_basis;
  if (need <= MAX_BASIS_NUMBERS)
    return TRUE;
  return skewgp_input_error (error, "field '%s': %" G_GSIZE_FORMAT " observations with n_basis "
                             "%u are above the limit n x n_basis^2 <= 2^28 (%u observations "
                             "at this n_basis)", field, n, n_basis,
                             (guint) (MAX_BASIS_NUMBERS / (n_basis * n_basis)));
}

/* ---- Link form --------------------------------------------------------------- */

static gboolean
run_link_json (JsonObject *in, GError **error)
{
  static const char *const known[] = { "d", "answer", "probit_sd", "n_basis", "grid",
                                       "draws", "level", "seed", NULL };
  g_autofree double *d = NULL, *answer = NULL;
  gsize n = 0, n_answer = 0;
  double probit_sd = G_SQRT2 / 2.0;
  SbLinkOptions opt;
  sb_link_options_init (&opt);

  if (!skewgp_check_fields (in, "input", known, error)
      || !skewgp_get_vector (in, "d", TRUE, 0, FALSE, 0, &d, &n, error)
      || !skewgp_get_vector (in, "answer", TRUE, n, FALSE, 0, &answer, &n_answer, error)
      || !skewgp_get_double (in, "probit_sd", FALSE, &probit_sd, error)
      || !read_options (in, &opt, error) || !check_size ("d", n, opt.n_basis, error))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (answer[i] != 0.0 && answer[i] != 1.0)
      return skewgp_input_error (error, "field 'answer': entry %" G_GSIZE_FORMAT
                                 " is %g, expected 0 or 1", i, answer[i]);
  if (!(probit_sd > 0))
    return skewgp_input_error (error, "field 'probit_sd' must be positive, got %g", probit_sd);

  GError *err = NULL;
  g_autoptr (SbLinkResult) res = sb_link_fit (d, answer, (guint) n, probit_sd, &opt, NULL, &err);
  if (res == NULL)
    return forward_error (err, error);
  print_link (res);
  return TRUE;
}

/* ---- Regression form ------------------------------------------------------------ */

typedef struct {
  sg_link_prior prior;
  sg_link_workspace *ws;
  const double *x, *y;
  gsize n;
} Regression;

static int
fit_regression (Regression *r, double noise_sd, sg_link_fit *fit)
{
  sg_link_likelihood lik = { SG_LINK_OBS_GAUSSIAN, SG_LINK_PROBIT, noise_sd };
  return sg_link_fit_laplace (&r->prior, &lik, r->x, r->y, r->n, NULL, NULL, r->ws, fit);
}

/* The noise sd with the largest Laplace evidence among 25 log-spaced
 * values in [1e-3, 1] x SY; fills FIT with that fit. */
static int
select_noise (Regression *r, double sy, double *noise_sd, sg_link_fit *fit)
{
  g_autofree sg_link_fit *trial = g_new0 (sg_link_fit, 1);
  int best_status = SG_ENUMERIC;
  double best = -INFINITY;
  for (int k = 0; k < 25; k++)
    {
      double s = sy * pow (10.0, -3.0 + 3.0 * k / 24.0);
      if (fit_regression (r, s, trial) != SG_OK || !(trial->log_evidence > best))
        continue;
      best = trial->log_evidence;
      *noise_sd = s;
      *fit = *trial;
      best_status = SG_OK;
    }
  return best_status;
}

/* The regression's output: the curve's summaries PT at the K points of
 * GRID, column by column. */
static void
print_regression (gsize n, double noise_sd, gboolean selected, double level,
                  const double *grid, const sg_link_point *pt, guint k, const sg_link_fit *fit)
{
  g_autofree double *cols = g_new (double, 5 * (gsize) k);
  for (guint i = 0; i < k; i++)
    {
      cols[i] = pt[i].mean;
      cols[k + i] = pt[i].sd;
      cols[2 * k + i] = pt[i].median;
      cols[3 * k + i] = pt[i].lower;
      cols[4 * k + i] = pt[i].upper;
    }
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "kind", "regression");
  sb_json_add_int (b, "n", (gint64) n);
  skewgp_add_double (b, "noise_sd", noise_sd);
  sb_json_add_bool (b, "noise_sd_selected", selected);
  skewgp_add_double (b, "level", level);
  skewgp_add_vector (b, "grid", grid, k);
  skewgp_add_vector (b, "mean", cols, k);
  skewgp_add_vector (b, "sd", cols + k, k);
  skewgp_add_vector (b, "median", cols + 2 * k, k);
  skewgp_add_vector (b, "lower", cols + 3 * k, k);
  skewgp_add_vector (b, "upper", cols + 4 * k, k);
  skewgp_add_double (b, "log_evidence", fit->log_evidence);
  sb_json_add_int (b, "newton_iterations", (gint64) fit->n_iter);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

static gboolean
run_regression_json (JsonObject *in, GError **error)
{
  static const char *const known[] = { "x", "y", "noise_sd", "n_basis", "grid", "draws",
                                       "level", "seed", NULL };
  g_autofree double *x = NULL, *y = NULL;
  gsize n = 0, ny = 0;
  double noise_sd = NAN;
  SbLinkOptions opt;
  sb_link_options_init (&opt);
  if (!skewgp_check_fields (in, "input", known, error)
      || !skewgp_get_vector (in, "x", TRUE, 0, FALSE, 0, &x, &n, error)
      || !skewgp_get_vector (in, "y", TRUE, n, FALSE, 0, &y, &ny, error)
      || !skewgp_get_double (in, "noise_sd", FALSE, &noise_sd, error)
      || !read_options (in, &opt, error) || !check_size ("x", n, opt.n_basis, error))
    return FALSE;
  gboolean selected = isnan (noise_sd);
  if (!selected && !(noise_sd > 0))
    return skewgp_input_error (error, "field 'noise_sd' must be positive, got %g", noise_sd);

  double xlo = x[0], xhi = x[0], ylo = y[0], yhi = y[0], ym = 0, yv = 0;
  for (gsize i = 0; i < n; i++)
    {
      xlo = fmin (xlo, x[i]), xhi = fmax (xhi, x[i]);
      ylo = fmin (ylo, y[i]), yhi = fmax (yhi, y[i]);
      ym += y[i] / n;
    }
  for (gsize i = 0; i < n; i++)
    yv += (y[i] - ym) * (y[i] - ym) / n;
  if (!(xhi > xlo))
    return skewgp_input_error (error, "field 'x': all values are equal; a function of x "
                               "needs at least two distinct inputs");
  double sy = sqrt (yv);
  if (selected && !(sy > 0))
    return skewgp_input_error (error, "field 'y': all values are equal; give noise_sd");

  Regression r = { .x = x, .y = y, .n = n };
  sg_link_prior_default (&r.prior);
  r.prior.n_basis = opt.n_basis;
  (void) sg_link_prior_fit_domain (&r.prior, x, n, NAN, 2.0);
  double scale = sy > 0 ? sy : 1.0;
  r.prior.slope = fmax ((yhi - ylo) / (xhi - xlo), 1e-3 * scale / (xhi - xlo));
  r.prior.mu = ym;
  r.prior.gamma = 1.0 / (scale * scale);
  r.ws = sg_link_workspace_new (n, r.prior.n_basis);
  if (r.ws == NULL)
    return skewgp_numeric_error (error, "allocating the link workspace", SG_ENOMEM);

  g_autofree sg_link_fit *fit = g_new0 (sg_link_fit, 1);
  int status = selected ? select_noise (&r, sy, &noise_sd, fit)
                        : fit_regression (&r, noise_sd, fit);
  sg_link_workspace_free (r.ws);
  if (status != SG_OK)
    return skewgp_numeric_error (error, "fitting the monotone regression", status);

  guint k = opt.n_grid;
  g_autofree double *grid = g_new (double, k);
  g_autofree sg_link_point *pt = g_new (sg_link_point, k);
  for (guint i = 0; i < k; i++)
    grid[i] = xlo + (xhi - xlo) * i / (k - 1);
  gsl_rng *rng = sg_rng_new (opt.seed, 0x11e);
  status = sg_link_predict (fit, grid, k, opt.n_draws, opt.level, rng, NULL, pt, NULL);
  sg_rng_free (rng);
  if (status != SG_OK)
    return skewgp_numeric_error (error, "the credible band", status);

  print_regression (n, noise_sd, selected, opt.level, grid, pt, k, fit);
  return TRUE;
}

static gboolean
run_link (JsonObject *in, GError **error)
{
  gboolean has_d = json_object_has_member (in, "d"), has_x = json_object_has_member (in, "x");
  if (has_d && has_x)
    return skewgp_input_error (error, "give either \"d\" and \"answer\" (link) or \"x\" and "
                               "\"y\" (regression), not both");
  if (has_x)
    return run_regression_json (in, error);
  if (has_d)
    return run_link_json (in, error);
  return skewgp_input_error (error, "missing field 'd' (link: \"d\", \"answer\") or 'x' "
                             "(regression: \"x\", \"y\")");
}

/* ---- --session -------------------------------------------------------------------- */

static int
run_session (const char *path, guint64 seed, gboolean has_seed)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr (SbSession) session = sb_session_load (file, &error);
  if (session == NULL)
    {
      fprintf (stderr, "skewgp link: %s\n", error->message);
      return SKEWGP_EXIT_INPUT;
    }
  SbLinkInput *input = sb_link_input_new (session);
  if (has_seed)
    input->options.seed = seed;
  SbLinkDuels duels = { 0 };
  g_autoptr (SbLinkResult) res = NULL;
  if (sb_link_duel_differences (input->job, &input->options, NULL, &duels, &error))
    res = sb_link_fit (duels.d, duels.answer, duels.n, duels.probit_sd, &input->options, NULL,
                       &error);
  sb_link_duels_clear (&duels);
  sb_link_input_free (input);
  if (res == NULL)
    {
      gboolean input_err = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA)
                           || g_error_matches (error, SB_ENGINE_ERROR, SG_EINVAL);
      fprintf (stderr, "skewgp link: %s: %s\n", path, error->message);
      return input_err ? SKEWGP_EXIT_INPUT : SKEWGP_EXIT_NUMERIC;
    }
  print_link (res);
  return SKEWGP_EXIT_OK;
}

static int
run_link_argv (int argc, char **argv)
{
  const char *session = NULL;
  guint64 seed = 0;
  gboolean has_seed = FALSE;

  if (argc >= 1 && strcmp (argv[0], "--session") == 0)
    {
      for (int i = 0; i < argc; i++)
        {
          if (strcmp (argv[i], "--session") == 0 && i + 1 < argc)
            session = argv[++i];
          else if (strcmp (argv[i], "--seed") == 0 && i + 1 < argc)
            {
              char *end = NULL;
              seed = g_ascii_strtoull (argv[++i], &end, 10);
              has_seed = TRUE;
              if (end == argv[i] || *end != '\0')
                {
                  fprintf (stderr, "skewgp link: --seed needs a non-negative integer, got '%s'\n",
                           argv[i]);
                  return SKEWGP_EXIT_INPUT;
                }
            }
          else
            {
              fprintf (stderr, "skewgp link: unexpected argument '%s' (see skewgp link --help)\n",
                       argv[i]);
              return SKEWGP_EXIT_INPUT;
            }
        }
      return run_session (session, seed, has_seed);
    }
  if (argc != 1)
    {
      fprintf (stderr, "skewgp link: expected FILE, '-' or --session SESSION.json\n");
      return SKEWGP_EXIT_INPUT;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) doc = skewgp_read_document (argv[0], &error);
  if (doc == NULL || !run_link (json_node_get_object (doc), &error))
    {
      fprintf (stderr, "skewgp link: %s\n", error->message);
      return g_error_matches (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC)
               ? SKEWGP_EXIT_NUMERIC : SKEWGP_EXIT_INPUT;
    }
  return SKEWGP_EXIT_OK;
}

const SkewgpCommand skewgp_command_link = {
  .name = "link",
  .summary = "monotone link diagnostic / monotone 1-D regression (ISGP, paper 003)",
  .help = link_help,
  .run = run_link,
  .run_argv = run_link_argv,
};
