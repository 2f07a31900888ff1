/* sg-hier.c — the hierarchical exact model of several participants
 * (sg-hier.h): data with a participant coordinate, per-person noise, the
 * posterior and evidence through the grouped kernel, fitting, P(best
 * differs), and proposals for one participant. */
#include "sg-hier.h"

#include "sg-acq.h"
#include "sg-linalg.h"
#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Data ----------------------------------------------------------------- */

sg_status
sg_hier_data_init (sg_hier_data *hd, size_t dim, size_t n_people)
{
  if (hd == NULL || dim == 0 || dim > SG_HIER_MAX_DIM || n_people == 0)
    return SG_EINVAL;
  hd->dim = dim;
  hd->n_people = n_people;
  sg_data_init (&hd->data, dim + 1);
  return SG_OK;
}

void
sg_hier_data_clear (sg_hier_data *hd)
{
  if (hd)
    sg_data_clear (&hd->data);
}

sg_status
sg_hier_points (size_t dim, size_t person, const double *X, size_t b, double *out)
{
  if (dim == 0 || (b > 0 && (X == NULL || out == NULL)) || !sg_all_finite (X, b * dim))
    return SG_EINVAL;
  double g = person == SG_HIER_POPULATION ? -1.0 : (double) person;
  for (size_t i = b; i-- > 0;)   /* backwards: OUT may start where X does */
    {
      memmove (out + i * (dim + 1), X + i * dim, dim * sizeof *X);
      out[i * (dim + 1) + dim] = g;
    }
  return SG_OK;
}

size_t
sg_hier_input_person (const sg_hier_data *hd, size_t i)
{
  return (size_t) hd->data.X[i * (hd->dim + 1) + hd->dim];
}

size_t
sg_hier_obs_person (const sg_hier_data *hd, size_t k)
{
  return sg_hier_input_person (hd, hd->data.obs[k].a);
}

/* K settings X of PERSON as points in a fresh array (NULL on ENOMEM or a
 * bad person / NaN; *STATUS says which). */
static double *
person_points (const sg_hier_data *hd, size_t person, const double *X, size_t k,
               int *status)
{
  *status = SG_EINVAL;
  if (hd == NULL || person >= hd->n_people || X == NULL || k == 0)
    return NULL;
  double *P = malloc (k * (hd->dim + 1) * sizeof *P);
  if (P == NULL)
    {
      *status = SG_ENOMEM;
      return NULL;
    }
  if (sg_hier_points (hd->dim, person, X, k, P) != SG_OK)
    {
      free (P);
      return NULL;
    }
  *status = SG_OK;
  return P;
}

/* The two settings A and B of PERSON as two rows of points (malloc'd),
 * or NULL with *STATUS (SG_EINVAL for a NULL setting). */
static double *
pair_points (const sg_hier_data *hd, size_t person, const double *a, const double *b,
             int *status)
{
  size_t d = hd ? hd->dim : 0;
  double two[2 * SG_HIER_MAX_DIM];

  if (a == NULL || b == NULL)
    {
      *status = SG_EINVAL;
      return NULL;
    }
  memcpy (two, a, d * sizeof *two);
  memcpy (two + d, b, d * sizeof *two);
  return person_points (hd, person, two, 2, status);
}

sg_status
sg_hier_add_duel (sg_hier_data *hd, size_t person, const double *winner,
                  const double *loser, sg_confidence confidence,
                  size_t shown_first, int tie_offered)
{
  int status;
  double *P = pair_points (hd, person, winner, loser, &status);
  if (P == NULL)
    return status;
  status = sg_data_add_duel (&hd->data, P, P + hd->dim + 1, confidence, shown_first,
                             tie_offered);
  free (P);
  return status;
}

sg_status
sg_hier_add_preference (sg_hier_data *hd, size_t person, const double *winner,
                        const double *loser)
{
  return sg_hier_add_duel (hd, person, winner, loser, SG_CONFIDENCE_NONE,
                           SG_SHOWN_NONE, 0);
}

sg_status
sg_hier_add_tie (sg_hier_data *hd, size_t person, const double *a, const double *b)
{
  int status;
  double *P = pair_points (hd, person, a, b, &status);
  if (P == NULL)
    return status;
  status = sg_data_add_tie (&hd->data, P, P + hd->dim + 1);
  free (P);
  return status;
}

sg_status
sg_hier_add_choice (sg_hier_data *hd, size_t person, const double *chosen,
                    const double *others, size_t n_others,
                    sg_confidence confidence, size_t shown_first)
{
  if (chosen == NULL || others == NULL || n_others == 0 || hd == NULL)
    return SG_EINVAL;
  int status;
  size_t d = hd->dim;
  double *all = malloc ((n_others + 1) * d * sizeof *all);
  if (all == NULL)
    return SG_ENOMEM;
  memcpy (all, chosen, d * sizeof *all);
  memcpy (all + d, others, n_others * d * sizeof *all);
  double *P = person_points (hd, person, all, n_others + 1, &status);
  free (all);
  if (P == NULL)
    return status;
  status = sg_data_add_choice (&hd->data, P, P + d + 1, n_others, confidence,
                               shown_first);
  free (P);
  return status;
}

sg_status
sg_hier_add_ranking (sg_hier_data *hd, size_t person, const double *order, size_t k)
{
  int status;
  double *P = person_points (hd, person, order, k, &status);
  if (P == NULL)
    return status;
  status = sg_data_add_ranking (&hd->data, P, k);
  free (P);
  return status;
}

sg_status
sg_hier_add_numeric (sg_hier_data *hd, size_t person, const double *x, double y)
{
  int status;
  double *P = person_points (hd, person, x, 1, &status);
  if (P == NULL)
    return status;
  status = sg_data_add_numeric (&hd->data, P, y);
  free (P);
  return status;
}

/* Appends observation O of SRC (its points are rows of SRC) to DST. */
static int
copy_obs (sg_data *dst, const sg_data *src, const sg_obs *o)
{
  size_t dim = src->dim;
  const double *a = src->X + o->a * dim, *b = src->X + o->b * dim;
  switch (o->kind)
    {
    case SG_OBS_NUMERIC: return sg_data_add_numeric (dst, a, o->y);
    case SG_OBS_BINARY: return sg_data_add_binary (dst, a, (int) o->y);
    case SG_OBS_VALID: return sg_data_add_valid (dst, a, o->y, o->threshold);
    case SG_OBS_INVALID: return sg_data_add_invalid (dst, a, o->threshold);
    case SG_OBS_PREFERENCE:
      return sg_data_add_duel (dst, a, b, o->confidence, o->shown_first, o->tie_offered);
    case SG_OBS_TIE: return sg_data_add_tie (dst, a, b);
    default: break;
    }
  double *P = malloc (o->count * dim * sizeof *P);
  if (P == NULL)
    return SG_ENOMEM;
  for (size_t i = 0; i < o->count; i++)
    memcpy (P + i * dim, src->X + src->options[o->first + i] * dim, dim * sizeof *P);
  int status = o->kind == SG_OBS_CHOICE
               ? sg_data_add_choice (dst, P, P + dim, o->count - 1, o->confidence,
                                     o->shown_first)
               : sg_data_add_ranking (dst, P, o->count);
  free (P);
  return status;
}

sg_status
sg_hier_data_person (const sg_hier_data *hd, size_t person, sg_hier_data *out)
{
  if (hd == NULL || out == NULL || person >= hd->n_people)
    return SG_EINVAL;
  sg_hier_data r;
  sg_hier_data_init (&r, hd->dim, hd->n_people);
  int status = SG_OK;
  for (size_t k = 0; k < hd->data.n_obs && status == SG_OK; k++)
    if (sg_hier_obs_person (hd, k) == person)
      status = copy_obs (&r.data, &hd->data, &hd->data.obs[k]);
  if (status != SG_OK)
    {
      sg_hier_data_clear (&r);
      return status;
    }
  *out = r;
  return SG_OK;
}

/* ---- Model ---------------------------------------------------------------- */

sg_status
sg_hier_model_init (sg_hier_model *model, sg_kernel_type type, size_t dim,
                    double pop_variance, double pop_lengthscale,
                    double ind_variance, double ind_lengthscale)
{
  if (model == NULL || !(pop_variance >= 0) || !(ind_variance >= 0)
      || !(pop_variance + ind_variance > 0))
    return SG_EINVAL;
  sg_hier_model m;
  memset (&m, 0, sizeof m);
  /* initialised with unit variances so the lengthscales are checked */
  if (dim > SG_HIER_MAX_DIM || !isfinite (pop_variance) || !isfinite (ind_variance))
    return SG_EINVAL;
  int status = sg_kernel_init (&m.pop, type, dim, 1, pop_lengthscale);
  if (status == SG_OK)
    status = sg_kernel_init (&m.ind, type, dim, 1, ind_lengthscale);
  if (status != SG_OK)
    {
      sg_hier_model_clear (&m);
      return status;
    }
  m.pop.variance = pop_variance;
  m.ind.variance = ind_variance;
  sg_noise_default (&m.noise);
  *model = m;
  return SG_OK;
}

void
sg_hier_model_clear (sg_hier_model *model)
{
  if (model == NULL)
    return;
  sg_kernel_clear (&model->pop);
  sg_kernel_clear (&model->ind);
}

/* A part of the model is valid with a variance of 0 (absent). */
static int
part_ok (const sg_kernel *k, size_t dim)
{
  sg_kernel unit = *k;
  unit.variance = 1;
  return k->dim == dim && !k->grouped && k->variance >= 0 && isfinite (k->variance)
         && sg_kernel_check (&unit) == SG_OK;
}

sg_status
sg_hier_model_check (const sg_hier_model *model, const sg_hier_data *hd)
{
  if (model == NULL || hd == NULL || !part_ok (&model->pop, hd->dim)
      || !part_ok (&model->ind, hd->dim) || model->pop.type != model->ind.type
      || !(model->pop.variance + model->ind.variance > 0) || !isfinite (model->mean))
    return SG_EINVAL;
  if (model->probit_sd)
    for (size_t p = 0; p < hd->n_people; p++)
      if (!(model->probit_sd[p] > 0) || !isfinite (model->probit_sd[p]))
        return SG_EINVAL;
  return SG_OK;
}

sg_status
sg_hier_model_kernel (const sg_hier_model *model, sg_kernel *k)
{
  if (model == NULL || k == NULL)
    return SG_EINVAL;
  const sg_kernel *pop = model->pop.variance > 0 ? &model->pop : NULL;
  const sg_kernel *ind = model->ind.variance > 0 ? &model->ind : NULL;
  sg_kernel g;
  int status = sg_kernel_grouped (&g, pop, ind);
  if (status != SG_OK)
    return status;
  /* an absent part keeps its own lengthscales (they are fitted later) */
  for (size_t j = 0; j < model->pop.dim; j++)
    {
      g.lengthscales[j] = model->pop.lengthscales[j];
      g.ind_lengthscales[j] = model->ind.lengthscales[j];
    }
  *k = g;
  return SG_OK;
}

/* The probit rows an observation makes, and whether their sd is the
 * probit sd (scaled per person) rather than the numeric sd. */
static size_t
obs_rows (const sg_obs *o, int *scaled)
{
  *scaled = 1;
  switch (o->kind)
    {
    case SG_OBS_NUMERIC: return 0;
    case SG_OBS_VALID:
    case SG_OBS_INVALID: *scaled = 0; return 1;
    case SG_OBS_CHOICE:
    case SG_OBS_RANKING: return o->count - 1;
    default: return 1;
    }
}

static sg_status
hier_likelihood_build (const sg_hier_model *model, const sg_hier_data *hd,
                       int sparse, sg_likelihood *lik)
{
  if (sg_hier_model_check (model, hd) != SG_OK || lik == NULL)
    return SG_EINVAL;
  sg_status (*build) (const sg_data *, const sg_noise *, sg_likelihood *)
    = sparse ? sg_likelihood_build_sparse : sg_likelihood_build;
  if (model->probit_sd == NULL)
    return build (&hd->data, &model->noise, lik);
  /* The rows' sds are linear in probit_sd (sg-data.c: option_sd times the
   * confidence scale, sqrt2 for differences): lower at probit_sd = 1, then
   * scale each person's rows by their sd and their block by its square. */
  sg_noise unit = model->noise;
  unit.probit_sd = 1;
  sg_likelihood L;
  int status = build (&hd->data, &unit, &L);
  if (status != SG_OK)
    return status;
  size_t row = 0, block = 0;
  for (size_t k = 0; k < hd->data.n_obs; k++)
    {
      int scaled;
      size_t rows = obs_rows (&hd->data.obs[k], &scaled);
      if (rows == 0)
        continue;
      double s = model->probit_sd[sg_hier_obs_person (hd, k)];
      if (scaled)
        {
          for (size_t r = row; r < row + rows; r++)
            L.sigma[r] *= s;
          if (L.block_start)
            for (size_t c = L.cov_start[block]; c < L.cov_start[block + 1]; c++)
              L.block_cov[c] *= s * s;
        }
      row += rows;
      block++;
    }
  *lik = L;
  return SG_OK;
}

sg_status
sg_hier_likelihood_build (const sg_hier_model *model, const sg_hier_data *hd,
                          sg_likelihood *lik)
{
  return hier_likelihood_build (model, hd, 0, lik);
}

sg_status
sg_hier_likelihood_build_sparse (const sg_hier_model *model, const sg_hier_data *hd,
                                 sg_likelihood *lik)
{
  return hier_likelihood_build (model, hd, 1, lik);
}

/* The GP prior of MODEL, a view of K (the grouped kernel, made here:
 * sg_kernel_clear it after SG_OK). */
static int
hier_prior (const sg_hier_model *model, sg_skewgp_prior *prior, sg_kernel *k)
{
  int status = sg_hier_model_kernel (model, k);
  if (status == SG_OK)
    sg_skewgp_prior_gp (prior, k, model->mean);
  return status;
}

sg_status
sg_hier_posterior_new (const sg_hier_model *model, const sg_hier_data *hd,
                       sg_skewgp_posterior **out)
{
  if (out == NULL)
    return SG_EINVAL;
  sg_skewgp_prior prior;
  sg_likelihood lik;
  int status = sg_hier_likelihood_build (model, hd, &lik);
  if (status != SG_OK)
    return status;
  sg_kernel k;
  status = hier_prior (model, &prior, &k);
  if (status == SG_OK)
    {
      status = sg_skewgp_posterior_new (&prior, hd->data.X, &lik, out);
      sg_kernel_clear (&k);
    }
  sg_likelihood_clear (&lik);
  return status;
}

sg_status
sg_hier_log_evidence (const sg_hier_model *model, const sg_hier_data *hd,
                      sg_mvn_workspace *w, const sg_mvn_options *opt,
                      sg_skewgp_evidence *res)
{
  if (res == NULL)
    return SG_EINVAL;
  sg_skewgp_prior prior;
  sg_likelihood lik;
  int status = sg_hier_likelihood_build (model, hd, &lik);
  if (status != SG_OK)
    return status;
  sg_kernel k;
  status = hier_prior (model, &prior, &k);
  if (status == SG_OK)
    {
      status = sg_skewgp_log_evidence (&prior, hd->data.X, &lik, w, opt, res);
      sg_kernel_clear (&k);
    }
  sg_likelihood_clear (&lik);
  return status;
}

/* ---- Fitting -------------------------------------------------------------- */

sg_status
sg_hier_fit_spec_default (sg_hier_fit_spec *spec, unsigned free, const sg_hier_data *hd)
{
  if (spec == NULL || hd == NULL || (free & ~(unsigned) SG_HIER_FIT_ALL))
    return SG_EINVAL;
  /* sg_fit_spec_default's boxes, on the settings alone (the participant
   * coordinate is no length). */
  sg_data settings;
  sg_data_init (&settings, hd->dim);
  int status = SG_OK;
  for (size_t k = 0; k < hd->data.n_obs && status == SG_OK; k++)
    if (hd->data.obs[k].kind == SG_OBS_NUMERIC)
      status = sg_data_add_numeric (&settings, hd->data.X + hd->data.obs[k].a * (hd->dim + 1),
                                    hd->data.obs[k].y);
  for (size_t i = 0; i < hd->data.n_inputs && status == SG_OK; i++)
    {
      size_t index;
      status = sg_data_input_index (&settings, hd->data.X + i * (hd->dim + 1), &index);
    }
  sg_fit_spec base;
  if (status == SG_OK)
    status = sg_fit_spec_default (&base, SG_FIT_ALL & ~(SG_FIT_GAMMA | SG_FIT_PSEUDO_POINTS),
                                  hd->dim, &settings);
  sg_data_clear (&settings);
  if (status != SG_OK)
    return status;
  sg_hier_fit_spec s;
  memset (&s, 0, sizeof s);
  s.free = free ? free : SG_HIER_FIT_POP | SG_HIER_FIT_IND;
  s.variance = s.ind_variance = base.variance;
  for (size_t j = 0; j < hd->dim; j++)
    s.lengthscale[j] = s.ind_lengthscale[j] = base.lengthscale[j];
  s.probit_sd = base.probit_sd;
  s.mean = base.mean;
  sg_fit_spec_clear (&base);
  *spec = s;
  return SG_OK;
}

typedef struct {
  const sg_hier_fit_spec *spec;
  const sg_hier_data *hd;
  sg_hier_model work;         /* the model being evaluated (own sd array) */
  sg_mvn_workspace *w;
  sg_mvn_options mvn;
  size_t calls;
} hier_fit_ctx;

/* One coordinate of the free vector: a value with its box, log or not. */
typedef void (*coord_fn) (size_t i, sg_fit_range r, int is_log, double *value, void *ctx);

/* Visits the free coordinates in order: k_pop (variance, lengthscales),
 * k_ind (the same), the probit sds, the mean; returns their number. */
static size_t
walk (const sg_hier_fit_spec *spec, sg_hier_model *m, size_t n_people, coord_fn fn,
      void *ctx)
{
  size_t i = 0, d = m->pop.dim;
  if ((spec->free & SG_HIER_FIT_POP) && m->pop.variance > 0)
    {
      fn (i++, spec->variance, 1, &m->pop.variance, ctx);
      for (size_t j = 0; j < d; j++)
        fn (i++, spec->lengthscale[j], 1, &m->pop.lengthscales[j], ctx);
    }
  if ((spec->free & SG_HIER_FIT_IND) && m->ind.variance > 0)
    {
      fn (i++, spec->ind_variance, 1, &m->ind.variance, ctx);
      for (size_t j = 0; j < d; j++)
        fn (i++, spec->ind_lengthscale[j], 1, &m->ind.lengthscales[j], ctx);
    }
  if (spec->free & SG_HIER_FIT_NOISE)
    {
      if (m->probit_sd)
        for (size_t p = 0; p < n_people; p++)
          fn (i++, spec->probit_sd, 1, &m->probit_sd[p], ctx);
      else
        fn (i++, spec->probit_sd, 1, &m->noise.probit_sd, ctx);
    }
  if (spec->free & SG_HIER_FIT_MEAN)
    fn (i++, spec->mean, 0, &m->mean, ctx);
  return i;
}

static void
count_coord (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  (void) i; (void) r; (void) is_log; (void) value; (void) ctx;
}

static void
pack_coord (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  double *x = ctx, v = fmin (fmax (*value, r.lower), r.upper);
  x[i] = is_log ? log (v) : v;
}

static void
unpack_coord (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  (void) r;
  const double *x = ctx;
  *value = is_log ? exp (x[i]) : x[i];
}

typedef struct {
  double *lower, *upper;
} bounds_ctx;

static void
bounds_coord (size_t i, sg_fit_range r, int is_log, double *value, void *ctx)
{
  (void) value;
  bounds_ctx *b = ctx;
  b->lower[i] = is_log ? log (r.lower) : r.lower;
  b->upper[i] = is_log ? log (r.upper) : r.upper;
}

static sg_status
hier_objective (const double *x, void *user_data, double *log_evidence, double *error)
{
  hier_fit_ctx *c = user_data;
  walk (c->spec, &c->work, c->hd->n_people, unpack_coord, (void *) x);
  /* The first call chooses the order of log Phi_m's variables, the later
   * ones keep it: a smooth objective (sg-fit.h). */
  sg_mvn_options mvn = c->mvn;
  mvn.keep_order = c->calls > 0;
  c->calls++;
  sg_skewgp_evidence ev;
  int status = sg_hier_log_evidence (&c->work, c->hd, c->w, &mvn, &ev);
  if (status != SG_OK)
    return status;
  *log_evidence = ev.log_ml;
  if (error)
    *error = ev.error;
  return SG_OK;
}

static int
spec_ok (const sg_hier_fit_spec *s, size_t d)
{
  if (s->free & ~(unsigned) SG_HIER_FIT_ALL)
    return 0;
  int ok = 1;
#define SCALE_OK(r) ((r).lower > 0 && (r).lower < (r).upper && isfinite ((r).upper))
  if (s->free & SG_HIER_FIT_POP)
    {
      ok = ok && SCALE_OK (s->variance);
      for (size_t j = 0; j < d; j++)
        ok = ok && SCALE_OK (s->lengthscale[j]);
    }
  if (s->free & SG_HIER_FIT_IND)
    {
      ok = ok && SCALE_OK (s->ind_variance);
      for (size_t j = 0; j < d; j++)
        ok = ok && SCALE_OK (s->ind_lengthscale[j]);
    }
  if (s->free & SG_HIER_FIT_NOISE)
    ok = ok && SCALE_OK (s->probit_sd);
#undef SCALE_OK
  if (s->free & SG_HIER_FIT_MEAN)
    ok = ok && s->mean.lower < s->mean.upper && isfinite (s->mean.lower)
         && isfinite (s->mean.upper);
  return ok;
}

sg_status
sg_hier_fit (const sg_hier_fit_spec *spec, sg_hier_model *model,
             const sg_hier_data *hd, const sg_fit_options *opt, gsl_rng *rng,
             const sg_progress *progress, sg_fit_result *res)
{
  sg_hier_fit_spec defaults;
  if (spec == NULL)
    {
      if (sg_hier_fit_spec_default (&defaults, 0, hd) != SG_OK)
        return SG_EINVAL;
      spec = &defaults;
    }
  if (sg_hier_model_check (model, hd) != SG_OK || res == NULL || !spec_ok (spec, hd->dim))
    return SG_EINVAL;
  size_t P = hd->n_people;
  /* the model being evaluated has kernels of its own: MODEL stays as it
   * is until the fit succeeds */
  hier_fit_ctx c = { .spec = spec, .hd = hd, .work = *model };
  memset (&c.work.pop, 0, sizeof c.work.pop);
  memset (&c.work.ind, 0, sizeof c.work.ind);
  sg_mvn_options_default (&c.mvn);
  c.mvn.deterministic = 1;
  size_t n = walk (spec, model, P, count_coord, NULL);
  double *x = malloc ((3 * n + P + 1) * sizeof *x);
  c.w = sg_mvn_workspace_new (sg_data_n_probit_rows (&hd->data) + 1);
  int status = x && c.w && sg_kernel_copy (&c.work.pop, &model->pop) == SG_OK
               && sg_kernel_copy (&c.work.ind, &model->ind) == SG_OK ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      double *sd = x + 3 * n;
      if (model->probit_sd)
        {
          memcpy (sd, model->probit_sd, P * sizeof *sd);
          c.work.probit_sd = sd;
        }
      bounds_ctx b = { x + n, x + 2 * n };
      walk (spec, &c.work, P, pack_coord, x);
      walk (spec, &c.work, P, bounds_coord, &b);
      status = sg_fit_box (n, b.lower, b.upper, hier_objective, &c, opt, rng, progress,
                           x, res);
      if (status == SG_OK)
        {
          walk (spec, &c.work, P, unpack_coord, x);
          double *caller_sd = model->probit_sd;
          if (caller_sd)
            memcpy (caller_sd, c.work.probit_sd, P * sizeof *caller_sd);
          sg_kernel_memcpy (&model->pop, &c.work.pop);
          sg_kernel_memcpy (&model->ind, &c.work.ind);
          model->mean = c.work.mean;
          model->noise = c.work.noise;
        }
    }
  sg_hier_model_clear (&c.work);
  sg_mvn_workspace_free (c.w);
  free (x);
  return status;
}
