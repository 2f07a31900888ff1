/* sb-link-dialog.h — the link diagnostic of a preference campaign
 * (paper 003; core/sb-link-job.h).
 *
 * A window, transient for the workbench, that runs sb_link_job on its own
 * worker (the session is copied when it opens or on Recompute, so answers
 * given meanwhile do not disturb it) and shows the fitted link
 * P(first candidate preferred | d) with its credible band against the
 * model's probit link Phi(d / (sqrt2 sigma)), the answered duels as rug
 * marks (top: the first candidate won, bottom: the second), and a
 * one-sentence verdict. The plot is an SbChart (hover, zoom, export).
 *
 * ::finished (gboolean success) is emitted on the main thread when a
 * computation ends (success = FALSE: an error is shown instead).
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-link-job.h"
#include "sb-render.h"
#include "sb-session.h"

G_BEGIN_DECLS

#define SB_TYPE_LINK_DIALOG (sb_link_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SbLinkDialog, sb_link_dialog, SB, LINK_DIALOG, GtkWindow)

/* Opens on SESSION (referenced) and starts the computation. */
SbLinkDialog *sb_link_dialog_new (GtkWindow *parent, SbSession *session);

/* Starts the computation again on the session as it is now. */
void sb_link_dialog_recompute (SbLinkDialog *self);

gboolean sb_link_dialog_is_busy (SbLinkDialog *self);

/* The last result (NULL before the first success or after a failure);
 * owned by the dialog. */
const SbLinkResult *sb_link_dialog_get_result (SbLinkDialog *self);

/* The verdict or error text shown (never NULL). */
const char *sb_link_dialog_get_message (SbLinkDialog *self);

/* The chart (for tests and screenshots). */
GtkWidget *sb_link_dialog_get_chart (SbLinkDialog *self);

/* The plot of RES as a scene (pure: also used without a display). */
SbScene *sb_link_scene_new (const SbLinkResult *res);

G_END_DECLS
