/* test-json-read.c — the strict JSON reader every SkewBench reader uses. */

#include "sb-json-read.h"
#include "sb-json-write.h"

#include <stdio.h>
#include <string.h>

/* Asserts that TEXT is refused with CODE at LINE:COLUMN and that the
 * message contains NEEDLE. */
static void
assert_refused (const char *text, gssize len, SbJsonReadError code, guint line, guint column,
                const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = sb_json_read (text, len, &error);
  /* TAP output must stay UTF-8. */
  g_autofree char *shown = g_utf8_make_valid (text, len < 0 ? -1 : MIN (len, 200));
  if (root != NULL || error == NULL || !g_error_matches (error, SB_JSON_READ_ERROR, (int) code))
    g_test_message ("input: %.200s\nerror: %s", shown, error ? error->message : "(none)");
  g_assert_null (root);
  g_assert_error (error, SB_JSON_READ_ERROR, (int) code);
  g_test_message ("%.60s -> %s", shown, error->message);
  guint l = 0, c = 0;
  g_assert_cmpint (sscanf (error->message, "%u:%u:", &l, &c), ==, 2);
  g_assert_cmpuint (l, ==, line);
  g_assert_cmpuint (c, ==, column);
  g_assert_nonnull (strstr (error->message, needle));
}

/* What json-glib alone makes of TEXT, written back. */
static char *
plain_json_glib (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return sb_json_write (json_parser_get_root (parser), FALSE, NULL);
}

static void
test_accepts_json (void)
{
  const char *const good[] = {
    "{}", "[]", "0", "-0", "\"text\"", "true", "null",
    "{\"a\": [1, -2.5, 3e2, 4E-2, 0.125, -0.0, 1e-400], \"b\": {\"c\": null}}",
    "[9223372036854775807, -9223372036854775808, 1.7976931348623157e308]",
    "{\"\\u00e9t\\u00e9\": \"\\ud83d\\ude00 \\\" \\\\ \\/ \\b \\f \\n \\r \\t\"}",
    "\r\n  {\"crlf\"\r\n:\t1 }  \r\n",
    "{\"a\": 1, \"b\": {\"a\": 2}, \"c\": [{\"a\": 3}, {\"a\": 4}]}",  /* same name, other objects */
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) root = sb_json_read (good[i], -1, &error);
      g_assert_no_error (error);
      g_assert_nonnull (root);
      g_autofree char *ours = sb_json_write (root, FALSE, NULL);
      g_autofree char *theirs = plain_json_glib (good[i]);
      g_assert_cmpstr (ours, ==, theirs);
    }
  /* Values come through exactly: the largest integers and a decoded pair. */
  g_autoptr (JsonNode) ints = sb_json_read ("[9223372036854775807, -9223372036854775808]", -1, NULL);
  g_assert_cmpint (json_array_get_int_element (json_node_get_array (ints), 0), ==, G_MAXINT64);
  g_assert_cmpint (json_array_get_int_element (json_node_get_array (ints), 1), ==, G_MININT64);
  g_autoptr (JsonNode) str = sb_json_read ("[\"\\ud83d\\ude00\"]", -1, NULL);
  g_assert_cmpstr (json_array_get_string_element (json_node_get_array (str), 0), ==,
                   "\xF0\x9F\x98\x80");
  /* A byte-order mark is skipped; a length bounds the text. */
  g_autoptr (JsonNode) bom = sb_json_read ("\xEF\xBB\xBF[1]", -1, NULL);
  g_assert_nonnull (bom);
  g_autoptr (JsonNode) bounded = sb_json_read ("[1] trailing", 3, NULL);
  g_assert_nonnull (bounded);
}

/* A string of N '[' then N ']' (CLOSE) or nothing else. */
static char *
nested (gsize n, gboolean close)
{
  char *text = g_malloc (2 * n + 1);
  memset (text, '[', n);
  memset (text + n, ']', close ? n : 0);
  text[close ? 2 * n : n] = '\0';
  return text;
}

static void
test_depth_limit (void)
{
  /* 100,000 levels: json-glib alone overflows its stack on these. */
  g_autofree char *open = nested (100000, FALSE);
  g_autofree char *closed = nested (100000, TRUE);
  assert_refused (open, -1, SB_JSON_READ_ERROR_TOO_DEEP, 1, SB_JSON_READ_MAX_DEPTH + 1,
                  "nested deeper than 256 levels");
  assert_refused (closed, -1, SB_JSON_READ_ERROR_TOO_DEEP, 1, SB_JSON_READ_MAX_DEPTH + 1,
                  "nested deeper than 256 levels");
  /* Objects count as levels too, and the limit itself is accepted. */
  GString *objects = g_string_new (NULL);
  for (int i = 0; i < 300; i++)
    g_string_append (objects, "{\"a\":");
  assert_refused (objects->str, -1, SB_JSON_READ_ERROR_TOO_DEEP, 1, 5 * 256 + 1, "nested");
  g_string_free (objects, TRUE);
  g_autofree char *at_limit = nested (SB_JSON_READ_MAX_DEPTH, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = sb_json_read (at_limit, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (root);
}

static void
test_size_limit (void)
{
  gsize n = SB_JSON_READ_MAX_BYTES + 1;
  char *text = g_malloc (n);
  memset (text, ' ', n);
  memcpy (text, "[0]", 3);
  assert_refused (text, (gssize) n, SB_JSON_READ_ERROR_TOO_LARGE, 1, 1, "64 MiB");
  /* The limit itself is read. */
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = sb_json_read (text, (gssize) (n - 1), &error);
  g_assert_no_error (error);
  g_assert_nonnull (root);
  g_free (text);
}

typedef struct {
  const char *text;
  SbJsonReadError code;
  guint line, column;
  const char *needle;
} Bad;

static void
test_strict_rules (void)
{
  const Bad bad[] = {
    /* Duplicate member names, also when spelt with escapes; nested ones
     * name their object. */
    { "{\"a\": 1, \"a\": 2}", SB_JSON_READ_ERROR_DUPLICATE_KEY, 1, 10, "'a' appears twice" },
    { "{\"a\": 1,\n \"\\u0061\": 2}", SB_JSON_READ_ERROR_DUPLICATE_KEY, 2, 2, "first at 1:2" },
    { "{\"x\": {\"k\": 1, \"k\": 2}}", SB_JSON_READ_ERROR_DUPLICATE_KEY, 1, 16, "(in 'x')" },
    /* Content after the document. */
    { "{\"a\": 1} x", SB_JSON_READ_ERROR_SYNTAX, 1, 10, "after the end" },
    { "[1]\n[2]", SB_JSON_READ_ERROR_SYNTAX, 2, 1, "after the end" },
    { "{} // comment", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "after the end" },
    /* Numbers JSON forbids. */
    { "[001]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "not 01" },
    { "[-012]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "not 01" },
    { "{\"t\": .2013}", SB_JSON_READ_ERROR_SYNTAX, 1, 7, "not .5" },
    { "[0x1F]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "hexadecimal" },
    { "[+1]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "'+'" },
    { "[1.]", SB_JSON_READ_ERROR_SYNTAX, 1, 3, "decimal point" },
    { "[1e]", SB_JSON_READ_ERROR_SYNTAX, 1, 3, "exponent" },
    { "[-]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "'-'" },
    { "[1.5x]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "not a JSON number" },
    { "[NaN]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "'NaN' is not a JSON value" },
    { "[-Infinity]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "'-' must be followed by a digit" },
    /* Numbers json-glib would read wrongly. */
    { "{\"cov\": [[1]], \"upper\": [77777777777777777777777]}", SB_JSON_READ_ERROR_NUMBER, 1, 26,
      "77777777777777777777777 is outside the 64-bit range (a real number this large is "
      "written with an exponent, e.g. 7.8e+22) (in 'upper'[0])" },
    { "[9223372036854775808]", SB_JSON_READ_ERROR_NUMBER, 1, 2, "64-bit" },
    { "[-9223372036854775809]", SB_JSON_READ_ERROR_NUMBER, 1, 2, "64-bit" },
    { "{\"obs\": [{\"x\": [0.5,\n 1e999]}]}", SB_JSON_READ_ERROR_NUMBER, 2, 2,
      "1e999 is too large (beyond 1.8e308, it overflows to infinity) (in 'obs'[0].'x'[1])" },
    { "[-1.8e308]", SB_JSON_READ_ERROR_NUMBER, 1, 2, "infinity" },
    /* Other things json-glib accepts that are not JSON. */
    { "['a']", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "found '''" },
    { "/* c */ [1]", SB_JSON_READ_ERROR_SYNTAX, 1, 1, "found '/'" },
    { "[1,]", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "trailing commas" },
    { "{\"a\": 1,\n}", SB_JSON_READ_ERROR_SYNTAX, 2, 1, "trailing commas" },
    { "[\"a\\x\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "invalid escape" },
    { "[\"a\tb\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "U+0009" },
    { "[\"a\\u0000b\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "NUL" },
    { "[\"\\ud800\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 3, "surrogate" },
    { "[\"\\udc00\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 3, "surrogate" },
    { "[\"\\u12g4\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 3, "four hexadecimal digits" },
    { "[\"open", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "not closed" },
    { "{a: 1}", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "member name in double quotes" },
    { "{\"a\" 1}", SB_JSON_READ_ERROR_SYNTAX, 1, 6, "':'" },
    { "[1 2]", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "',' or ']'" },
    { "{\"a\": [1, 2}", SB_JSON_READ_ERROR_SYNTAX, 1, 12, "',' or ']'" },
    { "{\"a\": {\"b\": [1", SB_JSON_READ_ERROR_SYNTAX, 1, 15, "ends inside an array (3 still open)" },
    { "[tru]", SB_JSON_READ_ERROR_SYNTAX, 1, 2, "'tru'" },
    { "[1]\x01", SB_JSON_READ_ERROR_SYNTAX, 1, 4, "after the end" },
    { "[\"\xC3\x28\"]", SB_JSON_READ_ERROR_SYNTAX, 1, 3, "0xC3 is not valid UTF-8" },
    { "", SB_JSON_READ_ERROR_EMPTY, 1, 1, "empty" },
    { " \n\t ", SB_JSON_READ_ERROR_EMPTY, 2, 3, "empty" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    assert_refused (bad[i].text, -1, bad[i].code, bad[i].line, bad[i].column, bad[i].needle);
  /* A NUL byte inside the given length. */
  assert_refused ("[1,\0 2]", 7, SB_JSON_READ_ERROR_SYNTAX, 1, 4, "NUL byte");
}

/* Lines end at \n, \r\n or a lone \r; columns count characters, not bytes. */
static void
test_positions (void)
{
  assert_refused ("{\n  \"format\": \"skewbench-session\",\n  \"version\": 1,,\n}\n", -1,
                  SB_JSON_READ_ERROR_SYNTAX, 3, 16, "found ','");
  assert_refused ("[1,\r\n2,\r3,\r\n  x]", -1, SB_JSON_READ_ERROR_SYNTAX, 4, 3, "'x'");
  assert_refused ("[\"\xC3\xA9t\xC3\xA9\", \"\xE2\x82\xAC\", y]", -1, SB_JSON_READ_ERROR_SYNTAX,
                  1, 14, "'y'");
  assert_refused ("\xEF\xBB\xBF[z]", -1, SB_JSON_READ_ERROR_SYNTAX, 1, 2, "'z'");
  assert_refused ("{\"\xC3\xA9\": 1, \"\xC3\xA9\": 2}", -1, SB_JSON_READ_ERROR_DUPLICATE_KEY,
                  1, 10, "'\xC3\xA9' appears twice in one object (first at 1:2)");
}

/* One number under the document's rules (CSV cells use it). */
static void
test_number_token (void)
{
  static const struct {
    const char *text;
    double value;
  } good[] = { { "0", 0 }, { "-0.5", -0.5 }, { "1e3", 1000 }, { "2.5E-3", 0.0025 },
               { "9223372036854775807", 9223372036854775807.0 }, { "1e-999", 0 } };
  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      double v = -1;
      g_autoptr (GError) error = NULL;
      g_assert_true (sb_json_read_number (good[i].text, strlen (good[i].text), &v, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (v, ==, good[i].value);
    }
  static const struct {
    const char *text, *needle;
  } bad[] = { { "001", "start with 0" }, { ".2013", "not a JSON number" },
              { "0x1A", "hexadecimal" }, { "inf", "not a JSON number" },
              { "nan", "not a JSON number" }, { "+1", "not a JSON number" },
              { "1.", "decimal point" }, { "1e", "exponent" }, { "", "not a JSON number" },
              { "1 2", "not a JSON number" }, { "1e999", "1e999 is too large" },
              { "77777777777777777777777", "77777777777777777777777 is outside the 64-bit" } };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      double v = 42;
      g_autoptr (GError) error = NULL;
      g_assert_false (sb_json_read_number (bad[i].text, strlen (bad[i].text), &v, &error));
      g_assert_nonnull (error);
      g_test_message ("%s: %s", bad[i].text, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
      g_assert_false (g_ascii_isdigit (error->message[0]));   /* no "1:1:" */
      g_assert_cmpfloat (v, ==, 42);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-read/accepts-json", test_accepts_json);
  g_test_add_func ("/json-read/depth-limit", test_depth_limit);
  g_test_add_func ("/json-read/size-limit", test_size_limit);
  g_test_add_func ("/json-read/strict-rules", test_strict_rules);
  g_test_add_func ("/json-read/positions", test_positions);
  g_test_add_func ("/json-read/number-token", test_number_token);
  return g_test_run ();
}
