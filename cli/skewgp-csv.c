/* skewgp-csv.c — numeric CSV tables for `skewgp classify`: core's strict
 * reader (sb-csv.h) with every cell a number. */
#include "config.h"

#include "skewgp-csv.h"

#include "sb-csv.h"

#include <math.h>
#include <string.h>

void
skewgp_csv_clear (SkewgpCsv *csv)
{
  g_clear_pointer (&csv->values, g_free);
  g_clear_pointer (&csv->line, g_free);
  csv->rows = csv->cols = 0;
}

/* ERROR, whatever its domain, as an input error of the CLI. */
static gboolean
input_error (GError **error, GError *cause)
{
  g_set_error_literal (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, cause->message);
  g_error_free (cause);
  return FALSE;
}

gboolean
skewgp_csv_read (const char *path, SkewgpCsv *csv, GError **error)
{
  memset (csv, 0, sizeof *csv);
  SbCsvTable t;
  GError *cause = NULL;
  if (!sb_csv_read_table (path, &t, &cause))
    {
      sb_csv_table_clear (&t);
      return input_error (error, cause);
    }
  g_autofree double *values = g_new (double, t.rows * t.cols);
  for (gsize i = 0; i < t.rows; i++)
    for (gsize j = 0; j < t.cols; j++)
      if (!sb_csv_cell_number (&t, path, i, j, &values[i * t.cols + j], &cause))
        {
          sb_csv_table_clear (&t);
          return input_error (error, cause);
        }
  csv->rows = t.rows;
  csv->cols = t.cols;
  csv->has_header = t.header != NULL;
  csv->values = g_steal_pointer (&values);
  csv->line = g_steal_pointer (&t.line);
  sb_csv_table_clear (&t);
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
