/* sb-window-recommend.c — the study's recommendation in the window: the
 * best setting with the model's posterior mean and 95% credible interval,
 * shown under "Best found" when the budget is used and exported as JSON
 * (File ▸ Export Recommendation…). The model is built on the worker
 * (sb_campaign_request_recommendation): the main thread only shows the
 * result and writes the small file. */
#include "config.h"

#include "sb-window-private.h"

#include "sb-recommend.h"

/* An export asked for: the file, and the session it is about (a result
 * that comes after another session was opened is not written there). */
#define EXPORT_KEY "sb-recommendation-export"

typedef struct {
  GFile *file;
  SbSession *session;
} PendingExport;

static void
pending_export_free (PendingExport *p)
{
  g_object_unref (p->file);
  g_object_unref (p->session);
  g_free (p);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PendingExport, pending_export_free)

static void
on_recommendation_ready (SbCampaign *campaign, const SbRecommendation *rec, const GError *error,
                         SbWindow *self)
{
  g_autoptr (PendingExport) pending = g_object_steal_data (G_OBJECT (self), EXPORT_KEY);
  SbSession *session = sb_campaign_get_session (campaign);
  g_autoptr (GError) save_error = NULL;
  g_autofree char *message = NULL;

  if (rec == NULL)
    {
      message = g_strdup_printf ("The recommendation could not be computed: %s",
                                 error ? error->message : "unknown error");
      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
      return;
    }
  sb_duel_panel_set_recommendation (self->duel_panel, rec);
  if (pending == NULL || session == NULL || pending->session != session)
    return;
  if (sb_recommendation_save (sb_session_get_experiment (session), rec, pending->file, &save_error))
    {
      g_autofree char *name = g_file_get_basename (pending->file);
      message = g_strdup_printf ("Recommendation exported to %s", name);
    }
  else
    message = g_strdup_printf ("The recommendation was not exported: %s", save_error->message);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

void
_sb_window_request_recommendation (SbWindow *self)
{
  sb_campaign_request_recommendation (self->campaign);
}

gboolean
sb_window_export_recommendation (SbWindow *self, GFile *file)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  PendingExport *pending;

  if (!sb_campaign_request_recommendation (self->campaign))
    return FALSE;
  pending = g_new0 (PendingExport, 1);
  pending->file = g_object_ref (file);
  pending->session = g_object_ref (sb_campaign_get_session (self->campaign));
  g_object_set_data_full (G_OBJECT (self), EXPORT_KEY, pending, (GDestroyNotify) pending_export_free);
  return TRUE;
}

static void
export_response (GtkNativeDialog *native, int response, SbWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      if (file)
        sb_window_export_recommendation (self, file);
    }
  g_object_unref (native);
}

static void
export_recommendation_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Export Recommendation", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "recommendation.json");
  g_signal_connect (native, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

void
_sb_window_install_recommend (SbWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "export-recommendation", .activate = export_recommendation_action },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  g_signal_connect_object (self->campaign, "recommendation-ready",
                           G_CALLBACK (on_recommendation_ready), self, 0);
}
