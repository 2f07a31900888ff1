/* fuzz-common.h — what every libFuzzer harness of tests/fuzz shares.
 *
 * A harness must be silent and deterministic, and whatever GLib would only
 * print must become a crash the fuzzer reports: a g_warning or a critical
 * (a g_return_if_fail that failed) aborts; debug and info messages are
 * dropped. FUZZ_CHECK states a property of the reader under test and
 * aborts, naming it, when an input breaks it.
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_CHECK(cond)                                                        \
  do                                                                            \
    {                                                                           \
      if (!(cond))                                                              \
        {                                                                       \
          fprintf (stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, \
                   #cond);                                                      \
          abort ();                                                             \
        }                                                                       \
    }                                                                           \
  while (0)

static GLogWriterOutput
fuzz_log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                 gpointer user_data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    {
      for (gsize i = 0; i < n_fields; i++)
        if (g_strcmp0 (fields[i].key, "MESSAGE") == 0)
          fprintf (stderr, "GLib log message: %s\n", (const char *) fields[i].value);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

/* Installs the log policy above; call once, from LLVMFuzzerInitialize. */
static inline void
fuzz_init_logging (void)
{
  g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
}

/* The readers that take a path (the CLI reads a file or stdin) are fed
 * through one anonymous in-memory file per process, opened by its
 * /proc/self/fd path: no file on disk, nothing left behind. Returns the
 * path, whose content is now DATA. */
static inline const char *
fuzz_file_with (const uint8_t *data, size_t size)
{
  static int fd = -1;
  static char path[64];
  if (fd < 0)
    {
      fd = memfd_create ("fuzz-input", MFD_CLOEXEC);
      if (fd < 0)
        abort ();
      g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
    }
  if (ftruncate (fd, 0) != 0
      || (size > 0 && pwrite (fd, data, size, 0) != (ssize_t) size))
    abort ();
  return path;
}

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
