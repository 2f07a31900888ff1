/* skewgp-csv.h — numeric CSV tables (`skewgp classify`).
 *
 * Read by core's strict reader (sb-csv.h: cells, quotes, line ends, blank
 * lines, the optional header, the size limit); every cell of a data line
 * must be a number as JSON writes one (001, .5, 0x1A, inf, nan are
 * refused naming line and cell).
 * Errors are input errors (SKEWGP_CLI_ERROR_INPUT) that name the file and
 * the line, e.g. "train.csv line 7: 3 cells, expected 4 (as on line 2)".
 */
#pragma once

#include "skewgp-cli.h"

G_BEGIN_DECLS

typedef struct {
  gsize rows, cols;
  double *values;     /* rows x cols, row-major */
  gsize *line;        /* rows: the 1-based line number of each row in the file */
  gboolean has_header;
} SkewgpCsv;

/* Reads PATH into CSV (initialised by this call; skewgp_csv_clear it even
 * on failure). An empty table (no data row) is an error. */
gboolean skewgp_csv_read (const char *path, SkewgpCsv *csv, GError **error);
void skewgp_csv_clear (SkewgpCsv *csv);

/* Binary labels from column COL of CSV: every value must be 0 or 1, or
 * every value -1 or 1 (a mixture of 0 and -1 is an error naming the first
 * offending line). LABELS[i] = +1 for 1, -1 for 0 / -1. */
gboolean skewgp_csv_labels (const SkewgpCsv *csv, const char *path, gsize col,
                            int *labels, GError **error);

G_END_DECLS
