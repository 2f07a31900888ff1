/* sb-demo-chooser.c — the list of guided demos. */
#include "config.h"

#include "sb-demo-chooser.h"

#include "sb-close-keys.h"
#include "sb-demos.h"
#include "sb-window.h"

#include <glib/gi18n.h>

struct _SbDemoChooser
{
  GtkWindow parent_instance;

  GtkApplication *app;        /* weak: the application outlives windows */

  /* Template widgets (borrowed) */
  GtkListBox *list;
  GtkRevealer *error_revealer;
  GtkLabel *error_label;
};

G_DEFINE_FINAL_TYPE (SbDemoChooser, sb_demo_chooser, GTK_TYPE_WINDOW)

enum { DEMO_OPENED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GtkWidget *
demo_row (const SbDemo *demo)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *title = gtk_label_new (_(demo->title));
  GtkWidget *explanation = gtk_label_new (_(demo->explanation));
  GtkWidget *settings = gtk_label_new (_(demo->settings));
  GtkWidget *open = gtk_image_new_from_icon_name ("go-next-symbolic");

  gtk_widget_set_name (row, demo->id);
  gtk_widget_add_css_class (title, "heading");
  for (GtkWidget *const *l = (GtkWidget *const[]) { title, explanation, settings, NULL }; *l; l++)
    {
      gtk_label_set_xalign (GTK_LABEL (*l), 0);
      gtk_label_set_wrap (GTK_LABEL (*l), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (*l), 80);
      gtk_box_append (GTK_BOX (text), *l);
    }
  gtk_widget_add_css_class (settings, "dim-label");
  gtk_widget_add_css_class (settings, "caption");
  gtk_widget_set_hexpand (text, TRUE);
  gtk_widget_set_valign (open, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), text);
  gtk_box_append (GTK_BOX (box), open);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_widget_set_tooltip_text (row, _("Open this demo"));
  return row;
}

gboolean
sb_demo_chooser_open (SbDemoChooser *self, const char *id, GError **error)
{
  const SbDemo *demo;
  g_autoptr (GError) local = NULL;
  GtkWindow *parent;

  g_return_val_if_fail (SB_IS_DEMO_CHOOSER (self), FALSE);
  demo = sb_demos_lookup (id);
  if (demo == NULL)
    g_set_error (&local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("there is no demo '%s'"), id);
  parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  if (demo && sb_window_open_demo (demo, self->app, parent, &local))
    {
      g_signal_emit (self, signals[DEMO_OPENED], 0, id);
      gtk_window_destroy (GTK_WINDOW (self));
      return TRUE;
    }
  gtk_label_set_text (self->error_label, local->message);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

static void
row_activated (GtkListBox *list, GtkListBoxRow *row, SbDemoChooser *self)
{
  sb_demo_chooser_open (self, gtk_widget_get_name (GTK_WIDGET (row)), NULL);
}

static void
sb_demo_chooser_dispose (GObject *object)
{
  SbDemoChooser *self = SB_DEMO_CHOOSER (object);

  g_clear_weak_pointer (&self->app);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_DEMO_CHOOSER);
  G_OBJECT_CLASS (sb_demo_chooser_parent_class)->dispose (object);
}

static void
sb_demo_chooser_class_init (SbDemoChooserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_demo_chooser_dispose;
  signals[DEMO_OPENED] = g_signal_new ("demo-opened", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 1, G_TYPE_STRING);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-demo-chooser.ui");
  gtk_widget_class_bind_template_child (widget_class, SbDemoChooser, list);
  gtk_widget_class_bind_template_child (widget_class, SbDemoChooser, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, SbDemoChooser, error_label);
  sb_window_class_add_close_keys (widget_class, NULL);
}

static void
sb_demo_chooser_init (SbDemoChooser *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  for (guint i = 0; i < sb_demos_get_n (); i++)
    gtk_list_box_append (self->list, demo_row (sb_demos_get (i)));
  g_signal_connect (self->list, "row-activated", G_CALLBACK (row_activated), self);
}

SbDemoChooser *
sb_demo_chooser_new (GtkApplication *app, GtkWindow *parent)
{
  SbDemoChooser *self = g_object_new (SB_TYPE_DEMO_CHOOSER,
                                      "transient-for", parent,
                                      "application", app, NULL);

  g_set_weak_pointer (&self->app, app);
  return self;
}

GtkListBox *
sb_demo_chooser_get_list (SbDemoChooser *self)
{
  g_return_val_if_fail (SB_IS_DEMO_CHOOSER (self), NULL);
  return self->list;
}
