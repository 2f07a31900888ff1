/* sb-stored-fit.h — the models a question may use, the fits they keep,
 * and when a fit is refreshed: one set of rules for the window, `skewgp`
 * and the study server.
 *
 * A question never waits for a fit. Fits (hyperparameters; beyond the
 * crossover a long session's sparse summary; a study's population cache,
 * sb-population-cache.h) are computed beside the questions (the window's
 * fit lane, `skewgp refit`, the server's background refit) and stored;
 * a question uses the newest stored fit, however many answers came after
 * it, and conditions on those answers exactly.
 *
 * The models and where each runs (measured on a 2-core AMD EPYC with one
 * BLAS thread, tests/bench/results-scale.md):
 *
 *   exact                the exact SkewGP posterior of every answer: a
 *                        session of up to SB_EXACT_MAX_ANSWERS answers;
 *   sparse variational, M inducing points
 *                        a session beyond that: the stored sparse fit of
 *                        its first n answers (sg-svgp-rows.h, M = 200) as
 *                        pseudo-observations, and the answers after them
 *                        exactly; up to SB_SESSION_MAX_ANSWERS answers, the
 *                        answers since the fit at most SB_EXACT_MAX_ANSWERS;
 *   sparse variational population, M inducing points
 *                        a hierarchical study's question (sb-population-
 *                        cache.h): the cached population of everyone's
 *                        answers (M = 100) and the participant's own
 *                        answers exactly.
 *
 * A session's sparse fit is a file beside the session: SESSION.json's is
 * SESSION.fit (sb_session_fit_path), a fit file (sb-fit-file.h) of kind
 * "session" whose header holds
 *   "model": "sparse variational, 200 inducing points", "inducing": M,
 *   "answers": n (the answers it saw: the session's first n answers that
 *   count), "answers_sha256": their digest (sb_answers_digest),
 *   "hyperparameters": {"kernel", "variance", "lengthscales", "mean",
 *   "numeric_sd", "probit_sd"} (model units), "fitted": how they were
 *   fitted ("ELBO of the sparse variational model": lengthscales; the
 *   variance and noise held), "created", "seconds" (CPU),
 * and the arrays of its pseudo-observations (sg_svgp_pseudo): Z (M x d),
 * C (r x M), y (r x 1), noise_var (r x 1).
 *
 * The rule for a session beyond SB_EXACT_MAX_ANSWERS answers: its stored
 * sparse fit is used when the file reads back (not damaged, of this
 * experiment's dimension) and its answers are still the session's first
 * ones (the digest: no answer it saw was removed, restored or undone),
 * and at most SB_EXACT_MAX_ANSWERS answers came after it. Otherwise the
 * question is refused (SB_FIT_ERROR_NEEDS_FIT) naming why and what to do
 * (`skewgp refit SESSION`; the window refits on its own); a session
 * beyond SB_SESSION_MAX_ANSWERS is refused (SB_FIT_ERROR_TOO_LARGE).
 *
 * No GTK here.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sb-session.h"
#include "sg-bo.h"
#include "sg-svgp-rows.h"

G_BEGIN_DECLS

/* Answers the exact model conditions on in one question: a session's
 * answers without a sparse fit, or since it. */
#define SB_EXACT_MAX_ANSWERS 500
/* The largest session a question is asked in (answers that count). */
#define SB_SESSION_MAX_ANSWERS 10000
/* Inducing points of a session's sparse fit. */
#define SB_SESSION_INDUCING 200

#define SB_FIT_ERROR (sb_fit_error_quark ())
GQuark sb_fit_error_quark (void);
typedef enum {
  SB_FIT_ERROR_NEEDS_FIT,   /* beyond the exact model, and no usable stored fit */
  SB_FIT_ERROR_TOO_LARGE,   /* beyond the sizes the models run at             */
} SbFitError;

/* ---- Which model produced a number --------------------------------------- */

typedef enum {
  SB_MODEL_NONE = 0,     /* none yet: random initial questions, the random
                            surrogate                                     */
  SB_MODEL_EXACT,        /* the exact SkewGP posterior of every answer     */
  SB_MODEL_SPARSE,       /* a session's stored sparse fit + the answers
                            since, exactly                                */
  SB_MODEL_POPULATION,   /* a study's population cache + the participant's
                            own answers, exactly                          */
  SB_MODEL_APPROXIMATE,  /* a Gaussian surrogate the experiment chose
                            (Laplace, EP, SVGP, two-GP)                   */
} SbModelKind;

typedef struct {
  SbModelKind kind;
  sg_bo_surrogate surrogate;  /* SB_MODEL_APPROXIMATE: which             */
  guint n_inducing;           /* SPARSE, POPULATION: M                   */
  guint answers;              /* the answers behind the numbers          */
  guint fit_answers;          /* answers the stored fit had seen (its
                                 hyperparameters, sparse summary or
                                 population cache); 0: none stored      */
  guint exact_answers;        /* answers conditioned on exactly          */
  gboolean refit_due;         /* the schedule asks for a new fit         */
  char note[256];             /* why another model than the usual one    */
} SbModelInfo;

/* The model's name: "exact", "sparse variational, 200 inducing points",
 * "sparse variational population, 100 inducing points", "none (random
 * initial questions)", "Laplace", "EP", "SVGP", "two-GP" (g_free). */
char *sb_model_info_name (const SbModelInfo *info);
/* Member MEMBER (e.g. "model"): {"name", "answers", "fit_answers",
 * "exact_answers", "inducing" (null unless sparse), "refit_due"} and,
 * when there is one, "note". */
void sb_model_info_add_json (JsonBuilder *b, const char *member, const SbModelInfo *info);

/* ---- The refit schedule ---------------------------------------------------- */

/* TRUE when a new fit is due with N_ANSWERS answers now and the stored
 * fit (HAS_FIT) made from FIT_ANSWERS of them: none is stored (and there
 * are 2 or more answers), or the answers since it reach 5 (up to 100
 * answers at the fit), 5% of the fit's answers (beyond), at most 250, so
 * the answers a question conditions on exactly stay well within
 * SB_EXACT_MAX_ANSWERS. The window's fit lane, `skewgp refit --if-due`
 * and the study server all follow it. */
gboolean sb_fit_schedule_due (guint n_answers, gboolean has_fit, guint fit_answers);

/* ---- Fits in a thread of their own ---------------------------------------------- */

/* Progress of a fit (fraction done, 0 .. 1), on the thread that started it. */
typedef void (*SbFitProgressFunc) (double fraction, gpointer user_data);

/* How a fit running in a GTask's thread reports: an sg_progress whose
 * callback returns nonzero once CANCELLABLE is cancelled, and calls FUNC
 * (may be NULL) on the thread-default main context of the caller of
 * sb_fit_progress_new, one report waiting at a time. */
typedef struct _SbFitProgress SbFitProgress;
SbFitProgress *sb_fit_progress_new (GCancellable *cancellable, SbFitProgressFunc func,
                                    gpointer user_data);
void sb_fit_progress_free (SbFitProgress *p);
/* The engine's view of P (valid while P is). */
const sg_progress *sb_fit_progress_get (SbFitProgress *p);

/* ---- The answers a fit has seen ---------------------------------------------- */

/* The SHA-256 (hex, g_free) of the first N answers that count in LOG
 * (SbLogEntry; skips and removed answers are passed over): their kinds,
 * settings, outcomes, confidences and sides shown, what the model reads.
 * NULL when LOG has fewer. */
char *sb_answers_digest (GPtrArray *log, guint n);
/* The answers in LOG that count. */
guint sb_answers_count (GPtrArray *log);

/* ---- A session's sparse fit -------------------------------------------------- */

typedef struct _SbSessionFit SbSessionFit;

struct _SbSessionFit {
  gatomicrefcount ref_count;
  guint dim;
  SbHyper hyper;           /* the hyperparameters it was made under       */
  char *fitted;            /* how they were fitted                        */
  guint n_seen;            /* the answers it saw                          */
  char *digest;            /* sb_answers_digest of them                   */
  sg_svgp_pseudo summary;  /* its pseudo-observations at M = summary.M    */
  double seconds;          /* CPU time it took                            */
};

SbSessionFit *sb_session_fit_ref (SbSessionFit *fit);
void sb_session_fit_unref (SbSessionFit *fit);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbSessionFit, sb_session_fit_unref)

/* The fit file of the session at SESSION_PATH: SESSION.fit for
 * SESSION.json, PATH.fit otherwise (g_free). */
char *sb_session_fit_path (const char *session_path);
/* Reads the fit file of the session at SESSION_PATH for a session of DIM
 * parameters. NULL with ERROR (SB_FIT_FILE_ERROR_MISSING when there is
 * none; _DAMAGED naming what is wrong). */
SbSessionFit *sb_session_fit_load (const char *session_path, guint dim, GError **error);
/* Writes FIT beside the session at SESSION_PATH, atomically. */
gboolean sb_session_fit_save (const SbSessionFit *fit, const char *session_path,
                              GError **error);
/* TRUE when FIT describes LOG's first answers (see the rule above);
 * ERROR says why not. */
gboolean sb_session_fit_matches (const SbSessionFit *fit, GPtrArray *log, GError **error);

G_END_DECLS
