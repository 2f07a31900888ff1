/* sb-chart-private.h — what the layer widgets need from their chart. */
#pragma once

#include "sb-chart.h"

/* The frame and palette the layers draw with (valid after allocation). */
const SbFrame *_sb_chart_frame (SbChart *self);
const SbPalette *_sb_chart_palette (SbChart *self);
SbScene *_sb_chart_scene (SbChart *self);
