/* test-ui-worker.c — the worker: results delivered on the main thread,
 * superseded jobs' results dropped (generation), cancellation reaches the
 * job, progress coalesced into idle callbacks, a worker freed while a job
 * runs is harmless; and the real engine jobs (propose -> plot / density)
 * fill the plot snapshots: acquisition curve and field with the proposal
 * as their maximiser, P(valid) in safe mode, Laplace/EP overlays.
 * Needs no display. */
#include "sb-experiment-templates.h"
#include "sb-jobs.h"
#include "sb-worker.h"
#include "loop-harness.h"

#include <math.h>

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

/* A job that reports and finishes before the main loop wakes up: its
 * completion is dispatched before the progress idle, and its last report
 * must still be shown (not dropped as belonging to a finished job). */
static void
test_progress_before_finish (void)
{
  Record r = { 0 };
  g_autoptr (SbWorker) w = worker_with_record (&r);
  FakeInput *f = fake_new (10, FALSE);

  f->n_progress = 3;
  sb_worker_submit (w, SB_WORKER_LANE_FIT, fake_job, f, NULL, g_free);
  fake_wait_started (f);
  fake_release (f);
  g_usleep (100 * 1000);   /* both the completion and the idle are pending */
  SPIN_UNTIL (r.n_finished == 1);
  spin_for (20);
  g_assert_cmpuint (r.n_progress, ==, 1);
  g_assert_cmpfloat (r.last_fraction, ==, 1.0);
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

/* ---- The real jobs: propose, then plot / density ------------------------------ */

/* Result of one job run to completion (the worker frees nothing: the jobs
 * are submitted without RESULT_FREE, so the result belongs to the test). */
typedef struct {
  gboolean done;
  gpointer result;
  GError *error;
} JobRun;

static void
on_job_finished (SbWorker *w, guint lane, guint64 gen, gpointer result, JobRun *run)
{
  run->done = TRUE;
  run->result = result;
}

static void
on_job_failed (SbWorker *w, guint lane, guint64 gen, const GError *error, JobRun *run)
{
  run->done = TRUE;
  run->error = g_error_copy (error);
}

static gpointer
run_job (SbWorker *w, SbWorkerLane lane, SbWorkerFunc func, gpointer input,
         GDestroyNotify input_free)
{
  JobRun run = { 0 };
  gulong a = g_signal_connect (w, "job-finished", G_CALLBACK (on_job_finished), &run);
  gulong b = g_signal_connect (w, "job-failed", G_CALLBACK (on_job_failed), &run);
  gint64 deadline = g_get_monotonic_time () + 120 * G_TIME_SPAN_SECOND;

  sb_worker_submit (w, lane, func, input, input_free, NULL);
  while (!run.done && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  g_signal_handler_disconnect (w, a);
  g_signal_handler_disconnect (w, b);
  g_assert_true (run.done);
  g_assert_no_error (run.error);
  g_assert_nonnull (run.result);
  return run.result;
}

/* Answers the simulated oracle's questions until N_ANSWERS answers are
 * in, then returns the next question (which has a model); with REFIT,
 * refits the hyperparameters whenever the engine's schedule asks, as the
 * window does. */
static SbProposal *
play_with (SbWorker *w, SbSession *session, guint n_answers, gboolean refit)
{
  for (;;)
    {
      SbProposal *q = run_job (w, SB_WORKER_LANE_PROPOSE, sb_job_propose,
                               sb_job_input_new (session), (GDestroyNotify) sb_job_input_free);
      g_autoptr (GError) error = NULL;
      gboolean ok;

      g_assert_true (q->has_oracle);
      if (refit && q->refit_due
          && sb_session_get_hyper (session)->n_answers != sb_session_get_n_answers (session))
        {
          /* the window's schedule: refit, then ask again */
          SbFitResult *fit = run_job (w, SB_WORKER_LANE_FIT, sb_job_fit,
                                      sb_job_input_new (session),
                                      (GDestroyNotify) sb_job_input_free);
          ok = sb_session_set_hyper (session, &fit->hyper, &error);
          g_assert_no_error (error);
          g_assert_true (ok);
          g_free (fit);
          sb_proposal_free (q);
          continue;
        }
      if (sb_session_get_n_answers (session) >= n_answers && q->model)
        return q;
      if (q->kind == SB_QUESTION_DUEL)
        ok = sb_session_add_duel (session, q->a, q->b, q->oracle_winner, &error);
      else if (q->oracle_failed)
        ok = sb_session_add_failed (session, q->b, &error);
      else
        ok = sb_session_add_value (session, q->b, q->oracle_value, &error);
      g_assert_no_error (error);
      g_assert_true (ok);
      sb_proposal_free (q);
    }
}

static SbProposal *
play (SbWorker *w, SbSession *session, guint n_answers)
{
  return play_with (w, session, n_answers, FALSE);
}

static SbPlotSnapshot *
plot (SbWorker *w, SbSession *session, SbProposal *q, gboolean compare)
{
  SbPlotInput *input = sb_plot_input_new (q->model, session, q, 0, 1);
  SbPlotSnapshot *snap;

  input->compare = compare;
  snap = run_job (w, SB_WORKER_LANE_PLOT, sb_job_plot, input, (GDestroyNotify) sb_plot_input_free);
  g_assert_true (sb_plot_snapshot_is_frozen (snap));
  return snap;
}

/* The acquisition curve: finite (but for x_r itself, excluded from duels,
 * and the penalised part of a safe UCB), its maximiser is the proposed
 * point B, and no grid point beats the grid points next to B by more than
 * the curve's change over one step there (the search starts from 500
 * candidates, finer than the 160-point grid; see test-bo's
 * /bo/acquisition-at). 1-D problems only: then the curve is the whole
 * acquisition. Returns the index of B's nearest grid point. */
static gsize
check_acquisition_curve (SbPlotSnapshot *snap, const SbProposal *q, const char *name,
                         gsize min_finite)
{
  const double *x, *x_max;
  const char *acq_name;
  gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, &x);
  const double *acq = sb_plot_snapshot_get_acquisition (snap, &acq_name, &x_max);
  gsize finite = 0, near = 0;
  double amax = -INFINITY, around = -INFINITY, step = 0;

  g_assert_nonnull (acq);
  g_assert_nonnull (x_max);
  g_assert_cmpstr (acq_name, ==, name);
  g_assert_cmpfloat (x_max[0], ==, q->b[0]);
  for (gsize i = 0; i < n; i++)
    {
      finite += isfinite (acq[i]) != 0;
      if (isfinite (acq[i]))
        amax = MAX (amax, acq[i]);
      if (fabs (x[i] - x_max[0]) < fabs (x[near] - x_max[0]))
        near = i;
    }
  for (gsize i = near > 0 ? near - 1 : 0; i <= MIN (near + 1, n - 1); i++)
    if (isfinite (acq[i]))
      {
        around = MAX (around, acq[i]);
        if (i > 0 && isfinite (acq[i - 1]))
          step = MAX (step, fabs (acq[i] - acq[i - 1]));
        if (i + 1 < n && isfinite (acq[i + 1]))
          step = MAX (step, fabs (acq[i + 1] - acq[i]));
      }
  g_test_message ("%s: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " finite, max %.4g, "
                  "at the proposal %.4g (x = %.4g), local step %.4g", name, finite, n,
                  amax, around, x_max[0], step);
  g_assert_cmpuint (finite, >=, min_finite);
  g_assert_cmpfloat (amax, <=, around + step);
  return near;
}

/* 1-D preferential run on cos1d by the template's duel rule (the
 * default, HB-UCB): the acquisition curve, the believer's UCB, peaks at
 * the proposal; Laplace and EP summaries are there with compare and not
 * without; the density job adds their Gaussians to the exact density. */
/* A session of the cos1d template (seed 3) asking by ACQ (-1: the
 * template's own), played 9 duels: the open proposal. */
static SbProposal *
play_cos1d (SbWorker *w, int acq, SbSession **session)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("cos1d", &error);

  g_assert_no_error (error);
  if (acq >= 0)
    exp->acquisition = (sg_bo_acquisition) acq;
  exp->seed = 3;
  *session = sb_session_new (exp);
  return play (w, *session, 9);
}

static void
test_plot_job_preference_1d (void)
{
  g_autoptr (SbWorker) w = sb_worker_new ();
  g_autoptr (SbSession) session = NULL;
  SbProposal *q = play_cos1d (w, -1, &session);

  g_assert_cmpint (sb_session_get_experiment (session)->acquisition, ==, SG_BO_ACQ_HB_UCB);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);

  SbPlotSnapshot *snap = plot (w, session, q, TRUE);
  gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, NULL);
  check_acquisition_curve (snap, q, "HB-UCB", n - 1);
  g_assert_null (sb_plot_snapshot_get_validity (snap, NULL));
  const sg_point_summary *ex = sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT);
  for (SbPosteriorMethod k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
    {
      const sg_point_summary *g = sb_plot_snapshot_get_summaries (snap, k);
      double dist = 0;
      g_assert_nonnull (g);
      for (gsize i = 0; i < n; i++)
        {
          g_assert_true (isfinite (g[i].mean) && g[i].sd > 0);
          g_assert_cmpfloat (g[i].hpd_lower, <, g[i].hpd_upper);
          g_assert_cmpfloat (g[i].skewness, ==, 0);
          dist = MAX (dist, fabs (g[i].mean - ex[i].mean) / ex[i].sd);
        }
      /* the same data and kernel: the Gaussian means follow the exact
       * one (within a few posterior sd; they are not identical) */
      g_test_message ("%s: largest |mean - exact mean| / exact sd = %.3f",
                      sb_posterior_method_name (k), dist);
      g_assert_cmpfloat (dist, <, 3);
    }

  /* the density at the proposal: exact, Laplace and EP */
  SbDensityData *d = run_job (w, SB_WORKER_LANE_DENSITY, sb_job_density,
                              sb_density_input_new (q->model, 1, q->b, 2),
                              (GDestroyNotify) sb_density_input_free);
  const double *grid;
  gsize k = sb_density_data_get_grid (d, &grid);
  g_assert_cmpuint (k, >, 10);
  for (SbPosteriorMethod s = SB_POSTERIOR_EXACT; s < SB_N_POSTERIOR_METHODS; s++)
    {
      const double *dens = sb_density_data_get_density (d, s);
      double mass = 0;
      g_assert_nonnull (dens);
      for (gsize i = 1; i < k; i++)
        mass += 0.5 * (dens[i] + dens[i - 1]) * (grid[i] - grid[i - 1]);
      /* the grid spans the exact posterior's bulk (mean -+ 4.5 sd and the
       * 95% interval); the Gaussians are centred nearby */
      g_test_message ("density %s: mass on the grid %.4f", sb_posterior_method_name (s), mass);
      g_assert_cmpfloat (mass, >, s == SB_POSTERIOR_EXACT ? 0.99 : 0.5);
      g_assert_cmpfloat (mass, <, 1.01);
    }
  sb_density_data_unref (d);
  sb_plot_snapshot_unref (snap);

  /* without compare: no overlays, the rest unchanged */
  snap = plot (w, session, q, FALSE);
  g_assert_null (sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_LAPLACE));
  g_assert_null (sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EP));
  g_assert_nonnull (sb_plot_snapshot_get_acquisition (snap, NULL, NULL));
  sb_plot_snapshot_unref (snap);
  sb_proposal_free (q);
}

/* The same run asked by dueling UCB: its curve peaks at its proposal. */
static void
test_plot_job_preference_1d_ucb (void)
{
  g_autoptr (SbWorker) w = sb_worker_new ();
  g_autoptr (SbSession) session = NULL;
  SbProposal *q = play_cos1d (w, SG_BO_ACQ_UCB, &session);
  SbPlotSnapshot *snap = plot (w, session, q, FALSE);
  check_acquisition_curve (snap, q, "dueling UCB",
                           sb_plot_snapshot_get_curve_grid (snap, NULL, NULL) - 1);
  sb_plot_snapshot_unref (snap);
  sb_proposal_free (q);
}

/* Safe run on the 1-D GP draw of 001 sec. 5.2.3: P(valid) is a curve of
 * probabilities with the required confidence level (0.95); the SafeOpt
 * rule's acquisition is shown only where P(valid) reaches it, and the
 * proposal is such a point. */
static void
test_plot_job_safe_1d (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("safe-gp1d", &error);
  g_autoptr (SbWorker) w = sb_worker_new ();
  g_autoptr (SbSession) session = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (exp->mode, ==, SB_MODE_SAFE);
  /* seed 1's draw starts 0.1 above the threshold: at 95 % nothing near
   * the start is safe enough and safe mode stops at once; seed 2's start
   * (0.54) lets the safe set grow */
  exp->seed = 2;
  session = sb_session_new (exp);
  /* safe mode leans on its refits (after each of the first answers) */
  SbProposal *q = play_with (w, session, 3, TRUE);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_VALUE);
  g_assert_false (q->safe_exhausted);

  SbPlotSnapshot *snap = plot (w, session, q, TRUE);
  const double *x;
  gsize n = sb_plot_snapshot_get_curve_grid (snap, NULL, &x);
  double required = 0;
  const double *pv = sb_plot_snapshot_get_validity (snap, &required);
  const double *acq = sb_plot_snapshot_get_acquisition (snap, NULL, NULL);
  gsize n_safe = 0;

  g_assert_nonnull (pv);
  g_assert_cmpfloat (required, ==, 0.95);
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (pv[i] >= 0 && pv[i] <= 1);
      if (isfinite (acq[i]))
        g_assert_cmpfloat (pv[i], >=, required);
      n_safe += pv[i] >= required;
    }
  g_assert_cmpuint (n_safe, >, 0);
  gsize near = check_acquisition_curve (snap, q, "SafeOpt", 1);
  /* the proposal lies in the safe set: q->prob_safe is P(valid) there,
   * computed from the same samples */
  g_test_message ("P(valid) at the proposal %.3f (grid neighbour %.3f)", q->prob_safe, pv[near]);
  g_assert_cmpfloat (q->prob_safe, >=, required);
  sb_plot_snapshot_unref (snap);
  sb_proposal_free (q);
}

/* 2-D runs on Six-hump camel: the acquisition field exists and is finite;
 * in safe mode (h = -1, refits as the window makes them) also the P(valid)
 * field, probabilities, and the acquisition only inside the safe set; the
 * Laplace / EP mean and sd fields are there with compare. */
static void
test_plot_job_fields_2d (void)
{
  for (int safe = 0; safe < 2; safe++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SbExperiment) exp = sb_template_benchmark ("six-hump-camel", &error);
      g_autoptr (SbWorker) w = sb_worker_new ();
      g_autoptr (SbSession) session = NULL;

      g_assert_no_error (error);
      exp->seed = 5;
      if (safe)
        {
          exp->mode = SB_MODE_SAFE;
          sb_experiment_use_default_acquisition (exp);
          exp->threshold = -1;
          exp->initial = 4;
        }
      session = sb_session_new (exp);
      SbProposal *q = play_with (w, session, 8, safe);
      SbPlotSnapshot *snap = plot (w, session, q, TRUE);
      SbGrid2 *acq = sb_plot_snapshot_get_field (snap, SB_FIELD_ACQUISITION, SB_POSTERIOR_EXACT);
      SbGrid2 *pv = sb_plot_snapshot_get_field (snap, SB_FIELD_P_VALID, SB_POSTERIOR_EXACT);
      const double *v;
      guint cells, finite = 0;
      double lo, hi;

      g_assert_nonnull (acq);
      cells = sb_grid2_get_nx (acq) * sb_grid2_get_ny (acq);
      v = sb_grid2_get_values (acq);
      for (guint i = 0; i < cells; i++)
        finite += isfinite (v[i]) != 0;
      g_assert_true (sb_grid2_get_range (acq, &lo, &hi));
      g_test_message ("%s: acquisition field %u of %u finite, range [%.4g, %.4g]",
                      safe ? "safe" : "preference", finite, cells, lo, hi);
      g_assert_cmpfloat (hi, >, lo);
      if (safe)
        {
          g_assert_nonnull (pv);
          g_assert_true (sb_grid2_get_range (pv, &lo, &hi));
          g_assert_cmpfloat (lo, >=, 0);
          g_assert_cmpfloat (hi, <=, 1);
          g_assert_cmpfloat (hi, >=, exp->confidence_level);   /* the safe start's region */
          v = sb_grid2_get_values (pv);
          const double *a = sb_grid2_get_values (acq);
          /* the SafeOpt rule scores only settings in its safe set */
          for (guint i = 0; i < cells; i++)
            if (isfinite (a[i]))
              g_assert_cmpfloat (v[i], >=, exp->confidence_level);
          g_assert_false (q->safe_exhausted);
          g_assert_cmpuint (finite, >, 0);
          g_assert_cmpfloat (q->prob_safe, >=, exp->confidence_level);
        }
      else
        {
          g_assert_null (pv);
          g_assert_cmpuint (finite, >=, cells - 1);   /* x_r itself excluded */
        }
      for (SbPosteriorMethod k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
        {
          g_assert_nonnull (sb_plot_snapshot_get_field (snap, SB_FIELD_MEAN, k));
          g_assert_nonnull (sb_plot_snapshot_get_field (snap, SB_FIELD_SD, k));
          g_assert_null (sb_plot_snapshot_get_field (snap, SB_FIELD_SKEWNESS, k));
        }
      sb_plot_snapshot_unref (snap);
      sb_proposal_free (q);
    }
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
  g_test_add_func ("/worker/progress-before-finish", test_progress_before_finish);
  g_test_add_func ("/worker/worker-gone", test_worker_gone);
  g_test_add_func ("/worker/error", test_error);
  g_test_add_func ("/jobs/plot-preference-1d", test_plot_job_preference_1d);
  g_test_add_func ("/jobs/plot-preference-1d-ucb", test_plot_job_preference_1d_ucb);
  g_test_add_func ("/jobs/plot-safe-1d", test_plot_job_safe_1d);
  g_test_add_func ("/jobs/plot-fields-2d", test_plot_job_fields_2d);
  return g_test_run ();
}
