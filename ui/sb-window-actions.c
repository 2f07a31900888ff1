/* sb-window-actions.c — the window's actions (win.*) and its single-key
 * answers. Answers go to the campaign, which refuses them while no
 * question is on screen; the window rings the bell then. */
#include "config.h"

#include "sb-window-private.h"

#include "sb-keys.h"
#include "sb-link-dialog.h"
#include "sb-new-experiment-dialog.h"
#include "sb-playground.h"
#include "sb-prior-explorer.h"

#include <math.h>

void
_sb_window_set_action_enabled (SbWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
_sb_window_update_actions (SbWindow *self)
{
  SbSession *session = sb_window_get_session (self);
  const SbExperiment *exp = session ? sb_session_get_experiment (session) : NULL;
  const SbProposal *q = sb_campaign_get_question (self->campaign);
  gboolean asking = q != NULL;
  gboolean value_q = asking && q->kind == SB_QUESTION_VALUE;
  gboolean duel_q = asking && q->kind == SB_QUESTION_DUEL;
  gboolean fitting = sb_campaign_get_fitting (self->campaign);
  /* The options' stimuli can be judged: rendered, and every sound heard. */
  gboolean judged = sb_duel_panel_get_answer_blocker (self->duel_panel) == NULL;

  /* Participant mode keeps every action off (sb-window-participant.c). */
  if (self->participant_view)
    return;
  _sb_window_set_action_enabled (self, "answer-a", duel_q && judged);
  _sb_window_set_action_enabled (self, "answer-b", duel_q && judged);
  _sb_window_set_action_enabled (self, "answer-tie", asking && q->kind == SB_QUESTION_DUEL
                                                 && exp->ties_allowed && judged);
  _sb_window_set_action_enabled (self, "choose", asking && q->kind == SB_QUESTION_CHOICE && judged);
  _sb_window_set_action_enabled (self, "rank-add", asking && q->kind == SB_QUESTION_RANKING && judged);
  _sb_window_set_action_enabled (self, "rank-undo", asking && q->kind == SB_QUESTION_RANKING);
  /* complete: every option ranked but the last, which needs no click */
  {
    guint order[SB_MAX_OPTIONS];
    guint n_ranked = sb_duel_panel_get_ranking (self->duel_panel, order);
    _sb_window_set_action_enabled (self, "rank-confirm", asking && q->kind == SB_QUESTION_RANKING
                                                     && judged && n_ranked + 1 >= q->n_options);
  }
  _sb_window_set_action_enabled (self, "skip", asking);
  _sb_window_set_action_enabled (self, "answer-value", value_q);
  /* value questions are asked in mixed and safe mode, and both take "it failed" */
  _sb_window_set_action_enabled (self, "answer-failed", value_q);
  gboolean writer = session && !sb_campaign_get_read_only (self->campaign, NULL);

  _sb_window_set_action_enabled (self, "undo", writer && sb_session_get_n_observations (session) > 0);
  /* A redo is an answer: only while a question is on screen. */
  _sb_window_set_action_enabled (self, "redo", writer && asking && sb_campaign_can_redo (self->campaign));
  _sb_window_set_action_enabled (self, "extend-budget", writer);
  _sb_window_set_action_enabled (self, "participant-mode", writer);
  _sb_window_set_action_enabled (self, "save-as", session != NULL);
  /* One session's answers: not while the Study view is shown, which has
   * its own Export menu for everyone's (a participant's session may be
   * open behind it, and its CSV is not the study's). */
  _sb_window_set_action_enabled (self, "export-csv", session != NULL
                                && g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack),
                                              "study") != 0);
  _sb_window_set_action_enabled (self, "export-recommendation", session != NULL);
  _sb_window_set_action_enabled (self, "refit", writer && !fitting);
  /* The link diagnostic needs answered duels. It stays enabled without
   * them: its dialog says what it needs, while a greyed menu item could
   * not (GTK 4.8's popover menus ignore a menu item's "tooltip"). */
  _sb_window_set_action_enabled (self, "link-diagnostic", session != NULL);
  _sb_window_set_action_enabled (self, "cancel-fit", fitting);
  _sb_window_set_action_enabled (self, "autoplay", session && exp->simulated);
  _sb_window_set_action_enabled (self, "oracle-answer", asking && q->has_oracle);
  _sb_window_set_action_enabled (self, "none", FALSE);
  /* Greyed-out header buttons say why. */
  gtk_widget_set_tooltip_text (self->undo_button,
                               !session ? "Undo the last answer: no experiment is open"
                               : !writer ? "Undo the last answer: another process writes this session"
                               : sb_session_get_n_observations (session) == 0
                                 ? "Undo the last answer: there is no answer yet"
                                 : "Undo the last answer (Ctrl+Z)");
  gtk_widget_set_tooltip_text (self->refit_button,
                               !session ? "Refit the hyperparameters: no experiment is open"
                               : !writer ? "Refit the hyperparameters: another process writes this session"
                               : fitting ? "Refit the hyperparameters: a fit is running (Cancel stops it)"
                               : "Refit the hyperparameters now (Ctrl+R)");
  _sb_window_update_history_actions (self);
  _sb_window_update_demo (self);
}

/* ---- Answers ------------------------------------------------------------------ */

static gboolean
answer_full (SbWindow *self, SbAnswer *a)
{
  g_autoptr (GError) error = NULL;

  /* the panel's confidence goes with duels and choices */
  if (a->kind == SB_ANSWER_CHOSEN)
    a->confidence = sb_duel_panel_get_confidence (self->duel_panel);
  if (sb_campaign_answer (self->campaign, a, &error))
    return TRUE;
  _sb_window_refuse (self, error->message);
  return FALSE;
}

static gboolean
answer (SbWindow *self, SbAnswerKind kind, double value)
{
  SbAnswer a = { .kind = kind, .value = value };

  return answer_full (self, &a);
}

static void
choose_side (SbWindow *self, guint side)
{
  g_autoptr (GError) error = NULL;

  if (sb_duel_panel_get_question (self->duel_panel) == NULL
      || sb_duel_panel_get_question (self->duel_panel)->kind != SB_QUESTION_DUEL)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  {
    SbAnswer a = { .kind = SB_ANSWER_CHOSEN, .chosen = side };
    answer_full (self, &a);
  }
}

static void
answer_tie_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  answer (SB_WINDOW (user_data), SB_ANSWER_TIE, NAN);
}

static void
choose_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbAnswer answer = { .kind = SB_ANSWER_CHOSEN, .chosen = g_variant_get_uint32 (p) };

  answer_full (SB_WINDOW (user_data), &answer);
}

static void
rank_add_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  if (!sb_duel_panel_rank_add (self->duel_panel, g_variant_get_uint32 (p)))
    _sb_window_refuse (self, "That option is ranked already (⌫ takes back the last click)");
  _sb_window_update_actions (self);
}

static void
rank_undo_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  if (!sb_duel_panel_rank_undo (self->duel_panel))
    _sb_window_refuse (self, "No option is ranked yet: nothing to take back");
  _sb_window_update_actions (self);
}

/* Records the ranking clicked so far; the last option, when one is left,
 * is the worst and needs no click. */
static void
rank_confirm_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  const SbProposal *q = sb_campaign_get_question (self->campaign);
  SbAnswer answer = { .kind = SB_ANSWER_RANKING };
  guint n = sb_duel_panel_get_ranking (self->duel_panel, answer.ranking);

  if (q != NULL && n + 1 == q->n_options)
    for (guint option = 0; option < q->n_options; option++)
      {
        gboolean ranked = FALSE;
        for (guint r = 0; r < n; r++)
          ranked |= answer.ranking[r] == option;
        if (!ranked)
          answer.ranking[n++] = option;
      }
  if (q == NULL || n != q->n_options)
    {
      _sb_window_refuse (self, _sb_window_refusal (self, "rank-confirm"));
      return;
    }
  answer_full (self, &answer);
}

static void
answer_a_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  choose_side (SB_WINDOW (user_data), 0);
}

static void
answer_b_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  choose_side (SB_WINDOW (user_data), 1);
}

static void
skip_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  answer (SB_WINDOW (user_data), SB_ANSWER_SKIP, NAN);
}

static void
answer_value_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  double value;

  if (!sb_duel_panel_get_entered_value (self->duel_panel, &value))
    {
      /* the panel's hint says what to type instead */
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  if (answer (self, SB_ANSWER_VALUE, value))
    sb_duel_panel_clear_entered_value (self->duel_panel);
}

static void
answer_failed_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  answer (SB_WINDOW (user_data), SB_ANSWER_FAILED, NAN);
}

/* The toast goes by itself (timeout, its button, or a newer toast): it
 * must not be dismissed twice. */
static void
forget_undo_toast (SbWindow *self)
{
  if (self->undo_toast == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->undo_toast, self);
  g_object_remove_weak_pointer (G_OBJECT (self->undo_toast), (gpointer *) &self->undo_toast);
  self->undo_toast = NULL;
}

/* "Answer N taken back", with Redo (win.redo: greyed out until the next
 * question is on screen). */
static void
show_undo_toast (SbWindow *self, guint number)
{
  g_autofree char *title = g_strdup_printf ("Answer %u taken back", number);
  AdwToast *toast = adw_toast_new (title);

  adw_toast_set_button_label (toast, "_Redo");
  adw_toast_set_action_name (toast, "win.redo");
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  forget_undo_toast (self);
  self->undo_toast = toast;
  g_object_add_weak_pointer (G_OBJECT (toast), (gpointer *) &self->undo_toast);
  g_signal_connect_swapped (toast, "button-clicked", G_CALLBACK (forget_undo_toast), self);
  g_signal_connect_swapped (toast, "dismissed", G_CALLBACK (forget_undo_toast), self);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Ctrl+Z while typing in a text field undoes the typing (the field's own
 * undo), not the last recorded answer; with nothing typed it takes back
 * the answer. */
static gboolean
undo_typing (SbWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  const char *text;

  if (focus == NULL || !(GTK_IS_EDITABLE (focus) || GTK_IS_TEXT (focus)))
    return FALSE;
  text = gtk_editable_get_text (GTK_EDITABLE (focus));
  if (text == NULL || *text == '\0')
    return FALSE;
  gtk_widget_activate_action (focus, "text.undo", NULL);
  return TRUE;
}

static void
undo_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  SbSession *session = sb_window_get_session (self);
  guint n = session ? sb_session_get_n_observations (session) : 0;
  g_autoptr (GError) error = NULL;

  if (undo_typing (self))
    return;
  if (!sb_campaign_undo (self->campaign, &error))
    {
      g_autofree char *msg = g_strdup_printf ("Undo failed: %s", error->message);
      _sb_window_show_error (self, msg, FALSE);
      return;
    }
  show_undo_toast (self, n);
}

static void
redo_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  g_autoptr (GError) error = NULL;

  if (!sb_campaign_redo (self->campaign, &error))
    {
      g_debug ("redo refused: %s", error->message);
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  /* By key (Ctrl+Shift+Z): the toast's offer is taken. */
  if (self->undo_toast)
    {
      AdwToast *toast = self->undo_toast;
      forget_undo_toast (self);
      adw_toast_dismiss (toast);
    }
}

static void
extend_budget_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);
  g_autoptr (GError) error = NULL;

  if (!sb_campaign_extend_budget (self->campaign, g_variant_get_uint32 (p), &error))
    _sb_window_show_error (self, error->message, FALSE);
}

static void
retry_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  _sb_window_clear_error (self);
  sb_campaign_retry (self->campaign);
}

static void
dismiss_error_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  _sb_window_clear_error (SB_WINDOW (user_data));
}

static void
refit_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  sb_window_refit (SB_WINDOW (user_data));
}

static void
cancel_fit_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  sb_campaign_cancel_fit (SB_WINDOW (user_data)->campaign);
}

static void
autoplay_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  g_simple_action_set_state (action, state);
  sb_campaign_set_autoplay_delay (self->campaign, sb_duel_panel_get_autoplay_delay (self->duel_panel));
  sb_campaign_set_autoplay (self->campaign, g_variant_get_boolean (state));
}

static void
oracle_answer_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  sb_campaign_oracle_answer (SB_WINDOW (user_data)->campaign);
}

/* ---- Experiments, files, tools -------------------------------------------------- */

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

  SbSession *session = sb_window_get_session (self);

  if (session == NULL)
    return;
  gtk_window_present (GTK_WINDOW (sb_link_dialog_new (GTK_WINDOW (self), session)));
}

/* Teaching: the SkewGP prior explorer; it needs no session. */
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
  SbSession *session = sb_window_get_session (self);

  if (response == GTK_RESPONSE_ACCEPT && session)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autoptr (GError) error = NULL;

      if (file && !sb_session_save_as (session, file, &error))
        _sb_window_show_error (self, error->message, FALSE);
      else if (file)
        {
          _sb_window_remember_file (self, file);
          _sb_window_update_titles (self);
          _sb_window_update_status (self);
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
  SbSession *session = sb_window_get_session (self);

  if (response == GTK_RESPONSE_ACCEPT && session)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autoptr (GError) error = NULL;

      if (file && !sb_session_export_csv (session, file, &error))
        _sb_window_show_error (self, error->message, FALSE);
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

/* Teaching: the classification playground, a window of its own. */
static void
playground_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbPlayground *playground = sb_playground_new (gtk_window_get_application (GTK_WINDOW (user_data)));

  gtk_window_present (GTK_WINDOW (playground));
}

static void
show_plots_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  _sb_window_show_plots (SB_WINDOW (user_data), g_variant_get_boolean (state));
}

static void
presentation_change_state (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  _sb_window_set_presentation (SB_WINDOW (user_data), g_variant_get_boolean (state));
}

static const GActionEntry window_actions[] = {
  { .name = "answer-a", .activate = answer_a_action },
  { .name = "answer-b", .activate = answer_b_action },
  { .name = "skip", .activate = skip_action },
  { .name = "answer-tie", .activate = answer_tie_action },
  { .name = "choose", .activate = choose_action, .parameter_type = "u" },
  { .name = "rank-add", .activate = rank_add_action, .parameter_type = "u" },
  { .name = "rank-undo", .activate = rank_undo_action },
  { .name = "rank-confirm", .activate = rank_confirm_action },
  { .name = "answer-value", .activate = answer_value_action },
  { .name = "answer-failed", .activate = answer_failed_action },
  { .name = "undo", .activate = undo_action },
  { .name = "redo", .activate = redo_action },
  { .name = "retry", .activate = retry_action },
  { .name = "dismiss-error", .activate = dismiss_error_action },
  { .name = "refit", .activate = refit_action },
  { .name = "cancel-fit", .activate = cancel_fit_action },
  { .name = "autoplay", .state = "false", .change_state = autoplay_change_state },
  { .name = "oracle-answer", .activate = oracle_answer_action },
  { .name = "extend-budget", .activate = extend_budget_action, .parameter_type = "u" },
  { .name = "new-experiment", .activate = new_experiment_action },
  { .name = "open", .activate = open_action },
  { .name = "open-recent", .activate = open_recent_action, .parameter_type = "s" },
  { .name = "save-as", .activate = save_as_action },
  { .name = "export-csv", .activate = export_csv_action },
  { .name = "link-diagnostic", .activate = link_diagnostic_action },
  { .name = "playground", .activate = playground_action },
  { .name = "prior-explorer", .activate = prior_explorer_action },
  { .name = "show-plots", .state = "false", .change_state = show_plots_change_state },
  { .name = "presentation", .state = "false", .change_state = presentation_change_state },
  { .name = "none" },
};

/* ---- Keys ------------------------------------------------------------------------- */

/* Single-key answers (arrows and letters) must not steal typing from an
 * entry, so they are handled here, in the capture phase, only when the
 * focus is not in an editable; accelerators with modifiers go through the
 * application (gtk_application_set_accels_for_action). */
/* Keys while the focus is in the value entry, which takes numbers only:
 * F and S keep their single-key meanings (failed, skip). TRUE when the key
 * is decided here: *ACTION is the window action to run. */
static gboolean
typing_keeps_key (SbWindow *self, GtkWidget *focus, guint keyval, GdkModifierType state,
                  const char **action)
{
  GtkWidget *entry = sb_duel_panel_get_value_entry (self->duel_panel);
  gboolean in_text = focus && (GTK_IS_EDITABLE (focus) || GTK_IS_TEXT (focus));
  gboolean in_value = in_text && (focus == entry || gtk_widget_is_ancestor (focus, entry));
  GdkModifierType mods = state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK);

  *action = NULL;
  if (!in_text)
    return FALSE;
  if (!in_value || mods != 0)
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_f: case GDK_KEY_F:
      *action = "answer-failed";
      return g_action_group_get_action_enabled (G_ACTION_GROUP (self), *action);
    case GDK_KEY_s: case GDK_KEY_S:
      *action = "skip";
      return TRUE;
    default:
      return FALSE;
    }
}

/* ---- Refused answers say why ------------------------------------------------ */

/* How long a refusal stays in the status line. */
#define REFUSAL_SECONDS 6

static gboolean
refusal_timeout (gpointer data)
{
  SbWindow *self = data;

  self->refusal_timeout = 0;
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "sb-refusal");
  _sb_window_update_status (self);
  return G_SOURCE_REMOVE;
}

void
_sb_window_refuse (SbWindow *self, const char *reason)
{
  /* the debug log's line is what the e2e tests count refusals by */
  g_debug ("answer refused: %s", reason);
  gtk_widget_error_bell (GTK_WIDGET (self));
  gtk_label_set_text (self->status_label, reason);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), reason);
  gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "sb-refusal");
  g_clear_handle_id (&self->refusal_timeout, g_source_remove);
  self->refusal_timeout = g_timeout_add_seconds (REFUSAL_SECONDS, refusal_timeout, self);
}

/* What a question of kind Q asks for, by key. */
static const char *
keys_for (const SbProposal *q)
{
  switch (q->kind)
    {
    case SB_QUESTION_CHOICE:
      return "this question asks for the best of the options: press its number (Shift: sure)";
    case SB_QUESTION_RANKING:
      return "this question asks for a ranking: press the numbers from best to worst, then Enter";
    case SB_QUESTION_VALUE:
      return "this question asks for a measured value: type it and press Enter (F: it failed)";
    case SB_QUESTION_DUEL:
    default:
      return "this question is a duel: ← or A, → or B";
    }
}

const char *
_sb_window_refusal (SbWindow *self, const char *action)
{
  SbSession *session = sb_window_get_session (self);
  const SbExperiment *exp = session ? sb_session_get_experiment (session) : NULL;
  const SbProposal *q = sb_campaign_get_question (self->campaign);
  const char *blocker = sb_duel_panel_get_answer_blocker (self->duel_panel);
  const char *read_only = NULL;
  static char text[256];

  if (session == NULL)
    return "No experiment is open: nothing to answer";
  if (sb_campaign_get_read_only (self->campaign, &read_only))
    return read_only ? read_only : "This session is only followed here: answers are not taken";
  if (sb_campaign_get_state (self->campaign) == SB_CAMPAIGN_FINISHED)
    return "Every question of the budget is answered: continue with more questions to answer again";
  if (q == NULL)
    return "The next question is being computed: answer it once it is shown";
  if (g_str_equal (action, "oracle-answer"))
    return "Only a simulated experiment has an oracle to answer for you";
  if (g_str_equal (action, "answer-tie") && q->kind == SB_QUESTION_DUEL && !exp->ties_allowed)
    return "This experiment does not take “about the same”: choose A or B, or skip (S)";
  if (g_str_equal (action, "answer-failed") && q->kind != SB_QUESTION_VALUE)
    {
      g_snprintf (text, sizeof text, "“Failed” answers a measured value; %s", keys_for (q));
      return text;
    }
  if (g_str_equal (action, "rank-confirm") && q->kind == SB_QUESTION_RANKING)
    {
      guint order[SB_MAX_OPTIONS];
      guint n = sb_duel_panel_get_ranking (self->duel_panel, order);
      if (n + 1 < q->n_options)
        {
          g_snprintf (text, sizeof text,
                      "The ranking is not complete: %u of %u options ranked; rank %u more "
                      "(the last needs no click), then Enter", n, q->n_options,
                      q->n_options - 1 - n);
          return text;
        }
    }
  if (blocker)
    return blocker;
  g_snprintf (text, sizeof text, "Not an answer to this question: %s", keys_for (q));
  return text;
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SbWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  const char *action = NULL;
  GVariant *target = NULL;
  const SbProposal *q = sb_window_get_question (self);
  guint pos;

  /* The participant view takes its own keys. */
  if (self->participant_view)
    return FALSE;
  if (typing_keeps_key (self, focus, keyval, state, &action))
    {
      if (action == NULL)
        return FALSE;
      g_action_group_activate_action (G_ACTION_GROUP (self), action, NULL);
      return TRUE;
    }
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK))
    return FALSE;
  if (focus && (GTK_IS_EDITABLE (focus) || GTK_IS_TEXT (focus)))
    return FALSE;
  if (gtk_stack_get_visible_child_name (self->main_stack)
      && !g_str_equal (gtk_stack_get_visible_child_name (self->main_stack), "duel"))
    return FALSE;

  /* a rating scale: Shift+1 … k is the next answer's confidence */
  SbSession *session = sb_window_get_session (self);
  guint levels = session ? sb_session_get_experiment (session)->confidence_levels : 0;
  if ((state & GDK_SHIFT_MASK) && levels && q && q->kind != SB_QUESTION_RANKING
      && q->kind != SB_QUESTION_VALUE
      && sb_key_digit_place (controller, keyval, keycode, state, &pos))
    {
      if (!sb_duel_panel_set_rating (self->duel_panel, pos + 1))
        {
          g_autofree char *why = g_strdup_printf ("The confidence scale is 1 … %u: press "
                                                  "Shift+1 … Shift+%u", levels, levels);
          _sb_window_refuse (self, why);
        }
      return TRUE;
    }
  /* 1 .. k: the option shown in that place (choice and ranking
   * questions); with Shift, a sure choice */
  if (sb_key_digit_place (controller, keyval, keycode, state, &pos))
    {
      if (q == NULL || (q->kind != SB_QUESTION_CHOICE && q->kind != SB_QUESTION_RANKING))
        {
          _sb_window_refuse (self, _sb_window_refusal (self, "choose"));
          return TRUE;
        }
      if (pos >= q->n_options)
        {
          g_autofree char *why = g_strdup_printf ("There are %u options: press 1 … %u",
                                                  q->n_options, q->n_options);
          _sb_window_refuse (self, why);
          return TRUE;
        }
      action = q->kind == SB_QUESTION_CHOICE ? "choose" : "rank-add";
      target = g_variant_new_uint32 (q->shown_order[pos]);
    }
  else switch (keyval)
    {
    case GDK_KEY_t: case GDK_KEY_T: case GDK_KEY_Down: case GDK_KEY_KP_Down:
      action = "answer-tie";
      break;
    case GDK_KEY_BackSpace:
      if (q == NULL || q->kind != SB_QUESTION_RANKING)
        return FALSE;
      action = "rank-undo";
      break;
    case GDK_KEY_Return: case GDK_KEY_KP_Enter:
      if (q == NULL || q->kind != SB_QUESTION_RANKING)
        return FALSE;
      action = "rank-confirm";
      break;
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
    case GDK_KEY_r: case GDK_KEY_R:
      /* sound stimuli: play the next option not heard yet */
      if (!sb_duel_panel_play_next (self->duel_panel))
        _sb_window_refuse (self, "Nothing to play: R replays the options' sounds");
      return TRUE;
    case GDK_KEY_p: case GDK_KEY_P:
      {
        GAction *autoplay = g_action_map_lookup_action (G_ACTION_MAP (self), "autoplay");
        if (g_action_get_enabled (autoplay))
          g_action_change_state (autoplay, g_variant_new_boolean (!sb_campaign_get_autoplay (self->campaign)));
        return TRUE;
      }
    default:
      return FALSE;
    }
  if (q && q->kind == SB_QUESTION_VALUE
      && (g_str_equal (action, "answer-a") || g_str_equal (action, "answer-b")
          || g_str_equal (action, "answer-tie") || g_str_equal (action, "rank-undo")))
    return FALSE;  /* arrows keep their usual meaning on value questions */
  if (!g_action_group_get_action_enabled (G_ACTION_GROUP (self), action))
    {
      if (target)
        g_variant_unref (g_variant_ref_sink (target));
      /* E.g. an answer while the next question is being computed: it
       * would refer to a question the person has not seen. */
      _sb_window_refuse (self, _sb_window_refusal (self, action));
      return TRUE;
    }
  /* Shift with an answer: the surest confidence of the scale */
  if (state & GDK_SHIFT_MASK)
    sb_duel_panel_mark_sure (self->duel_panel);
  g_action_group_activate_action (G_ACTION_GROUP (self), action, target);
  return TRUE;
}


static void
install_plot_actions (SbWindow *self)
{
  /* The plot's controls as window actions, so keys drive them too
   * (accelerators in sb-application.c): which plot, which 2-D field,
   * and the Laplace / EP overlays. */
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

void
_sb_window_install_actions (SbWindow *self)
{
  GtkEventController *keys;

  g_action_map_add_action_entries (G_ACTION_MAP (self), window_actions,
                                   G_N_ELEMENTS (window_actions), self);
  install_plot_actions (self);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}
