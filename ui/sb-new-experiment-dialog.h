/* sb-new-experiment-dialog.h — choose a template and its settings.
 *
 * Emits ::experiment-chosen (SbExperiment, boxed) when the user presses
 * Create and the settings are valid, then closes itself. Invalid settings
 * (an empty parameter name, an empty range) are reported in the dialog.
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-session.h"

G_BEGIN_DECLS

#define SB_TYPE_NEW_EXPERIMENT_DIALOG (sb_new_experiment_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SbNewExperimentDialog, sb_new_experiment_dialog, SB,
                      NEW_EXPERIMENT_DIALOG, GtkWindow)

SbNewExperimentDialog *sb_new_experiment_dialog_new (GtkWindow *parent);
/* Selects a template (for tests and for "New" with a preset). */
void sb_new_experiment_dialog_set_template (SbNewExperimentDialog *self, SbTemplate kind);
/* The experiment the dialog describes now; NULL with ERROR if invalid. */
SbExperiment *sb_new_experiment_dialog_build (SbNewExperimentDialog *self, GError **error);

G_END_DECLS
