/* test-server.c — the study server's protocol (server/sb-server.h) against
 * a server in process, through a libsoup client: joining (closed studies,
 * consent, external ids kept out of the answers), questions exactly as
 * `skewgp ask` gives them, answers saved before their reply, retries
 * recorded once, stale answers refused, every error a JSON body with its
 * status (400, 401, 403, 404, 405, 409, 411, 413, 429; a body too large
 * refused as soon as its headers arrive), CORS for listed
 * origins only, the experimenter's status, the study's lock, the page's
 * own files, and stimulus files only from inside the study folder. */
#include "sb-ask-tell.h"
#include "remove-tree.h"
#include "sb-question-json.h"
#include "sb-serve-store.h"
#include "sb-server-private.h"

#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char *root;
  char *dir;
  /* the server, in a thread of its own with its own main context */
  GThread *thread;
  GMainContext *context;
  GMainLoop *loop;
  SbStudy *study;
  SbServer *server;
  GMutex lock;
  GCond cond;
  gboolean ready;
  GError *error;
  char *url;
  char *admin;
  /* options before start */
  guint burst;
  double rate;
  const char *origins[2];  /* NULL-terminated */
  /* the client */
  SoupSession *client;
  SoupMessageHeaders *last_headers;
  /* codes of ::participant-joined, under lock */
  GPtrArray *joined;
} Fixture;

/* ---- The study ----------------------------------------------------------- */

static SbExperiment *
experiment (SbAskKind kind, guint budget)
{
  SbExperiment *exp = sb_experiment_new ();

  g_free (exp->title);
  exp->title = g_strdup ("Display tuning");
  g_assert_true (sb_experiment_add_parameter (exp, "gamma", "", 1.8, 2.6));
  g_assert_true (sb_experiment_add_parameter (exp, "contrast", "%", 0.0, 100.0));
  exp->budget = budget;
  exp->seed = 5;
  exp->initial = 2;
  exp->question = kind;
  exp->n_options = kind == SB_ASK_DUEL ? 2 : 3;
  exp->ties_allowed = kind == SB_ASK_DUEL;
  return exp;
}

static void
make_study_with_model (Fixture *f, SbAskKind kind, guint budget, SbStudyModel model)
{
  g_autoptr (SbExperiment) exp = experiment (kind, budget);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) study = sb_study_create_with_model (f->dir, exp, 0, model, &error);

  g_assert_no_error (error);
}

static void
make_study (Fixture *f, SbAskKind kind, guint budget)
{
  make_study_with_model (f, kind, budget, SB_STUDY_MODEL_INDEPENDENT);
}


/* ---- The server thread ----------------------------------------------------- */

static void
on_joined (SbServer *server, const char *code, Fixture *f)
{
  g_mutex_lock (&f->lock);
  g_ptr_array_add (f->joined, g_strdup (code));
  g_mutex_unlock (&f->lock);
}

static gpointer
server_thread (gpointer data)
{
  Fixture *f = data;
  GError *error = NULL;

  g_main_context_push_thread_default (f->context);
  f->study = sb_study_open (f->dir, &error);
  if (f->study != NULL)
    {
      f->server = sb_server_new (f->study);
      sb_server_set_limits (f->server, f->burst, f->rate);
      sb_server_set_origins (f->server, f->origins);
      g_signal_connect (f->server, "participant-joined", G_CALLBACK (on_joined), f);
      if (sb_server_start (f->server, "127.0.0.1", 0, &error))
        {
          f->url = g_strdup (sb_server_get_url (f->server));
          f->admin = g_strdup (sb_server_get_admin_token (f->server));
        }
    }
  g_mutex_lock (&f->lock);
  f->error = error;
  f->ready = TRUE;
  g_cond_signal (&f->cond);
  g_mutex_unlock (&f->lock);
  if (error == NULL)
    g_main_loop_run (f->loop);
  if (f->server)
    sb_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_object (&f->study);
  g_main_context_pop_thread_default (f->context);
  return NULL;
}

/* Starts the server; FALSE with f->error when it did not start. */
static gboolean
start (Fixture *f)
{
  f->context = g_main_context_new ();
  f->loop = g_main_loop_new (f->context, FALSE);
  f->ready = FALSE;
  f->thread = g_thread_new ("server", server_thread, f);
  g_mutex_lock (&f->lock);
  while (!f->ready)
    g_cond_wait (&f->cond, &f->lock);
  g_mutex_unlock (&f->lock);
  return f->error == NULL;
}

static gboolean
quit_loop (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static void
stop (Fixture *f)
{
  if (f->thread == NULL)
    return;
  /* a source of the server's context: quits the loop even when the
   * thread has not entered it yet */
  g_main_context_invoke (f->context, quit_loop, f->loop);
  g_thread_join (f->thread);
  f->thread = NULL;
  g_clear_pointer (&f->loop, g_main_loop_unref);
  g_clear_pointer (&f->context, g_main_context_unref);
  g_clear_pointer (&f->url, g_free);
  g_clear_pointer (&f->admin, g_free);
  g_clear_error (&f->error);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->root = g_dir_make_tmp ("sb-server-XXXXXX", NULL);
  f->dir = g_build_filename (f->root, "study", NULL);
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  f->burst = 1000;
  f->rate = 1000;
  f->client = soup_session_new ();
  f->joined = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  stop (f);
  g_ptr_array_unref (f->joined);
  g_clear_pointer (&f->last_headers, soup_message_headers_unref);
  g_clear_object (&f->client);
  remove_tree (f->root);
  g_free (f->root);
  g_free (f->dir);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
}

/* ---- The client -------------------------------------------------------------- */

/* METHOD PATH with TOKEN (may be NULL) and BODY (may be NULL): the status,
 * the reply's text in *REPLY (may be NULL). EXTRA_HEADER "Name: value"
 * (may be NULL) is added. */
static guint
request_full (Fixture *f, const char *method, const char *path, const char *token,
              const char *body, gsize body_length, const char *extra_header, char **reply)
{
  g_autofree char *uri = g_strconcat (f->url, path + 1, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new (method, uri);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) out = NULL;
  SoupMessageHeaders *h;

  g_assert_nonnull (msg);
  h = soup_message_get_request_headers (msg);
  if (token)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", token, NULL);
      soup_message_headers_replace (h, "Authorization", auth);
    }
  if (extra_header)
    {
      g_auto (GStrv) parts = g_strsplit (extra_header, ": ", 2);
      soup_message_headers_replace (h, parts[0], parts[1]);
    }
  if (body)
    {
      g_autoptr (GBytes) bytes = g_bytes_new (body, body_length);
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }
  out = soup_session_send_and_read (f->client, msg, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&f->last_headers, soup_message_headers_unref);
  f->last_headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  if (reply)
    *reply = g_strndup (g_bytes_get_data (out, NULL), g_bytes_get_size (out));
  return soup_message_get_status (msg);
}

static guint
request (Fixture *f, const char *method, const char *path, const char *token, const char *body,
         char **reply)
{
  return request_full (f, method, path, token, body, body ? strlen (body) : 0, NULL, reply);
}

static JsonObject *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  JsonObject *obj = json_object_ref (json_node_get_object (node));
  json_node_unref (node);
  return obj;
}

/* The status and that the reply is {"error": "..."}. */
static void
assert_error (guint status, guint expected, const char *reply)
{
  g_autoptr (JsonObject) obj = parse (reply);

  g_assert_cmpuint (status, ==, expected);
  g_assert_nonnull (json_object_get_string_member_with_default (obj, "error", NULL));
  g_assert_cmpstr (json_object_get_string_member (obj, "error"), !=, "");
}

/* Joins with BODY: the token, and the code in *CODE. */
static char *
join (Fixture *f, const char *body, char **code)
{
  g_autofree char *reply = NULL;
  g_autoptr (JsonObject) obj = NULL;

  g_assert_cmpuint (request (f, "POST", "/api/join", NULL, body ? body : "{}", &reply), ==, 200);
  obj = parse (reply);
  if (code)
    *code = g_strdup (json_object_get_string_member (obj, "participant"));
  return g_strdup (json_object_get_string_member (obj, "token"));
}

static JsonObject *
get_question (Fixture *f, const char *token)
{
  g_autofree char *reply = NULL;

  g_assert_cmpuint (request (f, "GET", "/api/question", token, NULL, &reply), ==, 200);
  return parse (reply);
}

static SbSession *
session_of (Fixture *f, const char *code)
{
  g_autofree char *file = g_strconcat (code, ".json", NULL);
  g_autofree char *path = g_build_filename (f->dir, "participants", file, NULL);
  g_autoptr (GFile) gfile = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  SbSession *session = sb_session_load (gfile, &error);

  g_assert_no_error (error);
  return session;
}

static char *
read_file (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* ---- Tests --------------------------------------------------------------------- */

/* Join, a question as skewgp ask gives it, an answer saved before its
 * reply, an identical retry recorded once, a stale answer refused. */
static void
test_ask_answer (Fixture *f, gconstpointer data)
{
  g_autofree char *code = NULL, *reply = NULL, *again = NULL, *stale = NULL;
  g_autofree char *token = NULL, *body = NULL, *expected = NULL, *asked = NULL;
  g_autoptr (JsonObject) q = NULL;
  g_autoptr (JsonObject) recorded = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (JsonNode) doc = NULL;
  const SbQuestion *open;
  guint n_log;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  token = join (f, NULL, &code);
  g_assert_cmpuint (strlen (token), ==, 32);
  g_assert_true (g_str_has_prefix (code, "P-"));

  q = get_question (f, token);
  g_assert_cmpint (json_object_get_int_member (q, "question"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (q, "kind"), ==, "duel");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (q, "stimuli")), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (q, "progress"),
                                               "budget"), ==, 4);

  /* the members skewgp ask prints are exactly core's question document of
   * the session's open question */
  session = session_of (f, code);
  open = sb_ask_tell_current (session);
  g_assert_nonnull (open);
  doc = sb_question_to_json (open, sb_session_get_experiment (session));
  expected = _sb_server_json_text (doc);
  json_object_remove_member (q, "stimuli");
  json_object_remove_member (q, "progress");
  {
    g_autoptr (JsonNode) node = json_node_init_object (json_node_alloc (), q);
    asked = _sb_server_json_text (node);
  }
  g_assert_cmpstr (asked, ==, expected);

  /* the answer, with a response time and the confidence */
  body = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"chosen\": 1}, "
                          "\"response_time\": 1.25, \"confidence\": \"strong\"}",
                          json_object_get_int_member (q, "question"));
  g_assert_cmpuint (request (f, "POST", "/api/answer", token, body, &reply), ==, 200);
  recorded = parse (reply);
  g_assert_cmpint (json_object_get_int_member (recorded, "recorded"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (recorded, "answers"), ==, 1);
  g_assert_false (json_object_get_boolean_member (recorded, "done"));
  g_clear_object (&session);
  session = session_of (f, code);
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 1);
  n_log = sb_session_get_n_observations (session);

  /* the browser retries (its reply was lost): the first reply, once */
  g_assert_cmpuint (request (f, "POST", "/api/answer", token, body, &again), ==, 200);
  g_assert_cmpstr (again, ==, reply);
  g_clear_object (&session);
  session = session_of (f, code);
  g_assert_cmpuint (sb_session_get_n_observations (session), ==, n_log);

  /* another answer to the answered question: stale */
  g_assert_cmpuint (request (f, "POST", "/api/answer", token,
                             "{\"question\": 1, \"answer\": {\"chosen\": 0}}", &stale), ==, 409);
  assert_error (409, 409, stale);
  g_clear_pointer (&stale, g_free);
  /* and one to a question never asked */
  g_assert_cmpuint (request (f, "POST", "/api/answer", token,
                             "{\"question\": 99, \"answer\": {\"chosen\": 0}}", &stale), ==, 409);
  g_clear_object (&session);
  session = session_of (f, code);
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 1);
}

/* The answers until the budget is used: the done document with the
 * completion URL, and no more questions. */
static void
test_done (Fixture *f, gconstpointer data)
{
  SbServeSettings s = { .open = TRUE, .completion_url = (char *) "https://example.org/done?cc=42" };
  g_autofree char *token = NULL;
  g_autoptr (JsonObject) last = NULL;
  g_autoptr (GError) error = NULL;

  make_study (f, SB_ASK_DUEL, 3);
  g_assert_true (sb_serve_settings_save (f->dir, &s, &error));
  g_assert_no_error (error);
  g_assert_true (start (f));
  token = join (f, NULL, NULL);
  for (int i = 0; i < 3; i++)
    {
      g_autoptr (JsonObject) q = get_question (f, token);
      g_autofree char *body = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT
                                               ", \"answer\": {\"tie\": true}}",
                                               json_object_get_int_member (q, "question"));
      g_autofree char *reply = NULL;
      g_assert_cmpuint (request (f, "POST", "/api/answer", token, body, &reply), ==, 200);
    }
  last = get_question (f, token);
  g_assert_true (json_object_get_boolean_member (last, "done"));
  g_assert_cmpint (json_object_get_int_member (last, "answers"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (last, "completion_url"), ==,
                   "https://example.org/done?cc=42");
}

/* Rankings and choices through the protocol, as tell takes them. */
static void
test_ranking (Fixture *f, gconstpointer data)
{
  g_autofree char *token = NULL, *code = NULL, *reply = NULL, *bad = NULL, *body = NULL;
  g_autoptr (JsonObject) q = NULL;
  g_autoptr (SbSession) session = NULL;
  const SbLogEntry *e;

  make_study (f, SB_ASK_RANKING, 3);
  g_assert_true (start (f));
  token = join (f, NULL, &code);
  q = get_question (f, token);
  g_assert_cmpstr (json_object_get_string_member (q, "kind"), ==, "ranking");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (q, "options")), ==, 3);
  /* not a permutation: refused as tell refuses it */
  body = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"ranking\": [0, 0, 1]}}",
                          json_object_get_int_member (q, "question"));
  g_assert_cmpuint (request (f, "POST", "/api/answer", token, body, &bad), ==, 400);
  assert_error (400, 400, bad);
  g_free (body);
  body = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"ranking\": [2, 0, 1]}}",
                          json_object_get_int_member (q, "question"));
  g_assert_cmpuint (request (f, "POST", "/api/answer", token, body, &reply), ==, 200);
  session = session_of (f, code);
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 1);
  e = sb_session_get_observation (session, 0);
  g_assert_cmpint (e->kind, ==, SB_LOG_RANKING);
}

/* Every error is {"error": ...} with its status. */
static void
test_errors (Fixture *f, gconstpointer data)
{
  guint status;
  g_autofree char *token = NULL;
  g_autofree char *big = g_malloc (SB_SERVER_MAX_BODY + 2);
  char *reply = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  token = join (f, NULL, NULL);

  status = request (f, "GET", "/api/question", NULL, NULL, &reply);
  assert_error (status, 401, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/question", "0123456789abcdef0123456789abcdef", NULL,
                         &reply);
  assert_error (status, 401, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/question", "../../etc/passwd", NULL, &reply);
  assert_error (status, 401, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/answer", token, "{\"question\": 1,", &reply);
  assert_error (status, 400, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/answer", token, "{\"question\": 1, \"answer\": "
                         "{\"chosen\": 0}, \"extra\": 1}", &reply);
  assert_error (status, 400, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/answer", token, "", &reply);
  assert_error (status, 400, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/answer", token, NULL, &reply);
  assert_error (status, 405, reply);
  g_assert_cmpstr (soup_message_headers_get_one (f->last_headers, "Allow"), ==, "POST");
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/question", token, "{}", &reply);
  assert_error (status, 405, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/nothing", token, NULL, &reply);
  assert_error (status, 404, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/../study.json", NULL, NULL, &reply);
  assert_error (status, 404, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/%2e%2e/study.json", NULL, NULL, &reply);
  assert_error (status, 404, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/join", NULL, "[1, 2]", &reply);
  assert_error (status, 400, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/join", NULL, "{\"external_id\": 5}", &reply);
  assert_error (status, 400, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "POST", "/api/join", NULL, "{\"who\": \"me\"}", &reply);
  assert_error (status, 400, reply);
  g_clear_pointer (&reply, g_free);

  /* a body over 64 KiB is refused before it is read */
  memset (big, ' ', SB_SERVER_MAX_BODY + 1);
  big[SB_SERVER_MAX_BODY + 1] = '\0';
  status = request (f, "POST", "/api/answer", token, big, &reply);
  assert_error (status, 413, reply);
  g_clear_pointer (&reply, g_free);

  /* stimuli: numbers only, of the open question only */
  status = request (f, "GET", "/api/stimulus/../../study.json", token, NULL, &reply);
  assert_error (status, 404, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/stimulus/1/0", token, NULL, &reply);
  assert_error (status, 404, reply);
  g_clear_pointer (&reply, g_free);
}

/* Tokens are a participant's own: another's token reads and answers
 * only theirs. */
static void
test_own_questions (Fixture *f, gconstpointer data)
{
  g_autofree char *a = NULL, *b = NULL, *code_a = NULL, *code_b = NULL, *reply = NULL;
  g_autoptr (JsonObject) qa = NULL;
  g_autoptr (JsonObject) qb = NULL;
  g_autoptr (SbSession) sa = NULL;
  g_autoptr (SbSession) sb = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  a = join (f, NULL, &code_a);
  b = join (f, NULL, &code_b);
  g_assert_cmpstr (code_a, !=, code_b);
  g_assert_cmpstr (a, !=, b);
  qa = get_question (f, a);
  qb = get_question (f, b);
  /* B answers question 1: its own question 1, never A's */
  g_assert_cmpuint (request (f, "POST", "/api/answer", b,
                             "{\"question\": 1, \"answer\": {\"chosen\": 0}}", &reply), ==, 200);
  sa = session_of (f, code_a);
  sb = session_of (f, code_b);
  g_assert_cmpuint (sb_session_get_n_answers (sa), ==, 0);
  g_assert_cmpuint (sb_session_get_n_answers (sb), ==, 1);
}

/* Closed studies, consent, and external ids kept apart from the answers. */
static void
test_join_rules (Fixture *f, gconstpointer data)
{
  guint status;
  SbServeSettings s = { .open = TRUE, .consent = (char *) "You agree to take part." };
  g_autofree char *code = NULL, *again = NULL, *reply = NULL, *access = NULL, *index = NULL;
  g_autofree char *token = NULL, *token2 = NULL, *csv = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) reader = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (sb_serve_settings_save (f->dir, &s, &error));
  g_assert_true (start (f));
  status = request (f, "POST", "/api/join", NULL, "{}", &reply);
  assert_error (status, 403, reply);
  g_clear_pointer (&reply, g_free);
  token = join (f, "{\"external_id\": \"PROLIFIC-5f1a\", \"consent\": true}", &code);
  token2 = join (f, "{\"external_id\": \"PROLIFIC-5f1a\"}", &again);
  g_assert_cmpstr (code, ==, again);
  /* the new token answers; the old one no longer does */
  status = request (f, "GET", "/api/question", token, NULL, &reply);
  assert_error (status, 401, reply);
  g_clear_pointer (&reply, g_free);
  g_assert_cmpuint (request (f, "GET", "/api/question", token2, NULL, &reply), ==, 200);
  g_clear_pointer (&reply, g_free);

  access = read_file (f->dir, "online/access.json");
  g_assert_nonnull (strstr (access, "PROLIFIC-5f1a"));
  g_assert_nonnull (strstr (access, "text_sha256"));
  g_assert_null (strstr (access, token2));   /* only the token's hash */
  index = read_file (f->dir, "study.json");
  g_assert_null (strstr (index, "PROLIFIC"));
  reader = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  csv = sb_study_to_csv (reader, NULL, TRUE, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (csv, "PROLIFIC"));
  stop (f);

  s.open = FALSE;
  s.consent = NULL;
  g_assert_true (sb_serve_settings_save (f->dir, &s, &error));
  g_assert_true (start (f));
  status = request (f, "POST", "/api/join", NULL, "{}", &reply);
  assert_error (status, 403, reply);
  g_clear_pointer (&reply, g_free);
  /* a participant who joined before still gets back in */
  g_free (token2);
  token2 = join (f, "{\"external_id\": \"PROLIFIC-5f1a\"}", NULL);
}

/* A withdrawn participant is asked nothing. */
static void
test_withdrawn (Fixture *f, gconstpointer data)
{
  guint status;
  g_autofree char *token = NULL, *code = NULL, *reply = NULL;
  g_autoptr (GError) error = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  token = join (f, NULL, &code);
  stop (f);
  {
    g_autoptr (SbStudy) study = sb_study_open (f->dir, &error);
    g_assert_true (sb_study_set_status (study, code, SB_PARTICIPANT_WITHDRAWN, &error));
    g_assert_no_error (error);
  }
  g_assert_true (start (f));
  status = request (f, "GET", "/api/question", token, NULL, &reply);
  assert_error (status, 403, reply);
}

/* Per-token limits: beyond the burst, 429 with Retry-After. */
static void
test_rate_limit (Fixture *f, gconstpointer data)
{
  g_autofree char *token = NULL;
  guint ok = 0, limited = 0;

  make_study (f, SB_ASK_DUEL, 4);
  f->burst = 5;
  f->rate = 0.01;
  g_assert_true (start (f));
  token = join (f, NULL, NULL);
  for (int i = 0; i < 8; i++)
    {
      g_autofree char *reply = NULL;
      guint status = request (f, "GET", "/api/question", token, NULL, &reply);
      if (status == 429)
        {
          assert_error (status, 429, reply);
          g_assert_cmpstr (soup_message_headers_get_one (f->last_headers, "Retry-After"), ==,
                           "1");
          limited++;
        }
      else
        ok += status == 200;
    }
  g_assert_cmpuint (ok, ==, 5);
  g_assert_cmpuint (limited, ==, 3);
}

/* CORS: listed origins get their header, others are refused. */
static void
test_origins (Fixture *f, gconstpointer data)
{
  guint status;
  g_autofree char *reply = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  f->origins[0] = "https://lab.example.org";
  g_assert_true (start (f));
  g_assert_cmpuint (request_full (f, "GET", "/api/info", NULL, NULL, 0,
                                  "Origin: https://lab.example.org", &reply), ==, 200);
  g_assert_cmpstr (soup_message_headers_get_one (f->last_headers, "Access-Control-Allow-Origin"),
                   ==, "https://lab.example.org");
  g_clear_pointer (&reply, g_free);
  g_assert_cmpuint (request_full (f, "OPTIONS", "/api/answer", NULL, NULL, 0,
                                  "Origin: https://lab.example.org", &reply), ==, 204);
  g_assert_nonnull (strstr (soup_message_headers_get_one (f->last_headers,
                                                          "Access-Control-Allow-Headers"),
                            "Authorization"));
  g_clear_pointer (&reply, g_free);
  status = request_full (f, "POST", "/api/join", NULL, "{}", 2,
                              "Origin: https://evil.example.com", &reply);
  assert_error (status, 403, reply);
  g_assert_null (soup_message_headers_get_one (f->last_headers, "Access-Control-Allow-Origin"));
  g_clear_pointer (&reply, g_free);
  /* the server's own page (same host and port) */
  {
    g_autoptr (GUri) uri = g_uri_parse (f->url, G_URI_FLAGS_NONE, NULL);
    g_autofree char *own = g_strdup_printf ("Origin: http://127.0.0.1:%d", g_uri_get_port (uri));
    g_assert_cmpuint (request_full (f, "POST", "/api/join", NULL, "{}", 2, own, &reply), ==, 200);
  }
}

/* The experimenter's status needs the admin token. */
static void
test_status (Fixture *f, gconstpointer data)
{
  guint status;
  g_autofree char *token = NULL, *code = NULL, *reply = NULL;
  g_autoptr (JsonObject) doc = NULL;
  JsonArray *people;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  token = join (f, NULL, &code);
  g_clear_pointer (&reply, g_free);
  g_assert_cmpuint (request (f, "GET", "/api/question", token, NULL, &reply), ==, 200);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/status", NULL, NULL, &reply);
  assert_error (status, 401, reply);
  g_clear_pointer (&reply, g_free);
  status = request (f, "GET", "/api/status", token, NULL, &reply);
  assert_error (status, 401, reply);
  g_clear_pointer (&reply, g_free);
  g_assert_cmpuint (request (f, "GET", "/api/status", f->admin, NULL, &reply), ==, 200);
  doc = parse (reply);
  people = json_object_get_array_member (doc, "participants");
  g_assert_cmpuint (json_array_get_length (people), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (people, 0),
                                                  "state"), ==, "answering");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (people, 0),
                                                  "code"), ==, code);
}

/* A participant is in the study's roster as soon as they joined, before
 * any question: in the study folder's index, in the status, and told to
 * the app (::participant-joined, whose Study view reads the roster). */
static void
test_joined_in_roster (Fixture *f, gconstpointer data)
{
  g_autofree char *token = NULL, *code = NULL, *reply = NULL;
  g_autoptr (JsonObject) doc = NULL;
  g_autoptr (SbStudy) study = NULL;
  g_autoptr (GError) error = NULL;
  SbParticipantSummary summary;
  JsonObject *person;

  make_study_with_model (f, SB_ASK_DUEL, 4, SB_STUDY_MODEL_HIERARCHICAL);
  g_assert_true (start (f));
  token = join (f, NULL, &code);

  g_mutex_lock (&f->lock);
  g_assert_cmpuint (f->joined->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->joined, 0), ==, code);
  g_mutex_unlock (&f->lock);

  study = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sb_study_find (study, code));
  g_assert_true (sb_study_summarise (study, code, &summary, &error));
  g_assert_cmpuint (summary.answered, ==, 0);

  g_assert_cmpuint (request (f, "GET", "/api/status", f->admin, NULL, &reply), ==, 200);
  doc = parse (reply);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (doc, "participants")),
                    ==, 1);
  person = json_array_get_object_element (json_object_get_array_member (doc, "participants"), 0);
  g_assert_cmpstr (json_object_get_string_member (person, "code"), ==, code);
  g_assert_cmpstr (json_object_get_string_member (person, "state"), ==, "joined");
  g_assert_cmpint (json_object_get_int_member (person, "answers"), ==, 0);

  /* joining again with the same external id is no new participant */
  g_clear_pointer (&token, g_free);
  token = join (f, "{\"external_id\": \"PID-1\"}", NULL);
  g_free (join (f, "{\"external_id\": \"PID-1\"}", NULL));
  g_mutex_lock (&f->lock);
  g_assert_cmpuint (f->joined->len, ==, 2);
  g_mutex_unlock (&f->lock);
}

/* The study's only writer: a second server and `study add` are refused
 * while it runs, and work again after it stopped. */
static void
test_lock (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) other = NULL;
  g_autoptr (SbServer) second = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  other = sb_study_open (f->dir, &error);
  g_assert_no_error (error);
  g_assert_null (sb_study_add_participant (other, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "skewgp serve"));
  g_clear_error (&error);
  second = sb_server_new (other);
  g_assert_false (sb_server_start (second, NULL, 0, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);
  stop (f);
  g_assert_nonnull (sb_study_add_participant (other, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* The page: the server's own files, a policy that lets nothing else in. */
static void
test_page (Fixture *f, gconstpointer data)
{
  static const char *const files[] = { "/", "/page.js", "/page.css" };

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *reply = NULL;
      g_assert_cmpuint (request (f, "GET", files[i], NULL, NULL, &reply), ==, 200);
      g_assert_cmpuint (strlen (reply), >, 100);
      /* no external script, font, style or image */
      g_assert_null (strstr (reply, "http://"));
      g_assert_null (strstr (reply, "https://"));
      if (i == 0)
        g_assert_nonnull (strstr (soup_message_headers_get_one (f->last_headers,
                                                                "Content-Security-Policy"),
                                  "default-src 'self'"));
    }
}

/* Files only from inside the study folder, never through a link. */
static void
test_read_inside (Fixture *f, gconstpointer data)
{
  g_autofree char *inside = g_build_filename (f->root, "study", NULL);
  g_autofree char *real = NULL;
  g_autofree char *ok = g_build_filename (inside, "a.png", NULL);
  g_autofree char *link = g_build_filename (inside, "b.png", NULL);
  g_autofree char *outside = g_build_filename (f->root, "secret.txt", NULL);
  g_autofree char *dotdot = g_build_filename (inside, "..", "secret.txt", NULL);
  g_autofree char *fifo = g_build_filename (inside, "fifo.png", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;

  g_assert_cmpint (g_mkdir_with_parents (inside, 0700), ==, 0);
  real = realpath (inside, NULL);
  g_assert_true (g_file_set_contents (ok, "\x89PNG", 4, NULL));
  g_assert_true (g_file_set_contents (outside, "secret", -1, NULL));
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  bytes = _sb_server_read_inside (real, ok, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 4);
  g_assert_null (_sb_server_read_inside (real, link, &error));
  g_assert_nonnull (strstr (error->message, "outside the study folder"));
  g_clear_error (&error);
  g_assert_null (_sb_server_read_inside (real, dotdot, &error));
  g_clear_error (&error);
  g_assert_null (_sb_server_read_inside (real, fifo, &error));
  g_clear_error (&error);
  g_assert_null (_sb_server_read_inside (real, real, &error));
  g_clear_error (&error);
}

/* Answers N of TOKEN's questions (the first option each time). */
static void
answer_n (Fixture *f, const char *token, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (JsonObject) q = get_question (f, token);
      g_autofree char *body = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT
                                               ", \"answer\": {\"chosen\": %u}}",
                                               json_object_get_int_member (q, "question"), i % 2);
      g_autofree char *reply = NULL;
      g_assert_cmpuint (request (f, "POST", "/api/answer", token, body, &reply), ==, 200);
    }
}

/* Waits (a loaded machine: up to 5 minutes) until CHECK (F) holds. */
static gboolean
eventually (Fixture *f, gboolean (*check) (Fixture *f, const char *code), const char *code)
{
  for (int i = 0; i < 3000; i++)
    {
      if (check (f, code))
        return TRUE;
      g_usleep (100 * 1000);
    }
  return FALSE;
}

static gboolean
has_population_cache (Fixture *f, const char *code)
{
  g_autofree char *path = g_build_filename (f->dir, "population.fit", NULL);
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static gboolean
has_refit (Fixture *f, const char *code)
{
  g_autoptr (SbSession) session = session_of (f, code);
  return sb_session_get_n_refits (session) > 0;
}

/* Fits beside the questions: a hierarchical study's population cache is
 * made in the background once the schedule asks for it (and questions
 * go on meanwhile and after); an independent participant's session gets
 * its own refit stored, answered questions untouched. */
static void
test_fits (Fixture *f, gconstpointer data)
{
  g_autofree char *a = NULL, *b = NULL, *code = NULL;
  g_autoptr (JsonObject) q = NULL;
  g_autoptr (SbSession) session = NULL;

  make_study_with_model (f, SB_ASK_DUEL, 8, SB_STUDY_MODEL_HIERARCHICAL);
  g_assert_true (start (f));
  a = join (f, NULL, NULL);
  b = join (f, NULL, NULL);
  g_assert_false (has_population_cache (f, NULL));
  answer_n (f, a, 4);
  answer_n (f, b, 4);
  g_assert_true (eventually (f, has_population_cache, NULL));
  answer_n (f, a, 2);
  q = get_question (f, a);
  g_assert_cmpint (json_object_get_int_member (q, "question"), ==, 7);
  stop (f);

  remove_tree (f->dir);
  make_study (f, SB_ASK_DUEL, 8);
  g_assert_true (start (f));
  g_clear_pointer (&a, g_free);
  a = join (f, NULL, &code);
  answer_n (f, a, 3);
  g_assert_true (eventually (f, has_refit, code));
  session = session_of (f, code);
  g_assert_cmpuint (sb_session_get_n_answers (session), ==, 3);
}

static gboolean
reply_complete (const char *text)
{
  const char *body = strstr (text, "\r\n\r\n");
  const char *length = g_strstr_len (text, body ? body - text : 0, "Content-Length: ");

  return body != NULL && length != NULL
         && strlen (body + 4) >= g_ascii_strtoull (length + 16, NULL, 10);
}

/* What a raw request REQUEST (headers and the start of a body whose rest
 * never comes) gets back, and after how many seconds (*SECONDS). */
static char *
raw_reply (Fixture *f, const char *request, double *seconds)
{
  g_autoptr (GUri) uri = g_uri_parse (f->url, G_URI_FLAGS_NONE, NULL);
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketConnection) conn = NULL;
  g_autoptr (GString) got = g_string_new (NULL);
  GError *error = NULL;
  gint64 t0;
  char buffer[1024];
  gssize n;

  g_socket_client_set_timeout (client, 60);
  conn = g_socket_client_connect_to_host (client, "127.0.0.1", g_uri_get_port (uri), NULL,
                                          &error);
  g_assert_no_error (error);
  t0 = g_get_monotonic_time ();
  g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                                            request, strlen (request), NULL, NULL, &error));
  g_assert_no_error (error);
  /* until the whole reply is there (its Content-Length) or the server
   * closes the connection */
  while (!reply_complete (got->str)
         && (n = g_input_stream_read (g_io_stream_get_input_stream (G_IO_STREAM (conn)), buffer,
                                      sizeof buffer, NULL, &error)) > 0)
    g_string_append_len (got, buffer, n);
  g_assert_no_error (error);
  *seconds = (g_get_monotonic_time () - t0) / 1e6;
  return g_string_free (g_steal_pointer (&got), FALSE);
}

/* A request that promises a body over the limit (or none of known
 * length) is refused as soon as its headers are read, with its JSON
 * error, and the connection closed: the server does not wait for (or
 * keep) a gigabyte, nor for its slow-client deadline. */
static void
test_body_refused_early (Fixture *f, gconstpointer data)
{
  static const struct {
    const char *request;
    const char *status;
  } cases[] = {
    { "POST /api/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 1000000000\r\n\r\n{\"question\": 1, \"answer\": ",
      "HTTP/1.1 413 " },
    { "POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "10\r\n{\"external_id\": ",
      "HTTP/1.1 411 " },
  };

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double seconds = 0;
      g_autofree char *reply = raw_reply (f, cases[i].request, &seconds);
      const char *body = strstr (reply, "\r\n\r\n");
      JsonObject *doc;

      g_assert_true (g_str_has_prefix (reply, cases[i].status));
      g_assert_nonnull (body);
      doc = parse (body + 4);
      g_assert_true (json_object_has_member (doc, "error"));
      json_object_unref (doc);
      /* an order of magnitude below the slow-client deadline, on a
       * loaded machine */
      g_assert_cmpfloat (seconds, <, SB_SERVER_REQUEST_SECONDS / 3.0);
    }
  /* the server goes on serving */
  g_free (join (f, NULL, NULL));
}

/* The question the server keeps after an answer is the session file's
 * open question only while the file is unchanged: a change by another
 * writer (here the budget) is what the next request sees. */
static void
test_question_follows_file (Fixture *f, gconstpointer data)
{
  g_autofree char *token = NULL, *code = NULL;
  g_autoptr (JsonObject) q = NULL;
  g_autoptr (JsonObject) again = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;

  make_study (f, SB_ASK_DUEL, 4);
  g_assert_true (start (f));
  token = join (f, NULL, &code);
  answer_n (f, token, 1);
  q = get_question (f, token);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (q, "progress"),
                                               "budget"), ==, 4);
  session = session_of (f, code);
  g_assert_true (sb_session_set_budget (session, 3, &error));
  g_assert_true (sb_session_save (session, &error));
  g_assert_no_error (error);
  again = get_question (f, token);
  g_assert_cmpint (json_object_get_int_member (again, "question"), ==,
                   json_object_get_int_member (q, "question"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (again, "progress"),
                                               "budget"), ==, 3);
}

static void
add (const char *path, void (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  add ("/server/ask-answer", test_ask_answer);
  add ("/server/done", test_done);
  add ("/server/ranking", test_ranking);
  add ("/server/errors", test_errors);
  add ("/server/body-refused-early", test_body_refused_early);
  add ("/server/own-questions", test_own_questions);
  add ("/server/join-rules", test_join_rules);
  add ("/server/withdrawn", test_withdrawn);
  add ("/server/rate-limit", test_rate_limit);
  add ("/server/origins", test_origins);
  add ("/server/status", test_status);
  add ("/server/joined-in-roster", test_joined_in_roster);
  add ("/server/question-follows-file", test_question_follows_file);
  add ("/server/lock", test_lock);
  add ("/server/page", test_page);
  add ("/server/read-inside", test_read_inside);
  add ("/server/fits", test_fits);
  return g_test_run ();
}
