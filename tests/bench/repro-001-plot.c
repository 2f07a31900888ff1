/* repro-001-plot.c — averaged BO curves for build-aux/repro-001 (paper 001
 * Figures 11, 12, 15), drawn with Cairo, plus a CSV of the numbers.
 *
 * Usage: repro-001-plot MANIFEST
 *        repro-001-plot --compact FILE   (rewrite one run file in place,
 *                                         keeping only what the figures use)
 * The manifest (written by build-aux/repro-001) is a list of lines:
 *   figure OUT_BASENAME ROWS COLS TITLE...   starts a figure
 *   panel TITLE...                           starts a panel
 *   curve LABEL FILE...                      one curve: `skewgp bo` JSON Lines
 *                                            outputs (one per trial)
 *   metric FIELD                             the per-iteration field averaged
 *                                            by the figure's curves (default
 *                                            best_value; active learning:
 *                                            accuracy)
 * For every curve the true objective at x_r (best_value) after each BO
 * iteration (iteration 0 = after the initial design) is averaged
 * over the trials; the panel also shows the problem's optimum (dashed; the
 * mean of the runs' optima for random families such as safe-gp1d).
 * Writes OUT_BASENAME.png, OUT_BASENAME.pdf, OUT_BASENAME.csv
 * (panel,curve,iteration,mean,sd,trials,violations) and OUT_BASENAME.md (a
 * Markdown table of every curve's last iteration: mean +- standard error
 * over the trials, the number of trials, and for safe BO the violations).
 * Missing run files (not run yet) are skipped silently; a run that failed
 * ends with a {"failed":true} line and counts up to where it stopped.
 */
#include <cairo-pdf.h>
#include <cairo.h>
#include <json-glib/json-glib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITER 1024

typedef struct {
  char *label;
  int n_iter;                  /* longest run                          */
  double sum[MAX_ITER], sum2[MAX_ITER];
  int count[MAX_ITER];
  int trials;
  int failed;                  /* runs that stopped on an error        */
  long violations;
} curve;

typedef struct {
  char *title;
  GPtrArray *curves;
  double optimum;
  double optimum_acc[2];   /* sum, count over the runs */
} panel;

typedef struct {
  char *base, *title;
  int rows, cols;
  GPtrArray *panels;
  char *metric;            /* the averaged field */
} figure;

static void
add_point (curve *c, int k, double v)
{
  if (k >= MAX_ITER || !isfinite (v))
    return;
  c->sum[k] += v;
  c->sum2[k] += v * v;
  c->count[k]++;
  if (k + 1 > c->n_iter)
    c->n_iter = k + 1;
}

/* Adds one run (a JSON Lines file) to curve C; accumulates its optimum
 * into OPTIMUM[0] (sum) and OPTIMUM[1] (count). */
static void
add_run (curve *c, const char *path, double *optimum, const char *metric)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;  /* not run (yet) */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  double last = NAN;
  int k = 0, started = 0;
  for (char **l = lines; *l; l++)
    {
      if (**l == '\0')
        continue;
      g_autoptr (JsonParser) p = json_parser_new ();
      if (!json_parser_load_from_data (p, *l, -1, NULL))
        continue;
      JsonObject *o = json_node_get_object (json_parser_get_root (p));
      if (json_object_has_member (o, "failed"))
        {
          c->failed++;
          continue;
        }
      if (json_object_has_member (o, "summary"))
        {
          if (json_object_has_member (o, "optimum")
              && !json_node_is_null (json_object_get_member (o, "optimum")))
            {
              /* the mean over runs: random problem families (safe-gp1d)
               * have one optimum per seed */
              optimum[0] += json_object_get_double_member (o, "optimum");
              optimum[1] += 1;
            }
          c->violations += json_object_get_int_member_with_default (o, "violations", 0);
          continue;
        }
      gboolean initial = json_object_get_boolean_member_with_default (o, "initial", FALSE);
      if (!initial && !started)
        {
          /* iteration 0: the state after the initial design */
          started = 1;
          add_point (c, k++, last);
        }
      JsonNode *bv = json_object_get_member (o, metric);
      if (bv && !json_node_is_null (bv))
        last = json_node_get_double (bv);
      if (!initial)
        add_point (c, k++, last);
    }
  c->trials++;
}

static int
parse_manifest (const char *path, GPtrArray *figures)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (path, &text, NULL, &error))
    {
      fprintf (stderr, "repro-001-plot: %s\n", error->message);
      return 0;
    }
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  figure *f = NULL;
  panel *pa = NULL;
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) tok = g_strsplit_set (g_strstrip (*l), " \t", -1);
      if (tok[0] == NULL || tok[0][0] == '\0' || tok[0][0] == '#')
        continue;
      if (strcmp (tok[0], "figure") == 0 && g_strv_length (tok) >= 4)
        {
          f = g_new0 (figure, 1);
          f->base = g_strdup (tok[1]);
          f->rows = atoi (tok[2]);
          f->cols = atoi (tok[3]);
          f->title = tok[4] ? g_strjoinv (" ", tok + 4) : g_strdup ("");
          f->panels = g_ptr_array_new ();
          f->metric = g_strdup ("best_value");
          g_ptr_array_add (figures, f);
          pa = NULL;
        }
      else if (strcmp (tok[0], "metric") == 0 && f && tok[1])
        {
          g_free (f->metric);
          f->metric = g_strdup (tok[1]);
        }
      else if (strcmp (tok[0], "panel") == 0 && f)
        {
          pa = g_new0 (panel, 1);
          pa->title = tok[1] ? g_strjoinv (" ", tok + 1) : g_strdup ("");
          pa->curves = g_ptr_array_new ();
          pa->optimum = NAN;
          g_ptr_array_add (f->panels, pa);
        }
      else if (strcmp (tok[0], "curve") == 0 && pa && tok[1])
        {
          curve *c = g_new0 (curve, 1);
          c->label = g_strdup (tok[1]);
          for (char **file = tok + 2; *file; file++)
            if (**file)
              add_run (c, *file, pa->optimum_acc, f->metric);
          if (pa->optimum_acc[1] > 0)
            pa->optimum = pa->optimum_acc[0] / pa->optimum_acc[1];
          g_ptr_array_add (pa->curves, c);
        }
    }
  return 1;
}

static const double palette[][3] = {
  { 0.00, 0.45, 0.70 }, { 0.84, 0.37, 0.00 }, { 0.00, 0.62, 0.45 },
  { 0.50, 0.50, 0.50 }, { 0.80, 0.47, 0.65 }, { 0.94, 0.89, 0.26 },
};

static void
legend_label (const curve *c, char *buf, size_t size)
{
  if (c->violations > 0)
    snprintf (buf, size, "%s (n=%d, %ld violations)", c->label, c->trials, c->violations);
  else
    snprintf (buf, size, "%s (n=%d)", c->label, c->trials);
}

/* Where a panel's data go on the page: the plot box and its ranges. */
typedef struct {
  double px, py, pw, ph;   /* plot box */
  int nmax;                /* iterations on the x axis */
  double lo, hi;           /* y range */
} frame;

static double
frame_x (const frame *f, int k)
{
  return f->px + f->pw * (double) k / (double) MAX (1, f->nmax - 1);
}

static double
frame_y (const frame *f, double v)
{
  return f->py + f->ph * (1 - (v - f->lo) / (f->hi - f->lo));
}

/* Curve points (pixels) of PA inside the box (BX, BY, BW, BH). */
static int
points_under (const panel *pa, const frame *f, double bx, double by, double bw, double bh)
{
  int n = 0;
  for (guint i = 0; i < pa->curves->len; i++)
    {
      const curve *c = g_ptr_array_index (pa->curves, i);
      for (int k = 0; k < c->n_iter; k++)
        if (c->count[k])
          {
            double x = frame_x (f, k), y = frame_y (f, c->sum[k] / c->count[k]);
            n += x >= bx && x <= bx + bw && y >= by && y <= by + bh;
          }
    }
  return n;
}

/* The legend, on white, in the corner of the plot box that hides the
 * fewest curve points (the lower right on ties: the curves rise from the
 * lower left towards the dashed optimum at the top). */
static void
draw_legend (cairo_t *cr, const panel *pa, const frame *f)
{
  char buf[96];
  double wmax = 0;
  for (guint i = 0; i < pa->curves->len; i++)
    {
      cairo_text_extents_t ext;
      legend_label (g_ptr_array_index (pa->curves, i), buf, sizeof buf);
      cairo_text_extents (cr, buf, &ext);
      wmax = fmax (wmax, ext.x_advance);
    }
  double bw = wmax + 34, bh = 11.0 * pa->curves->len + 8;
  const double corners[4][2] = {
    { f->px + f->pw - bw - 6, f->py + f->ph - bh - 6 },   /* lower right */
    { f->px + 6, f->py + f->ph - bh - 6 },                /* lower left */
    { f->px + f->pw - bw - 6, f->py + 6 },                /* upper right */
    { f->px + 6, f->py + 6 },                             /* upper left */
  };
  int best = 0, best_n = INT_MAX;
  for (int c = 0; c < 4; c++)
    {
      int n = points_under (pa, f, corners[c][0], corners[c][1], bw, bh);
      if (n < best_n)
        best = c, best_n = n;
    }
  double bx = corners[best][0], by = corners[best][1];
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_rectangle (cr, bx, by, bw, bh);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 0.6, 0.6, 0.6);
  cairo_set_line_width (cr, 0.8);
  cairo_stroke (cr);
  for (guint i = 0; i < pa->curves->len; i++)
    {
      const double *col = palette[i % G_N_ELEMENTS (palette)];
      cairo_set_source_rgb (cr, col[0], col[1], col[2]);
      cairo_set_line_width (cr, 1.8);
      cairo_move_to (cr, bx + 6, by + 9 + 11 * i);
      cairo_rel_line_to (cr, 14, 0);
      cairo_stroke (cr);
      cairo_set_source_rgb (cr, 0, 0, 0);
      legend_label (g_ptr_array_index (pa->curves, i), buf, sizeof buf);
      cairo_move_to (cr, bx + 24, by + 12 + 11 * i);
      cairo_show_text (cr, buf);
    }
}

static void
draw_panel (cairo_t *cr, const panel *pa, double x0, double y0, double w, double h)
{
  double ml = 52, mr = 10, mt = 22, mb = 30;
  double px = x0 + ml, py = y0 + mt, pw = w - ml - mr, ph = h - mt - mb;
  /* ranges */
  int nmax = 1;
  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < pa->curves->len; i++)
    {
      const curve *c = g_ptr_array_index (pa->curves, i);
      nmax = MAX (nmax, c->n_iter);
      for (int k = 0; k < c->n_iter; k++)
        if (c->count[k])
          {
            double m = c->sum[k] / c->count[k];
            lo = fmin (lo, m);
            hi = fmax (hi, m);
          }
    }
  if (isfinite (pa->optimum))
    {
      lo = fmin (lo, pa->optimum);
      hi = fmax (hi, pa->optimum);
    }
  if (!isfinite (lo))
    lo = 0, hi = 1;
  if (hi - lo < 1e-9)
    hi = lo + 1;
  double pad = 0.05 * (hi - lo);
  lo -= pad;
  hi += pad;
  const frame fr = { px, py, pw, ph, nmax, lo, hi };
#define SX(k) frame_x (&fr, (k))
#define SY(v) frame_y (&fr, (v))
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, px, py, pw, ph);
  cairo_stroke (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 12);
  cairo_move_to (cr, px, y0 + 15);
  cairo_show_text (cr, pa->title);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 9);
  char buf[64];
  for (int t = 0; t <= 4; t++)
    {
      double v = lo + (hi - lo) * t / 4;
      snprintf (buf, sizeof buf, "%.3g", v);
      cairo_move_to (cr, x0 + 4, SY (v) + 3);
      cairo_show_text (cr, buf);
      int k = (int) lround ((double) (nmax - 1) * t / 4);
      snprintf (buf, sizeof buf, "%d", k);
      cairo_text_extents_t ext;
      cairo_text_extents (cr, buf, &ext);
      cairo_move_to (cr, SX (k) - ext.x_advance / 2, py + ph + 13);
      cairo_show_text (cr, buf);
    }
  cairo_move_to (cr, px + pw / 2 - 20, py + ph + 26);
  cairo_show_text (cr, "iteration");
  if (isfinite (pa->optimum))
    {
      double dash[] = { 4, 3 };
      cairo_set_dash (cr, dash, 2, 0);
      cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
      cairo_move_to (cr, px, SY (pa->optimum));
      cairo_line_to (cr, px + pw, SY (pa->optimum));
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  for (guint i = 0; i < pa->curves->len; i++)
    {
      const curve *c = g_ptr_array_index (pa->curves, i);
      const double *col = palette[i % G_N_ELEMENTS (palette)];
      cairo_set_source_rgb (cr, col[0], col[1], col[2]);
      cairo_set_line_width (cr, 1.8);
      int first = 1;
      for (int k = 0; k < c->n_iter; k++)
        {
          if (!c->count[k])
            continue;
          double m = c->sum[k] / c->count[k];
          if (first)
            cairo_move_to (cr, SX (k), SY (m));
          else
            cairo_line_to (cr, SX (k), SY (m));
          first = 0;
        }
      cairo_stroke (cr);
    }
  draw_legend (cr, pa, &fr);
#undef SX
#undef SY
}

static void
draw_figure (cairo_t *cr, const figure *f, double W, double H)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 14);
  cairo_move_to (cr, 10, 20);
  cairo_show_text (cr, f->title);
  double top = 30, pw = W / f->cols, ph = (H - top) / f->rows;
  for (guint i = 0; i < f->panels->len; i++)
    {
      int r = (int) i / f->cols, c = (int) i % f->cols;
      draw_panel (cr, g_ptr_array_index (f->panels, i), c * pw, top + r * ph, pw, ph);
    }
}

static void
write_csv (const figure *f)
{
  g_autofree char *path = g_strconcat (f->base, ".csv", NULL);
  FILE *out = fopen (path, "w");
  if (out == NULL)
    return;
  fprintf (out, "panel,curve,iteration,mean,sd,trials,violations\n");
  for (guint i = 0; i < f->panels->len; i++)
    {
      const panel *pa = g_ptr_array_index (f->panels, i);
      for (guint j = 0; j < pa->curves->len; j++)
        {
          const curve *c = g_ptr_array_index (pa->curves, j);
          for (int k = 0; k < c->n_iter; k++)
            {
              if (!c->count[k])
                continue;
              double m = c->sum[k] / c->count[k];
              double v = c->count[k] > 1
                           ? fmax (0, (c->sum2[k] - c->count[k] * m * m) / (c->count[k] - 1))
                           : 0;
              fprintf (out, "\"%s\",%s,%d,%.6g,%.6g,%d,%ld\n", pa->title, c->label, k, m,
                       sqrt (v), c->count[k], c->violations);
            }
        }
    }
  fclose (out);
}

/* The last iteration of every curve of every panel as a Markdown table. */
static void
write_md (const figure *f)
{
  g_autofree char *path = g_strconcat (f->base, ".md", NULL);
  FILE *out = fopen (path, "w");
  if (out == NULL || f->panels->len == 0)
    {
      if (out)
        fclose (out);
      return;
    }
  const panel *p0 = g_ptr_array_index (f->panels, 0);
  fprintf (out, "| panel | iteration | optimum |");
  for (guint j = 0; j < p0->curves->len; j++)
    fprintf (out, " %s |", ((const curve *) g_ptr_array_index (p0->curves, j))->label);
  fprintf (out, "\n|---|---:|---:|");
  for (guint j = 0; j < p0->curves->len; j++)
    fprintf (out, "---:|");
  fprintf (out, "\n");
  for (guint i = 0; i < f->panels->len; i++)
    {
      const panel *pa = g_ptr_array_index (f->panels, i);
      int last = 0;
      for (guint j = 0; j < pa->curves->len; j++)
        last = MAX (last, ((const curve *) g_ptr_array_index (pa->curves, j))->n_iter - 1);
      if (isfinite (pa->optimum))
        fprintf (out, "| %s | %d | %.4g |", pa->title, last, pa->optimum);
      else
        fprintf (out, "| %s | %d | - |", pa->title, last);
      for (guint j = 0; j < pa->curves->len; j++)
        {
          const curve *c = g_ptr_array_index (pa->curves, j);
          int k = c->n_iter - 1;
          if (k < 0 || !c->count[k])
            {
              fprintf (out, " - |");
              continue;
            }
          double m = c->sum[k] / c->count[k];
          double v = c->count[k] > 1
                       ? fmax (0, (c->sum2[k] - c->count[k] * m * m) / (c->count[k] - 1))
                       : 0;
          fprintf (out, " %.4g +- %.2g (%d", m, sqrt (v / c->count[k]), c->count[k]);
          if (c->failed)
            fprintf (out, ", %d failed", c->failed);
          fprintf (out, ")");
          if (strcmp (f->metric, "best_value") == 0
              && (c->violations > 0 || strstr (pa->title, "safe")))
            fprintf (out, ", %ld violations", c->violations);
          fprintf (out, " |");
        }
      fprintf (out, "\n");
    }
  fclose (out);
}

/* The fields a figure reads: per iteration the metric (and whether it is
 * an initial-design step), per run the summary. Everything else (queries,
 * answers, timings of each step) is dropped so that the runs of a full
 * reproduction (1440 files) can be kept in the repository and a
 * reproduction spread over several sessions resumes from them. */
static const char *const kept_step_fields[] = {
  "iteration", "initial", "best_value", "accuracy", "failed", NULL
};
static const char *const kept_summary_fields[] = {
  "summary", "problem", "mode", "acquisition", "surrogate", "seed",
  "iterations", "initial", "best_value", "optimum", "regret", "violations",
  "proposals", "median_seconds", "total_seconds", "refits", "refit_seconds",
  NULL
};

static void
compact_value (GString *out, JsonNode *v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  switch (json_node_get_value_type (v))
    {
    case G_TYPE_INT64:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (v));
      break;
    case G_TYPE_DOUBLE:
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.10g", json_node_get_double (v)));
      break;
    case G_TYPE_BOOLEAN:
      g_string_append (out, json_node_get_boolean (v) ? "true" : "false");
      break;
    case G_TYPE_STRING:
      g_string_append_printf (out, "\"%s\"", json_node_get_string (v));
      break;
    default:
      g_string_append (out, "null");
    }
}

static int
compact_run (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (path, &text, NULL, &error))
    {
      fprintf (stderr, "repro-001-plot: %s\n", error->message);
      return 2;
    }
  g_autoptr (GString) out = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (**l == '\0')
        continue;
      g_autoptr (JsonParser) p = json_parser_new ();
      if (!json_parser_load_from_data (p, *l, -1, NULL)
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p)))
        continue;  /* a line cut off by an interruption */
      JsonObject *o = json_node_get_object (json_parser_get_root (p));
      const char *sep = "{";
      const char *const *kept = json_object_has_member (o, "summary")
                                ? kept_summary_fields : kept_step_fields;
      for (const char *const *k = kept; *k; k++)
        {
          JsonNode *v = json_object_get_member (o, *k);
          if (!v || !JSON_NODE_HOLDS_VALUE (v)
              || (strcmp (*k, "initial") == 0
                  && json_node_get_value_type (v) == G_TYPE_BOOLEAN
                  && !json_node_get_boolean (v)))
            continue;
          g_string_append_printf (out, "%s\"%s\":", sep, *k);
          compact_value (out, v);
          sep = ",";
        }
      g_string_append (out, "}\n");
    }
  if (!g_file_set_contents (path, out->str, (gssize) out->len, &error))
    {
      fprintf (stderr, "repro-001-plot: %s\n", error->message);
      return 1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--compact") == 0)
    return compact_run (argv[2]);
  if (argc != 2)
    {
      fprintf (stderr, "usage: repro-001-plot MANIFEST | --compact FILE\n");
      return 2;
    }
  g_autoptr (GPtrArray) figures = g_ptr_array_new ();
  if (!parse_manifest (argv[1], figures))
    return 2;
  for (guint i = 0; i < figures->len; i++)
    {
      const figure *f = g_ptr_array_index (figures, i);
      double W = fmax (640.0, 380.0 * f->cols), H = 30 + (f->cols == 1 ? 400.0 : 260.0) * f->rows;
      g_autofree char *png = g_strconcat (f->base, ".png", NULL);
      g_autofree char *pdf = g_strconcat (f->base, ".pdf", NULL);
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) W, (int) H);
      cairo_t *cr = cairo_create (s);
      draw_figure (cr, f, W, H);
      cairo_destroy (cr);
      cairo_surface_write_to_png (s, png);
      cairo_surface_destroy (s);
      s = cairo_pdf_surface_create (pdf, W, H);
      cr = cairo_create (s);
      draw_figure (cr, f, W, H);
      cairo_destroy (cr);
      cairo_surface_destroy (s);
      write_csv (f);
      write_md (f);
      printf ("wrote %s, %s, %s.csv and %s.md\n", png, pdf, f->base, f->base);
    }
  return 0;
}
