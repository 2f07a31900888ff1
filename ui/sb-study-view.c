/* sb-study-view.c — the Study view (see sb-study-view.h). */
#include "config.h"

#include "sb-study-view.h"

#include "sb-chart.h"
#include "sb-population.h"
#include "sb-json-write.h"
#include "sb-render-population.h"
#include "sb-serve-panel.h"
#include "sb-study-report.h"
#include "sb-worker.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* One participant as the summary thread read it. */
typedef struct {
  char *code;
  SbParticipantStatus status;
  char *note;
  gboolean ok;                 /* the session file was read              */
  char *error;                 /* why not                                */
  SbParticipantSummary summary;
} RosterRow;

typedef struct {
  GArray *rows;                /* RosterRow                              */
  SbPopulation population;
  gboolean has_population;
  char *population_error;
  SbPopulationInput *model_input;  /* the population model's snapshot      */
  char *model_error;           /* why there is none                      */
} Roster;

struct _SbStudyView
{
  GtkWidget parent_instance;

  /* owned */
  SbStudy *study;
  Roster *roster;              /* the summaries shown, or NULL           */
  GCancellable *loading;       /* the running summary job, or NULL       */
  gboolean building;           /* rows are being built: no edits         */
  SbWorker *worker;            /* the population model's job             */
  guint64 model_generation;    /* of the job whose result is wanted      */
  gboolean model_loading;
  SbPopulationResult *model;   /* the latest population model, or NULL   */
  char *model_error;           /* why the latest one failed, or NULL     */
  char *highlight;             /* the participant drawn out, or NULL     */
  GHashTable *differs_labels;  /* code -> its P(best differs) GtkLabel   */
  SbServePanel *serve_panel;   /* serving online (a child, borrowed)     */

  /* template children (borrowed) */
  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkSpinner *spinner;
  GtkMenuButton *add_button;
  GtkPopover *add_popover;
  GtkEntry *code_entry;
  GtkEntry *note_entry;
  GtkButton *add_confirm_button;
  GtkButton *refresh_button;
  GtkLabel *n_participants_label;
  GtkLabel *n_included_label;
  GtkLabel *n_answers_label;
  GtkLabel *n_chance_label;
  GtkLabel *pooled_label;
  GtkRevealer *error_revealer;
  GtkLabel *error_label;
  GtkPaned *paned;
  GtkGrid *roster_grid;
  GtkWidget *model_bar;
  GtkWidget *axis_label;
  GtkDropDown *axis_dropdown;
  GtkDropDown *highlight_dropdown;
  GtkSpinner *model_spinner;
  SbChart *chart;
  GtkLabel *chart_caption;
};

G_DEFINE_FINAL_TYPE (SbStudyView, sb_study_view, GTK_TYPE_WIDGET)

enum { START_SESSION, START_PARTICIPANT_MODE, ROSTER_LOADED, EXPORTED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const status_names[] = { N_("active"), N_("withdrawn"), N_("excluded"), NULL };

/* ---- The summaries (a thread) ------------------------------------------------ */

static void
roster_row_clear (RosterRow *row)
{
  g_free (row->code);
  g_free (row->note);
  g_free (row->error);
}

static void
roster_free (Roster *roster)
{
  g_array_unref (roster->rows);
  g_free (roster->population_error);
  g_clear_pointer (&roster->model_input, sb_population_input_free);
  g_free (roster->model_error);
  g_free (roster);
}

static void
summarise_row (SbStudy *study, const SbParticipant *p, RosterRow *row)
{
  g_autoptr (GError) error = NULL;

  row->code = g_strdup (p->code);
  row->status = p->status;
  row->note = g_strdup (p->note);
  row->ok = sb_study_summarise (study, p->code, &row->summary, &error);
  if (!row->ok)
    {
      row->error = g_strdup (error->message);
      return;
    }
}

static void
summarise_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  const char *dir = task_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) study = sb_study_open (dir, &error);
  Roster *roster;

  if (study == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  roster = g_new0 (Roster, 1);
  roster->rows = g_array_new (FALSE, TRUE, sizeof (RosterRow));
  g_array_set_clear_func (roster->rows, (GDestroyNotify) roster_row_clear);
  for (guint i = 0; i < sb_study_get_n_participants (study); i++)
    {
      RosterRow row = { 0 };
      if (g_cancellable_is_cancelled (cancellable))
        break;
      summarise_row (study, sb_study_get_participant (study, i), &row);
      g_array_append_val (roster->rows, row);
    }
  /* The population posterior goes through this one call. */
  roster->has_population = sb_study_population (study, &roster->population, &error);
  if (!roster->has_population)
    roster->population_error = g_strdup (error->message);
  g_clear_error (&error);
  /* The population model's snapshot, computed on the worker when shown. */
  roster->model_input = sb_population_input_new (study, &error);
  if (roster->model_input)
    roster->model_input->n_plot = SB_POPULATION_PLOT_POINTS;
  else
    roster->model_error = g_strdup (error->message);
  g_task_return_pointer (task, roster, (GDestroyNotify) roster_free);
}

static void show_roster (SbStudyView *self);
static void start_model (SbStudyView *self);

static void
summarise_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SbStudyView *self = SB_STUDY_VIEW (source);
  GTask *task = G_TASK (result);
  g_autoptr (GError) error = NULL;
  Roster *roster = g_task_propagate_pointer (task, &error);

  /* Superseded by a newer refresh, or the study was closed. */
  if (g_task_get_cancellable (task) != self->loading)
    {
      if (roster)
        roster_free (roster);
      return;
    }
  g_clear_object (&self->loading);
  gtk_spinner_set_spinning (self->spinner, FALSE);
  if (roster == NULL)
    {
      self->model_loading = FALSE;
      gtk_spinner_set_spinning (self->model_spinner, FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->model_spinner), FALSE);
      gtk_label_set_text (self->error_label, error->message);
      gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
      return;
    }
  g_clear_pointer (&self->roster, roster_free);
  self->roster = roster;
  show_roster (self);
  start_model (self);
  g_signal_emit (self, signals[ROSTER_LOADED], 0);
}

void
sb_study_view_refresh (SbStudyView *self)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (SB_IS_STUDY_VIEW (self));
  if (self->loading)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  if (self->study == NULL)
    return;
  /* The model of the files as they were is superseded too. */
  sb_worker_cancel (self->worker, SB_WORKER_LANE_PLOT);
  self->model_generation = 0;
  self->model_loading = TRUE;
  gtk_spinner_set_spinning (self->model_spinner, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->model_spinner), TRUE);
  self->loading = g_cancellable_new ();
  gtk_spinner_set_spinning (self->spinner, TRUE);
  task = g_task_new (self, self->loading, summarise_done, NULL);
  g_task_set_source_tag (task, sb_study_view_refresh);
  g_task_set_task_data (task, g_strdup (sb_study_get_dir (self->study)), g_free);
  g_task_run_in_thread (task, summarise_thread);
}

gboolean
sb_study_view_get_loading (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  return self->loading != NULL;
}

/* ---- Showing it --------------------------------------------------------------- */

static char *
format_rate (guint k, guint n)
{
  return n ? g_strdup_printf ("%u/%u (%.0f%%)", k, n, 100.0 * k / n) : g_strdup ("–");
}

static void
show_population (SbStudyView *self)
{
  const SbPopulation *p = &self->roster->population;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  g_autofree char *agree = NULL, *first = NULL, *pooled = NULL;

  if (!self->roster->has_population)
    {
      gtk_label_set_text (self->pooled_label, self->roster->population_error);
      return;
    }
  a = g_strdup_printf ("%u", p->n_participants);
  b = g_strdup_printf ("%u", p->n_included);
  c = g_strdup_printf ("%u", p->n_answers);
  d = g_strdup_printf ("%u", p->n_at_chance);
  gtk_label_set_text (self->n_participants_label, a);
  gtk_label_set_text (self->n_included_label, b);
  gtk_label_set_text (self->n_answers_label, c);
  gtk_label_set_text (self->n_chance_label, d);
  agree = format_rate (p->n_agree, p->n_repeats);
  first = format_rate (p->n_first_chosen, p->n_side);
  pooled = g_strdup_printf (_("Pooled over the included: %u done · repeated pairs agreeing %s · "
                              "intransitive triples %u of %u · first-shown option chosen %s"),
                            p->n_done, agree, p->n_intransitive, p->n_triples, first);
  gtk_label_set_text (self->pooled_label, pooled);
  if (p->n_at_chance > 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->n_chance_label), "warning");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->n_chance_label), "warning");
}

static GtkWidget *
cell (const char *text, gboolean dim)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  if (dim)
    gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static void
attach (SbStudyView *self, GtkWidget *child, int column, int row)
{
  gtk_grid_attach (self->roster_grid, child, column, row, 1, 1);
}

static void
show_view_error (SbStudyView *self, const GError *error)
{
  gtk_label_set_text (self->error_label, error->message);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}

static const char *
row_code (GtkWidget *widget)
{
  return g_object_get_data (G_OBJECT (widget), "sb-code");
}

static void
on_status_selected (GtkDropDown *dropdown, GParamSpec *pspec, SbStudyView *self)
{
  g_autoptr (GError) error = NULL;

  if (self->building)
    return;
  if (!sb_study_view_set_status (self, row_code (GTK_WIDGET (dropdown)),
                                 gtk_drop_down_get_selected (dropdown), &error))
    sb_study_view_refresh (self);  /* shows the status as it is */
}

static void
on_start_clicked (GtkButton *button, SbStudyView *self)
{
  g_signal_emit (self, signals[START_SESSION], 0, row_code (GTK_WIDGET (button)));
}

static void
on_participant_mode_clicked (GtkButton *button, SbStudyView *self)
{
  g_signal_emit (self, signals[START_PARTICIPANT_MODE], 0, row_code (GTK_WIDGET (button)));
}

static void
on_note_save (GtkWidget *widget, SbStudyView *self)
{
  GtkEntry *entry = g_object_get_data (G_OBJECT (widget), "sb-entry");
  GtkPopover *popover = g_object_get_data (G_OBJECT (widget), "sb-popover");
  g_autoptr (GError) error = NULL;

  gtk_popover_popdown (popover);
  sb_study_view_set_note (self, row_code (widget), gtk_editable_get_text (GTK_EDITABLE (entry)),
                          &error);
}

static GtkWidget *
tag (GtkWidget *widget, const char *code)
{
  g_object_set_data_full (G_OBJECT (widget), "sb-code", g_strdup (code), g_free);
  return widget;
}

/* The note's editor: a button whose popover holds an entry. */
static GtkWidget *
note_editor (SbStudyView *self, const RosterRow *r)
{
  GtkWidget *button = gtk_menu_button_new ();
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *entry = gtk_entry_new ();
  GtkWidget *save = gtk_button_new_with_mnemonic (_("_Save"));

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "document-edit-symbolic");
  gtk_widget_set_tooltip_text (button, _("Edit the participant's note (kept out of exports)"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_editable_set_text (GTK_EDITABLE (entry), r->note ? r->note : "");
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 28);
  gtk_widget_add_css_class (save, "suggested-action");
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), save);
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (button), popover);
  for (GtkWidget *w = save; w; w = w == save ? entry : NULL)
    {
      tag (w, r->code);
      g_object_set_data (G_OBJECT (w), "sb-entry", entry);
      g_object_set_data (G_OBJECT (w), "sb-popover", popover);
    }
  g_signal_connect (save, "clicked", G_CALLBACK (on_note_save), self);
  g_signal_connect (entry, "activate", G_CALLBACK (on_note_save), self);
  return button;
}

static GtkWidget *
icon_button (const char *icon, const char *label, const char *tooltip, const char *code)
{
  GtkWidget *button = gtk_button_new ();
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  gtk_box_append (GTK_BOX (content), gtk_image_new_from_icon_name (icon));
  if (label)
    gtk_box_append (GTK_BOX (content), gtk_label_new_with_mnemonic (label));
  gtk_button_set_child (GTK_BUTTON (button), content);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  return tag (button, code);
}

enum { COL_CODE, COL_STATUS, COL_ANSWERED, COL_REPEATS, COL_TRIPLES, COL_SIDE,
       COL_DIFFERS, COL_EDIT, COL_START, COL_MODE, N_COLS };

static void
show_header (SbStudyView *self)
{
  static const char *const titles[] = {
    N_("Code and note"), N_("Status"), N_("Answered"), N_("Repeats"), N_("Intransitive"),
    N_("First shown"), N_("Differs"),
  };
  static const char *const tooltips[] = {
    NULL, NULL, N_("Answers that count, of the budget"),
    N_("Repeated pairs answered as the first time, of all repeats"),
    N_("Triples of settings whose preferences form a cycle, of all fully compared triples"),
    N_("Duels won by the option shown first (left), of those whose order was recorded"),
    N_("The population model's probability that this participant's best setting differs from "
       "the population's (more than a tenth of the range apart)"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    {
      GtkWidget *label = cell (_(titles[i]), FALSE);
      gtk_widget_add_css_class (label, "heading");
      if (tooltips[i])
        gtk_widget_set_tooltip_text (label, _(tooltips[i]));
      attach (self, label, i, 0);
    }
}

static void
show_row (SbStudyView *self, const RosterRow *r, int y)
{
  const SbConsistency *c = &r->summary.consistency;
  GtkWidget *status = gtk_drop_down_new_from_strings ((const char *const *) status_names);
  GtkWidget *code = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *code_label = cell (r->code, FALSE);
  gtk_widget_add_css_class (code_label, "monospace");
  gtk_box_append (GTK_BOX (code), code_label);
  /* The screening flag, under the code. */
  if (r->ok && c->at_chance)
    {
      GtkWidget *flag = cell (_("\u26a0 at chance"), FALSE);
      gtk_widget_add_css_class (flag, "warning");
      gtk_widget_add_css_class (flag, "caption");
      gtk_widget_set_tooltip_text (flag, c->chance_by_repeats
                                         ? _("Repeated pairs agree no more often than a coin would")
                                         : _("The fitted model explains the answers no better than a coin"));
      gtk_box_append (GTK_BOX (code), flag);
    }
  if (r->note)
    {
      GtkWidget *note = cell (r->note, TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (note), PANGO_ELLIPSIZE_END);
      gtk_label_set_max_width_chars (GTK_LABEL (note), 22);
      gtk_widget_set_tooltip_text (note, r->note);
      gtk_widget_add_css_class (note, "caption");
      gtk_box_append (GTK_BOX (code), note);
    }
  gtk_widget_set_valign (code, GTK_ALIGN_CENTER);
  attach (self, code, COL_CODE, y);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (status), r->status);
  gtk_widget_set_valign (status, GTK_ALIGN_CENTER);
  tag (status, r->code);
  g_signal_connect (status, "notify::selected", G_CALLBACK (on_status_selected), self);
  attach (self, status, COL_STATUS, y);
  if (!r->ok)
    {
      GtkWidget *error = cell (r->error, FALSE);
      gtk_widget_add_css_class (error, "error");
      gtk_label_set_wrap (GTK_LABEL (error), TRUE);
      gtk_grid_attach (self->roster_grid, error, COL_ANSWERED, y, COL_DIFFERS - COL_ANSWERED, 1);
    }
  else
    {
      g_autofree char *answered = g_strdup_printf ("%u / %u%s", r->summary.answered,
                                                   r->summary.budget,
                                                   r->summary.done ? _(" done") : "");
      g_autofree char *repeats = format_rate (c->n_agree, c->n_repeats);
      g_autofree char *triples = g_strdup_printf ("%u of %u", c->n_intransitive, c->n_triples);
      g_autofree char *side = format_rate (c->n_first_chosen, c->n_side);
      attach (self, cell (answered, FALSE), COL_ANSWERED, y);
      attach (self, cell (repeats, c->n_repeats == 0), COL_REPEATS, y);
      attach (self, cell (triples, c->n_triples == 0), COL_TRIPLES, y);
      attach (self, cell (side, c->n_side == 0), COL_SIDE, y);
    }
  if (r->status != SB_PARTICIPANT_EXCLUDED)
    {
      GtkWidget *differs = cell ("…", FALSE);
      g_hash_table_insert (self->differs_labels, g_strdup (r->code), differs);
      attach (self, differs, COL_DIFFERS, y);
    }
  attach (self, note_editor (self, r), COL_EDIT, y);
  {
    GtkWidget *start = icon_button ("media-playback-start-symbolic", NULL,
                                    _("Open this participant's session in the workbench"), r->code);
    GtkWidget *mode = icon_button ("view-fullscreen-symbolic", NULL,
                                   _("Open this participant's session in participant mode (full screen)"),
                                   r->code);
    g_signal_connect (start, "clicked", G_CALLBACK (on_start_clicked), self);
    g_signal_connect (mode, "clicked", G_CALLBACK (on_participant_mode_clicked), self);
    gtk_widget_set_sensitive (start, r->ok && r->status == SB_PARTICIPANT_ACTIVE);
    gtk_widget_set_sensitive (mode, r->ok && r->status == SB_PARTICIPANT_ACTIVE);
    attach (self, start, COL_START, y);
    attach (self, mode, COL_MODE, y);
  }
}

/* ---- The population model (on the worker) -------------------------------------- */

/* The model's index of participant CODE, or -1. */
static int
model_person (SbStudyView *self, const char *code)
{
  for (guint p = 0; code && self->model && p < self->model->n_people; p++)
    if (g_ascii_strcasecmp (self->model->people[p].code, code) == 0)
      return (int) p;
  return -1;
}

/* The population posterior along the chosen parameter, each included
 * participant's f_p and the highlighted one; the caption says what is
 * drawn, that it is being computed, or why it failed. */
static void
show_chart (SbStudyView *self)
{
  const SbExperiment *exp = sb_study_get_experiment (self->study);
  guint axis = MIN (gtk_drop_down_get_selected (self->axis_dropdown), exp->n_parameters - 1);
  g_autoptr (SbScene) scene = sb_population_scene_new (exp, self->model, axis,
                                                       model_person (self, self->highlight));
  const char *caption;

  sb_chart_set_scene (self->chart, scene);
  gtk_widget_remove_css_class (GTK_WIDGET (self->chart_caption), "error");
  if (self->model_error && !self->model_loading)
    {
      gtk_label_set_text (self->chart_caption, self->model_error);
      gtk_widget_add_css_class (GTK_WIDGET (self->chart_caption), "error");
      return;
    }
  if (self->model == NULL)
    caption = _("Computing the population model from everyone's answers…");
  else if (self->model->n_answers == 0)
    caption = _("The population model is drawn here once the included participants have "
                "answered.");
  else
    caption = _("The hierarchical model of everyone included: the population's utility g "
                "(posterior mean, 95% band) and each participant's own utility f_p = g + h_p "
                "(posterior mean, thin lines), the star at the population's best. The "
                "roster's \"Differs\" is the probability that a participant's best lies "
                "more than a tenth of the range from the population's.");
  gtk_label_set_text (self->chart_caption, caption);
}

/* Each row's P(best differs) from the latest model. */
static void
show_differs (SbStudyView *self)
{
  GHashTableIter iter;
  gpointer code, label;

  g_hash_table_iter_init (&iter, self->differs_labels);
  while (g_hash_table_iter_next (&iter, &code, &label))
    {
      int p = model_person (self, code);
      g_autofree char *text = NULL, *tip = NULL;
      /* a participant without answers has no best of their own */
      if (p < 0 || self->model->n_answers == 0 || self->model->people[p].n_answers == 0
          || !isfinite (self->model->people[p].prob_best_differs))
        {
          gtk_label_set_text (label, self->model_loading ? "…" : "–");
          gtk_widget_set_tooltip_text (label, NULL);
          continue;
        }
      text = g_strdup_printf ("%.2f", self->model->people[p].prob_best_differs);
      tip = g_strdup_printf (_("P(best differs) %.3f ± %.3f (standard error)"),
                             self->model->people[p].prob_best_differs, self->model->people[p].se);
      gtk_label_set_text (label, text);
      gtk_widget_set_tooltip_text (label, tip);
    }
}

/* The highlight's choices: none, then every participant of the model. */
static void
show_highlight_choices (SbStudyView *self)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
  int selected = model_person (self, self->highlight);

  gtk_string_list_append (list, _("nobody"));
  for (guint p = 0; self->model && p < self->model->n_people; p++)
    gtk_string_list_append (list, self->model->people[p].code);
  self->building = TRUE;
  gtk_drop_down_set_model (self->highlight_dropdown, G_LIST_MODEL (list));
  gtk_drop_down_set_selected (self->highlight_dropdown, selected + 1);
  self->building = FALSE;
}

static void
show_model_state (SbStudyView *self)
{
  gtk_spinner_set_spinning (self->model_spinner, self->model_loading);
  gtk_widget_set_visible (GTK_WIDGET (self->model_spinner), self->model_loading);
  show_differs (self);
  show_chart (self);
}

static void
start_model (SbStudyView *self)
{
  SbPopulationInput *input = g_steal_pointer (&self->roster->model_input);

  g_clear_pointer (&self->model_error, g_free);
  if (input == NULL)
    {
      sb_worker_cancel (self->worker, SB_WORKER_LANE_PLOT);
      self->model_generation = 0;
      self->model_loading = FALSE;
      self->model_error = g_strdup (self->roster->model_error);
      show_model_state (self);
      return;
    }
  self->model_loading = TRUE;
  self->model_generation = sb_worker_submit (self->worker, SB_WORKER_LANE_PLOT, sb_job_population,
                                             input, (GDestroyNotify) sb_population_input_free,
                                             (GDestroyNotify) sb_population_result_free);
  show_model_state (self);
}

static void
on_job_finished (SbWorker *worker, guint lane, guint64 generation, gpointer result,
                 SbStudyView *self)
{
  if (lane != SB_WORKER_LANE_PLOT || generation != self->model_generation)
    return;
  g_clear_pointer (&self->model, sb_population_result_free);
  self->model = sb_population_result_copy (result);
  self->model_loading = FALSE;
  show_highlight_choices (self);
  show_model_state (self);
}

static void
on_job_failed (SbWorker *worker, guint lane, guint64 generation, const GError *error,
               SbStudyView *self)
{
  if (lane != SB_WORKER_LANE_PLOT || generation != self->model_generation
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->model_loading = FALSE;
  g_clear_pointer (&self->model, sb_population_result_free);
  g_free (self->model_error);
  self->model_error = g_strdup_printf (_("The population model failed: %s"), error->message);
  show_highlight_choices (self);
  show_model_state (self);
}

static void
on_axis_selected (SbStudyView *self)
{
  if (self->study && !self->building)
    show_chart (self);
}

static void
on_highlight_selected (SbStudyView *self)
{
  guint i = gtk_drop_down_get_selected (self->highlight_dropdown);

  if (self->building)
    return;
  g_clear_pointer (&self->highlight, g_free);
  if (self->model && i != GTK_INVALID_LIST_POSITION && i >= 1 && i <= self->model->n_people)
    self->highlight = g_strdup (self->model->people[i - 1].code);
  if (self->study)
    show_chart (self);
}

/* The parameter selector: one entry per parameter, shown when d > 1. */
static void
show_axis_choices (SbStudyView *self)
{
  const SbExperiment *exp = self->study ? sb_study_get_experiment (self->study) : NULL;
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
  gboolean several = exp && exp->n_parameters > 1;

  for (guint j = 0; exp && j < exp->n_parameters; j++)
    gtk_string_list_append (list, exp->parameters[j].name);
  self->building = TRUE;
  gtk_drop_down_set_model (self->axis_dropdown, G_LIST_MODEL (list));
  gtk_drop_down_set_selected (self->axis_dropdown, 0);
  self->building = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->axis_dropdown), several);
  gtk_widget_set_visible (self->axis_label, several);
}

/* The roster gets its natural width (the paned keeps the chart's
 * minimum; the roster scrolls when the window is narrower). */
static void
fit_roster (SbStudyView *self)
{
  int natural = 0;

  gtk_widget_measure (GTK_WIDGET (self->roster_grid), GTK_ORIENTATION_HORIZONTAL, -1, NULL,
                      &natural, NULL, NULL);
  gtk_paned_set_position (self->paned, natural + 4);
}

static void
show_roster (SbStudyView *self)
{
  GtkWidget *child;

  self->building = TRUE;
  g_hash_table_remove_all (self->differs_labels);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->roster_grid))))
    gtk_grid_remove (self->roster_grid, child);
  show_header (self);
  for (guint i = 0; i < self->roster->rows->len; i++)
    show_row (self, &g_array_index (self->roster->rows, RosterRow, i), i + 1);
  if (self->roster->rows->len == 0)
    {
      GtkWidget *empty = cell (_("No participants yet: Add Participant gives the first a code."), TRUE);
      gtk_grid_attach (self->roster_grid, empty, 0, 1, N_COLS, 1);
    }
  show_population (self);
  self->building = FALSE;
  show_model_state (self);
  fit_roster (self);
}

static void
show_titles (SbStudyView *self)
{
  const SbExperiment *exp = self->study ? sb_study_get_experiment (self->study) : NULL;
  g_autofree char *subtitle = NULL;

  if (exp == NULL)
    {
      gtk_label_set_text (self->title_label, "");
      gtk_label_set_text (self->subtitle_label, "");
      return;
    }
  subtitle = g_strdup_printf (_("%s · %u questions each · %.0f%% repeated pairs · %s"),
                              exp->title, exp->budget, 100 * sb_study_get_repeat_rate (self->study),
                              sb_study_get_dir (self->study));
  gtk_label_set_text (self->title_label, sb_study_get_name (self->study));
  gtk_label_set_text (self->subtitle_label, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->subtitle_label), subtitle);
}

/* ---- Edits ------------------------------------------------------------------- */

static gboolean
edited (SbStudyView *self, gboolean ok, GError **error)
{
  if (!ok)
    {
      if (error && *error)
        show_view_error (self, *error);
      return FALSE;
    }
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
  sb_study_view_refresh (self);
  return TRUE;
}

gboolean
sb_study_view_add_participant (SbStudyView *self, const char *code, const char *note,
                               char **added, GError **error)
{
  g_autoptr (GError) local = NULL;
  const SbParticipant *p;

  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  g_return_val_if_fail (self->study != NULL, FALSE);
  p = sb_study_add_participant (self->study, code && *code ? code : NULL, note, &local);
  if (p && added)
    *added = g_strdup (p->code);
  if (!edited (self, p != NULL, &local))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

gboolean
sb_study_view_set_status (SbStudyView *self, const char *code, SbParticipantStatus status,
                          GError **error)
{
  g_autoptr (GError) local = NULL;
  gboolean ok;

  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  ok = self->study && sb_study_set_status (self->study, code, status, &local);
  if (!edited (self, ok, &local))
    {
      if (local)
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

gboolean
sb_study_view_set_note (SbStudyView *self, const char *code, const char *note, GError **error)
{
  g_autoptr (GError) local = NULL;
  gboolean ok;

  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  ok = self->study && sb_study_set_note (self->study, code, note && *note ? note : NULL, &local);
  if (!edited (self, ok, &local))
    {
      if (local)
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

static void
on_add_confirm (SbStudyView *self)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *code = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->code_entry))));
  const char *note = gtk_editable_get_text (GTK_EDITABLE (self->note_entry));

  if (!sb_study_view_add_participant (self, code, note, NULL, &error))
    return;  /* the error is shown; the popover keeps what was typed */
  gtk_editable_set_text (GTK_EDITABLE (self->code_entry), "");
  gtk_editable_set_text (GTK_EDITABLE (self->note_entry), "");
  gtk_popover_popdown (self->add_popover);
}

/* ---- Public ------------------------------------------------------------------- */

void
sb_study_view_set_study (SbStudyView *self, SbStudy *study)
{
  g_return_if_fail (SB_IS_STUDY_VIEW (self));
  g_return_if_fail (study == NULL || SB_IS_STUDY (study));
  if (study == self->study)
    {
      sb_study_view_refresh (self);
      return;
    }
  g_set_object (&self->study, study);
  sb_serve_panel_set_study (self->serve_panel, study);
  g_clear_pointer (&self->roster, roster_free);
  sb_worker_cancel (self->worker, SB_WORKER_LANE_PLOT);
  self->model_generation = 0;
  self->model_loading = FALSE;
  g_clear_pointer (&self->model, sb_population_result_free);
  g_clear_pointer (&self->model_error, g_free);
  g_clear_pointer (&self->highlight, g_free);
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
  show_titles (self);
  show_axis_choices (self);
  show_highlight_choices (self);
  sb_study_view_refresh (self);
}

SbStudy *
sb_study_view_get_study (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), NULL);
  return self->study;
}

guint
sb_study_view_get_n_rows (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), 0);
  return self->roster ? self->roster->rows->len : 0;
}

gboolean
sb_study_view_get_row (SbStudyView *self, const char *code, SbParticipantStatus *status,
                       SbParticipantSummary *summary)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  for (guint i = 0; self->roster && i < self->roster->rows->len; i++)
    {
      const RosterRow *r = &g_array_index (self->roster->rows, RosterRow, i);
      if (g_ascii_strcasecmp (r->code, code) != 0 || !r->ok)
        continue;
      if (status)
        *status = r->status;
      if (summary)
        *summary = r->summary;
      return TRUE;
    }
  return FALSE;
}

gboolean
sb_study_view_get_model_loading (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  return self->model_loading;
}

gboolean
sb_study_view_get_prob_best_differs (SbStudyView *self, const char *code, double *prob)
{
  int p;

  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  p = model_person (self, code);
  if (p < 0 || self->model->people[p].n_answers == 0
      || !isfinite (self->model->people[p].prob_best_differs))
    return FALSE;
  *prob = self->model->people[p].prob_best_differs;
  return TRUE;
}

const char *
sb_study_view_get_model_error (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), NULL);
  return self->model_loading ? NULL : self->model_error;
}

SbChart *
sb_study_view_get_chart (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), NULL);
  return self->chart;
}

void
sb_study_view_set_axis (SbStudyView *self, guint axis)
{
  g_return_if_fail (SB_IS_STUDY_VIEW (self));
  gtk_drop_down_set_selected (self->axis_dropdown, axis);
}

gboolean
sb_study_view_set_highlight (SbStudyView *self, const char *code)
{
  int p;

  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), FALSE);
  p = model_person (self, code);
  if (code != NULL && p < 0)
    return FALSE;
  gtk_drop_down_set_selected (self->highlight_dropdown, p + 1);
  return TRUE;
}

const SbPopulation *
sb_study_view_get_population (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), NULL);
  return self->roster && self->roster->has_population ? &self->roster->population : NULL;
}

/* ---- Exports ------------------------------------------------------------------ */

static gboolean
write_text (GFile *file, const char *text, GError **error)
{
  return g_file_replace_contents (file, text, strlen (text), NULL, FALSE, G_FILE_CREATE_NONE,
                                  NULL, NULL, error);
}

gboolean
sb_study_view_export_csv (SbStudyView *self, GFile *file, GError **error)
{
  g_autofree char *csv = NULL;

  g_return_val_if_fail (SB_IS_STUDY_VIEW (self) && self->study, FALSE);
  /* the file `skewgp export STUDY` writes: everyone, long format */
  csv = sb_study_to_csv (self->study, NULL, FALSE, error);
  return csv && write_text (file, csv, error);
}

/* The latest population model, or NULL with ERROR saying why not. */
static const SbPopulationResult *
exportable_model (SbStudyView *self, GError **error)
{
  if (self->model && !self->model_loading)
    return self->model;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING,
                       self->model_error && !self->model_loading
                       ? self->model_error
                       : _("The population model is still being computed: export it once the "
                           "plot shows it"));
  return NULL;
}

gboolean
sb_study_view_export_model (SbStudyView *self, GFile *file, GError **error)
{
  const SbPopulationResult *model = exportable_model (self, error);
  g_autoptr (JsonNode) doc = NULL;
  g_autofree char *text = NULL;

  if (model == NULL)
    return FALSE;
  /* the document `skewgp export STUDY --model` writes */
  doc = sb_population_result_to_json (sb_study_get_experiment (self->study),
                                      sb_study_get_name (self->study), model);
  text = sb_json_write (doc, TRUE, NULL);
  return write_text (file, text, error);
}

gboolean
sb_study_view_export_report (SbStudyView *self, GFile *file, GError **error)
{
  const SbPopulationResult *model = exportable_model (self, error);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d");
  g_autofree char *path = g_file_get_path (file);
  g_autofree SbReportRow *rows = NULL;
  guint n = self->roster ? self->roster->rows->len : 0;
  SbStudyReport report;

  if (model == NULL)
    return FALSE;
  if (path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("The report is written to a local file"));
      return FALSE;
    }
  rows = g_new0 (SbReportRow, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const RosterRow *r = &g_array_index (self->roster->rows, RosterRow, i);
      rows[i] = (SbReportRow) { r->code, r->status, r->ok, r->error, r->summary };
    }
  report = (SbStudyReport) { sb_study_get_name (self->study), sb_study_get_experiment (self->study),
                             model, gtk_drop_down_get_selected (self->axis_dropdown), rows, n,
                             date };
  return sb_study_report_write_pdf (&report, path, NULL, error);
}

typedef gboolean (*ExportFunc) (SbStudyView *self, GFile *file, GError **error);

static void
export_response (GtkNativeDialog *dialog, int response, SbStudyView *self)
{
  ExportFunc func = g_object_get_data (G_OBJECT (dialog), "export");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr (GError) error = NULL;
      if (file && func (self, file, &error))
        {
          g_autofree char *name = g_file_get_parse_name (file);
          g_signal_emit (self, signals[EXPORTED], 0, name);
        }
      else if (error)
        {
          gtk_label_set_text (self->error_label, error->message);
          gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
        }
    }
  g_object_unref (dialog);
}

static void
export_action (GtkWidget *widget, const char *action, GVariant *param)
{
  static const struct { const char *what, *suffix, *title; ExportFunc func; } kinds[] = {
    { "csv", "answers.csv", N_("Export the Study's Answers (CSV)"), sb_study_view_export_csv },
    { "model", "population-model.json", N_("Export the Population Model (JSON)"),
      sb_study_view_export_model },
    { "report", "report.pdf", N_("Export the Study Report (PDF)"), sb_study_view_export_report },
  };
  SbStudyView *self = SB_STUDY_VIEW (widget);
  const char *what = g_variant_get_string (param, NULL);
  GtkRoot *root = gtk_widget_get_root (widget);

  if (self->study == NULL)
    return;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    if (g_str_equal (what, kinds[k].what))
      {
        GtkFileChooserNative *dialog =
          gtk_file_chooser_native_new (_(kinds[k].title), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                       GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
        g_autofree char *name = g_strdup_printf ("%s-%s", sb_study_get_name (self->study),
                                                 kinds[k].suffix);
        gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
        g_object_set_data (G_OBJECT (dialog), "export", kinds[k].func);
        g_signal_connect (dialog, "response", G_CALLBACK (export_response), self);
        gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
      }
}

/* ---- GObject ------------------------------------------------------------------ */

static void
sb_study_view_dispose (GObject *object)
{
  SbStudyView *self = SB_STUDY_VIEW (object);
  GtkWidget *child;

  if (self->serve_panel)
    sb_serve_panel_stop (self->serve_panel);
  if (self->loading)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  if (self->worker)
    {
      sb_worker_cancel_all (self->worker);
      g_signal_handlers_disconnect_by_data (self->worker, self);
    }
  g_clear_object (&self->worker);
  g_clear_object (&self->study);
  g_clear_pointer (&self->roster, roster_free);
  g_clear_pointer (&self->model, sb_population_result_free);
  g_clear_pointer (&self->model_error, g_free);
  g_clear_pointer (&self->highlight, g_free);
  g_clear_pointer (&self->differs_labels, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_STUDY_VIEW);
  /* The template's unbound children too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (sb_study_view_parent_class)->dispose (object);
}

static void
sb_study_view_class_init (SbStudyViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_study_view_dispose;
  signals[START_SESSION] = g_signal_new ("start-session", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                         1, G_TYPE_STRING);
  signals[START_PARTICIPANT_MODE] = g_signal_new ("start-participant-mode",
                                                  G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                                  G_TYPE_STRING);
  signals[ROSTER_LOADED] = g_signal_new ("roster-loaded", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[EXPORTED] = g_signal_new ("exported", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  gtk_widget_class_install_action (widget_class, "study.export", "s", export_action);

  g_type_ensure (SB_TYPE_CHART);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-study-view.ui");
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, title_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, spinner);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, add_button);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, add_popover);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, code_entry);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, note_entry);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, add_confirm_button);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, n_participants_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, n_included_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, n_answers_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, n_chance_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, pooled_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, error_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, paned);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, roster_grid);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, model_bar);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, axis_label);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, axis_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, highlight_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, model_spinner);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, chart);
  gtk_widget_class_bind_template_child (widget_class, SbStudyView, chart_caption);
}

static void
sb_study_view_init (SbStudyView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->differs_labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->worker = sb_worker_new ();
  g_signal_connect (self->worker, "job-finished", G_CALLBACK (on_job_finished), self);
  g_signal_connect (self->worker, "job-failed", G_CALLBACK (on_job_failed), self);
  g_signal_connect_swapped (self->axis_dropdown, "notify::selected", G_CALLBACK (on_axis_selected), self);
  g_signal_connect_swapped (self->highlight_dropdown, "notify::selected",
                            G_CALLBACK (on_highlight_selected), self);
  gtk_widget_set_visible (GTK_WIDGET (self->model_spinner), FALSE);
  g_signal_connect_swapped (self->add_confirm_button, "clicked", G_CALLBACK (on_add_confirm), self);
  g_signal_connect_swapped (self->code_entry, "activate", G_CALLBACK (on_add_confirm), self);
  g_signal_connect_swapped (self->note_entry, "activate", G_CALLBACK (on_add_confirm), self);
  g_signal_connect_swapped (self->refresh_button, "clicked", G_CALLBACK (sb_study_view_refresh), self);
  /* serving online: the roster and the population plot follow the
   * answers as they arrive */
  self->serve_panel = SB_SERVE_PANEL (sb_serve_panel_new ());
  gtk_widget_insert_after (GTK_WIDGET (self->serve_panel), GTK_WIDGET (self),
                           GTK_WIDGET (self->pooled_label));
  g_signal_connect_swapped (self->serve_panel, "study-changed",
                            G_CALLBACK (sb_study_view_refresh), self);
}

SbServePanel *
sb_study_view_get_serve_panel (SbStudyView *self)
{
  g_return_val_if_fail (SB_IS_STUDY_VIEW (self), NULL);
  return self->serve_panel;
}

GtkWidget *
sb_study_view_new (void)
{
  return g_object_new (SB_TYPE_STUDY_VIEW, NULL);
}
