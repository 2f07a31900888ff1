/* test-ui-window.c — the main window builds from its template and shows.
 * TAP-skips when there is no display (gtk_test_init would abort). */
#include "sb-application.h"
#include "sb-window.h"

#include <gtk/gtk.h>

static gboolean
have_display (void)
{
  const char *x = g_getenv ("DISPLAY"), *w = g_getenv ("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

static void
test_window_template (void)
{
  g_autoptr (SbApplication) app = sb_application_new ();
  g_application_register (G_APPLICATION (app), NULL, NULL);
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));
  g_assert_true (SB_IS_WINDOW (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "SkewBench");
  g_assert_nonnull (gtk_window_get_titlebar (GTK_WINDOW (window)));
  gtk_window_present (GTK_WINDOW (window));
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window)));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
skip_without_display (void)
{
  g_test_skip ("no display: run under xvfb-run (build-aux/run-tests does)");
}

int
main (int argc, char *argv[])
{
  if (!have_display ())
    {
      g_test_init (&argc, &argv, NULL);
      g_test_add_func ("/ui/window/template", skip_without_display);
      return g_test_run ();
    }
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/window/template", test_window_template);
  return g_test_run ();
}
