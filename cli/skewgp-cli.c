/* skewgp-cli.c — what the `skewgp` subcommands share (skewgp-cli.h): their
 * JSON documents, the one option parser, and the steps of the session and
 * study commands. */
#include "config.h"

#include "skewgp-cli.h"
#include "sb-ask-tell.h"
#include "sb-engine-job.h"
#include "sb-json-read.h"
#include "sb-json-write.h"
#include "sg-common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (skewgp-cli-error-quark, skewgp_cli_error)

gboolean
skewgp_input_error (GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_INPUT, msg);
  return FALSE;
}

gboolean
skewgp_numeric_error (GError **error, const char *what, int status)
{
  g_set_error (error, SKEWGP_CLI_ERROR, SKEWGP_CLI_ERROR_NUMERIC, "%s: %s", what,
               sg_strerror (status));
  return FALSE;
}

/* Reads at most SB_JSON_READ_MAX_BYTES + 1 bytes of IN: enough for the
 * reader to refuse a larger document without holding all of it. */
static char *
read_bounded (FILE *in, gsize *len)
{
  g_autoptr (GString) buf = g_string_new (NULL);
  char chunk[65536];
  size_t got;
  while (buf->len <= SB_JSON_READ_MAX_BYTES
         && (got = fread (chunk, 1, sizeof chunk, in)) > 0)
    g_string_append_len (buf, chunk, (gssize) got);
  *len = buf->len;
  return g_string_free (g_steal_pointer (&buf), FALSE);
}

/* The bytes of PATH ("-": standard input), bounded as read_bounded(). */
static char *
read_input (const char *path, gsize *len, GError **error)
{
  gboolean from_stdin = g_strcmp0 (path, "-") == 0;
  FILE *in = from_stdin ? stdin : fopen (path, "rb");
  if (in == NULL)
    {
      skewgp_input_error (error, "cannot read '%s': %s", path, g_strerror (errno));
      return NULL;
    }
  g_autofree char *text = read_bounded (in, len);
  int read_errno = ferror (in) ? errno : 0;
  if (!from_stdin)
    fclose (in);
  if (read_errno != 0)
    {
      skewgp_input_error (error, "cannot read '%s': %s", path, g_strerror (read_errno));
      return NULL;
    }
  return g_steal_pointer (&text);
}

JsonNode *
skewgp_read_document (const char *path, GError **error)
{
  gsize len = 0;
  g_autofree char *text = read_input (path, &len, error);
  if (text == NULL)
    return NULL;

  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) root = sb_json_read (text, (gssize) len, &local);
  const char *name = g_strcmp0 (path, "-") == 0 ? "<stdin>" : path;
  if (root == NULL)
    {
      /* "<stdin>:3:14: what is wrong" */
      gboolean syntax = g_error_matches (local, SB_JSON_READ_ERROR, SB_JSON_READ_ERROR_SYNTAX)
                        || g_error_matches (local, SB_JSON_READ_ERROR, SB_JSON_READ_ERROR_EMPTY);
      skewgp_input_error (error, "%s%s:%s", syntax ? "malformed JSON: " : "", name,
                          local->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      skewgp_input_error (error, "the document must be a JSON object");
      return NULL;
    }
  return g_steal_pointer (&root);
}

void
skewgp_print_json (JsonNode *node)
{
  g_autofree char *text = sb_json_write (node, TRUE, NULL);
  fputs (text, stdout);
  fflush (stdout);
}

void
skewgp_print_json_line (JsonNode *node)
{
  g_autofree char *text = sb_json_write (node, FALSE, NULL);
  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
}

static gboolean
node_is_number (JsonNode *node)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  GType t = json_node_get_value_type (node);
  return t == G_TYPE_DOUBLE || t == G_TYPE_INT64;
}

/* Looks FIELD up; FALSE with an error if it is required and absent (or null
 * where a value is needed). *NODE is NULL for an absent optional field. */
static gboolean
lookup (JsonObject *obj, const char *field, gboolean required, JsonNode **node,
        GError **error)
{
  *node = json_object_has_member (obj, field) ? json_object_get_member (obj, field) : NULL;
  if (*node != NULL && JSON_NODE_HOLDS_NULL (*node) && !required)
    *node = NULL;
  if (*node == NULL && required)
    return skewgp_input_error (error, "field '%s' is required", field);
  return TRUE;
}

gboolean
skewgp_get_double (JsonObject *obj, const char *field, gboolean required,
                   double *out, GError **error)
{
  JsonNode *node;
  if (!lookup (obj, field, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (!node_is_number (node))
    return skewgp_input_error (error, "field '%s' must be a number", field);
  double v = json_node_get_double (node);
  if (!isfinite (v))
    return skewgp_input_error (error, "field '%s' must be finite", field);
  *out = v;
  return TRUE;
}

gboolean
skewgp_get_int (JsonObject *obj, const char *field, gboolean required,
                gint64 min, gint64 max, gint64 *out, GError **error)
{
  JsonNode *node;
  if (!lookup (obj, field, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (!node_is_number (node))
    return skewgp_input_error (error, "field '%s' must be an integer", field);
  /* An integer literal is read exactly (sb-json-read refused any beyond 64
   * bits); a real one (1e3, 10.0) counts when it is an integer a double
   * holds exactly, i.e. at most 2^53 in magnitude. */
  gint64 k;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    k = json_node_get_int (node);
  else
    {
      double v = json_node_get_double (node);
      if (v != floor (v))
        return skewgp_input_error (error, "field '%s' must be an integer, got %g", field, v);
      if (fabs (v) > 9007199254740992.0)
        return skewgp_input_error (error, "field '%s': %g is beyond 2^53, where a real number "
                                   "no longer names one integer (write the integer's digits)",
                                   field, v);
      k = (gint64) v;
    }
  if (k < min || k > max)
    return skewgp_input_error (error, "field '%s' must be between %" G_GINT64_FORMAT
                        " and %" G_GINT64_FORMAT ", got %" G_GINT64_FORMAT, field, min, max, k);
  *out = k;
  return TRUE;
}

gboolean
skewgp_get_bool (JsonObject *obj, const char *field, gboolean required,
                 gboolean *out, GError **error)
{
  JsonNode *node;
  if (!lookup (obj, field, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return skewgp_input_error (error, "field '%s' must be true or false", field);
  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
skewgp_get_string (JsonObject *obj, const char *field, gboolean required,
                   const char **out, GError **error)
{
  JsonNode *node;
  if (!lookup (obj, field, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return skewgp_input_error (error, "field '%s' must be a string", field);
  *out = json_node_get_string (node);
  return TRUE;
}

/* Reads ARRAY's numbers into DST; WHAT names it in errors. */
static gboolean
read_numbers (JsonArray *array, const char *what, gboolean allow_null,
              double null_value, double *dst, GError **error)
{
  guint n = json_array_get_length (array);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *el = json_array_get_element (array, i);
      if (JSON_NODE_HOLDS_NULL (el) && allow_null)
        dst[i] = null_value;
      else if (!node_is_number (el))
        return skewgp_input_error (error, "%s: entry %u is not a number%s", what, i,
                            allow_null ? " or null" : "");
      else if (!isfinite (dst[i] = json_node_get_double (el)))
        return skewgp_input_error (error, "%s: entry %u is not finite", what, i);
    }
  return TRUE;
}

gboolean
skewgp_get_vector (JsonObject *obj, const char *field, gboolean required,
                   gsize expect_len, gboolean allow_null, double null_value,
                   double **out, gsize *len, GError **error)
{
  JsonNode *node;
  if (!lookup (obj, field, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return skewgp_input_error (error, "field '%s' must be an array of numbers", field);
  JsonArray *array = json_node_get_array (node);
  gsize n = json_array_get_length (array);
  if (n == 0)
    return skewgp_input_error (error, "field '%s' is empty", field);
  if (expect_len != 0 && n != expect_len)
    return skewgp_input_error (error, "field '%s' has %" G_GSIZE_FORMAT " entries, expected %"
                        G_GSIZE_FORMAT, field, n, expect_len);
  g_autofree double *v = g_new (double, n);
  g_autofree char *what = g_strdup_printf ("field '%s'", field);
  if (!read_numbers (array, what, allow_null, null_value, v, error))
    return FALSE;
  *out = g_steal_pointer (&v);
  if (len)
    *len = n;
  return TRUE;
}

gboolean
skewgp_get_matrix (JsonObject *obj, const char *field, gboolean required,
                   gsize expect_rows, gsize expect_cols,
                   double **out, gsize *rows, gsize *cols, GError **error)
{
  JsonNode *node;
  if (!lookup (obj, field, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return skewgp_input_error (error, "field '%s' must be an array of rows", field);
  JsonArray *array = json_node_get_array (node);
  gsize r = json_array_get_length (array);
  if (r == 0)
    return skewgp_input_error (error, "field '%s' is empty", field);
  if (expect_rows != 0 && r != expect_rows)
    return skewgp_input_error (error, "field '%s' has %" G_GSIZE_FORMAT " rows, expected %"
                        G_GSIZE_FORMAT, field, r, expect_rows);
  gsize c = 0;
  g_autofree double *m = NULL;
  for (gsize i = 0; i < r; i++)
    {
      JsonNode *row = json_array_get_element (array, (guint) i);
      if (!JSON_NODE_HOLDS_ARRAY (row))
        return skewgp_input_error (error, "field '%s': row %" G_GSIZE_FORMAT " is not an array",
                            field, i);
      JsonArray *ra = json_node_get_array (row);
      gsize len = json_array_get_length (ra);
      if (i == 0)
        {
          c = len;
          if (c == 0)
            return skewgp_input_error (error, "field '%s': row 0 is empty", field);
          if (expect_cols != 0 && c != expect_cols)
            return skewgp_input_error (error, "field '%s' has %" G_GSIZE_FORMAT
                                " columns, expected %" G_GSIZE_FORMAT, field, c, expect_cols);
          m = g_new (double, r * c);
        }
      else if (len != c)
        return skewgp_input_error (error, "field '%s': row %" G_GSIZE_FORMAT " has %" G_GSIZE_FORMAT
                            " entries, expected %" G_GSIZE_FORMAT, field, i, len, c);
      g_autofree char *what = g_strdup_printf ("field '%s', row %" G_GSIZE_FORMAT, field, i);
      if (!read_numbers (ra, what, FALSE, 0, m + i * c, error))
        return FALSE;
    }
  *out = g_steal_pointer (&m);
  if (rows)
    *rows = r;
  if (cols)
    *cols = c;
  return TRUE;
}

gboolean
skewgp_check_fields (JsonObject *obj, const char *where,
                     const char *const *known, GError **error)
{
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    if (!g_strv_contains (known, l->data))
      return skewgp_input_error (error, "unknown field '%s'%s%s", (const char *) l->data,
                          where ? " in " : "", where ? where : "");
  return TRUE;
}

JsonNode *
skewgp_vector_node (const double *x, gsize n)
{
  JsonArray *array = json_array_sized_new ((guint) n);
  for (gsize i = 0; i < n; i++)
    json_array_add_double_element (array, x[i]);
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}

JsonNode *
skewgp_matrix_node (const double *a, gsize rows, gsize cols)
{
  JsonArray *array = json_array_sized_new ((guint) rows);
  for (gsize i = 0; i < rows; i++)
    json_array_add_element (array, skewgp_vector_node (a + i * cols, cols));
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}

void
skewgp_add_double (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, value);
}

void
skewgp_add_vector (JsonBuilder *b, const char *name, const double *x, gsize n)
{
  json_builder_set_member_name (b, name);
  if (x == NULL)
    json_builder_add_null_value (b);
  else
    json_builder_add_value (b, skewgp_vector_node (x, n));
}

void
skewgp_add_matrix (JsonBuilder *b, const char *name, const double *a, gsize rows, gsize cols)
{
  json_builder_set_member_name (b, name);
  json_builder_add_value (b, skewgp_matrix_node (a, rows, cols));
}

void
skewgp_add_node (JsonBuilder *b, const char *name, JsonNode *node)
{
  json_builder_set_member_name (b, name);
  json_builder_add_value (b, node);
}

/* The first number in NODE that is not finite, as a path into the
 * document ("summary[3].sd"), or NULL. Values that are null on purpose
 * (sb_json_add_number) are JSON nulls, not numbers. */
static char *
non_finite_member (JsonNode *node, const char *path)
{
  if (JSON_NODE_HOLDS_VALUE (node))
    return json_node_get_value_type (node) == G_TYPE_DOUBLE
           && !isfinite (json_node_get_double (node)) ? g_strdup (*path ? path : "the result")
                                                      : NULL;
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          g_autofree char *sub = g_strdup_printf ("%s[%u]", path, i);
          char *found = non_finite_member (json_array_get_element (a, i), sub);
          if (found)
            return found;
        }
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      g_autoptr (GList) members = json_object_get_members (o);
      for (GList *l = members; l; l = l->next)
        {
          g_autofree char *sub = *path ? g_strdup_printf ("%s.%s", path, (char *) l->data)
                                       : g_strdup (l->data);
          char *found = non_finite_member (json_object_get_member (o, l->data), sub);
          if (found)
            return found;
        }
    }
  return NULL;
}

void
skewgp_print_builder (JsonBuilder *b, gboolean one_line)
{
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *bad = non_finite_member (root, "");

  /* The one place every command's result passes: a number that is not
   * finite is a numerical failure (exit 1), never a null with exit 0. */
  if (bad)
    {
      g_printerr ("skewgp: numerical failure: %s is not a finite number\n", bad);
      exit (SKEWGP_EXIT_NUMERIC);
    }
  if (one_line)
    skewgp_print_json_line (root);
  else
    skewgp_print_json (root);
}

/* ---- Options -------------------------------------------------------------- */

static const GOptionEntry *
find_long (const GOptionEntry *entries, const char *name, gsize len)
{
  for (const GOptionEntry *e = entries; e->long_name; e++)
    if (strlen (e->long_name) == len && strncmp (e->long_name, name, len) == 0)
      return e;
  return NULL;
}

static const GOptionEntry *
find_short (const GOptionEntry *entries, char name)
{
  for (const GOptionEntry *e = entries; e->long_name; e++)
    if (e->short_name != 0 && e->short_name == name)
      return e;
  return NULL;
}

/* ARG asks for the help GLib builds (SPEC has a summary). */
static gboolean
is_help (const SkewgpOptionSpec *spec, const char *arg)
{
  return spec->summary != NULL
         && (strcmp (arg, "--help") == 0 || strcmp (arg, "--help-all") == 0
             || strcmp (arg, "-h") == 0 || strcmp (arg, "-?") == 0);
}

/* ARG, an argument that is not an option, appended to POSITIONAL unless
 * SPEC takes no more. */
static gboolean
add_positional (const SkewgpOptionSpec *spec, GPtrArray *positional, guint *n, char *arg,
                GError **error)
{
  if (*n >= spec->max_positional)
    {
      if (spec->max_positional == 0)
        return skewgp_input_error (error, "unexpected argument '%s' (options start with --)",
                                   arg);
      return skewgp_input_error (error, "unexpected argument '%s' (see skewgp %s --help)", arg,
                                 spec->command);
    }
  (*n)++;
  if (positional)
    g_ptr_array_add (positional, arg);
  return TRUE;
}

/* The option ARGV[*I] known to SPEC, and its value present: *I moves past
 * a value given as the next argument. */
static gboolean
check_option (const SkewgpOptionSpec *spec, int argc, char **argv, int *i, GError **error)
{
  const char *arg = argv[*i];
  const char *eq = arg[1] == '-' ? strchr (arg, '=') : NULL;
  gsize len = eq ? (gsize) (eq - arg) : strlen (arg);
  const GOptionEntry *e = arg[1] == '-' ? find_long (spec->entries, arg + 2, len - 2)
                          : arg[2] == '\0' ? find_short (spec->entries, arg[1]) : NULL;

  if (e == NULL)
    return skewgp_input_error (error, "unknown option '%.*s' (see skewgp %s --help)", (int) len,
                               arg, spec->command);
  if (e->arg == G_OPTION_ARG_NONE)
    return eq == NULL || skewgp_input_error (error, "%.*s takes no value", (int) len, arg);
  if (eq == NULL && *i + 1 >= argc)
    return skewgp_input_error (error, "%s needs a value", arg);
  if (eq == NULL)
    (*i)++;
  return TRUE;
}

/* The checks whose GLib messages would not say what the CLI says, in the
 * order of the arguments, and the positional arguments. */
static gboolean
check_arguments (const SkewgpOptionSpec *spec, int argc, char **argv, GPtrArray *positional,
                 GError **error)
{
  guint n = 0;
  gboolean options = TRUE;

  for (int i = 0; i < argc; i++)
    {
      char *arg = argv[i];
      gboolean ok;

      if (options && strcmp (arg, "--") == 0)
        ok = !(options = FALSE);
      else if (!options || arg[0] != '-' || arg[1] == '\0')
        ok = add_positional (spec, positional, &n, arg, error);
      else
        ok = is_help (spec, arg) || check_option (spec, argc, argv, &i, error);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

gboolean
skewgp_parse_options (const SkewgpOptionSpec *spec, int argc, char **argv,
                      GPtrArray *positional, GError **error)
{
  if (!check_arguments (spec, argc, argv, positional, error))
    return FALSE;
  g_autofree char *program = g_strdup_printf ("skewgp %s", spec->command);
  g_auto (GStrv) args = g_new0 (char *, argc + 2);
  args[0] = g_strdup (program);
  for (int i = 0; i < argc; i++)
    args[i + 1] = g_strdup (argv[i]);

  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_add_main_entries (context, spec->entries, NULL);
  g_option_context_set_help_enabled (context, spec->summary != NULL);
  if (spec->summary != NULL)
    {
      g_set_prgname (program);
      g_option_context_set_summary (context, spec->summary);
      g_option_context_set_description (context, spec->description);
    }
  g_autoptr (GError) local = NULL;
  if (!g_option_context_parse_strv (context, &args, &local))
    return skewgp_input_error (error, "%s", local->message);
  return TRUE;
}

gboolean
skewgp_option_long (const char *flag, const char *text, long min, long max, long *out,
                    GError **error)
{
  char *end = NULL;
  errno = 0;
  long v = strtol (text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max)
    {
      if (max == G_MAXLONG)
        return skewgp_input_error (error, "%s expects an integer >= %ld, got '%s'", flag, min,
                                   text);
      return skewgp_input_error (error, "%s expects an integer in [%ld, %ld], got '%s'", flag,
                                 min, max, text);
    }
  *out = v;
  return TRUE;
}

gboolean
skewgp_option_double (const char *flag, const char *text, double *out, GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (*text == '\0' || *end != '\0' || !isfinite (v))
    return skewgp_input_error (error, "%s expects a number, got '%s'", flag, text);
  *out = v;
  return TRUE;
}

/* ---- Session and study commands ------------------------------------------- */

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

SbSession *
skewgp_load_session (const char *path, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_commandline_arg (path);
  GError *err = NULL;
  SbSession *session = sb_session_load (file, &err);

  if (session == NULL)
    skewgp_forward_error (err, error);
  return session;
}

SbFileLock *
skewgp_lock_session (const char *path, const char *command, GError **error)
{
  GError *err = NULL;
  SbFileLock *lock = sb_session_lock_file (path, command, &err);

  if (lock == NULL)
    skewgp_forward_error (err, error);
  return lock;
}

SbFileLock *
skewgp_lock_and_read_session (const char *path, const char *command, SbSession **session,
                              GError **error)
{
  SbFileLock *lock = skewgp_lock_session (path, command, error);

  if (lock == NULL)
    return NULL;
  g_clear_object (session);
  *session = skewgp_load_session (path, error);
  if (*session == NULL)
    g_clear_pointer (&lock, sb_file_lock_release);
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

void
skewgp_add_done (JsonBuilder *b, SbSession *session)
{
  sb_json_add_int (b, "answers", sb_session_get_n_answers (session));
  sb_json_add_int (b, "budget", sb_session_get_experiment (session)->budget);
  sb_json_add_bool (b, "done", sb_ask_tell_is_done (session));
}


void
skewgp_add_parameter_names (JsonBuilder *b, const SbExperiment *exp)
{
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_array (b);
  for (guint j = 0; j < exp->n_parameters; j++)
    json_builder_add_string_value (b, exp->parameters[j].name);
  json_builder_end_array (b);
}

gboolean
skewgp_is_study (const char *path)
{
  g_autofree char *index = g_build_filename (path, SB_STUDY_INDEX, NULL);

  return g_file_test (path, G_FILE_TEST_IS_DIR) && g_file_test (index, G_FILE_TEST_EXISTS);
}

SbStudy *
skewgp_open_study (const char *dir, GError **error)
{
  GError *err = NULL;
  SbStudy *study = sb_study_open (dir, &err);

  if (study == NULL)
    skewgp_forward_error (err, error);
  return study;
}

gboolean
skewgp_resolve_target (const char *command, const char *target, const char *participant,
                       char **path, double *rate, SbStudy **study_out, GError **error)
{
  g_autoptr (SbStudy) study = NULL;
  const SbParticipant *p;
  GError *err = NULL;

  *rate = 0;
  if (participant == NULL)
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
  p = sb_study_find (study, participant);
  if (p == NULL)
    return skewgp_input_error (error, "the study %s has no participant '%s' (add one with "
                               "skewgp study add)", target, participant);
  *path = sb_study_participant_file (study, p->code, &err);
  if (*path == NULL)
    return skewgp_forward_error (err, error);
  *rate = sb_study_get_repeat_rate (study);
  if (study_out)
    *study_out = g_steal_pointer (&study);
  return TRUE;
}

SbPopulationResult *
skewgp_population_model (SbStudy *study, GError **error)
{
  GError *err = NULL;
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &err);
  SbPopulationResult *result = input ? sb_population_compute (input, NULL, &err) : NULL;

  if (result == NULL)
    skewgp_forward_error (err, error);
  return result;
}
