#!/usr/bin/python3
"""Realistic input data for the plot rendering tests (tests/test-plot-*.c).

Writes GKeyFile documents tests/data/plot-*.ini with everything a plot
snapshot holds (sb-plot-data.h): per-point summaries of the exact SkewGP
posterior (from samples), of the Laplace and EP approximations, sample
paths, observations, acquisition, 2-D fields, histories, a density.

These are *inputs* for drawing, not reference values: the plots must look
right on data shaped like what the engine produces (skewed preference
posteriors, narrow bands near duels, EP close to exact, Laplace too narrow).

Model (docs/DESIGN.md §3.2-3.3, paper 001 sec. 2-3): f ~ GP(0, k_RBF); probit rows
t = c0 + A f + e > 0 with e ~ N(0, 1) (a duel a > b with sigma_p is the row
(f(a) - f(b)) / (sqrt2 sigma_p)); numeric rows y = f + N(0, s^2). The exact
posterior is the Gaussian conditioned on y, then on t > 0 (a truncated
Gaussian, sampled by Gibbs over many parallel chains); Laplace and EP
approximate the probit rows in row space (Rasmussen & Williams alg. 3.1,
3.2, 3.5).

Run:  /usr/bin/python3 tests/data/gen-plot-fixtures.py tests/data
"""
import sys
import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

SQ2 = np.sqrt(2.0)


def rbf(a, b, ell, var):
    a = np.atleast_2d(a); b = np.atleast_2d(b)
    d = (a[:, None, :] - b[None, :, :]) / ell
    return var * np.exp(-0.5 * np.sum(d * d, axis=2))


class Model:
    """Rows over the stacked inputs G = [training points; test points]."""

    def __init__(self, X, Xs, ell, var, num_idx=(), num_y=(), num_s=0.1,
                 rows_A=None, rows_c=None):
        self.X, self.Xs = X, Xs
        self.n, self.ns = len(X), len(Xs)
        Z = np.vstack([X, Xs])
        K = rbf(Z, Z, ell, var) + 1e-8 * np.eye(len(Z))
        m = np.zeros(len(Z))
        if len(num_idx):
            C = np.zeros((len(num_idx), len(Z)))
            C[np.arange(len(num_idx)), num_idx] = 1.0
            S = C @ K @ C.T + num_s ** 2 * np.eye(len(num_idx))
            G = K @ C.T @ np.linalg.inv(S)
            m = m + G @ (np.asarray(num_y) - C @ m)
            K = K - G @ C @ K
            K = 0.5 * (K + K.T)
        self.mG, self.SG = m, K
        A = np.zeros((0, len(Z))) if rows_A is None else np.hstack(
            [rows_A, np.zeros((rows_A.shape[0], self.ns))])
        self.A = A
        self.c = np.zeros(A.shape[0]) if rows_c is None else np.asarray(rows_c)
        self.mu_u = self.c + A @ m          # prior mean of u = c + A G
        self.Kt = A @ K @ A.T               # prior covariance of u

    # ---- exact: t = u + e > 0 -----------------------------------------
    def exact_samples(self, n_samples, rng, sweeps=300):
        m = len(self.c)
        S = self.Kt + np.eye(m)
        Q = np.linalg.inv(S)
        t = np.abs(self.mu_u)[None, :] + 0.5 + np.zeros((n_samples, 1))
        for _ in range(sweeps):
            for i in range(m):
                cond_var = 1.0 / Q[i, i]
                r = (t - self.mu_u) @ Q[:, i] - Q[i, i] * (t[:, i] - self.mu_u[i])
                mu = self.mu_u[i] - cond_var * r
                sd = np.sqrt(cond_var)
                a = -mu / sd            # standardised lower bound 0
                q = ndtr(-a)            # P(X > a)
                u = rng.uniform(size=n_samples)
                t[:, i] = mu + sd * (-ndtri(np.clip(u * q, 1e-300, 1)))
        return t, S

    def exact_f(self, t, S, rng):
        """Samples of f at the test points: marginal (with independent
        remainders) and a few joint paths."""
        SGt = self.SG @ self.A.T
        Wt = np.linalg.solve(S, SGt.T).T            # S_Gt S_tt^-1
        mean = self.mG[None, :] + (t - self.mu_u) @ Wt.T
        cov = self.SG - Wt @ SGt.T
        return mean[:, self.n:], cov[self.n:, self.n:]

    # ---- Gaussian approximations in row space --------------------------
    def laplace(self):
        m = len(self.c); Kt = self.Kt; v = np.zeros(m)
        for _ in range(100):
            x = v + self.mu_u
            r = np.exp(-0.5 * x * x - 0.5 * np.log(2 * np.pi) - log_ndtr(x))
            D = r * (x + r)
            sD = np.sqrt(D)
            B = np.eye(m) + sD[:, None] * Kt * sD[None, :]
            b = D * v + r
            a = b - sD * np.linalg.solve(B, sD * (Kt @ b))
            vn = Kt @ a
            if np.max(np.abs(vn - v)) < 1e-10:
                v = vn
                break
            v = vn
        x = v + self.mu_u
        r = np.exp(-0.5 * x * x - 0.5 * np.log(2 * np.pi) - log_ndtr(x))
        D = r * (x + r)
        sD = np.sqrt(D)
        B = np.eye(m) + sD[:, None] * Kt * sD[None, :]
        # log evidence (R&W eq. 3.32 in row space)
        L = np.linalg.cholesky(B)
        a = r
        logz = -0.5 * a @ v + np.sum(log_ndtr(x)) - np.sum(np.log(np.diag(L)))
        return self._gauss_post(r, sD, B), logz

    def ep(self, sweeps=30):
        m = len(self.c); Kt = self.Kt
        tau = np.zeros(m); nu = np.zeros(m)
        Sig = Kt.copy(); mu = np.zeros(m)
        for _ in range(sweeps):
            old = tau.copy()
            for i in range(m):
                tc = 1.0 / Sig[i, i] - tau[i]
                nc = mu[i] / Sig[i, i] - nu[i]
                mc, vc = nc / tc, 1.0 / tc
                z = (mc + self.mu_u[i]) / np.sqrt(1 + vc)
                ratio = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_ndtr(z))
                mh = mc + vc * ratio / np.sqrt(1 + vc)
                vh = vc - vc * vc / (1 + vc) * ratio * (z + ratio)
                tau[i] = max(1.0 / vh - tc, 1e-10)
                nu[i] = mh / vh - nc
                sT = np.sqrt(tau)
                B = np.eye(m) + sT[:, None] * Kt * sT[None, :]
                Sig = Kt - (Kt * sT[None, :]) @ np.linalg.solve(B, sT[:, None] * Kt)
                mu = Sig @ nu
            if np.max(np.abs(tau - old)) < 1e-8:
                break
        sT = np.sqrt(tau)
        B = np.eye(m) + sT[:, None] * Kt * sT[None, :]
        alpha = nu - sT * np.linalg.solve(B, sT * (Kt @ nu))   # Kt^-1 mu
        return self._gauss_post(alpha, sT, B)

    def _gauss_post(self, alpha, sD, B):
        SGA = self.SG @ self.A.T
        mean = self.mG + SGA @ alpha
        V = np.linalg.solve(B, (sD[:, None] * SGA.T))
        cov = self.SG - (SGA * sD[None, :]) @ V
        return mean[self.n:], cov[self.n:, self.n:]


def hpd(sorted_s, level=0.95):
    n = len(sorted_s); k = int(np.ceil(level * n))
    widths = sorted_s[k - 1:] - sorted_s[:n - k + 1]
    j = int(np.argmin(widths))
    return sorted_s[j], sorted_s[j + k - 1]


def exact_summaries(F):
    """F: samples x points."""
    mean = F.mean(0); sd = F.std(0)
    c = F - mean
    skew = (c ** 3).mean(0) / np.maximum(sd, 1e-300) ** 3
    S = np.sort(F, axis=0)
    med = np.median(F, 0)
    lo = np.quantile(F, 0.025, axis=0); hi = np.quantile(F, 0.975, axis=0)
    h = np.array([hpd(S[:, i]) for i in range(F.shape[1])])
    return dict(mean=mean, median=med, sd=sd, lower=lo, upper=hi,
                hpd_lower=h[:, 0], hpd_upper=h[:, 1], skewness=skew)


def gauss_summaries(mean, var):
    sd = np.sqrt(np.maximum(var, 0))
    z = 1.959963984540054
    return dict(mean=mean, median=mean, sd=sd, lower=mean - z * sd,
                upper=mean + z * sd, hpd_lower=mean - z * sd,
                hpd_upper=mean + z * sd, skewness=np.zeros_like(mean))


def draw_F(model, t, S, rng, marginal=True):
    """Exact samples of f at the test points: the linear part per t sample
    plus the Gaussian remainder (independent per point when MARGINAL, else
    joint)."""
    lin, cov = model.exact_f(t, S, rng)
    if marginal:
        return lin + rng.standard_normal(lin.shape) * np.sqrt(np.maximum(np.diag(cov), 0))
    L = np.linalg.cholesky(cov + 1e-9 * np.eye(len(cov)))
    return lin + rng.standard_normal(lin.shape) @ L.T


def fmt(v):
    return ";".join("%.9g" % x for x in np.ravel(v))


def write(path, groups):
    with open(path, "w") as f:
        f.write("# Generated by tests/data/gen-plot-fixtures.py; do not edit.\n")
        for g, kv in groups:
            f.write("\n[%s]\n" % g)
            for k, v in kv.items():
                if isinstance(v, str):
                    f.write("%s=%s\n" % (k, v))
                elif np.isscalar(v):
                    f.write("%s=%s\n" % (k, fmt([v])))
                else:
                    f.write("%s=%s\n" % (k, fmt(v)))


def summary_groups(name, s):
    return (name, {k: s[k] for k in ("mean", "median", "sd", "lower", "upper",
                                      "hpd_lower", "hpd_upper", "skewness")})


# ---------------------------------------------------------------------------
# 1-D preferential BO on g(x) = cos(5x) + exp(-x^2/2), [-2.6, 2.6]
def fixture_1d(out, rng):
    g = lambda x: np.cos(5 * x) + np.exp(-x ** 2 / 2)
    lo, hi = -2.6, 2.6
    ell, var, sp = 0.45, 1.5, 0.05
    scale = 1.0 / (SQ2 * sp)
    grid = np.linspace(lo, hi, 201)
    xr = 2.0
    pts = [xr]; duels = []
    best_true = []
    hyper = []
    for it in range(12):
        # the BO loop: the challenger is the dueling-UCB maximiser
        X = np.array(pts)[:, None]
        A = np.zeros((len(duels), len(pts)))
        for k, (a, b) in enumerate(duels):
            A[k, a] += scale; A[k, b] -= scale
        m = Model(X, grid[:, None], ell, var, rows_A=A)
        ir = pts.index(xr)
        if duels:
            t, S = m.exact_samples(1500, rng, sweeps=120)
            Fj = draw_F(m, t, S, rng, marginal=False)
        else:
            Fj = rng.multivariate_normal(np.zeros(len(grid)), m.SG[m.n:, m.n:] + 1e-9 * np.eye(len(grid)), 1500)
        jr = int(np.argmin(np.abs(grid - xr)))
        H = Fj - Fj[:, [jr]]
        ucb = np.array([hpd(np.sort(H[:, i]))[1] for i in range(len(grid))])
        ucb[jr] = -np.inf
        xc = grid[int(np.argmax(ucb))] + rng.uniform(-0.01, 0.01)
        win = g(xc) > g(xr)
        pts.append(xc)
        ic = len(pts) - 1
        duels.append((ic, ir) if win else (ir, ic))
        if win:
            xr = xc
        best_true.append(g(xr))
        # hyperparameters by Laplace evidence on a small grid
        X = np.array(pts)[:, None]
        A = np.zeros((len(duels), len(pts)))
        for k, (a, b) in enumerate(duels):
            A[k, a] += scale; A[k, b] -= scale
        best = None
        for e in (0.2, 0.3, 0.45, 0.7, 1.0, 1.5):
            for v in (0.5, 1.0, 1.5, 3.0):
                _, lz = Model(X, grid[:1, None], e, v, rows_A=A).laplace()
                if best is None or lz > best[0]:
                    best = (lz, e, v)
        hyper.append((best[1], best[2]))

    X = np.array(pts)[:, None]
    A = np.zeros((len(duels), len(pts)))
    for k, (a, b) in enumerate(duels):
        A[k, a] += scale; A[k, b] -= scale
    m = Model(X, grid[:, None], ell, var, rows_A=A)
    t, S = m.exact_samples(4000, rng)
    F = draw_F(m, t, S, rng, marginal=True)
    ex = exact_summaries(F)
    (lm, lc), _ = m.laplace()
    em, ec = m.ep()
    la = gauss_summaries(lm, np.diag(lc)); ep = gauss_summaries(em, np.diag(ec))
    Fj = draw_F(m, t[:800], S, rng, marginal=False)
    paths = Fj[:5]
    jr = int(np.argmin(np.abs(grid - xr)))
    H = Fj - Fj[:, [jr]]
    acq = np.array([hpd(np.sort(H[:, i]))[1] for i in range(len(grid))])
    acq[jr] = np.nan
    xmax = grid[int(np.nanargmax(acq))]

    # density of f(x) - f(x_r) at a clicked point
    xc = -0.75
    md = Model(X, np.array([[xc], [xr]]), ell, var, rows_A=A)
    t2, S2 = md.exact_samples(6000, rng)
    F2 = draw_F(md, t2, S2, rng, marginal=False)
    d = F2[:, 0] - F2[:, 1]
    dgrid = np.linspace(np.quantile(d, 0.001) - 0.3, np.quantile(d, 0.999) + 0.3, 241)
    bw = 1.06 * d.std() * len(d) ** -0.2
    kde = np.exp(-0.5 * ((dgrid[:, None] - d[None, :]) / bw) ** 2).mean(1) / (bw * np.sqrt(2 * np.pi))
    dens = {}
    for name, (mm, cc) in (("laplace", md.laplace()[0]), ("ep", md.ep())):
        mu = mm[0] - mm[1]; v = cc[0, 0] + cc[1, 1] - 2 * cc[0, 1]
        dens[name] = np.exp(-0.5 * (dgrid - mu) ** 2 / v) / np.sqrt(2 * np.pi * v)

    obs_kind = ";".join("duel" for _ in duels)
    write(out + "/plot-1d.ini", [
        ("meta", dict(dim="1", names="x", lo=lo, hi=hi, axis="0", generation="12")),
        ("curve", dict(x=grid)),
        summary_groups("exact", ex), summary_groups("laplace", la), summary_groups("ep", ep),
        ("samples", dict(n_paths="5", paths=paths)),
        ("truth", dict(values=g(grid))),
        ("acquisition", dict(name="dueling UCB", values=acq, x_max=[xmax])),
        ("observations", dict(kinds=obs_kind, x=[pts[a] for a, b in duels],
                              x_loser=[pts[b] for a, b in duels],
                              y=[np.nan] * len(duels))),
        ("best", dict(x=[xr])),
        ("next", dict(a=[xmax], b=[xr])),
        ("convergence", dict(best=best_true, true_best=float(np.max(g(np.linspace(lo, hi, 20001)))))),
        ("hyper", dict(names="lengthscale;variance", values=np.array(hyper))),
        ("density", dict(x=[xc], difference="true", grid=dgrid, exact=kde,
                         laplace=dens["laplace"], ep=dens["ep"], samples=d[:3000])),
    ])


# ---------------------------------------------------------------------------
# 2-D: six-hump camel (negated) on [-2, 2] x [-1, 1], random duels vs x_r
def fixture_2d(out, rng):
    def camel(x):
        x1, x2 = x[..., 0], x[..., 1]
        return -((4 - 2.1 * x1 ** 2 + x1 ** 4 / 3) * x1 ** 2 + x1 * x2 + (-4 + 4 * x2 ** 2) * x2 ** 2)
    ell, var, sp = np.array([0.6, 0.4]), 2.0, 0.1
    scale = 1.0 / (SQ2 * sp)
    lo = np.array([-2.0, -1.0]); hi = np.array([2.0, 1.0])
    pts = [rng.uniform(lo, hi)]
    xr = 0
    duels = []
    for it in range(16):
        xc = rng.uniform(lo, hi)
        if it > 8:   # later queries concentrate around the incumbent
            xc = np.clip(pts[xr] + rng.normal(0, 0.35, 2), lo, hi)
        pts.append(xc)
        ic = len(pts) - 1
        if camel(xc) > camel(pts[xr]):
            duels.append((ic, xr)); xr = ic
        else:
            duels.append((xr, ic))
    X = np.array(pts)
    A = np.zeros((len(duels), len(pts)))
    for k, (a, b) in enumerate(duels):
        A[k, a] += scale; A[k, b] -= scale
    nx, ny = 41, 25
    gx = np.linspace(lo[0], hi[0], nx); gy = np.linspace(lo[1], hi[1], ny)
    GX, GY = np.meshgrid(gx, gy)                 # row j = y_j
    G = np.column_stack([GX.ravel(), GY.ravel()])
    m = Model(X, G, ell, var, rows_A=A)
    t, S = m.exact_samples(2000, rng)
    F = draw_F(m, t, S, rng, marginal=True)
    ex = exact_summaries(F)
    (lm, lc), _ = m.laplace()
    em, ec = m.ep()
    # dueling UCB against x_r: upper HPD end of f(x) - f(x_r), joint per point
    mr = Model(X, np.vstack([G, X[xr]]), ell, var, rows_A=A)
    lin, cov = mr.exact_f(t, S, rng)
    vr = np.diag(cov)
    cr = cov[:-1, -1]
    vd = np.maximum(vr[:-1] + vr[-1] - 2 * cr, 0)
    H = lin[:, :-1] - lin[:, [-1]] + rng.standard_normal((len(t), len(G))) * np.sqrt(vd)
    acq = np.array([hpd(np.sort(H[:, i]))[1] for i in range(len(G))])
    j = int(np.argmax(acq))
    write(out + "/plot-2d.ini", [
        ("meta", dict(dim="2", names="x1;x2", lo=lo, hi=hi, generation="16")),
        ("slice", dict(axis_x="0", axis_y="1", fixed=X[xr], nx=str(nx), ny=str(ny),
                       box=[lo[0], hi[0], lo[1], hi[1]])),
        ("field-mean-exact", dict(values=ex["mean"])),
        ("field-sd-exact", dict(values=ex["sd"])),
        ("field-skewness-exact", dict(values=ex["skewness"])),
        ("field-acquisition-exact", dict(values=acq)),
        ("field-mean-laplace", dict(values=lm)),
        ("field-sd-laplace", dict(values=np.sqrt(np.diag(lc)))),
        ("field-mean-ep", dict(values=em)),
        ("field-sd-ep", dict(values=np.sqrt(np.diag(ec)))),
        ("acquisition", dict(name="dueling UCB")),
        ("observations", dict(kinds=";".join("duel" for _ in duels),
                              x=np.array([pts[a] for a, b in duels]),
                              x_loser=np.array([pts[b] for a, b in duels]),
                              y=[np.nan] * len(duels))),
        ("best", dict(x=X[xr])),
        ("next", dict(a=G[j], b=X[xr])),
    ])


# ---------------------------------------------------------------------------
# Safe BO, 1-D: a GP draw g with g(0) >= 0, threshold h = 0 (001 sec. 5.2.3)
def fixture_safe(out, rng):
    lo, hi, ell, var, sv, h = -3.0, 3.0, 1.5, 2.0, 0.1, 0.0
    grid = np.linspace(lo, hi, 181)
    while True:
        gv = rng.multivariate_normal(np.zeros(len(grid)), rbf(grid[:, None], grid[:, None], 1.3, 2.0) + 1e-9 * np.eye(len(grid)))
        if gv[90] >= 0.3 and gv.min() < -0.8:
            break
    g = lambda x: np.interp(x, grid, gv)
    xs = np.array([0.0, 0.7, -0.6, 1.4, -1.3, 2.1, -2.0, 1.9, -1.7, 2.6, 0.35])
    yv = g(xs) + rng.normal(0, sv, len(xs))
    valid = yv >= h
    num_idx = np.where(valid)[0]
    inv_idx = np.where(~valid)[0]
    # rows: valid -> Phi((f - h)/sv), invalid -> Phi((h - f)/sv)
    A = np.zeros((len(xs), len(xs))); c = np.zeros(len(xs))
    for k in range(len(xs)):
        sgn = 1.0 if valid[k] else -1.0
        A[k, k] = sgn / sv; c[k] = -sgn * h / sv
    m = Model(xs[:, None], grid[:, None], ell, var, num_idx=num_idx,
              num_y=yv[num_idx], num_s=sv, rows_A=A, rows_c=c)
    t, S = m.exact_samples(3000, rng)
    F = draw_F(m, t, S, rng, marginal=True)
    ex = exact_summaries(F)
    pv = (F >= h).mean(0)
    ucb = np.where(pv >= 0.7, ex["hpd_upper"], ex["hpd_upper"] - 100.0)
    j = int(np.argmax(ucb))
    best = xs[valid][int(np.argmax(yv[valid]))]
    kinds = ";".join("valid" if v else "invalid" for v in valid)
    write(out + "/plot-safe.ini", [
        ("meta", dict(dim="1", names="setting [V]", lo=lo, hi=hi, axis="0", generation="11")),
        ("curve", dict(x=grid)),
        summary_groups("exact", ex),
        ("truth", dict(values=gv)),
        ("validity", dict(p_valid=pv, required=0.7)),
        ("acquisition", dict(name="safe UCB", values=np.where(pv >= 0.7, ucb, np.nan), x_max=[grid[j]])),
        ("observations", dict(kinds=kinds, x=xs, x_loser=xs, y=np.where(valid, yv, np.nan))),
        ("best", dict(x=[best])),
        ("next", dict(a=[grid[j]])),
    ])


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    rng = np.random.default_rng(20261122)
    fixture_1d(out, rng)
    fixture_2d(out, rng)
    fixture_safe(out, rng)
