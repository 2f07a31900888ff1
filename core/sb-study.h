/* sb-study.h — a study with many participants.
 *
 * A study is a folder:
 *
 *   STUDY/study.json               the index: the experiment, the
 *                                  repeat rate and the roster
 *   STUDY/participants/CODE.json   one ordinary session per participant
 *
 *   { "format": "skewbench-study", "version": 1, "created": "...",
 *     "repeat_rate": 0.1, "model": "hierarchical",
 *     "experiment": { ... as in a session file ... },
 *     "participants": [ { "code": "P-7KQ3", "status": "active",
 *                         "added": "2026-11-26T14:00:00Z",
 *                         "note": "..." }, ... ] }
 *
 * Why a folder of sessions rather than one file: every answer of a
 * participant goes to that participant's session file, so everything a
 * session guarantees holds unchanged for each of them: the atomic save
 * after every answer (SIGKILL at any moment leaves the previous or the
 * new complete file), one writer per file (core/sb-file-lock.h: two
 * participants can be run at once, by two windows or two scripts, without
 * a study-wide lock), validation with line and column, and a participant
 * file opens in the app like any session. One file for everyone would
 * rewrite every participant's answers on each answer and serialise all
 * writers on one lock. The index changes only when the roster does; it is
 * written atomically too, under its own lock.
 *
 * Participants are named by codes, never names: the generator makes
 * "P-" and four characters of 23456789ABCDEFGHJKLMNPQRSTUVWXYZ (no 0/O,
 * 1/I), 32^4 codes; an experimenter's own code is 1 to 32 letters,
 * digits, '-' or '_' (it is a file name), unique regardless of case. A
 * note per participant (and the notes of answers, sb-session-history.h)
 * stays in the files and out of exports unless asked for.
 *
 * Each participant's session is the study's experiment with a seed of its
 * own (the study's seed mixed with the code), so initial designs and
 * presentation orders differ between participants and stay reproducible.
 *
 * Never losing an answer: a participant is added by writing the session
 * file first and the index second; a session file the index does not list
 * (a kill between the two) is adopted when the study is opened, as an
 * active participant. A damaged index or session is refused with its
 * line and column and never overwritten.
 */
#pragma once

#include "sb-consistency.h"
#include "sb-file-lock.h"
#include "sb-session.h"

G_BEGIN_DECLS

#define SB_STUDY_FORMAT "skewbench-study"
#define SB_STUDY_VERSION 1
#define SB_STUDY_INDEX "study.json"
#define SB_STUDY_PARTICIPANTS "participants"
#define SB_STUDY_MAX_CODE 32

#define SB_STUDY_ERROR (sb_study_error_quark ())
GQuark sb_study_error_quark (void);
typedef enum {
  SB_STUDY_ERROR_EXISTS,    /* creating a study where something is already  */
  SB_STUDY_ERROR_INVALID,   /* a damaged or foreign index, a bad code        */
  SB_STUDY_ERROR_UNKNOWN,   /* no participant with this code                 */
  SB_STUDY_ERROR_TAKEN,     /* the code is in use                            */
} SbStudyError;

typedef enum {
  SB_PARTICIPANT_ACTIVE = 0,  /* answering, or may still answer             */
  SB_PARTICIPANT_WITHDRAWN,   /* stopped; the answers given are kept         */
  SB_PARTICIPANT_EXCLUDED,    /* left out of the population by the experimenter */
} SbParticipantStatus;

/* How a study asks its questions (study.json's "model"):
 *   "hierarchical"  a participant's duels come from the model of everyone's
 *                   answers (core/sb-population.h); the default of new
 *                   studies;
 *   "independent"   each participant's session proposes from their own
 *                   answers only; studies written before the field existed
 *                   read as this, so they ask as they always did.
 * Choice and ranking experiments, mixed and safe mode, candidate sets,
 * integer and categorical parameters, surrogates other than the exact
 * SkewGP and duel rules other than ucb, eiig, epi and thompson are asked
 * independently in either case (the hierarchical proposal challenges the
 * current best over the box); hb-ucb, the default for one person's
 * duels, becomes ucb when a hierarchical study is created. */
typedef enum {
  SB_STUDY_MODEL_INDEPENDENT = 0,
  SB_STUDY_MODEL_HIERARCHICAL,
} SbStudyModel;

const char *sb_study_model_to_string (SbStudyModel model);
gboolean sb_study_model_from_string (const char *name, SbStudyModel *model);

const char *sb_participant_status_to_string (SbParticipantStatus status);
gboolean sb_participant_status_from_string (const char *name, SbParticipantStatus *status);

typedef struct {
  char *code;
  SbParticipantStatus status;
  gint64 added;   /* microseconds since the epoch */
  char *note;     /* NULL: none */
} SbParticipant;

#define SB_TYPE_STUDY (sb_study_get_type ())
G_DECLARE_FINAL_TYPE (SbStudy, sb_study, SB, STUDY, GObject)

/* Creates the folder DIR (it must not exist, or be an empty folder) with
 * its index for EXP (checked) and REPEAT_RATE (0 .. 0.5: the share of
 * questions that repeat a past duel, sb-consistency.h). A hierarchical
 * study of an experiment whose duels the population model asks
 * (sb_experiment_population_fits) by hb-ucb asks them by ucb, and its
 * experiment (sb_study_get_experiment, study.json) says so. */
SbStudy *sb_study_create (const char *dir, const SbExperiment *exp, double repeat_rate,
                          GError **error);
/* The same with the study's MODEL (sb_study_create: hierarchical). */
SbStudy *sb_study_create_with_model (const char *dir, const SbExperiment *exp,
                                     double repeat_rate, SbStudyModel model, GError **error);
/* Reads the study in DIR (never writing). */
SbStudy *sb_study_open (const char *dir, GError **error);

const char *sb_study_get_dir (SbStudy *self);
/* The folder's name: the study's name in exports. */
const char *sb_study_get_name (SbStudy *self);
const SbExperiment *sb_study_get_experiment (SbStudy *self);
double sb_study_get_repeat_rate (SbStudy *self);
SbStudyModel sb_study_get_model (SbStudy *self);
guint sb_study_get_n_participants (SbStudy *self);
const SbParticipant *sb_study_get_participant (SbStudy *self, guint index);
/* The participant with CODE (case-insensitive), or NULL. */
const SbParticipant *sb_study_find (SbStudy *self, const char *code);

/* Takes the index's write lock for PROGRAM and keeps it until
 * sb_study_release (or the study is finalised): the study's only writer
 * (the study server) holds it while it runs, so that `skewgp study add`
 * or another window is refused, naming it. Roster changes through SELF
 * use the held lock. FALSE with ERROR (G_IO_ERROR_BUSY naming the
 * holder) when another writer has it. */
gboolean sb_study_hold (SbStudy *self, const char *program, GError **error);
void sb_study_release (SbStudy *self);
gboolean sb_study_is_held (SbStudy *self);

/* TRUE when CODE can name a participant (see above); ERROR says why not. */
gboolean sb_study_code_is_valid (const char *code, GError **error);
/* A generated code no participant of the study has. */
char *sb_study_new_code (SbStudy *self);

/* Adds a participant with CODE (NULL: generated) and NOTE (may be NULL):
 * the session file, then the index, each atomically, under the index's
 * write lock (the index is read again under it, so two experimenters
 * adding at once both get in). The new participant, or NULL with ERROR
 * (_TAKEN, _INVALID, G_IO_ERROR_BUSY naming who holds the lock). */
const SbParticipant *sb_study_add_participant (SbStudy *self, const char *code,
                                               const char *note, GError **error);
/* Changes a participant's status or note (NULL clears it), the same way. */
gboolean sb_study_set_status (SbStudy *self, const char *code, SbParticipantStatus status,
                              GError **error);
gboolean sb_study_set_note (SbStudy *self, const char *code, const char *note,
                            GError **error);

/* The session file of CODE (whether or not it exists). */
char *sb_study_participant_path (SbStudy *self, const char *code);
/* The session file of CODE when it may be read and written as the
 * participant's: `participants/` is a folder of the study's own (not a
 * symlink) and CODE.json is absent or a regular file there, not a
 * symlink (a file received with the study could otherwise make every
 * answer write a session elsewhere). NULL with SB_STUDY_ERROR_INVALID
 * naming the file otherwise. */
char *sb_study_participant_file (SbStudy *self, const char *code, GError **error);
/* The participant's session read from its file (_UNKNOWN for a code the
 * roster does not have). */
SbSession *sb_study_open_session (SbStudy *self, const char *code, GError **error);

/* What the roster shows for one participant. */
typedef struct {
  guint answered;        /* answers that count                          */
  guint budget;
  guint removed;         /* entries the experimenter removed             */
  guint skipped;
  gboolean done;
  gboolean open_question;
  SbConsistency consistency;
} SbParticipantSummary;
gboolean sb_study_summarise (SbStudy *self, const char *code, SbParticipantSummary *out,
                             GError **error);

/* The population: everyone not excluded. Pooled counts of the
 * participants' answers and consistency, cheap enough for the main
 * thread. The hierarchical model of the population (a shared utility
 * plus each person's deviation: the population's best setting, each
 * person's, the fitted hyperparameters) is core/sb-population.h, computed
 * from a snapshot of the study on any thread. */
typedef struct {
  guint n_participants;     /* in the roster                              */
  guint n_included;         /* not excluded                               */
  guint n_done;
  guint n_answers;          /* pooled over the included                   */
  guint n_duels;
  guint n_repeats;
  guint n_agree;
  guint n_triples;
  guint n_intransitive;
  guint n_side;
  guint n_first_chosen;
  guint n_at_chance;        /* included participants flagged at chance    */
  guint n_unreadable;       /* included, but the session cannot be read
                             * (missing or invalid file): not in the
                             * counts above; sb_study_summarise says why */
} SbPopulation;
gboolean sb_study_population (SbStudy *self, SbPopulation *out, GError **error);

/* The long-format CSV of the study (every participant, or only CODE),
 * one row per option of every answer that counts (removed answers left
 * out; sb-study-csv.c lists the columns); notes only WITH_NOTES. NULL
 * with ERROR when a participant's session cannot be read. */
char *sb_study_to_csv (SbStudy *self, const char *code, gboolean with_notes, GError **error);

G_END_DECLS
