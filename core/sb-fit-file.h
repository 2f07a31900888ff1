/* sb-fit-file.h — a stored model fit: a JSON header and arrays of numbers.
 *
 * A fit that questions use without recomputing it (a long session's
 * sparse summary, a study's population cache: sb-model-fit.h) holds
 * tens of thousands of numbers. It is written as
 *
 *   SKEWBENCH-FIT 1\n
 *   {"format": "skewbench-fit", "version": 1, "kind": "...",
 *    "arrays": [{"name": "Z", "rows": 200, "cols": 3}, ...],
 *    "payload_bytes": N, "payload_sha256": "...", ... what the kind adds}\n
 *   the arrays' numbers, one array after another, row by row, each an
 *   IEEE 754 double in little-endian byte order (8 bytes)
 *
 * The header is one line of JSON (written compact: a newline inside a
 * string is escaped), so `head -2 FILE` shows everything but the numbers;
 * the numbers are read back bit for bit, and in one pass instead of the
 * JSON reader's forty bytes of tree per number. The SHA-256 of the
 * payload catches a damaged or truncated file. The file is replaced
 * atomically (sb-atomic-file.h).
 *
 * Reading refuses, with a message naming the file and what is wrong: a
 * file that is not a regular one or is larger than SB_FIT_FILE_MAX_BYTES,
 * another first line, a header that is not the JSON above (sb-json-read
 * rules) or is of another kind or a newer version, array shapes whose
 * sizes do not add up to the payload, a payload whose SHA-256 differs,
 * and numbers that are not finite.
 *
 * No GTK here.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SB_FIT_FILE_FORMAT "skewbench-fit"
#define SB_FIT_FILE_VERSION 1
#define SB_FIT_FILE_MAX_BYTES ((gsize) 256 * 1024 * 1024)

#define SB_FIT_FILE_ERROR (sb_fit_file_error_quark ())
GQuark sb_fit_file_error_quark (void);
typedef enum {
  SB_FIT_FILE_ERROR_MISSING,   /* no file                                  */
  SB_FIT_FILE_ERROR_DAMAGED,   /* not a fit file, or damaged               */
  SB_FIT_FILE_ERROR_VERSION,   /* written by a newer SkewBench             */
} SbFitFileError;

/* One array of the payload: ROWS x COLS doubles, row-major. */
typedef struct {
  const char *name;
  guint rows, cols;
  const double *data;
} SbFitArray;

/* Writes HEADER (an object: the kind's own members; format, version,
 * kind, arrays and the payload's size and digest are added) and the N
 * ARRAYS to PATH atomically. FALSE with ERROR (G_FILE_ERROR) naming PATH;
 * the old file is then untouched. */
gboolean sb_fit_file_write (const char *path, const char *kind, JsonObject *header,
                            const SbFitArray *arrays, guint n, GError **error);

typedef struct _SbFitFile SbFitFile;

/* Reads PATH, a fit file of KIND (see above for what is refused). NULL
 * with ERROR: SB_FIT_FILE_ERROR_MISSING when there is no file,
 * _DAMAGED or _VERSION otherwise, the message naming PATH. */
SbFitFile *sb_fit_file_read (const char *path, const char *kind, GError **error);
void sb_fit_file_free (SbFitFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbFitFile, sb_fit_file_free)

/* The header (borrowed). */
JsonObject *sb_fit_file_get_header (SbFitFile *file);
/* The array NAME when it has ROWS x COLS numbers (borrowed), else NULL
 * with ERROR (_DAMAGED) naming the file, the array and its shape. */
const double *sb_fit_file_get_array (SbFitFile *file, const char *name, guint rows,
                                     guint cols, GError **error);
/* The file's path, for messages (borrowed). */
const char *sb_fit_file_get_path (SbFitFile *file);

G_END_DECLS
