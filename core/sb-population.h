/* sb-population.h — the report of a study's population, and the
 * questions of a hierarchical study.
 *
 * The model (sb-population-model.h): participant p's utility is f_p(x) =
 * g(x) + h_p(x), a population utility g shared by everyone plus a
 * deviation h_p of their own. The report answers the researcher's
 * questions with it:
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
 *   - the hyperparameters (both kernels' variances and lengthscales) and
 *     how they were fitted;
 *   - the model that gave the numbers (SbPopulationResult.model).
 *
 * Which model. Up to SB_STUDY_EXACT_MAX_ANSWERS answers, the exact
 * SkewGP posterior of everyone's answers, its hyperparameters fitted
 * first when the input asks (sb_population_fit). Beyond, the population
 * cache (sb-population-cache.h: the stored one when it saw every answer,
 * else one made under its kernels and stored in the study folder, which
 * refreshes the questions' cache): g's posterior from everyone's
 * summary, and each f_p from what everyone else says about g plus the
 * participant's own answers exactly (their question's model); the
 * hyperparameters are the cache's (a refit fits them).
 *
 * The candidate set: with a stimulus set (the experiment's candidates)
 * its rows; otherwise every distinct answered setting (in participant and
 * answer order, at most SB_POPULATION_MAX_ANSWERED) followed by
 * SB_POPULATION_N_SPACE_FILLING points of the Sobol sequence over the
 * box (GSL's, unshifted: the same points on every call).
 *
 * Reproducible: the fit and the posterior samples draw from sg_rng_new
 * (experiment seed, SB_POPULATION_STREAM_FIT / SB_POPULATION_STREAM_SAMPLE),
 * so the same answers give the same numbers.
 *
 * No GTK, no GObject state: a snapshot (SbPopulationInput) is taken on the
 * main thread and the model computed on any thread (sb_job_population on
 * the worker). The cost: seconds for the exact model of a few hundred
 * answers; beyond, a few tens of milliseconds of CPU per participant
 * (tests/bench/results-scale.md).
 */
#pragma once

#include "sb-ask-tell.h"
#include "sb-population-cache.h"
#include "sb-population-model.h"
#include "sb-study.h"
#include "sb-worker.h"
#include "sg-common.h"
#include "sg-summary.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SB_POPULATION_MAX_ANSWERED 256
#define SB_POPULATION_N_SPACE_FILLING 128
#define SB_POPULATION_SAME_BEST 0.1
#define SB_POPULATION_N_SAMPLES 1000
#define SB_POPULATION_STREAM_SAMPLE 102
#define SB_POPULATION_STREAM_BEST_DIFFERS 103
#define SB_POPULATION_STREAM_PROPOSE 104
#define SB_POPULATION_PLOT_POINTS 100

/* ---- The candidates ---------------------------------------------------------- */

/* The candidate set the recommendations choose from (see above): *N rows
 * of the parameters, in their units (g_free). */
double *sb_population_candidates (const SbPopulationInput *input, guint *n);

/* ---- The result ------------------------------------------------------------ */

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
  SbModelInfo model;         /* which model gave the numbers (see above)        */
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
 *                        "probit_sd", "fitted", "fitted_on", "log_evidence",
 *                        "evaluations"},
 *    "model_used": {"name", "answers", "fit_answers", ...} (sb_model_info_add_json,
 *                   under this name: "model" is the formula above),
 *    "population": {"best", "mean", "interval": [lo, hi]},
 *    "participants": [{"code", "answers", "best", "mean",
 *                      "prob_best_differs", "se"}, ...]}
 * (numbers null before the first answer). */
JsonNode *sb_population_result_to_json (const SbExperiment *exp, const char *study_name,
                                        const SbPopulationResult *result);

/* ---- Questions ----------------------------------------------------------------- */

/* TRUE when a hierarchical duel can be asked in EXP: the population
 * model fits it (sb_experiment_population_fits) and its acquisition
 * challenges x_r (ucb, eiig, epi, thompson: sg_hier_propose_duel). */
gboolean sb_population_can_propose (const SbExperiment *exp);

/* A duel for participant PERSON (an index of INPUT) from the exact model
 * of everyone's answers under the kernels' start values (no fit runs in
 * front of a question; sg_hier_propose_duel with the experiment's
 * acquisition): A (option 0) is the person's incumbent, B the
 * challenger, in the parameters' units. Seeded by the experiment's seed
 * and the number of answers in INPUT. FALSE with ERROR when the engine
 * fails. */
gboolean sb_population_propose_duel (const SbPopulationInput *input, guint person,
                                     double *a, double *b, GError **error);

/* The next question for participant CODE of STUDY, whose session SESSION
 * is (opened and locked by the caller): sb_ask_tell_ask_with_repeats at
 * the study's repeat rate, with the duels of the study's model when it is
 * hierarchical, the experiment can use it (sb_population_can_propose) and
 * the included participants have given at least the experiment's
 * "initial" answers between them (before that, the session's random
 * initial design). Which model asks is sb-population-cache.h's rule: the
 * stored population cache and the participant's own answers; without
 * one, the exact model up to SB_STUDY_EXACT_MAX_ANSWERS answers. INFO
 * (may be NULL) receives it, with a note when the participant is asked
 * from their own answers alone. Errors as sb_ask_tell_ask, and
 * SB_FIT_ERROR when no model can serve the question. */
const SbQuestion *sb_population_ask (SbStudy *study, const char *code, SbSession *session,
                                     SbModelInfo *info, GError **error);

G_END_DECLS
