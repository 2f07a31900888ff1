/* sb-ask-tell.h — a study driven from outside the window: ask for the
 * next question, tell the answer (the `skewgp ask` / `skewgp tell`
 * protocol, usable by any lab script).
 *
 * Everything lives in the session file, the one the app saves and opens:
 * the question asked and not yet answered is the session's pending
 * question (sb-session.h), so asking again gives the same question, and
 * an answer names the question it answers by its id. An answer to another
 * question (answered already, never asked, or out of date because the log
 * changed since) is refused and changes nothing.
 *
 * Question kinds:
 *   duel     two options; option 0 is the current best (a), option 1 the
 *            new candidate (b); answered by {"chosen": 0 or 1} (the index
 *            into the options, whatever order they were shown in), or by
 *            {"tie": true} ("about the same") when the experiment allows
 *            ties;
 *   choice   k options (the experiment's "options"), the campaign's
 *            (SbQuestion in sb-jobs.h: the engine's duel and k - 2
 *            space-filling settings); answered by {"chosen": i}, i < k;
 *   ranking  k options as for a choice; answered by {"ranking": [i, ...]},
 *            every option once, best first;
 *   value    one option, the setting to measure (mixed and safe mode);
 *            answered by {"value": y} or {"failed": true}. A failed
 *            setting is an observation of the model in both modes (001
 *            eq. 40's non-valid factor): below the safety threshold in
 *            safe mode, below the failure level in mixed mode (the
 *            experiment's "threshold"; sg_bo_answer_invalid).
 * The options are presented in SHOWN_ORDER, a random permutation seeded by
 * the experiment's seed and the question id (sb_shuffle_order), so the
 * place of the current best is balanced and reproducible; it is recorded
 * with the answer. A confidence is kept with duels and choices (the
 * session refuses it on ties and rankings).
 *
 * Writers: whoever changes the file (creating it, storing a new question,
 * recording an answer) holds its write lock (sb_session_lock_file) for the
 * whole read-modify-write; a second writer is refused, naming the holder.
 *
 * No GTK; the proposals run synchronously on the calling thread.
 */
#pragma once

#include "sb-file-lock.h"
#include "sb-recommend.h"
#include "sb-session.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SB_ASK_TELL_ERROR (sb_ask_tell_error_quark ())
GQuark sb_ask_tell_error_quark (void);
typedef enum {
  SB_ASK_TELL_ERROR_STALE,        /* the answer is not for the open question  */
  SB_ASK_TELL_ERROR_UNSUPPORTED,  /* an answer no question kind asks for yet  */
  SB_ASK_TELL_ERROR_INVALID,      /* an answer that does not fit the question */
  SB_ASK_TELL_ERROR_DONE,         /* the budget is used: nothing to ask       */
} SbAskTellError;

typedef enum {
  SB_ANSWER_CHOSEN = 0,  /* duels: the preferred option            */
  SB_ANSWER_VALUE,       /* value questions: the measured value    */
  SB_ANSWER_FAILED,      /* value questions: the setting failed    */
  SB_ANSWER_TIE,         /* duels that allow ties: about the same  */
  SB_ANSWER_RANKING,     /* rankings: the options, best first      */
} SbAnswerKind;

typedef struct {
  guint64 question;          /* the id of the question answered */
  SbAnswerKind kind;
  guint chosen;              /* SB_ANSWER_CHOSEN */
  guint n_ranked;            /* SB_ANSWER_RANKING: the length of RANKING */
  guint ranking[SB_MAX_OPTIONS];
  double value;              /* SB_ANSWER_VALUE  */
  gboolean has_response_time;
  double response_time;      /* seconds, >= 0 */
  sg_confidence confidence;  /* SG_CONFIDENCE_NONE when not given */
} SbAnswer;

/* Reads an answer document
 *   {"question": ID, "answer": {"chosen": i} | {"value": y} | {"failed": true}
 *                            | {"tie": true} | {"ranking": [i, ...]},
 *    "response_time"?: seconds,
 *    "confidence"?: "weak" | "normal" | "strong"}
 * Unknown members are refused. FALSE with ERROR (SB_ASK_TELL_ERROR_INVALID)
 * naming the member otherwise. */
gboolean sb_answer_from_json (JsonNode *root, SbAnswer *answer, GError **error);

/* TRUE when the experiment's budget of answers is used. */
gboolean sb_ask_tell_is_done (SbSession *session);

/* The pending question while it can still be answered (nothing was added
 * to the log since it was asked), else NULL. */
const SbPendingQuestion *sb_ask_tell_current (SbSession *session);

/* The current question; when there is none, proposes the next one from
 * the log (refitting the hyperparameters first when the engine's schedule
 * asks for it, as the window does), stores it as the pending question and
 * saves the session. NULL with ERROR: SB_ASK_TELL_ERROR_DONE when the
 * budget is used, SB_ENGINE_ERROR when the engine failed, a session error
 * when saving failed. */
const SbPendingQuestion *sb_ask_tell_ask (SbSession *session, GError **error);
/* The same, with repeated pairs scheduled at REPEAT_RATE (0 .. 1): a
 * question may be a past duel asked again, its options swapped and shown
 * on the other sides, instead of the engine's proposal
 * (sb_consistency_pick_repeat; a study's "repeat_rate"). A repeat is an
 * ordinary duel question and counts against the budget like any answer. */
const SbPendingQuestion *sb_ask_tell_ask_with_repeats (SbSession *session, double repeat_rate,
                                                       GError **error);

/* A proposer of duels from outside the session's own model (a
 * hierarchical study's, sb-population.h): fills A and B, the options 0
 * and 1 of the duel (A the incumbent), or sets *DECLINED for the session
 * to propose as usual. FALSE with ERROR when it failed. */
typedef gboolean (*SbAskProposer) (SbSession *session, gpointer user_data, double *a,
                                   double *b, gboolean *declined, GError **error);
/* sb_ask_tell_ask_with_repeats with PROPOSER asked first whenever a new
 * question is proposed (not for an open question, a repeat or a used
 * budget); the question is stored as the pending one exactly as the
 * session's own. */
const SbPendingQuestion *sb_ask_tell_ask_with_proposer (SbSession *session, double repeat_rate,
                                                        SbAskProposer proposer,
                                                        gpointer user_data, GError **error);

/* Records ANSWER to the pending question and saves: the log entry it
 * maps to (see above) with the question id, the order shown, and the
 * response time and confidence when given; the question is closed in the
 * same save. FALSE with ERROR and nothing changed when ANSWER is for
 * another question (SB_ASK_TELL_ERROR_STALE), does not fit it (_INVALID,
 * e.g. a ranking that is not a permutation of the options) or is a kind
 * of answer the question does not ask for (_UNSUPPORTED: a tie where
 * ties are not allowed, a ranking of a choice question, ...). */
gboolean sb_ask_tell_tell (SbSession *session, const SbAnswer *answer, GError **error);

/* The recommendation after replaying the log (SbRecommendation,
 * sb-recommend.h). Takes a snapshot of SESSION (sb_job_input_new) and computes the
 * recommendation from it, on the calling thread (sb_recommend_from_input
 * in sb-recommend.h; the window runs that one on the worker). */
gboolean sb_ask_tell_recommend (SbSession *session, SbRecommendation *out, GError **error);


G_END_DECLS
