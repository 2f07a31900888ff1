/* sb-window-demo.c — the guided demo player (ui/sb-demos.h).
 * The banner says what to look at and offers the demo's views as buttons;
 * a stepping demo replays its prepared log one answer at a time: "next"
 * appends the demo's next answer, "previous" is an undo, so every step is
 * an ordinary session state computed by the ordinary jobs. */
#include "config.h"

#include "sb-window-private.h"

#include "sb-playground.h"

#include <string.h>



static gboolean
log_entry_equal (const SbLogEntry *x, const SbLogEntry *y)
{
  if (x->kind != y->kind || x->dim != y->dim || (x->b == NULL) != (y->b == NULL)
      || memcmp (x->a, y->a, x->dim * sizeof (double)) != 0
      || (x->b && memcmp (x->b, y->b, x->dim * sizeof (double)) != 0))
    return FALSE;
  if (x->kind == SB_LOG_DUEL)
    return x->winner == y->winner;
  if (x->kind == SB_LOG_VALUE)
    return x->value == y->value;
  return TRUE;
}

/* The number of leading log entries that are the demo's own: the step
 * shown. "Next" needs the whole log to be such a prefix. */
static guint
demo_prefix (SbWindow *self)
{
  SbSession *session = sb_window_get_session (self);
  guint n, i;

  if (self->demo_log == NULL || session == NULL)
    return 0;
  n = MIN (sb_session_get_n_observations (session), self->demo_log->len);
  for (i = 0; i < n; i++)
    if (!log_entry_equal (sb_session_get_observation (session, i),
                          g_ptr_array_index (self->demo_log, i)))
      break;
  return i;
}

void
_sb_window_update_demo (SbWindow *self)
{
  SbSession *session = sb_window_get_session (self);
  guint n, prefix;
  gboolean on_track;
  g_autofree char *text = NULL;

  if (self->demo == NULL || session == NULL || self->demo_log == NULL)
    {
      _sb_window_set_action_enabled (self, "demo-previous", FALSE);
      _sb_window_set_action_enabled (self, "demo-next", FALSE);
      return;
    }
  n = sb_session_get_n_observations (session);
  prefix = demo_prefix (self);
  on_track = prefix == n;
  _sb_window_set_action_enabled (self, "demo-previous", self->demo->stepping && n > 1);
  _sb_window_set_action_enabled (self, "demo-next", self->demo->stepping && on_track && n < self->demo_log->len);
  if (!self->demo->stepping)
    return;
  if (on_track && n > 0)
    {
      g_autofree char *what = sb_window_describe_entry (sb_session_get_experiment (session),
                                                        sb_session_get_observation (session, n - 1),
                                                        n - 1);
      text = g_strdup_printf ("Step %u of %u — %s", n, self->demo_log->len, what);
    }
  else if (on_track)
    text = g_strdup_printf ("Step 0 of %u", self->demo_log->len);
  else
    text = g_strdup_printf ("Your own answers after step %u of %u", prefix, self->demo_log->len);
  gtk_label_set_text (self->demo_step_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->demo_step_label), text);
}

void
_sb_window_clear_demo (SbWindow *self)
{
  GtkWidget *child;

  self->demo = NULL;
  self->demo_density = FALSE;
  g_clear_pointer (&self->demo_log, g_ptr_array_unref);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->demo_views_box))))
    gtk_box_remove (self->demo_views_box, child);
  gtk_revealer_set_reveal_child (self->demo_revealer, FALSE);
  _sb_window_update_demo (self);
}

/* The demo's density view: the predictive density at its point, through
 * the ordinary density job as if the point had been clicked. Deferred
 * until a model exists. */
void
_sb_window_demo_request_density (SbWindow *self)
{
  const SbProposal *latest = sb_campaign_get_latest (self->campaign);
  double x[SB_MAX_PARAMETERS] = { 0 };
  g_autoptr (GVariant) point = NULL;

  if (!self->demo_density || self->demo == NULL || latest == NULL
      || latest->model == NULL || latest->dim != 1)
    return;
  x[0] = self->demo->density_x;
  point = g_variant_ref_sink (g_variant_new_fixed_array (G_VARIANT_TYPE_DOUBLE, x, 1,
                                                         sizeof (double)));
  g_signal_emit_by_name (self->plot_view, "point-activated", point);
}

static void
demo_show_view (SbWindow *self, const char *nick)
{
  GEnumClass *klass = g_type_class_ref (SB_TYPE_PLOT_KIND);
  GEnumValue *value = g_enum_get_value_by_nick (klass, nick);

  if (value)
    {
      sb_plot_view_set_kind (self->plot_view, value->value);
      self->demo_density = value->value == SB_PLOT_DENSITY;
      _sb_window_demo_request_density (self);
    }
  g_type_class_unref (klass);
}

static void
demo_add_view_buttons (SbWindow *self, const char *views)
{
  g_auto (GStrv) nicks = g_strsplit (views ? views : "", " ", -1);
  GEnumClass *klass = g_type_class_ref (SB_TYPE_PLOT_KIND);

  for (guint i = 0; nicks[i]; i++)
    {
      GEnumValue *value = g_enum_get_value_by_nick (klass, nicks[i]);
      GtkWidget *button;
      g_autofree char *label = NULL;

      if (value == NULL)
        continue;
      if (value->value == SB_PLOT_DENSITY)
        label = g_strdup_printf ("Density at x = %g", self->demo->density_x);
      else
        label = g_strdup (sb_plot_kind_title (value->value));
      button = gtk_button_new_with_label (label);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.demo-view");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", nicks[i]);
      gtk_box_append (self->demo_views_box, button);
    }
  g_type_class_unref (klass);
}

void
sb_window_show_demo (SbWindow *self, const SbDemo *demo, SbSession *session)
{
  g_auto (GStrv) views = NULL;
  GPtrArray *log;

  g_return_if_fail (SB_IS_WINDOW (self));
  g_return_if_fail (demo != NULL && demo->session != NULL);
  g_return_if_fail (SB_IS_SESSION (session));

  /* A stepping demo starts at its first answer (the paper's iteration 0):
   * the copy is rewound before it is shown, and "next" replays the rest. */
  log = sb_session_dup_observations (session);
  if (demo->stepping)
    while (sb_session_get_n_observations (session) > 1)
      if (!sb_session_undo (session, NULL))
        break;
  sb_window_set_session (self, session);
  /* A demo keeps the paper's hyperparameters (a refit is one Ctrl+R away). */
  sb_campaign_set_auto_refit (self->campaign, FALSE);
  self->demo = demo;
  self->demo_log = log;
  gtk_label_set_text (self->demo_title_label, demo->title);
  gtk_label_set_text (self->demo_text_label, demo->explanation);
  gtk_label_set_text (self->demo_settings_label, demo->settings);
  demo_add_view_buttons (self, demo->views);
  sb_plot_view_set_compare (self->plot_view, SB_POSTERIOR_LAPLACE, demo->compare);
  sb_plot_view_set_compare (self->plot_view, SB_POSTERIOR_EP, demo->compare);
  gtk_widget_set_visible (self->demo_step_box, demo->stepping);
  gtk_revealer_set_reveal_child (self->demo_revealer, TRUE);
  views = g_strsplit (demo->views ? demo->views : "", " ", 2);
  if (views[0] && *views[0])
    demo_show_view (self, views[0]);
  _sb_window_update_demo (self);
}

const SbDemo *
sb_window_get_demo (SbWindow *self)
{
  g_return_val_if_fail (SB_IS_WINDOW (self), NULL);
  return self->demo;
}

guint
sb_window_get_demo_step (SbWindow *self)
{
  SbSession *session;

  g_return_val_if_fail (SB_IS_WINDOW (self), 0);
  session = sb_window_get_session (self);
  return self->demo && session ? sb_session_get_n_observations (session) : 0;
}

/* Appends the demo's entry E, stamped now, through the session's checks. */
static gboolean
demo_append (SbSession *session, const SbLogEntry *e, GError **error)
{
  g_autoptr (SbLogEntry) copy = sb_log_entry_copy (e);

  copy->time = 0;
  return sb_session_add_entry (session, copy, error);
}

/* One step forward (append the demo's next answer) or back (undo). */
static gboolean
demo_step (SbWindow *self, gboolean forward)
{
  SbSession *session = sb_window_get_session (self);
  g_autoptr (GError) error = NULL;
  guint n;

  if (self->demo == NULL || session == NULL || !self->demo->stepping)
    return FALSE;
  n = sb_session_get_n_observations (session);
  if (forward && (demo_prefix (self) != n || n >= self->demo_log->len))
    return FALSE;
  if (!forward && n <= 1)
    return FALSE;
  /* The campaign follows the log: the step's question is computed anew. */
  if (forward && !demo_append (session, g_ptr_array_index (self->demo_log, n), &error))
    {
      g_autofree char *msg = g_strdup_printf ("The step could not be saved: %s", error->message);
      _sb_window_show_error (self, msg, FALSE);
    }
  else if (!forward && !sb_session_undo (session, &error))
    {
      g_autofree char *msg = g_strdup_printf ("Undo could not be saved: %s", error->message);
      _sb_window_show_error (self, msg, FALSE);
    }
  return TRUE;
}

gboolean
sb_window_demo_go_to_step (SbWindow *self, guint step)
{
  SbSession *session;
  guint n;

  g_return_val_if_fail (SB_IS_WINDOW (self), FALSE);
  session = sb_window_get_session (self);
  if (self->demo == NULL || session == NULL || !self->demo->stepping
      || step < 1 || step > self->demo_log->len)
    return FALSE;
  n = sb_session_get_n_observations (session);
  if (step > n && demo_prefix (self) != n)
    return FALSE;
  while (sb_session_get_n_observations (session) != step)
    if (!demo_step (self, step > sb_session_get_n_observations (session)))
      return FALSE;
  return TRUE;
}

void
sb_window_demo_show_view (SbWindow *self, const char *nick)
{
  g_return_if_fail (SB_IS_WINDOW (self));
  g_return_if_fail (nick != NULL);
  demo_show_view (self, nick);
}

static void
demo_next_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  demo_step (SB_WINDOW (user_data), TRUE);
}

static void
demo_previous_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  demo_step (SB_WINDOW (user_data), FALSE);
}

static void
demo_view_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  demo_show_view (SB_WINDOW (user_data), g_variant_get_string (p, NULL));
}

static void
demo_close_action (GSimpleAction *a, GVariant *p, gpointer user_data)
{
  SbWindow *self = SB_WINDOW (user_data);

  gtk_revealer_set_reveal_child (self->demo_revealer, FALSE);
}

void
_sb_window_set_demo_collapsed (SbWindow *self, gboolean collapsed)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "demo-collapse");

  self->demo_collapsed = !!collapsed;
  gtk_widget_set_visible (GTK_WIDGET (self->demo_text_label), !collapsed);
  gtk_widget_set_visible (GTK_WIDGET (self->demo_settings_label), !collapsed);
  gtk_button_set_icon_name (GTK_BUTTON (self->demo_collapse_button),
                            collapsed ? "go-down-symbolic" : "go-up-symbolic");
  gtk_widget_set_tooltip_text (self->demo_collapse_button,
                               collapsed ? "Show the whole explanation"
                                         : "Collapse the explanation to one line");
  if (action)
    g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (collapsed));
}

static void
demo_collapse_change_state (GSimpleAction *a, GVariant *state, gpointer user_data)
{
  _sb_window_set_demo_collapsed (SB_WINDOW (user_data), g_variant_get_boolean (state));
}

static const GActionEntry demo_actions[] = {
  { .name = "demo-previous", .activate = demo_previous_action },
  { .name = "demo-next", .activate = demo_next_action },
  { .name = "demo-view", .activate = demo_view_action, .parameter_type = "s" },
  { .name = "demo-close", .activate = demo_close_action },
  { .name = "demo-collapse", .state = "false", .change_state = demo_collapse_change_state },
};

void
_sb_window_install_demo_actions (SbWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), demo_actions,
                                   G_N_ELEMENTS (demo_actions), self);
}

/* ---- Opening a demo -------------------------------------------------------- */

GtkWindow *
sb_window_open_demo_session (const SbDemo *demo, GtkApplication *app, GError **error)
{
  g_autoptr (SbSession) session = NULL;
  SbWindow *window;

  g_return_val_if_fail (demo != NULL && demo->session != NULL, NULL);
  g_return_val_if_fail (GTK_IS_APPLICATION (app), NULL);
  session = sb_demo_copy_session (demo, NULL, error);
  if (session == NULL)
    return NULL;
  window = sb_window_new (app);
  sb_window_show_demo (window, demo, session);
  gtk_window_present (GTK_WINDOW (window));
  /* The new copy is locked by its window now; the others nobody uses go. */
  g_autofree char *dir = sb_demo_default_dir ();
  sb_demo_remove_unused_copies (demo, dir);
  return GTK_WINDOW (window);
}

/* A new playground with DEMO's preset, in PARENT's application (or the
 * default one). */
static void
open_playground (const SbDemo *demo, GtkWindow *parent)
{
  GApplication *app = parent && gtk_window_get_application (parent)
                        ? G_APPLICATION (gtk_window_get_application (parent))
                        : g_application_get_default ();
  SbPlayground *playground
    = sb_playground_new (GTK_IS_APPLICATION (app) ? GTK_APPLICATION (app) : NULL);

  sb_playground_load_preset (playground, demo->playground);
  gtk_window_present (GTK_WINDOW (playground));
}

gboolean
sb_window_open_demo (const SbDemo *demo, GtkApplication *app, GtkWindow *parent,
                     GError **error)
{
  g_return_val_if_fail (demo != NULL, FALSE);
  if (demo->playground)
    {
      open_playground (demo, parent);
      return TRUE;
    }
  if (app == NULL && parent)
    app = gtk_window_get_application (parent);
  return sb_window_open_demo_session (demo, app, error) != NULL;
}
