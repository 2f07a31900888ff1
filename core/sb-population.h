/* sb-population.h — the hierarchical model of a study's population.
 *
 * Participant p's utility is f_p(x) = g(x) + h_p(x): a population utility
 * g ~ GP(0, k_pop) shared by everyone plus a deviation h_p ~ GP(0, k_ind)
 * of their own (engine/sg-hier.h), one exact SkewGP posterior over
 * everyone's answers. This module builds that model from a study and
 * answers the researcher's questions with it:
 *
 *   - the population recommendation: of a candidate set (below), the
 *     setting with the largest posterior mean of g (sg_hier_best_mean),
 *     with the posterior mean of g there and its 95% equal-tailed
 *     credible interval;
 *   - per participant: the setting with the largest posterior mean of
 *     f_p, and P(p's best differs from the population's) with its
 *     standard error (sg_hier_prob_best_differs; two bests within
 *     SB_POPULATION_SAME_BEST of the box's width count as the same);
 *   - on request (n_plot), the population plot's curves: along each
 *     parameter, the others at the population best, g's mean and 95%
 *     band and each participant's mean of f_p (SbPopulationPlot);
 *   - the hyperparameters (both kernels' variances and lengthscales),
 *     fitted on the exact evidence of everyone's answers (sg_hier_fit);
 *   - a duel for one participant from the model that has seen everyone
 *     (sg_hier_propose_duel), the questions of a hierarchical study.
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
 * The candidate set: with a stimulus set (the experiment's candidates)
 * its rows; otherwise every distinct answered setting (in participant and
 * answer order, at most SB_POPULATION_MAX_ANSWERED) followed by
 * SB_POPULATION_N_SPACE_FILLING points of the Sobol sequence over the
 * box (GSL's, unshifted: the same points on every call).
 *
 * Reproducible: the prior starts at variance 1 and lengthscale 0.2 (box
 * widths) for g, variance SB_POPULATION_IND_VARIANCE and lengthscale 0.2
 * for h_p, probit sd 1/sqrt2 (a duel's likelihood Phi(f(a) - f(b)), as a
 * session's model); the fit frees both kernels' variances (g's from 0.1
 * to 100, h_p's from 0.01 to 1: a few answers per person cannot tell
 * shared from personal preference apart, and an unbounded h_p takes it
 * all) and lengthscales (0.05 to 2 box widths, as a
 * session's refits), the probit sd stays; the fit and the posterior samples draw from
 * sg_rng_new (experiment seed, SB_POPULATION_STREAM_FIT /
 * SB_POPULATION_STREAM_SAMPLE), so the same answers give the same numbers.
 *
 * No GTK, no GObject state: a snapshot (SbPopulationInput) is taken on the
 * main thread and the model computed on any thread (sb_job_population on
 * the worker). The cost is the exact evidence and posterior of every
 * answer: seconds for a few hundred answers.
 */
#pragma once

#include "sb-ask-tell.h"
#include "sb-study.h"
#include "sb-worker.h"
#include "sg-common.h"
#include "sg-summary.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SB_POPULATION_MAX_ANSWERED 256
#define SB_POPULATION_N_SPACE_FILLING 128
#define SB_POPULATION_SAME_BEST 0.1
#define SB_POPULATION_IND_VARIANCE 0.25
#define SB_POPULATION_N_SAMPLES 1000
#define SB_POPULATION_STREAM_FIT 101
#define SB_POPULATION_STREAM_SAMPLE 102
#define SB_POPULATION_STREAM_BEST_DIFFERS 103
#define SB_POPULATION_STREAM_PROPOSE 104
#define SB_POPULATION_PLOT_POINTS 100

/* ---- The snapshot --------------------------------------------------------- */

typedef struct {
  SbExperiment *experiment;  /* the study's (copy)                              */
  guint n_people;            /* included participants                            */
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

/* The included participants' sessions read from STUDY's files. NULL with
 * ERROR when one cannot be read. */
SbPopulationInput *sb_population_input_new (SbStudy *study, GError **error);
void sb_population_input_free (SbPopulationInput *input);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPopulationInput, sb_population_input_free)
/* The index of CODE (case-insensitive) among INPUT's participants, or -1. */
int sb_population_input_find (const SbPopulationInput *input, const char *code);
/* The answers that reach the model (not removed, not skipped), all people. */
guint sb_population_input_n_answers (const SbPopulationInput *input);

/* The candidate set the recommendations choose from (see above): *N rows
 * of the parameters, in their units (g_free). */
double *sb_population_candidates (const SbPopulationInput *input, guint *n);

/* ---- The result ------------------------------------------------------------ */

typedef struct {
  gboolean matern52;
  double pop_variance, pop_lengthscales[SB_MAX_PARAMETERS];  /* parameters' units */
  double ind_variance, ind_lengthscales[SB_MAX_PARAMETERS];
  double probit_sd;
  double log_evidence;       /* at these values (NaN when not fitted)           */
  gboolean fitted;
  guint n_evals;
} SbPopulationHyper;

typedef struct {
  char *code;
  guint n_answers;           /* answers of this participant in the model        */
  double best[SB_MAX_PARAMETERS];  /* the recommendation of f_p                 */
  double mean;               /* posterior mean of f_p there                     */
  double prob_best_differs;  /* P(p's best differs from the population's)       */
  double se;                 /* its standard error                              */
} SbPersonResult;

/* The population plot along one parameter: the others at the population
 * best, the parameter on N points in its units (evenly spaced along the
 * plot's axis: in log10 for a log scale; every whole number of an integer
 * range that has at most the points asked for, every level of a
 * categorical one). From the posterior samples the recommendations use
 * (one joint posterior): g's mean, sd and 95% equal-tailed interval
 * (lower, upper; sg_point_summary's other fields NaN), and the posterior
 * mean of each included participant's f_p. */
typedef struct {
  guint n;
  double *x;                 /* n values of the parameter                       */
  sg_point_summary *g;       /* n                                               */
  double *person_mean;       /* n_people rows of n: f_p's mean, roster order    */
} SbPopulationCurve;

typedef struct {
  guint dim, n_people;
  SbPopulationCurve curves[SB_MAX_PARAMETERS];  /* dim: along parameter j       */
} SbPopulationPlot;

typedef struct {
  guint dim;
  guint n_people;
  guint n_answers;           /* 0: no model (nothing below is set but codes)    */
  guint n_candidates;
  double best[SB_MAX_PARAMETERS];   /* the population's recommendation         */
  double mean, lower, upper;        /* g there: mean, 95% equal-tailed interval */
  SbPopulationHyper hyper;
  SbPersonResult *people;    /* n_people                                        */
  SbPopulationPlot *plot;    /* with input->n_plot and answers, else NULL        */
} SbPopulationResult;

void sb_population_result_free (SbPopulationResult *result);
/* A deep copy (the plot included). */
SbPopulationResult *sb_population_result_copy (const SbPopulationResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPopulationResult, sb_population_result_free)

/* The population model of INPUT (see above). With no answers: a result
 * with n_answers 0. NULL with ERROR (SB_ENGINE_ERROR) when an answer does
 * not fit the experiment or the engine fails; PROGRESS (may be NULL)
 * cancels. */
SbPopulationResult *sb_population_compute (const SbPopulationInput *input,
                                           const sg_progress *progress,
                                           GError **error);

/* SbWorkerFunc: INPUT an SbPopulationInput, the result an
 * SbPopulationResult (sb_population_result_free). */
gpointer sb_job_population (SbWorkerJob *job, gpointer input, GError **error);

/* The fitted model as a JSON document:
 *   {"format": "skewbench-population-model", "version": 1, "study", "title",
 *    "model": "f_p(x) = g(x) + h_p(x), g ~ GP(0, k_pop), h_p ~ GP(0, k_ind)",
 *    "parameters": [names], "answers", "candidates",
 *    "hyperparameters": {"kernel", "population": {"variance", "lengthscales"},
 *                        "individual": {"variance", "lengthscales"},
 *                        "probit_sd", "fitted", "log_evidence", "evaluations"},
 *    "population": {"best", "mean", "interval": [lo, hi]},
 *    "participants": [{"code", "answers", "best", "mean",
 *                      "prob_best_differs", "se"}, ...]}
 * (numbers null before the first answer). */
JsonNode *sb_population_result_to_json (const SbExperiment *exp, const char *study_name,
                                        const SbPopulationResult *result);

/* ---- Questions ----------------------------------------------------------------- */

/* TRUE when a hierarchical duel can be asked in EXP: preference mode,
 * duels, the exact SkewGP surrogate, no candidate set, an acquisition
 * that challenges x_r (ucb, eiig, epi, thompson: sg_hier_propose_duel). */
gboolean sb_population_can_propose (const SbExperiment *exp);

/* A duel for participant PERSON (an index of INPUT) from the model of
 * everyone's answers (sg_hier_propose_duel with the experiment's
 * acquisition; hyperparameters fitted as sb_population_compute does):
 * A (option 0) is the person's incumbent, B the challenger, in the
 * parameters' units. Seeded by the experiment's seed and the number of
 * answers in INPUT. FALSE with ERROR when the engine fails. */
gboolean sb_population_propose_duel (const SbPopulationInput *input, guint person,
                                     double *a, double *b, GError **error);

/* The next question for participant CODE of STUDY, whose session SESSION
 * is (opened and locked by the caller): sb_ask_tell_ask_with_repeats at
 * the study's repeat rate, with the duels proposed by
 * sb_population_propose_duel when the study's model is hierarchical, the
 * experiment can use it (sb_population_can_propose) and the included
 * participants have given at least the experiment's "initial" answers
 * between them (before that, the session's random initial design).
 * Errors as sb_ask_tell_ask. */
const SbQuestion *sb_population_ask (SbStudy *study, const char *code,
                                            SbSession *session, GError **error);

G_END_DECLS
