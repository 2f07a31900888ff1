/* sb-session-write.h — a session written as its JSON document
 * (docs/DESIGN.md §4; sb-session-parse.c reads it back).
 *
 * The writer is the lowest of the session's files (sb-session-private.h):
 * the session saves through it, so it calls nothing of the session's.
 * The session type is declared here as GObject's G_DECLARE_FINAL_TYPE
 * declares it in sb-session.h, so the writer's declarations need nothing
 * above it.
 */
#pragma once

#include "sb-experiment.h"

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define SB_SESSION_FORMAT "skewbench-session"
#define SB_SESSION_VERSION 1

typedef struct _SbSession SbSession;

/* SELF's JSON document (pretty-printed, newline-terminated). */
char *sb_session_to_data (SbSession *self, gsize *length);
/* EXP as a session or a study file holds it ("experiment"). */
JsonNode *sb_experiment_to_node (const SbExperiment *exp);

G_END_DECLS
