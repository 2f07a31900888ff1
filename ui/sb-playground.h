/* sb-playground.h — the classification playground.
 *
 * A window where a person places binary labels on a 1-D line or a 2-D
 * square and watches the exact SkewGP posterior of GP classification
 * (000 sec. 5: the posterior of a GP prior under the probit likelihood is
 * a SUN, computed exactly) next to its Laplace and EP approximations:
 * the predictive class probability, the latent posterior (mean and 95%
 * HPD band in 1-D; a heatmap with the 0.5 contour in 2-D) and, on
 * request, BALD (001 eq. 43) with its most informative point.
 *
 * In 2-D it also takes three classes: each method then fits one model
 * per class against the rest (000 sec. 7.2), and the editing chart shows
 * the exact most probable class in its colour (paler where it is less
 * probable, white where all are equally likely) with every method's
 * decision boundaries; the second chart a class's probability, the
 * skewness of its one-vs-rest latent, or where Laplace and EP depart from
 * the exact probabilities. BALD is offered for two classes only.
 *
 * Editing (the probability chart; the plot's own drag-zoom is replaced by
 * these, Ctrl+scroll still zooms):
 *   click                 a class-1 point (or label the suggested point);
 *                         with three classes the class chosen to place
 *                         (keys 0, 1, 2 or the "Click places" buttons)
 *   Shift+click           a class-0 point (or label the suggestion 0)
 *   drag a point          move it
 *   right-click a point   delete it; or click to select it and press Delete
 *   Ctrl+Z                undo the last edit; "Clear" removes every point
 * Each edit submits an sb_playground_job (core/sb-playground-job.h) to the
 * window's worker; a newer edit supersedes the running job.
 *
 * Actions (win.): mode (state "1d" / "2d"), classes (state "2" / "3"),
 * place-class (state "0" / "1" / "2"), undo, clear, delete-selected,
 * suggest (BALD), fit (bool), skew (bool: the exact method's prior is a
 * SkewGP with s = 2, 000 Figure 7), compare-laplace / compare-ep (bool),
 * load-preset (string: a preset id).
 *
 * Signals:
 *   ::updated   a job's result was applied to the plots
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-chart.h"
#include "sb-playground-job.h"

G_BEGIN_DECLS

#define SB_TYPE_PLAYGROUND (sb_playground_get_type ())
G_DECLARE_FINAL_TYPE (SbPlayground, sb_playground, SB, PLAYGROUND, GtkApplicationWindow)

/* The preset of 000 Figure 5 ("Laplace is overconfident" demo): 50 labels
 * on [0, 10], a GP prior (s = 0) with zero mean and an RBF kernel whose
 * lengthscale and variance maximise the Laplace approximation of the
 * evidence (see sb-playground.c for the numbers and how they were made). */
#define SB_PLAYGROUND_PRESET_LAPLACE "laplace-overconfident"
/* Three clusters of three classes in the plane. */
#define SB_PLAYGROUND_PRESET_THREE "three-classes-2d"

SbPlayground *sb_playground_new (GtkApplication *application);

/* Loads a preset (points, domain, hyperparameters, explanation text) and
 * starts its computation. Returns FALSE for an unknown id. */
gboolean sb_playground_load_preset (SbPlayground *self, const char *preset_id);
/* The known preset ids (NULL-terminated) and a preset's title. */
const char *const *sb_playground_preset_ids (void);
const char *sb_playground_preset_title (const char *preset_id);
/* The explanation shown in the side panel (the preset's, or the help). */
const char *sb_playground_get_explanation (SbPlayground *self);

/* 1 (a line) or 2 (a square); switching keeps no points and sets two
 * classes. */
void sb_playground_set_dim (SbPlayground *self, guint dim);
guint sb_playground_get_dim (SbPlayground *self);
/* 2, or 3 in 2-D. Going to two classes removes the points of class 2;
 * the switch is an edit that Ctrl+Z undoes (points and classes). */
void sb_playground_set_n_classes (SbPlayground *self, guint n_classes);
guint sb_playground_get_n_classes (SbPlayground *self);
/* With three classes: the class that a click places (Shift+click: 0). */
void sb_playground_set_place_class (SbPlayground *self, guint label);

/* The points on screen (borrowed; valid until the next edit). */
const SbPlaygroundPoint *sb_playground_get_points (SbPlayground *self, guint *n);
/* Edits, as the pointer makes them (each is undoable and submits a job). */
gboolean sb_playground_add_point (SbPlayground *self, const double *x, guint label);
void sb_playground_move_point (SbPlayground *self, guint i, const double *x);
void sb_playground_remove_point (SbPlayground *self, guint i);
void sb_playground_clear (SbPlayground *self);
gboolean sb_playground_undo (SbPlayground *self);
/* Selection (-1: none); Delete removes the selected point. */
int sb_playground_get_selected (SbPlayground *self);

/* Hyperparameters (when fit is off) and the switches. */
void sb_playground_set_hyper (SbPlayground *self, double lengthscale, double variance);
void sb_playground_set_fit (SbPlayground *self, gboolean fit);
/* Asks for BALD on the grid; the result marks its maximiser. */
void sb_playground_suggest (SbPlayground *self);
/* The BALD suggestion on screen (DIM coordinates); FALSE when none. */
gboolean sb_playground_get_suggestion (SbPlayground *self, double *x);

/* The input of the last job submitted (borrowed), the result on screen
 * (borrowed, NULL before the first), and whether a job is running. */
const SbPlaygroundInput *sb_playground_get_last_input (SbPlayground *self);
const SbPlaygroundResult *sb_playground_get_result (SbPlayground *self);
gboolean sb_playground_get_busy (SbPlayground *self);

/* The charts: 0 = class probability (the editing chart), 1 = latent
 * posterior (1-D) or the 2-D field chosen below it, 2 = BALD (1-D). */
SbChart *sb_playground_get_chart (SbPlayground *self, guint which);

/* The pointer, in widget coordinates of chart 0, as its gestures report
 * it (public so that tests can drive the editing logic itself). */
void sb_playground_pointer_press (SbPlayground *self, guint button,
                                  GdkModifierType state, double x, double y);
void sb_playground_pointer_motion (SbPlayground *self, double x, double y);
void sb_playground_pointer_release (SbPlayground *self, double x, double y);
/* Where data point X (dim coordinates) of class LABEL is drawn in chart
 * 0 (in 1-D class 1 sits at P = 1, class 0 at P = 0); FALSE before its
 * first layout. */
gboolean sb_playground_point_to_widget (SbPlayground *self, const double *x,
                                        guint label, double *wx, double *wy);

G_END_DECLS
