/* sb-render-scene.c — a scene: axes, titles, legend, colour bar and the
 * layers; layout for a size, hover read-outs, export to PNG/SVG/PDF. */
#include "config.h"

#include "sb-render-private.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

struct _SbScene
{
  gatomicrefcount ref;
  char *title, *subtitle, *x_label, *y_label;
  GPtrArray *layers;
  double fx0, fx1, fy0, fy1;   /* fixed ranges (NaN = auto) */
  gboolean y_log;
  SbAxisScale axis_scale[2];   /* x, y */
  char **axis_levels[2];
  gboolean aspect_equal;
  char *colorbar_layer, *colorbar_label;
};

#define PAD 8.0
#define TICK 5.0
#define MAX_TICKS 64
#define SWATCH_W 22.0
#define COLORBAR_W 12.0

SbScene *
sb_scene_new (const char *title, const char *x_label, const char *y_label)
{
  SbScene *s = g_new0 (SbScene, 1);

  g_atomic_ref_count_init (&s->ref);
  s->title = g_strdup (title);
  s->x_label = g_strdup (x_label);
  s->y_label = g_strdup (y_label);
  s->layers = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_layer_unref);
  s->fx0 = s->fx1 = s->fy0 = s->fy1 = NAN;
  return s;
}

SbScene *
sb_scene_ref (SbScene *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  g_atomic_ref_count_inc (&s->ref);
  return s;
}

void
sb_scene_unref (SbScene *s)
{
  if (s == NULL || !g_atomic_ref_count_dec (&s->ref))
    return;
  g_free (s->title);
  g_free (s->subtitle);
  g_free (s->x_label);
  g_free (s->y_label);
  g_strfreev (s->axis_levels[0]);
  g_strfreev (s->axis_levels[1]);
  g_free (s->colorbar_layer);
  g_free (s->colorbar_label);
  g_ptr_array_unref (s->layers);
  g_free (s);
}

void
sb_scene_take_layer (SbScene *s, SbLayer *layer)
{
  g_return_if_fail (s != NULL && layer != NULL);
  g_ptr_array_add (s->layers, layer);
}

guint sb_scene_get_n_layers (const SbScene *s) { return s->layers->len; }

SbLayer *
sb_scene_get_layer (const SbScene *s, guint i)
{
  g_return_val_if_fail (i < s->layers->len, NULL);
  return g_ptr_array_index (s->layers, i);
}

SbLayer *
sb_scene_find_layer (const SbScene *s, const char *id)
{
  for (guint i = 0; i < s->layers->len; i++)
    {
      SbLayer *l = g_ptr_array_index (s->layers, i);
      if (g_strcmp0 (sb_layer_get_id (l), id) == 0)
        return l;
    }
  return NULL;
}

const char *sb_scene_get_title (const SbScene *s) { return s->title; }
const char *sb_scene_get_subtitle (const SbScene *s) { return s->subtitle; }

void
sb_scene_set_x_range (SbScene *s, double x0, double x1)
{
  s->fx0 = x0;
  s->fx1 = x1;
}

void
sb_scene_set_y_range (SbScene *s, double y0, double y1)
{
  s->fy0 = y0;
  s->fy1 = y1;
}

void sb_scene_set_y_log (SbScene *s, gboolean y_log) { s->y_log = y_log; }

void
sb_scene_set_axis_scale (SbScene *s, gboolean y_axis, SbAxisScale scale,
                         const char *const *levels)
{
  int k = y_axis ? 1 : 0;
  s->axis_scale[k] = scale;
  g_strfreev (s->axis_levels[k]);
  s->axis_levels[k] = scale == SB_AXIS_LEVELS ? g_strdupv ((char **) levels) : NULL;
}
void sb_scene_set_aspect_equal (SbScene *s, gboolean eq) { s->aspect_equal = eq; }

void
sb_scene_set_colorbar (SbScene *s, const char *layer_id, const char *label)
{
  g_free (s->colorbar_layer);
  g_free (s->colorbar_label);
  s->colorbar_layer = g_strdup (layer_id);
  s->colorbar_label = g_strdup (label);
}

void
sb_scene_set_subtitle (SbScene *s, const char *subtitle)
{
  g_free (s->subtitle);
  s->subtitle = g_strdup (subtitle);
}

void
sb_view_init_auto (SbView *v)
{
  v->x0 = v->x1 = v->y0 = v->y1 = NAN;
  v->magnify = 1;
}

gboolean
sb_view_is_auto (const SbView *v)
{
  return v == NULL || (isnan (v->x0) && isnan (v->x1) && isnan (v->y0) && isnan (v->y1));
}

/* ---- Text ---------------------------------------------------------------- */

PangoLayout *
_sb_text_layout (cairo_t *cr, const char *text, double scale, gboolean bold)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string ("Sans");

  pango_font_description_set_size (fd, (int) (SB_BASE_FONT_SIZE * scale * PANGO_SCALE));
  if (bold)
    pango_font_description_set_weight (fd, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, fd);
  pango_font_description_free (fd);
  pango_layout_set_text (layout, text ? text : "", -1);
  return layout;
}

/* TEXT's layout at SCALE x the base size, wrapped (between words, or
 * within a word that is longer than the line) at WRAP device units when
 * WRAP > 0, so no text is wider than the room given to it. */
static PangoLayout *
text_layout (cairo_t *cr, const char *text, double scale, gboolean bold, double wrap)
{
  PangoLayout *layout = _sb_text_layout (cr, text, scale, bold);

  if (wrap > 0)
    {
      pango_layout_set_width (layout, (int) (MAX (wrap, 1.0) * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
  return layout;
}

static void
text_size_wrapped (cairo_t *cr, const char *text, double scale, gboolean bold, double wrap,
                   double *w, double *h)
{
  PangoLayout *layout = text_layout (cr, text, scale, bold, wrap);
  int pw, ph;

  pango_layout_get_pixel_size (layout, &pw, &ph);
  *w = pw;
  *h = ph;
  g_object_unref (layout);
}

static void
text_size (cairo_t *cr, const char *text, double scale, gboolean bold,
           double *w, double *h)
{
  text_size_wrapped (cr, text, scale, bold, 0, w, h);
}

/* Draws TEXT (wrapped at WRAP when > 0) with its anchor point (X, Y) at
 * relative position (FX, FY) of its box: (0, 0) top-left, (0.5, 0.5)
 * centre, (1, 1) bottom-right. */
static void
draw_text_wrapped (cairo_t *cr, const char *text, double scale, gboolean bold, double wrap,
                   double x, double y, double fx, double fy, const SbColor *c)
{
  PangoLayout *layout = text_layout (cr, text, scale, bold, wrap);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  _sb_set_color (cr, c, 1.0);
  cairo_move_to (cr, round (x - fx * w), round (y - fy * h));
  pango_cairo_show_layout (cr, layout);
  cairo_new_path (cr);
  g_object_unref (layout);
}

static void
draw_text (cairo_t *cr, const char *text, double scale, gboolean bold,
           double x, double y, double fx, double fy, const SbColor *c)
{
  draw_text_wrapped (cr, text, scale, bold, 0, x, y, fx, fy, c);
}

/* ---- Ranges and ticks ---------------------------------------------------- */

static SbLayer *
colorbar_layer (const SbScene *s)
{
  if (s->colorbar_layer == NULL)
    return NULL;
  SbLayer *l = sb_scene_find_layer (s, s->colorbar_layer);
  return l && _sb_layer_is_image (l) ? l : NULL;
}

static void
data_extent (const SbScene *s, double *x0, double *x1, double *y0, double *y1)
{
  *x0 = *x1 = *y0 = *y1 = NAN;
  for (guint i = 0; i < s->layers->len; i++)
    {
      double a, b, c, d;
      if (!sb_layer_get_extent (g_ptr_array_index (s->layers, i), &a, &b, &c, &d))
        continue;
      if (s->y_log)
        {
          c = c > 0 ? log10 (c) : NAN;
          d = d > 0 ? log10 (d) : NAN;
        }
      if (!isnan (a)) { *x0 = isnan (*x0) ? a : MIN (*x0, a); }
      if (!isnan (b)) { *x1 = isnan (*x1) ? b : MAX (*x1, b); }
      if (!isnan (c)) { *y0 = isnan (*y0) ? c : MIN (*y0, c); }
      if (!isnan (d)) { *y1 = isnan (*y1) ? d : MAX (*y1, d); }
    }
}

static void
ensure_span (double *a, double *b, double fallback_lo, double fallback_hi)
{
  if (isnan (*a) || isnan (*b))
    {
      *a = fallback_lo;
      *b = fallback_hi;
    }
  if (*b <= *a)
    {
      double pad = *a == 0 ? 0.5 : fabs (*a) * 0.1;
      *a -= pad;
      *b += pad;
    }
}

static void
compute_ranges (const SbScene *s, const SbView *v, SbFrame *f)
{
  double x0, x1, y0, y1;
  data_extent (s, &x0, &x1, &y0, &y1);

  /* x: fixed, else the data extent with a little air for markers. */
  if (!isnan (s->fx0) && !isnan (s->fx1))
    {
      x0 = s->fx0;
      x1 = s->fx1;
    }
  else
    {
      ensure_span (&x0, &x1, 0, 1);
      double pad = 0.02 * (x1 - x0);
      x0 -= pad;
      x1 += pad;
    }
  ensure_span (&x0, &x1, 0, 1);

  /* y: fixed, else the extent padded and widened to nice ticks (in log10
   * units on a log axis). */
  if (!isnan (s->fy0) && !isnan (s->fy1))
    {
      y0 = s->y_log ? log10 (s->fy0) : s->fy0;
      y1 = s->y_log ? log10 (s->fy1) : s->fy1;
    }
  else
    {
      ensure_span (&y0, &y1, 0, 1);
      /* Non-negative data that reach down to about zero (densities,
       * probabilities, counts) keep zero as the axis floor. */
      gboolean floor_zero = !s->y_log && y0 >= 0 && y0 <= 0.05 * (y1 - y0);
      double pad = 0.04 * (y1 - y0);
      y0 = floor_zero ? 0 : y0 - pad;
      y1 += pad;
      if (!s->y_log)
        {
          double t[MAX_TICKS];
          /* Widen to the next multiple of a fine nice step only, so the
           * plot wastes at most about a tenth of its height. */
          sb_ticks (&y0, &y1, 10, TRUE, t, MAX_TICKS, NULL);
        }
    }
  ensure_span (&y0, &y1, 0, 1);

  /* The zoom window overrides whatever it sets. */
  if (v)
    {
      if (isfinite (v->x0) && isfinite (v->x1) && v->x1 > v->x0)
        {
          x0 = v->x0;
          x1 = v->x1;
        }
      if (isfinite (v->y0) && isfinite (v->y1) && v->y1 > v->y0)
        {
          y0 = s->y_log ? log10 (v->y0) : v->y0;
          y1 = s->y_log ? log10 (v->y1) : v->y1;
        }
    }
  f->x0 = x0; f->x1 = x1; f->y0 = y0; f->y1 = y1;
  f->y_log = s->y_log;
}

/* Every axis is read from at least this many labelled ticks: one tick
 * names a value, but only two or more give the scale and three show
 * that it is linear. */
#define MIN_TICKS 3

/* Linear ticks on [LO, HI] with about TARGET intervals, at least
 * MIN_TICKS of them: a nice step can leave a short range with one or two
 * ticks (e.g. [-0.04, 0.07] with a step of 0.1), so the target is raised
 * until the step is fine enough. */
static int
linear_ticks (double lo, double hi, int target, double *ticks, int *decimals)
{
  int n = 0;

  for (int t = target; t <= 4 * MAX (target, MIN_TICKS) && n < MIN_TICKS; t++)
    {
      double a = lo, b = hi;
      n = sb_ticks (&a, &b, t, FALSE, ticks, MAX_TICKS, decimals);
    }
  return n;
}

/* Ticks of a log10 axis on [10^LO, 10^HI] as values (LOG_POSITIONS:
 * as their log10 positions); a span shorter than a decade, with fewer
 * than MIN_TICKS of the 1-2-5 values, gets linear nice values. */
static int
log_ticks (double lo, double hi, gboolean log_positions, double *ticks)
{
  int n = sb_ticks_log (pow (10, lo), pow (10, hi), ticks, MAX_TICKS), dec;

  if (n < MIN_TICKS)
    n = linear_ticks (pow (10, lo), pow (10, hi), MIN_TICKS, ticks, &dec);
  for (int i = 0; log_positions && i < n; i++)
    ticks[i] = log10 (ticks[i]);
  return n;
}

/* Ticks of an axis whose coordinates are scaled (sb_scene_set_axis_scale):
 * log10 positions of nice values, whole numbers, or level indices. */
static int
scaled_ticks (const SbScene *s, int k, double lo, double hi, int target, double *ticks)
{
  int n = 0;
  if (s->axis_scale[k] == SB_AXIS_LOG10)
    return log_ticks (lo, hi, TRUE, ticks);
  if (s->axis_scale[k] == SB_AXIS_LEVELS)
    {
      guint n_levels = s->axis_levels[k] ? g_strv_length (s->axis_levels[k]) : 0;
      for (double v = MAX (0, ceil (lo)); v <= hi && v < n_levels && n < MAX_TICKS; v++)
        ticks[n++] = v;
      return n;
    }
  /* integers: the nice ticks that are whole, at least every whole number
   * when there are few */
  int dec;
  double t[MAX_TICKS];
  int m = linear_ticks (lo, hi, target, t, &dec);
  if (dec > 0 && hi - lo <= target)
    for (double v = ceil (lo); v <= hi && n < MAX_TICKS; v++)
      ticks[n++] = v;
  else
    for (int i = 0; i < m; i++)
      if (t[i] == round (t[i]))
        ticks[n++] = t[i];
  return n;
}

/* Tick values of an axis (data units) and the decimals to print them. */
static int
axis_ticks (const SbScene *s, const SbFrame *f, gboolean y_axis, double *ticks, int *decimals)
{
  double lo = y_axis ? f->y0 : f->x0, hi = y_axis ? f->y1 : f->x1;
  double text = y_axis ? 45 : 90;   /* device units per label, at 1x */
  int target = (int) ((y_axis ? f->ph : f->pw) / (text * _sb_frame_magnify (f)));

  *decimals = 0;
  target = CLAMP (target, 2, 10);
  if (y_axis && f->y_log)
    return log_ticks (lo, hi, FALSE, ticks);
  if (s->axis_scale[y_axis ? 1 : 0] != SB_AXIS_LINEAR)
    return scaled_ticks (s, y_axis ? 1 : 0, lo, hi, target, ticks);
  return linear_ticks (lo, hi, target, ticks, decimals);
}

static void
tick_label (const SbScene *s, const SbFrame *f, gboolean y_axis, double v, int decimals,
            char *buf, gsize size)
{
  int k = y_axis ? 1 : 0;
  if (y_axis && f->y_log)
    g_snprintf (buf, size, "%g", v);
  else if (s->axis_scale[k] == SB_AXIS_LOG10)
    g_snprintf (buf, size, "%g", pow (10, v));
  else if (s->axis_scale[k] == SB_AXIS_LEVELS)
    g_strlcpy (buf, s->axis_levels[k][(guint) v], size);
  else
    sb_format_tick (v, decimals, buf, size);
}

char **
sb_scene_tick_labels (const SbScene *s, const SbFrame *f, gboolean y_axis)
{
  double t[MAX_TICKS];
  int dec, n = axis_ticks (s, f, y_axis, t, &dec);
  char **labels = g_new0 (char *, n + 1);

  for (int i = 0; i < n; i++)
    {
      char buf[64];
      tick_label (s, f, y_axis, t[i], dec, buf, sizeof buf);
      labels[i] = g_strdup (buf);
    }
  return labels;
}

/* ---- Legend -------------------------------------------------------------- */

/* The legend's entries: the labelled layers, one per label (a label shared
 * by several layers, e.g. a band and its edges, is listed once); heatmaps
 * are read from the colour bar instead. */
static GPtrArray *
legend_entries (const SbScene *s)
{
  GPtrArray *entries = g_ptr_array_new ();

  for (guint i = 0; i < s->layers->len; i++)
    {
      SbLayer *l = g_ptr_array_index (s->layers, i);
      const char *label = sb_layer_get_label (l);
      gboolean dup = FALSE;

      if (label == NULL || _sb_layer_is_image (l))
        continue;
      for (guint k = 0; k < entries->len && !dup; k++)
        dup = g_strcmp0 (sb_layer_get_label (entries->pdata[k]), label) == 0;
      if (!dup)
        g_ptr_array_add (entries, l);
    }
  return entries;
}

/* Lays out ENTRIES with the first one's top-left at (X, Y) within WIDTH:
 * side by side in rows, or one per row (COLUMN); text at SCALE x the base
 * size, swatches and gaps at magnification M. A label that does not fit
 * beside its swatch wraps onto more lines: nothing is ever cut. Draws
 * the entries when PALETTE is set. Returns the height used and, in
 * *USED_W, the width of the widest row. */
static double
legend_place (GPtrArray *entries, cairo_t *cr, double x, double y, double width,
              gboolean column, double scale, double m, const SbPalette *palette,
              double *used_w)
{
  double sw = SWATCH_W * m, gap = 16 * m, line_h, w0;
  double cx = x, cy = y, row_h = 0, widest = 0;

  text_size (cr, "0", scale, FALSE, &w0, &line_h);
  for (guint i = 0; i < entries->len; i++)
    {
      SbLayer *l = entries->pdata[i];
      const char *label = sb_layer_get_label (l);
      double room = width - sw - 5 * m, tw, th;

      text_size_wrapped (cr, label, scale, FALSE, room, &tw, &th);
      double ew = sw + 5 * m + tw;
      if (cx > x && (column || cx + ew > x + width))
        {
          cx = x;
          cy += row_h + 3 * m;
          row_h = 0;
        }
      if (palette)
        {
          SbLayer copy;
          const SbLayer *shown = _sb_layer_magnified (l, m, &copy);
          _sb_layer_render_swatch (shown, cr, cx, cy, sw, line_h, palette);
          draw_text_wrapped (cr, label, scale, FALSE, room, cx + sw + 5 * m, cy, 0, 0,
                             &palette->foreground);
        }
      widest = MAX (widest, cx + ew - x);
      cx += ew + gap;
      row_h = MAX (row_h, th);
    }
  if (used_w)
    *used_w = widest;
  return entries->len ? cy - y + row_h : 0;
}

/* Heights of the title and subtitle, wrapped at WIDTH. */
static double
title_height (const SbScene *s, cairo_t *cr, double width, double m)
{
  double w, h = 0, th;

  if (s->title && *s->title)
    {
      text_size_wrapped (cr, s->title, 1.15 * m, TRUE, width, &w, &th);
      h += th;
    }
  if (s->subtitle && *s->subtitle)
    {
      text_size_wrapped (cr, s->subtitle, 0.9 * m, FALSE, width, &w, &th);
      h += 2 * m + th;
    }
  return h;
}

/* ---- Layout ---------------------------------------------------------------- */

/* The bar's width: a class map's has a strip of 6 units per class. */
static double
colorbar_width (const SbLayer *cb)
{
  guint n = _sb_layer_get_n_classes (cb);
  return n > 1 ? 6.0 * n : COLORBAR_W;
}

static double
colorbar_extra (const SbScene *s, cairo_t *cr, double m)
{
  SbLayer *cb = colorbar_layer (s);
  if (cb == NULL)
    return 0;
  SbColormap map;
  double vmin, vmax, t[MAX_TICKS], wmax = 0, w, h;
  int dec;
  _sb_layer_get_colormap (cb, &map, &vmin, &vmax);
  int n = sb_ticks (&vmin, &vmax, 5, FALSE, t, MAX_TICKS, &dec);
  for (int i = 0; i < n; i++)
    {
      char buf[64];
      sb_format_tick (t[i], dec, buf, sizeof buf);
      text_size (cr, buf, 0.9 * m, FALSE, &w, &h);
      wmax = MAX (wmax, w);
    }
  double lh = 0;
  if (s->colorbar_label)
    text_size (cr, s->colorbar_label, 0.95 * m, FALSE, &w, &lh);
  return (12 + colorbar_width (cb) + 4) * m + wmax + 6 * m + lh;
}

/* Legend rows above the plot may take this fraction of the drawing's
 * height in normal text; a column on the right at most this fraction of
 * its width. */
#define LEGEND_TOP_MAX 0.2
#define LEGEND_RIGHT_MAX 0.4

/* Chooses the legend's place and text size for a drawing of WIDTH x
 * HEIGHT whose plot would be PLOT_W x PLOT_H without a legend: rows
 * above the plot in normal text when they take at most LEGEND_TOP_MAX of
 * the height; otherwise, of rows or a column on the right, in normal or
 * smaller text, the one that leaves the plot the largest area (normal
 * text when it leaves at least 90% of the best). A column is a choice
 * only when it fits the plot's height. */
static void
choose_legend (GPtrArray *entries, cairo_t *cr, double width, double height, double plot_w,
               double plot_h, double m, SbFrame *f)
{
  static const double scales[2] = { 0.95, 0.8 };
  double area[2][2] = { { -1, -1 }, { -1, -1 } }, col_w[2] = { 0 }, best = 0;

  f->legend_scale = scales[0] * m;
  f->legend = entries->len ? SB_LEGEND_TOP : SB_LEGEND_NONE;
  if (entries->len == 0)
    return;
  for (int k = 0; k < 2; k++)
    {
      double used, rows_h, col_h;
      rows_h = legend_place (entries, cr, 0, 0, plot_w, FALSE, scales[k] * m, m, NULL, &used);
      if (k == 0 && rows_h <= LEGEND_TOP_MAX * height)
        return;
      area[k][0] = plot_w * MAX (plot_h - rows_h - 6 * m, 0);
      col_h = legend_place (entries, cr, 0, 0, LEGEND_RIGHT_MAX * width, TRUE, scales[k] * m, m,
                            NULL, &col_w[k]);
      if (col_h <= plot_h)
        area[k][1] = MAX (plot_w - col_w[k] - 12 * m, 0) * plot_h;
      best = MAX (best, MAX (area[k][0], area[k][1]));
    }
  /* Rows always fit (they push the plot down); a column only when it is
   * no taller than the plot. With no room for any plot at all, rows of
   * the smaller text. */
  if (best == 0)
    area[0][0] = area[0][1] = area[1][1] = -1;
  for (int k = 0; k < 2; k++)
    for (int right = 1; right >= 0; right--)
      if (area[k][right] >= 0 && area[k][right] >= (k == 0 ? 0.9 : 1.0) * best)
        {
          f->legend_scale = scales[k] * m;
          f->legend = right ? SB_LEGEND_RIGHT : SB_LEGEND_TOP;
          if (right)
            f->lw = col_w[k];
          return;
        }
}

void
sb_scene_layout (const SbScene *s, const SbView *v, cairo_t *cr, double width,
                 double height, SbFrame *f)
{
  double m = v && v->magnify > 0 ? v->magnify : 1;
  double pad = PAD * m, tick = TICK * m;
  g_autoptr (GPtrArray) entries = legend_entries (s);

  memset (f, 0, sizeof *f);
  f->width = width;
  f->height = height;
  f->magnify = m;
  compute_ranges (s, v, f);

  /* Left: y tick labels and the rotated y label. Ticks depend on the plot
   * height, which depends only on the top/bottom margins: estimate it. */
  double w, h, lab_h = 0, tick_h = 0, xlab_h = 0;
  text_size (cr, "0", 0.9 * m, FALSE, &w, &tick_h);
  if (s->y_label && *s->y_label)
    text_size (cr, s->y_label, 1.0 * m, FALSE, &w, &lab_h);
  if (s->x_label && *s->x_label)
    text_size (cr, s->x_label, 1.0 * m, FALSE, &w, &xlab_h);

  double bottom = tick + 3 * m + tick_h + (xlab_h > 0 ? 4 * m + xlab_h : 0) + pad;
  double right = pad + 4 * m + colorbar_extra (s, cr, m);
  double left = pad + 40 * m;

  choose_legend (entries, cr, width, height, width - left - right,
                 height - 2 * pad - title_height (s, cr, width - left - pad, m) - bottom, m, f);
  if (f->legend == SB_LEGEND_RIGHT)
    right += f->lw + 12 * m;

  /* Passes: the legend's rows and the title's lines depend on the plot's
   * width, which depends on the left margin, which depends on the tick
   * labels, which depend on the plot's height. The last pass lays out the
   * header at the final width, exactly as sb_scene_render_axes draws it. */
  for (int pass = 0; pass < 3; pass++)
    {
      double avail = MAX (width - left - pad, 10);
      double top = pad + title_height (s, cr, avail, m);
      if (f->legend == SB_LEGEND_TOP)
        {
          f->lx = left;
          f->ly = top + 6 * m;
          f->lw = avail;
          f->lh = legend_place (entries, cr, 0, 0, avail, FALSE, f->legend_scale, m, NULL, NULL);
          top += 6 * m + f->lh;
        }
      else if (f->legend == SB_LEGEND_RIGHT)
        {
          f->lx = width - pad - f->lw;
          f->ly = top + 6 * m;
          f->lh = legend_place (entries, cr, 0, 0, f->lw, TRUE, f->legend_scale, m, NULL, NULL);
        }
      top += pad;
      f->px = left;
      f->py = top;
      f->pw = MAX (width - left - right, 10);
      f->ph = MAX (height - top - bottom, 10);
      if (pass == 2)
        break;

      double t[MAX_TICKS];
      int dec;
      int n = axis_ticks (s, f, TRUE, t, &dec);
      double wmax = 0;
      for (int i = 0; i < n; i++)
        {
          char buf[64];
          tick_label (s, f, TRUE, t[i], dec, buf, sizeof buf);
          text_size (cr, buf, 0.9 * m, FALSE, &w, &h);
          wmax = MAX (wmax, w);
        }
      left = pad + (lab_h > 0 ? lab_h + 6 * m : 0) + wmax + 3 * m + tick;
    }

  if (s->aspect_equal)
    {
      /* Equal data units on both axes: shrink one side, centred. */
      double sx = f->pw / (f->x1 - f->x0), sy = f->ph / (f->y1 - f->y0);
      if (sx > sy)
        {
          double nw = sy * (f->x1 - f->x0);
          f->px += (f->pw - nw) / 2;
          f->pw = nw;
        }
      else
        {
          double nh = sx * (f->y1 - f->y0);
          f->py += (f->ph - nh) / 2;
          f->ph = nh;
        }
    }
}

/* ---- Axes ------------------------------------------------------------------ */

static void
render_colorbar (const SbScene *s, cairo_t *cr, const SbFrame *f,
                 const SbPalette *p)
{
  SbLayer *cb = colorbar_layer (s);
  if (cb == NULL)
    return;
  SbColormap map;
  double vmin, vmax, m = _sb_frame_magnify (f);
  _sb_layer_get_colormap (cb, &map, &vmin, &vmax);

  double x = f->px + f->pw + 12 * m, y0 = f->py, h = f->ph, bw = colorbar_width (cb) * m;
  /* A class map: one strip per class, its colour from P = 1 / C (bottom)
   * to 1 (top). */
  guint n_strips = MAX (_sb_layer_get_n_classes (cb), 1);
  for (guint strip = 0; strip < n_strips; strip++)
    {
      double sx = x + strip * bw / n_strips;
      cairo_pattern_t *pat = cairo_pattern_create_linear (0, y0 + h, 0, y0);
      for (int k = 0; k <= 32; k++)
        {
          SbColor c;
          if (n_strips > 1)
            _sb_classmap_color (p, n_strips, strip, vmin + (vmax - vmin) * k / 32.0, &c);
          else
            sb_colormap_eval (map, k / 32.0, &c);
          cairo_pattern_add_color_stop_rgba (pat, k / 32.0, c.r, c.g, c.b, c.a);
        }
      cairo_rectangle (cr, sx, y0, bw / n_strips, h);
      cairo_set_source (cr, pat);
      cairo_fill (cr);
      cairo_pattern_destroy (pat);
    }
  cairo_rectangle (cr, x, y0, bw, h);
  _sb_set_color (cr, &p->foreground, 0.6);
  cairo_set_line_width (cr, m);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_stroke (cr);

  double lo = vmin, hi = vmax, t[MAX_TICKS], wmax = 0;
  int dec;
  int n = sb_ticks (&lo, &hi, 5, FALSE, t, MAX_TICKS, &dec);
  for (int i = 0; i < n; i++)
    {
      char buf[64];
      double w, th;
      double ty = y0 + h - (t[i] - vmin) / (vmax - vmin) * h;
      sb_format_tick (t[i], dec, buf, sizeof buf);
      cairo_move_to (cr, x + bw, round (ty) + 0.5);
      cairo_line_to (cr, x + bw + 3 * m, round (ty) + 0.5);
      cairo_stroke (cr);
      draw_text (cr, buf, 0.9 * m, FALSE, x + bw + 4 * m, ty, 0, 0.5, &p->foreground);
      text_size (cr, buf, 0.9 * m, FALSE, &w, &th);
      wmax = MAX (wmax, w);
    }
  if (s->colorbar_label)
    {
      cairo_save (cr);
      cairo_translate (cr, x + bw + 4 * m + wmax + 6 * m, y0 + h / 2);
      cairo_rotate (cr, G_PI / 2);
      draw_text (cr, s->colorbar_label, 0.95 * m, FALSE, 0, 0, 0.5, 1.0, &p->foreground);
      cairo_restore (cr);
    }
}

void
sb_scene_render_axes (const SbScene *s, cairo_t *cr, const SbFrame *f,
                      const SbPalette *p, gboolean draw_background)
{
  double m = _sb_frame_magnify (f), tick = TICK * m, pad = PAD * m;

  cairo_save (cr);
  if (draw_background)
    {
      _sb_set_color (cr, &p->background, 1.0);
      cairo_paint (cr);
    }

  double xt[MAX_TICKS], yt[MAX_TICKS];
  int xdec, ydec;
  int nx = axis_ticks (s, f, FALSE, xt, &xdec);
  int ny = axis_ticks (s, f, TRUE, yt, &ydec);

  /* Grid, snapped to pixel centres so 1-unit lines stay crisp. */
  cairo_set_line_width (cr, 1.0);
  _sb_set_color (cr, &p->grid, 1.0);
  for (int i = 0; i < nx; i++)
    {
      double dx = round (sb_frame_x_to_device (f, xt[i])) + 0.5;
      cairo_move_to (cr, dx, f->py);
      cairo_line_to (cr, dx, f->py + f->ph);
    }
  for (int i = 0; i < ny; i++)
    {
      double dy = round (sb_frame_y_to_device (f, yt[i])) + 0.5;
      cairo_move_to (cr, f->px, dy);
      cairo_line_to (cr, f->px + f->pw, dy);
    }
  cairo_stroke (cr);

  /* Frame and ticks. */
  cairo_set_line_width (cr, m);
  _sb_set_color (cr, &p->foreground, 0.55);
  cairo_rectangle (cr, round (f->px) + 0.5, round (f->py) + 0.5, round (f->pw), round (f->ph));
  cairo_stroke (cr);
  char buf[64];
  double base_y = f->py + f->ph;
  for (int i = 0; i < nx; i++)
    {
      double dx = round (sb_frame_x_to_device (f, xt[i])) + 0.5;
      _sb_set_color (cr, &p->foreground, 0.55);
      cairo_move_to (cr, dx, base_y);
      cairo_line_to (cr, dx, base_y + tick);
      cairo_stroke (cr);
      tick_label (s, f, FALSE, xt[i], xdec, buf, sizeof buf);
      draw_text (cr, buf, 0.9 * m, FALSE, dx, base_y + tick + 2 * m, 0.5, 0, &p->foreground);
    }
  for (int i = 0; i < ny; i++)
    {
      double dy = round (sb_frame_y_to_device (f, yt[i])) + 0.5;
      _sb_set_color (cr, &p->foreground, 0.55);
      cairo_move_to (cr, f->px - tick, dy);
      cairo_line_to (cr, f->px, dy);
      cairo_stroke (cr);
      tick_label (s, f, TRUE, yt[i], ydec, buf, sizeof buf);
      draw_text (cr, buf, 0.9 * m, FALSE, f->px - tick - 3 * m, dy, 1, 0.5, &p->foreground);
    }

  /* Axis titles. */
  double w, th;
  text_size (cr, "0", 0.9 * m, FALSE, &w, &th);
  if (s->x_label && *s->x_label)
    draw_text (cr, s->x_label, 1.0 * m, FALSE, f->px + f->pw / 2,
               base_y + tick + 3 * m + th + 3 * m, 0.5, 0, &p->foreground);
  if (s->y_label && *s->y_label)
    {
      cairo_save (cr);
      cairo_translate (cr, pad, f->py + f->ph / 2);
      cairo_rotate (cr, -G_PI / 2);
      draw_text (cr, s->y_label, 1.0 * m, FALSE, 0, 0, 0.5, 0, &p->foreground);
      cairo_restore (cr);
    }

  /* Title and subtitle above the plot, left-aligned with it and wrapped
   * at the drawing's right edge, as sb_scene_layout measured them. */
  double avail = MAX (f->width - f->px - pad, 10), y = pad, tw;
  if (s->title && *s->title)
    {
      draw_text_wrapped (cr, s->title, 1.15 * m, TRUE, avail, f->px, y, 0, 0, &p->foreground);
      text_size_wrapped (cr, s->title, 1.15 * m, TRUE, avail, &tw, &th);
      y += th;
    }
  if (s->subtitle && *s->subtitle)
    {
      SbColor dim = p->foreground;
      dim.a = 0.75;
      draw_text_wrapped (cr, s->subtitle, 0.9 * m, FALSE, avail, f->px, y + 2 * m, 0, 0, &dim);
    }
  if (f->legend != SB_LEGEND_NONE)
    {
      g_autoptr (GPtrArray) entries = legend_entries (s);
      legend_place (entries, cr, f->lx, f->ly, f->lw, f->legend == SB_LEGEND_RIGHT,
                    f->legend_scale > 0 ? f->legend_scale : 0.95 * m, m, p, NULL);
    }

  render_colorbar (s, cr, f, p);
  cairo_restore (cr);
}

void
sb_scene_render (const SbScene *s, const SbView *v, cairo_t *cr, double width,
                 double height, const SbPalette *p, gboolean draw_background)
{
  SbFrame f;
  sb_scene_layout (s, v, cr, width, height, &f);
  sb_scene_render_axes (s, cr, &f, p, draw_background);
  for (guint i = 0; i < s->layers->len; i++)
    sb_layer_render (g_ptr_array_index (s->layers, i), cr, &f, p);
}

/* ---- Hover ------------------------------------------------------------------ */

static gboolean
is_2d (const SbScene *s)
{
  if (s->aspect_equal)
    return TRUE;
  for (guint i = 0; i < s->layers->len; i++)
    if (_sb_layer_is_image (g_ptr_array_index (s->layers, i)))
      return TRUE;
  return FALSE;
}

char *
sb_scene_hover_text (const SbScene *s, const SbFrame *f, double dx, double dy)
{
  if (!sb_frame_contains (f, dx, dy))
    return NULL;
  double x = sb_frame_x_from_device (f, dx), y = sb_frame_y_from_device (f, dy);
  GString *out = g_string_new (NULL);

  /* Named after the axes (parameter names) when they have titles. */
  const char *xn = s->x_label && *s->x_label ? s->x_label : "x";
  const char *yn = s->y_label && *s->y_label ? s->y_label : "y";
  if (is_2d (s))
    g_string_append_printf (out, "%s = %.4g, %s = %.4g", xn, x, yn, y);
  else
    g_string_append_printf (out, "%s = %.4g", xn, x);
  for (guint i = 0; i < s->layers->len; i++)
    {
      gsize len = out->len;
      g_string_append_c (out, '\n');
      if (!sb_layer_describe (g_ptr_array_index (s->layers, i), f, x, y, out))
        g_string_truncate (out, len);
    }
  return g_string_free (out, FALSE);
}

void
sb_scene_render_hover (const SbScene *s, cairo_t *cr, const SbFrame *f,
                       const SbPalette *p, double dx, double dy)
{
  g_autofree char *text = sb_scene_hover_text (s, f, dx, dy);
  if (text == NULL)
    return;

  cairo_save (cr);
  _sb_set_color (cr, &p->foreground, 0.35);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, round (dx) + 0.5, f->py);
  cairo_line_to (cr, round (dx) + 0.5, f->py + f->ph);
  if (is_2d (s))
    {
      cairo_move_to (cr, f->px, round (dy) + 0.5);
      cairo_line_to (cr, f->px + f->pw, round (dy) + 0.5);
    }
  cairo_stroke (cr);

  double m = _sb_frame_magnify (f);
  PangoLayout *layout = _sb_text_layout (cr, text, 0.9 * m, FALSE);
  int w, h;
  pango_layout_get_pixel_size (layout, &w, &h);
  double bw = w + 12, bh = h + 10;
  double bx = dx + 14, by = dy + 14;
  if (bx + bw > f->width - 2)
    bx = dx - 14 - bw;
  if (by + bh > f->height - 2)
    by = dy - 14 - bh;
  bx = MAX (bx, 2);
  by = MAX (by, 2);
  cairo_new_path (cr);
  double r = 4;
  cairo_arc (cr, bx + bw - r, by + r, r, -G_PI / 2, 0);
  cairo_arc (cr, bx + bw - r, by + bh - r, r, 0, G_PI / 2);
  cairo_arc (cr, bx + r, by + bh - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, bx + r, by + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
  _sb_set_color (cr, &p->legend_bg, 1.0);
  cairo_fill_preserve (cr);
  _sb_set_color (cr, &p->grid, 1.0);
  cairo_stroke (cr);
  _sb_set_color (cr, &p->foreground, 1.0);
  cairo_move_to (cr, bx + 6, by + 5);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
  cairo_restore (cr);
}

/* ---- Export ------------------------------------------------------------------ */

gboolean
sb_export_format_from_path (const char *path, SbExportFormat *format)
{
  if (path == NULL)
    return FALSE;
  g_autofree char *lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    *format = SB_EXPORT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = SB_EXPORT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = SB_EXPORT_PDF;
  else
    return FALSE;
  return TRUE;
}

gboolean
sb_scene_export (const SbScene *s, const SbView *v, const SbPalette *p,
                 const char *path, SbExportFormat format, double width,
                 double height, double scale, GError **error)
{
  g_return_val_if_fail (s != NULL && p != NULL && path != NULL, FALSE);
  if (format != SB_EXPORT_PNG)
    scale = 1;
  if (!(width >= 16 && height >= 16 && scale >= 0.25 && scale <= 16
        && width * scale <= 20000 && height * scale <= 20000))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Export size %g x %g at scale %g is out of range", width, height, scale);
      return FALSE;
    }

  cairo_surface_t *surface;
  switch (format)
    {
    case SB_EXPORT_SVG:
      surface = cairo_svg_surface_create (path, width, height);
      break;
    case SB_EXPORT_PDF:
      surface = cairo_pdf_surface_create (path, width, height);
      break;
    case SB_EXPORT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale),
                                            (int) ceil (height * scale));
      break;
    }

  cairo_t *cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  sb_scene_render (s, v, cr, width, height, p, TRUE);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == SB_EXPORT_PNG)
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "Could not write “%s”: %s", path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}
