/* test-ui-study.c — the Study view and the editable history in the
 * window under Xvfb: a study created in a temporary folder gets two
 * participants (one generated code, one typed with a note) that the
 * roster shows; a participant's session opens in the workbench, an
 * answer there is counted on the roster after going back; participant
 * mode is one click from the roster. In the history list any past answer
 * (not only the last) is removed and restored through the rows' actions,
 * which changes the log the model sees and the session file; the toast
 * undoes the removal and then offers Redo. TAP-skips without a display. */
#include "sb-application.h"
#include "remove-tree.h"
#include "sb-experiment-templates.h"
#include "sb-new-study-dialog.h"
#include "sb-participant-dialog.h"
#include "sb-session-history.h"
#include "sb-window-private.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <gtk/gtk.h>
#include <string.h>

#include "ui-harness.h"

static SbApplication *app;

static SbWindow *
new_window (void)
{
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));

  g_object_ref_sink (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
close_window (SbWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  spin_for (20);
}

static gboolean
is_label_with_text (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && gtk_widget_get_visible (w)
         && g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), text) == 0;
}

static void
wait_roster (SbStudyView *view)
{
  SPIN_UNTIL (!sb_study_view_get_loading (view));
}

static SbExperiment *
colour_experiment (guint budget)
{
  SbExperiment *exp = sb_template_colour ();

  exp->budget = budget;
  return exp;
}

/* ---- The Study view ---------------------------------------------------------- */

static void
test_study_roster (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sb-study-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "pilot", NULL);
  g_autoptr (SbExperiment) exp = colour_experiment (12);
  g_autoptr (GError) error = NULL;
  g_autofree char *generated = NULL;
  SbWindow *window = new_window ();
  SbStudyView *view;
  SbParticipantSummary s;
  SbParticipantStatus status;
  const SbPopulation *pop;
  SbSession *session;

  g_assert_true (sb_window_create_study (window, dir, exp, 0.1, &error));
  g_assert_no_error (error);
  view = sb_window_get_study_view (window);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "study");
  wait_roster (view);
  g_assert_cmpuint (sb_study_view_get_n_rows (view), ==, 0);

  /* Two participants: a generated code and a typed one with a note. */
  g_assert_true (sb_study_view_add_participant (view, NULL, NULL, &generated, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (generated, "P-"));
  g_assert_true (sb_study_view_add_participant (view, "lab-02", "left-handed", NULL, &error));
  g_assert_no_error (error);
  /* A code in use is refused and the roster is unchanged. */
  g_assert_false (sb_study_view_add_participant (view, "LAB-02", NULL, NULL, &error));
  g_assert_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_TAKEN);
  g_clear_error (&error);
  wait_roster (view);
  g_assert_cmpuint (sb_study_view_get_n_rows (view), ==, 2);
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, generated));
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, "lab-02"));
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, "left-handed"));
  g_assert_true (sb_study_view_get_row (view, "lab-02", &status, &s));
  g_assert_cmpint (status, ==, SB_PARTICIPANT_ACTIVE);
  g_assert_cmpuint (s.answered, ==, 0);
  g_assert_cmpuint (s.budget, ==, 12);
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, "0 / 12"));

  /* Start lab-02's session in the workbench and answer one question. */
  g_assert_true (sb_window_start_participant_session (window, "lab-02", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "duel");
  g_assert_true (gtk_widget_get_visible (window->study_button));
  session = sb_window_get_session (window);
  g_assert_nonnull (session);
  {
    g_autofree char *expected = sb_study_participant_path (sb_window_get_study (window), "lab-02");
    g_autofree char *path = g_file_get_path (sb_session_get_file (session));
    g_assert_cmpstr (path, ==, expected);
  }
  SPIN_UNTIL (sb_window_get_question (window) != NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "answer-a", NULL);
  SPIN_UNTIL (sb_campaign_get_n_saved (sb_window_get_campaign (window)) == 1);

  /* Back to the roster (the header's Study button): the answer counts. */
  g_signal_emit_by_name (window->study_button, "clicked");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "study");
  g_assert_false (gtk_widget_get_visible (window->study_button));
  wait_roster (view);
  g_assert_true (sb_study_view_get_row (view, "lab-02", NULL, &s));
  g_assert_cmpuint (s.answered, ==, 1);
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, "1 / 12"));
  g_assert_true (sb_study_view_get_row (view, generated, NULL, &s));
  g_assert_cmpuint (s.answered, ==, 0);
  pop = sb_study_view_get_population (view);
  g_assert_nonnull (pop);
  g_assert_cmpuint (pop->n_participants, ==, 2);
  g_assert_cmpuint (pop->n_included, ==, 2);
  g_assert_cmpuint (pop->n_answers, ==, 1);

  /* Excluding a participant leaves them out of the population. */
  g_assert_true (sb_study_view_set_status (view, generated, SB_PARTICIPANT_EXCLUDED, &error));
  g_assert_no_error (error);
  wait_roster (view);
  g_assert_cmpuint (sb_study_view_get_population (view)->n_included, ==, 1);
  g_assert_true (sb_study_view_set_note (view, generated, "glasses", &error));
  wait_roster (view);
  g_assert_cmpstr (sb_study_find (sb_window_get_study (window), generated)->note, ==, "glasses");
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, "glasses"));

  /* Opening the study again (as File → Open Study does) reads the same. */
  g_assert_true (sb_window_open_study (window, dir, &error));
  wait_roster (view);
  g_assert_cmpuint (sb_study_view_get_n_rows (view), ==, 2);
  g_assert_true (sb_study_view_get_row (view, "lab-02", NULL, &s));
  g_assert_cmpuint (s.answered, ==, 1);

  close_window (window);
  remove_tree (tmp);
}

/* CODE answers N duels between random settings of the 2-parameter study
 * below for a person who likes x = 6 + OFFSET and y = 0. */
static void
answer_duels (SbStudy *study, const char *code, guint n, double offset, GRand *rand)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) s = sb_study_open_session (study, code, &error);

  g_assert_no_error (error);
  for (guint k = 0; k < n; k++)
    {
      double a[2], b[2], ua, ub;
      a[0] = g_rand_double_range (rand, 0, 10);
      b[0] = g_rand_double_range (rand, 0, 10);
      a[1] = g_rand_double_range (rand, -1, 1);
      b[1] = g_rand_double_range (rand, -1, 1);
      ua = -(a[0] - 6 - offset) * (a[0] - 6 - offset) - 10 * a[1] * a[1];
      ub = -(b[0] - 6 - offset) * (b[0] - 6 - offset) - 10 * b[1] * b[1];
      g_assert_true (sb_session_add_duel (s, a, b, ua >= ub ? 0 : 1, &error));
      g_assert_no_error (error);
    }
}

/* The population plot: a study with three participants (one excluded
 * later) shows, once the worker's job is done, g's mean and band, a line
 * per included participant, the population best, and each included
 * row's P(best differs); the highlighted participant gets a line of
 * their own; the parameter selector redraws along the other parameter.
 * Excluding a participant recomputes the model without them. */
static void
test_study_population_plot (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sb-study-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "plot", NULL);
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (GError) error = NULL;
  const char *codes[] = { "P1", "P2", "P3" };
  SbWindow *window = new_window ();
  SbStudyView *view;
  SbScene *scene;
  double prob;

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 10.0));
  g_assert_true (sb_experiment_add_parameter (exp, "y", "", -1.0, 1.0));
  exp->budget = 20;
  exp->seed = 9;
  {
    g_autoptr (SbStudy) study = sb_study_create (dir, exp, 0.0, &error);
    g_assert_no_error (error);
    for (guint p = 0; p < 3; p++)
      {
        g_assert_nonnull (sb_study_add_participant (study, codes[p], NULL, &error));
        answer_duels (study, codes[p], 8, p - 1.0, rand);
      }
  }
  g_assert_true (sb_window_open_study (window, dir, &error));
  g_assert_no_error (error);
  view = sb_window_get_study_view (window);
  wait_roster (view);
  g_assert_true (sb_study_view_get_model_loading (view));
  SPIN_UNTIL (!sb_study_view_get_model_loading (view));
  g_assert_null (sb_study_view_get_model_error (view));

  scene = sb_chart_get_scene (sb_study_view_get_chart (view));
  g_assert_nonnull (scene);
  g_assert_nonnull (sb_scene_find_layer (scene, "band/g"));
  g_assert_nonnull (sb_scene_find_layer (scene, "mean/g"));
  g_assert_nonnull (sb_scene_find_layer (scene, "best/population"));
  g_assert_nonnull (sb_scene_find_layer (scene, "people"));
  g_assert_null (sb_scene_find_layer (scene, "person/highlight"));
  g_assert_true (g_str_has_prefix (sb_scene_get_subtitle (scene), "others at the population best: y = "));
  for (guint p = 0; p < 3; p++)
    {
      g_autofree char *text = NULL;
      g_assert_true (sb_study_view_get_prob_best_differs (view, codes[p], &prob));
      g_assert_true (prob >= 0 && prob <= 1);
      text = g_strdup_printf ("%.2f", prob);
      g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, text));
    }
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (view), is_label_with_text, "Differs"));

  /* P2 drawn out; then along y */
  g_assert_true (sb_study_view_set_highlight (view, "P2"));
  g_assert_false (sb_study_view_set_highlight (view, "nobody-here"));
  scene = sb_chart_get_scene (sb_study_view_get_chart (view));
  g_assert_cmpstr (sb_layer_get_label (sb_scene_find_layer (scene, "person/highlight")), ==,
                   "P2's f_p");
  sb_study_view_set_axis (view, 1);
  scene = sb_chart_get_scene (sb_study_view_get_chart (view));
  g_assert_true (g_str_has_prefix (sb_scene_get_subtitle (scene), "others at the population best: x = "));
  g_assert_nonnull (sb_scene_find_layer (scene, "person/highlight"));

  /* P3 excluded: the model is computed again without them */
  g_assert_true (sb_study_view_set_status (view, "P3", SB_PARTICIPANT_EXCLUDED, &error));
  g_assert_no_error (error);
  wait_roster (view);
  SPIN_UNTIL (!sb_study_view_get_model_loading (view));
  g_assert_false (sb_study_view_get_prob_best_differs (view, "P3", &prob));
  g_assert_true (sb_study_view_get_prob_best_differs (view, "P1", &prob));

  close_window (window);
  remove_tree (tmp);
}


/* The study's exports from the Study view: the long CSV of everyone is
 * the file `skewgp export STUDY` writes (sb_study_to_csv of the study as
 * it is on disk), the population model's JSON is the documented format
 * naming every included participant, and the report is a one-page PDF; a
 * participant who has not answered shows no P(best differs); the main
 * menu's one-session CSV is off while the Study view is shown. */
static void
test_study_exports (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sb-study-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "exports", NULL);
  g_autofree char *csv_path = g_build_filename (tmp, "answers.csv", NULL);
  g_autofree char *model_path = g_build_filename (tmp, "model.json", NULL);
  g_autofree char *pdf_path = g_build_filename (tmp, "report.pdf", NULL);
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  g_autoptr (GError) error = NULL;
  const char *codes[] = { "P1", "P2", "P3", "P4" };
  SbWindow *window = new_window ();
  SbStudyView *view;
  double prob;

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 10.0));
  g_assert_true (sb_experiment_add_parameter (exp, "y", "", -1.0, 1.0));
  exp->budget = 20;
  exp->seed = 4;
  {
    g_autoptr (SbStudy) study = sb_study_create (dir, exp, 0.0, &error);
    g_assert_no_error (error);
    for (guint p = 0; p < 4; p++)
      {
        g_assert_nonnull (sb_study_add_participant (study, codes[p], NULL, &error));
        if (p < 3)
          answer_duels (study, codes[p], 8, p - 1.0, rand);
      }
  }
  g_assert_true (sb_window_open_study (window, dir, &error));
  view = sb_window_get_study_view (window);
  wait_roster (view);
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-csv"));
  /* the model's exports wait for the model */
  if (sb_study_view_get_model_loading (view))
    {
      g_autoptr (GFile) early = g_file_new_for_path (model_path);
      g_assert_false (sb_study_view_export_model (view, early, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
    }
  SPIN_UNTIL (!sb_study_view_get_model_loading (view));
  g_assert_true (sb_study_view_get_prob_best_differs (view, "P1", &prob));
  g_assert_false (sb_study_view_get_prob_best_differs (view, "P4", &prob));

  {
    g_autoptr (GFile) file = g_file_new_for_path (csv_path);
    g_autoptr (SbStudy) again = sb_study_open (dir, &error);
    g_autofree char *expected = sb_study_to_csv (again, NULL, FALSE, &error);
    g_autofree char *written = NULL;
    g_assert_true (sb_study_view_export_csv (view, file, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (csv_path, &written, NULL, NULL));
    g_assert_cmpstr (written, ==, expected);
    /* everyone who answered is in it */
    g_assert_nonnull (strstr (written, "P1"));
    g_assert_nonnull (strstr (written, "P3"));
  }
  {
    g_autoptr (GFile) file = g_file_new_for_path (model_path);
    g_autoptr (JsonParser) parser = json_parser_new ();
    JsonObject *root;
    g_assert_true (sb_study_view_export_model (view, file, &error));
    g_assert_no_error (error);
    g_assert_true (json_parser_load_from_file (parser, model_path, &error));
    root = json_node_get_object (json_parser_get_root (parser));
    g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "skewbench-population-model");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "participants")), ==, 4);
  }
  {
    g_autoptr (GFile) file = g_file_new_for_path (pdf_path);
    g_autofree char *pdf = NULL;
    gsize len = 0;
    g_assert_true (sb_study_view_export_report (view, file, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (pdf_path, &pdf, &len, NULL));
    g_assert_true (len > 1000 && memcmp (pdf, "%PDF-", 5) == 0);
  }
  close_window (window);
  remove_tree (tmp);
}

static GtkWindow *
find_participant_dialog (void)
{
  g_autoptr (GList) windows = gtk_window_list_toplevels ();

  for (GList *l = windows; l; l = l->next)
    if (SB_IS_PARTICIPANT_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

/* The roster's participant-mode button: the participant's session, then
 * the participant-mode dialog; starting it shows that session's question
 * full screen. */
static void
test_study_participant_mode (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sb-study-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "pilot", NULL);
  g_autoptr (SbExperiment) exp = colour_experiment (10);
  g_autoptr (GError) error = NULL;
  SbWindow *window = new_window ();
  SbStudyView *view;
  GtkWindow *dialog = NULL;

  g_assert_true (sb_window_create_study (window, dir, exp, 0.0, &error));
  view = sb_window_get_study_view (window);
  g_assert_true (sb_study_view_add_participant (view, "S1", NULL, NULL, &error));
  wait_roster (view);
  g_assert_null (find_participant_dialog ());
  g_signal_emit_by_name (view, "start-participant-mode", "S1");
  dialog = find_participant_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "duel");
  SPIN_UNTIL (sb_window_get_question (window) != NULL);
  sb_participant_dialog_set_code (SB_PARTICIPANT_DIALOG (dialog), "4711");
  sb_participant_dialog_start (SB_PARTICIPANT_DIALOG (dialog));
  g_assert_true (sb_window_get_participant_mode (window));
  sb_window_leave_participant_mode (window);
  close_window (window);
  remove_tree (tmp);
}

/* New Study… from the experiment on screen: the dialog offers it first,
 * creates the folder and shows the Study view; a folder that exists is
 * refused in the dialog, which stays open. */
static GtkWindow *
find_new_study_dialog (void)
{
  g_autoptr (GList) windows = gtk_window_list_toplevels ();

  for (GList *l = windows; l; l = l->next)
    if (SB_IS_NEW_STUDY_DIALOG (l->data) && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

static void
test_study_new_dialog (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sb-study-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "from-window", NULL);
  g_autofree char *other = NULL;
  g_autoptr (SbExperiment) exp = colour_experiment (7);
  g_autoptr (SbSession) session = NULL;
  SbWindow *window = new_window ();
  SbNewStudyDialog *dialog;
  SbStudy *study;

  g_free (exp->title);
  exp->title = g_strdup ("Lamp colour");
  session = sb_session_new (exp);
  sb_window_set_session (window, session);
  g_action_group_activate_action (G_ACTION_GROUP (window), "new-study", NULL);
  dialog = SB_NEW_STUDY_DIALOG (find_new_study_dialog ());
  g_assert_nonnull (dialog);
  sb_new_study_dialog_set_folder (dialog, tmp, "from-window");
  sb_new_study_dialog_set_repeat_rate (dialog, 0.2);
  sb_new_study_dialog_create (dialog);
  g_assert_null (find_new_study_dialog ());
  study = sb_window_get_study (window);
  g_assert_nonnull (study);
  g_assert_cmpstr (sb_study_get_dir (study), ==, dir);
  g_assert_cmpstr (sb_study_get_experiment (study)->title, ==, "Lamp colour");
  g_assert_cmpuint (sb_study_get_experiment (study)->budget, ==, 7);
  g_assert_cmpfloat_with_epsilon (sb_study_get_repeat_rate (study), 0.2, 1e-12);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->main_stack), ==, "study");

  /* The same folder again: refused, the dialog stays. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "new-study", NULL);
  dialog = SB_NEW_STUDY_DIALOG (find_new_study_dialog ());
  sb_new_study_dialog_set_folder (dialog, tmp, "from-window");
  sb_new_study_dialog_create (dialog);
  g_assert_true (find_new_study_dialog () == GTK_WINDOW (dialog));
  g_assert_true (sb_window_get_study (window) == study);
  gtk_window_destroy (GTK_WINDOW (dialog));
  other = g_build_filename (tmp, "from-window", "study.json", NULL);
  g_assert_true (g_file_test (other, G_FILE_TEST_IS_REGULAR));
  wait_roster (sb_window_get_study_view (window));
  close_window (window);
  remove_tree (tmp);
}

/* ---- The history ------------------------------------------------------------- */

typedef struct {
  char *dir;
  char *path;
  SbWindow *window;
  SbSession *session;
} History;

static void
history_open (History *h, guint n_answers)
{
  g_autoptr (SbExperiment) exp = colour_experiment (20);
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;

  h->dir = g_dir_make_tmp ("sb-history-XXXXXX", NULL);
  h->path = g_build_filename (h->dir, "session.json", NULL);
  file = g_file_new_for_path (h->path);
  h->window = new_window ();
  h->session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (h->session, file, &error));
  sb_window_set_session (h->window, h->session);
  for (guint i = 0; i < n_answers; i++)
    {
      SPIN_UNTIL (sb_window_get_question (h->window) != NULL);
      g_action_group_activate_action (G_ACTION_GROUP (h->window), i % 2 ? "answer-b" : "answer-a",
                                      NULL);
    }
  SPIN_UNTIL (sb_window_get_question (h->window) != NULL);
}

static void
history_close (History *h)
{
  close_window (h->window);
  g_object_unref (h->session);
  remove_tree (h->dir);
  g_free (h->dir);
  g_free (h->path);
}

/* The entry INDEX as the file says now. */
static SbLogEntry *
entry_on_disk (History *h, guint index)
{
  g_autoptr (GFile) file = g_file_new_for_path (h->path);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) read = NULL;

  read = sb_session_load (file, &error);
  g_assert_no_error (error);
  return sb_log_entry_copy (sb_session_get_observation (read, index));
}

/* The history row of entry INDEX (newest first). */
static GtkWidget *
history_row (History *h, guint index)
{
  guint n = sb_session_get_n_observations (h->session);
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (h->window->history_list, n - 1 - index);

  g_assert_nonnull (row);
  return gtk_list_box_row_get_child (row);
}

static gboolean
is_button_with_action (GtkWidget *w, gconstpointer action)
{
  return GTK_IS_BUTTON (w) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), action) == 0;
}

static void
test_history_remove_restore (void)
{
  History h = { 0 };
  GtkWidget *button;
  g_autoptr (SbLogEntry) before = NULL;

  history_open (&h, 4);
  g_assert_cmpuint (sb_session_get_n_answers (h.session), ==, 4);

  /* Remove the second answer (not the last) with its row's button. */
  button = ui_find_widget (history_row (&h, 1), is_button_with_action, "win.history-remove");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (sb_log_entry_is_removed (sb_session_get_observation (h.session, 1)));
  g_assert_cmpuint (sb_session_get_n_answers (h.session), ==, 3);
  g_assert_cmpuint (sb_session_get_n_observations (h.session), ==, 4);
  {
    g_autoptr (SbLogEntry) disk = entry_on_disk (&h, 1);
    g_assert_true (sb_log_entry_is_removed (disk));
    g_assert_cmpstr (disk->removed_by, ==, g_get_user_name ());
  }
  /* The row is struck through, says who removed it and offers Restore. */
  g_assert_true (gtk_widget_has_css_class (history_row (&h, 1), "sb-removed"));
  g_assert_false (gtk_widget_has_css_class (history_row (&h, 2), "sb-removed"));
  button = ui_find_widget (history_row (&h, 1), is_button_with_action, "win.history-restore");
  g_assert_nonnull (button);
  /* The campaign asks again from the log without it. */
  SPIN_UNTIL (sb_window_get_question (h.window) != NULL);

  g_signal_emit_by_name (button, "clicked");
  g_assert_false (sb_log_entry_is_removed (sb_session_get_observation (h.session, 1)));
  g_assert_cmpuint (sb_session_get_n_answers (h.session), ==, 4);
  before = entry_on_disk (&h, 1);
  g_assert_false (sb_log_entry_is_removed (before));
  g_assert_false (gtk_widget_has_css_class (history_row (&h, 1), "sb-removed"));
  /* Two edits in the file's journal. */
  g_assert_cmpuint (sb_session_get_n_edits (h.session), ==, 2);

  /* A note through the action the row's editor uses. */
  g_action_group_activate_action (G_ACTION_GROUP (h.window), "history-note",
                                  g_variant_new ("(us)", 0, "pressed before looking"));
  {
    g_autoptr (SbLogEntry) disk = entry_on_disk (&h, 0);
    g_assert_cmpstr (disk->note, ==, "pressed before looking");
  }
  SPIN_UNTIL (sb_window_get_question (h.window) != NULL);
  history_close (&h);
}

static void
test_history_undo_toast (void)
{
  History h = { 0 };

  history_open (&h, 3);
  g_action_group_activate_action (G_ACTION_GROUP (h.window), "history-remove",
                                  g_variant_new_uint32 (0));
  g_assert_true (sb_log_entry_is_removed (sb_session_get_observation (h.session, 0)));
  /* The toast offers Undo. */
  g_assert_nonnull (h.window->edit_toast);
  g_assert_cmpstr (adw_toast_get_action_name (h.window->edit_toast), ==, "win.undo-edit");
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (h.window), "undo-edit"));
  /* Its button activates the action. */
  g_action_group_activate_action (G_ACTION_GROUP (h.window),
                                  adw_toast_get_action_name (h.window->edit_toast) + 4, NULL);
  g_assert_false (sb_log_entry_is_removed (sb_session_get_observation (h.session, 0)));
  {
    g_autoptr (SbLogEntry) disk = entry_on_disk (&h, 0);
    g_assert_false (sb_log_entry_is_removed (disk));
  }
  g_assert_false (gtk_widget_has_css_class (history_row (&h, 0), "sb-removed"));
  /* Then Redo removes it again. */
  g_assert_nonnull (h.window->edit_toast);
  g_assert_cmpstr (adw_toast_get_action_name (h.window->edit_toast), ==, "win.redo-edit");
  g_action_group_activate_action (G_ACTION_GROUP (h.window), "redo-edit", NULL);
  g_assert_true (sb_log_entry_is_removed (sb_session_get_observation (h.session, 0)));
  g_assert_true (gtk_widget_has_css_class (history_row (&h, 0), "sb-removed"));
  {
    g_autoptr (SbLogEntry) disk = entry_on_disk (&h, 0);
    g_assert_true (sb_log_entry_is_removed (disk));
  }
  g_assert_cmpuint (sb_session_get_n_edits (h.session), ==, 3);
  SPIN_UNTIL (sb_window_get_question (h.window) != NULL);
  history_close (&h);
}

int
main (int argc, char **argv)
{
  static const UiTest tests[] = {
    { "/ui/study/roster", test_study_roster },
    { "/ui/study/population-plot", test_study_population_plot },
    { "/ui/study/exports", test_study_exports },
    { "/ui/study/participant-mode", test_study_participant_mode },
    { "/ui/study/new-dialog", test_study_new_dialog },
    { "/ui/history/remove-restore", test_history_remove_restore },
    { "/ui/history/undo-toast", test_history_undo_toast },
  };
  int status;

  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
