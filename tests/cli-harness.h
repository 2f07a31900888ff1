/* cli-harness.h — run the real `skewgp` binary from a GLib test.
 *
 * The binary's path comes from the SKEWGP environment variable that
 * tests/meson.build sets. Header-only so each CLI test program stays
 * self-contained.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

typedef struct {
  int status;     /* exit status */
  char *out;      /* stdout */
  char *err;      /* stderr */
  JsonNode *json; /* parsed stdout, NULL if it is not JSON */
} CliResult;

static inline void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
  g_clear_pointer (&r->json, json_node_unref);
}

/* Runs `skewgp COMMAND -` with INPUT on stdin (or `skewgp COMMAND ARG` when
 * ARG is non-NULL and INPUT is NULL). */
static inline CliResult
cli_run (const char *command, const char *arg, const char *input)
{
  const char *exe = g_getenv ("SKEWGP");
  g_assert_nonnull (exe);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_new (
      G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
        | G_SUBPROCESS_FLAGS_STDERR_PIPE,
      &error, exe, command, arg ? arg : "-", NULL);
  g_assert_no_error (error);
  CliResult r = { 0 };
  g_subprocess_communicate_utf8 (proc, input, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  r.status = g_subprocess_get_exit_status (proc);
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (r.out && *r.out && json_parser_load_from_data (parser, r.out, -1, NULL))
    r.json = json_node_copy (json_parser_get_root (parser));
  return r;
}

/* Asserts a bad-input rejection: exit 2, nothing on stdout, exactly one line
 * on stderr that contains NEEDLE (e.g. the field name). */
static inline void
cli_assert_input_error (const char *command, const char *input, const char *needle)
{
  CliResult r = cli_run (command, NULL, input);
  if (r.status != 2 || (r.out && *r.out) || !r.err || !strstr (r.err, needle))
    g_test_message ("input: %s\nstatus: %d\nstdout: %s\nstderr: %s", input,
                    r.status, r.out, r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, needle));
  /* one line: the only newline is the last character */
  g_assert_true (strchr (r.err, '\n') == r.err + strlen (r.err) - 1);
  cli_result_clear (&r);
}

/* Asserts a numerical failure: exit 1, nothing on stdout, exactly one line
 * on stderr that contains NEEDLE (the quantity that failed). */
static inline void
cli_assert_numeric_error (const char *command, const char *input, const char *needle)
{
  CliResult r = cli_run (command, NULL, input);
  if (r.status != 1 || (r.out && *r.out) || !r.err || !strstr (r.err, needle))
    g_test_message ("input: %s\nstatus: %d\nstdout: %s\nstderr: %s", input,
                    r.status, r.out, r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, needle));
  g_assert_true (strchr (r.err, '\n') == r.err + strlen (r.err) - 1);
  cli_result_clear (&r);
}
