/* remove-tree.h — removes a test's scratch folder: PATH and everything
 * under it, without following symbolic links out of it. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

static inline void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}
