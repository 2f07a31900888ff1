# gen-mvn-ref.R — mvtnorm::pmvnorm values for the problems written by
# gen-mvn-ref.py (see tests/data/README.md). Output, one line per problem:
#   id log_value abs_error_of_log_value seconds
# All "general" problems are run (they have no exact truth); "factor"
# problems with d <= 50 are run too, to measure R's real accuracy against
# the 1-D-integral truth.
suppressMessages(library(mvtnorm))
args <- commandArgs(trailingOnly = TRUE)
lines <- readLines(args[1])
lines <- lines[!startsWith(lines, "#")]
num <- function(s) as.numeric(strsplit(trimws(s), " +")[[1]])
set.seed(20261122)
i <- 1
while (i <= length(lines)) {
  h <- strsplit(lines[i], " ")[[1]]
  id <- as.integer(h[2]); kind <- h[3]; d <- as.integer(h[4]); k <- as.integer(h[5])
  m <- num(lines[i + 1]); lo <- num(lines[i + 2]); up <- num(lines[i + 3])
  v <- num(lines[i + 4]); W <- matrix(num(lines[i + 5]), nrow = d, ncol = k, byrow = TRUE)
  i <- i + 6
  if (kind == "factor" && d > 50) next
  S <- W %*% t(W) + diag(v, nrow = d)
  maxpts <- min(5e6, 5e10 / d^2)
  t0 <- proc.time()[["elapsed"]]
  p <- pmvnorm(lower = lo, upper = up, mean = m, sigma = S,
               algorithm = GenzBretz(maxpts = maxpts, abseps = 1e-9, releps = 0))
  secs <- proc.time()[["elapsed"]] - t0
  err <- attr(p, "error")
  cat(sprintf("%d %.17g %.17g %.3f\n", id, log(p), err / p, secs))
  flush(stdout())
}
