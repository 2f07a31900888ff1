/* sb-session.h — an experiment and every answer ever given (docs/DESIGN.md §4).
 *
 * The session is the single source of truth of the workbench: the
 * experiment definition plus the full observation log, each observation
 * with its timestamp. Everything the engine computes can be recomputed from
 * it. It is one JSON document
 *
 *   { "format": "skewbench-session", "version": 1,
 *     "experiment": { ... }, "observations": [ ... ] }
 *
 * written atomically (temporary file + fsync + rename) after every answer;
 * a symbolic link is written through (its target is replaced, the link
 * stays), and a temporary file left by a save that was killed is removed
 * by the next open or save. A damaged or foreign file is refused with an
 * error that names the line and column (lines may end in LF, CRLF or CR),
 * and it is never overwritten: a session that failed to load has no file
 * and therefore never saves.
 *
 * No GTK here: the session is testable without a display.
 */
#pragma once

#include <gio/gio.h>

#include "sb-file-lock.h"
#include "sg-bo.h"

G_BEGIN_DECLS

#define SB_SESSION_FORMAT "skewbench-session"
#define SB_SESSION_VERSION 1
/* The engine's box dimension: an experiment's every parameter is a search
 * dimension (sb-session.c asserts that the two agree). */
#define SB_MAX_PARAMETERS 32
/* The most questions an experiment may plan. */
#define SB_MAX_BUDGET 100000

#define SB_SESSION_ERROR (sb_session_error_quark ())
GQuark sb_session_error_quark (void);
typedef enum {
  SB_SESSION_ERROR_PARSE,    /* not JSON: line and column of the fault      */
  SB_SESSION_ERROR_FOREIGN,  /* JSON, but not a SkewBench session           */
  SB_SESSION_ERROR_VERSION,  /* a newer session version than this program's */
  SB_SESSION_ERROR_INVALID,  /* a session whose content is malformed        */
  SB_SESSION_ERROR_NO_FILE,  /* saving a session that has no file           */
} SbSessionError;

/* The engine's loops a person can answer (sg_bo_mode without active
 * classification): the values are the engine's, the names too. */
typedef enum {
  SB_MODE_PREFERENCE = SG_BO_PREFERENCE,  /* every question is a duel                */
  SB_MODE_MIXED = SG_BO_MIXED,            /* some questions ask for a measured value */
  SB_MODE_SAFE = SG_BO_SAFE,              /* values, or "this setting failed"        */
} SbMode;

typedef enum {
  SB_TEMPLATE_COLOUR = 0,  /* favourite colour: hue, saturation, lightness */
  SB_TEMPLATE_BENCHMARK,   /* a benchmark function of the engine           */
  SB_TEMPLATE_CUSTOM,      /* parameters named by the user                 */
} SbTemplate;

/* What one question asks (the experiment's question kind). */
typedef enum {
  SB_ASK_DUEL = 0,  /* "which of the two do you prefer?" (optionally
                            "about the same", see ties_allowed)          */
  SB_ASK_CHOICE,    /* "which is the best of these k?"               */
  SB_ASK_RANKING,   /* "order these k, best first"                   */
} SbAskKind;

/* The fewest options of a choice or ranking question (two would be a duel). */
#define SB_MIN_CHOICE_OPTIONS 3

const char *sb_ask_kind_to_string (SbAskKind kind);
gboolean sb_ask_kind_from_string (const char *name, SbAskKind *kind);
const char *sb_mode_to_string (SbMode mode);
gboolean sb_mode_from_string (const char *name, SbMode *mode);
const char *sb_template_to_string (SbTemplate kind);
gboolean sb_template_from_string (const char *name, SbTemplate *kind);

/* What a parameter's values are ("scale" in the file; sb-parameter-kinds.h). */
typedef enum {
  SB_SCALE_LINEAR = 0,  /* a real interval (the default)                   */
  SB_SCALE_LOG,         /* positive; modelled in log space                 */
  SB_SCALE_INTEGER,     /* whole numbers                                   */
  SB_SCALE_PERIODIC,    /* one period: lower and upper the same setting    */
  SB_SCALE_CATEGORICAL, /* named levels, unordered; values 0 .. n - 1      */
} SbScale;

typedef struct {
  char *name;
  char *unit;     /* may be "" */
  double lower;
  double upper;   /* > lower */
  /* The measurement resolution: settings closer than this are the same
   * setting, and no question asks one again (0: none given). */
  double resolution;
  SbScale scale;
  /* Categorical: the level names (NULL-terminated; lower 0, upper n - 1,
   * a setting is the level's index). NULL for the other scales. */
  char **levels;
} SbParameter;

/* A fixed candidate set (sb-candidates.h). */
typedef struct _SbCandidates SbCandidates;
/* What each option of a question shows the person (sb-stimulus.h):
 * nothing but the numbers, a colour swatch, an image or a sound an
 * external command renders, a text filled in from the values, or the
 * file of a fixed candidate set (an image or a sound). */
typedef enum {
  SB_STIMULUS_NONE = 0,
  SB_STIMULUS_COLOUR,
  SB_STIMULUS_IMAGE,
  SB_STIMULUS_SOUND,
  SB_STIMULUS_TEXT,
  SB_STIMULUS_FILE,
} SbStimulusKind;

/* How a colour stimulus reads the first three parameters. */
typedef enum {
  SB_COLOUR_OKLCH = 0,  /* lightness (% or [0, 1]), chroma, hue in degrees */
  SB_COLOUR_HSL,        /* hue, saturation %, lightness % (older sessions) */
} SbColourSpace;

typedef struct {
  SbStimulusKind kind;
  SbColourSpace colour_space;
  char *command;     /* image, sound: the renderer's command template      */
  char *extension;   /* image, sound: the output file's extension          */
  double timeout;    /* image, sound: seconds before the renderer is killed */
  char *text;        /* text (or a caption of any kind): template string   */
} SbStimulus;

/* The experiment definition. Plain data, deep-copied into every job. */
typedef struct {
  char *title;
  SbTemplate template_kind;
  SbMode mode;
  sg_bo_acquisition acquisition;  /* named in the file by sg_bo_acquisition_name */
  sg_bo_surrogate surrogate;      /* named in the file by sg_bo_surrogate_name   */
  guint budget;           /* number of questions planned                  */
  guint initial;          /* random initial questions before the model    */
  guint64 seed;
  /* Safe mode: a setting is safe when f >= this. Mixed mode: the failure
   * level, a failed setting's utility is below it (sg_bo_answer_invalid). */
  double threshold;
  /* Safe mode: a setting known to be safe, asked first (the engine's
   * safe start) instead of a random one; "safe_start" in the file. */
  gboolean has_safe_start;
  double safe_start[SB_MAX_PARAMETERS];
  guint numeric_every;    /* mixed mode: every k-th question is a value   */
  /* Benchmark template */
  char *problem;          /* engine benchmark name, e.g. "six-hump-camel" */
  gboolean simulated;     /* answered by the simulated oracle             */
  gboolean show_truth;    /* show the true function                       */
  guint autoplay_ms;      /* delay between simulated answers              */
  double oracle_noise;    /* sd of the oracle's preference noise          */
  /* What a preference question asks ("question", "options", "ties_allowed"
   * in the file; absent in older files: a duel without ties). Choices,
   * rankings and ties are modelled exactly by the SkewGP surrogate only
   * (Laplace, EP and the sparse GP cannot represent them). */
  SbAskKind question;
  guint n_options;        /* options per question: 2 for duels, 3 .. SB_MAX_OPTIONS */
  gboolean ties_allowed;  /* duels: "about the same" is an answer          */
  SbStimulus stimulus;    /* "stimulus" in the file; absent: NONE        */
  guint n_parameters;
  SbParameter parameters[SB_MAX_PARAMETERS];
  /* The stimuli the model chooses among ("candidates" in the file;
   * sb-candidates.h), or NULL: the whole box. */
  SbCandidates *candidates;
} SbExperiment;

#define SB_TYPE_EXPERIMENT (sb_experiment_get_type ())
GType sb_experiment_get_type (void) G_GNUC_CONST;
/* Zeroed experiment with the defaults (preference, ucb, skewgp, budget 30). */
SbExperiment *sb_experiment_new (void);
SbExperiment *sb_experiment_copy (const SbExperiment *exp);
void sb_experiment_free (SbExperiment *exp);
/* Appends a parameter; FALSE (and nothing added) when the table is full,
 * the name is empty or lower >= upper. */
gboolean sb_experiment_add_parameter (SbExperiment *exp, const char *name,
                                      const char *unit, double lower, double upper);
/* TRUE when the experiment can run and be saved; otherwise ERROR (in
 * SB_SESSION_ERROR_INVALID) names the field and says what is wrong: every
 * number finite, each parameter's range non-empty, counts within the
 * limits a session file allows, the surrogate fitting the mode. */
gboolean sb_experiment_validate (const SbExperiment *exp, GError **error);
/* TRUE when duels of MODE with SURROGATE can be chosen by ACQ (part of
 * sb_experiment_validate): hb-ei, hb-ucb, dts and qeubo ask
 * preference-mode duels only (the engine's rules), and the hallucination believer
 * (hb-*) needs the exact SkewGP's samples. Choices and rankings are
 * always chosen by qEUBO, whatever ACQ says. Otherwise ERROR says why. */
gboolean sb_acquisition_fits (SbMode mode, sg_bo_surrogate surrogate, sg_bo_acquisition acq,
                              GError **error);
/* "'ucb', 'eiig', ... or 'muc'": every acquisition's name in the session
 * file (the engine's), for messages (g_free). */
char *sb_acquisition_known_names (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbExperiment, sb_experiment_free)

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

/* The most options a question shows. */
#define SB_MAX_OPTIONS 6

/* Which options an entry holds: a duel, a tie and a duel's skip hold a
 * and b (n_options = 0, options NULL); a value and a failed setting hold
 * a; a choice, a ranking and the skip of such a question hold the
 * n_options rows of OPTIONS (a and b NULL), in the order the campaign
 * proposed them (sb_log_entry_option reads them all alike).
 *
 * The confidence is one of the engine's levels (sg_confidence: none,
 * "weak", "normal", "strong"), given for duels and choices. Older files
 * held any number there, on a scale only the experimenter knew; such a
 * number loads as no confidence and is kept in the note as
 * "confidence: <number>".
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

/* The question an ask/tell client was given and has not answered yet
 * (sb-ask-tell.h), kept in the session file so that asking again gives the
 * same question and an answer can name the question it answers. Options
 * are in the engine's order: for a duel option 0 is a (the current best)
 * and option 1 is b (the new candidate), for a value question the one
 * option is the setting to measure, a choice or ranking question's k
 * options are the campaign's (SbQuestion in sb-jobs.h). SHOWN_ORDER is
 * the order in which they are presented (a permutation of 0 ..
 * n_options - 1). */
typedef enum {
  SB_PENDING_DUEL = 0,       /* "which do you prefer?"                       */
  SB_PENDING_VALUE,          /* "what did you measure?" (or "it failed")    */
  SB_PENDING_CHOICE,         /* "which of these k is the best?"             */
  SB_PENDING_RANKING,        /* "order these k, best first"                 */
} SbPendingKind;

typedef struct {
  guint64 id;                 /* 1, 2, ...: increasing, never reused        */
  SbPendingKind kind;
  guint n_options;            /* 2 for a duel, 1 for a value question, the
                                 experiment's n_options for the others     */
  double options[SB_MAX_OPTIONS][SB_MAX_PARAMETERS];
  guint shown_order[SB_MAX_OPTIONS];
  gint64 created;             /* microseconds since the epoch               */
  guint n_log;                /* the log's length when it was asked: once
                                 the log changes otherwise (the app answered,
                                 undo) the question is out of date          */
} SbPendingQuestion;

const char *sb_pending_kind_to_string (SbPendingKind kind);

/* Hyperparameters of a refit (the engine's sg_hyper with s = 0), stored
 * with the session because they are not a function of the answers alone
 * (sg-bo.h). VALID = FALSE: the engine's defaults. */
typedef struct {
  gboolean valid;
  guint n_answers;          /* answers the fit saw                      */
  gboolean matern52;        /* kernel: RBF (FALSE) or Matern 5/2        */
  double variance;
  double lengthscales[SB_MAX_PARAMETERS];
  double mean;
  double numeric_sd;
  double probit_sd;
  double log_evidence;
} SbHyper;

/* TRUE when H is nothing stored (valid = FALSE) or a usable set for DIM
 * parameters: variance, noise sds and lengthscales positive and finite, a
 * finite mean (LOG_EVIDENCE may be NaN: unknown, and is then not saved).
 * Otherwise ERROR names the field. */
gboolean sb_hyper_validate (const SbHyper *h, guint dim, GError **error);

#define SB_TYPE_SESSION (sb_session_get_type ())
G_DECLARE_FINAL_TYPE (SbSession, sb_session, SB, SESSION, GObject)

/* A new session for EXP (copied), without a file. */
SbSession *sb_session_new (const SbExperiment *exp);
/* Reads FILE. On failure returns NULL with ERROR in SB_SESSION_ERROR (or
 * G_IO_ERROR / G_FILE_ERROR for I/O: a directory or another file that is
 * not a regular one is refused naming it); parse errors read
 * "FILE:LINE:COLUMN: message". The file is never modified. */
SbSession *sb_session_load (GFile *file, GError **error);
/* The same from a buffer; NAME is used in messages. */
SbSession *sb_session_load_from_data (const char *data, gssize len,
                                      const char *name, GError **error);

const SbExperiment *sb_session_get_experiment (SbSession *self);
GFile *sb_session_get_file (SbSession *self);
/* Binds the session to FILE and saves it there now (atomically). */
gboolean sb_session_save_as (SbSession *self, GFile *file, GError **error);
/* Saves to the bound file, atomically (temp + rename). A session whose
 * content cannot be read back (an experiment created with a value
 * sb_experiment_validate() refuses) is not written: FALSE with ERROR. */
gboolean sb_session_save (SbSession *self, GError **error);
/* Changes (answers, undo, hyperparameters) are saved before the call
 * returns, unless BACKGROUND: then the document is serialised at once and
 * written by a writer thread (in order, atomically), ::saved (guint n,
 * the log length on disk) follows on the main thread, ::save-failed
 * (GError) if it could not be written. Sync saves emit ::saved too. */
void sb_session_set_save_in_background (SbSession *self, gboolean background);
/* Blocks until every background save of every session is on disk. */
void sb_session_flush_all (void);
/* The JSON document (pretty-printed, newline-terminated). */
char *sb_session_to_data (SbSession *self, gsize *length);

guint sb_session_get_n_observations (SbSession *self);
const SbLogEntry *sb_session_get_observation (SbSession *self, guint index);
/* Observations that count as answers (everything except skips and
 * entries the experimenter removed). */
guint sb_session_get_n_answers (SbSession *self);
/* A deep copy of the log (element type SbLogEntry, owns its items). */
GPtrArray *sb_session_dup_observations (SbSession *self);

/* Appending saves the session when it has a file. If saving fails the
 * answer stays in memory, ERROR says why, and FALSE is returned; the caller
 * shows the error. Vectors have the experiment's dimension. An answer that
 * sb_experiment_check_observation() refuses (a coordinate that is not
 * finite or outside the box, a duel of a setting with itself, a value
 * that is not finite, a kind the mode does not ask for) is not recorded:
 * FALSE with ERROR in SB_SESSION_ERROR_INVALID, the log unchanged. */
gboolean sb_session_add_duel (SbSession *self, const double *a, const double *b,
                              int winner, GError **error);
gboolean sb_session_add_value (SbSession *self, const double *x, double value,
                               GError **error);
gboolean sb_session_add_failed (SbSession *self, const double *x, GError **error);
gboolean sb_session_add_skip (SbSession *self, const double *a, const double *b,
                              GError **error);
/* Appends a copy of ENTRY (any kind, with the optional ask/tell details;
 * a zero time is stamped now) and saves, with the checks of the add
 * functions above. When ENTRY->question names the pending question, that
 * question is answered: it is cleared in the same save. */
gboolean sb_session_add_entry (SbSession *self, const SbLogEntry *entry, GError **error);

/* The pending ask/tell question, or NULL when there is none. The app does
 * not ask it; it only keeps it (and an answer the app records makes it out
 * of date, see n_log). */
const SbPendingQuestion *sb_session_get_pending (SbSession *self);
/* The largest question id ever given out (0: none): the next is one more. */
guint64 sb_session_get_questions_asked (SbSession *self);
/* Stores Q as the pending question and saves (when the session has a
 * file). Q->id must be larger than every id given out before; its options
 * must fit the experiment (inside the box, a kind the mode asks). FALSE
 * with ERROR otherwise, nothing changed. */
gboolean sb_session_set_pending (SbSession *self, const SbPendingQuestion *q, GError **error);

/* Removes the last observation (skips included) and saves; a pending
 * question asked after it is dropped. FALSE with ERROR when the log is
 * empty, the entry was edited (sb-session-history.h: it is kept, and can
 * be removed there instead) or saving failed. */
gboolean sb_session_undo (SbSession *self, GError **error);

/* The stored hyperparameters (valid = FALSE when none) and their update;
 * setting them saves the session when it has a file. A set that
 * sb_hyper_validate() refuses is not stored (FALSE with ERROR). Every
 * valid set is also kept in the refit history ("refits" in the file),
 * oldest first: what each fit found, with the answers it saw; undo keeps
 * it. */
const SbHyper *sb_session_get_hyper (SbSession *self);
gboolean sb_session_set_hyper (SbSession *self, const SbHyper *hyper, GError **error);
guint sb_session_get_n_refits (SbSession *self);
/* Reads the bound file again and takes its contents (experiment, log,
 * hyperparameters, refits), emitting ::changed: how a reader follows a
 * session another process writes. FALSE with ERROR (nothing changed) when
 * the file cannot be read or is refused. Writes nothing. */
gboolean sb_session_reload (SbSession *self, GError **error);
/* The write lock of the session file at PATH (core/sb-file-lock.h), taken
 * on the file a symbolic link leads to, so that every path to one session
 * shares one lock: the app holds it while it runs the session, `skewgp
 * new/ask/tell` for each change. PROGRAM names the holder ("skewbench",
 * "skewgp tell"). NULL with G_IO_ERROR_BUSY naming the holder. */
SbFileLock *sb_session_lock_file (const char *path, const char *program, GError **error);
const SbHyper *sb_session_get_refit (SbSession *self, guint index);

/* Changes the number of questions planned (1 .. SB_MAX_BUDGET) and saves,
 * like an answer: FALSE with ERROR when out of range (nothing changed) or
 * when saving failed (the new budget is kept in memory). */
gboolean sb_session_set_budget (SbSession *self, guint budget, GError **error);

/* CSV of the observations: a header row, then one row per observation:
 * index,time,kind,answer,value,a_<name>...,b_<name>...[,c_<name>...],
 * question,shown_order,response_time,confidence,note, with one group of
 * option columns per option the experiment shows (a, b, c, ...). ANSWER
 * is the duel's winner (a or b), the option chosen, a ranking best first
 * ("c a b"), "tie" or "failed"; SHOWN_ORDER the options in presentation
 * order ("b a"); the details are empty when not recorded. */
char *sb_session_to_csv (SbSession *self);
/* The same log in long format, one row per option shown, for analysis in
 * R or pandas (sb-session-csv.c documents the columns). */
char *sb_session_to_csv_long (SbSession *self);
gboolean sb_session_export_csv (SbSession *self, GFile *file, GError **error);

G_END_DECLS
