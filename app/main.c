/* main.c — entry point of the SkewBench desktop application. */
#include "config.h"

#include "sb-application.h"

#include <glib/gi18n.h>
#include <locale.h>

int
main (int argc, char *argv[])
{
  g_autoptr (SbApplication) app = NULL;

  /* Translations of the .ui files and the _() strings, from LOCALEDIR. */
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = sb_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
