/* sb-worker.h — engine jobs off the main thread (docs/DESIGN.md §2).
 *
 * A job is a function that runs on a worker thread with inputs the caller
 * copied for it (it never touches the session or a widget). Jobs run in
 * lanes: submitting a job to a lane supersedes the lane's running job
 * (its GCancellable is cancelled) and bumps the lane's generation; when a
 * job finishes, its result is delivered on the main thread only if its
 * generation is still the lane's current one — a stale result is dropped,
 * however late it arrives. The worker is held by a weak reference while
 * jobs run, so a job that outlives its window is harmless
 * (GNOME Text Editor's editor-document-statistics.c pattern).
 *
 * Progress: a job reports (fraction, text) from its thread; the worker
 * stores the latest value under a mutex and schedules at most one idle
 * callback, which emits ::progress on the main thread (Sysprof's
 * sysprof-document-loader.c pattern). So a job may report as often as it
 * likes without flooding the main loop.
 *
 * Signals (main thread):
 *   ::job-started   (lane, generation)
 *   ::job-finished  (lane, generation, result pointer)  — current jobs only;
 *                   the pointer is owned by the worker and valid during
 *                   the emission (take a reference to keep it, see
 *                   sb_worker_submit's RESULT_COPY/RESULT_FREE)
 *   ::job-failed    (lane, generation, const GError *)  — current jobs only
 *                   (a cancellation is reported too, with G_IO_ERROR_CANCELLED)
 *   ::progress      (lane, generation, fraction, text) — current jobs only
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  SB_WORKER_LANE_PROPOSE = 0,  /* posterior + acquisition: the next question */
  SB_WORKER_LANE_FIT,          /* hyperparameter fitting (slower)           */
  SB_WORKER_LANE_PLOT,         /* plot snapshots of the latest model        */
  SB_WORKER_LANE_DENSITY,      /* the density at a point the user clicked   */
  SB_WORKER_LANE_RECOMMEND,    /* the recommendation (best setting, mean)  */
  SB_WORKER_N_LANES
} SbWorkerLane;

typedef struct _SbWorkerJob SbWorkerJob;

/* Runs on a worker thread. Returns the result (freed with the RESULT_FREE
 * given to sb_worker_submit) or NULL with ERROR set. */
typedef gpointer (*SbWorkerFunc) (SbWorkerJob *job, gpointer input, GError **error);

/* For jobs: the cancellable to poll, and the progress reporter. */
GCancellable *sb_worker_job_get_cancellable (SbWorkerJob *job);
gboolean sb_worker_job_is_cancelled (SbWorkerJob *job);
void sb_worker_job_progress (SbWorkerJob *job, double fraction, const char *text);
guint64 sb_worker_job_get_generation (SbWorkerJob *job);

#define SB_TYPE_WORKER (sb_worker_get_type ())
G_DECLARE_FINAL_TYPE (SbWorker, sb_worker, SB, WORKER, GObject)

SbWorker *sb_worker_new (void);
/* Starts FUNC (INPUT) on a worker thread in LANE, superseding the lane's
 * running job. INPUT is owned by the job (INPUT_FREE), the result by the
 * worker (RESULT_FREE). Returns the job's generation. */
guint64 sb_worker_submit (SbWorker *self, SbWorkerLane lane, SbWorkerFunc func,
                          gpointer input, GDestroyNotify input_free,
                          GDestroyNotify result_free);
/* Cancels the lane's job (its result will be dropped). */
void sb_worker_cancel (SbWorker *self, SbWorkerLane lane);
/* Supersedes every lane: all results still to come are dropped. */
void sb_worker_cancel_all (SbWorker *self);
gboolean sb_worker_is_busy (SbWorker *self, SbWorkerLane lane);
guint64 sb_worker_get_generation (SbWorker *self, SbWorkerLane lane);
/* Waits until no job function of any worker is running (cancel them
 * first), at most TIMEOUT_US microseconds; TRUE when all have returned.
 * For shutdown: the process must not exit while a job is in the engine. */
gboolean sb_worker_wait_all (gint64 timeout_us);
/* Number of results dropped because they were stale (for tests). */
guint sb_worker_get_n_dropped (SbWorker *self);

G_END_DECLS
