/* sb-duel-panel.h — the question being asked: A (the current best) vs B.
 *
 * A view: it shows the question it is given and the state of the engine;
 * its buttons activate the window's actions (win.answer-a, win.answer-b,
 * win.answer-tie, win.choose, win.rank-add, win.rank-undo, win.rank-confirm,
 * win.skip, win.answer-value, win.answer-failed, win.autoplay,
 * win.oracle-answer, win.extend-budget), which own the logic.
 *
 * Duels show A and B (and "About the same" when the experiment allows
 * ties); choice and ranking questions show their k options in the order
 * the question says (SbProposal.shown_order), numbered 1 .. k on screen:
 * colour swatches for the colour template, a table of values otherwise,
 * in rows of equal length (a row up to 3, 2 x 2 for 4). The prompt is the
 * experiment's question_text when it gives one.
 * Clicking an option chooses it, or adds it to the ranking.
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-jobs.h"
#include "sb-recommend.h"
#include "sb-session.h"

G_BEGIN_DECLS

#define SB_TYPE_DUEL_PANEL (sb_duel_panel_get_type ())
G_DECLARE_FINAL_TYPE (SbDuelPanel, sb_duel_panel, SB, DUEL_PANEL, GtkWidget)

GtkWidget *sb_duel_panel_new (void);

/* The experiment whose questions are shown (copied). */
void sb_duel_panel_set_experiment (SbDuelPanel *self, const SbExperiment *exp);
/* The question to show (copied), or NULL for none. N_ANSWERS is the
 * number of answers so far: the question is number N_ANSWERS + 1. */
void sb_duel_panel_set_question (SbDuelPanel *self, const SbProposal *question,
                                 guint n_answers);
const SbProposal *sb_duel_panel_get_question (SbDuelPanel *self);

/* The confidence chosen for the next answer with the panel's "Unsure" /
 * "Sure" toggles (SG_CONFIDENCE_NONE when neither); a new question
 * clears it. */
sg_confidence sb_duel_panel_get_confidence (SbDuelPanel *self);
void sb_duel_panel_set_confidence (SbDuelPanel *self, sg_confidence confidence);
/* The panel shows the experiment's confidence scale: "Unsure" / "Sure"
 * for the words, buttons 1 .. k for a rating. RATING (1 .. k) becomes the
 * next answer's confidence; FALSE (nothing changed) when the scale is the
 * words or RATING is not on it. */
gboolean sb_duel_panel_set_rating (SbDuelPanel *self, guint rating);
/* The surest confidence of the scale: "strong", or the rating k (Shift
 * with an answer key). */
void sb_duel_panel_mark_sure (SbDuelPanel *self);

/* Ranking questions: the options clicked so far, best first. Adding an
 * option already ranked, or one that does not exist, is FALSE. The
 * ranking is complete when every option is in it; a new question clears
 * it. Returns the number ranked into ORDER (SB_MAX_OPTIONS entries). */
gboolean sb_duel_panel_rank_add (SbDuelPanel *self, guint option);
gboolean sb_duel_panel_rank_undo (SbDuelPanel *self);
guint sb_duel_panel_get_ranking (SbDuelPanel *self, guint *order);

/* The engine is computing: the panel says so (the window takes no answer
 * until the next question is shown). "Current best" keeps the latest
 * question's best meanwhile. */
gboolean sb_duel_panel_get_busy (SbDuelPanel *self);
void sb_duel_panel_set_busy (SbDuelPanel *self, gboolean busy);
/* Another process writes the session (REASON says who), or NULL: the
 * panel shows REASON instead of the answer controls. */
void sb_duel_panel_set_read_only (SbDuelPanel *self, const char *reason);
/* The budget is used up: the panel shows the best setting found and
 * offers to continue for N more questions (win.extend-budget, "u"). */
void sb_duel_panel_set_finished (SbDuelPanel *self, gboolean finished);
/* Safe mode stopped before the budget: REASON says why in a sentence
 * (sb_proposal_safe_statement), shown while the panel is finished; NULL
 * when the budget is what finished it. */
void sb_duel_panel_set_finished_reason (SbDuelPanel *self, const char *reason);

/* The participant's view (property "participant"): the options under
 * neutral names ("Left" / "Right", or 1 .. k), a duel's sides in the
 * question's shown order (SbProposal.shown_order[0] on the left; the
 * buttons answer for the side they are on), and nothing of the analysis:
 * no "current best", no probabilities or true values, no highlighted
 * differences, no autoplay, budget or key hints. */
gboolean sb_duel_panel_get_participant (SbDuelPanel *self);
void sb_duel_panel_set_participant (SbDuelPanel *self, gboolean participant);

/* A narrow window (down to 360 px): the rows of controls stack
 * vertically and the key hints are hidden. */
void sb_duel_panel_set_compact (SbDuelPanel *self, gboolean compact);

/* The number typed in the value entry, written with the locale's decimal
 * separator. FALSE (and a visible hint) when it is not a finite number or
 * holds the other separator (sb_parse_entered_number). */
gboolean sb_duel_panel_get_entered_value (SbDuelPanel *self, double *value);
void sb_duel_panel_clear_entered_value (SbDuelPanel *self);
/* The model's recommendation (sb-recommend.h), shown with the best
 * setting while that is still the best: posterior mean and 95% credible
 * interval, and the answers the model saw. NULL forgets it. */
void sb_duel_panel_set_recommendation (SbDuelPanel *self, const SbRecommendation *rec);
/* The auto-play delay chosen with the slider, in milliseconds. */
guint sb_duel_panel_get_autoplay_delay (SbDuelPanel *self);
void sb_duel_panel_set_autoplay_delay (SbDuelPanel *self, guint delay_ms);
/* The widget that receives the value; the window keeps keys away from it. */
GtkWidget *sb_duel_panel_get_value_entry (SbDuelPanel *self);

/* TEXT as a number with DECIMAL_POINT ('.' or ',') as the decimal
 * separator; FALSE with HINT (free it) for anything else, including the
 * other separator, which could be a thousands separator. */
gboolean sb_parse_entered_number (const char *text, char decimal_point, double *value,
                                  char **hint);

/* Why the options shown cannot be judged yet (a stimulus being rendered,
 * a renderer that failed, a sound not heard to the end), or NULL;
 * "answer-blocker" notifies its changes. */
const char *sb_duel_panel_get_answer_blocker (SbDuelPanel *self);
/* Sounds: plays the first option not heard yet (in the order shown),
 * else the first; FALSE when no option has a sound to play. */
gboolean sb_duel_panel_play_next (SbDuelPanel *self);
/* The session's file (NULL: unsaved): its folder is where renderer
 * commands run, and the user's consent to run the experiment's command is
 * asked and remembered for it (sb-command-trust.h). */
void sb_duel_panel_set_session_file (SbDuelPanel *self, GFile *session_file);

G_END_DECLS
