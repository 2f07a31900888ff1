/* sb-session-history.h — the experimenter edits a session's history.
 *
 * Any past answer can be removed and restored, and given a note; nothing
 * is ever deleted. A removed entry stays in the log and in the file with
 * "removed": {"time", "by"}; it never reaches the engine (the replay skips
 * it, as it skips a skip) and it does not count as an answer, so the
 * budget gives a question back. Every change is also appended to the
 * session's edit journal ("edits" in the file, oldest first): what was
 * done to which entry, when and by whom, and for a note the text before.
 *
 * Undo and redo walk the edits made through this session object: undoing
 * an edit applies its inverse (a removal is restored, a restore removed
 * again, a note set back), recorded in the journal like any edit and
 * naming the edit it reverts; redo applies the undone edit again. The
 * stacks live in memory (a session opened again starts with empty stacks;
 * every entry can still be removed or restored directly). The app's
 * last-answer undo (sb_session_undo, the participant's "take back the key
 * I just pressed") is a different thing and stays as it is.
 *
 * Each edit saves the session like an answer and drops an open ask/tell
 * question: it was chosen from the log before the edit.
 */
#pragma once

#include "sb-session.h"

G_BEGIN_DECLS


/* Removes the INDEX-th entry (any kind, skips too) from what counts,
 * recording TIME and BY (NULL: "") in it and in the journal, and saves.
 * FALSE with ERROR (SB_SESSION_ERROR_INVALID) when there is no such entry
 * or it is removed already; a save failure keeps the change in memory
 * (FALSE with ERROR, as for an answer). */
gboolean sb_session_remove_entry (SbSession *self, guint index, const char *by,
                                  GError **error);
/* Lets the removed INDEX-th entry count again. */
gboolean sb_session_restore_entry (SbSession *self, guint index, const char *by,
                                   GError **error);
/* Sets the note of the INDEX-th entry (NULL or "" clears it). */
gboolean sb_session_set_entry_note (SbSession *self, guint index, const char *note,
                                    const char *by, GError **error);

guint sb_session_get_n_edits (SbSession *self);
const SbEdit *sb_session_get_edit (SbSession *self, guint index);

/* Undo the latest edit not undone yet (made through this object), and
 * redo the latest undone one while no new edit was made since. */
gboolean sb_session_can_undo_edit (SbSession *self);
gboolean sb_session_undo_edit (SbSession *self, const char *by, GError **error);
gboolean sb_session_can_redo_edit (SbSession *self);
gboolean sb_session_redo_edit (SbSession *self, const char *by, GError **error);

G_END_DECLS
