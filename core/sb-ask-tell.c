/* sb-ask-tell.c — ask for the next question, tell the answer, on the
 * session file (sb-ask-tell.h). */
#include "config.h"

#include "sb-ask-tell.h"
#include "sb-consistency.h"
#include "sb-experiment-templates.h"
#include "sb-jobs.h"
#include "sb-parameter-kinds.h"
#include "sb-recommend.h"
#include "sb-session.h"
#include "sb-test-points.h"

#include "sg-bo.h"
#include "sg-rng.h"

#include <math.h>
#include <string.h>


gboolean
sb_ask_tell_is_done (SbSession *session)
{
  return sb_session_get_n_answers (session) >= sb_session_get_experiment (session)->budget;
}

const SbQuestion *
sb_ask_tell_current (SbSession *session)
{
  const SbQuestion *q = sb_session_get_open_question (session);

  if (q == NULL || q->n_log != sb_session_get_n_observations (session))
    return NULL;
  return q;
}

/* ---- Opening -------------------------------------------------------------------- */

const SbQuestion *
sb_ask_tell_open (SbSession *session, SbQuestion *q, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);

  q->id = sb_session_get_questions_asked (session) + 1;
  q->created = g_get_real_time ();
  q->n_log = sb_session_get_n_observations (session);
  if (q->repeat_of == 0)
    sb_question_shuffle (q, exp->seed);
  if (!sb_session_set_open_question (session, q, error))
    return NULL;
  return sb_session_get_open_question (session);
}

void
sb_ask_tell_from_proposal (const SbProposal *proposal, SbQuestion *q)
{
  gsize size = proposal->dim * sizeof (double);

  memset (q, 0, sizeof *q);
  q->kind = proposal->kind;
  switch (proposal->kind)
    {
    case SB_QUESTION_DUEL:
      q->n_options = 2;
      memcpy (q->options[0], proposal->a, size);
      memcpy (q->options[1], proposal->b, size);
      break;
    case SB_QUESTION_VALUE:
      q->n_options = 1;
      memcpy (q->options[0], proposal->b, size);
      q->has_prob_safe = isfinite (proposal->prob_safe);
      q->prob_safe = q->has_prob_safe ? proposal->prob_safe : 0;
      break;
    default:
      q->n_options = proposal->n_options;
      for (guint i = 0; i < q->n_options; i++)
        memcpy (q->options[i], proposal->options[i], size);
      break;
    }
}

gboolean
sb_ask_tell_pick_repeat (SbSession *session, double repeat_rate, SbQuestion *q)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  g_autoptr (GPtrArray) log = NULL;
  const SbLogEntry *e;
  guint64 next_id;
  guint entry;

  if (!(repeat_rate > 0))
    return FALSE;
  log = sb_session_dup_observations (session);
  next_id = sb_session_get_questions_asked (session) + 1;
  if (!sb_consistency_pick_repeat (exp, log, exp->seed, next_id, repeat_rate, &entry))
    return FALSE;
  e = g_ptr_array_index (log, entry);
  memset (q, 0, sizeof *q);
  q->kind = SB_QUESTION_DUEL;
  q->n_options = 2;
  memcpy (q->options[0], e->b, e->dim * sizeof (double));
  memcpy (q->options[1], e->a, e->dim * sizeof (double));
  /* The old option k is the new option 1 - k: the same order numbers
   * put the other setting first. Unrecorded (the app showed a first):
   * the old b first now. */
  q->shown_order[0] = e->n_shown == 2 ? e->shown_order[0] : 0;
  q->shown_order[1] = 1 - q->shown_order[0];
  q->repeat_of = entry + 1;
  return TRUE;
}

/* ---- Asking ------------------------------------------------------------------- */

const SbQuestion *
sb_ask_tell_ask (SbSession *session, GError **error)
{
  return sb_ask_tell_ask_with_repeats (session, 0.0, error);
}

const SbQuestion *
sb_ask_tell_ask_with_repeats (SbSession *session, double repeat_rate, GError **error)
{
  return sb_ask_tell_ask_with_proposer (session, repeat_rate, NULL, NULL, NULL, error);
}

/* Q = PROPOSER's duel; *DECLINED when it leaves the question to the
 * session. */
static gboolean
pose_from_proposer (SbSession *session, SbAskProposer proposer, gpointer user_data,
                    SbQuestion *q, gboolean *declined, SbModelInfo *info, GError **error)
{
  *declined = FALSE;
  memset (q, 0, sizeof *q);
  if (!proposer (session, user_data, q->options[0], q->options[1], declined, info, error))
    return FALSE;
  q->kind = SB_QUESTION_DUEL;
  q->n_options = 2;
  return TRUE;
}

/* Q = the engine's proposal from SESSION's log, with the newest stored
 * fit (sb-stored-fit.h): never a refit in front of the question; in safe
 * mode SB_QUESTION_ERROR_SAFE_EXHAUSTED when nothing new is safe enough
 * to ask. */
static gboolean
pose_from_engine (SbSession *session, SbQuestion *q, SbModelInfo *info, GError **error)
{
  g_autoptr (SbProposal) proposal = NULL;
  SbJobInput *input;

  input = sb_job_input_new (session);
  proposal = sb_job_propose (NULL, input, error);
  if (proposal != NULL && proposal->safe_exhausted)
    {
      /* safe mode: nothing new is safe enough to ask */
      g_autofree char *why = sb_proposal_safe_statement (input->experiment, proposal);
      g_set_error_literal (error, SB_QUESTION_ERROR, SB_QUESTION_ERROR_SAFE_EXHAUSTED, why);
      g_clear_pointer (&proposal, sb_proposal_free);
    }
  sb_job_input_free (input);
  if (proposal == NULL)
    return FALSE;
  *info = proposal->model_info;
  sb_ask_tell_from_proposal (proposal, q);
  return TRUE;
}

gboolean
sb_ask_tell_model (SbSession *session, SbModelInfo *info, GError **error)
{
  SbJobInput *input = sb_job_input_new (session);
  gboolean ok = sb_job_input_model (input, info, error);

  sb_job_input_free (input);
  return ok;
}

const SbQuestion *
sb_ask_tell_ask_with_proposer (SbSession *session, double repeat_rate, SbAskProposer proposer,
                               gpointer user_data, SbModelInfo *info, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  const SbQuestion *current = sb_ask_tell_current (session);
  gboolean declined = TRUE;
  SbModelInfo local;
  SbQuestion q;

  if (info == NULL)
    info = &local;
  memset (info, 0, sizeof *info);
  if (current != NULL || sb_ask_tell_is_done (session)
      || sb_ask_tell_pick_repeat (session, repeat_rate, &q))
    {
      /* no model chose it: the one the session's questions use now */
      (void) sb_ask_tell_model (session, info, NULL);
      if (current != NULL)
        return current;
      if (!sb_ask_tell_is_done (session))
        return sb_ask_tell_open (session, &q, error);
      g_set_error (error, SB_QUESTION_ERROR, SB_QUESTION_ERROR_DONE,
                   "the budget of %u answers is used", exp->budget);
      return NULL;
    }
  if (proposer != NULL
      && !pose_from_proposer (session, proposer, user_data, &q, &declined, info, error))
    return NULL;
  if (declined)
    {
      char note[sizeof info->note];
      g_strlcpy (note, info->note, sizeof note);
      if (!pose_from_engine (session, &q, info, error))
        return NULL;
      g_strlcpy (info->note, note, sizeof info->note);
    }
  {
    g_autofree char *name = sb_model_info_name (info);
    g_autofree char *point = g_strconcat ("question-proposed: ", name, NULL);
    sb_test_point (point);
  }
  return sb_ask_tell_open (session, &q, error);
}

/* ---- Telling ------------------------------------------------------------------ */

/* ANSWER is for the open question, or ERROR says why not. */
static gboolean
check_question (SbSession *session, const SbAnswer *answer, GError **error)
{
  const SbQuestion *open = sb_session_get_open_question (session);
  guint64 asked = sb_session_get_questions_asked (session);
  guint64 id = answer->question;

  if (id > asked)
    return sb_question_fail (error, SB_QUESTION_ERROR_STALE,
                             "question %" G_GUINT64_FORMAT " was never asked (the last question "
                             "asked is %" G_GUINT64_FORMAT ")", id, asked);
  if (open == NULL || open->id != id)
    return sb_question_fail (error, SB_QUESTION_ERROR_STALE,
                             "question %" G_GUINT64_FORMAT " is not open: it was answered or "
                             "replaced (ask again for the open question)", id);
  if (sb_ask_tell_current (session) == NULL)
    return sb_question_fail (error, SB_QUESTION_ERROR_STALE,
                             "question %" G_GUINT64_FORMAT " is out of date: answers were added or "
                             "undone since it was asked (ask again)", id);
  return TRUE;
}

gboolean
sb_ask_tell_tell (SbSession *session, const SbAnswer *answer, GError **error)
{
  g_autoptr (SbLogEntry) entry = NULL;

  if (!check_question (session, answer, error))
    return FALSE;
  entry = sb_answer_to_entry (sb_session_get_experiment (session),
                              sb_session_get_open_question (session), answer, error);
  return entry != NULL && sb_session_add_entry (session, entry, error);
}

gboolean
sb_ask_tell_is_recorded (SbSession *session, const SbAnswer *answer)
{
  gssize i = sb_session_find_answer (session, answer->question);

  return i >= 0 && sb_answer_matches_entry (answer, sb_session_get_observation (session, i));
}

/* ---- Status --------------------------------------------------------------------- */

gboolean
sb_ask_tell_recommend (SbSession *session, SbRecommendation *out, GError **error)
{
  SbJobInput *input = sb_job_input_new (session);
  gboolean ok = sb_recommend_from_input (input, out, error);

  sb_job_input_free (input);
  return ok;
}

/* ---- Writers ---------------------------------------------------------------------- */

