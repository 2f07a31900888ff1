/* sb-plot-data.c — immutable plot snapshots (see sb-plot-data.h). */
#include "config.h"

#include "sb-plot-data.h"

#include <math.h>
#include <string.h>

/* Each method's name in legends and its lower-case id in layer ids and
 * plot fixtures. */
static const struct {
  const char *name;
  const char *id;
} posterior_methods[SB_N_POSTERIOR_METHODS] = {
  [SB_POSTERIOR_EXACT] = { "exact", "exact" },
  [SB_POSTERIOR_LAPLACE] = { "Laplace", "laplace" },
  [SB_POSTERIOR_EP] = { "EP", "ep" },
};

const char *
sb_posterior_method_name (SbPosteriorMethod s)
{
  return (guint) s < SB_N_POSTERIOR_METHODS ? posterior_methods[s].name : "?";
}

const char *
sb_posterior_method_id (SbPosteriorMethod s)
{
  return (guint) s < SB_N_POSTERIOR_METHODS ? posterior_methods[s].id : "?";
}

const char *
sb_field_name (SbField f)
{
  switch (f)
    {
    case SB_FIELD_MEAN: return "posterior mean";
    case SB_FIELD_SD: return "posterior standard deviation";
    case SB_FIELD_SKEWNESS: return "skewness statistic SS(x)";
    case SB_FIELD_ACQUISITION: return "acquisition";
    case SB_FIELD_P_VALID: return "P(valid)";
    default: return "?";
    }
}

static double *
dup_doubles (const double *v, gsize n)
{
  return v && n ? g_memdup2 (v, n * sizeof (double)) : NULL;
}

/* ---- SbGrid2 --------------------------------------------------------------- */

struct _SbGrid2
{
  gatomicrefcount ref;
  guint nx, ny;
  double x0, x1, y0, y1;
  double *values;
};

G_DEFINE_BOXED_TYPE (SbGrid2, sb_grid2, sb_grid2_ref, sb_grid2_unref)

SbGrid2 *
sb_grid2_new (guint nx, guint ny, double x0, double x1, double y0, double y1,
              const double *values)
{
  g_return_val_if_fail (nx >= 2 && ny >= 2 && values != NULL, NULL);
  SbGrid2 *g = g_new0 (SbGrid2, 1);
  g_atomic_ref_count_init (&g->ref);
  g->nx = nx;
  g->ny = ny;
  g->x0 = x0; g->x1 = x1; g->y0 = y0; g->y1 = y1;
  g->values = dup_doubles (values, (gsize) nx * ny);
  return g;
}

SbGrid2 *
sb_grid2_ref (SbGrid2 *g)
{
  g_return_val_if_fail (g != NULL, NULL);
  g_atomic_ref_count_inc (&g->ref);
  return g;
}

void
sb_grid2_unref (SbGrid2 *g)
{
  if (g == NULL || !g_atomic_ref_count_dec (&g->ref))
    return;
  g_free (g->values);
  g_free (g);
}

guint sb_grid2_get_nx (const SbGrid2 *g) { return g->nx; }
guint sb_grid2_get_ny (const SbGrid2 *g) { return g->ny; }
const double *sb_grid2_get_values (const SbGrid2 *g) { return g->values; }

void
sb_grid2_get_box (const SbGrid2 *g, double *x0, double *x1, double *y0,
                  double *y1)
{
  *x0 = g->x0; *x1 = g->x1; *y0 = g->y0; *y1 = g->y1;
}

gboolean
sb_grid2_get_range (const SbGrid2 *g, double *vmin, double *vmax)
{
  double lo = INFINITY, hi = -INFINITY;
  for (gsize i = 0; i < (gsize) g->nx * g->ny; i++)
    if (isfinite (g->values[i]))
      {
        lo = MIN (lo, g->values[i]);
        hi = MAX (hi, g->values[i]);
      }
  if (!(lo <= hi))
    return FALSE;
  *vmin = lo;
  *vmax = hi;
  return TRUE;
}

/* ---- SbPlotSnapshot ---------------------------------------------------------- */

typedef struct {
  SbObservation pub;
  double *coords;          /* 2 * dim: x then x_loser */
} Observation;

struct _SbPlotSnapshot
{
  gatomicrefcount ref;
  gboolean frozen;
  guint dim;
  guint64 generation;
  sg_bo_mode mode;
  gboolean has_truth_source;
  char **names;
  double *lo, *hi;
  SbScale *scales;     /* per parameter; the axis coordinates follow them */
  GStrv *levels;       /* per parameter: categorical level names or NULL  */

  guint axis;
  gsize n;
  double *grid;
  sg_point_summary *summaries[SB_N_POSTERIOR_METHODS];
  gsize n_paths;
  double *paths;
  double *truth;
  char *model_label;
  char *acq_name;
  double *acq;
  double *acq_max;
  double *p_valid;
  double required;

  GArray *observations;    /* Observation */
  double *best;
  double *next_a, *next_b;

  gboolean has_slice;
  guint axis_x, axis_y;
  double *fixed;
  SbGrid2 *fields[SB_N_FIELDS][SB_N_POSTERIOR_METHODS];

  gsize n_conv;
  double *best_so_far;
  double true_best;

  gsize n_iter, n_hyper;
  char **hyper_names;
  double *hyper;
};

G_DEFINE_BOXED_TYPE (SbPlotSnapshot, sb_plot_snapshot, sb_plot_snapshot_ref,
                     sb_plot_snapshot_unref)

static void
clear_observation (gpointer p)
{
  Observation *o = p;
  g_free (o->coords);
}

SbPlotSnapshot *
sb_plot_snapshot_new (guint dim, guint64 generation)
{
  g_return_val_if_fail (dim >= 1, NULL);
  SbPlotSnapshot *s = g_new0 (SbPlotSnapshot, 1);

  g_atomic_ref_count_init (&s->ref);
  s->dim = dim;
  s->generation = generation;
  s->names = g_new0 (char *, dim + 1);
  s->lo = g_new0 (double, dim);
  s->hi = g_new0 (double, dim);
  s->scales = g_new0 (SbScale, dim);
  s->levels = g_new0 (GStrv, dim);
  for (guint i = 0; i < dim; i++)
    {
      s->names[i] = g_strdup_printf ("x%u", i + 1);
      s->lo[i] = 0;
      s->hi[i] = 1;
    }
  s->observations = g_array_new (FALSE, TRUE, sizeof (Observation));
  g_array_set_clear_func (s->observations, clear_observation);
  s->true_best = NAN;
  s->required = NAN;
  s->axis_y = dim > 1 ? 1 : 0;
  return s;
}

SbPlotSnapshot *
sb_plot_snapshot_ref (SbPlotSnapshot *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  g_atomic_ref_count_inc (&s->ref);
  return s;
}

void
sb_plot_snapshot_unref (SbPlotSnapshot *s)
{
  if (s == NULL || !g_atomic_ref_count_dec (&s->ref))
    return;
  g_strfreev (s->names);
  g_free (s->lo);
  g_free (s->hi);
  g_free (s->scales);
  for (guint i = 0; i < s->dim; i++)
    g_strfreev (s->levels[i]);
  g_free (s->levels);
  g_free (s->grid);
  for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
    g_free (s->summaries[k]);
  g_free (s->paths);
  g_free (s->truth);
  g_free (s->model_label);
  g_free (s->acq_name);
  g_free (s->acq);
  g_free (s->acq_max);
  g_free (s->p_valid);
  g_array_unref (s->observations);
  g_free (s->best);
  g_free (s->next_a);
  g_free (s->next_b);
  g_free (s->fixed);
  for (int f = 0; f < SB_N_FIELDS; f++)
    for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
      sb_grid2_unref (s->fields[f][k]);
  g_free (s->best_so_far);
  g_strfreev (s->hyper_names);
  g_free (s->hyper);
  g_free (s);
}

void sb_plot_snapshot_freeze (SbPlotSnapshot *s) { s->frozen = TRUE; }
gboolean sb_plot_snapshot_is_frozen (const SbPlotSnapshot *s) { return s->frozen; }

#define RETURN_IF_FROZEN(s) g_return_if_fail ((s) != NULL && !(s)->frozen)

static void
replace (double **slot, const double *v, gsize n)
{
  g_free (*slot);
  *slot = dup_doubles (v, n);
}

void
sb_plot_snapshot_set_parameter (SbPlotSnapshot *s, guint i, const char *name,
                                double lo, double hi)
{
  RETURN_IF_FROZEN (s);
  g_return_if_fail (i < s->dim);
  if (name)
    {
      g_free (s->names[i]);
      s->names[i] = g_strdup (name);
    }
  s->lo[i] = lo;
  s->hi[i] = hi;
}

void
sb_plot_snapshot_set_parameter_scale (SbPlotSnapshot *s, guint i, SbScale scale,
                                      const char *const *levels)
{
  RETURN_IF_FROZEN (s);
  g_return_if_fail (i < s->dim);
  s->scales[i] = scale;
  g_strfreev (s->levels[i]);
  s->levels[i] = g_strdupv ((char **) levels);
}

SbScale
sb_plot_snapshot_get_parameter_scale (const SbPlotSnapshot *s, guint i,
                                      const char *const **levels)
{
  g_return_val_if_fail (i < s->dim, SB_SCALE_LINEAR);
  if (levels)
    *levels = (const char *const *) s->levels[i];
  return s->scales[i];
}

void
sb_plot_snapshot_set_curve_grid (SbPlotSnapshot *s, guint axis, gsize n,
                                 const double *x)
{
  RETURN_IF_FROZEN (s);
  g_return_if_fail (axis < s->dim && (n == 0 || x != NULL));
  /* A new grid invalidates everything laid out on the old one. */
  if (n != s->n)
    {
      for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
        g_clear_pointer (&s->summaries[k], g_free);
      g_clear_pointer (&s->paths, g_free);
      g_clear_pointer (&s->truth, g_free);
      g_clear_pointer (&s->acq, g_free);
      g_clear_pointer (&s->p_valid, g_free);
      s->n_paths = 0;
    }
  s->axis = axis;
  s->n = n;
  replace (&s->grid, x, n);
}

void
sb_plot_snapshot_set_summaries (SbPlotSnapshot *s, SbPosteriorMethod k,
                                const sg_point_summary *summaries)
{
  RETURN_IF_FROZEN (s);
  g_return_if_fail (k < SB_N_POSTERIOR_METHODS && s->n > 0);
  g_free (s->summaries[k]);
  s->summaries[k] = summaries ? g_memdup2 (summaries, s->n * sizeof *summaries) : NULL;
}

void
sb_plot_snapshot_set_sample_paths (SbPlotSnapshot *s, gsize n_paths,
                                   const double *paths)
{
  RETURN_IF_FROZEN (s);
  s->n_paths = paths ? n_paths : 0;
  replace (&s->paths, paths, n_paths * s->n);
}

void
sb_plot_snapshot_set_truth (SbPlotSnapshot *s, const double *values)
{
  RETURN_IF_FROZEN (s);
  replace (&s->truth, values, s->n);
}

void
sb_plot_snapshot_set_model_label (SbPlotSnapshot *s, const char *label)
{
  RETURN_IF_FROZEN (s);
  g_free (s->model_label);
  s->model_label = g_strdup (label);
}

const char *
sb_plot_snapshot_get_model_label (const SbPlotSnapshot *s)
{
  return s->model_label ? s->model_label : "exact";
}

void
sb_plot_snapshot_set_acquisition (SbPlotSnapshot *s, const char *name,
                                  const double *values, const double *x_max)
{
  RETURN_IF_FROZEN (s);
  g_free (s->acq_name);
  s->acq_name = g_strdup (name);
  replace (&s->acq, values, s->n);
  replace (&s->acq_max, x_max, s->dim);
}

void
sb_plot_snapshot_set_validity (SbPlotSnapshot *s, const double *p_valid,
                               double required)
{
  RETURN_IF_FROZEN (s);
  replace (&s->p_valid, p_valid, s->n);
  s->required = required;
}

void
sb_plot_snapshot_add_observation (SbPlotSnapshot *s, sg_obs_kind kind,
                                  const double *x, const double *x_loser,
                                  double y)
{
  gboolean pair = kind == SG_OBS_PREFERENCE || kind == SG_OBS_TIE || kind == SG_OBS_CHOICE;

  RETURN_IF_FROZEN (s);
  g_return_if_fail (x != NULL && (!pair || x_loser != NULL));
  Observation o = { 0 };
  o.coords = g_new0 (double, 2 * s->dim);
  memcpy (o.coords, x, s->dim * sizeof (double));
  if (pair)
    memcpy (o.coords + s->dim, x_loser, s->dim * sizeof (double));
  o.pub.kind = kind;
  o.pub.y = y;
  o.pub.x = o.coords;
  o.pub.x_loser = pair ? o.coords + s->dim : NULL;
  g_array_append_val (s->observations, o);
}

void
sb_plot_snapshot_set_best (SbPlotSnapshot *s, const double *x_r)
{
  RETURN_IF_FROZEN (s);
  replace (&s->best, x_r, s->dim);
}

void
sb_plot_snapshot_set_next (SbPlotSnapshot *s, const double *x_a,
                           const double *x_b)
{
  RETURN_IF_FROZEN (s);
  replace (&s->next_a, x_a, s->dim);
  replace (&s->next_b, x_a ? x_b : NULL, s->dim);
}

void
sb_plot_snapshot_set_slice (SbPlotSnapshot *s, guint axis_x, guint axis_y,
                            const double *fixed)
{
  RETURN_IF_FROZEN (s);
  g_return_if_fail (s->dim >= 2 && axis_x < s->dim && axis_y < s->dim && axis_x != axis_y);
  s->has_slice = TRUE;
  s->axis_x = axis_x;
  s->axis_y = axis_y;
  replace (&s->fixed, fixed, s->dim);
}

void
sb_plot_snapshot_set_field (SbPlotSnapshot *s, SbField f, SbPosteriorMethod k,
                            SbGrid2 *grid)
{
  RETURN_IF_FROZEN (s);
  g_return_if_fail (f < SB_N_FIELDS && k < SB_N_POSTERIOR_METHODS);
  if (grid)
    sb_grid2_ref (grid);
  sb_grid2_unref (s->fields[f][k]);
  s->fields[f][k] = grid;
}

void
sb_plot_snapshot_set_convergence (SbPlotSnapshot *s, gsize n,
                                  const double *best_so_far, double true_best)
{
  RETURN_IF_FROZEN (s);
  s->n_conv = best_so_far ? n : 0;
  replace (&s->best_so_far, best_so_far, n);
  s->true_best = true_best;
}

void
sb_plot_snapshot_set_hyper_history (SbPlotSnapshot *s, gsize n_iter,
                                    gsize n_hyper, const char *const *names,
                                    const double *values)
{
  RETURN_IF_FROZEN (s);
  g_strfreev (s->hyper_names);
  s->hyper_names = g_new0 (char *, n_hyper + 1);
  for (gsize k = 0; k < n_hyper; k++)
    s->hyper_names[k] = names && names[k] ? g_strdup (names[k])
                                          : g_strdup_printf ("θ%" G_GSIZE_FORMAT, k + 1);
  s->n_iter = values ? n_iter : 0;
  s->n_hyper = n_hyper;
  replace (&s->hyper, values, n_iter * n_hyper);
}

void
sb_plot_snapshot_set_study (SbPlotSnapshot *s, sg_bo_mode mode, gboolean simulated)
{
  g_return_if_fail (!s->frozen);
  s->mode = mode;
  s->has_truth_source = simulated;
}

sg_bo_mode
sb_plot_snapshot_get_mode (const SbPlotSnapshot *s, gboolean *simulated)
{
  if (simulated)
    *simulated = s->has_truth_source;
  return s->mode;
}

guint sb_plot_snapshot_get_dim (const SbPlotSnapshot *s) { return s->dim; }
guint64 sb_plot_snapshot_get_generation (const SbPlotSnapshot *s) { return s->generation; }

const char *
sb_plot_snapshot_get_parameter (const SbPlotSnapshot *s, guint i, double *lo,
                                double *hi)
{
  g_return_val_if_fail (i < s->dim, NULL);
  if (lo)
    *lo = s->lo[i];
  if (hi)
    *hi = s->hi[i];
  return s->names[i];
}

gsize
sb_plot_snapshot_get_curve_grid (const SbPlotSnapshot *s, guint *axis,
                                 const double **x)
{
  if (axis)
    *axis = s->axis;
  if (x)
    *x = s->grid;
  return s->n;
}

const sg_point_summary *
sb_plot_snapshot_get_summaries (const SbPlotSnapshot *s, SbPosteriorMethod k)
{
  g_return_val_if_fail (k < SB_N_POSTERIOR_METHODS, NULL);
  return s->summaries[k];
}

const double *
sb_plot_snapshot_get_sample_paths (const SbPlotSnapshot *s, gsize *n_paths)
{
  *n_paths = s->n_paths;
  return s->paths;
}

const double *sb_plot_snapshot_get_truth (const SbPlotSnapshot *s) { return s->truth; }

const double *
sb_plot_snapshot_get_acquisition (const SbPlotSnapshot *s, const char **name,
                                  const double **x_max)
{
  if (name)
    *name = s->acq_name;
  if (x_max)
    *x_max = s->acq_max;
  return s->acq;
}

const double *
sb_plot_snapshot_get_validity (const SbPlotSnapshot *s, double *required)
{
  if (required)
    *required = s->required;
  return s->p_valid;
}

gsize sb_plot_snapshot_get_n_observations (const SbPlotSnapshot *s) { return s->observations->len; }

const SbObservation *
sb_plot_snapshot_get_observation (const SbPlotSnapshot *s, gsize i)
{
  g_return_val_if_fail (i < s->observations->len, NULL);
  return &g_array_index (s->observations, Observation, i).pub;
}

const double *sb_plot_snapshot_get_best (const SbPlotSnapshot *s) { return s->best; }

const double *
sb_plot_snapshot_get_next (const SbPlotSnapshot *s, const double **x_b)
{
  if (x_b)
    *x_b = s->next_b;
  return s->next_a;
}

gboolean
sb_plot_snapshot_get_slice (const SbPlotSnapshot *s, guint *axis_x,
                            guint *axis_y, const double **fixed)
{
  if (axis_x)
    *axis_x = s->axis_x;
  if (axis_y)
    *axis_y = s->axis_y;
  if (fixed)
    *fixed = s->fixed;
  return s->has_slice;
}

SbGrid2 *
sb_plot_snapshot_get_field (const SbPlotSnapshot *s, SbField f, SbPosteriorMethod k)
{
  g_return_val_if_fail (f < SB_N_FIELDS && k < SB_N_POSTERIOR_METHODS, NULL);
  return s->fields[f][k];
}

gsize
sb_plot_snapshot_get_convergence (const SbPlotSnapshot *s,
                                  const double **best_so_far, double *true_best)
{
  if (best_so_far)
    *best_so_far = s->best_so_far;
  if (true_best)
    *true_best = s->true_best;
  return s->n_conv;
}

gsize
sb_plot_snapshot_get_hyper_history (const SbPlotSnapshot *s, gsize *n_hyper,
                                    const char *const **names,
                                    const double **values)
{
  if (n_hyper)
    *n_hyper = s->n_hyper;
  if (names)
    *names = (const char *const *) s->hyper_names;
  if (values)
    *values = s->hyper;
  return s->n_iter;
}

/* ---- SbDensityData ----------------------------------------------------------- */

struct _SbDensityData
{
  gatomicrefcount ref;
  gboolean frozen;
  guint dim;
  double *x;
  gboolean difference;
  guint64 generation;
  gsize k;
  double *grid;
  double *density[SB_N_POSTERIOR_METHODS];
  gsize n_samples;
  double *samples;
};

G_DEFINE_BOXED_TYPE (SbDensityData, sb_density_data, sb_density_data_ref,
                     sb_density_data_unref)

SbDensityData *
sb_density_data_new (guint dim, const double *x, gboolean difference,
                     guint64 generation)
{
  g_return_val_if_fail (dim >= 1 && x != NULL, NULL);
  SbDensityData *d = g_new0 (SbDensityData, 1);
  g_atomic_ref_count_init (&d->ref);
  d->dim = dim;
  d->x = dup_doubles (x, dim);
  d->difference = difference;
  d->generation = generation;
  return d;
}

SbDensityData *
sb_density_data_ref (SbDensityData *d)
{
  g_return_val_if_fail (d != NULL, NULL);
  g_atomic_ref_count_inc (&d->ref);
  return d;
}

void
sb_density_data_unref (SbDensityData *d)
{
  if (d == NULL || !g_atomic_ref_count_dec (&d->ref))
    return;
  g_free (d->x);
  g_free (d->grid);
  for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
    g_free (d->density[k]);
  g_free (d->samples);
  g_free (d);
}

void sb_density_data_freeze (SbDensityData *d) { d->frozen = TRUE; }

void
sb_density_data_set_grid (SbDensityData *d, gsize k, const double *values)
{
  RETURN_IF_FROZEN (d);
  if (k != d->k)
    for (int s = 0; s < SB_N_POSTERIOR_METHODS; s++)
      g_clear_pointer (&d->density[s], g_free);
  d->k = values ? k : 0;
  replace (&d->grid, values, k);
}

void
sb_density_data_set_density (SbDensityData *d, SbPosteriorMethod s,
                             const double *density)
{
  RETURN_IF_FROZEN (d);
  g_return_if_fail (s < SB_N_POSTERIOR_METHODS && d->k > 0);
  replace (&d->density[s], density, d->k);
}

void
sb_density_data_set_samples (SbDensityData *d, gsize n, const double *samples)
{
  RETURN_IF_FROZEN (d);
  d->n_samples = samples ? n : 0;
  replace (&d->samples, samples, n);
}

guint sb_density_data_get_dim (const SbDensityData *d) { return d->dim; }
const double *sb_density_data_get_x (const SbDensityData *d) { return d->x; }
gboolean sb_density_data_get_difference (const SbDensityData *d) { return d->difference; }
guint64 sb_density_data_get_generation (const SbDensityData *d) { return d->generation; }

gsize
sb_density_data_get_grid (const SbDensityData *d, const double **values)
{
  if (values)
    *values = d->grid;
  return d->k;
}

const double *
sb_density_data_get_density (const SbDensityData *d, SbPosteriorMethod s)
{
  g_return_val_if_fail (s < SB_N_POSTERIOR_METHODS, NULL);
  return d->density[s];
}

const double *
sb_density_data_get_samples (const SbDensityData *d, gsize *n)
{
  *n = d->n_samples;
  return d->samples;
}
