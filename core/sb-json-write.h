/* sb-json-write.h — JSON text from a JsonNode, with valid numbers.
 *
 * json-glib 1.6's generator prints a double such as 1e-14 as "1e-14.0"
 * (it appends ".0" to any %g output without a '.'), which is not JSON:
 * every document SkewBench writes (CLI output, session files) goes through
 * this writer instead. Doubles are printed in the shortest form that reads
 * back to the same value (-0.0 as "-0.0": "-0" reads as the integer 0), so
 * text written, read and written again is the same text; NaN and
 * infinities (not representable in JSON) become null. Member order is preserved.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Newly allocated text; PRETTY indents by two spaces per level. */
char *sb_json_write (JsonNode *node, gboolean pretty, gsize *length);
/* The shortest "%.*g" form of X (15 to 17 digits) that reads back to X,
 * into BUF (at least 32 bytes; returned); "null" for NaN and infinities. */
const char *sb_json_format_double (double x, char *buf, gsize size);
/* Adds member NAME with the number V, or null when V is NaN or infinite
 * (JSON has no such numbers). */
void sb_json_add_number (JsonBuilder *b, const char *name, double v);
/* Adds member NAME with an integer, a boolean, or a string (null when
 * VALUE is NULL): one call per member of the object B is building. */
void sb_json_add_int (JsonBuilder *b, const char *name, gint64 value);
void sb_json_add_bool (JsonBuilder *b, const char *name, gboolean value);
void sb_json_add_string (JsonBuilder *b, const char *name, const char *value);

G_END_DECLS
