/* sg-bo.h — the Bayesian-optimisation loops as a state machine
 * (docs/DESIGN.md §2, §3.8, §3.10; paper 001 section 5.2).
 *
 * One sg_bo holds an experiment's configuration, its answers so far and
 * the surrogate model of the last proposal. A GUI (or the CLI, or a test)
 * drives it one answer at a time:
 *
 *     sg_bo_new (config)                      once per job (cheap)
 *     sg_bo_answer_duel / _value / _invalid   replay the session's log
 *     [sg_bo_refit]                           when sg_bo_refit_due says so
 *     sg_bo_propose (bo, rng, progress, &q)   the heavy, cancellable step
 *     ... show q, wait for the person ...
 *     sg_bo_answer_*  or  sg_bo_undo
 *
 * The three loops (001 sec. 5.2):
 *   preference  every query is a duel "x or x_r?" with x_r the current
 *               best; the winner becomes x_r (001 sec. 5.2.1).
 *   mixed       as preference, but some iterations ask for the value
 *               g(x) instead: every MIXED_EVERY-th iteration after the
 *               initial design (001 sec. 5.2.2: iterations 4, 8, 12, ...),
 *               or, with the CONFIDENT policy, whenever the duel's outcome
 *               is already nearly certain (P(x beats x_r) outside
 *               [1 - c, c]), so a duel would teach little. A value y
 *               at x makes x the new x_r when x_r's own measured value
 *               is lower (or x is x_r, or there is no x_r yet); a duel
 *               winner whose value was never measured stays x_r.
 *               A value question may also be answered "it failed"
 *               (sg_bo_answer_invalid): a measurement censored below
 *               the failure level h (config.threshold).
 *   safe        every query asks for g(x), answered by a value or
 *               "invalid" (g(x) < h, no output); likelihood 001 eq. 40;
 *               a value below h is a measurement of an unsafe setting
 *               (a numeric observation: eq. 40's valid factor would say
 *               f >= h). x_r is the setting with the largest value at or
 *               above h (the last measurement counts when a point is
 *               measured again). See "Safe mode" below.
 *   active      active learning of a binary classifier (001 sec. 5.1):
 *               every query asks for the label (+1 / -1) of x, chosen by
 *               maximising BALD (001 eq. 43, sg_acq_bald) on posterior
 *               samples of f(x) under the probit model Phi(y f / probit_sd)
 *               of sg-data.h; there is no x_r (sg_bo_best returns 0). The
 *               paper selects from a finite pool of unlabelled UCI points;
 *               here the box is searched (sg_acq_maximize, the labelled
 *               inputs among the candidates, so a point may be asked
 *               again, as in the paper's "pool diversity").
 *               sg_bo_class_probability gives the predictive
 *               P(y = +1 | x) for accuracy curves.
 *
 * Questions (preference mode). A duel of the challenger x against x_r
 * (001 sec. 5.2.1) uses the acquisition of x alone (dueling UCB, EIIG,
 * EPI, Thompson). With qEUBO (sg-acq.h; Astudillo et al. 2023) every
 * option is free: the k options (2 for a duel, config.n_options for a
 * choice) are built greedily, option i maximising the qEUBO of the
 * options before it plus x (the first is thus the posterior-mean
 * maximiser, the second the expected improvement over it;
 * sg-bo-acquisition.c says why greedy), from the same candidates as every acquisition (space-
 * filling points plus the data's inputs, the incumbent included). The
 * winner of a duel or choice becomes x_r in both cases.
 *
 * The other duel rules (preference mode; each from the same N joint
 * posterior samples and the same candidate search as the rest):
 *   hb-ei, hb-ucb  hallucination believer (Takeno, Nomura and Karasuyama,
 *               "Towards practical preferential Bayesian optimization with
 *               skew Gaussian processes", ICML 2023, sec. 5): the first
 *               point is the incumbent x_r (their "current best", the last
 *               winner); the second maximises EI or UCB of the "believer",
 *               the Gaussian posterior of f given ONE posterior sample of
 *               the latent duel variables (the hallucination: their v, our
 *               t of docs/DESIGN.md §3.3, a stored sample picked uniformly by the
 *               proposal's RNG), sg_skewgp_conditional: mean and variance
 *               in closed form, so the search climbs a smooth function.
 *               EI is against the believer's mean at x_r (as in their
 *               code), UCB is mean + SG_BO_HB_BETA_ROOT sd. Exact SkewGP
 *               only (the hallucination is a sample of the exact posterior).
 *   dts         dueling Thompson sampling (Gonzalez, Dai, Damianou and
 *               Lawrence, "Preferential Bayesian optimization", ICML 2017,
 *               sec. 4.3). Their first point maximises the soft-Copeland
 *               score of one posterior sample of the preference function,
 *               C(x) = E_{x' ~ U(box)} pi~(x, x'). With a latent utility,
 *               pi~(x, x') = Phi((f~(x) - f~(x')) / (sqrt2 sigma_p)) is
 *               increasing in f~(x) for every x', so C is maximised where
 *               the sample f~ is: the first point x1 maximises one
 *               posterior sample of f (sample N - 1, as Thompson's). The
 *               second maximises the variance of the preference
 *               probability against x1, Var[Phi((f(x) - f(x1)) / (sqrt2
 *               sigma_p))] (sg_acq_win_variance). The duel is x vs x1
 *               (query.x_ref = x1, not x_r).
 *   muc         maximally uncertain challenge (Fauvel and Chalk,
 *               "Efficient exploration in binary and preferential Bayesian
 *               optimization", 2021): x_r is challenged by the x of
 *               largest epistemic variance of its win probability,
 *               sg_acq_win_variance (the same rule as dts's second point,
 *               with the incumbent as the first).
 *
 * With config.ties
 * a duel may be answered "about the same" (sg_bo_answer_tie).
 *
 * Before the model is used, an initial design of random points (from the
 * caller's RNG) is asked: preference N_INITIAL duels (the first one
 * between two random points; a choice adds k - 2 random points to such a
 * duel); mixed N_INITIAL duels then N_INITIAL
 * values; safe the SAFE_START point (or N_INITIAL random points when no
 * safe start is given); active N_INITIAL random labels.
 *
 * Candidate sets. With config.candidates (n_candidates rows, e.g. the
 * feature values of a folder of images) the loop chooses among those
 * settings only: every option of every question (initial design, model
 * proposals, safe start, fallbacks) is one of the rows, and an answer
 * naming another setting is refused (SG_EINVAL; a setting within 1e-9 box
 * widths of a row in every coordinate is that row, and is recorded as the
 * row's exact values). The maths is unchanged: the kernel is still
 * defined on the box, so two candidates with close features share
 * information. What changes is the search: instead of space-filling
 * points and BOBYQA refinement the acquisition is scored at every
 * candidate (in blocks, one product of the latent samples per block as
 * the box search does), and the argmax is the proposal, which is exact on
 * a finite set. A question already asked is not asked again while an
 * unasked one is available: a duel of x_r against a candidate it already
 * met (a challenger's or the believer's), a qEUBO set of options already shown, a value query at a candidate
 * already measured, a label already given (the pool-based active learning
 * of 001 sec. 5.1). Repeating them is allowed when nothing else is left,
 * since the answers are noisy. The random initial design draws candidates
 * never asked yet (uniformly; then any) and never repeats an option
 * within a question.
 *
 * Surrogates: the exact SkewGP posterior (default; sg-skewgp.h), its
 * Laplace or EP Gaussian approximation (sg-laplace.h, sg-ep.h), or random
 * search (uniform proposals: the floor every method must beat).
 *
 * Acquisitions (sg-acq.h) are computed from N joint posterior samples of
 * (f(x), f(x_r)) for every model, as in 001 sec. 5 (footnote 13: sampling
 * for LP and EP too, so the comparison is fair). For the SkewGP the
 * truncated samples of t are drawn once per proposal and reused for every
 * candidate point (001 sec. 4); the Gaussian remainder and, for
 * Laplace/EP, the Gaussian samples use common random numbers (the same
 * normal variates at every x), so the acquisition is a deterministic,
 * piecewise-smooth function of x that a local optimiser can climb.
 *
 * Determinism: everything depends only on the configuration, the answers
 * and the RNG states passed in. sg_bo_rng gives the recommended stream
 * for a proposal (seed, number of answers), so rebuilding an sg_bo from
 * a session log and proposing again gives the same query.
 *
 * Threading: no globals; an sg_bo may be used from one thread at a time.
 * Hyperparameters changed by sg_bo_refit are NOT derived from the answers
 * alone: store them (sg_bo_get_hyper) with the session and restore them
 * with sg_bo_set_hyper when rebuilding.
 */
#pragma once

#include "sg-acq.h"
#include "sg-common.h"
#include "sg-data.h"
#include "sg-fit.h"
#include "sg-gaussian-post.h"
#include "sg-kernel.h"
#include "sg-skewgp.h"
#include "sg-summary.h"
#include "sg-svgp-rows.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* The most coordinates a BO box has: questions to a person about more
 * settings than this are not answerable, and the loop's fixed-size
 * proposal structs stay small (the kernels themselves have no bound). */
#define SG_BO_MAX_DIM 32
/* The most options one question shows (a best-of-k choice). */
#define SG_BO_MAX_OPTIONS 6

typedef enum {
  SG_BO_PREFERENCE = 0,
  SG_BO_MIXED,
  SG_BO_SAFE,
  SG_BO_ACTIVE,     /* active binary classification by BALD (001 sec. 5.1) */
} sg_bo_mode;

/* How safe mode chooses its next setting (see "Safe mode" below). */
typedef enum {
  SG_BO_SAFE_SAFEOPT = 0,  /* SafeOpt's safe set, expanders and maximisers
                              at the confidence level (the default)      */
  SG_BO_SAFE_PENALTY,      /* paper 001 sec. 5.2.3 as published: the UCB
                              of f minus safe_penalty where P(f >= h) <
                              safe_probability (0.7 in the paper)        */
} sg_bo_safe_rule;

/* The acquisition for duels (and, in safe mode, ignored). */
typedef enum {
  SG_BO_ACQ_UCB = 0,    /* dueling UCB, upper end of the HPD of f(x)-f(x_r) */
  SG_BO_ACQ_EIIG,       /* k log E[Phi] + information gain                 */
  SG_BO_ACQ_EPI,        /* expected probability of improvement            */
  SG_BO_ACQ_THOMPSON,   /* one posterior sample of f(x) - f(x_r)          */
  SG_BO_ACQ_QEUBO,      /* E[max_i f(x_i)] over the options shown, all of
                           them free (no x_r): see "Questions" below      */
  SG_BO_ACQ_HB_EI,      /* hallucination believer, EI of the believer GP  */
  SG_BO_ACQ_HB_UCB,     /* hallucination believer, UCB of the believer GP */
  SG_BO_ACQ_DTS,        /* dueling Thompson sampling (both points new)    */
  SG_BO_ACQ_MUC,        /* maximally uncertain challenge of x_r           */
} sg_bo_acquisition;
/* The largest sg_bo_acquisition: the values run from 0 to it. */
#define SG_BO_ACQ_LAST SG_BO_ACQ_MUC

/* The believer UCB's multiplier of the standard deviation (beta^{1/2}): 2,
 * the value of Takeno et al.'s experiments (their code's beta_root). */
#define SG_BO_HB_BETA_ROOT 2.0

/* What a preference question asks (preference mode; see "Questions"). */
typedef enum {
  SG_BO_QUESTION_DUEL = 0,  /* "A or B?" (two options)                     */
  SG_BO_QUESTION_CHOICE,    /* "which of these k is best?" (n_options)     */
} sg_bo_question;

/* The acquisition for value queries of mixed mode. */
typedef enum {
  SG_BO_NUMERIC_UCB = 0,  /* upper end of the HPD interval of f(x)        */
  SG_BO_NUMERIC_EI,       /* E[max(f(x) - f(x_r), 0)]                     */
} sg_bo_numeric_acquisition;

typedef enum {
  SG_BO_SURROGATE_SKEWGP = 0,
  SG_BO_SURROGATE_LAPLACE,
  SG_BO_SURROGATE_EP,
  SG_BO_SURROGATE_RANDOM,
  SG_BO_SURROGATE_TWO_GP,  /* safe mode only: SafeOpt-style GP classifier
                              (EP) of validity + GP regression of the valid
                              values (001 sec. 5.2.3, the Figure 15
                              baseline); see "Two-GP surrogate" below     */
  SG_BO_SURROGATE_SVGP,    /* preference mode only: the sparse variational
                              GP of paper 004 on the duels (sg-svgp.h:
                              sg_svgp_fit_preferences with default options,
                              rebuilt for every proposal; its lengthscales
                              are learned by its ELBO, so a refit leaves
                              the hyperparameters alone)                 */
} sg_bo_surrogate;

typedef enum {
  SG_BO_MIXED_SCHEDULE = 0,  /* a value every MIXED_EVERY-th iteration      */
  SG_BO_MIXED_CONFIDENT,     /* a value when the duel's outcome is certain */
} sg_bo_mixed_policy;

typedef struct {
  size_t dim;
  double lower[SG_BO_MAX_DIM], upper[SG_BO_MAX_DIM];   /* the search box */
  sg_bo_mode mode;
  sg_bo_acquisition acquisition;
  sg_bo_numeric_acquisition numeric_acquisition;
  sg_bo_surrogate surrogate;

  /* Questions (preference mode). QUESTION DUEL with an incumbent-vs-
   * challenger acquisition (ucb, eiig, epi, thompson) asks "x or x_r?";
   * with SG_BO_ACQ_QEUBO both points of the duel are chosen freely. A
   * CHOICE shows N_OPTIONS (2..SG_BO_MAX_OPTIONS) points and needs
   * SG_BO_ACQ_QEUBO. TIES: duels offer "about the same" (recorded by
   * sg_bo_answer_tie; decisive duels then carry tie_offered, sg-data.h);
   * duels only. Choices with k >= 3 and ties need the exact SkewGP or
   * random search (Laplace and EP have one-row sites, sg-gaussian-post.h;
   * the SVGP takes plain duels only). */
  sg_bo_question question;
  size_t n_options;        /* options per question: 2 for duels (default) */
  int ties;                /* duels may be answered "about the same"      */

  /* Prior and noise (sg-fit.h): kernel, constant mean, numeric_sd and
   * probit_sd, and an optional SkewGP latent part (s pseudo-points with
   * phases and gamma; the arrays are copied by sg_bo_new). Laplace / EP
   * use the GP part only (s must be 0 for them). */
  sg_hyper prior;

  /* Acquisition parameters. */
  double ucb_level;        /* HPD level of the UCBs (default 0.95)         */
  double eiig_k;           /* k of EIIG (default 0.1)                      */
  double threshold;        /* h: safe mode's threshold, mixed mode's
                              failure level (default 0)                   */
  sg_bo_safe_rule safe_rule;  /* safe mode's rule (default SAFEOPT)     */
  double safe_probability; /* safe mode: the confidence level, the P(f >= h)
                              a proposal needs (default 0.95; in [0.5, 1)) */
  double safe_penalty;     /* PENALTY rule: the penalty below it (1000)    */

  /* Mixed mode. */
  sg_bo_mixed_policy mixed_policy;
  size_t mixed_every;      /* default 4                                    */
  double mixed_confidence; /* c of the CONFIDENT policy (default 0.95)     */

  /* Initial design. */
  size_t n_initial;        /* default 5                                    */
  int has_safe_start;
  double safe_start[SG_BO_MAX_DIM];
  /* What each coordinate is (sg-kernel.h; default SG_DIM_LINEAR; set
   * with sg_bo_config_set_kind). INTEGER: proposals are whole numbers
   * (the box's bounds must be too). PERIODIC: the box's range is one
   * period, lower and upper the same setting; the kernel wraps and
   * proposals lie in [lower, upper). CATEGORICAL: the levels are the
   * whole numbers lower .. upper, unordered (an exchangeable kernel
   * term), no resolution. Answers at a non-integral point of an integer
   * or categorical coordinate are refused (SG_EINVAL), as is a safe
   * start there. Every proposal (initial design, candidates, local
   * refinement, fallbacks) is rounded or wrapped onto these settings
   * before it is scored. sg_bo_new and sg_bo_set_hyper put the kinds
   * (and the periods) into the kernels. */
  sg_dim_kind kind[SG_BO_MAX_DIM];
  /* Measurement resolution per coordinate: two settings within it in
   * every coordinate are the same setting, and a proposal never asks one
   * that repeats a setting already answered (nor a duel of x_r against
   * itself). 0 (the default): only the box-relative 1e-6 of a duel. */
  double resolution[SG_BO_MAX_DIM];
  /* A finite candidate set (see "Candidate sets"): N_CANDIDATES rows of
   * DIM values, row-major, each inside the box, no two the same setting;
   * copied by sg_bo_new. At least n_options rows. A safe start must be
   * one of them. 0 and NULL (the default): the whole box. */
  size_t n_candidates;
  const double *candidates;

  /* Hyperparameter refits (sg_bo_refit_due): after every answer while
   * there are at most REFIT_UNTIL answers, then every REFIT_EVERY-th
   * answer (the reference code: 30 and 10); 0 and 0 = never. */
  size_t refit_until;
  size_t refit_every;
  unsigned refit_free;     /* SG_FIT_* groups (default lengthscales +
                              variance; mean and numeric_sd are freed
                              automatically only if listed here)           */
  sg_fit_options refit;    /* budget of one refit (default 1 start, 150
                              evaluations, BOBYQA)                         */
  double refit_lengthscale_min;  /* box of the fitted lengthscales, as     */
  double refit_lengthscale_max;  /* fractions of the box width (default
                                    0.05 and 2: a few duels otherwise
                                    favour white-noise lengthscales)       */
  double refit_variance_max;     /* cap of the fitted kernel variance when
                                    no answer is a measured value (default
                                    60, the reference code's e^4.1; the
                                    fit's own bound, 1000 for comparisons,
                                    still applies): duels answered
                                    consistently are separable and their
                                    evidence grows without bound with the
                                    variance, so the cap is the prior scale
                                    of f against the duels' noise
                                    (probit_sd); results-acq.md measures
                                    where it binds                         */

  /* Model and search effort. */
  size_t n_samples;              /* posterior samples (default 1000)        */
  sg_skewgp_sample_options sampling;  /* truncated-Gaussian sampler options   */
  sg_acq_max_options search;     /* candidates + local refinement          */
  uint64_t seed;                 /* for sg_bo_rng                          */
} sg_bo_config;

/* Defaults for a box (DIM <= SG_BO_MAX_DIM): preference mode, duels of x
 * against x_r, UCB (valid in every mode; sg_bo_default_acquisition is
 * the measured choice once the mode is set), exact SkewGP, RBF kernel with variance 1 and
 * lengthscales 0.2 x the box widths, mean 0, numeric_sd 0.1, probit_sd
 * 1/sqrt2 (so a duel's likelihood is Phi(f(a) - f(b)), as in the
 * reference code), the other noise fields as sg_noise_default, s = 0,
 * threshold 0, safe SafeOpt at 0.95 (penalty 1000 for the PENALTY rule),
 * mixed every 4, 5 initial, refits 30 / 10, 1000 samples, seed 0. The
 * prior's kernel has storage of its own (sg-kernel.h): release it with
 * sg_bo_config_clear. Returns SG_EINVAL for a bad box, SG_ENOMEM. */
sg_status sg_bo_config_default (sg_bo_config *config, size_t dim,
                                const double *lower, const double *upper);
/* Releases the prior kernel's storage (CONFIG NULL or cleared: nothing). */
void sg_bo_config_clear (sg_bo_config *config);
/* SG_OK if the configuration is usable. */
sg_status sg_bo_config_check (const sg_bo_config *config);
/* Coordinate J becomes KIND; for a categorical one the prior lengthscale
 * becomes 1 (distinct levels correlated exp(-1/2) under RBF: the box-width
 * default would make them independent). SG_EINVAL (CONFIG unchanged) for
 * a bad index or kind, or an integer / categorical coordinate whose
 * bounds are not whole numbers. */
sg_status sg_bo_config_set_kind (sg_bo_config *config, size_t j, sg_dim_kind kind);

typedef struct sg_bo sg_bo;

/* A new loop with no answers. Copies CONFIG (its prior arrays and its
 * candidate set). SG_EINVAL (sg_bo_config_check, or two candidate rows
 * that are the same setting), SG_ENOMEM. */
sg_status sg_bo_new (const sg_bo_config *config, sg_bo **out);
void sg_bo_free (sg_bo *bo);
const sg_bo_config *sg_bo_get_config (const sg_bo *bo);

/* ---- Answers ------------------------------------------------------------
 * Points must be finite and inside the box. On any error nothing changes.
 */

/* A duel between XA and XB; A_WON = 1 if XA was preferred. The winner
 * becomes x_r. Preference and mixed modes; SG_EINVAL when XA == XB. With
 * config.ties the duel is recorded with tie_offered (the person could
 * have answered "about the same", so the win is by more than the tie
 * margin). */
sg_status sg_bo_answer_duel (sg_bo *bo, const double *xa, const double *xb, int a_won);
/* The same with the details of sg_data_add_duel: the CONFIDENCE, the
 * option SHOWN_FIRST (SG_SHOWN_NONE, 0 = XA, 1 = XB) and whether "about
 * the same" was an answer (TIE_OFFERED). */
sg_status sg_bo_answer_duel_details (sg_bo *bo, const double *xa, const double *xb, int a_won,
                                     sg_confidence confidence, size_t shown_first,
                                     int tie_offered);
/* XA and XB are "about the same" (sg_data_add_tie): x_r does not move;
 * when there is no x_r yet XA becomes it. SG_EINVAL when XA == XB. The
 * tie margin is identifiable only with duels recorded as tie_offered
 * (config.ties, or sg_bo_answer_duel_details). */
sg_status sg_bo_answer_tie (sg_bo *bo, const double *xa, const double *xb);
/* OPTIONS[CHOSEN] was the best of the K options (k x dim, row-major);
 * SHOWN_FIRST is the index of the option shown first, or SG_SHOWN_NONE.
 * The chosen option becomes x_r. K in 2..SG_BO_MAX_OPTIONS, distinct;
 * a choice of 2 is the same likelihood as a duel (sg_data_add_choice:
 * k - 1 correlated rows). */
sg_status sg_bo_answer_choice (sg_bo *bo, const double *options, size_t k, size_t chosen,
                               sg_confidence confidence, size_t shown_first);
/* The K points ORDER (k x dim) were ranked best first; the best becomes x_r. */
sg_status sg_bo_answer_ranking (sg_bo *bo, const double *order, size_t k);
/* A measured value Y at X: a numeric observation (mixed) or a valid one
 * (safe, threshold h). SG_EINVAL in preference mode. */
sg_status sg_bo_answer_value (sg_bo *bo, const double *x, double y);
/* X failed: it produced no output. Safe mode: g(x) < h, the threshold;
 * mixed mode: a measurement censored below h, the failure level (001
 * eq. 40's non-valid factor in both, an exact probit row). In mixed mode a
 * failed x_r hands its place to the best measured setting, if any.
 * SG_EINVAL in preference and active mode. */
sg_status sg_bo_answer_invalid (sg_bo *bo, const double *x);
/* The class LABEL (+1 or -1) of X. Active mode only; SG_EINVAL else. */
sg_status sg_bo_answer_label (sg_bo *bo, const double *x, int label);
/* Removes the last answer and restores x_r as it was before it.
 * SG_EINVAL when there is no answer. */
sg_status sg_bo_undo (sg_bo *bo);

/* The row of the N candidates (n x dim, row-major, inside the box LOWER,
 * UPPER) that is the setting X: every coordinate within 1e-9 box widths
 * of the row's. Into *INDEX; SG_EINVAL when no row is (or for a NaN). */
sg_status sg_bo_candidate_index (const double *candidates, size_t n, size_t dim,
                                 const double *lower, const double *upper,
                                 const double *x, size_t *index);

size_t sg_bo_n_answers (const sg_bo *bo);
/* The data (sg-data.h) of all answers, borrowed. */
const sg_data *sg_bo_data (const sg_bo *bo);
/* The current best point x_r into X (dim); returns 0 if there is none yet. */
int sg_bo_best (const sg_bo *bo, double *x);

/* ---- Proposals ---------------------------------------------------------- */

typedef enum {
  SG_BO_QUERY_DUEL = 0,    /* "x (A) or x_ref (B)?"                        */
  SG_BO_QUERY_VALUE,       /* "what is g(x)?" (or "invalid" in safe mode)  */
  SG_BO_QUERY_LABEL,       /* "is x in class +1 or -1?" (active mode)      */
  SG_BO_QUERY_CHOICE,      /* "which of options[0..n_options) is best?"   */
} sg_bo_query_kind;

/* Why the SafeOpt rule chose a setting (Sui et al. 2015). */
typedef enum {
  SG_BO_SAFE_ROLE_NONE = 0,   /* not chosen by the rule (initial, other modes) */
  SG_BO_SAFE_ROLE_EXPANDER,   /* measuring it may make unsafe settings safe  */
  SG_BO_SAFE_ROLE_MAXIMISER,  /* it may beat the best safe lower bound       */
} sg_bo_safe_role;

typedef struct {
  sg_bo_query_kind kind;
  double x[SG_BO_MAX_DIM];      /* the new point (A of a duel; options[0]) */
  double x_ref[SG_BO_MAX_DIM];  /* B of a duel: the current best, or with
                                   qEUBO a second free point (options[1]) */
  size_t n_options;             /* the points shown: 2 for a duel (x, x_ref),
                                   k for a choice, 1 for value and label   */
  double options[SG_BO_MAX_OPTIONS][SG_BO_MAX_DIM];
  int tie_offered;              /* a duel that may be answered "about the
                                   same" (config.ties)                     */
  int initial;                  /* 1: from the initial random design       */
  int random;                   /* 1: random (initial design or surrogate) */
  double acquisition;           /* acquisition value at x (NaN if random)  */
  double prob_better;           /* P(f(x) > f(x_ref)) from the samples
                                   (NaN when unknown)                     */
  double prob_safe;             /* safe mode: P(f(x) >= h) (else NaN); with
                                   the two-GP surrogate the classifier's
                                   P(f_c(x) >= 0)                          */
  sg_bo_safe_role safe_role;    /* safe mode, SafeOpt rule: why x was
                                   chosen                                  */
  int safe_exhausted;           /* safe mode, SafeOpt rule: no new setting
                                   is safe at the level, or none teaches
                                   anything (sg_bo_safe_last says which):
                                   x is x_r, the best safe setting measured,
                                   and nothing needs to be asked           */
} sg_bo_query;

/* The recommended RNG for the next proposal: sg_rng_new(config.seed,
 * 1 + number of answers). NULL on ENOMEM; free with sg_rng_free. */
gsl_rng *sg_bo_rng (const sg_bo *bo);

/* Computes the next query: builds the surrogate posterior from the
 * answers (kept for sg_bo_summarize / the accessors below), draws its
 * samples, maximises the acquisition over the box. PROGRESS (may be NULL)
 * is polled throughout; on SG_ECANCELLED the loop is unchanged except
 * that the previous model may have been dropped. Errors: SG_ENOMEM,
 * SG_ENOTPD / SG_ENUMERIC / SG_EINFEASIBLE from the surrogate. */
sg_status sg_bo_propose (sg_bo *bo, gsl_rng *rng, const sg_progress *progress,
                         sg_bo_query *query);

/* ---- Recommendation ------------------------------------------------------
 * The point reported as the optimum, from the current model (the last
 * proposal's, or sg_bo_fit_model's: it must exist; SG_EINVAL otherwise):
 *   winner     x_r, the winner of the latest decisive answer (sg_bo_best);
 *   evaluated  the answered input of largest posterior mean (Takeno et
 *              al. 2023 report regret there; ties and choices can move it
 *              where the winner rule cannot);
 *   box        the posterior-mean maximiser over the whole box (qEUBO's
 *              protocol, Astudillo et al. 2023), by the acquisition search
 *              (config.search candidates, the answered inputs among them,
 *              BOBYQA refinement; RNG for the candidates' shift).
 * X (dim) and *MEAN (the posterior mean there) on success. Posterior means
 * are sg_bo_summarize's SG_SUMMARY_MOMENTS. */
typedef enum {
  SG_BO_RECOMMEND_WINNER = 0,
  SG_BO_RECOMMEND_EVALUATED,
  SG_BO_RECOMMEND_BOX,
} sg_bo_recommend_rule;

sg_status sg_bo_recommend (const sg_bo *bo, sg_bo_recommend_rule rule, gsl_rng *rng,
                           const sg_progress *progress, double *x, double *mean);
/* "winner", "evaluated", "box". */
const char *sg_bo_recommend_name (sg_bo_recommend_rule rule);
sg_status sg_bo_recommend_parse (const char *name, sg_bo_recommend_rule *rule);

/* ---- Hyperparameters ----------------------------------------------------- */

/* 1 if the refit schedule asks for a refit now (and none was done at the
 * current number of answers). Never for the random surrogate. */
int sg_bo_refit_due (const sg_bo *bo);
/* Refits the free hyperparameters (config.refit_free) by maximising the
 * surrogate's log evidence (exact SkewGP evidence, or the Laplace / EP
 * approximation; sg_fit) from the current values. RNG is used only for
 * extra starts (may be NULL with one start); RES may be NULL. With fewer
 * than two observations nothing is fitted (SG_OK, RES->n_evals = 0).
 * On failure the hyperparameters are unchanged. */
sg_status sg_bo_refit (sg_bo *bo, gsl_rng *rng, const sg_progress *progress,
                       sg_fit_result *res);

/* Long sessions. With a summary set, the SkewGP surrogate is the exact
 * posterior given the answers after the first N_SEEN plus SUMMARY's
 * pseudo-observations of f at its inducing points (sg-svgp-rows.h;
 * sg_svgp_rows_session_summary makes them from a stored sparse fit of
 * the first N_SEEN answers), instead of the exact posterior of all the
 * answers: a proposal then costs the answers since the fit plus the
 * summary's M points, whatever N_SEEN is. SUMMARY is copied (NULL
 * clears it). SG_EINVAL when N_SEEN exceeds the answers, the summary's
 * dimension is not the configuration's, or the surrogate is not the
 * SkewGP. Undoing an answer the summary has seen clears it. */
sg_status sg_bo_set_summary (sg_bo *bo, const sg_svgp_pseudo *summary, size_t n_seen);
/* The summary in use (NULL: none) and the answers it has seen. */
const sg_svgp_pseudo *sg_bo_get_summary (const sg_bo *bo, size_t *n_seen);
/* The current hyperparameters (borrowed; arrays owned by BO). */
const sg_hyper *sg_bo_get_hyper (const sg_bo *bo);
/* Replaces them (arrays copied; s must match the configuration's). */
sg_status sg_bo_set_hyper (sg_bo *bo, const sg_hyper *hyper);

/* ---- The model of the last proposal (for plots) -------------------------
 * Valid until the next sg_bo_propose / sg_bo_refit / sg_bo_free; it
 * describes the data as they were when it was built
 * (sg_bo_model_n_answers). NULL / SIZE_MAX when there is none. */
size_t sg_bo_model_n_answers (const sg_bo *bo);
const sg_skewgp_posterior *sg_bo_skewgp_posterior (const sg_bo *bo);
const sg_skewgp_samples *sg_bo_skewgp_samples (const sg_bo *bo);
const sg_gauss_post *sg_bo_gauss_post (const sg_bo *bo);
/* Per-point summaries (sg-summary.h) of the current model at B points XS
 * (b x dim) at credible LEVEL, prob_better against x_r when there is one.
 * FIELDS (SG_SUMMARY_* mask) says which the caller reads: with exactly
 * SG_SUMMARY_MOMENTS the exact SkewGP takes its map path (mean and sd to
 * round-off, skewness from the low-rank expansion: sg_summary_options.
 * fast_moments), 10-15x cheaper on a plot's grid than every field; the
 * other fields are then NaN. The Gaussian surrogates fill every field in
 * closed form whatever FIELDS says. SG_EINVAL when there is no model. */
sg_status sg_bo_summarize (const sg_bo *bo, const double *XS, size_t b,
                           unsigned fields, double level,
                           const sg_progress *progress, sg_point_summary *out);

/* ---- The acquisition of the last proposal (for plots) -------------------
 * The function sg_bo_propose maximised, evaluated anywhere: same model,
 * same posterior samples, same common random numbers and the same x_r
 * (as it was at the proposal, even if answers came since), so the curve's
 * maximum is where the proposal went and its value at query.x is
 * query.acquisition exactly. Valid while the model is (until the next
 * sg_bo_propose / sg_bo_refit / sg_bo_set_hyper); SG_EINVAL when the last
 * proposal did not use the model (initial design, random surrogate).
 */
typedef enum {
  SG_BO_ACQ_TARGET_NONE = 0,
  SG_BO_ACQ_TARGET_DUEL,     /* config.acquisition of h = f(x) - f(x_r)    */
  SG_BO_ACQ_TARGET_NUMERIC,  /* config.numeric_acquisition (mixed values)  */
  SG_BO_ACQ_TARGET_SAFE,     /* safe mode: the safe UCB of f(x), or the
                                SafeOpt rule's interval width             */
  SG_BO_ACQ_TARGET_BALD,     /* BALD of the label at x (active mode)       */
  SG_BO_ACQ_TARGET_QEUBO,    /* qEUBO of the set {options found before x,
                                x}: the last step of the greedy search    */
  SG_BO_ACQ_TARGET_BELIEVER, /* hb-ei / hb-ucb of the believer GP         */
  SG_BO_ACQ_TARGET_SAMPLE,   /* one posterior sample of f(x) (dts's first
                                point; dts's second is TARGET_DUEL)       */
} sg_bo_acq_target;

typedef struct {
  sg_bo_acq_target target;   /* which acquisition was maximised            */
  const char *name;          /* "dueling UCB", "EIIG", "EPI", "Thompson",
                                "qEUBO", "HB-EI", "HB-UCB", "DTS", "MUC",
                                "UCB", "EI", "safe UCB", "SafeOpt" or
                                "BALD" (static)                            */
  double x[SG_BO_MAX_DIM];   /* its maximiser (the proposed x; for qEUBO
                                the last option added)                     */
  double value;              /* the value there (query.acquisition; NaN
                                when every candidate was excluded)         */
  int has_ref;               /* x_r of the proposal, if there was one      */
  double x_ref[SG_BO_MAX_DIM];
} sg_bo_acq_info;

/* For qEUBO the other options (the n_options - 1 found before the last)
 * are fixed and the curve is the qEUBO of them plus the point; points
 * within 1e-6 box widths of one of them get -inf. */
/* Describes the last proposal's acquisition; SG_EINVAL when there is none. */
sg_status sg_bo_last_acquisition (const sg_bo *bo, sg_bo_acq_info *info);
/* The last proposal's acquisition at B finite points XS (b x dim; outside
 * the box is allowed) into OUT (b). For duels, points within 1e-6 box
 * widths of x_r get -inf, as in the search (a duel of x_r against itself
 * says nothing). Cost: one joint sample of (f(x), f(x_r)) per point, as in
 * the search. PROGRESS is polled every 16 points. SG_EINVAL, SG_ENOMEM,
 * SG_ECANCELLED, or the surrogate's sampling failure; OUT is untouched on
 * failure. */
sg_status sg_bo_acquisition_at (const sg_bo *bo, const double *XS, size_t b,
                                const sg_progress *progress, double *out);
/* P(f(x) >= config.threshold) at B points (001 sec. 5.2.3; the h of safe
 * mode), as the fraction of the same joint samples at or above h, so its
 * value at the proposal is query.prob_safe. Any mode; same errors. With
 * the two-GP surrogate: the classifier's P(f_c(x) >= 0) (its samples).
 * With safe mode's SafeOpt rule: its P(safe), the Gaussian remainder
 * integrated over every latent sample; and sg_bo_acquisition_at gives the
 * rule's interval width u - l at the settings it would take as
 * maximisers, or as expanders wider than every maximiser (judged against
 * the points among XS it deems unsafe), -inf elsewhere, with the answers
 * as they were at the proposal. */
sg_status sg_bo_prob_valid_at (const sg_bo *bo, const double *XS, size_t b,
                               const sg_progress *progress, double *out);

/* ---- Active mode: the classifier ---------------------------------------- */

/* Builds the surrogate's model of the current answers, as sg_bo_propose
 * does, without choosing a query (for accuracy curves and plots; the
 * model accessors above then describe it). SG_EINVAL for the random
 * surrogate or with no data the surrogate can use; errors as
 * sg_bo_propose. */
sg_status sg_bo_fit_model (sg_bo *bo, gsl_rng *rng, const sg_progress *progress);

/* Predictive class probabilities P(y = +1 | data) = E[Phi(f(x) / probit_sd)]
 * of the current model at B points XS (b x dim) into PROB (b), with the
 * current hyperparameters' probit_sd (SkewGP: Rao-Blackwellised over the
 * samples, sg_skewgp_summarize; Laplace / EP: closed form). Any mode with a
 * model; SG_EINVAL when there is none (random surrogate, initial design). */
sg_status sg_bo_class_probability (const sg_bo *bo, const double *XS, size_t b,
                                   const sg_progress *progress, double *prob);

/* ---- Safe mode -----------------------------------------------------------
 * The SafeOpt rule (config.safe_rule = SG_BO_SAFE_SAFEOPT; Sui, Gotovos,
 * Burdick and Krause, "Safe exploration for optimization with Gaussian
 * processes", ICML 2015; Berkenkamp, Krause and Schoellig, "Bayesian
 * optimization with safety constraints", Machine Learning 2023) on the
 * model's posterior of f (the exact SkewGP of 001 eq. 40 by default;
 * Laplace and EP alike). The two-GP surrogate, paper 001's baseline, keeps
 * the PENALTY rule at the level: its classifier alone cannot make a
 * setting safe at 95 % from a few valid labels. With LEVEL the confidence
 * level config.safe_probability:
 *   safe set    the settings with P(f(x) >= h | answers) >= LEVEL (for the
 *               SkewGP the Gaussian remainder integrated exactly over each
 *               latent sample, sg_skewgp_conditional_all) that are
 *               - within one lengthscale (the model's) of a measured safe
 *                 setting: the set grows by steps from measured settings;
 *               - new: farther than the resolution from every measured
 *                 setting in some coordinate (the configured resolution,
 *                 at least half a step of an integer and 0.5 % of the
 *                 range of a continuous coordinate: sg_bo_safe_resolution);
 *               - not within the resolution of a failed setting or of a
 *                 value below h, unless the model now says that setting
 *                 is safe at LEVEL (the evidence has moved past it);
 *   bounds      l(x), u(x): the ends of the LEVEL highest-density interval
 *               of f(x);
 *   maximisers  the safe settings with u(x) >= the largest l(x) of a safe
 *               setting, measured or not;
 *   expanders   the safe settings where a measurement as high as u(x)
 *               would make a nearby unsafe setting safe at LEVEL (the
 *               Gaussian part of the model conditioned on it, the latent
 *               samples held fixed);
 *   proposal    the maximiser or expander with the widest interval
 *               u - l (SafeOpt's rule; expanders are tested widest first
 *               and only when wider than every maximiser). Intervals
 *               narrower than 4 numeric_sd teach nothing and are skipped.
 * The settings considered are drawn around the measured safe settings
 * (a ball of one lengthscale around each, and steps of a quarter and half
 * a lengthscale along each axis, +-1 along an integer one), moved onto
 * the settings the kinds allow, then refined around the best. When no
 * setting qualifies the query is safe_exhausted: x is x_r, and
 * sg_bo_safe_last says whether nothing new is safe at LEVEL or the safe
 * settings left teach nothing. A failure and a value below h shrink the
 * safe set at once: P(safe) is computed from all answers at every
 * proposal (not intersected with earlier intervals as SafeOpt does, which
 * would keep a setting safe that a failure has refuted).
 *
 * Hyperparameters. The model uses the current ones with three changes
 * that keep it from being confident where it has no data:
 *   mean        h: far from every measurement P(safe) = 1/2 < LEVEL;
 *   variance    at least the largest (y - h)^2 of a measured value y: f
 *               may fall from any measured value to h;
 *   lengthscale along j at most max(its default, the spread of the
 *               measured settings along j): a correlation over distances
 *               the data have not spanned is not taken from a fit. The
 *               default is the prior's lengthscale (at least 2 for an
 *               integer, so that a neighbour can become safe).
 * A refit in safe mode fits the lengthscales and the variance with the
 * mean at h, inside those bounds; then, where the fit is poorly
 * identified, it takes the conservative end: a fitted lengthscale longer
 * than its default becomes the shortest whose log evidence is within 1.92
 * nats of the maximum (the end of its 95 % profile-likelihood interval,
 * the others held at the fit), and the default itself when the evidence
 * cannot tell them apart (sg_bo_safe_last_fit).
 * The PENALTY rule is paper 001 sec. 5.2.3 as published (with 0.7 as its
 * level): the safe UCB of sg-acq.h, hyperparameters as they are.
 */
typedef enum {
  SG_BO_SAFE_GROWING = 0,   /* a maximiser or an expander was proposed     */
  SG_BO_SAFE_NOTHING_SAFE,  /* no new setting is safe at the level         */
  SG_BO_SAFE_KNOWN_ENOUGH,  /* new safe settings remain, but none expands
                               the safe set and every maximiser is known
                               within the measurement noise               */
} sg_bo_safe_state;

/* What the model of the last proposal changed in the hyperparameters. */
enum {
  SG_BO_SAFE_MEAN_AT_THRESHOLD = 1u << 0,  /* the mean was moved to h      */
  SG_BO_SAFE_VARIANCE_RAISED = 1u << 1,    /* up to its floor              */
};

typedef struct {
  int valid;                 /* a SafeOpt-rule proposal was made           */
  double level;              /* config.safe_probability                    */
  sg_bo_safe_state state;
  sg_bo_safe_role role;
  double x[SG_BO_MAX_DIM];   /* the proposal (x_r when exhausted)          */
  double value;              /* its interval's width (NaN when exhausted)  */
  size_t n_candidates, n_safe, n_maximisers, n_expanders;  /* the search's */
  double best_lower;         /* the largest l(x) of a safe setting         */
  double width_floor;        /* 4 numeric_sd                               */
  /* The hyperparameters the model used, and what was changed. */
  double mean, variance, lengthscales[SG_BO_MAX_DIM];
  unsigned adjusted;         /* SG_BO_SAFE_MEAN_AT_THRESHOLD | ...         */
  double variance_floor;
  double lengthscale_cap[SG_BO_MAX_DIM];
  unsigned char capped[SG_BO_MAX_DIM];  /* 1: cut to its cap              */
} sg_bo_safe_info;

/* The SafeOpt rule's last proposal (safe mode); SG_EINVAL when there is
 * none (another rule or mode, the initial design, a model dropped). */
sg_status sg_bo_safe_last (const sg_bo *bo, sg_bo_safe_info *info);

typedef struct {
  int valid;                 /* the last refit was a safe-mode one         */
  double log_evidence;       /* its maximum                                */
  double fitted[SG_BO_MAX_DIM];         /* the evidence's maximiser       */
  unsigned char shortened[SG_BO_MAX_DIM];  /* 1: taken at the interval's
                                              end (or the default)         */
} sg_bo_safe_fit;

/* The last refit's conservative choice (see "Safe mode"); SG_EINVAL when
 * there is none since the hyperparameters were last set. */
sg_status sg_bo_safe_last_fit (const sg_bo *bo, sg_bo_safe_fit *fit);

/* The resolution the SafeOpt rule uses along J: the configured one, at
 * least 0.5 for an integer coordinate and 0.5 % of the range of a
 * continuous one; 0 for a categorical one (levels differ or not). */
double sg_bo_safe_resolution (const sg_bo_config *config, size_t j);

/* "safeopt" and "penalty"; parse returns SG_EINVAL for others. */
const char *sg_bo_safe_rule_name (sg_bo_safe_rule rule);
sg_status sg_bo_safe_rule_parse (const char *name, sg_bo_safe_rule *rule);

/* ---- Two-GP surrogate (safe mode; SG_BO_SURROGATE_TWO_GP) ------------------
 * The baseline of 001 sec. 5.2.3 / Figure 15 in the style of SafeOpt
 * (Berkenkamp et al. 2016): two independent GPs with the same kernel
 * (the current hyperparameters):
 *   classifier  f_c ~ GP(0, k), labels +1 (valid) / -1 (invalid),
 *               likelihood Phi(label f_c(x) / probit_sd), approximated by
 *               EP (as the paper's SafeOpt run; sg-ep.h);
 *   regression  g ~ GP(mean, k) on the valid points' values only, noise
 *               numeric_sd (exact; the prior where nothing is valid yet).
 * The acquisition is the same safe-UCB rule as the SkewGP's (sg-acq.h):
 * the LEVEL HPD upper end of the regression GP at x minus PENALTY where
 * P(f_c(x) >= 0) < SAFE_PROBABILITY, both from N common-random-number
 * samples (001 footnote 13). Refits (when enabled) maximise the exact GP
 * evidence of the valid values. The accessors below give the two
 * posteriors of the last proposal (NULL otherwise); sg_bo_summarize
 * summarises the regression GP. */
const sg_gauss_post *sg_bo_two_gp_classifier (const sg_bo *bo);
const sg_gauss_post *sg_bo_two_gp_regression (const sg_bo *bo);

const char *sg_bo_mode_name (sg_bo_mode mode);
/* The SG_FIT_* groups a refit should free in MODE: lengthscales + variance
 * always; in mixed mode also the constant mean and probit_sd (the measured
 * values fix the scale of f, so the duels' noise becomes identifiable).
 * numeric_sd is never freed by default: fitted from a handful of values it
 * collapses the kernel variance and turns the fit into pure noise. */
unsigned sg_bo_default_refit_free (sg_bo_mode mode);
/* The largest number of parameters the default duel rule is hb-ucb for. */
#define SG_BO_HB_DEFAULT_MAX_DIM 4
/* The duel rule a new experiment of DIM parameters asks by when it names
 * none, chosen by the published protocols run in full
 * (tests/bench/results-acq.md, "The default"): hb-ucb for preference-mode
 * duels with the exact SkewGP surrogate (ties or not) of up to
 * SG_BO_HB_DEFAULT_MAX_DIM parameters, where it beat dueling UCB over the
 * Takeno protocol's 2- to 4-parameter functions at a fifth to a third of
 * its cost; ucb from 5 parameters (hb-ucb was behind it at 6 and 7
 * parameters; none of 5 was measured) and everywhere else the believer
 * cannot run: mixed mode's duels, the Gaussian surrogates and the random
 * baseline (it needs the exact posterior's latent samples), and safe and
 * active mode, which ignore the rule; qeubo for best-of-k choices in any
 * mode (the only rule that asks them; outside preference mode the choice
 * itself is refused). sg_bo_config_default keeps ucb, which every mode
 * takes; a caller that sets the mode, question and surrogate asks this
 * for the measured choice. */
sg_bo_acquisition sg_bo_default_acquisition (sg_bo_mode mode, sg_bo_question question,
                                             sg_bo_surrogate surrogate, size_t dim);
const char *sg_bo_acquisition_name (sg_bo_acquisition acq);
/* "duel" and "choice". */
const char *sg_bo_question_name (sg_bo_question question);
sg_status sg_bo_question_parse (const char *name, sg_bo_question *question);
const char *sg_bo_surrogate_name (sg_bo_surrogate surrogate);
/* Parse the names above; SG_EINVAL for unknown ones. */
sg_status sg_bo_mode_parse (const char *name, sg_bo_mode *mode);
sg_status sg_bo_acquisition_parse (const char *name, sg_bo_acquisition *acq);
sg_status sg_bo_surrogate_parse (const char *name, sg_bo_surrogate *surrogate);
