/* sb-new-study-dialog.c — "New Study" (see sb-new-study-dialog.h). */
#include "config.h"

#include "sb-new-study-dialog.h"

#include "sb-experiment-templates.h"
#include "sb-settings.h"

#include <glib/gi18n.h>

struct _SbNewStudyDialog
{
  GtkWindow parent_instance;

  /* owned */
  SbExperiment *current;       /* the window's experiment, or NULL      */
  char **problems;             /* benchmark problems offered            */
  char *parent;                /* the folder the study goes in          */

  /* template children (borrowed) */
  GtkDropDown *source_dropdown;
  GtkSpinButton *rate_spin;
  GtkEntry *name_entry;
  GtkLabel *parent_label;
  GtkButton *choose_button;
  GtkButton *create_button;
  GtkLabel *error_label;
};

G_DEFINE_FINAL_TYPE (SbNewStudyDialog, sb_new_study_dialog, GTK_TYPE_WINDOW)

enum { CREATE, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The sources offered, in the dropdown's order: the current experiment
 * (when there is one), the colour demo, then each benchmark problem. */
static void
fill_sources (SbNewStudyDialog *self)
{
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  g_auto (GStrv) list = NULL;

  if (self->current)
    {
      g_autofree char *name = g_strdup_printf (_("The current experiment: %s"), self->current->title);
      g_strv_builder_add (names, name);
    }
  g_strv_builder_add (names, _("Favourite colour (3 parameters, duels)"));
  for (guint i = 0; self->problems[i]; i++)
    {
      g_autofree char *name = g_strdup_printf (_("Benchmark: %s"), self->problems[i]);
      g_strv_builder_add (names, name);
    }
  list = g_strv_builder_end (names);
  gtk_drop_down_set_model (self->source_dropdown,
                           G_LIST_MODEL (gtk_string_list_new ((const char *const *) list)));
}

SbExperiment *
sb_new_study_dialog_build (SbNewStudyDialog *self)
{
  guint i = gtk_drop_down_get_selected (self->source_dropdown);

  g_return_val_if_fail (SB_IS_NEW_STUDY_DIALOG (self), NULL);
  if (self->current)
    {
      if (i == 0)
        return sb_experiment_copy (self->current);
      i--;
    }
  if (i == 0 || self->problems[i - 1] == NULL)
    return sb_template_colour ();
  return sb_template_benchmark (self->problems[i - 1], NULL);
}

static char *
default_name (const SbExperiment *exp)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M");
  g_autofree char *slug = g_ascii_strdown (exp && exp->title ? exp->title : "study", -1);

  g_strcanon (slug, "abcdefghijklmnopqrstuvwxyz0123456789", '-');
  return g_strdup_printf ("%s-study-%s", slug, stamp);
}

static void
on_source_changed (SbNewStudyDialog *self)
{
  g_autoptr (SbExperiment) exp = sb_new_study_dialog_build (self);
  g_autofree char *name = default_name (exp);

  gtk_editable_set_text (GTK_EDITABLE (self->name_entry), name);
}

char *
sb_new_study_dialog_get_folder (SbNewStudyDialog *self)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (SB_IS_NEW_STUDY_DIALOG (self), NULL);
  name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_entry))));
  if (*name == '\0' || strchr (name, G_DIR_SEPARATOR) || g_str_equal (name, ".")
      || g_str_equal (name, ".."))
    return NULL;
  return g_build_filename (self->parent, name, NULL);
}

void
sb_new_study_dialog_set_folder (SbNewStudyDialog *self, const char *parent, const char *name)
{
  g_return_if_fail (SB_IS_NEW_STUDY_DIALOG (self));
  if (parent)
    {
      g_free (self->parent);
      self->parent = g_strdup (parent);
      gtk_label_set_text (self->parent_label, parent);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->parent_label), parent);
    }
  if (name)
    gtk_editable_set_text (GTK_EDITABLE (self->name_entry), name);
}

void
sb_new_study_dialog_set_repeat_rate (SbNewStudyDialog *self, double rate)
{
  g_return_if_fail (SB_IS_NEW_STUDY_DIALOG (self));
  gtk_spin_button_set_value (self->rate_spin, 100 * rate);
}

void
sb_new_study_dialog_show_error (SbNewStudyDialog *self, const char *message)
{
  g_return_if_fail (SB_IS_NEW_STUDY_DIALOG (self));
  gtk_label_set_text (self->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

void
sb_new_study_dialog_create (SbNewStudyDialog *self)
{
  g_autoptr (SbExperiment) exp = sb_new_study_dialog_build (self);
  g_autofree char *folder = sb_new_study_dialog_get_folder (self);

  g_return_if_fail (SB_IS_NEW_STUDY_DIALOG (self));
  if (folder == NULL)
    {
      sb_new_study_dialog_show_error (self, _("The study needs a name (a folder name, without '/')."));
      return;
    }
  if (exp == NULL)
    {
      sb_new_study_dialog_show_error (self, _("This experiment cannot be made."));
      return;
    }
  sb_new_study_dialog_show_error (self, NULL);
  g_signal_emit (self, signals[CREATE], 0, exp,
                 gtk_spin_button_get_value (self->rate_spin) / 100.0, folder);
}

static void
choose_response (GtkNativeDialog *native, int response, SbNewStudyDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      if (path)
        sb_new_study_dialog_set_folder (self, path, NULL);
    }
  g_object_unref (native);
}

static void
on_choose (SbNewStudyDialog *self)
{
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new (_("Folder for the Study"), GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Select"), _("_Cancel"));
  g_autoptr (GFile) parent = g_file_new_for_path (self->parent);

  g_mkdir_with_parents (self->parent, 0755);
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), parent, NULL);
  g_signal_connect_object (native, "response", G_CALLBACK (choose_response), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
sb_new_study_dialog_finalize (GObject *object)
{
  SbNewStudyDialog *self = SB_NEW_STUDY_DIALOG (object);

  g_clear_pointer (&self->current, sb_experiment_free);
  g_strfreev (self->problems);
  g_free (self->parent);
  G_OBJECT_CLASS (sb_new_study_dialog_parent_class)->finalize (object);
}

static void
sb_new_study_dialog_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), SB_TYPE_NEW_STUDY_DIALOG);
  G_OBJECT_CLASS (sb_new_study_dialog_parent_class)->dispose (object);
}

static void
sb_new_study_dialog_class_init (SbNewStudyDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_new_study_dialog_dispose;
  object_class->finalize = sb_new_study_dialog_finalize;
  signals[CREATE] = g_signal_new ("create", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                  NULL, NULL, NULL, G_TYPE_NONE, 3, SB_TYPE_EXPERIMENT,
                                  G_TYPE_DOUBLE, G_TYPE_STRING);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-new-study-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, source_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, rate_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, name_entry);
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, parent_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, choose_button);
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, create_button);
  gtk_widget_class_bind_template_child (widget_class, SbNewStudyDialog, error_label);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
sb_new_study_dialog_init (SbNewStudyDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->problems = sb_template_list_problems ();
  g_signal_connect_swapped (self->create_button, "clicked",
                            G_CALLBACK (sb_new_study_dialog_create), self);
  g_signal_connect_swapped (self->choose_button, "clicked", G_CALLBACK (on_choose), self);
}

SbNewStudyDialog *
sb_new_study_dialog_new (GtkWindow *parent, const SbExperiment *current)
{
  SbNewStudyDialog *self = g_object_new (SB_TYPE_NEW_STUDY_DIALOG, "transient-for", parent, NULL);
  g_autofree char *sessions = sb_settings_dup_session_dir ();
  g_autofree char *above = g_path_get_dirname (sessions);
  g_autofree char *studies = g_build_filename (above, "studies", NULL);

  self->current = current ? sb_experiment_copy (current) : NULL;
  fill_sources (self);
  g_signal_connect_swapped (self->source_dropdown, "notify::selected",
                            G_CALLBACK (on_source_changed), self);
  sb_new_study_dialog_set_folder (self, studies, NULL);
  on_source_changed (self);
  return self;
}
