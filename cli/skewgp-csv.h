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
  double *values;     /* rows x cols, row-major (a label column: NaN)  */
  gsize *line;        /* rows: the 1-based line number of each row in the file */
  gboolean has_header;
  char **labels;      /* LABELLED reads: the last column's text per row */
} SkewgpCsv;

/* Reads PATH into CSV (initialised by this call; skewgp_csv_clear it even
 * on failure). An empty table (no data row) is an error. With LABELLED
 * the last column is a class label, kept as text (a number or a name),
 * every other cell must be a number. */
gboolean skewgp_csv_read (const char *path, gboolean labelled, SkewgpCsv *csv,
                          GError **error);
void skewgp_csv_clear (SkewgpCsv *csv);

/* The classes of a labelled CSV: the distinct labels, in numeric order
 * when every label is a number (written as %g: "1" and "1.0" are one
 * class) and in byte order otherwise. NAMES (n_classes, NULL-terminated,
 * g_strfreev) and CLS[i] in 0 .. n_classes - 1 for every row. */
void skewgp_csv_classes (const SkewgpCsv *csv, char ***names, gsize *n_classes, gsize *cls);

/* Large tables, streamed: the file is read in 1 MiB blocks and every data
 * line is parsed straight into the growing array of inputs, so its text
 * is never held whole and its numbers once. Its own bound instead of
 * sb-csv.h's 64 MiB: at most SKEWGP_STREAM_MAX_VALUES numbers (2 GiB of
 * doubles) and lines of at most SKEWGP_STREAM_MAX_LINE bytes. Only
 * regular files are read (a fifo or a device such as /dev/zero is
 * refused before anything is read). The same rules as skewgp_csv_read
 * otherwise: comma-separated, an optional header line (no numeric cell),
 * blank lines skipped, CR LF or LF line ends, every line with the first
 * line's number of cells, numbers finite and decimal (no hexadecimal,
 * inf or nan); no quoted cells. */
#define SKEWGP_STREAM_MAX_VALUES ((gsize) 1 << 28)
#define SKEWGP_STREAM_MAX_LINE ((gsize) 1 << 20)

typedef struct {
  gsize rows, dim;       /* input columns (the label excluded)            */
  double *X;             /* rows x dim                                    */
  gsize n_classes;       /* labelled: as skewgp_csv_classes               */
  char **class_names;
  gsize *cls;            /* labelled: rows class indices                  */
} SkewgpCsvStream;

/* Reads PATH (LABELLED: the last column is a class label) into OUT
 * (initialised by this call; skewgp_csv_stream_clear it even on
 * failure). PROGRESS, if not NULL, is called with the rows read so far
 * every 2^16 rows. Input errors name the file and line. */
gboolean skewgp_csv_stream (const char *path, gboolean labelled, SkewgpCsvStream *out,
                            void (*progress) (gsize rows, gpointer data), gpointer data,
                            GError **error);
void skewgp_csv_stream_clear (SkewgpCsvStream *s);

G_END_DECLS
