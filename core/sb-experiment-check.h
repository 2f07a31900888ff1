/* sb-experiment-check.h — the rules an experiment follows.
 *
 * One set of rules for what a session may hold, applied when a file is
 * loaded, when an experiment is created or changed, before every save and
 * before the engine runs it: so that what loads also saves and reloads,
 * and what the engine would refuse (sg_bo_config_check) is refused first,
 * with the field named. The checks that tie two parts of an experiment
 * together (the candidate set and the stimulus that shows its files, the
 * safe start and the candidates) live here too.
 */
#pragma once

#include "sb-experiment.h"

G_BEGIN_DECLS

/* TRUE when the experiment can run and be saved; otherwise ERROR (in
 * SB_SESSION_ERROR_INVALID) names the field and says what is wrong: every
 * number finite, each parameter's range non-empty, counts within the
 * limits a session file allows, the surrogate fitting the mode. */
gboolean sb_experiment_validate (const SbExperiment *exp, GError **error);
/* TRUE when duels of MODE with SURROGATE can be chosen by ACQ (part of
 * sb_experiment_validate): hb-ei, hb-ucb, dts and qeubo ask
 * preference-mode duels only (the engine's rules), and the hallucination believer
 * (hb-*) needs the exact SkewGP's samples. Choices and rankings are
 * always chosen by qEUBO, whatever ACQ says. Otherwise ERROR says why. */
gboolean sb_acquisition_fits (SbMode mode, sg_bo_surrogate surrogate, sg_bo_acquisition acq,
                              GError **error);
/* TRUE when a hierarchical study's population model can ask EXP's duels,
 * whatever their rule: preference-mode duels with the exact SkewGP, no
 * candidate set, no integer or categorical parameter (the population's
 * proposals are not rounded to whole numbers). sb_population_can_propose
 * adds the duel rules it asks by. */
gboolean sb_experiment_population_fits (const SbExperiment *exp);
/* TRUE when a NEW experiment in safe mode can keep safe mode's promise
 * (TRUE outside safe mode): it starts from a setting known to be safe
 * (its 'safe_start', or its benchmark problem's), because the safe set
 * grows only from settings measured safe and a random first setting may
 * not be; and its surrogate is not 'random' (random settings are not
 * known to be safe). Sessions saved without a safe start still load
 * (sb_experiment_validate); this is the rule for creating one. Otherwise
 * ERROR names the field. */
gboolean sb_experiment_check_safe_new (const SbExperiment *exp, GError **error);

G_END_DECLS
