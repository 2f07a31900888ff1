/* sb-session.c — the session model (docs/DESIGN.md §4): the experiment, the
 * observation log with undo, the stored hyperparameters, the signals, and
 * when the session is saved (at once, or by the writer thread in the
 * background). Reading and writing the document live in
 * sb-session-parse.c and sb-session-write.c, CSV in sb-session-csv.c.
 */
#include "config.h"

#include "sb-session-private.h"
#include "sb-candidates.h"

#include "sb-file-lock.h"
#include "sb-parameter-kinds.h"
#include "sb-stimulus.h"
#include "sb-json-write.h"
#include "sg-bo.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sb-session-error-quark, sb_session_error)

G_DEFINE_FINAL_TYPE (SbSession, sb_session, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_N_OBSERVATIONS,
  N_PROPS
};

enum {
  CHANGED,
  SAVED,
  SAVE_FAILED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- Names ------------------------------------------------------------- */

/* Modes, acquisitions and surrogates are the engine's enums and are named
 * by the engine's tables (sg-bo.h); templates and log kinds are the
 * session's own. */
G_STATIC_ASSERT (SB_MAX_PARAMETERS == SG_BO_MAX_DIM);

static const char *const template_names[] = { "colour", "benchmark", "custom" };
static const char *const kind_names[] = { "duel", "value", "failed", "skip", "tie", "choice",
                                          "ranking" };
static const char *const question_names[] = { "duel", "choice", "ranking" };
static const char *const pending_kind_names[] = { "duel", "value", "choice", "ranking" };

/* NAMES[v] for the value V of an enum whose names are the table NAMES, and
 * the value a name stands for: TO (v) gives FALLBACK for a value beyond the
 * table, FROM (name, &v) is FALSE for a name not in it. */
#define SB_NAMED_ENUM(Type, to, from, names, fallback)                          \
  const char *                                                                  \
  to (Type value)                                                               \
  {                                                                             \
    return (guint) value < G_N_ELEMENTS (names) ? names[value] : fallback;      \
  }                                                                             \
                                                                                \
  gboolean                                                                      \
  from (const char *name, Type *value)                                          \
  {                                                                             \
    for (guint i = 0; name != NULL && i < G_N_ELEMENTS (names); i++)            \
      if (g_str_equal (names[i], name))                                         \
        {                                                                       \
          *value = (Type) i;                                                    \
          return TRUE;                                                          \
        }                                                                       \
    return FALSE;                                                               \
  }

SB_NAMED_ENUM (SbAskKind, sb_ask_kind_to_string, sb_ask_kind_from_string, question_names, "duel")
SB_NAMED_ENUM (SbTemplate, sb_template_to_string, sb_template_from_string, template_names, "custom")
SB_NAMED_ENUM (SbLogKind, sb_log_kind_to_string, sb_log_kind_from_string, kind_names, "skip")
SB_NAMED_ENUM (SbPendingKind, sb_pending_kind_to_string, sb_pending_kind_from_string,
               pending_kind_names, "duel")
static const char *const edit_action_names[] = { "remove", "restore", "note" };
SB_NAMED_ENUM (SbEditAction, sb_edit_action_to_string, sb_edit_action_from_string,
               edit_action_names, "note")

const char *
sb_mode_to_string (SbMode mode)
{
  return sg_bo_mode_name (mode <= SB_MODE_SAFE ? (sg_bo_mode) mode : SG_BO_PREFERENCE);
}

gboolean
sb_mode_from_string (const char *name, SbMode *mode)
{
  sg_bo_mode m;
  if (sg_bo_mode_parse (name, &m) != SG_OK || m > (sg_bo_mode) SB_MODE_SAFE)
    return FALSE;
  *mode = (SbMode) m;
  return TRUE;
}

/* ---- Experiment -------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (SbExperiment, sb_experiment, sb_experiment_copy, sb_experiment_free)

SbExperiment *
sb_experiment_new (void)
{
  SbExperiment *exp = g_new0 (SbExperiment, 1);

  exp->title = g_strdup ("Experiment");
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->mode = SB_MODE_PREFERENCE;
  exp->acquisition = SG_BO_ACQ_UCB;
  exp->surrogate = SG_BO_SURROGATE_SKEWGP;
  exp->budget = 30;
  exp->initial = 2;
  exp->seed = 1;
  exp->threshold = 0.0;
  exp->numeric_every = 4;
  exp->problem = g_strdup ("");
  exp->autoplay_ms = 600;
  exp->question = SB_ASK_DUEL;
  exp->n_options = 2;
  return exp;
}

SbExperiment *
sb_experiment_copy (const SbExperiment *exp)
{
  SbExperiment *copy = g_memdup2 (exp, sizeof *exp);

  copy->title = g_strdup (exp->title);
  copy->problem = g_strdup (exp->problem);
  copy->candidates = sb_candidates_copy (exp->candidates);
  sb_stimulus_copy_into (&copy->stimulus, &exp->stimulus);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      copy->parameters[i].name = g_strdup (exp->parameters[i].name);
      copy->parameters[i].unit = g_strdup (exp->parameters[i].unit);
      copy->parameters[i].levels = g_strdupv (exp->parameters[i].levels);
    }
  return copy;
}

void
sb_experiment_free (SbExperiment *exp)
{
  if (exp == NULL)
    return;
  g_free (exp->title);
  g_free (exp->problem);
  sb_candidates_free (exp->candidates);
  sb_stimulus_clear (&exp->stimulus);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      g_free (exp->parameters[i].name);
      g_free (exp->parameters[i].unit);
      g_strfreev (exp->parameters[i].levels);
    }
  g_free (exp);
}

gboolean
sb_experiment_add_parameter (SbExperiment *exp, const char *name, const char *unit,
                             double lower, double upper)
{
  if (exp->n_parameters >= SB_MAX_PARAMETERS || name == NULL || *name == '\0'
      || !isfinite (lower) || !isfinite (upper) || !(lower < upper))
    return FALSE;

  SbParameter *p = &exp->parameters[exp->n_parameters++];
  p->name = g_strdup (name);
  p->unit = g_strdup (unit ? unit : "");
  p->lower = lower;
  p->upper = upper;
  p->resolution = 0;
  p->scale = SB_SCALE_LINEAR;
  p->levels = NULL;
  return TRUE;
}

/* ---- Observations ------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (SbLogEntry, sb_log_entry, sb_log_entry_copy, sb_log_entry_free)

static SbLogEntry *
log_entry_new (SbLogKind kind, guint dim, const double *a, const double *b)
{
  SbLogEntry *obs = g_new0 (SbLogEntry, 1);

  obs->kind = kind;
  obs->dim = dim;
  obs->time = g_get_real_time ();
  obs->value = NAN;
  obs->a = g_memdup2 (a, dim * sizeof (double));
  obs->b = b ? g_memdup2 (b, dim * sizeof (double)) : NULL;
  return obs;
}

SbLogEntry *
sb_log_entry_copy (const SbLogEntry *obs)
{
  SbLogEntry *copy = g_memdup2 (obs, sizeof *obs);

  copy->a = obs->a ? g_memdup2 (obs->a, obs->dim * sizeof (double)) : NULL;
  copy->b = obs->b ? g_memdup2 (obs->b, obs->dim * sizeof (double)) : NULL;
  copy->options = obs->options ? g_memdup2 (obs->options, (gsize) obs->n_options * obs->dim
                                                          * sizeof (double))
                               : NULL;
  copy->note = g_strdup (obs->note);
  copy->removed_by = g_strdup (obs->removed_by);
  return copy;
}

void
sb_log_entry_free (SbLogEntry *obs)
{
  if (obs == NULL)
    return;
  g_free (obs->a);
  g_free (obs->b);
  g_free (obs->options);
  g_free (obs->note);
  g_free (obs->removed_by);
  g_free (obs);
}

guint
sb_log_entry_n_options (const SbLogEntry *entry)
{
  if (entry->options != NULL)
    return entry->n_options;
  return entry->b != NULL ? 2 : 1;
}

const double *
sb_log_entry_option (const SbLogEntry *entry, guint i)
{
  g_return_val_if_fail (i < sb_log_entry_n_options (entry), NULL);
  if (entry->options != NULL)
    return entry->options + (gsize) i * entry->dim;
  return i == 0 ? entry->a : entry->b;
}

int
sb_log_entry_best_option (const SbLogEntry *entry)
{
  switch (entry->kind)
    {
    case SB_LOG_DUEL:
      return entry->winner;
    case SB_LOG_CHOICE:
      return (int) entry->chosen;
    case SB_LOG_RANKING:
      return (int) entry->ranking[0];
    default:
      return -1;
    }
}

/* ---- Validation ----------------------------------------------------------
 * One set of rules for what a session may hold, applied when a file is
 * loaded, when an answer is added, before every save and before the engine
 * replays the log: so that what loads also saves and reloads, and what the
 * engine would refuse (sg_bo_config_check, sg_bo_answer_*) is refused first,
 * with the field or the observation named. */

static gboolean
invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError **error, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                                                format, args));
  va_end (args);
  return FALSE;
}

/* X as the file spells it (the shortest form that reads back to X). */
static const char *
number_text (double x, char buf[G_ASCII_DTOSTR_BUF_SIZE])
{
  sb_json_format_double (x, buf, G_ASCII_DTOSTR_BUF_SIZE);
  return buf;
}

/* The surrogate serves the mode: the sparse variational GP models duels
 * only (preference mode), the two-GP baseline is a safe-mode method. */
static gboolean
surrogate_fits_mode (const SbExperiment *exp, GError **error)
{
  sg_bo_surrogate s = exp->surrogate;

  if ((s == SG_BO_SURROGATE_SVGP && exp->mode != SB_MODE_PREFERENCE)
      || (s == SG_BO_SURROGATE_TWO_GP && exp->mode != SB_MODE_SAFE))
    return invalid (error, "the surrogate '%s' serves %s mode only", sg_bo_surrogate_name (s),
                    sb_mode_to_string (s == SG_BO_SURROGATE_SVGP ? SB_MODE_PREFERENCE
                                                                 : SB_MODE_SAFE));
  return TRUE;
}

gboolean
sb_acquisition_fits (SbMode mode, sg_bo_surrogate surrogate, sg_bo_acquisition a,
                     GError **error)
{
  gboolean hb = a == SG_BO_ACQ_HB_EI || a == SG_BO_ACQ_HB_UCB;

  if ((guint) a > SG_BO_ACQ_LAST)
    return invalid (error, "the experiment's acquisition is unknown");
  if ((hb || a == SG_BO_ACQ_DTS || a == SG_BO_ACQ_QEUBO) && mode != SB_MODE_PREFERENCE)
    return invalid (error, "the acquisition '%s' asks preference-mode duels only; "
                    "%s mode takes 'ucb', 'eiig', 'epi', 'thompson' or 'muc'",
                    sg_bo_acquisition_name (a), sb_mode_to_string (mode));
  if (hb && surrogate != SG_BO_SURROGATE_SKEWGP && surrogate != SG_BO_SURROGATE_RANDOM)
    return invalid (error, "the acquisition '%s' needs the 'skewgp' surrogate (its hallucination "
                    "is a sample of the exact posterior; '%s' has none)",
                    sg_bo_acquisition_name (a), sg_bo_surrogate_name (surrogate));
  return TRUE;
}

/* The question kind, its number of options and ties: choices, rankings
 * and ties are preference answers (not in safe mode) that only the exact
 * SkewGP represents (Laplace and EP have independent half-line sites,
 * the sparse GP duels only: sg-gaussian-rows.c). */
static gboolean
question_fits (const SbExperiment *exp, GError **error)
{
  gboolean duel = exp->question == SB_ASK_DUEL;

  if ((guint) exp->question > SB_ASK_RANKING)
    return invalid (error, "the experiment's question kind is unknown");
  if (duel && exp->n_options != 2)
    return invalid (error, "'options' must be 2 for duels, not %u", exp->n_options);
  if (!duel && (exp->n_options < SB_MIN_CHOICE_OPTIONS || exp->n_options > SB_MAX_OPTIONS))
    return invalid (error, "'options' must lie in [%d, %d] for a %s question",
                    SB_MIN_CHOICE_OPTIONS, SB_MAX_OPTIONS,
                    sb_ask_kind_to_string (exp->question));
  if (exp->ties_allowed && !duel)
    return invalid (error, "'ties_allowed' applies to duels, not to %s questions",
                    sb_ask_kind_to_string (exp->question));
  if ((!duel || exp->ties_allowed) && exp->mode == SB_MODE_SAFE)
    return invalid (error, "safe mode asks for values, not %s",
                    duel ? "duels with ties" : "choices or rankings");
  if ((!duel || exp->ties_allowed) && exp->surrogate != SG_BO_SURROGATE_SKEWGP)
    return invalid (error, "%s need the 'skewgp' surrogate ('%s' cannot represent them)",
                    duel ? "ties" : exp->question == SB_ASK_CHOICE ? "choices" : "rankings",
                    sg_bo_surrogate_name (exp->surrogate));
  return TRUE;
}

static gboolean
check_parameter (const SbExperiment *exp, guint i, GError **error)
{
  const SbParameter *p = &exp->parameters[i];
  char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];

  if (p->name == NULL || *p->name == '\0')
    return invalid (error, "parameter %u has no name", i + 1);
  if (!isfinite (p->lower) || !isfinite (p->upper))
    return invalid (error, "parameter '%s': '%s' is not a finite number", p->name,
                    isfinite (p->lower) ? "upper" : "lower");
  if (!(p->lower < p->upper))
    return invalid (error, "parameter '%s': the range [%s, %s] is empty", p->name,
                    number_text (p->lower, lo), number_text (p->upper, hi));
  for (guint j = 0; j < i; j++)
    if (g_str_equal (p->name, exp->parameters[j].name))
      return invalid (error, "two parameters are called '%s'", p->name);
  return sb_parameter_check_scale (p, error);
}

static gboolean
check_count (const char *key, guint value, guint min, guint max, GError **error)
{
  if (value < min || value > max)
    return invalid (error, "'%s' must lie in [%u, %u]", key, min, max);
  return TRUE;
}

gboolean
sb_experiment_validate (const SbExperiment *exp, GError **error)
{
  if ((guint) exp->template_kind > SB_TEMPLATE_CUSTOM || (guint) exp->mode > SB_MODE_SAFE
      || (guint) exp->acquisition > SG_BO_ACQ_LAST
      || (guint) exp->surrogate > SG_BO_SURROGATE_SVGP)
    return invalid (error, "the experiment's template, mode, acquisition or surrogate is unknown");
  if (exp->n_parameters == 0)
    return invalid (error, "the experiment has no parameters");
  if (exp->n_parameters > SB_MAX_PARAMETERS)
    return invalid (error, "at most %d parameters are supported", SB_MAX_PARAMETERS);
  for (guint i = 0; i < exp->n_parameters; i++)
    if (!check_parameter (exp, i, error))
      return FALSE;
  if (exp->budget == 0)
    return invalid (error, "the budget must be at least one question");
  if (!check_count ("budget", exp->budget, 1, SB_SESSION_MAX_BUDGET, error)
      || !check_count ("initial", exp->initial, 0, SB_SESSION_MAX_INITIAL, error)
      || !check_count ("numeric_every", exp->numeric_every, 0, SB_SESSION_MAX_NUMERIC_EVERY, error)
      || !check_count ("autoplay_ms", exp->autoplay_ms, 0, SB_SESSION_MAX_AUTOPLAY_MS, error))
    return FALSE;
  if (exp->template_kind == SB_TEMPLATE_BENCHMARK && (exp->problem == NULL || !*exp->problem))
    return invalid (error, "a benchmark experiment needs a problem name");
  if (!isfinite (exp->threshold))
    return invalid (error, "the threshold or failure level ('threshold') is not a finite number");
  if (!isfinite (exp->oracle_noise) || exp->oracle_noise < 0)
    return invalid (error, "'oracle_noise' must be a finite number >= 0");
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      if (!(p->resolution >= 0 && p->resolution < p->upper - p->lower))
        return invalid (error, "parameter '%s': the resolution %g must be at least 0 and "
                        "below the range %g", p->name, p->resolution, p->upper - p->lower);
    }
  if (exp->has_safe_start && exp->mode != SB_MODE_SAFE)
    return invalid (error, "a safe start ('safe_start') belongs to safe mode");
  for (guint j = 0; exp->has_safe_start && j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      if (!(exp->safe_start[j] >= p->lower && exp->safe_start[j] <= p->upper))
        return invalid (error, "the safe start's %s = %g is outside [%g, %g]", p->name,
                        exp->safe_start[j], p->lower, p->upper);
      if (!sb_parameter_value_fits (p, exp->safe_start[j]))
        return invalid (error, "the safe start's %s = %g is not a whole number", p->name,
                        exp->safe_start[j]);
    }
  if (exp->candidates != NULL && exp->candidates->dim != exp->n_parameters)
    return invalid (error, "the candidate set has %u values per stimulus, expected %u",
                    exp->candidates->dim, exp->n_parameters);
  if (exp->candidates != NULL && exp->candidates->n < MAX (exp->n_options, 2))
    return invalid (error, "the candidate set has %u stimuli, fewer than the %u options of "
                    "one question", exp->candidates->n, MAX (exp->n_options, 2));
  if (exp->candidates != NULL && exp->has_safe_start
      && sb_experiment_candidate_index (exp, exp->safe_start) < 0)
    return invalid (error, "the safe start is none of the candidates in %s",
                    exp->candidates->csv);
  return surrogate_fits_mode (exp, error) && question_fits (exp, error)
         && sb_acquisition_fits (exp->mode, exp->surrogate, exp->acquisition, error)
         && sb_stimulus_validate (exp, error);
}

/* The modes in which the engine takes each kind of answer (sg_bo_answer_*):
 * preference answers in preference and mixed mode, values and failed
 * settings in mixed and safe mode; skips never reach the engine. */
static gboolean
kind_fits_mode (SbLogKind kind, SbMode mode)
{
  switch (kind)
    {
    case SB_LOG_DUEL:
    case SB_LOG_TIE:
    case SB_LOG_CHOICE:
    case SB_LOG_RANKING:
      return mode == SB_MODE_PREFERENCE || mode == SB_MODE_MIXED;
    case SB_LOG_VALUE:
    case SB_LOG_FAILED:
      return mode == SB_MODE_MIXED || mode == SB_MODE_SAFE;
    case SB_LOG_SKIP:
    default:
      return TRUE;
    }
}

/* Every coordinate of X finite and inside its parameter's range (the
 * engine's box). SIDE names the point ("" or " of a", " of b"). */
static gboolean
check_point (const SbExperiment *exp, const double *x, const char *what, const char *side,
             GError **error)
{
  char v[G_ASCII_DTOSTR_BUF_SIZE], lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      if (!isfinite (x[j]))
        return invalid (error, "%s: coordinate %u (%s)%s is not a finite number",
                        what, j + 1, p->name, side);
      if (x[j] < p->lower || x[j] > p->upper)
        return invalid (error, "%s: coordinate %u (%s)%s = %s is outside [%s, %s]",
                        what, j + 1, p->name, side, number_text (x[j], v),
                        number_text (p->lower, lo), number_text (p->upper, hi));
      if (!sb_parameter_value_fits (p, x[j]))
        return invalid (error, "%s: coordinate %u (%s)%s = %s is not a whole number (the "
                        "parameter is %s)", what, j + 1, p->name, side, number_text (x[j], v),
                        sb_scale_to_string (p->scale));
    }
  if (exp->candidates != NULL && sb_experiment_candidate_index (exp, x) < 0)
    return invalid (error, "%s: the setting%s is none of the candidates in %s", what, side,
                    exp->candidates->csv);
  return TRUE;
}

/* Equal coordinates: the same setting for the engine's kernel (0 and -0
 * too, which the file cannot tell apart). */
static gboolean
same_setting (const double *a, const double *b, guint dim)
{
  for (guint j = 0; j < dim; j++)
    if (a[j] != b[j])
      return FALSE;
  return TRUE;
}

/* ORDER (N entries) lists each of 0 .. N - 1 once. */
static gboolean
is_permutation (const guint *order, guint n)
{
  guint seen = 0;

  for (guint i = 0; i < n; i++)
    {
      if (order[i] >= n || (seen & (1u << order[i])))
        return FALSE;
      seen |= 1u << order[i];
    }
  return TRUE;
}

/* The preference kinds the experiment's question asks: duels (and ties
 * when allowed) for duel questions, choices or rankings for those. */
static gboolean
kind_fits_question (SbLogKind kind, const SbExperiment *exp)
{
  switch (kind)
    {
    case SB_LOG_DUEL:
      return exp->question == SB_ASK_DUEL;
    case SB_LOG_TIE:
      return exp->question == SB_ASK_DUEL && exp->ties_allowed;
    case SB_LOG_CHOICE:
      return exp->question == SB_ASK_CHOICE;
    case SB_LOG_RANKING:
      return exp->question == SB_ASK_RANKING;
    default:
      return TRUE;
    }
}

/* The optional details of an answer. */
static gboolean
check_answer_details (const SbLogEntry *obs, const char *what, GError **error)
{
  guint n_points = sb_log_entry_n_options (obs);

  if (obs->n_shown != 0 && (obs->n_shown != n_points || !is_permutation (obs->shown_order,
                                                                         obs->n_shown)))
    return invalid (error, "%s: 'shown_order' must list each of its %u options once", what,
                    n_points);
  if (obs->has_response_time && !(isfinite (obs->response_time) && obs->response_time >= 0))
    return invalid (error, "%s: 'response_time' must be a finite number of seconds >= 0", what);
  if ((guint) obs->confidence > SG_CONFIDENCE_STRONG)
    return invalid (error, "%s: 'confidence' must be \"weak\", \"normal\" or \"strong\"", what);
  if (obs->confidence != SG_CONFIDENCE_NONE && obs->kind != SB_LOG_DUEL
      && obs->kind != SB_LOG_CHOICE)
    return invalid (error, "%s: a confidence is given for duels and choices only", what);
  return TRUE;
}

/* The k options of a choice, a ranking or their skip: as many as the
 * experiment shows, each inside the box, no two the same; the chosen one
 * among them, the ranking a permutation. */
static gboolean
check_options (const SbExperiment *exp, const SbLogEntry *obs, const char *what,
               GError **error)
{
  guint k = obs->n_options;

  if (k != exp->n_options || k > SB_MAX_OPTIONS)
    return invalid (error, "%s: %u options, but the experiment shows %u", what, k,
                    exp->n_options);
  for (guint i = 0; i < k; i++)
    {
      g_autofree char *side = g_strdup_printf (" of option %u", i + 1);
      if (!check_point (exp, sb_log_entry_option (obs, i), what, side, error))
        return FALSE;
      for (guint j = 0; j < i; j++)
        if (same_setting (sb_log_entry_option (obs, i), sb_log_entry_option (obs, j), obs->dim))
          return invalid (error, "%s: options %u and %u are the same setting", what, j + 1, i + 1);
    }
  if (obs->kind == SB_LOG_CHOICE && obs->chosen >= k)
    return invalid (error, "%s: 'chosen' = %u is not an option (0 .. %u)", what, obs->chosen,
                    k - 1);
  if (obs->kind == SB_LOG_RANKING && !is_permutation (obs->ranking, k))
    return invalid (error, "%s: 'ranking' must list each of its %u options once", what, k);
  return TRUE;
}

gboolean
sb_experiment_check_observation (const SbExperiment *exp, const SbLogEntry *obs, guint index,
                                 GError **error)
{
  g_autofree char *what = NULL;
  gboolean two_points;

  if ((guint) obs->kind > SB_LOG_RANKING)
    return invalid (error, "observation %u: unknown kind", index + 1);
  what = g_strdup_printf ("observation %u (%s)", index + 1, sb_log_kind_to_string (obs->kind));
  if (obs->dim != exp->n_parameters)
    return invalid (error, "%s: %u coordinates, expected %u", what, obs->dim, exp->n_parameters);
  if (!kind_fits_mode (obs->kind, exp->mode))
    return invalid (error, "%s: a %s answer has no place in %s mode", what,
                    sb_log_kind_to_string (obs->kind), sb_mode_to_string (exp->mode));
  if (!kind_fits_question (obs->kind, exp))
    return invalid (error, "%s: this experiment asks %s questions%s", what,
                    sb_ask_kind_to_string (exp->question),
                    exp->question == SB_ASK_DUEL && !exp->ties_allowed
                      ? " without ties" : "");
  if (obs->kind == SB_LOG_CHOICE || obs->kind == SB_LOG_RANKING
      || (obs->kind == SB_LOG_SKIP && obs->options != NULL))
    {
      if (obs->options == NULL || obs->a != NULL || obs->b != NULL)
        return invalid (error, "%s: the options are missing", what);
      if (!check_options (exp, obs, what, error))
        return FALSE;
      return check_answer_details (obs, what, error);
    }
  two_points = obs->kind == SB_LOG_DUEL || obs->kind == SB_LOG_SKIP || obs->kind == SB_LOG_TIE;
  if (obs->a == NULL || (obs->b != NULL) != two_points || obs->options != NULL)
    return invalid (error, "%s: %s expected", what, two_points ? "a and b" : "one setting");
  if (!check_point (exp, obs->a, what, two_points ? " of a" : "", error)
      || (two_points && !check_point (exp, obs->b, what, " of b", error)))
    return FALSE;
  if (obs->kind == SB_LOG_DUEL && obs->winner != 0 && obs->winner != 1)
    return invalid (error, "%s: the winner is neither a nor b", what);
  if ((obs->kind == SB_LOG_DUEL || obs->kind == SB_LOG_TIE)
      && same_setting (obs->a, obs->b, obs->dim))
    return invalid (error, "%s: a and b are the same setting", what);
  if (obs->kind == SB_LOG_VALUE && !isfinite (obs->value))
    return invalid (error, "%s: the value is not a finite number", what);
  return check_answer_details (obs, what, error);
}

static gboolean
positive (double v)
{
  return isfinite (v) && v > 0;
}

gboolean
sb_hyper_validate (const SbHyper *h, guint dim, GError **error)
{
  char v[G_ASCII_DTOSTR_BUF_SIZE];
  struct { const char *key; double value; } scales[] = {
    { "variance", h->variance }, { "numeric_sd", h->numeric_sd }, { "probit_sd", h->probit_sd },
  };

  if (!h->valid)
    return TRUE;
  if (h->n_answers > G_MAXINT)
    return invalid (error, "hyperparameters: 'answers' must lie in [0, %d]", G_MAXINT);
  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    if (!positive (scales[i].value))
      return invalid (error, "hyperparameters: '%s' = %s is not a positive finite number",
                      scales[i].key, number_text (scales[i].value, v));
  for (guint j = 0; j < dim; j++)
    if (!positive (h->lengthscales[j]))
      return invalid (error, "hyperparameters: lengthscale %u = %s is not a positive finite number",
                      j + 1, number_text (h->lengthscales[j], v));
  if (!isfinite (h->mean))
    return invalid (error, "hyperparameters: 'mean' is not a finite number");
  return TRUE;
}

/* The log entry an answer to a pending question of KIND becomes
 * (ties and skips aside), and the number of options it shows. */
static SbLogKind
pending_as_log (SbPendingKind kind)
{
  static const SbLogKind as_log[] = { SB_LOG_DUEL, SB_LOG_VALUE, SB_LOG_CHOICE, SB_LOG_RANKING };
  return as_log[kind];
}

static guint
pending_n_options (const SbExperiment *exp, SbPendingKind kind)
{
  return kind == SB_PENDING_DUEL ? 2 : kind == SB_PENDING_VALUE ? 1 : exp->n_options;
}

gboolean
sb_session_check_pending (const SbExperiment *exp, const SbPendingQuestion *q, guint n_log,
                          guint64 asked, GError **error)
{
  const char *kind = sb_pending_kind_to_string (q->kind);
  SbLogKind as_log;
  guint n;

  if ((guint) q->kind > SB_PENDING_RANKING)
    return invalid (error, "pending question: unknown kind");
  as_log = pending_as_log (q->kind);
  n = pending_n_options (exp, q->kind);
  if (q->id == 0 || q->id > asked)
    return invalid (error, "pending question: id %" G_GUINT64_FORMAT " was never given out "
                    "(questions asked: %" G_GUINT64_FORMAT ")", q->id, asked);
  if (q->n_options != n)
    return invalid (error, "pending question: a %s question has %u option%s, not %u", kind,
                    n, n == 1 ? "" : "s", q->n_options);
  if (!kind_fits_mode (as_log, exp->mode))
    return invalid (error, "pending question: a %s question has no place in %s mode", kind,
                    sb_mode_to_string (exp->mode));
  if (as_log != SB_LOG_VALUE && !kind_fits_question (as_log, exp))
    return invalid (error, "pending question: this experiment asks %s questions, not %s",
                    sb_ask_kind_to_string (exp->question), kind);
  for (guint i = 0; i < q->n_options; i++)
    {
      g_autofree char *side = g_strdup_printf (" of option %u", i);
      if (!check_point (exp, q->options[i], "pending question", side, error))
        return FALSE;
    }
  for (guint i = 0; q->kind != SB_PENDING_VALUE && i < q->n_options; i++)
    for (guint j = 0; j < i; j++)
      if (same_setting (q->options[i], q->options[j], exp->n_parameters))
        return invalid (error, "pending question: options %u and %u are the same setting", j, i);
  if (!is_permutation (q->shown_order, q->n_options))
    return invalid (error, "pending question: 'shown_order' must list each option once");
  if (q->n_log > n_log)
    return invalid (error, "pending question: asked after %u observations, but the log has %u",
                    q->n_log, n_log);
  return TRUE;
}

gboolean
sb_session_check (SbSession *self, GError **error)
{
  if (!sb_experiment_validate (self->experiment, error))
    return FALSE;
  for (guint i = 0; i < self->observations->len; i++)
    if (!sb_experiment_check_observation (self->experiment,
                                          g_ptr_array_index (self->observations, i), i, error))
      return FALSE;
  for (guint i = 0; i < self->refits->len; i++)
    if (!sb_hyper_validate (&g_array_index (self->refits, SbHyper, i),
                            self->experiment->n_parameters, error))
      return FALSE;
  if (self->pending && !sb_session_check_pending (self->experiment, self->pending,
                                                  self->observations->len,
                                                  self->questions_asked, error))
    return FALSE;
  for (guint i = 0; i < self->edits->len; i++)
    if (!sb_session_check_edit (&g_array_index (self->edits, SbEdit, i),
                                self->observations->len, i, error))
      return FALSE;
  return sb_hyper_validate (&self->hyper, self->experiment->n_parameters, error);
}

/* ---- GObject ------------------------------------------------------------ */

static void
sb_session_finalize (GObject *object)
{
  SbSession *self = SB_SESSION (object);

  g_clear_pointer (&self->experiment, sb_experiment_free);
  g_clear_pointer (&self->observations, g_ptr_array_unref);
  g_clear_pointer (&self->refits, g_array_unref);
  g_clear_pointer (&self->pending, g_free);
  g_clear_pointer (&self->edits, g_array_unref);
  g_clear_pointer (&self->undo_edits, g_array_unref);
  g_clear_pointer (&self->redo_edits, g_array_unref);
  g_clear_object (&self->file);
  G_OBJECT_CLASS (sb_session_parent_class)->finalize (object);
}

static void
sb_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SbSession *self = SB_SESSION (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_N_OBSERVATIONS:
      g_value_set_uint (value, self->observations->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_session_class_init (SbSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sb_session_finalize;
  object_class->get_property = sb_session_get_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_OBSERVATIONS] =
    g_param_spec_uint ("n-observations", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted after the observation log changed (append or undo). */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
  /* The log with N entries is on disk (after a change was saved). */
  signals[SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass),
                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_UINT);
  /* A background save failed; the answers stay in memory. */
  signals[SAVE_FAILED] = g_signal_new ("save-failed", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sb_session_init (SbSession *self)
{
  self->observations = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_log_entry_free);
  self->refits = g_array_new (FALSE, FALSE, sizeof (SbHyper));
  self->edits = sb_session_edits_new ();
  self->undo_edits = g_array_new (FALSE, FALSE, sizeof (guint));
  self->redo_edits = g_array_new (FALSE, FALSE, sizeof (guint));
  self->created = g_get_real_time ();
}

SbSession *
sb_session_new (const SbExperiment *exp)
{
  SbSession *self = g_object_new (SB_TYPE_SESSION, NULL);

  self->experiment = sb_experiment_copy (exp);
  return self;
}

const SbExperiment *
sb_session_get_experiment (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return self->experiment;
}

GFile *
sb_session_get_file (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return self->file;
}

guint
sb_session_get_n_observations (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->observations->len;
}

const SbLogEntry *
sb_session_get_observation (SbSession *self, guint index)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < self->observations->len, NULL);
  return g_ptr_array_index (self->observations, index);
}

guint
sb_session_get_n_answers (SbSession *self)
{
  guint n = 0;

  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  for (guint i = 0; i < self->observations->len; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (self->observations, i);
      if (e->kind != SB_LOG_SKIP && !sb_log_entry_is_removed (e))
        n++;
    }
  return n;
}

GPtrArray *
sb_session_dup_observations (SbSession *self)
{
  GPtrArray *copy;

  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  copy = g_ptr_array_new_full (self->observations->len, (GDestroyNotify) sb_log_entry_free);
  for (guint i = 0; i < self->observations->len; i++)
    g_ptr_array_add (copy, sb_log_entry_copy (g_ptr_array_index (self->observations, i)));
  return copy;
}

/* ---- Saving in the background --------------------------------------------
 * One writer thread takes the serialised documents in the order they were
 * made and replaces the file atomically (sb_session_write_file), so a slow
 * disk never blocks the main loop. The document is serialised on the main
 * thread, at the moment of the change; ::saved is emitted on the main
 * thread once it is on disk. */

typedef struct {
  SbSession *session;   /* strong reference */
  char *path;
  char *data;
  gsize length;
  guint n_observations;
  GError *error;
} SaveTask;

static GMutex writer_mutex;
static GCond writer_cond;
static guint writer_pending;
static GThreadPool *writer_pool;

static gboolean
save_done_idle (gpointer user_data)
{
  SaveTask *task = user_data;

  if (task->error)
    g_signal_emit (task->session, signals[SAVE_FAILED], 0, task->error);
  else
    g_signal_emit (task->session, signals[SAVED], 0, task->n_observations);
  g_object_unref (task->session);
  g_clear_error (&task->error);
  g_free (task->path);
  g_free (task->data);
  g_free (task);
  return G_SOURCE_REMOVE;
}

static void
writer_thread (gpointer data, gpointer user_data)
{
  SaveTask *task = data;

  if (task->error == NULL)
    sb_session_write_file (task->path, task->data, task->length, &task->error);
  g_mutex_lock (&writer_mutex);
  writer_pending--;
  g_cond_broadcast (&writer_cond);
  g_mutex_unlock (&writer_mutex);
  g_idle_add_full (G_PRIORITY_DEFAULT, save_done_idle, task, NULL);
}

static void
save_in_background (SbSession *self)
{
  SaveTask *task = g_new0 (SaveTask, 1);

  task->session = g_object_ref (self);
  task->path = g_file_get_path (self->file);
  /* Content that would not read back is not written; the writer thread
   * reports the error in order with the saves before it. */
  if (sb_session_check (self, &task->error))
    task->data = sb_session_to_data (self, &task->length);
  task->n_observations = self->observations->len;
  g_mutex_lock (&writer_mutex);
  if (writer_pool == NULL)
    writer_pool = g_thread_pool_new (writer_thread, NULL, 1, FALSE, NULL);
  writer_pending++;
  g_mutex_unlock (&writer_mutex);
  g_thread_pool_push (writer_pool, task, NULL);
}

void
sb_session_set_save_in_background (SbSession *self, gboolean background)
{
  g_return_if_fail (SB_IS_SESSION (self));
  self->background_save = !!background;
}

void
sb_session_flush_all (void)
{
  g_mutex_lock (&writer_mutex);
  while (writer_pending > 0)
    g_cond_wait (&writer_cond, &writer_mutex);
  g_mutex_unlock (&writer_mutex);
}

gboolean
sb_session_save_as (SbSession *self, GFile *file, GError **error)
{
  g_autoptr (GFile) old = NULL;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  old = g_steal_pointer (&self->file);
  self->file = g_object_ref (file);
  if (!sb_session_save (self, error))
    {
      g_clear_object (&self->file);
      self->file = g_steal_pointer (&old);
      return FALSE;
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
  return TRUE;
}
/* ---- Changes ----------------------------------------------------------- */

gboolean
sb_session_commit_change (SbSession *self, GError **error)
{
  gboolean saved = TRUE;
  gboolean background = self->file && self->background_save && g_file_is_native (self->file);

  if (background)
    save_in_background (self);
  else if (self->file)
    {
      saved = sb_session_save (self, error);
      if (saved)
        g_signal_emit (self, signals[SAVED], 0, self->observations->len);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_OBSERVATIONS]);
  g_signal_emit (self, signals[CHANGED], 0);
  return saved;
}

/* Appends OBS (taking it) when the log can hold it, then saves. */
static gboolean
append_checked (SbSession *self, SbLogEntry *obs, GError **error)
{
  if (!sb_experiment_check_observation (self->experiment, obs, self->observations->len, error))
    {
      sb_log_entry_free (obs);
      return FALSE;
    }
  g_ptr_array_add (self->observations, obs);
  return sb_session_commit_change (self, error);
}

gboolean
sb_session_add_duel (SbSession *self, const double *a, const double *b, int winner,
                     GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (winner == 0 || winner == 1, FALSE);
  obs = log_entry_new (SB_LOG_DUEL, self->experiment->n_parameters, a, b);
  obs->winner = winner;
  return append_checked (self, obs, error);
}

gboolean
sb_session_add_value (SbSession *self, const double *x, double value, GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  obs = log_entry_new (SB_LOG_VALUE, self->experiment->n_parameters, x, NULL);
  obs->value = value;
  return append_checked (self, obs, error);
}

gboolean
sb_session_add_failed (SbSession *self, const double *x, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return append_checked (self, log_entry_new (SB_LOG_FAILED, self->experiment->n_parameters,
                                              x, NULL), error);
}

gboolean
sb_session_add_skip (SbSession *self, const double *a, const double *b, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return append_checked (self, log_entry_new (SB_LOG_SKIP, self->experiment->n_parameters,
                                              a, b ? b : a), error);
}

gboolean
sb_session_add_entry (SbSession *self, const SbLogEntry *entry, GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (entry != NULL, FALSE);
  obs = sb_log_entry_copy (entry);
  if (obs->time == 0)
    obs->time = g_get_real_time ();
  if (!sb_experiment_check_observation (self->experiment, obs, self->observations->len, error))
    {
      sb_log_entry_free (obs);
      return FALSE;
    }
  /* The answer and the question it closes are saved together. */
  if (self->pending && obs->question == self->pending->id)
    g_clear_pointer (&self->pending, g_free);
  g_ptr_array_add (self->observations, obs);
  return sb_session_commit_change (self, error);
}

const SbPendingQuestion *
sb_session_get_pending (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return self->pending;
}

guint64
sb_session_get_questions_asked (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->questions_asked;
}

gboolean
sb_session_set_pending (SbSession *self, const SbPendingQuestion *q, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (q != NULL, FALSE);

  if (q->id <= self->questions_asked)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "question id %" G_GUINT64_FORMAT " was given out before (the last is %"
                   G_GUINT64_FORMAT ")", q->id, self->questions_asked);
      return FALSE;
    }
  if (!sb_session_check_pending (self->experiment, q, self->observations->len, q->id, error))
    return FALSE;
  g_free (self->pending);
  self->pending = g_memdup2 (q, sizeof *q);
  self->questions_asked = q->id;
  return self->file ? sb_session_save (self, error) : TRUE;
}

gboolean
sb_session_undo (SbSession *self, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);

  if (self->observations->len == 0)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID, "nothing to undo");
      return FALSE;
    }
  for (guint i = 0; i < self->edits->len; i++)
    if (g_array_index (self->edits, SbEdit, i).entry == self->observations->len - 1)
      {
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                     "answer %u was edited by the experimenter: it is kept (remove it "
                     "instead)", self->observations->len);
        return FALSE;
      }
  g_ptr_array_remove_index (self->observations, self->observations->len - 1);
  /* A question asked after the entry undone is out of date for good. */
  if (self->pending && self->pending->n_log > self->observations->len)
    g_clear_pointer (&self->pending, g_free);
  return sb_session_commit_change (self, error);
}

const SbHyper *
sb_session_get_hyper (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return &self->hyper;
}

gboolean
sb_session_set_hyper (SbSession *self, const SbHyper *hyper, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (!sb_hyper_validate (hyper, self->experiment->n_parameters, error))
    return FALSE;
  self->hyper = *hyper;
  if (hyper->valid)
    g_array_append_val (self->refits, *hyper);
  if (self->file && self->background_save && g_file_is_native (self->file))
    {
      save_in_background (self);
      return TRUE;
    }
  return self->file ? sb_session_save (self, error) : TRUE;
}
SbFileLock *
sb_session_lock_file (const char *path, const char *program, GError **error)
{
  g_autofree char *target = sb_session_resolve_path (path);

  return sb_file_lock_acquire (target, program, error);
}

gboolean
sb_session_reload (SbSession *self, GError **error)
{
  g_autoptr (SbSession) fresh = NULL;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (self->file != NULL, FALSE);

  fresh = sb_session_load (self->file, error);
  if (fresh == NULL)
    return FALSE;
  /* Take the file's contents; FRESH leaves with what was here. */
  SB_SWAP (SbExperiment *, self->experiment, fresh->experiment);
  SB_SWAP (GPtrArray *, self->observations, fresh->observations);
  SB_SWAP (GArray *, self->refits, fresh->refits);
  SB_SWAP (SbHyper, self->hyper, fresh->hyper);
  SB_SWAP (SbPendingQuestion *, self->pending, fresh->pending);
  SB_SWAP (GArray *, self->edits, fresh->edits);
  /* Edits made elsewhere: the stacks of this object's edits no longer apply. */
  g_array_set_size (self->undo_edits, 0);
  g_array_set_size (self->redo_edits, 0);
  self->questions_asked = fresh->questions_asked;
  self->created = fresh->created;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_OBSERVATIONS]);
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

guint
sb_session_get_n_refits (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->refits->len;
}

const SbHyper *
sb_session_get_refit (SbSession *self, guint index)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < self->refits->len, NULL);
  return &g_array_index (self->refits, SbHyper, index);
}

gboolean
sb_session_set_budget (SbSession *self, guint budget, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (budget < 1 || budget > SB_MAX_BUDGET)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the budget must be between 1 and %u questions, not %u", SB_MAX_BUDGET, budget);
      return FALSE;
    }
  self->experiment->budget = budget;
  return sb_session_commit_change (self, error);
}

