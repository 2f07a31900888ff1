/* sb-atomic-file.h — a file replaced whole, or not at all.
 *
 * Session and study files are written as one document that replaces the
 * file atomically: a temporary file ".NAME.saving-PID-XXXXXX" next to it,
 * fsync, rename, fsync of the folder. A symbolic link is written through
 * (its target is replaced, the link stays a link); a temporary file left
 * by a writer that was killed is removed by the next write or open once
 * its process no longer runs. Times in these files are ISO 8601 UTC.
 *
 * No GTK here.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* PATH with its symbolic links followed (as far as they lead: a link to
 * a file that does not exist yet gives that file's path; g_free). */
char *sb_atomic_file_resolve_path (const char *path);
/* Replaces the file at PATH (through symbolic links) by DATA atomically,
 * keeping its permissions. ERROR (G_FILE_ERROR) names PATH; nothing is
 * changed then. */
gboolean sb_atomic_file_write (const char *path, const char *data, gsize length,
                               GError **error);
/* Removes the temporary files of PATH (resolved) whose writer is gone. */
void sb_atomic_file_remove_stale_temps (const char *path);

/* TIME_US (microseconds since the epoch) as ISO 8601 UTC, e.g.
 * "2026-01-31T09:15:02.123456Z" ("" if out of range; g_free). */
char *sb_format_time (gint64 time_us);

G_END_DECLS
