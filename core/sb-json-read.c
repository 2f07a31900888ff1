/* sb-json-read.c — a strict pre-scan in front of json-glib (see the header).
 *
 * The scanner is a state machine over the bytes with an explicit stack of
 * open containers: one pass, no recursion, so the depth limit holds before
 * anything recursive runs. Positions are byte offsets while scanning; the
 * line and column of an error are counted only when one is reported.
 */
#include "config.h"

#include "sb-json-read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (sb-json-read-error-quark, sb_json_read_error)

typedef enum {
  EXPECT_VALUE,           /* a value: the root, after ':' or after ',' in an array */
  EXPECT_VALUE_OR_CLOSE,  /* just after '[' */
  EXPECT_KEY,             /* after ',' in an object */
  EXPECT_KEY_OR_CLOSE,    /* just after '{' */
  EXPECT_COLON,
  EXPECT_COMMA_OR_CLOSE,  /* after a value inside a container */
  EXPECT_END,             /* after the root value: whitespace only */
} ScanState;

/* One open container. */
typedef struct {
  gboolean is_object;
  GHashTable *keys;  /* object: member name -> offset + 1 of its first occurrence */
  char *key;         /* object: the member whose value is being read */
  gsize index;       /* array: the element being read */
} Frame;

typedef struct {
  const char *text;  /* the document (after a byte-order mark) */
  gsize length;
  gsize pos;         /* the next byte */
  GArray *frames;    /* of Frame, innermost last */
  ScanState state;
  GError **error;
} Scanner;

static void
frame_clear (Frame *f)
{
  g_clear_pointer (&f->keys, g_hash_table_unref);
  g_clear_pointer (&f->key, g_free);
}

/* The 1-based line and column (in characters) of byte OFFSET. A line ends
 * at "\n", "\r\n" or a lone "\r". */
static void
position_of (const Scanner *s, gsize offset, guint *line, guint *column)
{
  const char *text = s->text;
  *line = 1;
  *column = 1;
  for (gsize i = 0; i < offset; i++)
    {
      unsigned char c = (unsigned char) text[i];
      if (c == '\n' || (c == '\r' && (i + 1 >= s->length || text[i + 1] != '\n')))
        {
          (*line)++;
          *column = 1;
        }
      else if ((c & 0xC0) != 0x80 && c != '\r')
        (*column)++;
    }
}

/* Paths longer than this are cut (with "...") in messages. */
#define MAX_PATH_SHOWN 80

/* The member path of the value being read: 'observations'[3].'x'[1].
 * Empty at the root. */
static char *
current_path (const Scanner *s)
{
  GString *path = g_string_new (NULL);
  for (guint i = 0; i < s->frames->len; i++)
    {
      const Frame *f = &g_array_index (s->frames, Frame, i);
      if (f->is_object && f->key == NULL)
        break;
      if (f->is_object)
        g_string_append_printf (path, "%s'%s'", path->len ? "." : "", f->key);
      else
        g_string_append_printf (path, "[%" G_GSIZE_FORMAT "]", f->index);
      if (path->len > MAX_PATH_SHOWN)
        {
          g_string_append (path, "...");
          break;
        }
    }
  return g_string_free (path, FALSE);
}

static gboolean fail_at (Scanner *s, gsize offset, SbJsonReadError code,
                         const char *format, ...) G_GNUC_PRINTF (4, 5);

/* Sets the error "LINE:COLUMN: MESSAGE (in PATH)"; always FALSE. */
static gboolean
fail_at (Scanner *s, gsize offset, SbJsonReadError code, const char *format, ...)
{
  va_list args;
  guint line, column;
  g_autofree char *msg = NULL;
  g_autofree char *path = current_path (s);

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  position_of (s, offset, &line, &column);
  if (*path)
    g_set_error (s->error, SB_JSON_READ_ERROR, code, "%u:%u: %s (in %s)", line, column, msg,
                 path);
  else
    g_set_error (s->error, SB_JSON_READ_ERROR, code, "%u:%u: %s", line, column, msg);
  return FALSE;
}

/* The character at POS for a message: "'x'", "end of document" or a byte
 * value for control characters. */
static char *
describe_char (const Scanner *s, gsize pos)
{
  if (pos >= s->length)
    return g_strdup ("the end of the document");
  unsigned char c = (unsigned char) s->text[pos];
  if (c < 0x20 || c == 0x7F)
    return g_strdup_printf ("the control character U+%04X", c);
  const char *next = g_utf8_next_char (s->text + pos);
  return g_strdup_printf ("'%.*s'", (int) (next - (s->text + pos)), s->text + pos);
}

static gboolean
fail_unexpected (Scanner *s, const char *expected)
{
  g_autofree char *found = describe_char (s, s->pos);
  return fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX, "expected %s, found %s", expected,
                  found);
}

static void
skip_whitespace (Scanner *s)
{
  while (s->pos < s->length)
    {
      char c = s->text[s->pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        return;
      s->pos++;
    }
}

static Frame *
top_frame (Scanner *s)
{
  return s->frames->len ? &g_array_index (s->frames, Frame, s->frames->len - 1) : NULL;
}

/* ---- Strings ------------------------------------------------------------- */

/* The value of the 4 hex digits at POS, or -1. */
static long
hex4_at (const Scanner *s, gsize pos)
{
  long code = 0;
  for (gsize i = 0; i < 4; i++)
    {
      int v = pos + i < s->length ? g_ascii_xdigit_value (s->text[pos + i]) : -1;
      if (v < 0)
        return -1;
      code = code * 16 + v;
    }
  return code;
}

/* A \u escape at *POS (the backslash): one code point, or a surrogate
 * pair of two escapes. Appends it to OUT (if non-NULL); advances *POS. */
static gboolean
read_unicode_escape (Scanner *s, gsize *pos, GString *out)
{
  gsize at = *pos;
  long code = hex4_at (s, at + 2), low = -1;
  if (code < 0)
    return fail_at (s, at, SB_JSON_READ_ERROR_SYNTAX,
                    "\\u must be followed by four hexadecimal digits");
  *pos = at + 6;
  if (code >= 0xDC00 && code <= 0xDFFF)
    return fail_at (s, at, SB_JSON_READ_ERROR_SYNTAX,
                    "\\u%04lX is the second half of a surrogate pair without a first", code);
  if (code >= 0xD800 && code <= 0xDBFF)
    {
      if (*pos + 1 < s->length && s->text[*pos] == '\\' && s->text[*pos + 1] == 'u')
        low = hex4_at (s, *pos + 2);
      if (low < 0xDC00 || low > 0xDFFF)
        return fail_at (s, at, SB_JSON_READ_ERROR_SYNTAX,
                        "\\u%04lX (the first half of a surrogate pair) is not followed by "
                        "a second half", code);
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      *pos += 6;
    }
  if (code == 0)
    return fail_at (s, at, SB_JSON_READ_ERROR_SYNTAX,
                    "\\u0000 (a NUL character) is not supported in strings");
  if (out)
    g_string_append_unichar (out, (gunichar) code);
  return TRUE;
}

/* A string at s->pos (the opening quote). Its decoded text goes to OUT
 * when OUT is non-NULL (member names, for the duplicate check). */
static gboolean
scan_string (Scanner *s, GString *out)
{
  gsize open = s->pos, pos = s->pos + 1;
  for (;;)
    {
      if (pos >= s->length)
        return fail_at (s, open, SB_JSON_READ_ERROR_SYNTAX, "this string is not closed");
      unsigned char c = (unsigned char) s->text[pos];
      if (c == '"')
        break;
      if (c < 0x20)
        return fail_at (s, pos, SB_JSON_READ_ERROR_SYNTAX,
                        "the control character U+%04X must be written as an escape "
                        "(\\n, \\t, \\u%04X) inside a string", c, c);
      if (c != '\\')
        {
          if (out)
            g_string_append_c (out, (char) c);
          pos++;
          continue;
        }
      char e = pos + 1 < s->length ? s->text[pos + 1] : '\0';
      const char *simple = strchr ("\"\\/bfnrt", e);
      if (e == 'u')
        {
          if (!read_unicode_escape (s, &pos, out))
            return FALSE;
          continue;
        }
      if (e == '\0' || simple == NULL)
        return fail_at (s, pos, SB_JSON_READ_ERROR_SYNTAX,
                        "invalid escape in a string (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r "
                        "\\t \\uXXXX)");
      if (out)
        g_string_append_c (out, "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
      pos += 2;
    }
  s->pos = pos + 1;
  return TRUE;
}

/* ---- Numbers and words --------------------------------------------------- */

static gboolean
is_digit (const Scanner *s, gsize pos)
{
  return pos < s->length && g_ascii_isdigit (s->text[pos]);
}

static gsize
skip_digits (const Scanner *s, gsize pos)
{
  while (is_digit (s, pos))
    pos++;
  return pos;
}

/* The extent of a number's grammar (RFC 8259 sec. 6) from s->pos; sets
 * *INTEGER when it has neither fraction nor exponent. */
static gboolean
number_extent (Scanner *s, gsize *end, gboolean *integer)
{
  gsize start = s->pos, pos = s->pos;
  if (s->text[pos] == '-')
    pos++;
  if (!is_digit (s, pos))
    return fail_at (s, start, SB_JSON_READ_ERROR_SYNTAX, "'-' must be followed by a digit");
  if (s->text[pos] == '0' && pos + 1 < s->length
      && (s->text[pos + 1] == 'x' || s->text[pos + 1] == 'X'))
    return fail_at (s, start, SB_JSON_READ_ERROR_SYNTAX,
                    "hexadecimal numbers are not JSON (write them in decimal)");
  if (s->text[pos] == '0' && is_digit (s, pos + 1))
    return fail_at (s, start, SB_JSON_READ_ERROR_SYNTAX,
                    "a number must not start with 0 followed by digits (write 1, not 01)");
  pos = skip_digits (s, pos);
  *integer = TRUE;
  if (pos < s->length && s->text[pos] == '.')
    {
      if (!is_digit (s, pos + 1))
        return fail_at (s, pos, SB_JSON_READ_ERROR_SYNTAX,
                        "a decimal point must be followed by a digit (write 1.0 or 1)");
      pos = skip_digits (s, pos + 1);
      *integer = FALSE;
    }
  if (pos < s->length && (s->text[pos] == 'e' || s->text[pos] == 'E'))
    {
      gsize e = pos++;
      if (pos < s->length && (s->text[pos] == '+' || s->text[pos] == '-'))
        pos++;
      if (!is_digit (s, pos))
        return fail_at (s, e, SB_JSON_READ_ERROR_SYNTAX,
                        "an exponent must have digits (1e5, 1e-5)");
      pos = skip_digits (s, pos);
      *integer = FALSE;
    }
  if (pos < s->length && (g_ascii_isalnum (s->text[pos]) || s->text[pos] == '.'))
    return fail_at (s, start, SB_JSON_READ_ERROR_SYNTAX, "this is not a JSON number");
  *end = pos;
  return TRUE;
}

/* A number at s->pos: valid JSON, an integer within 64 bits, a real within
 * the range of double. */
static gboolean
scan_number (Scanner *s)
{
  gsize end = 0;
  gboolean integer = FALSE;
  if (!number_extent (s, &end, &integer))
    return FALSE;
  /* A NUL-terminated copy for strtoll/strtod; on the stack unless long. */
  char small[64];
  gsize len = end - s->pos;
  g_autofree char *large = len < sizeof small ? NULL : g_strndup (s->text + s->pos, len);
  char *token = large ? large : memcpy (small, s->text + s->pos, len);
  token[len] = '\0';
  if (integer)
    {
      errno = 0;
      (void) g_ascii_strtoll (token, NULL, 10);
      if (errno == ERANGE)
        return fail_at (s, s->pos, SB_JSON_READ_ERROR_NUMBER,
                        "the integer %s is outside the 64-bit range (a real number this "
                        "large is written with an exponent, e.g. %.2g)",
                        token, g_ascii_strtod (token, NULL));
    }
  else if (!isfinite (g_ascii_strtod (token, NULL)))
    return fail_at (s, s->pos, SB_JSON_READ_ERROR_NUMBER,
                    "the number %s is too large (beyond 1.8e308, it overflows to infinity)",
                    token);
  s->pos = end;
  return TRUE;
}

/* true, false or null at s->pos; anything else made of letters is named. */
static gboolean
scan_word (Scanner *s)
{
  static const char *const words[] = { "true", "false", "null" };
  gsize end = s->pos;
  while (end < s->length && (g_ascii_isalnum (s->text[end]) || s->text[end] == '_'))
    end++;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (end - s->pos == strlen (words[i]) && memcmp (s->text + s->pos, words[i], end - s->pos) == 0)
      {
        s->pos = end;
        return TRUE;
      }
  return fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX,
                  "'%.*s' is not a JSON value (values are numbers, strings, true, false, "
                  "null, arrays and objects; JSON has no NaN or Infinity)",
                  (int) MIN (end - s->pos, 32), s->text + s->pos);
}

/* ---- The state machine --------------------------------------------------- */

/* A value ended: what may follow depends on the container. */
static void
value_done (Scanner *s)
{
  s->state = s->frames->len ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
}

static gboolean
open_container (Scanner *s, gboolean is_object)
{
  if (s->frames->len >= SB_JSON_READ_MAX_DEPTH)
    return fail_at (s, s->pos, SB_JSON_READ_ERROR_TOO_DEEP,
                    "the document is nested deeper than %d levels", SB_JSON_READ_MAX_DEPTH);
  Frame f = { .is_object = is_object };
  if (is_object)
    f.keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_array_append_val (s->frames, f);
  s->pos++;
  s->state = is_object ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
  return TRUE;
}

static void
close_container (Scanner *s)
{
  frame_clear (top_frame (s));
  g_array_set_size (s->frames, s->frames->len - 1);
  s->pos++;
  value_done (s);
}

static gboolean
scan_value (Scanner *s)
{
  char c = s->text[s->pos];
  if (c == '{' || c == '[')
    return open_container (s, c == '{');
  if (c == '"' ? scan_string (s, NULL)
      : c == '-' || g_ascii_isdigit (c) ? scan_number (s)
      : g_ascii_isalpha (c) ? scan_word (s)
      : c == '.' ? fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX,
                            "a number must start with a digit (write 0.5, not .5)")
      : c == '+' ? fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX,
                            "a '+' sign is not allowed before a JSON number")
      : fail_unexpected (s, "a value"))
    {
      value_done (s);
      return TRUE;
    }
  return FALSE;
}

/* A member name at s->pos: a string not seen before in this object. */
static gboolean
scan_key (Scanner *s)
{
  Frame *f = top_frame (s);
  gsize at = s->pos;
  g_autoptr (GString) key = g_string_new (NULL);
  if (s->text[at] != '"')
    return fail_unexpected (s, "a member name in double quotes");
  g_clear_pointer (&f->key, g_free);
  if (!scan_string (s, key))
    return FALSE;
  gsize first = GPOINTER_TO_SIZE (g_hash_table_lookup (f->keys, key->str));
  if (first != 0)
    {
      guint line, column;
      position_of (s, first - 1, &line, &column);
      return fail_at (s, at, SB_JSON_READ_ERROR_DUPLICATE_KEY,
                      "the member '%s' appears twice in one object (first at %u:%u)",
                      key->str, line, column);
    }
  f->key = g_strdup (key->str);
  g_hash_table_insert (f->keys, g_string_free (g_steal_pointer (&key), FALSE),
                       GSIZE_TO_POINTER (at + 1));
  s->state = EXPECT_COLON;
  return TRUE;
}

static gboolean
scan_after_value (Scanner *s)
{
  Frame *f = top_frame (s);
  char c = s->text[s->pos];
  if (c == (f->is_object ? '}' : ']'))
    {
      close_container (s);
      return TRUE;
    }
  if (c != ',')
    return fail_unexpected (s, f->is_object ? "',' or '}'" : "',' or ']'");
  s->pos++;
  skip_whitespace (s);
  if (s->pos < s->length && (s->text[s->pos] == ']' || s->text[s->pos] == '}'))
    return fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX,
                    "a ',' must be followed by another %s (no trailing commas in JSON)",
                    f->is_object ? "member" : "element");
  if (f->is_object)
    {
      g_clear_pointer (&f->key, g_free);
      s->state = EXPECT_KEY;
    }
  else
    {
      f->index++;
      s->state = EXPECT_VALUE;
    }
  return TRUE;
}

/* One step of the machine at a non-whitespace byte. */
static gboolean
scan_step (Scanner *s)
{
  char c = s->text[s->pos];
  switch (s->state)
    {
    case EXPECT_VALUE_OR_CLOSE:
      if (c == ']')
        {
          close_container (s);
          return TRUE;
        }
      return scan_value (s);
    case EXPECT_VALUE:
      return scan_value (s);
    case EXPECT_KEY_OR_CLOSE:
      if (c == '}')
        {
          close_container (s);
          return TRUE;
        }
      return scan_key (s);
    case EXPECT_KEY:
      return scan_key (s);
    case EXPECT_COLON:
      if (c != ':')
        return fail_unexpected (s, "':' after the member name");
      s->pos++;
      s->state = EXPECT_VALUE;
      return TRUE;
    case EXPECT_COMMA_OR_CLOSE:
      return scan_after_value (s);
    case EXPECT_END:
    default:
      return fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX,
                      "unexpected content after the end of the document");
    }
}

/* The whole document; TRUE if json-glib may parse it. */
static gboolean
scan_document (Scanner *s)
{
  for (;;)
    {
      skip_whitespace (s);
      if (s->pos >= s->length)
        break;
      if (!scan_step (s))
        return FALSE;
    }
  if (s->state == EXPECT_END)
    return TRUE;
  if (s->state == EXPECT_VALUE && s->frames->len == 0)
    return fail_at (s, s->pos, SB_JSON_READ_ERROR_EMPTY, "the document is empty");
  return fail_at (s, s->pos, SB_JSON_READ_ERROR_SYNTAX,
                  "the document ends inside %s (%u still open)",
                  top_frame (s)->is_object ? "an object" : "an array", s->frames->len);
}

/* UTF-8 without NUL bytes; on failure the error names the first bad byte. */
static gboolean
check_utf8 (Scanner *s)
{
  const char *bad = NULL;
  if (g_utf8_validate_len (s->text, s->length, &bad))
    return TRUE;
  gsize at = (gsize) (bad - s->text);
  if (*bad == '\0')
    return fail_at (s, at, SB_JSON_READ_ERROR_SYNTAX, "a NUL byte (JSON is text)");
  return fail_at (s, at, SB_JSON_READ_ERROR_SYNTAX, "the byte 0x%02X is not valid UTF-8",
                  (unsigned char) *bad);
}

static gboolean
prescan (const char *text, gsize length, GError **error)
{
  Scanner s = { .text = text, .length = length, .state = EXPECT_VALUE, .error = error };
  s.frames = g_array_new (FALSE, TRUE, sizeof (Frame));
  gboolean ok = check_utf8 (&s) && scan_document (&s);
  for (guint i = 0; i < s.frames->len; i++)
    frame_clear (&g_array_index (s.frames, Frame, i));
  g_array_unref (s.frames);
  return ok;
}

JsonNode *
sb_json_read (const char *data, gssize length, GError **error)
{
  g_return_val_if_fail (data != NULL || length == 0, NULL);

  gsize len = length < 0 ? strlen (data) : (gsize) length;
  if (len > SB_JSON_READ_MAX_BYTES)
    {
      g_set_error (error, SB_JSON_READ_ERROR, SB_JSON_READ_ERROR_TOO_LARGE,
                   "1:1: the document is %" G_GSIZE_FORMAT " bytes, more than the limit of "
                   "%" G_GSIZE_FORMAT " MiB", len, SB_JSON_READ_MAX_BYTES >> 20);
      return NULL;
    }
  if (len >= 3 && memcmp (data, "\xEF\xBB\xBF", 3) == 0)
    {
      data += 3;
      len -= 3;
    }
  if (!prescan (data, len, error))
    return NULL;

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) len, &local))
    {
      /* The pre-scan accepts only what json-glib reads; keep its message
       * ("<data>:LINE:COL: ...") should that ever differ. */
      const char *msg = local->message;
      if (g_str_has_prefix (msg, "<data>:"))
        msg += strlen ("<data>:");
      g_set_error (error, SB_JSON_READ_ERROR, SB_JSON_READ_ERROR_SYNTAX, "%s", msg);
      return NULL;
    }
  return json_parser_steal_root (parser);
}

gboolean
sb_json_read_number (const char *text, gsize length, double *value, GError **error)
{
  g_return_val_if_fail (text != NULL || length == 0, FALSE);
  g_autoptr (GError) local = NULL;
  Scanner s = { .text = text, .length = length, .pos = 0,
                .frames = g_array_new (FALSE, TRUE, sizeof (Frame)), .error = &local };
  gboolean ok;
  if (length == 0 || !(text[0] == '-' || g_ascii_isdigit (text[0])))
    ok = fail_at (&s, 0, SB_JSON_READ_ERROR_SYNTAX, "not a JSON number (a number starts with "
                  "a digit or '-': .5, +1, inf and nan are not numbers)");
  else
    ok = scan_number (&s) && (s.pos == length
                              || fail_at (&s, s.pos, SB_JSON_READ_ERROR_SYNTAX,
                                          "this is not a JSON number"));
  g_array_unref (s.frames);
  if (!ok)
    {
      /* one token: the message without its "1:COLUMN: " */
      const char *msg = strchr (local->message, ' ');
      g_set_error_literal (error, SB_JSON_READ_ERROR, local->code,
                           msg ? msg + 1 : local->message);
      return FALSE;
    }
  g_autofree char *copy = g_strndup (text, length);
  *value = g_ascii_strtod (copy, NULL);
  return TRUE;
}
