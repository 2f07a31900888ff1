/* sb-render-population.h — the Study view's population plot as a scene.
 *
 * Along one parameter (the others at the population best): the
 * population utility g's posterior mean with its 95% band, each included
 * participant's posterior mean of f_p = g + h_p as a thin line (one
 * participant's highlighted), and the population best marked, from an
 * SbPopulationResult with curves (core/sb-population.h). Pure: drawn and
 * exported without a display like every SbScene. Layer ids:
 * "band/g", "people", "person/highlight", "mean/g", "best/population".
 */
#pragma once

#include "sb-population.h"
#include "sb-render.h"

G_BEGIN_DECLS

/* The scene of RESULT's curve along parameter AXIS of EXP; HIGHLIGHT is
 * the index of the participant drawn out (-1: none). An empty scene
 * titled with the reason when RESULT has no curves. */
SbScene *sb_population_scene_new (const SbExperiment *exp, const SbPopulationResult *result,
                                  guint axis, int highlight);

G_END_DECLS
