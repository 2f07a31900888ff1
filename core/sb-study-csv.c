/* sb-study-csv.c — a study's answers in long format for R and pandas
 * (sb_study_to_csv in sb-study.h).
 *
 * One row per option of every answer that counts (an entry the
 * experimenter removed is left out; a skip has its rows with an empty
 * answer), participants in roster order, answers in the order given:
 *
 *   study           the study folder's name
 *   participant     the participant's code
 *   question        the ask/tell question id; empty for answers the app took
 *   trial           the entry's number in the participant's log (1, 2, ...;
 *                   the number the history and its edits use)
 *   kind            duel, tie, choice, ranking, value, failed or skip
 *   option          the option's index (0, 1, ...; 0 is the current best a
 *                   duel was asked against), as "chosen" in `skewgp tell`
 *   <parameter>...  the option's setting, one column per parameter named
 *                   as the window names it, in the parameter's own units
 *                   (a name equal to a fixed column gets an "x_" prefix);
 *                   a categorical parameter's value is its level's name
 *   shown_position  1-based place it was shown in; empty when not recorded
 *   answer          1 for the option preferred (the duel's winner, the
 *                   choice, a ranking's best), 0 for the others; empty for
 *                   ties, values, failed settings and skips
 *   tie             1 for the rows of a tie, 0 for the other preference
 *                   rows; empty otherwise
 *   rank            rankings: 1 (best) .. k; empty otherwise
 *   value           value questions: the measured value
 *   confidence      weak, normal or strong; empty when not given
 *   response_time   seconds from question to answer; empty when not recorded
 *   time            ISO 8601 UTC
 *   note            WITH_NOTES only: the answer's note
 *   participant_note  WITH_NOTES only: the participant's note
 *
 * Numbers are written in the shortest form that reads back to the same
 * double (sb_csv_number), so 46.8 typed is 46.8 here.
 */
#include "config.h"

#include "sb-study.h"
#include "sb-csv-write.h"
#include "sb-setting.h"
#include "sb-atomic-file.h"

#include "sb-session.h"

#include <string.h>

static const char *const fixed_before[] = { "study", "participant", "question", "trial",
                                            "kind", "option" };
static const char *const fixed_after[] = { "shown_position", "answer", "tie", "rank", "value",
                                           "confidence", "response_time", "time", "note",
                                           "participant_note" };

static gboolean
is_fixed_column (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (fixed_before); i++)
    if (g_str_equal (name, fixed_before[i]))
      return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (fixed_after); i++)
    if (g_str_equal (name, fixed_after[i]))
      return TRUE;
  return FALSE;
}

static void
header (GString *out, const SbExperiment *exp, gboolean with_notes)
{
  for (guint i = 0; i < G_N_ELEMENTS (fixed_before); i++)
    g_string_append_printf (out, "%s%s", i ? "," : "", fixed_before[i]);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      const char *name = exp->parameters[j].name;
      g_autofree char *column = is_fixed_column (name) ? g_strconcat ("x_", name, NULL)
                                                       : g_strdup (name);
      g_string_append_c (out, ',');
      sb_csv_field (out, column);
    }
  for (guint i = 0; i < G_N_ELEMENTS (fixed_after) - 2; i++)
    g_string_append_printf (out, ",%s", fixed_after[i]);
  if (with_notes)
    g_string_append (out, ",note,participant_note");
  g_string_append_c (out, '\n');
}

static gboolean
is_preference (SbLogKind kind)
{
  return kind == SB_LOG_DUEL || kind == SB_LOG_TIE || kind == SB_LOG_CHOICE
         || kind == SB_LOG_RANKING;
}

static void
option_row (GString *out, const char *study, const SbExperiment *exp, const SbParticipant *p,
            const SbLogEntry *e, guint trial, guint k, gboolean with_notes)
{
  const double *x = sb_log_entry_option (e, k);
  int best = sb_log_entry_best_option (e);
  g_autofree char *time = sb_format_time (e->time);

  sb_csv_field (out, study);
  g_string_append_c (out, ',');
  sb_csv_field (out, p->code);
  g_string_append_c (out, ',');
  if (e->question != 0)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, e->question);
  g_string_append_printf (out, ",%u,%s,%u", trial, sb_log_kind_to_string (e->kind), k);
  for (guint j = 0; j < e->dim; j++)
    {
      g_string_append_c (out, ',');
      sb_csv_coordinate (out, &exp->parameters[j], x[j]);
    }
  g_string_append_c (out, ',');
  for (guint s = 0; s < e->n_shown; s++)
    if (e->shown_order[s] == k)
      g_string_append_printf (out, "%u", s + 1);
  g_string_append_c (out, ',');
  if (best >= 0)
    g_string_append_c (out, (guint) best == k ? '1' : '0');
  g_string_append_c (out, ',');
  if (is_preference (e->kind))
    g_string_append_c (out, e->kind == SB_LOG_TIE ? '1' : '0');
  g_string_append_c (out, ',');
  for (guint r = 0; e->kind == SB_LOG_RANKING && r < e->n_options; r++)
    if (e->ranking[r] == k)
      g_string_append_printf (out, "%u", r + 1);
  g_string_append_c (out, ',');
  if (e->kind == SB_LOG_VALUE)
    sb_csv_number (out, e->value);
  g_string_append_printf (out, ",%s,", sg_confidence_name (e->confidence));
  if (e->has_response_time)
    sb_csv_number (out, e->response_time);
  g_string_append_printf (out, ",%s", time);
  if (with_notes)
    {
      g_string_append_c (out, ',');
      if (e->note)
        sb_csv_field (out, e->note);
      g_string_append_c (out, ',');
      if (p->note)
        sb_csv_field (out, p->note);
    }
  g_string_append_c (out, '\n');
}

static gboolean
participant_rows (SbStudy *self, GString *out, const SbParticipant *p, gboolean with_notes,
                  GError **error)
{
  g_autoptr (SbSession) session = sb_study_open_session (self, p->code, error);

  if (session == NULL)
    return FALSE;
  for (guint i = 0; i < sb_session_get_n_observations (session); i++)
    {
      const SbLogEntry *e = sb_session_get_observation (session, i);
      /* a value question's skip holds its one setting as a and b */
      gboolean same = e->a && e->b && memcmp (e->a, e->b, e->dim * sizeof (double)) == 0;
      guint n = same ? 1 : sb_log_entry_n_options (e);

      if (sb_log_entry_is_removed (e))
        continue;
      for (guint k = 0; k < n; k++)
        option_row (out, sb_study_get_name (self), sb_study_get_experiment (self), p, e, i + 1, k,
                    with_notes);
    }
  return TRUE;
}

char *
sb_study_to_csv (SbStudy *self, const char *code, gboolean with_notes, GError **error)
{
  g_autoptr (GString) out = g_string_new (NULL);

  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  if (code != NULL && sb_study_find (self, code) == NULL)
    {
      g_set_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_UNKNOWN,
                   "the study has no participant '%s'", code);
      return NULL;
    }
  header (out, sb_study_get_experiment (self), with_notes);
  for (guint i = 0; i < sb_study_get_n_participants (self); i++)
    {
      const SbParticipant *p = sb_study_get_participant (self, i);
      if (code != NULL && p != sb_study_find (self, code))
        continue;
      if (!participant_rows (self, out, p, with_notes, error))
        return NULL;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
