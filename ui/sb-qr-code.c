/* sb-qr-code.c — a QR code widget (sb-qr-code.h). */
#include "config.h"

#include "sb-qr-code.h"

#include <qrencode.h>

#define QUIET_ZONE 4   /* modules of light border on each side */

struct _SbQrCode
{
  GtkWidget parent_instance;

  QRcode *code;        /* NULL: no text */
};

G_DEFINE_FINAL_TYPE (SbQrCode, sb_qr_code, GTK_TYPE_WIDGET)

static void
sb_qr_code_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SbQrCode *self = SB_QR_CODE (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  GdkRGBA light = { 1, 1, 1, 1 }, dark = { 0, 0, 0, 1 };
  guint n, total;
  int module, side, x0, y0;

  if (self->code == NULL)
    return;
  n = (guint) self->code->width;
  total = n + 2 * QUIET_ZONE;
  /* whole pixels per module: a scanner needs sharp edges */
  module = MAX (1, MIN (w, h) / (int) total);
  side = module * (int) total;
  x0 = (w - side) / 2;
  y0 = (h - side) / 2;
  gtk_snapshot_append_color (snapshot, &light, &GRAPHENE_RECT_INIT (x0, y0, side, side));
  for (guint y = 0; y < n; y++)
    for (guint x = 0; x < n; x++)
      if (self->code->data[y * n + x] & 1)
        gtk_snapshot_append_color (snapshot, &dark,
                                   &GRAPHENE_RECT_INIT (x0 + (int) (x + QUIET_ZONE) * module,
                                                        y0 + (int) (y + QUIET_ZONE) * module,
                                                        module, module));
}

static void
sb_qr_code_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                    int *natural, int *minimum_baseline, int *natural_baseline)
{
  SbQrCode *self = SB_QR_CODE (widget);
  int total = self->code ? self->code->width + 2 * QUIET_ZONE : 0;

  /* two pixels per module at least, four when there is room */
  *minimum = 2 * total;
  *natural = 4 * total;
}

static void
sb_qr_code_finalize (GObject *object)
{
  SbQrCode *self = SB_QR_CODE (object);

  g_clear_pointer (&self->code, QRcode_free);
  G_OBJECT_CLASS (sb_qr_code_parent_class)->finalize (object);
}

static void
sb_qr_code_class_init (SbQrCodeClass *klass)
{
  GTK_WIDGET_CLASS (klass)->snapshot = sb_qr_code_snapshot;
  GTK_WIDGET_CLASS (klass)->measure = sb_qr_code_measure;
  G_OBJECT_CLASS (klass)->finalize = sb_qr_code_finalize;
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_IMG);
}

static void
sb_qr_code_init (SbQrCode *self)
{
}

GtkWidget *
sb_qr_code_new (void)
{
  return g_object_new (SB_TYPE_QR_CODE, NULL);
}

void
sb_qr_code_set_text (SbQrCode *self, const char *text)
{
  g_return_if_fail (SB_IS_QR_CODE (self));
  g_clear_pointer (&self->code, QRcode_free);
  if (text != NULL && *text != '\0')
    self->code = QRcode_encodeString8bit (text, 0, QR_ECLEVEL_M);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  text ? text : "", -1);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

guint
sb_qr_code_get_size (SbQrCode *self)
{
  g_return_val_if_fail (SB_IS_QR_CODE (self), 0);
  return self->code ? (guint) self->code->width : 0;
}

gboolean
sb_qr_code_get_module (SbQrCode *self, guint x, guint y)
{
  guint n;

  g_return_val_if_fail (SB_IS_QR_CODE (self), FALSE);
  n = sb_qr_code_get_size (self);
  return x < n && y < n && (self->code->data[y * n + x] & 1);
}
