/* sb-keys.h — reading the answer keys the same way in every view. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The place (0-based) that a digit key 1 … 9 names, on the main row or
 * the keypad, with or without Shift. Shift turns a digit key into another
 * symbol on most layouts ("@" for Shift+2 on a US keyboard, "\"" on a
 * German one), so a shifted key is read as its hardware key's unshifted
 * symbol in the layout in use. FALSE for any other key. */
gboolean sb_key_digit_place (GtkEventControllerKey *controller, guint keyval, guint keycode,
                             GdkModifierType state, guint *place);

G_END_DECLS
