/* sb-experiment-check.c — the rules an experiment follows
 * (sb-experiment-check.h). */
#include "config.h"

#include "sb-experiment-check.h"

#include "sb-candidates.h"
#include "sb-confidence-scale.h"
#include "sb-json-write.h"
#include "sb-parameter-kinds.h"
#include "sb-stimulus.h"

#include "sg-problems.h"

#include <math.h>

/* The surrogate serves the mode: the sparse variational GP models duels
 * only (preference mode), the two-GP baseline is a safe-mode method. */
static gboolean
surrogate_fits_mode (const SbExperiment *exp, GError **error)
{
  sg_bo_surrogate s = exp->surrogate;

  if ((s == SG_BO_SURROGATE_SVGP && exp->mode != SB_MODE_PREFERENCE)
      || (s == SG_BO_SURROGATE_TWO_GP && exp->mode != SB_MODE_SAFE))
    return sb_invalid (error, "the surrogate '%s' serves %s mode only", sg_bo_surrogate_name (s),
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
    return sb_invalid (error, "the experiment's acquisition is unknown");
  if ((hb || a == SG_BO_ACQ_DTS || a == SG_BO_ACQ_QEUBO) && mode != SB_MODE_PREFERENCE)
    return sb_invalid (error, "the acquisition '%s' asks preference-mode duels only; "
                       "%s mode takes 'ucb', 'eiig', 'epi', 'thompson' or 'muc'",
                       sg_bo_acquisition_name (a), sb_mode_to_string (mode));
  if (hb && surrogate != SG_BO_SURROGATE_SKEWGP && surrogate != SG_BO_SURROGATE_RANDOM)
    return sb_invalid (error, "the acquisition '%s' needs the 'skewgp' surrogate (its "
                       "hallucination "
                       "is a sample of the exact posterior; '%s' has none)",
                       sg_bo_acquisition_name (a), sg_bo_surrogate_name (surrogate));
  return TRUE;
}

gboolean
sb_experiment_population_fits (const SbExperiment *exp)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    if (exp->parameters[j].scale == SB_SCALE_INTEGER
        || exp->parameters[j].scale == SB_SCALE_CATEGORICAL)
      return FALSE;
  return exp->mode == SB_MODE_PREFERENCE && exp->question == SB_ASK_DUEL
         && exp->surrogate == SG_BO_SURROGATE_SKEWGP && exp->candidates == NULL;
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
    return sb_invalid (error, "the experiment's question kind is unknown");
  if (duel && exp->n_options != 2)
    return sb_invalid (error, "'options' must be 2 for duels, not %u", exp->n_options);
  if (!duel && (exp->n_options < SB_MIN_CHOICE_OPTIONS || exp->n_options > SB_MAX_OPTIONS))
    return sb_invalid (error, "'options' must lie in [%d, %d] for a %s question",
                       SB_MIN_CHOICE_OPTIONS, SB_MAX_OPTIONS,
                       sb_ask_kind_to_string (exp->question));
  if (exp->ties_allowed && !duel)
    return sb_invalid (error, "'ties_allowed' applies to duels, not to %s questions",
                       sb_ask_kind_to_string (exp->question));
  if ((!duel || exp->ties_allowed) && exp->mode == SB_MODE_SAFE)
    return sb_invalid (error, "safe mode asks for values, not %s",
                       duel ? "duels with ties" : "choices or rankings");
  if ((!duel || exp->ties_allowed) && exp->surrogate != SG_BO_SURROGATE_SKEWGP)
    return sb_invalid (error, "%s need the 'skewgp' surrogate ('%s' cannot represent them)",
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
    return sb_invalid (error, "parameter %u has no name", i + 1);
  if (!isfinite (p->lower) || !isfinite (p->upper))
    return sb_invalid (error, "parameter '%s': '%s' is not a finite number", p->name,
                       isfinite (p->lower) ? "upper" : "lower");
  if (!(p->lower < p->upper))
    return sb_invalid (error, "parameter '%s': the range [%s, %s] is empty", p->name,
                       sb_json_format_double (p->lower, lo, sizeof lo),
                       sb_json_format_double (p->upper, hi, sizeof hi));
  /* the model works in the range scaled to [0, 1]: its width must be a
   * double, and it must hold more than a few doubles (1e-12 of the
   * bounds' magnitude leaves thousands) or every setting asked is one of
   * its two ends */
  if (!isfinite (p->upper - p->lower))
    return sb_invalid (error, "parameter '%s': the range [%s, %s] is wider than a number can "
                       "hold (its width overflows); give bounds whose difference is below "
                       "1.8e308", p->name,
                       sb_json_format_double (p->lower, lo, sizeof lo),
                       sb_json_format_double (p->upper, hi, sizeof hi));
  if (p->upper - p->lower < 1e-12 * MAX (fabs (p->lower), fabs (p->upper)))
    return sb_invalid (error, "parameter '%s': the range [%s, %s] is too narrow for the size of "
                       "its bounds (its width is below 1e-12 of them, so too few numbers lie "
                       "inside); shift or rescale the parameter", p->name,
                       sb_json_format_double (p->lower, lo, sizeof lo),
                       sb_json_format_double (p->upper, hi, sizeof hi));
  for (guint j = 0; j < i; j++)
    if (g_str_equal (p->name, exp->parameters[j].name))
      return sb_invalid (error, "two parameters are called '%s'", p->name);
  return sb_parameter_check_scale (p, error);
}

static gboolean
check_count (const char *key, guint value, guint min, guint max, GError **error)
{
  if (value < min || value > max)
    return sb_invalid (error, "'%s' must lie in [%u, %u]", key, min, max);
  return TRUE;
}

/* The candidate set against the rest of the experiment: a value per
 * parameter, enough stimuli for one question, the safe start one of them,
 * and a file stimulus shown from files it can show. */
static gboolean
candidates_fit (const SbExperiment *exp, GError **error)
{
  const SbCandidates *c = exp->candidates;
  gssize unknown;

  if (exp->stimulus.kind == SB_STIMULUS_FILE && c == NULL)
    return sb_invalid (error, "stimulus: a file stimulus shows the files of a candidate set, "
                       "and this experiment has no 'candidates'");
  if (c == NULL)
    return TRUE;
  if (c->dim != exp->n_parameters)
    return sb_invalid (error, "the candidate set has %u values per stimulus, expected %u",
                       c->dim, exp->n_parameters);
  if (c->n < MAX (exp->n_options, 2))
    return sb_invalid (error, "the candidate set has %u stimuli, fewer than the %u options of "
                       "one question", c->n, MAX (exp->n_options, 2));
  if (exp->has_safe_start && sb_experiment_candidate_index (exp, exp->safe_start) < 0)
    return sb_invalid (error, "the safe start is none of the candidates in %s", c->csv);
  unknown = sb_stimulus_first_unknown_file (c);
  if (exp->stimulus.kind == SB_STIMULUS_FILE && unknown >= 0)
    return sb_invalid (error, "stimulus: the candidate file '%s' is neither an image (png, jpg, "
                       "jpeg, svg) nor a sound (wav, ogg, oga, flac, mp3)", c->files[unknown]);
  return TRUE;
}

/* Each parameter's resolution lies below its range. */
static gboolean
resolutions_fit (const SbExperiment *exp, GError **error)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      if (!(p->resolution >= 0 && p->resolution < p->upper - p->lower))
        return sb_invalid (error, "parameter '%s': the resolution %g must be at least 0 and "
                           "below the range %g", p->name, p->resolution, p->upper - p->lower);
    }
  return TRUE;
}

/* A safe start belongs to safe mode and is a setting of the box. */
static gboolean
safe_start_fits (const SbExperiment *exp, GError **error)
{
  if (exp->has_safe_start && exp->mode != SB_MODE_SAFE)
    return sb_invalid (error, "a safe start ('safe_start') belongs to safe mode");
  for (guint j = 0; exp->has_safe_start && j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      if (!(exp->safe_start[j] >= p->lower && exp->safe_start[j] <= p->upper))
        return sb_invalid (error, "the safe start's %s = %g is outside [%g, %g]", p->name,
                           exp->safe_start[j], p->lower, p->upper);
      if (!sb_parameter_value_fits (p, exp->safe_start[j]))
        return sb_invalid (error, "the safe start's %s = %g is not a whole number", p->name,
                           exp->safe_start[j]);
    }
  return TRUE;
}

gboolean
sb_experiment_validate (const SbExperiment *exp, GError **error)
{
  if ((guint) exp->template_kind > SB_TEMPLATE_CUSTOM || (guint) exp->mode > SB_MODE_SAFE
      || (guint) exp->acquisition > SG_BO_ACQ_LAST
      || (guint) exp->surrogate > SG_BO_SURROGATE_SVGP)
    return sb_invalid (error, "the experiment's template, mode, acquisition or surrogate is "
                       "unknown");
  if (exp->n_parameters == 0)
    return sb_invalid (error, "the experiment has no parameters");
  if (exp->n_parameters > SB_MAX_PARAMETERS)
    return sb_invalid (error, "at most %d parameters are supported", SB_MAX_PARAMETERS);
  for (guint i = 0; i < exp->n_parameters; i++)
    if (!check_parameter (exp, i, error))
      return FALSE;
  if (exp->budget == 0)
    return sb_invalid (error, "the budget must be at least one question");
  if (!check_count ("budget", exp->budget, 1, SB_SESSION_MAX_BUDGET, error)
      || !check_count ("initial", exp->initial, 0, SB_SESSION_MAX_INITIAL, error)
      || !check_count ("numeric_every", exp->numeric_every, 0, SB_SESSION_MAX_NUMERIC_EVERY, error)
      || !check_count ("autoplay_ms", exp->autoplay_ms, 0, SB_SESSION_MAX_AUTOPLAY_MS, error))
    return FALSE;
  if (exp->template_kind == SB_TEMPLATE_BENCHMARK && (exp->problem == NULL || !*exp->problem))
    return sb_invalid (error, "a benchmark experiment needs a problem name");
  if (!isfinite (exp->threshold))
    return sb_invalid (error, "the threshold or failure level ('threshold') is not a finite "
                       "number");
  if (!(exp->confidence_level >= 0.5 && exp->confidence_level < 1))
    return sb_invalid (error, "the confidence level ('confidence_level') must be at least 0.5 and "
                       "below 1 (it is %g)", exp->confidence_level);
  if (exp->confidence_levels == 1 || exp->confidence_levels > SG_CONFIDENCE_MAX_LEVELS)
    return sb_invalid (error, "'confidence_scale': a rating needs 2 to %d levels (it has %u)",
                       SG_CONFIDENCE_MAX_LEVELS, exp->confidence_levels);
  if (exp->question_text != NULL && !sb_question_text_validate (exp->question_text, error))
    return FALSE;
  if (!isfinite (exp->oracle_noise) || exp->oracle_noise < 0)
    return sb_invalid (error, "'oracle_noise' must be a finite number >= 0");
  if (!resolutions_fit (exp, error) || !safe_start_fits (exp, error))
    return FALSE;
  return surrogate_fits_mode (exp, error) && question_fits (exp, error)
         && sb_acquisition_fits (exp->mode, exp->surrogate, exp->acquisition, error)
         && sb_stimulus_validate (exp, error) && candidates_fit (exp, error);
}


gboolean
sb_experiment_check_safe_new (const SbExperiment *exp, GError **error)
{
  gboolean problem_start = FALSE;

  if (exp->mode != SB_MODE_SAFE)
    return TRUE;
  if (exp->surrogate == SG_BO_SURROGATE_RANDOM)
    return sb_invalid (error, "safe mode cannot use the 'random' surrogate: it asks random "
                       "settings, which are not known to be safe");
  if (exp->template_kind == SB_TEMPLATE_BENCHMARK && exp->problem != NULL)
    {
      sg_problem *p = NULL;
      problem_start = sg_problem_new (exp->problem, exp->seed, &p) == SG_OK
                      && sg_problem_safe_start (p) != NULL;
      sg_problem_free (p);
    }
  if (!exp->has_safe_start && !problem_start)
    return sb_invalid (error, exp->template_kind == SB_TEMPLATE_BENCHMARK
                       ? "safe mode needs a safe start: the problem '%s' has none (choose one "
                         "of the safe-... problems)"
                       : "safe mode needs a safe start ('safe_start'): a setting measured safe, "
                         "from which the safe set grows%s",
                       exp->template_kind == SB_TEMPLATE_BENCHMARK ? exp->problem : "");
  return TRUE;
}
