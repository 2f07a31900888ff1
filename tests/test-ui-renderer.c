/* test-ui-renderer.c — the renderer choice (ui/sb-renderer.h): software
 * OpenGL is recognised, the Cairo renderer is chosen there unless the
 * user set GSK_RENDERER, and a window realised afterwards really draws
 * with the renderer chosen. TAP-skips without a display. */
#include "sb-renderer.h"

#include <gtk/gtk.h>
#include <string.h>

#include "ui-harness.h"

static void
test_software_names (void)
{
  g_assert_true (sb_renderer_is_software_gl ("llvmpipe (LLVM 15.0.6, 256 bits)"));
  g_assert_true (sb_renderer_is_software_gl ("Mesa softpipe"));
  g_assert_true (sb_renderer_is_software_gl ("Software Rasterizer"));
  g_assert_false (sb_renderer_is_software_gl ("AMD Radeon Graphics (renoir, LLVM 15.0.6, DRM 3.49)"));
  g_assert_false (sb_renderer_is_software_gl ("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"));
  g_assert_false (sb_renderer_is_software_gl (NULL));
}

/* The user's GSK_RENDERER wins and is left as it is. */
static void
test_user_choice_kept (void)
{
  g_setenv ("GSK_RENDERER", "ngl", TRUE);
  g_assert_cmpstr (sb_renderer_choose (gdk_display_get_default ()), ==, "ngl");
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "ngl");
  g_unsetenv ("GSK_RENDERER");
}

/* Without GSK_RENDERER: Cairo exactly when GL is software or missing,
 * and the next window's renderer is the one chosen. GSK reads the
 * variable once per process, at the first window, so this test realises
 * the first window of the program. */
static void
test_choice_applies (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  g_autofree char *gl = sb_renderer_query_gl (display);
  const char *chosen;
  GtkWidget *window;
  GskRenderer *renderer;

  g_unsetenv ("GSK_RENDERER");
  chosen = sb_renderer_choose (display);
  if (gl == NULL || sb_renderer_is_software_gl (gl))
    {
      g_assert_cmpstr (chosen, ==, "cairo");
      g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "cairo");
    }
  else
    {
      g_assert_cmpstr (chosen, ==, "gl");
      g_assert_null (g_getenv ("GSK_RENDERER"));
    }

  window = gtk_window_new ();
  gtk_window_present (GTK_WINDOW (window));
  SPIN_UNTIL (gtk_widget_get_realized (window));
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_assert_nonnull (renderer);
  if (g_str_equal (chosen, "cairo"))
    g_assert_cmpstr (G_OBJECT_TYPE_NAME (renderer), ==, "GskCairoRenderer");
  else
    g_assert_cmpstr (G_OBJECT_TYPE_NAME (renderer), !=, "GskCairoRenderer");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/renderer/software-names", test_software_names },
    { "/ui/renderer/user-choice-kept", test_user_choice_kept },
    { "/ui/renderer/choice-applies", test_choice_applies },
  };

  /* The harness defaults GSK_RENDERER to cairo for the other UI tests;
   * this one decides it itself. */
  if (ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    g_unsetenv ("GSK_RENDERER");
  return g_test_run ();
}
