/* sb-engine-job.c — engine status as GError, engine progress to the job. */
#include "config.h"

#include "sb-engine-job.h"

#include <gio/gio.h>

G_DEFINE_QUARK (sb-engine-error-quark, sb_engine_error)

gboolean
sb_engine_failed (int status, const char *what, GError **error)
{
  if (status == SG_OK)
    return FALSE;
  if (status == SG_ECANCELLED)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s was cancelled", what);
  else
    g_set_error (error, SB_ENGINE_ERROR, status, "%s failed: %s", what, sg_strerror (status));
  return TRUE;
}

int
sb_job_forward_progress (double fraction, void *user_data)
{
  SbJobProgress *p = user_data;

  if (p->job == NULL)
    return 0;
  if (sb_worker_job_is_cancelled (p->job))
    return 1;
  if (p->text)
    sb_worker_job_progress (p->job, fraction, p->text);
  return 0;
}
