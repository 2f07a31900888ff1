/* sg-bo.c — the BO loops as a state machine (see sg-bo.h): the loop's
 * life, its answers, the model of the last proposal, proposals and
 * refits. The configuration (sg-bo-config.c), initial design
 * (sg-bo-initial.c), two-GP surrogate (sg-bo-two-gp.c) and acquisition
 * search (sg-bo-acquisition.c) share the loop's state through
 * sg-bo-private.h; each calls only those listed before it, and this file
 * calls them all. */
#include "sg-bo-private.h"

#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Life of a loop --------------------------------------------------------- */

/* Copies SRC into DST, whose kernel has storage of SRC's dim (its
 * values are copied there), and the latent-part arrays of SRC into BUF
 * (s*dim + 2s doubles), pointing DST at them. */
static void
hyper_copy (sg_hyper *dst, const sg_hyper *src, double *buf, size_t dim)
{
  sg_kernel own = dst->kernel;
  *dst = *src;
  dst->kernel = own;
  (void) sg_kernel_memcpy (&dst->kernel, &src->kernel);
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
  if (out == NULL || sg_bo_config_check (config) != SG_OK || !_sg_bo_candidates_distinct (config))
    return SG_EINVAL;
  sg_bo *bo = calloc (1, sizeof *bo);
  if (bo == NULL)
    return SG_ENOMEM;
  size_t s = config->prior.s, nbuf = s * config->dim + 2 * s + 1;
  bo->prior_buf = malloc (nbuf * sizeof *bo->prior_buf);
  bo->hyper_buf = malloc (nbuf * sizeof *bo->hyper_buf);
  size_t ncand = config->n_candidates * config->dim;
  bo->cand_buf = ncand ? malloc (ncand * sizeof *bo->cand_buf) : NULL;
  bo->cfg = *config;
  memset (&bo->cfg.prior.kernel, 0, sizeof bo->cfg.prior.kernel);
  if (bo->prior_buf == NULL || bo->hyper_buf == NULL || (ncand && bo->cand_buf == NULL)
      || sg_kernel_copy (&bo->cfg.prior.kernel, &config->prior.kernel) != SG_OK
      || sg_kernel_copy (&bo->hyper.kernel, &config->prior.kernel) != SG_OK
      || sg_kernel_copy (&bo->model_hyper.kernel, &config->prior.kernel) != SG_OK)
    {
      sg_kernel_clear (&bo->cfg.prior.kernel);
      sg_kernel_clear (&bo->hyper.kernel);
      free (bo->prior_buf); free (bo->hyper_buf); free (bo->cand_buf); free (bo);
      return SG_ENOMEM;
    }
  if (ncand)
    memcpy (bo->cand_buf, config->candidates, ncand * sizeof *bo->cand_buf);
  bo->cfg.candidates = bo->cand_buf;
  hyper_copy (&bo->cfg.prior, &config->prior, bo->prior_buf, config->dim);
  hyper_copy (&bo->hyper, &config->prior, bo->hyper_buf, config->dim);
  _sg_bo_apply_kinds (&bo->cfg, &bo->cfg.prior.kernel);
  _sg_bo_apply_kinds (&bo->cfg, &bo->hyper.kernel);
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
  bo->safe_info.valid = 0;
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
  sg_kernel_clear (&bo->cfg.prior.kernel);
  sg_kernel_clear (&bo->hyper.kernel);
  sg_kernel_clear (&bo->model_hyper.kernel);
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
      if (!_sg_bo_inside_box (&bo->cfg, X + i * d))
        return 0;
      for (size_t j = 0; j < i; j++)
        if (_sg_bo_same_setting (&bo->cfg, X + i * d, X + j * d))
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
      || !_sg_bo_inside_box (&bo->cfg, xa) || !_sg_bo_inside_box (&bo->cfg, xb)
      || _sg_bo_same_setting (&bo->cfg, xa, xb)
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
      || !_sg_bo_inside_box (&bo->cfg, xa) || !_sg_bo_inside_box (&bo->cfg, xb))
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

/* x_r failed (or, in safe mode, measured below h), so it gives up its
 * place to the setting with the highest measured (safe) value other than
 * it, if there is one; otherwise it stays in mixed mode (nothing else is
 * known to be better) and there is none in safe mode (nothing is known
 * to be safe). */
static void
replace_failed_ref (sg_bo *bo)
{
  const sg_data *data = &bo->data;
  int safe = bo->cfg.mode == SG_BO_SAFE;
  double best_y = -INFINITY;
  size_t best = SIZE_MAX;
  for (size_t i = 0; i < data->n_obs; i++)
    {
      const sg_obs *o = &data->obs[i];
      if (o->kind != (safe ? SG_OBS_VALID : SG_OBS_NUMERIC) || !(o->y > best_y)
          || is_ref (bo, data->X + o->a * bo->cfg.dim))
        continue;
      /* the setting's last measurement counts (safe mode: a later failure
       * or value below h, or a lower value, replaces this one) */
      size_t k = i + 1;
      while (k < data->n_obs
             && !(data->obs[k].a == o->a
                  && (data->obs[k].kind == SG_OBS_VALID || data->obs[k].kind == SG_OBS_NUMERIC
                      || data->obs[k].kind == SG_OBS_INVALID)))
        k++;
      if (safe && k < data->n_obs)
        continue;
      best_y = o->y;
      best = o->a;
    }
  if (best != SIZE_MAX)
    set_ref (bo, data->X + best * bo->cfg.dim, best_y);
  else if (safe)
    bo->has_ref = 0;  /* no setting is known to be safe */
}

sg_status
sg_bo_answer_value (sg_bo *bo, const double *x, double y)
{
  double buf[SG_BO_MAX_DIM];
  if (bo != NULL && !snap_rows (bo, &x, 1, buf))
    return SG_EINVAL;
  if (bo == NULL || x == NULL || !isfinite (y)
      || (bo->cfg.mode != SG_BO_MIXED && bo->cfg.mode != SG_BO_SAFE)
      || !_sg_bo_inside_box (&bo->cfg, x))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  /* Safe mode: a value at or above h is eq. 40's valid factor; one below
   * h was measured at an unsafe setting, and the valid factor (which says
   * f >= h) would contradict it: it is a plain measurement. */
  int unsafe = bo->cfg.mode == SG_BO_SAFE && y < bo->cfg.threshold;
  if (bo->cfg.mode == SG_BO_SAFE && !unsafe)
    status = sg_data_add_valid (&bo->data, x, y, bo->cfg.threshold);
  else
    status = sg_data_add_numeric (&bo->data, x, y);
  if (status != SG_OK)
    return status;
  push_record (bo);
  if (unsafe)
    {
      /* an unsafe value is never x_r; x_r measured unsafe gives way */
      if (is_ref (bo, x))
        replace_failed_ref (bo);
      return SG_OK;
    }
  /* A value moves x_r only when it can be compared with x_r's own value
   * (or there is no x_r yet): a duel winner whose value was never
   * measured stays x_r, since a value alone says nothing about it. In
   * safe mode every x_r was measured, so x_r is the best safe value. */
  if (!bo->has_ref || is_ref (bo, x) || (isfinite (bo->ref_value) && y > bo->ref_value))
    set_ref (bo, x, y);
  return SG_OK;
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
      || !_sg_bo_inside_box (&bo->cfg, x))
    return SG_EINVAL;
  int status = reserve_log (bo);
  if (status != SG_OK)
    return status;
  status = sg_data_add_invalid (&bo->data, x, bo->cfg.threshold);
  if (status != SG_OK)
    return status;
  push_record (bo);
  if (is_ref (bo, x))
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
      || !_sg_bo_inside_box (&bo->cfg, x))
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
  status = sg_likelihood_build (&tail, &bo->model_hyper.noise, &lik);
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
  const sg_hyper *hy = &bo->model_hyper;
  sg_kernel own = bo->model_hyper.kernel;
  bo->model_hyper = bo->hyper;  /* the latent part's arrays borrowed */
  bo->model_hyper.kernel = own;
  (void) sg_kernel_memcpy (&bo->model_hyper.kernel, &bo->hyper.kernel);
  bo->safe_info.valid = 0;
  if (_sg_bo_safe_rule_on (bo))
    _sg_bo_safe_model_hyper (bo, &bo->model_hyper, &bo->safe_info);
  if (bo->cfg.surrogate == SG_BO_SURROGATE_TWO_GP)
    status = _sg_bo_two_gp_build (bo, progress);
  else if (bo->cfg.surrogate == SG_BO_SURROGATE_SVGP)
    {
      sg_svgp_options o;
      sg_svgp_options_default (&o);
      status = rng ? sg_svgp_fit_preferences (&hy->kernel, hy->noise.probit_sd,
                                              &bo->data, &o, rng, progress, &bo->svgp)
                   : SG_EINVAL;
      bo->has_svgp = status == SG_OK;
    }
  else if (bo->cfg.surrogate == SG_BO_SURROGATE_SKEWGP)
    {
      sg_skewgp_prior prior;
      sg_hyper_skewgp_prior (hy, &prior);
      status = bo->has_summary ? summary_posterior (bo, &prior)
                               : skewgp_posterior (&bo->data, &hy->noise, &prior, &bo->post);
      if (status == SG_OK)
        status = sg_skewgp_sample (bo->post, bo->cfg.n_samples, &bo->cfg.sampling,
                                   rng, progress, &bo->samples);
    }
  else
    {
      sg_approx_model model;
      sg_hyper_approx_model (hy, SG_LINK_PROBIT, &model);
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
  _sg_bo_query_reset (&q);
  if (_sg_bo_initial_query (bo, rng, &q))
    {
      finish_query (&q, bo->cfg.dim);
      *query = q;
      return SG_OK;
    }
  drop_model (bo);
  sg_progress_part sp;
  int status = build_model (bo, rng, sg_progress_part_init (&sp, progress, 0.0, 0.5));
  if (status == SG_OK)
    status = _sg_bo_model_query (bo, rng, progress, &q);
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
      || data->n_obs < (_sg_bo_safe_rule_on (bo) ? 1 : 2) || free_mask == 0)
    {
      bo->refit_done = 1;
      bo->refit_n = bo->n_log;
      if (res)
        *res = r;
      return SG_OK;
    }
  size_t s = bo->hyper.s, dim = bo->cfg.dim;
  double *buf = malloc ((s * dim + 2 * s + 1) * sizeof *buf);
  sg_hyper h;
  if (buf == NULL || sg_kernel_copy (&h.kernel, &bo->hyper.kernel) != SG_OK)
    {
      free (buf);
      return SG_ENOMEM;
    }
  hyper_copy (&h, &bo->hyper, buf, dim);

  sg_fit_spec spec;
  int status = sg_fit_spec_default (&spec, free_mask, dim, data);
  if (status != SG_OK)
    {
      sg_kernel_clear (&h.kernel);
      free (buf);
      return status;
    }
  /* Duels alone barely identify the scale of f (the evidence keeps
   * growing with the variance as the data get separable): cap it,
   * by default as the reference code does (variance in [e^-5, e^4.1] =
   * [0.0067, 60]). */
  if (!has_numeric_data (data))
    spec.variance.upper = fmin (spec.variance.upper, bo->cfg.refit_variance_max);
  for (size_t j = 0; j < dim; j++)
    {
      double w = bo->cfg.upper[j] - bo->cfg.lower[j];
      spec.lengthscale[j].lower = bo->cfg.refit_lengthscale_min * w;
      spec.lengthscale[j].upper = bo->cfg.refit_lengthscale_max * w;
    }
  /* safe mode's SafeOpt rule: the mean at h, the variance floor and the
   * lengthscale caps of the model bound the fit (sg-bo.h, "Safe mode") */
  int safe = _sg_bo_safe_rule_on (bo);
  if (safe)
    _sg_bo_safe_fit_spec (bo, &spec, &h);
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
  bo->safe_fit.valid = 0;
  if (status == SG_OK && safe)
    status = _sg_bo_safe_profile (bo, sg_evidence_eval, &ctx, r.log_evidence, progress, &h);
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
  sg_fit_spec_clear (&spec);
  sg_kernel_clear (&h.kernel);
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
  int status = _sg_bo_two_gp_split (&bo->data, &reg, &cls);
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
  _sg_bo_apply_kinds (&bo->cfg, &bo->hyper.kernel);
  bo->safe_fit.valid = 0;
  drop_model (bo);
  return SG_OK;
}

sg_status
sg_bo_safe_last (const sg_bo *bo, sg_bo_safe_info *info)
{
  if (bo == NULL || info == NULL || !bo->safe_info.valid)
    return SG_EINVAL;
  *info = bo->safe_info;
  return SG_OK;
}

sg_status
sg_bo_safe_last_fit (const sg_bo *bo, sg_bo_safe_fit *fit)
{
  if (bo == NULL || fit == NULL || !bo->safe_fit.valid)
    return SG_EINVAL;
  *fit = bo->safe_fit;
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
