/* sg-data.h — observations of every kind, and their affine form.
 *
 * A data set is a table of distinct inputs plus a list of observations
 * that refer to inputs by index. Every model (exact SkewGP, Laplace, EP)
 * consumes the same lowering of the observations into the two likelihood
 * blocks of paper 001 section 3 (DESIGN §3.2):
 *
 *   probit block   Phi_{m_a}(z + W f; diag(sigma^2))   (001 eq. 22)
 *                  = prod_k Phi((z_k + w_k^T f) / sigma_k)
 *   numeric block  phi_{m_r}(y - C f; diag(noise_var)) (001 eq. 12)
 *
 * where f = f(X) at the n distinct inputs. The observation kinds:
 *   numeric      N(y; f(x), numeric_sd^2)
 *   binary       Phi(label f(x) / probit_sd),            label = +-1
 *   preference   Phi((f(winner) - f(loser)) / (sqrt2 probit_sd))
 *   valid        N(y; f(x), numeric_sd^2) Phi((f(x) - h) / numeric_sd)
 *   invalid      Phi((h - f(x)) / numeric_sd)            (001 eq. 40)
 */
#pragma once

#include "sg-common.h"

typedef enum {
  SG_OBS_NUMERIC = 0,
  SG_OBS_BINARY,
  SG_OBS_PREFERENCE,
  SG_OBS_VALID,
  SG_OBS_INVALID,
} sg_obs_kind;

/* The kinds' names, as the model files of the CLI spell them: "numeric",
 * "binary", "preference", "valid", "invalid" ("?" for another value). */
const char *sg_obs_kind_name (sg_obs_kind kind);
/* The kind NAME spells; SG_EINVAL (and KIND untouched) for an unknown name. */
sg_status sg_obs_kind_parse (const char *name, sg_obs_kind *kind);

typedef struct {
  sg_obs_kind kind;
  size_t a;          /* input index (the winner for a preference)   */
  size_t b;          /* the loser's input index (preferences only)  */
  double y;          /* numeric value, or the label +-1 for binary  */
  double threshold;  /* h for valid / invalid                       */
} sg_obs;

typedef struct {
  size_t dim;
  size_t n_inputs, cap_inputs;
  double *X;              /* n_inputs x dim, row-major, distinct rows */
  size_t n_obs, cap_obs;
  sg_obs *obs;
} sg_data;

void sg_data_init (sg_data *data, size_t dim);
void sg_data_clear (sg_data *data);
/* Deep copy into DST (initialised by this call). */
sg_status sg_data_copy (sg_data *dst, const sg_data *src);
/* Index of X in the input table, appending it if no identical row exists.
 * SG_EINVAL for non-finite coordinates. */
sg_status sg_data_input_index (sg_data *data, const double *x, size_t *index);
/* Appends an observation; the x vectors are looked up / added as inputs.
 * SG_EINVAL for NaN, a label other than +-1, or winner == loser. */
sg_status sg_data_add_numeric (sg_data *data, const double *x, double y);
sg_status sg_data_add_binary (sg_data *data, const double *x, int label);
sg_status sg_data_add_preference (sg_data *data, const double *winner, const double *loser);
sg_status sg_data_add_valid (sg_data *data, const double *x, double y, double threshold);
sg_status sg_data_add_invalid (sg_data *data, const double *x, double threshold);
/* Removes the last observation (undo); inputs no longer referenced by any
 * observation are dropped too. SG_EINVAL when there is none. */
sg_status sg_data_remove_last (sg_data *data);

typedef struct {
  double numeric_sd;  /* sd of numeric (and valid) measurements */
  double probit_sd;   /* sd of the latent noise of binary / preference rows */
} sg_noise;

/* The lowered likelihood. Owns its arrays (sg_likelihood_clear). */
typedef struct {
  size_t n;              /* latent values f(X) at the distinct inputs */
  size_t m_probit;
  double *W;             /* m_probit x n */
  double *z;             /* m_probit */
  double *sigma;         /* m_probit, > 0 */
  size_t m_numeric;
  double *C;             /* m_numeric x n */
  double *y;             /* m_numeric */
  double *noise_var;     /* m_numeric, > 0 */
} sg_likelihood;

/* SG_EINVAL for non-positive or non-finite noise. */
sg_status sg_likelihood_build (const sg_data *data, const sg_noise *noise,
                               sg_likelihood *lik);
void sg_likelihood_clear (sg_likelihood *lik);
