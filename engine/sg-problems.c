/* sg-problems.c — benchmark objectives and simulated oracles (see header). */
#include "sg-problems.h"

#include "sg-kernel.h"
#include "sg-linalg.h"
#include "sg-rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double (*objective_fn) (const sg_problem *p, const double *x);

typedef struct {
  const char *name;
  const char *description;
  size_t dim;
  double lower[SG_PROBLEM_MAX_DIM], upper[SG_PROBLEM_MAX_DIM];
  objective_fn value;
  double optimum;            /* max value (NaN: computed at creation)     */
  double optimizer[SG_PROBLEM_MAX_DIM];
  /* Safe problems: SAFE = 1, the threshold and a safe start (GP_DRAW:
   * both fixed by the draw, h = 0 and x = 0). */
  int safe;
  int gp_draw;               /* safe-gp1d: the objective is a random draw */
  double threshold;
  double safe_start[SG_PROBLEM_MAX_DIM];
  /* What each coordinate is (SG_DIM_LINEAR unless said) and its
   * measurement resolution (0: none given). */
  sg_dim_kind kind[SG_PROBLEM_MAX_DIM];
  double resolution[SG_PROBLEM_MAX_DIM];
} problem_spec;

struct sg_problem {
  const problem_spec *spec;
  double lower[SG_PROBLEM_MAX_DIM], upper[SG_PROBLEM_MAX_DIM];
  double optimum;
  double optimizer[SG_PROBLEM_MAX_DIM];
  double threshold;
  double safe_start[SG_PROBLEM_MAX_DIM];
  double safe_optimum;       /* max g over the safe region of the start  */
  /* safe-gp1d: g(x) = k(x, grid) alpha, the GP mean through the draw */
  sg_kernel kernel;
  double *grid;    /* SG_SAFE_GP_GRID points */
  double *alpha;   /* SG_SAFE_GP_GRID weights */
};

/* ---- The objectives, already in the maximisation convention ------------ */

static double
cos1d (const sg_problem *p, const double *x)
{
  (void) p;
  return cos (5 * x[0]) + exp (-0.5 * x[0] * x[0]);
}

static double
six_hump_camel (const sg_problem *p, const double *x)
{
  (void) p;
  double x1 = x[0], x2 = x[1], a = x1 * x1, b = x2 * x2;
  return -((4 - 2.1 * a + a * a / 3) * a + x1 * x2 + (-4 + 4 * b) * b);
}

static double
langermann (const sg_problem *p, const double *x)
{
  (void) p;
  static const double A[5][2] = { { 3, 5 }, { 5, 2 }, { 2, 1 }, { 1, 4 }, { 7, 9 } };
  static const double c[5] = { 1, 2, 5, 2, 3 };
  double s = 0;
  for (int i = 0; i < 5; i++)
    {
      double d = (x[0] - A[i][0]) * (x[0] - A[i][0]) + (x[1] - A[i][1]) * (x[1] - A[i][1]);
      s += c[i] * exp (-d / M_PI) * cos (M_PI * d);
    }
  return -s;
}

static double
colville (const sg_problem *p, const double *x)
{
  (void) p;
  double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3];
  double f = 100 * (x1 * x1 - x2) * (x1 * x1 - x2) + (x1 - 1) * (x1 - 1)
             + (x3 - 1) * (x3 - 1) + 90 * (x3 * x3 - x4) * (x3 * x3 - x4)
             + 10.1 * ((x2 - 1) * (x2 - 1) + (x4 - 1) * (x4 - 1))
             + 19.8 * (x2 - 1) * (x4 - 1);
  return -f;
}

static double
rosenbrock5 (const sg_problem *p, const double *x)
{
  (void) p;
  double f = 0;
  for (int i = 0; i < 4; i++)
    f += 100 * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i])
         + (1 - x[i]) * (1 - x[i]);
  return -f;
}

static double
hartmann6 (const sg_problem *p, const double *x)
{
  (void) p;
  static const double alpha[4] = { 1.0, 1.2, 3.0, 3.2 };
  static const double A[4][6] = { { 10, 3, 17, 3.5, 1.7, 8 },
                                  { 0.05, 10, 17, 0.1, 8, 14 },
                                  { 3, 3.5, 1.7, 10, 17, 8 },
                                  { 17, 8, 0.05, 10, 0.1, 14 } };
  static const double P[4][6] = { { 1312, 1696, 5569, 124, 8283, 5886 },
                                  { 2329, 4135, 8307, 3736, 1004, 9991 },
                                  { 2348, 1451, 3522, 2883, 3047, 6650 },
                                  { 4047, 8828, 8732, 5743, 1091, 381 } };
  double s = 0;
  for (int i = 0; i < 4; i++)
    {
      double e = 0;
      for (int j = 0; j < 6; j++)
        e += A[i][j] * (x[j] - 1e-4 * P[i][j]) * (x[j] - 1e-4 * P[i][j]);
      s += alpha[i] * exp (-e);
    }
  return s;
}

/* The Hartmann family's weights and the 6-D constants (the 4-D function
 * uses the first four columns). */
static const double hartmann_alpha[4] = { 1.0, 1.2, 3.0, 3.2 };
static const double hartmann_A6[4][6] = { { 10, 3, 17, 3.5, 1.7, 8 },
                                          { 0.05, 10, 17, 0.1, 8, 14 },
                                          { 3, 3.5, 1.7, 10, 17, 8 },
                                          { 17, 8, 0.05, 10, 0.1, 14 } };
static const double hartmann_P6[4][6] = { { 1312, 1696, 5569, 124, 8283, 5886 },
                                          { 2329, 4135, 8307, 3736, 1004, 9991 },
                                          { 2348, 1451, 3522, 2883, 3047, 6650 },
                                          { 4047, 8828, 8732, 5743, 1091, 381 } };

/* sum_i alpha_i exp(-sum_{j<d} A_ij (x_j - P_ij)^2) with the 6-D constants */
static double
hartmann_sum (const double *x, size_t d)
{
  double s = 0;
  for (int i = 0; i < 4; i++)
    {
      double e = 0;
      for (size_t j = 0; j < d; j++)
        e += hartmann_A6[i][j] * (x[j] - 1e-4 * hartmann_P6[i][j])
             * (x[j] - 1e-4 * hartmann_P6[i][j]);
      s += hartmann_alpha[i] * exp (-e);
    }
  return s;
}

static double
hartmann3 (const sg_problem *p, const double *x)
{
  (void) p;
  static const double A[4][3] = { { 3, 10, 30 }, { 0.1, 10, 35 }, { 3, 10, 30 }, { 0.1, 10, 35 } };
  static const double P[4][3] = { { 3689, 1170, 2673 }, { 4699, 4387, 7470 },
                                  { 1091, 8732, 5547 }, { 381, 5743, 8828 } };
  double s = 0;
  for (int i = 0; i < 4; i++)
    {
      double e = 0;
      for (int j = 0; j < 3; j++)
        e += A[i][j] * (x[j] - 1e-4 * P[i][j]) * (x[j] - 1e-4 * P[i][j]);
      s += hartmann_alpha[i] * exp (-e);
    }
  return s;
}

static double
hartmann4 (const sg_problem *p, const double *x)
{
  (void) p;
  return (hartmann_sum (x, 4) - 1.1) / 0.839;
}

static double
branin (const sg_problem *p, const double *x)
{
  (void) p;
  double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
  double u = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return -(u * u + 10 * (1 - t) * cos (x[0]) + 10);
}

static double
ackley (const sg_problem *p, const double *x)
{
  size_t d = p->spec->dim;
  double s2 = 0, sc = 0;
  for (size_t j = 0; j < d; j++)
    {
      s2 += x[j] * x[j];
      sc += cos (2 * M_PI * x[j]);
    }
  return 20 * exp (-0.2 * sqrt (s2 / (double) d)) + exp (sc / (double) d) - 20 - M_E;
}

static double
bukin6 (const sg_problem *p, const double *x)
{
  (void) p;
  return -(100 * sqrt (fabs (x[1] - 0.01 * x[0] * x[0])) + 0.01 * fabs (x[0] + 10));
}

static double
cross_in_tray (const sg_problem *p, const double *x)
{
  (void) p;
  double r = sqrt (x[0] * x[0] + x[1] * x[1]);
  return 1e-4 * pow (fabs (sin (x[0]) * sin (x[1]) * exp (fabs (100 - r / M_PI))) + 1, 0.1);
}

static double
eggholder (const sg_problem *p, const double *x)
{
  (void) p;
  return (x[1] + 47) * sin (sqrt (fabs (x[1] + x[0] / 2 + 47)))
         + x[0] * sin (sqrt (fabs (x[0] - (x[1] + 47))));
}

static double
holder_table (const sg_problem *p, const double *x)
{
  (void) p;
  double r = sqrt (x[0] * x[0] + x[1] * x[1]);
  return fabs (sin (x[0]) * cos (x[1]) * exp (fabs (1 - r / M_PI)));
}

/* Levy (d = 4): w_i = 1 + (x_i - 1) / 4. */
static double
levy (const sg_problem *p, const double *x)
{
  size_t d = p->spec->dim;
  double w[SG_PROBLEM_MAX_DIM] = { 0 };
  for (size_t j = 0; j < d; j++)
    w[j] = 1 + (x[j] - 1) / 4;
  double s = sin (M_PI * w[0]) * sin (M_PI * w[0]);
  for (size_t j = 0; j + 1 < d; j++)
    {
      double v = sin (M_PI * w[j] + 1);
      s += (w[j] - 1) * (w[j] - 1) * (1 + 10 * v * v);
    }
  double l = sin (2 * M_PI * w[d - 1]);
  return -(s + (w[d - 1] - 1) * (w[d - 1] - 1) * (1 + l * l));
}

/* Levy as Takeno et al. 2023's code computes it (their test_functions.py,
 * d = 4): the first and last terms only, sin^2(pi w_1) + (w_d - 1)^2
 * sin^2(2 pi w_d); the middle sum is computed there but never added, and
 * the last term lacks the standard "1 +". Only x_1 and x_4 matter; the
 * maximum 0 is reached wherever w_1 is whole and w_4 is 1 or a half
 * integer. For reproducing their Levy panel; levy4 is the standard one. */
static double
levy_takeno (const sg_problem *p, const double *x)
{
  size_t d = p->spec->dim;
  double w1 = 1 + (x[0] - 1) / 4, wd = 1 + (x[d - 1] - 1) / 4;
  double a = sin (M_PI * w1), b = sin (2 * M_PI * wd);
  return -(a * a + (wd - 1) * (wd - 1) * b * b);
}

static double
levy13 (const sg_problem *p, const double *x)
{
  (void) p;
  double a = sin (3 * M_PI * x[0]), b = sin (3 * M_PI * x[1]), c = sin (2 * M_PI * x[1]);
  return -(a * a + (x[0] - 1) * (x[0] - 1) * (1 + b * b) + (x[1] - 1) * (x[1] - 1) * (1 + c * c));
}

static double
alpine1 (const sg_problem *p, const double *x)
{
  double s = 0;
  for (size_t j = 0; j < p->spec->dim; j++)
    s += fabs (x[j] * sin (x[j]) + 0.1 * x[j]);
  return -s;
}

static double
safe_gp (const sg_problem *p, const double *x)
{
  double s = 0;
  for (size_t i = 0; i < SG_SAFE_GP_GRID; i++)
    s += sg_kernel_eval (&p->kernel, x, p->grid + i) * p->alpha[i];
  return s;
}

/* The engineer's machine (see the header): a tilted Gaussian bump of 100
 * over ln(gain), taps and temperature. */
static double
machine3 (const sg_problem *p, const double *x)
{
  (void) p;
  double a = (x[0] - 0.9) / 1.6, b = (x[1] - 5) / 3.0, c = (x[2] - 220) / 22.0;
  return 100 * exp (-0.5 * (a * a + b * b + c * c + 0.6 * a * c));
}

static const problem_spec problems[] = {
  { "cos1d", "cos(5x) + exp(-x^2/2) on [-2.6, 2.6] (1-D)", 1, { -2.6 }, { 2.6 },
    cos1d, 2.0, { 0 }, 0 },
  { "six-hump-camel", "negated Six-hump camel on [-2,2]x[-1,1] (2-D)", 2, { -2, -1 }, { 2, 1 },
    six_hump_camel, 1.0316284534898774, { 0.08984201, -0.71265641 }, 0 },
  { "langermann", "negated Langermann (m = 5) on [0,10]^2 (2-D)", 2, { 0, 0 }, { 10, 10 },
    langermann, 4.1558092918477865, { 2.79340221, 1.5972325 }, 0 },
  { "colville", "negated Colville on [-10,10]^4 (4-D)", 4, { -10, -10, -10, -10 }, { 10, 10, 10, 10 },
    colville, 0.0, { 1, 1, 1, 1 }, 0 },
  { "rosenbrock5", "negated Rosenbrock on [-3,3]^5 (5-D)", 5, { -3, -3, -3, -3, -3 }, { 3, 3, 3, 3, 3 },
    rosenbrock5, 0.0, { 1, 1, 1, 1, 1 }, 0 },
  { "hartmann6", "Hartmann-6 (negated minimisation form) on [0,1]^6 (6-D)", 6, { 0, 0, 0, 0, 0, 0 }, { 1, 1, 1, 1, 1, 1 },
    hartmann6, 3.3223680114155143,
    { 0.20168951, 0.1500107, 0.47687397, 0.27533243, 0.31165162, 0.65730054 }, 0 },
  /* Takeno et al. 2023's set (their code's domains and dimensions). */
  { "branin", "negated Branin on [-5,10]x[0,15] (2-D)", 2, { -5, 0 }, { 10, 15 },
    branin, -0.39788735772973816, { -M_PI, 12.275 }, 0 },
  { "ackley4", "negated Ackley on [-32.768,32.768]^4 (4-D)", 4,
    { -32.768, -32.768, -32.768, -32.768 }, { 32.768, 32.768, 32.768, 32.768 },
    ackley, 0.0, { 0, 0, 0, 0 }, 0 },
  { "bukin6", "negated Bukin N.6 on [-15,-5]x[-3,3] (2-D)", 2, { -15, -3 }, { -5, 3 },
    bukin6, 0.0, { -10, 1 }, 0 },
  { "cross-in-tray", "negated Cross-in-tray on [-10,10]^2 (2-D)", 2, { -10, -10 }, { 10, 10 },
    cross_in_tray, 2.0626118708227392, { 1.3494066687230084, 1.3494066635598947 }, 0 },
  { "eggholder", "negated Eggholder on [-512,512]^2 (2-D)", 2, { -512, -512 }, { 512, 512 },
    eggholder, 959.6406627208509, { 512, 404.23180499385165 }, 0 },
  { "holder-table", "negated Holder table on [-10,10]^2 (2-D)", 2, { -10, -10 }, { 10, 10 },
    holder_table, 19.20850256788675, { 8.055023461896713, 9.664590027570506 }, 0 },
  { "levy4", "negated Levy on [-10,10]^4 (4-D)", 4, { -10, -10, -10, -10 }, { 10, 10, 10, 10 },
    levy, 0.0, { 1, 1, 1, 1 }, 0 },
  { "levy13", "negated Levy N.13 on [-10,10]^2 (2-D)", 2, { -10, -10 }, { 10, 10 },
    levy13, 0.0, { 1, 1 }, 0 },
  { "levy4-takeno", "negated Levy as Takeno et al.'s code has it (first and last terms only) "
    "on [-10,10]^4 (4-D)", 4, { -10, -10, -10, -10 }, { 10, 10, 10, 10 },
    levy_takeno, 0.0, { 1, 1, 1, 1 }, 0 },
  { "hartmann3", "Hartmann-3 (negated minimisation form) on [0,1]^3 (3-D)", 3, { 0, 0, 0 },
    { 1, 1, 1 }, hartmann3, 3.862779787332663,
    { 0.11458889702441237, 0.5556488967529246, 0.8525469840241771 }, 0 },
  { "hartmann4", "Hartmann-4 ((sum - 1.1) / 0.839, Picheny et al. 2013) on [0,1]^4 (4-D)", 4,
    { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, hartmann4, 3.1344941412223988,
    { 0.18739527253812469, 0.19415152680651854, 0.557917775744383, 0.2647796209499559 }, 0 },
  /* Astudillo et al. 2023 (qEUBO): Ackley-6 on [-2,2]^6, Alpine1-7. */
  { "ackley6", "negated Ackley on [-2,2]^6 (6-D)", 6, { -2, -2, -2, -2, -2, -2 },
    { 2, 2, 2, 2, 2, 2 }, ackley, 0.0, { 0, 0, 0, 0, 0, 0 }, 0 },
  { "alpine1-7", "negated Alpine N.1, sum |x sin x + 0.1 x|, on [-10,10]^7 (7-D)", 7,
    { -10, -10, -10, -10, -10, -10, -10 }, { 10, 10, 10, 10, 10, 10, 10 },
    alpine1, 0.0, { 0, 0, 0, 0, 0, 0, 0 }, 0 },
  { "safe-gp1d", "random GP draw (variance 2, lengthscale U[1,2], g(0) >= 0) "
    "on [-10,10], threshold 0, safe start 0; the seed picks it (1-D, safe)",
    1, { -10 }, { 10 }, safe_gp, NAN, { 0 }, .safe = 1, .gp_draw = 1 },
  /* Safe versions of the benchmarks above: each threshold leaves one
   * connected safe region that holds the start and the maximiser. */
  { "safe-branin", "negated Branin on [-5,10]x[0,15], threshold -20, safe start (2, 6) "
    "(2-D, safe)", 2, { -5, 0 }, { 10, 15 }, branin, -0.39788735772973816, { -M_PI, 12.275 },
    .safe = 1, .threshold = -20, .safe_start = { 2, 6 } },
  { "safe-hartmann3", "Hartmann-3 on [0,1]^3, threshold 1, safe start (0.3, 0.5, 0.6) "
    "(3-D, safe)", 3, { 0, 0, 0 }, { 1, 1, 1 }, hartmann3, 3.862779787332663,
    { 0.11458889702441237, 0.5556488967529246, 0.8525469840241771 },
    .safe = 1, .threshold = 1, .safe_start = { 0.3, 0.5, 0.6 } },
  { "safe-hartmann4", "Hartmann-4 on [0,1]^4, threshold 0.5, safe start (0.5, 0.5, 0.5, 0.5) "
    "(4-D, safe)", 4, { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, hartmann4, 3.1344941412223988,
    { 0.18739527253812469, 0.19415152680651854, 0.557917775744383, 0.2647796209499559 },
    .safe = 1, .threshold = 0.5, .safe_start = { 0.5, 0.5, 0.5, 0.5 } },
  { "safe-machine", "a machine: 100 exp(-q/2) over ln(gain) in [ln 0.01, ln 100], integer "
    "taps 1..9, temperature 180..260 (resolution 2), threshold 50, safe start (ln 1, 3, 210) "
    "(3-D mixed kinds, safe)", 3, { -4.605170185988091, 1, 180 },
    { 4.605170185988092, 9, 260 }, machine3, 100.0, { 0.9, 5, 220 },
    .safe = 1, .threshold = 50, .safe_start = { 0, 3, 210 },
    .kind = { SG_DIM_LINEAR, SG_DIM_INTEGER, SG_DIM_LINEAR }, .resolution = { 0, 0, 2 } },
};

#define N_PROBLEMS (sizeof problems / sizeof problems[0])

size_t
sg_problem_count (void)
{
  return N_PROBLEMS;
}

const char *
sg_problem_name_at (size_t i)
{
  return i < N_PROBLEMS ? problems[i].name : NULL;
}

const char *
sg_problem_description_at (size_t i)
{
  return i < N_PROBLEMS ? problems[i].description : NULL;
}

/* ---- safe-gp1d: one GP draw ---------------------------------------------- */

/* Draws the grid values v ~ N(0, K + nugget I) with K the RBF kernel on the
 * grid, until v at x = 0 (the middle grid point) is >= 0 (rejection as in
 * 001 sec. 5.2.3), and stores alpha = (K + nugget I)^{-1} v = L^{-T} z for
 * v = L z, so g(x) = k(x, grid) alpha interpolates the draw. The nugget
 * (1e-8 of the variance) keeps the interpolation well posed. */
static int
safe_gp_draw (sg_problem *p, uint64_t seed)
{
  const size_t G = SG_SAFE_GP_GRID, mid = G / 2;
  gsl_rng *rng = sg_rng_new (seed, 0x5afe);
  p->grid = malloc (G * sizeof *p->grid);
  p->alpha = malloc (G * sizeof *p->alpha);
  double *K = malloc (G * G * sizeof *K);
  double *L = malloc (G * G * sizeof *L);
  double *z = malloc (G * sizeof *z);
  int status = (rng && p->grid && p->alpha && K && L && z) ? SG_OK : SG_ENOMEM;
  if (status == SG_OK)
    {
      double lengthscale = 1 + gsl_rng_uniform (rng);
      status = sg_kernel_init (&p->kernel, SG_KERNEL_RBF, 1, 2.0, lengthscale);
    }
  if (status == SG_OK)
    {
      for (size_t i = 0; i < G; i++)
        p->grid[i] = -10 + 20.0 * (double) i / (double) (G - 1);
      sg_kernel_matrix (&p->kernel, p->grid, G, p->grid, G, K);
      for (size_t i = 0; i < G; i++)
        K[i * G + i] += 1e-8 * p->kernel.variance;
      status = sg_cholesky (K, G, 1e-6, L, NULL);
    }
  if (status == SG_OK)
    {
      double v_mid;
      do
        {
          for (size_t i = 0; i < G; i++)
            z[i] = sg_rng_gaussian (rng);
          v_mid = 0; /* row MID of L z */
          for (size_t j = 0; j <= mid; j++)
            v_mid += L[mid * G + j] * z[j];
        }
      while (v_mid < 0);
      memcpy (p->alpha, z, G * sizeof *z);
      sg_trsm_lower_trans (L, G, p->alpha, 1);
    }
  free (K); free (L); free (z);
  sg_rng_free (rng);
  return status;
}

/* The maximum of a 1-D objective: a grid of 4001 points, then golden-section
 * search on the bracket around the best grid point. */
static void
maximise_1d (sg_problem *p)
{
  const int n = 4001;
  double lo = p->lower[0], hi = p->upper[0], h = (hi - lo) / (n - 1);
  double best = -INFINITY, xb = lo;
  for (int i = 0; i < n; i++)
    {
      double x = lo + i * h, v = p->spec->value (p, &x);
      if (v > best)
        best = v, xb = x;
    }
  double a = fmax (lo, xb - h), b = fmin (hi, xb + h);
  const double r = 0.5 * (sqrt (5.0) - 1);
  for (int it = 0; it < 60; it++)
    {
      double c = b - r * (b - a), d = a + r * (b - a);
      if (p->spec->value (p, &c) >= p->spec->value (p, &d))
        b = d;
      else
        a = c;
    }
  double xm = 0.5 * (a + b), vm = p->spec->value (p, &xm);
  if (vm > best)
    best = vm, xb = xm;
  p->optimum = best;
  p->optimizer[0] = xb;
}

/* The largest value of a 1-D safe problem over the safe interval that
 * holds the start: the grid of maximise_1d walked both ways from the
 * start while g >= h (the safe region a safe method can reach). */
static double
safe_region_max_1d (const sg_problem *p)
{
  const int n = 4001;
  double lo = p->lower[0], hi = p->upper[0], h = (hi - lo) / (n - 1);
  int i0 = (int) lround ((p->safe_start[0] - lo) / h);
  double best = p->spec->value (p, p->safe_start);
  for (int dir = -1; dir <= 1; dir += 2)
    for (int i = i0 + dir; i >= 0 && i < n; i += dir)
      {
        double x = lo + i * h, v = p->spec->value (p, &x);
        if (v < p->threshold)
          break;
        best = fmax (best, v);
      }
  /* the global maximiser, when it lies in that interval, is exact */
  if (p->optimum - best < 1e-6 * fmax (1, fabs (p->optimum)))
    best = p->optimum;
  return best;
}

sg_status
sg_problem_new (const char *name, uint64_t seed, sg_problem **out)
{
  if (name == NULL || out == NULL)
    return SG_EINVAL;
  const problem_spec *spec = NULL;
  for (size_t i = 0; i < N_PROBLEMS; i++)
    if (strcmp (problems[i].name, name) == 0)
      spec = &problems[i];
  if (spec == NULL)
    return SG_EINVAL;
  sg_problem *p = calloc (1, sizeof *p);
  if (p == NULL)
    return SG_ENOMEM;
  p->spec = spec;
  for (size_t j = 0; j < spec->dim; j++)
    {
      p->lower[j] = spec->lower[j];
      p->upper[j] = spec->upper[j];
      p->optimizer[j] = spec->optimizer[j];
    }
  p->optimum = spec->optimum;
  p->threshold = spec->safe ? spec->threshold : NAN;
  memcpy (p->safe_start, spec->safe_start, sizeof p->safe_start);
  p->safe_optimum = spec->safe ? spec->optimum : NAN;
  if (spec->gp_draw)
    {
      int status = safe_gp_draw (p, seed);
      if (status != SG_OK)
        {
          sg_problem_free (p);
          return status;
        }
      maximise_1d (p);
      p->safe_optimum = safe_region_max_1d (p);
    }
  *out = p;
  return SG_OK;
}

void
sg_problem_free (sg_problem *p)
{
  if (p == NULL)
    return;
  free (p->grid);
  free (p->alpha);
  sg_kernel_clear (&p->kernel);
  free (p);
}

const char *sg_problem_name (const sg_problem *p) { return p->spec->name; }
size_t sg_problem_dim (const sg_problem *p) { return p->spec->dim; }
const double *sg_problem_lower (const sg_problem *p) { return p->lower; }
const double *sg_problem_upper (const sg_problem *p) { return p->upper; }
double sg_problem_optimum (const sg_problem *p) { return p->optimum; }
const double *sg_problem_optimizer (const sg_problem *p) { return p->optimizer; }
double sg_problem_threshold (const sg_problem *p) { return p->threshold; }
double sg_problem_safe_optimum (const sg_problem *p) { return p->safe_optimum; }

sg_dim_kind
sg_problem_kind (const sg_problem *p, size_t j)
{
  return j < p->spec->dim ? p->spec->kind[j] : SG_DIM_LINEAR;
}

double
sg_problem_resolution (const sg_problem *p, size_t j)
{
  return j < p->spec->dim ? p->spec->resolution[j] : 0;
}

const double *
sg_problem_safe_start (const sg_problem *p)
{
  return p->spec->safe ? p->safe_start : NULL;
}

double
sg_problem_value (const sg_problem *p, const double *x)
{
  return p->spec->value (p, x);
}

int
sg_problem_is_valid (const sg_problem *p, const double *x)
{
  return !p->spec->safe || sg_problem_value (p, x) >= p->threshold;
}

/* ---- Oracles -------------------------------------------------------------- */

void
sg_oracle_init (sg_oracle *o, const sg_problem *p)
{
  o->problem = p;
  o->preference_sd = 0;
  o->measurement_sd = 0;
  o->threshold = NAN;
  o->has_threshold = 0;
}

sg_status
sg_oracle_duel (const sg_oracle *o, gsl_rng *rng, const double *xa,
                const double *xb, int *a_wins)
{
  if (o == NULL || o->problem == NULL || xa == NULL || xb == NULL || a_wins == NULL
      || !(o->preference_sd >= 0) || (o->preference_sd > 0 && rng == NULL))
    return SG_EINVAL;
  double ga = sg_problem_value (o->problem, xa);
  double gb = sg_problem_value (o->problem, xb);
  if (o->preference_sd > 0)
    {
      ga += o->preference_sd * sg_rng_gaussian (rng);
      gb += o->preference_sd * sg_rng_gaussian (rng);
    }
  *a_wins = ga >= gb;
  return SG_OK;
}

sg_status
sg_oracle_measure (const sg_oracle *o, gsl_rng *rng, const double *x,
                   double *y, int *valid)
{
  if (o == NULL || o->problem == NULL || x == NULL || y == NULL || valid == NULL
      || !(o->measurement_sd >= 0) || (o->measurement_sd > 0 && rng == NULL))
    return SG_EINVAL;
  double v = sg_problem_value (o->problem, x);
  double h = o->has_threshold ? o->threshold : sg_problem_threshold (o->problem);
  if (!isnan (h) && v < h)
    {
      *valid = 0;
      *y = NAN;
      return SG_OK;
    }
  if (o->measurement_sd > 0)
    v += o->measurement_sd * sg_rng_gaussian (rng);
  *valid = 1;
  *y = v;
  return SG_OK;
}
