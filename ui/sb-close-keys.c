/* sb-close-keys.c — the keys that close a tool window or a dialog
 * (sb-close-keys.h), shared by every window class that has them. */
#include "config.h"

#include "sb-close-keys.h"

void
sb_window_class_add_close_keys (GtkWidgetClass *klass, const char *action)
{
  if (action == NULL)
    action = "window.close";
  gtk_widget_class_add_binding_action (klass, GDK_KEY_Escape, 0, action, NULL);
  gtk_widget_class_add_binding_action (klass, GDK_KEY_w, GDK_CONTROL_MASK, action, NULL);
}
