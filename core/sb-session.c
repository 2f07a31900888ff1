/* sb-session.c — the session model and its JSON file (DESIGN §4).
 *
 * Saving follows GNOME Text Editor's editor-session.c: serialise the whole
 * state to a versioned document and replace the file atomically, here with
 * g_file_set_contents_full (write a temporary file in the same directory,
 * fsync it, rename it over the old one), so a crash at any moment leaves
 * either the previous or the new complete file, never a torn one.
 */
#include "config.h"

#include "sb-session.h"
#include "sb-json-read.h"
#include "sb-json-write.h"
#include "sg-bo.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sb-session-error-quark, sb_session_error)

struct _SbSession
{
  GObject parent_instance;

  SbExperiment *experiment;
  GPtrArray *observations;  /* SbLogEntry, owned */
  GFile *file;              /* NULL: not saved anywhere */
  SbHyper hyper;
  gboolean background_save;
  gint64 created;
};

G_DEFINE_FINAL_TYPE (SbSession, sb_session, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_N_OBSERVATIONS,
  N_PROPS
};

enum {
  CHANGED,
  SAVED,
  SAVE_FAILED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- Names ------------------------------------------------------------- */

/* Modes, acquisitions and surrogates are the engine's enums and are named
 * by the engine's tables (sg-bo.h); templates and log kinds are the
 * session's own. */
G_STATIC_ASSERT (SB_MAX_PARAMETERS == SG_BO_MAX_DIM);

static const char *const template_names[] = { "colour", "benchmark", "custom" };
static const char *const kind_names[] = { "duel", "value", "failed", "skip" };

static gboolean
lookup_name (const char *const *names, guint n, const char *name, guint *out)
{
  for (guint i = 0; name != NULL && i < n; i++)
    if (g_str_equal (names[i], name))
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

const char *
sb_mode_to_string (SbMode mode)
{
  return sg_bo_mode_name (mode <= SB_MODE_SAFE ? (sg_bo_mode) mode : SG_BO_PREFERENCE);
}

gboolean
sb_mode_from_string (const char *name, SbMode *mode)
{
  sg_bo_mode m;
  if (sg_bo_mode_parse (name, &m) != SG_OK || m > (sg_bo_mode) SB_MODE_SAFE)
    return FALSE;
  *mode = (SbMode) m;
  return TRUE;
}

const char *
sb_template_to_string (SbTemplate kind)
{
  return (guint) kind < G_N_ELEMENTS (template_names) ? template_names[kind] : "custom";
}

gboolean
sb_template_from_string (const char *name, SbTemplate *kind)
{
  guint i;
  if (!lookup_name (template_names, G_N_ELEMENTS (template_names), name, &i))
    return FALSE;
  *kind = (SbTemplate) i;
  return TRUE;
}

const char *
sb_log_kind_to_string (SbLogKind kind)
{
  return (guint) kind < G_N_ELEMENTS (kind_names) ? kind_names[kind] : "skip";
}

/* ---- Experiment -------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (SbExperiment, sb_experiment, sb_experiment_copy, sb_experiment_free)

SbExperiment *
sb_experiment_new (void)
{
  SbExperiment *exp = g_new0 (SbExperiment, 1);

  exp->title = g_strdup ("Experiment");
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->mode = SB_MODE_PREFERENCE;
  exp->acquisition = SG_BO_ACQ_UCB;
  exp->surrogate = SG_BO_SURROGATE_SKEWGP;
  exp->budget = 30;
  exp->initial = 2;
  exp->seed = 1;
  exp->threshold = 0.0;
  exp->numeric_every = 4;
  exp->problem = g_strdup ("");
  exp->autoplay_ms = 600;
  return exp;
}

SbExperiment *
sb_experiment_copy (const SbExperiment *exp)
{
  SbExperiment *copy = g_memdup2 (exp, sizeof *exp);

  copy->title = g_strdup (exp->title);
  copy->problem = g_strdup (exp->problem);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      copy->parameters[i].name = g_strdup (exp->parameters[i].name);
      copy->parameters[i].unit = g_strdup (exp->parameters[i].unit);
    }
  return copy;
}

void
sb_experiment_free (SbExperiment *exp)
{
  if (exp == NULL)
    return;
  g_free (exp->title);
  g_free (exp->problem);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      g_free (exp->parameters[i].name);
      g_free (exp->parameters[i].unit);
    }
  g_free (exp);
}

gboolean
sb_experiment_add_parameter (SbExperiment *exp, const char *name, const char *unit,
                             double lower, double upper)
{
  if (exp->n_parameters >= SB_MAX_PARAMETERS || name == NULL || *name == '\0'
      || !isfinite (lower) || !isfinite (upper) || !(lower < upper))
    return FALSE;

  SbParameter *p = &exp->parameters[exp->n_parameters++];
  p->name = g_strdup (name);
  p->unit = g_strdup (unit ? unit : "");
  p->lower = lower;
  p->upper = upper;
  return TRUE;
}

/* The surrogate serves the mode: the sparse variational GP models duels
 * only (preference mode), the two-GP baseline is a safe-mode method. */
static gboolean
surrogate_fits_mode (const SbExperiment *exp, GError **error)
{
  sg_bo_surrogate s = exp->surrogate;

  if ((s == SG_BO_SURROGATE_SVGP && exp->mode != SB_MODE_PREFERENCE)
      || (s == SG_BO_SURROGATE_TWO_GP && exp->mode != SB_MODE_SAFE))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the surrogate '%s' serves %s mode only", sg_bo_surrogate_name (s),
                   sb_mode_to_string (s == SG_BO_SURROGATE_SVGP ? SB_MODE_PREFERENCE
                                                                : SB_MODE_SAFE));
      return FALSE;
    }
  return TRUE;
}

gboolean
sb_experiment_validate (const SbExperiment *exp, GError **error)
{
  if (exp->n_parameters == 0)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the experiment has no parameters");
      return FALSE;
    }
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      const SbParameter *p = &exp->parameters[i];
      if (p->name == NULL || *p->name == '\0')
        {
          g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                       "parameter %u has no name", i + 1);
          return FALSE;
        }
      if (!isfinite (p->lower) || !isfinite (p->upper) || !(p->lower < p->upper))
        {
          g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                       "parameter '%s': the range [%g, %g] is empty",
                       p->name, p->lower, p->upper);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (g_str_equal (p->name, exp->parameters[j].name))
          {
            g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                         "two parameters are called '%s'", p->name);
            return FALSE;
          }
    }
  if (exp->budget == 0)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the budget must be at least one question");
      return FALSE;
    }
  if (exp->template_kind == SB_TEMPLATE_BENCHMARK && (exp->problem == NULL || !*exp->problem))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "a benchmark experiment needs a problem name");
      return FALSE;
    }
  if (!isfinite (exp->threshold))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the safety threshold is not a number");
      return FALSE;
    }
  return surrogate_fits_mode (exp, error);
}

/* ---- Observations ------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (SbLogEntry, sb_log_entry, sb_log_entry_copy, sb_log_entry_free)

static SbLogEntry *
log_entry_new (SbLogKind kind, guint dim, const double *a, const double *b)
{
  SbLogEntry *obs = g_new0 (SbLogEntry, 1);

  obs->kind = kind;
  obs->dim = dim;
  obs->time = g_get_real_time ();
  obs->value = NAN;
  obs->a = g_memdup2 (a, dim * sizeof (double));
  obs->b = b ? g_memdup2 (b, dim * sizeof (double)) : NULL;
  return obs;
}

SbLogEntry *
sb_log_entry_copy (const SbLogEntry *obs)
{
  SbLogEntry *copy = g_memdup2 (obs, sizeof *obs);

  copy->a = g_memdup2 (obs->a, obs->dim * sizeof (double));
  copy->b = obs->b ? g_memdup2 (obs->b, obs->dim * sizeof (double)) : NULL;
  return copy;
}

void
sb_log_entry_free (SbLogEntry *obs)
{
  if (obs == NULL)
    return;
  g_free (obs->a);
  g_free (obs->b);
  g_free (obs);
}

/* ---- GObject ------------------------------------------------------------ */

static void
sb_session_finalize (GObject *object)
{
  SbSession *self = SB_SESSION (object);

  g_clear_pointer (&self->experiment, sb_experiment_free);
  g_clear_pointer (&self->observations, g_ptr_array_unref);
  g_clear_object (&self->file);
  G_OBJECT_CLASS (sb_session_parent_class)->finalize (object);
}

static void
sb_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SbSession *self = SB_SESSION (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_N_OBSERVATIONS:
      g_value_set_uint (value, self->observations->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sb_session_class_init (SbSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sb_session_finalize;
  object_class->get_property = sb_session_get_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_OBSERVATIONS] =
    g_param_spec_uint ("n-observations", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted after the observation log changed (append or undo). */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
  /* The log with N entries is on disk (after a change was saved). */
  signals[SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass),
                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_UINT);
  /* A background save failed; the answers stay in memory. */
  signals[SAVE_FAILED] = g_signal_new ("save-failed", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sb_session_init (SbSession *self)
{
  self->observations = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_log_entry_free);
  self->created = g_get_real_time ();
}

SbSession *
sb_session_new (const SbExperiment *exp)
{
  SbSession *self = g_object_new (SB_TYPE_SESSION, NULL);

  self->experiment = sb_experiment_copy (exp);
  return self;
}

const SbExperiment *
sb_session_get_experiment (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return self->experiment;
}

GFile *
sb_session_get_file (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return self->file;
}

guint
sb_session_get_n_observations (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->observations->len;
}

const SbLogEntry *
sb_session_get_observation (SbSession *self, guint index)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < self->observations->len, NULL);
  return g_ptr_array_index (self->observations, index);
}

guint
sb_session_get_n_answers (SbSession *self)
{
  guint n = 0;

  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  for (guint i = 0; i < self->observations->len; i++)
    if (((SbLogEntry *) g_ptr_array_index (self->observations, i))->kind != SB_LOG_SKIP)
      n++;
  return n;
}

GPtrArray *
sb_session_dup_observations (SbSession *self)
{
  GPtrArray *copy;

  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  copy = g_ptr_array_new_full (self->observations->len, (GDestroyNotify) sb_log_entry_free);
  for (guint i = 0; i < self->observations->len; i++)
    g_ptr_array_add (copy, sb_log_entry_copy (g_ptr_array_index (self->observations, i)));
  return copy;
}

/* ---- Serialisation ----------------------------------------------------- */

static char *
format_time (gint64 time_us)
{
  g_autoptr (GDateTime) dt = g_date_time_new_from_unix_utc (time_us / G_USEC_PER_SEC);
  g_autoptr (GDateTime) exact = dt ? g_date_time_add (dt, time_us % G_USEC_PER_SEC) : NULL;
  return exact ? g_date_time_format_iso8601 (exact) : g_strdup ("");
}

static JsonNode *
vector_node (const double *x, guint n)
{
  JsonArray *array = json_array_sized_new (n);
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < n; i++)
    json_array_add_double_element (array, x[i]);
  json_node_take_array (node, array);
  return node;
}

static JsonNode *
experiment_to_node (const SbExperiment *exp)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, exp->title);
  json_builder_set_member_name (b, "template");
  json_builder_add_string_value (b, sb_template_to_string (exp->template_kind));
  json_builder_set_member_name (b, "mode");
  json_builder_add_string_value (b, sb_mode_to_string (exp->mode));
  json_builder_set_member_name (b, "acquisition");
  json_builder_add_string_value (b, sg_bo_acquisition_name (exp->acquisition));
  json_builder_set_member_name (b, "surrogate");
  json_builder_add_string_value (b, sg_bo_surrogate_name (exp->surrogate));
  json_builder_set_member_name (b, "budget");
  json_builder_add_int_value (b, exp->budget);
  json_builder_set_member_name (b, "initial");
  json_builder_add_int_value (b, exp->initial);
  json_builder_set_member_name (b, "seed");
  json_builder_add_int_value (b, (gint64) exp->seed);
  json_builder_set_member_name (b, "threshold");
  json_builder_add_double_value (b, exp->threshold);
  json_builder_set_member_name (b, "numeric_every");
  json_builder_add_int_value (b, exp->numeric_every);
  json_builder_set_member_name (b, "problem");
  json_builder_add_string_value (b, exp->problem ? exp->problem : "");
  json_builder_set_member_name (b, "oracle");
  json_builder_add_string_value (b, exp->simulated ? "simulated" : "human");
  json_builder_set_member_name (b, "show_truth");
  json_builder_add_boolean_value (b, exp->show_truth);
  json_builder_set_member_name (b, "autoplay_ms");
  json_builder_add_int_value (b, exp->autoplay_ms);
  json_builder_set_member_name (b, "oracle_noise");
  json_builder_add_double_value (b, exp->oracle_noise);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      const SbParameter *p = &exp->parameters[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, p->name);
      json_builder_set_member_name (b, "unit");
      json_builder_add_string_value (b, p->unit);
      json_builder_set_member_name (b, "lower");
      json_builder_add_double_value (b, p->lower);
      json_builder_set_member_name (b, "upper");
      json_builder_add_double_value (b, p->upper);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static JsonNode *
observation_to_node (const SbLogEntry *obs)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "kind", sb_log_kind_to_string (obs->kind));
  {
    g_autofree char *t = format_time (obs->time);
    json_object_set_string_member (o, "time", t);
  }
  json_object_set_int_member (o, "time_us", obs->time);
  json_object_set_member (o, obs->b ? "a" : "x", vector_node (obs->a, obs->dim));
  if (obs->b)
    json_object_set_member (o, "b", vector_node (obs->b, obs->dim));
  if (obs->kind == SB_LOG_DUEL)
    json_object_set_string_member (o, "winner", obs->winner ? "b" : "a");
  if (obs->kind == SB_LOG_VALUE)
    json_object_set_double_member (o, "value", obs->value);
  json_node_take_object (node, o);
  return node;
}

static JsonNode *
hyper_to_node (const SbHyper *h, guint dim)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_int_member (o, "answers", h->n_answers);
  json_object_set_string_member (o, "kernel", h->matern52 ? "matern52" : "rbf");
  json_object_set_double_member (o, "variance", h->variance);
  json_object_set_member (o, "lengthscales", vector_node (h->lengthscales, dim));
  json_object_set_double_member (o, "mean", h->mean);
  json_object_set_double_member (o, "numeric_sd", h->numeric_sd);
  json_object_set_double_member (o, "probit_sd", h->probit_sd);
  if (isfinite (h->log_evidence))
    json_object_set_double_member (o, "log_evidence", h->log_evidence);
  json_node_take_object (node, o);
  return node;
}

char *
sb_session_to_data (SbSession *self, gsize *length)
{
  JsonObject *root = json_object_new ();
  JsonArray *log = json_array_sized_new (self->observations->len);
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *created = format_time (self->created);

  json_object_set_string_member (root, "format", SB_SESSION_FORMAT);
  json_object_set_int_member (root, "version", SB_SESSION_VERSION);
  json_object_set_string_member (root, "created", created);
  json_object_set_member (root, "experiment", experiment_to_node (self->experiment));
  for (guint i = 0; i < self->observations->len; i++)
    json_array_add_element (log, observation_to_node (g_ptr_array_index (self->observations, i)));
  json_object_set_array_member (root, "observations", log);
  if (self->hyper.valid)
    json_object_set_member (root, "hyperparameters",
                            hyper_to_node (&self->hyper, self->experiment->n_parameters));
  json_node_take_object (node, root);

  /* Not json_generator: json-glib 1.6 writes 1e-14 as "1e-14.0". */
  return sb_json_write (node, TRUE, length);
}

gboolean
sb_session_save (SbSession *self, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *path = NULL;
  gsize len;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);

  if (self->file == NULL)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_NO_FILE,
                   "the session has no file");
      return FALSE;
    }
  path = g_file_get_path (self->file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "sessions can only be saved to local files");
      return FALSE;
    }
  data = sb_session_to_data (self, &len);
  /* CONSISTENT: temporary file + fsync + rename, so the file on disk is
   * always a complete document (the old one or the new one). */
  return g_file_set_contents_full (path, data, len,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

/* ---- Saving in the background --------------------------------------------
 * One writer thread takes the serialised documents in the order they were
 * made and replaces the file atomically (with the fsync that
 * G_FILE_SET_CONTENTS_CONSISTENT implies), so a slow disk never blocks the
 * main loop. The document is serialised on the main thread, at the moment
 * of the change; ::saved is emitted on the main thread once it is on disk. */

typedef struct {
  SbSession *session;   /* strong reference */
  char *path;
  char *data;
  gsize length;
  guint n_observations;
  GError *error;
} SaveTask;

static GMutex writer_mutex;
static GCond writer_cond;
static guint writer_pending;
static GThreadPool *writer_pool;

static gboolean
save_done_idle (gpointer user_data)
{
  SaveTask *task = user_data;

  if (task->error)
    g_signal_emit (task->session, signals[SAVE_FAILED], 0, task->error);
  else
    g_signal_emit (task->session, signals[SAVED], 0, task->n_observations);
  g_object_unref (task->session);
  g_clear_error (&task->error);
  g_free (task->path);
  g_free (task->data);
  g_free (task);
  return G_SOURCE_REMOVE;
}

static void
writer_thread (gpointer data, gpointer user_data)
{
  SaveTask *task = data;

  g_file_set_contents_full (task->path, task->data, task->length,
                            G_FILE_SET_CONTENTS_CONSISTENT, 0644, &task->error);
  g_mutex_lock (&writer_mutex);
  writer_pending--;
  g_cond_broadcast (&writer_cond);
  g_mutex_unlock (&writer_mutex);
  g_idle_add_full (G_PRIORITY_DEFAULT, save_done_idle, task, NULL);
}

static void
save_in_background (SbSession *self)
{
  SaveTask *task = g_new0 (SaveTask, 1);

  task->session = g_object_ref (self);
  task->path = g_file_get_path (self->file);
  task->data = sb_session_to_data (self, &task->length);
  task->n_observations = self->observations->len;
  g_mutex_lock (&writer_mutex);
  if (writer_pool == NULL)
    writer_pool = g_thread_pool_new (writer_thread, NULL, 1, FALSE, NULL);
  writer_pending++;
  g_mutex_unlock (&writer_mutex);
  g_thread_pool_push (writer_pool, task, NULL);
}

void
sb_session_set_save_in_background (SbSession *self, gboolean background)
{
  g_return_if_fail (SB_IS_SESSION (self));
  self->background_save = !!background;
}

void
sb_session_flush_all (void)
{
  g_mutex_lock (&writer_mutex);
  while (writer_pending > 0)
    g_cond_wait (&writer_cond, &writer_mutex);
  g_mutex_unlock (&writer_mutex);
}

gboolean
sb_session_save_as (SbSession *self, GFile *file, GError **error)
{
  g_autoptr (GFile) old = NULL;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  old = g_steal_pointer (&self->file);
  self->file = g_object_ref (file);
  if (!sb_session_save (self, error))
    {
      g_clear_object (&self->file);
      self->file = g_steal_pointer (&old);
      return FALSE;
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
  return TRUE;
}

/* ---- Parsing ----------------------------------------------------------- */

/* Line and column (1-based) of the first occurrence of "KEY": in DATA, so
 * that content errors point into the file like parse errors do. */
static void
locate_member (const char *data, const char *key, guint *line, guint *column)
{
  g_autofree char *needle = g_strdup_printf ("\"%s\"", key);
  const char *hit = data ? strstr (data, needle) : NULL;

  *line = 1;
  *column = 1;
  if (hit == NULL)
    return;
  for (const char *p = data; p < hit; p++)
    {
      if (*p == '\n')
        {
          (*line)++;
          *column = 1;
        }
      else
        (*column)++;
    }
}

typedef struct {
  const char *name;  /* file name for messages */
  const char *data;
} ParseContext;

G_GNUC_PRINTF (5, 6) static void
content_error (const ParseContext *ctx, GError **error, SbSessionError code,
               const char *key, const char *format, ...)
{
  g_autofree char *msg = NULL;
  guint line, column;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  locate_member (ctx->data, key, &line, &column);
  g_set_error (error, SB_SESSION_ERROR, code, "%s:%u:%u: %s", ctx->name, line, column, msg);
}

static gboolean
get_member (const ParseContext *ctx, JsonObject *obj, const char *key, GType type,
            gboolean required, JsonNode **out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  *out = NULL;
  if (node == NULL)
    {
      if (required)
        content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                       "the member '%s' is missing", key);
      return !required;
    }
  if (type == JSON_TYPE_OBJECT || type == JSON_TYPE_ARRAY)
    {
      JsonNodeType want = type == JSON_TYPE_OBJECT ? JSON_NODE_OBJECT : JSON_NODE_ARRAY;
      if (JSON_NODE_TYPE (node) != want)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, key, "'%s' must be %s", key,
                         want == JSON_NODE_OBJECT ? "an object" : "an array");
          return FALSE;
        }
    }
  else
    {
      GType vt = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
      gboolean ok = type == G_TYPE_DOUBLE ? (vt == G_TYPE_DOUBLE || vt == G_TYPE_INT64)
                  : type == G_TYPE_INT64 ? vt == G_TYPE_INT64
                  : vt == type;
      if (!ok)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, key, "'%s' must be %s", key,
                         type == G_TYPE_STRING ? "a string"
                         : type == G_TYPE_BOOLEAN ? "true or false"
                         : type == G_TYPE_INT64 ? "an integer" : "a number");
          return FALSE;
        }
    }
  *out = node;
  return TRUE;
}

#define GET_OR_FAIL(obj, key, type, required, node)                     \
  if (!get_member (ctx, obj, key, type, required, &node, error))        \
    return FALSE

static gboolean
parse_count (const ParseContext *ctx, JsonObject *obj, const char *key, guint min, guint max,
             guint *out, GError **error)
{
  JsonNode *node;
  gint64 v;

  GET_OR_FAIL (obj, key, G_TYPE_INT64, FALSE, node);
  if (node == NULL)
    return TRUE;
  v = json_node_get_int (node);
  if (v < min || v > max)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, key,
                     "'%s' must lie in [%u, %u]", key, min, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_string (const ParseContext *ctx, JsonObject *obj, const char *key,
              gboolean required, char **out, GError **error)
{
  JsonNode *node;

  GET_OR_FAIL (obj, key, G_TYPE_STRING, required, node);
  if (node != NULL)
    {
      g_free (*out);
      *out = g_strdup (json_node_get_string (node));
    }
  return TRUE;
}

/* Names of the engine's enums (sg-bo.h), indexed by value. */
typedef struct {
  const char *key;            /* the member that holds the name        */
  int last;                   /* the enum's values run from 0 to LAST  */
  const char *(*name) (int);  /* the engine's name of a value          */
} EngineNames;

static const char *
acquisition_name (int i)
{
  return sg_bo_acquisition_name ((sg_bo_acquisition) i);
}

static const char *
surrogate_name (int i)
{
  return sg_bo_surrogate_name ((sg_bo_surrogate) i);
}

static const EngineNames acquisition_names = { "acquisition", SG_BO_ACQ_THOMPSON, acquisition_name };
static const EngineNames surrogate_names = { "surrogate", SG_BO_SURROGATE_SVGP, surrogate_name };

/* "'a', 'b' or 'c'": every name, for the message that refuses another. */
static char *
known_names (const EngineNames *names)
{
  GString *out = g_string_new (NULL);

  for (int i = 0; i <= names->last; i++)
    g_string_append_printf (out, "%s'%s'", i == 0 ? "" : i == names->last ? " or " : ", ",
                            names->name (i));
  return g_string_free (out, FALSE);
}

/* The optional member NAMES->key: one of the engine's names, its value in
 * OUT (left alone when the member is absent). */
static gboolean
parse_engine_name (const ParseContext *ctx, JsonObject *obj, const EngineNames *names,
                   int *out, GError **error)
{
  g_autofree char *name = NULL;
  g_autofree char *known = NULL;

  if (!parse_string (ctx, obj, names->key, FALSE, &name, error))
    return FALSE;
  if (name == NULL)
    return TRUE;
  for (int i = 0; i <= names->last; i++)
    if (g_str_equal (name, names->name (i)))
      {
        *out = i;
        return TRUE;
      }
  known = known_names (names);
  content_error (ctx, error, SB_SESSION_ERROR_INVALID, names->key,
                 "unknown %s '%s' (expected %s)", names->key, name, known);
  return FALSE;
}

static gboolean
parse_experiment (const ParseContext *ctx, JsonObject *obj, SbExperiment *exp, GError **error)
{
  JsonNode *node;
  g_autofree char *name = NULL;
  JsonArray *params;
  int acquisition = exp->acquisition, surrogate = exp->surrogate;

  if (!parse_string (ctx, obj, "title", FALSE, &exp->title, error))
    return FALSE;
  if (!parse_string (ctx, obj, "template", TRUE, &name, error))
    return FALSE;
  if (!sb_template_from_string (name, &exp->template_kind))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "template",
                     "unknown template '%s'", name);
      return FALSE;
    }
  g_clear_pointer (&name, g_free);
  if (!parse_string (ctx, obj, "mode", TRUE, &name, error))
    return FALSE;
  if (!sb_mode_from_string (name, &exp->mode))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "mode", "unknown mode '%s'", name);
      return FALSE;
    }
  if (!parse_engine_name (ctx, obj, &acquisition_names, &acquisition, error)
      || !parse_engine_name (ctx, obj, &surrogate_names, &surrogate, error))
    return FALSE;
  exp->acquisition = (sg_bo_acquisition) acquisition;
  exp->surrogate = (sg_bo_surrogate) surrogate;
  if (!parse_string (ctx, obj, "problem", FALSE, &exp->problem, error)
      || !parse_count (ctx, obj, "budget", 1, SB_MAX_BUDGET, &exp->budget, error)
      || !parse_count (ctx, obj, "initial", 0, 1000, &exp->initial, error)
      || !parse_count (ctx, obj, "numeric_every", 0, 100000, &exp->numeric_every, error)
      || !parse_count (ctx, obj, "autoplay_ms", 0, 600000, &exp->autoplay_ms, error))
    return FALSE;

  GET_OR_FAIL (obj, "seed", G_TYPE_INT64, FALSE, node);
  if (node)
    exp->seed = (guint64) json_node_get_int (node);
  GET_OR_FAIL (obj, "threshold", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    exp->threshold = json_node_get_double (node);
  GET_OR_FAIL (obj, "oracle_noise", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    exp->oracle_noise = json_node_get_double (node);
  GET_OR_FAIL (obj, "show_truth", G_TYPE_BOOLEAN, FALSE, node);
  if (node)
    exp->show_truth = json_node_get_boolean (node);
  GET_OR_FAIL (obj, "oracle", G_TYPE_STRING, FALSE, node);
  if (node)
    {
      const char *oracle = json_node_get_string (node);
      if (!g_str_equal (oracle, "human") && !g_str_equal (oracle, "simulated"))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "oracle",
                         "'oracle' must be \"human\" or \"simulated\"");
          return FALSE;
        }
      exp->simulated = g_str_equal (oracle, "simulated");
    }

  GET_OR_FAIL (obj, "parameters", JSON_TYPE_ARRAY, TRUE, node);
  params = json_node_get_array (node);
  if (json_array_get_length (params) > SB_MAX_PARAMETERS)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                     "at most %d parameters are supported", SB_MAX_PARAMETERS);
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (params); i++)
    {
      JsonNode *pn = json_array_get_element (params, i);
      JsonObject *po;
      JsonNode *lower, *upper;
      g_autofree char *pname = NULL, *unit = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (pn))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                         "parameter %u is not an object", i + 1);
          return FALSE;
        }
      po = json_node_get_object (pn);
      if (!parse_string (ctx, po, "name", TRUE, &pname, error)
          || !parse_string (ctx, po, "unit", FALSE, &unit, error))
        return FALSE;
      GET_OR_FAIL (po, "lower", G_TYPE_DOUBLE, TRUE, lower);
      GET_OR_FAIL (po, "upper", G_TYPE_DOUBLE, TRUE, upper);
      if (!sb_experiment_add_parameter (exp, pname, unit, json_node_get_double (lower),
                                        json_node_get_double (upper)))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "parameters",
                         "parameter %u ('%s') has an empty range", i + 1, pname);
          return FALSE;
        }
    }
  {
    GError *local = NULL;
    if (!sb_experiment_validate (exp, &local))
      {
        content_error (ctx, error, SB_SESSION_ERROR_INVALID, "experiment", "%s", local->message);
        g_error_free (local);
        return FALSE;
      }
  }
  return TRUE;
}

static gboolean
parse_vector (const ParseContext *ctx, JsonObject *obj, const char *key, guint index,
              const SbExperiment *exp, double **out, GError **error)
{
  JsonNode *node;
  JsonArray *array;

  GET_OR_FAIL (obj, key, JSON_TYPE_ARRAY, TRUE, node);
  array = json_node_get_array (node);
  if (json_array_get_length (array) != exp->n_parameters)
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "observations",
                     "observation %u: '%s' has %u coordinates, expected %u",
                     index + 1, key, json_array_get_length (array), exp->n_parameters);
      return FALSE;
    }
  *out = g_new (double, exp->n_parameters);
  for (guint j = 0; j < exp->n_parameters; j++)
    {
      JsonNode *e = json_array_get_element (array, j);
      GType vt = JSON_NODE_HOLDS_VALUE (e) ? json_node_get_value_type (e) : G_TYPE_INVALID;
      if (vt != G_TYPE_DOUBLE && vt != G_TYPE_INT64)
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "observations",
                         "observation %u: '%s' holds something that is not a number",
                         index + 1, key);
          return FALSE;
        }
      (*out)[j] = json_node_get_double (e);
    }
  return TRUE;
}

static gboolean
parse_observation (const ParseContext *ctx, JsonNode *node, guint index,
                   const SbExperiment *exp, SbLogEntry **out, GError **error)
{
  g_autoptr (SbLogEntry) obs = g_new0 (SbLogEntry, 1);
  g_autofree char *kind = NULL;
  JsonObject *o;
  JsonNode *member;
  guint k;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "observations",
                     "observation %u is not an object", index + 1);
      return FALSE;
    }
  o = json_node_get_object (node);
  if (!parse_string (ctx, o, "kind", TRUE, &kind, error))
    return FALSE;
  if (!lookup_name (kind_names, G_N_ELEMENTS (kind_names), kind, &k))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "kind",
                     "observation %u: unknown kind '%s'", index + 1, kind);
      return FALSE;
    }
  obs->kind = (SbLogKind) k;
  obs->dim = exp->n_parameters;
  obs->value = NAN;
  if (obs->kind == SB_LOG_DUEL || obs->kind == SB_LOG_SKIP)
    {
      if (!parse_vector (ctx, o, "a", index, exp, &obs->a, error)
          || !parse_vector (ctx, o, "b", index, exp, &obs->b, error))
        return FALSE;
    }
  else if (!parse_vector (ctx, o, "x", index, exp, &obs->a, error))
    return FALSE;

  if (obs->kind == SB_LOG_DUEL)
    {
      g_autofree char *winner = NULL;
      if (!parse_string (ctx, o, "winner", TRUE, &winner, error))
        return FALSE;
      if (!g_str_equal (winner, "a") && !g_str_equal (winner, "b"))
        {
          content_error (ctx, error, SB_SESSION_ERROR_INVALID, "winner",
                         "observation %u: 'winner' must be \"a\" or \"b\"", index + 1);
          return FALSE;
        }
      obs->winner = g_str_equal (winner, "b");
    }
  if (obs->kind == SB_LOG_VALUE)
    {
      GET_OR_FAIL (o, "value", G_TYPE_DOUBLE, TRUE, member);
      obs->value = json_node_get_double (member);
    }
  GET_OR_FAIL (o, "time_us", G_TYPE_INT64, FALSE, member);
  if (member)
    obs->time = json_node_get_int (member);
  else
    {
      g_autofree char *time = NULL;
      if (!parse_string (ctx, o, "time", FALSE, &time, error))
        return FALSE;
      if (time)
        {
          g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (time, NULL);
          if (dt == NULL)
            {
              content_error (ctx, error, SB_SESSION_ERROR_INVALID, "time",
                             "observation %u: '%s' is not an ISO 8601 time", index + 1, time);
              return FALSE;
            }
          obs->time = g_date_time_to_unix (dt) * G_USEC_PER_SEC
                      + g_date_time_get_microsecond (dt);
        }
    }
  *out = g_steal_pointer (&obs);
  return TRUE;
}

static gboolean
positive (double v)
{
  return isfinite (v) && v > 0;
}

static gboolean
parse_hyper (const ParseContext *ctx, JsonObject *o, const SbExperiment *exp, SbHyper *h,
             GError **error)
{
  JsonNode *node;
  double *ls = NULL;
  g_autofree char *kernel = NULL;
  struct { const char *key; double *out; } scalars[] = {
    { "variance", &h->variance }, { "mean", &h->mean },
    { "numeric_sd", &h->numeric_sd }, { "probit_sd", &h->probit_sd },
  };

  memset (h, 0, sizeof *h);
  h->log_evidence = NAN;
  if (!parse_count (ctx, o, "answers", 0, G_MAXINT, &h->n_answers, error)
      || !parse_string (ctx, o, "kernel", TRUE, &kernel, error))
    return FALSE;
  if (!g_str_equal (kernel, "rbf") && !g_str_equal (kernel, "matern52"))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "kernel",
                     "unknown kernel '%s'", kernel);
      return FALSE;
    }
  h->matern52 = g_str_equal (kernel, "matern52");
  for (guint i = 0; i < G_N_ELEMENTS (scalars); i++)
    {
      GET_OR_FAIL (o, scalars[i].key, G_TYPE_DOUBLE, TRUE, node);
      *scalars[i].out = json_node_get_double (node);
    }
  GET_OR_FAIL (o, "log_evidence", G_TYPE_DOUBLE, FALSE, node);
  if (node)
    h->log_evidence = json_node_get_double (node);
  if (!parse_vector (ctx, o, "lengthscales", 0, exp, &ls, error))
    return FALSE;
  memcpy (h->lengthscales, ls, exp->n_parameters * sizeof (double));
  g_free (ls);
  for (guint j = 0; j < exp->n_parameters; j++)
    if (!positive (h->lengthscales[j]))
      {
        content_error (ctx, error, SB_SESSION_ERROR_INVALID, "lengthscales",
                       "lengthscales must be positive");
        return FALSE;
      }
  if (!positive (h->variance) || !positive (h->numeric_sd) || !positive (h->probit_sd)
      || !isfinite (h->mean))
    {
      content_error (ctx, error, SB_SESSION_ERROR_INVALID, "hyperparameters",
                     "hyperparameters must be finite, scales positive");
      return FALSE;
    }
  h->valid = TRUE;
  return TRUE;
}

SbSession *
sb_session_load_from_data (const char *data, gssize len, const char *name, GError **error)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GPtrArray) log = NULL;
  g_autofree char *text = len < 0 ? g_strdup (data) : g_strndup (data, len);
  ParseContext context = { name, text }, *ctx = &context;
  GError *local = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonNode *node;
  JsonObject *obj;
  SbSession *self;

  /* The strict reader says "LINE:COL: what is wrong"; put the file name
   * in front. */
  root = sb_json_read (text, -1, &local);
  if (root == NULL)
    {
      if (g_error_matches (local, SB_JSON_READ_ERROR, SB_JSON_READ_ERROR_EMPTY))
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_FOREIGN,
                     "%s:1:1: not a SkewBench session (the file is empty)", name);
      else
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_PARSE, "%s:%s", name,
                     local->message);
      g_error_free (local);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_FOREIGN,
                   "%s:1:1: not a SkewBench session (the document is not a JSON object)", name);
      return NULL;
    }
  obj = json_node_get_object (root);
  node = json_object_get_member (obj, "format");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING
      || !g_str_equal (json_node_get_string (node), SB_SESSION_FORMAT))
    {
      content_error (ctx, error, SB_SESSION_ERROR_FOREIGN, "format",
                     "not a SkewBench session (\"format\" is not \"%s\")", SB_SESSION_FORMAT);
      return NULL;
    }
  if (!get_member (ctx, obj, "version", G_TYPE_INT64, TRUE, &node, error))
    return NULL;
  if (json_node_get_int (node) < 1 || json_node_get_int (node) > SB_SESSION_VERSION)
    {
      content_error (ctx, error, SB_SESSION_ERROR_VERSION, "version",
                     "session version %" G_GINT64_FORMAT " is not supported (this program reads version %d)",
                     json_node_get_int (node), SB_SESSION_VERSION);
      return NULL;
    }
  if (!get_member (ctx, obj, "experiment", JSON_TYPE_OBJECT, TRUE, &node, error)
      || !parse_experiment (ctx, json_node_get_object (node), exp, error))
    return NULL;
  if (!get_member (ctx, obj, "observations", JSON_TYPE_ARRAY, TRUE, &node, error))
    return NULL;

  log = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_log_entry_free);
  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    {
      SbLogEntry *obs;
      if (!parse_observation (ctx, json_array_get_element (json_node_get_array (node), i),
                              i, exp, &obs, error))
        return NULL;
      g_ptr_array_add (log, obs);
    }

  SbHyper hyper = { 0 };
  if (!get_member (ctx, obj, "hyperparameters", JSON_TYPE_OBJECT, FALSE, &node, error))
    return NULL;
  if (node && !parse_hyper (ctx, json_node_get_object (node), exp, &hyper, error))
    return NULL;

  self = g_object_new (SB_TYPE_SESSION, NULL);
  self->hyper = hyper;
  self->experiment = g_steal_pointer (&exp);
  g_ptr_array_unref (self->observations);
  self->observations = g_steal_pointer (&log);
  node = json_object_get_member (obj, "created");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_autoptr (GDateTime) dt = g_date_time_new_from_iso8601 (json_node_get_string (node), NULL);
      if (dt)
        self->created = g_date_time_to_unix (dt) * G_USEC_PER_SEC;
    }
  return self;
}

SbSession *
sb_session_load (GFile *file, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *name = NULL;
  gsize len;
  SbSession *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (!g_file_load_contents (file, NULL, &data, &len, NULL, error))
    return NULL;
  name = g_file_get_parse_name (file);
  if (memchr (data, '\0', len) != NULL || !g_utf8_validate (data, len, NULL))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_FOREIGN,
                   "%s:1:1: not a SkewBench session (the file is not UTF-8 text)", name);
      return NULL;
    }
  self = sb_session_load_from_data (data, len, name, error);
  if (self)
    self->file = g_object_ref (file);
  return self;
}

/* ---- Changes ----------------------------------------------------------- */

static gboolean
commit_change (SbSession *self, GError **error)
{
  gboolean saved = TRUE;
  gboolean background = self->file && self->background_save && g_file_is_native (self->file);

  if (background)
    save_in_background (self);
  else if (self->file)
    {
      saved = sb_session_save (self, error);
      if (saved)
        g_signal_emit (self, signals[SAVED], 0, self->observations->len);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_OBSERVATIONS]);
  g_signal_emit (self, signals[CHANGED], 0);
  return saved;
}

static gboolean
check_point (SbSession *self, const double *x, GError **error)
{
  for (guint j = 0; j < self->experiment->n_parameters; j++)
    if (!isfinite (x[j]))
      {
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                     "coordinate %u is not a finite number", j + 1);
        return FALSE;
      }
  return TRUE;
}

gboolean
sb_session_add_duel (SbSession *self, const double *a, const double *b, int winner,
                     GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (winner == 0 || winner == 1, FALSE);
  if (!check_point (self, a, error) || !check_point (self, b, error))
    return FALSE;
  obs = log_entry_new (SB_LOG_DUEL, self->experiment->n_parameters, a, b);
  obs->winner = winner;
  g_ptr_array_add (self->observations, obs);
  return commit_change (self, error);
}

gboolean
sb_session_add_value (SbSession *self, const double *x, double value, GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (!check_point (self, x, error))
    return FALSE;
  if (!isfinite (value))
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the measured value is not a finite number");
      return FALSE;
    }
  obs = log_entry_new (SB_LOG_VALUE, self->experiment->n_parameters, x, NULL);
  obs->value = value;
  g_ptr_array_add (self->observations, obs);
  return commit_change (self, error);
}

gboolean
sb_session_add_failed (SbSession *self, const double *x, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (!check_point (self, x, error))
    return FALSE;
  g_ptr_array_add (self->observations,
                   log_entry_new (SB_LOG_FAILED, self->experiment->n_parameters, x, NULL));
  return commit_change (self, error);
}

gboolean
sb_session_add_skip (SbSession *self, const double *a, const double *b, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (!check_point (self, a, error) || (b && !check_point (self, b, error)))
    return FALSE;
  g_ptr_array_add (self->observations,
                   log_entry_new (SB_LOG_SKIP, self->experiment->n_parameters, a,
                                    b ? b : a));
  return commit_change (self, error);
}

gboolean
sb_session_undo (SbSession *self, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);

  if (self->observations->len == 0)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID, "nothing to undo");
      return FALSE;
    }
  g_ptr_array_remove_index (self->observations, self->observations->len - 1);
  return commit_change (self, error);
}

const SbHyper *
sb_session_get_hyper (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return &self->hyper;
}

gboolean
sb_session_set_hyper (SbSession *self, const SbHyper *hyper, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  self->hyper = *hyper;
  if (self->file && self->background_save && g_file_is_native (self->file))
    {
      save_in_background (self);
      return TRUE;
    }
  return self->file ? sb_session_save (self, error) : TRUE;
}

gboolean
sb_session_set_budget (SbSession *self, guint budget, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  if (budget < 1 || budget > SB_MAX_BUDGET)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "the budget must be between 1 and %u questions, not %u", SB_MAX_BUDGET, budget);
      return FALSE;
    }
  self->experiment->budget = budget;
  return commit_change (self, error);
}

/* ---- CSV --------------------------------------------------------------- */

static void
csv_field (GString *out, const char *text)
{
  if (strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
csv_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (v))
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

char *
sb_session_to_csv (SbSession *self)
{
  const SbExperiment *exp = self->experiment;
  GString *out = g_string_new ("index,time,kind,answer,value");

  for (guint side = 0; side < 2; side++)
    for (guint j = 0; j < exp->n_parameters; j++)
      {
        g_autofree char *name = g_strdup_printf ("%c_%s", side ? 'b' : 'a',
                                                 exp->parameters[j].name);
        g_string_append_c (out, ',');
        csv_field (out, name);
      }
  g_string_append_c (out, '\n');

  for (guint i = 0; i < self->observations->len; i++)
    {
      const SbLogEntry *obs = g_ptr_array_index (self->observations, i);
      g_autofree char *time = format_time (obs->time);

      g_string_append_printf (out, "%u,%s,%s,", i + 1, time,
                              sb_log_kind_to_string (obs->kind));
      if (obs->kind == SB_LOG_DUEL)
        g_string_append (out, obs->winner ? "b" : "a");
      else if (obs->kind == SB_LOG_FAILED)
        g_string_append (out, "failed");
      g_string_append_c (out, ',');
      if (obs->kind == SB_LOG_VALUE)
        csv_number (out, obs->value);
      for (guint side = 0; side < 2; side++)
        for (guint j = 0; j < exp->n_parameters; j++)
          {
            const double *x = side ? obs->b : obs->a;
            g_string_append_c (out, ',');
            if (x)
              csv_number (out, x[j]);
          }
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

gboolean
sb_session_export_csv (SbSession *self, GFile *file, GError **error)
{
  g_autofree char *csv = sb_session_to_csv (self);

  return g_file_replace_contents (file, csv, strlen (csv), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
