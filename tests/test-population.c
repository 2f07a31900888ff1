/* test-population.c — the hierarchical model of a study's population
 * (core/sb-population.h): with no individual part it is one GP on the
 * pooled answers; participants who share an optimum with personal
 * offsets give a population recommendation near the shared optimum; a
 * hierarchical study's duel is stored as the pending question and
 * answered; removed answers never reach the model. */
#include "sb-ask-tell.h"
#include "remove-tree.h"
#include "sb-population.h"
#include "sb-session-history.h"

#include "sg-hier.h"
#include "sg-rng.h"
#include "sg-skewgp.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

typedef struct {
  char *root;
  char *dir;
} Fixture;


static void
set_up (Fixture *f, gconstpointer data)
{
  f->root = g_dir_make_tmp ("sb-population-XXXXXX", NULL);
  f->dir = g_build_filename (f->root, "study", NULL);
}

static void
tear_down (Fixture *f, gconstpointer data)
{
  remove_tree (f->root);
  g_free (f->root);
  g_free (f->dir);
}

/* A study of DIM parameters (x in [0, 10], then y in [-1, 1]). */
static SbStudy *
create (Fixture *f, guint dim, SbStudyModel model)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GError) error = NULL;
  SbStudy *study;

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 0.0, 10.0));
  if (dim > 1)
    g_assert_true (sb_experiment_add_parameter (exp, "y", "", -1.0, 1.0));
  exp->budget = 40;
  exp->seed = 5;
  study = sb_study_create_with_model (f->dir, exp, 0.0, model, &error);
  g_assert_no_error (error);
  return study;
}

/* Participant CODE's utility: a bump at x = 6 + OFFSET (and y = 0). */
static double
utility (const double *s, guint dim, double offset)
{
  double u = -(s[0] - 6 - offset) * (s[0] - 6 - offset);
  return dim > 1 ? u - 10 * s[1] * s[1] : u;
}

/* CODE answers N duels between uniform random settings (RAND), noise-free. */
static void
answer_duels (SbStudy *study, const char *code, guint n, double offset, GRand *rand)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SbSession) s = sb_study_open_session (study, code, &error);
  guint dim = sb_study_get_experiment (study)->n_parameters;

  g_assert_no_error (error);
  for (guint k = 0; k < n; k++)
    {
      double a[2], b[2];
      a[0] = g_rand_double_range (rand, 0, 10);
      b[0] = g_rand_double_range (rand, 0, 10);
      a[1] = g_rand_double_range (rand, -1, 1);
      b[1] = g_rand_double_range (rand, -1, 1);
      g_assert_true (sb_session_add_duel (s, a, b,
                                          utility (a, dim, offset) >= utility (b, dim, offset)
                                            ? 0 : 1, &error));
      g_assert_no_error (error);
    }
}

static void
to_unit (const SbExperiment *exp, const double *x, double *u)
{
  for (guint j = 0; j < exp->n_parameters; j++)
    u[j] = (x[j] - exp->parameters[j].lower)
           / (exp->parameters[j].upper - exp->parameters[j].lower);
}

/* With the individual part's variance 0 every f_p is g: the population
 * model is one GP on the pooled answers. The reference is built here from
 * the session files directly: everyone's duels that count in one sg_data
 * (box units), the plain SkewGP posterior with the kernel the population
 * model fitted, the same number of samples from the same seeded stream,
 * summaries at the same candidates. The two posteriors build the same
 * latent Gaussian in different layouts (engine test-hier
 * /hier/pooled-when-no-individual-part: round-off, means and sds within
 * 1e-8 from the same seed), so the recommendation is the same candidate
 * and g's mean and interval there agree to 1e-8 (quantiles select the
 * same sample, perturbed by round-off). Every sample has f_p = g, so no
 * participant's best differs: P = 0 exactly. A removed answer is left
 * out of both (were it in the model, the pooled reference would differ). */
static void
test_pooled (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 2, SB_STUDY_MODEL_HIERARCHICAL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (GError) error = NULL;
  const char *codes[] = { "A", "B" };

  for (guint p = 0; p < 2; p++)
    {
      g_assert_nonnull (sb_study_add_participant (study, codes[p], NULL, &error));
      answer_duels (study, codes[p], 6, p ? 1.0 : -1.0, rand);
    }
  {
    /* A's answer 2 removed by the experimenter */
    g_autoptr (SbSession) s = sb_study_open_session (study, "A", &error);
    g_assert_true (sb_session_remove_entry (s, 1, "test", &error));
    g_assert_no_error (error);
  }

  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &error);
  g_assert_no_error (error);
  input->ind_variance = 0;
  g_assert_cmpuint (sb_population_input_n_answers (input), ==, 11);
  g_autoptr (SbPopulationResult) r = sb_population_compute (input, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->n_answers, ==, 11);
  g_assert_true (r->hyper.fitted);
  g_assert_cmpfloat (r->hyper.ind_variance, ==, 0);

  /* the reference */
  const SbExperiment *exp = input->experiment;
  guint d = exp->n_parameters, c;
  g_autofree double *cand = sb_population_candidates (input, &c);
  g_assert_cmpuint (c, ==, r->n_candidates);
  sg_data pooled;
  sg_data_init (&pooled, d);
  for (guint p = 0; p < input->n_people; p++)
    for (guint i = 0; i < input->logs[p]->len; i++)
      {
        const SbLogEntry *e = g_ptr_array_index (input->logs[p], i);
        double a[2], b[2];
        if (sb_log_entry_is_removed (e))
          continue;
        to_unit (exp, e->a, a);
        to_unit (exp, e->b, b);
        g_assert_cmpint (sg_data_add_duel (&pooled, e->winner == 0 ? a : b,
                                           e->winner == 0 ? b : a, SG_CONFIDENCE_NONE,
                                           SG_SHOWN_NONE, 0), ==, SG_OK);
      }
  g_assert_cmpuint (pooled.n_obs, ==, 11);
  sg_kernel k = { 0 };
  g_assert_cmpint (sg_kernel_init (&k, SG_KERNEL_RBF, d, r->hyper.pop_variance, 1), ==, SG_OK);
  for (guint j = 0; j < d; j++)
    k.lengthscales[j] = r->hyper.pop_lengthscales[j]
                        / (exp->parameters[j].upper - exp->parameters[j].lower);
  sg_noise noise;
  sg_noise_default (&noise);
  noise.probit_sd = M_SQRT1_2;
  noise.numeric_sd = 0.1;
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (&pooled, &noise, &lik), ==, SG_OK);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, &k, 0);
  sg_skewgp_posterior *post = NULL;
  g_assert_cmpint (sg_skewgp_posterior_new (&prior, pooled.X, &lik, &post), ==, SG_OK);
  gsl_rng *rng = sg_rng_new (exp->seed, SB_POPULATION_STREAM_SAMPLE);
  sg_skewgp_samples *samples = NULL;
  g_assert_cmpint (sg_skewgp_sample (post, SB_POPULATION_N_SAMPLES, NULL, rng, NULL, &samples),
                   ==, SG_OK);
  g_autofree double *U = g_new (double, (gsize) c * d);
  g_autofree sg_point_summary *sum = g_new (sg_point_summary, c);
  for (guint i = 0; i < c; i++)
    to_unit (exp, cand + (gsize) i * d, U + (gsize) i * d);
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS | SG_SUMMARY_QUANTILES;
  g_assert_cmpint (sg_skewgp_summarize (post, samples, U, c, &so, NULL, sum), ==, SG_OK);
  guint best = 0;
  for (guint i = 1; i < c; i++)
    if (sum[i].mean > sum[best].mean)
      best = i;
  g_test_message ("population best (%.4f, %.4f) mean %.6g [%.6g, %.6g]; pooled (%.4f, %.4f) "
                  "mean %.6g [%.6g, %.6g]", r->best[0], r->best[1], r->mean, r->lower, r->upper,
                  cand[best * d], cand[best * d + 1], sum[best].mean, sum[best].lower,
                  sum[best].upper);
  for (guint j = 0; j < d; j++)
    g_assert_cmpfloat (r->best[j], ==, cand[best * d + j]);
  g_assert_cmpfloat (fabs (r->mean - sum[best].mean), <=, 1e-8);
  g_assert_cmpfloat (fabs (r->lower - sum[best].lower), <=, 1e-8);
  g_assert_cmpfloat (fabs (r->upper - sum[best].upper), <=, 1e-8);
  for (guint p = 0; p < r->n_people; p++)
    {
      g_assert_cmpfloat (r->people[p].prob_best_differs, ==, 0);
      for (guint j = 0; j < d; j++)
        g_assert_cmpfloat (r->people[p].best[j], ==, r->best[j]);
    }
  /* the same call again: the same numbers */
  g_autoptr (SbPopulationResult) again = sb_population_compute (input, NULL, &error);
  g_assert_cmpfloat (again->mean, ==, r->mean);
  g_assert_cmpfloat (again->hyper.pop_variance, ==, r->hyper.pop_variance);

  sg_skewgp_samples_free (samples);
  sg_rng_free (rng);
  sg_skewgp_posterior_free (post);
  sg_likelihood_clear (&lik);
  sg_data_clear (&pooled);
  sg_kernel_clear (&k);
}

/* Four participants share the optimum x = 6 on [0, 10], each shifted by a
 * personal offset (-1.2, -0.4, 0.4, 1.2: their average utility peaks at
 * 6 exactly), 12 noise-free duels each between random settings (seed 11).
 * The population recommendation is within 1 (a tenth of the box, the
 * tolerance at which two bests count as the same) of 6: the candidates
 * are 1/128 of the box apart, and 48 duels pin a quadratic's peak well
 * inside that margin, while the offsets alone would put one participant's
 * model 1.2 away. Each participant's own best lies on their side of the
 * population's for the two extreme offsets. */
static void
test_shared_optimum (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 1, SB_STUDY_MODEL_HIERARCHICAL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  g_autoptr (GError) error = NULL;
  const char *codes[] = { "P1", "P2", "P3", "P4" };
  const double offsets[] = { -1.2, -0.4, 0.4, 1.2 };

  for (guint p = 0; p < 4; p++)
    {
      g_assert_nonnull (sb_study_add_participant (study, codes[p], NULL, &error));
      answer_duels (study, codes[p], 12, offsets[p], rand);
    }
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &error);
  g_assert_no_error (error);
  g_autoptr (SbPopulationResult) r = sb_population_compute (input, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("population best %.4f, mean %.4g [%.4g, %.4g]; v_pop %.3g l_pop %.3g "
                  "v_ind %.3g l_ind %.3g", r->best[0], r->mean, r->lower, r->upper,
                  r->hyper.pop_variance, r->hyper.pop_lengthscales[0], r->hyper.ind_variance,
                  r->hyper.ind_lengthscales[0]);
  for (guint p = 0; p < 4; p++)
    g_test_message ("%s (offset %+.1f): best %.4f, P(best differs) %.3f +- %.3f", codes[p],
                    offsets[p], r->people[p].best[0], r->people[p].prob_best_differs,
                    r->people[p].se);
  g_assert_cmpfloat (fabs (r->best[0] - 6), <=, 1.0);
  g_assert_true (r->lower < r->mean && r->mean < r->upper);
  g_assert_cmpfloat (r->people[0].best[0], <, r->best[0]);
  g_assert_cmpfloat (r->people[3].best[0], >, r->best[0]);
  for (guint p = 0; p < 4; p++)
    {
      g_assert_true (r->people[p].prob_best_differs >= 0 && r->people[p].prob_best_differs <= 1);
      g_assert_true (r->people[p].se >= 0);
    }
}

/* A log-scale parameter is modelled in log space: participants who like
 * 10 (times a personal factor) on a 1 .. 1000 scale, each answering duels
 * drawn uniformly in log space, give a population best near 10; in linear
 * coordinates 1 .. 50 would be a twentieth of the box and the best a
 * coarse guess among a handful of settings. The hierarchical duel lies in
 * the range. */
static void
test_log_scale (Fixture *f, gconstpointer data)
{
  g_autoptr (SbExperiment) exp = sb_experiment_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  g_autoptr (GError) error = NULL;
  g_autoptr (SbStudy) study = NULL;
  const double factors[] = { 0.7, 1.0, 1.4 };
  const char *codes[] = { "L1", "L2", "L3" };

  g_assert_true (sb_experiment_add_parameter (exp, "x", "", 1.0, 1000.0));
  exp->parameters[0].scale = SB_SCALE_LOG;
  exp->budget = 40;
  exp->seed = 5;
  study = sb_study_create_with_model (f->dir, exp, 0.0, SB_STUDY_MODEL_HIERARCHICAL, &error);
  g_assert_no_error (error);
  for (guint p = 0; p < G_N_ELEMENTS (codes); p++)
    {
      g_autoptr (SbSession) s = NULL;
      double peak = log10 (10 * factors[p]);
      g_assert_nonnull (sb_study_add_participant (study, codes[p], NULL, &error));
      s = sb_study_open_session (study, codes[p], &error);
      g_assert_no_error (error);
      for (guint k = 0; k < 12; k++)
        {
          double a = pow (10, g_rand_double_range (rand, 0, 3));
          double b = pow (10, g_rand_double_range (rand, 0, 3));
          double ua = -fabs (log10 (a) - peak), ub = -fabs (log10 (b) - peak);
          g_assert_true (sb_session_add_duel (s, &a, &b, ua >= ub ? 0 : 1, &error));
        }
    }
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &error);
  g_assert_no_error (error);
  g_autoptr (SbPopulationResult) r = sb_population_compute (input, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("population best %.4g", r->best[0]);
  /* a factor of two either side of 10: a fifth of the log box */
  g_assert_cmpfloat (r->best[0], >=, 5);
  g_assert_cmpfloat (r->best[0], <=, 20);

  g_autoptr (SbSession) s = sb_study_open_session (study, "L2", &error);
  const SbQuestion *q = sb_population_ask (study, "L2", s, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (q);
  for (guint i = 0; i < q->n_options; i++)
    g_assert_true (q->options[i][0] >= 1 && q->options[i][0] <= 1000);
}

/* A hierarchical study, once it has its initial answers, asks a duel from
 * the population model: stored as the pending question (asking again
 * gives it again), inside the box, two different settings, answerable;
 * an answer then counts in the next population model. */
static void
test_ask_hierarchical (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 2, SB_STUDY_MODEL_HIERARCHICAL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (sb_study_add_participant (study, "A", NULL, &error));
  g_assert_nonnull (sb_study_add_participant (study, "B", NULL, &error));
  answer_duels (study, "A", 5, 0, rand);
  g_autoptr (SbSession) s = sb_study_open_session (study, "B", &error);
  const SbQuestion *q = sb_population_ask (study, "B", s, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (q);
  g_assert_cmpint (q->kind, ==, SB_QUESTION_DUEL);
  g_assert_cmpuint (q->n_options, ==, 2);
  g_assert_true (q->options[0][0] != q->options[1][0] || q->options[0][1] != q->options[1][1]);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (q->options[i][0] >= 0 && q->options[i][0] <= 10);
      g_assert_true (q->options[i][1] >= -1 && q->options[i][1] <= 1);
    }
  /* B has no answers: option 0 is the population's best guess, one of
   * A's answered settings */
  {
    g_autoptr (SbSession) a = sb_study_open_session (study, "A", &error);
    gboolean answered = FALSE;
    for (guint i = 0; i < sb_session_get_n_observations (a); i++)
      {
        const SbLogEntry *e = sb_session_get_observation (a, i);
        answered |= memcmp (e->a, q->options[0], 2 * sizeof (double)) == 0
                    || memcmp (e->b, q->options[0], 2 * sizeof (double)) == 0;
      }
    g_assert_true (answered);
  }
  guint64 id = q->id;
  g_autoptr (SbSession) back = sb_study_open_session (study, "B", &error);
  g_assert_nonnull (sb_ask_tell_current (back));
  g_assert_cmpuint (sb_ask_tell_current (back)->id, ==, id);
  SbAnswer answer = { .question = id, .kind = SB_ANSWER_CHOSEN, .chosen = 1 };
  g_assert_true (sb_ask_tell_tell (s, &answer, &error));
  g_assert_no_error (error);
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &error);
  g_assert_cmpuint (sb_population_input_n_answers (input), ==, 6);
}

/* The population plot of three participants with offset optima (2
 * parameters, so each curve holds the other parameter at the population
 * best): every curve has the points asked for, in the parameter's range
 * and increasing; g's 95% band contains its mean (equal-tailed quantiles
 * of the samples around their Rao-Blackwellised mean, the sd of these
 * answers is far above the quantiles' and mean's Monte Carlo error); every
 * included participant has a finite line. The curve along x peaks near
 * the population best. Those with offsets -1.5 and +1.5 have lines that
 * differ from g's (the fitted individual variance is at least its lower
 * bound 0.01: the person lines are not a copy of g's). With no individual
 * part (k_ind variance 0, left at 0 by the fit) every f_p is g: the
 * kernel rows of f_p(x) and g(x) are the same (k_pop + [same person] 0),
 * so their Rao-Blackwellised means are the same linear function of the
 * same t samples (sg_skewgp_summarize), and the two summary paths (g's
 * from the full samples, f_p's from the moments of t) agree to round-off:
 * 1e-9 of g's posterior sd. */
static void
check_curves (const SbPopulationResult *r, const SbExperiment *exp)
{
  g_assert_nonnull (r->plot);
  g_assert_cmpuint (r->plot->dim, ==, exp->n_parameters);
  g_assert_cmpuint (r->plot->n_people, ==, r->n_people);
  for (guint j = 0; j < r->plot->dim; j++)
    {
      const SbPopulationCurve *c = &r->plot->curves[j];
      g_assert_cmpuint (c->n, ==, SB_POPULATION_PLOT_POINTS);
      g_assert_cmpfloat (c->x[0], ==, exp->parameters[j].lower);
      g_assert_cmpfloat (c->x[c->n - 1], ==, exp->parameters[j].upper);
      for (guint i = 0; i < c->n; i++)
        {
          g_assert_true (i == 0 || c->x[i] > c->x[i - 1]);
          g_assert_true (isfinite (c->g[i].mean) && c->g[i].sd > 0);
          g_assert_cmpfloat (c->g[i].lower, <, c->g[i].mean);
          g_assert_cmpfloat (c->g[i].mean, <, c->g[i].upper);
          for (guint p = 0; p < r->n_people; p++)
            g_assert_true (isfinite (c->person_mean[(gsize) p * c->n + i]));
        }
    }
}

static double
max_person_gap (const SbPopulationCurve *c, guint p, double *sd_min)
{
  double gap = 0;

  *sd_min = INFINITY;
  for (guint i = 0; i < c->n; i++)
    {
      gap = MAX (gap, fabs (c->person_mean[(gsize) p * c->n + i] - c->g[i].mean));
      *sd_min = MIN (*sd_min, c->g[i].sd);
    }
  return gap;
}

static void
test_plot (Fixture *f, gconstpointer data)
{
  g_autoptr (SbStudy) study = create (f, 2, SB_STUDY_MODEL_HIERARCHICAL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (13);
  g_autoptr (GError) error = NULL;
  const char *codes[] = { "P1", "P2", "P3" };
  const double offsets[] = { -1.5, 0, 1.5 };

  for (guint p = 0; p < 3; p++)
    {
      g_assert_nonnull (sb_study_add_participant (study, codes[p], NULL, &error));
      answer_duels (study, codes[p], 12, offsets[p], rand);
    }
  g_autoptr (SbPopulationInput) input = sb_population_input_new (study, &error);
  g_assert_no_error (error);
  input->n_plot = SB_POPULATION_PLOT_POINTS;
  g_autoptr (SbPopulationResult) r = sb_population_compute (input, NULL, &error);
  g_assert_no_error (error);
  check_curves (r, input->experiment);
  {
    const SbPopulationCurve *c = &r->plot->curves[0];
    guint top = 0;
    double sd;
    for (guint i = 1; i < c->n; i++)
      if (c->g[i].mean > c->g[top].mean)
        top = i;
    g_test_message ("g's curve along x peaks at %.3f (best %.3f); v_ind %.3g", c->x[top],
                    r->best[0], r->hyper.ind_variance);
    g_assert_cmpfloat (fabs (c->x[top] - r->best[0]), <=, 0.5);
    for (guint p = 0; p < 3; p += 2)
      {
        double gap = max_person_gap (c, p, &sd);
        g_test_message ("%s: largest |f_p - g| %.3g (g's smallest sd %.3g)", codes[p], gap, sd);
        g_assert_cmpfloat (gap, >, 0.01 * sd);
      }
  }
  /* no plot unless asked for */
  input->n_plot = 0;
  {
    g_autoptr (SbPopulationResult) none = sb_population_compute (input, NULL, &error);
    g_assert_no_error (error);
    g_assert_null (none->plot);
  }
  /* no individual part: every person's line is g's */
  input->n_plot = SB_POPULATION_PLOT_POINTS;
  input->ind_variance = 0;
  {
    g_autoptr (SbPopulationResult) pooled = sb_population_compute (input, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (pooled->hyper.ind_variance, ==, 0);
    check_curves (pooled, input->experiment);
    for (guint j = 0; j < 2; j++)
      for (guint p = 0; p < 3; p++)
        {
          double sd, gap = max_person_gap (&pooled->plot->curves[j], p, &sd);
          g_test_message ("pooled, axis %u, person %u: largest |f_p - g| %.3g, g's sd %.3g",
                          j, p, gap, sd);
          g_assert_cmpfloat (gap, <=, 1e-9 * sd);
        }
    /* a copy is deep */
    g_autoptr (SbPopulationResult) copy = sb_population_result_copy (pooled);
    g_assert_true (copy->plot != pooled->plot);
    g_assert_cmpmem (copy->plot->curves[1].person_mean, 3 * SB_POPULATION_PLOT_POINTS * sizeof (double),
                     pooled->plot->curves[1].person_mean, 3 * SB_POPULATION_PLOT_POINTS * sizeof (double));
    g_assert_cmpstr (copy->people[2].code, ==, "P3");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/population/pooled-when-no-individual-part", Fixture, NULL, set_up, test_pooled,
              tear_down);
  g_test_add ("/population/shared-optimum", Fixture, NULL, set_up, test_shared_optimum,
              tear_down);
  g_test_add ("/population/plot", Fixture, NULL, set_up, test_plot, tear_down);
  g_test_add ("/population/log-scale", Fixture, NULL, set_up, test_log_scale, tear_down);
  g_test_add ("/population/ask-hierarchical", Fixture, NULL, set_up, test_ask_hierarchical,
              tear_down);
  return g_test_run ();
}
