/* test-ui-link.c — the link diagnostic window (ui/sb-link-dialog.c) under
 * Xvfb: the main window's win.link-diagnostic opens it on the session,
 * its worker job finishes with a fit, the chart shows the band, the fitted
 * link, the probit reference and the duels as rug marks, and the verdict
 * matches the session fixtures (tests/data/gen-link-session.py: probit
 * answers are consistent, decisive ones are not); for a session without
 * duels the menu item stays enabled and the dialog says what it needs. TAP-skips when there is no display. */
#include "sb-application.h"
#include "sb-chart.h"
#include "sb-link-dialog.h"
#include "sb-window.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

static SbApplication *app;

#include "ui-harness.h"

/* A scratch copy of a fixture (the window may save into its file). */
static GFile *
copy_fixture (const char *name, char **dir)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (src, &text, NULL, &error);
  g_assert_no_error (error);
  *dir = g_dir_make_tmp ("sb-link-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (*dir, name, NULL);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static void
remove_dir (char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
  g_free (dir);
}

static SbLinkDialog *
find_link_dialog (void)
{
  GListModel *tops = gtk_window_get_toplevels ();   /* transfer none */
  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (tops, i);
      if (SB_IS_LINK_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return SB_LINK_DIALOG (w);
    }
  return NULL;
}

static gboolean
finished (SbLinkDialog *d)
{
  return !sb_link_dialog_is_busy (d) && *sb_link_dialog_get_message (d) != '\0';
}

static void
assert_plot (SbLinkDialog *dialog, guint n_duels)
{
  SbChart *chart = SB_CHART (sb_link_dialog_get_chart (dialog));
  SbScene *scene = sb_chart_get_scene (chart);
  g_assert_nonnull (scene);
  static const char *const ids[] = { "band/link", "mean/link", "probit", "rug/first",
                                     "rug/second" };
  gsize rug = 0;
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      SbLayer *layer = sb_scene_find_layer (scene, ids[i]);
      g_assert_nonnull (layer);
      if (g_str_has_prefix (ids[i], "rug/"))
        rug += sb_layer_get_n (layer);
    }
  g_assert_cmpuint (rug, ==, n_duels);
  /* The chart is on screen and can read out the curves under the pointer. */
  SPIN_UNTIL (gtk_widget_get_mapped (GTK_WIDGET (chart)) && sb_chart_get_frame (chart, &(SbFrame) { 0 }));
  SbFrame frame;
  g_assert_true (sb_chart_get_frame (chart, &frame));
  g_autofree char *hover = sb_chart_hover_at (chart, frame.px + frame.pw / 2, frame.py + frame.ph / 2);
  g_assert_nonnull (hover);
  g_assert_nonnull (strstr (hover, "probit"));
}

/* The main window's menu action opens the diagnostic on its session. */
static void
test_from_window (void)
{
  char *dir = NULL;
  g_autoptr (GFile) file = copy_fixture ("link-session.json", &dir);
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sb_window_open_file (window, file, FALSE));

  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (window), "link-diagnostic");
  g_assert_nonnull (action);
  g_assert_true (g_action_get_enabled (action));
  g_action_group_activate_action (G_ACTION_GROUP (window), "link-diagnostic", NULL);
  SbLinkDialog *dialog = find_link_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  SPIN_UNTIL (finished (dialog));

  const SbLinkResult *res = sb_link_dialog_get_result (dialog);
  g_assert_nonnull (res);
  g_test_message ("%s (%.2f s)", res->verdict, res->seconds);
  g_assert_cmpuint (res->n, ==, 60);
  g_assert_true (res->consistent);
  g_assert_cmpstr (sb_link_dialog_get_message (dialog), ==, res->verdict);
  assert_plot (dialog, 60);

  /* (Recompute is checked without the window, whose hyperparameter refit
   * may change the session's hyperparameters meanwhile.) */
  /* The dialog goes with its parent. */
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  spin_for (50);
  g_assert_null (find_link_dialog ());
  remove_dir (dir);
}

static void
test_decisive_not_consistent (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data",
                                                 "link-session-decisive.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = sb_session_load (file, &error);
  g_assert_no_error (error);
  SbLinkDialog *dialog = sb_link_dialog_new (NULL, session);
  gtk_window_present (GTK_WINDOW (dialog));
  SPIN_UNTIL (finished (dialog));
  const SbLinkResult *res = sb_link_dialog_get_result (dialog);
  g_assert_nonnull (res);
  g_test_message ("%s", res->verdict);
  g_assert_false (res->consistent);
  g_assert_true (g_str_has_prefix (sb_link_dialog_get_message (dialog), "Not consistent"));
  assert_plot (dialog, 100);

  /* Recompute gives the same fit (same seed, answers, hyperparameters). */
  double coverage = res->coverage;
  g_autofree char *verdict = g_strdup (res->verdict);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "link.recompute", NULL);
  g_assert_true (sb_link_dialog_is_busy (dialog));
  SPIN_UNTIL (finished (dialog));
  g_assert_nonnull (sb_link_dialog_get_result (dialog));
  g_assert_cmpfloat (sb_link_dialog_get_result (dialog)->coverage, ==, coverage);
  g_assert_cmpstr (sb_link_dialog_get_result (dialog)->verdict, ==, verdict);
  gtk_window_destroy (GTK_WINDOW (dialog));
  spin_for (20);
}

static void
test_no_duels (void)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_free (exp->title);
  exp->title = g_strdup ("empty");
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 1.0));
  g_autoptr (SbSession) session = sb_session_new (exp);

  /* The window's menu item stays enabled without answers (GTK 4.8's
   * popover menus show no tooltip, so a greyed item could not say why) ... */
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (window);
  sb_window_set_session (window, session);
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (window), "link-diagnostic");
  g_assert_true (g_action_get_enabled (action));

  /* ... and the dialog it opens explains what is needed. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "link-diagnostic", NULL);
  SbLinkDialog *dialog = find_link_dialog ();
  g_assert_nonnull (dialog);
  SPIN_UNTIL (finished (dialog));
  g_assert_null (sb_link_dialog_get_result (dialog));
  const char *why = sb_link_dialog_get_message (dialog);
  g_test_message ("%s", why);
  g_assert_nonnull (strstr (why, "needs answered duels"));
  g_assert_nonnull (strstr (why, "preference or mixed"));
  g_assert_nonnull (strstr (why, "no answered duel yet"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);

  /* A safe-mode experiment asks no duels: the dialog says so. */
  exp->mode = SB_MODE_SAFE;
  sb_experiment_use_default_acquisition (exp);
  g_autoptr (SbSession) safe = sb_session_new (exp);
  dialog = sb_link_dialog_new (NULL, safe);
  gtk_window_present (GTK_WINDOW (dialog));
  SPIN_UNTIL (finished (dialog));
  g_assert_nonnull (strstr (sb_link_dialog_get_message (dialog), "safe-optimisation"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  spin_for (20);
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/link/from-window", test_from_window },
    { "/ui/link/decisive-not-consistent", test_decisive_not_consistent },
    { "/ui/link/no-duels", test_no_duels },
  };

  int status;

  if (ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    app = ui_harness_application ();
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
