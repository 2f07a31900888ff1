/* sb-experiment-templates.c — the experiments of "New experiment". */
#include "config.h"

#include "sb-experiment-templates.h"
#include "sb-parameter-kinds.h"

#include "sb-colour.h"
#include "sg-problems.h"

#include <math.h>

SbExperiment *
sb_template_colour (void)
{
  SbExperiment *exp = sb_experiment_new ();

  g_free (exp->title);
  exp->title = g_strdup ("Favourite colour");
  exp->template_kind = SB_TEMPLATE_COLOUR;
  exp->mode = SB_MODE_PREFERENCE;
  exp->budget = 30;
  exp->initial = 3;
  exp->seed = 1;
  exp->stimulus.kind = SB_STIMULUS_COLOUR;
  exp->stimulus.colour_space = SB_COLOUR_OKLCH;
  /* OKLCH, hue first (as the model sees it): chroma in CSS Color 4's
   * percent (100% = 0.4) up to 80% = 0.32, the most any sRGB colour has,
   * so at many hues the upper part lies outside sRGB and is shown with
   * its chroma reduced into the gamut, and marked; lightness kept away
   * from black and white, where hue and chroma stop being visible and
   * the preference would be ill-posed. The hue is an angle: periodic,
   * so 359° and 1° are neighbours to the model and the proposals. */
  sb_experiment_add_parameter (exp, "hue", "°", 0.0, 360.0);
  exp->parameters[0].scale = SB_SCALE_PERIODIC;
  sb_experiment_add_parameter (exp, "chroma", "%", 5.0, 80.0);
  sb_experiment_add_parameter (exp, "lightness", "%", 35.0, 85.0);
  sb_experiment_use_default_acquisition (exp);
  return exp;
}

SbExperiment *
sb_template_benchmark (const char *problem, GError **error)
{
  sg_problem *p = NULL;
  SbExperiment *exp;
  int status = sg_problem_new (problem, 1, &p);

  if (status != SG_OK)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "unknown benchmark problem '%s' (%s)", problem, sg_strerror (status));
      return NULL;
    }
  exp = sb_experiment_new ();
  g_free (exp->title);
  exp->title = g_strdup_printf ("Benchmark: %s", problem);
  exp->template_kind = SB_TEMPLATE_BENCHMARK;
  g_free (exp->problem);
  exp->problem = g_strdup (problem);
  exp->simulated = TRUE;
  exp->show_truth = TRUE;
  exp->budget = 40;
  exp->initial = 5;
  exp->autoplay_ms = 600;
  if (!isnan (sg_problem_threshold (p)))
    {
      exp->mode = SB_MODE_SAFE;
      exp->threshold = sg_problem_threshold (p);
      exp->initial = 1;
    }
  for (size_t j = 0; j < sg_problem_dim (p); j++)
    {
      g_autofree char *name = g_strdup_printf ("x%zu", j + 1);
      sb_experiment_add_parameter (exp, name, "", sg_problem_lower (p)[j],
                                   sg_problem_upper (p)[j]);
    }
  sg_problem_free (p);
  sb_experiment_use_default_acquisition (exp);
  return exp;
}

SbExperiment *
sb_template_custom (void)
{
  SbExperiment *exp = sb_experiment_new ();

  g_free (exp->title);
  exp->title = g_strdup ("Custom parameters");
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->budget = 30;
  exp->initial = 3;
  sb_experiment_add_parameter (exp, "temperature", "°C", 20.0, 80.0);
  sb_experiment_add_parameter (exp, "duration", "min", 1.0, 30.0);
  sb_experiment_use_default_acquisition (exp);
  return exp;
}

char **
sb_template_list_problems (void)
{
  GStrvBuilder *b = g_strv_builder_new ();
  char **names;

  for (size_t i = 0; i < sg_problem_count (); i++)
    g_strv_builder_add (b, sg_problem_name_at (i));
  names = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return names;
}

char *
sb_template_describe_problem (const char *problem)
{
  for (size_t i = 0; i < sg_problem_count (); i++)
    if (g_str_equal (sg_problem_name_at (i), problem))
      return g_strdup (sg_problem_description_at (i));
  return g_strdup ("");
}

/* HSL -> sRGB (CSS Color 4, "Converting HSL colors to sRGB"), for colour
 * sessions recorded in HSL. */
static double
hsl_channel (double n, double h, double s, double l)
{
  double k = fmod (n + h / 30.0, 12.0);
  double a = s * MIN (l, 1.0 - l);
  return l - a * MAX (-1.0, MIN (MIN (k - 3.0, 9.0 - k), 1.0));
}

static double
wrap_degrees (double h)
{
  return fmod (fmod (h, 360.0) + 360.0, 360.0);
}

/* The parameter called NAME, else the one at FALLBACK. */
static guint
colour_parameter (const SbExperiment *exp, const char *name, guint fallback)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    if (g_ascii_strcasecmp (exp->parameters[j].name, name) == 0)
      return j;
  return fallback;
}

/* The OKLCH coordinates of X: parameters named lightness, chroma and hue
 * (otherwise the first three, in that order). Lightness in [0, 1], or in
 * percent when its unit is "%"; chroma absolute, or in CSS Color 4's
 * percent (100% = 0.4); hue in degrees. */
static void
colour_oklch (const SbExperiment *exp, const double *x, double *L, double *C, double *h)
{
  guint l = colour_parameter (exp, "lightness", 0), c = colour_parameter (exp, "chroma", 1);
  guint hue = colour_parameter (exp, "hue", 2);

  *L = g_strcmp0 (exp->parameters[l].unit, "%") == 0 ? x[l] / 100.0 : x[l];
  *C = g_strcmp0 (exp->parameters[c].unit, "%") == 0 ? x[c] * 0.4 / 100.0 : x[c];
  *h = wrap_degrees (x[hue]);
}

gboolean
sb_template_colour_rgb (const SbExperiment *exp, const double *x,
                        double *red, double *green, double *blue)
{
  double rgb[3];
  gboolean mapped = FALSE;

  if (exp->n_parameters < 3)
    {
      *red = *green = *blue = 0.5;
      return FALSE;
    }
  if (exp->stimulus.colour_space == SB_COLOUR_HSL)
    {
      double h = wrap_degrees (x[0]), s = CLAMP (x[1] / 100.0, 0.0, 1.0);
      double l = CLAMP (x[2] / 100.0, 0.0, 1.0);
      rgb[0] = hsl_channel (0, h, s, l);
      rgb[1] = hsl_channel (8, h, s, l);
      rgb[2] = hsl_channel (4, h, s, l);
    }
  else
    {
      double L, C, h;
      colour_oklch (exp, x, &L, &C, &h);
      mapped = sb_oklch_to_srgb (L, C, h, rgb, NULL);
    }
  *red = rgb[0];
  *green = rgb[1];
  *blue = rgb[2];
  return mapped;
}

char *
sb_template_colour_describe (const SbExperiment *exp, const double *x)
{
  double r, g, b;
  gboolean mapped = sb_template_colour_rgb (exp, x, &r, &g, &b);
  g_autofree char *hex = g_strdup_printf ("#%02X%02X%02X", (guint) lround (255 * r),
                                          (guint) lround (255 * g), (guint) lround (255 * b));

  if (exp->n_parameters < 3)
    return g_strdup ("");
  if (exp->stimulus.colour_space == SB_COLOUR_HSL)
    return g_strdup_printf ("hsl(%.0f°, %.0f%%, %.0f%%) · %s", wrap_degrees (x[0]),
                            CLAMP (x[1], 0.0, 100.0), CLAMP (x[2], 0.0, 100.0), hex);
  {
    double L, C, h, rgb[3], shown;
    colour_oklch (exp, x, &L, &C, &h);
    sb_oklch_to_srgb (L, C, h, rgb, &shown);
    if (mapped)
      return g_strdup_printf ("oklch(%.1f%% %.3f %.0f°) · %s · mapped into sRGB (chroma %.3f)",
                              100 * L, C, h, hex, shown);
    return g_strdup_printf ("oklch(%.1f%% %.3f %.0f°) · %s", 100 * L, C, h, hex);
  }
}


