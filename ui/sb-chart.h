/* sb-chart.h — a chart: a container of SbChartLayer widgets drawing one
 * SbScene, with hover read-outs, zoom and export.
 *
 * Interaction:
 *   hover              crosshair and a read-out of every layer at the pointer
 *   drag (button 1)    zoom to the dragged range (x; y too when the drag is
 *                      also tall)
 *   click              "point-clicked" with the data coordinates
 *   double-click       reset the zoom
 *   Ctrl + scroll      zoom in / out around the pointer
 * Colours follow the theme: the palette is rebuilt from the widget's
 * foreground colour when the theme changes (light / dark).
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-render.h"

G_BEGIN_DECLS

#define SB_TYPE_SCENE (sb_scene_get_type ())
GType sb_scene_get_type (void) G_GNUC_CONST;

#define SB_TYPE_CHART (sb_chart_get_type ())
G_DECLARE_FINAL_TYPE (SbChart, sb_chart, SB, CHART, GtkWidget)

GtkWidget *sb_chart_new (void);

/* Shows SCENE (may be NULL). Layers whose id and content are unchanged keep
 * their widget and their cached drawing; the zoom is kept. */
void sb_chart_set_scene (SbChart *self, SbScene *scene);
SbScene *sb_chart_get_scene (SbChart *self);

/* The zoom window (NaN components = automatic). */
void sb_chart_set_view (SbChart *self, const SbView *view);
void sb_chart_get_view (SbChart *self, SbView *view);
void sb_chart_reset_zoom (SbChart *self);
gboolean sb_chart_get_zoomed (SbChart *self);
/* Text, lines and markers MAGNIFY times larger (presentation mode: a
 * plot read from the back of a room); kept across scenes and zooms. */
void sb_chart_set_magnify (SbChart *self, double magnify);
double sb_chart_get_magnify (SbChart *self);

/* The frame of the last allocation (FALSE before the first one). */
gboolean sb_chart_get_frame (SbChart *self, SbFrame *frame);
const SbPalette *sb_chart_get_palette (SbChart *self);

/* Puts the hover read-out at widget point (X, Y) as if the pointer were
 * there (X < 0: no hover); returns the read-out text or NULL. */
char *sb_chart_hover_at (SbChart *self, double x, double y);

/* The layer widget for layer ID (NULL: none), e.g. to check redraws. */
GtkWidget *sb_chart_get_layer_widget (SbChart *self, const char *id);

/* Writes the chart as shown (zoom included) with the current theme's
 * colours on its background, laid out on WIDTH x HEIGHT; the format follows
 * PATH's extension (.png, .svg, .pdf); a PNG is drawn SCALE times larger
 * (see sb_scene_export). */
gboolean sb_chart_export (SbChart *self, const char *path, double width,
                          double height, double scale, GError **error);

G_END_DECLS
