/* sb-experiment-templates.h — the experiments offered by "New experiment".
 *
 * Each template is a complete, runnable experiment definition:
 *   colour     a human preference experiment over OKLCH lightness,
 *              chroma and hue (sb-colour.h); the duel shows two swatches
 *              on a neutral grey surround (the default demo, so a
 *              newcomer can answer right away);
 *   benchmark  a problem of the engine's benchmark set (sg-bo.h), answered
 *              by the simulated oracle (auto-play) or by the human;
 *   custom     parameters named by the user, shown side by side as a table.
 * Each asks by the default duel rule of its mode
 * (sb_experiment_use_default_acquisition).
 */
#pragma once

#include "sb-experiment.h"

G_BEGIN_DECLS

/* The favourite-colour experiment (preferential, 3-D). */
SbExperiment *sb_template_colour (void);
/* A benchmark problem by its engine name; NULL with ERROR for unknown
 * names. Parameters and bounds come from the engine's problem table. */
SbExperiment *sb_template_benchmark (const char *problem, GError **error);
/* A custom experiment with two example parameters the user then edits. */
SbExperiment *sb_template_custom (void);

/* Engine benchmark problems usable by the benchmark template: a
 * NULL-terminated array of names (free with g_strfreev) and a one-line
 * description of each. */
char **sb_template_list_problems (void);
char *sb_template_describe_problem (const char *problem);

/* The colour shown for a point of an experiment with a colour stimulus,
 * as sRGB components in [0, 1]: OKLCH (sb-colour.h), or HSL (CSS Color 4
 * §7) for sessions recorded in it. TRUE when the OKLCH colour lies
 * outside sRGB and was shown with its chroma reduced. */
gboolean sb_template_colour_rgb (const SbExperiment *exp, const double *x,
                                 double *red, double *green, double *blue);
/* "oklch(62.0% 0.150 210°) · #RRGGBB", with "· mapped into sRGB (chroma
 * 0.121)" when it was mapped ("hsl(210°, 60%, 45%) · #RRGGBB" for HSL). */
char *sb_template_colour_describe (const SbExperiment *exp, const double *x);

G_END_DECLS
