/* sb-render-views.h — the SkewBench plots as scenes built from snapshots.
 *
 * sb_plot_build() turns a frozen SbPlotSnapshot (plus, for the density
 * plot, an SbDensityData) and a few display options into an SbScene. Layer
 * ids are stable across snapshots ("band/exact", "mean/laplace", ...), so a
 * chart widget can keep the layers whose data did not change.
 */
#pragma once

#include "sb-plot-data.h"
#include "sb-render.h"

G_BEGIN_DECLS

typedef enum {
  SB_PLOT_POSTERIOR = 0,   /* 1-D: mean, median, HPD band, samples, data   */
  SB_PLOT_SKEWNESS,        /* 1-D: SS(x)                                   */
  SB_PLOT_ACQUISITION,     /* 1-D: acquisition with its maximiser          */
  SB_PLOT_VALIDITY,        /* 1-D: P(f(x) >= h) for safe mode              */
  SB_PLOT_HEATMAP,         /* 2-D slice: a field with contours             */
  SB_PLOT_DENSITY,         /* density of f(x) or f(x) - f(x_r) at a point  */
  SB_PLOT_CONVERGENCE,     /* best value so far (and the true optimum)     */
  SB_PLOT_HYPERPARAMETERS, /* hyperparameter history                       */
  SB_N_PLOTS,
} SbPlotKind;

typedef struct {
  SbPlotKind kind;
  SbField field;                      /* HEATMAP: which field              */
  gboolean compare[SB_N_POSTERIOR_METHODS];  /* overlay Laplace / EP (index 0 is
                                         the exact posterior: always on)  */
  gboolean show_samples;              /* POSTERIOR: sample paths           */
  gboolean show_truth;                /* the true function, when known     */
  gboolean show_median;
  gboolean show_observations;
  double level;                       /* credible level, for the legend    */
  gboolean prior;                     /* POSTERIOR, SKEWNESS: the snapshot
                                         holds a prior (no data): titles and
                                         legend say "prior"                */
} SbPlotOptions;

void sb_plot_options_init (SbPlotOptions *options, SbPlotKind kind);
const char *sb_plot_kind_title (SbPlotKind kind);
/* Whether "compare with Laplace / EP" means something for this plot. */
gboolean sb_plot_supports_compare (SbPlotKind kind, SbField field);
/* Whether the snapshot has what the plot needs (e.g. a curve grid with
 * exact summaries for POSTERIOR, a 2-D field for HEATMAP). */
gboolean sb_plot_has_data (const SbPlotOptions *options,
                           const SbPlotSnapshot *snap,
                           const SbDensityData *density);

/* Why the plot OPTIONS has nothing to show for SNAP (may be NULL): the
 * subtitle of its empty scene, e.g. that P(valid) belongs to safe mode. */
const char *sb_plot_empty_reason (const SbPlotOptions *options,
                                  const SbPlotSnapshot *snap);

/* The scene for OPTIONS from SNAP (and DENSITY for SB_PLOT_DENSITY); either
 * may be NULL, which gives an empty scene titled with the reason. */
SbScene *sb_plot_build (const SbPlotOptions *options,
                        const SbPlotSnapshot *snap,
                        const SbDensityData *density);

/* Histogram of N samples with NBINS equal bins over [LO, HI], normalised
 * to a density (area 1 over the samples inside). EDGES has NBINS + 1
 * entries, HEIGHTS NBINS. */
void sb_histogram_density (const double *samples, gsize n, double lo,
                           double hi, gsize nbins, double *edges,
                           double *heights);

G_END_DECLS
