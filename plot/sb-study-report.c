/* sb-study-report.c — a study's one-page PDF report (sb-study-report.h). */
#include "config.h"

#include "sb-study-report.h"
#include "sb-experiment-templates.h"
#include "sb-render-population.h"
#include "sb-render-private.h"
#include "sb-setting.h"

#include <cairo-pdf.h>
#include <gio/gio.h>
#include <math.h>

/* A4 in points, and the page's margin. */
#define PAGE_W 595.28
#define PAGE_H 841.89
#define MARGIN 42.0
#define PLOT_H 250.0

typedef struct {
  cairo_t *cr;
  double x, y, w;                  /* the next line's top-left, the width   */
  double bottom;
} Page;

/* TEXT at the current line, wrapped at the page's width; the line moves
 * below it. */
static void
put (Page *pg, const char *text, double scale, gboolean bold, double alpha)
{
  PangoLayout *layout = _sb_text_layout (pg->cr, text, scale, bold);
  int w, h;

  pango_layout_set_width (layout, (int) (pg->w * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgba (pg->cr, 0.14, 0.12, 0.19, alpha);
  cairo_move_to (pg->cr, pg->x, pg->y);
  pango_cairo_show_layout (pg->cr, layout);
  cairo_new_path (pg->cr);
  g_object_unref (layout);
  pg->y += h + 3;
  pg->bottom = MAX (pg->bottom, pg->y);
}

/* TEXT in a cell of width W at (X, Y), cut with an ellipsis if longer. */
static void
put_cell (cairo_t *cr, const char *text, double x, double y, double w, double scale,
          gboolean bold)
{
  PangoLayout *layout = _sb_text_layout (cr, text, scale, bold);

  pango_layout_set_width (layout, (int) (w * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  cairo_set_source_rgb (cr, 0.14, 0.12, 0.19);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  cairo_new_path (cr);
  g_object_unref (layout);
}

static char *
lengthscales_text (const double *ls, const SbExperiment *exp)
{
  GString *s = g_string_new (NULL);

  for (guint j = 0; j < exp->n_parameters; j++)
    g_string_append_printf (s, "%s%s %.3g", j ? ", " : "", exp->parameters[j].name, ls[j]);
  return g_string_free (s, FALSE);
}

static void
put_model (Page *pg, const SbStudyReport *r)
{
  const SbPopulationResult *m = r->model;
  const SbExperiment *exp = r->experiment;
  g_autofree char *model = NULL;

  if (m == NULL || m->n_answers == 0)
    {
      put (pg, m == NULL ? "Model: the population model was not computed for this report."
                         : "Model: no included participant has answered yet.",
           1.0, FALSE, 1);
      return;
    }
  model = g_strdup_printf ("Model: hierarchical exact SkewGP of everyone included, "
                           "f_p(x) = g(x) + h_p(x), g ~ GP(0, k_pop) the population's utility, "
                           "h_p ~ GP(0, k_ind) each participant's own; %u answers of %u "
                           "participants, recommendations among %u candidate settings.",
                           m->n_answers, m->n_people, m->n_candidates);
  put (pg, model, 1.0, FALSE, 1);
  {
    g_autofree char *best = sb_experiment_describe_setting (exp, m->best);
    g_autofree char *line = g_strdup_printf ("Population best: %s; g there: mean %.3g, 95%% "
                                             "interval [%.3g, %.3g].", best, m->mean, m->lower,
                                             m->upper);
    put (pg, line, 1.0, TRUE, 1);
  }
}

static void
put_hyper (Page *pg, const SbStudyReport *r)
{
  const SbPopulationHyper *h;
  g_autofree char *pop = NULL, *ind = NULL, *line = NULL, *evidence = NULL, *fit = NULL;

  if (r->model == NULL || r->model->n_answers == 0)
    return;
  h = &r->model->hyper;
  pop = lengthscales_text (h->pop_lengthscales, r->experiment);
  ind = lengthscales_text (h->ind_lengthscales, r->experiment);
  evidence = isfinite (h->log_evidence) ? g_strdup_printf ("log evidence %.4g", h->log_evidence)
                                        : g_strdup ("log evidence not computed");
  fit = h->fitted ? g_strdup_printf ("fitted, %u evaluations", h->n_evals)
                  : g_strdup ("fixed, not fitted");
  line = g_strdup_printf ("Hyperparameters (%s; %s kernel): population variance %.3g, "
                          "lengthscales %s; individual variance %.3g, lengthscales %s; probit "
                          "noise sd %.3g; %s.",
                          fit, h->matern52 ? "Matérn 5/2" : "squared-exponential", h->pop_variance,
                          pop, h->ind_variance, ind, h->probit_sd, evidence);
  put (pg, line, 0.95, FALSE, 1);
}

static void
put_plot (Page *pg, const SbStudyReport *r, SbReportLayout *out)
{
  g_autoptr (SbScene) scene = sb_population_scene_new (r->experiment, r->model, r->axis, -1);
  SbPalette palette;

  sb_palette_init_light (&palette);
  cairo_save (pg->cr);
  cairo_translate (pg->cr, pg->x, pg->y);
  cairo_rectangle (pg->cr, 0, 0, pg->w, PLOT_H);
  cairo_clip (pg->cr);
  sb_scene_render (scene, NULL, pg->cr, pg->w, PLOT_H, &palette, FALSE);
  cairo_restore (pg->cr);
  out->plot_x = pg->x;
  out->plot_y = pg->y;
  out->plot_w = pg->w;
  out->plot_h = PLOT_H;
  pg->y += PLOT_H + 8;
}

/* P(best differs) of CODE as the model has it, or NULL. */
static const SbPersonResult *
person (const SbPopulationResult *m, const char *code)
{
  for (guint p = 0; m && p < m->n_people; p++)
    if (g_ascii_strcasecmp (m->people[p].code, code) == 0)
      return &m->people[p];
  return NULL;
}

static char *
rate (guint k, guint n)
{
  return n ? g_strdup_printf ("%u of %u", k, n) : g_strdup ("–");
}

static void
put_roster (Page *pg, const SbStudyReport *r, SbReportLayout *out)
{
  /* short headings: the cells are narrow (the model line above says
   * what P(differs) is) */
  static const char *const heads[] = { "Code", "Status", "Answered", "Repeats",
                                       "Cycles", "1st shown", "Chance", "P(differs)" };
  static const double widths[] = { 0.14, 0.11, 0.12, 0.13, 0.12, 0.12, 0.11, 0.15 };
  double row_h = 11.5, x;
  guint shown = 0;

  put (pg, "Participants", 1.15, TRUE, 1);
  x = pg->x;
  for (guint c = 0; c < G_N_ELEMENTS (heads); c++)
    {
      put_cell (pg->cr, heads[c], x, pg->y, widths[c] * pg->w - 4, 0.85, TRUE);
      x += widths[c] * pg->w;
    }
  pg->y += row_h + 2;
  for (guint i = 0; i < r->n_rows; i++)
    {
      const SbReportRow *row = &r->rows[i];
      const SbConsistency *c = &row->summary.consistency;
      const SbPersonResult *p = person (r->model, row->code);
      char *cells[8] = { NULL };

      /* room for this line and the "more" line under it */
      if (i + 1 < r->n_rows && pg->y + 2 * row_h > PAGE_H - MARGIN)
        break;
      cells[0] = g_strdup (row->code);
      cells[1] = g_strdup (sb_participant_status_to_string (row->status));
      if (!row->ok)
        cells[2] = g_strdup_printf ("not read: %s", row->error ? row->error : "");
      else
        {
          cells[2] = g_strdup_printf ("%u / %u", row->summary.answered, row->summary.budget);
          cells[3] = rate (c->n_agree, c->n_repeats);
          cells[4] = rate (c->n_intransitive, c->n_triples);
          cells[5] = rate (c->n_first_chosen, c->n_side);
          cells[6] = g_strdup (c->at_chance ? "yes" : "no");
        }
      /* a participant with no answer has no best of their own */
      cells[7] = p && p->n_answers > 0 && isfinite (p->prob_best_differs)
                 ? g_strdup_printf ("%.2f", p->prob_best_differs) : g_strdup ("–");
      x = pg->x;
      for (guint k = 0; k < G_N_ELEMENTS (heads); k++)
        {
          double w = (!row->ok && k == 2 ? widths[2] + widths[3] + widths[4] + widths[5]
                                              + widths[6] : widths[k]) * pg->w - 4;
          if (cells[k])
            put_cell (pg->cr, cells[k], x, pg->y, w, 0.85, FALSE);
          x += widths[k] * pg->w;
          g_free (cells[k]);
        }
      pg->y += row_h;
      shown++;
    }
  pg->bottom = MAX (pg->bottom, pg->y);
  if (shown < r->n_rows)
    {
      g_autofree char *more = g_strdup_printf ("… and %u more participants (the study's CSV "
                                               "export has everyone).", r->n_rows - shown);
      put (pg, more, 0.85, FALSE, 0.75);
    }
  out->rows_shown = shown;
}

gboolean
sb_study_report_write_pdf (const SbStudyReport *r, const char *path, SbReportLayout *layout,
                           GError **error)
{
  cairo_surface_t *surface;
  cairo_status_t status;
  SbReportLayout out = { PAGE_W, PAGE_H, 0, 0, 0, 0, 0, 0 };
  Page pg;

  g_return_val_if_fail (r != NULL && r->experiment != NULL && path != NULL, FALSE);
  surface = cairo_pdf_surface_create (path, PAGE_W, PAGE_H);
  pg.cr = cairo_create (surface);
  pg.x = MARGIN;
  pg.y = MARGIN;
  pg.w = PAGE_W - 2 * MARGIN;
  pg.bottom = pg.y;
  {
    g_autofree char *title = g_strdup_printf ("Study %s", r->study_name);
    g_autofree char *sub = g_strdup_printf ("%s · %u participants · report of %s",
                                            r->experiment->title ? r->experiment->title : "",
                                            r->n_rows, r->date ? r->date : "");
    put (&pg, title, 1.9, TRUE, 1);
    put (&pg, sub, 1.0, FALSE, 0.75);
  }
  pg.y += 6;
  put_model (&pg, r);
  pg.y += 4;
  put_plot (&pg, r, &out);
  put_hyper (&pg, r);
  pg.y += 8;
  put_roster (&pg, r, &out);
  out.bottom = pg.bottom;
  status = cairo_status (pg.cr);
  cairo_destroy (pg.cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not write the report “%s”: %s",
                   path, cairo_status_to_string (status));
      return FALSE;
    }
  if (layout)
    *layout = out;
  return TRUE;
}

SbReportRow *
sb_study_report_rows (SbStudy *study, guint *n_rows)
{
  guint n = sb_study_get_n_participants (study);
  SbReportRow *rows = g_new0 (SbReportRow, n);

  for (guint i = 0; i < n; i++)
    {
      const SbParticipant *p = sb_study_get_participant (study, i);
      g_autoptr (GError) err = NULL;

      rows[i].code = g_strdup (p->code);
      rows[i].status = p->status;
      rows[i].ok = sb_study_summarise (study, p->code, &rows[i].summary, &err);
      rows[i].error = err ? g_strdup (err->message) : NULL;
    }
  *n_rows = n;
  return rows;
}

void
sb_study_report_rows_free (SbReportRow *rows, guint n_rows)
{
  for (guint i = 0; i < n_rows; i++)
    {
      g_free ((char *) rows[i].code);
      g_free ((char *) rows[i].error);
    }
  g_free (rows);
}
