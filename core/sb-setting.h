/* sb-setting.h — a setting (one value per parameter) as people read it:
 * in text, in JSON and in CSV, the one place that formats a setting.
 * A categorical parameter's value is its level's name in all three.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "sb-experiment.h"

G_BEGIN_DECLS

/* The setting X in the experiment's words: the colour template names the
 * colour, other experiments list "name = value unit, ..." (the history,
 * the question panel's best, `skewgp status`). */
char *sb_experiment_describe_setting (const SbExperiment *exp, const double *x);

/* "12.5 ms" — a coordinate formatted with a sensible number of digits for
 * its range, with its unit. */
char *sb_format_coordinate (const SbParameter *param, double value);

/* The setting X as a JSON array, the way people read it: numbers in
 * natural units, whole numbers for integer parameters, the level's name
 * for categorical ones (ask, status, the exported models). */
JsonNode *sb_experiment_setting_to_json (const SbExperiment *exp, const double *x);

/* Coordinate V of parameter P as a CSV field: a number, or a categorical
 * one's level name. */
void sb_csv_coordinate (GString *out, const SbParameter *p, double v);

G_END_DECLS
