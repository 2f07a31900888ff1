/* sb-link-dialog.c — the link diagnostic window (see sb-link-dialog.h). */
#include "config.h"

#include "sb-close-keys.h"

#include "sb-link-dialog.h"

#include "sb-chart.h"
#include "sb-worker.h"

#include <glib/gi18n.h>
#include <math.h>

struct _SbLinkDialog
{
  GtkWindow parent_instance;

  /* owned */
  SbSession *session;
  SbWorker *worker;
  SbLinkResult *result;
  char *message;

  /* template children (borrowed) */
  GtkStack *stack;
  GtkProgressBar *progress_bar;
  SbChart *chart;
  GtkLabel *verdict_label;
  GtkLabel *error_label;
  GtkButton *recompute_button;
};

G_DEFINE_FINAL_TYPE (SbLinkDialog, sb_link_dialog, GTK_TYPE_WINDOW)

enum { FINISHED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- The scene --------------------------------------------------------------- */

SbScene *
sb_link_scene_new (const SbLinkResult *res)
{
  SbScene *scene = sb_scene_new (_("Link diagnostic"),
                                 _("d = E[f(first)] \u2212 E[f(second)]  (posterior mean utility difference)"),
                                 _("P(first candidate preferred)"));
  g_autofree char *subtitle = g_strdup_printf (
      _("%u answered duels \u00b7 %s with the probit model (\u03a6 inside the band on %.0f%% of the range)"),
      res->n, res->consistent ? _("consistent") : _("not consistent"), 100.0 * res->coverage);
  g_autofree char *band = g_strdup_printf (_("%.0f%% band (fitted monotone link)"),
                                           100.0 * res->level);
  g_autofree char *probit = g_strdup_printf ("probit \u03a6(d/(\u221a2\u03c3)), \u03c3 = %.3g",
                                             res->probit_sd);
  guint n = res->n_grid;

  sb_scene_set_subtitle (scene, subtitle);
  sb_scene_set_y_range (scene, -0.04, 1.04);

  SbStyle st = sb_style_line (SB_ROLE_EXACT, 0, SB_DASH_SOLID, 0.25);
  sb_scene_take_layer (scene, sb_layer_new_band ("band/link", band, &st, n, res->grid,
                                                 res->p_lower, res->p_upper));
  st = sb_style_line (SB_ROLE_EXACT, 2.0, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("mean/link", _("fitted link (posterior mean)"),
                                                 &st, n, res->grid, res->p_mean));
  st = sb_style_line (SB_ROLE_LAPLACE, 2.0, SB_DASH_DASHED, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("probit", probit, &st, n, res->grid,
                                                 res->p_probit));

  /* Rug marks: the duels at their d, on the top edge when the first
   * candidate won, on the bottom edge when the second did. */
  g_autoptr (GArray) x1 = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) x0 = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < res->n; i++)
    g_array_append_val (res->answer[i] > 0.5 ? x1 : x0, res->d[i]);
  g_autofree double *top = g_new (double, MAX (x1->len, 1));
  g_autofree double *bottom = g_new (double, MAX (x0->len, 1));
  for (guint i = 0; i < x1->len; i++)
    top[i] = 1.02;
  for (guint i = 0; i < x0->len; i++)
    bottom[i] = -0.02;
  sb_style_init (&st, SB_ROLE_OBSERVATION);
  st.marker = SB_MARKER_TRIANGLE_DOWN;
  st.marker_size = 3.5;
  st.alpha = 0.7;
  if (x1->len)
    sb_scene_take_layer (scene, sb_layer_new_markers ("rug/first", _("duel won by the first"),
                                                      &st, x1->len, (double *) x1->data, top));
  st.marker = SB_MARKER_TRIANGLE_UP;
  st.filled = FALSE;
  if (x0->len)
    sb_scene_take_layer (scene, sb_layer_new_markers ("rug/second", _("duel won by the second"),
                                                      &st, x0->len, (double *) x0->data,
                                                      bottom));
  return scene;
}

/* ---- The computation -------------------------------------------------------------- */

static void
set_message (SbLinkDialog *self, const char *text)
{
  g_free (self->message);
  self->message = g_strdup (text);
}

void
sb_link_dialog_recompute (SbLinkDialog *self)
{
  g_return_if_fail (SB_IS_LINK_DIALOG (self));

  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_progress_bar_set_text (self->progress_bar, _("Replaying the answers…"));
  gtk_stack_set_visible_child_name (self->stack, "busy");
  gtk_widget_set_sensitive (GTK_WIDGET (self->recompute_button), FALSE);
  sb_worker_submit (self->worker, SB_WORKER_LANE_FIT, sb_link_job,
                    sb_link_input_new (self->session), (GDestroyNotify) sb_link_input_free,
                    (GDestroyNotify) sb_link_result_free);
}

static void
on_job_finished (SbWorker *worker, guint lane, guint64 generation, gpointer result,
                 SbLinkDialog *self)
{
  const SbLinkResult *res = result;
  g_autoptr (SbScene) scene = sb_link_scene_new (res);

  g_clear_pointer (&self->result, sb_link_result_free);
  self->result = sb_link_result_copy (res);
  sb_chart_set_scene (self->chart, scene);
  set_message (self, res->verdict);
  gtk_label_set_text (self->verdict_label, res->verdict);
  gtk_widget_remove_css_class (GTK_WIDGET (self->verdict_label),
                               res->consistent ? "error" : "success");
  gtk_widget_add_css_class (GTK_WIDGET (self->verdict_label),
                            res->consistent ? "success" : "error");
  gtk_stack_set_visible_child_name (self->stack, "result");
  gtk_widget_set_sensitive (GTK_WIDGET (self->recompute_button), TRUE);
  g_signal_emit (self, signals[FINISHED], 0, TRUE);
}

static guint
count_duels (SbSession *session)
{
  guint n = 0;

  for (guint i = 0; i < sb_session_get_n_observations (session); i++)
    n += sb_session_get_observation (session, i)->kind == SB_LOG_DUEL;
  return n;
}

/* Why there is nothing to diagnose, for a session without duels: the
 * window's menu offers the diagnostic for every session (a popover menu
 * of this GTK shows no tooltips, so a greyed item could not say why). */
static char *
no_duels_text (SbSession *session)
{
  const SbExperiment *exp = sb_session_get_experiment (session);

  return g_strdup_printf ("%s %s",
                          _("The link diagnostic needs answered duels: it checks whether the "
                            "probit link explains the duels of a preference or mixed "
                            "experiment."),
                          exp->mode == SB_MODE_SAFE
                            ? _("This is a safe-optimisation experiment: it asks for values, "
                                "not duels, so there is no answered duel to check.")
                            : _("This session has no answered duel yet: answer a few and "
                                "open the diagnostic again."));
}

static void
on_job_failed (SbWorker *worker, guint lane, guint64 generation, const GError *error,
               SbLinkDialog *self)
{
  g_autofree char *text = count_duels (self->session) == 0
                            ? no_duels_text (self->session)
                            : g_strdup_printf (_("The link could not be fitted: %s."),
                                               error->message);

  g_clear_pointer (&self->result, sb_link_result_free);
  set_message (self, text);
  gtk_label_set_text (self->error_label, text);
  gtk_stack_set_visible_child_name (self->stack, "error");
  gtk_widget_set_sensitive (GTK_WIDGET (self->recompute_button), TRUE);
  g_signal_emit (self, signals[FINISHED], 0, FALSE);
}

static void
on_progress (SbWorker *worker, guint lane, guint64 generation, double fraction,
             const char *text, SbLinkDialog *self)
{
  g_autofree char *label = g_strdup_printf ("%s… %.0f %%", text ? text : _("Working"),
                                            100.0 * fraction);
  gtk_progress_bar_set_fraction (self->progress_bar, fraction);
  gtk_progress_bar_set_text (self->progress_bar, label);
}

static void
recompute_action (GtkWidget *widget, const char *name, GVariant *param)
{
  sb_link_dialog_recompute (SB_LINK_DIALOG (widget));
}

/* ---- Accessors ------------------------------------------------------------------ */

gboolean
sb_link_dialog_is_busy (SbLinkDialog *self)
{
  g_return_val_if_fail (SB_IS_LINK_DIALOG (self), FALSE);
  return sb_worker_is_busy (self->worker, SB_WORKER_LANE_FIT);
}

const SbLinkResult *
sb_link_dialog_get_result (SbLinkDialog *self)
{
  g_return_val_if_fail (SB_IS_LINK_DIALOG (self), NULL);
  return self->result;
}

const char *
sb_link_dialog_get_message (SbLinkDialog *self)
{
  g_return_val_if_fail (SB_IS_LINK_DIALOG (self), "");
  return self->message ? self->message : "";
}

GtkWidget *
sb_link_dialog_get_chart (SbLinkDialog *self)
{
  g_return_val_if_fail (SB_IS_LINK_DIALOG (self), NULL);
  return GTK_WIDGET (self->chart);
}

/* ---- GObject -------------------------------------------------------------------- */

static void
sb_link_dialog_dispose (GObject *object)
{
  SbLinkDialog *self = SB_LINK_DIALOG (object);

  if (self->worker)
    {
      sb_worker_cancel_all (self->worker);
      g_signal_handlers_disconnect_by_data (self->worker, self);
    }
  g_clear_object (&self->worker);
  g_clear_object (&self->session);
  g_clear_pointer (&self->result, sb_link_result_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_LINK_DIALOG);
  G_OBJECT_CLASS (sb_link_dialog_parent_class)->dispose (object);
}

static void
sb_link_dialog_finalize (GObject *object)
{
  g_free (SB_LINK_DIALOG (object)->message);
  G_OBJECT_CLASS (sb_link_dialog_parent_class)->finalize (object);
}

static void
sb_link_dialog_class_init (SbLinkDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_link_dialog_dispose;
  object_class->finalize = sb_link_dialog_finalize;

  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  g_type_ensure (SB_TYPE_CHART);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-link-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, SbLinkDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, SbLinkDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SbLinkDialog, chart);
  gtk_widget_class_bind_template_child (widget_class, SbLinkDialog, verdict_label);
  gtk_widget_class_bind_template_child (widget_class, SbLinkDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, SbLinkDialog, recompute_button);
  gtk_widget_class_install_action (widget_class, "link.recompute", NULL, recompute_action);
  sb_window_class_add_close_keys (widget_class, NULL);
}

static void
sb_link_dialog_init (SbLinkDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->worker = sb_worker_new ();
  g_signal_connect (self->worker, "job-finished", G_CALLBACK (on_job_finished), self);
  g_signal_connect (self->worker, "job-failed", G_CALLBACK (on_job_failed), self);
  g_signal_connect (self->worker, "progress", G_CALLBACK (on_progress), self);
}

SbLinkDialog *
sb_link_dialog_new (GtkWindow *parent, SbSession *session)
{
  g_return_val_if_fail (SB_IS_SESSION (session), NULL);

  SbLinkDialog *self = g_object_new (SB_TYPE_LINK_DIALOG, "transient-for", parent,
                                     "destroy-with-parent", TRUE, NULL);
  self->session = g_object_ref (session);
  sb_link_dialog_recompute (self);
  return self;
}
