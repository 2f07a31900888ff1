/* sb-experiment-templates.c — the experiments of "New experiment". */
#include "config.h"

#include "sb-experiment-templates.h"
#include "sb-parameter-kinds.h"

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
  /* Lightness is kept away from black and white, where hue and saturation
   * stop being visible and the preference would be ill-posed. */
  sb_experiment_add_parameter (exp, "hue", "°", 0.0, 360.0);
  sb_experiment_add_parameter (exp, "saturation", "%", 15.0, 100.0);
  sb_experiment_add_parameter (exp, "lightness", "%", 25.0, 80.0);
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

/* HSL -> sRGB (CSS Color 4, "Converting HSL colors to sRGB"). */
static double
hsl_channel (double n, double h, double s, double l)
{
  double k = fmod (n + h / 30.0, 12.0);
  double a = s * MIN (l, 1.0 - l);
  return l - a * MAX (-1.0, MIN (MIN (k - 3.0, 9.0 - k), 1.0));
}

/* The colour experiment's coordinates, tolerant of edited parameter
 * ranges: hue in degrees, saturation and lightness in percent. */
static void
colour_hsl (const SbExperiment *exp, const double *x, double *h, double *s, double *l)
{
  *h = exp->n_parameters > 0 ? fmod (fmod (x[0], 360.0) + 360.0, 360.0) : 0.0;
  *s = exp->n_parameters > 1 ? CLAMP (x[1] / 100.0, 0.0, 1.0) : 0.7;
  *l = exp->n_parameters > 2 ? CLAMP (x[2] / 100.0, 0.0, 1.0) : 0.5;
}

void
sb_template_colour_rgb (const SbExperiment *exp, const double *x,
                        double *red, double *green, double *blue)
{
  double h, s, l;

  colour_hsl (exp, x, &h, &s, &l);
  *red = hsl_channel (0, h, s, l);
  *green = hsl_channel (8, h, s, l);
  *blue = hsl_channel (4, h, s, l);
}

char *
sb_template_colour_describe (const SbExperiment *exp, const double *x)
{
  double h, s, l, r, g, b;

  colour_hsl (exp, x, &h, &s, &l);
  sb_template_colour_rgb (exp, x, &r, &g, &b);
  return g_strdup_printf ("hsl(%.0f°, %.0f%%, %.0f%%) · #%02X%02X%02X", h, 100 * s, 100 * l,
                          (guint) lround (255 * r), (guint) lround (255 * g),
                          (guint) lround (255 * b));
}

char *
sb_format_coordinate (const SbParameter *param, double value)
{
  double width = param->upper - param->lower;
  /* Three significant digits of the range's width; whole numbers for an
   * integer parameter; three of the value itself on a log scale. */
  int decimals = width > 0 ? CLAMP (2 - (int) floor (log10 (width)), 0, 6) : 3;
  const char *unit = param->unit ? param->unit : "";
  const char *level = sb_parameter_level_name (param, value);
  g_autofree char *number = NULL;

  if (level)
    return g_strdup (level);
  if (param->scale == SB_SCALE_INTEGER)
    decimals = 0;
  if (param->scale == SB_SCALE_LOG && value > 0)
    decimals = CLAMP (2 - (int) floor (log10 (value)), 0, 9);
  number = g_strdup_printf ("%.*f", decimals, value);
  if (*unit == '\0')
    return g_steal_pointer (&number);
  if (g_str_equal (unit, "°") || g_str_equal (unit, "%"))
    return g_strdup_printf ("%s%s", number, unit);
  return g_strdup_printf ("%s %s", number, unit);
}

char *
sb_experiment_describe_setting (const SbExperiment *exp, const double *x)
{
  GString *out;

  if (exp->template_kind == SB_TEMPLATE_COLOUR)
    return sb_template_colour_describe (exp, x);
  out = g_string_new (NULL);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      g_autofree char *value = sb_format_coordinate (&exp->parameters[j], x[j]);
      g_string_append_printf (out, "%s%s = %s", j ? ", " : "", exp->parameters[j].name, value);
    }
  return g_string_free (out, FALSE);
}
