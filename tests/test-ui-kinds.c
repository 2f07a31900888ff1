/* test-ui-kinds.c — the New Experiment dialog's scale per parameter:
 * each row's drop-down builds the scale it names, a categorical row takes
 * its levels in place of the unit, and a scale the range cannot have is
 * refused, naming the parameter. TAP-skips without a display. */
#include "sb-application.h"
#include "sb-experiment-templates.h"
#include "sb-new-experiment-dialog.h"

#include <gtk/gtk.h>
#include <string.h>

static SbApplication *app;

#include "ui-harness.h"

/* A drop-down whose list holds "categorical" (the rows' scale). */
static gboolean
is_scale_dropdown (GtkWidget *w, gconstpointer data)
{
  GListModel *model;

  if (!GTK_IS_DROP_DOWN (w) || !gtk_widget_get_sensitive (w))
    return FALSE;
  model = gtk_drop_down_get_model (GTK_DROP_DOWN (w));
  for (guint i = 0; GTK_IS_STRING_LIST (model) && i < g_list_model_get_n_items (model); i++)
    if (g_str_equal (gtk_string_list_get_string (GTK_STRING_LIST (model), i), "categorical"))
      return TRUE;
  return FALSE;
}

/* The entry beside the first row's scale drop-down (unit or levels). */
static gboolean
is_unit_entry (GtkWidget *w, gconstpointer data)
{
  const char *p = GTK_IS_ENTRY (w) ? gtk_entry_get_placeholder_text (GTK_ENTRY (w)) : NULL;
  return p && (g_str_equal (p, "unit") || g_str_has_prefix (p, "levels"));
}

static void
test_scales (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkDropDown *scale;
  GtkWidget *row;
  GtkEntry *unit;

  gtk_window_present (GTK_WINDOW (dialog));
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_CUSTOM);
  scale = GTK_DROP_DOWN (ui_find_widget (GTK_WIDGET (dialog), is_scale_dropdown, NULL));
  g_assert_nonnull (scale);
  row = gtk_widget_get_parent (GTK_WIDGET (scale));
  unit = GTK_ENTRY (ui_find_widget (row, is_unit_entry, NULL));
  g_assert_nonnull (unit);

  /* the custom template's first parameter, temperature 20 .. 80 °C */
  for (SbScale s = SB_SCALE_LINEAR; s <= SB_SCALE_PERIODIC; s++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SbExperiment) exp = NULL;
      gtk_drop_down_set_selected (scale, s);
      exp = sb_new_experiment_dialog_build (dialog, &error);
      g_assert_no_error (error);
      g_assert_cmpint (exp->parameters[0].scale, ==, s);
      g_assert_cmpint (exp->parameters[1].scale, ==, SB_SCALE_LINEAR);
    }

  /* categorical: the levels typed where the unit goes */
  gtk_drop_down_set_selected (scale, SB_SCALE_CATEGORICAL);
  g_assert_true (g_str_has_prefix (gtk_entry_get_placeholder_text (unit), "levels"));
  gtk_editable_set_text (GTK_EDITABLE (unit), "serif, sans ,mono");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_no_error (error);
    g_assert_cmpint (exp->parameters[0].scale, ==, SB_SCALE_CATEGORICAL);
    g_assert_cmpstrv (exp->parameters[0].levels,
                      ((const char *const[]) { "serif", "sans", "mono", NULL }));
    g_assert_cmpfloat (exp->parameters[0].upper, ==, 2);
    g_assert_cmpstr (exp->parameters[0].unit, ==, "");
  }
  gtk_editable_set_text (GTK_EDITABLE (unit), "serif, serif");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_null (exp);
    g_assert_nonnull (strstr (error->message, "'serif' is listed twice"));
  }
  gtk_editable_set_text (GTK_EDITABLE (unit), "serif");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SbExperiment) exp = sb_new_experiment_dialog_build (dialog, &error);
    g_assert_null (exp);
    g_assert_nonnull (strstr (error->message, "2 or more levels"));
  }
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* A log scale needs a positive range: refused, naming the parameter. */
static void
test_log_refused (void)
{
  SbNewExperimentDialog *dialog = sb_new_experiment_dialog_new (NULL);
  GtkWidget *first, *list;
  GtkDropDown *scale;
  g_autoptr (GError) error = NULL;
  g_autoptr (SbExperiment) exp = NULL;

  gtk_window_present (GTK_WINDOW (dialog));
  sb_new_experiment_dialog_set_template (dialog, SB_TEMPLATE_CUSTOM);
  gtk_widget_activate_action (GTK_WIDGET (dialog), "dialog.add-parameter", NULL);
  /* the new row ("parameter 3", 0 .. 1) is the parameter list's last */
  first = ui_find_widget (GTK_WIDGET (dialog), is_scale_dropdown, NULL);
  list = gtk_widget_get_ancestor (first, GTK_TYPE_LIST_BOX);
  scale = GTK_DROP_DOWN (ui_find_widget (gtk_widget_get_last_child (list), is_scale_dropdown,
                                         NULL));
  g_assert_nonnull (scale);
  g_assert_true (GTK_WIDGET (scale) != first);
  gtk_drop_down_set_selected (scale, SB_SCALE_LOG);
  exp = sb_new_experiment_dialog_build (dialog, &error);
  g_assert_null (exp);
  g_assert_nonnull (strstr (error->message, "parameter 'parameter 3': a log scale needs 'lower' above 0"));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

int
main (int argc, char *argv[])
{
  static const UiTest tests[] = {
    { "/ui/new-experiment/scales", test_scales },
    { "/ui/new-experiment/log-refused", test_log_refused },
  };

  if (ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    app = ui_harness_application ();
  return g_test_run ();
}
