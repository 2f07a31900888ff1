#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SB_TYPE_WINDOW (sb_window_get_type ())
G_DECLARE_FINAL_TYPE (SbWindow, sb_window, SB, WINDOW, GtkApplicationWindow)

SbWindow *sb_window_new (GtkApplication *application);

G_END_DECLS
