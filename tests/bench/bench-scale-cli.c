/* bench-scale-cli.c — `skewgp ask`, `status` and `refit` at the sizes of
 * the questions-at-scale issue, through the real binary, as a lab runs
 * them: one command per question, each a new process reading the files.
 *
 * Usage: bench-scale-cli SKEWGP DIR [--sessions 300,600,2000,10000]
 *                        [--studies 3x15,10x30,50x30,100x30] [--questions K]
 *
 * Files are written through core (tests/scale-fixtures.h: duels between
 * random settings of two parameters answered by a noisy utility; a study's
 * participants each with an offset of their own). For each session of N
 * answers:
 *   "fit stored": `skewgp refit` (timed), then K questions, each `ask`
 *     (timed) and `tell` (option 0) so that every question follows an
 *     answer;
 *   "fit due": answers are added (the schedule's due point: 5 up to 100
 *     answers at the fit, 5% beyond) so a refit is due, and K more
 *     questions are asked from the older fit.
 *   Up to 500 answers with no fit stored at all, the exact model with its
 *   start values; "ask, no fit ever" times that too.
 * For each study of P participants x A answers (hierarchical): `refit
 * STUDY` (the population cache with its fit), `status STUDY` (covered by
 * the cache), K questions (participants in turn, each answered), then
 * `status STUDY` again (it refreshes the cache: answers came since).
 *
 * Times are the child's CPU time (user + system, wait4's rusage) and its
 * wall time; median and 95th percentile (nearest rank) over the K
 * questions; peak RSS of the child. The machine is shared: CPU is the fair
 * figure. Prints one markdown table on stdout, progress on stderr. */
#include "../scale-fixtures.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

typedef struct {
  double cpu, wall, rss_mb;
  int status;
  char *out;
  char *points;  /* the test points it passed, one a line */
} Run;

static char *read_points (void);

static const char *skewgp;
/* The file the children's test points go to (SB_PROGRESS_FD=3). */
static int points_fd = -1;

static void
points_to_fd3 (gpointer data)
{
  /* dup2 of a descriptor onto itself would keep its close-on-exec */
  if (points_fd == 3)
    fcntl (3, F_SETFD, 0);
  else
    dup2 (points_fd, 3);
}

static char *
read_points (void)
{
  GString *s = g_string_new (NULL);
  char buf[4096];
  ssize_t k;

  lseek (points_fd, 0, SEEK_SET);
  while ((k = read (points_fd, buf, sizeof buf)) > 0)
    g_string_append_len (s, buf, k);
  return g_string_free (s, FALSE);
}

/* Runs `skewgp ARGS...` with INPUT (may be NULL) on stdin. */
static Run G_GNUC_NULL_TERMINATED
run (const char *input, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GString *out = g_string_new (NULL);
  struct rusage ru;
  int in_fd, out_fd, status;
  char buf[4096];
  gint64 start;
  ssize_t k;
  GPid pid;
  Run r = { 0 };
  va_list ap;
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "SB_PROGRESS_FD", "3", TRUE);

  g_ptr_array_add (argv, (gpointer) skewgp);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  start = g_get_monotonic_time ();
  if (ftruncate (points_fd, 0) != 0 || lseek (points_fd, 0, SEEK_SET) != 0)
    g_error ("the points file: %s", g_strerror (errno));
  if (!g_spawn_async_with_pipes (NULL, (char **) argv->pdata, envp,
                                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL,
                                 points_to_fd3, NULL, &pid, &in_fd, &out_fd, NULL, &error))
    g_error ("%s", error->message);
  if (input != NULL && write (in_fd, input, strlen (input)) < 0)
    g_error ("writing to skewgp: %s", g_strerror (errno));
  close (in_fd);
  while ((k = read (out_fd, buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, k);
  close (out_fd);
  while (wait4 (pid, &status, 0, &ru) < 0 && errno == EINTR)
    ;
  r.wall = (g_get_monotonic_time () - start) / 1e6;
  r.cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec
          + ru.ru_stime.tv_usec / 1e6;
  r.rss_mb = ru.ru_maxrss / 1024.0;
  r.status = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
  r.out = g_string_free (out, FALSE);
  r.points = read_points ();
  return r;
}

/* Member NAME of the JSON object TEXT (a string or a number as text), or
 * of its member PARENT; "" when absent. */
static char *
member (const char *text, const char *parent, const char *name)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o;
  JsonNode *n;

  if (!json_parser_load_from_data (p, text, -1, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p)))
    return g_strdup ("");
  o = json_node_get_object (json_parser_get_root (p));
  if (parent != NULL)
    {
      if (!json_object_has_member (o, parent))
        return g_strdup ("");
      o = json_object_get_object_member (o, parent);
    }
  if (!json_object_has_member (o, name))
    return g_strdup ("");
  n = json_object_get_member (o, name);
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
  return g_strdup ("");
}

typedef struct {
  GArray *cpu, *wall;
  double rss_mb;
  char *model;
  guint refused;
  guint fits;    /* questions that ran a fit or a refresh (none should) */
} Series;

static void
series_init (Series *s)
{
  s->cpu = g_array_new (FALSE, FALSE, sizeof (double));
  s->wall = g_array_new (FALSE, FALSE, sizeof (double));
  s->rss_mb = 0;
  s->model = g_strdup ("");
  s->refused = 0;
  s->fits = 0;
}

static void
series_clear (Series *s)
{
  g_array_unref (s->cpu);
  g_array_unref (s->wall);
  g_free (s->model);
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The Q-quantile (nearest rank) of A. */
static double
quantile (GArray *a, double q)
{
  g_autoptr (GArray) s = g_array_copy (a);
  guint k;

  if (s->len == 0)
    return NAN;
  g_array_sort (s, cmp_double);
  k = (guint) ceil (q * s->len);
  return g_array_index (s, double, k > 0 ? k - 1 : 0);
}

/* Asks K questions of TARGET (PARTICIPANTS: NULL, or codes in turn),
 * telling option 0 after each. */
static void
ask_series (const char *target, char **participants, guint k, Series *s)
{
  for (guint i = 0; i < k; i++)
    {
      const char *code = participants ? participants[i % g_strv_length (participants)] : NULL;
      Run a = code ? run (NULL, "ask", target, "--participant", code, NULL)
                   : run (NULL, "ask", target, NULL);
      g_autofree char *id = member (a.out, NULL, "question");
      g_autofree char *answer = NULL;
      Run t;

      if (a.status != 0 || *id == '\0')
        {
          s->refused++;
          g_free (a.out);
          continue;
        }
      g_array_append_val (s->cpu, a.cpu);
      g_array_append_val (s->wall, a.wall);
      s->rss_mb = MAX (s->rss_mb, a.rss_mb);
      if (strstr (a.points, "fit-") || strstr (a.points, "population-refresh"))
        s->fits++;
      {
        const char *q = strstr (a.points, "question-proposed: ");
        if (q != NULL)
          {
            g_free (s->model);
            s->model = g_strndup (q + strlen ("question-proposed: "),
                                  strcspn (q + strlen ("question-proposed: "), "\n"));
          }
      }
      g_free (a.out);
      g_free (a.points);
      answer = g_strdup_printf ("{\"question\": %s, \"answer\": {\"chosen\": 0}}", id);
      t = code ? run (answer, "tell", target, "--participant", code, "-", NULL)
               : run (answer, "tell", target, "-", NULL);
      if (t.status != 0)
        g_error ("tell failed on %s", target);
      g_free (t.out);
    }
}

static void
print_row (const char *what, const Series *s, const char *refit, const char *extra)
{
  if (s->cpu->len == 0)
    {
      printf ("| %s | refused (%u of %u) | | | | | %s | %s |\n", what, s->refused, s->refused,
              refit, extra);
      return;
    }
  printf ("| %s | %.3f | %.3f | %.2f | %.2f | %.0f | %s | %s | %u of %u questions ran a fit%s%s |\n",
          what, quantile (s->cpu, 0.5), quantile (s->cpu, 0.95), quantile (s->wall, 0.5),
          quantile (s->wall, 0.95), s->rss_mb, s->model, refit, s->fits, s->cpu->len,
          *extra ? "; " : "", extra);
  fflush (stdout);
}

/* Adds N answered duels to the session at PATH (through core). */
static void
add_answers (const char *path, guint n, guint32 seed)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = sb_session_load (file, &error);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);

  g_assert_no_error (error);
  /* leave the budget room: the fixture's is 50 beyond its answers */
  g_assert_true (sb_session_set_budget (session, sb_session_get_n_answers (session) + n + 50,
                                        &error));
  scale_answer_duels (session, n, 0, rand);
  g_assert_true (sb_session_save (session, &error));
  g_assert_no_error (error);
}

static guint
due_after (guint n)
{
  return n <= 100 ? 5 : MIN (MAX ((guint) ceil (0.05 * n), 5), 250);
}

static void
bench_session (const char *dir, guint n, guint k)
{
  g_autofree char *path = g_strdup_printf ("%s/session-%u.json", dir, n);
  g_autofree char *what = NULL;
  g_autofree char *refit_text = NULL;
  Series s;
  Run r;

  /* the last question follows the N-th answer */
  guint due = due_after (n);
  guint first = n - 2 * k - due;

  fprintf (stderr, "session %u: writing\n", n);
  scale_session_write (path, first, 100 + n);
  if (n <= 500)
    {
      g_autofree char *bare = g_strdup_printf ("%s/session-%u-no-fit.json", dir, n);
      scale_session_write (bare, first, 100 + n);
      series_init (&s);
      ask_series (bare, NULL, k, &s);
      what = g_strdup_printf ("session, %u answers, no fit ever stored", n);
      print_row (what, &s, "", "");
      series_clear (&s);
      g_clear_pointer (&what, g_free);
    }
  fprintf (stderr, "session %u: refit\n", n);
  r = run (NULL, "refit", path, NULL);
  if (r.status != 0)
    g_error ("refit %s failed", path);
  refit_text = g_strdup_printf ("%.2f cpu, %.1f wall, %.0f MB", r.cpu, r.wall, r.rss_mb);
  g_free (r.out);

  series_init (&s);
  ask_series (path, NULL, k, &s);
  what = g_strdup_printf ("session, %u answers, fit stored (%u answers)", n, first);
  print_row (what, &s, refit_text, "");
  series_clear (&s);
  g_clear_pointer (&what, g_free);

  add_answers (path, due, 7 + n);
  series_init (&s);
  ask_series (path, NULL, k, &s);
  what = g_strdup_printf ("session, %u answers, fit due (%u answers since it)", n,
                          n - first - k);
  print_row (what, &s, "", "refit due");
  series_clear (&s);
}

static void
bench_study (const char *dir, guint people, guint answers, guint k)
{
  g_autofree char *path = g_strdup_printf ("%s/study-%ux%u", dir, people, answers);
  g_autofree char *what = NULL;
  g_autofree char *refit_text = NULL;
  g_autofree char *status_text = NULL;
  g_autofree char *after_text = NULL;
  g_auto (GStrv) codes = g_new0 (char *, people + 1);
  Series s;
  Run r;

  for (guint p = 0; p < people; p++)
    codes[p] = g_strdup_printf ("P%u", p + 1);
  fprintf (stderr, "study %ux%u: writing\n", people, answers);
  scale_study_write (path, people, answers, 200 + people);
  fprintf (stderr, "study %ux%u: refit\n", people, answers);
  r = run (NULL, "refit", path, NULL);
  if (r.status != 0)
    g_error ("refit %s failed", path);
  refit_text = g_strdup_printf ("%.2f cpu, %.1f wall, %.0f MB", r.cpu, r.wall, r.rss_mb);
  g_free (r.out);
  r = run (NULL, "status", path, NULL);
  status_text = g_strdup_printf ("status %.2f cpu (%.1f wall, %.0f MB)", r.cpu, r.wall,
                                 r.rss_mb);
  g_free (r.out);

  series_init (&s);
  ask_series (path, codes, k, &s);
  r = run (NULL, "status", path, NULL);
  after_text = g_strdup_printf ("%s; after %u answers: status %.2f cpu (%.1f wall, "
                                "refreshes)", status_text, s.cpu->len, r.cpu, r.wall);
  g_free (r.out);
  what = g_strdup_printf ("hierarchical study, %u x %u", people, answers);
  print_row (what, &s, refit_text, after_text);
  series_clear (&s);
}

static GArray *
parse_list (const char *text)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; items[i]; i++)
    {
      guint v = (guint) atoi (items[i]);
      g_array_append_val (a, v);
      const char *x = strchr (items[i], 'x');
      if (x)
        {
          v = (guint) atoi (x + 1);
          g_array_append_val (a, v);
        }
    }
  return a;
}

int
main (int argc, char **argv)
{
  const char *sessions = "300,600,2000,10000", *studies = "3x15,10x30,50x30,100x30";
  guint k = 10;

  if (argc < 3)
    {
      fprintf (stderr, "usage: bench-scale-cli SKEWGP DIR [--sessions LIST] [--studies LIST] "
                       "[--questions K]\n");
      return 2;
    }
  skewgp = argv[1];
  for (int i = 3; i + 1 < argc; i += 2)
    {
      if (g_str_equal (argv[i], "--sessions"))
        sessions = argv[i + 1];
      else if (g_str_equal (argv[i], "--studies"))
        studies = argv[i + 1];
      else if (g_str_equal (argv[i], "--questions"))
        k = (guint) atoi (argv[i + 1]);
    }
  g_mkdir_with_parents (argv[2], 0755);
  {
    g_autofree char *points = NULL;
    points_fd = g_file_open_tmp ("bench-scale-points-XXXXXX", &points, NULL);
    if (points_fd < 0)
      g_error ("no temporary file for the test points");
    g_unlink (points);
  }
  printf ("| what | ask cpu median s | ask cpu p95 s | ask wall median s | ask wall p95 s "
          "| ask peak MB | model | refit | notes |\n");
  printf ("|---|---|---|---|---|---|---|---|---|\n");
  if (*sessions)
    {
      g_autoptr (GArray) a = parse_list (sessions);
      for (guint i = 0; i < a->len; i++)
        bench_session (argv[2], g_array_index (a, guint, i), k);
    }
  if (*studies)
    {
      g_autoptr (GArray) a = parse_list (studies);
      for (guint i = 0; i + 1 < a->len; i += 2)
        bench_study (argv[2], g_array_index (a, guint, i), g_array_index (a, guint, i + 1), k);
    }
  return 0;
}
