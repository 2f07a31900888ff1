/* sb-session-csv.c — the observation log as CSV, for spreadsheets and R:
 * one header row, then one row per observation (sb-session.h). Numbers
 * are written in the shortest form that reads back to the same double,
 * in the C locale; a categorical parameter's value is its level's name.
 * Answers the experimenter removed are left out (the session file keeps
 * them).
 */
#include "config.h"

#include "sb-session.h"
#include "sb-session-private.h"
#include "sb-csv-write.h"
#include "sb-setting.h"
#include "sb-atomic-file.h"
#include "sb-parameter-kinds.h"
#include "sb-candidates.h"
#include "sb-json-write.h"

#include <math.h>
#include <string.h>




static void
csv_answer_details (GString *out, const SbLogEntry *obs)
{
  g_string_append_c (out, ',');
  if (obs->question != 0)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, obs->question);
  g_string_append_c (out, ',');
  for (guint i = 0; i < obs->n_shown; i++)
    g_string_append_printf (out, "%s%c", i ? " " : "", 'a' + obs->shown_order[i]);
  g_string_append_c (out, ',');
  if (obs->has_response_time)
    sb_csv_number (out, obs->response_time);
  g_string_append_c (out, ',');
  g_string_append (out, sg_confidence_name (obs->confidence));
  g_string_append_c (out, ',');
  if (obs->note)
    sb_csv_field (out, obs->note);
}

/* The option columns of the wide format: a and b, or one per option the
 * experiment shows (a, b, c, ...). */
static guint
wide_options (const SbExperiment *exp)
{
  return MAX (2, exp->n_options);
}

/* The "answer" column: the winner of a duel, the option chosen, the
 * ranking best first ("c a b"), "tie" or "failed". */
static void
csv_answer (GString *out, const SbLogEntry *obs)
{
  switch (obs->kind)
    {
    case SB_LOG_DUEL:
      g_string_append_c (out, obs->winner ? 'b' : 'a');
      break;
    case SB_LOG_TIE:
      g_string_append (out, "tie");
      break;
    case SB_LOG_CHOICE:
      g_string_append_c (out, 'a' + obs->chosen);
      break;
    case SB_LOG_RANKING:
      for (guint i = 0; i < obs->n_options; i++)
        g_string_append_printf (out, "%s%c", i ? " " : "", 'a' + obs->ranking[i]);
      break;
    case SB_LOG_FAILED:
      g_string_append (out, "failed");
      break;
    default:
      break;
    }
}

char *
sb_session_to_csv (SbSession *self)
{
  const SbExperiment *exp = self->experiment;
  GString *out = g_string_new ("index,time,kind,answer,value");

  for (guint side = 0; side < wide_options (exp); side++)
    for (guint j = 0; j < exp->n_parameters; j++)
      {
        g_autofree char *name = g_strdup_printf ("%c_%s", 'a' + side,
                                                 exp->parameters[j].name);
        g_string_append_c (out, ',');
        sb_csv_field (out, name);
      }
  g_string_append (out, ",question,shown_order,response_time,confidence,note\n");

  for (guint i = 0; i < self->observations->len; i++)
    {
      const SbLogEntry *obs = g_ptr_array_index (self->observations, i);
      if (sb_log_entry_is_removed (obs))
        continue;
      g_autofree char *time = sb_format_time (obs->time);

      g_string_append_printf (out, "%u,%s,%s,", i + 1, time,
                              sb_log_kind_to_string (obs->kind));
      csv_answer (out, obs);
      g_string_append_c (out, ',');
      if (obs->kind == SB_LOG_VALUE)
        sb_csv_number (out, obs->value);
      for (guint side = 0; side < wide_options (exp); side++)
        for (guint j = 0; j < exp->n_parameters; j++)
          {
            const double *x = side < sb_log_entry_n_options (obs)
                              ? sb_log_entry_option (obs, side) : NULL;
            g_string_append_c (out, ',');
            if (x)
              sb_csv_coordinate (out, &exp->parameters[j], x[j]);
          }
      csv_answer_details (out, obs);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* The long format: one row per option an entry holds (two for duels,
 * ties and duel skips, k for choices and rankings, one for values and
 * failed settings; a skip of a value question, whose a and b are the same
 * setting, has one row too):
 *
 *   index          the log entry (1-based), shared by its rows
 *   question       the ask/tell question id, or empty
 *   time           ISO 8601 UTC
 *   kind           duel, tie, choice, ranking, value, failed or skip
 *   option         a, b, c, ... (the engine's order: a the current best)
 *   position       1-based place in the presentation order, or empty
 *   chosen         duels and choices: 1 for the preferred option, 0 for
 *                  the others; rankings: 1 for the best; ties: empty
 *   rank           rankings: 1 (best) .. k; empty otherwise
 *   value          value entries: the measured value
 *   response_time  seconds, or empty
 *   confidence     weak, normal, strong, or empty
 *   note           as given, or empty
 *   x_<name>...    the option's setting
 *
 * so that a duel is two rows with chosen 1 and 0 and a choice k rows
 * (a conditional logit or Bradley-Terry model in R or statsmodels reads
 * it as it is; a rank-ordered logit reads rank). */
char *
sb_session_to_csv_long (SbSession *self)
{
  const SbExperiment *exp = self->experiment;
  GString *out = g_string_new ("index,question,time,kind,option,position,chosen,rank,value,"
                               "response_time,confidence,note");

  for (guint j = 0; j < exp->n_parameters; j++)
    {
      g_autofree char *name = g_strdup_printf ("x_%s", exp->parameters[j].name);
      g_string_append_c (out, ',');
      sb_csv_field (out, name);
    }
  if (exp->candidates != NULL)
    g_string_append (out, ",file");
  g_string_append_c (out, '\n');

  for (guint i = 0; i < self->observations->len; i++)
    {
      const SbLogEntry *obs = g_ptr_array_index (self->observations, i);
      if (sb_log_entry_is_removed (obs))
        continue;
      g_autofree char *time = sb_format_time (obs->time);
      gboolean same = obs->a && obs->b
                      && memcmp (obs->a, obs->b, obs->dim * sizeof (double)) == 0;
      guint n_options = same ? 1 : sb_log_entry_n_options (obs);
      int best = sb_log_entry_best_option (obs);

      for (guint k = 0; k < n_options; k++)
        {
          const double *x = sb_log_entry_option (obs, k);

          g_string_append_printf (out, "%u,", i + 1);
          if (obs->question != 0)
            g_string_append_printf (out, "%" G_GUINT64_FORMAT, obs->question);
          g_string_append_printf (out, ",%s,%s,%c,", time, sb_log_kind_to_string (obs->kind),
                                  'a' + k);
          for (guint p = 0; p < obs->n_shown; p++)
            if (obs->shown_order[p] == k)
              g_string_append_printf (out, "%u", p + 1);
          g_string_append_c (out, ',');
          if (best >= 0)
            g_string_append_c (out, (guint) best == k ? '1' : '0');
          g_string_append_c (out, ',');
          for (guint r = 0; obs->kind == SB_LOG_RANKING && r < obs->n_options; r++)
            if (obs->ranking[r] == k)
              g_string_append_printf (out, "%u", r + 1);
          g_string_append_c (out, ',');
          if (obs->kind == SB_LOG_VALUE)
            sb_csv_number (out, obs->value);
          g_string_append_c (out, ',');
          if (obs->has_response_time)
            sb_csv_number (out, obs->response_time);
          g_string_append_c (out, ',');
          g_string_append (out, sg_confidence_name (obs->confidence));
          g_string_append_c (out, ',');
          if (obs->note)
            sb_csv_field (out, obs->note);
          for (guint j = 0; j < exp->n_parameters; j++)
            {
              g_string_append_c (out, ',');
              sb_csv_coordinate (out, &exp->parameters[j], x[j]);
            }
          if (exp->candidates != NULL)
            {
              /* the stimulus as the candidate set's CSV names it */
              gssize row = sb_experiment_candidate_index (exp, x);
              g_string_append_c (out, ',');
              if (row >= 0)
                sb_csv_field (out, exp->candidates->files[row]);
            }
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

gboolean
sb_session_export_csv (SbSession *self, GFile *file, GError **error)
{
  g_autofree char *csv = sb_session_to_csv (self);

  return g_file_replace_contents (file, csv, strlen (csv), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
