/* sb-plot-view.c — a plot with its controls (see sb-plot-view.h). */
#include "config.h"

#include "sb-plot-view.h"
#include "sb-tool-row.h"

#include <math.h>
#include <string.h>

struct _SbPlotView
{
  GtkBox parent_instance;

  /* Template widgets (borrowed) */
  SbToolRow *toolbar;
  GtkWidget *compare_box;
  GtkWidget *view_box;
  GMenuModel *field_menu, *compare_menu, *samples_menu, *truth_menu, *view_menu;
  GtkDropDown *kind_dropdown;
  GtkDropDown *field_dropdown;
  GtkMenuButton *slice_button;
  GtkBox *slice_box;
  GtkToggleButton *laplace_toggle;
  GtkToggleButton *ep_toggle;
  GtkToggleButton *samples_toggle;
  GtkToggleButton *truth_toggle;
  GtkWidget *reset_button;
  GtkWidget *export_button;
  SbChart *chart;

  /* Owned state */
  SbPlotSnapshot *snapshot;
  SbDensityData *density;
  SbPlotOptions options;

  /* The slice chosen in the popover (d >= 2). */
  guint slice_dim;
  guint axis_x, axis_y;
  double *fixed;
  gboolean slice_touched;      /* the user moved something: keep it */
  GtkDropDown *axis_x_dropdown, *axis_y_dropdown;
  GPtrArray *sliders;          /* GtkScale per coordinate */
  guint slice_timeout;
  gboolean syncing;            /* updating controls from data */
};

enum {
  PROP_0,
  PROP_KIND,
  PROP_FIELD,
  PROP_SHOW_LAPLACE,
  PROP_SHOW_EP,
  PROP_SHOW_SAMPLES,
  PROP_SHOW_TRUTH,
  PROP_SNAPSHOT,
  PROP_DENSITY,
  N_PROPS
};

enum {
  POINT_ACTIVATED,
  SLICE_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_ENUM_TYPE (SbPlotKind, sb_plot_kind,
  G_DEFINE_ENUM_VALUE (SB_PLOT_POSTERIOR, "posterior"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_SKEWNESS, "skewness"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_ACQUISITION, "acquisition"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_VALIDITY, "validity"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_HEATMAP, "heatmap"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_DENSITY, "density"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_CONVERGENCE, "convergence"),
  G_DEFINE_ENUM_VALUE (SB_PLOT_HYPERPARAMETERS, "hyperparameters"))

G_DEFINE_ENUM_TYPE (SbField, sb_field,
  G_DEFINE_ENUM_VALUE (SB_FIELD_MEAN, "mean"),
  G_DEFINE_ENUM_VALUE (SB_FIELD_SD, "sd"),
  G_DEFINE_ENUM_VALUE (SB_FIELD_SKEWNESS, "skewness"),
  G_DEFINE_ENUM_VALUE (SB_FIELD_ACQUISITION, "acquisition"),
  G_DEFINE_ENUM_VALUE (SB_FIELD_P_VALID, "p-valid"))

G_DEFINE_FINAL_TYPE (SbPlotView, sb_plot_view, GTK_TYPE_BOX)

/* ---- Rebuilding ------------------------------------------------------------ */

static gboolean
is_curve_kind (SbPlotKind k)
{
  return k == SB_PLOT_POSTERIOR || k == SB_PLOT_SKEWNESS || k == SB_PLOT_ACQUISITION
         || k == SB_PLOT_VALIDITY;
}

/* Shows or hides TOOL and, with it, the group (a direct child of the
 * tool row) holding it: a group stays while any of its tools is shown. */
static void
set_tool_visible (SbPlotView *self, GtkWidget *tool, gboolean visible)
{
  GtkWidget *group = gtk_widget_get_parent (tool);
  gboolean any = FALSE;

  gtk_widget_set_visible (tool, visible);
  if (group == GTK_WIDGET (self->toolbar))
    return;
  for (GtkWidget *c = gtk_widget_get_first_child (group); c && !any; c = gtk_widget_get_next_sibling (c))
    any = gtk_widget_get_visible (c);
  gtk_widget_set_visible (group, any);
}

/* Controls that mean something for the current plot and data. */
static void
update_controls (SbPlotView *self)
{
  const SbPlotOptions *o = &self->options;
  SbPlotSnapshot *s = self->snapshot;
  gboolean compare = sb_plot_supports_compare (o->kind, o->field);
  gboolean has[SB_N_POSTERIOR_METHODS] = { TRUE, FALSE, FALSE };

  for (int k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
    {
      if (o->kind == SB_PLOT_DENSITY)
        has[k] = self->density && sb_density_data_get_density (self->density, k);
      else if (o->kind == SB_PLOT_HEATMAP)
        has[k] = s && sb_plot_snapshot_get_field (s, o->field, k);
      else
        has[k] = s && sb_plot_snapshot_get_summaries (s, k);
    }
  gsize n_paths = 0;
  if (s)
    sb_plot_snapshot_get_sample_paths (s, &n_paths);

  set_tool_visible (self, GTK_WIDGET (self->field_dropdown), o->kind == SB_PLOT_HEATMAP);
  set_tool_visible (self, GTK_WIDGET (self->slice_button),
                    o->kind == SB_PLOT_HEATMAP && s && sb_plot_snapshot_get_dim (s) > 2);
  set_tool_visible (self, GTK_WIDGET (self->laplace_toggle), compare);
  set_tool_visible (self, GTK_WIDGET (self->ep_toggle), compare);
  /* the toggles and their menu items follow their actions */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-laplace", has[SB_POSTERIOR_LAPLACE]);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-ep", has[SB_POSTERIOR_EP]);
  set_tool_visible (self, GTK_WIDGET (self->samples_toggle), o->kind == SB_PLOT_POSTERIOR);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-samples", n_paths > 0);
  set_tool_visible (self, GTK_WIDGET (self->truth_toggle), o->kind == SB_PLOT_POSTERIOR);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-truth", s && sb_plot_snapshot_get_truth (s));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.reset-zoom", sb_chart_get_zoomed (self->chart));
}

static void
rebuild (SbPlotView *self)
{
  g_autoptr (SbScene) scene = sb_plot_build (&self->options, self->snapshot, self->density);
  sb_chart_set_scene (self->chart, scene);
  update_controls (self);
}

/* ---- Slice controls (d > 2) --------------------------------------------------- */

static void
sync_slider_visibility (SbPlotView *self)
{
  for (guint i = 0; self->sliders && i < self->sliders->len; i++)
    {
      GtkWidget *row = gtk_widget_get_parent (g_ptr_array_index (self->sliders, i));
      gtk_widget_set_visible (row, i != self->axis_x && i != self->axis_y);
    }
}

static gboolean
slice_timeout_cb (gpointer data)
{
  SbPlotView *self = data;
  self->slice_timeout = 0;
  g_signal_emit (self, signals[SLICE_CHANGED], 0);
  return G_SOURCE_REMOVE;
}

/* Sliders fire continuously while dragged; the worker job is asked for
 * once the hand rests (150 ms), and a newer request supersedes it anyway. */
static void
slice_touched (SbPlotView *self)
{
  if (self->syncing)
    return;
  self->slice_touched = TRUE;
  g_clear_handle_id (&self->slice_timeout, g_source_remove);
  self->slice_timeout = g_timeout_add (150, slice_timeout_cb, self);
}

/* A slider's value in natural units: the snapshot's coordinate along a
 * log-scale parameter is log10 of it. */
static char *
slider_value_text (GtkScale *scale, double value, gpointer data)
{
  SbScale kind = (SbScale) GPOINTER_TO_UINT (data);

  if (kind == SB_SCALE_LOG)
    return g_strdup_printf ("%.3g", pow (10, value));
  if (kind == SB_SCALE_INTEGER || kind == SB_SCALE_CATEGORICAL)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.3f", value);
}

static void
slider_changed_cb (GtkRange *range, SbPlotView *self)
{
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (range), "coordinate"));
  if (i < self->slice_dim)
    self->fixed[i] = gtk_range_get_value (range);
  slice_touched (self);
}

static void
axis_changed_cb (GtkDropDown *dd, GParamSpec *pspec, SbPlotView *self)
{
  guint ax = gtk_drop_down_get_selected (self->axis_x_dropdown);
  guint ay = gtk_drop_down_get_selected (self->axis_y_dropdown);
  if (self->syncing || ax == GTK_INVALID_LIST_POSITION || ay == GTK_INVALID_LIST_POSITION)
    return;
  if (ax == ay)
    {
      /* Swap rather than show one axis against itself. */
      self->syncing = TRUE;
      if (dd == self->axis_x_dropdown)
        gtk_drop_down_set_selected (self->axis_y_dropdown, self->axis_x), ay = self->axis_x;
      else
        gtk_drop_down_set_selected (self->axis_x_dropdown, self->axis_y), ax = self->axis_y;
      self->syncing = FALSE;
    }
  self->axis_x = ax;
  self->axis_y = ay;
  sync_slider_visibility (self);
  slice_touched (self);
}

static void
build_slice_controls (SbPlotView *self, SbPlotSnapshot *s)
{
  guint dim = sb_plot_snapshot_get_dim (s);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->slice_box))))
    gtk_box_remove (self->slice_box, child);
  g_clear_pointer (&self->sliders, g_ptr_array_unref);
  g_free (self->fixed);
  self->slice_dim = dim;
  self->fixed = g_new0 (double, dim);
  self->sliders = g_ptr_array_new ();

  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint i = 0; i < dim; i++)
    g_ptr_array_add (names, (gpointer) sb_plot_snapshot_get_parameter (s, i, NULL, NULL));
  g_ptr_array_add (names, NULL);

  GtkWidget *grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Horizontal axis"), 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Vertical axis"), 0, 1, 1, 1);
  self->axis_x_dropdown = GTK_DROP_DOWN (gtk_drop_down_new_from_strings ((const char *const *) names->pdata));
  self->axis_y_dropdown = GTK_DROP_DOWN (gtk_drop_down_new_from_strings ((const char *const *) names->pdata));
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->axis_x_dropdown), 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), GTK_WIDGET (self->axis_y_dropdown), 1, 1, 1, 1);
  gtk_box_append (self->slice_box, grid);
  gtk_box_append (self->slice_box, gtk_label_new ("Other coordinates"));

  for (guint i = 0; i < dim; i++)
    {
      double lo, hi;
      const char *name = sb_plot_snapshot_get_parameter (s, i, &lo, &hi);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *label = gtk_label_new (name);
      gtk_label_set_width_chars (GTK_LABEL (label), 8);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      GtkWidget *scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, lo,
                                                   hi > lo ? hi : lo + 1, (hi - lo) / 200);
      gtk_scale_set_draw_value (GTK_SCALE (scale), TRUE);
      gtk_scale_set_digits (GTK_SCALE (scale), 3);
      gtk_scale_set_format_value_func (GTK_SCALE (scale), slider_value_text,
                                       GUINT_TO_POINTER (sb_plot_snapshot_get_parameter_scale (s, i, NULL)),
                                       NULL);
      gtk_widget_set_hexpand (scale, TRUE);
      g_object_set_data (G_OBJECT (scale), "coordinate", GUINT_TO_POINTER (i));
      g_signal_connect (scale, "value-changed", G_CALLBACK (slider_changed_cb), self);
      gtk_box_append (GTK_BOX (row), label);
      gtk_box_append (GTK_BOX (row), scale);
      gtk_box_append (self->slice_box, row);
      g_ptr_array_add (self->sliders, scale);
    }
  g_signal_connect (self->axis_x_dropdown, "notify::selected", G_CALLBACK (axis_changed_cb), self);
  g_signal_connect (self->axis_y_dropdown, "notify::selected", G_CALLBACK (axis_changed_cb), self);
  self->slice_touched = FALSE;
}

/* Controls follow the data until the user touches them. */
static void
sync_slice_controls (SbPlotView *self, SbPlotSnapshot *s)
{
  guint dim = sb_plot_snapshot_get_dim (s);
  if (dim < 2)
    return;
  if (dim != self->slice_dim)
    build_slice_controls (self, s);
  if (self->slice_touched)
    return;

  guint ax = 0, ay = 1;
  const double *fixed = NULL;
  if (!sb_plot_snapshot_get_slice (s, &ax, &ay, &fixed))
    fixed = NULL;
  if (fixed == NULL)
    fixed = sb_plot_snapshot_get_best (s);
  self->syncing = TRUE;
  self->axis_x = ax;
  self->axis_y = ay;
  gtk_drop_down_set_selected (self->axis_x_dropdown, ax);
  gtk_drop_down_set_selected (self->axis_y_dropdown, ay);
  for (guint i = 0; i < dim; i++)
    {
      double lo, hi;
      sb_plot_snapshot_get_parameter (s, i, &lo, &hi);
      self->fixed[i] = fixed ? fixed[i] : 0.5 * (lo + hi);
      gtk_range_set_value (GTK_RANGE (g_ptr_array_index (self->sliders, i)), self->fixed[i]);
    }
  sync_slider_visibility (self);
  self->syncing = FALSE;
}

/* ---- Chart signals and actions ------------------------------------------------- */

static void
point_clicked_cb (SbPlotView *self, double x, double y, SbChart *chart)
{
  SbPlotSnapshot *s = self->snapshot;
  if (s == NULL)
    return;
  guint dim = sb_plot_snapshot_get_dim (s);
  g_autofree double *pt = g_new0 (double, dim);
  const double *base = sb_plot_snapshot_get_best (s);
  const double *fixed = NULL;
  guint ax = 0, ay = 1, axis = 0;

  if (self->options.kind == SB_PLOT_HEATMAP && sb_plot_snapshot_get_slice (s, &ax, &ay, &fixed))
    {
      if (fixed)
        memcpy (pt, fixed, dim * sizeof (double));
      pt[ax] = x;
      pt[ay] = y;
    }
  else if (is_curve_kind (self->options.kind))
    {
      sb_plot_snapshot_get_curve_grid (s, &axis, NULL);
      if (base)
        memcpy (pt, base, dim * sizeof (double));
      pt[axis] = x;
    }
  else
    return;
  GVariant *v = g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, pt, dim, sizeof (double));
  g_signal_emit (self, signals[POINT_ACTIVATED], 0, v);
}

static void
zoomed_cb (SbPlotView *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.reset-zoom", sb_chart_get_zoomed (self->chart));
}

static void
reset_zoom_action (GtkWidget *widget, const char *name, GVariant *param)
{
  sb_chart_reset_zoom (SB_PLOT_VIEW (widget)->chart);
}

/* The PNG sizes offered in the export dialog: the choice ids are the
 * scales. 300 DPI is a print of the on-screen plot taken as 96 DPI. */
static const char *const export_scale_ids[] = { "1", "2", "3", "3.125", NULL };
static const char *const export_scale_labels[] = {
  "1× (as on screen)", "2× (HiDPI)", "3×", "300 DPI (print)", NULL
};

gboolean
sb_plot_view_export (SbPlotView *self, const char *path, double scale, GError **error)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), FALSE);
  int w = MAX (gtk_widget_get_width (GTK_WIDGET (self->chart)), 480);
  int h = MAX (gtk_widget_get_height (GTK_WIDGET (self->chart)), 320);
  return sb_chart_export (self->chart, path, w, h, scale, error);
}

static void
export_response_cb (GtkNativeDialog *dialog, int response, SbPlotView *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;
      const char *choice = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "scale");
      double scale = choice ? g_ascii_strtod (choice, NULL) : 1;
      if (path && !sb_plot_view_export (self, path, scale, &error))
        {
          GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
          GtkWidget *msg = gtk_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE,
                                                   "Could not export the plot");
          gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (msg), "%s", error->message);
          g_signal_connect (msg, "response", G_CALLBACK (gtk_window_destroy), NULL);
          gtk_window_present (GTK_WINDOW (msg));
        }
    }
  g_object_unref (dialog);
}

static void
export_action (GtkWidget *widget, const char *name, GVariant *param)
{
  SbPlotView *self = SB_PLOT_VIEW (widget);
  const char *ext = g_variant_get_string (param, NULL);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new ("Export Plot", GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  SbScene *scene = sb_chart_get_scene (self->chart);
  g_autofree char *base = g_strdup (scene && sb_scene_get_title (scene) ? sb_scene_get_title (scene) : "plot");
  for (char *c = base; *c; c++)
    if (!g_ascii_isalnum (*c))
      *c = '-';
  g_autofree char *file_name = g_strdup_printf ("%s.%s", base, ext);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), file_name);
  if (g_str_equal (ext, "png"))
    {
      gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "scale", "Size",
                                   (const char **) export_scale_ids,
                                   (const char **) export_scale_labels);
      gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "scale", "2");
    }
  g_signal_connect (dialog, "response", G_CALLBACK (export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- Properties ------------------------------------------------------------------ */

static gboolean *
flag_for (SbPlotView *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_SHOW_LAPLACE: return &self->options.compare[SB_POSTERIOR_LAPLACE];
    case PROP_SHOW_EP: return &self->options.compare[SB_POSTERIOR_EP];
    case PROP_SHOW_SAMPLES: return &self->options.show_samples;
    case PROP_SHOW_TRUTH: return &self->options.show_truth;
    default: return NULL;
    }
}

static void
set_flag (SbPlotView *self, guint prop_id, gboolean value)
{
  gboolean *flag = flag_for (self, prop_id);
  if (*flag == !!value)
    return;
  *flag = !!value;
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

static void
sb_plot_view_get_property (GObject *object, guint prop_id, GValue *value,
                           GParamSpec *pspec)
{
  SbPlotView *self = SB_PLOT_VIEW (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_enum (value, self->options.kind);
      break;
    case PROP_FIELD:
      g_value_set_enum (value, self->options.field);
      break;
    case PROP_SHOW_LAPLACE:
    case PROP_SHOW_EP:
    case PROP_SHOW_SAMPLES:
    case PROP_SHOW_TRUTH:
      g_value_set_boolean (value, *flag_for (self, prop_id));
      break;
    case PROP_SNAPSHOT:
      g_value_set_boxed (value, self->snapshot);
      break;
    case PROP_DENSITY:
      g_value_set_boxed (value, self->density);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_plot_view_set_property (GObject *object, guint prop_id, const GValue *value,
                           GParamSpec *pspec)
{
  SbPlotView *self = SB_PLOT_VIEW (object);

  switch (prop_id)
    {
    case PROP_KIND:
      sb_plot_view_set_kind (self, g_value_get_enum (value));
      break;
    case PROP_FIELD:
      sb_plot_view_set_field (self, g_value_get_enum (value));
      break;
    case PROP_SHOW_LAPLACE:
    case PROP_SHOW_EP:
    case PROP_SHOW_SAMPLES:
    case PROP_SHOW_TRUTH:
      set_flag (self, prop_id, g_value_get_boolean (value));
      break;
    case PROP_SNAPSHOT:
      sb_plot_view_set_snapshot (self, g_value_get_boxed (value));
      break;
    case PROP_DENSITY:
      sb_plot_view_set_density (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
kind_selected_cb (SbPlotView *self)
{
  guint k = gtk_drop_down_get_selected (self->kind_dropdown);
  if (k < SB_N_PLOTS)
    sb_plot_view_set_kind (self, k);
}

static void
field_selected_cb (SbPlotView *self)
{
  guint f = gtk_drop_down_get_selected (self->field_dropdown);
  if (f < SB_N_FIELDS)
    sb_plot_view_set_field (self, f);
}

static void
sb_plot_view_dispose (GObject *object)
{
  SbPlotView *self = SB_PLOT_VIEW (object);

  g_clear_handle_id (&self->slice_timeout, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_PLOT_VIEW);
  G_OBJECT_CLASS (sb_plot_view_parent_class)->dispose (object);
}

static void
sb_plot_view_finalize (GObject *object)
{
  SbPlotView *self = SB_PLOT_VIEW (object);

  g_clear_pointer (&self->snapshot, sb_plot_snapshot_unref);
  g_clear_pointer (&self->density, sb_density_data_unref);
  g_clear_pointer (&self->sliders, g_ptr_array_unref);
  g_free (self->fixed);
  G_OBJECT_CLASS (sb_plot_view_parent_class)->finalize (object);
}

static void
sb_plot_view_class_init (SbPlotViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = sb_plot_view_dispose;
  object_class->finalize = sb_plot_view_finalize;
  object_class->get_property = sb_plot_view_get_property;
  object_class->set_property = sb_plot_view_set_property;

  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, SB_TYPE_PLOT_KIND,
                                             SB_PLOT_POSTERIOR, rw);
  properties[PROP_FIELD] = g_param_spec_enum ("field", NULL, NULL, SB_TYPE_FIELD,
                                              SB_FIELD_MEAN, rw);
  properties[PROP_SHOW_LAPLACE] = g_param_spec_boolean ("show-laplace", NULL, NULL, FALSE, rw);
  properties[PROP_SHOW_EP] = g_param_spec_boolean ("show-ep", NULL, NULL, FALSE, rw);
  properties[PROP_SHOW_SAMPLES] = g_param_spec_boolean ("show-samples", NULL, NULL, TRUE, rw);
  properties[PROP_SHOW_TRUTH] = g_param_spec_boolean ("show-truth", NULL, NULL, FALSE, rw);
  properties[PROP_SNAPSHOT] = g_param_spec_boxed ("snapshot", NULL, NULL, SB_TYPE_PLOT_SNAPSHOT, rw);
  properties[PROP_DENSITY] = g_param_spec_boxed ("density", NULL, NULL, SB_TYPE_DENSITY_DATA, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* ::point-activated (GVariant "ad"): full coordinates of a clicked point. */
  signals[POINT_ACTIVATED] =
    g_signal_new ("point-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_VARIANT);
  /* ::slice-changed: other axes or fixed coordinates chosen (d > 2). */
  signals[SLICE_CHANGED] =
    g_signal_new ("slice-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_install_action (widget_class, "plot.reset-zoom", NULL, reset_zoom_action);
  gtk_widget_class_install_action (widget_class, "plot.export", "s", export_action);
  gtk_widget_class_install_property_action (widget_class, "plot.field", "field");
  gtk_widget_class_install_property_action (widget_class, "plot.show-laplace", "show-laplace");
  gtk_widget_class_install_property_action (widget_class, "plot.show-ep", "show-ep");
  gtk_widget_class_install_property_action (widget_class, "plot.show-samples", "show-samples");
  gtk_widget_class_install_property_action (widget_class, "plot.show-truth", "show-truth");

  g_type_ensure (SB_TYPE_CHART);
  g_type_ensure (SB_TYPE_TOOL_ROW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-plot-view.ui");
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, toolbar);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, compare_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, view_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, field_menu);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, compare_menu);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, samples_menu);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, truth_menu);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, view_menu);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, kind_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, field_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, slice_button);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, slice_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, laplace_toggle);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, ep_toggle);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, samples_toggle);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, truth_toggle);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, reset_button);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, export_button);
  gtk_widget_class_bind_template_child (widget_class, SbPlotView, chart);
  gtk_widget_class_set_css_name (widget_class, "plotview");
}

static void
sb_plot_view_init (SbPlotView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  sb_plot_options_init (&self->options, SB_PLOT_POSTERIOR);

  /* kind and slice stay in the row; the others have menu items */
  sb_tool_row_set_n_pinned (self->toolbar, 2);
  sb_tool_row_set_menu (self->toolbar, GTK_WIDGET (self->field_dropdown), self->field_menu);
  sb_tool_row_set_menu (self->toolbar, self->compare_box, self->compare_menu);
  sb_tool_row_set_menu (self->toolbar, GTK_WIDGET (self->samples_toggle), self->samples_menu);
  sb_tool_row_set_menu (self->toolbar, GTK_WIDGET (self->truth_toggle), self->truth_menu);
  sb_tool_row_set_menu (self->toolbar, self->view_box, self->view_menu);
  g_signal_connect_swapped (self->kind_dropdown, "notify::selected", G_CALLBACK (kind_selected_cb), self);
  g_signal_connect_swapped (self->field_dropdown, "notify::selected", G_CALLBACK (field_selected_cb), self);
  g_signal_connect_swapped (self->chart, "point-clicked", G_CALLBACK (point_clicked_cb), self);
  g_signal_connect_swapped (self->chart, "notify::zoomed", G_CALLBACK (zoomed_cb), self);
  rebuild (self);
}

/* ---- API ----------------------------------------------------------------------- */

GtkWidget *
sb_plot_view_new (SbPlotKind kind)
{
  return g_object_new (SB_TYPE_PLOT_VIEW, "kind", kind, NULL);
}

void
sb_plot_view_set_snapshot (SbPlotView *self, SbPlotSnapshot *snap)
{
  g_return_if_fail (SB_IS_PLOT_VIEW (self));

  if (snap == self->snapshot)
    return;
  /* A result older than the one shown arrived late: drop it. */
  if (snap && self->snapshot
      && sb_plot_snapshot_get_generation (snap) < sb_plot_snapshot_get_generation (self->snapshot))
    return;
  if (snap)
    {
      sb_plot_snapshot_freeze (snap);
      sb_plot_snapshot_ref (snap);
    }
  g_clear_pointer (&self->snapshot, sb_plot_snapshot_unref);
  self->snapshot = snap;
  if (snap)
    sync_slice_controls (self, snap);
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SNAPSHOT]);
}

SbPlotSnapshot *
sb_plot_view_get_snapshot (SbPlotView *self)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), NULL);
  return self->snapshot;
}

void
sb_plot_view_set_density (SbPlotView *self, SbDensityData *density)
{
  g_return_if_fail (SB_IS_PLOT_VIEW (self));

  if (density == self->density)
    return;
  if (density)
    {
      sb_density_data_freeze (density);
      sb_density_data_ref (density);
    }
  g_clear_pointer (&self->density, sb_density_data_unref);
  self->density = density;
  if (self->options.kind == SB_PLOT_DENSITY)
    rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DENSITY]);
}

void
sb_plot_view_set_kind (SbPlotView *self, SbPlotKind kind)
{
  g_return_if_fail (SB_IS_PLOT_VIEW (self));
  g_return_if_fail (kind < SB_N_PLOTS);

  if (kind == self->options.kind)
    return;
  self->options.kind = kind;
  gtk_drop_down_set_selected (self->kind_dropdown, kind);
  /* Another plot: another data window. */
  sb_chart_reset_zoom (self->chart);
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KIND]);
}

SbPlotKind
sb_plot_view_get_kind (SbPlotView *self)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), SB_PLOT_POSTERIOR);
  return self->options.kind;
}

void
sb_plot_view_set_field (SbPlotView *self, SbField field)
{
  g_return_if_fail (SB_IS_PLOT_VIEW (self));
  g_return_if_fail (field < SB_N_FIELDS);

  if (field == self->options.field)
    return;
  self->options.field = field;
  gtk_drop_down_set_selected (self->field_dropdown, field);
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIELD]);
}

SbField
sb_plot_view_get_field (SbPlotView *self)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), SB_FIELD_MEAN);
  return self->options.field;
}

void
sb_plot_view_set_compare (SbPlotView *self, SbPosteriorMethod s, gboolean on)
{
  g_return_if_fail (SB_IS_PLOT_VIEW (self));
  g_return_if_fail (s == SB_POSTERIOR_LAPLACE || s == SB_POSTERIOR_EP);
  set_flag (self, s == SB_POSTERIOR_LAPLACE ? PROP_SHOW_LAPLACE : PROP_SHOW_EP, on);
}

gboolean
sb_plot_view_get_compare (SbPlotView *self, SbPosteriorMethod s)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), FALSE);
  return s < SB_N_POSTERIOR_METHODS && self->options.compare[s];
}

gboolean
sb_plot_view_get_slice (SbPlotView *self, guint *axis_x, guint *axis_y,
                        double *fixed)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), FALSE);
  if (self->slice_dim < 2)
    return FALSE;
  if (axis_x)
    *axis_x = self->axis_x;
  if (axis_y)
    *axis_y = self->axis_y;
  if (fixed)
    memcpy (fixed, self->fixed, self->slice_dim * sizeof (double));
  return TRUE;
}

SbChart *
sb_plot_view_get_chart (SbPlotView *self)
{
  g_return_val_if_fail (SB_IS_PLOT_VIEW (self), NULL);
  return self->chart;
}
