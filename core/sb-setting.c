/* sb-setting.c — a setting as text, JSON and CSV (sb-setting.h). */
#include "config.h"

#include "sb-setting.h"

#include "sb-csv-write.h"
#include "sb-experiment-templates.h"
#include "sb-parameter-kinds.h"

#include <math.h>

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

  if (exp->stimulus.kind == SB_STIMULUS_COLOUR)
    return sb_template_colour_describe (exp, x);
  out = g_string_new (NULL);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      g_autofree char *value = sb_format_coordinate (&exp->parameters[j], x[j]);
      g_string_append_printf (out, "%s%s = %s", j ? ", " : "", exp->parameters[j].name, value);
    }
  return g_string_free (out, FALSE);
}

JsonNode *
sb_experiment_setting_to_json (const SbExperiment *exp, const double *x)
{
  JsonArray *array = json_array_sized_new (exp->n_parameters);
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      const char *level = sb_parameter_level_name (p, x[j]);
      if (level)
        json_array_add_string_element (array, level);
      else if (p->scale == SB_SCALE_INTEGER)
        json_array_add_int_element (array, (gint64) x[j]);
      else
        json_array_add_double_element (array, x[j]);
    }
  json_node_take_array (node, array);
  return node;
}

void
sb_csv_coordinate (GString *out, const SbParameter *p, double v)
{
  const char *level = sb_parameter_level_name (p, v);

  if (level)
    sb_csv_field (out, level);
  else
    sb_csv_number (out, v);
}
