/* sb-acquisition-row.h — a drop-down of the engine's acquisitions for the
 * New Experiment dialog: the ones that fit the question kind and mode,
 * each shown by name with a one-line tooltip naming its source. */
#pragma once

#include "sb-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Gives DROPDOWN its rows' factory (label and tooltip) and an empty model;
 * sb_acquisition_row_offer fills it. */
void sb_acquisition_row_init (GtkDropDown *dropdown);
/* Offers the acquisitions that fit: qEUBO alone for choices and rankings
 * (the engine asks them by qEUBO), for duels every rule
 * sb_acquisition_fits takes in MODE with SURROGATE. The selected row is
 * the one wanted (the user's last choice, or sb_acquisition_row_select's)
 * when it is offered, else the measured default of MODE, QUESTION,
 * SURROGATE and DIM parameters (sg_bo_default_acquisition), else the
 * first. */
void sb_acquisition_row_offer (GtkDropDown *dropdown, SbMode mode, SbAskKind question,
                               sg_bo_surrogate surrogate, guint dim);
/* Makes ACQ the one wanted and selects it; FALSE (selection unchanged)
 * when it is not offered now. */
gboolean sb_acquisition_row_select (GtkDropDown *dropdown, sg_bo_acquisition acq);
/* The selected acquisition (dueling UCB when nothing is offered). */
sg_bo_acquisition sb_acquisition_row_selected (GtkDropDown *dropdown);
/* The one-line description of ACQ with its source, as the tooltips show
 * it (translated). */
const char *sb_acquisition_row_tooltip (sg_bo_acquisition acq);

G_END_DECLS
