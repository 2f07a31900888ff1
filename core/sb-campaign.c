/* sb-campaign.c — the campaign controller (see sb-campaign.h). */
#include "config.h"

#include "sb-campaign.h"

#include "sb-ask-tell.h"
#include "sb-consistency.h"
#include "sb-file-lock.h"
#include "sb-session-history.h"
#include "sb-recommend.h"

#include <math.h>
#include <string.h>

struct _SbCampaign
{
  GObject parent_instance;

  SbSession *session;
  SbFileLock *lock;          /* the session file's write lock, when held */
  gboolean read_only;
  char *read_only_reason;
  GFileMonitor *monitor;     /* the followed file, when read-only        */
  guint reload_source;
  SbWorker *worker;
  SbCampaignState state;
  SbProposal *latest;        /* the last model result (owns its model)   */
  guint64 open_id;           /* the session's open question on screen, 0: none */
  gboolean latest_opened;    /* latest went on screen as the open question */
  gint64 asked_at;           /* monotonic time the question went on screen */
  gboolean waiting_for_disk; /* latest is ready, its answer not on disk  */
  guint computing_n_log;     /* the log length the running proposal answers */
  char *error;
  char *save_error;
  guint n_saved;
  SbPlotSnapshot *plot;
  /* The slice the plots show (the last request's; through the best point
   * until one asks for another). */
  gboolean has_slice;
  guint slice_x, slice_y;
  double slice_fixed[SB_MAX_PARAMETERS];
  gboolean auto_refit;
  gboolean needs_fit;        /* stalled until a stored fit serves the session */
  double repeat_rate;        /* share of duels that repeat a past one */
  gboolean autoplay;
  guint autoplay_delay;
  guint autoplay_source;
  /* Redo: the entry the last undo took back, valid while the log has not
   * changed since (log_changes still equals redo_at). */
  SbLogEntry *redo_entry;
  guint64 log_changes;       /* ::changed emissions of the session seen */
  guint n_edits;             /* the session's history edits seen */
  guint64 redo_at;
};

G_DEFINE_FINAL_TYPE (SbCampaign, sb_campaign, G_TYPE_OBJECT)

G_DEFINE_QUARK (sb-campaign-error-quark, sb_campaign_error)

enum {
  PROP_0,
  PROP_STATE,
  PROP_ERROR,
  PROP_SAVE_ERROR,
  PROP_N_SAVED,
  PROP_FITTING,
  PROP_AUTOPLAY,
  PROP_READ_ONLY,
  N_PROPS
};

enum {
  QUESTION_READY,
  PLOT_READY,
  DENSITY_READY,
  RECOMMENDATION_READY,
  FIT_PROGRESS,
  FIT_FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void request_question (SbCampaign *self);
static void submit_plot (SbCampaign *self);

/* ---- State ------------------------------------------------------------- */

static void
set_state (SbCampaign *self, SbCampaignState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void
set_string (SbCampaign *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_n_saved (SbCampaign *self, guint n)
{
  if (self->n_saved == n)
    return;
  self->n_saved = n;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SAVED]);
}

static gboolean
budget_used (SbCampaign *self)
{
  return sb_ask_tell_is_done (self->session);
}

/* Every log entry is on disk, or cannot be until a save works again (the
 * failure is shown; the answers stay in memory), or there is no file. */
static gboolean
log_settled (SbCampaign *self)
{
  return sb_session_get_file (self->session) == NULL || self->save_error != NULL
         || self->n_saved >= sb_session_get_n_observations (self->session);
}

/* ---- Autoplay ---------------------------------------------------------- */

static gboolean
autoplay_tick (gpointer user_data)
{
  SbCampaign *self = SB_CAMPAIGN (user_data);

  self->autoplay_source = 0;
  if (self->autoplay)
    sb_campaign_oracle_answer (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_autoplay (SbCampaign *self)
{
  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  if (self->autoplay && self->state == SB_CAMPAIGN_ASKING && self->latest->has_oracle)
    self->autoplay_source = g_timeout_add (self->autoplay_delay, autoplay_tick, self);
}

/* ---- Fits -------------------------------------------------------------- */

static void request_question (SbCampaign *self);

static void
start_fit (SbCampaign *self)
{
  if (self->session == NULL || self->read_only
      || sb_session_get_experiment (self->session)->surrogate == SG_BO_SURROGATE_RANDOM
      || sb_worker_is_busy (self->worker, SB_WORKER_LANE_FIT))
    return;
  sb_worker_submit (self->worker, SB_WORKER_LANE_FIT, sb_job_fit,
                    sb_job_input_new (self->session),
                    (GDestroyNotify) sb_job_input_free,
                    (GDestroyNotify) sb_fit_result_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FITTING]);
}

static void
fit_finished (SbCampaign *self, const SbFitResult *fit)
{
  g_autoptr (GError) error = NULL;

  if (self->session && !sb_session_store_fit (self->session, fit, &error))
    set_string (self, &self->save_error, error->message, PROP_SAVE_ERROR);
  /* A question that waited for a stored fit (a long session opened
   * without one) is asked now; otherwise the plots show the refit
   * history. */
  if (self->state == SB_CAMPAIGN_STALLED && self->needs_fit)
    request_question (self);
  else
    submit_plot (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FITTING]);
  g_signal_emit (self, signals[FIT_FINISHED], 0, fit, NULL);
}

/* ---- Questions --------------------------------------------------------- */

/* P's options and shown order become those of the open question OPEN
 * (one asked elsewhere, or a repeat of a past duel): the model, the best
 * and the plots stay the engine's. */
static void
show_open_question (SbProposal *p, const SbQuestion *open)
{
  gsize size = p->dim * sizeof (double);
  gboolean same = open->kind == p->kind && open->n_options == p->n_options;

  for (guint i = 0; same && i < open->n_options; i++)
    same = memcmp (open->options[i], p->options[i], size) == 0;
  p->kind = open->kind;
  p->n_options = open->n_options;
  memcpy (p->options, open->options, sizeof p->options);
  memcpy (p->shown_order, open->shown_order, sizeof p->shown_order);
  if (same)
    return;
  /* another question than the engine's: its duel, or its one setting B */
  memcpy (p->a, open->options[0], size);
  memcpy (p->b, open->options[open->n_options > 1 ? 1 : 0], size);
  p->prob_better = NAN;
  p->truth_a = p->truth_b = NAN;
  p->has_oracle = FALSE;
}

/* The question P goes on screen as the session's open question: the one
 * a client asked and nobody answered yet, else a new one (the engine's
 * proposal, or at the repeat rate a past duel asked again; never a
 * repeat for a simulated oracle, whose answer is the engine's pair's).
 * A question this campaign opened before is superseded by P. */
static void
open_question (SbCampaign *self, SbProposal *p)
{
  const SbQuestion *open = sb_ask_tell_current (self->session);
  g_autoptr (GError) error = NULL;
  SbQuestion q;

  if (open == NULL || open->id == self->open_id)
    {
      if (p->has_oracle || !sb_ask_tell_pick_repeat (self->session, self->repeat_rate, &q))
        sb_ask_tell_from_proposal (p, &q);
      if (sb_ask_tell_open (self->session, &q, &error) == NULL && error->domain != G_FILE_ERROR)
        g_debug ("question not opened: %s", error->message);
      else if (error != NULL)
        set_string (self, &self->save_error, error->message, PROP_SAVE_ERROR);
      open = sb_ask_tell_current (self->session);
    }
  self->open_id = open ? open->id : 0;
  if (open)
    show_open_question (p, open);
}

/* A followed session shows the question its writer asked and nobody has
 * answered yet, with the model of what is on disk; without one nothing is
 * asked (the engine's own proposal is nobody's question). */
static void
follow_open_question (SbCampaign *self, SbProposal *p)
{
  const SbQuestion *open = sb_ask_tell_current (self->session);

  self->open_id = open ? open->id : 0;
  if (open)
    show_open_question (p, open);
}

/* The latest result becomes the question on screen, the session's open
 * question. */
static void
ask (SbCampaign *self)
{
  if (!self->latest_opened)
    open_question (self, self->latest);
  self->latest_opened = TRUE;
  self->waiting_for_disk = FALSE;
  self->asked_at = g_get_monotonic_time ();
  set_state (self, SB_CAMPAIGN_ASKING);
  g_debug ("question %u shown", self->latest->n_log + 1);
  g_signal_emit (self, signals[QUESTION_READY], 0);
  schedule_autoplay (self);
}

void
sb_campaign_mark_shown (SbCampaign *self)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  if (self->state == SB_CAMPAIGN_ASKING)
    self->asked_at = g_get_monotonic_time ();
}

static void
question_computed (SbCampaign *self, const SbProposal *result)
{
  SbProposal *q = g_memdup2 (result, sizeof *result);

  if (q->model)
    sb_model_ref (q->model);
  g_clear_pointer (&self->latest, sb_proposal_free);
  self->latest = q;
  self->latest_opened = FALSE;
  set_string (self, &self->error, NULL, PROP_ERROR);
  if (self->read_only)
    follow_open_question (self, q);

  if (q->refit_due && self->auto_refit)
    start_fit (self);
  submit_plot (self);

  if (self->read_only)
    set_state (self, SB_CAMPAIGN_FOLLOWING);
  else if (sb_campaign_get_done (self))
    set_state (self, SB_CAMPAIGN_FINISHED);
  else if (log_settled (self))
    ask (self);
  else
    self->waiting_for_disk = TRUE;
}

static void
request_question (SbCampaign *self)
{
  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  sb_worker_cancel (self->worker, SB_WORKER_LANE_PLOT);
  sb_worker_cancel (self->worker, SB_WORKER_LANE_DENSITY);
  self->waiting_for_disk = FALSE;
  if (self->session == NULL)
    {
      set_state (self, SB_CAMPAIGN_EMPTY);
      return;
    }
  set_state (self, SB_CAMPAIGN_COMPUTING);
  self->computing_n_log = sb_session_get_n_observations (self->session);
  sb_worker_submit (self->worker, SB_WORKER_LANE_PROPOSE, sb_job_propose,
                    sb_job_input_new (self->session),
                    (GDestroyNotify) sb_job_input_free,
                    (GDestroyNotify) sb_proposal_free);
}

/* ---- Worker ------------------------------------------------------------ */

static void
on_job_finished (SbWorker *worker, guint lane, guint64 generation, gpointer result,
                 SbCampaign *self)
{
  switch (lane)
    {
    case SB_WORKER_LANE_PROPOSE:
      {
        const SbProposal *q = result;
        /* The generation check already dropped superseded jobs; the log
         * length guards against a log changed under a running job. */
        if (self->session && q->n_log == sb_session_get_n_observations (self->session))
          question_computed (self, q);
        else
          request_question (self);
      }
      break;
    case SB_WORKER_LANE_FIT:
      fit_finished (self, result);
      break;
    case SB_WORKER_LANE_PLOT:
      g_clear_pointer (&self->plot, sb_plot_snapshot_unref);
      self->plot = sb_plot_snapshot_ref (result);
      g_signal_emit (self, signals[PLOT_READY], 0, self->plot);
      break;
    case SB_WORKER_LANE_DENSITY:
      g_signal_emit (self, signals[DENSITY_READY], 0, result);
      break;
    case SB_WORKER_LANE_RECOMMEND:
      g_signal_emit (self, signals[RECOMMENDATION_READY], 0, result, NULL);
      break;
    default:
      break;
    }
}

static void
on_job_failed (SbWorker *worker, guint lane, guint64 generation, const GError *error,
               SbCampaign *self)
{
  gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  switch (lane)
    {
    case SB_WORKER_LANE_PROPOSE:
      if (cancelled)
        break;
      {
        g_autofree char *msg = NULL;
        /* A long session without a usable stored fit: the fit lane makes
         * one (auto-refit or not: no question can be asked without it),
         * and the question follows when it is stored. */
        self->needs_fit = g_error_matches (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT);
        if (self->needs_fit)
          {
            msg = g_strdup_printf ("Fitting the sparse model of this long session before its "
                                   "next question: %s", error->message);
            start_fit (self);
          }
        else
          msg = g_strdup_printf ("The engine could not compute the next question: %s",
                                 error->message);
        set_string (self, &self->error, msg, PROP_ERROR);
        set_state (self, SB_CAMPAIGN_STALLED);
      }
      break;
    case SB_WORKER_LANE_FIT:
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FITTING]);
      g_signal_emit (self, signals[FIT_FINISHED], 0, NULL, cancelled ? NULL : error);
      break;
    case SB_WORKER_LANE_RECOMMEND:
      if (!cancelled)
        g_signal_emit (self, signals[RECOMMENDATION_READY], 0, NULL, error);
      break;
    default:
      /* Plots are optional: the questions go on without them. */
      if (!cancelled)
        g_debug ("plot job failed: %s", error->message);
      break;
    }
}

static void
on_progress (SbWorker *worker, guint lane, guint64 generation, double fraction,
             const char *text, SbCampaign *self)
{
  if (lane == SB_WORKER_LANE_FIT)
    g_signal_emit (self, signals[FIT_PROGRESS], 0, fraction, text);
}

/* ---- Session ----------------------------------------------------------- */

/* The log changed: by an answer, an undo, or a caller that appends to the
 * session directly (a guided demo's steps). The question on screen no
 * longer fits it. */
static void
on_session_changed (SbSession *session, SbCampaign *self)
{
  guint n = sb_session_get_n_observations (session);
  gboolean computing = self->state == SB_CAMPAIGN_COMPUTING && !self->waiting_for_disk;
  /* An answer removed or restored changes the model as a new one does. */
  gboolean edited = sb_session_get_n_edits (session) != self->n_edits;

  self->log_changes++;
  self->n_edits = sb_session_get_n_edits (session);

  /* A new proposal supersedes the running one (its result is dropped).
   * A followed file changed: its open question may be another one even
   * when its answers are the same. */
  if (edited || self->read_only
      || (computing ? self->computing_n_log != n
                    : self->latest == NULL || self->latest->n_log != n
                      || self->state == SB_CAMPAIGN_STALLED))
    request_question (self);
}

/* The acknowledgement: the log with N entries is on disk (the end-to-end
 * test checks that every acknowledged answer survives a SIGKILL). */
static void
on_session_saved (SbSession *session, guint n, SbCampaign *self)
{
  g_debug ("answer %u saved", n);
  set_n_saved (self, n);
  if (n >= sb_session_get_n_observations (session))
    set_string (self, &self->save_error, NULL, PROP_SAVE_ERROR);
  if (self->waiting_for_disk && log_settled (self))
    ask (self);
}

/* ---- One writer per file ------------------------------------------------- */

static gboolean
reload_idle (gpointer user_data)
{
  SbCampaign *self = SB_CAMPAIGN (user_data);
  g_autoptr (GError) error = NULL;

  self->reload_source = 0;
  if (self->session == NULL)
    return G_SOURCE_REMOVE;
  /* The writer replaces the file atomically: a failure here is a file
   * the writer damaged or removed, not a half-written one. */
  if (sb_session_reload (self->session, &error))
    g_debug ("followed: %u answers", sb_session_get_n_answers (self->session));
  else
    {
      g_autofree char *msg = g_strdup_printf ("The followed session could not be read again: %s",
                                              error->message);
      set_string (self, &self->error, msg, PROP_ERROR);
    }
  return G_SOURCE_REMOVE;
}

static void
on_file_changed (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event,
                 SbCampaign *self)
{
  if (event == G_FILE_MONITOR_EVENT_DELETED || event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED
      || event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT || event == G_FILE_MONITOR_EVENT_UNMOUNTED)
    return;
  /* A save is several events (the temp file moved over this one, its
   * attributes): one reload a moment after the last of them. */
  g_clear_handle_id (&self->reload_source, g_source_remove);
  self->reload_source = g_timeout_add (50, reload_idle, self);
}

static void
release_file (SbCampaign *self)
{
  g_clear_handle_id (&self->reload_source, g_source_remove);
  if (self->monitor)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  g_clear_pointer (&self->lock, sb_file_lock_release);
  g_clear_pointer (&self->read_only_reason, g_free);
  if (self->read_only)
    {
      self->read_only = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READ_ONLY]);
    }
}

static void
follow_file (SbCampaign *self, GFile *file, const char *reason)
{
  g_autoptr (GError) error = NULL;

  self->read_only = TRUE;
  self->read_only_reason = g_strdup (reason);
  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->monitor)
    {
      g_signal_connect (self->monitor, "changed", G_CALLBACK (on_file_changed), self);
      g_debug ("following %s", g_file_peek_path (file));
    }
  else
    g_debug ("cannot follow %s: %s", g_file_peek_path (file), error->message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READ_ONLY]);
}

/* Takes the write lock of SESSION's file, or follows the file read-only
 * when FOLLOW or when another process holds the lock. */
static void
claim_file (SbCampaign *self, SbSession *session, gboolean follow)
{
  GFile *file = sb_session_get_file (session);
  g_autofree char *path = file ? g_file_get_path (file) : NULL;
  g_autoptr (GError) error = NULL;

  if (path == NULL)
    return;
  if (follow)
    {
      follow_file (self, file, "Following this session read-only: answers are given elsewhere "
                               "and appear here as they are saved.");
      return;
    }
  self->lock = sb_session_lock_file (path, "skewbench", &error);
  if (self->lock == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BUSY))
    {
      g_autofree char *reason = g_strdup_printf ("Read-only: %s. Answers given there appear "
                                                 "here as they are saved.", error->message);
      follow_file (self, file, reason);
    }
  else if (self->lock == NULL)
    /* E.g. a read-only folder: saving will fail visibly (save-error). */
    g_debug ("no write lock for %s: %s", path, error->message);
}

static void
run_session (SbCampaign *self, SbSession *session, gboolean follow)
{
  sb_worker_cancel_all (self->worker);
  release_file (self);
  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  if (self->session)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  g_clear_pointer (&self->redo_entry, sb_log_entry_free);
  g_clear_pointer (&self->latest, sb_proposal_free);
  self->open_id = 0;
  g_clear_pointer (&self->plot, sb_plot_snapshot_unref);
  self->n_edits = session ? sb_session_get_n_edits (session) : 0;
  self->has_slice = FALSE;
  set_string (self, &self->error, NULL, PROP_ERROR);
  set_string (self, &self->save_error, NULL, PROP_SAVE_ERROR);
  set_n_saved (self, session && sb_session_get_file (session)
                     ? sb_session_get_n_observations (session) : 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FITTING]);
  if (session)
    {
      claim_file (self, session, follow);
      g_signal_connect (session, "changed", G_CALLBACK (on_session_changed), self);
      g_signal_connect (session, "saved", G_CALLBACK (on_session_saved), self);
      /* An answer is on disk (written, fsynced, renamed into place)
       * before sb_campaign_answer returns: a crash or SIGKILL after a
       * key press loses no answer the campaign took. The write costs the
       * main loop a few milliseconds while the engine computes anyway. */
      self->plot = sb_plot_snapshot_new_for_session (session);
      g_signal_emit (self, signals[PLOT_READY], 0, self->plot);
    }
  request_question (self);
}

void
sb_campaign_set_session (SbCampaign *self, SbSession *session)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  g_return_if_fail (session == NULL || SB_IS_SESSION (session));
  run_session (self, session, FALSE);
}

void
sb_campaign_follow (SbCampaign *self, SbSession *session)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  g_return_if_fail (SB_IS_SESSION (session) && sb_session_get_file (session) != NULL);
  run_session (self, session, TRUE);
}

gboolean
sb_campaign_get_read_only (SbCampaign *self, const char **reason)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (reason)
    *reason = self->read_only_reason;
  return self->read_only;
}

SbSession *
sb_campaign_get_session (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->session;
}

SbWorker *
sb_campaign_get_worker (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->worker;
}

SbCampaignState
sb_campaign_get_state (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), SB_CAMPAIGN_EMPTY);
  return self->state;
}

const SbProposal *
sb_campaign_get_question (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->state == SB_CAMPAIGN_ASKING ? self->latest : NULL;
}

const SbProposal *
sb_campaign_get_followed_question (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->state == SB_CAMPAIGN_FOLLOWING && self->open_id != 0 ? self->latest : NULL;
}

gboolean
sb_campaign_get_done (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  return self->session != NULL
         && (budget_used (self) || (self->latest != NULL && self->latest->safe_exhausted));
}

const SbProposal *
sb_campaign_get_latest (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->latest;
}

gboolean
sb_campaign_get_best (SbCampaign *self, double *x)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->latest == NULL || !self->latest->has_best)
    return FALSE;
  if (x)
    memcpy (x, self->latest->best, self->latest->dim * sizeof (double));
  return TRUE;
}

/* ---- Answers ----------------------------------------------------------- */

static gboolean
refuse (GError **error, SbCampaignError code, const char *message)
{
  g_set_error_literal (error, SB_CAMPAIGN_ERROR, code, message);
  return FALSE;
}

/* Records ANSWER to the open question on screen through the protocol;
 * its refusals of the answer's kind read as the campaign's. */
static gboolean
record (SbCampaign *self, const SbAnswer *answer, GError **error)
{
  g_autoptr (GError) local = NULL;
  SbAnswer a = *answer;

  a.question = self->open_id;
  if (!a.has_response_time)
    {
      a.has_response_time = TRUE;
      a.response_time = (g_get_monotonic_time () - self->asked_at) / (double) G_USEC_PER_SEC;
    }
  if (self->latest->kind == SB_QUESTION_DUEL && a.n_shown == 0)
    {
      a.n_shown = 2;
      a.shown_order[0] = 0;
      a.shown_order[1] = 1;
    }
  if (sb_ask_tell_tell (self->session, &a, &local))
    return TRUE;
  if (g_error_matches (local, SB_QUESTION_ERROR, SB_QUESTION_ERROR_INVALID)
      || g_error_matches (local, SB_QUESTION_ERROR, SB_QUESTION_ERROR_UNSUPPORTED))
    return refuse (error, SB_CAMPAIGN_ERROR_WRONG_KIND, local->message);
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

gboolean
sb_campaign_answer_duel (SbCampaign *self, guint side, GError **error)
{
  SbAnswer answer = { .kind = SB_ANSWER_CHOSEN, .chosen = side };

  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->state == SB_CAMPAIGN_ASKING && self->latest->kind != SB_QUESTION_DUEL)
    return refuse (error, SB_CAMPAIGN_ERROR_WRONG_KIND, "this question is not a duel: A or B "
                   "answers none of its options");
  return sb_campaign_answer (self, &answer, error);
}

gboolean
sb_campaign_answer_kind (SbCampaign *self, SbAnswerKind kind, double value, GError **error)
{
  SbAnswer answer = { .kind = kind, .value = value };

  return sb_campaign_answer (self, &answer, error);
}

/* ANSWER in the debug log: a duel's side (a, b) or the kind of answer. */
static const char *
answer_label (const SbProposal *q, const SbAnswer *answer)
{
  if (q->kind == SB_QUESTION_DUEL && answer->kind == SB_ANSWER_CHOSEN)
    return answer->chosen == 0 ? "a" : "b";
  return sb_answer_kind_to_string (answer->kind);
}

gboolean
sb_campaign_answer (SbCampaign *self, const SbAnswer *answer, GError **error)
{
  guint n_before;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  g_return_val_if_fail (answer != NULL, FALSE);

  if (self->read_only)
    return refuse (error, SB_CAMPAIGN_ERROR_READ_ONLY, self->read_only_reason);
  if (self->state == SB_CAMPAIGN_FINISHED)
    return refuse (error, SB_CAMPAIGN_ERROR_FINISHED,
                   budget_used (self) ? "all questions of the budget are answered"
                                      : "no setting left is safe enough to ask");
  if (self->state != SB_CAMPAIGN_ASKING)
    return refuse (error, SB_CAMPAIGN_ERROR_NOT_READY, "the next question is not on screen yet");

  n_before = sb_session_get_n_observations (self->session);
  if (record (self, answer, &local))
    {
      g_debug ("answer %u taken (%s)", n_before + 1, answer_label (self->latest, answer));
      return TRUE;
    }
  if (sb_session_get_n_observations (self->session) == n_before)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* Recorded in memory, not on disk: say so until a save works. */
  set_string (self, &self->save_error, local->message, PROP_SAVE_ERROR);
  return TRUE;
}

gboolean
sb_campaign_undo (SbCampaign *self, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (SbLogEntry) last = NULL;
  guint n;

  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->read_only)
    return refuse (error, SB_CAMPAIGN_ERROR_READ_ONLY, self->read_only_reason);
  if (self->session == NULL || (n = sb_session_get_n_observations (self->session)) == 0)
    return refuse (error, SB_CAMPAIGN_ERROR_NOT_READY, "there is no answer to take back");
  last = sb_log_entry_copy (sb_session_get_observation (self->session, n - 1));
  if (!sb_session_undo (self->session, &local)
      && sb_session_get_n_observations (self->session) == n)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  g_clear_pointer (&self->redo_entry, sb_log_entry_free);
  self->redo_entry = g_steal_pointer (&last);
  self->redo_at = self->log_changes;
  if (local)
    set_string (self, &self->save_error, local->message, PROP_SAVE_ERROR);
  return TRUE;
}

gboolean
sb_campaign_can_redo (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  return self->redo_entry != NULL && self->redo_at == self->log_changes && !self->read_only;
}

gboolean
sb_campaign_redo (SbCampaign *self, GError **error)
{
  g_autoptr (SbLogEntry) entry = NULL;
  g_autoptr (GError) local = NULL;
  guint n_before;

  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->read_only)
    return refuse (error, SB_CAMPAIGN_ERROR_READ_ONLY, self->read_only_reason);
  if (!sb_campaign_can_redo (self))
    return refuse (error, SB_CAMPAIGN_ERROR_NOT_READY,
                   "there is no answer to restore: the answers changed since the undo");
  if (self->state != SB_CAMPAIGN_ASKING)
    return refuse (error, SB_CAMPAIGN_ERROR_NOT_READY, "the next question is not on screen yet");

  entry = g_steal_pointer (&self->redo_entry);
  n_before = sb_session_get_n_observations (self->session);
  entry->time = 0;  /* stamped now: the time of the redo */
  if (sb_session_add_entry (self->session, entry, &local))
    {
      g_debug ("answer %u restored (%s)", n_before + 1, sb_log_kind_to_string (entry->kind));
      return TRUE;
    }
  if (sb_session_get_n_observations (self->session) == n_before)
    {
      self->redo_entry = g_steal_pointer (&entry);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  set_string (self, &self->save_error, local->message, PROP_SAVE_ERROR);
  return TRUE;
}

gboolean
sb_campaign_extend_budget (SbCampaign *self, guint more, GError **error)
{
  const SbExperiment *exp;

  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->session == NULL)
    return refuse (error, SB_CAMPAIGN_ERROR_NOT_READY, "there is no experiment to continue");
  if (self->read_only)
    return refuse (error, SB_CAMPAIGN_ERROR_READ_ONLY, self->read_only_reason);
  exp = sb_session_get_experiment (self->session);
  if (!sb_session_set_budget (self->session, exp->budget + more, error))
    return FALSE;
  if (self->state == SB_CAMPAIGN_FINISHED && !budget_used (self))
    {
      if (log_settled (self))
        ask (self);
      else
        {
          set_state (self, SB_CAMPAIGN_COMPUTING);
          self->waiting_for_disk = TRUE;
        }
    }
  return TRUE;
}

void
sb_campaign_retry (SbCampaign *self)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  set_string (self, &self->error, NULL, PROP_ERROR);
  request_question (self);
}

const char *
sb_campaign_get_error (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->error;
}

guint
sb_campaign_get_n_saved (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), 0);
  return self->n_saved;
}

const char *
sb_campaign_get_save_error (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->save_error;
}

/* ---- Fits, oracle, autoplay -------------------------------------------- */

void
sb_campaign_set_repeat_rate (SbCampaign *self, double rate)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  self->repeat_rate = CLAMP (rate, 0.0, 0.5);
}

void
sb_campaign_set_auto_refit (SbCampaign *self, gboolean auto_refit)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  self->auto_refit = !!auto_refit;
}

void
sb_campaign_refit (SbCampaign *self)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  start_fit (self);
}

void
sb_campaign_cancel_fit (SbCampaign *self)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  sb_worker_cancel (self->worker, SB_WORKER_LANE_FIT);
}

gboolean
sb_campaign_get_fitting (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  return sb_worker_is_busy (self->worker, SB_WORKER_LANE_FIT);
}

gboolean
sb_campaign_oracle_answer (SbCampaign *self)
{
  const SbProposal *q;

  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  q = sb_campaign_get_question (self);
  if (q == NULL || !q->has_oracle)
    return FALSE;
  if (q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING)
    {
      SbAnswer answer = { .kind = q->kind == SB_QUESTION_CHOICE ? SB_ANSWER_CHOSEN
                                                                : SB_ANSWER_RANKING,
                          .chosen = (guint) q->oracle_winner };
      memcpy (answer.ranking, q->oracle_ranking, sizeof answer.ranking);
      return sb_campaign_answer (self, &answer, NULL);
    }
  if (q->kind == SB_QUESTION_DUEL)
    return sb_campaign_answer_duel (self, (guint) q->oracle_winner, NULL);
  return sb_campaign_answer_kind (self, q->oracle_failed ? SB_ANSWER_FAILED : SB_ANSWER_VALUE,
                                  q->oracle_value, NULL);
}

void
sb_campaign_set_autoplay (SbCampaign *self, gboolean autoplay)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  autoplay = !!autoplay;
  if (self->autoplay == autoplay)
    return;
  self->autoplay = autoplay;
  if (autoplay)
    schedule_autoplay (self);
  else
    g_clear_handle_id (&self->autoplay_source, g_source_remove);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTOPLAY]);
}

gboolean
sb_campaign_get_autoplay (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  return self->autoplay;
}

void
sb_campaign_set_autoplay_delay (SbCampaign *self, guint delay_ms)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  self->autoplay_delay = delay_ms;
}

/* ---- Plots ------------------------------------------------------------- */

void
sb_campaign_request_plot (SbCampaign *self, gboolean has_slice, guint slice_x, guint slice_y,
                          const double *fixed)
{
  g_return_if_fail (SB_IS_CAMPAIGN (self));
  self->has_slice = has_slice && slice_x != slice_y && fixed != NULL
                    && slice_x < SB_MAX_PARAMETERS && slice_y < SB_MAX_PARAMETERS;
  if (self->has_slice)
    {
      self->slice_x = slice_x;
      self->slice_y = slice_y;
      memcpy (self->slice_fixed, fixed, sizeof self->slice_fixed);
    }
  submit_plot (self);
}

/* A plot job for the latest model on the slice last asked for. */
static void
submit_plot (SbCampaign *self)
{
  SbPlotInput *input;

  if (self->session == NULL || self->latest == NULL || self->latest->model == NULL)
    return;
  input = sb_plot_input_new (self->latest->model, self->session, self->latest, 0,
                             sb_worker_get_generation (self->worker, SB_WORKER_LANE_PROPOSE));
  /* A finished campaign asks nothing more, and a followed one shows only
   * the question its writer asked: no next-question markers otherwise. */
  input->show_next = !budget_used (self) && (!self->read_only || self->open_id != 0);
  input->has_slice = self->has_slice;
  input->slice_x = self->slice_x;
  input->slice_y = self->slice_y;
  memcpy (input->slice_fixed, self->slice_fixed, sizeof input->slice_fixed);
  sb_worker_submit (self->worker, SB_WORKER_LANE_PLOT, sb_job_plot, input,
                    (GDestroyNotify) sb_plot_input_free,
                    (GDestroyNotify) sb_plot_snapshot_unref);
}

SbPlotSnapshot *
sb_campaign_get_plot (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), NULL);
  return self->plot;
}

gboolean
sb_campaign_request_density (SbCampaign *self, guint dim, const double *x)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->latest == NULL || self->latest->model == NULL || dim != self->latest->dim)
    return FALSE;
  sb_worker_submit (self->worker, SB_WORKER_LANE_DENSITY, sb_job_density,
                    sb_density_input_new (self->latest->model, dim, x,
                                          sb_worker_get_generation (self->worker,
                                                                    SB_WORKER_LANE_PROPOSE)),
                    (GDestroyNotify) sb_density_input_free,
                    (GDestroyNotify) sb_density_data_unref);
  return TRUE;
}

gboolean
sb_campaign_request_recommendation (SbCampaign *self)
{
  g_return_val_if_fail (SB_IS_CAMPAIGN (self), FALSE);
  if (self->session == NULL)
    return FALSE;
  sb_worker_submit (self->worker, SB_WORKER_LANE_RECOMMEND, sb_job_recommend,
                    sb_job_input_new (self->session), (GDestroyNotify) sb_job_input_free, g_free);
  return TRUE;
}

/* ---- GObject ----------------------------------------------------------- */

static void
sb_campaign_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SbCampaign *self = SB_CAMPAIGN (object);

  switch (prop_id)
    {
    case PROP_STATE: g_value_set_int (value, self->state); break;
    case PROP_ERROR: g_value_set_string (value, self->error); break;
    case PROP_SAVE_ERROR: g_value_set_string (value, self->save_error); break;
    case PROP_N_SAVED: g_value_set_uint (value, self->n_saved); break;
    case PROP_FITTING: g_value_set_boolean (value, sb_campaign_get_fitting (self)); break;
    case PROP_AUTOPLAY: g_value_set_boolean (value, self->autoplay); break;
    case PROP_READ_ONLY: g_value_set_boolean (value, self->read_only); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_campaign_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SbCampaign *self = SB_CAMPAIGN (object);

  switch (prop_id)
    {
    case PROP_AUTOPLAY: sb_campaign_set_autoplay (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_campaign_dispose (GObject *object)
{
  SbCampaign *self = SB_CAMPAIGN (object);

  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  if (self->worker)
    {
      sb_worker_cancel_all (self->worker);
      g_signal_handlers_disconnect_by_data (self->worker, self);
    }
  g_clear_object (&self->worker);
  release_file (self);
  if (self->session)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_pointer (&self->latest, sb_proposal_free);
  g_clear_pointer (&self->plot, sb_plot_snapshot_unref);
  G_OBJECT_CLASS (sb_campaign_parent_class)->dispose (object);
}

static void
sb_campaign_finalize (GObject *object)
{
  SbCampaign *self = SB_CAMPAIGN (object);

  g_free (self->error);
  g_free (self->save_error);
  g_clear_pointer (&self->redo_entry, sb_log_entry_free);
  G_OBJECT_CLASS (sb_campaign_parent_class)->finalize (object);
}

static void
sb_campaign_class_init (SbCampaignClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = sb_campaign_get_property;
  object_class->set_property = sb_campaign_set_property;
  object_class->dispose = sb_campaign_dispose;
  object_class->finalize = sb_campaign_finalize;

  properties[PROP_STATE] = g_param_spec_int ("state", NULL, NULL, SB_CAMPAIGN_EMPTY,
                                             SB_CAMPAIGN_FOLLOWING, SB_CAMPAIGN_EMPTY, ro);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, ro);
  properties[PROP_SAVE_ERROR] = g_param_spec_string ("save-error", NULL, NULL, NULL, ro);
  properties[PROP_N_SAVED] = g_param_spec_uint ("n-saved", NULL, NULL, 0, G_MAXUINT, 0, ro);
  properties[PROP_FITTING] = g_param_spec_boolean ("fitting", NULL, NULL, FALSE, ro);
  properties[PROP_READ_ONLY] = g_param_spec_boolean ("read-only", NULL, NULL, FALSE, ro);
  properties[PROP_AUTOPLAY] = g_param_spec_boolean ("autoplay", NULL, NULL, FALSE,
                                                    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
                                                    | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[QUESTION_READY] = g_signal_new ("question-ready", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[PLOT_READY] = g_signal_new ("plot-ready", G_TYPE_FROM_CLASS (klass),
                                      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                      G_TYPE_POINTER);
  signals[DENSITY_READY] = g_signal_new ("density-ready", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                         G_TYPE_POINTER);
  signals[RECOMMENDATION_READY] = g_signal_new ("recommendation-ready", G_TYPE_FROM_CLASS (klass),
                                                G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_POINTER);
  signals[FIT_PROGRESS] = g_signal_new ("fit-progress", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                        G_TYPE_DOUBLE, G_TYPE_STRING);
  signals[FIT_FINISHED] = g_signal_new ("fit-finished", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                        G_TYPE_POINTER, G_TYPE_POINTER);
}

static void
sb_campaign_init (SbCampaign *self)
{
  self->auto_refit = TRUE;
  self->autoplay_delay = 500;
  self->worker = sb_worker_new ();
  g_signal_connect (self->worker, "job-finished", G_CALLBACK (on_job_finished), self);
  g_signal_connect (self->worker, "job-failed", G_CALLBACK (on_job_failed), self);
  g_signal_connect (self->worker, "progress", G_CALLBACK (on_progress), self);
}

SbCampaign *
sb_campaign_new (void)
{
  return g_object_new (SB_TYPE_CAMPAIGN, NULL);
}
