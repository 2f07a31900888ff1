/* ui-harness.h — what every GTK test program needs: whether there is a
 * display to test on (UI tests TAP-skip without one), and main-loop
 * helpers that wait for the worker's results.
 *
 * SPIN_UNTIL (cond) iterates the main loop until COND holds; after
 * UI_HARNESS_SPIN_SECONDS (default 60; define it before including this
 * file) without it the test fails — a hang is a failure, and engine jobs
 * on a loaded 2-core machine can take seconds. spin_for (ms) iterates the
 * main loop for MS milliseconds (a 5 ms timer keeps it waking up). */
#pragma once
#include <glib.h>

#ifndef UI_HARNESS_SPIN_SECONDS
#define UI_HARNESS_SPIN_SECONDS 60
#endif

static inline gboolean
have_display (void)
{
  const char *x = g_getenv ("DISPLAY"), *w = g_getenv ("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

static inline gboolean
ui_harness_wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* The 5 ms timer wakes the loop for conditions that change without a
 * main-loop event (a flag set by a worker thread). */
#define SPIN_UNTIL(cond)                                                        \
  G_STMT_START {                                                                \
    gint64 deadline_ = g_get_monotonic_time ()                                  \
                       + UI_HARNESS_SPIN_SECONDS * G_TIME_SPAN_SECOND;          \
    guint wake_ = g_timeout_add (5, ui_harness_wake, NULL);                     \
    while (!(cond) && g_get_monotonic_time () < deadline_)                      \
      g_main_context_iteration (NULL, TRUE);                                    \
    g_source_remove (wake_);                                                    \
    g_assert_true (cond);                                                       \
  } G_STMT_END

static inline void
spin_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;
  guint id = g_timeout_add (5, ui_harness_wake, NULL);

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (id);
}

/* ---- Test programs --------------------------------------------------- */
#include <gtk/gtk.h>
#include "sb-application.h"

typedef struct {
  const char *path;
  GTestFunc func;
} UiTest;

static inline void
ui_harness_skip_without_display (void)
{
  g_test_skip ("no display: run under xvfb-run (build-aux/run-tests does)");
}

/* Registers the N TESTS. Without a display they are TAP skips and this
 * returns FALSE (the caller just runs them); otherwise GTK is initialised
 * with the Cairo renderer and a scratch XDG_DATA_HOME (never the user's
 * recent files or demo copies) before they are added. */
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
  gtk_test_init (argc, argv, NULL);
  {
    g_autofree char *data = g_dir_make_tmp ("sb-data-XXXXXX", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  for (guint i = 0; i < n; i++)
    g_test_add_func (tests[i].path, tests[i].func);
  return TRUE;
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
