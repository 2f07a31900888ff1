/* sg-bo.c — the BO loops as a state machine (see sg-bo.h). */
#include "sg-bo.h"

#include "sg-ep.h"
#include "sg-laplace.h"
#include "sg-linalg.h"
#include "sg-normal.h"
#include "sg-rng.h"
#include "sg-svgp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What an answer changed besides the data: x_r and its known value, so
 * that undo can restore them. */
typedef struct {
  int had_ref;
  double ref[SG_BO_MAX_DIM];
  double ref_value;
} answer_record;

/* What sg_bo_acquisition_at needs to re-evaluate the last proposal's
 * acquisition exactly: its target, the seed of its common random numbers
 * and x_r as it was then (a later answer may move x_r). */
typedef struct {
  int valid;
  sg_bo_acq_target target;
  unsigned long crn_seed;
  int has_ref;
  double ref[SG_BO_MAX_DIM];
  size_t n_fixed;        /* qEUBO: the options fixed in its last step      */
  double fixed[(SG_BO_MAX_OPTIONS - 1) * SG_BO_MAX_DIM];
  size_t sample;         /* hallucination believer: its sample and the     */
  double eta;            /* believer's mean at x_r                         */
  double x[SG_BO_MAX_DIM];
  double value;
} acq_record;

struct sg_bo {
  sg_bo_config cfg;      /* cfg.prior points into prior_buf, cfg.candidates
                            into cand_buf                                 */
  double *prior_buf;
  double *cand_buf;      /* the candidate set (NULL: the whole box)        */
  sg_hyper hyper;        /* current hyperparameters; arrays in hyper_buf  */
  double *hyper_buf;
  sg_data data;
  answer_record *log;
  size_t n_log, cap_log;
  int has_ref;
  double ref[SG_BO_MAX_DIM];
  double ref_value;      /* a measured value of x_r, NaN if none           */
  int refit_done;        /* a refit happened at refit_n answers            */
  size_t refit_n;
  /* The model of the last proposal. */
  size_t model_n;        /* answers it was built from; SIZE_MAX = none     */
  sg_skewgp_posterior *post;
  sg_skewgp_samples *samples;
  int has_gpost;
  sg_gauss_post gpost;
  sg_laplace_warm laplace_warm;
  sg_ep_warm ep_warm;
  acq_record acq;        /* the acquisition of the last proposal          */
  /* The two-GP surrogate of the last proposal (see "Two-GP surrogate"). */
  int has_two_gp;        /* cls_post (and reg_post when has_reg) are set   */
  int has_reg;           /* 0: no valid value yet; the regression is the prior */
  sg_gauss_post cls_post, reg_post;
  sg_ep_warm cls_warm;
  int has_svgp;          /* the SVGP surrogate of the last proposal        */
  sg_svgp svgp;
  int has_summary;       /* a long session's sparse summary (sg_bo_set_summary) */
  sg_svgp_pseudo summary;
  size_t summary_seen;   /* the answers it stands for                     */
};

/* The two-GP surrogate (section "Two-GP surrogate" at the end). */
static int two_gp_split (const sg_data *data, sg_data *reg, sg_data *cls);
static int two_gp_build (sg_bo *bo, const sg_progress *progress);
static int two_gp_samples (const sg_bo *bo, const double *x, size_t n,
                           const double *Z, double *F);
static double two_gp_safe_ucb (const sg_bo *bo, const double *F, size_t n,
                               double *scratch);

/* ---- Configuration --------------------------------------------------------- */

sg_status
sg_bo_config_default (sg_bo_config *c, size_t dim, const double *lower,
                      const double *upper)
{
  if (c == NULL || dim == 0 || dim > SG_BO_MAX_DIM || lower == NULL || upper == NULL)
    return SG_EINVAL;
  for (size_t j = 0; j < dim; j++)
    if (!isfinite (lower[j]) || !isfinite (upper[j]) || !(lower[j] < upper[j]))
      return SG_EINVAL;
  memset (c, 0, sizeof *c);
  c->dim = dim;
  memcpy (c->lower, lower, dim * sizeof *lower);
  memcpy (c->upper, upper, dim * sizeof *upper);
  c->mode = SG_BO_PREFERENCE;
  c->acquisition = SG_BO_ACQ_UCB;
  c->numeric_acquisition = SG_BO_NUMERIC_UCB;
  c->surrogate = SG_BO_SURROGATE_SKEWGP;
  c->question = SG_BO_QUESTION_DUEL;
  c->n_options = 2;
  c->ties = 0;
  sg_kernel_init (&c->prior.kernel, SG_KERNEL_RBF, dim, 1.0, 1.0);
  for (size_t j = 0; j < dim; j++)
    c->prior.kernel.lengthscales[j] = 0.2 * (upper[j] - lower[j]);
  c->prior.mean = 0;
  sg_noise_default (&c->prior.noise);
  c->prior.noise.numeric_sd = 0.1;
  c->prior.noise.probit_sd = M_SQRT1_2;
  c->ucb_level = 0.95;
  c->eiig_k = 0.1;
  c->threshold = 0;
  c->safe_probability = 0.7;
  c->safe_penalty = 1000;
  c->mixed_policy = SG_BO_MIXED_SCHEDULE;
  c->mixed_every = 4;
  c->mixed_confidence = 0.95;
  c->n_initial = 5;
  c->refit_until = 30;
  c->refit_every = 10;
  c->refit_free = SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE;
  sg_fit_options_default (&c->refit);
  c->refit.n_starts = 1;
  c->refit.max_evals = 150;
  c->refit_lengthscale_min = 0.05;
  c->refit_lengthscale_max = 2.0;
  c->n_samples = 1000;
  sg_skewgp_sample_options_default (&c->sampling);
  sg_acq_max_options_default (&c->search);
  c->seed = 0;
  return SG_OK;
}

/* Coordinate J takes whole numbers only. */
static int
is_discrete (const sg_bo_config *c, size_t j)
{
  return c->kind[j] == SG_DIM_INTEGER || c->kind[j] == SG_DIM_CATEGORICAL;
}

/* X inside the box, and whole in the integer and categorical coordinates. */
static int
inside_box (const sg_bo_config *c, const double *x)
{
  for (size_t j = 0; j < c->dim; j++)
    if (!isfinite (x[j]) || x[j] < c->lower[j] || x[j] > c->upper[j]
        || (is_discrete (c, j) && x[j] != round (x[j])))
      return 0;
  return 1;
}

/* X (inside the box) moved onto a setting the experiment can take:
 * integer and categorical coordinates rounded, periodic ones wrapped into
 * [lower, upper) (upper is the same setting as lower). With a candidate
 * set every proposal is a row, taken as it is (rows are whole where the
 * kinds ask it, candidates_ok), so nothing moves. */
static void
snap_point (const sg_bo_config *c, double *x)
{
  if (c->n_candidates > 0)
    return;
  for (size_t j = 0; j < c->dim; j++)
    {
      double lo = c->lower[j], hi = c->upper[j];
      if (is_discrete (c, j))
        x[j] = fmin (fmax (round (x[j]), lo), hi);
      else if (c->kind[j] == SG_DIM_PERIODIC)
        {
          double p = hi - lo, t = fmod (x[j] - lo, p);
          if (t < 0)
            t += p;
          x[j] = lo + t < hi ? lo + t : lo;
        }
    }
}

/* X and Y are one setting: equal coordinates, a periodic one's lower and
 * upper being the same. */
static int
same_setting (const sg_bo_config *c, const double *x, const double *y)
{
  for (size_t j = 0; j < c->dim; j++)
    if (c->kind[j] == SG_DIM_PERIODIC
          ? sg_dim_distance (SG_DIM_PERIODIC, c->upper[j] - c->lower[j], x[j], y[j]) != 0
          : x[j] != y[j])
      return 0;
  return 1;
}

sg_status
sg_bo_candidate_index (const double *candidates, size_t n, size_t dim, const double *lower,
                       const double *upper, const double *x, size_t *index)
{
  if (candidates == NULL || x == NULL || index == NULL || dim == 0)
    return SG_EINVAL;
  for (size_t i = 0; i < n; i++)
    {
      const double *row = candidates + i * dim;
      size_t j = 0;
      while (j < dim && fabs (x[j] - row[j]) <= 1e-9 * (upper[j] - lower[j]))
        j++;
      if (j == dim)
        {
          *index = i;
          return SG_OK;
        }
    }
  return SG_EINVAL;
}

/* The candidate set (sg-bo.h, "Candidate sets"): absent, or enough rows
 * for one question, each finite and inside the box; a safe start is one
 * of them. (That no two rows are the same setting is sg_bo_new's check:
 * it is quadratic in the rows.) */
static int
candidates_ok (const sg_bo_config *c)
{
  if (c->n_candidates == 0)
    return c->candidates == NULL;
  if (c->candidates == NULL || c->n_candidates < c->n_options)
    return 0;
  for (size_t i = 0; i < c->n_candidates; i++)
    if (!inside_box (c, c->candidates + i * c->dim))
      return 0;
  size_t unused;
  return !c->has_safe_start
         || sg_bo_candidate_index (c->candidates, c->n_candidates, c->dim, c->lower, c->upper,
                                   c->safe_start, &unused) == SG_OK;
}

/* No two rows of the candidate set are the same setting. */
static int
candidates_distinct (const sg_bo_config *c)
{
  size_t unused;
  for (size_t i = 1; i < c->n_candidates; i++)
    if (sg_bo_candidate_index (c->candidates, i, c->dim, c->lower, c->upper,
                               c->candidates + i * c->dim, &unused) == SG_OK)
      return 0;
  return 1;
}

/* Some coordinate is not linear: proposals need snap_point. */
static int
has_kinds (const sg_bo_config *c)
{
  for (size_t j = 0; j < c->dim; j++)
    if (c->kind[j] != SG_DIM_LINEAR)
      return 1;
  return 0;
}

/* The distinct settings of a box whose coordinates are all discrete
 * (SIZE_MAX when some coordinate is continuous or the count is huge). */
static size_t
n_discrete_settings (const sg_bo_config *c)
{
  double n = 1;
  for (size_t j = 0; j < c->dim; j++)
    {
      if (!is_discrete (c, j))
        return SIZE_MAX;
      n *= c->upper[j] - c->lower[j] + 1;
    }
  return n < 1e9 ? (size_t) n : SIZE_MAX;
}

/* The kinds and periods of C's coordinates into kernel K. */
static void
apply_kinds (const sg_bo_config *c, sg_kernel *k)
{
  for (size_t j = 0; j < c->dim; j++)
    (void) sg_kernel_set_dim_kind (k, j, c->kind[j], c->upper[j] - c->lower[j]);
}

/* The coordinate kinds (sg-bo.h, sg_bo_config.kind). */
static int
kinds_ok (const sg_bo_config *c)
{
  for (size_t j = 0; j < c->dim; j++)
    {
      if ((unsigned) c->kind[j] > SG_DIM_CATEGORICAL)
        return 0;
      if (is_discrete (c, j)
          && (c->lower[j] != round (c->lower[j]) || c->upper[j] != round (c->upper[j])))
        return 0;
      if (c->kind[j] == SG_DIM_CATEGORICAL && c->resolution[j] != 0)
        return 0;
      if (c->kind[j] == SG_DIM_PERIODIC
          && !(c->resolution[j] < 0.5 * (c->upper[j] - c->lower[j])))
        return 0;
    }
  /* a question's options must be distinct settings */
  return n_discrete_settings (c) >= (c->mode == SG_BO_PREFERENCE ? c->n_options : 2);
}

sg_status
sg_bo_config_set_kind (sg_bo_config *c, size_t j, sg_dim_kind kind)
{
  if (c == NULL || j >= c->dim || (unsigned) kind > SG_DIM_CATEGORICAL)
    return SG_EINVAL;
  if ((kind == SG_DIM_INTEGER || kind == SG_DIM_CATEGORICAL)
      && (c->lower[j] != round (c->lower[j]) || c->upper[j] != round (c->upper[j])))
    return SG_EINVAL;
  c->kind[j] = kind;
  if (kind == SG_DIM_CATEGORICAL)
    c->prior.kernel.lengthscales[j] = 1.0;
  return SG_OK;
}

/* The question settings (sg-bo.h, "Questions"). */
static int
questions_ok (const sg_bo_config *c)
{
  int choice = c->question == SG_BO_QUESTION_CHOICE;
  int qeubo = c->acquisition == SG_BO_ACQ_QEUBO;
  if ((unsigned) c->question > SG_BO_QUESTION_CHOICE || (c->ties != 0 && c->ties != 1))
    return 0;
  if (choice ? c->n_options < 2 || c->n_options > SG_BO_MAX_OPTIONS || !qeubo
             : c->n_options != 2)
    return 0;
  if ((choice || qeubo || c->ties) && c->mode != SG_BO_PREFERENCE)
    return 0;
  /* correlated choice rows and tie intervals: exact SkewGP only (and the
   * random floor); the SVGP takes plain duels only */
  int exact_only = (choice && c->n_options > 2) || c->ties;
  if (exact_only && c->surrogate != SG_BO_SURROGATE_SKEWGP
      && c->surrogate != SG_BO_SURROGATE_RANDOM)
    return 0;
  if (choice && c->surrogate == SG_BO_SURROGATE_SVGP)
    return 0;
  return !c->ties || (c->prior.noise.tie_margin > 0 && isfinite (c->prior.noise.tie_margin));
}

/* The duel rules of sg-bo.h's "other duel rules": preference mode (dts
 * and hb-* choose the duel's points their own way), and the hallucination
 * believer needs the exact posterior's latent samples. */
static int
duel_rule_ok (const sg_bo_config *c)
{
  sg_bo_acquisition a = c->acquisition;
  int hb = a == SG_BO_ACQ_HB_EI || a == SG_BO_ACQ_HB_UCB;
  if ((hb || a == SG_BO_ACQ_DTS) && c->mode != SG_BO_PREFERENCE)
    return 0;
  return !hb || c->surrogate == SG_BO_SURROGATE_SKEWGP || c->surrogate == SG_BO_SURROGATE_RANDOM;
}

sg_status
sg_bo_config_check (const sg_bo_config *c)
{
  if (c == NULL || c->dim == 0 || c->dim > SG_BO_MAX_DIM)
    return SG_EINVAL;
  for (size_t j = 0; j < c->dim; j++)
    if (!isfinite (c->lower[j]) || !isfinite (c->upper[j]) || !(c->lower[j] < c->upper[j])
        || !(c->resolution[j] >= 0 && c->resolution[j] < c->upper[j] - c->lower[j]))
      return SG_EINVAL;
  if ((unsigned) c->mode > SG_BO_ACTIVE || (unsigned) c->acquisition > SG_BO_ACQ_LAST
      || (unsigned) c->numeric_acquisition > SG_BO_NUMERIC_EI
      || (unsigned) c->surrogate > SG_BO_SURROGATE_SVGP
      || (c->surrogate == SG_BO_SURROGATE_TWO_GP && c->mode != SG_BO_SAFE)
      || (c->surrogate == SG_BO_SURROGATE_SVGP && c->mode != SG_BO_PREFERENCE)
      || (unsigned) c->mixed_policy > SG_BO_MIXED_CONFIDENT)
    return SG_EINVAL;
  if (!questions_ok (c) || !kinds_ok (c) || !duel_rule_ok (c))
    return SG_EINVAL;
  const sg_hyper *h = &c->prior;
  if (sg_kernel_check (&h->kernel) != SG_OK || h->kernel.dim != c->dim
      || !isfinite (h->mean) || !(h->noise.numeric_sd > 0) || !(h->noise.probit_sd > 0)
      || !isfinite (h->noise.numeric_sd) || !isfinite (h->noise.probit_sd))
    return SG_EINVAL;
  if (h->s > 0)
    {
      if (c->surrogate == SG_BO_SURROGATE_LAPLACE || c->surrogate == SG_BO_SURROGATE_EP
          || c->surrogate == SG_BO_SURROGATE_TWO_GP || c->surrogate == SG_BO_SURROGATE_SVGP
          || h->pseudo_points == NULL || h->phases == NULL || h->gamma == NULL)
        return SG_EINVAL;
      sg_skewgp_prior prior;
      sg_hyper_skewgp_prior (h, &prior);
      if (sg_skewgp_prior_check (&prior) != SG_OK)
        return SG_EINVAL;
    }
  if (!(c->ucb_level > 0 && c->ucb_level < 1) || !(c->eiig_k >= 0) || !isfinite (c->eiig_k)
      || !isfinite (c->threshold) || !(c->safe_probability >= 0 && c->safe_probability <= 1)
      || !(c->safe_penalty >= 0) || !isfinite (c->safe_penalty) || c->mixed_every == 0
      || !(c->mixed_confidence > 0.5 && c->mixed_confidence <= 1) || c->n_samples < 2
      || c->search.n_candidates == 0 || !(c->refit_lengthscale_min > 0)
      || !(c->refit_lengthscale_max > c->refit_lengthscale_min)
      || !isfinite (c->refit_lengthscale_max))
    return SG_EINVAL;
  if (c->has_safe_start && !inside_box (c, c->safe_start))
    return SG_EINVAL;
  return candidates_ok (c) ? SG_OK : SG_EINVAL;
}

/* Copies the latent-part arrays of SRC into BUF (s*dim + 2s doubles) and
 * points DST at them. */
static void
hyper_copy (sg_hyper *dst, const sg_hyper *src, double *buf, size_t dim)
{
  *dst = *src;
  size_t s = src->s;
  if (s == 0)
    {
      dst->pseudo_points = dst->phases = dst->gamma = NULL;
      return;
    }
  dst->pseudo_points = buf;
  dst->phases = buf + s * dim;
  dst->gamma = buf + s * dim + s;
  memcpy (dst->pseudo_points, src->pseudo_points, s * dim * sizeof *buf);
  memcpy (dst->phases, src->phases, s * sizeof *buf);
  memcpy (dst->gamma, src->gamma, s * sizeof *buf);
}

sg_status
sg_bo_new (const sg_bo_config *config, sg_bo **out)
{
  if (out == NULL || sg_bo_config_check (config) != SG_OK || !candidates_distinct (config))
    return SG_EINVAL;
  sg_bo *bo = calloc (1, sizeof *bo);
  if (bo == NULL)
    return SG_ENOMEM;
  size_t s = config->prior.s, nbuf = s * config->dim + 2 * s + 1;
  bo->prior_buf = malloc (nbuf * sizeof *bo->prior_buf);
  bo->hyper_buf = malloc (nbuf * sizeof *bo->hyper_buf);
  size_t ncand = config->n_candidates * config->dim;
  bo->cand_buf = ncand ? malloc (ncand * sizeof *bo->cand_buf) : NULL;
  if (bo->prior_buf == NULL || bo->hyper_buf == NULL || (ncand && bo->cand_buf == NULL))
    {
      free (bo->prior_buf); free (bo->hyper_buf); free (bo->cand_buf); free (bo);
      return SG_ENOMEM;
    }
  bo->cfg = *config;
  if (ncand)
    memcpy (bo->cand_buf, config->candidates, ncand * sizeof *bo->cand_buf);
  bo->cfg.candidates = bo->cand_buf;
  hyper_copy (&bo->cfg.prior, &config->prior, bo->prior_buf, config->dim);
  hyper_copy (&bo->hyper, &config->prior, bo->hyper_buf, config->dim);
  apply_kinds (&bo->cfg, &bo->cfg.prior.kernel);
  apply_kinds (&bo->cfg, &bo->hyper.kernel);
  sg_data_init (&bo->data, config->dim);
  bo->ref_value = NAN;
  bo->model_n = SIZE_MAX;
  *out = bo;
  return SG_OK;
}

static void
drop_model (sg_bo *bo)
{
  sg_skewgp_samples_free (bo->samples);
  sg_skewgp_posterior_free (bo->post);
  bo->samples = NULL;
  bo->post = NULL;
  if (bo->has_gpost)
    sg_gauss_post_clear (&bo->gpost);
  bo->has_gpost = 0;
  if (bo->has_two_gp)
    {
      sg_gauss_post_clear (&bo->cls_post);
      if (bo->has_reg)
        sg_gauss_post_clear (&bo->reg_post);
    }
  bo->has_two_gp = bo->has_reg = 0;
  if (bo->has_svgp)
    sg_svgp_clear (&bo->svgp);
  bo->has_svgp = 0;
  bo->model_n = SIZE_MAX;
  bo->acq.valid = 0;
}

void
sg_bo_free (sg_bo *bo)
{
  if (bo == NULL)
    return;
  drop_model (bo);
  sg_laplace_warm_clear (&bo->laplace_warm);
  sg_ep_warm_clear (&bo->ep_warm);
  sg_ep_warm_clear (&bo->cls_warm);
  sg_data_clear (&bo->data);
  sg_svgp_pseudo_clear (&bo->summary);
  free (bo->log);
  free (bo->prior_buf);
  free (bo->hyper_buf);
  free (bo->cand_buf);
  free (bo);
}

const sg_bo_config *
sg_bo_get_config (const sg_bo *bo)
{
  return &bo->cfg;
}

/* ---- Answers -------------------------------------------------------------- */

static int
reserve_log (sg_bo *bo)
{
  if (bo->n_log < bo->cap_log)
    return SG_OK;
  size_t cap = bo->cap_log ? 2 * bo->cap_log : 64;
  answer_record *log = realloc (bo->log, cap * sizeof *log);
  if (log == NULL)
    return SG_ENOMEM;
  bo->log = log;
  bo->cap_log = cap;
  return SG_OK;
}

/* Records x_r and the best value as they are before an answer. */
static void
push_record (sg_bo *bo)
{
  answer_record *r = &bo->log[bo->n_log++];
  r->had_ref = bo->has_ref;
  memcpy (r->ref, bo->ref, sizeof r->ref);
  r->ref_value = bo->ref_value;
}

static int
is_ref (const sg_bo *bo, const double *x)
{
  return bo->has_ref && memcmp (bo->ref, x, bo->cfg.dim * sizeof *x) == 0;
}

/* X becomes x_r with the known value VALUE (NaN: unknown). */
static void
set_ref (sg_bo *bo, const double *x, double value)
{
  bo->has_ref = 1;
  memcpy (bo->ref, x, bo->cfg.dim * sizeof *x);
  bo->ref_value = value;
}

/* With a candidate set, the K settings *X name candidate rows: *X then
 * points at BUF (k x dim), a copy of those rows, so the data hold the
 * candidates' exact values. 0 when one is no candidate (or NULL). Without
 * a candidate set nothing changes. */
static int
snap_rows (const sg_bo *bo, const double **X, size_t k, double *buf)
{
  const sg_bo_config *c = &bo->cfg;
  if (c->n_candidates == 0)
    return 1;
  if (*X == NULL)
    return 0;
  for (size_t i = 0; i < k; i++)
    {
      size_t r;
      if (sg_bo_candidate_index (c->candidates, c->n_candidates, c->dim, c->lower, c->upper,
                                 *X + i * c->dim, &r) != SG_OK)
        return 0;
      memcpy (buf + i * c->dim, c->candidates + r * c->dim, c->dim * sizeof *buf);
    }
  *X = buf;
  return 1;
}

sg_status
sg_bo_answer_duel (sg_bo *bo, const double *xa, const double *xb, int a_won)
{
  return sg_bo_answer_duel_details (bo, xa, xb, a_won, SG_CONFIDENCE_NONE, SG_SHOWN_NONE,
                                    bo && bo->cfg.ties);
}

static int
prefers_modes (const sg_bo *bo)
{
  return bo->cfg.mode == SG_BO_PREFERENCE || bo->cfg.mode == SG_BO_MIXED;
}

/* K distinct points inside the box (rows of X). */
static int
distinct_inside (const sg_bo *bo, const double *X, size_t k)
{
  size_t d = bo->cfg.dim;
  for (size_t i = 0; i < k; i++)
    {
      if (!inside_box (&bo->cfg, X + i * d))
        return 0;
      for (size_t j = 0; j < i; j++)
        if (same_setting (&bo->cfg, X + i * d, X + j * d))
          return 0;
    }
  return 1;
}

/* Records the answer just added to the data and makes BEST x_r (NULL:
 * x_r stays). */
static void
accept_answer (sg_bo *bo, const double *best)
{
  push_record (bo);
  /* 001 sec. 5.2.1: the winner becomes x_r (keeping its measured value
   * when it already was x_r) */
  if (best)
    set_ref (bo, best, is_ref (bo, best) ? bo->ref_value : NAN);
}

sg_status
sg_bo_answer_duel_details (sg_bo *bo, const double *xa, const double *xb, int a_won,
                           sg_confidence confidence, size_t shown_first, int tie_offered)
{
  double buf[2 * SG_BO_MAX_DIM];
  if (bo != NULL && (!snap_rows (bo, &xa, 1, buf) || !snap_rows (bo, &xb, 1, buf + bo->cfg.dim)))
    return SG_EINVAL;
  if (bo == NULL || xa == NULL || xb == NULL || !prefers_modes (bo)
      || !inside_box (&bo->cfg, xa) || !inside_box (&bo->cfg, xb)
      || same_setting (&bo->cfg, xa, xb)
      || (shown_first != SG_SHOWN_NONE && shown_first > 1))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  const double *winner = a_won ? xa : xb, *loser = a_won ? xb : xa;
  /* shown_first names a or b; the data name the winner (0) or loser (1) */
  size_t first = shown_first == SG_SHOWN_NONE ? SG_SHOWN_NONE
                 : (shown_first == 0) == !!a_won ? 0 : 1;
  status = sg_data_add_duel (&bo->data, winner, loser, confidence, first, tie_offered);
  if (status != SG_OK)
    return status;
  accept_answer (bo, winner);
  return SG_OK;
}

sg_status
sg_bo_answer_tie (sg_bo *bo, const double *xa, const double *xb)
{
  double buf[2 * SG_BO_MAX_DIM];
  if (bo != NULL && (!snap_rows (bo, &xa, 1, buf) || !snap_rows (bo, &xb, 1, buf + bo->cfg.dim)))
    return SG_EINVAL;
  if (bo == NULL || xa == NULL || xb == NULL || !prefers_modes (bo)
      || !inside_box (&bo->cfg, xa) || !inside_box (&bo->cfg, xb))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status == SG_OK)
    status = sg_data_add_tie (&bo->data, xa, xb);
  /* "about the same" ranks neither above x_r; the first answer sets one */
  if (status == SG_OK)
    accept_answer (bo, bo->has_ref ? NULL : xa);
  return status;
}

sg_status
sg_bo_answer_choice (sg_bo *bo, const double *options, size_t k, size_t chosen,
                     sg_confidence confidence, size_t shown_first)
{
  size_t d = bo ? bo->cfg.dim : 0;
  double buf[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  if (bo != NULL && k <= SG_BO_MAX_OPTIONS && !snap_rows (bo, &options, k, buf))
    return SG_EINVAL;
  if (bo == NULL || options == NULL || k < 2 || k > SG_BO_MAX_OPTIONS || chosen >= k
      || !prefers_modes (bo)
      || (shown_first != SG_SHOWN_NONE && shown_first >= k) || !distinct_inside (bo, options, k))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  /* the data list the chosen option first, then the others in order */
  double *others = malloc ((k - 1) * d * sizeof *others);
  if (others == NULL)
    return SG_ENOMEM;
  for (size_t i = 0, j = 0; i < k; i++)
    if (i != chosen)
      memcpy (others + (j++) * d, options + i * d, d * sizeof *others);
  size_t first = shown_first == SG_SHOWN_NONE ? SG_SHOWN_NONE
                 : shown_first == chosen ? 0
                 : shown_first < chosen ? shown_first + 1 : shown_first;
  status = sg_data_add_choice (&bo->data, options + chosen * d, others, k - 1, confidence,
                               first);
  free (others);
  if (status == SG_OK)
    accept_answer (bo, options + chosen * d);
  return status;
}

sg_status
sg_bo_answer_ranking (sg_bo *bo, const double *order, size_t k)
{
  if (bo == NULL || order == NULL || k < 2 || !prefers_modes (bo))
    return SG_EINVAL;
  double *buf = NULL;
  if (bo->cfg.n_candidates > 0 && (buf = malloc (k * bo->cfg.dim * sizeof *buf)) == NULL)
    return SG_ENOMEM;
  int status = snap_rows (bo, &order, k, buf) && distinct_inside (bo, order, k) ? SG_OK
                                                                               : SG_EINVAL;
  if (status == SG_OK)
    status = reserve_log (bo);
  if (status == SG_OK)
    status = sg_data_add_ranking (&bo->data, order, k);
  if (status == SG_OK)
    accept_answer (bo, order);
  free (buf);
  return status;
}

sg_status
sg_bo_answer_value (sg_bo *bo, const double *x, double y)
{
  double buf[SG_BO_MAX_DIM];
  if (bo != NULL && !snap_rows (bo, &x, 1, buf))
    return SG_EINVAL;
  if (bo == NULL || x == NULL || !isfinite (y)
      || (bo->cfg.mode != SG_BO_MIXED && bo->cfg.mode != SG_BO_SAFE)
      || !inside_box (&bo->cfg, x))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  if (bo->cfg.mode == SG_BO_SAFE)
    status = sg_data_add_valid (&bo->data, x, y, bo->cfg.threshold);
  else
    status = sg_data_add_numeric (&bo->data, x, y);
  if (status != SG_OK)
    return status;
  push_record (bo);
  /* A value moves x_r only when it can be compared with x_r's own value
   * (or there is no x_r yet): a duel winner whose value was never
   * measured stays x_r, since a value alone says nothing about it. In
   * safe mode every x_r was measured, so x_r is the best valid value. */
  if (!bo->has_ref || is_ref (bo, x) || (isfinite (bo->ref_value) && y > bo->ref_value))
    set_ref (bo, x, y);
  return SG_OK;
}

/* Mixed mode: x_r failed when measured, so it gives up its place to the
 * setting with the highest measured value other than it, if there is one
 * (otherwise it stays: nothing else is known to be better). */
static void
replace_failed_ref (sg_bo *bo)
{
  const sg_data *data = &bo->data;
  double best_y = -INFINITY;
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < data->n_obs; i++)
    {
      const sg_obs *o = &data->obs[i];
      if (o->kind == SG_OBS_NUMERIC && o->y > best_y
          && !is_ref (bo, data->X + o->a * bo->cfg.dim))
        {
          best_y = o->y;
          best = o->a;
        }
    }
  if (best != SIZE_MAX)
    set_ref (bo, data->X + best * bo->cfg.dim, best_y);
}

/* "X failed": a one-sided (censored) observation, the non-valid factor of
 * 001 eq. 40, Phi((h - f(x)) / numeric_sd) with h = config.threshold: one
 * probit row of the affine probit likelihood (001 eq. 22), so the SkewGP
 * posterior stays exact (001 Theorem 3.3). In safe mode h is the safety
 * threshold; in mixed mode it is the experimenter's failure level, a
 * failed setting's measurement being censored below it. A fixed level
 * (rather than, say, the worst value measured so far) keeps the row the
 * same whatever order the answers came in and whatever undo removes. */
sg_status
sg_bo_answer_invalid (sg_bo *bo, const double *x)
{
  double buf[SG_BO_MAX_DIM];
  if (bo != NULL && !snap_rows (bo, &x, 1, buf))
    return SG_EINVAL;
  if (bo == NULL || x == NULL || (bo->cfg.mode != SG_BO_SAFE && bo->cfg.mode != SG_BO_MIXED)
      || !inside_box (&bo->cfg, x))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  status = sg_data_add_invalid (&bo->data, x, bo->cfg.threshold);
  if (status != SG_OK)
    return status;
  push_record (bo);
  if (bo->cfg.mode == SG_BO_MIXED && is_ref (bo, x))
    replace_failed_ref (bo);
  return SG_OK;
}

sg_status
sg_bo_answer_label (sg_bo *bo, const double *x, int label)
{
  double buf[SG_BO_MAX_DIM];
  if (bo != NULL && !snap_rows (bo, &x, 1, buf))
    return SG_EINVAL;
  if (bo == NULL || x == NULL || bo->cfg.mode != SG_BO_ACTIVE || (label != 1 && label != -1)
      || !inside_box (&bo->cfg, x))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  status = sg_data_add_binary (&bo->data, x, label);
  if (status != SG_OK)
    return status;
  push_record (bo);
  return SG_OK;
}

sg_status
sg_bo_undo (sg_bo *bo)
{
  if (bo == NULL || bo->n_log == 0)
    return SG_EINVAL;
  int status = sg_data_remove_last (&bo->data);
  if (status != SG_OK)
    return status;
  const answer_record *r = &bo->log[--bo->n_log];
  bo->has_ref = r->had_ref;
  memcpy (bo->ref, r->ref, sizeof bo->ref);
  bo->ref_value = r->ref_value;
  if (bo->refit_done && bo->refit_n > bo->n_log)
    bo->refit_done = 0;
  if (bo->has_summary && bo->summary_seen > bo->n_log)
    sg_bo_set_summary (bo, NULL, 0);
  return SG_OK;
}

size_t sg_bo_n_answers (const sg_bo *bo) { return bo->n_log; }
const sg_data *sg_bo_data (const sg_bo *bo) { return &bo->data; }

int
sg_bo_best (const sg_bo *bo, double *x)
{
  if (!bo->has_ref)
    return 0;
  if (x)
    memcpy (x, bo->ref, bo->cfg.dim * sizeof *x);
  return 1;
}

gsl_rng *
sg_bo_rng (const sg_bo *bo)
{
  return sg_rng_new (bo->cfg.seed, 1 + (uint64_t) bo->n_log);
}

/* ---- Progress of a sub-step ------------------------------------------------ */

typedef struct {
  const sg_progress *parent;
  double from, to;
  sg_progress self;
} sub_progress;

static int
sub_progress_fn (double fraction, void *user_data)
{
  sub_progress *s = user_data;
  return sg_progress_report (s->parent, s->from + (s->to - s->from) * fraction) != SG_OK;
}

static const sg_progress *
sub_progress_init (sub_progress *s, const sg_progress *parent, double from, double to)
{
  if (parent == NULL)
    return NULL;
  s->parent = parent;
  s->from = from;
  s->to = to;
  s->self.func = sub_progress_fn;
  s->self.user_data = s;
  return &s->self;
}

/* ---- Random and initial queries -------------------------------------------- */

static void
random_point (const sg_bo_config *c, gsl_rng *rng, double *x)
{
  for (size_t j = 0; j < c->dim; j++)
    {
      double lo = c->lower[j], hi = c->upper[j];
      /* whole numbers lo .. hi, each with probability 1 / (hi - lo + 1) */
      if (is_discrete (c, j))
        x[j] = lo + floor (gsl_rng_uniform (rng) * (hi - lo + 1));
      else
        x[j] = lo + gsl_rng_uniform (rng) * (hi - lo);
    }
  snap_point (c, x);
}

/* X is one of the N_ROWS rows of ROWS (exactly: candidate rows are
 * copied, never recomputed). */
static int
among_rows (const double *x, const double *rows, size_t n_rows, size_t dim)
{
  for (size_t i = 0; i < n_rows; i++)
    if (memcmp (x, rows + i * dim, dim * sizeof *x) == 0)
      return 1;
  return 0;
}

/* X is within the smallest separation of two options (1e-6 box widths,
 * or the measurement resolution) of one of the N_ROWS rows of ROWS, with
 * distances along each coordinate's kind (the shorter way round a
 * periodic one). */
static int
near_rows (const sg_bo_config *c, const double *x, const double *rows, size_t n_rows)
{
  for (size_t i = 0; i < n_rows; i++)
    {
      size_t j = 0;
      while (j < c->dim
             && sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j], x[j],
                                 rows[i * c->dim + j])
                  <= fmax (1e-6 * (c->upper[j] - c->lower[j]), c->resolution[j]))
        j++;
      if (j == c->dim)
        return 1;
    }
  return 0;
}

/* A random setting for a question whose other options are the N_AVOID
 * rows AVOID: a uniform point of the box, or with a candidate set a
 * uniform candidate outside AVOID, one never asked yet if there is one
 * (a space-filling initial design over the set). The set has at least
 * n_options rows, so one is always left. */
static void
random_setting (const sg_bo *bo, gsl_rng *rng, const double *avoid, size_t n_avoid, double *x)
{
  const sg_bo_config *c = &bo->cfg;
  size_t dim = c->dim, n = c->n_candidates;
  if (n == 0)
    {
      /* A draw the same setting as another option (the proposal's RNG
       * stream replays an earlier one when an answer was taken back) is
       * drawn again; the chance of a second such draw is nil. */
      for (int tries = 0; tries < 64; tries++)
        {
          random_point (c, rng, x);
          if (!near_rows (c, x, avoid, n_avoid))
            break;
        }
      return;
    }
  const sg_data *d = &bo->data;
  for (int allow_asked = 0; allow_asked < 2; allow_asked++)
    {
      size_t n_ok = 0;
      for (size_t i = 0; i < n; i++)
        {
          const double *row = c->candidates + i * dim;
          n_ok += !among_rows (row, avoid, n_avoid, dim)
                  && (allow_asked || !among_rows (row, d->X, d->n_inputs, dim));
        }
      if (n_ok == 0)
        continue;
      size_t pick = gsl_rng_uniform_int (rng, n_ok);
      for (size_t i = 0; i < n; i++)
        {
          const double *row = c->candidates + i * dim;
          if (!among_rows (row, avoid, n_avoid, dim)
              && (allow_asked || !among_rows (row, d->X, d->n_inputs, dim)) && pick-- == 0)
            {
              memcpy (x, row, dim * sizeof *x);
              return;
            }
        }
    }
}

static void
query_reset (sg_bo_query *q)
{
  memset (q, 0, sizeof *q);
  q->acquisition = NAN;
  q->prob_better = NAN;
  q->prob_safe = NAN;
}

/* Q's options, x and x_ref from its first N_OPTIONS rows OPTS. */
static void
set_options (const sg_bo_config *c, sg_bo_query *q, const double *opts, size_t n_options)
{
  size_t dim = c->dim;
  q->n_options = n_options;
  for (size_t i = 0; i < n_options; i++)
    memcpy (q->options[i], opts + i * dim, dim * sizeof *opts);
  memcpy (q->x, opts, dim * sizeof *opts);
  if (n_options > 1)
    memcpy (q->x_ref, opts + dim, dim * sizeof *opts);
  if (c->mode == SG_BO_PREFERENCE || c->mode == SG_BO_MIXED)
    q->tie_offered = q->kind == SG_BO_QUERY_DUEL && c->ties;
}

/* A random question: a random point against x_r (or against another
 * random point when there is no x_r yet), and for a choice k - 2 more
 * random points. */
static void
random_duel (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q)
{
  const sg_bo_config *c = &bo->cfg;
  size_t dim = c->dim, k = c->mode == SG_BO_PREFERENCE ? c->n_options : 2;
  double opts[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  q->kind = c->mode == SG_BO_PREFERENCE && c->question == SG_BO_QUESTION_CHOICE
              ? SG_BO_QUERY_CHOICE : SG_BO_QUERY_DUEL;
  q->random = 1;
  random_setting (bo, rng, bo->ref, bo->has_ref, opts);
  if (bo->has_ref)
    memcpy (opts + dim, bo->ref, dim * sizeof *opts);
  else
    random_setting (bo, rng, opts, 1, opts + dim);
  for (size_t i = 2; i < k; i++)
    random_setting (bo, rng, opts, i, opts + i * dim);
  set_options (c, q, opts, k);
}

static void
random_value (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q)
{
  q->kind = SG_BO_QUERY_VALUE;
  q->random = 1;
  random_setting (bo, rng, NULL, 0, q->x);
  if (bo->has_ref)
    memcpy (q->x_ref, bo->ref, bo->cfg.dim * sizeof *q->x_ref);
}

/* Answers given after the initial design (mixed mode counts both parts). */
static size_t
n_initial_answers (const sg_bo *bo)
{
  return bo->cfg.mode == SG_BO_MIXED ? 2 * bo->cfg.n_initial : bo->cfg.n_initial;
}

/* Mixed schedule (001 sec. 5.2.2): BO iteration k = 1, 2, ... after the
 * initial design asks for a value when k is a multiple of MIXED_EVERY. */
static int
schedule_wants_value (const sg_bo *bo)
{
  size_t n0 = n_initial_answers (bo);
  size_t k = bo->n_log >= n0 ? bo->n_log - n0 + 1 : 1;
  return k % bo->cfg.mixed_every == 0;
}

/* Fills Q and returns 1 when the query does not need the model: the
 * initial design, or the random surrogate. */
static int
initial_query (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q)
{
  const sg_bo_config *c = &bo->cfg;
  size_t n = bo->n_log;
  int is_random = c->surrogate == SG_BO_SURROGATE_RANDOM;
  switch (c->mode)
    {
    case SG_BO_PREFERENCE:
      if (n < c->n_initial || !bo->has_ref || is_random)
        {
          random_duel (bo, rng, q);
          q->initial = n < c->n_initial || !bo->has_ref;
          return 1;
        }
      return 0;
    case SG_BO_MIXED:
      if (n < c->n_initial || !bo->has_ref)
        {
          random_duel (bo, rng, q);
          q->initial = 1;
          return 1;
        }
      if (n < 2 * c->n_initial)
        {
          random_value (bo, rng, q);
          q->initial = 1;
          return 1;
        }
      if (is_random)
        {
          if (schedule_wants_value (bo))
            random_value (bo, rng, q);
          else
            random_duel (bo, rng, q);
          return 1;
        }
      return 0;
    case SG_BO_ACTIVE:
      if (n < c->n_initial || is_random)
        {
          q->kind = SG_BO_QUERY_LABEL;
          q->random = 1;
          q->initial = n < c->n_initial;
          random_setting (bo, rng, NULL, 0, q->x);
          return 1;
        }
      return 0;
    case SG_BO_SAFE:
    default:
      if (c->has_safe_start && bo->data.n_obs == 0)
        {
          q->kind = SG_BO_QUERY_VALUE;
          memcpy (q->x, c->safe_start, c->dim * sizeof *q->x);
          q->initial = 1;
          return 1;
        }
      if ((!c->has_safe_start && n < c->n_initial) || is_random)
        {
          random_value (bo, rng, q);
          /* the initial design is the safe start alone when there is one */
          q->initial = !c->has_safe_start && n < c->n_initial;
          return 1;
        }
      return 0;
    }
}

/* ---- The model -------------------------------------------------------------- */

static int
skewgp_posterior (const sg_data *data, const sg_noise *noise, const sg_skewgp_prior *prior,
                  sg_skewgp_posterior **post)
{
  sg_likelihood lik;
  int status = sg_likelihood_build (data, noise, &lik);
  if (status != SG_OK)
    return status;
  status = sg_skewgp_posterior_new (prior, data->X, &lik, post);
  sg_likelihood_clear (&lik);
  return status;
}

/* The answers after the summary exactly, plus the summary. */
static int
summary_posterior (sg_bo *bo, const sg_skewgp_prior *prior)
{
  sg_data tail;
  sg_likelihood lik, all;
  double *X = NULL;
  int status = sg_data_tail (&bo->data, bo->summary_seen, &tail);
  if (status != SG_OK)
    return status;
  status = sg_likelihood_build (&tail, &bo->hyper.noise, &lik);
  if (status == SG_OK)
    {
      status = sg_svgp_pseudo_append (&bo->summary, tail.X, tail.n_inputs, &lik, &X, &all);
      sg_likelihood_clear (&lik);
    }
  if (status == SG_OK)
    {
      status = sg_skewgp_posterior_new (prior, X, &all, &bo->post);
      sg_likelihood_clear (&all);
      free (X);
    }
  sg_data_clear (&tail);
  return status;
}

sg_status
sg_bo_set_summary (sg_bo *bo, const sg_svgp_pseudo *summary, size_t n_seen)
{
  if (bo == NULL)
    return SG_EINVAL;
  if (summary == NULL)
    {
      sg_svgp_pseudo_clear (&bo->summary);
      bo->has_summary = 0;
      bo->summary_seen = 0;
      drop_model (bo);
      bo->model_n = SIZE_MAX;
      return SG_OK;
    }
  if (n_seen > bo->n_log || summary->dim != bo->cfg.dim || summary->M == 0
      || bo->cfg.surrogate != SG_BO_SURROGATE_SKEWGP)
    return SG_EINVAL;
  size_t M = summary->M, D = summary->dim, r = summary->r;
  sg_svgp_pseudo c = { .dim = D, .M = M, .r = r };
  c.Z = malloc (M * D * sizeof *c.Z);
  c.C = malloc ((r * M + 1) * sizeof *c.C);
  c.y = malloc ((r + 1) * sizeof *c.y);
  c.noise_var = malloc ((r + 1) * sizeof *c.noise_var);
  if (!c.Z || !c.C || !c.y || !c.noise_var)
    {
      sg_svgp_pseudo_clear (&c);
      return SG_ENOMEM;
    }
  memcpy (c.Z, summary->Z, M * D * sizeof *c.Z);
  memcpy (c.C, summary->C, r * M * sizeof *c.C);
  memcpy (c.y, summary->y, r * sizeof *c.y);
  memcpy (c.noise_var, summary->noise_var, r * sizeof *c.noise_var);
  sg_svgp_pseudo_clear (&bo->summary);
  bo->summary = c;
  bo->has_summary = 1;
  bo->summary_seen = n_seen;
  drop_model (bo);
  bo->model_n = SIZE_MAX;
  return SG_OK;
}

const sg_svgp_pseudo *
sg_bo_get_summary (const sg_bo *bo, size_t *n_seen)
{
  if (n_seen)
    *n_seen = bo->has_summary ? bo->summary_seen : 0;
  return bo->has_summary ? &bo->summary : NULL;
}

static int
build_model (sg_bo *bo, gsl_rng *rng, const sg_progress *progress)
{
  int status;
  if (bo->cfg.surrogate == SG_BO_SURROGATE_TWO_GP)
    status = two_gp_build (bo, progress);
  else if (bo->cfg.surrogate == SG_BO_SURROGATE_SVGP)
    {
      sg_svgp_options o;
      sg_svgp_options_default (&o);
      status = rng ? sg_svgp_fit_preferences (&bo->hyper.kernel, bo->hyper.noise.probit_sd,
                                              &bo->data, &o, rng, progress, &bo->svgp)
                   : SG_EINVAL;
      bo->has_svgp = status == SG_OK;
    }
  else if (bo->cfg.surrogate == SG_BO_SURROGATE_SKEWGP)
    {
      sg_skewgp_prior prior;
      sg_hyper_skewgp_prior (&bo->hyper, &prior);
      status = bo->has_summary ? summary_posterior (bo, &prior)
                               : skewgp_posterior (&bo->data, &bo->hyper.noise, &prior,
                                                   &bo->post);
      if (status == SG_OK)
        status = sg_skewgp_sample (bo->post, bo->cfg.n_samples, &bo->cfg.sampling,
                                   rng, progress, &bo->samples);
    }
  else
    {
      sg_approx_model model;
      sg_hyper_approx_model (&bo->hyper, SG_LINK_PROBIT, &model);
      if (bo->cfg.surrogate == SG_BO_SURROGATE_LAPLACE)
        {
          status = sg_laplace_posterior (&model, &bo->data, NULL, progress,
                                         &bo->laplace_warm, &bo->gpost);
        }
      else
        {
          status = sg_ep_posterior (&model, &bo->data, NULL, progress,
                                    &bo->ep_warm, &bo->gpost);
        }
      bo->has_gpost = status == SG_OK;
    }
  if (status != SG_OK)
    drop_model (bo);
  else
    bo->model_n = bo->n_log;
  return status;
}

/* ---- Acquisition on joint samples -------------------------------------------- */

typedef struct {
  const sg_bo *bo;
  sg_bo_acq_target target;
  size_t N, b;          /* samples; points per evaluation: x alone, x
                           and x_r, or qEUBO's fixed options and x   */
  double XX[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  double *F;            /* b x N joint samples                      */
  double *h;            /* N: f(x) - f(x_r)                          */
  double *scratch;      /* N                                         */
  double *Z;            /* SG_BO_MAX_OPTIONS x N common normal variates
                           (Gaussian surrogates)                     */
  size_t n_fixed;       /* qEUBO: options already chosen (fixed)     */
  double fixed[(SG_BO_MAX_OPTIONS - 1) * SG_BO_MAX_DIM];
  size_t sample;        /* hallucination believer: the sample of t   */
  double eta;           /* and the believer's mean at x_r (EI's bar) */
  gsl_rng *crn;         /* common random numbers (SkewGP remainder) */
  unsigned long crn_seed;
  int has_ref;          /* x_r of the proposal                       */
  double ref[SG_BO_MAX_DIM];
  double min_sep[SG_BO_MAX_DIM];  /* a duel needs |x - x_r| above this */
  int status;           /* first failure inside an evaluation        */
} acq_ctx;

/* F = joint samples of f at XX (b points), with the same normal variates
 * at every call. */
static int
joint_samples (acq_ctx *a)
{
  const sg_bo *bo = a->bo;
  size_t N = a->N, b = a->b;
  if (bo->post != NULL)
    {
      gsl_rng_set (a->crn, a->crn_seed);
      return sg_skewgp_joint_samples (bo->post, bo->samples, a->XX, b, a->crn, a->F);
    }
  enum { B = SG_BO_MAX_OPTIONS };
  double mean[B], cov[B * B], L[B * B];
  int status = bo->has_svgp ? sg_svgp_joint (&bo->svgp, a->XX, b, mean, cov)
                            : sg_gauss_post_joint (&bo->gpost, a->XX, b, mean, cov);
  if (status != SG_OK)
    return status;
  /* b x b Cholesky factor; a (near-)singular covariance, as at x = x_r,
   * gets a zero pivot (and column) instead of failing. */
  memset (L, 0, sizeof L);
  for (size_t i = 0; i < b; i++)
    for (size_t k = 0; k <= i; k++)
      {
        double v = cov[i * b + k];
        for (size_t l = 0; l < k; l++)
          v -= L[i * b + l] * L[k * b + l];
        if (k == i)
          L[i * b + i] = sqrt (fmax (v, 0));
        else
          L[i * b + k] = L[k * b + k] > 0 ? v / L[k * b + k] : 0;
      }
  sg_gemm (0, 0, b, N, b, 1.0, L, a->Z, 0.0, a->F);
  for (size_t i = 0; i < b; i++)
    for (size_t j = 0; j < N; j++)
      a->F[i * N + j] += mean[i];
  return SG_OK;
}

/* |x_j - y_j| along coordinate J (the shorter way round a periodic one). */
static double
coord_distance (const sg_bo_config *c, size_t j, const double *x, const double *y)
{
  return sg_dim_distance (c->kind[j], c->upper[j] - c->lower[j], x[j], y[j]);
}

static int
too_close (const acq_ctx *a, const double *x, const double *y)
{
  const sg_bo *bo = a->bo;
  for (size_t j = 0; j < bo->cfg.dim; j++)
    if (coord_distance (&bo->cfg, j, x, y) > a->min_sep[j])
      return 0;
  return 1;
}

static int
too_close_to_ref (const acq_ctx *a, const double *x)
{
  return too_close (a, x, a->ref);
}

/* Targets that pick the challenger of a duel against a->ref. */
static int
is_duel_target (sg_bo_acq_target target)
{
  return target == SG_BO_ACQ_TARGET_DUEL || target == SG_BO_ACQ_TARGET_BELIEVER;
}

/* The points sampled jointly per evaluation: x and x_r (2) or x alone. */
static size_t
points_per_eval (const acq_ctx *a)
{
  return a->has_ref && a->bo->cfg.mode != SG_BO_SAFE && a->target != SG_BO_ACQ_TARGET_SAMPLE
           ? 2 : 1;
}

/* X repeats one of qEUBO's fixed options (a choice needs distinct ones). */
static int
too_close_to_fixed (const acq_ctx *a, const double *x)
{
  for (size_t i = 0; i < a->n_fixed; i++)
    if (too_close (a, x, a->fixed + i * a->bo->cfg.dim))
      return 1;
  return 0;
}

/* qEUBO's samples: F = the joint samples of (fixed options..., X), the
 * fixed ones first so that their rows are the same at every X. */
static int
set_samples_at (acq_ctx *a, const double *x)
{
  size_t dim = a->bo->cfg.dim;
  a->b = a->n_fixed + 1;
  memcpy (a->XX, a->fixed, a->n_fixed * dim * sizeof *x);
  memcpy (a->XX + a->n_fixed * dim, x, dim * sizeof *x);
  return joint_samples (a);
}

/* Fills F (and h when b = 2) at X; returns SG_OK or a status. */
static int
samples_at (acq_ctx *a, const double *x)
{
  size_t dim = a->bo->cfg.dim, N = a->N;
  if (a->target == SG_BO_ACQ_TARGET_QEUBO)
    return set_samples_at (a, x);
  if (a->target == SG_BO_ACQ_TARGET_BELIEVER)  /* F[0], F[1]: mean, variance */
    return sg_skewgp_conditional (a->bo->post, a->bo->samples, a->sample, x, 1, a->F, a->F + 1);
  a->b = points_per_eval (a);
  memcpy (a->XX, x, dim * sizeof *x);
  if (a->b == 2)
    memcpy (a->XX + dim, a->ref, dim * sizeof *x);
  if (a->bo->has_two_gp)
    return two_gp_samples (a->bo, x, N, a->Z, a->F);
  int status = joint_samples (a);
  if (status == SG_OK && a->b == 2)
    for (size_t j = 0; j < N; j++)
      a->h[j] = a->F[j] - a->F[N + j];
  return status;
}

static double
acquisition_value (const acq_ctx *a)
{
  const sg_bo_config *c = &a->bo->cfg;
  size_t N = a->N;
  double sd = a->bo->hyper.noise.probit_sd;
  switch (a->target)
    {
    case SG_BO_ACQ_TARGET_DUEL:
      switch (c->acquisition)
        {
        case SG_BO_ACQ_EIIG: return sg_acq_eiig (a->h, N, sd, c->eiig_k);
        case SG_BO_ACQ_EPI: return sg_acq_epi (a->h, N, sd);
        case SG_BO_ACQ_THOMPSON: return a->h[N - 1];
        case SG_BO_ACQ_DTS:
        case SG_BO_ACQ_MUC: return sg_acq_win_variance (a->h, N, sd);
        case SG_BO_ACQ_UCB:
        default: return sg_acq_hpd (a->h, N, c->ucb_level, a->scratch, NULL);
        }
    case SG_BO_ACQ_TARGET_NUMERIC:
      if (c->numeric_acquisition == SG_BO_NUMERIC_EI && a->b == 2)
        return sg_acq_expected_improvement (a->h, N);
      return sg_acq_hpd (a->F, N, c->ucb_level, a->scratch, NULL);
    case SG_BO_ACQ_TARGET_BALD:
      return sg_acq_bald (a->F, N, sd);
    case SG_BO_ACQ_TARGET_QEUBO:
      return sg_acq_qeubo (a->F, a->b, N);
    case SG_BO_ACQ_TARGET_BELIEVER:
      return c->acquisition == SG_BO_ACQ_HB_EI
               ? sg_acq_gauss_ei (a->F[0], sqrt (a->F[1]), a->eta)
               : sg_acq_gauss_ucb (a->F[0], sqrt (a->F[1]), SG_BO_HB_BETA_ROOT);
    case SG_BO_ACQ_TARGET_SAMPLE:
      return a->F[N - 1];
    case SG_BO_ACQ_TARGET_SAFE:
    default:
      if (a->bo->has_two_gp)
        return two_gp_safe_ucb (a->bo, a->F, N, a->scratch);
      return sg_acq_safe_ucb (a->F, N, c->ucb_level, c->threshold,
                              c->safe_probability, c->safe_penalty, a->scratch);
    }
}

/* X repeats a setting already answered, within the measurement resolution
 * (none given: never). */
static int
repeats_answered (const acq_ctx *a, const double *x)
{
  const sg_bo *bo = a->bo;
  size_t dim = bo->cfg.dim;
  int has_resolution = 0;

  for (size_t j = 0; j < dim; j++)
    has_resolution |= bo->cfg.resolution[j] > 0;
  if (!has_resolution)
    return 0;
  for (size_t i = 0; i < bo->data.n_inputs; i++)
    {
      const double *y = bo->data.X + i * dim;
      size_t j = 0;
      while (j < dim && coord_distance (&bo->cfg, j, x, y) <= bo->cfg.resolution[j])
        j++;
      if (j == dim)
        return 1;
    }
  return 0;
}

static double
acq_eval_snapped (const double *x, acq_ctx *a);

/* The local search's objective: the acquisition at the setting X stands
 * for (snap_point), so it is flat across each integer or level step. */
static double
acq_eval (const double *x0, void *user_data)
{
  acq_ctx *a = user_data;
  double x[SG_BO_MAX_DIM];
  memcpy (x, x0, a->bo->cfg.dim * sizeof *x);
  snap_point (&a->bo->cfg, x);
  return acq_eval_snapped (x, a);
}

static double
acq_eval_snapped (const double *x, acq_ctx *a)
{
  if (a->status != SG_OK)
    return -INFINITY;
  if (is_duel_target (a->target) && too_close_to_ref (a, x))
    return -INFINITY;  /* a duel of x_r against itself says nothing */
  if (a->target != SG_BO_ACQ_TARGET_NONE && repeats_answered (a, x))
    return -INFINITY;  /* the same setting, as far as it can be measured */
  if (a->target == SG_BO_ACQ_TARGET_QEUBO && too_close_to_fixed (a, x))
    return -INFINITY;
  int status = samples_at (a, x);
  if (status != SG_OK)
    {
      a->status = status;
      return -INFINITY;
    }
  return acquisition_value (a);
}

static void
acq_ctx_clear (acq_ctx *a)
{
  free (a->F);
  free (a->h);
  free (a->scratch);
  free (a->Z);
  if (a->crn)
    gsl_rng_free (a->crn);
}

/* What a point's joint samples (a->F, a->h) are turned into. */
typedef double (*sample_value_fn) (const acq_ctx *a);

/* The probability that f(x) >= h (safe mode's P(valid)) from a->F. */
static double
prob_valid_value (const acq_ctx *a)
{
  if (a->bo->has_two_gp)  /* the classifier's P(f_c(x) >= 0) */
    return sg_acq_prob_at_least (a->F + a->N, a->N, 0.0);
  return sg_acq_prob_at_least (a->F, a->N, a->bo->cfg.threshold);
}

typedef struct {
  acq_ctx *a;
  const double *X;      /* the block's points                        */
  sample_value_fn value;
  double *values;
} batch_ctx;

/* A duel of x_r against (nearly) itself says nothing. */
static int
excluded (const batch_ctx *bc, const double *x)
{
  return bc->value == acquisition_value
         && ((is_duel_target (bc->a->target) && too_close_to_ref (bc->a, x))
             || (bc->a->target == SG_BO_ACQ_TARGET_QEUBO && too_close_to_fixed (bc->a, x))
             || repeats_answered (bc->a, x));
}

static void
score_point (size_t c, const double *F, void *user_data)
{
  batch_ctx *bc = user_data;
  acq_ctx *a = bc->a;
  size_t N = a->N;

  if (excluded (bc, bc->X + c * a->bo->cfg.dim))
    {
      bc->values[c] = -INFINITY;
      return;
    }
  memcpy (a->F, F, a->b * N * sizeof *F);
  if (a->b == 2)
    for (size_t j = 0; j < N; j++)
      a->h[j] = a->F[j] - a->F[N + j];
  bc->values[c] = bc->value (a);
}

/* VALUE at each of the N points X, into VALUES: for the exact posterior
 * one product of the latent samples with all the points (the common
 * random numbers of the remainder are Z's first b x N normals, what
 * samples_at's restarted stream draws), for the other models point by
 * point. A failure is kept in a->status (the values are then -inf). */
static void
score_points (acq_ctx *a, const double *X, size_t n, sample_value_fn value, double *values)
{
  const sg_bo *bo = a->bo;
  batch_ctx bc = { a, X, value, values };
  int status = a->status;
  /* P(valid) wants the samples of f(x) (and f(x_r)) whatever the
   * acquisition's own set (qEUBO's is its fixed options and x). */
  sg_bo_acq_target target = a->target;
  int pairs;

  if (value == prob_valid_value)
    a->target = SG_BO_ACQ_TARGET_NONE;
  pairs = a->target != SG_BO_ACQ_TARGET_QEUBO && a->target != SG_BO_ACQ_TARGET_BELIEVER;
  if (status == SG_OK && bo->post != NULL && !bo->has_two_gp && pairs)
    {
      a->b = points_per_eval (a);
      status = sg_skewgp_joint_samples_each (bo->post, bo->samples, X, n,
                                             a->b == 2 ? a->ref : NULL, a->Z, score_point, &bc);
    }
  else
    for (size_t c = 0; c < n && status == SG_OK; c++)
      {
        const double *x = X + c * bo->cfg.dim;
        if (excluded (&bc, x))
          values[c] = -INFINITY;
        else if ((status = samples_at (a, x)) == SG_OK)
          values[c] = value (a);
      }
  a->target = target;
  if (status != SG_OK)
    {
      a->status = status;
      for (size_t c = 0; c < n; c++)
        values[c] = -INFINITY;
    }
}

/* sg_acq_batch_fn of the search: the acquisition at the candidates. */
static void
acq_eval_batch (const double *X, size_t n, void *user_data, double *values)
{
  acq_ctx *a = user_data;
  const sg_bo_config *c = &a->bo->cfg;
  if (!has_kinds (c))
    {
      score_points (a, X, n, acquisition_value, values);
      return;
    }
  /* the candidates as the settings they stand for (snap_point) */
  double *S = malloc ((n * c->dim + 1) * sizeof *S);
  if (S == NULL)
    {
      a->status = SG_ENOMEM;
      for (size_t i = 0; i < n; i++)
        values[i] = -INFINITY;
      return;
    }
  memcpy (S, X, n * c->dim * sizeof *S);
  for (size_t i = 0; i < n; i++)
    snap_point (c, S + i * c->dim);
  score_points (a, S, n, acquisition_value, values);
  free (S);
}

/* A context for the acquisitions of BO's model with x_r = REF (NULL: none)
 * and the common random numbers of CRN_SEED: the Gaussian variates Z are
 * the first 2N normals of that stream, and the SkewGP remainder restarts
 * it at every evaluation, so the same seed gives the same function. */
static int
acq_ctx_init (acq_ctx *a, const sg_bo *bo, unsigned long crn_seed, const double *ref)
{
  memset (a, 0, sizeof *a);
  a->bo = bo;
  a->N = bo->post ? sg_skewgp_samples_count (bo->samples) : bo->cfg.n_samples;
  a->has_ref = ref != NULL;
  if (ref)
    memcpy (a->ref, ref, bo->cfg.dim * sizeof *ref);
  a->b = a->has_ref && bo->cfg.mode != SG_BO_SAFE ? 2 : 1;
  size_t N = a->N, rows = SG_BO_MAX_OPTIONS;
  a->F = malloc (rows * N * sizeof *a->F);
  a->h = malloc (N * sizeof *a->h);
  a->scratch = malloc (N * sizeof *a->scratch);
  a->Z = malloc (rows * N * sizeof *a->Z);
  a->crn = gsl_rng_alloc (gsl_rng_mt19937);
  if (!a->F || !a->h || !a->scratch || !a->Z || !a->crn)
    {
      acq_ctx_clear (a);
      return SG_ENOMEM;
    }
  a->crn_seed = crn_seed;
  gsl_rng_set (a->crn, a->crn_seed);
  for (size_t i = 0; i < rows * N; i++)
    a->Z[i] = sg_rng_gaussian (a->crn);
  for (size_t j = 0; j < bo->cfg.dim; j++)
    a->min_sep[j] = fmax (1e-6 * (bo->cfg.upper[j] - bo->cfg.lower[j]), bo->cfg.resolution[j]);
  return SG_OK;
}

/* Points scored per product of the latent samples (and per progress
 * report) when every candidate or a plot's points are scored. */
#define EVAL_BLOCK 64

/* The index of the data's input X (exact: answers hold candidate rows). */
static int
find_input (const sg_data *d, const double *x, size_t *index)
{
  for (size_t i = 0; i < d->n_inputs; i++)
    if (memcmp (d->X + i * d->dim, x, d->dim * sizeof *x) == 0)
      {
        *index = i;
        return 1;
      }
  return 0;
}

/* The input indices of observation O's options into IDX (at most
 * SG_BO_MAX_OPTIONS of them, else 0 is returned): a duel's or tie's two,
 * a choice's or ranking's k, a value's or label's one. */
static size_t
obs_options (const sg_data *d, const sg_obs *o, size_t *idx)
{
  switch (o->kind)
    {
    case SG_OBS_PREFERENCE:
    case SG_OBS_TIE:
      idx[0] = o->a;
      idx[1] = o->b;
      return 2;
    case SG_OBS_CHOICE:
    case SG_OBS_RANKING:
      if (o->count > SG_BO_MAX_OPTIONS)
        return 0;
      for (size_t i = 0; i < o->count; i++)
        idx[i] = d->options[o->first + i];
      return o->count;
    default:
      idx[0] = o->a;
      return 1;
    }
}

/* An observation of KIND answers the question TARGET asks. */
static int
answers_target (sg_bo_acq_target target, sg_obs_kind kind)
{
  switch (target)
    {
    case SG_BO_ACQ_TARGET_DUEL:
    case SG_BO_ACQ_TARGET_QEUBO:
      return kind == SG_OBS_PREFERENCE || kind == SG_OBS_TIE || kind == SG_OBS_CHOICE
             || kind == SG_OBS_RANKING;
    case SG_BO_ACQ_TARGET_NUMERIC:
    case SG_BO_ACQ_TARGET_SAFE:
      return kind == SG_OBS_NUMERIC || kind == SG_OBS_VALID || kind == SG_OBS_INVALID;
    case SG_BO_ACQ_TARGET_BALD:
      return kind == SG_OBS_BINARY;
    case SG_BO_ACQ_TARGET_NONE:
    default:
      return 0;
    }
}

/* The question the search would ask with X was asked before (the same
 * options, in any order): a duel of x_r against X, the qEUBO set of the
 * fixed options and X once the set is complete, a value or label at X.
 * Only the candidate search avoids these (sg-bo.h, "Candidate sets"). */
static int
question_asked (const acq_ctx *a, const double *x)
{
  const sg_bo *bo = a->bo;
  const sg_data *d = &bo->data;
  size_t dim = bo->cfg.dim, want[SG_BO_MAX_OPTIONS], k = 0;

  if (a->target == SG_BO_ACQ_TARGET_DUEL)
    {
      if (!a->has_ref || !find_input (d, a->ref, &want[k++]))
        return 0;
    }
  else if (a->target == SG_BO_ACQ_TARGET_QEUBO)
    {
      if (a->n_fixed + 1 != bo->cfg.n_options)
        return 0;  /* a partial set: its question is not known yet */
      for (size_t i = 0; i < a->n_fixed; i++)
        if (!find_input (d, a->fixed + i * dim, &want[k++]))
          return 0;
    }
  if (!find_input (d, x, &want[k++]))
    return 0;
  for (size_t i = 0; i < d->n_obs; i++)
    {
      size_t idx[SG_BO_MAX_OPTIONS], n, hits = 0;
      if (!answers_target (a->target, d->obs[i].kind)
          || (n = obs_options (d, &d->obs[i], idx)) != k)
        continue;
      for (size_t p = 0; p < n; p++)
        for (size_t q = 0; q < k; q++)
          hits += idx[p] == want[q];
      if (hits == k)
        return 1;
    }
  return 0;
}

/* The argmax of VALUES (n), skipping the candidates SKIP marks (NULL: none);
 * SIZE_MAX when no value is finite. The first of equal values wins. */
static size_t
argmax_finite (const double *values, const unsigned char *skip, size_t n)
{
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < n; i++)
    if (isfinite (values[i]) && (skip == NULL || !skip[i])
        && (best == SIZE_MAX || values[i] > values[best]))
      best = i;
  return best;
}

/* The search over a candidate set: the acquisition at every candidate,
 * EVAL_BLOCK at a time (one product of the latent samples per block, and
 * a progress report), then the best candidate whose question was not
 * asked before, else the best one. X and *VALUE receive it (*VALUE = -inf
 * when every candidate is excluded outright). */
static int
search_candidates (acq_ctx *a, const sg_progress *progress, double *x, double *value)
{
  const sg_bo_config *c = &a->bo->cfg;
  size_t n = c->n_candidates, dim = c->dim;
  double *v = malloc (n * sizeof *v);
  unsigned char *asked = malloc (n);
  int status = v && asked ? SG_OK : SG_ENOMEM;

  for (size_t i = 0; i < n && status == SG_OK; i += EVAL_BLOCK)
    {
      status = sg_progress_report (progress, (double) i / (double) n);
      if (status == SG_OK)
        {
          score_points (a, c->candidates + i * dim, n - i < EVAL_BLOCK ? n - i : EVAL_BLOCK,
                        acquisition_value, v + i);
          status = a->status;
        }
    }
  if (status == SG_OK)
    {
      for (size_t i = 0; i < n; i++)
        asked[i] = isfinite (v[i]) && question_asked (a, c->candidates + i * dim);
      size_t best = argmax_finite (v, asked, n);
      if (best == SIZE_MAX)
        best = argmax_finite (v, NULL, n);
      *value = best == SIZE_MAX ? -INFINITY : v[best];
      memcpy (x, c->candidates + (best == SIZE_MAX ? 0 : best) * dim, dim * sizeof *x);
    }
  free (v);
  free (asked);
  return status;
}

/* Maximises the acquisition for TARGET; X and *VALUE receive the result. */
static int
maximise (acq_ctx *a, sg_bo_acq_target target, gsl_rng *rng, const sg_progress *progress,
          double *x, double *value)
{
  const sg_bo *bo = a->bo;
  a->target = target;
  a->status = SG_OK;
  int status = bo->cfg.n_candidates > 0
                 ? search_candidates (a, progress, x, value)
                 : (int) sg_acq_maximize_batched (bo->cfg.dim, bo->cfg.lower, bo->cfg.upper, acq_eval,
                                            acq_eval_batch, a, bo->data.X, bo->data.n_inputs,
                                            &bo->cfg.search, rng, progress, x, value);
  if (status == SG_OK && a->status != SG_OK)
    status = a->status;
  if (status == SG_OK)
    snap_point (&bo->cfg, x);  /* what the search scored at x */
  /* The value reported is the maximiser's alone, as sg_bo_acquisition_at
   * gives it at that point (the search's block products and refinement
   * differ from it in the last bits). */
  if (status == SG_OK && isfinite (*value))
    score_points (a, x, 1, acquisition_value, value);
  if (status == SG_OK && a->status != SG_OK)
    status = a->status;
  if (status == SG_OK && !isfinite (*value))
    {
      /* Every candidate was excluded (a duel whose box has collapsed onto
       * x_r, or candidates all within the resolution of the answers):
       * fall back to a random distinct point (candidate). */
      if (bo->cfg.n_candidates > 0)
        {
          double avoid[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
          size_t n_avoid = 0;
          if (is_duel_target (target) && a->has_ref)
            memcpy (avoid, a->ref, bo->cfg.dim * sizeof *avoid), n_avoid = 1;
          else if (target == SG_BO_ACQ_TARGET_QEUBO)
            memcpy (avoid, a->fixed, a->n_fixed * bo->cfg.dim * sizeof *avoid),
              n_avoid = a->n_fixed;
          random_setting (bo, rng, avoid, n_avoid, x);
        }
      else
        do
          random_point (&bo->cfg, rng, x);
        while ((is_duel_target (target) && too_close_to_ref (a, x))
               || (target == SG_BO_ACQ_TARGET_QEUBO && too_close_to_fixed (a, x)));
      *value = NAN;
    }
  return status;
}

/* The probabilities reported with a query, from the samples at X. */
static int
describe (acq_ctx *a, const double *x, sg_bo_query *q)
{
  sg_bo_acq_target target = a->target;
  a->target = SG_BO_ACQ_TARGET_DUEL;  /* the samples of (f(x), f(x_ref)) */
  int status = samples_at (a, x);
  a->target = target;
  if (status != SG_OK)
    return status;
  if (a->b == 2)
    {
      size_t c = 0;
      for (size_t j = 0; j < a->N; j++)
        c += a->h[j] > 0;
      q->prob_better = (double) c / (double) a->N;
    }
  if (a->bo->cfg.mode == SG_BO_SAFE)
    q->prob_safe = a->bo->has_two_gp ? sg_acq_prob_at_least (a->F + a->N, a->N, 0.0)
                                     : sg_acq_prob_at_least (a->F, a->N, a->bo->cfg.threshold);
  return SG_OK;
}

/* qEUBO's k options, by greedy construction and one cyclic pass.
 * Greedy: option i maximises the qEUBO of {options 0..i-1, x} (so the
 * first is the maximiser of the posterior mean, the second the maximiser
 * of the expected improvement over it, and so on). E[max] over a set is
 * monotone submodular in the set, so the greedy set is within a factor
 * 1 - 1/e of the best one (Wilson, Hutter and Deisenroth, "Maximizing
 * acquisition functions for Bayesian optimization", NeurIPS 2018, sec.
 * 3.3). The cyclic pass then re-optimises each option in turn given the
 * k - 1 others (BoTorch's optimize_acqf_cyclic: greedy start, then
 * cyclic re-optimisation), which frees the first option from pure
 * exploitation of the mean. Every step searches the same candidates
 * (space-filling points plus the data's inputs, the incumbent among
 * them) with BOBYQA refinement, as every acquisition. OPTS receives
 * k x dim values, *VALUE the set's qEUBO; the context is left at the
 * last step (option k - 1 free, the others fixed). */
/* One step: option I maximises the qEUBO of the set with the other
 * options among the first N_SET; in the cyclic pass (I < N_SET) the new
 * point replaces option I only if it improves on it. *VALUE: the set's
 * qEUBO with option I free, as the context evaluates it. */
static int
qeubo_step (acq_ctx *a, size_t i, size_t n_set, gsl_rng *rng, const sg_progress *progress,
            double *opts, double *value)
{
  size_t dim = a->bo->cfg.dim;
  a->n_fixed = 0;
  for (size_t o = 0; o < n_set; o++)
    if (o != i)
      memcpy (a->fixed + (a->n_fixed++) * dim, opts + o * dim, dim * sizeof *opts);
  a->target = SG_BO_ACQ_TARGET_QEUBO;
  double current = i < n_set ? acq_eval (opts + i * dim, a) : -INFINITY;
  /* a set shown before gives way to any other (candidate sets) */
  if (i < n_set && a->bo->cfg.n_candidates > 0 && question_asked (a, opts + i * dim))
    current = -INFINITY;
  double x[SG_BO_MAX_DIM], v;
  int status = maximise (a, SG_BO_ACQ_TARGET_QEUBO, rng, progress, x, &v);
  if (status == SG_OK && a->status != SG_OK)
    status = a->status;
  if (status != SG_OK)
    return status;
  if (i >= n_set || v > current)
    {
      memcpy (opts + i * dim, x, dim * sizeof *x);
      *value = v;
    }
  else
    *value = current;
  return SG_OK;
}

static int
qeubo_options (acq_ctx *a, size_t k, gsl_rng *rng, const sg_progress *progress,
               double *opts, double *value)
{
  int status = SG_OK;
  size_t steps = 2 * k;
  sub_progress sp;
  for (size_t step = 0; step < steps && status == SG_OK; step++)
    {
      size_t i = step % k, n_set = step < k ? i : k;
      const sg_progress *sub
        = sub_progress_init (&sp, progress, 0.5 + 0.5 * (double) step / (double) steps,
                             0.5 + 0.5 * (double) (step + 1) / (double) steps);
      status = qeubo_step (a, i, n_set, rng, sub, opts, value);
    }
  return status;
}

/* The hallucination believer's sample (uniform over the stored ones,
 * from RNG) and its mean at x_r, EI's bar (sg-bo.h). Without an x_r the
 * bar is the prior mean. */
static int
believer_init (acq_ctx *a, gsl_rng *rng)
{
  const sg_bo *bo = a->bo;
  if (bo->post == NULL)
    return SG_EINVAL;
  a->sample = (size_t) gsl_rng_uniform_int (rng, a->N);
  a->eta = bo->hyper.mean;
  if (!a->has_ref)
    return SG_OK;
  double var;
  return sg_skewgp_conditional (bo->post, bo->samples, a->sample, a->ref, 1, &a->eta, &var);
}

/* Dueling Thompson sampling (sg-bo.h): X1 maximises posterior sample N - 1
 * of f, then X maximises the variance of its win probability against X1;
 * the context is left with x_ref = X1 (the duel is X vs X1). */
static int
dueling_thompson (acq_ctx *a, gsl_rng *rng, const sg_progress *progress, double *x,
                  double *value)
{
  sub_progress sp;
  double x1[SG_BO_MAX_DIM], v1;
  a->has_ref = 0;
  int status = maximise (a, SG_BO_ACQ_TARGET_SAMPLE, rng,
                         sub_progress_init (&sp, progress, 0.5, 0.75), x1, &v1);
  if (status != SG_OK)
    return status;
  a->has_ref = 1;
  memcpy (a->ref, x1, a->bo->cfg.dim * sizeof *x1);
  return maximise (a, SG_BO_ACQ_TARGET_DUEL, rng, sub_progress_init (&sp, progress, 0.75, 1.0),
                   x, value);
}

static int
model_query (sg_bo *bo, gsl_rng *rng, const sg_progress *progress, sg_bo_query *q)
{
  acq_ctx a;
  int status = acq_ctx_init (&a, bo, gsl_rng_get (rng), bo->has_ref ? bo->ref : NULL);
  if (status != SG_OK)
    return status;
  const sg_bo_config *c = &bo->cfg;
  double x[SG_BO_MAX_DIM], v = NAN;
  double opts[SG_BO_MAX_OPTIONS * SG_BO_MAX_DIM];
  size_t k = 0;         /* options of a qEUBO question (0: x alone) */
  sub_progress sp;
  if (c->mode == SG_BO_PREFERENCE && c->acquisition == SG_BO_ACQ_QEUBO)
    {
      q->kind = c->question == SG_BO_QUESTION_CHOICE ? SG_BO_QUERY_CHOICE : SG_BO_QUERY_DUEL;
      k = c->n_options;
      status = qeubo_options (&a, k, rng, progress, opts, &v);
      if (status == SG_OK)
        memcpy (x, opts + (k - 1) * c->dim, c->dim * sizeof *x);
    }
  else if (c->mode == SG_BO_PREFERENCE
           && (c->acquisition == SG_BO_ACQ_HB_EI || c->acquisition == SG_BO_ACQ_HB_UCB))
    {
      q->kind = SG_BO_QUERY_DUEL;
      status = believer_init (&a, rng);
      if (status == SG_OK)
        status = maximise (&a, SG_BO_ACQ_TARGET_BELIEVER, rng,
                           sub_progress_init (&sp, progress, 0.5, 1.0), x, &v);
    }
  else if (c->mode == SG_BO_PREFERENCE && c->acquisition == SG_BO_ACQ_DTS)
    {
      q->kind = SG_BO_QUERY_DUEL;
      status = dueling_thompson (&a, rng, progress, x, &v);
    }
  else if (c->mode == SG_BO_ACTIVE)
    {
      q->kind = SG_BO_QUERY_LABEL;
      status = maximise (&a, SG_BO_ACQ_TARGET_BALD, rng, sub_progress_init (&sp, progress, 0.5, 1.0),
                         x, &v);
    }
  else if (c->mode == SG_BO_SAFE)
    {
      q->kind = SG_BO_QUERY_VALUE;
      status = maximise (&a, SG_BO_ACQ_TARGET_SAFE, rng, sub_progress_init (&sp, progress, 0.5, 1.0),
                         x, &v);
    }
  else if (c->mode == SG_BO_MIXED && c->mixed_policy == SG_BO_MIXED_SCHEDULE
           && schedule_wants_value (bo))
    {
      q->kind = SG_BO_QUERY_VALUE;
      status = maximise (&a, SG_BO_ACQ_TARGET_NUMERIC, rng, sub_progress_init (&sp, progress, 0.5, 1.0),
                         x, &v);
    }
  else
    {
      q->kind = SG_BO_QUERY_DUEL;
      status = maximise (&a, SG_BO_ACQ_TARGET_DUEL, rng, sub_progress_init (&sp, progress, 0.5, 0.8),
                         x, &v);
      if (status == SG_OK && c->mode == SG_BO_MIXED && c->mixed_policy == SG_BO_MIXED_CONFIDENT)
        {
          status = samples_at (&a, x);
          double p = status == SG_OK
                       ? sg_acq_epi (a.h, a.N, bo->hyper.noise.probit_sd) : NAN;
          if (status == SG_OK && (p > c->mixed_confidence || p < 1 - c->mixed_confidence))
            {
              q->kind = SG_BO_QUERY_VALUE;
              status = maximise (&a, SG_BO_ACQ_TARGET_NUMERIC, rng,
                                 sub_progress_init (&sp, progress, 0.8, 1.0), x, &v);
            }
        }
    }
  if (status == SG_OK && k == 0)
    status = describe (&a, x, q);
  if (status == SG_OK)
    {
      memcpy (q->x, x, c->dim * sizeof *x);
      if (a.has_ref)  /* x_r, or dts's first point */
        memcpy (q->x_ref, a.ref, c->dim * sizeof *x);
      if (k > 0)
        set_options (c, q, opts, k);
      else if (q->kind == SG_BO_QUERY_DUEL)
        {
          memcpy (opts, q->x, c->dim * sizeof *x);
          memcpy (opts + c->dim, q->x_ref, c->dim * sizeof *x);
          set_options (c, q, opts, 2);
        }
      q->acquisition = v;
      /* Remember the function just maximised, for sg_bo_acquisition_at. */
      acq_record *r = &bo->acq;
      r->valid = 1;
      r->target = a.target;
      r->crn_seed = a.crn_seed;
      r->has_ref = a.has_ref;
      memcpy (r->ref, a.ref, sizeof r->ref);
      r->n_fixed = a.n_fixed;
      memcpy (r->fixed, a.fixed, sizeof r->fixed);
      r->sample = a.sample;
      r->eta = a.eta;
      memcpy (r->x, x, c->dim * sizeof *x);
      r->value = v;
    }
  acq_ctx_clear (&a);
  return status;
}

/* A value or label query shows one option, x. */
static void
finish_query (sg_bo_query *q, size_t dim)
{
  if (q->n_options == 0)
    {
      q->n_options = 1;
      memcpy (q->options[0], q->x, dim * sizeof *q->x);
    }
}

sg_status
sg_bo_propose (sg_bo *bo, gsl_rng *rng, const sg_progress *progress,
               sg_bo_query *query)
{
  if (bo == NULL || rng == NULL || query == NULL)
    return SG_EINVAL;
  sg_bo_query q;
  query_reset (&q);
  if (initial_query (bo, rng, &q))
    {
      finish_query (&q, bo->cfg.dim);
      *query = q;
      return SG_OK;
    }
  drop_model (bo);
  sub_progress sp;
  int status = build_model (bo, rng, sub_progress_init (&sp, progress, 0.0, 0.5));
  if (status == SG_OK)
    status = model_query (bo, rng, progress, &q);
  if (status == SG_OK)
    {
      finish_query (&q, bo->cfg.dim);
      *query = q;
    }
  return status;
}

/* ---- Hyperparameters ------------------------------------------------------- */

int
sg_bo_refit_due (const sg_bo *bo)
{
  size_t n = bo->n_log;
  if (bo->cfg.surrogate == SG_BO_SURROGATE_RANDOM || n == 0
      || (bo->refit_done && bo->refit_n == n))
    return 0;
  return n <= bo->cfg.refit_until
         || (bo->cfg.refit_every > 0 && n % bo->cfg.refit_every == 0);
}

static int
has_numeric_data (const sg_data *d)
{
  for (size_t i = 0; i < d->n_obs; i++)
    if (d->obs[i].kind == SG_OBS_NUMERIC || d->obs[i].kind == SG_OBS_VALID)
      return 1;
  return 0;
}

/* The tie margin enters the likelihood (a tie, or a duel that offered one). */
static int
has_tie_rows (const sg_data *d)
{
  for (size_t i = 0; i < d->n_obs; i++)
    if (d->obs[i].kind == SG_OBS_TIE || d->obs[i].tie_offered)
      return 1;
  return 0;
}

/* Refits on DATA: the loop's data, or the two-GP surrogate's regression
 * data (its classifier shares the kernel). */
static int
refit_on (sg_bo *bo, const sg_data *data, gsl_rng *rng, const sg_progress *progress,
          sg_fit_result *res)
{
  sg_fit_result r;
  memset (&r, 0, sizeof r);
  unsigned free_mask = bo->cfg.refit_free;
  if (!has_numeric_data (data))
    free_mask &= ~(unsigned) (SG_FIT_MEAN | SG_FIT_NUMERIC_SD);
  if (bo->hyper.s == 0)
    free_mask &= ~(unsigned) (SG_FIT_GAMMA | SG_FIT_PSEUDO_POINTS);
  if (!has_tie_rows (data))
    free_mask &= ~(unsigned) SG_FIT_TIE_MARGIN;
  if (bo->cfg.surrogate == SG_BO_SURROGATE_RANDOM || bo->cfg.surrogate == SG_BO_SURROGATE_SVGP
      || data->n_obs < 2 || free_mask == 0)
    {
      bo->refit_done = 1;
      bo->refit_n = bo->n_log;
      if (res)
        *res = r;
      return SG_OK;
    }
  size_t s = bo->hyper.s, dim = bo->cfg.dim;
  double *buf = malloc ((s * dim + 2 * s + 1) * sizeof *buf);
  if (buf == NULL)
    return SG_ENOMEM;
  sg_hyper h;
  hyper_copy (&h, &bo->hyper, buf, dim);

  sg_fit_spec spec;
  int status = sg_fit_spec_default (&spec, free_mask, data);
  /* Duels alone barely identify the scale of f (the evidence keeps
   * growing with the variance as the data get separable): cap it as the
   * reference code does (variance in [e^-5, e^4.1] = [0.0067, 60]). */
  if (!has_numeric_data (data))
    spec.variance.upper = fmin (spec.variance.upper, 60.0);
  for (size_t j = 0; j < dim; j++)
    {
      double w = bo->cfg.upper[j] - bo->cfg.lower[j];
      spec.lengthscale[j].lower = bo->cfg.refit_lengthscale_min * w;
      spec.lengthscale[j].upper = bo->cfg.refit_lengthscale_max * w;
    }
  /* the two-GP regression data are numeric only: the Laplace "approximation"
   * is then the exact GP evidence */
  sg_fit_method method = bo->cfg.surrogate == SG_BO_SURROGATE_LAPLACE ? SG_FIT_METHOD_LAPLACE
                         : bo->cfg.surrogate == SG_BO_SURROGATE_TWO_GP ? SG_FIT_METHOD_LAPLACE
                         : bo->cfg.surrogate == SG_BO_SURROGATE_EP    ? SG_FIT_METHOD_EP
                                                                      : SG_FIT_METHOD_SKEWGP;
  sg_evidence_ctx ctx;
  sg_evidence_ctx_init (&ctx, method, data);
  /* A workspace of its own keeps the variable order of log Phi fixed
   * across the fit's evaluations (sg-fit.h): a smooth objective. */
  if (method == SG_FIT_METHOD_SKEWGP && status == SG_OK)
    {
      ctx.workspace = sg_mvn_workspace_new (h.s + sg_data_n_probit_rows (data) + 1);
      if (ctx.workspace == NULL)
        status = SG_ENOMEM;
    }
  sg_fit_options opt = bo->cfg.refit;
  if (opt.n_starts > 1 && rng == NULL)
    opt.n_starts = 1;
  if (status == SG_OK)
    status = sg_fit (&spec, sg_evidence_eval, &ctx, &opt, rng, progress, &h, &r);
  if (status == SG_OK)
    {
      hyper_copy (&bo->hyper, &h, bo->hyper_buf, dim);
      drop_model (bo);
      bo->refit_done = 1;
      bo->refit_n = bo->n_log;
      if (res)
        *res = r;
    }
  sg_mvn_workspace_free (ctx.workspace);
  free (buf);
  return status;
}

sg_status
sg_bo_refit (sg_bo *bo, gsl_rng *rng, const sg_progress *progress, sg_fit_result *res)
{
  if (bo == NULL)
    return SG_EINVAL;
  if (bo->cfg.surrogate != SG_BO_SURROGATE_TWO_GP)
    return refit_on (bo, &bo->data, rng, progress, res);
  sg_data reg, cls;
  int status = two_gp_split (&bo->data, &reg, &cls);
  if (status != SG_OK)
    return status;
  status = refit_on (bo, &reg, rng, progress, res);
  sg_data_clear (&reg);
  sg_data_clear (&cls);
  return status;
}

const sg_hyper *
sg_bo_get_hyper (const sg_bo *bo)
{
  return &bo->hyper;
}

sg_status
sg_bo_set_hyper (sg_bo *bo, const sg_hyper *hyper)
{
  if (bo == NULL || hyper == NULL || hyper->s != bo->cfg.prior.s)
    return SG_EINVAL;
  sg_bo_config c = bo->cfg;
  c.prior = *hyper;
  if (sg_bo_config_check (&c) != SG_OK)
    return SG_EINVAL;
  hyper_copy (&bo->hyper, hyper, bo->hyper_buf, bo->cfg.dim);
  apply_kinds (&bo->cfg, &bo->hyper.kernel);
  drop_model (bo);
  return SG_OK;
}

/* ---- The model for plots ----------------------------------------------------- */

size_t sg_bo_model_n_answers (const sg_bo *bo) { return bo->model_n; }
const sg_skewgp_posterior *sg_bo_skewgp_posterior (const sg_bo *bo) { return bo->post; }
const sg_skewgp_samples *sg_bo_skewgp_samples (const sg_bo *bo) { return bo->samples; }
const sg_gauss_post *sg_bo_gauss_post (const sg_bo *bo) { return bo->has_gpost ? &bo->gpost : NULL; }

sg_status
sg_bo_summarize (const sg_bo *bo, const double *XS, size_t b, unsigned fields,
                 double level, const sg_progress *progress, sg_point_summary *out)
{
  if (bo == NULL || XS == NULL || out == NULL || b == 0 || !(level > 0 && level < 1)
      || fields == 0 || (fields & ~(unsigned) SG_SUMMARY_ALL) != 0)
    return SG_EINVAL;
  const double *ref = bo->has_ref ? bo->ref : NULL;
  if (bo->post != NULL)
    {
      sg_summary_options o;
      sg_summary_options_default (&o);
      o.level = level;
      o.reference = ref;
      o.fields = fields;
      if (fields == SG_SUMMARY_MOMENTS)
        o.fast_moments = SG_SUMMARY_FAST_MOMENTS;
      return sg_skewgp_summarize (bo->post, bo->samples, XS, b, &o, progress, out);
    }
  if (bo->has_gpost)
    return sg_gauss_post_summaries (&bo->gpost, XS, b, level, ref, out);
  if (bo->has_svgp)
    return sg_svgp_summaries (&bo->svgp, XS, b, level, ref, out);
  if (bo->has_reg)
    return sg_gauss_post_summaries (&bo->reg_post, XS, b, level, ref, out);
  return SG_EINVAL;
}

/* ---- The acquisition of the last proposal ------------------------------------- */

static const char *
acq_target_name (const sg_bo_config *c, sg_bo_acq_target target)
{
  switch (target)
    {
    case SG_BO_ACQ_TARGET_DUEL:
      switch (c->acquisition)
        {
        case SG_BO_ACQ_EIIG: return "EIIG";
        case SG_BO_ACQ_EPI: return "EPI";
        case SG_BO_ACQ_THOMPSON: return "Thompson";
        case SG_BO_ACQ_QEUBO: return "qEUBO";
        case SG_BO_ACQ_DTS: return "DTS";
        case SG_BO_ACQ_MUC: return "MUC";
        case SG_BO_ACQ_UCB: default: return "dueling UCB";
        }
    case SG_BO_ACQ_TARGET_BELIEVER:
      return c->acquisition == SG_BO_ACQ_HB_EI ? "HB-EI" : "HB-UCB";
    case SG_BO_ACQ_TARGET_SAMPLE:
      return "Thompson sample";
    case SG_BO_ACQ_TARGET_NUMERIC:
      return c->numeric_acquisition == SG_BO_NUMERIC_EI ? "EI" : "UCB";
    case SG_BO_ACQ_TARGET_SAFE:
      return "safe UCB";
    case SG_BO_ACQ_TARGET_BALD:
      return "BALD";
    case SG_BO_ACQ_TARGET_QEUBO:
      return "qEUBO";
    case SG_BO_ACQ_TARGET_NONE:
    default:
      return NULL;
    }
}

sg_status
sg_bo_last_acquisition (const sg_bo *bo, sg_bo_acq_info *info)
{
  if (bo == NULL || info == NULL || !bo->acq.valid)
    return SG_EINVAL;
  const acq_record *r = &bo->acq;
  memset (info, 0, sizeof *info);
  info->target = r->target;
  info->name = acq_target_name (&bo->cfg, r->target);
  memcpy (info->x, r->x, sizeof info->x);
  info->value = r->value;
  info->has_ref = r->has_ref;
  memcpy (info->x_ref, r->ref, sizeof info->x_ref);
  return SG_OK;
}

/* Shared loop of sg_bo_acquisition_at / sg_bo_prob_valid_at: the joint
 * samples at each point, as the proposal drew them, turned into a number
 * by VALUE_AT. Writes OUT only on success. */

static int
eval_last (const sg_bo *bo, const double *XS, size_t b, const sg_progress *progress,
           sample_value_fn value, double *out)
{
  if (bo == NULL || XS == NULL || out == NULL || b == 0 || !bo->acq.valid)
    return SG_EINVAL;
  size_t dim = bo->cfg.dim;
  for (size_t i = 0; i < b * dim; i++)
    if (!isfinite (XS[i]))
      return SG_EINVAL;
  double *v = malloc (b * sizeof *v);
  if (v == NULL)
    return SG_ENOMEM;
  acq_ctx a;
  int status = acq_ctx_init (&a, bo, bo->acq.crn_seed, bo->acq.has_ref ? bo->acq.ref : NULL);
  if (status == SG_OK)
    {
      a.target = bo->acq.target;
      a.n_fixed = bo->acq.n_fixed;
      memcpy (a.fixed, bo->acq.fixed, sizeof a.fixed);
      a.sample = bo->acq.sample;
      a.eta = bo->acq.eta;
      for (size_t i = 0; i < b && status == SG_OK; i += EVAL_BLOCK)
        {
          status = sg_progress_report (progress, (double) i / (double) b);
          if (status == SG_OK)
            {
              score_points (&a, XS + i * dim, b - i < EVAL_BLOCK ? b - i : EVAL_BLOCK, value, v + i);
              status = a.status;
            }
        }
      acq_ctx_clear (&a);
    }
  if (status == SG_OK)
    memcpy (out, v, b * sizeof *v);
  free (v);
  return status;
}

sg_status
sg_bo_acquisition_at (const sg_bo *bo, const double *XS, size_t b,
                      const sg_progress *progress, double *out)
{
  return eval_last (bo, XS, b, progress, acquisition_value, out);
}

sg_status
sg_bo_prob_valid_at (const sg_bo *bo, const double *XS, size_t b,
                     const sg_progress *progress, double *out)
{
  return eval_last (bo, XS, b, progress, prob_valid_value, out);
}

/* ---- Two-GP surrogate ----------------------------------------------------------
 * SafeOpt-style baseline (sg-bo.h): an EP GP classifier of validity and a
 * GP regression of the valid values, independent given the kernel. */

/* REG: the valid values as numeric observations; CLS: every safe answer as
 * a binary label (+1 valid, -1 invalid). Both initialised by the call. */
static int
two_gp_split (const sg_data *data, sg_data *reg, sg_data *cls)
{
  sg_data_init (reg, data->dim);
  sg_data_init (cls, data->dim);
  int status = SG_OK;
  for (size_t i = 0; i < data->n_obs && status == SG_OK; i++)
    {
      const sg_obs *o = &data->obs[i];
      const double *x = data->X + o->a * data->dim;
      if (o->kind == SG_OBS_VALID)
        {
          status = sg_data_add_numeric (reg, x, o->y);
          if (status == SG_OK)
            status = sg_data_add_binary (cls, x, +1);
        }
      else if (o->kind == SG_OBS_INVALID)
        status = sg_data_add_binary (cls, x, -1);
    }
  if (status != SG_OK)
    {
      sg_data_clear (reg);
      sg_data_clear (cls);
    }
  return status;
}

static int
two_gp_build (sg_bo *bo, const sg_progress *progress)
{
  sg_data reg, cls;
  int status = two_gp_split (&bo->data, &reg, &cls);
  if (status != SG_OK)
    return status;
  /* the classifier: latent f_c with mean 0, labels through probit_sd */
  sg_approx_model model;
  sg_hyper_approx_model (&bo->hyper, SG_LINK_PROBIT, &model);
  model.prior_mean = 0;
  status = sg_ep_posterior (&model, &cls, NULL, progress, &bo->cls_warm,
                            &bo->cls_post);
  if (status == SG_OK)
    {
      bo->has_two_gp = 1;
      /* the regression: exact GP on the valid values (numeric rows only, so
       * sg_laplace_posterior does no approximation) */
      if (reg.n_obs > 0)
        {
          sg_hyper_approx_model (&bo->hyper, SG_LINK_PROBIT, &model);
          status = sg_laplace_posterior (&model, &reg, NULL, progress, NULL,
                                         &bo->reg_post);
          bo->has_reg = status == SG_OK;
        }
    }
  sg_data_clear (&reg);
  sg_data_clear (&cls);
  return status;
}

/* F[0..n): samples of the regression GP at X; F[n..2n): of the classifier's
 * latent f_c(x); from the common normal variates Z (2n). */
static int
two_gp_samples (const sg_bo *bo, const double *x, size_t n, const double *Z, double *F)
{
  double mean = bo->hyper.mean, var = bo->hyper.kernel.variance;  /* the prior */
  int status = SG_OK;
  if (bo->has_reg)
    status = sg_gauss_post_predict (&bo->reg_post, x, 1, &mean, &var);
  double mc = 0, vc = 0;
  if (status == SG_OK)
    status = sg_gauss_post_predict (&bo->cls_post, x, 1, &mc, &vc);
  if (status != SG_OK)
    return status;
  double sd = sqrt (fmax (var, 0)), sdc = sqrt (fmax (vc, 0));
  for (size_t j = 0; j < n; j++)
    {
      F[j] = mean + sd * Z[j];
      F[n + j] = mc + sdc * Z[n + j];
    }
  return SG_OK;
}

/* The safe-UCB rule of sg_acq_safe_ucb with the two models: the HPD upper
 * end of the regression samples, penalised where the classifier's
 * P(f_c(x) >= 0) is below safe_probability. */
static double
two_gp_safe_ucb (const sg_bo *bo, const double *F, size_t n, double *scratch)
{
  const sg_bo_config *c = &bo->cfg;
  double ucb = sg_acq_hpd (F, n, c->ucb_level, scratch, NULL);
  double p_valid = sg_acq_prob_at_least (F + n, n, 0.0);
  return p_valid < c->safe_probability ? ucb - c->safe_penalty : ucb;
}

const sg_gauss_post *
sg_bo_two_gp_classifier (const sg_bo *bo)
{
  return bo->has_two_gp ? &bo->cls_post : NULL;
}

const sg_gauss_post *
sg_bo_two_gp_regression (const sg_bo *bo)
{
  return bo->has_reg ? &bo->reg_post : NULL;
}

/* ---- Active mode: the classifier ------------------------------------------------ */

sg_status
sg_bo_fit_model (sg_bo *bo, gsl_rng *rng, const sg_progress *progress)
{
  if (bo == NULL || rng == NULL || bo->cfg.surrogate == SG_BO_SURROGATE_RANDOM)
    return SG_EINVAL;
  drop_model (bo);
  return build_model (bo, rng, progress);
}

sg_status
sg_bo_class_probability (const sg_bo *bo, const double *XS, size_t b,
                         const sg_progress *progress, double *prob)
{
  if (bo == NULL || XS == NULL || prob == NULL || b == 0)
    return SG_EINVAL;
  if (bo->post == NULL && !bo->has_gpost)
    return SG_EINVAL;
  sg_point_summary *s = malloc (b * sizeof *s);
  if (s == NULL)
    return SG_ENOMEM;
  int status;
  if (bo->post != NULL)
    {
      sg_summary_options o;
      sg_summary_options_default (&o);
      o.fields = SG_SUMMARY_CLASS_PROB;
      o.probit_sd = bo->hyper.noise.probit_sd;
      status = sg_skewgp_summarize (bo->post, bo->samples, XS, b, &o, progress, s);
    }
  else
    status = sg_gauss_post_summaries (&bo->gpost, XS, b, 0.95, NULL, s);
  if (status == SG_OK)
    for (size_t i = 0; i < b; i++)
      prob[i] = s[i].class_probability;
  free (s);
  return status;
}

/* ---- Names --------------------------------------------------------------------- */

static const char *const mode_names[] = { "preference", "mixed", "safe", "active" };
static const char *const acq_names[] = { "ucb", "eiig", "epi", "thompson", "qeubo",
                                         "hb-ei", "hb-ucb", "dts", "muc" };
_Static_assert (sizeof acq_names / sizeof acq_names[0] == SG_BO_ACQ_LAST + 1,
                "one name per acquisition");
static const char *const question_names[] = { "duel", "choice" };
static const char *const surrogate_names[] = { "skewgp", "laplace", "ep", "random", "two-gp",
                                                "svgp" };

unsigned
sg_bo_default_refit_free (sg_bo_mode mode)
{
  unsigned groups = SG_FIT_LENGTHSCALES | SG_FIT_VARIANCE;
  if (mode == SG_BO_MIXED)
    groups |= SG_FIT_MEAN | SG_FIT_PROBIT_SD;
  return groups;
}

#define N_NAMES(names) (sizeof names / sizeof names[0])

const char *
sg_bo_mode_name (sg_bo_mode m)
{
  return sg_name_of (mode_names, N_NAMES (mode_names), (size_t) m);
}

const char *
sg_bo_acquisition_name (sg_bo_acquisition a)
{
  return sg_name_of (acq_names, N_NAMES (acq_names), (size_t) a);
}

const char *
sg_bo_surrogate_name (sg_bo_surrogate s)
{
  return sg_name_of (surrogate_names, N_NAMES (surrogate_names), (size_t) s);
}

const char *
sg_bo_question_name (sg_bo_question q)
{
  return sg_name_of (question_names, N_NAMES (question_names), (size_t) q);
}

/* The value of NAME in NAMES into *OUT (an enum), as sg_name_lookup. */
#define PARSE_NAME(names, name, out, type)                                     \
  do                                                                           \
    {                                                                          \
      size_t i_;                                                               \
      sg_status st_ = sg_name_lookup (names, N_NAMES (names), name, &i_);      \
      if (st_ == SG_OK)                                                        \
        *(out) = (type) i_;                                                    \
      return st_;                                                              \
    }                                                                          \
  while (0)

sg_status
sg_bo_mode_parse (const char *name, sg_bo_mode *mode)
{
  PARSE_NAME (mode_names, name, mode, sg_bo_mode);
}

sg_status
sg_bo_acquisition_parse (const char *name, sg_bo_acquisition *acq)
{
  PARSE_NAME (acq_names, name, acq, sg_bo_acquisition);
}

sg_status
sg_bo_surrogate_parse (const char *name, sg_bo_surrogate *surrogate)
{
  PARSE_NAME (surrogate_names, name, surrogate, sg_bo_surrogate);
}

sg_status
sg_bo_question_parse (const char *name, sg_bo_question *question)
{
  PARSE_NAME (question_names, name, question, sg_bo_question);
}
