/* sb-session.h — an experiment and every answer ever given (docs/DESIGN.md §4).
 *
 * The session is the single source of truth of the workbench: the
 * experiment definition plus the full observation log, each observation
 * with its timestamp. Everything the engine computes can be recomputed from
 * it. It is one JSON document
 *
 *   { "format": "skewbench-session", "version": 1,
 *     "experiment": { ... }, "observations": [ ... ],
 *     "pending": { the open question }, "questions_asked": n, ... }
 *
 * The experiment is sb-experiment.h, an observation sb-log-entry.h, the
 * open question sb-question.h (asked and answered through sb-ask-tell.h).
 * The document is written atomically (sb-atomic-file.h) after every change;
 * a symbolic link is written through (its target is replaced, the link
 * stays), and a temporary file left by a save that was killed is removed
 * by the next open or save. A damaged or foreign file is refused with an
 * error that names the line and column (lines may end in LF, CRLF or CR),
 * and it is never overwritten: a session that failed to load has no file
 * and therefore never saves.
 *
 * No GTK here: the session is testable without a display.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sb-experiment.h"
#include "sb-experiment-check.h"
#include "sb-file-lock.h"
#include "sb-hyper.h"
#include "sb-json-unknown.h"
#include "sb-log-entry.h"
#include "sb-question.h"
#include "sb-session-write.h"
#include "sg-bo.h"

G_BEGIN_DECLS

#define SB_TYPE_SESSION (sb_session_get_type ())
G_DECLARE_FINAL_TYPE (SbSession, sb_session, SB, SESSION, GObject)

/* A new session for EXP (copied), without a file. */
SbSession *sb_session_new (const SbExperiment *exp);
/* Reads FILE. On failure returns NULL with ERROR in SB_SESSION_ERROR (or
 * G_IO_ERROR / G_FILE_ERROR for I/O: a directory or another file that is
 * not a regular one is refused naming it); parse errors read
 * "FILE:LINE:COLUMN: message". The file is never modified. */
SbSession *sb_session_load (GFile *file, GError **error);
/* The same from a buffer; NAME is used in messages. */
SbSession *sb_session_load_from_data (const char *data, gssize len,
                                      const char *name, GError **error);

const SbExperiment *sb_session_get_experiment (SbSession *self);
GFile *sb_session_get_file (SbSession *self);
/* Binds the session to FILE and saves it there now (atomically). */
gboolean sb_session_save_as (SbSession *self, GFile *file, GError **error);
/* Saves to the bound file, atomically (temp + rename). A session whose
 * content cannot be read back (an experiment created with a value
 * sb_experiment_validate() refuses) is not written: FALSE with ERROR. */
gboolean sb_session_save (SbSession *self, GError **error);
/* Changes (answers, undo, hyperparameters, the open question) are saved
 * before the call returns; ::saved (guint n, the log length on disk)
 * follows each save of a change. */

guint sb_session_get_n_observations (SbSession *self);
const SbLogEntry *sb_session_get_observation (SbSession *self, guint index);
/* Observations that count as answers (everything except skips and
 * entries the experimenter removed). */
guint sb_session_get_n_answers (SbSession *self);
/* A deep copy of the log (element type SbLogEntry, owns its items). */
GPtrArray *sb_session_dup_observations (SbSession *self);

/* Appending saves the session when it has a file. If saving fails the
 * answer stays in memory, ERROR says why, and FALSE is returned; the caller
 * shows the error. Vectors have the experiment's dimension. An answer that
 * sb_experiment_check_observation() refuses (a coordinate that is not
 * finite or outside the box, a duel of a setting with itself, a value
 * that is not finite, a kind the mode does not ask for) is not recorded:
 * FALSE with ERROR in SB_SESSION_ERROR_INVALID, the log unchanged. */
gboolean sb_session_add_duel (SbSession *self, const double *a, const double *b,
                              int winner, GError **error);
gboolean sb_session_add_value (SbSession *self, const double *x, double value,
                               GError **error);
gboolean sb_session_add_failed (SbSession *self, const double *x, GError **error);
gboolean sb_session_add_skip (SbSession *self, const double *a, const double *b,
                              GError **error);
/* Appends a copy of ENTRY (any kind, with the optional details of an
 * answer; a zero time is stamped now) and saves, with the checks of the
 * add functions above. When ENTRY->question names the open question, that
 * question is answered: it is closed in the same save. */
gboolean sb_session_add_entry (SbSession *self, const SbLogEntry *entry, GError **error);

/* The question asked and not yet answered ("pending" in the file), kept
 * the same way whoever asked it (sb-ask-tell.h opens and answers it), or
 * NULL when there is none. It may be out of date: an entry added or undone
 * since it was asked (Q->n_log differs from the log's length). */
const SbQuestion *sb_session_get_open_question (SbSession *self);
/* The largest question id ever given out (0: none): the next is one more,
 * whoever asks (the window, `skewgp ask`, the study server). */
guint64 sb_session_get_questions_asked (SbSession *self);
/* Stores Q as the open question and saves (when the session has a file).
 * Q->id must be larger than every id given out before; its options must
 * fit the experiment (sb_question_check). FALSE with ERROR otherwise,
 * nothing changed. */
gboolean sb_session_set_open_question (SbSession *self, const SbQuestion *q, GError **error);

/* The index of the log entry that answered question ID, or -1. */
gssize sb_session_find_answer (SbSession *self, guint64 id);

/* Removes the last observation (skips included) and saves; an open
 * question asked after it is dropped. FALSE with ERROR when the log is
 * empty, the entry was edited (sb-session-history.h: it is kept, and can
 * be removed there instead) or saving failed. */
gboolean sb_session_undo (SbSession *self, GError **error);

/* The stored hyperparameters (valid = FALSE when none) and their update;
 * setting them saves the session when it has a file. A set that
 * sb_hyper_validate() refuses is not stored (FALSE with ERROR). Every
 * valid set is also kept in the refit history ("refits" in the file),
 * oldest first: what each fit found, with the answers it saw; undo keeps
 * it. */
const SbHyper *sb_session_get_hyper (SbSession *self);
gboolean sb_session_set_hyper (SbSession *self, const SbHyper *hyper, GError **error);
guint sb_session_get_n_refits (SbSession *self);
/* Reads the bound file again and takes its contents (experiment, log,
 * hyperparameters, refits), emitting ::changed: how a reader follows a
 * session another process writes. FALSE with ERROR (nothing changed) when
 * the file cannot be read or is refused. Writes nothing. */
gboolean sb_session_reload (SbSession *self, GError **error);
/* The write lock of the session file at PATH (core/sb-file-lock.h), taken
 * on the file a symbolic link leads to, so that every path to one session
 * shares one lock: the app holds it while it runs the session, `skewgp
 * new/ask/tell` for each change. PROGRAM names the holder ("skewbench",
 * "skewgp tell"). NULL with G_IO_ERROR_BUSY naming the holder. */
SbFileLock *sb_session_lock_file (const char *path, const char *program, GError **error);
const SbHyper *sb_session_get_refit (SbSession *self, guint index);

/* Changes the number of questions planned (1 .. SB_MAX_BUDGET) and saves,
 * like an answer: FALSE with ERROR when out of range (nothing changed) or
 * when saving failed (the new budget is kept in memory). */
gboolean sb_session_set_budget (SbSession *self, guint budget, GError **error);

/* CSV of the observations: a header row, then one row per observation:
 * index,time,kind,answer,value,a_<name>...,b_<name>...[,c_<name>...],
 * question,shown_order,response_time,confidence,note, with one group of
 * option columns per option the experiment shows (a, b, c, ...). ANSWER
 * is the duel's winner (a or b), the option chosen, a ranking best first
 * ("c a b"), "tie" or "failed"; SHOWN_ORDER the options in presentation
 * order ("b a"); the details are empty when not recorded. */
char *sb_session_to_csv (SbSession *self);
/* The same log in long format, one row per option shown, for analysis in
 * R or pandas (sb-session-csv.c documents the columns). */
char *sb_session_to_csv_long (SbSession *self);
gboolean sb_session_export_csv (SbSession *self, GFile *file, GError **error);

/* The experiment of a session or study file ("experiment", written by
 * sb_experiment_to_node in sb-session-write.h): OBJ read from the text
 * DATA of the file NAME (for "NAME:LINE:COLUMN" messages), checked as a
 * session's experiment is. The members read are marked in SEEN (may be
 * NULL; sb-json-unknown.h). */
SbExperiment *sb_experiment_from_node (JsonObject *obj, const char *name, const char *data,
                                       SbJsonSeen *seen, GError **error);
/* Line and column (1-based) of the first member named KEY in DATA. */
void sb_json_locate_member (const char *data, const char *key, guint *line, guint *column);

/* "'ucb', 'eiig', ... or 'muc'": every acquisition's name in the session
 * file (the engine's), for messages (g_free). */
char *sb_acquisition_known_names (void);

G_END_DECLS
