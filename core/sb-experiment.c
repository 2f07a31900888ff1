/* sb-experiment.c — the experiment's data, names and copies
 * (sb-experiment.h). */
#include "config.h"

#include "sb-experiment.h"

#include "sb-enum-names.h"

#include <math.h>
#include <string.h>

/* Modes, acquisitions and surrogates are the engine's enums and are named
 * by the engine's tables (sg-bo.h); templates and question kinds are the
 * experiment's own. */
G_STATIC_ASSERT (SB_MAX_PARAMETERS == SG_BO_MAX_DIM);

static const char *const template_names[] = { "colour", "benchmark", "custom" };
static const char *const question_names[] = { "duel", "choice", "ranking" };

SB_NAMED_ENUM (SbAskKind, sb_ask_kind_to_string, sb_ask_kind_from_string, question_names, "duel")
SB_NAMED_ENUM (SbTemplate, sb_template_to_string, sb_template_from_string, template_names, "custom")

const char *
sb_mode_to_string (SbMode mode)
{
  return sg_bo_mode_name (mode <= SB_MODE_SAFE ? (sg_bo_mode) mode : SG_BO_PREFERENCE);
}

gboolean
sb_mode_from_string (const char *name, SbMode *mode)
{
  sg_bo_mode m;
  if (sg_bo_mode_parse (name, &m) != SG_OK || m > (sg_bo_mode) SB_MODE_SAFE)
    return FALSE;
  *mode = (SbMode) m;
  return TRUE;
}

/* ---- Experiment -------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (SbExperiment, sb_experiment, sb_experiment_copy, sb_experiment_free)

SbExperiment *
sb_experiment_new (void)
{
  SbExperiment *exp = g_new0 (SbExperiment, 1);

  exp->title = g_strdup ("Experiment");
  exp->template_kind = SB_TEMPLATE_CUSTOM;
  exp->mode = SB_MODE_PREFERENCE;
  exp->acquisition = SG_BO_ACQ_UCB;
  exp->surrogate = SG_BO_SURROGATE_SKEWGP;
  exp->budget = 30;
  exp->initial = 2;
  exp->seed = 1;
  exp->threshold = 0.0;
  exp->confidence_level = SB_DEFAULT_CONFIDENCE;
  exp->numeric_every = 4;
  exp->problem = g_strdup ("");
  exp->autoplay_ms = 600;
  exp->question = SB_ASK_DUEL;
  exp->n_options = 2;
  return exp;
}

void
sb_experiment_use_default_acquisition (SbExperiment *exp)
{
  sg_bo_question question = exp->question == SB_ASK_DUEL ? SG_BO_QUESTION_DUEL
                                                         : SG_BO_QUESTION_CHOICE;

  exp->acquisition = sg_bo_default_acquisition ((sg_bo_mode) exp->mode, question,
                                                exp->surrogate, exp->n_parameters);
}

SbExperiment *
sb_experiment_copy (const SbExperiment *exp)
{
  SbExperiment *copy = g_memdup2 (exp, sizeof *exp);

  copy->title = g_strdup (exp->title);
  copy->question_text = g_strdup (exp->question_text);
  copy->problem = g_strdup (exp->problem);
  copy->candidates = sb_candidates_copy (exp->candidates);
  sb_stimulus_copy_into (&copy->stimulus, &exp->stimulus);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      copy->parameters[i].name = g_strdup (exp->parameters[i].name);
      copy->parameters[i].unit = g_strdup (exp->parameters[i].unit);
      copy->parameters[i].levels = g_strdupv (exp->parameters[i].levels);
    }
  return copy;
}

void
sb_experiment_free (SbExperiment *exp)
{
  if (exp == NULL)
    return;
  g_free (exp->title);
  g_free (exp->question_text);
  g_free (exp->problem);
  sb_candidates_free (exp->candidates);
  sb_stimulus_clear (&exp->stimulus);
  for (guint i = 0; i < exp->n_parameters; i++)
    {
      g_free (exp->parameters[i].name);
      g_free (exp->parameters[i].unit);
      g_strfreev (exp->parameters[i].levels);
    }
  g_free (exp);
}

gboolean
sb_experiment_add_parameter (SbExperiment *exp, const char *name, const char *unit,
                             double lower, double upper)
{
  if (exp->n_parameters >= SB_MAX_PARAMETERS || name == NULL || *name == '\0'
      || !isfinite (lower) || !isfinite (upper) || !(lower < upper))
    return FALSE;

  SbParameter *p = &exp->parameters[exp->n_parameters++];
  p->name = g_strdup (name);
  p->unit = g_strdup (unit ? unit : "");
  p->lower = lower;
  p->upper = upper;
  p->resolution = 0;
  p->scale = SB_SCALE_LINEAR;
  p->levels = NULL;
  return TRUE;
}

/* ---- Candidate set and stimulus ------------------------------------------ */

SbCandidates *
sb_candidates_copy (const SbCandidates *c)
{
  if (c == NULL)
    return NULL;
  SbCandidates *copy = g_memdup2 (c, sizeof *c);
  copy->csv = g_strdup (c->csv);
  copy->file_column = g_strdup (c->file_column);
  copy->folder = g_strdup (c->folder);
  copy->base_dir = g_strdup (c->base_dir);
  copy->values = g_memdup2 (c->values, (gsize) c->n * c->dim * sizeof (double));
  copy->files = g_strdupv (c->files);
  return copy;
}

void
sb_candidates_free (SbCandidates *c)
{
  if (c == NULL)
    return;
  g_free (c->csv);
  g_free (c->file_column);
  g_free (c->folder);
  g_free (c->base_dir);
  g_free (c->values);
  g_strfreev (c->files);
  g_free (c);
}

void
sb_stimulus_clear (SbStimulus *stimulus)
{
  g_clear_pointer (&stimulus->command, g_free);
  g_clear_pointer (&stimulus->extension, g_free);
  g_clear_pointer (&stimulus->text, g_free);
  memset (stimulus, 0, sizeof *stimulus);
}

void
sb_stimulus_copy_into (SbStimulus *dest, const SbStimulus *src)
{
  *dest = *src;
  dest->command = g_strdup (src->command);
  dest->extension = g_strdup (src->extension);
  dest->text = g_strdup (src->text);
}
