/* sb-chart.c — the chart container (see sb-chart.h).
 *
 * Structure after Sysprof's SysprofChart: the chart owns layer widgets,
 * gives each its full allocation, and draws only the pointer overlay
 * itself (crosshair, read-out, zoom rubber band), after its children. The
 * data -> device mapping (SbFrame) is computed once per allocation or scene
 * and shared by all layers.
 */
#include "config.h"

#include "sb-chart.h"
#include "sb-chart-layer.h"
#include "sb-chart-private.h"

#include <adwaita.h>

#include <math.h>
#include <string.h>

struct _SbChart
{
  GtkWidget parent_instance;

  SbScene *scene;
  SbView view;
  SbFrame frame;
  gboolean have_frame;
  SbPalette palette;
  GtkWidget *axes;              /* first child: axes, titles, legend */

  /* Pointer state */
  double hover_x, hover_y;
  gboolean hovering;
  gboolean dragging;
  double drag_x0, drag_y0, drag_dx, drag_dy;

  gulong theme_handler, dark_handler;
  guint palette_idle;
};

enum {
  PROP_0,
  PROP_SCENE,
  PROP_ZOOMED,
  N_PROPS
};

enum {
  POINT_CLICKED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_BOXED_TYPE (SbScene, sb_scene, sb_scene_ref, sb_scene_unref)
G_DEFINE_FINAL_TYPE (SbChart, sb_chart, GTK_TYPE_WIDGET)

/* A drag shorter than this (device units) is a click. */
#define CLICK_SLOP 4.0

const SbFrame *_sb_chart_frame (SbChart *self) { return &self->frame; }
const SbPalette *_sb_chart_palette (SbChart *self) { return &self->palette; }
SbScene *_sb_chart_scene (SbChart *self) { return self->scene; }
const SbPalette *sb_chart_get_palette (SbChart *self) { return &self->palette; }

static void
queue_draw_layers (SbChart *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child;
       child = gtk_widget_get_next_sibling (child))
    gtk_widget_queue_draw (child);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Field-wise comparisons (struct copies need not copy padding bytes). */
static gboolean
frame_equal (const SbFrame *a, const SbFrame *b)
{
  return a->width == b->width && a->height == b->height && a->px == b->px && a->py == b->py
         && a->pw == b->pw && a->ph == b->ph && a->x0 == b->x0 && a->x1 == b->x1
         && a->y0 == b->y0 && a->y1 == b->y1 && !a->y_log == !b->y_log
         && a->magnify == b->magnify && a->legend == b->legend && a->lx == b->lx
         && a->ly == b->ly && a->lw == b->lw && a->lh == b->lh
         && a->legend_scale == b->legend_scale;
}

static gboolean
color_equal (const SbColor *a, const SbColor *b)
{
  return a->r == b->r && a->g == b->g && a->b == b->b && a->a == b->a;
}

static gboolean
palette_equal (const SbPalette *a, const SbPalette *b)
{
  if (!a->dark != !b->dark || !color_equal (&a->background, &b->background)
      || !color_equal (&a->foreground, &b->foreground) || !color_equal (&a->grid, &b->grid)
      || !color_equal (&a->legend_bg, &b->legend_bg))
    return FALSE;
  for (int i = 0; i < SB_N_ROLES; i++)
    if (!color_equal (&a->roles[i], &b->roles[i]))
      return FALSE;
  return TRUE;
}

/* Views hold NaN for "automatic": NaN matches NaN here. */
static gboolean
same_value (double a, double b)
{
  return a == b || (isnan (a) && isnan (b));
}

static gboolean
view_equal (const SbView *a, const SbView *b)
{
  return same_value (a->x0, b->x0) && same_value (a->x1, b->x1)
         && same_value (a->y0, b->y0) && same_value (a->y1, b->y1) && a->magnify == b->magnify;
}

/* Lays the scene out for the current size; redraws every layer when the
 * mapping changed (a new range or zoom moves everything). */
static void
update_frame (SbChart *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  SbFrame frame;

  if (self->scene == NULL || width <= 0 || height <= 0)
    return;
  /* Text is measured on a scratch surface: the same font machinery
   * (PangoCairo) that draws it. */
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  sb_scene_layout (self->scene, &self->view, cr, width, height, &frame);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  if (!self->have_frame || !frame_equal (&frame, &self->frame))
    {
      self->frame = frame;
      self->have_frame = TRUE;
      queue_draw_layers (self);
    }
}

static void
update_palette (SbChart *self)
{
  GdkRGBA fg;
  SbPalette palette;

  /* gtk_widget_get_color() is 4.10; this is the 4.8 way. */
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), &fg);
  sb_palette_init_from_foreground (&palette, &(SbColor) { fg.red, fg.green, fg.blue, fg.alpha });
  if (!palette_equal (&palette, &self->palette))
    {
      self->palette = palette;
      queue_draw_layers (self);
    }
}

static gboolean
palette_idle_cb (gpointer data)
{
  SbChart *self = data;
  self->palette_idle = 0;
  update_palette (self);
  return G_SOURCE_REMOVE;
}

static void
theme_changed_cb (SbChart *self)
{
  /* The new style applies after this notification: read it when idle. */
  if (self->palette_idle == 0)
    self->palette_idle = g_idle_add (palette_idle_cb, self);
}

/* ---- GtkWidget ----------------------------------------------------------- */

static void
sb_chart_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                  int *minimum, int *natural, int *minimum_baseline,
                  int *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 160;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 560 : 360;
  *minimum_baseline = *natural_baseline = -1;
}

static void
sb_chart_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SbChart *self = SB_CHART (widget);

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    gtk_widget_size_allocate (child, &(GtkAllocation) { 0, 0, width, height }, -1);
  update_frame (self);
}

static void
sb_chart_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SbChart *self = SB_CHART (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);

  /* The layers: cached render nodes unless they were queued. */
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    gtk_widget_snapshot_child (widget, child, snapshot);

  if (self->scene == NULL || !self->have_frame || (!self->hovering && !self->dragging))
    return;

  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (self->dragging && (fabs (self->drag_dx) > CLICK_SLOP || fabs (self->drag_dy) > CLICK_SLOP))
    {
      const SbFrame *f = &self->frame;
      double x0 = CLAMP (self->drag_x0, f->px, f->px + f->pw);
      double x1 = CLAMP (self->drag_x0 + self->drag_dx, f->px, f->px + f->pw);
      gboolean zoom_y = fabs (self->drag_dy) > 10;
      double y0 = zoom_y ? CLAMP (self->drag_y0, f->py, f->py + f->ph) : f->py;
      double y1 = zoom_y ? CLAMP (self->drag_y0 + self->drag_dy, f->py, f->py + f->ph) : f->py + f->ph;
      const SbColor *c = sb_palette_role (&self->palette, SB_ROLE_EXACT);
      cairo_rectangle (cr, MIN (x0, x1), MIN (y0, y1), fabs (x1 - x0), fabs (y1 - y0));
      cairo_set_source_rgba (cr, c->r, c->g, c->b, 0.15);
      cairo_fill_preserve (cr);
      cairo_set_source_rgba (cr, c->r, c->g, c->b, 0.8);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
  else if (self->hovering)
    sb_scene_render_hover (self->scene, cr, &self->frame, &self->palette,
                           self->hover_x, self->hover_y);
  cairo_destroy (cr);
}

static void
sb_chart_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (sb_chart_parent_class)->map (widget);
  update_palette (SB_CHART (widget));
}

static void
sb_chart_root (GtkWidget *widget)
{
  SbChart *self = SB_CHART (widget);
  GtkSettings *settings = gtk_widget_get_settings (widget);

  GTK_WIDGET_CLASS (sb_chart_parent_class)->root (widget);
  self->theme_handler = g_signal_connect_swapped (settings, "notify::gtk-theme-name",
                                                  G_CALLBACK (theme_changed_cb), self);
  self->dark_handler = g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                                                 G_CALLBACK (theme_changed_cb), self);
  update_palette (self);
}

static void
sb_chart_unroot (GtkWidget *widget)
{
  SbChart *self = SB_CHART (widget);
  GtkSettings *settings = gtk_widget_get_settings (widget);

  g_clear_signal_handler (&self->theme_handler, settings);
  g_clear_signal_handler (&self->dark_handler, adw_style_manager_get_default ());
  g_clear_handle_id (&self->palette_idle, g_source_remove);
  GTK_WIDGET_CLASS (sb_chart_parent_class)->unroot (widget);
}

/* ---- Pointer ---------------------------------------------------------------- */

static void
motion_cb (SbChart *self, double x, double y)
{
  self->hover_x = x;
  self->hover_y = y;
  self->hovering = TRUE;
  /* Only the chart's overlay is redrawn: the layers keep their nodes. */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
leave_cb (SbChart *self)
{
  self->hovering = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_view_internal (SbChart *self, const SbView *view)
{
  gboolean was_zoomed = !sb_view_is_auto (&self->view);

  if (view_equal (view, &self->view))
    return;
  self->view = *view;
  update_frame (self);
  if (was_zoomed != !sb_view_is_auto (&self->view))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOMED]);
}

static void
drag_begin_cb (SbChart *self, double x, double y, GtkGestureDrag *gesture)
{
  self->dragging = TRUE;
  self->drag_x0 = x;
  self->drag_y0 = y;
  self->drag_dx = self->drag_dy = 0;
}

static void
drag_update_cb (SbChart *self, double dx, double dy, GtkGestureDrag *gesture)
{
  self->drag_dx = dx;
  self->drag_dy = dy;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
drag_end_cb (SbChart *self, double dx, double dy, GtkGestureDrag *gesture)
{
  const SbFrame *f = &self->frame;
  self->dragging = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (!self->have_frame || self->scene == NULL)
    return;

  if (fabs (dx) <= CLICK_SLOP && fabs (dy) <= CLICK_SLOP)
    {
      if (sb_frame_contains (f, self->drag_x0, self->drag_y0))
        g_signal_emit (self, signals[POINT_CLICKED], 0,
                       sb_frame_x_from_device (f, self->drag_x0),
                       sb_frame_y_from_device (f, self->drag_y0));
      return;
    }

  /* Zoom to the dragged range: x always, y when the drag was tall too. */
  double x0 = CLAMP (self->drag_x0, f->px, f->px + f->pw);
  double x1 = CLAMP (self->drag_x0 + dx, f->px, f->px + f->pw);
  if (fabs (x1 - x0) < CLICK_SLOP)
    return;
  SbView v = self->view;
  v.x0 = sb_frame_x_from_device (f, MIN (x0, x1));
  v.x1 = sb_frame_x_from_device (f, MAX (x0, x1));
  if (fabs (dy) > 10)
    {
      double y0 = CLAMP (self->drag_y0, f->py, f->py + f->ph);
      double y1 = CLAMP (self->drag_y0 + dy, f->py, f->py + f->ph);
      v.y0 = sb_frame_y_from_device (f, MAX (y0, y1));
      v.y1 = sb_frame_y_from_device (f, MIN (y0, y1));
    }
  set_view_internal (self, &v);
}

static void
pressed_cb (SbChart *self, int n_press, double x, double y, GtkGestureClick *gesture)
{
  if (n_press == 2)
    sb_chart_reset_zoom (self);
}

static gboolean
scroll_cb (SbChart *self, double dx, double dy, GtkEventControllerScroll *scroll)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  const SbFrame *f = &self->frame;

  if (!(state & GDK_CONTROL_MASK) || !self->have_frame || !self->hovering || dy == 0)
    return GDK_EVENT_PROPAGATE;
  /* Zoom about the data point under the pointer; 1.25x per notch. */
  double k = pow (1.25, CLAMP (dy, -4, 4));
  double cx = sb_frame_x_from_device (f, self->hover_x);
  SbView v = self->view;
  v.x0 = cx - (cx - f->x0) * k;
  v.x1 = cx + (f->x1 - cx) * k;
  if (!f->y_log && sb_frame_contains (f, self->hover_x, self->hover_y)
      && !isnan (self->view.y0))
    {
      double cy = sb_frame_y_from_device (f, self->hover_y);
      v.y0 = cy - (cy - f->y0) * k;
      v.y1 = cy + (f->y1 - cy) * k;
    }
  set_view_internal (self, &v);
  return GDK_EVENT_STOP;
}

/* ---- GObject ----------------------------------------------------------------- */

static void
sb_chart_dispose (GObject *object)
{
  SbChart *self = SB_CHART (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  self->axes = NULL;
  g_clear_handle_id (&self->palette_idle, g_source_remove);
  g_clear_pointer (&self->scene, sb_scene_unref);
  G_OBJECT_CLASS (sb_chart_parent_class)->dispose (object);
}

static void
sb_chart_get_property (GObject *object, guint prop_id, GValue *value,
                       GParamSpec *pspec)
{
  SbChart *self = SB_CHART (object);

  switch (prop_id)
    {
    case PROP_SCENE:
      g_value_set_boxed (value, self->scene);
      break;
    case PROP_ZOOMED:
      g_value_set_boolean (value, sb_chart_get_zoomed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_chart_set_property (GObject *object, guint prop_id, const GValue *value,
                       GParamSpec *pspec)
{
  SbChart *self = SB_CHART (object);

  switch (prop_id)
    {
    case PROP_SCENE:
      sb_chart_set_scene (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_chart_class_init (SbChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_chart_dispose;
  object_class->get_property = sb_chart_get_property;
  object_class->set_property = sb_chart_set_property;
  widget_class->measure = sb_chart_measure;
  widget_class->size_allocate = sb_chart_size_allocate;
  widget_class->snapshot = sb_chart_snapshot;
  widget_class->map = sb_chart_map;
  widget_class->root = sb_chart_root;
  widget_class->unroot = sb_chart_unroot;

  properties[PROP_SCENE] =
    g_param_spec_boxed ("scene", NULL, NULL, SB_TYPE_SCENE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOMED] =
    g_param_spec_boolean ("zoomed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* ::point-clicked (x, y): a click in the plot area, in data units. */
  signals[POINT_CLICKED] =
    g_signal_new ("point-clicked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_set_css_name (widget_class, "chart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
sb_chart_init (SbChart *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);

  sb_view_init_auto (&self->view);
  sb_palette_init_light (&self->palette);

  g_signal_connect_swapped (motion, "enter", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (drag, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (drag, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (drag, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  g_signal_connect_swapped (click, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_swapped (scroll, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  self->axes = sb_chart_layer_new (NULL);
  gtk_widget_set_parent (self->axes, GTK_WIDGET (self));
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
}

GtkWidget *
sb_chart_new (void)
{
  return g_object_new (SB_TYPE_CHART, NULL);
}

/* ---- API -------------------------------------------------------------------- */

static GtkWidget *
find_layer_widget (SbChart *self, const char *id)
{
  for (GtkWidget *child = gtk_widget_get_next_sibling (self->axes); child;
       child = gtk_widget_get_next_sibling (child))
    {
      SbLayer *l = sb_chart_layer_get_layer (SB_CHART_LAYER (child));
      if (l && g_strcmp0 (sb_layer_get_id (l), id) == 0)
        return child;
    }
  return NULL;
}

void
sb_chart_set_scene (SbChart *self, SbScene *scene)
{
  g_return_if_fail (SB_IS_CHART (self));

  if (scene == self->scene)
    return;
  if (scene)
    sb_scene_ref (scene);
  g_clear_pointer (&self->scene, sb_scene_unref);
  self->scene = scene;

  /* Match the new layers to the existing widgets by id, in order; a
   * widget whose layer is unchanged keeps its drawing. */
  GtkWidget *prev = self->axes;
  guint n = scene ? sb_scene_get_n_layers (scene) : 0;
  for (guint i = 0; i < n; i++)
    {
      SbLayer *layer = sb_scene_get_layer (scene, i);
      GtkWidget *w = find_layer_widget (self, sb_layer_get_id (layer));
      if (w == NULL)
        {
          w = sb_chart_layer_new (layer);
          gtk_widget_insert_after (w, GTK_WIDGET (self), prev);
        }
      else
        {
          sb_chart_layer_set_layer (SB_CHART_LAYER (w), layer);
          if (gtk_widget_get_prev_sibling (w) != prev)
            gtk_widget_insert_after (w, GTK_WIDGET (self), prev);
        }
      prev = w;
    }
  /* Layers that are gone. */
  GtkWidget *child = gtk_widget_get_next_sibling (prev);
  while (child)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);
      gtk_widget_unparent (child);
      child = next;
    }

  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  scene && sb_scene_get_title (scene) ? sb_scene_get_title (scene) : "Plot",
                                  -1);

  /* Titles and legend may have changed; the mapping too. */
  gtk_widget_queue_draw (self->axes);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  update_frame (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCENE]);
}

SbScene *
sb_chart_get_scene (SbChart *self)
{
  g_return_val_if_fail (SB_IS_CHART (self), NULL);
  return self->scene;
}

void
sb_chart_set_view (SbChart *self, const SbView *view)
{
  SbView v;

  g_return_if_fail (SB_IS_CHART (self) && view != NULL);
  /* a zoom: the magnification stays (sb_chart_set_magnify) */
  v = *view;
  v.magnify = self->view.magnify;
  set_view_internal (self, &v);
}

void
sb_chart_get_view (SbChart *self, SbView *view)
{
  g_return_if_fail (SB_IS_CHART (self) && view != NULL);
  *view = self->view;
}

void
sb_chart_reset_zoom (SbChart *self)
{
  SbView v;
  g_return_if_fail (SB_IS_CHART (self));
  sb_view_init_auto (&v);
  v.magnify = self->view.magnify;
  set_view_internal (self, &v);
}

void
sb_chart_set_magnify (SbChart *self, double magnify)
{
  SbView v;

  g_return_if_fail (SB_IS_CHART (self));
  g_return_if_fail (magnify > 0);
  v = self->view;
  v.magnify = magnify;
  set_view_internal (self, &v);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

double
sb_chart_get_magnify (SbChart *self)
{
  g_return_val_if_fail (SB_IS_CHART (self), 1);
  return self->view.magnify;
}

gboolean
sb_chart_get_zoomed (SbChart *self)
{
  g_return_val_if_fail (SB_IS_CHART (self), FALSE);
  return !sb_view_is_auto (&self->view);
}

gboolean
sb_chart_get_frame (SbChart *self, SbFrame *frame)
{
  g_return_val_if_fail (SB_IS_CHART (self), FALSE);
  if (self->have_frame)
    *frame = self->frame;
  return self->have_frame;
}

char *
sb_chart_hover_at (SbChart *self, double x, double y)
{
  g_return_val_if_fail (SB_IS_CHART (self), NULL);
  if (x < 0)
    {
      leave_cb (self);
      return NULL;
    }
  motion_cb (self, x, y);
  if (self->scene == NULL || !self->have_frame)
    return NULL;
  return sb_scene_hover_text (self->scene, &self->frame, x, y);
}

GtkWidget *
sb_chart_get_layer_widget (SbChart *self, const char *id)
{
  g_return_val_if_fail (SB_IS_CHART (self), NULL);
  return find_layer_widget (self, id);
}

gboolean
sb_chart_export (SbChart *self, const char *path, double width, double height,
                 double scale, GError **error)
{
  SbExportFormat format;

  g_return_val_if_fail (SB_IS_CHART (self), FALSE);
  if (!sb_export_format_from_path (path, &format))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   "Unknown image format for “%s” (use .png, .svg or .pdf)", path);
      return FALSE;
    }
  if (self->scene == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Nothing to export yet");
      return FALSE;
    }
  return sb_scene_export (self->scene, &self->view, &self->palette, path, format,
                          width, height, scale, error);
}
