#include "sg-kernel.h"
#include "sg-common.h"
#include "sg-linalg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SQRT5 2.23606797749978969641

/* Storage for DIM coordinates in one zeroed block: lengthscales,
 * periods and ind_lengthscales (doubles), then the kinds. */
static sg_status
kernel_alloc (sg_kernel *k, size_t dim)
{
  if (dim == 0 || dim > SIZE_MAX / (3 * sizeof (double) + sizeof (sg_dim_kind)))
    return SG_EINVAL;
  double *block = calloc (1, dim * (3 * sizeof (double) + sizeof (sg_dim_kind)));
  if (block == NULL)
    return SG_ENOMEM;
  memset (k, 0, sizeof *k);
  k->dim = dim;
  k->lengthscales = block;
  k->periods = block + dim;
  k->ind_lengthscales = block + 2 * dim;
  k->kinds = (sg_dim_kind *) (block + 3 * dim);
  return SG_OK;
}

void
sg_kernel_clear (sg_kernel *k)
{
  if (k == NULL)
    return;
  free (k->lengthscales);
  memset (k, 0, sizeof *k);
}

sg_status
sg_kernel_init (sg_kernel *k, sg_kernel_type type, size_t dim,
                double variance, double lengthscale)
{
  if (k == NULL || dim == 0 || !(variance > 0) || !isfinite (variance)
      || (type != SG_KERNEL_RBF && type != SG_KERNEL_MATERN52)
      || !(lengthscale > 0) || !isfinite (lengthscale))
    return SG_EINVAL;
  sg_kernel n;
  sg_status status = kernel_alloc (&n, dim);
  if (status != SG_OK)
    return status;
  n.type = type;
  n.variance = variance;
  for (size_t j = 0; j < dim; j++)
    n.lengthscales[j] = lengthscale;
  *k = n;
  return SG_OK;
}

/* Every value of SRC into N, which has storage of SRC's dim. */
static void
copy_values (sg_kernel *n, const sg_kernel *src)
{
  size_t d = src->dim;
  n->type = src->type;
  n->variance = src->variance;
  n->grouped = src->grouped;
  n->ind_variance = src->ind_variance;
  memcpy (n->lengthscales, src->lengthscales, d * sizeof *n->lengthscales);
  memcpy (n->periods, src->periods, d * sizeof *n->periods);
  memcpy (n->kinds, src->kinds, d * sizeof *n->kinds);
  if (src->ind_lengthscales)
    memcpy (n->ind_lengthscales, src->ind_lengthscales, d * sizeof *n->ind_lengthscales);
}

sg_status
sg_kernel_copy (sg_kernel *dst, const sg_kernel *src)
{
  if (dst == NULL || src == NULL || src->dim == 0 || src->lengthscales == NULL)
    return SG_EINVAL;
  sg_kernel n;
  sg_status status = kernel_alloc (&n, src->dim);
  if (status != SG_OK)
    return status;
  copy_values (&n, src);
  *dst = n;
  return SG_OK;
}

sg_status
sg_kernel_memcpy (sg_kernel *dst, const sg_kernel *src)
{
  if (dst == NULL || src == NULL || dst == src)
    return dst && dst == src ? SG_OK : SG_EINVAL;
  if (dst->lengthscales == NULL || src->lengthscales == NULL || dst->dim != src->dim)
    return SG_EINVAL;
  if (dst->lengthscales != src->lengthscales)   /* not a view of DST */
    copy_values (dst, src);
  else
    *dst = *src;
  return SG_OK;
}

static int
scales_ok (const double *ls, size_t d)
{
  for (size_t j = 0; j < d; j++)
    if (!(ls[j] > 0) || !isfinite (ls[j]))
      return 0;
  return 1;
}

/* Every coordinate's kind known, with a positive finite period where
 * periodic; a grouped kernel's group coordinate is linear. */
static int
kinds_ok (const sg_kernel *k)
{
  for (size_t j = 0; j < k->dim; j++)
    if ((unsigned) k->kinds[j] > SG_DIM_CATEGORICAL
        || (k->kinds[j] == SG_DIM_PERIODIC
            && (!(k->periods[j] > 0) || !isfinite (k->periods[j]))))
      return 0;
  return !k->grouped || k->kinds[k->dim - 1] == SG_DIM_LINEAR;
}

sg_status
sg_kernel_check (const sg_kernel *k)
{
  if (k == NULL || k->dim == 0 || k->lengthscales == NULL || k->kinds == NULL
      || k->periods == NULL || k->ind_lengthscales == NULL)
    return SG_EINVAL;
  if ((k->type != SG_KERNEL_RBF && k->type != SG_KERNEL_MATERN52) || !kinds_ok (k))
    return SG_EINVAL;
  if (!k->grouped)
    return k->variance > 0 && isfinite (k->variance)
           && scales_ok (k->lengthscales, k->dim) ? SG_OK : SG_EINVAL;
  size_t d = k->dim - 1;
  if (d == 0 || !(k->variance >= 0) || !isfinite (k->variance)
      || !(k->ind_variance >= 0) || !isfinite (k->ind_variance)
      || !(k->variance + k->ind_variance > 0)
      || !scales_ok (k->lengthscales, d) || !scales_ok (k->ind_lengthscales, d))
    return SG_EINVAL;
  return SG_OK;
}

/* Whether A and B give every coordinate the same kind (and period). */
static int
same_kinds (const sg_kernel *a, const sg_kernel *b)
{
  for (size_t j = 0; j < a->dim; j++)
    if (a->kinds[j] != b->kinds[j]
        || (a->kinds[j] == SG_DIM_PERIODIC && a->periods[j] != b->periods[j]))
      return 0;
  return 1;
}

sg_status
sg_kernel_grouped (sg_kernel *k, const sg_kernel *pop, const sg_kernel *ind)
{
  const sg_kernel *any = pop ? pop : ind;
  if (any == NULL || (pop && sg_kernel_check (pop) != SG_OK)
      || (ind && sg_kernel_check (ind) != SG_OK) || any->grouped
      || (pop && ind && (pop->type != ind->type || pop->dim != ind->dim))
      || (ind && ind->grouped)
      || (pop && ind && !same_kinds (pop, ind)))
    return SG_EINVAL;
  sg_kernel g;
  sg_status status = kernel_alloc (&g, any->dim + 1);
  if (status != SG_OK)
    return status;
  g.type = any->type;
  g.grouped = 1;
  const sg_kernel *ls_pop = pop ? pop : ind, *ls_ind = ind ? ind : pop;
  g.variance = pop ? pop->variance : 0;
  g.ind_variance = ind ? ind->variance : 0;
  for (size_t j = 0; j < any->dim; j++)
    {
      g.lengthscales[j] = ls_pop->lengthscales[j];
      g.ind_lengthscales[j] = ls_ind->lengthscales[j];
      g.kinds[j] = any->kinds[j];     /* both parts measure alike */
      g.periods[j] = any->periods[j];
    }
  g.lengthscales[any->dim] = 1;   /* the group coordinate has no scale */
  g.ind_lengthscales[any->dim] = 1;
  *k = g;
  return SG_OK;
}

sg_status
sg_kernel_set_dim_kind (sg_kernel *k, size_t j, sg_dim_kind kind, double period)
{
  if (k == NULL || j >= k->dim - (k->grouped ? 1 : 0)
      || (unsigned) kind > SG_DIM_CATEGORICAL
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
  return k->grouped ? 2 * k->dim : k->dim + 1;
}

/* The setting coordinates d of a point (the group coordinate excluded). */
static size_t
setting_dim (const sg_kernel *k)
{
  return k->grouped ? k->dim - 1 : k->dim;
}

void
sg_kernel_get_params (const sg_kernel *k, double *theta)
{
  size_t d = setting_dim (k);
  theta[0] = log (k->variance);
  for (size_t j = 0; j < d; j++)
    theta[j + 1] = log (k->lengthscales[j]);
  if (!k->grouped)
    return;
  theta[d + 1] = log (k->ind_variance);
  for (size_t j = 0; j < d; j++)
    theta[d + 2 + j] = log (k->ind_lengthscales[j]);
}

void
sg_kernel_set_params (sg_kernel *k, const double *theta)
{
  size_t d = setting_dim (k);
  k->variance = exp (theta[0]);
  for (size_t j = 0; j < d; j++)
    k->lengthscales[j] = exp (theta[j + 1]);
  if (!k->grouped)
    return;
  k->ind_variance = exp (theta[d + 1]);
  for (size_t j = 0; j < d; j++)
    k->ind_lengthscales[j] = exp (theta[d + 2 + j]);
}

/* Every setting coordinate linear or integer: the plain squared distance. */
static int
all_linear (const sg_kernel *k)
{
  for (size_t j = 0; j < setting_dim (k); j++)
    if (k->kinds[j] == SG_DIM_PERIODIC || k->kinds[j] == SG_DIM_CATEGORICAL)
      return 0;
  return 1;
}

/* The term of coordinate J divided by l_j^2 (l = LS[j]): u_j^2 in the
 * linear case. */
static double
scaled_term (const sg_kernel *k, const double *ls, size_t j, const double *x,
             const double *y)
{
  double l = ls[j];
  return sg_kernel_dim_sqdist (k, j, x[j], y[j]) / (l * l);
}

/* r^2 over the D setting coordinates with lengthscales LS and K's kinds
 * (the population and individual parts of a grouped kernel share them). */
static double
scaled_sqdist (const sg_kernel *k, const double *ls, size_t d, const double *x,
               const double *y)
{
  double r2 = 0;
  if (all_linear (k))
    for (size_t j = 0; j < d; j++)
      {
        double u = (x[j] - y[j]) / ls[j];
        r2 += u * u;
      }
  else
    for (size_t j = 0; j < d; j++)
      r2 += scaled_term (k, ls, j, x, y);
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

/* Grouped kernel: whether the individual part links points X and Y. */
static int
same_person (const sg_kernel *k, const double *x, const double *y)
{
  double gx = x[k->dim - 1], gy = y[k->dim - 1];
  return gx == gy && gx >= 0;
}

double
sg_kernel_eval (const sg_kernel *k, const double *x, const double *y)
{
  size_t d = setting_dim (k);
  double v = 0;
  if (k->variance > 0)
    v = k->variance * shape (k->type, scaled_sqdist (k, k->lengthscales, d, x, y));
  if (k->grouped && k->ind_variance > 0 && same_person (k, x, y))
    v += k->ind_variance * shape (k->type, scaled_sqdist (k, k->ind_lengthscales, d, x, y));
  return v;
}

/* Rows of X per matrix product in the GEMM path. */
#define GEMM_BLOCK 256

/* A (rows x d) = (P - c) / l row by row, and |A_i|^2 into NORM. */
static void
scale_rows (const double *P, size_t rows, size_t d, const double *c,
            const double *ls, double *A, double *norm)
{
  for (size_t i = 0; i < rows; i++)
    {
      double s = 0;
      for (size_t j = 0; j < d; j++)
        {
          double u = (P[i * d + j] - c[j]) / ls[j];
          A[i * d + j] = u;
          s += u * u;
        }
      norm[i] = s;
    }
}

/* The GEMM path of sg_kernel_matrix (header): SG_ENOMEM leaves K for the
 * direct loop. Centring at the mean of Y keeps |x|^2 + |y|^2 close to
 * r^2 where the points are, so the cancellation error stays near
 * machine epsilon times r^2 plus the spread of the data. */
static sg_status
matrix_gemm (const sg_kernel *k, const double *X, size_t n, const double *Y,
             size_t m, double *K)
{
  size_t d = k->dim, nb = n < GEMM_BLOCK ? n : GEMM_BLOCK;
  double *c = calloc (d, sizeof *c);
  double *B = malloc ((m * d + m) * sizeof *B);
  double *A = malloc ((nb * d + nb) * sizeof *A);
  if (c == NULL || B == NULL || A == NULL)
    {
      free (c); free (B); free (A);
      return SG_ENOMEM;
    }
  for (size_t j = 0; j < m; j++)
    for (size_t q = 0; q < d; q++)
      c[q] += Y[j * d + q] / (double) m;
  double *ny = B + m * d, *nx = A + nb * d;
  scale_rows (Y, m, d, c, k->lengthscales, B, ny);
  for (size_t i0 = 0; i0 < n; i0 += nb)
    {
      size_t rows = n - i0 < nb ? n - i0 : nb;
      double *Kb = K + i0 * m;
      scale_rows (X + i0 * d, rows, d, c, k->lengthscales, A, nx);
      sg_gemm (0, 1, rows, m, d, -2.0, A, B, 0.0, Kb);
      for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < m; j++)
          {
            double r2 = fmax (Kb[i * m + j] + nx[i] + ny[j], 0.0);
            if (X == Y && i0 + i == j)
              r2 = 0;
            Kb[i * m + j] = k->variance * shape (k->type, r2);
          }
    }
  free (c); free (B); free (A);
  return SG_OK;
}

void
sg_kernel_matrix (const sg_kernel *k, const double *X, size_t n,
                  const double *Y, size_t m, double *K)
{
  size_t d = k->dim;
  if (!k->grouped && d >= SG_KERNEL_GEMM_MIN_DIM && all_linear (k) && n > 0 && m > 0
      && matrix_gemm (k, X, n, Y, m, K) == SG_OK)
    return;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      K[i * m + j] = sg_kernel_eval (k, X + i * d, Y + j * d);
}

/* d (v shape(r^2)) / d theta_p of one stationary part of K with variance
 * V and lengthscales LS on D coordinates; p = 0 is log v, p >= 1 log l_p. */
static double
part_grad (const sg_kernel *k, double v, const double *ls, size_t d,
           const double *x, const double *y, size_t p)
{
  double r2 = scaled_sqdist (k, ls, d, x, y);
  if (p == 0)
    return v * shape (k->type, r2);
  /* r^2 = sum_q t_q / l_q^2, so d r^2 / d log l_q = -2 t_q / l_q^2 for
   * every kind of coordinate */
  double tq = scaled_term (k, ls, p - 1, x, y);
  return v * shape_dr2 (k->type, r2) * (-2 * tq);
}

void
sg_kernel_matrix_grad (const sg_kernel *k, const double *X, size_t n,
                       const double *Y, size_t m, size_t p, double *dK)
{
  size_t dim = k->dim, d = setting_dim (k);
  int ind = k->grouped && p > d;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      {
        const double *x = X + i * dim, *y = Y + j * dim;
        double g = 0;
        if (!ind)
          g = part_grad (k, k->variance, k->lengthscales, d, x, y, p);
        else if (same_person (k, x, y))
          g = part_grad (k, k->ind_variance, k->ind_lengthscales, d, x, y,
                         p - d - 1);
        dK[i * m + j] = g;
      }
}
