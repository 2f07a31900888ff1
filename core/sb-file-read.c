/* sb-file-read.c — reading a file someone else made, within bounds
 * (sb-file-read.h). */
#include "config.h"

#include "sb-file-read.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *
kind_of (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISFIFO (mode))
    return "a fifo (named pipe)";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

int
sb_file_open_bounded (const char *path, goffset max_bytes, SbFileReadFlags flags,
                      const char *what, GError **error)
{
  g_autofree char *name = g_filename_display_name (path);
  int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  struct stat st;
  int fd;

  if (flags & SB_FILE_READ_NOFOLLOW)
    oflags |= O_NOFOLLOW;
  /* O_NONBLOCK: opening a fifo returns at once instead of waiting for a
   * writer; the type check below then refuses it. */
  fd = g_open (path, oflags, 0);
  if (fd < 0)
    {
      int saved = errno;
      if (saved == ELOOP && (flags & SB_FILE_READ_NOFOLLOW))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS,
                     "%s “%s” is a symbolic link; it is not followed", what, name);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "cannot read %s “%s”: %s", what, name, g_strerror (saved));
      return -1;
    }
  if (fstat (fd, &st) != 0)
    {
      int saved = errno;
      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot read %s “%s”: %s", what, name, g_strerror (saved));
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s “%s” is %s, not a regular file", what, name, kind_of (st.st_mode));
      return -1;
    }
  if (st.st_size > max_bytes)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   "%s “%s” has %" G_GOFFSET_FORMAT " bytes, more than the limit of %"
                   G_GOFFSET_FORMAT " MiB", what, name, (goffset) st.st_size, max_bytes >> 20);
      return -1;
    }
  if (fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0)
    {
      int saved = errno;
      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot read %s “%s”: %s", what, name, g_strerror (saved));
      return -1;
    }
  return fd;
}

gboolean
sb_file_read_bounded (const char *path, goffset max_bytes, SbFileReadFlags flags,
                      const char *what, char **contents, gsize *length, GError **error)
{
  int fd = sb_file_open_bounded (path, max_bytes, flags, what, error);
  g_autoptr (GByteArray) buf = NULL;
  guint8 chunk[65536];

  if (fd < 0)
    return FALSE;
  buf = g_byte_array_new ();
  for (;;)
    {
      ssize_t got = read (fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;
          g_autofree char *name = g_filename_display_name (path);
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "cannot read %s “%s”: %s", what, name, g_strerror (saved));
          return FALSE;
        }
      if (got == 0)
        break;
      g_byte_array_append (buf, chunk, (guint) got);
      if ((goffset) buf->len > max_bytes)
        {
          g_autofree char *name = g_filename_display_name (path);
          close (fd);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                       "%s “%s” grew past the limit of %" G_GOFFSET_FORMAT " MiB while it "
                       "was read", what, name, max_bytes >> 20);
          return FALSE;
        }
    }
  close (fd);
  if (length != NULL)
    *length = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}

/* TRUE when PATH (canonical) is DIR (canonical) or inside it. */
static gboolean
is_within (const char *path, const char *dir)
{
  gsize n = strlen (dir);

  if (strncmp (path, dir, n) != 0)
    return FALSE;
  return path[n] == '\0' || path[n] == G_DIR_SEPARATOR || (n > 0 && dir[n - 1] == G_DIR_SEPARATOR);
}

char *
sb_file_resolve_inside (const char *dir, const char *name, GError **error)
{
  g_autofree char *shown = g_filename_display_name (name);
  g_auto (GStrv) parts = NULL;
  g_autofree char *path = NULL;
  g_autofree char *real_dir = NULL;
  g_autofree char *real_path = NULL;

  if (*name == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME, "the file name is empty");
      return NULL;
    }
  if (g_path_is_absolute (name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   "the file name “%s” is absolute; names are relative to the folder", shown);
      return NULL;
    }
  parts = g_strsplit (name, G_DIR_SEPARATOR_S, -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".."))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                     "the file name “%s” leads out of its folder (“..”)", shown);
        return NULL;
      }
  path = g_build_filename (dir, name, NULL);
  /* Symlinks inside the folder may point elsewhere: judge the real path
   * when the file exists. */
  real_dir = realpath (dir, NULL);
  real_path = realpath (path, NULL);
  if (real_dir != NULL && real_path != NULL && !is_within (real_path, real_dir))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   "the file “%s” is a link to “%s”, outside its folder", shown, real_path);
      return NULL;
    }
  return g_steal_pointer (&path);
}
