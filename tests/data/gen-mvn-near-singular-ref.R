# gen-mvn-near-singular-ref.R — reference values for the near-singular
# bivariate cases of tests/test-mvn.c (test_near_singular): P(X1 < 0,
# X2 < 0) for unit variances and correlation rho near +-1, plus two
# rectangles, from R mvtnorm's pmvnorm (Genz's bivariate method, TVPACK,
# exact to ~1e-15 absolute for d = 2) and the closed form of the orthant,
# 1/4 + asin(rho) / (2 pi) (Sheppard 1899), computed in R's doubles.
# gen-mvn-near-singular-ref.py prints scipy's values for the same cases.
# Run: Rscript tests/data/gen-mvn-near-singular-ref.R
suppressMessages(library(mvtnorm))
show <- function(name, p) cat(sprintf("%-24s %.17g\n", name, p))
for (rho in c(0.9999999, -0.99999999, -0.999999999999, 0.999999, -0.9999)) {
  S <- matrix(c(1, rho, rho, 1), 2)
  p <- pmvnorm(upper = c(0, 0), sigma = S, algorithm = TVPACK(abseps = 1e-16))
  show(sprintf("orthant %.15g", rho), p)
  # asin loses the relative accuracy of 1 + rho near -1: there the
  # closed form is acos(-rho) / (2 pi) with acos(x) near 1 written
  # 2 asin(sqrt((1 - x) / 2))
  show(sprintf("sheppard %.15g", rho),
       if (rho < 0) 2 * asin(sqrt((1 + rho) / 2)) / (2 * pi) else 0.25 + asin(rho) / (2 * pi))
}
# rectangles (mvtdst integrates d = 2 by its bivariate formula, BVNMVN):
# rho = 0.99999999, X1 in [-1, 0.5], X2 in [0.2, 2]; and
# rho = -0.9999999999, X1 in [0, 1], X2 in [-1e-5, 3]
S <- matrix(c(1, 0.99999999, 0.99999999, 1), 2)
show("rect_pos", pmvnorm(lower = c(-1, 0.2), upper = c(0.5, 2), sigma = S,
                         algorithm = GenzBretz(abseps = 1e-15)))
S <- matrix(c(1, -0.9999999999, -0.9999999999, 1), 2)
show("rect_neg", pmvnorm(lower = c(0, -1e-5), upper = c(1, 3), sigma = S,
                         algorithm = GenzBretz(abseps = 1e-15)))
