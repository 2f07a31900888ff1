/* sb-worker.c — lanes of cancellable, superseding engine jobs. */
#include "config.h"

#include "sb-worker.h"

#include <math.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

typedef struct {
  guint64 generation;        /* of the newest job submitted to this lane  */
  GCancellable *cancellable; /* of that job                               */
  gboolean busy;
} Lane;

struct _SbWorker
{
  GObject parent_instance;

  Lane lanes[SB_WORKER_N_LANES];
  guint n_dropped;

  /* Progress shared with the worker threads (Sysprof's document loader):
   * written under the mutex, read by one coalesced idle callback. */
  GMutex progress_mutex;
  guint progress_source;
  struct {
    gboolean pending;
    guint64 generation;
    double fraction;
    char *text;
  } progress[SB_WORKER_N_LANES];
};

G_DEFINE_FINAL_TYPE (SbWorker, sb_worker, G_TYPE_OBJECT)

/* Job functions running on threads, over all workers: the process must
 * not exit while one of them is inside the engine (libraries such as
 * OpenBLAS tear their state down at exit). */
static GMutex running_mutex;
static GCond running_cond;
static guint running_jobs;

enum {
  JOB_STARTED,
  JOB_FINISHED,
  JOB_FAILED,
  PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

struct _SbWorkerJob
{
  GWeakRef worker;           /* the worker may go away while we run */
  SbWorkerLane lane;
  guint64 generation;
  GCancellable *cancellable;
  SbWorkerFunc func;
  gpointer input;
  GDestroyNotify input_free;
  GDestroyNotify result_free;
};

static void
job_free (SbWorkerJob *job)
{
  g_weak_ref_clear (&job->worker);
  g_clear_object (&job->cancellable);
  if (job->input_free && job->input)
    job->input_free (job->input);
  g_free (job);
}

GCancellable *
sb_worker_job_get_cancellable (SbWorkerJob *job)
{
  return job->cancellable;
}

gboolean
sb_worker_job_is_cancelled (SbWorkerJob *job)
{
  return g_cancellable_is_cancelled (job->cancellable);
}

guint64
sb_worker_job_get_generation (SbWorkerJob *job)
{
  return job->generation;
}

static gboolean
progress_idle (gpointer user_data)
{
  SbWorker *self = SB_WORKER (user_data);
  struct { gboolean pending; guint64 generation; double fraction; char *text; } copy[SB_WORKER_N_LANES];

  g_mutex_lock (&self->progress_mutex);
  for (guint i = 0; i < SB_WORKER_N_LANES; i++)
    {
      copy[i].pending = self->progress[i].pending;
      copy[i].generation = self->progress[i].generation;
      copy[i].fraction = self->progress[i].fraction;
      copy[i].text = g_steal_pointer (&self->progress[i].text);
      self->progress[i].pending = FALSE;
    }
  self->progress_source = 0;
  g_mutex_unlock (&self->progress_mutex);

  for (guint i = 0; i < SB_WORKER_N_LANES; i++)
    {
      if (copy[i].pending && copy[i].generation == self->lanes[i].generation
          && self->lanes[i].busy)
        g_signal_emit (self, signals[PROGRESS], 0, i, copy[i].generation,
                       copy[i].fraction, copy[i].text ? copy[i].text : "");
      g_free (copy[i].text);
    }
  return G_SOURCE_REMOVE;
}

void
sb_worker_job_progress (SbWorkerJob *job, double fraction, const char *text)
{
  g_autoptr (SbWorker) self = g_weak_ref_get (&job->worker);

  if (self == NULL || g_cancellable_is_cancelled (job->cancellable))
    return;

  g_mutex_lock (&self->progress_mutex);
  self->progress[job->lane].pending = TRUE;
  self->progress[job->lane].generation = job->generation;
  self->progress[job->lane].fraction = isfinite (fraction) ? CLAMP (fraction, 0.0, 1.0) : 0.0;
  g_free (self->progress[job->lane].text);
  self->progress[job->lane].text = g_strdup (text);
  if (self->progress_source == 0)
    {
      /* The idle holds a strong reference; it is removed in dispose. */
      self->progress_source = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, progress_idle,
                                               g_object_ref (self), g_object_unref);
    }
  g_mutex_unlock (&self->progress_mutex);
}

/* Engine jobs run at a lower priority than the main thread, so that on a
 * busy machine the window still gets the CPU first when it wakes up
 * (Linux: nice is per thread, and threads the job starts inherit it). */
static void
lower_thread_priority (void)
{
#ifdef __linux__
  static GPrivate lowered;

  if (g_private_get (&lowered) == NULL)
    {
      (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), 5);
      g_private_set (&lowered, GINT_TO_POINTER (1));
    }
#endif
}

/* The niceness of a lane's jobs beyond the workers' own: the next
 * question first, then what is drawn, then refits. On two cores a refit
 * and a plot job would otherwise take half the CPU from the proposal the
 * person waits for. */
static const int lane_extra_nice[SB_WORKER_N_LANES] = {
  [SB_WORKER_LANE_PROPOSE] = 0,
  [SB_WORKER_LANE_FIT] = 10,
  [SB_WORKER_LANE_PLOT] = 5,
  [SB_WORKER_LANE_DENSITY] = 5,
  [SB_WORKER_LANE_RECOMMEND] = 5,
};

typedef struct {
  SbWorkerJob *job;
  GError *error;
} NicerRun;

static gpointer
run_nicer (gpointer data)
{
  NicerRun *run = data;
  gpointer result;

#ifdef __linux__
  /* A thread of its own: a pool thread whose niceness went up could not
   * come down again for the next proposal without privileges. */
  (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid),
                      5 + lane_extra_nice[run->job->lane]);
#endif
  result = run->job->func (run->job, run->job->input, &run->error);
  return result;
}

/* JOB's function, in a thread of lower priority for the lanes that have
 * one. */
static gpointer
run_job (SbWorkerJob *job, GError **error)
{
  NicerRun run = { job, NULL };
  gpointer result;

  if (lane_extra_nice[job->lane] == 0)
    return job->func (job, job->input, error);
  result = g_thread_join (g_thread_new ("sb-worker-job", run_nicer, &run));
  if (run.error)
    g_propagate_error (error, run.error);
  return result;
}

static void
job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SbWorkerJob *job = task_data;
  GError *error = NULL;
  gpointer result;

  lower_thread_priority ();
  if (g_cancellable_set_error_if_cancelled (cancellable, &error))
    result = NULL;   /* superseded before it started */
  else
    {
      result = run_job (job, &error);
      if (result == NULL && error == NULL)
        g_set_error (&error, G_IO_ERROR, G_IO_ERROR_FAILED, "the job returned no result");
    }
  if (error)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, job->result_free);

  g_mutex_lock (&running_mutex);
  running_jobs--;
  g_cond_broadcast (&running_cond);
  g_mutex_unlock (&running_mutex);
}

gboolean
sb_worker_wait_all (gint64 timeout_us)
{
  gint64 deadline = g_get_monotonic_time () + timeout_us;
  gboolean idle;

  g_mutex_lock (&running_mutex);
  while (running_jobs > 0)
    if (!g_cond_wait_until (&running_cond, &running_mutex, deadline))
      break;
  idle = running_jobs == 0;
  g_mutex_unlock (&running_mutex);
  return idle;
}

/* Emits the lane's last progress report if the idle has not yet: the
 * task's completion is dispatched at a higher priority than the progress
 * idle, so without this a short job would finish with its last report (or
 * every report) never shown. */
static void
flush_lane_progress (SbWorker *self, guint lane, guint64 generation)
{
  gboolean pending;
  double fraction;
  g_autofree char *text = NULL;

  g_mutex_lock (&self->progress_mutex);
  pending = self->progress[lane].pending && self->progress[lane].generation == generation;
  fraction = self->progress[lane].fraction;
  if (pending)
    {
      text = g_steal_pointer (&self->progress[lane].text);
      self->progress[lane].pending = FALSE;
    }
  g_mutex_unlock (&self->progress_mutex);
  if (pending)
    g_signal_emit (self, signals[PROGRESS], 0, lane, generation, fraction, text ? text : "");
}

static void
job_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GTask *task = G_TASK (res);
  SbWorkerJob *job = g_task_get_task_data (task);
  g_autoptr (SbWorker) self = g_weak_ref_get (&job->worker);
  g_autoptr (GError) error = NULL;
  gpointer result = g_task_propagate_pointer (task, &error);
  Lane *lane;

  if (self == NULL)
    {
      /* The window and its worker are gone: nothing to deliver to. */
      if (result && job->result_free)
        job->result_free (result);
      return;
    }
  lane = &self->lanes[job->lane];
  if (job->generation != lane->generation)
    {
      /* Superseded by a newer job: the result describes old inputs. */
      self->n_dropped++;
      if (result && job->result_free)
        job->result_free (result);
      return;
    }
  if (error == NULL)
    flush_lane_progress (self, job->lane, job->generation);
  lane->busy = FALSE;
  if (error)
    g_signal_emit (self, signals[JOB_FAILED], 0, job->lane, job->generation, error);
  else
    {
      g_signal_emit (self, signals[JOB_FINISHED], 0, job->lane, job->generation, result);
      if (job->result_free)
        job->result_free (result);
    }
}

guint64
sb_worker_submit (SbWorker *self, SbWorkerLane lane_id, SbWorkerFunc func, gpointer input,
                  GDestroyNotify input_free, GDestroyNotify result_free)
{
  Lane *lane;
  SbWorkerJob *job;
  g_autoptr (GTask) task = NULL;

  g_return_val_if_fail (SB_IS_WORKER (self), 0);
  g_return_val_if_fail (lane_id < SB_WORKER_N_LANES, 0);
  g_return_val_if_fail (func != NULL, 0);

  lane = &self->lanes[lane_id];
  if (lane->cancellable)
    g_cancellable_cancel (lane->cancellable);
  g_clear_object (&lane->cancellable);
  lane->cancellable = g_cancellable_new ();
  lane->generation++;
  lane->busy = TRUE;

  job = g_new0 (SbWorkerJob, 1);
  g_weak_ref_init (&job->worker, self);
  job->lane = lane_id;
  job->generation = lane->generation;
  job->cancellable = g_object_ref (lane->cancellable);
  job->func = func;
  job->input = input;
  job->input_free = input_free;
  job->result_free = result_free;

  /* No source object: the task must not keep the worker alive. */
  task = g_task_new (NULL, job->cancellable, job_done, NULL);
  g_task_set_source_tag (task, sb_worker_submit);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  /* The task's own cancellable check would return before our callback can
   * free the result; we check the generation instead. */
  g_task_set_check_cancellable (task, FALSE);
  g_mutex_lock (&running_mutex);
  running_jobs++;
  g_mutex_unlock (&running_mutex);
  g_task_run_in_thread (task, job_thread);

  g_signal_emit (self, signals[JOB_STARTED], 0, lane_id, job->generation);
  return job->generation;
}

void
sb_worker_cancel (SbWorker *self, SbWorkerLane lane_id)
{
  Lane *lane;

  g_return_if_fail (SB_IS_WORKER (self));
  g_return_if_fail (lane_id < SB_WORKER_N_LANES);

  lane = &self->lanes[lane_id];
  if (lane->cancellable)
    g_cancellable_cancel (lane->cancellable);
  g_clear_object (&lane->cancellable);
  /* A new generation with no job: whatever is still running is stale. */
  lane->generation++;
  lane->busy = FALSE;
}

void
sb_worker_cancel_all (SbWorker *self)
{
  for (guint i = 0; i < SB_WORKER_N_LANES; i++)
    sb_worker_cancel (self, i);
}

gboolean
sb_worker_is_busy (SbWorker *self, SbWorkerLane lane)
{
  g_return_val_if_fail (SB_IS_WORKER (self), FALSE);
  return lane < SB_WORKER_N_LANES && self->lanes[lane].busy;
}

guint64
sb_worker_get_generation (SbWorker *self, SbWorkerLane lane)
{
  g_return_val_if_fail (SB_IS_WORKER (self), 0);
  return lane < SB_WORKER_N_LANES ? self->lanes[lane].generation : 0;
}

guint
sb_worker_get_n_dropped (SbWorker *self)
{
  return self->n_dropped;
}

static void
sb_worker_dispose (GObject *object)
{
  SbWorker *self = SB_WORKER (object);

  for (guint i = 0; i < SB_WORKER_N_LANES; i++)
    {
      if (self->lanes[i].cancellable)
        g_cancellable_cancel (self->lanes[i].cancellable);
      g_clear_object (&self->lanes[i].cancellable);
    }
  g_mutex_lock (&self->progress_mutex);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_mutex_unlock (&self->progress_mutex);
  G_OBJECT_CLASS (sb_worker_parent_class)->dispose (object);
}

static void
sb_worker_finalize (GObject *object)
{
  SbWorker *self = SB_WORKER (object);

  for (guint i = 0; i < SB_WORKER_N_LANES; i++)
    g_free (self->progress[i].text);
  g_mutex_clear (&self->progress_mutex);
  G_OBJECT_CLASS (sb_worker_parent_class)->finalize (object);
}

static void
sb_worker_class_init (SbWorkerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sb_worker_dispose;
  object_class->finalize = sb_worker_finalize;

  signals[JOB_STARTED] = g_signal_new ("job-started", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT64);
  signals[JOB_FINISHED] = g_signal_new ("job-finished", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT64,
                                        G_TYPE_POINTER);
  signals[JOB_FAILED] = g_signal_new ("job-failed", G_TYPE_FROM_CLASS (klass),
                                      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT64,
                                      G_TYPE_POINTER);
  signals[PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass),
                                    G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 4, G_TYPE_UINT, G_TYPE_UINT64,
                                    G_TYPE_DOUBLE, G_TYPE_STRING);
}

static void
sb_worker_init (SbWorker *self)
{
  g_mutex_init (&self->progress_mutex);
}

SbWorker *
sb_worker_new (void)
{
  return g_object_new (SB_TYPE_WORKER, NULL);
}
