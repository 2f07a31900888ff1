/* sb-population-model.h — a study's answers as the hierarchical model
 * reads them: the snapshot of the study, the box scaled to [0, 1], the
 * answers as the engine's data, the model and the fit of its kernels.
 *
 * Participant p's utility is f_p(x) = g(x) + h_p(x): a population utility
 * g ~ GP(0, k_pop) shared by everyone plus a deviation h_p ~ GP(0, k_ind)
 * of their own (engine/sg-hier.h). The report built on it is
 * sb-population.h, the cache that a participant's question uses
 * sb-population-cache.h.
 *
 * Who counts: every participant not excluded (withdrawn ones included:
 * their answers were given). Their answers are replayed as a session's
 * are (core/sb-jobs.c): duels with their confidence, the side shown first
 * and whether a tie was an answer, ties, choices, rankings, measured
 * values (numeric in preference and mixed mode, valid above the threshold
 * in safe mode) and failed settings (below the threshold); answers the
 * experimenter removed and skips never reach the model.
 *
 * Coordinates. The model works in the box scaled to [0, 1] per parameter
 * (so one lengthscale prior and one distance tolerance fit every
 * parameter); settings and lengthscales are reported in the parameters'
 * own units.
 *
 * The kernels start at variance 1 and lengthscale 0.2 (box widths) for
 * g, variance SB_POPULATION_IND_VARIANCE and lengthscale 0.2 for h_p,
 * probit sd 1/sqrt2 (a duel's likelihood Phi(f(a) - f(b)), as a
 * session's model). Fits free both kernels' variances (g's from 0.1 to
 * 100, h_p's from 0.01 to 1: a few answers per person cannot tell shared
 * from personal preference apart, and an unbounded h_p takes it all) and
 * lengthscales (0.05 to 2 box widths, as a session's refits) on the exact
 * evidence of every answer, up to SB_POPULATION_EXACT_FIT_MAX answers;
 * beyond, g's lengthscales on the ELBO of the sparse variational model
 * (sg_hier_sparse_fit: the ELBO cannot learn the variances, and would
 * only shrink h_p's part, so those are held). The probit sd stays.
 *
 * No GTK, no GObject state: a snapshot (SbPopulationInput) is taken on
 * the calling thread and everything else runs on any thread.
 */
#pragma once

#include "sb-study.h"
#include "sg-hier.h"

G_BEGIN_DECLS

#define SB_POPULATION_IND_VARIANCE 0.25
#define SB_POPULATION_STREAM_FIT 101
/* The most answers whose exact evidence a fit maximises (beyond: the
 * ELBO; tests/bench/results-scale.md measures both). */
#define SB_POPULATION_EXACT_FIT_MAX 200

/* ---- The snapshot --------------------------------------------------------- */

typedef struct {
  SbExperiment *experiment;  /* the study's (copy)                              */
  char *dir;                 /* the study's folder (NULL: none)                  */
  guint n_people;            /* included participants whose session was read     */
  guint n_unreadable;        /* included participants whose session could not be
                              * read (missing, unreadable or invalid): left out */
  char **codes;              /* their codes, in roster order (n_people)         */
  GPtrArray **logs;          /* each one's observation log (SbLogEntry copies)  */
  /* Model options (sb_population_input_new sets the defaults above). */
  gboolean fit;              /* fit the hyperparameters (default TRUE)          */
  double pop_variance, pop_lengthscale;  /* start / fixed values (box units)    */
  double ind_variance, ind_lengthscale;  /* ind_variance 0: no h_p (pooled)     */
  double probit_sd;
  guint fit_max_evals;       /* default 150                                     */
  /* Curves for the population plot (SbPopulationPlot): points per
   * parameter, 0 (the default) for none. */
  guint n_plot;
} SbPopulationInput;

/* The included participants' sessions read from STUDY's files. A session
 * that cannot be read leaves that participant out (counted in
 * n_unreadable; skewgp status and the Study view name the reason per
 * participant), so one lost file does not stop everyone's model. NULL with
 * ERROR only for the study itself. */
SbPopulationInput *sb_population_input_new (SbStudy *study, GError **error);
void sb_population_input_free (SbPopulationInput *input);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPopulationInput, sb_population_input_free)
/* The index of CODE (case-insensitive) among INPUT's participants, or -1. */
int sb_population_input_find (const SbPopulationInput *input, const char *code);
/* The answers that reach the model (not removed, not skipped), all people. */
guint sb_population_input_n_answers (const SbPopulationInput *input);
/* Those of person P. */
guint sb_population_input_person_answers (const SbPopulationInput *input, guint p);

/* ---- Coordinates ---------------------------------------------------------------- */

/* X (the parameters' units) in the box scaled to [0, 1]^d, and back. */
void sb_population_to_unit (const SbExperiment *exp, const double *x, double *u);
void sb_population_from_unit (const SbExperiment *exp, const double *u, double *x);
/* X = the answered setting of INPUT it is within round-off of (1e-9 box
 * widths in every coordinate), when there is one: the box scaling does
 * not give back the stored digits, and the incumbent of a duel must be
 * the very setting answered. */
void sb_population_snap_to_answered (const SbPopulationInput *input, double *x);
/* The same within one person's LOG. */
void sb_population_snap_to_log (const SbExperiment *exp, GPtrArray *log, double *x);

/* ---- Answers into the model's data ------------------------------------------------- */

/* TRUE when E reaches the model (not removed, not a skip). */
gboolean sb_population_entry_counts (const SbLogEntry *e);
/* Adds E (it counts) as person P's answer to HD. An sg_status. */
int sb_population_add_entry (sg_hier_data *hd, size_t p, const SbExperiment *exp,
                             const SbLogEntry *e);
/* HD (initialised here) = person P's answers in LOG, for a model of
 * N_PEOPLE people (P < N_PEOPLE). FALSE with ERROR naming CODE and the
 * observation that does not fit. */
gboolean sb_population_person_data (const SbExperiment *exp, GPtrArray *log, const char *code,
                                    guint p, guint n_people, sg_hier_data *hd, GError **error);
/* HD (initialised here) = every included participant's answers that count. */
gboolean sb_population_build_data (const SbPopulationInput *input, sg_hier_data *hd,
                                   GError **error);

/* ---- The model ------------------------------------------------------------------------ */

/* The kernels and noise of the model, in box units. */
typedef struct {
  double pop_variance, pop_lengthscales[SB_MAX_PARAMETERS];
  double ind_variance, ind_lengthscales[SB_MAX_PARAMETERS];
  double probit_sd, numeric_sd, mean;
} SbPopulationKernels;

/* INPUT's start values. */
void sb_population_kernels_default (const SbPopulationInput *input, SbPopulationKernels *k);
/* MODEL's values. */
void sb_population_kernels_from_model (const sg_hier_model *model, guint dim,
                                       SbPopulationKernels *k);
/* MODEL (initialised here; release with sg_hier_model_clear) with K's
 * values and EXP's parameter kinds (log, periodic, categorical). */
gboolean sb_population_model_new (const SbExperiment *exp, const SbPopulationKernels *k,
                                  sg_hier_model *model, GError **error);

/* The hyperparameters as the report gives them (the parameters' units). */
typedef struct {
  gboolean matern52;
  double pop_variance, pop_lengthscales[SB_MAX_PARAMETERS];  /* parameters' units */
  double ind_variance, ind_lengthscales[SB_MAX_PARAMETERS];
  double probit_sd;
  double log_evidence;       /* at these values (NaN when not fitted on it)      */
  gboolean fitted;
  const char *fitted_on;     /* "exact evidence", "ELBO of the sparse variational
                                model (population lengthscales)" or "" (not
                                fitted); a static string                        */
  guint n_evals;
} SbPopulationHyper;

void sb_population_hyper_from_model (const SbExperiment *exp, const sg_hier_model *model,
                                     SbPopulationHyper *h);
/* The fitted_on text (a static string) that TEXT names, "" when none. */
const char *sb_population_fitted_on (const char *text);

/* Fits MODEL's kernels to HD as the header says (the exact evidence up
 * to SB_POPULATION_EXACT_FIT_MAX answers, the ELBO beyond), from its
 * current values, seeded by EXP's seed; HYPER records how. A failed fit
 * keeps the values (a fit improves the model, it is never a condition
 * for one); cancellation (PROGRESS) stops it the same way. */
void sb_population_fit (const SbExperiment *exp, guint max_evals, sg_hier_model *model,
                        const sg_hier_data *hd, const sg_progress *progress,
                        SbPopulationHyper *hyper);

G_END_DECLS
