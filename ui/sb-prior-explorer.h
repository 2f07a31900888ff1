/* sb-prior-explorer.h — a window to play with the SkewGP_s prior.
 *
 * Controls: kernel (RBF / Matérn 5/2), lengthscale, variance, latent
 * dimension s = 0..4, and per pseudo-point u_i its location (also a red
 * handle on the prior plot that can be dragged), its phase L_ii = ±1 and
 * gamma_i. The plots (the workbench's plot toolkit, fed SbPlotSnapshot
 * data): prior sample paths with the mean, median and 95% HPD band, the
 * skewness statistic SS(x) (000 Figure 3), and the bivariate SUN density
 * (000 eq. 1, Figures 1-2) of (f(x_a), f(x_b)) or of one of Figure 2's
 * SUNs, with the Gaussian (s = 0) contours dashed.
 *
 * Every change is copied into an SbPriorInput (core/sb-prior-job.h) and
 * submitted, once per main-loop iteration, to the window's own SbWorker;
 * a newer change supersedes the running job, a stale result is dropped.
 *
 * Actions (group "prior"): prior.reset (the defaults), prior.resample (new
 * random paths), prior.flip-phase(u) (phase of pseudo-point u).
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-chart.h"
#include "sb-plot-data.h"
#include "sb-prior-job.h"

G_BEGIN_DECLS

#define SB_TYPE_PRIOR_EXPLORER (sb_prior_explorer_get_type ())
G_DECLARE_FINAL_TYPE (SbPriorExplorer, sb_prior_explorer, SB, PRIOR_EXPLORER, GtkWindow)

/* A new explorer window, transient for PARENT (may be NULL). */
GtkWidget *sb_prior_explorer_new (GtkWindow *parent);

/* The engine input as the controls define it now (what the next job gets). */
void sb_prior_explorer_get_input (SbPriorExplorer *self, SbPriorInput *input);
/* The input of the last submitted curves / pair job and its generation
 * (0 before the first). */
guint64 sb_prior_explorer_get_submitted (SbPriorExplorer *self, gboolean pair,
                                         SbPriorInput *input);
/* The results shown (NULL before the first): the prior snapshot and the pair. */
SbPlotSnapshot *sb_prior_explorer_get_snapshot (SbPriorExplorer *self);
const SbPriorPair *sb_prior_explorer_get_pair (SbPriorExplorer *self);
/* The three charts: 0 prior, 1 skewness, 2 pair density. */
SbChart *sb_prior_explorer_get_chart (SbPriorExplorer *self, guint which);
/* A control by name: "kernel", "lengthscale", "variance", "s", "pair",
 * "pair-a", "pair-b", and per pseudo-point i = 1..4 "u<i>", "phase<i>",
 * "gamma<i>". NULL for an unknown name. */
GtkWidget *sb_prior_explorer_get_control (SbPriorExplorer *self, const char *name);

/* Where the handle of pseudo-point I is drawn, in the prior chart's
 * coordinates; FALSE when it is not shown (i >= s, or no frame yet). */
gboolean sb_prior_explorer_get_handle_position (SbPriorExplorer *self, guint i,
                                                double *x, double *y);
/* Runs the prior chart's drag gesture code from (X0, Y0) by (DX, DY)
 * (chart coordinates), as a pointer drag would: TRUE when a handle was
 * grabbed (it then moved). For tests; GTK 4 cannot synthesise events. */
gboolean sb_prior_explorer_drag (SbPriorExplorer *self, double x0, double y0,
                                 double dx, double dy);

G_END_DECLS
