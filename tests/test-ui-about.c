/* test-ui-about.c — the About dialog (app.about) says what a user needs:
 * version, website, licence, the libraries for a bug report, and how to
 * cite the papers (authors and titles). TAP-skips without a display. */
#include "config.h"

#include "sb-application.h"
#include "sb-papers.h"

#include <gtk/gtk.h>
#include <string.h>

static SbApplication *app;

#include "ui-harness.h"

static GtkAboutDialog *
find_about (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (toplevels, i);
      if (GTK_IS_ABOUT_DIALOG (w))
        return GTK_ABOUT_DIALOG (w);
    }
  return NULL;
}

static void
test_about (void)
{
  GtkAboutDialog *about;
  const char *info;

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  SPIN_UNTIL (find_about () != NULL);
  about = find_about ();
  g_assert_cmpstr (gtk_about_dialog_get_version (about), ==, PACKAGE_VERSION);
  g_assert_true (g_str_has_prefix (gtk_about_dialog_get_website (about), "https://"));
  g_assert_cmpint (gtk_about_dialog_get_license_type (about), ==, GTK_LICENSE_GPL_3_0);
  info = gtk_about_dialog_get_system_information (about);
  g_assert_nonnull (info);
  g_assert_nonnull (strstr (info, "GTK 4."));
  /* Each paper appears whole: authors, title and venue. */
  for (const char *const *p = sb_papers_all (); *p; p++)
    {
      g_assert_nonnull (strstr (*p, "“"));
      g_assert_cmpuint (strlen (*p), >, 40);
    }
  g_assert_nonnull (strstr (SB_PAPER_001, "Benavoli, Azzimonti & Piga"));
  gtk_window_destroy (GTK_WINDOW (about));
  SPIN_UNTIL (find_about () == NULL);
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/about/contents", test_about },
  };

  if (ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    app = ui_harness_application ();
  return g_test_run ();
}
