/* skewgp-study.c — `skewgp study`: a study with many participants
 * (core/sb-study.h): create it, add participants, set their status and
 * note, and edit a participant's history (remove, restore, note an
 * answer). Asking and telling go through `skewgp ask/tell --participant`
 * (skewgp-ask.c, skewgp-tell.c). */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-experiment.h"

#include "sb-session-history.h"
#include "sb-stimulus.h"

#include <stdio.h>
#include <string.h>

static const char study_help[] =
  "Usage: skewgp study new EXPERIMENT.json STUDY [--repeat-rate R] [--model M]\n"
  "       skewgp study add STUDY [--code CODE] [--note TEXT]\n"
  "       skewgp study set STUDY --participant CODE [--status S] [--note TEXT]\n"
  "       skewgp study remove|restore STUDY --participant CODE --answer N [--by NAME]\n"
  "       skewgp study note STUDY --participant CODE --answer N --note TEXT [--by NAME]\n\n"
  "A study runs one experiment with many participants. STUDY is a folder:\n"
  "  STUDY/study.json               the experiment, the repeat rate and the\n"
  "                                 roster (codes, status, notes)\n"
  "  STUDY/participants/CODE.json   one session per participant: an ordinary\n"
  "                                 session file, saved atomically after every\n"
  "                                 answer, with one writer at a time; it opens\n"
  "                                 in SkewBench like any session\n"
  "Participants are named by codes, never by names.\n\n"
  "new      creates STUDY (a new or empty folder) for the experiment in\n"
  "         EXPERIMENT.json (the document of skewgp new --help). --repeat-rate\n"
  "         R (0 to 0.5, default 0.1) is the share of questions that ask a\n"
  "         past duel again, a few questions later, with the options on the\n"
  "         other sides: how consistent each participant is (duel\n"
  "         experiments only; repeats count against the budget). Each\n"
  "         participant gets the experiment with a seed of their own (the\n"
  "         study's seed mixed with the code). --model M (study.json's\n"
  "         \"model\") is how questions are chosen:\n"
  "           hierarchical  (default) a participant's duels come from the\n"
  "                         model of everyone's answers: each person's\n"
  "                         utility is the population's plus a deviation\n"
  "                         of their own, so a new participant starts from\n"
  "                         what the others preferred. Once the study has\n"
  "                         the experiment's \"initial\" answers; before\n"
  "                         that, random duels. Duel experiments in\n"
  "                         preference mode with the \"skewgp\" surrogate\n"
  "                         and no candidate set only, asked by ucb, eiig,\n"
  "                         epi or thompson (an experiment that says or\n"
  "                         defaults to hb-ucb is asked by ucb: the\n"
  "                         believer needs one person's exact posterior);\n"
  "                         choice and ranking questions, mixed and safe\n"
  "                         mode, candidate sets, integer or categorical\n"
  "                         parameters, other surrogates and other duel\n"
  "                         rules are asked independently\n"
  "           independent   each participant's questions come from their\n"
  "                         own answers only (for comparison). A study.json\n"
  "                         without \"model\" (made before it existed) is\n"
  "                         independent, so it asks as it always did.\n"
  "         Either way skewgp status STUDY reports the population model.\n"
  "         Prints {\"study\": STUDY, \"repeat_rate\": R, \"model\": M,\n"
  "         \"acquisition\": the duel rule, \"budget\": N, \"parameters\":\n"
  "         [names]}.\n"
  "add      adds a participant and creates their session. --code CODE\n"
  "         chooses the code (1 to 32 letters, digits, '-' or '_'; unique\n"
  "         regardless of case); without it a code like \"P-7KQ3\" is made\n"
  "         (no 0, O, 1 or I). --note TEXT is the experimenter's note (kept\n"
  "         out of exports unless --with-notes). Prints {\"participant\":\n"
  "         CODE, \"session\": PATH}.\n"
  "set      changes a participant's --status (active, withdrawn: no more\n"
  "         questions, excluded: also left out of the population) or --note\n"
  "         (\"\" clears it).\n"
  "remove   takes answer N (1-based, as in the export's \"trial\") out of\n"
  "         what counts: it stays in the file, marked removed with the time\n"
  "         and --by NAME, never reaches the model and gives its question\n"
  "         back to the budget. restore lets it count again. note sets the\n"
  "         answer's note. Every change is recorded in the session's \"edits\".\n\n"
  "Then:\n"
  "  skewgp ask STUDY --participant CODE\n"
  "  skewgp tell STUDY --participant CODE ANSWER.json\n"
  "  skewgp status STUDY [--participant CODE]\n"
  "  skewgp export STUDY [--participant CODE] [--with-notes] [-o FILE]\n"
  "  skewgp export STUDY --model MODEL.json\n"
  "Exit status: 0 success, 2 bad input (a study or code that exists, a\n"
  "damaged file, another program writing the roster or the session).\n";

/* ---- skewgp study ---------------------------------------------------------- */

/* The arguments of `skewgp study SUBCOMMAND ...`: the study folder, the
 * experiment document of `new`, and the options (as GLib gives them). */
typedef struct {
  const char *study;
  const char *experiment;
  char *participant;   /* --participant CODE */
  char *code;          /* --code CODE        */
  char *note;          /* --note TEXT        */
  char *by;            /* --by NAME          */
  char *answer;        /* --answer N         */
  char *status;        /* --status NAME      */
  char *repeat_rate;   /* --repeat-rate R    */
  char *model;         /* --model NAME       */
} StudyArgs;

static void
study_args_clear (StudyArgs *args)
{
  char **texts[] = { &args->participant, &args->code, &args->note, &args->by,
                     &args->answer, &args->status, &args->repeat_rate, &args->model };
  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    g_clear_pointer (texts[i], g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (StudyArgs, study_args_clear)

static gboolean
study_new (const StudyArgs *args, GError **error)
{
  g_autoptr (JsonNode) doc = skewgp_read_document (args->experiment, error);
  g_autofree char *base_dir = g_str_equal (args->experiment, "-")
                                ? g_strdup (".") : g_path_get_dirname (args->experiment);
  g_autoptr (SbExperiment) exp = NULL;
  g_autoptr (SbStudy) study = NULL;
  double rate = 0.1;
  SbStudyModel model = SB_STUDY_MODEL_HIERARCHICAL;
  GError *err = NULL;

  if (doc == NULL || (exp = skewgp_parse_experiment (json_node_get_object (doc), base_dir, error)) == NULL)
    return FALSE;
  /* the participants' sessions live in the study's folder, not beside
   * the experiment's renderer */
  sb_stimulus_resolve_command (exp, base_dir);
  if (args->repeat_rate && !skewgp_option_double ("--repeat-rate", args->repeat_rate, &rate,
                                                  error))
    return FALSE;
  if (!(rate >= 0 && rate <= 0.5))
    return skewgp_input_error (error, "--repeat-rate must be from 0 to 0.5, not %g", rate);
  if (args->model && !sb_study_model_from_string (args->model, &model))
    return skewgp_input_error (error, "unknown --model '%s' (expected hierarchical or "
                               "independent)", args->model);
  study = sb_study_create_with_model (args->study, exp, rate, model, &err);
  if (study == NULL)
    return skewgp_forward_error (err, error);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "study", args->study);
  skewgp_add_double (b, "repeat_rate", rate);
  sb_json_add_string (b, "model", sb_study_model_to_string (model));
  sb_json_add_string (b, "acquisition",
                      sg_bo_acquisition_name (sb_study_get_experiment (study)->acquisition));
  sb_json_add_int (b, "budget", exp->budget);
  skewgp_add_parameter_names (b, exp);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

static gboolean
study_add (const StudyArgs *args, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (args->study, error);
  g_autofree char *path = NULL;
  const SbParticipant *p;
  GError *err = NULL;

  if (study == NULL)
    return FALSE;
  p = sb_study_add_participant (study, args->code, args->note, &err);
  if (p == NULL)
    return skewgp_forward_error (err, error);
  path = sb_study_participant_path (study, p->code);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "participant", p->code);
  sb_json_add_string (b, "session", path);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

static gboolean
study_set (const StudyArgs *args, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (args->study, error);
  SbParticipantStatus status;
  GError *err = NULL;

  if (study == NULL)
    return FALSE;
  if (args->status == NULL && args->note == NULL)
    return skewgp_input_error (error, "nothing to set: give --status and/or --note");
  if (args->status && !sb_participant_status_from_string (args->status, &status))
    return skewgp_input_error (error, "unknown status '%s' (expected active, withdrawn or "
                               "excluded)", args->status);
  if ((args->status && !sb_study_set_status (study, args->participant, status, &err))
      || (args->note && !sb_study_set_note (study, args->participant, args->note, &err)))
    return skewgp_forward_error (err, error);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  const SbParticipant *p = sb_study_find (study, args->participant);
  json_builder_begin_object (b);
  sb_json_add_string (b, "participant", p->code);
  sb_json_add_string (b, "status", sb_participant_status_to_string (p->status));
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

/* remove, restore, note: one edit of a participant's history, under the
 * session's write lock. */
static gboolean
study_edit (const char *action, const StudyArgs *args, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (args->study, error);
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autofree char *path = NULL;
  g_autofree char *program = g_strdup_printf ("skewgp study %s", action);
  long n;
  gboolean ok;
  GError *err = NULL;

  if (study == NULL)
    return FALSE;
  if (args->answer == NULL)
    return skewgp_input_error (error, "--answer N is needed (1-based, as the export's trial)");
  if (!skewgp_option_long ("--answer", args->answer, 1, G_MAXINT, &n, error))
    return FALSE;
  if (g_str_equal (action, "note") && args->note == NULL)
    return skewgp_input_error (error, "--note TEXT is needed (\"\" clears the note)");
  if (sb_study_find (study, args->participant) == NULL)
    return skewgp_input_error (error, "the study has no participant '%s'", args->participant);
  path = sb_study_participant_path (study, sb_study_find (study, args->participant)->code);
  lock = sb_session_lock_file (path, program, &err);
  if (lock == NULL || (session = sb_study_open_session (study, args->participant, &err)) == NULL)
    return skewgp_forward_error (err, error);
  if (g_str_equal (action, "remove"))
    ok = sb_session_remove_entry (session, (guint) n - 1, args->by, &err);
  else if (g_str_equal (action, "restore"))
    ok = sb_session_restore_entry (session, (guint) n - 1, args->by, &err);
  else
    ok = sb_session_set_entry_note (session, (guint) n - 1, args->note, args->by, &err);
  if (!ok)
    return skewgp_forward_error (err, error);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "participant", args->participant);
  sb_json_add_int (b, "answer", n);
  sb_json_add_bool (b, "removed",
                   sb_log_entry_is_removed (sb_session_get_observation (session, (guint) n - 1)));
  sb_json_add_int (b, "answers", sb_session_get_n_answers (session));
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

/* Parses `skewgp study SUB ...` with SUB's OPTIONS into ARGS: N_ARGS
 * arguments, SUB first (the study folder last). */
static gboolean
parse_study_args (const GOptionEntry *options, guint n_args, int argc, char **argv,
                  StudyArgs *args, GError **error)
{
  const SkewgpOptionSpec spec = { "study", options, NULL, NULL, n_args };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();

  if (!skewgp_parse_options (&spec, argc, argv, positional, error))
    return FALSE;
  if (positional->len == n_args)
    {
      args->study = positional->pdata[n_args - 1];
      args->experiment = n_args == 3 ? positional->pdata[1] : NULL;
    }
  return TRUE;
}

static int
study_argv (int argc, char **argv)
{
  const char *sub = argc > 0 ? argv[0] : "";
  g_auto (StudyArgs) args = { 0 };
  const GOptionEntry new_options[] = {
    { "repeat-rate", 0, 0, G_OPTION_ARG_FILENAME, &args.repeat_rate, NULL, NULL },
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &args.model, NULL, NULL },
    { NULL },
  };
  const GOptionEntry add_options[] = {
    { "code", 0, 0, G_OPTION_ARG_FILENAME, &args.code, NULL, NULL },
    { "note", 0, 0, G_OPTION_ARG_FILENAME, &args.note, NULL, NULL },
    { NULL },
  };
  const GOptionEntry set_options[] = {
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &args.participant, NULL, NULL },
    { "status", 0, 0, G_OPTION_ARG_FILENAME, &args.status, NULL, NULL },
    { "note", 0, 0, G_OPTION_ARG_FILENAME, &args.note, NULL, NULL },
    { NULL },
  };
  const GOptionEntry edit_options[] = {
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &args.participant, NULL, NULL },
    { "answer", 0, 0, G_OPTION_ARG_FILENAME, &args.answer, NULL, NULL },
    { "by", 0, 0, G_OPTION_ARG_FILENAME, &args.by, NULL, NULL },
    { "note", 0, 0, G_OPTION_ARG_FILENAME, &args.note, NULL, NULL },
    { NULL },
  };
  GError *error = NULL;

  if (g_str_equal (sub, "new"))
    {
      if (parse_study_args (new_options, 3, argc, argv, &args, &error) && args.study == NULL)
        skewgp_input_error (&error, "expected skewgp study new EXPERIMENT.json STUDY");
      if (error == NULL)
        study_new (&args, &error);
    }
  else if (g_str_equal (sub, "add"))
    {
      if (parse_study_args (add_options, 2, argc, argv, &args, &error) && args.study == NULL)
        skewgp_input_error (&error, "expected skewgp study add STUDY [--code CODE]");
      if (error == NULL)
        study_add (&args, &error);
    }
  else if (g_str_equal (sub, "set") || g_str_equal (sub, "remove")
           || g_str_equal (sub, "restore") || g_str_equal (sub, "note"))
    {
      const GOptionEntry *options = g_str_equal (sub, "set") ? set_options : edit_options;
      if (parse_study_args (options, 2, argc, argv, &args, &error)
          && (args.study == NULL || args.participant == NULL))
        skewgp_input_error (&error, "expected skewgp study %s STUDY --participant CODE ...", sub);
      else if (error == NULL && args.note && !g_str_equal (sub, "set")
               && !g_str_equal (sub, "note"))
        skewgp_input_error (&error, "--note belongs to skewgp study note and set");
      if (error == NULL)
        g_str_equal (sub, "set") ? study_set (&args, &error) : study_edit (sub, &args, &error);
    }
  else
    skewgp_input_error (&error, "expected new, add, set, remove, restore or note (see skewgp "
                        "study --help)");
  return skewgp_finish ("study", error);
}

const SkewgpCommand skewgp_command_study = {
  .name = "study", .summary = "a study with many participants: new, add, set, remove, ...",
  .help = study_help, .run_argv = study_argv,
};
