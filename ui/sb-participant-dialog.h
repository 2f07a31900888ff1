/* sb-participant-dialog.h — "Start Participant Mode": what the
 * participant's screen looks like and the code that ends it.
 *
 * A modal window, transient for the workbench: the surround colour, the
 * blank interval between questions, a break every N answers (0: none)
 * and the unlock code (at least 4 characters, typed twice alike). The
 * first three start from GSettings and are saved there on Start; the
 * code never is. ::start (const SbParticipantSettings *, const char
 * *code) is emitted on Start, and the window closes.
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-participant-view.h"

G_BEGIN_DECLS

#define SB_TYPE_PARTICIPANT_DIALOG (sb_participant_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SbParticipantDialog, sb_participant_dialog, SB, PARTICIPANT_DIALOG, GtkWindow)

SbParticipantDialog *sb_participant_dialog_new (GtkWindow *parent);

/* The code typed (both entries) and the Start button, for tests. */
void sb_participant_dialog_set_code (SbParticipantDialog *self, const char *code);
gboolean sb_participant_dialog_get_can_start (SbParticipantDialog *self);
void sb_participant_dialog_start (SbParticipantDialog *self);

G_END_DECLS
