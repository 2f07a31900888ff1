/* bench-duel-latency.c — time from an answer to the next duel on screen.
 *
 * The real window, in process, on a 2-D problem (Six-hump camel, exact
 * SkewGP, dueling UCB, 5 initial duels). Each answer is given the way a key
 * press gives it (the window's key handler activates win.answer-a /
 * win.answer-b; the answer is the simulated oracle's), and the latency is
 * measured from that activation to the end of the first frame painted
 * after the next question was put on screen (GdkFrameClock::after-paint).
 * It therefore includes the atomic save, the worker's proposal (posterior,
 * samples, acquisition search), the hand-over to the main loop and the
 * redraw. Before each answer the plot job of the shown question is allowed
 * to finish (a person looks at the duel for a second or more), so the
 * measurement is of the proposal the person waits for, not of the plots
 * competing with it. Hyperparameter refits (every 5 answers) run as in
 * the application, concurrently. Reported: median and 95th percentile over the answers around
 * 10, 50 and 100 duels. Also the longest main-thread stall seen (a 5 ms
 * timer's wake-up gaps).
 *
 * Also the time from the answer to the plots of the new question (the
 * plot job's snapshot applied), at ~10, 50, 100, 200 and 300 duels.
 *
 *   bench-duel-latency [ANSWERS [loaded]]
 *
 * "loaded" starts a second process that keeps one core busy for the whole
 * run (the other two-core case: a person's machine doing something else).
 * The renderer is the application's own choice (the Cairo renderer where
 * OpenGL is a software rasteriser, as under Xvfb) unless GSK_RENDERER is
 * set; the table names the one used.
 *
 * Needs a display (run under xvfb-run). Prints a table; not a timed test.
 */
#include "sb-application.h"
#include "sb-experiment-templates.h"
#include "sb-window.h"
#include "sb-worker.h"

#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern char *openblas_get_corename (void);
extern char *openblas_get_config (void);

typedef struct {
  SbWindow *window;
  gint64 answered;        /* when the answer was given, 0 = none pending */
  gboolean shown;         /* the next question is on screen             */
  gint64 painted;         /* end of the first frame after it            */
  gint64 timer_last;
  gint64 max_gap;
  gint64 cpu_last;
  gint64 max_cpu_gap;     /* main-thread CPU time within one gap         */
  gint64 plotted;         /* the last plot snapshot applied              */
} Bench;

static void
plot_updated (SbWindow *window, Bench *b)
{
  b->plotted = g_get_monotonic_time ();
}

/* A second process that keeps one core busy until killed. */
static GPid
start_load (void)
{
  const char *argv[] = { "/bin/sh", "-c", "while :; do :; done", NULL };
  GPid pid = 0;
  g_autoptr (GError) error = NULL;

  if (!g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &pid, &error))
    g_error ("cannot start the load: %s", error->message);
  return pid;
}

static gint64
thread_cpu_time (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
after_paint (GdkFrameClock *clock, Bench *b)
{
  if (b->shown && b->painted == 0)
    b->painted = g_get_monotonic_time ();
}

static void
question_shown (SbWindow *window, Bench *b)
{
  b->shown = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (window));
}

static gboolean
gap_timer (gpointer data)
{
  Bench *b = data;
  gint64 now = g_get_monotonic_time (), cpu = thread_cpu_time ();

  if (b->timer_last)
    {
      b->max_gap = MAX (b->max_gap, now - b->timer_last);
      b->max_cpu_gap = MAX (b->max_cpu_gap, cpu - b->cpu_last);
    }
  b->timer_last = now;
  b->cpu_last = cpu;
  return G_SOURCE_CONTINUE;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Order statistic at probability P (nearest rank). */
static double
quantile (double *v, guint n, double p)
{
  guint k;

  qsort (v, n, sizeof *v, compare_double);
  k = (guint) ceil (p * n);
  return v[MIN (MAX (k, 1), n) - 1];
}

static void
report (const char *label, const double *lat, guint from, guint to)
{
  double v[256];
  guint n = 0;

  for (guint i = from; i <= to; i++)
    if (lat[i] > 0)
      v[n++] = lat[i];
  if (n == 0)
    return;
  qsort (v, n, sizeof *v, compare_double);
  printf ("| %-6s | %3u-%-3u | %3u | %8.1f | %8.1f | %8.1f |\n", label, from, to, n,
          quantile (v, n, 0.5), quantile (v, n, 0.95), v[n - 1]);
}

/* Rows around 10, 50, 100, 200 and 300 answers (those the run reached). */
static void
report_rows (const double *v, guint total)
{
  static const guint centre[] = { 10, 50, 100, 200, 300 };

  for (guint i = 0; i < G_N_ELEMENTS (centre); i++)
    {
      char label[16];
      guint from = centre[i] - 4, to = MIN (centre[i] + 5, total);
      if (total < from + 5)
        break;
      g_snprintf (label, sizeof label, "~%u", centre[i]);
      report (label, v, from, to);
    }
}

int
main (int argc, char *argv[])
{
  guint total = argc > 1 ? (guint) atoi (argv[1]) : 105;
  gboolean loaded = argc > 2 && g_str_equal (argv[2], "loaded");
  GPid load = 0;
  double *plot;
  g_autoptr (SbApplication) app = NULL;
  g_autoptr (SbExperiment) exp = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  double *latency, *job;
  Bench b = { 0 };
  GdkFrameClock *clock;
  gint64 start;

  if (!g_getenv ("DISPLAY") && !g_getenv ("WAYLAND_DISPLAY"))
    {
      printf ("bench-duel-latency: no display, nothing measured (run under xvfb-run)\n");
      return 0;
    }
  gtk_init ();
  if (loaded)
    load = start_load ();
  dir = g_dir_make_tmp ("sb-latency-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", dir, TRUE);
  path = g_build_filename (dir, "latency.json", NULL);
  file = g_file_new_for_path (path);

  app = sb_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, NULL);

  exp = sb_template_benchmark ("six-hump-camel", &error);
  g_assert_no_error (error);
  exp->budget = total + 10;
  exp->seed = 3;
  session = sb_session_new (exp);
  if (!sb_session_save_as (session, file, &error))
    g_error ("%s", error->message);

  b.window = sb_window_new (GTK_APPLICATION (app));
  g_signal_connect (b.window, "question-shown", G_CALLBACK (question_shown), &b);
  g_signal_connect (b.window, "plot-updated", G_CALLBACK (plot_updated), &b);
  gtk_window_present (GTK_WINDOW (b.window));
  sb_window_set_session (b.window, session);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (b.window));
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint), &b);
  g_timeout_add (5, gap_timer, &b);

  latency = g_new0 (double, total + 1);
  job = g_new0 (double, total + 1);
  plot = g_new0 (double, total + 1);
  start = g_get_monotonic_time ();
  for (guint i = 0; i <= total; i++)
    {
      const SbProposal *q;

      while (!(b.shown && b.painted))
        {
          g_main_context_iteration (NULL, TRUE);
          if (sb_window_get_error (b.window))
            g_error ("engine error: %s", sb_window_get_error (b.window));
        }
      if (b.answered)
        {
          guint k = sb_session_get_n_answers (session);
          latency[k] = (b.painted - b.answered) / 1000.0;
          job[k] = 1000.0 * sb_window_get_question (b.window)->seconds;
        }
      if (i == total)
        break;
      /* A person looks at the duel before answering: let the plot job of
       * this question finish first (as it would during a second of
       * thought), so it does not compete with the next proposal. */
      while (sb_worker_is_busy (sb_window_get_worker (b.window), SB_WORKER_LANE_PLOT))
        g_main_context_iteration (NULL, TRUE);
      if (b.answered && b.plotted > b.answered)
        plot[sb_session_get_n_answers (session)] = (b.plotted - b.answered) / 1000.0;
      q = sb_window_get_question (b.window);
      g_assert (q && q->kind == SB_QUESTION_DUEL && q->has_oracle);
      b.shown = FALSE;
      b.painted = 0;
      b.answered = g_get_monotonic_time ();
      g_action_group_activate_action (G_ACTION_GROUP (b.window),
                                      q->oracle_winner ? "answer-b" : "answer-a", NULL);
    }

  printf ("Duel latency: answer -> next duel painted, Six-hump camel (2-D), exact SkewGP, UCB, "
          "5 initial duels, seed 3\n");
  printf ("Renderer: %s%s; %s\n",
          G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (b.window))),
          g_getenv ("GSK_RENDERER") ? " (GSK_RENDERER set)" : " (the application's choice)",
          loaded ? "loaded: a second process keeps one core busy" : "no added load");
  printf ("OpenBLAS core: %s; config: %s\n", openblas_get_corename (), openblas_get_config ());
  {
    g_autofree char *loadavg = NULL;
    if (g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL))
      printf ("load average at the end: %s", loadavg);
  }
  printf ("%u answers in %.1f s; longest main-loop wake-up gap %.1f ms wall, "
          "of which at most %.1f ms main-thread CPU\n\n", total,
          (g_get_monotonic_time () - start) / 1e6, b.max_gap / 1000.0, b.max_cpu_gap / 1000.0);
  printf ("Answer to next duel painted (what the person waits for):\n\n");
  printf ("| duels  | answers | n   | median ms | p95 ms | max ms |\n");
  printf ("|--------|---------|-----|----------|----------|----------|\n");
  report_rows (latency, total);
  printf ("\nOf which the proposal job on the worker (replay + sg_bo_propose + oracle):\n\n");
  printf ("| duels  | answers | n   | median ms | p95 ms | max ms |\n");
  printf ("|--------|---------|-----|----------|----------|----------|\n");
  report_rows (job, total);
  printf ("\nAnswer to the new question's plots applied (the plot job after the proposal):\n\n");
  printf ("| duels  | answers | n   | median ms | p95 ms | max ms |\n");
  printf ("|--------|---------|-----|----------|----------|----------|\n");
  report_rows (plot, total);

  /* The window's jobs are cancelled; the process must not exit while one
   * is still inside the engine, nor before the last save is on disk. */
  gtk_window_destroy (GTK_WINDOW (b.window));
  sb_worker_wait_all (60 * G_USEC_PER_SEC);
  g_unlink (path);
  {
    g_autofree char *sessions = g_build_filename (dir, "recently-used.xbel", NULL);
    g_unlink (sessions);
  }
  g_rmdir (dir);
  g_free (latency);
  g_free (job);
  g_free (plot);
  if (load)
    {
      kill (load, SIGKILL);
      g_spawn_close_pid (load);
    }
  return 0;
}
