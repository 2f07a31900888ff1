/* skewgp-status.c — `skewgp status`: a session's answers, budget and
 * best setting, a participant's consistency, or a study's population. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-ask-tell.h"
#include "sb-consistency.h"
#include "sb-setting.h"

#include <math.h>

static const char status_help[] =
  "Usage: skewgp status SESSION.json\n"
  "       skewgp status STUDY [--participant CODE]\n\n"
  "Prints {\"answers\": n, \"budget\": N, \"done\": bool, \"best\": [x...] | null,\n"
  "\"best_description\": \"name = value unit, ...\", \"best_mean\": m | null,\n"
  "\"best_interval\": [lo, hi] | null, \"model\": {...}, \"open_question\": ID | null}.\n"
  "In safe mode also \"confidence_level\" (the experiment's, skewgp new --help)\n"
  "and \"safe_exhausted\": true when no new setting is safe enough to ask at\n"
  "that level (what skewgp ask would answer now: \"done\" is then true and\n"
  "\"reason\" says why, e.g. \"Best safe setting found: no setting outside\n"
  "the measured region is safe at 95 %.\"; \"best\" is the best safe setting\n"
  "measured); false while a question is open, the budget is used, or a new\n"
  "setting can still be asked.\n"
  "\"best\" is the recommendation, null before the first answer: in preference\n"
  "mode the answered setting of largest posterior mean (as good as the last\n"
  "winner after decisive duels, and closer to the optimum when ties are\n"
  "allowed, since a tie does not move the winner); in mixed and safe mode\n"
  "the setting of the best measured value (or the last decisive winner).\n"
  "Before the model exists (the random initial questions, or the random\n"
  "surrogate) it is the last winner, and \"best_mean\" and \"best_interval\"\n"
  "are null; otherwise they are the posterior mean of the utility there and\n"
  "its 95% equal-tailed credible interval.\n"
  "\"model\" names the model that made these numbers and asks the next\n"
  "question: {\"name\": \"exact\" (the exact SkewGP posterior of every answer,\n"
  "up to 500 answers) | \"sparse variational, 200 inducing points\" (beyond:\n"
  "the stored fit, skewgp refit) | \"Laplace\" | \"EP\" | \"SVGP\" | \"two-GP\" |\n"
  "\"none (random initial questions)\", \"answers\" (behind the numbers),\n"
  "\"fit_answers\" (the answers the stored fit saw: its hyperparameters, and\n"
  "beyond 500 answers its sparse summary; 0 when none is stored),\n"
  "\"exact_answers\" (conditioned on exactly), \"inducing\" (M, or null),\n"
  "\"refit_due\" (the refit schedule asks for skewgp refit), \"note\" (when\n"
  "there is something to say)}. Beyond 500 answers without a usable stored\n"
  "fit, status and ask are refused naming skewgp refit.\n\n"
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
  "\"removed\", \"skipped\", \"open_question\", \"consistency\"}, ...]\n"
  "(a participant whose session file is missing or cannot be read gets\n"
  "{\"code\", \"status\", \"error\": why} and is left out of the population),\n"
  "\"population\": {\"participants\", \"included\" (not excluded), \"unreadable\"\n"
  "(included, session unreadable), \"done\",\n"
  "\"answers\", \"duels\", \"repeats\", \"repeats_agreeing\", \"agreement\",\n"
  "\"triples\", \"intransitive_triples\", \"side_duels\", \"first_shown_chosen\",\n"
  "\"at_chance\", \"best\", \"mean\", \"interval\", \"hyperparameters\", \"model\"}}: the\n"
  "counts pooled over the included participants, and the population model\n"
  "(skewgp study --help): every included participant's utility is\n"
  "f_p(x) = g(x) + h_p(x), a population utility g shared by everyone plus\n"
  "a deviation h_p of their own, both Gaussian processes (variances and\n"
  "lengthscales fitted by skewgp refit STUDY).\n"
  "\"model\" ({\"name\", \"answers\", \"fit_answers\", ...} as above) is the model\n"
  "of these numbers: up to 300 answers in all, \"exact\" (the exact SkewGP\n"
  "posterior of everyone's answers, its hyperparameters fitted on its exact\n"
  "evidence); beyond, \"sparse variational population, 100 inducing points\":\n"
  "the study's population cache (STUDY/population.fit), refreshed here under\n"
  "its stored hyperparameters when it saw fewer answers than there are, so\n"
  "the participants' questions use it from then on (up to 10,000 answers\n"
  "and 500 participants).\n"
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

static void
add_consistency (JsonBuilder *b, const SbConsistency *c)
{
  json_builder_set_member_name (b, "consistency");
  json_builder_begin_object (b);
  sb_json_add_int (b, "duels", c->n_duels);
  sb_json_add_int (b, "repeats", c->n_repeats);
  sb_json_add_int (b, "repeats_agreeing", c->n_agree);
  sb_json_add_number (b, "agreement", c->agreement);
  sb_json_add_number (b, "agreement_p", c->agreement_p);
  sb_json_add_int (b, "triples", c->n_triples);
  sb_json_add_int (b, "intransitive_triples", c->n_intransitive);
  sb_json_add_int (b, "side_duels", c->n_side);
  sb_json_add_int (b, "first_shown_chosen", c->n_first_chosen);
  sb_json_add_number (b, "first_shown_rate", c->first_rate);
  sb_json_add_number (b, "side_p", c->side_p);
  sb_json_add_number (b, "log_bayes_factor_vs_coin", c->log_bf);
  sb_json_add_bool (b, "at_chance", c->at_chance);
  json_builder_end_object (b);
}

/* Members "answers", "budget" and "done"; in safe mode also
 * "confidence_level", "safe_exhausted" and, when exhausted, "reason" (a
 * question that would be asked now, not stored: sb_session_safe_exhausted). */
static gboolean
add_progress (JsonBuilder *b, SbSession *session, GError **error)
{
  const SbExperiment *exp = sb_session_get_experiment (session);
  g_autofree char *reason = NULL;
  gboolean exhausted = FALSE;

  if (exp->mode != SB_MODE_SAFE)
    {
      skewgp_add_done (b, session);
      return TRUE;
    }
  if (sb_ask_tell_current (session) == NULL && !sb_ask_tell_is_done (session))
    {
      GError *err = NULL;
      if (!sb_session_safe_exhausted (session, &exhausted, &reason, &err))
        return skewgp_forward_error (err, error);
    }
  sb_json_add_int (b, "answers", sb_session_get_n_answers (session));
  sb_json_add_int (b, "budget", exp->budget);
  sb_json_add_bool (b, "done", exhausted || sb_ask_tell_is_done (session));
  skewgp_add_double (b, "confidence_level", exp->confidence_level);
  sb_json_add_bool (b, "safe_exhausted", exhausted);
  if (exhausted)
    sb_json_add_string (b, "reason", reason);
  return TRUE;
}

static gboolean
run_status (const char *path, const char *participant, GError **error)
{
  g_autoptr (SbSession) session = skewgp_load_session (path, error);
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
    sb_json_add_string (b, "participant", participant);
  if (!add_progress (b, session, error))
    return FALSE;
  json_builder_set_member_name (b, "best");
  if (rec.has_best)
    json_builder_add_value (b, sb_experiment_setting_to_json (exp, rec.best));
  else
    json_builder_add_null_value (b);
  if (rec.has_best)
    {
      g_autofree char *text = sb_experiment_describe_setting (exp, rec.best);
      double interval[2] = { rec.lower, rec.upper };
      sb_json_add_string (b, "best_description", text);
      /* The model's utility at the best setting (null before a model). */
      sb_json_add_number (b, "best_mean", rec.mean);
      skewgp_add_vector (b, "best_interval", isfinite (rec.lower) ? interval : NULL, 2);
    }
  sb_model_info_add_json (b, "model", &rec.model);
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
  sb_json_add_number (b, "prob_best_differs", known ? r->prob_best_differs : NAN);
  sb_json_add_number (b, "se", known ? r->se : NAN);
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
  sb_json_add_number (b, "mean", known ? model->mean : NAN);
  skewgp_add_vector (b, "interval", known && isfinite (model->lower) ? interval : NULL, 2);
  json_builder_set_member_name (b, "hyperparameters");
  json_builder_add_value (b, json_node_copy (hyper));
  sb_model_info_add_json (b, "model", &model->model);
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
  model = skewgp_population_model (study, error);
  if (model == NULL)
    return FALSE;
  json_builder_begin_object (b);
  sb_json_add_string (b, "study", sb_study_get_name (study));
  skewgp_add_double (b, "repeat_rate", sb_study_get_repeat_rate (study));
  sb_json_add_string (b, "model", sb_study_model_to_string (sb_study_get_model (study)));
  json_builder_set_member_name (b, "participants");
  json_builder_begin_array (b);
  for (guint i = 0; i < sb_study_get_n_participants (study); i++)
    {
      const SbParticipant *p = sb_study_get_participant (study, i);
      SbParticipantSummary s;
      g_autoptr (GError) unreadable = NULL;
      json_builder_begin_object (b);
      sb_json_add_string (b, "code", p->code);
      sb_json_add_string (b, "status", sb_participant_status_to_string (p->status));
      if (!sb_study_summarise (study, p->code, &s, &unreadable))
        {
          /* one lost or broken file is reported, not fatal to everyone */
          sb_json_add_string (b, "error", unreadable->message);
          json_builder_end_object (b);
          continue;
        }
      sb_json_add_int (b, "answers", s.answered);
      sb_json_add_int (b, "budget", s.budget);
      sb_json_add_bool (b, "done", s.done);
      sb_json_add_int (b, "removed", s.removed);
      sb_json_add_int (b, "skipped", s.skipped);
      sb_json_add_bool (b, "open_question", s.open_question);
      add_consistency (b, &s.consistency);
      add_person_model (b, sb_study_get_experiment (study), model, p->code);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (!sb_study_population (study, &pop, &err))
    return skewgp_forward_error (err, error);
  json_builder_set_member_name (b, "population");
  json_builder_begin_object (b);
  sb_json_add_int (b, "participants", pop.n_participants);
  sb_json_add_int (b, "included", pop.n_included);
  sb_json_add_int (b, "unreadable", pop.n_unreadable);
  sb_json_add_int (b, "done", pop.n_done);
  sb_json_add_int (b, "answers", pop.n_answers);
  sb_json_add_int (b, "duels", pop.n_duels);
  sb_json_add_int (b, "repeats", pop.n_repeats);
  sb_json_add_int (b, "repeats_agreeing", pop.n_agree);
  sb_json_add_number (b, "agreement", pop.n_repeats ? (double) pop.n_agree / pop.n_repeats
                                                           : NAN);
  sb_json_add_int (b, "triples", pop.n_triples);
  sb_json_add_int (b, "intransitive_triples", pop.n_intransitive);
  sb_json_add_int (b, "side_duels", pop.n_side);
  sb_json_add_int (b, "first_shown_chosen", pop.n_first_chosen);
  sb_json_add_int (b, "at_chance", pop.n_at_chance);
  add_population_model (b, study, model);
  json_builder_end_object (b);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
  return TRUE;
}

static int
status_argv (int argc, char **argv)
{
  g_autofree char *participant = NULL;
  const GOptionEntry entries[] = {
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &participant, NULL, NULL },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "status", entries, NULL, NULL, 1 };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  g_autofree char *path = NULL;
  double rate;
  GError *error = NULL;

  if (skewgp_parse_options (&spec, argc, argv, positional, &error) && positional->len != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY (see skewgp status --help)");
  if (error == NULL && participant == NULL && skewgp_is_study (positional->pdata[0]))
    run_population (positional->pdata[0], &error);
  else if (error == NULL
           && skewgp_resolve_target ("status", positional->pdata[0], participant, &path, &rate,
                                     NULL, &error))
    run_status (path, participant, &error);
  return skewgp_finish ("status", error);
}

const SkewgpCommand skewgp_command_status = {
  .name = "status", .summary = "answers, budget and the current best of a session",
  .help = status_help, .run_argv = status_argv,
};
