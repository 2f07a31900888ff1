/* sb-server-stimuli.c — what each option of a question shows in the
 * participant page, and the stimulus files served for them.
 *
 * A URL never names a file: /api/stimulus/QUESTION/OPTION names an option
 * of the participant's open question, and the file is the one the
 * experiment gives that option (its candidate file, or the renderer's
 * output in STUDY/online/rendered). Even so the file must lie inside the
 * study folder once every link is resolved, and it is opened with
 * O_NOFOLLOW, so neither a link in the candidate folder nor one swapped
 * in afterwards leads anywhere else. */
#include "config.h"

#include "sb-server-private.h"

#include "sb-ask-tell.h"
#include "sb-candidates.h"
#include "sb-experiment-templates.h"
#include "sb-json-write.h"
#include "sb-setting.h"
#include "sb-stimulus.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

SbStimulusKind
_sb_server_stimulus_kind (const SbExperiment *exp)
{
  if (exp->stimulus.kind == SB_STIMULUS_NONE && exp->candidates != NULL
      && sb_stimulus_first_unknown_file (exp->candidates) < 0)
    return SB_STIMULUS_FILE;
  return exp->stimulus.kind;
}

/* IMAGE or SOUND: what the file of option X is. */
static SbStimulusKind
file_kind (const SbExperiment *exp, const double *x)
{
  g_autofree char *file = NULL;

  if (exp->stimulus.kind == SB_STIMULUS_IMAGE || exp->stimulus.kind == SB_STIMULUS_SOUND)
    return exp->stimulus.kind;
  file = sb_experiment_candidate_file (exp, x);
  return file ? sb_stimulus_kind_for_file (file) : SB_STIMULUS_NONE;
}

static void
add_caption (JsonBuilder *b, const SbExperiment *exp, const double *x)
{
  g_autofree char *text = NULL;

  if (exp->stimulus.text == NULL || *exp->stimulus.text == '\0')
    return;
  text = sb_stimulus_expand (exp->stimulus.text, exp, x, NULL, FALSE, NULL);
  if (text == NULL)
    return;
  sb_json_add_string (b, "caption", text);
}

JsonNode *
_sb_server_stimuli_json (const SbExperiment *exp, const SbQuestion *q)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  SbStimulusKind kind = _sb_server_stimulus_kind (exp);

  json_builder_begin_array (b);
  for (guint i = 0; i < q->n_options; i++)
    {
      const double *x = q->options[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kind");
      if (kind == SB_STIMULUS_COLOUR)
        {
          double r, g, bl;
          gboolean mapped = sb_template_colour_rgb (exp, x, &r, &g, &bl);
          g_autofree char *hex = g_strdup_printf ("#%02X%02X%02X", (guint) lround (255 * r),
                                                  (guint) lround (255 * g),
                                                  (guint) lround (255 * bl));
          json_builder_add_string_value (b, "colour");
          sb_json_add_string (b, "rgb", hex);
          sb_json_add_bool (b, "mapped", mapped);
        }
      else if (kind == SB_STIMULUS_TEXT)
        {
          g_autofree char *text = sb_stimulus_expand (exp->stimulus.text, exp, x, NULL, FALSE,
                                                      NULL);
          json_builder_add_string_value (b, "text");
          sb_json_add_string (b, "text", text ? text : "");
        }
      else if ((kind == SB_STIMULUS_FILE || kind == SB_STIMULUS_IMAGE
                || kind == SB_STIMULUS_SOUND) && file_kind (exp, x) != SB_STIMULUS_NONE)
        {
          g_autofree char *url = g_strdup_printf ("/api/stimulus/%" G_GUINT64_FORMAT "/%u",
                                                  q->id, i);
          json_builder_add_string_value (b, file_kind (exp, x) == SB_STIMULUS_SOUND ? "sound"
                                                                                   : "image");
          sb_json_add_string (b, "url", url);
          add_caption (b, exp, x);
        }
      else
        {
          g_autofree char *text = sb_experiment_describe_setting (exp, x);
          json_builder_add_string_value (b, "setting");
          sb_json_add_string (b, "text", text);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

/* ---- Reading a file inside the study ----------------------------------------- */

static gboolean
is_inside (const char *real_dir, const char *real_path)
{
  gsize n = strlen (real_dir);

  return strncmp (real_path, real_dir, n) == 0 && real_path[n] == G_DIR_SEPARATOR;
}

GBytes *
_sb_server_read_inside (const char *real_dir, const char *path, GError **error)
{
  g_autofree char *real = realpath (path, NULL);
  g_autofree char *data = NULL;
  struct stat st;
  gsize got = 0;
  int fd;

  if (real == NULL || !is_inside (real_dir, real))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "the stimulus file %s is %s", path,
                   real ? "outside the study folder: copy the stimuli into it"
                        : "missing");
      return NULL;
    }
  fd = open (real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", real,
                   g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > SB_SERVER_MAX_STIMULUS)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s is not a regular file of at most %" G_GOFFSET_FORMAT " bytes", real,
                   SB_SERVER_MAX_STIMULUS);
      return NULL;
    }
  data = g_malloc (st.st_size + 1);
  while (got < (gsize) st.st_size)
    {
      ssize_t n = read (fd, data + got, st.st_size - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (gsize) n;
    }
  close (fd);
  return g_bytes_new_take (g_steal_pointer (&data), got);
}

/* ---- Serving -------------------------------------------------------------------- */

typedef struct {
  SbServer *self;
  SoupServerMessage *msg;
  char *code;
  char *path;               /* the participant's session                 */
  guint64 question;
  guint option;
  /* results */
  guint status;
  char *error;
  GBytes *bytes;
  char *file;               /* for the content type                      */
  gboolean render;          /* the renderer must make X first            */
  double x[SB_MAX_PARAMETERS];
  gboolean gone;
} StimulusJob;

static void
stimulus_job_free (StimulusJob *job)
{
  g_signal_handlers_disconnect_by_data (job->msg, job);
  g_object_unref (job->msg);
  g_object_unref (job->self);
  g_free (job->code);
  g_free (job->path);
  g_free (job->error);
  g_clear_pointer (&job->bytes, g_bytes_unref);
  g_free (job->file);
  g_free (job);
}

static void
stimulus_gone (SoupServerMessage *msg, StimulusJob *job)
{
  job->gone = TRUE;
}

static void
stimulus_fail (StimulusJob *job, guint status, const char *message)
{
  job->status = status;
  g_free (job->error);
  job->error = g_strdup (message);
}

/* The option's setting from the participant's open question; for a
 * candidate file, the file's bytes. */
static void
stimulus_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  StimulusJob *job = data;
  g_autoptr (GFile) file = g_file_new_for_path (job->path);
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GError) err = NULL;
  const SbExperiment *exp;
  const SbQuestion *q;

  /* a reader needs no lock: every save replaces the file whole */
  session = sb_session_load (file, &err);
  if (session == NULL)
    {
      stimulus_fail (job, SOUP_STATUS_INTERNAL_SERVER_ERROR, err->message);
      g_task_return_boolean (task, TRUE);
      return;
    }
  exp = sb_session_get_experiment (session);
  q = sb_ask_tell_current (session);
  if (q == NULL || q->id != job->question || job->option >= q->n_options)
    stimulus_fail (job, SOUP_STATUS_NOT_FOUND,
                   "no such option of your open question (stimuli are served while their "
                   "question is open)");
  else if (exp->stimulus.kind == SB_STIMULUS_IMAGE || exp->stimulus.kind == SB_STIMULUS_SOUND)
    {
      job->render = TRUE;
      memcpy (job->x, q->options[job->option], sizeof job->x);
    }
  else if (_sb_server_stimulus_kind (exp) == SB_STIMULUS_FILE)
    {
      job->file = sb_experiment_candidate_file (exp, q->options[job->option]);
      job->bytes = job->file ? _sb_server_read_inside (job->self->real_dir, job->file, &err)
                             : NULL;
      if (job->bytes == NULL)
        {
          g_warning ("stimulus: %s", err ? err->message : "no file for the option");
          stimulus_fail (job, SOUP_STATUS_NOT_FOUND, "this option's file cannot be served");
        }
    }
  else
    stimulus_fail (job, SOUP_STATUS_NOT_FOUND, "this study's options show no file");
  g_task_return_boolean (task, TRUE);
}

static void
stimulus_reply (StimulusJob *job)
{
  SbServer *self = job->self;
  SoupMessageHeaders *h = soup_server_message_get_response_headers (job->msg);

  if (job->gone || !self->running)
    return;
  if (job->bytes == NULL)
    _sb_server_reply_error (self, job->msg, job->status ? job->status : SOUP_STATUS_NOT_FOUND,
                            "%s", job->error ? job->error : "no stimulus");
  else
    {
      gsize length = 0;
      const guint8 *data = g_bytes_get_data (job->bytes, &length);
      g_autofree char *type = g_content_type_guess (job->file, data, length, NULL);
      g_autofree char *mime = g_content_type_get_mime_type (type);
      const char *sent = mime && (g_str_has_prefix (mime, "image/")
                                  || g_str_has_prefix (mime, "audio/"))
                           ? mime : "application/octet-stream";

      /* an SVG opened on its own runs no script and loads nothing */
      soup_message_headers_replace (h, "Content-Security-Policy",
                                    "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      soup_message_headers_replace (h, "Cache-Control", "private, max-age=3600");
      soup_server_message_set_status (job->msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (job->msg, sent, SOUP_MEMORY_COPY, (const char *) data,
                                        length);
    }
  soup_server_message_unpause (job->msg);
}

static void
rendered (GObject *source, GAsyncResult *result, gpointer data)
{
  StimulusJob *job = data;
  g_autoptr (GError) err = NULL;
  g_autoptr (GFile) file = sb_stimulus_renderer_render_finish (SB_STIMULUS_RENDERER (source),
                                                               result, &err);

  if (file != NULL)
    {
      job->file = g_file_get_path (file);
      job->bytes = _sb_server_read_inside (job->self->real_dir, job->file, &err);
    }
  if (job->bytes == NULL)
    {
      g_warning ("stimulus: %s", err->message);
      stimulus_fail (job, SOUP_STATUS_INTERNAL_SERVER_ERROR,
                     "the stimulus could not be made (the experimenter is told)");
    }
  stimulus_reply (job);
  job->self->n_pending--;
  stimulus_job_free (job);
}

static void
stimulus_found (GObject *source, GAsyncResult *result, gpointer data)
{
  StimulusJob *job = data;

  if (job->render && job->self->renderer != NULL && job->self->running && !job->gone)
    {
      sb_stimulus_renderer_render_async (job->self->renderer, job->x, NULL, rendered, job);
      return;
    }
  if (job->render)
    stimulus_fail (job, SOUP_STATUS_NOT_FOUND, "no renderer");
  stimulus_reply (job);
  job->self->n_pending--;
  stimulus_job_free (job);
}

/* "QUESTION/OPTION", both decimal numbers, into the job. */
static gboolean
parse_target (const char *rest, guint64 *question, guint *option)
{
  g_auto (GStrv) parts = g_strsplit (rest, "/", -1);
  guint64 q = 0, o = 0;

  if (g_strv_length (parts) != 2)
    return FALSE;
  for (guint k = 0; k < 2; k++)
    {
      gsize n = strlen (parts[k]);
      if (n == 0 || n > 12)
        return FALSE;
      for (gsize i = 0; i < n; i++)
        if (!g_ascii_isdigit (parts[k][i]))
          return FALSE;
    }
  q = g_ascii_strtoull (parts[0], NULL, 10);
  o = g_ascii_strtoull (parts[1], NULL, 10);
  if (o >= SB_MAX_OPTIONS)
    return FALSE;
  *question = q;
  *option = (guint) o;
  return TRUE;
}

void
_sb_server_stimulus (SbServer *self, SoupServerMessage *msg, const char *code, const char *rest)
{
  StimulusJob *job;
  GTask *task;
  guint64 question;
  guint option;

  if (!parse_target (rest, &question, &option))
    {
      _sb_server_reply_error (self, msg, SOUP_STATUS_NOT_FOUND,
                              "expected /api/stimulus/QUESTION/OPTION (numbers)");
      return;
    }
  job = g_new0 (StimulusJob, 1);
  job->self = g_object_ref (self);
  job->msg = g_object_ref (msg);
  job->code = g_strdup (code);
  job->path = sb_study_participant_path (self->study, code);
  job->question = question;
  job->option = option;
  _sb_server_live (self, code);
  g_signal_connect (msg, "disconnected", G_CALLBACK (stimulus_gone), job);
  soup_server_message_pause (msg);
  self->n_pending++;
  task = g_task_new (NULL, NULL, stimulus_found, job);
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, stimulus_thread);
  g_object_unref (task);
}
