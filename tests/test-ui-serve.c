/* test-ui-serve.c — serving a study from the Study view under Xvfb: the
 * panel starts the study server in process on a free port, shows the
 * participant link and a QR code of it (finder patterns where ISO/IEC
 * 18004 puts them), and each participant live as a libsoup client joins
 * (joined), asks (answering question 1) and answers (done); the view's
 * roster has a participant as soon as they joined, and the roster and
 * population model follow the answers; the experimenter's
 * roster edits still work while serving (the server holds the study's
 * lock and the view edits through it); stopping releases the lock.
 * With SB_SCREENSHOT_DIR set, the window is saved as serve-panel.png
 * there. TAP-skips without a display. */
#include "sb-qr-code.h"
#include "remove-tree.h"
#include "sb-serve-panel.h"
#include "sb-study-view.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <libsoup/soup.h>
#include <string.h>

#include "ui-harness.h"

static SbApplication *app;

static gboolean
is_qr_code (GtkWidget *widget, gconstpointer data)
{
  return SB_IS_QR_CODE (widget);
}

static SbStudy *
make_study (const char *dir)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GError) error = NULL;
  SbStudy *study;

  g_free (exp->title);
  exp->title = g_strdup ("Online duels");
  g_assert_true (sb_experiment_add_parameter (exp, "gamma", "", 1.8, 2.6));
  g_assert_true (sb_experiment_add_parameter (exp, "contrast", "%", 0.0, 100.0));
  exp->budget = 2;
  exp->initial = 2;
  exp->seed = 4;
  exp->ties_allowed = TRUE;
  study = sb_study_create_with_model (dir, exp, 0, SB_STUDY_MODEL_INDEPENDENT, &error);
  g_assert_no_error (error);
  return study;
}

/* ---- An asynchronous client on the test's main loop ---------------------------- */

typedef struct {
  gboolean done;
  guint status;
  char *body;
} Reply;

static void
sent (GObject *source, GAsyncResult *result, gpointer data)
{
  Reply *r = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = soup_session_send_and_read_finish (SOUP_SESSION (source), result,
                                                                &error);

  g_assert_no_error (error);
  r->status = soup_message_get_status (soup_session_get_async_result_message (SOUP_SESSION (source),
                                                                              result));
  r->body = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  r->done = TRUE;
}

/* METHOD PATH with TOKEN and BODY, answered while the loop runs (the
 * server is on this loop): the reply's JSON object. */
static JsonObject *
call (SoupSession *client, const char *url, const char *method, const char *path,
      const char *token, const char *body)
{
  g_autofree char *uri = g_strconcat (url, path + 1, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new (method, uri);
  Reply r = { 0 };
  JsonNode *node;
  JsonObject *obj;

  if (token)
    {
      g_autofree char *auth = g_strconcat ("Bearer ", token, NULL);
      soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization", auth);
    }
  if (body)
    {
      g_autoptr (GBytes) bytes = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }
  soup_session_send_and_read_async (client, msg, G_PRIORITY_DEFAULT, NULL, sent, &r);
  SPIN_UNTIL (r.done);
  g_assert_cmpuint (r.status, ==, 200);
  node = json_from_string (r.body, NULL);
  g_assert_nonnull (node);
  obj = json_object_ref (json_node_get_object (node));
  json_node_unref (node);
  g_free (r.body);
  return obj;
}

/* ---- The screenshot ------------------------------------------------------------------- */

static void
save_screenshot (GtkWidget *window, const char *name)
{
  const char *dir = g_getenv ("SB_SCREENSHOT_DIR");
  g_autofree char *path = NULL;
  GdkPaintable *paintable;
  g_autoptr (GtkSnapshot) snapshot = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  GskRenderer *renderer;
  int w, h;

  if (dir == NULL)
    return;
  /* the window draws what it shows now before it is taken */
  gtk_widget_queue_draw (window);
  for (gint64 end = g_get_monotonic_time () + G_USEC_PER_SEC; g_get_monotonic_time () < end;)
    g_main_context_iteration (NULL, FALSE);
  paintable = gtk_widget_paintable_new (window);
  w = gtk_widget_get_width (window);
  h = gtk_widget_get_height (window);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  path = g_build_filename (dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
  g_object_unref (paintable);
}

/* ---- The test --------------------------------------------------------------------------- */

static void
test_serve_panel (void)
{
  g_autofree char *root = g_dir_make_tmp ("sb-ui-serve-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, "study", NULL);
  g_autoptr (SbStudy) study = make_study (dir);
  g_autoptr (SoupSession) client = soup_session_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) joined = NULL;
  g_autofree char *code = NULL, *token = NULL, *added = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = sb_study_view_new ();
  SbServePanel *panel;
  SbServer *server;
  SbParticipantSummary summary;
  SbParticipantStatus status;
  double prob;
  guint n;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  sb_study_view_set_study (SB_STUDY_VIEW (view), study);
  SPIN_UNTIL (!sb_study_view_get_loading (SB_STUDY_VIEW (view)));

  panel = sb_study_view_get_serve_panel (SB_STUDY_VIEW (view));
  g_assert_nonnull (panel);
  g_assert_null (sb_serve_panel_get_server (panel));
  g_assert_true (sb_serve_panel_start (panel, "127.0.0.1", 0, &error));
  g_assert_no_error (error);
  server = sb_serve_panel_get_server (panel);
  g_assert_nonnull (server);
  g_assert_true (g_str_has_prefix (sb_server_get_url (server), "http://127.0.0.1:"));

  /* the QR code: a symbol of 21 + 4k modules with the three finder
   * patterns (dark 7x7 ring, light ring, dark 3x3 core) in its corners */
  n = sb_serve_panel_get_qr_size (panel);
  g_assert_cmpuint (n, >=, 21);
  g_assert_cmpuint ((n - 21) % 4, ==, 0);
  {
    GtkWidget *qr = ui_find_widget (GTK_WIDGET (panel), is_qr_code, NULL);
    guint corners[3][2] = { { 0, 0 }, { n - 7, 0 }, { 0, n - 7 } };
    g_assert_nonnull (qr);
    for (guint c = 0; c < 3; c++)
      {
        guint x = corners[c][0], y = corners[c][1];
        g_assert_true (sb_qr_code_get_module (SB_QR_CODE (qr), x, y));
        g_assert_true (sb_qr_code_get_module (SB_QR_CODE (qr), x + 6, y + 6));
        g_assert_false (sb_qr_code_get_module (SB_QR_CODE (qr), x + 1, y + 1));
        g_assert_true (sb_qr_code_get_module (SB_QR_CODE (qr), x + 3, y + 3));
      }
  }

  /* a participant joins, asks and answers: the panel follows */
  joined = call (client, sb_server_get_url (server), "POST", "/api/join", NULL, "{}");
  code = g_strdup (json_object_get_string_member (joined, "participant"));
  token = g_strdup (json_object_get_string_member (joined, "token"));
  g_assert_cmpstr (sb_serve_panel_get_row_state (panel, code), ==, "joined");
  /* in the view's roster before any answer */
  SPIN_UNTIL (sb_study_view_get_row (SB_STUDY_VIEW (view), code, &status, &summary)
              && summary.answered == 0 && !sb_study_view_get_loading (SB_STUDY_VIEW (view)));
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (JsonObject) q = call (client, sb_server_get_url (server), "GET", "/api/question",
                                       token, NULL);
      g_autofree char *body = NULL;
      g_autoptr (JsonObject) reply = NULL;
      g_autofree char *expected = g_strdup_printf ("answering question %u", i + 1);
      g_assert_cmpstr (sb_serve_panel_get_row_state (panel, code), ==, expected);
      if (i == 0)
        save_screenshot (window, "serve-panel.png");
      body = g_strdup_printf ("{\"question\": %" G_GINT64_FORMAT ", \"answer\": {\"chosen\": %u}}",
                              json_object_get_int_member (q, "question"), i % 2);
      reply = call (client, sb_server_get_url (server), "POST", "/api/answer", token, body);
      g_assert_cmpint (json_object_get_int_member (reply, "answers"), ==, i + 1);
    }
  SPIN_UNTIL (g_strcmp0 (sb_serve_panel_get_row_state (panel, code), "done") == 0);

  /* the roster and the population model follow the answers */
  SPIN_UNTIL (sb_study_view_get_row (SB_STUDY_VIEW (view), code, &status, &summary)
              && summary.answered == 2 && !sb_study_view_get_loading (SB_STUDY_VIEW (view)));
  SPIN_UNTIL (!sb_study_view_get_model_loading (SB_STUDY_VIEW (view))
              && sb_study_view_get_prob_best_differs (SB_STUDY_VIEW (view), code, &prob));

  /* the experimenter edits the roster while serving: through the lock */
  g_assert_true (sb_study_view_add_participant (SB_STUDY_VIEW (view), NULL, "in the lab", &added,
                                                &error));
  g_assert_no_error (error);
  {
    g_autoptr (SbStudy) other = sb_study_open (dir, &error);
    g_assert_null (sb_study_add_participant (other, NULL, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
    g_clear_error (&error);
    sb_serve_panel_stop (panel);
    g_assert_null (sb_serve_panel_get_server (panel));
    g_assert_nonnull (sb_study_add_participant (other, NULL, NULL, &error));
    g_assert_no_error (error);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  remove_tree (root);
}

int
main (int argc, char **argv)
{
  static const UiTest tests[] = {
    { "/ui/serve/panel", test_serve_panel },
  };
  int status;

  if (!ui_harness_init (&argc, &argv, tests, G_N_ELEMENTS (tests)))
    return g_test_run ();
  app = ui_harness_application ();
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
