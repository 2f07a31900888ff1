/* sg-hier.h — studies with several participants: the hierarchical exact
 * model (population plus individuals).
 *
 * Model. Participant p's utility is f_p(x) = g(x) + h_p(x), with the
 * population utility g ~ GP(mean, k_pop) and individual deviations
 * h_p ~ GP(0, k_ind), independent across participants and of g. Jointly
 * over (setting, participant) this is one GP with the grouped kernel of
 * sg-kernel.h,
 *     k((x,p), (y,q)) = k_pop(x, y) + [p == q] k_ind(x, y),
 * and g itself is the "participant" -1 (SG_HIER_POPULATION), which shares
 * k_pop with everyone and has no individual part. The answers are probit
 * rows of the participants' own f_p (sg-data.h: duels, ties, choices,
 * rankings, numeric values), so the posterior is the exact SkewGP
 * posterior of 001 sec. 3 with this kernel (a GP prior, s = 0): the
 * posterior of g, of every f_p and of their joint samples, and the exact
 * log evidence (001 eq. 39), are sg_skewgp_* results unchanged.
 *
 * Point layout. Every point handed to the engine has d + 1 coordinates:
 * the setting x (d), then the participant index as a double (0, 1, ...,
 * P - 1; -1 for the population). sg_hier_points builds them. Why a
 * coordinate rather than a separate group array: the data table, the
 * likelihood lowering, the posterior, the samplers and the summaries all
 * take rows of points; with the group as the last coordinate none of them
 * changes, and two participants answering at the same setting are
 * distinct inputs. The price is that nothing below this header knows the
 * range of the index: sg_hier_data checks it on the way in.
 *
 * Noise. Each participant's probit rows carry their own sd
 * (model.probit_sd[p], "per-person noise"), or the shared
 * noise.probit_sd when model.probit_sd is NULL. Everything else of the
 * noise (tie margin, side bias, confidence scales, numeric sd) is shared.
 *
 * Using it (an experimenter's study, or the benchmark):
 *
 *     sg_hier_data_init (&hd, d, P);
 *     sg_hier_add_duel (&hd, p, winner, loser, ...);   per answer
 *     sg_hier_model_init (&model, SG_KERNEL_RBF, d, v_pop, l_pop, v_ind, l_ind);
 *     [sg_hier_fit (NULL, &model, &hd, NULL, rng, progress, &res);]
 *     sg_hier_posterior_new (&model, &hd, &post);      an sg_skewgp_posterior
 *     sg_skewgp_sample (post, N, NULL, rng, progress, &samples);
 *     sg_hier_points (d, SG_HIER_POPULATION, X, b, XS);  g at X
 *     sg_hier_points (d, p, X, b, XS);                   f_p at X
 *     sg_skewgp_summarize (post, samples, XS, b, ...);
 *     sg_hier_prob_best_differs (post, samples, cand, c, p, tol, rng, &pr, &se);
 *     sg_hier_propose_duel (&model, &hd, p, &popt, rng, progress, &q);
 *
 * "Independent" participants (each person a separate model, for
 * comparison): sg_hier_data_person keeps one person's answers; the same
 * model on them is exactly the separate model of that person with kernel
 * k_pop + k_ind (f_p's prior), and sg_hier_propose_options.independent
 * does this for proposals.
 *
 * Threading and errors as everywhere in the engine (sg-common.h).
 */
#pragma once

#include "sg-bo.h"
#include "sg-common.h"
#include "sg-data.h"
#include "sg-fit.h"
#include "sg-kernel.h"
#include "sg-skewgp.h"
#include "sg-svgp-rows.h"

#include <gsl/gsl_rng.h>

/* The most setting coordinates of a study (d; points have d + 1): its
 * settings are a person's to judge, so few, and the proposal structs
 * below stay fixed-size. */
#define SG_HIER_MAX_DIM 31

/* The participant index of the population utility g. */
#define SG_HIER_POPULATION ((size_t) -1)

/* ---- Answers of a study ---------------------------------------------- */

typedef struct {
  size_t dim;        /* d: coordinates of a setting                          */
  size_t n_people;   /* P: participants are 0 .. P - 1                       */
  sg_data data;      /* points of d + 1 coordinates (setting, participant)   */
} sg_hier_data;

/* SG_EINVAL for d = 0, d > SG_HIER_MAX_DIM or P = 0. */
sg_status sg_hier_data_init (sg_hier_data *hd, size_t dim, size_t n_people);
void sg_hier_data_clear (sg_hier_data *hd);

/* OUT (b x (d + 1)) = the B settings X (b x d) of PERSON (an index, or
 * SG_HIER_POPULATION for g). SG_EINVAL for non-finite X. */
sg_status sg_hier_points (size_t dim, size_t person, const double *X, size_t b,
                          double *out);
/* The participant of input I of HD's data (SG_HIER_POPULATION never
 * occurs in data). */
size_t sg_hier_input_person (const sg_hier_data *hd, size_t i);
/* The participant who gave observation K. */
size_t sg_hier_obs_person (const sg_hier_data *hd, size_t k);

/* PERSON's answers, as sg_data_add_* (settings of d coordinates). SG_EINVAL
 * for PERSON >= n_people (SG_HIER_POPULATION included: g answers nothing)
 * and for what the sg_data call refuses (NaN, equal options, ...); HD is
 * unchanged then. */
sg_status sg_hier_add_preference (sg_hier_data *hd, size_t person,
                                  const double *winner, const double *loser);
sg_status sg_hier_add_duel (sg_hier_data *hd, size_t person, const double *winner,
                            const double *loser, sg_confidence confidence,
                            size_t shown_first, int tie_offered);
sg_status sg_hier_add_tie (sg_hier_data *hd, size_t person, const double *a,
                           const double *b);
sg_status sg_hier_add_choice (sg_hier_data *hd, size_t person, const double *chosen,
                              const double *others, size_t n_others,
                              sg_confidence confidence, size_t shown_first);
sg_status sg_hier_add_ranking (sg_hier_data *hd, size_t person, const double *order,
                               size_t k);
sg_status sg_hier_add_numeric (sg_hier_data *hd, size_t person, const double *x,
                               double y);

/* OUT (initialised by this call) = the answers of PERSON alone, in the
 * same layout (n_people unchanged): the data of PERSON's independent
 * model. SG_EINVAL for a bad PERSON. */
sg_status sg_hier_data_person (const sg_hier_data *hd, size_t person, sg_hier_data *out);

/* ---- The model -------------------------------------------------------- */

typedef struct {
  sg_kernel pop;        /* k_pop on d coordinates; variance 0: no g part     */
  sg_kernel ind;        /* k_ind, same type and d; variance 0: no h_p part   */
  double mean;          /* constant prior mean of g                          */
  sg_noise noise;       /* shared noise (probit_sd used when the per-person
                           array is NULL)                                    */
  double *probit_sd;    /* NULL, or n_people entries (the caller's array):
                           person p's probit rows have sd probit_sd[p]      */
} sg_hier_model;

/* RBF / Matern 5/2 parts with isotropic lengthscales, mean 0, default
 * noise, shared probit sd. Variances >= 0, not both 0. The two kernels
 * have storage of their own (sg-kernel.h): release it with
 * sg_hier_model_clear; a struct copy of a model is a view of them. */
sg_status sg_hier_model_init (sg_hier_model *model, sg_kernel_type type, size_t dim,
                              double pop_variance, double pop_lengthscale,
                              double ind_variance, double ind_lengthscale);
void sg_hier_model_clear (sg_hier_model *model);
/* SG_OK if MODEL fits HD (dimensions, types, finite positive scales,
 * per-person sds positive). */
sg_status sg_hier_model_check (const sg_hier_model *model, const sg_hier_data *hd);
/* The grouped kernel of MODEL (sg-kernel.h) on points of d + 1
 * coordinates, with storage of its own (sg_kernel_clear it). */
sg_status sg_hier_model_kernel (const sg_hier_model *model, sg_kernel *k);
/* The lowered likelihood of HD with each person's rows at their own
 * probit sd: exactly sg_likelihood_build with noise.probit_sd =
 * probit_sd[p] for person p's answers. */
sg_status sg_hier_likelihood_build (const sg_hier_model *model, const sg_hier_data *hd,
                                    sg_likelihood *lik);
/* The same rows in the sparse form of sg-data.h (for sg-svgp-rows.h). */
sg_status sg_hier_likelihood_build_sparse (const sg_hier_model *model,
                                           const sg_hier_data *hd, sg_likelihood *lik);
/* The exact posterior of every f_p and of g (read at sg_hier_points). */
sg_status sg_hier_posterior_new (const sg_hier_model *model, const sg_hier_data *hd,
                                 sg_skewgp_posterior **out);
/* The exact posterior given HD's answers plus POPULATION, pseudo-
 * observations of g at population points (sg-svgp-rows.h: what the
 * others' answers say about g, from a cached sparse fit). With HD one
 * person's answers (sg_hier_data_person) this is that person's question
 * model: f_p = g + h_p conditioned exactly on their own answers, g's
 * prior from k_pop and the summary. Cost O((n_p + M)^2 (m_p + M) + ...):
 * independent of how many others answered. */
sg_status sg_hier_posterior_new_summary (const sg_hier_model *model,
                                         const sg_hier_data *hd,
                                         const sg_svgp_pseudo *population,
                                         sg_skewgp_posterior **out);
/* The sparse variational model of HD's answers under MODEL with the
 * grouped kernel (sg-svgp-rows.h: inducing points at population points,
 * each person's h_p as extra noise on their rows): its ELBO fits the
 * population part's lengthscales at any size (OPT->train.fix_kernel 0;
 * the individual part held). Q is initialised by the call. */
sg_status sg_hier_sparse_fit (const sg_hier_model *model, const sg_hier_data *hd,
                              const sg_svgp_rows_options *opt, gsl_rng *rng,
                              const sg_progress *progress, sg_svgp *q);

/* ---- A study at scale: the cached population ------------------------- */

/* The population posterior that a study caches, so that a person's
 * question costs their own answers plus this summary.
 *
 * Model: the hierarchical model above with g sparse: u = g(Z) at M
 * population points, whitened v = Lk^{-1} (u - mean) ~ N(0, I), and each
 * person's f_q at their inputs X_q given v exactly Gaussian with the
 * "PITC" covariance of one block per person (Snelson & Ghahramani 2007):
 *   f_q(X_q) - mean = A_q^T v + eps_q,  A_q = Lk^{-1} k_pop(Z, X_q),
 *   eps_q ~ N(0, k_pop(X_q, X_q) - A_q^T A_q + k_ind(X_q, X_q)),
 * independent across people: h_q's correlation over one person's answers
 * is kept exactly; only g's residual off the inducing points is treated as
 * independent between people. Each answer row k (sg-data.h's lowering,
 * row latent l_k = w_k^T (f - mean)) gets a Gaussian site
 * exp(eta_k l_k - lambda_k l_k^2 / 2); numeric rows' sites are exact.
 * Given the sites, with B_q = A_q W_q^T (the rows' loadings on v),
 * Sigma_q = W_q Cov(eps_q) W_q^T, Lambda_q = diag(lambda), S = Lambda_q^{1/2},
 * G = (I + S Sigma_q S)^{-1}, person q's term on v is
 *   P_q = B_q S G S B_q^T,  h_q = B_q (eta_q - S G S Sigma_q eta_q)
 * (their sites with eps_q integrated out, stable as lambda -> 0), and
 * q(v) = N(P^{-1} h, P^{-1}) with P = I + sum_q P_q, h = sum_q h_q. The
 * sites are the fixed point of conjugate-computation variational
 * inference (Khan & Lin 2017): lambda_k = -2 dE_k/dnu_k, eta_k = dE_k/dmu_k
 * + lambda_k mu_k, E_k = E[log p(row k | l_k)] under the row's marginal
 * N(mu_k, nu_k) (Gauss-Hermite, sg-svgp-rows.h's PROBIT rows), iterated
 * with damping 1/2: the optimum of the ELBO over Gaussian q(v) and the
 * exact q(eps | v) of each block. Cost per iteration O(sum_q (r_q^3 +
 * r_q^2 M + r_q M^2) + M^3).
 *
 * A person's question (sg_hier_population_pseudo): P - P_p and h - h_p
 * from p's stored sites (the cavity, as in EP: what everyone else says
 * about g), as pseudo-observations of g(Z); then f_p = g + h_p conditioned
 * exactly on all of p's own answers (sg_hier_posterior_new_summary). What
 * is exact: p's answers, their likelihood and the truncated posterior; what
 * is approximate: the others' information about g (sparse g, Gaussian
 * sites, the product of row marginals for a choice or ranking), and stale
 * by the answers this cache has not seen (SEEN: p's later answers are
 * conditioned on exactly, and only the SEEN ones are subtracted).
 *
 * Owned arrays; sg_hier_population_clear. The fields are plain data: a
 * study writes them to its folder and reads them back
 * (sg_hier_population_restore rebuilds Lk). */
typedef struct {
  sg_kernel kernel;      /* the grouped kernel it was made with (its own
                            storage: sg_kernel_grouped or sg_kernel_init
                            when read back)                              */
  double mean;           /* g's prior mean                               */
  size_t dim, M;         /* points of dim = d + 1 coordinates            */
  double *Z;             /* M x dim population points (group -1)         */
  double *Lk;            /* M x M chol(k_pop(Z, Z) + jitter)              */
  double *P, *h;         /* sum_q P_q (M x M, without the prior's I), sum_q h_q */
  size_t n_people;
  size_t *seen;          /* n_people: answers of each person it has seen  */
  size_t *site_start;    /* n_people + 1: person q's sites              */
  double *lambda, *eta;  /* site_start[n_people]: per row, each person's
                            answers in order, an answer's probit rows
                            then its numeric row                         */
  size_t iterations;     /* CVI iterations taken                         */
  double change;         /* the last iteration's largest site change     */
} sg_hier_population;

/* Builds the cache from HD's answers (all of them: SEEN = the counts)
 * under MODEL: min(N_INDUCING, distinct settings) k-means population
 * points (RNG), then at most ITERATIONS CVI iterations (stops when no
 * site moves by more than 1e-6 of its scale). POP is initialised by the
 * call. SG_EINVAL (no answers, a model without a population part, ...),
 * SG_ENOMEM, SG_ENUMERIC, SG_ECANCELLED (PROGRESS polled per iteration). */
sg_status sg_hier_population_new (const sg_hier_model *model, const sg_hier_data *hd,
                                  size_t n_inducing, size_t iterations, gsl_rng *rng,
                                  const sg_progress *progress, sg_hier_population *pop);
void sg_hier_population_clear (sg_hier_population *pop);
/* Recomputes POP->Lk from its kernel and Z (after reading the plain
 * fields back from a file; Lk's memory is allocated here if NULL). */
sg_status sg_hier_population_restore (sg_hier_population *pop);
/* The pseudo-observations of g from everyone POP has seen but PERSON:
 * OWN holds PERSON's answers in order (sg_hier_data_person; the first
 * POP->seen[PERSON] of them are subtracted with their stored sites);
 * PERSON = SG_HIER_POPULATION (OWN ignored): everyone, for g's own
 * posterior. PERSON beyond POP->n_people (a newcomer): nothing to
 * subtract. OUT is initialised by the call. Cost O(r_p^3 + r_p M^2 + M^3). */
sg_status sg_hier_population_pseudo (const sg_hier_population *pop,
                                     const sg_hier_model *model, const sg_hier_data *own,
                                     size_t person, sg_svgp_pseudo *out);
/* The exact log evidence (001 eq. 39); W and OPT as for
 * sg_skewgp_log_evidence (NULL: allocated per call / defaults). */
sg_status sg_hier_log_evidence (const sg_hier_model *model, const sg_hier_data *hd,
                                sg_mvn_workspace *w, const sg_mvn_options *opt,
                                sg_skewgp_evidence *res);

/* ---- Fitting the hyperparameters on the exact evidence ---------------- */

enum {
  SG_HIER_FIT_POP      = 1u << 0,  /* k_pop variance and lengthscales (log) */
  SG_HIER_FIT_IND      = 1u << 1,  /* k_ind variance and lengthscales (log) */
  SG_HIER_FIT_NOISE    = 1u << 2,  /* probit sds (log): each person's when
                                      model.probit_sd is set, else the shared
                                      one                                   */
  SG_HIER_FIT_MEAN     = 1u << 3,  /* the constant mean (linear; only
                                      numeric answers inform it)             */
  SG_HIER_FIT_ALL      = 0xf,
};

/* Which parameters are free, and their boxes (natural units). */
typedef struct {
  unsigned free;
  sg_fit_range variance, lengthscale[SG_HIER_MAX_DIM];
  sg_fit_range ind_variance, ind_lengthscale[SG_HIER_MAX_DIM];
  sg_fit_range probit_sd;   /* every person's sd in the same box           */
  sg_fit_range mean;
} sg_hier_fit_spec;

/* The boxes of sg_fit_spec_default (lengthscales from the range of the
 * settings, variances [1e-2, 1e3] sy^2, probit sd [1e-2, 1e2]) for both
 * parts; FREE = SG_HIER_FIT_POP | SG_HIER_FIT_IND by default (pass 0 for
 * that). A part whose variance is 0 in the model stays 0 (it is not
 * free). */
sg_status sg_hier_fit_spec_default (sg_hier_fit_spec *spec, unsigned free,
                                    const sg_hier_data *hd);

/* Maximises the exact log evidence over the free parameters of SPEC (NULL:
 * sg_hier_fit_spec_default with free = 0) with sg_fit_box (deterministic
 * QMC with a kept variable order: see sg-fit.h). MODEL holds the start
 * and the fixed values and receives the best ones (its probit_sd array
 * too); untouched on failure. Statuses as sg_fit. */
sg_status sg_hier_fit (const sg_hier_fit_spec *spec, sg_hier_model *model,
                       const sg_hier_data *hd, const sg_fit_options *opt,
                       gsl_rng *rng, const sg_progress *progress,
                       sg_fit_result *res);

/* ---- Posterior questions ---------------------------------------------- */

/* P(person p's best differs from the population's), from the joint
 * posterior samples of (g, f_p) at the C candidate settings CAND (c x d;
 * a grid or any candidate set): for each of the N stored samples of t, one
 * joint draw of g(CAND) and f_p(CAND) (sg_skewgp_joint_samples, 2 c
 * points, the Gaussian remainder from RNG); the sample's best settings
 * are the candidates maximising g and f_p; they differ when their
 * Euclidean distance exceeds TOLERANCE (0: different candidates). *PROB
 * is the fraction of samples where they differ, *SE (may be NULL) its
 * binomial standard error sqrt(p (1 - p) / ESS) with the chains'
 * effective sample size (sg_skewgp_samples_ess). Candidates closer than
 * the posterior can tell apart make the probability large: pass a
 * TOLERANCE at the resolution that matters to the study. Cost O(c^3 + c N)
 * (keep c to a few hundred). */
sg_status sg_hier_prob_best_differs (const sg_skewgp_posterior *post,
                                     const sg_skewgp_samples *samples,
                                     const double *cand, size_t c, size_t person,
                                     double tolerance, gsl_rng *rng,
                                     double *prob, double *se);

/* The candidate (of C, c x d) with the largest posterior mean of f_p
 * (PERSON) or of g (SG_HIER_POPULATION): its index into *BEST, and the
 * mean there into *MEAN (may be NULL). The recommendation of a study. */
sg_status sg_hier_best_mean (const sg_skewgp_posterior *post,
                             const sg_skewgp_samples *samples,
                             const double *cand, size_t c, size_t person,
                             size_t *best, double *mean);

/* ---- Questions for one participant ------------------------------------ */

typedef struct {
  double lower[SG_HIER_MAX_DIM], upper[SG_HIER_MAX_DIM];  /* the box   */
  sg_bo_acquisition acquisition;   /* UCB (default), EIIG, EPI or THOMPSON on
                                      h = f_p(x) - f_p(x_r) (sg-acq.h)      */
  double ucb_level;                /* default 0.95                          */
  double eiig_k;                   /* default 0.1                           */
  size_t n_samples;                /* posterior samples (default 500)       */
  int independent;                 /* nonzero: PERSON's answers only (the
                                      separate-models comparison)           */
  const sg_svgp_pseudo *population; /* non-NULL: the others' answers enter
                                      through this summary of g
                                      (sg_hier_population_pseudo) and only PERSON's answers of
                                      HD are conditioned on exactly; the
                                      candidates include its points         */
  sg_skewgp_sample_options sample; /* the sampler (sg_skewgp defaults)      */
  sg_acq_max_options search;       /* the box search (sg_acq defaults)      */
} sg_hier_propose_options;

/* Defaults for a box of DIM coordinates, all [0, 1] (set lower/upper). */
void sg_hier_propose_options_default (sg_hier_propose_options *opt, size_t dim);

typedef struct {
  double x[SG_HIER_MAX_DIM];      /* the challenger x                     */
  double x_ref[SG_HIER_MAX_DIM];  /* the incumbent x_r of this person     */
  double value;                     /* the acquisition at x                 */
  int has_ref;                      /* 0: no data yet; x_ref is random too   */
} sg_hier_question;

/* A duel "x or x_r?" for PERSON from the model that has seen everyone
 * (or, with OPT->independent, only PERSON's answers): x_r is PERSON's
 * answered setting with the largest posterior mean of f_p (with no
 * answers of their own: the answered setting, anyone's, where f_p's mean
 * is largest, i.e. the population's best guess); x maximises the
 * acquisition of f_p(x) - f_p(x_r) over the box (sg_acq_maximize_batched,
 * with the answered settings among the candidates, common random numbers
 * so it is a deterministic function of x), never x_r itself. With no data
 * at all (or none of the person's under independent) both points are
 * uniform in the box from RNG. Deterministic given RNG's state. */
sg_status sg_hier_propose_duel (const sg_hier_model *model, const sg_hier_data *hd,
                                size_t person, const sg_hier_propose_options *opt,
                                gsl_rng *rng, const sg_progress *progress,
                                sg_hier_question *q);
