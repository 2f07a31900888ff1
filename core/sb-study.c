/* sb-study.c — a study folder: the index, the roster and one session per
 * participant (sb-study.h). */
#include "config.h"

#include "sb-study.h"
#include "sb-atomic-file.h"

#include "sb-enum-names.h"
#include "sb-experiment-check.h"

#include "sb-file-read.h"
#include "sb-json-read.h"
#include "sb-json-unknown.h"
#include "sb-json-write.h"
#include "sb-session.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

struct _SbStudy
{
  GObject parent_instance;

  char *dir;
  char *name;
  SbExperiment *experiment;
  double repeat_rate;
  SbStudyModel model;
  gint64 created;
  GPtrArray *roster;  /* SbParticipant, owned */
  SbFileLock *held;   /* the index's write lock while held (sb_study_hold) */
  SbJsonUnknown *unknown;  /* members of the index this program does not read */
};

G_DEFINE_FINAL_TYPE (SbStudy, sb_study, G_TYPE_OBJECT)
G_DEFINE_QUARK (sb-study-error-quark, sb_study_error)

static const char *const status_names[] = { "active", "withdrawn", "excluded" };
static const char *const model_names[] = { "independent", "hierarchical" };

/* The code alphabet: digits and capitals without 0, O, 1 and I. */
static const char code_alphabet[] = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

SB_NAMED_ENUM (SbParticipantStatus, sb_participant_status_to_string,
               sb_participant_status_from_string, status_names, "active")
SB_NAMED_ENUM (SbStudyModel, sb_study_model_to_string, sb_study_model_from_string, model_names,
               "independent")

static void
participant_free (SbParticipant *p)
{
  g_free (p->code);
  g_free (p->note);
  g_free (p);
}

static GPtrArray *
roster_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) participant_free);
}

static void
sb_study_finalize (GObject *object)
{
  SbStudy *self = SB_STUDY (object);

  g_clear_pointer (&self->held, sb_file_lock_release);
  g_free (self->dir);
  g_free (self->name);
  g_clear_pointer (&self->experiment, sb_experiment_free);
  g_clear_pointer (&self->roster, g_ptr_array_unref);
  g_clear_pointer (&self->unknown, sb_json_unknown_free);
  G_OBJECT_CLASS (sb_study_parent_class)->finalize (object);
}

static void
sb_study_class_init (SbStudyClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sb_study_finalize;
}

static void
sb_study_init (SbStudy *self)
{
  self->roster = roster_new ();
}

static SbStudy *
study_new (const char *dir)
{
  SbStudy *self = g_object_new (SB_TYPE_STUDY, NULL);
  g_autofree char *canonical = g_canonicalize_filename (dir, NULL);

  self->dir = g_strdup (dir);
  self->name = g_path_get_basename (canonical);
  return self;
}

static char *
index_path (const char *dir)
{
  return g_build_filename (dir, SB_STUDY_INDEX, NULL);
}

static gboolean
study_error (GError **error, SbStudyError code, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
study_error (GError **error, SbStudyError code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, SB_STUDY_ERROR, code, message);
  return FALSE;
}

/* ---- Codes ---------------------------------------------------------------- */

gboolean
sb_study_code_is_valid (const char *code, GError **error)
{
  gsize n = code ? strlen (code) : 0;

  if (n == 0 || n > SB_STUDY_MAX_CODE)
    return study_error (error, SB_STUDY_ERROR_INVALID,
                        "a participant code has 1 to %d characters, not %" G_GSIZE_FORMAT,
                        SB_STUDY_MAX_CODE, n);
  if (code[0] == '-' || code[0] == '_')
    return study_error (error, SB_STUDY_ERROR_INVALID,
                        "participant code '%s': it must begin with a letter or digit", code);
  for (const char *p = code; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return study_error (error, SB_STUDY_ERROR_INVALID,
                          "participant code '%s': only letters, digits, '-' and '_' (it names "
                          "a file; no names of people)", code);
  return TRUE;
}

const SbParticipant *
sb_study_find (SbStudy *self, const char *code)
{
  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  for (guint i = 0; code && i < self->roster->len; i++)
    {
      const SbParticipant *p = g_ptr_array_index (self->roster, i);
      if (g_ascii_strcasecmp (p->code, code) == 0)
        return p;
    }
  return NULL;
}

char *
sb_study_new_code (SbStudy *self)
{
  for (;;)
    {
      char code[7] = "P-";
      for (guint i = 0; i < 4; i++)
        code[2 + i] = code_alphabet[g_random_int_range (0, sizeof code_alphabet - 1)];
      code[6] = '\0';
      if (sb_study_find (self, code) == NULL)
        return g_strdup (code);
    }
}

/* The participant's own seed: the study's mixed with the code (FNV-1a
 * of the code in capitals), kept below 2^53 so that any JSON reader
 * holds it exactly. */
static guint64
participant_seed (guint64 seed, const char *code)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  for (const char *p = code; *p; p++)
    {
      h ^= (guchar) g_ascii_toupper (*p);
      h *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return (seed + h) & ((G_GUINT64_CONSTANT (1) << 53) - 1);
}

/* ---- The index ------------------------------------------------------------ */

static char *
index_to_data (SbStudy *self, gsize *length)
{
  g_autoptr (JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  JsonObject *o = json_object_new ();
  JsonArray *people = json_array_sized_new (self->roster->len);
  g_autofree char *created = sb_format_time (self->created);

  json_object_set_string_member (o, "format", SB_STUDY_FORMAT);
  json_object_set_int_member (o, "version", SB_STUDY_VERSION);
  json_object_set_string_member (o, "created", created);
  json_object_set_double_member (o, "repeat_rate", self->repeat_rate);
  json_object_set_string_member (o, "model", sb_study_model_to_string (self->model));
  json_object_set_member (o, "experiment", sb_experiment_to_node (self->experiment));
  for (guint i = 0; i < self->roster->len; i++)
    {
      const SbParticipant *p = g_ptr_array_index (self->roster, i);
      JsonObject *po = json_object_new ();
      g_autofree char *added = sb_format_time (p->added);
      json_object_set_string_member (po, "code", p->code);
      json_object_set_string_member (po, "status", sb_participant_status_to_string (p->status));
      json_object_set_string_member (po, "added", added);
      if (p->note)
        json_object_set_string_member (po, "note", p->note);
      json_array_add_object_element (people, po);
    }
  json_object_set_array_member (o, "participants", people);
  json_node_take_object (root, o);
  sb_json_unknown_restore (self->unknown, root);
  return sb_json_write (root, TRUE, length);
}

static gboolean
write_index (SbStudy *self, GError **error)
{
  g_autofree char *path = index_path (self->dir);
  gsize length;
  g_autofree char *data = index_to_data (self, &length);

  return sb_atomic_file_write (path, data, length, error);
}

typedef struct {
  const char *name;
  const char *data;
  SbJsonSeen *seen;  /* the members read */
} IndexText;

static gboolean index_error (const IndexText *t, GError **error, const char *key,
                             const char *format, ...) G_GNUC_PRINTF (4, 5);

/* "FILE:LINE:COLUMN: message", at the first member named KEY. */
static gboolean
index_error (const IndexText *t, GError **error, const char *key, const char *format, ...)
{
  va_list args;
  guint line = 1, column = 1;

  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  if (key)
    sb_json_locate_member (t->data, key, &line, &column);
  g_set_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID, "%s:%u:%u: %s", t->name, line,
               column, message);
  return FALSE;
}

/* Member KEY of O (NULL when absent), marked in SEEN as read. */
static JsonNode *
member (SbJsonSeen *seen, JsonObject *o, const char *key)
{
  sb_json_seen_mark (seen, o, key);
  return json_object_get_member (o, key);
}

static const char *
member_string (SbJsonSeen *seen, JsonObject *o, const char *key)
{
  JsonNode *n = member (seen, o, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static gboolean
parse_time_member (SbJsonSeen *seen, JsonObject *o, const char *key, gint64 *out)
{
  const char *text = member_string (seen, o, key);
  g_autoptr (GDateTime) dt = text ? g_date_time_new_from_iso8601 (text, NULL) : NULL;

  if (dt == NULL)
    return FALSE;
  *out = g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
  return TRUE;
}

static gboolean
parse_participant (const IndexText *t, JsonNode *node, guint index, GPtrArray *roster,
                   GError **error)
{
  g_autoptr (GError) local = NULL;
  SbParticipant *p;
  JsonObject *o;
  const char *code, *status, *note;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return index_error (t, error, "participants", "participant %u is not an object", index + 1);
  o = json_node_get_object (node);
  code = member_string (t->seen, o, "code");
  if (code == NULL)
    return index_error (t, error, "participants", "participant %u: 'code' must be a string",
                        index + 1);
  if (!sb_study_code_is_valid (code, &local))
    return index_error (t, error, "code", "participant %u: %s", index + 1, local->message);
  for (guint i = 0; i < roster->len; i++)
    if (g_ascii_strcasecmp (((SbParticipant *) g_ptr_array_index (roster, i))->code, code) == 0)
      return index_error (t, error, "code", "participant %u: the code '%s' is listed twice",
                          index + 1, code);
  p = g_new0 (SbParticipant, 1);
  g_ptr_array_add (roster, p);
  p->code = g_strdup (code);
  status = member_string (t->seen, o, "status");
  if (status && !sb_participant_status_from_string (status, &p->status))
    return index_error (t, error, "status", "participant '%s': unknown status '%s' (expected "
                        "\"active\", \"withdrawn\" or \"excluded\")", code, status);
  if (json_object_has_member (o, "added") && !parse_time_member (t->seen, o, "added", &p->added))
    return index_error (t, error, "added", "participant '%s': 'added' is not an ISO 8601 time",
                        code);
  note = member_string (t->seen, o, "note");
  if (json_object_has_member (o, "note") && note == NULL)
    return index_error (t, error, "note", "participant '%s': 'note' must be a string", code);
  p->note = g_strdup (note);
  return TRUE;
}

/* Reads the index of DIR into SELF (experiment, rate, roster). */
static gboolean
read_index (SbStudy *self, GError **error)
{
  g_autofree char *path = index_path (self->dir);
  g_autofree char *data = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GPtrArray) roster = roster_new ();
  g_autoptr (SbExperiment) exp = NULL;
  g_autoptr (SbJsonSeen) seen = sb_json_seen_new ();
  IndexText t = { path, NULL, seen };
  JsonObject *o;
  JsonNode *n;
  gsize length;

  if (!sb_file_read_bounded (path, SB_JSON_READ_MAX_BYTES, SB_FILE_READ_DEFAULT, "the study index",
                             &data, &length, &local))
    {
      g_set_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID,
                   "%s is not a study folder: %s", self->dir, local->message);
      return FALSE;
    }
  t.data = data;
  if (memchr (data, '\0', length) != NULL || !g_utf8_validate (data, length, NULL))
    return index_error (&t, error, NULL, "not a SkewBench study (the file is not UTF-8 text)");
  root = sb_json_read (data, length, &local);
  if (root == NULL)
    {
      g_set_error (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID, "%s:%s", path, local->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return index_error (&t, error, NULL, "not a SkewBench study (not a JSON object)");
  o = json_node_get_object (root);
  if (g_strcmp0 (member_string (t.seen, o, "format"), SB_STUDY_FORMAT) != 0)
    return index_error (&t, error, "format", "not a SkewBench study (\"format\" is not \"%s\")",
                        SB_STUDY_FORMAT);
  n = member (t.seen, o, "version");
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
      || json_node_get_int (n) < 1 || json_node_get_int (n) > SB_STUDY_VERSION)
    return index_error (&t, error, "version", "'version' must be 1 (this program reads study "
                        "version %d)", SB_STUDY_VERSION);
  n = member (t.seen, o, "repeat_rate");
  if (n != NULL)
    {
      GType vt = JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
      double rate = vt == G_TYPE_DOUBLE || vt == G_TYPE_INT64 ? json_node_get_double (n) : NAN;
      if (!(rate >= 0 && rate <= 0.5))
        return index_error (&t, error, "repeat_rate", "'repeat_rate' must be a number from 0 "
                            "to 0.5");
      self->repeat_rate = rate;
    }
  /* without "model": a study from before the field, asked independently */
  self->model = SB_STUDY_MODEL_INDEPENDENT;
  if (json_object_has_member (o, "model"))
    {
      const char *model = member_string (t.seen, o, "model");
      if (model == NULL || !sb_study_model_from_string (model, &self->model))
        return index_error (&t, error, "model", "unknown model %s%s%s (expected "
                            "\"hierarchical\" or \"independent\")", model ? "'" : "",
                            model ? model : "(not a string)", model ? "'" : "");
    }
  n = member (t.seen, o, "experiment");
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return index_error (&t, error, "experiment", "the member 'experiment' must be an object");
  g_clear_error (&local);
  exp = sb_experiment_from_node (json_node_get_object (n), path, data, t.seen, &local);
  if (exp == NULL)
    {
      g_set_error_literal (error, SB_STUDY_ERROR, SB_STUDY_ERROR_INVALID, local->message);
      return FALSE;
    }
  n = member (t.seen, o, "participants");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return index_error (&t, error, "participants", "the member 'participants' must be an array");
  for (guint i = 0; i < json_array_get_length (json_node_get_array (n)); i++)
    if (!parse_participant (&t, json_array_get_element (json_node_get_array (n), i), i, roster,
                            error))
      return FALSE;
  parse_time_member (t.seen, o, "created", &self->created);
  g_clear_pointer (&self->experiment, sb_experiment_free);
  self->experiment = g_steal_pointer (&exp);
  g_ptr_array_unref (self->roster);
  self->roster = g_steal_pointer (&roster);
  g_clear_pointer (&self->unknown, sb_json_unknown_free);
  self->unknown = sb_json_unknown_collect (root, seen);
  return TRUE;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* How PATH stands, for a refusal: NULL when it is what WANT says (or
 * absent, when ABSENT_OK), else what it is. */
static const char *
odd_file_kind (const char *path, mode_t want, gboolean absent_ok)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return errno == ENOENT && absent_ok ? NULL : "missing";
  if (S_ISLNK (st.st_mode))
    return "a symbolic link";
  if ((st.st_mode & S_IFMT) != want)
    return want == S_IFDIR ? "not a folder" : "not a regular file";
  return NULL;
}

/* Session files the index does not list (added by a writer killed
 * between the session and the index) join the roster as active. */
static void
adopt_unlisted (SbStudy *self)
{
  g_autofree char *folder = g_build_filename (self->dir, SB_STUDY_PARTICIPANTS, NULL);
  g_autoptr (GDir) d = g_dir_open (folder, 0, NULL);
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.' && g_str_has_suffix (name, ".json"))
      g_ptr_array_add (found, g_strndup (name, strlen (name) - strlen (".json")));
  /* in name order, so that the roster does not depend on the directory's */
  g_ptr_array_sort (found, compare_names);
  for (guint i = 0; i < found->len; i++)
    {
      const char *code = g_ptr_array_index (found, i);
      g_autofree char *path = NULL;
      GStatBuf st;
      if (!sb_study_code_is_valid (code, NULL) || sb_study_find (self, code) != NULL)
        continue;
      /* Only a regular file of the folder's own joins: a symlink to a
       * session elsewhere would have that session written. */
      path = sb_study_participant_path (self, code);
      if (odd_file_kind (path, S_IFREG, FALSE) != NULL)
        continue;
      SbParticipant *p = g_new0 (SbParticipant, 1);
      p->code = g_strdup (code);
      p->added = g_stat (path, &st) == 0 ? (gint64) st.st_mtime * G_USEC_PER_SEC
                                         : g_get_real_time ();
      g_ptr_array_add (self->roster, p);
    }
}

SbStudy *
sb_study_open (const char *dir, GError **error)
{
  g_autoptr (SbStudy) self = NULL;

  g_return_val_if_fail (dir != NULL, NULL);
  self = study_new (dir);
  if (!read_index (self, error))
    return NULL;
  adopt_unlisted (self);
  return g_steal_pointer (&self);
}

/* DIR does not exist (created) or is an empty folder. */
static gboolean
make_folder (const char *dir, GError **error)
{
  g_autoptr (GDir) d = NULL;

  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      if (g_mkdir_with_parents (dir, 0777) != 0)
        {
          int saved = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       "cannot create the study folder %s: %s", dir, g_strerror (saved));
          return FALSE;
        }
      return TRUE;
    }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    return study_error (error, SB_STUDY_ERROR_EXISTS,
                        "%s exists and is not a folder; choose another name", dir);
  d = g_dir_open (dir, 0, error);
  if (d == NULL)
    return FALSE;
  if (g_dir_read_name (d) != NULL)
    return study_error (error, SB_STUDY_ERROR_EXISTS,
                        "%s exists and is not empty; a study is created in a new or empty "
                        "folder (nothing there is overwritten)", dir);
  return TRUE;
}

SbStudy *
sb_study_create (const char *dir, const SbExperiment *exp, double repeat_rate, GError **error)
{
  return sb_study_create_with_model (dir, exp, repeat_rate, SB_STUDY_MODEL_HIERARCHICAL, error);
}

SbStudy *
sb_study_create_with_model (const char *dir, const SbExperiment *exp, double repeat_rate,
                            SbStudyModel model, GError **error)
{
  g_autoptr (SbStudy) self = NULL;
  g_autoptr (SbFileLock) lock = NULL;
  g_autofree char *path = index_path (dir);
  g_autofree char *folder = g_build_filename (dir, SB_STUDY_PARTICIPANTS, NULL);
  GError *local = NULL;

  g_return_val_if_fail (dir != NULL && exp != NULL, NULL);
  if (!(repeat_rate >= 0 && repeat_rate <= 0.5))
    {
      study_error (error, SB_STUDY_ERROR_INVALID,
                   "the repeat rate must be from 0 to 0.5, not %g", repeat_rate);
      return NULL;
    }
  if (!sb_experiment_validate (exp, &local))
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (!make_folder (dir, error))
    return NULL;
  lock = sb_file_lock_acquire (path, "skewgp study new", error);
  if (lock == NULL)
    return NULL;
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      study_error (error, SB_STUDY_ERROR_EXISTS, "%s exists already", path);
      return NULL;
    }
  if (g_mkdir_with_parents (folder, 0777) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create %s: %s", folder, g_strerror (saved));
      return NULL;
    }
  self = study_new (dir);
  self->experiment = sb_experiment_copy (exp);
  /* The population model asks a hierarchical study's duels by ucb, eiig,
   * epi or thompson: the believer's hallucination is a sample of one
   * person's exact posterior, which it does not have. The default for
   * one person's duels, hb-ucb, becomes the population's ucb (hb-ucb is
   * the UCB of the believer), written in study.json as it is asked. */
  if (model == SB_STUDY_MODEL_HIERARCHICAL && exp->acquisition == SG_BO_ACQ_HB_UCB
      && sb_experiment_population_fits (exp))
    self->experiment->acquisition = SG_BO_ACQ_UCB;
  self->repeat_rate = repeat_rate;
  self->model = model;
  self->created = g_get_real_time ();
  if (!write_index (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

const char *
sb_study_get_dir (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  return self->dir;
}

const char *
sb_study_get_name (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  return self->name;
}

const SbExperiment *
sb_study_get_experiment (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  return self->experiment;
}

double
sb_study_get_repeat_rate (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), 0);
  return self->repeat_rate;
}

SbStudyModel
sb_study_get_model (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), SB_STUDY_MODEL_INDEPENDENT);
  return self->model;
}

guint
sb_study_get_n_participants (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), 0);
  return self->roster->len;
}

const SbParticipant *
sb_study_get_participant (SbStudy *self, guint index)
{
  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  g_return_val_if_fail (index < self->roster->len, NULL);
  return g_ptr_array_index (self->roster, index);
}

char *
sb_study_participant_path (SbStudy *self, const char *code)
{
  g_autofree char *file = g_strconcat (code, ".json", NULL);

  return g_build_filename (self->dir, SB_STUDY_PARTICIPANTS, file, NULL);
}

char *
sb_study_participant_file (SbStudy *self, const char *code, GError **error)
{
  g_autofree char *folder = g_build_filename (self->dir, SB_STUDY_PARTICIPANTS, NULL);
  g_autofree char *path = sb_study_participant_path (self, code);
  const char *odd;

  if ((odd = odd_file_kind (folder, S_IFDIR, FALSE)) != NULL)
    {
      study_error (error, SB_STUDY_ERROR_INVALID, "%s is %s; a study keeps its participants' "
                   "sessions in a folder of its own", folder, odd);
      return NULL;
    }
  if ((odd = odd_file_kind (path, S_IFREG, TRUE)) != NULL)
    {
      study_error (error, SB_STUDY_ERROR_INVALID, "the session of participant '%s', %s, is %s; "
                   "it is not read or written (a participant's session is a file in %s)",
                   code, path, odd, folder);
      return NULL;
    }
  return g_steal_pointer (&path);
}

/* How long a roster change waits for another one to finish. */
#define SB_STUDY_ROSTER_WAIT_MS 15000

/* ---- Roster changes --------------------------------------------------------
 * Under the index's write lock, on the index read again. */

/* The index's write lock for one change, or the lock held for the whole
 * time (sb_study_hold): *TAKEN is the lock taken here (NULL while held;
 * released by the caller). */
static gboolean
lock_roster (SbStudy *self, const char *program, SbFileLock **taken, GError **error)
{
  g_autofree char *path = index_path (self->dir);

  *taken = NULL;
  /* roster changes are short: a second writer queues for them */
  if (self->held == NULL
      && (*taken = sb_file_lock_acquire_wait (path, program, SB_STUDY_ROSTER_WAIT_MS, error))
           == NULL)
    return FALSE;
  if (!read_index (self, error))
    {
      g_clear_pointer (taken, sb_file_lock_release);
      return FALSE;
    }
  adopt_unlisted (self);
  return TRUE;
}

gboolean
sb_study_hold (SbStudy *self, const char *program, GError **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (SB_IS_STUDY (self), FALSE);
  g_return_val_if_fail (self->held == NULL, FALSE);
  path = index_path (self->dir);
  self->held = sb_file_lock_acquire (path, program, error);
  if (self->held == NULL)
    return FALSE;
  /* what another writer changed before the lock was taken */
  if (!read_index (self, error))
    {
      g_clear_pointer (&self->held, sb_file_lock_release);
      return FALSE;
    }
  adopt_unlisted (self);
  return TRUE;
}

void
sb_study_release (SbStudy *self)
{
  g_return_if_fail (SB_IS_STUDY (self));
  g_clear_pointer (&self->held, sb_file_lock_release);
}

gboolean
sb_study_is_held (SbStudy *self)
{
  g_return_val_if_fail (SB_IS_STUDY (self), FALSE);
  return self->held != NULL;
}

static SbParticipant *
find_mutable (SbStudy *self, const char *code, GError **error)
{
  SbParticipant *p = (SbParticipant *) sb_study_find (self, code);

  if (p == NULL)
    study_error (error, SB_STUDY_ERROR_UNKNOWN, "the study has no participant '%s'", code);
  return p;
}

const SbParticipant *
sb_study_add_participant (SbStudy *self, const char *code, const char *note, GError **error)
{
  g_autoptr (SbFileLock) lock = NULL;
  g_autoptr (SbExperiment) exp = NULL;
  g_autoptr (SbSession) session = NULL;
  g_autoptr (GFile) file = NULL;
  g_autofree char *chosen = NULL;
  g_autofree char *path = NULL;
  SbParticipant *p;
  GStatBuf st;

  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  if (code != NULL && !sb_study_code_is_valid (code, error))
    return NULL;
  if (!lock_roster (self, "skewgp study add", &lock, error))
    return NULL;
  if (code != NULL && sb_study_find (self, code) != NULL)
    {
      study_error (error, SB_STUDY_ERROR_TAKEN, "the code '%s' is taken (by '%s')", code,
                   sb_study_find (self, code)->code);
      return NULL;
    }
  chosen = code ? g_strdup (code) : sb_study_new_code (self);
  path = sb_study_participant_file (self, chosen, error);
  if (path == NULL)
    return NULL;
  if (g_lstat (path, &st) == 0)
    {
      study_error (error, SB_STUDY_ERROR_TAKEN, "%s exists already", path);
      return NULL;
    }

  /* The session first: a kill before the index is written leaves a file
   * the next open adopts, never an index entry without its file. */
  exp = sb_experiment_copy (self->experiment);
  exp->seed = participant_seed (self->experiment->seed, chosen);
  session = sb_session_new (exp);
  file = g_file_new_for_path (path);
  if (!sb_session_save_as (session, file, error))
    return NULL;

  p = g_new0 (SbParticipant, 1);
  p->code = g_steal_pointer (&chosen);
  p->added = g_get_real_time ();
  p->note = note && *note ? g_strdup (note) : NULL;
  g_ptr_array_add (self->roster, p);
  if (!write_index (self, error))
    return NULL;
  return p;
}

gboolean
sb_study_set_status (SbStudy *self, const char *code, SbParticipantStatus status,
                     GError **error)
{
  g_autoptr (SbFileLock) lock = NULL;
  SbParticipant *p;

  g_return_val_if_fail (SB_IS_STUDY (self), FALSE);
  if (!lock_roster (self, "skewgp study", &lock, error)
      || (p = find_mutable (self, code, error)) == NULL)
    return FALSE;
  p->status = status;
  return write_index (self, error);
}

gboolean
sb_study_set_note (SbStudy *self, const char *code, const char *note, GError **error)
{
  g_autoptr (SbFileLock) lock = NULL;
  SbParticipant *p;

  g_return_val_if_fail (SB_IS_STUDY (self), FALSE);
  if (!lock_roster (self, "skewgp study", &lock, error)
      || (p = find_mutable (self, code, error)) == NULL)
    return FALSE;
  g_free (p->note);
  p->note = note && *note ? g_strdup (note) : NULL;
  return write_index (self, error);
}

SbSession *
sb_study_open_session (SbStudy *self, const char *code, GError **error)
{
  const SbParticipant *p;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;

  g_return_val_if_fail (SB_IS_STUDY (self), NULL);
  p = sb_study_find (self, code);
  if (p == NULL)
    {
      study_error (error, SB_STUDY_ERROR_UNKNOWN, "the study has no participant '%s'", code);
      return NULL;
    }
  path = sb_study_participant_file (self, p->code, error);
  if (path == NULL)
    return NULL;
  file = g_file_new_for_path (path);
  return sb_session_load (file, error);
}

/* ---- Summaries ------------------------------------------------------------ */

gboolean
sb_study_summarise (SbStudy *self, const char *code, SbParticipantSummary *out,
                    GError **error)
{
  g_autoptr (SbSession) session = sb_study_open_session (self, code, error);

  if (session == NULL)
    return FALSE;
  memset (out, 0, sizeof *out);
  out->answered = sb_session_get_n_answers (session);
  out->budget = sb_session_get_experiment (session)->budget;
  out->done = out->answered >= out->budget;
  for (guint i = 0; i < sb_session_get_n_observations (session); i++)
    {
      const SbLogEntry *e = sb_session_get_observation (session, i);
      if (sb_log_entry_is_removed (e))
        out->removed++;
      else if (e->kind == SB_LOG_SKIP)
        out->skipped++;
    }
  {
    const SbQuestion *q = sb_session_get_open_question (session);
    out->open_question = q != NULL && q->n_log == sb_session_get_n_observations (session);
  }
  sb_consistency_of_session (session, &out->consistency);
  return TRUE;
}

gboolean
sb_study_population (SbStudy *self, SbPopulation *out, GError **error)
{
  g_return_val_if_fail (SB_IS_STUDY (self), FALSE);
  memset (out, 0, sizeof *out);
  out->n_participants = self->roster->len;
  for (guint i = 0; i < self->roster->len; i++)
    {
      const SbParticipant *p = g_ptr_array_index (self->roster, i);
      SbParticipantSummary s;
      if (p->status == SB_PARTICIPANT_EXCLUDED)
        continue;
      if (!sb_study_summarise (self, p->code, &s, NULL))
        {
          out->n_unreadable++;
          continue;
        }
      out->n_included++;
      out->n_done += s.done;
      out->n_answers += s.answered;
      out->n_duels += s.consistency.n_duels;
      out->n_repeats += s.consistency.n_repeats;
      out->n_agree += s.consistency.n_agree;
      out->n_triples += s.consistency.n_triples;
      out->n_intransitive += s.consistency.n_intransitive;
      out->n_side += s.consistency.n_side;
      out->n_first_chosen += s.consistency.n_first_chosen;
      out->n_at_chance += s.consistency.at_chance;
    }
  return TRUE;
}
