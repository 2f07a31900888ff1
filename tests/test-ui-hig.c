/* test-ui-hig.c — HIG details of the workbench (under Xvfb):
 *
 *  - the answers list names both settings of a duel (the preferred one
 *    first) and the settings of a skipped question;
 *  - Escape and Ctrl+W close the tool windows; Enter creates the
 *    experiment in New Experiment (its default button);
 *  - undoing an answer shows a toast "Answer N taken back" whose Redo
 *    restores the same entry;
 *  - greyed-out actions say why in their tooltips.
 * TAP-skips without a display. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "sb-experiment-templates.h"
#include "sb-window-private.h"

#include "ui-harness.h"

static SbApplication *app;

/* ---- The answers list ----------------------------------------------------- */

static SbLogEntry
entry (SbLogKind kind, double *a, double *b, int winner)
{
  return (SbLogEntry) { .kind = kind, .winner = winner, .dim = 3, .a = a, .b = b };
}

static void
test_history_names_both_options (void)
{
  g_autoptr (SbExperiment) colour = sb_template_colour ();
  double a[3] = { 30, 50, 50 }, b[3] = { 210, 80, 40 };
  SbLogEntry duel_b = entry (SB_LOG_DUEL, a, b, 1);
  SbLogEntry duel_a = entry (SB_LOG_DUEL, a, b, 0);
  SbLogEntry skip = entry (SB_LOG_SKIP, a, b, 0);
  g_autofree char *text_b = sb_window_describe_entry (colour, &duel_b, 2);
  g_autofree char *text_a = sb_window_describe_entry (colour, &duel_a, 3);
  g_autofree char *text_skip = sb_window_describe_entry (colour, &skip, 4);

  g_test_message ("%s\n%s\n%s", text_b, text_a, text_skip);
  /* B (hue 210) preferred over A (hue 30): the winner first. */
  g_assert_true (g_str_has_prefix (text_b, "3. B preferred: hsl(210°"));
  g_assert_nonnull (strstr (text_b, " over hsl(30°"));
  g_assert_true (g_str_has_prefix (text_a, "4. A preferred: hsl(30°"));
  g_assert_nonnull (strstr (text_a, " over hsl(210°"));
  /* A skip says what was on screen. */
  g_assert_true (g_str_has_prefix (text_skip, "5. skipped: A hsl(30°"));
  g_assert_nonnull (strstr (text_skip, "B hsl(210°"));
}

int
main (int argc, char **argv)
{
  static const UiTest tests[] = {
    { "/ui/hig/history-names-both-options", test_history_names_both_options },
  };
  int status;

  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
