#include "config.h"

#include "sb-json-write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *
sb_json_format_double (double x, char *buf, gsize size)
{
  if (!isfinite (x))
    {
      g_strlcpy (buf, "null", size);
      return buf;
    }
  if (x == 0 && signbit (x))
    {
      /* "-0" would read back as the integer 0: keep it a negative zero. */
      g_strlcpy (buf, "-0.0", size);
      return buf;
    }
  for (int digits = 15; digits <= 17; digits++)
    {
      g_ascii_formatd (buf, size, digits == 15 ? "%.15g" : digits == 16 ? "%.16g" : "%.17g", x);
      if (g_ascii_strtod (buf, NULL) == x)
        break;
    }
  return buf;
}

static void
write_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    switch (*p)
      {
      case '"': g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      case '\b': g_string_append (out, "\\b"); break;
      case '\f': g_string_append (out, "\\f"); break;
      default:
        if (*p < 0x20)
          g_string_append_printf (out, "\\u%04x", *p);
        else
          g_string_append_c (out, (char) *p);
      }
  g_string_append_c (out, '"');
}

static void
newline (GString *out, gboolean pretty, guint depth)
{
  if (!pretty)
    return;
  g_string_append_c (out, '\n');
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
}

static void write_node (GString *out, JsonNode *node, gboolean pretty, guint depth);

static void
write_value (GString *out, JsonNode *node)
{
  char buf[64];
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
      break;
    case G_TYPE_DOUBLE:
      sb_json_format_double (json_node_get_double (node), buf, sizeof buf);
      g_string_append (out, buf);
      break;
    case G_TYPE_BOOLEAN:
      g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
      break;
    case G_TYPE_STRING:
      write_string (out, json_node_get_string (node));
      break;
    default:
      g_string_append (out, "null");
      break;
    }
}

static void
write_object (GString *out, JsonObject *obj, gboolean pretty, guint depth)
{
  g_autoptr (GList) members = json_object_get_members (obj);
  if (members == NULL)
    {
      g_string_append (out, "{}");
      return;
    }
  g_string_append_c (out, '{');
  for (GList *l = members; l; l = l->next)
    {
      newline (out, pretty, depth + 1);
      write_string (out, l->data);
      g_string_append (out, pretty ? ": " : ":");
      write_node (out, json_object_get_member (obj, l->data), pretty, depth + 1);
      if (l->next)
        g_string_append_c (out, ',');
    }
  newline (out, pretty, depth);
  g_string_append_c (out, '}');
}

/* Arrays of scalars stay on one line (vectors, matrix rows): readable and
 * compact; arrays holding objects or arrays get one element per line. */
static void
write_array (GString *out, JsonArray *array, gboolean pretty, guint depth)
{
  guint n = json_array_get_length (array);
  gboolean nested = FALSE;
  for (guint i = 0; i < n && !nested; i++)
    nested = !JSON_NODE_HOLDS_VALUE (json_array_get_element (array, i))
             && !JSON_NODE_HOLDS_NULL (json_array_get_element (array, i));
  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      if (nested)
        newline (out, pretty, depth + 1);
      else if (i > 0 && pretty)
        g_string_append_c (out, ' ');
      write_node (out, json_array_get_element (array, i), pretty, depth + 1);
      if (i + 1 < n)
        g_string_append_c (out, ',');
    }
  if (nested && n > 0)
    newline (out, pretty, depth);
  g_string_append_c (out, ']');
}

static void
write_node (GString *out, JsonNode *node, gboolean pretty, guint depth)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      write_object (out, json_node_get_object (node), pretty, depth);
      break;
    case JSON_NODE_ARRAY:
      write_array (out, json_node_get_array (node), pretty, depth);
      break;
    case JSON_NODE_VALUE:
      write_value (out, node);
      break;
    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

char *
sb_json_write (JsonNode *node, gboolean pretty, gsize *length)
{
  GString *out = g_string_new (NULL);
  write_node (out, node, pretty, 0);
  if (pretty)
    g_string_append_c (out, '\n');
  if (length)
    *length = out->len;
  return g_string_free (out, FALSE);
}

void
sb_json_add_number (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

void
sb_json_add_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

void
sb_json_add_bool (JsonBuilder *b, const char *name, gboolean value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

void
sb_json_add_string (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}
