/* sb-demos.h — the guided demos: a prepared state plus a few
 * sentences that say what to look at, each reproducing a figure of the
 * papers with the paper's settings.
 *
 * A demo is one of two kinds:
 *   SESSION     a prepared session (a JSON document in the GResource under
 *               /org/skewbench/SkewBench/demos/<id>.json), copied to a NEW
 *               file under $XDG_DATA_HOME/skewbench/demos/ (never
 *               overwriting anything; unused earlier copies are removed)
 *               and shown in a main window with an explanation banner; the
 *               demo's hyperparameters (the paper's) stay fixed;
 *   PLAYGROUND  a preset of the classification playground.
 *
 * This file is the table and the prepared sessions' files; it opens no
 * window: the main window opens demos (sb_window_open_demo, sb-window.h).
 * Adding a demo is one entry of the table in sb-demos.c:
 *
 *   { .id = "my-demo", .title = "…", .explanation = "…",
 *     .settings = "…", .session = "my-demo.json", .n_answers = 12 },
 *
 * The table is static and constant: no initialisation, safe from any
 * thread.
 */
#pragma once

#include <glib.h>

#include "sb-session.h"

G_BEGIN_DECLS

#define SB_DEMO_RESOURCE_PREFIX "/org/skewbench/SkewBench/demos/"

typedef struct {
  const char *id;           /* stable, for `skewbench --demo ID`          */
  const char *title;        /* "Preference posteriors are skewed"         */
  const char *explanation;  /* one paragraph: what to look at             */
  const char *settings;     /* the paper's settings reproduced, with the
                               paper file and figure                      */
  /* Exactly one of the two: */
  const char *session;      /* resource name under SB_DEMO_RESOURCE_PREFIX,
                               e.g. "preference-skewed.json"              */
  const char *playground;   /* a playground preset (sb-playground.h)      */
  /* Session demos only: */
  guint n_answers;          /* answers in the prepared log (tests check)  */
  gboolean stepping;        /* the banner offers previous / next step
                               controls that replay the log one answer at
                               a time                                     */
  const char *views;        /* plots the banner offers as buttons, by
                               SbPlotKind nick ("posterior skewness
                               density"); the first is shown on opening   */
  double density_x;         /* 1-D: the point of the "density" view       */
  gboolean compare;         /* overlay Laplace and EP from the start      */
} SbDemo;

/* The registry, in menu order. */
guint sb_demos_get_n (void);
const SbDemo *sb_demos_get (guint index);
/* NULL for an unknown id. */
const SbDemo *sb_demos_lookup (const char *id);

/* A session demo's prepared session, parsed from the resource (no file:
 * it never saves). NULL with ERROR for callback demos or a broken
 * resource. */
SbSession *sb_demo_load_prepared (const SbDemo *demo, GError **error);
/* The prepared session copied to a new file in DIR (NULL: the default,
 * sb_demo_default_dir) and bound to it. An existing file is never
 * touched: the name gets a time stamp and, if taken, a counter. */
SbSession *sb_demo_copy_session (const SbDemo *demo, const char *dir, GError **error);
/* $XDG_DATA_HOME/skewbench/demos */
char *sb_demo_default_dir (void);

/* Removes DEMO's unused copies from DIR, so that launching a demo again
 * and again does not pile up files: those whose write lock is free (no
 * window of any process has them open) and whose log holds only the
 * prepared answers (or a beginning of them). A copy with answers of its
 * own, open in a window, or unreadable stays. */
void sb_demo_remove_unused_copies (const SbDemo *demo, const char *dir);

G_END_DECLS
