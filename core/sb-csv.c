/* sb-csv.c — the strict CSV reader (sb-csv.h). */
#include "config.h"

#include "sb-csv.h"

#include "sb-file-read.h"
#include "sb-json-read.h"

#include <string.h>

G_DEFINE_QUARK (sb-csv-error-quark, sb_csv_error)

void
sb_csv_table_clear (SbCsvTable *t)
{
  g_clear_pointer (&t->header, g_strfreev);
  g_clear_pointer (&t->cells, g_strfreev);
  g_clear_pointer (&t->line, g_free);
  t->rows = t->cols = 0;
}

/* Cell text without surrounding blanks and one pair of double quotes
 * (in place). */
static char *
trim_cell (char *cell)
{
  cell = g_strstrip (cell);
  gsize len = strlen (cell);
  if (len >= 2 && cell[0] == '"' && cell[len - 1] == '"')
    {
      cell[len - 1] = '\0';
      cell = g_strstrip (cell + 1);
    }
  return cell;
}

/* A cell is a number as JSON writes one (sb-json-read); WHY (may be
 * NULL) gets the reason. */
static gboolean
parse_number (const char *cell, double *out, GError **why)
{
  return sb_json_read_number (cell, strlen (cell), out, why);
}

/* CRLF and CR-only line ends (old Mac files) become LF, in place. */
static void
normalise_line_ends (char *text)
{
  char *w = text;
  for (const char *r = text; *r; r++)
    {
      if (*r == '\r')
        {
          *w++ = '\n';
          if (r[1] == '\n')
            r++;
        }
      else
        *w++ = *r;
    }
  *w = '\0';
}

/* TEXT after a UTF-8 byte-order mark, which spreadsheets ("CSV UTF-8")
 * put before the first column's name. */
static const char *
skip_bom (const char *text)
{
  return g_str_has_prefix (text, "\xEF\xBB\xBF") ? text + 3 : text;
}

static gboolean
is_blank (const char *line)
{
  for (; *line; line++)
    if (!g_ascii_isspace (*line))
      return FALSE;
  return TRUE;
}

/* The trimmed cells of LINE (a new vector) and whether any is a number. */
static char **
split_line (const char *line, gsize *ncells, gboolean *any_number)
{
  g_auto (GStrv) raw = g_strsplit (line, ",", -1);
  gsize n = g_strv_length (raw);
  char **cells = g_new0 (char *, n + 1);
  *any_number = FALSE;
  for (gsize j = 0; j < n; j++)
    {
      double unused;
      cells[j] = g_strdup (trim_cell (raw[j]));
      *any_number |= parse_number (cells[j], &unused, NULL);
    }
  *ncells = n;
  return cells;
}

/* The line (from 1) and column (in bytes, from 1) of TEXT + AT. */
static void
locate (const char *text, gsize at, gsize *line, gsize *column)
{
  const char *start = text;

  *line = 1;
  for (gsize i = 0; i < at; i++)
    if (text[i] == '\n')
      {
        (*line)++;
        start = text + i + 1;
      }
  *column = (gsize) (text + at - start) + 1;
}

/* TEXT (LENGTH bytes) is UTF-8 without NUL bytes: a name read from it
 * goes into JSON (skewgp ask's files, the session), which must be
 * UTF-8, and a NUL would silently end the table. */
static gboolean
check_text (const char *path, const char *text, gsize length, GError **error)
{
  const char *bad = memchr (text, '\0', length);
  gsize line, column;

  if (bad == NULL && g_utf8_validate_len (text, length, &bad))
    return TRUE;
  locate (text, (gsize) (bad - text), &line, &column);
  if (*bad == '\0')
    g_set_error (error, SB_CSV_ERROR, SB_CSV_ERROR_INVALID,
                 "%s line %" G_GSIZE_FORMAT " byte %" G_GSIZE_FORMAT ": a NUL byte (the file "
                 "is not text)", path, line, column);
  else
    g_set_error (error, SB_CSV_ERROR, SB_CSV_ERROR_INVALID,
                 "%s line %" G_GSIZE_FORMAT " byte %" G_GSIZE_FORMAT ": the byte 0x%02X is not "
                 "UTF-8 (save the file as \"CSV UTF-8\" text)", path, line, column,
                 (guint) (guchar) *bad);
  return FALSE;
}

gboolean
sb_csv_read_table (const char *path, SbCsvTable *t, GError **error)
{
  memset (t, 0, sizeof *t);
  g_autofree char *text = NULL;
  gsize text_length = 0;
  if (!sb_file_read_bounded (path, SB_CSV_MAX_BYTES, SB_FILE_READ_DEFAULT, "the CSV file",
                             &text, &text_length, error))
    return FALSE;
  if (!check_text (path, text, text_length, error))
    return FALSE;
  normalise_line_ends (text);
  g_auto (GStrv) lines = g_strsplit (skip_bom (text), "\n", -1);
  GPtrArray *cells = g_ptr_array_new ();
  GArray *line_of = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize cols = 0, first_line = 0;
  gboolean ok = TRUE, seen_first = FALSE;

  for (gsize i = 0; lines[i] != NULL && ok; i++)
    {
      gsize lineno = i + 1, ncells;
      gboolean any_number;
      if (is_blank (lines[i]))
        continue;
      char **row = split_line (lines[i], &ncells, &any_number);
      if (!seen_first)
        {
          seen_first = TRUE;
          cols = ncells;
          first_line = lineno;
          if (!any_number)
            {
              t->header = row;   /* a header names the columns */
              continue;
            }
        }
      if (ncells != cols)
        {
          g_set_error (error, SB_CSV_ERROR, SB_CSV_ERROR_INVALID,
                       "%s line %" G_GSIZE_FORMAT ": %" G_GSIZE_FORMAT
                       " cells, expected %" G_GSIZE_FORMAT " (as on line %" G_GSIZE_FORMAT ")",
                       path, lineno, ncells, cols, first_line);
          ok = FALSE;
          g_strfreev (row);
          continue;
        }
      for (gsize j = 0; j < ncells; j++)
        g_ptr_array_add (cells, row[j]);
      g_free (row);
      g_array_append_val (line_of, lineno);
    }
  if (ok && line_of->len == 0)
    {
      g_set_error (error, SB_CSV_ERROR, SB_CSV_ERROR_INVALID, "%s: no data rows", path);
      ok = FALSE;
    }
  g_ptr_array_add (cells, NULL);
  t->rows = line_of->len;
  t->cols = cols;
  t->cells = (char **) g_ptr_array_free (cells, FALSE);
  t->line = (gsize *) (void *) g_array_free (line_of, FALSE);
  if (!ok)
    sb_csv_table_clear (t);
  return ok;
}

gssize
sb_csv_column (const SbCsvTable *t, const char *name)
{
  for (gsize j = 0; t->header != NULL && j < t->cols; j++)
    if (g_str_equal (t->header[j], name))
      return (gssize) j;
  return -1;
}

gboolean
sb_csv_cell_number (const SbCsvTable *t, const char *path, gsize row, gsize col, double *out,
               GError **error)
{
  g_autoptr (GError) why = NULL;
  const char *cell = t->cells[row * t->cols + col];
  if (parse_number (cell, out, &why))
    return TRUE;
  g_autofree char *name = t->header ? g_strdup_printf (" (column '%s')", t->header[col]) : NULL;
  g_set_error (error, SB_CSV_ERROR, SB_CSV_ERROR_INVALID,
               "%s line %" G_GSIZE_FORMAT ": cell %" G_GSIZE_FORMAT " '%s' is not a number: %s%s",
               path, t->line[row], col + 1, cell, why->message, name ? name : "");
  return FALSE;
}
