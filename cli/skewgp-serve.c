/* skewgp-serve.c — `skewgp serve STUDY`: the study server (server/sb-server.h)
 * headless, until SIGTERM or SIGINT. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-serve-store.h"
#include "sb-server.h"

#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char serve_help[] =
  "Usage: skewgp serve STUDY [--address A] [--port N] [--allow-commands]\n"
  "                          [--origin URL ...] [--consent FILE|--no-consent]\n"
  "                          [--completion-url URL] [--break-every N]\n"
  "                          [--max-participants N] [--open|--closed]\n\n"
  "Serves the study folder STUDY (skewgp study --help) to its participants\n"
  "over HTTP: the participant page at / for any browser or phone, and the\n"
  "protocol below for other clients (jsPsych: examples/jspsych). One process\n"
  "is the study's only writer: it holds the study's lock while it runs, so\n"
  "skewgp study add/set is refused meanwhile (stop the server first). Every\n"
  "answer is saved in the participant's session file before its reply is\n"
  "sent: a kill at any moment loses no acknowledged answer.\n\n"
  "When ready it prints one line on standard output:\n"
  "  {\"url\": \"http://127.0.0.1:8080/\", \"admin_token\": \"...\",\n"
  "   \"study\": \"STUDY\"}\n"
  "and serves until SIGTERM or SIGINT (Ctrl+C), then stops cleanly.\n\n"
  "Options:\n"
  "  --address A         the IP address to listen on (default 127.0.0.1: this\n"
  "                      machine only; for participants elsewhere put a TLS\n"
  "                      reverse proxy in front, see the README)\n"
  "  --port N            the port (default 8080; 0 picks a free one)\n"
  "  --allow-commands    let the study's stimulus command run for the options\n"
  "                      shown (images and sounds made on the server, cached\n"
  "                      in STUDY/online/rendered); without it such a study is\n"
  "                      refused. Only for studies you trust.\n"
  "  --origin URL        a page at URL (scheme://host[:port]) may call the API\n"
  "                      (CORS), e.g. a jsPsych experiment hosted elsewhere;\n"
  "                      repeat for more. The server's own page always may.\n"
  "The page's settings are kept in STUDY/online/settings.json; these options\n"
  "change them (and are remembered for the next start):\n"
  "  --consent FILE      the consent text (UTF-8) shown before the first\n"
  "                      question; joining then needs consent, recorded with\n"
  "                      the time and the text's SHA-256. --no-consent: none\n"
  "  --completion-url URL  where a participant who is done is sent (e.g.\n"
  "                      Prolific's https://app.prolific.com/submissions/\n"
  "                      complete?cc=CODE)\n"
  "  --break-every N     a break screen after every N answers (0: none)\n"
  "  --max-participants N  refuse new participants beyond N (0: no limit)\n"
  "  --open, --closed    whether new participants may join\n\n"
  "The protocol (JSON over HTTP; every error is {\"error\": \"...\"} with a\n"
  "fitting status: 400 bad request, 401 no or wrong token, 403 closed or not\n"
  "allowed, 404 no such thing, 405 wrong method, 409 stale answer, 411 no\n"
  "Content-Length, 413 body over 64 KiB, 429 too many requests, 503 busy):\n"
  "  POST /api/join      {\"external_id\"?: \"...\", \"consent\"?: true}\n"
  "                      -> {\"participant\": \"P-XXXX\", \"token\": \"...\"}\n"
  "      external_id (a Prolific PID or a lab code, 1 to 128 printable\n"
  "      characters) is kept in STUDY/online/access.json, never in the\n"
  "      answers or exports (skewgp export STUDY --external-ids writes the\n"
  "      key file); the same external id gets its participant back (with a\n"
  "      new token). 403 when the study is closed, full, or consent is\n"
  "      asked and not given.\n"
  "  GET /api/question   Authorization: Bearer TOKEN\n"
  "      -> what skewgp ask STUDY --participant CODE prints, plus\n"
  "      \"stimuli\": one per option, in the order of \"options\":\n"
  "        {\"kind\": \"colour\", \"rgb\": \"#RRGGBB\", \"mapped\": bool}\n"
  "        {\"kind\": \"image\" | \"sound\", \"url\": \"/api/stimulus/Q/I\",\n"
  "         \"caption\"?: text}   (fetch it with the same token)\n"
  "        {\"kind\": \"text\", \"text\": ...}\n"
  "        {\"kind\": \"setting\", \"text\": \"name = value unit, ...\"}\n"
  "      and \"progress\": {\"answers\", \"budget\"}. When the budget is used:\n"
  "      {\"answers\", \"budget\", \"done\": true, \"completion_url\"?}.\n"
  "  POST /api/answer    Bearer TOKEN, exactly the JSON skewgp tell takes\n"
  "      -> {\"recorded\": ID, \"answers\", \"budget\", \"done\"}. An answer to a\n"
  "      question that is not open is refused (409) and changes nothing; the\n"
  "      same answer sent again (a retry after a lost reply) gets the first\n"
  "      reply and is recorded once.\n"
  "  GET /api/stimulus/Q/I  Bearer TOKEN: option I's file of the open\n"
  "      question Q (only files inside the study folder are served).\n"
  "  GET /api/info       the page's texts: title, prompt, ties, budget,\n"
  "      consent, break_every, open.\n"
  "  GET /api/status     Bearer ADMIN-TOKEN (printed at start): every\n"
  "      participant's answers and state (joined, answering, done, idle).\n"
  "Each token may make 60 requests in a burst, refilled at 20 per second\n"
  "(joins: the same per client address); beyond, 429.\n"
  "Exit status: 0 after a clean stop, 2 when the study cannot be served\n"
  "(another writer holds it, the port is taken, commands not allowed).\n";

typedef struct {
  const char *study;
  char *address;
  guint port;
  gboolean allow_commands;
  GPtrArray *origins;      /* scheme://host[:port], NULL-terminated */
  char *consent;
  gboolean no_consent;
  char *completion_url;
  gint64 break_every;      /* -1: unchanged */
  gint64 max_participants; /* -1: unchanged */
  int open;                /* -1 unchanged, 0 closed, 1 open */
} ServeArgs;

static void
serve_args_clear (ServeArgs *a)
{
  g_free (a->address);
  g_free (a->consent);
  g_free (a->completion_url);
  g_clear_pointer (&a->origins, g_ptr_array_unref);
}

/* TEXT, when given, as a whole number in [0, MAX] into OUT. */
static gboolean
read_count (const char *flag, const char *text, long max, gint64 *out, GError **error)
{
  long v;

  if (text == NULL)
    return TRUE;
  if (!skewgp_option_long (flag, text, 0, max, &v, error))
    return FALSE;
  *out = v;
  return TRUE;
}

/* Each --origin as scheme://host[:port], without a trailing slash. */
static gboolean
read_origins (char **origins, GPtrArray *out, GError **error)
{
  for (guint i = 0; origins && origins[i]; i++)
    {
      const char *value = origins[i];
      g_autoptr (GUri) uri = g_uri_parse (value, G_URI_FLAGS_NONE, NULL);
      if (uri == NULL || g_uri_get_host (uri) == NULL
          || (g_strcmp0 (g_uri_get_path (uri), "") != 0
              && g_strcmp0 (g_uri_get_path (uri), "/") != 0))
        return skewgp_input_error (error, "--origin takes scheme://host[:port], not '%s'", value);
      g_ptr_array_add (out, g_strndup (value, strlen (value) - g_str_has_suffix (value, "/")));
    }
  g_ptr_array_add (out, NULL);
  return TRUE;
}

static gboolean
parse_serve_args (int argc, char **argv, ServeArgs *a, GError **error)
{
  g_autofree char *port = NULL, *break_every = NULL, *max_participants = NULL;
  g_auto (GStrv) origins = NULL;
  gboolean open = FALSE, closed = FALSE;
  gint64 port_number = 8080;
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  const GOptionEntry entries[] = {
    { "address", 0, 0, G_OPTION_ARG_STRING, &a->address, NULL, NULL },
    { "port", 0, 0, G_OPTION_ARG_STRING, &port, NULL, NULL },
    { "origin", 0, 0, G_OPTION_ARG_STRING_ARRAY, &origins, NULL, NULL },
    { "consent", 0, 0, G_OPTION_ARG_FILENAME, &a->consent, NULL, NULL },
    { "no-consent", 0, 0, G_OPTION_ARG_NONE, &a->no_consent, NULL, NULL },
    { "completion-url", 0, 0, G_OPTION_ARG_STRING, &a->completion_url, NULL, NULL },
    { "break-every", 0, 0, G_OPTION_ARG_STRING, &break_every, NULL, NULL },
    { "max-participants", 0, 0, G_OPTION_ARG_STRING, &max_participants, NULL, NULL },
    { "open", 0, 0, G_OPTION_ARG_NONE, &open, NULL, NULL },
    { "closed", 0, 0, G_OPTION_ARG_NONE, &closed, NULL, NULL },
    { "allow-commands", 0, 0, G_OPTION_ARG_NONE, &a->allow_commands, NULL, NULL },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "serve", entries, NULL, NULL, 1 };

  a->break_every = -1;
  a->max_participants = -1;
  a->open = -1;
  a->origins = g_ptr_array_new_with_free_func (g_free);
  if (!skewgp_parse_options (&spec, argc, argv, positional, error)
      || !read_count ("--port", port, 65535, &port_number, error)
      || !read_count ("--break-every", break_every, 100000, &a->break_every, error)
      || !read_count ("--max-participants", max_participants, G_MAXINT, &a->max_participants,
                      error)
      || !read_origins (origins, a->origins, error))
    return FALSE;
  if (positional->len != 1)
    return skewgp_input_error (error, "expected STUDY (see skewgp serve --help)");
  a->study = g_ptr_array_index (positional, 0);
  if (a->consent && a->no_consent)
    return skewgp_input_error (error, "--consent and --no-consent contradict each other");
  if (open && closed)
    return skewgp_input_error (error, "--open and --closed contradict each other");
  a->open = open ? 1 : closed ? 0 : -1;
  if (a->address == NULL)
    a->address = g_strdup ("127.0.0.1");
  a->port = (guint) port_number;
  return TRUE;
}

/* The options that change STUDY's settings file, saved before serving. */
static gboolean
update_settings (const ServeArgs *a, GError **error)
{
  SbServeSettings s;
  GError *err = NULL;
  gboolean changed = FALSE, ok;

  if (!sb_serve_settings_load (a->study, &s, &err))
    return skewgp_forward_error (err, error);
  if (a->consent)
    {
      g_autofree char *text = NULL;
      if (!g_file_get_contents (a->consent, &text, NULL, &err))
        {
          sb_serve_settings_clear (&s);
          return skewgp_forward_error (err, error);
        }
      g_free (s.consent);
      s.consent = g_steal_pointer (&text);
      changed = TRUE;
    }
  if (a->no_consent)
    {
      g_clear_pointer (&s.consent, g_free);
      changed = TRUE;
    }
  if (a->completion_url)
    {
      g_free (s.completion_url);
      s.completion_url = g_strdup (a->completion_url);
      changed = TRUE;
    }
  if (a->break_every >= 0)
    s.break_every = (guint) a->break_every, changed = TRUE;
  if (a->max_participants >= 0)
    s.max_participants = (guint) a->max_participants, changed = TRUE;
  if (a->open >= 0)
    s.open = a->open, changed = TRUE;
  ok = !changed || sb_serve_settings_save (a->study, &s, &err);
  sb_serve_settings_clear (&s);
  return ok || skewgp_forward_error (err, error);
}

static gboolean
quit_on_signal (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_CONTINUE;
}

static void
log_change (SbServer *server, const char *code, gpointer user_data)
{
  GPtrArray *people = sb_server_get_participants (server);

  for (guint i = 0; i < people->len; i++)
    {
      SbServeParticipant *p = g_ptr_array_index (people, i);
      if (g_str_equal (p->code, code))
        fprintf (stderr, "skewgp serve: %s %s, %u of %u answers\n", code,
                 sb_serve_state_to_string (p->state), p->answers, p->budget);
    }
}

static gboolean
run_serve (ServeArgs *a, GError **error)
{
  g_autoptr (SbStudy) study = NULL;
  g_autoptr (SbServer) server = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) ready = NULL;
  GError *err = NULL;
  guint term, intr;

  if ((study = skewgp_open_study (a->study, error)) == NULL || !update_settings (a, error))
    return FALSE;
  server = sb_server_new (study);
  sb_server_set_allow_commands (server, a->allow_commands);
  sb_server_set_origins (server, (const char *const *) a->origins->pdata);
  if (!sb_server_start (server, a->address, a->port, &err))
    return skewgp_forward_error (err, error);

  loop = g_main_loop_new (NULL, FALSE);
  term = g_unix_signal_add (SIGTERM, quit_on_signal, loop);
  intr = g_unix_signal_add (SIGINT, quit_on_signal, loop);
  g_signal_connect (server, "participant-changed", G_CALLBACK (log_change), NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "url");
  json_builder_add_string_value (b, sb_server_get_url (server));
  json_builder_set_member_name (b, "admin_token");
  json_builder_add_string_value (b, sb_server_get_admin_token (server));
  json_builder_set_member_name (b, "study");
  json_builder_add_string_value (b, a->study);
  json_builder_end_object (b);
  ready = json_builder_get_root (b);
  skewgp_print_json_line (ready);
  fflush (stdout);

  g_main_loop_run (loop);
  g_source_remove (term);
  g_source_remove (intr);
  sb_server_stop (server);
  fprintf (stderr, "skewgp serve: stopped after %" G_GUINT64_FORMAT " requests, %"
           G_GUINT64_FORMAT " answers\n", sb_server_get_n_requests (server),
           sb_server_get_n_answers (server));
  return TRUE;
}

static int
serve_argv (int argc, char **argv)
{
  ServeArgs a = { 0 };
  GError *error = NULL;

  if (parse_serve_args (argc, argv, &a, &error) && !skewgp_is_study (a.study))
    skewgp_input_error (&error, "'%s' is not a study folder (skewgp study new makes one)",
                        a.study);
  if (error == NULL)
    run_serve (&a, &error);
  serve_args_clear (&a);
  return skewgp_finish ("serve", error);
}

const SkewgpCommand skewgp_command_serve = {
  .name = "serve", .summary = "serve a study's participants over HTTP (the participant page)",
  .help = serve_help, .run_argv = serve_argv,
};
