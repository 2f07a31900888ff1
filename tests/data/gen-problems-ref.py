#!/usr/bin/python3
"""Reference values of the BO benchmark objectives (tests/test-problems.c).

Independent NumPy implementations of the objectives of docs/DESIGN.md §3.10 in the
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

def branin(x):
    b, c, t = 5.1 / (4 * np.pi ** 2), 5 / np.pi, 1 / (8 * np.pi)
    return -((x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * np.cos(x[0]) + 10)
def ackley(x):
    x = np.asarray(x); d = len(x)
    return (20 * np.exp(-0.2 * np.sqrt(np.sum(x ** 2) / d)) + np.exp(np.sum(np.cos(2 * np.pi * x)) / d)
            - 20 - np.e)
def bukin6(x): return -(100 * np.sqrt(abs(x[1] - 0.01 * x[0] ** 2)) + 0.01 * abs(x[0] + 10))
def cross_in_tray(x):
    r = np.hypot(x[0], x[1])
    return 1e-4 * (abs(np.sin(x[0]) * np.sin(x[1]) * np.exp(abs(100 - r / np.pi))) + 1) ** 0.1
def eggholder(x):
    return ((x[1] + 47) * np.sin(np.sqrt(abs(x[1] + x[0] / 2 + 47)))
            + x[0] * np.sin(np.sqrt(abs(x[0] - (x[1] + 47)))))
def holder_table(x):
    return abs(np.sin(x[0]) * np.cos(x[1]) * np.exp(abs(1 - np.hypot(x[0], x[1]) / np.pi)))
def levy(x):
    w = 1 + (np.asarray(x) - 1) / 4
    return -(np.sin(np.pi * w[0]) ** 2
             + np.sum((w[:-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:-1] + 1) ** 2))
             + (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2))
def levy_takeno(x):
    # Takeno et al.'s code: the middle sum is left out, and the "1 +" of the last term
    w = 1 + (np.asarray(x) - 1) / 4
    return -(np.sin(np.pi * w[0]) ** 2 + (w[-1] - 1) ** 2 * np.sin(2 * np.pi * w[-1]) ** 2)
def levy13(x):
    return -(np.sin(3 * np.pi * x[0]) ** 2 + (x[0] - 1) ** 2 * (1 + np.sin(3 * np.pi * x[1]) ** 2)
             + (x[1] - 1) ** 2 * (1 + np.sin(2 * np.pi * x[1]) ** 2))
HA = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
               [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]])
HP = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
                      [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]])
Ha = np.array([1, 1.2, 3, 3.2])
def hartmann3(x):
    A = np.array([[3, 10, 30], [0.1, 10, 35], [3, 10, 30], [0.1, 10, 35]])
    P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]])
    return np.sum(Ha * np.exp(-np.sum(A * (np.asarray(x) - P) ** 2, 1)))
def hartmann4(x):
    return (np.sum(Ha * np.exp(-np.sum(HA[:, :4] * (np.asarray(x) - HP[:, :4]) ** 2, 1))) - 1.1) / 0.839
def machine(x):
    # the safe-machine problem: x = (ln gain, taps, temperature)
    a, b, c = (x[0] - 0.9) / 1.6, (x[1] - 5) / 3.0, (x[2] - 220) / 22.0
    return 100 * np.exp(-0.5 * (a * a + b * b + c * c + 0.6 * a * c))
def alpine1(x):
    x = np.asarray(x)
    return -np.sum(abs(x * np.sin(x) + 0.1 * x))

problems = [
    ("cos1d", cos1d, [-2.6], [2.6], [0.0]),
    ("six-hump-camel", camel, [-2, -1], [2, 1], [0.0898, -0.7126]),
    ("langermann", langermann, [0, 0], [10, 10], [2.7934, 1.5972]),
    ("colville", colville, [-10] * 4, [10] * 4, [1, 1, 1, 1]),
    ("rosenbrock5", rosenbrock, [-3] * 5, [3] * 5, [1] * 5),
    ("hartmann6", hartmann6, [0] * 6, [1] * 6, [0.2017, 0.15, 0.4769, 0.2753, 0.3117, 0.6573]),
    # Takeno et al. 2023 and qEUBO (Astudillo et al. 2023)
    ("branin", branin, [-5, 0], [10, 15], [-np.pi, 12.275]),
    ("ackley4", ackley, [-32.768] * 4, [32.768] * 4, [0] * 4),
    ("bukin6", bukin6, [-15, -3], [-5, 3], [-10, 1]),
    ("cross-in-tray", cross_in_tray, [-10, -10], [10, 10], [1.3491, 1.3491]),
    ("eggholder", eggholder, [-512, -512], [512, 512], [512, 404.2319]),
    ("holder-table", holder_table, [-10, -10], [10, 10], [8.05502, 9.66459]),
    ("levy4", levy, [-10] * 4, [10] * 4, [1] * 4),
    ("levy13", levy13, [-10, -10], [10, 10], [1, 1]),
    ("hartmann3", hartmann3, [0] * 3, [1] * 3, [0.114614, 0.555649, 0.852547]),
    ("hartmann4", hartmann4, [0] * 4, [1] * 4, [0.1873, 0.1941, 0.5579, 0.2648]),
    ("ackley6", ackley, [-2] * 6, [2] * 6, [0] * 6),
    ("alpine1-7", alpine1, [-10] * 7, [10] * 7, [0] * 7),
    ("levy4-takeno", levy_takeno, [-10] * 4, [10] * 4, [1] * 4),
    # the safe benchmarks (sg-problems.h)
    ("safe-branin", branin, [-5, 0], [10, 15], [-np.pi, 12.275]),
    ("safe-hartmann3", hartmann3, [0] * 3, [1] * 3, [0.114614, 0.555649, 0.852547]),
    ("safe-hartmann4", hartmann4, [0] * 4, [1] * 4, [0.1873, 0.1941, 0.5579, 0.2648]),
    ("safe-machine", machine, [np.log(0.01), 1, 180], [np.log(100), 9, 260], [0.9, 5, 220]),
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
