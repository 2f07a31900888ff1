/* test-json-write.c — the JSON writer every SkewBench document goes through
 * prints numbers that parse back to the same doubles (json-glib 1.6's own
 * generator writes 1e-14 as "1e-14.0", which no JSON parser accepts). */
#include "sb-json-read.h"
#include "sb-json-write.h"

#include <math.h>

static void
test_numbers_round_trip (void)
{
  const double values[] = { 0, -0.0, 1, -1, 0.1, 1e-14, -2.5e-300, 1e300, 4.9e-324,
                            1.0 / 3.0, 123456789012345678.0, 2.0 / 7.0 * 1e-5 };
  g_autoptr (JsonArray) array = json_array_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
    json_array_add_double_element (array, values[i]);
  json_array_add_int_element (array, G_GINT64_CONSTANT (-9007199254740993));
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, array);

  for (int pretty = 0; pretty <= 1; pretty++)
    {
      g_autofree char *text = sb_json_write (node, pretty, NULL);
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;
      g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
      g_assert_no_error (error);
      JsonArray *back = json_node_get_array (json_parser_get_root (parser));
      g_assert_cmpuint (json_array_get_length (back), ==, G_N_ELEMENTS (values) + 1);
      for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
        g_assert_cmpfloat (json_array_get_double_element (back, (guint) i), ==, values[i]);
      g_assert_cmpint (json_array_get_int_element (back, G_N_ELEMENTS (values)), ==,
                       G_GINT64_CONSTANT (-9007199254740993));
    }
}

static void
test_shortest_and_special (void)
{
  char buf[64];
  sb_json_format_double (0.1, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "0.1");
  sb_json_format_double (1e-14, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "1e-14");
  sb_json_format_double (NAN, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "null");
  sb_json_format_double (-INFINITY, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "null");
}

/* Written, read by the strict reader and written again: the same text.
 * A negative zero printed "-0" came back as the integer 0 (and was then
 * written "0"). */
static void
test_negative_zero_stable (void)
{
  g_autoptr (JsonArray) array = json_array_new ();
  json_array_add_double_element (array, -0.0);
  json_array_add_double_element (array, 0.0);
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, array);
  g_autofree char *text = sb_json_write (node, FALSE, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) back = sb_json_read (text, -1, &error);
  g_assert_no_error (error);
  JsonNode *zero = json_array_get_element (json_node_get_array (back), 0);
  g_assert_cmpint (json_node_get_value_type (zero), ==, G_TYPE_DOUBLE);
  g_assert_true (signbit (json_node_get_double (zero)));
  g_autofree char *again = sb_json_write (back, FALSE, NULL);
  g_assert_cmpstr (again, ==, text);
}

static void
test_strings_and_order (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "z");
  json_builder_add_string_value (b, "quote \" backslash \\ newline \n tab \t ctrl \x01 é");
  json_builder_set_member_name (b, "a");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "empty");
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) node = json_builder_get_root (b);
  g_autofree char *text = sb_json_write (node, TRUE, NULL);
  g_assert_true (strstr (text, "\"z\"") < strstr (text, "\"a\""));  /* order kept */
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (o, "z"), ==,
                   "quote \" backslash \\ newline \n tab \t ctrl \x01 é");
  g_assert_true (json_object_get_boolean_member (o, "a"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-write/numbers-round-trip", test_numbers_round_trip);
  g_test_add_func ("/json-write/shortest-and-special", test_shortest_and_special);
  g_test_add_func ("/json-write/negative-zero-stable", test_negative_zero_stable);
  g_test_add_func ("/json-write/strings-and-order", test_strings_and_order);
  return g_test_run ();
}
