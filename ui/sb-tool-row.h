/* sb-tool-row.h — a row of tools that never cuts one off: the tools that
 * do not fit the row's width move into a "More tools" menu at its end.
 *
 * Tools keep their order; the first N_PINNED are always in the row (the
 * row's minimum width is theirs plus the menu button's), the others are
 * shown from the left while they fit, and the rest are offered in the
 * menu as the menu model each was added with (items bound to the same
 * actions as the tool, so a toggle reads and changes the same state
 * either way). A hidden tool (gtk_widget_set_visible) is in neither.
 * In a .ui file the <child> elements are the tools, in order. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SB_TYPE_TOOL_ROW (sb_tool_row_get_type ())
G_DECLARE_FINAL_TYPE (SbToolRow, sb_tool_row, SB, TOOL_ROW, GtkWidget)

GtkWidget *sb_tool_row_new (void);
/* Appends TOOL; MENU (may be NULL for a pinned tool) is what the overflow
 * menu shows for it while it does not fit. */
void sb_tool_row_append (SbToolRow *self, GtkWidget *tool, GMenuModel *menu);
/* The menu section offered for TOOL (a child) while it does not fit. */
void sb_tool_row_set_menu (SbToolRow *self, GtkWidget *tool, GMenuModel *menu);
void sb_tool_row_set_n_pinned (SbToolRow *self, guint n_pinned);
/* TRUE when TOOL is in the row (not moved to the menu). */
gboolean sb_tool_row_get_tool_shown (SbToolRow *self, GtkWidget *tool);
/* The overflow menu button (shown only while some tool is in it). */
GtkWidget *sb_tool_row_get_menu_button (SbToolRow *self);

G_END_DECLS
