/* test-ui-hig.c — HIG details of the workbench (under Xvfb):
 *
 *  - the answers list names both settings of a duel (the preferred one
 *    first) and the settings of a skipped question;
 *  - Escape and Ctrl+W close the tool windows; Enter creates the
 *    experiment in New Experiment (its default button);
 *  - undoing an answer shows a toast "Answer N taken back" whose Redo
 *    restores the same entry;
 *  - greyed-out buttons say why in their tooltips;
 *  - the mouse wheel changes a spin button only while it has the focus.
 * TAP-skips without a display. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "sb-demo-chooser.h"
#include "sb-experiment-templates.h"
#include "sb-link-dialog.h"
#include "sb-new-experiment-dialog.h"
#include "sb-playground.h"
#include "sb-prior-explorer.h"
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
  g_assert_true (g_str_has_prefix (text_b, "3. B preferred: oklch(40.0% 0.320 210°)"));
  g_assert_nonnull (strstr (text_b, " over oklch(50.0% 0.200 30°)"));
  g_assert_true (g_str_has_prefix (text_a, "4. A preferred: oklch(50.0% 0.200 30°)"));
  g_assert_nonnull (strstr (text_a, " over oklch(40.0% 0.320 210°)"));
  /* A skip says what was on screen. */
  g_assert_true (g_str_has_prefix (text_skip, "5. skipped: A oklch(50.0% 0.200 30°)"));
  g_assert_nonnull (strstr (text_skip, "B oklch(40.0% 0.320 210°)"));
}

/* ---- Keys of the tool windows ---------------------------------------------- */

/* Activates WIDGET's shortcut for ACCEL (e.g. "Escape", "<Control>w"), as
 * the key press would; FALSE when it has none. */
static gboolean
activate_shortcut (GtkWidget *widget, const char *accel)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (c)); j++)
        {
          g_autoptr (GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (c), j);
          g_autofree char *trigger
            = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));

          if (g_str_equal (trigger, accel))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  return FALSE;
}

static SbSession *
answered_colour_session (guint n)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  SbSession *session = sb_session_new (exp);

  for (guint i = 0; i < n; i++)
    {
      double a[3] = { 10.0 + 30 * i, 50, 50 }, b[3] = { 200.0 - 20 * i, 70, 40 };
      g_assert_true (sb_session_add_duel (session, a, b, i % 2, NULL));
    }
  return session;
}

static GtkWidget *
open_tool_window (guint which, GtkWindow *parent, SbSession *session)
{
  switch (which)
    {
    case 0: return GTK_WIDGET (sb_demo_chooser_new (GTK_APPLICATION (app), parent));
    case 1: return GTK_WIDGET (sb_prior_explorer_new (parent));
    case 2: return GTK_WIDGET (sb_playground_new (GTK_APPLICATION (app)));
    case 3: return GTK_WIDGET (sb_link_dialog_new (parent, session));
    default: return GTK_WIDGET (sb_new_experiment_dialog_new (parent));
    }
}

static void
test_tool_windows_close_on_keys (void)
{
  static const char *const names[] = { "Guided Demos", "Prior Explorer", "Playground",
                                       "Link Diagnostic", "New Experiment" };
  static const char *const keys[] = { "Escape", "<Control>w" };
  g_autoptr (SbSession) session = answered_colour_session (6);
  GtkWindow *parent = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_application (parent, GTK_APPLICATION (app));
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    for (guint w = 0; w < G_N_ELEMENTS (names); w++)
      {
        GtkWidget *window = open_tool_window (w, parent, session);

        g_test_message ("%s: %s", names[w], keys[k]);
        g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
        gtk_window_present (GTK_WINDOW (window));
        spin_for (100);
        g_assert_true (activate_shortcut (window, keys[k]));
        SPIN_UNTIL (window == NULL || !gtk_widget_get_visible (window));
        if (window)
          {
            g_object_remove_weak_pointer (G_OBJECT (window), (gpointer *) &window);
            gtk_window_destroy (GTK_WINDOW (window));
          }
      }
  gtk_window_destroy (parent);
}

static void
on_experiment_chosen (SbNewExperimentDialog *dialog, SbExperiment *exp, SbExperiment **out)
{
  *out = sb_experiment_copy (exp);
}

/* The first drawn text field inside a widget of type IN. */
static GtkWidget *
first_text (GtkWidget *root, GType in)
{
  if (GTK_IS_TEXT (root) && gtk_widget_is_drawable (root)
      && gtk_widget_get_ancestor (root, in) != NULL)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = first_text (c, in);
      if (found)
        return found;
    }
  return NULL;
}

/* Enter in New Experiment's title field (a text field's activation)
 * creates the experiment, as Create does, and closes the dialog; so does
 * Enter in a spin button. */
static void
test_enter_creates_experiment (void)
{
  for (guint round = 0; round < 2; round++)
    {
      SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
      g_autoptr (SbExperiment) exp = NULL;
      GtkWidget *text;

      g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
      g_signal_connect (dialog, "experiment-chosen", G_CALLBACK (on_experiment_chosen), &exp);
      gtk_window_present (GTK_WINDOW (dialog));
      spin_for (100);
      /* The title entry's text, then a spin button's (the budget's). */
      text = first_text (GTK_WIDGET (dialog), round == 0 ? GTK_TYPE_ENTRY : GTK_TYPE_SPIN_BUTTON);
      g_assert_nonnull (text);
      gtk_widget_grab_focus (text);
      /* What Return does in a text field (GtkText's key binding). */
      g_signal_emit_by_name (text, "activate");
      SPIN_UNTIL (dialog == NULL);
      g_assert_nonnull (exp);
      g_assert_true (sb_experiment_validate (exp, NULL));
    }
}

/* ---- Toasts -------------------------------------------------------------------- */


static gboolean
label_says (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && gtk_widget_is_drawable (w)
         && g_str_equal (gtk_label_get_text (GTK_LABEL (w)), text);
}

static gboolean
has_action (GtkWidget *w, gconstpointer name)
{
  return GTK_IS_ACTIONABLE (w) && gtk_widget_is_drawable (w)
         && gtk_actionable_get_action_name (GTK_ACTIONABLE (w))
         && g_str_equal (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), name);
}

static gboolean
action_enabled (SbWindow *window, const char *name)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), name);
}

/* Ctrl+Z shows "Answer 2 taken back" with a Redo button; Redo (once the
 * next question is on screen) puts the same entry back and the toast
 * goes. */
static void
test_undo_toast_and_redo (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-hig-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "colour.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SbLogEntry) undone = NULL;
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));
  SbSession *session;
  GtkWidget *redo;

  g_assert_true (sb_window_open_file (window, file, TRUE));
  gtk_window_present (GTK_WINDOW (window));
  session = sb_window_get_session (window);
  for (guint i = 0; i < 2; i++)
    {
      SPIN_UNTIL (sb_window_get_question (window) != NULL);
      g_action_group_activate_action (G_ACTION_GROUP (window), i ? "answer-a" : "answer-b", NULL);
    }
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 2);
  undone = sb_log_entry_copy (sb_session_get_observation (session, 1));
  g_assert_false (ui_find_widget (GTK_WIDGET (window), label_says, "Answer 2 taken back"));

  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, 1);
  SPIN_UNTIL (ui_find_widget (GTK_WIDGET (window), label_says, "Answer 2 taken back") != NULL);
  redo = ui_find_widget (GTK_WIDGET (window), has_action, "win.redo");
  g_assert_nonnull (redo);

  SPIN_UNTIL (sb_window_get_question (window) != NULL && action_enabled (window, "redo"));
  g_assert_true (gtk_widget_activate (redo));
  SPIN_UNTIL (sb_session_get_n_observations (session) == 2);
  {
    const SbLogEntry *back = sb_session_get_observation (session, 1);
    g_assert_cmpint (back->kind, ==, undone->kind);
    g_assert_cmpint (back->winner, ==, undone->winner);
    g_assert_cmpmem (back->a, 3 * sizeof (double), undone->a, 3 * sizeof (double));
    g_assert_cmpmem (back->b, 3 * sizeof (double), undone->b, 3 * sizeof (double));
  }
  SPIN_UNTIL (ui_find_widget (GTK_WIDGET (window), label_says, "Answer 2 taken back") == NULL);
  g_assert_false (action_enabled (window, "redo"));

  gtk_window_destroy (GTK_WINDOW (window));
  spin_for (50);
  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
has_action_any (GtkWidget *w, gconstpointer name)
{
  return GTK_IS_ACTIONABLE (w) && gtk_actionable_get_action_name (GTK_ACTIONABLE (w))
         && g_str_equal (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), name);
}

static const char *
tooltip_of (SbWindow *window, const char *action)
{
  GtkWidget *w = ui_find_widget (GTK_WIDGET (window), has_action_any, action);

  g_assert_nonnull (w);
  return gtk_widget_get_tooltip_text (w);
}

/* Greyed-out buttons say why: the answers while the next question is
 * computed, undo before the first answer. */
static void
test_disabled_say_why (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-hig-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "colour.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));

  g_assert_true (sb_window_open_file (window, file, TRUE));
  gtk_window_present (GTK_WINDOW (window));
  SPIN_UNTIL (sb_window_get_question (window) != NULL);
  g_assert_false (action_enabled (window, "undo"));
  g_assert_nonnull (strstr (tooltip_of (window, "win.undo"), "there is no answer yet"));
  g_assert_null (strstr (tooltip_of (window, "win.answer-a"), "being computed"));

  g_action_group_activate_action (G_ACTION_GROUP (window), "answer-a", NULL);
  g_assert_null (sb_window_get_question (window));
  g_assert_false (action_enabled (window, "answer-a"));
  g_assert_nonnull (strstr (tooltip_of (window, "win.answer-a"), "being computed"));
  g_assert_nonnull (strstr (tooltip_of (window, "win.answer-b"), "being computed"));
  g_assert_nonnull (strstr (tooltip_of (window, "win.undo"), "Ctrl+Z"));
  SPIN_UNTIL (sb_window_get_question (window) != NULL);
  g_assert_null (strstr (tooltip_of (window, "win.answer-a"), "being computed"));

  gtk_window_destroy (GTK_WINDOW (window));
  spin_for (50);
  g_unlink (path);
  g_rmdir (dir);
}

/* The keyboard shortcuts window lists every accelerator the application
 * binds (F9 for the plots, Ctrl+Shift+Z for redo among them): read from
 * the resource the application loads, compared after normalising. */
static void
test_shortcuts_window_complete (void)
{
  g_autoptr (GtkBuilder) builder
    = gtk_builder_new_from_resource ("/org/skewbench/SkewBench/gtk/help-overlay.ui");
  g_autoptr (GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GSList) objects = gtk_builder_get_objects (builder);
  g_auto (GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  guint checked = 0;

  for (GSList *l = objects; l; l = l->next)
    {
      g_autofree char *accels = NULL;
      if (!GTK_IS_SHORTCUTS_SHORTCUT (l->data))
        continue;
      g_object_get (l->data, "accelerator", &accels, NULL);
      g_auto (GStrv) parts = g_strsplit (accels ? accels : "", " ", -1);
      for (guint i = 0; parts[i]; i++)
        {
          guint key;
          GdkModifierType mods;
          if (gtk_accelerator_parse (parts[i], &key, &mods))
            g_hash_table_add (listed, gtk_accelerator_name (key, mods));
        }
    }
  g_assert_true (g_hash_table_contains (listed, "F9"));
  g_assert_true (g_hash_table_contains (listed, "<Shift><Control>z"));
  for (guint a = 0; actions[a]; a++)
    {
      g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                     actions[a]);
      for (guint i = 0; accels[i]; i++)
        {
          guint key;
          GdkModifierType mods;
          g_assert_true (gtk_accelerator_parse (accels[i], &key, &mods));
          g_autofree char *name = gtk_accelerator_name (key, mods);
          if (!g_hash_table_contains (listed, name))
            g_test_fail_printf ("%s (%s) is not in the keyboard shortcuts window", accels[i],
                                actions[a]);
          checked++;
        }
    }
  g_test_message ("%u accelerators checked against %u listed", checked,
                  g_hash_table_size (listed));
  g_assert_cmpuint (checked, >, 20);
}


/* ---- Forms --------------------------------------------------------------------- */

/* The scroll controller of SPIN (a spin button's own). */
static GtkEventController *
scroll_controller (GtkWidget *spin)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (spin);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_SCROLL (c))
        return c;
    }
  return NULL;
}

/* In New Experiment the mouse wheel over a spin button scrolls the form
 * (the wheel's events pass the spin button by) until the spin button has
 * the focus; then the wheel changes its value, and again not once the
 * focus has left. */
static void
test_spin_scroll_when_focused (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkWidget *spin, *title;
  GtkEventController *scroll;

  gtk_window_present (GTK_WINDOW (dialog));
  spin_for (100);
  spin = gtk_widget_get_ancestor (first_text (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON),
                                  GTK_TYPE_SPIN_BUTTON);
  title = first_text (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  g_assert_nonnull (spin);
  scroll = scroll_controller (spin);
  g_assert_nonnull (scroll);
  gtk_widget_grab_focus (title);
  spin_for (50);
  g_assert_cmpint (gtk_event_controller_get_propagation_phase (scroll), ==, GTK_PHASE_NONE);
  gtk_widget_grab_focus (spin);
  spin_for (50);
  g_assert_true (gtk_widget_has_focus (gtk_root_get_focus (GTK_ROOT (dialog))));
  g_assert_cmpint (gtk_event_controller_get_propagation_phase (scroll), ==, GTK_PHASE_BUBBLE);
  gtk_widget_grab_focus (title);
  spin_for (50);
  g_assert_cmpint (gtk_event_controller_get_propagation_phase (scroll), ==, GTK_PHASE_NONE);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

int
main (int argc, char **argv)
{
  static const UiTest tests[] = {
    { "/ui/hig/history-names-both-options", test_history_names_both_options },
    { "/ui/hig/tool-windows-close-on-keys", test_tool_windows_close_on_keys },
    { "/ui/hig/enter-creates-experiment", test_enter_creates_experiment },
    { "/ui/hig/undo-toast-and-redo", test_undo_toast_and_redo },
    { "/ui/hig/disabled-say-why", test_disabled_say_why },
    { "/ui/hig/shortcuts-window-complete", test_shortcuts_window_complete },
    { "/ui/hig/spin-scroll-when-focused", test_spin_scroll_when_focused },
  };
  int status;

  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
