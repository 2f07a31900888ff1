/* sb-qr-code.h — a QR code of a text (a link to scan with a phone),
 * drawn crisp at any size: libqrencode makes the symbol (ISO/IEC 18004,
 * error correction level M), this widget draws its modules as squares
 * with the four-module quiet zone the standard asks for. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SB_TYPE_QR_CODE (sb_qr_code_get_type ())
G_DECLARE_FINAL_TYPE (SbQrCode, sb_qr_code, SB, QR_CODE, GtkWidget)

GtkWidget *sb_qr_code_new (void);
/* TEXT (NULL: nothing drawn). */
void sb_qr_code_set_text (SbQrCode *self, const char *text);
/* The symbol's width in modules (0: none), and whether module (X, Y) is
 * dark: what a scanner reads. */
guint sb_qr_code_get_size (SbQrCode *self);
gboolean sb_qr_code_get_module (SbQrCode *self, guint x, guint y);

G_END_DECLS
