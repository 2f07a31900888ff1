/* skewgp-refit.c — `skewgp refit`: the fits the questions use, made
 * beside them and stored (core/sb-stored-fit.h), so that `skewgp ask`
 * never waits for one. */
#include "config.h"

#include "skewgp-cli.h"
#include "skewgp-commands.h"

#include "sb-ask-tell.h"
#include "sb-jobs.h"
#include "sb-population.h"

static const char refit_help[] =
  "Usage: skewgp refit SESSION.json [--if-due]\n"
  "       skewgp refit STUDY [--participant CODE] [--if-due]\n\n"
  "Fits the model the questions use and stores it. A question (skewgp ask)\n"
  "never runs a fit: it uses the newest stored fit, however many answers\n"
  "came after it, and conditions on those answers exactly; skewgp status\n"
  "says which model made its numbers and how many answers its fit saw.\n\n"
  "SESSION.json (or STUDY --participant CODE, the participant's session):\n"
  "  up to 500 answers, the hyperparameters that maximise the exact\n"
  "  evidence of its answers (\"fitted\": \"exact evidence\"); beyond, the\n"
  "  sparse variational model of every answer (200 inducing points) with\n"
  "  its lengthscales fitted on its ELBO, written beside the session as\n"
  "  SESSION.fit, from which the questions are then asked (\"sparse\n"
  "  variational, 200 inducing points\" and the answers since it, exactly).\n"
  "  Its hyperparameters join the session's refit history. A session beyond\n"
  "  10,000 answers, or beyond 500 with a surrogate other than \"skewgp\", is\n"
  "  refused. The session is read first and written under its lock at the\n"
  "  end: answers told meanwhile are kept.\n"
  "STUDY: the study's population cache, STUDY/population.fit: the\n"
  "  hierarchical model's hyperparameters (the exact evidence up to 200\n"
  "  answers, the ELBO of the sparse model beyond) and the sparse posterior\n"
  "  of everyone's answers (100 inducing points) that each participant's\n"
  "  question starts from, with that participant's own answers exactly\n"
  "  (\"sparse variational population, 100 inducing points\"). Up to 10,000\n"
  "  answers and 500 participants. skewgp status STUDY refreshes the cache\n"
  "  under the stored hyperparameters when it saw fewer answers.\n"
  "--if-due: only when the refit schedule asks for it (the window's and the\n"
  "  study server's too): 2 or more answers and no fit, or 5 answers since\n"
  "  the fit up to 100 answers at the fit, 5% of its answers beyond (at most\n"
  "  250).\n"
  "Prints {\"refitted\": bool, \"fitted\": how | null, \"answers\": n (the\n"
  "answers the fit saw) | null, \"seconds\": CPU seconds | null, \"file\": the\n"
  "fit file written | null, \"model\": {\"name\", \"answers\", \"fit_answers\",\n"
  "\"exact_answers\", \"inducing\", \"refit_due\"}}: \"model\" is what the next\n"
  "question uses.\n"
  "Exit status: 0 success, 1 numerical failure, 2 bad input (or another\n"
  "program is writing the session).\n";

static void
print_refit (gboolean refitted, const char *fitted, guint answers, double seconds,
             const char *file, const SbModelInfo *model)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_bool (b, "refitted", refitted);
  if (refitted)
    {
      sb_json_add_string (b, "fitted", fitted);
      sb_json_add_int (b, "answers", answers);
      skewgp_add_double (b, "seconds", seconds);
    }
  else
    {
      skewgp_add_node (b, "fitted", json_node_new (JSON_NODE_NULL));
      skewgp_add_node (b, "answers", json_node_new (JSON_NODE_NULL));
      skewgp_add_node (b, "seconds", json_node_new (JSON_NODE_NULL));
    }
  if (file != NULL)
    sb_json_add_string (b, "file", file);
  else
    skewgp_add_node (b, "file", json_node_new (JSON_NODE_NULL));
  sb_model_info_add_json (b, "model", model);
  json_builder_end_object (b);
  skewgp_print_builder (b, FALSE);
}

/* ---- A session --------------------------------------------------------------- */

static gboolean
refit_session (const char *path, gboolean if_due, GError **error)
{
  g_autoptr (SbSession) session = skewgp_load_session (path, error);
  g_autoptr (SbFitResult) result = NULL;
  g_autoptr (SbFileLock) lock = NULL;
  g_autofree char *file = NULL;
  SbModelInfo model;
  GError *err = NULL;

  if (session == NULL)
    return FALSE;
  if (!if_due || sb_session_refit_due (session))
    {
      SbJobInput *input = sb_job_input_new (session);
      result = sb_session_refit (input, NULL, &err);
      sb_job_input_free (input);
      if (result == NULL)
        return skewgp_forward_error (err, error);
      /* the fit took its time: store it in the session as it is now */
      lock = skewgp_lock_and_read_session (path, "skewgp refit", &session, error);
      if (lock == NULL)
        return FALSE;
      if (!sb_session_store_fit (session, result, &err))
        return skewgp_forward_error (err, error);
      if (result->sparse != NULL)
        file = sb_session_fit_path (path);
    }
  if (!sb_ask_tell_model (session, &model, &err))
    return skewgp_forward_error (err, error);
  print_refit (result != NULL, result ? result->fitted : NULL,
               result ? result->hyper.n_answers : 0, result ? result->seconds : 0, file,
               &model);
  return TRUE;
}

/* ---- A study's population cache ---------------------------------------------- */

/* What a participant's question uses with CACHE and N answers in all. */
static void
cache_model (const SbPopulationCache *cache, guint n, SbModelInfo *model)
{
  memset (model, 0, sizeof *model);
  model->kind = SB_MODEL_POPULATION;
  model->n_inducing = (guint) cache->pop.M;
  model->answers = n;
  model->fit_answers = cache->n_answers;
  model->refit_due = sb_population_cache_due (cache, n);
}

static gboolean
refit_study (const char *dir, gboolean if_due, GError **error)
{
  g_autoptr (SbStudy) study = skewgp_open_study (dir, error);
  g_autoptr (SbPopulationInput) input = NULL;
  g_autoptr (SbPopulationCache) cache = NULL;
  g_autofree char *file = NULL;
  SbModelInfo model;
  gboolean refit;
  GError *err = NULL;
  guint n;

  if (study == NULL)
    return FALSE;
  input = sb_population_input_new (study, &err);
  if (input == NULL)
    return skewgp_forward_error (err, error);
  n = sb_population_input_n_answers (input);
  cache = sb_population_cache_load (dir, input->experiment, NULL);
  refit = !if_due || sb_population_cache_due (cache, n);
  if (refit)
    {
      g_clear_pointer (&cache, sb_population_cache_unref);
      cache = sb_population_refresh_input (input, TRUE, NULL, &err);
      if (cache == NULL)
        return skewgp_forward_error (err, error);
      file = sb_population_cache_path (dir);
    }
  if (cache == NULL)
    {
      /* not due and none stored: fewer than two answers */
      memset (&model, 0, sizeof model);
      model.answers = model.exact_answers = n;
      model.kind = n > 0 ? SB_MODEL_EXACT : SB_MODEL_NONE;
    }
  else
    cache_model (cache, n, &model);
  print_refit (refit, refit ? cache->hyper.fitted_on : NULL, cache ? cache->n_answers : 0,
               cache ? cache->seconds : 0, file, &model);
  return TRUE;
}

static int
refit_argv (int argc, char **argv)
{
  g_autofree char *participant = NULL;
  gboolean if_due = FALSE;
  const GOptionEntry entries[] = {
    { "participant", 0, 0, G_OPTION_ARG_FILENAME, &participant, NULL, NULL },
    { "if-due", 0, 0, G_OPTION_ARG_NONE, &if_due, NULL, NULL },
    { NULL },
  };
  const SkewgpOptionSpec spec = { "refit", entries, NULL, NULL, 1 };
  g_autoptr (GPtrArray) positional = g_ptr_array_new ();
  g_autofree char *path = NULL;
  double rate;
  GError *error = NULL;

  if (skewgp_parse_options (&spec, argc, argv, positional, &error) && positional->len != 1)
    skewgp_input_error (&error, "expected SESSION.json or STUDY (see skewgp refit --help)");
  if (error == NULL && participant == NULL && skewgp_is_study (positional->pdata[0]))
    refit_study (positional->pdata[0], if_due, &error);
  else if (error == NULL
           && skewgp_resolve_target ("refit", positional->pdata[0], participant, &path, &rate,
                                     NULL, &error))
    refit_session (path, if_due, &error);
  return skewgp_finish ("refit", error);
}

const SkewgpCommand skewgp_command_refit = {
  .name = "refit", .summary = "fit and store the model the questions use",
  .help = refit_help, .run_argv = refit_argv,
};
