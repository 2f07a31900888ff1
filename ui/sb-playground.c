/* sb-playground.c — the classification playground (see sb-playground.h).
 *
 * State: the points (a GArray of SbPlaygroundPoint), an undo stack of
 * earlier point sets, the switches and the latest job result. Every edit
 * goes through commit_edit(): push the old points, change, redraw the
 * points at once (from the state, not the result), submit a job. The
 * plots are scenes of the plot toolkit (sb-render.h layers in SbChart
 * widgets); the curves come from the latest result, the markers from the
 * current points, so an edit shows immediately and the curves follow when
 * the job is done.
 */
#include "config.h"

#include "sb-playground.h"
#include "sb-close-keys.h"
#include "sb-papers.h"

#include <math.h>
#include <string.h>

#define HIT_RADIUS 9.0          /* device px: a press this close hits a point */
#define DRAG_SUBMIT_MS 90       /* at most one job per this while dragging   */
#define MAX_UNDO 200

typedef enum {
  FIELD_MEAN = 0,
  FIELD_SKEWNESS,
  FIELD_SD,
  FIELD_BALD,
} SecondField;

/* The second plot with three classes: per class its probability and its
 * one-vs-rest latent's skewness, then the approximations' errors. */
typedef enum {
  FIELD3_PROB = 0,                                   /* + class */
  FIELD3_SKEWNESS = SB_PLAYGROUND_MAX_CLASSES,       /* + class */
  FIELD3_ERROR_LAPLACE = 2 * SB_PLAYGROUND_MAX_CLASSES,
  FIELD3_ERROR_EP,
} ThreeClassField;

/* An undo entry: the points and the number of classes they had. */
typedef struct {
  GArray *points;
  guint n_classes;
} UndoEntry;

struct _SbPlayground
{
  GtkApplicationWindow parent_instance;

  /* Owned */
  SbWorker *worker;
  GArray *points;              /* SbPlaygroundPoint                       */
  GPtrArray *undo;             /* UndoEntry: earlier point sets           */
  SbPlaygroundInput *last_input;
  SbPlaygroundResult *result;
  char *explanation;
  char *preset_title;
  char *notice;                /* shown above the result until the next edit */
  guint dim;
  guint n_classes;             /* 2, or 3 (2-D only): one-vs-rest         */
  guint place_class;           /* three classes: what a click places      */
  double lower[2], upper[2];
  double lengthscale, variance;
  gboolean fit, laplace, ep;
  gboolean skew;               /* exact method: SkewGP prior with s = 2  */
  gboolean want_bald;          /* the next jobs compute BALD             */
  gboolean has_suggestion;     /* the result's BALD maximiser is current */
  double suggestion[2];
  int selected;
  guint drag_submit_source;
  gboolean syncing;            /* controls being set from the state      */

  /* Pointer state of the editing chart */
  int drag_index;              /* the point being dragged, or -1         */
  gboolean drag_moved;
  gboolean drag_pushed;        /* the undo entry of this drag is pushed  */

  /* Template widgets (borrowed) */
  GtkBox *charts_box;
  GtkBox *lower_box;
  SbChart *prob_chart;
  SbChart *latent_chart;
  SbChart *bald_chart;
  GtkLabel *explanation_title;
  GtkLabel *explanation_label;
  GtkLabel *lengthscale_label;
  GtkScale *lengthscale_scale;
  GtkLabel *variance_label;
  GtkScale *variance_scale;
  GtkWidget *field_box;
  GtkDropDown *field_dropdown;
  GtkWidget *classes_box;
  GtkWidget *place_box;
  GtkBox *place_buttons;
  GListModel *fields2, *fields3;   /* the second plot's choices (owned) */
  GtkLabel *info_label;
  GtkSpinner *spinner;
  GtkLabel *status_label;
  GtkWidget *suggest_button;
};

G_DEFINE_FINAL_TYPE (SbPlayground, sb_playground, GTK_TYPE_APPLICATION_WINDOW)

enum {
  UPDATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void submit (SbPlayground *self);
static void rebuild_scenes (SbPlayground *self);
static void update_info (SbPlayground *self);

/* ---- Presets ------------------------------------------------------------------ */

/* "laplace-overconfident": the setting of 000 Figure 5 (sec. 6). The paper
 * uses "a synthetic classification problem with 50 observations and
 * scalar inputs taken from (Kuss and Rasmussen, 2005)", a GP prior
 * (SkewGP with s = 0) with zero mean and an RBF kernel, and sets the
 * lengthscale and variance of all three methods (exact, Laplace, EP) to
 * the values that maximise Laplace's approximation of the evidence. The
 * paper does not list its 50 points, so these are 50 points of the same
 * kind, drawn once with
 *   /usr/bin/python3: rng = numpy.random.default_rng(2005)
 *   x = sort(rng.uniform(0, 10, 50)), g = 2.5 sin(0.7 x + 0.4),
 *   y = rng.uniform(size=50) < scipy.stats.norm.cdf(g)
 * (29 of class 1, 21 of class 0). The hyperparameters are the Laplace
 * evidence maximiser for these points, found with sg_fit
 * (SG_FIT_METHOD_LAPLACE, lengthscale in [0.2, 20], variance in
 * [0.05, 60], 3 starts): lengthscale 2.541, variance 26.09, log evidence
 * -14.758; tests/test-ui-playground.c checks that a refit from them gains
 * nothing. */
static const double laplace_x[50] = {
  0.034, 0.168, 1.026, 1.053, 1.105, 1.529, 1.672, 1.921, 1.945, 2.185,
  2.418, 2.920, 3.132, 3.148, 3.519, 3.549, 3.827, 3.951, 4.189, 4.662,
  4.839, 4.975, 5.071, 5.663, 5.917, 5.963, 6.097, 6.163, 6.283, 6.366,
  6.645, 6.703, 6.809, 6.830, 7.121, 7.177, 7.230, 7.906, 8.004, 8.040,
  8.051, 8.765, 8.843, 8.896, 8.973, 9.055, 9.278, 9.402, 9.490, 9.606,
};
static const guint8 laplace_y[50] = {
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0,
  0, 1, 1, 0, 1, 1, 1, 1, 1, 1,
};
#define LAPLACE_LENGTHSCALE 2.541
#define LAPLACE_VARIANCE 26.09

/* "clusters-2d": two overlapping clusters of labels in the square, for a
 * first look at the 2-D view (no paper setting). */
static const double clusters_x[][2] = {
  { 2.0, 2.5 }, { 3.1, 1.6 }, { 2.6, 3.8 }, { 3.8, 3.0 }, { 1.5, 4.2 }, { 4.4, 4.6 },
  { 7.2, 6.8 }, { 6.1, 7.9 }, { 8.0, 5.7 }, { 6.8, 5.2 }, { 5.2, 6.4 }, { 7.7, 8.3 },
  { 5.0, 3.4 },
};
static const guint8 clusters_y[] = { 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 };

/* "three-classes-2d": three clusters in the square, each of six points,
 * and one point of each class near the others (no paper setting). */
static const double three_x[][2] = {
  { 1.8, 2.2 }, { 2.9, 1.5 }, { 2.4, 3.4 }, { 3.6, 2.7 }, { 1.4, 3.9 }, { 3.3, 4.1 },
  { 7.1, 2.0 }, { 8.2, 2.9 }, { 6.6, 3.3 }, { 7.8, 1.4 }, { 8.6, 4.2 }, { 6.2, 1.9 },
  { 4.4, 7.6 }, { 5.6, 8.3 }, { 5.1, 6.6 }, { 6.3, 7.2 }, { 3.9, 8.6 }, { 5.9, 5.9 },
  { 4.8, 3.6 }, { 5.3, 3.1 }, { 3.2, 5.6 },
};
static const guint8 three_y[] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 0, 1, 2 };

typedef struct {
  const char *id;
  const char *title;
  const char *text;
} Preset;

static const char help_text[] =
  "Click in the probability plot to add a point of class 1, Shift+click "
  "for class 0. Drag a point to move it; right-click it, or click it and "
  "press Delete, to remove it. Ctrl+Z undoes, Ctrl+1 / Ctrl+2 switch "
  "between a line and a plane.\n\n"
  "The solid curves are the exact posterior of GP classification ("
  SB_PAPER_000_SHORT ", sec. 5: a SkewGP, computed from 2000 samples of its truncated part); "
  "the dashed ones are the Laplace and EP approximations of the same "
  "model. \"Suggest Next Point\" computes BALD (" SB_PAPER_001_SHORT ", eq. 43) "
  "on the grid (Ctrl+B) and marks its maximiser with a diamond: click it to label it class 1, "
  "Shift+click for class 0, and the next suggestion follows.\n\n"
  "In the plane, \"Classes: Three\" adds a class 2: each method then fits one classifier "
  "per class against the rest (" SB_PAPER_000_SHORT ", sec. 7.2). A click places the class "
  "chosen under \"Click places\" (keys 0, 1, 2), Shift+click class 0.";

static const char three_text[] =
  "Three classes in the plane. Every method fits one binary classifier per class, that "
  "class against the other two (" SB_PAPER_000_SHORT ", sec. 7.2), and the class "
  "probabilities are P(c) = p_c / (p_0 + p_1 + p_2) of their probabilities p_k.\n\n"
  "The colour is the exact SkewGP's most probable class, paler where it is less sure: "
  "white where all three are equally likely (1/3 each), the full tint at P = 1. The "
  "solid black lines are the exact decision boundaries, where the most probable class "
  "changes; dashed Laplace's, dash-dotted EP's. Choose the class a click places under "
  "\"Click places\" (or press 0, 1, 2); Shift+click places class 0.\n\n"
  "What to look at: near the data the three methods draw nearly the same boundaries, "
  "but away from it and between the clusters Laplace's probabilities are flatter "
  "(closer to 1/3) than the exact ones; the second plot shows, per class, the "
  "probability, the skewness of its one-vs-rest latent, and where Laplace or EP "
  "depart from the exact probabilities.";

static const Preset presets[] = {
  { SB_PLAYGROUND_PRESET_LAPLACE, "Is Laplace overconfident? (" SB_PAPER_000_SHORT ", Figure 5)",
    "The setting of " SB_PAPER_000_SHORT ", Figure 5: 50 labels on one input, a GP prior "
    "(SkewGP with s = 0) with zero mean and an RBF kernel whose lengthscale "
    "(2.54) and variance (26.1) maximise the Laplace approximation of the "
    "evidence; all three methods use these values. The paper's 50 points "
    "(from Kuss & Rasmussen 2005) are not printed in it: these are 50 "
    "points of the same kind (29 of class 1), drawn once from a fixed seed.\n\n"
    "What to look at: where all labels agree (x < 4 and 5 < x < 7) the "
    "exact latent posterior is skewed away from zero (|SS(x)| about "
    "0.4-0.65). Laplace centres a Gaussian at the mode: its mean is too "
    "close to zero (3.2 instead of about 5.6 at x = 0) and its class "
    "probability too close to 0.5 (0.77 instead of 0.97 at x = 0); there "
    "its predictions are over-conservative, as Kuss & Rasmussen report. "
    "Inside the class-0 cluster its 95% band is narrower than the exact one "
    "and shifted towards zero (about [-4.2, -1.0] against [-4.9, -1.5] at "
    "x = 6): there it is overconfident about f. EP matches the first two "
    "moments and follows the exact probability closely.\n\n"
    "Tick \"Fit\" for the setting of " SB_PAPER_000_SHORT ", Figure 6: each method with the "
    "hyperparameters that maximise its own evidence. Tick \"SkewGP prior\" "
    "too for Figure 7: the exact method's prior becomes a SkewGP with s = 2 "
    "pseudo-points (starting at 5.8 and 6, as in the paper; the stars), "
    "fitted with the kernel." },
  { "empty-1d", "Empty line (1-D)", help_text },
  { "clusters-2d", "Two clusters (2-D)", help_text },
  { SB_PLAYGROUND_PRESET_THREE, "Three classes (2-D)", three_text },
};

const char *const *
sb_playground_preset_ids (void)
{
  static const char *ids[G_N_ELEMENTS (presets) + 1];

  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    ids[i] = presets[i].id;
  return ids;
}

static const Preset *
find_preset (const char *id)
{
  for (guint i = 0; id && i < G_N_ELEMENTS (presets); i++)
    if (g_str_equal (presets[i].id, id))
      return &presets[i];
  return NULL;
}

const char *
sb_playground_preset_title (const char *preset_id)
{
  const Preset *p = find_preset (preset_id);
  return p ? p->title : NULL;
}

/* ---- Small helpers ----------------------------------------------------------------- */

static SbPlaygroundPoint *
point_at (SbPlayground *self, guint i)
{
  return &g_array_index (self->points, SbPlaygroundPoint, i);
}

static void
clamp_to_domain (SbPlayground *self, double *x)
{
  for (guint j = 0; j < self->dim; j++)
    x[j] = CLAMP (x[j], self->lower[j], self->upper[j]);
}

static void
set_explanation (SbPlayground *self, const char *title, const char *text)
{
  g_free (self->explanation);
  self->explanation = g_strdup (text);
  g_free (self->preset_title);
  self->preset_title = g_strdup (title);
  gtk_label_set_text (self->explanation_title, title);
  gtk_label_set_text (self->explanation_label, text);
}

static void
update_hyper_labels (SbPlayground *self)
{
  g_autofree char *l = g_strdup_printf ("Lengthscale ℓ = %.3g", self->lengthscale);
  g_autofree char *v = g_strdup_printf ("Variance σ² = %.3g", self->variance);

  gtk_label_set_text (self->lengthscale_label, l);
  gtk_label_set_text (self->variance_label, v);
  gtk_widget_set_sensitive (GTK_WIDGET (self->lengthscale_scale), !self->fit);
  gtk_widget_set_sensitive (GTK_WIDGET (self->variance_scale), !self->fit);
}

static void
sync_controls (SbPlayground *self)
{
  GAction *a;

  self->syncing = TRUE;
  gtk_range_set_value (GTK_RANGE (self->lengthscale_scale), log10 (self->lengthscale));
  gtk_range_set_value (GTK_RANGE (self->variance_scale), log10 (self->variance));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "fit");
  g_simple_action_set_state (G_SIMPLE_ACTION (a), g_variant_new_boolean (self->fit));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "skew");
  g_simple_action_set_state (G_SIMPLE_ACTION (a), g_variant_new_boolean (self->skew));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-laplace");
  g_simple_action_set_state (G_SIMPLE_ACTION (a), g_variant_new_boolean (self->laplace));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-ep");
  g_simple_action_set_state (G_SIMPLE_ACTION (a), g_variant_new_boolean (self->ep));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "mode");
  g_simple_action_set_state (G_SIMPLE_ACTION (a),
                             g_variant_new_string (self->dim == 1 ? "1d" : "2d"));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "classes");
  g_simple_action_set_state (G_SIMPLE_ACTION (a),
                             g_variant_new_string (self->n_classes == 3 ? "3" : "2"));
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "place-class");
  {
    char id[2] = { (char) ('0' + self->place_class), 0 };
    g_simple_action_set_state (G_SIMPLE_ACTION (a), g_variant_new_string (id));
  }
  g_simple_action_set_enabled (G_SIMPLE_ACTION (a), self->n_classes == 3);
  /* BALD is defined here for a binary model only. */
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "suggest");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (a), self->n_classes == 2);
  gtk_widget_set_tooltip_text (self->suggest_button, self->n_classes == 2
    ? "Mark the most informative place for the next label (Benavoli et al. 2021, eq. 43); "
      "click it to label it class 1, Shift+click for class 0 (Ctrl+B)"
    : "BALD is computed for two classes");
  gtk_widget_set_visible (self->classes_box, self->dim == 2);
  gtk_widget_set_visible (self->place_box, self->n_classes == 3);
  GListModel *fields = self->n_classes == 3 ? self->fields3 : self->fields2;
  if (gtk_drop_down_get_model (self->field_dropdown) != fields)
    gtk_drop_down_set_model (self->field_dropdown, fields);
  update_hyper_labels (self);
  self->syncing = FALSE;
}

/* ---- Edits and undo ------------------------------------------------------------------ */

static void
undo_entry_free (gpointer data)
{
  UndoEntry *e = data;
  g_array_unref (e->points);
  g_free (e);
}

static void
push_undo (SbPlayground *self)
{
  UndoEntry *e = g_new (UndoEntry, 1);

  e->points = g_array_sized_new (FALSE, FALSE, sizeof (SbPlaygroundPoint), self->points->len);
  g_array_append_vals (e->points, self->points->data, self->points->len);
  e->n_classes = self->n_classes;
  g_ptr_array_add (self->undo, e);
  if (self->undo->len > MAX_UNDO)
    g_ptr_array_remove_index (self->undo, 0);
}

/* After any change of the points: the old suggestion no longer applies
 * (unless LABELLED_SUGGESTION: the active-learning loop goes on). */
static void
points_changed (SbPlayground *self, gboolean labelled_suggestion)
{
  g_clear_pointer (&self->notice, g_free);
  self->has_suggestion = FALSE;
  if (!labelled_suggestion)
    self->want_bald = FALSE;
  if (self->selected >= (int) self->points->len)
    self->selected = -1;
  rebuild_scenes (self);
  submit (self);
}

static gboolean
add_point_internal (SbPlayground *self, const double *x, guint label,
                    gboolean labelled_suggestion)
{
  SbPlaygroundPoint p = { { 0, 0 }, label };

  g_return_val_if_fail (label < self->n_classes, FALSE);
  if (self->points->len >= SB_PLAYGROUND_MAX_POINTS)
    {
      gtk_label_set_text (self->status_label, "The playground holds at most 500 points");
      return FALSE;
    }
  memcpy (p.x, x, self->dim * sizeof (double));
  clamp_to_domain (self, p.x);
  push_undo (self);
  g_array_append_val (self->points, p);
  self->selected = (int) self->points->len - 1;
  points_changed (self, labelled_suggestion);
  return TRUE;
}

gboolean
sb_playground_add_point (SbPlayground *self, const double *x, guint label)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), FALSE);
  return add_point_internal (self, x, label, FALSE);
}

void
sb_playground_move_point (SbPlayground *self, guint i, const double *x)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  g_return_if_fail (i < self->points->len);
  push_undo (self);
  memcpy (point_at (self, i)->x, x, self->dim * sizeof (double));
  clamp_to_domain (self, point_at (self, i)->x);
  points_changed (self, FALSE);
}

void
sb_playground_remove_point (SbPlayground *self, guint i)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  g_return_if_fail (i < self->points->len);
  push_undo (self);
  g_array_remove_index (self->points, i);
  self->selected = -1;
  points_changed (self, FALSE);
}

void
sb_playground_clear (SbPlayground *self)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  if (self->points->len == 0)
    return;
  push_undo (self);
  g_array_set_size (self->points, 0);
  self->selected = -1;
  points_changed (self, FALSE);
}

gboolean
sb_playground_undo (SbPlayground *self)
{
  UndoEntry *prev;

  g_return_val_if_fail (SB_IS_PLAYGROUND (self), FALSE);
  if (self->undo->len == 0)
    return FALSE;
  prev = g_ptr_array_steal_index (self->undo, self->undo->len - 1);
  g_array_unref (self->points);
  self->points = prev->points;
  self->n_classes = prev->n_classes;
  g_free (prev);
  self->selected = -1;
  sync_controls (self);
  points_changed (self, FALSE);
  return TRUE;
}

void
sb_playground_set_n_classes (SbPlayground *self, guint n_classes)
{
  guint removed = 0;

  g_return_if_fail (SB_IS_PLAYGROUND (self));
  n_classes = self->dim == 2 && n_classes >= 3 ? 3 : 2;
  if (n_classes == self->n_classes)
    return;
  push_undo (self);
  for (guint i = self->points->len; i-- > 0;)
    if (point_at (self, i)->label >= n_classes)
      {
        g_array_remove_index (self->points, i);
        removed++;
      }
  self->n_classes = n_classes;
  self->place_class = MIN (self->place_class, n_classes - 1);
  self->selected = -1;
  sync_controls (self);
  points_changed (self, FALSE);
  if (removed > 0)
    {
      self->notice = g_strdup_printf ("%u point%s of class 2 removed: Ctrl+Z brings them back.",
                                      removed, removed == 1 ? "" : "s");
      update_info (self);
    }
}

guint
sb_playground_get_n_classes (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), 2);
  return self->n_classes;
}

void
sb_playground_set_place_class (SbPlayground *self, guint label)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  self->place_class = MIN (label, self->n_classes - 1);
  sync_controls (self);
}

const SbPlaygroundPoint *
sb_playground_get_points (SbPlayground *self, guint *n)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), NULL);
  if (n)
    *n = self->points->len;
  return (const SbPlaygroundPoint *) self->points->data;
}

int
sb_playground_get_selected (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), -1);
  return self->selected;
}

/* ---- The worker ------------------------------------------------------------------------ */

static void
submit (SbPlayground *self)
{
  SbPlaygroundInput *in = sb_playground_input_new (self->dim, self->lower, self->upper);

  g_clear_handle_id (&self->drag_submit_source, g_source_remove);
  in->n_classes = self->n_classes;
  for (guint i = 0; i < self->points->len; i++)
    sb_playground_input_add (in, point_at (self, i)->x, point_at (self, i)->label);
  in->fit = self->fit;
  in->lengthscale = self->lengthscale;
  in->variance = self->variance;
  in->laplace = self->laplace;
  in->ep = self->ep;
  if (self->skew)
    {
      /* 000 Figure 7: s = 2 pseudo-points, in 1-D starting at 5.8 and 6
       * as in the paper (000 sec. 6), gamma 0; fitted with the kernel
       * when "Fit" is on. In 2-D two points near the centre. */
      static const double u1[] = { 5.8, 6.0 }, u2[] = { 4.5, 5.0, 5.5, 5.0 };
      in->s = 2;
      memcpy (in->pseudo_points, self->dim == 1 ? u1 : u2,
              (self->dim == 1 ? sizeof u1 : sizeof u2));
      in->gamma[0] = in->gamma[1] = 0;
    }
  in->bald = self->want_bald && self->n_classes == 2;
  in->generation = sb_worker_get_generation (self->worker, SB_WORKER_LANE_PLOT) + 1;

  sb_playground_input_free (self->last_input);
  self->last_input = sb_playground_input_copy (in);
  sb_worker_submit (self->worker, SB_WORKER_LANE_PLOT, sb_playground_job, in,
                    (GDestroyNotify) sb_playground_input_free,
                    (GDestroyNotify) sb_playground_result_free);
  gtk_spinner_set_spinning (self->spinner, TRUE);
  gtk_label_set_text (self->status_label, self->fit ? "Fitting and computing…" : "Computing…");
}

/* One model's hyperparameters and evidence, for the read-out. */
static void
append_fit (GString *s, const SbPlaygroundFit *f, guint dim)
{
  g_string_append_printf (s, "ℓ = %.3g", f->lengthscale[0]);
  if (dim > 1)
    g_string_append_printf (s, ", %.3g", f->lengthscale[1]);
  g_string_append_printf (s, ", σ² = %.3g, log p(y) ≈ %.2f", f->variance, f->log_evidence);
  for (guint i = 0; i < f->s; i++)
    {
      if (dim == 1)
        g_string_append_printf (s, "%s r%u = %.3g", i ? "," : "; SkewGP prior:", i + 1,
                                f->pseudo_points[i]);
      else
        g_string_append_printf (s, "%s r%u = (%.3g, %.3g)", i ? "," : "; SkewGP prior:", i + 1,
                                f->pseudo_points[2 * i], f->pseudo_points[2 * i + 1]);
      g_string_append_printf (s, " γ%u = %.2f", i + 1, f->gamma[i]);
    }
}

static void
update_info (SbPlayground *self)
{
  const SbPlaygroundResult *r = self->result;
  guint count[SB_PLAYGROUND_MAX_CLASSES] = { 0 };
  GString *s = g_string_new (NULL);

  if (self->notice)
    g_string_append_printf (s, "%s\n", self->notice);
  for (guint i = 0; i < self->points->len; i++)
    count[MIN (point_at (self, i)->label, SB_PLAYGROUND_MAX_CLASSES - 1)]++;
  if (self->n_classes == 2)
    g_string_append_printf (s, "%u points: %u of class 1, %u of class 0.", self->points->len,
                            count[1], count[0]);
  else
    g_string_append_printf (s, "%u points: %u of class 0, %u of class 1, %u of class 2.",
                            self->points->len, count[0], count[1], count[2]);
  if (r != NULL)
    {
      for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
        {
          const SbPlaygroundMethod *m = &r->method[k];
          const char *name = k == SB_POSTERIOR_EXACT ? "Exact SkewGP"
                             : k == SB_POSTERIOR_LAPLACE ? "Laplace" : "EP";
          if (m->error)
            g_string_append_printf (s, "\n%s: %s", name, m->error);
          else if (m->ok && m->n_models == 1)
            {
              g_string_append_printf (s, "\n%s: ", name);
              append_fit (s, &m->fit[0], r->input->dim);
            }
          else if (m->ok)
            for (guint c = 0; c < m->n_models; c++)
              {
                g_string_append_printf (s, "\n%s, class %u vs rest: ", name, c);
                append_fit (s, &m->fit[c], r->input->dim);
              }
        }
      g_string_append_printf (s, "\nExact posterior: %u samples, effective %.0f%s; %.2f s.",
                              r->input->n_samples, r->ess,
                              r->method[SB_POSTERIOR_EXACT].n_models > 1 ? " (smallest)" : "",
                              r->seconds);
      if (r->n_check > 0 && r->method[SB_POSTERIOR_EXACT].ok)
        {
          double worst = 0;
          for (guint k = 0; k < r->n_check; k++)
            worst = MAX (worst, fabs (r->check_prob[k]
                                      - r->method[SB_POSTERIOR_EXACT].summary[r->check_cell[k]].class_probability));
          g_string_append_printf (s, "\nSampled vs exact P(y = 1) (000 Cor. 2, □): "
                                  "largest difference %.4f.", worst);
        }
      if (r->bald)
        {
          g_string_append_printf (s, "\nBALD maximum %.3f nats at x = %.3g", r->bald_max,
                                  r->bald_x[0]);
          if (r->input->dim > 1)
            g_string_append_printf (s, ", %.3g", r->bald_x[1]);
        }
    }
  gtk_label_set_text (self->info_label, s->str);
  g_string_free (s, TRUE);
}

static void
on_job_finished (SbWorker *worker, guint lane, guint64 generation, gpointer data,
                 SbPlayground *self)
{
  SbPlaygroundResult *result = data;

  /* The worker frees its result after this emission: keep the contents
   * and leave it an empty shell to free. */
  g_clear_pointer (&self->result, sb_playground_result_free);
  self->result = g_memdup2 (result, sizeof *result);
  memset (result, 0, sizeof *result);

  self->has_suggestion = self->result->bald != NULL;
  if (self->has_suggestion)
    memcpy (self->suggestion, self->result->bald_x, sizeof self->suggestion);
  gtk_spinner_set_spinning (self->spinner, FALSE);
  gtk_label_set_text (self->status_label, "");
  update_info (self);
  rebuild_scenes (self);
  g_signal_emit (self, signals[UPDATED], 0);
}

static void
on_job_failed (SbWorker *worker, guint lane, guint64 generation, const GError *error,
               SbPlayground *self)
{
  gtk_spinner_set_spinning (self->spinner, FALSE);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    gtk_label_set_text (self->status_label, error->message);
}

static void
on_progress (SbWorker *worker, guint lane, guint64 generation, double fraction,
             const char *text, SbPlayground *self)
{
  g_autofree char *s = g_strdup_printf ("%s… %.0f%%", text, 100 * fraction);
  gtk_label_set_text (self->status_label, s);
}

/* ---- Scenes ------------------------------------------------------------------------------ */

static const SbRole method_role[SB_N_POSTERIOR_METHODS] = { SB_ROLE_EXACT, SB_ROLE_LAPLACE, SB_ROLE_EP };
static const SbDash method_dash[SB_N_POSTERIOR_METHODS] = { SB_DASH_SOLID, SB_DASH_DASHED, SB_DASH_DASHDOT };
static const char *const method_label[SB_N_POSTERIOR_METHODS] = { "exact SkewGP", "Laplace", "EP" };

/* The result's summaries of method K, when it exists, is shown, and
 * matches the current grid. */
static const sg_point_summary *
summaries (SbPlayground *self, int k)
{
  const SbPlaygroundResult *r = self->result;

  if (r == NULL || r->input->dim != self->dim || r->n_classes != self->n_classes
      || !r->method[k].ok)
    return NULL;
  if ((k == SB_POSTERIOR_LAPLACE && !self->laplace) || (k == SB_POSTERIOR_EP && !self->ep))
    return NULL;
  return r->method[k].summary;
}

typedef enum { COL_PROB, COL_MEAN, COL_LO, COL_HI, COL_SD, COL_SKEW } Column;

static double *
column (const sg_point_summary *s, guint n, Column c)
{
  double *v = g_new (double, n);
  for (guint i = 0; i < n; i++)
    v[i] = c == COL_PROB ? s[i].class_probability : c == COL_MEAN ? s[i].mean
           : c == COL_LO ? s[i].hpd_lower : c == COL_HI ? s[i].hpd_upper
           : c == COL_SD ? s[i].sd : s[i].skewness;
  return v;
}

/* The shapes of the three classes' markers (their colours are
 * SB_ROLE_CLASS_0 + c), so that the classes differ without colour too. */
static const SbMarker class_marker[SB_PLAYGROUND_MAX_CLASSES] = {
  SB_MARKER_CIRCLE, SB_MARKER_TRIANGLE_UP, SB_MARKER_SQUARE,
};

/* The legend's name of class C (on the editing chart: how to place it). */
static void
class_label (SbPlayground *self, guint c, char *buf, gsize size)
{
  if (self->n_classes == 2)
    g_snprintf (buf, size, c == 1 ? "class 1 (click)" : "class 0 (Shift+click)");
  else if (c == 0)
    g_snprintf (buf, size, "class 0 (%sShift+click)", self->place_class == 0 ? "click, " : "");
  else
    g_snprintf (buf, size, "class %u%s", c, self->place_class == c ? " (click)" : "");
}

/* The points as marker layers (two classes: class 1 filled, class 0
 * hollow; three: each class in its colour and shape), the selection and
 * the BALD suggestion. Y1 / Y0 give the 1-D heights of the two classes
 * (NaN: the bottom edge). */
static void
add_points (SbPlayground *self, SbScene *scene, const char *prefix, double y1, double y0,
            gboolean primary)
{
  guint n = self->points->len;
  g_autofree double *xs = g_new (double, n + 1), *ys = g_new (double, n + 1);
  char id[48], label[48];
  SbStyle st;

  for (guint o = 0; o < self->n_classes; o++)
    {
      /* two classes: class 1 first, as the legend always had it */
      guint c = self->n_classes == 2 ? 1 - o : o, k = 0;
      for (guint i = 0; i < n; i++)
        {
          const SbPlaygroundPoint *p = point_at (self, i);
          if (p->label != c)
            continue;
          xs[k] = p->x[0];
          ys[k++] = self->dim == 2 ? p->x[1] : c == 1 ? y1 : y0;
        }
      if (self->n_classes == 2)
        st = sb_style_marker (SB_ROLE_OBSERVATION, SB_MARKER_CIRCLE, 4.5, c == 1);
      else
        st = sb_style_marker (SB_ROLE_CLASS_0 + c, class_marker[c], 5.5, TRUE);
      class_label (self, c, label, sizeof label);
      g_snprintf (id, sizeof id, "%s/class%u", prefix, c);
      sb_scene_take_layer (scene, sb_layer_new_markers (id, primary ? label : NULL, &st, k, xs,
                                                        ys));
    }

  /* The charts other than the editing one repeat the markers unlabelled. */
  if (primary && self->selected >= 0 && self->selected < (int) n)
    {
      const SbPlaygroundPoint *p = point_at (self, self->selected);
      double y = self->dim == 2 ? p->x[1] : p->label == 1 ? y1 : y0;
      st = sb_style_marker (SB_ROLE_NEXT, SB_MARKER_SQUARE, 8.0, FALSE);
      st.alpha = 0.9;
      sb_scene_take_layer (scene, sb_layer_new_markers ("selected", "selected (Delete removes it)",
                                                        &st, 1, &p->x[0], &y));
    }
}

static void
add_suggestion_1d (SbPlayground *self, SbScene *scene, const double *grid,
                   const double *curve, guint n, const char *prefix)
{
  SbStyle st;
  char id[48];

  if (!self->has_suggestion)
    return;
  st = sb_style_line (SB_ROLE_NEXT, 1.2, SB_DASH_DASHED, 0.8);
  g_snprintf (id, sizeof id, "%s/bald-rule", prefix);
  sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_VLINE, id, NULL, &st, self->suggestion[0]));
  if (curve)
    {
      /* On the curve at the grid cell that BALD chose. */
      guint c = self->result->bald_cell;
      double y = c < n ? curve[c] : NAN;
      st = sb_style_marker (SB_ROLE_NEXT, SB_MARKER_DIAMOND, 7.0, FALSE);
      st.line_width = 2;
      g_snprintf (id, sizeof id, "%s/bald-marker", prefix);
      sb_scene_take_layer (scene, sb_layer_new_markers (id, "BALD: label me next", &st, 1,
                                                        &grid[c], &y));
    }
}

/* The exact prior's pseudo-points (000 Figure 7's red dot): in 1-D on
 * the curve CURVE over GRID (nearest cell), in 2-D at their place (with
 * three classes, every one-vs-rest model's). */
static void
add_pseudo_points (SbPlayground *self, SbScene *scene, const double *grid, const double *curve,
                   guint n)
{
  const SbPlaygroundMethod *m = &self->result->method[SB_POSTERIOR_EXACT];
  double x[SB_PLAYGROUND_MAX_S * SB_PLAYGROUND_MAX_CLASSES];
  double y[SB_PLAYGROUND_MAX_S * SB_PLAYGROUND_MAX_CLASSES];
  guint k = 0;
  SbStyle st;

  if (self->result->input->dim != self->dim)
    return;
  for (guint j = 0; j < m->n_models; j++)
    for (guint i = 0; i < m->fit[j].s; i++, k++)
      if (self->dim == 1)
        {
          guint c = 0;
          x[k] = m->fit[j].pseudo_points[i];
          for (guint g = 1; g < n; g++)
            if (fabs (grid[g] - x[k]) < fabs (grid[c] - x[k]))
              c = g;
          y[k] = n ? curve[c] : NAN;
        }
      else
        {
          x[k] = m->fit[j].pseudo_points[2 * i];
          y[k] = m->fit[j].pseudo_points[2 * i + 1];
        }
  if (k == 0)
    return;
  st = sb_style_marker (SB_ROLE_BEST, SB_MARKER_STAR, 6.5, TRUE);
  sb_scene_take_layer (scene, sb_layer_new_markers ("pseudo-points", "SkewGP pseudo-points r", &st,
                                                    k, x, y));
}

static double *
grid_1d (SbPlayground *self, guint *n)
{
  const SbPlaygroundInput *in = self->result->input;
  double *x = g_new (double, in->n_grid);

  for (guint c = 0; c < in->n_grid; c++)
    sb_playground_input_cell (in, c, &x[c]);
  *n = in->n_grid;
  return x;
}

static SbScene *
build_prob_1d (SbPlayground *self)
{
  SbScene *scene = sb_scene_new ("Predictive probability of class 1", "x", "P(y = 1 | data)");
  const sg_point_summary *ex = summaries (self, SB_POSTERIOR_EXACT);
  g_autofree double *grid = NULL, *pex = NULL;
  guint n = 0;
  SbStyle st;

  sb_scene_set_x_range (scene, self->lower[0], self->upper[0]);
  sb_scene_set_y_range (scene, -0.06, 1.06);
  st = sb_style_line (SB_ROLE_FOREGROUND, 0.8, SB_DASH_DOTTED, 0.45);
  sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_HLINE, "half", NULL, &st, 0.5));
  if (ex)
    {
      grid = grid_1d (self, &n);
      /* exact first, the approximations over it (EP is often within a
       * pixel of it and would vanish underneath) */
      for (int k = 0; k < SB_N_POSTERIOR_METHODS; k++)
        {
          const sg_point_summary *s = summaries (self, k);
          char id[32];
          if (s == NULL)
            continue;
          g_autofree double *p = column (s, n, COL_PROB);
          g_snprintf (id, sizeof id, "prob/%s", sb_posterior_method_id (k));
          st = sb_style_line (method_role[k], k == SB_POSTERIOR_EXACT ? 2.6 : 1.9, method_dash[k], 1.0);
          sb_scene_take_layer (scene, sb_layer_new_line (id, method_label[k], &st, n, grid, p));
        }
      pex = column (ex, n, COL_PROB);
      if (self->result->n_check > 0)
        {
          /* The exact formula at the check cells: the curve must pass
           * through these markers (up to its Monte Carlo error). */
          double cx[SB_PLAYGROUND_N_CHECK];
          for (guint k = 0; k < self->result->n_check; k++)
            cx[k] = grid[self->result->check_cell[k]];
          st = sb_style_marker (SB_ROLE_EXACT, SB_MARKER_SQUARE, 4.0, FALSE);
          st.line_width = 1.6;
          sb_scene_take_layer (scene, sb_layer_new_markers ("prob/check", "exact, 000 Cor. 2", &st,
                                                            self->result->n_check, cx,
                                                            self->result->check_prob));
        }
    }
  else
    sb_scene_set_subtitle (scene, self->points->len ? "Computing…" : "Click to add a point of class 1, Shift+click for class 0");
  add_points (self, scene, "points", 1.0, 0.0, TRUE);
  if (ex)
    add_suggestion_1d (self, scene, grid, pex, n, "prob");
  return scene;
}

static SbScene *
build_latent_1d (SbPlayground *self)
{
  SbScene *scene = sb_scene_new ("Latent function f: mean and 95% HPD band", "x", "f(x)");
  const sg_point_summary *ex = summaries (self, SB_POSTERIOR_EXACT);
  g_autofree double *grid = NULL;
  guint n = 0;
  SbStyle st;

  sb_scene_set_x_range (scene, self->lower[0], self->upper[0]);
  st = sb_style_line (SB_ROLE_FOREGROUND, 0.8, SB_DASH_DOTTED, 0.45);
  sb_scene_take_layer (scene, sb_layer_new_rule (SB_LAYER_HLINE, "zero", NULL, &st, 0.0));
  if (ex)
    {
      grid = grid_1d (self, &n);
      g_autofree double *lo = column (ex, n, COL_LO), *hi = column (ex, n, COL_HI);
      g_autofree double *mean = column (ex, n, COL_MEAN);
      st = sb_style_line (SB_ROLE_EXACT, 0, SB_DASH_SOLID, 0.22);
      sb_scene_take_layer (scene, sb_layer_new_band ("band/exact", "exact 95% HPD band", &st, n,
                                                     grid, lo, hi));
      st = sb_style_line (SB_ROLE_EXACT, 2.6, SB_DASH_SOLID, 1.0);
      sb_scene_take_layer (scene, sb_layer_new_line ("mean/exact", "exact mean", &st, n, grid, mean));
      for (int k = SB_POSTERIOR_LAPLACE; k < SB_N_POSTERIOR_METHODS; k++)
        {
          const sg_point_summary *s = summaries (self, k);
          char id[32], label[48];
          if (s == NULL)
            continue;
          g_autofree double *bounds = g_new (double, 2 * n);
          g_autofree double *gm = column (s, n, COL_MEAN);
          for (guint i = 0; i < n; i++)
            {
              bounds[i] = s[i].hpd_lower;
              bounds[n + i] = s[i].hpd_upper;
            }
          g_snprintf (id, sizeof id, "bounds/%s", sb_posterior_method_id (k));
          g_snprintf (label, sizeof label, "%s 95%%", method_label[k]);
          st = sb_style_line (method_role[k], 1.5, SB_DASH_DOTTED, 1.0);
          sb_scene_take_layer (scene, sb_layer_new_lines (id, label, &st, n, grid, 2, bounds));
          g_snprintf (id, sizeof id, "mean/%s", sb_posterior_method_id (k));
          g_snprintf (label, sizeof label, "%s mean", method_label[k]);
          st = sb_style_line (method_role[k], 1.9, method_dash[k], 1.0);
          sb_scene_take_layer (scene, sb_layer_new_line (id, label, &st, n, grid, gm));
        }
      add_pseudo_points (self, scene, grid, mean, n);
      add_suggestion_1d (self, scene, grid, NULL, n, "latent");
    }
  /* The labels as a rug on the bottom edge (NaN heights). */
  add_points (self, scene, "rug", NAN, NAN, FALSE);
  return scene;
}

static SbScene *
build_bald_1d (SbPlayground *self)
{
  SbScene *scene = sb_scene_new ("BALD: expected information from the next label (" SB_PAPER_001_SHORT ", eq. 43)",
                                 "x", "nats");
  g_autofree double *grid = NULL;
  guint n;
  SbStyle st;

  sb_scene_set_x_range (scene, self->lower[0], self->upper[0]);
  if (self->result == NULL || self->result->bald == NULL || !self->has_suggestion)
    return scene;
  grid = grid_1d (self, &n);
  st = sb_style_line (SB_ROLE_ACQUISITION, 2.2, SB_DASH_SOLID, 1.0);
  sb_scene_take_layer (scene, sb_layer_new_line ("bald", "BALD (exact posterior samples)", &st, n,
                                                 grid, self->result->bald));
  add_suggestion_1d (self, scene, grid, self->result->bald, n, "bald");
  return scene;
}

/* ---- 2-D ----------------------------------------------------------------------------------- */

static SbScene *
new_plane_scene (SbPlayground *self, const char *title)
{
  SbScene *scene = sb_scene_new (title, "x₁", "x₂");

  sb_scene_set_x_range (scene, self->lower[0], self->upper[0]);
  sb_scene_set_y_range (scene, self->lower[1], self->upper[1]);
  sb_scene_set_aspect_equal (scene, TRUE);
  return scene;
}

static void
add_suggestion_2d (SbPlayground *self, SbScene *scene, gboolean primary)
{
  SbStyle st;

  if (!self->has_suggestion)
    return;
  st = sb_style_marker (SB_ROLE_NEXT, SB_MARKER_DIAMOND, 8.0, FALSE);
  st.line_width = 2.2;
  sb_scene_take_layer (scene, sb_layer_new_markers ("bald-marker", primary ? "BALD: label me next" : NULL,
                                                    &st, 1, &self->suggestion[0], &self->suggestion[1]));
}

/* Contours of column C of every shown method at LEVEL (the exact one
 * solid and heavier). */
static void
add_method_contours (SbPlayground *self, SbScene *scene, Column c, double level,
                     const char *what)
{
  const SbPlaygroundInput *in = self->result->input;
  guint g = in->n_grid;

  for (int k = SB_N_POSTERIOR_METHODS - 1; k >= 0; k--)
    {
      const sg_point_summary *s = summaries (self, k);
      char id[32], label[64];
      if (s == NULL)
        continue;
      g_autofree double *v = column (s, g * g, c);
      SbStyle st = sb_style_line (k == SB_POSTERIOR_EXACT ? SB_ROLE_FOREGROUND : method_role[k],
                               k == SB_POSTERIOR_EXACT ? 2.4 : 2.0, method_dash[k], 1.0);
      g_snprintf (id, sizeof id, "contour/%s", sb_posterior_method_id (k));
      g_snprintf (label, sizeof label, "%s %s", method_label[k], what);
      sb_scene_take_layer (scene, sb_layer_new_contours (id, label, &st, g, g, v, in->lower[0],
                                                         in->upper[0], in->lower[1], in->upper[1],
                                                         1, &level));
    }
}

static SbScene *
build_prob_2d (SbPlayground *self)
{
  SbScene *scene = new_plane_scene (self, "P(class 1 | data), exact SkewGP");
  const sg_point_summary *ex = summaries (self, SB_POSTERIOR_EXACT);

  if (ex)
    {
      const SbPlaygroundInput *in = self->result->input;
      guint g = in->n_grid;
      g_autofree double *p = column (ex, g * g, COL_PROB);
      /* Diverging and centred at 0.5: the classes' colours, grey where
       * the model does not know. */
      sb_scene_take_layer (scene, sb_layer_new_heatmap ("heatmap", "P(y = 1)", g, g, p,
                                                        in->lower[0], in->upper[0], in->lower[1],
                                                        in->upper[1], SB_COLORMAP_COOLWARM, 0, 1));
      sb_scene_set_colorbar (scene, "heatmap", "P(y = 1)");
      add_method_contours (self, scene, COL_PROB, 0.5, "P = 0.5");
      add_pseudo_points (self, scene, NULL, NULL, 0);
    }
  else
    sb_scene_set_subtitle (scene, self->points->len ? "Computing…" : "Click to add a point of class 1, Shift+click for class 0");
  add_points (self, scene, "points", NAN, NAN, TRUE);
  add_suggestion_2d (self, scene, TRUE);
  return scene;
}

static SbScene *
build_second_2d (SbPlayground *self)
{
  SecondField f = gtk_drop_down_get_selected (self->field_dropdown);
  static const char *const titles[] = {
    "Latent mean, exact; lines: mean = 0", "Latent skewness SS(x), exact",
    "Latent standard deviation, exact", "BALD (" SB_PAPER_001_SHORT ", eq. 43)",
  };
  SbScene *scene = new_plane_scene (self, titles[MIN (f, FIELD_BALD)]);
  const sg_point_summary *ex = summaries (self, SB_POSTERIOR_EXACT);

  if (ex)
    {
      const SbPlaygroundInput *in = self->result->input;
      guint g = in->n_grid;
      g_autofree double *v = NULL;
      SbColormap map = SB_COLORMAP_VIRIDIS;
      double vmin = 0, vmax = 1;
      const char *name = "mean";

      switch (f)
        {
        case FIELD_SKEWNESS: v = column (ex, g * g, COL_SKEW); name = "SS(x)"; break;
        case FIELD_SD: v = column (ex, g * g, COL_SD); name = "sd"; break;
        case FIELD_BALD:
          if (self->result->bald && self->has_suggestion)
            v = g_memdup2 (self->result->bald, (gsize) g * g * sizeof (double));
          name = "BALD";
          break;
        case FIELD_MEAN: default: v = column (ex, g * g, COL_MEAN); break;
        }
      if (v)
        {
          g_autoptr (SbGrid2) grid = sb_grid2_new (g, g, in->lower[0], in->upper[0],
                                                   in->lower[1], in->upper[1], v);
          sb_grid2_get_range (grid, &vmin, &vmax);
          if (f == FIELD_SKEWNESS || f == FIELD_MEAN)
            {
              double m = MAX (fabs (vmin), fabs (vmax));
              vmin = -(m > 0 ? m : 1);
              vmax = -vmin;
              map = SB_COLORMAP_COOLWARM;
            }
          sb_scene_take_layer (scene, sb_layer_new_heatmap ("field", name, g, g, v, in->lower[0],
                                                            in->upper[0], in->lower[1], in->upper[1],
                                                            map, vmin, vmax));
          sb_scene_set_colorbar (scene, "field", name);
          if (f == FIELD_MEAN)
            add_method_contours (self, scene, COL_MEAN, 0.0, "mean = 0");
        }
      else
        sb_scene_set_subtitle (scene, "Press \"Suggest Next Point\" to compute BALD");
    }
  add_points (self, scene, "points", NAN, NAN, FALSE);
  add_suggestion_2d (self, scene, FALSE);
  return scene;
}

/* ---- 2-D, three classes ---------------------------------------------------------------- */

/* Method K's class probabilities (n_cells x n_classes), when shown and
 * current. */
static const double *
class_probs (SbPlayground *self, int k)
{
  return summaries (self, k) ? self->result->method[k].prob : NULL;
}

/* Every shown method's decision boundaries: for each class c the zero
 * level of p_c - max_{j != c} p_j, where c stops being the most probable
 * class (each boundary is thus traced from both sides, on the same
 * line). The exact one solid and heavier, drawn last. */
static void
add_boundaries (SbPlayground *self, SbScene *scene)
{
  const SbPlaygroundInput *in = self->result->input;
  guint g = in->n_grid, C = self->n_classes;
  g_autofree double *margin = g_new (double, (gsize) g * g);
  const double zero = 0;

  for (int k = SB_N_POSTERIOR_METHODS - 1; k >= 0; k--)
    {
      const double *p = class_probs (self, k);
      if (p == NULL)
        continue;
      SbStyle st = sb_style_line (k == SB_POSTERIOR_EXACT ? SB_ROLE_FOREGROUND : method_role[k],
                                  k == SB_POSTERIOR_EXACT ? 2.4 : 2.0, method_dash[k], 1.0);
      for (guint c = 0; c < C; c++)
        {
          char id[48], label[64];
          for (guint i = 0; i < g * g; i++)
            {
              double other = -1;
              for (guint j = 0; j < C; j++)
                if (j != c)
                  other = MAX (other, p[(gsize) i * C + j]);
              margin[i] = p[(gsize) i * C + c] - other;
            }
          g_snprintf (id, sizeof id, "boundary/%s/%u", sb_posterior_method_id (k), c);
          g_snprintf (label, sizeof label, "%s decision boundary", method_label[k]);
          SbLayer *l = sb_layer_new_contours (id, c == 0 ? label : NULL, &st, g, g, margin,
                                              in->lower[0], in->upper[0], in->lower[1],
                                              in->upper[1], 1, &zero);
          /* the class map under it names the probabilities */
          sb_layer_set_readout (l, FALSE);
          sb_scene_take_layer (scene, l);
        }
    }
}

static SbScene *
build_classes_2d (SbPlayground *self)
{
  SbScene *scene = new_plane_scene (self, "Most probable class, exact SkewGP one-vs-rest");
  const double *p = class_probs (self, SB_POSTERIOR_EXACT);

  if (p)
    {
      const SbPlaygroundInput *in = self->result->input;
      guint g = in->n_grid;
      sb_scene_take_layer (scene, sb_layer_new_classmap ("classmap", "exact SkewGP", g, g,
                                                         self->n_classes, p, in->lower[0],
                                                         in->upper[0], in->lower[1],
                                                         in->upper[1]));
      sb_scene_set_colorbar (scene, "classmap", "P(most probable class)");
      add_boundaries (self, scene);
      add_pseudo_points (self, scene, NULL, NULL, 0);
    }
  else
    sb_scene_set_subtitle (scene, self->points->len ? "Computing…"
                                                    : "Click to add a point of the class chosen "
                                                      "under Click places, Shift+click for class 0");
  add_points (self, scene, "points", NAN, NAN, TRUE);
  return scene;
}

/* The largest |P(c) - P_exact(c)| over the classes, per cell, of method
 * K (NULL when either is not shown). */
static double *
probability_error (SbPlayground *self, int k)
{
  const double *p = class_probs (self, k), *e = class_probs (self, SB_POSTERIOR_EXACT);
  guint n = self->result->n_cells, C = self->n_classes;

  if (p == NULL || e == NULL)
    return NULL;
  double *v = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      v[i] = 0;
      for (guint c = 0; c < C; c++)
        v[i] = MAX (v[i], fabs (p[(gsize) i * C + c] - e[(gsize) i * C + c]));
    }
  return v;
}

static SbScene *
build_second_classes_2d (SbPlayground *self)
{
  guint f = gtk_drop_down_get_selected (self->field_dropdown);
  const SbPlaygroundResult *r = self->result;
  const double *p = class_probs (self, SB_POSTERIOR_EXACT);
  guint c = f % SB_PLAYGROUND_MAX_CLASSES, C = self->n_classes;
  g_autofree char *title = NULL, *name = NULL;
  g_autofree double *v = NULL;
  SbColormap map = SB_COLORMAP_VIRIDIS;
  double vmin = 0, vmax = 1;
  SbScene *scene;

  if (f < FIELD3_SKEWNESS)
    {
      title = g_strdup_printf ("P(class %u), exact; lines: P = 0.5", c);
      name = g_strdup_printf ("P(class %u)", c);
    }
  else if (f < FIELD3_ERROR_LAPLACE)
    {
      title = g_strdup_printf ("Skewness SS(x) of class %u's one-vs-rest latent, exact", c);
      name = g_strdup ("SS(x)");
    }
  else
    {
      int k = f == FIELD3_ERROR_LAPLACE ? SB_POSTERIOR_LAPLACE : SB_POSTERIOR_EP;
      title = g_strdup_printf ("%s against exact: largest |ΔP(class)|", method_label[k]);
      name = g_strdup ("|ΔP|");
    }
  scene = new_plane_scene (self, title);
  if (p == NULL)
    {
      add_points (self, scene, "points", NAN, NAN, FALSE);
      return scene;
    }

  guint g = r->input->n_grid, n = r->n_cells;
  const SbPlaygroundInput *in = r->input;
  if (f < FIELD3_SKEWNESS)
    {
      v = g_new (double, n);
      for (guint i = 0; i < n; i++)
        v[i] = p[(gsize) i * C + c];
    }
  else if (f < FIELD3_ERROR_LAPLACE)
    {
      v = column (summaries (self, SB_POSTERIOR_EXACT) + (gsize) c * n, n, COL_SKEW);
      double m = 0;
      for (guint i = 0; i < n; i++)
        m = MAX (m, fabs (v[i]));
      vmin = -(m > 0 ? m : 1);
      vmax = -vmin;
      map = SB_COLORMAP_COOLWARM;
    }
  else
    {
      v = probability_error (self, f == FIELD3_ERROR_LAPLACE ? SB_POSTERIOR_LAPLACE
                                                             : SB_POSTERIOR_EP);
      if (v)
        {
          vmax = 0;
          for (guint i = 0; i < n; i++)
            vmax = MAX (vmax, v[i]);
          vmax = vmax > 0 ? vmax : 1;
        }
      else
        sb_scene_set_subtitle (scene, "Tick the method under Compare with");
    }
  if (v)
    {
      sb_scene_take_layer (scene, sb_layer_new_heatmap ("field", name, g, g, v, in->lower[0],
                                                        in->upper[0], in->lower[1], in->upper[1],
                                                        map, vmin, vmax));
      sb_scene_set_colorbar (scene, "field", name);
    }
  if (f < FIELD3_SKEWNESS)
    for (int k = SB_N_POSTERIOR_METHODS - 1; k >= 0; k--)
      {
        const double *pk = class_probs (self, k);
        const double half = 0.5;
        char id[32], label[64];
        if (pk == NULL)
          continue;
        g_autofree double *pc = g_new (double, n);
        for (guint i = 0; i < n; i++)
          pc[i] = pk[(gsize) i * C + c];
        SbStyle st = sb_style_line (k == SB_POSTERIOR_EXACT ? SB_ROLE_FOREGROUND : method_role[k],
                                    k == SB_POSTERIOR_EXACT ? 2.4 : 2.0, method_dash[k], 1.0);
        g_snprintf (id, sizeof id, "contour/%s", sb_posterior_method_id (k));
        g_snprintf (label, sizeof label, "%s P = 0.5", method_label[k]);
        sb_scene_take_layer (scene, sb_layer_new_contours (id, label, &st, g, g, pc,
                                                           in->lower[0], in->upper[0],
                                                           in->lower[1], in->upper[1], 1,
                                                           &half));
      }
  add_points (self, scene, "points", NAN, NAN, FALSE);
  return scene;
}

static void
rebuild_scenes (SbPlayground *self)
{
  g_autoptr (SbScene) a = NULL, b = NULL, c = NULL;

  if (self->dim == 1)
    {
      a = build_prob_1d (self);
      b = build_latent_1d (self);
      c = build_bald_1d (self);
      gtk_widget_set_visible (GTK_WIDGET (self->bald_chart), self->has_suggestion);
    }
  else if (self->n_classes == 3)
    {
      a = build_classes_2d (self);
      b = build_second_classes_2d (self);
      gtk_widget_set_visible (GTK_WIDGET (self->bald_chart), FALSE);
    }
  else
    {
      a = build_prob_2d (self);
      b = build_second_2d (self);
      gtk_widget_set_visible (GTK_WIDGET (self->bald_chart), FALSE);
    }
  sb_chart_set_scene (self->prob_chart, a);
  sb_chart_set_scene (self->latent_chart, b);
  sb_chart_set_scene (self->bald_chart, c);
}

/* ---- Pointer editing ----------------------------------------------------------------------- */

gboolean
sb_playground_point_to_widget (SbPlayground *self, const double *x, guint label,
                               double *wx, double *wy)
{
  SbFrame f;

  g_return_val_if_fail (SB_IS_PLAYGROUND (self), FALSE);
  if (!sb_chart_get_frame (self->prob_chart, &f))
    return FALSE;
  *wx = sb_frame_x_to_device (&f, x[0]);
  *wy = sb_frame_y_to_device (&f, self->dim == 2 ? x[1] : label == 1 ? 1.0 : 0.0);
  return TRUE;
}

/* Data coordinates of widget point (WX, WY) of the probability chart. */
static gboolean
widget_to_data (SbPlayground *self, double wx, double wy, double *x)
{
  SbFrame f;

  if (!sb_chart_get_frame (self->prob_chart, &f))
    return FALSE;
  x[0] = sb_frame_x_from_device (&f, wx);
  x[1] = self->dim == 2 ? sb_frame_y_from_device (&f, wy) : 0;
  clamp_to_domain (self, x);
  return TRUE;
}

/* The nearest point within HIT_RADIUS of (WX, WY), or -1. */
static int
hit_point (SbPlayground *self, double wx, double wy)
{
  double best = HIT_RADIUS * HIT_RADIUS;
  int hit = -1;

  for (guint i = 0; i < self->points->len; i++)
    {
      const SbPlaygroundPoint *p = point_at (self, i);
      double px, py;
      if (!sb_playground_point_to_widget (self, p->x, p->label, &px, &py))
        return -1;
      double d = (px - wx) * (px - wx) + (py - wy) * (py - wy);
      if (d <= best)
        {
          best = d;
          hit = (int) i;
        }
    }
  return hit;
}

/* In 1-D the suggestion is a vertical rule: any press near its x hits
 * it; in 2-D the diamond. */
static gboolean
hit_suggestion (SbPlayground *self, double wx, double wy)
{
  double px, py;

  if (!self->has_suggestion
      || !sb_playground_point_to_widget (self, self->suggestion, 1, &px, &py))
    return FALSE;
  if (self->dim == 1)
    return fabs (px - wx) <= HIT_RADIUS;
  return (px - wx) * (px - wx) + (py - wy) * (py - wy) <= 1.5 * HIT_RADIUS * 1.5 * HIT_RADIUS;
}

void
sb_playground_pointer_press (SbPlayground *self, guint button, GdkModifierType state,
                             double wx, double wy)
{
  SbFrame f;
  double x[2];
  int hit;

  g_return_if_fail (SB_IS_PLAYGROUND (self));
  self->drag_index = -1;
  self->drag_moved = self->drag_pushed = FALSE;
  if (!sb_chart_get_frame (self->prob_chart, &f)
      || !sb_frame_contains (&f, wx, wy) || !widget_to_data (self, wx, wy, x))
    return;
  hit = hit_point (self, wx, wy);

  if (button == GDK_BUTTON_SECONDARY)
    {
      if (hit >= 0)
        sb_playground_remove_point (self, (guint) hit);
      return;
    }
  if (button != GDK_BUTTON_PRIMARY)
    return;
  if (hit >= 0)
    {
      /* Select it; a drag moves it. */
      self->selected = hit;
      self->drag_index = hit;
      rebuild_scenes (self);
      return;
    }
  /* Shift+click: class 0; a click: class 1, or with three classes the
   * class chosen to place. */
  guint label = state & GDK_SHIFT_MASK ? 0 : self->n_classes == 2 ? 1 : self->place_class;
  if (hit_suggestion (self, wx, wy))
    {
      /* Label the suggested point exactly where BALD put it. */
      memcpy (x, self->suggestion, sizeof x);
      add_point_internal (self, x, label, TRUE);
      return;
    }
  if (add_point_internal (self, x, label, FALSE))
    self->drag_index = (int) self->points->len - 1;  /* press-and-drag places it */
  self->drag_pushed = TRUE;                           /* the add pushed the undo entry */
}

static gboolean
drag_submit_cb (gpointer data)
{
  SbPlayground *self = data;
  self->drag_submit_source = 0;
  submit (self);
  return G_SOURCE_REMOVE;
}

void
sb_playground_pointer_motion (SbPlayground *self, double wx, double wy)
{
  double x[2];

  g_return_if_fail (SB_IS_PLAYGROUND (self));
  if (self->drag_index < 0 || self->drag_index >= (int) self->points->len
      || !widget_to_data (self, wx, wy, x))
    return;
  if (!self->drag_pushed)
    {
      push_undo (self);
      self->drag_pushed = TRUE;
    }
  self->drag_moved = TRUE;
  memcpy (point_at (self, self->drag_index)->x, x, self->dim * sizeof (double));
  self->has_suggestion = FALSE;
  self->want_bald = FALSE;
  rebuild_scenes (self);
  /* Jobs at a bounded rate while the point moves; the release submits
   * the final position. */
  if (self->drag_submit_source == 0)
    self->drag_submit_source = g_timeout_add (DRAG_SUBMIT_MS, drag_submit_cb, self);
}

void
sb_playground_pointer_release (SbPlayground *self, double wx, double wy)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  if (self->drag_index >= 0 && self->drag_moved)
    {
      sb_playground_pointer_motion (self, wx, wy);
      submit (self);
    }
  self->drag_index = -1;
  self->drag_moved = FALSE;
}

static void
gesture_begin_cb (GtkGestureDrag *gesture, double x, double y, SbPlayground *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  /* Ours, not the chart's drag-zoom / click. */
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  sb_playground_pointer_press (self, button, state, x, y);
}

static void
gesture_update_cb (GtkGestureDrag *gesture, double dx, double dy, SbPlayground *self)
{
  double x0, y0;

  if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0) && (fabs (dx) > 2 || fabs (dy) > 2))
    sb_playground_pointer_motion (self, x0 + dx, y0 + dy);
}

static void
gesture_end_cb (GtkGestureDrag *gesture, double dx, double dy, SbPlayground *self)
{
  double x0, y0;

  if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0))
    sb_playground_pointer_release (self, x0 + dx, y0 + dy);
}

/* ---- Public API --------------------------------------------------------------------------- */

static void
reset_domain (SbPlayground *self, guint dim)
{
  self->dim = dim;
  for (guint j = 0; j < 2; j++)
    {
      self->lower[j] = 0;
      self->upper[j] = 10;
    }
  g_array_set_size (self->points, 0);
  g_ptr_array_set_size (self->undo, 0);
  self->n_classes = 2;
  self->place_class = 1;
  self->selected = -1;
  self->has_suggestion = self->want_bald = FALSE;
  g_clear_pointer (&self->result, sb_playground_result_free);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->charts_box),
                                  dim == 1 ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
  gtk_widget_set_visible (self->field_box, dim == 2);
  sb_chart_reset_zoom (self->prob_chart);
  sb_chart_reset_zoom (self->latent_chart);
  sb_chart_reset_zoom (self->bald_chart);
}

void
sb_playground_set_dim (SbPlayground *self, guint dim)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  dim = CLAMP (dim, 1, 2);
  reset_domain (self, dim);
  set_explanation (self, "How to play", help_text);
  sync_controls (self);
  update_info (self);
  rebuild_scenes (self);
  submit (self);
}

guint
sb_playground_get_dim (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), 1);
  return self->dim;
}

gboolean
sb_playground_load_preset (SbPlayground *self, const char *preset_id)
{
  const Preset *p = find_preset (preset_id);

  g_return_val_if_fail (SB_IS_PLAYGROUND (self), FALSE);
  if (p == NULL)
    return FALSE;
  if (g_str_equal (p->id, SB_PLAYGROUND_PRESET_LAPLACE))
    {
      reset_domain (self, 1);
      for (guint i = 0; i < G_N_ELEMENTS (laplace_x); i++)
        {
          SbPlaygroundPoint pt = { { laplace_x[i], 0 }, laplace_y[i] };
          g_array_append_val (self->points, pt);
        }
      self->lengthscale = LAPLACE_LENGTHSCALE;
      self->variance = LAPLACE_VARIANCE;
      self->fit = FALSE;
      self->skew = FALSE;
      self->laplace = self->ep = TRUE;
    }
  else if (g_str_equal (p->id, "clusters-2d"))
    {
      reset_domain (self, 2);
      for (guint i = 0; i < G_N_ELEMENTS (clusters_y); i++)
        {
          SbPlaygroundPoint pt = { { clusters_x[i][0], clusters_x[i][1] }, clusters_y[i] };
          g_array_append_val (self->points, pt);
        }
      self->lengthscale = 3;
      self->variance = 20;
      self->fit = FALSE;
    }
  else if (g_str_equal (p->id, SB_PLAYGROUND_PRESET_THREE))
    {
      reset_domain (self, 2);
      self->n_classes = 3;
      for (guint i = 0; i < G_N_ELEMENTS (three_y); i++)
        {
          SbPlaygroundPoint pt = { { three_x[i][0], three_x[i][1] }, three_y[i] };
          g_array_append_val (self->points, pt);
        }
      self->lengthscale = 2.5;
      self->variance = 20;
      self->fit = FALSE;
      self->skew = FALSE;
      self->laplace = self->ep = TRUE;
    }
  else
    {
      reset_domain (self, 1);
      self->lengthscale = 1;
      self->variance = 1;
    }
  set_explanation (self, p->title, p->text);
  sync_controls (self);
  update_info (self);
  rebuild_scenes (self);
  submit (self);
  return TRUE;
}

const char *
sb_playground_get_explanation (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), NULL);
  return self->explanation;
}

void
sb_playground_set_hyper (SbPlayground *self, double lengthscale, double variance)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  g_return_if_fail (lengthscale > 0 && variance > 0);
  self->lengthscale = lengthscale;
  self->variance = variance;
  sync_controls (self);
  submit (self);
}

void
sb_playground_set_fit (SbPlayground *self, gboolean fit)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  self->fit = fit;
  sync_controls (self);
  submit (self);
}

void
sb_playground_suggest (SbPlayground *self)
{
  g_return_if_fail (SB_IS_PLAYGROUND (self));
  self->want_bald = TRUE;
  submit (self);
}

gboolean
sb_playground_get_suggestion (SbPlayground *self, double *x)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), FALSE);
  if (self->has_suggestion && x)
    memcpy (x, self->suggestion, self->dim * sizeof (double));
  return self->has_suggestion;
}

const SbPlaygroundInput *
sb_playground_get_last_input (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), NULL);
  return self->last_input;
}

const SbPlaygroundResult *
sb_playground_get_result (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), NULL);
  return self->result;
}

gboolean
sb_playground_get_busy (SbPlayground *self)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), FALSE);
  return sb_worker_is_busy (self->worker, SB_WORKER_LANE_PLOT);
}

SbChart *
sb_playground_get_chart (SbPlayground *self, guint which)
{
  g_return_val_if_fail (SB_IS_PLAYGROUND (self), NULL);
  return which == 0 ? self->prob_chart : which == 1 ? self->latent_chart : self->bald_chart;
}

/* ---- Actions and controls --------------------------------------------------------------- */

static void
undo_action (GSimpleAction *a, GVariant *p, gpointer self)
{
  sb_playground_undo (self);
}

static void
clear_action (GSimpleAction *a, GVariant *p, gpointer self)
{
  sb_playground_clear (self);
}

static void
delete_selected_action (GSimpleAction *a, GVariant *p, gpointer data)
{
  SbPlayground *self = data;

  if (self->selected >= 0 && self->selected < (int) self->points->len)
    sb_playground_remove_point (self, (guint) self->selected);
}

static void
suggest_action (GSimpleAction *a, GVariant *p, gpointer self)
{
  sb_playground_suggest (self);
}

static void
load_preset_action (GSimpleAction *a, GVariant *p, gpointer self)
{
  sb_playground_load_preset (self, g_variant_get_string (p, NULL));
}

static void
mode_change_state (GSimpleAction *a, GVariant *value, gpointer data)
{
  SbPlayground *self = data;

  if (self->syncing)
    return;
  g_simple_action_set_state (a, value);
  sb_playground_set_dim (self, g_str_equal (g_variant_get_string (value, NULL), "2d") ? 2 : 1);
}

static void
toggle_change_state (GSimpleAction *a, GVariant *value, gpointer data)
{
  SbPlayground *self = data;
  const char *name = g_action_get_name (G_ACTION (a));
  gboolean on = g_variant_get_boolean (value);

  g_simple_action_set_state (a, value);
  if (self->syncing)
    return;
  if (g_str_equal (name, "fit"))
    self->fit = on;
  else if (g_str_equal (name, "skew"))
    self->skew = on;
  else if (g_str_equal (name, "compare-laplace"))
    self->laplace = on;
  else
    self->ep = on;
  update_hyper_labels (self);
  rebuild_scenes (self);
  submit (self);
}

static void
scale_changed_cb (GtkRange *range, SbPlayground *self)
{
  if (self->syncing)
    return;
  if (range == GTK_RANGE (self->lengthscale_scale))
    self->lengthscale = pow (10, gtk_range_get_value (range));
  else
    self->variance = pow (10, gtk_range_get_value (range));
  update_hyper_labels (self);
  submit (self);
}

static void
field_changed_cb (SbPlayground *self)
{
  if (self->syncing)
    return;
  /* BALD is computed on request: choosing its plot asks for it. */
  if (gtk_drop_down_get_selected (self->field_dropdown) == FIELD_BALD && !self->has_suggestion
      && !self->want_bald && self->dim == 2 && self->n_classes == 2)
    sb_playground_suggest (self);
  rebuild_scenes (self);
}

static void
classes_change_state (GSimpleAction *a, GVariant *value, gpointer data)
{
  SbPlayground *self = data;

  if (self->syncing)
    return;
  g_simple_action_set_state (a, value);
  sb_playground_set_n_classes (self, g_str_equal (g_variant_get_string (value, NULL), "3") ? 3 : 2);
}

static void
place_class_change_state (GSimpleAction *a, GVariant *value, gpointer data)
{
  SbPlayground *self = data;
  const char *id = g_variant_get_string (value, NULL);

  if (self->syncing || id[0] < '0' || id[0] > '2' || id[1] != 0)
    return;
  g_simple_action_set_state (a, value);
  sb_playground_set_place_class (self, (guint) (id[0] - '0'));
  rebuild_scenes (self);
}

static const GActionEntry win_actions[] = {
  { .name = "undo", .activate = undo_action },
  { .name = "clear", .activate = clear_action },
  { .name = "delete-selected", .activate = delete_selected_action },
  { .name = "suggest", .activate = suggest_action },
  { .name = "load-preset", .activate = load_preset_action, .parameter_type = "s" },
  { .name = "mode", .state = "'1d'", .change_state = mode_change_state, .parameter_type = "s" },
  { .name = "classes", .state = "'2'", .change_state = classes_change_state, .parameter_type = "s" },
  { .name = "place-class", .state = "'1'", .change_state = place_class_change_state,
    .parameter_type = "s" },
  { .name = "fit", .state = "false", .change_state = toggle_change_state },
  { .name = "skew", .state = "false", .change_state = toggle_change_state },
  { .name = "compare-laplace", .state = "true", .change_state = toggle_change_state },
  { .name = "compare-ep", .state = "true", .change_state = toggle_change_state },
};

/* The second plot's choices with three classes (ThreeClassField order). */
static GListModel *
three_class_fields (void)
{
  GtkStringList *list = gtk_string_list_new (NULL);

  for (guint c = 0; c < SB_PLAYGROUND_MAX_CLASSES; c++)
    {
      g_autofree char *s = g_strdup_printf ("Probability of class %u", c);
      gtk_string_list_append (list, s);
    }
  for (guint c = 0; c < SB_PLAYGROUND_MAX_CLASSES; c++)
    {
      g_autofree char *s = g_strdup_printf ("Latent skewness, class %u vs rest", c);
      gtk_string_list_append (list, s);
    }
  gtk_string_list_append (list, "Laplace vs exact probabilities");
  gtk_string_list_append (list, "EP vs exact probabilities");
  return G_LIST_MODEL (list);
}

/* A swatch of class C's colour and marker, as the plots draw them. */
static void
draw_swatch (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  SbPlayground *self = g_object_get_data (G_OBJECT (area), "playground");
  guint c = GPOINTER_TO_UINT (data);
  const SbPalette *palette = sb_chart_get_palette (self->prob_chart);
  SbStyle st = sb_style_marker (SB_ROLE_CLASS_0 + c, class_marker[c], 5.5, TRUE);
  g_autoptr (SbLayer) l = sb_layer_new_markers ("swatch", NULL, &st, 1, &(double) { 0.5 },
                                                &(double) { 0.5 });
  SbFrame f = { .width = width, .height = height, .px = 0, .py = 0, .pw = width, .ph = height,
                .x0 = 0, .x1 = 1, .y0 = 0, .y1 = 1 };

  sb_layer_render (l, cr, &f, palette);
}

/* "Click places": one toggle button per class, bound to win.place-class. */
static void
add_place_buttons (SbPlayground *self)
{
  for (guint c = 0; c < SB_PLAYGROUND_MAX_CLASSES; c++)
    {
      char id[2] = { (char) ('0' + c), 0 };
      g_autofree char *text = g_strdup_printf ("%u", c);
      g_autofree char *tip = g_strdup_printf ("A click places class %u (key %u)", c, c);
      GtkWidget *button = gtk_toggle_button_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      GtkWidget *swatch = gtk_drawing_area_new ();
      GtkWidget *label = gtk_label_new (text);

      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 14);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 14);
      g_object_set_data (G_OBJECT (swatch), "playground", self);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch,
                                      GUINT_TO_POINTER (c), NULL);
      gtk_box_append (GTK_BOX (box), swatch);
      gtk_box_append (GTK_BOX (box), label);
      gtk_button_set_child (GTK_BUTTON (button), box);
      gtk_widget_set_tooltip_text (button, tip);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.place-class");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", id);
      gtk_box_append (self->place_buttons, button);
    }
}

/* ---- GObject ---------------------------------------------------------------------------- */

static void
sb_playground_dispose (GObject *object)
{
  SbPlayground *self = SB_PLAYGROUND (object);

  g_clear_handle_id (&self->drag_submit_source, g_source_remove);
  if (self->worker)
    {
      sb_worker_cancel_all (self->worker);
      g_signal_handlers_disconnect_by_data (self->worker, self);
    }
  g_clear_object (&self->worker);
  gtk_widget_dispose_template (GTK_WIDGET (self), SB_TYPE_PLAYGROUND);
  G_OBJECT_CLASS (sb_playground_parent_class)->dispose (object);
}

static void
sb_playground_finalize (GObject *object)
{
  SbPlayground *self = SB_PLAYGROUND (object);

  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->undo, g_ptr_array_unref);
  g_clear_object (&self->fields2);
  g_clear_object (&self->fields3);
  g_clear_pointer (&self->last_input, sb_playground_input_free);
  g_clear_pointer (&self->result, sb_playground_result_free);
  g_free (self->explanation);
  g_free (self->preset_title);
  g_free (self->notice);
  G_OBJECT_CLASS (sb_playground_parent_class)->finalize (object);
}

static void
sb_playground_class_init (SbPlaygroundClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sb_playground_dispose;
  object_class->finalize = sb_playground_finalize;

  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (SB_TYPE_CHART);
  sb_window_class_add_close_keys (widget_class, NULL);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/skewbench/SkewBench/ui/sb-playground.ui");
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, charts_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, lower_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, prob_chart);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, latent_chart);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, bald_chart);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, explanation_title);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, lengthscale_label);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, lengthscale_scale);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, variance_label);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, variance_scale);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, field_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, field_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, classes_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, place_box);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, place_buttons);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, info_label);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, spinner);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, status_label);
  gtk_widget_class_bind_template_child (widget_class, SbPlayground, suggest_button);
}

static void
sb_playground_init (SbPlayground *self)
{
  GtkGesture *drag;
  GtkEventController *shortcuts;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->points = g_array_new (FALSE, FALSE, sizeof (SbPlaygroundPoint));
  self->undo = g_ptr_array_new_with_free_func (undo_entry_free);
  self->n_classes = 2;
  self->place_class = 1;
  self->fields2 = g_object_ref (gtk_drop_down_get_model (self->field_dropdown));
  self->fields3 = three_class_fields ();
  add_place_buttons (self);
  self->lengthscale = 1;
  self->variance = 1;
  self->laplace = self->ep = TRUE;
  self->selected = self->drag_index = -1;

  self->worker = sb_worker_new ();
  g_signal_connect (self->worker, "job-finished", G_CALLBACK (on_job_finished), self);
  g_signal_connect (self->worker, "job-failed", G_CALLBACK (on_job_failed), self);
  g_signal_connect (self->worker, "progress", G_CALLBACK (on_progress), self);

  g_action_map_add_action_entries (G_ACTION_MAP (self), win_actions, G_N_ELEMENTS (win_actions),
                                   self);

  /* Editing on the probability chart, in the capture phase so that the
   * chart's own drag-zoom and click never see these presses. */
  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (drag), GTK_PHASE_CAPTURE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (gesture_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (gesture_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (gesture_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->prob_chart), GTK_EVENT_CONTROLLER (drag));

  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
    gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0),
                                                   gtk_keyval_trigger_new (GDK_KEY_BackSpace, 0)),
                      gtk_named_action_new ("win.delete-selected")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_z, GDK_CONTROL_MASK),
                      gtk_named_action_new ("win.undo")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
    gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_b, GDK_CONTROL_MASK),
                      gtk_named_action_new ("win.suggest")));
  for (guint d = 1; d <= 2; d++)
    {
      GtkShortcut *sc = gtk_shortcut_new (gtk_keyval_trigger_new (d == 1 ? GDK_KEY_1 : GDK_KEY_2,
                                                                  GDK_CONTROL_MASK),
                                          gtk_named_action_new ("win.mode"));
      gtk_shortcut_set_arguments (sc, g_variant_new_string (d == 1 ? "1d" : "2d"));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts), sc);
    }
  /* 0, 1, 2: the class a click places (three classes). */
  for (guint c = 0; c < SB_PLAYGROUND_MAX_CLASSES; c++)
    {
      char id[2] = { (char) ('0' + c), 0 };
      GtkShortcut *sc = gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_0 + c, 0),
                                          gtk_named_action_new ("win.place-class"));
      gtk_shortcut_set_arguments (sc, g_variant_new_string (id));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts), sc);
    }
  gtk_widget_add_controller (GTK_WIDGET (self), shortcuts);

  g_signal_connect (self->lengthscale_scale, "value-changed", G_CALLBACK (scale_changed_cb), self);
  g_signal_connect (self->variance_scale, "value-changed", G_CALLBACK (scale_changed_cb), self);
  g_signal_connect_swapped (self->field_dropdown, "notify::selected", G_CALLBACK (field_changed_cb),
                            self);

  reset_domain (self, 1);
  set_explanation (self, "How to play", help_text);
  sync_controls (self);
  update_info (self);
  rebuild_scenes (self);
}

SbPlayground *
sb_playground_new (GtkApplication *application)
{
  SbPlayground *self = g_object_new (SB_TYPE_PLAYGROUND, "application", application, NULL);

  /* The prior alone (no points): the first picture. */
  submit (self);
  return self;
}

