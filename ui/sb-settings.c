/* sb-settings.c — SkewBench's preferences and where they take effect.
 *
 * The schema is looked up rather than assumed: a program run from the
 * build tree without GSETTINGS_SCHEMA_DIR, or installed without its
 * compiled schema, has no settings object, and every preference keeps
 * its built-in default (the values the schema declares as defaults).
 *
 *   window-width, -height, -maximized  restored on every experiment window,
 *                                      saved when one closes
 *   theme                              AdwStyleManager's colour scheme
 *   default-acquisition                preselected in New Experiment
 *   autosave-folder                    where new session files go
 *
 * Recent sessions stay in GtkRecentManager (ui/sb-window.c): that list is
 * the desktop's, shared with the file chooser and the shell.
 */
#include "config.h"

#include "sb-settings.h"

#include "sg-bo.h"

enum {
  THEME_SYSTEM,
  THEME_LIGHT,
  THEME_DARK,
};

/* The application's settings, or NULL when the schema is not installed.
 * Owned here for the life of the process. */
GSettings *
sb_settings_get_default (void)
{
  static GSettings *settings;
  static gsize initialised;

  if (g_once_init_enter (&initialised))
    {
      GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
      g_autoptr (GSettingsSchema) schema = source
        ? g_settings_schema_source_lookup (source, APPLICATION_ID, TRUE) : NULL;

      if (schema)
        settings = g_settings_new_full (schema, NULL, NULL);
      else
        g_debug ("no GSettings schema %s: using the default preferences", APPLICATION_ID);
      g_once_init_leave (&initialised, 1);
    }
  return settings;
}

/* The folder new experiments save their session files in: the
 * autosave-folder preference, or $XDG_DATA_HOME/skewbench/sessions when it
 * is empty (or there are no settings). A leading "~/" means the home
 * directory. */
char *
sb_settings_dup_session_dir (void)
{
  GSettings *settings = sb_settings_get_default ();
  g_autofree char *folder = settings ? g_settings_get_string (settings, "autosave-folder") : NULL;

  if (folder == NULL || *folder == '\0')
    return g_build_filename (g_get_user_data_dir (), "skewbench", "sessions", NULL);
  if (g_str_has_prefix (folder, "~/"))
    return g_build_filename (g_get_home_dir (), folder + 2, NULL);
  return g_steal_pointer (&folder);
}

/* The acquisition a new experiment starts with, as the session file
 * names it (the schema's nicks are the engine's names), or NULL for the
 * schema's "default" (and without a schema): the measured default of
 * each experiment's mode, question, model and number of parameters. */
const char *
sb_settings_get_default_acquisition (void)
{
  GSettings *settings = sb_settings_get_default ();
  int value = settings ? g_settings_get_enum (settings, "default-acquisition") : -1;

  return value >= 0 && value <= SG_BO_ACQ_LAST ? sg_bo_acquisition_name ((sg_bo_acquisition) value)
                                               : NULL;
}

/* ---- Window size ---------------------------------------------------------- */

static void
save_window_size (GtkWindow *window, GSettings *settings)
{
  int width, height;

  g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
  /* The default size follows the user's resizing, and keeps the
   * unmaximised size while the window is maximised. */
  gtk_window_get_default_size (window, &width, &height);
  if (width > 0 && height > 0)
    {
      g_settings_set_int (settings, "window-width", CLAMP (width, 200, 16384));
      g_settings_set_int (settings, "window-height", CLAMP (height, 200, 16384));
    }
}

/* Opens WINDOW at the saved size (maximised if it was), and saves its size
 * when it goes away: closed, or destroyed when the application quits. */
void
sb_settings_track_window_size (GtkWindow *window)
{
  GSettings *settings = sb_settings_get_default ();

  g_return_if_fail (GTK_IS_WINDOW (window));

  if (settings == NULL)
    return;
  gtk_window_set_default_size (window, g_settings_get_int (settings, "window-width"),
                               g_settings_get_int (settings, "window-height"));
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (window);
  g_signal_connect (window, "unrealize", G_CALLBACK (save_window_size), settings);
}

/* ---- Theme ---------------------------------------------------------------- */

static void
apply_theme (GSettings *settings, const char *key, AdwStyleManager *style)
{
  switch (g_settings_get_enum (settings, "theme"))
    {
    case THEME_LIGHT:
      adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
      break;
    case THEME_DARK:
      adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
      break;
    case THEME_SYSTEM:
    default:
      adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
      break;
    }
}

/* Applies the theme preference to STYLE now and whenever it changes.
 * "system" is the desktop's preference as libadwaita reads it (the
 * settings portal); the plots follow AdwStyleManager:dark
 * (ui/sb-chart.c). */
void
sb_settings_follow_theme (AdwStyleManager *style)
{
  GSettings *settings = sb_settings_get_default ();

  g_return_if_fail (ADW_IS_STYLE_MANAGER (style));

  if (settings == NULL || g_object_get_data (G_OBJECT (style), "sb-follows-theme") != NULL)
    return;
  g_object_set_data (G_OBJECT (style), "sb-follows-theme", GINT_TO_POINTER (1));
  g_signal_connect_object (settings, "changed::theme", G_CALLBACK (apply_theme), style, 0);
  apply_theme (settings, "theme", style);
}
