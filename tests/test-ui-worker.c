/* test-ui-worker.c — the worker: results delivered on the main thread,
 * superseded jobs' results dropped (generation), cancellation reaches the
 * job, progress coalesced into idle callbacks, a worker freed while a job
 * runs is harmless. Needs no display. */
#include "sb-worker.h"

typedef struct {
  GMutex lock;
  GCond cond;
  gboolean release;   /* the blocked job may finish               */
  gboolean started;
  int value;
  gboolean ignore_cancel;
  guint n_progress;   /* progress reports the job makes            */
} FakeInput;

static FakeInput *
fake_new (int value, gboolean ignore_cancel)
{
  FakeInput *f = g_new0 (FakeInput, 1);

  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  f->value = value;
  f->ignore_cancel = ignore_cancel;
  return f;
}

static void
fake_release (FakeInput *f)
{
  g_mutex_lock (&f->lock);
  f->release = TRUE;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

static void
fake_wait_started (FakeInput *f)
{
  g_mutex_lock (&f->lock);
  while (!f->started)
    g_cond_wait (&f->cond, &f->lock);
  g_mutex_unlock (&f->lock);
}

/* Inputs are shared with the test (not freed by the worker). */
static gpointer
fake_job (SbWorkerJob *job, gpointer data, GError **error)
{
  FakeInput *f = data;
  int *result;

  for (guint i = 0; i < f->n_progress; i++)
    sb_worker_job_progress (job, (i + 1.0) / f->n_progress, "working");
  g_mutex_lock (&f->lock);
  f->started = TRUE;
  g_cond_broadcast (&f->cond);
  while (!f->release)
    {
      gint64 until = g_get_monotonic_time () + 2 * G_TIME_SPAN_MILLISECOND;
      if (!f->ignore_cancel && sb_worker_job_is_cancelled (job))
        break;
      g_cond_wait_until (&f->cond, &f->lock, until);
    }
  g_mutex_unlock (&f->lock);
  if (!f->ignore_cancel
      && g_cancellable_set_error_if_cancelled (sb_worker_job_get_cancellable (job), error))
    return NULL;
  result = g_new (int, 1);
  *result = f->value;
  return result;
}

typedef struct {
  guint n_finished;
  guint n_failed;
  int last_value;
  guint64 last_generation;
  GError *last_error;
  guint n_progress;
  double last_fraction;
  GThread *main_thread;
} Record;

static void
on_finished (SbWorker *w, guint lane, guint64 gen, gpointer result, Record *r)
{
  g_assert_true (g_thread_self () == r->main_thread);
  r->n_finished++;
  r->last_value = *(int *) result;
  r->last_generation = gen;
}

static void
on_failed (SbWorker *w, guint lane, guint64 gen, const GError *error, Record *r)
{
  g_assert_true (g_thread_self () == r->main_thread);
  r->n_failed++;
  g_clear_error (&r->last_error);
  r->last_error = g_error_copy (error);
  r->last_generation = gen;
}

static void
on_progress (SbWorker *w, guint lane, guint64 gen, double fraction, const char *text, Record *r)
{
  g_assert_true (g_thread_self () == r->main_thread);
  r->n_progress++;
  r->last_fraction = fraction;
}

static SbWorker *
worker_with_record (Record *r)
{
  SbWorker *w = sb_worker_new ();

  r->main_thread = g_thread_self ();
  g_signal_connect (w, "job-finished", G_CALLBACK (on_finished), r);
  g_signal_connect (w, "job-failed", G_CALLBACK (on_failed), r);
  g_signal_connect (w, "progress", G_CALLBACK (on_progress), r);
  return w;
}

/* Iterates the main loop until COND or 10 s (a hang is a failure). */
#define SPIN_UNTIL(cond)                                                        \
  G_STMT_START {                                                                \
    gint64 deadline_ = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;       \
    while (!(cond) && g_get_monotonic_time () < deadline_)                      \
      g_main_context_iteration (NULL, FALSE), g_usleep (1000);                  \
    g_assert_true (cond);                                                       \
  } G_STMT_END

static void
spin_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;
  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
test_delivers (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);
  FakeInput *f = fake_new (42, FALSE);
  guint64 gen;

  fake_release (f);
  gen = sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, f, NULL, g_free);
  g_assert_true (sb_worker_is_busy (w, SB_WORKER_LANE_PROPOSE));
  SPIN_UNTIL (r.n_finished == 1);
  g_assert_cmpint (r.last_value, ==, 42);
  g_assert_cmpuint (r.last_generation, ==, gen);
  g_assert_false (sb_worker_is_busy (w, SB_WORKER_LANE_PROPOSE));
  g_free (f);
}

/* A job that ignores cancellation still finishes, late: its result must be
 * dropped because a newer job was submitted meanwhile. */
static void
test_superseded_dropped (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);
  FakeInput *old = fake_new (1, TRUE), *fresh = fake_new (2, FALSE);
  guint64 gen_old, gen_new;

  gen_old = sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, old, NULL, g_free);
  fake_wait_started (old);
  gen_new = sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, fresh, NULL, g_free);
  g_assert_cmpuint (gen_new, >, gen_old);
  /* The new job finishes first ... */
  fake_release (fresh);
  SPIN_UNTIL (r.n_finished == 1);
  g_assert_cmpint (r.last_value, ==, 2);
  /* ... then the old one: delivered to nobody. */
  fake_release (old);
  SPIN_UNTIL (sb_worker_get_n_dropped (w) == 1);
  spin_for (50);
  g_assert_cmpuint (r.n_finished, ==, 1);
  g_assert_cmpint (r.last_value, ==, 2);
  g_assert_cmpuint (r.n_failed, ==, 0);

  /* Same when the old job finishes before the new one. */
  {
    FakeInput *a = fake_new (3, TRUE), *b = fake_new (4, FALSE);
    sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, a, NULL, g_free);
    fake_wait_started (a);
    sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, b, NULL, g_free);
    fake_release (a);
    SPIN_UNTIL (sb_worker_get_n_dropped (w) == 2);
    g_assert_cmpuint (r.n_finished, ==, 1);
    fake_release (b);
    SPIN_UNTIL (r.n_finished == 2);
    g_assert_cmpint (r.last_value, ==, 4);
    g_free (a);
    g_free (b);
  }
  g_free (old);
  g_free (fresh);
}

/* Cancelling reaches the job's cancellable, and nothing is delivered. */
static void
test_cancel (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);
  FakeInput *f = fake_new (5, FALSE);

  sb_worker_submit (w, SB_WORKER_LANE_FIT, fake_job, f, NULL, g_free);
  fake_wait_started (f);
  sb_worker_cancel (w, SB_WORKER_LANE_FIT);
  g_assert_false (sb_worker_is_busy (w, SB_WORKER_LANE_FIT));
  /* The job sees the cancellation without being released. */
  SPIN_UNTIL (sb_worker_get_n_dropped (w) == 1);
  g_assert_cmpuint (r.n_finished + r.n_failed, ==, 0);
  g_free (f);
}

/* Lanes are independent: a fit is not superseded by a proposal. */
static void
test_lanes (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);
  FakeInput *fit = fake_new (7, FALSE), *prop = fake_new (8, FALSE);

  sb_worker_submit (w, SB_WORKER_LANE_FIT, fake_job, fit, NULL, g_free);
  sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, prop, NULL, g_free);
  fake_release (prop);
  fake_release (fit);
  SPIN_UNTIL (r.n_finished == 2);
  g_assert_cmpuint (sb_worker_get_n_dropped (w), ==, 0);
  g_free (fit);
  g_free (prop);
}

/* 10,000 progress reports from the job become a handful of idle
 * callbacks, and the last value arrives. */
static void
test_progress_coalesced (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);
  FakeInput *f = fake_new (9, FALSE);

  f->n_progress = 10000;
  sb_worker_submit (w, SB_WORKER_LANE_FIT, fake_job, f, NULL, g_free);
  /* The job reports everything before it blocks; the main loop is not
   * iterated meanwhile, so the reports pile up behind one idle. */
  fake_wait_started (f);
  spin_for (50);
  g_test_message ("%u progress emissions for 10000 reports", r.n_progress);
  g_assert_cmpuint (r.n_progress, ==, 1);
  g_assert_cmpfloat (r.last_fraction, ==, 1.0);
  fake_release (f);
  SPIN_UNTIL (r.n_finished == 1);
  g_free (f);
}

/* A worker finalized while its job runs: the job's late result is freed
 * and nothing crashes (the job only holds a weak reference). */
static void
test_worker_gone (void)
{
  Record r = { 0 };
  SbWorker *w = worker_with_record (&r);
  FakeInput *f = fake_new (10, TRUE);

  sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, fake_job, f, NULL, g_free);
  fake_wait_started (f);
  g_object_unref (w);
  fake_release (f);
  spin_for (100);
  g_assert_cmpuint (r.n_finished, ==, 0);
  g_free (f);
}

/* Engine errors come back as job-failed with the message. */
static gpointer
failing_job (SbWorkerJob *job, gpointer data, GError **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the matrix is not positive definite");
  return NULL;
}

static void
test_error (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);

  sb_worker_submit (w, SB_WORKER_LANE_PROPOSE, failing_job, NULL, NULL, NULL);
  SPIN_UNTIL (r.n_failed == 1);
  g_assert_error (r.last_error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpstr (r.last_error->message, ==, "the matrix is not positive definite");
  g_clear_error (&r.last_error);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/worker/delivers", test_delivers);
  g_test_add_func ("/worker/superseded-dropped", test_superseded_dropped);
  g_test_add_func ("/worker/cancel", test_cancel);
  g_test_add_func ("/worker/lanes", test_lanes);
  g_test_add_func ("/worker/progress-coalesced", test_progress_coalesced);
  g_test_add_func ("/worker/worker-gone", test_worker_gone);
  g_test_add_func ("/worker/error", test_error);
  return g_test_run ();
}
