/* sb-ask-tell.h — the question protocol on a session: make a question,
 * open it, answer it, record the answer. Every client is a thin layer
 * over these calls: the window's campaign (sb-campaign.h, whose proposals
 * the worker computes), `skewgp ask` / `skewgp tell`, any lab script
 * through them, and the study server for each participant's session.
 *
 * Everything lives in the session file: the question asked and not yet
 * answered is the session's open question (sb-session.h), stored the same
 * way whoever asked it, so asking again gives the same question, any
 * client can answer it, and an answer names the question it answers by
 * its id. Ids come from one sequence per session (1, 2, ...), never
 * reused, whoever asks. An answer to another question (answered already,
 * never asked, or out of date because the log changed since) is refused
 * and changes nothing (SB_QUESTION_ERROR_STALE); a client that retries an
 * answer that was recorded (its reply lost) can recognise it with
 * sb_ask_tell_is_recorded.
 *
 * Question kinds and answers: sb-question.h. The options are presented in
 * the question's shown order, a random permutation seeded by the
 * experiment's seed and the question id (sb_question_shuffle), so the
 * place of the current best is balanced and reproducible; it is recorded
 * with the answer, with the response time and confidence when given.
 *
 * Repeats (a study's "repeat_rate", sb-consistency.h): at a rate, a
 * question may be a past duel asked again, its options swapped and shown
 * on the other sides, instead of the engine's proposal; a repeat is an
 * ordinary duel question and counts against the budget like any answer.
 *
 * Writers: whoever changes the file (creating it, storing a new question,
 * recording an answer) holds its write lock (sb_session_lock_file) for the
 * whole read-modify-write; a second writer is refused, naming the holder.
 *
 * No GTK; sb_ask_tell_ask runs the engine synchronously on the calling
 * thread.
 */
#pragma once

#include "sb-file-lock.h"
#include "sb-jobs.h"
#include "sb-question.h"
#include "sb-recommend.h"
#include "sb-session.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* TRUE when the experiment's budget of answers is used. */
gboolean sb_ask_tell_is_done (SbSession *session);

/* The open question while it can still be answered (nothing was added
 * to the log since it was asked), else NULL. */
const SbQuestion *sb_ask_tell_current (SbSession *session);

/* Opens Q (its kind and options set; a repeat also its shown order and
 * repeat_of) as SESSION's next question: the next id, the time, the log's
 * length and, unless it is a repeat, its shuffled shown order; stored as
 * the open question and saved. The stored question, or NULL with ERROR
 * (sb_question_check refused it: nothing changed; or the save failed: it
 * is open in memory, sb_ask_tell_current). */
const SbQuestion *sb_ask_tell_open (SbSession *session, SbQuestion *q, GError **error);
/* Q = PROPOSAL's options as a question (a duel's A and B, a value
 * question's B, a choice's or ranking's k options). */
void sb_ask_tell_from_proposal (const SbProposal *proposal, SbQuestion *q);
/* The repeat policy: TRUE when SESSION's next question repeats a past
 * duel at REPEAT_RATE (0 .. 1); Q is then that repeat (kind, options,
 * shown order, repeat_of). */
gboolean sb_ask_tell_pick_repeat (SbSession *session, double repeat_rate, SbQuestion *q);

/* The current question; when there is none, proposes the next one from
 * the log with the newest stored fit (sb-stored-fit.h: the stored
 * hyperparameters, beyond the exact model the stored sparse fit; no fit
 * runs in front of a question: sb_session_refit does that beside them),
 * opens it and saves the session. NULL with ERROR:
 * SB_QUESTION_ERROR_DONE when the budget is used,
 * SB_QUESTION_ERROR_SAFE_EXHAUSTED in safe mode when no new setting is
 * safe enough to ask (the message is sb_proposal_safe_statement's; asking
 * again after the log or the fit changes may find one), SB_ENGINE_ERROR
 * when the engine failed, SB_FIT_ERROR when no stored fit can serve a
 * session this large, a session error when saving failed. */
const SbQuestion *sb_ask_tell_ask (SbSession *session, GError **error);
/* The same, with repeated pairs scheduled at REPEAT_RATE (0 .. 1): a
 * question may be a past duel asked again, its options swapped and shown
 * on the other sides, instead of the engine's proposal
 * (sb_consistency_pick_repeat; a study's "repeat_rate"). A repeat is an
 * ordinary duel question and counts against the budget like any answer. */
const SbQuestion *sb_ask_tell_ask_with_repeats (SbSession *session, double repeat_rate,
                                                       GError **error);

/* A proposer of duels from outside the session's own model (a
 * hierarchical study's, sb-population.h): fills A and B, the options 0
 * and 1 of the duel (A the incumbent), and INFO with the model that chose
 * them, or sets *DECLINED for the session to propose as usual. FALSE
 * with ERROR when it failed. */
typedef gboolean (*SbAskProposer) (SbSession *session, gpointer user_data, double *a,
                                   double *b, gboolean *declined, SbModelInfo *info,
                                   GError **error);
/* sb_ask_tell_ask_with_repeats with PROPOSER (may be NULL) asked first
 * whenever a new question is proposed (not for an open question, a
 * repeat or a used budget); the question is opened exactly as the
 * session's own. INFO (may be NULL) receives the model that chose a new
 * question; for an open question or a repeat, the model the session's
 * questions use now (sb_ask_tell_model). */
const SbQuestion *sb_ask_tell_ask_with_proposer (SbSession *session, double repeat_rate,
                                                 SbAskProposer proposer, gpointer user_data,
                                                 SbModelInfo *info, GError **error);
/* The model SESSION's next question uses (sb-stored-fit.h's rule), with
 * the answers its stored fit saw; FALSE with ERROR (SB_FIT_ERROR) when
 * none can serve it. */
gboolean sb_ask_tell_model (SbSession *session, SbModelInfo *info, GError **error);

/* Records ANSWER to the open question and saves: the log entry it maps to
 * (sb_answer_to_entry) with the question id, the order shown, and the
 * response time and confidence when given; the question is closed in the
 * same save. FALSE with ERROR and nothing changed when ANSWER is for
 * another question (SB_QUESTION_ERROR_STALE), does not fit it (_INVALID,
 * _UNSUPPORTED, sb-question.h) or breaks a rule of the log
 * (SB_SESSION_ERROR_INVALID, e.g. a confidence on a tie). */
gboolean sb_ask_tell_tell (SbSession *session, const SbAnswer *answer, GError **error);
/* TRUE when ANSWER's question was answered and the log holds exactly
 * ANSWER for it (sb_answer_matches_entry): a retry of an answer already
 * recorded. */
gboolean sb_ask_tell_is_recorded (SbSession *session, const SbAnswer *answer);

/* The recommendation after replaying the log (SbRecommendation,
 * sb-recommend.h). Takes a snapshot of SESSION (sb_job_input_new) and computes the
 * recommendation from it, on the calling thread (sb_recommend_from_input
 * in sb-recommend.h; the window runs that one on the worker). */
gboolean sb_ask_tell_recommend (SbSession *session, SbRecommendation *out, GError **error);


G_END_DECLS
