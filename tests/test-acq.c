/* test-acq.c — acquisition functions on hand-computed samples, and the box
 * maximiser (sg-acq). */
#include "sg-acq.h"
#include "sg-bo.h"
#include "sg-kernel.h"
#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-rng.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Exact formulas evaluated in a few flops: agreement to a few ulps. */
#define TIGHT 1e-14

static void
test_entropy (void)
{
  g_assert_cmpfloat (fabs (sg_acq_binary_entropy (0.5) - M_LN2), <, TIGHT);
  /* H(0.1) = -0.1 log 0.1 - 0.9 log 0.9 = 0.325082973391448... */
  g_assert_cmpfloat (fabs (sg_acq_binary_entropy (0.1) - 0.3250829733914482), <, TIGHT);
  /* the clamp of the reference code keeps 0 and 1 finite and tiny */
  double h0 = sg_acq_binary_entropy (0.0), h1 = sg_acq_binary_entropy (1.0);
  g_assert_true (h0 > 0 && h0 < 1e-13);
  /* 1 - 1e-15 is not representable: the two clamps differ by an ulp */
  g_assert_cmpfloat (fabs (h0 - h1), <, 1e-16);
}

static int
cmp_d (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Brute force: sort everything, scan all windows. */
static double
hpd_brute (const double *v, size_t n, double level, double *lower)
{
  double *s = g_memdup2 (v, n * sizeof *v);
  qsort (s, n, sizeof *s, cmp_d);
  size_t K = (size_t) ceil (level * n - 1e-9 * n);
  if (K < 1) K = 1;
  size_t best = 0;
  for (size_t i = 0; i + K <= n; i++)
    if (s[i + K - 1] - s[i] < s[best + K - 1] - s[best])
      best = i;
  *lower = s[best];
  double up = s[best + K - 1];
  g_free (s);
  return up;
}

static void
test_hpd (void)
{
  double scratch[16], lo;
  /* windows of K = ceil(0.6 * 5) = 3: [0,2] w2, [1,3] w2, [2,10] w8: the
   * first narrowest is [0, 2] */
  const double v1[] = { 3, 0, 10, 2, 1 };
  g_assert_cmpfloat (sg_acq_hpd (v1, 5, 0.6, scratch, &lo), ==, 2);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (v1[2], ==, 10); /* input untouched */
  /* K = ceil(3.5) = 4 of sorted -50,1,2,3,4,5,100: [1, 4] */
  const double v2[] = { 5, 1, 4, 2, 3, 100, -50 };
  g_assert_cmpfloat (sg_acq_hpd (v2, 7, 0.5, scratch, &lo), ==, 4);
  g_assert_cmpfloat (lo, ==, 1);
  /* a right-skewed sample: the HPD hugs the mode, the upper end is
   * below the equal-tailed one */
  const double v3[] = { 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 5, 9, 20 };
  g_assert_cmpfloat (sg_acq_hpd (v3, 10, 0.7, scratch, &lo), ==, 0.6);
  g_assert_cmpfloat (lo, ==, 0);
  /* level 1 covers everything */
  g_assert_cmpfloat (sg_acq_hpd (v2, 7, 1.0, scratch, &lo), ==, 100);
  g_assert_cmpfloat (lo, ==, -50);
  /* single sample */
  g_assert_cmpfloat (sg_acq_hpd (v1 + 2, 1, 0.95, scratch, NULL), ==, 10);

  /* the selection path equals brute force on random data with ties */
  gsl_rng *rng = sg_rng_new (5, 0);
  size_t sizes[] = { 2, 3, 10, 57, 1000, 3001 };
  double levels[] = { 0.5, 0.9, 0.95, 0.99 };
  for (size_t a = 0; a < G_N_ELEMENTS (sizes); a++)
    for (size_t b = 0; b < G_N_ELEMENTS (levels); b++)
      for (int rep = 0; rep < 20; rep++)
        {
          size_t n = sizes[a];
          double *v = g_new (double, n), *s = g_new (double, n);
          for (size_t i = 0; i < n; i++)
            v[i] = rep % 2 ? floor (10 * sg_rng_gaussian (rng)) : exp (sg_rng_gaussian (rng));
          double lo_b, up_b = hpd_brute (v, n, levels[b], &lo_b);
          double up = sg_acq_hpd (v, n, levels[b], s, &lo);
          g_assert_cmpfloat (up, ==, up_b);
          g_assert_cmpfloat (lo, ==, lo_b);
          g_free (v);
          g_free (s);
        }
  sg_rng_free (rng);
}

static void
test_probabilities (void)
{
  const double sd = M_SQRT1_2; /* Phi(h / (sqrt2 sd)) = Phi(h) */
  const double h0[] = { 0, 0 }, h1[] = { 1, -1 }, h2[] = { 1 };
  g_assert_cmpfloat (fabs (sg_acq_epi (h0, 2, sd) - 0.5), <, TIGHT);
  g_assert_cmpfloat (fabs (sg_acq_epi (h1, 2, sd) - 0.5), <, TIGHT);
  g_assert_cmpfloat (fabs (sg_acq_epi (h2, 1, sd) - 0.8413447460685429), <, TIGHT);
  /* sd = 1: Phi(1 / sqrt2) = 0.760249938906523 */
  g_assert_cmpfloat (fabs (sg_acq_epi (h2, 1, 1.0) - 0.7602499389065233), <, TIGHT);

  /* IG: identical samples carry no information */
  const double same[] = { 0.7, 0.7, 0.7 };
  g_assert_cmpfloat (fabs (sg_acq_info_gain (same, 3, sd)), <, TIGHT);
  /* two certain but opposite outcomes: p = 1/2, IG = log 2 - H(Phi(40)) */
  const double split[] = { 40, -40 };
  g_assert_cmpfloat (fabs (sg_acq_info_gain (split, 2, sd) - (M_LN2 - 3.55e-14)), <, 1e-15);
  /* EIIG = k log p + IG; hand value for h = {1, -1}, k = 0.1:
   * p = 1/2, IG = log 2 - H(Phi(1)) */
  double ig = M_LN2 - sg_acq_binary_entropy (sg_norm_cdf (1.0));
  g_assert_cmpfloat (fabs (sg_acq_eiig (h1, 2, sd, 0.1) - (0.1 * log (0.5) + ig)), <, TIGHT);
  g_assert_cmpfloat (fabs (sg_acq_eiig (h1, 2, sd, 0.0) - sg_acq_info_gain (h1, 2, sd)), <, TIGHT);
  /* EPI below the clamp: log p stays finite (-34.5 = log 1e-15) */
  const double far[] = { -60 };
  g_assert_cmpfloat (fabs (sg_acq_eiig (far, 1, sd, 1.0) - log (1e-15)), <, 1e-9);

  /* BALD (001 eq. 43) with probabilities Phi(f / sd): f = {0, 0} gives
   * p = 1/2 and no disagreement; f = {+-40} gives log 2 */
  g_assert_cmpfloat (fabs (sg_acq_bald (h0, 2, 1.0)), <, TIGHT);
  g_assert_cmpfloat (fabs (sg_acq_bald (split, 2, 1.0) - M_LN2), <, 1e-13);
  /* f = {1, 2}, sd = 1: H((Phi(1)+Phi(2))/2) - (H(Phi(1)) + H(Phi(2)))/2 */
  const double f12[] = { 1, 2 };
  double p1 = sg_norm_cdf (1), p2 = sg_norm_cdf (2);
  double bald = sg_acq_binary_entropy ((p1 + p2) / 2)
                - (sg_acq_binary_entropy (p1) + sg_acq_binary_entropy (p2)) / 2;
  g_assert_cmpfloat (fabs (sg_acq_bald (f12, 2, 1.0) - bald), <, TIGHT);
  g_assert_cmpfloat (bald, >, 0);
}

static void
test_numeric (void)
{
  const double h[] = { -1, 0, 2, 3 };
  g_assert_cmpfloat (sg_acq_expected_improvement (h, 4), ==, 1.25);
  g_assert_cmpfloat (sg_acq_prob_at_least (h, 4, 0), ==, 0.75);
  g_assert_cmpfloat (sg_acq_prob_at_least (h, 4, 2.5), ==, 0.25);
  /* safe UCB: 10 samples 0..9, level 0.9 -> K = 9, windows [0,8], [1,9]
   * both of width 8: the first, upper end 8. P(f >= 3) = 0.7: no penalty
   * at p_safe = 0.7 (strict '<'), penalty at 0.71. */
  double f[10], scratch[10];
  for (int i = 0; i < 10; i++)
    f[i] = i;
  g_assert_cmpfloat (sg_acq_safe_ucb (f, 10, 0.9, 3, 0.7, 1000, scratch), ==, 8);
  g_assert_cmpfloat (sg_acq_safe_ucb (f, 10, 0.9, 3, 0.71, 1000, scratch), ==, 8 - 1000);
  g_assert_cmpfloat (sg_acq_safe_ucb (f, 10, 0.9, 3, 0.71, 0, scratch), ==, 8);
}

/* ---- The maximiser ---------------------------------------------------------- */

typedef struct {
  double centre[4];
  size_t dim;
  int calls;
  int nan_region;
} quad_ctx;

static double
quad (const double *x, void *data)
{
  quad_ctx *q = data;
  q->calls++;
  if (q->nan_region && x[0] < -0.5)
    return NAN;
  double s = 0;
  for (size_t j = 0; j < q->dim; j++)
    s -= (x[j] - q->centre[j]) * (x[j] - q->centre[j]);
  return s;
}

static void
test_maximize (void)
{
  const double lo[] = { -1, -1, -1, -1 }, up[] = { 1, 1, 1, 1 };
  for (size_t dim = 1; dim <= 4; dim++)
    {
      quad_ctx q = { { 0.31, -0.22, 0.05, 0.7 }, dim, 0, 1 };
      gsl_rng *rng = sg_rng_new (3, dim);
      double x[4], v;
      sg_acq_max_options o;
      sg_acq_max_options_default (&o);
      o.n_candidates = 64;
      o.local_maxeval = 200;
      o.xtol_rel = 1e-8;
      g_assert_cmpint (sg_acq_maximize (dim, lo, up, quad, &q, NULL, 0, &o, rng, NULL, x, &v),
                       ==, SG_OK);
      /* a smooth quadratic: the local search converges to xtol; 1e-4 is
       * far above it and far below the candidates' spacing (~0.1) */
      for (size_t j = 0; j < dim; j++)
        g_assert_cmpfloat (fabs (x[j] - q.centre[j]), <, 1e-4);
      g_assert_cmpint (q.calls, <=, 64 + 2 * 200 + 2);
      /* the optimum on the boundary: the bounds hold */
      quad_ctx qb = { { 1.5, -3, 0, 0 }, dim, 0, 0 };
      sg_acq_maximize (dim, lo, up, quad, &qb, NULL, 0, &o, rng, NULL, x, &v);
      g_assert_cmpfloat (fabs (x[0] - 1), <, 1e-4);
      if (dim > 1)
        g_assert_cmpfloat (fabs (x[1] + 1), <, 1e-4);
      for (size_t j = 0; j < dim; j++)
        g_assert_true (x[j] >= lo[j] && x[j] <= up[j]);
      sg_rng_free (rng);
    }
}

/* An extra point (e.g. a training input) on a narrow peak that the
 * candidates miss is found through the EXTRA list. */
static double
spike (const double *x, void *data)
{
  (void) data;
  double d = (x[0] - 0.123456) * (x[0] - 0.123456) + (x[1] + 0.654321) * (x[1] + 0.654321);
  return d < 1e-10 ? 1.0 : 0.0;
}

static void
test_maximize_extra (void)
{
  const double lo[] = { -1, -1 }, up[] = { 1, 1 }, extra[] = { 0.5, 0.5, 0.123456, -0.654321 };
  gsl_rng *rng = sg_rng_new (1, 0);
  double x[2], v;
  sg_acq_max_options o;
  sg_acq_max_options_default (&o);
  o.n_candidates = 32;
  g_assert_cmpint (sg_acq_maximize (2, lo, up, spike, NULL, extra, 2, &o, rng, NULL, x, &v), ==,
                   SG_OK);
  g_assert_cmpfloat (v, ==, 1.0);
  g_assert_cmpfloat (x[0], ==, 0.123456);
  sg_rng_free (rng);
}

static void
test_maximize_deterministic (void)
{
  const double lo[] = { 0, 0, 0 }, up[] = { 2, 3, 1 };
  double x1[3], x2[3], x3[3], v1, v2, v3;
  for (int k = 0; k < 3; k++)
    {
      quad_ctx q = { { 1.2, 0.4, 0.9 }, 3, 0, 0 };
      gsl_rng *rng = sg_rng_new (k == 2 ? 9 : 8, 0);
      sg_acq_max_options o;
      sg_acq_max_options_default (&o);
      o.local_maxeval = 5; /* stop early, so the start point matters */
      sg_acq_maximize (3, lo, up, quad, &q, NULL, 0, &o, rng, NULL,
                       k == 0 ? x1 : k == 1 ? x2 : x3, k == 0 ? &v1 : k == 1 ? &v2 : &v3);
      sg_rng_free (rng);
    }
  g_assert_true (memcmp (x1, x2, sizeof x1) == 0 && v1 == v2);
  g_assert_true (memcmp (x1, x3, sizeof x1) != 0); /* another seed, other candidates */
}

static int
cancel_after (double fraction, void *data)
{
  (void) fraction;
  int *n = data;
  return ++*n >= 3;
}

static void
test_maximize_cancel (void)
{
  const double lo[] = { -1, -1 }, up[] = { 1, 1 };
  quad_ctx q = { { 0, 0 }, 2, 0, 0 };
  int polls = 0;
  sg_progress p = { cancel_after, &polls };
  gsl_rng *rng = sg_rng_new (1, 0);
  double x[2] = { 7, 7 }, v = 7;
  g_assert_cmpint (sg_acq_maximize (2, lo, up, quad, &q, NULL, 0, NULL, rng, &p, x, &v), ==,
                   SG_ECANCELLED);
  g_assert_cmpfloat (x[0], ==, 7); /* outputs untouched */
  g_assert_cmpfloat (v, ==, 7);
  g_assert_cmpint (q.calls, ==, 3 * 16); /* stopped at the third poll */
  /* bad arguments */
  double bad_up[] = { -2, 1 };
  g_assert_cmpint (sg_acq_maximize (2, lo, bad_up, quad, &q, NULL, 0, NULL, rng, NULL, x, &v),
                   ==, SG_EINVAL);
  g_assert_cmpint (sg_acq_maximize (0, lo, up, quad, &q, NULL, 0, NULL, rng, NULL, x, &v), ==,
                   SG_EINVAL);
  sg_rng_free (rng);
}


/* qEUBO on hand-made samples: the mean of the column maxima. */
static void
test_qeubo_hand (void)
{
  const double F[] = { 1, 5, -2,     /* f(x1) at samples 1..3 */
                       3, 2, -1 };   /* f(x2)                 */
  g_assert_cmpfloat (fabs (sg_acq_qeubo (F, 2, 3) - (3 + 5 - 1) / 3.0), <, TIGHT);
  g_assert_cmpfloat (fabs (sg_acq_qeubo (F, 1, 3) - 4 / 3.0), <, TIGHT);
}

/* Batch-means standard error of the mean of V (n values from a Markov
 * chain): 20 batches. */
static double
batch_se (const double *v, size_t n)
{
  enum { B = 20 };
  size_t len = n / B;
  double m[B], mean = 0;
  for (size_t b = 0; b < B; b++)
    {
      m[b] = 0;
      for (size_t i = 0; i < len; i++)
        m[b] += v[b * len + i];
      m[b] /= (double) len;
      mean += m[b] / B;
    }
  double ss = 0;
  for (size_t b = 0; b < B; b++)
    ss += (m[b] - mean) * (m[b] - mean);
  return sqrt (ss / (B - 1) / B);
}

/* qEUBO of a best-of-3 proposal of sg_bo on the exact SkewGP posterior of
 * two duels, against brute force: prior draws of the GP at the three
 * inputs and the three options, weighted by the duels' likelihood
 * (importance sampling from the prior), E[max_i f(x_i)] as the weighted
 * mean. Both are Monte Carlo estimates; they must agree within 4
 * combined standard errors (the posterior samples come from an HMC chain:
 * batch means). */
static void
test_qeubo_brute_force (void)
{
  double lo[] = { 0 }, up[] = { 1 };
  sg_bo_config c = { 0 };
  g_assert_cmpint (sg_bo_config_default (&c, 1, lo, up), ==, SG_OK);
  c.question = SG_BO_QUESTION_CHOICE;
  c.n_options = 3;
  c.acquisition = SG_BO_ACQ_QEUBO;
  c.n_initial = 2;
  c.n_samples = 4000;
  c.search.n_candidates = 64;
  c.refit_until = c.refit_every = 0;
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  const double X[] = { 0.2, 0.7, 0.5 };
  g_assert_cmpint (sg_bo_answer_duel (bo, X + 0, X + 1, 1), ==, SG_OK);  /* 0.2 > 0.7 */
  g_assert_cmpint (sg_bo_answer_duel (bo, X + 2, X + 0, 1), ==, SG_OK);  /* 0.5 > 0.2 */
  gsl_rng *rng = sg_rng_new (11, 1);
  sg_bo_query q;
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, &q), ==, SG_OK);
  g_assert_cmpint (q.kind, ==, SG_BO_QUERY_CHOICE);
  g_assert_cmpint (q.n_options, ==, 3);

  /* the posterior side: joint samples at the three options (fresh
   * remainder draws), per-sample maxima */
  const sg_skewgp_samples *smp = sg_bo_skewgp_samples (bo);
  size_t N = sg_skewgp_samples_count (smp);
  double opts[3] = { q.options[0][0], q.options[1][0], q.options[2][0] };
  double *F = g_new (double, 3 * N), *mx = g_new (double, N);
  g_assert_cmpint (sg_skewgp_joint_samples (sg_bo_skewgp_posterior (bo), smp, opts, 3, rng, F),
                   ==, SG_OK);
  for (size_t j = 0; j < N; j++)
    mx[j] = fmax (F[j], fmax (F[N + j], F[2 * N + j]));
  double post = sg_acq_qeubo (F, 3, N), se_post = batch_se (mx, N);

  /* brute force: importance sampling from the prior */
  const sg_hyper *h = sg_bo_get_hyper (bo);
  double P[6] = { X[0], X[1], X[2], opts[0], opts[1], opts[2] }, K[36], L[36];
  sg_kernel_matrix (&h->kernel, P, 6, P, 6, K);
  g_assert_cmpint (sg_cholesky (K, 6, 1e-6, L, NULL), ==, SG_OK);
  double scale = 1 / (M_SQRT2 * h->noise.probit_sd);
  size_t M = 400000;
  double sw = 0, swm = 0;
  double *w = g_new (double, M), *m = g_new (double, M);
  for (size_t i = 0; i < M; i++)
    {
      double z[6], f[6];
      for (int r = 0; r < 6; r++)
        z[r] = sg_rng_gaussian (rng);
      for (int r = 0; r < 6; r++)
        {
          f[r] = h->mean;
          for (int k = 0; k <= r; k++)
            f[r] += L[r * 6 + k] * z[k];
        }
      w[i] = sg_norm_cdf ((f[0] - f[1]) * scale) * sg_norm_cdf ((f[2] - f[0]) * scale);
      m[i] = fmax (f[3], fmax (f[4], f[5]));
      sw += w[i];
      swm += w[i] * m[i];
    }
  double brute = swm / sw, v = 0;
  for (size_t i = 0; i < M; i++)
    v += w[i] * w[i] * (m[i] - brute) * (m[i] - brute);
  double se_brute = sqrt (v) / sw;
  double tol = 4 * sqrt (se_post * se_post + se_brute * se_brute);
  g_test_message ("qEUBO posterior %.5f (se %.5f), proposal %.5f, brute force %.5f (se %.5f)",
                  post, se_post, q.acquisition, brute, se_brute);
  g_assert_cmpfloat (fabs (post - brute), <, tol);
  /* the value sg_bo maximised, from its own common random numbers */
  g_assert_cmpfloat (fabs (q.acquisition - brute), <, tol);
  /* and it is not a trivial agreement: E[max] exceeds every option's mean */
  for (int i = 0; i < 3; i++)
    {
      double mi = 0;
      for (size_t j = 0; j < N; j++)
        mi += F[i * N + j] / (double) N;
      g_assert_cmpfloat (brute - mi, >, tol);
    }
  g_free (w); g_free (m); g_free (F); g_free (mx);
  sg_rng_free (rng);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

/* ---- Every duel acquisition against brute force ----------------------------
 * A small exact posterior: two duels on [0, 1] (0.2 > 0.7, 0.5 > 0.2), 4000
 * posterior samples. Brute force: prior draws of the GP at the three inputs
 * and the two points of the proposed duel, kept with probability equal to
 * the duels' likelihood (rejection sampling: exact, independent posterior
 * draws). A statistic of the samples (the acquisition) is compared with the
 * engine's value within 4 combined standard errors; each standard error is
 * the spread of the statistic over 20 batches / sqrt(20) (the engine's
 * samples come from a Markov chain, so batches, not the iid formula). */
enum { BF_BATCHES = 20 };

typedef double (*stat_fn) (const double *h, size_t n, double probit_sd);

static sg_bo *
small_posterior (sg_bo_acquisition acq, sg_bo_query *q, gsl_rng *rng)
{
  double lo[] = { 0 }, up[] = { 1 };
  sg_bo_config c = { 0 };
  g_assert_cmpint (sg_bo_config_default (&c, 1, lo, up), ==, SG_OK);
  c.acquisition = acq;
  c.n_initial = 2;
  c.n_samples = 4000;
  c.search.n_candidates = 64;
  c.refit_until = c.refit_every = 0;
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  const double X[] = { 0.2, 0.7, 0.5 };
  g_assert_cmpint (sg_bo_answer_duel (bo, X + 0, X + 1, 1), ==, SG_OK);
  g_assert_cmpint (sg_bo_answer_duel (bo, X + 2, X + 0, 1), ==, SG_OK);
  g_assert_cmpint (sg_bo_propose (bo, rng, NULL, q), ==, SG_OK);
  g_assert_cmpint (q->kind, ==, SG_BO_QUERY_DUEL);
  g_assert_false (q->random);
  sg_bo_config_clear (&c);
  return bo;
}

/* M prior draws at the inputs {0.2, 0.7, 0.5} and the NP points PTS, kept
 * with probability Phi((f(.2)-f(.7)) s) Phi((f(.5)-f(.2)) s); the kept
 * values at PTS go to OUT (np x M rows, point-major); returns how many. */
static size_t
rejection_samples (const sg_bo *bo, const double *pts, size_t np, size_t M, gsl_rng *rng,
                   double *out)
{
  const sg_hyper *h = sg_bo_get_hyper (bo);
  enum { P = 5 };
  double X[P] = { 0.2, 0.7, 0.5, 0, 0 }, K[P * P], L[P * P];
  size_t n = 3 + np;
  memcpy (X + 3, pts, np * sizeof *pts);
  sg_kernel_matrix (&h->kernel, X, n, X, n, K);
  g_assert_cmpint (sg_cholesky (K, n, 1e-6, L, NULL), ==, SG_OK);
  double scale = 1 / (M_SQRT2 * h->noise.probit_sd);
  size_t kept = 0;
  for (size_t i = 0; i < M; i++)
    {
      double z[P], f[P];
      for (size_t r = 0; r < n; r++)
        z[r] = sg_rng_gaussian (rng);
      for (size_t r = 0; r < n; r++)
        {
          f[r] = h->mean;
          for (size_t k = 0; k <= r; k++)
            f[r] += L[r * n + k] * z[k];
        }
      double like = sg_norm_cdf ((f[0] - f[1]) * scale) * sg_norm_cdf ((f[2] - f[0]) * scale);
      if (gsl_rng_uniform (rng) < like)
        {
          for (size_t r = 0; r < np; r++)
            out[r * M + kept] = f[3 + r];
          kept++;
        }
    }
  /* point-major with stride M: compact to stride KEPT */
  for (size_t r = 1; r < np; r++)
    memmove (out + r * kept, out + r * M, kept * sizeof *out);
  return kept;
}

/* STAT over the N values H, and its batch standard error. */
static double
stat_with_se (stat_fn stat, const double *h, size_t n, double sd, double *se)
{
  size_t len = n / BF_BATCHES;
  double b[BF_BATCHES], mean = 0, ss = 0;
  for (size_t i = 0; i < BF_BATCHES; i++)
    mean += (b[i] = stat (h + i * len, len, sd)) / BF_BATCHES;
  for (size_t i = 0; i < BF_BATCHES; i++)
    ss += (b[i] - mean) * (b[i] - mean);
  *se = sqrt (ss / (BF_BATCHES - 1) / BF_BATCHES);
  return stat (h, n, sd);
}

static double
stat_ucb (const double *h, size_t n, double sd)
{
  (void) sd;
  double *scratch = g_new (double, n);
  double v = sg_acq_hpd (h, n, 0.95, scratch, NULL);
  g_free (scratch);
  return v;
}

static double
stat_eiig (const double *h, size_t n, double sd)
{
  return sg_acq_eiig (h, n, sd, 0.1);
}

/* The acquisition ACQ of sg_bo's proposal on the small posterior (the
 * value it maximised at q.x against q.x_ref) against STAT of brute-force
 * samples of f(q.x) - f(q.x_ref). */
static void
check_duel_brute_force (sg_bo_acquisition acq, stat_fn stat)
{
  gsl_rng *rng = sg_rng_new (21, (uint64_t) acq);
  sg_bo_query q;
  sg_bo *bo = small_posterior (acq, &q, rng);
  double sd = sg_bo_get_hyper (bo)->noise.probit_sd;

  /* the engine: joint samples at (x, x_ref) with the proposal's own
   * common random numbers are what q.acquisition is; the batch spread of
   * fresh joint samples gives its standard error */
  const sg_skewgp_samples *smp = sg_bo_skewgp_samples (bo);
  size_t N = sg_skewgp_samples_count (smp);
  double pts[2] = { q.x[0], q.x_ref[0] };
  double *F = g_new (double, 2 * N), *h = g_new (double, N);
  g_assert_cmpint (sg_skewgp_joint_samples (sg_bo_skewgp_posterior (bo), smp, pts, 2, rng, F),
                   ==, SG_OK);
  for (size_t j = 0; j < N; j++)
    h[j] = F[j] - F[N + j];
  double se_post;
  stat_with_se (stat, h, N, sd, &se_post);

  size_t M = 300000;
  double *B = g_new (double, 2 * M);
  size_t kept = rejection_samples (bo, pts, 2, M, rng, B);
  double *hb = g_new (double, kept);
  for (size_t i = 0; i < kept; i++)
    hb[i] = B[i] - B[kept + i];
  double se_brute, brute = stat_with_se (stat, hb, kept, sd, &se_brute);
  double tol = 4 * sqrt (se_post * se_post + se_brute * se_brute);
  g_test_message ("%s: proposal %.5f (se %.5f), brute force %.5f (se %.5f, %zu draws)",
                  sg_bo_acquisition_name (acq), q.acquisition, se_post, brute, se_brute, kept);
  g_assert_true (isfinite (q.acquisition));
  g_assert_cmpfloat (fabs (q.acquisition - brute), <, tol);
  g_free (F); g_free (h); g_free (B); g_free (hb);
  sg_rng_free (rng);
  sg_bo_free (bo);
}

static void
test_brute_force_ucb (void)
{
  check_duel_brute_force (SG_BO_ACQ_UCB, stat_ucb);
}

static void
test_brute_force_eiig (void)
{
  check_duel_brute_force (SG_BO_ACQ_EIIG, stat_eiig);
}

static void
test_brute_force_epi (void)
{
  check_duel_brute_force (SG_BO_ACQ_EPI, sg_acq_epi);
}

static void
test_brute_force_muc (void)
{
  check_duel_brute_force (SG_BO_ACQ_MUC, sg_acq_win_variance);
}

/* Dueling Thompson sampling: the second point's value (the win-variance
 * against the first) by brute force; the first point is a posterior
 * sample's maximiser, so it is not x_r. */
static void
test_brute_force_dts (void)
{
  check_duel_brute_force (SG_BO_ACQ_DTS, sg_acq_win_variance);
}

/* Thompson's value is one posterior sample of f(x) - f(x_r): there is no
 * expectation to estimate, but its law can be checked. At 9 points away
 * from x_r the function the proposal maximised (sg_bo_acquisition_at, the
 * same sample and common random numbers) must lie inside the brute-force
 * 0.1% .. 99.9% range of f(x) - f(x_r) at every point (a wrong sign, scale
 * or reference would leave it for some point). */
static double
quantile_of (const double *h, size_t n, double p)
{
  double *s = g_memdup2 (h, n * sizeof *h);
  qsort (s, n, sizeof *s, cmp_d);
  double v = s[(size_t) (p * (double) (n - 1))];
  g_free (s);
  return v;
}

static void
test_brute_force_thompson (void)
{
  gsl_rng *rng = sg_rng_new (21, 99);
  sg_bo_query q;
  sg_bo *bo = small_posterior (SG_BO_ACQ_THOMPSON, &q, rng);
  size_t M = 100000;
  double *B = g_new (double, 2 * M), *hb = g_new (double, M);
  for (int i = 0; i < 9; i++)
    {
      double pts[2] = { 0.05 + 0.1 * i, q.x_ref[0] }, v;
      if (fabs (pts[0] - pts[1]) < 0.05)
        continue;
      g_assert_cmpint (sg_bo_acquisition_at (bo, pts, 1, NULL, &v), ==, SG_OK);
      size_t kept = rejection_samples (bo, pts, 2, M, rng, B);
      for (size_t k = 0; k < kept; k++)
        hb[k] = B[k] - B[kept + k];
      double lo = quantile_of (hb, kept, 0.001), hi = quantile_of (hb, kept, 0.999);
      g_test_message ("thompson at %.2f: %.4f within [%.4f, %.4f]", pts[0], v, lo, hi);
      g_assert_cmpfloat (v, >, lo);
      g_assert_cmpfloat (v, <, hi);
    }
  g_free (B); g_free (hb);
  sg_rng_free (rng);
  sg_bo_free (bo);
}

/* The hallucination believer: (1) averaged over the stored samples j, the
 * believer's mean is the posterior mean and its variance plus squared
 * mean the posterior second moment (total expectation and total
 * variance: the believer is the exact conditional f | t_j) — against
 * brute force at the proposed point; (2) the proposal's value is the
 * Gaussian EI / UCB of the believer, and the Gaussian EI formula agrees
 * with a Monte Carlo mean of max(f - eta, 0) over normal draws. */
static void
check_believer (sg_bo_acquisition acq)
{
  gsl_rng *rng = sg_rng_new (23, (uint64_t) acq);
  sg_bo_query q;
  sg_bo *bo = small_posterior (acq, &q, rng);
  const sg_skewgp_posterior *post = sg_bo_skewgp_posterior (bo);
  const sg_skewgp_samples *smp = sg_bo_skewgp_samples (bo);
  size_t N = sg_skewgp_samples_count (smp);
  double *m1 = g_new (double, N), *m2 = g_new (double, N);
  for (size_t j = 0; j < N; j++)
    {
      double mu, var;
      g_assert_cmpint (sg_skewgp_conditional (post, smp, j, q.x, 1, &mu, &var), ==, SG_OK);
      g_assert_cmpfloat (var, >=, 0);
      m1[j] = mu;
      m2[j] = var + mu * mu;
    }
  double se1 = batch_se (m1, N), se2 = batch_se (m2, N), e1 = 0, e2 = 0;
  for (size_t j = 0; j < N; j++)
    e1 += m1[j] / (double) N, e2 += m2[j] / (double) N;

  size_t M = 300000;
  double *B = g_new (double, M);
  size_t kept = rejection_samples (bo, q.x, 1, M, rng, B);
  double b1 = 0, b2 = 0, v1 = 0, v2 = 0;
  for (size_t i = 0; i < kept; i++)
    b1 += B[i] / (double) kept, b2 += B[i] * B[i] / (double) kept;
  for (size_t i = 0; i < kept; i++)
    {
      v1 += (B[i] - b1) * (B[i] - b1);
      v2 += (B[i] * B[i] - b2) * (B[i] * B[i] - b2);
    }
  double sb1 = sqrt (v1 / (double) kept / (double) (kept - 1));
  double sb2 = sqrt (v2 / (double) kept / (double) (kept - 1));
  g_test_message ("%s believer: E mean %.5f (se %.5f) vs %.5f (se %.5f); E second moment "
                  "%.5f (se %.5f) vs %.5f (se %.5f)", sg_bo_acquisition_name (acq),
                  e1, se1, b1, sb1, e2, se2, b2, sb2);
  g_assert_cmpfloat (fabs (e1 - b1), <, 4 * sqrt (se1 * se1 + sb1 * sb1));
  g_assert_cmpfloat (fabs (e2 - b2), <, 4 * sqrt (se2 * se2 + sb2 * sb2));

  /* the value: EI or UCB of one believer, so between the smallest and
   * largest of the N believers' values at q.x */
  sg_bo_acq_info info;
  g_assert_cmpint (sg_bo_last_acquisition (bo, &info), ==, SG_OK);
  g_assert_cmpstr (info.name, ==, acq == SG_BO_ACQ_HB_EI ? "HB-EI" : "HB-UCB");
  double lo = INFINITY, hi = -INFINITY, eta_lo = INFINITY, eta_hi = -INFINITY;
  for (size_t j = 0; j < N; j++)
    {
      double mu, var, eta, v0;
      sg_skewgp_conditional (post, smp, j, q.x, 1, &mu, &var);
      sg_skewgp_conditional (post, smp, j, q.x_ref, 1, &eta, &v0);
      double a = acq == SG_BO_ACQ_HB_EI ? sg_acq_gauss_ei (mu, sqrt (var), eta)
                                        : sg_acq_gauss_ucb (mu, sqrt (var), SG_BO_HB_BETA_ROOT);
      lo = fmin (lo, a), hi = fmax (hi, a);
      eta_lo = fmin (eta_lo, eta), eta_hi = fmax (eta_hi, eta);
    }
  g_assert_cmpfloat (q.acquisition, >=, lo);
  g_assert_cmpfloat (q.acquisition, <=, hi);
  g_assert_cmpfloat (hi - lo, >, 0);  /* the sample matters */
  g_free (m1); g_free (m2); g_free (B);
  sg_rng_free (rng);
  sg_bo_free (bo);
}

static void
test_brute_force_hb_ei (void)
{
  check_believer (SG_BO_ACQ_HB_EI);
}

static void
test_brute_force_hb_ucb (void)
{
  check_believer (SG_BO_ACQ_HB_UCB);
}

/* Gaussian EI against the mean of max(f - eta, 0) over 10^6 normal draws. */
static void
test_gauss_ei_brute_force (void)
{
  gsl_rng *rng = sg_rng_new (5, 5);
  const double cases[][3] = { { 0.3, 0.7, 0.1 }, { -1.0, 0.4, 0.2 }, { 2.0, 1.5, 2.5 } };
  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      double mu = cases[c][0], sd = cases[c][1], eta = cases[c][2];
      size_t M = 1000000;
      double s = 0, s2 = 0;
      for (size_t i = 0; i < M; i++)
        {
          double v = fmax (mu + sd * sg_rng_gaussian (rng) - eta, 0);
          s += v, s2 += v * v;
        }
      double mean = s / (double) M, se = sqrt ((s2 / (double) M - mean * mean) / (double) M);
      double ei = sg_acq_gauss_ei (mu, sd, eta);
      g_assert_cmpfloat (fabs (ei - mean), <, 4 * se);
    }
  g_assert_cmpfloat (sg_acq_gauss_ei (1.0, 0.0, 0.5), ==, 0.5);
  g_assert_cmpfloat (sg_acq_gauss_ucb (1.0, 0.5, 2.0), ==, 2.0);
  sg_rng_free (rng);
}

/* The duel rules' names round-trip, and the settings they cannot serve
 * are refused: the believer needs the exact posterior, dts and the
 * believer choose both points so they are preference-mode rules. */
static void
test_duel_rule_config (void)
{
  const char *names[] = { "hb-ei", "hb-ucb", "dts", "muc" };
  const sg_bo_acquisition acqs[] = { SG_BO_ACQ_HB_EI, SG_BO_ACQ_HB_UCB, SG_BO_ACQ_DTS,
                                     SG_BO_ACQ_MUC };
  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      sg_bo_acquisition a;
      g_assert_cmpint (sg_bo_acquisition_parse (names[i], &a), ==, SG_OK);
      g_assert_cmpint (a, ==, acqs[i]);
      g_assert_cmpstr (sg_bo_acquisition_name (acqs[i]), ==, names[i]);
    }
  double lo[] = { 0 }, up[] = { 1 };
  sg_bo_config c = { 0 };
  sg_bo_config_default (&c, 1, lo, up);
  c.acquisition = SG_BO_ACQ_HB_EI;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  c.surrogate = SG_BO_SURROGATE_EP;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.surrogate = SG_BO_SURROGATE_SKEWGP;
  c.mode = SG_BO_MIXED;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.acquisition = SG_BO_ACQ_DTS;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_EINVAL);
  c.acquisition = SG_BO_ACQ_MUC;  /* a challenger of x_r: mixed mode too */
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  c.mode = SG_BO_PREFERENCE;
  c.surrogate = SG_BO_SURROGATE_LAPLACE;
  c.acquisition = SG_BO_ACQ_DTS;
  g_assert_cmpint (sg_bo_config_check (&c), ==, SG_OK);
  sg_bo_config_clear (&c);
}

/* The recommendation rules on a 1-D posterior of six duels: winner is
 * x_r; evaluated is an answered input whose posterior mean is the largest
 * of all answered inputs'; box is inside the box with a mean at least
 * that (the answered inputs are among its candidates) and at least the
 * mean at every point of a fine grid, up to the search's tolerance. */
static void
test_recommend (void)
{
  double lo[] = { -2.6 }, up[] = { 2.6 };
  sg_bo_config c = { 0 };
  sg_bo_config_default (&c, 1, lo, up);
  c.refit_until = c.refit_every = 0;
  sg_bo *bo;
  g_assert_cmpint (sg_bo_new (&c, &bo), ==, SG_OK);
  double x[SG_BO_MAX_DIM], mean;
  gsl_rng *rng = sg_rng_new (3, 3);
  /* no model yet */
  g_assert_cmpint (sg_bo_recommend (bo, SG_BO_RECOMMEND_EVALUATED, rng, NULL, x, &mean), ==,
                   SG_EINVAL);
  const double pts[][2] = { { 0.1, -2 }, { 0.1, 1.5 }, { 0.1, 2.2 }, { -0.5, 0.1 },
                            { 0.3, 0.1 }, { -1.0, 0.1 } };
  for (size_t i = 0; i < G_N_ELEMENTS (pts); i++)
    {
      double g0 = cos (5 * pts[i][0]) + exp (-pts[i][0] * pts[i][0] / 2);
      double g1 = cos (5 * pts[i][1]) + exp (-pts[i][1] * pts[i][1] / 2);
      g_assert_cmpint (sg_bo_answer_duel (bo, &pts[i][0], &pts[i][1], g0 >= g1), ==, SG_OK);
    }
  g_assert_cmpint (sg_bo_fit_model (bo, rng, NULL), ==, SG_OK);

  double xr[1], xw[1], mw;
  g_assert_true (sg_bo_best (bo, xr));
  g_assert_cmpint (sg_bo_recommend (bo, SG_BO_RECOMMEND_WINNER, rng, NULL, xw, &mw), ==, SG_OK);
  g_assert_cmpfloat (xw[0], ==, xr[0]);

  const sg_data *d = sg_bo_data (bo);
  sg_point_summary *s = g_new (sg_point_summary, d->n_inputs);
  g_assert_cmpint (sg_bo_summarize (bo, d->X, d->n_inputs, SG_SUMMARY_MOMENTS, 0.95, NULL, s),
                   ==, SG_OK);
  double xe[1], me;
  g_assert_cmpint (sg_bo_recommend (bo, SG_BO_RECOMMEND_EVALUATED, rng, NULL, xe, &me), ==, SG_OK);
  int found = 0;
  for (size_t i = 0; i < d->n_inputs; i++)
    {
      found |= d->X[i] == xe[0];
      g_assert_cmpfloat (s[i].mean, <=, me);
    }
  g_assert_true (found);
  g_assert_cmpfloat (me, >=, mw);

  double xb[1], mb;
  g_assert_cmpint (sg_bo_recommend (bo, SG_BO_RECOMMEND_BOX, rng, NULL, xb, &mb), ==, SG_OK);
  g_assert_cmpfloat (xb[0], >=, lo[0]);
  g_assert_cmpfloat (xb[0], <=, up[0]);
  g_assert_cmpfloat (mb, >=, me);
  enum { G = 521 };
  double grid[G];
  sg_point_summary gs[G];
  for (int i = 0; i < G; i++)
    grid[i] = lo[0] + (up[0] - lo[0]) * i / (G - 1.0);
  g_assert_cmpint (sg_bo_summarize (bo, grid, G, SG_SUMMARY_MOMENTS, 0.95, NULL, gs), ==, SG_OK);
  for (int i = 0; i < G; i++)
    g_assert_cmpfloat (gs[i].mean, <=, mb + 1e-3);
  g_test_message ("winner %.3f (mean %.3f), evaluated %.3f (%.3f), box %.3f (%.3f)", xw[0], mw,
                  xe[0], me, xb[0], mb);
  sg_bo_recommend_rule rule;
  g_assert_cmpint (sg_bo_recommend_parse ("box", &rule), ==, SG_OK);
  g_assert_cmpint (rule, ==, SG_BO_RECOMMEND_BOX);
  g_assert_cmpstr (sg_bo_recommend_name (SG_BO_RECOMMEND_EVALUATED), ==, "evaluated");
  g_free (s);
  sg_rng_free (rng);
  sg_bo_free (bo);
  sg_bo_config_clear (&c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/acq/entropy", test_entropy);
  g_test_add_func ("/acq/hpd", test_hpd);
  g_test_add_func ("/acq/probabilities", test_probabilities);
  g_test_add_func ("/acq/numeric", test_numeric);
  g_test_add_func ("/acq/maximize", test_maximize);
  g_test_add_func ("/acq/maximize-extra", test_maximize_extra);
  g_test_add_func ("/acq/maximize-deterministic", test_maximize_deterministic);
  g_test_add_func ("/acq/maximize-cancel", test_maximize_cancel);
  g_test_add_func ("/acq/qeubo-hand", test_qeubo_hand);
  g_test_add_func ("/acq/qeubo-brute-force", test_qeubo_brute_force);
  g_test_add_func ("/acq/brute-force/ucb", test_brute_force_ucb);
  g_test_add_func ("/acq/brute-force/eiig", test_brute_force_eiig);
  g_test_add_func ("/acq/brute-force/epi", test_brute_force_epi);
  g_test_add_func ("/acq/brute-force/thompson", test_brute_force_thompson);
  g_test_add_func ("/acq/brute-force/muc", test_brute_force_muc);
  g_test_add_func ("/acq/brute-force/dts", test_brute_force_dts);
  g_test_add_func ("/acq/brute-force/hb-ei", test_brute_force_hb_ei);
  g_test_add_func ("/acq/brute-force/hb-ucb", test_brute_force_hb_ucb);
  g_test_add_func ("/acq/gauss-ei-brute-force", test_gauss_ei_brute_force);
  g_test_add_func ("/acq/duel-rule-config", test_duel_rule_config);
  g_test_add_func ("/acq/recommend", test_recommend);
  return g_test_run ();
}
