/* sb-render-views.c — scenes for every SkewBench plot (sb-render-views.h). */
#include "config.h"

#include "sb-render-views.h"

#include <math.h>
#include <string.h>

void
sb_plot_options_init (SbPlotOptions *o, SbPlotKind kind)
{
  memset (o, 0, sizeof *o);
  o->kind = kind;
  o->field = SB_FIELD_MEAN;
  o->compare[SB_POSTERIOR_EXACT] = TRUE;
  o->show_samples = TRUE;
  o->show_truth = FALSE;
  o->show_median = TRUE;
  o->show_observations = TRUE;
  o->level = 0.95;
}

const char *
sb_plot_kind_title (SbPlotKind kind)
{
  switch (kind)
    {
    case SB_PLOT_POSTERIOR: return "Posterior";
    case SB_PLOT_SKEWNESS: return "Skewness statistic SS(x)";
    case SB_PLOT_ACQUISITION: return "Acquisition";
    case SB_PLOT_VALIDITY: return "Probability of a valid setting";
    case SB_PLOT_HEATMAP: return "2-D slice";
    case SB_PLOT_DENSITY: return "Predictive density";
    case SB_PLOT_CONVERGENCE: return "Convergence";
    case SB_PLOT_HYPERPARAMETERS: return "Hyperparameters";
    default: return "";
    }
}

gboolean
sb_plot_supports_compare (SbPlotKind kind, SbField field)
{
  switch (kind)
    {
    case SB_PLOT_POSTERIOR:
    case SB_PLOT_SKEWNESS:   /* the Gaussians' SS(x) = 0, drawn as a rule */
    case SB_PLOT_DENSITY:
      return TRUE;
    case SB_PLOT_HEATMAP:
      return field == SB_FIELD_MEAN || field == SB_FIELD_SD;
    default:
      return FALSE;
    }
}

gboolean
sb_plot_has_data (const SbPlotOptions *o, const SbPlotSnapshot *s,
                  const SbDensityData *d)
{
  const double *x;
  switch (o->kind)
    {
    case SB_PLOT_POSTERIOR:
    case SB_PLOT_SKEWNESS:
      return s && sb_plot_snapshot_get_curve_grid (s, NULL, &x) > 1
             && sb_plot_snapshot_get_summaries (s, SB_POSTERIOR_EXACT);
    case SB_PLOT_ACQUISITION:
      return s && sb_plot_snapshot_get_curve_grid (s, NULL, &x) > 1
             && sb_plot_snapshot_get_acquisition (s, NULL, NULL);
    case SB_PLOT_VALIDITY:
      return s && sb_plot_snapshot_get_curve_grid (s, NULL, &x) > 1
             && sb_plot_snapshot_get_validity (s, NULL);
    case SB_PLOT_HEATMAP:
      return s && sb_plot_snapshot_get_field (s, o->field, SB_POSTERIOR_EXACT);
    case SB_PLOT_DENSITY:
      return d && sb_density_data_get_grid (d, NULL) > 1;
    case SB_PLOT_CONVERGENCE:
      return s && sb_plot_snapshot_get_convergence (s, NULL, NULL) > 0;
    case SB_PLOT_HYPERPARAMETERS:
      return s && sb_plot_snapshot_get_hyper_history (s, NULL, NULL, NULL) > 0;
    default:
      return FALSE;
    }
}

/* ---- Helpers ------------------------------------------------------------------ */

/* Field of the summaries as an array. */
typedef enum { F_MEAN, F_MEDIAN, F_HPD_LO, F_HPD_HI, F_LO, F_HI, F_SKEW } SumField;

static double *
summary_column (const sg_point_summary *s, gsize n, SumField which)
{
  double *v = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    switch (which)
      {
      case F_MEAN: v[i] = s[i].mean; break;
      case F_MEDIAN: v[i] = s[i].median; break;
      case F_HPD_LO: v[i] = s[i].hpd_lower; break;
      case F_HPD_HI: v[i] = s[i].hpd_upper; break;
      case F_LO: v[i] = s[i].lower; break;
      case F_HI: v[i] = s[i].upper; break;
      case F_SKEW: default: v[i] = s[i].skewness; break;
      }
  return v;
}

static double
interp (const double *x, const double *y, gsize n, double at)
{
  if (n == 0 || !isfinite (at))
    return NAN;
  if (at <= x[0])
    return y[0];
  if (at >= x[n - 1])
    return y[n - 1];
  gsize lo = 0, hi = n - 1;
  while (hi - lo > 1)
    {
      gsize mid = (lo + hi) / 2;
      if (x[mid] <= at)
        lo = mid;
      else
        hi = mid;
    }
  double t = (at - x[lo]) / (x[hi] - x[lo]);
  return (1 - t) * y[lo] + t * y[hi];
}

static const SbRole method_role[SB_N_POSTERIOR_METHODS] = {
  SB_ROLE_EXACT, SB_ROLE_LAPLACE, SB_ROLE_EP,
};
static const SbDash method_dash[SB_N_POSTERIOR_METHODS] = {
  SB_DASH_SOLID, SB_DASH_DASHED, SB_DASH_DASHDOT,
};

/* The scene's x (or y) axis reads parameter I's coordinates: a log axis
 * in natural units, whole-number ticks, or level names. */
static void
parameter_axis_scale (SbScene *scene, const SbPlotSnapshot *s, guint i, gboolean y_axis)
{
  const char *const *levels = NULL;
  SbAxisScale scale = SB_AXIS_LINEAR;

  switch (sb_plot_snapshot_get_parameter_scale (s, i, &levels))
    {
    case SB_SCALE_LOG: scale = SB_AXIS_LOG10; break;
    case SB_SCALE_INTEGER: scale = SB_AXIS_INTEGER; break;
    case SB_SCALE_CATEGORICAL: scale = levels ? SB_AXIS_LEVELS : SB_AXIS_INTEGER; break;
    case SB_SCALE_LINEAR:
    case SB_SCALE_PERIODIC:
    default: break;
    }
  sb_scene_set_axis_scale (scene, y_axis, scale, levels);
}

/* Parameter I's coordinate V as a person reads it (natural units, the
 * level's name). */
static char *
parameter_value_text (const SbPlotSnapshot *s, guint i, double v)
{
  const char *const *levels = NULL;
  SbScale scale = sb_plot_snapshot_get_parameter_scale (s, i, &levels);

  if (scale == SB_SCALE_LOG)
    return g_strdup_printf ("%.3g", pow (10, v));
  if (scale == SB_SCALE_CATEGORICAL && levels && v >= 0 && v < g_strv_length ((char **) levels)
      && v == round (v))
    return g_strdup (levels[(guint) v]);
  return g_strdup_printf ("%.3g", v);
}

static void
axis_range (SbScene *scene, const SbPlotSnapshot *s, guint axis)
{
  double lo, hi;
  sb_plot_snapshot_get_parameter (s, axis, &lo, &hi);
  if (hi > lo)
    sb_scene_set_x_range (scene, lo, hi);
}

/* Subtitle naming the coordinates held fixed (d > 1 curves / d > 2 slices). */
static char *
fixed_note (const SbPlotSnapshot *s, const double *fixed, guint skip_a,
            guint skip_b, const char *what)
{
  guint dim = sb_plot_snapshot_get_dim (s);
  if (fixed == NULL)
    return NULL;
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < dim; i++)
    {
      if (i == skip_a || i == skip_b)
        continue;
      g_autofree char *value = parameter_value_text (s, i, fixed[i]);
      g_string_append_printf (out, "%s%s = %s", out->len ? ", " : "",
                              sb_plot_snapshot_get_parameter (s, i, NULL, NULL), value);
    }
  if (out->len == 0)
    return g_string_free (out, TRUE);
  g_string_append_printf (out, " (%s)", what);
  return g_string_free (out, FALSE);
}

/* ---- Linked pairs: duels, ties, choices ------------------------------------ */

/* Each kind of linked pair is its own layer and legend entry; a ranking
 * arrives as the duels of each option over the next one down. */
typedef enum { PAIR_DUEL = 0, PAIR_TIE, PAIR_CHOICE, N_PAIR_KINDS } PairKind;

static const struct { const char *id; const char *label; } pair_layers[N_PAIR_KINDS] = {
  { "obs/duels", "duel: winner ▲ → loser ▽" },
  { "obs/ties", "about the same: ○ ┄ ○" },
  { "obs/choices", "best of k: chosen ◆ → other ○" },
};

typedef struct {
  GArray *x, *y, *x2, *y2;
} PairSet;

/* The pair kind of an observation, or -1 when it is a single point. */
static int
pair_kind (sg_obs_kind kind)
{
  switch (kind)
    {
    case SG_OBS_PREFERENCE:
      return PAIR_DUEL;
    case SG_OBS_TIE:
      return PAIR_TIE;
    case SG_OBS_CHOICE:
      return PAIR_CHOICE;
    default:
      return -1;
    }
}

static void
pair_sets_init (PairSet sets[N_PAIR_KINDS])
{
  for (int k = 0; k < N_PAIR_KINDS; k++)
    {
      sets[k].x = g_array_new (FALSE, FALSE, sizeof (double));
      sets[k].y = g_array_new (FALSE, FALSE, sizeof (double));
      sets[k].x2 = g_array_new (FALSE, FALSE, sizeof (double));
      sets[k].y2 = g_array_new (FALSE, FALSE, sizeof (double));
    }
}

static void
pair_set_add (PairSet *set, double x, double y, double x2, double y2)
{
  g_array_append_val (set->x, x);
  g_array_append_val (set->y, y);
  g_array_append_val (set->x2, x2);
  g_array_append_val (set->y2, y2);
}

/* A duel: filled ▲ (winner) to hollow ▽ (loser), solid; a tie: hollow
 * circles at both ends, dashed (neither end won); a choice: the chosen
 * option's filled diamond to each other option's hollow circle. */
static SbStyle
pair_style (PairKind kind, double size, double width)
{
  SbStyle st;

  switch (kind)
    {
    case PAIR_TIE:
      st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_CIRCLE, size * 0.85, FALSE);
      st.ends_alike = TRUE;
      st.dash = SB_DASH_DASHED;
      break;
    case PAIR_CHOICE:
      st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_DIAMOND, size, TRUE);
      st.marker2 = SB_MARKER_CIRCLE;
      break;
    case PAIR_DUEL:
    default:
      st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_TRIANGLE_UP, size, TRUE);
      st.marker2 = SB_MARKER_TRIANGLE_DOWN;
      break;
    }
  st.line_width = width;
  return st;
}

/* Adds a layer per non-empty pair kind and frees the sets. */
static void
take_pair_layers (SbScene *scene, PairSet sets[N_PAIR_KINDS], double size, double width)
{
  for (int k = 0; k < N_PAIR_KINDS; k++)
    {
      if (sets[k].x->len)
        {
          SbStyle st = pair_style ((PairKind) k, size, width);
          sb_scene_take_layer (scene, sb_layer_new_links (pair_layers[k].id, pair_layers[k].label, &st,
                                                          sets[k].x->len,
                                                          (double *) sets[k].x->data,
                                                          (double *) sets[k].y->data,
                                                          (double *) sets[k].x2->data,
                                                          (double *) sets[k].y2->data));
        }
      g_array_unref (sets[k].x);
      g_array_unref (sets[k].y);
      g_array_unref (sets[k].x2);
      g_array_unref (sets[k].y2);
    }
}

/* Observations on a 1-D curve along AXIS. Latent values are not observed for
 * duels and classes: those markers sit on the exact posterior mean MEAN. */
static void
add_observations_1d (SbScene *scene, const SbPlotSnapshot *s, guint axis,
                     const double *grid, const double *mean, gsize n)
{
  gsize no = sb_plot_snapshot_get_n_observations (s);
  GArray *nx = g_array_new (FALSE, FALSE, sizeof (double)), *ny = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *vx = g_array_new (FALSE, FALSE, sizeof (double)), *vy = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *ix = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *bx = g_array_new (FALSE, FALSE, sizeof (double)), *by = g_array_new (FALSE, FALSE, sizeof (double));
  PairSet pairs[N_PAIR_KINDS];
  double nan = NAN;

  pair_sets_init (pairs);
  for (gsize i = 0; i < no; i++)
    {
      const SbObservation *o = sb_plot_snapshot_get_observation (s, i);
      double x = o->x[axis];
      int pair = pair_kind (o->kind);

      if (pair >= 0)
        {
          double xl = o->x_loser[axis];
          pair_set_add (&pairs[pair], x, mean ? interp (grid, mean, n, x) : nan,
                        xl, mean ? interp (grid, mean, n, xl) : nan);
          continue;
        }
      switch (o->kind)
        {
        case SG_OBS_NUMERIC:
          g_array_append_val (nx, x);
          g_array_append_val (ny, o->y);
          break;
        case SG_OBS_VALID:
          g_array_append_val (vx, x);
          g_array_append_val (vy, o->y);
          break;
        case SG_OBS_INVALID:
          g_array_append_val (ix, x);
          break;
        case SG_OBS_BINARY:
        default:
          {
            double y = mean ? interp (grid, mean, n, x) : nan;
            g_array_append_val (bx, x);
            g_array_append_val (by, y);
            break;
          }
        }
    }

  SbStyle st;
  take_pair_layers (scene, pairs, 4.5, 0.9);
  if (nx->len)
    {
      st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_CIRCLE, 3.5, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("obs/numeric", "numeric observation", &st, nx->len,
                                                        (double *) nx->data, (double *) ny->data));
    }
  if (bx->len)
    {
      st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_SQUARE, 3.5, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("obs/binary", "class observation", &st, bx->len,
                                                        (double *) bx->data, (double *) by->data));
    }
  if (vx->len)
    {
      st = sb_style_marker (SB_ROLE_VALID, SB_MARKER_CIRCLE, 3.5, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("obs/valid", "valid", &st, vx->len,
                                                        (double *) vx->data, (double *) vy->data));
    }
  if (ix->len)
    {
      /* No value: NaN puts the crosses on the bottom edge. */
      double *y = g_new (double, ix->len);
      for (guint k = 0; k < ix->len; k++)
        y[k] = NAN;
      st = sb_style_marker (SB_ROLE_INVALID, SB_MARKER_CROSS, 4.0, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("obs/invalid", "invalid (failed)", &st, ix->len,
                                                        (double *) ix->data, y));
      g_free (y);
    }
  GArray *all[] = { nx, ny, vx, vy, ix, bx, by };
  for (guint k = 0; k < G_N_ELEMENTS (all); k++)
    g_array_unref (all[k]);
}

/* x_r (and the next query) on a 1-D curve: a rule, and markers on CURVE
 * where it is defined. The next query's markers come first so the x_r star
 * stays on top when the duel is "challenger vs x_r". */
static void
add_best_1d (SbScene *scene, const SbPlotSnapshot *s, guint axis,
             const double *grid, const double *curve, gsize n, gboolean next)
{
  const double *best = sb_plot_snapshot_get_best (s);
  const double *nb = NULL, *na = sb_plot_snapshot_get_next (s, &nb);
  SbStyle st;

  if (next && na && curve)
    {
      double xs[2], ys[2];
      gsize k = 0;
      const double *pts[2] = { na, nb };
      for (int i = 0; i < 2; i++)
        if (pts[i] && !(best && pts[i][axis] == best[axis]))
          {
            xs[k] = pts[i][axis];
            ys[k] = interp (grid, curve, n, xs[k]);
            k++;
          }
      st = sb_style_marker (SB_ROLE_NEXT, SB_MARKER_DIAMOND, 4.5, FALSE);
      if (k)
        sb_scene_take_layer (scene, sb_layer_new_markers ("next/marker", "next query", &st, k, xs, ys));
    }
  if (best)
    {
      double y = curve ? interp (grid, curve, n, best[axis]) : NAN;
      gboolean star = isfinite (y);
      st = sb_style_line (SB_ROLE_BEST, 1.0, SB_DASH_DASHED, 0.7);
      sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_VLINE, "best/rule",
                                                     star ? NULL : "current best x_r", &st, best[axis]));
      if (star)
        {
          st = sb_style_marker (SB_ROLE_BEST, SB_MARKER_STAR, 5.0, TRUE);
          sb_scene_take_layer (scene, sb_layer_new_markers ("best/marker", "current best x_r", &st, 1,
                                                            &best[axis], &y));
        }
    }
}

static SbScene *
new_curve_scene (const SbPlotSnapshot *s, const char *title, const char *y_label,
                 guint *axis, const double **grid, gsize *n)
{
  *n = sb_plot_snapshot_get_curve_grid (s, axis, grid);
  SbScene *scene = sb_scene_new (title, sb_plot_snapshot_get_parameter (s, *axis, NULL, NULL), y_label);
  axis_range (scene, s, *axis);
  parameter_axis_scale (scene, s, *axis, FALSE);
  g_autofree char *note = fixed_note (s, sb_plot_snapshot_get_best (s), *axis, G_MAXUINT,
                                      "others at the best point");
  if (note)
    sb_scene_set_subtitle (scene, note);
  return scene;
}

/* ---- Posterior ----------------------------------------------------------------- */

static SbScene *
build_posterior (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  guint axis;
  const double *x;
  gsize n;
  SbScene *scene = new_curve_scene (s, o->prior ? "Prior of f" : "Posterior of f", "f(x)",
                                    &axis, &x, &n);
  const sg_point_summary *ex = sb_plot_snapshot_get_summaries (s, SB_POSTERIOR_EXACT);
  int pct = (int) lround (100 * o->level);
  char label[96];

  g_autofree double *mean = summary_column (ex, n, F_MEAN);
  g_autofree double *lo = summary_column (ex, n, F_HPD_LO);
  g_autofree double *hi = summary_column (ex, n, F_HPD_HI);
  SbStyle st = sb_style_line (SB_ROLE_EXACT, 0, SB_DASH_SOLID, 0.22);
  const char *model = sb_plot_snapshot_get_model_label (s);
  g_snprintf (label, sizeof label, "%d%% HPD band (%s)", pct, model);
  sb_scene_take_layer (scene, sb_layer_new_band ("band/exact", label, &st, n, x, lo, hi));

  gsize n_paths;
  const double *paths = sb_plot_snapshot_get_sample_paths (s, &n_paths);
  if (o->show_samples && paths && n_paths)
    {
      st = sb_style_line (SB_ROLE_EXACT, 0.8, SB_DASH_SOLID, 0.45);
      sb_scene_take_layer (scene, sb_layer_new_lines ("samples", o->prior ? "prior samples" : "posterior samples",
                                                       &st, n, x, n_paths, paths));
    }

  const double *truth = sb_plot_snapshot_get_truth (s);
  if (o->show_truth && truth)
    {
      st = sb_style_line (SB_ROLE_TRUTH, 1.4, SB_DASH_DASHED, 0.9);
      sb_scene_take_layer (scene, sb_layer_new_line ("truth", "true f", &st, n, x, truth));
    }
  if (o->show_median)
    {
      g_autofree double *med = summary_column (ex, n, F_MEDIAN);
      st = sb_style_line (SB_ROLE_EXACT, 1.6, SB_DASH_DASHED, 0.9);
      g_snprintf (label, sizeof label, "median (%s)", model);
      sb_scene_take_layer (scene, sb_layer_new_line ("median/exact", label, &st, n, x, med));
    }
  st = sb_style_line (SB_ROLE_EXACT, 2.4, SB_DASH_SOLID, 1.0);
  g_snprintf (label, sizeof label, "mean (%s)", model);
  sb_scene_take_layer (scene, sb_layer_new_line ("mean/exact", label, &st, n, x, mean));

  /* Gaussian approximations: their mean and equal-tailed (= HPD) bounds,
   * over the exact curves, so that one as close as EP often is still shows. */
  for (int k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
    {
      const sg_point_summary *g = sb_plot_snapshot_get_summaries (s, k);
      if (!o->compare[k] || g == NULL)
        continue;
      g_autofree double *gm = summary_column (g, n, F_MEAN);
      g_autofree double *bounds = g_new (double, 2 * n);
      for (gsize i = 0; i < n; i++)
        {
          bounds[i] = g[i].hpd_lower;
          bounds[n + i] = g[i].hpd_upper;
        }
      char id[32];
      g_snprintf (id, sizeof id, "bounds/%s", sb_posterior_method_name (k));
      g_snprintf (label, sizeof label, "%s %d%%", sb_posterior_method_name (k), pct);
      st = sb_style_line (method_role[k], 1.6, SB_DASH_DOTTED, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_lines (id, label, &st, n, x, 2, bounds));
      g_snprintf (id, sizeof id, "mean/%s", sb_posterior_method_name (k));
      g_snprintf (label, sizeof label, "%s mean", sb_posterior_method_name (k));
      st = sb_style_line (method_role[k], 1.8, method_dash[k], 1.0);
      sb_scene_take_layer (scene, sb_layer_new_line (id, label, &st, n, x, gm));
    }

  if (o->show_observations)
    add_observations_1d (scene, s, axis, x, mean, n);
  add_best_1d (scene, s, axis, x, mean, n, TRUE);
  return scene;
}

static SbScene *
build_skewness (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  guint axis;
  const double *x;
  gsize n;
  SbScene *scene = new_curve_scene (s, "Skewness statistic SS(x)", "SS(x)", &axis, &x, &n);
  const sg_point_summary *ex = sb_plot_snapshot_get_summaries (s, SB_POSTERIOR_EXACT);
  g_autofree double *ss = summary_column (ex, n, F_SKEW);

  gboolean gauss = FALSE;
  for (int k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
    gauss |= o->compare[k] && sb_plot_snapshot_get_summaries (s, k) != NULL;
  SbStyle st = sb_style_line (SB_ROLE_FOREGROUND, 1.0, gauss ? SB_DASH_DASHED : SB_DASH_SOLID,
                      gauss ? 0.8 : 0.45);
  sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_HLINE, "zero",
                                                 gauss ? "Laplace / EP: SS = 0" : NULL, &st, 0.0));
  st = sb_style_line (SB_ROLE_EXACT, 2.2, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("skewness/exact", o->prior ? "SS(x), prior" : "SS(x), exact posterior",
                                                 &st, n, x, ss));
  add_best_1d (scene, s, axis, x, ss, n, FALSE);
  return scene;
}

static SbScene *
build_acquisition (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  guint axis;
  const double *x, *x_max;
  const char *name;
  gsize n;
  const double *acq = sb_plot_snapshot_get_acquisition (s, &name, &x_max);
  g_autofree char *title = g_strdup_printf ("Acquisition: %s", name ? name : "");
  SbScene *scene = new_curve_scene (s, title, name ? name : "acquisition", &axis, &x, &n);

  /* Non-finite acquisition values (e.g. log of 0) break the line. */
  SbStyle st = sb_style_line (SB_ROLE_ACQUISITION, 2.2, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("acquisition", name ? name : "acquisition", &st, n, x, acq));
  add_best_1d (scene, s, axis, x, acq, n, FALSE);
  if (x_max)
    {
      double y = interp (x, acq, n, x_max[axis]);
      st = sb_style_line (SB_ROLE_NEXT, 1.2, SB_DASH_DOTTED, 0.9);
      sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_VLINE, "argmax/rule", NULL, &st, x_max[axis]));
      st = sb_style_marker (SB_ROLE_NEXT, SB_MARKER_DIAMOND, 5.0, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("argmax/marker", "maximiser (next query)", &st, 1,
                                                        &x_max[axis], &y));
    }
  return scene;
}

static SbScene *
build_validity (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  guint axis;
  const double *x;
  gsize n;
  double required;
  const double *pv = sb_plot_snapshot_get_validity (s, &required);
  SbScene *scene = new_curve_scene (s, "Probability of a valid setting", "P(f(x) ≥ h)", &axis, &x, &n);

  sb_scene_set_y_range (scene, 0, 1.05);
  SbStyle st = sb_style_line (SB_ROLE_VALID, 0, SB_DASH_SOLID, 0.15);
  g_autofree double *zero = g_new0 (double, n);
  sb_scene_take_layer (scene, sb_layer_new_band ("validity/area", NULL, &st, n, x, zero, pv));
  if (isfinite (required))
    {
      /* the safe set: the settings at or above the confidence level,
       * shaded over the plot's height */
      char label[64];
      g_autofree double *lo = g_new (double, n), *hi = g_new (double, n);
      for (gsize i = 0; i < n; i++)
        {
          gboolean in = pv[i] >= required;
          lo[i] = in ? 0 : NAN;
          hi[i] = in ? 1.05 : NAN;
        }
      g_snprintf (label, sizeof label, "safe set: P ≥ %.0f %%", 100 * required);
      st = sb_style_line (SB_ROLE_VALID, 0, SB_DASH_SOLID, 0.12);
      sb_scene_take_layer (scene, sb_layer_new_band ("safe-set", label, &st, n, x, lo, hi));
      g_snprintf (label, sizeof label, "confidence level %.2f", required);
      st = sb_style_line (SB_ROLE_INVALID, 1.4, SB_DASH_DASHED, 0.9);
      sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_HLINE, "required", label, &st, required));
    }
  st = sb_style_line (SB_ROLE_VALID, 2.2, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("validity", "P(valid)", &st, n, x, pv));

  if (o->show_observations)
    {
      /* Valid settings on the top edge (P = 1), failures on the bottom. */
      gsize no = sb_plot_snapshot_get_n_observations (s);
      GArray *vx = g_array_new (FALSE, FALSE, sizeof (double)), *fx = g_array_new (FALSE, FALSE, sizeof (double));
      for (gsize i = 0; i < no; i++)
        {
          const SbObservation *ob = sb_plot_snapshot_get_observation (s, i);
          if (ob->kind == SG_OBS_VALID || ob->kind == SG_OBS_NUMERIC)
            g_array_append_val (vx, ob->x[axis]);
          else if (ob->kind == SG_OBS_INVALID)
            g_array_append_val (fx, ob->x[axis]);
        }
      if (vx->len)
        {
          g_autofree double *ones = g_new (double, vx->len);
          for (guint k = 0; k < vx->len; k++)
            ones[k] = 1.0;
          st = sb_style_marker (SB_ROLE_VALID, SB_MARKER_CIRCLE, 3.5, TRUE);
          sb_scene_take_layer (scene, sb_layer_new_markers ("obs/valid", "valid", &st, vx->len,
                                                            (double *) vx->data, ones));
        }
      if (fx->len)
        {
          g_autofree double *zeros = g_new0 (double, fx->len);
          st = sb_style_marker (SB_ROLE_INVALID, SB_MARKER_CROSS, 4.0, TRUE);
          sb_scene_take_layer (scene, sb_layer_new_markers ("obs/invalid", "invalid (failed)", &st, fx->len,
                                                            (double *) fx->data, zeros));
        }
      g_array_unref (vx);
      g_array_unref (fx);
    }
  add_best_1d (scene, s, axis, x, pv, n, FALSE);
  return scene;
}

/* ---- 2-D slice ------------------------------------------------------------------- */

static gsize
contour_levels (double vmin, double vmax, int target, double *levels, gsize max)
{
  double lo = vmin, hi = vmax, t[64];
  int n = sb_ticks (&lo, &hi, target, FALSE, t, 64, NULL);
  gsize k = 0;
  /* Interior levels only: a level on the extreme value is a dot. */
  for (int i = 0; i < n && k < max; i++)
    if (t[i] > vmin && t[i] < vmax)
      levels[k++] = t[i];
  return k;
}

static void
add_observations_2d (SbScene *scene, const SbPlotSnapshot *s, guint ax, guint ay)
{
  gsize no = sb_plot_snapshot_get_n_observations (s);
  GArray *px = g_array_new (FALSE, FALSE, sizeof (double)), *py = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *ix = g_array_new (FALSE, FALSE, sizeof (double)), *iy = g_array_new (FALSE, FALSE, sizeof (double));
  PairSet pairs[N_PAIR_KINDS];
  SbStyle st;

  pair_sets_init (pairs);
  for (gsize i = 0; i < no; i++)
    {
      const SbObservation *o = sb_plot_snapshot_get_observation (s, i);
      int pair = pair_kind (o->kind);

      if (pair >= 0)
        pair_set_add (&pairs[pair], o->x[ax], o->x[ay], o->x_loser[ax], o->x_loser[ay]);
      else if (o->kind == SG_OBS_INVALID)
        {
          g_array_append_val (ix, o->x[ax]);
          g_array_append_val (iy, o->x[ay]);
        }
      else
        {
          g_array_append_val (px, o->x[ax]);
          g_array_append_val (py, o->x[ay]);
        }
    }
  take_pair_layers (scene, pairs, 4.0, 1.2);
  if (px->len)
    {
      st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_CIRCLE, 3.5, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("obs/points", "queried point", &st, px->len,
                                                        (double *) px->data, (double *) py->data));
    }
  if (ix->len)
    {
      st = sb_style_marker (SB_ROLE_INVALID, SB_MARKER_CROSS, 4.0, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("obs/invalid", "invalid (failed)", &st, ix->len,
                                                        (double *) ix->data, (double *) iy->data));
    }
  GArray *all[] = { px, py, ix, iy };
  for (guint k = 0; k < G_N_ELEMENTS (all); k++)
    g_array_unref (all[k]);
}

static SbScene *
build_heatmap (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  SbGrid2 *g = sb_plot_snapshot_get_field (s, o->field, SB_POSTERIOR_EXACT);
  guint ax = 0, ay = 1;
  const double *fixed = NULL;
  sb_plot_snapshot_get_slice (s, &ax, &ay, &fixed);
  guint nx = sb_grid2_get_nx (g), ny = sb_grid2_get_ny (g);
  double x0, x1, y0, y1, vmin = 0, vmax = 1;
  sb_grid2_get_box (g, &x0, &x1, &y0, &y1);
  sb_grid2_get_range (g, &vmin, &vmax);

  const char *fname = sb_field_name (o->field);
  const char *acq_name = NULL;
  if (o->field == SB_FIELD_ACQUISITION)
    sb_plot_snapshot_get_acquisition (s, &acq_name, NULL);
  g_autofree char *title = g_strdup_printf ("%s%s%s", fname, acq_name ? ": " : "",
                                            acq_name ? acq_name : "");
  title[0] = g_ascii_toupper (title[0]);
  SbScene *scene = sb_scene_new (title, sb_plot_snapshot_get_parameter (s, ax, NULL, NULL),
                                 sb_plot_snapshot_get_parameter (s, ay, NULL, NULL));
  sb_scene_set_x_range (scene, MIN (x0, x1), MAX (x0, x1));
  sb_scene_set_y_range (scene, MIN (y0, y1), MAX (y0, y1));
  parameter_axis_scale (scene, s, ax, FALSE);
  parameter_axis_scale (scene, s, ay, TRUE);
  g_autofree char *note = fixed_note (s, fixed, ax, ay, "fixed");
  if (note)
    sb_scene_set_subtitle (scene, note);

  SbColormap map = SB_COLORMAP_VIRIDIS;
  if (o->field == SB_FIELD_SKEWNESS)
    {
      /* Diverging, centred at 0: symmetric range. */
      double m = MAX (fabs (vmin), fabs (vmax));
      if (!(m > 0))
        m = 1;
      vmin = -m;
      vmax = m;
      map = SB_COLORMAP_COOLWARM;
    }
  else if (o->field == SB_FIELD_P_VALID)
    {
      vmin = 0;
      vmax = 1;
    }
  const double *v = sb_grid2_get_values (g);
  sb_scene_take_layer (scene, sb_layer_new_heatmap ("heatmap", fname, nx, ny, v, x0, x1, y0, y1,
                                                    map, vmin, vmax));
  sb_scene_set_colorbar (scene, "heatmap", fname);

  double levels[16];
  /* SS(x) and the acquisition are Monte Carlo estimates with visible
   * noise: few levels, or the noise becomes a tangle of lines. */
  gboolean noisy = o->field == SB_FIELD_SKEWNESS || o->field == SB_FIELD_ACQUISITION;
  gsize nl = contour_levels (vmin, vmax, noisy ? 4 : 8, levels, G_N_ELEMENTS (levels));
  SbStyle st = sb_style_line (SB_ROLE_FOREGROUND, 0.8, SB_DASH_SOLID, 0.55);
  sb_scene_take_layer (scene, sb_layer_new_contours ("contours/exact", NULL, &st, nx, ny, v,
                                                     x0, x1, y0, y1, nl, levels));
  if (o->field == SB_FIELD_P_VALID)
    {
      double required;
      sb_plot_snapshot_get_validity (s, &required);
      if (!isfinite (required))
        required = 0.95;
      char label[64];
      g_snprintf (label, sizeof label, "safe set edge: P = %.2f", required);
      st = sb_style_line (SB_ROLE_INVALID, 2.2, SB_DASH_SOLID, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_contours ("contours/required", label, &st, nx, ny, v,
                                                         x0, x1, y0, y1, 1, &required));
    }

  /* Gaussian approximations of the same field, as contour lines at the
   * same levels. */
  for (int k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
    {
      SbGrid2 *gk = sb_plot_snapshot_get_field (s, o->field, k);
      if (!o->compare[k] || gk == NULL || !sb_plot_supports_compare (o->kind, o->field))
        continue;
      double a0, a1, b0, b1;
      sb_grid2_get_box (gk, &a0, &a1, &b0, &b1);
      char id[32], label[64];
      g_snprintf (id, sizeof id, "contours/%s", sb_posterior_method_name (k));
      g_snprintf (label, sizeof label, "%s %s (contours)", sb_posterior_method_name (k),
                  o->field == SB_FIELD_SD ? "sd" : "mean");
      st = sb_style_line (method_role[k], 1.6, method_dash[k], 1.0);
      sb_scene_take_layer (scene, sb_layer_new_contours (id, label, &st, sb_grid2_get_nx (gk),
                                                         sb_grid2_get_ny (gk), sb_grid2_get_values (gk),
                                                         a0, a1, b0, b1, nl, levels));
    }

  if (o->show_observations)
    add_observations_2d (scene, s, ax, ay);

  const double *nb = NULL, *na = sb_plot_snapshot_get_next (s, &nb);
  if (na)
    {
      st = sb_style_marker (SB_ROLE_NEXT, SB_MARKER_DIAMOND, 5.0, FALSE);
      if (nb)
        {
          st.filled = FALSE;
          st.line_width = 1.6;
          sb_scene_take_layer (scene, sb_layer_new_links ("next/duel", "next duel", &st, 1,
                                                          &na[ax], &na[ay], &nb[ax], &nb[ay]));
        }
      else
        sb_scene_take_layer (scene, sb_layer_new_markers ("next/marker", "next query", &st, 1,
                                                          &na[ax], &na[ay]));
    }
  const double *best = sb_plot_snapshot_get_best (s);
  if (best)
    {
      st = sb_style_marker (SB_ROLE_BEST, SB_MARKER_STAR, 6.0, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers ("best/marker", "current best x_r", &st, 1,
                                                        &best[ax], &best[ay]));
    }
  return scene;
}

/* ---- Density ---------------------------------------------------------------------- */

void
sb_histogram_density (const double *samples, gsize n, double lo, double hi,
                      gsize nbins, double *edges, double *heights)
{
  double w = (hi - lo) / nbins;
  gsize inside = 0;

  for (gsize b = 0; b <= nbins; b++)
    edges[b] = lo + b * w;
  memset (heights, 0, nbins * sizeof (double));
  for (gsize i = 0; i < n; i++)
    {
      if (!(samples[i] >= lo && samples[i] <= hi))
        continue;
      gsize b = (gsize) ((samples[i] - lo) / w);
      heights[MIN (b, nbins - 1)] += 1;
      inside++;
    }
  for (gsize b = 0; b < nbins && inside; b++)
    heights[b] /= inside * w;
}

static SbScene *
build_density (const SbPlotOptions *o, const SbDensityData *d)
{
  const double *grid;
  gsize k = sb_density_data_get_grid (d, &grid);
  gboolean diff = sb_density_data_get_difference (d);
  guint dim = sb_density_data_get_dim (d);
  const double *x = sb_density_data_get_x (d);
  GString *where = g_string_new (NULL);
  for (guint i = 0; i < dim; i++)
    g_string_append_printf (where, "%s%.3g", i ? ", " : "", x[i]);
  g_autofree char *title = g_strdup_printf ("Predictive density of %s at x = %s%s%s",
                                            diff ? "f(x) − f(x_r)" : "f(x)",
                                            dim > 1 ? "(" : "", where->str, dim > 1 ? ")" : "");
  g_string_free (where, TRUE);
  SbScene *scene = sb_scene_new (title, diff ? "f(x) − f(x_r)" : "f(x)", "density");
  sb_scene_set_x_range (scene, grid[0], grid[k - 1]);

  gsize ns;
  const double *samples = sb_density_data_get_samples (d, &ns);
  SbStyle st;
  if (samples && ns > 1)
    {
      /* Square-root rule, bounded so bars stay readable. */
      gsize nbins = CLAMP ((gsize) sqrt ((double) ns), 15, 60);
      g_autofree double *edges = g_new (double, nbins + 1);
      g_autofree double *h = g_new (double, nbins);
      sb_histogram_density (samples, ns, grid[0], grid[k - 1], nbins, edges, h);
      st = sb_style_line (SB_ROLE_EXACT, 1, SB_DASH_SOLID, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_histogram ("histogram", "exact: posterior samples", &st,
                                                          nbins, edges, h));
    }
  if (diff)
    {
      st = sb_style_line (SB_ROLE_FOREGROUND, 1.0, SB_DASH_SOLID, 0.5);
      sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_VLINE, "zero", NULL, &st, 0.0));
    }
  /* The exact density first and the Gaussians over it: where an
   * approximation is as good as EP often is here (within a pixel), its
   * dashes still show on the exact curve instead of vanishing under it. */
  for (int s = 0; s < SB_N_POSTERIOR_METHODS; s++)
    {
      const double *dens = sb_density_data_get_density (d, s);
      if (dens == NULL || (s != SB_POSTERIOR_EXACT && !o->compare[s]))
        continue;
      char id[32], label[64];
      g_snprintf (id, sizeof id, "density/%s", sb_posterior_method_name (s));
      g_snprintf (label, sizeof label, s == SB_POSTERIOR_EXACT ? "exact: kernel density"
                                                               : "%s Gaussian", sb_posterior_method_name (s));
      st = sb_style_line (method_role[s], s == SB_POSTERIOR_EXACT ? 2.4 : 1.8, method_dash[s], 1.0);
      sb_scene_take_layer (scene, sb_layer_new_line (id, label, &st, k, grid, dens));
    }
  return scene;
}

/* ---- Histories ---------------------------------------------------------------------- */

/* Iterations 1..N with a little air so the end markers are whole. */
static void
iteration_range (SbScene *scene, gsize n)
{
  double pad = n > 1 ? 0.03 * (n - 1) : 0.5;
  sb_scene_set_x_range (scene, 1 - pad, n + pad);
}

static SbScene *
build_convergence (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  const double *best;
  double true_best;
  gsize n = sb_plot_snapshot_get_convergence (s, &best, &true_best);
  SbScene *scene = sb_scene_new ("Convergence", "iteration", "best value so far");
  g_autofree double *it = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    it[i] = i + 1;
  iteration_range (scene, n);

  SbStyle st;
  if (isfinite (true_best))
    {
      st = sb_style_line (SB_ROLE_TRUTH, 1.4, SB_DASH_DASHED, 0.9);
      sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_HLINE, "true-best", "true optimum", &st, true_best));
    }
  st = sb_style_line (SB_ROLE_EXACT, 2.2, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_xy (SB_LAYER_STEP, "best-so-far", "best so far", &st, n, it,
                                               best, NULL, NULL));
  st = sb_style_marker (SB_ROLE_EXACT, SB_MARKER_CIRCLE, 2.5, TRUE);
  sb_scene_take_layer (scene, sb_layer_new_markers ("best-so-far/points", NULL, &st, n, it, best));
  return scene;
}

static SbScene *
build_hyper (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  gsize nh;
  const char *const *names;
  const double *v;
  gsize n = sb_plot_snapshot_get_hyper_history (s, &nh, &names, &v);
  SbScene *scene = sb_scene_new ("Hyperparameter history", "iteration", "value");
  g_autofree double *it = g_new (double, n);
  g_autofree double *col = g_new (double, n);
  gboolean positive = TRUE;

  for (gsize i = 0; i < n * nh; i++)
    positive &= v[i] > 0;
  /* Lengthscales and variances are scales: a log axis when all positive. */
  sb_scene_set_y_log (scene, positive);
  if (positive)
    sb_scene_set_subtitle (scene, "logarithmic scale");
  for (gsize i = 0; i < n; i++)
    it[i] = i + 1;
  iteration_range (scene, n);
  for (gsize k = 0; k < nh; k++)
    {
      for (gsize i = 0; i < n; i++)
        col[i] = v[i * nh + k];
      char id[32];
      g_snprintf (id, sizeof id, "hyper/%" G_GSIZE_FORMAT, k);
      SbStyle st = sb_style_line (SB_ROLE_SERIES_0 + (k % 8), 1.8, (k / 8) % 2 ? SB_DASH_DASHED : SB_DASH_SOLID, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_line (id, names[k], &st, n, it, col));
      g_strlcat (id, "/points", sizeof id);
      st.marker = SB_MARKER_CIRCLE;
      st.marker_size = 2.5;
      st.filled = TRUE;
      sb_scene_take_layer (scene, sb_layer_new_markers (id, NULL, &st, n, it, col));
    }
  return scene;
}

const char *
sb_plot_empty_reason (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  gboolean known_objective = FALSE;
  sg_bo_mode mode = s ? sb_plot_snapshot_get_mode (s, &known_objective) : SG_BO_PREFERENCE;

  switch (o->kind)
    {
    case SB_PLOT_DENSITY:
      return "Click a point in a 1-D plot to see its predictive density";
    case SB_PLOT_VALIDITY:
      if (s && mode != SG_BO_SAFE)
        return "P(valid) belongs to safe mode: this study has no failed settings";
      break;
    case SB_PLOT_CONVERGENCE:
      if (s && mode == SG_BO_PREFERENCE && !known_objective)
        return "Convergence plots the best measured value: this preference study "
               "measures none (benchmark problems show their true values)";
      break;
    case SB_PLOT_HYPERPARAMETERS:
      return "No refit yet: the hyperparameters are refitted on the engine's schedule "
             "(Ctrl+R refits now)";
    default:
      break;
    }
  return s && sb_plot_snapshot_get_n_observations (s) == 0
         ? "No data yet: answer the first questions" : "No data yet";
}

/* A plot with nothing to draw yet says why; a plot over the parameters
 * already has their axes (names, ranges, scales), so an empty session
 * shows the box it will explore rather than a unit square. */
static SbScene *
build_empty (const SbPlotOptions *o, const SbPlotSnapshot *s)
{
  guint dim = s ? sb_plot_snapshot_get_dim (s) : 0;
  gboolean over_box = dim > 0 && o->kind != SB_PLOT_DENSITY && o->kind != SB_PLOT_CONVERGENCE
                      && o->kind != SB_PLOT_HYPERPARAMETERS;
  guint ax = 0, ay = 1;
  SbScene *scene;

  if (over_box && o->kind == SB_PLOT_HEATMAP)
    sb_plot_snapshot_get_slice (s, &ax, &ay, NULL);
  else if (over_box)
    sb_plot_snapshot_get_curve_grid (s, &ax, NULL);
  if (ay == ax)  /* a snapshot without a slice yet */
    ay = ax == 0 ? 1 : 0;
  over_box = over_box && ax < dim;
  scene = sb_scene_new (sb_plot_kind_title (o->kind),
                        over_box ? sb_plot_snapshot_get_parameter (s, ax, NULL, NULL) : NULL,
                        over_box && o->kind == SB_PLOT_HEATMAP && ay < dim
                          ? sb_plot_snapshot_get_parameter (s, ay, NULL, NULL) : NULL);
  sb_scene_set_subtitle (scene, sb_plot_empty_reason (o, s));
  if (!over_box)
    return scene;
  axis_range (scene, s, ax);
  parameter_axis_scale (scene, s, ax, FALSE);
  if (o->kind == SB_PLOT_HEATMAP && ay < dim)
    {
      double lo, hi;
      sb_plot_snapshot_get_parameter (s, ay, &lo, &hi);
      if (hi > lo)
        sb_scene_set_y_range (scene, lo, hi);
      parameter_axis_scale (scene, s, ay, TRUE);
    }
  return scene;
}

SbScene *
sb_plot_build (const SbPlotOptions *o, const SbPlotSnapshot *s,
               const SbDensityData *d)
{
  g_return_val_if_fail (o != NULL, NULL);
  if (!sb_plot_has_data (o, s, d))
    return build_empty (o, s);
  switch (o->kind)
    {
    case SB_PLOT_POSTERIOR: return build_posterior (o, s);
    case SB_PLOT_SKEWNESS: return build_skewness (o, s);
    case SB_PLOT_ACQUISITION: return build_acquisition (o, s);
    case SB_PLOT_VALIDITY: return build_validity (o, s);
    case SB_PLOT_HEATMAP: return build_heatmap (o, s);
    case SB_PLOT_DENSITY: return build_density (o, d);
    case SB_PLOT_CONVERGENCE: return build_convergence (o, s);
    case SB_PLOT_HYPERPARAMETERS: return build_hyper (o, s);
    default: return sb_scene_new ("", NULL, NULL);
    }
}
