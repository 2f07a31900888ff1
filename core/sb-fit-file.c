/* sb-fit-file.c — a stored model fit: a JSON header and arrays of
 * numbers (sb-fit-file.h). */
#include "config.h"

#include "sb-fit-file.h"
#include "sb-atomic-file.h"
#include "sb-json-read.h"
#include "sb-json-write.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "SKEWBENCH-FIT 1\n"
#define MAX_HEADER_BYTES ((gsize) 4 * 1024 * 1024)
#define MAX_ARRAYS 64

G_DEFINE_QUARK (sb-fit-file-error-quark, sb_fit_file_error)

struct _SbFitFile
{
  char *path;
  JsonNode *header;
  GHashTable *arrays;   /* name -> FitArray */
};

typedef struct {
  guint rows, cols;
  double *data;
} FitArray;

static void
fit_array_free (gpointer p)
{
  FitArray *a = p;
  g_free (a->data);
  g_free (a);
}

static gboolean
damaged (GError **error, const char *path, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
damaged (GError **error, const char *path, const char *format, ...)
{
  va_list args;
  g_autofree char *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_DAMAGED, "%s is damaged: %s", path,
               what);
  return FALSE;
}

/* ---- Writing ------------------------------------------------------------- */

static void
put_double (GString *out, double x)
{
  guint64 bits;

  memcpy (&bits, &x, sizeof bits);
  bits = GUINT64_TO_LE (bits);
  g_string_append_len (out, (const char *) &bits, sizeof bits);
}

gboolean
sb_fit_file_write (const char *path, const char *kind, JsonObject *header,
                   const SbFitArray *arrays, guint n, GError **error)
{
  g_autoptr (GString) payload = g_string_new (NULL);
  g_autoptr (JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr (JsonObject) obj = json_object_new ();
  g_autoptr (GString) out = g_string_new (MAGIC);
  g_autofree char *text = NULL;
  g_autofree char *digest = NULL;
  JsonArray *shapes = json_array_new ();
  GList *members;

  json_object_set_string_member (obj, "format", SB_FIT_FILE_FORMAT);
  json_object_set_int_member (obj, "version", SB_FIT_FILE_VERSION);
  json_object_set_string_member (obj, "kind", kind);
  for (guint k = 0; k < n; k++)
    {
      JsonObject *shape = json_object_new ();
      gsize count = (gsize) arrays[k].rows * arrays[k].cols;
      json_object_set_string_member (shape, "name", arrays[k].name);
      json_object_set_int_member (shape, "rows", arrays[k].rows);
      json_object_set_int_member (shape, "cols", arrays[k].cols);
      json_array_add_object_element (shapes, shape);
      for (gsize i = 0; i < count; i++)
        put_double (payload, arrays[k].data[i]);
    }
  json_object_set_array_member (obj, "arrays", shapes);
  digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) payload->str,
                                        payload->len);
  json_object_set_int_member (obj, "payload_bytes", (gint64) payload->len);
  json_object_set_string_member (obj, "payload_sha256", digest);
  /* the kind's own members after the container's */
  members = json_object_get_members (header);
  for (GList *m = members; m; m = m->next)
    if (!json_object_has_member (obj, m->data))
      json_object_set_member (obj, m->data, json_object_dup_member (header, m->data));
  g_list_free (members);

  json_node_set_object (root, obj);
  text = sb_json_write (root, FALSE, NULL);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
  g_string_append_len (out, payload->str, payload->len);
  return sb_atomic_file_write (path, out->str, out->len, error);
}

/* ---- Reading ------------------------------------------------------------- */

/* The bytes of PATH: a regular file of at most SB_FIT_FILE_MAX_BYTES
 * (opened without blocking, so a fifo cannot stall the reader). */
static gboolean
read_bytes (const char *path, char **contents, gsize *length, GError **error)
{
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  gsize got = 0;

  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, SB_FIT_FILE_ERROR,
                   saved == ENOENT ? SB_FIT_FILE_ERROR_MISSING : SB_FIT_FILE_ERROR_DAMAGED,
                   "cannot read %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return damaged (error, path, "not a regular file");
    }
  if ((guint64) st.st_size > SB_FIT_FILE_MAX_BYTES)
    {
      close (fd);
      return damaged (error, path, "%" G_GUINT64_FORMAT " bytes, more than a fit file holds "
                      "(%" G_GSIZE_FORMAT ")", (guint64) st.st_size, SB_FIT_FILE_MAX_BYTES);
    }
  *contents = g_malloc ((gsize) st.st_size + 1);
  while (got <= (gsize) st.st_size)
    {
      gssize r = read (fd, *contents + got, (gsize) st.st_size + 1 - got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (gsize) r;
    }
  close (fd);
  if (got != (gsize) st.st_size)
    {
      g_clear_pointer (contents, g_free);
      return damaged (error, path, "its size changed while it was read");
    }
  *length = got;
  return TRUE;
}

static gboolean
get_count (JsonObject *obj, const char *name, gint64 max, gint64 *out)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (node);
  return *out >= 0 && *out <= max;
}

static const char *
get_string (JsonObject *obj, const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* The header line of DATA (after the magic line): its root object. */
static JsonNode *
read_header (const char *path, const char *data, gsize length, gsize *payload_at,
             GError **error)
{
  gsize magic = strlen (MAGIC);
  const char *start = data + magic;
  const char *end;
  g_autoptr (GError) local = NULL;
  JsonNode *root;

  if (length < magic || memcmp (data, MAGIC, magic) != 0)
    {
      damaged (error, path, "it is not a SkewBench fit file (its first line is not "
               "\"SKEWBENCH-FIT 1\")");
      return NULL;
    }
  end = memchr (start, '\n', MIN (length - magic, MAX_HEADER_BYTES));
  if (end == NULL)
    {
      damaged (error, path, "its header line is not complete");
      return NULL;
    }
  root = sb_json_read (start, end - start, &local);
  if (root == NULL)
    {
      damaged (error, path, "header: %s", local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      json_node_unref (root);
      damaged (error, path, "its header is not a JSON object");
      return NULL;
    }
  *payload_at = (gsize) (end + 1 - data);
  return root;
}

static gboolean
check_identity (const char *path, JsonObject *h, const char *kind, GError **error)
{
  const char *format = get_string (h, "format"), *got_kind = get_string (h, "kind");
  gint64 version;

  if (g_strcmp0 (format, SB_FIT_FILE_FORMAT) != 0)
    return damaged (error, path, "its header's \"format\" is not \"%s\"", SB_FIT_FILE_FORMAT);
  if (!get_count (h, "version", G_MAXINT32, &version) || version < 1)
    return damaged (error, path, "its header's \"version\" is not a positive integer");
  if (version > SB_FIT_FILE_VERSION)
    {
      g_set_error (error, SB_FIT_FILE_ERROR, SB_FIT_FILE_ERROR_VERSION,
                   "%s was written by a newer SkewBench (fit file version %" G_GINT64_FORMAT
                   "; this one reads version %d)", path, version, SB_FIT_FILE_VERSION);
      return FALSE;
    }
  if (g_strcmp0 (got_kind, kind) != 0)
    return damaged (error, path, "it holds a fit of kind \"%s\", not \"%s\"",
                    got_kind ? got_kind : "(none)", kind);
  return TRUE;
}

static double
get_double_le (const char *p)
{
  guint64 bits;
  double x;

  memcpy (&bits, p, sizeof bits);
  bits = GUINT64_FROM_LE (bits);
  memcpy (&x, &bits, sizeof x);
  return x;
}

/* The arrays the header lists, from the PAYLOAD of N bytes. */
static gboolean
read_arrays (SbFitFile *f, JsonObject *h, const char *payload, gsize n, GError **error)
{
  JsonNode *node = json_object_get_member (h, "arrays");
  const char *digest = get_string (h, "payload_sha256");
  g_autofree char *actual = NULL;
  JsonArray *shapes;
  gint64 declared;
  gsize at = 0;

  if (!get_count (h, "payload_bytes", G_MAXINT64, &declared) || (guint64) declared != n)
    return damaged (error, f->path, "the numbers after the header are %" G_GSIZE_FORMAT
                    " bytes, not the header's \"payload_bytes\" (the file is truncated or "
                    "extended)", n);
  actual = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) payload, n);
  if (digest == NULL || g_ascii_strcasecmp (digest, actual) != 0)
    return damaged (error, f->path, "the SHA-256 of its numbers is not the header's "
                    "\"payload_sha256\"");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node)
      || json_array_get_length (shapes = json_node_get_array (node)) > MAX_ARRAYS)
    return damaged (error, f->path, "its header's \"arrays\" is not a list of at most %d "
                    "arrays", MAX_ARRAYS);
  for (guint k = 0; k < json_array_get_length (shapes); k++)
    {
      JsonNode *s = json_array_get_element (shapes, k);
      JsonObject *shape = JSON_NODE_HOLDS_OBJECT (s) ? json_node_get_object (s) : NULL;
      const char *name = shape ? get_string (shape, "name") : NULL;
      gint64 rows, cols;
      FitArray *a;

      if (name == NULL || !get_count (shape, "rows", G_MAXINT32, &rows)
          || !get_count (shape, "cols", G_MAXINT32, &cols))
        return damaged (error, f->path, "array %u of its header has no name, rows and cols", k);
      if (g_hash_table_contains (f->arrays, name))
        return damaged (error, f->path, "array \"%s\" is listed twice", name);
      /* rows, cols < 2^31: the product fits, and it is checked against
       * the bytes left before it is multiplied by 8 */
      if ((guint64) rows * (guint64) cols > (n - at) / sizeof (double))
        return damaged (error, f->path, "array \"%s\" (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                        ") does not fit in the numbers that follow", name, rows, cols);
      a = g_new0 (FitArray, 1);
      a->rows = (guint) rows;
      a->cols = (guint) cols;
      a->data = g_new (double, (gsize) rows * cols + 1);
      for (gsize i = 0; i < (gsize) rows * cols; i++, at += sizeof (double))
        {
          a->data[i] = get_double_le (payload + at);
          if (!isfinite (a->data[i]))
            {
              fit_array_free (a);
              return damaged (error, f->path, "array \"%s\" holds a number that is not "
                              "finite", name);
            }
        }
      g_hash_table_insert (f->arrays, g_strdup (name), a);
    }
  if (at != n)
    return damaged (error, f->path, "%" G_GSIZE_FORMAT " bytes after its last array", n - at);
  return TRUE;
}

SbFitFile *
sb_fit_file_read (const char *path, const char *kind, GError **error)
{
  g_autofree char *data = NULL;
  g_autoptr (SbFitFile) f = g_new0 (SbFitFile, 1);
  gsize length = 0, payload_at = 0;

  f->path = g_strdup (path);
  f->arrays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, fit_array_free);
  if (!read_bytes (path, &data, &length, error))
    return NULL;
  f->header = read_header (path, data, length, &payload_at, error);
  if (f->header == NULL
      || !check_identity (path, json_node_get_object (f->header), kind, error)
      || !read_arrays (f, json_node_get_object (f->header), data + payload_at,
                       length - payload_at, error))
    return NULL;
  return g_steal_pointer (&f);
}

void
sb_fit_file_free (SbFitFile *file)
{
  if (file == NULL)
    return;
  g_free (file->path);
  g_clear_pointer (&file->header, json_node_unref);
  g_clear_pointer (&file->arrays, g_hash_table_unref);
  g_free (file);
}

JsonObject *
sb_fit_file_get_header (SbFitFile *file)
{
  return json_node_get_object (file->header);
}

const double *
sb_fit_file_get_array (SbFitFile *file, const char *name, guint rows, guint cols,
                       GError **error)
{
  FitArray *a = g_hash_table_lookup (file->arrays, name);

  if (a == NULL)
    {
      damaged (error, file->path, "it has no array \"%s\"", name);
      return NULL;
    }
  if (a->rows != rows || a->cols != cols)
    {
      damaged (error, file->path, "array \"%s\" is %u x %u, not %u x %u", name, a->rows,
               a->cols, rows, cols);
      return NULL;
    }
  return a->data;
}

const char *
sb_fit_file_get_path (SbFitFile *file)
{
  return file->path;
}
