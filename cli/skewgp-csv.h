/* skewgp-csv.h — a small reader for numeric CSV tables (`skewgp classify`).
 *
 * Accepted: comma-separated cells, optional surrounding double quotes, LF,
 * CRLF or CR line ends, blank lines (skipped), and an optional header as
 * the first non-blank line: a line none of whose cells is a number. Every
 * other line must have the same number of cells, each a number as JSON
 * writes one (001, .5, 0x1A, inf, nan are refused naming line and cell).
 * Files above SKEWGP_CSV_MAX_BYTES are refused.
 * Errors are input errors (SKEWGP_CLI_ERROR_INPUT) that name the file and
 * the line, e.g. "train.csv line 7: 3 cells, expected 4 (as on line 2)".
 */
#pragma once

#include "skewgp-cli.h"

G_BEGIN_DECLS

/* 64 MiB: ~8 million cells, ~130 MB as doubles and line tables. */
#define SKEWGP_CSV_MAX_BYTES (64 * 1024 * 1024)

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
