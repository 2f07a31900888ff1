/* sb-parameter-kinds.h — what a parameter's values are (its SbScale) and
 * the map between the values a person sees and the engine's coordinates.
 *
 * Everything in core above the engine calls, the session file, the CLI's
 * ask/tell and the plots' data speak natural units: a log-scale gain is
 * 0.01 .. 100, a categorical font is its level index 0 .. n - 1 (named by
 * the parameter's levels where a person reads it). The engine works in
 * model coordinates: the natural log of a log-scale parameter, the
 * natural value of every other one (sg_dim_kind says how the kernel
 * treats it). The jobs map natural -> model when they build the engine's
 * configuration and replay answers, and model -> natural for what comes
 * back (questions, the best setting).
 */
#pragma once

#include "sb-experiment.h"
#include <json-glib/json-glib.h>
#include "sg-kernel.h"

G_BEGIN_DECLS

/* "linear", "log", "integer", "periodic", "categorical" and back. */
const char *sb_scale_to_string (SbScale scale);
gboolean sb_scale_from_string (const char *name, SbScale *scale);

/* The engine's kind of coordinate for P (log and linear: SG_DIM_LINEAR). */
sg_dim_kind sb_parameter_dim_kind (const SbParameter *p);
/* Natural units -> model coordinates and back. from_model rounds whole-
 * number scales and keeps the result inside [lower, upper] (exp of a log
 * may overshoot the bound by an ulp). */
double sb_parameter_to_model (const SbParameter *p, double x);
double sb_parameter_from_model (const SbParameter *p, double u);
void sb_experiment_to_model (const SbExperiment *exp, const double *x, double *u);
void sb_experiment_from_model (const SbExperiment *exp, const double *u, double *x);
/* P's resolution in model coordinates: for a log-scale parameter
 * log(1 + resolution / lower), the widest log step a natural-units
 * resolution can be (at the lower bound), so no repeat slips through. */
double sb_parameter_model_resolution (const SbParameter *p);
/* The plots' coordinate along P: log10 of the value for a log scale (a
 * log axis labelled in natural units), the value otherwise. */
double sb_parameter_to_axis (const SbParameter *p, double x);
double sb_parameter_from_axis (const SbParameter *p, double v);
void sb_experiment_to_axis (const SbExperiment *exp, const double *x, double *v);
void sb_experiment_from_axis (const SbExperiment *exp, const double *v, double *x);
double sb_parameter_axis_lower (const SbParameter *p);
double sb_parameter_axis_upper (const SbParameter *p);

/* TRUE when X can be a setting of P: a whole number for integer and
 * categorical parameters (any value otherwise; the range is checked
 * apart). */
gboolean sb_parameter_value_fits (const SbParameter *p, double x);
/* The level named by X of a categorical P, or NULL (not categorical, or
 * X not a level index). */
const char *sb_parameter_level_name (const SbParameter *p, double x);
/* The scale's own rules (the experiment's validation calls this for every
 * parameter): a log range above zero; whole-number bounds for integers;
 * levels (2 or more, non-empty, no two alike) exactly for categorical
 * parameters, whose range is then 0 .. n - 1 and which take no
 * resolution; a periodic resolution below half the period. ERROR names
 * the parameter and the field. */
gboolean sb_parameter_check_scale (const SbParameter *p, GError **error);

G_END_DECLS
