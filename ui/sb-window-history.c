/* sb-window-history.c — the answer history an experimenter can edit.
 *
 * Each row of the history list names one log entry and offers Remove (or
 * Restore, for a removed one) and a note. Removed entries stay in the list,
 * struck through and dimmed, with who removed them and when: nothing is
 * deleted (core/sb-session-history.h keeps the entry and journals every
 * edit in the session file). Each edit saves the session as an answer
 * does, and the campaign asks its next question again from the log as it
 * is now (the engine runs in the worker). A toast offers Undo after an
 * edit and Redo after an undo (win.undo-edit, win.redo-edit). */
#include "config.h"

#include "sb-window-private.h"

#include "sb-session-history.h"

#include <glib/gi18n.h>

static const char *
editor_name (void)
{
  return g_get_user_name ();
}

/* ---- Rows ------------------------------------------------------------------ */

static char *
format_time (gint64 usec)
{
  g_autoptr (GDateTime) t = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);

  return t ? g_date_time_format (t, "%Y-%m-%d %H:%M") : g_strdup ("?");
}

static void
note_save (GtkWidget *widget, SbWindow *self)
{
  GtkEntry *entry = g_object_get_data (G_OBJECT (widget), "sb-entry");
  GtkPopover *popover = g_object_get_data (G_OBJECT (widget), "sb-popover");
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "sb-index"));
  g_autoptr (GError) error = NULL;

  gtk_popover_popdown (popover);
  if (!sb_window_set_entry_note (self, index, gtk_editable_get_text (GTK_EDITABLE (entry)), &error))
    _sb_window_show_error (self, error->message, FALSE);
}

/* The note's popover, made when it is first opened (a list of hundreds
 * of rows makes none until then). */
static void
create_note_popover (GtkMenuButton *button, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (gtk_widget_get_root (GTK_WIDGET (button)));
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "sb-index"));
  SbSession *session = sb_window_get_session (self);
  const SbLogEntry *e;
  GtkWidget *popover, *box, *entry, *save;

  if (session == NULL || index >= sb_session_get_n_observations (session)
      || gtk_menu_button_get_popover (button))
    return;
  e = sb_session_get_observation (session, index);
  popover = gtk_popover_new ();
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  entry = gtk_entry_new ();
  save = gtk_button_new_with_mnemonic (_("_Save"));
  gtk_editable_set_text (GTK_EDITABLE (entry), e->note ? e->note : "");
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 30);
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("why this answer is what it is"));
  gtk_widget_add_css_class (save, "suggested-action");
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), save);
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_menu_button_set_popover (button, popover);
  for (GtkWidget *w = save; w; w = w == save ? entry : NULL)
    {
      g_object_set_data (G_OBJECT (w), "sb-entry", entry);
      g_object_set_data (G_OBJECT (w), "sb-popover", popover);
      g_object_set_data (G_OBJECT (w), "sb-index", GUINT_TO_POINTER (index));
    }
  g_signal_connect (save, "clicked", G_CALLBACK (note_save), self);
  g_signal_connect (entry, "activate", G_CALLBACK (note_save), self);
}

static GtkWidget *
row_button (const char *icon, const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

/* What the row says under the answer: who removed it and when, its note. */
static char *
row_details (const SbLogEntry *e)
{
  g_autoptr (GString) s = g_string_new (NULL);

  if (sb_log_entry_is_removed (e))
    {
      g_autofree char *when = format_time (e->removed_time);
      if (e->removed_by && *e->removed_by)
        g_string_append_printf (s, _("removed by %s, %s"), e->removed_by, when);
      else
        g_string_append_printf (s, _("removed %s"), when);
    }
  if (e->note && *e->note)
    g_string_append_printf (s, "%s%s%s", s->len ? " · " : "", _("note: "), e->note);
  return s->len ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
}

GtkWidget *
_sb_window_history_row (SbWindow *self, const SbExperiment *exp, const SbLogEntry *e, guint index)
{
  g_autofree char *text = sb_window_describe_entry (exp, e, index);
  g_autofree char *details = row_details (e);
  gboolean removed = sb_log_entry_is_removed (e);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 2);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *toggle, *note;

  gtk_widget_set_margin_start (row, 6);
  gtk_widget_set_margin_end (row, 2);
  gtk_widget_set_margin_top (row, 1);
  gtk_widget_set_margin_bottom (row, 1);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  /* The whole line when it is cut off. */
  gtk_widget_set_tooltip_text (label, text);
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_widget_set_valign (texts, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (texts), label);
  if (removed)
    {
      PangoAttrList *attrs = pango_attr_list_new ();
      pango_attr_list_insert (attrs, pango_attr_strikethrough_new (TRUE));
      gtk_label_set_attributes (GTK_LABEL (label), attrs);
      pango_attr_list_unref (attrs);
      gtk_widget_add_css_class (row, "sb-removed");
      gtk_widget_add_css_class (label, "dim-label");
    }
  if (details)
    {
      GtkWidget *sub = gtk_label_new (details);
      gtk_label_set_xalign (GTK_LABEL (sub), 0);
      gtk_label_set_ellipsize (GTK_LABEL (sub), PANGO_ELLIPSIZE_END);
      gtk_widget_set_tooltip_text (sub, details);
      gtk_widget_add_css_class (sub, "dim-label");
      gtk_widget_add_css_class (sub, "caption");
      gtk_box_append (GTK_BOX (texts), sub);
    }
  gtk_box_append (GTK_BOX (row), texts);

  note = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (note), "document-edit-symbolic");
  gtk_widget_set_tooltip_text (note, _("A note on this answer"));
  gtk_widget_set_valign (note, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (note, "flat");
  g_object_set_data (G_OBJECT (note), "sb-index", GUINT_TO_POINTER (index));
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (note), create_note_popover, NULL, NULL);
  gtk_box_append (GTK_BOX (row), note);

  toggle = removed ? row_button ("edit-undo-symbolic", _("Restore this answer: it counts again"))
                   : row_button ("user-trash-symbolic",
                                 _("Remove this answer: the model no longer uses it (it stays in the file)"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (toggle),
                                  removed ? "win.history-restore" : "win.history-remove");
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (toggle), g_variant_new_uint32 (index));
  gtk_box_append (GTK_BOX (row), toggle);
  g_object_set_data (G_OBJECT (row), "sb-index", GUINT_TO_POINTER (index));
  return row;
}

/* The rows of entries edited since the list last reflected the journal
 * are made again (newest first: entry i is row n - 1 - i). */
void
_sb_window_history_sync_edits (SbWindow *self)
{
  SbSession *session = sb_campaign_get_session (self->campaign);
  guint n_edits = session ? sb_session_get_n_edits (session) : 0;
  guint n = session ? sb_session_get_n_observations (session) : 0;

  if (session == NULL)
    return;
  for (guint k = MIN (self->history_edits, n_edits); k < n_edits; k++)
    {
      guint entry = sb_session_get_edit (session, k)->entry;
      GtkListBoxRow *row;
      if (entry >= n)
        continue;
      row = gtk_list_box_get_row_at_index (self->history_list, n - 1 - entry);
      if (row == NULL)
        continue;
      gtk_list_box_row_set_child (row, _sb_window_history_row (self, sb_session_get_experiment (session),
                                                               sb_session_get_observation (session, entry),
                                                              entry));
    }
  self->history_edits = n_edits;
}

/* ---- Edits and their toast --------------------------------------------------- */

static void
forget_edit_toast (SbWindow *self)
{
  if (self->edit_toast == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->edit_toast, self);
  g_object_remove_weak_pointer (G_OBJECT (self->edit_toast), (gpointer *) &self->edit_toast);
  self->edit_toast = NULL;
}

static void
dismiss_edit_toast (SbWindow *self)
{
  AdwToast *toast = self->edit_toast;

  forget_edit_toast (self);
  if (toast)
    adw_toast_dismiss (toast);
}

static void
show_edit_toast (SbWindow *self, const char *title, const char *button, const char *action)
{
  AdwToast *toast = adw_toast_new (title);

  dismiss_edit_toast (self);
  adw_toast_set_button_label (toast, button);
  adw_toast_set_action_name (toast, action);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  self->edit_toast = toast;
  g_object_add_weak_pointer (G_OBJECT (toast), (gpointer *) &self->edit_toast);
  g_signal_connect_swapped (toast, "button-clicked", G_CALLBACK (forget_edit_toast), self);
  g_signal_connect_swapped (toast, "dismissed", G_CALLBACK (forget_edit_toast), self);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static SbSession *
writable_session (SbWindow *self, GError **error)
{
  SbSession *session = sb_window_get_session (self);
  const char *reason = NULL;

  if (session && !sb_campaign_get_read_only (self->campaign, &reason) && !self->participant_view)
    return session;
  g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID, "%s",
               session == NULL ? _("no session is open")
               : reason ? reason : _("the session cannot be edited now"));
  return NULL;
}

/* After an edit: the toast that offers to undo it (or redo an undo). */
static void
edited (SbWindow *self, SbEditAction action, guint index, gboolean undo)
{
  g_autofree char *title = NULL;
  static const char *const verbs[] = { N_("removed"), N_("restored"), N_("annotated") };

  if (undo)
    title = g_strdup_printf (_("Edit of answer %u undone"), index + 1);
  else
    title = g_strdup_printf (_("Answer %u %s"), index + 1, _(verbs[action]));
  if (undo)
    show_edit_toast (self, title, _("_Redo"), "win.redo-edit");
  else
    show_edit_toast (self, title, _("_Undo"), "win.undo-edit");
  _sb_window_update_history_actions (self);
}

gboolean
sb_window_remove_entry (SbWindow *self, guint index, GError **error)
{
  SbSession *session = writable_session (self, error);

  if (session == NULL || !sb_session_remove_entry (session, index, editor_name (), error))
    return FALSE;
  edited (self, SB_EDIT_REMOVE, index, FALSE);
  return TRUE;
}

gboolean
sb_window_restore_entry (SbWindow *self, guint index, GError **error)
{
  SbSession *session = writable_session (self, error);

  if (session == NULL || !sb_session_restore_entry (session, index, editor_name (), error))
    return FALSE;
  edited (self, SB_EDIT_RESTORE, index, FALSE);
  return TRUE;
}

gboolean
sb_window_set_entry_note (SbWindow *self, guint index, const char *note, GError **error)
{
  SbSession *session = writable_session (self, error);

  if (session == NULL || !sb_session_set_entry_note (session, index, note, editor_name (), error))
    return FALSE;
  edited (self, SB_EDIT_NOTE, index, FALSE);
  return TRUE;
}

static guint
last_edit_entry (SbSession *session)
{
  guint n = sb_session_get_n_edits (session);

  return n ? sb_session_get_edit (session, n - 1)->entry : 0;
}

gboolean
sb_window_undo_edit (SbWindow *self, GError **error)
{
  SbSession *session = writable_session (self, error);

  if (session == NULL || !sb_session_undo_edit (session, editor_name (), error))
    return FALSE;
  edited (self, sb_session_get_edit (session, sb_session_get_n_edits (session) - 1)->action,
          last_edit_entry (session), TRUE);
  return TRUE;
}

gboolean
sb_window_redo_edit (SbWindow *self, GError **error)
{
  SbSession *session = writable_session (self, error);

  if (session == NULL || !sb_session_redo_edit (session, editor_name (), error))
    return FALSE;
  edited (self, sb_session_get_edit (session, sb_session_get_n_edits (session) - 1)->action,
          last_edit_entry (session), FALSE);
  return TRUE;
}

/* ---- Actions -------------------------------------------------------------------- */

static void
report (SbWindow *self, gboolean ok, GError *error)
{
  if (!ok && error)
    {
      g_autofree char *msg = g_strdup_printf (_("The history could not be edited: %s"), error->message);
      _sb_window_show_error (self, msg, FALSE);
    }
}

static void
history_remove_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  report (user_data, sb_window_remove_entry (user_data, g_variant_get_uint32 (p), &error), error);
}

static void
history_restore_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  report (user_data, sb_window_restore_entry (user_data, g_variant_get_uint32 (p), &error), error);
}

static void
history_note_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  guint index;
  const char *note;

  g_variant_get (p, "(u&s)", &index, &note);
  report (user_data, sb_window_set_entry_note (user_data, index, note, &error), error);
}

static void
undo_edit_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  report (user_data, sb_window_undo_edit (user_data, &error), error);
}

static void
redo_edit_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  report (user_data, sb_window_redo_edit (user_data, &error), error);
}

void
_sb_window_update_history_actions (SbWindow *self)
{
  SbSession *session = sb_window_get_session (self);
  gboolean writer = session && !sb_campaign_get_read_only (self->campaign, NULL);

  if (self->participant_view)
    return;
  _sb_window_set_action_enabled (self, "history-remove", writer);
  _sb_window_set_action_enabled (self, "history-restore", writer);
  _sb_window_set_action_enabled (self, "history-note", writer);
  _sb_window_set_action_enabled (self, "undo-edit", writer && sb_session_can_undo_edit (session));
  _sb_window_set_action_enabled (self, "redo-edit", writer && sb_session_can_redo_edit (session));
}

void
_sb_window_install_history_actions (SbWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "history-remove", .activate = history_remove_action, .parameter_type = "u" },
    { .name = "history-restore", .activate = history_restore_action, .parameter_type = "u" },
    { .name = "history-note", .activate = history_note_action, .parameter_type = "(us)" },
    { .name = "undo-edit", .activate = undo_edit_action },
    { .name = "redo-edit", .activate = redo_edit_action },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
}

void
_sb_window_dispose_history (SbWindow *self)
{
  forget_edit_toast (self);
}
