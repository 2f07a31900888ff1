/* test-candidates.c — an experiment's candidate set in the session file
 * (sb-candidates.h): read relative to the file, the stimulus of a
 * setting, answers at other settings refused, and the round trip; the
 * candidates' files as the options' stimuli. */
#include "sb-candidates.h"
#include "sb-session.h"
#include "sb-stimulus.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char session_text[] =
  "{\"format\": \"skewbench-session\", \"version\": 1,"
  " \"experiment\": {\"title\": \"t\", \"template\": \"custom\", \"mode\": \"preference\","
  "  \"budget\": 5, \"parameters\": [{\"name\": \"w\"}],"
  "  \"candidates\": {\"csv\": \"c.csv\", \"folder\": \"img\"}},"
  " \"observations\": []}";

static void
test_session_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-cand-XXXXXX", NULL);
  g_autofree char *img = g_build_filename (dir, "img", NULL);
  g_autofree char *csv = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *a = g_build_filename (img, "a.png", NULL);
  g_autofree char *b = g_build_filename (img, "b.png", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_assert_cmpint (g_mkdir (img, 0700), ==, 0);
  g_assert_true (g_file_set_contents (a, "x", -1, NULL));
  g_assert_true (g_file_set_contents (b, "x", -1, NULL));
  g_assert_true (g_file_set_contents (csv, "file,w\na.png,0.5\nb.png,2.5\n", -1, NULL));
  g_autoptr (GError) error = NULL;

  g_autoptr (SbSession) s = sb_session_load_from_data (session_text, -1, path, &error);
  g_assert_no_error (error);
  const SbExperiment *exp = sb_session_get_experiment (s);
  g_assert_nonnull (exp->candidates);
  g_assert_cmpuint (exp->candidates->n, ==, 2);
  g_assert_cmpfloat (exp->parameters[0].lower, ==, 0.5);
  g_assert_cmpfloat (exp->parameters[0].upper, ==, 2.5);
  /* images, and no "stimulus": the options show their files */
  g_assert_cmpint (exp->stimulus.kind, ==, SB_STIMULUS_FILE);
  double xa = 0.5, xb = 2.5, off = 1.0;
  g_autofree char *fa = sb_experiment_candidate_file (exp, &xb);
  g_assert_cmpstr (fa, ==, b);
  g_assert_null (sb_experiment_candidate_file (exp, &off));

  /* an answer at a setting that is no candidate is refused, naming it */
  g_assert_false (sb_session_add_duel (s, &xa, &off, 0, &error));
  g_assert_nonnull (strstr (error->message, "none of the candidates in c.csv"));
  g_clear_error (&error);
  g_assert_true (sb_session_add_duel (s, &xa, &xb, 0, &error));
  g_assert_no_error (error);

  /* saved next to its CSV, the paths stay relative; it loads back */
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_assert_true (sb_session_save_as (s, file, &error));
  g_assert_no_error (error);
  g_autoptr (SbSession) back = sb_session_load (file, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sb_session_get_experiment (back)->candidates->n, ==, 2);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"folder\": \"img\""));
  g_assert_nonnull (strstr (text, "\"kind\": \"file\""));
  g_assert_cmpint (sb_session_get_experiment (back)->stimulus.kind, ==, SB_STIMULUS_FILE);

  /* a stimulus file that has gone: the session is refused, not half-read */
  g_remove (b);
  g_autoptr (SbSession) gone = sb_session_load (file, &error);
  g_assert_null (gone);
  g_assert_nonnull (strstr (error->message, "b.png' does not exist"));
  g_remove (a);
  g_remove (csv);
  g_remove (path);
  g_rmdir (img);
  g_rmdir (dir);
}

static void
test_kind_for_file (void)
{
  static const struct { const char *path; SbStimulusKind kind; } cases[] = {
    { "a.png", SB_STIMULUS_IMAGE }, { "dir/b.JPG", SB_STIMULUS_IMAGE },
    { "c.jpeg", SB_STIMULUS_IMAGE }, { "d.svg", SB_STIMULUS_IMAGE },
    { "e.wav", SB_STIMULUS_SOUND }, { "f.Ogg", SB_STIMULUS_SOUND },
    { "g.oga", SB_STIMULUS_SOUND }, { "h.flac", SB_STIMULUS_SOUND },
    { "i.mp3", SB_STIMULUS_SOUND }, { "j.txt", SB_STIMULUS_NONE },
    { "noext", SB_STIMULUS_NONE }, { "dir.png/noext", SB_STIMULUS_NONE },
    { "k.png.bak", SB_STIMULUS_NONE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (sb_stimulus_kind_for_file (cases[i].path), ==, cases[i].kind);
}

/* A session in DIR with a candidate set of FILE_A and FILE_B and
 * STIMULUS ("" for none); NULL with ERROR when refused. */
static SbSession *
candidates_session (const char *dir, const char *file_a, const char *file_b,
                    const char *stimulus, GError **error)
{
  g_autofree char *csv = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *a = g_build_filename (dir, file_a, NULL);
  g_autofree char *b = g_build_filename (dir, file_b, NULL);
  g_autofree char *rows = g_strdup_printf ("file,w\n%s,0.5\n%s,2.5\n", file_a, file_b);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autofree char *doc = g_strdup_printf (
    "{\"format\": \"skewbench-session\", \"version\": 1,"
    " \"experiment\": {\"title\": \"t\", \"template\": \"custom\", \"mode\": \"preference\","
    "  \"budget\": 5, \"parameters\": [{\"name\": \"w\"}], %s"
    "  \"candidates\": {\"csv\": \"c.csv\"}}, \"observations\": []}", stimulus);

  g_assert_true (g_file_set_contents (a, "x", -1, NULL));
  g_assert_true (g_file_set_contents (b, "x", -1, NULL));
  g_assert_true (g_file_set_contents (csv, rows, -1, NULL));
  return sb_session_load_from_data (doc, -1, path, error);
}

/* A set with a file that is neither image nor sound shows numbers unless
 * "file" is asked for, which is then refused naming the file; "file"
 * without a candidate set is refused; sounds are files too. */
static void
test_file_stimulus (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-cand-XXXXXX", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) numbers = candidates_session (dir, "a.png", "notes.txt", "", &error);
  g_assert_no_error (error);
  g_assert_cmpint (sb_session_get_experiment (numbers)->stimulus.kind, ==, SB_STIMULUS_NONE);

  g_autoptr (SbSession) refused = candidates_session (dir, "a.png", "notes.txt",
                                                      "\"stimulus\": {\"kind\": \"file\"},", &error);
  g_assert_null (refused);
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'notes.txt' is neither an image"));
  g_clear_error (&error);

  g_autoptr (SbSession) sounds = candidates_session (dir, "a.wav", "b.ogg",
                                                     "\"stimulus\": {\"kind\": \"file\", "
                                                     "\"text\": \"w = {w}\"},", &error);
  g_assert_no_error (error);
  g_assert_cmpint (sb_session_get_experiment (sounds)->stimulus.kind, ==, SB_STIMULUS_FILE);
  g_assert_cmpstr (sb_session_get_experiment (sounds)->stimulus.text, ==, "w = {w}");

  /* an explicit stimulus of another kind wins over the files */
  g_autoptr (SbSession) text = candidates_session (dir, "a.png", "b.png",
                                                   "\"stimulus\": {\"kind\": \"text\", "
                                                   "\"text\": \"w = {w}\"},", &error);
  g_assert_no_error (error);
  g_assert_cmpint (sb_session_get_experiment (text)->stimulus.kind, ==, SB_STIMULUS_TEXT);

  g_autoptr (SbExperiment) bare = sb_experiment_new ();
  sb_experiment_add_parameter (bare, "w", "", 0, 1);
  bare->stimulus.kind = SB_STIMULUS_FILE;
  g_assert_false (sb_experiment_validate (bare, &error));
  g_assert_nonnull (strstr (error->message, "has no 'candidates'"));

  for (const char *const *f = (const char *const[]) { "a.png", "notes.txt", "a.wav", "b.ogg",
                                                      "b.png", "c.csv", NULL }; *f; f++)
    {
      g_autofree char *p = g_build_filename (dir, *f, NULL);
      g_remove (p);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A session whose c.csv has ROWS (after the header "file,w"), in DIR;
 * NULL with ERROR when refused. */
static SbSession *
session_with_rows (const char *dir, const char *rows, GError **error)
{
  g_autofree char *csv = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *text = g_strconcat ("file,w\n", rows, NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  const char *doc =
    "{\"format\": \"skewbench-session\", \"version\": 1,"
    " \"experiment\": {\"title\": \"t\", \"template\": \"custom\", \"mode\": \"preference\","
    "  \"budget\": 5, \"parameters\": [{\"name\": \"w\"}],"
    "  \"candidates\": {\"csv\": \"c.csv\", \"folder\": \"img\"}}, \"observations\": []}";

  g_assert_true (g_file_set_contents (csv, text, -1, NULL));
  return sb_session_load_from_data (doc, -1, path, error);
}

static void
assert_rows_refused (const char *dir, const char *rows, const char *why)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) s = session_with_rows (dir, rows, &error);

  g_assert_null (s);
  g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
  if (strstr (error->message, why) == NULL)
    g_error ("“%s” does not say “%s”", error->message, why);
}

/* A candidate set received from someone else names only files inside
 * its folder: absolute names, "..", a symlink out of the folder, a fifo
 * or a device are refused with the line; a subfolder is fine. */
static void
test_files_stay_inside (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-cand-XXXXXX", NULL);
  g_autofree char *img = g_build_filename (dir, "img", NULL);
  g_autofree char *sub = g_build_filename (img, "sub", NULL);
  g_autofree char *a = g_build_filename (img, "a.png", NULL);
  g_autofree char *b = g_build_filename (sub, "b.png", NULL);
  g_autofree char *outside = g_build_filename (dir, "secret.png", NULL);
  g_autofree char *link = g_build_filename (img, "link.png", NULL);
  g_autofree char *fifo = g_build_filename (img, "fifo.png", NULL);
  g_autofree char *abs_rows = g_strdup_printf ("a.png,0.5\n%s,2.5\n", outside);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  g_assert_true (g_file_set_contents (a, "x", -1, NULL));
  g_assert_true (g_file_set_contents (b, "x", -1, NULL));
  g_assert_true (g_file_set_contents (outside, "x", -1, NULL));
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);

  g_autoptr (SbSession) fine = session_with_rows (dir, "a.png,0.5\nsub/b.png,2.5\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (fine);

  assert_rows_refused (dir, abs_rows, "line 3: the file name");
  assert_rows_refused (dir, abs_rows, "is absolute");
  assert_rows_refused (dir, "a.png,0.5\n../secret.png,2.5\n", "leads out of its folder");
  assert_rows_refused (dir, "a.png,0.5\nsub/../../secret.png,2.5\n", "leads out of its folder");
  assert_rows_refused (dir, "a.png,0.5\nlink.png,2.5\n", "outside its folder");
  assert_rows_refused (dir, "a.png,0.5\nfifo.png,2.5\n", "is a fifo");
  /* a cell of 1e308 beside -1e308 is named (it was "two stimuli with the
   * same parameter values") */
  assert_rows_refused (dir, "a.png,-1e308\nsub/b.png,1e308\n", "line 2: cell 2 -1e+308");
  assert_rows_refused (dir, "a.png,0.1\nsub/b.png,0.5\nlink.png,1e308\n",
                       "line 4: the value 1e+308 of column 2 stretches");

  g_unlink (fifo);
  g_unlink (link);
  g_unlink (outside);
  g_unlink (b);
  g_unlink (a);
  g_rmdir (sub);
  g_rmdir (img);
  for (const char *const *f = (const char *const[]) { "c.csv", NULL }; *f; f++)
    {
      g_autofree char *p = g_build_filename (dir, *f, NULL);
      g_unlink (p);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* The CSV itself: a fifo is refused at once (it used to block the open
 * for ever), text that is not UTF-8 is named, a file with a byte-order
 * mark reads its first column's name. */
static void
test_csv_file_checked (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-cand-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "c.csv", NULL);
  g_autofree char *img = g_build_filename (dir, "img", NULL);
  g_autofree char *a = g_build_filename (img, "a.png", NULL);
  g_autofree char *b = g_build_filename (img, "b.png", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  const char *doc =
    "{\"format\": \"skewbench-session\", \"version\": 1,"
    " \"experiment\": {\"title\": \"t\", \"template\": \"custom\", \"mode\": \"preference\","
    "  \"budget\": 5, \"parameters\": [{\"name\": \"w\"}],"
    "  \"candidates\": {\"csv\": \"c.csv\", \"folder\": \"img\"}}, \"observations\": []}";
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (img, 0755), ==, 0);
  g_assert_true (g_file_set_contents (a, "x", -1, NULL));
  g_assert_true (g_file_set_contents (b, "x", -1, NULL));
  g_assert_cmpint (mkfifo (csv, 0644), ==, 0);
  g_assert_null (sb_session_load_from_data (doc, -1, path, &error));
  g_assert_nonnull (strstr (error->message, "is a fifo"));
  g_clear_error (&error);
  g_unlink (csv);

  /* a Latin-1 file name (it would reach skewgp ask's JSON as invalid
   * UTF-8) and a NUL byte are named with their line */
  g_assert_true (g_file_set_contents (csv, "file,w\na.png,1\nb\xE9.png,2\n", -1, NULL));
  g_assert_null (sb_session_load_from_data (doc, -1, path, &error));
  g_assert_nonnull (strstr (error->message, "line 3 byte 2: the byte 0xE9 is not UTF-8"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (csv, "file,w\na.png,1\0\nb.png,2\n", 24, NULL));
  g_assert_null (sb_session_load_from_data (doc, -1, path, &error));
  g_assert_nonnull (strstr (error->message, "line 2 byte 8: a NUL byte"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (csv, "\xEF\xBB\xBF" "file,w\na.png,1\nb.png,2\n", -1, NULL));
  g_autoptr (SbSession) s = sb_session_load_from_data (doc, -1, path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);

  g_unlink (csv);
  g_unlink (a);
  g_unlink (b);
  g_rmdir (img);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/candidates/session-round-trip", test_session_round_trip);
  g_test_add_func ("/candidates/kind-for-file", test_kind_for_file);
  g_test_add_func ("/candidates/file-stimulus", test_file_stimulus);
  g_test_add_func ("/candidates/files-stay-inside", test_files_stay_inside);
  g_test_add_func ("/candidates/csv-file-checked", test_csv_file_checked);
  return g_test_run ();
}
