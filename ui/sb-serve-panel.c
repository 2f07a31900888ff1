/* sb-serve-panel.c — the Study view's "Serve online" (sb-serve-panel.h). */
#include "config.h"

#include "sb-serve-panel.h"

#include "sb-qr-code.h"

#include <glib/gi18n.h>

struct _SbServePanel
{
  GtkWidget parent_instance;

  /* owned */
  SbStudy *study;
  SbServer *server;              /* while serving, else NULL              */
  GHashTable *row_states;        /* code -> the state text shown          */
  guint refresh_source;          /* the coalesced ::study-changed         */
  guint tick_source;             /* idle states age every few seconds     */

  /* children (borrowed) */
  GtkWidget *expander;
  GtkEntry *address_entry;
  GtkSpinButton *port_spin;
  GtkCheckButton *commands_check;
  GtkButton *start_button;
  GtkLabel *error_label;
  GtkWidget *running_box;
  GtkLabel *link_label;
  GtkLabel *summary_label;
  SbQrCode *qr;
  GtkGrid *people_grid;
};

G_DEFINE_FINAL_TYPE (SbServePanel, sb_serve_panel, GTK_TYPE_WIDGET)

enum { STUDY_CHANGED, SERVING_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- The participants, live ---------------------------------------------------- */

static char *
state_text (const SbServeParticipant *p)
{
  switch (p->state)
    {
    case SB_SERVE_ANSWERING:
      return g_strdup_printf (_("answering question %u"), p->answers + 1);
    case SB_SERVE_DONE:
      return g_strdup (_("done"));
    case SB_SERVE_IDLE:
      return g_strdup (_("idle"));
    case SB_SERVE_JOINED:
    default:
      return g_strdup (_("joined"));
    }
}

static GtkWidget *
grid_label (const char *text, gboolean header)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (header)
    gtk_widget_add_css_class (label, "heading");
  return label;
}

static void
show_people (SbServePanel *self)
{
  GtkWidget *child;
  GPtrArray *people = self->server ? sb_server_get_participants (self->server) : NULL;
  guint n_answering = 0, n_done = 0, n_idle = 0;
  gint64 now = g_get_monotonic_time ();

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->people_grid))))
    gtk_grid_remove (self->people_grid, child);
  g_hash_table_remove_all (self->row_states);
  if (people == NULL)
    return;
  gtk_grid_attach (self->people_grid, grid_label (_("Participant"), TRUE), 0, 0, 1, 1);
  gtk_grid_attach (self->people_grid, grid_label (_("Now"), TRUE), 1, 0, 1, 1);
  gtk_grid_attach (self->people_grid, grid_label (_("Answers"), TRUE), 2, 0, 1, 1);
  gtk_grid_attach (self->people_grid, grid_label (_("Last request"), TRUE), 3, 0, 1, 1);
  for (guint i = 0; i < people->len; i++)
    {
      SbServeParticipant *p = g_ptr_array_index (people, i);
      char *state = state_text (p);
      g_autofree char *answers = g_strdup_printf ("%u / %u", p->answers, p->budget);
      gint64 ago = (now - p->last_seen) / G_USEC_PER_SEC;
      g_autofree char *seen = ago < 60 ? g_strdup_printf (_("%" G_GINT64_FORMAT " s ago"), ago)
                                       : g_strdup_printf (_("%" G_GINT64_FORMAT " min ago"),
                                                          ago / 60);
      gtk_grid_attach (self->people_grid, grid_label (p->code, FALSE), 0, (int) i + 1, 1, 1);
      gtk_grid_attach (self->people_grid, grid_label (state, FALSE), 1, (int) i + 1, 1, 1);
      gtk_grid_attach (self->people_grid, grid_label (answers, FALSE), 2, (int) i + 1, 1, 1);
      gtk_grid_attach (self->people_grid, grid_label (seen, FALSE), 3, (int) i + 1, 1, 1);
      g_hash_table_replace (self->row_states, g_strdup (p->code), state);
      n_answering += p->state == SB_SERVE_ANSWERING;
      n_done += p->state == SB_SERVE_DONE;
      n_idle += p->state == SB_SERVE_IDLE;
    }
  {
    g_autofree char *summary =
      g_strdup_printf (ngettext ("%u participant online since the start: %u answering, %u done, "
                                 "%u idle; %" G_GUINT64_FORMAT " answers recorded",
                                 "%u participants online since the start: %u answering, %u "
                                 "done, %u idle; %" G_GUINT64_FORMAT " answers recorded",
                                 people->len),
                       people->len, n_answering, n_done, n_idle,
                       sb_server_get_n_answers (self->server));
    gtk_label_set_text (self->summary_label, summary);
  }
}

static gboolean
emit_study_changed (gpointer data)
{
  SbServePanel *self = data;

  self->refresh_source = 0;
  g_signal_emit (self, signals[STUDY_CHANGED], 0);
  return G_SOURCE_REMOVE;
}

static void
on_participant_changed (SbServer *server, const char *code, SbServePanel *self)
{
  show_people (self);
}

/* A participant joined (the roster has them before any answer) or an
 * answer was recorded. */
static void
on_study_changed (SbServer *server, const char *code, SbServePanel *self)
{
  /* answers arrive in bursts: the view reads every file again, so once
   * per interval is enough for the roster and the plot to follow */
  if (self->refresh_source == 0)
    self->refresh_source = g_timeout_add (SB_SERVE_PANEL_REFRESH_MS, emit_study_changed, self);
}

static gboolean
tick (gpointer data)
{
  show_people (data);
  return G_SOURCE_CONTINUE;
}

/* ---- Start and stop ------------------------------------------------------------------- */

static void
show_serving (SbServePanel *self)
{
  gboolean serving = self->server != NULL;
  const char *url = serving ? sb_server_get_url (self->server) : NULL;

  gtk_widget_set_visible (self->running_box, serving);
  gtk_widget_set_sensitive (GTK_WIDGET (self->address_entry), !serving);
  gtk_widget_set_sensitive (GTK_WIDGET (self->port_spin), !serving);
  gtk_widget_set_sensitive (GTK_WIDGET (self->commands_check), !serving);
  gtk_button_set_label (self->start_button, serving ? _("Stop Serving") : _("Start Serving"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->start_button), self->study != NULL);
  if (serving)
    {
      g_autofree char *markup = g_markup_printf_escaped ("<a href=\"%s\">%s</a>", url, url);
      gtk_label_set_markup (self->link_label, markup);
    }
  sb_qr_code_set_text (self->qr, url);
  show_people (self);
}

static void
show_error (SbServePanel *self, const GError *error)
{
  gtk_label_set_text (self->error_label, error ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), error != NULL);
}

void
sb_serve_panel_stop (SbServePanel *self)
{
  g_return_if_fail (SB_IS_SERVE_PANEL (self));
  if (self->server == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->server, self);
  sb_server_stop (self->server);
  g_clear_object (&self->server);
  g_clear_handle_id (&self->tick_source, g_source_remove);
  show_serving (self);
  g_signal_emit (self, signals[SERVING_CHANGED], 0);
}

gboolean
sb_serve_panel_start (SbServePanel *self, const char *address, guint port, GError **error)
{
  g_autoptr (SbServer) server = NULL;
  GError *err = NULL;

  g_return_val_if_fail (SB_IS_SERVE_PANEL (self), FALSE);
  g_return_val_if_fail (self->study != NULL, FALSE);
  if (self->server != NULL)
    return TRUE;
  if (address != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->address_entry), address);
  if (port != G_MAXUINT)
    gtk_spin_button_set_value (self->port_spin, port);
  server = sb_server_new (self->study);
  sb_server_set_allow_commands (server, gtk_check_button_get_active (self->commands_check));
  if (!sb_server_start (server, gtk_editable_get_text (GTK_EDITABLE (self->address_entry)),
                        (guint) gtk_spin_button_get_value_as_int (self->port_spin), &err))
    {
      show_error (self, err);
      g_propagate_error (error, err);
      return FALSE;
    }
  show_error (self, NULL);
  self->server = g_steal_pointer (&server);
  g_signal_connect (self->server, "participant-changed", G_CALLBACK (on_participant_changed),
                    self);
  g_signal_connect (self->server, "participant-joined", G_CALLBACK (on_study_changed), self);
  g_signal_connect (self->server, "answer-recorded", G_CALLBACK (on_study_changed), self);
  self->tick_source = g_timeout_add_seconds (5, tick, self);
  gtk_expander_set_expanded (GTK_EXPANDER (self->expander), TRUE);
  show_serving (self);
  g_signal_emit (self, signals[SERVING_CHANGED], 0);
  return TRUE;
}

static void
on_start_clicked (SbServePanel *self)
{
  if (self->server)
    sb_serve_panel_stop (self);
  else
    sb_serve_panel_start (self, NULL, G_MAXUINT, NULL);
}

static void
on_copy (SbServePanel *self)
{
  if (self->server)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                            sb_server_get_url (self->server));
}

static void
on_copy_token (SbServePanel *self)
{
  if (self->server)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                            sb_server_get_admin_token (self->server));
}

/* ---- Public --------------------------------------------------------------------------- */

void
sb_serve_panel_set_study (SbServePanel *self, SbStudy *study)
{
  g_return_if_fail (SB_IS_SERVE_PANEL (self));
  if (study == self->study)
    return;
  sb_serve_panel_stop (self);
  g_set_object (&self->study, study);
  if (study != NULL)
    {
      SbStimulusKind kind = sb_study_get_experiment (study)->stimulus.kind;
      gtk_widget_set_visible (GTK_WIDGET (self->commands_check),
                              kind == SB_STIMULUS_IMAGE || kind == SB_STIMULUS_SOUND);
      gtk_check_button_set_active (self->commands_check, FALSE);
    }
  show_error (self, NULL);
  show_serving (self);
}

SbServer *
sb_serve_panel_get_server (SbServePanel *self)
{
  g_return_val_if_fail (SB_IS_SERVE_PANEL (self), NULL);
  return self->server;
}

const char *
sb_serve_panel_get_row_state (SbServePanel *self, const char *code)
{
  g_return_val_if_fail (SB_IS_SERVE_PANEL (self), NULL);
  return g_hash_table_lookup (self->row_states, code);
}

guint
sb_serve_panel_get_qr_size (SbServePanel *self)
{
  g_return_val_if_fail (SB_IS_SERVE_PANEL (self), 0);
  return gtk_widget_get_visible (self->running_box) ? sb_qr_code_get_size (self->qr) : 0;
}

/* ---- Building ------------------------------------------------------------------------------ */

static GtkWidget *
build_controls (SbServePanel *self)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *label;

  label = gtk_label_new_with_mnemonic (_("_Address"));
  self->address_entry = GTK_ENTRY (gtk_entry_new ());
  gtk_editable_set_text (GTK_EDITABLE (self->address_entry), "127.0.0.1");
  gtk_editable_set_width_chars (GTK_EDITABLE (self->address_entry), 12);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->address_entry),
                               _("127.0.0.1: this computer only. For participants elsewhere, "
                                 "put a TLS reverse proxy in front (see the README)."));
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->address_entry));
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->address_entry));
  label = gtk_label_new_with_mnemonic (_("_Port"));
  self->port_spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (0, 65535, 1));
  gtk_spin_button_set_value (self->port_spin, 8080);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->port_spin), _("0 picks a free port"));
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->port_spin));
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->port_spin));
  self->start_button = GTK_BUTTON (gtk_button_new_with_label (_("Start Serving")));
  gtk_widget_add_css_class (GTK_WIDGET (self->start_button), "suggested-action");
  g_signal_connect_swapped (self->start_button, "clicked", G_CALLBACK (on_start_clicked), self);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->start_button));
  return row;
}

static GtkWidget *
build_running (SbServePanel *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 16);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *copy, *token, *heading, *scroller;

  heading = grid_label (_("Participant link"), TRUE);
  self->link_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_selectable (self->link_label, TRUE);
  gtk_label_set_wrap (self->link_label, TRUE);
  gtk_label_set_wrap_mode (self->link_label, PANGO_WRAP_CHAR);
  gtk_label_set_xalign (self->link_label, 0);
  copy = gtk_button_new_with_label (_("Copy Link"));
  g_signal_connect_swapped (copy, "clicked", G_CALLBACK (on_copy), self);
  token = gtk_button_new_with_label (_("Copy Admin Token"));
  gtk_widget_set_tooltip_text (token, _("For GET /api/status: keep it to yourself"));
  g_signal_connect_swapped (token, "clicked", G_CALLBACK (on_copy_token), self);
  gtk_box_append (GTK_BOX (buttons), copy);
  gtk_box_append (GTK_BOX (buttons), token);
  self->summary_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->summary_label, TRUE);
  gtk_label_set_xalign (self->summary_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->summary_label), "dim-label");
  self->people_grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->people_grid, 18);
  gtk_grid_set_row_spacing (self->people_grid, 2);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scroller), 180);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->people_grid));
  gtk_box_append (GTK_BOX (text), heading);
  gtk_box_append (GTK_BOX (text), GTK_WIDGET (self->link_label));
  gtk_box_append (GTK_BOX (text), buttons);
  gtk_box_append (GTK_BOX (text), GTK_WIDGET (self->summary_label));
  gtk_box_append (GTK_BOX (text), scroller);
  gtk_widget_set_hexpand (text, TRUE);
  self->qr = SB_QR_CODE (sb_qr_code_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->qr), GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->qr), _("Scan with a phone to open the page"));
  gtk_box_append (GTK_BOX (box), text);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->qr));
  return box;
}

static void
sb_serve_panel_dispose (GObject *object)
{
  SbServePanel *self = SB_SERVE_PANEL (object);
  GtkWidget *child;

  sb_serve_panel_stop (self);
  g_clear_handle_id (&self->refresh_source, g_source_remove);
  g_clear_object (&self->study);
  g_clear_pointer (&self->row_states, g_hash_table_unref);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (sb_serve_panel_parent_class)->dispose (object);
}

static void
sb_serve_panel_class_init (SbServePanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sb_serve_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  signals[STUDY_CHANGED] = g_signal_new ("study-changed", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                           0);
  signals[SERVING_CHANGED] = g_signal_new ("serving-changed", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                           0);
}

static void
sb_serve_panel_init (SbServePanel *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);

  self->row_states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->expander = gtk_expander_new_with_mnemonic (_("_Serve Online"));
  gtk_widget_set_parent (self->expander, GTK_WIDGET (self));
  gtk_widget_set_margin_top (box, 8);
  gtk_box_append (GTK_BOX (box), build_controls (self));
  self->commands_check = GTK_CHECK_BUTTON (
    gtk_check_button_new_with_mnemonic (_("_Run the study's stimulus command for participants "
                                          "(only for a study you trust)")));
  gtk_widget_set_visible (GTK_WIDGET (self->commands_check), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->commands_check));
  self->error_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->error_label, TRUE);
  gtk_label_set_xalign (self->error_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->error_label), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->error_label));
  self->running_box = build_running (self);
  gtk_box_append (GTK_BOX (box), self->running_box);
  gtk_expander_set_child (GTK_EXPANDER (self->expander), box);
  show_serving (self);
}

GtkWidget *
sb_serve_panel_new (void)
{
  return g_object_new (SB_TYPE_SERVE_PANEL, NULL);
}
