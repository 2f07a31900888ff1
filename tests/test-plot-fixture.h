/* test-plot-fixture.h — loads the realistic plot fixtures written by
 * tests/data/gen-plot-fixtures.py (GKeyFile documents) into snapshots. */
#pragma once

#include "sb-plot-data.h"

/* Loads tests/data/NAME (e.g. "plot-1d.ini"). *DENSITY (may be NULL) gets
 * the [density] group when there is one. Asserts on malformed files. */
SbPlotSnapshot *plot_fixture_load (const char *name, SbDensityData **density);
/* The same in two steps, so a test can change the key file first. */
GKeyFile *plot_fixture_key_file (const char *name);
SbPlotSnapshot *plot_fixture_from_key_file (GKeyFile *kf, SbDensityData **density);
