/* sb-question-json.c — the question protocol's documents (sb-question-json.h). */
#include "config.h"

#include "sb-question-json.h"

#include "sb-ask-tell.h"
#include "sb-candidates.h"
#include "sb-confidence-scale.h"
#include "sb-json-write.h"
#include "sb-setting.h"

JsonNode *
sb_question_to_json (const SbQuestion *q, const SbExperiment *exp)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_int (b, "question", (gint64) q->id);
  sb_json_add_string (b, "kind", sb_question_kind_to_string (q->kind));
  json_builder_set_member_name (b, "options");
  json_builder_begin_array (b);
  for (guint i = 0; i < q->n_options; i++)
    json_builder_add_value (b, sb_experiment_setting_to_json (exp, q->options[i]));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "shown_order");
  json_builder_begin_array (b);
  for (guint i = 0; i < q->n_options; i++)
    json_builder_add_int_value (b, q->shown_order[i]);
  json_builder_end_array (b);
  if (exp->candidates != NULL)
    {
      json_builder_set_member_name (b, "files");
      json_builder_begin_array (b);
      for (guint i = 0; i < q->n_options; i++)
        {
          g_autofree char *file = sb_experiment_candidate_file (exp, q->options[i]);
          if (file)
            json_builder_add_string_value (b, file);
          else
            json_builder_add_null_value (b);
        }
      json_builder_end_array (b);
    }
  if (q->has_prob_safe)
    sb_json_add_number (b, "prob_safe", q->prob_safe);
  sb_json_add_string (b, "question_text", q->kind == SB_QUESTION_VALUE ? SB_VALUE_QUESTION_TEXT
                                          : exp->question_text ? exp->question_text
                                          : SB_DEFAULT_QUESTION_TEXT);
  json_builder_set_member_name (b, "confidence_scale");
  json_builder_add_value (b, sb_confidence_scale_to_json (exp->confidence_levels));
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
add_progress (JsonBuilder *b, SbSession *session)
{
  sb_json_add_int (b, "answers", sb_session_get_n_answers (session));
  sb_json_add_int (b, "budget", sb_session_get_experiment (session)->budget);
  sb_json_add_bool (b, "done", sb_ask_tell_is_done (session));
}

JsonNode *
sb_question_recorded_to_json (SbSession *session, guint64 id)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  sb_json_add_int (b, "recorded", (gint64) id);
  add_progress (b, session);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
sb_question_progress_to_json (SbSession *session)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  add_progress (b, session);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
