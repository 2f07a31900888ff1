#include "sb-command-trust.h"
#include "remove-tree.h"
/* test-stimulus.c — stimuli without a display: OKLCH against published
 * reference values, the experiment's "stimulus" in the session file, and
 * the external renderer (fake renderers in tests/data: one writes a PNG,
 * one fails with a message, one hangs past the timeout). */
#include "loop-harness.h"
#include "sb-colour.h"
#include "sb-setting.h"
#include "sb-experiment-templates.h"
#include "sb-session.h"
#include "sb-stimulus-renderer.h"
#include "sb-stimulus.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- Colour ------------------------------------------------------------------ */

/* CSS Color 4's OKLCH of the sRGB primaries and white (the values the
 * specification's sample code and the web-platform tests use, 6 digits):
 * red oklch(0.627955 0.257683 29.2339), green oklch(0.866440 0.294827
 * 142.4953), blue oklch(0.452014 0.313214 264.052). The references are
 * rounded to ±5e-7 in L and C and ±5e-5° in h; with |d rgb / d (L, C,
 * h_rad)| below 6 that moves linear RGB by less than 1e-5, the tolerance. */
static void
test_oklch_css_primaries (void)
{
  static const struct { double L, C, h, rgb[3]; } cases[] = {
    { 0.627955, 0.257683, 29.2339, { 1, 0, 0 } },
    { 0.866440, 0.294827, 142.4953, { 0, 1, 0 } },
    { 0.452014, 0.313214, 264.052, { 0, 0, 1 } },
    { 1.0, 0.0, 0.0, { 1, 1, 1 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double lin[3], rad = cases[i].h * G_PI / 180;
      sb_oklab_to_linear_srgb (cases[i].L, cases[i].C * cos (rad), cases[i].C * sin (rad), lin);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat_with_epsilon (lin[k], cases[i].rgb[k], 1e-5);
    }
}

/* linear sRGB -> CIE XYZ (D65), CSS Color 4 §"sample code". */
static void
linear_srgb_to_xyz (const double rgb[3], double xyz[3])
{
  static const double M[3][3] = {
    { 0.41239079926595934, 0.357584339383878, 0.1804807884018343 },
    { 0.21263900587151027, 0.715168678767756, 0.07219231536073371 },
    { 0.01933081871559182, 0.11919477979462598, 0.9505321522496607 },
  };
  for (int i = 0; i < 3; i++)
    xyz[i] = M[i][0] * rgb[0] + M[i][1] * rgb[1] + M[i][2] * rgb[2];
}

static void
oklab_to_xyz (const double lab[3], double xyz[3])
{
  double rgb[3];

  sb_oklab_to_linear_srgb (lab[0], lab[1], lab[2], rgb);
  linear_srgb_to_xyz (rgb, xyz);
}

/* Ottosson's table of XYZ -> OKLab test values ("A perceptual color space
 * for image processing", 2020), inverted: his OKLab (3 decimals) must
 * give back his XYZ. The tolerance is the table's rounding (±5e-4 per
 * OKLab coordinate) carried through the Jacobian of OKLab -> XYZ
 * (central differences), plus 1e-6 for the matrices' own digits. */
static void
test_oklab_ottosson_table (void)
{
  static const struct { double xyz[3], lab[3]; } rows[] = {
    { { 0.950, 1.000, 1.089 }, { 1.000, 0.000, 0.000 } },
    { { 1.000, 0.000, 0.000 }, { 0.450, 1.236, -0.019 } },
    { { 0.000, 1.000, 0.000 }, { 0.922, -0.671, 0.263 } },
    { { 0.000, 0.000, 1.000 }, { 0.153, -1.415, -0.449 } },
  };

  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      double xyz[3], tol[3] = { 1e-6, 1e-6, 1e-6 };
      oklab_to_xyz (rows[r].lab, xyz);
      for (int j = 0; j < 3; j++)
        {
          double up[3], down[3], xu[3], xd[3], h = 1e-6;
          memcpy (up, rows[r].lab, sizeof up);
          memcpy (down, rows[r].lab, sizeof down);
          up[j] += h;
          down[j] -= h;
          oklab_to_xyz (up, xu);
          oklab_to_xyz (down, xd);
          for (int i = 0; i < 3; i++)
            tol[i] += 5e-4 * fabs (xu[i] - xd[i]) / (2 * h);
        }
      for (int i = 0; i < 3; i++)
        {
          g_test_message ("row %u XYZ[%d] = %.6f, table %.3f, tolerance %.2g", r, i, xyz[i],
                          rows[r].xyz[i], tol[i]);
          g_assert_cmpfloat_with_epsilon (xyz[i], rows[r].xyz[i], tol[i]);
        }
    }
}

/* An out-of-gamut colour keeps L and h and gets the largest chroma that
 * fits: the shown colour is in gamut, 1e-4 more chroma is not (it moves
 * linear RGB by ~1e-4, beyond the gamut test's 1e-6 slack). */
static void
test_oklch_gamut_mapping (void)
{
  static const double cases[][3] = { { 0.7, 0.4, 150 }, { 0.5, 0.3, 300 }, { 0.9, 0.2, 30 } };
  double rgb[3], chroma, lin[3];

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double L = cases[i][0], C = cases[i][1], h = cases[i][2], rad = h * G_PI / 180;
      g_assert_true (sb_oklch_to_srgb (L, C, h, rgb, &chroma));
      g_assert_cmpfloat (chroma, <, C);
      g_assert_cmpfloat (chroma, >, 0.01);
      sb_oklab_to_linear_srgb (L, chroma * cos (rad), chroma * sin (rad), lin);
      g_assert_true (sb_linear_srgb_in_gamut (lin));
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat_with_epsilon (rgb[k], sb_srgb_encode (CLAMP (lin[k], 0, 1)), 1e-12);
      sb_oklab_to_linear_srgb (L, (chroma + 1e-4) * cos (rad), (chroma + 1e-4) * sin (rad), lin);
      g_assert_false (sb_linear_srgb_in_gamut (lin));
    }
  /* In gamut: unchanged, not marked. */
  g_assert_false (sb_oklch_to_srgb (0.7, 0.05, 200, rgb, &chroma));
  g_assert_cmpfloat (chroma, ==, 0.05);
  /* The ends of the lightness axis (white to the matrices' 10 digits). */
  g_assert_true (sb_oklch_to_srgb (1.2, 0.1, 10, rgb, NULL));
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat_with_epsilon (rgb[k], 1.0, 1e-6);
  g_assert_false (sb_oklch_to_srgb (0.0, 0.0, 10, rgb, NULL));
  g_assert_cmpfloat (rgb[2], ==, 0.0);
}

static void
test_colour_template (void)
{
  g_autoptr (SbExperiment) exp = sb_template_colour ();
  g_autoptr (GError) error = NULL;
  /* hue, chroma (% of 0.4), lightness (%) */
  double red[3] = { 29.2339, 0.257683 / 0.4 * 100, 62.7955 }, vivid[3] = { 150, 62.5, 70 };
  double r, g, b;
  g_autofree char *red_text = NULL, *vivid_text = NULL;

  g_assert_true (sb_experiment_validate (exp, &error));
  g_assert_cmpint (exp->stimulus.kind, ==, SB_STIMULUS_COLOUR);
  g_assert_cmpstr (exp->parameters[0].name, ==, "hue");
  g_assert_cmpfloat (exp->parameters[0].upper, ==, 360.0);
  /* Lightness in percent: sRGB red, not mapped (within the reference's
   * rounding, see test_oklch_css_primaries). */
  g_assert_false (sb_template_colour_rgb (exp, red, &r, &g, &b));
  g_assert_cmpfloat_with_epsilon (r, 1.0, 1e-5);
  g_assert_cmpfloat_with_epsilon (g, 0.0, 1e-3);
  red_text = sb_experiment_describe_setting (exp, red);
  g_assert_nonnull (strstr (red_text, "oklch(62.8% 0.258 29°)"));
  g_assert_nonnull (strstr (red_text, "#FF0000"));
  g_assert_null (strstr (red_text, "mapped"));
  g_assert_true (sb_template_colour_rgb (exp, vivid, &r, &g, &b));
  vivid_text = sb_template_colour_describe (exp, vivid);
  g_assert_nonnull (strstr (vivid_text, "mapped into sRGB"));
}

/* A colour session written before stimuli existed keeps its HSL swatches. */
static void
test_colour_hsl_session (void)
{
  static const char doc[] =
    "{\"format\": \"skewbench-session\", \"version\": 1, \"experiment\": {\"title\": \"c\","
    " \"template\": \"colour\", \"mode\": \"preference\", \"parameters\": ["
    " {\"name\": \"hue\", \"unit\": \"°\", \"lower\": 0, \"upper\": 360},"
    " {\"name\": \"saturation\", \"unit\": \"%\", \"lower\": 15, \"upper\": 100},"
    " {\"name\": \"lightness\", \"unit\": \"%\", \"lower\": 25, \"upper\": 80}]},"
    " \"observations\": []}";
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) session = sb_session_load_from_data (doc, -1, "old.json", &error);
  const SbExperiment *exp;
  double red[3] = { 0, 100, 50 }, r, g, b;
  g_autofree char *data = NULL;

  g_assert_no_error (error);
  exp = sb_session_get_experiment (session);
  g_assert_cmpint (exp->stimulus.kind, ==, SB_STIMULUS_COLOUR);
  g_assert_cmpint (exp->stimulus.colour_space, ==, SB_COLOUR_HSL);
  g_assert_false (sb_template_colour_rgb (exp, red, &r, &g, &b));
  g_assert_cmpfloat (r, ==, 1.0);
  g_assert_cmpfloat (g, ==, 0.0);
  g_assert_cmpfloat (b, ==, 0.0);
  /* Saved again, it says so explicitly. */
  data = sb_session_to_data (session, NULL);
  g_assert_nonnull (strstr (data, "\"space\": \"hsl\""));
}

/* ---- The experiment's stimulus ---------------------------------------------- */

static SbExperiment *
face_experiment (const char *command, double timeout)
{
  SbExperiment *exp = sb_experiment_new ();

  sb_experiment_add_parameter (exp, "width", "mm", 10, 50);
  sb_experiment_add_parameter (exp, "smile", "", -1, 1);
  exp->stimulus.kind = SB_STIMULUS_IMAGE;
  exp->stimulus.command = g_strdup (command);
  exp->stimulus.timeout = timeout;
  return exp;
}

static void
test_stimulus_round_trip (void)
{
  g_autoptr (SbExperiment) exp = face_experiment ("render-face --width {width} -o {output}", 7);
  g_autoptr (SbSession) session = NULL, back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  const SbExperiment *read;

  exp->stimulus.text = g_strdup ("{width} mm wide, smile {smile}");
  exp->stimulus.extension = g_strdup ("svg");
  g_assert_true (sb_experiment_validate (exp, &error));
  session = sb_session_new (exp);
  data = sb_session_to_data (session, NULL);
  back = sb_session_load_from_data (data, -1, "s.json", &error);
  g_assert_no_error (error);
  read = sb_session_get_experiment (back);
  g_assert_cmpint (read->stimulus.kind, ==, SB_STIMULUS_IMAGE);
  g_assert_cmpstr (read->stimulus.command, ==, exp->stimulus.command);
  g_assert_cmpstr (read->stimulus.text, ==, exp->stimulus.text);
  g_assert_cmpstr (read->stimulus.extension, ==, "svg");
  g_assert_cmpfloat (read->stimulus.timeout, ==, 7);
}

/* Each bad stimulus is refused by the one validation, naming what is wrong. */
static void
test_stimulus_refused (void)
{
  static const struct { const char *stimulus, *expect; } bad[] = {
    { "{\"kind\": \"image\", \"command\": \"render --smil {smil} -o {output}\"}",
      "unknown placeholder {smil}" },
    { "{\"kind\": \"image\", \"command\": \"render --smile {smile}\"}", "{output}" },
    { "{\"kind\": \"image\"}", "needs a 'command'" },
    { "{\"kind\": \"text\", \"text\": \"size {output}\"}", "unknown placeholder {output}" },
    { "{\"kind\": \"text\", \"text\": \"size {width\"}", "without its '}'" },
    { "{\"kind\": \"sound\", \"command\": \"play 'unclosed {output}\"}", "split into arguments" },
    { "{\"kind\": \"image\", \"command\": \"r -o {output}\", \"timeout\": 0}", "'timeout'" },
    { "{\"kind\": \"video\"}", "'kind' must be" },
    { "{\"kind\": \"image\", \"comand\": \"r\"}", "unknown field 'comand'" },
    { "{\"kind\": \"colour\"}", "three parameters" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *doc = g_strdup_printf (
        "{\"format\": \"skewbench-session\", \"version\": 1, \"experiment\": {\"title\": \"t\","
        " \"template\": \"custom\", \"mode\": \"preference\", \"stimulus\": %s, \"parameters\": ["
        " {\"name\": \"width\", \"lower\": 10, \"upper\": 50},"
        " {\"name\": \"smile\", \"lower\": -1, \"upper\": 1}]}, \"observations\": []}",
        bad[i].stimulus);
      g_autoptr (GError) error = NULL;
      g_autoptr (SbSession) s = sb_session_load_from_data (doc, -1, "bad.json", &error);
      g_assert_null (s);
      g_assert_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID);
      g_test_message ("%s -> %s", bad[i].stimulus, error->message);
      g_assert_nonnull (strstr (error->message, bad[i].expect));
      g_assert_nonnull (strstr (error->message, "stimulus"));
    }
}

static void
test_stimulus_expand (void)
{
  g_autoptr (SbExperiment) exp = face_experiment ("r -o {output}", 10);
  double x[2] = { 12.5, 0.1 };
  g_autoptr (GError) error = NULL;
  g_autofree char *cmd = sb_stimulus_expand ("--w={width} {{literal}} {smile}", exp, x, "o.png",
                                             TRUE, &error);
  g_autofree char *text = sb_stimulus_expand ("{width} mm", exp, x, NULL, FALSE, &error);

  g_assert_no_error (error);
  /* Full precision for commands: 0.1 reads back as 0.1 exactly. */
  g_assert_cmpstr (cmd, ==, "--w=12.5 {literal} 0.1");
  g_assert_cmpstr (text, ==, "12.5 mm");
  x[1] = 1.0 / 3.0;
  g_clear_pointer (&cmd, g_free);
  cmd = sb_stimulus_expand ("{smile}", exp, x, NULL, TRUE, &error);
  g_assert_cmpfloat (g_ascii_strtod (cmd, NULL), ==, 1.0 / 3.0);
}

/* ---- The renderer ------------------------------------------------------------- */

typedef struct {
  char *dir;      /* the working folder: runs.log, hang.pids */
  char *cache;    /* the cache folder (with a space: one argument) */
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("sb-stimulus-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->cache = g_build_filename (f->dir, "cache dir", NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->cache);
}

static char *
script (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static SbStimulusRenderer *
renderer_for (Fixture *f, const char *script_name, const char *args, double timeout)
{
  g_autofree char *path = script (script_name);
  g_autofree char *quoted = g_shell_quote (path);
  g_autofree char *command = g_strdup_printf ("%s %s", quoted, args);
  g_autoptr (SbExperiment) exp = face_experiment (command, timeout);
  g_autoptr (GError) error = NULL;

  g_assert_true (sb_experiment_validate (exp, &error));
  return sb_stimulus_renderer_new (exp, f->dir, f->cache);
}

typedef struct {
  gboolean done;
  GFile *file;
  GError *error;
} Result;

static void
render_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Result *r = user_data;

  r->file = sb_stimulus_renderer_render_finish (SB_STIMULUS_RENDERER (source), res, &r->error);
  r->done = TRUE;
}

static void
result_clear (Result *r)
{
  g_clear_object (&r->file);
  g_clear_error (&r->error);
  r->done = FALSE;
}

static guint
count_runs (Fixture *f)
{
  g_autofree char *log = g_build_filename (f->dir, "runs.log", NULL);
  g_autofree char *text = NULL;
  guint n = 0;

  if (!g_file_get_contents (log, &text, NULL, NULL))
    return 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static void
test_renderer_png (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = renderer_for (f, "stimulus-png.sh",
                                                   "--width {width} --smile {smile} -o {output}", 10);
  double x[2] = { 20, 0.5 };
  Result res = { 0 };
  g_autofree char *contents = NULL;
  gsize len;
  g_autofree char *path = NULL;

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_no_error (res.error);
  path = g_file_get_path (res.file);
  g_assert_true (g_str_has_prefix (path, f->cache));
  g_assert_true (g_str_has_suffix (path, ".png"));
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, ==, 67);
  g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
  result_clear (&res);
}

/* The command runs once per setting: asked twice at the same time, then
 * again from the cache; a second setting runs it again. */
static void
test_renderer_cache (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = renderer_for (f, "stimulus-png.sh",
                                                   "--width {width} -o {output}", 10);
  double x[2] = { 20, 0.5 }, y[2] = { 30, 0.5 };
  Result a = { 0 }, b = { 0 }, c = { 0 };

  sb_stimulus_renderer_prefetch (r, x);
  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &a);
  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &b);
  g_assert_cmpuint (sb_stimulus_renderer_get_n_running (r), ==, 1);
  SPIN_UNTIL (a.done && b.done);
  g_assert_no_error (a.error);
  g_assert_no_error (b.error);
  g_assert_true (g_file_equal (a.file, b.file));
  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &c);
  SPIN_UNTIL (c.done);
  g_assert_true (g_file_equal (a.file, c.file));
  g_assert_cmpuint (count_runs (f), ==, 1);
  g_assert_cmpuint (sb_stimulus_renderer_get_n_started (r), ==, 1);

  /* The smile is not in this command: a setting differing only there is
   * the same image. A different width is a new one. */
  result_clear (&c);
  y[0] = 20, y[1] = -0.5;
  sb_stimulus_renderer_render_async (r, y, NULL, render_done, &c);
  SPIN_UNTIL (c.done);
  g_assert_cmpuint (count_runs (f), ==, 1);
  result_clear (&c);
  y[0] = 30;
  sb_stimulus_renderer_render_async (r, y, NULL, render_done, &c);
  SPIN_UNTIL (c.done);
  g_assert_no_error (c.error);
  g_assert_false (g_file_equal (a.file, c.file));
  g_assert_cmpuint (count_runs (f), ==, 2);
  result_clear (&a);
  result_clear (&b);
  result_clear (&c);
}

static void
test_renderer_failure (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = renderer_for (f, "stimulus-fail.sh",
                                                   "--smile {smile} -o {output}", 10);
  double x[2] = { 20, 0.25 };
  Result res = { 0 };

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_error (res.error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_FAILED);
  g_test_message ("%s", res.error->message);
  g_assert_nonnull (strstr (res.error->message, "'stimulus-fail.sh' failed (exit status 3)"));
  g_assert_nonnull (strstr (res.error->message, "cannot draw a smile of 0.25"));
  g_assert_null (res.file);
  /* Not cached: asking again runs it again. */
  result_clear (&res);
  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_nonnull (res.error);
  g_assert_cmpuint (sb_stimulus_renderer_get_n_started (r), ==, 2);
  result_clear (&res);
}

static gboolean
process_gone (pid_t pid)
{
  /* Gone, or a zombie waiting for its parent (init) to reap it. */
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *end;

  if (kill (pid, 0) != 0 && errno == ESRCH)
    return TRUE;
  if (!g_file_get_contents (stat_path, &stat, NULL, NULL))
    return TRUE;
  end = strrchr (stat, ')');
  return end && end[1] == ' ' && end[2] == 'Z';
}

/* A command that hangs is stopped at the timeout with a message, and the
 * programs it started are stopped with it. */
static void
test_renderer_timeout (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = renderer_for (f, "stimulus-hang.sh", "-o {output}", 0.5);
  double x[2] = { 20, 0.5 };
  Result res = { 0 };
  gint64 start = g_get_monotonic_time ();
  g_autofree char *pids_path = g_build_filename (f->dir, "hang.pids", NULL);
  g_autofree char *pids = NULL;
  int shell = 0, child = 0;

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_error (res.error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (res.error->message, "did not finish within 0.5 s"));
  /* At the timeout, not when the 300 s child would have ended. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_TIME_SPAN_SECOND);
  g_assert_true (g_file_get_contents (pids_path, &pids, NULL, NULL));
  g_assert_cmpint (sscanf (pids, "%d %d", &shell, &child), ==, 2);
  SPIN_UNTIL (process_gone (shell) && process_gone (child));
  SPIN_UNTIL (sb_stimulus_renderer_get_n_running (r) == 0);
  result_clear (&res);
}

/* The command is split into arguments first and filled in per argument:
 * shell syntax in the template is text, not a second command. */
static void
test_renderer_no_shell (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = renderer_for (f, "stimulus-png.sh",
                                                   "--width {width} ';' touch pwned '$(touch pwned2)' -o {output}", 10);
  g_autofree char *pwned = g_build_filename (f->dir, "pwned", NULL);
  g_autofree char *pwned2 = g_build_filename (f->dir, "pwned2", NULL);
  double x[2] = { 20, 0.5 };
  Result res = { 0 };

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_no_error (res.error);
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (pwned2, G_FILE_TEST_EXISTS));
  result_clear (&res);
}

/* A renderer running SCRIPT (shell text) with $1 = {output}, in F's folder. */
static SbStimulusRenderer *
shell_renderer (Fixture *f, const char *script_text, double timeout)
{
  g_autofree char *path = g_build_filename (f->dir, "render.sh", NULL);
  g_autoptr (SbExperiment) exp = face_experiment ("sh ./render.sh {output} {smile}", timeout);

  g_assert_true (g_file_set_contents (path, script_text, -1, NULL));
  return sb_stimulus_renderer_new (exp, f->dir, f->cache);
}

/* A renderer that leaves a background child holding stderr has rendered
 * when it exits with 0 and wrote its output (it used to time out waiting
 * for the pipe to close), and the child is stopped with it. */
static void
test_renderer_background_child (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = shell_renderer (
    f, "sleep 300 &\necho $! > child.pid\necho rendering >&2\nprintf PNG > \"$1\"\n", 30);
  g_autofree char *pid_path = g_build_filename (f->dir, "child.pid", NULL);
  g_autofree char *pid_text = NULL;
  double x[2] = { 20, 0.5 };
  Result res = { 0 };
  gint64 start = g_get_monotonic_time ();

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_no_error (res.error);
  g_assert_nonnull (res.file);
  /* well before the 30 s timeout */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 15 * G_TIME_SPAN_SECOND);
  g_assert_true (g_file_get_contents (pid_path, &pid_text, NULL, NULL));
  SPIN_UNTIL (process_gone ((pid_t) atoi (pid_text)));
  SPIN_UNTIL (sb_stimulus_renderer_get_n_running (r) == 0);
  result_clear (&res);
}

/* 50 MB on stderr: kept to its last 64 KiB, quoted as a short tail with
 * the total and the exit status; invalid UTF-8 is shown as text. */
static void
test_renderer_stderr_bounded (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStimulusRenderer) r = shell_renderer (
    f, "head -c 50000000 /dev/zero | tr '\\0' x >&2\nprintf '\\nbad \\377\\376 bytes\\n' >&2\nexit 3\n", 60);
  double x[2] = { 20, 0.5 };
  Result res = { 0 };

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_error (res.error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_FAILED);
  g_test_message ("%s", res.error->message);
  g_assert_true (g_utf8_validate (res.error->message, -1, NULL));
  g_assert_nonnull (strstr (res.error->message, "failed (exit status 3)"));
  g_assert_nonnull (strstr (res.error->message, "bad "));
  g_assert_nonnull (strstr (res.error->message, " bytes"));
  g_assert_nonnull (strstr (res.error->message, "MB written to stderr in all"));
  g_assert_nonnull (strstr (res.error->message, "(50.0"));
  g_assert_cmpuint (strlen (res.error->message), <, 1000);
  result_clear (&res);
}

/* A renderer relative to the experiment's folder is made absolute for a
 * copy of the experiment that lives elsewhere (a study's participants):
 * "./x" and a bare name of an executable file there; PATH names and
 * absolute paths stay; arguments keep their words. */
static void
test_resolve_command (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->dir, "my experiment", NULL);
  g_autofree char *script = g_build_filename (folder, "render.sh", NULL);
  g_autofree char *expected = NULL;
  g_auto (GStrv) argv = NULL;
  g_autoptr (SbExperiment) exp = face_experiment ("./render.sh --width {width} 'two words' -o {output}", 5);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  g_assert_true (g_file_set_contents (script, "#!/bin/sh\n", -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);

  sb_stimulus_resolve_command (exp, folder);
  g_assert_true (g_shell_parse_argv (exp->stimulus.command, NULL, &argv, NULL));
  g_assert_cmpstr (argv[0], ==, script);
  g_assert_cmpstr (argv[1], ==, "--width");
  g_assert_cmpstr (argv[2], ==, "{width}");
  g_assert_cmpstr (argv[3], ==, "two words");
  g_assert_cmpstr (argv[5], ==, "{output}");
  g_test_message ("%s", exp->stimulus.command);

  g_free (exp->stimulus.command);
  exp->stimulus.command = g_strdup ("render.sh -o {output}");   /* bare, executable there */
  sb_stimulus_resolve_command (exp, folder);
  expected = g_strdup_printf ("'%s' -o {output}", script);
  g_assert_cmpstr (exp->stimulus.command, ==, expected);

  g_free (exp->stimulus.command);
  exp->stimulus.command = g_strdup ("sox -n -o {output}");     /* a PATH program */
  sb_stimulus_resolve_command (exp, folder);
  g_assert_cmpstr (exp->stimulus.command, ==, "sox -n -o {output}");

  g_free (exp->stimulus.command);
  exp->stimulus.command = g_strdup ("/usr/bin/env -o {output}");
  sb_stimulus_resolve_command (exp, folder);
  g_assert_cmpstr (exp->stimulus.command, ==, "/usr/bin/env -o {output}");
  g_unlink (script);
  g_rmdir (folder);
}

static void
test_renderer_missing_program (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = face_experiment ("no-such-renderer-here -o {output}", 10);
  g_autoptr (SbStimulusRenderer) r = sb_stimulus_renderer_new (exp, f->dir, f->cache);
  double x[2] = { 20, 0.5 };
  Result res = { 0 };

  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_error (res.error, SB_STIMULUS_ERROR, SB_STIMULUS_ERROR_START);
  g_assert_nonnull (strstr (res.error->message, "'no-such-renderer-here' could not be started"));
  result_clear (&res);
}

/* examples/stimulus-face/render-face.sh, run as its experiment runs it
 * (a relative command, in the example's folder), writes an SVG face. */
static void
test_renderer_example (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_test_build_filename (G_TEST_DIST, "..", "examples",
                                                   "stimulus-face", NULL);
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (SbStimulusRenderer) r = NULL;
  g_autoptr (GError) error = NULL;
  double x[2] = { 90, 0.5 };
  Result res = { 0 };
  g_autofree char *svg = NULL;

  sb_experiment_add_parameter (exp, "width", "px", 60, 120);
  sb_experiment_add_parameter (exp, "smile", "", -1, 1);
  exp->stimulus.kind = SB_STIMULUS_IMAGE;
  exp->stimulus.command = g_strdup ("./render-face.sh --width {width} --smile {smile} -o {output}");
  exp->stimulus.extension = g_strdup ("svg");
  exp->stimulus.timeout = 10;
  g_assert_true (sb_experiment_validate (exp, &error));
  r = sb_stimulus_renderer_new (exp, folder, f->cache);
  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_no_error (res.error);
  g_assert_true (g_file_load_contents (res.file, NULL, &svg, NULL, NULL, NULL));
  g_assert_true (g_str_has_prefix (svg, "<svg "));
  g_assert_nonnull (strstr (svg, "rx=\"90\""));
  result_clear (&res);
}

static guint32
le32 (const guchar *p)
{
  return p[0] | (p[1] << 8) | (p[2] << 16) | ((guint32) p[3] << 24);
}

static guint16
le16 (const guchar *p)
{
  return p[0] | (p[1] << 8);
}

/* examples/stimulus-tone: its experiment's stimulus, run by the renderer
 * in the example's folder, writes a 0.4 s 16-bit PCM WAV whose header
 * sizes match the file, with the tone's pitch (zero crossings) and peak
 * level (loudness in dB) as asked. */
static void
test_renderer_tone (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_test_build_filename (G_TEST_DIST, "..", "examples",
                                                   "stimulus-tone", NULL);
  g_autofree char *json = g_build_filename (folder, "experiment.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (SbStimulusRenderer) r = NULL;
  g_autoptr (GError) error = NULL;
  double x[2] = { 440, -12 };
  Result res = { 0 };
  g_autofree guchar *wav = NULL;
  gsize len;
  guint32 n, rate, crossings = 0;
  int peak = 0;

  g_assert_true (json_parser_load_from_file (parser, json, &error));
  g_assert_no_error (error);
  g_assert_true (sb_stimulus_from_json (json_object_get_member (
                   json_node_get_object (json_parser_get_root (parser)), "stimulus"),
                 &exp->stimulus, &error));
  g_assert_cmpint (exp->stimulus.kind, ==, SB_STIMULUS_SOUND);
  sb_experiment_add_parameter (exp, "pitch", "Hz", 200, 2000);
  sb_experiment_add_parameter (exp, "loudness", "dB", -30, -6);
  g_assert_true (sb_experiment_validate (exp, &error));
  r = sb_stimulus_renderer_new (exp, folder, f->cache);
  sb_stimulus_renderer_render_async (r, x, NULL, render_done, &res);
  SPIN_UNTIL (res.done);
  g_assert_no_error (res.error);
  g_assert_true (g_file_load_contents (res.file, NULL, (char **) &wav, &len, NULL, NULL));

  g_assert_cmpuint (len, >=, 44);
  g_assert_cmpmem (wav, 4, "RIFF", 4);
  g_assert_cmpuint (le32 (wav + 4), ==, len - 8);
  g_assert_cmpmem (wav + 8, 8, "WAVEfmt ", 8);
  g_assert_cmpuint (le32 (wav + 16), ==, 16);
  g_assert_cmpuint (le16 (wav + 20), ==, 1);        /* PCM */
  g_assert_cmpuint (le16 (wav + 22), ==, 1);        /* mono */
  rate = le32 (wav + 24);
  g_assert_cmpuint (rate, ==, 16000);
  g_assert_cmpuint (le32 (wav + 28), ==, 2 * rate); /* bytes per second */
  g_assert_cmpuint (le16 (wav + 32), ==, 2);
  g_assert_cmpuint (le16 (wav + 34), ==, 16);
  g_assert_cmpmem (wav + 36, 4, "data", 4);
  g_assert_cmpuint (le32 (wav + 40), ==, len - 44);
  n = (len - 44) / 2;
  g_assert_cmpuint (n, ==, (guint32) (0.4 * rate)); /* 0.4 s */

  for (guint32 i = 0; i < n; i++)
    {
      int s = (gint16) le16 (wav + 44 + 2 * i);
      int prev = i ? (gint16) le16 (wav + 44 + 2 * (i - 1)) : 0;
      peak = MAX (peak, ABS (s));
      crossings += i > 0 && prev < 0 && s >= 0;
    }
  /* -12 dB of full scale, to the sample rounding; 440 Hz: 176 upward
   * zero crossings in 0.4 s, give or take the one cut at an end. */
  g_assert_cmpint (ABS (peak - (int) (32767 * pow (10, -12 / 20.0))), <=, 1);
  g_assert_cmpint (ABS ((int) crossings - 176), <=, 1);
  result_clear (&res);
}

/* A program without a window runs a file's command only when told to
 * (--allow-commands) or when the user allowed it in the app; a study's
 * participants go by the study's consent. The configuration folder is
 * the test's own (main). */
static void
test_command_trust_check (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sb-trust-XXXXXX", NULL);
  g_autofree char *session = g_build_filename (dir, "s.json", NULL);
  g_autofree char *study = g_build_filename (dir, "st", NULL);
  g_autofree char *participants = g_build_filename (study, "participants", NULL);
  g_autofree char *index = g_build_filename (study, "study.json", NULL);
  g_autofree char *member = g_build_filename (participants, "P-1.json", NULL);
  g_autofree char *trusted = NULL;
  const char *command = "sh -c 'touch ~/x' {output}";
  g_autoptr (GError) error = NULL;

  g_assert_false (sb_command_trust_check (session, command, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (error->message, "'sh -c 'touch ~/x' {output}'"));
  g_assert_nonnull (strstr (error->message, "--allow-commands"));
  g_clear_error (&error);
  g_assert_true (sb_command_trust_check (session, command, TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (sb_command_trust_is_allowed (session, command));   /* not remembered */

  g_assert_true (sb_command_trust_allow (session, command, &error));
  g_assert_true (sb_command_trust_check (session, command, FALSE, &error));
  g_assert_false (sb_command_trust_check (session, "other {output}", FALSE, &error));
  g_clear_error (&error);

  g_assert_cmpint (g_mkdir_with_parents (participants, 0755), ==, 0);
  g_assert_true (g_file_set_contents (index, "{}", -1, NULL));
  trusted = sb_command_trust_file_for (member);
  g_assert_cmpstr (trusted, ==, index);
  g_assert_false (sb_command_trust_check (member, command, FALSE, &error));
  g_assert_nonnull (strstr (error->message, index));
  g_clear_error (&error);
  g_assert_true (sb_command_trust_allow (index, command, &error));
  g_assert_true (sb_command_trust_check (member, command, FALSE, &error));
  g_assert_no_error (error);

  g_unlink (index);
  g_rmdir (participants);
  g_rmdir (study);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  {
    /* never the user's allowed commands or stimulus cache (set before GLib
     * reads them; G_TEST_OPTION_ISOLATE_DIRS would do it per test case,
     * but GLib keeps every previous folder name, which LeakSanitizer
     * reports) */
    g_autofree char *config = g_dir_make_tmp ("sb-config-XXXXXX", NULL);
    g_autofree char *cache = g_dir_make_tmp ("sb-cache-XXXXXX", NULL);
    g_setenv ("XDG_CONFIG_HOME", config, TRUE);
    g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/command-trust/check", test_command_trust_check);
  g_test_add_func ("/colour/oklch-css-primaries", test_oklch_css_primaries);
  g_test_add_func ("/colour/oklab-ottosson-table", test_oklab_ottosson_table);
  g_test_add_func ("/colour/gamut-mapping", test_oklch_gamut_mapping);
  g_test_add_func ("/colour/template", test_colour_template);
  g_test_add_func ("/colour/hsl-session", test_colour_hsl_session);
  g_test_add_func ("/stimulus/round-trip", test_stimulus_round_trip);
  g_test_add_func ("/stimulus/refused", test_stimulus_refused);
  g_test_add_func ("/stimulus/expand", test_stimulus_expand);
  g_test_add ("/renderer/png", Fixture, NULL, fixture_set_up, test_renderer_png, fixture_tear_down);
  g_test_add ("/renderer/resolve-command", Fixture, NULL, fixture_set_up,
              test_resolve_command, fixture_tear_down);
  g_test_add ("/renderer/background-child", Fixture, NULL, fixture_set_up,
              test_renderer_background_child, fixture_tear_down);
  g_test_add ("/renderer/stderr-bounded", Fixture, NULL, fixture_set_up,
              test_renderer_stderr_bounded, fixture_tear_down);
  g_test_add ("/renderer/cache", Fixture, NULL, fixture_set_up, test_renderer_cache,
              fixture_tear_down);
  g_test_add ("/renderer/failure", Fixture, NULL, fixture_set_up, test_renderer_failure,
              fixture_tear_down);
  g_test_add ("/renderer/timeout", Fixture, NULL, fixture_set_up, test_renderer_timeout,
              fixture_tear_down);
  g_test_add ("/renderer/no-shell", Fixture, NULL, fixture_set_up, test_renderer_no_shell,
              fixture_tear_down);
  g_test_add ("/renderer/missing-program", Fixture, NULL, fixture_set_up,
              test_renderer_missing_program, fixture_tear_down);
  g_test_add ("/renderer/example", Fixture, NULL, fixture_set_up, test_renderer_example,
              fixture_tear_down);
  g_test_add ("/renderer/tone", Fixture, NULL, fixture_set_up, test_renderer_tone,
              fixture_tear_down);
  return g_test_run ();
}
