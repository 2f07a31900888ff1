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

#define SPIN_UNTIL(cond)                                                        \
  G_STMT_START {                                                                \
    gint64 deadline_ = g_get_monotonic_time ()                                  \
                       + UI_HARNESS_SPIN_SECONDS * G_TIME_SPAN_SECOND;          \
    while (!(cond) && g_get_monotonic_time () < deadline_)                      \
      g_main_context_iteration (NULL, TRUE);                                    \
    g_assert_true (cond);                                                       \
  } G_STMT_END

static inline gboolean
ui_harness_wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static inline void
spin_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;
  guint id = g_timeout_add (5, ui_harness_wake, NULL);

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (id);
}
