/* sg-fit.h — hyperparameter fitting by maximising a log evidence.
 *
 * Type-II maximum likelihood (001 sec. 4, "Hyperparameters selection";
 * Rasmussen & Williams 2006 sec. 5.4): choose the kernel lengthscales and
 * variance, the noise scales, the constant mean and, for a SkewGP prior,
 * the skewness parameters gamma and the pseudo-point locations U, to
 * maximise log p(data | theta).
 *
 * The machinery is generic. An evidence function (sg_evidence_fn) maps a
 * set of hyperparameters (sg_hyper) to a log evidence; the exact SkewGP
 * evidence (001 Corollaries 1-3, sg_skewgp_log_evidence), the Laplace and
 * the EP approximations all plug in the same way (sg_evidence_eval). A
 * parameter spec (sg_fit_spec) says which hyperparameters are free and
 * within which box; it maps the free subset to and from an unconstrained
 * vector in which scales are logs (lengthscales, variance, noise sds) and
 * locations are linear (mean, gamma, pseudo-points).
 *
 * The optimiser is a derivative-free local method of NLopt (BOBYQA by
 * default; Powell 2009) run from several starts: the first from the
 * current values, the others from a Latin hypercube in the box. For the
 * exact SkewGP evidence the objective is an estimate of log Phi_m (sg_mvn);
 * with sg_mvn_options.deterministic = 1 the same QMC point set is used on
 * every call (common random numbers), so the optimiser sees a deterministic
 * function of theta (docs/DESIGN.md §3.4). Deterministic is not yet smooth: sg_mvn
 * re-orders the variables for every problem, and a change of order moves
 * the estimate by about its QMC error (jumps of 0.01-0.2 in log evidence
 * at 1000-16000 points on 50-100 duels, tests/bench/results-fit.md), which
 * leaves BOBYQA up to ~0.1 nats short of the maximum and biases its best
 * value upwards. So the SkewGP adapter also keeps the variable order that
 * sg_mvn chose at the first evaluation (sg_mvn_options.keep_order; this
 * needs a workspace in the context): the objective is then smooth.
 * Either way, re-evaluate the fitted hyperparameters with a fresh, larger
 * point set before reporting the evidence (as `skewgp fit` does). The
 * evaluation and time budgets are shared by all starts; the progress
 * callback (an argument of sg_fit) is polled at every evaluation and can
 * cancel the fit.
 *
 * Threading: nothing global; randomness only from the gsl_rng the caller
 * passes (for the starts) and from the seed in the mvn options.
 */
#pragma once

#include "sg-common.h"
#include "sg-data.h"
#include "sg-ep.h"
#include "sg-gaussian-post.h"
#include "sg-kernel.h"
#include "sg-laplace.h"
#include "sg-mvn.h"
#include "sg-skewgp.h"

#include <gsl/gsl_rng.h>

/* ---- Hyperparameters -------------------------------------------------- */

/* The hyperparameters of a SkewGP prior (s >= 0) with the noise of the
 * lowered likelihood; with s = 0 also those of a GP for Laplace / EP.
 * The arrays are the caller's (s x kernel.dim, s, s entries); sg_fit
 * writes the fitted values into them. */
typedef struct {
  sg_kernel kernel;
  double mean;             /* constant prior mean xi                     */
  sg_noise noise;          /* numeric_sd, probit_sd (sg-data.h)          */
  size_t s;                /* pseudo-points; 0 = GP prior                */
  double *pseudo_points;   /* s x kernel.dim, row-major (U)              */
  double *phases;          /* s entries +-1 (fixed, never fitted)        */
  double *gamma;           /* s entries                                  */
} sg_hyper;

/* The SkewGP prior view of H (borrowing H's arrays). */
void sg_hyper_skewgp_prior (const sg_hyper *h, sg_skewgp_prior *prior);
/* The Laplace / EP model view of H with the given link. */
void sg_hyper_approx_model (const sg_hyper *h, sg_link link,
                            sg_approx_model *model);

/* ---- Which hyperparameters are free, and where ------------------------ */

enum {
  SG_FIT_LENGTHSCALES  = 1u << 0,   /* all kernel.dim lengthscales (log)   */
  SG_FIT_VARIANCE      = 1u << 1,   /* kernel variance (log)               */
  SG_FIT_NUMERIC_SD    = 1u << 2,   /* sd of numeric observations (log)    */
  SG_FIT_PROBIT_SD     = 1u << 3,   /* sd of binary / preference rows (log)*/
  SG_FIT_MEAN          = 1u << 4,   /* constant mean (linear)              */
  SG_FIT_GAMMA         = 1u << 5,   /* SkewGP gamma, s entries (linear)    */
  SG_FIT_PSEUDO_POINTS = 1u << 6,   /* SkewGP U, s x dim entries (linear)  */
  SG_FIT_TIE_MARGIN    = 1u << 7,   /* noise.tie_margin of ties (log)      */
  SG_FIT_SIDE_BIAS     = 1u << 8,   /* noise.side_bias (linear)            */
  SG_FIT_CONFIDENCE    = 1u << 9,   /* noise.weak_scale, noise.strong_scale
                                       (log; "normal" is the fixed unit)   */
  SG_FIT_ALL           = 0x3ff,
};

/* An interval [lower, upper] in natural units (not logs). */
typedef struct {
  double lower, upper;
} sg_fit_range;

/* FREE is a mask of SG_FIT_*; the ranges are the box of each free group
 * (lower < upper, and 0 < lower for scales; to fix a group leave it out
 * of FREE). Ranges of fixed groups are ignored. Pseudo-points are boxed
 * coordinate-wise. The per-coordinate boxes (DIM entries each) live in
 * storage the spec owns (sg_fit_spec_default; sg_fit_spec_clear). */
typedef struct {
  unsigned free;
  size_t dim;
  sg_fit_range *lengthscale;
  sg_fit_range variance;
  sg_fit_range numeric_sd;
  sg_fit_range probit_sd;
  sg_fit_range mean;
  sg_fit_range gamma;
  sg_fit_range *pseudo_point;
  sg_fit_range tie_margin;
  sg_fit_range side_bias;
  sg_fit_range weak_scale;
  sg_fit_range strong_scale;
} sg_fit_spec;

/* Default box for the groups in FREE, scaled to DATA (which may be NULL
 * or empty: unit scales are used then). With r_j the range of the inputs
 * in coordinate j (1 if zero) and sy the sd of the numeric values (1 if
 * fewer than two):
 *   lengthscale_j  [0.01 r_j, 10 r_j]       variance    [1e-2, 1e3] sy^2
 *   numeric_sd     [1e-3, 10] sy            probit_sd   [1e-2, 1e2]
 *   mean           mean(y) -+ 3 sy          gamma       [-3, 3]
 *   pseudo_point_j [min_j, max_j] of the inputs (0 +- 1 if no data)
 *   tie_margin     [1e-3, 10]               side_bias   [-3, 3]
 *   weak_scale     [1, 10]                  strong_scale [0.1, 1]
 * (the confidence boxes keep "weak" at least as noisy as "normal" and
 * "strong" at most). SPEC (overwritten, not released) gets storage for
 * DIM coordinates. Returns SG_EINVAL for a bad mask, DIM = 0 or a data
 * dimension other than DIM, SG_ENOMEM. */
sg_status sg_fit_spec_default (sg_fit_spec *spec, unsigned free, size_t dim,
                               const sg_data *data);
/* Releases SPEC's storage (NULL or zeroed: nothing). */
void sg_fit_spec_clear (sg_fit_spec *spec);

/* SG_OK if SPEC fits H: its dim is H's kernel's, ranges ordered and finite, scale ranges positive,
 * gamma / pseudo-points free only when H->s > 0. */
sg_status sg_fit_spec_check (const sg_fit_spec *spec, const sg_hyper *h);

/* Number of free coordinates: dim (lengthscales) + 1 (variance) + 1 + 1
 * + 1 + s (gamma) + s dim (pseudo-points) + 1 (tie margin) + 1 (side
 * bias) + 2 (weak, strong scales), for the groups that are free, in that
 * order. */
size_t sg_fit_spec_n_free (const sg_fit_spec *spec, const sg_hyper *h);

/* H -> free vector X (n_free entries, logs for scales). Values outside
 * the box are clamped into it. */
void sg_fit_spec_pack (const sg_fit_spec *spec, const sg_hyper *h, double *x);
/* Free vector X -> H (only the free groups are written). */
void sg_fit_spec_unpack (const sg_fit_spec *spec, const double *x, sg_hyper *h);
/* The box in the coordinates of X. */
void sg_fit_spec_bounds (const sg_fit_spec *spec, const sg_hyper *h,
                         double *lower, double *upper);

/* ---- Evidence functions ----------------------------------------------- */

/* Computes the log evidence at H into *LOG_EVIDENCE and, when ERROR is
 * non-NULL, an error estimate (0 for closed forms). Returns SG_OK or a
 * status; the fitter treats SG_ENOTPD, SG_ENUMERIC and SG_EINFEASIBLE as
 * "this point is infeasible" and any other failure as fatal. */
typedef sg_status (*sg_evidence_fn) (const sg_hyper *h, void *user_data,
                                     double *log_evidence, double *error);

typedef enum {
  SG_FIT_METHOD_SKEWGP = 0,  /* exact, 001 Corollaries 1-3 (log Phi_m by sg_mvn) */
  SG_FIT_METHOD_LAPLACE,     /* Laplace approximation of the evidence        */
  SG_FIT_METHOD_EP,          /* EP approximation of the evidence             */
} sg_fit_method;

/* The built-in evidence of a data set (user data of sg_evidence_eval). */
typedef struct {
  sg_fit_method method;
  const sg_data *data;
  /* SkewGP: a workspace of dimension >= s + m_probit (NULL: one per
   * call, and then no order is kept) and the mvn options; for fitting
   * mvn.deterministic = 1 and mvn.keep_order = 1 (the defaults here): the
   * first evaluation through this context chooses the variable order of
   * log Phi_m, the later ones keep it (a smooth objective). */
  sg_mvn_workspace *workspace;
  sg_mvn_options mvn;
  size_t calls;            /* SkewGP evaluations so far through this context */
  /* Laplace / EP (GP prior only, h->s must be 0): the link of the
   * probit-block rows (EP: probit only), the options (defaults from
   * sg_evidence_ctx_init), and optional warm starts owned by the caller (NULL: cold start at every call). A warm
   * start changes the evidence only within the method's tolerance. */
  sg_link link;
  sg_laplace_options laplace;
  sg_ep_options ep;
  sg_laplace_warm *laplace_warm;
  sg_ep_warm *ep_warm;
} sg_evidence_ctx;

/* Sets METHOD and DATA, mvn defaults with deterministic = 1 and
 * keep_order = 1, probit link, default Laplace / EP options, no warm
 * starts, calls = 0. */
void sg_evidence_ctx_init (sg_evidence_ctx *ctx, sg_fit_method method,
                           const sg_data *data);
/* An sg_evidence_fn; USER_DATA is an sg_evidence_ctx. */
sg_status sg_evidence_eval (const sg_hyper *h, void *user_data,
                            double *log_evidence, double *error);

/* ---- The fitter ------------------------------------------------------- */

typedef enum {
  SG_FIT_BOBYQA = 0,   /* NLopt LN_BOBYQA: quadratic models (default)      */
  SG_FIT_SBPLX,        /* NLopt LN_SBPLX: Subplex, robust to kinks         */
  SG_FIT_NELDERMEAD,   /* NLopt LN_NELDERMEAD                              */
} sg_fit_algorithm;

typedef struct {
  size_t n_starts;         /* local runs (default 4; the first starts from H) */
  size_t max_evals;        /* total evaluations over all runs (default 400)   */
  double max_seconds;      /* wall-clock budget (0 = none)                    */
  double xtol_abs;         /* stop a run when steps are below this, in log /
                              linear units (default 1e-3)                     */
  double ftol_abs;         /* ... or the log evidence changes less (1e-4)     */
  sg_fit_algorithm algorithm;
} sg_fit_options;

void sg_fit_options_default (sg_fit_options *opt);

typedef enum {
  SG_FIT_CONVERGED = 0,    /* every run met its tolerance                     */
  SG_FIT_MAX_EVALS,        /* the evaluation budget ended the search          */
  SG_FIT_MAX_SECONDS,      /* the time budget ended the search                */
} sg_fit_stop;

typedef struct {
  double log_evidence;        /* best value found (as the objective saw it)    */
  double error;               /* the evidence function's error at the best     */
  double start_log_evidence;  /* at the initial values (-inf if infeasible)    */
  size_t n_evals;             /* evidence evaluations, all runs                */
  size_t n_failed;            /* evaluations that were infeasible              */
  size_t n_starts;            /* local runs started                            */
  size_t best_start;          /* index of the run that found the best          */
  sg_fit_stop stop;
  double seconds;             /* wall-clock time of the fit                    */
} sg_fit_result;

/* The optimiser of sg_fit on a plain box, for models whose parameters are
 * not an sg_hyper (the hierarchical model of sg-hier.h): maximises the log
 * evidence OBJECTIVE (X) over the N coordinates LOWER <= X <= UPPER, the
 * first run from X (clamped into the box), the others from a Latin
 * hypercube; X receives the best point. OBJECTIVE's statuses mean what
 * they mean for an sg_evidence_fn (infeasible points, fatal failures);
 * budgets, cancellation and RES as for sg_fit. SG_EINVAL for an empty or
 * non-finite box or bad options; X and RES untouched on failure. */
typedef sg_status (*sg_fit_objective_fn) (const double *x, void *user_data,
                                          double *log_evidence, double *error);
sg_status sg_fit_box (size_t n, const double *lower, const double *upper,
                      sg_fit_objective_fn objective, void *user_data,
                      const sg_fit_options *opt, gsl_rng *rng,
                      const sg_progress *progress, double *x, sg_fit_result *res);

/* Maximises EVIDENCE over the free hyperparameters of SPEC. H holds the
 * start values and the fixed ones; on success the best hyperparameters
 * found are written into H (the fixed ones unchanged) and RES is filled.
 * RNG draws the Latin-hypercube starts (may be NULL when n_starts == 1).
 * OPT NULL = defaults; PROGRESS (may be NULL) is polled at every
 * evaluation. Returns SG_OK, SG_EINVAL (bad spec / options),
 * SG_ENOMEM, SG_ECANCELLED (progress asked to stop), SG_ENUMERIC (no
 * feasible point was found) or the first fatal status of EVIDENCE; on
 * failure H and RES are untouched. A budget that ends the search is not
 * a failure (RES->stop says so). With no free coordinate the evidence is
 * evaluated once at H. */
sg_status sg_fit (const sg_fit_spec *spec, sg_evidence_fn evidence,
                  void *user_data, const sg_fit_options *opt, gsl_rng *rng,
                  const sg_progress *progress, sg_hyper *h,
                  sg_fit_result *res);
