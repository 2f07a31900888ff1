/* sb-atomic-file.c — files replaced whole (sb-atomic-file.h). */
#include "config.h"

#include "sb-atomic-file.h"
#include "sb-test-points.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *
sb_format_time (gint64 time_us)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (time_us / G_USEC_PER_SEC);
  g_autoptr (GDateTime) exact = dt ? g_date_time_add (dt, time_us % G_USEC_PER_SEC) : NULL;
  return exact ? g_date_time_format_iso8601 (exact) : g_strdup ("");
}

/* ---- Onto disk -------------------------------------------------------------
 * The document replaces the file atomically: it is written to a temporary
 * file in the file's directory, flushed (fsync), renamed over the file, and
 * the directory is flushed, so a crash at any moment leaves the previous or
 * the new complete document, never a torn one. A symbolic link is written
 * through: the temporary file goes next to the link's target and replaces
 * the target, and the link stays a link. The temporary file is called
 * ".NAME.saving-PID-XXXXXX" after the file and the writing process, so that
 * one left behind by a writer killed mid-save is recognised: the next open
 * or save removes it once its process no longer runs (a save in progress,
 * ours or another program's, is left alone). */

#define TEMP_INFIX ".saving-"
#define MAX_LINKS 40

char *
sb_atomic_file_resolve_path (const char *path)
{
  char *current = g_strdup (path);

  for (guint hops = 0; hops < MAX_LINKS; hops++)
    {
      g_autofree char *target = g_file_read_link (current, NULL);
      g_autofree char *dir = NULL;

      if (target == NULL)
        break;  /* not a link (or unreadable: then the write names the error) */
      if (g_path_is_absolute (target))
        {
          g_free (current);
          current = g_steal_pointer (&target);
          continue;
        }
      dir = g_path_get_dirname (current);
      g_free (current);
      current = g_build_filename (dir, target, NULL);
    }
  return current;
}

/* The process that wrote the temporary file NAME for the session file
 * BASE, or 0 when NAME is not one (".BASE.saving-PID-XXXXXX"). */
static pid_t
temp_file_owner (const char *name, const char *base)
{
  gsize n = strlen (base);
  const char *p;
  char *end;
  guint64 pid;

  if (name[0] != '.' || strncmp (name + 1, base, n) != 0
      || !g_str_has_prefix (name + 1 + n, TEMP_INFIX))
    return 0;
  p = name + 1 + n + strlen (TEMP_INFIX);
  if (!g_ascii_isdigit (*p))
    return 0;
  pid = g_ascii_strtoull (p, &end, 10);
  if (*end != '-' || strlen (end + 1) != 6 || pid == 0 || pid > G_MAXINT)
    return 0;
  return (pid_t) pid;
}

static gboolean
process_is_gone (pid_t pid)
{
  return pid != getpid () && kill (pid, 0) == -1 && errno == ESRCH;
}

void
sb_atomic_file_remove_stale_temps (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      pid_t owner = temp_file_owner (name, base);
      if (owner != 0 && process_is_gone (owner))
        {
          g_autofree char *stale = g_build_filename (dir, name, NULL);
          if (g_unlink (stale) == 0)
            g_debug ("removed %s, left by a save that did not finish", stale);
        }
    }
}

static gboolean
io_failed (GError **error, int saved_errno, const char *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "could not save %s: %s", path, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* Best effort: a rename is durable once its directory is flushed. */
static void
sync_directory (const char *dir)
{
  int fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

  if (fd >= 0)
    {
      (void) fsync (fd);
      close (fd);
    }
}

gboolean
sb_atomic_file_write (const char *path, const char *data, gsize length, GError **error)
{
  g_autofree char *target = sb_atomic_file_resolve_path (path);
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  g_autofree char *temp = NULL;
  GStatBuf st;
  int fd, saved;

  if (g_file_test (target, G_FILE_TEST_IS_SYMLINK))
    return io_failed (error, ELOOP, path);
  if (g_file_test (target, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                   "%s is a directory, not a session file", path);
      return FALSE;
    }
  sb_atomic_file_remove_stale_temps (target);
  temp = g_strdup_printf ("%s%s.%s" TEMP_INFIX "%d-XXXXXX", dir, G_DIR_SEPARATOR_S, base,
                          (int) getpid ());
  fd = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_failed (error, errno, path);
  /* The file keeps its permissions (a new one gets 0644 less the umask). */
  if (g_stat (target, &st) == 0)
    (void) fchmod (fd, st.st_mode & 07777);
  if (!write_all (fd, data, length) || fsync (fd) != 0)
    {
      saved = errno;
      close (fd);
      g_unlink (temp);
      return io_failed (error, saved, path);
    }
  sb_test_point ("written");
  if (close (fd) != 0 || g_rename (temp, target) != 0)
    {
      saved = errno;
      g_unlink (temp);
      return io_failed (error, saved, path);
    }
  sb_test_point ("renamed");
  sync_directory (dir);
  return TRUE;
}
