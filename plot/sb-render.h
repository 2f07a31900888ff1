/* sb-render.h — the pure plotting toolkit: scenes of layers drawn on any
 * cairo_t (image, SVG, PDF, or a GtkSnapshot's Cairo node).
 *
 * No widget code lives here, so every plot can be rendered and checked
 * without a display (tests/test-plot-render.c). The widgets (sb-chart.c,
 * sb-chart-layer.c) wrap the same objects: one SbChartLayer widget per
 * SbLayer, after Sysprof's chart / chart-layer split.
 *
 *   SbPalette  theme colours (filled from the widget's style or a preset);
 *              layers only name a role (SbRole), so a theme switch needs no
 *              rebuild of the data.
 *   SbLayer    one immutable, refcounted drawable: a line, band, markers,
 *              duel links, heatmap, contours, histogram, reference line.
 *              Its data are copied and normalised once at creation (e.g. a
 *              heatmap's colour image); sb_layer_equal() says whether a
 *              redraw is needed when a new result arrives.
 *   SbScene    axes (titles, ranges, zoom, log y), legend, colour bar and
 *              an ordered list of layers.
 *   SbFrame    the mapping between data and device coordinates, computed by
 *              sb_scene_layout() for a given size.
 */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  double r, g, b, a;
} SbColor;

/* Classes with a colour of their own: SB_ROLE_CLASS_0 + k. */
#define SB_N_CLASS_ROLES 3

/* What a layer draws with; resolved against the palette at draw time. */
typedef enum {
  SB_ROLE_FOREGROUND = 0,
  SB_ROLE_EXACT,
  SB_ROLE_LAPLACE,
  SB_ROLE_EP,
  SB_ROLE_TRUTH,
  SB_ROLE_OBSERVATION,
  SB_ROLE_VALID,
  SB_ROLE_INVALID,
  SB_ROLE_BEST,
  SB_ROLE_NEXT,
  SB_ROLE_ACQUISITION,
  SB_ROLE_CLASS_0,       /* the classes of a classifier (SB_N_CLASS_ROLES) */
  SB_ROLE_SERIES_0 = SB_ROLE_CLASS_0 + SB_N_CLASS_ROLES,  /* categorical series ... */
  SB_N_ROLES = SB_ROLE_SERIES_0 + 8,
} SbRole;

typedef struct {
  gboolean dark;
  SbColor background;   /* export background; widgets draw on the theme's */
  SbColor foreground;   /* text, axes                                     */
  SbColor grid;         /* grid lines                                     */
  SbColor legend_bg;    /* hover box / legend background                  */
  SbColor roles[SB_N_ROLES];
} SbPalette;

/* Presets tuned for light and dark backgrounds (Okabe-Ito hues, which stay
 * distinguishable under the common colour-vision deficiencies; the class
 * colours are Paul Tol's high-contrast scheme, distinct in hue and in
 * lightness, so also in grey). */
void sb_palette_init_light (SbPalette *palette);
void sb_palette_init_dark (SbPalette *palette);
/* From the theme's foreground colour: picks the light or dark preset by the
 * foreground's luminance and takes the text colour from the theme. */
void sb_palette_init_from_foreground (SbPalette *palette, const SbColor *fg);
const SbColor *sb_palette_role (const SbPalette *palette, SbRole role);

/* ---- Numbers on axes --------------------------------------------------- */

/* Heckbert's "nice number" (Graphics Gems I, 1990): a number of the form
 * {1, 2, 5} x 10^k close to X (ROUND) or not smaller than X (!ROUND). */
double sb_nice_number (double x, gboolean round);

/* Ticks for [LO, HI] with about TARGET intervals, step 1-2-5 x 10^k.
 * Writes at most MAX tick values inside [LO, HI] (up to a rounding slack)
 * and the number of decimals needed to print them. With LOOSE the range is
 * first widened outward to multiples of the step (*LO, *HI updated); an
 * empty range (LO == HI) is widened around its value (likewise updated). */
int sb_ticks (double *lo, double *hi, int target, gboolean loose,
              double *ticks, int max, int *decimals);
/* Ticks of a log10 axis on [LO, HI] (both > 0): decades, and 2 and 5 x
 * decade when the range spans fewer than about three decades. */
int sb_ticks_log (double lo, double hi, double *ticks, int max);
/* Prints a tick value: fixed with DECIMALS digits, or %g for very large or
 * small magnitudes; "-0" is printed as "0". */
void sb_format_tick (double v, int decimals, char *buf, gsize size);

/* ---- Colour maps -------------------------------------------------------- */

typedef enum {
  SB_COLORMAP_VIRIDIS = 0,  /* sequential, perceptually uniform           */
  SB_COLORMAP_COOLWARM,     /* diverging, Moreland's Msh interpolation,   */
                            /* centred: t = 0.5 is the neutral grey        */
} SbColormap;

/* Colour at T in [0, 1] (clamped; NaN gives transparent). */
void sb_colormap_eval (SbColormap map, double t, SbColor *out);

/* ---- Contours ----------------------------------------------------------- */

/* Marching squares on a regular grid: VALUES has NY rows of NX values,
 * value (i, j) at x = x0 + i (x1 - x0) / (NX - 1), y = y0 + j (...).
 * Calls SEGMENT once per line segment of the LEVEL set, in data units.
 * Saddle cells are resolved by the cell-centre average. Cells with a NaN
 * corner are skipped. Returns the number of segments. */
typedef void (*SbSegmentFunc) (double ax, double ay, double bx, double by,
                               gpointer user_data);
gsize sb_contour_segments (const double *values, guint nx, guint ny,
                           double x0, double x1, double y0, double y1,
                           double level, SbSegmentFunc segment,
                           gpointer user_data);

/* The same level set joined into polylines: segments sharing an end point
 * (the crossing on an edge two cells share) are chained, so each contour is
 * one path (continuous dash patterns, one join per vertex). Appends the
 * points (x, y pairs of doubles) to POINTS and each polyline's number of
 * points (guint) to LENGTHS; a closed contour repeats its first point at
 * the end. Returns the number of polylines appended. */
gsize sb_contour_lines (const double *values, guint nx, guint ny, double x0,
                        double x1, double y0, double y1, double level,
                        GArray *points, GArray *lengths);

/* ---- Frame --------------------------------------------------------------- */

/* Where the legend goes: in rows above the plot, in a column to its
 * right (when rows would take too much of the height), or nowhere (no
 * labelled layer). */
typedef enum {
  SB_LEGEND_NONE = 0,
  SB_LEGEND_TOP,
  SB_LEGEND_RIGHT,
} SbLegendPlace;

typedef struct {
  double width, height;            /* whole drawing                         */
  double px, py, pw, ph;           /* plot area in device units             */
  double x0, x1, y0, y1;           /* data range shown                      */
  gboolean y_log;                  /* y0, y1 are then log10 of the range    */
  double magnify;                  /* text, lines and markers (SbView)      */
  SbLegendPlace legend;            /* the legend's place ...                */
  double lx, ly, lw, lh;           /* ... and box (device units)            */
  double legend_scale;             /* its text size, x the base size        */
} SbFrame;

double sb_frame_x_to_device (const SbFrame *frame, double x);
double sb_frame_y_to_device (const SbFrame *frame, double y);
double sb_frame_x_from_device (const SbFrame *frame, double dx);
double sb_frame_y_from_device (const SbFrame *frame, double dy);
gboolean sb_frame_contains (const SbFrame *frame, double dx, double dy);

/* ---- Layers ------------------------------------------------------------- */

typedef enum {
  SB_LAYER_LINE = 0,     /* polyline y(x); NaN breaks the line             */
  SB_LAYER_STEP,         /* staircase: y(x_i) holds until x_{i+1}          */
  SB_LAYER_BAND,         /* filled region between y (lower) and y2 (upper) */
  SB_LAYER_MARKERS,      /* one marker per (x, y); NaN y: on the bottom edge */
  SB_LAYER_LINKS,        /* segments (x, y) -> (x2, y2) with markers at both ends */
  SB_LAYER_HEATMAP,      /* grid image with a colour map                   */
  SB_LAYER_CONTOURS,     /* level lines of a grid                          */
  SB_LAYER_HISTOGRAM,    /* bars: edges x[0..n], heights y[0..n-1]         */
  SB_LAYER_VLINE,        /* vertical line at x[0]                          */
  SB_LAYER_HLINE,        /* horizontal line at y[0]                        */
  SB_LAYER_CLASSMAP,     /* grid image: the most probable class's colour,
                            paler where it is less probable               */
} SbLayerKind;

typedef enum {
  SB_MARKER_CIRCLE = 0,
  SB_MARKER_TRIANGLE_UP,
  SB_MARKER_TRIANGLE_DOWN,
  SB_MARKER_SQUARE,
  SB_MARKER_DIAMOND,
  SB_MARKER_CROSS,
  SB_MARKER_STAR,
} SbMarker;

typedef enum {
  SB_DASH_SOLID = 0,
  SB_DASH_DASHED,
  SB_DASH_DOTTED,
  SB_DASH_DASHDOT,
} SbDash;

/* Style of a layer. Unused fields are ignored by kinds that do not need
 * them (e.g. marker for a band). */
typedef struct {
  SbRole role;
  double alpha;        /* 0..1, multiplies the role colour's alpha         */
  double line_width;   /* device units (points in SVG/PDF)                  */
  SbDash dash;
  SbMarker marker;     /* MARKERS, LINKS: marker at (x, y)                  */
  SbMarker marker2;    /* LINKS: marker at (x2, y2)                         */
  double marker_size;  /* radius-like size in device units                  */
  gboolean filled;     /* marker at (x, y) filled (LINKS: end 2 hollow)     */
  gboolean ends_alike; /* LINKS: end 2 filled as end 1 (a symmetric pair)   */
} SbStyle;

void sb_style_init (SbStyle *style, SbRole role);
/* A line or band of ROLE: WIDTH device units, DASH, ALPHA. */
SbStyle sb_style_line (SbRole role, double width, SbDash dash, double alpha);
/* Markers of ROLE (both ends of a link): MARKER of SIZE, FILLED or hollow. */
SbStyle sb_style_marker (SbRole role, SbMarker marker, double size, gboolean filled);

typedef struct _SbLayer SbLayer;

SbLayer *sb_layer_ref (SbLayer *layer);
void sb_layer_unref (SbLayer *layer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbLayer, sb_layer_unref)

/* Constructors copy the arrays. ID names the layer within its scene (used to
 * match layers across updates); LABEL is the legend text (NULL: no legend
 * entry) and the name in hover read-outs. */
SbLayer *sb_layer_new_xy (SbLayerKind kind, const char *id, const char *label,
                          const SbStyle *style, gsize n, const double *x,
                          const double *y, const double *x2, const double *y2);
SbLayer *sb_layer_new_line (const char *id, const char *label,
                            const SbStyle *style, gsize n, const double *x,
                            const double *y);
/* N_ROWS polylines over the same X (Y is n_rows x n, row-major), drawn in
 * one style, e.g. posterior sample paths. */
SbLayer *sb_layer_new_lines (const char *id, const char *label,
                             const SbStyle *style, gsize n, const double *x,
                             gsize n_rows, const double *y);
SbLayer *sb_layer_new_band (const char *id, const char *label,
                            const SbStyle *style, gsize n, const double *x,
                            const double *lower, const double *upper);
SbLayer *sb_layer_new_markers (const char *id, const char *label,
                               const SbStyle *style, gsize n,
                               const double *x, const double *y);
SbLayer *sb_layer_new_links (const char *id, const char *label,
                             const SbStyle *style, gsize n, const double *x,
                             const double *y, const double *x2,
                             const double *y2);
SbLayer *sb_layer_new_rule (SbLayerKind kind, const char *id,
                            const char *label, const SbStyle *style,
                            double value);
/* N bars: EDGES has N + 1 entries, HEIGHTS N. */
SbLayer *sb_layer_new_histogram (const char *id, const char *label,
                                 const SbStyle *style, gsize n,
                                 const double *edges, const double *heights);
/* Heatmap of a grid (NY rows of NX values, layout as sb_contour_segments)
 * over [X0, X1] x [Y0, Y1]; VMIN..VMAX maps onto the colour map (for the
 * diverging map pass a range symmetric about the centre value). The colour
 * image is computed once, when the layer is first drawn. */
SbLayer *sb_layer_new_heatmap (const char *id, const char *label,
                               guint nx, guint ny, const double *values,
                               double x0, double x1, double y0, double y1,
                               SbColormap map, double vmin, double vmax);
/* The most probable class of a grid of class probabilities (PROBS: the
 * NX x NY nodes in the heatmap's layout, N_CLASSES probabilities each,
 * 2 <= N_CLASSES <= SB_N_CLASS_ROLES): node colour = the background mixed
 * with the class's colour (SB_ROLE_CLASS_0 + k) in proportion to how far
 * its probability is above 1 / N_CLASSES (white, or the dark background,
 * where every class is equally likely; at most SB_CLASSMAP_TINT of the
 * class colour, so that points drawn in the full colour stand out). A
 * colour bar shows one strip per class over P from 1 / N_CLASSES to 1. */
#define SB_CLASSMAP_TINT 0.7
SbLayer *sb_layer_new_classmap (const char *id, const char *label, guint nx, guint ny,
                                guint n_classes, const double *probs, double x0, double x1,
                                double y0, double y1);
/* Contour lines of the same kind of grid at N_LEVELS levels. */
SbLayer *sb_layer_new_contours (const char *id, const char *label,
                                const SbStyle *style, guint nx, guint ny,
                                const double *values, double x0, double x1,
                                double y0, double y1, gsize n_levels,
                                const double *levels);

/* Whether the layer names its value under the pointer in hover read-outs
 * (default TRUE); set before the layer is shown. */
void sb_layer_set_readout (SbLayer *layer, gboolean readout);

SbLayerKind sb_layer_get_kind (const SbLayer *layer);
const char *sb_layer_get_id (const SbLayer *layer);
const char *sb_layer_get_label (const SbLayer *layer);
const SbStyle *sb_layer_get_style (const SbLayer *layer);
gsize sb_layer_get_n (const SbLayer *layer);
/* Data extent (finite values only); FALSE when the layer has none
 * (reference lines contribute only along their own axis). */
gboolean sb_layer_get_extent (const SbLayer *layer, double *x0, double *x1,
                              double *y0, double *y1);
/* TRUE when A and B draw the same thing (kind, style, label, data). */
gboolean sb_layer_equal (const SbLayer *a, const SbLayer *b);
/* Draws the layer inside FRAME's plot area (clipped to it). */
void sb_layer_render (const SbLayer *layer, cairo_t *cr, const SbFrame *frame,
                      const SbPalette *palette);
/* Appends a one-line read-out of the layer at data point (X, Y) to OUT
 * ("label: value"); FALSE (nothing appended) if it has nothing to say
 * there. */
gboolean sb_layer_describe (const SbLayer *layer, const SbFrame *frame,
                            double x, double y, GString *out);

/* ---- Scenes ------------------------------------------------------------- */

typedef struct _SbScene SbScene;

SbScene *sb_scene_new (const char *title, const char *x_label,
                       const char *y_label);
SbScene *sb_scene_ref (SbScene *scene);
void sb_scene_unref (SbScene *scene);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbScene, sb_scene_unref)

/* Takes ownership of LAYER (drawn in the order added). */
void sb_scene_take_layer (SbScene *scene, SbLayer *layer);
guint sb_scene_get_n_layers (const SbScene *scene);
SbLayer *sb_scene_get_layer (const SbScene *scene, guint i);
SbLayer *sb_scene_find_layer (const SbScene *scene, const char *id);
const char *sb_scene_get_title (const SbScene *scene);
const char *sb_scene_get_subtitle (const SbScene *scene);

/* Fixed data ranges (NaN = automatic from the layers' extents, padded;
 * y is widened to nice tick multiples). */
void sb_scene_set_x_range (SbScene *scene, double x0, double x1);
void sb_scene_set_y_range (SbScene *scene, double y0, double y1);
void sb_scene_set_y_log (SbScene *scene, gboolean y_log);
/* How an axis's coordinates read. LOG10: they are log10 of the values
 * (ticks at nice values, labelled in natural units); INTEGER: ticks at
 * whole numbers only; LEVELS: a tick at each whole number 0 .. n - 1
 * labelled with LEVELS[i] (copied). Default LINEAR. */
typedef enum {
  SB_AXIS_LINEAR = 0,
  SB_AXIS_LOG10,
  SB_AXIS_INTEGER,
  SB_AXIS_LEVELS,
} SbAxisScale;
void sb_scene_set_axis_scale (SbScene *scene, gboolean y_axis, SbAxisScale scale,
                              const char *const *levels);
/* The tick labels an axis of SCENE shows in FRAME (sb_scene_layout),
 * left to right or bottom to top; free with g_strfreev. */
char **sb_scene_tick_labels (const SbScene *scene, const SbFrame *frame, gboolean y_axis);
/* Equal data units on both axes (2-D views). */
void sb_scene_set_aspect_equal (SbScene *scene, gboolean equal);
/* A colour bar for the heatmap layer LAYER_ID, with a title. */
void sb_scene_set_colorbar (SbScene *scene, const char *layer_id,
                            const char *label);
/* A note printed under the title (e.g. the fixed coordinates of a slice). */
void sb_scene_set_subtitle (SbScene *scene, const char *subtitle);

/* Zoom: the data window shown (NaN components keep the automatic value).
 * The view is not part of the data: it survives sb_chart_set_scene. */
typedef struct {
  double x0, x1, y0, y1;
  /* Text, line widths and markers drawn this many times larger (a
   * projector's presentation mode); not part of the zoom. */
  double magnify;
} SbView;

/* Automatic ranges at magnification 1. */
void sb_view_init_auto (SbView *view);
/* TRUE when VIEW zooms nowhere (whatever its magnification). */
gboolean sb_view_is_auto (const SbView *view);

/* Computes the frame for a WIDTH x HEIGHT drawing. CR is used only to
 * measure text. */
void sb_scene_layout (const SbScene *scene, const SbView *view, cairo_t *cr,
                      double width, double height, SbFrame *frame);
/* Background (when DRAW_BACKGROUND), grid, axes, tick labels, titles,
 * legend and colour bar: everything but the layers. */
void sb_scene_render_axes (const SbScene *scene, cairo_t *cr,
                           const SbFrame *frame, const SbPalette *palette,
                           gboolean draw_background);
/* The whole plot: axes, then every layer. */
void sb_scene_render (const SbScene *scene, const SbView *view, cairo_t *cr,
                      double width, double height, const SbPalette *palette,
                      gboolean draw_background);

/* Hover read-out at device point (DX, DY): "x = …, y = …" then one line per
 * layer with something to say. NULL outside the plot area. */
char *sb_scene_hover_text (const SbScene *scene, const SbFrame *frame,
                           double dx, double dy);
/* Crosshair plus the read-out box near (DX, DY), kept inside the drawing. */
void sb_scene_render_hover (const SbScene *scene, cairo_t *cr,
                            const SbFrame *frame, const SbPalette *palette,
                            double dx, double dy);

typedef enum {
  SB_EXPORT_PNG = 0,
  SB_EXPORT_SVG,
  SB_EXPORT_PDF,
} SbExportFormat;

/* Format from a file name's extension (.png, .svg, .pdf); FALSE if none. */
gboolean sb_export_format_from_path (const char *path, SbExportFormat *format);
/* Renders the scene with a background to a file. The scene is laid out on
 * WIDTH x HEIGHT (pixels at 1x, points for SVG/PDF); a PNG has
 * ceil(WIDTH * SCALE) x ceil(HEIGHT * SCALE) pixels, everything drawn SCALE
 * times larger (text, lines and markers too: the same picture, sharper), so
 * SCALE 2 is a HiDPI copy of the on-screen plot and 300/96 a 300 DPI print
 * of it. Vector formats are resolution-free and ignore SCALE. */
gboolean sb_scene_export (const SbScene *scene, const SbView *view,
                          const SbPalette *palette, const char *path,
                          SbExportFormat format, double width, double height,
                          double scale, GError **error);

G_END_DECLS
