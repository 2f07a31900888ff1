/* sb-error.h — the error domain of what a session file holds.
 *
 * An experiment, an answer, a question or a session document that breaks
 * a rule is refused with an error in SB_SESSION_ERROR that names the
 * field; sb_invalid is the one way core raises SB_SESSION_ERROR_INVALID.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SB_SESSION_ERROR (sb_session_error_quark ())
GQuark sb_session_error_quark (void);
typedef enum {
  SB_SESSION_ERROR_PARSE,    /* not JSON: line and column of the fault      */
  SB_SESSION_ERROR_FOREIGN,  /* JSON, but not a SkewBench session           */
  SB_SESSION_ERROR_VERSION,  /* a newer session version than this program's */
  SB_SESSION_ERROR_INVALID,  /* a session whose content is malformed        */
  SB_SESSION_ERROR_NO_FILE,  /* saving a session that has no file           */
} SbSessionError;

/* Sets ERROR (SB_SESSION_ERROR_INVALID) to the formatted message and
 * returns FALSE, so that a check reads "return sb_invalid (error, ...)". */
gboolean sb_invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
