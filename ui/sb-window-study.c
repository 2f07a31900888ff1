/* sb-window-study.c — the window's studies: File → New Study… / Open
 * Study…, the Study view (a page of the window's main stack next to the
 * workbench), and a participant's session opened from it.
 *
 * The window remembers the study it opened: a participant's session runs
 * in the workbench as any session does (the campaign holds its file's
 * lock, saves every answer), and the header's Study button, or
 * win.show-study, goes back to the roster, which reads the files again. */
#include "config.h"

#include "sb-window-private.h"

#include "sb-new-study-dialog.h"
#include "sb-stimulus.h"
#include "sb-stimulus-renderer.h"

#include <glib/gi18n.h>

static void
update_study_actions (SbWindow *self)
{
  gboolean shown = g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "study") == 0;

  if (self->participant_view)
    return;
  _sb_window_set_action_enabled (self, "show-study", self->study != NULL);
  gtk_widget_set_visible (self->study_button, self->study != NULL && !shown);
}

static void
on_exported (SbStudyView *view, const char *where, SbWindow *self)
{
  g_autofree char *text = g_strdup_printf (_("Exported to %s"), where);

  gtk_label_set_text (self->status_label, text);
}

void
sb_window_show_study (SbWindow *self)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  if (self->study == NULL)
    return;
  gtk_stack_set_visible_child_name (self->main_stack, "study");
  gtk_label_set_text (self->title_label, sb_study_get_name (self->study));
  gtk_label_set_text (self->subtitle_label, _("Study"));
  sb_study_view_refresh (self->study_view);
  update_study_actions (self);
}

static void
set_study (SbWindow *self, SbStudy *study)
{
  g_set_object (&self->study, study);
  sb_study_view_set_study (self->study_view, study);
  sb_window_show_study (self);
}

gboolean
sb_window_open_study (SbWindow *self, const char *dir, GError **error)
{
  g_autoptr (SbStudy) study = NULL;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  study = sb_study_open (dir, error);
  if (study == NULL)
    return FALSE;
  set_study (self, study);
  return TRUE;
}

gboolean
sb_window_create_study (SbWindow *self, const char *dir, const SbExperiment *exp,
                        double repeat_rate, GError **error)
{
  g_autoptr (SbStudy) study = NULL;
  g_autoptr (SbExperiment) copy = NULL;
  SbSession *current;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  /* a renderer beside the current session stays found from the study's
   * participants/ folder */
  copy = sb_experiment_copy (exp);
  current = sb_window_get_session (self);
  if (current != NULL && sb_session_get_file (current) != NULL)
    {
      g_autofree char *folder = sb_stimulus_work_dir_for (sb_session_get_file (current));
      sb_stimulus_resolve_command (copy, folder);
    }
  study = sb_study_create (dir, copy, repeat_rate, error);
  if (study == NULL)
    return FALSE;
  set_study (self, study);
  return TRUE;
}

SbStudy *
sb_window_get_study (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->study;
}

SbStudyView *
sb_window_get_study_view (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->study_view;
}

/* Opens CODE's session in the workbench (kept when it is the one shown). */
gboolean
sb_window_start_participant_session (SbWindow *self, const char *code, GError **error)
{
  SbSession *current;
  const SbParticipant *p;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  if (self->study == NULL || (p = sb_study_find (self->study, code)) == NULL)
    {
      g_set_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_UNKNOWN,
                   _("the study has no participant '%s'"), code);
      return FALSE;
    }
  path = sb_study_participant_path (self->study, p->code);
  file = g_file_new_for_path (path);
  current = sb_window_get_session (self);
  if (current && sb_session_get_file (current) && g_file_equal (sb_session_get_file (current), file))
    {
      gtk_stack_set_visible_child_name (self->main_stack, "duel");
      _sb_window_update_titles (self);
    }
  else if (!sb_window_open_file (self, file, FALSE))
    {
      g_set_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID, "%s",
                   self->error ? self->error : path);
      return FALSE;
    }
  /* the window's questions repeat past duels as ask/tell's do */
  sb_campaign_set_repeat_rate (self->campaign, sb_study_get_repeat_rate (self->study));
  update_study_actions (self);
  return TRUE;
}

/* ---- From the view ------------------------------------------------------------- */

static void
on_start_session (SbStudyView *view, const char *code, SbWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (!sb_window_start_participant_session (self, code, &error))
    _sb_window_show_error (self, error->message, FALSE);
}

/* Participant mode one click away: the session, then the existing
 * participant-mode action (its dialog asks for the unlock code). */
static void
on_start_participant_mode (SbStudyView *view, const char *code, SbWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (!sb_window_start_participant_session (self, code, &error))
    {
      _sb_window_show_error (self, error->message, FALSE);
      return;
    }
  g_action_group_activate_action (G_ACTION_GROUP (self), "participant-mode", NULL);
}

static void
on_stack_page (GtkStack *stack, GParamSpec *pspec, SbWindow *self)
{
  update_study_actions (self);
  _sb_window_update_actions (self);
}

/* ---- Actions --------------------------------------------------------------------- */

static void
study_create (SbNewStudyDialog *dialog, SbExperiment *exp, double rate, const char *folder,
              SbWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *parent = g_path_get_dirname (folder);

  g_mkdir_with_parents (parent, 0755);
  if (!sb_window_create_study (self, folder, exp, rate, &error))
    {
      sb_new_study_dialog_show_error (dialog, error->message);
      return;
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
new_study_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  SbSession *session = sb_window_get_session (self);
  SbNewStudyDialog *dialog
    = sb_new_study_dialog_new (GTK_WINDOW (self), session ? sb_session_get_experiment (session) : NULL);

  g_signal_connect_object (dialog, "create", G_CALLBACK (study_create), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
open_study_response (GtkNativeDialog *native, int response, SbWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;

      if (path && !sb_window_open_study (self, path, &error))
        _sb_window_show_error (self, error->message, FALSE);
    }
  g_object_unref (native);
}

static void
open_study_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new (_("Open Study"), GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Open"), _("_Cancel"));

  g_signal_connect (native, "response", G_CALLBACK (open_study_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
show_study_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  sb_window_show_study (SB_WINDOW (user_data));
}

void
_sb_window_install_study_actions (SbWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "new-study", .activate = new_study_action },
    { .name = "open-study", .activate = open_study_action },
    { .name = "show-study", .activate = show_study_action },
  };
  GtkWidget *header = gtk_window_get_titlebar (GTK_WINDOW (self));
  GtkWidget *scroller;

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);

  /* Scrolled: the roster and its chart need more room than a narrow
   * (folded) window has, which the workbench page must keep. */
  scroller = gtk_scrolled_window_new ();
  self->study_view = SB_STUDY_VIEW (sb_study_view_new ());
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->study_view));
  gtk_stack_add_named (self->main_stack, scroller, "study");
  g_signal_connect (self->study_view, "start-session", G_CALLBACK (on_start_session), self);
  g_signal_connect (self->study_view, "start-participant-mode",
                    G_CALLBACK (on_start_participant_mode), self);
  g_signal_connect (self->main_stack, "notify::visible-child-name", G_CALLBACK (on_stack_page), self);
  g_signal_connect (self->study_view, "exported", G_CALLBACK (on_exported), self);

  /* Back to the roster from a participant's session. */
  self->study_button = gtk_button_new_with_mnemonic (_("_Study"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->study_button), "win.show-study");
  gtk_widget_set_tooltip_text (self->study_button, _("Back to the study's roster"));
  gtk_widget_set_visible (self->study_button, FALSE);
  if (GTK_IS_HEADER_BAR (header))
    gtk_header_bar_pack_start (GTK_HEADER_BAR (header), self->study_button);
  update_study_actions (self);
}

void
_sb_window_dispose_study (SbWindow *self)
{
  if (self->main_stack)
    g_signal_handlers_disconnect_by_data (self->main_stack, self);
  g_clear_object (&self->study);
}
