/* sb-experiment.h — what an experiment is: its parameters, questions,
 * stimulus and candidate set, and the names the session file gives them.
 *
 * Plain data with deep copies, below everything that reads, checks or
 * runs an experiment: the candidate set (sb-candidates.h), the stimulus
 * (sb-stimulus.h), the parameter scales (sb-parameter-kinds.h) and the
 * templates build on these types; sb-experiment-check.h holds the rules
 * an experiment must follow, and sb-session.h keeps it with its answers.
 *
 * No GTK here.
 */
#pragma once

#include <glib-object.h>

#include "sb-error.h"
#include "sg-bo.h"

G_BEGIN_DECLS

/* The engine's box dimension: an experiment's every parameter is a search
 * dimension (sb-experiment.c asserts that the two agree). */
#define SB_MAX_PARAMETERS 32
/* The most questions an experiment may plan. */
#define SB_MAX_BUDGET 100000
/* The most options a question shows. */
#define SB_MAX_OPTIONS 6
/* The largest counts a session file holds (sb_experiment_validate). */
#define SB_SESSION_MAX_BUDGET SB_MAX_BUDGET
#define SB_SESSION_MAX_INITIAL 1000
#define SB_SESSION_MAX_NUMERIC_EVERY 100000
#define SB_SESSION_MAX_AUTOPLAY_MS 600000
/* Safe mode's default confidence level (the engine's). */
#define SB_DEFAULT_CONFIDENCE 0.95

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

/* A fixed candidate set: the stimuli the model chooses among, read from
 * a CSV file with one row per stimulus (sb-candidates.h loads it). */
typedef struct _SbCandidates SbCandidates;
struct _SbCandidates {
  char *csv;          /* as the experiment gives them                  */
  char *file_column;
  char *folder;       /* "" when not given                             */
  char *base_dir;     /* the folder CSV and FOLDER are relative to      */
  guint n;            /* rows                                           */
  guint dim;
  double *values;     /* n x dim, in the experiment's parameter order   */
  char **files;       /* n file names as the CSV gives them (NULL-ended) */
};
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
  /* Safe mode: the confidence level, the probability of being safe a
   * setting needs before it is proposed (sg-bo.h, "Safe mode"), in
   * [0.5, 1); "confidence_level" in the file (default 0.95). */
  double confidence_level;
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
  /* The wording of a preference question ("question_text" in the file;
   * NULL: the default, SB_DEFAULT_QUESTION_TEXT in files, the app's own
   * translated wording on screen). */
  char *question_text;
  /* How people give their confidence ("confidence_scale" in the file,
   * sb-confidence-scale.h): 0 for the words weak/normal/strong (the
   * default), or k = 2 .. SG_CONFIDENCE_MAX_LEVELS for a rating 1 .. k. */
  guint confidence_levels;
  SbStimulus stimulus;    /* "stimulus" in the file; absent: NONE        */
  guint n_parameters;
  SbParameter parameters[SB_MAX_PARAMETERS];
  /* The stimuli the model chooses among ("candidates" in the file;
   * sb-candidates.h), or NULL: the whole box. */
  SbCandidates *candidates;
} SbExperiment;

#define SB_TYPE_EXPERIMENT (sb_experiment_get_type ())
GType sb_experiment_get_type (void) G_GNUC_CONST;
/* Zeroed experiment with the defaults (preference, ucb, skewgp, budget
 * 30): ucb is valid in every mode; the measured default follows from the
 * parameters (sb_experiment_use_default_acquisition). */
SbExperiment *sb_experiment_new (void);
/* Gives EXP the duel rule a new experiment asks by when it names none,
 * for its mode, question kind, surrogate and number of parameters
 * (sg_bo_default_acquisition: hb-ucb for preference-mode duels of up to
 * 4 parameters with the exact SkewGP, qeubo for choices and rankings,
 * ucb otherwise); call it once the parameters are added. Templates and
 * `skewgp new` start from it; a file that names no acquisition when it
 * is read (sb_experiment_from_node) keeps reading as ucb, as it was
 * written. */
void sb_experiment_use_default_acquisition (SbExperiment *exp);
SbExperiment *sb_experiment_copy (const SbExperiment *exp);
void sb_experiment_free (SbExperiment *exp);
/* Appends a parameter; FALSE (and nothing added) when the table is full,
 * the name is empty or lower >= upper. */
gboolean sb_experiment_add_parameter (SbExperiment *exp, const char *name,
                                      const char *unit, double lower, double upper);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbExperiment, sb_experiment_free)

/* The candidate set's and the stimulus's deep copy and release (the
 * experiment's copy and free use them). */
SbCandidates *sb_candidates_copy (const SbCandidates *c);
void sb_candidates_free (SbCandidates *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SbCandidates, sb_candidates_free)
void sb_stimulus_clear (SbStimulus *stimulus);
void sb_stimulus_copy_into (SbStimulus *dest, const SbStimulus *src);

G_END_DECLS
