/* sg-problems.h — benchmark objectives and simulated oracles for the BO
 * loops (docs/DESIGN.md §3.10, paper 001 section 5.2).
 *
 * Every problem is reported in the MAXIMISATION convention: the classic
 * minimisation benchmarks (Six-hump camel, Langermann, Colville,
 * Rosenbrock, Hartmann) are negated, so "higher is better" everywhere and
 * sg_problem_value of the optimiser equals sg_problem_optimum.
 *
 *   cos1d           g(x) = cos(5x) + exp(-x^2/2) on [-2.6, 2.6] (001 sec.
 *                   5.2.1), maximised as written: max 2 at x = 0. (The
 *                   paper calls all six benchmarks minimisation problems,
 *                   but this one is stated as the objective g itself; it
 *                   is kept as written, a global maximum between local
 *                   ones, which is what the 1-D plots of the paper show.)
 *   six-hump-camel  -[(4 - 2.1 x1^2 + x1^4/3) x1^2 + x1 x2 + (-4 + 4 x2^2) x2^2]
 *                   on [-2,2]x[-1,1]; max 1.0316284535 at (+-0.0898, -+0.7127).
 *   langermann      -sum_i c_i exp(-d_i / pi) cos(pi d_i), d_i = |x - A_i|^2,
 *                   m = 5, c = (1,2,5,2,3), A = ((3,5),(5,2),(2,1),(1,4),(7,9))
 *                   on [0,10]^2; max 4.1558092918 at (2.7934, 1.5972)
 *                   (located with scipy Nelder-Mead from a 251^2 grid).
 *   colville        -[100(x1^2-x2)^2 + (x1-1)^2 + (x3-1)^2 + 90(x3^2-x4)^2
 *                     + 10.1((x2-1)^2 + (x4-1)^2) + 19.8(x2-1)(x4-1)]
 *                   on [-10,10]^4; max 0 at (1,1,1,1).
 *   rosenbrock5     -sum_{i<5} [100(x_{i+1} - x_i^2)^2 + (1 - x_i)^2]
 *                   on [-3,3]^5; max 0 at (1,...,1).
 *   hartmann6       sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)^2) on
 *                   [0,1]^6 (the standard constants); max 3.3223680114.
 *   The preferential-BO benchmarks of Takeno et al. (ICML 2023; the
 *   domains and dimensions of their code, formulas of the Virtual Library
 *   of Simulation Experiments, Surjanovic & Bingham), all negated
 *   minimisation problems: branin, ackley4 ([-32.768, 32.768]^4), bukin6,
 *   cross-in-tray, eggholder ([-512, 512]^2), holder-table, levy4
 *   ([-10, 10]^4), levy13, hartmann3, hartmann4 (the rescaled (sum - 1.1)
 *   / 0.839 form, max 3.13449414; the often quoted 3.135474 is not
 *   attained by that formula), with langermann and hartmann6 above; and
 *   qEUBO's (Astudillo et al., AISTATS 2023): ackley6 on [-2, 2]^6 and
 *   alpine1-7 (-sum |x_i sin x_i + 0.1 x_i| on [-10, 10]^7), with hartmann6.
 *   Optima: at the known optimisers, refined with scipy (L-BFGS-B /
 *   bounded Brent) to the digits given.
 *   safe-gp1d       a random draw g ~ GP(0, k), RBF with variance 2 and
 *                   lengthscale ~ U[1, 2], redrawn until g(0) >= 0
 *                   (001 sec. 5.2.3); threshold h = 0, safe start x = 0.
 *                   Domain [-10, 10] (the SafeOpt 1-D example the paper's
 *                   experiment follows). The draw is exact on a grid of
 *                   SG_SAFE_GP_GRID points and interpolated between them by
 *                   the GP posterior mean given those values; the SEED of
 *                   sg_problem_new picks the function. Its optimum is the
 *                   largest value over a dense grid refined locally; its
 *                   safe optimum the largest over the safe interval
 *                   around 0 (the grid walked from 0 while g >= 0).
 *   Safe versions with a fixed threshold and safe start (each threshold
 *   leaves one connected safe region holding the start and the global
 *   maximiser, so the safe optimum is the optimum; checked on grids of
 *   301^2, 61^3 and 31^4 points by tests/test-problems.c's flood fill):
 *   safe-branin     branin, h = -20 (33 % of the box safe), start (2, 6)
 *                   (g = -13.1).
 *   safe-hartmann3  hartmann3, h = 1 (33 %), start (0.3, 0.5, 0.6)
 *                   (g = 1.36).
 *   safe-hartmann4  hartmann4, h = 0.5 (28 %), start (0.5, 0.5, 0.5, 0.5)
 *                   (g = 1.08).
 *   safe-machine    an engineer's machine with parameters of three kinds:
 *                   g = 100 exp(-q/2), q = a^2 + b^2 + c^2 + 0.6 a c with
 *                   a = (u - 0.9) / 1.6, b = (taps - 5) / 3,
 *                   c = (temperature - 220) / 22, where u = ln(gain) is
 *                   the first coordinate (the model coordinate of a gain
 *                   on a log scale 0.01 .. 100: the box is
 *                   [ln 0.01, ln 100]), taps an integer 1 .. 9
 *                   (sg_problem_kind) and the temperature 180 .. 260 with
 *                   a resolution of 2 (sg_problem_resolution); h = 50
 *                   (11 % safe), start gain 1, 3 taps, 210 (g = 57.1);
 *                   max 100 at gain e^0.9 = 2.46, 5 taps, 220.
 */
#pragma once

#include "sg-common.h"
#include "sg-kernel.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>

#define SG_PROBLEM_MAX_DIM 8
#define SG_SAFE_GP_GRID 201

typedef struct sg_problem sg_problem;

/* The registry of names, in a stable order. */
size_t sg_problem_count (void);
const char *sg_problem_name_at (size_t i);
const char *sg_problem_description_at (size_t i);

/* Creates problem NAME; SEED matters only for random families
 * (safe-gp1d). SG_EINVAL for an unknown name, SG_ENOMEM, SG_ENOTPD if the
 * random draw cannot be factorised (should not happen). */
sg_status sg_problem_new (const char *name, uint64_t seed, sg_problem **out);
void sg_problem_free (sg_problem *p);

const char *sg_problem_name (const sg_problem *p);
size_t sg_problem_dim (const sg_problem *p);
const double *sg_problem_lower (const sg_problem *p);
const double *sg_problem_upper (const sg_problem *p);
/* The objective in the maximisation convention. X is dim values. */
double sg_problem_value (const sg_problem *p, const double *x);
/* max g over the box and one maximiser (dim values, borrowed). */
double sg_problem_optimum (const sg_problem *p);
const double *sg_problem_optimizer (const sg_problem *p);
/* Safe problems: threshold h (valid iff g(x) >= h) and a known safe start
 * point. Others: NaN and NULL. */
double sg_problem_threshold (const sg_problem *p);
const double *sg_problem_safe_start (const sg_problem *p);
/* The largest g over the connected safe region that holds the safe start
 * (what a safe method can reach; NaN for problems without a threshold). */
double sg_problem_safe_optimum (const sg_problem *p);
/* What coordinate J is (SG_DIM_LINEAR, or SG_DIM_INTEGER for whole
 * numbers) and its measurement resolution (0: none). */
sg_dim_kind sg_problem_kind (const sg_problem *p, size_t j);
double sg_problem_resolution (const sg_problem *p, size_t j);
/* 1 if g(x) >= h (always 1 for problems without a threshold). */
int sg_problem_is_valid (const sg_problem *p, const double *x);

/* ---- Simulated oracles --------------------------------------------------
 * A person answering duels and measuring values, simulated from the true
 * objective. Duel with preference noise sd s_p: A wins iff
 *   g(a) + s_p e_a >= g(b) + s_p e_b,  e ~ N(0, 1)
 * (a Thurstone judge, P(A wins) = Phi((g(a) - g(b)) / (sqrt2 s_p)), the
 * model of sg-data.h); s_p = 0 is an exact judge (ties go to A, as in the
 * reference code's queryf). A measurement is g(x) + s_m e, or "invalid"
 * (no value) when the true g(x) < h for the oracle's threshold h (any
 * problem can be run as a safe problem by giving the oracle a threshold). */
typedef struct {
  const sg_problem *problem;  /* borrowed */
  double preference_sd;       /* s_p >= 0 */
  double measurement_sd;      /* s_m >= 0 */
  double threshold;           /* h: "invalid" when g(x) < h (NaN: never)  */
  int has_threshold;          /* 0: use the problem's own threshold
                                 (sg_problem_threshold: NaN, i.e. always
                                 valid, except for safe problems), so a
                                 zero-initialised tail means "as the
                                 problem says"; 1: use THRESHOLD        */
} sg_oracle;

/* An exact oracle for P: no noise, the problem's own threshold. */
void sg_oracle_init (sg_oracle *o, const sg_problem *p);

/* *A_WINS = 1 when A is preferred. RNG may be NULL when preference_sd = 0. */
sg_status sg_oracle_duel (const sg_oracle *o, gsl_rng *rng, const double *xa,
                          const double *xb, int *a_wins);
/* *VALID = 0 and *Y = NaN for an invalid point, else *VALID = 1 and the
 * measured value. RNG may be NULL when measurement_sd = 0. */
sg_status sg_oracle_measure (const sg_oracle *o, gsl_rng *rng, const double *x,
                             double *y, int *valid);
