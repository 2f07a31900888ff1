/* sb-window-participant.c — the window's participant mode: the window
 * becomes the participant's screen (ui/sb-participant-view.h), full
 * screen, until the experimenter's code unlocks it.
 *
 * While it lasts the window's content (header bar, plots, history, error
 * bar) is replaced by the view, every window and application action is
 * disabled (so no accelerator reaches the data: Ctrl+Z, Ctrl+O, F9,
 * Ctrl+Q …), the window's single-key answers are left to the view, and
 * the window refuses to close. Unlocking restores all of it. */
#include "config.h"

#include "sb-window-private.h"

#include "sb-participant-dialog.h"

/* Disables every simple action of GROUP that is enabled, remembering it
 * in BLOCKED to enable it again. */
static void
block_actions (GActionMap *group, GPtrArray *blocked)
{
  g_auto (GStrv) names = g_action_group_list_actions (G_ACTION_GROUP (group));

  for (guint i = 0; names[i]; i++)
    {
      GAction *action = g_action_map_lookup_action (group, names[i]);
      if (G_IS_SIMPLE_ACTION (action) && g_action_get_enabled (action))
        {
          g_simple_action_set_enabled (G_SIMPLE_ACTION (action), FALSE);
          g_ptr_array_add (blocked, g_object_ref (action));
        }
    }
}

static void
unblock_actions (GPtrArray *blocked)
{
  for (guint i = 0; i < blocked->len; i++)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (g_ptr_array_index (blocked, i)), TRUE);
  g_ptr_array_set_size (blocked, 0);
}

/* Closing the window would end participant mode. */
static gboolean
refuse_close (GtkWindow *window, gpointer user_data)
{
  g_debug ("participant mode: closing the window refused");
  return TRUE;
}

static gboolean
release_view (gpointer view)
{
  g_object_unref (view);
  return G_SOURCE_REMOVE;
}

void
sb_window_leave_participant_mode (SbWindow *self)
{
  GtkWidget *titlebar;

  g_return_if_fail (SB_IS_WINDOW (self));
  if (self->participant_view == NULL)
    return;
  g_signal_handlers_disconnect_by_func (self, refuse_close, NULL);
  g_signal_handlers_disconnect_by_data (self->participant_view, self);
  /* Unlocking runs inside the view's own handlers (its code entry's
   * ::activate): it goes when they have returned. */
  g_idle_add (release_view, g_object_ref (self->participant_view));
  adw_toast_overlay_set_child (self->toast_overlay, self->participant_saved_child);
  g_clear_object (&self->participant_saved_child);
  self->participant_view = NULL;
  titlebar = gtk_window_get_titlebar (GTK_WINDOW (self));
  if (titlebar)
    gtk_widget_set_visible (titlebar, TRUE);
  gtk_window_unfullscreen (GTK_WINDOW (self));
  unblock_actions (self->participant_blocked);
  _sb_window_update_actions (self);
  g_debug ("participant mode ended");
}

gboolean
sb_window_enter_participant_mode (SbWindow *self, const SbParticipantSettings *settings,
                                  const char *code)
{
  SbSession *session;
  GtkApplication *app;
  GtkWidget *titlebar;
  GtkWidget *view;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (settings != NULL && code != NULL && *code != '\0', FALSE);

  session = sb_window_get_session (self);
  if (self->participant_view || session == NULL
      || sb_campaign_get_read_only (self->campaign, NULL))
    return FALSE;
  sb_campaign_set_autoplay (self->campaign, FALSE);
  view = sb_participant_view_new (self->campaign, settings, code);
  self->participant_view = SB_PARTICIPANT_VIEW (view);
  self->participant_saved_child = g_object_ref (adw_toast_overlay_get_child (self->toast_overlay));
  adw_toast_overlay_set_child (self->toast_overlay, view);
  titlebar = gtk_window_get_titlebar (GTK_WINDOW (self));
  if (titlebar)
    gtk_widget_set_visible (titlebar, FALSE);

  block_actions (G_ACTION_MAP (self), self->participant_blocked);
  app = gtk_window_get_application (GTK_WINDOW (self));
  if (app)
    block_actions (G_ACTION_MAP (app), self->participant_blocked);
  g_signal_connect (self, "close-request", G_CALLBACK (refuse_close), NULL);
  g_signal_connect_swapped (view, "unlocked", G_CALLBACK (sb_window_leave_participant_mode), self);
  gtk_window_fullscreen (GTK_WINDOW (self));
  gtk_widget_grab_focus (view);
  g_debug ("participant mode started");
  return TRUE;
}

gboolean
sb_window_get_participant_mode (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  return self->participant_view != NULL;
}

SbParticipantView *
sb_window_get_participant_view (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->participant_view;
}

static void
participant_start (SbParticipantDialog *dialog, const SbParticipantSettings *settings,
                   const char *code, SbWindow *self)
{
  sb_window_enter_participant_mode (self, settings, code);
}

static void
participant_mode_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  SbParticipantDialog *dialog = sb_participant_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "start", G_CALLBACK (participant_start), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_sb_window_install_participant_actions (SbWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "participant-mode", .activate = participant_mode_action },
  };

  self->participant_blocked = g_ptr_array_new_with_free_func (g_object_unref);
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
}

/* Participant mode ends with the window: the application's actions come
 * back for its other windows. */
void
_sb_window_dispose_participant_mode (SbWindow *self)
{
  if (self->participant_blocked)
    unblock_actions (self->participant_blocked);
  g_clear_pointer (&self->participant_blocked, g_ptr_array_unref);
  g_clear_object (&self->participant_saved_child);
  self->participant_view = NULL;
}
