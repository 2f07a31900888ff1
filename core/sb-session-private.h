/* sb-session-private.h — what the session's source files share.
 *
 * The session is one GObject whose code is split by job:
 *   sb-session.c        the model (experiment, observation log, undo,
 *                       hyperparameters), its signals and when it saves;
 *   sb-session-parse.c  a session document (JSON text) into a session;
 *   sb-session-write.c  a session into its document, and the document
 *                       onto disk;
 *   sb-session-csv.c    the observation log as CSV.
 * Not installed, not for the app: the public API is sb-session.h.
 */
#pragma once

#include "sb-session.h"
#include "sb-session-history.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SB_SWAP(type, a, b) G_STMT_START { type swap_ = (a); (a) = (b); (b) = swap_; } G_STMT_END

struct _SbSession
{
  GObject parent_instance;

  SbExperiment *experiment;
  GPtrArray *observations;  /* SbLogEntry, owned */
  GFile *file;              /* NULL: not saved anywhere */
  SbHyper hyper;
  GArray *refits;           /* SbHyper: every fit stored, oldest first */
  gboolean background_save;
  gint64 created;
  SbPendingQuestion *pending;  /* NULL: no ask/tell question open */
  guint64 questions_asked;     /* the largest question id given out */
  GArray *edits;               /* SbEdit: the journal, oldest first */
  GArray *undo_edits;          /* guint: journal records undoable, last on top */
  GArray *redo_edits;          /* guint: journal records undone, last on top */
};

/* A session's journal array (element SbEdit, cleared with sb_edit_clear). */
GArray *sb_session_edits_new (void);
/* TRUE when EDIT can be in the journal of a log of N_LOG entries that
 * holds N_EDITS records before it; ERROR names what is wrong. */
gboolean sb_session_check_edit (const SbEdit *edit, guint n_log, guint n_edits, GError **error);
/* Saves after a change and emits ::changed (sb-session.c). */
gboolean sb_session_commit_change (SbSession *self, GError **error);

/* The largest counts a session file holds (sb_experiment_validate). */
#define SB_SESSION_MAX_BUDGET SB_MAX_BUDGET
#define SB_SESSION_MAX_INITIAL 1000
#define SB_SESSION_MAX_NUMERIC_EVERY 100000
#define SB_SESSION_MAX_AUTOPLAY_MS 600000

/* TRUE when everything the session holds passes the checks of loading
 * (experiment, every observation, hyperparameters): what passes can be
 * written and reads back. */
gboolean sb_session_check (SbSession *self, GError **error);

/* TRUE when Q can be the pending question of a session of EXP whose
 * log has N_LOG entries and that gave out question ids up to ASKED
 * (Q->id may equal ASKED: the question is that last one). */
gboolean sb_session_check_pending (const SbExperiment *exp, const SbPendingQuestion *q,
                                   guint n_log, guint64 asked, GError **error);
gboolean sb_pending_kind_from_string (const char *name, SbPendingKind *kind);

/* KIND for the log kind NAME ("duel", "value", "failed", "skip"). */
gboolean sb_log_kind_from_string (const char *name, SbLogKind *kind);

/* PATH with its symbolic links followed (as far as they lead: a link to
 * a file that does not exist yet gives that file's path). */
char *sb_session_resolve_path (const char *path);
/* Replaces the file at PATH (through symbolic links) by DATA atomically:
 * a temporary file ".NAME.saving-PID-XXXXXX" next to it, fsync, rename.
 * ERROR (G_FILE_ERROR) names PATH. */
gboolean sb_session_write_file (const char *path, const char *data, gsize length,
                                GError **error);
/* Removes the temporary files of PATH (resolved) whose writer is gone. */
void sb_session_remove_stale_temps (const char *path);

/* The experiment as the session file holds it ("experiment"), and back:
 * OBJ read from the text DATA of the file NAME (for "NAME:LINE:COLUMN"
 * messages), checked as a session's experiment is. */
JsonNode *sb_experiment_to_node (const SbExperiment *exp);
SbExperiment *sb_experiment_from_node (JsonObject *obj, const char *name, const char *data,
                                       GError **error);
/* Line and column (1-based) of the first member named KEY in DATA. */
void sb_json_locate_member (const char *data, const char *key, guint *line, guint *column);

/* CSV fields as every export writes them: TEXT quoted when it holds a
 * comma, quote or line break; V in the shortest form that reads back to
 * the same double (46.8, not 46.799999999999997), nothing when not finite. */
void sb_csv_field (GString *out, const char *text);
void sb_csv_number (GString *out, double v);

/* TIME_US (microseconds since the epoch) as ISO 8601 UTC ("" if out of range). */
char *sb_session_format_time (gint64 time_us);

G_END_DECLS
