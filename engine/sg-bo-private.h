/* sg-bo-private.h — the loop's state, shared by the sg-bo*.c files only
 * (not installed, not for callers):
 *   sg-bo-config.c       configuration, its checks, box geometry, names
 *   sg-bo-initial.c      random questions and the initial design
 *   sg-bo-two-gp.c       the two-GP (SafeOpt-style) safe surrogate
 *   sg-bo-safe.c         safe mode's SafeOpt rule and its hyperparameters
 *   sg-bo-acquisition.c  the acquisition search on joint posterior samples
 *   sg-bo.c              the loop: answers, the model, proposals, refits
 */
#pragma once

#include "sg-bo.h"

#include "sg-ep.h"
#include "sg-laplace.h"
#include "sg-svgp.h"

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
                            into cand_buf; its kernel is the loop's own   */
  double *prior_buf;
  double *cand_buf;      /* the candidate set (NULL: the whole box)        */
  sg_hyper hyper;        /* current hyperparameters; arrays in hyper_buf,
                            a kernel of the loop's own                     */
  double *hyper_buf;
  /* The hyperparameters the model of the last proposal used: HYPER, but
   * for safe mode's SafeOpt rule with its mean, variance floor and
   * lengthscale caps (sg-bo-safe.c); a kernel of its own, the latent
   * part's arrays borrowed from HYPER. */
  sg_hyper model_hyper;
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
  /* The two-GP surrogate of the last proposal (sg-bo-two-gp.c). */
  int has_two_gp;        /* cls_post (and reg_post when has_reg) are set   */
  int has_reg;           /* 0: no valid value yet; the regression is the prior */
  sg_gauss_post cls_post, reg_post;
  sg_ep_warm cls_warm;
  int has_svgp;          /* the SVGP surrogate of the last proposal        */
  sg_svgp svgp;
  int has_summary;       /* a long session's sparse summary (sg_bo_set_summary) */
  sg_svgp_pseudo summary;
  size_t summary_seen;   /* the answers it stands for                     */
  /* Safe mode's SafeOpt rule (sg-bo-safe.c): its last proposal and the
   * common random numbers of its intervals, and the last refit's choice. */
  sg_bo_safe_info safe_info;
  unsigned long safe_crn_seed;
  size_t safe_n_obs;             /* the observations it saw                */
  double safe_widest_maximiser;  /* the width the expanders had to beat   */
  sg_bo_safe_fit safe_fit;
};


/* ---- Configuration and box geometry (sg-bo-config.c) ---------------------- */

/* Coordinate J takes whole numbers only. */
int _sg_bo_is_discrete (const sg_bo_config *c, size_t j);
/* X inside the box, and whole in the integer and categorical coordinates. */
int _sg_bo_inside_box (const sg_bo_config *c, const double *x);
/* X moved onto a setting the experiment can take (kinds, candidate set). */
void _sg_bo_snap_point (const sg_bo_config *c, double *x);
/* X and Y are one setting (a periodic coordinate's ends being one). */
int _sg_bo_same_setting (const sg_bo_config *c, const double *x, const double *y);
/* No two rows of the candidate set are the same setting. */
int _sg_bo_candidates_distinct (const sg_bo_config *c);
/* Some coordinate is not linear: proposals need _sg_bo_snap_point. */
int _sg_bo_has_kinds (const sg_bo_config *c);
/* The kinds and periods of C's coordinates into kernel K. */
void _sg_bo_apply_kinds (const sg_bo_config *c, sg_kernel *k);

/* ---- Random questions and the initial design (sg-bo-initial.c) ------------ */

/* A uniform random setting of the box. */
void _sg_bo_random_point (const sg_bo_config *c, gsl_rng *rng, double *x);
/* A random setting for a question whose other options are the N_AVOID
 * rows AVOID (a candidate not asked yet, with a candidate set). */
void _sg_bo_random_setting (const sg_bo *bo, gsl_rng *rng, const double *avoid, size_t n_avoid,
                            double *x);
/* Q empty: no options, NaN probabilities and acquisition. */
void _sg_bo_query_reset (sg_bo_query *q);
/* Q's options, x and x_ref from its first N_OPTIONS rows OPTS. */
void _sg_bo_set_options (const sg_bo_config *c, sg_bo_query *q, const double *opts,
                         size_t n_options);
/* Mixed schedule: this BO iteration asks for a value. */
int _sg_bo_schedule_wants_value (const sg_bo *bo);
/* Fills Q and returns 1 when the query needs no model. */
int _sg_bo_initial_query (const sg_bo *bo, gsl_rng *rng, sg_bo_query *q);

/* ---- The acquisition search (sg-bo-acquisition.c) ------------------------- */

/* The next question from the model of BO's answers (built), into Q; the
 * acquisition maximised is recorded for sg_bo_acquisition_at. */
int _sg_bo_model_query (sg_bo *bo, gsl_rng *rng, const sg_progress *progress, sg_bo_query *q);

/* ---- The two-GP surrogate (sg-bo-two-gp.c) -------------------------------- */

/* REG: the valid values as numeric observations; CLS: every safe answer
 * as a binary label. Both initialised by the call. */
int _sg_bo_two_gp_split (const sg_data *data, sg_data *reg, sg_data *cls);
/* The classifier and regression of BO's answers. */
int _sg_bo_two_gp_build (sg_bo *bo, const sg_progress *progress);
/* F[0..n): regression samples at X; F[n..2n): the classifier's latent. */
int _sg_bo_two_gp_samples (const sg_bo *bo, const double *x, size_t n, const double *Z,
                           double *F);
/* The safe-UCB value of the samples F (2n) of the two models. */
double _sg_bo_two_gp_safe_ucb (const sg_bo *bo, const double *F, size_t n, double *scratch);

/* ---- Safe mode's SafeOpt rule (sg-bo-safe.c) ------------------------------ */

/* The rule applies: safe mode with the SafeOpt rule, a model surrogate. */
int _sg_bo_safe_rule_on (const sg_bo *bo);
/* The largest lengthscale the model may use along J, and the smallest
 * variance (sg-bo.h, "Safe mode"). */
double _sg_bo_safe_lengthscale_cap (const sg_bo *bo, size_t j);
double _sg_bo_safe_variance_floor (const sg_bo *bo);
/* H (a copy of the current hyperparameters) made the model's; INFO's
 * hyperparameter fields say what changed. */
void _sg_bo_safe_model_hyper (const sg_bo *bo, sg_hyper *h, sg_bo_safe_info *info);
/* A safe-mode refit: the mean fixed at h, the variance and lengthscale
 * bounds into SPEC, H moved inside them. */
void _sg_bo_safe_fit_spec (const sg_bo *bo, sg_fit_spec *spec, sg_hyper *h);
/* After the fit H (log evidence BEST): each lengthscale longer than its
 * default moved to the conservative end of its profile-likelihood
 * interval; bo->safe_fit records the choice. */
int _sg_bo_safe_profile (sg_bo *bo, sg_evidence_fn eval, void *ctx, double best,
                         const sg_progress *progress, sg_hyper *h);
/* The next setting by the rule into Q (the model built). */
int _sg_bo_safe_query (sg_bo *bo, gsl_rng *rng, const sg_progress *progress, sg_bo_query *q);
/* P(safe) (OUT) and the rule's acquisition (ACQ, may be NULL: the
 * interval's width at maximisers and at expanders wider than every
 * maximiser, -inf elsewhere) of the last proposal's model at N points. */
int _sg_bo_safe_eval (const sg_bo *bo, const double *X, size_t n, double *p_safe, double *acq);
