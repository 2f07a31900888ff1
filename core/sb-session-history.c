/* sb-session-history.c — removing, restoring and annotating past answers
 * (sb-session-history.h). */
#include "config.h"

#include "sb-session-history.h"
#include "sb-session-private.h"

static SbLogEntry *
entry_at (SbSession *self, guint index, GError **error)
{
  if (index >= self->observations->len)
    {
      sb_invalid (error, "there is no answer %u (the log has %u)", index + 1,
                  self->observations->len);
      return NULL;
    }
  return g_ptr_array_index (self->observations, index);
}

/* Applies EDIT (its action, entry, note) to the log: FALSE with ERROR when
 * it does not apply (removing a removed entry, restoring a present one). */
static gboolean
apply (SbSession *self, const SbEdit *edit, GError **error)
{
  SbLogEntry *e = entry_at (self, edit->entry, error);

  if (e == NULL)
    return FALSE;
  switch (edit->action)
    {
    case SB_EDIT_REMOVE:
      if (sb_log_entry_is_removed (e))
        return sb_invalid (error, "answer %u is removed already", edit->entry + 1);
      e->removed_time = edit->time;
      g_free (e->removed_by);
      e->removed_by = g_strdup (edit->by);
      break;
    case SB_EDIT_RESTORE:
      if (!sb_log_entry_is_removed (e))
        return sb_invalid (error, "answer %u is not removed", edit->entry + 1);
      e->removed_time = 0;
      g_clear_pointer (&e->removed_by, g_free);
      break;
    case SB_EDIT_NOTE:
      g_free (e->note);
      e->note = g_strdup (edit->note);
      break;
    }
  return TRUE;
}

/* Applies ACTION to entry INDEX, appends it to the journal (REVERTS: the
 * journal record it undoes, 1-based, or 0), drops the open question and
 * saves. The journal index of the new record goes to *RECORD. */
static gboolean
edit_entry (SbSession *self, SbEditAction action, guint index, const char *note,
            const char *by, guint reverts, guint *record, GError **error)
{
  SbEdit edit = { .action = action, .entry = index, .time = g_get_real_time (),
                  .reverts = reverts };
  SbLogEntry *e = entry_at (self, index, error);

  if (e == NULL)
    return FALSE;
  edit.by = g_strdup (by ? by : "");
  if (action == SB_EDIT_NOTE)
    {
      edit.note = note && *note ? g_strdup (note) : NULL;
      edit.previous = g_strdup (e->note);
    }
  if (!apply (self, &edit, error))
    {
      sb_edit_clear (&edit);
      return FALSE;
    }
  g_array_append_val (self->edits, edit);
  *record = self->edits->len - 1;
  /* A question chosen from the log before the edit is out of date. */
  g_clear_pointer (&self->pending, g_free);
  return sb_session_commit_change (self, error);
}

/* A new edit for its own sake: it can be undone, and what was undone
 * before can no longer be redone. */
static gboolean
edit_fresh (SbSession *self, SbEditAction action, guint index, const char *note,
            const char *by, GError **error)
{
  guint record = G_MAXUINT;
  gboolean ok = edit_entry (self, action, index, note, by, 0, &record, error);

  if (record != G_MAXUINT)
    {
      g_array_append_val (self->undo_edits, record);
      g_array_set_size (self->redo_edits, 0);
    }
  return ok;
}

gboolean
sb_session_remove_entry (SbSession *self, guint index, const char *by, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return edit_fresh (self, SB_EDIT_REMOVE, index, NULL, by, error);
}

gboolean
sb_session_restore_entry (SbSession *self, guint index, const char *by, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return edit_fresh (self, SB_EDIT_RESTORE, index, NULL, by, error);
}

gboolean
sb_session_set_entry_note (SbSession *self, guint index, const char *note, const char *by,
                           GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return edit_fresh (self, SB_EDIT_NOTE, index, note, by, error);
}

guint
sb_session_get_n_edits (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->edits->len;
}

const SbEdit *
sb_session_get_edit (SbSession *self, guint index)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < self->edits->len, NULL);
  return &g_array_index (self->edits, SbEdit, index);
}

gboolean
sb_session_can_undo_edit (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return self->undo_edits->len > 0;
}

gboolean
sb_session_can_redo_edit (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return self->redo_edits->len > 0;
}

static guint
pop (GArray *stack)
{
  guint top = g_array_index (stack, guint, stack->len - 1);

  g_array_set_size (stack, stack->len - 1);
  return top;
}

/* Applies journal record K again (REDO) or its inverse (undo), recorded
 * as a new record that names K when it reverts it. */
static gboolean
replay_record (SbSession *self, guint k, gboolean redo, const char *by, guint *record,
               GError **error)
{
  /* Copied: appending to the journal may move its storage. */
  SbEdit old = g_array_index (self->edits, SbEdit, k);
  g_autofree char *text = g_strdup (redo ? old.note : old.previous);
  SbEditAction action = old.action;

  if (!redo && action != SB_EDIT_NOTE)
    action = action == SB_EDIT_REMOVE ? SB_EDIT_RESTORE : SB_EDIT_REMOVE;
  return edit_entry (self, action, old.entry, text, by, redo ? 0 : k + 1, record, error);
}

gboolean
sb_session_undo_edit (SbSession *self, const char *by, GError **error)
{
  guint k, record = G_MAXUINT;
  gboolean ok;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (self->undo_edits->len == 0)
    return sb_invalid (error, "there is no edit to undo");
  k = pop (self->undo_edits);
  ok = replay_record (self, k, FALSE, by, &record, error);
  if (record == G_MAXUINT)
    g_array_append_val (self->undo_edits, k);  /* not applied: still undoable */
  else
    g_array_append_val (self->redo_edits, k);
  return ok;
}

gboolean
sb_session_redo_edit (SbSession *self, const char *by, GError **error)
{
  guint k, record = G_MAXUINT;
  gboolean ok;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (self->redo_edits->len == 0)
    return sb_invalid (error, "there is no undone edit to redo");
  k = pop (self->redo_edits);
  ok = replay_record (self, k, TRUE, by, &record, error);
  if (record == G_MAXUINT)
    g_array_append_val (self->redo_edits, k);
  else
    g_array_append_val (self->undo_edits, record);
  return ok;
}
