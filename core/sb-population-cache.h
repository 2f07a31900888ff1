/* sb-population-cache.h — a study's cached population posterior, kept in
 * the study folder, so that a participant's question costs their own
 * answers plus this cache, however many people answered.
 *
 * The cache is sg-hier.h's: g sparse at M = SB_POPULATION_INDUCING
 * population points, each person's h_p integrated exactly within their
 * own block, a Gaussian site per answer row; a participant's question
 * takes their own sites out of it (what everyone else says about g) and
 * conditions f_p = g + h_p exactly on all of their own answers, those
 * given after the cache too (sb-population.h's questions). With it go the
 * hierarchical model's hyperparameters (sb-population-model.h), which a
 * refit fits (the exact evidence up to SB_POPULATION_EXACT_FIT_MAX
 * answers, the ELBO beyond) and a refresh keeps.
 *
 * The file. STUDY/population.fit, a fit file (sb-fit-file.h) of kind
 * "population", written atomically, whose header holds
 *   "model": "sparse variational population, 100 inducing points",
 *   "inducing": M, "dim": d + 1, "parameters": [names],
 *   "answers": n (all answers it saw), "iterations", "change" (its CVI
 *   iterations and their last largest site change), "created", "seconds",
 *   "kernels": {"population": {"variance", "lengthscales"}, "individual":
 *   {...}, "probit_sd", "numeric_sd", "mean"} (box units: each parameter
 *   scaled to [0, 1]), "fitted" ("exact evidence", "ELBO of the sparse
 *   variational model (population lengthscales)" or "" when the start
 *   values were kept), "log_evidence" (or null), "evaluations",
 *   "participants": [{"code", "answers" (the answers of theirs it saw),
 *   "answers_sha256" (their digest, sb_answers_digest), "sites"}, ...]
 *   (the included participants, in roster order),
 * and the arrays Z (M x (d + 1)), P (M x M), h (M x 1), lambda and eta
 * (one entry per answer row of every participant in turn).
 *
 * The rule a question follows (sb_population_ask):
 *   - a cache that reads back (not damaged, of this experiment) is used,
 *     however many answers came after it: the participant's own later
 *     answers are conditioned on exactly, the others' wait for the next
 *     refresh;
 *   - a participant the cache does not know (added since) is a newcomer:
 *     nothing of theirs is in it;
 *   - a participant whose answers the cache saw were removed, restored or
 *     changed since is asked from their own answers alone (the session's
 *     model) until the next refresh, and the question says so;
 *   - without a usable cache, the exact hierarchical model of everyone's
 *     answers (with the start values of the kernels), up to
 *     SB_STUDY_EXACT_MAX_ANSWERS answers in all; beyond, the question is
 *     refused (SB_FIT_ERROR_NEEDS_FIT) saying why and what to run
 *     (`skewgp refit STUDY`, or `skewgp status STUDY`, which refreshes it).
 * A study beyond SB_STUDY_MAX_ANSWERS answers or SB_STUDY_MAX_PARTICIPANTS
 * included participants is refused by the refresh (SB_FIT_ERROR_TOO_LARGE),
 * as is a participant's question beyond SB_EXACT_MAX_ANSWERS answers of
 * their own.
 *
 * No GTK here.
 */
#pragma once

#include "sb-population-model.h"
#include "sb-stored-fit.h"

G_BEGIN_DECLS

#define SB_POPULATION_CACHE_FILE "population.fit"
#define SB_POPULATION_INDUCING 100
#define SB_POPULATION_CVI_ITERATIONS 50
#define SB_POPULATION_STREAM_CACHE 105
/* Without a cache, the exact hierarchical model serves a question up to
 * this many answers in all. */
#define SB_STUDY_EXACT_MAX_ANSWERS 300
/* The largest study the cache is made for. */
#define SB_STUDY_MAX_ANSWERS 10000
#define SB_STUDY_MAX_PARTICIPANTS 500

typedef struct _SbPopulationCache SbPopulationCache;

struct _SbPopulationCache {
  gatomicrefcount ref_count;
  guint dim;                   /* parameters                              */
  SbPopulationKernels kernels; /* the model it was made under (box units) */
  SbPopulationHyper hyper;     /* the same as reported, and how fitted    */
  sg_hier_population pop;
  guint n_people;
  char **codes;                /* n_people, the population's order        */
  char **digests;              /* each one's seen answers' digest         */
  guint n_answers;             /* all answers it saw                      */
  gint64 created;              /* microseconds since the epoch            */
  double seconds;              /* CPU time of the refresh (and fit)       */
};

SbPopulationCache *sb_population_cache_ref (SbPopulationCache *cache);
void sb_population_cache_unref (SbPopulationCache *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbPopulationCache, sb_population_cache_unref)

/* STUDY_DIR/population.fit (g_free). */
char *sb_population_cache_path (const char *study_dir);

/* The cache of INPUT's answers (all included participants'): under
 * PREVIOUS's kernels (NULL: INPUT's start values), fitted first when FIT
 * (sb_population_fit). NULL with ERROR: SB_FIT_ERROR_TOO_LARGE beyond the
 * limits above, SB_ENGINE_ERROR, or cancelled (PROGRESS). Not saved. */
SbPopulationCache *sb_population_cache_build (const SbPopulationInput *input,
                                              const SbPopulationCache *previous,
                                              gboolean fit, const sg_progress *progress,
                                              GError **error);
/* Writes CACHE to STUDY_DIR/population.fit (atomically) for EXP. */
gboolean sb_population_cache_save (const SbPopulationCache *cache, const SbExperiment *exp,
                                   const char *study_dir, GError **error);
/* Reads STUDY_DIR/population.fit for EXP. NULL with ERROR
 * (SB_FIT_FILE_ERROR_MISSING when there is none, _DAMAGED naming what is
 * wrong, also for the cache of another experiment). */
SbPopulationCache *sb_population_cache_load (const char *study_dir, const SbExperiment *exp,
                                             GError **error);

/* The index of CODE (case-insensitive) in CACHE, or -1. */
int sb_population_cache_find (const SbPopulationCache *cache, const char *code);
/* TRUE when CACHE saw exactly INPUT's answers (the same participants in
 * the same order, each one's answers all seen). */
gboolean sb_population_cache_covers (const SbPopulationCache *cache,
                                     const SbPopulationInput *input);
/* TRUE when a refresh of CACHE (NULL: none) is due with N_ANSWERS
 * answers in all (sb_fit_schedule_due). */
gboolean sb_population_cache_due (const SbPopulationCache *cache, guint n_answers);

/* Person CODE's question model from CACHE: *OWN (initialised here) holds
 * the answers of LOG that count as theirs, at *PERSON (their index in
 * CACHE, or its number of people for a newcomer), and *PSEUDO
 * (initialised here) what everyone else's answers say about g. MODEL is
 * CACHE's (sb_population_model_new with CACHE->kernels). FALSE with
 * ERROR: SB_FIT_ERROR_NEEDS_FIT when answers of theirs that CACHE saw
 * were removed, restored or changed, SB_FIT_ERROR_TOO_LARGE beyond
 * SB_EXACT_MAX_ANSWERS answers of their own, SB_ENGINE_ERROR. */
gboolean sb_population_cache_person (const SbPopulationCache *cache, const SbExperiment *exp,
                                     const sg_hier_model *model, const char *code,
                                     GPtrArray *log, sg_hier_data *own, size_t *person,
                                     sg_svgp_pseudo *pseudo, GError **error);

/* Refreshes STUDY's cache and saves it: reads every included
 * participant's session, builds the cache under the stored one's kernels
 * (fitting them first when FIT), writes STUDY/population.fit. The new
 * cache, or NULL with ERROR. Runs on any thread (the study is read at the
 * call, its files after). */
SbPopulationCache *sb_population_refresh (SbStudy *study, gboolean fit,
                                          const sg_progress *progress, GError **error);
/* The same from a snapshot INPUT (INPUT->dir the study folder). */
SbPopulationCache *sb_population_refresh_input (const SbPopulationInput *input, gboolean fit,
                                                const sg_progress *progress, GError **error);

/* The refresh in a thread of its own (GTask), for the study server and
 * the app: a snapshot of STUDY's roster and files is read in the thread;
 * PROGRESS_FUNC (may be NULL) is called on the caller's thread-default
 * main context; CANCELLABLE stops it (the old cache stays). The finish
 * gives the saved cache (sb_population_cache_unref). */
void sb_population_refresh_async (SbStudy *study, gboolean fit, GCancellable *cancellable,
                                  SbFitProgressFunc progress_func, gpointer progress_data,
                                  GAsyncReadyCallback callback, gpointer user_data);
SbPopulationCache *sb_population_refresh_finish (GAsyncResult *result, GError **error);

G_END_DECLS
