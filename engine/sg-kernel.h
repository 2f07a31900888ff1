/* sg-kernel.h — covariance kernels with derivatives in log-hyperparameters.
 *
 * RBF (squared exponential) with ARD lengthscales:
 *   k(x, y) = v exp(-r^2 / 2),   r^2 = sum_j (x_j - y_j)^2 / l_j^2
 * Matern 5/2 with ARD lengthscales (Rasmussen & Williams 2006, eq. 4.17):
 *   k(x, y) = v (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)
 * Hyperparameter vector theta = (log v, log l_1, ..., log l_d).
 *
 * Per-dimension kinds. r^2 is a sum of one term per coordinate,
 * r^2 = sum_j t_j(x_j, y_j) / l_j^2, with
 *   linear, integer  t_j = (x - y)^2
 *   periodic         t_j = (p_j / pi)^2 sin^2(pi (x - y) / p_j)
 *   categorical      t_j = [round x != round y]
 * The periodic term is the squared chord between the points' images on a
 * circle of circumference p_j (radius p_j / 2 pi), so it is (x - y)^2 to
 * leading order and the lengthscale keeps the coordinate's units; with
 * RBF it is MacKay's periodic kernel (R&W 2006, eq. 4.31) with l scaled
 * by p / pi. The categorical term is the squared distance of one-hot
 * codes scaled by 1/sqrt2: an exchangeable kernel, every pair of distinct
 * levels correlated alike (shape(1 / l^2)), one lengthscale per
 * parameter whatever its number of levels (unordered levels have no
 * geometry to learn, and a few duels cannot identify one scale per
 * level). Both are squared Euclidean distances of an embedding, so RBF
 * and Matern 5/2, positive definite in any dimension, stay so. Integer
 * coordinates are linear here; rounding proposals is sg_bo's job.
 *
 * Grouped kernel (studies with several participants; sg-hier.h). The
 * last of the DIM coordinates of every point is a group index: a
 * participant 0, 1, ..., or -1 for the population. With d = dim - 1
 * setting coordinates,
 *   k((x,p), (y,q)) = k_pop(x, y) + [p == q and p >= 0] k_ind(x, y),
 * k_pop with (variance, lengthscales[0..d-1]) and k_ind of the same type
 * with (ind_variance, ind_lengthscales[0..d-1]). It is the covariance of
 * f_p(x) = g(x) + h_p(x), g ~ GP(k_pop), h_p ~ GP(k_ind) independent per
 * participant, and f_{-1} = g: so the posterior of the population utility
 * g, of each person's f_p, and their joint samples are those of one GP
 * over (setting, group) points, and every SkewGP result of the engine
 * (exact posterior, evidence, samples, summaries) holds unchanged. Either
 * variance may be 0 (no population part, or no individual part), not
 * both. Why the group is a coordinate: points stay rows of one table, so
 * sg_data, the likelihood lowering, the posterior and the samplers need
 * no second index, and two participants' answers at the same setting are
 * distinct inputs (distinct rows) automatically.
 * Hyperparameters: theta = (log v, log l_1..l_d, log v_ind, log
 * l_ind_1..l_ind_d), 2 d + 2 entries.
 */
#pragma once

#include "sg-common.h"

#include <stddef.h>

typedef enum {
  SG_KERNEL_RBF = 0,
  SG_KERNEL_MATERN52,
} sg_kernel_type;

/* What one input coordinate is (see above). */
typedef enum {
  SG_DIM_LINEAR = 0,   /* a real interval                              */
  SG_DIM_INTEGER,      /* whole numbers: linear to the kernel          */
  SG_DIM_PERIODIC,     /* a circle: x and x + period are the same      */
  SG_DIM_CATEGORICAL,  /* unordered levels 0, 1, ..., L - 1            */
} sg_dim_kind;

/* Storage. A kernel of any dimension keeps its per-coordinate arrays
 * (lengthscales, kinds, periods, ind_lengthscales: DIM entries each) in
 * one block it owns: sg_kernel_init, sg_kernel_grouped and sg_kernel_copy
 * allocate it (SG_ENOMEM when that fails), sg_kernel_clear releases it, so
 * memory is O(dim) and nothing caps the dimension. A zeroed sg_kernel
 * holds nothing (clearing it is a no-op). A plain struct assignment
 * `b = a` is a view: b reads a's parameters, writes through b's arrays
 * change a, and b is never cleared and must not outlive a; use
 * sg_kernel_copy for a kernel of one's own and sg_kernel_memcpy to move
 * values between two kernels of the same shape. Engine objects that keep
 * a kernel past a call (posteriors, sg_svgp, sg_bo) hold their own copy;
 * structs that describe a model for one call (sg_skewgp_prior,
 * sg_approx_model, sg_hyper) hold views. */
typedef struct {
  sg_kernel_type type;
  size_t dim;
  double variance;
  double *lengthscales;         /* dim entries                           */
  sg_dim_kind *kinds;           /* dim entries; SG_DIM_LINEAR after init */
  double *periods;              /* dim entries; periodic coordinates > 0 */
  int grouped;                  /* nonzero: the grouped kernel above     */
  double ind_variance;          /* grouped: the individual part's        */
  double *ind_lengthscales;     /* dim entries (grouped)                 */
} sg_kernel;

/* Makes K an isotropic kernel of DIM >= 1 coordinates with storage of
 * its own (K's previous contents are overwritten, not released);
 * SG_EINVAL for bad sizes or values, SG_ENOMEM; K untouched on failure. */
sg_status sg_kernel_init (sg_kernel *k, sg_kernel_type type, size_t dim,
                          double variance, double lengthscale);
/* Releases K's storage and zeroes it; K NULL or zeroed: nothing. */
void sg_kernel_clear (sg_kernel *k);
/* DST (overwritten, not released) becomes an independent copy of SRC
 * (values copied as they are, valid or not: a part of variance 0 is
 * copied too) with storage of its own; SG_EINVAL for a SRC without
 * storage, SG_ENOMEM. */
sg_status sg_kernel_copy (sg_kernel *dst, const sg_kernel *src);
/* Every value of SRC into DST's storage; SG_EINVAL (DST untouched) unless
 * both hold storage of the same dim. */
sg_status sg_kernel_memcpy (sg_kernel *dst, const sg_kernel *src);
/* SG_OK if the kernel's fields are valid (storage held, positive, finite,
 * known kinds, a positive finite period for every periodic coordinate;
 * grouped: dim >= 2, variances >= 0 and not both 0, the group coordinate
 * linear). */
sg_status sg_kernel_check (const sg_kernel *k);
/* The grouped kernel of POP (on d coordinates) plus IND (same type and
 * d) within a group, on points of d + 1 coordinates. POP or IND NULL: that
 * part is 0. Both parts measure the setting coordinates with the same
 * kinds and periods, taken from the parts. SG_EINVAL for both NULL,
 * different types, dimensions or kinds, or an invalid part; SG_ENOMEM. K
 * is overwritten (not released) and gets storage of its own. */
sg_status sg_kernel_grouped (sg_kernel *k, const sg_kernel *pop, const sg_kernel *ind);
/* Coordinate J becomes KIND (PERIOD is read for SG_DIM_PERIODIC only);
 * SG_EINVAL for a bad index (a grouped kernel's group coordinate
 * included), kind or period (K unchanged). */
sg_status sg_kernel_set_dim_kind (sg_kernel *k, size_t j, sg_dim_kind kind, double period);
/* "linear", "integer", "periodic", "categorical" and back. */
const char *sg_dim_kind_name (sg_dim_kind kind);
sg_status sg_dim_kind_parse (const char *name, sg_dim_kind *kind);
/* The term t_j of coordinate J (above), not divided by l_j^2. */
double sg_kernel_dim_sqdist (const sg_kernel *k, size_t j, double x, double y);
/* |x - y| measured along a coordinate of KIND: the shorter way round for
 * a periodic one (at most PERIOD / 2), 0 or 1 for a categorical one. */
double sg_dim_distance (sg_dim_kind kind, double period, double x, double y);
/* "rbf" / "matern52" and back; parse returns SG_EINVAL for unknown names. */
const char *sg_kernel_type_name (sg_kernel_type type);
sg_status sg_kernel_type_parse (const char *name, sg_kernel_type *type);

size_t sg_kernel_n_params (const sg_kernel *k);     /* dim + 1; grouped 2 dim */
void sg_kernel_get_params (const sg_kernel *k, double *theta);
void sg_kernel_set_params (sg_kernel *k, const double *theta);

double sg_kernel_eval (const sg_kernel *k, const double *x, const double *y);
/* K[i*m + j] = k(X_i, Y_j); X is n x dim, Y is m x dim, row-major.
 * A kernel whose coordinates are all linear or integer, with at least
 * SG_KERNEL_GEMM_MIN_DIM of them, gets its squared distances from one
 * matrix product per block of rows (r^2 = |x|^2 + |y|^2 - 2 x.y in
 * lengthscale units, centred; dgemm), in O(block x dim) scratch; an
 * exact zero distance is kept where X and Y are the same array. */
#define SG_KERNEL_GEMM_MIN_DIM 16
void sg_kernel_matrix (const sg_kernel *k, const double *X, size_t n,
                       const double *Y, size_t m, double *K);
/* dK[i*m + j] = d k(X_i, Y_j) / d theta_p. */
void sg_kernel_matrix_grad (const sg_kernel *k, const double *X, size_t n,
                            const double *Y, size_t m, size_t p, double *dK);
