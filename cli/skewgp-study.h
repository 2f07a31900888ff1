/* skewgp-study.h — what the ask/tell commands (skewgp-study.c) and the
 * study commands (skewgp-roster.c) share. */
#pragma once

#include "skewgp-cli.h"

#include "sb-session.h"
#include "sb-study.h"

G_BEGIN_DECLS

/* The arguments of a study or ask/tell command: positional arguments in
 * order, and the options it allows. */
typedef struct {
  const char *positional[3];
  guint n_positional;
  const char *participant;   /* --participant CODE */
  const char *code;          /* --code CODE        */
  const char *note;          /* --note TEXT        */
  const char *output;        /* -o, --output FILE  */
  const char *by;            /* --by NAME          */
  const char *answer;        /* --answer N         */
  const char *status;        /* --status NAME      */
  const char *repeat_rate;   /* --repeat-rate R    */
  const char *model;         /* --model NAME|FILE  */
  gboolean wide;             /* --wide             */
  gboolean with_notes;       /* --with-notes       */
  gboolean external_ids;     /* --external-ids     */
} SkewgpArgs;

/* Reads ARGV into ARGS. ALLOWED lists the options COMMAND takes, e.g.
 * "--participant --wide"; any other option, or more than MAX_POSITIONAL
 * arguments, is refused naming it. */
gboolean skewgp_parse_args (const char *command, const char *allowed, guint max_positional,
                            int argc, char **argv, SkewgpArgs *args, GError **error);

/* The CLI's error for ERR (taken): engine failures are numerical (exit
 * 1), the rest bad input (exit 2). Returns FALSE. */
gboolean skewgp_forward_error (GError *err, GError **error);
/* The exit status for ERROR (taken; NULL: success), printed as "skewgp
 * COMMAND: message". */
int skewgp_finish (const char *command, GError *error);

/* An experiment document (skewgp new --help) into a checked experiment;
 * a candidate set's paths are relative to BASE_DIR. */
SbExperiment *skewgp_parse_experiment (JsonObject *obj, const char *base_dir, GError **error);

/* TRUE when PATH is a study folder (it holds a study index). */
gboolean skewgp_is_study (const char *path);
/* The study at DIR, or NULL with ERROR. */
SbStudy *skewgp_open_study (const char *dir, GError **error);

G_END_DECLS
