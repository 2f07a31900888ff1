/* sb-population-cache.c — a study's cached population posterior
 * (sb-population-cache.h). */
#include "config.h"

#include "sb-population-cache.h"
#include "sb-atomic-file.h"
#include "sb-engine-job.h"
#include "sb-fit-file.h"
#include "sb-test-points.h"

#include "sg-rng.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define CACHE_KIND "population"

/* ---- The object ------------------------------------------------------------- */

static SbPopulationCache *
cache_new (guint dim)
{
  SbPopulationCache *c = g_new0 (SbPopulationCache, 1);

  g_atomic_ref_count_init (&c->ref_count);
  c->dim = dim;
  c->hyper.fitted_on = "";
  c->hyper.log_evidence = NAN;
  return c;
}

SbPopulationCache *
sb_population_cache_ref (SbPopulationCache *cache)
{
  g_atomic_ref_count_inc (&cache->ref_count);
  return cache;
}

void
sb_population_cache_unref (SbPopulationCache *cache)
{
  if (cache && g_atomic_ref_count_dec (&cache->ref_count))
    {
      sg_hier_population_clear (&cache->pop);
      g_strfreev (cache->codes);
      g_strfreev (cache->digests);
      g_free (cache);
    }
}

char *
sb_population_cache_path (const char *study_dir)
{
  return g_build_filename (study_dir, SB_POPULATION_CACHE_FILE, NULL);
}

int
sb_population_cache_find (const SbPopulationCache *cache, const char *code)
{
  for (guint i = 0; code && i < cache->n_people; i++)
    if (g_ascii_strcasecmp (cache->codes[i], code) == 0)
      return (int) i;
  return -1;
}

gboolean
sb_population_cache_due (const SbPopulationCache *cache, guint n_answers)
{
  return sb_fit_schedule_due (n_answers, cache != NULL, cache ? cache->n_answers : 0);
}

/* ---- Building ------------------------------------------------------------------- */

static double
cpu_seconds (void)
{
  return (double) clock () / CLOCKS_PER_SEC;
}

static gboolean
within_limits (const SbPopulationInput *input, GError **error)
{
  guint n = sb_population_input_n_answers (input);

  if (n > SB_STUDY_MAX_ANSWERS)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_TOO_LARGE,
                   "the study has %u answers; its population model runs up to %u (skewgp "
                   "--help, \"Sizes\")", n, SB_STUDY_MAX_ANSWERS);
      return FALSE;
    }
  if (input->n_people > SB_STUDY_MAX_PARTICIPANTS)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_TOO_LARGE,
                   "the study has %u participants included; its population model runs up to "
                   "%u (exclude some, or run it as several studies)", input->n_people,
                   SB_STUDY_MAX_PARTICIPANTS);
      return FALSE;
    }
  for (guint p = 0; p < input->n_people; p++)
    if (sb_population_input_person_answers (input, p) > SB_EXACT_MAX_ANSWERS)
      {
        g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_TOO_LARGE,
                     "participant '%s' has %u answers; a participant's own answers enter "
                     "every question exactly, up to %u", input->codes[p],
                     sb_population_input_person_answers (input, p), SB_EXACT_MAX_ANSWERS);
        return FALSE;
      }
  return TRUE;
}

/* C's roster from INPUT: codes, answers seen and their digests. */
static void
cache_roster (SbPopulationCache *c, const SbPopulationInput *input)
{
  c->n_people = input->n_people;
  c->codes = g_new0 (char *, input->n_people + 1);
  c->digests = g_new0 (char *, input->n_people + 1);
  for (guint p = 0; p < input->n_people; p++)
    {
      c->codes[p] = g_strdup (input->codes[p]);
      c->digests[p] = sb_answers_digest (input->logs[p],
                                         sb_population_input_person_answers (input, p));
    }
  c->n_answers = sb_population_input_n_answers (input);
}

SbPopulationCache *
sb_population_cache_build (const SbPopulationInput *input, const SbPopulationCache *previous,
                           gboolean fit, const sg_progress *progress, GError **error)
{
  const SbExperiment *exp = input->experiment;
  g_autoptr (SbPopulationCache) c = cache_new (exp->n_parameters);
  sg_hier_data hd;
  sg_hier_model model;
  gsl_rng *rng;
  double start = cpu_seconds ();
  int status;

  sb_test_point ("population-refresh");
  if (!within_limits (input, error))
    return NULL;
  if (sb_population_input_n_answers (input) == 0)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                   "the study has no answers yet: nothing to cache");
      return NULL;
    }
  if (previous != NULL)
    {
      c->kernels = previous->kernels;
      c->hyper = previous->hyper;
    }
  else
    sb_population_kernels_default (input, &c->kernels);
  if (!sb_population_build_data (input, &hd, error))
    return NULL;
  if (!sb_population_model_new (exp, &c->kernels, &model, error))
    {
      sg_hier_data_clear (&hd);
      return NULL;
    }
  if (fit)
    {
      sb_population_fit (exp, input->fit_max_evals, &model, &hd, progress, &c->hyper);
      sb_population_kernels_from_model (&model, exp->n_parameters, &c->kernels);
    }
  rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_CACHE);
  status = rng ? sg_hier_population_new (&model, &hd, SB_POPULATION_INDUCING,
                                         SB_POPULATION_CVI_ITERATIONS, rng, progress, &c->pop)
               : SG_ENOMEM;
  sg_rng_free (rng);
  {
    SbPopulationHyper how = c->hyper;
    sb_population_hyper_from_model (exp, &model, &c->hyper);
    c->hyper.fitted = how.fitted;
    c->hyper.fitted_on = how.fitted_on;
    c->hyper.log_evidence = how.log_evidence;
    c->hyper.n_evals = how.n_evals;
  }
  sg_hier_model_clear (&model);
  sg_hier_data_clear (&hd);
  if (sb_engine_failed (status, "the population cache", error))
    return NULL;
  cache_roster (c, input);
  c->created = g_get_real_time ();
  c->seconds = cpu_seconds () - start;
  return g_steal_pointer (&c);
}

gboolean
sb_population_cache_covers (const SbPopulationCache *cache, const SbPopulationInput *input)
{
  if (cache->n_people != input->n_people || cache->dim != input->experiment->n_parameters)
    return FALSE;
  for (guint p = 0; p < input->n_people; p++)
    {
      guint n = sb_population_input_person_answers (input, p);
      g_autofree char *digest = sb_answers_digest (input->logs[p], n);
      if (g_ascii_strcasecmp (cache->codes[p], input->codes[p]) != 0
          || cache->pop.seen[p] != n || g_strcmp0 (digest, cache->digests[p]) != 0)
        return FALSE;
    }
  return TRUE;
}

/* ---- The file ------------------------------------------------------------------- */

static JsonObject *
kernel_object (double variance, const double *lengthscales, guint d)
{
  JsonObject *o = json_object_new ();
  JsonArray *ls = json_array_new ();

  json_object_set_double_member (o, "variance", variance);
  for (guint j = 0; j < d; j++)
    json_array_add_double_element (ls, lengthscales[j]);
  json_object_set_array_member (o, "lengthscales", ls);
  return o;
}

static JsonObject *
kernels_object (const SbPopulationKernels *k, guint d)
{
  JsonObject *o = json_object_new ();

  json_object_set_object_member (o, "population",
                                 kernel_object (k->pop_variance, k->pop_lengthscales, d));
  json_object_set_object_member (o, "individual",
                                 kernel_object (k->ind_variance, k->ind_lengthscales, d));
  json_object_set_double_member (o, "probit_sd", k->probit_sd);
  json_object_set_double_member (o, "numeric_sd", k->numeric_sd);
  json_object_set_double_member (o, "mean", k->mean);
  return o;
}

gboolean
sb_population_cache_save (const SbPopulationCache *cache, const SbExperiment *exp,
                          const char *study_dir, GError **error)
{
  g_autofree char *path = sb_population_cache_path (study_dir);
  g_autoptr (JsonObject) h = json_object_new ();
  g_autofree char *created = sb_format_time (cache->created);
  g_autofree char *model = NULL;
  const sg_hier_population *pop = &cache->pop;
  guint n_sites = (guint) pop->site_start[pop->n_people];
  SbModelInfo info = { .kind = SB_MODEL_POPULATION, .n_inducing = (guint) pop->M };
  JsonArray *names = json_array_new (), *people = json_array_new ();
  g_autofree double *h_col = g_memdup2 (pop->h, pop->M * sizeof (double));
  SbFitArray arrays[] = {
    { "Z", (guint) pop->M, (guint) pop->dim, pop->Z },
    { "P", (guint) pop->M, (guint) pop->M, pop->P },
    { "h", (guint) pop->M, 1, h_col },
    { "lambda", n_sites, 1, pop->lambda },
    { "eta", n_sites, 1, pop->eta },
  };

  model = sb_model_info_name (&info);
  json_object_set_string_member (h, "model", model);
  json_object_set_int_member (h, "inducing", (gint64) pop->M);
  json_object_set_int_member (h, "dim", (gint64) pop->dim);
  for (guint j = 0; j < exp->n_parameters; j++)
    json_array_add_string_element (names, exp->parameters[j].name);
  json_object_set_array_member (h, "parameters", names);
  json_object_set_int_member (h, "answers", cache->n_answers);
  json_object_set_int_member (h, "iterations", (gint64) pop->iterations);
  json_object_set_double_member (h, "change", pop->change);
  json_object_set_string_member (h, "created", created);
  json_object_set_double_member (h, "seconds", cache->seconds);
  json_object_set_object_member (h, "kernels", kernels_object (&cache->kernels, cache->dim));
  json_object_set_string_member (h, "fitted", cache->hyper.fitted_on);
  if (isfinite (cache->hyper.log_evidence))
    json_object_set_double_member (h, "log_evidence", cache->hyper.log_evidence);
  else
    json_object_set_null_member (h, "log_evidence");
  json_object_set_int_member (h, "evaluations", cache->hyper.n_evals);
  for (guint p = 0; p < cache->n_people; p++)
    {
      JsonObject *o = json_object_new ();
      json_object_set_string_member (o, "code", cache->codes[p]);
      json_object_set_int_member (o, "answers", (gint64) pop->seen[p]);
      json_object_set_string_member (o, "answers_sha256", cache->digests[p]);
      json_object_set_int_member (o, "sites",
                                  (gint64) (pop->site_start[p + 1] - pop->site_start[p]));
      json_array_add_object_element (people, o);
    }
  json_object_set_array_member (h, "participants", people);
  return sb_fit_file_write (path, CACHE_KIND, h, arrays, G_N_ELEMENTS (arrays), error);
}

/* ---- Reading it back ---------------------------------------------------------------- */

static gboolean
bad (GError **error, const char *path, const char *what)
{
  g_set_error (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_DAMAGED, "%s is damaged: %s", path,
               what);
  return FALSE;
}

static JsonNode *
member (JsonObject *o, const char *name)
{
  return o && json_object_has_member (o, name) ? json_object_get_member (o, name) : NULL;
}

static gboolean
number (JsonObject *o, const char *name, double *out)
{
  JsonNode *n = member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || (json_node_get_value_type (n) != G_TYPE_DOUBLE
          && json_node_get_value_type (n) != G_TYPE_INT64))
    return FALSE;
  *out = json_node_get_double (n);
  return isfinite (*out);
}

static gboolean
count (JsonObject *o, const char *name, guint64 max, guint64 *out)
{
  double v;

  if (!number (o, name, &v) || v < 0 || v > (double) max || v != floor (v))
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

static const char *
string (JsonObject *o, const char *name)
{
  JsonNode *n = member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static JsonObject *
object (JsonObject *o, const char *name)
{
  JsonNode *n = member (o, name);

  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static JsonArray *
array (JsonObject *o, const char *name)
{
  JsonNode *n = member (o, name);

  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* A kernel part {"variance", "lengthscales"} of D positive values. */
static gboolean
read_kernel (JsonObject *o, guint d, double *variance, double *lengthscales)
{
  JsonArray *ls = array (o, "lengthscales");

  if (!number (o, "variance", variance) || *variance < 0 || ls == NULL
      || json_array_get_length (ls) != d)
    return FALSE;
  for (guint j = 0; j < d; j++)
    {
      JsonNode *e = json_array_get_element (ls, j);
      if (!JSON_NODE_HOLDS_VALUE (e)
          || (json_node_get_value_type (e) != G_TYPE_DOUBLE
              && json_node_get_value_type (e) != G_TYPE_INT64))
        return FALSE;
      lengthscales[j] = json_node_get_double (e);
      if (!(lengthscales[j] > 0) || !isfinite (lengthscales[j]))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_kernels (JsonObject *h, guint d, SbPopulationKernels *k)
{
  JsonObject *o = object (h, "kernels");

  memset (k, 0, sizeof *k);
  return o != NULL
         && read_kernel (object (o, "population"), d, &k->pop_variance, k->pop_lengthscales)
         && read_kernel (object (o, "individual"), d, &k->ind_variance, k->ind_lengthscales)
         && k->pop_variance > 0
         && number (o, "probit_sd", &k->probit_sd) && k->probit_sd > 0
         && number (o, "numeric_sd", &k->numeric_sd) && k->numeric_sd > 0
         && number (o, "mean", &k->mean);
}

/* The cache is of EXP: its parameters' names, in order. */
static gboolean
same_experiment (JsonObject *h, const SbExperiment *exp)
{
  JsonArray *names = array (h, "parameters");

  if (names == NULL || json_array_get_length (names) != exp->n_parameters)
    return FALSE;
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      JsonNode *e = json_array_get_element (names, j);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING
          || g_strcmp0 (json_node_get_string (e), exp->parameters[j].name) != 0)
        return FALSE;
    }
  return TRUE;
}

/* The participants: codes, seen answers, digests and site offsets. */
static gboolean
read_people (SbPopulationCache *c, JsonObject *h, const char *path, GError **error)
{
  JsonArray *people = array (h, "participants");
  sg_hier_population *pop = &c->pop;
  guint n = people ? json_array_get_length (people) : 0;
  guint64 total = 0;

  if (people == NULL || n > SB_STUDY_MAX_PARTICIPANTS)
    return bad (error, path, "its header's \"participants\" is not a list of participants");
  c->n_people = n;
  pop->n_people = n;
  c->codes = g_new0 (char *, n + 1);
  c->digests = g_new0 (char *, n + 1);
  pop->seen = g_new0 (size_t, n + 1);
  pop->site_start = g_new0 (size_t, n + 1);
  for (guint p = 0; p < n; p++)
    {
      JsonNode *e = json_array_get_element (people, p);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (e) ? json_node_get_object (e) : NULL;
      const char *code = string (o, "code"), *digest = string (o, "answers_sha256");
      guint64 seen, sites;
      if (code == NULL || digest == NULL || !count (o, "answers", SB_STUDY_MAX_ANSWERS, &seen)
          || !count (o, "sites", G_MAXINT32, &sites))
        return bad (error, path, "a participant of its header lacks a code, answers, a digest "
                    "or sites");
      c->codes[p] = g_strdup (code);
      c->digests[p] = g_strdup (digest);
      pop->seen[p] = seen;
      pop->site_start[p + 1] = pop->site_start[p] + sites;
      total += seen;
    }
  if (total != c->n_answers)
    return bad (error, path, "its participants' answers do not add up to its \"answers\"");
  return TRUE;
}

/* The arrays into POP (M points of DIM coordinates, SITES sites). */
static gboolean
read_arrays (SbPopulationCache *c, SbFitFile *f, guint M, guint dim, GError **error)
{
  sg_hier_population *pop = &c->pop;
  guint sites = (guint) pop->site_start[pop->n_people];
  const double *Z = sb_fit_file_get_array (f, "Z", M, dim, error);
  const double *P = Z ? sb_fit_file_get_array (f, "P", M, M, error) : NULL;
  const double *h = P ? sb_fit_file_get_array (f, "h", M, 1, error) : NULL;
  const double *lambda = h ? sb_fit_file_get_array (f, "lambda", sites, 1, error) : NULL;
  const double *eta = lambda ? sb_fit_file_get_array (f, "eta", sites, 1, error) : NULL;

  if (eta == NULL)
    return FALSE;
  pop->dim = dim;
  pop->M = M;
  pop->Z = g_memdup2 (Z, (gsize) M * dim * sizeof (double));
  pop->P = g_memdup2 (P, (gsize) M * M * sizeof (double));
  pop->h = g_memdup2 (h, (gsize) M * sizeof (double));
  pop->lambda = g_memdup2 (lambda, ((gsize) sites + 1) * sizeof (double));
  pop->eta = g_memdup2 (eta, ((gsize) sites + 1) * sizeof (double));
  return TRUE;
}

/* The model's kernel, POP's Lk and the reported hyperparameters. */
static gboolean
restore (SbPopulationCache *c, const SbExperiment *exp, const char *path, GError **error)
{
  sg_hier_model model;
  int status;

  if (!sb_population_model_new (exp, &c->kernels, &model, error))
    return FALSE;
  status = sg_hier_model_kernel (&model, &c->pop.kernel);
  c->pop.mean = model.mean;
  sb_population_hyper_from_model (exp, &model, &c->hyper);
  sg_hier_model_clear (&model);
  if (status == SG_OK && c->pop.kernel.dim != c->pop.dim)
    status = SG_EINVAL;
  if (status == SG_OK)
    status = sg_hier_population_restore (&c->pop);
  if (status != SG_OK)
    return bad (error, path, "its points and kernels do not make a valid model");
  return TRUE;
}

SbPopulationCache *
sb_population_cache_load (const char *study_dir, const SbExperiment *exp, GError **error)
{
  g_autofree char *path = sb_population_cache_path (study_dir);
  g_autoptr (SbFitFile) f = sb_fit_file_read (path, CACHE_KIND, error);
  g_autoptr (SbPopulationCache) c = NULL;
  guint64 M, dim, answers, iterations = 0, evals = 0;
  const char *fitted;
  JsonObject *h;

  if (f == NULL)
    return NULL;
  h = sb_fit_file_get_header (f);
  c = cache_new (exp->n_parameters);
  if (!same_experiment (h, exp) || !count (h, "dim", SB_MAX_PARAMETERS + 1, &dim)
      || dim != exp->n_parameters + 1)
    {
      g_set_error (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_DAMAGED,
                   "%s is the cache of another experiment (its parameters differ)", path);
      return NULL;
    }
  fitted = string (h, "fitted");
  if (!count (h, "inducing", 100000, &M) || M == 0
      || !count (h, "answers", SB_STUDY_MAX_ANSWERS, &answers)
      || !read_kernels (h, exp->n_parameters, &c->kernels) || fitted == NULL)
    {
      bad (error, path, "its header lacks the inducing points, the answers it saw or valid "
           "kernels");
      return NULL;
    }
  c->n_answers = (guint) answers;
  c->hyper.fitted_on = sb_population_fitted_on (fitted);
  count (h, "iterations", G_MAXINT32, &iterations);
  count (h, "evaluations", G_MAXINT32, &evals);
  number (h, "change", &c->pop.change);
  number (h, "seconds", &c->seconds);
  c->pop.iterations = iterations;
  if (!read_people (c, h, path, error) || !read_arrays (c, f, (guint) M, (guint) dim, error)
      || !restore (c, exp, path, error))
    return NULL;
  c->hyper.fitted = *c->hyper.fitted_on != '\0';
  c->hyper.n_evals = (guint) evals;
  if (!number (h, "log_evidence", &c->hyper.log_evidence))
    c->hyper.log_evidence = NAN;
  {
    const char *created = string (h, "created");
    g_autoptr (GDateTime) t = created ? g_date_time_new_from_iso8601 (created, NULL) : NULL;
    c->created = t ? g_date_time_to_unix (t) * G_USEC_PER_SEC + g_date_time_get_microsecond (t)
                   : 0;
  }
  return g_steal_pointer (&c);
}

/* ---- A participant's question model --------------------------------------------------- */

gboolean
sb_population_cache_person (const SbPopulationCache *cache, const SbExperiment *exp,
                            const sg_hier_model *model, const char *code, GPtrArray *log,
                            sg_hier_data *own, size_t *person, sg_svgp_pseudo *pseudo,
                            GError **error)
{
  int index = sb_population_cache_find (cache, code);
  guint n_own = sb_answers_count (log);
  guint p = index >= 0 ? (guint) index : cache->n_people;
  int status;

  if (n_own > SB_EXACT_MAX_ANSWERS)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_TOO_LARGE,
                   "participant '%s' has %u answers; a participant's own answers enter every "
                   "question exactly, up to %u", code, n_own, SB_EXACT_MAX_ANSWERS);
      return FALSE;
    }
  if (index >= 0)
    {
      guint seen = (guint) cache->pop.seen[index];
      g_autofree char *digest = sb_answers_digest (log, seen);
      if (digest == NULL || g_strcmp0 (digest, cache->digests[index]) != 0)
        {
          g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                       "answers of participant '%s' that the population cache saw were "
                       "removed, restored or changed since", code);
          return FALSE;
        }
    }
  if (!sb_population_person_data (exp, log, code, p, MAX (cache->n_people, p + 1), own, error))
    return FALSE;
  status = sg_hier_population_pseudo (&cache->pop, model, own, p, pseudo);
  if (sb_engine_failed (status, "the population cache's summary", error))
    {
      sg_hier_data_clear (own);
      return FALSE;
    }
  *person = p;
  return TRUE;
}

/* ---- Refreshing ------------------------------------------------------------------------- */

SbPopulationCache *
sb_population_refresh_input (const SbPopulationInput *input, gboolean fit,
                             const sg_progress *progress, GError **error)
{
  g_autoptr (SbPopulationCache) previous = NULL;
  g_autoptr (SbPopulationCache) cache = NULL;

  g_return_val_if_fail (input->dir != NULL, NULL);
  /* the stored kernels carry over; a damaged or foreign file is replaced */
  previous = sb_population_cache_load (input->dir, input->experiment, NULL);
  cache = sb_population_cache_build (input, previous, fit, progress, error);
  if (cache == NULL
      || !sb_population_cache_save (cache, input->experiment, input->dir, error))
    return NULL;
  return g_steal_pointer (&cache);
}

SbPopulationCache *
sb_population_refresh (SbStudy *study, gboolean fit, const sg_progress *progress,
                       GError **error)
{
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, error);

  if (input == NULL)
    return NULL;
  return sb_population_refresh_input (input, fit, progress, error);
}

typedef struct {
  char *dir;
  gboolean fit;
  SbFitProgress *progress;
} RefreshTask;

static void
refresh_task_free (RefreshTask *t)
{
  g_free (t->dir);
  sb_fit_progress_free (t->progress);
  g_free (t);
}

static void
refresh_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  RefreshTask *t = task_data;
  GError *error = NULL;
  g_autoptr (SbStudy) study = sb_study_open (t->dir, &error);
  SbPopulationCache *cache = study ? sb_population_refresh (study, t->fit,
                                                            sb_fit_progress_get (t->progress),
                                                            &error)
                                   : NULL;

  if (cache != NULL)
    g_task_return_pointer (task, cache, (GDestroyNotify) sb_population_cache_unref);
  else
    g_task_return_error (task, error);
}

void
sb_population_refresh_async (SbStudy *study, gboolean fit, GCancellable *cancellable,
                             SbFitProgressFunc progress_func, gpointer progress_data,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  RefreshTask *t = g_new0 (RefreshTask, 1);

  /* the thread reads the study from its folder: an SbStudy belongs to
   * the thread that made it */
  t->dir = g_strdup (sb_study_get_dir (study));
  t->fit = fit;
  t->progress = sb_fit_progress_new (cancellable, progress_func, progress_data);
  g_task_set_source_tag (task, sb_population_refresh_async);
  g_task_set_task_data (task, t, (GDestroyNotify) refresh_task_free);
  g_task_run_in_thread (task, refresh_thread);
}

SbPopulationCache *
sb_population_refresh_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
