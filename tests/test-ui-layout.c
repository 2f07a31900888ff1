/* test-ui-layout.c — the main window's adaptive layout (ui/sb-window.c,
 * resources/ui/sb-window.ui).
 *
 *  - at 360 x 640 (a phone-sized window) the window really is 360 px wide,
 *    the layout is folded, and the answer buttons and the "Current best"
 *    line are shown inside the window without scrolling; the header's
 *    Plots toggle (F9) shows the plots instead;
 *  - at 3000 x 800 the layout is side by side, and the question panel is
 *    clamped: the table's labels and values stay within a readable
 *    width, the plots take the rest;
 *  - both in the light and the dark style;
 *  - at 1024 x 768 and 1280 x 800 (a projector, a laptop), with the guided
 *    demo's banner and without it, in normal and presentation mode: the
 *    plot takes at least half of the plot pane, its legend lies whole
 *    inside the chart and outside the plotted area, every tool of the
 *    plot's row lies inside the row or is offered in its menu, and F9
 *    shows the plots alone and brings the question back.
 * GTK's warnings are fatal in these tests, so "allocates without
 * warnings" is checked by the run itself. With SB_LAYOUT_PNG_DIR set the
 * windows are also written there as PNGs. TAP-skips without a display. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sb-demos.h"
#include "sb-experiment-templates.h"
#include "sb-plot-view.h"
#include "sb-tool-row.h"
#include "sb-window.h"

#include "ui-harness.h"

static SbApplication *app;

typedef struct {
  char *dir;
  GFile *file;
  SbWindow *window;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *path = NULL;

  f->dir = g_dir_make_tmp ("sb-layout-XXXXXX", NULL);
  path = g_build_filename (f->dir, "colour.json", NULL);
  f->file = g_file_new_for_path (path);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_file_get_path (f->file);

  if (f->window)
    gtk_window_destroy (GTK_WINDOW (f->window));
  spin_for (50);
  g_unlink (path);
  {
    /* a demo's copy and its lock file */
    g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name (dir)))
      {
        g_autofree char *file = g_build_filename (f->dir, name, NULL);
        g_unlink (file);
      }
  }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_object_unref (f->file);
}


static gboolean
has_action (GtkWidget *w, gconstpointer name)
{
  return GTK_IS_ACTIONABLE (w) && gtk_actionable_get_action_name (GTK_ACTIONABLE (w))
         && g_str_equal (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), name);
}

static gboolean
has_name (GtkWidget *w, gconstpointer name)
{
  return g_str_equal (gtk_widget_get_name (w), name);
}

static gboolean
has_css_class (GtkWidget *w, gconstpointer name)
{
  return gtk_widget_has_css_class (w, name);
}

static GtkWidget *
must_find (SbWindow *window, gboolean (*match) (GtkWidget *, gconstpointer), const char *what)
{
  GtkWidget *w = ui_find_widget (GTK_WIDGET (window), match, what);

  g_assert_nonnull (w);
  return w;
}

/* W is drawn and lies inside WINDOW (its widget, inside the frame). */
static void
assert_shown_inside (SbWindow *window, GtkWidget *w, const char *what)
{
  graphene_rect_t r;
  int width = gtk_widget_get_width (GTK_WIDGET (window));
  int height = gtk_widget_get_height (GTK_WIDGET (window));

  g_assert_true (gtk_widget_is_drawable (w));
  g_assert_true (gtk_widget_compute_bounds (w, GTK_WIDGET (window), &r));
  g_test_message ("%s: %.0f,%.0f %.0fx%.0f in %dx%d", what, r.origin.x, r.origin.y,
                  r.size.width, r.size.height, width, height);
  g_assert_cmpfloat (r.size.width, >, 0);
  g_assert_cmpfloat (r.size.height, >, 0);
  g_assert_cmpfloat (r.origin.x, >=, 0);
  g_assert_cmpfloat (r.origin.y, >=, 0);
  g_assert_cmpfloat (r.origin.x + r.size.width, <=, width);
  g_assert_cmpfloat (r.origin.y + r.size.height, <=, height);
}

/* The window's surface (what the desktop shows, the client-side frame
 * included) has the size asked for: nothing forced it wider. */
static void
assert_surface_size (SbWindow *window, int width, int height)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));

  g_assert_cmpint (gdk_surface_get_width (surface), ==, width);
  g_assert_cmpint (gdk_surface_get_height (surface), ==, height);
}

static gboolean
best_shown (SbWindow *window)
{
  GtkWidget *best = ui_find_widget (GTK_WIDGET (window), has_name, "best-label");
  const char *text = best ? gtk_label_get_text (GTK_LABEL (best)) : "";

  return g_str_has_prefix (text, "Current best");
}

static void
maybe_write_png (SbWindow *window, const char *name)
{
  const char *dir = g_getenv ("SB_LAYOUT_PNG_DIR");
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GtkSnapshot) snapshot = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  int w = gtk_widget_get_width (GTK_WIDGET (window));
  int h = gtk_widget_get_height (GTK_WIDGET (window));
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));

  if (dir == NULL)
    return;
  paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("wrote %s", path);
}

static gboolean
is_leaflet (GtkWidget *w, gconstpointer unused)
{
  return ADW_IS_LEAFLET (w);
}

/* The window applied its fold (sb-window.c does so on an idle after the
 * leaflet folds): the question panel has the margins of its layout. */
static gboolean
layout_settled (SbWindow *window)
{
  GtkWidget *leaflet = ui_find_widget (GTK_WIDGET (window), is_leaflet, NULL);
  GtkWidget *panel = GTK_WIDGET (sb_window_get_duel_panel (window));

  return leaflet && gtk_widget_get_margin_start (panel)
                    == (adw_leaflet_get_folded (ADW_LEAFLET (leaflet)) ? 12 : 18);
}

/* The colour study at WIDTH x HEIGHT after two answers, in the light or
 * dark style. */
static SbWindow *
open_window (Fixture *f, int width, int height, gboolean dark)
{
  SbWindow *window;

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      dark ? ADW_COLOR_SCHEME_FORCE_DARK
                                           : ADW_COLOR_SCHEME_FORCE_LIGHT);
  window = f->window = sb_window_new (GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_assert_true (sb_window_open_file (window, f->file, TRUE));
  gtk_window_present (GTK_WINDOW (window));
  for (int i = 0; i < 2; i++)
    {
      SPIN_UNTIL (sb_window_get_question (window) != NULL);
      g_action_group_activate_action (G_ACTION_GROUP (window), i ? "answer-a" : "answer-b", NULL);
    }
  SPIN_UNTIL (sb_window_get_question (window) != NULL && best_shown (window));
  SPIN_UNTIL (gtk_widget_get_width (GTK_WIDGET (window)) > 0);
  SPIN_UNTIL (layout_settled (window));
  spin_for (300);
  return window;
}

/* On failure: the widgets that need more than LIMIT px, deepest last. */
static void
report_wide_widgets (GtkWidget *w, int limit, int depth)
{
  int min = 0;

  if (!gtk_widget_get_visible (w))
    return;
  gtk_widget_measure (w, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  if (min <= limit)
    return;
  g_test_message ("%*s%s %s: minimum width %d", depth, "", G_OBJECT_TYPE_NAME (w),
                  gtk_widget_get_name (w), min);
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    report_wide_widgets (c, limit, depth + 1);
}

static void
check_narrow (Fixture *f, gboolean dark)
{
  SbWindow *window = open_window (f, 360, 640, dark);
  GtkWidget *toggle;
  int min_width = 0;

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL,
                      NULL, NULL);
  g_test_message ("minimum width %d", min_width);
  if (min_width > 360)
    report_wide_widgets (GTK_WIDGET (window), 360, 0);
  g_assert_cmpint (min_width, <=, 360);
  assert_surface_size (window, 360, 640);

  assert_shown_inside (window, must_find (window, has_action, "win.answer-a"), "answer A");
  assert_shown_inside (window, must_find (window, has_action, "win.answer-b"), "answer B");
  assert_shown_inside (window, must_find (window, has_name, "best-label"), "best");
  maybe_write_png (window, dark ? "layout-360-dark.png" : "layout-360.png");

  /* Folded: the plots are one toggle away, and back. */
  toggle = must_find (window, has_action, "win.show-plots");
  g_assert_true (gtk_widget_is_drawable (toggle));
  g_assert_false (gtk_widget_is_drawable (must_find (window, has_css_class, "sb-history")));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-plots", g_variant_new_boolean (TRUE));
  SPIN_UNTIL (gtk_widget_is_drawable (must_find (window, has_css_class, "sb-history")));
  spin_for (400);
  assert_shown_inside (window, must_find (window, has_css_class, "sb-history"), "answers list");
  maybe_write_png (window, dark ? "layout-360-plots-dark.png" : "layout-360-plots.png");
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-plots", g_variant_new_boolean (FALSE));
  spin_for (400);
  assert_shown_inside (window, must_find (window, has_action, "win.answer-a"), "answer A");
}

/* GTK keeps a window within its monitor: on a screen narrower than 3000
 * px (xvfb-run's default is 1280 x 1024) the case runs in a child process
 * on a virtual screen of its own. TRUE when it ran there. */
static gboolean
ran_on_wide_screen (void)
{
  g_autoptr (GdkMonitor) monitor
    = g_list_model_get_item (gdk_display_get_monitors (gdk_display_get_default ()), 0);
  g_autofree char *xvfb_run = g_find_program_in_path ("xvfb-run");
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  GdkRectangle geometry;
  int status = 0;

  gdk_monitor_get_geometry (monitor, &geometry);
  if (geometry.width >= 3000 && geometry.height >= 800)
    return FALSE;
  if (xvfb_run == NULL || self == NULL)
    {
      g_test_skip ("the screen is narrower than 3000 px and xvfb-run is missing");
      return TRUE;
    }
  {
    const char *argv[] = { xvfb_run, "-a", "-s", "-screen 0 3100x900x24", self,
                           "--tap", "-p", g_test_get_path (), NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
  }
  g_test_message ("on a 3100 x 900 screen:\n%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "\nok 1 "));
  return TRUE;
}

static void
check_wide (Fixture *f, gboolean dark)
{
  SbWindow *window;
  GtkWidget *table, *plots;

  if (ran_on_wide_screen ())
    return;
  window = open_window (f, 3000, 800, dark);
  table = must_find (window, has_css_class, "sb-duel-table");
  plots = must_find (window, has_css_class, "sb-history");

  assert_surface_size (window, 3000, 800);
  assert_shown_inside (window, must_find (window, has_action, "win.answer-a"), "answer A");
  assert_shown_inside (window, must_find (window, has_action, "win.answer-b"), "answer B");
  assert_shown_inside (window, must_find (window, has_name, "best-label"), "best");
  /* Side by side: the plots' column is shown too, the toggle is not (F9
   * and the main menu show the plots alone). */
  assert_shown_inside (window, plots, "answers list");
  g_assert_false (gtk_widget_is_drawable (must_find (window, has_action, "win.show-plots")));
  /* A readable line: a parameter's name and its values within 760 px
   * (AdwClamp's maximum); the plots get the remaining width. */
  g_test_message ("table width %d, answers list width %d", gtk_widget_get_width (table),
                  gtk_widget_get_width (plots));
  g_assert_cmpint (gtk_widget_get_width (table), <=, 760);
  /* ... and not squeezed either: the question keeps a comfortable width. */
  g_assert_cmpint (gtk_widget_get_width (table), >=, 400);
  g_assert_cmpint (gtk_widget_get_width (plots), >=, 3000 - 800);
  maybe_write_png (window, dark ? "layout-3000-dark.png" : "layout-3000.png");
}

static gboolean
has_tooltip (GtkWidget *w, gconstpointer text)
{
  const char *tip = gtk_widget_get_tooltip_text (w);
  return tip && g_str_equal (tip, text);
}

static gboolean
is_plot_view (GtkWidget *w, gconstpointer unused)
{
  return g_str_equal (G_OBJECT_TYPE_NAME (w), "SbPlotView");
}

/* W is drawn entirely inside PANE's width. */
static void
assert_inside_pane (GtkWidget *pane, GtkWidget *w, const char *what)
{
  graphene_rect_t r;

  g_assert_true (gtk_widget_is_drawable (w));
  g_assert_true (gtk_widget_compute_bounds (w, pane, &r));
  g_test_message ("%s: x %.0f to %.0f in a pane %d px wide", what, r.origin.x,
                  r.origin.x + r.size.width, gtk_widget_get_width (pane));
  g_assert_cmpfloat (r.origin.x, >=, 0);
  g_assert_cmpfloat (r.origin.x + r.size.width, <=, gtk_widget_get_width (pane));
}

static gboolean
is_tool_row (GtkWidget *w, gconstpointer unused)
{
  return SB_IS_TOOL_ROW (w);
}

/* TRUE when MODEL (or one of its sections) has an item for ACTION. */
static gboolean
menu_has_action (GMenuModel *model, const char *action)
{
  for (int i = 0; model && i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name)
          && g_str_equal (name, action))
        return TRUE;
      if (section && menu_has_action (section, action))
        return TRUE;
    }
  return FALSE;
}

/* TOOL is shown whole inside PANE, or (not in the tool row) offered by the
 * row's "More tools" menu as an item for ACTION. */
static void
assert_tool_reachable (GtkWidget *pane, SbToolRow *row, GtkWidget *tool, const char *action,
                       const char *what)
{
  GtkWidget *more = sb_tool_row_get_menu_button (row);

  g_assert_true (gtk_widget_get_visible (tool));
  if (sb_tool_row_get_tool_shown (row, gtk_widget_get_parent (tool) == GTK_WIDGET (row)
                                         ? tool : gtk_widget_get_parent (tool)))
    {
      assert_inside_pane (pane, tool, what);
      return;
    }
  g_test_message ("%s: in the More tools menu", what);
  assert_inside_pane (pane, more, "more tools");
  gtk_menu_button_popup (GTK_MENU_BUTTON (more));
  spin_for (100);
  g_assert_true (menu_has_action (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (more)), action));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (more));
  spin_for (100);
}

/* A simulated 1-D benchmark (every posterior tool shown: Laplace, EP,
 * samples, the true f) at 1200 px: the plot pane is narrower than its
 * tools in one row, so those that do not fit are in the row's "More
 * tools" menu, and every one is reachable: shown whole, or a menu item
 * for its action. */
static void
test_plot_tools_1200 (Fixture *f, gconstpointer d)
{
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("cos1d", NULL);
  g_autoptr (SbSession) session = NULL;
  SbWindow *window;
  GtkWidget *pane;
  SbToolRow *row;

  g_assert_nonnull (exp);
  exp->simulated = TRUE;
  exp->show_truth = TRUE;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, NULL));
  window = open_window (f, 1200, 800, FALSE);
  pane = must_find (window, is_plot_view, NULL);
  row = SB_TOOL_ROW (must_find (window, is_tool_row, NULL));
  assert_surface_size (window, 1200, 800);

  assert_inside_pane (pane, must_find (window, has_tooltip, "Which plot"), "plot kind");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Compare with the Laplace approximation"),
                         "plot.show-laplace", "Laplace");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Show posterior sample paths"),
                         "plot.show-samples", "samples");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Show the true function of the simulated oracle"),
                         "plot.show-truth", "true f");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Reset zoom (or double-click the plot)"),
                         "plot.reset-zoom", "reset zoom");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Export this plot"),
                         "plot.export", "export");
}

/* The colour study's 2-D plots on a phone-sized window (folded, F9):
 * the field, the overlays, reset zoom and export are all reachable. */
static void
test_plot_tools_360 (Fixture *f, gconstpointer d)
{
  SbWindow *window = open_window (f, 360, 640, FALSE);
  GtkWidget *pane;
  SbToolRow *row;

  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-plots", g_variant_new_boolean (TRUE));
  spin_for (400);
  pane = must_find (window, is_plot_view, NULL);
  row = SB_TOOL_ROW (must_find (window, is_tool_row, NULL));
  assert_surface_size (window, 360, 640);
  assert_inside_pane (pane, must_find (window, has_tooltip, "Which plot"), "plot kind");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Field shown in the 2-D slice"),
                         "plot.field", "field");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Compare with the Laplace approximation"),
                         "plot.show-laplace", "Laplace");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Reset zoom (or double-click the plot)"),
                         "plot.reset-zoom", "reset zoom");
  assert_tool_reachable (pane, row, must_find (window, has_tooltip, "Export this plot"),
                         "plot.export", "export");
}

/* ---- Plots first: the demo at projector and laptop sizes ---------------- */

static gboolean
is_chart (GtkWidget *w, gconstpointer unused)
{
  return SB_IS_CHART (w);
}


/* W's bounds in ANCESTOR's coordinates lie within ANCESTOR. */
static void
assert_within (GtkWidget *ancestor, GtkWidget *w, const char *what)
{
  graphene_rect_t r;

  g_assert_true (gtk_widget_compute_bounds (w, ancestor, &r));
  g_test_message ("%s: %.0f,%.0f %.0fx%.0f in %dx%d", what, r.origin.x, r.origin.y,
                  r.size.width, r.size.height, gtk_widget_get_width (ancestor),
                  gtk_widget_get_height (ancestor));
  g_assert_cmpfloat (r.origin.x, >=, 0);
  g_assert_cmpfloat (r.origin.y, >=, 0);
  g_assert_cmpfloat (r.origin.x + r.size.width, <=, gtk_widget_get_width (ancestor) + 0.5);
  g_assert_cmpfloat (r.origin.y + r.size.height, <=, gtk_widget_get_height (ancestor) + 0.5);
}

typedef struct {
  int width, height;
  gboolean banner, presentation;
} PaneCase;

/* The guided demo "preference-skewed" (45 duels, the posterior with its
 * eleven legend entries, Laplace and EP shown) in a WIDTH x HEIGHT
 * window. */
static SbWindow *
open_demo (Fixture *f, const PaneCase *c)
{
  const SbDemo *demo = sb_demos_lookup ("preference-skewed");
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = sb_demo_copy_session (demo, f->dir, &error);
  SbWindow *window;

  g_assert_no_error (error);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_LIGHT);
  window = f->window = sb_window_new (GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), c->width, c->height);
  sb_window_show_demo (window, demo, session);
  gtk_window_present (GTK_WINDOW (window));
  /* the posterior of the 45 duels, not the empty plot shown first */
  SPIN_UNTIL (sb_window_get_plot_snapshot (window) != NULL && sb_window_get_question (window) != NULL
              && sb_plot_snapshot_get_n_observations (sb_window_get_plot_snapshot (window)) > 0);
  /* the posterior with its eleven legend entries (the demo may open on
   * another of its views) */
  g_action_group_change_action_state (G_ACTION_GROUP (window), "plot-kind",
                                      g_variant_new_string ("posterior"));
  {
    SbChart *chart = sb_plot_view_get_chart (SB_PLOT_VIEW (must_find (window, is_plot_view, NULL)));
    SPIN_UNTIL (sb_chart_get_scene (chart) && sb_scene_get_n_layers (sb_chart_get_scene (chart)) > 0);
  }
  if (!c->banner)
    g_action_group_activate_action (G_ACTION_GROUP (window), "demo-close", NULL);
  if (c->presentation)
    g_action_group_change_action_state (G_ACTION_GROUP (window), "presentation",
                                        g_variant_new_boolean (TRUE));
  spin_for (600);
  return window;
}

/* The plot pane of WINDOW: the chart takes at least half of it, its
 * legend is whole inside the chart and off the plotted area, and each
 * tool of the plot's row is inside the row or in its menu. */
static void
check_plot_pane (SbWindow *window)
{
  GtkWidget *pane = must_find (window, has_name, "plot-pane");
  GtkWidget *chart = must_find (window, is_chart, NULL);
  SbToolRow *row = SB_TOOL_ROW (must_find (window, is_tool_row, NULL));
  double pane_area = (double) gtk_widget_get_width (pane) * gtk_widget_get_height (pane);
  double chart_area = (double) gtk_widget_get_width (chart) * gtk_widget_get_height (chart);
  gboolean in_menu = FALSE;
  SbFrame fr;

  assert_shown_inside (window, pane, "plot pane");
  assert_within (pane, chart, "chart");
  g_test_message ("chart %.0f %% of the plot pane", 100 * chart_area / pane_area);
  g_assert_cmpfloat (chart_area, >=, 0.5 * pane_area);

  g_assert_true (sb_chart_get_frame (SB_CHART (chart), &fr));
  g_test_message ("plot area %.0fx%.0f; legend %s at %.0f,%.0f %.0fx%.0f, text %.2f",
                  fr.pw, fr.ph, fr.legend == SB_LEGEND_TOP ? "top" : "right", fr.lx, fr.ly,
                  fr.lw, fr.lh, fr.legend_scale);
  g_assert_cmpint (fr.legend, !=, SB_LEGEND_NONE);
  g_assert_cmpfloat (fr.lx, >=, 0);
  g_assert_cmpfloat (fr.ly, >=, 0);
  g_assert_cmpfloat (fr.lx + fr.lw, <=, gtk_widget_get_width (chart));
  g_assert_cmpfloat (fr.ly + fr.lh, <=, gtk_widget_get_height (chart));
  if (fr.legend == SB_LEGEND_TOP)
    g_assert_cmpfloat (fr.ly + fr.lh, <=, fr.py);
  else
    g_assert_cmpfloat (fr.lx, >=, fr.px + fr.pw);

  assert_within (pane, GTK_WIDGET (row), "tool row");
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (row)); c; c = gtk_widget_get_next_sibling (c))
    {
      if (c == sb_tool_row_get_menu_button (row) || !gtk_widget_get_visible (c))
        continue;
      if (sb_tool_row_get_tool_shown (row, c))
        assert_within (GTK_WIDGET (row), c, G_OBJECT_TYPE_NAME (c));
      else
        in_menu = TRUE;
    }
  /* a tool left out of the row is in the menu, whose button is shown */
  if (in_menu)
    assert_within (GTK_WIDGET (row), sb_tool_row_get_menu_button (row), "more tools");
}

static void
test_plot_pane (Fixture *f, gconstpointer data)
{
  const PaneCase *c = data;
  SbWindow *window = open_demo (f, c);
  GtkWidget *question = must_find (window, has_action, "win.answer-a");
  g_autofree char *png = g_strdup_printf ("plots-%dx%d%s%s.png", c->width, c->height,
                                          c->banner ? "-banner" : "",
                                          c->presentation ? "-presentation" : "");

  assert_surface_size (window, c->width, c->height);
  check_plot_pane (window);
  maybe_write_png (window, png);
  /* Presentation mode: the plot alone, magnified. */
  g_assert_cmpint (gtk_widget_is_drawable (question), ==, !c->presentation);
  g_assert_cmpfloat (sb_chart_get_magnify (SB_CHART (must_find (window, is_chart, NULL))), ==,
                     c->presentation ? 1.8 : 1.0);
  if (c->presentation)
    return;
  /* F9: the plots alone (no leaflet fold at this width), then back. */
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-plots", g_variant_new_boolean (TRUE));
  spin_for (400);
  g_assert_false (gtk_widget_is_drawable (question));
  check_plot_pane (window);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "show-plots", g_variant_new_boolean (FALSE));
  spin_for (400);
  g_assert_true (gtk_widget_is_drawable (question));
}

static const PaneCase pane_cases[] = {
  { 1024, 768, TRUE, FALSE }, { 1024, 768, FALSE, FALSE },
  { 1024, 768, TRUE, TRUE }, { 1024, 768, FALSE, TRUE },
  { 1280, 800, TRUE, FALSE }, { 1280, 800, FALSE, FALSE },
  { 1280, 800, TRUE, TRUE }, { 1280, 800, FALSE, TRUE },
};

static char *
pane_case_path (const PaneCase *c)
{
  return g_strdup_printf ("/ui/layout/plots/%dx%d%s%s", c->width, c->height,
                          c->banner ? "-banner" : "", c->presentation ? "-presentation" : "");
}

static void test_narrow_light (Fixture *f, gconstpointer d) { check_narrow (f, FALSE); }
static void test_narrow_dark (Fixture *f, gconstpointer d) { check_narrow (f, TRUE); }
static void test_wide_light (Fixture *f, gconstpointer d) { check_wide (f, FALSE); }
static void test_wide_dark (Fixture *f, gconstpointer d) { check_wide (f, TRUE); }

static void
add (const char *path, void (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down);
}

int
main (int argc, char **argv)
{
  static const UiTest tests[] = {
    { "/ui/layout/360x640" },
    { "/ui/layout/360x640-dark" },
    { "/ui/layout/3000x800" },
    { "/ui/layout/3000x800-dark" },
    { "/ui/layout/1200x800-plot-tools" },
    { "/ui/layout/360x640-plot-tools" },
  };
  int status;

  if (!have_display ())
    {
      ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests));
      for (guint i = 0; i < G_N_ELEMENTS (pane_cases); i++)
        {
          g_autofree char *path = pane_case_path (&pane_cases[i]);
          g_test_add_func (path, ui_harness_skip_without_display);
        }
      return g_test_run ();
    }
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  gtk_test_init (&argc, &argv, NULL);
  {
    g_autofree char *data = g_dir_make_tmp ("sb-data-XXXXXX", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  app = ui_harness_application ();
  add ("/ui/layout/360x640", test_narrow_light);
  add ("/ui/layout/360x640-dark", test_narrow_dark);
  add ("/ui/layout/3000x800", test_wide_light);
  add ("/ui/layout/3000x800-dark", test_wide_dark);
  add ("/ui/layout/1200x800-plot-tools", test_plot_tools_1200);
  add ("/ui/layout/360x640-plot-tools", test_plot_tools_360);
  for (guint i = 0; i < G_N_ELEMENTS (pane_cases); i++)
    {
      g_autofree char *path = pane_case_path (&pane_cases[i]);
      g_test_add (path, Fixture, &pane_cases[i], fixture_set_up, test_plot_pane, fixture_tear_down);
    }
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
