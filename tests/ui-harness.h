/* ui-harness.h — what every GTK test program needs: whether there is a
 * display to test on (UI tests TAP-skip without one), on top of the
 * main-loop helpers of loop-harness.h. */
#pragma once
#include "loop-harness.h"

static inline gboolean
have_display (void)
{
  const char *x = g_getenv ("DISPLAY"), *w = g_getenv ("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

/* ---- Test programs --------------------------------------------------- */
#include <adwaita.h>
#include "sb-application.h"
#include "sb-worker.h"

#include <stdlib.h>

typedef struct {
  const char *path;
  GTestFunc func;
} UiTest;

static inline void
ui_harness_skip_without_display (void)
{
  g_test_skip ("no display: run under xvfb-run (build-aux/run-tests does)");
}

/* At exit, the engine jobs a closed window cancelled are let return
 * first, as the app does when it quits: a job thread still inside the
 * engine while exit runs the libraries' destructors (OpenBLAS frees its
 * buffers) would crash the test program after its last test passed. */
static void
ui_harness_wait_for_jobs (void)
{
  sb_worker_wait_all (30 * G_USEC_PER_SEC);
}

/* Registers the N TESTS. Without a display they are TAP skips and this
 * returns FALSE (the caller just runs them); otherwise GTK is initialised
 * with the Cairo renderer, libadwaita and a scratch XDG_DATA_HOME and
 * XDG_CONFIG_HOME (never the user's recent files, demo copies or allowed
 * commands) before they are added. */
static inline gboolean
ui_harness_init (int *argc, char ***argv, const UiTest *tests, guint n)
{
  if (!have_display ())
    {
      g_test_init (argc, argv, NULL);
      for (guint i = 0; i < n; i++)
        g_test_add_func (tests[i].path, ui_harness_skip_without_display);
      return FALSE;
    }
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  {
    /* never the user's allowed renderer commands (set before GLib reads it) */
    g_autofree char *config = g_dir_make_tmp ("sb-config-XXXXXX", NULL);
    g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  }
  gtk_test_init (argc, argv, NULL);
  adw_init ();
  {
    g_autofree char *data = g_dir_make_tmp ("sb-data-XXXXXX", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  for (guint i = 0; i < n; i++)
    g_test_add_func (tests[i].path, tests[i].func);
  atexit (ui_harness_wait_for_jobs);
  return TRUE;
}

/* The first widget under ROOT (ROOT included, depth first) that MATCH
 * accepts with DATA, or NULL. */
static inline GtkWidget *
ui_find_widget (GtkWidget *root, gboolean (*match) (GtkWidget *, gconstpointer),
                gconstpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = ui_find_widget (c, match, data);
      if (found)
        return found;
    }
  return NULL;
}

/* A registered, non-unique application for tests that open its windows. */
static inline SbApplication *
ui_harness_application (void)
{
  SbApplication *application = sb_application_new ();
  GApplication *g = G_APPLICATION (application);

  g_application_set_flags (g, g_application_get_flags (g) | G_APPLICATION_NON_UNIQUE);
  g_application_register (g, NULL, NULL);
  return application;
}

/* Runs the key controllers on the way from WINDOW to its focus widget as
 * GTK does for a key press (KEYVAL, hardware KEYCODE, modifier STATE):
 * capture from the window down, then bubble back up; TRUE when one took
 * the key. */
static inline gboolean
ui_press_key (GtkWidget *window, guint keyval, guint keycode, GdkModifierType state)
{
  GtkWidget *target = gtk_root_get_focus (GTK_ROOT (window));
  g_autoptr (GPtrArray) path = g_ptr_array_new ();

  if (target == NULL)
    target = window;
  for (GtkWidget *w = target; w; w = gtk_widget_get_parent (w))
    g_ptr_array_insert (path, 0, w);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < path->len; i++)
      {
        GtkWidget *w = g_ptr_array_index (path, pass == 0 ? i : path->len - 1 - i);
        g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (w);
        for (guint c = 0; c < g_list_model_get_n_items (controllers); c++)
          {
            g_autoptr (GtkEventController) ctl = g_list_model_get_item (controllers, c);
            gboolean handled = FALSE;
            if (!GTK_IS_EVENT_CONTROLLER_KEY (ctl)
                || gtk_event_controller_get_propagation_phase (ctl)
                   != (pass == 0 ? GTK_PHASE_CAPTURE : GTK_PHASE_BUBBLE))
              continue;
            g_signal_emit_by_name (ctl, "key-pressed", keyval, keycode, state, &handled);
            if (handled)
              return TRUE;
          }
      }
  return FALSE;
}
