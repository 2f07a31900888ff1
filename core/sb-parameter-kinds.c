/* sb-parameter-kinds.c — parameter scales and the natural <-> model map
 * (sb-parameter-kinds.h). */
#include "config.h"

#include "sb-parameter-kinds.h"

#include "sb-enum-names.h"

#include <math.h>

static const char *const scale_names[] = {
  "linear", "log", "integer", "periodic", "categorical",
};

SB_NAMED_ENUM (SbScale, sb_scale_to_string, sb_scale_from_string, scale_names, "?")

sg_dim_kind
sb_parameter_dim_kind (const SbParameter *p)
{
  switch (p->scale)
    {
    case SB_SCALE_INTEGER: return SG_DIM_INTEGER;
    case SB_SCALE_PERIODIC: return SG_DIM_PERIODIC;
    case SB_SCALE_CATEGORICAL: return SG_DIM_CATEGORICAL;
    case SB_SCALE_LOG:
    case SB_SCALE_LINEAR:
    default: return SG_DIM_LINEAR;
    }
}

double
sb_parameter_to_model (const SbParameter *p, double x)
{
  return p->scale == SB_SCALE_LOG ? log (x) : x;
}

double
sb_parameter_from_model (const SbParameter *p, double u)
{
  double x = p->scale == SB_SCALE_LOG ? exp (u) : u;
  if (p->scale == SB_SCALE_INTEGER || p->scale == SB_SCALE_CATEGORICAL)
    x = round (x);
  return CLAMP (x, p->lower, p->upper);
}

void
sb_experiment_to_model (const SbExperiment *exp, const double *x, double *u)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    u[j] = sb_parameter_to_model (&exp->parameters[j], x[j]);
}

void
sb_experiment_from_model (const SbExperiment *exp, const double *u, double *x)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    x[j] = sb_parameter_from_model (&exp->parameters[j], u[j]);
}

double
sb_parameter_model_resolution (const SbParameter *p)
{
  return p->scale == SB_SCALE_LOG ? log1p (p->resolution / p->lower) : p->resolution;
}

double
sb_parameter_to_axis (const SbParameter *p, double x)
{
  return p->scale == SB_SCALE_LOG ? log10 (x) : x;
}

double
sb_parameter_from_axis (const SbParameter *p, double v)
{
  return p->scale == SB_SCALE_LOG ? pow (10, v) : v;
}

void
sb_experiment_to_axis (const SbExperiment *exp, const double *x, double *v)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    v[j] = sb_parameter_to_axis (&exp->parameters[j], x[j]);
}

void
sb_experiment_from_axis (const SbExperiment *exp, const double *v, double *x)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    x[j] = sb_parameter_from_axis (&exp->parameters[j], v[j]);
}

double
sb_parameter_axis_lower (const SbParameter *p)
{
  return sb_parameter_to_axis (p, p->lower);
}

double
sb_parameter_axis_upper (const SbParameter *p)
{
  return sb_parameter_to_axis (p, p->upper);
}

gboolean
sb_parameter_value_fits (const SbParameter *p, double x)
{
  if (p->scale == SB_SCALE_INTEGER || p->scale == SB_SCALE_CATEGORICAL)
    return x == round (x);
  return TRUE;
}

const char *
sb_parameter_level_name (const SbParameter *p, double x)
{
  if (p->scale != SB_SCALE_CATEGORICAL || p->levels == NULL || x != round (x) || x < 0
      || x >= g_strv_length (p->levels))
    return NULL;
  return p->levels[(guint) x];
}

static gboolean
scale_error (GError **error, const SbParameter *p, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
scale_error (GError **error, const SbParameter *p, const char *format, ...)
{
  va_list args;
  g_autofree char *text = NULL;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID, "parameter '%s': %s",
               p->name, text);
  return FALSE;
}

static gboolean
check_levels (const SbParameter *p, GError **error)
{
  guint n = p->levels ? g_strv_length (p->levels) : 0;

  if (n < 2)
    return scale_error (error, p, "a categorical parameter needs 'levels', a list of 2 or "
                        "more names (it has %u)", n);
  for (guint i = 0; i < n; i++)
    {
      if (*p->levels[i] == '\0')
        return scale_error (error, p, "'levels': level %u is empty", i + 1);
      for (guint k = 0; k < i; k++)
        if (g_str_equal (p->levels[i], p->levels[k]))
          return scale_error (error, p, "'levels': '%s' is listed twice", p->levels[i]);
    }
  if (p->lower != 0 || p->upper != n - 1)
    return scale_error (error, p, "a categorical parameter's range is its level indices "
                        "0 .. %u ('lower' and 'upper' may be left out)", n - 1);
  if (p->resolution != 0)
    return scale_error (error, p, "'resolution' has no meaning for categorical levels");
  return TRUE;
}

gboolean
sb_parameter_check_scale (const SbParameter *p, GError **error)
{
  if ((guint) p->scale >= G_N_ELEMENTS (scale_names))
    return scale_error (error, p, "unknown 'scale'");
  if (p->levels != NULL && p->scale != SB_SCALE_CATEGORICAL)
    return scale_error (error, p, "'levels' belong to a categorical parameter, not a %s one",
                        sb_scale_to_string (p->scale));
  switch (p->scale)
    {
    case SB_SCALE_LOG:
      if (!(p->lower > 0))
        return scale_error (error, p, "a log scale needs 'lower' above 0 (it is %g)", p->lower);
      return TRUE;
    case SB_SCALE_INTEGER:
      if (p->lower != round (p->lower) || p->upper != round (p->upper))
        return scale_error (error, p, "an integer parameter needs whole-number 'lower' and "
                            "'upper' (they are %g and %g)", p->lower, p->upper);
      return TRUE;
    case SB_SCALE_PERIODIC:
      if (!(p->resolution < 0.5 * (p->upper - p->lower)))
        return scale_error (error, p, "'resolution' %g must be below half the period %g",
                            p->resolution, p->upper - p->lower);
      return TRUE;
    case SB_SCALE_CATEGORICAL:
      return check_levels (p, error);
    case SB_SCALE_LINEAR:
    default:
      return TRUE;
    }
}

