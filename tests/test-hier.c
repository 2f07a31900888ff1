/* test-hier.c — the hierarchical model of several participants
 * (engine/sg-hier.h).
 *
 * 1. k_ind = 0: the model is one GP on the pooled answers (latent
 *    Gaussian, evidence, posterior of g and of each f_p).
 * 2. k_pop = 0: independent models (block-diagonal latent covariance,
 *    evidence = sum of the people's, predictions equal), with per-person
 *    noise.
 * 3. P(best differs), fitting, proposals, bad input.
 */
#include "sg-ep.h"
#include "sg-hier.h"
#include "sg-laplace.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define D 2
#define P 2
#define N_DUELS 5

/* Person p's N_DUELS duels in [0,1]^2; the first three settings of both
 * people coincide (distinct inputs of the hierarchical data, one input
 * of the pooled data). */
static void
duel_of (size_t p, size_t k, double *w, double *l)
{
  static const double pts[8][D] = {
    { 0.1, 0.2 }, { 0.8, 0.3 }, { 0.5, 0.9 }, { 0.3, 0.6 },
    { 0.9, 0.8 }, { 0.2, 0.95 }, { 0.65, 0.1 }, { 0.45, 0.45 },
  };
  size_t a = k < 3 ? k : 3 + (2 * k + p) % 5, b = (k + 1 + p) % 3;
  if (a == b)
    b = (b + 1) % 3;
  memcpy (w, pts[a], sizeof pts[a]);
  memcpy (l, pts[b], sizeof pts[b]);
}

static void
fill (sg_hier_data *hd, sg_data pooled[], size_t n_pooled)
{
  g_assert_cmpint (sg_hier_data_init (hd, D, P), ==, SG_OK);
  for (size_t i = 0; i < n_pooled; i++)
    sg_data_init (&pooled[i], D);
  for (size_t p = 0; p < P; p++)
    for (size_t k = 0; k < N_DUELS; k++)
      {
        double w[D], l[D];
        duel_of (p, k, w, l);
        g_assert_cmpint (sg_hier_add_preference (hd, p, w, l), ==, SG_OK);
        /* pooled[0]: everyone's answers in one data set; pooled[1 + p]:
         * person p's alone */
        if (n_pooled == 1)
          g_assert_cmpint (sg_data_add_preference (&pooled[0], w, l), ==, SG_OK);
        else
          g_assert_cmpint (sg_data_add_preference (&pooled[p], w, l), ==, SG_OK);
      }
}

static const double test_x[3 * D] = { 0.15, 0.25, 0.6, 0.7, 0.4, 0.05 };

/* Mean and sd of f at the 3 test points (plain points of the posterior's
 * own layout in XS) from N samples drawn with SEED. */
static void
moments (const sg_skewgp_posterior *post, const double *XS, size_t N,
         unsigned long seed, double *mean, double *sd, double *ess)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  sg_skewgp_samples *s = NULL;
  g_assert_cmpint (sg_skewgp_sample (post, N, NULL, rng, NULL, &s), ==, SG_OK);
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS;
  sg_point_summary sum[3];
  g_assert_cmpint (sg_skewgp_summarize (post, s, XS, 3, &so, NULL, sum), ==, SG_OK);
  for (size_t i = 0; i < 3; i++)
    {
      mean[i] = sum[i].mean;
      sd[i] = sum[i].sd;
    }
  if (ess)
    g_assert_cmpint (sg_skewgp_samples_ess (s, ess), ==, SG_OK);
  sg_skewgp_samples_free (s);
  sg_rng_free (rng);
}

static sg_skewgp_posterior *
plain_posterior (const sg_kernel *k, const sg_data *data, double probit_sd)
{
  sg_noise noise;
  sg_noise_default (&noise);
  noise.probit_sd = probit_sd;
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (data, &noise, &lik), ==, SG_OK);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, k, 0);
  sg_skewgp_posterior *post = NULL;
  g_assert_cmpint (sg_skewgp_posterior_new (&prior, data->X, &lik, &post), ==, SG_OK);
  sg_likelihood_clear (&lik);
  return post;
}

static double
max_abs_diff (const double *a, const double *b, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax (m, fabs (a[i] - b[i]));
  return m;
}

static double
plain_log_evidence (const sg_kernel *k, const sg_data *data, double probit_sd)
{
  sg_noise noise;
  sg_noise_default (&noise);
  noise.probit_sd = probit_sd;
  sg_likelihood lik;
  g_assert_cmpint (sg_likelihood_build (data, &noise, &lik), ==, SG_OK);
  sg_skewgp_prior prior;
  sg_skewgp_prior_gp (&prior, k, 0);
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_skewgp_log_evidence (&prior, data->X, &lik, NULL, &mo, &ev), ==, SG_OK);
  sg_likelihood_clear (&lik);
  return ev.log_ml;
}

/* k_ind = 0: f_0 = f_1 = g, one GP on the pooled answers. The two models
 * build the same latent Gaussian of t with the kernel matrix in a
 * different layout (duplicated rows vs shared inputs), so mu_t and S_tt
 * agree to round-off (1e-12 on entries of order 1); the evidence then
 * sees the same matrix and the same deterministic QMC points (1e-9: the
 * orthant estimator's arithmetic on perturbed inputs); the samples of t
 * come from the same seed through the same sampler on matrices equal to
 * round-off, so the posterior means and sds of g, f_0 and f_1 agree to
 * 1e-8 (measured: ~1e-13; the HMC chain amplifies round-off only
 * mildly over its length). */
static void
test_pooled (void)
{
  sg_hier_data hd;
  sg_data pooled;
  fill (&hd, &pooled, 1);
  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1.5, 0.4, 0, 0.3), ==, SG_OK);
  model.noise.probit_sd = 0.7;
  g_assert_cmpuint (hd.data.n_inputs, >, pooled.n_inputs);  /* the layouts differ */

  sg_skewgp_posterior *ph = NULL;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &ph), ==, SG_OK);
  sg_skewgp_posterior *pp = plain_posterior (&model.pop, &pooled, 0.7);
  size_t m = sg_skewgp_posterior_n_latent (ph);
  g_assert_cmpuint (m, ==, sg_skewgp_posterior_n_latent (pp));
  g_assert_cmpfloat (max_abs_diff (sg_skewgp_posterior_t_mean (ph),
                                   sg_skewgp_posterior_t_mean (pp), m), <=, 1e-12);
  g_assert_cmpfloat (max_abs_diff (sg_skewgp_posterior_t_cov (ph),
                                   sg_skewgp_posterior_t_cov (pp), m * m), <=, 1e-12);

  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_hier_log_evidence (&model, &hd, NULL, &mo, &ev), ==, SG_OK);
  double pooled_ev = plain_log_evidence (&model.pop, &pooled, 0.7);
  g_test_message ("log evidence hier %.15g pooled %.15g", ev.log_ml, pooled_ev);
  g_assert_cmpfloat (fabs (ev.log_ml - pooled_ev), <=, 1e-9);

  double mp[3], sp[3];
  moments (pp, test_x, 2000, 5, mp, sp, NULL);
  size_t who[3] = { SG_HIER_POPULATION, 0, 1 };
  for (size_t w = 0; w < 3; w++)
    {
      double XS[3 * (D + 1)], mh[3], sh[3];
      g_assert_cmpint (sg_hier_points (D, who[w], test_x, 3, XS), ==, SG_OK);
      moments (ph, XS, 2000, 5, mh, sh, NULL);
      g_test_message ("person %zd: mean diff %.3g sd diff %.3g", (ssize_t) who[w],
                      max_abs_diff (mh, mp, 3), max_abs_diff (sh, sp, 3));
      g_assert_cmpfloat (max_abs_diff (mh, mp, 3), <=, 1e-8);
      g_assert_cmpfloat (max_abs_diff (sh, sp, 3), <=, 1e-8);
    }
  sg_skewgp_posterior_free (ph);
  sg_skewgp_posterior_free (pp);
  sg_data_clear (&pooled);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
}

/* k_pop = 0 with each person's own probit sd: the people are independent
 * models with kernel k_ind. Exact: S_tt is block diagonal, each block the
 * person's own (round-off, 1e-12), and one person's data alone gives that
 * person's model to round-off (same seed). Estimated: the evidence of
 * everyone is the sum of the people's (the orthant probability of a block-
 * diagonal S_tt is the product; the estimates differ by their QMC errors:
 * tolerance 4 times the reported errors added, plus 1e-9), and f_p's
 * posterior mean given everyone equals that given p's answers alone to
 * Monte Carlo error (different chains: 4 combined standard errors
 * sd / sqrt(ESS)). */
static void
test_independent (void)
{
  sg_hier_data hd;
  sg_data own[P];
  fill (&hd, own, P);
  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_MATERN52, D, 0, 0.4, 1.2, 0.35), ==, SG_OK);
  double sds[P] = { 0.5, 1.3 };
  model.probit_sd = sds;

  sg_skewgp_posterior *ph = NULL;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &ph), ==, SG_OK);
  size_t m = sg_skewgp_posterior_n_latent (ph);
  g_assert_cmpuint (m, ==, P * N_DUELS);
  const double *S = sg_skewgp_posterior_t_cov (ph), *mu = sg_skewgp_posterior_t_mean (ph);

  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;
  mo.n_points = 50000;
  sg_skewgp_evidence ev;
  g_assert_cmpint (sg_hier_log_evidence (&model, &hd, NULL, &mo, &ev), ==, SG_OK);
  double sum = 0, err = ev.error;

  for (size_t p = 0; p < P; p++)
    {
      sg_skewgp_posterior *pp = plain_posterior (&model.ind, &own[p], sds[p]);
      size_t mp = sg_skewgp_posterior_n_latent (pp), off = p * N_DUELS;
      g_assert_cmpuint (mp, ==, N_DUELS);
      const double *Sp = sg_skewgp_posterior_t_cov (pp);
      for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
          {
            int in_block = i >= off && i < off + mp && j >= off && j < off + mp;
            if (in_block)
              g_assert_cmpfloat (fabs (S[i * m + j] - Sp[(i - off) * mp + j - off]), <=, 1e-12);
            else if ((i >= off && i < off + mp) || (j >= off && j < off + mp))
              g_assert_cmpfloat (S[i * m + j], ==, 0);
          }
      g_assert_cmpfloat (max_abs_diff (mu + off, sg_skewgp_posterior_t_mean (pp), mp), <=, 1e-12);

      sg_skewgp_evidence evp;
      sg_likelihood lik;
      sg_noise noise;
      sg_noise_default (&noise);
      noise.probit_sd = sds[p];
      g_assert_cmpint (sg_likelihood_build (&own[p], &noise, &lik), ==, SG_OK);
      sg_skewgp_prior prior;
      sg_skewgp_prior_gp (&prior, &model.ind, 0);
      g_assert_cmpint (sg_skewgp_log_evidence (&prior, own[p].X, &lik, NULL, &mo, &evp), ==, SG_OK);
      sg_likelihood_clear (&lik);
      sum += evp.log_ml;
      err += evp.error;

      /* p's answers alone in the hierarchical layout: the same model */
      sg_hier_data mine;
      g_assert_cmpint (sg_hier_data_person (&hd, p, &mine), ==, SG_OK);
      g_assert_cmpuint (mine.data.n_obs, ==, N_DUELS);
      sg_skewgp_posterior *pm = NULL;
      g_assert_cmpint (sg_hier_posterior_new (&model, &mine, &pm), ==, SG_OK);
      double XS[3 * (D + 1)], m1[3], s1[3], m2[3], s2[3], m3[3], s3[3], e1, e3;
      g_assert_cmpint (sg_hier_points (D, p, test_x, 3, XS), ==, SG_OK);
      moments (pm, XS, 2000, 9, m1, s1, &e1);
      moments (pp, test_x, 2000, 9, m2, s2, NULL);
      g_assert_cmpfloat (max_abs_diff (m1, m2, 3), <=, 1e-8);
      g_assert_cmpfloat (max_abs_diff (s1, s2, 3), <=, 1e-8);
      /* and given everyone (k_pop = 0: the others say nothing about p) */
      moments (ph, XS, 4000, 9, m3, s3, &e3);
      for (size_t i = 0; i < 3; i++)
        {
          double se = sqrt (s1[i] * s1[i] / e1 + s3[i] * s3[i] / e3);
          g_test_message ("person %zu point %zu: mean %.4f alone %.4f (se %.4f)", p, i,
                          m3[i], m1[i], se);
          g_assert_cmpfloat (fabs (m3[i] - m1[i]), <=, 4 * se);
        }
      sg_skewgp_posterior_free (pm);
      sg_hier_data_clear (&mine);
      sg_skewgp_posterior_free (pp);
    }
  g_test_message ("log evidence %.10g, sum of people %.10g, errors %.3g", ev.log_ml, sum, err);
  g_assert_cmpfloat (fabs (ev.log_ml - sum), <=, 4 * err + 1e-9);
  sg_skewgp_posterior_free (ph);
  for (size_t p = 0; p < P; p++)
    sg_data_clear (&own[p]);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
}

/* Per-person noise is the shared noise when everyone has the same sd. */
static void
test_noise_scaling (void)
{
  sg_hier_data hd;
  sg_data unused[1];
  fill (&hd, unused, 1);
  sg_data_clear (&unused[0]);
  double tie_w[D] = { 0.3, 0.3 }, tie_l[D] = { 0.7, 0.2 }, opts[2 * D] = { 0.1, 0.1, 0.9, 0.9 };
  g_assert_cmpint (sg_hier_add_tie (&hd, 1, tie_w, tie_l), ==, SG_OK);
  g_assert_cmpint (sg_hier_add_choice (&hd, 0, tie_w, opts, 2, SG_CONFIDENCE_WEAK, 1), ==, SG_OK);
  g_assert_cmpint (sg_hier_add_ranking (&hd, 1, opts, 2), ==, SG_OK);
  double y_x[D] = { 0.5, 0.5 };
  g_assert_cmpint (sg_hier_add_numeric (&hd, 0, y_x, 0.3), ==, SG_OK);
  g_assert_cmpuint (sg_hier_obs_person (&hd, hd.data.n_obs - 2), ==, 1);
  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1, 0.5, 0.5, 0.5), ==, SG_OK);
  model.noise.probit_sd = 0.8;
  sg_likelihood shared, each;
  g_assert_cmpint (sg_hier_likelihood_build (&model, &hd, &shared), ==, SG_OK);
  double sds[P] = { 0.8, 0.8 };
  model.probit_sd = sds;
  g_assert_cmpint (sg_hier_likelihood_build (&model, &hd, &each), ==, SG_OK);
  g_assert_cmpuint (shared.m_probit, ==, each.m_probit);
  g_assert_cmpfloat (max_abs_diff (shared.sigma, each.sigma, each.m_probit), <=, 1e-15);
  size_t nc = each.cov_start[each.n_blocks];
  g_assert_cmpfloat (max_abs_diff (shared.block_cov, each.block_cov, nc), <=, 1e-15);
  /* person 1's rows (the tie's) scale with their sd, person 0's do not */
  sds[1] = 1.6;
  sg_likelihood scaled;
  g_assert_cmpint (sg_hier_likelihood_build (&model, &hd, &scaled), ==, SG_OK);
  size_t tie_row = 2 * N_DUELS;
  g_assert_cmpfloat (fabs (scaled.sigma[tie_row] - 2 * each.sigma[tie_row]), <=, 1e-15);
  g_assert_cmpfloat (scaled.sigma[0], ==, each.sigma[0]);
  g_assert_cmpfloat (scaled.sigma[tie_row + 1], ==, each.sigma[tie_row + 1]);
  sg_likelihood_clear (&shared);
  sg_likelihood_clear (&each);
  sg_likelihood_clear (&scaled);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
}

/* With k_ind = 0 every sample has f_p = g: the bests never differ. With
 * k_pop = 0, g is the prior while f_0 has learnt from the answers: their
 * maximisers over 25 candidates differ in most samples. */
static void
test_best_differs (void)
{
  sg_hier_data hd;
  sg_data unused[1];
  fill (&hd, unused, 1);
  sg_data_clear (&unused[0]);
  double cand[25 * D];
  for (size_t i = 0; i < 25; i++)
    {
      cand[i * D] = (double) (i % 5) / 4;
      cand[i * D + 1] = (double) (i / 5) / 4;
    }
  double var[2][2] = { { 1, 0 }, { 0, 1 } };
  for (size_t c = 0; c < 2; c++)
    {
      sg_hier_model model = { 0 };
      g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, var[c][0], 0.4,
                                           var[c][1], 0.4), ==, SG_OK);
      sg_skewgp_posterior *post = NULL;
      g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &post), ==, SG_OK);
      gsl_rng *rng = sg_rng_new (3, 0);
      sg_skewgp_samples *s = NULL;
      g_assert_cmpint (sg_skewgp_sample (post, 1000, NULL, rng, NULL, &s), ==, SG_OK);
      double prob = -1, se = -1;
      g_assert_cmpint (sg_hier_prob_best_differs (post, s, cand, 25, 0, 0, rng, &prob, &se), ==, SG_OK);
      g_test_message ("k_pop %g k_ind %g: P(best differs) = %.3f (se %.3f)", var[c][0], var[c][1],
                      prob, se);
      if (c == 0)
        g_assert_cmpfloat (prob, ==, 0);
      else
        g_assert_cmpfloat (prob, >, 0.6);
      /* a tolerance as wide as the box: never "different" */
      g_assert_cmpint (sg_hier_prob_best_differs (post, s, cand, 25, 0, 2, rng, &prob, NULL), ==, SG_OK);
      g_assert_cmpfloat (prob, ==, 0);
      g_assert_cmpint (sg_hier_prob_best_differs (post, s, cand, 25, SG_HIER_POPULATION, 0, rng,
                                                  &prob, NULL), ==, SG_EINVAL);
      size_t best;
      double mean;
      g_assert_cmpint (sg_hier_best_mean (post, s, cand, 25, 0, &best, &mean), ==, SG_OK);
      g_assert_cmpuint (best, <, 25);
      sg_skewgp_samples_free (s);
      sg_rng_free (rng);
      sg_skewgp_posterior_free (post);
      sg_hier_model_clear (&model);
    }
  sg_hier_data_clear (&hd);
}

/* The fit never reports less than its start and writes every person's sd. */
static void
test_fit (void)
{
  sg_hier_data hd;
  sg_data unused[1];
  fill (&hd, unused, 1);
  sg_data_clear (&unused[0]);
  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1, 0.5, 0.3, 0.5), ==, SG_OK);
  double sds[P] = { 1, 1 };
  model.probit_sd = sds;
  sg_hier_fit_spec spec;
  g_assert_cmpint (sg_hier_fit_spec_default (&spec, SG_HIER_FIT_ALL & ~SG_HIER_FIT_MEAN, &hd), ==, SG_OK);
  sg_fit_options fo;
  sg_fit_options_default (&fo);
  fo.n_starts = 2;
  fo.max_evals = 120;
  gsl_rng *rng = sg_rng_new (4, 0);
  sg_fit_result res;
  g_assert_cmpint (sg_hier_fit (&spec, &model, &hd, &fo, rng, NULL, &res), ==, SG_OK);
  g_test_message ("fit: %.4f from %.4f in %zu evaluations; v_pop %.3g v_ind %.3g sds %.3g %.3g",
                  res.log_evidence, res.start_log_evidence, res.n_evals, model.pop.variance,
                  model.ind.variance, sds[0], sds[1]);
  g_assert_cmpfloat (res.log_evidence, >=, res.start_log_evidence);
  g_assert_true (model.probit_sd == sds);
  g_assert_true (sds[0] != 1 || sds[1] != 1);
  /* the evidence at the fitted values is what the fit reported (same
   * deterministic estimator, order chosen afresh: within its error) */
  sg_skewgp_evidence ev;
  sg_mvn_options mo;
  sg_mvn_options_default (&mo);
  mo.deterministic = 1;
  g_assert_cmpint (sg_hier_log_evidence (&model, &hd, NULL, &mo, &ev), ==, SG_OK);
  g_assert_cmpfloat (fabs (ev.log_ml - res.log_evidence), <=, 4 * (ev.error + res.error) + 1e-9);
  /* a bad box is refused, the model untouched */
  sg_hier_model before = model;
  spec.ind_variance.lower = -1;
  g_assert_cmpint (sg_hier_fit (&spec, &model, &hd, &fo, rng, NULL, &res), ==, SG_EINVAL);
  g_assert_cmpmem (&before, sizeof before, &model, sizeof model);
  sg_rng_free (rng);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
}

/* A proposal for one person: inside the box, x != x_r, reproducible;
 * "independent" is the model of that person's answers alone. */
static void
test_propose (void)
{
  sg_hier_data hd;
  sg_data unused[1];
  fill (&hd, unused, 1);
  sg_data_clear (&unused[0]);
  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1, 0.4, 0.3, 0.4), ==, SG_OK);
  sg_hier_propose_options opt;
  sg_hier_propose_options_default (&opt, D);
  opt.n_samples = 300;
  opt.search.n_candidates = 100;
  sg_hier_question q1, q2, q3;
  for (size_t mode = 0; mode < 2; mode++)
    {
      opt.independent = (int) mode;
      gsl_rng *rng = sg_rng_new (8, 0);
      g_assert_cmpint (sg_hier_propose_duel (&model, &hd, 1, &opt, rng, NULL, &q1), ==, SG_OK);
      sg_rng_free (rng);
      rng = sg_rng_new (8, 0);
      g_assert_cmpint (sg_hier_propose_duel (&model, &hd, 1, &opt, rng, NULL, &q2), ==, SG_OK);
      sg_rng_free (rng);
      g_assert_cmpmem (&q1, sizeof q1, &q2, sizeof q2);
      g_assert_true (q1.has_ref);
      g_assert_true (isfinite (q1.value));
      for (size_t j = 0; j < D; j++)
        g_assert_true (q1.x[j] >= 0 && q1.x[j] <= 1);
      g_assert_true (q1.x[0] != q1.x_ref[0] || q1.x[1] != q1.x_ref[1]);
      g_test_message ("%s: x (%.3f, %.3f) vs x_r (%.3f, %.3f), UCB %.3f",
                      mode ? "independent" : "everyone", q1.x[0], q1.x[1], q1.x_ref[0],
                      q1.x_ref[1], q1.value);
    }
  /* independent = the same proposal from person 1's answers alone */
  sg_hier_data mine;
  g_assert_cmpint (sg_hier_data_person (&hd, 1, &mine), ==, SG_OK);
  opt.independent = 0;
  gsl_rng *rng = sg_rng_new (8, 0);
  g_assert_cmpint (sg_hier_propose_duel (&model, &mine, 1, &opt, rng, NULL, &q3), ==, SG_OK);
  sg_rng_free (rng);
  g_assert_cmpmem (&q1, sizeof q1, &q3, sizeof q3);
  /* a person with no answers under "independent": a random duel */
  sg_hier_data none;
  g_assert_cmpint (sg_hier_data_init (&none, D, 3), ==, SG_OK);
  opt.independent = 1;
  rng = sg_rng_new (8, 0);
  g_assert_cmpint (sg_hier_propose_duel (&model, &none, 2, &opt, rng, NULL, &q3), ==, SG_OK);
  g_assert_false (q3.has_ref);
  /* bad input */
  g_assert_cmpint (sg_hier_propose_duel (&model, &hd, 2, &opt, rng, NULL, &q3), ==, SG_EINVAL);
  opt.acquisition = SG_BO_ACQ_QEUBO;
  g_assert_cmpint (sg_hier_propose_duel (&model, &hd, 0, &opt, rng, NULL, &q3), ==, SG_EINVAL);
  sg_rng_free (rng);
  sg_hier_data_clear (&none);
  sg_hier_data_clear (&mine);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
}

/* Out-of-range people, the population, NaN settings and bad models are
 * refused with SG_EINVAL, leaving the data as it was. */
static void
test_bad_input (void)
{
  sg_hier_data hd;
  g_assert_cmpint (sg_hier_data_init (&hd, 0, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_data_init (&hd, D, 0), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_data_init (&hd, SG_HIER_MAX_DIM + 1, 2), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_data_init (&hd, D, P), ==, SG_OK);
  double a[D] = { 0.1, 0.2 }, b[D] = { 0.4, 0.5 }, nan_x[D] = { NAN, 0.5 };
  g_assert_cmpint (sg_hier_add_preference (&hd, 0, a, b), ==, SG_OK);
  g_assert_cmpint (sg_hier_add_preference (&hd, P, a, b), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_preference (&hd, SG_HIER_POPULATION, a, b), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_preference (&hd, 1, nan_x, b), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_preference (&hd, 1, a, a), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_tie (&hd, 5, a, b), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_choice (&hd, 2, a, b, 1, SG_CONFIDENCE_NONE, SG_SHOWN_NONE), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_ranking (&hd, 2, a, 1), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_numeric (&hd, 0, a, NAN), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_add_numeric (&hd, 3, a, 1), ==, SG_EINVAL);
  g_assert_cmpuint (hd.data.n_obs, ==, 1);
  g_assert_cmpuint (hd.data.n_inputs, ==, 2);
  sg_hier_data other;
  g_assert_cmpint (sg_hier_data_person (&hd, P, &other), ==, SG_EINVAL);
  double XS[D + 1];
  g_assert_cmpint (sg_hier_points (D, 0, nan_x, 1, XS), ==, SG_EINVAL);

  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 0, 0.5, 0, 0.5), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, -1, 0.5, 1, 0.5), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1, NAN, 1, 0.5), ==, SG_EINVAL);
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1, 0.5, 1, 0.5), ==, SG_OK);
  sg_skewgp_posterior *post = NULL;
  double sds[P] = { 1, NAN };
  model.probit_sd = sds;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &post), ==, SG_EINVAL);
  sds[1] = -1;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &post), ==, SG_EINVAL);
  sds[1] = 1;
  model.ind.type = SG_KERNEL_MATERN52;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &post), ==, SG_EINVAL);
  model.ind.type = SG_KERNEL_RBF;
  model.pop.dim = 3;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &post), ==, SG_EINVAL);
  g_assert_null (post);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
}

/* The Laplace and EP evidences' analytic gradients in the grouped kernel's
 * 2 d + 2 log-hyperparameters (their gradient code takes any kernel
 * through sg_kernel_matrix_grad) against central differences of the
 * evidence itself: step 1e-5 in theta, so truncation ~1e-10 and
 * cancellation of the converged evidences' 1e-12 round-off ~1e-7;
 * tolerance 1e-5 relative to max(1, |gradient|). */
static void
test_approx_gradients (void)
{
  sg_hier_data hd;
  sg_data unused[1];
  fill (&hd, unused, 1);
  sg_data_clear (&unused[0]);
  sg_hier_model model = { 0 };
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1.2, 0.4, 0.5, 0.3), ==, SG_OK);
  model.pop.lengthscales[1] = 0.7;
  sg_approx_model am = { .prior_mean = 0, .link = SG_LINK_PROBIT };
  g_assert_cmpint (sg_hier_model_kernel (&model, &am.kernel), ==, SG_OK);
  sg_noise_default (&am.noise);
  size_t np = sg_kernel_n_params (&am.kernel);
  g_assert_cmpuint (np, ==, 2 * D + 2);
  for (size_t method = 0; method < 2; method++)
    {
      double lml, grad[2 * D + 2], theta[2 * D + 2];
      sg_status st = method == 0
        ? sg_laplace_log_evidence (&am, &hd.data, NULL, NULL, NULL, &lml, grad)
        : sg_ep_log_evidence (&am, &hd.data, NULL, NULL, NULL, &lml, grad);
      g_assert_cmpint (st, ==, SG_OK);
      sg_kernel_get_params (&am.kernel, theta);
      for (size_t p = 0; p < np; p++)
        {
          const double h = 1e-5;
          double lp, lm;
          sg_approx_model mp = am, mm = am;
          g_assert_cmpint (sg_kernel_copy (&mp.kernel, &am.kernel), ==, SG_OK);
          g_assert_cmpint (sg_kernel_copy (&mm.kernel, &am.kernel), ==, SG_OK);
          theta[p] += h;
          sg_kernel_set_params (&mp.kernel, theta);
          theta[p] -= 2 * h;
          sg_kernel_set_params (&mm.kernel, theta);
          theta[p] += h;
          if (method == 0)
            {
              g_assert_cmpint (sg_laplace_log_evidence (&mp, &hd.data, NULL, NULL, NULL, &lp, NULL), ==, SG_OK);
              g_assert_cmpint (sg_laplace_log_evidence (&mm, &hd.data, NULL, NULL, NULL, &lm, NULL), ==, SG_OK);
            }
          else
            {
              g_assert_cmpint (sg_ep_log_evidence (&mp, &hd.data, NULL, NULL, NULL, &lp, NULL), ==, SG_OK);
              g_assert_cmpint (sg_ep_log_evidence (&mm, &hd.data, NULL, NULL, NULL, &lm, NULL), ==, SG_OK);
            }
          sg_kernel_clear (&mp.kernel);
          sg_kernel_clear (&mm.kernel);
          double fd = (lp - lm) / (2 * h);
          g_test_message ("%s theta %zu: %.8f fd %.8f", method ? "EP" : "Laplace", p, grad[p], fd);
          g_assert_cmpfloat (fabs (grad[p] - fd), <=, 1e-5 * fmax (1, fabs (fd)));
        }
    }
  sg_hier_data_clear (&hd);

  /* 20 setting coordinates: 42 parameters; the last entries are written
   * and finite, and nothing past them */
  size_t d = 20;
  g_assert_cmpint (sg_hier_data_init (&hd, d, 2), ==, SG_OK);
  double w[20], l[20];
  for (size_t j = 0; j < d; j++)
    {
      w[j] = 0.05 * (double) j;
      l[j] = 1 - 0.03 * (double) j;
    }
  g_assert_cmpint (sg_hier_add_preference (&hd, 0, w, l), ==, SG_OK);
  g_assert_cmpint (sg_hier_add_preference (&hd, 1, l, w), ==, SG_OK);
  sg_hier_model_clear (&model);
  sg_kernel_clear (&am.kernel);
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, d, 1, 1.5, 0.5, 1.5), ==, SG_OK);
  g_assert_cmpint (sg_hier_model_kernel (&model, &am.kernel), ==, SG_OK);
  np = sg_kernel_n_params (&am.kernel);
  g_assert_cmpuint (np, ==, 2 * d + 2);
  double lml, grad[2 * 20 + 2 + 1];
  grad[np - 1] = NAN;
  grad[np] = 12345;
  g_assert_cmpint (sg_laplace_log_evidence (&am, &hd.data, NULL, NULL, NULL, &lml, grad), ==, SG_OK);
  g_assert_true (isfinite (grad[np - 1]) && grad[np - 1] != 0);
  g_assert_cmpfloat (grad[np], ==, 12345);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
  sg_kernel_clear (&am.kernel);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hier/pooled-when-no-individual-part", test_pooled);
  g_test_add_func ("/hier/independent-when-no-population-part", test_independent);
  g_test_add_func ("/hier/per-person-noise", test_noise_scaling);
  g_test_add_func ("/hier/best-differs", test_best_differs);
  g_test_add_func ("/hier/fit", test_fit);
  g_test_add_func ("/hier/propose", test_propose);
  g_test_add_func ("/hier/bad-input", test_bad_input);
  g_test_add_func ("/hier/approx-evidence-gradients", test_approx_gradients);
  return g_test_run ();
}
