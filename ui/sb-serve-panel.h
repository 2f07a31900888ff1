/* sb-serve-panel.h — the Study view's "Serve online": the study server
 * (server/sb-server.h) in process.
 *
 * The experimenter chooses the address and port and starts serving; the
 * panel then shows the participant link (to copy, or as a QR code for a
 * phone), the experimenter's admin token, and every participant seen
 * since the start, live: joined, answering question n, done, idle. The
 * server holds the study's lock while it runs (no other program writes
 * the study meanwhile; the view's own roster edits go through the same
 * study object). A study whose stimuli are made by a command is served
 * only when the experimenter ticks "Run the study's stimulus command".
 *
 * Signals:
 *   ::study-changed ()    a participant joined or an answer was recorded
 *                         (the view refreshes its roster and population
 *                         plot, at most every SB_SERVE_PANEL_REFRESH_MS)
 *   ::serving-changed ()  serving started or stopped
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-server.h"
#include "sb-study.h"

G_BEGIN_DECLS

#define SB_SERVE_PANEL_REFRESH_MS 2000

#define SB_TYPE_SERVE_PANEL (sb_serve_panel_get_type ())
G_DECLARE_FINAL_TYPE (SbServePanel, sb_serve_panel, SB, SERVE_PANEL, GtkWidget)

GtkWidget *sb_serve_panel_new (void);

/* The study to serve (a reference is taken; NULL: none). Serving stops
 * when the study changes. */
void sb_serve_panel_set_study (SbServePanel *self, SbStudy *study);

/* Starts serving on ADDRESS and PORT (the panel's fields are set to
 * them; NULL / G_MAXUINT: the fields' values). FALSE with ERROR, which
 * the panel also shows. */
gboolean sb_serve_panel_start (SbServePanel *self, const char *address, guint port,
                               GError **error);
void sb_serve_panel_stop (SbServePanel *self);
/* The running server, or NULL. */
SbServer *sb_serve_panel_get_server (SbServePanel *self);
/* What the panel's row of CODE says ("joined", "answering question 3",
 * "done", "idle"), or NULL when it shows no such participant. */
const char *sb_serve_panel_get_row_state (SbServePanel *self, const char *code);
/* The QR code's symbol width in modules (0: none shown). */
guint sb_serve_panel_get_qr_size (SbServePanel *self);

G_END_DECLS
