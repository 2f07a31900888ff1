/* sb-engine-job.h — how the worker's jobs talk to the engine: engine
 * status codes become GErrors, and the engine loops' progress reaches the
 * job (and the job's cancellation stops the loop), in one place for every
 * job (sb-jobs, sb-link-job, sb-playground-job, sb-prior-job). */
#pragma once

#include "sb-worker.h"
#include "sg-common.h"
#include "sg-fit.h"
#include "sg-kernel.h"

G_BEGIN_DECLS

/* g_auto for the engine's caller-owned structs with storage. */
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (sg_kernel, sg_kernel_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (sg_fit_spec, sg_fit_spec_clear)

/* Error domain of engine failures: the code is the sg_status. */
#define SB_ENGINE_ERROR (sb_engine_error_quark ())
GQuark sb_engine_error_quark (void);

/* FALSE when STATUS is SG_OK. Otherwise sets ERROR — G_IO_ERROR_CANCELLED
 * ("WHAT was cancelled") for SG_ECANCELLED, SB_ENGINE_ERROR with the
 * status as code ("WHAT failed: reason") for the rest — and returns TRUE. */
gboolean sb_engine_failed (int status, const char *what, GError **error);

/* The user data of sb_job_forward_progress: the job (NULL when the work
 * runs outside the worker) and the text shown with the fraction (NULL:
 * the fraction is not shown, only cancellation is polled). */
typedef struct {
  SbWorkerJob *job;
  const char *text;
} SbJobProgress;

/* An sg_progress_fn: forwards FRACTION to the job (the worker coalesces
 * it) and returns nonzero, which stops the engine loop, as soon as the
 * job is cancelled or superseded. USER_DATA is an SbJobProgress. */
int sb_job_forward_progress (double fraction, void *user_data);

G_END_DECLS
