/* test-ui-window.c — the workbench window in-process (under Xvfb):
 * the duel panel records answers and undo, no answer is taken while the
 * engine computes, the worker delivers results to the
 * window and superseded results are dropped, engine errors are shown, a
 * damaged session file is refused and left untouched, the main loop keeps
 * running while a hyperparameter fit runs, and the new-experiment dialog
 * builds every template. TAP-skips when there is no display. */
#include "sb-application.h"
#include "sb-ask-tell.h"
#include "sb-recommend.h"
#include "sb-setting.h"
#include "sb-experiment-templates.h"
#include "sb-new-experiment-dialog.h"
#include "sb-window.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>
#include <time.h>

static SbApplication *app;

#include "ui-harness.h"

typedef struct {
  char *dir;
  char *path;
  GFile *file;
  SbWindow *window;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("sb-window-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->path = g_build_filename (f->dir, "session.json", NULL);
  f->file = g_file_new_for_path (f->path);
  f->window = sb_window_new (GTK_APPLICATION (app));
  g_object_ref_sink (f->window);
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
  const char *name;

  gtk_window_destroy (GTK_WINDOW (f->window));
  g_object_unref (f->window);
  spin_for (20);
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (f->dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_object_unref (f->file);
}

/* The log length in the file once the writer thread has caught up. */
static guint
answers_on_disk (Fixture *f)
{
  g_autoptr (SbSession) s = NULL;

  s = sb_session_load (f->file, NULL);
  g_assert_nonnull (s);
  return sb_session_get_n_observations (s);
}

static gboolean
question_shown (Fixture *f)
{
  return sb_window_get_question (f->window) != NULL;
}

static void
activate (Fixture *f, const char *action)
{
  g_action_group_activate_action (G_ACTION_GROUP (f->window), action, NULL);
}

static void
test_window_template (void)
{
  SbWindow *window = sb_window_new (GTK_APPLICATION (app));

  g_assert_true (SB_IS_WINDOW (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "SkewBench");
  g_assert_nonnull (gtk_window_get_titlebar (GTK_WINDOW (window)));
  gtk_window_present (GTK_WINDOW (window));
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window)));
  /* Accelerators of the actions. */
  {
    g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.undo");
    g_assert_true (g_strv_contains ((const char *const *) accels, "<Control>z"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Answers and undo go to the session file at once; the next question
 * arrives from the worker. */
static void
test_answers_and_undo (Fixture *f, gconstpointer data)
{
  const SbProposal *q;
  double first_b[3];

  g_assert_true (sb_window_open_file (f->window, f->file, TRUE));
  g_assert_true (g_file_query_exists (f->file, NULL));
  SPIN_UNTIL (question_shown (f));
  q = sb_window_get_question (f->window);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);
  g_assert_cmpuint (q->dim, ==, 3);
  memcpy (first_b, q->b, sizeof first_b);
  /* The panel shows what the worker delivered. */
  g_assert_true (sb_duel_panel_get_question (sb_window_get_duel_panel (f->window)) != NULL);
  g_assert_false (sb_duel_panel_get_busy (sb_window_get_duel_panel (f->window)));

  activate (f, "answer-b");
  g_assert_cmpuint (answers_on_disk (f), ==, 1);
  {
    g_autoptr (SbSession) s = sb_session_load (f->file, NULL);
    const SbLogEntry *e = sb_session_get_observation (s, 0);
    g_assert_cmpint (e->kind, ==, SB_LOG_DUEL);
    g_assert_cmpint (e->winner, ==, 1);
    g_assert_cmpfloat (e->b[0], ==, first_b[0]);
  }
  g_assert_null (sb_window_get_question (f->window));
  g_assert_true (sb_duel_panel_get_busy (sb_window_get_duel_panel (f->window)));
  SPIN_UNTIL (question_shown (f));
  activate (f, "answer-a");
  g_assert_cmpuint (answers_on_disk (f), ==, 2);
  SPIN_UNTIL (question_shown (f));
  activate (f, "skip");
  g_assert_cmpuint (answers_on_disk (f), ==, 3);
  g_assert_cmpuint (sb_session_get_n_answers (sb_window_get_session (f->window)), ==, 2);
  SPIN_UNTIL (question_shown (f));

  activate (f, "undo");
  g_assert_cmpuint (answers_on_disk (f), ==, 2);
  SPIN_UNTIL (question_shown (f));
  activate (f, "undo");
  g_assert_cmpuint (answers_on_disk (f), ==, 1);
  SPIN_UNTIL (question_shown (f));
  /* The question after undo answers the shorter log. */
  g_assert_cmpuint (sb_window_get_question (f->window)->n_log, ==, 1);
  g_assert_null (sb_window_get_error (f->window));
}

/* No answer is taken while the engine computes: the answer actions are
 * disabled (a key rings the bell), nothing is recorded, and the answer
 * given once the question is shown refers to that question. */
static void
test_no_answer_while_computing (Fixture *f, gconstpointer data)
{
  SbProposal shown;

  g_assert_true (sb_window_open_file (f->window, f->file, TRUE));
  SPIN_UNTIL (question_shown (f));

  activate (f, "answer-a");     /* recorded: a question was on screen */
  g_assert_true (sb_window_get_computing (f->window));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "answer-b"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "skip"));
  activate (f, "answer-b");     /* refused: nothing on screen         */
  activate (f, "skip");         /* refused                            */
  g_assert_cmpuint (answers_on_disk (f), ==, 1);
  g_assert_null (sb_duel_panel_get_question (sb_window_get_duel_panel (f->window)));

  SPIN_UNTIL (question_shown (f));
  shown = *sb_window_get_question (f->window);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "answer-b"));
  activate (f, "answer-b");
  g_assert_cmpuint (answers_on_disk (f), ==, 2);
  {
    g_autoptr (SbSession) s = sb_session_load (f->file, NULL);
    const SbLogEntry *e = sb_session_get_observation (s, 1);
    g_assert_cmpint (e->winner, ==, 1);
    for (guint j = 0; j < shown.dim; j++)
      {
        g_assert_cmpfloat (e->a[j], ==, shown.a[j]);
        g_assert_cmpfloat (e->b[j], ==, shown.b[j]);
      }
  }
}

/* An answer followed at once by undo supersedes the running proposal:
 * its result is dropped and the question shown matches the final log. */
static void
test_superseded_result_dropped (Fixture *f, gconstpointer data)
{
  SbWorker *worker = sb_window_get_worker (f->window);
  guint dropped;

  g_assert_true (sb_window_open_file (f->window, f->file, TRUE));
  SPIN_UNTIL (question_shown (f));
  dropped = sb_worker_get_n_dropped (worker);
  activate (f, "answer-a");
  g_assert_true (sb_window_get_computing (f->window));
  activate (f, "undo");
  SPIN_UNTIL (question_shown (f));
  SPIN_UNTIL (sb_worker_get_n_dropped (worker) > dropped);
  g_assert_cmpuint (sb_window_get_question (f->window)->n_log, ==, 0);
  g_assert_cmpuint (answers_on_disk (f), ==, 0);
}

/* An engine failure is shown in the window with its message. */
static void
test_engine_error_shown (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = sb_session_new (exp);
  double x[3] = { 100, 50, 50 }, y[3] = { 200, 50, 50 };
  SbLogEntry *bad;

  /* A duel of a point against itself, which the engine refuses. The
   * session refuses one too, so it is made behind the session's back. */
  g_assert_true (sb_session_add_duel (session, x, y, 0, NULL));
  bad = (SbLogEntry *) sb_session_get_observation (session, 0);
  memcpy (bad->b, bad->a, 3 * sizeof (double));
  sb_window_set_session (f->window, session);
  SPIN_UNTIL (sb_window_get_error (f->window) != NULL);
  g_test_message ("error shown: %s", sb_window_get_error (f->window));
  g_assert_nonnull (strstr (sb_window_get_error (f->window),
                            "observation 1 (duel): a and b are the same setting"));
  g_assert_null (sb_window_get_question (f->window));
  g_assert_false (sb_duel_panel_get_busy (sb_window_get_duel_panel (f->window)));
  /* Undo removes the bad answer; the experiment goes on. */
  activate (f, "undo");
  SPIN_UNTIL (question_shown (f));
  g_assert_null (sb_window_get_error (f->window));
}

/* A damaged file is refused with its line and column and never touched. */
static void
test_damaged_refused (Fixture *f, gconstpointer data)
{
  const char *damaged = "{\n  \"format\": \"skewbench-session\",\n  \"version\": 1,\n  \"experiment\": {\n";
  g_autofree char *after = NULL;
  GStatBuf before_stat, after_stat;

  g_assert_true (g_file_set_contents (f->path, damaged, -1, NULL));
  g_assert_cmpint (g_stat (f->path, &before_stat), ==, 0);
  g_assert_false (sb_window_open_file (f->window, f->file, TRUE));
  g_assert_true (sb_window_get_refused (f->window));
  g_assert_null (sb_window_get_session (f->window));
  g_assert_nonnull (sb_window_get_error (f->window));
  g_test_message ("refused: %s", sb_window_get_error (f->window));
  g_assert_true (g_str_has_prefix (sb_window_get_error (f->window), f->path));
  g_assert_true (g_regex_match_simple ("^[^:]+:[0-9]+:[0-9]+: ", sb_window_get_error (f->window), 0, 0));
  /* Answering is impossible and nothing is written. */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "answer-a"));
  activate (f, "answer-a");
  activate (f, "undo");
  spin_for (200);
  g_assert_true (g_file_get_contents (f->path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, damaged);
  g_assert_cmpint (g_stat (f->path, &after_stat), ==, 0);
  g_assert_cmpint (after_stat.st_mtime, ==, before_stat.st_mtime);
  g_assert_cmpint (after_stat.st_ino, ==, before_stat.st_ino);
}

/* The main loop keeps running while a hyperparameter fit runs: between
 * two wake-ups of a 5 ms timer the main thread never works more than
 * 50 ms (its own CPU time: that is what blocking the loop means; the wall
 * time between wake-ups also counts the time the scheduler gives other
 * processes on a loaded machine, so it is reported, not asserted), frames
 * keep being drawn, and the fit's progress reaches the window. */
typedef struct {
  gint64 last;
  gint64 max_gap;
  gint64 last_cpu;
  gint64 max_cpu_gap;
  guint ticks;
  guint frames;
  guint progress;
} Responsiveness;

/* CPU time of the calling (main) thread, in microseconds. */
static gint64
thread_cpu_time (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean
measure_gap (gpointer data)
{
  Responsiveness *r = data;
  gint64 now = g_get_monotonic_time (), cpu = thread_cpu_time ();

  if (r->last)
    {
      r->max_gap = MAX (r->max_gap, now - r->last);
      r->max_cpu_gap = MAX (r->max_cpu_gap, cpu - r->last_cpu);
    }
  r->last = now;
  r->last_cpu = cpu;
  r->ticks++;
  return G_SOURCE_CONTINUE;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  ((Responsiveness *) data)->frames++;
  return G_SOURCE_CONTINUE;
}

static void
on_progress (SbWorker *worker, guint lane, guint64 gen, double fraction, const char *text,
             Responsiveness *r)
{
  if (lane == SB_WORKER_LANE_FIT)
    r->progress++;
}

static void
test_responsive_during_fit (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  Responsiveness r = { 0 };
  SbWorker *worker = sb_window_get_worker (f->window);
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  guint timer, tick;
  gint64 start;
  double seconds;

  /* 60 duels between random colours, answered by a fixed rule (prefer the
   * bluer hue): enough data for a fit that takes a noticeable time. */
  session = sb_session_new (exp);
  for (int i = 0; i < 60; i++)
    {
      double a[3], b[3];
      for (int j = 0; j < 3; j++)
        {
          a[j] = g_rand_double_range (rand, exp->parameters[j].lower, exp->parameters[j].upper);
          b[j] = g_rand_double_range (rand, exp->parameters[j].lower, exp->parameters[j].upper);
        }
      g_assert_true (sb_session_add_duel (session, a, b, fabs (b[0] - 230) < fabs (a[0] - 230), &error));
    }
  g_assert_true (sb_session_save_as (session, f->file, &error));
  sb_window_set_session (f->window, session);
  /* 60 answers use the budget: the campaign is finished, with a model. */
  SPIN_UNTIL (sb_campaign_get_state (sb_window_get_campaign (f->window)) == SB_CAMPAIGN_FINISHED);
  g_assert_nonnull (sb_campaign_get_latest (sb_window_get_campaign (f->window)));
  g_assert_null (sb_window_get_question (f->window));
  /* Let an automatic refit (if the schedule started one) finish first. */
  SPIN_UNTIL (!sb_worker_is_busy (worker, SB_WORKER_LANE_FIT));

  /* Baseline: the same measurement for 0.5 s with the engine idle. */
  Responsiveness idle = { 0 };
  {
    guint t = g_timeout_add (5, measure_gap, &idle);
    spin_for (500);
    g_source_remove (t);
    g_test_message ("engine idle: %u wake-ups in 0.5 s, longest gap %.1f ms wall, %.1f ms CPU",
                    idle.ticks, idle.max_gap / 1000.0, idle.max_cpu_gap / 1000.0);
  }
  g_signal_connect (worker, "progress", G_CALLBACK (on_progress), &r);
  timer = g_timeout_add (5, measure_gap, &r);
  tick = gtk_widget_add_tick_callback (GTK_WIDGET (sb_window_get_duel_panel (f->window)),
                                       count_frame, &r, NULL);
  start = g_get_monotonic_time ();
  sb_window_refit (f->window);
  g_assert_true (sb_worker_is_busy (worker, SB_WORKER_LANE_FIT));
  SPIN_UNTIL (!sb_worker_is_busy (worker, SB_WORKER_LANE_FIT));
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_source_remove (timer);
  gtk_widget_remove_tick_callback (GTK_WIDGET (sb_window_get_duel_panel (f->window)), tick);
  g_signal_handlers_disconnect_by_data (worker, &r);

  g_test_message ("fit %.2f s: %u timer wake-ups, %u frames, %u progress updates, "
                  "longest main-loop gap %.1f ms wall, %.1f ms of main-thread CPU",
                  seconds, r.ticks, r.frames, r.progress, r.max_gap / 1000.0,
                  r.max_cpu_gap / 1000.0);
  g_assert_null (sb_window_get_error (f->window));
  g_assert_true (sb_session_get_hyper (session)->valid);
  g_assert_cmpuint (r.progress, >=, 1);
  g_assert_cmpuint (r.frames, >=, 2);
  /* Under ASan / valgrind a single redraw of the plots costs more than the
   * budget: the bounds below mean nothing there. The frames drawn while
   * the fit ran (above) still show that the fit left the main loop free. */
  if (g_getenv ("SB_TEST_INSTRUMENTED"))
    {
      g_test_message ("instrumented build: main-loop gap bounds not asserted");
      return;
    }
  /* The property under test: no engine work on the main thread. Had the
   * fit run there, one gap would hold the whole fit's CPU time (seconds).
   * Main-thread CPU per gap is what the code controls; wall-clock gaps
   * (reported above, and measured in tests/e2e/bench-duel-latency) add
   * the scheduler's delays, which on a shared 2-core machine with the
   * fit's threads running exceeded 50 ms even though the main thread used
   * a few ms: asserting them made this a timed test that failed on load. */
  g_assert_cmpint (r.max_cpu_gap, <, 50 * G_TIME_SPAN_MILLISECOND);
}

/* Cancelling a fit from the window stops it; the stored values stay. */
static void
test_cancel_fit (Fixture *f, gconstpointer data)
{
  SbWorker *worker = sb_window_get_worker (f->window);

  g_assert_true (sb_window_open_file (f->window, f->file, TRUE));
  SPIN_UNTIL (question_shown (f));
  for (int i = 0; i < 4; i++)
    {
      activate (f, i % 2 ? "answer-a" : "answer-b");
      SPIN_UNTIL (question_shown (f));
    }
  SPIN_UNTIL (!sb_worker_is_busy (worker, SB_WORKER_LANE_FIT));
  sb_window_refit (f->window);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "cancel-fit"));
  activate (f, "cancel-fit");
  g_assert_false (sb_worker_is_busy (worker, SB_WORKER_LANE_FIT));
  spin_for (100);
  g_assert_null (sb_window_get_error (f->window));
}

static void
test_new_experiment_dialog (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  g_autoptr (GError) error = NULL;

  gtk_window_present (GTK_WINDOW (dialog));
  for (SbTemplate t = SB_TEMPLATE_COLOUR; t <= SB_TEMPLATE_CUSTOM; t++)
    {
      g_autoptr (SbExperiment) exp = NULL;
      sb_new_experiment_dialog_set_template (dialog, t);
      exp = sb_new_experiment_dialog_build (dialog, &error);
      g_assert_no_error (error);
      g_assert_nonnull (exp);
      g_assert_cmpint (exp->template_kind, ==, t);
      g_assert_true (sb_experiment_validate (exp, NULL));
      if (t == SB_TEMPLATE_BENCHMARK)
        {
          g_assert_cmpstr (exp->problem, ==, "six-hump-camel");
          g_assert_cmpuint (exp->n_parameters, ==, 2);
          g_assert_true (exp->simulated);
        }
      if (t == SB_TEMPLATE_CUSTOM)
        g_assert_cmpuint (exp->n_parameters, ==, 2);
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* A typed value is read with the locale's decimal separator; the other
 * separator is refused, never guessed ("1,500" was recorded as 1.5). */
static void
test_entered_number (void)
{
  const struct { const char *text; char dp; gboolean ok; double value; } cases[] = {
    { "12.5", '.', TRUE, 12.5 },   { " -3e2 ", '.', TRUE, -300 },
    { "1,500", '.', FALSE, 0 },    { "1.500", ',', FALSE, 0 },
    { "12,5", ',', TRUE, 12.5 },   { "1500", ',', TRUE, 1500 },
    { "", '.', FALSE, 0 },         { "12 kg", '.', FALSE, 0 },
    { "inf", '.', FALSE, 0 },      { "nan", ',', FALSE, 0 },
    { "1e999", '.', FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *hint = NULL;
      double v = -1;
      gboolean ok = sb_parse_entered_number (cases[i].text, cases[i].dp, &v, &hint);

      g_test_message ("'%s' (%c): %s", cases[i].text, cases[i].dp, ok ? "read" : hint);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (ok)
        g_assert_cmpfloat (v, ==, cases[i].value);
      else
        g_assert_nonnull (hint);
    }
}

/* The drop-down under WIDGET whose list has an entry containing TEXT. */
static GtkDropDown *
find_dropdown (GtkWidget *widget, const char *text)
{
  if (GTK_IS_DROP_DOWN (widget))
    {
      GListModel *model = gtk_drop_down_get_model (GTK_DROP_DOWN (widget));
      for (guint i = 0; GTK_IS_STRING_LIST (model) && i < g_list_model_get_n_items (model); i++)
        if (strstr (gtk_string_list_get_string (GTK_STRING_LIST (model), i), text))
          return GTK_DROP_DOWN (widget);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkDropDown *found = find_dropdown (c, text);
      if (found)
        return found;
    }
  return NULL;
}

/* Every acquisition and surrogate row of the dialog builds the engine's
 * value it names (the acquisition rows hold the engine's names). The two-GP baseline serves safe mode only, so the
 * preference experiment it would build is refused, naming it. */
static void
test_new_experiment_choices (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  const struct { const char *label; sg_bo_surrogate surrogate; } surrogates[] = {
    { "SkewGP", SG_BO_SURROGATE_SKEWGP }, { "Laplace", SG_BO_SURROGATE_LAPLACE },
    { "propagation", SG_BO_SURROGATE_EP }, { "Random", SG_BO_SURROGATE_RANDOM },
    { "variational", SG_BO_SURROGATE_SVGP }, { "Two GPs", SG_BO_SURROGATE_TWO_GP },
  };
  GtkDropDown *acq = find_dropdown (GTK_WIDGET (dialog), "thompson");
  GtkDropDown *sur = find_dropdown (GTK_WIDGET (dialog), "Random search");

  g_assert_nonnull (acq);
  g_assert_nonnull (sur);
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_COLOUR);
  for (guint row = 0; row < g_list_model_get_n_items (gtk_drop_down_get_model (acq)); row++)
    {
      const char *name = gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (acq)), row);
      g_autoptr (SbExperiment) exp = NULL;

      gtk_drop_down_set_selected (acq, row);
      exp = sb_new_experiment_dialog_build (dialog, NULL);
      g_assert_nonnull (exp);
      g_assert_cmpstr (sg_bo_acquisition_name (exp->acquisition), ==, name);
    }
  for (guint row = 0; row < g_list_model_get_n_items (gtk_drop_down_get_model (sur)); row++)
    {
      const char *label = gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (sur)), row);
      g_autoptr (SbExperiment) exp = NULL;
      g_autoptr (GError) error = NULL;
      guint k = 0;

      while (k < G_N_ELEMENTS (surrogates) && !strstr (label, surrogates[k].label))
        k++;
      g_assert_cmpuint (k, <, G_N_ELEMENTS (surrogates));
      gtk_drop_down_set_selected (sur, row);
      exp = sb_new_experiment_dialog_build (dialog, &error);
      if (surrogates[k].surrogate == SG_BO_SURROGATE_TWO_GP)
        {
          g_assert_null (exp);
          g_assert_nonnull (strstr (error->message, "two-gp"));
          continue;
        }
      g_assert_no_error (error);
      g_assert_cmpint (exp->surrogate, ==, surrogates[k].surrogate);
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* The first widget of TYPE under WIDGET whose tooltip or (check button)
 * label contains TEXT. */
static GtkWidget *
find_widget (GtkWidget *widget, GType type, const char *text)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    {
      const char *tip = gtk_widget_get_tooltip_text (widget);
      const char *label = GTK_IS_CHECK_BUTTON (widget)
                          ? gtk_check_button_get_label (GTK_CHECK_BUTTON (widget))
                          : GTK_IS_LABEL (widget) ? gtk_label_get_text (GTK_LABEL (widget)) : NULL;
      if ((tip && strstr (tip, text)) || (label && strstr (label, text)))
        return widget;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type, text);
      if (found)
        return found;
    }
  return NULL;
}

/* The question rows build the question kind, k and ties they name; a
 * kind the mode or the surrogate cannot serve is refused, the message
 * naming the kind and what refuses it, and Create shows it and keeps the
 * dialog open. */
static void
test_new_experiment_questions (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkDropDown *question = find_dropdown (GTK_WIDGET (dialog), "Best of k");
  GtkDropDown *mode = find_dropdown (GTK_WIDGET (dialog), "Safe");
  GtkDropDown *sur = find_dropdown (GTK_WIDGET (dialog), "Laplace");
  GtkSpinButton *options = GTK_SPIN_BUTTON (find_widget (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON,
                                                         "best-of or rank"));
  GtkCheckButton *ties = GTK_CHECK_BUTTON (find_widget (GTK_WIDGET (dialog), GTK_TYPE_CHECK_BUTTON,
                                                        "About the same"));
  const struct { const char *label; SbAskKind kind; } kinds[] = {
    { "Duel", SB_ASK_DUEL }, { "Best of", SB_ASK_CHOICE }, { "Rank", SB_ASK_RANKING },
  };
  const struct {
    SbAskKind kind; gboolean ties; guint mode_row; const char *surrogate; const char *needle[2];
  } refused[] = {
    { SB_ASK_CHOICE, FALSE, 0, "Laplace", { "choices", "laplace" } },
    { SB_ASK_RANKING, FALSE, 0, "propagation", { "rankings", "'ep'" } },
    { SB_ASK_DUEL, TRUE, 0, "variational", { "ties", "svgp" } },
  };

  g_assert_nonnull (question);
  g_assert_nonnull (mode);
  g_assert_nonnull (sur);
  g_assert_nonnull (options);
  g_assert_nonnull (ties);
  gtk_window_present (GTK_WINDOW (dialog));
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_COLOUR);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (question)), ==,
                    G_N_ELEMENTS (kinds));
  for (guint row = 0; row < G_N_ELEMENTS (kinds); row++)
    {
      const char *label = gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (question)), row);
      SbAskKind kind = kinds[row].kind;

      g_assert_nonnull (strstr (label, kinds[row].label));
      gtk_drop_down_set_selected (question, row);
      g_assert_cmpint (gtk_widget_get_visible (GTK_WIDGET (options)), ==, kind != SB_ASK_DUEL);
      g_assert_cmpint (gtk_widget_get_visible (GTK_WIDGET (ties)), ==, kind == SB_ASK_DUEL);
      for (guint k = 3; k <= 6; k++)
        for (int t = 0; t < 2; t++)
          {
            g_autoptr (GError) error = NULL;
            g_autoptr (SbExperiment) exp = NULL;

            gtk_spin_button_set_value (options, k);
            gtk_check_button_set_active (ties, t);
            exp = sb_new_experiment_dialog_build (dialog, &error);
            g_assert_no_error (error);
            g_assert_cmpint (exp->question, ==, kind);
            g_assert_cmpuint (exp->n_options, ==, kind == SB_ASK_DUEL ? 2 : k);
            /* The hidden check box of a choice or ranking asks nothing. */
            g_assert_cmpint (exp->ties_allowed, ==, kind == SB_ASK_DUEL && t);
            g_assert_true (sb_experiment_validate (exp, NULL));
          }
    }

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SbExperiment) exp = NULL;
      GtkDropDown *pick = find_dropdown (GTK_WIDGET (dialog), refused[i].surrogate);
      GListModel *rows = gtk_drop_down_get_model (sur);
      GtkWidget *shown;

      g_assert_true (pick == sur);
      for (guint r = 0; r < g_list_model_get_n_items (rows); r++)
        if (strstr (gtk_string_list_get_string (GTK_STRING_LIST (rows), r), refused[i].surrogate))
          gtk_drop_down_set_selected (sur, r);
      gtk_drop_down_set_selected (mode, refused[i].mode_row);
      gtk_drop_down_set_selected (question, refused[i].kind);
      gtk_spin_button_set_value (options, 4);
      gtk_check_button_set_active (ties, refused[i].ties);
      exp = sb_new_experiment_dialog_build (dialog, &error);
      g_assert_null (exp);
      g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
      g_test_message ("refused: %s", error->message);
      g_assert_nonnull (strstr (error->message, refused[i].needle[0]));
      g_assert_nonnull (strstr (error->message, refused[i].needle[1]));
      gtk_widget_activate_action (GTK_WIDGET (dialog), "dialog.create", NULL);
      shown = find_widget (GTK_WIDGET (dialog), GTK_TYPE_LABEL, error->message);
      g_assert_nonnull (shown);
      g_assert_true (gtk_widget_get_visible (shown));
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* The wording and confidence scale rows build the experiment's
 * question_text and confidence_levels (empty text: the default wording);
 * safe mode, which asks values, hides them and builds neither. */
static void
test_new_experiment_wording (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkEntry *text = GTK_ENTRY (find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY,
                                           "question participants read"));
  GtkDropDown *scale = find_dropdown (GTK_WIDGET (dialog), "Rating 1–5");
  GtkDropDown *mode = find_dropdown (GTK_WIDGET (dialog), "Safe");

  g_assert_nonnull (text);
  g_assert_nonnull (scale);
  gtk_window_present (GTK_WINDOW (dialog));
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_COLOUR);
  {
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, NULL);
    g_assert_null (exp->question_text);
    g_assert_cmpuint (exp->confidence_levels, ==, 0);
  }
  gtk_editable_set_text (GTK_EDITABLE (text), "  Which colour feels calmer? ");
  gtk_drop_down_set_selected (scale, 4);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (exp->question_text, ==, "Which colour feels calmer?");
    g_assert_cmpuint (exp->confidence_levels, ==, 5);
  }
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_CUSTOM);
  for (guint r = 0; r < g_list_model_get_n_items (gtk_drop_down_get_model (mode)); r++)
    if (strstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (mode)), r),
                "Safe"))
      gtk_drop_down_set_selected (mode, r);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (text)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (scale)));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Safe mode's rows: the confidence level shows (and builds the level) in
 * safe mode only; the question kind, its options and ties, the duel
 * acquisition and the random initial questions are hidden there, and
 * whatever they held builds a value experiment; an experiment that could
 * not keep safe mode's promise is refused naming why (no safe start: the
 * colour template, a benchmark without one; the random surrogate) and
 * Create shows the message. */
static void
test_new_experiment_safe (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkDropDown *mode = find_dropdown (GTK_WIDGET (dialog), "Safe");
  GtkDropDown *question = find_dropdown (GTK_WIDGET (dialog), "Best of k");
  GtkDropDown *acq = find_dropdown (GTK_WIDGET (dialog), "thompson");
  GtkDropDown *sur = find_dropdown (GTK_WIDGET (dialog), "Random search");
  GtkWidget *level = find_widget (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON, "probability of being safe");
  GtkWidget *initial = find_widget (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "Initial random questions");
  GtkWidget *ties = find_widget (GTK_WIDGET (dialog), GTK_TYPE_CHECK_BUTTON, "About the same");
  GtkWidget *threshold;
  GtkWidget *hidden[] = { GTK_WIDGET (question), GTK_WIDGET (acq), initial, ties };
  const struct { const char *problem; const char *needle; } benchmarks[] = {
    { "safe-machine", NULL }, { "safe-branin", NULL }, { "branin", "'branin' has none" },
  };

  g_assert_nonnull (mode);
  g_assert_nonnull (level);
  for (guint i = 0; i < G_N_ELEMENTS (hidden); i++)
    g_assert_nonnull (hidden[i]);
  gtk_window_present (GTK_WINDOW (dialog));
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_CUSTOM);
  gtk_drop_down_set_selected (mode, SB_MODE_SAFE);
  threshold = find_widget (GTK_WIDGET (dialog), GTK_TYPE_LABEL, "Safety threshold");
  g_assert_nonnull (threshold);
  gtk_drop_down_set_selected (mode, SB_MODE_PREFERENCE);
  /* preference answers chosen before switching to safe mode */
  gtk_drop_down_set_selected (question, SB_ASK_DUEL);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (ties), TRUE);
  for (guint m = 0; m <= SB_MODE_SAFE; m++)
    {
      gboolean safe = m == SB_MODE_SAFE;
      gtk_drop_down_set_selected (mode, m);
      g_assert_cmpint (gtk_widget_get_visible (level), ==, safe);
      g_assert_cmpint (gtk_widget_get_visible (threshold), ==, m != SB_MODE_PREFERENCE);
      for (guint i = 0; i < G_N_ELEMENTS (hidden); i++)
        g_assert_cmpint (gtk_widget_get_visible (hidden[i]), ==, !safe);
    }
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (level), 0.9);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_no_error (error);
    g_assert_cmpint (exp->mode, ==, SB_MODE_SAFE);
    g_assert_cmpfloat_with_epsilon (exp->confidence_level, 0.9, 1e-9);
    g_assert_true (exp->has_safe_start);
    g_assert_cmpint (exp->question, ==, SB_ASK_DUEL);
    g_assert_false (exp->ties_allowed);
  }
  /* a best-of question hidden behind safe mode builds a value experiment */
  gtk_drop_down_set_selected (mode, SB_MODE_PREFERENCE);
  gtk_drop_down_set_selected (question, SB_ASK_CHOICE);
  gtk_drop_down_set_selected (mode, SB_MODE_SAFE);
  {
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, NULL);
    g_assert_nonnull (exp);
    g_assert_cmpint (exp->question, ==, SB_ASK_DUEL);
    g_assert_cmpuint (exp->n_options, ==, 2);
  }
  /* the random surrogate asks settings not known to be safe */
  for (guint r = 0; r < g_list_model_get_n_items (gtk_drop_down_get_model (sur)); r++)
    if (strstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (sur)), r),
                "Random"))
      gtk_drop_down_set_selected (sur, r);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_null (exp);
    g_assert_nonnull (strstr (error->message, "'random' surrogate"));
    gtk_widget_activate_action (GTK_WIDGET (dialog), "dialog.create", NULL);
    g_assert_true (gtk_widget_get_visible (find_widget (GTK_WIDGET (dialog), GTK_TYPE_LABEL,
                                                        error->message)));
  }
  gtk_drop_down_set_selected (sur, 0);
  /* no safe start: the colour template, a benchmark problem without one */
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_COLOUR);
  gtk_drop_down_set_selected (mode, SB_MODE_SAFE);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_null (exp);
    g_assert_nonnull (strstr (error->message, "safe mode needs a safe start"));
  }
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_BENCHMARK);
  for (guint i = 0; i < G_N_ELEMENTS (benchmarks); i++)
    {
      GtkDropDown *problems = find_dropdown (GTK_WIDGET (dialog), "six-hump-camel");
      GListModel *rows = gtk_drop_down_get_model (problems);
      g_autoptr (GError) error = NULL;
      g_autoptr (SbExperiment) exp = NULL;

      for (guint r = 0; r < g_list_model_get_n_items (rows); r++)
        if (g_str_equal (gtk_string_list_get_string (GTK_STRING_LIST (rows), r),
                         benchmarks[i].problem))
          gtk_drop_down_set_selected (problems, r);
      gtk_drop_down_set_selected (mode, SB_MODE_SAFE);
      exp = sb_new_experiment_dialog_build (dialog, &error);
      if (benchmarks[i].needle == NULL)
        {
          g_assert_no_error (error);
          g_assert_cmpstr (exp->problem, ==, benchmarks[i].problem);
        }
      else
        g_assert_nonnull (strstr (error->message, benchmarks[i].needle));
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* The benchmark template answered by the simulated oracle: auto-play
 * answers questions by itself. */
static void
test_autoplay (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbExperiment) exp = sb_template_benchmark ("cos1d", &error);
  g_autoptr (SbSession) session = NULL;

  g_assert_no_error (error);
  exp->autoplay_ms = 0;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, &error));
  sb_window_set_session (f->window, session);
  SPIN_UNTIL (question_shown (f));
  g_assert_true (sb_window_get_question (f->window)->has_oracle);
  g_action_group_change_action_state (G_ACTION_GROUP (f->window), "autoplay",
                                      g_variant_new_boolean (TRUE));
  SPIN_UNTIL (sb_session_get_n_answers (session) >= 7);
  g_action_group_change_action_state (G_ACTION_GROUP (f->window), "autoplay",
                                      g_variant_new_boolean (FALSE));
  g_assert_cmpuint (answers_on_disk (f), >=, 7);
  g_assert_null (sb_window_get_error (f->window));
}

/* Mixed mode asks for measured values after the initial duels; mixed and
 * safe mode accept "this setting failed". Values are typed into the entry. */
static void
test_value_questions (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  SbDuelPanel *panel = sb_window_get_duel_panel (f->window);
  GtkWidget *entry = sb_duel_panel_get_value_entry (panel);
  guint duels = 0, values = 0;

  exp->mode = SB_MODE_MIXED;
  sb_experiment_use_default_acquisition (exp);
  exp->initial = 2;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, &error));
  sb_window_set_session (f->window, session);
  /* The initial design: duels first, then values (sg-bo.h). */
  while (values < 2)
    {
      const SbProposal *q;
      SPIN_UNTIL (question_shown (f));
      q = sb_window_get_question (f->window);
      if (q->kind == SB_QUESTION_DUEL)
        {
          g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "answer-failed"));
          activate (f, "answer-b");
          duels++;
          continue;
        }
      g_assert_true (gtk_widget_get_visible (entry));
      /* Not a number: refused, nothing recorded. */
      gtk_editable_set_text (GTK_EDITABLE (entry), "twelve");
      activate (f, "answer-value");
      g_assert_nonnull (sb_window_get_question (f->window));
      /* The test runs in the C locale: a comma is not its decimal
       * separator, so "4,25" is refused rather than guessed at. */
      gtk_editable_set_text (GTK_EDITABLE (entry), "4,25");
      activate (f, "answer-value");
      g_assert_nonnull (sb_window_get_question (f->window));
      gtk_editable_set_text (GTK_EDITABLE (entry), values ? "4.25" : "3.5");
      activate (f, "answer-value");
      values++;
    }
  g_assert_cmpuint (duels, >=, 2);
  {
    g_autoptr (SbSession) s = sb_session_load (f->file, NULL);
    guint n = sb_session_get_n_observations (s);
    const SbLogEntry *last = sb_session_get_observation (s, n - 1);
    const SbLogEntry *before = sb_session_get_observation (s, n - 2);
    g_assert_cmpint (last->kind, ==, SB_LOG_VALUE);
    g_assert_cmpfloat (last->value, ==, 4.25);
    g_assert_cmpint (before->kind, ==, SB_LOG_VALUE);
    g_assert_cmpfloat (before->value, ==, 3.5);
  }
  SPIN_UNTIL (question_shown (f));

  /* Ctrl+Z (win.undo) while a number is typed in the focused entry undoes
   * the typing, not the last recorded measurement. */
  {
    guint n = sb_session_get_n_observations (sb_window_get_session (f->window));
    while (sb_window_get_question (f->window)->kind != SB_QUESTION_VALUE)
      {
        activate (f, "answer-b");
        SPIN_UNTIL (question_shown (f));
        n++;
      }
    gtk_widget_grab_focus (entry);
    gtk_editable_set_text (GTK_EDITABLE (entry), "7");
    activate (f, "undo");
    g_assert_cmpuint (sb_session_get_n_observations (sb_window_get_session (f->window)), ==, n);
    g_assert_nonnull (sb_window_get_question (f->window));
    /* With nothing typed it takes back the answer. */
    gtk_editable_set_text (GTK_EDITABLE (entry), "");
    activate (f, "undo");
    g_assert_cmpuint (sb_session_get_n_observations (sb_window_get_session (f->window)), ==, n - 1);
    SPIN_UNTIL (question_shown (f));
  }

  /* Mixed mode takes "it failed" too: the button (and F, the same action)
   * on a value question records a failed setting, and the next question
   * comes from a model that holds it. */
  {
    SbSession *s = sb_window_get_session (f->window);
    GtkWidget *failed = find_widget (GTK_WIDGET (f->window), GTK_TYPE_BUTTON,
                                     "produced no usable result");
    guint n;
    while (sb_window_get_question (f->window)->kind != SB_QUESTION_VALUE)
      {
        activate (f, "answer-b");
        SPIN_UNTIL (question_shown (f));
      }
    g_assert_nonnull (failed);
    g_assert_true (gtk_widget_is_visible (failed));
    g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "answer-failed"));
    n = sb_session_get_n_observations (s);
    activate (f, "answer-failed");
    g_assert_cmpuint (sb_session_get_n_observations (s), ==, n + 1);
    g_assert_cmpint (sb_session_get_observation (s, n)->kind, ==, SB_LOG_FAILED);
    SPIN_UNTIL (question_shown (f));
    g_assert_null (sb_window_get_error (f->window));
  }

  /* Safe mode: every question asks for a value or "failed". */
  {
    g_autoptr (SbExperiment) safe = sb_template_custom ();
    g_autoptr (SbSession) s2 = NULL;
    safe->mode = SB_MODE_SAFE;
    sb_experiment_use_default_acquisition (safe);
    safe->threshold = 1.0;
    safe->initial = 1;
    s2 = sb_session_new (safe);
    sb_window_set_session (f->window, s2);
    SPIN_UNTIL (question_shown (f));
    g_assert_cmpint (sb_window_get_question (f->window)->kind, ==, SB_QUESTION_VALUE);
    gtk_editable_set_text (GTK_EDITABLE (entry), "2.0");
    activate (f, "answer-value");
    SPIN_UNTIL (question_shown (f));
    g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "answer-failed"));
    activate (f, "answer-failed");
    g_assert_cmpuint (sb_session_get_n_observations (s2), ==, 2);
    g_assert_cmpint (sb_session_get_observation (s2, 1)->kind, ==, SB_LOG_FAILED);
    SPIN_UNTIL (question_shown (f));
    g_assert_null (sb_window_get_error (f->window));
  }
}

/* Every widget of TYPE under WIDGET whose tooltip contains TEXT, in
 * order, into OUT. */
static void
find_all_by_tooltip (GtkWidget *widget, GType type, const char *text, GPtrArray *out)
{
  const char *tip = gtk_widget_get_tooltip_text (widget);
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && tip && strstr (tip, text))
    g_ptr_array_add (out, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    find_all_by_tooltip (c, type, text, out);
}

/* New Experiment, custom parameters in safe mode: a safe start entered
 * per parameter (refused outside the box, naming the parameter) and a
 * measurement resolution reach the experiment, and the window's first
 * question asks exactly the safe start. */
static void
test_safe_start_from_dialog (Fixture *f, gconstpointer data)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkDropDown *mode = find_dropdown (GTK_WIDGET (dialog), "this setting failed");
  g_autoptr (GPtrArray) starts = g_ptr_array_new ();
  g_autoptr (GPtrArray) resolutions = g_ptr_array_new ();
  g_autoptr (SbExperiment) exp = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  const SbProposal *q;

  gtk_window_present (GTK_WINDOW (dialog));
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_CUSTOM);
  g_assert_nonnull (mode);
  find_all_by_tooltip (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON, "Safe start:", starts);
  find_all_by_tooltip (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON, "Measurement resolution", resolutions);
  g_assert_cmpuint (starts->len, ==, 2);
  g_assert_cmpuint (resolutions->len, ==, 2);
  /* safe mode needs a safe start: its rows show in safe mode only */
  g_assert_false (gtk_widget_is_visible (g_ptr_array_index (starts, 0)));
  gtk_drop_down_set_selected (mode, SB_MODE_SAFE);
  g_assert_true (gtk_widget_is_visible (g_ptr_array_index (starts, 0)));

  /* outside the first parameter's range: refused, naming it */
  exp = sb_new_experiment_dialog_build (dialog, NULL);
  g_assert_nonnull (exp);
  {
    const SbParameter *p0 = &exp->parameters[0], *p1 = &exp->parameters[1];
    double s0 = p0->lower + 0.25 * (p0->upper - p0->lower);
    double s1 = p1->lower + 0.75 * (p1->upper - p1->lower);
    g_autofree char *name = g_strdup (p0->name);
    double r0 = (p0->upper - p0->lower) / 100;

    gtk_spin_button_set_value (g_ptr_array_index (starts, 0), p0->upper + 1);
    g_clear_pointer (&exp, sb_experiment_free);
    exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_null (exp);
    g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, name));
    g_assert_nonnull (strstr (error->message, "safe start"));
    g_clear_error (&error);

    gtk_spin_button_set_value (g_ptr_array_index (starts, 0), s0);
    gtk_spin_button_set_value (g_ptr_array_index (starts, 1), s1);
    gtk_spin_button_set_value (g_ptr_array_index (resolutions, 0), r0);
    exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_no_error (error);
    g_assert_cmpint (exp->mode, ==, SB_MODE_SAFE);
    g_assert_true (exp->has_safe_start);
    /* the spin buttons round to their 3 digits */
    g_assert_cmpfloat_with_epsilon (exp->safe_start[0], s0, 1e-3);
    g_assert_cmpfloat_with_epsilon (exp->safe_start[1], s1, 1e-3);
    g_assert_cmpfloat_with_epsilon (exp->parameters[0].resolution, r0, 1e-4);
    g_assert_cmpfloat (exp->parameters[1].resolution, ==, 0);
  }
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* the first question asks the safe start */
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, &error));
  sb_window_set_session (f->window, session);
  SPIN_UNTIL (question_shown (f));
  q = sb_window_get_question (f->window);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_VALUE);
  for (guint j = 0; j < 2; j++)
    g_assert_cmpfloat (q->b[j], ==, exp->safe_start[j]);
}

static gboolean
named (GtkWidget *w, gconstpointer name)
{
  return g_str_equal (gtk_widget_get_name (w), name);
}

static gboolean
best_label_says (Fixture *f, const char *text)
{
  GtkWidget *label = ui_find_widget (GTK_WIDGET (f->window), named, "best-label");
  return label && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), "Best found")
         && strstr (gtk_label_get_text (GTK_LABEL (label)), text) != NULL;
}

static gboolean
label_is (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && gtk_widget_is_visible (w)
         && g_str_equal (gtk_label_get_text (GTK_LABEL (w)), text);
}

static gboolean
label_starts (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && gtk_widget_is_visible (w)
         && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (w)), text);
}

/* Safe mode's panel makes sense before the first answer and when the
 * safe set cannot grow: the first question measures the safe start (it
 * is not random), and once nothing new is safe at the level the table
 * shows the best safe setting found instead of empty A and B columns. */
static void
test_safe_panel_ends (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  GtkWidget *entry = sb_duel_panel_get_value_entry (sb_window_get_duel_panel (f->window));
  GtkWidget *best;

  while (exp->n_parameters > 1)
    {
      exp->n_parameters--;
      g_clear_pointer (&exp->parameters[exp->n_parameters].name, g_free);
      g_clear_pointer (&exp->parameters[exp->n_parameters].unit, g_free);
    }
  exp->parameters[0].lower = 0;
  exp->parameters[0].upper = 10;
  exp->mode = SB_MODE_SAFE;
  sb_experiment_use_default_acquisition (exp);
  exp->threshold = 1;
  exp->confidence_level = 0.9;
  exp->has_safe_start = TRUE;
  exp->safe_start[0] = 5;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, &error));
  sb_window_set_session (f->window, session);
  SPIN_UNTIL (question_shown (f));
  best = ui_find_widget (GTK_WIDGET (f->window), named, "best-label");
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (best)), "measures the safe start"));
  /* barely above the threshold: nothing else is safe at 90 % */
  gtk_editable_set_text (GTK_EDITABLE (entry), "1.01");
  activate (f, "answer-value");
  SPIN_UNTIL (ui_find_widget (GTK_WIDGET (f->window), label_is, "Best found") != NULL);
  SPIN_UNTIL (ui_find_widget (GTK_WIDGET (f->window), label_starts, "5.0 ") != NULL);
  g_assert_null (ui_find_widget (GTK_WIDGET (f->window), label_is, "A · current best"));
  g_assert_null (ui_find_widget (GTK_WIDGET (f->window), label_is, "B · new candidate"));
}

/* A finished study: "Best found" comes with the model's posterior mean
 * and 95% credible interval, and Export Recommendation writes them as
 * JSON. Both are computed on the worker: the export call returns before
 * anything is written, and the numbers are those of skewgp status
 * (sb_recommend_from_input, one computation for both). */
static void
test_recommendation_export (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "recommendation.json", NULL);
  g_autoptr (GFile) out = g_file_new_for_path (path);
  g_autoptr (JsonParser) parser = json_parser_new ();
  const double duels[][4] = { { 70, 20, 30, 5 }, { 70, 20, 50, 25 }, { 40, 10, 70, 20 } };
  const SbHyper fit = { .valid = TRUE, .n_answers = 3, .variance = 1, .lengthscales = { 0.3, 0.3 },
                        .numeric_sd = 1, .probit_sd = 1, .log_evidence = NAN };
  SbRecommendation rec;
  JsonObject *root;

  exp->budget = 3;
  exp->initial = 2;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, &error));
  for (guint i = 0; i < G_N_ELEMENTS (duels); i++)
    g_assert_true (sb_session_add_duel (session, duels[i], duels[i] + 2, i == 2, &error));
  /* a fit that has seen every answer: no refit is due, so the window's
   * numbers and the export come from the hyperparameters used here */
  g_assert_true (sb_session_set_hyper (session, &fit, &error));
  {
    SbJobInput *input = sb_job_input_new (session);
    g_assert_true (sb_recommend_from_input (input, &rec, &error));
    sb_job_input_free (input);
  }
  g_assert_true (rec.has_best && isfinite (rec.mean));
  g_assert_cmpfloat (rec.best[0], ==, 70);

  sb_window_set_session (f->window, session);
  SPIN_UNTIL (best_label_says (f, "Posterior mean"));
  {
    g_autofree char *mean = g_strdup_printf ("Posterior mean %.4g", rec.mean);
    g_assert_true (best_label_says (f, mean));
  }
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "export-recommendation"));

  g_assert_true (sb_window_export_recommendation (f->window, out));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  SPIN_UNTIL (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "answers"), ==, 3);
  g_assert_cmpfloat (json_object_get_double_member (root, "posterior_mean"), ==, rec.mean);
  g_assert_cmpfloat (json_array_get_double_element (json_object_get_array_member (root, "best"), 0),
                     ==, 70);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root,
                                                                                    "credible_interval"),
                                                    "upper"), ==, rec.upper);
  g_assert_null (sb_window_get_error (f->window));
}

static void
skip_without_display (void)
{
  g_test_skip ("no display: run under xvfb-run (build-aux/run-tests does)");
}

/* A study finished in the window whose last winner is not its answered
 * setting of largest posterior mean: "Best found" names the latter (the
 * recommendation of skewgp status), with its posterior mean, although
 * the last question was asked against the incumbent, the last winner.
 * 70 °C beat four settings; then 22 °C won one duel, far away, and the
 * last question is answered in the window. */
static void
test_best_found_is_best_mean (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  const double duels[][4] = { { 70, 15, 25, 3 }, { 70, 15, 45, 28 }, { 70, 15, 30, 10 },
                              { 70, 15, 60, 2 }, { 22, 28, 20, 1 } };
  const SbLogEntry *last;

  exp->budget = G_N_ELEMENTS (duels) + 1;
  exp->initial = 2;
  session = sb_session_new (exp);
  g_assert_true (sb_session_save_as (session, f->file, &error));
  for (guint i = 0; i < G_N_ELEMENTS (duels); i++)
    g_assert_true (sb_session_add_duel (session, duels[i], duels[i] + 2, 0, &error));
  sb_window_set_session (f->window, session);
  SPIN_UNTIL (question_shown (f));
  g_assert_true (sb_window_get_question (f->window)->has_best);
  activate (f, "answer-b");
  SPIN_UNTIL (best_label_says (f, "Posterior mean"));
  last = sb_session_get_observation (session, sb_session_get_n_observations (session) - 1);
  g_assert_cmpfloat ((last->winner ? last->b : last->a)[0], !=, 70);
  g_assert_true (best_label_says (f, "temperature = 70"));
}

/* A script answers a session by ask/tell while the window follows the
 * file (skewbench --follow): the window shows the question the script was
 * asked, counts against the budget and, once the script is done, says so
 * with the best setting `skewgp status` reports (the recommendation). */
static void
test_follow_shows_writer (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_template_custom ();
  g_autoptr (SbSession) writer = NULL;
  g_autoptr (GError) error = NULL;
  const double duels[][4] = { { 70, 20, 30, 5 }, { 70, 20, 50, 25 }, { 40, 10, 70, 20 } };
  const SbQuestion *q;
  SbAnswer answer = { .kind = SB_ANSWER_CHOSEN };
  SbRecommendation rec;

  exp->budget = 4;
  exp->initial = 2;
  writer = sb_session_new (exp);
  g_assert_true (sb_session_save_as (writer, f->file, &error));
  for (guint i = 0; i < G_N_ELEMENTS (duels); i++)
    g_assert_true (sb_session_add_duel (writer, duels[i], duels[i] + 2, i == 2, &error));
  /* nothing asked yet: no question shown, none of the window's own */
  g_assert_true (sb_window_follow_file (f->window, f->file));
  SPIN_UNTIL (sb_campaign_get_state (sb_window_get_campaign (f->window)) == SB_CAMPAIGN_FOLLOWING);
  g_assert_null (sb_campaign_get_followed_question (sb_window_get_campaign (f->window)));

  /* the script asks: only the file's open question changes */
  q = sb_ask_tell_ask (writer, &error);
  g_assert_no_error (error);
  SPIN_UNTIL (sb_campaign_get_followed_question (sb_window_get_campaign (f->window)) != NULL);
  g_assert_nonnull (ui_find_widget (GTK_WIDGET (f->window), label_is, "Question 4 of 4"));
  {
    const SbProposal *shown = sb_campaign_get_followed_question (sb_window_get_campaign (f->window));
    g_assert_cmpuint (shown->n_options, ==, q->n_options);
    for (guint i = 0; i < q->n_options; i++)
      g_assert_cmpmem (shown->options[i], shown->dim * sizeof (double),
                       q->options[i], shown->dim * sizeof (double));
  }

  answer.question = q->id;
  g_assert_true (sb_ask_tell_tell (writer, &answer, &error));
  {
    SbJobInput *input = sb_job_input_new (writer);
    g_assert_true (sb_recommend_from_input (input, &rec, &error));
    sb_job_input_free (input);
  }
  SPIN_UNTIL (ui_find_widget (GTK_WIDGET (f->window), label_is, "All 4 questions answered") != NULL);
  g_assert_null (sb_campaign_get_followed_question (sb_window_get_campaign (f->window)));
  {
    g_autofree char *mean = g_strdup_printf ("Posterior mean %.4g", rec.mean);
    g_autofree char *best = sb_experiment_describe_setting (exp, rec.best);
    SPIN_UNTIL (best_label_says (f, mean));
    g_assert_true (best_label_says (f, best));
  }
}

int
main (int argc, char *argv[])
{
  static const char *paths[] = {
    "/ui/window/template", "/ui/window/answers-and-undo", "/ui/window/no-answer-while-computing",
    "/ui/window/superseded-result-dropped", "/ui/window/engine-error-shown",
    "/ui/window/damaged-file-refused", "/ui/window/responsive-during-fit",
    "/ui/window/cancel-fit", "/ui/window/autoplay", "/ui/window/value-questions",
    "/ui/window/safe-start-from-dialog", "/ui/window/recommendation-export",
    "/ui/window/best-found-is-best-mean", "/ui/window/safe-panel-ends",
    "/ui/window/follow-shows-writer",
    "/ui/new-experiment-dialog", "/ui/new-experiment-choices", "/ui/new-experiment-questions",
    "/ui/new-experiment-wording", "/ui/new-experiment-safe", "/ui/entered-number",
  };
  int status;

  if (!have_display ())
    {
      g_test_init (&argc, &argv, NULL);
      for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
        g_test_add_func (paths[i], skip_without_display);
      return g_test_run ();
    }
  /* Xvfb has no GPU: GTK's GL renderer would run on llvmpipe, whose
   * software rasterising blocks the main loop for 100+ ms per frame on a
   * busy machine. The Cairo renderer is what a display without GL uses. */
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  gtk_test_init (&argc, &argv, NULL);
  /* Recent files and new sessions go to a scratch data directory. */
  {
    g_autofree char *data = g_dir_make_tmp ("sb-data-XXXXXX", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  app = sb_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, NULL);

  g_test_add_func ("/ui/window/template", test_window_template);
  g_test_add ("/ui/window/answers-and-undo", Fixture, NULL, fixture_set_up, test_answers_and_undo, fixture_tear_down);
  g_test_add ("/ui/window/no-answer-while-computing", Fixture, NULL, fixture_set_up, test_no_answer_while_computing, fixture_tear_down);
  g_test_add ("/ui/window/superseded-result-dropped", Fixture, NULL, fixture_set_up, test_superseded_result_dropped, fixture_tear_down);
  g_test_add ("/ui/window/engine-error-shown", Fixture, NULL, fixture_set_up, test_engine_error_shown, fixture_tear_down);
  g_test_add ("/ui/window/damaged-file-refused", Fixture, NULL, fixture_set_up, test_damaged_refused, fixture_tear_down);
  g_test_add ("/ui/window/responsive-during-fit", Fixture, NULL, fixture_set_up, test_responsive_during_fit, fixture_tear_down);
  g_test_add ("/ui/window/cancel-fit", Fixture, NULL, fixture_set_up, test_cancel_fit, fixture_tear_down);
  g_test_add ("/ui/window/autoplay", Fixture, NULL, fixture_set_up, test_autoplay, fixture_tear_down);
  g_test_add ("/ui/window/value-questions", Fixture, NULL, fixture_set_up, test_value_questions, fixture_tear_down);
  g_test_add ("/ui/window/safe-start-from-dialog", Fixture, NULL, fixture_set_up, test_safe_start_from_dialog, fixture_tear_down);
  g_test_add ("/ui/window/recommendation-export", Fixture, NULL, fixture_set_up, test_recommendation_export, fixture_tear_down);
  g_test_add ("/ui/window/safe-panel-ends", Fixture, NULL, fixture_set_up, test_safe_panel_ends, fixture_tear_down);
  g_test_add ("/ui/window/best-found-is-best-mean", Fixture, NULL, fixture_set_up, test_best_found_is_best_mean, fixture_tear_down);
  g_test_add ("/ui/window/follow-shows-writer", Fixture, NULL, fixture_set_up, test_follow_shows_writer, fixture_tear_down);
  g_test_add_func ("/ui/new-experiment-dialog", test_new_experiment_dialog);
  g_test_add_func ("/ui/new-experiment-choices", test_new_experiment_choices);
  g_test_add_func ("/ui/new-experiment-questions", test_new_experiment_questions);
  g_test_add_func ("/ui/new-experiment-wording", test_new_experiment_wording);
  g_test_add_func ("/ui/new-experiment-safe", test_new_experiment_safe);
  g_test_add_func ("/ui/entered-number", test_entered_number);
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
