/* sb-consistency.h — is one participant answering consistently?
 *
 * Measures on a session's log (entries the experimenter removed and skips
 * do not count; a "setting" is one exact point, so two answers are about
 * the same pair only when they show the very same settings, as a
 * scheduled repeat does):
 *
 * Repeated pairs. A duel (or tie) whose two settings were shown together
 * before is a repeat of the first duel of that pair; it agrees when it
 * prefers the same setting (or is a tie again). The agreement rate is
 * agreements / repeats, with the one-sided binomial tail
 * P(X >= agreements | repeats, 1/2): how surprising the agreement would
 * be from a coin.
 *
 * Intransitive triples. The duels' outcomes give each pair of settings a
 * direction (the majority of its duels; a pair with as many wins as
 * losses, or only ties, has none). Every set of three settings whose
 * three pairs all have a direction is counted once; it is intransitive
 * when the directions form a cycle (x > y > z > x).
 *
 * Side bias. Of the duels whose presentation order was recorded (ties
 * aside), how often the option shown first was preferred, with the
 * two-sided exact binomial test against 1/2. The engine can fit a side
 * bias (sg_noise.side_bias) but the refit the session stores does not
 * free it, so the empirical rate is what there is.
 *
 * Answering at chance (a screening flag, not a verdict):
 *   - by repeats: at least SB_CONSISTENCY_MIN_REPEATS repeats and an
 *     agreement a coin would reach often (the tail above > 0.05);
 *   - by evidence: the stored fit saw exactly the current answers, all
 *     of them preference answers, and its log evidence is no better than
 *     a coin's log likelihood (each answer one of its m equally likely
 *     outcomes: 2 for a duel, 3 where ties are allowed, k for a choice of
 *     k, k! for a ranking): log BF = log evidence - log coin <= 0. The
 *     fitted evidence is maximised over the hyperparameters, so it
 *     favours the model; a participant it cannot tell from a coin is
 *     answering at chance.
 * Either raises the flag; both indicators are reported.
 *
 * Repeats are scheduled at a rate (sb_consistency_pick_repeat): a duel
 * answered at least SB_REPEAT_MIN_GAP entries ago, not repeated yet, is
 * asked again with its options in the other order and shown on the other
 * sides.
 */
#pragma once

#include "sb-session.h"

G_BEGIN_DECLS

#define SB_CONSISTENCY_MIN_REPEATS 6
#define SB_REPEAT_MIN_GAP 3

typedef struct {
  guint n_answers;          /* entries that count (not skips, not removed)   */
  guint n_duels;            /* duels and ties that count                     */
  guint n_repeats;          /* duels of a pair shown before                   */
  guint n_agree;            /* ... agreeing with the first duel of the pair  */
  double agreement;         /* n_agree / n_repeats; NaN without repeats      */
  double agreement_p;       /* P(X >= n_agree | n_repeats, 1/2); NaN without  */
  guint n_triples;          /* triples of settings with all pairs directed   */
  guint n_intransitive;     /* ... whose directions form a cycle             */
  guint n_side;             /* duels with the order shown, ties aside         */
  guint n_first_chosen;     /* ... won by the option shown first             */
  double first_rate;        /* n_first_chosen / n_side; NaN when n_side = 0   */
  double side_p;            /* two-sided binomial test vs 1/2; NaN without    */
  gboolean has_log_bf;
  double log_bf;            /* log evidence - log coin likelihood            */
  gboolean chance_by_repeats;
  gboolean chance_by_evidence;
  gboolean at_chance;       /* either of the two                              */
} SbConsistency;

/* The measures above for LOG (SbLogEntry) of an experiment EXP, with the
 * stored fit HYPER (may be NULL). */
void sb_consistency_compute (const SbExperiment *exp, GPtrArray *log, const SbHyper *hyper,
                             SbConsistency *out);
void sb_consistency_of_session (SbSession *session, SbConsistency *out);

/* P(X >= K) and the two-sided exact test for X ~ Binomial(N, 1/2). */
double sb_binomial_upper_tail (guint k, guint n);
double sb_binomial_two_sided (guint k, guint n);

/* Whether question QUESTION_ID (of an experiment seeded SEED) repeats a
 * past duel instead of asking the engine's proposal: with probability
 * RATE (decided by a hash of SEED and QUESTION_ID, so asking again gives
 * the same answer), when the experiment asks duels and LOG holds a duel
 * that counts, was answered at least SB_REPEAT_MIN_GAP entries before the
 * end, is not itself a repeat and has not been repeated; one of those,
 * drawn by the same hash, goes to *ENTRY (its index in LOG). */
gboolean sb_consistency_pick_repeat (const SbExperiment *exp, GPtrArray *log, guint64 seed,
                                     guint64 question_id, double rate, guint *entry);

G_END_DECLS
