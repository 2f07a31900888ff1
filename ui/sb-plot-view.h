/* sb-plot-view.h — one plot of the workbench: a chart plus its controls.
 *
 * The application feeds it data and listens for requests:
 *
 *   sb_plot_view_set_snapshot (view, snap)   after each worker result (a
 *       frozen SbPlotSnapshot; an older generation than the one shown is
 *       ignored). Only layers whose data changed are redrawn.
 *   sb_plot_view_set_density (view, density) the predictive density at a
 *       clicked point (SB_PLOT_DENSITY).
 *   ::point-activated (GVariant "ad")        the user clicked a point: its
 *       full coordinates (the clicked axis/axes, the other coordinates at
 *       the best point or the slice) — e.g. compute its density.
 *   ::slice-changed                          the user chose other axes or
 *       moved a slider of a 2-D slice (d > 2); read sb_plot_view_get_slice()
 *       and recompute the 2-D fields.
 *
 * Controls: which plot (kind) and 2-D field, "compare" toggles for Laplace
 * and EP, sample paths, the true function, reset zoom, export to PNG (at
 * a chosen scale), SVG or PDF, and for d > 2 the slice popover (axes and
 * sliders).
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-chart.h"
#include "sb-plot-data.h"
#include "sb-render-views.h"

G_BEGIN_DECLS

#define SB_TYPE_PLOT_KIND (sb_plot_kind_get_type ())
GType sb_plot_kind_get_type (void) G_GNUC_CONST;
#define SB_TYPE_FIELD (sb_field_get_type ())
GType sb_field_get_type (void) G_GNUC_CONST;

#define SB_TYPE_PLOT_VIEW (sb_plot_view_get_type ())
G_DECLARE_FINAL_TYPE (SbPlotView, sb_plot_view, SB, PLOT_VIEW, GtkBox)

GtkWidget *sb_plot_view_new (SbPlotKind kind);

void sb_plot_view_set_snapshot (SbPlotView *self, SbPlotSnapshot *snap);
SbPlotSnapshot *sb_plot_view_get_snapshot (SbPlotView *self);
void sb_plot_view_set_density (SbPlotView *self, SbDensityData *density);

void sb_plot_view_set_kind (SbPlotView *self, SbPlotKind kind);
SbPlotKind sb_plot_view_get_kind (SbPlotView *self);
void sb_plot_view_set_field (SbPlotView *self, SbField field);
SbField sb_plot_view_get_field (SbPlotView *self);
/* Overlay of the posterior method S (SB_POSTERIOR_LAPLACE or _EP). */
void sb_plot_view_set_compare (SbPlotView *self, SbPosteriorMethod s, gboolean on);
gboolean sb_plot_view_get_compare (SbPlotView *self, SbPosteriorMethod s);

/* The slice the user chose: axes and the fixed coordinates (FIXED has dim
 * entries; may be NULL). FALSE before a snapshot with d >= 2 arrived. */
gboolean sb_plot_view_get_slice (SbPlotView *self, guint *axis_x,
                                 guint *axis_y, double *fixed);

SbChart *sb_plot_view_get_chart (SbPlotView *self);

/* Writes the plot as laid out on screen (at least 480 x 320) to PATH; a PNG
 * has SCALE times as many pixels each way (the export dialog offers 1x, 2x,
 * 3x and 300 DPI). */
gboolean sb_plot_view_export (SbPlotView *self, const char *path, double scale,
                              GError **error);

G_END_DECLS
