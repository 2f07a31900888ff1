/* gauss-fixtures.h — data shared by the Laplace and EP tests. */
#pragma once

#include "sg-data.h"

#include <glib.h>

/* Every observation kind at once, in 2-D: three duels, two labels, a
 * numeric value, a valid and an invalid setting. */
static inline void
mixed_data (sg_data *data)
{
  const double p[7][2] = { { 0, 0 }, { 0.5, 0.2 }, { -0.4, 0.9 }, { 1.0, -0.6 },
                           { 0.3, 0.4 }, { -0.8, -0.5 }, { 0.9, 0.8 } };
  sg_data_init (data, 2);
  g_assert_cmpint (sg_data_add_preference (data, p[0], p[1]), ==, SG_OK);
  g_assert_cmpint (sg_data_add_preference (data, p[2], p[1]), ==, SG_OK);
  g_assert_cmpint (sg_data_add_preference (data, p[2], p[3]), ==, SG_OK);
  g_assert_cmpint (sg_data_add_binary (data, p[4], 1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_binary (data, p[5], -1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_numeric (data, p[0], 0.8), ==, SG_OK);
  g_assert_cmpint (sg_data_add_valid (data, p[6], 0.4, 0.1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_invalid (data, p[3], 0.1), ==, SG_OK);
}
