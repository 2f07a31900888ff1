/* sb-application.c — the GtkApplication: actions, accelerators, windows.
 *
 * Single instance (GApplication uniqueness on the session bus when there
 * is one): a second `skewbench --session PATH` opens PATH in the running
 * instance. `--session PATH` opens PATH, or creates it from the default
 * demo when it does not exist; a bare launch starts the built-in demo (the
 * favourite-colour experiment) in a new session file under the user's
 * data directory, so every answer is saved from the first one.
 * `--demo ID` opens a guided demo (ui/sb-demos.h; `--demo list` prints
 * the ids), e.g. for screenshots and tests. `--study DIR` opens the study
 * in DIR (core/sb-study.h) in its Study view.
 */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>

#include "sb-application.h"

#include "sb-demo-chooser.h"
#include "sb-demos.h"
#include "sb-renderer.h"
#include "sb-experiment-templates.h"
#include "sb-papers.h"
#include "sb-settings.h"
#include "sb-window.h"

#include <adwaita.h>
#include "sb-worker.h"
#include "sg-linalg.h"

#include <glib/gi18n.h>
#include <stdio.h>

struct _SbApplication
{
  GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (SbApplication, sb_application, GTK_TYPE_APPLICATION)

static SbWindow *
window_for_file (SbApplication *self, GFile *file)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    {
      SbSession *session;
      GFile *current;

      if (!SB_IS_WINDOW (l->data))
        continue;
      session = sb_window_get_session (l->data);
      current = session ? sb_session_get_file (session) : NULL;
      if (current && g_file_equal (current, file))
        return l->data;
    }
  return NULL;
}

static void
open_demo (SbApplication *self)
{
  SbWindow *window = sb_window_new (GTK_APPLICATION (self));
  g_autoptr (SbExperiment) demo = sb_template_colour ();

  gtk_window_present (GTK_WINDOW (window));
  sb_window_start_experiment (window, demo);
}

static void
sb_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    open_demo (SB_APPLICATION (app));
  else
    gtk_window_present (window);
}

static void
print_demo_list (FILE *out)
{
  for (guint i = 0; i < sb_demos_get_n (); i++)
    fprintf (out, "%-28s %s\n", sb_demos_get (i)->id, _(sb_demos_get (i)->title));
}

/* `--demo list` and an unknown demo id are answered here, in the
 * launching process before GTK opens a display, so they work on a
 * machine without one (a script listing the demos, a terminal over ssh). */
static int
sb_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  g_autofree char *demo_id = NULL;

  if (!g_variant_dict_lookup (options, "demo", "s", &demo_id))
    return -1;
  if (g_str_equal (demo_id, "list"))
    {
      print_demo_list (stdout);
      return 0;
    }
  if (sb_demos_lookup (demo_id) == NULL)
    {
      fprintf (stderr, _("skewbench: no demo '%s'; the demos are:\n"), demo_id);
      print_demo_list (stderr);
      return 2;
    }
  return -1;
}

/* --study DIR: a new window showing the study's roster. */
static int
open_study (SbApplication *self, GApplicationCommandLine *cmdline, const char *dir)
{
  g_autoptr (GFile) file = g_application_command_line_create_file_for_arg (cmdline, dir);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GError) error = NULL;
  SbWindow *window = sb_window_new (GTK_APPLICATION (self));

  if (!sb_window_open_study (window, path, &error))
    {
      g_application_command_line_printerr (cmdline, _("skewbench: the study %s could not be opened: %s\n"),
                                           path, error->message);
      gtk_window_destroy (GTK_WINDOW (window));
      return 2;
    }
  gtk_window_present (GTK_WINDOW (window));
  return 0;
}

static int
sb_application_command_line (GApplication *app, GApplicationCommandLine *cmdline)
{
  SbApplication *self = SB_APPLICATION (app);
  GVariantDict *options = g_application_command_line_get_options_dict (cmdline);
  g_autofree char *path = NULL;
  g_autofree char *follow = NULL;
  g_autofree char *study = NULL;
  g_autofree char *demo_id = NULL;
  g_autofree char *view = NULL;
  GtkWindow *demo_window;
  int step;

  if (g_variant_dict_lookup (options, "demo", "s", &demo_id))
    {
      const SbDemo *demo = sb_demos_lookup (demo_id);
      g_autoptr (GError) error = NULL;

      if (demo == NULL)
        {
          /* An unknown id from a remote instance: handle_local_options
           * answered a local one already. */
          g_application_command_line_printerr (cmdline, _("skewbench: no demo '%s'\n"), demo_id);
          return 2;
        }
      if (demo->session == NULL)
        {
          if (!sb_window_open_demo (demo, GTK_APPLICATION (self),
                             gtk_application_get_active_window (GTK_APPLICATION (self)), &error))
            {
              g_application_command_line_printerr (cmdline, _("skewbench: the demo '%s' could not be opened: %s\n"),
                                                   demo_id, error->message);
              return 1;
            }
          return 0;
        }
      demo_window = sb_window_open_demo_session (demo, GTK_APPLICATION (self), &error);
      if (demo_window == NULL)
        {
          g_application_command_line_printerr (cmdline, _("skewbench: the demo '%s' could not be opened: %s\n"),
                                               demo_id, error->message);
          return 1;
        }
      /* --demo-step N, --demo-view NICK: a given state of the demo (for
       * screenshots, or a lecture that starts at a later step). */
      if (g_variant_dict_lookup (options, "demo-step", "i", &step)
          && !sb_window_demo_go_to_step (SB_WINDOW (demo_window), (guint) MAX (step, 0)))
        g_application_command_line_printerr (cmdline, _("skewbench: the demo '%s' has no step %d\n"),
                                             demo_id, step);
      if (g_variant_dict_lookup (options, "demo-view", "s", &view))
        sb_window_demo_show_view (SB_WINDOW (demo_window), view);
      return 0;
    }
  if (g_variant_dict_lookup (options, "follow", "^ay", &follow) && follow && *follow)
    {
      g_autoptr (GFile) file = g_application_command_line_create_file_for_arg (cmdline, follow);
      SbWindow *window = sb_window_new (GTK_APPLICATION (self));

      sb_window_follow_file (window, file);
      gtk_window_present (GTK_WINDOW (window));
      return 0;
    }
  if (g_variant_dict_lookup (options, "study", "^ay", &study) && study && *study)
    return open_study (self, cmdline, study);
  if (g_variant_dict_lookup (options, "session", "^ay", &path) && path && *path)
    {
      g_autoptr (GFile) file = g_application_command_line_create_file_for_arg (cmdline, path);
      SbWindow *window = window_for_file (self, file);

      if (window == NULL)
        {
          window = sb_window_new (GTK_APPLICATION (self));
          sb_window_open_file (window, file, TRUE);
        }
      gtk_window_present (GTK_WINDOW (window));
      return 0;
    }
  g_application_activate (app);
  return 0;
}

/* app.theme (system, light, dark), stateful: the primary menu's Style
 * items. Absent when the settings schema is not installed. */
static void
add_settings_actions (GApplication *app)
{
  GSettings *settings = sb_settings_get_default ();
  g_autoptr (GAction) theme = settings ? g_settings_create_action (settings, "theme") : NULL;

  if (theme)
    g_action_map_add_action (G_ACTION_MAP (app), theme);
}

/* SIGTERM, SIGINT and SIGHUP (a logout, a terminal closed, a kill)
 * quit like Ctrl+Q: every answer is on disk before the process ends. */
static gboolean
on_quit_signal (gpointer user_data)
{
  g_log ("SkewBench", G_LOG_LEVEL_DEBUG, "quit by signal");
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_CONTINUE;
}

static void
quit_on_signals (GApplication *app)
{
  static const int quit_signals[] = { SIGTERM, SIGINT, SIGHUP };

  for (guint i = 0; i < G_N_ELEMENTS (quit_signals); i++)
    g_unix_signal_add (quit_signals[i], on_quit_signal, app);
}

/* ---- Forms: the mouse wheel scrolls the form ---------------------------- */

/* A spin button takes the mouse wheel only while it has the focus:
 * scrolling a form (New Experiment, a study's settings, any dialog) with
 * the pointer passing over a spin button scrolls the form, as the user
 * meant, instead of changing the number under the pointer unseen. The
 * spin button's own scroll controller is switched off (its events go on
 * to the scrolled window around it) until the focus enters it. */
static void
spin_focus_changed (GtkEventControllerFocus *focus, GParamSpec *pspec, GtkEventController *scroll)
{
  gtk_event_controller_set_propagation_phase (scroll,
                                              gtk_event_controller_focus_contains_focus (focus)
                                              ? GTK_PHASE_BUBBLE : GTK_PHASE_NONE);
}

static void
spin_scroll_when_focused (GtkWidget *spin)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (spin);
  g_autoptr (GtkEventController) scroll = NULL;
  GtkEventController *focus;

  if (g_object_get_data (G_OBJECT (spin), "sb-scroll-when-focused"))
    return;
  g_object_set_data (G_OBJECT (spin), "sb-scroll-when-focused", GINT_TO_POINTER (1));
  /* found first: the observed list changes as a controller is added */
  for (guint i = 0; i < g_list_model_get_n_items (controllers) && scroll == NULL; i++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_SCROLL (c))
        scroll = g_steal_pointer (&c);
    }
  if (scroll == NULL)
    return;
  focus = gtk_event_controller_focus_new ();
  g_signal_connect_object (focus, "notify::contains-focus", G_CALLBACK (spin_focus_changed),
                           scroll, 0);
  gtk_widget_add_controller (spin, focus);
  spin_focus_changed (GTK_EVENT_CONTROLLER_FOCUS (focus), NULL, scroll);
}

static gboolean
widget_realized (GSignalInvocationHint *hint, guint n_params, const GValue *params, gpointer data)
{
  GObject *widget = g_value_get_object (&params[0]);

  if (GTK_IS_SPIN_BUTTON (widget))
    spin_scroll_when_focused (GTK_WIDGET (widget));
  return TRUE;  /* stay for every later one */
}

static void
sb_application_startup (GApplication *app)
{
  g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();

  G_APPLICATION_CLASS (sb_application_parent_class)->startup (app);
  adw_init ();
  sb_renderer_choose (gdk_display_get_default ());
  /* Here rather than in main() so that the in-process benchmarks and tests
   * of the window run the engine as the application does. */
  sg_blas_use_default_threads ();
  g_set_application_name ("SkewBench");
  gtk_window_set_default_icon_name (APPLICATION_ID);
  sb_settings_follow_theme (adw_style_manager_get_default ());
  add_settings_actions (app);
  quit_on_signals (G_APPLICATION (app));
  /* (the class kept alive, so the signal exists before any widget) */
  g_type_class_ref (GTK_TYPE_SPIN_BUTTON);
  g_signal_add_emission_hook (g_signal_lookup ("realize", GTK_TYPE_WIDGET), 0, widget_realized,
                              NULL, NULL);
  gtk_css_provider_load_from_resource (css, "/org/skewbench/SkewBench/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void
sb_application_shutdown (GApplication *app)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));

  /* Destroying the windows cancels their engine jobs; the jobs stop at
   * their next progress poll, and the process must not exit while one is
   * still inside the engine. */
  for (GList *l = windows; l; l = l->next)
    if (SB_IS_WINDOW (l->data))
      gtk_window_destroy (l->data);
  g_list_free (windows);
  if (!sb_worker_wait_all (30 * G_USEC_PER_SEC))
    g_warning ("an engine job did not stop within 30 s of quitting");
  G_APPLICATION_CLASS (sb_application_parent_class)->shutdown (app);
}

/* Experiment windows open at the size the last one closed with. */
static void
sb_application_window_added (GtkApplication *app, GtkWindow *window)
{
  GTK_APPLICATION_CLASS (sb_application_parent_class)->window_added (app, window);
  if (SB_IS_WINDOW (window))
    sb_settings_track_window_size (window);
}

/* What a bug report needs: the libraries this build runs with. */
static char *
system_information (void)
{
  return g_strdup_printf ("SkewBench %s\nGTK %u.%u.%u\nGLib %u.%u.%u\n",
                          PACKAGE_VERSION,
                          gtk_get_major_version (), gtk_get_minor_version (),
                          gtk_get_micro_version (), glib_major_version, glib_minor_version,
                          glib_micro_version);
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  static const char *authors[] = { "The SkewBench developers", NULL };
  g_autofree char *info = system_information ();
  GtkWidget *about = gtk_about_dialog_new ();

  g_object_set (about,
                "program-name", "SkewBench",
                "logo-icon-name", APPLICATION_ID,
                "comments", _("Human-in-the-loop Bayesian optimisation with exact Skew Gaussian Process posteriors"),
                "translator-credits", _("translator-credits"),
                "version", PACKAGE_VERSION,
                "website", PACKAGE_URL,
                "license-type", GTK_LICENSE_GPL_3_0,
                "authors", authors,
                "system-information", info,
                NULL);
  /* The models are the papers' work: a study that uses SkewBench should
   * cite them. */
  gtk_about_dialog_add_credit_section (GTK_ABOUT_DIALOG (about), _("Please cite"),
                                       (const char **) sb_papers_all ());
  gtk_window_set_transient_for (GTK_WINDOW (about), gtk_application_get_active_window (app));
  gtk_window_set_modal (GTK_WINDOW (about), TRUE);
  gtk_window_set_hide_on_close (GTK_WINDOW (about), FALSE);
  gtk_window_present (GTK_WINDOW (about));
}

static void
demos_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  SbDemoChooser *chooser = sb_demo_chooser_new (app, gtk_application_get_active_window (app));

  gtk_window_present (GTK_WINDOW (chooser));
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  /* Every answer is already on disk (saved atomically when given), so
   * quitting needs no confirmation and loses nothing. */
  g_log ("SkewBench", G_LOG_LEVEL_DEBUG, "quit requested");
  g_application_quit (G_APPLICATION (user_data));
}

static const GActionEntry app_actions[] = {
  { .name = "about", .activate = about_action },
  { .name = "demos", .activate = demos_action },
  { .name = "quit", .activate = quit_action },
};

static const struct {
  const char *action;
  const char *accels[3];
} accelerators[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "win.new-experiment", { "<Control>n", NULL } },
  { "win.open", { "<Control>o", NULL } },
  { "win.save-as", { "<Control><Shift>s", NULL } },
  { "win.export-csv", { "<Control>e", NULL } },
  { "win.undo", { "<Control>z", NULL } },
  { "win.redo", { "<Control><Shift>z", NULL } },
  { "win.refit", { "<Control>r", NULL } },
  { "win.prior-explorer", { "<Control><Shift>p", NULL } },
  { "win.show-help-overlay", { "<Control>question", NULL } },
  { "app.demos", { "<Control><Shift>d", NULL } },
  { "win.demo-previous", { "<Alt>Left", NULL } },
  { "win.demo-next", { "<Alt>Right", NULL } },
  { "win.autoplay", { "<Control>p", NULL } },   /* also while typing a value */
  { "win.show-plots", { "F9", NULL } },
  { "win.presentation", { "F5", NULL } },
  { "win.participant-mode", { "F11", NULL } },
  { "win.plot-kind::posterior", { "<Control>1", NULL } },
  { "win.plot-kind::skewness", { "<Control>2", NULL } },
  { "win.plot-kind::acquisition", { "<Control>3", NULL } },
  { "win.plot-kind::validity", { "<Control>4", NULL } },
  { "win.plot-kind::heatmap", { "<Control>5", NULL } },
  { "win.plot-kind::density", { "<Control>6", NULL } },
  { "win.plot-kind::convergence", { "<Control>7", NULL } },
  { "win.plot-kind::hyperparameters", { "<Control>8", NULL } },
  { "win.plot-field::mean", { "<Alt>1", NULL } },
  { "win.plot-field::sd", { "<Alt>2", NULL } },
  { "win.plot-field::skewness", { "<Alt>3", NULL } },
  { "win.plot-field::acquisition", { "<Alt>4", NULL } },
  { "win.plot-field::p-valid", { "<Alt>5", NULL } },
  { "win.compare-laplace", { "<Control><Shift>l", NULL } },
  { "win.compare-ep", { "<Control><Shift>e", NULL } },
};

static void
sb_application_class_init (SbApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);
  GtkApplicationClass *gtk_app_class = GTK_APPLICATION_CLASS (klass);

  app_class->activate = sb_application_activate;
  app_class->startup = sb_application_startup;
  app_class->shutdown = sb_application_shutdown;
  app_class->command_line = sb_application_command_line;
  app_class->handle_local_options = sb_application_handle_local_options;
  gtk_app_class->window_added = sb_application_window_added;
}

static void
sb_application_init (SbApplication *self)
{
  static const GOptionEntry entries[] = {
    { "session", 's', 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Open the session file PATH (created from the demo if it does not exist)"), N_("PATH") },
    { "follow", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Show the session file PATH read-only, following the answers another program "
         "(e.g. a script running skewgp ask/tell) saves in it"), N_("PATH") },
    { "study", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Open the study in the folder DIR (its roster and population)"), N_("DIR") },
    { "demo", 0, 0, G_OPTION_ARG_STRING, NULL,
      N_("Open the guided demo ID (a copy of its session; 'list' lists them)"), N_("ID") },
    { "demo-step", 0, 0, G_OPTION_ARG_INT, NULL,
      N_("With --demo: show step N of a step-by-step demo"), N_("N") },
    { "demo-view", 0, 0, G_OPTION_ARG_STRING, NULL,
      N_("With --demo: show the plot NICK (posterior, skewness, acquisition, validity, density, ...)"), N_("NICK") },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accelerators); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accelerators[i].action,
                                           accelerators[i].accels);
}

SbApplication *
sb_application_new (void)
{
  return g_object_new (SB_TYPE_APPLICATION,
                       "application-id", SB_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE,
                       NULL);
}
