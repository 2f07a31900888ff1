/* test-cli-json.c — every `skewgp` command that reads JSON refuses, with
 * exit 2 and one line naming the position, what the strict reader
 * (core/sb-json-read.h) refuses: documents too deep or too large, duplicate
 * members, trailing content, numbers json-glib would misread. */
#include <glib/gstdio.h>
#include <string.h>

#include "cli-harness.h"

static const char *const json_commands[] = {
  "mvn-cdf", "tmvn-sample", "posterior", "fit", "link",
};

/* 100,000 levels crashed json-glib's recursive parser (stack overflow). */
static void
test_deep_document (void)
{
  g_autofree char *deep = g_strnfill (100000, '[');
  for (guint i = 0; i < G_N_ELEMENTS (json_commands); i++)
    cli_assert_input_error (json_commands[i], deep,
                            "<stdin>:1:257: the document is nested deeper than 256 levels");

  /* The same from a file: the message names it. */
  g_autofree char *dir = g_dir_make_tmp ("skewgp-json-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "deep.json", NULL);
  g_assert_true (g_file_set_contents (path, deep, -1, NULL));
  CliResult r = cli_run ("mvn-cdf", path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  g_autofree char *needle = g_strdup_printf ("%s:1:257:", path);
  g_assert_nonnull (strstr (r.err, needle));
  cli_result_clear (&r);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_large_document (void)
{
  /* 64 MiB of whitespace after a valid document. */
  GString *big = g_string_new ("{\"cov\": [[1]], \"upper\": [0]}");
  g_string_set_size (big, 64 * 1024 * 1024 + 1);
  memset (big->str + 28, ' ', big->len - 28);
  cli_assert_input_error ("mvn-cdf", big->str, "more than the limit of 64 MiB");
  g_string_free (big, TRUE);
}

/* json-glib 1.6 read this bound as -1 (probability 0.1587 instead of 1). */
static void
test_integer_beyond_64_bits (void)
{
  cli_assert_input_error ("mvn-cdf", "{\"cov\":[[1]],\"upper\":[77777777777777777777777]}",
                          "<stdin>:1:23: the integer 77777777777777777777777 is outside the "
                          "64-bit range");
  cli_assert_input_error ("mvn-cdf", "{\"cov\":[[1]],\"upper\":[77777777777777777777777]}",
                          "(in 'upper'[0])");
  cli_assert_input_error ("posterior",
                          "{\"kernel\": {\"type\": \"rbf\", \"variance\": 1, \"lengthscales\": [1]},\n"
                          " \"observations\": [{\"kind\": \"binary\", \"x\": [0],\n"
                          "   \"label\": 99999999999999999999}]}",
                          "<stdin>:3:13: the integer 99999999999999999999");
  /* The same value as a real is read (and is then a bound at +infinity). */
  CliResult r = cli_run ("mvn-cdf", NULL, "{\"cov\":[[1]],\"upper\":[7.7e22]}");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpfloat_with_epsilon (
      json_object_get_double_member (json_node_get_object (r.json), "value"), 1.0, 1e-12);
  cli_result_clear (&r);
}

/* Counts and seeds: an integer literal is taken exactly (and quoted as
 * written), a real one only up to 2^53, where it still names one integer. */
static void
test_integer_fields_exact (void)
{
  /* 2^53 + 1 was rounded to 2^53 on the way through a double */
  cli_assert_input_error ("mvn-cdf", "{\"cov\":[[1]],\"upper\":[0],\"seed\":9007199254740993}",
                          "got 9007199254740993");
  cli_assert_input_error ("mvn-cdf",
                          "{\"cov\":[[1]],\"upper\":[0],\"points\":9223372036854775807}",
                          "got 9223372036854775807");
  cli_assert_input_error ("mvn-cdf", "{\"cov\":[[1]],\"upper\":[0],\"points\":1e20}",
                          "beyond 2^53");
  CliResult r = cli_run ("mvn-cdf", NULL, "{\"cov\":[[1]],\"upper\":[0],\"points\":1e3}");
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
}

static void
test_strict_json (void)
{
  /* The last "upper" used to win silently. */
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0], \"upper\": [5]}",
                          "<stdin>:1:30: the member 'upper' appears twice in one object "
                          "(first at 1:16)");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0]}\ngarbage",
                          "<stdin>:2:1: unexpected content after the end of the document");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [001]}", "<stdin>:1:26:");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [.2013]}", "not .5");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1]], \"upper\": [0x10]}", "hexadecimal");
  cli_assert_input_error ("mvn-cdf", "{\"cov\": [[1e999]], \"upper\": [0]}",
                          "<stdin>:1:11: the number 1e999 is too large");
  cli_assert_input_error ("tmvn-sample", "{\"mean\": [0], \"cov\": [[1]], \"mean\": [1]}",
                          "'mean' appears twice");
  cli_assert_input_error ("fit", "", "malformed JSON: <stdin>:1:1: the document is empty");
}

/* `skewgp link --session` reads a session file through the same reader. */
static void
test_session_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("skewgp-json-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "session.json", NULL);
  g_autofree char *deep = g_strnfill (100000, '[');
  const struct { const char *text, *needle; } cases[] = {
    { deep, ":1:257: the document is nested deeper than 256 levels" },
    { "{\"format\": \"skewbench-session\",\n \"format\": \"x\"}",
      ":2:2: the member 'format' appears twice in one object (first at 1:2)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_true (g_file_set_contents (path, cases[i].text, -1, NULL));
      const char *exe = g_getenv ("SKEWGP");
      g_autoptr (GError) error = NULL;
      g_autoptr (GSubprocess) proc = g_subprocess_new (
          G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, exe, "link",
          "--session", path, NULL);
      g_assert_no_error (error);
      g_autofree char *out = NULL, *err = NULL;
      g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, &err, &error);
      g_assert_no_error (error);
      g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 2);
      g_assert_cmpstr (out, ==, "");
      g_autofree char *needle = g_strconcat (path, cases[i].needle, NULL);
      g_assert_nonnull (strstr (err, needle));
      /* The file is left as it was. */
      g_autofree char *after = NULL;
      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, cases[i].text);
    }
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/json/deep-document", test_deep_document);
  g_test_add_func ("/cli/json/large-document", test_large_document);
  g_test_add_func ("/cli/json/integer-beyond-64-bits", test_integer_beyond_64_bits);
  g_test_add_func ("/cli/json/integer-fields-exact", test_integer_fields_exact);
  g_test_add_func ("/cli/json/strict", test_strict_json);
  g_test_add_func ("/cli/json/session-file", test_session_file);
  return g_test_run ();
}
