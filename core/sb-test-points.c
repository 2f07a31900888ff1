/* sb-test-points.c — named points reported to a killing test
 * (sb-test-points.h). */
#include "config.h"

#include "sb-test-points.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The descriptor of SB_PROGRESS_FD, or -1. */
static int
progress_fd (void)
{
  static gsize once = 0;
  static int fd = -1;

  if (g_once_init_enter (&once))
    {
      const char *text = g_getenv ("SB_PROGRESS_FD");
      gint64 n;
      if (text != NULL && g_ascii_string_to_signed (text, 10, 3, 1023, &n, NULL))
        {
          fd = (int) n;
          /* a test that stopped reading must not kill us by SIGPIPE */
          signal (SIGPIPE, SIG_IGN);
        }
      g_once_init_leave (&once, 1);
    }
  return fd;
}

void
sb_test_point (const char *name)
{
  int fd = progress_fd ();
  g_autofree char *line = NULL;
  gsize len;

  if (fd < 0)
    return;
  line = g_strconcat (name, "\n", NULL);
  len = strlen (line);
  while (write (fd, line, len) < 0 && errno == EINTR)
    ;
}
