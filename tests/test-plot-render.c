/* test-plot-render.c — the plotting toolkit without a display: every plot
 * is rendered with Cairo to image / SVG / PDF surfaces and checked for what
 * must be there (band pixels between the bounds, markers where the data
 * say, heatmap colours from the colour map, clipping under zoom, exported
 * files that parse).
 *
 * Set SB_PLOT_PNG_DIR=/some/dir to also write every view, from the
 * realistic fixtures (tests/data/plot-*.ini), as light and dark PNGs there
 * for a human to look at.
 */
#include "sb-render.h"
#include "sb-render-views.h"
#include "test-font-release.h"
#include "test-plot-fixture.h"

#include <cairo.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

/* ---- helpers ------------------------------------------------------------- */

#define W 640
#define H 420

/* A light palette where the roles under test have pure, unmistakable
 * colours (pixel classification by exact colour). */
static void
test_palette (SbPalette *p)
{
  sb_palette_init_light (p);
  p->roles[SB_ROLE_EXACT] = (SbColor) { 0, 0, 1, 1 };
  p->roles[SB_ROLE_OBSERVATION] = (SbColor) { 1, 0, 1, 1 };
  p->roles[SB_ROLE_BEST] = (SbColor) { 0, 1, 0, 1 };
  p->roles[SB_ROLE_NEXT] = (SbColor) { 1, 0, 0, 1 };
}

typedef struct {
  cairo_surface_t *surface;
  cairo_t *cr;
  SbFrame frame;
} Canvas;

static void
canvas_render (Canvas *c, SbScene *scene, const SbView *view, const SbPalette *p)
{
  c->surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  c->cr = cairo_create (c->surface);
  /* No antialiasing: every pixel is exactly a role colour or not, so the
   * geometric checks below can be tight (1 device unit). */
  cairo_set_antialias (c->cr, CAIRO_ANTIALIAS_NONE);
  sb_scene_layout (scene, view, c->cr, W, H, &c->frame);
  sb_scene_render (scene, view, c->cr, W, H, p, TRUE);
  g_assert_cmpint (cairo_status (c->cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_flush (c->surface);
}

static void
canvas_clear (Canvas *c)
{
  cairo_destroy (c->cr);
  cairo_surface_destroy (c->surface);
}

static guint32
pixel (const Canvas *c, int x, int y)
{
  const unsigned char *data = cairo_image_surface_get_data (c->surface);
  int stride = cairo_image_surface_get_stride (c->surface);
  return ((const guint32 *) (data + y * stride))[x] & 0xffffff;
}

static guint32
rgb (double r, double g, double b)
{
  return ((guint32) lround (r * 255) << 16) | ((guint32) lround (g * 255) << 8) | (guint32) lround (b * 255);
}

static SbStyle
solid (SbRole role)
{
  SbStyle st;
  sb_style_init (&st, role);
  return st;
}

/* ---- ticks and numbers ------------------------------------------------------ */

static gboolean
is_nice_step (double step)
{
  double e = floor (log10 (step));
  double f = step / pow (10, e);
  return fabs (f - 1) < 1e-9 || fabs (f - 2) < 1e-9 || fabs (f - 5) < 1e-9 || fabs (f - 10) < 1e-9;
}

static void
test_nice_numbers (void)
{
  g_assert_cmpfloat (sb_nice_number (0.75, TRUE), ==, 1.0);
  g_assert_cmpfloat (sb_nice_number (2.9, TRUE), ==, 2.0);
  g_assert_cmpfloat (sb_nice_number (3.1, TRUE), ==, 5.0);
  g_assert_cmpfloat_with_epsilon (sb_nice_number (0.031, FALSE), 0.05, 1e-15);
  g_assert_cmpfloat (sb_nice_number (101, FALSE), ==, 200.0);

  /* Many ranges: 1-2-5 steps, evenly spaced, inside, a sensible count. */
  static const double ranges[][2] = {
    { 0, 1 }, { -2.6, 2.6 }, { -1e-3, 4e-3 }, { 17, 18.3 }, { -250, 12000 },
    { 0.999, 1.001 }, { -3, -2.2 }, { 1e6, 3e6 }, { 3, 3 },
  };
  for (gsize r = 0; r < G_N_ELEMENTS (ranges); r++)
    for (int target = 3; target <= 9; target += 3)
      {
        double lo = ranges[r][0], hi = ranges[r][1], t[64];
        int dec;
        int n = sb_ticks (&lo, &hi, target, FALSE, t, 64, &dec);
        g_assert_cmpint (n, >=, 2);
        g_assert_cmpint (n, <=, 2 * target + 2);
        double step = t[1] - t[0];
        g_assert_true (is_nice_step (step));
        for (int i = 0; i < n; i++)
          {
            g_assert_cmpfloat (t[i], >=, lo - 1e-9 * fabs (step));
            g_assert_cmpfloat (t[i], <=, hi + 1e-9 * fabs (step));
            if (i > 0)
              g_assert_cmpfloat_with_epsilon (t[i] - t[i - 1], step, 1e-9 * step);
            /* Printing with DEC decimals shows the tick exactly. */
            char buf[64];
            sb_format_tick (t[i], dec, buf, sizeof buf);
            g_assert_cmpfloat_with_epsilon (g_ascii_strtod (buf, NULL), t[i], 1e-6 * step + 1e-300);
          }
        /* Loose ticks cover the range and start/end on it. */
        double a = ranges[r][0], b = ranges[r][1];
        n = sb_ticks (&a, &b, target, TRUE, t, 64, &dec);
        g_assert_cmpfloat (a, <=, ranges[r][0]);
        g_assert_cmpfloat (b, >=, ranges[r][1]);
        g_assert_cmpfloat_with_epsilon (t[0], a, 1e-9 * fabs (t[1] - t[0]));
      }

  char buf[32];
  sb_format_tick (-0.0, 1, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "0.0");
  sb_format_tick (-1e-17, 2, buf, sizeof buf);   /* round-off around zero */
  g_assert_cmpstr (buf, ==, "0.00");
  sb_format_tick (0.2, 1, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "0.2");
  sb_format_tick (2.5e6, 0, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "2.5e+06");
}

static void
test_log_ticks (void)
{
  double t[64];
  int n = sb_ticks_log (0.05, 30, t, 64);
  /* 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20: decades and 2, 5 multiples. */
  g_assert_cmpint (n, ==, 9);
  g_assert_cmpfloat_with_epsilon (t[0], 0.05, 1e-15);
  g_assert_cmpfloat_with_epsilon (t[8], 20, 1e-12);
  n = sb_ticks_log (1e-3, 1e9, t, 64);
  /* Wide range: decades only, thinned to at most ~8. */
  g_assert_cmpint (n, <=, 8);
  for (int i = 0; i < n; i++)
    g_assert_cmpfloat (fabs (log10 (t[i]) - round (log10 (t[i]))), <, 1e-9);
  g_assert_cmpint (sb_ticks_log (-1, 10, t, 64), ==, 0);
}


/* The frame of SCENE laid out at W x H (magnification M). */
static void
layout_at (SbScene *scene, double w, double h, double m, SbFrame *f)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  SbView view;

  sb_view_init_auto (&view);
  view.magnify = m;
  sb_scene_layout (scene, &view, cr, w, h, f);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* Every axis carries at least three labelled ticks: a skewness curve
 * whose values stay within [-0.04, 0.07] (a nice step of 0.1 would label
 * it "0.0" alone), on plots from 460 px down to 90 px high, a short x
 * range on a narrow plot, and a log axis spanning less than a decade. */
static void
test_ticks_at_least_three (void)
{
  static const double x[] = { 0, 0.5, 1 }, y[] = { -0.04, 0.07, 0.01 };
  static const double heights[] = { 460, 200, 120, 90 };
  g_autoptr (SbScene) scene = sb_scene_new ("Skewness SS(x)", "x1", "SS(x)");
  g_autoptr (SbScene) log_scene = sb_scene_new ("t", "x", "y");
  SbStyle st = sb_style_line (SB_ROLE_EXACT, 1.5, SB_DASH_SOLID, 1);

  sb_scene_take_layer (scene, sb_layer_new_line ("ss", "SS(x)", &st, 3, x, y));
  for (guint i = 0; i < G_N_ELEMENTS (heights); i++)
    for (int axis = 0; axis < 2; axis++)
      {
        SbFrame f;
        g_auto (GStrv) labels = NULL;
        layout_at (scene, axis ? 400 : 240, heights[i], 1, &f);
        labels = sb_scene_tick_labels (scene, &f, axis);
        g_test_message ("%s axis at %.0f px: %u ticks", axis ? "y" : "x", heights[i],
                        g_strv_length (labels));
        g_assert_cmpuint (g_strv_length (labels), >=, 3);
        /* distinct labels: three ticks that all read "0.0" say nothing */
        g_assert_cmpstr (labels[0], !=, labels[1]);
        g_assert_cmpstr (labels[1], !=, labels[2]);
      }
  sb_scene_take_layer (log_scene, sb_layer_new_line ("l", "l", &st, 3, x, (double[]) { 3, 8, 5 }));
  sb_scene_set_y_log (log_scene, TRUE);
  sb_scene_set_y_range (log_scene, 3, 8);
  {
    SbFrame f;
    g_auto (GStrv) labels = NULL;
    layout_at (log_scene, 400, 300, 1, &f);
    labels = sb_scene_tick_labels (log_scene, &f, TRUE);
    g_assert_cmpuint (g_strv_length (labels), >=, 3);
  }
}

/* A posterior's eleven legend entries (one label longer than the plot is
 * wide) are placed whole inside the drawing and outside the plot area,
 * at every size from a phone to a projector (magnification 2): in rows
 * above the plot that take at most a fifth of the height, else in a
 * column on its right, else in rows of smaller text; the plot keeps at
 * least half of the drawing. */
static void
test_legend_placement (void)
{
  static const char *labels[] = {
    "95% HPD band (exact)", "posterior samples", "median (exact)", "mean (exact)",
    "Laplace 95%", "Laplace mean", "EP 95%", "EP mean", "duel: winner \u25b2 \u2192 loser \u25bd",
    "next query", "current best x_r, the answered setting of largest posterior mean",
  };
  static const double sizes[][3] = {
    { 760, 460, 1 }, { 560, 420, 1 }, { 480, 300, 1 }, { 330, 440, 1 }, { 300, 180, 1 },
    { 1000, 640, 1.8 }, { 1200, 700, 2 }, { 620, 560, 1.8 },
  };
  static const double x[] = { 0, 1 }, y[] = { 0, 1 };
  g_autoptr (SbScene) scene = sb_scene_new ("Posterior of f", "x1", "f(x)");

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      SbStyle st = sb_style_line (SB_ROLE_SERIES_0 + i % 8, 1.5, SB_DASH_SOLID, 1);
      g_autofree char *id = g_strdup_printf ("l%u", i);
      sb_scene_take_layer (scene, sb_layer_new_line (id, labels[i], &st, 2, x, y));
    }
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      double w = sizes[k][0], h = sizes[k][1], m = sizes[k][2];
      SbFrame f;

      layout_at (scene, w, h, m, &f);
      g_test_message ("%.0f x %.0f at %.1fx: legend %s at %.0f,%.0f %.0fx%.0f, plot %.0fx%.0f",
                      w, h, m, f.legend == SB_LEGEND_TOP ? "top" : "right", f.lx, f.ly, f.lw,
                      f.lh, f.pw, f.ph);
      g_assert_cmpint (f.legend, !=, SB_LEGEND_NONE);
      g_assert_cmpfloat (f.lx, >=, 0);
      g_assert_cmpfloat (f.ly, >=, 0);
      g_assert_cmpfloat (f.lx + f.lw, <=, w + 1e-9);
      g_assert_cmpfloat (f.ly + f.lh, <=, h + 1e-9);
      if (f.legend == SB_LEGEND_TOP)
        g_assert_cmpfloat (f.ly + f.lh, <=, f.py);
      else
        g_assert_cmpfloat (f.lx, >=, f.px + f.pw);
      g_assert_cmpfloat (f.legend_scale, >=, 0.8 * m);
      /* the smallest drawing holds the legend whole, and little else */
      if (w * h >= 300 * 300)
        g_assert_cmpfloat (f.pw * f.ph, >=, 0.3 * w * h);
    }
}

/* Presentation mode: at magnification 2 the text, ticks and margins are
 * twice as large (the plot area shrinks accordingly), lines and markers
 * are drawn twice as wide, and a zoom keeps the magnification. */
static void
test_magnify (void)
{
  static const double x[] = { 0, 1 };
  g_autoptr (SbScene) scene = sb_scene_new ("Posterior of f", "x1", "f(x)");
  SbStyle st = sb_style_line (SB_ROLE_EXACT, 4, SB_DASH_SOLID, 1);
  SbPalette p;
  SbFrame f1, f2;
  guint dark[2];

  sb_palette_init_light (&p);
  sb_scene_take_layer (scene, sb_layer_new_line ("mean", "mean", &st, 2, x, (double[]) { 0.5, 0.5 }));
  sb_scene_set_y_range (scene, 0, 1);
  sb_scene_set_x_range (scene, 0, 1);
  layout_at (scene, 800, 600, 1, &f1);
  layout_at (scene, 800, 600, 2, &f2);
  g_assert_cmpfloat (f2.magnify, ==, 2);
  g_assert_cmpfloat (f2.legend_scale, ==, 2 * f1.legend_scale);
  g_assert_cmpfloat (f2.py - f1.py, >, 0.5 * f1.py);
  g_assert_cmpfloat (f2.px - f1.px, >, 0.5 * f1.px);
  /* the horizontal mean line at y = 0.5: count its rows at the centre */
  for (int k = 0; k < 2; k++)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 600);
      cairo_t *cr = cairo_create (surface);
      SbFrame *f = k ? &f2 : &f1;
      int stride, col = (int) (f->px + f->pw / 2);
      guchar *data;

      sb_scene_render (scene, &(SbView) { NAN, NAN, NAN, NAN, k ? 2 : 1 }, cr, 800, 600, &p, TRUE);
      cairo_surface_flush (surface);
      data = cairo_image_surface_get_data (surface);
      stride = cairo_image_surface_get_stride (surface);
      dark[k] = 0;
      for (int row = (int) f->py; row < (int) (f->py + f->ph); row++)
        {
          guint32 px = *(guint32 *) (data + row * stride + 4 * col);
          if (((px >> 16) & 0xff) < 128)   /* the exact role's blue: red channel low */
            dark[k]++;
        }
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
    }
  g_test_message ("mean line rows: %u at 1x, %u at 2x", dark[0], dark[1]);
  g_assert_cmpuint (dark[0], >=, 3);
  g_assert_cmpuint (dark[1], >=, 2 * dark[0] - 1);
}

/* The tick labels of SCENE's axis laid out at 760 x 460, joined by ' '. */
static char *
axis_labels (SbScene *scene, gboolean y_axis)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 760, 460);
  cairo_t *cr = cairo_create (surface);
  SbFrame f;
  g_auto (GStrv) labels = NULL;

  sb_scene_layout (scene, NULL, cr, 760, 460, &f);
  labels = sb_scene_tick_labels (scene, &f, y_axis);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return g_strjoinv (" ", labels);
}

/* Parameter axes: a log parameter's coordinates (log10) labelled in
 * natural units at decades, an integer one at whole numbers only, a
 * categorical one with its level names; the snapshot's scale reaches the
 * curve and heat-map scenes. */
static void
test_parameter_axes (void)
{
  static const char *const levels[] = { "serif", "sans", "mono", NULL };
  g_autoptr (SbScene) scene = sb_scene_new ("t", "gain", "f");
  g_autofree char *log_labels = NULL, *int_labels = NULL, *level_labels = NULL;

  sb_scene_set_x_range (scene, -2, 2);
  sb_scene_set_y_range (scene, 0, 1);
  sb_scene_set_axis_scale (scene, FALSE, SB_AXIS_LOG10, NULL);
  log_labels = axis_labels (scene, FALSE);
  g_assert_cmpstr (log_labels, ==, "0.01 0.1 1 10 100");

  sb_scene_set_x_range (scene, 0.6, 4.4);
  sb_scene_set_axis_scale (scene, FALSE, SB_AXIS_INTEGER, NULL);
  int_labels = axis_labels (scene, FALSE);
  g_assert_cmpstr (int_labels, ==, "1 2 3 4");

  sb_scene_set_y_range (scene, -0.2, 2.2);
  sb_scene_set_axis_scale (scene, TRUE, SB_AXIS_LEVELS, levels);
  level_labels = axis_labels (scene, TRUE);
  g_assert_cmpstr (level_labels, ==, "serif sans mono");

  /* from a snapshot: the posterior along a log gain */
  {
    enum { N = 5 };
    g_autoptr (SbPlotSnapshot) snap = sb_plot_snapshot_new (2, 1);
    double grid[N] = { -2, -1, 0, 1, 2 };
    sg_point_summary sum[N];
    SbPlotOptions o;
    g_autoptr (SbScene) curve = NULL;
    g_autofree char *labels = NULL, *note = NULL;
    double best[2] = { 0, 2 };

    memset (sum, 0, sizeof sum);
    for (int i = 0; i < N; i++)
      {
        sum[i].mean = sum[i].median = 0.1 * i;
        sum[i].sd = 0.2;
        sum[i].lower = sum[i].hpd_lower = -0.3;
        sum[i].upper = sum[i].hpd_upper = 0.6;
      }
    sb_plot_snapshot_set_parameter (snap, 0, "gain", -2, 2);
    sb_plot_snapshot_set_parameter_scale (snap, 0, SB_SCALE_LOG, NULL);
    sb_plot_snapshot_set_parameter (snap, 1, "font", 0, 2);
    sb_plot_snapshot_set_parameter_scale (snap, 1, SB_SCALE_CATEGORICAL, levels);
    sb_plot_snapshot_set_curve_grid (snap, 0, N, grid);
    sb_plot_snapshot_set_summaries (snap, SB_POSTERIOR_EXACT, sum);
    sb_plot_snapshot_set_best (snap, best);
    sb_plot_snapshot_freeze (snap);
    sb_plot_options_init (&o, SB_PLOT_POSTERIOR);
    curve = sb_plot_build (&o, snap, NULL);
    labels = axis_labels (curve, FALSE);
    g_assert_cmpstr (labels, ==, "0.01 0.1 1 10 100");
    /* the other coordinate, held at the best point, by its level name */
    g_assert_nonnull (strstr (sb_scene_get_subtitle (curve), "font = mono"));
  }
}

/* ---- colour maps ---------------------------------------------------------------- */

static double
luminance (const SbColor *c)
{
  return 0.2126 * c->r + 0.7152 * c->g + 0.0722 * c->b;
}

/* CIELAB lightness L* (0..100) of an sRGB colour: the perceptual measure
 * the colour maps are designed around. */
static double
lightness (const SbColor *c)
{
  double ch[3] = { c->r, c->g, c->b }, lin[3];
  for (int k = 0; k < 3; k++)
    lin[k] = ch[k] <= 0.04045 ? ch[k] / 12.92 : pow ((ch[k] + 0.055) / 1.055, 2.4);
  double y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return y > 0.008856 ? 116 * cbrt (y) - 16 : 903.3 * y;
}

static void
test_colormaps (void)
{
  SbColor c, d;
  /* Viridis ends (matplotlib table: #440154 and #fde725); the polynomial
   * fit is good to ~0.01, so 0.02 is a fair bound. */
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, 0, &c);
  g_assert_cmpfloat (fabs (c.r - 0x44 / 255.0), <, 0.02);
  g_assert_cmpfloat (fabs (c.g - 0x01 / 255.0), <, 0.02);
  g_assert_cmpfloat (fabs (c.b - 0x54 / 255.0), <, 0.02);
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, 1, &c);
  g_assert_cmpfloat (fabs (c.r - 0xfd / 255.0), <, 0.02);
  g_assert_cmpfloat (fabs (c.g - 0xe7 / 255.0), <, 0.02);
  g_assert_cmpfloat (fabs (c.b - 0x25 / 255.0), <, 0.02);
  /* Sequential: lightness strictly increasing, and nearly linearly
   * (viridis goes from L* 15 to 92). */
  double last = -1;
  for (int k = 0; k <= 64; k++)
    {
      sb_colormap_eval (SB_COLORMAP_VIRIDIS, k / 64.0, &c);
      g_assert_cmpfloat (lightness (&c), >, last);
      g_assert_cmpfloat (fabs (lightness (&c) - (15 + 77 * k / 64.0)), <, 6);
      last = lightness (&c);
    }
  /* Diverging: blue end, red end, neutral centre, lightness symmetric about
   * the centre and highest there. */
  sb_colormap_eval (SB_COLORMAP_COOLWARM, 0, &c);
  g_assert_cmpfloat (c.b, >, c.r + 0.3);
  sb_colormap_eval (SB_COLORMAP_COOLWARM, 1, &c);
  g_assert_cmpfloat (c.r, >, c.b + 0.3);
  sb_colormap_eval (SB_COLORMAP_COOLWARM, 0.5, &c);
  g_assert_cmpfloat (fabs (c.r - c.g), <, 0.04);
  g_assert_cmpfloat (fabs (c.g - c.b), <, 0.04);
  g_assert_cmpfloat (lightness (&c), >, 85);
  for (int k = 0; k < 16; k++)
    {
      sb_colormap_eval (SB_COLORMAP_COOLWARM, k / 32.0, &c);
      sb_colormap_eval (SB_COLORMAP_COOLWARM, 1 - k / 32.0, &d);
      /* Moreland's ends have equal lightness (L* = 37.7 for both); the
       * Msh interpolation keeps the two halves mirror images in L*, up to
       * the rounding of the end colours: 2 L* units (a just noticeable
       * difference is about 1-2). */
      g_assert_cmpfloat (fabs (lightness (&c) - lightness (&d)), <, 2.0);
      SbColor e;
      sb_colormap_eval (SB_COLORMAP_COOLWARM, (k + 1) / 32.0, &e);
      g_assert_cmpfloat (lightness (&e), >, lightness (&c));
    }
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, NAN, &c);
  g_assert_cmpfloat (c.a, ==, 0);
}

/* ---- marching squares -------------------------------------------------------- */

typedef struct {
  double max_err;
  gsize n;
  double cx, cy, r;
} CircleCheck;

static void
check_on_circle (double ax, double ay, double bx, double by, gpointer data)
{
  CircleCheck *c = data;
  double ea = fabs (hypot (ax - c->cx, ay - c->cy) - c->r);
  double eb = fabs (hypot (bx - c->cx, by - c->cy) - c->r);
  c->max_err = MAX (c->max_err, MAX (ea, eb));
  c->n++;
}

static void
test_contours (void)
{
  const guint n = 41;
  double v[41 * 41];
  for (guint j = 0; j < n; j++)
    for (guint i = 0; i < n; i++)
      {
        double x = -1 + 2.0 * i / (n - 1), y = -1 + 2.0 * j / (n - 1);
        v[j * n + i] = x * x + y * y;
      }
  CircleCheck c = { 0, 0, 0, 0, 0.5 };
  gsize segs = sb_contour_segments (v, n, n, -1, 1, -1, 1, 0.25, check_on_circle, &c);
  g_assert_cmpuint (segs, ==, c.n);
  /* A circle of radius 0.5 crosses about 2 pi r / h = 63 cells; linear
   * interpolation of r^2 along an edge of length h = 0.05 is off by at most
   * h^2 / (8 r) = 6e-4 in radius. */
  g_assert_cmpuint (segs, >=, 50);
  g_assert_cmpuint (segs, <=, 100);
  g_assert_cmpfloat (c.max_err, <, 1e-3);

  /* Off-centre circle through a non-square box. */
  double w[31 * 21];
  for (guint j = 0; j < 21; j++)
    for (guint i = 0; i < 31; i++)
      {
        double x = 3.0 * i / 30, y = -1 + 2.0 * j / 20;
        w[j * 31 + i] = (x - 1.2) * (x - 1.2) + y * y;
      }
  CircleCheck c2 = { 0, 0, 1.2, 0, 0.7 };
  sb_contour_segments (w, 31, 21, 0, 3, -1, 1, 0.49, check_on_circle, &c2);
  g_assert_cmpuint (c2.n, >, 20);
  g_assert_cmpfloat (c2.max_err, <, 5e-3);

  /* Joined into polylines: the circle is one closed line through every
   * segment end; a level crossing the box edge gives an open line whose
   * ends lie on the border. */
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *lens = g_array_new (FALSE, FALSE, sizeof (guint));
  g_assert_cmpuint (sb_contour_lines (v, n, n, -1, 1, -1, 1, 0.25, pts, lens), ==, 1);
  guint np = g_array_index (lens, guint, 0);
  /* Every segment but the zero-length ones at grid nodes that lie exactly
   * on the circle (e.g. (0.3, 0.4)). */
  g_assert_cmpuint (np, >=, segs - 12);
  g_assert_cmpuint (np, <=, segs + 1);
  const double *pp = (const double *) pts->data;
  g_assert_cmpfloat (hypot (pp[0] - pp[2 * (np - 1)], pp[1] - pp[2 * (np - 1) + 1]), <, 1e-9);
  for (guint i = 0; i < np; i++)
    g_assert_cmpfloat (fabs (hypot (pp[2 * i], pp[2 * i + 1]) - 0.5), <, 1e-3);
  g_array_set_size (pts, 0);
  g_array_set_size (lens, 0);
  /* v = x^2 + y^2 at level 1.2: four arcs cut by the square's sides. */
  g_assert_cmpuint (sb_contour_lines (v, n, n, -1, 1, -1, 1, 1.2, pts, lens), ==, 4);
  gsize at = 0;
  for (guint k = 0; k < 4; k++)
    {
      guint m = g_array_index (lens, guint, k);
      const double *a = &g_array_index (pts, double, 2 * at);
      const double *b = &g_array_index (pts, double, 2 * (at + m - 1));
      g_assert_cmpfloat (MAX (fabs (a[0]), fabs (a[1])), >, 1 - 1e-9);
      g_assert_cmpfloat (MAX (fabs (b[0]), fabs (b[1])), >, 1 - 1e-9);
      at += m;
    }
  g_array_unref (pts);
  g_array_unref (lens);

  /* Saddle: v = x y on a 2 x 2 grid over [-1, 1]^2 has corners + - + -
   * around; level 0.1 (centre 0 < level) gives two segments, and so does
   * level -0.1. */
  double s[4] = { 1, -1, -1, 1 };
  g_assert_cmpuint (sb_contour_segments (s, 2, 2, -1, 1, -1, 1, 0.1, NULL, NULL), ==, 2);
  g_assert_cmpuint (sb_contour_segments (s, 2, 2, -1, 1, -1, 1, -0.1, NULL, NULL), ==, 2);
  /* NaN cells are skipped; levels outside the range give nothing. */
  double nanv[4] = { 0, 1, NAN, 1 };
  g_assert_cmpuint (sb_contour_segments (nanv, 2, 2, 0, 1, 0, 1, 0.5, NULL, NULL), ==, 0);
  g_assert_cmpuint (sb_contour_segments (v, n, n, -1, 1, -1, 1, 5.0, NULL, NULL), ==, 0);
}

/* ---- band pixels lie between the bounds ---------------------------------------- */

/* Renders only a band from LOWER to UPPER (opaque, pure blue) and checks,
 * column by column, that blue pixels lie between the device images of the
 * two curves (1 device unit of slack for pixel coverage), and that pixels
 * more than 1.5 units inside are blue. Returns the blue pixel count. */
static gsize
check_band (SbScene *scene, gsize n, const double *x, const double *lower,
            const double *upper)
{
  SbPalette p;
  Canvas c;
  gsize blue = 0, columns = 0;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  const SbFrame *f = &c.frame;
  guint32 band = rgb (0, 0, 1);

  for (int px = (int) ceil (f->px) + 1; px < (int) (f->px + f->pw) - 1; px++)
    {
      double xd = sb_frame_x_from_device (f, px + 0.5);
      if (xd < x[0] || xd > x[n - 1])
        continue;
      gsize k = 0;
      while (k + 2 < n && x[k + 1] < xd)
        k++;
      double t = (xd - x[k]) / (x[k + 1] - x[k]);
      double lo = (1 - t) * lower[k] + t * lower[k + 1];
      double hi = (1 - t) * upper[k] + t * upper[k + 1];
      /* The polygon edge is straight between grid points, so its device y
       * at this pixel centre is this interpolation. The rasteriser decides
       * pixel by pixel along each row, so a pixel may be off by half a unit
       * horizontally: allow 1 unit plus half a unit times the edge's device
       * slope. */
      double top = sb_frame_y_to_device (f, hi), bottom = sb_frame_y_to_device (f, lo);
      double ddx = sb_frame_x_to_device (f, x[k + 1]) - sb_frame_x_to_device (f, x[k]);
      double slope_top = fabs (sb_frame_y_to_device (f, upper[k + 1]) - sb_frame_y_to_device (f, upper[k])) / ddx;
      double slope_bot = fabs (sb_frame_y_to_device (f, lower[k + 1]) - sb_frame_y_to_device (f, lower[k])) / ddx;
      double tol_top = 1.0 + 0.5 * slope_top, tol_bot = 1.0 + 0.5 * slope_bot;
      columns++;
      for (int py = (int) f->py + 1; py < (int) (f->py + f->ph) - 1; py++)
        {
          double yc = py + 0.5;
          gboolean is_band = pixel (&c, px, py) == band;
          if (is_band)
            {
              blue++;
              if (yc < top - tol_top || yc > bottom + tol_bot)
                g_error ("band pixel (%d, %d) outside [%g, %g]", px, py, top, bottom);
            }
          else if (yc > top + tol_top + 0.5 && yc < bottom - tol_bot - 0.5)
            g_error ("pixel (%d, %d) inside the band [%g, %g] is not band coloured", px, py, top, bottom);
        }
    }
  g_assert_cmpuint (columns, >, 300);
  canvas_clear (&c);
  return blue;
}

static void
test_band_pixels (void)
{
  double x[200], lo[200], hi[200];
  for (int i = 0; i < 200; i++)
    {
      x[i] = 2 * G_PI * i / 199;
      lo[i] = sin (x[i]) - 0.3 - 0.2 * cos (3 * x[i]);
      hi[i] = sin (x[i]) + 0.5;
    }
  g_autoptr (SbScene) scene = sb_scene_new ("band", "x", "y");
  SbStyle st = solid (SB_ROLE_EXACT);
  sb_scene_take_layer (scene, sb_layer_new_band ("band", "band", &st, 200, x, lo, hi));
  gsize blue = check_band (scene, 200, x, lo, hi);
  g_assert_cmpuint (blue, >, 10000);
}

static void
test_band_pixels_fixture (void)
{
  /* The exact HPD band of the realistic 1-D fixture, drawn alone. */
  g_autoptr (SbPlotSnapshot) snap = plot_fixture_load ("plot-1d.ini", NULL);
  const double *x;
  gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, &x);
  const sg_point_summary *s = sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT);
  g_autofree double *lo = g_new (double, n), *hi = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      lo[i] = s[i].hpd_lower;
      hi[i] = s[i].hpd_upper;
      g_assert_cmpfloat (lo[i], <=, hi[i]);
    }
  g_autoptr (SbScene) scene = sb_scene_new ("HPD band", "x", "f");
  SbStyle st = solid (SB_ROLE_EXACT);
  sb_scene_take_layer (scene, sb_layer_new_band ("band", "band", &st, n, x, lo, hi));
  sb_scene_set_x_range (scene, x[0], x[n - 1]);
  check_band (scene, n, x, lo, hi);
}

/* ---- markers at the right coordinates ------------------------------------------- */

/* Centroid of pixels of colour COL within R device units of (CX, CY). */
static gsize
blob_centroid (const Canvas *c, guint32 col, double cx, double cy, int r,
               double *mx, double *my)
{
  gsize cnt = 0;
  double sx = 0, sy = 0;
  for (int y = (int) cy - r; y <= (int) cy + r; y++)
    for (int x = (int) cx - r; x <= (int) cx + r; x++)
      if (x >= 0 && y >= 0 && x < W && y < H && pixel (c, x, y) == col)
        {
          sx += x + 0.5;
          sy += y + 0.5;
          cnt++;
        }
  if (cnt)
    {
      *mx = sx / cnt;
      *my = sy / cnt;
    }
  return cnt;
}

static void
test_marker_positions (void)
{
  static const double xs[] = { 0.1, 0.5, 0.93, 0.3 }, ys[] = { 2.0, -1.0, 0.5, 1.7 };
  g_autoptr (SbScene) scene = sb_scene_new ("markers", "x", "y");
  SbStyle st = solid (SB_ROLE_OBSERVATION);
  st.marker = SB_MARKER_SQUARE;   /* symmetric about its centre */
  st.marker_size = 4;
  sb_scene_take_layer (scene, sb_layer_new_markers ("m", "points", &st, 4, xs, ys));
  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  for (int i = 0; i < 4; i++)
    {
      double ex = sb_frame_x_to_device (&c.frame, xs[i]), ey = sb_frame_y_to_device (&c.frame, ys[i]);
      double mx = 0, my = 0;
      gsize cnt = blob_centroid (&c, rgb (1, 0, 1), ex, ey, 10, &mx, &my);
      /* A filled 7.2 x 7.2 square minus its 1-unit outline: ~30-50 pixels. */
      g_assert_cmpuint (cnt, >=, 20);
      g_assert_cmpfloat (fabs (mx - ex), <, 1.0);
      g_assert_cmpfloat (fabs (my - ey), <, 1.0);
    }
  /* Nothing of that colour anywhere else (below the legend's swatch). */
  gsize total = 0;
  for (int y = (int) c.frame.py; y < H; y++)
    for (int x = 0; x < W; x++)
      total += pixel (&c, x, y) == rgb (1, 0, 1);
  gsize near = 0;
  for (int i = 0; i < 4; i++)
    {
      double mx, my;
      near += blob_centroid (&c, rgb (1, 0, 1), sb_frame_x_to_device (&c.frame, xs[i]),
                             sb_frame_y_to_device (&c.frame, ys[i]), 10, &mx, &my);
    }
  g_assert_cmpuint (total, ==, near);
  canvas_clear (&c);
}

static double
interp_mean (const double *x, const sg_point_summary *s, gsize n, double at)
{
  gsize k = 0;
  while (k + 2 < n && x[k + 1] < at)
    k++;
  double t = (at - x[k]) / (x[k + 1] - x[k]);
  return (1 - t) * s[k].mean + t * s[k + 1].mean;
}

static void
test_model_label (void)
{
  /* The legends name the session's own model: "exact" for the SkewGP
   * posterior, the surrogate's name for an approximation. */
  g_autoptr (SbPlotSnapshot) exact = plot_fixture_load ("plot-1d.ini", NULL);
  g_autoptr (GKeyFile) kf = plot_fixture_key_file ("plot-1d.ini");
  g_key_file_set_string (kf, "meta", "model_label", "Laplace");
  g_autoptr (SbPlotSnapshot) laplace = plot_fixture_from_key_file (kf, NULL);
  SbPlotOptions o;
  sb_plot_options_init (&o, SB_PLOT_POSTERIOR);
  o.show_median = TRUE;
  g_autoptr (SbScene) se = sb_plot_build (&o, exact, NULL);
  g_autoptr (SbScene) sl = sb_plot_build (&o, laplace, NULL);

  g_assert_cmpstr (sb_layer_get_label (sb_scene_find_layer (se, "mean/exact")), ==, "mean (exact)");
  g_assert_cmpstr (sb_layer_get_label (sb_scene_find_layer (sl, "mean/exact")), ==, "mean (Laplace)");
  g_assert_cmpstr (sb_layer_get_label (sb_scene_find_layer (sl, "median/exact")), ==, "median (Laplace)");
  g_assert_nonnull (strstr (sb_layer_get_label (sb_scene_find_layer (sl, "band/exact")), "(Laplace)"));
}

static void
test_duel_markers_fixture (void)
{
  /* The posterior view of the 1-D fixture: every duel has a winner marker
   * (filled) and a loser marker at (x, exact mean at x), and x_r has its
   * star. Only those layers are drawn, in pure colours. */
  g_autoptr (SbPlotSnapshot) snap = plot_fixture_load ("plot-1d.ini", NULL);
  SbPlotOptions o;
  sb_plot_options_init (&o, SB_PLOT_POSTERIOR);
  g_autoptr (SbScene) full = sb_plot_build (&o, snap, NULL);
  SbLayer *duels = sb_scene_find_layer (full, "obs/duels");
  SbLayer *best = sb_scene_find_layer (full, "best/marker");
  g_assert_nonnull (duels);
  g_assert_nonnull (best);
  g_assert_cmpuint (sb_layer_get_n (duels), ==, 12);

  /* Same axes as the full view: keep the band (for the y range) but in a
   * role whose colour is not under test. */
  g_autoptr (SbScene) scene = sb_scene_new ("duels", "x", "f");
  const double *x;
  gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, &x);
  sb_scene_set_x_range (scene, -2.6, 2.6);
  sb_scene_take_layer (scene, sb_layer_ref (duels));
  sb_scene_take_layer (scene, sb_layer_ref (best));
  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);

  const sg_point_summary *s = sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT);
  for (gsize i = 0; i < sb_plot_snapshot_get_n_observations (snap); i++)
    {
      const SbObservation *ob = sb_plot_snapshot_get_observation (snap, i);
      for (int e = 0; e < 2; e++)
        {
          double xv = e ? ob->x_loser[0] : ob->x[0];
          double ex = sb_frame_x_to_device (&c.frame, xv);
          double ey = sb_frame_y_to_device (&c.frame, interp_mean (x, s, n, xv));
          double mx, my;
          /* Markers may overlap (repeated winners); require pixels of the
           * observation colour within 3 units of the expected centre. */
          gsize cnt = blob_centroid (&c, rgb (1, 0, 1), ex, ey, 3, &mx, &my);
          /* The x_r star is drawn on top of the duels it took part in. */
          if (xv == sb_plot_snapshot_get_best (snap)[0])
            cnt += blob_centroid (&c, rgb (0, 1, 0), ex, ey, 3, &mx, &my);
          if (cnt == 0)
            g_error ("no marker for duel %" G_GSIZE_FORMAT " end %d at (%g, %g)", i, e, ex, ey);
        }
    }
  const double *xr = sb_plot_snapshot_get_best (snap);
  double mx, my;
  double ex = sb_frame_x_to_device (&c.frame, xr[0]);
  double ey = sb_frame_y_to_device (&c.frame, interp_mean (x, s, n, xr[0]));
  g_assert_cmpuint (blob_centroid (&c, rgb (0, 1, 0), ex, ey, 12, &mx, &my), >, 20);
  /* The star is symmetric left-right; its centroid sits a little below
   * the centre (five points, the top one alone), within 2 units. */
  g_assert_cmpfloat (fabs (mx - ex), <, 1.0);
  g_assert_cmpfloat (fabs (my - ey), <, 2.0);
  canvas_clear (&c);
}

/* Pixels of exactly colour COL within R device units of (CX, CY). */
static gsize
count_near (const Canvas *c, guint32 col, double cx, double cy, int r)
{
  double mx, my;
  return blob_centroid (c, col, cx, cy, r, &mx, &my);
}

/* A tie and a best-of-3 choice (two linked pairs) next to a duel: each
 * kind is its own layer with its own legend entry, none of them drawn as
 * a lone point; the tie's ends are hollow circles alike (neither won),
 * dashed, the choice links the chosen option's filled diamond to each
 * other option's hollow circle. In the 2-D view they link the same
 * points. */
static void
test_tie_choice_layers (void)
{
  const char *files[] = { "plot-1d.ini", "plot-2d.ini" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autoptr (GKeyFile) kf = plot_fixture_key_file (files[f]);
      gboolean two_d = f == 1;
      g_autoptr (SbPlotSnapshot) snap = NULL;
      g_autoptr (SbScene) scene = NULL;
      SbPlotOptions o;
      SbLayer *ties, *choices, *duels;
      const SbStyle *ts, *cs;

      g_key_file_set_string (kf, "observations", "kinds", "duel;tie;choice;choice");
      if (two_d)
        {
          g_key_file_set_string (kf, "observations", "x", "0.5;0.5;-1;0.5;0.6;-0.6;0.6;-0.6");
          g_key_file_set_string (kf, "observations", "x_loser", "-0.5;-0.5;1;-0.5;-0.6;0.6;0.6;0.6");
        }
      else
        {
          g_key_file_set_string (kf, "observations", "x", "0.5;-1.5;1.2;1.2");
          g_key_file_set_string (kf, "observations", "x_loser", "-0.5;1.8;-2;0");
        }
      g_key_file_set_string (kf, "observations", "y", "nan;nan;nan;nan");
      snap = plot_fixture_from_key_file (kf, NULL);
      sb_plot_options_init (&o, two_d ? SB_PLOT_HEATMAP : SB_PLOT_POSTERIOR);
      o.field = SB_FIELD_MEAN;
      scene = sb_plot_build (&o, snap, NULL);
      ties = sb_scene_find_layer (scene, "obs/ties");
      choices = sb_scene_find_layer (scene, "obs/choices");
      duels = sb_scene_find_layer (scene, "obs/duels");
      g_assert_nonnull (ties);
      g_assert_nonnull (choices);
      g_assert_nonnull (duels);
      g_assert_null (sb_scene_find_layer (scene, two_d ? "obs/points" : "obs/binary"));
      g_assert_cmpint (sb_layer_get_kind (ties), ==, SB_LAYER_LINKS);
      g_assert_cmpint (sb_layer_get_kind (choices), ==, SB_LAYER_LINKS);
      g_assert_cmpuint (sb_layer_get_n (duels), ==, 1);
      g_assert_cmpuint (sb_layer_get_n (ties), ==, 1);
      g_assert_cmpuint (sb_layer_get_n (choices), ==, 2);
      g_assert_nonnull (strstr (sb_layer_get_label (ties), "about the same"));
      g_assert_nonnull (strstr (sb_layer_get_label (choices), "best of k"));
      ts = sb_layer_get_style (ties);
      cs = sb_layer_get_style (choices);
      g_assert_true (ts->ends_alike);
      g_assert_false (ts->filled);
      g_assert_cmpint (ts->dash, !=, SB_DASH_SOLID);
      g_assert_cmpint (ts->marker, ==, ts->marker2);
      g_assert_true (cs->filled);
      g_assert_false (cs->ends_alike);
      g_assert_cmpint (cs->marker, !=, cs->marker2);
      g_assert_cmpint (cs->marker, !=, sb_layer_get_style (duels)->marker);

      if (!two_d)
        {
          /* Drawn: both ends of the tie are rings of the observation
           * colour around a hollow centre. */
          g_autoptr (SbScene) alone = sb_scene_new ("ties", "x", "f");
          SbPalette p;
          Canvas c;
          const double *gx;
          gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, &gx);
          const sg_point_summary *s = sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT);
          double ends[2] = { -1.5, 1.8 };

          sb_scene_set_x_range (alone, -2.6, 2.6);
          sb_scene_take_layer (alone, sb_layer_ref (sb_scene_find_layer (scene, "band/exact")));
          sb_scene_take_layer (alone, sb_layer_ref (ties));
          test_palette (&p);
          p.roles[SB_ROLE_EXACT] = p.background;
          canvas_render (&c, alone, NULL, &p);
          for (int e = 0; e < 2; e++)
            {
              double ex = sb_frame_x_to_device (&c.frame, ends[e]);
              double ey = sb_frame_y_to_device (&c.frame, interp_mean (gx, s, n, ends[e]));
              g_assert_cmpuint (count_near (&c, rgb (1, 0, 1), ex, ey, 6), >, 4);
              g_assert_cmpuint (count_near (&c, rgb (1, 0, 1), ex, ey, 1), ==, 0);
            }
          canvas_clear (&c);
        }
    }
}

/* ---- heatmap colours ------------------------------------------------------------ */

static void
test_heatmap_colors (void)
{
  /* v(x, y) = x on [0, 1] x [0, 2]: the colour at every node is the colour
   * map at x. */
  enum { NX = 11, NY = 5 };
  double v[NX * NY];
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++)
      v[j * NX + i] = i / (double) (NX - 1);
  g_autoptr (SbScene) scene = sb_scene_new ("heat", "x", "y");
  sb_scene_set_x_range (scene, 0, 1);
  sb_scene_set_y_range (scene, 0, 2);
  sb_scene_take_layer (scene, sb_layer_new_heatmap ("h", "v", NX, NY, v, 0, 1, 0, 2,
                                                    SB_COLORMAP_VIRIDIS, 0, 1));
  sb_scene_set_colorbar (scene, "h", "v");
  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  for (int i = 1; i < NX - 1; i++)
    for (int j = 1; j < NY - 1; j++)
      {
        int px = (int) sb_frame_x_to_device (&c.frame, i / (double) (NX - 1));
        int py = (int) sb_frame_y_to_device (&c.frame, 2.0 * j / (NY - 1));
        guint32 got = pixel (&c, px, py);
        SbColor want;
        sb_colormap_eval (SB_COLORMAP_VIRIDIS, i / (double) (NX - 1), &want);
        /* Bilinear filtering between nodes 1/10 apart moves the colour by at
         * most a half pixel's worth of gradient: ~0.02 per channel. */
        double r = ((got >> 16) & 0xff) / 255.0, g = ((got >> 8) & 0xff) / 255.0, b = (got & 0xff) / 255.0;
        if (fabs (r - want.r) > 0.03 || fabs (g - want.g) > 0.03 || fabs (b - want.b) > 0.03)
          g_error ("heatmap node (%d, %d): got #%06x, want (%g, %g, %g)", i, j, got, want.r, want.g, want.b);
      }
  /* The colour bar sits right of the plot, bottom = map(0), top = map(1). */
  SbColor lo, hi;
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, 0.02, &lo);
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, 0.98, &hi);
  int bx = (int) (c.frame.px + c.frame.pw + 12 + 6);
  guint32 bottom = pixel (&c, bx, (int) (c.frame.py + c.frame.ph) - 3);
  guint32 top = pixel (&c, bx, (int) c.frame.py + 3);
  g_assert_cmpint (abs ((int) ((bottom >> 16) & 0xff) - (int) lround (lo.r * 255)), <, 10);
  g_assert_cmpint (abs ((int) ((top >> 8) & 0xff) - (int) lround (hi.g * 255)), <, 10);
  canvas_clear (&c);
}

/* The class map's colour for class K at probability P: the background
 * moved towards the class colour by SB_CLASSMAP_TINT times how far P is
 * from 1/3 towards 1 (three classes). */
static SbColor
class_tint (const SbPalette *p, guint k, double prob)
{
  const SbColor *bg = &p->background, *c = &p->roles[SB_ROLE_CLASS_0 + k];
  double t = SB_CLASSMAP_TINT * (prob - 1.0 / 3) / (2.0 / 3);
  return (SbColor) { bg->r + t * (c->r - bg->r), bg->g + t * (c->g - bg->g),
                     bg->b + t * (c->b - bg->b), 1 };
}

static void
assert_close_color (guint32 got, const SbColor *want, double tol, const char *what)
{
  double r = ((got >> 16) & 0xff) / 255.0, g = ((got >> 8) & 0xff) / 255.0, b = (got & 0xff) / 255.0;
  if (fabs (r - want->r) > tol || fabs (g - want->g) > tol || fabs (b - want->b) > tol)
    g_error ("%s: got #%06x, want (%.3f, %.3f, %.3f)", what, got, want->r, want->g, want->b);
}

static void
test_classmap_colors (void)
{
  /* Three blocks of columns on [0, 8] x [0, 2]: class 0 certain, all
   * three equally likely, class 2 at P = 0.6. */
  enum { NX = 9, NY = 3 };
  static const double block[3][3] = { { 1, 0, 0 }, { 1.0 / 3, 1.0 / 3, 1.0 / 3 }, { 0.2, 0.2, 0.6 } };
  double probs[NX * NY * 3];
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++)
      memcpy (probs + 3 * (j * NX + i), block[i / 3], sizeof block[0]);
  g_autoptr (SbScene) scene = sb_scene_new ("classes", "x", "y");
  sb_scene_set_x_range (scene, 0, 8);
  sb_scene_set_y_range (scene, 0, 2);
  sb_scene_take_layer (scene, sb_layer_new_classmap ("c", "classes", NX, NY, 3, probs, 0, 8, 0, 2));
  sb_scene_set_colorbar (scene, "c", "P");
  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  /* Node centres (bilinear filtering between equal neighbours changes
   * nothing; 0.02 covers rounding to 8 bits). */
  SbColor want[3] = { class_tint (&p, 0, 1), p.background, class_tint (&p, 2, 0.6) };
  for (int b = 0; b < 3; b++)
    {
      int px = (int) sb_frame_x_to_device (&c.frame, 3 * b + 1);
      int py = (int) sb_frame_y_to_device (&c.frame, 1);
      assert_close_color (pixel (&c, px, py), &want[b], 0.02, "class map block");
    }
  /* The colour bar: one strip per class, each its class's full tint at
   * the top (P = 1) and the background at the bottom (P = 1/3). */
  for (guint k = 0; k < 3; k++)
    {
      int bx = (int) (c.frame.px + c.frame.pw + 12 + 6 * k + 3);
      SbColor top = class_tint (&p, k, 1);
      assert_close_color (pixel (&c, bx, (int) c.frame.py + 2), &top, 0.06, "colour bar top");
      assert_close_color (pixel (&c, bx, (int) (c.frame.py + c.frame.ph) - 2), &p.background, 0.06,
                          "colour bar bottom");
    }
  canvas_clear (&c);
}

/* An equal-aspect plot in a wide chart is narrowed and centred, and the
 * legend above it wraps at the narrower width: its rows must still end
 * above the plot (no text inside the plot area). */
static void
test_aspect_legend (void)
{
  g_autoptr (SbScene) scene = sb_scene_new ("a square plot", "x", "y");
  double far = 100;
  sb_scene_set_x_range (scene, 0, 1);
  sb_scene_set_y_range (scene, 0, 1);
  sb_scene_set_aspect_equal (scene, TRUE);
  for (int i = 0; i < 7; i++)
    {
      char id[16], label[48];
      SbStyle st = solid (SB_ROLE_SERIES_0 + i);
      g_snprintf (id, sizeof id, "m%d", i);
      g_snprintf (label, sizeof label, "legend entry %d", i);
      /* outside the ranges: nothing but the legend draws them */
      sb_scene_take_layer (scene, sb_layer_new_markers (id, label, &st, 1, &far, &far));
    }
  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  g_assert_cmpfloat (c.frame.pw, <, W / 2.0);   /* narrowed: the case under test */
  guint32 fg = rgb (p.foreground.r, p.foreground.g, p.foreground.b);
  for (int y = (int) c.frame.py + 2; y < (int) (c.frame.py + c.frame.ph) - 2; y++)
    for (int x = (int) c.frame.px + 2; x < (int) (c.frame.px + c.frame.pw) - 2; x++)
      if (pixel (&c, x, y) == fg)
        g_error ("legend text inside the plot at (%d, %d), plot top %.1f", x, y, c.frame.py);
  canvas_clear (&c);
}

/* ---- zoom and clipping ------------------------------------------------------------ */

static void
test_zoom_and_clip (void)
{
  double x[2] = { 0, 4 }, y[2] = { 0, 4 };
  g_autoptr (SbScene) scene = sb_scene_new ("zoom", "x", "y");
  SbStyle st = solid (SB_ROLE_EXACT);
  sb_scene_take_layer (scene, sb_layer_new_line ("diag", "diag", &st, 2, x, y));
  st = solid (SB_ROLE_BEST);
  st.line_width = 2;
  sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_VLINE, "in", "in", &st, 1.5));
  st = solid (SB_ROLE_NEXT);
  st.line_width = 2;
  sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_VLINE, "out", "out", &st, 3.0));

  SbView view = { 1, 2, 1, 2 };
  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, &view, &p);
  g_assert_cmpfloat (c.frame.x0, ==, 1);
  g_assert_cmpfloat (c.frame.x1, ==, 2);
  /* The rule at 1.5 is in the middle of the plot area. */
  int mid = (int) (c.frame.px + c.frame.pw / 2);
  int row = (int) (c.frame.py + c.frame.ph / 2);
  gboolean found = FALSE;
  for (int dx = -2; dx <= 2; dx++)
    found |= pixel (&c, mid + dx, row) == rgb (0, 1, 0);
  g_assert_true (found);
  /* The rule at 3 is outside the window: none of its pixels anywhere, and
   * nothing of the diagonal outside the plot area (clipping). The legend
   * swatches are excluded by looking only below the plot top. */
  for (int py = (int) c.frame.py; py < H; py++)
    for (int px = 0; px < W; px++)
      {
        g_assert_cmpuint (pixel (&c, px, py), !=, rgb (1, 0, 0));
        if (pixel (&c, px, py) == rgb (0, 0, 1))
          {
            g_assert_cmpfloat (px, >=, c.frame.px - 1);
            g_assert_cmpfloat (px, <=, c.frame.px + c.frame.pw + 1);
            g_assert_cmpfloat (py, <=, c.frame.py + c.frame.ph + 1);
          }
      }
  /* The diagonal y = x crosses the zoomed window corner to corner. */
  double ex = sb_frame_x_to_device (&c.frame, 1.25), ey = sb_frame_y_to_device (&c.frame, 1.25);
  double mx, my;
  g_assert_cmpuint (blob_centroid (&c, rgb (0, 0, 1), ex, ey, 2, &mx, &my), >, 0);
  canvas_clear (&c);

  /* Auto view: the whole data. */
  SbView autov;
  sb_view_init_auto (&autov);
  g_assert_true (sb_view_is_auto (&autov));
  canvas_render (&c, scene, &autov, &p);
  g_assert_cmpfloat (c.frame.x0, <=, 0);
  g_assert_cmpfloat (c.frame.x1, >=, 4);
  g_assert_cmpfloat (c.frame.y0, <=, 0);
  g_assert_cmpfloat (c.frame.y1, >=, 4);
  canvas_clear (&c);
}

/* ---- hover read-outs --------------------------------------------------------------- */

static void
test_hover (void)
{
  double x[3] = { 0, 1, 2 }, m[3] = { 0, 1, 0 }, lo[3] = { -1, 0.5, -1 }, hi[3] = { 1, 1.5, 1 };
  g_autoptr (SbScene) scene = sb_scene_new ("hover", "x", "y");
  SbStyle st = solid (SB_ROLE_EXACT);
  sb_scene_take_layer (scene, sb_layer_new_band ("band", "95% HPD", &st, 3, x, lo, hi));
  sb_scene_take_layer (scene, sb_layer_new_line ("mean", "mean", &st, 3, x, m));
  double px[1] = { 1.0 }, py[1] = { 1.0 };
  sb_scene_take_layer (scene, sb_layer_new_markers ("pt", "observation", &st, 1, px, py));

  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  double dx = sb_frame_x_to_device (&c.frame, 1.0), dy = sb_frame_y_to_device (&c.frame, 1.0);
  g_autofree char *text = sb_scene_hover_text (scene, &c.frame, dx, dy);
  g_assert_nonnull (text);
  g_test_message ("hover: %s", text);
  g_assert_nonnull (strstr (text, "x = 1"));
  g_assert_nonnull (strstr (text, "mean: 1"));
  g_assert_nonnull (strstr (text, "95% HPD: [0.5, 1.5]"));
  g_assert_nonnull (strstr (text, "observation: (1, 1)"));
  /* Far from the marker: no marker line; outside the plot: no text. */
  g_autofree char *text2 = sb_scene_hover_text (scene, &c.frame, sb_frame_x_to_device (&c.frame, 0.5), dy);
  g_assert_null (strstr (text2, "observation"));
  g_assert_nonnull (strstr (text2, "mean: 0.5"));
  g_assert_null (sb_scene_hover_text (scene, &c.frame, 1, 1));

  /* The hover box draws inside the canvas, also near the right edge. */
  sb_scene_render_hover (scene, c.cr, &c.frame, &p, c.frame.px + c.frame.pw - 2, dy);
  g_assert_cmpint (cairo_status (c.cr), ==, CAIRO_STATUS_SUCCESS);
  canvas_clear (&c);
}

/* ---- layer identity (the basis of redraw caching) ----------------------------------- */

static void
test_layer_equality (void)
{
  g_autoptr (SbPlotSnapshot) a = plot_fixture_load ("plot-2d.ini", NULL);
  g_autoptr (SbPlotSnapshot) b = plot_fixture_load ("plot-2d.ini", NULL);
  SbPlotOptions o;
  sb_plot_options_init (&o, SB_PLOT_HEATMAP);
  g_autoptr (SbScene) sa = sb_plot_build (&o, a, NULL);
  g_autoptr (SbScene) sb = sb_plot_build (&o, b, NULL);
  g_assert_cmpuint (sb_scene_get_n_layers (sa), ==, sb_scene_get_n_layers (sb));
  for (guint i = 0; i < sb_scene_get_n_layers (sa); i++)
    g_assert_true (sb_layer_equal (sb_scene_get_layer (sa, i), sb_scene_get_layer (sb, i)));

  /* Changing one value of a field changes exactly the layers drawn from it. */
  double x[3] = { 0, 1, 2 }, y[3] = { 0, 1, 0 }, y2[3] = { 0, 1, 1e-9 };
  SbStyle st = solid (SB_ROLE_EXACT);
  g_autoptr (SbLayer) l1 = sb_layer_new_line ("l", "l", &st, 3, x, y);
  g_autoptr (SbLayer) l2 = sb_layer_new_line ("l", "l", &st, 3, x, y);
  g_autoptr (SbLayer) l3 = sb_layer_new_line ("l", "l", &st, 3, x, y2);
  st.dash = SB_DASH_DASHED;
  g_autoptr (SbLayer) l4 = sb_layer_new_line ("l", "l", &st, 3, x, y);
  g_assert_true (sb_layer_equal (l1, l2));
  g_assert_false (sb_layer_equal (l1, l3));
  g_assert_false (sb_layer_equal (l1, l4));

  /* The hover read-out of a compared 2-D view names each field's value. */
  {
    SbPlotOptions oc = o;
    oc.compare[SB_POSTERIOR_EP] = TRUE;
    g_autoptr (SbScene) hs = sb_plot_build (&oc, a, NULL);
    SbPalette p;
    Canvas c;
    test_palette (&p);
    canvas_render (&c, hs, NULL, &p);
    g_autofree char *text = sb_scene_hover_text (hs, &c.frame, c.frame.px + c.frame.pw / 2,
                                                 c.frame.py + c.frame.ph / 2);
    g_test_message ("2-D hover: %s", text);
    g_assert_nonnull (strstr (text, "posterior mean: "));
    g_assert_nonnull (strstr (text, "EP mean (contours): "));
    canvas_clear (&c);
  }

  /* Compare toggles add layers and leave the others equal. */
  o.compare[SB_POSTERIOR_LAPLACE] = TRUE;
  g_autoptr (SbScene) sc = sb_plot_build (&o, a, NULL);
  g_assert_nonnull (sb_scene_find_layer (sc, "contours/Laplace"));
  g_assert_null (sb_scene_find_layer (sa, "contours/Laplace"));
  g_assert_true (sb_layer_equal (sb_scene_find_layer (sa, "heatmap"), sb_scene_find_layer (sc, "heatmap")));
}

/* ---- export ----------------------------------------------------------------------- */

typedef struct {
  guint elements;
  guint paths;
  gboolean svg_root;
  double width;
} SvgCount;

static void
svg_start (GMarkupParseContext *ctx, const char *name, const char **attr_names,
           const char **attr_values, gpointer data, GError **error)
{
  SvgCount *c = data;
  c->elements++;
  if (g_str_equal (name, "path"))
    c->paths++;
  if (g_str_equal (name, "svg") && c->elements == 1)
    {
      c->svg_root = TRUE;
      for (int i = 0; attr_names[i]; i++)
        if (g_str_equal (attr_names[i], "width"))
          c->width = g_ascii_strtod (attr_values[i], NULL);
    }
}

static SbScene *
fixture_scene (SbPlotKind kind, SbField field, gboolean compare)
{
  const char *file = kind == SB_PLOT_HEATMAP ? "plot-2d.ini"
                     : kind == SB_PLOT_VALIDITY ? "plot-safe.ini" : "plot-1d.ini";
  g_autoptr (SbDensityData) d = NULL;
  g_autoptr (SbPlotSnapshot) s = plot_fixture_load (file, &d);
  SbPlotOptions o;
  sb_plot_options_init (&o, kind);
  o.field = field;
  o.show_truth = TRUE;
  o.compare[SB_POSTERIOR_LAPLACE] = o.compare[SB_POSTERIOR_EP] = compare;
  g_assert_true (sb_plot_has_data (&o, s, d));
  return sb_plot_build (&o, s, d);
}

static void
test_export (void)
{
  g_autoptr (SbScene) scene = fixture_scene (SB_PLOT_POSTERIOR, SB_FIELD_MEAN, TRUE);
  SbPalette p;
  sb_palette_init_light (&p);
  g_autofree char *dir = g_dir_make_tmp ("sb-plot-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_autofree char *png = g_build_filename (dir, "posterior.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "posterior.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "posterior.pdf", NULL);
  g_autoptr (GError) error = NULL;
  SbExportFormat fmt;

  /* PNG: reads back at the requested size and is not blank. */
  g_assert_true (sb_export_format_from_path (png, &fmt));
  g_assert_cmpint (fmt, ==, SB_EXPORT_PNG);
  g_assert_true (sb_scene_export (scene, NULL, &p, png, fmt, 800, 500, 1, &error));
  g_assert_no_error (error);
  cairo_surface_t *img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (img), ==, 800);
  g_assert_cmpint (cairo_image_surface_get_height (img), ==, 500);
  GHashTable *colours = g_hash_table_new (NULL, NULL);
  const unsigned char *data = cairo_image_surface_get_data (img);
  for (int y = 0; y < 500; y += 2)
    for (int x = 0; x < 800; x += 2)
      g_hash_table_add (colours, GUINT_TO_POINTER (((const guint32 *) (data + y * cairo_image_surface_get_stride (img)))[x]));
  /* Text, band, lines, markers: many distinct colours. */
  g_assert_cmpuint (g_hash_table_size (colours), >, 200);
  g_hash_table_unref (colours);
  cairo_surface_destroy (img);

  /* PNG at 2x: twice the width and height, the same picture (block means
   * over 2x2 pixels of the 2x image against the 1x one: antialiased edges
   * and hinted text differ by a fraction of a level on average, while a
   * layout drawn at another size, or not scaled, moves whole regions). */
  g_autofree char *png2 = g_build_filename (dir, "posterior@2x.png", NULL);
  g_assert_true (sb_scene_export (scene, NULL, &p, png2, SB_EXPORT_PNG, 800, 500, 2, &error));
  g_assert_no_error (error);
  cairo_surface_t *img1 = cairo_image_surface_create_from_png (png);
  cairo_surface_t *img2 = cairo_image_surface_create_from_png (png2);
  g_assert_cmpint (cairo_surface_status (img2), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (img2), ==, 1600);
  g_assert_cmpint (cairo_image_surface_get_height (img2), ==, 1000);
  {
    const unsigned char *a = cairo_image_surface_get_data (img1);
    const unsigned char *b = cairo_image_surface_get_data (img2);
    int sa = cairo_image_surface_get_stride (img1), sb = cairo_image_surface_get_stride (img2);
    double diff = 0;
    for (int y = 0; y < 500; y++)
      for (int x = 0; x < 800; x++)
        for (int ch = 0; ch < 3; ch++)
          {
            int shift = 16 - 8 * ch;
            double va = (((const guint32 *) (a + y * sa))[x] >> shift) & 0xff;
            double vb = 0;
            for (int dy = 0; dy < 2; dy++)
              for (int dx = 0; dx < 2; dx++)
                vb += (((const guint32 *) (b + (2 * y + dy) * sb))[2 * x + dx] >> shift) & 0xff;
            diff += fabs (va - vb / 4);
          }
    diff /= 800 * 500 * 3;
    g_test_message ("PNG 2x vs 1x, 2x2 means: mean |difference| %.2f / 255", diff);
    g_assert_cmpfloat (diff, <, 4.0);
  }
  cairo_surface_destroy (img1);
  cairo_surface_destroy (img2);
  g_remove (png2);
  g_assert_false (sb_scene_export (scene, NULL, &p, png2, SB_EXPORT_PNG, 800, 500, 40, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* SVG: well-formed XML with an <svg> root of the right width and many
   * drawing elements. */
  g_assert_true (sb_export_format_from_path (svg, &fmt));
  g_assert_true (sb_scene_export (scene, NULL, &p, svg, fmt, 800, 500, 1, &error));
  g_assert_no_error (error);
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (svg, &text, &len, NULL));
  GMarkupParser parser = { .start_element = svg_start };
  SvgCount count = { 0 };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, &count, NULL);
  g_assert_true (g_markup_parse_context_parse (ctx, text, len, &error));
  g_assert_true (g_markup_parse_context_end_parse (ctx, &error));
  g_assert_no_error (error);
  g_markup_parse_context_free (ctx);
  g_test_message ("SVG: %" G_GSIZE_FORMAT " bytes, %u elements, %u paths", len, count.elements, count.paths);
  g_assert_true (count.svg_root);
  g_assert_cmpfloat (count.width, ==, 800);
  g_assert_cmpuint (count.paths, >, 50);

  /* Drawn back by librsvg (through gdk-pixbuf's SVG loader, when the
   * system has it) at the PNG's size, the SVG shows the same picture as the
   * PNG. The two rasterisers differ in text hinting and in where exactly an
   * antialiased edge falls (about half a pixel), so the images are compared
   * as 10 x 10 block averages: the mean absolute channel difference of the
   * blocks is then ~2 / 255, while a missing curve, band or legend entry
   * moves whole blocks by tens of levels. */
  g_autoptr (GdkPixbuf) raster = gdk_pixbuf_new_from_file_at_scale (svg, 800, 500, FALSE, NULL);
  if (raster == NULL)
    g_test_message ("no SVG loader for gdk-pixbuf: SVG raster comparison not done");
  else
    {
      cairo_surface_t *ref = cairo_image_surface_create_from_png (png);
      const unsigned char *a = cairo_image_surface_get_data (ref);
      const guchar *b = gdk_pixbuf_read_pixels (raster);
      int sa = cairo_image_surface_get_stride (ref), sb = gdk_pixbuf_get_rowstride (raster);
      int nch = gdk_pixbuf_get_n_channels (raster);
      double diff = 0, worst = 0;
      g_assert_cmpint (gdk_pixbuf_get_width (raster), ==, 800);
      for (int by = 0; by < 50; by++)
        for (int bx = 0; bx < 80; bx++)
          {
            double da[3] = { 0 }, db[3] = { 0 };
            for (int y = by * 10; y < by * 10 + 10; y++)
              for (int x = bx * 10; x < bx * 10 + 10; x++)
                {
                  guint32 pa = ((const guint32 *) (a + y * sa))[x];
                  const guchar *pb = b + y * sb + x * nch;
                  for (int ch = 0; ch < 3; ch++)
                    {
                      da[ch] += (pa >> (16 - 8 * ch)) & 0xff;
                      db[ch] += pb[ch];
                    }
                }
            double d = (fabs (da[0] - db[0]) + fabs (da[1] - db[1]) + fabs (da[2] - db[2])) / 300;
            diff += d;
            worst = MAX (worst, d);
          }
      diff /= 50 * 80;
      g_test_message ("SVG raster vs PNG, 10x10 blocks: mean |difference| %.2f / 255, worst block %.1f",
                      diff, worst);
      g_assert_cmpfloat (diff, <, 4.0);
      cairo_surface_destroy (ref);
    }

  /* PDF: header, one page, trailer; startxref points at the xref table. */
  g_assert_true (sb_export_format_from_path (pdf, &fmt));
  g_assert_true (sb_scene_export (scene, NULL, &p, pdf, fmt, 800, 500, 1, &error));
  g_assert_no_error (error);
  g_autofree char *bytes = NULL;
  g_assert_true (g_file_get_contents (pdf, &bytes, &len, NULL));
  g_test_message ("PDF: %" G_GSIZE_FORMAT " bytes", len);
  g_assert_cmpuint (len, >, 5000);
  g_assert_true (memcmp (bytes, "%PDF-1.", 7) == 0);
  /* (The file holds binary streams with NUL bytes: memmem, not strstr.) */
  const char *tail = NULL;
  for (const char *q = bytes; (q = memmem (q, bytes + len - q, "startxref", 9)); q++)
    tail = q;
  g_assert_nonnull (tail);
  g_assert_nonnull (memmem (tail, bytes + len - tail, "%%EOF", 5));
  guint64 off = g_ascii_strtoull (tail + strlen ("startxref"), NULL, 10);
  g_assert_cmpuint (off, <, len);
  g_assert_true (memcmp (bytes + off, "xref", 4) == 0);
  guint pages = 0;
  for (const char *q = bytes; (q = memmem (q, bytes + len - q, "/Type /Page", 11)); q++)
    pages += q[11] != 's';   /* "/Type /Pages" is the page tree */
  g_assert_cmpuint (pages, ==, 1);

  /* Errors are reported, not crashed on. */
  g_autofree char *bad = g_build_filename (dir, "no-such-dir", "x.png", NULL);
  g_assert_false (sb_scene_export (scene, NULL, &p, bad, SB_EXPORT_PNG, 100, 100, 1, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (sb_scene_export (scene, NULL, &p, png, SB_EXPORT_PNG, 0, 100, 1, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (sb_export_format_from_path ("plot.jpeg", &fmt));

  g_remove (png);
  g_remove (svg);
  g_remove (pdf);
  g_rmdir (dir);
}

/* ---- every view from the realistic fixtures ------------------------------------------- */

typedef struct {
  const char *name;
  SbPlotKind kind;
  SbField field;
  gboolean compare;
  const char *must_have[6];
} ViewCase;

static const ViewCase view_cases[] = {
  { "posterior", SB_PLOT_POSTERIOR, 0, FALSE,
    { "band/exact", "mean/exact", "median/exact", "samples", "obs/duels", "best/marker" } },
  { "posterior-compare", SB_PLOT_POSTERIOR, 0, TRUE,
    { "mean/Laplace", "mean/EP", "bounds/Laplace", "bounds/EP", "truth", "next/marker" } },
  { "skewness", SB_PLOT_SKEWNESS, 0, TRUE, { "skewness/exact", "zero", "best/marker" } },
  { "acquisition", SB_PLOT_ACQUISITION, 0, FALSE, { "acquisition", "argmax/marker", "argmax/rule" } },
  { "validity", SB_PLOT_VALIDITY, 0, FALSE,
    { "validity", "required", "safe-set", "obs/valid", "obs/invalid" } },
  { "heatmap-mean", SB_PLOT_HEATMAP, SB_FIELD_MEAN, TRUE,
    { "heatmap", "contours/exact", "contours/Laplace", "contours/EP", "obs/duels", "next/duel" } },
  { "heatmap-sd", SB_PLOT_HEATMAP, SB_FIELD_SD, FALSE, { "heatmap", "contours/exact", "best/marker" } },
  { "heatmap-skewness", SB_PLOT_HEATMAP, SB_FIELD_SKEWNESS, FALSE, { "heatmap", "contours/exact" } },
  { "heatmap-acquisition", SB_PLOT_HEATMAP, SB_FIELD_ACQUISITION, FALSE, { "heatmap", "next/duel" } },
  { "density", SB_PLOT_DENSITY, 0, TRUE,
    { "histogram", "density/exact", "density/Laplace", "density/EP", "zero" } },
  { "convergence", SB_PLOT_CONVERGENCE, 0, FALSE, { "best-so-far", "true-best" } },
  { "hyperparameters", SB_PLOT_HYPERPARAMETERS, 0, FALSE, { "hyper/0", "hyper/1" } },
};

static void
test_views (gconstpointer data)
{
  const ViewCase *vc = data;
  g_autoptr (SbScene) scene = fixture_scene (vc->kind, vc->field, vc->compare);
  for (int i = 0; i < 6 && vc->must_have[i]; i++)
    if (sb_scene_find_layer (scene, vc->must_have[i]) == NULL)
      g_error ("view %s lacks layer %s", vc->name, vc->must_have[i]);

  const char *dir = g_getenv ("SB_PLOT_PNG_DIR");
  for (int dark = 0; dark < 2; dark++)
    {
      SbPalette p;
      if (dark)
        sb_palette_init_dark (&p);
      else
        sb_palette_init_light (&p);
      /* Rendered: no Cairo error, and the plot area is not just
       * background (something was drawn there). */
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 760, 460);
      cairo_t *cr = cairo_create (s);
      SbFrame f;
      sb_scene_layout (scene, NULL, cr, 760, 460, &f);
      sb_scene_render (scene, NULL, cr, 760, 460, &p, TRUE);
      g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
      cairo_surface_flush (s);
      g_assert_cmpfloat (f.pw, >, 400);
      g_assert_cmpfloat (f.ph, >, 200);
      const unsigned char *px = cairo_image_surface_get_data (s);
      int stride = cairo_image_surface_get_stride (s);
      guint32 bg = rgb (p.background.r, p.background.g, p.background.b);
      gsize drawn = 0, total = 0;
      for (int y = (int) f.py + 2; y < (int) (f.py + f.ph) - 2; y += 3)
        for (int x = (int) f.px + 2; x < (int) (f.px + f.pw) - 2; x += 3)
          {
            guint32 v = ((const guint32 *) (px + y * stride))[x] & 0xffffff;
            drawn += v != bg && v != rgb (p.grid.r, p.grid.g, p.grid.b);
            total++;
          }
      g_test_message ("%s (%s): %.1f%% of the plot area drawn", vc->name, dark ? "dark" : "light",
                      100.0 * drawn / total);
      g_assert_cmpfloat ((double) drawn / total, >, 0.01);
      if (dir)
        {
          g_autofree char *name = g_strdup_printf ("%s-%s.png", vc->name, dark ? "dark" : "light");
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_assert_cmpint (cairo_surface_write_to_png (s, path), ==, CAIRO_STATUS_SUCCESS);
          if (!dark)
            {
              /* With a hover read-out, as the widget shows it. */
              g_autofree char *hname = g_strdup_printf ("%s-hover.png", vc->name);
              g_autofree char *hpath = g_build_filename (dir, hname, NULL);
              sb_scene_render_hover (scene, cr, &f, &p, f.px + 0.55 * f.pw, f.py + 0.45 * f.ph);
              cairo_surface_write_to_png (s, hpath);
            }
        }
      cairo_destroy (cr);
      cairo_surface_destroy (s);
    }
}

/* Index of the layer ID in SCENE (the drawing order); G_MAXUINT if absent. */
static guint
layer_index (SbScene *scene, const char *id)
{
  for (guint i = 0; i < sb_scene_get_n_layers (scene); i++)
    if (g_strcmp0 (sb_layer_get_id (sb_scene_get_layer (scene, i)), id) == 0)
      return i;
  return G_MAXUINT;
}

static void
test_approximations_over_exact (void)
{
  /* The Gaussian approximations the user turns on are drawn after (over)
   * the exact curve: EP is often within a pixel of it and vanished
   * underneath when it was drawn first. */
  static const struct {
    SbPlotKind kind;
    const char *exact, *approx[2];
  } cases[] = {
    { SB_PLOT_POSTERIOR, "mean/exact", { "mean/Laplace", "mean/EP" } },
    { SB_PLOT_DENSITY, "density/exact", { "density/Laplace", "density/EP" } },
  };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (SbScene) scene = fixture_scene (cases[c].kind, 0, TRUE);
      guint exact = layer_index (scene, cases[c].exact);
      g_assert_cmpuint (exact, !=, G_MAXUINT);
      for (int k = 0; k < 2; k++)
        {
          guint approx = layer_index (scene, cases[c].approx[k]);
          g_assert_cmpuint (approx, !=, G_MAXUINT);
          g_assert_cmpuint (approx, >, exact);
        }
    }
}

static void
test_validity_heatmap (void)
{
  /* Safe mode in 2-D: P(valid) = 1 / (1 + exp(-4 (1 - r^2))) on [-2, 2]^2.
   * The required-probability contour (0.7) is the circle where
   * 4 (1 - r^2) = log(0.7 / 0.3), r = 0.7624; it must be drawn as its own
   * layer, and the colour map spans exactly [0, 1]. */
  enum { N = 61 };
  g_autofree double *v = g_new (double, N * N);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++)
      {
        double x = -2 + 4.0 * i / (N - 1), y = -2 + 4.0 * j / (N - 1);
        v[j * N + i] = 1 / (1 + exp (-4 * (1 - x * x - y * y)));
      }
  g_autoptr (SbPlotSnapshot) s = sb_plot_snapshot_new (2, 1);
  double best[2] = { 0.1, -0.2 };
  sb_plot_snapshot_set_parameter (s, 0, "x1", -2, 2);
  sb_plot_snapshot_set_parameter (s, 1, "x2", -2, 2);
  sb_plot_snapshot_set_best (s, best);
  sb_plot_snapshot_set_slice (s, 0, 1, best);
  g_autoptr (SbGrid2) g = sb_grid2_new (N, N, -2, 2, -2, 2, v);
  sb_plot_snapshot_set_field (s, SB_FIELD_P_VALID, SB_POSTERIOR_EXACT, g);
  sb_plot_snapshot_add_observation (s, SG_OBS_INVALID, (double[]) { 1.5, 1.5 }, NULL, NAN);
  sb_plot_snapshot_add_observation (s, SG_OBS_VALID, (double[]) { 0.2, 0.1 }, NULL, 0.4);
  sb_plot_snapshot_freeze (s);

  SbPlotOptions o;
  sb_plot_options_init (&o, SB_PLOT_HEATMAP);
  o.field = SB_FIELD_P_VALID;
  o.compare[SB_POSTERIOR_LAPLACE] = TRUE;   /* meaningless here: ignored */
  g_assert_false (sb_plot_supports_compare (SB_PLOT_HEATMAP, SB_FIELD_P_VALID));
  g_autoptr (SbScene) scene = sb_plot_build (&o, s, NULL);
  g_assert_nonnull (sb_scene_find_layer (scene, "contours/required"));
  g_assert_nonnull (sb_scene_find_layer (scene, "obs/invalid"));
  g_assert_nonnull (sb_scene_find_layer (scene, "obs/points"));
  g_assert_null (sb_scene_find_layer (scene, "contours/Laplace"));

  /* The 0.7 contour from the same marching squares lies on the circle. */
  CircleCheck c = { 0, 0, 0, 0, sqrt (1 - log (0.7 / 0.3) / 4) };
  sb_contour_segments (v, N, N, -2, 2, -2, 2, 0.7, check_on_circle, &c);
  g_assert_cmpuint (c.n, >, 20);
  /* Linear interpolation of a steep logistic over h = 1/15: a few 1e-3. */
  g_assert_cmpfloat (c.max_err, <, 0.01);

  /* Colours: the corners (P ~ 0) are the bottom of viridis, the valid disc
   * (P ~ 0.98) its light end. */
  SbPalette p;
  Canvas cv;
  test_palette (&p);
  canvas_render (&cv, scene, NULL, &p);
  SbColor bottom;
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, 0.0, &bottom);
  guint32 centre = pixel (&cv, (int) sb_frame_x_to_device (&cv.frame, -0.5), (int) sb_frame_y_to_device (&cv.frame, 0.0));
  guint32 corner = pixel (&cv, (int) sb_frame_x_to_device (&cv.frame, -1.9), (int) sb_frame_y_to_device (&cv.frame, 1.9));
  g_assert_cmpint (abs ((int) ((corner >> 16) & 0xff) - (int) lround (bottom.r * 255)), <, 8);
  g_assert_cmpint (abs ((int) (corner & 0xff) - (int) lround (bottom.b * 255)), <, 8);
  /* Inside the valid disc the map is in its light (yellow-green) end. */
  g_assert_cmpint ((centre >> 8) & 0xff, >, 180);
  canvas_clear (&cv);
}

/* The acquisition field of a safe run leaves the penalised (unsafe) cells
 * out as NaN (core/sb-jobs.c): they must stay transparent, so the plot
 * background shows there, while the safe cells carry the colour map; the
 * next query and x_r are drawn on top. */
static void
test_acquisition_heatmap_gaps (void)
{
  enum { N = 41 };
  g_autofree double *v = g_new (double, N * N);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++)
      {
        double x = -2 + 4.0 * i / (N - 1), y = -1 + 2.0 * j / (N - 1);
        v[j * N + i] = x >= 0 ? 1 + x - y * y : NAN;
      }
  g_autoptr (SbPlotSnapshot) s = sb_plot_snapshot_new (2, 1);
  double best[2] = { 1.0, 0.0 }, next[2] = { 1.9, 0.1 };
  double curve[3] = { -2, 0, 2 }, acq[3] = { NAN, 1, 3 };
  sb_plot_snapshot_set_parameter (s, 0, "x1", -2, 2);
  sb_plot_snapshot_set_parameter (s, 1, "x2", -1, 1);
  sb_plot_snapshot_set_curve_grid (s, 0, 3, curve);
  sb_plot_snapshot_set_acquisition (s, "safe UCB", acq, next);
  sb_plot_snapshot_set_best (s, best);
  sb_plot_snapshot_set_next (s, next, NULL);
  sb_plot_snapshot_set_slice (s, 0, 1, best);
  g_autoptr (SbGrid2) g = sb_grid2_new (N, N, -2, 2, -1, 1, v);
  sb_plot_snapshot_set_field (s, SB_FIELD_ACQUISITION, SB_POSTERIOR_EXACT, g);
  sb_plot_snapshot_freeze (s);

  SbPlotOptions o;
  sb_plot_options_init (&o, SB_PLOT_HEATMAP);
  o.field = SB_FIELD_ACQUISITION;
  g_autoptr (SbScene) scene = sb_plot_build (&o, s, NULL);
  g_assert_cmpstr (sb_scene_get_title (scene), ==, "Acquisition: safe UCB");
  g_assert_nonnull (sb_scene_find_layer (scene, "next/marker"));
  g_assert_nonnull (sb_scene_find_layer (scene, "best/marker"));

  SbPalette p;
  Canvas c;
  test_palette (&p);
  canvas_render (&c, scene, NULL, &p);
  /* (between the grid lines) */
  guint32 gap = pixel (&c, (int) sb_frame_x_to_device (&c.frame, -1.25),
                       (int) sb_frame_y_to_device (&c.frame, 0.3));
  guint32 gap2 = pixel (&c, (int) sb_frame_x_to_device (&c.frame, -1.75),
                        (int) sb_frame_y_to_device (&c.frame, -0.7));
  guint32 safe = pixel (&c, (int) sb_frame_x_to_device (&c.frame, 1.5),
                        (int) sb_frame_y_to_device (&c.frame, 0.5));
  /* v(1.5, 0.5) = 2.25 of the range [0, 3]: colour map at 0.75 */
  SbColor want;
  sb_colormap_eval (SB_COLORMAP_VIRIDIS, 2.25 / 3.0, &want);
  g_test_message ("gap #%06x #%06x, safe #%06x, want (%g, %g, %g)", gap, gap2, safe,
                  want.r, want.g, want.b);
  g_assert_cmpuint (gap, ==, gap2);          /* one flat background */
  double r = ((safe >> 16) & 0xff) / 255.0, gr = ((safe >> 8) & 0xff) / 255.0;
  g_assert_cmpfloat (fabs (r - want.r), <, 0.05);
  g_assert_cmpfloat (fabs (gr - want.g), <, 0.05);
  /* the gap is not a colour of the map: the background (light palette) */
  g_assert_cmpint ((gap >> 16) & 0xff, >, 200);
  g_assert_cmpint ((gap >> 8) & 0xff, >, 200);
  g_assert_cmpint (gap & 0xff, >, 200);
  canvas_clear (&c);
}

static void
test_empty_scenes (void)
{
  for (int k = 0; k < SB_N_PLOTS; k++)
    {
      SbPlotOptions o;
      sb_plot_options_init (&o, k);
      g_assert_false (sb_plot_has_data (&o, NULL, NULL));
      g_autoptr (SbScene) scene = sb_plot_build (&o, NULL, NULL);
      g_assert_cmpuint (sb_scene_get_n_layers (scene), ==, 0);
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 300, 200);
      cairo_t *cr = cairo_create (s);
      SbPalette p;
      sb_palette_init_dark (&p);
      sb_scene_render (scene, NULL, cr, 300, 200, &p, TRUE);
      g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
      cairo_destroy (cr);
      cairo_surface_destroy (s);
    }
  /* Before the first answer a plot over the parameters already shows
   * their box: names, ranges and scales, not a unit square. */
  {
    g_autoptr (SbPlotSnapshot) snap = sb_plot_snapshot_new (2, 1);
    SbPlotOptions o;
    g_autoptr (SbScene) curve = NULL, slice = NULL;
    g_autofree char *x = NULL, *hx = NULL, *hy = NULL;

    sb_plot_snapshot_set_parameter (snap, 0, "gain", -2, 2);
    sb_plot_snapshot_set_parameter_scale (snap, 0, SB_SCALE_LOG, NULL);
    sb_plot_snapshot_set_parameter (snap, 1, "hue", 0, 360);
    sb_plot_snapshot_freeze (snap);
    sb_plot_options_init (&o, SB_PLOT_POSTERIOR);
    g_assert_false (sb_plot_has_data (&o, snap, NULL));
    curve = sb_plot_build (&o, snap, NULL);
    x = axis_labels (curve, FALSE);
    g_assert_cmpstr (x, ==, "0.01 0.1 1 10 100");
    sb_plot_options_init (&o, SB_PLOT_HEATMAP);
    slice = sb_plot_build (&o, snap, NULL);
    hx = axis_labels (slice, FALSE);
    hy = axis_labels (slice, TRUE);
    g_assert_cmpstr (hx, ==, "0.01 0.1 1 10 100");
    g_assert_cmpstr (hy, ==, "0 50 100 150 200 250 300 350");
    g_assert_cmpstr (sb_scene_get_subtitle (slice), ==, "No data yet: answer the first questions");
  }
  /* A tiny drawing still lays out without negative sizes. */
  g_autoptr (SbScene) scene = fixture_scene (SB_PLOT_POSTERIOR, 0, TRUE);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 40, 30);
  cairo_t *cr = cairo_create (s);
  SbFrame f;
  sb_scene_layout (scene, NULL, cr, 40, 30, &f);
  g_assert_cmpfloat (f.pw, >, 0);
  g_assert_cmpfloat (f.ph, >, 0);
  SbPalette p;
  sb_palette_init_light (&p);
  sb_scene_render (scene, NULL, cr, 40, 30, &p, TRUE);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

static void
test_snapshot_frozen (void)
{
  g_autoptr (SbPlotSnapshot) s = plot_fixture_load ("plot-1d.ini", NULL);
  g_assert_true (sb_plot_snapshot_is_frozen (s));
  if (g_test_subprocess ())
    {
      double x = 0;
      sb_plot_snapshot_set_best (s, &x);   /* refused: criticals are fatal */
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*frozen*");
}

static void
test_palette_from_theme (void)
{
  SbPalette p;
  SbColor light_text = { 0.93, 0.93, 0.92, 1 }, dark_text = { 0.1, 0.1, 0.12, 1 };
  sb_palette_init_from_foreground (&p, &light_text);
  g_assert_true (p.dark);
  g_assert_cmpfloat (p.foreground.r, ==, 0.93);
  sb_palette_init_from_foreground (&p, &dark_text);
  g_assert_false (p.dark);
  /* Every role differs from the background by a visible amount. */
  for (int dark = 0; dark < 2; dark++)
    {
      if (dark)
        sb_palette_init_dark (&p);
      else
        sb_palette_init_light (&p);
      for (int r = 0; r < SB_N_ROLES; r++)
        {
          const SbColor *c = sb_palette_role (&p, r);
          g_assert_cmpfloat (fabs (luminance (c) - luminance (&p.background)), >, 0.15);
        }
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plot/ticks/nice", test_nice_numbers);
  g_test_add_func ("/plot/ticks/log", test_log_ticks);
  g_test_add_func ("/plot/ticks/parameter-axes", test_parameter_axes);
  g_test_add_func ("/plot/ticks/at-least-three", test_ticks_at_least_three);
  g_test_add_func ("/plot/legend/placement", test_legend_placement);
  g_test_add_func ("/plot/magnify", test_magnify);
  g_test_add_func ("/plot/colormaps", test_colormaps);
  g_test_add_func ("/plot/contours", test_contours);
  g_test_add_func ("/plot/palette", test_palette_from_theme);
  g_test_add_func ("/plot/band/synthetic", test_band_pixels);
  g_test_add_func ("/plot/band/fixture", test_band_pixels_fixture);
  g_test_add_func ("/plot/markers/positions", test_marker_positions);
  g_test_add_func ("/plot/legend/model-label", test_model_label);
  g_test_add_func ("/plot/markers/duels", test_duel_markers_fixture);
  g_test_add_func ("/plot/markers/ties-choices", test_tie_choice_layers);
  g_test_add_func ("/plot/heatmap/colors", test_heatmap_colors);
  g_test_add_func ("/plot/classmap/colors", test_classmap_colors);
  g_test_add_func ("/plot/legend/aspect-equal", test_aspect_legend);
  g_test_add_func ("/plot/zoom", test_zoom_and_clip);
  g_test_add_func ("/plot/hover", test_hover);
  g_test_add_func ("/plot/layers/equal", test_layer_equality);
  g_test_add_func ("/plot/layers/approximations-over-exact", test_approximations_over_exact);
  g_test_add_func ("/plot/export", test_export);
  g_test_add_func ("/plot/empty", test_empty_scenes);
  g_test_add_func ("/plot/heatmap/validity", test_validity_heatmap);
  g_test_add_func ("/plot/heatmap/acquisition-gaps", test_acquisition_heatmap_gaps);
  g_test_add_func ("/plot/snapshot/frozen", test_snapshot_frozen);
  for (gsize i = 0; i < G_N_ELEMENTS (view_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/plot/views/%s", view_cases[i].name);
      g_test_add_data_func (path, &view_cases[i], test_views);
    }
  int status = g_test_run ();
  test_font_release ();
  return status;
}
