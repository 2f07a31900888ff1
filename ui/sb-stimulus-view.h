/* sb-stimulus-view.h — one option of a question as the person perceives
 * it (the experiment's stimulus, core/sb-stimulus.h):
 *
 *   colour  a patch of fixed size on a neutral grey surround (OKLCH
 *           L = 0.6, no chroma), marked "mapped into sRGB gamut" in the
 *           surround when the colour lay outside what the screen can show;
 *   image   the picture an external renderer wrote (GtkPicture);
 *   sound   a play / replay button for the rendered file (GtkMediaFile);
 *   text    the experiment's text template filled in with the values;
 *   file    the setting's file in the candidate set: a picture or a play /
 *           replay button, by the file's extension.
 *
 * While an image or sound is rendered it shows a spinner; a renderer that
 * fails or hangs (core/sb-stimulus-renderer.h stops it at the timeout)
 * gives a message in place of the stimulus, as does a file that is
 * missing or cannot be read (images are decoded off the main thread).
 * The view says whether the option can be judged yet
 * (sb_stimulus_view_get_blocker): not while it is rendering or loading,
 * not after a failure, and a sound not before it was heard to the end;
 * ::blocker-changed tells when that changes.
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-session.h"
#include "sb-stimulus-renderer.h"

G_BEGIN_DECLS

#define SB_TYPE_STIMULUS_VIEW (sb_stimulus_view_get_type ())
G_DECLARE_FINAL_TYPE (SbStimulusView, sb_stimulus_view, SB, STIMULUS_VIEW, GtkWidget)

GtkWidget *sb_stimulus_view_new (void);
/* Shows setting X of EXP (copied as needed). RENDERER (image and sound
 * stimuli; may be NULL otherwise) renders it; a running render of an
 * earlier setting is dropped. X NULL: nothing shown. */
void sb_stimulus_view_show (SbStimulusView *self, const SbExperiment *exp,
                            SbStimulusRenderer *renderer, const double *x);
/* Why this option cannot be judged yet ("Rendering…", the renderer's
 * error, "Listen to … to the end first"), or NULL when it can. */
const char *sb_stimulus_view_get_blocker (SbStimulusView *self);
/* What the view says when it is shown an image or sound setting without
 * a renderer (the command not allowed to run yet), or NULL. */
void sb_stimulus_view_set_renderer_refusal (SbStimulusView *self, const char *why);
/* Emits "retry", as the Retry button of a failure does. */
void sb_stimulus_view_retry (SbStimulusView *self);
/* Sounds: plays the sound from its start; FALSE when there is none (yet). */
gboolean sb_stimulus_view_play (SbStimulusView *self);
/* Sounds: whether it was played to the end since it was shown. */
gboolean sb_stimulus_view_get_heard (SbStimulusView *self);
/* The name of the shown page: "none", "colour", "image", "sound", "text",
 * "rendering" or "failed" (tests). */
const char *sb_stimulus_view_get_page (SbStimulusView *self);
/* The message of a failed rendering, or NULL. */
const char *sb_stimulus_view_get_error (SbStimulusView *self);
/* The path of the image or sound file shown (rendered, or the
 * candidate's), or NULL. */
const char *sb_stimulus_view_get_file (SbStimulusView *self);

G_END_DECLS
