/* test-ui-settings.c — the preferences (ui/sb-settings.c).
 *
 * Run twice by meson: with the build tree's compiled schema
 * (GSETTINGS_SCHEMA_DIR, memory backend), where every preference takes
 * effect, and with SB_TEST_WITHOUT_SCHEMA=1 and no schema anywhere, where
 * the application keeps its built-in defaults and nothing crashes.
 *
 *  - the schema is found, or (without it) there is no settings object;
 *  - autosave-folder: empty means $XDG_DATA_HOME/skewbench/sessions, a
 *    folder (or "~/...") is where a new experiment's session file goes;
 *  - default-acquisition is what New Experiment preselects;
 *  - theme drives AdwStyleManager's colour scheme, "system" restores the
 *    desktop's;
 *  - an experiment window opens at the saved size and saves its own when
 *    it is destroyed;
 *  - the windows' icon is the app icon, found from the build tree too
 *    (the GResource carries it).
 * The display-bound cases TAP-skip without a display. */
#include "config.h"

#include "sb-acquisition-row.h"
#include "sb-application.h"
#include "sb-experiment-templates.h"
#include "sb-new-experiment-dialog.h"
#include "sb-settings.h"
#include "sb-window.h"

#include <gtk/gtk.h>

static SbApplication *app;

#include "ui-harness.h"

static gboolean
expect_schema (void)
{
  return g_getenv ("SB_TEST_WITHOUT_SCHEMA") == NULL;
}

/* The settings object, which the current run must have. */
static GSettings *
settings (void)
{
  GSettings *s = sb_settings_get_default ();

  g_assert_nonnull (s);
  return s;
}

static void
test_schema (void)
{
  GSettings *s = sb_settings_get_default ();

  if (!expect_schema ())
    {
      g_assert_null (s);
      return;
    }
  g_assert_nonnull (s);
  g_assert_true (G_IS_SETTINGS (s));
  g_assert_true (s == sb_settings_get_default ());
  g_assert_cmpint (g_settings_get_int (s, "window-width"), ==, 1200);
  g_assert_cmpint (g_settings_get_int (s, "window-height"), ==, 820);
}

static void
test_session_dir (void)
{
  g_autofree char *standard = g_build_filename (g_get_user_data_dir (), "skewbench", "sessions", NULL);
  g_autofree char *dir = sb_settings_dup_session_dir ();
  g_autofree char *window_dir = sb_window_default_session_dir ();

  g_assert_cmpstr (dir, ==, standard);
  g_assert_cmpstr (window_dir, ==, standard);
  if (!expect_schema ())
    return;

  g_settings_set_string (settings (), "autosave-folder", "/srv/experiments");
  g_free (dir);
  dir = sb_settings_dup_session_dir ();
  g_assert_cmpstr (dir, ==, "/srv/experiments");

  g_settings_set_string (settings (), "autosave-folder", "~/participants");
  g_free (dir);
  dir = sb_settings_dup_session_dir ();
  g_assert_true (g_str_has_prefix (dir, g_get_home_dir ()));
  g_assert_true (g_str_has_suffix (dir, G_DIR_SEPARATOR_S "participants"));

  g_settings_reset (settings (), "autosave-folder");
  g_free (dir);
  dir = sb_settings_dup_session_dir ();
  g_assert_cmpstr (dir, ==, standard);
}

static void
test_acquisition_nick (void)
{
  /* "default" (each experiment's measured default), with or without
   * schema */
  g_assert_null (sb_settings_get_default_acquisition ());
  if (!expect_schema ())
    return;
  g_settings_set_string (settings (), "default-acquisition", "thompson");
  g_assert_cmpstr (sb_settings_get_default_acquisition (), ==, "thompson");
  g_settings_set_string (settings (), "default-acquisition", "hb-ucb");
  g_assert_cmpstr (sb_settings_get_default_acquisition (), ==, "hb-ucb");
  g_settings_reset (settings (), "default-acquisition");
  g_assert_null (sb_settings_get_default_acquisition ());
}

/* ---- With a display --------------------------------------------------------- */

static GtkDropDown *
acquisition_dropdown (SbNewExperimentDialog *dialog)
{
  return GTK_DROP_DOWN (gtk_widget_get_template_child (GTK_WIDGET (dialog),
                                                       SB_TYPE_NEW_EXPERIMENT_DIALOG,
                                                       "acquisition_dropdown"));
}

static void
test_dialog_acquisition (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);

  /* The dialog's list order for duels: the engine's, ucb, eiig, epi, ...;
   * the default, hb-ucb, preselected */
  g_assert_cmpuint (gtk_drop_down_get_selected (acquisition_dropdown (dialog)), ==,
                    SG_BO_ACQ_HB_UCB);
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (!expect_schema ())
    return;

  g_settings_set_string (settings (), "default-acquisition", "epi");
  dialog = sb_new_experiment_dialog_new (NULL);
  g_assert_cmpuint (gtk_drop_down_get_selected (acquisition_dropdown (dialog)), ==, 2);
  /* Switching template keeps the preselected acquisition. */
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_BENCHMARK);
  g_assert_cmpuint (gtk_drop_down_get_selected (acquisition_dropdown (dialog)), ==, 2);
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_settings_reset (settings (), "default-acquisition");
}

/* W is a button showing the icon ICON (a parameter row's remove button). */
static gboolean
is_icon_button (GtkWidget *w, gconstpointer icon)
{
  return GTK_IS_BUTTON (w) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (w)), icon) == 0;
}

/* The default follows the number of parameters: the custom template's 2
 * parameters ask by HB-UCB; with 5 the default is dueling UCB (the
 * measured rule beyond 4), and the experiment built says so; back to 4,
 * HB-UCB. A choice the user made is kept whatever the count. */
static void
test_dialog_acquisition_dimension (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkDropDown *acq = acquisition_dropdown (dialog);
  GtkWidget *list = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (dialog),
                                                   SB_TYPE_NEW_EXPERIMENT_DIALOG,
                                                   "parameter_list");

  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_CUSTOM);
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_HB_UCB);
  for (int i = 0; i < 3; i++)
    gtk_widget_activate_action (GTK_WIDGET (dialog), "dialog.add-parameter", NULL);
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_UCB);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (exp->n_parameters, ==, 5);
    g_assert_cmpint (exp->acquisition, ==, SG_BO_ACQ_UCB);
  }
  /* the last row's remove button, as a person clicks it */
  g_signal_emit_by_name (ui_find_widget (gtk_widget_get_last_child (list), is_icon_button,
                                         "list-remove-symbolic"), "clicked");
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_HB_UCB);
  gtk_drop_down_set_selected (acq, SG_BO_ACQ_EIIG);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "dialog.add-parameter", NULL);
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_EIIG);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static GtkDropDown *
template_dropdown (SbNewExperimentDialog *dialog, const char *name)
{
  return GTK_DROP_DOWN (gtk_widget_get_template_child (GTK_WIDGET (dialog),
                                                       SB_TYPE_NEW_EXPERIMENT_DIALOG, name));
}

/* The engine names the acquisition drop-down offers, comma-separated. */
static char *
offered (SbNewExperimentDialog *dialog)
{
  GListModel *model = gtk_drop_down_get_model (acquisition_dropdown (dialog));
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (GtkStringObject) item = g_list_model_get_item (model, i);
      g_string_append_printf (out, "%s%s", i ? "," : "", gtk_string_object_get_string (item));
    }
  return g_strdup (out->str);
}

/* Duels in preference mode offer every acquisition of the engine, dueling
 * UCB first, the default HB-UCB preselected; each selection's tooltip
 * names its source and the experiment built asks by it. Mixed mode offers
 * the challenger rules; choices and rankings qEUBO alone; a Gaussian
 * surrogate no believer. The user's choice is kept where it is offered
 * and comes back where it is offered again; where it is not, the
 * measured default of the mode, question and surrogate is selected, and
 * the experiment built from it is valid. */
static void
test_dialog_acquisitions_offered (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkDropDown *acq = acquisition_dropdown (dialog);
  GtkDropDown *question = template_dropdown (dialog, "question_dropdown");
  GtkDropDown *mode = template_dropdown (dialog, "mode_dropdown");
  GtkDropDown *surrogate = template_dropdown (dialog, "surrogate_dropdown");
  const char *sources[] = { "paper 001", "paper 001", "paper 001", "paper 001", "Astudillo",
                            "Takeno", "Takeno", "González", "Fauvel & Chalk" };
  g_autofree char *duels = offered (dialog);
  g_autofree char *mixed = NULL, *choices = NULL, *back = NULL;

  g_assert_cmpstr (duels, ==, "ucb,eiig,epi,thompson,qeubo,hb-ei,hb-ucb,dts,muc");
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_HB_UCB);
  /* mixed mode has no believer: dueling UCB, its default; back in
   * preference mode the default HB-UCB again */
  gtk_drop_down_set_selected (mode, SB_MODE_MIXED);
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_UCB);
  gtk_drop_down_set_selected (mode, SB_MODE_PREFERENCE);
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_HB_UCB);
  /* Laplace: no believer offered, dueling UCB selected, and what is built
   * is valid; the exact SkewGP again: HB-UCB */
  {
    g_autofree char *laplace = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = NULL;

    gtk_drop_down_set_selected (surrogate, 1);
    laplace = offered (dialog);
    g_assert_cmpstr (laplace, ==, "ucb,eiig,epi,thompson,qeubo,dts,muc");
    g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_UCB);
    exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_no_error (error);
    g_assert_cmpint (exp->surrogate, ==, SG_BO_SURROGATE_LAPLACE);
    g_assert_cmpint (exp->acquisition, ==, SG_BO_ACQ_UCB);
    gtk_drop_down_set_selected (surrogate, 0);
    g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_HB_UCB);
  }
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SbExperiment) exp = NULL;
      const char *tip;

      gtk_drop_down_set_selected (acq, i);
      tip = gtk_widget_get_tooltip_text (GTK_WIDGET (acq));
      g_assert_nonnull (tip);
      g_assert_nonnull (strstr (tip, sources[i]));
      g_assert_null (strchr (tip, '\n'));
      exp = sb_new_experiment_dialog_build (dialog, &error);
      g_assert_no_error (error);
      g_assert_cmpint (exp->acquisition, ==, (sg_bo_acquisition) i);
    }

  gtk_drop_down_set_selected (acq, SG_BO_ACQ_MUC);
  gtk_drop_down_set_selected (mode, SB_MODE_MIXED);
  mixed = offered (dialog);
  g_assert_cmpstr (mixed, ==, "ucb,eiig,epi,thompson,muc");
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_MUC);
  gtk_drop_down_set_selected (mode, SB_MODE_PREFERENCE);
  gtk_drop_down_set_selected (acq, SG_BO_ACQ_HB_UCB);

  gtk_drop_down_set_selected (question, SB_ASK_CHOICE);
  choices = offered (dialog);
  g_assert_cmpstr (choices, ==, "qeubo");
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (acq)), "Astudillo"));
  gtk_drop_down_set_selected (question, SB_ASK_DUEL);
  back = offered (dialog);
  g_assert_cmpstr (back, ==, duels);
  /* qEUBO was the choice's default; the duel comes back to the user's */
  g_assert_cmpint (sb_acquisition_row_selected (acq), ==, SG_BO_ACQ_HB_UCB);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
test_session_in_autosave_folder (void)
{
  g_autofree char *folder = NULL;
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GFile) parent = NULL;
  SbWindow *window;
  GFile *file;

  if (!expect_schema ())
    {
      g_test_skip ("no settings: the folder is the default one (checked in /ui/settings/session-dir)");
      return;
    }
  folder = g_dir_make_tmp ("sb-autosave-XXXXXX", NULL);
  g_settings_set_string (settings (), "autosave-folder", folder);
  window = sb_window_new (GTK_APPLICATION (app));
  g_assert_true (sb_window_start_experiment (window, exp));
  file = sb_session_get_file (sb_window_get_session (window));
  g_assert_nonnull (file);
  parent = g_file_get_parent (file);
  g_assert_cmpstr (g_file_peek_path (parent), ==, folder);
  g_assert_true (g_file_query_exists (file, NULL));
  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings (), "autosave-folder");
}

static gboolean
prefers_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
test_theme (void)
{
  gboolean system_dark = prefers_dark ();

  /* The application's startup follows the preference; a second call is
   * harmless. */
  sb_settings_follow_theme (adw_style_manager_get_default ());
  g_assert_cmpint (prefers_dark (), ==, system_dark);
  if (!expect_schema ())
    return;

  g_settings_set_string (settings (), "theme", "dark");
  g_assert_true (prefers_dark ());
  g_settings_set_string (settings (), "theme", "light");
  g_assert_false (prefers_dark ());
  g_settings_set_string (settings (), "theme", "system");
  g_assert_cmpint (prefers_dark (), ==, system_dark);

  /* The primary menu's Style items drive the same key. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "theme", g_variant_new_string ("dark"));
  {
    g_autofree char *theme = g_settings_get_string (settings (), "theme");
    g_assert_cmpstr (theme, ==, "dark");
  }
  g_assert_true (prefers_dark ());
  g_settings_reset (settings (), "theme");
  g_assert_cmpint (prefers_dark (), ==, system_dark);
}

static void
test_window_size (void)
{
  SbWindow *window;
  int width, height;

  if (!expect_schema ())
    {
      window = sb_window_new (GTK_APPLICATION (app));
      gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
      g_assert_cmpint (width, ==, 1200);
      g_assert_cmpint (height, ==, 820);
      g_assert_false (g_action_group_has_action (G_ACTION_GROUP (app), "theme"));
      gtk_window_destroy (GTK_WINDOW (window));
      return;
    }

  g_settings_set_int (settings (), "window-width", 900);
  g_settings_set_int (settings (), "window-height", 640);
  window = sb_window_new (GTK_APPLICATION (app));
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 900);
  g_assert_cmpint (height, ==, 640);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  SPIN_UNTIL (gtk_widget_get_mapped (GTK_WIDGET (window)));
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_cmpint (g_settings_get_int (settings (), "window-width"), ==, 1000);
  g_assert_cmpint (g_settings_get_int (settings (), "window-height"), ==, 700);
  g_assert_false (g_settings_get_boolean (settings (), "window-maximized"));

  g_settings_reset (settings (), "window-width");
  g_settings_reset (settings (), "window-height");
}

static void
test_icon (void)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());

  g_assert_cmpstr (gtk_window_get_default_icon_name (), ==, APPLICATION_ID);
  g_assert_true (gtk_icon_theme_has_icon (theme, APPLICATION_ID));
  g_assert_true (gtk_icon_theme_has_icon (theme, APPLICATION_ID "-symbolic"));
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/settings/dialog-acquisition", test_dialog_acquisition },
    { "/ui/settings/dialog-acquisition-dimension", test_dialog_acquisition_dimension },
    { "/ui/settings/dialog-acquisitions-offered", test_dialog_acquisitions_offered },
    { "/ui/settings/session-in-autosave-folder", test_session_in_autosave_folder },
    { "/ui/settings/theme", test_theme },
    { "/ui/settings/window-size", test_window_size },
    { "/ui/app-icon", test_icon },
  };
  int status;

  if (ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    app = ui_harness_application ();
  /* These need no display. */
  g_test_add_func ("/ui/settings/schema", test_schema);
  g_test_add_func ("/ui/settings/session-dir", test_session_dir);
  g_test_add_func ("/ui/settings/acquisition-nick", test_acquisition_nick);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
