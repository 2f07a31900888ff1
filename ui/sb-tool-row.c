/* sb-tool-row.c — a row of tools with an overflow menu (see sb-tool-row.h). */
#include "config.h"

#include "sb-tool-row.h"

struct _SbToolRow
{
  GtkWidget parent_instance;

  GtkWidget *menu_button;   /* last child, shown while tools overflow */
  guint n_pinned;
  int spacing;
};

static void sb_tool_row_buildable_init (GtkBuildableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SbToolRow, sb_tool_row, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE,
                                                      sb_tool_row_buildable_init))

static GtkBuildableIface *parent_buildable;

static GQuark menu_quark;

/* The tools: every child but the menu button. */
#define FOR_EACH_TOOL(self, c) \
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self)); c; \
       c = gtk_widget_get_next_sibling (c)) \
    if (c != (self)->menu_button)

static void
sb_tool_row_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                     int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
  SbToolRow *self = SB_TOOL_ROW (widget);
  int menu_min = 0, menu_nat = 0, min = 0, nat = 0, n = 0;
  guint i = 0;

  gtk_widget_measure (self->menu_button, orientation, -1, &menu_min, &menu_nat, NULL, NULL);
  FOR_EACH_TOOL (self, c)
    {
      int cmin = 0, cnat = 0;
      if (!gtk_widget_get_visible (c))
        {
          i++;
          continue;
        }
      gtk_widget_measure (c, orientation, -1, &cmin, &cnat, NULL, NULL);
      if (orientation == GTK_ORIENTATION_VERTICAL)
        {
          min = MAX (min, cmin);
          nat = MAX (nat, cnat);
        }
      else
        {
          /* the pinned tools stay; the others may go to the menu */
          if (i < self->n_pinned)
            min += (n ? self->spacing : 0) + cmin;
          nat += (n ? self->spacing : 0) + cnat;
          n++;
        }
      i++;
    }
  if (orientation == GTK_ORIENTATION_VERTICAL)
    {
      *minimum = MAX (min, menu_min);
      *natural = MAX (nat, menu_nat);
    }
  else
    {
      *minimum = min + self->spacing + menu_min;
      *natural = nat;
    }
  *min_baseline = *nat_baseline = -1;
}

/* Places the tools from the left while they fit; the first one that does
 * not (and every one after it, so the order stays) goes to the menu. */
static void
sb_tool_row_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SbToolRow *self = SB_TOOL_ROW (widget);
  int menu_w = 0, x = 0, n_tools = 0, placed = 0;
  gboolean overflow = FALSE;
  guint i = 0;

  gtk_widget_measure (self->menu_button, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &menu_w, NULL, NULL);
  FOR_EACH_TOOL (self, c)
    n_tools += gtk_widget_get_visible (c);
  FOR_EACH_TOOL (self, c)
    {
      int cmin = 0, cnat = 0, ch_min = 0, ch_nat = 0, room;
      gboolean pinned = i++ < self->n_pinned;

      if (!gtk_widget_get_visible (c))
        continue;
      gtk_widget_measure (c, GTK_ORIENTATION_HORIZONTAL, -1, &cmin, &cnat, NULL, NULL);
      /* the room left, keeping the menu button's while tools remain */
      room = width - x - (placed + 1 < n_tools ? self->spacing + menu_w : 0);
      if (!pinned && (overflow || cnat > room))
        {
          overflow = TRUE;
          gtk_widget_set_child_visible (c, FALSE);
          continue;
        }
      gtk_widget_measure (c, GTK_ORIENTATION_VERTICAL, -1, &ch_min, &ch_nat, NULL, NULL);
      gtk_widget_set_child_visible (c, TRUE);
      cnat = pinned ? CLAMP (room, cmin, cnat) : cnat;
      gtk_widget_size_allocate (c, &(GtkAllocation) { x, (height - MIN (ch_nat, height)) / 2,
                                                      cnat, MIN (ch_nat, height) }, -1);
      x += cnat + self->spacing;
      placed++;
    }
  gtk_widget_set_child_visible (self->menu_button, overflow);
  if (overflow)
    gtk_widget_size_allocate (self->menu_button,
                              &(GtkAllocation) { width - menu_w, 0, menu_w, height }, -1);
}

/* The menu of the tools that are not in the row, made as it opens. */
static void
create_menu (GtkMenuButton *button, gpointer data)
{
  SbToolRow *self = data;
  g_autoptr (GMenu) menu = g_menu_new ();

  FOR_EACH_TOOL (self, c)
    {
      GMenuModel *section = g_object_get_qdata (G_OBJECT (c), menu_quark);
      if (section && gtk_widget_get_visible (c) && !gtk_widget_get_child_visible (c))
        g_menu_append_section (menu, NULL, section);
    }
  gtk_menu_button_set_menu_model (button, G_MENU_MODEL (menu));
}

/* <child> elements of a .ui file are tools (their menus set in code). */
static void
sb_tool_row_add_child (GtkBuildable *buildable, GtkBuilder *builder, GObject *child,
                       const char *type)
{
  if (GTK_IS_WIDGET (child))
    sb_tool_row_append (SB_TOOL_ROW (buildable), GTK_WIDGET (child), NULL);
  else
    parent_buildable->add_child (buildable, builder, child, type);
}

static void
sb_tool_row_buildable_init (GtkBuildableIface *iface)
{
  parent_buildable = g_type_interface_peek_parent (iface);
  iface->add_child = sb_tool_row_add_child;
}

static void
sb_tool_row_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))))
    gtk_widget_unparent (child);
  SB_TOOL_ROW (object)->menu_button = NULL;
  G_OBJECT_CLASS (sb_tool_row_parent_class)->dispose (object);
}

static void
sb_tool_row_class_init (SbToolRowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sb_tool_row_dispose;
  widget_class->measure = sb_tool_row_measure;
  widget_class->size_allocate = sb_tool_row_size_allocate;
  gtk_widget_class_set_css_name (widget_class, "toolrow");
  menu_quark = g_quark_from_static_string ("sb-tool-row-menu");
}

static void
sb_tool_row_init (SbToolRow *self)
{
  self->spacing = 6;
  self->n_pinned = 1;
  self->menu_button = gtk_menu_button_new ();
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (self->menu_button), "view-more-symbolic");
  gtk_widget_set_tooltip_text (self->menu_button, "More tools (those the row has no room for)");
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (self->menu_button), create_menu,
                                         self, NULL);
  gtk_widget_set_parent (self->menu_button, GTK_WIDGET (self));
  gtk_widget_set_child_visible (self->menu_button, FALSE);
}

GtkWidget *
sb_tool_row_new (void)
{
  return g_object_new (SB_TYPE_TOOL_ROW, NULL);
}

void
sb_tool_row_append (SbToolRow *self, GtkWidget *tool, GMenuModel *menu)
{
  g_return_if_fail (SB_IS_TOOL_ROW (self));
  g_return_if_fail (GTK_IS_WIDGET (tool));
  if (menu)
    g_object_set_qdata_full (G_OBJECT (tool), menu_quark, g_object_ref (menu), g_object_unref);
  gtk_widget_insert_before (tool, GTK_WIDGET (self), self->menu_button);
}

void
sb_tool_row_set_menu (SbToolRow *self, GtkWidget *tool, GMenuModel *menu)
{
  g_return_if_fail (SB_IS_TOOL_ROW (self));
  g_return_if_fail (gtk_widget_get_parent (tool) == GTK_WIDGET (self));
  g_object_set_qdata_full (G_OBJECT (tool), menu_quark, menu ? g_object_ref (menu) : NULL,
                           menu ? g_object_unref : NULL);
}

void
sb_tool_row_set_n_pinned (SbToolRow *self, guint n_pinned)
{
  g_return_if_fail (SB_IS_TOOL_ROW (self));
  self->n_pinned = n_pinned;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

gboolean
sb_tool_row_get_tool_shown (SbToolRow *self, GtkWidget *tool)
{
  g_return_val_if_fail (SB_IS_TOOL_ROW (self), FALSE);
  return gtk_widget_get_visible (tool) && gtk_widget_get_child_visible (tool);
}

GtkWidget *
sb_tool_row_get_menu_button (SbToolRow *self)
{
  g_return_val_if_fail (SB_IS_TOOL_ROW (self), NULL);
  return self->menu_button;
}
