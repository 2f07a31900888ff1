/* sb-server-fits.c — the study server's fits, beside the questions: a
 * hierarchical study's population cache is refreshed, and a participant's
 * own session refitted, in threads of their own when core's refit
 * schedule says so (sb_fit_schedule_due). A question never waits for
 * one: it uses the newest stored fit (sb_population_ask, sb_ask_tell).
 * At most one population refresh runs at a time, and one refit per
 * participant; answers that arrive meanwhile are seen by the next. */
#include "config.h"

#include "sb-server-private.h"

#include "sb-population-cache.h"

/* ---- The population cache ------------------------------------------------------ */

static void start_refresh (SbServer *self, gboolean fit);

static void
refreshed (GObject *source, GAsyncResult *result, gpointer data)
{
  SbServer *self = data;
  g_autoptr (GError) err = NULL;
  g_autoptr (SbPopulationCache) cache = sb_population_refresh_finish (result, &err);

  self->fits.refreshing = FALSE;
  self->fits.n_running--;
  if (cache != NULL)
    self->fits.n_refreshes++;
  else if (!g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("the study's population cache: %s", err->message);
  /* answers that came in meanwhile asked for another */
  if (self->fits.refresh_again && self->running && cache != NULL)
    start_refresh (self, TRUE);
  g_object_unref (self);
}

static void
start_refresh (SbServer *self, gboolean fit)
{
  self->fits.refresh_again = FALSE;
  self->fits.refreshing = TRUE;
  self->fits.n_running++;
  sb_population_refresh_async (self->study, fit, self->fits.cancellable, NULL, NULL, refreshed,
                               g_object_ref (self));
}

/* ---- A participant's session ------------------------------------------------------ */

typedef struct {
  SbServer *self;        /* referenced */
  char *code;
  SbServeLive *live;     /* the server's */
  SbJobInput *input;
} Refit;

static void
refit_free (Refit *r)
{
  g_object_unref (r->self);
  g_free (r->code);
  sb_job_input_free (r->input);
  g_free (r);
}

/* In the thread: the fit, then its hyperparameters stored in the session
 * under the participant's locks (the session is read again: answers may
 * have come in while the fit ran). */
static void
refit_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Refit *r = data;
  SbFitProgress *progress = sb_fit_progress_new (cancellable, NULL, NULL);
  g_autoptr (SbFitResult) result = NULL;
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (r->input->path);
  GError *err = NULL;

  result = sb_session_refit (r->input, sb_fit_progress_get (progress), &err);
  sb_fit_progress_free (progress);
  if (result == NULL)
    {
      g_task_return_error (task, err);
      return;
    }
  g_mutex_lock (&r->live->lock);
  lock = sb_session_lock_file (r->input->path, "skewgp serve", &err);
  if (lock != NULL && (session = sb_session_load (file, &err)) != NULL)
    sb_session_store_fit (session, result, &err);
  g_clear_pointer (&lock, sb_file_lock_release);
  g_mutex_unlock (&r->live->lock);
  if (err != NULL)
    g_task_return_error (task, err);
  else
    g_task_return_boolean (task, TRUE);
}

static void
refitted (GObject *source, GAsyncResult *result, gpointer data)
{
  Refit *r = data;
  SbServer *self = r->self;
  g_autoptr (GError) err = NULL;

  if (g_task_propagate_boolean (G_TASK (result), &err))
    self->fits.n_refits++;
  else if (!g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("participant %s: the refit: %s", r->code, err->message);
  g_hash_table_remove (self->fits.refitting, r->code);
  self->fits.n_running--;
  refit_free (r);
}

/* ---- What the server calls ---------------------------------------------------------- */

void
_sb_server_fits_start (SbServer *self)
{
  self->fits.cancellable = g_cancellable_new ();
  self->fits.refitting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
_sb_server_fits_due (SbServer *self, const char *code, SbJobInput **session_input,
                     gboolean population)
{
  if (!self->running)
    return;
  if (population && self->fits.refreshing)
    self->fits.refresh_again = TRUE;
  else if (population)
    start_refresh (self, TRUE);
  if (*session_input != NULL && !g_hash_table_contains (self->fits.refitting, code))
    {
      Refit *r = g_new0 (Refit, 1);
      GTask *task = g_task_new (NULL, self->fits.cancellable, refitted, r);

      r->self = g_object_ref (self);
      r->code = g_strdup (code);
      r->live = _sb_server_live (self, code);
      r->input = g_steal_pointer (session_input);
      g_hash_table_add (self->fits.refitting, g_strdup (code));
      self->fits.n_running++;
      g_task_set_task_data (task, r, NULL);
      g_task_run_in_thread (task, refit_thread);
      g_object_unref (task);
    }
}

void
_sb_server_fits_stop (SbServer *self)
{
  if (self->fits.cancellable == NULL)
    return;
  g_cancellable_cancel (self->fits.cancellable);
  while (self->fits.n_running > 0)
    g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
  g_clear_object (&self->fits.cancellable);
  g_clear_pointer (&self->fits.refitting, g_hash_table_unref);
  self->fits.refresh_again = FALSE;
}
