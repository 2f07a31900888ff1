/* sb-stimulus-renderer.c — external commands that render stimuli. */
#include "config.h"

#include "sb-stimulus-renderer.h"

#include "sb-stimulus.h"

#include <errno.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

G_DEFINE_QUARK (sb-stimulus-error-quark, sb_stimulus_error)

/* The most of a failing command's stderr a message quotes. */
#define STDERR_TAIL_LINES 4
#define STDERR_TAIL_CHARS 400
/* How long stderr is still read after the command exited and its process
 * group was killed (a child outside the group may hold the pipe). */
#define STDERR_DRAIN_MS 1000

typedef struct _RenderJob RenderJob;

struct _SbStimulusRenderer
{
  GObject parent_instance;

  SbExperiment *experiment;
  char **argv_template;  /* the command split into arguments */
  char *work_dir;
  char *cache_dir;
  GHashTable *jobs;      /* key -> RenderJob, the commands running */
  guint n_started;
};

G_DEFINE_FINAL_TYPE (SbStimulusRenderer, sb_stimulus_renderer, G_TYPE_OBJECT)

/* One run of the command for one setting, and the requests waiting for it. */
struct _RenderJob
{
  SbStimulusRenderer *renderer;  /* NULL once the renderer let go of it */
  char *key;
  char *program;                 /* argv[0], for messages */
  char *final_path;
  char *part_path;
  GPid pid;                      /* the command; its process group's id too */
  GInputStream *err_stream;      /* its stderr */
  int wait_status;               /* as waitpid gave it, once exited */
  guint watch_id;
  GCancellable *cancellable;     /* stops reading its stderr */
  guint timeout_id;
  guint drain_id;                /* the bound on reading stderr after the exit */
  gboolean timed_out;
  gboolean exited;               /* the command's own process has exited */
  gboolean stderr_closed;        /* its stderr reached the end (or failed) */
  gboolean done;                 /* answered: only the leftovers go */
  int pending;                   /* async calls that still hold the job */
  GByteArray *err_text;          /* the last SB_RENDERER_STDERR_KEEP bytes of stderr */
  guint64 err_bytes;             /* all the bytes it wrote there */
  guint8 err_chunk[8192];
  GPtrArray *waiters;            /* GTask */
};

static void
render_job_free (RenderJob *job)
{
  g_clear_handle_id (&job->timeout_id, g_source_remove);
  g_clear_handle_id (&job->drain_id, g_source_remove);
  g_byte_array_unref (job->err_text);
  g_free (job->key);
  g_free (job->program);
  g_free (job->final_path);
  g_free (job->part_path);
  g_clear_object (&job->err_stream);
  g_clear_object (&job->cancellable);
  g_ptr_array_unref (job->waiters);
  g_free (job);
}

/* Kills everything in the command's process group: the command and what
 * it started, also after the command itself has exited (the group is
 * known from the start, not from the process). */
static void
render_job_kill (RenderJob *job)
{
  if (job->pid > 0)
    kill (-job->pid, SIGKILL);
}

/* Answers every waiting request: FILE, or ERROR. */
static void
render_job_finish (RenderJob *job, GFile *file, const GError *error)
{
  g_autoptr (GPtrArray) waiters = g_steal_pointer (&job->waiters);

  job->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);
      if (file)
        g_task_return_pointer (task, g_object_ref (file), g_object_unref);
      else
        g_task_return_error (task, g_error_copy (error));
    }
  g_clear_handle_id (&job->timeout_id, g_source_remove);
  if (job->renderer)
    {
      g_hash_table_steal (job->renderer->jobs, job->key);
      job->renderer = NULL;
    }
}

/* The last lines of a command's stderr, for a message: text (invalid
 * UTF-8 replaced), the number of bytes not kept said first. */
static char *
stderr_tail (const RenderJob *job)
{
  g_autofree char *text = g_utf8_make_valid ((const char *) job->err_text->data,
                                             (gssize) job->err_text->len);
  g_auto (GStrv) lines = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  guint n, first;

  lines = g_strsplit (g_strstrip (text), "\n", -1);
  n = g_strv_length (lines);
  first = n > STDERR_TAIL_LINES ? n - STDERR_TAIL_LINES : 0;
  for (guint i = first; i < n; i++)
    g_string_append_printf (out, "%s%s", out->len ? " / " : "", g_strstrip (lines[i]));
  if (out->len > STDERR_TAIL_CHARS)
    {
      const char *cut = g_utf8_find_next_char (out->str + out->len - STDERR_TAIL_CHARS, NULL);
      g_string_erase (out, 0, cut ? cut - out->str : 0);
      g_string_prepend (out, "…");
    }
  if (job->err_bytes > job->err_text->len && out->len > 0)
    {
      g_autofree char *size = g_format_size (job->err_bytes);
      g_string_prepend (out, "… ");
      g_string_append_printf (out, " (%s written to stderr in all)", size);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The outcome once the command has exited and stderr is read: the exit
 * status and the output file decide, stderr only explains. */
static void
render_job_judge (RenderJob *job)
{
  int status = job->wait_status;
  g_autoptr (GError) error = NULL;
  GStatBuf st;

  if (WIFSIGNALED (status))
    {
      g_autofree char *tail = stderr_tail (job);
      g_set_error (&error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_FAILED,
                   "the renderer '%s' was killed by signal %d%s%s", job->program,
                   WTERMSIG (status), *tail ? ": " : "", tail);
    }
  else if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_autofree char *tail = stderr_tail (job);
      g_set_error (&error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_FAILED,
                   "the renderer '%s' failed (exit status %d)%s%s", job->program,
                   WIFEXITED (status) ? WEXITSTATUS (status) : -1, *tail ? ": " : "", tail);
    }
  else if (g_lstat (job->part_path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
    g_set_error (&error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_NO_OUTPUT,
                 "the renderer '%s' exited normally but wrote nothing to {output}",
                 job->program);
  else if (st.st_size > SB_RENDERER_OUTPUT_MAX_BYTES)
    {
      g_autofree char *size = g_format_size (st.st_size);
      g_set_error (&error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_NO_OUTPUT,
                   "the renderer '%s' wrote %s, more than a stimulus may have (%d MiB)",
                   job->program, size, (int) (SB_RENDERER_OUTPUT_MAX_BYTES >> 20));
    }
  else if (g_rename (job->part_path, job->final_path) != 0)
    g_set_error (&error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_NO_OUTPUT,
                 "the renderer's output could not be kept in '%s': %s", job->final_path,
                 g_strerror (errno));

  if (error)
    {
      g_unlink (job->part_path);
      render_job_finish (job, NULL, error);
    }
  else
    {
      g_autoptr (GFile) file = g_file_new_for_path (job->final_path);
      render_job_finish (job, file, NULL);
    }
}

/* One of the job's async calls returned: the job is judged once the
 * command has exited and stderr is closed (or its drain time is over),
 * and freed when nothing holds it any more. */
static void
render_job_step (RenderJob *job)
{
  if (!job->done && job->exited && (job->stderr_closed || job->drain_id == 0))
    {
      job->done = TRUE;
      g_cancellable_cancel (job->cancellable);
      if (job->timed_out || job->renderer == NULL)
        g_unlink (job->part_path);   /* answered already (timeout, cancel_all) */
      else
        render_job_judge (job);
    }
  if (job->done && job->pending == 0)
    render_job_free (job);
}

static gboolean
drain_over_cb (gpointer user_data)
{
  RenderJob *job = user_data;

  job->drain_id = 0;
  render_job_step (job);
  return G_SOURCE_REMOVE;
}

static void read_stderr (RenderJob *job);

static void
stderr_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  RenderJob *job = user_data;
  gssize got = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  job->pending--;
  if (got > 0 && !job->done)
    {
      job->err_bytes += (guint64) got;
      g_byte_array_append (job->err_text, job->err_chunk, (guint) got);
      /* keep the last SB_RENDERER_STDERR_KEEP bytes, trimming in halves */
      if (job->err_text->len > 2 * SB_RENDERER_STDERR_KEEP)
        g_byte_array_remove_range (job->err_text, 0,
                                   job->err_text->len - SB_RENDERER_STDERR_KEEP);
      read_stderr (job);
      return;
    }
  job->stderr_closed = TRUE;
  if (job->exited)
    g_clear_handle_id (&job->drain_id, g_source_remove);
  render_job_step (job);
}

static void
read_stderr (RenderJob *job)
{
  job->pending++;
  g_input_stream_read_async (job->err_stream, job->err_chunk,
                             sizeof job->err_chunk, G_PRIORITY_DEFAULT, job->cancellable,
                             stderr_read_done, job);
}

/* The command itself exited: what it left running in its group is killed
 * (a stimulus is made when the command exits), and stderr is read to its
 * end for at most STDERR_DRAIN_MS. */
static void
child_exited (GPid pid, int status, gpointer user_data)
{
  RenderJob *job = user_data;

  g_spawn_close_pid (pid);
  job->watch_id = 0;
  job->pending--;
  job->exited = TRUE;
  job->wait_status = status;
  kill (-job->pid, SIGKILL);
  if (!job->stderr_closed && !job->done)
    job->drain_id = g_timeout_add (STDERR_DRAIN_MS, drain_over_cb, job);
  render_job_step (job);
}

static gboolean
timeout_cb (gpointer user_data)
{
  RenderJob *job = user_data;
  g_autoptr (GError) error = NULL;

  job->timeout_id = 0;
  job->timed_out = TRUE;
  render_job_kill (job);
  g_cancellable_cancel (job->cancellable);
  g_set_error (&error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_TIMEOUT,
               "the renderer '%s' did not finish within %g s and was stopped",
               job->program, job->renderer->experiment->stimulus.timeout);
  render_job_finish (job, NULL, error);
  return G_SOURCE_REMOVE;
}

/* The child becomes its own process group, so that a timeout can kill a
 * script together with the programs it started. */
static void
child_setup (gpointer user_data)
{
  setpgid (0, 0);
}

/* The command for X with {output} at OUTPUT; NULL with ERROR. */
static char **
fill_in (SbStimulusRenderer *self, const double *x, const char *output, GError **error)
{
  guint n = g_strv_length (self->argv_template);
  char **argv = g_new0 (char *, n + 1);

  for (guint i = 0; i < n; i++)
    {
      GError *local = NULL;
      argv[i] = sb_stimulus_expand (self->argv_template[i], self->experiment, x, output, TRUE,
                                    &local);
      if (argv[i] == NULL)
        {
          g_set_error (error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_TEMPLATE, "%s", local->message);
          g_error_free (local);
          g_strfreev (argv);
          return NULL;
        }
    }
  return argv;
}

/* The cache key of X: the command as filled in, where it runs, and the
 * output's extension. */
static char *
cache_key (SbStimulusRenderer *self, const double *x, GError **error)
{
  g_auto (GStrv) argv = fill_in (self, x, "{output}", error);
  g_autoptr (GString) text = NULL;

  if (argv == NULL)
    return NULL;
  text = g_string_new (self->work_dir);
  for (guint i = 0; argv[i]; i++)
    g_string_append_printf (text, "\x1f%s", argv[i]);
  g_string_append_printf (text, "\x1f%s", self->experiment->stimulus.extension);
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text->str, text->len);
}

static RenderJob *
start_job (SbStimulusRenderer *self, const char *key, const double *x, GError **error)
{
  const char *ext = self->experiment->stimulus.extension;
  g_autofree char *base = g_strdup_printf ("%s.%s", key, ext);
  g_autofree char *part = g_strdup_printf ("%s.part-%d.%s", key, (int) getpid (), ext);
  int err_fd = -1;
  g_auto (GStrv) argv = NULL;
  RenderJob *job;
  GError *local = NULL;

  if (g_mkdir_with_parents (self->cache_dir, 0700) != 0)
    {
      g_set_error (error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_START,
                   "the stimulus cache '%s' cannot be created: %s", self->cache_dir,
                   g_strerror (errno));
      return NULL;
    }
  job = g_new0 (RenderJob, 1);
  job->key = g_strdup (key);
  job->program = g_path_get_basename (self->argv_template[0]);
  job->final_path = g_build_filename (self->cache_dir, base, NULL);
  job->part_path = g_build_filename (self->cache_dir, part, NULL);
  job->waiters = g_ptr_array_new_with_free_func (g_object_unref);
  job->err_text = g_byte_array_new ();
  job->cancellable = g_cancellable_new ();
  argv = fill_in (self, x, job->part_path, error);
  if (argv == NULL)
    {
      render_job_free (job);
      return NULL;
    }
  /* g_spawn rather than GSubprocess: the process id must be known even
   * when the command exits at once (GSubprocess forgets it once reaped),
   * since it names the group that is killed afterwards. */
  if (!g_spawn_async_with_pipes (self->work_dir, argv, NULL,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD
                                 | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_CHILD_INHERITS_STDIN
                                 | G_SPAWN_CLOEXEC_PIPES,
                                 child_setup, NULL, &job->pid, NULL, NULL, &err_fd, &local))
    {
      g_set_error (error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_START,
                   "the renderer '%s' could not be started: %s", job->program, local->message);
      g_error_free (local);
      render_job_free (job);
      return NULL;
    }
  /* the parent sets the group too, so that a kill right after the
   * spawn finds it whichever of the two ran first */
  setpgid (job->pid, job->pid);
  job->err_stream = g_unix_input_stream_new (err_fd, TRUE);
  self->n_started++;
  job->renderer = self;
  g_hash_table_insert (self->jobs, job->key, job);
  job->timeout_id = g_timeout_add ((guint) (self->experiment->stimulus.timeout * 1000), timeout_cb,
                                   job);
  job->pending++;
  job->watch_id = g_child_watch_add (job->pid, child_exited, job);
  read_stderr (job);
  return job;
}

/* The cached file of KEY, or NULL. */
static GFile *
cached_file (SbStimulusRenderer *self, const char *key)
{
  g_autofree char *base = g_strdup_printf ("%s.%s", key, self->experiment->stimulus.extension);
  g_autofree char *path = g_build_filename (self->cache_dir, base, NULL);
  GStatBuf st;

  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0)
    return g_file_new_for_path (path);
  return NULL;
}

void
sb_stimulus_renderer_render_async (SbStimulusRenderer *self, const double *x,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autofree char *key = NULL;
  g_autoptr (GFile) file = NULL;
  RenderJob *job;
  GError *error = NULL;

  g_return_if_fail (SB_IS_STIMULUS_RENDERER (self));
  g_task_set_source_tag (task, sb_stimulus_renderer_render_async);
  key = cache_key (self, x, &error);
  if (key == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if ((file = cached_file (self, key)) != NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&file), g_object_unref);
      return;
    }
  job = g_hash_table_lookup (self->jobs, key);
  if (job == NULL && (job = start_job (self, key, x, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_ptr_array_add (job->waiters, g_steal_pointer (&task));
}

GFile *
sb_stimulus_renderer_render_finish (SbStimulusRenderer *self, GAsyncResult *result,
                                    GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
sb_stimulus_renderer_prefetch (SbStimulusRenderer *self, const double *x)
{
  g_autofree char *key = NULL;
  g_autoptr (GFile) file = NULL;

  g_return_if_fail (SB_IS_STIMULUS_RENDERER (self));
  key = cache_key (self, x, NULL);
  if (key == NULL || (file = cached_file (self, key)) != NULL
      || g_hash_table_contains (self->jobs, key))
    return;
  /* A failure shows when the option asks for it. */
  start_job (self, key, x, NULL);
}

void
sb_stimulus_renderer_cancel_all (SbStimulusRenderer *self)
{
  g_autoptr (GList) jobs = g_hash_table_get_values (self->jobs);
  g_autoptr (GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                  "the rendering was cancelled");

  for (GList *l = jobs; l; l = l->next)
    {
      RenderJob *job = l->data;
      render_job_kill (job);
      g_cancellable_cancel (job->cancellable);
      render_job_finish (job, NULL, error);
    }
}

guint
sb_stimulus_renderer_get_n_started (SbStimulusRenderer *self)
{
  return self->n_started;
}

guint
sb_stimulus_renderer_get_n_running (SbStimulusRenderer *self)
{
  return g_hash_table_size (self->jobs);
}

char *
sb_stimulus_work_dir_for (GFile *session_file)
{
  g_autoptr (GFile) parent = session_file ? g_file_get_parent (session_file) : NULL;

  return parent ? g_file_get_path (parent) : NULL;
}

static void
sb_stimulus_renderer_finalize (GObject *object)
{
  SbStimulusRenderer *self = SB_STIMULUS_RENDERER (object);

  sb_stimulus_renderer_cancel_all (self);
  g_hash_table_unref (self->jobs);
  sb_experiment_free (self->experiment);
  g_strfreev (self->argv_template);
  g_free (self->work_dir);
  g_free (self->cache_dir);
  G_OBJECT_CLASS (sb_stimulus_renderer_parent_class)->finalize (object);
}

static void
sb_stimulus_renderer_class_init (SbStimulusRendererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sb_stimulus_renderer_finalize;
}

static void
sb_stimulus_renderer_init (SbStimulusRenderer *self)
{
  self->jobs = g_hash_table_new (g_str_hash, g_str_equal);
}

SbStimulusRenderer *
sb_stimulus_renderer_new (const SbExperiment *exp, const char *work_dir, const char *cache_dir)
{
  SbStimulusRenderer *self = g_object_new (SB_TYPE_STIMULUS_RENDERER, NULL);
  SbStimulus *s;

  self->experiment = sb_experiment_copy (exp);
  s = &self->experiment->stimulus;
  if (s->extension == NULL)
    s->extension = g_strdup (s->kind == SB_STIMULUS_SOUND ? "wav" : "png");
  /* A stimulus that passed sb_stimulus_validate() always splits; an
   * empty program otherwise fails to start, with a message. */
  if (s->command == NULL || !g_shell_parse_argv (s->command, NULL, &self->argv_template, NULL))
    {
      self->argv_template = g_new0 (char *, 2);
      self->argv_template[0] = g_strdup ("");
    }
  self->work_dir = work_dir ? g_strdup (work_dir) : g_get_current_dir ();
  /* a program of the experiment's folder runs from there, whatever the
   * cwd's PATH lookup would find */
  {
    g_autofree char *program = sb_stimulus_program_path (s->command, self->work_dir);
    if (program != NULL)
      {
        g_free (self->argv_template[0]);
        self->argv_template[0] = g_steal_pointer (&program);
      }
  }
  self->cache_dir = cache_dir ? g_strdup (cache_dir)
                              : g_build_filename (g_get_user_cache_dir (), "skewbench", "stimuli",
                                                  NULL);
  return self;
}
