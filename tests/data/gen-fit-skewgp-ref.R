# Reference optima of the exact SkewGP log evidence (paper 001 eq. 39) for
# tests/test-fit.c, with orthant probabilities from mvtnorm's GenzBretz
# algorithm (5e5 points, absolute error ~2e-6, i.e. ~1e-4 relative here),
# reseeded before every call so the objective is deterministic; the value
# at the optimum is then recomputed with 1e7 points (error ~1e-7). (mvtnorm 1.1.3's
# Miwa algorithm returns negative values for these 7-dimensional orthants,
# so it is not used.)
#
# Run once from the repository root:
#     Rscript tests/data/gen-fit-skewgp-ref.R tests/data
#
# Data: 7 noisy duels of g(x) = cos(5x) + exp(-x^2/2) on [-2.6, 2.6]
# (docs/DESIGN.md §3.10), winner by g(a) - g(b) + N(0, 2 * 0.5^2) (noisy enough
# that the maximum-likelihood variance is finite).
# Model: RBF kernel, mean 0, preference rows Phi((f(w) - f(l)) / (sqrt2 sd_p))
# with sd_p = 1 (sg-data.h), so t = W f + e, e ~ N(0, 2 I), p = P(t > 0).
#
# fit-skewgp-duels.csv   winner, loser
# fit-skewgp-meta.csv    key,value lines:
#   gp_lengthscale, gp_variance, gp_log_evidence
#       GP prior (s = 0): max over (log l, log v) by Nelder-Mead from
#       three starts, then a final polish.
#   skew_lengthscale, skew_variance, skew_pseudo_point, skew_phase
#       a SkewGP_1 prior with these fixed values, and
#   skew_gamma, skew_log_evidence
#       its max over gamma in [-3, 3] (optimize), where
#       log p = log P(t > 0) - log Phi(gamma),
#       t = [ (f(u) - 0) / sigma + gamma ; W f + e ]  (001 eq. 11 / 39).
library(mvtnorm)

args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args) > 0) args[1] else "."

set.seed(11)
n <- 7
g <- function(x) cos(5 * x) + exp(-x^2 / 2)
xa <- runif(n, -2.6, 2.6)
xb <- runif(n, -2.6, 2.6)
d <- g(xa) - g(xb) + rnorm(n, 0, sqrt(2) * 0.5)
win <- ifelse(d >= 0, xa, xb)
los <- ifelse(d >= 0, xb, xa)
X <- c(win, los)
W <- cbind(diag(n), -diag(n))
rbf <- function(a, b, l, v) v * exp(-outer(a, b, "-")^2 / (2 * l^2))
orthant <- function(mu, S, maxpts = 5e5) {
  set.seed(1)
  p <- pmvnorm(lower = rep(0, length(mu)), upper = rep(Inf, length(mu)),
               mean = mu, sigma = S,
               algorithm = GenzBretz(maxpts = maxpts, abseps = 1e-10, releps = 0))
  log(as.numeric(p))
}

gp_logev <- function(th, maxpts = 5e5) {
  K <- rbf(X, X, exp(th[1]), exp(th[2]))
  orthant(rep(0, n), W %*% K %*% t(W) + 2 * diag(n), maxpts)
}
best <- NULL
for (start in list(c(log(0.3), 0), c(log(1), log(3)))) {
  o <- optim(start, function(t) -gp_logev(t), control = list(reltol = 1e-9))
  if (is.null(best) || o$value < best$value) best <- o
}
best <- optim(best$par, function(t) -gp_logev(t), control = list(reltol = 1e-10))
best$value <- -gp_logev(best$par, 1e7)

sl <- 0.4; sv <- 2.0; su <- -2; sphase <- -1
skew_logev <- function(gam, maxpts = 5e5) {
  Z <- c(X, su)
  K <- rbf(Z, Z, sl, sv)
  P <- rbind(cbind(matrix(0, 1, 2 * n), sphase / sqrt(sv)),
             cbind(W, matrix(0, n, 1)))
  S <- P %*% K %*% t(P) + diag(c(0, rep(2, n)))
  orthant(c(gam, rep(0, n)), S, maxpts) - pnorm(gam, log.p = TRUE)
}
sk <- optimize(function(gm) -skew_logev(gm), c(-3, 3), tol = 1e-6)
sk$objective <- -skew_logev(sk$minimum, 1e7)

write.table(data.frame(winner = sprintf("%.17g", win), loser = sprintf("%.17g", los)),
            file.path(outdir, "fit-skewgp-duels.csv"), sep = ",",
            quote = FALSE, row.names = FALSE)
meta <- c(sprintf("mvtnorm,%s", packageVersion("mvtnorm")),
          sprintf("gp_lengthscale,%.17g", exp(best$par[1])),
          sprintf("gp_variance,%.17g", exp(best$par[2])),
          sprintf("gp_log_evidence,%.17g", -best$value),
          sprintf("skew_lengthscale,%.17g", sl),
          sprintf("skew_variance,%.17g", sv),
          sprintf("skew_pseudo_point,%.17g", su),
          sprintf("skew_phase,%.17g", sphase),
          sprintf("skew_gamma,%.17g", sk$minimum),
          sprintf("skew_log_evidence,%.17g", -sk$objective))
writeLines(meta, file.path(outdir, "fit-skewgp-meta.csv"))
cat(meta, sep = "\n")
