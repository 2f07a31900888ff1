/* sb-question.h — a question as asked and an answer as given: the one
 * question type and the one answer type of every client (the window's
 * campaign, `skewgp ask/tell`, the study server), the rules they follow
 * and the translation of an answer into the entry the log records.
 *
 * A question has an id (1, 2, ... per session, never reused, whoever
 * asked: sb_session_get_questions_asked), a kind, its options in the
 * engine's order and the order they are shown in. The session keeps the
 * question asked and not yet answered in its file (sb_session_get_open_question),
 * so any client can answer it; sb-ask-tell.h makes, opens and answers
 * questions on a session.
 *
 * Kinds and their answers:
 *   duel     two options; option 0 is the current best (a), option 1 the
 *            new candidate (b); answered by CHOSEN 0 or 1 (the index into
 *            the options, whatever order they were shown in), or TIE
 *            ("about the same") when the experiment allows ties;
 *   choice   k options (the experiment's "options"); CHOSEN i, i < k;
 *   ranking  k options; RANKING, every option once, best first;
 *   value    one option, the setting to measure (mixed and safe mode);
 *            VALUE y or FAILED. A failed setting is an observation of the
 *            model in both modes (001 eq. 40's non-valid factor): below
 *            the safety threshold in safe mode, below the failure level in
 *            mixed mode (the experiment's "threshold").
 * Every question can be skipped (SKIP): the log keeps it, the engine
 * never sees it. A confidence is kept with duels and choices (the log
 * refuses it elsewhere).
 *
 * No GTK here.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "sb-experiment.h"
#include "sb-log-entry.h"

G_BEGIN_DECLS

#define SB_QUESTION_ERROR (sb_question_error_quark ())
GQuark sb_question_error_quark (void);
typedef enum {
  SB_QUESTION_ERROR_STALE,        /* the answer is not for the open question  */
  SB_QUESTION_ERROR_UNSUPPORTED,  /* an answer the question does not ask for
                                     (a tie without ties, a ranking of a choice) */
  SB_QUESTION_ERROR_INVALID,      /* an answer that does not fit the question */
  SB_QUESTION_ERROR_DONE,         /* the budget is used: nothing to ask       */
  SB_QUESTION_ERROR_SAFE_EXHAUSTED, /* safe mode: no new setting is safe enough
                                     to ask (the message says why)           */
} SbQuestionError;

/* Sets ERROR to CODE in SB_QUESTION_ERROR with a printf-style message and
 * returns FALSE, so that a check reads "return sb_question_fail (...)":
 * the one way the protocol refuses a question or an answer. */
gboolean sb_question_fail (GError **error, SbQuestionError code, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

typedef enum {
  SB_QUESTION_DUEL = 0,   /* "A (the current best) or B?"                 */
  SB_QUESTION_VALUE,      /* "what did you measure?" (or "it failed")     */
  SB_QUESTION_CHOICE,     /* "which of these k is the best?"              */
  SB_QUESTION_RANKING,    /* "order these k, best first"                  */
} SbQuestionKind;

const char *sb_question_kind_to_string (SbQuestionKind kind);
gboolean sb_question_kind_from_string (const char *name, SbQuestionKind *kind);

typedef struct {
  guint64 id;                 /* 1, 2, ...: increasing, never reused        */
  SbQuestionKind kind;
  guint n_options;            /* 2 for a duel, 1 for a value question, the
                                 experiment's n_options for the others     */
  double options[SB_MAX_OPTIONS][SB_MAX_PARAMETERS];
  /* The options in the order they are presented (left to right, or a
   * grid's reading order), a permutation of 0 .. n_options - 1. */
  guint shown_order[SB_MAX_OPTIONS];
  /* A repeat of the past duel in log entry REPEAT_OF (1-based), its
   * options swapped and shown on the other sides; 0: not a repeat. */
  guint repeat_of;
  gint64 created;             /* microseconds since the epoch               */
  guint n_log;                /* the log's length when it was asked: once
                                 the log changes otherwise (another answer,
                                 an undo) the question is out of date      */
  /* Safe mode's value question: P(f >= threshold) at the setting asked,
   * under the model that chose it (sg_bo_query's prob_safe), so whoever
   * sets a machine to it sees the risk; FALSE for the safe start and
   * outside safe mode. */
  gboolean has_prob_safe;
  double prob_safe;
} SbQuestion;

/* The number of options a question of KIND shows in EXP. */
guint sb_question_n_options (const SbExperiment *exp, SbQuestionKind kind);
/* The next number of the SplitMix64 stream STATE: the shuffles here and
 * the space-filling options of a choice (sb-jobs.c) draw from it. */
guint64 sb_splitmix64 (guint64 *state);
/* ORDER = a random permutation of 0 .. N - 1, a function of SEED and
 * NUMBER only (Fisher-Yates on a SplitMix64 stream). */
void sb_shuffle_order (guint64 seed, guint64 number, guint n, guint *order);
/* Q's shown order: the shuffle of its options by the experiment's seed
 * and the question's number (id - 1), so the place of the current best is
 * balanced and reproducible. */
void sb_question_shuffle (SbQuestion *q, guint64 seed);
/* TRUE when Q can be the open question of a session of EXP whose log has
 * N_LOG entries and that gave out question ids up to ASKED (Q->id may
 * equal ASKED: the question is that last one): a kind the mode and the
 * question kind ask for, its options settings of EXP (distinct but for
 * a value question's one), its shown order a permutation. */
gboolean sb_question_check (const SbExperiment *exp, const SbQuestion *q, guint n_log,
                            guint64 asked, GError **error);

typedef enum {
  SB_ANSWER_CHOSEN = 0,  /* duels and choices: the preferred option    */
  SB_ANSWER_VALUE,       /* value questions: the measured value        */
  SB_ANSWER_FAILED,      /* value questions: the setting failed        */
  SB_ANSWER_TIE,         /* duels that allow ties: about the same      */
  SB_ANSWER_RANKING,     /* rankings: the options, best first          */
  SB_ANSWER_SKIP,        /* any question, left unanswered (logged)     */
} SbAnswerKind;

const char *sb_answer_kind_to_string (SbAnswerKind kind);
gboolean sb_answer_kind_from_string (const char *name, SbAnswerKind *kind);

/* An answer with everything it can carry. Options are named by their
 * index in the question's options (the engine's order), not by where
 * they were shown. */
typedef struct {
  guint64 question;          /* the id of the question answered */
  SbAnswerKind kind;
  guint chosen;              /* SB_ANSWER_CHOSEN */
  guint n_ranked;            /* SB_ANSWER_RANKING: the length of RANKING
                                (0: as many as the question's options) */
  guint ranking[SB_MAX_OPTIONS];
  double value;              /* SB_ANSWER_VALUE  */
  gboolean has_response_time;
  double response_time;      /* seconds, >= 0 */
  /* The confidence as given: a word or the engine's level in CONFIDENCE
   * (SG_CONFIDENCE_NONE when not given), or a rating's number in
   * CONFIDENCE_RATING (1 .., 0 when none), which the experiment's scale
   * reads when the answer is recorded (sb_answer_to_entry). */
  sg_confidence confidence;
  guint confidence_rating;
  /* The order the options were really shown in, when the client did not
   * show them in the question's (the workbench panel draws a duel's A on
   * the left); 0: as the question says. */
  guint n_shown;
  guint shown_order[SB_MAX_OPTIONS];
} SbAnswer;

/* Reads an answer document
 *   {"question": ID, "answer": {"chosen": i} | {"value": y} | {"failed": true}
 *                            | {"tie": true} | {"ranking": [i, ...]}
 *                            | {"skip": true},
 *    "response_time"?: seconds,
 *    "confidence"?: "weak" | "normal" | "strong" | rating}
 * (the confidence on the experiment's scale, sb-confidence-scale.h; a
 * rating's number is checked against the scale by sb_answer_to_entry).
 * Unknown members are refused. FALSE with ERROR (SB_QUESTION_ERROR_INVALID)
 * naming the member otherwise. */
gboolean sb_answer_from_json (JsonNode *root, SbAnswer *answer, GError **error);

/* The log entry ANSWER to question Q of EXP becomes: its kind and options
 * (a duel's and a tie's a and b, a value's one setting, a choice's or
 * ranking's k options, a skip those of its question), the question's id,
 * the order shown, the response time and confidence; the time is left 0
 * (stamped when recorded). NULL with ERROR when ANSWER does not fit Q:
 * SB_QUESTION_ERROR_UNSUPPORTED for a kind of answer Q does not ask for
 * where another client could (a tie where ties are not allowed, a
 * ranking of a choice question), _INVALID for one that cannot answer it
 * (a value to a duel, an option that does not exist), SB_SESSION_ERROR_INVALID
 * for a ranking that is not a permutation of the options,
 * SB_QUESTION_ERROR_INVALID naming the experiment's confidence scale for
 * a confidence not on it. The log's own rules (sb_experiment_check_observation)
 * apply when it is recorded. */
SbLogEntry *sb_answer_to_entry (const SbExperiment *exp, const SbQuestion *q,
                                const SbAnswer *answer, GError **error);
/* TRUE when ENTRY is what ANSWER records (its question, kind, choice,
 * ranking or value, confidence and response time; times aside): a client
 * that sends the same answer again after its first one was recorded (a
 * retry after a lost reply) can be told it is already there. */
gboolean sb_answer_matches_entry (const SbAnswer *answer, const SbLogEntry *entry);

G_END_DECLS
