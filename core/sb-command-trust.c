/* sb-command-trust.c — the user's consent to run a file's renderer command
 * (sb-command-trust.h). */
#include "config.h"

#include "sb-command-trust.h"

#include "sb-file-read.h"
#include "sb-atomic-file.h"
#include "sb-study.h"

#include <errno.h>
#include <string.h>

/* Consents are a few lines each; a larger file is not ours. */
#define TRUST_FILE_MAX_BYTES (4 * 1024 * 1024)

static char *
trust_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "skewbench", "trusted-commands", NULL);
}

char *
sb_command_trust_file_for (const char *session_path)
{
  g_autofree char *abs = g_canonicalize_filename (session_path, NULL);
  g_autofree char *dir = g_path_get_dirname (abs);
  g_autofree char *base = g_path_get_basename (dir);
  g_autofree char *study = g_path_get_dirname (dir);
  g_autofree char *index = g_build_filename (study, SB_STUDY_INDEX, NULL);

  if (g_str_equal (base, SB_STUDY_PARTICIPANTS) && g_file_test (index, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&index);
  return g_steal_pointer (&abs);
}

static char *
trust_line (const char *file, const char *command)
{
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, command, -1);

  return g_strdup_printf ("%s\t%s\n", hash, file);
}

gboolean
sb_command_trust_is_allowed (const char *file, const char *command)
{
  g_autofree char *path = trust_path ();
  g_autofree char *text = NULL;
  g_autofree char *line = trust_line (file, command);
  gsize len = 0;

  if (!sb_file_read_bounded (path, TRUST_FILE_MAX_BYTES, SB_FILE_READ_DEFAULT,
                             "the list of allowed commands", &text, &len, NULL))
    return FALSE;
  /* whole lines only: the file's lines all end in \n */
  for (const char *p = text; p != NULL && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
    if (strncmp (p, line, strlen (line)) == 0)
      return TRUE;
  return FALSE;
}

gboolean
sb_command_trust_allow (const char *file, const char *command, GError **error)
{
  g_autofree char *path = trust_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  g_autofree char *line = trust_line (file, command);
  g_autoptr (GString) out = NULL;
  gsize len = 0;

  if (sb_command_trust_is_allowed (file, command))
    return TRUE;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot create %s: %s", dir, g_strerror (errno));
      return FALSE;
    }
  out = g_string_new (NULL);
  if (sb_file_read_bounded (path, TRUST_FILE_MAX_BYTES, SB_FILE_READ_DEFAULT,
                            "the list of allowed commands", &text, &len, NULL))
    g_string_append_len (out, text, (gssize) len);
  if (out->len > 0 && out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  g_string_append (out, line);
  return sb_atomic_file_write (path, out->str, out->len, error);
}

gboolean
sb_command_trust_check (const char *session_path, const char *command, gboolean allow_commands,
                        GError **error)
{
  g_autofree char *file = NULL;

  if (allow_commands)
    return TRUE;
  file = sb_command_trust_file_for (session_path);
  if (sb_command_trust_is_allowed (file, command))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
               "%s asks to run the command '%s' to render its stimuli, which you have not "
               "allowed: open it in SkewBench and allow the command, or pass --allow-commands "
               "if you trust the file", file, command);
  return FALSE;
}
