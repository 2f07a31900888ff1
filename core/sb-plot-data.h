/* sb-plot-data.h — immutable data snapshots that the plot views draw.
 *
 * The worker fills one SbPlotSnapshot per job (grid summaries for the exact
 * posterior and, when "compare" is on, Laplace and EP; sample paths;
 * observations; best point; acquisition; 2-D fields; histories), calls
 * sb_plot_snapshot_freeze() and hands it to the main loop. From then on it
 * is read-only and may be shared by every view and thread (refcounted).
 * A clicked point's predictive density is a separate, smaller job and
 * snapshot (SbDensityData).
 *
 * Plain GLib/GObject (boxed types), no GTK: the pure renderers and the
 * display-free tests use it too.
 */
#pragma once

#include <glib-object.h>

#include "sb-session.h"
#include "sg-bo.h"
#include "sg-data.h"
#include "sg-summary.h"

G_BEGIN_DECLS

/* How a posterior the plots draw was computed: the exact SkewGP posterior
 * and the two Gaussian approximations shown as overlays ("compare"). Not
 * the session's surrogate (sg_bo_surrogate), which chooses the model that
 * proposes the questions. */
typedef enum {
  SB_POSTERIOR_EXACT = 0,  /* exact SkewGP posterior (samples)          */
  SB_POSTERIOR_LAPLACE,    /* Laplace Gaussian approximation            */
  SB_POSTERIOR_EP,         /* expectation propagation                   */
  SB_N_POSTERIOR_METHODS,
} SbPosteriorMethod;

typedef enum {
  SB_FIELD_MEAN = 0,
  SB_FIELD_SD,
  SB_FIELD_SKEWNESS,       /* SS(x), diverging colour map centred at 0  */
  SB_FIELD_ACQUISITION,
  SB_FIELD_P_VALID,        /* P(f(x) >= h), safe mode                   */
  SB_N_FIELDS,
} SbField;

/* An observation as the plots mark it; the kinds are the engine's
 * (sg-data.h), each a point or a linked pair: a preference's x is the
 * winner, x_loser the loser; a tie links its two points (x, x_loser); a
 * choice of one among k is k - 1 pairs of kind SG_OBS_CHOICE, the option
 * chosen (x) linked to each other option (x_loser); a ranking is the
 * preferences of each option over the next one down. */
typedef struct {
  sg_obs_kind kind;
  double y;                /* value or label; NaN when none             */
  const double *x;         /* dim coordinates (owned by the snapshot)   */
  const double *x_loser;   /* dim coordinates for pairs, else NULL      */
} SbObservation;

/* "exact", "Laplace", "EP": how legends name the method. */
const char *sb_posterior_method_name (SbPosteriorMethod s);
/* "exact", "laplace", "ep": the method in layer ids and data files. */
const char *sb_posterior_method_id (SbPosteriorMethod s);
const char *sb_field_name (SbField f);

/* ---- 2-D fields --------------------------------------------------------- */

/* A field on a regular NX x NY grid over [x0, x1] x [y0, y1]: NY rows of NX
 * values, value (i, j) at (x0 + i hx, y0 + j hy). Refcounted and immutable,
 * so a worker may reuse an unchanged field in the next snapshot and the
 * heatmap is then not redrawn. */
typedef struct _SbGrid2 SbGrid2;

#define SB_TYPE_GRID2 (sb_grid2_get_type ())
GType sb_grid2_get_type (void) G_GNUC_CONST;
SbGrid2 *sb_grid2_new (guint nx, guint ny, double x0, double x1, double y0,
                       double y1, const double *values);
SbGrid2 *sb_grid2_ref (SbGrid2 *grid);
void sb_grid2_unref (SbGrid2 *grid);
guint sb_grid2_get_nx (const SbGrid2 *grid);
guint sb_grid2_get_ny (const SbGrid2 *grid);
void sb_grid2_get_box (const SbGrid2 *grid, double *x0, double *x1,
                       double *y0, double *y1);
const double *sb_grid2_get_values (const SbGrid2 *grid);
/* Finite minimum and maximum; FALSE when there is no finite value. */
gboolean sb_grid2_get_range (const SbGrid2 *grid, double *vmin, double *vmax);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbGrid2, sb_grid2_unref)

/* ---- The snapshot -------------------------------------------------------- */

typedef struct _SbPlotSnapshot SbPlotSnapshot;

#define SB_TYPE_PLOT_SNAPSHOT (sb_plot_snapshot_get_type ())
GType sb_plot_snapshot_get_type (void) G_GNUC_CONST;
/* A snapshot for a DIM-dimensional problem; GENERATION is the worker's job
 * counter (views ignore a snapshot older than the one they show). */
SbPlotSnapshot *sb_plot_snapshot_new (guint dim, guint64 generation);
SbPlotSnapshot *sb_plot_snapshot_ref (SbPlotSnapshot *snap);
void sb_plot_snapshot_unref (SbPlotSnapshot *snap);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPlotSnapshot, sb_plot_snapshot_unref)
/* After this the setters refuse to modify the snapshot (g_return_if_fail). */
void sb_plot_snapshot_freeze (SbPlotSnapshot *snap);
gboolean sb_plot_snapshot_is_frozen (const SbPlotSnapshot *snap);

/* -- setters (worker side, before freeze); arrays are copied -- */

/* Name (with unit, e.g. "gain [dB]") and box bounds of parameter I. */
void sb_plot_snapshot_set_parameter (SbPlotSnapshot *snap, guint i,
                                     const char *name, double lo, double hi);
/* Parameter I's scale and (categorical) level names. The snapshot's
 * coordinates along a log-scale parameter (its range, grids, points) are
 * log10 of the values (sb_parameter_to_axis): the plots draw a log axis
 * labelled in natural units; integer parameters get whole-number ticks,
 * categorical ones their level names. Default: linear. */
void sb_plot_snapshot_set_parameter_scale (SbPlotSnapshot *snap, guint i, SbScale scale,
                                           const char *const *levels);
SbScale sb_plot_snapshot_get_parameter_scale (const SbPlotSnapshot *snap, guint i,
                                              const char *const **levels);
/* The 1-D curves vary input AXIS over the N values X; the other
 * coordinates are those of the best point (set_best). */
void sb_plot_snapshot_set_curve_grid (SbPlotSnapshot *snap, guint axis,
                                      gsize n, const double *x);
/* Per-point summaries of posterior method S at the curve grid (n entries). */
void sb_plot_snapshot_set_summaries (SbPlotSnapshot *snap, SbPosteriorMethod s,
                                     const sg_point_summary *summaries);
/* N_PATHS joint posterior sample paths at the grid (n_paths x n). */
void sb_plot_snapshot_set_sample_paths (SbPlotSnapshot *snap, gsize n_paths,
                                        const double *paths);
/* The true latent function at the grid (simulated oracles only). */
void sb_plot_snapshot_set_truth (SbPlotSnapshot *snap, const double *values);
/* How the legends name the main model's curves: "exact" (the default, the
 * SkewGP posterior) or the session's approximate surrogate ("Laplace",
 * "EP", "SVGP", "two-GP"), so an approximation is never labelled exact. */
void sb_plot_snapshot_set_model_label (SbPlotSnapshot *snap, const char *label);
const char *sb_plot_snapshot_get_model_label (const SbPlotSnapshot *snap);
/* The acquisition function at the grid, its name ("EIIG", "UCB", ...) and
 * its maximiser (dim coordinates; NULL = unknown). */
void sb_plot_snapshot_set_acquisition (SbPlotSnapshot *snap, const char *name,
                                       const double *values,
                                       const double *x_max);
/* Safe mode: P(f(x) >= h) at the grid and the required probability (0.7). */
void sb_plot_snapshot_set_validity (SbPlotSnapshot *snap, const double *p_valid,
                                    double required);
void sb_plot_snapshot_add_observation (SbPlotSnapshot *snap, sg_obs_kind kind,
                                       const double *x, const double *x_loser,
                                       double y);
/* The current best x_r (dim). */
void sb_plot_snapshot_set_best (SbPlotSnapshot *snap, const double *x_r);
/* The next query: a duel (x_a vs x_b) or a single point (x_b = NULL). */
void sb_plot_snapshot_set_next (SbPlotSnapshot *snap, const double *x_a,
                                const double *x_b);
/* The 2-D slice: input axes AXIS_X, AXIS_Y; FIXED (dim) holds the values of
 * the other coordinates (the best point, or what the sliders chose). */
void sb_plot_snapshot_set_slice (SbPlotSnapshot *snap, guint axis_x,
                                 guint axis_y, const double *fixed);
/* Field F of posterior method S on the slice (mean and sd exist for all three,
 * the others for the exact posterior). Takes a reference. */
void sb_plot_snapshot_set_field (SbPlotSnapshot *snap, SbField f,
                                 SbPosteriorMethod s, SbGrid2 *grid);
/* Convergence: best value found after each of N iterations and, for a
 * simulated oracle, the true optimum (NaN = unknown). */
void sb_plot_snapshot_set_convergence (SbPlotSnapshot *snap, gsize n,
                                       const double *best_so_far,
                                       double true_best);
/* Hyperparameter history: N_ITER rows of N_HYPER values (names as given,
 * e.g. "lengthscale 1", "variance"). */
void sb_plot_snapshot_set_hyper_history (SbPlotSnapshot *snap, gsize n_iter,
                                         gsize n_hyper,
                                         const char *const *names,
                                         const double *values);

/* The study the data come from: its mode, and whether a known objective
 * (a benchmark problem) stands behind it; the plots say from these why a
 * view has no data (no P(valid) outside safe mode, no convergence without
 * values or a known objective). */
void sb_plot_snapshot_set_study (SbPlotSnapshot *snap, sg_bo_mode mode,
                                 gboolean known_objective);

/* -- getters (view side) -- */

sg_bo_mode sb_plot_snapshot_get_mode (const SbPlotSnapshot *snap,
                                      gboolean *known_objective);

guint sb_plot_snapshot_get_dim (const SbPlotSnapshot *snap);
guint64 sb_plot_snapshot_get_generation (const SbPlotSnapshot *snap);
const char *sb_plot_snapshot_get_parameter (const SbPlotSnapshot *snap,
                                            guint i, double *lo, double *hi);
/* Curve grid: returns n; AXIS and X may be NULL. */
gsize sb_plot_snapshot_get_curve_grid (const SbPlotSnapshot *snap, guint *axis,
                                       const double **x);
const sg_point_summary *sb_plot_snapshot_get_summaries (const SbPlotSnapshot *snap,
                                                        SbPosteriorMethod s);
const double *sb_plot_snapshot_get_sample_paths (const SbPlotSnapshot *snap,
                                                 gsize *n_paths);
const double *sb_plot_snapshot_get_truth (const SbPlotSnapshot *snap);
const double *sb_plot_snapshot_get_acquisition (const SbPlotSnapshot *snap,
                                                const char **name,
                                                const double **x_max);
const double *sb_plot_snapshot_get_validity (const SbPlotSnapshot *snap,
                                             double *required);
gsize sb_plot_snapshot_get_n_observations (const SbPlotSnapshot *snap);
const SbObservation *sb_plot_snapshot_get_observation (const SbPlotSnapshot *snap,
                                                       gsize i);
const double *sb_plot_snapshot_get_best (const SbPlotSnapshot *snap);
const double *sb_plot_snapshot_get_next (const SbPlotSnapshot *snap,
                                         const double **x_b);
gboolean sb_plot_snapshot_get_slice (const SbPlotSnapshot *snap, guint *axis_x,
                                     guint *axis_y, const double **fixed);
SbGrid2 *sb_plot_snapshot_get_field (const SbPlotSnapshot *snap, SbField f,
                                     SbPosteriorMethod s);
gsize sb_plot_snapshot_get_convergence (const SbPlotSnapshot *snap,
                                        const double **best_so_far,
                                        double *true_best);
gsize sb_plot_snapshot_get_hyper_history (const SbPlotSnapshot *snap,
                                          gsize *n_hyper,
                                          const char *const **names,
                                          const double **values);

/* ---- Predictive density at a clicked point ----------------------------- */

typedef struct _SbDensityData SbDensityData;

#define SB_TYPE_DENSITY_DATA (sb_density_data_get_type ())
GType sb_density_data_get_type (void) G_GNUC_CONST;
/* Density of f(x) at X (dim), or of f(x) - f(x_r) when DIFFERENCE. */
SbDensityData *sb_density_data_new (guint dim, const double *x,
                                    gboolean difference, guint64 generation);
SbDensityData *sb_density_data_ref (SbDensityData *d);
void sb_density_data_unref (SbDensityData *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbDensityData, sb_density_data_unref)
void sb_density_data_freeze (SbDensityData *d);
/* K values at which the densities are given (increasing). */
void sb_density_data_set_grid (SbDensityData *d, gsize k, const double *values);
/* Density of posterior method S at the grid (exact: the kernel/Rao-Blackwell
 * estimate, Laplace/EP: their Gaussians). */
void sb_density_data_set_density (SbDensityData *d, SbPosteriorMethod s,
                                  const double *density);
/* Raw exact posterior samples, drawn as a histogram. */
void sb_density_data_set_samples (SbDensityData *d, gsize n,
                                  const double *samples);

guint sb_density_data_get_dim (const SbDensityData *d);
const double *sb_density_data_get_x (const SbDensityData *d);
gboolean sb_density_data_get_difference (const SbDensityData *d);
guint64 sb_density_data_get_generation (const SbDensityData *d);
gsize sb_density_data_get_grid (const SbDensityData *d, const double **values);
const double *sb_density_data_get_density (const SbDensityData *d, SbPosteriorMethod s);
const double *sb_density_data_get_samples (const SbDensityData *d, gsize *n);

G_END_DECLS
