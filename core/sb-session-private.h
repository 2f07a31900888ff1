/* sb-session-private.h — what the session's source files share.
 *
 * The session is one GObject whose code is split by job, each file
 * calling only the ones listed before it:
 *   sb-session-write.c    a session into its document (JSON text);
 *   sb-session.c          the model (experiment, observation log, undo,
 *                         open question, hyperparameters), its signals,
 *                         its checks and its saves (sb-atomic-file.h);
 *   sb-session-parse.c    a session document into a session, and
 *                         reading the file again;
 *   sb-session-csv.c      the observation log as CSV;
 *   sb-session-history.c  the experimenter's edits of the log.
 * This header is below them all: it includes only what the struct is
 * made of, never sb-session.h, so that the writer, which the session
 * calls, does not reach up to it. Not installed, not for the app: the
 * public API is sb-session.h.
 */
#pragma once

#include "sb-experiment.h"
#include "sb-hyper.h"
#include "sb-json-unknown.h"
#include "sb-log-entry.h"
#include "sb-question.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* As G_DECLARE_FINAL_TYPE declares it in sb-session.h. */
typedef struct _SbSession SbSession;

#define SB_SWAP(type, a, b) G_STMT_START { type swap_ = (a); (a) = (b); (b) = swap_; } G_STMT_END

struct _SbSession
{
  GObject parent_instance;

  SbExperiment *experiment;
  GPtrArray *observations;  /* SbLogEntry, owned */
  GFile *file;              /* NULL: not saved anywhere */
  SbHyper hyper;
  GArray *refits;           /* SbHyper: every fit stored, oldest first */
  gint64 created;
  SbQuestion *pending;  /* the open question, NULL: none ("pending") */
  guint64 questions_asked;     /* the largest question id given out */
  GArray *edits;               /* SbEdit: the journal, oldest first */
  GArray *undo_edits;          /* guint: journal records undoable, last on top */
  GArray *redo_edits;          /* guint: journal records undone, last on top */
  SbJsonUnknown *unknown;      /* members of the file this program does not read */
};

/* Saves after a change and emits ::changed (sb-session.c). */
gboolean sb_session_commit_change (SbSession *self, GError **error);

/* TRUE when everything the session holds passes the checks of loading
 * (experiment, every observation, hyperparameters): what passes can be
 * written and reads back. */
gboolean sb_session_check (SbSession *self, GError **error);

G_END_DECLS
