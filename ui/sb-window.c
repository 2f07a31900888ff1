/* sb-window.c — the main workbench window: session, worker, duel panel. */
#include "config.h"

#include "sb-window.h"

#include "sb-demos.h"
#include "sb-experiment-templates.h"
#include "sb-link-dialog.h"
#include "sb-new-experiment-dialog.h"
#include "sb-playground.h"
#include "sb-plot-view.h"
#include "sb-prior-explorer.h"
#include "sb-settings.h"

#include <math.h>

typedef enum {
  ANSWER_A,
  ANSWER_B,
  ANSWER_SKIP,
  ANSWER_VALUE,
  ANSWER_FAILED,
} AnswerKind;

typedef struct {
  AnswerKind kind;
  double value;
} PendingAnswer;

struct _SbWindow
{
  GtkApplicationWindow parent_instance;

  /* Owned */
  SbSession *session;
  SbWorker *worker;
  SbQuestion *question;        /* on screen; NULL while computing         */
  GQueue pending;              /* PendingAnswer, given while computing    */
  char *error;                 /* shown in the error bar                  */
  SbPlotSnapshot *plot;
  guint autoplay_source;
  gboolean refused;
  gboolean fit_requested;      /* by the user: report its outcome         */
  GtkRecentManager *recent;    /* borrowed singleton, signal connected    */
  guint history_len;           /* log entries the history list reflects   */
  SbPlotView *plot_view;       /* in plots_box                            */
  gboolean user_slice;         /* the user chose the 2-D slice            */
  const SbDemo *demo;          /* the guided demo shown (static), or NULL */
  GPtrArray *demo_log;         /* its full prepared log (SbLogEntry)      */
  gboolean demo_density;       /* show the demo's density when a model is */

  /* Template widgets (borrowed) */
  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkRevealer *error_revealer;
  GtkLabel *error_label;
  GtkWidget *retry_button;
  GtkStack *main_stack;
  SbDuelPanel *duel_panel;
  GtkBox *plots_box;
  GtkListBox *history_list;
  GtkLabel *refused_label;
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;
  GtkLabel *status_label;
  GMenu *recent_menu;
  GtkRevealer *demo_revealer;
  GtkLabel *demo_title_label;
  GtkLabel *demo_text_label;
  GtkLabel *demo_settings_label;
  GtkBox *demo_views_box;
  GtkWidget *demo_step_box;
  GtkLabel *demo_step_label;
};

G_DEFINE_FINAL_TYPE (SbWindow, sb_window, GTK_TYPE_APPLICATION_WINDOW)

enum {
  QUESTION_SHOWN,
  PLOT_UPDATED,
  FIT_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void request_question (SbWindow *self);
static void update_actions (SbWindow *self);
static void clear_demo (SbWindow *self);
static void update_demo (SbWindow *self);
static void demo_request_density (SbWindow *self);

/* ---- Errors and status ------------------------------------------------------ */

static void
show_error (SbWindow *self, const char *message, gboolean can_retry)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_text (self->error_label, message);
  gtk_widget_set_visible (self->retry_button, can_retry);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}

static void
clear_error (SbWindow *self)
{
  g_clear_pointer (&self->error, g_free);
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
}

static void
update_status (SbWindow *self)
{
  g_autofree char *text = NULL;
  GFile *file = self->session ? sb_session_get_file (self->session) : NULL;
  g_autofree char *path = file ? g_file_get_parse_name (file) : NULL;

  if (self->session == NULL)
    text = g_strdup ("");
  else
    text = g_strdup_printf ("%u answers · %s", sb_session_get_n_answers (self->session),
                            path ? path : "not saved");
  gtk_label_set_text (self->status_label, text);
}

static void
update_titles (SbWindow *self)
{
  const SbExperiment *exp = self->session ? sb_session_get_experiment (self->session) : NULL;
  GFile *file = self->session ? sb_session_get_file (self->session) : NULL;
  g_autofree char *base = file ? g_file_get_basename (file) : NULL;

  gtk_label_set_text (self->title_label, exp ? exp->title : "SkewBench");
  gtk_label_set_text (self->subtitle_label,
                      exp ? (base ? base : "unsaved session") : "");
  gtk_window_set_title (GTK_WINDOW (self), exp ? exp->title : "SkewBench");
}

/* ---- History -------------------------------------------------------------- */

static char *
describe_point (const SbExperiment *exp, const double *x)
{
  GString *s;

  if (exp->template_kind == SB_TEMPLATE_COLOUR)
    return sb_template_colour_describe (exp, x);
  s = g_string_new (NULL);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      g_autofree char *v = sb_format_coordinate (&exp->parameters[j], x[j]);
      g_string_append_printf (s, "%s%s %s", j ? ", " : "", exp->parameters[j].name, v);
    }
  return g_string_free (s, FALSE);
}

static char *
history_text (const SbExperiment *exp, const SbLogEntry *e, guint index)
{
  g_autofree char *text = NULL;
  g_autofree char *point = NULL;

  switch (e->kind)
    {
    case SB_LOG_DUEL:
      point = describe_point (exp, e->winner ? e->b : e->a);
      text = g_strdup_printf ("%u. %s preferred: %s", index + 1, e->winner ? "B" : "A", point);
      break;
    case SB_LOG_VALUE:
      point = describe_point (exp, e->a);
      text = g_strdup_printf ("%u. value %g at %s", index + 1, e->value, point);
      break;
    case SB_LOG_FAILED:
      point = describe_point (exp, e->a);
      text = g_strdup_printf ("%u. failed: %s", index + 1, point);
      break;
    case SB_LOG_SKIP:
    default:
      text = g_strdup_printf ("%u. skipped", index + 1);
      break;
    }
  return g_steal_pointer (&text);
}

static GtkWidget *
history_row (const SbExperiment *exp, const SbLogEntry *e, guint index)
{
  g_autofree char *text = history_text (exp, e, index);
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_end (label, 6);
  gtk_widget_set_margin_top (label, 3);
  gtk_widget_set_margin_bottom (label, 3);
  return label;
}

/* The most recent HISTORY_ROWS entries, newest first. Updated by one row
 * per answer or undo (a rebuild of hundreds of labels per answer would
 * cost the main loop tens of milliseconds). */
#define HISTORY_ROWS 200

static void
rebuild_history (SbWindow *self)
{
  const SbExperiment *exp;
  GtkWidget *child;
  guint n, first;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->history_list))))
    gtk_list_box_remove (self->history_list, child);
  self->history_len = 0;
  if (self->session == NULL)
    return;
  exp = sb_session_get_experiment (self->session);
  n = sb_session_get_n_observations (self->session);
  first = n > HISTORY_ROWS ? n - HISTORY_ROWS : 0;
  for (guint i = n; i-- > first;)
    gtk_list_box_append (self->history_list,
                         history_row (exp, sb_session_get_observation (self->session, i), i));
  self->history_len = n;
}

static void
update_history (SbWindow *self)
{
  guint n = self->session ? sb_session_get_n_observations (self->session) : 0;

  if (self->session && n == self->history_len + 1)
    {
      GtkWidget *last;
      gtk_list_box_prepend (self->history_list,
                            history_row (sb_session_get_experiment (self->session),
                                         sb_session_get_observation (self->session, n - 1), n - 1));
      if (n > HISTORY_ROWS && (last = gtk_widget_get_last_child (GTK_WIDGET (self->history_list))))
        gtk_list_box_remove (self->history_list, last);
      self->history_len = n;
    }
  else if (self->session && n + 1 == self->history_len && n + 1 <= HISTORY_ROWS)
    {
      GtkWidget *first = GTK_WIDGET (gtk_list_box_get_row_at_index (self->history_list, 0));
      if (first)
        gtk_list_box_remove (self->history_list, first);
      self->history_len = n;
    }
  else
    rebuild_history (self);
}

/* ---- Recent sessions ------------------------------------------------------- */

static void
rebuild_recent_menu (SbWindow *self)
{
  GList *items;
  guint n = 0;

  g_menu_remove_all (self->recent_menu);
  items = gtk_recent_manager_get_items (self->recent);
  for (GList *l = items; l && n < 10; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr (GMenuItem) item = NULL;

      if (!gtk_recent_info_has_group (info, "skewbench") || !gtk_recent_info_exists (info))
        continue;
      item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);
      g_menu_item_set_action_and_target (item, "win.open-recent", "s", uri);
      g_menu_append_item (self->recent_menu, item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  if (n == 0)
    {
      g_autoptr (GMenuItem) item = g_menu_item_new ("No recent sessions", "win.none");
      g_menu_append_item (self->recent_menu, item);
    }
}

static void
remember_file (SbWindow *self, GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  static const char *groups[] = { "skewbench", NULL };
  GtkRecentData data = {
    .display_name = NULL,
    .description = (char *) "SkewBench session",
    .mime_type = (char *) "application/json",
    .app_name = (char *) "SkewBench",
    .app_exec = (char *) "skewbench --session %f",
    .groups = (char **) groups,
    .is_private = FALSE,
  };

  gtk_recent_manager_add_full (self->recent, uri, &data);
}

/* ---- Plot snapshots ---------------------------------------------------------- */

static void
request_plot (SbWindow *self)
{
  SbPlotInput *input;

  if (self->question == NULL || self->question->model == NULL || self->session == NULL)
    return;
  input = sb_plot_input_new (self->question->model, self->session, self->question, 0,
                             sb_worker_get_generation (self->worker, SB_WORKER_LANE_PROPOSE));
  if (self->user_slice)
    {
      input->has_slice = sb_plot_view_get_slice (self->plot_view, &input->slice_x,
                                                 &input->slice_y, input->slice_fixed)
                         && input->slice_x != input->slice_y;
    }
  sb_worker_submit (self->worker, SB_WORKER_LANE_PLOT, sb_job_plot, input,
                    (GDestroyNotify) sb_plot_input_free,
                    (GDestroyNotify) sb_plot_snapshot_unref);
}

static void
on_slice_changed (SbPlotView *view, SbWindow *self)
{
  self->user_slice = TRUE;
  request_plot (self);
}

static void
on_point_activated (SbPlotView *view, GVariant *point, SbWindow *self)
{
  gsize n = 0;
  const double *x = g_variant_get_fixed_array (point, &n, sizeof (double));

  if (self->question == NULL || self->question->model == NULL || n != self->question->dim)
    return;
  sb_worker_submit (self->worker, SB_WORKER_LANE_DENSITY, sb_job_density,
                    sb_density_input_new (self->question->model, n, x,
                                          sb_worker_get_generation (self->worker, SB_WORKER_LANE_PROPOSE)),
                    (GDestroyNotify) sb_density_input_free,
                    (GDestroyNotify) sb_density_data_unref);
}

/* ---- Fits ---------------------------------------------------------------------- */

static void
start_fit (SbWindow *self)
{
  const SbExperiment *exp;

  if (self->session == NULL)
    return;
  exp = sb_session_get_experiment (self->session);
  if (exp->surrogate == SG_BO_SURROGATE_RANDOM)
    return;
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_progress_bar_set_text (self->progress_bar, "Fitting hyperparameters…");
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  sb_worker_submit (self->worker, SB_WORKER_LANE_FIT, sb_job_fit,
                    sb_job_input_new (self->session),
                    (GDestroyNotify) sb_job_input_free, g_free);
  update_actions (self);
}

void
sb_window_refit (SbWindow *self)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  self->fit_requested = TRUE;
  start_fit (self);
}

/* ---- Questions ------------------------------------------------------------------ */

static gboolean
budget_used (SbWindow *self)
{
  return self->session
         && sb_session_get_n_answers (self->session) >= sb_session_get_experiment (self->session)->budget;
}

static void
set_question (SbWindow *self, SbQuestion *question)
{
  g_clear_pointer (&self->question, sb_question_free);
  self->question = question;
  sb_duel_panel_set_question (self->duel_panel, question,
                              self->session ? sb_session_get_n_answers (self->session) : 0);
  update_actions (self);
}

static void
request_question (SbWindow *self)
{
  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  sb_worker_cancel (self->worker, SB_WORKER_LANE_PLOT);
  sb_worker_cancel (self->worker, SB_WORKER_LANE_DENSITY);
  set_question (self, NULL);
  if (self->session == NULL)
    return;
  sb_duel_panel_set_finished (self->duel_panel, budget_used (self));
  sb_duel_panel_set_busy (self->duel_panel, TRUE);
  sb_worker_submit (self->worker, SB_WORKER_LANE_PROPOSE, sb_job_propose,
                    sb_job_input_new (self->session),
                    (GDestroyNotify) sb_job_input_free,
                    (GDestroyNotify) sb_question_free);
  update_actions (self);
}

static gboolean apply_answer (SbWindow *self, AnswerKind kind, double value);

static gboolean
autoplay_enabled (SbWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "autoplay");
  g_autoptr (GVariant) state = action ? g_action_get_state (action) : NULL;
  return state && g_variant_get_boolean (state);
}

static gboolean
oracle_answer (SbWindow *self)
{
  const SbQuestion *q = self->question;

  if (q == NULL || !q->has_oracle)
    return FALSE;
  if (q->kind == SB_QUESTION_DUEL)
    return apply_answer (self, q->oracle_winner ? ANSWER_B : ANSWER_A, NAN);
  return apply_answer (self, q->oracle_failed ? ANSWER_FAILED : ANSWER_VALUE, q->oracle_value);
}

static gboolean
autoplay_tick (gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  self->autoplay_source = 0;
  if (autoplay_enabled (self) && !budget_used (self))
    oracle_answer (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_autoplay (SbWindow *self)
{
  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  if (self->question && self->question->has_oracle && autoplay_enabled (self)
      && !budget_used (self))
    self->autoplay_source = g_timeout_add (sb_duel_panel_get_autoplay_delay (self->duel_panel),
                                           autoplay_tick, self);
}

static void
question_ready (SbWindow *self, const SbQuestion *result)
{
  SbQuestion *q = g_memdup2 (result, sizeof *result);

  if (q->model)
    sb_model_ref (q->model);
  sb_duel_panel_set_busy (self->duel_panel, FALSE);
  set_question (self, q);
  clear_error (self);
  g_signal_emit (self, signals[QUESTION_SHOWN], 0);

  /* A demo keeps the paper's hyperparameters (a refit is still one
   * Ctrl+R away). */
  if (q->refit_due && self->demo == NULL && !sb_worker_is_busy (self->worker, SB_WORKER_LANE_FIT))
    start_fit (self);
  request_plot (self);
  demo_request_density (self);

  /* Answers given while the engine was busy apply now, in order. */
  if (!g_queue_is_empty (&self->pending))
    {
      PendingAnswer *p = g_queue_pop_head (&self->pending);
      AnswerKind kind = p->kind;
      double value = p->value;

      g_free (p);
      sb_duel_panel_set_n_queued (self->duel_panel, g_queue_get_length (&self->pending));
      apply_answer (self, kind, value);
      return;
    }
  schedule_autoplay (self);
}

/* Records an answer to the question on screen, or queues it while the
 * engine computes. Returns TRUE when the answer was taken. */
static gboolean
apply_answer (SbWindow *self, AnswerKind kind, double value)
{
  const SbQuestion *q = self->question;
  g_autoptr (GError) error = NULL;
  gboolean saved = TRUE;

  if (self->session == NULL || self->refused)
    return FALSE;
  if (budget_used (self))
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return FALSE;
    }
  if (q == NULL)
    {
      PendingAnswer *p = g_new0 (PendingAnswer, 1);
      p->kind = kind;
      p->value = value;
      g_queue_push_tail (&self->pending, p);
      sb_duel_panel_set_n_queued (self->duel_panel, g_queue_get_length (&self->pending));
      update_actions (self);
      return TRUE;
    }

  switch (kind)
    {
    case ANSWER_A:
    case ANSWER_B:
      if (q->kind != SB_QUESTION_DUEL)
        {
          gtk_widget_error_bell (GTK_WIDGET (self));
          return FALSE;
        }
      saved = sb_session_add_duel (self->session, q->a, q->b, kind == ANSWER_B, &error);
      break;
    case ANSWER_SKIP:
      saved = sb_session_add_skip (self->session, q->kind == SB_QUESTION_DUEL ? q->a : q->b,
                                   q->kind == SB_QUESTION_DUEL ? q->b : NULL, &error);
      break;
    case ANSWER_VALUE:
      if (q->kind != SB_QUESTION_VALUE)
        {
          gtk_widget_error_bell (GTK_WIDGET (self));
          return FALSE;
        }
      saved = sb_session_add_value (self->session, q->b, value, &error);
      break;
    case ANSWER_FAILED:
      if (q->kind != SB_QUESTION_VALUE
          || sb_session_get_experiment (self->session)->mode != SB_MODE_SAFE)
        {
          gtk_widget_error_bell (GTK_WIDGET (self));
          return FALSE;
        }
      saved = sb_session_add_failed (self->session, q->b, &error);
      break;
    default:
      g_return_val_if_reached (FALSE);
    }

  if (!saved)
    {
      /* An invalid answer (NaN) is not recorded at all; a failed save keeps
       * the answer in memory and says so. */
      g_autofree char *msg = g_strdup_printf ("The answer could not be saved: %s", error->message);
      show_error (self, msg, FALSE);
    }
  request_question (self);
  return TRUE;
}

/* ---- Worker signals --------------------------------------------------------- */

static void
on_job_finished (SbWorker *worker, guint lane, guint64 generation, gpointer result, SbWindow *self)
{
  switch (lane)
    {
    case SB_WORKER_LANE_PROPOSE:
      {
        const SbQuestion *q = result;
        /* The generation check already dropped stale jobs; the log length
         * guards against a session swapped under a running job. */
        if (self->session && q->n_log == sb_session_get_n_observations (self->session))
          question_ready (self, q);
        else
          request_question (self);
      }
      break;
    case SB_WORKER_LANE_FIT:
      {
        const SbFitResult *fit = result;
        g_autoptr (GError) error = NULL;
        g_autofree char *text = NULL;

        gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
        if (self->session && !sb_session_set_hyper (self->session, &fit->hyper, &error))
          show_error (self, error->message, FALSE);
        text = g_strdup_printf ("Hyperparameters refitted on %u answers: variance %.3g, "
                                "lengthscale %.3g%s (%u evaluations, %.1f s)",
                                fit->hyper.n_answers, fit->hyper.variance,
                                fit->hyper.lengthscales[0],
                                self->session && sb_session_get_experiment (self->session)->n_parameters > 1
                                ? ", …" : "", fit->n_evals, fit->seconds);
        gtk_label_set_text (self->status_label, text);
        self->fit_requested = FALSE;
        g_signal_emit (self, signals[FIT_FINISHED], 0);
        update_actions (self);
      }
      break;
    case SB_WORKER_LANE_PLOT:
      g_clear_pointer (&self->plot, sb_plot_snapshot_unref);
      self->plot = sb_plot_snapshot_ref (result);
      sb_plot_view_set_snapshot (self->plot_view, self->plot);
      g_signal_emit (self, signals[PLOT_UPDATED], 0);
      break;
    case SB_WORKER_LANE_DENSITY:
      sb_plot_view_set_density (self->plot_view, result);
      break;
    default:
      break;
    }
}

static void
on_job_failed (SbWorker *worker, guint lane, guint64 generation, const GError *error,
               SbWindow *self)
{
  gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  switch (lane)
    {
    case SB_WORKER_LANE_PROPOSE:
      sb_duel_panel_set_busy (self->duel_panel, FALSE);
      if (!cancelled)
        {
          g_autofree char *msg = g_strdup_printf ("The engine could not compute the next question: %s",
                                                  error->message);
          show_error (self, msg, TRUE);
        }
      update_actions (self);
      break;
    case SB_WORKER_LANE_FIT:
      gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
      if (cancelled)
        gtk_label_set_text (self->status_label, "Hyperparameter fit cancelled; the previous values stay.");
      else
        {
          g_autofree char *msg = g_strdup_printf ("Hyperparameter fit failed: %s", error->message);
          show_error (self, msg, FALSE);
        }
      self->fit_requested = FALSE;
      update_actions (self);
      break;
    case SB_WORKER_LANE_PLOT:
    default:
      /* Plots are optional: the duel goes on without them. */
      if (!cancelled)
        g_debug ("plot job failed: %s", error->message);
      break;
    }
}

static void
on_progress (SbWorker *worker, guint lane, guint64 generation, double fraction,
             const char *text, SbWindow *self)
{
  g_autofree char *label = NULL;

  if (lane != SB_WORKER_LANE_FIT)
    return;
  label = g_strdup_printf ("%s… %.0f %%", text && *text ? text : "Fitting", 100 * fraction);
  gtk_progress_bar_set_fraction (self->progress_bar, fraction);
  gtk_progress_bar_set_text (self->progress_bar, label);
}

/* ---- Sessions ---------------------------------------------------------------------- */

static void
on_session_changed (SbSession *session, SbWindow *self)
{
  update_history (self);
  update_status (self);
  update_demo (self);
}

/* The acknowledgement: the log with N entries is on disk (the end-to-end
 * test checks that every acknowledged answer survives a SIGKILL). */
static void
on_session_saved (SbSession *session, guint n, SbWindow *self)
{
  g_log ("SkewBench", G_LOG_LEVEL_DEBUG, "answer %u saved", n);
}

static void
on_session_save_failed (SbSession *session, const GError *error, SbWindow *self)
{
  g_autofree char *msg = g_strdup_printf ("The session could not be saved (the answers are kept "
                                          "in memory; use Save As to save them elsewhere): %s",
                                          error->message);
  show_error (self, msg, FALSE);
}

static void
drop_pending (SbWindow *self)
{
  g_queue_clear_full (&self->pending, g_free);
  sb_duel_panel_set_n_queued (self->duel_panel, 0);
}

void
sb_window_set_session (SbWindow *self, SbSession *session)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  g_return_if_fail (SB_IS_SESSION (session));

  sb_worker_cancel_all (self->worker);
  drop_pending (self);
  clear_demo (self);
  g_clear_pointer (&self->plot, sb_plot_snapshot_unref);
  if (self->session)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  g_signal_connect (session, "changed", G_CALLBACK (on_session_changed), self);
  g_signal_connect (session, "saved", G_CALLBACK (on_session_saved), self);
  g_signal_connect (session, "save-failed", G_CALLBACK (on_session_save_failed), self);
  /* Writes (with their fsync) happen on a writer thread, never blocking
   * the main loop; quitting waits for them (sb_session_flush_all). */
  sb_session_set_save_in_background (session, TRUE);
  self->refused = FALSE;
  clear_error (self);
  gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
  gtk_stack_set_visible_child_name (self->main_stack, "duel");
  sb_duel_panel_set_experiment (self->duel_panel, sb_session_get_experiment (session));
  self->user_slice = FALSE;
  sb_plot_view_set_kind (self->plot_view,
                         sb_session_get_experiment (session)->n_parameters >= 2
                         ? SB_PLOT_HEATMAP : SB_PLOT_POSTERIOR);
  if (sb_session_get_file (session))
    remember_file (self, sb_session_get_file (session));
  update_titles (self);
  rebuild_history (self);
  update_status (self);
  request_question (self);
}

SbSession *
sb_window_get_session (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->session;
}

static void
show_refused (SbWindow *self, const GError *error)
{
  sb_worker_cancel_all (self->worker);
  drop_pending (self);
  clear_demo (self);
  g_clear_pointer (&self->question, sb_question_free);
  if (self->session)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  self->refused = TRUE;
  g_free (self->error);
  self->error = g_strdup (error->message);
  gtk_label_set_text (self->refused_label, error->message);
  gtk_stack_set_visible_child_name (self->main_stack, "refused");
  update_titles (self);
  update_status (self);
  update_actions (self);
}

gboolean
sb_window_open_file (SbWindow *self, GFile *file, gboolean create_from_demo)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = NULL;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (create_from_demo && !g_file_query_exists (file, NULL))
    {
      g_autoptr (SbExperiment) demo = sb_template_colour ();
      g_autoptr (GFile) parent = g_file_get_parent (file);

      session = sb_session_new (demo);
      if (parent)
        g_file_make_directory_with_parents (parent, NULL, NULL);
      if (!sb_session_save_as (session, file, &error))
        {
          show_refused (self, error);
          return FALSE;
        }
    }
  else
    {
      session = sb_session_load (file, &error);
      if (session == NULL)
        {
          show_refused (self, error);
          return FALSE;
        }
    }
  sb_window_set_session (self, session);
  return TRUE;
}

char *
sb_window_default_session_dir (void)
{
  return sb_settings_dup_session_dir ();
}

gboolean
sb_window_start_experiment (SbWindow *self, const SbExperiment *exp)
{
  g_autofree char *dir = sb_window_default_session_dir ();
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *slug = g_ascii_strdown (exp->title ? exp->title : "experiment", -1);
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (GError) error = NULL;

  g_strcanon (slug, "abcdefghijklmnopqrstuvwxyz0123456789", '-');
  name = g_strdup_printf ("%s-%s.json", slug, stamp);
  path = g_build_filename (dir, name, NULL);
  file = g_file_new_for_path (path);
  if (g_mkdir_with_parents (dir, 0755) != 0 || !sb_session_save_as (session, file, &error))
    {
      /* Still usable, just not saved: say so loudly. */
      g_autofree char *msg = g_strdup_printf ("The new session could not be saved in %s: %s",
                                              dir, error ? error->message : g_strerror (errno));
      sb_window_set_session (self, session);
      show_error (self, msg, FALSE);
      return FALSE;
    }
  sb_window_set_session (self, session);
  return TRUE;
}

/* ---- Accessors ------------------------------------------------------------------ */

SbWorker *
sb_window_get_worker (SbWindow *self)
{
  return self->worker;
}

SbDuelPanel *
sb_window_get_duel_panel (SbWindow *self)
{
  return self->duel_panel;
}

const SbQuestion *
sb_window_get_question (SbWindow *self)
{
  return self->question;
}

gboolean
sb_window_get_computing (SbWindow *self)
{
  return sb_worker_is_busy (self->worker, SB_WORKER_LANE_PROPOSE);
}

guint
sb_window_get_n_queued (SbWindow *self)
{
  return g_queue_get_length (&self->pending);
}

const char *
sb_window_get_error (SbWindow *self)
{
  return self->error;
}

gboolean
sb_window_get_refused (SbWindow *self)
{
  return self->refused;
}

SbPlotSnapshot *
sb_window_get_plot_snapshot (SbWindow *self)
{
  return self->plot;
}

/* ---- Actions ------------------------------------------------------------------------ */

static void
set_enabled (SbWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

static void
update_actions (SbWindow *self)
{
  gboolean have = self->session != NULL && !self->refused;
  gboolean simulated = have && sb_session_get_experiment (self->session)->simulated;
  gboolean value_q = self->question && self->question->kind == SB_QUESTION_VALUE;
  gboolean can_answer = have && !budget_used (self);

  set_enabled (self, "answer-a", can_answer && !value_q);
  set_enabled (self, "answer-b", can_answer && !value_q);
  set_enabled (self, "skip", can_answer);
  set_enabled (self, "answer-value", can_answer && (self->question == NULL || value_q));
  set_enabled (self, "answer-failed", can_answer
               && sb_session_get_experiment (self->session)->mode == SB_MODE_SAFE);
  set_enabled (self, "undo", have && (sb_session_get_n_observations (self->session) > 0
                                      || !g_queue_is_empty (&self->pending)));
  set_enabled (self, "save-as", have);
  set_enabled (self, "export-csv", have);
  set_enabled (self, "refit", have && !sb_worker_is_busy (self->worker, SB_WORKER_LANE_FIT));
  /* The link diagnostic needs answered duels (it says so when there are none). */
  set_enabled (self, "link-diagnostic",
               have && sb_session_get_experiment (self->session)->mode != SB_MODE_SAFE
               && sb_session_get_n_answers (self->session) > 0);
  set_enabled (self, "cancel-fit", sb_worker_is_busy (self->worker, SB_WORKER_LANE_FIT));
  set_enabled (self, "autoplay", simulated);
  set_enabled (self, "oracle-answer", simulated && self->question && self->question->has_oracle);
  set_enabled (self, "none", FALSE);
  update_demo (self);
}

static void
answer_a_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  apply_answer (SB_WINDOW (user_data), ANSWER_A, NAN);
}

static void
answer_b_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  apply_answer (SB_WINDOW (user_data), ANSWER_B, NAN);
}

static void
skip_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  apply_answer (SB_WINDOW (user_data), ANSWER_SKIP, NAN);
}

static void
answer_value_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  double value;

  if (!sb_duel_panel_get_entered_value (self->duel_panel, &value))
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  if (apply_answer (self, ANSWER_VALUE, value))
    sb_duel_panel_clear_entered_value (self->duel_panel);
}

static void
answer_failed_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  apply_answer (SB_WINDOW (user_data), ANSWER_FAILED, NAN);
}

static void
undo_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  g_autoptr (GError) error = NULL;

  if (!g_queue_is_empty (&self->pending))
    {
      g_free (g_queue_pop_tail (&self->pending));
      sb_duel_panel_set_n_queued (self->duel_panel, g_queue_get_length (&self->pending));
      update_actions (self);
      return;
    }
  if (self->session == NULL || sb_session_get_n_observations (self->session) == 0)
    return;
  if (!sb_session_undo (self->session, &error))
    {
      g_autofree char *msg = g_strdup_printf ("Undo could not be saved: %s", error->message);
      show_error (self, msg, FALSE);
    }
  request_question (self);
}

static void
retry_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  clear_error (self);
  request_question (self);
}

static void
dismiss_error_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  clear_error (SB_WINDOW (user_data));
}

static void
refit_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  sb_window_refit (SB_WINDOW (user_data));
}

static void
cancel_fit_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  sb_worker_cancel (self->worker, SB_WORKER_LANE_FIT);
  gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
  gtk_label_set_text (self->status_label, "Hyperparameter fit cancelled; the previous values stay.");
  update_actions (self);
}

static void
autoplay_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  g_simple_action_set_state (action, state);
  if (g_variant_get_boolean (state))
    schedule_autoplay (self);
  else
    g_clear_handle_id (&self->autoplay_source, g_source_remove);
}

static void
oracle_answer_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  oracle_answer (SB_WINDOW (user_data));
}

static void
experiment_chosen (SbNewExperimentDialog *dialog, SbExperiment *exp, SbWindow *self)
{
  sb_window_start_experiment (self, exp);
}

static void
new_experiment_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "experiment-chosen", G_CALLBACK (experiment_chosen), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
link_diagnostic_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  if (self->session == NULL)
    return;
  gtk_window_present (GTK_WINDOW (sb_link_dialog_new (GTK_WINDOW (self), self->session)));
}

/* Teaching: the SkewGP prior explorer (issue 8); it needs no session. */
static void
prior_explorer_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  gtk_window_present (GTK_WINDOW (sb_prior_explorer_new (GTK_WINDOW (user_data))));
}

static GtkFileFilter *
json_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, "SkewBench sessions (*.json)");
  gtk_file_filter_add_pattern (filter, "*.json");
  return filter;
}

static void
open_response (GtkNativeDialog *native, int response, SbWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      if (file)
        sb_window_open_file (self, file, FALSE);
    }
  g_object_unref (native);
}

static void
open_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Open Session", GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                 "_Open", "_Cancel");
  g_autoptr (GtkFileFilter) filter = json_filter ();

  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  g_signal_connect (native, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
open_recent_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (p, NULL));

  sb_window_open_file (self, file, FALSE);
}

static void
save_as_response (GtkNativeDialog *native, int response, SbWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autoptr (GError) error = NULL;

      if (file && !sb_session_save_as (self->session, file, &error))
        show_error (self, error->message, FALSE);
      else if (file)
        {
          remember_file (self, file);
          update_titles (self);
          update_status (self);
        }
    }
  g_object_unref (native);
}

static void
save_as_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Save Session As", GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                 "_Save", "_Cancel");

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "session.json");
  g_signal_connect (native, "response", G_CALLBACK (save_as_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
export_response (GtkNativeDialog *native, int response, SbWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autoptr (GError) error = NULL;

      if (file && !sb_session_export_csv (self->session, file, &error))
        show_error (self, error->message, FALSE);
      else if (file)
        {
          g_autofree char *path = g_file_get_parse_name (file);
          g_autofree char *msg = g_strdup_printf ("Observations exported to %s", path);
          gtk_label_set_text (self->status_label, msg);
        }
    }
  g_object_unref (native);
}

static void
export_csv_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Export Observations", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "observations.csv");
  g_signal_connect (native, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ---- Guided demos (ui/sb-demos.h) ---------------------------------------------
 * The banner says what to look at and offers the demo's views as buttons;
 * a stepping demo replays its prepared log one answer at a time: "next"
 * appends the demo's next answer, "previous" is an undo, so every step is
 * an ordinary session state computed by the ordinary jobs. */

static gboolean
log_entry_equal (const SbLogEntry *x, const SbLogEntry *y)
{
  if (x->kind != y->kind || x->dim != y->dim || (x->b == NULL) != (y->b == NULL)
      || memcmp (x->a, y->a, x->dim * sizeof (double)) != 0
      || (x->b && memcmp (x->b, y->b, x->dim * sizeof (double)) != 0))
    return FALSE;
  if (x->kind == SB_LOG_DUEL)
    return x->winner == y->winner;
  if (x->kind == SB_LOG_VALUE)
    return x->value == y->value;
  return TRUE;
}

/* The number of leading log entries that are the demo's own: the step
 * shown. "Next" needs the whole log to be such a prefix. */
static guint
demo_prefix (SbWindow *self)
{
  guint n, i;

  if (self->demo_log == NULL || self->session == NULL)
    return 0;
  n = MIN (sb_session_get_n_observations (self->session), self->demo_log->len);
  for (i = 0; i < n; i++)
    if (!log_entry_equal (sb_session_get_observation (self->session, i),
                          g_ptr_array_index (self->demo_log, i)))
      break;
  return i;
}

static void
update_demo (SbWindow *self)
{
  guint n, prefix;
  gboolean on_track;
  g_autofree char *text = NULL;

  if (self->demo == NULL || self->session == NULL || self->demo_log == NULL)
    {
      set_enabled (self, "demo-previous", FALSE);
      set_enabled (self, "demo-next", FALSE);
      return;
    }
  n = sb_session_get_n_observations (self->session);
  prefix = demo_prefix (self);
  on_track = prefix == n;
  set_enabled (self, "demo-previous", self->demo->stepping && n > 1);
  set_enabled (self, "demo-next", self->demo->stepping && on_track && n < self->demo_log->len);
  if (!self->demo->stepping)
    return;
  if (on_track && n > 0)
    {
      g_autofree char *what = history_text (sb_session_get_experiment (self->session),
                                            sb_session_get_observation (self->session, n - 1),
                                            n - 1);
      text = g_strdup_printf ("Step %u of %u — %s", n, self->demo_log->len, what);
    }
  else if (on_track)
    text = g_strdup_printf ("Step 0 of %u", self->demo_log->len);
  else
    text = g_strdup_printf ("Your own answers after step %u of %u", prefix, self->demo_log->len);
  gtk_label_set_text (self->demo_step_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->demo_step_label), text);
}

static void
clear_demo (SbWindow *self)
{
  GtkWidget *child;

  self->demo = NULL;
  self->demo_density = FALSE;
  g_clear_pointer (&self->demo_log, g_ptr_array_unref);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->demo_views_box))))
    gtk_box_remove (self->demo_views_box, child);
  gtk_revealer_set_reveal_child (self->demo_revealer, FALSE);
  update_demo (self);
}

/* The demo's density view: the predictive density at its point, through
 * the ordinary density job as if the point had been clicked. Deferred
 * until a model exists. */
static void
demo_request_density (SbWindow *self)
{
  double x[SB_MAX_PARAMETERS] = { 0 };
  g_autoptr (GVariant) point = NULL;

  if (!self->demo_density || self->demo == NULL || self->question == NULL
      || self->question->model == NULL || self->question->dim != 1)
    return;
  x[0] = self->demo->density_x;
  point = g_variant_ref_sink (g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, x, 1,
                                                         sizeof (double)));
  g_signal_emit_by_name (self->plot_view, "point-activated", point);
}

static void
demo_show_view (SbWindow *self, const char *nick)
{
  GEnumClass *klass = g_type_class_ref (SB_TYPE_PLOT_KIND);
  GEnumValue *value = g_enum_get_value_by_nick (klass, nick);

  if (value)
    {
      sb_plot_view_set_kind (self->plot_view, value->value);
      self->demo_density = value->value == SB_PLOT_DENSITY;
      demo_request_density (self);
    }
  g_type_class_unref (klass);
}

static void
demo_add_view_buttons (SbWindow *self, const char *views)
{
  g_auto (GStrv) nicks = g_strsplit (views ? views : "", " ", -1);
  GEnumClass *klass = g_type_class_ref (SB_TYPE_PLOT_KIND);

  for (guint i = 0; nicks[i]; i++)
    {
      GEnumValue *value = g_enum_get_value_by_nick (klass, nicks[i]);
      GtkWidget *button;
      g_autofree char *label = NULL;

      if (value == NULL)
        continue;
      if (value->value == SB_PLOT_DENSITY)
        label = g_strdup_printf ("Density at x = %g", self->demo->density_x);
      else
        label = g_strdup (sb_plot_kind_title (value->value));
      button = gtk_button_new_with_label (label);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.demo-view");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", nicks[i]);
      gtk_box_append (self->demo_views_box, button);
    }
  g_type_class_unref (klass);
}

void
sb_window_show_demo (SbWindow *self, const SbDemo *demo, SbSession *session)
{
  g_auto (GStrv) views = NULL;

  g_return_if_fail (SB_IS_WINDOW (self));
  g_return_if_fail (demo != NULL && demo->session != NULL);
  g_return_if_fail (SB_IS_SESSION (session));

  sb_window_set_session (self, session);
  self->demo = demo;
  self->demo_log = sb_session_dup_observations (session);
  gtk_label_set_text (self->demo_title_label, demo->title);
  gtk_label_set_text (self->demo_text_label, demo->explanation);
  gtk_label_set_text (self->demo_settings_label, demo->settings);
  demo_add_view_buttons (self, demo->views);
  sb_plot_view_set_compare (self->plot_view, SB_POSTERIOR_LAPLACE, demo->compare);
  sb_plot_view_set_compare (self->plot_view, SB_POSTERIOR_EP, demo->compare);
  gtk_widget_set_visible (self->demo_step_box, demo->stepping);
  gtk_revealer_set_reveal_child (self->demo_revealer, TRUE);
  views = g_strsplit (demo->views ? demo->views : "", " ", 2);
  if (views[0] && *views[0])
    demo_show_view (self, views[0]);

  /* A stepping demo starts at its first answer (the paper's iteration 0):
   * the copy is rewound, and "next" replays the rest. */
  if (demo->stepping)
    {
      while (sb_session_get_n_observations (session) > 1)
        if (!sb_session_undo (session, NULL))
          break;
      request_question (self);
    }
  update_demo (self);
}

const SbDemo *
sb_window_get_demo (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->demo;
}

guint
sb_window_get_demo_step (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), 0);
  return self->demo && self->session ? sb_session_get_n_observations (self->session) : 0;
}

static gboolean
demo_append (SbSession *session, const SbLogEntry *e, GError **error)
{
  switch (e->kind)
    {
    case SB_LOG_DUEL:
      return sb_session_add_duel (session, e->a, e->b, e->winner, error);
    case SB_LOG_VALUE:
      return sb_session_add_value (session, e->a, e->value, error);
    case SB_LOG_FAILED:
      return sb_session_add_failed (session, e->a, error);
    case SB_LOG_SKIP:
    default:
      return sb_session_add_skip (session, e->a, e->b, error);
    }
}

/* One step forward (append the demo's next answer) or back (undo). */
static gboolean
demo_step (SbWindow *self, gboolean forward)
{
  g_autoptr (GError) error = NULL;
  guint n;

  if (self->demo == NULL || self->session == NULL || !self->demo->stepping)
    return FALSE;
  n = sb_session_get_n_observations (self->session);
  if (forward && (demo_prefix (self) != n || n >= self->demo_log->len))
    return FALSE;
  if (!forward && n <= 1)
    return FALSE;
  drop_pending (self);
  if (forward && !demo_append (self->session, g_ptr_array_index (self->demo_log, n), &error))
    {
      g_autofree char *msg = g_strdup_printf ("The step could not be saved: %s", error->message);
      show_error (self, msg, FALSE);
    }
  else if (!forward && !sb_session_undo (self->session, &error))
    {
      g_autofree char *msg = g_strdup_printf ("Undo could not be saved: %s", error->message);
      show_error (self, msg, FALSE);
    }
  request_question (self);
  return TRUE;
}

gboolean
sb_window_demo_go_to_step (SbWindow *self, guint step)
{
  guint n;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  if (self->demo == NULL || self->session == NULL || !self->demo->stepping
      || step < 1 || step > self->demo_log->len)
    return FALSE;
  n = sb_session_get_n_observations (self->session);
  if (step > n && demo_prefix (self) != n)
    return FALSE;
  while (sb_session_get_n_observations (self->session) != step)
    if (!demo_step (self, step > sb_session_get_n_observations (self->session)))
      return FALSE;
  return TRUE;
}

void
sb_window_demo_show_view (SbWindow *self, const char *nick)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  g_return_if_fail (nick != NULL);
  demo_show_view (self, nick);
}

static void
demo_next_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  demo_step (SB_WINDOW (user_data), TRUE);
}

static void
demo_previous_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  demo_step (SB_WINDOW (user_data), FALSE);
}

static void
demo_view_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  demo_show_view (SB_WINDOW (user_data), g_variant_get_string (p, NULL));
}

static void
demo_close_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  gtk_revealer_set_reveal_child (self->demo_revealer, FALSE);
}

/* Teaching: the classification playground, a window of its own. */
static void
playground_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbPlayground *playground = sb_playground_new (gtk_window_get_application (GTK_WINDOW (user_data)));

  gtk_window_present (GTK_WINDOW (playground));
}

static const GActionEntry win_actions[] = {
  { .name = "answer-a", .activate = answer_a_action },
  { .name = "answer-b", .activate = answer_b_action },
  { .name = "skip", .activate = skip_action },
  { .name = "answer-value", .activate = answer_value_action },
  { .name = "answer-failed", .activate = answer_failed_action },
  { .name = "undo", .activate = undo_action },
  { .name = "retry", .activate = retry_action },
  { .name = "dismiss-error", .activate = dismiss_error_action },
  { .name = "refit", .activate = refit_action },
  { .name = "cancel-fit", .activate = cancel_fit_action },
  { .name = "autoplay", .state = "false", .change_state = autoplay_change_state },
  { .name = "oracle-answer", .activate = oracle_answer_action },
  { .name = "new-experiment", .activate = new_experiment_action },
  { .name = "open", .activate = open_action },
  { .name = "open-recent", .activate = open_recent_action, .parameter_type = "s" },
  { .name = "save-as", .activate = save_as_action },
  { .name = "export-csv", .activate = export_csv_action },
  { .name = "demo-previous", .activate = demo_previous_action },
  { .name = "demo-next", .activate = demo_next_action },
  { .name = "demo-view", .activate = demo_view_action, .parameter_type = "s" },
  { .name = "demo-close", .activate = demo_close_action },
  { .name = "link-diagnostic", .activate = link_diagnostic_action },
  { .name = "playground", .activate = playground_action },
  { .name = "prior-explorer", .activate = prior_explorer_action },
  { .name = "none" },
};

/* ---- Keys ------------------------------------------------------------------------- */

/* Single-key answers (arrows and letters) must not steal typing from an
 * entry, so they are handled here, in the capture phase, only when the
 * focus is not in an editable; accelerators with modifiers go through the
 * application (gtk_application_set_accels_for_action). */
static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SbWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  const char *action = NULL;

  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  if (focus && (GTK_IS_EDITABLE (focus) || GTK_IS_TEXT (focus)))
    return FALSE;
  if (gtk_stack_get_visible_child_name (self->main_stack)
      && !g_str_equal (gtk_stack_get_visible_child_name (self->main_stack), "duel"))
    return FALSE;

  switch (keyval)
    {
    case GDK_KEY_Left: case GDK_KEY_KP_Left: case GDK_KEY_a: case GDK_KEY_A:
      action = "answer-a";
      break;
    case GDK_KEY_Right: case GDK_KEY_KP_Right: case GDK_KEY_b: case GDK_KEY_B:
      action = "answer-b";
      break;
    case GDK_KEY_s: case GDK_KEY_S:
      action = "skip";
      break;
    case GDK_KEY_f: case GDK_KEY_F:
      action = "answer-failed";
      break;
    case GDK_KEY_o: case GDK_KEY_O:
      action = "oracle-answer";
      break;
    case GDK_KEY_p: case GDK_KEY_P:
      {
        GAction *autoplay = g_action_map_lookup_action (G_ACTION_MAP (self), "autoplay");
        if (g_action_get_enabled (autoplay))
          g_action_change_state (autoplay, g_variant_new_boolean (!autoplay_enabled (self)));
        return TRUE;
      }
    default:
      return FALSE;
    }
  if (self->question && self->question->kind == SB_QUESTION_VALUE
      && (g_str_equal (action, "answer-a") || g_str_equal (action, "answer-b")))
    return FALSE;  /* arrows keep their usual meaning on value questions */
  g_action_group_activate_action (G_ACTION_GROUP (self), action, NULL);
  return TRUE;
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
sb_window_dispose (GObject *object)
{
  SbWindow *self = SB_WINDOW (object);

  g_clear_handle_id (&self->autoplay_source, g_source_remove);
  if (self->worker)
    {
      sb_worker_cancel_all (self->worker);
      g_signal_handlers_disconnect_by_data (self->worker, self);
    }
  g_clear_object (&self->worker);
  if (self->session)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  if (self->recent)
    g_signal_handlers_disconnect_by_data (self->recent, self);
  self->recent = NULL;
  g_clear_pointer (&self->question, sb_question_free);
  g_clear_pointer (&self->plot, sb_plot_snapshot_unref);
  g_queue_clear_full (&self->pending, g_free);
  g_clear_pointer (&self->demo_log, g_ptr_array_unref);
  self->demo = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_WINDOW);
  G_OBJECT_CLASS (sb_window_parent_class)->dispose (object);
}

static void
sb_window_finalize (GObject *object)
{
  SbWindow *self = SB_WINDOW (object);

  g_free (self->error);
  G_OBJECT_CLASS (sb_window_parent_class)->finalize (object);
}

static void
sb_window_class_init (SbWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_window_dispose;
  object_class->finalize = sb_window_finalize;

  signals[QUESTION_SHOWN] = g_signal_new ("question-shown", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[PLOT_UPDATED] = g_signal_new ("plot-updated", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[FIT_FINISHED] = g_signal_new ("fit-finished", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (SB_TYPE_DUEL_PANEL);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SbWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, retry_button);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, duel_panel);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, plots_box);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, history_list);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, refused_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, recent_menu);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_revealer);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_title_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_text_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_settings_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_views_box);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_step_box);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_step_label);
}

static void
sb_window_init (SbWindow *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  g_queue_init (&self->pending);

  self->worker = sb_worker_new ();
  g_signal_connect (self->worker, "job-finished", G_CALLBACK (on_job_finished), self);
  g_signal_connect (self->worker, "job-failed", G_CALLBACK (on_job_failed), self);
  g_signal_connect (self->worker, "progress", G_CALLBACK (on_progress), self);

  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions,
                                   G_N_ELEMENTS (win_actions), self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  self->plot_view = SB_PLOT_VIEW (sb_plot_view_new (SB_PLOT_HEATMAP));
  gtk_widget_set_vexpand (GTK_WIDGET (self->plot_view), TRUE);
  gtk_box_append (self->plots_box, GTK_WIDGET (self->plot_view));
  g_signal_connect (self->plot_view, "slice-changed", G_CALLBACK (on_slice_changed), self);
  g_signal_connect (self->plot_view, "point-activated", G_CALLBACK (on_point_activated), self);
  /* The plot's controls as window actions, so keys drive them too
   * (accelerators in sb-application.c): which plot, which 2-D field,
   * and the Laplace / EP overlays. */
  {
    static const char *const plot_actions[][2] = {
      { "plot-kind", "kind" }, { "plot-field", "field" },
      { "compare-laplace", "show-laplace" }, { "compare-ep", "show-ep" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (plot_actions); i++)
      {
        g_autoptr (GPropertyAction) action
          = g_property_action_new (plot_actions[i][0], self->plot_view, plot_actions[i][1]);
        g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
      }
  }

  self->recent = gtk_recent_manager_get_default ();
  g_signal_connect_swapped (self->recent, "changed", G_CALLBACK (rebuild_recent_menu), self);
  rebuild_recent_menu (self);
  update_actions (self);
}

SbWindow *
sb_window_new (GtkApplication *application)
{
  return g_object_new (SB_TYPE_WINDOW, "application", application, NULL);
}
