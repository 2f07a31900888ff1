/* sb-csv.h — the strict CSV reader shared by `skewgp classify` (numeric
 * tables) and candidate sets (sb-candidates.h: feature values plus a
 * column of file names).
 *
 * Accepted: an optional UTF-8 byte-order mark, comma-separated cells, optional surrounding double quotes, LF,
 * CRLF or CR line ends, blank lines (skipped), and an optional header as
 * the first non-blank line: a line none of whose cells is a number. Every
 * other line must have the same number of cells. Cells are kept as text
 * (trimmed, quotes removed); sb_csv_cell_number reads one as a number as JSON
 * writes one (001, .5, 0x1A, inf, nan are refused, naming line and
 * column). Only regular files are read (a fifo or a device is refused
 * before it is opened for reading) and files above SB_CSV_MAX_BYTES are
 * refused from their size, before they are read (sb-file-read.h).
 * Errors: G_IO_ERROR when the file cannot be read, SB_CSV_ERROR_INVALID
 * otherwise, naming the file and the line, e.g. "train.csv line 7: 3
 * cells, expected 4 (as on line 2)".
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* 64 MiB: ~8 million cells, ~130 MB as doubles and line tables. */
#define SB_CSV_MAX_BYTES (64 * 1024 * 1024)

#define SB_CSV_ERROR (sb_csv_error_quark ())
GQuark sb_csv_error_quark (void);
typedef enum {
  SB_CSV_ERROR_INVALID,
} SbCsvError;

typedef struct {
  gsize rows, cols;
  char **header;      /* cols names, or NULL when the file has none   */
  char **cells;       /* rows x cols, row-major, trimmed text         */
  gsize *line;        /* rows: the 1-based line number of each row    */
} SbCsvTable;

/* Reads PATH into TABLE (initialised by this call; sb_csv_table_clear it
 * even on failure). An empty table (no data row) is an error. */
gboolean sb_csv_read_table (const char *path, SbCsvTable *table, GError **error);
void sb_csv_table_clear (SbCsvTable *table);
/* The column whose header is NAME, or -1 (also without a header). */
gssize sb_csv_column (const SbCsvTable *table, const char *name);
/* The cell at ROW, COL as a number into *OUT; otherwise FALSE with ERROR
 * "PATH line L: cell C 'x' is not a number: why (column 'NAME')" (the
 * name when there is a header). */
gboolean sb_csv_cell_number (const SbCsvTable *table, const char *path, gsize row, gsize col,
                        double *out, GError **error);

G_END_DECLS
