/* sb-stimulus-renderer.h — image and sound stimuli made by an external
 * command (the experiment's "stimulus", sb-stimulus.h).
 *
 * For a setting X the renderer fills the command template in, argument
 * by argument (never through a shell), and runs it asynchronously with
 * g_spawn in the working folder (the session file's), writing into
 * a cache folder. The result is the file the command wrote. Outputs are
 * cached per setting: the key is the command as filled in with the
 * setting's values as written (with the working folder and the
 * extension), so a setting is rendered once, and a request for a setting
 * that is being rendered waits for that run instead of starting another.
 *
 * The command runs in a process group of its own. It has rendered when
 * it exits with status 0 and its output is a non-empty regular file (of
 * at most SB_RENDERER_OUTPUT_MAX_BYTES); whatever it left running in its
 * group is then killed, and stderr is read for at most a second more, so
 * a background child that holds the pipe neither delays nor fails the
 * stimulus. A command that runs longer than the stimulus's timeout, and
 * every command still running when the renderer is cancelled or
 * finalised (the app's exit), is killed with its whole process group,
 * also after its first process has exited. Of stderr the last
 * SB_RENDERER_STDERR_KEEP bytes are kept (the rest is counted), as text
 * with invalid UTF-8 replaced. Failures are GErrors in SB_STIMULUS_ERROR
 * whose messages say what happened: the command could not be started,
 * exited with status N or was killed by signal N (with the last lines it
 * wrote to stderr), took longer than the timeout, or wrote no output. A
 * failure is not cached: asking again runs the command again.
 *
 * Everything runs on the thread-default main context of the caller; no
 * GTK here.
 */
#pragma once

#include <gio/gio.h>

#include "sb-session.h"

G_BEGIN_DECLS

/* Of a command's stderr, the last 64 KiB are kept. */
#define SB_RENDERER_STDERR_KEEP (64 * 1024)
/* A rendered stimulus is at most 256 MiB. */
#define SB_RENDERER_OUTPUT_MAX_BYTES ((goffset) 256 * 1024 * 1024)

#define SB_STIMULUS_ERROR (sb_stimulus_error_quark ())
GQuark sb_stimulus_error_quark (void);
typedef enum {
  SB_STIMULUS_ERROR_TEMPLATE,   /* the command cannot be filled in        */
  SB_STIMULUS_ERROR_START,      /* the program could not be started       */
  SB_STIMULUS_ERROR_FAILED,     /* non-zero exit status or a signal       */
  SB_STIMULUS_ERROR_TIMEOUT,    /* ran longer than the timeout: killed    */
  SB_STIMULUS_ERROR_NO_OUTPUT,  /* exited with 0 but wrote no file        */
} SbStimulusError;

#define SB_TYPE_STIMULUS_RENDERER (sb_stimulus_renderer_get_type ())
G_DECLARE_FINAL_TYPE (SbStimulusRenderer, sb_stimulus_renderer, SB, STIMULUS_RENDERER, GObject)

/* A renderer for EXP (copied), whose stimulus is an image or a sound.
 * WORK_DIR: where the command runs (NULL: the current folder); CACHE_DIR:
 * where outputs are kept (NULL: $XDG_CACHE_HOME/skewbench/stimuli). */
SbStimulusRenderer *sb_stimulus_renderer_new (const SbExperiment *exp, const char *work_dir,
                                              const char *cache_dir);

/* The folder of FILE's session, or NULL: the working folder a session's
 * renderer uses. */
char *sb_stimulus_work_dir_for (GFile *session_file);

/* Renders X (or finds it in the cache). The callback gets the file. */
void sb_stimulus_renderer_render_async (SbStimulusRenderer *self, const double *x,
                                        GCancellable *cancellable, GAsyncReadyCallback callback,
                                        gpointer user_data);
GFile *sb_stimulus_renderer_render_finish (SbStimulusRenderer *self, GAsyncResult *result,
                                           GError **error);
/* Starts rendering X into the cache if it is neither there nor running:
 * the options of a question are all started together, so a request for
 * each finds its run under way or done. */
void sb_stimulus_renderer_prefetch (SbStimulusRenderer *self, const double *x);
/* Stops every running command (killed) and fails its requests with
 * G_IO_ERROR_CANCELLED. */
void sb_stimulus_renderer_cancel_all (SbStimulusRenderer *self);
/* How many times a command was started (the cache's test). */
guint sb_stimulus_renderer_get_n_started (SbStimulusRenderer *self);
/* How many commands are running now. */
guint sb_stimulus_renderer_get_n_running (SbStimulusRenderer *self);

G_END_DECLS
