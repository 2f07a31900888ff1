/* sb-command-trust.h — the user's consent to run a file's renderer command.
 *
 * An experiment or session file can name a command that renders its
 * stimuli (sb-stimulus-renderer.h). A file received from someone else
 * must not run it without the user's consent: the app shows the exact
 * command and asks the first time a file's command is to run, and again
 * whenever the command changes. The answer "run it" is remembered per
 * file and command in $XDG_CONFIG_HOME/skewbench/trusted-commands, one
 * line per consent: the SHA-256 of the command, a tab, the file's
 * absolute path. A study is trusted as a whole: the sessions in its
 * participants/ folder go by the study's index (sb_command_trust_file_for).
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The file whose consent covers the session at SESSION_PATH: the study's
 * index (STUDY/study.json) for a participant's session in
 * STUDY/participants/, else SESSION_PATH itself, absolute. */
char *sb_command_trust_file_for (const char *session_path);

/* TRUE when the user allowed COMMAND for FILE (as given by
 * sb_command_trust_file_for) before. */
gboolean sb_command_trust_is_allowed (const char *file, const char *command);

/* Remembers that the user allowed COMMAND for FILE. */
gboolean sb_command_trust_allow (const char *file, const char *command, GError **error);

/* For a program without a window (skewgp, the study server): may the
 * session at SESSION_PATH run COMMAND? TRUE when ALLOW_COMMANDS (the
 * user started that program with --allow-commands) or when the user
 * allowed COMMAND for the session's file (or its study) in the app
 * before; otherwise FALSE and a G_IO_ERROR_PERMISSION_DENIED error that
 * names the command and both ways to allow it. */
gboolean sb_command_trust_check (const char *session_path, const char *command,
                                 gboolean allow_commands, GError **error);

G_END_DECLS
