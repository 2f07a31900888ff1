/* sb-window.c — the main workbench window: the campaign's question panel,
 * plots, answer history and session files. The flow itself (questions,
 * answers, saving, refits, autoplay) is the campaign's (core/sb-campaign.h);
 * actions and keys are in sb-window-actions.c, the guided demo player in
 * sb-window-demo.c. */
#include "config.h"

#include "sb-window-private.h"
#include "sb-setting.h"

#include "sb-experiment-templates.h"
#include "sb-settings.h"
#include "sb-stimulus-renderer.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

G_DEFINE_FINAL_TYPE (SbWindow, sb_window, GTK_TYPE_APPLICATION_WINDOW)

enum {
  QUESTION_SHOWN,
  PLOT_UPDATED,
  FIT_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- Errors and status ------------------------------------------------------ */

void
_sb_window_show_error (SbWindow *self, const char *message, gboolean can_retry)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_text (self->error_label, message);
  gtk_widget_set_visible (self->retry_button, can_retry);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}

void
_sb_window_clear_error (SbWindow *self)
{
  g_clear_pointer (&self->error, g_free);
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
}

/* What the error bar shows: the engine's error, else a save failure (it
 * stays until a save works), else nothing. */
static void
show_campaign_errors (SbWindow *self)
{
  const char *engine = sb_campaign_get_error (self->campaign);
  const char *save = sb_campaign_get_save_error (self->campaign);

  if (self->refused)
    return;
  if (engine)
    _sb_window_show_error (self, engine, TRUE);
  else if (save)
    {
      g_autofree char *msg = g_strdup_printf ("The session could not be saved (the answers are kept "
                                              "in memory; use Save As to save them elsewhere): %s",
                                              save);
      _sb_window_show_error (self, msg, FALSE);
    }
  else
    _sb_window_clear_error (self);
}

void
_sb_window_update_status (SbWindow *self)
{
  SbSession *session = sb_campaign_get_session (self->campaign);
  GFile *file = session ? sb_session_get_file (session) : NULL;
  g_autofree char *path = file ? g_file_get_parse_name (file) : NULL;
  g_autofree char *text = NULL;
  guint n, saved, answers;

  if (session == NULL)
    {
      gtk_label_set_text (self->status_label, "");
      return;
    }
  n = sb_session_get_n_observations (session);
  saved = sb_campaign_get_n_saved (self->campaign);
  answers = sb_session_get_n_answers (session);
  if (path && saved < n && sb_campaign_get_save_error (self->campaign))
    text = g_strdup_printf (ngettext ("%u answer · %u on disk, %u not saved · %s",
                                      "%u answers · %u on disk, %u not saved · %s", answers),
                            answers, saved, n - saved, path);
  else
    text = g_strdup_printf (ngettext ("%u answer · %s", "%u answers · %s", answers), answers,
                            path ? path : "not saved");
  gtk_label_set_text (self->status_label, text);
}

void
_sb_window_update_titles (SbWindow *self)
{
  SbSession *session = sb_campaign_get_session (self->campaign);
  const SbExperiment *exp = session ? sb_session_get_experiment (session) : NULL;
  GFile *file = session ? sb_session_get_file (session) : NULL;
  g_autofree char *base = file ? g_file_get_basename (file) : NULL;

  gtk_label_set_text (self->title_label, exp ? exp->title : "SkewBench");
  g_autofree char *subtitle = g_strdup_printf ("%s%s", base ? base : "unsaved session",
                                               sb_campaign_get_read_only (self->campaign, NULL)
                                               ? " (read-only)" : "");

  gtk_label_set_text (self->subtitle_label, exp ? subtitle : "");
  gtk_window_set_title (GTK_WINDOW (self), exp ? exp->title : "SkewBench");
}

/* ---- History -------------------------------------------------------------- */


char *
sb_window_describe_entry (const SbExperiment *exp, const SbLogEntry *e, guint index)
{
  g_autofree char *text = NULL;
  /* Choices and rankings keep their options apart (sb_log_entry_option). */
  g_autofree char *a = e->a ? sb_experiment_describe_setting (exp, e->a) : NULL;
  g_autofree char *b = e->b ? sb_experiment_describe_setting (exp, e->b) : NULL;

  switch (e->kind)
    {
    case SB_LOG_DUEL:
      text = g_strdup_printf ("%u. %s preferred: %s over %s", index + 1, e->winner ? "B" : "A",
                              e->winner ? b : a, e->winner ? a : b);
      break;
    case SB_LOG_VALUE:
      text = g_strdup_printf ("%u. value %g at %s", index + 1, e->value, a);
      break;
    case SB_LOG_FAILED:
      text = g_strdup_printf ("%u. failed: %s", index + 1, a);
      break;
    case SB_LOG_TIE:
      text = g_strdup_printf ("%u. about the same: %s and %s", index + 1, a, b ? b : "");
      break;
    case SB_LOG_RANKING:
      {
        g_autoptr (GString) order = g_string_new (NULL);
        g_autofree char *best = sb_experiment_describe_setting (exp, sb_log_entry_option (e, e->ranking[0]));
        for (guint i = 0; i < e->n_options; i++)
          g_string_append_printf (order, "%s%c", i ? " > " : "", 'A' + e->ranking[i]);
        text = g_strdup_printf ("%u. ranked %s: best %s", index + 1, order->str, best);
      }
      break;
    case SB_LOG_CHOICE:
      {
        g_autofree char *best = sb_experiment_describe_setting (exp, sb_log_entry_option (e, sb_log_entry_best_option (e)));
        text = g_strdup_printf ("%u. %c best of %u: %s", index + 1,
                                'A' + sb_log_entry_best_option (e), e->n_options, best);
      }
      break;
    case SB_LOG_SKIP:
    default:
      /* A skipped duel names both settings; a skipped value question
       * logs its setting twice. */
      if (b && memcmp (e->a, e->b, e->dim * sizeof (double)) != 0)
        text = g_strdup_printf ("%u. skipped: A %s, B %s", index + 1, a, b);
      else
        text = g_strdup_printf ("%u. skipped: %s", index + 1, a);
      break;
    }
  return g_steal_pointer (&text);
}

/* The most recent HISTORY_ROWS entries, newest first. Updated by one row
 * per answer or undo (a rebuild of hundreds of labels per answer would
 * cost the main loop tens of milliseconds). */
#define HISTORY_ROWS 200

static void
rebuild_history (SbWindow *self)
{
  SbSession *session = sb_campaign_get_session (self->campaign);
  const SbExperiment *exp;
  GtkWidget *child;
  guint n, first;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->history_list))))
    gtk_list_box_remove (self->history_list, child);
  self->history_len = 0;
  self->history_edits = session ? sb_session_get_n_edits (session) : 0;
  if (session == NULL)
    return;
  exp = sb_session_get_experiment (session);
  n = sb_session_get_n_observations (session);
  first = n > HISTORY_ROWS ? n - HISTORY_ROWS : 0;
  for (guint i = n; i-- > first;)
    gtk_list_box_append (self->history_list,
                         _sb_window_history_row (self, exp, sb_session_get_observation (session, i), i));
  self->history_len = n;
}

static void
update_history (SbWindow *self)
{
  SbSession *session = sb_campaign_get_session (self->campaign);
  guint n = session ? sb_session_get_n_observations (session) : 0;

  if (session && n == self->history_len + 1)
    {
      GtkWidget *last;
      gtk_list_box_prepend (self->history_list,
                            _sb_window_history_row (self, sb_session_get_experiment (session),
                                                    sb_session_get_observation (session, n - 1),
                                                   n - 1));
      if (n > HISTORY_ROWS && (last = gtk_widget_get_last_child (GTK_WIDGET (self->history_list))))
        gtk_list_box_remove (self->history_list, last);
      self->history_len = n;
    }
  else if (session && n + 1 == self->history_len && n + 1 <= HISTORY_ROWS)
    {
      GtkWidget *first = GTK_WIDGET (gtk_list_box_get_row_at_index (self->history_list, 0));
      if (first)
        gtk_list_box_remove (self->history_list, first);
      self->history_len = n;
    }
  else if (session && n == self->history_len)
    _sb_window_history_sync_edits (self);  /* an answer removed, restored or annotated */
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

void
_sb_window_remember_file (SbWindow *self, GFile *file)
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

/* ---- Plots ---------------------------------------------------------------------- */

void
_sb_window_request_plot (SbWindow *self)
{
  double fixed[SB_MAX_PARAMETERS];
  guint sx = 0, sy = 0;
  gboolean has_slice = self->user_slice
                       && sb_plot_view_get_slice (self->plot_view, &sx, &sy, fixed);

  sb_campaign_request_plot (self->campaign, has_slice, sx, sy, fixed);
}

static void
on_slice_changed (SbPlotView *view, SbWindow *self)
{
  self->user_slice = TRUE;
  _sb_window_request_plot (self);
}

static void
on_point_activated (SbPlotView *view, GVariant *point, SbWindow *self)
{
  gsize n = 0;
  const double *x = g_variant_get_fixed_array (point, &n, sizeof (double));

  sb_campaign_request_density (self->campaign, n, x);
}

/* ---- The campaign ------------------------------------------------------------- */

static void
on_question_ready (SbCampaign *campaign, SbWindow *self)
{
  SbSession *session = sb_campaign_get_session (campaign);

  sb_duel_panel_set_busy (self->duel_panel, FALSE);
  sb_duel_panel_set_question (self->duel_panel, sb_campaign_get_question (campaign),
                              sb_session_get_n_answers (session));
  _sb_window_update_actions (self);
  g_signal_emit (self, signals[QUESTION_SHOWN], 0);
  _sb_window_demo_request_density (self);
}

/* The panel follows the campaign's state: no question (and no answer
 * taken) while it computes, the result once it is finished. A followed
 * file shows its writer's open question (read-only) and is finished as
 * the writer's session is. */
static void
on_state_changed (SbCampaign *campaign, GParamSpec *pspec, SbWindow *self)
{
  SbCampaignState state = sb_campaign_get_state (campaign);
  SbSession *session = sb_campaign_get_session (campaign);
  gboolean following = state == SB_CAMPAIGN_FOLLOWING;
  gboolean finished = state == SB_CAMPAIGN_FINISHED
                      || (following && sb_campaign_get_done (campaign));

  if (state != SB_CAMPAIGN_ASKING)
    sb_duel_panel_set_question (self->duel_panel,
                                following ? sb_campaign_get_followed_question (campaign) : NULL,
                                session ? sb_session_get_n_answers (session) : 0);
  sb_duel_panel_set_busy (self->duel_panel, state == SB_CAMPAIGN_COMPUTING);
  {
    /* safe mode may finish before the budget: the panel says why */
    const SbProposal *latest = sb_campaign_get_latest (campaign);
    g_autofree char *why = finished && latest && latest->safe_exhausted
                             ? sb_proposal_safe_statement (sb_session_get_experiment (session),
                                                           latest)
                             : NULL;
    sb_duel_panel_set_finished_reason (self->duel_panel, why);
  }
  sb_duel_panel_set_finished (self->duel_panel, finished);
  /* "Best found" comes with the model's mean and credible interval there;
   * a followed file shows the recommendation `skewgp status` reports. */
  if (finished || following)
    _sb_window_request_recommendation (self);
  show_campaign_errors (self);
  _sb_window_update_actions (self);
}

static void
on_read_only_changed (SbCampaign *campaign, GParamSpec *pspec, SbWindow *self)
{
  const char *reason = NULL;

  sb_campaign_get_read_only (campaign, &reason);
  sb_duel_panel_set_read_only (self->duel_panel, reason);
  _sb_window_update_titles (self);
  _sb_window_update_actions (self);
}

static void
on_errors_changed (SbCampaign *campaign, GParamSpec *pspec, SbWindow *self)
{
  show_campaign_errors (self);
  _sb_window_update_status (self);
}

static void
on_plot_ready (SbCampaign *campaign, SbPlotSnapshot *snapshot, SbWindow *self)
{
  sb_plot_view_set_snapshot (self->plot_view, snapshot);
  g_signal_emit (self, signals[PLOT_UPDATED], 0);
}

static void
on_density_ready (SbCampaign *campaign, SbDensityData *density, SbWindow *self)
{
  sb_plot_view_set_density (self->plot_view, density);
}

static void
on_fit_state (SbCampaign *campaign, GParamSpec *pspec, SbWindow *self)
{
  gboolean fitting = sb_campaign_get_fitting (campaign);

  if (fitting)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
      gtk_progress_bar_set_text (self->progress_bar, "Fitting hyperparameters…");
    }
  gtk_revealer_set_reveal_child (self->progress_revealer, fitting);
  _sb_window_update_actions (self);
}

static void
on_fit_progress (SbCampaign *campaign, double fraction, const char *text, SbWindow *self)
{
  g_autofree char *label = g_strdup_printf ("%s… %.0f %%", text && *text ? text : "Fitting",
                                            100 * fraction);

  gtk_progress_bar_set_fraction (self->progress_bar, fraction);
  gtk_progress_bar_set_text (self->progress_bar, label);
}

static void
on_fit_finished (SbCampaign *campaign, const SbFitResult *fit, const GError *error,
                 SbWindow *self)
{
  if (fit)
    {
      const SbHyper *h = &fit->hyper;
      guint dim = sb_session_get_experiment (sb_campaign_get_session (campaign))->n_parameters;
      g_autoptr (GString) text = g_string_new (NULL);

      g_string_printf (text, "Hyperparameters refitted on %u answers: variance %.3g, lengthscale%s",
                       h->n_answers, h->variance, dim > 1 ? "s" : "");
      for (guint j = 0; j < dim; j++)
        g_string_append_printf (text, "%s %.3g", j ? "," : "", h->lengthscales[j]);
      g_string_append_printf (text, " (%u evaluations, %.1f s; Ctrl+8 plots their history)",
                              fit->n_evals, fit->seconds);
      gtk_label_set_text (self->status_label, text->str);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), text->str);
    }
  else if (error)
    {
      g_autofree char *msg = g_strdup_printf ("Hyperparameter fit failed: %s", error->message);
      _sb_window_show_error (self, msg, FALSE);
    }
  else
    gtk_label_set_text (self->status_label, "Hyperparameter fit cancelled; the previous values stay.");
  g_signal_emit (self, signals[FIT_FINISHED], 0);
}

static void
on_session_changed (SbSession *session, SbWindow *self)
{
  update_history (self);
  _sb_window_update_status (self);
  _sb_window_update_demo (self);
  _sb_window_update_actions (self);
}

/* ---- Adaptive layout ------------------------------------------------------ */

/* Folded, the leaflet shows the question or (header toggle, F9, or a
 * swipe) the plots and answers; unfolded, both, or (F9) the plots alone
 * over the whole width, the question pane hidden (the leaflet lays out
 * only its visible pages; answer keys still work). */
void
_sb_window_show_plots (SbWindow *self, gboolean show)
{
  gboolean folded = adw_leaflet_get_folded (self->leaflet);
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "show-plots");

  if (folded && !self->plots_only)
    adw_leaflet_set_visible_child_name (self->leaflet, show ? "plots" : "question");
  else
    {
      self->plots_only = show;
      gtk_widget_set_visible (self->question_scroller, !show);
      gtk_widget_set_visible (self->pane_separator, !show);
      if (!show)
        adw_leaflet_set_visible_child_name (self->leaflet, "question");
    }
  if (action)
    g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (show));
}

/* Presentation mode: text and lines of the plot this many times larger
 * (9 pt labels become 16 pt: about 2.5 % of a 768-line projector's
 * height, the size slides use for text read from the back of a room). */
#define PRESENTATION_MAGNIFY 1.8

void
_sb_window_set_presentation (SbWindow *self, gboolean presentation)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "presentation");

  presentation = !!presentation;
  if (self->presentation != presentation)
    {
      self->presentation = presentation;
      _sb_window_show_plots (self, presentation);
      gtk_widget_set_visible (self->answers_box, !presentation);
      sb_chart_set_magnify (sb_plot_view_get_chart (self->plot_view),
                            presentation ? PRESENTATION_MAGNIFY : 1);
      _sb_window_set_demo_collapsed (self, presentation);
      if (presentation)
        gtk_widget_add_css_class (GTK_WIDGET (self), "sb-presentation");
      else
        gtk_widget_remove_css_class (GTK_WIDGET (self), "sb-presentation");
    }
  if (action)
    g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (presentation));
}

/* The leaflet folds while it is being allocated: the header's toggle and
 * the panel's compact rows change on the next idle, outside the
 * allocation (a widget shown mid-allocation would be drawn unallocated). */
static gboolean
apply_folded (gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  gboolean folded = adw_leaflet_get_folded (self->leaflet);

  self->folded_idle = 0;
  gtk_widget_set_visible (self->plots_toggle, folded);
  /* Room in the header bar: refitting stays in the main menu. */
  gtk_widget_set_visible (self->refit_button, !folded);
  sb_duel_panel_set_compact (self->duel_panel, folded);
  gtk_widget_set_margin_start (GTK_WIDGET (self->duel_panel), folded ? 12 : 18);
  gtk_widget_set_margin_end (GTK_WIDGET (self->duel_panel), folded ? 12 : 18);
  gtk_widget_set_margin_top (GTK_WIDGET (self->duel_panel), folded ? 12 : 18);
  if (!folded && !self->plots_only)
    _sb_window_show_plots (self, FALSE);
  return G_SOURCE_REMOVE;
}

static void
on_folded_changed (AdwLeaflet *leaflet, GParamSpec *pspec, SbWindow *self)
{
  /* Before the next frame is drawn (GTK lays out and paints at lower
   * priorities): at the default idle priority this waited behind every
   * frame of an animation (the busy spinner), and on a slow or loaded
   * machine the first frames showed the wide panel in a narrow window,
   * its answer buttons below the window's edge. */
  if (self->folded_idle == 0)
    self->folded_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, apply_folded, self, NULL);
}

static void
on_visible_page_changed (AdwLeaflet *leaflet, GParamSpec *pspec, SbWindow *self)
{
  const char *name = adw_leaflet_get_visible_child_name (leaflet);
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "show-plots");

  if (action && name && !self->plots_only)
    g_simple_action_set_state (G_SIMPLE_ACTION (action),
                               g_variant_new_boolean (g_str_equal (name, "plots")));
}

/* ---- Sessions ---------------------------------------------------------------------- */

static void show_session (SbWindow *self, SbSession *session, gboolean follow);

void
sb_window_set_session (SbWindow *self, SbSession *session)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  g_return_if_fail (SB_IS_SESSION (session));
  /* repeated pairs belong to a study's participants, which set their
   * study's rate once the session is open (sb-window-study.c) */
  sb_campaign_set_repeat_rate (self->campaign, 0);
  show_session (self, session, FALSE);
}

static void
show_session (SbWindow *self, SbSession *session, gboolean follow)
{
  SbSession *old;
  const SbExperiment *exp;

  _sb_window_clear_demo (self);
  old = sb_campaign_get_session (self->campaign);
  if (old)
    g_signal_handlers_disconnect_by_data (old, self);
  self->refused = FALSE;
  _sb_window_clear_error (self);
  exp = sb_session_get_experiment (session);
  gtk_stack_set_visible_child_name (self->main_stack, "duel");
  sb_duel_panel_set_session_file (self->duel_panel, sb_session_get_file (session));
  sb_duel_panel_set_experiment (self->duel_panel, exp);
  sb_campaign_set_autoplay_delay (self->campaign, sb_duel_panel_get_autoplay_delay (self->duel_panel));
  sb_campaign_set_auto_refit (self->campaign, TRUE);
  self->user_slice = FALSE;
  sb_plot_view_set_kind (self->plot_view, exp->n_parameters >= 2 ? SB_PLOT_HEATMAP : SB_PLOT_POSTERIOR);
  g_signal_connect (session, "changed", G_CALLBACK (on_session_changed), self);
  /* The campaign publishes an empty plot of the new parameters at once
   * and asks the first question (or, read-only, shows the model). */
  if (follow)
    sb_campaign_follow (self->campaign, session);
  else
    sb_campaign_set_session (self->campaign, session);
  if (sb_session_get_file (session))
    _sb_window_remember_file (self, sb_session_get_file (session));
  _sb_window_update_titles (self);
  rebuild_history (self);
  _sb_window_update_status (self);
  _sb_window_update_actions (self);
}

SbSession *
sb_window_get_session (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->refused ? NULL : sb_campaign_get_session (self->campaign);
}

static void
show_refused (SbWindow *self, const GError *error)
{
  SbSession *old = sb_campaign_get_session (self->campaign);

  _sb_window_clear_demo (self);
  if (old)
    g_signal_handlers_disconnect_by_data (old, self);
  sb_campaign_set_session (self->campaign, NULL);
  self->refused = TRUE;
  g_free (self->error);
  self->error = g_strdup (error->message);
  gtk_label_set_text (self->refused_label, error->message);
  gtk_stack_set_visible_child_name (self->main_stack, "refused");
  rebuild_history (self);
  _sb_window_update_titles (self);
  _sb_window_update_status (self);
  _sb_window_update_actions (self);
}

gboolean
sb_window_follow_file (SbWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = NULL;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  session = sb_session_load (file, &error);
  if (session == NULL)
    {
      show_refused (self, error);
      return FALSE;
    }
  show_session (self, session, TRUE);
  return TRUE;
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
      _sb_window_show_error (self, msg, FALSE);
      return FALSE;
    }
  sb_window_set_session (self, session);
  return TRUE;
}

/* ---- Accessors ------------------------------------------------------------------ */

SbCampaign *
sb_window_get_campaign (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->campaign;
}

SbWorker *
sb_window_get_worker (SbWindow *self)
{
  return sb_campaign_get_worker (self->campaign);
}

SbDuelPanel *
sb_window_get_duel_panel (SbWindow *self)
{
  return self->duel_panel;
}

const SbProposal *
sb_window_get_question (SbWindow *self)
{
  return sb_campaign_get_question (self->campaign);
}

gboolean
sb_window_get_computing (SbWindow *self)
{
  return sb_campaign_get_state (self->campaign) == SB_CAMPAIGN_COMPUTING;
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
  return sb_campaign_get_plot (self->campaign);
}

void
sb_window_refit (SbWindow *self)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  sb_campaign_refit (self->campaign);
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
sb_window_dispose (GObject *object)
{
  SbWindow *self = SB_WINDOW (object);

  if (self->campaign)
    {
      SbSession *session = sb_campaign_get_session (self->campaign);
      if (session)
        g_signal_handlers_disconnect_by_data (session, self);
      g_signal_handlers_disconnect_by_data (self->campaign, self);
      sb_campaign_set_session (self->campaign, NULL);
    }
  g_clear_object (&self->campaign);
  if (self->recent)
    g_signal_handlers_disconnect_by_data (self->recent, self);
  self->recent = NULL;
  g_clear_pointer (&self->demo_log, g_ptr_array_unref);
  g_clear_handle_id (&self->folded_idle, g_source_remove);
  g_clear_handle_id (&self->refusal_timeout, g_source_remove);
  if (self->undo_toast)
    {
      g_signal_handlers_disconnect_by_data (self->undo_toast, self);
      g_object_remove_weak_pointer (G_OBJECT (self->undo_toast), (gpointer *) &self->undo_toast);
    }
  self->undo_toast = NULL;
  self->demo = NULL;
  _sb_window_dispose_participant_mode (self);
  _sb_window_dispose_history (self);
  _sb_window_dispose_study (self);
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
  g_type_ensure (ADW_TYPE_LEAFLET);
  g_type_ensure (ADW_TYPE_CLAMP);
  g_type_ensure (ADW_TYPE_TOAST_OVERLAY);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SbWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, retry_button);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, plots_toggle);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, refit_button);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, undo_button);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, duel_panel);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, plots_box);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, answers_box);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, question_scroller);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, pane_separator);
  gtk_widget_class_bind_template_child (widget_class, SbWindow, demo_collapse_button);
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
bind_campaign (SbWindow *self)
{
  self->campaign = sb_campaign_new ();
  g_signal_connect (self->campaign, "question-ready", G_CALLBACK (on_question_ready), self);
  g_signal_connect (self->campaign, "notify::state", G_CALLBACK (on_state_changed), self);
  g_signal_connect (self->campaign, "notify::error", G_CALLBACK (on_errors_changed), self);
  g_signal_connect (self->campaign, "notify::save-error", G_CALLBACK (on_errors_changed), self);
  g_signal_connect (self->campaign, "notify::n-saved", G_CALLBACK (on_errors_changed), self);
  g_signal_connect (self->campaign, "notify::fitting", G_CALLBACK (on_fit_state), self);
  g_signal_connect (self->campaign, "notify::read-only", G_CALLBACK (on_read_only_changed), self);
  g_signal_connect (self->campaign, "plot-ready", G_CALLBACK (on_plot_ready), self);
  g_signal_connect (self->campaign, "density-ready", G_CALLBACK (on_density_ready), self);
  g_signal_connect (self->campaign, "fit-progress", G_CALLBACK (on_fit_progress), self);
  g_signal_connect (self->campaign, "fit-finished", G_CALLBACK (on_fit_finished), self);
}

static void
sb_window_init (SbWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The window's child: not bound as a template child, which GTK 4.8
   * would unparent a second time when the window is disposed. */
  self->toast_overlay = ADW_TOAST_OVERLAY (gtk_window_get_child (GTK_WINDOW (self)));
  bind_campaign (self);

  self->plot_view = SB_PLOT_VIEW (sb_plot_view_new (SB_PLOT_HEATMAP));
  gtk_widget_set_vexpand (GTK_WIDGET (self->plot_view), TRUE);
  gtk_box_append (self->plots_box, GTK_WIDGET (self->plot_view));
  g_signal_connect (self->plot_view, "slice-changed", G_CALLBACK (on_slice_changed), self);
  g_signal_connect (self->plot_view, "point-activated", G_CALLBACK (on_point_activated), self);
  g_signal_connect_swapped (self->duel_panel, "notify::answer-blocker",
                            G_CALLBACK (_sb_window_update_actions), self);

  _sb_window_install_actions (self);
  _sb_window_install_demo_actions (self);
  _sb_window_install_participant_actions (self);
  _sb_window_install_recommend (self);
  _sb_window_install_history_actions (self);
  _sb_window_install_study_actions (self);
  g_signal_connect (self->leaflet, "notify::folded", G_CALLBACK (on_folded_changed), self);
  g_signal_connect (self->leaflet, "notify::visible-child-name",
                    G_CALLBACK (on_visible_page_changed), self);

  self->recent = gtk_recent_manager_get_default ();
  g_signal_connect_swapped (self->recent, "changed", G_CALLBACK (rebuild_recent_menu), self);
  rebuild_recent_menu (self);
  _sb_window_update_actions (self);
}

SbWindow *
sb_window_new (GtkApplication *application)
{
  return g_object_new (SB_TYPE_WINDOW, "application", application, NULL);
}
