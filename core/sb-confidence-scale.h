/* sb-confidence-scale.h — how the people of an experiment say how sure
 * they are of an answer, and the experiment's question wording.
 *
 * An experiment's confidence scale ("confidence_scale" in the experiment
 * and session files, and in the question document) is either
 *   {"kind": "words"}                 "weak", "normal", "strong" (the default)
 *   {"kind": "rating", "levels": k}   a whole number 1 .. k, 1 the least
 *                                     sure, k = 2 .. SG_CONFIDENCE_MAX_LEVELS
 * and is held as its number of levels (0 for the words). A rating scales
 * the answer's noise between the weak and the strong scale as sg-data.h
 * states (the middle of an odd scale is "normal"). An answer's
 * "confidence" is written as it was given: a word, or the rating's number.
 *
 * No GTK here.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "sg-data.h"

G_BEGIN_DECLS

/* The question's wording when the experiment gives none ("question_text"). */
#define SB_DEFAULT_QUESTION_TEXT "Which setting works better?"
/* What a value question asks (mixed and safe mode): the experiment's
 * "question_text" words its preference questions only. */
#define SB_VALUE_QUESTION_TEXT \
  "Try this setting. Enter the value you measured, or report that it failed."
/* The longest "question_text", in bytes. */
#define SB_MAX_QUESTION_TEXT 500

/* {"kind": "words"} or {"kind": "rating", "levels": LEVELS}. */
JsonNode *sb_confidence_scale_to_json (guint levels);
/* NODE (the member "confidence_scale") into *LEVELS; FALSE with ERROR
 * (SB_SESSION_ERROR_INVALID) naming the member otherwise. */
gboolean sb_confidence_scale_from_json (JsonNode *node, guint *levels, GError **error);
/* What a confidence under the scale is, for messages and help:
 * "\"weak\", \"normal\" or \"strong\"" or "a whole number from 1 (least
 * sure) to 5 (surest)". */
char *sb_confidence_scale_describe (guint levels);
/* TRUE when C (not NONE) belongs to the scale of LEVELS. */
gboolean sb_confidence_fits_scale (sg_confidence c, guint levels);
/* The confidence of rating RATING (1 ..) or word WORD under the scale of
 * LEVELS into *C: FALSE with ERROR (SB_SESSION_ERROR_INVALID) naming the
 * scale when the given form or value is not on it. Give RATING 0 for a
 * word. */
gboolean sb_confidence_on_scale (guint levels, guint rating, sg_confidence word,
                                 sg_confidence *c, GError **error);
/* C as the files write it: a JSON string (a word) or integer (a rating). */
JsonNode *sb_confidence_to_json (sg_confidence c);
/* TRUE when TEXT may be a question's wording: valid UTF-8, not blank, at
 * most SB_MAX_QUESTION_TEXT bytes, no control characters but newlines;
 * FALSE with ERROR (SB_SESSION_ERROR_INVALID) naming 'question_text'. */
gboolean sb_question_text_validate (const char *text, GError **error);

G_END_DECLS
