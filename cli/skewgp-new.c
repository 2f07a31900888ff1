/* skewgp-new.c — `skewgp new`: a session file for an experiment, the
 * file that ask and tell (and the app) work on. */
#include "config.h"

#include "skewgp-acquisitions.h"
#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-experiment.h"

#include "sb-experiment-check.h"

#include <glib/gstdio.h>

static const char new_help[] =
  "Usage: skewgp new EXPERIMENT.json SESSION.json\n\n"
  "Creates the session file SESSION.json for the experiment described in\n"
  "EXPERIMENT.json ('-' reads it from standard input). An existing file is\n"
  "never overwritten. Prints {\"session\": PATH, \"mode\", \"acquisition\" (the\n"
  "duel rule; not in safe mode), \"budget\", \"parameters\": [names]}.\n\n"
  "EXPERIMENT.json:\n"
  "  {\"title\": \"Display tuning\",\n"
  "   \"mode\": \"preference\" | \"mixed\" | \"safe\",\n"
  "   \"parameters\": [{\"name\": \"gamma\", \"lower\": 1.8, \"upper\": 2.6,\n"
  "                   \"unit\": \"\", \"scale\": \"linear\"}, ...],\n"
  "   \"budget\": 25,\n"
  "   \"question\": {\"kind\": \"duel\", \"ties\": true},\n"
  "   \"seed\": 7}\n"
  "Required: title, mode, parameters (1 to 32, names unique, lower < upper),\n"
  "budget (answers planned, 1 to 100000). \"unit\" is optional. \"resolution\"\n"
  "is optional: the smallest difference the setting can be measured or set\n"
  "to; no question asks a setting again that is within it of one already\n"
  "answered (default 0: none). \"seed\" (default 1) makes the questions and\n"
  "the order the options are shown in reproducible.\n\n"
  "\"scale\" (optional) says what a parameter's values are:\n"
  "  \"linear\"       a real interval (the default)\n"
  "  \"log\"          positive, 0 < lower < upper; modelled in log space (a\n"
  "                 factor of 2 counts the same anywhere in the range),\n"
  "                 asked and printed in natural units\n"
  "  \"integer\"      whole numbers; lower and upper must be whole\n"
  "  \"periodic\"     the range is one period (a hue: 0 to 360): lower and\n"
  "                 upper are the same setting and the model wraps around\n"
  "  \"categorical\"  named levels without order, e.g.\n"
  "                 {\"name\": \"font\", \"scale\": \"categorical\",\n"
  "                  \"levels\": [\"serif\", \"sans\", \"mono\"]};\n"
  "                 \"lower\"/\"upper\" may be left out (they are 0 and n - 1,\n"
  "                 the session file stores a level's index) and no\n"
  "                 \"resolution\" is taken. Every pair of levels is\n"
  "                 modelled as equally alike (an exchangeable kernel).\n"
  "ask and status print a setting's integer values as whole numbers and a\n"
  "categorical value as its level's name, e.g. [0.25, 3, \"sans\"].\n\n"
  "\"question\" (optional; default: duels without ties) is what each\n"
  "preference question asks:\n"
  "  {\"kind\": \"duel\", \"ties\": b}        two options; with \"ties\": true,\n"
  "                                     \"about the same\" is an answer\n"
  "  {\"kind\": \"choice\", \"options\": k}   the best of k options (k = 3 to 6)\n"
  "  {\"kind\": \"ranking\", \"options\": k}  all k options in order, best first\n"
  "Choices, rankings and ties are modelled exactly by the \"skewgp\"\n"
  "surrogate only: other combinations are refused, naming what cannot\n"
  "serve them.\n\n"
  "Safe mode asks for the measured value of one setting at a time, chosen\n"
  "by the SafeOpt rule: it needs \"threshold\" and \"safe_start\", and\n"
  "refuses \"question\", \"acquisition\" and \"initial\" (duels, their\n"
  "acquisitions and random initial settings have no place in it) and the\n"
  "\"random\" surrogate, each naming the field.\n\n"
  "Optional settings:\n"
  "  \"initial\": n          random initial questions before the model is used\n"
  "                        (default 2)\n"
  "  \"acquisition\": name   how duels are chosen (default \"hb-ucb\" for\n"
  "                        preference-mode duels of up to 4 parameters\n"
  "                        with the \"skewgp\" surrogate, \"ucb\" for the\n"
  "                        others; choices and\n"
  "                        rankings are always chosen by qeubo; a\n"
  "                        hierarchical study's population model asks by\n"
  "                        ucb where the experiment says hb-ucb). qeubo,\n"
  "                        hb-ei, hb-ucb and dts need preference mode,\n"
  "                        hb-ei and hb-ucb the \"skewgp\" surrogate. Names:\n"
  SKEWGP_ACQUISITIONS_HELP
  "  \"surrogate\": name     the model: \"skewgp\" (exact, default), \"laplace\",\n"
  "                        \"ep\", \"random\" (the baseline), \"two-gp\" (safe\n"
  "                        mode) or \"svgp\" (preference mode)\n"
  "  \"numeric_every\": k    mixed mode: every k-th question after the initial\n"
  "                        design asks for a measured value (default 4)\n"
  "  \"threshold\": h        safe mode (required): a setting is safe when its\n"
  "                        value is >= h; a failed setting counts as below.\n"
  "                        Mixed mode: the failure level, a failed setting's\n"
  "                        utility is below h (default 0)\n"
  "  \"confidence_level\": p safe mode: the confidence level (default 0.95, at\n"
  "                        least 0.5, below 1). A setting is asked only when\n"
  "                        the model gives it a probability of being safe of\n"
  "                        at least p, the safe set grows by steps from\n"
  "                        settings measured safe, and no setting is asked\n"
  "                        again within its resolution or next to a failure\n"
  "                        (SafeOpt on the exact model; README, \"Safe mode\")\n"
  "  \"question_text\": s   the question's wording, shown by the app, carried\n"
  "                        by ask and served to the web page (default\n"
  "                        \"Which setting works better?\"; at most 500\n"
  "                        bytes)\n"
  "  \"confidence_scale\": {\"kind\": \"words\"} | {\"kind\": \"rating\", \"levels\": k}\n"
  "                        how people give their confidence in an answer:\n"
  "                        \"weak\", \"normal\", \"strong\" (the default), or a\n"
  "                        rating 1 .. k (k = 2 to 7, 1 the least sure).\n"
  "                        The confidence scales the answer's noise: rating\n"
  "                        1 as \"weak\", k as \"strong\", the middle of an\n"
  "                        odd scale as \"normal\", equal steps of log(sd)\n"
  "                        between (a 3-level rating is the three words)\n"
  "  \"safe_start\": [x...]  safe mode (required): a setting known to be safe,\n"
  "                        asked first; the safe set grows from it\n"
  "  \"candidates\": {\"csv\": \"faces.csv\", \"file_column\": \"file\",\n"
  "                  \"folder\": \"faces/\"}\n"
  "                        a fixed set of stimuli (images, sounds) to choose\n"
  "                        among: every question shows rows of the CSV only.\n"
  "                        Its first line names the columns: FILE_COLUMN\n"
  "                        (default \"file\") the stimulus file, inside\n"
  "                        FOLDER (default: the CSV's folder), and one\n"
  "                        column per parameter, named like it, with the\n"
  "                        stimulus' value (other columns are ignored).\n"
  "                        CSV and FOLDER are relative to EXPERIMENT.json's\n"
  "                        folder (the session's, in a session file). A\n"
  "                        parameter may then leave out \"lower\" and\n"
  "                        \"upper\": its range is the column's smallest and\n"
  "                        largest value. Refused: a missing CSV, column or\n"
  "                        stimulus file, a cell that is not a number (line\n"
  "                        and column named), a value outside its range, two\n"
  "                        rows with the same values, fewer rows than options.\n"
  "                        Without a \"stimulus\", the app shows each option's\n"
  "                        file when every file is an image or a sound (as\n"
  "                        {\"kind\": \"file\"} below).\n\n"
  "  \"stimulus\": {...}     what the app shows for each option (the numbers\n"
  "                        alone when absent):\n"
  "      {\"kind\": \"image\", \"command\": \"render-face --width {width}\n"
  "       --smile {smile} -o {output}\", \"extension\": \"png\", \"timeout\": 10}\n"
  "        an image file (PNG, JPEG, SVG) the command writes to {output};\n"
  "      {\"kind\": \"sound\", \"command\": ..., \"extension\": \"wav\"}\n"
  "        a sound file, played in the app (each must be heard before\n"
  "        answering);\n"
  "      {\"kind\": \"text\", \"text\": \"Font size {size} pt\"}\n"
  "      {\"kind\": \"file\"}  the option's file in the candidate set: an image\n"
  "        (.png, .jpg, .jpeg, .svg) or a sound (.wav, .ogg, .oga, .flac, .mp3,\n"
  "        heard before answering), by its extension; needs \"candidates\"\n"
  "      {\"kind\": \"colour\"}  the first three parameters as OKLCH: lightness\n"
  "        (% or 0..1), chroma, hue in degrees; colours outside sRGB are shown\n"
  "        with reduced chroma, marked as mapped\n"
  "    Placeholders are parameter names in braces and {output}; \"{{\" and \"}}\"\n"
  "    are literal braces. An unknown placeholder is refused. The command is\n"
  "    split into arguments like a shell does (no pipes, no variables), runs\n"
  "    in the session file's folder, and is stopped after \"timeout\" seconds\n"
  "    (default 10). \"text\" is also an optional caption of an image or sound.\n\n"
  "Then: skewgp ask SESSION.json, skewgp tell SESSION.json ANSWER.json, ...\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input (or the session\n"
  "exists, or another program is writing it).\n";

/* Safe mode's document: the threshold is given, the safe set grows from
 * a safe start, and nothing of preference questions or random settings
 * is asked for (safe mode asks one setting's measured value at a time,
 * chosen by the SafeOpt rule at 'confidence_level'). */
static gboolean
check_safe_document (JsonObject *obj, const SbExperiment *exp, GError **error)
{
  static const struct { const char *field; const char *why; } unused[] = {
    { "question", "safe mode asks for the measured value of one setting, never a duel, choice "
                  "or ranking" },
    { "acquisition", "safe mode chooses its settings by the SafeOpt rule (expanders and "
                     "maximisers at 'confidence_level'), not by a duel acquisition" },
    { "initial", "safe mode asks no random settings: it starts at 'safe_start'" },
  };
  GError *err = NULL;

  if (exp->mode != SB_MODE_SAFE)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (unused); i++)
    if (json_object_has_member (obj, unused[i].field))
      return skewgp_input_error (error, "'%s': %s; leave '%s' out", unused[i].field,
                                 unused[i].why, unused[i].field);
  if (!json_object_has_member (obj, "threshold"))
    return skewgp_input_error (error, "safe mode needs 'threshold': the value a setting must "
                               "reach to be safe");
  if (!sb_experiment_check_safe_new (exp, &err))
    return skewgp_forward_error (err, error);
  return TRUE;
}

static gboolean
run_new (const char *experiment_path, const char *session_path, GError **error)
{
  g_autoptr (JsonNode) doc = skewgp_read_document (experiment_path, error);
  g_autoptr (SbExperiment) exp = NULL;
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GFile) file = NULL;
  GStatBuf st;
  GError *err = NULL;

  /* the candidate set's paths are relative to the experiment file (to
   * the working directory when it comes from standard input) */
  g_autofree char *base_dir = g_str_equal (experiment_path, "-")
                                ? g_strdup (".") : g_path_get_dirname (experiment_path);
  if (doc == NULL
      || (exp = skewgp_parse_experiment (json_node_get_object (doc), base_dir, error)) == NULL
      || !check_safe_document (json_node_get_object (doc), exp, error))
    return FALSE;
  lock = skewgp_lock_session (session_path, "skewgp new", error);
  if (lock == NULL)
    return FALSE;
  /* Checked under the lock: no other writer creates it meanwhile. A
   * dangling symbolic link counts as existing too. */
  if (g_lstat (session_path, &st) == 0)
    return skewgp_input_error (error, "'%s' exists already; choose another file name "
                               "(an existing session is never overwritten)", session_path);
  session = sb_session_new (exp);
  file = g_file_new_for_commandline_arg (session_path);
  if (!sb_session_save_as (session, file, &err))
    return skewgp_forward_error (err, error);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  sb_json_add_string (b, "session", session_path);
  sb_json_add_string (b, "mode", sb_mode_to_string (exp->mode));
  /* the duel rule, named or the measured default, as the session has it */
  if (exp->mode != SB_MODE_SAFE)
    sb_json_add_string (b, "acquisition", sg_bo_acquisition_name (exp->acquisition));
  sb_json_add_int (b, "budget", exp->budget);
  skewgp_add_parameter_names (b, exp);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

static int
new_argv (int argc, char **argv)
{
  const GOptionEntry entries[] = { { NULL } };
  const SkewgpOptionSpec spec = { "new", entries, NULL, NULL, G_MAXUINT };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  GError *error = NULL;

  if (skewgp_parse_options (&spec, argc, argv, positional, &error) && positional->len != 2)
    skewgp_input_error (&error, "expected EXPERIMENT.json SESSION.json (see skewgp new --help)");
  else if (error == NULL && g_str_equal (positional->pdata[1], "-"))
    skewgp_input_error (&error, "SESSION.json must be a file name, not '-'");
  if (error == NULL)
    run_new (positional->pdata[0], positional->pdata[1], &error);
  return skewgp_finish ("new", error);
}

const SkewgpCommand skewgp_command_new = {
  .name = "new", .summary = "create a session file for an experiment (ask/tell)",
  .help = new_help, .run_argv = new_argv,
};
