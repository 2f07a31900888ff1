/* sb-server-private.h — what the study server's files share: the object,
 * the replies and the worker jobs (sb-server.c routes and guards,
 * sb-server-api.c answers the protocol, sb-server-stimuli.c describes and
 * serves what each option shows). */
#pragma once

#include <libsoup/soup.h>

#include "sb-jobs.h"
#include "sb-question.h"
#include "sb-serve-store.h"
#include "sb-server.h"
#include "sb-stimulus-renderer.h"

G_BEGIN_DECLS

/* Too Many Requests (RFC 6585), which libsoup 3.2 does not name. */
#define SB_STATUS_TOO_MANY_REQUESTS 429

/* The largest request body taken (413 beyond). */
#define SB_SERVER_MAX_BODY (64 * 1024)
/* A file served as a stimulus is at most this large. */
#define SB_SERVER_MAX_STIMULUS ((goffset) 64 * 1024 * 1024)
/* A connection that has not sent a whole request after this long is
 * closed (slow clients). */
#define SB_SERVER_REQUEST_SECONDS 15

/* What a file was when something was made from it: that holds while the
 * file is unchanged (every save replaces the file). */
typedef struct {
  guint64 dev, ino, size;
  gint64 mtime_ns, ctime_ns;
} SbFileStamp;

/* A participant's open question (or done document) as the last job made
 * it, with the session file it was made from. */
typedef struct {
  char *text;
  SbFileStamp stamp;
  guint answers;
  gboolean done;
  guint64 question;
} SbServeReady;

typedef struct {
  SbServeParticipant pub;
  char *path;               /* the session file                          */
  GMutex lock;              /* the session file: a job or a refit's store */
  GHashTable *replies;      /* question id -> first reply text (retries)  */
  /* on the main context only: their jobs run one at a time, in order,
   * and a job waiting for its turn holds no thread */
  gboolean busy;            /* a job of theirs is in a worker             */
  GQueue waiting;           /* their jobs after it                        */
  SbServeReady ready;       /* their open question, while the file holds  */
} SbServeLive;

/* STAMP of the file at PATH; FALSE when it cannot be read. */
gboolean _sb_file_stamp (const char *path, SbFileStamp *stamp);
void _sb_serve_ready_clear (SbServeReady *ready);

struct _SbServer
{
  GObject parent_instance;

  SbStudy *study;
  char *dir;                /* the study folder, canonical               */
  char *real_dir;           /* the same with links resolved              */
  SoupServer *soup;
  char *url;
  guint port;
  char *admin_token;
  gboolean allow_commands;
  GStrv origins;
  guint burst;
  double rate;
  gboolean running;

  SbServeSettings settings;
  char *consent_sha256;     /* of settings.consent, NULL without one     */
  SbServeAccess *access;
  SbStimulusRenderer *renderer;  /* commands' stimuli, when allowed      */

  GHashTable *live;         /* code -> SbServeLive (owned)               */
  GThreadPool *jobs;        /* questions and answers (sb-server-api.c)    */
  GPtrArray *live_order;    /* SbServeParticipant (borrowed from live)   */
  GHashTable *buckets;      /* rate key -> SbRateBucket                  */
  guint n_pending;          /* jobs under way                            */
  struct {                  /* fits beside the questions (sb-server-fits.c) */
    GThreadPool *pool;      /* threads at a lower priority than questions */
    GCancellable *cancellable;
    GHashTable *refitting;  /* codes whose session is being refitted      */
    gboolean refreshing;    /* the population cache is being refreshed    */
    gboolean refresh_again; /* answers came in meanwhile that ask for one */
    guint n_running;
    guint64 n_refreshes, n_refits;
  } fits;
  guint64 n_requests;
  guint64 n_answers;
  gint64 started;
};

/* A reply: STATUS with the JSON document TEXT (taken). */
void _sb_server_reply_json (SbServer *self, SoupServerMessage *msg, guint status, char *text);
/* A reply {"error": MESSAGE}. */
void _sb_server_reply_error (SbServer *self, SoupServerMessage *msg, guint status,
                             const char *format, ...) G_GNUC_PRINTF (4, 5);
/* {"error": MESSAGE} as text. */
char *_sb_server_error_text (const char *message);
/* The document NODE as compact text. */
char *_sb_server_json_text (JsonNode *node);
/* The request's body as JSON, or NULL after a 400 reply. */
JsonNode *_sb_server_read_body (SbServer *self, SoupServerMessage *msg);
/* The live record of CODE, made on first sight. */
SbServeLive *_sb_server_live (SbServer *self, const char *code);
void _sb_server_changed (SbServer *self, const char *code, gboolean answered);
/* CODE was added to the study's roster by a join. */
void _sb_server_joined (SbServer *self, const char *code);

/* sb-server-api.c: the protocol's routes, and the worker threads of
 * questions and answers (started and stopped with the server). */
void _sb_server_jobs_start (SbServer *self);
void _sb_server_jobs_stop (SbServer *self);
void _sb_server_join (SbServer *self, SoupServerMessage *msg);
void _sb_server_question (SbServer *self, SoupServerMessage *msg, const char *code);
void _sb_server_answer (SbServer *self, SoupServerMessage *msg, const char *code);
void _sb_server_info (SbServer *self, SoupServerMessage *msg);
void _sb_server_status (SbServer *self, SoupServerMessage *msg);

/* sb-server-fits.c: the fits the refit schedule asks for, each in a
 * thread of its own, never in front of a question. Start and stop go
 * with the server's; _due is called on the main context after a question
 * or answer job: POPULATION when the study's population cache is due,
 * *SESSION_INPUT (taken) the snapshot of CODE's session when its own
 * refit is due. */
void _sb_server_fits_start (SbServer *self);
void _sb_server_fits_due (SbServer *self, const char *code, SbJobInput **session_input,
                          gboolean population);
void _sb_server_fits_stop (SbServer *self);

/* sb-server-stimuli.c: what each option of Q shows, as the "stimuli"
 * array of the question document (computed on any thread). */
JsonNode *_sb_server_stimuli_json (const SbExperiment *exp, const SbQuestion *q);
/* The stimulus kind EXP's options show: its "stimulus", or FILE for a
 * candidate set of images and sounds without one. */
SbStimulusKind _sb_server_stimulus_kind (const SbExperiment *exp);
/* GET /api/stimulus/QUESTION/OPTION for CODE. */
void _sb_server_stimulus (SbServer *self, SoupServerMessage *msg, const char *code,
                          const char *rest);
/* The file at PATH when it lies inside the folder REAL_DIR (links
 * resolved), opened without following a link, a regular file of at most
 * SB_SERVER_MAX_STIMULUS bytes; NULL with ERROR otherwise. */
GBytes *_sb_server_read_inside (const char *real_dir, const char *path, GError **error);

G_END_DECLS
