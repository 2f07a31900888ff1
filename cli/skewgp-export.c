/* skewgp-export.c — `skewgp export`: a session's or a study's answers as
 * CSV, or a study's population model as JSON. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-json-write.h"
#include "sb-serve-store.h"

#include <stdio.h>

static const char export_help[] =
  "Usage: skewgp export SESSION.json [-o FILE] [--wide]\n"
  "       skewgp export STUDY [--participant CODE] [--with-notes] [-o FILE]\n"
  "       skewgp export STUDY --model MODEL.json|-\n"
  "       skewgp export STUDY --external-ids [-o FILE]\n\n"
  "Writes the session's answers as CSV to standard output (or FILE).\n"
  "Long format (default): one row per option shown, with the columns\n"
  "  index, question, time, kind (duel|tie|choice|ranking|value|failed|skip),\n"
  "  option (a|b|c...), position (1-based place it was shown in), chosen\n"
  "  (duels and choices: 1 or 0), rank (rankings: 1 = best), value,\n"
  "  response_time, confidence (weak|normal|strong, or the rating 1..k as\n"
  "  given), note, x_<parameter>...\n"
  "  and, with a candidate set, file (the option's stimulus, as the CSV\n"
  "  names it). A categorical parameter's value is its level's name.\n"
  "Option a is the current best the duel was asked against, b the\n"
  "candidate. --wide writes the app's layout instead: one row per answer,\n"
  "  index, time, kind, answer, value, a_<parameter>..., b_<parameter>...\n"
  "  (and c_, d_, ... when the experiment shows more options),\n"
  "  question, shown_order, response_time, confidence, note\n"
  "Numbers are written as typed: the shortest form that reads back to the\n"
  "same number (46.8, not 46.799999999999997). Answers the experimenter\n"
  "removed are left out.\n\n"
  "A study folder (skewgp study --help) is exported for analysis in long\n"
  "format, every participant (or only --participant CODE), one row per\n"
  "option of every answer:\n"
  "  study            the study folder's name\n"
  "  participant      the participant's code\n"
  "  question         the ask/tell question id (empty for the app's)\n"
  "  trial            the answer's number in the participant's log (1, 2, ...)\n"
  "  kind             duel, tie, choice, ranking, value, failed or skip\n"
  "  option           the option's index (0, 1, ...; 0 is the current best a\n"
  "                   duel was asked against), as \"chosen\" in tell\n"
  "  <parameter>...   the option's setting, one column per parameter, named\n"
  "                   as the window names it (x_NAME when the name is one of\n"
  "                   these columns), in the parameter's units\n"
  "  shown_position   1-based place the option was shown in (empty: unknown)\n"
  "  answer           1 for the option preferred, 0 for the others (empty\n"
  "                   for ties, values, failed settings, skips)\n"
  "  tie              1 for a tie's rows, 0 for other preference rows\n"
  "  rank             rankings: 1 (best) .. k\n"
  "  value            value questions: the measured value\n"
  "  confidence       as given: weak, normal, strong, a rating's number\n"
  "                   (1 .. k, the experiment's confidence scale) or empty\n"
  "  response_time    seconds, or empty\n"
  "  time             ISO 8601 UTC\n"
  "Notes are personal: they are left out unless --with-notes adds the\n"
  "columns note (the answer's) and participant_note.\n\n"
  "--external-ids writes the key file of an online study (skewgp serve\n"
  "--help) instead: code, external_id, joined, consent_time,\n"
  "consent_sha256, one row per participant who joined online. It links the\n"
  "pseudonymous codes to identities (Prolific PIDs): keep it apart from the\n"
  "answers.\n\n"
  "--model MODEL.json writes the study's fitted population model instead of\n"
  "the CSV ('-': standard output): {\"format\": \"skewbench-population-model\",\n"
  "\"version\": 1, \"study\", \"title\", \"model\", \"parameters\", \"answers\",\n"
  "\"candidates\", \"hyperparameters\", \"population\": {\"best\", \"mean\",\n"
  "\"interval\"}, \"participants\": [{\"code\", \"answers\", \"best\", \"mean\",\n"
  "\"prob_best_differs\", \"se\"}, ...]} (the fields of skewgp status STUDY).\n"
  "Exit status: 0 success, 2 bad input.\n";

static gboolean
write_csv (const char *csv, const char *output, GError **error)
{
  g_autoptr (GError) err = NULL;

  if (output == NULL || g_str_equal (output, "-"))
    {
      fputs (csv, stdout);
      fflush (stdout);
      return TRUE;
    }
  if (!g_file_set_contents (output, csv, -1, &err))
    return skewgp_input_error (error, "%s", err->message);
  return TRUE;
}

static gboolean
run_export (const char *path, const char *output, gboolean wide, GError **error)
{
  g_autoptr (SbSession) session = skewgp_load_session (path, error);
  g_autofree char *csv = NULL;

  if (session == NULL)
    return FALSE;
  csv = wide ? sb_session_to_csv (session) : sb_session_to_csv_long (session);
  return write_csv (csv, output, error);
}

/* The population model's JSON to OUTPUT ('-': standard output). */
static gboolean
export_model (SbStudy *study, const char *output, GError **error)
{
  g_autoptr (SbPopulationResult) model = skewgp_population_model (study, error);
  g_autoptr (JsonNode) doc = NULL;
  g_autofree char *text = NULL;

  if (model == NULL)
    return FALSE;
  doc = sb_population_result_to_json (sb_study_get_experiment (study),
                                      sb_study_get_name (study), model);
  text = sb_json_write (doc, TRUE, NULL);
  return write_csv (text, output, error);
}

/* The options of `skewgp export`. */
typedef struct {
  char *output;        /* -o, --output FILE */
  gboolean wide;       /* --wide            */
  char *participant;   /* --participant CODE */
  gboolean with_notes; /* --with-notes      */
  char *model;         /* --model FILE      */
  gboolean external_ids; /* --external-ids  */
} ExportOptions;

static void
export_options_clear (ExportOptions *o)
{
  g_clear_pointer (&o->output, g_free);
  g_clear_pointer (&o->participant, g_free);
  g_clear_pointer (&o->model, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ExportOptions, export_options_clear)

static gboolean
run_export_study (const char *dir, const ExportOptions *args, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (dir, error);
  g_autofree char *csv = NULL;
  GError *err = NULL;

  if (study == NULL)
    return FALSE;
  if (args->model != NULL)
    {
      if (args->participant || args->with_notes || args->wide || args->output)
        return skewgp_input_error (error, "--model writes the population model alone: leave "
                                   "out --participant, --with-notes, --wide and -o");
      return export_model (study, args->model, error);
    }
  if (args->external_ids)
    {
      g_autoptr (SbServeAccess) access = NULL;
      g_autofree char *keys = NULL;
      if (args->participant || args->with_notes || args->wide)
        return skewgp_input_error (error, "--external-ids writes the key file alone: leave out "
                                   "--participant, --with-notes and --wide");
      access = sb_serve_access_load (sb_study_get_dir (study), &err);
      if (access == NULL)
        return skewgp_forward_error (err, error);
      keys = sb_serve_access_to_csv (access);
      return write_csv (keys, args->output, error);
    }
  if (args->wide)
    return skewgp_input_error (error, "--wide is the layout of one session; a study is "
                               "exported in long format");
  csv = sb_study_to_csv (study, args->participant, args->with_notes, &err);
  if (csv == NULL)
    return skewgp_forward_error (err, error);
  return write_csv (csv, args->output, error);
}

static int
export_argv (int argc, char **argv)
{
  g_auto (ExportOptions) args = { 0 };
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args.output, NULL, NULL },
    { "wide", 0, 0, G_OPTION_ARG_NONE, &args.wide, NULL, NULL },
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &args.participant, NULL, NULL },
    { "with-notes", 0, 0, G_OPTION_ARG_NONE, &args.with_notes, NULL, NULL },
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &args.model, NULL, NULL },
    { "external-ids", 0, 0, G_OPTION_ARG_NONE, &args.external_ids, NULL, NULL },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "export", entries, NULL, NULL, 1 };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  GError *error = NULL;

  if (skewgp_parse_options (&spec, argc, argv, positional, &error) && positional->len != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY (see skewgp export --help)");
  if (error == NULL && skewgp_is_study (positional->pdata[0]))
    run_export_study (positional->pdata[0], &args, &error);
  else if (error == NULL
           && (args.participant || args.with_notes || args.model || args.external_ids))
    skewgp_input_error (&error, "--participant, --with-notes, --model and --external-ids "
                        "apply to a study folder, and '%s' is not one", (const char *) positional->pdata[0]);
  else if (error == NULL)
    run_export (positional->pdata[0], args.output, args.wide, &error);
  return skewgp_finish ("export", error);
}

const SkewgpCommand skewgp_command_export = {
  .name = "export", .summary = "write a session's answers as CSV",
  .help = export_help, .run_argv = export_argv,
};
