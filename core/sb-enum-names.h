/* sb-enum-names.h — an enum's names in the files, one mechanism for all.
 *
 * Every enum that a file, a command line or a message spells by name has
 * a table NAMES indexed by value; SB_NAMED_ENUM defines its two
 * functions over the engine's lookup (sg_name_of, sg_name_lookup in
 * sg-common.h), so core and engine read and write names alike.
 */
#pragma once

#include <glib.h>

#include "sg-common.h"

/* Defines TO (value) -> NAMES[value], FALLBACK for a value beyond the
 * table, and FROM (name, &value): FALSE (VALUE untouched) for NULL or a
 * name not in the table. */
#define SB_NAMED_ENUM(Type, to, from, names, fallback)                          \
  const char *                                                                  \
  to (Type value)                                                               \
  {                                                                             \
    return (guint) value < G_N_ELEMENTS (names) ? names[value] : fallback;      \
  }                                                                             \
                                                                                \
  gboolean                                                                      \
  from (const char *name, Type *value)                                          \
  {                                                                             \
    size_t v;                                                                   \
    if (sg_name_lookup (names, G_N_ELEMENTS (names), name, &v) != SG_OK)        \
      return FALSE;                                                             \
    *value = (Type) v;                                                          \
    return TRUE;                                                                \
  }
