/* sb-csv-write.h — CSV fields as every export writes them.
 *
 * The session's, the study's and the population's CSV files are read by
 * R, pandas and spreadsheets: fields follow RFC 4180 and numbers the C
 * locale. (Reading CSV is sb-csv.h.)
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TEXT, quoted when it holds a comma, quote or line break. A text that
 * a spreadsheet would take for a formula (it starts with = + - @, a tab
 * or a carriage return: OWASP's "CSV injection" rule) is written with a
 * leading apostrophe, '=SUM(1+2), and quoted, so Excel, LibreOffice and
 * Google Sheets show it as text instead of evaluating it. A text that is
 * exactly a plain number (-1.5, +3) is left alone: it cannot be a
 * formula, and R and pandas keep reading it as the number. Numeric
 * columns are written by sb_csv_number and never prefixed. */
void sb_csv_field (GString *out, const char *text);
/* V in the shortest form that reads back to the same double (46.8, not
 * 46.799999999999997), nothing when not finite. */
void sb_csv_number (GString *out, double v);

G_END_DECLS
