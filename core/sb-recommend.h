/* sb-recommend.h — the recommendation of a study: the best setting found,
 * the model's posterior mean of the utility there and its 95% credible
 * interval, with the answers and hyperparameters behind them; computed
 * from a snapshot of the session (on any thread, e.g. the worker) and
 * written as JSON for the experimenter's records.
 *
 * No GTK. */
#pragma once

#include "sb-jobs.h"
#include "sb-worker.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The setting reported as the best found (HAS_BEST FALSE before the
 * first answer) with the model's posterior mean of f there and its 95%
 * equal-tailed credible interval (NaN without posterior means: the random
 * initial questions, the random surrogate; x_r is reported then). In preference mode it is the answered setting of largest
 * posterior mean (sg_bo_recommend's "evaluated" rule): level with the last
 * winner after decisive duels and much closer to the optimum when ties
 * are allowed, since a tie does not move the winner
 * (tests/bench/results-acq.md, "Recommendation rules"). In mixed and safe
 * mode it is the engine's x_r, the setting of the best measured value (or
 * the last decisive winner). */
typedef struct {
  gboolean has_best;
  double best[SB_MAX_PARAMETERS];
  double mean, lower, upper;
  guint n_answers;  /* the answers the model saw                     */
  SbHyper hyper;    /* the model's hyperparameters                   */
  SbModelInfo model; /* which model gave MEAN and the interval       */
} SbRecommendation;

/* The recommendation after replaying INPUT's log, the model built as a
 * proposal builds it (sg_bo_propose), seeded by the experiment and the
 * number of answers, so the same log gives the same numbers. FALSE with
 * ERROR when the log does not replay. */
gboolean sb_recommend_from_input (const SbJobInput *input, SbRecommendation *out,
                                  GError **error);

/* SbWorkerFunc: INPUT an SbJobInput, result an SbRecommendation (g_free). */
gpointer sb_job_recommend (SbWorkerJob *job, gpointer input, GError **error);

/* The recommendation as a JSON document:
 *   {"format": "skewbench-recommendation", "version": 1, "title": ...,
 *    "answers": n, "budget": N,
 *    "best": [x...] | null,            the setting, in the parameters' units
 *    "parameters": [{"name", "unit", "value"}, ...],
 *    "best_description": "name = value unit, ...",
 *    "posterior_mean": m | null,
 *    "credible_interval": {"level": 0.95, "lower": lo, "upper": hi} | null,
 *    "hyperparameters": {"kernel": "rbf" | "matern52", "variance",
 *                        "lengthscales": [...], "mean", "numeric_sd",
 *                        "probit_sd"},
 *    "model": {"name", ...}}      the model behind the mean and interval
 *                                 (sb_model_info_add_json) */
JsonNode *sb_recommendation_to_json (const SbExperiment *exp, const SbRecommendation *rec);
/* Writes sb_recommendation_to_json to FILE (atomically, replacing it). */
gboolean sb_recommendation_save (const SbExperiment *exp, const SbRecommendation *rec,
                                 GFile *file, GError **error);

G_END_DECLS
