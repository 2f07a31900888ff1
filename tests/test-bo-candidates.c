/* test-bo-candidates.c — the BO loops over a finite candidate set
 * (sg-bo.h, "Candidate sets"): every option of every question is a
 * candidate row, answers elsewhere are refused, questions are not
 * repeated while others are left, and a seeded loop finds the best
 * candidate of a simulated utility. */
#include "sg-bo.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define N_CAND 60
#define DIM 2

/* A fixed, irregular 2-D candidate set in [0, 1]^2 (a seeded uniform
 * sample, as the feature values of a folder of stimuli would be). */
static void
make_candidates (double *cand)
{
  gsl_rng *rng = sg_rng_new (7, 0);
  for (size_t i = 0; i < N_CAND * DIM; i++)
    cand[i] = gsl_rng_uniform (rng);
  sg_rng_free (rng);
}

/* The simulated person's utility: one smooth bump at (0.7, 0.3). */
static double
utility (const double *x)
{
  double dx = x[0] - 0.7, dy = x[1] - 0.3;
  return exp (-(dx * dx + dy * dy) / 0.1);
}

static size_t
best_candidate (const double *cand)
{
  size_t best = 0;
  for (size_t i = 1; i < N_CAND; i++)
    if (utility (cand + i * DIM) > utility (cand + best * DIM))
      best = i;
  return best;
}

static size_t
row_of (const double *cand, const double *x)
{
  for (size_t i = 0; i < N_CAND; i++)
    if (memcmp (cand + i * DIM, x, DIM * sizeof *x) == 0)
      return i;
  return SIZE_MAX;
}

static void
config_for (sg_bo_config *c, const double *cand, sg_bo_mode mode)
{
  double lo[DIM] = { 0, 0 }, up[DIM] = { 1, 1 };
  g_assert_cmpint (sg_bo_config_default (c, DIM, lo, up), ==, SG_OK);
  c->mode = mode;
  c->n_initial = 3;
  c->n_samples = 200;
  c->sampling.tmvn.burn_in = 100;
  c->refit_until = 0;
  c->refit_every = 0;
  c->n_candidates = N_CAND;
  c->candidates = cand;
}

/* Answers Q for the simulated person (exact preferences, values equal to
 * the utility; in safe mode a utility below 0.2 fails). */
static void
answer (sg_bo *bo, const sg_bo_query *q)
{
  size_t k = q->n_options, best = 0;
  double opts[SG_BO_MAX_OPTIONS * DIM];
  for (size_t i = 0; i < k; i++)
    {
      memcpy (opts + i * DIM, q->options[i], sizeof (double) * DIM);
      if (utility (q->options[i]) > utility (q->options[best]))
        best = i;
    }
  int status;
  if (q->kind == SG_BO_QUERY_VALUE)
    status = sg_bo_get_config (bo)->mode == SG_BO_SAFE && utility (q->x) < 0.2
               ? sg_bo_answer_invalid (bo, q->x)
               : sg_bo_answer_value (bo, q->x, utility (q->x));
  else if (q->kind == SG_BO_QUERY_LABEL)
    status = sg_bo_answer_label (bo, q->x, q->x[0] > 0.5 ? 1 : -1);
  else if (q->kind == SG_BO_QUERY_CHOICE)
    status = sg_bo_answer_choice (bo, opts, k, best, SG_CONFIDENCE_NONE, SG_SHOWN_NONE);
  else
    status = sg_bo_answer_duel (bo, q->x, q->x_ref, best == 0);
  g_assert_cmpint (status, ==, SG_OK);
}

/* Runs N questions of a loop configured by C, checking that every option
 * is a candidate row and the options of a question are distinct, and that
 * no duel (set of options, measured setting) is asked twice: there are
 * far more candidates than questions, so a repeat is never needed. */
static sg_bo *
run_checked (const sg_bo_config *c, const double *cand, size_t n)
{
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (c, &bo), ==, SG_OK);
  GHashTable *asked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (size_t t = 0; t < n; t++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      size_t rows[SG_BO_MAX_OPTIONS];
      g_assert_cmpuint (row_of (cand, q.x), !=, SIZE_MAX);
      if (q.safe_exhausted)
        break;  /* safe mode: no new row is safe enough (x is x_r) */
      for (size_t i = 0; i < q.n_options; i++)
        {
          rows[i] = row_of (cand, q.options[i]);
          g_assert_cmpuint (rows[i], !=, SIZE_MAX);
          for (size_t j = 0; j < i; j++)
            g_assert_cmpuint (rows[i], !=, rows[j]);
        }
      /* the question as a sorted list of rows (and its kind) */
      for (size_t i = 1; i < q.n_options; i++)
        for (size_t j = i; j > 0 && rows[j - 1] > rows[j]; j--)
          {
            size_t swap = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = swap;
          }
      GString *key = g_string_new (q.kind == SG_BO_QUERY_VALUE ? "v" : "q");
      for (size_t i = 0; i < q.n_options; i++)
        g_string_append_printf (key, " %zu", rows[i]);
      g_assert_false (g_hash_table_contains (asked, key->str));
      g_hash_table_add (asked, g_string_free (key, FALSE));
      answer (bo, &q);
    }
  g_hash_table_destroy (asked);
  return bo;
}

static void
test_config_and_answers (void)
{
  double cand[N_CAND * DIM];
  make_candidates (cand);
  sg_bo_config c = { 0 };
  config_for (&c, cand, SG_BO_PREFERENCE);
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);

  /* a row outside the box, too few rows for the question, no rows */
  sg_bo_config bad = c;
  bad.upper[0] = 0.5;
  g_assert_cmpint (sg_bo_config_check (&bad), ==, SG_EINVAL);
  bad = c;
  bad.n_candidates = 1;
  g_assert_cmpint (sg_bo_config_check (&bad), ==, SG_EINVAL);
  bad = c;
  bad.candidates = NULL;
  g_assert_cmpint (sg_bo_config_check (&bad), ==, SG_EINVAL);
  /* two rows that are the same setting */
  double dup[N_CAND * DIM];
  memcpy (dup, cand, sizeof dup);
  dup[5 * DIM] = cand[2 * DIM] + 1e-12;
  dup[5 * DIM + 1] = cand[2 * DIM + 1];
  bad = c;
  bad.candidates = dup;
  sg_bo *bo = NULL;
  g_assert_cmpint (sg_bo_new (&bad, &bo), ==, SG_EINVAL);
  g_assert_null (bo);
  /* a safe start must be a candidate */
  config_for (&bad, cand, SG_BO_SAFE);
  bad.has_safe_start = 1;
  bad.safe_start[0] = bad.safe_start[1] = 0.5;
  g_assert_cmpint (sg_bo_config_check (&bad), ==, SG_EINVAL);
  memcpy (bad.safe_start, cand + 3 * DIM, sizeof (double) * DIM);
  g_assert_cmpint (sg_bo_config_check (&bad), ==, SG_OK);
  sg_bo_config_clear (&bad);

  /* sg_bo_new copies the set */
  double mine[N_CAND * DIM];
  memcpy (mine, cand, sizeof mine);
  c.candidates = mine;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  memset (mine, 0, sizeof mine);
  g_assert_true (sg_bo_get_config (bo)->candidates != mine);
  g_assert_cmpmem (sg_bo_get_config (bo)->candidates, sizeof cand, cand, sizeof cand);

  /* answers at candidates (to 1e-9 box widths) are recorded as the rows;
   * any other setting is refused and changes nothing */
  double near[DIM] = { cand[0] + 1e-11, cand[1] };
  double off[DIM] = { 0.5, 0.5 };
  g_assert_cmpint (sg_bo_answer_duel (bo, off, cand + DIM, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_tie (bo, cand, off), ==, SG_EINVAL);
  double choice[3 * DIM];
  memcpy (choice, cand, sizeof (double) * 2 * DIM);
  memcpy (choice + 2 * DIM, off, sizeof off);
  g_assert_cmpint (sg_bo_answer_choice (bo, choice, 3, 0, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_ranking (bo, choice, 3), ==, SG_EINVAL);
  g_assert_cmpuint (sg_bo_n_answers (bo), ==, 0);
  g_assert_cmpint (sg_bo_answer_duel (bo, near, cand + DIM, 1), ==, SG_OK);
  double best[DIM];
  g_assert_true (sg_bo_best (bo, best));
  g_assert_cmpmem (best, sizeof best, cand, sizeof best);
  g_assert_cmpmem (sg_bo_data (bo)->X, sizeof best, cand, sizeof best);
  g_assert_cmpint (sg_bo_answer_ranking (bo, cand, 3), ==, SG_OK);
  sg_bo_free (bo);

  /* value, failure and label answers too */
  sg_bo_config_clear (&c);
  config_for (&c, cand, SG_BO_SAFE);
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_value (bo, off, 1.0), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_invalid (bo, off), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_invalid (bo, cand), ==, SG_OK);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
  config_for (&c, cand, SG_BO_ACTIVE);
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_label (bo, off, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_answer_label (bo, cand, 1), ==, SG_OK);
  sg_bo_free (bo);

  size_t index;
  g_assert_cmpint (sg_bo_candidate_index (cand, N_CAND, DIM, c.lower, c.upper, cand + 7 * DIM, &index), ==, SG_OK);
  g_assert_cmpuint (index, ==, 7);
  g_assert_cmpint (sg_bo_candidate_index (cand, N_CAND, DIM, c.lower, c.upper, off, &index), ==, SG_EINVAL);
  sg_bo_config_clear (&c);
}

/* Every kind of question, initial design and model proposals alike,
 * shows candidates only and never repeats a question. */
static void
test_proposals_are_candidates (void)
{
  double cand[N_CAND * DIM];
  make_candidates (cand);
  struct { sg_bo_mode mode; sg_bo_acquisition acq; sg_bo_question question; size_t k; } runs[] = {
    { SG_BO_PREFERENCE, SG_BO_ACQ_UCB, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_PREFERENCE, SG_BO_ACQ_EIIG, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_PREFERENCE, SG_BO_ACQ_HB_UCB, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_PREFERENCE, SG_BO_ACQ_QEUBO, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_PREFERENCE, SG_BO_ACQ_QEUBO, SG_BO_QUESTION_CHOICE, 3 },
    { SG_BO_MIXED, SG_BO_ACQ_UCB, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_SAFE, SG_BO_ACQ_UCB, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_ACTIVE, SG_BO_ACQ_UCB, SG_BO_QUESTION_DUEL, 2 },
  };
  for (size_t r = 0; r < G_N_ELEMENTS (runs); r++)
    {
      sg_bo_config c = { 0 };
      config_for (&c, cand, runs[r].mode);
      c.acquisition = runs[r].acq;
      c.question = runs[r].question;
      c.n_options = runs[r].k;
      c.n_initial = 2;
      c.n_samples = 64;
      c.mixed_every = 2;
      if (runs[r].mode == SG_BO_SAFE)
        {
          c.has_safe_start = 1;
          memcpy (c.safe_start, cand + best_candidate (cand) * DIM, sizeof (double) * DIM);
        }
      g_test_message ("run %zu: %s %s", r, sg_bo_mode_name (c.mode),
                      sg_bo_acquisition_name (c.acquisition));
      sg_bo *bo = run_checked (&c, cand, 10);
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
}

/* When every candidate has been met, repeats are allowed again rather
 * than failing: 3 candidates, 6 duels. */
static void
test_small_set_repeats (void)
{
  double cand[3 * DIM] = { 0.1, 0.1, 0.5, 0.5, 0.9, 0.2 };
  sg_bo_config c = { 0 };
  config_for (&c, cand, SG_BO_PREFERENCE);
  c.n_candidates = 3;
  c.n_initial = 1;
  c.n_samples = 64;
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  for (size_t t = 0; t < 6; t++)
    {
      gsl_rng *rng = sg_bo_rng (bo);
      sg_bo_query q;
      g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpint (memcmp (q.x, q.x_ref, sizeof q.x), !=, 0);
      size_t a = SIZE_MAX, b = SIZE_MAX;
      for (size_t i = 0; i < 3; i++)
        {
          if (memcmp (cand + i * DIM, q.x, sizeof (double) * DIM) == 0)
            a = i;
          if (memcmp (cand + i * DIM, q.x_ref, sizeof (double) * DIM) == 0)
            b = i;
        }
      g_assert_cmpuint (a, <, 3);
      g_assert_cmpuint (b, <, 3);
      answer (bo, &q);
    }
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* A seeded preference loop of 20 questions over 60 candidates ends with
 * the best candidate as x_r (a person answering exactly), having shown
 * fewer than half of the candidates: it found the best one by the model,
 * not by going through the set. */
static void
test_finds_best_candidate (void)
{
  double cand[N_CAND * DIM];
  make_candidates (cand);
  size_t want = best_candidate (cand);
  struct { sg_bo_acquisition acq; sg_bo_question question; size_t k; } runs[] = {
    { SG_BO_ACQ_UCB, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_ACQ_HB_UCB, SG_BO_QUESTION_DUEL, 2 },
    { SG_BO_ACQ_QEUBO, SG_BO_QUESTION_CHOICE, 3 },
  };
  for (size_t r = 0; r < G_N_ELEMENTS (runs); r++)
    {
      sg_bo_config c = { 0 };
      config_for (&c, cand, SG_BO_PREFERENCE);
      c.acquisition = runs[r].acq;
      c.question = runs[r].question;
      c.n_options = runs[r].k;
      c.seed = 11;
      sg_bo *bo = run_checked (&c, cand, 20);
      double best[DIM];
      g_assert_true (sg_bo_best (bo, best));
      g_test_message ("%s: x_r is candidate %zu (u %g), the best is %zu (u %g); %zu shown",
                      sg_bo_acquisition_name (c.acquisition), row_of (cand, best),
                      utility (best), want, utility (cand + want * DIM),
                      sg_bo_data (bo)->n_inputs);
      g_assert_cmpuint (row_of (cand, best), ==, want);
      g_assert_cmpuint (sg_bo_data (bo)->n_inputs, <, N_CAND / 2);
      sg_bo_free (bo);
      sg_bo_config_clear (&c);
    }
}

/* Candidate sets with kinds: coordinate 0 periodic on [0, 1] (1 is 0),
 * coordinate 1 an integer 0 .. 5. The rows are the settings as they are:
 * a safe start at the periodic upper bound is asked as 1, not wrapped to
 * 0 (which is no row), and every option of a seeded loop is a row
 * exactly; a row at 2.5 of the integer coordinate is refused. */
static void
test_candidates_with_kinds (void)
{
  enum { N = 25 };
  double cand[N * DIM];
  size_t n = 0;
  for (int y = 0; y <= 5; y++)
    for (int i = 0; i < 4; i++)
      {
        cand[n * DIM] = 0.125 + 0.25 * i;
        cand[n++ * DIM + 1] = y;
      }
  cand[n * DIM] = 1.0;
  cand[n++ * DIM + 1] = 2;
  g_assert_cmpuint (n, ==, N);

  for (int mode = 0; mode < 2; mode++)
    {
      sg_bo_config c = { 0 };
      config_for (&c, cand, mode ? SG_BO_SAFE : SG_BO_PREFERENCE);
      c.n_candidates = N;
      g_assert_cmpint (sg_bo_config_set_kind (&c, 0, SG_DIM_PERIODIC), ==, SG_OK);
      g_assert_cmpint (sg_bo_config_set_kind (&c, 1, SG_DIM_INTEGER), ==, SG_OK);
      c.upper[1] = 5;
      c.n_samples = 64;
      c.seed = 5;
      if (mode)
        {
          c.has_safe_start = 1;
          c.safe_start[0] = 1.0;
          c.safe_start[1] = 2;
        }
      sg_bo *bo;
      g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
      for (size_t t = 0; t < 8; t++)
        {
          gsl_rng *rng = sg_bo_rng (bo);
          sg_bo_query q;
          g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
          sg_rng_free (rng);
          if (mode && t == 0)
            {
              g_assert_cmpfloat (q.x[0], ==, 1.0);
              g_assert_cmpfloat (q.x[1], ==, 2);
            }
          for (size_t i = 0; i < q.n_options; i++)
            {
              size_t r = 0;
              while (r < N && memcmp (cand + r * DIM, q.options[i], sizeof (double) * DIM) != 0)
                r++;
              g_assert_cmpuint (r, <, N);
            }
          answer (bo, &q);
        }
      sg_bo_free (bo);

      /* a row between two whole numbers of the integer coordinate */
      double bad[N * DIM];
      memcpy (bad, cand, sizeof bad);
      bad[3 * DIM + 1] = 2.5;
      c.candidates = bad;
      g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
      sg_bo_config_clear (&c);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bo-candidates/config-and-answers", test_config_and_answers);
  g_test_add_func ("/bo-candidates/proposals-are-candidates", test_proposals_are_candidates);
  g_test_add_func ("/bo-candidates/small-set-repeats", test_small_set_repeats);
  g_test_add_func ("/bo-candidates/finds-best", test_finds_best_candidate);
  g_test_add_func ("/bo-candidates/with-kinds", test_candidates_with_kinds);
  return g_test_run ();
}
