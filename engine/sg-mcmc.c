/* sg-mcmc.c — integrated autocorrelation time by FFT and Sokal's window. */
#include "sg-mcmc.h"

#include <gsl/gsl_fft_complex.h>
#include <math.h>
#include <stdlib.h>

/* Sokal's window constant: truncate the autocorrelation sum at the first
 * lag M >= SOKAL_C tau(M). 5 is the usual choice (bias ~ exp(-5) for an
 * exponentially decaying rho, variance ~ 2(2M+1)/n relative). */
#define SOKAL_C 5.0

typedef struct {
  size_t len;      /* FFT length: a power of two >= 2n (no circular wrap) */
  double *buf;     /* 2 len doubles (packed complex) */
  double *acov;    /* n lags, averaged over chains */
} iat_work;

static size_t
next_pow2 (size_t n)
{
  size_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

static int
iat_work_init (iat_work *w, size_t n)
{
  w->len = next_pow2 (2 * n);
  w->buf = malloc (2 * w->len * sizeof *w->buf);
  w->acov = malloc (n * sizeof *w->acov);
  if (w->buf == NULL || w->acov == NULL)
    {
      free (w->buf);
      free (w->acov);
      return SG_ENOMEM;
    }
  return SG_OK;
}

static void
iat_work_clear (iat_work *w)
{
  free (w->buf);
  free (w->acov);
}

/* Adds chain (x - mean)'s autocovariance at lags 0..n-1 to W->acov
 * (Wiener-Khinchin: inverse FFT of the zero-padded power spectrum). */
static void
add_autocovariance (iat_work *w, const double *x, size_t n, size_t stride,
                    double mean)
{
  double *b = w->buf;
  for (size_t t = 0; t < w->len; t++)
    {
      b[2 * t] = t < n ? x[t * stride] - mean : 0;
      b[2 * t + 1] = 0;
    }
  gsl_fft_complex_radix2_forward (b, 1, w->len);
  for (size_t t = 0; t < w->len; t++)
    {
      b[2 * t] = b[2 * t] * b[2 * t] + b[2 * t + 1] * b[2 * t + 1];
      b[2 * t + 1] = 0;
    }
  gsl_fft_complex_radix2_inverse (b, 1, w->len);
  /* the biased estimator (divide by n, not n - k): positive definite and
   * the usual choice for the windowed sum */
  for (size_t k = 0; k < n; k++)
    w->acov[k] += b[2 * k] / (double) n;
}

static int
iat_column (iat_work *w, const double *x, size_t n_chains, size_t n,
            size_t chain_offset, size_t stride, double *tau)
{
  double mean = 0;
  for (size_t c = 0; c < n_chains; c++)
    for (size_t t = 0; t < n; t++)
      {
        double v = x[c * chain_offset + t * stride];
        if (!isfinite (v))
          return SG_EINVAL;
        mean += v;
      }
  mean /= (double) (n * n_chains);

  for (size_t k = 0; k < n; k++)
    w->acov[k] = 0;
  for (size_t c = 0; c < n_chains; c++)
    add_autocovariance (w, x + c * chain_offset, n, stride, mean);

  double var = w->acov[0];
  if (!(var > 0))
    {
      *tau = 1;   /* a constant series */
      return SG_OK;
    }
  double t = 1;
  for (size_t m = 1; m < n; m++)
    {
      t += 2 * w->acov[m] / var;
      if ((double) m >= SOKAL_C * t)
        break;
    }
  /* A sum truncated by the window can dip below 1 for anti-correlated
   * chains; the IAT of a chain that is not antithetic by design is >= 1
   * up to noise, and ESS > n would only flatter the estimate. */
  *tau = t < 1 ? 1 : t;
  return SG_OK;
}

sg_status
sg_mcmc_iat (const double *x, size_t n_chains, size_t n,
             size_t chain_offset, size_t stride, double *tau)
{
  if (x == NULL || tau == NULL || n < 2 || n_chains == 0)
    return SG_EINVAL;
  iat_work w;
  if (iat_work_init (&w, n) != SG_OK)
    return SG_ENOMEM;
  double t;
  int status = iat_column (&w, x, n_chains, n, chain_offset, stride, &t);
  iat_work_clear (&w);
  if (status == SG_OK)
    *tau = t;
  return status;
}

sg_status
sg_mcmc_iat_max (const double *samples, size_t n_chains, size_t n,
                 size_t d, double *tau, size_t *which)
{
  if (samples == NULL || tau == NULL || n < 2 || n_chains == 0 || d == 0)
    return SG_EINVAL;
  iat_work w;
  if (iat_work_init (&w, n) != SG_OK)
    return SG_ENOMEM;
  double best = 0;
  size_t arg = 0;
  int status = SG_OK;
  for (size_t j = 0; j < d && status == SG_OK; j++)
    {
      double t;
      status = iat_column (&w, samples + j, n_chains, n, n * d, d, &t);
      if (status == SG_OK && t > best)
        {
          best = t;
          arg = j;
        }
    }
  iat_work_clear (&w);
  if (status != SG_OK)
    return status;
  *tau = best;
  if (which)
    *which = arg;
  return SG_OK;
}
