/* test-file-lock.c — one writer per session file (core/sb-file-lock.h). */
#include "sb-file-lock.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *
scratch_file (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-lock-XXXXXX", NULL);
  return g_build_filename (dir, name, NULL);
}

static void
remove_scratch (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *lock = sb_file_lock_path_for (path);

  g_unlink (lock);
  g_unlink (path);
  g_rmdir (dir);
}

/* flock belongs to the open file description, so a second acquire in the
 * same process is refused exactly as another process's would be. */
static void
test_second_writer_refused (void)
{
  g_autofree char *path = scratch_file ("session.json");
  g_autoptr (GError) error = NULL;
  SbFileLock *first = sb_file_lock_acquire (path, "skewbench", &error);
  SbFileLock *second;

  g_assert_no_error (error);
  g_assert_nonnull (first);
  second = sb_file_lock_acquire (path, "skewgp tell", &error);
  g_assert_null (second);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  /* The refusal names the file and the holder. */
  g_assert_nonnull (strstr (error->message, "session.json"));
  g_assert_nonnull (strstr (error->message, "skewbench (process"));
  g_clear_error (&error);

  sb_file_lock_release (first);
  second = sb_file_lock_acquire (path, "skewgp tell", &error);
  g_assert_no_error (error);
  g_assert_nonnull (second);
  sb_file_lock_release (second);
  remove_scratch (path);
}

/* A clean release removes the lock file. */
static void
test_release_removes_lock_file (void)
{
  g_autofree char *path = scratch_file ("s.json");
  g_autofree char *lock_path = sb_file_lock_path_for (path);
  SbFileLock *lock = sb_file_lock_acquire (path, "skewbench", NULL);

  g_assert_nonnull (lock);
  g_assert_true (g_file_test (lock_path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (sb_file_lock_get_path (lock), ==, path);
  sb_file_lock_release (lock);
  g_assert_false (g_file_test (lock_path, G_FILE_TEST_EXISTS));
  remove_scratch (path);
}

/* A lock file left behind by a writer that died (here: written by hand,
 * nobody holding the flock) does not block the next writer. */
static void
test_stale_lock_file (void)
{
  g_autofree char *path = scratch_file ("s.json");
  g_autofree char *lock_path = sb_file_lock_path_for (path);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  SbFileLock *lock;

  g_assert_true (g_file_set_contents (lock_path, "skewbench (process 1 on gone)\n", -1, NULL));
  lock = sb_file_lock_acquire (path, "skewgp tell", &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  g_assert_true (g_file_get_contents (lock_path, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "skewgp tell (process"));
  sb_file_lock_release (lock);
  remove_scratch (path);
}

/* A holder killed by SIGKILL: the kernel drops its lock, the lock file
 * stays, and the next writer gets the file. */
static void
test_killed_holder (void)
{
  g_autofree char *path = scratch_file ("s.json");
  g_autofree char *lock_path = sb_file_lock_path_for (path);
  int ready[2];
  pid_t child;
  char c;
  int status;
  SbFileLock *lock;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (pipe (ready), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      SbFileLock *held = sb_file_lock_acquire (path, "skewbench", NULL);
      c = held ? 'y' : 'n';
      if (write (ready[1], &c, 1) != 1)
        _exit (3);
      pause ();
      _exit (0);
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  g_assert_cmpint (c, ==, 'y');

  /* While the child lives, it holds the file. */
  g_assert_null (sb_file_lock_acquire (path, "skewgp tell", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);

  kill (child, SIGKILL);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (g_file_test (lock_path, G_FILE_TEST_EXISTS));
  lock = sb_file_lock_acquire (path, "skewgp tell", &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  sb_file_lock_release (lock);
  remove_scratch (path);
}

/* An unwritable directory is an I/O error naming the lock file, not BUSY. */
static void
test_unwritable_directory (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (sb_file_lock_acquire ("/proc/sb-no-such-dir/s.json", "skewbench", &error));
  g_assert_nonnull (error);
  g_assert_false (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BUSY));
  g_assert_nonnull (strstr (error->message, ".s.json.lock"));
}

/* A symlink at the lock file's name (planted in a folder someone sent)
 * is refused with a message naming it, and neither its target nor the
 * link is touched: the target keeps its text, the link stays. */
static void
test_symlink_lock_refused (void)
{
  g_autofree char *path = scratch_file ("s.json");
  g_autofree char *lock_path = sb_file_lock_path_for (path);
  g_autofree char *victim = g_strconcat (path, ".victim", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (victim, "precious\n", -1, NULL));
  g_assert_cmpint (symlink (victim, lock_path), ==, 0);
  g_assert_null (sb_file_lock_acquire (path, "skewgp tell", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_nonnull (strstr (error->message, ".s.json.lock"));
  g_assert_nonnull (strstr (error->message, "symbolic link"));
  g_assert_true (g_file_get_contents (victim, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "precious\n");
  g_assert_true (g_file_test (lock_path, G_FILE_TEST_IS_SYMLINK));
  g_unlink (victim);
  remove_scratch (path);
}

/* A dangling symlink would make O_CREAT create its target, a file
 * outside the folder: refused, and nothing is created. */
static void
test_dangling_symlink_lock_refused (void)
{
  g_autofree char *path = scratch_file ("s.json");
  g_autofree char *lock_path = sb_file_lock_path_for (path);
  g_autofree char *target = g_strconcat (path, ".created", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (symlink (target, lock_path), ==, 0);
  g_assert_null (sb_file_lock_acquire (path, "skewgp tell", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (lock_path, G_FILE_TEST_IS_SYMLINK));
  remove_scratch (path);
}

/* A fifo at the lock file's name neither blocks the open nor is used. */
static void
test_fifo_lock_refused (void)
{
  g_autofree char *path = scratch_file ("s.json");
  g_autofree char *lock_path = sb_file_lock_path_for (path);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (mkfifo (lock_path, 0644), ==, 0);
  g_assert_null (sb_file_lock_acquire (path, "skewgp tell", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_nonnull (strstr (error->message, "special file"));
  remove_scratch (path);
}

/* A writer that waits gets the file once its holder releases it (two
 * experimenters adding participants at once both get in), and is refused
 * as BUSY when the holder keeps it past the wait. */
static void
test_wait_for_holder (void)
{
  g_autofree char *path = scratch_file ("s.json");
  int ready[2], go[2];
  pid_t child;
  char c;
  int status;
  SbFileLock *lock;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (go), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      SbFileLock *held = sb_file_lock_acquire (path, "skewgp study add", NULL);
      c = held ? 'y' : 'n';
      if (write (ready[1], &c, 1) != 1 || read (go[0], &c, 1) != 1)
        _exit (3);
      g_usleep (200 * 1000);   /* still held when the parent starts waiting */
      sb_file_lock_release (held);
      _exit (0);
    }
  close (ready[1]);
  close (go[0]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  g_assert_cmpint (c, ==, 'y');
  /* held throughout: a short wait ends BUSY, naming the holder */
  g_assert_null (sb_file_lock_acquire_wait (path, "skewgp study add", 50, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "skewgp study add (process"));
  g_clear_error (&error);
  /* released 200 ms after "go": a wait of a minute gets it */
  g_assert_cmpint (write (go[1], "g", 1), ==, 1);
  close (go[1]);
  lock = sb_file_lock_acquire_wait (path, "skewgp study add", 60000, &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  sb_file_lock_release (lock);
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  remove_scratch (path);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-lock/second-writer-refused", test_second_writer_refused);
  g_test_add_func ("/file-lock/release-removes-lock-file", test_release_removes_lock_file);
  g_test_add_func ("/file-lock/stale-lock-file", test_stale_lock_file);
  g_test_add_func ("/file-lock/killed-holder", test_killed_holder);
  g_test_add_func ("/file-lock/unwritable-directory", test_unwritable_directory);
  g_test_add_func ("/file-lock/symlink-refused", test_symlink_lock_refused);
  g_test_add_func ("/file-lock/dangling-symlink-refused", test_dangling_symlink_lock_refused);
  g_test_add_func ("/file-lock/fifo-refused", test_fifo_lock_refused);
  g_test_add_func ("/file-lock/wait-for-holder", test_wait_for_holder);
  return g_test_run ();
}
