/* loop-harness.h — main-loop helpers for tests that wait for the
 * worker's results (GLib only: the headless core suite uses it, and
 * ui-harness.h adds the GTK part on top).
 *
 * SPIN_UNTIL (cond) iterates the main loop until COND holds; after
 * UI_HARNESS_SPIN_SECONDS (default 60; define it before including this
 * file) without it the test fails — a hang is a failure, and engine jobs
 * on a loaded 2-core machine can take seconds. Under the valgrind and
 * asan setups (SB_TEST_INSTRUMENTED set), where the engine runs 10-50x
 * slower, the wait is UI_HARNESS_INSTRUMENTED_FACTOR times longer.
 * spin_for (ms) iterates the
 * main loop for MS milliseconds (a 5 ms timer keeps it waking up). */
#pragma once
#include <glib.h>

#ifndef UI_HARNESS_SPIN_SECONDS
#define UI_HARNESS_SPIN_SECONDS 60
#endif
#define UI_HARNESS_INSTRUMENTED_FACTOR 10

static inline gint64
ui_harness_spin_deadline (void)
{
  gint64 seconds = UI_HARNESS_SPIN_SECONDS;
  if (g_getenv ("SB_TEST_INSTRUMENTED"))
    seconds *= UI_HARNESS_INSTRUMENTED_FACTOR;
  return g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;
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
    gint64 deadline_ = ui_harness_spin_deadline ();                             \
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

