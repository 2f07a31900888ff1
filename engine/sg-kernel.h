/* sg-kernel.h — covariance kernels with derivatives in log-hyperparameters.
 *
 * RBF (squared exponential) with ARD lengthscales:
 *   k(x, y) = v exp(-r^2 / 2),   r^2 = sum_j (x_j - y_j)^2 / l_j^2
 * Matern 5/2 with ARD lengthscales (Rasmussen & Williams 2006, eq. 4.17):
 *   k(x, y) = v (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)
 * Hyperparameter vector theta = (log v, log l_1, ..., log l_d).
 */
#pragma once

#include "sg-common.h"

#include <stddef.h>

#define SG_KERNEL_MAX_DIM 32

typedef enum {
  SG_KERNEL_RBF = 0,
  SG_KERNEL_MATERN52,
} sg_kernel_type;

typedef struct {
  sg_kernel_type type;
  size_t dim;
  double variance;
  double lengthscales[SG_KERNEL_MAX_DIM];
} sg_kernel;

/* Fills K with an isotropic kernel; SG_EINVAL for bad sizes or values. */
sg_status sg_kernel_init (sg_kernel *k, sg_kernel_type type, size_t dim,
                          double variance, double lengthscale);
/* SG_OK if the kernel's fields are valid (positive, finite, dim in range). */
sg_status sg_kernel_check (const sg_kernel *k);
/* "rbf" / "matern52" and back; parse returns SG_EINVAL for unknown names. */
const char *sg_kernel_type_name (sg_kernel_type type);
sg_status sg_kernel_type_parse (const char *name, sg_kernel_type *type);

size_t sg_kernel_n_params (const sg_kernel *k);     /* dim + 1 */
void sg_kernel_get_params (const sg_kernel *k, double *theta);
void sg_kernel_set_params (sg_kernel *k, const double *theta);

double sg_kernel_eval (const sg_kernel *k, const double *x, const double *y);
/* K[i*m + j] = k(X_i, Y_j); X is n x dim, Y is m x dim, row-major. */
void sg_kernel_matrix (const sg_kernel *k, const double *X, size_t n,
                       const double *Y, size_t m, double *K);
/* dK[i*m + j] = d k(X_i, Y_j) / d theta_p. */
void sg_kernel_matrix_grad (const sg_kernel *k, const double *X, size_t n,
                            const double *Y, size_t m, size_t p, double *dK);
