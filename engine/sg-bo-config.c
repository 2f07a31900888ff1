/* sg-bo-config.c — the BO loop's configuration (sg-bo.h): defaults,
 * checks, the box's geometry (coordinate kinds, snapping, candidate sets)
 * and the names of its enums. The loop itself is sg-bo.c, which lists
 * its other files. */
#include "sg-bo-private.h"

#include <math.h>
#include <string.h>

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
  if (sg_kernel_init (&c->prior.kernel, SG_KERNEL_RBF, dim, 1.0, 1.0) != SG_OK)
    return SG_ENOMEM;
  for (size_t j = 0; j < dim; j++)
    c->prior.kernel.lengthscales[j] = 0.2 * (upper[j] - lower[j]);
  c->prior.mean = 0;
  sg_noise_default (&c->prior.noise);
  c->prior.noise.numeric_sd = 0.1;
  c->prior.noise.probit_sd = M_SQRT1_2;
  c->ucb_level = 0.95;
  c->eiig_k = 0.1;
  c->threshold = 0;
  c->safe_rule = SG_BO_SAFE_SAFEOPT;
  c->safe_probability = 0.95;
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
  c->refit_variance_max = 60.0;
  c->n_samples = 1000;
  sg_skewgp_sample_options_default (&c->sampling);
  sg_acq_max_options_default (&c->search);
  c->seed = 0;
  return SG_OK;
}

/* Coordinate J takes whole numbers only. */
int
_sg_bo_is_discrete (const sg_bo_config *c, size_t j)
{
  return c->kind[j] == SG_DIM_INTEGER || c->kind[j] == SG_DIM_CATEGORICAL;
}

/* X inside the box, and whole in the integer and categorical coordinates. */
int
_sg_bo_inside_box (const sg_bo_config *c, const double *x)
{
  for (size_t j = 0; j < c->dim; j++)
    if (!isfinite (x[j]) || x[j] < c->lower[j] || x[j] > c->upper[j]
        || (_sg_bo_is_discrete (c, j) && x[j] != round (x[j])))
      return 0;
  return 1;
}

/* X (inside the box) moved onto a setting the experiment can take:
 * integer and categorical coordinates rounded, periodic ones wrapped into
 * [lower, upper) (upper is the same setting as lower). With a candidate
 * set every proposal is a row, taken as it is (rows are whole where the
 * kinds ask it, candidates_ok), so nothing moves. */
void
_sg_bo_snap_point (const sg_bo_config *c, double *x)
{
  if (c->n_candidates > 0)
    return;
  for (size_t j = 0; j < c->dim; j++)
    {
      double lo = c->lower[j], hi = c->upper[j];
      if (_sg_bo_is_discrete (c, j))
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
int
_sg_bo_same_setting (const sg_bo_config *c, const double *x, const double *y)
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
    if (!_sg_bo_inside_box (c, c->candidates + i * c->dim))
      return 0;
  size_t unused;
  return !c->has_safe_start
         || sg_bo_candidate_index (c->candidates, c->n_candidates, c->dim, c->lower, c->upper,
                                   c->safe_start, &unused) == SG_OK;
}

/* No two rows of the candidate set are the same setting. */
int
_sg_bo_candidates_distinct (const sg_bo_config *c)
{
  size_t unused;
  for (size_t i = 1; i < c->n_candidates; i++)
    if (sg_bo_candidate_index (c->candidates, i, c->dim, c->lower, c->upper,
                               c->candidates + i * c->dim, &unused) == SG_OK)
      return 0;
  return 1;
}

/* Some coordinate is not linear: proposals need _sg_bo_snap_point. */
int
_sg_bo_has_kinds (const sg_bo_config *c)
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
      if (!_sg_bo_is_discrete (c, j))
        return SIZE_MAX;
      n *= c->upper[j] - c->lower[j] + 1;
    }
  return n < 1e9 ? (size_t) n : SIZE_MAX;
}

/* The kinds and periods of C's coordinates into kernel K. */
void
_sg_bo_apply_kinds (const sg_bo_config *c, sg_kernel *k)
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
      if (_sg_bo_is_discrete (c, j)
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

void
sg_bo_config_clear (sg_bo_config *config)
{
  if (config)
    sg_kernel_clear (&config->prior.kernel);
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
      || !isfinite (c->threshold) || (unsigned) c->safe_rule > SG_BO_SAFE_PENALTY
      || !(c->safe_rule == SG_BO_SAFE_PENALTY
             ? c->safe_probability >= 0 && c->safe_probability <= 1
             : c->safe_probability >= 0.5 && c->safe_probability < 1)
      || !(c->safe_penalty >= 0) || !isfinite (c->safe_penalty) || c->mixed_every == 0
      || !(c->mixed_confidence > 0.5 && c->mixed_confidence <= 1) || c->n_samples < 2
      || c->search.n_candidates == 0 || !(c->refit_lengthscale_min > 0)
      || !(c->refit_lengthscale_max > c->refit_lengthscale_min)
      || !isfinite (c->refit_lengthscale_max)
      || !(c->refit_variance_max > 0) || !isfinite (c->refit_variance_max))
    return SG_EINVAL;
  if (c->has_safe_start && !_sg_bo_inside_box (c, c->safe_start))
    return SG_EINVAL;
  return candidates_ok (c) ? SG_OK : SG_EINVAL;
}

/* ---- Names --------------------------------------------------------------------- */

static const char *const mode_names[] = { "preference", "mixed", "safe", "active" };
static const char *const acq_names[] = { "ucb", "eiig", "epi", "thompson", "qeubo",
                                         "hb-ei", "hb-ucb", "dts", "muc" };
_Static_assert (sizeof acq_names / sizeof acq_names[0] == SG_BO_ACQ_LAST + 1,
                "one name per acquisition");
static const char *const question_names[] = { "duel", "choice" };
static const char *const safe_rule_names[] = { "safeopt", "penalty" };
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

sg_bo_acquisition
sg_bo_default_acquisition (sg_bo_mode mode, sg_bo_question question, sg_bo_surrogate surrogate,
                           size_t dim)
{
  /* choices are asked by qEUBO alone (and in preference mode only,
   * which sg_bo_config_check enforces with the mode named) */
  if (question == SG_BO_QUESTION_CHOICE)
    return SG_BO_ACQ_QEUBO;
  if (mode != SG_BO_PREFERENCE || surrogate != SG_BO_SURROGATE_SKEWGP
      || dim > SG_BO_HB_DEFAULT_MAX_DIM)
    return SG_BO_ACQ_UCB;
  return SG_BO_ACQ_HB_UCB;
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

const char *
sg_bo_safe_rule_name (sg_bo_safe_rule r)
{
  return sg_name_of (safe_rule_names, N_NAMES (safe_rule_names), (size_t) r);
}

sg_status
sg_bo_safe_rule_parse (const char *name, sg_bo_safe_rule *rule)
{
  PARSE_NAME (safe_rule_names, name, rule, sg_bo_safe_rule);
}

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
