/* sb-keys.c — answer keys (see sb-keys.h). */
#include "config.h"

#include "sb-keys.h"

static gboolean
digit_place (guint keyval, guint *place)
{
  if (keyval >= GDK_KEY_1 && keyval <= GDK_KEY_9)
    *place = keyval - GDK_KEY_1;
  else if (keyval >= GDK_KEY_KP_1 && keyval <= GDK_KEY_KP_9)
    *place = keyval - GDK_KEY_KP_1;
  else
    return FALSE;
  return TRUE;
}

gboolean
sb_key_digit_place (GtkEventControllerKey *controller, guint keyval, guint keycode,
                    GdkModifierType state, guint *place)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));
  guint unshifted = 0;
  int layout = event && gdk_event_get_event_type (event) == GDK_KEY_PRESS
               ? (int) gdk_key_event_get_layout (event) : 0;

  if (digit_place (keyval, place))
    return TRUE;
  if (!(state & GDK_SHIFT_MASK) || keycode == 0 || widget == NULL)
    return FALSE;
  return gdk_display_translate_key (gtk_widget_get_display (widget), keycode,
                                    state & ~GDK_SHIFT_MASK, layout, &unshifted, NULL, NULL, NULL)
         && digit_place (unshifted, place);
}
