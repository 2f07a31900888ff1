/* main.c — entry point of the SkewBench desktop application. */
#include "config.h"

#include "sb-application.h"

int
main (int argc, char *argv[])
{
  g_autoptr (SbApplication) app = sb_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
