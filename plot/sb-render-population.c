/* sb-render-population.c — the population plot (sb-render-population.h). */
#include "config.h"

#include "sb-render-population.h"
#include "sb-parameter-kinds.h"

#include <glib/gi18n.h>
#include <math.h>

static char *
parameter_label (const SbParameter *p)
{
  return p->unit && *p->unit ? g_strdup_printf ("%s [%s]", p->name, p->unit) : g_strdup (p->name);
}

/* The x axis reads the parameter: a log axis in natural units,
 * whole-number ticks, or the level names. */
static void
parameter_axis (SbScene *scene, const SbParameter *p)
{
  SbAxisScale scale = SB_AXIS_LINEAR;

  switch (p->scale)
    {
    case SB_SCALE_LOG: scale = SB_AXIS_LOG10; break;
    case SB_SCALE_INTEGER: scale = SB_AXIS_INTEGER; break;
    case SB_SCALE_CATEGORICAL: scale = p->levels ? SB_AXIS_LEVELS : SB_AXIS_INTEGER; break;
    case SB_SCALE_LINEAR:
    case SB_SCALE_PERIODIC:
    default: break;
    }
  sb_scene_set_axis_scale (scene, FALSE, scale, (const char *const *) p->levels);
  sb_scene_set_x_range (scene, sb_parameter_axis_lower (p), sb_parameter_axis_upper (p));
}

/* "others at the population best: contrast = 1.02, ..." (NULL for d = 1). */
static char *
fixed_text (const SbExperiment *exp, const SbPopulationResult *r, guint axis)
{
  GString *s;

  if (exp->n_parameters < 2)
    return NULL;
  s = g_string_new (_("others at the population best:"));
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const char *level = sb_parameter_level_name (&exp->parameters[j], r->best[j]);
      if (j == axis)
        continue;
      if (level)
        g_string_append_printf (s, " %s = %s,", exp->parameters[j].name, level);
      else
        g_string_append_printf (s, " %s = %.3g,", exp->parameters[j].name, r->best[j]);
    }
  g_string_truncate (s, s->len - 1);
  return g_string_free (s, FALSE);
}

static void
add_curves (SbScene *scene, const SbParameter *p, const SbPopulationResult *r,
            const SbPopulationCurve *c, int highlight)
{
  g_autofree double *x = g_new (double, c->n);
  g_autofree double *mean = g_new (double, c->n);
  g_autofree double *lower = g_new (double, c->n);
  g_autofree double *upper = g_new (double, c->n);
  g_autoptr (GArray) others = g_array_new (FALSE, FALSE, sizeof (double));
  guint n_others = 0;
  SbStyle st;

  for (guint i = 0; i < c->n; i++)
    {
      x[i] = sb_parameter_to_axis (p, c->x[i]);
      mean[i] = c->g[i].mean;
      lower[i] = c->g[i].lower;
      upper[i] = c->g[i].upper;
    }
  st = sb_style_line (SB_ROLE_EXACT, 0, SB_DASH_SOLID, 0.22);
  sb_scene_take_layer (scene, sb_layer_new_band ("band/g", _("population g: 95% interval"), &st,
                                                 c->n, x, lower, upper));
  for (guint q = 0; q < r->n_people; q++)
    if ((int) q != highlight)
      {
        g_array_append_vals (others, c->person_mean + (gsize) q * c->n, c->n);
        n_others++;
      }
  if (n_others > 0)
    {
      st = sb_style_line (SB_ROLE_FOREGROUND, 1.0, SB_DASH_SOLID, 0.45);
      sb_scene_take_layer (scene, sb_layer_new_lines ("people", _("each participant's f_p"), &st,
                                                      c->n, x, n_others, (double *) others->data));
    }
  if (highlight >= 0 && (guint) highlight < r->n_people)
    {
      g_autofree char *label = g_strdup_printf (_("%s's f_p"), r->people[highlight].code);
      st = sb_style_line (SB_ROLE_BEST, 2.0, SB_DASH_SOLID, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_line ("person/highlight", label, &st, c->n, x,
                                                     c->person_mean + (gsize) highlight * c->n));
    }
  st = sb_style_line (SB_ROLE_EXACT, 2.5, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("mean/g", _("population g: mean"), &st, c->n,
                                                 x, mean));
}

SbScene *
sb_population_scene_new (const SbExperiment *exp, const SbPopulationResult *r, guint axis,
                         int highlight)
{
  const SbParameter *p;
  g_autofree char *x_label = NULL, *subtitle = NULL;
  SbScene *scene;
  SbStyle st;
  double bx, by;

  g_return_val_if_fail (axis < exp->n_parameters, NULL);
  p = &exp->parameters[axis];
  x_label = parameter_label (p);
  scene = sb_scene_new (_("Population and each participant"), x_label, _("utility"));
  parameter_axis (scene, p);
  if (r == NULL || r->plot == NULL || axis >= r->plot->dim)
    {
      sb_scene_set_subtitle (scene, r && r->n_answers == 0
                                      ? _("no answers yet")
                                      : _("no population model"));
      return scene;
    }
  subtitle = fixed_text (exp, r, axis);
  if (subtitle)
    sb_scene_set_subtitle (scene, subtitle);
  add_curves (scene, p, r, &r->plot->curves[axis], highlight);
  bx = sb_parameter_to_axis (p, r->best[axis]);
  by = r->mean;
  st = sb_style_marker (SB_ROLE_BEST, SB_MARKER_STAR, 7, TRUE);
  sb_scene_take_layer (scene, sb_layer_new_markers ("best/population", _("population best"), &st,
                                                    1, &bx, &by));
  return scene;
}
