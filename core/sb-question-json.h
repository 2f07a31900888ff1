/* sb-question-json.h — the question protocol's documents: a question as
 * `skewgp ask` prints it, what `skewgp tell` replies, and the reply when
 * nothing is left to ask. The study server sends the same documents over
 * HTTP, so a lab script and a browser read one format.
 *
 *   question  {"question": ID, "kind": "duel" | "choice" | "ranking" | "value",
 *              "options": [setting, ...], "shown_order": [i, ...],
 *              "files"?: [path | null, ...],   (with a candidate set)
 *              "prob_safe"?: p,                (safe mode's value questions)
 *              "question_text": wording, "confidence_scale": scale}
 *            the experiment's wording of a preference question
 *            (SB_DEFAULT_QUESTION_TEXT when it gives none; a value
 *            question's is SB_VALUE_QUESTION_TEXT) and confidence scale (sb-confidence-scale.h:
 *            {"kind": "words"} or {"kind": "rating", "levels": k})
 *   recorded  {"recorded": ID, "answers": n, "budget": N, "done": bool}
 *   done      {"done": true, "answers": n, "budget": N}
 *
 * A setting is written as sb_experiment_setting_to_json writes it
 * (integers whole, categorical levels by name). No GTK here.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "sb-question.h"
#include "sb-session.h"

G_BEGIN_DECLS

/* Q of EXP as the question document above. */
JsonNode *sb_question_to_json (const SbQuestion *q, const SbExperiment *exp);
/* The reply to the recorded answer to question ID of SESSION. */
JsonNode *sb_question_recorded_to_json (SbSession *session, guint64 id);
/* SESSION's progress: {"answers", "budget", "done"} (the done document
 * when its budget is used). */
JsonNode *sb_question_progress_to_json (SbSession *session);

G_END_DECLS
