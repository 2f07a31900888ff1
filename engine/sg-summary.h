/* sg-summary.h — the per-point summary every surrogate provides.
 *
 * The exact SkewGP fills it from posterior samples; Laplace and EP fill it
 * from their Gaussian approximations in closed form. The plots and the
 * optimiser only see this struct, so surrogates are interchangeable.
 */
#pragma once

typedef struct {
  double mean;
  double median;
  double sd;
  double lower, upper;          /* equal-tailed credible interval          */
  double hpd_lower, hpd_upper;  /* highest-density (minimum-width) interval */
  double skewness;              /* SS(x) = E[(f-mu)^3] / E[(f-mu)^2]^{3/2}  */
  double class_probability;     /* E[Phi(f(x) / probit_sd)] = P(label = +1) */
  double prob_better;           /* P(f(x) > f(x_r)); NaN without reference */
} sg_point_summary;
