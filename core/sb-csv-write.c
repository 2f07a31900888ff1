/* sb-csv-write.c — CSV fields as every export writes them
 * (sb-csv-write.h). */
#include "config.h"

#include "sb-csv-write.h"

#include "sb-json-write.h"

#include <math.h>
#include <string.h>

/* Digits, one optional sign, point and exponent, and nothing else:
 * what a spreadsheet reads as a number, never as a formula. */
static gboolean
is_plain_number (const char *text)
{
  char *end;
  double v;

  if (text[strspn (text, "0123456789+-.eE")] != '\0')
    return FALSE;
  v = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && isfinite (v);
}

static gboolean
starts_a_formula (const char *text)
{
  return text[0] != '\0' && strchr ("=+-@\t\r", text[0]) != NULL && !is_plain_number (text);
}

void
sb_csv_field (GString *out, const char *text)
{
  gboolean formula = starts_a_formula (text);

  if (!formula && strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  if (formula)
    g_string_append_c (out, '\'');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

void
sb_csv_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    return;
  sb_json_format_double (v, buf, sizeof buf);
  /* the JSON writer keeps the sign of zero as "-0.0" */
  g_string_append (out, strcmp (buf, "-0.0") == 0 ? "-0" : buf);
}
