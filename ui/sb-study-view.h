/* sb-study-view.h — the Study view: a study's roster and its population.
 *
 * Shows an SbStudy (core/sb-study.h): the population at the top (how many
 * participants, how many included, the pooled answers and consistency,
 * how many answer at chance, sb_study_population), each participant's
 * row (code, status, answered / budget, repeat agreement, intransitive
 * triples, side bias, the at-chance flag, the note, and the population
 * model's P(their best differs from the population's)) and the population
 * plot: the hierarchical model's population utility g (mean and 95%
 * band) along a chosen parameter, each included participant's f_p mean
 * as a thin line, one of them highlighted, and the population best
 * (plot/sb-render-population.h).
 *
 * The summaries read every participant's session file: they are computed
 * in a thread on a fresh copy of the study (sb_study_open never writes)
 * and shown when done; a newer refresh supersedes an older one. The
 * population model (core/sb-population.h) is then computed on the view's
 * SbWorker from a snapshot the thread took; a newer refresh supersedes
 * it too, and a stale result is dropped.
 *
 * Roster edits (add a participant, set a status or a note) go through the
 * study and are refreshed at once. Starting a session or participant mode
 * is the window's: the view emits
 *   ::start-session (const char *code)
 *   ::start-participant-mode (const char *code)
 *   ::roster-loaded ()       new summaries are shown
 *   ::exported (const char *where)  an export was written
 *
 * Exports (the header's Export menu, action "study.export" with "csv",
 * "model" or "report"): the long CSV of everyone (the file `skewgp
 * export STUDY` writes: one core function, sb_study_to_csv, serves both),
 * the population model's JSON (as `skewgp export STUDY --model`), and a
 * one-page PDF report (plot/sb-study-report.h).
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-chart.h"
#include "sb-serve-panel.h"
#include "sb-study.h"

G_BEGIN_DECLS

#define SB_TYPE_STUDY_VIEW (sb_study_view_get_type ())
G_DECLARE_FINAL_TYPE (SbStudyView, sb_study_view, SB, STUDY_VIEW, GtkWidget)

GtkWidget *sb_study_view_new (void);

/* "Serve online" (ui/sb-serve-panel.h): the study server in process; the
 * view refreshes as answers arrive. */
SbServePanel *sb_study_view_get_serve_panel (SbStudyView *self);

/* Shows STUDY (a reference is taken; NULL: none) and refreshes. */
void sb_study_view_set_study (SbStudyView *self, SbStudy *study);
SbStudy *sb_study_view_get_study (SbStudyView *self);
/* Reads the participants' files again (in a thread). */
void sb_study_view_refresh (SbStudyView *self);
/* TRUE while summaries are being computed. */
gboolean sb_study_view_get_loading (SbStudyView *self);

/* The latest summaries shown: the number of rows, one participant's
 * (FALSE when the roster shown has no CODE or its file could not be
 * read) and the population. */
guint sb_study_view_get_n_rows (SbStudyView *self);
gboolean sb_study_view_get_row (SbStudyView *self, const char *code,
                                SbParticipantStatus *status, SbParticipantSummary *summary);
const SbPopulation *sb_study_view_get_population (SbStudyView *self);

/* The population model: TRUE while it is being computed; why the latest
 * failed (NULL: it did not); participant CODE's P(best differs) from the
 * latest model (FALSE: none, e.g. before the first answer); the chart
 * that draws it. */
gboolean sb_study_view_get_model_loading (SbStudyView *self);
const char *sb_study_view_get_model_error (SbStudyView *self);
gboolean sb_study_view_get_prob_best_differs (SbStudyView *self, const char *code, double *prob);
SbChart *sb_study_view_get_chart (SbStudyView *self);
/* The plot's parameter (an index of the experiment's parameters) and the
 * participant drawn out (NULL: nobody; FALSE when the model has no CODE). */
void sb_study_view_set_axis (SbStudyView *self, guint axis);
gboolean sb_study_view_set_highlight (SbStudyView *self, const char *code);

/* The roster edits the view offers (each refreshes the view; FALSE with
 * ERROR, which the view also shows). ADD: CODE NULL or "" generates one;
 * the new participant's code goes to *ADDED (may be NULL). */
gboolean sb_study_view_add_participant (SbStudyView *self, const char *code, const char *note,
                                        char **added, GError **error);
gboolean sb_study_view_set_status (SbStudyView *self, const char *code,
                                   SbParticipantStatus status, GError **error);
gboolean sb_study_view_set_note (SbStudyView *self, const char *code, const char *note,
                                 GError **error);

/* The exports, written to FILE; FALSE with ERROR (the model ones while the
 * population model is still being computed, or why it failed). */
gboolean sb_study_view_export_csv (SbStudyView *self, GFile *file, GError **error);
gboolean sb_study_view_export_model (SbStudyView *self, GFile *file, GError **error);
gboolean sb_study_view_export_report (SbStudyView *self, GFile *file, GError **error);

G_END_DECLS
