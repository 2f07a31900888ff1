/* sb-new-experiment-dialog.c — choose a template and its settings. */
#include "config.h"

#include "sb-close-keys.h"

#include "sb-new-experiment-dialog.h"

#include "sb-acquisition-row.h"
#include "sb-experiment-check.h"
#include "sb-experiment-templates.h"
#include "sb-settings.h"

#include <glib/gi18n.h>
#include <math.h>

struct _SbNewExperimentDialog
{
  GtkWindow parent_instance;

  /* Owned */
  char **problems;           /* engine benchmark names */
  SbTemplate last_template;

  /* Template widgets (borrowed) */
  GtkCheckButton *colour_radio;
  GtkCheckButton *benchmark_radio;
  GtkCheckButton *custom_radio;
  GtkStack *template_stack;
  GtkDropDown *problem_dropdown;
  GtkLabel *problem_description;
  GtkCheckButton *simulated_check;
  GtkCheckButton *truth_check;
  GtkSpinButton *noise_spin;
  GtkListBox *parameter_list;
  GtkEntry *title_entry;
  GtkDropDown *mode_dropdown;
  GtkWidget *acquisition_label;
  GtkDropDown *acquisition_dropdown;
  GtkDropDown *surrogate_dropdown;
  GtkSpinButton *budget_spin;
  GtkWidget *initial_label;
  GtkSpinButton *initial_spin;
  GtkSpinButton *seed_spin;
  GtkWidget *threshold_label;
  GtkSpinButton *threshold_spin;
  GtkWidget *numeric_every_label;
  GtkSpinButton *numeric_every_spin;
  GtkWidget *confidence_label;
  GtkSpinButton *confidence_spin;
  GtkWidget *question_label;
  GtkDropDown *question_dropdown;   /* rows in SbAskKind order */
  GtkWidget *options_label;
  GtkSpinButton *options_spin;
  GtkCheckButton *ties_check;
  GtkWidget *question_text_label;
  GtkEntry *question_text_entry;
  GtkWidget *confidence_scale_label;
  GtkDropDown *confidence_scale_dropdown;  /* words, then ratings 1-2 .. 1-7 */
  GtkWidget *safe_start_hint;
  GtkLabel *error_label;
};

G_DEFINE_FINAL_TYPE (SbNewExperimentDialog, sb_new_experiment_dialog, GTK_TYPE_WINDOW)

enum {
  EXPERIMENT_CHOSEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The engine's choices in the order of the dialog's drop-downs
 * (sb-new-experiment-dialog.ui). */
static const sg_bo_surrogate surrogate_choices[] = {
  SG_BO_SURROGATE_SKEWGP, SG_BO_SURROGATE_LAPLACE, SG_BO_SURROGATE_EP,
  SG_BO_SURROGATE_RANDOM, SG_BO_SURROGATE_SVGP, SG_BO_SURROGATE_TWO_GP,
};

/* ---- Parameter rows (custom template) ------------------------------------ */

typedef struct {
  GtkEntry *name;
  GtkSpinButton *lower;
  GtkSpinButton *upper;
  GtkEntry *unit;       /* a categorical parameter's levels, comma-separated */
  GtkDropDown *scale;   /* rows in SbScale order */
  GtkSpinButton *resolution;  /* 0: none (categorical: none) */
  GtkWidget *safe_start_box;  /* safe mode only */
  GtkSpinButton *safe_start;
} ParameterRow;

/* The scale dropdown's rows, in SbScale order. */
static const char *const scale_labels[] = {
  N_("linear"), N_("log"), N_("integer"), N_("periodic"), N_("categorical"), NULL,
};

/* A categorical row types its levels where the unit goes; its range is
 * the level indices, so the bounds do not apply, and unordered levels
 * have no measurement resolution (its safe start is a level's index). */
static void
scale_changed (ParameterRow *row)
{
  gboolean categorical = gtk_drop_down_get_selected (row->scale) == SB_SCALE_CATEGORICAL;

  gtk_entry_set_placeholder_text (row->unit, categorical ? _("levels: a, b, c") : _("unit"));
  gtk_editable_set_width_chars (GTK_EDITABLE (row->unit), categorical ? 14 : 5);
  gtk_widget_set_sensitive (GTK_WIDGET (row->lower), !categorical);
  gtk_widget_set_sensitive (GTK_WIDGET (row->upper), !categorical);
  if (row->resolution)
    gtk_widget_set_sensitive (GTK_WIDGET (row->resolution), !categorical);
}

static GtkDropDown *
scale_dropdown_new (ParameterRow *row)
{
  g_autoptr (GtkStringList) labels = gtk_string_list_new (NULL);
  GtkDropDown *dropdown;

  for (guint i = 0; scale_labels[i]; i++)
    gtk_string_list_append (labels, _(scale_labels[i]));
  dropdown = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&labels)), NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (dropdown),
                               _("Scale: log (a positive range modelled in log space), integer "
                                 "(whole numbers), periodic (the range is one period, e.g. a "
                                 "hue), categorical (named levels without order)"));
  g_signal_connect_swapped (dropdown, "notify::selected", G_CALLBACK (scale_changed), row);
  return dropdown;
}

/* ROW's levels (categorical), split at commas and trimmed; NULL when the
 * row is not categorical. */
static GStrv
row_levels (ParameterRow *row)
{
  g_auto (GStrv) parts = NULL;
  GStrvBuilder *b;

  if (gtk_drop_down_get_selected (row->scale) != SB_SCALE_CATEGORICAL)
    return NULL;
  parts = g_strsplit (gtk_editable_get_text (GTK_EDITABLE (row->unit)), ",", -1);
  b = g_strv_builder_new ();
  for (guint i = 0; parts[i]; i++)
    if (*g_strstrip (parts[i]) != '\0')
      g_strv_builder_add (b, parts[i]);
  return g_strv_builder_end (b);
}

static GtkSpinButton *
bound_spin (double value)
{
  GtkAdjustment *adj = gtk_adjustment_new (value, -1e9, 1e9, 1, 10, 0);
  GtkWidget *spin = gtk_spin_button_new (adj, 1, 3);

  gtk_editable_set_width_chars (GTK_EDITABLE (spin), 8);
  return GTK_SPIN_BUTTON (spin);
}

static void offer_acquisitions (SbNewExperimentDialog *self);

static void
remove_row_clicked (GtkButton *button, SbNewExperimentDialog *self)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (button), GTK_TYPE_LIST_BOX_ROW);

  if (row)
    gtk_list_box_remove (self->parameter_list, row);
  offer_acquisitions (self);
}

/* Enter in a spin button's text creates the experiment too (GTK 4.8's
 * GtkSpinButton has no activates-default of its own: its GtkText has). */
static void
activates_default (GtkWidget *spin)
{
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (spin));

  if (GTK_IS_TEXT (text))
    gtk_text_set_activates_default (GTK_TEXT (text), TRUE);
}

/* The row's second line: the measurement resolution, and the parameter's
 * value in the known safe setting (shown in safe mode, which needs it:
 * sync_safe_start_rows). */
static GtkWidget *
bench_line (ParameterRow *row, double lower, double upper)
{
  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkAdjustment *adj = gtk_adjustment_new (0, 0, 1e9, 0.01, 1, 0);

  row->resolution = GTK_SPIN_BUTTON (gtk_spin_button_new (adj, 0.01, 4));
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->resolution),
                               _("Measurement resolution: settings closer than this are the same "
                                 "setting and are not asked again (0: none)"));
  row->safe_start = bound_spin (lower + 0.5 * (upper - lower));
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->safe_start),
                               _("Safe start: this parameter's value in a setting known to be safe, "
                                 "asked first (inside the range)"));
  row->safe_start_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_box_append (GTK_BOX (row->safe_start_box), gtk_label_new (_("safe start")));
  gtk_box_append (GTK_BOX (row->safe_start_box), GTK_WIDGET (row->safe_start));
  activates_default (GTK_WIDGET (row->resolution));
  activates_default (GTK_WIDGET (row->safe_start));
  gtk_box_append (GTK_BOX (line), gtk_label_new (_("resolution")));
  gtk_box_append (GTK_BOX (line), GTK_WIDGET (row->resolution));
  gtk_box_append (GTK_BOX (line), row->safe_start_box);
  return line;
}

static void sync_safe_start_rows (SbNewExperimentDialog *self);

static void
add_parameter_row (SbNewExperimentDialog *self, const char *name, double lower, double upper,
                   const char *unit)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  ParameterRow *row = g_new0 (ParameterRow, 1);
  GtkWidget *remove, *list_row;

  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  row->name = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (row->name, _("name"));
  gtk_editable_set_text (GTK_EDITABLE (row->name), name);
  gtk_widget_set_hexpand (GTK_WIDGET (row->name), TRUE);
  row->lower = bound_spin (lower);
  row->upper = bound_spin (upper);
  row->unit = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (row->unit, _("unit"));
  gtk_editable_set_text (GTK_EDITABLE (row->unit), unit);
  gtk_editable_set_width_chars (GTK_EDITABLE (row->unit), 5);
  row->scale = scale_dropdown_new (row);
  remove = gtk_button_new_from_icon_name ("list-remove-symbolic");
  gtk_widget_set_tooltip_text (remove, _("Remove this parameter"));
  g_signal_connect (remove, "clicked", G_CALLBACK (remove_row_clicked), self);

  gtk_entry_set_activates_default (row->name, TRUE);
  gtk_entry_set_activates_default (row->unit, TRUE);
  activates_default (GTK_WIDGET (row->lower));
  activates_default (GTK_WIDGET (row->upper));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->name));
  gtk_box_append (GTK_BOX (box), gtk_label_new (C_("parameter range", "from")));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->lower));
  gtk_box_append (GTK_BOX (box), gtk_label_new (C_("parameter range", "to")));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->upper));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->scale));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->unit));
  gtk_box_append (GTK_BOX (box), remove);

  {
    GtkWidget *lines = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *line = bench_line (row, lower, upper);
    gtk_widget_set_margin_start (line, 6);
    gtk_widget_set_margin_bottom (line, 6);
    gtk_box_append (GTK_BOX (lines), box);
    gtk_box_append (GTK_BOX (lines), line);
    box = lines;
  }
  list_row = gtk_list_box_row_new ();
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (list_row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (list_row), FALSE);
  g_object_set_data_full (G_OBJECT (list_row), "sb-parameter-row", row, g_free);
  gtk_list_box_append (self->parameter_list, list_row);
  sync_safe_start_rows (self);
  offer_acquisitions (self);
}

/* The custom template's parameter rows. */
static guint
n_parameter_rows (SbNewExperimentDialog *self)
{
  guint n = 0;

  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self->parameter_list)); c;
       c = gtk_widget_get_next_sibling (c))
    n++;
  return n;
}

static void
add_parameter_action (GtkWidget *widget, const char *name, GVariant *param)
{
  SbNewExperimentDialog *self = SB_NEW_EXPERIMENT_DIALOG (widget);
  g_autofree char *pname = g_strdup_printf (_("parameter %u"), n_parameter_rows (self) + 1);

  add_parameter_row (self, pname, 0.0, 1.0, "");
}

/* ---- State ---------------------------------------------------------------- */

static SbTemplate
current_template (SbNewExperimentDialog *self)
{
  if (gtk_check_button_get_active (self->benchmark_radio))
    return SB_TEMPLATE_BENCHMARK;
  if (gtk_check_button_get_active (self->custom_radio))
    return SB_TEMPLATE_CUSTOM;
  return SB_TEMPLATE_COLOUR;
}

static const char *
current_problem (SbNewExperimentDialog *self)
{
  guint i = gtk_drop_down_get_selected (self->problem_dropdown);
  return self->problems && i < g_strv_length (self->problems) ? self->problems[i] : NULL;
}

static sg_bo_surrogate
current_surrogate (SbNewExperimentDialog *self)
{
  guint i = gtk_drop_down_get_selected (self->surrogate_dropdown);
  return surrogate_choices[MIN (i, G_N_ELEMENTS (surrogate_choices) - 1)];
}

/* The number of parameters the experiment built now would have. */
static guint
current_dimension (SbNewExperimentDialog *self)
{
  g_autoptr (SbExperiment) exp = NULL;

  switch (current_template (self))
    {
    case SB_TEMPLATE_BENCHMARK:
      exp = current_problem (self) ? sb_template_benchmark (current_problem (self), NULL) : NULL;
      return exp ? exp->n_parameters : 1;
    case SB_TEMPLATE_CUSTOM:
      return n_parameter_rows (self);
    case SB_TEMPLATE_COLOUR:
    default:
      exp = sb_template_colour ();
      return exp->n_parameters;
    }
}

/* The acquisitions that fit the mode, question kind, model and number of
 * parameters, the measured default among them where none is wanted. */
static void
offer_acquisitions (SbNewExperimentDialog *self)
{
  sb_acquisition_row_offer (self->acquisition_dropdown,
                            (SbMode) gtk_drop_down_get_selected (self->mode_dropdown),
                            (SbAskKind) gtk_drop_down_get_selected (self->question_dropdown),
                            current_surrogate (self), current_dimension (self));
}

static void
apply_defaults (SbNewExperimentDialog *self, const SbExperiment *exp)
{
  gtk_editable_set_text (GTK_EDITABLE (self->title_entry), exp->title);
  gtk_drop_down_set_selected (self->mode_dropdown, exp->mode);
  gtk_spin_button_set_value (self->budget_spin, exp->budget);
  gtk_spin_button_set_value (self->initial_spin, MAX (exp->initial, 1));
  gtk_spin_button_set_value (self->threshold_spin, exp->threshold);
  gtk_spin_button_set_value (self->confidence_spin, exp->confidence_level);
}

/* Safe mode grows its safe set from a setting measured safe: a custom
 * experiment in safe mode gives one (a benchmark's is its problem's). */
static gboolean
wants_safe_start (SbNewExperimentDialog *self)
{
  return gtk_drop_down_get_selected (self->mode_dropdown) == SB_MODE_SAFE;
}

static void
sync_safe_start_rows (SbNewExperimentDialog *self)
{
  gboolean show = wants_safe_start (self);

  gtk_widget_set_visible (self->safe_start_hint, show);
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self->parameter_list)); c;
       c = gtk_widget_get_next_sibling (c))
    {
      ParameterRow *row = g_object_get_data (G_OBJECT (c), "sb-parameter-row");
      if (row)
        gtk_widget_set_visible (row->safe_start_box, show);
    }
}

static void
update_sensitivity (SbNewExperimentDialog *self)
{
  guint mode = gtk_drop_down_get_selected (self->mode_dropdown);
  gboolean simulated = gtk_check_button_get_active (self->simulated_check);
  SbAskKind question = (SbAskKind) gtk_drop_down_get_selected (self->question_dropdown);
  gboolean safe = mode == SB_MODE_SAFE;

  /* One number, two meanings: safe mode's threshold, mixed mode's failure
   * level (a failed setting's utility is below it). */
  gtk_label_set_text (GTK_LABEL (self->threshold_label),
                      mode == SB_MODE_SAFE ? _("Safety threshold") : _("Failure level"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->threshold_spin),
                               mode == SB_MODE_SAFE
                               ? _("A setting is safe when its value is at least this")
                               : _("A setting reported as failed counts as below this value"));
  gtk_widget_set_visible (self->threshold_label, mode != SB_MODE_PREFERENCE);
  gtk_widget_set_visible (GTK_WIDGET (self->threshold_spin), mode != SB_MODE_PREFERENCE);
  gtk_widget_set_visible (self->numeric_every_label, mode == SB_MODE_MIXED);
  gtk_widget_set_visible (GTK_WIDGET (self->numeric_every_spin), mode == SB_MODE_MIXED);
  gtk_widget_set_sensitive (GTK_WIDGET (self->noise_spin), simulated);
  /* Safe mode asks one setting's value at a time, chosen by the SafeOpt
   * rule at its confidence level from the safe start: no question kind,
   * ties, duel acquisition or random initial questions. */
  gtk_widget_set_visible (self->confidence_label, safe);
  gtk_widget_set_visible (GTK_WIDGET (self->confidence_spin), safe);
  gtk_widget_set_visible (self->question_label, !safe);
  gtk_widget_set_visible (GTK_WIDGET (self->question_dropdown), !safe);
  gtk_widget_set_visible (self->acquisition_label, !safe);
  gtk_widget_set_visible (GTK_WIDGET (self->acquisition_dropdown), !safe);
  gtk_widget_set_visible (self->initial_label, !safe);
  gtk_widget_set_visible (GTK_WIDGET (self->initial_spin), !safe);
  gtk_widget_set_visible (self->options_label, !safe && question != SB_ASK_DUEL);
  gtk_widget_set_visible (GTK_WIDGET (self->options_spin), !safe && question != SB_ASK_DUEL);
  gtk_widget_set_visible (GTK_WIDGET (self->ties_check), !safe && question == SB_ASK_DUEL);
  /* what participants read and how they say how sure they are */
  gtk_widget_set_visible (self->question_text_label, !safe);
  gtk_widget_set_visible (GTK_WIDGET (self->question_text_entry), !safe);
  gtk_widget_set_visible (self->confidence_scale_label, !safe);
  gtk_widget_set_visible (GTK_WIDGET (self->confidence_scale_dropdown), !safe);
  offer_acquisitions (self);
  sync_safe_start_rows (self);
}

static void
template_changed (SbNewExperimentDialog *self)
{
  SbTemplate kind = current_template (self);
  g_autoptr (SbExperiment) exp = NULL;

  gtk_stack_set_visible_child_name (self->template_stack, sb_template_to_string (kind));
  /* the wording an empty question text leaves (the duel panel's) */
  gtk_entry_set_placeholder_text (self->question_text_entry,
                                  kind == SB_TEMPLATE_COLOUR ? _("Which colour do you like better?")
                                  : kind == SB_TEMPLATE_BENCHMARK ? _("Which point scores higher?")
                                  : _("Which setting works better?"));
  if (kind == self->last_template)
    return;
  self->last_template = kind;
  switch (kind)
    {
    case SB_TEMPLATE_BENCHMARK:
      exp = current_problem (self) ? sb_template_benchmark (current_problem (self), NULL) : NULL;
      break;
    case SB_TEMPLATE_CUSTOM:
      exp = sb_template_custom ();
      break;
    case SB_TEMPLATE_COLOUR:
    default:
      exp = sb_template_colour ();
      break;
    }
  if (exp)
    apply_defaults (self, exp);
  update_sensitivity (self);
}

static void
problem_changed (SbNewExperimentDialog *self)
{
  const char *problem = current_problem (self);
  g_autofree char *text = problem ? sb_template_describe_problem (problem) : g_strdup ("");
  g_autoptr (SbExperiment) exp = problem ? sb_template_benchmark (problem, NULL) : NULL;

  gtk_label_set_text (self->problem_description, text);
  if (exp && current_template (self) == SB_TEMPLATE_BENCHMARK)
    apply_defaults (self, exp);
  update_sensitivity (self);
}

/* The acquisition preference (ui/sb-settings.c), when the user set one,
 * is preselected where the question kind, mode and model offer it;
 * otherwise the measured default of each combination is. */
static void
select_default_acquisition (SbNewExperimentDialog *self)
{
  const char *name = sb_settings_get_default_acquisition ();
  sg_bo_acquisition preferred;

  if (name != NULL && sg_bo_acquisition_parse (name, &preferred) == SG_OK)
    sb_acquisition_row_select (self->acquisition_dropdown, preferred);
}

void
sb_new_experiment_dialog_set_template (SbNewExperimentDialog *self, SbTemplate kind)
{
  g_return_if_fail (SB_IS_NEW_EXPERIMENT_DIALOG (self));

  gtk_check_button_set_active (kind == SB_TEMPLATE_BENCHMARK ? self->benchmark_radio
                               : kind == SB_TEMPLATE_CUSTOM ? self->custom_radio
                               : self->colour_radio, TRUE);
  template_changed (self);
}

SbExperiment *
sb_new_experiment_dialog_build (SbNewExperimentDialog *self, GError **error)
{
  SbTemplate kind = current_template (self);
  g_autoptr (SbExperiment) exp = NULL;
  const char *title = gtk_editable_get_text (GTK_EDITABLE (self->title_entry));

  switch (kind)
    {
    case SB_TEMPLATE_BENCHMARK:
      if (current_problem (self) == NULL)
        {
          g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                       _("the engine offers no benchmark problem"));
          return NULL;
        }
      exp = sb_template_benchmark (current_problem (self), error);
      if (exp == NULL)
        return NULL;
      exp->simulated = gtk_check_button_get_active (self->simulated_check);
      exp->show_truth = gtk_check_button_get_active (self->truth_check);
      exp->oracle_noise = gtk_spin_button_get_value (self->noise_spin);
      break;
    case SB_TEMPLATE_CUSTOM:
      exp = sb_template_custom ();
      for (guint i = 0; i < exp->n_parameters; i++)
        {
          g_free (exp->parameters[i].name);
          g_free (exp->parameters[i].unit);
        }
      exp->n_parameters = 0;
      for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self->parameter_list)); c;
           c = gtk_widget_get_next_sibling (c))
        {
          ParameterRow *row = g_object_get_data (G_OBJECT (c), "sb-parameter-row");
          g_autofree char *name = NULL;
          g_auto (GStrv) levels = NULL;
          double lower, upper;

          if (row == NULL)
            continue;
          name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row->name))));
          lower = gtk_spin_button_get_value (row->lower);
          upper = gtk_spin_button_get_value (row->upper);
          levels = row_levels (row);
          if (levels && g_strv_length (levels) < 2)
            {
              g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                           _("parameter %u: a categorical parameter needs 2 or more levels, "
                             "separated by commas"), exp->n_parameters + 1);
              return NULL;
            }
          if (levels)
            {
              lower = 0;
              upper = g_strv_length (levels) - 1.0;
            }
          if (*name == '\0' || !(lower < upper))
            {
              g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                           *name == '\0' ? _("parameter %u has no name")
                                         : _("parameter %u: the lower bound must be below the upper bound"),
                           exp->n_parameters + 1);
              return NULL;
            }
          if (!sb_experiment_add_parameter (exp, name,
                                            levels ? "" : gtk_editable_get_text (GTK_EDITABLE (row->unit)),
                                            lower, upper))
            {
              g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                           _("at most %d parameters are supported"), SB_MAX_PARAMETERS);
              return NULL;
            }
          /* the scale's rules are checked by sb_experiment_validate below,
           * which also refuses a resolution as wide as the range and a safe
           * start outside it, naming the parameter; levels take no
           * resolution */
          exp->parameters[exp->n_parameters - 1].scale = (SbScale) gtk_drop_down_get_selected (row->scale);
          exp->parameters[exp->n_parameters - 1].resolution
            = levels ? 0 : gtk_spin_button_get_value (row->resolution);
          exp->parameters[exp->n_parameters - 1].levels = g_steal_pointer (&levels);
          exp->safe_start[exp->n_parameters - 1] = gtk_spin_button_get_value (row->safe_start);
          exp->has_safe_start = wants_safe_start (self);
        }
      break;
    case SB_TEMPLATE_COLOUR:
    default:
      exp = sb_template_colour ();
      break;
    }

  if (title && *title)
    {
      g_free (exp->title);
      exp->title = g_strdup (title);
    }
  exp->mode = (SbMode) gtk_drop_down_get_selected (self->mode_dropdown);
  exp->acquisition = sb_acquisition_row_selected (self->acquisition_dropdown);
  exp->surrogate = current_surrogate (self);
  exp->budget = gtk_spin_button_get_value_as_int (self->budget_spin);
  exp->initial = gtk_spin_button_get_value_as_int (self->initial_spin);
  exp->seed = (guint64) gtk_spin_button_get_value (self->seed_spin);
  exp->threshold = gtk_spin_button_get_value (self->threshold_spin);
  exp->numeric_every = gtk_spin_button_get_value_as_int (self->numeric_every_spin);
  exp->confidence_level = gtk_spin_button_get_value (self->confidence_spin);
  /* the hidden rows of safe mode ask nothing: one value at a time */
  exp->question = exp->mode == SB_MODE_SAFE
                  ? SB_ASK_DUEL : (SbAskKind) gtk_drop_down_get_selected (self->question_dropdown);
  exp->n_options = exp->question == SB_ASK_DUEL ? 2
                   : (guint) gtk_spin_button_get_value_as_int (self->options_spin);
  exp->ties_allowed = exp->mode != SB_MODE_SAFE && exp->question == SB_ASK_DUEL
                      && gtk_check_button_get_active (self->ties_check);
  if (exp->mode == SB_MODE_SAFE)
    exp->acquisition = SG_BO_ACQ_UCB;
  {
    g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (
                                          GTK_EDITABLE (self->question_text_entry))));
    guint scale = gtk_drop_down_get_selected (self->confidence_scale_dropdown);
    g_free (exp->question_text);
    exp->question_text = exp->mode != SB_MODE_SAFE && *text ? g_steal_pointer (&text) : NULL;
    exp->confidence_levels = exp->mode != SB_MODE_SAFE && scale != GTK_INVALID_LIST_POSITION
                             && scale > 0 ? scale + 1 : 0;
  }
  if (!sb_experiment_validate (exp, error) || !sb_experiment_check_safe_new (exp, error))
    return NULL;
  return g_steal_pointer (&exp);
}

static void
create_action (GtkWidget *widget, const char *name, GVariant *param)
{
  SbNewExperimentDialog *self = SB_NEW_EXPERIMENT_DIALOG (widget);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (self, &error);

  if (exp == NULL)
    {
      gtk_label_set_text (self->error_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
      return;
    }
  g_signal_emit (self, signals[EXPERIMENT_CHOSEN], 0, exp);
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
cancel_action (GtkWidget *widget, const char *name, GVariant *param)
{
  gtk_window_destroy (GTK_WINDOW (widget));
}

/* ---- GObject -------------------------------------------------------------- */

static void
sb_new_experiment_dialog_dispose (GObject *object)
{
  SbNewExperimentDialog *self = SB_NEW_EXPERIMENT_DIALOG (object);

  g_clear_pointer (&self->problems, g_strfreev);
  G_OBJECT_CLASS (sb_new_experiment_dialog_parent_class)->dispose (object);
}

static void
sb_new_experiment_dialog_class_init (SbNewExperimentDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_new_experiment_dialog_dispose;

  signals[EXPERIMENT_CHOSEN] =
    g_signal_new ("experiment-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, SB_TYPE_EXPERIMENT);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-new-experiment-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, colour_radio);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, benchmark_radio);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, custom_radio);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, template_stack);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, problem_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, problem_description);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, simulated_check);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, truth_check);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, noise_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, parameter_list);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, title_entry);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, mode_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, acquisition_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, surrogate_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, budget_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, initial_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, seed_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, threshold_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, threshold_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, numeric_every_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, numeric_every_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, question_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, options_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, options_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, ties_check);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, question_text_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, question_text_entry);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, confidence_scale_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog,
                                        confidence_scale_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, safe_start_hint);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, confidence_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, confidence_spin);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, question_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, acquisition_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, initial_label);
  gtk_widget_class_bind_template_child (widget_class, SbNewExperimentDialog, error_label);

  gtk_widget_class_install_action (widget_class, "dialog.create", NULL, create_action);
  gtk_widget_class_install_action (widget_class, "dialog.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "dialog.add-parameter", NULL, add_parameter_action);
  sb_window_class_add_close_keys (widget_class, "dialog.cancel");
}

static void
sb_new_experiment_dialog_init (SbNewExperimentDialog *self)
{
  g_autoptr (SbExperiment) custom = sb_template_custom ();
  g_autoptr (GtkStringList) problems = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  sb_acquisition_row_init (self->acquisition_dropdown);

  self->problems = sb_template_list_problems ();
  problems = gtk_string_list_new ((const char *const *) self->problems);
  gtk_drop_down_set_model (self->problem_dropdown, G_LIST_MODEL (problems));
  for (guint i = 0; self->problems[i]; i++)
    if (g_str_equal (self->problems[i], "six-hump-camel"))
      gtk_drop_down_set_selected (self->problem_dropdown, i);

  for (guint i = 0; i < custom->n_parameters; i++)
    add_parameter_row (self, custom->parameters[i].name, custom->parameters[i].lower,
                       custom->parameters[i].upper, custom->parameters[i].unit);

  self->last_template = (SbTemplate) -1;
  g_signal_connect_swapped (self->colour_radio, "toggled", G_CALLBACK (template_changed), self);
  g_signal_connect_swapped (self->benchmark_radio, "toggled", G_CALLBACK (template_changed), self);
  g_signal_connect_swapped (self->custom_radio, "toggled", G_CALLBACK (template_changed), self);
  g_signal_connect_swapped (self->problem_dropdown, "notify::selected", G_CALLBACK (problem_changed), self);
  g_signal_connect_swapped (self->mode_dropdown, "notify::selected", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->simulated_check, "toggled", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->question_dropdown, "notify::selected", G_CALLBACK (update_sensitivity), self);
  g_signal_connect_swapped (self->surrogate_dropdown, "notify::selected", G_CALLBACK (update_sensitivity), self);
  problem_changed (self);
  template_changed (self);
  select_default_acquisition (self);
  {
    GtkSpinButton *spins[] = { self->noise_spin, self->budget_spin, self->initial_spin,
                               self->seed_spin, self->threshold_spin, self->numeric_every_spin,
                               self->confidence_spin, self->options_spin };
    for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
      activates_default (GTK_WIDGET (spins[i]));
  }
}

SbNewExperimentDialog *
sb_new_experiment_dialog_new (GtkWindow *parent)
{
  return g_object_new (SB_TYPE_NEW_EXPERIMENT_DIALOG, "transient-for", parent, NULL);
}
