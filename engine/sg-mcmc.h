/* sg-mcmc.h — Markov-chain diagnostics: autocorrelation time and
 * effective sample size.
 *
 * For a stationary chain x_1..x_n of a scalar statistic, the variance of
 * its sample mean is approximately var(x) tau / n, where
 *
 *   tau = 1 + 2 sum_{k >= 1} rho(k)
 *
 * is the integrated autocorrelation time (IAT) and rho the autocorrelation
 * function; n / tau is the effective sample size (ESS). rho is estimated by
 * FFT and the sum is truncated with Sokal's automatic window: the smallest
 * M with M >= C tau(M), C = 5 (Sokal 1997, "Monte Carlo methods in
 * statistical mechanics", sec. 3; the estimator used by emcee, Foreman-Mackey
 * et al. 2013). The estimate is reliable when n is at least ~50 tau.
 */
#pragma once

#include "sg-common.h"

/* IAT of N_CHAINS chains of N values each; value t of chain c is
 * X[c * CHAIN_OFFSET + t * STRIDE] (so the column j of an (n_chains n) x d
 * row-major sample matrix whose chains are contiguous row blocks is
 * x = samples + j, chain_offset = n d, stride = d). The chains are centred on
 * their common mean and their autocovariances averaged, so chains that
 * disagree raise tau instead of hiding it. A constant series has tau = 1.
 * Returns SG_OK, SG_EINVAL (n < 2, n_chains = 0, non-finite values) or
 * SG_ENOMEM; *TAU is set only on success. */
sg_status sg_mcmc_iat (const double *x, size_t n_chains, size_t n,
                       size_t chain_offset, size_t stride, double *tau);

/* Largest IAT over the D columns of a row-major sample matrix holding
 * N_CHAINS contiguous chains of N rows each; the column index where it is
 * attained goes to *WHICH when non-NULL. */
sg_status sg_mcmc_iat_max (const double *samples, size_t n_chains, size_t n,
                           size_t d, double *tau, size_t *which);
