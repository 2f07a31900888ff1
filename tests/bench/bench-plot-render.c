/* bench-plot-render.c — what a live update of each plot costs on the main
 * loop: building the scene from a snapshot, comparing it with the one shown
 * (which layers need a redraw), drawing it whole, and a hover read-out.
 *
 * Run:  G_TEST_SRCDIR=tests build/tests/bench/bench-plot-render [reps]
 * (meson test --benchmark sets G_TEST_SRCDIR). Prints a table of medians in
 * milliseconds. No BLAS is involved: the numbers are Cairo/Pango bound.
 */
#include "sb-render-views.h"
#include "test-plot-fixture.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  const char *name;
  const char *file;
  SbPlotKind kind;
  SbField field;
} Case;

static const Case cases[] = {
  { "posterior+compare", "plot-1d.ini", SB_PLOT_POSTERIOR, 0 },
  { "skewness", "plot-1d.ini", SB_PLOT_SKEWNESS, 0 },
  { "acquisition", "plot-1d.ini", SB_PLOT_ACQUISITION, 0 },
  { "validity", "plot-safe.ini", SB_PLOT_VALIDITY, 0 },
  { "heatmap mean+compare", "plot-2d.ini", SB_PLOT_HEATMAP, SB_FIELD_MEAN },
  { "heatmap skewness", "plot-2d.ini", SB_PLOT_HEATMAP, SB_FIELD_SKEWNESS },
  { "density+compare", "plot-1d.ini", SB_PLOT_DENSITY, 0 },
  { "convergence", "plot-1d.ini", SB_PLOT_CONVERGENCE, 0 },
  { "hyperparameters", "plot-1d.ini", SB_PLOT_HYPERPARAMETERS, 0 },
};

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

int
main (int argc, char *argv[])
{
  int reps = argc > 1 ? atoi (argv[1]) : 30;
  const double W = 1000, H = 600;
  g_test_init (&argc, &argv, NULL);
  if (reps < 3)
    reps = 3;

  printf ("# plot update costs, %gx%g ARGB32 image surface, median of %d runs (ms)\n", W, H, reps);
  printf ("%-22s %7s %7s %9s %9s %7s %7s\n", "view", "layers", "build", "compare",
          "1st draw", "redraw", "hover");
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (SbDensityData) d = NULL;
      g_autoptr (SbPlotSnapshot) s = plot_fixture_load (cases[c].file, &d);
      SbPlotOptions o;
      sb_plot_options_init (&o, cases[c].kind);
      o.field = cases[c].field;
      o.compare[SB_SURROGATE_LAPLACE] = o.compare[SB_SURROGATE_EP] = TRUE;
      o.show_truth = TRUE;
      double *tb = g_new (double, reps), *tc = g_new (double, reps), *t1 = g_new (double, reps);
      double *tr = g_new (double, reps), *th = g_new (double, reps);
      guint n_layers = 0;
      SbPalette p;
      sb_palette_init_light (&p);
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
      cairo_t *cr = cairo_create (surface);

      for (int r = 0; r < reps; r++)
        {
          double t0 = now_ms ();
          SbScene *a = sb_plot_build (&o, s, d);
          double t_1 = now_ms ();
          SbScene *b = sb_plot_build (&o, s, d);
          /* What SbChart does on a new result: match layers and compare. */
          double t_2 = now_ms ();
          guint same = 0;
          for (guint i = 0; i < sb_scene_get_n_layers (b); i++)
            {
              SbLayer *lb = sb_scene_get_layer (b, i);
              same += sb_layer_equal (sb_scene_find_layer (a, sb_layer_get_id (lb)), lb);
            }
          double t_3 = now_ms ();
          g_assert_cmpuint (same, ==, sb_scene_get_n_layers (b));
          /* First draw computes heatmap images; a redraw reuses them. */
          sb_scene_render (a, NULL, cr, W, H, &p, TRUE);
          cairo_surface_flush (surface);
          double t_4 = now_ms ();
          sb_scene_render (a, NULL, cr, W, H, &p, TRUE);
          cairo_surface_flush (surface);
          double t_5 = now_ms ();
          SbFrame f;
          sb_scene_layout (a, NULL, cr, W, H, &f);
          sb_scene_render_hover (a, cr, &f, &p, f.px + f.pw / 2, f.py + f.ph / 2);
          cairo_surface_flush (surface);
          double t_6 = now_ms ();
          tb[r] = t_1 - t0;
          tc[r] = t_3 - t_2;
          t1[r] = t_4 - t_3;
          tr[r] = t_5 - t_4;
          th[r] = t_6 - t_5;
          n_layers = sb_scene_get_n_layers (a);
          sb_scene_unref (a);
          sb_scene_unref (b);
        }
      printf ("%-22s %7u %7.2f %9.3f %9.2f %7.2f %7.2f\n", cases[c].name, n_layers,
              median (tb, reps), median (tc, reps), median (t1, reps), median (tr, reps),
              median (th, reps));
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
      g_free (tb); g_free (tc); g_free (t1); g_free (tr); g_free (th);
    }

  /* Per layer: what a chart redraws when only that layer changed (the
   * others keep their cached drawings). */
  static const gsize per_layer[] = { 0, 4 };
  for (gsize k = 0; k < G_N_ELEMENTS (per_layer); k++)
    {
      const Case *cs = &cases[per_layer[k]];
      g_autoptr (SbDensityData) d = NULL;
      g_autoptr (SbPlotSnapshot) s = plot_fixture_load (cs->file, &d);
      SbPlotOptions o;
      sb_plot_options_init (&o, cs->kind);
      o.field = cs->field;
      o.compare[SB_SURROGATE_LAPLACE] = o.compare[SB_SURROGATE_EP] = TRUE;
      o.show_truth = TRUE;
      g_autoptr (SbScene) scene = sb_plot_build (&o, s, d);
      SbPalette p;
      sb_palette_init_light (&p);
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
      cairo_t *cr = cairo_create (surface);
      SbFrame f;
      sb_scene_layout (scene, NULL, cr, W, H, &f);
      double *t = g_new (double, reps);
      printf ("\n# %s: one layer drawn alone, median of %d runs (ms)\n", cs->name, reps);
      for (int r = 0; r < reps; r++)
        {
          double t0 = now_ms ();
          sb_scene_render_axes (scene, cr, &f, &p, TRUE);
          cairo_surface_flush (surface);
          t[r] = now_ms () - t0;
        }
      printf ("%-22s %9.2f\n", "(axes, legend)", median (t, reps));
      for (guint i = 0; i < sb_scene_get_n_layers (scene); i++)
        {
          SbLayer *l = sb_scene_get_layer (scene, i);
          for (int r = 0; r < reps; r++)
            {
              double t0 = now_ms ();
              sb_layer_render (l, cr, &f, &p);
              cairo_surface_flush (surface);
              t[r] = now_ms () - t0;
            }
          printf ("%-22s %9.2f\n", sb_layer_get_id (l), median (t, reps));
        }
      g_free (t);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
    }
  return 0;
}
