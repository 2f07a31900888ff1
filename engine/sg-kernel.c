#include "sg-kernel.h"
#include "sg-common.h"

#include <math.h>
#include <string.h>

#define SQRT5 2.23606797749978969641

sg_status
sg_kernel_init (sg_kernel *k, sg_kernel_type type, size_t dim,
                double variance, double lengthscale)
{
  if (dim == 0 || dim > SG_KERNEL_MAX_DIM || !(variance > 0) || !isfinite (variance)
      || !(lengthscale > 0) || !isfinite (lengthscale))
    return SG_EINVAL;
  memset (k, 0, sizeof *k);
  k->type = type;
  k->dim = dim;
  k->variance = variance;
  for (size_t j = 0; j < dim; j++)
    k->lengthscales[j] = lengthscale;
  return sg_kernel_check (k);
}

sg_status
sg_kernel_check (const sg_kernel *k)
{
  if (k == NULL || k->dim == 0 || k->dim > SG_KERNEL_MAX_DIM)
    return SG_EINVAL;
  if (k->type != SG_KERNEL_RBF && k->type != SG_KERNEL_MATERN52)
    return SG_EINVAL;
  if (!(k->variance > 0) || !isfinite (k->variance))
    return SG_EINVAL;
  for (size_t j = 0; j < k->dim; j++)
    if (!(k->lengthscales[j] > 0) || !isfinite (k->lengthscales[j]))
      return SG_EINVAL;
  return SG_OK;
}

const char *
sg_kernel_type_name (sg_kernel_type type)
{
  return type == SG_KERNEL_MATERN52 ? "matern52" : "rbf";
}

sg_status
sg_kernel_type_parse (const char *name, sg_kernel_type *type)
{
  if (name && strcmp (name, "rbf") == 0)
    *type = SG_KERNEL_RBF;
  else if (name && strcmp (name, "matern52") == 0)
    *type = SG_KERNEL_MATERN52;
  else
    return SG_EINVAL;
  return SG_OK;
}

size_t
sg_kernel_n_params (const sg_kernel *k)
{
  return k->dim + 1;
}

void
sg_kernel_get_params (const sg_kernel *k, double *theta)
{
  theta[0] = log (k->variance);
  for (size_t j = 0; j < k->dim; j++)
    theta[j + 1] = log (k->lengthscales[j]);
}

void
sg_kernel_set_params (sg_kernel *k, const double *theta)
{
  k->variance = exp (theta[0]);
  for (size_t j = 0; j < k->dim; j++)
    k->lengthscales[j] = exp (theta[j + 1]);
}

static double
scaled_sqdist (const sg_kernel *k, const double *x, const double *y)
{
  double r2 = 0;
  for (size_t j = 0; j < k->dim; j++)
    {
      double u = (x[j] - y[j]) / k->lengthscales[j];
      r2 += u * u;
    }
  return r2;
}

/* k / v as a function of r^2. */
static double
shape (sg_kernel_type type, double r2)
{
  if (type == SG_KERNEL_RBF)
    return exp (-0.5 * r2);
  double r = sqrt (r2);
  return (1 + SQRT5 * r + 5.0 / 3.0 * r2) * exp (-SQRT5 * r);
}

/* d shape / d (r^2); finite at r = 0 for both kernels. */
static double
shape_dr2 (sg_kernel_type type, double r2)
{
  if (type == SG_KERNEL_RBF)
    return -0.5 * exp (-0.5 * r2);
  /* d/dr [(1 + s r + 5r^2/3) e^{-s r}] = -(5/3) r (1 + s r) e^{-s r} and
   * d/d(r^2) = (1 / 2r) d/dr. */
  double r = sqrt (r2);
  return -(5.0 / 6.0) * (1 + SQRT5 * r) * exp (-SQRT5 * r);
}

double
sg_kernel_eval (const sg_kernel *k, const double *x, const double *y)
{
  return k->variance * shape (k->type, scaled_sqdist (k, x, y));
}

void
sg_kernel_matrix (const sg_kernel *k, const double *X, size_t n,
                  const double *Y, size_t m, double *K)
{
  size_t d = k->dim;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      K[i * m + j] = sg_kernel_eval (k, X + i * d, Y + j * d);
}

void
sg_kernel_matrix_grad (const sg_kernel *k, const double *X, size_t n,
                       const double *Y, size_t m, size_t p, double *dK)
{
  size_t d = k->dim;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      {
        const double *x = X + i * d, *y = Y + j * d;
        double r2 = scaled_sqdist (k, x, y);
        if (p == 0)
          {
            dK[i * m + j] = k->variance * shape (k->type, r2);
            continue;
          }
        /* d r^2 / d log l_q = -2 u_q^2 */
        double u = (x[p - 1] - y[p - 1]) / k->lengthscales[p - 1];
        dK[i * m + j] = k->variance * shape_dr2 (k->type, r2) * (-2 * u * u);
      }
}
