/* sg-normal.h — the standard normal distribution, accurate in the tails.
 *
 * Phi is the standard normal CDF, phi its density. The log versions stay
 * finite and accurate far into the lower tail (log Phi(-40) = -804.608...),
 * which SkewGP likelihoods need: they are products of many small Phi values.
 */
#pragma once

double sg_norm_pdf (double x);
double sg_norm_logpdf (double x);
double sg_norm_cdf (double x);
/* log Phi(x); relative error ~1e-15 for all finite x, -inf at -inf. */
double sg_norm_logcdf (double x);
/* Phi^{-1}(p) for p in [0, 1]; +-inf at the ends, NaN outside. */
double sg_norm_quantile (double p);
/* Phi^{-1}(exp(logp)) for logp <= 0, also where exp(logp) underflows. */
double sg_norm_quantile_log (double logp);
/* log(Phi(b) - Phi(a)) for a <= b, without cancellation in either tail. */
double sg_norm_logdiff (double a, double b);
/* The w-quantile of N(0,1) truncated to [a, b] (w in [0, 1]), i.e. x with
 * (Phi(x) - Phi(a)) / (Phi(b) - Phi(a)) = w, accurate in both tails. */
double sg_norm_trunc_quantile (double a, double b, double w);
/* phi(x) / Phi(x) (inverse Mills ratio), finite for all x. */
double sg_norm_hazard (double x);
/* log(exp(a) + exp(b)), safe for -inf arguments. */
double sg_logaddexp (double a, double b);
