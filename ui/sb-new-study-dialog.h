/* sb-new-study-dialog.h — "New Study": the experiment every participant
 * runs, the share of repeated pairs and the study's folder.
 *
 * The experiment is the window's current one (when it has one) or a
 * template (the colour demo, a benchmark problem). The folder is a new
 * one, NAME inside PARENT (by default the sessions folder's "studies"
 * sibling; "Choose…" picks another parent). ::create (SbExperiment,
 * double repeat_rate, const char *folder) is emitted on Create; the
 * dialog stays open until the caller closes it, so a refusal (the folder
 * exists) can be shown with sb_new_study_dialog_show_error.
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-session.h"

G_BEGIN_DECLS

#define SB_TYPE_NEW_STUDY_DIALOG (sb_new_study_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SbNewStudyDialog, sb_new_study_dialog, SB, NEW_STUDY_DIALOG, GtkWindow)

/* CURRENT (may be NULL): the window's experiment, offered first. */
SbNewStudyDialog *sb_new_study_dialog_new (GtkWindow *parent, const SbExperiment *current);
/* The folder the study would be created in (the parent and the name). */
char *sb_new_study_dialog_get_folder (SbNewStudyDialog *self);
void sb_new_study_dialog_set_folder (SbNewStudyDialog *self, const char *parent, const char *name);
void sb_new_study_dialog_set_repeat_rate (SbNewStudyDialog *self, double rate);
/* The experiment chosen (a copy). */
SbExperiment *sb_new_study_dialog_build (SbNewStudyDialog *self);
void sb_new_study_dialog_show_error (SbNewStudyDialog *self, const char *message);
/* Emits ::create as the Create button does. */
void sb_new_study_dialog_create (SbNewStudyDialog *self);

G_END_DECLS
