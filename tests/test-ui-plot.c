/* test-ui-plot.c — the plot widgets in a real window (suite 'ui'):
 * layers are redrawn only when their data change, hover and zoom work,
 * the plot view's controls drive the scene, stale results are dropped,
 * export works from the widget, the palette follows a dark theme.
 * TAP-skips when there is no display (gtk_test_init would abort). */
#include "sb-chart.h"
#include "sb-chart-layer.h"
#include "sb-plot-view.h"
#include "test-plot-fixture.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "ui-harness.h"

static guint
draws (SbChart *chart, const char *id)
{
  GtkWidget *w = sb_chart_get_layer_widget (chart, id);
  g_assert_nonnull (w);
  return sb_chart_layer_get_draw_count (SB_CHART_LAYER (w));
}

static gboolean
layer_drawn (gpointer data)
{
  SbChart *chart = data;
  GtkWidget *w = sb_chart_get_layer_widget (chart, "band/exact");
  return w && sb_chart_layer_get_draw_count (SB_CHART_LAYER (w)) > 0;
}

static void
count_cb (guint *counter)
{
  (*counter)++;
}

static gboolean
layer_drawn_heatmap (gpointer data)
{
  GtkWidget *w = sb_chart_get_layer_widget (data, "heatmap");
  return w && sb_chart_layer_get_draw_count (SB_CHART_LAYER (w)) > 0;
}

static GtkWindow *
window_with (GtkWidget *child)
{
  GtkWindow *win = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (win, 760, 520);
  gtk_window_set_child (win, child);
  gtk_window_present (win);
  return win;
}

/* With SB_PLOT_PNG_DIR set, writes what WIDGET shows (toolbar included)
 * to NAME.png there, through the window's own renderer. */
static void
maybe_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("SB_PLOT_PNG_DIR");
  if (dir == NULL)
    return;
  spin_for (300);
  /* The whole window, so the theme's background is under the plot. */
  widget = GTK_WIDGET (gtk_widget_get_root (widget));
  GdkPaintable *paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  GdkTexture *texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_autofree char *file = g_strdup_printf ("%s/%s.png", dir, name);
  g_assert_true (gdk_texture_save_to_png (texture, file));
  g_object_unref (texture);
  gsk_render_node_unref (node);
  g_object_unref (paintable);
}

static SbScene *
posterior_scene (SbPlotSnapshot *snap, gboolean compare)
{
  SbPlotOptions o;
  sb_plot_options_init (&o, SB_PLOT_POSTERIOR);
  o.compare[SB_POSTERIOR_LAPLACE] = compare;
  return sb_plot_build (&o, snap, NULL);
}

static void
test_chart_caching (void)
{
  g_autoptr (SbPlotSnapshot) snap = plot_fixture_load ("plot-1d.ini", NULL);
  g_autoptr (SbPlotSnapshot) same = plot_fixture_load ("plot-1d.ini", NULL);
  SbChart *chart = SB_CHART (sb_chart_new ());
  GtkWindow *win = window_with (GTK_WIDGET (chart));
  g_autoptr (SbScene) scene = posterior_scene (snap, FALSE);

  sb_chart_set_scene (chart, scene);
  SPIN_UNTIL (layer_drawn (chart));
  spin_for (100);
  SbFrame frame;
  g_assert_true (sb_chart_get_frame (chart, &frame));
  g_assert_cmpfloat (frame.x0, ==, -2.6);
  g_assert_cmpfloat (frame.x1, ==, 2.6);
  guint band = draws (chart, "band/exact"), mean = draws (chart, "mean/exact");
  g_assert_cmpuint (band, >=, 1);

  /* A new result with the same data: the layers keep their drawings. */
  g_autoptr (SbScene) scene2 = posterior_scene (same, FALSE);
  sb_chart_set_scene (chart, scene2);
  spin_for (150);
  g_assert_cmpuint (draws (chart, "band/exact"), ==, band);
  g_assert_cmpuint (draws (chart, "mean/exact"), ==, mean);

  /* Hovering redraws only the overlay, and reads every layer. */
  double dx = sb_frame_x_to_device (&frame, 0.5), dy = frame.py + frame.ph / 2;
  g_autofree char *text = sb_chart_hover_at (chart, dx, dy);
  g_assert_nonnull (text);
  g_test_message ("hover: %s", text);
  g_assert_nonnull (strstr (text, "mean (exact): "));
  g_assert_nonnull (strstr (text, "95% HPD band (exact): ["));
  spin_for (150);
  g_assert_cmpuint (draws (chart, "band/exact"), ==, band);
  sb_chart_hover_at (chart, -1, -1);

  /* "Compare with Laplace": new layers appear, the exact band is kept. */
  g_autoptr (SbScene) scene3 = posterior_scene (same, TRUE);
  sb_chart_set_scene (chart, scene3);
  spin_for (150);
  g_assert_nonnull (sb_chart_get_layer_widget (chart, "mean/Laplace"));
  g_assert_cmpuint (draws (chart, "mean/Laplace"), >=, 1);
  g_assert_cmpuint (draws (chart, "band/exact"), ==, band);

  /* Zoom moves everything: every layer is redrawn, the frame follows. */
  guint zoomed_notified = 0;
  g_signal_connect_swapped (chart, "notify::zoomed", G_CALLBACK (count_cb), &zoomed_notified);
  SbView view = { -1, 1, NAN, NAN };
  sb_chart_set_view (chart, &view);
  sb_chart_set_view (chart, &view);
  g_assert_cmpuint (zoomed_notified, ==, 1);
  g_assert_true (sb_chart_get_zoomed (chart));
  spin_for (150);
  g_assert_true (sb_chart_get_frame (chart, &frame));
  g_assert_cmpfloat (frame.x0, ==, -1);
  g_assert_cmpfloat (frame.x1, ==, 1);
  g_assert_cmpuint (draws (chart, "band/exact"), >, band);
  sb_chart_reset_zoom (chart);
  g_assert_false (sb_chart_get_zoomed (chart));

  /* Export from the widget. */
  g_autofree char *dir = g_dir_make_tmp ("sb-ui-plot-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "p.png", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (sb_chart_export (chart, png, 500, 300, 1, &error));
  g_assert_no_error (error);
  cairo_surface_t *img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (img), ==, 500);
  cairo_surface_destroy (img);
  g_autofree char *bad = g_build_filename (dir, "p.bmp", NULL);
  g_assert_false (sb_chart_export (chart, bad, 500, 300, 1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME);
  g_remove (png);
  g_rmdir (dir);

  gtk_window_destroy (win);
}

static void
on_point (SbPlotView *view, GVariant *v, GVariant **out)
{
  g_clear_pointer (out, g_variant_unref);
  *out = g_variant_ref (v);
}

static void
test_plot_view (void)
{
  g_autoptr (SbDensityData) density = NULL;
  g_autoptr (SbPlotSnapshot) snap = plot_fixture_load ("plot-1d.ini", &density);
  SbPlotView *view = SB_PLOT_VIEW (sb_plot_view_new (SB_PLOT_POSTERIOR));
  GtkWindow *win = window_with (GTK_WIDGET (view));
  SbChart *chart = sb_plot_view_get_chart (view);

  sb_plot_view_set_snapshot (view, snap);
  SPIN_UNTIL (layer_drawn (chart));
  g_assert_null (sb_chart_get_layer_widget (chart, "mean/EP"));

  /* PNG export at a chosen scale: the on-screen layout with 2x and 3x the
   * pixels each way. */
  g_autofree char *dir = g_dir_make_tmp ("sb-ui-view-XXXXXX", NULL);
  int size1[2] = { 0 };
  for (int scale = 1; scale <= 3; scale++)
    {
      g_autofree char *png = g_strdup_printf ("%s/p%d.png", dir, scale);
      g_autoptr (GError) error = NULL;
      g_assert_true (sb_plot_view_export (view, png, scale, &error));
      g_assert_no_error (error);
      cairo_surface_t *img = cairo_image_surface_create_from_png (png);
      g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
      int w = cairo_image_surface_get_width (img), h = cairo_image_surface_get_height (img);
      g_test_message ("export at %dx: %d x %d pixels", scale, w, h);
      if (scale == 1)
        {
          size1[0] = w;
          size1[1] = h;
          g_assert_cmpint (w, ==, MAX (gtk_widget_get_width (GTK_WIDGET (chart)), 480));
          g_assert_cmpint (h, ==, MAX (gtk_widget_get_height (GTK_WIDGET (chart)), 320));
        }
      g_assert_cmpint (w, ==, scale * size1[0]);
      g_assert_cmpint (h, ==, scale * size1[1]);
      cairo_surface_destroy (img);
      g_remove (png);
    }
  g_rmdir (dir);
  g_free (sb_chart_hover_at (chart, 420, 260));
  maybe_screenshot (GTK_WIDGET (view), "widget-posterior");
  g_assert_null (sb_chart_hover_at (chart, -1, -1));

  /* The compare toggle is a property with notify-on-change. */
  guint notified = 0;
  g_signal_connect_swapped (view, "notify::show-ep", G_CALLBACK (count_cb), &notified);
  sb_plot_view_set_compare (view, SB_POSTERIOR_EP, TRUE);
  sb_plot_view_set_compare (view, SB_POSTERIOR_EP, TRUE);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_nonnull (sb_chart_get_layer_widget (chart, "mean/EP"));
  g_object_set (view, "show-samples", FALSE, NULL);
  g_assert_null (sb_chart_get_layer_widget (chart, "samples"));

  /* A stale result (older generation) is ignored. */
  g_autoptr (SbPlotSnapshot) old = sb_plot_snapshot_new (1, 3);
  sb_plot_snapshot_freeze (old);
  sb_plot_view_set_snapshot (view, old);
  g_assert_true (sb_plot_view_get_snapshot (view) == snap);

  /* A click on a curve asks for that point's density. */
  GVariant *point = NULL;
  g_signal_connect (view, "point-activated", G_CALLBACK (on_point), &point);
  g_signal_emit_by_name (chart, "point-clicked", -0.75, 1.0);
  g_assert_nonnull (point);
  gsize n;
  const double *xs = g_variant_get_fixed_array (point, &n, sizeof (double));
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat (xs[0], ==, -0.75);
  g_variant_unref (point);

  /* The density plot with its comparisons. */
  sb_plot_view_set_kind (view, SB_PLOT_DENSITY);
  sb_plot_view_set_density (view, density);
  g_assert_nonnull (sb_chart_get_layer_widget (chart, "density/exact"));
  g_assert_nonnull (sb_chart_get_layer_widget (chart, "density/EP"));
  g_assert_null (sb_chart_get_layer_widget (chart, "density/Laplace"));
  maybe_screenshot (GTK_WIDGET (view), "widget-density");
  spin_for (100);
  gtk_window_destroy (win);
}

static void
test_slice_controls (void)
{
  /* A 4-D snapshot with a 2-D field over (x1, x3), others fixed. */
  g_autoptr (SbPlotSnapshot) s = sb_plot_snapshot_new (4, 7);
  static const char *names[] = { "a", "b", "c", "d" };
  for (guint i = 0; i < 4; i++)
    sb_plot_snapshot_set_parameter (s, i, names[i], -1, 1);
  double fixed[4] = { 0.1, 0.2, 0.3, 0.4 }, v[9] = { 0, 1, 2, 1, 2, 3, 2, 3, 4 };
  sb_plot_snapshot_set_best (s, fixed);
  sb_plot_snapshot_set_slice (s, 0, 2, fixed);
  g_autoptr (SbGrid2) g = sb_grid2_new (3, 3, -1, 1, -1, 1, v);
  sb_plot_snapshot_set_field (s, SB_FIELD_MEAN, SB_POSTERIOR_EXACT, g);
  sb_plot_snapshot_freeze (s);

  SbPlotView *view = SB_PLOT_VIEW (sb_plot_view_new (SB_PLOT_HEATMAP));
  GtkWindow *win = window_with (GTK_WIDGET (view));
  sb_plot_view_set_snapshot (view, s);
  guint ax, ay;
  double got[4];
  g_assert_true (sb_plot_view_get_slice (view, &ax, &ay, got));
  g_assert_cmpuint (ax, ==, 0);
  g_assert_cmpuint (ay, ==, 2);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (got[i], ==, fixed[i]);
  g_assert_nonnull (sb_chart_get_layer_widget (sb_plot_view_get_chart (view), "heatmap"));
  SbScene *scene = sb_chart_get_scene (sb_plot_view_get_chart (view));
  g_assert_cmpstr (sb_scene_get_title (scene), ==, "Posterior mean");

  /* The next result shares the field (the worker reuses an unchanged
   * SbGrid2) but has a new best point: the heatmap and its contours keep
   * their drawings, the best-point marker is redrawn. */
  SbChart *chart = sb_plot_view_get_chart (view);
  SPIN_UNTIL (layer_drawn_heatmap (chart));
  spin_for (100);
  guint heat = draws (chart, "heatmap"), contours = draws (chart, "contours/exact");
  guint best = draws (chart, "best/marker");
  g_autoptr (SbPlotSnapshot) s2 = sb_plot_snapshot_new (4, 8);
  for (guint i = 0; i < 4; i++)
    sb_plot_snapshot_set_parameter (s2, i, names[i], -1, 1);
  double best2[4] = { -0.5, 0.2, 0.6, 0.4 };
  sb_plot_snapshot_set_best (s2, best2);
  sb_plot_snapshot_set_slice (s2, 0, 2, fixed);
  sb_plot_snapshot_set_field (s2, SB_FIELD_MEAN, SB_POSTERIOR_EXACT, g);
  sb_plot_view_set_snapshot (view, s2);
  spin_for (200);
  g_assert_cmpuint (draws (chart, "heatmap"), ==, heat);
  g_assert_cmpuint (draws (chart, "contours/exact"), ==, contours);
  g_assert_cmpuint (draws (chart, "best/marker"), >, best);
  spin_for (100);
  gtk_window_destroy (win);
}

static gboolean
palette_is_dark (gpointer data)
{
  return sb_chart_get_palette (data)->dark;
}

static gboolean
palette_is_light (gpointer data)
{
  return !sb_chart_get_palette (data)->dark;
}

static void
test_dark_theme (void)
{
  g_autoptr (SbPlotSnapshot) snap = plot_fixture_load ("plot-1d.ini", NULL);
  SbChart *chart = SB_CHART (sb_chart_new ());
  GtkWindow *win = window_with (GTK_WIDGET (chart));
  g_autoptr (SbScene) scene = posterior_scene (snap, FALSE);
  AdwStyleManager *style = adw_style_manager_get_default ();

  sb_chart_set_scene (chart, scene);
  SPIN_UNTIL (layer_drawn (chart));
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  SPIN_UNTIL (palette_is_light (chart));
  guint band = draws (chart, "band/exact");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  SPIN_UNTIL (palette_is_dark (chart));
  spin_for (150);
  maybe_screenshot (GTK_WIDGET (chart), "widget-dark");
  /* New colours: the layers were redrawn. */
  g_assert_cmpuint (draws (chart, "band/exact"), >, band);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  SPIN_UNTIL (palette_is_light (chart));
  gtk_window_destroy (win);
}

static GtkGesture *
find_drag (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_GESTURE_DRAG (c))
        return GTK_GESTURE (c);
    }
  return NULL;
}

static void
on_clicked (SbChart *chart, double x, double y, double *out)
{
  out[0] = x;
  out[1] = y;
}

static void
test_drag_zoom_and_click (void)
{
  /* The pointer gestures, driven through their signals: a wide drag zooms
   * x to the dragged range, a tall one y too, a tiny one is a click. */
  g_autoptr (SbPlotSnapshot) snap = plot_fixture_load ("plot-1d.ini", NULL);
  SbChart *chart = SB_CHART (sb_chart_new ());
  GtkWindow *win = window_with (GTK_WIDGET (chart));
  g_autoptr (SbScene) scene = posterior_scene (snap, FALSE);
  sb_chart_set_scene (chart, scene);
  SPIN_UNTIL (layer_drawn (chart));
  SbFrame f;
  g_assert_true (sb_chart_get_frame (chart, &f));
  GtkGesture *drag = find_drag (GTK_WIDGET (chart));
  g_assert_nonnull (drag);

  double x0 = sb_frame_x_to_device (&f, -1.0), x1 = sb_frame_x_to_device (&f, 0.5);
  double ymid = f.py + f.ph / 2;
  g_signal_emit_by_name (drag, "drag-begin", x0, ymid);
  g_signal_emit_by_name (drag, "drag-update", x1 - x0, 3.0);
  g_signal_emit_by_name (drag, "drag-end", x1 - x0, 3.0);
  SbView v;
  sb_chart_get_view (chart, &v);
  g_assert_cmpfloat (fabs (v.x0 + 1.0), <, 1e-9);
  g_assert_cmpfloat (fabs (v.x1 - 0.5), <, 1e-9);
  g_assert_true (isnan (v.y0) && isnan (v.y1));   /* flat drag: x only */
  g_assert_true (sb_chart_get_zoomed (chart));

  /* A tall drag also zooms y (upwards drag: the range is ordered). */
  g_assert_true (sb_chart_get_frame (chart, &f));
  double ya = sb_frame_y_to_device (&f, 2.0), yb = sb_frame_y_to_device (&f, -1.0);
  g_signal_emit_by_name (drag, "drag-begin", x0, yb);
  g_signal_emit_by_name (drag, "drag-end", x1 - x0, ya - yb);
  sb_chart_get_view (chart, &v);
  g_assert_cmpfloat (fabs (v.y0 + 1.0), <, 1e-9);
  g_assert_cmpfloat (fabs (v.y1 - 2.0), <, 1e-9);
  sb_chart_reset_zoom (chart);
  g_assert_false (sb_chart_get_zoomed (chart));

  /* A click: point-clicked with data coordinates. */
  g_assert_true (sb_chart_get_frame (chart, &f));
  double at[2] = { NAN, NAN };
  g_signal_connect (chart, "point-clicked", G_CALLBACK (on_clicked), at);
  double cx = sb_frame_x_to_device (&f, 1.25), cy = sb_frame_y_to_device (&f, 0.5);
  g_signal_emit_by_name (drag, "drag-begin", cx, cy);
  g_signal_emit_by_name (drag, "drag-end", 1.0, -1.0);
  g_assert_cmpfloat (fabs (at[0] - 1.25), <, 1e-9);
  g_assert_cmpfloat (fabs (at[1] - 0.5), <, 1e-9);
  g_assert_false (sb_chart_get_zoomed (chart));
  gtk_window_destroy (win);
}

static void
skip_without_display (void)
{
  g_test_skip ("no display: run under xvfb-run (build-aux/run-tests does)");
}

int
main (int argc, char *argv[])
{
  static const struct { const char *path; GTestFunc func; } tests[] = {
    { "/ui/plot/chart-caching", test_chart_caching },
    { "/ui/plot/view", test_plot_view },
    { "/ui/plot/slice", test_slice_controls },
    { "/ui/plot/dark-theme", test_dark_theme },
    { "/ui/plot/drag-zoom-click", test_drag_zoom_and_click },
  };

  if (!have_display ())
    {
      g_test_init (&argc, &argv, NULL);
      for (gsize i = 0; i < G_N_ELEMENTS (tests); i++)
        g_test_add_func (tests[i].path, skip_without_display);
      return g_test_run ();
    }
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  for (gsize i = 0; i < G_N_ELEMENTS (tests); i++)
    g_test_add_func (tests[i].path, tests[i].func);
  return g_test_run ();
}
