/* test-svgp-rows.c — the sparse variational model for every answer kind
 * (sg-svgp-rows.h) and the study's cached population (sg-hier.h).
 *
 * 1. The sparse lowering is the dense one (every kind, per-person sds).
 * 2. The ELBO (both row likelihoods: the probit rows by Gauss-Hermite,
 *    the step rows of paper 004) against a brute-force Monte Carlo estimate that shares none
 *    of the engine's shortcuts: u ~ q(u) in the unwhitened form, f at the
 *    inputs from the exact conditional p(f | u) (explicit Cholesky of the
 *    residual covariance), the rows' noise drawn JOINTLY from the dense
 *    lowering's block covariance for the step rows (so the claim that only
 *    the marginals matter is tested, not assumed), the step likelihood of
 *    every row or log P(row | f) of the probit rows and the Gaussian numeric rows evaluated on the draws; KL by
 *    its unwhitened textbook formula. 200,000 draws; tolerance 5 standard
 *    errors of the mean (reported by the estimate itself).
 *    Every answer kind, a plain and a grouped (study) kernel.
 * 3. The gradient (m, L, delta, every kernel log-hyperparameter) against
 *    central differences (h = 1e-5: truncation ~h^2 |f'''| ~ 1e-10,
 *    rounding ~1e-16 |ELBO| / h ~ 1e-10), tolerance 1e-6 (1 + |g|), on a
 *    minibatch processed in chunks of 3 rows.
 * 4. The natural-gradient fixed point: after sg_svgp_rows_refine, q is
 *    the prior times the sites (both sides agree to 1e-6), and the exact
 *    SkewGP given the pseudo-observations of all sites reproduces the
 *    sparse predictive mean and sd (1e-4 of the prior sd: the jitter).
 * 5. The population cache (sg_hier_population): exact when it can be
 *    (Gaussian answers, population points at every setting: g's and a
 *    person's posterior equal the exact hierarchical ones); with every
 *    answer kind, convergence, the stale-fit rule (a newer answer is
 *    neither in the cache nor subtracted), a person's question from it.
 * 6. Bad input.
 */
#include "sg-bo.h"
#include "sg-common.h"
#include "sg-data.h"
#include "sg-hier.h"
#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-skewgp.h"
#include "sg-svgp-rows.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define D 2
#define M_IND 4

/* Twelve settings in [0, 1]^2 and one answer of every kind on them. */
static void
pt (size_t i, double *x)
{
  x[0] = 0.08 * (double) i + 0.03;
  x[1] = fmod (0.37 * (double) i + 0.11, 1.0);
}

static void
add_every_kind (sg_data *data, size_t shift)
{
  double x[12][D], two[2 * D], three[3 * D];
  for (size_t i = 0; i < 12; i++)
    pt ((i + shift) % 12, x[i]);
  g_assert_cmpint (sg_data_add_binary (data, x[0], 1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_binary (data, x[1], -1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_duel (data, x[2], x[3], SG_CONFIDENCE_WEAK, 0, 1), ==, SG_OK);
  g_assert_cmpint (sg_data_add_tie (data, x[4], x[5]), ==, SG_OK);
  memcpy (two, x[7], sizeof x[7]);
  memcpy (two + D, x[8], sizeof x[8]);
  g_assert_cmpint (sg_data_add_choice (data, x[6], two, 2, SG_CONFIDENCE_STRONG, 1), ==,
                   SG_OK);
  memcpy (three, x[9], sizeof x[9]);
  memcpy (three + D, x[0], sizeof x[0]);
  memcpy (three + 2 * D, x[2], sizeof x[2]);
  g_assert_cmpint (sg_data_add_ranking (data, three, 3), ==, SG_OK);
  g_assert_cmpint (sg_data_add_numeric (data, x[3], 0.4), ==, SG_OK);
  g_assert_cmpint (sg_data_add_valid (data, x[1], 0.3, 0.0), ==, SG_OK);
  g_assert_cmpint (sg_data_add_invalid (data, x[5], 1.0), ==, SG_OK);
}

static void
noise_of (sg_noise *noise)
{
  sg_noise_default (noise);
  noise->side_bias = 0.2;
  noise->tie_margin = 0.4;
  noise->probit_sd = 0.7;
  noise->numeric_sd = 0.5;
}

/* A problem: inputs, the dense and sparse lowerings, a kernel. */
typedef struct {
  size_t dim;
  sg_data plain;
  sg_hier_data hd;
  sg_hier_model model;
  double probit_sd[2];
  const double *X;
  size_t n;
  sg_likelihood dense, sparse;
  sg_kernel kernel;
  double mean;
} problem;

static void
problem_init (problem *p, int grouped)
{
  memset (p, 0, sizeof *p);
  sg_noise noise;
  noise_of (&noise);
  if (!grouped)
    {
      p->dim = D;
      sg_data_init (&p->plain, D);
      add_every_kind (&p->plain, 0);
      g_assert_cmpint (sg_kernel_init (&p->kernel, SG_KERNEL_RBF, D, 1.3, 0.4), ==, SG_OK);
      p->kernel.lengthscales[1] = 0.6;
      g_assert_cmpint (sg_likelihood_build (&p->plain, &noise, &p->dense), ==, SG_OK);
      g_assert_cmpint (sg_likelihood_build_sparse (&p->plain, &noise, &p->sparse), ==,
                       SG_OK);
      p->X = p->plain.X;
      p->n = p->plain.n_inputs;
      p->mean = 0.3;
      return;
    }
  p->dim = D + 1;
  g_assert_cmpint (sg_hier_data_init (&p->hd, D, 2), ==, SG_OK);
  /* person 0 answers every kind, person 1 every kind on shifted settings */
  for (size_t person = 0; person < 2; person++)
    {
      sg_data one;
      sg_data_init (&one, D);
      add_every_kind (&one, 5 * person);
      for (size_t k = 0; k < one.n_obs; k++)
        {
          const sg_obs *o = &one.obs[k];
          const double *a = one.X + o->a * D, *b = one.X + o->b * D;
          double opts[3 * D];
          for (size_t j = 0; j < o->count; j++)
            memcpy (opts + j * D, one.X + one.options[o->first + j] * D, D * sizeof *opts);
          switch (o->kind)
            {
            case SG_OBS_BINARY:
              /* studies hold human answers and values; a binary label is
               * a valid answer of the data layer all the same */
              g_assert_cmpint (sg_data_add_binary (&p->hd.data, (double[]) { a[0], a[1], (double) person }, (int) o->y), ==, SG_OK);
              break;
            case SG_OBS_PREFERENCE:
              g_assert_cmpint (sg_hier_add_duel (&p->hd, person, a, b, o->confidence,
                                                 o->shown_first, o->tie_offered), ==, SG_OK);
              break;
            case SG_OBS_TIE:
              g_assert_cmpint (sg_hier_add_tie (&p->hd, person, a, b), ==, SG_OK);
              break;
            case SG_OBS_CHOICE:
              g_assert_cmpint (sg_hier_add_choice (&p->hd, person, opts, opts + D,
                                                   o->count - 1, o->confidence,
                                                   o->shown_first), ==, SG_OK);
              break;
            case SG_OBS_RANKING:
              g_assert_cmpint (sg_hier_add_ranking (&p->hd, person, opts, o->count), ==,
                               SG_OK);
              break;
            case SG_OBS_NUMERIC:
              g_assert_cmpint (sg_hier_add_numeric (&p->hd, person, a, o->y), ==, SG_OK);
              break;
            default:
              break;
            }
        }
      sg_data_clear (&one);
    }
  g_assert_cmpint (sg_hier_model_init (&p->model, SG_KERNEL_RBF, D, 1.1, 0.5, 0.4, 0.3),
                   ==, SG_OK);
  noise_of (&p->model.noise);
  p->probit_sd[0] = 0.7;
  p->probit_sd[1] = 1.2;
  p->model.probit_sd = p->probit_sd;
  p->model.mean = -0.2;
  g_assert_cmpint (sg_hier_model_kernel (&p->model, &p->kernel), ==, SG_OK);
  g_assert_cmpint (sg_hier_likelihood_build (&p->model, &p->hd, &p->dense), ==, SG_OK);
  g_assert_cmpint (sg_hier_likelihood_build_sparse (&p->model, &p->hd, &p->sparse), ==,
                   SG_OK);
  p->X = p->hd.data.X;
  p->n = p->hd.data.n_inputs;
  p->mean = p->model.mean;
}

static void
problem_clear (problem *p)
{
  sg_data_clear (&p->plain);
  if (p->hd.n_people)
    sg_hier_data_clear (&p->hd);
  sg_likelihood_clear (&p->dense);
  sg_likelihood_clear (&p->sparse);
  sg_kernel_clear (&p->kernel);
  sg_hier_model_clear (&p->model);
}

static sg_svgp_rows_data
rows_of (const problem *p)
{
  return (sg_svgp_rows_data) { .dim = p->dim, .n = p->n, .X = p->X, .lik = &p->sparse,
                               .mean = p->mean };
}

/* Q with M_IND inducing points (group -1 when grouped) and a random q(v). */
static void
random_q (const problem *p, uint64_t seed, sg_svgp *q)
{
  gsl_rng *rng = sg_rng_new (seed, 0);
  double Z[M_IND * (D + 1)];
  for (size_t j = 0; j < M_IND; j++)
    {
      for (size_t c = 0; c < D; c++)
        Z[j * p->dim + c] = gsl_rng_uniform (rng);
      if (p->dim == D + 1)
        Z[j * p->dim + D] = -1;
    }
  g_assert_cmpint (sg_svgp_init (q, &p->kernel, Z, M_IND, 1, 0.07), ==, SG_OK);
  size_t np = sg_svgp_n_params (q);
  double *par = g_new (double, np);
  sg_svgp_get_params (q, par);
  size_t k = 0;
  for (size_t j = 0; j < M_IND; j++)
    par[k++] = sg_rng_gaussian (rng);
  for (size_t i = 0; i < M_IND; i++)
    for (size_t j = 0; j <= i; j++)
      par[k++] = i == j ? 0.4 + 0.5 * gsl_rng_uniform (rng) : 0.3 * sg_rng_gaussian (rng);
  g_assert_cmpint (sg_svgp_set_params (q, par), ==, SG_OK);
  g_free (par);
  sg_rng_free (rng);
}

/* ---- 1. Sparse = dense -------------------------------------------------- */

static void
check_sparse_is_dense (const problem *p)
{
  const sg_likelihood *A = &p->dense, *B = &p->sparse;
  size_t n = A->n;
  g_assert_cmpuint (A->m_probit, ==, B->m_probit);
  g_assert_cmpuint (A->m_numeric, ==, B->m_numeric);
  g_assert_null (B->W);
  g_assert_null (B->C);
  for (size_t k = 0; k < A->m_probit; k++)
    {
      double row[64] = { 0 };
      g_assert_cmpuint (n, <=, 64);
      row[B->w_index[2 * k]] += B->w_value[2 * k];
      row[B->w_index[2 * k + 1]] += B->w_value[2 * k + 1];
      for (size_t i = 0; i < n; i++)
        g_assert_cmpfloat (row[i], ==, A->W[k * n + i]);
      g_assert_cmpfloat (A->z[k], ==, B->z[k]);
      g_assert_cmpfloat (A->sigma[k], ==, B->sigma[k]);
      g_assert_cmpfloat (A->upper[k], ==, B->upper[k]);
    }
  for (size_t r = 0; r < A->m_numeric; r++)
    {
      g_assert_cmpfloat (A->C[r * n + B->c_index[r]], ==, 1);
      g_assert_cmpfloat (A->y[r], ==, B->y[r]);
    }
  g_assert_cmpuint (A->n_blocks, ==, B->n_blocks);
  g_assert_cmpmem (A->block_cov, A->cov_start[A->n_blocks] * sizeof (double),
                   B->block_cov, B->cov_start[B->n_blocks] * sizeof (double));
}

static void
test_sparse_lowering (void)
{
  for (int grouped = 0; grouped <= 1; grouped++)
    {
      problem p;
      problem_init (&p, grouped);
      check_sparse_is_dense (&p);
      sg_svgp_rows_data rd = rows_of (&p);
      g_assert_cmpint (sg_svgp_rows_check (&rd), ==, SG_OK);
      problem_clear (&p);
    }
}

/* ---- 2. ELBO against brute-force Monte Carlo ------------------------------ */

/* The lower Cholesky factor of the N x N symmetric A, with jitter. */
static double *
chol (const double *A, size_t N)
{
  double *L = g_new (double, N * N);
  g_assert_cmpint (sg_cholesky (A, N, 1e-6, L, NULL), ==, SG_OK);
  return L;
}

static double
mc_elbo (const problem *p, const sg_svgp *q, sg_svgp_rows_likelihood like, size_t draws,
         double *se)
{
  size_t n = p->n, M = q->M;
  const sg_likelihood *lik = &p->dense;
  size_t ma = lik->m_probit, mr = lik->m_numeric;
  /* Kzz (with the model's jitter), Kxz, Kxx */
  double *Kzz = g_new (double, M * M), *Kxz = g_new (double, n * M);
  double *Kxx = g_new (double, n * n);
  sg_kernel_matrix (&q->kernel, q->Z, M, q->Z, M, Kzz);
  for (size_t j = 0; j < M; j++)
    Kzz[j * M + j] += SG_SVGP_JITTER * q->kernel.variance;
  sg_kernel_matrix (&q->kernel, p->X, n, q->Z, M, Kxz);
  sg_kernel_matrix (&q->kernel, p->X, n, p->X, n, Kxx);
  /* P = Kxz Kzz^{-1}; residual R = Kxx - P Kzx */
  double *Lz = chol (Kzz, M), *P = g_new (double, M * n);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < M; j++)
      P[j * n + i] = Kxz[i * M + j];
  sg_cholesky_solve (Lz, M, P, n);   /* P = Kzz^{-1} Kzx (M x n) */
  double *R = g_new (double, n * n);
  memcpy (R, Kxx, n * n * sizeof *R);
  sg_gemm (0, 0, n, n, M, -1, Kxz, P, 1, R);
  sg_symmetrize (R, n);
  double *Lr = chol (R, n);
  /* q(u) = N(Lk m, Lk L L^T Lk^T), unwhitened */
  double *mu_u = g_new (double, M), *Lu = g_new (double, M * M);
  sg_gemv (0, M, M, 1, q->Lk, q->m, 0, mu_u);
  sg_gemm (0, 0, M, M, M, 1, q->Lk, q->L, 0, Lu);
  /* the rows' noise: the dense lowering's full Sigma */
  double *Sig = g_new0 (double, ma * ma);
  sg_likelihood_add_noise_cov (lik, Sig, ma, 0);
  double *Ls = chol (Sig, ma);
  gsl_rng *rng = sg_rng_new (99, 0);
  double *eu = g_new (double, M), *u = g_new (double, M), *f = g_new (double, n);
  double *er = g_new (double, n), *es = g_new (double, ma), *t = g_new (double, ma);
  double sum = 0, sum2 = 0, logd = log (q->delta), log1md = log1p (-q->delta);
  for (size_t s = 0; s < draws; s++)
    {
      for (size_t j = 0; j < M; j++)
        eu[j] = sg_rng_gaussian (rng);
      memcpy (u, mu_u, M * sizeof *u);
      sg_gemv (0, M, M, 1, Lu, eu, 1, u);
      for (size_t i = 0; i < n; i++)
        er[i] = sg_rng_gaussian (rng);
      for (size_t i = 0; i < n; i++)
        f[i] = p->mean;
      sg_gemv (1, M, n, 1, P, u, 1, f);
      sg_gemv (0, n, n, 1, Lr, er, 1, f);
      for (size_t k = 0; k < ma; k++)
        es[k] = sg_rng_gaussian (rng);
      double lp = 0;
      for (size_t k = 0; k < ma; k++)
        {
          double tk = lik->z[k];
          for (size_t i = 0; i < n; i++)
            tk += lik->W[k * n + i] * f[i];
          if (like == SG_SVGP_ROWS_PROBIT)
            {
              /* log P(0 < t_k + e_k < upper_k | f), the row's own sd */
              double a = tk / lik->sigma[k], b = (tk - lik->upper[k]) / lik->sigma[k];
              lp += log (sg_norm_cdf (a) - sg_norm_cdf (b));
              continue;
            }
          for (size_t j = 0; j <= k; j++)
            tk += Ls[k * ma + j] * es[j];
          int H = tk > 0 && tk < lik->upper[k];
          lp += H ? log1md : logd;
        }
      for (size_t r = 0; r < mr; r++)
        {
          double fr = 0;
          for (size_t i = 0; i < n; i++)
            fr += lik->C[r * n + i] * f[i];
          double e = lik->y[r] - fr, v = lik->noise_var[r];
          lp += -0.5 * log (2 * M_PI * v) - e * e / (2 * v);
        }
      sum += lp;
      sum2 += lp * lp;
    }
  double mean = sum / (double) draws;
  *se = sqrt ((sum2 / (double) draws - mean * mean) / (double) draws);
  /* KL(N(mu_u, S_u) || N(0, Kzz)) = (tr(Kzz^{-1} S_u) + mu^T Kzz^{-1} mu - M
   *                                   + log det Kzz - log det S_u) / 2 */
  double *Su = g_new (double, M * M), *KiS = g_new (double, M * M);
  sg_gemm (0, 1, M, M, M, 1, Lu, Lu, 0, Su);
  memcpy (KiS, Su, M * M * sizeof *KiS);
  sg_cholesky_solve (Lz, M, KiS, M);
  double tr = 0, quad = 0;
  double *Kim = g_new (double, M);
  memcpy (Kim, mu_u, M * sizeof *Kim);
  sg_cholesky_solve (Lz, M, Kim, 1);
  for (size_t j = 0; j < M; j++)
    {
      tr += KiS[j * M + j];
      quad += mu_u[j] * Kim[j];
    }
  double *Lsu = chol (Su, M);
  double kl = 0.5 * (tr + quad - (double) M + sg_cholesky_logdet (Lz, M)
                     - sg_cholesky_logdet (Lsu, M));
  void *bufs[] = { Kzz, Kxz, Kxx, Lz, P, R, Lr, mu_u, Lu, Sig, Ls, eu, u, f, er, es, t,
                   Su, KiS, Kim, Lsu };
  for (size_t i = 0; i < G_N_ELEMENTS (bufs); i++)
    g_free (bufs[i]);
  sg_rng_free (rng);
  return mean - kl;
}

static void
test_elbo_monte_carlo (void)
{
  for (int like = 0; like <= 1; like++)
  for (int grouped = 0; grouped <= 1; grouped++)
    {
      problem p;
      problem_init (&p, grouped);
      sg_svgp q;
      random_q (&p, 7 + grouped, &q);
      sg_svgp_rows_data rd = rows_of (&p);
      rd.likelihood = like;
      sg_svgp_workspace *ws = sg_svgp_workspace_new (p.dim, q.M, 5);
      double elbo, se;
      g_assert_cmpint (sg_svgp_rows_elbo (&q, &rd, NULL, 0, ws, &elbo, NULL), ==, SG_OK);
      double mc = mc_elbo (&p, &q, like, 200000, &se);
      if (g_test_verbose ())
        g_test_message ("likelihood %d, grouped %d: ELBO %.6f, Monte Carlo %.6f +- %.6f",
                        like, grouped, elbo, mc, se);
      g_assert_cmpfloat (fabs (elbo - mc), <, 5 * se);
      g_assert_cmpfloat (se, <, 0.05);   /* the check has power: 5 se < 0.25 */
      sg_svgp_workspace_free (ws);
      sg_svgp_clear (&q);
      problem_clear (&p);
    }
}

/* ---- 3. Gradient against central differences ------------------------------ */

static void
test_gradient (void)
{
  for (int like = 0; like <= 1; like++)
  for (int grouped = 0; grouped <= 1; grouped++)
    {
      problem p;
      problem_init (&p, grouped);
      sg_svgp q;
      random_q (&p, 11 + grouped, &q);
      sg_svgp_rows_data rd = rows_of (&p);
      rd.likelihood = like;
      size_t units = sg_svgp_rows_count (&rd), nb = 0, rows[64];
      for (size_t u = 0; u < units; u += 1 + (u % 3 == 1))
        rows[nb++] = units - 1 - u;   /* a minibatch, out of order */
      sg_svgp_workspace *ws = sg_svgp_workspace_new (p.dim, q.M, 3);
      size_t np = sg_svgp_n_params (&q);
      double *par = g_new (double, np), *grad = g_new (double, np), e0;
      sg_svgp_get_params (&q, par);
      g_assert_cmpint (sg_svgp_rows_elbo (&q, &rd, rows, nb, ws, &e0, grad), ==, SG_OK);
      double h = 1e-5;
      for (size_t k = 0; k < np; k++)
        {
          sg_svgp t;
          double ep, em, save = par[k];
          g_assert_cmpint (sg_svgp_init (&t, &q.kernel, q.Z, q.M, 1, q.delta), ==, SG_OK);
          par[k] = save + h;
          g_assert_cmpint (sg_svgp_set_params (&t, par), ==, SG_OK);
          g_assert_cmpint (sg_svgp_rows_elbo (&t, &rd, rows, nb, ws, &ep, NULL), ==, SG_OK);
          par[k] = save - h;
          g_assert_cmpint (sg_svgp_set_params (&t, par), ==, SG_OK);
          g_assert_cmpint (sg_svgp_rows_elbo (&t, &rd, rows, nb, ws, &em, NULL), ==, SG_OK);
          par[k] = save;
          double fd = (ep - em) / (2 * h);
          if (fabs (fd - grad[k]) > 1e-6 * (1 + fabs (grad[k])))
            g_error ("likelihood %d, grouped %d, parameter %zu of %zu: gradient %.10g, "
                     "differences %.10g", like, grouped, k, np, grad[k], fd);
          sg_svgp_clear (&t);
        }
      g_free (par);
      g_free (grad);
      sg_svgp_workspace_free (ws);
      sg_svgp_clear (&q);
      problem_clear (&p);
    }
}

/* ---- 4. Fixed point and pseudo-observations -------------------------------- */

static void
test_refine_and_pseudo (void)
{
  for (int grouped = 0; grouped <= 1; grouped++)
    {
      problem p;
      problem_init (&p, grouped);
      sg_svgp q;
      random_q (&p, 21 + grouped, &q);
      sg_svgp_rows_data rd = rows_of (&p);
      g_assert_cmpint (sg_svgp_rows_refine (&q, &rd, 200, 0.5), ==, SG_OK);
      size_t M = q.M;
      double Lam[M_IND * M_IND] = { 0 }, eta[M_IND] = { 0 };
      g_assert_cmpint (sg_svgp_rows_sites (&q, &rd, NULL, 0, 1, Lam, eta), ==, SG_OK);
      /* (L L^T)^{-1} = I + Lambda and (L L^T)^{-1} m = eta */
      double S[M_IND * M_IND], Ls[M_IND * M_IND], Pm[M_IND];
      sg_gemm (0, 1, M, M, M, 1, q.L, q.L, 0, S);
      g_assert_cmpint (sg_cholesky (S, M, 0, Ls, NULL), ==, SG_OK);
      memcpy (Pm, q.m, sizeof Pm);
      sg_cholesky_solve (Ls, M, Pm, 1);
      double Pinv[M_IND * M_IND];
      g_assert_cmpint (sg_cholesky_inverse (Ls, M, Pinv), ==, SG_OK);
      for (size_t i = 0; i < M; i++)
        {
          g_assert_cmpfloat (fabs (Pm[i] - eta[i]), <, 1e-6 * (1 + fabs (eta[i])));
          for (size_t j = 0; j < M; j++)
            {
              double want = Lam[i * M + j] + (i == j);
              g_assert_cmpfloat (fabs (Pinv[i * M + j] - want), <, 1e-6 * (1 + fabs (want)));
            }
        }
      /* the exact SkewGP given the pseudo-observations = the sparse predictive */
      sg_svgp_pseudo ps;
      g_assert_cmpint (sg_svgp_pseudo_from_sites (&q, Lam, eta, p.mean, &ps), ==, SG_OK);
      g_assert_cmpuint (ps.r, ==, M);
      sg_likelihood none = { .n = 0 }, all;
      double *X = NULL;
      g_assert_cmpint (sg_svgp_pseudo_append (&ps, NULL, 0, &none, &X, &all), ==, SG_OK);
      sg_skewgp_prior prior;
      sg_skewgp_prior_gp (&prior, &q.kernel, p.mean);
      sg_skewgp_posterior *post;
      g_assert_cmpint (sg_skewgp_posterior_new (&prior, X, &all, &post), ==, SG_OK);
      sg_skewgp_samples *samples;
      gsl_rng *rng = sg_rng_new (5, 0);
      g_assert_cmpint (sg_skewgp_sample (post, 10, NULL, rng, NULL, &samples), ==, SG_OK);
      double XS[3 * (D + 1)] = { 0.2, 0.7, 0, 0.5, 0.5, 1, 0.9, 0.1, -1 };
      double xs[3 * (D + 1)];
      for (size_t i = 0; i < 3; i++)
        {
          memcpy (xs + i * p.dim, XS + i * (D + 1), D * sizeof *xs);
          if (grouped)
            xs[i * p.dim + D] = XS[i * (D + 1) + D];
        }
      double mean[3], var[3];
      g_assert_cmpint (sg_svgp_predict (&q, xs, 3, mean, var), ==, SG_OK);
      for (size_t i = 0; i < 3; i++)
        {
          double m_e, v_e;
          g_assert_cmpint (sg_skewgp_conditional (post, samples, 0, xs + i * p.dim, 1, &m_e,
                                                  &v_e), ==, SG_OK);
          double sd0 = sqrt (sg_kernel_eval (&q.kernel, xs + i * p.dim, xs + i * p.dim));
          /* the sparse model's k(Z, Z) carries SG_SVGP_JITTER v on its
           * diagonal and the exact prior does not: differences of order
           * 1e-6 v, amplified by k(Z, Z)'s conditioning (measured 2.5e-6) */
          g_assert_cmpfloat (fabs (m_e - (mean[i] + p.mean)), <, 1e-4 * sd0);
          g_assert_cmpfloat (fabs (sqrt (v_e) - sqrt (var[i])), <, 1e-4 * sd0);
        }
      sg_skewgp_samples_free (samples);
      sg_skewgp_posterior_free (post);
      sg_rng_free (rng);
      sg_likelihood_clear (&all);
      free (X);
      sg_svgp_pseudo_clear (&ps);
      sg_svgp_clear (&q);
      problem_clear (&p);
    }
}

/* ---- 5. The population cache ---------------------------------------------- */

/* Mean and sd of the posterior at B points XS (Gaussian posteriors: the
 * remainder given sample 0 of t, which is the posterior itself). */
static void
gauss_at (const sg_skewgp_posterior *post, const double *XS, size_t b, double *mean,
          double *sd)
{
  gsl_rng *rng = sg_rng_new (1, 0);
  sg_skewgp_samples *samples;
  g_assert_cmpint (sg_skewgp_sample (post, 4, NULL, rng, NULL, &samples), ==, SG_OK);
  for (size_t i = 0; i < b; i++)
    {
      double v;
      g_assert_cmpint (sg_skewgp_conditional (post, samples, 0, XS + i * (D + 1), 1,
                                              &mean[i], &v), ==, SG_OK);
      sd[i] = sqrt (v);
    }
  sg_skewgp_samples_free (samples);
  sg_rng_free (rng);
}

/* With Gaussian answers and population points at every setting, the
 * cache is exact: g's posterior from everyone's summary, and f_p's from
 * the others' summary plus p's own answers exactly, are the hierarchical
 * model's exact posteriors (the PITC blocks, the integration of each
 * h_q, the cavity and the pseudo-observations checked at once). */
static void
test_population_exact_gaussian (void)
{
  const double settings[5][D] = { { 0.1, 0.2 }, { 0.4, 0.9 }, { 0.5, 0.5 }, { 0.8, 0.3 },
                                  { 0.95, 0.7 } };
  sg_hier_data hd;
  sg_hier_data_init (&hd, D, 3);
  for (size_t p = 0; p < 3; p++)
    for (size_t j = 0; j < 5; j++)
      if ((p + j) % 4 != 0)
        g_assert_cmpint (sg_hier_add_numeric (&hd, p, settings[j],
                                              sin (3 * settings[j][0] + (double) p)
                                                + settings[j][1]), ==, SG_OK);
  sg_hier_model model;
  g_assert_cmpint (sg_hier_model_init (&model, SG_KERNEL_RBF, D, 1.2, 0.4, 0.3, 0.5), ==,
                   SG_OK);
  model.noise.numeric_sd = 0.3;
  model.mean = 0.25;
  sg_hier_population pop;
  gsl_rng *rng = sg_rng_new (4, 0);
  g_assert_cmpint (sg_hier_population_new (&model, &hd, 5, 50, rng, NULL, &pop), ==, SG_OK);
  g_assert_cmpuint (pop.M, ==, 5);
  g_assert_cmpuint (pop.seen[1], ==, 4);
  sg_skewgp_posterior *exact, *cached;
  g_assert_cmpint (sg_hier_posterior_new (&model, &hd, &exact), ==, SG_OK);
  double X[4 * (D + 1)] = { 0.3, 0.3, -1, 0.7, 0.6, -1, 0.3, 0.3, 1, 0.7, 0.6, 1 };
  double me[4], se[4], mc[4], sc[4];
  gauss_at (exact, X, 4, me, se);
  /* g from everyone's summary */
  sg_hier_data none;
  sg_hier_data_init (&none, D, 3);
  sg_svgp_pseudo ps;
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &model, NULL, SG_HIER_POPULATION, &ps), ==,
                   SG_OK);
  g_assert_cmpint (sg_hier_posterior_new_summary (&model, &none, &ps, &cached), ==, SG_OK);
  gauss_at (cached, X, 2, mc, sc);
  /* the tolerance is the jitter of k(Z, Z) (SG_SVGP_JITTER v, 1e-6) */
  for (size_t i = 0; i < 2; i++)
    {
      g_assert_cmpfloat (fabs (mc[i] - me[i]), <, 1e-4 * se[i]);
      g_assert_cmpfloat (fabs (sc[i] - se[i]), <, 1e-4 * se[i]);
    }
  sg_skewgp_posterior_free (cached);
  sg_svgp_pseudo_clear (&ps);
  /* f_1 from the others' summary and person 1's own answers */
  sg_hier_data own;
  g_assert_cmpint (sg_hier_data_person (&hd, 1, &own), ==, SG_OK);
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &model, &own, 1, &ps), ==, SG_OK);
  g_assert_cmpint (sg_hier_posterior_new_summary (&model, &own, &ps, &cached), ==, SG_OK);
  gauss_at (cached, X, 4, mc, sc);
  for (size_t i = 0; i < 4; i++)
    {
      g_assert_cmpfloat (fabs (mc[i] - me[i]), <, 1e-4 * se[i]);
      g_assert_cmpfloat (fabs (sc[i] - se[i]), <, 1e-4 * se[i]);
    }
  sg_skewgp_posterior_free (cached);
  sg_skewgp_posterior_free (exact);
  sg_svgp_pseudo_clear (&ps);
  sg_hier_data_clear (&own);
  sg_hier_data_clear (&none);
  sg_hier_population_clear (&pop);
  sg_hier_data_clear (&hd);
  sg_hier_model_clear (&model);
  sg_rng_free (rng);
}

static double
max_abs_diff (const double *a, const double *b, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax (m, fabs (a[i] - b[i]));
  return m;
}

/* Every answer kind: CVI converges; the stale-fit rule (an answer after
 * the cache is in the person's exact part, never subtracted: the summary
 * is the same with or without it); OWN that lacks answers the cache saw
 * is refused; a person's question from the cache does not read the
 * others' raw answers; a newcomer is asked from the population alone. */
static void
test_population_cache (void)
{
  problem p;
  problem_init (&p, 1);
  sg_hier_population pop;
  gsl_rng *rng = sg_rng_new (3, 0);
  g_assert_cmpint (sg_hier_population_new (&p.model, &p.hd, 6, 200, rng, NULL, &pop), ==,
                   SG_OK);
  g_assert_cmpfloat (pop.change, <=, 1e-6);
  g_assert_cmpuint (pop.M, ==, 6);
  for (size_t j = 0; j < pop.M; j++)
    g_assert_cmpfloat (pop.Z[j * 3 + 2], ==, -1);
  sg_hier_data own, later;
  g_assert_cmpint (sg_hier_data_person (&p.hd, 1, &own), ==, SG_OK);
  g_assert_cmpint (sg_hier_data_person (&p.hd, 1, &later), ==, SG_OK);
  double a[D] = { 0.31, 0.62 }, b[D] = { 0.77, 0.05 };
  g_assert_cmpint (sg_hier_add_duel (&later, 1, a, b, SG_CONFIDENCE_NONE, SG_SHOWN_NONE, 0),
                   ==, SG_OK);
  sg_svgp_pseudo p1, p2;
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &p.model, &own, 1, &p1), ==, SG_OK);
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &p.model, &later, 1, &p2), ==, SG_OK);
  g_assert_cmpuint (p1.r, ==, p2.r);
  g_assert_cmpfloat (max_abs_diff (p1.y, p2.y, p1.r), <, 1e-12);
  g_assert_cmpfloat (max_abs_diff (p1.C, p2.C, p1.r * p1.M), <, 1e-12);
  /* the summary without person 1 differs from everyone's */
  sg_svgp_pseudo all;
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &p.model, NULL, SG_HIER_POPULATION, &all),
                   ==, SG_OK);
  g_assert_true (all.r != p1.r || max_abs_diff (all.y, p1.y, p1.r) > 1e-6);
  sg_svgp_pseudo_clear (&all);
  /* a person's data that lacks answers the cache saw is refused */
  sg_hier_data fewer;
  sg_hier_data_init (&fewer, D, 2);
  g_assert_cmpint (sg_hier_add_duel (&fewer, 1, a, b, SG_CONFIDENCE_NONE, SG_SHOWN_NONE, 0),
                   ==, SG_OK);
  sg_svgp_pseudo bad = { 0 };
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &p.model, &fewer, 1, &bad), ==, SG_EINVAL);
  g_assert_null (bad.C);
  sg_hier_data_clear (&fewer);
  /* the question: the same from the study's data or from the person's own */
  sg_hier_propose_options po;
  sg_hier_propose_options_default (&po, D);
  po.n_samples = 200;
  po.population = &p1;
  sg_hier_question qa, qb;
  gsl_rng *r1 = sg_rng_new (8, 0), *r2 = sg_rng_new (8, 0);
  g_assert_cmpint (sg_hier_propose_duel (&p.model, &p.hd, 1, &po, r1, NULL, &qa), ==, SG_OK);
  g_assert_cmpint (sg_hier_propose_duel (&p.model, &own, 1, &po, r2, NULL, &qb), ==, SG_OK);
  g_assert_true (qa.has_ref);
  for (size_t j = 0; j < D; j++)
    {
      g_assert_cmpfloat (qa.x[j], >=, 0);
      g_assert_cmpfloat (qa.x[j], <=, 1);
      g_assert_cmpfloat (qa.x[j], ==, qb.x[j]);
      g_assert_cmpfloat (qa.x_ref[j], ==, qb.x_ref[j]);
    }
  /* a newcomer (index beyond the cache) is asked from the population */
  sg_hier_data none;
  sg_hier_data_init (&none, D, 3);
  sg_svgp_pseudo pn;
  g_assert_cmpint (sg_hier_population_pseudo (&pop, &p.model, &none, 2, &pn), ==, SG_OK);
  po.population = &pn;
  g_assert_cmpint (sg_hier_propose_duel (&p.model, &none, 2, &po, r1, NULL, &qa), ==, SG_OK);
  g_assert_true (qa.has_ref);
  sg_svgp_pseudo_clear (&pn);
  sg_hier_data_clear (&none);
  sg_rng_free (r1);
  sg_rng_free (r2);
  sg_svgp_pseudo_clear (&p1);
  sg_svgp_pseudo_clear (&p2);
  sg_hier_data_clear (&own);
  sg_hier_data_clear (&later);
  sg_hier_population_clear (&pop);
  sg_rng_free (rng);
  problem_clear (&p);
}

/* The sparse ELBO fit of a study's population kernel runs and holds the
 * individual part. */
static void
test_sparse_fit (void)
{
  problem p;
  problem_init (&p, 1);
  sg_svgp_rows_options opt;
  sg_svgp_rows_options_default (&opt);
  opt.n_inducing = 6;
  opt.train.iterations = 300;
  opt.train.learning_rate = 0.05;
  sg_svgp q;
  gsl_rng *rng = sg_rng_new (3, 0);
  g_assert_cmpint (sg_hier_sparse_fit (&p.model, &p.hd, &opt, rng, NULL, &q), ==, SG_OK);
  g_assert_true (isfinite (q.elbo));
  g_assert_cmpfloat (q.kernel.ind_variance, ==, p.model.ind.variance);
  g_assert_cmpfloat (q.kernel.ind_lengthscales[0], ==, p.model.ind.lengthscales[0]);
  g_assert_cmpfloat (q.kernel.lengthscales[0], !=, p.model.pop.lengthscales[0]);
  sg_svgp_clear (&q);
  sg_rng_free (rng);
  problem_clear (&p);
}

/* ---- Long sessions: sg_bo's summary ---------------------------------------- */

/* The tail of a data set lowers to the tail of the rows. */
static void
test_data_tail (void)
{
  sg_data data, tail, again;
  sg_data_init (&data, D);
  add_every_kind (&data, 0);
  add_every_kind (&data, 3);
  size_t first = data.n_obs / 2 + 1;
  g_assert_cmpint (sg_data_tail (&data, first, &tail), ==, SG_OK);
  g_assert_cmpuint (tail.n_obs, ==, data.n_obs - first);
  sg_data_init (&again, D);
  add_every_kind (&again, 3);
  while (again.n_obs > tail.n_obs)
    {
      /* the same observations, re-added from the start of the second set */
      sg_data t2;
      g_assert_cmpint (sg_data_tail (&again, again.n_obs - tail.n_obs, &t2), ==, SG_OK);
      sg_data_clear (&again);
      again = t2;
    }
  sg_noise noise;
  noise_of (&noise);
  sg_likelihood A, B;
  g_assert_cmpint (sg_likelihood_build (&tail, &noise, &A), ==, SG_OK);
  g_assert_cmpint (sg_likelihood_build (&again, &noise, &B), ==, SG_OK);
  g_assert_cmpuint (A.n, ==, B.n);
  g_assert_cmpuint (A.m_probit, ==, B.m_probit);
  g_assert_cmpmem (A.W, A.m_probit * A.n * sizeof (double), B.W, B.m_probit * B.n * sizeof (double));
  g_assert_cmpmem (A.z, A.m_probit * sizeof (double), B.z, B.m_probit * sizeof (double));
  g_assert_cmpmem (A.y, A.m_numeric * sizeof (double), B.y, B.m_numeric * sizeof (double));
  g_assert_cmpint (sg_data_tail (&data, data.n_obs + 1, &again), ==, SG_EINVAL);
  sg_likelihood_clear (&A);
  sg_likelihood_clear (&B);
  sg_data_clear (&tail);
  sg_data_clear (&again);
  sg_data_clear (&data);
}

static double
utility (const double *x)
{
  return sin (4 * x[0]) + cos (3 * x[1]);
}

/* The model switch of a long session: with a summary of the first answers
 * set, proposals run on the answers since plus the summary, agree with the
 * exact model's posterior, and the summary goes when an answer it saw is
 * undone. */
static void
test_bo_summary (void)
{
  double lo[D] = { 0, 0 }, hi[D] = { 1, 1 };
  sg_bo_config cfg;
  g_assert_cmpint (sg_bo_config_default (&cfg, D, lo, hi), ==, SG_OK);
  cfg.n_samples = 300;
  sg_bo *exact, *sparse;
  g_assert_cmpint (sg_bo_new (&cfg, &exact), ==, SG_OK);
  g_assert_cmpint (sg_bo_new (&cfg, &sparse), ==, SG_OK);
  gsl_rng *rng = sg_rng_new (12, 0);
  for (size_t k = 0; k < 40; k++)
    {
      double a[D] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      double b[D] = { gsl_rng_uniform (rng), gsl_rng_uniform (rng) };
      int a_won = utility (a) > utility (b);
      g_assert_cmpint (sg_bo_answer_duel (exact, a, b, a_won), ==, SG_OK);
      g_assert_cmpint (sg_bo_answer_duel (sparse, a, b, a_won), ==, SG_OK);
    }
  sg_svgp_rows_options opt;
  sg_svgp_rows_options_default (&opt);
  opt.train.fix_kernel = 1;
  opt.train.iterations = 600;
  opt.train.learning_rate = 0.03;
  sg_svgp_pseudo ps;
  g_assert_cmpint (sg_svgp_rows_session_summary (sg_bo_get_hyper (sparse), sg_bo_data (sparse),
                                                 39, &opt, rng, NULL, NULL, &ps), ==, SG_OK);
  g_assert_cmpint (sg_bo_set_summary (sparse, &ps, 41), ==, SG_EINVAL);
  g_assert_cmpint (sg_bo_set_summary (sparse, &ps, 39), ==, SG_OK);
  size_t seen = 0;
  g_assert_nonnull (sg_bo_get_summary (sparse, &seen));
  g_assert_cmpuint (seen, ==, 39);
  sg_bo_query qe, qs;
  gsl_rng *r1 = sg_rng_new (5, 0), *r2 = sg_rng_new (5, 0);
  g_assert_cmpint (sg_bo_propose (exact, r1, NULL, &qe), ==, SG_OK);
  g_assert_cmpint (sg_bo_propose (sparse, r2, NULL, &qs), ==, SG_OK);
  double XS[3 * D] = { 0.2, 0.3, 0.6, 0.6, 0.9, 0.1 };
  sg_point_summary se[3], ss[3];
  g_assert_cmpint (sg_bo_summarize (exact, XS, 3, SG_SUMMARY_MOMENTS, 0.95, NULL, se), ==,
                   SG_OK);
  g_assert_cmpint (sg_bo_summarize (sparse, XS, 3, SG_SUMMARY_MOMENTS, 0.95, NULL, ss), ==,
                   SG_OK);
  for (size_t i = 0; i < 3; i++)
    {
      if (g_test_verbose ())
        g_test_message ("x%zu: exact %.3f +- %.3f, summary %.3f +- %.3f", i, se[i].mean,
                        se[i].sd, ss[i].mean, ss[i].sd);
      /* the Gaussian sparse posterior of the first 39 answers (+ the last
       * exactly) against the exact one, itself a 300-sample estimate (its
       * standard error ~0.06 sd); measured within 0.03 sd */
      g_assert_cmpfloat (fabs (ss[i].mean - se[i].mean), <, 0.15 * se[i].sd);
      g_assert_cmpfloat (fabs (ss[i].sd / se[i].sd - 1), <, 0.15);
    }
  /* undoing the last answer keeps the summary, undoing one it saw drops it */
  g_assert_cmpint (sg_bo_undo (sparse), ==, SG_OK);
  g_assert_nonnull (sg_bo_get_summary (sparse, NULL));
  g_assert_cmpint (sg_bo_undo (sparse), ==, SG_OK);
  g_assert_null (sg_bo_get_summary (sparse, &seen));
  g_assert_cmpuint (seen, ==, 0);
  g_assert_cmpint (sg_bo_propose (sparse, r2, NULL, &qs), ==, SG_OK);
  sg_svgp_pseudo_clear (&ps);
  sg_bo_free (exact);
  sg_bo_free (sparse);
  sg_rng_free (rng);
  sg_rng_free (r1);
  sg_rng_free (r2);
  sg_bo_config_clear (&cfg);
}

/* ---- 6. Bad input ----------------------------------------------------------- */

static void
test_bad_input (void)
{
  problem p;
  problem_init (&p, 0);
  sg_svgp q;
  random_q (&p, 41, &q);
  sg_svgp_rows_data rd = rows_of (&p);
  sg_svgp_workspace *ws = sg_svgp_workspace_new (p.dim, q.M, 4);
  double e = 42, Lam[M_IND * M_IND] = { 0 }, eta[M_IND] = { 0 };
  /* the dense form is not the sparse one */
  sg_svgp_rows_data dense = rd;
  dense.lik = &p.dense;
  g_assert_cmpint (sg_svgp_rows_elbo (&q, &dense, NULL, 0, ws, &e, NULL), ==, SG_EINVAL);
  size_t bad = 1000;
  g_assert_cmpint (sg_svgp_rows_elbo (&q, &rd, &bad, 1, ws, &e, NULL), ==, SG_EINVAL);
  sg_svgp_rows_data nan_mean = rd;
  nan_mean.mean = NAN;
  g_assert_cmpint (sg_svgp_rows_sites (&q, &nan_mean, NULL, 0, 1, Lam, eta), ==, SG_EINVAL);
  g_assert_cmpfloat (e, ==, 42);
  g_assert_cmpint (sg_svgp_rows_refine (&q, &rd, 1, 0), ==, SG_EINVAL);
  Lam[0] = NAN;
  sg_svgp_pseudo ps = { 0 };
  g_assert_cmpint (sg_svgp_pseudo_from_sites (&q, Lam, eta, 0, &ps), ==, SG_EINVAL);
  g_assert_null (ps.C);
  sg_svgp_workspace_free (ws);
  sg_svgp_clear (&q);
  problem_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/svgp-rows/sparse-lowering", test_sparse_lowering);
  g_test_add_func ("/svgp-rows/elbo-monte-carlo", test_elbo_monte_carlo);
  g_test_add_func ("/svgp-rows/gradient", test_gradient);
  g_test_add_func ("/svgp-rows/refine-pseudo", test_refine_and_pseudo);
  g_test_add_func ("/svgp-rows/population-exact-gaussian", test_population_exact_gaussian);
  g_test_add_func ("/svgp-rows/population-cache", test_population_cache);
  g_test_add_func ("/svgp-rows/sparse-fit", test_sparse_fit);
  g_test_add_func ("/svgp-rows/data-tail", test_data_tail);
  g_test_add_func ("/svgp-rows/bo-summary", test_bo_summary);
  g_test_add_func ("/svgp-rows/bad-input", test_bad_input);
  return g_test_run ();
}
