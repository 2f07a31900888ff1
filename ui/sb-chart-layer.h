/* sb-chart-layer.h — one drawable layer of an SbChart.
 *
 * A layer widget draws one SbLayer (or, for the chart's first child, the
 * axes, titles and legend) in its snapshot through Cairo. GTK keeps a
 * widget's render node until the widget is queued for drawing, so a layer
 * whose data did not change is not redrawn when a new result arrives or
 * the pointer moves: sb_chart_layer_set_layer() queues a draw only when
 * the new layer differs (sb_layer_equal).
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-render.h"

G_BEGIN_DECLS

#define SB_TYPE_LAYER (sb_layer_get_type ())
GType sb_layer_get_type (void) G_GNUC_CONST;

#define SB_TYPE_CHART_LAYER (sb_chart_layer_get_type ())
G_DECLARE_FINAL_TYPE (SbChartLayer, sb_chart_layer, SB, CHART_LAYER, GtkWidget)

/* A data layer (LAYER non-NULL) or the axes layer (LAYER NULL). */
GtkWidget *sb_chart_layer_new (SbLayer *layer);
SbLayer *sb_chart_layer_get_layer (SbChartLayer *self);
/* Replaces the layer; notifies "layer" and queues a draw only if it draws
 * something different. Returns TRUE when it did. */
gboolean sb_chart_layer_set_layer (SbChartLayer *self, SbLayer *layer);
gboolean sb_chart_layer_is_axes (SbChartLayer *self);
/* How many times the layer has been drawn (a diagnostic for tests and the
 * redraw benchmark). */
guint sb_chart_layer_get_draw_count (SbChartLayer *self);

G_END_DECLS
