/* sg-hier-questions.c — what a study asks of the hierarchical posterior
 * (sg-hier.h): P(a person's best differs from the population's), the
 * recommended setting, and the next duel for one participant. */
#include "sg-hier.h"

#include "sg-acq.h"
#include "sg-linalg.h"
#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t
argmax_column (const double *F, size_t c, size_t N, size_t j)
{
  size_t best = 0;
  for (size_t i = 1; i < c; i++)
    if (F[i * N + j] > F[best * N + j])
      best = i;
  return best;
}

static double
distance (const double *a, const double *b, size_t d)
{
  double s = 0;
  for (size_t k = 0; k < d; k++)
    s += (a[k] - b[k]) * (a[k] - b[k]);
  return sqrt (s);
}

sg_status
sg_hier_prob_best_differs (const sg_skewgp_posterior *post,
                           const sg_skewgp_samples *samples,
                           const double *cand, size_t c, size_t person,
                           double tolerance, gsl_rng *rng,
                           double *prob, double *se)
{
  if (post == NULL || samples == NULL || cand == NULL || c == 0 || rng == NULL
      || prob == NULL || person == SG_HIER_POPULATION || !(tolerance >= 0)
      || sg_skewgp_posterior_dim (post) < 2)
    return SG_EINVAL;
  size_t D = sg_skewgp_posterior_dim (post), d = D - 1;
  size_t N = sg_skewgp_samples_count (samples);
  double *XS = malloc (2 * c * D * sizeof *XS);
  double *F = malloc (2 * c * N * sizeof *F);
  int status = XS && F ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_hier_points (d, SG_HIER_POPULATION, cand, c, XS);
  if (status == SG_OK)
    status = sg_hier_points (d, person, cand, c, XS + c * D);
  /* g and f_p jointly: one draw of both from each sample of t */
  if (status == SG_OK)
    status = sg_skewgp_joint_samples (post, samples, XS, 2 * c, rng, F);
  double ess = (double) N;
  if (status == SG_OK)
    status = sg_skewgp_samples_ess (samples, &ess);
  if (status == SG_OK)
    {
      size_t differ = 0;
      for (size_t j = 0; j < N; j++)
        {
          size_t ig = argmax_column (F, c, N, j);
          size_t ip = argmax_column (F + c * N, c, N, j);
          if (ip != ig && distance (cand + ig * d, cand + ip * d, d) > tolerance)
            differ++;
        }
      double p = (double) differ / (double) N;
      *prob = p;
      if (se)
        *se = sqrt (p * (1 - p) / fmax (ess, 1));
    }
  free (XS);
  free (F);
  return status;
}

sg_status
sg_hier_best_mean (const sg_skewgp_posterior *post, const sg_skewgp_samples *samples,
                   const double *cand, size_t c, size_t person, size_t *best,
                   double *mean)
{
  if (post == NULL || samples == NULL || cand == NULL || c == 0 || best == NULL
      || sg_skewgp_posterior_dim (post) < 2)
    return SG_EINVAL;
  size_t D = sg_skewgp_posterior_dim (post);
  double *XS = malloc (c * D * sizeof *XS);
  sg_point_summary *sum = malloc (c * sizeof *sum);
  int status = XS && sum ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = sg_hier_points (D - 1, person, cand, c, XS);
  sg_summary_options so;
  sg_summary_options_default (&so);
  so.fields = SG_SUMMARY_MOMENTS;
  if (status == SG_OK)
    status = sg_skewgp_summarize (post, samples, XS, c, &so, NULL, sum);
  if (status == SG_OK)
    {
      size_t b = 0;
      for (size_t i = 1; i < c; i++)
        if (sum[i].mean > sum[b].mean)
          b = i;
      *best = b;
      if (mean)
        *mean = sum[b].mean;
    }
  free (XS);
  free (sum);
  return status;
}

/* ---- Proposals ------------------------------------------------------------ */

void
sg_hier_propose_options_default (sg_hier_propose_options *opt, size_t dim)
{
  memset (opt, 0, sizeof *opt);
  for (size_t j = 0; j < dim && j < SG_HIER_MAX_DIM; j++)
    opt->upper[j] = 1;
  opt->acquisition = SG_BO_ACQ_UCB;
  opt->ucb_level = 0.95;
  opt->eiig_k = 0.1;
  opt->n_samples = 500;
  sg_skewgp_sample_options_default (&opt->sample);
  sg_acq_max_options_default (&opt->search);
}

typedef struct {
  const sg_skewgp_posterior *post;
  const sg_skewgp_samples *samples;
  const sg_hier_propose_options *opt;
  size_t d, N, person;
  double probit_sd;
  double ref[SG_HIER_MAX_DIM + 1];     /* x_r as a point of PERSON         */
  const double *G;                     /* 2 x N common normals             */
  double *XP, *h, *scratch;            /* points, h = f(x) - f(x_r), sort  */
  size_t cap;                          /* points XP holds                  */
  const double *X;                     /* the block being scored           */
  double *values;
  int status;
} propose_ctx;

static double
acq_value (const propose_ctx *a)
{
  const double *h = a->h;
  size_t N = a->N;
  switch (a->opt->acquisition)
    {
    case SG_BO_ACQ_EIIG: return sg_acq_eiig (h, N, a->probit_sd, a->opt->eiig_k);
    case SG_BO_ACQ_EPI: return sg_acq_epi (h, N, a->probit_sd);
    case SG_BO_ACQ_THOMPSON: return h[N - 1];
    default: return sg_acq_hpd (h, N, a->opt->ucb_level, a->scratch, NULL);
    }
}

/* A duel of x_r against (nearly) itself says nothing. */
static int
is_ref (const propose_ctx *a, const double *x)
{
  for (size_t j = 0; j < a->d; j++)
    if (fabs (x[j] - a->ref[j]) > 1e-6 * (a->opt->upper[j] - a->opt->lower[j]))
      return 0;
  return 1;
}

static void
score_one (size_t c, const double *F, void *user_data)
{
  propose_ctx *a = user_data;
  if (is_ref (a, a->X + c * a->d))
    {
      a->values[c] = -INFINITY;
      return;
    }
  for (size_t j = 0; j < a->N; j++)
    a->h[j] = F[j] - F[a->N + j];
  a->values[c] = acq_value (a);
}

static void
score_batch (const double *X, size_t n, void *user_data, double *values)
{
  propose_ctx *a = user_data;
  int status = a->status;
  for (size_t start = 0; start < n && status == SG_OK; start += a->cap)
    {
      size_t nb = n - start < a->cap ? n - start : a->cap;
      status = sg_hier_points (a->d, a->person, X + start * a->d, nb, a->XP);
      a->X = X + start * a->d;
      a->values = values + start;
      if (status == SG_OK)
        status = sg_skewgp_joint_samples_each (a->post, a->samples, a->XP, nb, a->ref,
                                               a->G, score_one, a);
    }
  if (status != SG_OK)
    {
      a->status = status;
      for (size_t c = 0; c < n; c++)
        values[c] = -INFINITY;
    }
}

static double
score_single (const double *x, void *user_data)
{
  double v;
  score_batch (x, 1, user_data, &v);
  return v;
}

static void
uniform_point (gsl_rng *rng, const sg_hier_propose_options *opt, size_t d, double *x)
{
  for (size_t j = 0; j < d; j++)
    x[j] = opt->lower[j] + gsl_rng_uniform (rng) * (opt->upper[j] - opt->lower[j]);
}

/* The settings (d) of the inputs of HD, PERSON's only when MINE, and
 * then (not MINE) those of the population points of POP (may be NULL).
 * *N receives their number. */
static double *
settings_of (const sg_hier_data *hd, size_t person, int mine, const sg_svgp_pseudo *pop,
             size_t *n)
{
  size_t d = hd->dim, k = 0, extra = !mine && pop ? pop->M : 0;
  double *S = malloc (((hd->data.n_inputs + extra) * d + 1) * sizeof *S);
  if (S == NULL)
    return NULL;
  for (size_t i = 0; i < hd->data.n_inputs; i++)
    if (!mine || sg_hier_input_person (hd, i) == person)
      memcpy (S + k++ * d, hd->data.X + i * (d + 1), d * sizeof *S);
  for (size_t j = 0; j < extra; j++)
    memcpy (S + k++ * d, pop->Z + j * (d + 1), d * sizeof *S);
  *n = k;
  return S;
}

static int
options_ok (const sg_hier_propose_options *opt, size_t d)
{
  if (opt->n_samples < 2 || !(opt->ucb_level > 0 && opt->ucb_level <= 1)
      || !isfinite (opt->eiig_k)
      || (opt->acquisition != SG_BO_ACQ_UCB && opt->acquisition != SG_BO_ACQ_EIIG
          && opt->acquisition != SG_BO_ACQ_EPI && opt->acquisition != SG_BO_ACQ_THOMPSON))
    return 0;
  for (size_t j = 0; j < d; j++)
    if (!(opt->lower[j] < opt->upper[j]) || !isfinite (opt->lower[j])
        || !isfinite (opt->upper[j]))
      return 0;
  return 1;
}

/* The incumbent and the challenger from the posterior of USE's answers. */
static int
propose_from (const sg_hier_model *model, const sg_hier_data *use, size_t person,
              const sg_hier_propose_options *opt, gsl_rng *rng,
              const sg_progress *progress, sg_hier_question *q)
{
  size_t d = use->dim, n_mine = 0, n_all = 0;
  sg_skewgp_posterior *post = NULL;
  sg_skewgp_samples *samples = NULL;
  double *mine = settings_of (use, person, 1, NULL, &n_mine);
  double *all = settings_of (use, person, 0, opt->population, &n_all);
  propose_ctx a = { .opt = opt, .d = d, .person = person, .cap = 256 };
  int status = mine && all ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    status = opt->population
               ? sg_hier_posterior_new_summary (model, use, opt->population, &post)
               : sg_hier_posterior_new (model, use, &post);
  if (status == SG_OK)
    status = sg_skewgp_sample (post, opt->n_samples, &opt->sample, rng, progress, &samples);
  size_t best = 0;
  if (status == SG_OK)
    status = n_mine > 0 ? sg_hier_best_mean (post, samples, mine, n_mine, person, &best, NULL)
                        : sg_hier_best_mean (post, samples, all, n_all, person, &best, NULL);
  sg_hier_question r = { .has_ref = 1 };
  if (status == SG_OK)
    {
      memcpy (r.x_ref, (n_mine > 0 ? mine : all) + best * d, d * sizeof *r.x_ref);
      status = sg_hier_points (d, person, r.x_ref, 1, a.ref);
    }
  double *G = NULL;
  if (status == SG_OK)
    {
      a.post = post;
      a.samples = samples;
      a.N = sg_skewgp_samples_count (samples);
      a.probit_sd = model->probit_sd ? model->probit_sd[person] : model->noise.probit_sd;
      G = malloc (2 * a.N * sizeof *G);
      a.h = malloc (a.N * sizeof *a.h);
      a.scratch = malloc (a.N * sizeof *a.scratch);
      a.XP = malloc (a.cap * (d + 1) * sizeof *a.XP);
      gsl_rng *crn = sg_rng_new (gsl_rng_get (rng), 0);
      if (!G || !a.h || !a.scratch || !a.XP || !crn)
        status = SG_ENOMEM;
      else
        for (size_t i = 0; i < 2 * a.N; i++)
          G[i] = sg_rng_gaussian (crn);
      sg_rng_free (crn);
      a.G = G;
    }
  if (status == SG_OK)
    status = sg_acq_maximize_batched (d, opt->lower, opt->upper, score_single, score_batch,
                                      &a, all, n_all, &opt->search, rng, progress, r.x,
                                      &r.value);
  if (status == SG_OK)
    status = a.status;
  if (status == SG_OK && !isfinite (r.value))
    do   /* every candidate was x_r: a box collapsed onto it */
      uniform_point (rng, opt, d, r.x);
    while (is_ref (&a, r.x));
  if (status == SG_OK)
    *q = r;
  free (G);
  free (a.h);
  free (a.scratch);
  free (a.XP);
  free (mine);
  free (all);
  sg_skewgp_samples_free (samples);
  sg_skewgp_posterior_free (post);
  return status;
}

sg_status
sg_hier_propose_duel (const sg_hier_model *model, const sg_hier_data *hd,
                      size_t person, const sg_hier_propose_options *opt,
                      gsl_rng *rng, const sg_progress *progress, sg_hier_question *q)
{
  if (sg_hier_model_check (model, hd) != SG_OK || person >= hd->n_people || opt == NULL
      || rng == NULL || q == NULL || !options_ok (opt, hd->dim))
    return SG_EINVAL;
  sg_hier_data own;
  const sg_hier_data *use = hd;
  if (opt->population
      && (opt->population->dim != hd->dim + 1 || opt->population->C == NULL))
    return SG_EINVAL;
  if (opt->independent || opt->population)
    {
      int status = sg_hier_data_person (hd, person, &own);
      if (status != SG_OK)
        return status;
      use = &own;
    }
  int status = SG_OK;
  if (use->data.n_obs == 0 && (opt->population == NULL || opt->population->r == 0))
    {
      sg_hier_question r = { .has_ref = 0, .value = NAN };
      uniform_point (rng, opt, hd->dim, r.x_ref);
      uniform_point (rng, opt, hd->dim, r.x);
      *q = r;
    }
  else
    status = propose_from (model, use, person, opt, rng, progress, q);
  if (use == &own)
    sg_hier_data_clear (&own);
  return status;
}
