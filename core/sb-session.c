/* sb-session.c — the session model (docs/DESIGN.md §4): the experiment, the
 * observation log with undo, the stored hyperparameters, the signals, and
 * when the session is saved (after every change, before the call
 * returns). Reading and writing the document live in
 * sb-session-parse.c and sb-session-write.c, CSV in sb-session-csv.c.
 */
#include "config.h"

#include "sb-session.h"
#include "sb-session-private.h"
#include "sb-atomic-file.h"
#include "sb-candidates.h"

#include "sb-file-lock.h"
#include "sb-parameter-kinds.h"
#include "sb-stimulus.h"
#include "sb-enum-names.h"
#include "sb-json-write.h"
#include "sg-bo.h"

#include <math.h>
#include <string.h>

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
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- Checks ------------------------------------------------------------ */

gboolean
sb_session_check (SbSession *self, GError **error)
{
  if (!sb_experiment_validate (self->experiment, error))
    return FALSE;
  for (guint i = 0; i < self->observations->len; i++)
    if (!sb_experiment_check_observation (self->experiment,
                                          g_ptr_array_index (self->observations, i), i, error))
      return FALSE;
  for (guint i = 0; i < self->refits->len; i++)
    if (!sb_hyper_validate (&g_array_index (self->refits, SbHyper, i),
                            self->experiment->n_parameters, error))
      return FALSE;
  if (self->pending && !sb_question_check (self->experiment, self->pending,
                                                  self->observations->len,
                                                  self->questions_asked, error))
    return FALSE;
  for (guint i = 0; i < self->edits->len; i++)
    if (!sb_edit_check (&g_array_index (self->edits, SbEdit, i),
                                self->observations->len, i, error))
      return FALSE;
  return sb_hyper_validate (&self->hyper, self->experiment->n_parameters, error);
}

/* ---- GObject ------------------------------------------------------------ */

static void
sb_session_finalize (GObject *object)
{
  SbSession *self = SB_SESSION (object);

  g_clear_pointer (&self->experiment, sb_experiment_free);
  g_clear_pointer (&self->observations, g_ptr_array_unref);
  g_clear_pointer (&self->refits, g_array_unref);
  g_clear_pointer (&self->pending, g_free);
  g_clear_pointer (&self->edits, g_array_unref);
  g_clear_pointer (&self->undo_edits, g_array_unref);
  g_clear_pointer (&self->redo_edits, g_array_unref);
  g_clear_pointer (&self->unknown, sb_json_unknown_free);
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
}

static void
sb_session_init (SbSession *self)
{
  self->observations = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_log_entry_free);
  self->refits = g_array_new (FALSE, FALSE, sizeof (SbHyper));
  self->edits = sb_edit_array_new ();
  self->undo_edits = g_array_new (FALSE, FALSE, sizeof (guint));
  self->redo_edits = g_array_new (FALSE, FALSE, sizeof (guint));
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
    {
      const SbLogEntry *e = g_ptr_array_index (self->observations, i);
      if (e->kind != SB_LOG_SKIP && !sb_log_entry_is_removed (e))
        n++;
    }
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

/* ---- Saving ------------------------------------------------------------ */

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
  if (!sb_session_check (self, error))
    return FALSE;
  data = sb_session_to_data (self, &len);
  return sb_atomic_file_write (path, data, len, error);
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
/* ---- Changes ----------------------------------------------------------- */

gboolean
sb_session_commit_change (SbSession *self, GError **error)
{
  gboolean saved = TRUE;

  if (self->file)
    {
      saved = sb_session_save (self, error);
      if (saved)
        g_signal_emit (self, signals[SAVED], 0, self->observations->len);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_OBSERVATIONS]);
  g_signal_emit (self, signals[CHANGED], 0);
  return saved;
}

/* Appends OBS (taking it) when the log can hold it, then saves. */
static gboolean
append_checked (SbSession *self, SbLogEntry *obs, GError **error)
{
  if (!sb_experiment_check_observation (self->experiment, obs, self->observations->len, error))
    {
      sb_log_entry_free (obs);
      return FALSE;
    }
  g_ptr_array_add (self->observations, obs);
  return sb_session_commit_change (self, error);
}

gboolean
sb_session_add_duel (SbSession *self, const double *a, const double *b, int winner,
                     GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (winner == 0 || winner == 1, FALSE);
  obs = sb_log_entry_new (SB_LOG_DUEL, self->experiment->n_parameters, a, b);
  obs->winner = winner;
  return append_checked (self, obs, error);
}

gboolean
sb_session_add_value (SbSession *self, const double *x, double value, GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  obs = sb_log_entry_new (SB_LOG_VALUE, self->experiment->n_parameters, x, NULL);
  obs->value = value;
  return append_checked (self, obs, error);
}

gboolean
sb_session_add_failed (SbSession *self, const double *x, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return append_checked (self, sb_log_entry_new (SB_LOG_FAILED, self->experiment->n_parameters,
                                              x, NULL), error);
}

gboolean
sb_session_add_skip (SbSession *self, const double *a, const double *b, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  return append_checked (self, sb_log_entry_new (SB_LOG_SKIP, self->experiment->n_parameters,
                                              a, b ? b : a), error);
}

gboolean
sb_session_add_entry (SbSession *self, const SbLogEntry *entry, GError **error)
{
  SbLogEntry *obs;

  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (entry != NULL, FALSE);
  obs = sb_log_entry_copy (entry);
  if (obs->time == 0)
    obs->time = g_get_real_time ();
  if (!sb_experiment_check_observation (self->experiment, obs, self->observations->len, error))
    {
      sb_log_entry_free (obs);
      return FALSE;
    }
  /* The answer and the question it closes are saved together. */
  if (self->pending && obs->question == self->pending->id)
    g_clear_pointer (&self->pending, g_free);
  g_ptr_array_add (self->observations, obs);
  return sb_session_commit_change (self, error);
}

const SbQuestion *
sb_session_get_open_question (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  return self->pending;
}

guint64
sb_session_get_questions_asked (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->questions_asked;
}

gboolean
sb_session_set_open_question (SbSession *self, const SbQuestion *q, GError **error)
{
  g_return_val_if_fail (SB_IS_SESSION (self), FALSE);
  g_return_val_if_fail (q != NULL, FALSE);

  if (q->id <= self->questions_asked)
    {
      g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                   "question id %" G_GUINT64_FORMAT " was given out before (the last is %"
                   G_GUINT64_FORMAT ")", q->id, self->questions_asked);
      return FALSE;
    }
  if (!sb_question_check (self->experiment, q, self->observations->len, q->id, error))
    return FALSE;
  g_free (self->pending);
  self->pending = g_memdup2 (q, sizeof *q);
  self->questions_asked = q->id;
  return self->file ? sb_session_save (self, error) : TRUE;
}

gssize
sb_session_find_answer (SbSession *self, guint64 id)
{
  g_return_val_if_fail (SB_IS_SESSION (self), -1);
  for (guint i = self->observations->len; id != 0 && i > 0; i--)
    if (((SbLogEntry *) g_ptr_array_index (self->observations, i - 1))->question == id)
      return (gssize) i - 1;
  return -1;
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
  for (guint i = 0; i < self->edits->len; i++)
    if (g_array_index (self->edits, SbEdit, i).entry == self->observations->len - 1)
      {
        g_set_error (error, SB_SESSION_ERROR, SB_SESSION_ERROR_INVALID,
                     "answer %u was edited by the experimenter: it is kept (remove it "
                     "instead)", self->observations->len);
        return FALSE;
      }
  g_ptr_array_remove_index (self->observations, self->observations->len - 1);
  /* A question asked after the entry undone is out of date for good. */
  if (self->pending && self->pending->n_log > self->observations->len)
    g_clear_pointer (&self->pending, g_free);
  return sb_session_commit_change (self, error);
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
  if (!sb_hyper_validate (hyper, self->experiment->n_parameters, error))
    return FALSE;
  self->hyper = *hyper;
  if (hyper->valid)
    g_array_append_val (self->refits, *hyper);
  return self->file ? sb_session_save (self, error) : TRUE;
}
SbFileLock *
sb_session_lock_file (const char *path, const char *program, GError **error)
{
  g_autofree char *target = sb_atomic_file_resolve_path (path);

  return sb_file_lock_acquire (target, program, error);
}


guint
sb_session_get_n_refits (SbSession *self)
{
  g_return_val_if_fail (SB_IS_SESSION (self), 0);
  return self->refits->len;
}

const SbHyper *
sb_session_get_refit (SbSession *self, guint index)
{
  g_return_val_if_fail (SB_IS_SESSION (self), NULL);
  g_return_val_if_fail (index < self->refits->len, NULL);
  return &g_array_index (self->refits, SbHyper, index);
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
  return sb_session_commit_change (self, error);
}

