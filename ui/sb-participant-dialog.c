/* sb-participant-dialog.c — "Start Participant Mode" (see
 * sb-participant-dialog.h). */
#include "config.h"

#include "sb-participant-dialog.h"

#include <glib/gi18n.h>

/* The shortest unlock code: a participant should not guess it. */
#define MIN_CODE_LENGTH 4

struct _SbParticipantDialog
{
  GtkWindow parent_instance;

  /* Borrowed */
  GtkColorButton *surround_button;
  GtkSpinButton *iti_spin;
  GtkSpinButton *break_spin;
  GtkEditable *code_entry;
  GtkEditable *repeat_entry;
  GtkLabel *code_hint;
  GtkWidget *start_button;
};

G_DEFINE_FINAL_TYPE (SbParticipantDialog, sb_participant_dialog, GTK_TYPE_WINDOW)

enum {
  START,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_start (SbParticipantDialog *self)
{
  const char *code = gtk_editable_get_text (self->code_entry);
  const char *repeat = gtk_editable_get_text (self->repeat_entry);
  gboolean long_enough = g_utf8_strlen (code, -1) >= MIN_CODE_LENGTH;
  gboolean same = g_strcmp0 (code, repeat) == 0;

  gtk_label_set_text (self->code_hint,
                      !long_enough ? _("At least 4 characters; the participant must not know it.")
                      : !same ? _("The two codes differ.")
                      : _("Ctrl+Shift+U and this code end participant mode."));
  gtk_widget_set_sensitive (self->start_button, long_enough && same);
}

gboolean
sb_participant_dialog_get_can_start (SbParticipantDialog *self)
{
  g_return_val_if_fail (SB_IS_PARTICIPANT_DIALOG (self), FALSE);
  return gtk_widget_get_sensitive (self->start_button);
}

void
sb_participant_dialog_set_code (SbParticipantDialog *self, const char *code)
{
  g_return_if_fail (SB_IS_PARTICIPANT_DIALOG (self));
  gtk_editable_set_text (self->code_entry, code);
  gtk_editable_set_text (self->repeat_entry, code);
}

void
sb_participant_dialog_start (SbParticipantDialog *self)
{
  SbParticipantSettings settings;
  g_autofree char *code = NULL;

  g_return_if_fail (SB_IS_PARTICIPANT_DIALOG (self));
  if (!sb_participant_dialog_get_can_start (self))
    return;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_color_chooser_get_rgba (GTK_COLOR_CHOOSER (self->surround_button), &settings.surround);
  G_GNUC_END_IGNORE_DEPRECATIONS
  settings.surround.alpha = 1;
  settings.iti_ms = (guint) gtk_spin_button_get_value_as_int (self->iti_spin);
  settings.break_every = (guint) gtk_spin_button_get_value_as_int (self->break_spin);
  code = g_strdup (gtk_editable_get_text (self->code_entry));
  gtk_editable_set_text (self->code_entry, "");
  gtk_editable_set_text (self->repeat_entry, "");
  sb_participant_settings_save (&settings);
  g_signal_emit (self, signals[START], 0, &settings, code);
  gtk_window_destroy (GTK_WINDOW (self));
}

static GtkWidget *
row_label (const char *text, GtkWidget *target)
{
  GtkWidget *label = gtk_label_new_with_mnemonic (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), target);
  return label;
}

static GtkWidget *
caption (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 48);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "caption");
  return label;
}

static void
build (SbParticipantDialog *self)
{
  SbParticipantSettings settings;
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *intro = caption (_("The window shows the questions alone, full screen, with "
                                "neutral names and the sides in random order; nothing of the "
                                "model, and no way back without the code."));
  int row = 0;

  sb_participant_settings_load (&settings);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  self->surround_button = GTK_COLOR_BUTTON (gtk_color_button_new_with_rgba (&settings.surround));
  gtk_color_chooser_set_use_alpha (GTK_COLOR_CHOOSER (self->surround_button), FALSE);
  G_GNUC_END_IGNORE_DEPRECATIONS
  self->iti_spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (0, 60000, 100));
  gtk_spin_button_set_value (self->iti_spin, settings.iti_ms);
  self->break_spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (0, 10000, 1));
  gtk_spin_button_set_value (self->break_spin, settings.break_every);
  self->code_entry = GTK_EDITABLE (gtk_password_entry_new ());
  self->repeat_entry = GTK_EDITABLE (gtk_password_entry_new ());
  gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (self->code_entry), TRUE);
  self->code_hint = GTK_LABEL (caption (""));
  self->start_button = gtk_button_new_with_mnemonic (_("_Start"));
  gtk_widget_add_css_class (self->start_button, "suggested-action");

  gtk_grid_set_row_spacing (GTK_GRID (grid), 10);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
  gtk_grid_attach (GTK_GRID (grid), row_label (_("_Surround colour"), GTK_WIDGET (self->surround_button)), 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->surround_button), 1, row++, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), row_label (_("_Pause between questions (ms)"), GTK_WIDGET (self->iti_spin)), 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->iti_spin), 1, row++, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), row_label (_("_Break every (answers, 0: never)"), GTK_WIDGET (self->break_spin)), 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->break_spin), 1, row++, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), row_label (_("Unlock _code"), GTK_WIDGET (self->code_entry)), 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->code_entry), 1, row++, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), row_label (_("_Repeat the code"), GTK_WIDGET (self->repeat_entry)), 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->repeat_entry), 1, row++, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->code_hint), 0, row++, 2, 1);

  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (buttons), cancel);
  gtk_box_append (GTK_BOX (buttons), self->start_button);
  gtk_box_append (GTK_BOX (box), intro);
  gtk_box_append (GTK_BOX (box), grid);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_widget_set_margin_start (box, 24);
  gtk_widget_set_margin_end (box, 24);
  gtk_widget_set_margin_top (box, 24);
  gtk_widget_set_margin_bottom (box, 24);
  gtk_window_set_child (GTK_WINDOW (self), box);

  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  g_signal_connect_swapped (self->start_button, "clicked", G_CALLBACK (sb_participant_dialog_start), self);
  g_signal_connect_swapped (self->code_entry, "changed", G_CALLBACK (update_start), self);
  g_signal_connect_swapped (self->repeat_entry, "changed", G_CALLBACK (update_start), self);
  g_signal_connect_swapped (self->repeat_entry, "activate", G_CALLBACK (sb_participant_dialog_start), self);
  update_start (self);
}

static void
sb_participant_dialog_class_init (SbParticipantDialogClass *klass)
{
  /* (const SbParticipantSettings *settings, const char *code) */
  signals[START] = g_signal_new ("start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                 NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
}

static void
sb_participant_dialog_init (SbParticipantDialog *self)
{
  gtk_window_set_title (GTK_WINDOW (self), _("Start Participant Mode"));
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_resizable (GTK_WINDOW (self), FALSE);
  build (self);
}

SbParticipantDialog *
sb_participant_dialog_new (GtkWindow *parent)
{
  return g_object_new (SB_TYPE_PARTICIPANT_DIALOG, "transient-for", parent, NULL);
}
