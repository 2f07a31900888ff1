/* sb-file-lock.c — one writer per session file, across processes. */
#include "config.h"

#include "sb-file-lock.h"

#include "sb-test-points.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct _SbFileLock
{
  char *path;       /* the data file      */
  char *lock_path;  /* .NAME.lock next to it */
  int fd;           /* holds the flock    */
};

char *
sb_file_lock_path_for (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf (".%s.lock", base);

  return g_build_filename (dir, name, NULL);
}

/* What the lock file of a held lock says, for the refusal message, read
 * from the descriptor that found it held (one line, at most 255 bytes,
 * shown as valid UTF-8); a generic phrase when it is empty (a holder
 * between open and write). */
static char *
describe_holder (int fd)
{
  char buf[256];
  ssize_t got = pread (fd, buf, sizeof buf - 1, 0);
  char *end;

  if (got <= 0)
    return g_strdup ("another program");
  buf[got] = '\0';
  if ((end = strchr (buf, '\n')) != NULL)
    *end = '\0';
  g_strstrip (buf);
  if (buf[0] == '\0')
    return g_strdup ("another program");
  return g_utf8_make_valid (buf, -1);
}

static gboolean
write_holder (int fd, const char *program, GError **error)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *since = g_date_time_format (now, "%Y-%m-%d %H:%M:%S");
  g_autofree char *text = g_strdup_printf ("%s (process %d on %s, since %s)\n", program,
                                           (int) getpid (), g_get_host_name (), since);
  gsize len = strlen (text);

  if (ftruncate (fd, 0) != 0 || pwrite (fd, text, len, 0) != (ssize_t) len)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not write the lock file: %s", g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* TRUE when FD still is the file at LOCK_PATH: a holder that released the
 * lock unlinks the file first, so a lock taken on the unlinked inode
 * guards nothing and must be taken again on the new file. */
static gboolean
still_linked (int fd, const char *lock_path)
{
  struct stat a, b;

  return fstat (fd, &a) == 0 && g_lstat (lock_path, &b) == 0
         && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The refusal for a lock path that is not a plain file of our own: a
 * symlink (possibly dangling) or anything else put there by whoever made
 * the folder. It is left as it is, so that the user can see what was
 * there. */
static void
set_not_a_lock_file (GError **error, const char *lock_path, const char *what)
{
  g_autofree char *name = g_filename_display_name (lock_path);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
               "The lock file “%s” is %s, not a regular file; SkewBench does not "
               "follow it or write through it. Remove it if you did not make it, "
               "then try again", name, what);
}

/* Opens the lock file without following a link at its name (O_NOFOLLOW:
 * a symlink, even a dangling one, fails with ELOOP instead of creating or
 * truncating its target) and only if it is a regular file (O_NONBLOCK
 * keeps a fifo from blocking the open). -1 with ERROR set otherwise. */
static int
open_lock_file (const char *lock_path, GError **error)
{
  int fd = g_open (lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  struct stat st;

  if (fd < 0)
    {
      int saved = errno;
      if (saved == ELOOP)
        set_not_a_lock_file (error, lock_path, "a symbolic link");
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "Could not create the lock file “%s”: %s", lock_path, g_strerror (saved));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      set_not_a_lock_file (error, lock_path, "a special file");
      return -1;
    }
  return fd;
}

/* One attempt: 1 locked (FD set), 0 busy (HOLDER set), -1 I/O error. */
static int
try_lock (const char *lock_path, int *fd_out, char **holder, GError **error)
{
  int fd = open_lock_file (lock_path, error);

  if (fd < 0)
    return -1;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      int saved = errno;
      if (saved == EWOULDBLOCK)
        *holder = describe_holder (fd);
      close (fd);
      if (saved == EWOULDBLOCK)
        return 0;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not lock “%s”: %s", lock_path, g_strerror (saved));
      return -1;
    }
  *fd_out = fd;
  return 1;
}

SbFileLock *
sb_file_lock_acquire (const char *path, const char *program, GError **error)
{
  g_autofree char *lock_path = sb_file_lock_path_for (path);

  g_return_val_if_fail (path != NULL && program != NULL, NULL);

  /* A few rounds cover a holder that releases between our open and our
   * flock; each round either locks a linked file or sees it busy. */
  for (guint round = 0; round < 8; round++)
    {
      g_autofree char *holder = NULL;
      int fd = -1, got = try_lock (lock_path, &fd, &holder, error);
      SbFileLock *lock;

      if (got < 0)
        return NULL;
      if (got == 0)
        {
          g_autofree char *name = g_filename_display_name (path);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                       "“%s” is being written by %s; close it there first "
                       "(or open it read-only)", name, holder);
          return NULL;
        }
      if (!still_linked (fd, lock_path))
        {
          close (fd);
          continue;
        }
      if (!write_holder (fd, program, error))
        {
          close (fd);
          return NULL;
        }
      lock = g_new0 (SbFileLock, 1);
      lock->path = g_strdup (path);
      lock->lock_path = g_steal_pointer (&lock_path);
      lock->fd = fd;
      sb_test_point ("locked");
      return lock;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
               "The lock file “%s” keeps changing; another writer is starting", lock_path);
  return NULL;
}

SbFileLock *
sb_file_lock_acquire_wait (const char *path, const char *program, guint timeout_ms,
                           GError **error)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;)
    {
      GError *local = NULL;
      SbFileLock *lock = sb_file_lock_acquire (path, program, &local);

      if (lock != NULL)
        return lock;
      if (!g_error_matches (local, G_IO_ERROR, G_IO_ERROR_BUSY)
          || g_get_monotonic_time () >= end)
        {
          g_propagate_error (error, local);
          return NULL;
        }
      g_error_free (local);
      /* 10-40 ms: writers waiting together do not retry in step */
      g_usleep (g_random_int_range (10, 41) * 1000);
    }
}

void
sb_file_lock_release (SbFileLock *lock)
{
  if (lock == NULL)
    return;
  /* Unlink while still holding the lock: a writer waiting for it then
   * finds the file gone (still_linked) instead of locking a dead inode. */
  g_unlink (lock->lock_path);
  close (lock->fd);
  g_free (lock->path);
  g_free (lock->lock_path);
  g_free (lock);
}

const char *
sb_file_lock_get_path (const SbFileLock *lock)
{
  return lock->path;
}
