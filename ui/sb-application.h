#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SB_APPLICATION_ID "org.skewbench.SkewBench"
#define SB_TYPE_APPLICATION (sb_application_get_type ())
G_DECLARE_FINAL_TYPE (SbApplication, sb_application, SB, APPLICATION, GtkApplication)

SbApplication *sb_application_new (void);

/* Escape and Ctrl+W close the windows of KLASS (the tool windows: Guided
 * Demos, Prior Explorer, Playground, Link Diagnostic), by ACTION (NULL:
 * "window.close"; a dialog passes its cancel action). */
void sb_window_class_add_close_keys (GtkWidgetClass *klass, const char *action);

G_END_DECLS
