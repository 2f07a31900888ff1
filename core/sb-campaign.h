/* sb-campaign.h — the campaign controller: one experiment being run.
 *
 * The flow between a person and the engine (docs/DESIGN.md §2), without widgets:
 *
 *   question on screen (the session's open question) -> sb_campaign_answer
 *     -> sb_ask_tell_tell: session appends, saves
 *     -> propose job (supersedes any running one) -> the answer is on disk
 *     -> ::question-ready (state ASKING) -> the next answer
 *
 * The campaign owns the session and a worker. It takes an answer only
 * while a question is on screen (state ASKING): a key pressed while the
 * engine computes, or before the previous answer is on disk, is refused
 * (SB_CAMPAIGN_ERROR_NOT_READY), so an answer always refers to the
 * question the person saw and no answer lives only in memory while the
 * next one can be given. When the budget is used the campaign is
 * FINISHED: no question, the best found stays, and
 * sb_campaign_extend_budget continues it. In safe mode it is FINISHED
 * too when no new setting is safe enough to ask (the latest proposal is
 * safe_exhausted; sb_proposal_safe_statement says why); an undo or an
 * edited answer asks again.
 *
 * It keeps what the window shows stable between questions: the best
 * setting of the latest model (sb_campaign_get_best) survives the
 * computation of the next question; the latest plot snapshot stays until
 * a newer one replaces it, and a new session starts with an empty
 * snapshot of its own parameters.
 *
 * One writer per session file: the campaign holds the file's write lock
 * (core/sb-file-lock.h) while it runs a session, so `skewgp tell` or a
 * second window on the same file is refused rather than overwriting its
 * answers. When another process holds the lock, or when asked to follow
 * (sb_campaign_follow), the campaign is read-only: it takes no answer,
 * writes nothing, reloads the file whenever it changes on disk and shows
 * the model of what is there with the question the writer asked and
 * nobody has answered yet (state FOLLOWING,
 * sb_campaign_get_followed_question).
 *
 * Fits are made when the refit schedule says so (sb_fit_schedule_due,
 * the same as `skewgp refit --if-due` and the study server; unless
 * auto-refit is off, as in the guided demos), on the fit lane
 * (sb_job_fit), never delaying a question: each fit is stored in the
 * session with the answers it saw (sb_session_get_refits), and beyond
 * the exact model the sparse fit beside the session file
 * (sb-stored-fit.h), which the next question uses. A long session opened
 * without a usable stored fit stalls with a message while the fit lane
 * makes one, then asks.
 *
 * Signals (all on the main thread):
 *   ::question-ready     a question is on screen (state ASKING)
 *   ::plot-ready         (SbPlotSnapshot *) a new plot snapshot
 *   ::density-ready      (SbDensityData *) the density at a point
 *   ::recommendation-ready (const SbRecommendation *rec or NULL, const
 *                        GError *error or NULL): the result of
 *                        sb_campaign_request_recommendation
 *   ::fit-progress       (double fraction, const char *text)
 *   ::fit-finished       (const SbFitResult *result or NULL, const GError
 *                        *error or NULL): NULL, NULL when cancelled
 * Properties (notify on change): state, error, save-error, n-saved,
 * fitting, autoplay, read-only.
 */
#pragma once

#include <gio/gio.h>

#include "sb-jobs.h"
#include "sb-question.h"
#include "sb-plot-data.h"
#include "sb-session.h"
#include "sb-worker.h"

G_BEGIN_DECLS

#define SB_CAMPAIGN_ERROR (sb_campaign_error_quark ())
GQuark sb_campaign_error_quark (void);

typedef enum {
  SB_CAMPAIGN_ERROR_NOT_READY,  /* no question on screen to answer       */
  SB_CAMPAIGN_ERROR_WRONG_KIND, /* the answer does not fit the question  */
  SB_CAMPAIGN_ERROR_FINISHED,   /* the budget is used                    */
  SB_CAMPAIGN_ERROR_READ_ONLY,  /* another process writes the session    */
} SbCampaignError;

typedef enum {
  SB_CAMPAIGN_EMPTY = 0,  /* no session                                       */
  SB_CAMPAIGN_COMPUTING,  /* the engine chooses the next question, or the
                             last answer is still being written             */
  SB_CAMPAIGN_ASKING,     /* a question is on screen: answers are taken       */
  SB_CAMPAIGN_FINISHED,   /* the budget is used, or nothing safe enough is
                             left to ask: the result is shown               */
  SB_CAMPAIGN_STALLED,    /* the engine failed (error): retry or undo         */
  SB_CAMPAIGN_FOLLOWING,  /* read-only: the model of a session another
                             process writes is shown, nothing is asked      */
} SbCampaignState;


#define SB_TYPE_CAMPAIGN (sb_campaign_get_type ())
G_DECLARE_FINAL_TYPE (SbCampaign, sb_campaign, SB, CAMPAIGN, GObject)

SbCampaign *sb_campaign_new (void);

/* Runs SESSION (a reference is taken; saves go to a writer thread):
 * everything computing for the previous one is cancelled and its results
 * dropped, an empty plot snapshot of SESSION's parameters is published,
 * and the first question is requested. NULL ends the campaign. */
void sb_campaign_set_session (SbCampaign *self, SbSession *session);
SbSession *sb_campaign_get_session (SbCampaign *self);
/* Runs SESSION (bound to a file) read-only, following the file as another
 * process (e.g. a lab script driving `skewgp ask` / `tell`) writes it. */
void sb_campaign_follow (SbCampaign *self, SbSession *session);
/* TRUE while read-only; REASON (borrowed) says why: who writes the file,
 * or that following was asked for. */
gboolean sb_campaign_get_read_only (SbCampaign *self, const char **reason);
SbWorker *sb_campaign_get_worker (SbCampaign *self);
SbCampaignState sb_campaign_get_state (SbCampaign *self);

/* The question on screen (state ASKING), else NULL. */
const SbProposal *sb_campaign_get_question (SbCampaign *self);
/* Following (state FOLLOWING): the question the file's writer asked and
 * nobody has answered yet, shown on the model of the answers on disk;
 * NULL when the file has no open question or in any other state. */
const SbProposal *sb_campaign_get_followed_question (SbCampaign *self);
/* TRUE when nothing is left to ask: the budget is used, or in safe mode
 * no new setting is safe enough (the latest proposal is safe_exhausted). */
gboolean sb_campaign_get_done (SbCampaign *self);
/* The latest model's result: the question on screen, or while computing
 * or finished the last one computed (its best, truths and model); NULL
 * before the first. */
const SbProposal *sb_campaign_get_latest (SbCampaign *self);
/* The current best setting (the incumbent x_r) into X (dim entries):
 * FALSE while no model has one. Stable while the next question is
 * computed. */
gboolean sb_campaign_get_best (SbCampaign *self, double *x);

/* Records ANSWER (sb-question.h) to the question on screen, the
 * session's open question (its id is filled in), through the question
 * protocol (sb_ask_tell_tell), and asks for the next one. The response
 * time (seconds from ::question-ready, or sb_campaign_mark_shown, to this
 * call) is filled in unless ANSWER has one. Duels without a shown order
 * in ANSWER (n_shown = 0) are recorded with A shown first, as the
 * workbench panel draws them; a view that shows the question's order
 * says so in ANSWER. FALSE with ERROR when no question is on screen
 * (SB_CAMPAIGN_ERROR_NOT_READY), the budget is used (_FINISHED), the
 * answer does not fit the question (_WRONG_KIND: a tie when the
 * experiment allows none, an option that does not exist, a value to a
 * duel) or the log refuses it (SB_SESSION_ERROR: a ranking that is not a
 * permutation, a confidence on a tie; nothing recorded). A save failure
 * keeps the answer (TRUE) and sets save-error. */
gboolean sb_campaign_answer (SbCampaign *self, const SbAnswer *answer, GError **error);
/* The same for the answers a key gives: SIDE of a duel (0 = A, 1 = B;
 * _WRONG_KIND for any other question), and a value, a failed setting, a
 * tie or a skip. */
gboolean sb_campaign_answer_duel (SbCampaign *self, guint side, GError **error);
gboolean sb_campaign_answer_kind (SbCampaign *self, SbAnswerKind kind, double value,
                                  GError **error);
/* The question on screen is fully shown to the person now: a view that
 * presents it later than ::question-ready (after a pause between
 * questions, once its stimuli are drawn) calls this, and the answer's
 * response time counts from here. Nothing happens while no question is
 * on screen. */
void sb_campaign_mark_shown (SbCampaign *self);
/* Takes back the last recorded answer (skips included) and asks again;
 * the entry is kept for sb_campaign_redo. */
gboolean sb_campaign_undo (SbCampaign *self, GError **error);
/* Records again the exact entry (kind, settings, winner or value) the last
 * undo took back, with the time of the redo. Only while nothing changed
 * the log since that undo (sb_campaign_can_redo), and, like an answer,
 * only while a question is on screen (else SB_CAMPAIGN_ERROR_NOT_READY,
 * nothing recorded); the question on screen is then superseded. */
gboolean sb_campaign_can_redo (SbCampaign *self);
gboolean sb_campaign_redo (SbCampaign *self, GError **error);
/* Raises the budget by MORE questions (saved in the session) and, when
 * finished, asks the next question. */
gboolean sb_campaign_extend_budget (SbCampaign *self, guint more, GError **error);
/* Asks the engine again after a failure (state STALLED). */
void sb_campaign_retry (SbCampaign *self);
/* The engine's error (state STALLED), or NULL. */
const char *sb_campaign_get_error (SbCampaign *self);

/* Saving: log entries known to be on disk (0 without a file), and the
 * reason the last save failed, kept until a save succeeds (NULL when the
 * file holds everything or the session has no file). */
guint sb_campaign_get_n_saved (SbCampaign *self);
const char *sb_campaign_get_save_error (SbCampaign *self);

/* Repeated pairs (a study's "repeat_rate", sb-consistency.h): at RATE (0
 * .. 0.5) a duel the engine proposed is replaced by a past duel asked
 * again, its options swapped and shown on the other sides; 0 (default)
 * asks the engine's duels only. Not with a simulated oracle. */
void sb_campaign_set_repeat_rate (SbCampaign *self, double rate);

/* Hyperparameter fits: on the engine's schedule (AUTO_REFIT, default
 * TRUE) or now (sb_campaign_refit); cancelling keeps the stored values. */
void sb_campaign_set_auto_refit (SbCampaign *self, gboolean auto_refit);
void sb_campaign_refit (SbCampaign *self);
void sb_campaign_cancel_fit (SbCampaign *self);
gboolean sb_campaign_get_fitting (SbCampaign *self);

/* The simulated oracle (benchmark sessions): answers the question on
 * screen (FALSE when there is none or no oracle); with autoplay on it
 * answers every question after DELAY_MS. */
gboolean sb_campaign_oracle_answer (SbCampaign *self);
void sb_campaign_set_autoplay (SbCampaign *self, gboolean autoplay);
gboolean sb_campaign_get_autoplay (SbCampaign *self);
void sb_campaign_set_autoplay_delay (SbCampaign *self, guint delay_ms);

/* Plots of the latest model: the curve and (dim >= 2) the 2-D slice
 * through the best point, or through FIXED on axes SLICE_X, SLICE_Y when
 * HAS_SLICE; ::plot-ready follows. Nothing happens before a model
 * exists. */
void sb_campaign_request_plot (SbCampaign *self, gboolean has_slice, guint slice_x,
                               guint slice_y, const double *fixed);
/* The latest plot snapshot (borrowed), or NULL. */
SbPlotSnapshot *sb_campaign_get_plot (SbCampaign *self);
/* The predictive density of f at X (dim entries); ::density-ready follows.
 * FALSE when there is no model or X has another dimension. */
gboolean sb_campaign_request_density (SbCampaign *self, guint dim, const double *x);
/* Computes the recommendation of the session's log as it is now on the
 * worker (sb_job_recommend); ::recommendation-ready delivers it. FALSE
 * when there is no session. */
gboolean sb_campaign_request_recommendation (SbCampaign *self);

G_END_DECLS
