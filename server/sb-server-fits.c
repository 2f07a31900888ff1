/* sb-server-fits.c — the study server's fits, beside the questions: a
 * hierarchical study's population cache is refreshed, and a participant's
 * own session refitted, when core's refit schedule says so
 * (sb_fit_schedule_due). A question never waits for one: it uses the
 * newest stored fit (sb_population_ask, sb_ask_tell). The fits run in the
 * server's own threads at a lower scheduling priority than the questions'
 * (a fit takes seconds of CPU, a question tens of milliseconds: on a
 * machine with two cores the questions come first). At most one
 * population refresh runs at a time, and one refit per participant;
 * answers that arrive meanwhile are seen by the next. */
#include "config.h"

#include "sb-server-private.h"

#include "sb-population-cache.h"

#include <sys/resource.h>
#include <unistd.h>

/* How much nicer than the server a fit thread runs. */
#define FIT_NICENESS 10

typedef struct {
  SbServer *self;           /* referenced */
  GMainContext *context;
  GCancellable *cancellable;
  int nice;                 /* the fit thread's scheduling priority       */
  /* a participant's refit; NULL: the population cache's refresh */
  char *code;
  SbServeLive *live;        /* the server's */
  SbJobInput *input;
  char *dir;
  gboolean ok;
  GError *error;
} Fit;

static void
fit_free (Fit *fit)
{
  g_object_unref (fit->self);
  g_main_context_unref (fit->context);
  g_object_unref (fit->cancellable);
  g_free (fit->code);
  g_clear_pointer (&fit->input, sb_job_input_free);
  g_free (fit->dir);
  g_clear_error (&fit->error);
  g_free (fit);
}

static Fit *
fit_new (SbServer *self)
{
  Fit *fit = g_new0 (Fit, 1);

  fit->self = g_object_ref (self);
  fit->context = g_main_context_ref_thread_default ();
  fit->cancellable = g_object_ref (self->fits.cancellable);
  fit->nice = MIN (getpriority (PRIO_PROCESS, 0) + FIT_NICENESS, 19);
  fit->dir = g_strdup (self->dir);
  self->fits.n_running++;
  return fit;
}

/* In the fit thread: the refit, then its hyperparameters stored in the
 * session under the participant's locks (the session is read again:
 * answers may have come in while the fit ran). */
static gboolean
refit_session (Fit *fit, const sg_progress *progress)
{
  g_autoptr (SbFitResult) result = sb_session_refit (fit->input, progress, &fit->error);
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (fit->input->path);
  gboolean ok;

  if (result == NULL)
    return FALSE;
  g_mutex_lock (&fit->live->lock);
  lock = sb_session_lock_file (fit->input->path, "skewgp serve", &fit->error);
  ok = lock != NULL && (session = sb_session_load (file, &fit->error)) != NULL
       && sb_session_store_fit (session, result, &fit->error);
  g_clear_pointer (&lock, sb_file_lock_release);
  g_mutex_unlock (&fit->live->lock);
  return ok;
}

static gboolean
refresh_population (Fit *fit, const sg_progress *progress)
{
  g_autoptr (SbStudy) study = sb_study_open (fit->dir, &fit->error);
  g_autoptr (SbPopulationCache) cache = study ? sb_population_refresh (study, TRUE, progress,
                                                                       &fit->error)
                                              : NULL;
  return cache != NULL;
}

static void start_refresh (SbServer *self);

/* On the main context: the fit is over. */
static gboolean
fit_done (gpointer data)
{
  Fit *fit = data;
  SbServer *self = fit->self;

  self->fits.n_running--;
  if (!fit->ok && !g_error_matches (fit->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("%s%s: %s", fit->code ? "participant " : "the study's population cache",
               fit->code ? fit->code : "", fit->error ? fit->error->message : "failed");
  if (fit->code != NULL)
    {
      self->fits.n_refits += fit->ok;
      g_hash_table_remove (self->fits.refitting, fit->code);
    }
  else
    {
      self->fits.n_refreshes += fit->ok;
      self->fits.refreshing = FALSE;
      /* answers that came in meanwhile asked for another */
      if (self->fits.refresh_again && self->running && fit->ok)
        start_refresh (self);
    }
  fit_free (fit);
  return G_SOURCE_REMOVE;
}

static void
fit_thread (gpointer data, gpointer user_data)
{
  Fit *fit = data;
  SbFitProgress *progress = sb_fit_progress_new (fit->cancellable, NULL, NULL);

  /* this thread's own priority (the pool's threads are its own) */
  (void) setpriority (PRIO_PROCESS, (id_t) gettid (), fit->nice);
  fit->ok = fit->code ? refit_session (fit, sb_fit_progress_get (progress))
                      : refresh_population (fit, sb_fit_progress_get (progress));
  sb_fit_progress_free (progress);
  g_main_context_invoke_full (fit->context, G_PRIORITY_DEFAULT, fit_done, fit, NULL);
}

static void
start_refresh (SbServer *self)
{
  self->fits.refresh_again = FALSE;
  self->fits.refreshing = TRUE;
  g_thread_pool_push (self->fits.pool, fit_new (self), NULL);
}

/* ---- What the server calls ---------------------------------------------------------- */

void
_sb_server_fits_start (SbServer *self)
{
  self->fits.cancellable = g_cancellable_new ();
  self->fits.refitting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->fits.pool = g_thread_pool_new (fit_thread, NULL, (int) g_get_num_processors (), TRUE,
                                       NULL);
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
    start_refresh (self);
  if (*session_input != NULL && !g_hash_table_contains (self->fits.refitting, code))
    {
      Fit *fit = fit_new (self);

      fit->code = g_strdup (code);
      fit->live = _sb_server_live (self, code);
      fit->input = g_steal_pointer (session_input);
      g_hash_table_add (self->fits.refitting, g_strdup (code));
      g_thread_pool_push (self->fits.pool, fit, NULL);
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
  g_thread_pool_free (g_steal_pointer (&self->fits.pool), FALSE, TRUE);
  g_clear_object (&self->fits.cancellable);
  g_clear_pointer (&self->fits.refitting, g_hash_table_unref);
  self->fits.refresh_again = FALSE;
}
