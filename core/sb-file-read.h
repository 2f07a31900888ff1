/* sb-file-read.h — reading a file someone else made, within bounds.
 *
 * Files arrive with studies and experiments from colleagues: a name in
 * them may point at a fifo (an open that never returns), /dev/zero (a
 * read that never ends), a huge file, or, through a symlink or "..", at
 * anything the user can read. These helpers check first and read second:
 *
 * - sb_file_read_bounded() opens without blocking, refuses anything but a
 *   regular file (fifo, device, directory, socket; a symlink too when
 *   asked), refuses a file larger than the cap from its size before
 *   reading a byte, and reads at most cap + 1 bytes, so a file that grows
 *   while read is refused too.
 * - sb_file_resolve_inside() turns a name given in a file (a stimulus
 *   file of a candidate set, say) into a path inside a folder: relative,
 *   without "..", and, symlinks resolved, still inside the folder.
 *
 * Errors are G_FILE_ERROR / G_IO_ERROR codes with messages that name the
 * file and what is wrong with it.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  SB_FILE_READ_DEFAULT = 0,
  /* A symlink at PATH itself is refused (ELOOP), not followed. */
  SB_FILE_READ_NOFOLLOW = 1 << 0,
} SbFileReadFlags;

/* Opens PATH for reading as a regular file of at most MAX_BYTES: a file
 * descriptor (O_CLOEXEC, blocking) or -1 with ERROR (G_IO_ERROR_NOT_REGULAR_FILE
 * for a fifo, device, directory or socket, G_IO_ERROR_TOO_MANY_LINKS for a
 * refused symlink, G_IO_ERROR_NO_SPACE for a file above the cap, else the
 * errno's code). WHAT names the file in messages ("the candidate set"). */
int sb_file_open_bounded (const char *path, goffset max_bytes, SbFileReadFlags flags,
                          const char *what, GError **error);

/* The whole of PATH (NUL-terminated, LENGTH bytes without it), read as
 * sb_file_open_bounded() allows and never more than MAX_BYTES + 1 bytes
 * from the file. */
gboolean sb_file_read_bounded (const char *path, goffset max_bytes, SbFileReadFlags flags,
                               const char *what, char **contents, gsize *length,
                               GError **error);

/* NAME (as a file gives it) as a path inside DIR: NULL with ERROR
 * (G_IO_ERROR_INVALID_FILENAME) when NAME is empty, absolute, has a ".."
 * component, or leads (through symlinks) outside DIR; the path (DIR/NAME)
 * otherwise. The file need not exist; when it does, the check uses its
 * real path. */
char *sb_file_resolve_inside (const char *dir, const char *name, GError **error);

G_END_DECLS
