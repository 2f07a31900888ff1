/* sb-server.c — the study server: start and stop, routes, and the guards
 * every request passes (body size, slow clients, origins, tokens, rate
 * limits); the protocol itself is sb-server-api.c. */
#include "config.h"

#include "sb-server-private.h"
#include "sb-server-resources.h"

#include "sb-error.h"
#include "sb-json-read.h"
#include "sb-json-write.h"

#include <glib/gstdio.h>
#include <string.h>

G_DEFINE_FINAL_TYPE (SbServer, sb_server, G_TYPE_OBJECT)
G_DEFINE_QUARK (sb-server-error-quark, sb_server_error)

enum { PARTICIPANT_JOINED, PARTICIPANT_CHANGED, ANSWER_RECORDED, STOPPED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const state_names[] = { "joined", "answering", "done", "idle" };

const char *
sb_serve_state_to_string (SbServeState state)
{
  return state < G_N_ELEMENTS (state_names) ? state_names[state] : "unknown";
}

/* ---- Rate limits: a token bucket per token or client address ---------------- */

typedef struct {
  double tokens;
  gint64 last;   /* monotonic microseconds */
} SbRateBucket;

/* TRUE when KEY may make one more request now. */
static gboolean
rate_allows (SbServer *self, const char *key)
{
  SbRateBucket *b = g_hash_table_lookup (self->buckets, key);
  gint64 now = g_get_monotonic_time ();

  if (b == NULL)
    {
      b = g_new0 (SbRateBucket, 1);
      b->tokens = self->burst;
      b->last = now;
      g_hash_table_insert (self->buckets, g_strdup (key), b);
    }
  b->tokens = MIN ((double) self->burst, b->tokens + self->rate * (now - b->last) / 1e6);
  b->last = now;
  if (b->tokens < 1)
    return FALSE;
  b->tokens -= 1;
  return TRUE;
}

/* ---- Replies ----------------------------------------------------------------- */

char *
_sb_server_json_text (JsonNode *node)
{
  return sb_json_write (node, FALSE, NULL);
}

static void
security_headers (SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (h, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace (h, "Referrer-Policy", "no-referrer");
  soup_message_headers_replace (h, "X-Frame-Options", "DENY");
  soup_message_headers_replace (h, "Cross-Origin-Resource-Policy", "same-site");
}

void
_sb_server_reply_json (SbServer *self, SoupServerMessage *msg, guint status, char *text)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (h, "Cache-Control", "no-store");
  soup_server_message_set_status (msg, status, status == SB_STATUS_TOO_MANY_REQUESTS
                                                 ? "Too Many Requests" : NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, text,
                                    strlen (text));
}

char *
_sb_server_error_text (const char *message)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (b);
  sb_json_add_string (b, "error", message);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return _sb_server_json_text (root);
}

void
_sb_server_reply_error (SbServer *self, SoupServerMessage *msg, guint status,
                        const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (status == SB_STATUS_TOO_MANY_REQUESTS || status == SOUP_STATUS_SERVICE_UNAVAILABLE)
    soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                  "Retry-After", "1");
  _sb_server_reply_json (self, msg, status, _sb_server_error_text (message));
}

JsonNode *
_sb_server_read_body (SbServer *self, SoupServerMessage *msg)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr (GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr (GError) err = NULL;
  gsize length = 0;
  const char *data = g_bytes_get_data (bytes, &length);
  JsonNode *root;

  if (length > SB_SERVER_MAX_BODY)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE,
                              "the request body is larger than %d bytes", SB_SERVER_MAX_BODY);
      return NULL;
    }
  root = length ? sb_json_read (data, (gssize) length, &err) : NULL;
  if (root == NULL)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_BAD_REQUEST, "the body is not JSON: %s",
                              err ? err->message : "it is empty");
      return NULL;
    }
  return root;
}

/* ---- Live participants ---------------------------------------------------- */

gboolean
_sb_file_stamp (const char *path, SbFileStamp *stamp)
{
  struct stat st;

  memset (stamp, 0, sizeof *stamp);
  if (g_stat (path, &st) != 0)
    return FALSE;
  stamp->dev = st.st_dev;
  stamp->ino = st.st_ino;
  stamp->size = st.st_size;
  stamp->mtime_ns = (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  stamp->ctime_ns = (gint64) st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
  return TRUE;
}

void
_sb_serve_ready_clear (SbServeReady *ready)
{
  g_free (ready->text);
  memset (ready, 0, sizeof *ready);
}

static void
live_free (gpointer data)
{
  SbServeLive *live = data;

  g_free (live->pub.code);
  g_free (live->path);
  _sb_serve_ready_clear (&live->ready);
  g_warn_if_fail (g_queue_is_empty (&live->waiting));
  g_mutex_clear (&live->lock);
  g_hash_table_unref (live->replies);
  g_free (live);
}

SbServeLive *
_sb_server_live (SbServer *self, const char *code)
{
  SbServeLive *live = g_hash_table_lookup (self->live, code);

  if (live == NULL)
    {
      live = g_new0 (SbServeLive, 1);
      live->pub.code = g_strdup (code);
      live->pub.budget = sb_study_get_experiment (self->study)->budget;
      live->path = sb_study_participant_path (self->study, code);
      g_mutex_init (&live->lock);
      live->replies = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      g_hash_table_insert (self->live, live->pub.code, live);
      g_ptr_array_add (self->live_order, &live->pub);
    }
  live->pub.last_seen = g_get_monotonic_time ();
  return live;
}

void
_sb_server_joined (SbServer *self, const char *code)
{
  g_autofree char *copy = g_strdup (code);

  g_signal_emit (self, signals[PARTICIPANT_JOINED], 0, copy);
}

void
_sb_server_changed (SbServer *self, const char *code, gboolean answered)
{
  g_autofree char *copy = g_strdup (code);

  if (answered)
    {
      self->n_answers++;
      g_signal_emit (self, signals[ANSWER_RECORDED], 0, copy);
    }
  g_signal_emit (self, signals[PARTICIPANT_CHANGED], 0, copy);
}

guint64
sb_server_get_n_fits (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), 0);
  return self->fits.n_refreshes + self->fits.n_refits;
}

GPtrArray *
sb_server_get_participants (SbServer *self)
{
  gint64 now = g_get_monotonic_time ();

  g_return_val_if_fail (SB_IS_SERVER (self), NULL);
  for (guint i = 0; i < self->live_order->len; i++)
    {
      SbServeParticipant *p = g_ptr_array_index (self->live_order, i);
      if (p->state != SB_SERVE_DONE
          && now - p->last_seen > (gint64) SB_SERVER_IDLE_SECONDS * G_USEC_PER_SEC)
        p->state = SB_SERVE_IDLE;
    }
  return self->live_order;
}

/* ---- Guards ------------------------------------------------------------------- */

/* TRUE when a page from ORIGIN may call the API: the server's own page
 * (the origin's host and port are the request's Host) or an origin the
 * experimenter listed. */
static gboolean
origin_allowed (SbServer *self, SoupServerMessage *msg, const char *origin)
{
  const char *host = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Host");
  g_autoptr (GUri) uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);

  for (guint i = 0; self->origins && self->origins[i]; i++)
    if (g_ascii_strcasecmp (self->origins[i], origin) == 0)
      return TRUE;
  if (uri == NULL || host == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;
  g_autofree char *hostport = g_uri_get_port (uri) > 0
                                ? g_strdup_printf ("%s:%d", g_uri_get_host (uri),
                                                   g_uri_get_port (uri))
                                : g_strdup (g_uri_get_host (uri));
  return g_ascii_strcasecmp (hostport, host) == 0;
}

/* The token of "Authorization: Bearer TOKEN", or NULL. */
static const char *
bearer (SoupServerMessage *msg)
{
  const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Authorization");

  if (auth == NULL || g_ascii_strncasecmp (auth, "Bearer ", 7) != 0)
    return NULL;
  auth += 7;
  while (*auth == ' ')
    auth++;
  return auth;
}

/* The participant the request's token names, or NULL after a 401, 403 or
 * 429 reply. */
static const char *
authorise (SbServer *self, SoupServerMessage *msg)
{
  const char *token = bearer (msg);
  const char *code;
  const SbParticipant *p;
  g_autofree char *key = NULL;

  if (token == NULL)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_UNAUTHORIZED,
                              "no token: send Authorization: Bearer TOKEN (from /api/join)");
      return NULL;
    }
  code = sb_serve_access_lookup (self->access, token);
  if (code == NULL)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_UNAUTHORIZED,
                              "the token is not valid for this study (join again)");
      return NULL;
    }
  key = g_strconcat ("t:", code, NULL);
  if (!rate_allows (self, key))
    {
      _sb_server_reply_error (self, msg, SB_STATUS_TOO_MANY_REQUESTS,
                              "too many requests: wait a moment");
      return NULL;
    }
  p = sb_study_find (self->study, code);
  if (p == NULL || p->status != SB_PARTICIPANT_ACTIVE)
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_FORBIDDEN,
                              "participant %s is %s: no more questions", code,
                              p ? sb_participant_status_to_string (p->status) : "not in the study");
      return NULL;
    }
  return p->code;
}

static gboolean
is_admin (SbServer *self, SoupServerMessage *msg)
{
  const char *token = bearer (msg);
  g_autofree char *given = token ? sb_serve_sha256 (token) : NULL;
  g_autofree char *mine = sb_serve_sha256 (self->admin_token);

  /* compared as hashes: the time taken says nothing about the token */
  return given != NULL && strcmp (given, mine) == 0;
}

/* ---- The participant page ------------------------------------------------------ */

static const struct {
  const char *path, *resource, *type;
} page_files[] = {
  { "/", "index.html", "text/html; charset=utf-8" },
  { "/index.html", "index.html", "text/html; charset=utf-8" },
  { "/page.js", "page.js", "text/javascript; charset=utf-8" },
  { "/page.css", "page.css", "text/css; charset=utf-8" },
};

static gboolean
serve_page (SbServer *self, SoupServerMessage *msg, const char *path)
{
  for (guint i = 0; i < G_N_ELEMENTS (page_files); i++)
    if (g_str_equal (path, page_files[i].path))
      {
        g_autofree char *name = g_strconcat ("/org/skewbench/server/page/",
                                             page_files[i].resource, NULL);
        g_autoptr (GBytes) bytes = g_resources_lookup_data (name, 0, NULL);
        SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
        gsize length = 0;
        const char *data;

        if (bytes == NULL)
          return FALSE;
        data = g_bytes_get_data (bytes, &length);
        /* nothing but this server's own files: no external script, font
         * or frame */
        soup_message_headers_replace (h, "Content-Security-Policy",
                                      "default-src 'self'; img-src 'self' blob: data:; "
                                      "media-src 'self' blob:; style-src 'self'; "
                                      "script-src 'self'; connect-src 'self'; "
                                      "frame-ancestors 'none'; base-uri 'none'; "
                                      "form-action 'none'");
        soup_message_headers_replace (h, "Cache-Control", "no-cache");
        soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
        soup_server_message_set_response (msg, page_files[i].type, SOUP_MEMORY_COPY, data,
                                          length);
        return TRUE;
      }
  return FALSE;
}

/* ---- Routes ----------------------------------------------------------------------- */

static gboolean
method_is (SbServer *self, SoupServerMessage *msg, const char *path, const char *method)
{
  if (g_str_equal (soup_server_message_get_method (msg), method))
    return TRUE;
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow",
                                method);
  _sb_server_reply_error (self, msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "%s takes %s, not %s",
                          path, method,
                          soup_server_message_get_method (msg));
  return FALSE;
}

static void
route (SbServer *self, SoupServerMessage *msg, const char *path)
{
  const char *code;

  if (g_str_equal (path, "/api/join"))
    {
      g_autofree char *key = g_strconcat ("a:", soup_server_message_get_remote_host (msg), NULL);
      if (!method_is (self, msg, path, "POST"))
        return;
      if (!rate_allows (self, key))
        _sb_server_reply_error (self, msg, SB_STATUS_TOO_MANY_REQUESTS,
                                "too many joins from this address: wait a moment");
      else
        _sb_server_join (self, msg);
    }
  else if (g_str_equal (path, "/api/question"))
    {
      if (method_is (self, msg, path, "GET") && (code = authorise (self, msg)) != NULL)
        _sb_server_question (self, msg, code);
    }
  else if (g_str_equal (path, "/api/answer"))
    {
      if (method_is (self, msg, path, "POST") && (code = authorise (self, msg)) != NULL)
        _sb_server_answer (self, msg, code);
    }
  else if (g_str_has_prefix (path, "/api/stimulus/"))
    {
      if (method_is (self, msg, path, "GET") && (code = authorise (self, msg)) != NULL)
        _sb_server_stimulus (self, msg, code, path + strlen ("/api/stimulus/"));
    }
  else if (g_str_equal (path, "/api/info"))
    {
      if (method_is (self, msg, path, "GET"))
        _sb_server_info (self, msg);
    }
  else if (g_str_equal (path, "/api/status"))
    {
      if (!method_is (self, msg, path, "GET"))
        return;
      if (!is_admin (self, msg))
        _sb_server_reply_error (self, msg, SOUP_STATUS_UNAUTHORIZED,
                                "the status is the experimenter's: send Authorization: "
                                "Bearer ADMIN-TOKEN (printed when the server started)");
      else
        _sb_server_status (self, msg);
    }
  else if (!(g_str_equal (soup_server_message_get_method (msg), "GET")
             && serve_page (self, msg, path)))
    _sb_server_reply_error (self, msg, SOUP_STATUS_NOT_FOUND, "no such page: %s", path);
}

static void
handle (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
        gpointer user_data)
{
  SbServer *self = user_data;
  SoupMessageHeaders *req = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *res = soup_server_message_get_response_headers (msg);
  const char *origin = soup_message_headers_get_one (req, "Origin");

  self->n_requests++;
  security_headers (msg);
  if (origin != NULL)
    {
      if (!origin_allowed (self, msg, origin))
        {
          _sb_server_reply_error (self, msg, SOUP_STATUS_FORBIDDEN,
                                  "pages from %s may not use this server (the experimenter "
                                  "lists origins with skewgp serve --origin)", origin);
          return;
        }
      soup_message_headers_replace (res, "Access-Control-Allow-Origin", origin);
      soup_message_headers_replace (res, "Vary", "Origin");
    }
  if (g_str_equal (soup_server_message_get_method (msg), "OPTIONS"))
    {
      /* a CORS preflight of an allowed origin */
      soup_message_headers_replace (res, "Access-Control-Allow-Methods", "GET, POST");
      soup_message_headers_replace (res, "Access-Control-Allow-Headers",
                                    "Authorization, Content-Type");
      soup_message_headers_replace (res, "Access-Control-Max-Age", "600");
      soup_server_message_set_status (msg, SOUP_STATUS_NO_CONTENT, NULL);
      return;
    }
  route (self, msg, path);
}

/* ---- Bodies refused before they are read ---------------------------------------- */

/* A connection taken from libsoup to refuse its request: the reply is
 * written, the sending side closed, and what the client still sends is
 * read and dropped for a moment (closing with unread data would reset the
 * connection before the client reads the reply). */
typedef struct {
  GIOStream *stream;
  GBytes *reply;
  GCancellable *cancellable;
  guint timeout;
  gsize drained;
  char buffer[4096];
} Refusal;

/* What a refused client may still send before the connection is closed. */
#define REFUSAL_DRAIN_BYTES (1024 * 1024)
#define REFUSAL_DRAIN_SECONDS 2

static void
refusal_free (Refusal *r)
{
  if (r->timeout)
    g_source_destroy (g_main_context_find_source_by_id (g_main_context_get_thread_default (),
                                                        r->timeout));
  g_io_stream_close (r->stream, NULL, NULL);
  g_object_unref (r->stream);
  g_bytes_unref (r->reply);
  g_object_unref (r->cancellable);
  g_free (r);
}

static gboolean
refusal_timeout (gpointer data)
{
  Refusal *r = data;

  r->timeout = 0;
  g_cancellable_cancel (r->cancellable);
  return G_SOURCE_REMOVE;
}

static void
refusal_drained (GObject *source, GAsyncResult *result, gpointer data)
{
  Refusal *r = data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  r->drained += n > 0 ? (gsize) n : 0;
  if (n <= 0 || r->drained >= REFUSAL_DRAIN_BYTES)
    {
      refusal_free (r);
      return;
    }
  g_input_stream_read_async (G_INPUT_STREAM (source), r->buffer, sizeof r->buffer,
                             G_PRIORITY_DEFAULT, r->cancellable, refusal_drained, r);
}

static void
refusal_written (GObject *source, GAsyncResult *result, gpointer data)
{
  Refusal *r = data;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL))
    {
      refusal_free (r);
      return;
    }
  if (G_IS_SOCKET_CONNECTION (r->stream))
    g_socket_shutdown (g_socket_connection_get_socket (G_SOCKET_CONNECTION (r->stream)), FALSE,
                       TRUE, NULL);
  {
    GSource *timeout = g_timeout_source_new_seconds (REFUSAL_DRAIN_SECONDS);
    g_source_set_callback (timeout, refusal_timeout, r, NULL);
    r->timeout = g_source_attach (timeout, g_main_context_get_thread_default ());
    g_source_unref (timeout);
  }
  g_input_stream_read_async (g_io_stream_get_input_stream (r->stream), r->buffer,
                             sizeof r->buffer, G_PRIORITY_DEFAULT, r->cancellable,
                             refusal_drained, r);
}

/* Replies STATUS {"error": MESSAGE} to MSG as soon as its headers are read
 * and closes the connection, without reading its body: libsoup would read
 * the whole body before any reply, however large the client says it is. */
static void
refuse_before_body (SbServer *self, SoupServerMessage *msg, guint status, const char *message)
{
  g_autofree char *body = _sb_server_error_text (message);
  g_autoptr (GString) reply = g_string_new (NULL);
  Refusal *r;

  g_string_append_printf (reply, "HTTP/1.1 %u %s\r\n", status, soup_status_get_phrase (status));
  g_string_append (reply, "Content-Type: application/json\r\n"
                          "Cache-Control: no-store\r\n"
                          "X-Content-Type-Options: nosniff\r\n"
                          "Connection: close\r\n");
  g_string_append_printf (reply, "Content-Length: %zu\r\n\r\n%s", strlen (body), body);
  /* the deadline of a request that is no longer libsoup's */
  g_object_set_data (G_OBJECT (msg), "sb-deadline", NULL);
  r = g_new0 (Refusal, 1);
  r->stream = soup_server_message_steal_connection (msg);
  if (r->stream == NULL)
    {
      g_free (r);
      return;
    }
  r->reply = g_string_free_to_bytes (g_steal_pointer (&reply));
  r->cancellable = g_cancellable_new ();
  g_output_stream_write_all_async (g_io_stream_get_output_stream (r->stream),
                                   g_bytes_get_data (r->reply, NULL),
                                   g_bytes_get_size (r->reply), G_PRIORITY_DEFAULT,
                                   r->cancellable, refusal_written, r);
}

/* Before the body is read: refuse what is too large to read at all, and
 * bodies of no stated length. */
static void
handle_early (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
              gpointer user_data)
{
  SbServer *self = user_data;
  SoupMessageHeaders *req = soup_server_message_get_request_headers (msg);
  SoupEncoding encoding = soup_message_headers_get_encoding (req);

  if (encoding == SOUP_ENCODING_CONTENT_LENGTH
      && soup_message_headers_get_content_length (req) > SB_SERVER_MAX_BODY)
    {
      g_autofree char *message = g_strdup_printf ("the request body is larger than %d bytes",
                                                  SB_SERVER_MAX_BODY);
      refuse_before_body (self, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, message);
    }
  else if (encoding == SOUP_ENCODING_CHUNKED || encoding == SOUP_ENCODING_EOF)
    refuse_before_body (self, msg, SOUP_STATUS_LENGTH_REQUIRED,
                        "a request body needs a Content-Length");
}

/* ---- Slow clients: a deadline for each request ----------------------------------- */

static void
destroy_source (gpointer data)
{
  g_source_destroy (data);
  g_source_unref (data);
}

static gboolean
request_too_slow (gpointer data)
{
  SoupServerMessage *msg = data;
  GSocket *socket = soup_server_message_get_socket (msg);

  /* the client sends its request slower than anyone honest would (or
   * keeps an idle connection): close it */
  if (socket != NULL)
    g_socket_shutdown (socket, TRUE, TRUE, NULL);
  return G_SOURCE_REMOVE;
}

static void
request_done (SoupServerMessage *msg, gpointer user_data)
{
  g_object_set_data (G_OBJECT (msg), "sb-deadline", NULL);
}

static void
request_started (SoupServer *server, SoupServerMessage *msg, gpointer user_data)
{
  GSource *deadline = g_timeout_source_new_seconds (SB_SERVER_REQUEST_SECONDS);

  g_source_set_callback (deadline, request_too_slow, msg, NULL);
  g_source_attach (deadline, g_main_context_get_thread_default ());
  g_object_set_data_full (G_OBJECT (msg), "sb-deadline", deadline, destroy_source);
  g_signal_connect (msg, "got-body", G_CALLBACK (request_done), NULL);
  g_signal_connect (msg, "finished", G_CALLBACK (request_done), NULL);
}

/* ---- Start and stop ------------------------------------------------------------------- */

static gboolean
check_commands (SbServer *self, GError **error)
{
  const SbExperiment *exp = sb_study_get_experiment (self->study);
  SbStimulusKind kind = exp->stimulus.kind;
  g_autofree char *cache = NULL;

  if (kind != SB_STIMULUS_IMAGE && kind != SB_STIMULUS_SOUND)
    return TRUE;
  if (!self->allow_commands)
    {
      g_set_error (error, SB_SERVER_ERROR, SB_SERVER_ERROR_COMMANDS,
                   "the study's stimuli are made by the command '%s': serving them runs it "
                   "for every option shown; allow it with --allow-commands (or trust the "
                   "study in the app) only if you trust this study",
                   exp->stimulus.command);
      return FALSE;
    }
  cache = g_build_filename (self->dir, SB_SERVE_FOLDER, "rendered", NULL);
  if (g_mkdir_with_parents (cache, 0700) != 0)
    {
      g_set_error (error, SB_SERVER_ERROR, SB_SERVER_ERROR_STUDY, "cannot create %s", cache);
      return FALSE;
    }
  self->renderer = sb_stimulus_renderer_new (exp, self->dir, cache);
  return TRUE;
}

static gboolean
load_online (SbServer *self, GError **error)
{
  sb_serve_settings_clear (&self->settings);
  if (!sb_serve_settings_load (self->dir, &self->settings, error))
    return FALSE;
  g_clear_pointer (&self->consent_sha256, g_free);
  if (self->settings.consent)
    self->consent_sha256 = sb_serve_sha256 (self->settings.consent);
  g_clear_pointer (&self->access, sb_serve_access_free);
  self->access = sb_serve_access_load (self->dir, error);
  return self->access != NULL;
}

static gboolean
listen_on (SbServer *self, const char *address, guint port, GError **error)
{
  g_autoptr (GInetSocketAddress) where = NULL;
  g_autoptr (GError) err = NULL;
  GSList *uris;

  where = G_INET_SOCKET_ADDRESS (g_inet_socket_address_new_from_string (address, port));
  if (where == NULL)
    {
      g_set_error (error, SB_SERVER_ERROR, SB_SERVER_ERROR_LISTEN,
                   "'%s' is not an IP address (e.g. 127.0.0.1, or 0.0.0.0 for every "
                   "interface)", address);
      return FALSE;
    }
  self->soup = soup_server_new ("server-header", "skewbench", NULL);
  soup_server_add_early_handler (self->soup, NULL, handle_early, self, NULL);
  soup_server_add_handler (self->soup, NULL, handle, self, NULL);
  g_signal_connect (self->soup, "request-started", G_CALLBACK (request_started), self);
  if (!soup_server_listen (self->soup, G_SOCKET_ADDRESS (where), 0, &err))
    {
      g_set_error (error, SB_SERVER_ERROR, SB_SERVER_ERROR_LISTEN, "cannot listen on %s:%u: %s",
                   address, port, err->message);
      g_clear_object (&self->soup);
      return FALSE;
    }
  uris = soup_server_get_uris (self->soup);
  self->port = uris ? (guint) g_uri_get_port (uris->data) : port;
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  self->url = strchr (address, ':') ? g_strdup_printf ("http://[%s]:%u/", address, self->port)
                                    : g_strdup_printf ("http://%s:%u/", address, self->port);
  return TRUE;
}

gboolean
sb_server_start (SbServer *self, const char *address, guint port, GError **error)
{
  g_return_val_if_fail (SB_IS_SERVER (self), FALSE);
  g_return_val_if_fail (!self->running, FALSE);

  if (address == NULL)
    address = "127.0.0.1";
  if (!sb_study_hold (self->study, "skewgp serve", error))
    return FALSE;
  if (!load_online (self, error) || !check_commands (self, error)
      || !listen_on (self, address, port, error))
    {
      g_clear_object (&self->renderer);
      sb_study_release (self->study);
      return FALSE;
    }
  g_free (self->admin_token);
  self->admin_token = sb_serve_new_token ();
  self->started = g_get_monotonic_time ();
  self->running = TRUE;
  _sb_server_jobs_start (self);
  _sb_server_fits_start (self);
  return TRUE;
}

void
sb_server_stop (SbServer *self)
{
  g_return_if_fail (SB_IS_SERVER (self));
  if (!self->running)
    return;
  self->running = FALSE;
  soup_server_disconnect (self->soup);
  /* the jobs under way finish (what they record is saved); their
   * replies go nowhere */
  while (self->n_pending > 0)
    g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
  _sb_server_jobs_stop (self);
  /* a fit under way stops at its next progress report; what it stored
   * is whole (written atomically) */
  _sb_server_fits_stop (self);
  if (self->renderer)
    sb_stimulus_renderer_cancel_all (self->renderer);
  g_clear_object (&self->renderer);
  g_clear_object (&self->soup);
  g_clear_pointer (&self->url, g_free);
  sb_study_release (self->study);
  g_signal_emit (self, signals[STOPPED], 0);
}

/* ---- The object -------------------------------------------------------------------------- */

static void
sb_server_dispose (GObject *object)
{
  SbServer *self = SB_SERVER (object);

  if (self->running)
    sb_server_stop (self);
  G_OBJECT_CLASS (sb_server_parent_class)->dispose (object);
}

static void
sb_server_finalize (GObject *object)
{
  SbServer *self = SB_SERVER (object);

  g_clear_object (&self->study);
  g_free (self->dir);
  g_free (self->real_dir);
  g_free (self->admin_token);
  g_strfreev (self->origins);
  sb_serve_settings_clear (&self->settings);
  g_free (self->consent_sha256);
  g_clear_pointer (&self->access, sb_serve_access_free);
  g_ptr_array_unref (self->live_order);
  g_hash_table_unref (self->live);
  g_hash_table_unref (self->buckets);
  G_OBJECT_CLASS (sb_server_parent_class)->finalize (object);
}

static void
sb_server_class_init (SbServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sb_server_dispose;
  object_class->finalize = sb_server_finalize;
  signals[PARTICIPANT_JOINED] =
    g_signal_new ("participant-joined", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[PARTICIPANT_CHANGED] =
    g_signal_new ("participant-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[ANSWER_RECORDED] =
    g_signal_new ("answer-recorded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[STOPPED] = g_signal_new ("stopped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sb_server_init (SbServer *self)
{
  self->burst = 60;
  self->rate = 20;
  self->live = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, live_free);
  self->live_order = g_ptr_array_new ();
  self->buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

SbServer *
sb_server_new (SbStudy *study)
{
  static gsize registered = 0;
  SbServer *self;

  /* the page's resources, registered by hand: a static library's
   * constructor is dropped when nothing else of its file is linked */
  if (g_once_init_enter (&registered))
    {
      sb_server_register_resource ();
      g_once_init_leave (&registered, 1);
    }

  g_return_val_if_fail (SB_IS_STUDY (study), NULL);
  self = g_object_new (SB_TYPE_SERVER, NULL);
  self->study = g_object_ref (study);
  self->dir = g_canonicalize_filename (sb_study_get_dir (study), NULL);
  self->real_dir = realpath (self->dir, NULL);
  if (self->real_dir == NULL)
    self->real_dir = g_strdup (self->dir);
  return self;
}

void
sb_server_set_allow_commands (SbServer *self, gboolean allow)
{
  g_return_if_fail (SB_IS_SERVER (self));
  self->allow_commands = allow;
}

void
sb_server_set_origins (SbServer *self, const char *const *origins)
{
  g_return_if_fail (SB_IS_SERVER (self));
  g_strfreev (self->origins);
  self->origins = g_strdupv ((char **) origins);
}

void
sb_server_set_limits (SbServer *self, guint burst, double rate)
{
  g_return_if_fail (SB_IS_SERVER (self));
  self->burst = MAX (burst, 1u);
  self->rate = MAX (rate, 0.01);
}

gboolean
sb_server_is_running (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), FALSE);
  return self->running;
}

SbStudy *
sb_server_get_study (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), NULL);
  return self->study;
}

const char *
sb_server_get_url (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), NULL);
  return self->url;
}

guint
sb_server_get_port (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), 0);
  return self->port;
}

const char *
sb_server_get_admin_token (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), NULL);
  return self->admin_token;
}

guint64
sb_server_get_n_requests (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), 0);
  return self->n_requests;
}

guint64
sb_server_get_n_answers (SbServer *self)
{
  g_return_val_if_fail (SB_IS_SERVER (self), 0);
  return self->n_answers;
}
