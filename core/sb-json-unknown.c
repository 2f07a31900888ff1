/* sb-json-unknown.c — see sb-json-unknown.h. */
#include "config.h"

#include "sb-json-unknown.h"

struct _SbJsonSeen {
  GHashTable *objects;  /* JsonObject * -> GHashTable of member names */
};

/* One member, where it was: the steps from the root (a member name, or an
 * array index written as "#N"), its name and its value. */
typedef struct {
  GStrv place;
  char *name;
  JsonNode *value;
} Kept;

struct _SbJsonUnknown {
  GPtrArray *kept;  /* Kept */
};

SbJsonSeen *
sb_json_seen_new (void)
{
  SbJsonSeen *seen = g_new0 (SbJsonSeen, 1);

  seen->objects = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                         (GDestroyNotify) g_hash_table_unref);
  return seen;
}

void
sb_json_seen_free (SbJsonSeen *seen)
{
  if (seen == NULL)
    return;
  g_hash_table_unref (seen->objects);
  g_free (seen);
}

void
sb_json_seen_mark (SbJsonSeen *seen, JsonObject *obj, const char *key)
{
  GHashTable *names;

  if (seen == NULL || obj == NULL)
    return;
  names = g_hash_table_lookup (seen->objects, obj);
  if (names == NULL)
    {
      names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_insert (seen->objects, obj, names);
    }
  g_hash_table_add (names, g_strdup (key));
}

static void
kept_free (Kept *k)
{
  g_strfreev (k->place);
  g_free (k->name);
  json_node_unref (k->value);
  g_free (k);
}

static void collect_node (JsonNode *node, SbJsonSeen *seen, GPtrArray *place, GPtrArray *kept);

static void
collect_object (JsonObject *obj, SbJsonSeen *seen, GPtrArray *place, GPtrArray *kept)
{
  GHashTable *names = g_hash_table_lookup (seen->objects, obj);
  g_autoptr (GList) members = json_object_get_members (obj);

  /* an object the reader never opened is kept whole by its parent */
  if (names == NULL)
    return;
  for (GList *m = members; m; m = m->next)
    {
      const char *name = m->data;
      JsonNode *value = json_object_get_member (obj, name);

      if (!g_hash_table_contains (names, name))
        {
          Kept *k = g_new0 (Kept, 1);
          g_ptr_array_add (place, NULL);
          k->place = g_strdupv ((char **) place->pdata);
          g_ptr_array_remove_index (place, place->len - 1);
          k->name = g_strdup (name);
          k->value = json_node_copy (value);
          g_ptr_array_add (kept, k);
          continue;
        }
      g_ptr_array_add (place, g_strdup (name));
      collect_node (value, seen, place, kept);
      g_free (g_ptr_array_steal_index (place, place->len - 1));
    }
}

static void
collect_node (JsonNode *node, SbJsonSeen *seen, GPtrArray *place, GPtrArray *kept)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    collect_object (json_node_get_object (node), seen, place, kept);
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_ptr_array_add (place, g_strdup_printf ("#%u", i));
          collect_node (json_array_get_element (array, i), seen, place, kept);
          g_free (g_ptr_array_steal_index (place, place->len - 1));
        }
    }
}

SbJsonUnknown *
sb_json_unknown_collect (JsonNode *root, SbJsonSeen *seen)
{
  g_autoptr (GPtrArray) place = g_ptr_array_new ();
  GPtrArray *kept = g_ptr_array_new_with_free_func ((GDestroyNotify) kept_free);
  SbJsonUnknown *unknown;

  g_return_val_if_fail (root != NULL && seen != NULL, NULL);
  collect_node (root, seen, place, kept);
  if (kept->len == 0)
    {
      g_ptr_array_unref (kept);
      return NULL;
    }
  unknown = g_new0 (SbJsonUnknown, 1);
  unknown->kept = kept;
  return unknown;
}

/* The node at PLACE under ROOT, or NULL where the written document has no
 * such place. */
static JsonNode *
find_place (JsonNode *root, char **place)
{
  JsonNode *node = root;

  for (; node && *place; place++)
    {
      const char *step = *place;
      if (step[0] == '#' && JSON_NODE_HOLDS_ARRAY (node))
        {
          guint64 i = g_ascii_strtoull (step + 1, NULL, 10);
          JsonArray *array = json_node_get_array (node);
          node = i < json_array_get_length (array) ? json_array_get_element (array, i) : NULL;
        }
      else if (step[0] != '#' && JSON_NODE_HOLDS_OBJECT (node))
        node = json_object_get_member (json_node_get_object (node), step);
      else
        node = NULL;
    }
  return node;
}

void
sb_json_unknown_restore (const SbJsonUnknown *unknown, JsonNode *root)
{
  g_return_if_fail (root != NULL);
  for (guint i = 0; unknown && i < unknown->kept->len; i++)
    {
      const Kept *k = g_ptr_array_index (unknown->kept, i);
      JsonNode *at = find_place (root, k->place);
      JsonObject *obj = at && JSON_NODE_HOLDS_OBJECT (at) ? json_node_get_object (at) : NULL;

      if (obj && !json_object_has_member (obj, k->name))
        json_object_set_member (obj, k->name, json_node_copy (k->value));
    }
}

guint
sb_json_unknown_count (const SbJsonUnknown *unknown)
{
  return unknown ? unknown->kept->len : 0;
}

void
sb_json_unknown_free (SbJsonUnknown *unknown)
{
  if (unknown == NULL)
    return;
  g_ptr_array_unref (unknown->kept);
  g_free (unknown);
}
