/* sb-participant-view.h — the participant's screen: the question panel
 * alone, for running an experiment with people.
 *
 * The view shows a campaign's questions in a participant SbDuelPanel
 * (neutral "Left" / "Right" or 1 .. k, a duel's sides in the question's
 * seeded shown order, no analysis) on a surround colour the experimenter
 * chose, with this sequence per question:
 *
 *   blank screen (the inter-trial interval, and while the engine
 *   computes) -> the question drawn -> input open -> answer -> blank …
 *
 * An answer (click or key) is taken only while input is open: from the
 * first frame that shows the question until the answer. The response
 * time counts from that frame (sb_campaign_mark_shown). Every
 * BREAK_EVERY answers a break screen ("Take a short break — press Space
 * to continue") comes first.
 *
 * Keys: ← / → answer for the left / right side, T or ↓ "about the
 * same" (when allowed), S skips, 1 .. k choose or rank, ⌫ and Enter for rankings,
 * Shift with an answer makes it sure. Every other key is swallowed
 * (Escape, F11 …). Ctrl+Shift+U opens the experimenter's unlock prompt:
 * the right code emits ::unlocked, a wrong one is refused; Escape closes
 * the prompt.
 *
 * The view provides the "win." answer actions for the panel inside it,
 * so they never reach the window's.
 */
#pragma once

#include <gtk/gtk.h>

#include "sb-campaign.h"
#include "sb-duel-panel.h"

G_BEGIN_DECLS

/* What the experimenter chose when starting participant mode. */
typedef struct {
  GdkRGBA surround;        /* the colour around the question              */
  guint iti_ms;            /* blank screen between questions              */
  guint break_every;       /* a break after this many answers; 0: never   */
} SbParticipantSettings;

/* The settings remembered in GSettings (ui/sb-settings.c), or the
 * built-in defaults: mid grey, 1000 ms, a break every 20 answers. */
void sb_participant_settings_load (SbParticipantSettings *settings);
void sb_participant_settings_save (const SbParticipantSettings *settings);

typedef enum {
  SB_PARTICIPANT_BLANK = 0,  /* inter-trial interval, or the engine computes */
  SB_PARTICIPANT_PRESENTING, /* the question is being drawn                  */
  SB_PARTICIPANT_ANSWERING,  /* the question is shown: input is open         */
  SB_PARTICIPANT_BREAK,      /* "take a short break"                         */
  SB_PARTICIPANT_DONE,       /* every question answered, or the engine
                                stopped: "please call the experimenter"     */
  SB_PARTICIPANT_UNLOCK,     /* the experimenter's unlock prompt             */
} SbParticipantPhase;

#define SB_TYPE_PARTICIPANT_VIEW (sb_participant_view_get_type ())
G_DECLARE_FINAL_TYPE (SbParticipantView, sb_participant_view, SB, PARTICIPANT_VIEW, GtkWidget)

/* A view of CAMPAIGN (which must run a session) that unlocks with CODE
 * (non-empty; kept in memory only). It starts with a blank screen. */
GtkWidget *sb_participant_view_new (SbCampaign *campaign, const SbParticipantSettings *settings,
                                    const char *code);

SbParticipantPhase sb_participant_view_get_phase (SbParticipantView *self);
SbDuelPanel *sb_participant_view_get_panel (SbParticipantView *self);
/* Answers taken in this view. */
guint sb_participant_view_get_n_answered (SbParticipantView *self);

/* The unlock prompt (also Ctrl+Shift+U), and a code typed into it:
 * TRUE and ::unlocked for the right code; FALSE, nothing else, for a
 * wrong one. */
void sb_participant_view_show_unlock (SbParticipantView *self);
gboolean sb_participant_view_try_unlock (SbParticipantView *self, const char *code);

G_END_DECLS
