/* sb-close-keys.h — the keys that close a tool window or a dialog. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Escape and Ctrl+W close the windows of KLASS (the tool windows: Guided
 * Demos, Prior Explorer, Playground, Link Diagnostic), by ACTION (NULL:
 * "window.close"; a dialog passes its cancel action). */
void sb_window_class_add_close_keys (GtkWidgetClass *klass, const char *action);

G_END_DECLS
