# gen-skewgp-ref.R — high-precision log marginal likelihoods of SkewGP
# posteriors with 10-14 truncated rows, for tests/test-skewgp.c.
#
#   Rscript tests/data/gen-skewgp-ref.R > tests/data/skewgp-evidence-ref.csv
#
# Independent of the C code: the SUN parameters are computed literally from
# paper 001 (prior eqs. 10-11, Lemma 2 eqs. 26-29, then Lemma 1 eqs. 13-17),
# and Corollary 3 (eq. 39) is evaluated with mvtnorm::pmvnorm (Genz-Bretz
# with 2e7 points and abseps 1e-12), which reports its own error estimate.
# The data sets are rebuilt from the same closed-form recipe in the C test.
library(mvtnorm)

rbf <- function(a, b, v, l) v * exp(-0.5 * outer(a, b, "-")^2 / l^2)

# Data set k: inputs x_i = 0.37 i mod 3.1 (i = 0..n-1); observations:
#   numeric at x_0 (y = 0.4) and x_1 (y = -0.3), valid at x_2 (y = 0.9, h = 0.5),
#   invalid at x_3 (h = 0.6), binary +1 at x_4, -1 at x_5,
#   preferences x_i > x_{i+1} for i = 6 .. n-2, and x_6 > x_0.
# numeric_sd 0.3, probit_sd 0.5; kernel RBF variance 1.3, lengthscale 0.6;
# constant mean 0.1; s = 2 pseudo-points U = (0.8, 2.2), L = (1, -1),
# gamma = (0.3, -0.2) (or s = 0).
one <- function(n, s) {
  x <- (0.37 * (0:(n - 1))) %% 3.1
  v <- 1.3; l <- 0.6; xi0 <- 0.1; s1 <- 0.3; s2 <- 0.5
  K <- rbf(x, x, v, l)
  C <- matrix(0, 3, n); y <- c(0.4, -0.3, 0.9)
  C[1, 1] <- 1; C[2, 2] <- 1; C[3, 3] <- 1
  R <- diag(s1^2, 3)
  rows <- list(); zz <- c(); sig <- c()
  add <- function(w, z, sd) { rows[[length(rows) + 1]] <<- w; zz <<- c(zz, z); sig <<- c(sig, sd) }
  e <- function(i) { w <- rep(0, n); w[i + 1] <- 1; w }
  add(e(2), -0.5, s1)             # valid: Phi((f - h)/s1)
  add(-e(3), 0.6, s1)             # invalid: Phi((h - f)/s1)
  add(e(4), 0, s2)                # binary +1
  add(-e(5), 0, s2)               # binary -1
  for (i in 6:(n - 2)) add(e(i) - e(i + 1), 0, sqrt(2) * s2)
  add(e(6) - e(0), 0, sqrt(2) * s2)
  W <- do.call(rbind, rows); Sigma <- diag(sig^2, length(sig))
  xi <- rep(xi0, n)
  D <- diag(sqrt(diag(K))); Dinv <- diag(1 / sqrt(diag(K)))
  Ob <- Dinv %*% K %*% Dinv
  if (s > 0) {
    U <- c(0.8, 2.2); L <- diag(c(1, -1)); gam <- c(0.3, -0.2)
    Delta <- (rbf(x, U, v, l) / v) %*% L
    Gam <- L %*% (rbf(U, U, v, l) / v) %*% L
  } else {
    Delta <- matrix(0, n, 0); Gam <- matrix(0, 0, 0); gam <- c()
  }
  # Lemma 2 (eqs. 27-29)
  Dp <- cbind(Delta, Ob %*% D %*% t(W))
  gp <- c(gam, zz + W %*% xi)
  Gp <- rbind(cbind(Gam, t(Delta) %*% D %*% t(W)),
              cbind(W %*% D %*% Delta, W %*% K %*% t(W) + Sigma))
  # Lemma 1 (eqs. 13-17) with the Lemma 2 SUN as prior
  S <- C %*% K %*% t(C) + R
  xip <- xi + K %*% t(C) %*% solve(S, y - C %*% xi)
  Kp <- K - K %*% t(C) %*% solve(S, C %*% K)
  Dq <- diag(sqrt(diag(Kp))); Obp <- diag(1 / sqrt(diag(Kp))) %*% Kp %*% diag(1 / sqrt(diag(Kp)))
  Dpost <- Obp %*% Dq %*% Dinv %*% solve(Ob, Dp)
  gt <- gp + t(Dp) %*% solve(Ob, Dinv %*% (xip - xi))
  Gt <- Gp - t(Dp) %*% solve(Ob, Dp) + t(Dpost) %*% solve(Obp, Dpost)
  Gt <- (Gt + t(Gt)) / 2
  lnorm <- dmvnorm(y, as.vector(C %*% xi), S, log = TRUE)
  set.seed(1)
  alg <- GenzBretz(maxpts = 2e7, abseps = 1e-12, releps = 0)
  pm <- pmvnorm(upper = as.vector(gt), sigma = Gt, algorithm = alg)
  if (s > 0) ps <- pmvnorm(upper = gam, sigma = Gam, algorithm = alg) else ps <- 1
  err <- attr(pm, "error") / pm[1] + (if (s > 0) attr(ps, "error") / ps[1] else 0)
  cat(sprintf("%d,%d,%d,%.15g,%.3g\n", n, s, length(gt), lnorm + log(pm[1]) - log(ps[1]), err))
}
cat("n,s,m,log_ml,rel_error\n")
one(10, 0)
one(10, 2)
one(12, 2)
