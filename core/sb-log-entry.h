/* sb-log-entry.h — one entry of a session's observation log: an answer
 * as it is recorded, and the rules an entry of an experiment's log
 * follows.
 */
#pragma once

#include "sb-experiment.h"

G_BEGIN_DECLS

/* A person's answer as the log records it. The engine's observation
 * (sg_obs_kind) it becomes depends on the mode: a duel is a preference
 * (tie_offered when the experiment allows ties), a tie a tie, a choice a
 * choice and a ranking a ranking (sg-data.h), a value is numeric (mixed
 * mode) or valid (safe mode), a failed setting is invalid (below the
 * threshold in safe mode, the failure level in mixed mode); a skip is kept
 * for the record and never reaches the engine. */
typedef enum {
  SB_LOG_DUEL = 0,  /* a vs b; winner 0 = a, 1 = b                         */
  SB_LOG_VALUE,     /* a measured value at a                               */
  SB_LOG_FAILED,    /* mixed and safe mode: the setting a failed           */
  SB_LOG_SKIP,      /* a question left unanswered; logged only             */
  SB_LOG_TIE,       /* a and b "about the same"                            */
  SB_LOG_CHOICE,    /* options[chosen] is the best of the n_options shown  */
  SB_LOG_RANKING,   /* the options in the order ranking[] (best first)     */
} SbLogKind;

/* Which options an entry holds: a duel, a tie and a duel's skip hold a
 * and b (n_options = 0, options NULL); a value and a failed setting hold
 * a; a choice, a ranking and the skip of such a question hold the
 * n_options rows of OPTIONS (a and b NULL), in the order the campaign
 * proposed them (sb_log_entry_option reads them all alike).
 *
 * The confidence is one of the engine's levels on the experiment's scale
 * (sg_confidence: none, "weak", "normal", "strong", or a rating 1 .. k;
 * sb-confidence-scale.h), given for duels and choices. Older files held
 * any number there, on a scale only the experimenter knew; under the
 * words scale such a number loads as no confidence and is kept in the
 * note as "confidence: <number>".
 *
 * SHOWN_ORDER lists the options in the order they were presented (on
 * screen: left to right, or reading order of a grid), by index: 0 = a, 1
 * = b for two-option entries. The app records it for every question it
 * shows, ask/tell when the client answers a question it was given. */
typedef struct {
  SbLogKind kind;
  int winner;        /* duels: 0 = a preferred, 1 = b preferred          */
  double value;      /* value observations                              */
  gint64 time;       /* wall-clock time, microseconds since the epoch    */
  guint dim;
  double *a;         /* dim: the first candidate (the current best)      */
  double *b;         /* dim for duels, ties and their skips, otherwise NULL */
  guint n_options;   /* choices and rankings: k, otherwise 0             */
  double *options;   /* n_options x dim, row-major, or NULL              */
  guint chosen;      /* choices: the index of the option chosen          */
  guint ranking[SB_MAX_OPTIONS]; /* rankings: option indices, best first */
  /* Optional details of an answer; zero when absent, and then not
   * written to the file. */
  guint64 question;          /* the ask/tell question it answers, 0: none  */
  guint n_shown;             /* 0: presentation order not recorded         */
  guint shown_order[SB_MAX_OPTIONS]; /* option shown first, second, ...    */
  gboolean has_response_time;
  double response_time;      /* seconds from question to answer, >= 0      */
  sg_confidence confidence;  /* SG_CONFIDENCE_NONE: not given              */
  char *note;                /* NULL, or why the entry is what it is       */
  /* Removed by the experimenter (sb-session-history.h): the entry stays
   * in the log and in the file ("removed": {"time", "by"}), but it never
   * reaches the engine and does not count as an answer. 0: it counts. */
  gint64 removed_time;
  char *removed_by;          /* who removed it ("" when not said)          */
} SbLogEntry;

#define SB_TYPE_LOG_ENTRY (sb_log_entry_get_type ())
GType sb_log_entry_get_type (void) G_GNUC_CONST;
SbLogEntry *sb_log_entry_copy (const SbLogEntry *obs);
void sb_log_entry_free (SbLogEntry *obs);
const char *sb_log_kind_to_string (SbLogKind kind);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbLogEntry, sb_log_entry_free)
/* TRUE when the experimenter removed ENTRY (it does not count). */
#define sb_log_entry_is_removed(entry) ((entry)->removed_time != 0)
/* The number of options ENTRY holds (1, 2 or n_options) and the I-th. */
guint sb_log_entry_n_options (const SbLogEntry *entry);
const double *sb_log_entry_option (const SbLogEntry *entry, guint i);
/* The index of the option the answer preferred to all others (duel
 * winner, choice, best of a ranking), or -1 (ties, values, skips). */
int sb_log_entry_best_option (const SbLogEntry *entry);

/* TRUE when OBS, the INDEX-th (0-based) observation of a log, belongs to
 * EXP as the engine takes it: a kind the mode and the question kind ask
 * for (duels in preference and mixed mode, ties where the experiment
 * allows them, choices and rankings in experiments that ask them, values
 * and failed settings in mixed and safe mode, skips anywhere),
 * the experiment's dimension, every coordinate finite and inside its
 * parameter's range, a duel or a tie between two different settings, the
 * k options of a choice or ranking distinct and as many as the
 * experiment shows, a ranking a permutation of them, a confidence only
 * on duels and choices, a finite value. Otherwise ERROR (in
 * SB_SESSION_ERROR_INVALID) reads e.g. "observation 3 (duel): coordinate 2
 * (hue) of b = 400 is outside [0, 360]". Loading, adding, saving and the
 * engine's replay of the log all apply this one check. */
gboolean sb_experiment_check_observation (const SbExperiment *exp, const SbLogEntry *obs,
                                          guint index, GError **error);

/* KIND for the log kind NAME ("duel", "value", "failed", "skip", ...). */
gboolean sb_log_kind_from_string (const char *name, SbLogKind *kind);
/* A new entry of KIND, stamped now, with copies of A and B (B may be NULL). */
SbLogEntry *sb_log_entry_new (SbLogKind kind, guint dim, const double *a, const double *b);

/* The parts of sb_experiment_check_observation a question's check shares
 * (sb-question.h): KIND is an answer EXP's mode and question kind ask for;
 * X is a setting of EXP (every coordinate finite, inside its range, a
 * whole number where the scale asks, one of the candidates); ORDER (N
 * entries) lists each of 0 .. N - 1 once; A and B the same setting. WHAT
 * and SIDE name the point in the message ("observation 3 (duel)", " of
 * b"). */
gboolean sb_log_kind_fits_mode (SbLogKind kind, SbMode mode);
gboolean sb_log_kind_fits_question (SbLogKind kind, const SbExperiment *exp);
gboolean sb_experiment_check_setting (const SbExperiment *exp, const double *x, const char *what,
                                      const char *side, GError **error);
gboolean sb_is_permutation (const guint *order, guint n);
gboolean sb_same_setting (const double *a, const double *b, guint dim);

/* The experimenter's edits of a log (sb-session-history.h): each is
 * one record of the session's journal. */
typedef enum {
  SB_EDIT_REMOVE = 0,  /* the entry stops counting                    */
  SB_EDIT_RESTORE,     /* a removed entry counts again                */
  SB_EDIT_NOTE,        /* the entry's note changed                    */
} SbEditAction;

const char *sb_edit_action_to_string (SbEditAction action);
gboolean sb_edit_action_from_string (const char *name, SbEditAction *action);

/* One record of the journal. */
typedef struct {
  SbEditAction action;
  guint entry;        /* the log entry (0-based; 1-based in the file)     */
  gint64 time;        /* microseconds since the epoch                     */
  char *by;           /* who made the edit ("" when not said)             */
  char *note;         /* SB_EDIT_NOTE: the new note (NULL: cleared)       */
  char *previous;     /* SB_EDIT_NOTE: the note before (NULL: none)       */
  guint reverts;      /* an undo: the journal record it reverts, 1-based;
                         0 for an edit made for its own sake             */
} SbEdit;

void sb_edit_clear (SbEdit *edit);
/* A journal array (element SbEdit, cleared with sb_edit_clear). */
GArray *sb_edit_array_new (void);
/* TRUE when EDIT can be in the journal of a log of N_LOG entries that
 * holds N_EDITS records before it; ERROR names what is wrong. */
gboolean sb_edit_check (const SbEdit *edit, guint n_log, guint n_edits, GError **error);

G_END_DECLS
