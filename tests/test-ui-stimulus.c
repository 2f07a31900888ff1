/* test-ui-stimulus.c — stimuli in the question panel, in the window
 * under Xvfb, with the fake renderers of tests/data: an image is shown
 * and the duel can be answered; a failing renderer's message is shown on
 * the option and the answers are disabled, saying why; a renderer that
 * hangs shows a spinner, is stopped at the timeout with a message, and
 * the window stays responsive all the while; a sound must be heard
 * before answering. A candidate set's image files are shown as its
 * options, and a missing one says so; the tone example plays to the
 * end. TAP-skips without a display. */
#include "sb-application.h"
#include "remove-tree.h"
#include "sb-candidates.h"
#include "sb-command-trust.h"
#include "sb-stimulus-view.h"
#include "sb-window-private.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "ui-harness.h"

/* Sound stimuli load GStreamer, which registers more than 2048 GQuarks;
 * GLib leaves its first quark block (allocated by its ELF constructor)
 * behind by design when the table grows. In a sanitizer build this
 * program unwinds allocations fully (GLib has no frame pointers), so that
 * LeakSanitizer sees the constructor's frame and the suppression below
 * applies to that block alone. Unused in other builds. */
const char *__asan_default_options (void);
const char *__lsan_default_suppressions (void);

const char *
__asan_default_options (void)
{
  return "fast_unwind_on_malloc=0";
}

const char *
__lsan_default_suppressions (void)
{
  return "leak:_dl_init\n";
}

static SbApplication *app;

typedef struct {
  char *dir;
  GFile *file;
  SbWindow *window;
  SbSession *session;
  gboolean not_allowed;     /* TRUE: the consent dialog comes up */
} Fixture;

/* A window asking duels over (width, smile) shown as KIND stimuli that
 * the fake renderer SCRIPT makes, stopped after TIMEOUT seconds. */
/* A window asking the questions of EXP, saved as session.json in F's
 * folder (made before when F->dir is set). */
static void
fixture_open_experiment (Fixture *f, const SbExperiment *exp)
{
  g_autofree char *session_path = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (sb_experiment_validate (exp, &error));
  if (f->dir == NULL)
    f->dir = g_dir_make_tmp ("sb-ui-stimulus-XXXXXX", NULL);
  session_path = g_build_filename (f->dir, "session.json", NULL);
  f->file = g_file_new_for_path (session_path);
  f->window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (f->window);
  gtk_window_present (GTK_WINDOW (f->window));
  f->session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (f->session, f->file, &error));
  /* the user allowed this file's command before (the consent is tested
   * on its own) */
  if (exp->stimulus.command != NULL && !f->not_allowed)
    g_assert_true (sb_command_trust_allow (session_path, exp->stimulus.command, &error));
  sb_window_set_session (f->window, f->session);
  SPIN_UNTIL (sb_window_get_question (f->window) != NULL);
}

static void
fixture_open_k (Fixture *f, SbStimulusKind kind, const char *script, double timeout, guint k)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", script, NULL);
  g_autofree char *quoted = g_shell_quote (path);

  sb_experiment_add_parameter (exp, "width", "mm", 10, 50);
  sb_experiment_add_parameter (exp, "smile", "", -1, 1);
  exp->stimulus.kind = kind;
  exp->stimulus.command = g_strdup_printf ("%s --smile {smile} -o {output}", quoted);
  exp->stimulus.timeout = timeout;
  if (k > 2)
    {
      exp->question = SB_ASK_CHOICE;
      exp->n_options = k;
    }
  fixture_open_experiment (f, exp);
}

static void
fixture_open (Fixture *f, SbStimulusKind kind, const char *script, double timeout)
{
  fixture_open_k (f, kind, script, timeout, 2);
}

static void
fixture_close (Fixture *f)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_object_unref (f->window);
  g_object_unref (f->session);
  spin_for (20);
  remove_tree (f->dir);
  g_free (f->dir);
  g_object_unref (f->file);
}

static gboolean
enabled (Fixture *f, const char *action)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), action);
}

static const char *
blocker (Fixture *f)
{
  return sb_duel_panel_get_answer_blocker (f->window->duel_panel);
}

static gboolean
is_stimulus_view (GtkWidget *w, gconstpointer data)
{
  return SB_IS_STIMULUS_VIEW (w) && gtk_widget_get_mapped (w);
}

static gboolean
has_action (GtkWidget *w, gconstpointer name)
{
  return GTK_IS_ACTIONABLE (w)
         && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), name) == 0;
}

/* The A and B views of the duel on screen. */
static void
duel_views (Fixture *f, SbStimulusView **a, SbStimulusView **b)
{
  GtkWidget *first = ui_find_widget (GTK_WIDGET (f->window->duel_panel), is_stimulus_view, NULL);
  GtkWidget *w;

  g_assert_nonnull (first);
  *a = SB_STIMULUS_VIEW (first);
  *b = NULL;
  /* B: the next mapped view after A, depth first. */
  for (w = gtk_widget_get_parent (first); w && *b == NULL; w = gtk_widget_get_next_sibling (w))
    {
      GtkWidget *found = ui_find_widget (w, is_stimulus_view, NULL);
      if (found && found != first)
        *b = SB_STIMULUS_VIEW (found);
    }
  g_assert_nonnull (*b);
}

static void
test_image_shown (void)
{
  Fixture f = { 0 };
  SbStimulusView *a, *b;

  fixture_open (&f, SB_STIMULUS_IMAGE, "stimulus-png.sh", 10);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "image") == 0
              && g_strcmp0 (sb_stimulus_view_get_page (a), "image") == 0);
  g_assert_null (blocker (&f));
  g_assert_true (enabled (&f, "answer-a"));
  g_assert_true (enabled (&f, "answer-b"));
  fixture_close (&f);
}

static void
test_failing_renderer (void)
{
  Fixture f = { 0 };
  SbStimulusView *a, *b;
  GtkWidget *prefer_a;

  fixture_open (&f, SB_STIMULUS_IMAGE, "stimulus-fail.sh", 10);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "failed") == 0);
  g_test_message ("%s", sb_stimulus_view_get_error (b));
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "failed (exit status 3)"));
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "cannot draw a smile of"));
  /* The answers wait, and say why; skipping the question stays possible. */
  g_assert_nonnull (blocker (&f));
  g_assert_nonnull (strstr (blocker (&f), "exit status 3"));
  g_assert_false (enabled (&f, "answer-a"));
  g_assert_false (enabled (&f, "answer-b"));
  g_assert_true (enabled (&f, "skip"));
  prefer_a = ui_find_widget (GTK_WIDGET (f.window), has_action, "win.answer-a");
  g_assert_false (gtk_widget_get_sensitive (prefer_a));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (prefer_a), "exit status 3"));
  fixture_close (&f);
}

typedef struct {
  gint64 last;
  gint64 longest_gap;
} Ticks;

static gboolean
tick (gpointer data)
{
  Ticks *t = data;
  gint64 now = g_get_monotonic_time ();

  if (t->last)
    t->longest_gap = MAX (t->longest_gap, now - t->last);
  t->last = now;
  return G_SOURCE_CONTINUE;
}

static void
test_hanging_renderer (void)
{
  Fixture f = { 0 };
  SbStimulusView *a, *b;
  Ticks ticks = { 0 };
  guint id;

  fixture_open (&f, SB_STIMULUS_IMAGE, "stimulus-hang.sh", 1.5);
  duel_views (&f, &a, &b);
  id = g_timeout_add (20, tick, &ticks);
  /* Rendering: a spinner, and the answers wait. */
  g_assert_cmpstr (sb_stimulus_view_get_page (b), ==, "rendering");
  g_assert_nonnull (blocker (&f));
  g_assert_false (enabled (&f, "answer-b"));
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "failed") == 0);
  g_source_remove (id);
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "did not finish within 1.5 s"));
  g_assert_false (enabled (&f, "answer-b"));
  /* The main loop ran all the while (20 ms ticks; a loaded 2-core
   * machine may delay one by a few hundred ms, a blocked loop by the
   * whole 1.5 s). */
  g_test_message ("longest gap between 20 ms ticks: %" G_GINT64_FORMAT " ms",
                  ticks.longest_gap / 1000);
  g_assert_cmpint (ticks.longest_gap, <, 1000 * G_TIME_SPAN_MILLISECOND);
  fixture_close (&f);
}

static gboolean
is_choose_button (GtkWidget *w, gconstpointer data)
{
  return GTK_IS_BUTTON (w) && g_object_get_data (G_OBJECT (w), "option") != NULL
         && gtk_widget_get_mapped (w);
}

static void
collect_views (GtkWidget *w, GPtrArray *out)
{
  if (is_stimulus_view (w, NULL))
    g_ptr_array_add (out, w);
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    collect_views (c, out);
}

static gboolean
all_pages (GPtrArray *views, const char *page)
{
  for (guint i = 0; i < views->len; i++)
    if (g_strcmp0 (sb_stimulus_view_get_page (g_ptr_array_index (views, i)), page) != 0)
      return FALSE;
  return views->len > 0;
}

/* A best-of-3 question shows the three stimuli, each above its own
 * "Choose" button; with a failing renderer those buttons are disabled
 * and say why. */
static void
test_choice_options (void)
{
  const char *scripts[] = { "stimulus-png.sh", "stimulus-fail.sh" };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      Fixture f = { 0 };
      g_autoptr (GPtrArray) views = g_ptr_array_new ();
      GtkWidget *choose;
      gboolean fails = i == 1;

      fixture_open_k (&f, SB_STIMULUS_IMAGE, scripts[i], 10, 3);
      collect_views (GTK_WIDGET (f.window->duel_panel), views);
      g_assert_cmpuint (views->len, ==, 3);
      SPIN_UNTIL (all_pages (views, fails ? "failed" : "image"));
      choose = ui_find_widget (GTK_WIDGET (f.window->duel_panel), is_choose_button, NULL);
      g_assert_nonnull (choose);
      g_assert_cmpint (gtk_widget_get_sensitive (choose), ==, !fails);
      g_assert_cmpint (enabled (&f, "choose"), ==, !fails);
      if (fails)
        g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (choose), "exit status 3"));
      else
        {
          /* Answering works, and the next question's options render. */
          gtk_widget_activate (choose);
          SPIN_UNTIL (sb_session_get_n_answers (f.session) == 1);
        }
      fixture_close (&f);
    }
}

/* A sound must be heard to the end before the answer is taken. Without
 * GTK's media backend (libgtk-4-media-gstreamer) the sound cannot play,
 * and the option says so instead. */
static void
test_sound_heard_first (void)
{
  Fixture f = { 0 };
  SbStimulusView *a, *b;

  fixture_open (&f, SB_STIMULUS_SOUND, "stimulus-wav.sh", 10);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (a), "rendering") != 0
              && g_strcmp0 (sb_stimulus_view_get_page (b), "rendering") != 0);
  g_assert_nonnull (blocker (&f));
  g_assert_false (enabled (&f, "answer-a"));
  if (g_strcmp0 (sb_stimulus_view_get_page (b), "failed") == 0)
    {
      g_test_message ("no media backend: %s", sb_stimulus_view_get_error (b));
      g_assert_nonnull (strstr (blocker (&f), "sound cannot be played"));
      fixture_close (&f);
      return;
    }
  g_assert_nonnull (strstr (blocker (&f), "Listen"));
  g_assert_true (sb_duel_panel_play_next (f.window->duel_panel));
  SPIN_UNTIL (sb_stimulus_view_get_heard (a)
              || g_strcmp0 (sb_stimulus_view_get_page (a), "failed") == 0);
  if (!sb_stimulus_view_get_heard (a))
    {
      /* A backend without an audio output fails on playing: said so. */
      g_test_message ("playing failed: %s", sb_stimulus_view_get_error (a));
      g_assert_false (enabled (&f, "answer-a"));
      fixture_close (&f);
      return;
    }
  g_assert_false (enabled (&f, "answer-a"));  /* B not heard yet */
  g_assert_true (sb_duel_panel_play_next (f.window->duel_panel));
  SPIN_UNTIL (sb_stimulus_view_get_heard (b));
  SPIN_UNTIL (enabled (&f, "answer-a"));
  g_assert_null (blocker (&f));
  fixture_close (&f);
}

/* ---- Candidate files and the tone example ---------------------------------- */

/* Copies examples/candidates (CSV and discs) into a new folder of F and
 * opens its experiment, K options a question, as an app user would
 * (no "stimulus": the candidates' files are shown); with MISSING the
 * disc files are removed after the set was read. */
static void
fixture_open_candidates (Fixture *f, guint k, gboolean missing)
{
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", "examples", "candidates", NULL);
  g_autofree char *src_images = g_build_filename (src, "images", NULL);
  g_autofree char *images = NULL;
  g_autoptr (GDir) d = NULL;
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GError) error = NULL;
  const char *name;

  f->dir = g_dir_make_tmp ("sb-ui-stimulus-XXXXXX", NULL);
  images = g_build_filename (f->dir, "images", NULL);
  g_assert_cmpint (g_mkdir (images, 0700), ==, 0);
  d = g_dir_open (src_images, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (d)))
    {
      g_autoptr (GFile) from = g_file_new_build_filename (src_images, name, NULL);
      g_autoptr (GFile) to = g_file_new_build_filename (images, name, NULL);
      g_assert_true (g_file_copy (from, to, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
    }
  {
    g_autoptr (GFile) from = g_file_new_build_filename (src, "stimuli.csv", NULL);
    g_autoptr (GFile) to = g_file_new_build_filename (f->dir, "stimuli.csv", NULL);
    g_assert_true (g_file_copy (from, to, G_FILE_COPY_NONE, NULL, NULL, NULL, &error));
  }
  sb_experiment_add_parameter (exp, "size", "px", 0, 1);
  sb_experiment_add_parameter (exp, "lightness", "%", 0, 1);
  g_assert_true (sb_experiment_load_candidates (exp, "stimuli.csv", "file", "images", f->dir,
                                                (const gboolean[]) { TRUE, TRUE }, &error));
  g_assert_no_error (error);
  g_assert_cmpint (exp->stimulus.kind, ==, SB_STIMULUS_FILE);
  if (k > 2)
    {
      exp->question = SB_ASK_CHOICE;
      exp->n_options = k;
    }
  if (missing)
    remove_tree (images);
  fixture_open_experiment (f, exp);
}

/* Whether each of VIEWS shows the file of one of the N settings X, every
 * view another one. */
static void
assert_views_show_candidates (Fixture *f, GPtrArray *views, const double (*x)[SB_MAX_PARAMETERS],
                              guint n)
{
  const SbExperiment *exp = sb_session_get_experiment (f->session);
  g_autoptr (GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);

  g_assert_cmpuint (views->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      char *path = sb_experiment_candidate_file (exp, x[i]);
      g_assert_nonnull (path);
      g_ptr_array_add (expected, path);
    }
  for (guint i = 0; i < views->len; i++)
    {
      const char *shown = sb_stimulus_view_get_file (g_ptr_array_index (views, i));
      guint at;
      g_assert_nonnull (shown);
      g_assert_true (g_ptr_array_find_with_equal_func (expected, shown, g_str_equal, &at));
      g_ptr_array_remove_index (expected, at);
    }
}

/* A candidates experiment without a "stimulus" shows, in a duel, the
 * two discs of the duel's candidates as pictures, and can be answered;
 * a best-of-3 question shows its three discs. */
static void
test_candidate_images (void)
{
  Fixture f = { 0 };
  SbStimulusView *a, *b;
  g_autoptr (GPtrArray) views = g_ptr_array_new ();
  double duel[2][SB_MAX_PARAMETERS];
  const SbProposal *q;

  fixture_open_candidates (&f, 2, FALSE);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (a), "image") == 0
              && g_strcmp0 (sb_stimulus_view_get_page (b), "image") == 0);
  q = sb_window_get_question (f.window);
  g_ptr_array_add (views, a);
  g_ptr_array_add (views, b);
  memcpy (duel[0], q->a, 2 * sizeof (double));
  memcpy (duel[1], q->b, 2 * sizeof (double));
  assert_views_show_candidates (&f, views, (const double (*)[SB_MAX_PARAMETERS]) duel, 2);
  g_assert_true (g_str_has_suffix (sb_stimulus_view_get_file (a), ".svg"));
  g_assert_null (blocker (&f));
  g_assert_true (enabled (&f, "answer-a"));
  fixture_close (&f);

  memset (&f, 0, sizeof f);
  g_ptr_array_set_size (views, 0);
  fixture_open_candidates (&f, 3, FALSE);
  collect_views (GTK_WIDGET (f.window->duel_panel), views);
  SPIN_UNTIL (all_pages (views, "image"));
  q = sb_window_get_question (f.window);
  g_assert_cmpuint (q->n_options, ==, 3);
  assert_views_show_candidates (&f, views, q->options, 3);
  g_assert_true (enabled (&f, "choose"));
  fixture_close (&f);
}

/* A candidate's file removed while the experiment is open: the option
 * says which file is missing and the answers wait, saying why. */
static void
test_candidate_missing (void)
{
  Fixture f = { 0 };
  SbStimulusView *a, *b;

  fixture_open_candidates (&f, 2, TRUE);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (a), "failed") == 0
              && g_strcmp0 (sb_stimulus_view_get_page (b), "failed") == 0);
  g_test_message ("%s", sb_stimulus_view_get_error (a));
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (a), "does not exist"));
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (a), sb_stimulus_view_get_file (a)));
  g_assert_nonnull (strstr (blocker (&f), "does not exist"));
  g_assert_false (enabled (&f, "answer-a"));
  g_assert_false (enabled (&f, "answer-b"));
  fixture_close (&f);
}

/* examples/stimulus-tone's renderer and a real media backend: both
 * tones play to the end (each takes its 0.4 s), then the duel can be
 * answered. Without a backend that can play, a TAP skip says why. */
static void
test_tone_played (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "..", "examples",
                                                   "stimulus-tone", "render-tone.sh", NULL);
  g_autofree char *quoted = g_shell_quote (script);
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  SbStimulusView *a, *b;
  Fixture f = { 0 };
  gint64 start = 0;

  sb_experiment_add_parameter (exp, "pitch", "Hz", 200, 2000);
  sb_experiment_add_parameter (exp, "loudness", "dB", -30, -6);
  exp->stimulus.kind = SB_STIMULUS_SOUND;
  exp->stimulus.command = g_strdup_printf ("%s --pitch {pitch} --loudness {loudness} -o {output}",
                                           quoted);
  exp->stimulus.timeout = 10;
  fixture_open_experiment (&f, exp);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (a), "rendering") != 0
              && g_strcmp0 (sb_stimulus_view_get_page (b), "rendering") != 0);
  g_assert_true (g_str_has_suffix (sb_stimulus_view_get_file (a), ".wav"));
  for (guint i = 0; i < 2; i++)
    {
      SbStimulusView *v = i == 0 ? a : b;
      g_assert_nonnull (blocker (&f));
      g_assert_false (enabled (&f, "answer-a"));
      if (g_strcmp0 (sb_stimulus_view_get_page (v), "failed") != 0)
        {
          start = g_get_monotonic_time ();
          g_assert_true (sb_duel_panel_play_next (f.window->duel_panel));
          SPIN_UNTIL (sb_stimulus_view_get_heard (v)
                      || g_strcmp0 (sb_stimulus_view_get_page (v), "failed") == 0);
        }
      if (!sb_stimulus_view_get_heard (v))
        {
          g_autofree char *why = g_strdup_printf ("no media backend that plays here: %s",
                                                  sb_stimulus_view_get_error (v));
          fixture_close (&f);
          g_test_skip (why);
          return;
        }
      g_assert_cmpint (g_get_monotonic_time () - start, >=, 350 * G_TIME_SPAN_MILLISECOND);
    }
  SPIN_UNTIL (enabled (&f, "answer-a"));
  g_assert_null (blocker (&f));
  fixture_close (&f);
}

/* The first message dialog on screen, or NULL. */
static AdwMessageDialog *
message_dialog (void)
{
  g_autoptr (GList) tops = gtk_window_list_toplevels ();

  for (GList *l = tops; l; l = l->next)
    if (ADW_IS_MESSAGE_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

/* A file's renderer command runs only with the user's consent: the app
 * shows the exact command and asks; "Don't Run" leaves the options
 * saying so with a Retry that asks again; "Run Command" renders and is
 * remembered for the file and command. The old app ran it at once. */
static void
test_command_consent (void)
{
  Fixture f = { .not_allowed = TRUE };
  SbStimulusView *a, *b;
  AdwMessageDialog *dialog;
  g_autofree char *runs = NULL;
  const char *command;

  fixture_open (&f, SB_STIMULUS_IMAGE, "stimulus-png.sh", 10);
  command = sb_session_get_experiment (f.session)->stimulus.command;
  duel_views (&f, &a, &b);
  SPIN_UNTIL ((dialog = message_dialog ()) != NULL);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "stimulus-png.sh"));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "--smile {smile} -o {output}"));
  g_assert_cmpstr (sb_stimulus_view_get_page (a), ==, "failed");
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (a), "Waiting for your permission"));
  runs = g_build_filename (f.dir, "runs.log", NULL);
  g_assert_false (g_file_test (runs, G_FILE_TEST_EXISTS));   /* nothing ran */
  g_assert_false (enabled (&f, "answer-a"));

  adw_message_dialog_response (dialog, "cancel");
  SPIN_UNTIL (message_dialog () == NULL);
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "not allowed to run"));
  g_assert_false (g_file_test (runs, G_FILE_TEST_EXISTS));
  g_assert_false (sb_command_trust_is_allowed (g_file_peek_path (f.file), command));

  sb_stimulus_view_retry (b);   /* asks again */
  SPIN_UNTIL ((dialog = message_dialog ()) != NULL);
  adw_message_dialog_response (dialog, "run");
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "image") == 0
              && g_strcmp0 (sb_stimulus_view_get_page (a), "image") == 0);
  g_assert_true (g_file_test (runs, G_FILE_TEST_EXISTS));
  g_assert_true (sb_command_trust_is_allowed (g_file_peek_path (f.file), command));
  /* another command in the same file is asked for again */
  g_assert_false (sb_command_trust_is_allowed (g_file_peek_path (f.file), "other {output}"));
  fixture_close (&f);
}

/* A render that failed is tried again by Retry, and its error goes once
 * it succeeds (it stayed on screen until the app restarted). */
static void
test_retry_after_failure (void)
{
  Fixture f = { 0 };
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autofree char *png = g_test_build_filename (G_TEST_DIST, "data", "stimulus-png.sh", NULL);
  g_autofree char *script = NULL, *wrapper = NULL, *flag = NULL;
  SbStimulusView *a, *b;

  f.dir = g_dir_make_tmp ("sb-ui-stimulus-XXXXXX", NULL);
  wrapper = g_build_filename (f.dir, "render.sh", NULL);
  flag = g_build_filename (f.dir, "fixed", NULL);
  script = g_strdup_printf ("if [ -e fixed ]; then exec sh '%s' \"$@\"; fi\n"
                            "echo 'the renderer is not set up yet' >&2\nexit 4\n", png);
  g_assert_true (g_file_set_contents (wrapper, script, -1, NULL));
  sb_experiment_add_parameter (exp, "width", "mm", 10, 50);
  sb_experiment_add_parameter (exp, "smile", "", -1, 1);
  exp->stimulus.kind = SB_STIMULUS_IMAGE;
  exp->stimulus.command = g_strdup ("sh render.sh --smile {smile} -o {output}");
  exp->stimulus.timeout = 10;
  fixture_open_experiment (&f, exp);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "failed") == 0);
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "not set up yet"));
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "exit status 4"));

  g_assert_true (g_file_set_contents (flag, "", -1, NULL));
  sb_stimulus_view_retry (b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "image") == 0
              && g_strcmp0 (sb_stimulus_view_get_page (a), "image") == 0);
  g_assert_null (sb_stimulus_view_get_error (b));
  g_assert_null (blocker (&f));
  g_unlink (flag);
  g_unlink (wrapper);
  fixture_close (&f);
}

/* An image whose header claims 20000 x 20000 pixels (a 69-byte PNG,
 * 1.6 GB decoded) is refused from its header, before decoding. */
static void
test_huge_image_refused (void)
{
  Fixture f = { 0 };
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autofree char *wrapper = NULL;
  SbStimulusView *a, *b;
  const char *script =
    "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
    "printf '\\211\\120\\116\\107\\015\\012\\032\\012\\000\\000\\000\\015\\111\\110\\104\\122"
    "\\000\\000\\116\\040\\000\\000\\116\\040\\010\\006\\000\\000\\000\\343\\160\\106\\071"
    "\\000\\000\\000\\014\\111\\104\\101\\124\\170\\234\\143\\140\\240\\014\\000\\000"
    "\\000\\100\\000\\001\\267\\064\\174\\357"
    "\\000\\000\\000\\000\\111\\105\\116\\104\\256\\102\\140\\202' > \"$out\"\n";

  f.dir = g_dir_make_tmp ("sb-ui-stimulus-XXXXXX", NULL);
  wrapper = g_build_filename (f.dir, "huge.sh", NULL);
  g_assert_true (g_file_set_contents (wrapper, script, -1, NULL));
  sb_experiment_add_parameter (exp, "width", "mm", 10, 50);
  sb_experiment_add_parameter (exp, "smile", "", -1, 1);
  exp->stimulus.kind = SB_STIMULUS_IMAGE;
  exp->stimulus.command = g_strdup ("sh huge.sh --smile {smile} -o {output}");
  exp->stimulus.timeout = 10;
  fixture_open_experiment (&f, exp);
  duel_views (&f, &a, &b);
  SPIN_UNTIL (g_strcmp0 (sb_stimulus_view_get_page (b), "failed") == 0);
  g_test_message ("%s", sb_stimulus_view_get_error (b));
  g_assert_nonnull (strstr (sb_stimulus_view_get_error (b), "20000 × 20000 pixels"));
  g_unlink (wrapper);
  fixture_close (&f);
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/stimulus/image-shown", test_image_shown },
    { "/ui/stimulus/failing-renderer", test_failing_renderer },
    { "/ui/stimulus/hanging-renderer", test_hanging_renderer },
    { "/ui/stimulus/sound-heard-first", test_sound_heard_first },
    { "/ui/stimulus/choice-options", test_choice_options },
    { "/ui/stimulus/candidate-images", test_candidate_images },
    { "/ui/stimulus/candidate-missing", test_candidate_missing },
    { "/ui/stimulus/tone-played", test_tone_played },
    { "/ui/stimulus/command-consent", test_command_consent },
    { "/ui/stimulus/retry-after-failure", test_retry_after_failure },
    { "/ui/stimulus/huge-image-refused", test_huge_image_refused },
  };
  g_autofree char *cache = g_dir_make_tmp ("sb-ui-stimulus-cache-XXXXXX", NULL);
  int status;

  /* Rendered stimuli go to a scratch cache, never the user's. */
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  remove_tree (cache);
  return status;
}
