/* test-ui-answers.c — the question panel's answers beyond a plain duel,
 * in the window under Xvfb: "About the same" (only where ties are
 * allowed), the confidence toggles, choosing one of k options, and a
 * ranking built by clicks with undo and confirm. Each answer goes to the
 * session file with its details; none is taken before the question is
 * on screen. TAP-skips without a display. */
#include "sb-application.h"
#include "sb-experiment-templates.h"
#include "sb-window-private.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "ui-harness.h"

static SbApplication *app;

typedef struct {
  char *dir;
  char *path;
  GFile *file;
  SbWindow *window;
  SbSession *session;
} Fixture;

/* A window running a colour experiment asking QUESTION with K options. */
static void
fixture_open_rated (Fixture *f, SbAskKind question, guint k, gboolean ties, guint levels)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GError) error = NULL;

  exp->question = question;
  exp->n_options = k;
  exp->ties_allowed = ties;
  exp->confidence_levels = levels;
  f->dir = g_dir_make_tmp ("sb-answers-XXXXXX", NULL);
  f->path = g_build_filename (f->dir, "session.json", NULL);
  f->file = g_file_new_for_path (f->path);
  f->window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (f->window);
  gtk_window_present (GTK_WINDOW (f->window));
  f->session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (f->session, f->file, &error));
  sb_window_set_session (f->window, f->session);
}

static void
fixture_open (Fixture *f, SbAskKind question, guint k, gboolean ties)
{
  fixture_open_rated (f, question, k, ties, 0);
}

static void
fixture_close (Fixture *f)
{
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

/* A visible rank badge reading TEXT. */
static gboolean
is_rank_badge (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && gtk_widget_has_css_class (w, "sb-rank-badge")
         && gtk_widget_get_visible (w) && g_str_equal (gtk_label_get_text (GTK_LABEL (w)), text);
}

static gboolean
question_shown (Fixture *f)
{
  return sb_window_get_question (f->window) != NULL;
}

static gboolean
enabled (Fixture *f, const char *action)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), action);
}

static void
activate (Fixture *f, const char *action, GVariant *target)
{
  g_action_group_activate_action (G_ACTION_GROUP (f->window), action, target);
}

/* The entry INDEX as it is in the file. */
static SbLogEntry *
on_disk (Fixture *f, guint index)
{
  g_autoptr (SbSession) s = NULL;

  s = sb_session_load (f->file, NULL);
  g_assert_nonnull (s);
  g_assert_cmpuint (sb_session_get_n_observations (s), >, index);
  return sb_log_entry_copy (sb_session_get_observation (s, index));
}

static void
test_ties_and_confidence (void)
{
  Fixture f = { 0 };
  SbDuelPanel *panel;

  fixture_open (&f, SB_ASK_DUEL, 2, TRUE);
  panel = sb_window_get_duel_panel (f.window);
  SPIN_UNTIL (question_shown (&f));
  g_assert_true (enabled (&f, "answer-tie"));
  g_assert_false (enabled (&f, "choose"));
  activate (&f, "answer-tie", NULL);
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_TIE);
    g_assert_cmpuint (e->n_shown, ==, 2);
    g_assert_true (e->has_response_time);
  }
  /* Until the next question is on screen, no answer is taken. */
  g_assert_false (enabled (&f, "answer-tie"));
  g_assert_false (enabled (&f, "answer-a"));
  SPIN_UNTIL (question_shown (&f));
  /* "Sure" (the mouse's way to Shift) makes the next answer strong, and
   * a new question clears it. */
  sb_duel_panel_set_confidence (panel, SG_CONFIDENCE_STRONG);
  activate (&f, "answer-b", NULL);
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 1);
    g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
    g_assert_cmpint (e->winner, ==, 1);
    g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_STRONG);
  }
  SPIN_UNTIL (question_shown (&f));
  g_assert_cmpint (sb_duel_panel_get_confidence (panel), ==, SG_CONFIDENCE_NONE);
  fixture_close (&f);

  /* Without ties allowed there is no "about the same". */
  fixture_open (&f, SB_ASK_DUEL, 2, FALSE);
  SPIN_UNTIL (question_shown (&f));
  g_assert_false (enabled (&f, "answer-tie"));
  g_assert_true (enabled (&f, "answer-a"));
  fixture_close (&f);
}

static void
test_choose_best_of_k (void)
{
  Fixture f = { 0 };
  const SbProposal *q;

  fixture_open (&f, SB_ASK_CHOICE, 4, FALSE);
  g_assert_false (enabled (&f, "choose"));
  SPIN_UNTIL (question_shown (&f));
  q = sb_window_get_question (f.window);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_CHOICE);
  g_assert_cmpuint (q->n_options, ==, 4);
  g_assert_true (enabled (&f, "choose"));
  g_assert_false (enabled (&f, "answer-a"));
  g_assert_false (enabled (&f, "answer-tie"));
  /* the option shown third, as the key 3 chooses it */
  guint option = q->shown_order[2];
  double chosen[3];
  memcpy (chosen, q->options[option], sizeof chosen);
  sb_duel_panel_set_confidence (sb_window_get_duel_panel (f.window), SG_CONFIDENCE_WEAK);
  activate (&f, "choose", g_variant_new_uint32 (option));
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_CHOICE);
    g_assert_cmpuint (e->chosen, ==, option);
    g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_WEAK);
    g_assert_cmpmem (sb_log_entry_option (e, option), sizeof chosen, chosen, sizeof chosen);
  }
  fixture_close (&f);
}

static void
test_rank_with_undo (void)
{
  Fixture f = { 0 };
  SbDuelPanel *panel;
  guint order[SB_MAX_OPTIONS];

  fixture_open (&f, SB_ASK_RANKING, 3, FALSE);
  panel = sb_window_get_duel_panel (f.window);
  SPIN_UNTIL (question_shown (&f));
  g_assert_true (enabled (&f, "rank-add"));
  activate (&f, "rank-add", g_variant_new_uint32 (2));
  activate (&f, "rank-add", g_variant_new_uint32 (2));  /* twice: refused */
  g_assert_cmpuint (sb_duel_panel_get_ranking (panel, order), ==, 1);
  activate (&f, "rank-add", g_variant_new_uint32 (0));
  activate (&f, "rank-undo", NULL);
  g_assert_cmpuint (sb_duel_panel_get_ranking (panel, order), ==, 1);
  activate (&f, "rank-add", g_variant_new_uint32 (1));
  g_assert_cmpuint (sb_duel_panel_get_ranking (panel, order), ==, 2);
  /* nothing is recorded before the ranking is confirmed */
  g_assert_cmpuint (sb_session_get_n_observations (f.session), ==, 0);
  /* the last option needs no click */
  activate (&f, "rank-confirm", NULL);
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_RANKING);
    g_assert_cmpuint (e->ranking[0], ==, 2);
    g_assert_cmpuint (e->ranking[1], ==, 1);
    g_assert_cmpuint (e->ranking[2], ==, 0);
    /* The answers list names the whole order, not "best of k". */
    {
      g_autofree char *row = sb_window_describe_entry (sb_session_get_experiment (f.session), e, 0);
      g_assert_true (g_str_has_prefix (row, "1. ranked C > B > A: best "));
    }
  }
  SPIN_UNTIL (question_shown (&f));
  g_assert_cmpuint (sb_duel_panel_get_ranking (panel, order), ==, 0);
  fixture_close (&f);
}


/* The hardware key of the digit DIGIT (1 … 9) and the symbol Shift gives
 * it in the keymap in use ("@" for 2 on the US layout of Xvfb). */
static void
shifted_digit (GtkWidget *widget, guint digit, guint *keycode, guint *shifted)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  g_autofree GdkKeymapKey *keys = NULL;
  int n = 0;

  g_assert_true (gdk_display_map_keyval (display, GDK_KEY_1 + digit - 1, &keys, &n));
  g_assert_cmpint (n, >, 0);
  *keycode = keys[0].keycode;
  g_assert_true (gdk_display_translate_key (display, *keycode, GDK_SHIFT_MASK, keys[0].group,
                                            shifted, NULL, NULL, NULL));
  g_test_message ("Shift+%u: keycode %u gives %s", digit, *keycode, gdk_keyval_name (*shifted));
}

static const char *
status_text (Fixture *f)
{
  return gtk_label_get_text (f->window->status_label);
}

/* Shift with a digit chooses that option with confidence (as the hint
 * says): the key arrives as the layout's shifted symbol, which is read as
 * its digit. A digit past the options is refused with the reason shown. */
static void
test_shift_digit_sure (void)
{
  Fixture f = { 0 };
  const SbProposal *q;
  guint keycode, shifted, option;

  fixture_open (&f, SB_ASK_CHOICE, 4, FALSE);
  SPIN_UNTIL (question_shown (&f));
  q = sb_window_get_question (f.window);
  option = q->shown_order[1];
  shifted_digit (GTK_WIDGET (f.window), 2, &keycode, &shifted);
  g_assert_cmpuint (shifted, !=, GDK_KEY_2);
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), shifted, keycode, GDK_SHIFT_MASK));
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_CHOICE);
    g_assert_cmpuint (e->chosen, ==, option);
    g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_STRONG);
  }
  SPIN_UNTIL (question_shown (&f));
  /* 5 of 4 options: refused, and the status line says why */
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_5, 0, 0));
  g_assert_cmpstr (status_text (&f), ==, "There are 4 options: press 1 … 4");
  /* a duel's key on a best-of-4 question */
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_Left, 0, 0));
  g_assert_nonnull (strstr (status_text (&f), "best of the options"));
  g_assert_cmpuint (sb_session_get_n_observations (f.session), ==, 1);
  fixture_close (&f);
}

/* A 1-5 confidence rating: Shift with a digit sets the next answer's
 * rating (every level reachable, nothing answered), the digit then
 * chooses with it; a rating off the scale is refused saying so; Shift
 * with an answer key gives the surest rating. */
static void
test_shift_digit_rating (void)
{
  Fixture f = { 0 };
  const SbProposal *q;
  guint keycode, shifted, option;
  unsigned r = 0, k = 0;

  fixture_open_rated (&f, SB_ASK_CHOICE, 4, FALSE, 5);
  SPIN_UNTIL (question_shown (&f));
  for (guint level = 1; level <= 5; level++)
    {
      shifted_digit (GTK_WIDGET (f.window), level, &keycode, &shifted);
      g_assert_true (ui_press_key (GTK_WIDGET (f.window), shifted, keycode, GDK_SHIFT_MASK));
      g_assert_true (sg_confidence_rating_of (sb_duel_panel_get_confidence (f.window->duel_panel),
                                              &r, &k));
      g_assert_cmpuint (r, ==, level);
      g_assert_cmpuint (k, ==, 5);
    }
  shifted_digit (GTK_WIDGET (f.window), 6, &keycode, &shifted);
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), shifted, keycode, GDK_SHIFT_MASK));
  g_assert_cmpstr (status_text (&f), ==, "The confidence scale is 1 … 5: press Shift+1 … Shift+5");
  shifted_digit (GTK_WIDGET (f.window), 4, &keycode, &shifted);
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), shifted, keycode, GDK_SHIFT_MASK));
  g_assert_cmpuint (sb_session_get_n_observations (f.session), ==, 0);
  q = sb_window_get_question (f.window);
  option = q->shown_order[1];
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_2, 0, 0));
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_CHOICE);
    g_assert_cmpuint (e->chosen, ==, option);
    g_assert_true (sg_confidence_rating_of (e->confidence, &r, &k));
    g_assert_cmpuint (r, ==, 4);
    g_assert_cmpuint (k, ==, 5);
  }
  /* the next question starts without a rating; Shift with the digit
   * that answers is the surest rating */
  SPIN_UNTIL (question_shown (&f));
  g_assert_cmpint (sb_duel_panel_get_confidence (f.window->duel_panel), ==, SG_CONFIDENCE_NONE);
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_1, 0, 0));
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 1);
    g_assert_cmpint (e->confidence, ==, SG_CONFIDENCE_NONE);
  }
  fixture_close (&f);

  fixture_open_rated (&f, SB_ASK_DUEL, 2, FALSE, 5);
  SPIN_UNTIL (question_shown (&f));
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_Left, 0, GDK_SHIFT_MASK));
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
    g_assert_true (sg_confidence_rating_of (e->confidence, &r, &k));
    g_assert_cmpuint (r, ==, 5);
  }
  fixture_close (&f);
}

/* Keys refused while no question is on screen, or that the experiment
 * does not take, say why in the status line. */
static void
test_refused_keys_say_why (void)
{
  Fixture f = { 0 };

  fixture_open (&f, SB_ASK_DUEL, 2, FALSE);
  SPIN_UNTIL (question_shown (&f));
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_t, 0, 0));
  g_assert_nonnull (strstr (status_text (&f), "does not take “about the same”"));
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_3, 0, 0));
  g_assert_nonnull (strstr (status_text (&f), "is a duel"));
  /* answered: until the next question is shown, its keys wait */
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_Left, 0, 0));
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_Right, 0, 0));
  if (!question_shown (&f))
    g_assert_nonnull (strstr (status_text (&f), "being computed"));
  SPIN_UNTIL (question_shown (&f));
  fixture_close (&f);
}

/* A ranking marks each option with its rank as it is clicked; Confirm
 * (and Enter) is enabled only when the ranking is complete, and Enter
 * before then says how many are missing. */
static void
test_rank_marks_and_confirm (void)
{
  Fixture f = { 0 };
  SbDuelPanel *panel;
  const SbProposal *q;
  guint order[SB_MAX_OPTIONS];

  fixture_open (&f, SB_ASK_RANKING, 3, FALSE);
  panel = sb_window_get_duel_panel (f.window);
  SPIN_UNTIL (question_shown (&f));
  q = sb_window_get_question (f.window);
  g_assert_false (enabled (&f, "rank-confirm"));
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_Return, 0, 0));
  g_assert_cmpstr (status_text (&f), ==, "The ranking is not complete: 0 of 3 options ranked; "
                                         "rank 2 more (the last needs no click), then Enter");
  /* the option shown second, ranked first: marked "Rank 1" */
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_2, 0, 0));
  g_assert_cmpuint (sb_duel_panel_get_ranking (panel, order), ==, 1);
  g_assert_false (enabled (&f, "rank-confirm"));
  {
    GtkWidget *badge = ui_find_widget (GTK_WIDGET (panel), is_rank_badge, "Rank 1");
    g_assert_nonnull (badge);
    g_assert_true (gtk_widget_is_drawable (badge));
    g_assert_null (ui_find_widget (GTK_WIDGET (panel), is_rank_badge, "Rank 2"));
  }
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_KP_Enter, 0, 0));
  g_assert_nonnull (strstr (status_text (&f), "1 of 3 options ranked"));
  g_assert_cmpuint (sb_session_get_n_observations (f.session), ==, 0);
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_3, 0, 0));
  g_assert_true (enabled (&f, "rank-confirm"));
  g_assert_true (ui_press_key (GTK_WIDGET (f.window), GDK_KEY_Return, 0, 0));
  {
    g_autoptr (SbLogEntry) e = on_disk (&f, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_RANKING);
    g_assert_cmpuint (e->ranking[0], ==, q->shown_order[1]);
    g_assert_cmpuint (e->ranking[1], ==, q->shown_order[2]);
    g_assert_cmpuint (e->ranking[2], ==, q->shown_order[0]);
  }
  fixture_close (&f);
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/answers/ties-and-confidence", test_ties_and_confidence },
    { "/ui/answers/choose-best-of-k", test_choose_best_of_k },
    { "/ui/answers/rank-with-undo", test_rank_with_undo },
    { "/ui/answers/shift-digit-sure", test_shift_digit_sure },
    { "/ui/answers/shift-digit-rating", test_shift_digit_rating },
    { "/ui/answers/refused-keys-say-why", test_refused_keys_say_why },
    { "/ui/answers/rank-marks-and-confirm", test_rank_marks_and_confirm },
  };
  int status;

  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
