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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
minimum (const double *v, int n)
{
  double m = v[0];
  for (int i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

/* CPU time of this thread: on a machine shared with other busy processes
 * the wall-clock time mostly measures how often the thread was
 * descheduled; the CPU time is the work the frame costs. */
static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A 2-D snapshot with a 200 x 200 mean field (the frame budget):
 * the negated Six-hump camel on [-2,2]x[-1,1] (smooth, several extrema,
 * so its contours are long), with the 2-D fixture's observations, best
 * point and next duel. */
static SbPlotSnapshot *
heatmap_200 (void)
{
  g_autoptr (SbPlotSnapshot) fx = plot_fixture_load ("plot-2d.ini", NULL);
  SbPlotSnapshot *s = sb_plot_snapshot_new (2, 1);
  enum { N = 200 };
  double *v = g_new (double, N * N), fixed[2] = { 0, 0 };

  for (guint i = 0; i < 2; i++)
    {
      double lo, hi;
      const char *name = sb_plot_snapshot_get_parameter (fx, i, &lo, &hi);
      sb_plot_snapshot_set_parameter (s, i, name, lo, hi);
    }
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++)
      {
        double x = -2 + 4.0 * i / (N - 1), y = -1 + 2.0 * j / (N - 1);
        v[j * N + i] = -((4 - 2.1 * x * x + pow (x, 4) / 3) * x * x + x * y
                         + (-4 + 4 * y * y) * y * y);
      }
  sb_plot_snapshot_set_slice (s, 0, 1, fixed);
  g_autoptr (SbGrid2) g = sb_grid2_new (N, N, -2, 2, -1, 1, v);
  sb_plot_snapshot_set_field (s, SB_FIELD_MEAN, SB_POSTERIOR_EXACT, g);
  for (gsize i = 0; i < sb_plot_snapshot_get_n_observations (fx); i++)
    {
      const SbObservation *o = sb_plot_snapshot_get_observation (fx, i);
      sb_plot_snapshot_add_observation (s, o->kind, o->x, o->x_loser, o->y);
    }
  const double *nb = NULL, *na = sb_plot_snapshot_get_next (fx, &nb);
  if (sb_plot_snapshot_get_best (fx))
    sb_plot_snapshot_set_best (s, sb_plot_snapshot_get_best (fx));
  if (na)
    sb_plot_snapshot_set_next (s, na, nb);
  sb_plot_snapshot_freeze (s);
  g_free (v);
  return s;
}

/* The frame budget: a full redraw of a window showing a 200 x
 * 200 heat map (with its contours, observations and markers) and four
 * plots (posterior with the Laplace/EP overlays, acquisition, P(valid),
 * convergence), every layer drawn afresh, on one 1600 x 900 surface: the
 * heat map fills the left half, the four plots a 2 x 2 grid on the right.
 * The scenes are built once (a new result rebuilds only its scene). The
 * first draw also turns the 200 x 200 field into its colour image; a
 * redraw (resize, theme change, zoom) reuses it. */
static void
frame_budget (int reps)
{
  const double W = 1600, H = 900;
  g_autoptr (SbPlotSnapshot) s2 = heatmap_200 ();
  g_autoptr (SbDensityData) d = NULL;
  g_autoptr (SbPlotSnapshot) s1 = plot_fixture_load ("plot-1d.ini", &d);
  g_autoptr (SbPlotSnapshot) ss = plot_fixture_load ("plot-safe.ini", NULL);
  const struct { SbPlotKind kind; SbPlotSnapshot *snap; double x, y, w, h; } tiles[] = {
    { SB_PLOT_HEATMAP, s2, 0, 0, W / 2, H },
    { SB_PLOT_POSTERIOR, s1, W / 2, 0, W / 4, H / 2 },
    { SB_PLOT_ACQUISITION, s1, 3 * W / 4, 0, W / 4, H / 2 },
    { SB_PLOT_VALIDITY, ss, W / 2, H / 2, W / 4, H / 2 },
    { SB_PLOT_CONVERGENCE, s1, 3 * W / 4, H / 2, W / 4, H / 2 },
  };
  enum { T = G_N_ELEMENTS (tiles) };
  SbScene *scenes[T];
  SbPalette p;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cairo_t *cr = cairo_create (surface);
  double *first = g_new (double, reps), *again = g_new (double, reps);
  double *first_cpu = g_new (double, reps), *again_cpu = g_new (double, reps);
  double *tile = g_new (double, (gsize) reps * T);

  sb_palette_init_light (&p);
  for (int r = 0; r < reps; r++)
    {
      for (int k = 0; k < T; k++)
        {
          SbPlotOptions o;
          sb_plot_options_init (&o, tiles[k].kind);
          o.compare[SB_POSTERIOR_LAPLACE] = o.compare[SB_POSTERIOR_EP] = TRUE;
          scenes[k] = sb_plot_build (&o, tiles[k].snap, d);
        }
      for (int pass = 0; pass < 2; pass++)
        {
          double t0 = now_ms (), c0 = cpu_ms ();
          cairo_set_source_rgb (cr, 1, 1, 1);
          cairo_paint (cr);
          for (int k = 0; k < T; k++)
            {
              double tk = cpu_ms ();
              cairo_save (cr);
              cairo_translate (cr, tiles[k].x, tiles[k].y);
              sb_scene_render (scenes[k], NULL, cr, tiles[k].w, tiles[k].h, &p, TRUE);
              cairo_restore (cr);
              cairo_surface_flush (surface);
              if (pass == 1)
                tile[k * reps + r] = cpu_ms () - tk;
            }
          cairo_surface_flush (surface);
          (pass == 0 ? first : again)[r] = now_ms () - t0;
          (pass == 0 ? first_cpu : again_cpu)[r] = cpu_ms () - c0;
        }
      for (int k = 0; k < T; k++)
        sb_scene_unref (scenes[k]);
    }
  printf ("\n# frame budget: full redraw of a %gx%g window, 200x200 heat map + four plots,"
          " %d runs (ms)\n", W, H, reps);
  printf ("%-32s %9s %9s\n", "", "median", "min");
  printf ("%-32s %9.2f %9.2f\n", "first draw, CPU time", median (first_cpu, reps), minimum (first_cpu, reps));
  printf ("%-32s %9.2f %9.2f\n", "full redraw, CPU time", median (again_cpu, reps), minimum (again_cpu, reps));
  printf ("%-32s %9.2f %9.2f\n", "first draw, wall clock", median (first, reps), minimum (first, reps));
  printf ("%-32s %9.2f %9.2f\n", "full redraw, wall clock", median (again, reps), minimum (again, reps));
  printf ("  full redraw per plot, CPU time:\n");
  for (int k = 0; k < T; k++)
    printf ("  %-30s %9.2f %9.2f\n", sb_plot_kind_title (tiles[k].kind),
            median (tile + k * reps, reps), minimum (tile + k * reps, reps));

  /* Where a redraw's time goes: layout (text measurement), axes and
   * legend, each layer. */
  for (int k = 0; k < 2; k++)
    {
      SbPlotOptions o;
      sb_plot_options_init (&o, tiles[k].kind);
      o.compare[SB_POSTERIOR_LAPLACE] = o.compare[SB_POSTERIOR_EP] = TRUE;
      g_autoptr (SbScene) scene = sb_plot_build (&o, tiles[k].snap, d);
      SbFrame f;
      double *t = g_new (double, reps);
      printf ("  # %s, by part\n", sb_plot_kind_title (tiles[k].kind));
      sb_scene_render (scene, NULL, cr, tiles[k].w, tiles[k].h, &p, TRUE);
      for (int r = 0; r < reps; r++)
        {
          double t0 = now_ms ();
          sb_scene_layout (scene, NULL, cr, tiles[k].w, tiles[k].h, &f);
          t[r] = now_ms () - t0;
        }
      printf ("  %-30s %9.2f %9.2f\n", "(layout)", median (t, reps), minimum (t, reps));
      for (int r = 0; r < reps; r++)
        {
          double t0 = now_ms ();
          sb_scene_render_axes (scene, cr, &f, &p, TRUE);
          cairo_surface_flush (surface);
          t[r] = now_ms () - t0;
        }
      printf ("  %-30s %9.2f %9.2f\n", "(axes, legend)", median (t, reps), minimum (t, reps));
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
          printf ("  %-30s %9.2f %9.2f\n", sb_layer_get_id (l), median (t, reps), minimum (t, reps));
        }
      g_free (t);
    }
  g_free (first);
  g_free (again);
  g_free (first_cpu);
  g_free (again_cpu);
  g_free (tile);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
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
      o.compare[SB_POSTERIOR_LAPLACE] = o.compare[SB_POSTERIOR_EP] = TRUE;
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
      o.compare[SB_POSTERIOR_LAPLACE] = o.compare[SB_POSTERIOR_EP] = TRUE;
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

  frame_budget (reps);
  return 0;
}
