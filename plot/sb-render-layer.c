/* sb-render-layer.c — the drawables of a scene. Each layer copies its data
 * at creation and derives what drawing needs (heatmap colours, contour
 * polylines) once, so a redraw is only a matter of mapping and stroking. */
#include "config.h"

#include "sb-render-private.h"

#include <math.h>
#include <string.h>

void
sb_style_init (SbStyle *style, SbRole role)
{
  memset (style, 0, sizeof *style);
  style->role = role;
  style->alpha = 1.0;
  style->line_width = 1.5;
  style->dash = SB_DASH_SOLID;
  style->marker = SB_MARKER_CIRCLE;
  style->marker2 = SB_MARKER_CIRCLE;
  style->marker_size = 4.0;
  style->filled = TRUE;
}

SbStyle
sb_style_line (SbRole role, double width, SbDash dash, double alpha)
{
  SbStyle st;

  sb_style_init (&st, role);
  st.line_width = width;
  st.dash = dash;
  st.alpha = alpha;
  return st;
}

SbStyle
sb_style_marker (SbRole role, SbMarker marker, double size, gboolean filled)
{
  SbStyle st;

  sb_style_init (&st, role);
  st.marker = st.marker2 = marker;
  st.marker_size = size;
  st.filled = filled;
  return st;
}

static gboolean
all_finite (const double *v, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (v[i]))
      return FALSE;
  return TRUE;
}

static double *
dup_doubles (const double *v, gsize n)
{
  return v && n ? g_memdup2 (v, n * sizeof (double)) : NULL;
}

static SbLayer *
layer_alloc (SbLayerKind kind, const char *id, const char *label,
             const SbStyle *style)
{
  SbLayer *l = g_new0 (SbLayer, 1);

  g_atomic_ref_count_init (&l->ref);
  l->kind = kind;
  l->id = g_strdup (id ? id : "");
  l->label = g_strdup (label);
  if (style)
    l->style = *style;
  else
    sb_style_init (&l->style, SB_ROLE_FOREGROUND);
  l->n_rows = 1;
  return l;
}

SbLayer *
sb_layer_ref (SbLayer *layer)
{
  g_return_val_if_fail (layer != NULL, NULL);
  g_atomic_ref_count_inc (&layer->ref);
  return layer;
}

void
sb_layer_unref (SbLayer *l)
{
  if (l == NULL || !g_atomic_ref_count_dec (&l->ref))
    return;
  g_free (l->id);
  g_free (l->label);
  g_free (l->x);
  g_free (l->y);
  g_free (l->x2);
  g_free (l->y2);
  g_free (l->grid);
  g_free (l->classes);
  g_free (l->levels);
  g_clear_pointer (&l->image, cairo_surface_destroy);
  g_clear_pointer (&l->points, g_array_unref);
  g_clear_pointer (&l->lengths, g_array_unref);
  g_free (l);
}

SbLayer *
sb_layer_new_xy (SbLayerKind kind, const char *id, const char *label,
                 const SbStyle *style, gsize n, const double *x,
                 const double *y, const double *x2, const double *y2)
{
  SbLayer *l = layer_alloc (kind, id, label, style);

  l->n = n;
  l->x = dup_doubles (x, n);
  l->y = dup_doubles (y, n);
  l->x2 = dup_doubles (x2, n);
  l->y2 = dup_doubles (y2, n);
  return l;
}

SbLayer *
sb_layer_new_line (const char *id, const char *label, const SbStyle *style,
                   gsize n, const double *x, const double *y)
{
  return sb_layer_new_xy (SB_LAYER_LINE, id, label, style, n, x, y, NULL, NULL);
}

SbLayer *
sb_layer_new_lines (const char *id, const char *label, const SbStyle *style,
                    gsize n, const double *x, gsize n_rows, const double *y)
{
  SbLayer *l = layer_alloc (SB_LAYER_LINE, id, label, style);

  l->n = n;
  l->n_rows = MAX (n_rows, 1);
  l->x = dup_doubles (x, n);
  l->y = dup_doubles (y, n * n_rows);
  return l;
}

SbLayer *
sb_layer_new_band (const char *id, const char *label, const SbStyle *style,
                   gsize n, const double *x, const double *lower,
                   const double *upper)
{
  return sb_layer_new_xy (SB_LAYER_BAND, id, label, style, n, x, lower, NULL, upper);
}

SbLayer *
sb_layer_new_markers (const char *id, const char *label, const SbStyle *style,
                      gsize n, const double *x, const double *y)
{
  return sb_layer_new_xy (SB_LAYER_MARKERS, id, label, style, n, x, y, NULL, NULL);
}

SbLayer *
sb_layer_new_links (const char *id, const char *label, const SbStyle *style,
                    gsize n, const double *x, const double *y,
                    const double *x2, const double *y2)
{
  return sb_layer_new_xy (SB_LAYER_LINKS, id, label, style, n, x, y, x2, y2);
}

SbLayer *
sb_layer_new_rule (SbLayerKind kind, const char *id, const char *label,
                   const SbStyle *style, double value)
{
  g_return_val_if_fail (kind == SB_LAYER_VLINE || kind == SB_LAYER_HLINE, NULL);
  return sb_layer_new_xy (kind, id, label, style, 1, &value, &value, NULL, NULL);
}

SbLayer *
sb_layer_new_histogram (const char *id, const char *label,
                        const SbStyle *style, gsize n, const double *edges,
                        const double *heights)
{
  SbLayer *l = layer_alloc (SB_LAYER_HISTOGRAM, id, label, style);

  l->n = n;
  l->x = dup_doubles (edges, n + 1);
  l->y = dup_doubles (heights, n);
  return l;
}

static void
set_grid (SbLayer *l, guint nx, guint ny, const double *values, double x0,
          double x1, double y0, double y1)
{
  l->nx = nx;
  l->ny = ny;
  l->grid = dup_doubles (values, (gsize) nx * ny);
  l->gx0 = x0; l->gx1 = x1; l->gy0 = y0; l->gy1 = y1;
}

SbLayer *
sb_layer_new_heatmap (const char *id, const char *label, guint nx, guint ny,
                      const double *values, double x0, double x1, double y0,
                      double y1, SbColormap map, double vmin, double vmax)
{
  g_return_val_if_fail (nx >= 2 && ny >= 2 && values != NULL, NULL);
  SbLayer *l = layer_alloc (SB_LAYER_HEATMAP, id, label, NULL);

  set_grid (l, nx, ny, values, x0, x1, y0, y1);
  l->map = map;
  if (!(vmax > vmin))
    vmax = vmin + 1;
  l->vmin = vmin;
  l->vmax = vmax;

  return l;
}

/* The colour of grid node NODE of layer L (transparent where undefined). */
typedef void (*NodeColor) (const SbLayer *l, gsize node, const SbPalette *palette, SbColor *c);

/* Makes L's image from the colours of its grid nodes. Row 0 of the image
 * is the top (largest y); premultiplied ARGB as Cairo wants it. */
static cairo_surface_t *
fill_grid_image (SbLayer *l, NodeColor node_color, const SbPalette *palette)
{
  guint nx = l->nx, ny = l->ny;
  g_clear_pointer (&l->image, cairo_surface_destroy);
  l->image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, nx, ny);
  cairo_surface_flush (l->image);
  unsigned char *data = cairo_image_surface_get_data (l->image);
  int stride = cairo_image_surface_get_stride (l->image);
  for (guint j = 0; j < ny; j++)
    {
      guint32 *row = (guint32 *) (data + (gsize) (ny - 1 - j) * stride);
      for (guint i = 0; i < nx; i++)
        {
          SbColor c;
          node_color (l, (gsize) j * nx + i, palette, &c);
          guint32 a = (guint32) lround (c.a * 255);
          guint32 r = (guint32) lround (c.r * c.a * 255);
          guint32 g = (guint32) lround (c.g * c.a * 255);
          guint32 b = (guint32) lround (c.b * c.a * 255);
          row[i] = (a << 24) | (r << 16) | (g << 8) | b;
        }
    }
  cairo_surface_mark_dirty (l->image);
  return l->image;
}

static void
heatmap_color (const SbLayer *l, gsize node, const SbPalette *palette, SbColor *c)
{
  double v = l->grid[node];
  sb_colormap_eval (l->map, isfinite (v) ? (v - l->vmin) / (l->vmax - l->vmin) : NAN, c);
}

/* The colours of the grid nodes, computed once, on first draw: a layer that
 * a chart discards as equal to the one it shows never pays for it.
 * (Layers are drawn from one thread at a time: the main loop, or a test.) */
static cairo_surface_t *
heatmap_image (SbLayer *l)
{
  return l->image ? l->image : fill_grid_image (l, heatmap_color, NULL);
}

SbLayer *
sb_layer_new_classmap (const char *id, const char *label, guint nx, guint ny,
                       guint n_classes, const double *probs, double x0, double x1,
                       double y0, double y1)
{
  g_return_val_if_fail (nx >= 2 && ny >= 2 && probs != NULL, NULL);
  g_return_val_if_fail (n_classes >= 2 && n_classes <= SB_N_CLASS_ROLES, NULL);
  SbLayer *l = layer_alloc (SB_LAYER_CLASSMAP, id, label, NULL);
  gsize n = (gsize) nx * ny;

  l->nx = nx;
  l->ny = ny;
  l->gx0 = x0; l->gx1 = x1; l->gy0 = y0; l->gy1 = y1;
  l->grid = dup_doubles (probs, n * n_classes);
  l->n_classes = n_classes;
  l->classes = g_new (guint8, n);
  for (gsize i = 0; i < n; i++)
    {
      const double *p = probs + i * n_classes;
      guint best = 0;
      for (guint k = 1; k < n_classes; k++)
        if (p[k] > p[best])
          best = k;
      l->classes[i] = (guint8) best;
    }
  l->vmin = 1.0 / n_classes;
  l->vmax = 1;
  return l;
}

void
_sb_classmap_color (const SbPalette *palette, guint n_classes, guint k, double p,
                    SbColor *out)
{
  const SbColor *bg = &palette->background;
  const SbColor *c = sb_palette_role (palette, SB_ROLE_CLASS_0 + MIN (k, SB_N_CLASS_ROLES - 1));
  double t = SB_CLASSMAP_TINT * CLAMP ((p - 1.0 / n_classes) / (1 - 1.0 / n_classes), 0, 1);

  out->r = bg->r + t * (c->r - bg->r);
  out->g = bg->g + t * (c->g - bg->g);
  out->b = bg->b + t * (c->b - bg->b);
  out->a = 1;
}

static void
classmap_color (const SbLayer *l, gsize node, const SbPalette *palette, SbColor *c)
{
  double p = l->grid[node * l->n_classes + l->classes[node]];
  if (isfinite (p))
    _sb_classmap_color (palette, l->n_classes, l->classes[node], p, c);
  else
    *c = (SbColor) { 0, 0, 0, 0 };
}

/* The class map's colours for PALETTE: recomputed only when the palette's
 * background or class colours differ from those of the image held. */
static cairo_surface_t *
classmap_image (SbLayer *l, const SbPalette *palette)
{
  SbColor want[SB_N_CLASS_ROLES + 1];
  want[0] = palette->background;
  for (guint k = 0; k < SB_N_CLASS_ROLES; k++)
    want[k + 1] = *sb_palette_role (palette, SB_ROLE_CLASS_0 + k);
  if (l->image && memcmp (want, l->image_colors, sizeof want) == 0)
    return l->image;
  memcpy (l->image_colors, want, sizeof want);
  return fill_grid_image (l, classmap_color, palette);
}

guint
_sb_layer_get_n_classes (const SbLayer *l)
{
  return l->kind == SB_LAYER_CLASSMAP ? l->n_classes : 0;
}

gboolean
_sb_layer_is_image (const SbLayer *l)
{
  return l->kind == SB_LAYER_HEATMAP || l->kind == SB_LAYER_CLASSMAP;
}

SbLayer *
sb_layer_new_contours (const char *id, const char *label, const SbStyle *style,
                       guint nx, guint ny, const double *values, double x0,
                       double x1, double y0, double y1, gsize n_levels,
                       const double *levels)
{
  g_return_val_if_fail (nx >= 2 && ny >= 2 && values != NULL, NULL);
  SbLayer *l = layer_alloc (SB_LAYER_CONTOURS, id, label, style);

  set_grid (l, nx, ny, values, x0, x1, y0, y1);
  l->n_levels = n_levels;
  l->levels = dup_doubles (levels, n_levels);
  l->points = g_array_new (FALSE, FALSE, sizeof (double));
  l->lengths = g_array_new (FALSE, FALSE, sizeof (guint));
  for (gsize k = 0; k < n_levels; k++)
    sb_contour_lines (values, nx, ny, x0, x1, y0, y1, levels[k], l->points, l->lengths);
  return l;
}

void
sb_layer_set_readout (SbLayer *layer, gboolean readout)
{
  layer->readout_off = !readout;
}

SbLayerKind sb_layer_get_kind (const SbLayer *l) { return l->kind; }
const char *sb_layer_get_id (const SbLayer *l) { return l->id; }
const char *sb_layer_get_label (const SbLayer *l) { return l->label; }
const SbStyle *sb_layer_get_style (const SbLayer *l) { return &l->style; }
gsize sb_layer_get_n (const SbLayer *l) { return l->n; }

void
_sb_layer_get_colormap (const SbLayer *l, SbColormap *map, double *vmin,
                        double *vmax)
{
  *map = l->map;
  *vmin = l->vmin;
  *vmax = l->vmax;
}

/* ---- Extent and equality --------------------------------------------------- */

static void
widen (double v, double *lo, double *hi)
{
  if (!isfinite (v))
    return;
  if (isnan (*lo) || v < *lo)
    *lo = v;
  if (isnan (*hi) || v > *hi)
    *hi = v;
}

gboolean
sb_layer_get_extent (const SbLayer *l, double *x0, double *x1, double *y0,
                     double *y1)
{
  *x0 = *x1 = *y0 = *y1 = NAN;
  switch (l->kind)
    {
    case SB_LAYER_HEATMAP:
    case SB_LAYER_CLASSMAP:
    case SB_LAYER_CONTOURS:
      *x0 = MIN (l->gx0, l->gx1); *x1 = MAX (l->gx0, l->gx1);
      *y0 = MIN (l->gy0, l->gy1); *y1 = MAX (l->gy0, l->gy1);
      break;
    case SB_LAYER_VLINE:
      widen (l->x[0], x0, x1);
      break;
    case SB_LAYER_HLINE:
      widen (l->y[0], y0, y1);
      break;
    case SB_LAYER_HISTOGRAM:
      for (gsize i = 0; i <= l->n; i++)
        widen (l->x[i], x0, x1);
      widen (0, y0, y1);
      for (gsize i = 0; i < l->n; i++)
        widen (l->y[i], y0, y1);
      break;
    default:
      for (gsize i = 0; i < l->n; i++)
        {
          widen (l->x[i], x0, x1);
          if (l->x2)
            widen (l->x2[i], x0, x1);
          if (l->y2)
            widen (l->y2[i], y0, y1);
        }
      for (gsize i = 0; l->y && i < l->n * l->n_rows; i++)
        widen (l->y[i], y0, y1);
      break;
    }
  return !isnan (*x0) || !isnan (*y0);
}

static gboolean
same_doubles (const double *a, const double *b, gsize n)
{
  if ((a == NULL) != (b == NULL))
    return FALSE;
  return a == NULL || memcmp (a, b, n * sizeof (double)) == 0;
}

/* Field by field: a struct copy need not copy padding, so memcmp of two
 * equal styles can differ. */
static gboolean
style_equal (const SbStyle *a, const SbStyle *b)
{
  return a->role == b->role && a->alpha == b->alpha && a->line_width == b->line_width
         && a->dash == b->dash && a->marker == b->marker && a->marker2 == b->marker2
         && a->marker_size == b->marker_size && !a->filled == !b->filled;
}

gboolean
sb_layer_equal (const SbLayer *a, const SbLayer *b)
{
  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;
  if (a->kind != b->kind || a->n != b->n || a->n_rows != b->n_rows
      || !style_equal (&a->style, &b->style)
      || g_strcmp0 (a->label, b->label) != 0 || g_strcmp0 (a->id, b->id) != 0)
    return FALSE;
  gsize nx = a->kind == SB_LAYER_HISTOGRAM ? a->n + 1 : a->n;
  if (!same_doubles (a->x, b->x, nx) || !same_doubles (a->y, b->y, a->n * a->n_rows)
      || !same_doubles (a->x2, b->x2, a->n) || !same_doubles (a->y2, b->y2, a->n))
    return FALSE;
  if (a->nx != b->nx || a->ny != b->ny || a->gx0 != b->gx0 || a->gx1 != b->gx1
      || a->gy0 != b->gy0 || a->gy1 != b->gy1 || a->map != b->map
      || a->vmin != b->vmin || a->vmax != b->vmax || a->n_levels != b->n_levels)
    return FALSE;
  if (a->n_classes != b->n_classes || a->readout_off != b->readout_off)
    return FALSE;
  return same_doubles (a->grid, b->grid, (gsize) a->nx * a->ny * MAX (a->n_classes, 1))
         && same_doubles (a->levels, b->levels, a->n_levels);
}

/* ---- Drawing helpers ---------------------------------------------------- */

void
_sb_set_color (cairo_t *cr, const SbColor *c, double alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, c->a * alpha);
}

void
_sb_apply_dash (cairo_t *cr, SbDash dash, double lw)
{
  double d[4];
  lw = MAX (lw, 1.0);
  switch (dash)
    {
    case SB_DASH_DASHED:
      d[0] = 5 * lw; d[1] = 3 * lw;
      cairo_set_dash (cr, d, 2, 0);
      break;
    case SB_DASH_DOTTED:
      d[0] = 0.01; d[1] = 2.5 * lw;
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
      cairo_set_dash (cr, d, 2, 0);
      break;
    case SB_DASH_DASHDOT:
      d[0] = 6 * lw; d[1] = 2.5 * lw; d[2] = 0.01; d[3] = 2.5 * lw;
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
      cairo_set_dash (cr, d, 4, 0);
      break;
    case SB_DASH_SOLID:
    default:
      cairo_set_dash (cr, NULL, 0, 0);
      break;
    }
}

void
_sb_marker_path (cairo_t *cr, SbMarker shape, double x, double y, double s)
{
  switch (shape)
    {
    case SB_MARKER_TRIANGLE_UP:
      cairo_move_to (cr, x, y - 1.25 * s);
      cairo_line_to (cr, x + 1.1 * s, y + 0.75 * s);
      cairo_line_to (cr, x - 1.1 * s, y + 0.75 * s);
      cairo_close_path (cr);
      break;
    case SB_MARKER_TRIANGLE_DOWN:
      cairo_move_to (cr, x, y + 1.25 * s);
      cairo_line_to (cr, x + 1.1 * s, y - 0.75 * s);
      cairo_line_to (cr, x - 1.1 * s, y - 0.75 * s);
      cairo_close_path (cr);
      break;
    case SB_MARKER_SQUARE:
      cairo_rectangle (cr, x - 0.9 * s, y - 0.9 * s, 1.8 * s, 1.8 * s);
      break;
    case SB_MARKER_DIAMOND:
      cairo_move_to (cr, x, y - 1.3 * s);
      cairo_line_to (cr, x + 1.3 * s, y);
      cairo_line_to (cr, x, y + 1.3 * s);
      cairo_line_to (cr, x - 1.3 * s, y);
      cairo_close_path (cr);
      break;
    case SB_MARKER_CROSS:
      cairo_move_to (cr, x - s, y - s);
      cairo_line_to (cr, x + s, y + s);
      cairo_move_to (cr, x + s, y - s);
      cairo_line_to (cr, x - s, y + s);
      break;
    case SB_MARKER_STAR:
      for (int k = 0; k < 10; k++)
        {
          double r = (k % 2 == 0) ? 1.6 * s : 0.7 * s;
          double a = -G_PI / 2 + k * G_PI / 5;
          if (k == 0)
            cairo_move_to (cr, x + r * cos (a), y + r * sin (a));
          else
            cairo_line_to (cr, x + r * cos (a), y + r * sin (a));
        }
      cairo_close_path (cr);
      break;
    case SB_MARKER_CIRCLE:
    default:
      cairo_new_sub_path (cr);
      cairo_arc (cr, x, y, s, 0, 2 * G_PI);
      break;
    }
}

void
_sb_draw_marker (cairo_t *cr, SbMarker shape, double x, double y, double size,
                 gboolean filled, const SbColor *c, double alpha,
                 const SbPalette *palette)
{
  cairo_new_path (cr);
  _sb_marker_path (cr, shape, x, y, size);
  cairo_set_dash (cr, NULL, 0, 0);
  if (shape == SB_MARKER_CROSS)
    {
      /* A cross has no inside: a halo in the background colour keeps it
       * readable on top of bands and heatmaps. */
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
      _sb_set_color (cr, &palette->background, 0.8 * alpha);
      cairo_set_line_width (cr, 4.0);
      cairo_stroke_preserve (cr);
      _sb_set_color (cr, c, alpha);
      cairo_set_line_width (cr, 2.0);
      cairo_stroke (cr);
      return;
    }
  if (filled)
    {
      _sb_set_color (cr, c, alpha);
      cairo_fill_preserve (cr);
      _sb_set_color (cr, &palette->background, alpha);
      cairo_set_line_width (cr, 1.0);
      cairo_stroke (cr);
    }
  else
    {
      _sb_set_color (cr, &palette->background, 0.6 * alpha);
      cairo_fill_preserve (cr);
      _sb_set_color (cr, c, alpha);
      cairo_set_line_width (cr, 1.6);
      cairo_stroke (cr);
    }
}

static void
stroke_style (cairo_t *cr, const SbLayer *l, const SbPalette *palette)
{
  _sb_set_color (cr, sb_palette_role (palette, l->style.role), l->style.alpha);
  cairo_set_line_width (cr, l->style.line_width);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  _sb_apply_dash (cr, l->style.dash, l->style.line_width);
}

/* ---- Rendering per kind ---------------------------------------------------- */

static void
render_polyline (const SbLayer *l, cairo_t *cr, const SbFrame *f,
                 const double *y, gboolean step)
{
  gboolean pen = FALSE;
  double last_y = 0;

  for (gsize i = 0; i < l->n; i++)
    {
      if (!isfinite (l->x[i]) || !isfinite (y[i]) || (f->y_log && y[i] <= 0))
        {
          pen = FALSE;
          continue;
        }
      double dx = sb_frame_x_to_device (f, l->x[i]);
      double dy = sb_frame_y_to_device (f, y[i]);
      if (!pen)
        cairo_move_to (cr, dx, dy);
      else if (step)
        {
          cairo_line_to (cr, dx, last_y);
          cairo_line_to (cr, dx, dy);
        }
      else
        cairo_line_to (cr, dx, dy);
      pen = TRUE;
      last_y = dy;
    }
  cairo_stroke (cr);
}

static void
render_band (const SbLayer *l, cairo_t *cr, const SbFrame *f,
             const SbPalette *palette)
{
  /* One closed polygon per run of points with both bounds finite. */
  gsize i = 0;
  _sb_set_color (cr, sb_palette_role (palette, l->style.role), l->style.alpha);
  while (i < l->n)
    {
      while (i < l->n && !(isfinite (l->y[i]) && isfinite (l->y2[i]) && isfinite (l->x[i])))
        i++;
      gsize start = i;
      while (i < l->n && isfinite (l->y[i]) && isfinite (l->y2[i]) && isfinite (l->x[i]))
        i++;
      if (i - start < 2)
        continue;
      for (gsize k = start; k < i; k++)
        {
          double dx = sb_frame_x_to_device (f, l->x[k]);
          double dy = sb_frame_y_to_device (f, l->y2[k]);
          if (k == start)
            cairo_move_to (cr, dx, dy);
          else
            cairo_line_to (cr, dx, dy);
        }
      for (gsize k = i; k-- > start;)
        cairo_line_to (cr, sb_frame_x_to_device (f, l->x[k]),
                       sb_frame_y_to_device (f, l->y[k]));
      cairo_close_path (cr);
    }
  cairo_fill (cr);
}

static double
marker_y (const SbFrame *f, double y, double size)
{
  /* NaN y: the marker sits on the bottom edge (e.g. invalid settings,
   * which have no value). */
  return isnan (y) ? f->py + f->ph - size - 2 : sb_frame_y_to_device (f, y);
}

/* Marker centre within the plot area (half a unit of slack). */
static gboolean
inside (const SbFrame *f, double dx, double dy)
{
  return dx >= f->px - 0.5 && dx <= f->px + f->pw + 0.5
         && dy >= f->py - 0.5 && dy <= f->py + f->ph + 0.5;
}

static void
render_markers (const SbLayer *l, cairo_t *cr, const SbFrame *f,
                const SbPalette *palette)
{
  const SbColor *c = sb_palette_role (palette, l->style.role);
  for (gsize i = 0; i < l->n; i++)
    {
      if (!isfinite (l->x[i]) || isinf (l->y[i]))
        continue;
      double dx = sb_frame_x_to_device (f, l->x[i]);
      double dy = marker_y (f, l->y[i], l->style.marker_size);
      if (!inside (f, dx, dy))
        continue;
      _sb_draw_marker (cr, l->style.marker, dx, dy, l->style.marker_size,
                       l->style.filled, c, l->style.alpha, palette);
    }
}

/* A link's end 2: hollow against a filled end 1 (winner -> loser), or
 * drawn alike for a symmetric pair. */
static gboolean
second_end_filled (const SbStyle *style)
{
  return style->ends_alike ? style->filled : !style->filled;
}

static void
render_links (const SbLayer *l, cairo_t *cr, const SbFrame *f,
              const SbPalette *palette)
{
  const SbColor *c = sb_palette_role (palette, l->style.role);
  double s = l->style.marker_size;

  /* The links stay inside the plot area; the markers may overhang it. */
  cairo_save (cr);
  cairo_reset_clip (cr);
  cairo_rectangle (cr, f->px, f->py, f->pw, f->ph);
  cairo_clip (cr);
  stroke_style (cr, l, palette);
  _sb_set_color (cr, c, 0.4 * l->style.alpha);
  cairo_set_line_width (cr, MAX (l->style.line_width * 0.8, 1.0));
  for (gsize i = 0; i < l->n; i++)
    {
      if (!(isfinite (l->x[i]) && isfinite (l->x2[i])))
        continue;
      cairo_move_to (cr, sb_frame_x_to_device (f, l->x[i]), marker_y (f, l->y[i], s));
      cairo_line_to (cr, sb_frame_x_to_device (f, l->x2[i]), marker_y (f, l->y2[i], s));
    }
  cairo_stroke (cr);
  cairo_restore (cr);
  /* All second ends, then all first ends: a point that won one duel and
   * lost another shows as a winner. */
  for (int end = 1; end >= 0; end--)
    for (gsize i = 0; i < l->n; i++)
      {
        if (!(isfinite (l->x[i]) && isfinite (l->x2[i])))
          continue;
        double dx = sb_frame_x_to_device (f, end ? l->x2[i] : l->x[i]);
        double dy = marker_y (f, end ? l->y2[i] : l->y[i], s);
        if (inside (f, dx, dy))
          _sb_draw_marker (cr, end ? l->style.marker2 : l->style.marker, dx, dy, s,
                           end ? second_end_filled (&l->style) : l->style.filled, c,
                           l->style.alpha, palette);
      }
}

static void
render_heatmap (const SbLayer *l, cairo_t *cr, const SbFrame *f, cairo_surface_t *image)
{
  /* Grid node (i, j) is the centre of image pixel (i, ny - 1 - j): map
   * device -> image coordinates with u = (x - x0) / hx + 0.5. Bilinear
   * filtering then interpolates between nodes, and PAD extends the edge
   * colours over the half cells at the border. */
  double hx = (l->gx1 - l->gx0) / (l->nx - 1), hy = (l->gy1 - l->gy0) / (l->ny - 1);
  double dx0 = sb_frame_x_to_device (f, l->gx0 - 0.5 * hx);
  double dx1 = sb_frame_x_to_device (f, l->gx1 + 0.5 * hx);
  double dy0 = sb_frame_y_to_device (f, l->gy1 + 0.5 * hy);   /* top    */
  double dy1 = sb_frame_y_to_device (f, l->gy0 - 0.5 * hy);   /* bottom */
  cairo_pattern_t *pat = cairo_pattern_create_for_surface (image);
  cairo_matrix_t m;

  cairo_matrix_init_scale (&m, l->nx / (dx1 - dx0), l->ny / (dy1 - dy0));
  cairo_matrix_translate (&m, -dx0, -dy0);
  cairo_pattern_set_matrix (pat, &m);
  cairo_pattern_set_filter (pat, CAIRO_FILTER_BILINEAR);
  cairo_pattern_set_extend (pat, CAIRO_EXTEND_PAD);
  cairo_set_source (cr, pat);
  /* Only the data box (the nodes' hull), so nothing spills past it. */
  double bx0 = sb_frame_x_to_device (f, l->gx0), bx1 = sb_frame_x_to_device (f, l->gx1);
  double by0 = sb_frame_y_to_device (f, l->gy1), by1 = sb_frame_y_to_device (f, l->gy0);
  cairo_rectangle (cr, bx0, by0, bx1 - bx0, by1 - by0);
  cairo_fill (cr);
  cairo_pattern_destroy (pat);
}

static void
render_contours (const SbLayer *l, cairo_t *cr, const SbFrame *f,
                 const SbPalette *palette)
{
  const double *p = (const double *) l->points->data;
  const guint *len = (const guint *) l->lengths->data;

  /* A fine grid puts a contour point every pixel or two, thousands for a
   * 200 x 200 field: points closer than a pixel to the last one drawn are
   * skipped, and the lines are rasterised with Cairo's FAST antialiasing
   * (coarser coverage sampling: for thin lines it looks the same, and it
   * is 4-8x cheaper, ~2 ms instead of 7-15 ms for 3500 points here). */
  cairo_save (cr);
  if (cairo_get_antialias (cr) == CAIRO_ANTIALIAS_DEFAULT)  /* keep a caller's NONE */
    cairo_set_antialias (cr, CAIRO_ANTIALIAS_FAST);
  /* A thin halo under the line keeps contours visible on any colour. */
  for (int pass = 0; pass < 2; pass++)
    {
      stroke_style (cr, l, palette);
      if (pass == 0)
        {
          _sb_set_color (cr, &palette->background, 0.35 * l->style.alpha);
          cairo_set_line_width (cr, l->style.line_width + 1.5);
        }
      gsize at = 0;
      for (guint k = 0; k < l->lengths->len; k++)
        {
          double lx = 0, ly = 0;
          for (guint i = 0; i < len[k]; i++, at++)
            {
              double dx = sb_frame_x_to_device (f, p[2 * at]);
              double dy = sb_frame_y_to_device (f, p[2 * at + 1]);
              if (i == 0)
                cairo_move_to (cr, dx, dy);
              else if (i + 1 == len[k] || fabs (dx - lx) + fabs (dy - ly) >= 1.0)
                cairo_line_to (cr, dx, dy);
              else
                continue;
              lx = dx;
              ly = dy;
            }
        }
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

static void
render_histogram (const SbLayer *l, cairo_t *cr, const SbFrame *f,
                  const SbPalette *palette)
{
  const SbColor *c = sb_palette_role (palette, l->style.role);
  double base = f->y_log ? pow (10.0, f->y0) : 0.0;

  for (gsize i = 0; i < l->n; i++)
    {
      if (!(isfinite (l->y[i]) && l->y[i] > 0))
        continue;
      double x0 = sb_frame_x_to_device (f, l->x[i]);
      double x1 = sb_frame_x_to_device (f, l->x[i + 1]);
      double y0 = sb_frame_y_to_device (f, base), y1 = sb_frame_y_to_device (f, l->y[i]);
      cairo_rectangle (cr, x0, y1, x1 - x0, y0 - y1);
    }
  _sb_set_color (cr, c, 0.3 * l->style.alpha);
  cairo_fill_preserve (cr);
  _sb_set_color (cr, c, 0.6 * l->style.alpha);
  cairo_set_line_width (cr, 0.8);
  cairo_stroke (cr);
}

static void
render_rule (const SbLayer *l, cairo_t *cr, const SbFrame *f,
             const SbPalette *palette)
{
  stroke_style (cr, l, palette);
  if (l->kind == SB_LAYER_VLINE)
    {
      double dx = sb_frame_x_to_device (f, l->x[0]);
      cairo_move_to (cr, dx, f->py);
      cairo_line_to (cr, dx, f->py + f->ph);
    }
  else
    {
      double dy = sb_frame_y_to_device (f, l->y[0]);
      cairo_move_to (cr, f->px, dy);
      cairo_line_to (cr, f->px + f->pw, dy);
    }
  cairo_stroke (cr);
}

const SbLayer *
_sb_layer_magnified (const SbLayer *l, double m, SbLayer *copy)
{
  if (m == 1 || l->kind == SB_LAYER_HEATMAP)
    return l;
  *copy = *l;
  copy->style.line_width *= m;
  copy->style.marker_size *= m;
  return copy;
}

void
sb_layer_render (const SbLayer *layer, cairo_t *cr, const SbFrame *f,
                 const SbPalette *palette)
{
  SbLayer copy;
  const SbLayer *l;

  g_return_if_fail (layer != NULL && cr != NULL && f != NULL && palette != NULL);
  if (!(f->pw > 0 && f->ph > 0 && f->x1 > f->x0 && f->y1 > f->y0))
    return;
  l = _sb_layer_magnified (layer, _sb_frame_magnify (f), &copy);

  cairo_save (cr);
  if (l->kind == SB_LAYER_MARKERS || l->kind == SB_LAYER_LINKS)
    {
      /* Markers on the edge of the box (boundary maximisers are common in
       * BO) are drawn whole; those whose centre is outside are skipped. */
      double m = 2.0 * l->style.marker_size + 3.0;
      cairo_rectangle (cr, f->px - m, f->py - m, f->pw + 2 * m, f->ph + 2 * m);
    }
  else
    cairo_rectangle (cr, f->px, f->py, f->pw, f->ph);
  cairo_clip (cr);
  cairo_new_path (cr);
  switch (l->kind)
    {
    case SB_LAYER_LINE:
    case SB_LAYER_STEP:
      stroke_style (cr, l, palette);
      for (gsize r = 0; r < l->n_rows; r++)
        render_polyline (l, cr, f, l->y + r * l->n, l->kind == SB_LAYER_STEP);
      break;
    case SB_LAYER_BAND:
      render_band (l, cr, f, palette);
      break;
    case SB_LAYER_MARKERS:
      render_markers (l, cr, f, palette);
      break;
    case SB_LAYER_LINKS:
      render_links (l, cr, f, palette);
      break;
    case SB_LAYER_HEATMAP:
      render_heatmap (l, cr, f, heatmap_image ((SbLayer *) l));
      break;
    case SB_LAYER_CLASSMAP:
      render_heatmap (l, cr, f, classmap_image ((SbLayer *) l, palette));
      break;
    case SB_LAYER_CONTOURS:
      render_contours (l, cr, f, palette);
      break;
    case SB_LAYER_HISTOGRAM:
      render_histogram (l, cr, f, palette);
      break;
    case SB_LAYER_VLINE:
    case SB_LAYER_HLINE:
      render_rule (l, cr, f, palette);
      break;
    default:
      break;
    }
  cairo_restore (cr);
}

void
_sb_layer_render_swatch (const SbLayer *l, cairo_t *cr, double x, double y,
                         double w, double h, const SbPalette *palette)
{
  const SbColor *c = sb_palette_role (palette, l->style.role);
  double cy = y + h / 2;

  cairo_save (cr);
  cairo_new_path (cr);
  switch (l->kind)
    {
    case SB_LAYER_BAND:
      _sb_set_color (cr, c, l->style.alpha);
      cairo_rectangle (cr, x, y + 2, w, h - 4);
      cairo_fill (cr);
      break;
    case SB_LAYER_HISTOGRAM:
      _sb_set_color (cr, c, 0.3 * l->style.alpha);
      cairo_rectangle (cr, x + 2, y + 2, w - 4, h - 4);
      cairo_fill_preserve (cr);
      _sb_set_color (cr, c, 0.6 * l->style.alpha);
      cairo_set_line_width (cr, 0.8);
      cairo_stroke (cr);
      break;
    case SB_LAYER_MARKERS:
      _sb_draw_marker (cr, l->style.marker, x + w / 2, cy, MIN (l->style.marker_size, h / 2.5),
                       l->style.filled, c, l->style.alpha, palette);
      break;
    case SB_LAYER_LINKS:
      _sb_set_color (cr, c, 0.55);
      cairo_set_line_width (cr, 1.0);
      _sb_apply_dash (cr, l->style.dash, 1.0);
      cairo_move_to (cr, x + 4, cy);
      cairo_line_to (cr, x + w - 4, cy);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      _sb_draw_marker (cr, l->style.marker, x + 4, cy, MIN (l->style.marker_size, h / 3),
                       l->style.filled, c, l->style.alpha, palette);
      _sb_draw_marker (cr, l->style.marker2, x + w - 4, cy, MIN (l->style.marker_size, h / 3),
                       second_end_filled (&l->style), c, l->style.alpha, palette);
      break;
    case SB_LAYER_HEATMAP:
      for (int k = 0; k < 8; k++)
        {
          SbColor cm;
          sb_colormap_eval (l->map, k / 7.0, &cm);
          _sb_set_color (cr, &cm, 1.0);
          cairo_rectangle (cr, x + k * w / 8, y + 2, w / 8 + 0.5, h - 4);
          cairo_fill (cr);
        }
      break;
    case SB_LAYER_CLASSMAP:
      for (guint k = 0; k < l->n_classes; k++)
        {
          SbColor cm;
          _sb_classmap_color (palette, l->n_classes, k, 1.0, &cm);
          _sb_set_color (cr, &cm, 1.0);
          cairo_rectangle (cr, x + k * w / l->n_classes, y + 2, w / l->n_classes + 0.5, h - 4);
          cairo_fill (cr);
        }
      break;
    default:
      stroke_style (cr, l, palette);
      if (l->kind == SB_LAYER_VLINE)
        {
          cairo_move_to (cr, x + w / 2, y + 1);
          cairo_line_to (cr, x + w / 2, y + h - 1);
        }
      else
        {
          cairo_move_to (cr, x, cy);
          cairo_line_to (cr, x + w, cy);
        }
      cairo_stroke (cr);
      break;
    }
  cairo_restore (cr);
}

/* ---- Hover read-outs -------------------------------------------------------- */

/* Linear interpolation of Y (n values at sorted X) at x; NaN outside. */
static double
interp (const double *x, const double *y, gsize n, double at)
{
  if (n == 0 || !(at >= x[0] && at <= x[n - 1]))
    return NAN;
  gsize lo = 0, hi = n - 1;
  while (hi - lo > 1)
    {
      gsize mid = (lo + hi) / 2;
      if (x[mid] <= at)
        lo = mid;
      else
        hi = mid;
    }
  if (x[hi] == x[lo])
    return y[lo];
  double t = (at - x[lo]) / (x[hi] - x[lo]);
  return (1 - t) * y[lo] + t * y[hi];
}

static double
grid_value (const SbLayer *l, double x, double y)
{
  double u = (x - l->gx0) / (l->gx1 - l->gx0) * (l->nx - 1);
  double v = (y - l->gy0) / (l->gy1 - l->gy0) * (l->ny - 1);
  if (!(u >= 0 && v >= 0 && u <= l->nx - 1 && v <= l->ny - 1))
    return NAN;
  guint i = MIN ((guint) u, l->nx - 2), j = MIN ((guint) v, l->ny - 2);
  double a = u - i, b = v - j;
  const double *g = l->grid;
  return (1 - a) * (1 - b) * g[j * l->nx + i] + a * (1 - b) * g[j * l->nx + i + 1]
         + a * b * g[(j + 1) * l->nx + i + 1] + (1 - a) * b * g[(j + 1) * l->nx + i];
}

gboolean
sb_layer_describe (const SbLayer *l, const SbFrame *f, double x, double y,
                   GString *out)
{
  const char *name = l->label;
  const double pick = 8.0;   /* device units around a marker that count */

  if (name == NULL || l->readout_off)
    return FALSE;
  switch (l->kind)
    {
    case SB_LAYER_LINE:
      {
        if (l->n_rows == 2)
          {
            /* Two rows are a pair of bounds (e.g. an approximation's
             * credible interval). */
            double a = interp (l->x, l->y, l->n, x), b = interp (l->x, l->y + l->n, l->n, x);
            if (!(isfinite (a) && isfinite (b)))
              return FALSE;
            g_string_append_printf (out, "%s: [%.4g, %.4g]", name, MIN (a, b), MAX (a, b));
            return TRUE;
          }
        if (l->n_rows != 1)
          return FALSE;
        double v = interp (l->x, l->y, l->n, x);
        if (!isfinite (v))
          return FALSE;
        g_string_append_printf (out, "%s: %.4g", name, v);
        return TRUE;
      }
    case SB_LAYER_STEP:
      {
        double v = NAN;
        for (gsize i = 0; i < l->n && l->x[i] <= x; i++)
          v = l->y[i];
        if (!isfinite (v))
          return FALSE;
        g_string_append_printf (out, "%s: %.4g", name, v);
        return TRUE;
      }
    case SB_LAYER_BAND:
      {
        double lo = interp (l->x, l->y, l->n, x), hi = interp (l->x, l->y2, l->n, x);
        if (!(isfinite (lo) && isfinite (hi)))
          return FALSE;
        g_string_append_printf (out, "%s: [%.4g, %.4g]", name, lo, hi);
        return TRUE;
      }
    case SB_LAYER_MARKERS:
    case SB_LAYER_LINKS:
      {
        double dx = sb_frame_x_to_device (f, x), dy = sb_frame_y_to_device (f, y);
        double best = pick * pick;
        gssize which = -1;
        gboolean second = FALSE;
        for (gsize i = 0; i < l->n; i++)
          for (int e = 0; e < (l->kind == SB_LAYER_LINKS ? 2 : 1); e++)
            {
              double mx = e ? l->x2[i] : l->x[i], my = e ? l->y2[i] : l->y[i];
              double ex = sb_frame_x_to_device (f, mx) - dx;
              double ey = marker_y (f, my, l->style.marker_size) - dy;
              if (isfinite (ex) && ex * ex + ey * ey < best)
                {
                  best = ex * ex + ey * ey;
                  which = i;
                  second = e;
                }
            }
        if (which < 0)
          return FALSE;
        if (l->kind == SB_LAYER_LINKS)
          g_string_append_printf (out, "%s: %s %.4g over %.4g", name,
                                  second ? "loser" : "winner",
                                  l->x[which], l->x2[which]);
        else if (isnan (l->y[which]))
          g_string_append_printf (out, "%s at %.4g", name, l->x[which]);
        else
          g_string_append_printf (out, "%s: (%.4g, %.4g)", name, l->x[which], l->y[which]);
        return TRUE;
      }
    case SB_LAYER_CLASSMAP:
      {
        double u = (x - l->gx0) / (l->gx1 - l->gx0) * (l->nx - 1);
        double v = (y - l->gy0) / (l->gy1 - l->gy0) * (l->ny - 1);
        if (!(u >= 0 && v >= 0 && u <= l->nx - 1 && v <= l->ny - 1))
          return FALSE;
        const double *p = l->grid + ((gsize) lround (v) * l->nx + (gsize) lround (u)) * l->n_classes;
        if (!all_finite (p, l->n_classes))
          return FALSE;
        g_string_append_printf (out, "%s:", name);
        for (guint k = 0; k < l->n_classes; k++)
          g_string_append_printf (out, "%s P(class %u) = %.3f", k ? "," : "", k, p[k]);
        return TRUE;
      }
    case SB_LAYER_HEATMAP:
    case SB_LAYER_CONTOURS:   /* e.g. the Laplace field under the pointer */
      {
        double v = grid_value (l, x, y);
        if (!isfinite (v))
          return FALSE;
        g_string_append_printf (out, "%s: %.4g", name, v);
        return TRUE;
      }
    case SB_LAYER_HISTOGRAM:
      for (gsize i = 0; i < l->n; i++)
        if (x >= l->x[i] && x < l->x[i + 1])
          {
            g_string_append_printf (out, "%s: %.4g", name, l->y[i]);
            return TRUE;
          }
      return FALSE;
    case SB_LAYER_VLINE:
      if (fabs (sb_frame_x_to_device (f, l->x[0]) - sb_frame_x_to_device (f, x)) > pick)
        return FALSE;
      g_string_append_printf (out, "%s: %.4g", name, l->x[0]);
      return TRUE;
    case SB_LAYER_HLINE:
      g_string_append_printf (out, "%s: %.4g", name, l->y[0]);
      return TRUE;
    default:
      return FALSE;
    }
}
