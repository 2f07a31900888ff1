#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SB_APPLICATION_ID "org.skewbench.SkewBench"
#define SB_TYPE_APPLICATION (sb_application_get_type ())
G_DECLARE_FINAL_TYPE (SbApplication, sb_application, SB, APPLICATION, GtkApplication)

SbApplication *sb_application_new (void);

G_END_DECLS
