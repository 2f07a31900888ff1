/* sb-server.h — the study server: a study's participants answer over
 * HTTP, from the participant page or any client of the protocol.
 *
 * One SbServer serves one study and is its only writer while it runs: it
 * holds the study's index lock (sb_study_hold), so `skewgp study add` or a
 * second server is refused naming it, and every answer goes through the
 * question protocol of core (sb-ask-tell.h, sb-population.h): each
 * answer is saved in the participant's session file before its reply is
 * sent, so a kill at any moment loses no acknowledged answer.
 *
 * The protocol (JSON over HTTP; every error is {"error": "..."} with a
 * fitting status):
 *   POST /api/join      {"external_id"?: "...", "consent"?: true}
 *                       -> {"participant": "P-XXXX", "token": "..."}
 *                       403 when the study is closed to new participants
 *                       or consent is asked and not given
 *   GET  /api/question  Authorization: Bearer TOKEN
 *                       -> what `skewgp ask STUDY --participant CODE`
 *                       prints, plus "stimuli" (what each option shows,
 *                       with /api/stimulus/QUESTION/OPTION URLs for files)
 *                       and "progress" {"answers", "budget"}; when done,
 *                       the done document with "completion_url"
 *   POST /api/answer    Bearer TOKEN, the JSON `skewgp tell` takes
 *                       -> what `tell` prints; 409 for a stale answer; an
 *                       identical retry gets the first reply
 *   GET  /api/stimulus/QUESTION/OPTION   Bearer TOKEN: the option's file
 *   GET  /api/info      the page's texts (title, consent, break_every)
 *   GET  /api/status    Bearer ADMIN-TOKEN: the roster, live
 * The participant page (/, /page.js, /page.css) comes from the server's
 * GResources. sb-server-private.h has the pieces.
 *
 * Everything here runs on the thread-default main context of the thread
 * that made the server (the app's main loop, or skewgp serve's); questions
 * and answers run in worker threads, one at a time per participant.
 */
#pragma once

#include <gio/gio.h>

#include "sb-study.h"

G_BEGIN_DECLS

#define SB_SERVER_ERROR (sb_server_error_quark ())
GQuark sb_server_error_quark (void);
typedef enum {
  SB_SERVER_ERROR_LISTEN,    /* the address or port cannot be used        */
  SB_SERVER_ERROR_COMMANDS,  /* the stimuli need commands not allowed     */
  SB_SERVER_ERROR_STUDY,     /* the study cannot be served (settings)     */
} SbServerError;

/* What a participant is doing, as the experimenter sees it. */
typedef enum {
  SB_SERVE_JOINED = 0,   /* joined, no question asked yet              */
  SB_SERVE_ANSWERING,    /* a question is open                         */
  SB_SERVE_DONE,         /* the budget is used                         */
  SB_SERVE_IDLE,         /* no request for SB_SERVER_IDLE_SECONDS      */
} SbServeState;

#define SB_SERVER_IDLE_SECONDS 120

const char *sb_serve_state_to_string (SbServeState state);

typedef struct {
  char *code;
  SbServeState state;
  guint answers;           /* answers given (skips included)             */
  guint budget;
  guint64 question;        /* the open question's id, 0: none            */
  gint64 last_seen;        /* g_get_monotonic_time of the last request   */
} SbServeParticipant;

#define SB_TYPE_SERVER (sb_server_get_type ())
G_DECLARE_FINAL_TYPE (SbServer, sb_server, SB, SERVER, GObject)

/* A server for STUDY (referenced; its roster changes go through it). */
SbServer *sb_server_new (SbStudy *study);

/* Renderer commands of the study's stimuli may run (the experimenter
 * trusts the study); without it a study whose stimuli are made by a
 * command is refused at start. */
void sb_server_set_allow_commands (SbServer *self, gboolean allow);
/* Origins (scheme://host[:port]) whose pages may call the API (CORS);
 * NULL or empty: only the server's own page. */
void sb_server_set_origins (SbServer *self, const char *const *origins);
/* Requests per token (and joins per client address) allowed in a burst,
 * refilled at RATE per second. Defaults: 60 and 20. */
void sb_server_set_limits (SbServer *self, guint burst, double rate);

/* Holds the study, reads its online settings and access file, and listens
 * on ADDRESS (NULL: 127.0.0.1) and PORT (0: a free one). FALSE with ERROR
 * naming what stood in the way (the lock's holder, the port, commands). */
gboolean sb_server_start (SbServer *self, const char *address, guint port, GError **error);
/* Stops listening, waits for the questions and answers under way (their
 * replies are dropped; what they recorded is saved) and releases the
 * study. Safe to call when not running. */
void sb_server_stop (SbServer *self);
gboolean sb_server_is_running (SbServer *self);

SbStudy *sb_server_get_study (SbServer *self);
/* "http://ADDRESS:PORT/" while running, else NULL. */
const char *sb_server_get_url (SbServer *self);
guint sb_server_get_port (SbServer *self);
const char *sb_server_get_admin_token (SbServer *self);

/* The participants who joined online or answered since the start, in the
 * order they were first seen (SbServeParticipant, borrowed; states as of
 * now). */
GPtrArray *sb_server_get_participants (SbServer *self);
/* Requests handled and answers recorded since the start. */
guint64 sb_server_get_n_requests (SbServer *self);
guint64 sb_server_get_n_answers (SbServer *self);
/* Fits finished since the start: population cache refreshes and
 * participants' session refits, each made beside the questions when the
 * refit schedule asked for it. */
guint64 sb_server_get_n_fits (SbServer *self);

/* Signals (main thread):
 *   "participant-joined"  (const char *code): a new participant is in the
 *                         study's roster (before any question)
 *   "participant-changed" (const char *code): joined, asked, answered
 *   "answer-recorded"     (const char *code): an answer was saved
 *   "stopped"             (): the server stopped (sb_server_stop) */

G_END_DECLS
