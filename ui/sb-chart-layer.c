/* sb-chart-layer.c — a layer widget of SbChart (see sb-chart-layer.h). */
#include "config.h"

#include "sb-chart-layer.h"
#include "sb-chart-private.h"

struct _SbChartLayer
{
  GtkWidget parent_instance;

  SbLayer *layer;      /* owned; NULL for the axes layer */
  guint draw_count;
};

enum {
  PROP_0,
  PROP_LAYER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_BOXED_TYPE (SbLayer, sb_layer, sb_layer_ref, sb_layer_unref)
G_DEFINE_FINAL_TYPE (SbChartLayer, sb_chart_layer, GTK_TYPE_WIDGET)

static void
sb_chart_layer_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  SbChartLayer *self = SB_CHART_LAYER (widget);
  GtkWidget *parent = gtk_widget_get_parent (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);

  if (!SB_IS_CHART (parent) || width <= 0 || height <= 0)
    return;
  SbChart *chart = SB_CHART (parent);
  SbScene *scene = _sb_chart_scene (chart);
  if (scene == NULL)
    return;

  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (self->layer)
    sb_layer_render (self->layer, cr, _sb_chart_frame (chart), _sb_chart_palette (chart));
  else
    sb_scene_render_axes (scene, cr, _sb_chart_frame (chart), _sb_chart_palette (chart), FALSE);
  cairo_destroy (cr);
  self->draw_count++;
}

static void
sb_chart_layer_finalize (GObject *object)
{
  SbChartLayer *self = SB_CHART_LAYER (object);

  g_clear_pointer (&self->layer, sb_layer_unref);
  G_OBJECT_CLASS (sb_chart_layer_parent_class)->finalize (object);
}

static void
sb_chart_layer_get_property (GObject *object, guint prop_id, GValue *value,
                             GParamSpec *pspec)
{
  SbChartLayer *self = SB_CHART_LAYER (object);

  switch (prop_id)
    {
    case PROP_LAYER:
      g_value_set_boxed (value, self->layer);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_chart_layer_set_property (GObject *object, guint prop_id,
                             const GValue *value, GParamSpec *pspec)
{
  SbChartLayer *self = SB_CHART_LAYER (object);

  switch (prop_id)
    {
    case PROP_LAYER:
      sb_chart_layer_set_layer (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_chart_layer_class_init (SbChartLayerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = sb_chart_layer_finalize;
  object_class->get_property = sb_chart_layer_get_property;
  object_class->set_property = sb_chart_layer_set_property;
  widget_class->snapshot = sb_chart_layer_snapshot;

  properties[PROP_LAYER] =
    g_param_spec_boxed ("layer", NULL, NULL, SB_TYPE_LAYER,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "chartlayer");
}

static void
sb_chart_layer_init (SbChartLayer *self)
{
  /* Events belong to the chart; layers only draw. */
  gtk_widget_set_can_target (GTK_WIDGET (self), FALSE);
  gtk_widget_set_can_focus (GTK_WIDGET (self), FALSE);
}

GtkWidget *
sb_chart_layer_new (SbLayer *layer)
{
  SbChartLayer *self = g_object_new (SB_TYPE_CHART_LAYER, NULL);

  if (layer)
    self->layer = sb_layer_ref (layer);
  return GTK_WIDGET (self);
}

SbLayer *
sb_chart_layer_get_layer (SbChartLayer *self)
{
  g_return_val_if_fail (SB_IS_CHART_LAYER (self), NULL);
  return self->layer;
}

gboolean
sb_chart_layer_set_layer (SbChartLayer *self, SbLayer *layer)
{
  g_return_val_if_fail (SB_IS_CHART_LAYER (self), FALSE);

  if (sb_layer_equal (self->layer, layer))
    return FALSE;
  if (layer)
    sb_layer_ref (layer);
  g_clear_pointer (&self->layer, sb_layer_unref);
  self->layer = layer;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAYER]);
  return TRUE;
}

gboolean
sb_chart_layer_is_axes (SbChartLayer *self)
{
  g_return_val_if_fail (SB_IS_CHART_LAYER (self), FALSE);
  return self->layer == NULL;
}

guint
sb_chart_layer_get_draw_count (SbChartLayer *self)
{
  g_return_val_if_fail (SB_IS_CHART_LAYER (self), 0);
  return self->draw_count;
}
