/* sb-error.c — the session error domain (sb-error.h). */
#include "config.h"

#include "sb-error.h"

G_DEFINE_QUARK (sb-session-error-quark, sb_session_error)

gboolean
sb_invalid (GError **error, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                                                format, args));
  va_end (args);
  return FALSE;
}
