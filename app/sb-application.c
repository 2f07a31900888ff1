/* sb-application.c — the GtkApplication: actions, accelerators, windows. */
#include "sb-application.h"
#include "sb-window.h"

struct _SbApplication
{
  GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (SbApplication, sb_application, GTK_TYPE_APPLICATION)

static void
sb_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (sb_window_new (GTK_APPLICATION (app)));
  gtk_window_present (window);
}

static void
sb_application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (sb_application_parent_class)->startup (app);

  g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/org/skewbench/SkewBench/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  static const char *authors[] = { "The SkewBench developers", NULL };

  gtk_show_about_dialog (gtk_application_get_active_window (app),
                         "program-name", "SkewBench",
                         "comments", "Human-in-the-loop Bayesian optimisation with exact Skew Gaussian Process posteriors",
                         "version", PACKAGE_VERSION,
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "authors", authors,
                         NULL);
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static const GActionEntry app_actions[] = {
  { .name = "about", .activate = about_action },
  { .name = "quit", .activate = quit_action },
};

static void
sb_application_class_init (SbApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = sb_application_activate;
  app_class->startup = sb_application_startup;
}

static void
sb_application_init (SbApplication *self)
{
  static const char *quit_accels[] = { "<Control>q", NULL };

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
}

SbApplication *
sb_application_new (void)
{
  return g_object_new (SB_TYPE_APPLICATION,
                       "application-id", SB_APPLICATION_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       NULL);
}
