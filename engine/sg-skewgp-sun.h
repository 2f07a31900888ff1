/* sg-skewgp-sun.h — the SUN distribution and the paper's literal formulas.
 *
 * SUN_{p,s}(xi, Omega, Delta, gamma, Gamma) (001 eq. 6, Azzalini 2013
 * ch. 7), Omega = D Omegabar D, D = diag(sqrt(diag Omega)). These functions
 * implement 001 Lemma 2 (eqs. 25-29) and Lemma 1 (eqs. 13-17) exactly as
 * printed, so that tests can check the production route of sg-skewgp.c
 * (joint Gaussian + truncation) against the paper. They are O(p^3) with
 * explicit inverses: reference code, not for large problems.
 *
 * Invariance: for a positive diagonal V, (Delta V, V gamma, V Gamma V)
 * describe the same distribution (001 sec. 2.1, footnote 1);
 * sg_sun_normalize picks V with diag(Gamma) = 1.
 */
#pragma once

#include "sg-common.h"
#include "sg-skewgp.h"

typedef struct {
  size_t p, s;
  double *xi;      /* p     */
  double *Omega;   /* p x p */
  double *Delta;   /* p x s */
  double *gamma;   /* s     */
  double *Gamma;   /* s x s */
} sg_sun;

/* Allocates a zeroed SUN_{p,s}; SG_ENOMEM. */
sg_status sg_sun_init (sg_sun *sun, size_t p, size_t s);
void sg_sun_clear (sg_sun *sun);

/* The SkewGP_s prior at inputs X (n x dim) as a SUN_{n,s} (001 eqs. 10-11):
 * xi = mean, Omega = K(X,X), Delta = Kbar(X,U) L, Gamma = L Kbar(U,U) L. */
sg_status sg_sun_from_skewgp_prior (const sg_skewgp_prior *prior, const double *X,
                                    size_t n, sg_sun *out);

/* 001 Lemma 2: prior SUN_{p,s} times Phi_ma(z + W f; Sigma) gives
 * SUN_{p,s+ma} (eqs. 26-29). W is ma x p, Sigma ma x ma. */
sg_status sg_sun_probit_update (const sg_sun *prior, size_t ma, const double *W,
                                const double *z, const double *Sigma, sg_sun *post);

/* 001 Lemma 1: prior SUN_{p,s} times phi_mr(y - C f; R) gives SUN_{p,s}
 * (eqs. 13-17). C is mr x p, R mr x mr. */
sg_status sg_sun_normal_update (const sg_sun *prior, size_t mr, const double *C,
                                const double *y, const double *R, sg_sun *post);

/* Rescales (Delta, gamma, Gamma) so that diag(Gamma) = 1. */
void sg_sun_normalize (sg_sun *sun);

/* The posterior of f at the training inputs as the implementation sees it:
 * xi = E[f | y], Omega = Cov[f | y], Delta = D^{-1} Cov[f, t | y],
 * gamma = E[t | y], Gamma = Cov[t | y] (001 eq. 8: f = xi + D(r0 +
 * Delta Gamma^{-1} r1), r1 = t - gamma truncated to r1 > -gamma).
 * A SUN truncates to an orthant: a posterior with tie rows (0 < t < upper)
 * is not one, and gets SG_EINVAL. */
sg_status sg_skewgp_posterior_sun (const sg_skewgp_posterior *post, sg_sun *out);

/* ---- Density and moments (for plots and tests) --------------------------- */

/* The SUN_{p,s} density (000 eq. 1, 001 eq. 6) at the K points Z (k x p,
 * row-major) into DENSITY[k]:
 *   phi_p(z - xi; Omega)
 *   * Phi_s(gamma + Delta^T Omegabar^{-1} D^{-1} (z - xi);
 *           Gamma - Delta^T Omegabar^{-1} Delta) / Phi_s(gamma; Gamma),
 * evaluated in log space (Omegabar^{-1} D^{-1} = D Omega^{-1}). Phi_s(c; S)
 * = P(X <= c), X ~ N(0, S), by sg_mvn: closed form for s <= 2, QMC with
 * OPT (NULL: defaults) for s >= 3. W is a workspace for dimension >= s
 * (NULL: allocated per call). s = 0 gives the Gaussian density.
 * SG_EINVAL (sizes, NaN), SG_ENOTPD (Omega not positive definite; Gamma
 * may be singular), SG_ENOMEM. */
sg_status sg_sun_density (const sg_sun *sun, const double *Z, size_t k,
                          sg_mvn_workspace *w, const sg_mvn_options *opt,
                          double *density);

/* Mean and variance of every component z_i of a SUN_{p,s}, in closed form
 * from the moment generating function of its marginal SUN_{1,s}
 * (000 eq. 3; Arellano-Valle & Azzalini 2006, sec. 2.3):
 *   M(t) = exp(xi t + omega^2 t^2 / 2) G(t) / G(0),
 *   G(t) = Phi_s(gamma + delta omega t; Gamma),
 * omega = sqrt(Omega_ii), delta = row i of Delta. So, with g and H the
 * gradient and Hessian of Phi_s(.; Gamma) at gamma,
 *   E z_i   = xi_i + omega delta^T g / Phi_s,
 *   Var z_i = omega^2 (1 + delta^T H delta / Phi_s - (delta^T g / Phi_s)^2).
 * g_k is a normal density times a Phi_{s-1} of the conditional law given
 * x_k = gamma_k; off-diagonal H_kl a bivariate density times a Phi_{s-2};
 * H_kk = -(gamma_k g_k + sum_{l != k} Gamma_kl H_kl) / Gamma_kk (the
 * derivative of g_k). s = 1 is the extended skew-normal: E = xi + omega
 * delta zeta_1(gamma), zeta_1 = phi / Phi. The Phi_{s-1}, Phi_{s-2} are
 * closed forms up to dimension 2 (exact for s <= 3), QMC with OPT beyond.
 * MEAN and VAR (p entries each; either may be NULL). SG_EINVAL, SG_ENOTPD
 * (a diagonal entry of Gamma <= 0 or a 2 x 2 block of Gamma singular,
 * e.g. two pseudo-points at the same place: the Hessian then needs the
 * reduced SUN), SG_ENOMEM. */
sg_status sg_sun_marginal_moments (const sg_sun *sun, sg_mvn_workspace *w,
                                   const sg_mvn_options *opt, double *mean,
                                   double *var);
