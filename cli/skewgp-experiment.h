/* skewgp-experiment.h — the experiment document of `skewgp new` and
 * `skewgp study new` (skewgp new --help). */
#pragma once

#include "sb-session.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* An experiment document into a checked experiment; a candidate set's
 * paths are relative to BASE_DIR. */
SbExperiment *skewgp_parse_experiment (JsonObject *obj, const char *base_dir, GError **error);

G_END_DECLS
