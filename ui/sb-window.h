/* sb-window.h — the main workbench window.
 *
 * The window shows a campaign (core/sb-campaign.h: the session, its
 * questions, saving, refits, autoplay) through the duel panel, the plots
 * and the answer history:
 *
 *   answer (key / button) -> sb_campaign_answer -> session appends, saves
 *     -> next question computed and on disk -> ::question-ready -> shown
 *
 * No answer is taken while no question is on screen (the answer actions
 * are disabled and a key rings the bell); Ctrl+Z takes back the last
 * recorded answer.
 *
 * Signals:
 *   ::question-shown     a new question is on screen (after the panel
 *                        was updated)
 *   ::plot-updated       a new SbPlotSnapshot is available
 *                        (sb_window_get_plot_snapshot)
 *   ::fit-finished       a hyperparameter fit was stored in the session
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-campaign.h"
#include "sb-demos.h"
#include "sb-duel-panel.h"
#include "sb-jobs.h"
#include "sb-participant-view.h"
#include "sb-plot-data.h"
#include "sb-session.h"
#include "sb-study-view.h"
#include "sb-worker.h"

G_BEGIN_DECLS

#define SB_TYPE_WINDOW (sb_window_get_type ())
G_DECLARE_FINAL_TYPE (SbWindow, sb_window, SB, WINDOW, GtkApplicationWindow)

SbWindow *sb_window_new (GtkApplication *application);

/* Shows SESSION (a reference is taken) and asks the engine for the first
 * question. */
void sb_window_set_session (SbWindow *self, SbSession *session);
SbSession *sb_window_get_session (SbWindow *self);
/* Opens FILE. When it does not exist and CREATE_FROM_DEMO, a new session
 * of the default demo is created there. A damaged or foreign file is
 * shown as refused (with line and column) and left untouched; returns
 * FALSE then. */
gboolean sb_window_open_file (SbWindow *self, GFile *file, gboolean create_from_demo);
/* Opens FILE read-only and follows it as another process (a lab script
 * driving `skewgp ask` / `tell`) writes it: the plots and the history
 * show each answer as it is saved. */
gboolean sb_window_follow_file (SbWindow *self, GFile *file);
/* A new session for EXP saved under the user's data directory. */
gboolean sb_window_start_experiment (SbWindow *self, const SbExperiment *exp);

SbCampaign *sb_window_get_campaign (SbWindow *self);
SbWorker *sb_window_get_worker (SbWindow *self);
SbDuelPanel *sb_window_get_duel_panel (SbWindow *self);
/* Exports the recommendation (sb-recommend.h) to FILE as JSON: the model
 * is built on the worker, the file written when it is done (a toast says
 * so) and the panel shows the mean and interval. FALSE when no session is
 * open. The File menu's "Export Recommendation…" asks for FILE. */
gboolean sb_window_export_recommendation (SbWindow *self, GFile *file);
/* The question on screen, or NULL while the engine computes. */
const SbProposal *sb_window_get_question (SbWindow *self);
/* TRUE while the next question is computed (or its answer written). */
gboolean sb_window_get_computing (SbWindow *self);
/* The error shown in the window (engine or file), or NULL. */
const char *sb_window_get_error (SbWindow *self);
/* TRUE when the window shows a refused session file. */
gboolean sb_window_get_refused (SbWindow *self);
/* The latest plot snapshot (borrowed), or NULL. */
SbPlotSnapshot *sb_window_get_plot_snapshot (SbWindow *self);
/* Starts a hyperparameter fit now (also win.refit). */
void sb_window_refit (SbWindow *self);

/* Guided demos (ui/sb-demos.h). Shows SESSION (a copy of DEMO's
 * prepared session, sb_demo_copy_session) with the demo's explanation
 * banner: its views as buttons and, for a stepping demo, previous / next
 * step controls (win.demo-previous, win.demo-next) that replay the
 * prepared log one answer at a time, starting at the first answer. The
 * stored hyperparameters (the paper's) are not refitted automatically.
 * Setting another session ends the demo. */
void sb_window_show_demo (SbWindow *self, const SbDemo *demo, SbSession *session);
/* Opens DEMO: a session demo as a copy (sb_demo_copy_session) in a new
 * main window of APP (NULL: PARENT's) with the explanation banner; a
 * playground demo in a new playground of PARENT's application (or the
 * default one). FALSE with ERROR when the copy could not be made
 * (nothing is shown then). */
gboolean sb_window_open_demo (const SbDemo *demo, GtkApplication *app, GtkWindow *parent,
                              GError **error);
/* A session demo (DEMO->session) opened in a new main window of APP, as
 * sb_window_open_demo does; the window (owned by APP) or NULL with ERROR.
 * Once the window holds its copy, DEMO's earlier copies in the default
 * folder that nobody uses are removed (sb_demo_remove_unused_copies). */
GtkWindow *sb_window_open_demo_session (const SbDemo *demo, GtkApplication *app,
                                        GError **error);
/* The demo shown, or NULL. */
const SbDemo *sb_window_get_demo (SbWindow *self);
/* The step shown: the number of log entries of the demo's session. */
guint sb_window_get_demo_step (SbWindow *self);
/* Shows the demo's view NICK (an SbPlotKind nick, as the banner's
 * buttons do; "density" computes the density at the demo's point). */
void sb_window_demo_show_view (SbWindow *self, const char *nick);
/* Replays or takes back answers until STEP answers of a stepping demo are
 * shown. FALSE (nothing changed) when STEP is out of 1..n, the log has
 * left the demo's track, or the window shows no stepping demo. */
gboolean sb_window_demo_go_to_step (SbWindow *self, guint step);

/* Participant mode (also win.participant-mode, F11, which asks for the
 * settings and the code first): the window shows SETTINGS' participant
 * view of its campaign alone, full screen, with every other action and
 * accelerator disabled and closing refused, until the view is unlocked
 * with CODE. FALSE (nothing changes) without a session this window
 * writes, or when already in participant mode. */
gboolean sb_window_enter_participant_mode (SbWindow *self, const SbParticipantSettings *settings,
                                          const char *code);
void sb_window_leave_participant_mode (SbWindow *self);
gboolean sb_window_get_participant_mode (SbWindow *self);
/* The participant view shown, or NULL. */
SbParticipantView *sb_window_get_participant_view (SbWindow *self);

/* Editing the history (also win.history-remove (u), win.history-restore
 * (u), win.history-note ((us)), win.undo-edit, win.redo-edit and the
 * history rows' buttons): remove or restore any past answer, set its note;
 * undo and redo those edits (core/sb-session-history.h). Each shows a
 * toast offering Undo (Redo after an undo). FALSE with ERROR without a
 * session this window writes, or when the edit does not apply. */
gboolean sb_window_remove_entry (SbWindow *self, guint index, GError **error);
gboolean sb_window_restore_entry (SbWindow *self, guint index, GError **error);
gboolean sb_window_set_entry_note (SbWindow *self, guint index, const char *note, GError **error);
gboolean sb_window_undo_edit (SbWindow *self, GError **error);
gboolean sb_window_redo_edit (SbWindow *self, GError **error);

/* Studies (core/sb-study.h; also win.new-study, win.open-study,
 * win.show-study). Creating or opening a study shows the Study view;
 * starting a participant's session opens it in the workbench (as
 * sb_window_open_file does) and the header's Study button returns. */
gboolean sb_window_create_study (SbWindow *self, const char *dir, const SbExperiment *exp,
                                 double repeat_rate, GError **error);
gboolean sb_window_open_study (SbWindow *self, const char *dir, GError **error);
SbStudy *sb_window_get_study (SbWindow *self);
SbStudyView *sb_window_get_study_view (SbWindow *self);
void sb_window_show_study (SbWindow *self);
gboolean sb_window_start_participant_session (SbWindow *self, const char *code, GError **error);

/* The directory new sessions are saved in: the autosave-folder preference
 * (ui/sb-settings.c), by default $XDG_DATA_HOME/skewbench/sessions. */
char *sb_window_default_session_dir (void);

/* "3. B preferred: <B's setting> over <A's setting>", "4. skipped: A …,
 * B …" — one answer as the history and the demo banner name it. */
char *sb_window_describe_entry (const SbExperiment *exp, const SbLogEntry *e, guint index);

G_END_DECLS
