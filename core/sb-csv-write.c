/* sb-csv-write.c — CSV fields as every export writes them
 * (sb-csv-write.h). */
#include "config.h"

#include "sb-csv-write.h"

#include "sb-json-write.h"

#include <math.h>
#include <string.h>

void
sb_csv_field (GString *out, const char *text)
{
  if (strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
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
