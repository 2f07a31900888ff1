#!/usr/bin/python3
"""Exact moments of bivariate truncated normals for tests/test-tmvn.c.

X ~ N(mu, S) restricted to a1 < X1 < b1, a2 < X2 < b2. With X1 ~ N(mu1, s1^2)
and X2 | X1 = x ~ N(m(x), t^2), m(x) = mu2 + rho s2 / s1 (x - mu1),
t = s2 sqrt(1 - rho^2), every moment is a 1-D integral over x of phi1(x)
times a closed-form truncated-normal moment of X2 | x (Johnson, Kotz &
Balakrishnan, Continuous Univariate Distributions vol. 1, sec. 10.1):
  int_a^b phi          = Phi(beta) - Phi(alpha)
  int_a^b y phi        = m dPhi + t (phi(alpha) - phi(beta))
  int_a^b y^2 phi      = (m^2 + t^2) dPhi + 2 m t (phi(alpha) - phi(beta))
                         + t^2 (alpha phi(alpha) - beta phi(beta))
integrated with scipy.integrate.quad (epsabs 1e-14, epsrel 1e-13) and
cross-checked against scipy.integrate.dblquad.

Output: tests/data/tmvn-2d.txt, one case per line:
  mu1 mu2 S11 S12 S22 a1 b1 a2 b2  E1 E2 C11 C12 C22
(C the covariance of the truncated distribution; 'inf' for no bound).
Run: /usr/bin/python3 tests/data/make-tmvn-data.py > tests/data/tmvn-2d.txt
"""
import math
import sys

import numpy as np
from scipy import integrate
from scipy.stats import norm

CASES = [
    # mu          S11  S12   S22   a1     b1      a2     b2
    ((0.0, 0.0), (1.0, 0.0, 1.0), (0.0, math.inf, 0.0, math.inf)),   # independent orthant
    ((0.3, -0.2), (1.0, 0.8, 1.5), (0.0, math.inf, 0.0, math.inf)),  # correlated orthant
    ((-1.0, 0.5), (2.0, -1.2, 1.0), (0.0, math.inf, 0.0, math.inf)), # negative correlation
    ((0.5, 0.5), (1.0, 0.95, 1.0), (-1.0, 1.0, -1.0, 1.0)),          # box, strong correlation
    ((0.0, 0.0), (1.0, -0.9, 1.0), (-0.5, 2.0, -1.5, 0.7)),          # box, several arcs
    ((-2.0, 1.0), (0.5, 0.3, 2.0), (0.0, math.inf, -math.inf, 0.0)), # lower + upper, tail
]


def inner(m, t, a, b):
    """Integrals of 1, y, y^2 against the N(m, t^2) density over (a, b)."""
    al, be = (a - m) / t, (b - m) / t
    dphi = norm.cdf(be) - norm.cdf(al)
    pa = 0.0 if math.isinf(al) else norm.pdf(al)
    pb = 0.0 if math.isinf(be) else norm.pdf(be)
    apa = 0.0 if math.isinf(al) else al * pa
    bpb = 0.0 if math.isinf(be) else be * pb
    i0 = dphi
    i1 = m * dphi + t * (pa - pb)
    i2 = (m * m + t * t) * dphi + 2 * m * t * (pa - pb) + t * t * (apa - bpb)
    return i0, i1, i2


def moments(mu, S, box):
    mu1, mu2 = mu
    s11, s12, s22 = S
    a1, b1, a2, b2 = box
    s1, s2 = math.sqrt(s11), math.sqrt(s22)
    rho = s12 / (s1 * s2)
    t = s2 * math.sqrt(1 - rho * rho)

    def integrand(x, which):
        m = mu2 + rho * s2 / s1 * (x - mu1)
        i0, i1, i2 = inner(m, t, a2, b2)
        w = norm.pdf(x, mu1, s1)
        return w * {"1": i0, "x": x * i0, "xx": x * x * i0,
                    "y": i1, "yy": i2, "xy": x * i1}[which]

    # finite integration range: 12 sd around the mean, clipped to the box
    lo, hi = max(a1, mu1 - 12 * s1), min(b1, mu1 + 12 * s1)
    q = {k: integrate.quad(integrand, lo, hi, args=(k,), epsabs=1e-14,
                           epsrel=1e-13, limit=500)[0]
         for k in ("1", "x", "xx", "y", "yy", "xy")}
    p = q["1"]
    e1, e2 = q["x"] / p, q["y"] / p
    c11 = q["xx"] / p - e1 * e1
    c22 = q["yy"] / p - e2 * e2
    c12 = q["xy"] / p - e1 * e2
    return p, (e1, e2), (c11, c12, c22)


def check_dblquad(mu, S, box, p, e):
    """Independent check of P and E[X1] by 2-D quadrature."""
    cov = np.array([[S[0], S[1]], [S[1], S[2]]])
    inv = np.linalg.inv(cov)
    det = np.linalg.det(cov)
    a1, b1, a2, b2 = box
    sd = math.sqrt(max(S[0], S[2]))

    def dens(y, x):
        d = np.array([x - mu[0], y - mu[1]])
        return math.exp(-0.5 * d @ inv @ d) / (2 * math.pi * math.sqrt(det))

    lo1, hi1 = max(a1, mu[0] - 12 * sd), min(b1, mu[0] + 12 * sd)
    lo2, hi2 = max(a2, mu[1] - 12 * sd), min(b2, mu[1] + 12 * sd)
    pp = integrate.dblquad(dens, lo1, hi1, lo2, hi2, epsabs=1e-12)[0]
    ex = integrate.dblquad(lambda y, x: x * dens(y, x), lo1, hi1, lo2, hi2,
                           epsabs=1e-12)[0] / pp
    assert abs(pp - p) < 1e-8 * max(p, 1e-3), (pp, p)
    assert abs(ex - e[0]) < 1e-7, (ex, e[0])


def fmt(v):
    return "inf" if v == math.inf else "-inf" if v == -math.inf else repr(float(v))


def main():
    for mu, S, box in CASES:
        p, e, c = moments(mu, S, box)
        check_dblquad(mu, S, box, p, e)
        print(" ".join(fmt(v) for v in (*mu, *S, *box, *e, *c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
