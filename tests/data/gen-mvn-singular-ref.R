# gen-mvn-singular-ref.R — reference values for the regression cases of
# tests/test-mvn.c (test_mvtnorm_regressions), taken from R mvtnorm's own
# regression suite, file tests/bugfix-tests.R of the mvtnorm sources
# (CRAN package mvtnorm; the values below are from mvtnorm 1.1-3, Debian's
# r-cran-mvtnorm), plus singular cases built the same way.
# Run: Rscript tests/data/gen-mvn-singular-ref.R
suppressMessages(library(mvtnorm))
set.seed(290875)   # the seed bugfix-tests.R uses
tight <- GenzBretz(maxpts = 2e7, abseps = 1e-13, releps = 0)
show <- function(name, p) cat(sprintf("%-28s %.17g  (error %.2g)\n", name, p,
                                      max(attr(p, "error"), 0)))

# "correlation matrices for unequal variances were wrong" (Ohman-Strickland)
a <- 4.048; shi <- -9; slo <- -10; mu <- -5
sig <- matrix(c(1, 1, 1, 2), ncol = 2)
show("ohman_strickland", pmvnorm(lower = c(-a, slo), upper = c(a, shi),
                                 mean = c(mu, 2 * mu), sigma = sig, algorithm = tight))

# "cases where the support is the empty set" (Thomson): all exactly 0
show("empty_upper_minus_inf", pmvnorm(upper = c(-Inf, 1)))
show("empty_lower_plus_inf", pmvnorm(lower = c(Inf, 1)))
show("singular_disjoint", pmvnorm(lower = c(-2, 0), upper = c(-1, 1),
                                  corr = matrix(rep(1, 4), 2, 2)))
# "bugged Fritz" and "bug in mvtdst": 0.5 and 1
show("half_plane", pmvnorm(-Inf, c(Inf, 0), 0, diag(2)))
show("whole_plane", pmvnorm(lo = c(-Inf, -Inf), up = c(Inf, Inf), mean = c(0, 0)))
# "was == 1; spotted by Alex Lenkoski": 0.25
show("lenkoski", pmvnorm(c(-Inf, -Inf, 0, 0)))
# "spotted by Tobias Mielke, fixed in mvtdst.f 2013-05-29": corr of ones,
# the truth pnorm(1.96 - 1.72)
show("mielke_ones", pmvnorm(lower = c(-Inf, -Inf), upper = c(1.96, 1.96),
                            mean = c(1.72, 1.72), corr = matrix(1, 2, 2)))
show("mielke_truth", pnorm(0.24))
# "larger dimensions": pnorm(2)^90, pnorm(2)^199
show("identity_90", pnorm(2)^90)
show("identity_199", pnorm(2)^199)
# "spotted and fixed by Xuefei Mi" (NaN was given, Miwa)
S <- diag(3); S[2, 1] <- S[1, 2] <- 1/4; S[3, 1] <- S[1, 3] <- 1/5
S[3, 2] <- S[2, 3] <- 1/3
show("xuefei_mi", pmvnorm(lower = c(-Inf, 0, 0), upper = c(0, Inf, Inf),
                          mean = c(0, 0, 0), sigma = S, algorithm = Miwa(steps = 4096)))
# "grrr, still problems in approx_interval": the rank-1 covariance
# tcrossprod(c(0.009, 0.75, 0.25)); its 95% quantile, and P below it
# (X = a z: P(X < q) = pnorm(q / 0.75) exactly)
q <- qmvnorm(.95, sigma = tcrossprod(c(0.009, 0.75, 0.25)))$quantile
show("rank1_quantile", q)
show("rank1_at_quantile_exact", pnorm(q / 0.75))
# "NaN spotted by David Charles Airey": the 10-D correlation given to
# mvtdst packed (CORREL), bounds +-0.430060315238938; it is singular (rank 4)
correl <- c(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, -2.75206388903997e-16,
  -3.44007986129997e-16, -0.5, -4.12809583355996e-16, 0.499999999999999,
  -6.19214375033994e-16, 0.5, -0.5, -4.12809583355996e-16, -5.50412777807995e-16,
  0.5, 0.5, 0.5, -1.37603194451999e-16, -0.5, 0.5, -2.75206388903997e-16, -0.5,
  0.5, -1.37603194451999e-16, -6.88015972259993e-17, -0.5, -2.75206388903997e-16,
  0.5, -0.5, -2.06404791677998e-16, 0.5, 0.5, 6.88015972259993e-17, 0, -0.5, 0.5,
  -6.88015972259993e-17, -0.5, 0.5, -0.5, 0.5)
R <- diag(10); k <- 1
for (i in 2:10) for (j in 1:(i - 1)) { R[i, j] <- R[j, i] <- correl[k]; k <- k + 1 }
cat("airey_rank", qr(R, tol = 1e-10)$rank, "\n")
b <- 0.430060315238938
show("airey", pmvnorm(lower = rep(-b, 10), upper = rep(b, 10), corr = R,
                      algorithm = GenzBretz(maxpts = 2e7, abseps = 1e-7, releps = 0)))
# Rank-deficient one-factor covariance a a^T + diag(0, 0.5, 0.5), a = (1, 1, 1)
S1 <- tcrossprod(c(1, 1, 1)) + diag(c(0, 0.5, 0.5))
show("one_factor_rank_deficient", pmvnorm(lower = c(0, -1, -1), upper = c(0.5, 1, 2),
                                          sigma = S1, algorithm = tight))
# Exact by 1-D integration over the factor z (X1 = z in [0, 0.5])
f <- function(z) dnorm(z) * (pnorm((1 - z) / sqrt(.5)) - pnorm((-1 - z) / sqrt(.5))) *
  (pnorm((2 - z) / sqrt(.5)) - pnorm((-1 - z) / sqrt(.5)))
show("one_factor_rank_deficient_1d", integrate(f, 0, 0.5, rel.tol = 1e-13)$value)
