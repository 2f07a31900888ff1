/* skewgp-study.c — `skewgp new`, `ask`, `tell`, `status` and `export`:
 * a study run by any lab script on a session file (core/sb-ask-tell.h),
 * the same file the app opens. */
#include "config.h"

#include "skewgp-acquisitions.h"
#include "skewgp-cli.h"
#include "skewgp-commands.h"
#include "skewgp-study.h"

#include "sb-ask-tell.h"
#include "sb-question-json.h"
#include "sb-serve-store.h"
#include "sb-setting.h"
#include "sb-candidates.h"
#include "sb-consistency.h"
#include "sb-experiment-templates.h"
#include "sb-engine-job.h"
#include "sb-parameter-kinds.h"
#include "sb-json-write.h"
#include "sb-population.h"
#include "sb-session.h"
#include "sb-stimulus.h"
#include "sg-bo.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char new_help[] =
  "Usage: skewgp new EXPERIMENT.json SESSION.json\n\n"
  "Creates the session file SESSION.json for the experiment described in\n"
  "EXPERIMENT.json ('-' reads it from standard input). An existing file is\n"
  "never overwritten. Prints {\"session\": PATH, \"mode\", \"budget\",\n"
  "\"parameters\": [names]}.\n\n"
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
  "surrogate only, and safe mode asks for values: other combinations are\n"
  "refused, naming what cannot serve them.\n\n"
  "Optional settings:\n"
  "  \"initial\": n          random initial questions before the model is used\n"
  "                        (default 2)\n"
  "  \"acquisition\": name   how duels are chosen (default \"ucb\"; choices and\n"
  "                        rankings are always chosen by qeubo). qeubo,\n"
  "                        hb-ei, hb-ucb and dts need preference mode,\n"
  "                        hb-ei and hb-ucb the \"skewgp\" surrogate. Names:\n"
  SKEWGP_ACQUISITIONS_HELP
  "  \"surrogate\": name     the model: \"skewgp\" (exact, default), \"laplace\",\n"
  "                        \"ep\", \"random\" (the baseline), \"two-gp\" (safe\n"
  "                        mode) or \"svgp\" (preference mode)\n"
  "  \"numeric_every\": k    mixed mode: every k-th question after the initial\n"
  "                        design asks for a measured value (default 4)\n"
  "  \"threshold\": h        safe mode: a setting is safe when its value is\n"
  "                        >= h (default 0); a failed setting counts as below.\n"
  "                        Mixed mode: the failure level, a failed setting's\n"
  "                        utility is below h (default 0)\n"
  "  \"safe_start\": [x...]  safe mode: a setting known to be safe, asked\n"
  "                        first; without it safe mode starts from random\n"
  "                        settings inside the box (choose the box so that\n"
  "                        they are safe to try)\n"
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

static const char ask_help[] =
  "Usage: skewgp ask SESSION.json\n"
  "       skewgp ask STUDY --participant CODE\n\n"
  "Prints the open question of the session, proposing and storing a new one\n"
  "when none is open (the same question again until it is answered):\n"
  "  {\"question\": ID, \"kind\": \"duel\" | \"choice\" | \"ranking\" | \"value\",\n"
  "   \"options\": [[x...], ...], \"shown_order\": [i, ...]}\n"
  "Each option is a setting in natural units: whole numbers for integer\n"
  "parameters, the level's name (a string) for categorical ones.\n"
  "A duel has two options: option 0 is the current best, option 1 the new\n"
  "candidate. A choice or ranking question has k options (the experiment's\n"
  "\"options\"): the engine's duel (the current best and the candidate)\n"
  "followed by k - 2 settings spread over the box, each the farthest from the\n"
  "options before it of 64 random draws (the app's rule for these questions).\n"
  "Present the options in \"shown_order\" (e.g. [1, 0]: option 1 first), a\n"
  "random order that puts the current best in any place. A value question\n"
  "(mixed and safe mode) has one option: the setting to measure.\n"
  "With a candidate set (skewgp new --help) every option is a row of its CSV\n"
  "and \"files\": [path, ...] gives each option's stimulus file, in the order\n"
  "of \"options\" (paths as the session's folder and the CSV name them).\n"
  "When the budget is used: {\"done\": true, \"answers\": n, \"budget\": N}.\n"
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
  "   \"confidence\": c}              optional, duels and choices: \"weak\",\n"
  "                                 \"normal\" or \"strong\"\n"
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

static const char status_help[] =
  "Usage: skewgp status SESSION.json\n"
  "       skewgp status STUDY [--participant CODE]\n\n"
  "Prints {\"answers\": n, \"budget\": N, \"done\": bool, \"best\": [x...] | null,\n"
  "\"best_description\": \"name = value unit, ...\", \"best_mean\": m | null,\n"
  "\"best_interval\": [lo, hi] | null, \"open_question\": ID | null}.\n"
  "\"best\" is the recommendation, null before the first answer: in preference\n"
  "mode the answered setting of largest posterior mean (as good as the last\n"
  "winner after decisive duels, and closer to the optimum when ties are\n"
  "allowed, since a tie does not move the winner); in mixed and safe mode\n"
  "the setting of the best measured value (or the last decisive winner).\n"
  "Before the model exists (the random initial questions, or the random\n"
  "surrogate) it is the last winner, and \"best_mean\" and \"best_interval\"\n"
  "are null; otherwise they are the posterior mean of the utility there and\n"
  "its 95% equal-tailed credible interval.\n\n"
  "With --participant CODE: the same for the participant's session in the\n"
  "study folder STUDY, with \"participant\" and \"consistency\":\n"
  "  {\"duels\", \"repeats\" (duels of a pair shown before),\n"
  "   \"repeats_agreeing\" (preferring the same setting as the pair's first\n"
  "   duel, or a tie again), \"agreement\", \"agreement_p\" (P of agreeing as\n"
  "   often by tossing a coin), \"triples\" (sets of three settings whose\n"
  "   pairs all have a majority winner), \"intransitive_triples\" (of them,\n"
  "   cycles a > b > c > a), \"side_duels\", \"first_shown_chosen\",\n"
  "   \"first_shown_rate\", \"side_p\" (two-sided binomial test against 1/2),\n"
  "   \"log_bayes_factor_vs_coin\" (the stored fit's log evidence minus a\n"
  "   coin's log likelihood; null unless the fit saw exactly these\n"
  "   answers), \"at_chance\" (6 or more repeats whose agreement a coin\n"
  "   reaches with P > 0.05, or a Bayes factor <= 0)}.\n"
  "Answers the experimenter removed do not count anywhere.\n"
  "STUDY without --participant: {\"study\", \"repeat_rate\",\n"
  "\"participants\": [{\"code\", \"status\", \"answers\", \"budget\", \"done\",\n"
  "\"removed\", \"skipped\", \"open_question\", \"consistency\"}, ...],\n"
  "\"population\": {\"participants\", \"included\" (not excluded), \"done\",\n"
  "\"answers\", \"duels\", \"repeats\", \"repeats_agreeing\", \"agreement\",\n"
  "\"triples\", \"intransitive_triples\", \"side_duels\", \"first_shown_chosen\",\n"
  "\"at_chance\", \"best\", \"mean\", \"interval\", \"hyperparameters\"}}: the\n"
  "counts pooled over the included participants, and the population model\n"
  "(skewgp study --help): every included participant's utility is\n"
  "f_p(x) = g(x) + h_p(x), a population utility g shared by everyone plus\n"
  "a deviation h_p of their own, both Gaussian processes (variances and\n"
  "lengthscales fitted on the exact evidence of everyone's answers).\n"
  "\"best\" is the population's recommendation: of the answered settings\n"
  "and 128 settings spread over the box (or the candidate set), the one\n"
  "where g's posterior mean is largest; \"mean\" and \"interval\" are g's\n"
  "posterior mean there and its 95% credible interval. Each included\n"
  "participant also gets \"best\" (the same for f_p), \"prob_best_differs\"\n"
  "(P(their best is more than a tenth of the box from the population's))\n"
  "and \"se\" (its Monte Carlo standard error). \"hyperparameters\":\n"
  "{\"kernel\", \"population\": {\"variance\", \"lengthscales\"}, \"individual\":\n"
  "{...}, \"probit_sd\", \"fitted\", \"log_evidence\", \"evaluations\"}, in the\n"
  "parameters' units. All null before the first answer; the same answers\n"
  "give the same numbers (seeded by the study's seed).\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input.\n";

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
  "  response_time, confidence (weak|normal|strong), note, x_<parameter>...\n"
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
  "  confidence       weak, normal, strong or empty\n"
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

/* ---- Shared steps ---------------------------------------------------------- */

/* The CLI's error for ERR (taken): engine failures are numerical (exit 1),
 * the rest bad input (exit 2). */
gboolean
skewgp_forward_error (GError *err, GError **error)
{
  if (err->domain == SB_ENGINE_ERROR)
    g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, "%s", err->message);
  else
    skewgp_input_error (error, "%s", err->message);
  g_error_free (err);
  return FALSE;
}

static SbSession *
load_session (const char *path, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
  GError *err = NULL;
  SbSession *session = sb_session_load (file, &err);

  if (session == NULL)
    skewgp_forward_error (err, error);
  return session;
}

/* The write lock of the session at PATH for COMMAND ("skewgp tell"). */
static SbFileLock *
lock_session (const char *path, const char *command, GError **error)
{
  GError *err = NULL;
  SbFileLock *lock = sb_session_lock_file (path, command, &err);

  if (lock == NULL)
    skewgp_forward_error (err, error);
  return lock;
}

int
skewgp_finish (const char *command, GError *error)
{
  if (error == NULL)
    return SKEWGP_EXIT_OK;
  fprintf (stderr, "skewgp %s: %s\n", command, error->message);
  int status = g_error_matches (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC)
                 ? SKEWGP_EXIT_NUMERIC : SKEWGP_EXIT_INPUT;
  g_error_free (error);
  return status;
}

/* FALSE with a usage error unless ARGC is N. */
static gboolean
expect_args (const char *command, const char *usage, int argc, char **argv, int n,
             GError **error)
{
  for (int i = 0; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return skewgp_input_error (error, "unknown option '%s' (see skewgp %s --help)", argv[i],
                                 command);
  if (argc != n)
    return skewgp_input_error (error, "expected %s (see skewgp %s --help)", usage, command);
  return TRUE;
}

static void
add_done (JsonBuilder *b, SbSession *session)
{
  skewgp_add_int (b, "answers", sb_session_get_n_answers (session));
  skewgp_add_int (b, "budget", sb_session_get_experiment (session)->budget);
  skewgp_add_bool (b, "done", sb_ask_tell_is_done (session));
}

/* ---- new ------------------------------------------------------------------- */

/* A categorical parameter's "levels": an array of 2 or more strings. */
static gboolean
parse_levels (JsonObject *p, const char *where, GStrv *levels, GError **error)
{
  JsonNode *node = json_object_get_member (p, "levels");
  JsonArray *array;
  guint n;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node) || (n = json_array_get_length (array = json_node_get_array (node))) < 2)
    return skewgp_input_error (error, "%s: 'levels' must be an array of 2 or more names", where);
  *levels = g_new0 (char *, n + 1);
  for (guint k = 0; k < n; k++)
    {
      JsonNode *level = json_array_get_element (array, k);
      if (!JSON_NODE_HOLDS_VALUE (level) || json_node_get_value_type (level) != G_TYPE_STRING)
        return skewgp_input_error (error, "%s: level %u of 'levels' is not a string", where,
                                   k + 1);
      (*levels)[k] = g_strdup (json_node_get_string (level));
    }
  return TRUE;
}

/* A parameter; with a candidate set (HAS_CANDIDATES) its range may be
 * left out, and *DERIVE then says that the CSV gives it. */
static gboolean
parse_parameter (JsonNode *node, guint index, SbExperiment *exp, gboolean has_candidates,
                 gboolean *derive, GError **error)
{
  static const char *const known[] = { "name", "lower", "upper", "unit", "scale",
                                       "resolution", "levels", NULL };
  const char *name = NULL, *unit = "", *scale = "linear";
  double lower = 0, upper = 0, resolution = 0;
  SbScale kind = SB_SCALE_LINEAR;
  g_auto (GStrv) levels = NULL;
  g_autofree char *where = g_strdup_printf ("parameter %u", index + 1);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "%s is not an object", where);
  JsonObject *p = json_node_get_object (node);
  if (!skewgp_check_fields (p, where, known, error)
      || !skewgp_get_string (p, "name", TRUE, &name, error)
      || !skewgp_get_string (p, "unit", FALSE, &unit, error)
      || !skewgp_get_string (p, "scale", FALSE, &scale, error)
      || !parse_levels (p, where, &levels, error)
      /* categorical levels imply the range 0 .. n - 1 */
      || !skewgp_get_double (p, "lower", levels == NULL && !has_candidates, &lower, error)
      || !skewgp_get_double (p, "upper", levels == NULL && !has_candidates, &upper, error)
      || !skewgp_get_double (p, "resolution", FALSE, &resolution, error))
    return FALSE;
  if (*name == '\0')
    return skewgp_input_error (error, "%s: 'name' is empty", where);
  if (!sb_scale_from_string (scale, &kind))
    return skewgp_input_error (error, "parameter '%s': unknown scale '%s' (expected "
                               "\"linear\", \"log\", \"integer\", \"periodic\" or "
                               "\"categorical\")", name, scale);
  if (levels && !json_object_has_member (p, "upper"))
    upper = g_strv_length (levels) - 1.0;
  *derive = levels == NULL && !json_object_has_member (p, "lower")
            && !json_object_has_member (p, "upper");
  if (!*derive && levels == NULL
      && json_object_has_member (p, "lower") != json_object_has_member (p, "upper"))
    return skewgp_input_error (error, "parameter '%s': give both 'lower' and 'upper', or "
                               "neither (the range of the candidate set)", name);
  if (*derive)
    upper = 1;  /* until the candidate set gives the range */
  if (!(lower < upper))
    return skewgp_input_error (error, "parameter '%s': 'lower' must be below 'upper'", name);
  if (!sb_experiment_add_parameter (exp, name, unit, lower, upper))
    return skewgp_input_error (error, "parameter '%s' cannot be added", name);
  /* the scale's rules are the experiment's validation (sb_parameter_check_scale) */
  exp->parameters[exp->n_parameters - 1].resolution = resolution;
  exp->parameters[exp->n_parameters - 1].scale = kind;
  exp->parameters[exp->n_parameters - 1].levels = g_steal_pointer (&levels);
  return TRUE;
}

/* "question": {"kind", "options", "ties"} into EXP; whether the mode and
 * the surrogate can serve it is the experiment's validation. */
static gboolean
parse_question (JsonObject *obj, SbExperiment *exp, GError **error)
{
  static const char *const known[] = { "kind", "options", "ties", NULL };
  const char *kind = "duel";
  gint64 options = 0;
  gboolean ties = FALSE;
  JsonNode *node = json_object_get_member (obj, "question");
  JsonObject *q;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "field 'question' must be an object");
  q = json_node_get_object (node);
  if (!skewgp_check_fields (q, "'question'", known, error)
      || !skewgp_get_string (q, "kind", FALSE, &kind, error)
      || !skewgp_get_int (q, "options", FALSE, 2, SB_MAX_OPTIONS, &options, error)
      || !skewgp_get_bool (q, "ties", FALSE, &ties, error))
    return FALSE;
  if (!sb_ask_kind_from_string (kind, &exp->question))
    return skewgp_input_error (error, "unknown question kind '%s' (expected \"duel\", "
                               "\"choice\" or \"ranking\")", kind);
  if (exp->question == SB_ASK_DUEL)
    {
      if (options != 0 && options != 2)
        return skewgp_input_error (error, "'question': a duel shows 2 options, not %"
                                   G_GINT64_FORMAT, options);
      exp->n_options = 2;
    }
  else
    {
      if (options == 0)
        return skewgp_input_error (error, "'question': a %s question needs \"options\": k "
                                   "(%d to %d)", kind, SB_MIN_CHOICE_OPTIONS, SB_MAX_OPTIONS);
      if (options < SB_MIN_CHOICE_OPTIONS)
        return skewgp_input_error (error, "'question': a %s question shows %d to %d options, "
                                   "not %" G_GINT64_FORMAT " (two options are a duel)", kind,
                                   SB_MIN_CHOICE_OPTIONS, SB_MAX_OPTIONS, options);
      exp->n_options = (guint) options;
    }
  if (ties && exp->question != SB_ASK_DUEL)
    return skewgp_input_error (error, "'question': \"ties\" applies to duels, not to %s "
                               "questions", kind);
  exp->ties_allowed = ties;
  return TRUE;
}

/* An engine name field (acquisition, surrogate) through PARSE; KNOWN
 * (may be NULL) lists the names an unknown one is refused with. */
static gboolean
parse_engine_name (JsonObject *obj, const char *field, sg_status (*parse) (const char *, int *),
                   char *(*known) (void), int *out, GError **error)
{
  const char *name = NULL;
  g_autofree char *names = NULL;

  if (!skewgp_get_string (obj, field, FALSE, &name, error))
    return FALSE;
  if (name == NULL || parse (name, out) == SG_OK)
    return TRUE;
  names = known ? known () : NULL;
  return skewgp_input_error (error, "unknown %s '%s' (%s%s%ssee skewgp new --help)", field, name,
                             names ? "expected " : "", names ? names : "",
                             names ? "; " : "");
}

static sg_status
parse_acquisition (const char *name, int *out)
{
  sg_bo_acquisition a;
  sg_status s = sg_bo_acquisition_parse (name, &a);
  *out = (int) a;
  return s;
}

static sg_status
parse_surrogate (const char *name, int *out)
{
  sg_bo_surrogate v;
  sg_status s = sg_bo_surrogate_parse (name, &v);
  *out = (int) v;
  return s;
}

/* "candidates": {"csv", "file_column"?, "folder"?} read for EXP's
 * parameters, relative to BASE_DIR. */
static gboolean
parse_candidates (JsonObject *obj, SbExperiment *exp, const char *base_dir,
                  const gboolean *derive, GError **error)
{
  static const char *const known[] = { "csv", "file_column", "folder", NULL };
  const char *csv = NULL, *column = NULL, *folder = NULL;
  JsonNode *node = json_object_get_member (obj, "candidates");
  GError *err = NULL;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return skewgp_input_error (error, "field 'candidates' must be an object");
  JsonObject *c = json_node_get_object (node);
  if (!skewgp_check_fields (c, "'candidates'", known, error)
      || !skewgp_get_string (c, "csv", TRUE, &csv, error)
      || !skewgp_get_string (c, "file_column", FALSE, &column, error)
      || !skewgp_get_string (c, "folder", FALSE, &folder, error))
    return FALSE;
  if (!sb_experiment_load_candidates (exp, csv, column, folder, base_dir, derive, &err))
    return skewgp_forward_error (err, error);
  return TRUE;
}

SbExperiment *
skewgp_parse_experiment (JsonObject *obj, const char *base_dir, GError **error)
{
  static const char *const known[] = { "title", "mode", "parameters", "budget", "question",
                                       "seed", "initial", "acquisition", "surrogate",
                                       "numeric_every", "threshold", "safe_start",
                                       "candidates", "stimulus", NULL };
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  const char *title = NULL, *mode = NULL;
  gint64 budget = 0, seed = (gint64) exp->seed, initial = exp->initial;
  gint64 numeric_every = exp->numeric_every;
  int acquisition = exp->acquisition, surrogate = exp->surrogate;
  JsonNode *params;
  GError *err = NULL;
  gboolean has_candidates = json_object_has_member (obj, "candidates");
  gboolean derive[SB_MAX_PARAMETERS] = { FALSE };

  if (!skewgp_check_fields (obj, "the experiment", known, error)
      || !skewgp_get_string (obj, "title", TRUE, &title, error)
      || !skewgp_get_string (obj, "mode", TRUE, &mode, error)
      || !skewgp_get_int (obj, "budget", TRUE, 1, SB_MAX_BUDGET, &budget, error)
      || !skewgp_get_int (obj, "seed", FALSE, 0, G_MAXINT64, &seed, error)
      || !skewgp_get_int (obj, "initial", FALSE, 0, 1000, &initial, error)
      || !skewgp_get_int (obj, "numeric_every", FALSE, 0, 100000, &numeric_every, error)
      || !skewgp_get_double (obj, "threshold", FALSE, &exp->threshold, error)
      || !parse_engine_name (obj, "acquisition", parse_acquisition, sb_acquisition_known_names,
                             &acquisition, error)
      || !parse_engine_name (obj, "surrogate", parse_surrogate, NULL, &surrogate, error)
      || !parse_question (obj, exp, error))
    return NULL;
  if (!sb_mode_from_string (mode, &exp->mode))
    {
      skewgp_input_error (error, "unknown mode '%s' (expected \"preference\", \"mixed\" or "
                          "\"safe\")", mode);
      return NULL;
    }
  params = json_object_get_member (obj, "parameters");
  if (params == NULL || !JSON_NODE_HOLDS_ARRAY (params)
      || json_array_get_length (json_node_get_array (params)) == 0)
    {
      skewgp_input_error (error, "field 'parameters' must be a non-empty array");
      return NULL;
    }
  if (json_array_get_length (json_node_get_array (params)) > SB_MAX_PARAMETERS)
    {
      skewgp_input_error (error, "at most %d parameters are supported", SB_MAX_PARAMETERS);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (params)); i++)
    if (!parse_parameter (json_array_get_element (json_node_get_array (params), i), i, exp,
                          has_candidates, &derive[i], error))
      return NULL;
  if (!parse_candidates (obj, exp, base_dir, derive, error))
    return NULL;

  if (json_object_has_member (obj, "safe_start"))
    {
      g_autofree double *start = NULL;
      if (!skewgp_get_vector (obj, "safe_start", TRUE, exp->n_parameters, FALSE, 0, &start, NULL,
                              error))
        return NULL;
      exp->has_safe_start = TRUE;
      memcpy (exp->safe_start, start, exp->n_parameters * sizeof (double));
    }
  if (json_object_has_member (obj, "stimulus")
      && !sb_stimulus_from_json (json_object_get_member (obj, "stimulus"), &exp->stimulus, &err))
    {
      skewgp_forward_error (err, error);
      return NULL;
    }
  g_free (exp->title);
  exp->title = g_strdup (title);
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->budget = (guint) budget;
  exp->seed = (guint64) seed;
  exp->initial = (guint) initial;
  exp->numeric_every = (guint) numeric_every;
  exp->acquisition = (sg_bo_acquisition) acquisition;
  exp->surrogate = (sg_bo_surrogate) surrogate;
  if (!sb_experiment_validate (exp, &err))
    {
      skewgp_forward_error (err, error);
      return NULL;
    }
  return g_steal_pointer (&exp);
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
      || (exp = skewgp_parse_experiment (json_node_get_object (doc), base_dir, error)) == NULL)
    return FALSE;
  lock = lock_session (session_path, "skewgp new", error);
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
  skewgp_add_string (b, "session", session_path);
  skewgp_add_string (b, "mode", sb_mode_to_string (exp->mode));
  skewgp_add_int (b, "budget", exp->budget);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint j = 0; j < exp->n_parameters; j++)
    json_builder_add_string_value (b, exp->parameters[j].name);
  json_builder_end_array (b);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

static int
new_argv (int argc, char **argv)
{
  GError *error = NULL;

  if (expect_args ("new", "EXPERIMENT.json SESSION.json", argc, argv, 2, &error)
      && g_str_equal (argv[1], "-"))
    skewgp_input_error (&error, "SESSION.json must be a file name, not '-'");
  if (error == NULL)
    run_new (argv[0], argv[1], &error);
  return skewgp_finish ("new", error);
}

/* ---- ask ------------------------------------------------------------------- */

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

/* ---- Targets: a session file, or a participant of a study ------------------- */

/* Where a command's session is: the positional SESSION.json, or with
 * --participant CODE the participant's file in the study folder given
 * instead. RATE gets the study's repeat rate (0 for a lone session);
 * STUDY (when not NULL) the study, or NULL. */
static gboolean
resolve_target (const char *command, const SkewgpArgs *args, char **path, double *rate,
                SbStudy **study_out, GError **error)
{
  const char *target = args->positional[0];
  g_autoptr (SbStudy) study = NULL;
  const SbParticipant *p;

  *rate = 0;
  if (args->participant == NULL)
    {
      if (skewgp_is_study (target))
        return skewgp_input_error (error, "'%s' is a study folder: name the participant with "
                                   "--participant CODE (see skewgp %s --help)", target, command);
      *path = g_strdup (target);
      return TRUE;
    }
  study = skewgp_open_study (target, error);
  if (study == NULL)
    return FALSE;
  p = sb_study_find (study, args->participant);
  if (p == NULL)
    return skewgp_input_error (error, "the study %s has no participant '%s' (add one with "
                               "skewgp study add)", target, args->participant);
  *path = sb_study_participant_path (study, p->code);
  *rate = sb_study_get_repeat_rate (study);
  if (study_out)
    *study_out = g_steal_pointer (&study);
  return TRUE;
}

/* ---- ask ------------------------------------------------------------------- */

/* STUDY and CODE: a participant of a study (questions as the study's
 * model says, sb_population_ask); NULL: a lone session. */
static gboolean
run_ask (const char *path, double repeat_rate, SbStudy *study, const char *code,
         GError **error)
{
  g_autoptr (SbSession) session = load_session (path, error);
  g_autoptr (SbFileLock) lock = NULL;
  const SbQuestion *q;
  GError *err = NULL;

  /* Reading needs no lock: asking again for the open question works while
   * another program writes the session. */
  if (session == NULL)
    return FALSE;
  if (print_if_settled (session))
    return TRUE;
  lock = lock_session (path, "skewgp ask", error);
  if (lock == NULL)
    return FALSE;
  /* Read again under the lock: another writer may have asked meanwhile. */
  g_clear_object (&session);
  session = load_session (path, error);
  if (session == NULL)
    return FALSE;
  if (print_if_settled (session))
    return TRUE;
  q = study ? sb_population_ask (study, code, session, &err)
            : sb_ask_tell_ask_with_repeats (session, repeat_rate, &err);
  if (q == NULL)
    return skewgp_forward_error (err, error);
  print_question (q, sb_session_get_experiment (session));
  return TRUE;
}

static int
ask_argv (int argc, char **argv)
{
  SkewgpArgs args;
  g_autoptr (SbStudy) study = NULL;
  g_autofree char *path = NULL;
  double rate = 0;
  GError *error = NULL;

  if (skewgp_parse_args ("ask", "--participant", 1, argc, argv, &args, &error)
      && args.n_positional != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY --participant CODE (see skewgp "
                        "ask --help)");
  if (error == NULL && resolve_target ("ask", &args, &path, &rate, &study, &error))
    {
      const SbParticipant *p = study ? sb_study_find (study, args.participant) : NULL;
      if (p != NULL && p->status != SB_PARTICIPANT_ACTIVE)
        skewgp_input_error (&error, "participant '%s' is %s: no more questions (skewgp study "
                            "set --status active reopens)", p->code,
                            sb_participant_status_to_string (p->status));
      else
        run_ask (path, rate, study, p ? p->code : NULL, &error);
    }
  return skewgp_finish ("ask", error);
}

/* ---- tell ------------------------------------------------------------------ */

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
  lock = lock_session (path, "skewgp tell", error);
  if (lock == NULL)
    return FALSE;
  session = load_session (path, error);
  if (session == NULL)
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
  SkewgpArgs args;
  g_autofree char *path = NULL;
  double rate;
  GError *error = NULL;

  if (skewgp_parse_args ("tell", "--participant", 2, argc, argv, &args, &error)
      && args.n_positional != 2)
    skewgp_input_error (&error, "expected SESSION.json ANSWER.json|- (see skewgp tell --help)");
  if (error == NULL && resolve_target ("tell", &args, &path, &rate, NULL, &error))
    run_tell (path, args.positional[1], &error);
  return skewgp_finish ("tell", error);
}

/* ---- status ---------------------------------------------------------------- */

static void
add_consistency (JsonBuilder *b, const SbConsistency *c)
{
  json_builder_set_member_name (b, "consistency");
  json_builder_begin_object (b);
  skewgp_add_int (b, "duels", c->n_duels);
  skewgp_add_int (b, "repeats", c->n_repeats);
  skewgp_add_int (b, "repeats_agreeing", c->n_agree);
  skewgp_add_double_or_null (b, "agreement", c->agreement);
  skewgp_add_double_or_null (b, "agreement_p", c->agreement_p);
  skewgp_add_int (b, "triples", c->n_triples);
  skewgp_add_int (b, "intransitive_triples", c->n_intransitive);
  skewgp_add_int (b, "side_duels", c->n_side);
  skewgp_add_int (b, "first_shown_chosen", c->n_first_chosen);
  skewgp_add_double_or_null (b, "first_shown_rate", c->first_rate);
  skewgp_add_double_or_null (b, "side_p", c->side_p);
  skewgp_add_double_or_null (b, "log_bayes_factor_vs_coin", c->log_bf);
  skewgp_add_bool (b, "at_chance", c->at_chance);
  json_builder_end_object (b);
}

static gboolean
run_status (const char *path, const char *participant, GError **error)
{
  g_autoptr (SbSession) session = load_session (path, error);
  const SbExperiment *exp;
  const SbQuestion *open;
  GError *err = NULL;

  if (session == NULL)
    return FALSE;
  exp = sb_session_get_experiment (session);
  SbRecommendation rec;
  if (!sb_ask_tell_recommend (session, &rec, &err))
    return skewgp_forward_error (err, error);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  if (participant)
    skewgp_add_string (b, "participant", participant);
  add_done (b, session);
  json_builder_set_member_name (b, "best");
  if (rec.has_best)
    json_builder_add_value (b, sb_experiment_setting_to_json (exp, rec.best));
  else
    json_builder_add_null_value (b);
  if (rec.has_best)
    {
      g_autofree char *text = sb_experiment_describe_setting (exp, rec.best);
      double interval[2] = { rec.lower, rec.upper };
      skewgp_add_string (b, "best_description", text);
      /* The model's utility at the best setting (null before a model). */
      skewgp_add_double_or_null (b, "best_mean", rec.mean);
      skewgp_add_vector (b, "best_interval", isfinite (rec.lower) ? interval : NULL, 2);
    }
  open = sb_ask_tell_current (session);
  json_builder_set_member_name (b, "open_question");
  if (open)
    json_builder_add_int_value (b, (gint64) open->id);
  else
    json_builder_add_null_value (b);
  if (participant)
    {
      SbConsistency c;
      sb_consistency_of_session (session, &c);
      add_consistency (b, &c);
    }
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

/* The population model of STUDY (sb-population.h), or NULL with ERROR
 * (a numerical failure exits 1). */
static SbPopulationResult *
population_model (SbStudy *study, GError **error)
{
  GError *err = NULL;
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &err);
  SbPopulationResult *result = input ? sb_population_compute (input, NULL, &err) : NULL;

  if (result == NULL)
    skewgp_forward_error (err, error);
  return result;
}

/* MODEL's result for CODE, or NULL (excluded). */
static const SbPersonResult *
person_result (const SbPopulationResult *model, const char *code)
{
  for (guint i = 0; i < model->n_people; i++)
    if (g_ascii_strcasecmp (model->people[i].code, code) == 0)
      return &model->people[i];
  return NULL;
}

/* Member "best": the setting as ask prints it, or null when unknown. */
static void
add_best (JsonBuilder *b, const SbExperiment *exp, const double *best)
{
  json_builder_set_member_name (b, "best");
  if (best == NULL)
    json_builder_add_null_value (b);
  else
    json_builder_add_value (b, sb_experiment_setting_to_json (exp, best));
}

static void
add_person_model (JsonBuilder *b, const SbExperiment *exp, const SbPopulationResult *model,
                  const char *code)
{
  const SbPersonResult *r = person_result (model, code);
  gboolean known = r != NULL && model->n_answers > 0;

  add_best (b, exp, known ? r->best : NULL);
  skewgp_add_double_or_null (b, "prob_best_differs", known ? r->prob_best_differs : NAN);
  skewgp_add_double_or_null (b, "se", known ? r->se : NAN);
}

static void
add_population_model (JsonBuilder *b, SbStudy *study, const SbPopulationResult *model)
{
  gboolean known = model->n_answers > 0;
  double interval[2] = { model->lower, model->upper };
  g_autoptr (JsonNode) doc = sb_population_result_to_json (sb_study_get_experiment (study),
                                                           sb_study_get_name (study), model);
  JsonNode *hyper = json_object_get_member (json_node_get_object (doc), "hyperparameters");

  add_best (b, sb_study_get_experiment (study), known ? model->best : NULL);
  skewgp_add_double_or_null (b, "mean", known ? model->mean : NAN);
  skewgp_add_vector (b, "interval", known && isfinite (model->lower) ? interval : NULL, 2);
  json_builder_set_member_name (b, "hyperparameters");
  json_builder_add_value (b, json_node_copy (hyper));
}

/* The study's population: each participant's summary, the pooled
 * counts (sb_study_population) and the population model. */
static gboolean
run_population (const char *dir, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (dir, error);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (SbPopulationResult) model = NULL;
  SbPopulation pop;
  GError *err = NULL;

  if (study == NULL)
    return FALSE;
  model = population_model (study, error);
  if (model == NULL)
    return FALSE;
  json_builder_begin_object (b);
  skewgp_add_string (b, "study", sb_study_get_name (study));
  skewgp_add_double (b, "repeat_rate", sb_study_get_repeat_rate (study));
  skewgp_add_string (b, "model", sb_study_model_to_string (sb_study_get_model (study)));
  json_builder_set_member_name (b, "participants");
  json_builder_begin_array (b);
  for (guint i = 0; i < sb_study_get_n_participants (study); i++)
    {
      const SbParticipant *p = sb_study_get_participant (study, i);
      SbParticipantSummary s;
      if (!sb_study_summarise (study, p->code, &s, &err))
        return skewgp_forward_error (err, error);
      json_builder_begin_object (b);
      skewgp_add_string (b, "code", p->code);
      skewgp_add_string (b, "status", sb_participant_status_to_string (p->status));
      skewgp_add_int (b, "answers", s.answered);
      skewgp_add_int (b, "budget", s.budget);
      skewgp_add_bool (b, "done", s.done);
      skewgp_add_int (b, "removed", s.removed);
      skewgp_add_int (b, "skipped", s.skipped);
      skewgp_add_bool (b, "open_question", s.open_question);
      add_consistency (b, &s.consistency);
      add_person_model (b, sb_study_get_experiment (study), model, p->code);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (!sb_study_population (study, &pop, &err))
    return skewgp_forward_error (err, error);
  json_builder_set_member_name (b, "population");
  json_builder_begin_object (b);
  skewgp_add_int (b, "participants", pop.n_participants);
  skewgp_add_int (b, "included", pop.n_included);
  skewgp_add_int (b, "done", pop.n_done);
  skewgp_add_int (b, "answers", pop.n_answers);
  skewgp_add_int (b, "duels", pop.n_duels);
  skewgp_add_int (b, "repeats", pop.n_repeats);
  skewgp_add_int (b, "repeats_agreeing", pop.n_agree);
  skewgp_add_double_or_null (b, "agreement", pop.n_repeats ? (double) pop.n_agree / pop.n_repeats
                                                           : NAN);
  skewgp_add_int (b, "triples", pop.n_triples);
  skewgp_add_int (b, "intransitive_triples", pop.n_intransitive);
  skewgp_add_int (b, "side_duels", pop.n_side);
  skewgp_add_int (b, "first_shown_chosen", pop.n_first_chosen);
  skewgp_add_int (b, "at_chance", pop.n_at_chance);
  add_population_model (b, study, model);
  json_builder_end_object (b);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

static int
status_argv (int argc, char **argv)
{
  SkewgpArgs args;
  g_autofree char *path = NULL;
  double rate;
  GError *error = NULL;

  if (skewgp_parse_args ("status", "--participant", 1, argc, argv, &args, &error)
      && args.n_positional != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY (see skewgp status --help)");
  if (error == NULL && args.participant == NULL && skewgp_is_study (args.positional[0]))
    run_population (args.positional[0], &error);
  else if (error == NULL && resolve_target ("status", &args, &path, &rate, NULL, &error))
    run_status (path, args.participant, &error);
  return skewgp_finish ("status", error);
}

/* ---- export ---------------------------------------------------------------- */

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
  g_autoptr (SbSession) session = load_session (path, error);
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
  g_autoptr (SbPopulationResult) model = population_model (study, error);
  g_autoptr (JsonNode) doc = NULL;
  g_autofree char *text = NULL;

  if (model == NULL)
    return FALSE;
  doc = sb_population_result_to_json (sb_study_get_experiment (study),
                                      sb_study_get_name (study), model);
  text = sb_json_write (doc, TRUE, NULL);
  return write_csv (text, output, error);
}

static gboolean
run_export_study (const SkewgpArgs *args, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (args->positional[0], error);
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
  SkewgpArgs args;
  GError *error = NULL;

  if (skewgp_parse_args ("export",
                         "--output --wide --participant --with-notes --model --external-ids", 1,
                         argc, argv,
                         &args, &error)
      && args.n_positional != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY (see skewgp export --help)");
  if (error == NULL && skewgp_is_study (args.positional[0]))
    run_export_study (&args, &error);
  else if (error == NULL
           && (args.participant || args.with_notes || args.model || args.external_ids))
    skewgp_input_error (&error, "--participant, --with-notes, --model and --external-ids apply "
                        "to a study "
                        "folder, and "
                        "'%s' is not one", args.positional[0]);
  else if (error == NULL)
    run_export (args.positional[0], args.output, args.wide, &error);
  return skewgp_finish ("export", error);
}

const SkewgpCommand skewgp_command_new = {
  .name = "new", .summary = "create a session file for an experiment (ask/tell)",
  .help = new_help, .run_argv = new_argv,
};
const SkewgpCommand skewgp_command_ask = {
  .name = "ask", .summary = "print the session's open question (ask/tell)",
  .help = ask_help, .run_argv = ask_argv,
};
const SkewgpCommand skewgp_command_tell = {
  .name = "tell", .summary = "record the answer to the open question (ask/tell)",
  .help = tell_help, .run_argv = tell_argv,
};
const SkewgpCommand skewgp_command_status = {
  .name = "status", .summary = "answers, budget and the current best of a session",
  .help = status_help, .run_argv = status_argv,
};
const SkewgpCommand skewgp_command_export = {
  .name = "export", .summary = "write a session's answers as CSV",
  .help = export_help, .run_argv = export_argv,
};
