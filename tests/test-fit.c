/* test-fit.c — hyperparameter fitting (engine/sg-fit.h).
 *
 * 1. The parameter spec: defaults, packing in logs, bounds, checks.
 * 2. The driver on synthetic objectives: optimum, multi-start, budgets,
 *    cancellation, progress, infeasible points, fatal errors.
 * 3. Fits against external optima:
 *    - GP regression (exact evidence) vs scikit-learn (fit-gpr*),
 *      through all three methods (their evidences coincide for numeric
 *      rows);
 *    - logistic Laplace classification vs scikit-learn (fit-gpc*);
 *    - the exact SkewGP evidence of preference data, GP prior and a
 *      SkewGP_1 prior with gamma free, vs R mvtnorm (fit-skewgp*).
 */
#include "sg-data.h"
#include "sg-fit.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Reference files ----------------------------------------------------- */

static char **
read_lines (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return g_strsplit (text, "\n", -1);
}

/* Value(s) of KEY in a key,value[,value...] meta file; returns the count. */
static size_t
meta_values (const char *name, const char *key, double *out, size_t max)
{
  g_auto (GStrv) lines = read_lines (name);
  for (char **line = lines; *line; line++)
    {
      g_auto (GStrv) f = g_strsplit (*line, ",", -1);
      if (f[0] == NULL || strcmp (f[0], key) != 0)
        continue;
      size_t n = 0;
      for (size_t j = 1; f[j] && n < max; j++)
        out[n++] = g_ascii_strtod (f[j], NULL);
      return n;
    }
  g_assert_not_reached ();
  return 0;
}

static double
meta_value (const char *name, const char *key)
{
  double v;
  meta_values (name, key, &v, 1);
  return v;
}

/* Rows of a CSV with a header line: NCOL numbers each, appended to OUT. */
static size_t
read_rows (const char *name, size_t ncol, GArray *out)
{
  g_auto (GStrv) lines = read_lines (name);
  size_t rows = 0;
  for (char **line = lines + 1; *line && **line; line++, rows++)
    {
      g_auto (GStrv) f = g_strsplit (*line, ",", -1);
      g_assert_cmpuint (g_strv_length (f), ==, ncol);
      for (size_t j = 0; j < ncol; j++)
        {
          double v = g_ascii_strtod (f[j], NULL);
          g_array_append_val (out, v);
        }
    }
  return rows;
}

/* H is zeroed or holds a kernel of its own, released first. */
static void
hyper_gp (sg_hyper *h, size_t dim, double variance, double lengthscale)
{
  sg_kernel_clear (&h->kernel);
  memset (h, 0, sizeof *h);
  g_assert_cmpint (sg_kernel_init (&h->kernel, SG_KERNEL_RBF, dim, variance,
                                   lengthscale), ==, SG_OK);
  h->noise.numeric_sd = 1;
  h->noise.probit_sd = 1;
}

/* ---- 1. Parameter spec --------------------------------------------------- */

static void
test_spec (void)
{
  sg_data data;
  sg_data_init (&data, 2);
  double x[3][2] = { { 0, 1 }, { 2, 3 }, { 1, -1 } };
  g_assert_cmpint (sg_data_add_numeric (&data, x[0], 1.0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_numeric (&data, x[1], 3.0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_preference (&data, x[2], x[0]), ==, SG_OK);

  sg_fit_spec spec = { 0 };
  g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_ALL, data.dim, &data), ==, SG_OK);
  /* ranges 2 and 4, numeric values 1 and 3: mean 2, sd sqrt 2 */
  g_assert_cmpfloat_with_epsilon (spec.lengthscale[0].lower, 0.02, 1e-15);
  g_assert_cmpfloat_with_epsilon (spec.lengthscale[1].upper, 40, 1e-13);
  g_assert_cmpfloat (spec.pseudo_point[1].lower, ==, -1);
  g_assert_cmpfloat (spec.pseudo_point[1].upper, ==, 3);
  g_assert_cmpfloat_with_epsilon (spec.variance.upper, 2e3, 1e-9);
  g_assert_cmpfloat_with_epsilon (spec.mean.lower, 2 - 3 * sqrt (2), 1e-14);
  g_assert_cmpfloat (spec.weak_scale.lower, ==, 1);
  g_assert_cmpfloat (spec.strong_scale.upper, ==, 1);
  g_assert_cmpint (sg_fit_spec_default (&spec, 0x400, data.dim, &data), ==, SG_EINVAL);

  /* A SkewGP_1 hyperparameter set: every group free. */
  double u[2] = { 0.5, 0.5 }, phase = 1, gamma = 0.25;
  sg_hyper h = { 0 };
  hyper_gp (&h, 2, 2.0, 0.7);
  h.kernel.lengthscales[1] = 1.3;
  h.noise.numeric_sd = 0.1;
  h.mean = 0.5;
  h.s = 1;
  h.pseudo_points = u;
  h.phases = &phase;
  h.gamma = &gamma;
  h.noise.tie_margin = 0.5;
  h.noise.side_bias = -0.2;
  h.noise.weak_scale = 2;
  h.noise.strong_scale = 0.25;
  g_assert_cmpint (sg_fit_spec_check (&spec, &h), ==, SG_OK);
  g_assert_cmpuint (sg_fit_spec_n_free (&spec, &h), ==,
                    2 + 1 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 2);

  double xv[13], lo[13], hi[13];
  sg_fit_spec_pack (&spec, &h, xv);
  sg_fit_spec_bounds (&spec, &h, lo, hi);
  /* order: log l1, log l2, log v, log numeric_sd, log probit_sd, mean,
   * gamma, u1, u2, log tie_margin, side_bias, log weak, log strong; exact
   * logs of the stored values */
  const double expect[13] = { log (0.7), log (1.3), log (2.0), log (0.1), 0,
                              0.5, 0.25, 0.5, 0.5, log (0.5), -0.2, log (2.0),
                              log (0.25) };
  for (size_t i = 0; i < 13; i++)
    {
      g_assert_cmpfloat (xv[i], ==, expect[i]);
      g_assert_cmpfloat (lo[i], <, hi[i]);
    }
  g_assert_cmpfloat (lo[0], ==, log (0.02));
  g_assert_cmpfloat (hi[8], ==, 3);
  g_assert_cmpfloat (lo[9], ==, log (1e-3));
  g_assert_cmpfloat (hi[10], ==, 3);

  /* Unpack writes back exactly what pack read (exp(log x) to 1 ulp). */
  sg_hyper h2 = h;
  double u2[2] = { 0, 0 }, gamma2 = 0;
  h2.pseudo_points = u2;
  h2.gamma = &gamma2;
  h2.kernel.variance = 99;
  sg_fit_spec_unpack (&spec, xv, &h2);
  g_assert_cmpfloat_with_epsilon (h2.kernel.variance, 2.0, 4e-16);
  g_assert_cmpfloat_with_epsilon (h2.kernel.lengthscales[1], 1.3, 4e-16);
  g_assert_cmpfloat_with_epsilon (h2.noise.numeric_sd, 0.1, 1e-16);
  g_assert_cmpfloat_with_epsilon (h2.noise.strong_scale, 0.25, 1e-16);
  g_assert_cmpfloat (h2.noise.side_bias, ==, -0.2);
  g_assert_cmpfloat (gamma2, ==, 0.25);
  g_assert_cmpfloat (u2[1], ==, 0.5);

  /* Out-of-box values are clamped into the box by pack. */
  h2.kernel.lengthscales[0] = 1e-6;
  h2.gamma[0] = 10;
  sg_fit_spec_pack (&spec, &h2, xv);
  g_assert_cmpfloat (xv[0], ==, lo[0]);
  g_assert_cmpfloat (xv[6], ==, hi[6]);

  /* Only the free groups are packed. */
  spec.free = SG_FIT_VARIANCE | SG_FIT_GAMMA;
  g_assert_cmpuint (sg_fit_spec_n_free (&spec, &h), ==, 2);
  sg_fit_spec_pack (&spec, &h, xv);
  g_assert_cmpfloat (xv[0], ==, log (2.0));
  g_assert_cmpfloat (xv[1], ==, 0.25);

  /* Bad specs. */
  spec.variance.lower = 0;
  g_assert_cmpint (sg_fit_spec_check (&spec, &h), ==, SG_EINVAL);
  spec.variance.lower = 1;
  spec.variance.upper = 1;
  g_assert_cmpint (sg_fit_spec_check (&spec, &h), ==, SG_EINVAL);
  spec.variance.upper = 10;
  g_assert_cmpint (sg_fit_spec_check (&spec, &h), ==, SG_OK);
  h.s = 0;
  g_assert_cmpint (sg_fit_spec_check (&spec, &h), ==, SG_EINVAL);
  spec.free = SG_FIT_VARIANCE;
  g_assert_cmpint (sg_fit_spec_check (&spec, &h), ==, SG_OK);

  /* No data: unit scales. */
  sg_fit_spec_clear (&spec);
  g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_LENGTHSCALES, 1, NULL), ==, SG_OK);
  g_assert_cmpfloat (spec.lengthscale[0].upper, ==, 10);
  sg_data_clear (&data);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

/* ---- 2. The driver on synthetic objectives ------------------------------- */

typedef struct {
  size_t calls;
  double centre[3];       /* maximiser of the quadratic bowl (natural units) */
  int bimodal;            /* add a second, higher bowl                        */
  int infeasible_above;   /* infeasible where log l > 0.5                     */
  int fatal_after;        /* return SG_ENOMEM from this call on (0 = never)   */
  int sleep_us;
  size_t calls_after_cancel;
  int cancelled;
} synth;

/* A smooth function of (log l, log v, mean) with its maximum 1 at the
 * centre; optionally a second bowl, higher (value 2), at l = 4, v = 0.25. */
static sg_status
synth_evidence (const sg_hyper *h, void *user_data, double *le, double *err)
{
  synth *s = user_data;
  s->calls++;
  if (s->cancelled)
    s->calls_after_cancel++;
  if (s->sleep_us)
    g_usleep (s->sleep_us);
  if (s->fatal_after && s->calls >= (size_t) s->fatal_after)
    return SG_ENOMEM;
  double a = log (h->kernel.lengthscales[0]), b = log (h->kernel.variance);
  if (s->infeasible_above && a > 0.5)
    return SG_ENOTPD;
  double da = a - log (s->centre[0]), db = b - log (s->centre[1]);
  double dc = h->mean - s->centre[2];
  double v = 1 - (da * da + 0.5 * da * db + db * db + dc * dc);
  if (s->bimodal)
    {
      double ea = a - log (4.0), eb = b - log (0.25);
      double v2 = 2 - (ea * ea + eb * eb);
      v = v2 > v ? v2 : v;
    }
  *le = v;
  if (err)
    *err = 0.125;
  return SG_OK;
}

/* SPEC is zeroed or holds storage of its own, released first. */
static void
synth_spec (sg_fit_spec *spec)
{
  sg_fit_spec_clear (spec);
  g_assert_cmpint (sg_fit_spec_default (spec, SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE
                                        | SG_FIT_MEAN, 1, NULL), ==, SG_OK);
  spec->lengthscale[0] = (sg_fit_range) { 0.05, 20 };
  spec->variance = (sg_fit_range) { 0.01, 100 };
  spec->mean = (sg_fit_range) { -2, 2 };
}

static void
test_synthetic_optimum (void)
{
  sg_fit_spec spec = { 0 };
  synth_spec (&spec);
  synth s = { .centre = { 0.3, 2.0, -0.4 } };
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, 1.0, 1.0);
  h.noise.probit_sd = 0.7;   /* fixed: must come back unchanged */
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 1;
  opt.xtol_abs = 1e-7;
  opt.ftol_abs = 0;
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, NULL, NULL, &h, &res), ==, SG_OK);
  /* BOBYQA is exact on a quadratic up to its xtol: 1e-7 in the
   * coordinates, hence ~1e-6 relative in l and v after the exp. */
  g_assert_cmpfloat_with_epsilon (h.kernel.lengthscales[0], 0.3, 1e-5);
  g_assert_cmpfloat_with_epsilon (h.kernel.variance, 2.0, 1e-5);
  g_assert_cmpfloat_with_epsilon (h.mean, -0.4, 1e-5);
  g_assert_cmpfloat (h.noise.probit_sd, ==, 0.7);
  g_assert_cmpfloat_with_epsilon (res.log_evidence, 1.0, 1e-10);
  g_assert_cmpfloat (res.error, ==, 0.125);
  g_assert_cmpfloat (res.start_log_evidence, <, res.log_evidence);
  g_assert_cmpuint (res.n_evals, ==, s.calls);   /* every call is counted */
  g_assert_cmpuint (res.n_starts, ==, 1);
  g_assert_cmpint (res.stop, ==, SG_FIT_CONVERGED);
  g_test_message ("quadratic bowl: %zu evaluations", res.n_evals);

  /* No free coordinate: one evaluation at H. */
  spec.free = 0;
  s.calls = 0;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, NULL, NULL, &h, &res), ==, SG_OK);
  g_assert_cmpuint (s.calls, ==, 1);
  g_assert_cmpfloat (res.log_evidence, ==, res.start_log_evidence);

  /* Bad arguments. */
  synth_spec (&spec);
  g_assert_cmpint (sg_fit (&spec, NULL, &s, &opt, NULL, NULL, &h, &res), ==, SG_EINVAL);
  opt.n_starts = 3;   /* several starts need an RNG */
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, NULL, NULL, &h, &res), ==, SG_EINVAL);
  opt.n_starts = 0;
  gsl_rng *rng = sg_rng_new (1, 0);
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_EINVAL);
  sg_rng_free (rng);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

/* Started in the lower bowl, one run stays there; the hypercube starts
 * find the higher one, and the same seed gives the same fit. */
static void
test_multistart (void)
{
  sg_fit_spec spec = { 0 };
  synth_spec (&spec);
  spec.free = SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE;
  synth s = { .centre = { 0.3, 2.0, 0 }, .bimodal = 1 };
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 1;
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, 2.0, 0.3);
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, NULL, NULL, &h, &res), ==, SG_OK);
  g_assert_cmpfloat (fabs (res.log_evidence - 1), <, 1e-4);

  opt.n_starts = 8;
  double found[2];
  for (int rep = 0; rep < 2; rep++)
    {
      gsl_rng *rng = sg_rng_new (42, 0);
      hyper_gp (&h, 1, 2.0, 0.3);
      g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpfloat (fabs (res.log_evidence - 2), <, 1e-4);
      g_assert_cmpfloat (fabs (log (h.kernel.lengthscales[0] / 4)), <, 1e-2);
      g_assert_cmpuint (res.best_start, >, 0);
      g_assert_cmpuint (res.n_starts, ==, 8);
      found[rep] = h.kernel.lengthscales[0];
    }
  g_assert_cmpfloat (found[0], ==, found[1]);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

static void
test_budgets (void)
{
  sg_fit_spec spec = { 0 };
  synth_spec (&spec);
  synth s = { .centre = { 0.3, 2.0, -0.4 } };
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 3;
  opt.max_evals = 15;
  opt.xtol_abs = 1e-12;
  gsl_rng *rng = sg_rng_new (5, 0);
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, 1.0, 1.0);
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_OK);
  g_assert_cmpuint (s.calls, <=, 15);
  g_assert_cmpuint (res.n_evals, ==, s.calls);
  g_assert_cmpint (res.stop, ==, SG_FIT_MAX_EVALS);
  g_assert_cmpfloat (res.log_evidence, >=, res.start_log_evidence);

  /* 5 ms per evaluation, 60 ms budget: stops after about 12 evaluations.
   * The bound allows one evaluation in flight plus scheduling slack on a
   * loaded machine. */
  s.calls = 0;
  s.sleep_us = 5000;
  opt.max_evals = 100000;
  opt.max_seconds = 0.06;
  hyper_gp (&h, 1, 1.0, 1.0);
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_OK);
  g_assert_cmpint (res.stop, ==, SG_FIT_MAX_SECONDS);
  g_assert_cmpfloat (res.seconds, <, 0.06 + 0.5);
  g_assert_cmpuint (s.calls, <=, 13);
  g_assert_cmpuint (s.calls, >=, 1);
  sg_rng_free (rng);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

typedef struct {
  double last;
  int calls, cancel_at, monotone;
  synth *s;
} progress_log;

static int
progress_cb (double fraction, void *user_data)
{
  progress_log *p = user_data;
  if (fraction < p->last || fraction < 0 || fraction > 1)
    p->monotone = 0;
  p->last = fraction;
  p->calls++;
  if (p->cancel_at && p->calls >= p->cancel_at)
    {
      p->s->cancelled = 1;
      return 1;
    }
  return 0;
}

static void
test_progress_cancel (void)
{
  sg_fit_spec spec = { 0 };
  synth_spec (&spec);
  synth s = { .centre = { 0.3, 2.0, -0.4 } };
  progress_log log = { .monotone = 1, .s = &s };
  sg_progress progress = { progress_cb, &log };
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 2;
  opt.max_evals = 60;
  gsl_rng *rng = sg_rng_new (5, 0);
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, 1.0, 1.0);
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, &progress, &h, &res), ==, SG_OK);
  g_assert_true (log.monotone);
  g_assert_cmpint (log.calls, >=, (int) res.n_evals);
  g_assert_cmpfloat (log.last, <=, 1);

  /* Cancel at the 10th poll: SG_ECANCELLED at once, H and RES untouched. */
  s.calls = 0;
  log = (progress_log) { .monotone = 1, .cancel_at = 10, .s = &s };
  hyper_gp (&h, 1, 1.0, 1.0);
  sg_hyper before = h;
  double before_l = h.kernel.lengthscales[0];
  sg_fit_result res_before = res;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, &progress, &h, &res), ==, SG_ECANCELLED);
  g_assert_cmpuint (s.calls_after_cancel, ==, 0);
  g_assert_cmpuint (s.calls, ==, 9);
  g_assert_cmpfloat (h.kernel.lengthscales[0], ==, before_l);
  g_assert_cmpfloat (h.kernel.variance, ==, before.kernel.variance);
  g_assert_cmpfloat (h.mean, ==, before.mean);
  /* field by field: the struct has padding that assignment need not copy */
  g_assert_cmpfloat (res.log_evidence, ==, res_before.log_evidence);
  g_assert_cmpfloat (res.seconds, ==, res_before.seconds);
  g_assert_cmpuint (res.n_evals, ==, res_before.n_evals);
  g_assert_cmpuint (res.n_starts, ==, res_before.n_starts);
  sg_rng_free (rng);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

static void
test_failures (void)
{
  sg_fit_spec spec = { 0 };
  synth_spec (&spec);
  spec.free = SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE;
  /* The optimum l = 3 lies in the infeasible region log l > 0.5: the fit
   * ends on the boundary of the feasible set, with failures counted. */
  synth s = { .centre = { 3.0, 2.0, 0 }, .infeasible_above = 1 };
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 3;
  gsl_rng *rng = sg_rng_new (9, 0);
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, 1.0, 1.0);
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_OK);
  g_assert_cmpuint (res.n_failed, >, 0);
  g_assert_cmpfloat (log (h.kernel.lengthscales[0]), <=, 0.5);
  g_assert_cmpfloat (log (h.kernel.lengthscales[0]), >, 0.3);

  /* Infeasible everywhere: SG_ENUMERIC, H untouched. */
  spec.lengthscale[0] = (sg_fit_range) { 2, 20 };
  hyper_gp (&h, 1, 1.0, 2.5);
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_ENUMERIC);
  g_assert_cmpfloat (h.kernel.lengthscales[0], ==, 2.5);

  /* A fatal status stops the fit and is returned. */
  synth_spec (&spec);
  s = (synth) { .centre = { 0.3, 2.0, 0 }, .fatal_after = 7 };
  g_assert_cmpint (sg_fit (&spec, synth_evidence, &s, &opt, rng, NULL, &h, &res), ==, SG_ENOMEM);
  g_assert_cmpuint (s.calls, ==, 7);
  sg_rng_free (rng);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

/* ---- 3. Against external optima ------------------------------------------ */

/* GP regression: the exact evidence is log N(y; 0, K + noise^2 I), which
 * SkewGP (s = 0, numeric rows only: Phi_m with m = 0), Laplace and EP
 * (numeric sites are exact) all compute. scikit-learn's optimum comes from
 * L-BFGS-B with analytic gradients and 20 restarts. */
static void
test_gpr_sklearn (void)
{
  const char *meta = "fit-gpr-meta.csv";
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (double));
  size_t n = read_rows ("fit-gpr.csv", 2, rows);
  sg_data data;
  sg_data_init (&data, 1);
  for (size_t i = 0; i < n; i++)
    {
      double *r = &g_array_index (rows, double, 2 * i);
      g_assert_cmpint (sg_data_add_numeric (&data, r, r[1]), ==, SG_OK);
    }
  const double ref_lml = meta_value (meta, "log_marginal_likelihood");
  const double ref_l = meta_value (meta, "lengthscales");
  const double ref_v = meta_value (meta, "variance");
  const double ref_sd = meta_value (meta, "noise_sd");

  const sg_fit_method methods[] = { SG_FIT_METHOD_SKEWGP, SG_FIT_METHOD_LAPLACE,
                                    SG_FIT_METHOD_EP };
  for (size_t k = 0; k < G_N_ELEMENTS (methods); k++)
    {
      sg_fit_spec spec = { 0 };
      g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE
                                            | SG_FIT_NUMERIC_SD, data.dim, &data), ==, SG_OK);
      sg_evidence_ctx ctx;
      sg_evidence_ctx_init (&ctx, methods[k], &data);
      sg_fit_options opt;
      sg_fit_options_default (&opt);
      opt.n_starts = 3;
      opt.xtol_abs = 1e-7;
      opt.ftol_abs = 0;
      opt.max_evals = 2000;
      gsl_rng *rng = sg_rng_new (3, k);
      sg_hyper h = { 0 };
      hyper_gp (&h, 1, 1.0, 1.0);
      h.noise.numeric_sd = 0.5;
      sg_fit_result res;
      g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, &h, &res), ==, SG_OK);
      sg_rng_free (rng);
      g_test_message ("GPR method %d: lml %.10f (sklearn %.10f), l %.6f v %.6f sd %.6f, %zu evals",
                      (int) methods[k], res.log_evidence, ref_lml,
                      h.kernel.lengthscales[0], h.kernel.variance,
                      h.noise.numeric_sd, res.n_evals);
      /* Both optimisers converge to the same maximum of the same smooth
       * function: the values agree to the optimisers' tolerances (~1e-9
       * in the value, which is flat at the maximum), the maximiser to
       * ~1e-3 relative (the sqrt of the value tolerance, conditioning
       * included). */
      g_assert_cmpfloat (res.error, ==, 0);
      g_assert_cmpfloat (fabs (res.log_evidence - ref_lml), <, 1e-6);
      g_assert_cmpfloat (fabs (h.kernel.lengthscales[0] / ref_l - 1), <, 1e-3);
      g_assert_cmpfloat (fabs (h.kernel.variance / ref_v - 1), <, 1e-3);
      g_assert_cmpfloat (fabs (h.noise.numeric_sd / ref_sd - 1), <, 1e-3);
      sg_fit_spec_clear (&spec);
      sg_kernel_clear (&h.kernel);
    }
  sg_data_clear (&data);
}

/* Logistic Laplace: sklearn's GaussianProcessClassifier maximises the same
 * Laplace evidence (R&W eq. 3.32) over (v, l1, l2). */
static void
test_gpc_laplace_sklearn (void)
{
  const char *meta = "fit-gpc-meta.csv";
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (double));
  size_t n = read_rows ("fit-gpc.csv", 3, rows);
  sg_data data;
  sg_data_init (&data, 2);
  for (size_t i = 0; i < n; i++)
    {
      double *r = &g_array_index (rows, double, 3 * i);
      g_assert_cmpint (sg_data_add_binary (&data, r, (int) r[2]), ==, SG_OK);
    }
  const double ref_lml = meta_value (meta, "log_marginal_likelihood");
  double ref_l[2];
  g_assert_cmpuint (meta_values (meta, "lengthscales", ref_l, 2), ==, 2);
  const double ref_v = meta_value (meta, "variance");

  sg_fit_spec spec = { 0 };
  g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE, data.dim,
                                        &data), ==, SG_OK);
  spec.variance = (sg_fit_range) { 1e-2, 1e3 };   /* sklearn's bounds */
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_LAPLACE, &data);
  ctx.link = SG_LINK_LOGISTIC;
  sg_laplace_warm warm = { 0 };
  ctx.laplace_warm = &warm;
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 3;
  opt.xtol_abs = 1e-7;
  opt.ftol_abs = 0;
  opt.max_evals = 2000;
  gsl_rng *rng = sg_rng_new (4, 0);
  sg_hyper h = { 0 };
  hyper_gp (&h, 2, 1.0, 1.0);
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, &h, &res), ==, SG_OK);
  sg_rng_free (rng);
  sg_laplace_warm_clear (&warm);
  g_test_message ("GPC Laplace: lml %.10f (sklearn %.10f), l %.5f %.5f v %.5f, %zu evals",
                  res.log_evidence, ref_lml, h.kernel.lengthscales[0],
                  h.kernel.lengthscales[1], h.kernel.variance, res.n_evals);
  /* sklearn's inner Newton stops when the objective changes by < 1e-10 and
   * its L-BFGS-B at a projected gradient of 1e-5: its optimum value is
   * good to ~1e-7; the maximiser, in a flat direction (large v), to
   * ~1e-2 relative. */
  g_assert_cmpfloat (fabs (res.log_evidence - ref_lml), <, 1e-5);
  g_assert_cmpfloat (fabs (h.kernel.lengthscales[0] / ref_l[0] - 1), <, 2e-2);
  g_assert_cmpfloat (fabs (h.kernel.lengthscales[1] / ref_l[1] - 1), <, 2e-2);
  g_assert_cmpfloat (fabs (h.kernel.variance / ref_v - 1), <, 5e-2);

  /* EP (probit) on the same data through the same machinery: the fit
   * improves on the start and ends inside the box. */
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_EP, &data);
  opt.xtol_abs = 1e-4;
  rng = sg_rng_new (4, 1);
  hyper_gp (&h, 2, 1.0, 1.0);
  g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, &h, &res), ==, SG_OK);
  sg_rng_free (rng);
  g_test_message ("GPC EP: lml %.6f from %.6f, l %.4f %.4f v %.4f", res.log_evidence,
                  res.start_log_evidence, h.kernel.lengthscales[0],
                  h.kernel.lengthscales[1], h.kernel.variance);
  g_assert_cmpfloat (res.log_evidence, >, res.start_log_evidence + 1);
  g_assert_cmpfloat (h.kernel.variance, <, 1e3);

  /* Laplace / EP have no SkewGP prior. */
  double u = 0, phase = 1, gamma = 0;
  h.s = 1;
  h.pseudo_points = &u;
  h.phases = &phase;
  h.gamma = &gamma;
  double le;
  g_assert_cmpint (sg_evidence_eval (&h, &ctx, &le, NULL), ==, SG_EINVAL);
  sg_data_clear (&data);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

static void
load_duels (sg_data *data)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (double));
  size_t n = read_rows ("fit-skewgp-duels.csv", 2, rows);
  sg_data_init (data, 1);
  for (size_t i = 0; i < n; i++)
    {
      double *r = &g_array_index (rows, double, 2 * i);
      g_assert_cmpint (sg_data_add_preference (data, &r[0], &r[1]), ==, SG_OK);
    }
}

/* The log evidence at H with a large fresh point set, and its error. */
static double
reevaluate (const sg_hyper *h, const sg_data *data, double *error)
{
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, data);
  ctx.mvn.n_points = 200000;
  ctx.mvn.seed = 12345;
  double le;
  g_assert_cmpint (sg_evidence_eval (h, &ctx, &le, error), ==, SG_OK);
  return le;
}

/* GP prior, 7 noisy duels: the exact evidence is log P(t > 0) in 7
 * dimensions; R found its maximum over (log l, log v) with mvtnorm. */
static void
test_skewgp_gp_prior (void)
{
  const char *meta = "fit-skewgp-meta.csv";
  sg_data data;
  load_duels (&data);
  sg_fit_spec spec = { 0 };
  g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE, data.dim,
                                        &data), ==, SG_OK);
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, &data);
  ctx.mvn.n_points = 20000;
  ctx.workspace = sg_mvn_workspace_new (16);
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 3;
  sg_fit_result res[2];
  sg_hyper h[2] = { { .s = 0 }, { .s = 0 } };
  for (int rep = 0; rep < 2; rep++)
    {
      gsl_rng *rng = sg_rng_new (8, 0);
      hyper_gp (&h[rep], 1, 1.0, 0.5);
      g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, &h[rep],
                               &res[rep]), ==, SG_OK);
      sg_rng_free (rng);
    }
  /* Common random numbers: the same fit twice, bit for bit. */
  g_assert_cmpfloat (res[0].log_evidence, ==, res[1].log_evidence);
  g_assert_cmpfloat (h[0].kernel.lengthscales[0], ==, h[1].kernel.lengthscales[0]);
  g_assert_cmpfloat (h[0].kernel.variance, ==, h[1].kernel.variance);
  g_assert_cmpuint (res[0].n_evals, ==, res[1].n_evals);

  double err;
  double le = reevaluate (&h[0], &data, &err);
  double ref = meta_value (meta, "gp_log_evidence");
  g_test_message ("GP prior: fitted l %.4f v %.4f, lml %.6f (CRN %.6f, error %.1e), "
                  "R: l %.4f v %.4f lml %.6f", h[0].kernel.lengthscales[0],
                  h[0].kernel.variance, le, res[0].log_evidence, err,
                  meta_value (meta, "gp_lengthscale"), meta_value (meta, "gp_variance"), ref);
  /* Our maximum may lie slightly below R's (optimiser tolerance 1e-4 on
   * a flat top, plus the CRN error of the 20000-point objective, ~1e-3)
   * and never above it by more than the re-evaluation error. */
  g_assert_cmpfloat (le, <=, ref + err + 1e-6);
  g_assert_cmpfloat (le, >=, ref - err - 5e-3);
  g_assert_cmpfloat (fabs (log (h[0].kernel.lengthscales[0]
                                / meta_value (meta, "gp_lengthscale"))), <, 0.1);
  sg_mvn_workspace_free (ctx.workspace);
  sg_data_clear (&data);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h[0].kernel);
  sg_kernel_clear (&h[1].kernel);
}

/* SkewGP_1 prior with a fixed kernel and pseudo-point: gamma free. */
static void
test_skewgp_gamma (void)
{
  const char *meta = "fit-skewgp-meta.csv";
  sg_data data;
  load_duels (&data);
  double u = meta_value (meta, "skew_pseudo_point");
  double phase = meta_value (meta, "skew_phase"), gamma = 0;
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, meta_value (meta, "skew_variance"),
            meta_value (meta, "skew_lengthscale"));
  h.s = 1;
  h.pseudo_points = &u;
  h.phases = &phase;
  h.gamma = &gamma;
  sg_fit_spec spec = { 0 };
  g_assert_cmpint (sg_fit_spec_default (&spec, SG_FIT_GAMMA, data.dim, &data), ==, SG_OK);
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, &data);
  ctx.mvn.n_points = 20000;
  sg_fit_options opt;
  sg_fit_options_default (&opt);
  opt.n_starts = 1;
  opt.xtol_abs = 1e-5;
  sg_fit_result res;
  g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, NULL, NULL, &h, &res), ==, SG_OK);
  double err;
  double le = reevaluate (&h, &data, &err);
  double ref = meta_value (meta, "skew_log_evidence");
  double ref_gamma = meta_value (meta, "skew_gamma");
  g_test_message ("SkewGP_1: gamma %.5f (R %.5f), lml %.6f (R %.6f, error %.1e)",
                  gamma, ref_gamma, le, ref, err);
  g_assert_cmpfloat (fabs (le - ref), <, err + 2e-3);
  g_assert_cmpfloat (fabs (gamma - ref_gamma), <, 0.1);
  g_assert_cmpfloat (u, ==, meta_value (meta, "skew_pseudo_point"));   /* fixed */

  /* Gamma and the pseudo-point together: stays in the box, improves. */
  spec.free = SG_FIT_GAMMA | SG_FIT_PSEUDO_POINTS;
  gamma = 0;
  gsl_rng *rng = sg_rng_new (2, 0);
  opt.n_starts = 2;
  g_assert_cmpint (sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, NULL, &h, &res), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpfloat (res.log_evidence, >=, res.start_log_evidence);
  g_assert_cmpfloat (u, >=, spec.pseudo_point[0].lower);
  g_assert_cmpfloat (u, <=, spec.pseudo_point[0].upper);
  sg_data_clear (&data);
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
}

/* Second differences of the SkewGP objective of one context along log l
 * (N points, step 0.002): the largest one. */
static double
max_second_difference (sg_evidence_ctx *ctx, const sg_hyper *h0)
{
  enum { N = 31 };
  double f[N], worst = 0;
  for (int i = 0; i < N; i++)
    {
      sg_hyper h = *h0;
      g_assert_cmpint (sg_kernel_copy (&h.kernel, &h0->kernel), ==, SG_OK);
      h.kernel.lengthscales[0] *= exp ((i - N / 2) * 0.002);
      g_assert_cmpint (sg_evidence_eval (&h, ctx, &f[i], NULL), ==, SG_OK);
      sg_kernel_clear (&h.kernel);
    }
  for (int i = 1; i < N - 1; i++)
    worst = fmax (worst, fabs (f[i - 1] - 2 * f[i] + f[i + 1]));
  return worst;
}

/* The fitting objective is smooth: with the variable order kept from the
 * first evaluation the second differences are ~h^2 |f''| (~1e-4 here);
 * with the order chosen per call they jump by about the QMC error. */
static void
test_skewgp_objective_smooth (void)
{
  gsl_rng *rng = sg_rng_new (2024, 0);
  sg_data data;
  sg_data_init (&data, 1);
  for (int k = 0; k < 40; k++)
    {
      double a = -2.6 + 5.2 * gsl_rng_uniform (rng), b = -2.6 + 5.2 * gsl_rng_uniform (rng);
      double ga = cos (5 * a) + exp (-a * a / 2), gb = cos (5 * b) + exp (-b * b / 2);
      if (ga - gb + 0.1 * sqrt (2) * sg_rng_gaussian (rng) >= 0)
        sg_data_add_preference (&data, &a, &b);
      else
        sg_data_add_preference (&data, &b, &a);
    }
  sg_rng_free (rng);
  sg_hyper h = { 0 };
  hyper_gp (&h, 1, 50.0, 0.4);
  sg_mvn_workspace *w = sg_mvn_workspace_new (40);
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, &data);
  ctx.workspace = w;
  ctx.mvn.n_points = 1000;
  g_assert_cmpint (ctx.mvn.keep_order, ==, 1);
  double kept = max_second_difference (&ctx, &h);
  sg_evidence_ctx_init (&ctx, SG_FIT_METHOD_SKEWGP, &data);
  ctx.workspace = w;
  ctx.mvn.n_points = 1000;
  ctx.mvn.keep_order = 0;
  double per_call = max_second_difference (&ctx, &h);
  g_test_message ("largest second difference: %.2e kept, %.2e per call", kept, per_call);
  g_assert_cmpfloat (kept, <, 1e-3);
  g_assert_cmpfloat (per_call, >, 1e-3);
  sg_mvn_workspace_free (w);
  sg_data_clear (&data);
  sg_kernel_clear (&h.kernel);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fit/spec", test_spec);
  g_test_add_func ("/fit/synthetic-optimum", test_synthetic_optimum);
  g_test_add_func ("/fit/multistart", test_multistart);
  g_test_add_func ("/fit/budgets", test_budgets);
  g_test_add_func ("/fit/progress-cancel", test_progress_cancel);
  g_test_add_func ("/fit/failures", test_failures);
  g_test_add_func ("/fit/gpr-sklearn", test_gpr_sklearn);
  g_test_add_func ("/fit/gpc-laplace-sklearn", test_gpc_laplace_sklearn);
  g_test_add_func ("/fit/skewgp-gp-prior", test_skewgp_gp_prior);
  g_test_add_func ("/fit/skewgp-gamma", test_skewgp_gamma);
  g_test_add_func ("/fit/skewgp-objective-smooth", test_skewgp_objective_smooth);
  return g_test_run ();
}
