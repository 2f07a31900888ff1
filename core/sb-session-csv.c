/* sb-session-csv.c — the observation log as CSV, for spreadsheets and R:
 * one header row, then one row per observation (sb-session.h). Numbers
 * are written with 17 significant digits in the C locale.
 */
#include "config.h"

#include "sb-session-private.h"

#include <math.h>
#include <string.h>

static void
csv_field (GString *out, const char *text)
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

static void
csv_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (v))
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

char *
sb_session_to_csv (SbSession *self)
{
  const SbExperiment *exp = self->experiment;
  GString *out = g_string_new ("index,time,kind,answer,value");

  for (guint side = 0; side < 2; side++)
    for (guint j = 0; j < exp->n_parameters; j++)
      {
        g_autofree char *name = g_strdup_printf ("%c_%s", side ? 'b' : 'a',
                                                 exp->parameters[j].name);
        g_string_append_c (out, ',');
        csv_field (out, name);
      }
  g_string_append_c (out, '\n');

  for (guint i = 0; i < self->observations->len; i++)
    {
      const SbLogEntry *obs = g_ptr_array_index (self->observations, i);
      g_autofree char *time = sb_session_format_time (obs->time);

      g_string_append_printf (out, "%u,%s,%s,", i + 1, time,
                              sb_log_kind_to_string (obs->kind));
      if (obs->kind == SB_LOG_DUEL)
        g_string_append (out, obs->winner ? "b" : "a");
      else if (obs->kind == SB_LOG_FAILED)
        g_string_append (out, "failed");
      g_string_append_c (out, ',');
      if (obs->kind == SB_LOG_VALUE)
        csv_number (out, obs->value);
      for (guint side = 0; side < 2; side++)
        for (guint j = 0; j < exp->n_parameters; j++)
          {
            const double *x = side ? obs->b : obs->a;
            g_string_append_c (out, ',');
            if (x)
              csv_number (out, x[j]);
          }
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

gboolean
sb_session_export_csv (SbSession *self, GFile *file, GError **error)
{
  g_autofree char *csv = sb_session_to_csv (self);

  return g_file_replace_contents (file, csv, strlen (csv), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
