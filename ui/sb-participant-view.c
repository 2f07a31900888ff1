/* sb-participant-view.c — the participant's screen (see
 * sb-participant-view.h). */
#include "config.h"

#include "sb-participant-view.h"
#include "sb-keys.h"
#include "sb-stimulus-renderer.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "sb-settings.h"

struct _SbParticipantView
{
  GtkWidget parent_instance;

  /* Owned */
  SbCampaign *campaign;
  SbParticipantSettings settings;
  char *code;
  GtkCssProvider *surround_css;
  SbParticipantPhase phase;
  SbParticipantPhase phase_before_unlock;
  guint iti_source;            /* the inter-trial interval running       */
  gulong after_paint_handler;  /* waiting for the question's first frame */
  GdkFrameClock *paint_clock;  /* the clock of that handler              */
  guint n_answered;

  /* Template widgets (borrowed) */
  GtkStack *stack;
  SbDuelPanel *panel;
  GtkLabel *message_label;
  GtkPasswordEntry *code_entry;
  GtkWidget *code_error;
};

G_DEFINE_FINAL_TYPE (SbParticipantView, sb_participant_view, GTK_TYPE_WIDGET)

enum {
  UNLOCKED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- Settings ----------------------------------------------------------- */

void
sb_participant_settings_load (SbParticipantSettings *settings)
{
  GSettings *gs = sb_settings_get_default ();
  g_autofree char *surround = gs ? g_settings_get_string (gs, "participant-surround") : NULL;

  if (surround == NULL || !gdk_rgba_parse (&settings->surround, surround))
    gdk_rgba_parse (&settings->surround, "#808080");
  settings->surround.alpha = 1;
  settings->iti_ms = gs ? g_settings_get_uint (gs, "participant-iti-ms") : 1000;
  settings->break_every = gs ? g_settings_get_uint (gs, "participant-break-every") : 20;
}

void
sb_participant_settings_save (const SbParticipantSettings *settings)
{
  GSettings *gs = sb_settings_get_default ();
  g_autofree char *surround = NULL;

  if (gs == NULL)
    return;
  surround = g_strdup_printf ("#%02x%02x%02x", (int) lround (255 * settings->surround.red),
                              (int) lround (255 * settings->surround.green),
                              (int) lround (255 * settings->surround.blue));
  g_settings_set_string (gs, "participant-surround", surround);
  g_settings_set_uint (gs, "participant-iti-ms", MIN (settings->iti_ms, 60000));
  g_settings_set_uint (gs, "participant-break-every", MIN (settings->break_every, 10000));
}

/* ---- Surround ----------------------------------------------------------- */

/* The surround fills the view; text on it is black or white, whichever
 * reads better on that colour. */
static void
apply_surround (SbParticipantView *self)
{
  const GdkRGBA *c = &self->settings.surround;
  double luminance = 0.2126 * c->red + 0.7152 * c->green + 0.0722 * c->blue;
  g_autofree char *colour = gdk_rgba_to_string (c);
  g_autofree char *css = g_strdup_printf ("participantview { background-color: %s; color: %s; }",
                                          colour, luminance > 0.45 ? "#000000" : "#ffffff");

  if (self->surround_css == NULL)
    {
      self->surround_css = gtk_css_provider_new ();
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      gtk_style_context_add_provider (gtk_widget_get_style_context (GTK_WIDGET (self)),
                                      GTK_STYLE_PROVIDER (self->surround_css),
                                      GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      G_GNUC_END_IGNORE_DEPRECATIONS
    }
  gtk_css_provider_load_from_data (self->surround_css, css, -1);
}

/* ---- Phases ------------------------------------------------------------- */

static void
stop_waiting_for_paint (SbParticipantView *self)
{
  if (self->after_paint_handler)
    g_signal_handler_disconnect (self->paint_clock, self->after_paint_handler);
  self->after_paint_handler = 0;
  g_clear_object (&self->paint_clock);
}

static void
set_phase (SbParticipantView *self, SbParticipantPhase phase)
{
  self->phase = phase;
  if (phase != SB_PARTICIPANT_PRESENTING)
    stop_waiting_for_paint (self);
}

static void
show_message (SbParticipantView *self, SbParticipantPhase phase, const char *text)
{
  g_clear_handle_id (&self->iti_source, g_source_remove);
  set_phase (self, phase);
  gtk_label_set_text (self->message_label, text);
  gtk_stack_set_visible_child_name (self->stack, "message");
}

/* The question is on screen: once its stimuli can be judged (rendered,
 * every sound heard) input opens and the response time starts. */
static void
question_drawn (SbParticipantView *self)
{
  stop_waiting_for_paint (self);
  if (self->phase != SB_PARTICIPANT_PRESENTING
      || sb_duel_panel_get_answer_blocker (self->panel) != NULL)
    return;
  sb_campaign_mark_shown (self->campaign);
  set_phase (self, SB_PARTICIPANT_ANSWERING);
}

/* The stimuli became ready (or stopped being ready) after the first frame. */
static void
on_answer_blocker (SbParticipantView *self)
{
  if (self->phase == SB_PARTICIPANT_PRESENTING && self->after_paint_handler == 0)
    question_drawn (self);
}

static void
on_after_paint (GdkFrameClock *clock, SbParticipantView *self)
{
  question_drawn (self);
}

/* Shows the campaign's question; input opens with the first frame that
 * has it on screen. */
static void
present (SbParticipantView *self)
{
  const SbProposal *q = sb_campaign_get_question (self->campaign);
  SbSession *session = sb_campaign_get_session (self->campaign);
  GdkFrameClock *clock;

  sb_duel_panel_set_question (self->panel, q, sb_session_get_n_answers (session));
  gtk_stack_set_visible_child_name (self->stack, "question");
  set_phase (self, SB_PARTICIPANT_PRESENTING);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  if (clock == NULL)
    {
      question_drawn (self);
      return;
    }
  self->paint_clock = g_object_ref (clock);
  self->after_paint_handler = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* After the interval, a question waiting is shown; otherwise the screen
 * stays blank until ::question-ready. */
static void
present_when_ready (SbParticipantView *self)
{
  SbCampaignState state = sb_campaign_get_state (self->campaign);

  if (self->phase != SB_PARTICIPANT_BLANK || self->iti_source != 0)
    return;
  if (state == SB_CAMPAIGN_ASKING)
    present (self);
  else if (state == SB_CAMPAIGN_FINISHED)
    show_message (self, SB_PARTICIPANT_DONE,
                  "All questions are answered. Thank you!\nPlease tell the experimenter.");
  else if (state == SB_CAMPAIGN_STALLED || state == SB_CAMPAIGN_EMPTY
           || state == SB_CAMPAIGN_FOLLOWING)
    show_message (self, SB_PARTICIPANT_DONE, "Please call the experimenter.");
}

static gboolean
iti_over (gpointer user_data)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (user_data);

  self->iti_source = 0;
  present_when_ready (self);
  return G_SOURCE_REMOVE;
}

/* A blank screen for the inter-trial interval, then the next question. */
static void
start_interval (SbParticipantView *self)
{
  g_clear_handle_id (&self->iti_source, g_source_remove);
  set_phase (self, SB_PARTICIPANT_BLANK);
  sb_duel_panel_set_question (self->panel, NULL, 0);
  gtk_stack_set_visible_child_name (self->stack, "blank");
  if (self->settings.iti_ms > 0)
    self->iti_source = g_timeout_add (self->settings.iti_ms, iti_over, self);
  else
    present_when_ready (self);
}

static void
on_question_ready (SbCampaign *campaign, SbParticipantView *self)
{
  if (self->phase == SB_PARTICIPANT_BLANK)
    present_when_ready (self);
  else if (self->phase == SB_PARTICIPANT_PRESENTING || self->phase == SB_PARTICIPANT_ANSWERING)
    present (self);
}

static void
on_state_changed (SbCampaign *campaign, GParamSpec *pspec, SbParticipantView *self)
{
  SbCampaignState state = sb_campaign_get_state (campaign);

  if (self->phase == SB_PARTICIPANT_BLANK)
    present_when_ready (self);
  else if ((self->phase == SB_PARTICIPANT_PRESENTING || self->phase == SB_PARTICIPANT_ANSWERING)
           && state != SB_CAMPAIGN_ASKING)
    start_interval (self);
}

/* ---- Answers ------------------------------------------------------------ */

static gboolean
answer (SbParticipantView *self, SbAnswer *a)
{
  g_autoptr (GError) error = NULL;

  if (self->phase != SB_PARTICIPANT_ANSWERING
      || sb_duel_panel_get_answer_blocker (self->panel) != NULL
      || sb_duel_panel_get_question (self->panel) == NULL)
    {
      g_debug ("participant answer refused: the question is not on screen");
      gtk_widget_error_bell (GTK_WIDGET (self));
      return FALSE;
    }
  if (a->kind == SB_ANSWER_CHOSEN)
    a->confidence = sb_duel_panel_get_confidence (self->panel);
  /* this view shows every question in its shown order */
  a->n_shown = sb_duel_panel_get_question (self->panel)->n_options;
  memcpy (a->shown_order, sb_duel_panel_get_question (self->panel)->shown_order,
          sizeof a->shown_order);
  if (!sb_campaign_answer (self->campaign, a, &error))
    {
      g_debug ("participant answer refused: %s", error->message);
      gtk_widget_error_bell (GTK_WIDGET (self));
      return FALSE;
    }
  self->n_answered++;
  if (self->settings.break_every > 0 && self->n_answered % self->settings.break_every == 0
      && sb_campaign_get_state (self->campaign) != SB_CAMPAIGN_FINISHED)
    show_message (self, SB_PARTICIPANT_BREAK, "Take a short break — press Space to continue");
  else
    start_interval (self);
  return TRUE;
}

static void
simple_answer (SbParticipantView *self, SbAnswerKind kind)
{
  SbAnswer a = { .kind = kind, .value = NAN };

  answer (self, &a);
}

/* A or B: a duel's sides only. */
static void
choose_side (SbParticipantView *self, guint side)
{
  const SbProposal *q = sb_duel_panel_get_question (self->panel);
  SbAnswer a = { .kind = SB_ANSWER_CHOSEN, .chosen = side };

  if (q == NULL || q->kind != SB_QUESTION_DUEL)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  answer (self, &a);
}

static void
answer_a_action (GtkWidget *widget, const char *name, GVariant *p)
{
  choose_side (SB_PARTICIPANT_VIEW (widget), 0);
}

static void
answer_b_action (GtkWidget *widget, const char *name, GVariant *p)
{
  choose_side (SB_PARTICIPANT_VIEW (widget), 1);
}

static void
answer_tie_action (GtkWidget *widget, const char *name, GVariant *p)
{
  simple_answer (SB_PARTICIPANT_VIEW (widget), SB_ANSWER_TIE);
}

static void
skip_action (GtkWidget *widget, const char *name, GVariant *p)
{
  simple_answer (SB_PARTICIPANT_VIEW (widget), SB_ANSWER_SKIP);
}

static void
choose_action (GtkWidget *widget, const char *name, GVariant *p)
{
  SbAnswer a = { .kind = SB_ANSWER_CHOSEN, .chosen = g_variant_get_uint32 (p) };

  answer (SB_PARTICIPANT_VIEW (widget), &a);
}

static void
rank_add_action (GtkWidget *widget, const char *name, GVariant *p)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (widget);

  if (self->phase != SB_PARTICIPANT_ANSWERING
      || !sb_duel_panel_rank_add (self->panel, g_variant_get_uint32 (p)))
    gtk_widget_error_bell (widget);
}

static void
rank_undo_action (GtkWidget *widget, const char *name, GVariant *p)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (widget);

  if (self->phase != SB_PARTICIPANT_ANSWERING || !sb_duel_panel_rank_undo (self->panel))
    gtk_widget_error_bell (widget);
}

/* The ranking clicked so far; the one option left, if any, is last. */
static void
rank_confirm_action (GtkWidget *widget, const char *name, GVariant *p)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (widget);
  const SbProposal *q = sb_campaign_get_question (self->campaign);
  SbAnswer a = { .kind = SB_ANSWER_RANKING };
  guint n = sb_duel_panel_get_ranking (self->panel, a.ranking);

  if (q != NULL && n + 1 == q->n_options)
    for (guint option = 0; option < q->n_options; option++)
      {
        gboolean ranked = FALSE;
        for (guint r = 0; r < n; r++)
          ranked |= a.ranking[r] == option;
        if (!ranked)
          a.ranking[n++] = option;
      }
  if (q == NULL || n != q->n_options)
    {
      gtk_widget_error_bell (widget);
      return;
    }
  answer (self, &a);
}

static void
answer_value_action (GtkWidget *widget, const char *name, GVariant *p)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (widget);
  SbAnswer a = { .kind = SB_ANSWER_VALUE };

  if (!sb_duel_panel_get_entered_value (self->panel, &a.value))
    {
      gtk_widget_error_bell (widget);
      return;
    }
  if (answer (self, &a))
    sb_duel_panel_clear_entered_value (self->panel);
}

static void
answer_failed_action (GtkWidget *widget, const char *name, GVariant *p)
{
  simple_answer (SB_PARTICIPANT_VIEW (widget), SB_ANSWER_FAILED);
}

/* ---- Keys --------------------------------------------------------------- */

/* The option shown at place POS of a duel (0 = left). */
static guint
side_option (const SbProposal *q, guint pos)
{
  return q->shown_order[pos];
}

/* A key that answers the question on screen; FALSE for any other key. */
static gboolean
answer_key (SbParticipantView *self, GtkEventControllerKey *controller, guint keyval,
            guint keycode, GdkModifierType state)
{
  const SbProposal *q = sb_duel_panel_get_question (self->panel);
  gboolean k_options = q && (q->kind == SB_QUESTION_CHOICE || q->kind == SB_QUESTION_RANKING);
  SbAnswer a = { .kind = SB_ANSWER_SKIP, .value = NAN };
  guint pos;

  if (q == NULL)
    return FALSE;
  /* a rating scale: Shift+1 … k is the next answer's confidence */
  if ((state & GDK_SHIFT_MASK) && q->kind != SB_QUESTION_RANKING && q->kind != SB_QUESTION_VALUE
      && sb_session_get_experiment (sb_campaign_get_session (self->campaign))->confidence_levels
      && sb_key_digit_place (controller, keyval, keycode, state, &pos))
    {
      if (!sb_duel_panel_set_rating (self->panel, pos + 1))
        gtk_widget_error_bell (GTK_WIDGET (self));
      return TRUE;
    }
  if (k_options && sb_key_digit_place (controller, keyval, keycode, state, &pos))
    {
      const char *action = q->kind == SB_QUESTION_CHOICE ? "win.choose" : "win.rank-add";
      if (pos >= q->n_options)
        return FALSE;
      if (state & GDK_SHIFT_MASK)
        sb_duel_panel_mark_sure (self->panel);
      gtk_widget_activate_action (GTK_WIDGET (self), action, "u", q->shown_order[pos]);
      return TRUE;
    }
  if (q->kind == SB_QUESTION_RANKING)
    {
      if (keyval == GDK_KEY_BackSpace)
        gtk_widget_activate_action (GTK_WIDGET (self), "win.rank-undo", NULL);
      else if (keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter)
        gtk_widget_activate_action (GTK_WIDGET (self), "win.rank-confirm", NULL);
      else
        return FALSE;
      return TRUE;
    }
  if (q->kind != SB_QUESTION_DUEL)
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_Left: case GDK_KEY_KP_Left:
      a.kind = SB_ANSWER_CHOSEN;
      a.chosen = side_option (q, 0);
      break;
    case GDK_KEY_Right: case GDK_KEY_KP_Right:
      a.kind = SB_ANSWER_CHOSEN;
      a.chosen = side_option (q, 1);
      break;
    case GDK_KEY_s: case GDK_KEY_S:
      a.kind = SB_ANSWER_SKIP;
      break;
    case GDK_KEY_t: case GDK_KEY_T: case GDK_KEY_Down: case GDK_KEY_KP_Down:
      if (!sb_session_get_experiment (sb_campaign_get_session (self->campaign))->ties_allowed)
        return FALSE;
      a.kind = SB_ANSWER_TIE;
      break;
    default:
      return FALSE;
    }
  if ((state & GDK_SHIFT_MASK) && a.kind != SB_ANSWER_TIE)
    sb_duel_panel_mark_sure (self->panel);
  answer (self, &a);
  return TRUE;
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SbParticipantView *self)
{
  GdkModifierType mods = state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK | GDK_ALT_MASK | GDK_SUPER_MASK);

  if (mods == (GDK_CONTROL_MASK | GDK_SHIFT_MASK) && (keyval == GDK_KEY_U || keyval == GDK_KEY_u))
    {
      sb_participant_view_show_unlock (self);
      return TRUE;
    }
  switch (self->phase)
    {
    case SB_PARTICIPANT_UNLOCK:
      if (keyval == GDK_KEY_Escape)
        {
          gtk_widget_activate_action (GTK_WIDGET (self), "participant.cancel-unlock", NULL);
          return TRUE;
        }
      return FALSE;  /* typing the code */
    case SB_PARTICIPANT_BREAK:
      if (keyval == GDK_KEY_space && (mods & ~GDK_SHIFT_MASK) == 0)
        start_interval (self);
      return TRUE;
    case SB_PARTICIPANT_ANSWERING:
      if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_ISO_Left_Tab)
        return FALSE;  /* moving between the buttons */
      /* a key that answers nothing here: the bell (the participant
       * view shows no hints to read) */
      if ((mods & ~GDK_SHIFT_MASK) != 0
          || !answer_key (self, controller, keyval, keycode, state))
        if (!((keyval >= GDK_KEY_Shift_L && keyval <= GDK_KEY_Hyper_R)
              || keyval == GDK_KEY_ISO_Level3_Shift || keyval == GDK_KEY_Num_Lock))
          gtk_widget_error_bell (GTK_WIDGET (self));
      return TRUE;
    case SB_PARTICIPANT_BLANK:
    case SB_PARTICIPANT_PRESENTING:
    case SB_PARTICIPANT_DONE:
    default:
      /* Nothing leaves the view, nothing answers before the question is
       * on screen: Escape, F11, Ctrl+W … do nothing here. */
      return TRUE;
    }
}

/* ---- Unlocking ---------------------------------------------------------- */

void
sb_participant_view_show_unlock (SbParticipantView *self)
{
  g_return_if_fail (SB_IS_PARTICIPANT_VIEW (self));

  if (self->phase == SB_PARTICIPANT_UNLOCK)
    return;
  self->phase_before_unlock = self->phase;
  set_phase (self, SB_PARTICIPANT_UNLOCK);
  gtk_editable_set_text (GTK_EDITABLE (self->code_entry), "");
  gtk_widget_set_visible (self->code_error, FALSE);
  gtk_stack_set_visible_child_name (self->stack, "unlock");
  gtk_widget_grab_focus (GTK_WIDGET (self->code_entry));
}

/* Back from the prompt to where the participant was; a question is
 * presented again, its response time counting anew. */
static void
unlock_cancelled (SbParticipantView *self)
{
  SbParticipantPhase back = self->phase_before_unlock;

  if (self->phase != SB_PARTICIPANT_UNLOCK)
    return;
  gtk_editable_set_text (GTK_EDITABLE (self->code_entry), "");
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (back == SB_PARTICIPANT_BREAK || back == SB_PARTICIPANT_DONE)
    {
      set_phase (self, back);
      gtk_stack_set_visible_child_name (self->stack, "message");
    }
  else if ((back == SB_PARTICIPANT_PRESENTING || back == SB_PARTICIPANT_ANSWERING)
           && sb_campaign_get_state (self->campaign) == SB_CAMPAIGN_ASKING)
    present (self);
  else
    {
      set_phase (self, SB_PARTICIPANT_BLANK);
      gtk_stack_set_visible_child_name (self->stack, "blank");
      present_when_ready (self);
    }
}

gboolean
sb_participant_view_try_unlock (SbParticipantView *self, const char *code)
{
  g_return_val_if_fail (SB_IS_PARTICIPANT_VIEW (self), FALSE);

  if (self->phase != SB_PARTICIPANT_UNLOCK || code == NULL || g_strcmp0 (code, self->code) != 0)
    {
      g_debug ("participant mode: wrong unlock code");
      gtk_editable_set_text (GTK_EDITABLE (self->code_entry), "");
      gtk_widget_set_visible (self->code_error, self->phase == SB_PARTICIPANT_UNLOCK);
      gtk_widget_error_bell (GTK_WIDGET (self));
      return FALSE;
    }
  gtk_editable_set_text (GTK_EDITABLE (self->code_entry), "");
  g_signal_emit (self, signals[UNLOCKED], 0);
  return TRUE;
}

static void
unlock_clicked (SbParticipantView *self)
{
  g_autofree char *code = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->code_entry)));

  sb_participant_view_try_unlock (self, code);
}

static void
cancel_unlock_action (GtkWidget *widget, const char *name, GVariant *p)
{
  unlock_cancelled (SB_PARTICIPANT_VIEW (widget));
}

/* ---- Public ------------------------------------------------------------- */

SbParticipantPhase
sb_participant_view_get_phase (SbParticipantView *self)
{
  g_return_val_if_fail (SB_IS_PARTICIPANT_VIEW (self), SB_PARTICIPANT_BLANK);
  return self->phase;
}

SbDuelPanel *
sb_participant_view_get_panel (SbParticipantView *self)
{
  g_return_val_if_fail (SB_IS_PARTICIPANT_VIEW (self), NULL);
  return self->panel;
}

guint
sb_participant_view_get_n_answered (SbParticipantView *self)
{
  g_return_val_if_fail (SB_IS_PARTICIPANT_VIEW (self), 0);
  return self->n_answered;
}

GtkWidget *
sb_participant_view_new (SbCampaign *campaign, const SbParticipantSettings *settings,
                         const char *code)
{
  SbParticipantView *self;
  SbSession *session;

  g_return_val_if_fail (SB_IS_CAMPAIGN (campaign), NULL);
  g_return_val_if_fail (settings != NULL, NULL);
  g_return_val_if_fail (code != NULL && *code != '\0', NULL);
  session = sb_campaign_get_session (campaign);
  g_return_val_if_fail (session != NULL, NULL);

  self = g_object_new (SB_TYPE_PARTICIPANT_VIEW, NULL);
  self->campaign = g_object_ref (campaign);
  self->settings = *settings;
  self->code = g_strdup (code);
  apply_surround (self);
  sb_duel_panel_set_session_file (self->panel, sb_session_get_file (session));
  sb_duel_panel_set_experiment (self->panel, sb_session_get_experiment (session));
  g_signal_connect_object (self->panel, "notify::answer-blocker", G_CALLBACK (on_answer_blocker),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (campaign, "question-ready", G_CALLBACK (on_question_ready), self, 0);
  g_signal_connect_object (campaign, "notify::state", G_CALLBACK (on_state_changed), self, 0);
  start_interval (self);
  return GTK_WIDGET (self);
}

/* ---- GObject ------------------------------------------------------------ */

static void
sb_participant_view_dispose (GObject *object)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (object);

  g_clear_handle_id (&self->iti_source, g_source_remove);
  stop_waiting_for_paint (self);
  if (self->campaign)
    g_signal_handlers_disconnect_by_data (self->campaign, self);
  g_clear_object (&self->campaign);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_PARTICIPANT_VIEW);
  G_OBJECT_CLASS (sb_participant_view_parent_class)->dispose (object);
}

static void
sb_participant_view_finalize (GObject *object)
{
  SbParticipantView *self = SB_PARTICIPANT_VIEW (object);

  if (self->code)
    memset (self->code, 0, strlen (self->code));
  g_free (self->code);
  g_clear_object (&self->surround_css);
  G_OBJECT_CLASS (sb_participant_view_parent_class)->finalize (object);
}

static void
sb_participant_view_class_init (SbParticipantViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_participant_view_dispose;
  object_class->finalize = sb_participant_view_finalize;

  signals[UNLOCKED] = g_signal_new ("unlocked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /* The panel's answers come here (its buttons name "win." actions):
   * the view decides whether one is taken now. */
  gtk_widget_class_install_action (widget_class, "win.answer-a", NULL, answer_a_action);
  gtk_widget_class_install_action (widget_class, "win.answer-b", NULL, answer_b_action);
  gtk_widget_class_install_action (widget_class, "win.answer-tie", NULL, answer_tie_action);
  gtk_widget_class_install_action (widget_class, "win.skip", NULL, skip_action);
  gtk_widget_class_install_action (widget_class, "win.choose", "u", choose_action);
  gtk_widget_class_install_action (widget_class, "win.rank-add", "u", rank_add_action);
  gtk_widget_class_install_action (widget_class, "win.rank-undo", NULL, rank_undo_action);
  gtk_widget_class_install_action (widget_class, "win.rank-confirm", NULL, rank_confirm_action);
  gtk_widget_class_install_action (widget_class, "win.answer-value", NULL, answer_value_action);
  gtk_widget_class_install_action (widget_class, "win.answer-failed", NULL, answer_failed_action);
  gtk_widget_class_install_action (widget_class, "participant.cancel-unlock", NULL,
                                   cancel_unlock_action);

  g_type_ensure (SB_TYPE_DUEL_PANEL);
  g_type_ensure (ADW_TYPE_CLAMP);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-participant-view.ui");
  gtk_widget_class_bind_template_child (widget_class, SbParticipantView, stack);
  gtk_widget_class_bind_template_child (widget_class, SbParticipantView, panel);
  gtk_widget_class_bind_template_child (widget_class, SbParticipantView, message_label);
  gtk_widget_class_bind_template_child (widget_class, SbParticipantView, code_entry);
  gtk_widget_class_bind_template_child (widget_class, SbParticipantView, code_error);
  gtk_widget_class_bind_template_callback (widget_class, unlock_cancelled);
  gtk_widget_class_bind_template_callback (widget_class, unlock_clicked);
  gtk_widget_class_set_css_name (widget_class, "participantview");
}

static void
sb_participant_view_init (SbParticipantView *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (self->code_entry, "activate", G_CALLBACK (unlock_clicked), self);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}
