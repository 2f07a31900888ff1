/* test-ui-participant.c — participant mode in the window under Xvfb:
 * entering it hides the header, plots, history and every analysis label
 * (the options are "Left" / "Right"); no answer is taken during the blank
 * interval or a break; a duel's sides follow the question's seeded shown
 * order and the recorded shown_order and winner are what was on screen;
 * Escape, closing and every accelerator leave nothing; a wrong code does
 * not unlock, the right one does; the response time counts from the
 * moment the question is drawn, not from when the engine had it. Keys are
 * delivered as GTK delivers them to key controllers (capture phase from
 * the window down, then bubble). TAP-skips without a display. */
#include "sb-application.h"
#include "sb-setting.h"
#include "sb-experiment-templates.h"
#include "sb-participant-dialog.h"
#include "sb-settings.h"
#include "sb-window-private.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "ui-harness.h"

static SbApplication *app;

#define CODE "4711"

typedef struct {
  char *dir;
  char *path;
  GFile *file;
  SbWindow *window;
  SbSession *session;
} Fixture;

/* A window running a colour duel experiment (ties allowed), a question on
 * screen, then participant mode with ITI_MS and BREAK_EVERY. */
static void
fixture_open_exp (Fixture *f, const SbExperiment *exp, guint iti_ms, guint break_every)
{
  g_autoptr (GError) error = NULL;
  SbParticipantSettings settings = { .iti_ms = iti_ms, .break_every = break_every };

  f->dir = g_dir_make_tmp ("sb-participant-XXXXXX", NULL);
  f->path = g_build_filename (f->dir, "session.json", NULL);
  f->file = g_file_new_for_path (f->path);
  f->window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1000, 700);
  gtk_window_present (GTK_WINDOW (f->window));
  f->session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (f->session, f->file, &error));
  sb_window_set_session (f->window, f->session);
  SPIN_UNTIL (sb_window_get_question (f->window) != NULL);
  gdk_rgba_parse (&settings.surround, "#6e6e6e");
  g_assert_true (sb_window_enter_participant_mode (f->window, &settings, CODE));
}

static void
fixture_open (Fixture *f, guint iti_ms, guint break_every)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();

  exp->ties_allowed = TRUE;
  exp->budget = 40;
  fixture_open_exp (f, exp, iti_ms, break_every);
}

static void
fixture_close (Fixture *f)
{
  sb_window_leave_participant_mode (f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_object_unref (f->window);
  g_object_unref (f->session);
  spin_for (20);
  g_unlink (f->path);
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_object_unref (f->file);
}

static SbParticipantView *
view (Fixture *f)
{
  return sb_window_get_participant_view (f->window);
}

static SbParticipantPhase
phase (Fixture *f)
{
  return sb_participant_view_get_phase (view (f));
}

static guint
n_log (Fixture *f)
{
  return sb_session_get_n_observations (f->session);
}

static gboolean
press (Fixture *f, guint keyval, GdkModifierType state)
{
  return ui_press_key (GTK_WIDGET (f->window), keyval, 0, state);
}

static gboolean
is_grid_with_class (GtkWidget *w, gconstpointer css)
{
  return GTK_IS_GRID (w) && gtk_widget_has_css_class (w, css);
}

/* Every label under ROOT that is drawn, its text appended to OUT. */
static void
visible_texts (GtkWidget *root, GString *out)
{
  if (!gtk_widget_get_visible (root))
    return;
  if (GTK_IS_LABEL (root))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (root)));
  if (GTK_IS_STACK (root))
    {
      GtkWidget *page = gtk_stack_get_visible_child (GTK_STACK (root));
      if (page)
        visible_texts (page, out);
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    visible_texts (c, out);
}

static void
test_enter_hides_analysis (void)
{
  Fixture f = { 0 };
  g_autoptr (GString) texts = g_string_new (NULL);
  GtkWidget *titlebar;

  fixture_open (&f, 50, 0);
  titlebar = gtk_window_get_titlebar (GTK_WINDOW (f.window));
  g_assert_true (sb_window_get_participant_mode (f.window));
  g_assert_false (gtk_widget_get_visible (titlebar));
  /* the plots, the history and the workbench's panel are off the window */
  g_assert_null (gtk_widget_get_root (GTK_WIDGET (f.window->plots_box)));
  g_assert_null (gtk_widget_get_root (GTK_WIDGET (f.window->history_list)));
  g_assert_null (gtk_widget_get_root (GTK_WIDGET (f.window->duel_panel)));
  g_assert_true (gtk_widget_get_root (GTK_WIDGET (view (&f))) == GTK_ROOT (f.window));
  g_assert_true (sb_duel_panel_get_participant (sb_participant_view_get_panel (view (&f))));

  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  visible_texts (GTK_WIDGET (f.window), texts);
  g_test_message ("shown:\n%s", texts->str);
  for (const char *const *bad = (const char *const[]) { "current best", "Current best", "P(B",
                                                         "A ·", "B ·", "candidate", "True value",
                                                         "prefer A", "prefer B", "initial design",
                                                         "Ctrl+Z", NULL };
       *bad; bad++)
    g_assert_null (strstr (texts->str, *bad));
  g_assert_nonnull (strstr (texts->str, "← Left"));
  g_assert_nonnull (strstr (texts->str, "Right →"));
  g_assert_nonnull (strstr (texts->str, "Left\n"));
  fixture_close (&f);
}

static void
test_interval_refuses_answers (void)
{
  Fixture f = { 0 };

  fixture_open (&f, 400, 0);
  /* The blank interval: neither a key, a button's action nor the
   * window's own action records anything. */
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_BLANK);
  g_assert_true (press (&f, GDK_KEY_Left, 0));
  gtk_widget_activate_action (GTK_WIDGET (sb_participant_view_get_panel (view (&f))),
                              "win.answer-b", NULL);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f.window), "answer-a"));
  g_action_group_activate_action (G_ACTION_GROUP (f.window), "answer-a", NULL);
  spin_for (50);
  g_assert_cmpuint (n_log (&f), ==, 0);

  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  g_assert_true (press (&f, GDK_KEY_Right, 0));
  g_assert_cmpuint (n_log (&f), ==, 1);
  /* at once blank again: a second key is refused */
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_BLANK);
  press (&f, GDK_KEY_Left, 0);
  gtk_widget_activate_action (GTK_WIDGET (sb_participant_view_get_panel (view (&f))),
                              "win.answer-tie", NULL);
  spin_for (100);
  g_assert_cmpuint (n_log (&f), ==, 1);
  fixture_close (&f);
}

/* The setting in the left column of the panel's table, as written. */
static char *
left_column (Fixture *f, guint row)
{
  GtkWidget *grid = ui_find_widget (GTK_WIDGET (sb_participant_view_get_panel (view (f))),
                                    is_grid_with_class, "sb-duel-table");

  g_assert_nonnull (grid);
  return g_strdup (gtk_label_get_text (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 1, row))));
}

static void
test_sides_randomised (void)
{
  Fixture f = { 0 };
  guint left_is[2] = { 0, 0 };

  fixture_open (&f, 0, 0);
  for (guint i = 0; i < 10; i++)
    {
      const SbProposal *q;
      const SbExperiment *exp = sb_session_get_experiment (f.session);
      g_autoptr (GString) shown = g_string_new (NULL);
      g_autoptr (GString) a = g_string_new (NULL);
      g_autoptr (GString) b = g_string_new (NULL);
      guint left;
      const SbLogEntry *e;

      SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
      q = sb_window_get_question (f.window);
      for (guint j = 0; j < exp->n_parameters; j++)
        {
          g_autofree char *cell = left_column (&f, j + 1);
          g_autofree char *va = sb_format_coordinate (&exp->parameters[j], q->a[j]);
          g_autofree char *vb = sb_format_coordinate (&exp->parameters[j], q->b[j]);
          g_string_append_printf (shown, "%s;", cell);
          g_string_append_printf (a, "%s;", va);
          g_string_append_printf (b, "%s;", vb);
        }
      g_assert_true (g_str_equal (shown->str, a->str) || g_str_equal (shown->str, b->str));
      g_assert_false (g_str_equal (a->str, b->str));
      left = g_str_equal (shown->str, a->str) ? 0 : 1;
      /* the screen follows the question's seeded order */
      g_assert_cmpuint (left, ==, q->shown_order[0]);
      left_is[left]++;
      /* ← prefers what is on the left; the file says what was shown */
      g_assert_true (press (&f, GDK_KEY_Left, 0));
      g_assert_cmpuint (n_log (&f), ==, i + 1);
      e = sb_session_get_observation (f.session, i);
      g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
      g_assert_cmpuint (e->n_shown, ==, 2);
      g_assert_cmpuint (e->shown_order[0], ==, left);
      g_assert_cmpuint (e->shown_order[1], ==, 1 - left);
      g_assert_cmpint (e->winner, ==, (int) left);
    }
  g_test_message ("A on the left %u times, B %u times", left_is[0], left_is[1]);
  g_assert_cmpuint (left_is[0], >, 0);
  g_assert_cmpuint (left_is[1], >, 0);
  fixture_close (&f);
}

static gboolean
is_visible_flow_box (GtkWidget *w, gconstpointer unused)
{
  return GTK_IS_FLOW_BOX (w) && gtk_widget_get_visible (w);
}

static gboolean
is_option_button (GtkWidget *w, gconstpointer unused)
{
  const char *tip = gtk_widget_get_tooltip_text (w);
  return GTK_IS_BUTTON (w) && tip && g_str_has_prefix (tip, "Option ");
}

/* The experiment's own question and its 1-5 confidence rating, as the
 * participant sees them: the wording and the rating buttons are on
 * screen, Shift+3 sets the rating without answering, ← answers with it. */
static void
test_wording_and_rating (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GString) texts = g_string_new (NULL);
  Fixture f = { 0 };
  unsigned r = 0, k = 0;

  exp->budget = 40;
  exp->confidence_levels = 5;
  exp->question_text = g_strdup ("Which colour feels calmer?");
  fixture_open_exp (&f, exp, 0, 0);
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  visible_texts (GTK_WIDGET (view (&f)), texts);
  g_assert_nonnull (strstr (texts->str, "Which colour feels calmer?\n"));
  g_assert_null (strstr (texts->str, "Which setting works better?"));
  g_assert_nonnull (strstr (texts->str, "How sure are you? 1 = not sure … 5 = very sure:\n"));
  for (guint level = 1; level <= 5; level++)
    {
      g_autofree char *button = g_strdup_printf ("\n%u\n", level);
      g_assert_nonnull (strstr (texts->str, button));
    }
  g_assert_null (strstr (texts->str, "\n6\n"));
  g_assert_null (strstr (texts->str, "Unsure"));
  g_assert_true (press (&f, GDK_KEY_3, GDK_SHIFT_MASK));
  g_assert_cmpuint (n_log (&f), ==, 0);
  g_assert_true (press (&f, GDK_KEY_Left, 0));
  g_assert_cmpuint (n_log (&f), ==, 1);
  g_assert_true (sg_confidence_rating_of (sb_session_get_observation (f.session, 0)->confidence,
                                          &r, &k));
  g_assert_cmpuint (r, ==, 3);
  g_assert_cmpuint (k, ==, 5);
  fixture_close (&f);
}

/* Best of 4 in participant mode: a 2 x 2 grid of equal cells, the option
 * in each place the question's shown order says (randomised per
 * question), and the answer records that order. */
static void
test_choice_grid (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  Fixture f = { 0 };
  g_autoptr (GHashTable) orders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  exp->budget = 40;
  exp->question = SB_ASK_CHOICE;
  exp->n_options = 4;
  fixture_open_exp (&f, exp, 0, 0);
  for (guint i = 0; i < 6; i++)
    {
      SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
      const SbProposal *q = sb_window_get_question (f.window);
      GtkWidget *box = ui_find_widget (GTK_WIDGET (view (&f)), is_visible_flow_box, NULL);
      graphene_rect_t cell[4], button[4];
      guint order[SB_MAX_OPTIONS];

      g_assert_nonnull (box);
      g_assert_cmpint (q->kind, ==, SB_QUESTION_CHOICE);
      SPIN_UNTIL (gtk_widget_get_width (box) > 0);
      for (guint p = 0; p < 4; p++)
        {
          GtkWidget *child = GTK_WIDGET (gtk_flow_box_get_child_at_index (GTK_FLOW_BOX (box), p));
          g_assert_nonnull (child);
          g_assert_true (gtk_widget_compute_bounds (child, box, &cell[p]));
          GtkWidget *choose = ui_find_widget (child, is_option_button, NULL);
          g_assert_nonnull (choose);
          g_assert_true (gtk_widget_compute_bounds (choose, box, &button[p]));
        }
      /* the answer buttons of a row line up, whatever the captions */
      g_assert_cmpfloat (button[0].origin.y, ==, button[1].origin.y);
      g_assert_cmpfloat (button[2].origin.y, ==, button[3].origin.y);
      g_assert_null (gtk_flow_box_get_child_at_index (GTK_FLOW_BOX (box), 4));
      /* places 1 2 / 3 4: two rows of two, equal cells */
      g_assert_cmpfloat (cell[0].origin.y, ==, cell[1].origin.y);
      g_assert_cmpfloat (cell[2].origin.y, ==, cell[3].origin.y);
      g_assert_cmpfloat (cell[2].origin.y, >, cell[0].origin.y);
      g_assert_cmpfloat (cell[0].origin.x, ==, cell[2].origin.x);
      g_assert_cmpfloat (cell[1].origin.x, ==, cell[3].origin.x);
      g_assert_cmpfloat (cell[1].origin.x, >, cell[0].origin.x);
      for (guint p = 1; p < 4; p++)
        g_assert_cmpfloat (fabs (cell[p].size.width - cell[0].size.width), <=, 1);  /* a pixel of rounding */
      memcpy (order, q->shown_order, sizeof order);
      g_hash_table_add (orders, g_strdup_printf ("%u%u%u%u", order[0], order[1], order[2],
                                                 order[3]));
      /* the key of place 3 chooses the option shown there */
      g_assert_true (press (&f, GDK_KEY_3, 0));
      g_assert_cmpuint (n_log (&f), ==, i + 1);
      const SbLogEntry *e = sb_session_get_observation (f.session, i);
      g_assert_cmpint (e->kind, ==, SB_LOG_CHOICE);
      g_assert_cmpuint (e->chosen, ==, order[2]);
      g_assert_cmpuint (e->n_shown, ==, 4);
      g_assert_cmpmem (e->shown_order, 4 * sizeof (guint), order, 4 * sizeof (guint));
    }
  g_test_message ("%u different orders in 6 questions", g_hash_table_size (orders));
  g_assert_cmpuint (g_hash_table_size (orders), >, 1);
  fixture_close (&f);
}

static void
test_nothing_leaves (void)
{
  Fixture f = { 0 };
  g_auto (GStrv) described = NULL;

  fixture_open (&f, 0, 0);
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  press (&f, GDK_KEY_Right, 0);
  g_assert_cmpuint (n_log (&f), ==, 1);
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);

  /* Escape and F11 are swallowed; closing is refused. */
  g_assert_true (press (&f, GDK_KEY_Escape, 0));
  g_assert_true (press (&f, GDK_KEY_F11, 0));
  g_assert_true (press (&f, GDK_KEY_z, GDK_CONTROL_MASK));
  gtk_window_close (GTK_WINDOW (f.window));
  spin_for (50);
  g_assert_true (sb_window_get_participant_mode (f.window));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f.window)));

  /* Every action that has a key does nothing (Ctrl+Z, Ctrl+W, Ctrl+O,
   * Ctrl+Q, F9, F11 …): disabled, so the accelerator is not taken. */
  described = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  for (guint i = 0; described[i]; i++)
    {
      g_autofree char *name = NULL;
      g_autoptr (GVariant) target = NULL;
      g_assert_true (g_action_parse_detailed_name (described[i], &name, &target, NULL));
      if (g_str_has_prefix (name, "win.plot-") || g_str_has_prefix (name, "win.compare-"))
        continue;  /* the hidden plot's settings: nothing to see or change */
      if (g_str_has_prefix (name, "win."))
        g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f.window), name + 4));
      else if (g_str_has_prefix (name, "app."))
        g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (app), name + 4));
      g_test_message ("%s is off", name);
    }
  gtk_widget_activate_action (GTK_WIDGET (f.window), "win.undo", NULL);
  gtk_widget_activate_action (GTK_WIDGET (f.window), "win.participant-mode", NULL);
  spin_for (50);
  g_assert_cmpuint (n_log (&f), ==, 1);
  g_assert_true (sb_window_get_participant_mode (f.window));
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_ANSWERING);
  fixture_close (&f);
}

static gboolean
is_password_entry (GtkWidget *w, gconstpointer data)
{
  return GTK_IS_PASSWORD_ENTRY (w);
}

/* Types CODE into the unlock prompt and presses Enter. */
static void
type_code (Fixture *f, const char *code)
{
  GtkWidget *entry = ui_find_widget (GTK_WIDGET (view (f)), is_password_entry, NULL);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), code);
  g_signal_emit_by_name (entry, "activate");
}

static void
test_unlock (void)
{
  Fixture f = { 0 };

  fixture_open (&f, 0, 0);
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  /* no prompt without the chord */
  press (&f, GDK_KEY_u, GDK_CONTROL_MASK);
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_ANSWERING);
  g_assert_true (press (&f, GDK_KEY_U, GDK_CONTROL_MASK | GDK_SHIFT_MASK));
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_UNLOCK);
  /* no answer while the prompt is open */
  gtk_widget_activate_action (GTK_WIDGET (sb_participant_view_get_panel (view (&f))),
                              "win.answer-a", NULL);
  g_assert_cmpuint (n_log (&f), ==, 0);

  type_code (&f, "1234");
  g_assert_true (sb_window_get_participant_mode (f.window));
  type_code (&f, CODE "0");
  g_assert_true (sb_window_get_participant_mode (f.window));
  g_assert_false (sb_participant_view_try_unlock (view (&f), ""));
  /* Escape closes the prompt, still locked, back at the question */
  g_assert_true (press (&f, GDK_KEY_Escape, 0));
  g_assert_true (sb_window_get_participant_mode (f.window));
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);

  press (&f, GDK_KEY_U, GDK_CONTROL_MASK | GDK_SHIFT_MASK);
  type_code (&f, CODE);
  g_assert_false (sb_window_get_participant_mode (f.window));
  g_assert_null (sb_window_get_participant_view (f.window));
  g_assert_true (gtk_widget_get_visible (gtk_window_get_titlebar (GTK_WINDOW (f.window))));
  g_assert_true (gtk_widget_get_root (GTK_WIDGET (f.window->plots_box)) == GTK_ROOT (f.window));
  /* the workbench's actions are back */
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f.window), "answer-a"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f.window), "participant-mode"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (app), "quit"));
  fixture_close (&f);
}

static void
test_response_time (void)
{
  Fixture f = { 0 };
  const SbLogEntry *e;

  /* The question was on screen in the workbench before the mode began,
   * and is ready during the whole interval. */
  fixture_open (&f, 600, 0);
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  spin_for (150);
  press (&f, GDK_KEY_Left, GDK_SHIFT_MASK);
  g_assert_cmpuint (n_log (&f), ==, 1);
  e = sb_session_get_observation (f.session, 0);
  g_test_message ("response time %.3f s", e->response_time);
  g_assert_true (e->has_response_time);
  g_assert_cmpfloat (e->response_time, >=, 0.15);
  /* not counted from the question's arrival: that was > 0.6 s ago */
  g_assert_cmpfloat (e->response_time, <, 0.55);
  g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_STRONG);
  fixture_close (&f);
}

static void
test_break (void)
{
  Fixture f = { 0 };
  GtkWidget *message;
  g_autoptr (GString) texts = g_string_new (NULL);

  fixture_open (&f, 0, 2);
  for (guint i = 0; i < 2; i++)
    {
      SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
      press (&f, GDK_KEY_Left, 0);
    }
  g_assert_cmpuint (n_log (&f), ==, 2);
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_BREAK);
  message = GTK_WIDGET (view (&f));
  visible_texts (message, texts);
  g_assert_nonnull (strstr (texts->str, "Take a short break — press Space to continue"));
  /* the next question waits for Space, and no answer is taken meanwhile */
  spin_for (300);
  g_assert_cmpint (phase (&f), ==, SB_PARTICIPANT_BREAK);
  press (&f, GDK_KEY_Left, 0);
  press (&f, GDK_KEY_Return, 0);
  g_assert_cmpuint (n_log (&f), ==, 2);
  press (&f, GDK_KEY_space, 0);
  SPIN_UNTIL (phase (&f) == SB_PARTICIPANT_ANSWERING);
  press (&f, GDK_KEY_Right, 0);
  g_assert_cmpuint (n_log (&f), ==, 3);
  fixture_close (&f);
}

/* The dialog starts the mode only with a code typed twice alike, and
 * remembers surround, interval and breaks, never the code. */
static void
test_dialog (void)
{
  Fixture f = { 0 };
  SbParticipantDialog *dialog;
  SbParticipantSettings loaded;
  GSettings *settings = sb_settings_get_default ();

  fixture_open (&f, 0, 0);
  press (&f, GDK_KEY_U, GDK_CONTROL_MASK | GDK_SHIFT_MASK);
  type_code (&f, CODE);
  g_assert_false (sb_window_get_participant_mode (f.window));

  if (settings)
    {
      g_settings_set_uint (settings, "participant-iti-ms", 750);
      g_settings_set_uint (settings, "participant-break-every", 7);
      g_settings_set_string (settings, "participant-surround", "#404040");
    }
  g_action_group_activate_action (G_ACTION_GROUP (f.window), "participant-mode", NULL);
  dialog = NULL;
  for (GList *l = gtk_window_list_toplevels (); l; l = g_list_delete_link (l, l))
    if (SB_IS_PARTICIPANT_DIALOG (l->data))
      dialog = l->data;
  g_assert_nonnull (dialog);
  g_assert_false (sb_participant_dialog_get_can_start (dialog));
  sb_participant_dialog_set_code (dialog, "12");
  g_assert_false (sb_participant_dialog_get_can_start (dialog));
  sb_participant_dialog_set_code (dialog, "secret");
  g_assert_true (sb_participant_dialog_get_can_start (dialog));
  sb_participant_dialog_start (dialog);
  g_assert_true (sb_window_get_participant_mode (f.window));

  sb_participant_settings_load (&loaded);
  if (settings)
    {
      g_assert_cmpuint (loaded.iti_ms, ==, 750);
      g_assert_cmpuint (loaded.break_every, ==, 7);
      g_assert_cmpfloat_with_epsilon (loaded.surround.red, 0x40 / 255.0, 1e-6);
    }
  press (&f, GDK_KEY_U, GDK_CONTROL_MASK | GDK_SHIFT_MASK);
  type_code (&f, CODE);
  g_assert_true (sb_window_get_participant_mode (f.window));
  type_code (&f, "secret");
  g_assert_false (sb_window_get_participant_mode (f.window));
  fixture_close (&f);
}

int
main (int argc, char **argv)
{
  static const UiTest tests[] = {
    { "/ui/participant/enter-hides-analysis", test_enter_hides_analysis },
    { "/ui/participant/interval-refuses-answers", test_interval_refuses_answers },
    { "/ui/participant/sides-randomised", test_sides_randomised },
    { "/ui/participant/wording-and-rating", test_wording_and_rating },
    { "/ui/participant/choice-grid", test_choice_grid },
    { "/ui/participant/nothing-leaves", test_nothing_leaves },
    { "/ui/participant/unlock", test_unlock },
    { "/ui/participant/response-time", test_response_time },
    { "/ui/participant/break", test_break },
    { "/ui/participant/dialog", test_dialog },
  };
  int status;

  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
