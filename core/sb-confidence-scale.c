/* sb-confidence-scale.c — confidence scales and question wording
 * (sb-confidence-scale.h). */
#include "config.h"

#include "sb-confidence-scale.h"

#include "sb-error.h"
#include "sb-json-write.h"

#include <string.h>

JsonNode *
sb_confidence_scale_to_json (guint levels)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_string (b, "kind", levels == 0 ? "words" : "rating");
  if (levels != 0)
    {
      sb_json_add_int (b, "levels", levels);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gboolean
holds (JsonNode *node, GType type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

gboolean
sb_confidence_scale_from_json (JsonNode *node, guint *levels, GError **error)
{
  const char *example = "{\"kind\": \"words\"} or {\"kind\": \"rating\", \"levels\": 5}";

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return sb_invalid (error, "'confidence_scale' must be an object: %s", example);
  JsonObject *obj = json_node_get_object (node);
  JsonNode *kind = json_object_get_member (obj, "kind");
  JsonNode *n = json_object_get_member (obj, "levels");
  if (!holds (kind, G_TYPE_STRING))
    return sb_invalid (error, "'confidence_scale' needs a \"kind\": %s", example);
  const char *name = json_node_get_string (kind);
  guint size = json_object_get_size (obj);
  if (g_str_equal (name, "words"))
    {
      if (size != 1)
        return sb_invalid (error, "'confidence_scale' of kind \"words\" takes no other member "
                           "(the words are \"weak\", \"normal\", \"strong\")");
      *levels = 0;
      return TRUE;
    }
  if (!g_str_equal (name, "rating"))
    return sb_invalid (error, "'confidence_scale' kind '%s' is unknown (expected \"words\" or "
                       "\"rating\")", name);
  if (!holds (n, G_TYPE_INT64) || json_node_get_int (n) < 2
      || json_node_get_int (n) > SG_CONFIDENCE_MAX_LEVELS || size != 2)
    return sb_invalid (error, "'confidence_scale' of kind \"rating\" needs \"levels\": a whole "
                       "number from 2 to %d (and nothing else)", SG_CONFIDENCE_MAX_LEVELS);
  *levels = (guint) json_node_get_int (n);
  return TRUE;
}

char *
sb_confidence_scale_describe (guint levels)
{
  if (levels == 0)
    return g_strdup ("\"weak\", \"normal\" or \"strong\"");
  return g_strdup_printf ("a whole number from 1 (least sure) to %u (surest)", levels);
}

gboolean
sb_confidence_fits_scale (sg_confidence c, guint levels)
{
  unsigned k;

  if (sg_confidence_rating_of (c, NULL, &k))
    return k == levels;
  return levels == 0 && (c == SG_CONFIDENCE_WEAK || c == SG_CONFIDENCE_NORMAL
                         || c == SG_CONFIDENCE_STRONG);
}

gboolean
sb_confidence_on_scale (guint levels, guint rating, sg_confidence word, sg_confidence *c,
                        GError **error)
{
  g_autofree char *scale = sb_confidence_scale_describe (levels);

  if (rating == 0 && sb_confidence_fits_scale (word, levels))
    {
      *c = word;
      return TRUE;
    }
  if (rating != 0 && levels != 0 && sg_confidence_rating (rating, levels, c) == SG_OK)
    return TRUE;
  if (rating != 0)
    return sb_invalid (error, "'confidence' %u is not on this experiment's confidence scale: "
                       "it takes %s", rating, scale);
  return sb_invalid (error, "'confidence' \"%s\" is not on this experiment's confidence scale: "
                     "it takes %s", sg_confidence_name (word), scale);
}

JsonNode *
sb_confidence_to_json (sg_confidence c)
{
  unsigned r;
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  if (sg_confidence_rating_of (c, &r, NULL))
    json_node_set_int (node, r);
  else
    json_node_set_string (node, sg_confidence_name (c));
  return node;
}

gboolean
sb_question_text_validate (const char *text, GError **error)
{
  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return sb_invalid (error, "'question_text' must be text (UTF-8)");
  if (strlen (text) > SB_MAX_QUESTION_TEXT)
    return sb_invalid (error, "'question_text' is longer than %d bytes", SB_MAX_QUESTION_TEXT);
  gboolean blank = TRUE;
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    {
      gunichar ch = g_utf8_get_char (p);
      if (ch != '\n' && g_unichar_iscntrl (ch))
        return sb_invalid (error, "'question_text' holds a control character (U+%04X)", ch);
      blank = blank && g_unichar_isspace (ch);
    }
  if (blank)
    return sb_invalid (error, "'question_text' is empty: leave it out for the default "
                       "wording (\"%s\")", SB_DEFAULT_QUESTION_TEXT);
  return TRUE;
}
