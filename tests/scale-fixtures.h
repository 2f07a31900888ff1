/* scale-fixtures.h — long sessions and large studies written straight to
 * their files through core, for the tests and the benchmark of questions
 * at scale (test-cli-scale, bench-scale-cli): a person answering duels
 * between random settings of two parameters (x in [0, 10], y in [-1, 1])
 * by a utility with a bump at x = 6 + offset, y = 0, with probit noise.
 * Header-only, as the other fixtures. */
#pragma once

#include "sb-session.h"
#include "sb-study.h"

#include <gio/gio.h>
#include <math.h>

/* The experiment: BUDGET answers, seed 11, the default duel rule (a
 * session asks by hb-ucb, a hierarchical study by ucb). */
static inline SbExperiment *
scale_experiment (guint budget)
{
  SbExperiment *exp = sb_experiment_new ();

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 10.0));
  g_assert_true (sb_experiment_add_parameter (exp, "y", "", -1.0, 1.0));
  exp->budget = budget;
  exp->seed = 11;
  sb_experiment_use_default_acquisition (exp);
  return exp;
}

static inline double
scale_utility (const double *s, double offset)
{
  return -0.3 * (s[0] - 6 - offset) * (s[0] - 6 - offset) - 3 * s[1] * s[1];
}

/* N answered duels into SESSION (in memory: it is saved once by the
 * caller), drawn from RAND, the utility shifted by OFFSET. */
static inline void
scale_answer_duels (SbSession *session, guint n, double offset, GRand *rand)
{
  for (guint k = 0; k < n; k++)
    {
      double a[2], b[2], noise;
      GError *error = NULL;
      a[0] = g_rand_double_range (rand, 0, 10);
      b[0] = g_rand_double_range (rand, 0, 10);
      a[1] = g_rand_double_range (rand, -1, 1);
      b[1] = g_rand_double_range (rand, -1, 1);
      /* Box-Muller: the answer's probit noise, sd 1 */
      noise = sqrt (-2 * log (1 - g_rand_double (rand))) * cos (2 * G_PI * g_rand_double (rand));
      g_assert_true (sb_session_add_duel (session, a, b,
                                          scale_utility (a, offset) - scale_utility (b, offset)
                                            + noise >= 0 ? 0 : 1, &error));
      g_assert_no_error (error);
    }
}

/* A session of N_ANSWERS answered duels written to PATH (its budget 50
 * more). */
static inline void
scale_session_write (const char *path, guint n_answers, guint32 seed)
{
  g_autoptr (SbExperiment) exp = scale_experiment (n_answers + 50);
  g_autoptr (SbSession) session = sb_session_new (exp);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GError) error = NULL;

  scale_answer_duels (session, n_answers, 0, rand);
  g_assert_true (sb_session_save_as (session, file, &error));
  g_assert_no_error (error);
}

/* A hierarchical study in DIR of N_PEOPLE participants ("P1", "P2", ...)
 * who answered N_ANSWERS duels each (budget 50 more), each with an
 * offset of their own in [-1, 1]. */
static inline void
scale_study_write (const char *dir, guint n_people, guint n_answers, guint32 seed)
{
  g_autoptr (SbExperiment) exp = scale_experiment (n_answers + 50);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) study = sb_study_create_with_model (dir, exp, 0.0,
                                                          SB_STUDY_MODEL_HIERARCHICAL, &error);

  g_assert_no_error (error);
  for (guint p = 1; p <= n_people; p++)
    {
      g_autofree char *code = g_strdup_printf ("P%u", p);
      g_autofree char *path = NULL;
      g_autoptr (SbSession) session = sb_session_new (exp);
      g_autoptr (GFile) file = NULL;

      g_assert_nonnull (sb_study_add_participant (study, code, NULL, &error));
      g_assert_no_error (error);
      scale_answer_duels (session, n_answers, g_rand_double_range (rand, -1, 1), rand);
      path = sb_study_participant_path (study, code);
      file = g_file_new_for_path (path);
      g_assert_true (sb_session_save_as (session, file, &error));
      g_assert_no_error (error);
    }
}
