/* sb-stored-fit.c — the models a question may use, the fits they keep,
 * and when a fit is refreshed (sb-stored-fit.h). */
#include "config.h"

#include "sb-stored-fit.h"
#include "sb-atomic-file.h"
#include "sb-fit-file.h"
#include "sb-json-write.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (sb-fit-error-quark, sb_fit_error)

#define SESSION_FIT_KIND "session"

/* ---- Which model produced a number --------------------------------------- */

char *
sb_model_info_name (const SbModelInfo *info)
{
  switch (info->kind)
    {
    case SB_MODEL_EXACT:
      return g_strdup ("exact");
    case SB_MODEL_SPARSE:
      return g_strdup_printf ("sparse variational, %u inducing points", info->n_inducing);
    case SB_MODEL_POPULATION:
      return g_strdup_printf ("sparse variational population, %u inducing points",
                              info->n_inducing);
    case SB_MODEL_APPROXIMATE:
      switch (info->surrogate)
        {
        case SG_BO_SURROGATE_LAPLACE: return g_strdup ("Laplace");
        case SG_BO_SURROGATE_EP:      return g_strdup ("EP");
        case SG_BO_SURROGATE_SVGP:    return g_strdup ("SVGP");
        case SG_BO_SURROGATE_TWO_GP:  return g_strdup ("two-GP");
        default:                      return g_strdup ("approximate");
        }
    case SB_MODEL_NONE:
    default:
      return g_strdup ("none (random initial questions)");
    }
}

void
sb_model_info_add_json (JsonBuilder *b, const char *member, const SbModelInfo *info)
{
  g_autofree char *name = sb_model_info_name (info);
  gboolean sparse = info->kind == SB_MODEL_SPARSE || info->kind == SB_MODEL_POPULATION;

  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  sb_json_add_string (b, "name", name);
  sb_json_add_int (b, "answers", info->answers);
  sb_json_add_int (b, "fit_answers", info->fit_answers);
  sb_json_add_int (b, "exact_answers", info->exact_answers);
  json_builder_set_member_name (b, "inducing");
  if (sparse)
    json_builder_add_int_value (b, info->n_inducing);
  else
    json_builder_add_null_value (b);
  sb_json_add_bool (b, "refit_due", info->refit_due);
  if (info->note[0] != '\0')
    {
      sb_json_add_string (b, "note", info->note);
    }
  json_builder_end_object (b);
}

/* ---- The refit schedule ---------------------------------------------------- */

gboolean
sb_fit_schedule_due (guint n_answers, gboolean has_fit, guint fit_answers)
{
  guint step;

  if (n_answers < 2)
    return FALSE;
  if (!has_fit)
    return TRUE;
  if (n_answers <= fit_answers)
    return FALSE;
  /* every 5 answers while a fit is cheap; then in proportion to the
   * answers, so that the fits' total cost stays a few times one fit's */
  step = fit_answers <= 100 ? 5 : MIN (fit_answers / 20, 250);
  return n_answers - fit_answers >= step;
}

/* ---- Fits in a thread of their own ---------------------------------------------- */

typedef struct {
  SbFitProgressFunc func;
  gpointer data;
  double fraction;
  gint *pending;      /* shared with the reporter                       */
} Report;

struct _SbFitProgress {
  GCancellable *cancellable;
  GMainContext *context;
  SbFitProgressFunc func;
  gpointer data;
  gint *pending;      /* 1 while a report waits on the context (shared
                         with it: the report may outlive the fit)      */
  sg_progress progress;
};

static void
report_free (gpointer data)
{
  Report *r = data;

  g_atomic_rc_box_release (r->pending);
  g_free (r);
}

static gboolean
report_run (gpointer data)
{
  Report *r = data;

  g_atomic_int_set (r->pending, 0);
  r->func (r->fraction, r->data);
  return G_SOURCE_REMOVE;
}

static int
fit_progress_cb (double fraction, void *user_data)
{
  SbFitProgress *p = user_data;

  if (g_cancellable_is_cancelled (p->cancellable))
    return 1;
  if (p->func != NULL && g_atomic_int_compare_and_exchange (p->pending, 0, 1))
    {
      Report *r = g_new0 (Report, 1);
      r->func = p->func;
      r->data = p->data;
      r->fraction = fraction;
      r->pending = g_atomic_rc_box_acquire (p->pending);
      g_main_context_invoke_full (p->context, G_PRIORITY_DEFAULT, report_run, r, report_free);
    }
  return 0;
}

SbFitProgress *
sb_fit_progress_new (GCancellable *cancellable, SbFitProgressFunc func, gpointer user_data)
{
  SbFitProgress *p = g_new0 (SbFitProgress, 1);

  p->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  p->context = g_main_context_ref_thread_default ();
  p->func = func;
  p->data = user_data;
  p->pending = g_atomic_rc_box_new0 (gint);
  p->progress.func = fit_progress_cb;
  p->progress.user_data = p;
  return p;
}

void
sb_fit_progress_free (SbFitProgress *p)
{
  if (p == NULL)
    return;
  g_object_unref (p->cancellable);
  g_main_context_unref (p->context);
  g_atomic_rc_box_release (p->pending);
  g_free (p);
}

const sg_progress *
sb_fit_progress_get (SbFitProgress *p)
{
  return &p->progress;
}

/* ---- The answers a fit has seen ---------------------------------------------- */

static gboolean
counts (const SbLogEntry *e)
{
  return !sb_log_entry_is_removed (e) && e->kind != SB_LOG_SKIP;
}

guint
sb_answers_count (GPtrArray *log)
{
  guint n = 0;

  for (guint i = 0; i < log->len; i++)
    n += counts (g_ptr_array_index (log, i));
  return n;
}

static void
digest_doubles (GChecksum *c, const double *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      guint64 bits;
      memcpy (&bits, &x[i], sizeof bits);
      bits = GUINT64_TO_LE (bits);
      g_checksum_update (c, (const guchar *) &bits, sizeof bits);
    }
}

static void
digest_int (GChecksum *c, gint64 v)
{
  guint64 le = GUINT64_TO_LE ((guint64) v);
  g_checksum_update (c, (const guchar *) &le, sizeof le);
}

/* What the model reads of E. */
static void
digest_entry (GChecksum *c, const SbLogEntry *e)
{
  digest_int (c, e->kind);
  digest_int (c, e->dim);
  digest_int (c, sb_log_entry_n_options (e));
  for (guint k = 0; k < sb_log_entry_n_options (e); k++)
    digest_doubles (c, sb_log_entry_option (e, k), e->dim);
  digest_int (c, e->winner);
  digest_doubles (c, &e->value, 1);
  digest_int (c, e->chosen);
  for (guint k = 0; k < e->n_options; k++)
    digest_int (c, e->ranking[k]);
  digest_int (c, e->confidence);
  digest_int (c, e->n_shown > 0 ? (gint64) e->shown_order[0] : -1);
}

char *
sb_answers_digest (GPtrArray *log, guint n)
{
  g_autoptr (GChecksum) c = g_checksum_new (G_CHECKSUM_SHA256);
  guint taken = 0;

  for (guint i = 0; i < log->len && taken < n; i++)
    {
      const SbLogEntry *e = g_ptr_array_index (log, i);
      if (!counts (e))
        continue;
      digest_entry (c, e);
      taken++;
    }
  if (taken < n)
    return NULL;
  return g_strdup (g_checksum_get_string (c));
}

/* ---- A session's sparse fit -------------------------------------------------- */

SbSessionFit *
sb_session_fit_ref (SbSessionFit *fit)
{
  g_atomic_ref_count_inc (&fit->ref_count);
  return fit;
}

void
sb_session_fit_unref (SbSessionFit *fit)
{
  if (fit && g_atomic_ref_count_dec (&fit->ref_count))
    {
      sg_svgp_pseudo_clear (&fit->summary);
      g_free (fit->fitted);
      g_free (fit->digest);
      g_free (fit);
    }
}

char *
sb_session_fit_path (const char *session_path)
{
  if (g_str_has_suffix (session_path, ".json"))
    {
      g_autofree char *stem = g_strndup (session_path, strlen (session_path) - 5);
      return g_strconcat (stem, ".fit", NULL);
    }
  return g_strconcat (session_path, ".fit", NULL);
}

static JsonObject *
hyper_to_object (const SbHyper *h, guint dim)
{
  JsonObject *o = json_object_new ();
  JsonArray *ls = json_array_new ();

  json_object_set_string_member (o, "kernel", h->matern52 ? "matern52" : "rbf");
  json_object_set_double_member (o, "variance", h->variance);
  for (guint j = 0; j < dim; j++)
    json_array_add_double_element (ls, h->lengthscales[j]);
  json_object_set_array_member (o, "lengthscales", ls);
  json_object_set_double_member (o, "mean", h->mean);
  json_object_set_double_member (o, "numeric_sd", h->numeric_sd);
  json_object_set_double_member (o, "probit_sd", h->probit_sd);
  return o;
}

gboolean
sb_session_fit_save (const SbSessionFit *fit, const char *session_path, GError **error)
{
  g_autofree char *path = sb_session_fit_path (session_path);
  g_autoptr (JsonObject) h = json_object_new ();
  g_autofree char *model = NULL;
  g_autofree char *created = sb_format_time (g_get_real_time ());
  const sg_svgp_pseudo *s = &fit->summary;
  SbModelInfo info = { .kind = SB_MODEL_SPARSE, .n_inducing = (guint) s->M };
  SbFitArray arrays[] = {
    { "Z", (guint) s->M, (guint) s->dim, s->Z },
    { "C", (guint) s->r, (guint) s->M, s->C },
    { "y", (guint) s->r, 1, s->y },
    { "noise_var", (guint) s->r, 1, s->noise_var },
  };

  model = sb_model_info_name (&info);
  json_object_set_string_member (h, "model", model);
  json_object_set_int_member (h, "inducing", (gint64) s->M);
  json_object_set_int_member (h, "dim", fit->dim);
  json_object_set_int_member (h, "answers", fit->n_seen);
  json_object_set_string_member (h, "answers_sha256", fit->digest);
  json_object_set_object_member (h, "hyperparameters", hyper_to_object (&fit->hyper, fit->dim));
  json_object_set_string_member (h, "fitted", fit->fitted ? fit->fitted : "");
  json_object_set_string_member (h, "created", created);
  json_object_set_double_member (h, "seconds", fit->seconds);
  return sb_fit_file_write (path, SESSION_FIT_KIND, h, arrays, G_N_ELEMENTS (arrays), error);
}

/* Header member NAME as a number (FALSE when it is not one). */
static gboolean
header_number (JsonObject *o, const char *name, double *out)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  GType t;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  t = json_node_get_value_type (n);
  if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_double (n);
  return isfinite (*out);
}

static gboolean
header_count (JsonObject *o, const char *name, guint max, guint *out)
{
  double v;

  if (!header_number (o, name, &v) || v < 0 || v > max || v != floor (v))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

static const char *
header_string (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static gboolean
hyper_from_object (JsonObject *o, guint dim, SbHyper *h)
{
  JsonNode *ls = o ? json_object_get_member (o, "lengthscales") : NULL;
  const char *kernel = header_string (o, "kernel");
  JsonArray *a;

  memset (h, 0, sizeof *h);
  h->log_evidence = NAN;
  if (kernel == NULL || (!g_str_equal (kernel, "rbf") && !g_str_equal (kernel, "matern52"))
      || !header_number (o, "variance", &h->variance) || !header_number (o, "mean", &h->mean)
      || !header_number (o, "numeric_sd", &h->numeric_sd)
      || !header_number (o, "probit_sd", &h->probit_sd)
      || ls == NULL || !JSON_NODE_HOLDS_ARRAY (ls)
      || json_array_get_length (a = json_node_get_array (ls)) != dim)
    return FALSE;
  h->matern52 = g_str_equal (kernel, "matern52");
  for (guint j = 0; j < dim; j++)
    {
      JsonNode *e = json_array_get_element (a, j);
      if (!JSON_NODE_HOLDS_VALUE (e)
          || (json_node_get_value_type (e) != G_TYPE_DOUBLE
              && json_node_get_value_type (e) != G_TYPE_INT64))
        return FALSE;
      h->lengthscales[j] = json_node_get_double (e);
    }
  h->valid = TRUE;
  return sb_hyper_validate (h, dim, NULL);
}

static gboolean
fit_damaged (GError **error, const char *path, const char *what)
{
  g_set_error (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_DAMAGED, "%s is damaged: %s", path,
               what);
  return FALSE;
}

/* The pseudo-observations of F's arrays into S (M x DIM points, R rows). */
static gboolean
read_summary (SbFitFile *f, guint M, guint dim, guint r, sg_svgp_pseudo *s, GError **error)
{
  const double *Z = sb_fit_file_get_array (f, "Z", M, dim, error);
  const double *C = Z ? sb_fit_file_get_array (f, "C", r, M, error) : NULL;
  const double *y = C ? sb_fit_file_get_array (f, "y", r, 1, error) : NULL;
  const double *nv = y ? sb_fit_file_get_array (f, "noise_var", r, 1, error) : NULL;

  if (nv == NULL)
    return FALSE;
  for (guint i = 0; i < r; i++)
    if (!(nv[i] > 0))
      return fit_damaged (error, sb_fit_file_get_path (f), "a pseudo-observation's noise "
                          "variance is not positive");
  s->dim = dim;
  s->M = M;
  s->r = r;
  s->Z = g_memdup2 (Z, (gsize) M * dim * sizeof (double));
  s->C = g_memdup2 (C, ((gsize) r * M + 1) * sizeof (double));
  s->y = g_memdup2 (y, ((gsize) r + 1) * sizeof (double));
  s->noise_var = g_memdup2 (nv, ((gsize) r + 1) * sizeof (double));
  return TRUE;
}

SbSessionFit *
sb_session_fit_load (const char *session_path, guint dim, GError **error)
{
  g_autofree char *path = sb_session_fit_path (session_path);
  g_autoptr (SbFitFile) f = sb_fit_file_read (path, SESSION_FIT_KIND, error);
  g_autoptr (SbSessionFit) fit = NULL;
  JsonObject *h;
  guint M, file_dim, r;
  const char *digest;
  JsonNode *hyper;

  if (f == NULL)
    return NULL;
  h = sb_fit_file_get_header (f);
  fit = g_new0 (SbSessionFit, 1);
  g_atomic_ref_count_init (&fit->ref_count);
  fit->dim = dim;
  hyper = json_object_get_member (h, "hyperparameters");
  digest = header_string (h, "answers_sha256");
  if (!header_count (h, "dim", SB_MAX_PARAMETERS, &file_dim) || file_dim != dim)
    {
      g_set_error (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_DAMAGED,
                   "%s is the fit of another experiment (not %u parameters)", path, dim);
      return NULL;
    }
  if (!header_count (h, "inducing", 100000, &M) || M == 0
      || !header_count (h, "answers", G_MAXINT, &fit->n_seen) || digest == NULL
      || hyper == NULL || !JSON_NODE_HOLDS_OBJECT (hyper)
      || !hyper_from_object (json_node_get_object (hyper), dim, &fit->hyper))
    {
      fit_damaged (error, path, "its header lacks the inducing points, the answers it saw "
                   "or valid hyperparameters");
      return NULL;
    }
  /* the rows of the pseudo-observations: C's shape says how many */
  {
    JsonNode *arrays = json_object_get_member (h, "arrays");
    r = 0;
    for (guint k = 0; arrays && JSON_NODE_HOLDS_ARRAY (arrays)
                      && k < json_array_get_length (json_node_get_array (arrays)); k++)
      {
        JsonNode *e = json_array_get_element (json_node_get_array (arrays), k);
        JsonObject *o = JSON_NODE_HOLDS_OBJECT (e) ? json_node_get_object (e) : NULL;
        if (o && g_strcmp0 (header_string (o, "name"), "C") == 0)
          header_count (o, "rows", M, &r);
      }
  }
  if (!read_summary (f, M, dim, r, &fit->summary, error))
    return NULL;
  fit->hyper.n_answers = fit->n_seen;
  fit->digest = g_strdup (digest);
  fit->fitted = g_strdup (header_string (h, "fitted") ? header_string (h, "fitted") : "");
  header_number (h, "seconds", &fit->seconds);
  return g_steal_pointer (&fit);
}

gboolean
sb_session_fit_matches (const SbSessionFit *fit, GPtrArray *log, GError **error)
{
  guint n = sb_answers_count (log);
  g_autofree char *digest = NULL;

  if (fit->n_seen > n)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                   "the stored fit saw %u answers and the session has %u now (answers were "
                   "undone or removed since)", fit->n_seen, n);
      return FALSE;
    }
  digest = sb_answers_digest (log, fit->n_seen);
  if (digest == NULL || g_ascii_strcasecmp (digest, fit->digest) != 0)
    {
      g_set_error (error, SB_FIT_ERROR, SB_FIT_ERROR_NEEDS_FIT,
                   "the stored fit saw answers that were removed, restored or changed since");
      return FALSE;
    }
  return TRUE;
}
