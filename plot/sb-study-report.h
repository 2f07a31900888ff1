/* sb-study-report.h — a study's one-page PDF report, drawn with Cairo.
 *
 * What a lab files with a study: the study and its experiment named, the
 * model named (the hierarchical exact SkewGP of everyone included), the
 * population's best setting with its 95% interval, the population plot
 * along one parameter (sb-render-population.h), the fitted
 * hyperparameters, and the roster: each participant's status, answers,
 * consistency figures (repeated pairs agreeing, intransitive triples,
 * first-shown wins, the at-chance flag) and P(best differs). No widget
 * code: the report is made and checked without a display. */
#pragma once

#include "sb-population.h"
#include "sb-study.h"

G_BEGIN_DECLS

/* One participant's line of the roster. */
typedef struct {
  const char *code;
  SbParticipantStatus status;
  gboolean ok;                     /* the session was read (else ERROR)     */
  const char *error;
  SbParticipantSummary summary;
} SbReportRow;

/* What the report shows. MODEL may be NULL (not computed: the report
 * says so) or have no answers yet. */
typedef struct {
  const char *study_name;
  const SbExperiment *experiment;
  const SbPopulationResult *model;
  guint axis;                      /* the plot's parameter                  */
  const SbReportRow *rows;
  guint n_rows;
  const char *date;                /* printed as given, e.g. "2026-11-29"   */
} SbStudyReport;

/* The page's layout, as drawn (points): what a test checks. */
typedef struct {
  double width, height;            /* A4: 595.3 x 841.9                     */
  double plot_x, plot_y, plot_w, plot_h;
  double bottom;                   /* the lowest text drawn                  */
  guint rows_shown;                /* roster lines on the page               */
} SbReportLayout;

/* Writes REPORT as a one-page A4 PDF to PATH; LAYOUT (may be NULL) gets
 * where things went. A roster longer than the page has room for ends with
 * a line naming how many more there are (the CSV has everyone). */
gboolean sb_study_report_write_pdf (const SbStudyReport *report, const char *path,
                                    SbReportLayout *layout, GError **error);

/* The rows of STUDY's roster, read from its files (sb_study_summarise);
 * free with sb_study_report_rows_free. */
SbReportRow *sb_study_report_rows (SbStudy *study, guint *n_rows);
void sb_study_report_rows_free (SbReportRow *rows, guint n_rows);

G_END_DECLS
