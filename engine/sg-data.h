/* sg-data.h — observations of every kind, and their affine form.
 *
 * A data set is a table of distinct inputs plus a list of observations
 * that refer to inputs by index. Every model (exact SkewGP, Laplace, EP)
 * consumes the same lowering of the observations into the two likelihood
 * blocks of paper 001 section 3 (docs/DESIGN.md §3.2):
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
  SG_OBS_TIE,
  SG_OBS_CHOICE,
  SG_OBS_RANKING,
} sg_obs_kind;

/* How sure the person was of a preference or choice: it scales the noise
 * sd of every option of that answer (sg_noise). NONE and NORMAL are the
 * same model (scale 1). */
typedef enum {
  SG_CONFIDENCE_NONE = 0,
  SG_CONFIDENCE_WEAK,
  SG_CONFIDENCE_NORMAL,
  SG_CONFIDENCE_STRONG,
} sg_confidence;

/* A confidence can also be a rating R on a numeric scale 1 .. LEVELS
 * (1 the least sure), as a Likert-style confidence question gives it:
 * sg_confidence_rating makes its value (opaque, outside the words' values).
 * A rating scales the noise sd geometrically between the weak and the
 * strong scale, at equal steps of log(sd), since the scales multiply the
 * sd and a Likert rating is read as equally spaced:
 *   u = 2 (R - 1) / (LEVELS - 1) - 1 in [-1, 1],
 *   scale = weak_scale^(-u) for u < 0, strong_scale^u for u >= 0,
 * so rating 1 is "weak", LEVELS is "strong", the middle rating of an odd
 * scale is "normal", and a 3-level rating is the three words exactly
 * (sg_confidence_noise_scale). */
#define SG_CONFIDENCE_MAX_LEVELS 7

/* "weak", "normal", "strong", a rating's number ("1" .. "7"); "" for NONE,
 * "?" for another value. */
const char *sg_confidence_name (sg_confidence confidence);
/* The level NAME spells ("weak", "normal", "strong"); SG_EINVAL (and
 * CONFIDENCE untouched) otherwise. */
sg_status sg_confidence_parse (const char *name, sg_confidence *confidence);
/* Rating RATING of LEVELS into *CONFIDENCE; SG_EINVAL (untouched) unless
 * 2 <= LEVELS <= SG_CONFIDENCE_MAX_LEVELS and 1 <= RATING <= LEVELS. */
sg_status sg_confidence_rating (unsigned rating, unsigned levels, sg_confidence *confidence);
/* Nonzero when CONFIDENCE is a rating; then *RATING and *LEVELS (either
 * may be NULL) are set. */
int sg_confidence_rating_of (sg_confidence confidence, unsigned *rating, unsigned *levels);

/* sg_obs.shown_first when the answer does not say which option came first. */
#define SG_SHOWN_NONE ((size_t) -1)

/* The kinds' names, as the model files of the CLI spell them: "numeric",
 * "binary", "preference", "valid", "invalid", "tie", "choice", "ranking"
 * ("?" for another value). */
const char *sg_obs_kind_name (sg_obs_kind kind);
/* The kind NAME spells; SG_EINVAL (and KIND untouched) for an unknown name. */
sg_status sg_obs_kind_parse (const char *name, sg_obs_kind *kind);

typedef struct {
  sg_obs_kind kind;
  size_t a;          /* input index (the winner for a preference, the
                        first point of a tie, the chosen option, the best
                        of a ranking)                                   */
  size_t b;          /* the loser's input index (preferences), the second
                        point of a tie                                  */
  double y;          /* numeric value, or the label +-1 for binary  */
  double threshold;  /* h for valid / invalid                       */
  /* choice: the options [chosen, others...]; ranking: the order, best
   * first. They are data->options[first .. first + count). */
  size_t first, count;
  sg_confidence confidence;  /* preference and choice                   */
  int tie_offered;     /* preference: "about the same" was an answer    */
  size_t shown_first;  /* SG_SHOWN_NONE, or which option was shown first:
                          preference 0 = winner, 1 = loser; choice 0 = the
                          chosen one, j >= 1 = the j-th other option     */
} sg_obs;

typedef struct {
  size_t dim;
  size_t n_inputs, cap_inputs;
  double *X;              /* n_inputs x dim, row-major, distinct rows */
  size_t n_obs, cap_obs;
  sg_obs *obs;
  size_t n_options, cap_options;
  size_t *options;        /* input indices of the choices and rankings */
} sg_data;

void sg_data_init (sg_data *data, size_t dim);
void sg_data_clear (sg_data *data);
/* Deep copy into DST (initialised by this call). */
sg_status sg_data_copy (sg_data *dst, const sg_data *src);
/* The observations FIRST .. of SRC, in order, with only the inputs they
 * use, into OUT (initialised by this call). SG_EINVAL for FIRST > n_obs. */
sg_status sg_data_tail (const sg_data *src, size_t first, sg_data *out);
/* Index of X in the input table, appending it if no identical row exists.
 * SG_EINVAL for non-finite coordinates. */
sg_status sg_data_input_index (sg_data *data, const double *x, size_t *index);
/* Appends an observation; the x vectors are looked up / added as inputs.
 * SG_EINVAL for NaN, a label other than +-1, or winner == loser. */
sg_status sg_data_add_numeric (sg_data *data, const double *x, double y);
sg_status sg_data_add_binary (sg_data *data, const double *x, int label);
sg_status sg_data_add_preference (sg_data *data, const double *winner, const double *loser);
/* A preference with a confidence, the option shown first (SG_SHOWN_NONE,
 * 0 = winner or 1 = loser) and whether a tie was a possible answer
 * (TIE_OFFERED nonzero: the win is by more than the tie margin). SG_EINVAL
 * as above, or for an unknown confidence or shown_first. */
sg_status sg_data_add_duel (sg_data *data, const double *winner, const double *loser,
                            sg_confidence confidence, size_t shown_first,
                            int tie_offered);
/* "A and B are about the same". SG_EINVAL for a == b or NaN. */
sg_status sg_data_add_tie (sg_data *data, const double *a, const double *b);
/* CHOSEN was preferred to each of the N_OTHERS points OTHERS (n_others x
 * dim, row-major). SG_EINVAL for n_others == 0, two equal options, NaN,
 * an unknown confidence, or shown_first not SG_SHOWN_NONE and > n_others. */
sg_status sg_data_add_choice (sg_data *data, const double *chosen,
                              const double *others, size_t n_others,
                              sg_confidence confidence, size_t shown_first);
/* The K points ORDER (k x dim, best first) were ranked in that order.
 * SG_EINVAL for k < 2, two equal options or NaN. */
sg_status sg_data_add_ranking (sg_data *data, const double *order, size_t k);
/* The number of probit rows the lowering makes (m_probit), e.g. to size
 * an sg_mvn workspace (s + this). */
size_t sg_data_n_probit_rows (const sg_data *data);
/* The probit rows and numeric rows one observation lowers to (the
 * lowering keeps observation order within each block of rows). */
size_t sg_obs_n_probit_rows (const sg_obs *o);
size_t sg_obs_n_numeric_rows (const sg_obs *o);
sg_status sg_data_add_valid (sg_data *data, const double *x, double y, double threshold);
sg_status sg_data_add_invalid (sg_data *data, const double *x, double threshold);
/* Removes the last observation (undo); inputs no longer referenced by any
 * observation are dropped too. SG_EINVAL when there is none. */
sg_status sg_data_remove_last (sg_data *data);

/* The noise hyperparameters. Fields after probit_sd are read only when
 * the data use them, so a data set of the classic kinds needs only the
 * first two. */
typedef struct {
  double numeric_sd;   /* sd of numeric (and valid) measurements           */
  double probit_sd;    /* sd s of the utility noise of one option shown (and
                          of binary rows)                                  */
  double tie_margin;   /* delta: |u(a) - u(b)| < delta is a tie (> 0 when
                          the data hold ties; default 0.5)                 */
  double side_bias;    /* beta, added to the utility of the option shown
                          first (finite; default 0)                        */
  double weak_scale;   /* noise sd factor of a "weak" answer (default 2)   */
  double strong_scale; /* of a "strong" answer (default 0.5); "normal" is
                          the reference level, factor 1                    */
} sg_noise;

/* numeric_sd = probit_sd = 1 and the defaults above. */
void sg_noise_default (sg_noise *noise);
/* The factor CONFIDENCE multiplies the noise sd of an answer's options by
 * under NOISE: 1 for none and "normal", weak_scale, strong_scale, or a
 * rating's interpolation (above). NaN for a value that is no confidence. */
double sg_confidence_noise_scale (sg_confidence confidence, const sg_noise *noise);

/* The lowered likelihood. Owns its arrays (sg_likelihood_clear). */
typedef struct {
  size_t n;              /* latent values f(X) at the distinct inputs */
  size_t m_probit;
  double *W;             /* m_probit x n */
  double *z;             /* m_probit */
  double *sigma;         /* m_probit, > 0: sd of each row's noise
                            (sqrt of the diagonal of Sigma)             */
  double *upper;         /* m_probit: the event is 0 < t_k < upper_k with
                            t = z + W f + e (+inf except for ties);
                            NULL means all +inf                          */
  /* Sigma = Cov(e), block diagonal: block j covers the rows
   * [block_start[j], block_start[j + 1]) and its k x k entries are
   * block_cov[cov_start[j] ...] (row-major). NULL block_start (and
   * n_blocks = 0) means Sigma = diag(sigma^2). */
  size_t n_blocks;
  size_t *block_start;   /* n_blocks + 1 */
  size_t *cov_start;     /* n_blocks + 1 */
  double *block_cov;
  size_t m_numeric;
  double *C;             /* m_numeric x n */
  double *y;             /* m_numeric */
  double *noise_var;     /* m_numeric, > 0 */
  /* The sparse form (sg_likelihood_build_sparse; W and C are NULL then):
   * every probit row of the kinds above has at most two nonzero
   * coefficients, so row k of W f is
   *   w_value[2k] f(X_{w_index[2k]}) + w_value[2k+1] f(X_{w_index[2k+1]})
   * (the second value 0 for a one-input row), and numeric row r observes
   * f(X_{c_index[r]}). Memory O(m) instead of O(m n): what a session of
   * thousands of answers needs (sg-svgp-rows.h). NULL in the dense form. */
  size_t *w_index;       /* 2 m_probit */
  double *w_value;       /* 2 m_probit */
  size_t *c_index;       /* m_numeric */
} sg_likelihood;

/* 1 when Sigma is diagonal (every block has one row). */
int sg_likelihood_independent (const sg_likelihood *lik);
/* 1 when some row has a finite upper bound (a tie). */
int sg_likelihood_has_intervals (const sg_likelihood *lik);
/* Adds Sigma to the m_probit x m_probit block of S (leading dimension LD)
 * that starts at row and column OFFSET. */
void sg_likelihood_add_noise_cov (const sg_likelihood *lik, double *S, size_t ld,
                                  size_t offset);

/* SG_EINVAL for non-positive or non-finite noise, or a non-positive
 * tie_margin / confidence scale or non-finite side_bias that the data
 * use. */
sg_status sg_likelihood_build (const sg_data *data, const sg_noise *noise,
                               sg_likelihood *lik);
/* The same rows in the sparse form (W and C NULL; see above). */
sg_status sg_likelihood_build_sparse (const sg_data *data, const sg_noise *noise,
                                      sg_likelihood *lik);
void sg_likelihood_clear (sg_likelihood *lik);
