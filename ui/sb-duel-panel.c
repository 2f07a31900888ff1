/* sb-duel-panel.c — the question being asked: A (the current best) vs B. */
#include "config.h"

#include "sb-duel-panel.h"
#include "sb-setting.h"

#include <glib/gi18n.h>

#include "sb-command-trust.h"
#include "sb-experiment-templates.h"
#include "sb-stimulus-renderer.h"
#include "sb-stimulus-view.h"

#include <adwaita.h>

#include <locale.h>
#include <math.h>
#include <string.h>

/* The user's word on running the experiment's renderer command. */
typedef enum {
  SB_CONSENT_UNKNOWN,   /* not asked yet (nor remembered)       */
  SB_CONSENT_ASKING,    /* the dialog is open                   */
  SB_CONSENT_ALLOWED,   /* remembered, or "Run" just now        */
  SB_CONSENT_REFUSED,   /* "Don't Run": asked again on Retry    */
} SbConsent;

struct _SbDuelPanel
{
  GtkWidget parent_instance;

  /* Owned */
  SbExperiment *experiment;
  SbProposal question;     /* valid when has_question; model not kept */
  gboolean has_question;
  guint n_answers;
  gboolean busy;
  gboolean finished;
  gboolean participant;    /* neutral view: no analysis, sides as shown */
  /* The latest question that had a best point: "Current best" stays
   * while the next question is computed. */
  SbProposal best;
  gboolean has_best;
  char *read_only;         /* why nothing is asked here, or NULL     */
  char *finished_reason;   /* safe mode stopped early: why, or NULL  */
  GPtrArray *value_labels; /* GtkLabel per table cell: 2 per parameter row */

  /* Template widgets (borrowed) */
  GtkWidget *root;
  GtkLabel *question_label;
  GtkSpinner *spinner;
  GtkLabel *busy_label;
  GtkLabel *prompt_label;
  GtkWidget *swatch_box;
  GtkLabel *swatch_a_title;
  GtkLabel *swatch_b_title;
  SbStimulusView *swatch_a;
  SbStimulusView *swatch_b;
  GtkLabel *swatch_a_label;
  GtkLabel *swatch_b_label;
  GtkGrid *table;
  GtkWidget *answer_box;
  GtkWidget *prefer_a_button;
  GtkWidget *prefer_b_button;
  GtkWidget *skip_button;
  GtkWidget *value_box;
  GtkLabel *value_label;
  GtkEntry *value_entry;
  GtkWidget *failed_button;
  GtkLabel *value_hint;
  GtkWidget *autoplay_box;
  GtkAdjustment *speed_adjustment;
  GtkLabel *best_label;
  gboolean has_recommendation;
  SbRecommendation recommendation;
  GtkWidget *finished_box;
  GtkAdjustment *extend_adjustment;
  GtkLabel *keys_label;

  /* Built in code: the answers beyond a plain duel */
  GtkWidget *tie_button;
  GtkWidget *confidence_box;
  gboolean compact;        /* a narrow window: rows stacked            */
  GtkLabel *confidence_label;
  GtkToggleButton *weak_toggle;
  GtkToggleButton *strong_toggle;
  /* A rating scale's 1 .. k (the experiment's confidence_levels) */
  GtkToggleButton *rating_toggles[SG_CONFIDENCE_MAX_LEVELS];
  GtkWidget *options_box;     /* GtkFlowBox of the k options (choice, ranking) */
  GtkWidget *rank_box;
  GtkLabel *rank_label;
  GtkWidget *rank_confirm;
  guint rank[SB_MAX_OPTIONS];
  guint n_ranked;
  GtkWidget *rank_badges[SB_MAX_OPTIONS];  /* "Rank 2" on each option, by option */
  GtkWidget *option_buttons[SB_MAX_OPTIONS];

  /* Stimuli (sb-duel-panel-stimuli.c) */
  char *stimulus_folder;         /* where renderers run: the session's   */
  char *trust_file;              /* whose consent covers the command     */
  SbConsent consent;             /* may the experiment's command run?    */
  AdwMessageDialog *consent_dialog;  /* asking now, or NULL            */
  SbStimulusRenderer *renderer;  /* image and sound stimuli, or NULL     */
  GPtrArray *option_views;       /* SbStimulusView of the k options      */
  char *answer_blocker;          /* why no answer can be given yet       */
};

G_DEFINE_FINAL_TYPE (SbDuelPanel, sb_duel_panel, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_BUSY,
  PROP_PARTICIPANT,
  PROP_ANSWER_BLOCKER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- Sides ---------------------------------------------------------------- */

/* The duel's option (0 = A, 1 = B) on the left: in the participant view
 * the first of the question's shown order, otherwise always A. */
static guint
left_option (SbDuelPanel *self)
{
  if (self->participant && self->has_question && self->question.kind == SB_QUESTION_DUEL)
    return self->question.shown_order[0];
  return 0;
}

/* The setting shown on SIDE (0 = left, 1 = right) of a duel. */
static const double *
side_setting (SbDuelPanel *self, guint side)
{
  return (side == 0) == (left_option (self) == 0) ? self->question.a : self->question.b;
}

/* ---- Stimuli --------------------------------------------------------------- */

static void update_answer_blocker (SbDuelPanel *self);

static void
stimulus_blocker_changed (SbStimulusView *view, SbDuelPanel *self)
{
  update_answer_blocker (self);
}

static void show_stimuli (SbDuelPanel *self);
static void refresh_option_stimuli (SbDuelPanel *self);
static void ask_consent (SbDuelPanel *self);

/* TRUE when the experiment's renderer command may run: allowed before for
 * this file (remembered) or just now. */
static gboolean
command_allowed (SbDuelPanel *self)
{
  const char *command = self->experiment->stimulus.command;

  if (self->consent == SB_CONSENT_UNKNOWN && command != NULL && self->trust_file != NULL
      && sb_command_trust_is_allowed (self->trust_file, command))
    self->consent = SB_CONSENT_ALLOWED;
  return self->consent == SB_CONSENT_ALLOWED;
}

/* The renderer of image and sound stimuli, made on first use once the
 * user allowed its command; NULL (and the question asked) until then. */
static SbStimulusRenderer *
stimulus_renderer (SbDuelPanel *self)
{
  SbStimulusKind kind = self->experiment ? self->experiment->stimulus.kind : SB_STIMULUS_NONE;

  if (kind != SB_STIMULUS_IMAGE && kind != SB_STIMULUS_SOUND)
    return NULL;
  if (!command_allowed (self))
    {
      if (self->consent == SB_CONSENT_UNKNOWN)
        ask_consent (self);
      return NULL;
    }
  if (self->renderer == NULL)
    self->renderer = sb_stimulus_renderer_new (self->experiment, self->stimulus_folder, NULL);
  return self->renderer;
}

/* What a view says while the command may not run. */
static const char *
refusal_text (SbDuelPanel *self)
{
  return self->consent == SB_CONSENT_REFUSED
           ? _("The experiment's renderer command was not allowed to run; Retry asks again")
           : _("Waiting for your permission to run the experiment's renderer command");
}

/* Every stimulus view of the panel: A, B and the k options. */
static GPtrArray *
stimulus_views (SbDuelPanel *self)
{
  GPtrArray *views = g_ptr_array_new ();

  g_ptr_array_add (views, self->swatch_a);
  g_ptr_array_add (views, self->swatch_b);
  g_ptr_array_extend (views, self->option_views, NULL, NULL);
  return views;
}

static void
set_refusal_texts (SbDuelPanel *self)
{
  g_autoptr (GPtrArray) views = stimulus_views (self);

  for (guint i = 0; i < views->len; i++)
    sb_stimulus_view_set_renderer_refusal (g_ptr_array_index (views, i), refusal_text (self));
}

/* Shows every stimulus again: after the user's answer on the command, or
 * a Retry. */
static void
reshow_stimuli (SbDuelPanel *self)
{
  set_refusal_texts (self);
  show_stimuli (self);
  refresh_option_stimuli (self);
}

static void
consent_response (AdwMessageDialog *dialog, const char *response, SbDuelPanel *self)
{
  g_autoptr (GError) error = NULL;

  self->consent_dialog = NULL;
  /* a response given otherwise than by a button (keyboard, a test) */
  gtk_window_close (GTK_WINDOW (dialog));
  if (g_strcmp0 (response, "run") == 0)
    {
      self->consent = SB_CONSENT_ALLOWED;
      if (self->trust_file != NULL
          && !sb_command_trust_allow (self->trust_file, self->experiment->stimulus.command, &error))
        g_warning ("the command's permission could not be remembered: %s", error->message);
    }
  else
    self->consent = SB_CONSENT_REFUSED;
  reshow_stimuli (self);
}

static void
present_consent (GtkWidget *widget, gpointer unused)
{
  SbDuelPanel *self = SB_DUEL_PANEL (widget);

  g_signal_handlers_disconnect_by_func (self, present_consent, NULL);
  if (self->consent_dialog != NULL)
    gtk_window_present (GTK_WINDOW (self->consent_dialog));
}

/* Shows the exact command and asks whether it may run. */
static void
ask_consent (SbDuelPanel *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  g_autofree char *folder = self->stimulus_folder ? g_markup_escape_text (self->stimulus_folder, -1)
                                                  : g_strdup (".");
  g_autofree char *command = g_markup_escape_text (self->experiment->stimulus.command
                                                   ? self->experiment->stimulus.command : "", -1);
  g_autofree char *file = self->trust_file ? g_markup_escape_text (self->trust_file, -1)
                                           : g_strdup (_("this experiment"));
  g_autofree char *body = g_strdup_printf (
    _("%s renders its stimuli by running this command on your computer, in %s:\n\n"
      "<tt>%s</tt>\n\nA command can do anything you can do. Run it only if you trust "
      "whoever made the file. Your answer is remembered for this file and command."),
    file, folder, command);
  AdwMessageDialog *dialog;

  self->consent = SB_CONSENT_ASKING;
  set_refusal_texts (self);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                       _("Run the renderer command?"), NULL));
  adw_message_dialog_set_body_use_markup (dialog, TRUE);
  adw_message_dialog_set_body (dialog, body);
  adw_message_dialog_add_responses (dialog, "cancel", _("_Don't Run"), "run", _("_Run Command"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "run", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (consent_response), self, 0);
  self->consent_dialog = dialog;
  /* above the window: once it is on screen (a session opened at start-up
   * asks before the window is mapped, and a dialog mapped first would lie
   * under it) */
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    gtk_window_present (GTK_WINDOW (dialog));
  else
    g_signal_connect (self, "map", G_CALLBACK (present_consent), NULL);
}

static void
stimulus_retry (SbStimulusView *view, SbDuelPanel *self)
{
  if (self->consent == SB_CONSENT_REFUSED)
    self->consent = SB_CONSENT_UNKNOWN;
  reshow_stimuli (self);
}

/* Stops the renderer and forgets the consent: a new experiment or file
 * asks again (unless remembered). */
static void
drop_renderer (SbDuelPanel *self)
{
  if (self->renderer)
    sb_stimulus_renderer_cancel_all (self->renderer);
  g_clear_object (&self->renderer);
  self->consent = SB_CONSENT_UNKNOWN;
  if (self->consent_dialog != NULL)
    {
      AdwMessageDialog *dialog = g_steal_pointer (&self->consent_dialog);
      g_signal_handlers_disconnect_by_data (dialog, self);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
}

/* The k options' views show their settings again. */
static void
refresh_option_stimuli (SbDuelPanel *self)
{
  for (guint i = 0; i < self->option_views->len; i++)
    {
      SbStimulusView *view = g_ptr_array_index (self->option_views, i);
      guint option = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (view), "option"));
      if (self->has_question && option < self->question.n_options)
        sb_stimulus_view_show (view, self->experiment, stimulus_renderer (self),
                               self->question.options[option]);
    }
}

/* TRUE when R recommends the incumbent x_r of the last question. */
static gboolean
recommends_incumbent (SbDuelPanel *self, const SbRecommendation *r)
{
  return memcmp (r->best, self->best.best, self->experiment->n_parameters * sizeof (double)) == 0;
}

static const SbRecommendation *current_recommendation (SbDuelPanel *self);

/* The setting shown as the best: the recommendation when there is a
 * current one, else the incumbent (NULL before there is one). */
static const double *
best_setting (SbDuelPanel *self)
{
  const SbRecommendation *rec = current_recommendation (self);

  return rec ? rec->best : self->has_best ? self->best.best : NULL;
}

/* The A and B stimuli of the question (or the best found, when finished). */
static void
show_stimuli (SbDuelPanel *self)
{
  const SbExperiment *exp = self->experiment;
  const SbProposal *q = &self->question;
  SbStimulusRenderer *renderer = stimulus_renderer (self);
  gboolean asking = self->has_question && !self->finished;
  const double *a = self->finished && best_setting (self) ? best_setting (self)
                    : asking && (q->kind == SB_QUESTION_DUEL || q->has_best) ? q->a : NULL;

  if (exp == NULL || exp->stimulus.kind == SB_STIMULUS_NONE
      || (asking && (q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING)))
    {
      /* k options show their stimuli in the options' grid */
      a = NULL;
      asking = FALSE;
    }
  if (asking && q->kind == SB_QUESTION_DUEL)
    a = side_setting (self, 0);
  sb_stimulus_view_show (self->swatch_a, exp, renderer, a);
  sb_stimulus_view_show (self->swatch_b, exp, renderer,
                         !asking ? NULL : q->kind == SB_QUESTION_DUEL ? side_setting (self, 1) : q->b);
  update_answer_blocker (self);
}

/* The reason among the options shown why the answer must wait: a failure
 * first (it will not go away by waiting), else the first other reason. */
static const char *
first_blocker (SbDuelPanel *self)
{
  g_autoptr (GPtrArray) views = g_ptr_array_new ();
  const char *waiting = NULL;

  g_ptr_array_add (views, self->swatch_a);
  g_ptr_array_add (views, self->swatch_b);
  g_ptr_array_extend (views, self->option_views, NULL, NULL);
  for (guint i = 0; i < views->len; i++)
    {
      SbStimulusView *view = g_ptr_array_index (views, i);
      if (sb_stimulus_view_get_error (view))
        return sb_stimulus_view_get_blocker (view);
      if (waiting == NULL)
        waiting = sb_stimulus_view_get_blocker (view);
    }
  return waiting;
}

static void update_answer_tooltips (SbDuelPanel *self);

static void
update_answer_blocker (SbDuelPanel *self)
{
  const char *blocker = first_blocker (self);

  for (guint i = 0; i < self->option_views->len; i++)
    {
      GtkWidget *button = g_object_get_data (g_ptr_array_index (self->option_views, i),
                                             "answer-button");
      if (button == NULL)
        continue;
      gtk_widget_set_sensitive (button, blocker == NULL);
      gtk_widget_set_tooltip_text (button, blocker ? blocker
                                                   : g_object_get_data (G_OBJECT (button), "tip"));
    }
  if (g_strcmp0 (blocker, self->answer_blocker) == 0)
    return;
  g_free (self->answer_blocker);
  self->answer_blocker = g_strdup (blocker);
  update_answer_tooltips (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANSWER_BLOCKER]);
}

const char *
sb_duel_panel_get_answer_blocker (SbDuelPanel *self)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), NULL);
  return self->answer_blocker;
}

gboolean
sb_duel_panel_play_next (SbDuelPanel *self)
{
  g_autoptr (GPtrArray) views = g_ptr_array_new ();

  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), FALSE);
  if (gtk_widget_get_visible (GTK_WIDGET (self->swatch_box)))
    {
      g_ptr_array_add (views, self->swatch_a);
      g_ptr_array_add (views, self->swatch_b);
    }
  else
    g_ptr_array_extend (views, self->option_views, NULL, NULL);
  /* The first option not heard yet, in the order shown; then from the
   * first again. */
  for (guint i = 0; i < views->len; i++)
    if (!sb_stimulus_view_get_heard (g_ptr_array_index (views, i))
        && sb_stimulus_view_play (g_ptr_array_index (views, i)))
      return TRUE;
  for (guint i = 0; i < views->len; i++)
    if (sb_stimulus_view_play (g_ptr_array_index (views, i)))
      return TRUE;
  return FALSE;
}

void
sb_duel_panel_set_session_file (SbDuelPanel *self, GFile *session_file)
{
  g_autofree char *folder = NULL;
  g_autofree char *path = NULL;
  g_autofree char *trust = NULL;

  g_return_if_fail (SB_IS_DUEL_PANEL (self));
  folder = sb_stimulus_work_dir_for (session_file);
  path = session_file ? g_file_get_path (session_file) : NULL;
  trust = path ? sb_command_trust_file_for (path) : NULL;
  if (g_strcmp0 (self->stimulus_folder, folder) == 0 && g_strcmp0 (self->trust_file, trust) == 0)
    return;
  g_free (self->stimulus_folder);
  self->stimulus_folder = g_steal_pointer (&folder);
  g_free (self->trust_file);
  self->trust_file = g_steal_pointer (&trust);
  drop_renderer (self);
}

/* ---- Table -------------------------------------------------------------- */

static GtkLabel *
table_label (SbDuelPanel *self, const char *text, int column, int row, const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), column == 0 ? 0.0f : 1.0f);
  gtk_label_set_justify (GTK_LABEL (label), column == 0 ? GTK_JUSTIFY_LEFT : GTK_JUSTIFY_RIGHT);
  /* Headings and names break into lines on a narrow window. */
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_set_hexpand (label, column > 0);
  if (css)
    gtk_widget_add_css_class (label, css);
  gtk_grid_attach (self->table, label, column, row, 1, 1);
  return GTK_LABEL (label);
}

static void
rebuild_table (SbDuelPanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))))
    gtk_grid_remove (self->table, child);
  g_ptr_array_set_size (self->value_labels, 0);
  if (self->experiment == NULL)
    return;

  table_label (self, "", 0, 0, NULL);
  table_label (self, "A · current best", 1, 0, "heading");
  table_label (self, "B · new candidate", 2, 0, "heading");
  for (guint j = 0; j < self->experiment->n_parameters; j++)
    {
      const SbParameter *p = &self->experiment->parameters[j];
      table_label (self, p->name, 0, j + 1, NULL);
      g_ptr_array_add (self->value_labels, table_label (self, "—", 1, j + 1, "sb-value"));
      g_ptr_array_add (self->value_labels, table_label (self, "—", 2, j + 1, "sb-value"));
    }
  /* Extra rows: the true objective, the model's probability. */
  for (guint k = 0; k < 2; k++)
    {
      guint row = self->experiment->n_parameters + 1 + k;
      table_label (self, k == 0 ? "True value" : "P(B better than A)", 0, row, "dim-label");
      g_ptr_array_add (self->value_labels, table_label (self, "", 1, row, "sb-value"));
      g_ptr_array_add (self->value_labels, table_label (self, "", 2, row, "sb-value"));
    }
}

static void
set_cell (SbDuelPanel *self, guint index, const char *text, gboolean emphasise)
{
  GtkLabel *label = g_ptr_array_index (self->value_labels, index);

  gtk_label_set_text (label, text);
  if (emphasise)
    gtk_widget_add_css_class (GTK_WIDGET (label), "sb-differs");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (label), "sb-differs");
}

static char *
format_truth (double v)
{
  return isfinite (v) ? g_strdup_printf ("%.4g", v) : g_strdup ("");
}

static void
update_table (SbDuelPanel *self)
{
  const SbExperiment *exp = self->experiment;
  const SbProposal *q = &self->question;
  gboolean duel = q->kind == SB_QUESTION_DUEL;
  gboolean show_a = self->has_question && (duel || q->has_best);
  gboolean truth;
  guint n;
  GtkWidget *header_b;
  const double *left = side_setting (self, 0), *right = side_setting (self, 1);
  /* finished: nothing is asked; the table shows the best found */
  const double *found = self->finished && !self->participant ? best_setting (self) : NULL;

  if (exp == NULL || self->value_labels->len == 0)
    return;
  n = exp->n_parameters;
  header_b = gtk_grid_get_child_at (self->table, 2, 0);
  gtk_label_set_text (GTK_LABEL (header_b),
                      self->participant ? (duel ? "Right" : "Setting")
                      : found ? ""
                      : self->has_question && !duel ? "B · setting to measure"
                      : self->has_question && !q->has_best ? "B" : "B · new candidate");
  gtk_label_set_text (GTK_LABEL (gtk_grid_get_child_at (self->table, 1, 0)),
                      self->participant ? (duel ? "Left" : "")
                      : found ? "Best found"
                      : self->has_question && !q->has_best ? "A" : "A · current best");
  show_a = show_a && (duel || !self->participant);

  for (guint j = 0; j < n; j++)
    {
      g_autofree char *a = found ? sb_format_coordinate (&exp->parameters[j], found[j])
                           : show_a ? sb_format_coordinate (&exp->parameters[j], left[j])
                           : g_strdup ("—");
      g_autofree char *b = found ? g_strdup ("")
                           : self->has_question ? sb_format_coordinate (&exp->parameters[j], right[j])
                           : g_strdup ("—");
      /* which values changed would point at the new candidate */
      gboolean differs = show_a && self->has_question && !self->participant && g_strcmp0 (a, b) != 0;
      set_cell (self, 2 * j, a, FALSE);
      set_cell (self, 2 * j + 1, b, differs);
    }

  truth = self->has_question && exp->show_truth && isfinite (q->truth_b) && !self->participant;
  {
    g_autofree char *ta = truth && show_a ? format_truth (q->truth_a) : g_strdup ("");
    g_autofree char *tb = truth ? format_truth (q->truth_b) : g_strdup ("");
    set_cell (self, 2 * n, ta, FALSE);
    set_cell (self, 2 * n + 1, tb, FALSE);
  }
  for (int col = 0; col < 3; col++)
    gtk_widget_set_visible (gtk_grid_get_child_at (self->table, col, n + 1), truth);

  {
    gboolean prob = self->has_question && duel && isfinite (q->prob_better) && !self->participant;
    gboolean safe = self->has_question && !duel && isfinite (q->prob_safe) && !self->participant;
    g_autofree char *p = prob ? g_strdup_printf ("%.0f %%", 100 * q->prob_better)
                       : safe ? g_strdup_printf ("%.0f %%", 100 * q->prob_safe) : g_strdup ("");
    GtkWidget *name = gtk_grid_get_child_at (self->table, 0, n + 2);
    gtk_label_set_text (GTK_LABEL (name), safe ? "P(B is safe)" : "P(B better than A)");
    set_cell (self, 2 * n + 2, "", FALSE);
    set_cell (self, 2 * n + 3, p, FALSE);
    for (int col = 0; col < 3; col++)
      gtk_widget_set_visible (gtk_grid_get_child_at (self->table, col, n + 2), prob || safe);
  }
}

/* ---- k options ------------------------------------------------------------ */

static gboolean
k_options (const SbProposal *q)
{
  return q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING;
}

static void
option_clicked (GtkButton *button, SbDuelPanel *self)
{
  guint option = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "option"));

  gtk_widget_activate_action (GTK_WIDGET (self),
                              self->question.kind == SB_QUESTION_CHOICE ? "win.choose"
                                                                        : "win.rank-add",
                              "u", option);
}

/* Option OPTION's stimulus into BOX (a new cell of the options' grid,
 * returned); the view joins the views the answers wait for. */
static GtkWidget *
add_option_stimulus (SbDuelPanel *self, GtkWidget *box, guint option)
{
  const SbExperiment *exp = self->experiment;
  GtkWidget *view = sb_stimulus_view_new ();

  g_ptr_array_add (self->option_views, view);
  g_object_set_data (G_OBJECT (view), "option", GUINT_TO_POINTER (option));
  g_signal_connect (view, "blocker-changed", G_CALLBACK (stimulus_blocker_changed), self);
  g_signal_connect (view, "retry", G_CALLBACK (stimulus_retry), self);
  sb_stimulus_view_set_renderer_refusal (SB_STIMULUS_VIEW (view), refusal_text (self));
  gtk_box_append (GTK_BOX (box), view);
  sb_stimulus_view_show (SB_STIMULUS_VIEW (view), exp, stimulus_renderer (self),
                         self->question.options[option]);
  if (exp->stimulus.kind == SB_STIMULUS_COLOUR)
    {
      g_autofree char *text = sb_template_colour_describe (exp, self->question.options[option]);
      GtkWidget *label = gtk_label_new (text);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 24);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      gtk_box_append (GTK_BOX (box), label);
    }
  return box;
}

/* The options' grid: rows of equal length, so that no place stands out:
 * one row up to 3, 2 x 2 for 4, then the fewest columns that fill every
 * row (the smallest divisor of k at least sqrt(k)). The participant's grid
 * is fixed; the workbench's may wrap on a narrow window. */
static void
layout_options (SbDuelPanel *self, guint k)
{
  guint columns = k;

  for (guint c = 2; c < k; c++)
    if (k % c == 0 && c * c >= k)
      {
        columns = c;
        break;
      }
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->options_box), columns);
  gtk_flow_box_set_min_children_per_line (GTK_FLOW_BOX (self->options_box),
                                          self->participant ? columns : 1);
}

/* One button per option, in the order shown, numbered as the keys. */
static void
rebuild_options (SbDuelPanel *self)
{
  const SbExperiment *exp = self->experiment;
  const SbProposal *q = &self->question;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->options_box)))
    gtk_flow_box_remove (GTK_FLOW_BOX (self->options_box), child);
  g_ptr_array_set_size (self->option_views, 0);
  memset (self->rank_badges, 0, sizeof self->rank_badges);
  memset (self->option_buttons, 0, sizeof self->option_buttons);
  if (exp == NULL || !self->has_question || !k_options (q))
    return;
  for (guint pos = 0; pos < q->n_options; pos++)
    {
      guint option = q->shown_order[pos];
      GtkWidget *button = gtk_button_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      g_autofree char *title = g_strdup_printf ("%u", pos + 1);
      GtkWidget *heading = gtk_label_new (title);
      g_autofree char *tip = g_strdup_printf ("Option %u (key %u)", pos + 1, pos + 1);

      gtk_widget_add_css_class (heading, "heading");
      gtk_box_append (GTK_BOX (box), heading);
      /* a ranking marks each option with its rank as it is clicked */
      self->rank_badges[option] = gtk_label_new ("");
      gtk_widget_add_css_class (self->rank_badges[option], "sb-rank-badge");
      gtk_widget_set_visible (self->rank_badges[option], FALSE);
      gtk_box_append (GTK_BOX (box), self->rank_badges[option]);
      self->option_buttons[option] = button;
      if (exp->stimulus.kind != SB_STIMULUS_NONE)
        {
          /* The stimulus above its own answer button: a sound's play
           * button must not sit inside an answer button. */
          GtkWidget *cell = add_option_stimulus (self, box, option);
          g_object_set_data (g_ptr_array_index (self->option_views, self->option_views->len - 1),
                             "answer-button", button);
          g_object_set_data_full (G_OBJECT (button), "tip", g_strdup (tip), g_free);
          gtk_widget_set_tooltip_text (button, tip);
          g_object_set_data (G_OBJECT (button), "option", GUINT_TO_POINTER (option));
          g_signal_connect (button, "clicked", G_CALLBACK (option_clicked), self);
          gtk_button_set_child (GTK_BUTTON (button),
                                gtk_label_new (q->kind == SB_QUESTION_CHOICE ? _("Choose")
                                                                              : _("Rank next")));
          /* the buttons of a row line up whatever the captions' lengths */
          gtk_widget_set_vexpand (button, TRUE);
          gtk_widget_set_valign (button, GTK_ALIGN_END);
          gtk_box_append (GTK_BOX (box), button);
          gtk_flow_box_append (GTK_FLOW_BOX (self->options_box), cell);
          continue;
        }
      for (guint j = 0; j < exp->n_parameters; j++)
          {
            g_autofree char *v = sb_format_coordinate (&exp->parameters[j], q->options[option][j]);
            g_autofree char *line = g_strdup_printf ("%s  %s", exp->parameters[j].name, v);
            GtkWidget *label = gtk_label_new (line);
            gtk_label_set_xalign (GTK_LABEL (label), 0);
            gtk_widget_add_css_class (label, "sb-value");
            gtk_box_append (GTK_BOX (box), label);
          }
      gtk_button_set_child (GTK_BUTTON (button), box);
      gtk_widget_set_tooltip_text (button, tip);
      g_object_set_data (G_OBJECT (button), "option", GUINT_TO_POINTER (option));
      g_signal_connect (button, "clicked", G_CALLBACK (option_clicked), self);
      gtk_flow_box_append (GTK_FLOW_BOX (self->options_box), button);
    }
}

/* Each ranked option's badge ("Rank 2") and look; the rest unmarked. */
static void
mark_ranks (SbDuelPanel *self)
{
  for (guint option = 0; option < SB_MAX_OPTIONS; option++)
    {
      GtkWidget *badge = self->rank_badges[option];
      guint rank = 0;

      if (badge == NULL)
        continue;
      for (guint r = 0; r < self->n_ranked; r++)
        if (self->rank[r] == option)
          rank = r + 1;
      if (rank)
        {
          g_autofree char *text = g_strdup_printf ("Rank %u", rank);
          gtk_label_set_text (GTK_LABEL (badge), text);
          gtk_widget_add_css_class (self->option_buttons[option], "sb-ranked");
        }
      else
        gtk_widget_remove_css_class (self->option_buttons[option], "sb-ranked");
      gtk_widget_set_visible (badge, rank > 0);
    }
}

/* "Your ranking: 3, 1, …" in the numbers shown; the options marked with
 * their ranks; Confirm says what is missing while it is greyed out. */
static void
update_ranking (SbDuelPanel *self)
{
  const SbProposal *q = &self->question;
  g_autoptr (GString) text = g_string_new ("Your ranking (best first): ");

  mark_ranks (self);
  if (!self->has_question || q->kind != SB_QUESTION_RANKING)
    return;
  if (self->n_ranked + 1 >= q->n_options)
    gtk_widget_set_tooltip_text (self->rank_confirm, "Record this ranking (Enter)");
  else
    {
      g_autofree char *tip = g_strdup_printf ("Rank %u more option%s first (the last needs no "
                                              "click)", q->n_options - 1 - self->n_ranked,
                                              q->n_options - 1 - self->n_ranked == 1 ? "" : "s");
      gtk_widget_set_tooltip_text (self->rank_confirm, tip);
    }
  for (guint r = 0; r < self->n_ranked; r++)
    for (guint pos = 0; pos < q->n_options; pos++)
      if (q->shown_order[pos] == self->rank[r])
        g_string_append_printf (text, "%s%u", r ? ", " : "", pos + 1);
  if (self->n_ranked == 0)
    g_string_append (text, "click the options from best to worst (or press 1 … k)");
  else if (self->n_ranked < q->n_options)
    g_string_append (text, ", …");
  gtk_label_set_text (self->rank_label, text->str);
}

gboolean
sb_duel_panel_rank_add (SbDuelPanel *self, guint option)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), FALSE);
  if (!self->has_question || self->question.kind != SB_QUESTION_RANKING
      || option >= self->question.n_options)
    return FALSE;
  for (guint r = 0; r < self->n_ranked; r++)
    if (self->rank[r] == option)
      return FALSE;
  self->rank[self->n_ranked++] = option;
  update_ranking (self);
  return TRUE;
}

gboolean
sb_duel_panel_rank_undo (SbDuelPanel *self)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), FALSE);
  if (self->n_ranked == 0)
    return FALSE;
  self->n_ranked--;
  update_ranking (self);
  return TRUE;
}

guint
sb_duel_panel_get_ranking (SbDuelPanel *self, guint *order)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), 0);
  memcpy (order, self->rank, sizeof self->rank);
  return self->n_ranked;
}

/* The experiment's rating levels, 0 for the words. */
static guint
rating_levels (SbDuelPanel *self)
{
  return self->experiment ? self->experiment->confidence_levels : 0;
}

sg_confidence
sb_duel_panel_get_confidence (SbDuelPanel *self)
{
  guint k;
  sg_confidence c = SG_CONFIDENCE_NONE;

  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), SG_CONFIDENCE_NONE);
  k = rating_levels (self);
  for (guint r = 1; r <= k; r++)
    if (gtk_toggle_button_get_active (self->rating_toggles[r - 1]))
      sg_confidence_rating (r, k, &c);
  if (k != 0)
    return c;
  return gtk_toggle_button_get_active (self->strong_toggle) ? SG_CONFIDENCE_STRONG
         : gtk_toggle_button_get_active (self->weak_toggle) ? SG_CONFIDENCE_WEAK
                                                            : SG_CONFIDENCE_NONE;
}

void
sb_duel_panel_set_confidence (SbDuelPanel *self, sg_confidence confidence)
{
  unsigned rating = 0;

  g_return_if_fail (SB_IS_DUEL_PANEL (self));
  sg_confidence_rating_of (confidence, &rating, NULL);
  for (guint r = 1; r <= SG_CONFIDENCE_MAX_LEVELS; r++)
    gtk_toggle_button_set_active (self->rating_toggles[r - 1], r == rating);
  gtk_toggle_button_set_active (self->weak_toggle, confidence == SG_CONFIDENCE_WEAK);
  gtk_toggle_button_set_active (self->strong_toggle, confidence == SG_CONFIDENCE_STRONG);
}

gboolean
sb_duel_panel_set_rating (SbDuelPanel *self, guint rating)
{
  sg_confidence c;

  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), FALSE);
  if (sg_confidence_rating (rating, rating_levels (self), &c) != SG_OK)
    return FALSE;
  sb_duel_panel_set_confidence (self, c);
  return TRUE;
}

void
sb_duel_panel_mark_sure (SbDuelPanel *self)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));
  if (rating_levels (self) != 0)
    sb_duel_panel_set_rating (self, rating_levels (self));
  else
    sb_duel_panel_set_confidence (self, SG_CONFIDENCE_STRONG);
}

/* The confidence row for the experiment's scale: "Unsure" / "Sure" for
 * the words, the buttons 1 .. k for a rating. */
static void
update_confidence_scale (SbDuelPanel *self)
{
  guint k = rating_levels (self);
  g_autofree char *text = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->weak_toggle), k == 0);
  gtk_widget_set_visible (GTK_WIDGET (self->strong_toggle), k == 0);
  for (guint r = 1; r <= SG_CONFIDENCE_MAX_LEVELS; r++)
    gtk_widget_set_visible (GTK_WIDGET (self->rating_toggles[r - 1]), r <= k);
  /* TRANSLATORS: %u is the top of the rating scale, e.g. 5 */
  text = k == 0 ? g_strdup (_("Confidence of the next answer:"))
                : g_strdup_printf (_("How sure are you? 1 = not sure … %u = very sure:"), k);
  gtk_label_set_text (self->confidence_label, text);
}

/* The answers beyond a plain duel, added to the template's layout. */
static void
build_extra_answers (SbDuelPanel *self)
{
  GtkWidget *undo, *confirm, *label;

  self->tie_button = gtk_button_new_with_label ("About the same (T)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->tie_button), "win.answer-tie");
  gtk_widget_set_tooltip_text (self->tie_button, "Neither is better: T or ↓");
  gtk_widget_add_css_class (self->tie_button, "sb-answer");
  gtk_box_insert_child_after (GTK_BOX (self->answer_box), self->tie_button,
                              gtk_widget_get_first_child (self->answer_box));
  gtk_widget_set_visible (self->tie_button, FALSE);

  self->options_box = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->options_box), GTK_SELECTION_NONE);
  gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (self->options_box), TRUE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->options_box), 3);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (self->options_box), 12);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (self->options_box), 12);
  gtk_box_insert_child_after (GTK_BOX (self->root), self->options_box, self->swatch_box);

  self->rank_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  self->rank_label = GTK_LABEL (gtk_label_new (""));
  /* No hexpand: it would spread to the panel and take a wide window's
   * room from the plots. */
  gtk_label_set_xalign (self->rank_label, 0);
  gtk_label_set_wrap (self->rank_label, TRUE);
  undo = gtk_button_new_with_label ("Undo click (⌫)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (undo), "win.rank-undo");
  confirm = self->rank_confirm = gtk_button_new_with_label ("Confirm ranking (Enter)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (confirm), "win.rank-confirm");
  gtk_widget_add_css_class (confirm, "suggested-action");
  gtk_box_append (GTK_BOX (self->rank_box), GTK_WIDGET (self->rank_label));
  gtk_box_append (GTK_BOX (self->rank_box), undo);
  gtk_box_append (GTK_BOX (self->rank_box), confirm);
  gtk_box_insert_child_after (GTK_BOX (self->root), self->rank_box, self->options_box);

  self->confidence_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  label = gtk_label_new (_("Confidence of the next answer:"));
  self->confidence_label = GTK_LABEL (label);
  gtk_widget_add_css_class (label, "dim-label");
  /* Wraps rather than widening a narrow window. */
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  self->weak_toggle = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_label (_("Unsure")));
  self->strong_toggle = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_label (_("Sure")));
  gtk_toggle_button_set_group (self->strong_toggle, self->weak_toggle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->strong_toggle),
                               _("Sure: a strong answer (or hold Shift with the answer key)"));
  gtk_box_append (GTK_BOX (self->confidence_box), label);
  gtk_box_append (GTK_BOX (self->confidence_box), GTK_WIDGET (self->weak_toggle));
  gtk_box_append (GTK_BOX (self->confidence_box), GTK_WIDGET (self->strong_toggle));
  {
    /* the rating's buttons share the words' group: one confidence at a time */
    GtkWidget *rating_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class (rating_box, "linked");
    for (guint r = 1; r <= SG_CONFIDENCE_MAX_LEVELS; r++)
      {
        g_autofree char *number = g_strdup_printf ("%u", r);
        /* TRANSLATORS: the tooltip of a confidence rating button */
        g_autofree char *tip = g_strdup_printf (_("Confidence %u (Shift+%u)"), r, r);
        GtkToggleButton *t = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_label (number));
        gtk_toggle_button_set_group (t, self->weak_toggle);
        gtk_widget_set_tooltip_text (GTK_WIDGET (t), tip);
        gtk_widget_set_visible (GTK_WIDGET (t), FALSE);
        self->rating_toggles[r - 1] = t;
        gtk_box_append (GTK_BOX (rating_box), GTK_WIDGET (t));
      }
    gtk_box_append (GTK_BOX (self->confidence_box), rating_box);
  }
  gtk_box_insert_child_after (GTK_BOX (self->root), self->confidence_box, self->rank_box);
}

/* ---- State -------------------------------------------------------------- */

/* What the question asks: the experiment's own wording (question_text)
 * when it gives one, with how a choice or ranking is answered; the app's
 * translated wording otherwise. */
static char *
prompt_for (const SbExperiment *exp, const SbProposal *q)
{
  const char *own = exp->question_text;

  if (q->kind == SB_QUESTION_VALUE)
    return g_strdup (_("Try setting B. Enter the value you measured, or report that it failed."));
  if (q->kind == SB_QUESTION_CHOICE)
    /* TRANSLATORS: %s is the experiment's question, e.g. "Which sound is more pleasant?" */
    return own ? g_strdup_printf (_("%s Click the best, or press its number."), own)
               : g_strdup (_("Which is the best? Click it, or press its number."));
  if (q->kind == SB_QUESTION_RANKING)
    return own ? g_strdup_printf (_("%s Rank them: click from best to worst (or press the "
                                    "numbers), then confirm."), own)
               : g_strdup (_("Rank them: click from best to worst (or press the numbers), "
                             "then confirm."));
  if (own)
    return g_strdup (own);
  switch (exp->template_kind)
    {
    case SB_TEMPLATE_COLOUR:
      return g_strdup (_("Which colour do you like better?"));
    case SB_TEMPLATE_BENCHMARK:
      return g_strdup (exp->simulated ? _("Which point scores higher? (The simulated oracle knows.)")
                                      : _("Which point scores higher?"));
    case SB_TEMPLATE_CUSTOM:
    default:
      return g_strdup (_("Which setting works better?"));
    }
}

/* The recommendation (sb-recommend.h): once the study is finished it is
 * the best found, and on a followed file (read-only) the best `skewgp
 * status` reports; while questions are asked here, only when it is about
 * the incumbent shown (or there is no other: a session opened after its
 * last answer has no question). */
static const SbRecommendation *
current_recommendation (SbDuelPanel *self)
{
  const SbRecommendation *r = &self->recommendation;

  if (!self->has_recommendation || !r->has_best)
    return NULL;
  if (!self->finished && !self->read_only && self->has_best && !recommends_incumbent (self, r))
    return NULL;
  return r;
}

static void
update_best (SbDuelPanel *self)
{
  const SbExperiment *exp = self->experiment;
  const SbProposal *q = &self->best;
  const SbRecommendation *rec = current_recommendation (self);
  g_autoptr (GString) text = g_string_new (self->finished ? "Best found: " : "Current best: ");

  if (best_setting (self) == NULL)
    {
      gtk_label_set_text (self->best_label,
                          exp->mode == SB_MODE_SAFE
                          && (exp->has_safe_start || exp->template_kind == SB_TEMPLATE_BENCHMARK)
                          ? "Current best: none yet — the first question measures the safe start."
                          : "Current best: none yet — the first questions explore at random.");
      return;
    }
  {
    g_autofree char *setting = sb_experiment_describe_setting (exp, best_setting (self));
    g_string_append (text, setting);
  }
  /* the true values are the incumbent's */
  if (self->has_best && (rec == NULL || recommends_incumbent (self, rec)) && exp->show_truth
      && isfinite (q->truth_best))
    g_string_append_printf (text, "  (true value %.4g; optimum %.4g)", q->truth_best, q->truth_optimum);
  if (rec && isfinite (rec->mean))
    g_string_append_printf (text, "\nPosterior mean %.4g, 95%% credible interval [%.4g, %.4g] "
                            "(model of %u answers)", rec->mean, rec->lower, rec->upper,
                            rec->n_answers);
  gtk_label_set_text (self->best_label, text->str);
}

/* The participant view: neutral side names, answer buttons for the left
 * and right side as shown, and nothing of the analysis (current best,
 * truths, autoplay, continuing the budget, the experimenter's keys). */
static void
update_participant (SbDuelPanel *self)
{
  guint left = left_option (self);
  GtkWidget *buttons[2] = { self->prefer_a_button, self->prefer_b_button };

  if (self->participant)
    {
      gboolean duel = !self->has_question || self->question.kind == SB_QUESTION_DUEL;
      gtk_label_set_text (self->swatch_a_title, duel ? "Left" : "");
      gtk_label_set_text (self->swatch_b_title, duel ? "Right" : "Setting");
      gtk_widget_set_visible (GTK_WIDGET (self->best_label), FALSE);
      gtk_widget_set_visible (gtk_widget_get_prev_sibling (GTK_WIDGET (self->best_label)), FALSE);
      /* colours are judged by their swatches, not their numbers */
      if (gtk_widget_get_visible (self->swatch_box))
        gtk_widget_set_visible (gtk_widget_get_parent (GTK_WIDGET (self->table)), FALSE);
      gtk_widget_set_visible (self->autoplay_box, FALSE);
      gtk_widget_set_visible (self->finished_box, FALSE);
    }
  else
    {
      gtk_widget_set_visible (GTK_WIDGET (self->best_label), TRUE);
      gtk_widget_set_visible (gtk_widget_get_prev_sibling (GTK_WIDGET (self->best_label)), TRUE);
    }
  for (guint side = 0; side < 2; side++)
    {
      guint option = side == 0 ? left : 1 - left;
      GtkLabel *label = GTK_LABEL (gtk_button_get_child (GTK_BUTTON (buttons[side])));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (buttons[side]),
                                      option == 0 ? "win.answer-a" : "win.answer-b");
      if (self->participant)
        {
          gtk_label_set_text (label, side == 0 ? "← Left" : "Right →");
          gtk_widget_set_tooltip_text (buttons[side], NULL);
        }
      else
        gtk_label_set_text (label, side == 0 ? "← I prefer A" : "I prefer B →");
    }
}

/* The keys that answer the question on screen, or NULL when no key
 * answers here (no question, the budget answered, a session only
 * followed, the participant view, which shows no hints). */
static char *
keys_hint (SbDuelPanel *self)
{
  const SbExperiment *exp = self->experiment;
  const SbProposal *q = &self->question;
  const char *undo = "S skips · Ctrl+Z undoes the last answer";
  g_autofree char *answer = NULL;

  if (!self->has_question || self->finished || self->read_only || self->participant)
    return NULL;
  guint k = rating_levels (self);
  g_autofree char *sure = k ? g_strdup_printf (" · Shift+1 … %u: how sure, for the next answer", k)
                            : NULL;
  switch (q->kind)
    {
    case SB_QUESTION_CHOICE:
      answer = k ? g_strdup_printf ("1 … %u choose the best%s", q->n_options, sure)
                 : g_strdup_printf ("1 … %u choose the best (with Shift: sure)", q->n_options);
      break;
    case SB_QUESTION_RANKING:
      answer = g_strdup_printf ("1 … %u rank the next best · ⌫ takes back a click · Enter "
                                "confirms", q->n_options);
      break;
    case SB_QUESTION_VALUE:
      answer = g_strdup ("type the value, Enter records it · F: it failed");
      break;
    case SB_QUESTION_DUEL:
    default:
      answer = g_strdup_printf ("← or A prefers A · → or B prefers B%s%s",
                                exp->ties_allowed ? " · T or ↓ about the same" : "",
                                k ? sure : " · Shift with an answer: sure");
      break;
    }
  return g_strdup_printf ("Keys: %s · %s%s", answer, undo,
                          exp->simulated ? " · O: the oracle answers once · Ctrl+P auto-play" : "");
}

static void
update_keys_hint (SbDuelPanel *self)
{
  g_autofree char *hint = keys_hint (self);

  gtk_label_set_text (self->keys_label, hint ? hint : "");
  gtk_widget_set_visible (GTK_WIDGET (self->keys_label), hint && !self->compact);
}

static void
update (SbDuelPanel *self)
{
  const SbExperiment *exp = self->experiment;
  const SbProposal *q = &self->question;
  gboolean duel, colour;
  g_autofree char *number = NULL;

  if (exp == NULL)
    return;
  duel = !self->has_question || q->kind != SB_QUESTION_VALUE;
  colour = exp->stimulus.kind != SB_STIMULUS_NONE;
  {
    gboolean many = self->has_question && k_options (q) && !self->finished && !self->read_only;
    gboolean preference = duel && !self->finished && !self->read_only;
    gtk_widget_set_visible (self->options_box, many);
    if (many)
      layout_options (self, q->n_options);
    gtk_widget_set_visible (self->rank_box, many && q->kind == SB_QUESTION_RANKING);
    gtk_widget_set_visible (self->tie_button, exp->ties_allowed);
    /* On a narrow window the answer buttons keep the room; Shift with an
     * answer key still gives a sure answer there. */
    gtk_widget_set_visible (self->confidence_box,
                            preference && !self->compact
                            && (!self->has_question || q->kind != SB_QUESTION_RANKING));
    gtk_widget_set_visible (gtk_widget_get_parent (GTK_WIDGET (self->table)),
                            !self->has_question || !k_options (q));
    /* k options replace the A/B swatches and buttons; skip stays */
    for (GtkWidget *c = gtk_widget_get_first_child (self->answer_box); c;
         c = gtk_widget_get_next_sibling (c))
      if (c != self->tie_button)
        gtk_widget_set_visible (c, !many || g_strcmp0 (gtk_actionable_get_action_name (
                                                          GTK_ACTIONABLE (c)), "win.skip") == 0);
    colour = colour && !many;
  }

  if (self->finished && self->finished_reason)
    number = g_strdup_printf ("%u of %u questions answered · nothing new is safe enough",
                              self->n_answers, exp->budget);
  else if (self->finished)
    number = g_strdup_printf ("All %u questions answered", exp->budget);
  else
    number = g_strdup_printf ("Question %u of %u%s", self->n_answers + 1, exp->budget,
                              self->has_question && q->initial && !self->participant
                              ? " · initial design" : "");
  gtk_label_set_text (self->question_label, number);

  gtk_widget_set_visible (GTK_WIDGET (self->spinner), self->busy);
  gtk_spinner_set_spinning (self->spinner, self->busy);
  gtk_widget_set_visible (GTK_WIDGET (self->busy_label), self->busy);

  if (self->read_only)
    gtk_label_set_text (self->prompt_label, self->read_only);
  else if (self->finished && self->participant)
    gtk_label_set_text (self->prompt_label, "All questions are answered. Thank you!");
  else if (self->finished && self->finished_reason)
    {
      g_autofree char *text = g_strdup_printf ("%s The best setting found is below; undo "
                                               "(Ctrl+Z) to revise the last answer, or start "
                                               "a new experiment.", self->finished_reason);
      gtk_label_set_text (self->prompt_label, text);
    }
  else if (self->finished)
    gtk_label_set_text (self->prompt_label,
                        "Every question of the budget is answered. The best setting found is "
                        "below; continue with more questions, undo (Ctrl+Z) to revise the "
                        "last answer, or start a new experiment.");
  else if (self->busy && !self->has_question)
    gtk_label_set_text (self->prompt_label,
                        "The engine is choosing the next question; it can be answered as "
                        "soon as it is shown.");
  else if (self->has_question)
    {
      g_autofree char *prompt = prompt_for (exp, q);
      gtk_label_set_text (self->prompt_label, prompt);
    }
  else
    gtk_label_set_text (self->prompt_label, "");

  gtk_widget_set_visible (self->swatch_box, colour);
  gtk_widget_set_visible (GTK_WIDGET (self->swatch_a), duel || (q->has_best && !self->participant));
  gtk_widget_set_visible (GTK_WIDGET (self->swatch_b), !self->finished);
  gtk_widget_set_visible (GTK_WIDGET (self->swatch_b_title), !self->finished);
  gtk_widget_set_visible (GTK_WIDGET (self->swatch_b_label), !self->finished);
  gtk_label_set_text (self->swatch_a_title,
                      self->finished ? "Best found"
                      : !duel ? "Current best" : self->has_question && !q->has_best ? "A" : "A · current best");
  gtk_label_set_text (self->swatch_b_title,
                      !duel ? "B · setting to try" : self->has_question && !q->has_best ? "B" : "B · new candidate");
  if (exp->stimulus.kind != SB_STIMULUS_COLOUR)
    {
      gtk_label_set_text (self->swatch_a_label, "");
      gtk_label_set_text (self->swatch_b_label, "");
    }
  else if (self->finished && self->has_best)
    {
      g_autofree char *a = sb_template_colour_describe (exp, self->best.best);
      gtk_label_set_text (self->swatch_a_label, a);
    }
  else if (self->has_question && !self->participant)
    {
      g_autofree char *a = (duel || q->has_best) ? sb_template_colour_describe (exp, q->a) : g_strdup ("");
      g_autofree char *b = sb_template_colour_describe (exp, q->b);
      gtk_label_set_text (self->swatch_a_label, a);
      gtk_label_set_text (self->swatch_b_label, b);
    }
  else
    {
      gtk_label_set_text (self->swatch_a_label, "");
      gtk_label_set_text (self->swatch_b_label, "");
    }

  gtk_widget_set_visible (self->answer_box, duel && !self->finished && !self->read_only);
  if (self->has_question && k_options (q))
    gtk_widget_set_visible (self->swatch_box, FALSE);
  gtk_widget_set_visible (self->value_box, !duel && !self->finished && !self->read_only);
  /* Value questions (mixed and safe mode) may be answered "it failed". */
  gtk_widget_set_visible (self->failed_button, exp->mode != SB_MODE_PREFERENCE);
  gtk_widget_set_visible (GTK_WIDGET (self->value_hint), !duel && !self->finished);
  if (!duel && exp->mode == SB_MODE_SAFE)
    {
      g_autofree char *hint = g_strdup_printf ("Safe mode: a setting counts as safe when its value is "
                                               "at least %g. Report \"failed\" if it produced nothing.",
                                               exp->threshold);
      gtk_label_set_text (self->value_hint, hint);
    }
  else if (!duel && exp->mode == SB_MODE_MIXED)
    {
      g_autofree char *hint = g_strdup_printf ("Type the number and press Enter. Report \"failed\" "
                                               "(F) if it produced nothing: it counts as below the "
                                               "failure level %g.", exp->threshold);
      gtk_label_set_text (self->value_hint, hint);
    }
  else
    gtk_label_set_text (self->value_hint, "Type the number and press Enter.");
  gtk_widget_set_visible (self->autoplay_box, exp->simulated && !self->finished);
  gtk_widget_set_visible (self->finished_box, self->finished && !self->read_only);

  update_table (self);
  update_best (self);
  update_participant (self);
  update_keys_hint (self);
}

void
sb_duel_panel_set_compact (SbDuelPanel *self, gboolean compact)
{
  GtkOrientation rows = compact ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL;
  GtkWidget *boxes[] = { self->value_box, self->autoplay_box, self->finished_box,
                         self->rank_box, self->confidence_box };

  g_return_if_fail (SB_IS_DUEL_PANEL (self));
  for (guint i = 0; i < G_N_ELEMENTS (boxes); i++)
    {
      gtk_orientable_set_orientation (GTK_ORIENTABLE (boxes[i]), rows);
      gtk_box_set_spacing (GTK_BOX (boxes[i]), compact ? 6 : 12);
    }
  gtk_box_set_spacing (GTK_BOX (self->root), compact ? 10 : 14);
  gtk_grid_set_column_spacing (self->table, compact ? 12 : 24);
  self->compact = compact;
  update (self);
}

void
sb_duel_panel_set_experiment (SbDuelPanel *self, const SbExperiment *exp)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));

  g_clear_pointer (&self->experiment, sb_experiment_free);
  drop_renderer (self);
  self->experiment = exp ? sb_experiment_copy (exp) : NULL;
  self->has_question = FALSE;
  self->has_best = FALSE;
  self->has_recommendation = FALSE;
  self->finished = FALSE;
  if (exp)
    gtk_adjustment_set_value (self->speed_adjustment, exp->autoplay_ms);
  rebuild_table (self);
  update_confidence_scale (self);
  update (self);
  show_stimuli (self);
}

void
sb_duel_panel_set_question (SbDuelPanel *self, const SbProposal *question, guint n_answers)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));

  self->n_answers = n_answers;
  self->has_question = question != NULL;
  if (question)
    {
      self->question = *question;
      self->question.model = NULL;
    }
  if (question && question->has_best)
    {
      self->best = self->question;
      self->has_best = TRUE;
    }
  if (question && question->kind == SB_QUESTION_VALUE)
    sb_duel_panel_clear_entered_value (self);
  if (question)
    {
      self->n_ranked = 0;
      sb_duel_panel_set_confidence (self, SG_CONFIDENCE_NONE);
    }
  rebuild_options (self);
  update_ranking (self);
  update (self);
  show_stimuli (self);
  /* A value question is answered by typing: put the cursor there. */
  if (question && question->kind == SB_QUESTION_VALUE && !self->finished)
    gtk_widget_grab_focus (GTK_WIDGET (self->value_entry));
}

const SbProposal *
sb_duel_panel_get_question (SbDuelPanel *self)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), NULL);
  return self->has_question ? &self->question : NULL;
}

void
sb_duel_panel_set_read_only (SbDuelPanel *self, const char *reason)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));
  if (g_strcmp0 (self->read_only, reason) == 0)
    return;
  g_free (self->read_only);
  self->read_only = g_strdup (reason);
  update (self);
}

gboolean
sb_duel_panel_get_busy (SbDuelPanel *self)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), FALSE);
  return self->busy;
}

void
sb_duel_panel_set_busy (SbDuelPanel *self, gboolean busy)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));

  busy = !!busy;
  if (self->busy == busy)
    return;
  self->busy = busy;
  update (self);
  update_answer_tooltips (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

gboolean
sb_duel_panel_get_participant (SbDuelPanel *self)
{
  g_return_val_if_fail (SB_IS_DUEL_PANEL (self), FALSE);
  return self->participant;
}

void
sb_duel_panel_set_participant (SbDuelPanel *self, gboolean participant)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));

  participant = !!participant;
  if (self->participant == participant)
    return;
  self->participant = participant;
  update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PARTICIPANT]);
}

/* Greyed-out answers say why: the next question is being computed, or
 * its stimuli are not ready to be judged. */
static void
update_answer_tooltips (SbDuelPanel *self)
{
  const char *busy = self->busy ? _("The next question is being computed") : NULL;
  const char *wait = busy ? busy : self->answer_blocker;

  gtk_widget_set_tooltip_text (self->prefer_a_button, wait ? wait : _("Left arrow or A"));
  gtk_widget_set_tooltip_text (self->prefer_b_button, wait ? wait : _("Right arrow or B"));
  gtk_widget_set_tooltip_text (self->tie_button, wait ? wait : _("Neither is better: T or ↓"));
  gtk_widget_set_tooltip_text (self->skip_button,
                               busy ? busy : _("Cannot decide: ask another question (S)"));
}

void
sb_duel_panel_set_recommendation (SbDuelPanel *self, const SbRecommendation *rec)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));
  self->has_recommendation = rec != NULL;
  if (rec)
    self->recommendation = *rec;
  if (self->experiment)
    {
      update_table (self);  /* finished: the table shows the best found */
      update_best (self);
      show_stimuli (self);
    }
}

void
sb_duel_panel_set_finished (SbDuelPanel *self, gboolean finished)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));

  if (self->finished == !!finished)
    return;
  self->finished = !!finished;
  if (!finished)  /* more questions: the model moves on */
    self->has_recommendation = FALSE;
  update (self);
  show_stimuli (self);
}

void
sb_duel_panel_set_finished_reason (SbDuelPanel *self, const char *reason)
{
  g_return_if_fail (SB_IS_DUEL_PANEL (self));

  if (g_strcmp0 (self->finished_reason, reason) == 0)
    return;
  g_free (self->finished_reason);
  self->finished_reason = g_strdup (reason);
  update (self);
}

/* The decimal separator of the user's locale ('.' or ','). */
static char
locale_decimal_point (void)
{
  const char *dp = localeconv ()->decimal_point;
  return dp && dp[0] == ',' ? ',' : '.';
}

/* Reads TEXT as a number written with the locale's decimal separator.
 * The other separator is refused rather than guessed at: "1,500" is 1.5
 * in German and 1500 in English, and recording the wrong one is a silent
 * error in the data. Sets HINT to what to type instead. */
gboolean
sb_parse_entered_number (const char *text, char decimal_point, double *value, char **hint)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  char other = decimal_point == ',' ? '.' : ',';
  char *end = NULL;
  double v;

  if (strchr (trimmed, other) != NULL)
    {
      *hint = g_strdup_printf ("“%s” is ambiguous: write the number without thousands "
                               "separators, with “%c” before the decimals (e.g. 1500%c5).",
                               trimmed, decimal_point, decimal_point);
      return FALSE;
    }
  if (decimal_point == ',')
    g_strdelimit (trimmed, ",", '.');
  v = g_ascii_strtod (trimmed, &end);
  if (*trimmed == '\0' || end == NULL || *end != '\0' || !isfinite (v))
    {
      *hint = g_strdup_printf ("“%s” is not a number: type a value such as 12%c5.",
                               text, decimal_point);
      return FALSE;
    }
  *value = v;
  return TRUE;
}

gboolean
sb_duel_panel_get_entered_value (SbDuelPanel *self, double *value)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->value_entry));
  g_autofree char *hint = NULL;

  if (!sb_parse_entered_number (text, locale_decimal_point (), value, &hint))
    {
      gtk_label_set_text (self->value_hint, hint);
      gtk_widget_add_css_class (GTK_WIDGET (self->value_entry), "error");
      return FALSE;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (self->value_entry), "error");
  return TRUE;
}

void
sb_duel_panel_clear_entered_value (SbDuelPanel *self)
{
  gtk_editable_set_text (GTK_EDITABLE (self->value_entry), "");
  gtk_widget_remove_css_class (GTK_WIDGET (self->value_entry), "error");
}

guint
sb_duel_panel_get_autoplay_delay (SbDuelPanel *self)
{
  return (guint) gtk_adjustment_get_value (self->speed_adjustment);
}

void
sb_duel_panel_set_autoplay_delay (SbDuelPanel *self, guint delay_ms)
{
  gtk_adjustment_set_value (self->speed_adjustment, delay_ms);
}

GtkWidget *
sb_duel_panel_get_value_entry (SbDuelPanel *self)
{
  return GTK_WIDGET (self->value_entry);
}

/* "Continue for N more questions" (win.extend-budget, N as "u"). */
static void
extend_clicked (GtkButton *button, SbDuelPanel *self)
{
  guint more = (guint) gtk_adjustment_get_value (self->extend_adjustment);

  gtk_widget_activate_action (GTK_WIDGET (self), "win.extend-budget", "u", more);
}

static void
value_entry_activate (GtkEntry *entry, SbDuelPanel *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.answer-value", NULL);
}

/* ---- GObject ------------------------------------------------------------ */

static void
sb_duel_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SbDuelPanel *self = SB_DUEL_PANEL (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_PARTICIPANT:
      g_value_set_boolean (value, self->participant);
      break;
    case PROP_ANSWER_BLOCKER:
      g_value_set_string (value, self->answer_blocker);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_duel_panel_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SbDuelPanel *self = SB_DUEL_PANEL (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      sb_duel_panel_set_busy (self, g_value_get_boolean (value));
      break;
    case PROP_PARTICIPANT:
      sb_duel_panel_set_participant (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_duel_panel_dispose (GObject *object)
{
  SbDuelPanel *self = SB_DUEL_PANEL (object);

  drop_renderer (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_DUEL_PANEL);
  G_OBJECT_CLASS (sb_duel_panel_parent_class)->dispose (object);
}

static void
sb_duel_panel_finalize (GObject *object)
{
  SbDuelPanel *self = SB_DUEL_PANEL (object);

  g_clear_pointer (&self->experiment, sb_experiment_free);
  g_clear_pointer (&self->value_labels, g_ptr_array_unref);
  g_clear_pointer (&self->option_views, g_ptr_array_unref);
  g_free (self->stimulus_folder);
  g_free (self->trust_file);
  g_free (self->answer_blocker);
  g_free (self->read_only);
  g_free (self->finished_reason);
  G_OBJECT_CLASS (sb_duel_panel_parent_class)->finalize (object);
}

static void
sb_duel_panel_class_init (SbDuelPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = sb_duel_panel_get_property;
  object_class->set_property = sb_duel_panel_set_property;
  object_class->dispose = sb_duel_panel_dispose;
  object_class->finalize = sb_duel_panel_finalize;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PARTICIPANT] =
    g_param_spec_boolean ("participant", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Why the options cannot be judged yet (rendering, a failed renderer,
   * a sound not heard to the end), or NULL: the window disables the
   * answers meanwhile. */
  properties[PROP_ANSWER_BLOCKER] =
    g_param_spec_string ("answer-blocker", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_type_ensure (SB_TYPE_STIMULUS_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-duel-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, root);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, question_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, busy_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, prompt_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_box);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_a_title);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_b_title);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_a);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_b);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_a_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, swatch_b_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, table);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, answer_box);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, value_box);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, value_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, value_entry);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, failed_button);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, value_hint);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, autoplay_box);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, speed_adjustment);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, best_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, finished_box);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, extend_adjustment);
  gtk_widget_class_bind_template_callback (widget_class, extend_clicked);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, keys_label);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, prefer_a_button);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, prefer_b_button);
  gtk_widget_class_bind_template_child (widget_class, SbDuelPanel, skip_button);
  gtk_widget_class_set_css_name (widget_class, "duelpanel");
}

static void
sb_duel_panel_init (SbDuelPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->value_labels = g_ptr_array_new ();
  self->option_views = g_ptr_array_new ();
  g_signal_connect (self->swatch_a, "blocker-changed", G_CALLBACK (stimulus_blocker_changed), self);
  g_signal_connect (self->swatch_b, "blocker-changed", G_CALLBACK (stimulus_blocker_changed), self);
  g_signal_connect (self->swatch_a, "retry", G_CALLBACK (stimulus_retry), self);
  g_signal_connect (self->swatch_b, "retry", G_CALLBACK (stimulus_retry), self);
  g_signal_connect (self->value_entry, "activate", G_CALLBACK (value_entry_activate), self);
  build_extra_answers (self);
}

GtkWidget *
sb_duel_panel_new (void)
{
  return g_object_new (SB_TYPE_DUEL_PANEL, NULL);
}
