/* test-plot-population.c — the Study view's population plot as a scene
 * (plot/sb-render-population.h), without a display: from a hand-made
 * model result, g's band and mean, a line per participant (the
 * highlighted one drawn on its own), the population best, the fixed
 * coordinates named under the title, a log-scale parameter drawn on a
 * log axis (log10 coordinates), and an empty scene that says why. */
#include "sb-render-population.h"
#include "sb-study-report.h"
#include "test-font-release.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define N 5

/* A result with curves along both parameters of EXP, two participants:
 * g's mean 1 + i with the band +-1, person p's mean 1 + i + p. */
static SbPopulationResult *
fake_result (const SbExperiment *exp)
{
  SbPopulationResult *r = g_new0 (SbPopulationResult, 1);

  r->dim = exp->n_parameters;
  r->n_people = 2;
  r->n_answers = 10;
  r->people = g_new0 (SbPersonResult, 2);
  r->people[0].code = g_strdup ("A");
  r->people[1].code = g_strdup ("B");
  r->best[0] = 10;
  r->best[1] = 0.5;
  r->mean = 3;
  r->plot = g_new0 (SbPopulationPlot, 1);
  r->plot->dim = exp->n_parameters;
  r->plot->n_people = 2;
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      SbPopulationCurve *c = &r->plot->curves[j];
      const SbParameter *p = &exp->parameters[j];
      c->n = N;
      c->x = g_new (double, N);
      c->g = g_new0 (sg_point_summary, N);
      c->person_mean = g_new (double, 2 * N);
      for (guint i = 0; i < N; i++)
        {
          c->x[i] = p->scale == SB_SCALE_LOG ? p->lower * pow (p->upper / p->lower, i / (N - 1.0))
                                             : p->lower + (p->upper - p->lower) * i / (N - 1.0);
          c->g[i].mean = 1 + i;
          c->g[i].lower = i;
          c->g[i].upper = 2 + i;
          c->person_mean[i] = 1 + i;
          c->person_mean[N + i] = 2 + i;
        }
    }
  return r;
}

static SbExperiment *
experiment (void)
{
  SbExperiment *exp = sb_experiment_new ();

  g_assert_true (sb_experiment_add_parameter (exp, "gain", "dB", 1.0, 1000.0));
  exp->parameters[0].scale = SB_SCALE_LOG;
  g_assert_true (sb_experiment_add_parameter (exp, "y", "", 0.0, 1.0));
  return exp;
}

static void
test_layers (void)
{
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (SbPopulationResult) r = fake_result (exp);
  g_autoptr (SbScene) all = sb_population_scene_new (exp, r, 0, -1);
  g_autoptr (SbScene) one = sb_population_scene_new (exp, r, 0, 1);
  double x0, x1, y0, y1;
  SbLayer *layer;

  g_assert_nonnull (sb_scene_find_layer (all, "band/g"));
  g_assert_nonnull (sb_scene_find_layer (all, "mean/g"));
  g_assert_nonnull (sb_scene_find_layer (all, "best/population"));
  g_assert_null (sb_scene_find_layer (all, "person/highlight"));
  g_assert_cmpstr (sb_scene_get_subtitle (all), ==, "others at the population best: y = 0.5");
  /* both participants as thin lines: 2 rows of N points */
  layer = sb_scene_find_layer (all, "people");
  g_assert_nonnull (layer);
  g_assert_true (sb_layer_get_extent (layer, &x0, &x1, &y0, &y1));
  g_assert_cmpfloat (y0, ==, 1);
  g_assert_cmpfloat (y1, ==, N + 1);
  /* the log axis: log10 of 1 .. 1000 */
  g_assert_true (sb_layer_get_extent (sb_scene_find_layer (all, "band/g"), &x0, &x1, &y0, &y1));
  g_assert_cmpfloat_with_epsilon (x0, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (x1, 3, 1e-12);
  g_assert_true (sb_layer_get_extent (sb_scene_find_layer (all, "best/population"), &x0, &x1,
                                      &y0, &y1));
  g_assert_cmpfloat_with_epsilon (x0, 1, 1e-12);
  g_assert_cmpfloat (y0, ==, 3);

  /* B highlighted: their own line, A alone among the others */
  layer = sb_scene_find_layer (one, "person/highlight");
  g_assert_nonnull (layer);
  g_assert_cmpstr (sb_layer_get_label (layer), ==, "B's f_p");
  g_assert_true (sb_layer_get_extent (layer, &x0, &x1, &y0, &y1));
  g_assert_cmpfloat (y0, ==, 2);
  g_assert_true (sb_layer_get_extent (sb_scene_find_layer (one, "people"), &x0, &x1, &y0, &y1));
  g_assert_cmpfloat (y1, ==, N);

  /* along y: gain named at its best */
  {
    g_autoptr (SbScene) along_y = sb_population_scene_new (exp, r, 1, 7);
    g_assert_cmpstr (sb_scene_get_subtitle (along_y), ==, "others at the population best: gain = 10");
    g_assert_null (sb_scene_find_layer (along_y, "person/highlight"));
  }
}

static void
test_empty_and_export (void)
{
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (SbPopulationResult) r = fake_result (exp);
  g_autoptr (SbScene) none = sb_population_scene_new (exp, NULL, 0, -1);
  g_autoptr (SbScene) scene = sb_population_scene_new (exp, r, 0, 0);
  g_autofree char *dir = g_dir_make_tmp ("sb-plot-population-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "population.png", NULL);
  g_autoptr (GError) error = NULL;
  SbPalette palette;

  g_assert_cmpuint (sb_scene_get_n_layers (none), ==, 0);
  g_assert_cmpstr (sb_scene_get_subtitle (none), ==, "no population model");
  sb_palette_init_light (&palette);
  g_assert_true (sb_scene_export (scene, NULL, &palette, path, SB_EXPORT_PNG, 480, 320, 1, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_unlink (path);
  g_rmdir (dir);
}


/* Pages of the PDF at PATH: its "/Type /Page" objects (cairo writes the
 * page dictionaries uncompressed). */
static guint
pdf_pages (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  guint n = 0;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_true (len > 5 && memcmp (data, "%PDF-", 5) == 0);
  /* memmem: the file has binary streams with NUL bytes */
  for (const char *p = data; (p = memmem (p, len - (p - data), "/Type /Page", 11)); p++)
    if ((gsize) (p - data) + 11 < len && p[11] != 's')
      n++;
  return n;
}

/* The study report: one A4 page holding the title, the model, the
 * population plot and the roster; a roster of 90 participants ends with
 * the count of those left out; a participant with no answers shows no
 * P(best differs) (checked through the rows' cells indirectly: the page
 * is written whatever the model says of them). */
static void
test_report (void)
{
  g_autoptr (SbExperiment) exp = experiment ();
  g_autoptr (SbPopulationResult) r = fake_result (exp);
  g_autofree char *dir = g_dir_make_tmp ("sb-report-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "report.pdf", NULL);
  g_autofree SbReportRow *rows = g_new0 (SbReportRow, 90);
  g_autoptr (GPtrArray) codes = g_ptr_array_new_with_free_func (g_free);
  SbStudyReport report = { "colour-lab", exp, r, 0, rows, 0, "2026-11-29" };
  g_autoptr (GError) error = NULL;
  SbReportLayout lay;

  g_free (exp->title);
  exp->title = g_strdup ("Favourite gain");
  r->people[0].prob_best_differs = 0.12;
  r->people[0].n_answers = 10;
  r->people[1].prob_best_differs = NAN;
  for (guint i = 0; i < 90; i++)
    {
      char *code = g_strdup_printf ("P-%04u", i);
      g_ptr_array_add (codes, code);
      rows[i].code = code;
      rows[i].ok = i != 3;
      rows[i].error = i == 3 ? "no such file" : NULL;
      rows[i].summary.answered = i % 30;
      rows[i].summary.budget = 30;
      rows[i].summary.consistency.n_repeats = 6;
      rows[i].summary.consistency.n_agree = 5;
    }
  for (guint n = 5; n <= 90; n += 85)
    {
      report.n_rows = n;
      g_assert_true (sb_study_report_write_pdf (&report, path, &lay, &error));
      g_assert_no_error (error);
      g_test_message ("%u participants: %u rows shown, plot %.0fx%.0f at %.0f, bottom %.0f of %.0f",
                      n, lay.rows_shown, lay.plot_w, lay.plot_h, lay.plot_y, lay.bottom, lay.height);
      g_assert_cmpuint (pdf_pages (path), ==, 1);
      g_assert_cmpfloat (lay.plot_x, >=, 0);
      g_assert_cmpfloat (lay.plot_x + lay.plot_w, <=, lay.width);
      g_assert_cmpfloat (lay.plot_h, >=, 200);
      g_assert_cmpfloat (lay.bottom, <=, lay.height);
      if (n == 5)
        g_assert_cmpuint (lay.rows_shown, ==, 5);
      else
        {
          g_assert_cmpuint (lay.rows_shown, <, 90);
          g_assert_cmpuint (lay.rows_shown, >=, 20);
        }
    }
  /* a path that cannot be written: an error naming it */
  g_assert_false (sb_study_report_write_pdf (&report, "/nonexistent-dir/report.pdf", NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/report.pdf"));
  if (g_getenv ("SB_REPORT_PDF"))
    g_assert_true (sb_study_report_write_pdf (&report, g_getenv ("SB_REPORT_PDF"), NULL, NULL));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plot/population/layers", test_layers);
  g_test_add_func ("/plot/population/empty-and-export", test_empty_and_export);
  g_test_add_func ("/plot/population/report", test_report);
  int status = g_test_run ();
  test_font_release ();
  return status;
}
