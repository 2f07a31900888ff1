/* sg-normal.c — standard normal helpers.
 *
 * The lower tail of log Phi uses log erfc from GSL (asymptotic expansion for
 * large arguments), so log Phi(x) is accurate where Phi(x) itself underflows
 * (x < -38.5). The upper tail uses log1p(-Phi(-x)) to avoid log(1 - tiny).
 */
#include "sg-normal.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_erf.h>
#include <math.h>

#define SG_LOG_SQRT_2PI 0.91893853320467274178
#define SG_LN2 0.69314718055994530942

double
sg_norm_pdf (double x)
{
  return exp (-0.5 * x * x - SG_LOG_SQRT_2PI);
}

double
sg_norm_logpdf (double x)
{
  return -0.5 * x * x - SG_LOG_SQRT_2PI;
}

double
sg_norm_cdf (double x)
{
  return 0.5 * erfc (-x * M_SQRT1_2);
}

double
sg_norm_logcdf (double x)
{
  if (isnan (x))
    return NAN;
  if (x == -INFINITY)
    return -INFINITY;
  if (x > 0)
    return log1p (-0.5 * erfc (x * M_SQRT1_2));
  if (x > -20)
    return log (0.5 * erfc (-x * M_SQRT1_2));
  if (x > -1e8)
    return gsl_sf_log_erfc (-x * M_SQRT1_2) - SG_LN2;
  /* Mills' ratio: Phi(x) = phi(x) / -x (1 - 1/x^2 + ...), the correction
   * below 1e-16 here (GSL's log_erfc fails beyond ~1e60); -inf once x^2
   * overflows (log Phi below -DBL_MAX) */
  return -0.5 * x * x - log (-x) - 0.5 * log (2 * M_PI);
}

double
sg_norm_quantile (double p)
{
  if (isnan (p) || p < 0 || p > 1)
    return NAN;
  if (p == 0)
    return -INFINITY;
  if (p == 1)
    return INFINITY;
  return gsl_cdf_ugaussian_Pinv (p);
}

double
sg_norm_hazard (double x)
{
  if (x > -20)
    return sg_norm_pdf (x) / sg_norm_cdf (x);
  return exp (sg_norm_logpdf (x) - sg_norm_logcdf (x));
}

double
sg_norm_quantile_log (double logp)
{
  if (isnan (logp) || logp > 0)
    return NAN;
  if (logp == -INFINITY)
    return -INFINITY;
  if (logp > -0.6931)        /* p > 1/2: use the upper tail, 1 - p accurately */
    return -sg_norm_quantile (-expm1 (logp));
  if (logp > -700)
    return sg_norm_quantile (exp (logp));
  /* Deep lower tail: start from the asymptotic inverse of
   * log Phi(x) ~ -x^2/2 - log(-x) - log sqrt(2 pi), then Newton on log Phi,
   * whose derivative is the hazard phi/Phi. */
  double t = -2.0 * logp;
  double x = -sqrt (t - log (t) - log (2 * M_PI));
  for (int i = 0; i < 8; i++)
    {
      double step = (sg_norm_logcdf (x) - logp) / sg_norm_hazard (x);
      x -= step;
      if (fabs (step) < 1e-14 * fabs (x))
        break;
    }
  return x;
}

double
sg_logaddexp (double a, double b)
{
  if (a == -INFINITY)
    return b;
  if (b == -INFINITY)
    return a;
  return a > b ? a + log1p (exp (b - a)) : b + log1p (exp (a - b));
}

double
sg_norm_logdiff (double a, double b)
{
  if (!(a <= b))
    return NAN;
  if (a == b)
    return -INFINITY;
  /* Work in the tail where both probabilities are small. */
  if (a > 0)
    return sg_norm_logdiff (-b, -a);
  double la = sg_norm_logcdf (a), lb = sg_norm_logcdf (b);
  if (lb == -INFINITY)
    return -INFINITY;   /* log Phi(b) itself below -DBL_MAX */
  if (b > 0 && a < -1)
    {
      /* Phi(b) - Phi(a) = 1 - Phi(a) - Phi(-b): both terms small. */
      return log1p (-(sg_norm_cdf (a) + sg_norm_cdf (-b)));
    }
  return lb + log1p (-exp (la - lb));
}

double
sg_norm_trunc_quantile (double a, double b, double w)
{
  if (!(a <= b) || !(w >= 0 && w <= 1))
    return NAN;
  if (a == b)
    return a;
  /* p = (1-w) Phi(a) + w Phi(b) and q = 1 - p = (1-w) Phi(-a) + w Phi(-b);
   * invert whichever is smaller so that no tail is lost to rounding. */
  double l1w = log1p (-w), lw = log (w);
  double lp = sg_logaddexp (l1w + sg_norm_logcdf (a), lw + sg_norm_logcdf (b));
  double lq = sg_logaddexp (l1w + sg_norm_logcdf (-a), lw + sg_norm_logcdf (-b));
  double x = lp < lq ? sg_norm_quantile_log (lp) : -sg_norm_quantile_log (lq);
  if (x < a)
    x = a;
  if (x > b)
    x = b;
  return x;
}
