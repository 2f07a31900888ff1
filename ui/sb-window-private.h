/* sb-window-private.h — what the window's files share: sb-window.c (the
 * window bound to its campaign, history, files), sb-window-actions.c
 * (actions and keys) and sb-window-demo.c (the guided demo player). */
#pragma once

#include "sb-window.h"

#include <adwaita.h>

#include "sb-campaign.h"
#include "sb-plot-view.h"
#include "sb-session-history.h"
#include "sb-study-view.h"

G_BEGIN_DECLS

struct _SbWindow
{
  GtkApplicationWindow parent_instance;

  /* Owned */
  SbCampaign *campaign;        /* the experiment's flow (core)            */
  gboolean refused;            /* a refused file is shown                 */
  char *error;                 /* shown in the error bar                  */
  GtkRecentManager *recent;    /* borrowed singleton, signal connected    */
  guint history_len;           /* log entries the history list reflects   */
  SbPlotView *plot_view;       /* in plots_box                            */
  gboolean user_slice;         /* the user chose the 2-D slice            */
  const SbDemo *demo;          /* the guided demo shown (static), or NULL */
  GPtrArray *demo_log;         /* its full prepared log (SbLogEntry)      */
  gboolean demo_density;       /* show the demo's density when a model is */
  guint folded_idle;           /* applies a fold of the layout            */
  gboolean plots_only;         /* side by side: the question pane hidden  */
  gboolean presentation;       /* plots only, magnified, for a projector  */
  gboolean demo_collapsed;     /* the demo banner on one line             */
  guint refusal_timeout;       /* restores the status line after a refusal */
  AdwToast *undo_toast;        /* "Answer N taken back", while shown (weak) */
  AdwToastOverlay *toast_overlay; /* the window's child (borrowed)        */
  /* Participant mode (sb-window-participant.c) */
  SbParticipantView *participant_view; /* the overlay's child meanwhile, or NULL */
  GtkWidget *participant_saved_child;  /* the workbench content it replaced */
  GPtrArray *participant_blocked;      /* GSimpleActions it disabled       */
  /* History edits (sb-window-history.c) */
  guint history_edits;         /* journal records the history list reflects */
  AdwToast *edit_toast;        /* "Answer N removed", while shown (weak)  */
  /* Studies (sb-window-study.c) */
  SbStudy *study;              /* the study opened, or NULL              */
  SbStudyView *study_view;     /* the main stack's "study" page          */
  GtkWidget *study_button;     /* back to the roster (in the header)     */

  /* Template widgets (borrowed) */
  GtkLabel *title_label;
  GtkLabel *subtitle_label;
  GtkRevealer *error_revealer;
  GtkLabel *error_label;
  GtkWidget *retry_button;
  GtkStack *main_stack;
  AdwLeaflet *leaflet;
  GtkWidget *plots_toggle;
  GtkWidget *refit_button;
  GtkWidget *undo_button;
  SbDuelPanel *duel_panel;
  GtkBox *plots_box;
  GtkWidget *answers_box;
  GtkWidget *question_scroller;
  GtkWidget *pane_separator;
  GtkListBox *history_list;
  GtkLabel *refused_label;
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;
  GtkLabel *status_label;
  GMenu *recent_menu;
  GtkRevealer *demo_revealer;
  GtkLabel *demo_title_label;
  GtkLabel *demo_text_label;
  GtkLabel *demo_settings_label;
  GtkBox *demo_views_box;
  GtkWidget *demo_step_box;
  GtkLabel *demo_step_label;
  GtkWidget *demo_collapse_button;
};

/* sb-window.c */
void _sb_window_show_error (SbWindow *self, const char *message, gboolean can_retry);
void _sb_window_clear_error (SbWindow *self);
void _sb_window_update_status (SbWindow *self);
void _sb_window_update_titles (SbWindow *self);
void _sb_window_remember_file (SbWindow *self, GFile *file);
void _sb_window_request_plot (SbWindow *self);

/* The plots instead of the question: folded (one page at a time, narrow
 * windows), the plots' page; side by side, the plots alone. */
void _sb_window_show_plots (SbWindow *self, gboolean show);
/* Presentation mode: the plots alone, magnified, the answers list and
 * the demo's explanation folded away. */
void _sb_window_set_presentation (SbWindow *self, gboolean presentation);
/* The demo banner reduced to its title line and buttons (sb-window-demo.c). */
void _sb_window_set_demo_collapsed (SbWindow *self, gboolean collapsed);

/* sb-window-actions.c */
void _sb_window_install_actions (SbWindow *self);
/* A key or click that cannot answer now: the bell, and REASON in the
 * status line (and its tooltip) for a few seconds. */
void _sb_window_refuse (SbWindow *self, const char *reason);
/* Why window action ACTION (an answer) cannot be taken now (a static
 * string, valid until the next call). */
const char *_sb_window_refusal (SbWindow *self, const char *action);
void _sb_window_update_actions (SbWindow *self);
void _sb_window_set_action_enabled (SbWindow *self, const char *name, gboolean enabled);

/* sb-window-participant.c */
void _sb_window_install_participant_actions (SbWindow *self);
void _sb_window_dispose_participant_mode (SbWindow *self);
/* sb-window-recommend.c */
void _sb_window_install_recommend (SbWindow *self);
/* Computes the recommendation on the worker and shows it when it comes. */
void _sb_window_request_recommendation (SbWindow *self);

/* sb-window-history.c */
GtkWidget *_sb_window_history_row (SbWindow *self, const SbExperiment *exp, const SbLogEntry *e,
                                   guint index);
void _sb_window_history_sync_edits (SbWindow *self);
void _sb_window_install_history_actions (SbWindow *self);
void _sb_window_update_history_actions (SbWindow *self);
void _sb_window_dispose_history (SbWindow *self);

/* sb-window-study.c */
void _sb_window_install_study_actions (SbWindow *self);
void _sb_window_dispose_study (SbWindow *self);

/* sb-window-demo.c */
void _sb_window_clear_demo (SbWindow *self);
void _sb_window_update_demo (SbWindow *self);
void _sb_window_demo_request_density (SbWindow *self);
void _sb_window_install_demo_actions (SbWindow *self);

G_END_DECLS
