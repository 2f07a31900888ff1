/* sb-json-read.h — the one strict JSON reader of SkewBench.
 *
 * Every JSON document SkewBench reads (the input of each `skewgp`
 * command, session files) goes through sb_json_read(). json-glib 1.6
 * alone is not enough: its parser recurses once per nesting level (a
 * document of 100,000 '[' overflows the stack), keeps the last of two
 * equal member names silently, accepts content after the document,
 * comments, single quotes and non-JSON numbers (001, .5, 0x10, 1.), reads
 * integers beyond 64 bits as -1 or +1 and 1e999 as infinity.
 *
 * So before json-glib sees the text, one linear pass (a small tokenizer
 * with an explicit stack, no recursion) checks the whole of RFC 8259 and
 * refuses, naming LINE:COLUMN (1-based; columns count characters) and,
 * inside a document, the member path (e.g. 'observations'[3].'x'[1]):
 *   - a document larger than SB_JSON_READ_MAX_BYTES, or nested deeper
 *     than SB_JSON_READ_MAX_DEPTH;
 *   - invalid UTF-8, NUL bytes, "\u0000" and unpaired surrogates in strings
 *     (C strings cannot hold them: json-glib would truncate silently);
 *   - anything RFC 8259 does not allow: comments, trailing commas, single
 *     quotes, bare words (NaN, Infinity), raw control characters in
 *     strings, numbers with a leading zero (001), a leading '.' or '+',
 *     hexadecimal, a trailing '.' (1.) or an empty exponent (1e);
 *   - a member name that appears twice in one object;
 *   - content after the document;
 *   - an integer literal (no fraction, no exponent) outside the 64-bit
 *     range [-2^63, 2^63 - 1]: refused rather than read as a real,
 *     because an integer that large is never meaningful in SkewBench's
 *     documents (seeds, counts and labels are small) and the reader cannot
 *     tell which fields take reals; a real that large is written with an
 *     exponent (7.7e22), which is read as a double;
 *   - a real that overflows to infinity (1e999). Reals that underflow
 *     (1e-999) read as 0, as any JSON reader does.
 * A UTF-8 byte-order mark at the start is skipped (RFC 8259 sec. 8.1).
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The largest document read, in bytes. json-glib's tree costs about 40
 * times the text for arrays of small numbers: the worst case at this
 * limit, an array of 33 million zeros, peaks at 2.7 GB (and takes a minute
 * in json-glib), the most this project lets one input take. Real documents
 * are far smaller: a session stores ~200 bytes per answer (1,000 answers
 * ~200 kB), and the CLI's largest inputs (observations for `skewgp
 * posterior`/`fit`/`link`) are a few MB at the sizes the engine handles. */
#define SB_JSON_READ_MAX_BYTES ((gsize) 64 * 1024 * 1024)
/* The deepest nesting read. SkewBench's documents nest at most 5 levels
 * (a session's observations[i].x[j]); 256 leaves room for any hand-made
 * document while json-glib's recursion stays a few hundred kB of stack. */
#define SB_JSON_READ_MAX_DEPTH 256

#define SB_JSON_READ_ERROR (sb_json_read_error_quark ())
GQuark sb_json_read_error_quark (void);

typedef enum {
  SB_JSON_READ_ERROR_EMPTY,          /* nothing but whitespace */
  SB_JSON_READ_ERROR_SYNTAX,         /* not JSON (RFC 8259), or content after it */
  SB_JSON_READ_ERROR_TOO_LARGE,      /* more than SB_JSON_READ_MAX_BYTES */
  SB_JSON_READ_ERROR_TOO_DEEP,       /* nested deeper than SB_JSON_READ_MAX_DEPTH */
  SB_JSON_READ_ERROR_DUPLICATE_KEY,  /* a member name twice in one object */
  SB_JSON_READ_ERROR_NUMBER,         /* an integer beyond 64 bits, a real beyond double */
} SbJsonReadError;

/* Parses the LENGTH bytes of DATA (-1: NUL-terminated) as one JSON
 * document under the rules above. Returns the root (free with
 * json_node_unref) or NULL with ERROR set to "LINE:COLUMN: what is wrong"
 * (the caller puts the file name in front). */
JsonNode *sb_json_read (const char *data, gssize length, GError **error);

/* The LENGTH bytes of TEXT as one number under the same rules (JSON's
 * grammar: no 001, .5, +1, 0x1A, inf or nan; an integer within 64 bits, a
 * real within the double range) into *VALUE. FALSE with ERROR set to what
 * is wrong (no position: the caller names the cell) otherwise. For other
 * formats with numbers (CSV cells). */
gboolean sb_json_read_number (const char *text, gsize length, double *value,
                              GError **error);

G_END_DECLS
