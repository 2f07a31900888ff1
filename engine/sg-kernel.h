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

#define SG_KERNEL_MAX_DIM 32
/* The most log-hyperparameters a kernel has (a grouped one: 2 dim). */
#define SG_KERNEL_MAX_PARAMS (2 * SG_KERNEL_MAX_DIM)

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

typedef struct {
  sg_kernel_type type;
  size_t dim;
  double variance;
  double lengthscales[SG_KERNEL_MAX_DIM];
  sg_dim_kind kinds[SG_KERNEL_MAX_DIM];  /* SG_DIM_LINEAR when zeroed    */
  double periods[SG_KERNEL_MAX_DIM];     /* periodic coordinates: > 0    */
  int grouped;                  /* nonzero: the grouped kernel above     */
  double ind_variance;          /* grouped: the individual part's        */
  double ind_lengthscales[SG_KERNEL_MAX_DIM];
} sg_kernel;

/* Fills K with an isotropic kernel; SG_EINVAL for bad sizes or values. */
sg_status sg_kernel_init (sg_kernel *k, sg_kernel_type type, size_t dim,
                          double variance, double lengthscale);
/* SG_OK if the kernel's fields are valid (positive, finite, dim in range,
 * known kinds, a positive finite period for every periodic coordinate;
 * grouped: dim >= 2, variances >= 0 and not both 0, the group coordinate
 * linear). */
sg_status sg_kernel_check (const sg_kernel *k);
/* The grouped kernel of POP (on d coordinates) plus IND (same type and
 * d) within a group, on points of d + 1 coordinates. POP or IND NULL: that
 * part is 0. Both parts measure the setting coordinates with the same
 * kinds and periods, taken from the parts. SG_EINVAL for both NULL,
 * different types, dimensions or kinds, d + 1 above SG_KERNEL_MAX_DIM, or
 * an invalid part. */
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
/* K[i*m + j] = k(X_i, Y_j); X is n x dim, Y is m x dim, row-major. */
void sg_kernel_matrix (const sg_kernel *k, const double *X, size_t n,
                       const double *Y, size_t m, double *K);
/* dK[i*m + j] = d k(X_i, Y_j) / d theta_p. */
void sg_kernel_matrix_grad (const sg_kernel *k, const double *X, size_t n,
                            const double *Y, size_t m, size_t p, double *dK);
