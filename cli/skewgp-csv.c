/* skewgp-csv.c — numeric CSV tables for `skewgp classify`. */
#include "config.h"

#include "skewgp-csv.h"

#include "sb-json-read.h"

#include <math.h>
#include <string.h>

void
skewgp_csv_clear (SkewgpCsv *csv)
{
  g_clear_pointer (&csv->values, g_free);
  g_clear_pointer (&csv->line, g_free);
  csv->rows = csv->cols = 0;
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

/* A cell is a number as JSON writes one (sb-json-read): 001, .5, 0x1A,
 * inf and nan are not; WHY (may be NULL) gets the reason. */
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

static gboolean
is_blank (const char *line)
{
  for (; *line; line++)
    if (!g_ascii_isspace (*line))
      return FALSE;
  return TRUE;
}

/* Parses the cells of one line into ROW (ncells entries). Returns the index
 * of the first non-numeric cell, or -1 when all are numbers; *N_NUMERIC
 * counts the numeric ones. */
static gssize
parse_row (char **cells, gsize ncells, double *row, gsize *n_numeric)
{
  gssize first_bad = -1;
  *n_numeric = 0;
  for (gsize j = 0; j < ncells; j++)
    {
      if (parse_number (trim_cell (cells[j]), &row[j], NULL))
        (*n_numeric)++;
      else if (first_bad < 0)
        first_bad = (gssize) j;
    }
  return first_bad;
}

gboolean
skewgp_csv_read (const char *path, SkewgpCsv *csv, GError **error)
{
  memset (csv, 0, sizeof *csv);
  g_autofree char *text = NULL;
  g_autoptr (GError) io_error = NULL;
  gsize text_length = 0;
  if (!g_file_get_contents (path, &text, &text_length, &io_error))
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, "%s", io_error->message);
      return FALSE;
    }
  if (text_length > SKEWGP_CSV_MAX_BYTES)
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "%s: %" G_GSIZE_FORMAT " bytes, more than the limit of %d MiB", path,
                   text_length, SKEWGP_CSV_MAX_BYTES >> 20);
      return FALSE;
    }
  normalise_line_ends (text);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GArray *values = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *line_of = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize cols = 0, first_line = 0;
  gboolean ok = TRUE, seen_first = FALSE;

  for (gsize i = 0; lines[i] != NULL && ok; i++)
    {
      gsize lineno = i + 1;
      if (is_blank (lines[i]))
        continue;
      g_auto (GStrv) cells = g_strsplit (lines[i], ",", -1);
      gsize ncells = g_strv_length (cells);
      g_autofree double *row = g_new (double, ncells);
      gsize n_numeric;
      gssize bad = parse_row (cells, ncells, row, &n_numeric);
      if (!seen_first)
        {
          seen_first = TRUE;
          cols = ncells;
          first_line = lineno;
          if (n_numeric == 0)
            {
              csv->has_header = TRUE;   /* a header names the columns */
              continue;
            }
        }
      if (ncells != cols)
        {
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "%s line %" G_GSIZE_FORMAT ": %" G_GSIZE_FORMAT
                       " cells, expected %" G_GSIZE_FORMAT " (as on line %" G_GSIZE_FORMAT ")",
                       path, lineno, ncells, cols, first_line);
          ok = FALSE;
        }
      else if (bad >= 0)
        {
          g_autoptr (GError) why = NULL;
          const char *cell = trim_cell (cells[bad]);
          double unused;
          parse_number (cell, &unused, &why);
          g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                       "%s line %" G_GSIZE_FORMAT ": cell %" G_GSSIZE_FORMAT
                       " '%s' is not a number: %s",
                       path, lineno, bad + 1, cell, why->message);
          ok = FALSE;
        }
      else
        {
          g_array_append_vals (values, row, ncells);
          g_array_append_val (line_of, lineno);
        }
    }
  if (ok && line_of->len == 0)
    {
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "%s: no data rows", path);
      ok = FALSE;
    }
  if (!ok)
    {
      g_array_free (values, TRUE);
      g_array_free (line_of, TRUE);
      return FALSE;
    }
  csv->rows = line_of->len;
  csv->cols = cols;
  csv->values = (double *) (void *) g_array_free (values, FALSE);
  csv->line = (gsize *) (void *) g_array_free (line_of, FALSE);
  return TRUE;
}

gboolean
skewgp_csv_labels (const SkewgpCsv *csv, const char *path, gsize col, int *labels,
                   GError **error)
{
  /* Which coding: the first 0 or -1 seen decides; the other is then an error. */
  double negative = NAN;
  for (gsize i = 0; i < csv->rows; i++)
    {
      double v = csv->values[i * csv->cols + col];
      if (v == 1)
        {
          labels[i] = 1;
          continue;
        }
      if ((v == 0 || v == -1) && (isnan (negative) || v == negative))
        {
          negative = v;
          labels[i] = -1;
          continue;
        }
      g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT,
                   "%s line %" G_GSIZE_FORMAT ": label %g in the last column; labels must "
                   "be 0/1 or -1/1 throughout%s",
                   path, csv->line[i], v,
                   (v == 0 || v == -1) ? " (this file mixes 0 and -1)" : "");
      return FALSE;
    }
  return TRUE;
}
