/* sb-server-api.c — the study server's protocol: join, question, answer,
 * info and status (sb-server.h). Questions and answers run in the
 * server's worker threads, one at a time per participant (queued on the
 * main context, so that a request waiting for its turn holds no thread),
 * each under the session file's write lock, through core's question
 * protocol; the reply is sent from the main context once the session is
 * saved. The question an answer's job makes next is kept in memory and
 * answers the participant's next request while the file is unchanged. */
#include "config.h"

#include "sb-server-private.h"

#include "sb-ask-tell.h"
#include "sb-confidence-scale.h"
#include "sb-json-write.h"
#include "sb-population.h"
#include "sb-question-json.h"

#include <string.h>

/* ---- Jobs ------------------------------------------------------------------ */

typedef struct _Job Job;
typedef void (*JobFunc) (Job *job);

struct _Job {
  gint refs;
  SbServer *self;           /* referenced */
  SoupServerMessage *msg;   /* referenced */
  SbServeLive *live;        /* the server's: lives as long as it does */
  GMainContext *context;
  JobFunc func;             /* run in a worker with live->lock held      */
  char *code, *path, *dir;
  char *completion;         /* the completion URL, or NULL               */
  SbAnswer answer;
  /* results, read on the main context */
  guint status;
  char *body;
  gboolean delivered, gone;
  gboolean answered;        /* an answer was recorded by this job        */
  gboolean known;           /* the fields below were read from the session */
  guint answers;
  gboolean done;
  guint64 open_question;
  SbServeReady made;        /* the open question after the job, if made  */
  /* fits the schedule asks for, started on the main context */
  gboolean population;      /* questions from the study's population model */
  gboolean population_due;
  SbJobInput *refit;        /* the session's snapshot for its own refit   */
};

static void
job_unref (Job *job)
{
  if (!g_atomic_int_dec_and_test (&job->refs))
    return;
  g_signal_handlers_disconnect_by_data (job->msg, job);
  g_object_unref (job->msg);
  g_object_unref (job->self);
  g_main_context_unref (job->context);
  g_free (job->code);
  g_free (job->path);
  g_free (job->dir);
  g_free (job->completion);
  g_free (job->body);
  _sb_serve_ready_clear (&job->made);
  g_clear_pointer (&job->refit, sb_job_input_free);
  g_free (job);
}

static void
message_gone (SoupServerMessage *msg, Job *job)
{
  job->gone = TRUE;
}

static Job *
job_new (SbServer *self, SoupServerMessage *msg, const char *code, JobFunc func)
{
  Job *job = g_new0 (Job, 1);

  job->refs = 1;
  job->self = g_object_ref (self);
  job->msg = g_object_ref (msg);
  job->live = _sb_server_live (self, code);
  job->context = g_main_context_ref_thread_default ();
  job->func = func;
  job->code = g_strdup (code);
  job->path = g_strdup (job->live->path);
  job->dir = g_strdup (self->dir);
  job->completion = g_strdup (self->settings.completion_url);
  job->population = sb_study_get_model (self->study) == SB_STUDY_MODEL_HIERARCHICAL
                    && sb_population_can_propose (sb_study_get_experiment (self->study));
  g_signal_connect (msg, "disconnected", G_CALLBACK (message_gone), job);
  return job;
}

static void
show_state (SbServeParticipant *p, guint answers, gboolean done, guint64 question)
{
  p->answers = answers;
  p->question = question;
  p->state = done ? SB_SERVE_DONE : question ? SB_SERVE_ANSWERING : SB_SERVE_JOINED;
  p->last_seen = g_get_monotonic_time ();
}

/* On the main context: the reply goes out (once). */
static void
deliver (Job *job)
{
  SbServer *self = job->self;

  if (job->delivered)
    return;
  job->delivered = TRUE;
  if (job->known)
    show_state (&job->live->pub, job->answers, job->done, job->open_question);
  if (!job->gone && self->running)
    {
      _sb_server_reply_json (self, job->msg, job->status, g_steal_pointer (&job->body));
      soup_server_message_unpause (job->msg);
    }
  if (job->answered || job->known)
    _sb_server_changed (self, job->code, job->answered);
}

static gboolean
deliver_idle (gpointer data)
{
  deliver (data);
  return G_SOURCE_REMOVE;
}

/* TRUE when LIVE's open question, as its last job made it, still holds:
 * the session file has not changed since (a refit's store, or another
 * program, sends the question through a job again). */
static gboolean
ready_holds (SbServeLive *live)
{
  SbFileStamp now;

  return live->ready.text != NULL && _sb_file_stamp (live->path, &now)
         && memcmp (&now, &live->ready.stamp, sizeof now) == 0;
}

/* The open question from memory, with no thread and no file read. */
static void
reply_ready (SbServer *self, SoupServerMessage *msg, SbServeLive *live)
{
  show_state (&live->pub, live->ready.answers, live->ready.done, live->ready.question);
  _sb_server_reply_json (self, msg, SOUP_STATUS_OK, g_strdup (live->ready.text));
  _sb_server_changed (self, live->pub.code, FALSE);
}

static void question_locked (Job *job);

/* The next of LIVE's waiting jobs: a question whose answer is in memory
 * is answered at once, anything else goes to a worker. */
static void
start_next (SbServer *self, SbServeLive *live)
{
  Job *job;

  while (!live->busy && (job = g_queue_pop_head (&live->waiting)) != NULL)
    {
      if (self->running && !(job->func == question_locked && ready_holds (live)))
        {
          live->busy = TRUE;
          g_thread_pool_push (self->jobs, job, NULL);
          return;
        }
      if (self->running && !job->gone)
        {
          reply_ready (self, job->msg, live);
          soup_server_message_unpause (job->msg);
        }
      job->delivered = TRUE;
      self->n_pending--;
      job_unref (job);
    }
}

static gboolean
job_finished (gpointer data)
{
  Job *job = data;
  SbServer *self = job->self;
  SbServeLive *live = job->live;

  deliver (job);
  if (job->made.text != NULL)
    {
      _sb_serve_ready_clear (&live->ready);
      live->ready = job->made;
      memset (&job->made, 0, sizeof job->made);
    }
  live->busy = FALSE;
  self->n_pending--;
  _sb_server_fits_due (self, job->code, &job->refit, job->population_due);
  start_next (self, live);
  job_unref (job);
  return G_SOURCE_REMOVE;
}

/* In a worker: the job, with the participant's session to itself; then
 * back to the main context. */
static void
job_thread (gpointer data, gpointer user_data)
{
  Job *job = data;

  g_mutex_lock (&job->live->lock);
  job->func (job);
  g_mutex_unlock (&job->live->lock);
  g_main_context_invoke_full (job->context, G_PRIORITY_DEFAULT, job_finished, job, NULL);
}

/* JOB runs after the participant's jobs before it; MSG waits, paused. */
static void
run_job (Job *job)
{
  SbServer *self = job->self;

  soup_server_message_pause (job->msg);
  self->n_pending++;
  g_queue_push_tail (&job->live->waiting, job);
  start_next (self, job->live);
}

void
_sb_server_jobs_start (SbServer *self)
{
  /* a few more workers than cores: a worker may wait for its fsync, but
   * more questions at once than cores only make each of them later */
  self->jobs = g_thread_pool_new (job_thread, NULL, (int) g_get_num_processors () + 2, FALSE,
                                  NULL);
}

void
_sb_server_jobs_stop (SbServer *self)
{
  if (self->jobs != NULL)
    g_thread_pool_free (g_steal_pointer (&self->jobs), FALSE, TRUE);
}

/* The reply in JOB: STATUS with {"error": MESSAGE}. */
static void
job_error (Job *job, guint status, const char *message)
{
  job->status = status;
  g_free (job->body);
  job->body = _sb_server_error_text (message);
}

static void
job_note_session (Job *job, SbSession *session)
{
  const SbQuestion *q = sb_ask_tell_current (session);

  job->known = TRUE;
  job->answers = sb_session_get_n_answers (session);
  job->done = sb_ask_tell_is_done (session);
  job->open_question = q ? q->id : 0;
}

/* The participant's session, loaded under its write lock (*LOCK), or NULL
 * with the job's error reply set. */
static SbSession *
job_open_session (Job *job, SbFileLock **lock)
{
  g_autoptr (GError) err = NULL;
  g_autoptr (GFile) file = NULL;
  SbSession *session;

  *lock = sb_session_lock_file (job->path, "skewgp serve", &err);
  if (*lock == NULL)
    {
      /* another program (skewgp tell, the app) writes this participant's
       * session just now: the client may try again */
      job_error (job, SOUP_STATUS_SERVICE_UNAVAILABLE, err->message);
      return NULL;
    }
  file = g_file_new_for_path (job->path);
  session = sb_session_load (file, &err);
  if (session == NULL)
    {
      g_warning ("%s", err->message);
      job_error (job, SOUP_STATUS_INTERNAL_SERVER_ERROR,
                 "the participant's session cannot be read (the experimenter is told)");
      g_clear_pointer (lock, sb_file_lock_release);
    }
  return session;
}

/* ---- Questions -------------------------------------------------------------- */

/* The open question of SESSION, proposing one when none is open; NULL
 * when done (no error) or with ERROR. */
static const SbQuestion *
ask (Job *job, SbSession *session, GError **error)
{
  g_autoptr (SbStudy) study = NULL;
  const SbQuestion *q = sb_ask_tell_current (session);
  SbModelInfo info = { 0 };
  GError *err = NULL;

  if (q != NULL || sb_ask_tell_is_done (session))
    return q;
  /* a study object of this thread's own: the server's is the main
   * context's (its roster changes as people join) */
  study = sb_study_open (job->dir, error);
  if (study == NULL)
    return NULL;
  q = sb_population_ask (study, job->code, session, &info, &err);
  /* the population cache's refresh when the schedule asks for it, or
   * when a question needs a cache that is not there */
  if (job->population)
    job->population_due = g_error_matches (err, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT)
                          || ((info.kind == SB_MODEL_EXACT || info.kind == SB_MODEL_POPULATION)
                              && sb_fit_schedule_due (info.answers, info.fit_answers > 0,
                                                      info.fit_answers));
  if (q == NULL && g_error_matches (err, SB_QUESTION_ERROR, SB_QUESTION_ERROR_DONE))
    g_clear_error (&err);
  else if (q == NULL)
    g_propagate_error (error, err);
  return q;
}

/* The question document of Q (or the done document when Q is NULL) for
 * SESSION, kept in job->made with the session file it was made from
 * (still under the file's lock). */
static void
job_make_question (Job *job, SbSession *session, const SbQuestion *q)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  g_autoptr (JsonNode) doc = q ? sb_question_to_json (q, exp)
                               : sb_question_progress_to_json (session);
  JsonObject *obj = json_node_get_object (doc);

  if (q != NULL)
    {
      JsonObject *progress = json_object_new ();
      json_object_set_member (obj, "stimuli", _sb_server_stimuli_json (exp, q));
      json_object_set_int_member (progress, "answers", sb_session_get_n_answers (session));
      json_object_set_int_member (progress, "budget", exp->budget);
      json_object_set_object_member (obj, "progress", progress);
    }
  else if (job->completion != NULL)
    json_object_set_string_member (obj, "completion_url", job->completion);
  _sb_serve_ready_clear (&job->made);
  if (!_sb_file_stamp (job->path, &job->made.stamp))
    return;
  job->made.text = _sb_server_json_text (doc);
  job->made.answers = sb_session_get_n_answers (session);
  job->made.done = sb_ask_tell_is_done (session);
  job->made.question = q ? q->id : 0;
}

/* Under the participant's lock: the open question, or a new one. */
static void
question_locked (Job *job)
{
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = job_open_session (job, &lock);
  g_autoptr (GError) err = NULL;
  const SbQuestion *q;

  if (session == NULL)
    return;
  q = ask (job, session, &err);
  if (g_error_matches (err, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT))
    /* the cache it needs is being made (job->population_due) */
    job_error (job, SOUP_STATUS_SERVICE_UNAVAILABLE,
               "the study's model is being brought up to date: try again in a moment");
  else if (q == NULL && err != NULL)
    {
      g_warning ("participant %s: %s", job->code, err->message);
      job_error (job, SOUP_STATUS_INTERNAL_SERVER_ERROR, err->message);
    }
  else
    {
      job_make_question (job, session, q);
      job_note_session (job, session);
      if (job->made.text == NULL)
        job_error (job, SOUP_STATUS_INTERNAL_SERVER_ERROR,
                   "the participant's session file cannot be read");
      else
        {
          job->status = SOUP_STATUS_OK;
          g_free (job->body);
          job->body = g_strdup (job->made.text);
        }
    }
}

void
_sb_server_question (SbServer *self, SoupServerMessage *msg, const char *code)
{
  SbServeLive *live = _sb_server_live (self, code);

  /* the question the last answer's job made while its reply travelled */
  if (!live->busy && ready_holds (live))
    reply_ready (self, msg, live);
  else
    run_job (job_new (self, msg, code, question_locked));
}

/* ---- Answers ---------------------------------------------------------------- */

static guint
status_for_tell_error (const GError *err)
{
  if (g_error_matches (err, SB_QUESTION_ERROR, SB_QUESTION_ERROR_STALE)
      || g_error_matches (err, SB_QUESTION_ERROR, SB_QUESTION_ERROR_DONE))
    return SOUP_STATUS_CONFLICT;
  if (err->domain == SB_QUESTION_ERROR || err->domain == SB_SESSION_ERROR)
    return SOUP_STATUS_BAD_REQUEST;
  return SOUP_STATUS_INTERNAL_SERVER_ERROR;
}

/* Under the participant's lock: the answer recorded (or recognised as a
 * retry, or refused), then the next question made. */
static void
answer_locked (Job *job)
{
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = job_open_session (job, &lock);
  g_autoptr (GError) err = NULL;
  guint64 id = job->answer.question;
  const SbQuestion *next;

  if (session == NULL)
    return;
  if (sb_ask_tell_is_recorded (session, &job->answer))
    {
      /* a retry of an answer already recorded (its reply was lost) */
      const char *first = g_hash_table_lookup (job->live->replies, &id);
      g_autoptr (JsonNode) doc = first ? NULL : sb_question_recorded_to_json (session, id);
      job->status = SOUP_STATUS_OK;
      job->body = first ? g_strdup (first) : _sb_server_json_text (doc);
      job_note_session (job, session);
      return;
    }
  if (!sb_ask_tell_tell (session, &job->answer, &err))
    {
      job_error (job, status_for_tell_error (err), err->message);
      job_note_session (job, session);
      return;
    }
  {
    g_autoptr (JsonNode) doc = sb_question_recorded_to_json (session, id);
    job->status = SOUP_STATUS_OK;
    job->body = _sb_server_json_text (doc);
  }
  g_hash_table_insert (job->live->replies, g_memdup2 (&id, sizeof id), g_strdup (job->body));
  job->answered = TRUE;
  job_note_session (job, session);
  /* a session asked from its own model gets its own refits */
  if (!job->population && sb_session_refit_due (session))
    job->refit = sb_job_input_new (session);
  /* saved: the reply goes out now, and the next question is made while
   * the client reads it; the client's request for it waits for this job
   * and is answered from job->made */
  g_atomic_int_inc (&job->refs);
  g_main_context_invoke_full (job->context, G_PRIORITY_DEFAULT, deliver_idle, job,
                              (GDestroyNotify) job_unref);
  next = ask (job, session, &err);
  if (next == NULL && err != NULL)
    g_warning ("participant %s: the next question: %s", job->code, err->message);
  else
    job_make_question (job, session, next);
}

void
_sb_server_answer (SbServer *self, SoupServerMessage *msg, const char *code)
{
  g_autoptr (JsonNode) root = _sb_server_read_body (self, msg);
  g_autoptr (GError) err = NULL;
  SbAnswer answer;
  Job *job;

  if (root == NULL)
    return;
  if (!sb_answer_from_json (root, &answer, &err))
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_BAD_REQUEST, "%s", err->message);
      return;
    }
  job = job_new (self, msg, code, answer_locked);
  job->answer = answer;
  run_job (job);
}

/* ---- Join ----------------------------------------------------------------------- */

/* The join document's members: FALSE after a 400 reply. */
static gboolean
read_join (SbServer *self, SoupServerMessage *msg, JsonNode *root, const char **external_id,
           gboolean *consent)
{
  JsonObject *obj = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  g_autoptr (GList) members = obj ? json_object_get_members (obj) : NULL;
  JsonNode *node;

  *external_id = NULL;
  *consent = FALSE;
  if (obj == NULL)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_BAD_REQUEST,
                              "expected {\"external_id\"?: \"...\", \"consent\"?: true}");
      return FALSE;
    }
  for (GList *m = members; m; m = m->next)
    if (!g_str_equal (m->data, "external_id") && !g_str_equal (m->data, "consent"))
      {
        _sb_server_reply_error (self, msg, SOUP_STATUS_BAD_REQUEST,
                                "unknown member '%s' (expected external_id, consent)",
                                (const char *) m->data);
        return FALSE;
      }
  node = json_object_get_member (obj, "external_id");
  if (node && !JSON_NODE_HOLDS_NULL (node))
    {
      const char *id = JSON_NODE_HOLDS_VALUE (node)
                       && json_node_get_value_type (node) == G_TYPE_STRING
                       ? json_node_get_string (node) : NULL;
      gsize n = id ? strlen (id) : 0;
      gboolean printable = id != NULL;
      for (gsize i = 0; id && i < n; i++)
        printable &= g_ascii_isprint (id[i]);
      if (id == NULL || n == 0 || n > SB_SERVE_MAX_EXTERNAL_ID || !printable)
        {
          _sb_server_reply_error (self, msg, SOUP_STATUS_BAD_REQUEST,
                                  "'external_id' must be 1 to %d printable ASCII characters",
                                  SB_SERVE_MAX_EXTERNAL_ID);
          return FALSE;
        }
      *external_id = id;
    }
  node = json_object_get_member (obj, "consent");
  if (node && !(JSON_NODE_HOLDS_VALUE (node)
                && json_node_get_value_type (node) == G_TYPE_BOOLEAN))
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_BAD_REQUEST, "'consent' must be true or false");
      return FALSE;
    }
  *consent = node && json_node_get_boolean (node);
  return TRUE;
}

static void
reply_joined (SbServer *self, SoupServerMessage *msg, const char *code, char *token,
              gboolean returning)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *owned = token;

  json_builder_begin_object (b);
  sb_json_add_string (b, "participant", code);
  sb_json_add_string (b, "token", token);
  if (returning)
    sb_json_add_bool (b, "returning", TRUE);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  _sb_server_reply_json (self, msg, SOUP_STATUS_OK, _sb_server_json_text (root));
  _sb_server_live (self, code);
  _sb_server_changed (self, code, FALSE);
}

/* The same external id joins once: a new token for its participant. */
static void
rejoin (SbServer *self, SoupServerMessage *msg, const char *code)
{
  const SbParticipant *p = sb_study_find (self->study, code);
  g_autoptr (GError) err = NULL;
  char *token;

  if (p == NULL || p->status != SB_PARTICIPANT_ACTIVE)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_FORBIDDEN, "participant %s is %s", code,
                              p ? sb_participant_status_to_string (p->status)
                                : "no longer in the study");
      return;
    }
  token = sb_serve_access_grant (self->access, p->code, NULL, NULL, &err);
  if (token == NULL)
    _sb_server_reply_error (self, msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "%s", err->message);
  else
    reply_joined (self, msg, p->code, token, TRUE);
}

void
_sb_server_join (SbServer *self, SoupServerMessage *msg)
{
  g_autoptr (JsonNode) root = _sb_server_read_body (self, msg);
  g_autoptr (GError) err = NULL;
  const char *external_id, *known;
  const SbParticipant *p;
  gboolean consent;
  char *token;

  if (root == NULL || !read_join (self, msg, root, &external_id, &consent))
    return;
  known = sb_serve_access_find_external (self->access, external_id);
  if (known != NULL)
    {
      rejoin (self, msg, known);
      return;
    }
  if (!self->settings.open)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_FORBIDDEN,
                              "the study is closed to new participants");
      return;
    }
  if (self->settings.max_participants > 0
      && sb_serve_access_get_n (self->access) >= self->settings.max_participants)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_FORBIDDEN,
                              "the study has all the participants it needs");
      return;
    }
  if (self->consent_sha256 != NULL && !consent)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_FORBIDDEN,
                              "taking part needs your consent (\"consent\": true after "
                              "reading the consent text of /api/info)");
      return;
    }
  p = sb_study_add_participant (self->study, NULL, NULL, &err);
  if (p == NULL)
    {
      g_warning ("join: %s", err->message);
      _sb_server_reply_error (self, msg, SOUP_STATUS_INTERNAL_SERVER_ERROR,
                              "the participant cannot be added: %s", err->message);
      return;
    }
  token = sb_serve_access_grant (self->access, p->code, external_id, self->consent_sha256, &err);
  if (token == NULL)
    {
      g_warning ("join: %s", err->message);
      _sb_server_reply_error (self, msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "%s", err->message);
      return;
    }
  _sb_server_joined (self, p->code);
  reply_joined (self, msg, p->code, token, FALSE);
}

/* ---- Info: what the page shows before the first question ------------------------------- */

/* The question's wording, as the app words it for this experiment. */
static const char *
prompt_for (const SbExperiment *exp)
{
  if (exp->question == SB_ASK_CHOICE)
    return "Which is the best? Click it, or press its number.";
  if (exp->question == SB_ASK_RANKING)
    return "Rank them: click from best to worst (or press the numbers), then confirm.";
  if (exp->mode != SB_MODE_PREFERENCE)
    return "Which setting works better?";
  return exp->template_kind == SB_TEMPLATE_COLOUR || exp->stimulus.kind == SB_STIMULUS_COLOUR
           ? "Which colour do you like better?" : "Which setting works better?";
}

void
_sb_server_info (SbServer *self, SoupServerMessage *msg)
{
  const SbExperiment *exp = sb_study_get_experiment (self->study);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (b);
  sb_json_add_string (b, "title", exp->title ? exp->title : "");
  sb_json_add_string (b, "prompt", prompt_for (exp));
  sb_json_add_string (b, "value_prompt", SB_VALUE_QUESTION_TEXT);
  sb_json_add_bool (b, "ties", exp->ties_allowed);
  /* the experiment's own wording of its questions, or null */
  sb_json_add_string (b, "question_text", exp->question_text);
  json_builder_set_member_name (b, "confidence_scale");
  json_builder_add_value (b, sb_confidence_scale_to_json (exp->confidence_levels));
  sb_json_add_int (b, "budget", exp->budget);
  sb_json_add_string (b, "consent", self->settings.consent);
  sb_json_add_int (b, "break_every", self->settings.break_every);
  sb_json_add_bool (b, "open", self->settings.open);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  _sb_server_reply_json (self, msg, SOUP_STATUS_OK, _sb_server_json_text (root));
}

/* ---- Status: the experimenter's view ----------------------------------------------------- */

typedef struct {
  char *dir;
  GHashTable *states;   /* code -> SbServeParticipant copy */
  char *head;           /* the server's own members, JSON text of an object */
} StatusInput;

static void
status_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  StatusInput *in = g_object_get_data (G_OBJECT (task), "input");
  g_autoptr (GError) err = NULL;
  g_autoptr (SbStudy) study = sb_study_open (in->dir, &err);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  SbPopulation pop;

  if (study == NULL || !sb_study_population (study, &pop, &err))
    {
      job_error (job, SOUP_STATUS_INTERNAL_SERVER_ERROR, err->message);
      g_task_return_boolean (task, TRUE);
      return;
    }
  json_builder_begin_object (b);
  sb_json_add_string (b, "study", sb_study_get_name (study));
  json_builder_set_member_name (b, "participants");
  json_builder_begin_array (b);
  for (guint i = 0; i < sb_study_get_n_participants (study); i++)
    {
      const SbParticipant *p = sb_study_get_participant (study, i);
      SbServeParticipant *live = g_hash_table_lookup (in->states, p->code);
      SbParticipantSummary s;
      if (!sb_study_summarise (study, p->code, &s, &err))
        {
          job_error (job, SOUP_STATUS_INTERNAL_SERVER_ERROR, err->message);
          g_task_return_boolean (task, TRUE);
          return;
        }
      json_builder_begin_object (b);
      sb_json_add_string (b, "code", p->code);
      sb_json_add_string (b, "status", sb_participant_status_to_string (p->status));
      json_builder_set_member_name (b, "state");
      if (live)
        json_builder_add_string_value (b, sb_serve_state_to_string (live->state));
      else
        json_builder_add_null_value (b);
      sb_json_add_int (b, "answers", s.answered);
      sb_json_add_int (b, "budget", s.budget);
      sb_json_add_bool (b, "done", s.done);
      sb_json_add_bool (b, "open_question", s.open_question);
      json_builder_set_member_name (b, "idle_seconds");
      if (live)
        json_builder_add_int_value (b, (g_get_monotonic_time () - live->last_seen)
                                         / G_USEC_PER_SEC);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "population");
  json_builder_begin_object (b);
  sb_json_add_int (b, "participants", pop.n_participants);
  sb_json_add_int (b, "included", pop.n_included);
  sb_json_add_int (b, "done", pop.n_done);
  sb_json_add_int (b, "answers", pop.n_answers);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "server");
  json_builder_add_value (b, json_from_string (in->head, NULL));
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  job->status = SOUP_STATUS_OK;
  job->body = _sb_server_json_text (root);
  g_task_return_boolean (task, TRUE);
}

static void
status_input_free (gpointer data)
{
  StatusInput *in = data;

  g_free (in->dir);
  g_hash_table_unref (in->states);
  g_free (in->head);
  g_free (in);
}

static void
status_job_finished (GObject *source, GAsyncResult *result, gpointer data)
{
  Job *job = data;
  SbServer *self = job->self;

  if (!job->gone && self->running)
    {
      _sb_server_reply_json (self, job->msg, job->status, g_steal_pointer (&job->body));
      soup_server_message_unpause (job->msg);
    }
  job->delivered = TRUE;
  self->n_pending--;
  job_unref (job);
}

void
_sb_server_status (SbServer *self, SoupServerMessage *msg)
{
  StatusInput *in = g_new0 (StatusInput, 1);
  GPtrArray *people = sb_server_get_participants (self);
  Job *job = g_new0 (Job, 1);
  GTask *task;

  in->dir = g_strdup (self->dir);
  in->states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < people->len; i++)
    {
      SbServeParticipant *p = g_ptr_array_index (people, i);
      SbServeParticipant *copy = g_memdup2 (p, sizeof *p);
      copy->code = NULL;
      g_hash_table_insert (in->states, g_strdup (p->code), copy);
    }
  in->head = g_strdup_printf ("{\"url\": \"%s\", \"open\": %s, \"requests\": %" G_GUINT64_FORMAT
                              ", \"answers\": %" G_GUINT64_FORMAT ", \"uptime_seconds\": %"
                              G_GINT64_FORMAT "}",
                              self->url, self->settings.open ? "true" : "false",
                              self->n_requests, self->n_answers,
                              (g_get_monotonic_time () - self->started) / G_USEC_PER_SEC);
  job->refs = 1;
  job->self = g_object_ref (self);
  job->msg = g_object_ref (msg);
  job->context = g_main_context_ref_thread_default ();
  g_signal_connect (msg, "disconnected", G_CALLBACK (message_gone), job);
  task = g_task_new (NULL, NULL, status_job_finished, job);
  g_object_set_data_full (G_OBJECT (task), "input", in, status_input_free);
  g_task_set_task_data (task, job, NULL);
  soup_server_message_pause (msg);
  self->n_pending++;
  g_task_run_in_thread (task, status_thread);
  g_object_unref (task);
}
