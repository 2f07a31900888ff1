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
    if (!(k->lengthscales[j] > 0) || !isfinite (k->lengthscales[j])
        || (unsigned) k->kinds[j] > SG_DIM_CATEGORICAL
        || (k->kinds[j] == SG_DIM_PERIODIC
            && (!(k->periods[j] > 0) || !isfinite (k->periods[j]))))
      return SG_EINVAL;
  return SG_OK;
}

sg_status
sg_kernel_set_dim_kind (sg_kernel *k, size_t j, sg_dim_kind kind, double period)
{
  if (k == NULL || j >= k->dim || (unsigned) kind > SG_DIM_CATEGORICAL
      || (kind == SG_DIM_PERIODIC && (!(period > 0) || !isfinite (period))))
    return SG_EINVAL;
  k->kinds[j] = kind;
  k->periods[j] = kind == SG_DIM_PERIODIC ? period : 0;
  return SG_OK;
}

static const char *const dim_kind_names[] = { "linear", "integer", "periodic", "categorical" };
#define N_DIM_KINDS (sizeof dim_kind_names / sizeof dim_kind_names[0])

const char *
sg_dim_kind_name (sg_dim_kind kind)
{
  return sg_name_of (dim_kind_names, N_DIM_KINDS, (size_t) kind);
}

sg_status
sg_dim_kind_parse (const char *name, sg_dim_kind *kind)
{
  size_t i;
  sg_status status = sg_name_lookup (dim_kind_names, N_DIM_KINDS, name, &i);
  if (status == SG_OK)
    *kind = (sg_dim_kind) i;
  return status;
}

double
sg_dim_distance (sg_dim_kind kind, double period, double x, double y)
{
  switch (kind)
    {
    case SG_DIM_PERIODIC:
      {
        double d = fmod (fabs (x - y), period);
        return fmin (d, period - d);
      }
    case SG_DIM_CATEGORICAL:
      return round (x) != round (y);
    case SG_DIM_LINEAR:
    case SG_DIM_INTEGER:
    default:
      return fabs (x - y);
    }
}

double
sg_kernel_dim_sqdist (const sg_kernel *k, size_t j, double x, double y)
{
  switch (k->kinds[j])
    {
    case SG_DIM_PERIODIC:
      {
        /* squared chord on the circle of circumference p (header) */
        double p = k->periods[j], s = (p / M_PI) * sin (M_PI * (x - y) / p);
        return s * s;
      }
    case SG_DIM_CATEGORICAL:
      return round (x) != round (y);
    case SG_DIM_LINEAR:
    case SG_DIM_INTEGER:
    default:
      return (x - y) * (x - y);
    }
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

/* Every coordinate linear or integer: the plain squared distance. */
static int
all_linear (const sg_kernel *k)
{
  for (size_t j = 0; j < k->dim; j++)
    if (k->kinds[j] == SG_DIM_PERIODIC || k->kinds[j] == SG_DIM_CATEGORICAL)
      return 0;
  return 1;
}

/* The term of coordinate J divided by l_j^2: u_j^2 in the linear case. */
static double
scaled_term (const sg_kernel *k, size_t j, const double *x, const double *y)
{
  double l = k->lengthscales[j];
  return sg_kernel_dim_sqdist (k, j, x[j], y[j]) / (l * l);
}

static double
scaled_sqdist (const sg_kernel *k, const double *x, const double *y)
{
  double r2 = 0;
  if (all_linear (k))
    for (size_t j = 0; j < k->dim; j++)
      {
        double u = (x[j] - y[j]) / k->lengthscales[j];
        r2 += u * u;
      }
  else
    for (size_t j = 0; j < k->dim; j++)
      r2 += scaled_term (k, j, x, y);
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
        /* r^2 = sum_q t_q / l_q^2, so d r^2 / d log l_q = -2 t_q / l_q^2
         * for every kind of coordinate */
        double tq = scaled_term (k, p - 1, x, y);
        dK[i * m + j] = k->variance * shape_dr2 (k->type, r2) * (-2 * tq);
      }
}
