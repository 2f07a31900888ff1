/* bench-acq-plot.c — the log-regret curves of the acquisition benchmark
 * (results-acq.md), drawn with the project's plot library.
 *
 * Usage: bench-acq-plot CURVES.csv OUT_DIR [NOTE]
 * CURVES.csv is `tests/bench/bench-acq-summary.py OUT --curves`: one row
 * per protocol, problem, arm and number of BO duels with the mean and
 * standard error over seeds of log10 regret, and the binary that made
 * the runs. For every protocol the program
 * writes OUT_DIR/results-acq-PROTOCOL.png: one panel per problem (a scene:
 * each arm's mean as a line over a band of +- 1 s.e., the y axis in regret
 * units on a log scale), panels in a grid under a header naming the
 * protocol, the metric, the seeds, the binary and NOTE. An arm keeps
 * its colour and dash in every panel; random search is dashed.
 */
#include "sb-render.h"

#include <cairo.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PANEL_W 470.0
#define PANEL_H 350.0
#define HEADER_H 44.0

/* The arms in their table order; the index picks the series colour. */
static const char *const arm_order[] = { "random", "ucb", "eiig", "epi", "thompson", "muc",
                                         "dts", "hb-ei", "hb-ucb", "qeubo" };

typedef struct {
  char *arm;
  GArray *duels, *mean, *se;   /* doubles */
  int seeds;
} Curve;

typedef struct {
  char *name;
  GPtrArray *curves;   /* Curve */
} Problem;

typedef struct {
  char *name, *metric, *binary;
  GPtrArray *problems; /* Problem */
  int min_seeds, max_seeds;
} Protocol;

static void
curve_free (Curve *c)
{
  g_free (c->arm);
  g_array_unref (c->duels);
  g_array_unref (c->mean);
  g_array_unref (c->se);
  g_free (c);
}

static void
problem_free (Problem *p)
{
  g_free (p->name);
  g_ptr_array_unref (p->curves);
  g_free (p);
}

static void
protocol_free (Protocol *p)
{
  g_free (p->name);
  g_free (p->metric);
  g_free (p->binary);
  g_ptr_array_unref (p->problems);
  g_free (p);
}

static int
arm_index (const char *arm)
{
  for (guint i = 0; i < G_N_ELEMENTS (arm_order); i++)
    if (strcmp (arm_order[i], arm) == 0)
      return (int) i;
  return (int) G_N_ELEMENTS (arm_order);
}

static Protocol *
find_protocol (GPtrArray *protocols, const char *name, const char *metric, const char *binary)
{
  for (guint i = 0; i < protocols->len; i++)
    {
      Protocol *p = protocols->pdata[i];
      if (strcmp (p->name, name) == 0)
        return p;
    }
  Protocol *p = g_new0 (Protocol, 1);
  p->name = g_strdup (name);
  p->metric = g_strdup (metric);
  p->binary = g_strdup (binary);
  p->problems = g_ptr_array_new_with_free_func ((GDestroyNotify) problem_free);
  p->min_seeds = G_MAXINT;
  g_ptr_array_add (protocols, p);
  return p;
}

static Problem *
find_problem (Protocol *proto, const char *name)
{
  for (guint i = 0; i < proto->problems->len; i++)
    {
      Problem *p = proto->problems->pdata[i];
      if (strcmp (p->name, name) == 0)
        return p;
    }
  Problem *p = g_new0 (Problem, 1);
  p->name = g_strdup (name);
  p->curves = g_ptr_array_new_with_free_func ((GDestroyNotify) curve_free);
  g_ptr_array_add (proto->problems, p);
  return p;
}

static Curve *
find_curve (Problem *prob, const char *arm)
{
  for (guint i = 0; i < prob->curves->len; i++)
    {
      Curve *c = prob->curves->pdata[i];
      if (strcmp (c->arm, arm) == 0)
        return c;
    }
  Curve *c = g_new0 (Curve, 1);
  c->arm = g_strdup (arm);
  c->duels = g_array_new (FALSE, FALSE, sizeof (double));
  c->mean = g_array_new (FALSE, FALSE, sizeof (double));
  c->se = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (prob->curves, c);
  return c;
}

static gint
compare_curves (gconstpointer a, gconstpointer b)
{
  const Curve *x = *(Curve *const *) a, *y = *(Curve *const *) b;
  return arm_index (x->arm) - arm_index (y->arm);
}

/* Reads CURVES.csv; FALSE with a message on stderr when a row is malformed. */
static gboolean
read_curves (const char *path, GPtrArray *protocols)
{
  FILE *f = fopen (path, "r");
  if (!f)
    {
      fprintf (stderr, "bench-acq-plot: cannot open %s\n", path);
      return FALSE;
    }
  char line[1024];
  int lineno = 0;
  gboolean ok = TRUE;
  while (ok && fgets (line, sizeof line, f))
    {
      lineno++;
      g_strchomp (line);
      if (lineno == 1 || line[0] == '\0')
        continue;
      g_auto (GStrv) field = g_strsplit (line, ",", -1);
      if (g_strv_length (field) != 9)
        {
          fprintf (stderr, "bench-acq-plot: %s:%d: expected 9 fields\n", path, lineno);
          ok = FALSE;
          break;
        }
      char *end;
      double duels = g_ascii_strtod (field[4], &end);
      double mean = g_ascii_strtod (field[5], NULL);
      double se = g_ascii_strtod (field[6], NULL);
      int seeds = atoi (field[7]);
      if (*end != '\0' || !isfinite (mean) || !isfinite (se) || seeds < 1)
        {
          fprintf (stderr, "bench-acq-plot: %s:%d: bad number\n", path, lineno);
          ok = FALSE;
          break;
        }
      Protocol *proto = find_protocol (protocols, field[0], field[3], field[8]);
      Curve *c = find_curve (find_problem (proto, field[1]), field[2]);
      g_array_append_val (c->duels, duels);
      g_array_append_val (c->mean, mean);
      g_array_append_val (c->se, se);
      c->seeds = seeds;
      proto->min_seeds = MIN (proto->min_seeds, seeds);
      proto->max_seeds = MAX (proto->max_seeds, seeds);
    }
  fclose (f);
  return ok;
}

/* The series colour of ARM, the same in every figure and apart for the
 * arms of the published protocols: random search grey (and dashed), UCB
 * blue, EIIG green, the believers pink and vermillion, qEUBO sky blue. */
static SbRole
arm_role (const char *arm)
{
  static const struct { const char *arm; int series; } colours[] = {
    { "random", 7 }, { "ucb", 0 }, { "eiig", 2 }, { "hb-ei", 3 }, { "hb-ucb", 4 },
    { "qeubo", 5 }, { "epi", 1 }, { "thompson", 6 }, { "muc", 1 }, { "dts", 6 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (colours); k++)
    if (strcmp (colours[k].arm, arm) == 0)
      return SB_ROLE_SERIES_0 + (SbRole) colours[k].series;
  return SB_ROLE_FOREGROUND;
}

/* One problem's scene: a band and a line per arm. */
static SbScene *
problem_scene (const Protocol *proto, const Problem *prob)
{
  const char *metric = proto->metric;
  g_autofree char *y_label = g_strdup_printf ("regret at the %s (log scale)",
                                              strcmp (metric, "winner") == 0 ? "last winner"
                                              : strcmp (metric, "box") == 0 ? "posterior-mean maximiser"
                                              : "best answered point");
  SbScene *scene = sb_scene_new (prob->name, "BO duels", y_label);
  sb_scene_set_axis_scale (scene, TRUE, SB_AXIS_LOG10, NULL);
  for (guint i = 0; i < prob->curves->len; i++)
    {
      const Curve *c = prob->curves->pdata[i];
      int k = arm_index (c->arm);
      SbRole role = arm_role (c->arm);
      gsize n = c->duels->len;
      const double *x = (const double *) c->duels->data;
      const double *m = (const double *) c->mean->data;
      const double *se = (const double *) c->se->data;
      g_autofree double *lo = g_new (double, n), *hi = g_new (double, n);
      for (gsize j = 0; j < n; j++)
        {
          lo[j] = m[j] - se[j];
          hi[j] = m[j] + se[j];
        }
      g_autofree char *band_id = g_strdup_printf ("band/%s", c->arm);
      g_autofree char *line_id = g_strdup_printf ("mean/%s", c->arm);
      SbStyle band = sb_style_line (role, 0, SB_DASH_SOLID, 0.16);
      SbStyle line = sb_style_line (role, 2.0, k == 0 ? SB_DASH_DASHED : SB_DASH_SOLID, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_band (band_id, NULL, &band, n, x, lo, hi));
      sb_scene_take_layer (scene, sb_layer_new_line (line_id, c->arm, &line, n, x, m));
    }
  return scene;
}

static gboolean
write_protocol (const Protocol *proto, const char *dir, const char *note)
{
  guint n = proto->problems->len;
  guint cols = n >= 4 ? 4 : n, rows = (n + cols - 1) / cols;
  g_autofree char *seeds = proto->min_seeds == proto->max_seeds
                             ? g_strdup_printf ("%d seeds", proto->min_seeds)
                             : g_strdup_printf ("%d-%d seeds", proto->min_seeds, proto->max_seeds);
  g_autofree char *header = g_strdup_printf ("%s protocol: mean log10 regret (%s rule) ± 1 s.e. "
                                             "over %s; binary %s%s%s", proto->name, proto->metric,
                                             seeds, proto->binary, note ? "; " : "",
                                             note ? note : "");
  /* The figure is as wide as its panels, or as its header when that is
   * wider (a protocol of one problem). */
  cairo_surface_t *probe = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *pcr = cairo_create (probe);
  cairo_select_font_face (pcr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (pcr, 17);
  cairo_text_extents_t ext;
  cairo_text_extents (pcr, header, &ext);
  cairo_destroy (pcr);
  cairo_surface_destroy (probe);
  double width = MAX (cols * PANEL_W, ceil (ext.x_advance) + 24), height = HEADER_H + rows * PANEL_H;

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) width,
                                                         (int) height);
  cairo_t *cr = cairo_create (surface);
  SbPalette palette;
  sb_palette_init_light (&palette);
  cairo_set_source_rgb (cr, palette.background.r, palette.background.g, palette.background.b);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, palette.foreground.r, palette.foreground.g, palette.foreground.b);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 17);
  cairo_move_to (cr, 12, 28);
  cairo_show_text (cr, header);

  for (guint i = 0; i < n; i++)
    {
      Problem *prob = proto->problems->pdata[i];
      g_ptr_array_sort (prob->curves, compare_curves);
      g_autoptr (SbScene) scene = problem_scene (proto, prob);
      cairo_save (cr);
      cairo_translate (cr, (i % cols) * PANEL_W, HEADER_H + (i / cols) * PANEL_H);
      cairo_rectangle (cr, 0, 0, PANEL_W, PANEL_H);
      cairo_clip (cr);
      sb_scene_render (scene, NULL, cr, PANEL_W, PANEL_H, &palette, TRUE);
      cairo_restore (cr);
    }
  g_autofree char *name = g_strdup_printf ("results-acq-%s.png", proto->name);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  cairo_status_t status = cairo_status (cr);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_write_to_png (surface, path);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      fprintf (stderr, "bench-acq-plot: %s: %s\n", path, cairo_status_to_string (status));
      return FALSE;
    }
  printf ("%s\n", path);
  return TRUE;
}

int
main (int argc, char **argv)
{
  if (argc < 3 || argc > 4)
    {
      fprintf (stderr, "usage: bench-acq-plot CURVES.csv OUT_DIR [NOTE]\n");
      return 2;
    }
  g_autoptr (GPtrArray) protocols = g_ptr_array_new_with_free_func ((GDestroyNotify) protocol_free);
  if (!read_curves (argv[1], protocols))
    return 1;
  if (protocols->len == 0)
    {
      fprintf (stderr, "bench-acq-plot: %s has no curves\n", argv[1]);
      return 1;
    }
  for (guint i = 0; i < protocols->len; i++)
    if (!write_protocol (protocols->pdata[i], argv[2], argc == 4 ? argv[3] : NULL))
      return 1;
  return 0;
}
