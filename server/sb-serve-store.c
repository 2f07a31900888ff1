/* sb-serve-store.c — an online study's settings and access files
 * (sb-serve-store.h). */
#include "config.h"

#include "sb-serve-store.h"

#include "sb-atomic-file.h"
#include "sb-csv-write.h"
#include "sb-error.h"
#include "sb-json-read.h"
#include "sb-json-write.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/random.h>

#define SETTINGS_FORMAT "skewbench-online-settings"
#define ACCESS_FORMAT "skewbench-online-access"

typedef struct {
  char *code;
  char *token_sha256;
  char *external_id;     /* NULL: none */
  gint64 joined;
  gint64 consent_time;   /* 0: no consent asked */
  char *consent_sha256;
} AccessEntry;

struct _SbServeAccess {
  char *path;
  GPtrArray *entries;    /* AccessEntry */
  GHashTable *by_token;  /* token sha256 -> entry (borrowed) */
};

/* ---- Small helpers ------------------------------------------------------- */

char *
sb_serve_sha256 (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

char *
sb_serve_new_token (void)
{
  guint8 bytes[SB_SERVE_TOKEN_BYTES];
  gsize got = 0;
  GString *hex = g_string_sized_new (2 * SB_SERVE_TOKEN_BYTES);

  /* getrandom blocks only until the kernel's pool is first seeded; a
   * signal may cut it short, so read until every byte is there */
  while (got < sizeof bytes)
    {
      ssize_t n = getrandom (bytes + got, sizeof bytes - got, 0);
      if (n < 0 && errno != EINTR)
        g_error ("getrandom failed: %s", g_strerror (errno));
      if (n > 0)
        got += (gsize) n;
    }
  for (gsize i = 0; i < sizeof bytes; i++)
    g_string_append_printf (hex, "%02x", bytes[i]);
  return g_string_free (hex, FALSE);
}

static char *
online_path (const char *study_dir, const char *name)
{
  return g_build_filename (study_dir, SB_SERVE_FOLDER, name, NULL);
}

/* The document at PATH of FORMAT (version 1), or NULL: *MISSING when
 * there is no file, else ERROR. */
static JsonObject *
read_document (const char *path, const char *format, gboolean *missing, GError **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_autoptr (GError) err = NULL;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *obj;

  *missing = FALSE;
  if (!g_file_get_contents (path, &data, &length, &err))
    {
      if (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        *missing = TRUE;
      else
        g_propagate_error (error, g_steal_pointer (&err));
      return NULL;
    }
  root = sb_json_read (data, (gssize) length, &err);
  if (root == NULL)
    {
      sb_invalid (error, "%s:%s", path, err->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root)
      || g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (root),
                                                                "format", ""), format) != 0)
    {
      sb_invalid (error, "%s is not a %s file", path, format);
      return NULL;
    }
  obj = json_node_get_object (root);
  if (json_object_get_int_member_with_default (obj, "version", 0) != 1)
    {
      sb_invalid (error, "%s: version %" G_GINT64_FORMAT " is not one this program reads",
                  path, json_object_get_int_member_with_default (obj, "version", 0));
      return NULL;
    }
  return json_object_ref (obj);
}

static gboolean
write_document (const char *study_dir, const char *name, JsonBuilder *b, GError **error)
{
  g_autofree char *dir = g_build_filename (study_dir, SB_SERVE_FOLDER, NULL);
  g_autofree char *path = online_path (study_dir, name);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  gsize length = 0;
  g_autofree char *text = sb_json_write (root, TRUE, &length);

  /* the folder holds the link between codes and external ids: only the
   * experimenter reads it */
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot create %s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  return sb_atomic_file_write (path, text, length, error);
}

static const char *
string_or_null (JsonObject *obj, const char *member)
{
  JsonNode *node = json_object_get_member (obj, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node) || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gint64
parse_time (const char *text)
{
  g_autoptr (GDateTime) t = text ? g_date_time_new_from_iso8601 (text, NULL) : NULL;

  return t ? g_date_time_to_unix (t) * G_USEC_PER_SEC + g_date_time_get_microsecond (t) : 0;
}

/* ---- Settings ----------------------------------------------------------------- */

void
sb_serve_settings_clear (SbServeSettings *settings)
{
  g_clear_pointer (&settings->consent, g_free);
  g_clear_pointer (&settings->completion_url, g_free);
}

gboolean
sb_serve_settings_check (const SbServeSettings *settings, GError **error)
{
  const char *url = settings->completion_url;

  if (url && !g_str_has_prefix (url, "https://") && !g_str_has_prefix (url, "http://"))
    return sb_invalid (error, "the completion URL must start with https:// or http://, "
                       "not '%s'", url);
  if (url && !g_uri_is_valid (url, G_URI_FLAGS_NONE, NULL))
    return sb_invalid (error, "the completion URL '%s' is not a valid URL", url);
  if (settings->consent && !g_utf8_validate (settings->consent, -1, NULL))
    return sb_invalid (error, "the consent text is not UTF-8");
  return TRUE;
}

gboolean
sb_serve_settings_load (const char *study_dir, SbServeSettings *settings, GError **error)
{
  g_autofree char *path = online_path (study_dir, "settings.json");
  gboolean missing;
  JsonObject *obj;

  memset (settings, 0, sizeof *settings);
  settings->open = TRUE;
  obj = read_document (path, SETTINGS_FORMAT, &missing, error);
  if (obj == NULL)
    return missing;
  settings->open = json_object_get_boolean_member_with_default (obj, "open", TRUE);
  settings->max_participants =
    (guint) CLAMP (json_object_get_int_member_with_default (obj, "max_participants", 0), 0,
                   G_MAXINT);
  settings->break_every =
    (guint) CLAMP (json_object_get_int_member_with_default (obj, "break_every", 0), 0, 100000);
  settings->consent = g_strdup (string_or_null (obj, "consent"));
  settings->completion_url = g_strdup (string_or_null (obj, "completion_url"));
  json_object_unref (obj);
  if (!sb_serve_settings_check (settings, error))
    {
      g_prefix_error (error, "%s: ", path);
      sb_serve_settings_clear (settings);
      return FALSE;
    }
  return TRUE;
}

gboolean
sb_serve_settings_save (const char *study_dir, const SbServeSettings *settings, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  if (!sb_serve_settings_check (settings, error))
    return FALSE;
  json_builder_begin_object (b);
  sb_json_add_string (b, "format", SETTINGS_FORMAT);
  sb_json_add_int (b, "version", 1);
  sb_json_add_bool (b, "open", settings->open);
  sb_json_add_int (b, "max_participants", settings->max_participants);
  sb_json_add_string (b, "consent", settings->consent);
  sb_json_add_string (b, "completion_url", settings->completion_url);
  sb_json_add_int (b, "break_every", settings->break_every);
  json_builder_end_object (b);
  return write_document (study_dir, "settings.json", b, error);
}

/* ---- Access ------------------------------------------------------------------- */

static void
entry_free (gpointer data)
{
  AccessEntry *e = data;

  g_free (e->code);
  g_free (e->token_sha256);
  g_free (e->external_id);
  g_free (e->consent_sha256);
  g_free (e);
}

void
sb_serve_access_free (SbServeAccess *access)
{
  if (access == NULL)
    return;
  g_hash_table_unref (access->by_token);
  g_ptr_array_unref (access->entries);
  g_free (access->path);
  g_free (access);
}

static gboolean
read_entry (SbServeAccess *access, JsonNode *node, guint index, GError **error)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *code = o ? string_or_null (o, "code") : NULL;
  const char *hash = o ? string_or_null (o, "token_sha256") : NULL;
  AccessEntry *e;

  if (code == NULL || hash == NULL || strlen (hash) != 64)
    return sb_invalid (error, "%s: participant %u needs \"code\" and \"token_sha256\"",
                       access->path, index + 1);
  e = g_new0 (AccessEntry, 1);
  e->code = g_strdup (code);
  e->token_sha256 = g_ascii_strdown (hash, -1);
  e->external_id = g_strdup (string_or_null (o, "external_id"));
  e->joined = parse_time (string_or_null (o, "joined"));
  if (json_object_has_member (o, "consent")
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "consent")))
    {
      JsonObject *c = json_object_get_object_member (o, "consent");
      e->consent_time = parse_time (string_or_null (c, "time"));
      e->consent_sha256 = g_strdup (string_or_null (c, "text_sha256"));
    }
  g_ptr_array_add (access->entries, e);
  g_hash_table_replace (access->by_token, e->token_sha256, e);
  return TRUE;
}

SbServeAccess *
sb_serve_access_load (const char *study_dir, GError **error)
{
  g_autoptr (SbServeAccess) access = g_new0 (SbServeAccess, 1);
  gboolean missing;
  JsonObject *obj;
  JsonArray *people;

  access->path = online_path (study_dir, "access.json");
  access->entries = g_ptr_array_new_with_free_func (entry_free);
  access->by_token = g_hash_table_new (g_str_hash, g_str_equal);
  obj = read_document (access->path, ACCESS_FORMAT, &missing, error);
  if (obj == NULL)
    return missing ? g_steal_pointer (&access) : NULL;
  people = json_object_has_member (obj, "participants")
             && JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "participants"))
             ? json_object_get_array_member (obj, "participants") : NULL;
  for (guint i = 0; people && i < json_array_get_length (people); i++)
    if (!read_entry (access, json_array_get_element (people, i), i, error))
      {
        json_object_unref (obj);
        return NULL;
      }
  json_object_unref (obj);
  return g_steal_pointer (&access);
}

static AccessEntry *
find_code (SbServeAccess *access, const char *code)
{
  for (guint i = 0; i < access->entries->len; i++)
    {
      AccessEntry *e = g_ptr_array_index (access->entries, i);
      if (g_ascii_strcasecmp (e->code, code) == 0)
        return e;
    }
  return NULL;
}

const char *
sb_serve_access_lookup (SbServeAccess *access, const char *token)
{
  g_autofree char *hash = NULL;
  AccessEntry *e;

  if (token == NULL || strlen (token) != 2 * SB_SERVE_TOKEN_BYTES)
    return NULL;
  hash = sb_serve_sha256 (token);
  e = g_hash_table_lookup (access->by_token, hash);
  return e ? e->code : NULL;
}

const char *
sb_serve_access_find_external (SbServeAccess *access, const char *external_id)
{
  for (guint i = 0; external_id && i < access->entries->len; i++)
    {
      AccessEntry *e = g_ptr_array_index (access->entries, i);
      if (g_strcmp0 (e->external_id, external_id) == 0)
        return e->code;
    }
  return NULL;
}

guint
sb_serve_access_get_n (SbServeAccess *access)
{
  return access->entries->len;
}

static gboolean
save_access (SbServeAccess *access, const char *study_dir, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_string (b, "format", ACCESS_FORMAT);
  sb_json_add_int (b, "version", 1);
  json_builder_set_member_name (b, "participants");
  json_builder_begin_array (b);
  for (guint i = 0; i < access->entries->len; i++)
    {
      AccessEntry *e = g_ptr_array_index (access->entries, i);
      g_autofree char *joined = sb_format_time (e->joined);
      json_builder_begin_object (b);
      sb_json_add_string (b, "code", e->code);
      sb_json_add_string (b, "token_sha256", e->token_sha256);
      sb_json_add_string (b, "external_id", e->external_id);
      sb_json_add_string (b, "joined", joined);
      json_builder_set_member_name (b, "consent");
      if (e->consent_sha256)
        {
          g_autofree char *when = sb_format_time (e->consent_time);
          json_builder_begin_object (b);
          sb_json_add_string (b, "time", when);
          sb_json_add_string (b, "text_sha256", e->consent_sha256);
          json_builder_end_object (b);
        }
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return write_document (study_dir, "access.json", b, error);
}

char *
sb_serve_access_grant (SbServeAccess *access, const char *code, const char *external_id,
                       const char *consent_sha256, GError **error)
{
  g_autofree char *token = sb_serve_new_token ();
  g_autofree char *hash = sb_serve_sha256 (token);
  g_autofree char *study_dir = NULL;
  AccessEntry *e = find_code (access, code);
  AccessEntry saved = { 0 };
  gboolean added = e == NULL;

  if (added)
    {
      e = g_new0 (AccessEntry, 1);
      e->code = g_strdup (code);
      e->joined = g_get_real_time ();
      g_ptr_array_add (access->entries, e);
    }
  else
    {
      saved = *e;
      g_hash_table_remove (access->by_token, e->token_sha256);
      e->external_id = g_strdup (e->external_id);
      e->consent_sha256 = g_strdup (e->consent_sha256);
    }
  e->token_sha256 = g_strdup (hash);
  if (external_id)
    {
      g_free (e->external_id);
      e->external_id = g_strdup (external_id);
    }
  if (consent_sha256)
    {
      g_free (e->consent_sha256);
      e->consent_sha256 = g_strdup (consent_sha256);
      e->consent_time = g_get_real_time ();
    }
  g_hash_table_replace (access->by_token, e->token_sha256, e);

  /* access->path is STUDY/online/access.json */
  {
    g_autofree char *online = g_path_get_dirname (access->path);
    study_dir = g_path_get_dirname (online);
  }
  if (save_access (access, study_dir, error))
    {
      if (!added)
        {
          g_free (saved.token_sha256);
          g_free (saved.external_id);
          g_free (saved.consent_sha256);
        }
      return g_steal_pointer (&token);
    }

  /* not saved: the grant never happened */
  g_hash_table_remove (access->by_token, e->token_sha256);
  if (added)
    g_ptr_array_remove (access->entries, e);
  else
    {
      g_free (e->token_sha256);
      g_free (e->external_id);
      g_free (e->consent_sha256);
      *e = saved;
      g_hash_table_replace (access->by_token, e->token_sha256, e);
    }
  return NULL;
}

char *
sb_serve_access_to_csv (SbServeAccess *access)
{
  GString *csv = g_string_new ("code,external_id,joined,consent_time,consent_sha256\n");

  for (guint i = 0; i < access->entries->len; i++)
    {
      AccessEntry *e = g_ptr_array_index (access->entries, i);
      g_autofree char *joined = sb_format_time (e->joined);
      g_autofree char *consent = e->consent_sha256 ? sb_format_time (e->consent_time) : NULL;
      sb_csv_field (csv, e->code);
      g_string_append_c (csv, ',');
      sb_csv_field (csv, e->external_id ? e->external_id : "");
      g_string_append_c (csv, ',');
      sb_csv_field (csv, joined);
      g_string_append_c (csv, ',');
      sb_csv_field (csv, consent ? consent : "");
      g_string_append_c (csv, ',');
      sb_csv_field (csv, e->consent_sha256 ? e->consent_sha256 : "");
      g_string_append_c (csv, '\n');
    }
  return g_string_free (csv, FALSE);
}
