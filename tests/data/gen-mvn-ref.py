#!/usr/bin/python3
"""gen-mvn-ref.py — reference problems and values for tests/test-mvn.c.

Run once (see tests/data/README.md):
    /usr/bin/python3 tests/data/gen-mvn-ref.py problems  > /tmp/mvn-spec.txt
    Rscript tests/data/gen-mvn-ref.R /tmp/mvn-spec.txt    > /tmp/mvn-r.txt
    /usr/bin/python3 tests/data/gen-mvn-ref.py merge /tmp/mvn-spec.txt /tmp/mvn-r.txt \
        > tests/data/mvn-problems.txt

Every covariance has the form Sigma = W W^T + diag(v) (W is d x k).

* "factor" problems (k = 1, one-factor covariance Sigma = diag(v) + a a^T):
  X_i = a_i Z + sqrt(v_i) E_i with Z, E_i iid N(0,1), so
      P(l < X < u) = int phi(z) prod_i [Phi((u_i - m_i - a_i z)/sqrt v_i)
                                       - Phi((l_i - m_i - a_i z)/sqrt v_i)] dz,
  a 1-D integral evaluated with mpmath at 40 digits (mpf has an unbounded
  exponent, so probabilities like 1e-400 are no problem). This is the truth.
* "general" problems (k up to 10, generic correlation): truth from R
  mvtnorm::pmvnorm (GenzBretz, large maxpts, abseps 1e-9) with its own error
  estimate; scipy.stats.multivariate_normal.cdf is recorded as a second
  opinion.
"""
import math
import sys
import time

import mpmath as mp
import numpy as np

mp.mp.dps = 40
SEED = 20261122


def fmt(x):
    if x == math.inf:
        return "Inf"
    if x == -math.inf:
        return "-Inf"
    return "%.10g" % float(x)


def factor_logprob(a, v, m, lo, up):
    """log P(lo < X < up) for X = m + a Z + diag(sqrt v) E, by 1-D quadrature."""
    a = [mp.mpf(x) for x in a]
    s = [mp.sqrt(mp.mpf(x)) for x in v]
    m = [mp.mpf(x) for x in m]

    def bound(x):
        return None if not math.isfinite(x) else mp.mpf(x)

    lo = [bound(x) for x in lo]
    up = [bound(x) for x in up]

    def logf(z):
        acc = -z * z / 2 - mp.log(mp.sqrt(2 * mp.pi))
        for ai, si, mi, li, ui in zip(a, s, m, lo, up):
            pu = mp.mpf(1) if ui is None else None
            if ui is not None:
                tu = (ui - mi - ai * z) / si
            if li is not None:
                tl = (li - mi - ai * z) / si
            if ui is None:
                p = mp.ncdf(-tl)
            elif li is None:
                p = mp.ncdf(tu)
            else:
                # difference in the tail where both are small
                if tl > 0:
                    p = mp.ncdf(-tl) - mp.ncdf(-tu)
                else:
                    p = mp.ncdf(tu) - mp.ncdf(tl)
            if p <= 0:
                return mp.mpf("-inf")
            acc += mp.log(p)
        return acc

    # locate the peak of the integrand on a grid, then integrate around it
    grid = [mp.mpf(-12) + mp.mpf(i) / 8 for i in range(8 * 24 + 1)]
    vals = [logf(z) for z in grid]
    k = max(range(len(grid)), key=lambda i: vals[i])
    zs = grid[k]
    peak = vals[k]
    f = lambda z: mp.exp(logf(z) - peak)
    pts = [mp.mpf("-inf")] + [zs + mp.mpf(t) for t in (-6, -3, -1.5, -0.5, 0, 0.5, 1.5, 3, 6)] + [mp.mpf("inf")]
    pts = sorted(set(pts))
    val = mp.quad(f, pts)
    return float(peak + mp.log(val))


def make_problems():
    rng = np.random.default_rng(SEED)
    probs = []
    # one-factor problems: exact truth for any d and any tininess
    for d in (5, 10, 20, 50, 100, 200, 300):
        for j in range(8):
            signs = rng.choice([-1.0, 1.0], size=d) if j % 4 == 3 else np.ones(d)
            a = signs * rng.uniform(0.2, 1.2, size=d)
            v = rng.uniform(0.3, 1.5, size=d)
            sd = np.sqrt(a * a + v)
            m = rng.normal(0, 0.5, size=d) if j % 2 == 1 else np.zeros(d)
            c = [1.5, 0.5, 0.0, -0.5, -1.0, -1.5, -2.0, -3.0][j]
            up = m + sd * (c + rng.normal(0, 0.3, size=d))
            lo = np.full(d, -math.inf)
            if j in (1, 4, 6):  # mixed bounds: some two-sided, some lower only
                sel = rng.random(d) < 0.5
                lo[sel] = up[sel] - sd[sel] * rng.uniform(0.5, 3.0, size=sel.sum())
                sel2 = rng.random(d) < 0.2
                lo[sel2] = up[sel2] - sd[sel2] * 2.0
                up[sel2] = math.inf
            probs.append(dict(kind="factor", d=d, k=1, W=a.reshape(d, 1), v=v, m=m, lo=lo, up=up))
    # general problems: generic correlation of rank-k-plus-diagonal form
    for d in (5, 10, 20, 50, 100, 200, 300):
        for j in range(4):
            k = min(d, 10)
            W = rng.normal(0, 1, size=(d, k)) / math.sqrt(k) * rng.uniform(0.5, 1.5)
            v = rng.uniform(0.1, 1.0, size=d)
            sd = np.sqrt((W * W).sum(1) + v)
            m = rng.normal(0, 0.3, size=d) if j % 2 else np.zeros(d)
            # moderate probabilities: bounds a few sd out, more so for larger d
            c = [2.0, 2.5, 3.0, 1.5][j] + 0.25 * math.log(d)
            up = m + sd * (c + rng.normal(0, 0.2, size=d))
            lo = np.full(d, -math.inf)
            if j >= 2:
                lo = m - sd * (c + rng.normal(0, 0.2, size=d))
            probs.append(dict(kind="general", d=d, k=k, W=W, v=v, m=m, lo=lo, up=up))
    return probs


def write_problem(i, p, out):
    d, k = p["d"], p["k"]
    out.write("P %d %s %d %d\n" % (i, p["kind"], d, k))
    out.write(" ".join(fmt(x) for x in p["m"]) + "\n")
    out.write(" ".join(fmt(x) for x in p["lo"]) + "\n")
    out.write(" ".join(fmt(x) for x in p["up"]) + "\n")
    out.write(" ".join(fmt(x) for x in p["v"]) + "\n")
    out.write(" ".join(fmt(x) for x in p["W"].reshape(-1)) + "\n")


def read_problems(path):
    probs = []
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    i = 0
    while i < len(lines):
        if not lines[i].startswith("P "):
            i += 1
            continue
        _, pid, kind, d, k = lines[i].split()
        d, k = int(d), int(k)
        nums = [np.array([float(x) for x in lines[i + j].split()]) for j in range(1, 6)]
        probs.append(dict(id=int(pid), kind=kind, d=d, k=k, m=nums[0], lo=nums[1], up=nums[2],
                          v=nums[3], W=nums[4].reshape(d, k)))
        i += 6
    return probs


def scipy_logprob(p):
    from scipy.stats import multivariate_normal
    cov = p["W"] @ p["W"].T + np.diag(p["v"])
    t = time.time()
    d = p["d"]
    val = multivariate_normal.cdf(p["up"], mean=p["m"], cov=cov, lower_limit=p["lo"],
                                  maxpts=int(min(2e6 * d, 2e8 / d ** 2)), abseps=1e-9,
                                  releps=1e-7)
    return math.log(val) if val > 0 else -math.inf, time.time() - t


def bivariate():
    """log P for the d = 2 cases of test-mvn.c (standardised, correlation
    rho): int_{l1}^{u1} phi(x) [Phi((u2 - rho x)/s) - Phi((l2 - rho x)/s)] dx,
    s = sqrt(1 - rho^2), with breakpoints every 0.05 so that the peaks in
    the far tails are resolved."""
    mp.mp.dps = 30
    inf = mp.inf
    cases = [(-inf, -5, -inf, -5, 0.5), (-inf, -20, -inf, -20, 0.3), (-inf, 1, -inf, -2, -0.7),
             (-1, 2, -0.5, 1.5, 0.9), (3, inf, 3, inf, 0.95), (-inf, -10, -inf, 10, -0.99),
             (-2, -1, 1, 2, -0.6), (-inf, -30, -inf, -25, 0.8)]
    grid = [mp.mpf(t) / 20 for t in range(-1400, 1401)]
    for c in cases:
        l1, u1, l2, u2, rho = [mp.mpf(x) for x in c]
        s = mp.sqrt(1 - rho * rho)
        f = lambda x: mp.npdf(x) * (mp.ncdf((u2 - rho * x) / s) - mp.ncdf((l2 - rho * x) / s))
        pts = [l1] + [t for t in grid if l1 < t < u1] + [u1]
        print(c, mp.nstr(mp.log(mp.quad(f, pts)), 20), flush=True)


def main():
    if sys.argv[1] == "bivariate":
        bivariate()
    elif sys.argv[1] == "problems":
        out = sys.stdout
        out.write("# mvn reference problems (gen-mvn-ref.py problems, seed %d)\n" % SEED)
        for i, p in enumerate(make_problems()):
            write_problem(i, p, out)
    elif sys.argv[1] == "merge":
        probs = read_problems(sys.argv[2])
        rres = {}
        with open(sys.argv[3]) as f:
            for ln in f:
                pid, lv, err, secs = ln.split()
                rres[int(pid)] = (float(lv), float(err), float(secs))
        # optional id range [first, last) to run pieces in parallel; the
        # header is written by the piece that starts at 0
        first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
        last = int(sys.argv[5]) if len(sys.argv) > 5 else len(probs)
        probs = [p for p in probs if first <= p["id"] < last]
        out = sys.stdout
        if first == 0:
            out.write("# mvn reference problems with truth; made by tests/data/gen-mvn-ref.py\n"
                      "# (see tests/data/README.md). Sigma = W W^T + diag(v).\n"
                      "# P id kind d k / mean / lower / upper / v / W (row-major d x k)\n"
                      "# T log_truth rel_err_of_truth source\n"
                      "# R log_value rel_err seconds   (mvtnorm::pmvnorm, if run)\n"
                      "# S log_value seconds           (scipy multivariate_normal.cdf)\n")
        for p in probs:
            write_problem(p["id"], p, out)
            if p["kind"] == "factor":
                lt = factor_logprob(p["W"][:, 0], p["v"], p["m"], p["lo"], p["up"])
                out.write("T %s 1e-15 mpmath\n" % fmt(lt))
            else:
                lv, err, _ = rres[p["id"]]
                out.write("T %s %s pmvnorm\n" % (fmt(lv), fmt(err)))
            if p["id"] in rres:
                lv, err, secs = rres[p["id"]]
                out.write("R %s %s %.3f\n" % (fmt(lv), fmt(err), secs))
            if p["d"] <= 50 or p["kind"] == "general":
                ls, secs = scipy_logprob(p)
                out.write("S %s %.3f\n" % (fmt(ls), secs))
            out.flush()
            sys.stderr.write("problem %d done\n" % p["id"])


if __name__ == "__main__":
    main()
