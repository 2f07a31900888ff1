/* skewgp-ask.c — `skewgp ask`: the open question of a session (or of a
 * study's participant), proposing and storing a new one when none is
 * open (core/sb-ask-tell.h). */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-ask-tell.h"
#include "sb-candidates.h"
#include "sb-population.h"
#include "sb-question-json.h"
#include "sb-setting.h"

static const char ask_help[] =
  "Usage: skewgp ask SESSION.json\n"
  "       skewgp ask STUDY --participant CODE\n\n"
  "Prints the open question of the session, proposing and storing a new one\n"
  "when none is open (the same question again until it is answered):\n"
  "  {\"question\": ID, \"kind\": \"duel\" | \"choice\" | \"ranking\" | \"value\",\n"
  "   \"options\": [[x...], ...], \"shown_order\": [i, ...],\n"
  "   \"question_text\": \"Which setting works better?\",\n"
  "   \"confidence_scale\": {\"kind\": \"words\"}}\n"
  "\"question_text\" is the wording to show (the experiment's, or the\n"
  "default above; a value question's is \"Try this setting. Enter the value\n"
  "you measured, or report that it failed.\"); \"confidence_scale\" how\n"
  "tell takes a confidence:\n"
  "{\"kind\": \"words\"} (\"weak\", \"normal\", \"strong\") or {\"kind\":\n"
  "\"rating\", \"levels\": k} (a whole number 1 .. k, 1 the least sure).\n"
  "Each option is a setting in natural units: whole numbers for integer\n"
  "parameters, the level's name (a string) for categorical ones.\n"
  "A duel has two options: option 0 is the current best, option 1 the new\n"
  "candidate. A choice or ranking question has k options (the experiment's\n"
  "\"options\"): the engine's duel (the current best and the candidate)\n"
  "followed by k - 2 settings spread over the box, each the farthest from the\n"
  "options before it of 64 random draws (the app's rule for these questions).\n"
  "Present the options in \"shown_order\" (e.g. [1, 0]: option 1 first), a\n"
  "random order that puts the current best in any place. A value question\n"
  "(mixed and safe mode) has one option: the setting to measure; in safe\n"
  "mode \"prob_safe\" is the model's probability that it measures at or\n"
  "above the threshold (absent for the safe start, which no model chose).\n"
  "With a candidate set (skewgp new --help) every option is a row of its CSV\n"
  "and \"files\": [path, ...] gives each option's stimulus file, in the order\n"
  "of \"options\" (paths as the session's folder and the CSV name them).\n"
  "When the budget is used: {\"done\": true, \"answers\": n, \"budget\": N}.\n"
  "In safe mode, when no new setting is safe enough to ask (skewgp new\n"
  "--help, \"confidence_level\"): {\"done\": true, \"safe_exhausted\": true,\n"
  "\"reason\": \"Best safe setting found: ...\", \"answers\": n, \"budget\": N};\n"
  "an undo or a changed answer may make a setting safe again.\n"
  "With --participant CODE the session is the participant's in the study\n"
  "folder STUDY (skewgp study --help), and at the study's repeat rate a\n"
  "question may be a duel the participant answered a few questions ago,\n"
  "asked again with its options swapped (option 0 is the old option 1) and\n"
  "shown on the other sides. A withdrawn or excluded participant is asked\n"
  "nothing. In a study whose model is \"hierarchical\" (skewgp study --help)\n"
  "a duel comes from the model of everyone's answers: option 0 is the\n"
  "participant's incumbent by that model (before their first answer, the\n"
  "population's best guess), option 1 the setting the acquisition\n"
  "prefers for them. Choice and ranking questions, mixed and safe mode\n"
  "and candidate sets are asked from the participant's own answers.\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input (or another\n"
  "program is writing the session and a new question must be stored).\n";

static void
print_question (const SbQuestion *q, const SbExperiment *exp)
{
  g_autoptr (JsonNode) doc = sb_question_to_json (q, exp);

  skewgp_print_json (doc);
}

static void
print_done (SbSession *session)
{
  g_autoptr (JsonNode) doc = sb_question_progress_to_json (session);

  skewgp_print_json (doc);
}

/* Safe mode with no new setting safe enough to ask: done, and why. */
static void
print_safe_exhausted (SbSession *session, const char *reason)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_int (b, "answers", sb_session_get_n_answers (session));
  sb_json_add_int (b, "budget", sb_session_get_experiment (session)->budget);
  sb_json_add_bool (b, "done", TRUE);
  sb_json_add_bool (b, "safe_exhausted", TRUE);
  sb_json_add_string (b, "reason", reason);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

/* Prints what a reader can answer without writing: TRUE when done or a
 * question is open. */
static gboolean
print_if_settled (SbSession *session)
{
  const SbQuestion *q = sb_ask_tell_current (session);

  if (q != NULL)
    print_question (q, sb_session_get_experiment (session));
  else if (sb_ask_tell_is_done (session))
    print_done (session);
  return q != NULL || sb_ask_tell_is_done (session);
}

/* STUDY and CODE: a participant of a study (questions as the study's
 * model says, sb_population_ask); NULL: a lone session. */
static gboolean
run_ask (const char *path, double repeat_rate, SbStudy *study, const char *code,
         GError **error)
{
  g_autoptr (SbSession) session = skewgp_load_session (path, error);
  g_autoptr (SbFileLock) lock = NULL;
  const SbQuestion *q;
  GError *err = NULL;

  /* Reading needs no lock: asking again for the open question works while
   * another program writes the session. */
  if (session == NULL)
    return FALSE;
  if (print_if_settled (session))
    return TRUE;
  /* Read again under the lock: another writer may have asked meanwhile. */
  lock = skewgp_lock_and_read_session (path, "skewgp ask", &session, error);
  if (lock == NULL)
    return FALSE;
  if (print_if_settled (session))
    return TRUE;
  q = study ? sb_population_ask (study, code, session, NULL, &err)
            : sb_ask_tell_ask_with_repeats (session, repeat_rate, &err);
  if (q == NULL && g_error_matches (err, SB_QUESTION_ERROR, SB_QUESTION_ERROR_SAFE_EXHAUSTED))
    {
      print_safe_exhausted (session, err->message);
      g_error_free (err);
      return TRUE;
    }
  if (q == NULL)
    return skewgp_forward_error (err, error);
  print_question (q, sb_session_get_experiment (session));
  return TRUE;
}

static int
ask_argv (int argc, char **argv)
{
  g_autofree char *participant = NULL;
  const GOptionEntry entries[] = {
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &participant, NULL, NULL },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "ask", entries, NULL, NULL, 1 };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  g_autoptr (SbStudy) study = NULL;
  g_autofree char *path = NULL;
  double rate = 0;
  GError *error = NULL;

  if (skewgp_parse_options (&spec, argc, argv, positional, &error) && positional->len != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY --participant CODE (see skewgp "
                        "ask --help)");
  if (error == NULL
      && skewgp_resolve_target ("ask", positional->pdata[0], participant, &path, &rate, &study,
                                &error))
    {
      const SbParticipant *p = study ? sb_study_find (study, participant) : NULL;
      if (p != NULL && p->status != SB_PARTICIPANT_ACTIVE)
        skewgp_input_error (&error, "participant '%s' is %s: no more questions (skewgp study "
                            "set --status active reopens)", p->code,
                            sb_participant_status_to_string (p->status));
      else
        run_ask (path, rate, study, p ? p->code : NULL, &error);
    }
  return skewgp_finish ("ask", error);
}

const SkewgpCommand skewgp_command_ask = {
  .name = "ask", .summary = "print the session's open question (ask/tell)",
  .help = ask_help, .run_argv = ask_argv,
};
