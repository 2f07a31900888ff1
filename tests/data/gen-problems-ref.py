#!/usr/bin/python3
"""Reference values of the BO benchmark objectives (tests/test-problems.c).

Independent NumPy implementations of the objectives of DESIGN §3.10 in the
maximisation convention (minimisation problems negated), evaluated at a
few fixed points per problem (the optimiser, the box centre, corners and
seeded uniform points). Writes problems-ref.csv: name,value,x1,...,xd.
Usage: /usr/bin/python3 tests/data/gen-problems-ref.py tests/data
"""
import sys
import numpy as np

def cos1d(x): return np.cos(5 * x[0]) + np.exp(-x[0] ** 2 / 2)
def camel(x):
    x1, x2 = x
    return -((4 - 2.1 * x1 ** 2 + x1 ** 4 / 3) * x1 ** 2 + x1 * x2 + (-4 + 4 * x2 ** 2) * x2 ** 2)
def langermann(x):
    A = np.array([[3, 5], [5, 2], [2, 1], [1, 4], [7, 9]], float)
    c = np.array([1, 2, 5, 2, 3], float)
    d = ((np.asarray(x) - A) ** 2).sum(1)
    return -np.sum(c * np.exp(-d / np.pi) * np.cos(np.pi * d))
def colville(x):
    x1, x2, x3, x4 = x
    return -(100 * (x1 ** 2 - x2) ** 2 + (x1 - 1) ** 2 + (x3 - 1) ** 2 + 90 * (x3 ** 2 - x4) ** 2
             + 10.1 * ((x2 - 1) ** 2 + (x4 - 1) ** 2) + 19.8 * (x2 - 1) * (x4 - 1))
def rosenbrock(x):
    x = np.asarray(x)
    return -np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
def hartmann6(x):
    A = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
                  [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]])
    P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
                         [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]])
    a = np.array([1, 1.2, 3, 3.2])
    return np.sum(a * np.exp(-np.sum(A * (np.asarray(x) - P) ** 2, 1)))

problems = [
    ("cos1d", cos1d, [-2.6], [2.6], [0.0]),
    ("six-hump-camel", camel, [-2, -1], [2, 1], [0.0898, -0.7126]),
    ("langermann", langermann, [0, 0], [10, 10], [2.7934, 1.5972]),
    ("colville", colville, [-10] * 4, [10] * 4, [1, 1, 1, 1]),
    ("rosenbrock5", rosenbrock, [-3] * 5, [3] * 5, [1] * 5),
    ("hartmann6", hartmann6, [0] * 6, [1] * 6, [0.2017, 0.15, 0.4769, 0.2753, 0.3117, 0.6573]),
]
rng = np.random.default_rng(20260001)
with open(sys.argv[1] + "/problems-ref.csv", "w") as out:
    out.write("# name,value,x1..xd (maximisation convention); gen-problems-ref.py\n")
    for name, f, lo, hi, opt in problems:
        lo, hi = np.array(lo, float), np.array(hi, float)
        pts = [np.array(opt, float), (lo + hi) / 2, lo, hi]
        pts += [lo + (hi - lo) * rng.random(len(lo)) for _ in range(6)]
        for x in pts:
            out.write(",".join([name, repr(float(f(x)))] + [repr(float(v)) for v in x]) + "\n")
