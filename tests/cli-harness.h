/* cli-harness.h — run the real `skewgp` binary from a GLib test.
 *
 * The binary's path comes from the SKEWGP environment variable that
 * tests/meson.build sets. Header-only so each CLI test program stays
 * self-contained.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <stdarg.h>

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

/* Runs `skewgp ARGS...` (NULL-terminated) with INPUT (may be NULL) on
 * stdin; the result's json is stdout parsed when it is JSON. */
static inline CliResult G_GNUC_NULL_TERMINATED
cli_run_args (const char *input, const char *first, ...)
{
  const char *exe = g_getenv ("SKEWGP");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  CliResult r = { 0 };
  va_list ap;

  g_assert_nonnull (exe);
  g_ptr_array_add (argv, (gpointer) exe);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_newv ((const char *const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                              | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, input, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  r.status = g_subprocess_get_exit_status (proc);
  if (r.out && *r.out && json_parser_load_from_data (parser, r.out, -1, NULL))
    r.json = json_node_copy (json_parser_get_root (parser));
  if (r.status != 0)
    g_test_message ("%s: exit %d: %s", first, r.status, r.err);
  return r;
}

/* The result's JSON object (asserted to be one). */
static inline JsonObject *
cli_object (const CliResult *r)
{
  g_assert_nonnull (r->json);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (r->json));
  return json_node_get_object (r->json);
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
