/* sg-kernel.h — covariance kernels with derivatives in log-hyperparameters.
 *
 * RBF (squared exponential) with ARD lengthscales:
 *   k(x, y) = v exp(-r^2 / 2),   r^2 = sum_j (x_j - y_j)^2 / l_j^2
 * Matern 5/2 with ARD lengthscales (Rasmussen & Williams 2006, eq. 4.17):
 *   k(x, y) = v (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)
 * Hyperparameter vector theta = (log v, log l_1, ..., log l_d).
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

typedef struct {
  sg_kernel_type type;
  size_t dim;
  double variance;
  double lengthscales[SG_KERNEL_MAX_DIM];
  int grouped;                  /* nonzero: the grouped kernel above     */
  double ind_variance;          /* grouped: the individual part's        */
  double ind_lengthscales[SG_KERNEL_MAX_DIM];
} sg_kernel;

/* Fills K with an isotropic kernel; SG_EINVAL for bad sizes or values. */
sg_status sg_kernel_init (sg_kernel *k, sg_kernel_type type, size_t dim,
                          double variance, double lengthscale);
/* SG_OK if the kernel's fields are valid (positive, finite, dim in range;
 * grouped: dim >= 2, variances >= 0 and not both 0). */
sg_status sg_kernel_check (const sg_kernel *k);
/* The grouped kernel of POP (on d coordinates) plus IND (same type and
 * d) within a group, on points of d + 1 coordinates. POP or IND NULL: that
 * part is 0. SG_EINVAL for both NULL, different types or dimensions, d + 1
 * above SG_KERNEL_MAX_DIM, or an invalid part. */
sg_status sg_kernel_grouped (sg_kernel *k, const sg_kernel *pop, const sg_kernel *ind);
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
