/* test-ui-prior.c — the prior explorer (ui/sb-prior-explorer.c) under Xvfb.
 *
 *  - win.prior-explorer opens it; its first jobs finish and the plots show
 *    the prior (samples, band, mean, pseudo-point handles) and the SUN
 *    density contours with the Gaussian's;
 *  - changing each control (kernel, lengthscale, variance, s, a phase,
 *    a gamma, the pair) changes the engine input the next job receives,
 *    and the finished job changes what the plot draws;
 *  - dragging a handle moves the pseudo-point; a drag elsewhere does not;
 *  - quick successive changes supersede each other: the plot ends on the
 *    last one.
 * TAP-skips when there is no display. */
#include "sb-application.h"
#include "sb-chart.h"
#include "sb-prior-explorer.h"
#include "sb-window.h"

#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

static SbApplication *app;

#include "ui-harness.h"

static SbPriorExplorer *
find_explorer (void)
{
  GListModel *tops = gtk_window_get_toplevels ();   /* transfer none */
  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (tops, i);
      if (SB_IS_PRIOR_EXPLORER (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return SB_PRIOR_EXPLORER (w);
    }
  return NULL;
}

/* Both lanes show the result of their last submission. */
static gboolean
current (SbPriorExplorer *ex)
{
  SbPlotSnapshot *snap = sb_prior_explorer_get_snapshot (ex);
  const SbPriorPair *pair = sb_prior_explorer_get_pair (ex);
  guint64 gc = sb_prior_explorer_get_submitted (ex, FALSE, NULL);
  guint64 gp = sb_prior_explorer_get_submitted (ex, TRUE, NULL);
  return gc > 0 && gp > 0 && snap && pair && sb_plot_snapshot_get_generation (snap) == gc
         && pair->generation == gp;
}

static SbLayer *
layer (SbPriorExplorer *ex, guint chart, const char *id)
{
  SbScene *scene = sb_chart_get_scene (sb_prior_explorer_get_chart (ex, chart));
  return scene ? sb_scene_find_layer (scene, id) : NULL;
}

static SbPriorExplorer *
open_explorer (SbWindow **window_out)
{
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (window), "prior-explorer");
  g_assert_nonnull (action);
  g_assert_true (g_action_get_enabled (action));
  g_action_group_activate_action (G_ACTION_GROUP (window), "prior-explorer", NULL);
  SbPriorExplorer *ex = find_explorer ();
  g_assert_nonnull (ex);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (ex)) == GTK_WINDOW (window));
  SbFrame f;
  SPIN_UNTIL (current (ex) && sb_chart_get_frame (sb_prior_explorer_get_chart (ex, 0), &f));
  spin_for (20);
  *window_out = window;
  return ex;
}

static void
close_explorer (SbPriorExplorer *ex, SbWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (ex));
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  spin_for (20);
}

/* The first results: the prior's layers and the SUN contours. */
static void
test_open (void)
{
  SbWindow *window;
  SbPriorExplorer *ex = open_explorer (&window);
  SbPriorInput in;
  sb_prior_explorer_get_input (ex, &in);
  g_assert_cmpuint (in.s, ==, 2);
  g_assert_cmpfloat (in.lengthscale, ==, 0.3);

  const char *prior_layers[] = { "band/exact", "samples", "mean/exact", "median/exact",
                                 "pseudo/up", "pseudo/down" };
  for (guint i = 0; i < G_N_ELEMENTS (prior_layers); i++)
    g_assert_nonnull (layer (ex, 0, prior_layers[i]));
  g_assert_nonnull (layer (ex, 1, "skewness/exact"));
  g_assert_nonnull (layer (ex, 2, "sun"));
  g_assert_nonnull (layer (ex, 2, "gauss"));
  g_assert_cmpstr (sb_scene_get_title (sb_chart_get_scene (sb_prior_explorer_get_chart (ex, 0))),
                   ==, "Prior of f");
  /* The default prior pushes f(u1) up (L = +1) and f(u2) down (L = -1):
   * the mean at the handles has those signs (000 Figure 3 (c)). */
  SbPlotSnapshot *snap = sb_prior_explorer_get_snapshot (ex);
  const double *grid;
  gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, &grid);
  const sg_point_summary *sum = sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT);
  g_assert_cmpuint (n, ==, in.n_grid);
  gsize i03 = (gsize) lround (0.3 * (double) (n - 1)), i07 = (gsize) lround (0.7 * (double) (n - 1));
  g_assert_cmpfloat (sum[i03].mean, >, 0.5);
  g_assert_cmpfloat (sum[i07].mean, <, -0.5);
  close_explorer (ex, window);
}

typedef void (*ChangeFunc) (SbPriorExplorer *ex);
typedef gboolean (*CheckFunc) (const SbPriorInput *before, const SbPriorInput *after);

static void change_lengthscale (SbPriorExplorer *ex)
{ gtk_range_set_value (GTK_RANGE (sb_prior_explorer_get_control (ex, "lengthscale")), 0.6); }
static gboolean check_lengthscale (const SbPriorInput *b, const SbPriorInput *a)
{ return a->lengthscale == 0.6 && b->lengthscale == 0.3; }

static void change_variance (SbPriorExplorer *ex)
{ gtk_range_set_value (GTK_RANGE (sb_prior_explorer_get_control (ex, "variance")), 2.5); }
static gboolean check_variance (const SbPriorInput *b, const SbPriorInput *a)
{ return a->variance == 2.5 && b->variance == 1.0; }

static void change_kernel (SbPriorExplorer *ex)
{ gtk_drop_down_set_selected (GTK_DROP_DOWN (sb_prior_explorer_get_control (ex, "kernel")), 1); }
static gboolean check_kernel (const SbPriorInput *b, const SbPriorInput *a)
{ return a->kernel == SG_KERNEL_MATERN52 && b->kernel == SG_KERNEL_RBF; }

static void change_s (SbPriorExplorer *ex)
{ gtk_spin_button_set_value (GTK_SPIN_BUTTON (sb_prior_explorer_get_control (ex, "s")), 3); }
static gboolean check_s (const SbPriorInput *b, const SbPriorInput *a)
{ return a->s == 3 && b->s == 2; }

static void change_phase (SbPriorExplorer *ex)
{ g_signal_emit_by_name (sb_prior_explorer_get_control (ex, "phase1"), "clicked"); }
static gboolean check_phase (const SbPriorInput *b, const SbPriorInput *a)
{ return a->phase[0] == -1 && b->phase[0] == 1 && a->phase[1] == b->phase[1]; }

/* The action flips the phase back, like the button. */
static void change_phase_action (SbPriorExplorer *ex)
{ gtk_widget_activate_action (GTK_WIDGET (ex), "prior.flip-phase", "u", 2); }
static gboolean check_phase_action (const SbPriorInput *b, const SbPriorInput *a)
{ return a->phase[1] == 1 && b->phase[1] == -1; }

static void change_gamma (SbPriorExplorer *ex)
{ gtk_range_set_value (GTK_RANGE (sb_prior_explorer_get_control (ex, "gamma2")), -1.5); }
static gboolean check_gamma (const SbPriorInput *b, const SbPriorInput *a)
{ return a->gamma[1] == -1.5 && b->gamma[1] == -0.5; }

static void change_u (SbPriorExplorer *ex)
{ gtk_spin_button_set_value (GTK_SPIN_BUTTON (sb_prior_explorer_get_control (ex, "u1")), 0.45); }
static gboolean check_u (const SbPriorInput *b, const SbPriorInput *a)
{ return fabs (a->pseudo[0] - 0.45) < 1e-12 && b->pseudo[0] == 0.3; }

/* Each control: the next curves job gets the changed input, and when it is
 * done the prior's mean curve and the handles are drawn differently. */
static void
test_controls (void)
{
  static const struct {
    const char *name;
    ChangeFunc change;
    CheckFunc check;
  } cases[] = {
    { "lengthscale", change_lengthscale, check_lengthscale },
    { "variance", change_variance, check_variance },
    { "kernel", change_kernel, check_kernel },
    { "s", change_s, check_s },
    { "phase", change_phase, check_phase },
    { "phase action", change_phase_action, check_phase_action },
    { "gamma", change_gamma, check_gamma },
    { "u", change_u, check_u },
  };
  SbWindow *window;
  SbPriorExplorer *ex = open_explorer (&window);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      SbPriorInput before, after;
      guint64 gen0 = sb_prior_explorer_get_submitted (ex, FALSE, &before);
      guint64 gp0 = sb_prior_explorer_get_submitted (ex, TRUE, NULL);
      g_autoptr (SbLayer) mean0 = sb_layer_ref (layer (ex, 0, "mean/exact"));
      g_autoptr (SbLayer) skew0 = sb_layer_ref (layer (ex, 1, "skewness/exact"));

      cases[c].change (ex);
      SPIN_UNTIL (sb_prior_explorer_get_submitted (ex, FALSE, NULL) > gen0 && current (ex));
      sb_prior_explorer_get_submitted (ex, FALSE, &after);
      g_test_message ("%s: generation %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT, cases[c].name,
                      gen0, sb_prior_explorer_get_submitted (ex, FALSE, NULL));
      g_assert_true (cases[c].check (&before, &after));
      /* the controls' input is what the job got */
      SbPriorInput now;
      sb_prior_explorer_get_input (ex, &now);
      g_assert_true (sb_prior_input_equal_curves (&now, &after));
      /* the pair of points lives under the same prior: its job follows */
      SbPriorInput pair_sent;
      g_assert_cmpuint (sb_prior_explorer_get_submitted (ex, TRUE, &pair_sent), >, gp0);
      g_assert_true (sb_prior_input_equal_pair (&now, &pair_sent));
      /* the finished job changed the plot */
      g_assert_false (sb_layer_equal (mean0, layer (ex, 0, "mean/exact")));
      if (c != 1)   /* a variance change scales SS(x) by nothing: it is scale free */
        g_assert_false (sb_layer_equal (skew0, layer (ex, 1, "skewness/exact")));
    }

  /* The pair: moving x_a and choosing a Figure 2 SUN reach the pair job. */
  {
    guint64 gp0 = sb_prior_explorer_get_submitted (ex, TRUE, NULL);
    g_autoptr (SbLayer) sun0 = sb_layer_ref (layer (ex, 2, "sun"));
    gtk_range_set_value (GTK_RANGE (sb_prior_explorer_get_control (ex, "pair-a")), 0.1);
    SPIN_UNTIL (sb_prior_explorer_get_submitted (ex, TRUE, NULL) > gp0 && current (ex));
    SbPriorInput sent;
    sb_prior_explorer_get_submitted (ex, TRUE, &sent);
    g_assert_cmpfloat (sent.pair_x[0], ==, 0.1);
    g_assert_false (sb_layer_equal (sun0, layer (ex, 2, "sun")));
    g_assert_nonnull (strstr (sb_prior_explorer_get_pair (ex)->title, "f(0.10)"));

    gp0 = sb_prior_explorer_get_submitted (ex, TRUE, NULL);
    gtk_drop_down_set_selected (GTK_DROP_DOWN (sb_prior_explorer_get_control (ex, "pair")),
                                SB_PRIOR_PAIR_FIGURE2_A3);
    SPIN_UNTIL (sb_prior_explorer_get_submitted (ex, TRUE, NULL) > gp0 && current (ex));
    sb_prior_explorer_get_submitted (ex, TRUE, &sent);
    g_assert_cmpint (sent.pair, ==, SB_PRIOR_PAIR_FIGURE2_A3);
    g_assert_nonnull (strstr (sb_prior_explorer_get_pair (ex)->title, "(a3)"));
    g_assert_false (gtk_widget_get_sensitive (sb_prior_explorer_get_control (ex, "pair-a")));
    /* The figure's SUN is skewed towards positive values (its mean is
     * (0.60, 0.81), tests/test-skewgp.c /skewgp/sun-density-2d). */
    g_assert_cmpfloat (fabs (sb_prior_explorer_get_pair (ex)->mean[0] - 0.600826), <, 1e-4);
  }

  /* Reset restores the defaults. */
  gtk_widget_activate_action (GTK_WIDGET (ex), "prior.reset", NULL);
  SbPriorInput now, def;
  sb_prior_explorer_get_input (ex, &now);
  sb_prior_input_init (&def);
  g_assert_true (sb_prior_input_equal_curves (&now, &def));
  g_assert_true (sb_prior_input_equal_pair (&now, &def));
  close_explorer (ex, window);
}

/* Dragging handle u1 to the right moves the pseudo-point by the dragged
 * distance in data units; a drag that starts away from every handle does
 * nothing to the prior (it is the chart's zoom). */
static void
test_drag (void)
{
  SbWindow *window;
  SbPriorExplorer *ex = open_explorer (&window);
  SbChart *chart = sb_prior_explorer_get_chart (ex, 0);
  SbFrame f;
  g_assert_true (sb_chart_get_frame (chart, &f));
  double hx, hy;
  g_assert_true (sb_prior_explorer_get_handle_position (ex, 0, &hx, &hy));
  g_assert_false (sb_prior_explorer_get_handle_position (ex, 2, &hx, &hy));  /* s = 2 */

  SbPriorInput before, after;
  sb_prior_explorer_get_input (ex, &before);
  g_assert_true (sb_prior_explorer_get_handle_position (ex, 0, &hx, &hy));
  guint64 gen0 = sb_prior_explorer_get_submitted (ex, FALSE, NULL);
  g_autoptr (SbLayer) up0 = sb_layer_ref (layer (ex, 0, "pseudo/up"));
  double target = 0.55;
  double dx = sb_frame_x_to_device (&f, target) - hx;
  g_assert_true (sb_prior_explorer_drag (ex, hx + 3, hy - 2, dx, 15));
  sb_prior_explorer_get_input (ex, &after);
  g_test_message ("u1: %.4f -> %.4f (dragged %.1f px)", before.pseudo[0], after.pseudo[0], dx);
  /* the 3 px offset of the grab point moves it by 3 px of data too */
  double px = (f.x1 - f.x0) / f.pw;
  g_assert_cmpfloat (fabs (after.pseudo[0] - target - 3 * px), <, 1e-9);
  g_assert_cmpfloat (after.pseudo[1], ==, before.pseudo[1]);
  SPIN_UNTIL (sb_prior_explorer_get_submitted (ex, FALSE, NULL) > gen0 && current (ex));
  SbPriorInput sent;
  sb_prior_explorer_get_submitted (ex, FALSE, &sent);
  g_assert_cmpfloat (sent.pseudo[0], ==, after.pseudo[0]);
  g_assert_false (sb_layer_equal (up0, layer (ex, 0, "pseudo/up")));
  /* the handle is drawn where the pseudo-point now is */
  g_assert_true (sb_prior_explorer_get_handle_position (ex, 0, &hx, &hy));
  g_assert_cmpfloat (fabs (hx - sb_frame_x_to_device (&f, after.pseudo[0])), <, 1e-6);

  /* far from the handles: not grabbed, nothing changes */
  gen0 = sb_prior_explorer_get_submitted (ex, FALSE, NULL);
  double far_x = sb_frame_x_to_device (&f, 0.05), far_y = f.py + 5;
  g_assert_false (sb_prior_explorer_drag (ex, far_x, far_y, 40, 0));
  spin_for (50);
  g_assert_cmpuint (sb_prior_explorer_get_submitted (ex, FALSE, NULL), ==, gen0);
  SbPriorInput same;
  sb_prior_explorer_get_input (ex, &same);
  g_assert_true (sb_prior_input_equal_curves (&same, &after));
  close_explorer (ex, window);
}

/* Successive slider moves, each submitted: every one supersedes the one
 * before; the plot ends on the last value. */
static void
test_supersede (void)
{
  SbWindow *window;
  SbPriorExplorer *ex = open_explorer (&window);
  GtkRange *scale = GTK_RANGE (sb_prior_explorer_get_control (ex, "lengthscale"));
  guint64 gen0 = sb_prior_explorer_get_submitted (ex, FALSE, NULL), prev = gen0;
  for (guint i = 1; i <= 6; i++)
    {
      gtk_range_set_value (scale, 0.3 + 0.05 * i);
      /* let the coalescing idle submit this value */
      while (sb_prior_explorer_get_submitted (ex, FALSE, NULL) == prev)
        g_main_context_iteration (NULL, TRUE);
      prev = sb_prior_explorer_get_submitted (ex, FALSE, NULL);
    }
  g_assert_cmpuint (prev, ==, gen0 + 6);
  SPIN_UNTIL (current (ex));
  SbPriorInput sent;
  sb_prior_explorer_get_submitted (ex, FALSE, &sent);
  g_assert_cmpfloat (fabs (sent.lengthscale - 0.6), <, 1e-12);
  g_assert_cmpuint (sb_plot_snapshot_get_generation (sb_prior_explorer_get_snapshot (ex)), ==,
                    gen0 + 6);
  close_explorer (ex, window);
}

/* The explorer fits a 1024 x 768 screen: its smallest size and its
 * default size (a title bar aside) are within it. */
static void
test_fits_1024x768 (void)
{
  SbWindow *window;
  SbPriorExplorer *ex = open_explorer (&window);
  int min_w, min_h, def_w, def_h;

  gtk_widget_measure (GTK_WIDGET (ex), GTK_ORIENTATION_HORIZONTAL, -1, &min_w, NULL, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (ex), GTK_ORIENTATION_VERTICAL, min_w, &min_h, NULL, NULL, NULL);
  gtk_window_get_default_size (GTK_WINDOW (ex), &def_w, &def_h);
  g_test_message ("prior explorer: smallest %d x %d, default %d x %d", min_w, min_h, def_w, def_h);
  g_assert_cmpint (min_w, <=, 1024);
  g_assert_cmpint (min_h, <=, 768 - 40);
  g_assert_cmpint (def_w, <=, 1024);
  g_assert_cmpint (def_h, <=, 768 - 40);
  close_explorer (ex, window);
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/prior/open", test_open },
    { "/ui/prior/controls", test_controls },
    { "/ui/prior/drag", test_drag },
    { "/ui/prior/supersede", test_supersede },
    { "/ui/prior/fits-1024x768", test_fits_1024x768 },
  };

  int status;

  if (ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    app = ui_harness_application ();
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
