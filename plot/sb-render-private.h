/* sb-render-private.h — internals shared by the sb-render-*.c files. */
#pragma once

#include "sb-render.h"

#include <pango/pangocairo.h>

struct _SbLayer
{
  gatomicrefcount ref;
  SbLayerKind kind;
  char *id;
  char *label;
  SbStyle style;

  /* Point data (LINE, STEP, BAND, MARKERS, LINKS, HISTOGRAM, rules). A LINE
   * may hold N_ROWS polylines sharing x: y is then n_rows x n. */
  gsize n;
  gsize n_rows;
  double *x, *y, *x2, *y2;

  /* Grid data (HEATMAP, CONTOURS). */
  guint nx, ny;
  double gx0, gx1, gy0, gy1;
  double *grid;
  SbColormap map;
  double vmin, vmax;
  cairo_surface_t *image;   /* HEATMAP: nx x ny colours, computed once;
                               CLASSMAP: once per palette               */
  guint n_classes;          /* CLASSMAP: grid holds n_classes           */
  guint8 *classes;          /*   probabilities per node, classes the     */
                            /*   most probable one                      */
  SbColor image_colors[SB_N_CLASS_ROLES + 1];   /* the palette colours */
                                                /* the image was made of */
  gboolean readout_off;     /* no hover read-out (sb_layer_set_readout) */
  gsize n_levels;
  double *levels;
  GArray *points;           /* CONTOURS: polyline points (x, y), once  */
  GArray *lengths;          /* CONTOURS: points per polyline (guint)   */
};

/* The heatmap layer's colour map and value range (for the colour bar);
 * a class map's range is [1 / n_classes, 1]. */
void _sb_layer_get_colormap (const SbLayer *layer, SbColormap *map,
                             double *vmin, double *vmax);
/* A HEATMAP or CLASSMAP: an image with a colour bar, not a legend entry. */
gboolean _sb_layer_is_image (const SbLayer *layer);
/* A class map's number of classes (0 for other layers) and the colour of
 * class K at probability P in PALETTE. */
guint _sb_layer_get_n_classes (const SbLayer *layer);
void _sb_classmap_color (const SbPalette *palette, guint n_classes, guint k, double p,
                         SbColor *out);

/* Text helpers: a layout in the plot font at SCALE x the base size. */
PangoLayout *_sb_text_layout (cairo_t *cr, const char *text, double scale,
                              gboolean bold);
void _sb_set_color (cairo_t *cr, const SbColor *c, double alpha);
void _sb_apply_dash (cairo_t *cr, SbDash dash, double line_width);
/* Path of marker SHAPE of size S centred at (X, Y), in device units. */
void _sb_marker_path (cairo_t *cr, SbMarker shape, double x, double y,
                      double s);
/* Draws one marker in the layer's manner (filled with an outline in the
 * background colour, or hollow). */
void _sb_draw_marker (cairo_t *cr, SbMarker shape, double x, double y,
                      double size, gboolean filled, const SbColor *c,
                      double alpha, const SbPalette *palette);
/* Small legend swatch for LAYER in the box (X, Y, W, H). */
void _sb_layer_render_swatch (const SbLayer *layer, cairo_t *cr, double x,
                              double y, double w, double h,
                              const SbPalette *palette);

#define SB_BASE_FONT_SIZE 9.0   /* points */

/* The frame's magnification (1 for a frame made without a view). */
static inline double
_sb_frame_magnify (const SbFrame *f)
{
  return f->magnify > 0 ? f->magnify : 1.0;
}

/* LAYER with its line widths and marker sizes M times larger: LAYER
 * itself at M = 1 and for a heatmap (whose colour image is cached on
 * it), else a shallow copy in *COPY, valid while LAYER is. */
const SbLayer *_sb_layer_magnified (const SbLayer *layer, double m, SbLayer *copy);
