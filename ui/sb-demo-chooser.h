/* sb-demo-chooser.h — "Guided Demos…": the demos of the registry
 * (ui/sb-demos.h), each with its title, what it shows and the paper's
 * settings; activating a row opens the demo (sb_window_open_demo) and closes the
 * chooser. A demo that cannot be opened leaves the chooser open with the
 * error shown in it.
 *
 * Signals:
 *   ::demo-opened (const char *id)   a demo was opened
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SB_TYPE_DEMO_CHOOSER (sb_demo_chooser_get_type ())
G_DECLARE_FINAL_TYPE (SbDemoChooser, sb_demo_chooser, SB, DEMO_CHOOSER, GtkWindow)

/* A chooser for APP's demos, transient for PARENT (may be NULL). */
SbDemoChooser *sb_demo_chooser_new (GtkApplication *app, GtkWindow *parent);
/* The list (one row per demo, in registry order; the row's name is the
 * demo id). */
GtkListBox *sb_demo_chooser_get_list (SbDemoChooser *self);
/* Opens demo ID as if its row were activated; FALSE (error shown in the
 * chooser and returned in ERROR) when it could not be opened. */
gboolean sb_demo_chooser_open (SbDemoChooser *self, const char *id, GError **error);

G_END_DECLS
