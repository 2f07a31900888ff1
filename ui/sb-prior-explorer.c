/* sb-prior-explorer.c — the SkewGP prior explorer (sb-prior-explorer.h). */
#include "config.h"

#include "sb-close-keys.h"

#include "sb-prior-explorer.h"

#include "sb-render-views.h"
#include "sb-worker.h"

#include <math.h>

#define HANDLE_PICK_RADIUS 14.0   /* device units around a handle's marker */

struct _SbPriorExplorer
{
  GtkWindow parent_instance;

  /* owned */
  SbWorker *worker;
  SbPriorInput input;           /* the controls' state                    */
  SbPriorInput sent_curves;     /* input of the last submitted jobs       */
  SbPriorInput sent_pair;
  guint64 gen_curves, gen_pair;
  SbPlotSnapshot *snapshot;     /* shown                                  */
  SbPriorPair *pair;            /* shown                                  */
  GHashTable *controls;         /* name -> widget (borrowed)              */
  guint update_idle;
  int drag_handle;              /* pseudo-point being dragged, or -1      */
  double drag_x0, drag_y0;

  /* template children (borrowed) */
  GtkDropDown *kernel_dropdown;
  GtkScale *lengthscale_scale;
  GtkScale *variance_scale;
  GtkSpinButton *s_spin;
  GtkBox *pseudo_box;
  GtkDropDown *pair_dropdown;
  GtkScale *pair_a_scale;
  GtkScale *pair_b_scale;
  SbChart *prior_chart;
  SbChart *skew_chart;
  SbChart *pair_chart;
  GtkLabel *status_label;

  /* pseudo-point rows (borrowed, children of pseudo_box) */
  GtkWidget *row[SB_PRIOR_MAX_S];
  GtkSpinButton *u_spin[SB_PRIOR_MAX_S];
  GtkToggleButton *phase_toggle[SB_PRIOR_MAX_S];
  GtkScale *gamma_scale[SB_PRIOR_MAX_S];
};

G_DEFINE_FINAL_TYPE (SbPriorExplorer, sb_prior_explorer, GTK_TYPE_WINDOW)

static void schedule_update (SbPriorExplorer *self);
static void rebuild_prior_scenes (SbPriorExplorer *self);

/* ---- Controls <-> input ----------------------------------------------------- */

static const char *
phase_text (gboolean negative)
{
  return negative ? "L = −1" : "L = +1";
}

/* Reads every control into self->input (the only writer of the prior's
 * fields besides reset). */
static void
read_controls (SbPriorExplorer *self)
{
  SbPriorInput *in = &self->input;

  in->kernel = gtk_drop_down_get_selected (self->kernel_dropdown) == 1 ? SG_KERNEL_MATERN52
                                                                       : SG_KERNEL_RBF;
  in->lengthscale = gtk_range_get_value (GTK_RANGE (self->lengthscale_scale));
  in->variance = gtk_range_get_value (GTK_RANGE (self->variance_scale));
  in->s = (guint) CLAMP (gtk_spin_button_get_value_as_int (self->s_spin), 0, SB_PRIOR_MAX_S);
  for (guint i = 0; i < SB_PRIOR_MAX_S; i++)
    {
      in->pseudo[i] = gtk_spin_button_get_value (self->u_spin[i]);
      in->phase[i] = gtk_toggle_button_get_active (self->phase_toggle[i]) ? -1 : 1;
      in->gamma[i] = gtk_range_get_value (GTK_RANGE (self->gamma_scale[i]));
    }
  guint pair = gtk_drop_down_get_selected (self->pair_dropdown);
  in->pair = pair < SB_PRIOR_N_PAIRS ? (SbPriorPairMode) pair : SB_PRIOR_PAIR_POINTS;
  in->pair_x[0] = gtk_range_get_value (GTK_RANGE (self->pair_a_scale));
  in->pair_x[1] = gtk_range_get_value (GTK_RANGE (self->pair_b_scale));
}

static void
update_sensitivity (SbPriorExplorer *self)
{
  for (guint i = 0; i < SB_PRIOR_MAX_S; i++)
    gtk_widget_set_visible (self->row[i], i < self->input.s);
  gboolean points = self->input.pair == SB_PRIOR_PAIR_POINTS;
  gtk_widget_set_sensitive (GTK_WIDGET (self->pair_a_scale), points);
  gtk_widget_set_sensitive (GTK_WIDGET (self->pair_b_scale), points);
}

static void
controls_changed (SbPriorExplorer *self)
{
  read_controls (self);
  for (guint i = 0; i < SB_PRIOR_MAX_S; i++)
    gtk_button_set_label (GTK_BUTTON (self->phase_toggle[i]),
                          phase_text (gtk_toggle_button_get_active (self->phase_toggle[i])));
  update_sensitivity (self);
  /* The handles follow the controls at once; the curves when the job is done. */
  rebuild_prior_scenes (self);
  schedule_update (self);
}

/* Writes IN into the controls (each write comes back through
 * controls_changed, which re-reads them all). */
static void
write_controls (SbPriorExplorer *self, const SbPriorInput *in)
{
  gtk_drop_down_set_selected (self->kernel_dropdown, in->kernel == SG_KERNEL_MATERN52 ? 1 : 0);
  gtk_range_set_value (GTK_RANGE (self->lengthscale_scale), in->lengthscale);
  gtk_range_set_value (GTK_RANGE (self->variance_scale), in->variance);
  gtk_spin_button_set_value (self->s_spin, in->s);
  for (guint i = 0; i < SB_PRIOR_MAX_S; i++)
    {
      gtk_spin_button_set_value (self->u_spin[i], in->pseudo[i]);
      gtk_toggle_button_set_active (self->phase_toggle[i], in->phase[i] < 0);
      gtk_range_set_value (GTK_RANGE (self->gamma_scale[i]), in->gamma[i]);
    }
  gtk_drop_down_set_selected (self->pair_dropdown, in->pair);
  gtk_range_set_value (GTK_RANGE (self->pair_a_scale), in->pair_x[0]);
  gtk_range_set_value (GTK_RANGE (self->pair_b_scale), in->pair_x[1]);
  self->input.seed = in->seed;
  controls_changed (self);
}

/* One row per pseudo-point: location, phase, gamma. */
static void
build_pseudo_rows (SbPriorExplorer *self)
{
  for (guint i = 0; i < SB_PRIOR_MAX_S; i++)
    {
      GtkWidget *grid = gtk_grid_new ();
      gtk_grid_set_column_spacing (GTK_GRID (grid), 6);
      gtk_grid_set_row_spacing (GTK_GRID (grid), 2);
      gtk_widget_add_css_class (grid, "card");
      gtk_widget_set_margin_bottom (grid, 2);

      char text[32], name[16];
      g_snprintf (text, sizeof text, "u%u", i + 1);
      GtkWidget *label = gtk_label_new (text);
      gtk_widget_add_css_class (label, "heading");
      gtk_widget_set_margin_start (label, 6);
      gtk_grid_attach (GTK_GRID (grid), label, 0, 0, 1, 1);

      GtkWidget *spin = gtk_spin_button_new_with_range (0, 1, 0.01);
      gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 2);
      gtk_widget_set_hexpand (spin, TRUE);
      gtk_widget_set_tooltip_text (spin, "Location of the pseudo-point (or drag its marker)");
      gtk_grid_attach (GTK_GRID (grid), spin, 1, 0, 1, 1);

      GtkWidget *phase = gtk_toggle_button_new_with_label (phase_text (FALSE));
      gtk_widget_set_tooltip_text (phase, "Phase L: +1 pushes f(u) up, −1 pushes it down");
      gtk_widget_set_margin_end (phase, 6);
      gtk_grid_attach (GTK_GRID (grid), phase, 2, 0, 1, 1);

      g_snprintf (text, sizeof text, "γ%u", i + 1);
      GtkWidget *glabel = gtk_label_new (text);
      gtk_widget_set_margin_start (glabel, 6);
      gtk_grid_attach (GTK_GRID (grid), glabel, 0, 1, 1, 1);
      GtkWidget *gamma = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, -3, 3, 0.05);
      gtk_scale_set_draw_value (GTK_SCALE (gamma), TRUE);
      gtk_scale_set_value_pos (GTK_SCALE (gamma), GTK_POS_RIGHT);
      gtk_scale_set_digits (GTK_SCALE (gamma), 2);
      gtk_widget_set_margin_end (gamma, 6);
      gtk_grid_attach (GTK_GRID (grid), gamma, 1, 1, 2, 1);

      self->row[i] = grid;
      self->u_spin[i] = GTK_SPIN_BUTTON (spin);
      self->phase_toggle[i] = GTK_TOGGLE_BUTTON (phase);
      self->gamma_scale[i] = GTK_SCALE (gamma);
      g_snprintf (name, sizeof name, "u%u", i + 1);
      g_hash_table_insert (self->controls, g_strdup (name), spin);
      g_snprintf (name, sizeof name, "phase%u", i + 1);
      g_hash_table_insert (self->controls, g_strdup (name), phase);
      g_snprintf (name, sizeof name, "gamma%u", i + 1);
      g_hash_table_insert (self->controls, g_strdup (name), gamma);

      g_signal_connect_swapped (spin, "value-changed", G_CALLBACK (controls_changed), self);
      g_signal_connect_swapped (phase, "toggled", G_CALLBACK (controls_changed), self);
      g_signal_connect_swapped (gamma, "value-changed", G_CALLBACK (controls_changed), self);
      gtk_box_append (self->pseudo_box, grid);
    }
}

/* ---- Jobs -------------------------------------------------------------------- */

static gboolean
update_now (gpointer data)
{
  SbPriorExplorer *self = data;
  self->update_idle = 0;

  if (self->gen_curves == 0 || !sb_prior_input_equal_curves (&self->input, &self->sent_curves))
    {
      self->sent_curves = self->input;
      self->gen_curves = sb_worker_submit (self->worker, SB_WORKER_LANE_PLOT, sb_prior_job_curves,
                                           sb_prior_input_copy (&self->input),
                                           (GDestroyNotify) sb_prior_input_free,
                                           (GDestroyNotify) sb_plot_snapshot_unref);
    }
  if (self->gen_pair == 0 || !sb_prior_input_equal_pair (&self->input, &self->sent_pair))
    {
      self->sent_pair = self->input;
      self->gen_pair = sb_worker_submit (self->worker, SB_WORKER_LANE_DENSITY, sb_prior_job_pair,
                                         sb_prior_input_copy (&self->input),
                                         (GDestroyNotify) sb_prior_input_free,
                                         (GDestroyNotify) sb_prior_pair_free);
    }
  return G_SOURCE_REMOVE;
}

/* Coalesces the changes of one main-loop iteration into one submission;
 * a submission supersedes the lane's running job (sb-worker.h). */
static void
schedule_update (SbPriorExplorer *self)
{
  if (self->update_idle == 0)
    self->update_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, update_now, self, NULL);
}

static SbPriorPair *
pair_copy (const SbPriorPair *p)
{
  SbPriorPair *c = g_new0 (SbPriorPair, 1);
  c->sun = p->sun ? sb_grid2_ref (p->sun) : NULL;
  c->gauss = p->gauss ? sb_grid2_ref (p->gauss) : NULL;
  c->mean[0] = p->mean[0];
  c->mean[1] = p->mean[1];
  c->title = g_strdup (p->title);
  c->subtitle = g_strdup (p->subtitle);
  c->x_label = g_strdup (p->x_label);
  c->y_label = g_strdup (p->y_label);
  c->generation = p->generation;
  return c;
}

/* ---- Scenes -------------------------------------------------------------------- */

/* Linear interpolation of the snapshot's mean at X (NaN without data). */
static double
mean_at (SbPlotSnapshot *snap, double x)
{
  const double *grid;
  gsize n = snap ? sb_plot_snapshot_get_curve_grid (snap, NULL, &grid) : 0;
  const sg_point_summary *sum = snap ? sb_plot_snapshot_get_summaries (snap, SB_POSTERIOR_EXACT) : NULL;
  if (n < 2 || sum == NULL)
    return NAN;
  if (x <= grid[0])
    return sum[0].mean;
  for (gsize i = 1; i < n; i++)
    if (x <= grid[i])
      {
        double t = (x - grid[i - 1]) / (grid[i] - grid[i - 1]);
        return (1 - t) * sum[i - 1].mean + t * sum[i].mean;
      }
  return sum[n - 1].mean;
}

static char *
parameters_note (const SbPriorInput *in)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s, ℓ = %.2f, σ² = %.2f, s = %u",
                          in->kernel == SG_KERNEL_MATERN52 ? "Matérn 5/2" : "RBF",
                          in->lengthscale, in->variance, in->s);
  if (in->s > 0)
    {
      g_string_append (s, ", γ = (");
      for (guint i = 0; i < in->s; i++)
        g_string_append_printf (s, "%s%.2f", i ? ", " : "", in->gamma[i]);
      g_string_append (s, "), L = (");
      for (guint i = 0; i < in->s; i++)
        g_string_append_printf (s, "%s%s", i ? ", " : "", in->phase[i] < 0 ? "−1" : "+1");
      g_string_append (s, ")");
    }
  return g_string_free (s, FALSE);
}

/* The prior plot (sb_plot_build's posterior plot in "prior" mode) with the
 * pseudo-point handles, and the SS(x) plot with the pseudo-points marked. */
static void
rebuild_prior_scenes (SbPriorExplorer *self)
{
  if (self->snapshot == NULL)
    return;
  const SbPriorInput *in = &self->input;
  SbPlotOptions o;
  g_autofree char *note = parameters_note (in);

  sb_plot_options_init (&o, SB_PLOT_POSTERIOR);
  o.prior = TRUE;
  g_autoptr (SbScene) scene = sb_plot_build (&o, self->snapshot, NULL);
  sb_scene_set_subtitle (scene, note);
  /* Handles: triangles up for L = +1, down for L = -1 (the phase's push),
   * on the mean curve at u_i. */
  for (int sign = 1; sign >= -1; sign -= 2)
    {
      double hx[SB_PRIOR_MAX_S], hy[SB_PRIOR_MAX_S];
      gsize k = 0;
      for (guint i = 0; i < in->s; i++)
        if ((in->phase[i] < 0) == (sign < 0))
          {
            hx[k] = in->pseudo[i];
            hy[k++] = mean_at (self->snapshot, in->pseudo[i]);
          }
      if (k == 0)
        continue;
      SbStyle st = sb_style_marker (SB_ROLE_NEXT, sign > 0 ? SB_MARKER_TRIANGLE_UP : SB_MARKER_TRIANGLE_DOWN, 7, TRUE);
      sb_scene_take_layer (scene, sb_layer_new_markers (sign > 0 ? "pseudo/up" : "pseudo/down",
                                                        sign > 0 ? "pseudo-point u, L = +1 (drag)"
                                                                 : "pseudo-point u, L = −1 (drag)",
                                                        &st, k, hx, hy));
    }
  sb_chart_set_scene (self->prior_chart, scene);

  sb_plot_options_init (&o, SB_PLOT_SKEWNESS);
  o.prior = TRUE;
  g_autoptr (SbScene) skew = sb_plot_build (&o, self->snapshot, NULL);
  for (guint i = 0; i < in->s; i++)
    {
      SbStyle st;
      char id[16];
      sb_style_init (&st, SB_ROLE_NEXT);
      st.dash = SB_DASH_DOTTED;
      st.alpha = 0.7;
      st.line_width = 1.2;
      g_snprintf (id, sizeof id, "u%u", i + 1);
      sb_scene_take_layer (skew, sb_layer_new_rule (SB_LAYER_VLINE, id, i == 0 ? "pseudo-points" : NULL,
                                                    &st, in->pseudo[i]));
    }
  sb_chart_set_scene (self->skew_chart, skew);
}

static void
contour_fractions (const SbGrid2 *grid, double *levels, gsize *n)
{
  static const double frac[] = { 0.05, 0.2, 0.4, 0.6, 0.8 };
  double vmin, vmax;
  *n = 0;
  if (!sb_grid2_get_range (grid, &vmin, &vmax) || !(vmax > 0))
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (frac); i++)
    levels[(*n)++] = frac[i] * vmax;
}

static SbLayer *
grid_contours (const char *id, const char *label, const SbStyle *st, const SbGrid2 *g)
{
  double levels[8], x0, x1, y0, y1;
  gsize n;
  contour_fractions (g, levels, &n);
  sb_grid2_get_box (g, &x0, &x1, &y0, &y1);
  return sb_layer_new_contours (id, label, st, sb_grid2_get_nx (g), sb_grid2_get_ny (g),
                                sb_grid2_get_values (g), x0, x1, y0, y1, n, levels);
}

/* 000 Figure 2 style: SUN contours solid, the Gaussian's dashed, the mean. */
static void
rebuild_pair_scene (SbPriorExplorer *self)
{
  const SbPriorPair *p = self->pair;
  if (p == NULL || p->sun == NULL)
    return;
  g_autoptr (SbScene) scene = sb_scene_new (p->title, p->x_label, p->y_label);
  sb_scene_set_subtitle (scene, p->subtitle);
  double x0, x1, y0, y1;
  sb_grid2_get_box (p->sun, &x0, &x1, &y0, &y1);
  sb_scene_set_x_range (scene, x0, x1);
  sb_scene_set_y_range (scene, y0, y1);

  SbStyle st;
  sb_style_init (&st, SB_ROLE_FOREGROUND);
  st.dash = SB_DASH_DASHED;
  st.alpha = 0.55;
  st.line_width = 1.2;
  if (p->gauss)
    sb_scene_take_layer (scene, grid_contours ("gauss", "Gaussian N₂(ξ, Ω) (s = 0)", &st, p->gauss));
  sb_style_init (&st, SB_ROLE_EXACT);
  st.line_width = 2.0;
  sb_scene_take_layer (scene, grid_contours ("sun", "SUN density (5–80% of max)", &st, p->sun));
  if (isfinite (p->mean[0]) && isfinite (p->mean[1]))
    {
      sb_style_init (&st, SB_ROLE_EXACT);
      st.marker = st.marker2 = SB_MARKER_CROSS;
      st.marker_size = 6;
      st.line_width = 2;
      sb_scene_take_layer (scene, sb_layer_new_markers ("mean", "SUN mean", &st, 1, &p->mean[0],
                                                        &p->mean[1]));
    }
  sb_chart_set_scene (self->pair_chart, scene);
}

static void
on_job_finished (SbWorker *worker, guint lane, guint64 generation, gpointer result,
                 SbPriorExplorer *self)
{
  if (lane == SB_WORKER_LANE_PLOT)
    {
      g_clear_pointer (&self->snapshot, sb_plot_snapshot_unref);
      self->snapshot = sb_plot_snapshot_ref (result);
      rebuild_prior_scenes (self);
      g_autofree char *text =
        g_strdup_printf ("Prior: %u sample paths from %u truncated draws; mean and sd in closed "
                         "form (SUN moments), band and SS(x) from the draws.",
                         self->sent_curves.n_paths, self->sent_curves.n_samples);
      gtk_label_set_text (self->status_label, text);
    }
  else if (lane == SB_WORKER_LANE_DENSITY)
    {
      g_clear_pointer (&self->pair, sb_prior_pair_free);
      self->pair = pair_copy (result);
      rebuild_pair_scene (self);
    }
}

static void
on_job_failed (SbWorker *worker, guint lane, guint64 generation, const GError *error,
               SbPriorExplorer *self)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_autofree char *text = g_strdup_printf ("%s: %s",
                                           lane == SB_WORKER_LANE_PLOT ? "Prior" : "SUN density",
                                           error->message);
  gtk_label_set_text (self->status_label, text);
}

/* ---- Dragging the handles -------------------------------------------------------- */

static int
pick_handle (SbPriorExplorer *self, double x, double y)
{
  int best = -1;
  double best_d = HANDLE_PICK_RADIUS;
  for (guint i = 0; i < self->input.s; i++)
    {
      double hx, hy;
      if (!sb_prior_explorer_get_handle_position (self, i, &hx, &hy))
        continue;
      double d = hypot (hx - x, hy - y);
      if (d <= best_d)
        {
          best_d = d;
          best = (int) i;
        }
    }
  return best;
}

static gboolean
drag_begin (SbPriorExplorer *self, double x, double y)
{
  self->drag_handle = pick_handle (self, x, y);
  self->drag_x0 = x;
  self->drag_y0 = y;
  return self->drag_handle >= 0;
}

static void
drag_update (SbPriorExplorer *self, double dx, double dy)
{
  SbFrame f;
  if (self->drag_handle < 0 || !sb_chart_get_frame (self->prior_chart, &f))
    return;
  double u = sb_frame_x_from_device (&f, self->drag_x0 + dx);
  u = CLAMP (u, self->input.x_lo, self->input.x_hi);
  gtk_spin_button_set_value (self->u_spin[self->drag_handle], u);
  /* The claimed sequence hides the motion from the chart: move its
   * crosshair and read-out along with the pointer. */
  g_free (sb_chart_hover_at (self->prior_chart, self->drag_x0 + dx, self->drag_y0 + dy));
}

static void
gesture_begin_cb (GtkGestureDrag *gesture, double x, double y, SbPriorExplorer *self)
{
  /* Claim the sequence on a handle (the chart's zoom-drag then never sees
   * it); deny it elsewhere so the chart zooms as usual. */
  gtk_gesture_set_state (GTK_GESTURE (gesture),
                         drag_begin (self, x, y) ? GTK_EVENT_SEQUENCE_CLAIMED
                                                 : GTK_EVENT_SEQUENCE_DENIED);
}

static void
gesture_update_cb (GtkGestureDrag *gesture, double dx, double dy, SbPriorExplorer *self)
{
  drag_update (self, dx, dy);
}

static void
gesture_end_cb (GtkGestureDrag *gesture, double dx, double dy, SbPriorExplorer *self)
{
  drag_update (self, dx, dy);
  self->drag_handle = -1;
}

/* ---- Actions ----------------------------------------------------------------------- */

static void
reset_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbPriorExplorer *self = user_data;
  SbPriorInput def;
  sb_prior_input_init (&def);
  sb_chart_reset_zoom (self->prior_chart);
  sb_chart_reset_zoom (self->skew_chart);
  sb_chart_reset_zoom (self->pair_chart);
  write_controls (self, &def);
}

static void
resample_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbPriorExplorer *self = user_data;
  self->input.seed++;
  schedule_update (self);
}

static void
flip_phase_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbPriorExplorer *self = user_data;
  guint32 i = g_variant_get_uint32 (p);
  if (i >= 1 && i <= SB_PRIOR_MAX_S)
    gtk_toggle_button_set_active (self->phase_toggle[i - 1],
                                  !gtk_toggle_button_get_active (self->phase_toggle[i - 1]));
}

static const GActionEntry prior_actions[] = {
  { .name = "reset", .activate = reset_action },
  { .name = "resample", .activate = resample_action },
  { .name = "flip-phase", .activate = flip_phase_action, .parameter_type = "u" },
};

/* ---- GObject ------------------------------------------------------------------------ */

static void
sb_prior_explorer_dispose (GObject *object)
{
  SbPriorExplorer *self = SB_PRIOR_EXPLORER (object);

  g_clear_handle_id (&self->update_idle, g_source_remove);
  if (self->worker)
    {
      g_signal_handlers_disconnect_by_data (self->worker, self);
      sb_worker_cancel_all (self->worker);
      g_clear_object (&self->worker);
    }
  g_clear_pointer (&self->snapshot, sb_plot_snapshot_unref);
  g_clear_pointer (&self->pair, sb_prior_pair_free);
  g_clear_pointer (&self->controls, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_PRIOR_EXPLORER);
  G_OBJECT_CLASS (sb_prior_explorer_parent_class)->dispose (object);
}

static void
sb_prior_explorer_class_init (SbPriorExplorerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_prior_explorer_dispose;
  g_type_ensure (SB_TYPE_CHART);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-prior-explorer.ui");
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, kernel_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, lengthscale_scale);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, variance_scale);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, s_spin);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, pseudo_box);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, pair_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, pair_a_scale);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, pair_b_scale);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, prior_chart);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, skew_chart);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, pair_chart);
  gtk_widget_class_bind_template_child (widget_class, SbPriorExplorer, status_label);
  sb_window_class_add_close_keys (widget_class, NULL);
}

static void
sb_prior_explorer_init (SbPriorExplorer *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->drag_handle = -1;
  self->controls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sb_prior_input_init (&self->input);

  g_hash_table_insert (self->controls, g_strdup ("kernel"), self->kernel_dropdown);
  g_hash_table_insert (self->controls, g_strdup ("lengthscale"), self->lengthscale_scale);
  g_hash_table_insert (self->controls, g_strdup ("variance"), self->variance_scale);
  g_hash_table_insert (self->controls, g_strdup ("s"), self->s_spin);
  g_hash_table_insert (self->controls, g_strdup ("pair"), self->pair_dropdown);
  g_hash_table_insert (self->controls, g_strdup ("pair-a"), self->pair_a_scale);
  g_hash_table_insert (self->controls, g_strdup ("pair-b"), self->pair_b_scale);
  build_pseudo_rows (self);

  GSimpleActionGroup *group = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (group), prior_actions,
                                   G_N_ELEMENTS (prior_actions), self);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "prior", G_ACTION_GROUP (group));
  g_object_unref (group);

  self->worker = sb_worker_new ();
  g_signal_connect (self->worker, "job-finished", G_CALLBACK (on_job_finished), self);
  g_signal_connect (self->worker, "job-failed", G_CALLBACK (on_job_failed), self);

  GtkGesture *drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (drag), GTK_PHASE_CAPTURE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (gesture_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (gesture_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (gesture_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->prior_chart), GTK_EVENT_CONTROLLER (drag));

  g_signal_connect_swapped (self->kernel_dropdown, "notify::selected", G_CALLBACK (controls_changed), self);
  g_signal_connect_swapped (self->lengthscale_scale, "value-changed", G_CALLBACK (controls_changed), self);
  g_signal_connect_swapped (self->variance_scale, "value-changed", G_CALLBACK (controls_changed), self);
  g_signal_connect_swapped (self->s_spin, "value-changed", G_CALLBACK (controls_changed), self);
  g_signal_connect_swapped (self->pair_dropdown, "notify::selected", G_CALLBACK (controls_changed), self);
  g_signal_connect_swapped (self->pair_a_scale, "value-changed", G_CALLBACK (controls_changed), self);
  g_signal_connect_swapped (self->pair_b_scale, "value-changed", G_CALLBACK (controls_changed), self);

  SbPriorInput def;
  sb_prior_input_init (&def);
  write_controls (self, &def);
}

/* ---- Public -------------------------------------------------------------------------- */

GtkWidget *
sb_prior_explorer_new (GtkWindow *parent)
{
  return g_object_new (SB_TYPE_PRIOR_EXPLORER, "transient-for", parent, NULL);
}

void
sb_prior_explorer_get_input (SbPriorExplorer *self, SbPriorInput *input)
{
  g_return_if_fail (SB_IS_PRIOR_EXPLORER (self));
  *input = self->input;
}

guint64
sb_prior_explorer_get_submitted (SbPriorExplorer *self, gboolean pair, SbPriorInput *input)
{
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), 0);
  if (input)
    *input = pair ? self->sent_pair : self->sent_curves;
  return pair ? self->gen_pair : self->gen_curves;
}

SbPlotSnapshot *
sb_prior_explorer_get_snapshot (SbPriorExplorer *self)
{
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), NULL);
  return self->snapshot;
}

const SbPriorPair *
sb_prior_explorer_get_pair (SbPriorExplorer *self)
{
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), NULL);
  return self->pair;
}

SbChart *
sb_prior_explorer_get_chart (SbPriorExplorer *self, guint which)
{
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), NULL);
  switch (which)
    {
    case 0: return self->prior_chart;
    case 1: return self->skew_chart;
    case 2: return self->pair_chart;
    default: return NULL;
    }
}

GtkWidget *
sb_prior_explorer_get_control (SbPriorExplorer *self, const char *name)
{
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), NULL);
  return g_hash_table_lookup (self->controls, name);
}

gboolean
sb_prior_explorer_get_handle_position (SbPriorExplorer *self, guint i, double *x, double *y)
{
  SbFrame f;
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), FALSE);
  if (i >= self->input.s || !sb_chart_get_frame (self->prior_chart, &f))
    return FALSE;
  double m = mean_at (self->snapshot, self->input.pseudo[i]);
  if (!isfinite (m))
    return FALSE;
  *x = sb_frame_x_to_device (&f, self->input.pseudo[i]);
  *y = sb_frame_y_to_device (&f, m);
  return TRUE;
}

gboolean
sb_prior_explorer_drag (SbPriorExplorer *self, double x0, double y0, double dx, double dy)
{
  g_return_val_if_fail (SB_IS_PRIOR_EXPLORER (self), FALSE);
  if (!drag_begin (self, x0, y0))
    return FALSE;
  drag_update (self, dx / 2, dy / 2);
  drag_update (self, dx, dy);
  self->drag_handle = -1;
  return TRUE;
}
