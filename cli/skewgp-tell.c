/* skewgp-tell.c — `skewgp tell`: the answer to a session's open question
 * recorded (core/sb-ask-tell.h). */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-ask-tell.h"
#include "sb-question-json.h"

static const char tell_help[] =
  "Usage: skewgp tell SESSION.json ANSWER.json|-\n"
  "       skewgp tell STUDY --participant CODE ANSWER.json|-\n\n"
  "Records the answer to the open question:\n"
  "  {\"question\": ID,\n"
  "   \"answer\": {\"chosen\": i}        duels and choices: i indexes \"options\"\n"
  "           | {\"tie\": true}         duels, when the experiment allows ties:\n"
  "                                 \"about the same\"\n"
  "           | {\"ranking\": [i, ...]} rankings: every option's index once,\n"
  "                                 best first\n"
  "           | {\"value\": y}         value questions: the measured value\n"
  "           | {\"failed\": true},    value questions: the setting failed\n"
  "   \"response_time\": seconds,     optional, >= 0\n"
  "   \"confidence\": c}              optional, duels and choices, on the\n"
  "                                 experiment's confidence scale (skewgp\n"
  "                                 ask prints it as \"confidence_scale\"):\n"
  "                                 \"weak\", \"normal\" or \"strong\" by\n"
  "                                 default, a whole number 1 .. k for a\n"
  "                                 rating of k levels (e.g. 3 on 1-5);\n"
  "                                 the other form is refused, naming the\n"
  "                                 scale\n"
  "A failed setting is modelled as below the experiment's \"threshold\": the\n"
  "safety threshold in safe mode, the failure level in mixed mode (a\n"
  "measurement censored below it). An answer the question does not ask for (a\n"
  "tie where ties are not allowed, a ranking of a choice question, ...) is\n"
  "refused, saying how to answer.\n"
  "An answer to a question that is not open (answered already, never asked,\n"
  "or out of date because the log changed since) is refused and changes\n"
  "nothing. Prints {\"recorded\": ID, \"answers\": n, \"budget\": N,\n"
  "\"done\": bool}.\n"
  "Exit status: 0 success, 2 bad or stale answer (or another program is\n"
  "writing the session).\n";

static gboolean
run_tell (const char *path, const char *answer_path, GError **error)
{
  g_autoptr (JsonNode) doc = skewgp_read_document (answer_path, error);
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = NULL;
  SbAnswer answer;
  GError *err = NULL;

  if (doc == NULL)
    return FALSE;
  if (!sb_answer_from_json (doc, &answer, &err))
    return skewgp_forward_error (err, error);
  lock = skewgp_lock_and_read_session (path, "skewgp tell", &session, error);
  if (lock == NULL)
    return FALSE;
  if (!sb_ask_tell_tell (session, &answer, &err))
    return skewgp_forward_error (err, error);

  g_autoptr (JsonNode) reply = sb_question_recorded_to_json (session, answer.question);
  skewgp_print_json (reply);
  return TRUE;
}

static int
tell_argv (int argc, char **argv)
{
  g_autofree char *participant = NULL;
  const GOptionEntry entries[] = {
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &participant, NULL, NULL },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "tell", entries, NULL, NULL, 2 };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  g_autofree char *path = NULL;
  double rate;
  GError *error = NULL;

  if (skewgp_parse_options (&spec, argc, argv, positional, &error) && positional->len != 2)
    skewgp_input_error (&error, "expected SESSION.json ANSWER.json|- (see skewgp tell --help)");
  if (error == NULL
      && skewgp_resolve_target ("tell", positional->pdata[0], participant, &path, &rate, NULL,
                                &error))
    run_tell (path, positional->pdata[1], &error);
  return skewgp_finish ("tell", error);
}

const SkewgpCommand skewgp_command_tell = {
  .name = "tell", .summary = "record the answer to the open question (ask/tell)",
  .help = tell_help, .run_argv = tell_argv,
};
