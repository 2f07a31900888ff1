/* sb-window.c — the main workbench window. */
#include "sb-window.h"

struct _SbWindow
{
  GtkApplicationWindow parent_instance;

  /* Template widgets (borrowed) */
  GtkBox *content;
  GtkLabel *status_label;
};

G_DEFINE_FINAL_TYPE (SbWindow, sb_window, GTK_TYPE_APPLICATION_WINDOW)

static void
sb_window_class_init (SbWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SbWindow, content);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, status_label);
}

static void
sb_window_init (SbWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

SbWindow *
sb_window_new (GtkApplication *application)
{
  return g_object_new (SB_TYPE_WINDOW, "application", application, NULL);
}
