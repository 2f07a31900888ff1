/* sb-log-entry.c — the observation log's entries and their rules
 * (sb-log-entry.h). */
#include "config.h"

#include "sb-log-entry.h"

#include "sb-candidates.h"
#include "sb-confidence-scale.h"
#include "sb-enum-names.h"
#include "sb-json-write.h"
#include "sb-parameter-kinds.h"

#include <math.h>
#include <string.h>

static const char *const kind_names[] = { "duel", "value", "failed", "skip", "tie", "choice",
                                          "ranking" };
SB_NAMED_ENUM (SbLogKind, sb_log_kind_to_string, sb_log_kind_from_string, kind_names, "skip")

/* ---- Observations ------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (SbLogEntry, sb_log_entry, sb_log_entry_copy, sb_log_entry_free)

SbLogEntry *
sb_log_entry_new (SbLogKind kind, guint dim, const double *a, const double *b)
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

/* The modes in which the engine takes each kind of answer (sg_bo_answer_*):
 * preference answers in preference and mixed mode, values and failed
 * settings in mixed and safe mode; skips never reach the engine. */
gboolean
sb_log_kind_fits_mode (SbLogKind kind, SbMode mode)
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
gboolean
sb_experiment_check_setting (const SbExperiment *exp, const double *x, const char *what, const char *side,
             GError **error)
{
  char v[G_ASCII_DTOSTR_BUF_SIZE], lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const SbParameter *p = &exp->parameters[j];
      if (!isfinite (x[j]))
        return sb_invalid (error, "%s: coordinate %u (%s)%s is not a finite number",
                           what, j + 1, p->name, side);
      if (x[j] < p->lower || x[j] > p->upper)
        return sb_invalid (error, "%s: coordinate %u (%s)%s = %s is outside [%s, %s]",
                           what, j + 1, p->name, side, sb_json_format_double (x[j], v, sizeof v),
                           sb_json_format_double (p->lower, lo, sizeof lo), sb_json_format_double (p->upper, hi, sizeof hi));
      if (!sb_parameter_value_fits (p, x[j]))
        return sb_invalid (error, "%s: coordinate %u (%s)%s = %s is not a whole number (the "
                           "parameter is %s)", what, j + 1, p->name, side, sb_json_format_double (x[j], v, sizeof v),
                           sb_scale_to_string (p->scale));
    }
  if (exp->candidates != NULL && sb_experiment_candidate_index (exp, x) < 0)
    return sb_invalid (error, "%s: the setting%s is none of the candidates in %s", what, side,
                       exp->candidates->csv);
  return TRUE;
}

/* Equal coordinates: the same setting for the engine's kernel (0 and -0
 * too, which the file cannot tell apart). */
gboolean
sb_same_setting (const double *a, const double *b, guint dim)
{
  for (guint j = 0; j < dim; j++)
    if (a[j] != b[j])
      return FALSE;
  return TRUE;
}

/* ORDER (N entries) lists each of 0 .. N - 1 once. */
gboolean
sb_is_permutation (const guint *order, guint n)
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
gboolean
sb_log_kind_fits_question (SbLogKind kind, const SbExperiment *exp)
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
check_answer_details (const SbExperiment *exp, const SbLogEntry *obs, const char *what,
                      GError **error)
{
  guint n_points = sb_log_entry_n_options (obs);

  if (obs->n_shown != 0 && (obs->n_shown != n_points || !sb_is_permutation (obs->shown_order,
                                                                         obs->n_shown)))
    return sb_invalid (error, "%s: 'shown_order' must list each of its %u options once", what,
                       n_points);
  if (obs->has_response_time && !(isfinite (obs->response_time) && obs->response_time >= 0))
    return sb_invalid (error, "%s: 'response_time' must be a finite number of seconds >= 0", what);
  if (obs->confidence != SG_CONFIDENCE_NONE
      && !sb_confidence_fits_scale (obs->confidence, exp->confidence_levels))
    {
      g_autofree char *scale = sb_confidence_scale_describe (exp->confidence_levels);
      return sb_invalid (error, "%s: 'confidence' must be %s (the experiment's confidence scale)",
                         what, scale);
    }
  if (obs->confidence != SG_CONFIDENCE_NONE && obs->kind != SB_LOG_DUEL
      && obs->kind != SB_LOG_CHOICE)
    return sb_invalid (error, "%s: a confidence is given for duels and choices only", what);
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
    return sb_invalid (error, "%s: %u options, but the experiment shows %u", what, k,
                       exp->n_options);
  for (guint i = 0; i < k; i++)
    {
      g_autofree char *side = g_strdup_printf (" of option %u", i + 1);
      if (!sb_experiment_check_setting (exp, sb_log_entry_option (obs, i), what, side, error))
        return FALSE;
      for (guint j = 0; j < i; j++)
        if (sb_same_setting (sb_log_entry_option (obs, i), sb_log_entry_option (obs, j), obs->dim))
          return sb_invalid (error, "%s: options %u and %u are the same setting", what, j + 1, i + 1);
    }
  if (obs->kind == SB_LOG_CHOICE && obs->chosen >= k)
    return sb_invalid (error, "%s: 'chosen' = %u is not an option (0 .. %u)", what, obs->chosen,
                       k - 1);
  if (obs->kind == SB_LOG_RANKING && !sb_is_permutation (obs->ranking, k))
    return sb_invalid (error, "%s: 'ranking' must list each of its %u options once", what, k);
  return TRUE;
}

gboolean
sb_experiment_check_observation (const SbExperiment *exp, const SbLogEntry *obs, guint index,
                                 GError **error)
{
  g_autofree char *what = NULL;
  gboolean two_points;

  if ((guint) obs->kind > SB_LOG_RANKING)
    return sb_invalid (error, "observation %u: unknown kind", index + 1);
  what = g_strdup_printf ("observation %u (%s)", index + 1, sb_log_kind_to_string (obs->kind));
  if (obs->dim != exp->n_parameters)
    return sb_invalid (error, "%s: %u coordinates, expected %u", what, obs->dim, exp->n_parameters);
  if (!sb_log_kind_fits_mode (obs->kind, exp->mode))
    return sb_invalid (error, "%s: a %s answer has no place in %s mode", what,
                       sb_log_kind_to_string (obs->kind), sb_mode_to_string (exp->mode));
  if (!sb_log_kind_fits_question (obs->kind, exp))
    return sb_invalid (error, "%s: this experiment asks %s questions%s", what,
                       sb_ask_kind_to_string (exp->question),
                       exp->question == SB_ASK_DUEL && !exp->ties_allowed
                       ? " without ties" : "");
  if (obs->kind == SB_LOG_CHOICE || obs->kind == SB_LOG_RANKING
      || (obs->kind == SB_LOG_SKIP && obs->options != NULL))
    {
      if (obs->options == NULL || obs->a != NULL || obs->b != NULL)
        return sb_invalid (error, "%s: the options are missing", what);
      if (!check_options (exp, obs, what, error))
        return FALSE;
      return check_answer_details (exp, obs, what, error);
    }
  two_points = obs->kind == SB_LOG_DUEL || obs->kind == SB_LOG_SKIP || obs->kind == SB_LOG_TIE;
  if (obs->a == NULL || (obs->b != NULL) != two_points || obs->options != NULL)
    return sb_invalid (error, "%s: %s expected", what, two_points ? "a and b" : "one setting");
  if (!sb_experiment_check_setting (exp, obs->a, what, two_points ? " of a" : "", error)
      || (two_points && !sb_experiment_check_setting (exp, obs->b, what, " of b", error)))
    return FALSE;
  if (obs->kind == SB_LOG_DUEL && obs->winner != 0 && obs->winner != 1)
    return sb_invalid (error, "%s: the winner is neither a nor b", what);
  if ((obs->kind == SB_LOG_DUEL || obs->kind == SB_LOG_TIE)
      && sb_same_setting (obs->a, obs->b, obs->dim))
    return sb_invalid (error, "%s: a and b are the same setting", what);
  if (obs->kind == SB_LOG_VALUE && !isfinite (obs->value))
    return sb_invalid (error, "%s: the value is not a finite number", what);
  return check_answer_details (exp, obs, what, error);
}

/* ---- The experimenter's edits ------------------------------------------- */

static const char *const edit_action_names[] = { "remove", "restore", "note" };
SB_NAMED_ENUM (SbEditAction, sb_edit_action_to_string, sb_edit_action_from_string,
               edit_action_names, "note")

void
sb_edit_clear (SbEdit *edit)
{
  g_clear_pointer (&edit->by, g_free);
  g_clear_pointer (&edit->note, g_free);
  g_clear_pointer (&edit->previous, g_free);
}

GArray *
sb_edit_array_new (void)
{
  GArray *edits = g_array_new (FALSE, TRUE, sizeof (SbEdit));

  g_array_set_clear_func (edits, (GDestroyNotify) sb_edit_clear);
  return edits;
}

gboolean
sb_edit_check (const SbEdit *edit, guint n_log, guint n_edits, GError **error)
{
  if ((guint) edit->action > SB_EDIT_NOTE)
    return sb_invalid (error, "edit %u: unknown action", n_edits + 1);
  if (edit->entry >= n_log)
    return sb_invalid (error, "edit %u: entry %u does not exist (the log has %u)", n_edits + 1,
                       edit->entry + 1, n_log);
  if (edit->reverts > n_edits)
    return sb_invalid (error, "edit %u: it reverts edit %u, which does not come before it",
                       n_edits + 1, edit->reverts);
  return TRUE;
}
