/* test-consistency.c — one participant's consistency (core/sb-consistency.h)
 * on crafted logs whose counts are known: repeated pairs and their
 * agreement, intransitive triples counted once, removed answers and skips
 * left out, the side-bias count, the binomial tails, the chance flag, and
 * repeats scheduled at their rate through ask/tell. */
#include "sb-ask-tell.h"
#include "sb-consistency.h"
#include "sb-session-history.h"

#include <math.h>
#include <string.h>

static const double P[5] = { 0.1, 0.2, 0.3, 0.4, 0.5 };

static SbSession *
new_session (gboolean ties)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 1.0));
  exp->budget = 40;
  exp->ties_allowed = ties;
  exp->seed = 5;
  return sb_session_new (exp);
}

/* Duel of settings I (a) and J (b) won by W (a setting index), shown in
 * the order SHOWN ("ab", "ba" or NULL). */
static void
duel (SbSession *s, guint i, guint j, guint w, const char *shown)
{
  SbLogEntry e = { .kind = SB_LOG_DUEL, .dim = 1, .a = (double *) &P[i],
                   .b = (double *) &P[j], .winner = w == j };

  g_assert_true (w == i || w == j);
  if (shown)
    {
      e.n_shown = 2;
      e.shown_order[0] = shown[0] == 'b';
      e.shown_order[1] = shown[0] != 'b';
    }
  g_assert_true (sb_session_add_entry (s, &e, NULL));
}

static void
tie (SbSession *s, guint i, guint j)
{
  SbLogEntry e = { .kind = SB_LOG_TIE, .dim = 1, .a = (double *) &P[i], .b = (double *) &P[j] };
  g_assert_true (sb_session_add_entry (s, &e, NULL));
}

static void
test_crafted_counts (void)
{
  g_autoptr (SbSession) s = new_session (TRUE);
  SbConsistency c;

  duel (s, 0, 1, 1, "ab");  /* 1: p1 > p0, a shown first, b won  */
  duel (s, 1, 2, 1, "ab");  /* 2: p1 > p2, first won               */
  duel (s, 2, 0, 2, "ab");  /* 3: p2 > p0, first won               */
  duel (s, 2, 3, 3, NULL);  /* 4: p3 > p2                          */
  duel (s, 3, 1, 3, NULL);  /* 5: p3 > p1                          */
  duel (s, 0, 3, 0, NULL);  /* 6: p0 > p3: cycles 0-1-3 and 0-2-3  */
  duel (s, 1, 0, 1, "ba");  /* 7: repeat of 1, agrees; b first, a won */
  duel (s, 2, 1, 2, NULL);  /* 8: repeat of 2, disagrees: 1-2 balanced */
  duel (s, 0, 1, 0, NULL);  /* 9: repeat of 1 again, disagrees; 0-1 still p1 */
  tie (s, 3, 4);            /* 10: no direction                     */
  duel (s, 4, 1, 1, NULL);  /* 11: p1 > p4                          */
  duel (s, 4, 0, 0, NULL);  /* 12: p0 > p4: 0-1-4 transitive        */
  duel (s, 4, 2, 4, NULL);  /* 13: p4 > p2, removed below: would close 0-2-4 */
  g_assert_true (sb_session_add_skip (s, &P[0], &P[4], NULL));
  g_assert_true (sb_session_remove_entry (s, 12, "test", NULL));

  sb_consistency_of_session (s, &c);
  g_assert_cmpuint (c.n_answers, ==, 12);
  g_assert_cmpuint (c.n_duels, ==, 12);
  g_assert_cmpuint (c.n_repeats, ==, 3);
  g_assert_cmpuint (c.n_agree, ==, 1);
  g_assert_cmpfloat (c.agreement, ==, 1.0 / 3.0);
  /* P(X >= 1 | 3, 1/2) = 7/8 */
  g_assert_cmpfloat_with_epsilon (c.agreement_p, 7.0 / 8.0, 1e-14);
  /* Directed: 0-1, 0-2, 0-3, 1-3, 2-3, 0-4, 1-4; not 1-2 (balanced),
   * 3-4 (tie), 2-4 (removed). Triples: 013 (cycle), 023 (cycle), 014. */
  g_assert_cmpuint (c.n_triples, ==, 3);
  g_assert_cmpuint (c.n_intransitive, ==, 2);
  /* Shown order recorded on 1, 2, 3 and 7: the first shown won 2 and 3. */
  g_assert_cmpuint (c.n_side, ==, 4);
  g_assert_cmpuint (c.n_first_chosen, ==, 2);
  g_assert_cmpfloat (c.side_p, ==, 1.0);
  g_assert_false (c.has_log_bf);
  g_assert_false (c.at_chance);  /* three repeats are too few to tell */

  /* Restoring the removed duel closes the cycle 0 > 4 > 2 > 0. */
  g_assert_true (sb_session_restore_entry (s, 12, "test", NULL));
  sb_consistency_of_session (s, &c);
  g_assert_cmpuint (c.n_triples, ==, 4);
  g_assert_cmpuint (c.n_intransitive, ==, 3);
}

static void
test_binomial (void)
{
  g_assert_cmpfloat_with_epsilon (sb_binomial_upper_tail (5, 5), 1.0 / 32, 1e-15);
  g_assert_cmpfloat_with_epsilon (sb_binomial_upper_tail (3, 6), 42.0 / 64, 1e-14);
  g_assert_cmpfloat (sb_binomial_upper_tail (0, 6), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (sb_binomial_two_sided (0, 10), 2.0 / 1024, 1e-15);
  g_assert_cmpfloat_with_epsilon (sb_binomial_two_sided (8, 10), 2.0 * 56 / 1024, 1e-14);
  g_assert_cmpfloat (sb_binomial_two_sided (5, 10), ==, 1.0);
}

/* Six repeats, three agreeing: a coin does that often, so the flag is up;
 * six agreeing: P = 1/64, not at chance. */
static void
test_chance_by_repeats (void)
{
  for (guint agree = 3; agree <= 6; agree += 3)
    {
      g_autoptr (SbSession) s = new_session (FALSE);
      SbConsistency c;

      for (guint r = 0; r < 6; r++)
        {
          guint i = r % 5, j = (r + 1) % 5 == 0 ? 4 : (r + 1) % 5;
          if (r == 4)
            i = 0, j = 2;
          if (r == 5)
            i = 1, j = 3;
          duel (s, i, j, i, NULL);
          duel (s, j, i, r < agree ? i : j, NULL);
        }
      sb_consistency_of_session (s, &c);
      g_assert_cmpuint (c.n_repeats, ==, 6);
      g_assert_cmpuint (c.n_agree, ==, agree);
      g_assert_cmpint (c.chance_by_repeats, ==, agree == 3);
      g_assert_cmpint (c.at_chance, ==, agree == 3);
    }
}

/* The stored fit's evidence against a coin's likelihood (log 1/2 per duel). */
static void
test_chance_by_evidence (void)
{
  g_autoptr (SbSession) s = new_session (FALSE);
  SbHyper h = { .valid = TRUE, .n_answers = 4, .variance = 1, .lengthscales = { 0.3 },
                .numeric_sd = 1, .probit_sd = 1 };
  SbConsistency c;

  duel (s, 0, 1, 1, NULL);
  duel (s, 1, 2, 2, NULL);
  duel (s, 2, 3, 3, NULL);
  duel (s, 3, 4, 4, NULL);
  h.log_evidence = 4 * -G_LN2 + 0.5;
  g_assert_true (sb_session_set_hyper (s, &h, NULL));
  sb_consistency_of_session (s, &c);
  g_assert_true (c.has_log_bf);
  g_assert_cmpfloat_with_epsilon (c.log_bf, 0.5, 1e-12);
  g_assert_false (c.at_chance);

  h.log_evidence = 4 * -G_LN2 - 0.5;
  g_assert_true (sb_session_set_hyper (s, &h, NULL));
  sb_consistency_of_session (s, &c);
  g_assert_true (c.chance_by_evidence && c.at_chance);

  /* A fit that did not see the current answers says nothing. */
  duel (s, 0, 4, 4, NULL);
  sb_consistency_of_session (s, &c);
  g_assert_false (c.has_log_bf);
  g_assert_false (c.at_chance);
}

static void
test_pick_repeat_rate (void)
{
  g_autoptr (SbSession) s = new_session (FALSE);
  g_autoptr (GPtrArray) log = NULL;
  const SbExperiment *exp = sb_session_get_experiment (s);
  guint entry, hits = 0, picked[4] = { 0 };
  const guint n = 4000;

  duel (s, 0, 1, 1, NULL);
  duel (s, 1, 2, 1, NULL);
  duel (s, 1, 3, 3, NULL);
  duel (s, 3, 4, 3, NULL);
  log = sb_session_dup_observations (s);
  g_assert_false (sb_consistency_pick_repeat (exp, log, 5, 1, 0.0, &entry));
  /* Rate 1: always, and only duels at least SB_REPEAT_MIN_GAP back. */
  for (guint id = 1; id <= 200; id++)
    {
      g_assert_true (sb_consistency_pick_repeat (exp, log, 5, id, 1.0, &entry));
      g_assert_cmpuint (entry, <, 2);
      picked[entry]++;
    }
  g_assert_cmpuint (picked[0], >, 0);
  g_assert_cmpuint (picked[1], >, 0);
  /* Rate 0.3: the fraction within 4 standard errors. */
  for (guint id = 1; id <= n; id++)
    hits += sb_consistency_pick_repeat (exp, log, 5, id, 0.3, &entry);
  g_assert_cmpfloat (fabs (hits / (double) n - 0.3), <, 4 * sqrt (0.3 * 0.7 / n));
  /* The same question id gives the same decision. */
  guint e1, e2;
  gboolean r1 = sb_consistency_pick_repeat (exp, log, 5, 77, 0.5, &e1);
  gboolean r2 = sb_consistency_pick_repeat (exp, log, 5, 77, 0.5, &e2);
  g_assert_cmpint (r1, ==, r2);
  if (r1)
    g_assert_cmpuint (e1, ==, e2);

  /* Once repeated, a pair is not asked a third time, nor is the repeat
   * repeated: of five entries, 1 and 2 are left (3 and 4 are too recent). */
  duel (s, 1, 0, 1, NULL);
  g_ptr_array_unref (g_steal_pointer (&log));
  log = sb_session_dup_observations (s);
  for (guint id = 1; id <= 200; id++)
    {
      g_assert_true (sb_consistency_pick_repeat (exp, log, 5, id, 1.0, &entry));
      g_assert_true (entry == 1 || entry == 2);
    }
}

/* Through ask/tell: repeats come at the rate, each one a past duel with
 * its options swapped and shown on the other sides, and the consistency
 * counts exactly the repeats asked. */
static void
test_ask_tell_repeats (void)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (SbSession) s = NULL;
  guint repeats = 0, engine_repeats = 0;
  SbConsistency c;

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 1.0));
  exp->budget = 16;
  exp->seed = 3;
  s = sb_session_new (exp);
  for (guint t = 0; t < exp->budget; t++)
    {
      g_autoptr (GError) error = NULL;
      const SbQuestion *q = sb_ask_tell_ask_with_repeats (s, 0.4, &error);
      SbAnswer answer = { .kind = SB_ANSWER_CHOSEN };

      g_assert_no_error (error);
      g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);
      for (guint i = 0; i < sb_session_get_n_observations (s); i++)
        {
          const SbLogEntry *e = sb_session_get_observation (s, i);
          /* the engine may propose a pair again itself, in its order */
          if (e->a[0] == q->options[0][0] && e->b[0] == q->options[1][0])
            {
              engine_repeats++;
              break;
            }
          if (e->a[0] == q->options[1][0] && e->b[0] == q->options[0][0])
            {
              repeats++;
              /* the setting shown first before is shown second now */
              g_assert_cmpfloat (sb_log_entry_option (e, e->shown_order[0])[0], ==,
                                 q->options[q->shown_order[1]][0]);
              break;
            }
        }
      answer.question = q->id;
      /* a consistent participant: the larger x wins */
      answer.chosen = q->options[1][0] > q->options[0][0];
      g_assert_true (sb_ask_tell_tell (s, &answer, &error));
    }
  sb_consistency_of_session (s, &c);
  g_test_message ("%u repeats scheduled, %u pairs the engine asked again, of 16", repeats,
                  engine_repeats);
  g_assert_cmpuint (repeats, >, 0);
  g_assert_cmpuint (c.n_repeats, ==, repeats + engine_repeats);
  g_assert_cmpuint (c.n_agree, ==, c.n_repeats);
  g_assert_cmpuint (c.n_intransitive, ==, 0);
  g_assert_cmpuint (sb_session_get_n_answers (s), ==, 16);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/consistency/crafted-counts", test_crafted_counts);
  g_test_add_func ("/consistency/binomial", test_binomial);
  g_test_add_func ("/consistency/chance-by-repeats", test_chance_by_repeats);
  g_test_add_func ("/consistency/chance-by-evidence", test_chance_by_evidence);
  g_test_add_func ("/consistency/pick-repeat-rate", test_pick_repeat_rate);
  g_test_add_func ("/consistency/ask-tell-repeats", test_ask_tell_repeats);
  return g_test_run ();
}
