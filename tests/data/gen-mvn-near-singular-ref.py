#!/usr/bin/python3
"""gen-mvn-near-singular-ref.py: scipy's values for the near-singular
bivariate cases of tests/test-mvn.c (test_near_singular); the R script
gen-mvn-near-singular-ref.R beside this file gives mvtnorm's.
scipy.stats.multivariate_normal.cdf integrates d = 2 with Genz's
bivariate method (its qmvn / mvndst code), to abseps 1e-15 here.
Run: /usr/bin/python3 tests/data/gen-mvn-near-singular-ref.py
"""
from scipy.stats import multivariate_normal

for rho in (0.9999999, -0.99999999, -0.999999999999, 0.999999, -0.9999):
    p = multivariate_normal.cdf([0, 0], mean=[0, 0], cov=[[1, rho], [rho, 1]],
                                allow_singular=True, abseps=1e-15, releps=0)
    print(f"orthant {rho!r:<22} {p!r}")
for name, rho, lo, up in (("rect_pos", 0.99999999, [-1, 0.2], [0.5, 2]),
                          ("rect_neg", -0.9999999999, [0, -1e-5], [1, 3])):
    p = multivariate_normal.cdf(up, mean=[0, 0], cov=[[1, rho], [rho, 1]], lower_limit=lo,
                                allow_singular=True, abseps=1e-15, releps=0)
    print(f"{name:<30} {p!r}")
