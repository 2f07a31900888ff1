/* sb-stimulus-view.c — one option's stimulus: swatch, picture, sound, text. */
#include "config.h"

#include "sb-stimulus-view.h"

#include <glib/gi18n.h>

#include "sb-candidates.h"
#include "sb-colour.h"
#include "sb-experiment-templates.h"
#include "sb-file-read.h"
#include "sb-stimulus.h"

#include <string.h>
#include <unistd.h>

/* The colour patch inside its surround, in the swatch's fixed size. */
/* The largest image a stimulus may be: 16384 pixels a side (the texture
 * size GL drivers allow) and 40 million pixels (160 MB decoded). */
#define SB_IMAGE_MAX_SIDE 16384
#define SB_IMAGE_MAX_PIXELS 40000000
#define PATCH_WIDTH 96
#define PATCH_HEIGHT 64
/* The surround: a neutral grey of OKLCH lightness 0.6. */
#define SURROUND_LIGHTNESS 0.6

struct _SbStimulusView
{
  GtkWidget parent_instance;

  /* Owned */
  SbExperiment *experiment;
  double x[SB_MAX_PARAMETERS];
  gboolean has_x;
  GCancellable *cancellable;    /* the render of the setting shown */
  GtkMediaStream *media;
  char *blocker;
  char *error;
  char *file;                   /* the image or sound file shown */
  char *renderer_refusal;       /* why there is no renderer, when there is none */
  gboolean heard;

  /* Template widgets (borrowed) */
  GtkWidget *root;
  GtkStack *stack;
  GtkDrawingArea *swatch;
  GtkPicture *picture;
  GtkWidget *play_button;
  GtkImage *play_icon;
  GtkLabel *play_label;
  GtkLabel *text_label;
  GtkSpinner *spinner;
  GtkLabel *error_label;
  GtkWidget *retry_button;
  gboolean mapped;               /* the colour shown was mapped into sRGB */
  GtkLabel *caption_label;
};

G_DEFINE_FINAL_TYPE (SbStimulusView, sb_stimulus_view, GTK_TYPE_WIDGET)

enum {
  BLOCKER_CHANGED,
  RETRY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_blocker (SbStimulusView *self, const char *blocker)
{
  if (g_strcmp0 (self->blocker, blocker) == 0)
    return;
  g_free (self->blocker);
  self->blocker = g_strdup (blocker);
  g_signal_emit (self, signals[BLOCKER_CHANGED], 0);
}

static void
set_page (SbStimulusView *self, const char *page)
{
  gboolean rendering = g_str_equal (page, "rendering");

  gtk_stack_set_visible_child_name (self->stack, page);
  gtk_spinner_set_spinning (self->spinner, rendering);
}

/* MESSAGE in place of the stimulus; the option cannot be judged. */
static void
show_failure (SbStimulusView *self, const char *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_text (self->error_label, message);
  set_page (self, "failed");
  set_blocker (self, message);
}

/* ---- Colour ---------------------------------------------------------------- */

static void
draw_swatch (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  SbStimulusView *self = SB_STIMULUS_VIEW (user_data);
  double grey[3], r, g, b;

  if (self->experiment == NULL || !self->has_x)
    return;
  sb_oklch_to_srgb (SURROUND_LIGHTNESS, 0, 0, grey, NULL);
  cairo_set_source_rgb (cr, grey[0], grey[1], grey[2]);
  cairo_paint (cr);
  sb_template_colour_rgb (self->experiment, self->x, &r, &g, &b);
  cairo_rectangle (cr, (width - PATCH_WIDTH) / 2.0, (height - PATCH_HEIGHT) / 2.0, PATCH_WIDTH,
                   PATCH_HEIGHT);
  cairo_set_source_rgb (cr, r, g, b);
  cairo_fill (cr);
  if (self->mapped)
    {
      /* The mark, small in the surround under the patch: the colour asked
       * for lies outside sRGB (the tooltip says more). */
      PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (area),
                                                            _("mapped into sRGB gamut"));
      PangoFontDescription *font = pango_font_description_from_string ("Sans 7");
      int tw, th;
      pango_layout_set_font_description (layout, font);
      pango_layout_get_pixel_size (layout, &tw, &th);
      cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
      cairo_move_to (cr, (width - tw) / 2.0, (height + PATCH_HEIGHT) / 2.0 + 1);
      pango_cairo_show_layout (cr, layout);
      pango_font_description_free (font);
      g_object_unref (layout);
    }
}

/* ---- Sound ----------------------------------------------------------------- */

static void
update_play_button (SbStimulusView *self)
{
  gboolean playing = self->media && gtk_media_stream_get_playing (self->media);

  gtk_image_set_from_icon_name (self->play_icon, playing ? "media-playback-pause-symbolic"
                                                         : "media-playback-start-symbolic");
  gtk_label_set_text (self->play_label, playing ? _("Playing…")
                                      : self->heard ? _("Replay") : _("Play"));
}

static void
update_sound_blocker (SbStimulusView *self)
{
  set_blocker (self, self->heard ? NULL
                                 : _("Listen to every option to the end before answering"));
}

static void
media_changed (GObject *media, GParamSpec *pspec, SbStimulusView *self)
{
  const GError *error = gtk_media_stream_get_error (self->media);

  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The sound cannot be played: %s"),
                                                  error->message);
      show_failure (self, message);
      return;
    }
  if (gtk_media_stream_get_ended (self->media) && !self->heard)
    {
      self->heard = TRUE;
      update_sound_blocker (self);
    }
  update_play_button (self);
}

gboolean
sb_stimulus_view_play (SbStimulusView *self)
{
  g_return_val_if_fail (SB_IS_STIMULUS_VIEW (self), FALSE);
  if (self->media == NULL || gtk_media_stream_get_error (self->media) != NULL)
    return FALSE;
  if (gtk_media_stream_get_ended (self->media) || gtk_media_stream_get_playing (self->media))
    gtk_media_stream_seek (self->media, 0);
  gtk_media_stream_play (self->media);
  return TRUE;
}

static void
play_clicked (GtkButton *button, SbStimulusView *self)
{
  sb_stimulus_view_play (self);
}

static void
drop_media (SbStimulusView *self)
{
  if (self->media == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->media, self);
  gtk_media_stream_pause (self->media);
  g_clear_object (&self->media);
}

/* ---- Files: rendered or from the candidate set -------------------------------- */

/* Decodes the image off the main thread (gdk_texture_new_from_file is
 * thread-safe): a large photo must not stall the window. */
/* FILE may be decoded: a regular file of at most
 * SB_CANDIDATE_FILE_MAX_BYTES whose header (read by gdk-pixbuf's loaders,
 * without decoding) gives at most SB_IMAGE_MAX_SIDE pixels a side and
 * SB_IMAGE_MAX_PIXELS in all. A 400 KB PNG can claim 20000 x 20000
 * pixels, 1.6 GB once decoded. */
static gboolean
image_size_allowed (GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  int fd, width = 0, height = 0;

  if (path == NULL)
    return TRUE;   /* not a local file: the loader's own checks */
  fd = sb_file_open_bounded (path, SB_CANDIDATE_FILE_MAX_BYTES, SB_FILE_READ_DEFAULT,
                             _("the image"), error);
  if (fd < 0)
    return FALSE;
  close (fd);
  if (gdk_pixbuf_get_file_info (path, &width, &height) == NULL)
    return TRUE;   /* no header gdk-pixbuf knows: the decoder says why */
  if (width > SB_IMAGE_MAX_SIDE || height > SB_IMAGE_MAX_SIDE
      || (gint64) width * height > SB_IMAGE_MAX_PIXELS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("it is %d × %d pixels, more than a stimulus may have (%d pixels a side, "
                     "%d million in all)"), width, height, SB_IMAGE_MAX_SIDE,
                   SB_IMAGE_MAX_PIXELS / 1000000);
      return FALSE;
    }
  return TRUE;
}

static void
load_texture_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  GdkTexture *texture = image_size_allowed (G_FILE (task_data), &error)
                        ? gdk_texture_new_from_file (G_FILE (task_data), &error) : NULL;

  if (texture)
    g_task_return_pointer (task, texture, g_object_unref);
  else
    g_task_return_error (task, error);
}

static void
texture_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SbStimulusView *self = SB_STIMULUS_VIEW (source);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_task_get_cancellable (G_TASK (result)) != self->cancellable
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;  /* another setting is shown by now */
  g_clear_object (&self->cancellable);
  if (texture == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The image cannot be shown: %s"),
                                                  error->message);
      show_failure (self, message);
      return;
    }
  gtk_picture_set_paintable (self->picture, GDK_PAINTABLE (texture));
  set_page (self, "image");
  set_blocker (self, NULL);
}

static void
show_sound_file (SbStimulusView *self, GFile *file)
{
  drop_media (self);
  self->media = GTK_MEDIA_STREAM (gtk_media_file_new_for_file (file));
  g_signal_connect (self->media, "notify::ended", G_CALLBACK (media_changed), self);
  g_signal_connect (self->media, "notify::playing", G_CALLBACK (media_changed), self);
  g_signal_connect (self->media, "notify::error", G_CALLBACK (media_changed), self);
  set_page (self, "sound");
  update_play_button (self);
  update_sound_blocker (self);
  media_changed (G_OBJECT (self->media), NULL, self);
}

/* FILE, an image or a sound (KIND), in place of the stimulus. A file
 * that is not there (removed since the experiment was opened) says so. */
static void
show_file (SbStimulusView *self, GFile *file, SbStimulusKind kind)
{
  g_autofree char *name = g_file_get_parse_name (file);

  g_free (self->file);
  self->file = g_file_get_path (file);
  if (!g_file_query_exists (file, NULL))
    {
      g_autofree char *message = g_strdup_printf (_("The stimulus file %s does not exist"), name);
      show_failure (self, message);
    }
  else if (kind == SB_STIMULUS_SOUND)
    show_sound_file (self, file);
  else if (kind == SB_STIMULUS_IMAGE)
    {
      g_autoptr (GTask) task = NULL;
      set_page (self, "rendering");
      set_blocker (self, _("The options are still being loaded"));
      if (self->cancellable == NULL)
        self->cancellable = g_cancellable_new ();
      task = g_task_new (self, self->cancellable, texture_loaded, NULL);
      g_task_set_task_data (task, g_object_ref (file), g_object_unref);
      g_task_run_in_thread (task, load_texture_thread);
    }
  else
    {
      g_autofree char *message = g_strdup_printf (_("%s is neither an image nor a sound"), name);
      show_failure (self, message);
    }
}

/* ---- Rendered stimuli ---------------------------------------------------------- */

static void
render_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SbStimulusView) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = sb_stimulus_renderer_render_finish (SB_STIMULUS_RENDERER (source),
                                                               result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->experiment == NULL)
    return;  /* another setting is shown by now */
  g_clear_object (&self->cancellable);
  if (file == NULL)
    show_failure (self, error->message);
  else
    show_file (self, file, self->experiment->stimulus.kind);
}

/* ---- Public ----------------------------------------------------------------------- */

void
sb_stimulus_view_show (SbStimulusView *self, const SbExperiment *exp,
                       SbStimulusRenderer *renderer, const double *x)
{
  SbStimulusKind kind;

  g_return_if_fail (SB_IS_STIMULUS_VIEW (self));
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  drop_media (self);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->file, g_free);
  self->heard = FALSE;
  g_clear_pointer (&self->experiment, sb_experiment_free);
  self->experiment = exp ? sb_experiment_copy (exp) : NULL;
  self->has_x = x != NULL && exp != NULL;
  if (self->has_x)
    memcpy (self->x, x, exp->n_parameters * sizeof *x);
  kind = self->has_x ? exp->stimulus.kind : SB_STIMULUS_NONE;

  self->mapped = FALSE;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->swatch), NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->caption_label), FALSE);
  if (self->has_x && exp->stimulus.text && kind != SB_STIMULUS_TEXT)
    {
      g_autofree char *caption = sb_stimulus_expand (exp->stimulus.text, exp, x, NULL, FALSE, NULL);
      gtk_label_set_text (self->caption_label, caption ? caption : "");
      gtk_widget_set_visible (GTK_WIDGET (self->caption_label), caption != NULL);
    }
  switch (kind)
    {
    case SB_STIMULUS_COLOUR:
      {
        double r, g, b;
        self->mapped = sb_template_colour_rgb (exp, x, &r, &g, &b);
        gtk_widget_set_tooltip_text (GTK_WIDGET (self->swatch),
                                     self->mapped ? _("This colour lies outside what an sRGB "
                                                      "screen can show; it is shown with its "
                                                      "chroma reduced, at the same lightness "
                                                      "and hue.") : NULL);
        set_page (self, "colour");
        gtk_widget_queue_draw (GTK_WIDGET (self->swatch));
        set_blocker (self, NULL);
        break;
      }
    case SB_STIMULUS_TEXT:
      {
        g_autoptr (GError) error = NULL;
        g_autofree char *text = sb_stimulus_expand (exp->stimulus.text, exp, x, NULL, FALSE, &error);
        gtk_label_set_text (self->text_label, text ? text : error->message);
        set_page (self, "text");
        set_blocker (self, NULL);
        break;
      }
    case SB_STIMULUS_IMAGE:
    case SB_STIMULUS_SOUND:
      gtk_picture_set_paintable (self->picture, NULL);
      set_page (self, "rendering");
      set_blocker (self, _("The options are still being rendered"));
      if (renderer == NULL)
        {
          show_failure (self, self->renderer_refusal ? self->renderer_refusal
                                                     : _("No renderer for this stimulus"));
          break;
        }
      self->cancellable = g_cancellable_new ();
      sb_stimulus_renderer_render_async (renderer, x, self->cancellable, render_done,
                                         g_object_ref (self));
      break;
    case SB_STIMULUS_FILE:
      {
        g_autofree char *path = sb_experiment_candidate_file (exp, x);
        g_autoptr (GFile) file = path ? g_file_new_for_path (path) : NULL;
        gtk_picture_set_paintable (self->picture, NULL);
        if (file == NULL)
          show_failure (self, _("This setting is none of the experiment's candidates"));
        else
          show_file (self, file, sb_stimulus_kind_for_file (path));
        break;
      }
    case SB_STIMULUS_NONE:
    default:
      set_page (self, "none");
      set_blocker (self, NULL);
      break;
    }
}

void
sb_stimulus_view_retry (SbStimulusView *self)
{
  g_return_if_fail (SB_IS_STIMULUS_VIEW (self));
  g_signal_emit (self, signals[RETRY], 0);
}

void
sb_stimulus_view_set_renderer_refusal (SbStimulusView *self, const char *why)
{
  g_return_if_fail (SB_IS_STIMULUS_VIEW (self));
  g_free (self->renderer_refusal);
  self->renderer_refusal = g_strdup (why);
}

const char *
sb_stimulus_view_get_blocker (SbStimulusView *self)
{
  g_return_val_if_fail (SB_IS_STIMULUS_VIEW (self), NULL);
  return self->blocker;
}

gboolean
sb_stimulus_view_get_heard (SbStimulusView *self)
{
  g_return_val_if_fail (SB_IS_STIMULUS_VIEW (self), FALSE);
  return self->heard;
}

const char *
sb_stimulus_view_get_page (SbStimulusView *self)
{
  g_return_val_if_fail (SB_IS_STIMULUS_VIEW (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
sb_stimulus_view_get_error (SbStimulusView *self)
{
  g_return_val_if_fail (SB_IS_STIMULUS_VIEW (self), NULL);
  return self->error;
}

const char *
sb_stimulus_view_get_file (SbStimulusView *self)
{
  g_return_val_if_fail (SB_IS_STIMULUS_VIEW (self), NULL);
  return self->file;
}

/* ---- GObject ------------------------------------------------------------------------ */

static void
sb_stimulus_view_dispose (GObject *object)
{
  SbStimulusView *self = SB_STIMULUS_VIEW (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  drop_media (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_STIMULUS_VIEW);
  G_OBJECT_CLASS (sb_stimulus_view_parent_class)->dispose (object);
}

static void
sb_stimulus_view_finalize (GObject *object)
{
  SbStimulusView *self = SB_STIMULUS_VIEW (object);

  g_clear_pointer (&self->experiment, sb_experiment_free);
  g_free (self->blocker);
  g_free (self->error);
  g_free (self->file);
  g_free (self->renderer_refusal);
  G_OBJECT_CLASS (sb_stimulus_view_parent_class)->finalize (object);
}

static void
sb_stimulus_view_class_init (SbStimulusViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_stimulus_view_dispose;
  object_class->finalize = sb_stimulus_view_finalize;

  /* The option can be judged now, or no longer (get_blocker says why). */
  signals[BLOCKER_CHANGED] = g_signal_new ("blocker-changed", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
  /* The user asks for a failed stimulus again (the Retry button): the
   * owner shows the setting again, with a renderer it may now have. */
  signals[RETRY] = g_signal_new ("retry", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-stimulus-view.ui");
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, root);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, stack);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, swatch);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, picture);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, play_button);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, play_icon);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, play_label);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, text_label);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, spinner);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, error_label);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, retry_button);
  gtk_widget_class_bind_template_child (widget_class, SbStimulusView, caption_label);
  gtk_widget_class_set_css_name (widget_class, "stimulusview");
}

static void
sb_stimulus_view_init (SbStimulusView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (self->swatch, draw_swatch, self, NULL);
  g_signal_connect (self->play_button, "clicked", G_CALLBACK (play_clicked), self);
  g_signal_connect_swapped (self->retry_button, "clicked", G_CALLBACK (sb_stimulus_view_retry),
                            self);
}

GtkWidget *
sb_stimulus_view_new (void)
{
  return g_object_new (SB_TYPE_STIMULUS_VIEW, NULL);
}
