/* sb-file-lock.h — one writer per session file, across processes.
 *
 * A session (or study) file is written by one process at a time: the app
 * and `skewgp tell` on the same file, or two CLI writers, would otherwise
 * each save their own copy of the log and the last save would silently
 * drop the other's answers. The writer holds an exclusive advisory lock
 * (flock) on a lock file next to the data file, `.NAME.lock` in the same
 * directory, and writes into it who it is (program, process id, host,
 * since when), so that a refused writer can say who holds the file.
 *
 * Stale locks: the kernel releases a flock when its holder exits, however
 * it exits (SIGKILL, crash, power loss of a local disk), so a lock file
 * left behind by a dead writer does not block anyone: the next writer
 * takes the lock and overwrites the old holder's description. Readers
 * never need the lock: saves replace the data file atomically.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _SbFileLock SbFileLock;

/* Takes the write lock of PATH (the data file; it need not exist yet) for
 * PROGRAM (e.g. "skewbench", "skewgp tell"). NULL with G_IO_ERROR_BUSY
 * when another writer holds it; the message names the file and the
 * holder ("… is being written by skewbench (process 4242 on host, since
 * 14:03:11)"). Other I/O errors (unwritable directory) keep their codes. */
SbFileLock *sb_file_lock_acquire (const char *path, const char *program, GError **error);

/* As sb_file_lock_acquire(), but a lock held by another writer is waited
 * for, up to TIMEOUT_MS (retried every 10-40 ms): for short writes that
 * queue instead of failing, such as two experimenters adding participants
 * to one study at once. G_IO_ERROR_BUSY, naming the holder, once the time
 * is up. */
SbFileLock *sb_file_lock_acquire_wait (const char *path, const char *program, guint timeout_ms,
                                       GError **error);

/* Releases the lock and removes the lock file. NULL is allowed. */
void sb_file_lock_release (SbFileLock *lock);

/* The data file's path as given to sb_file_lock_acquire. */
const char *sb_file_lock_get_path (const SbFileLock *lock);

/* The lock file's path for PATH (.NAME.lock next to it). */
char *sb_file_lock_path_for (const char *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbFileLock, sb_file_lock_release)

G_END_DECLS
