#!/usr/bin/python3
"""Data and references for tests/test-cli-classify.c (`skewgp classify`).

    /usr/bin/python3 tests/data/gen-classify-data.py tests/data

Writes
  classify-train.csv  header x1,x2,label; 30 rows, labels 0/1 from a noisy
                      nonlinear rule; x2 is on a 10x larger scale (so
                      --standardize matters)
  classify-test.csv   6 rows of inputs only (no label column)
  classify-small.csv  the first 8 training rows (both classes), labels -1/1
  classify-ref.csv    reference predictions, one row per (case, test row):
    case "laplace-logistic": Laplace with the logistic likelihood on
      classify-train.csv --standardize (sample sd, ddof = 1), RBF kernel,
      variance 2, lengthscale 1.5: latent mean and sd from scikit-learn's
      GaussianProcessClassifier(optimizer=None) internals (R&W alg. 3.2,
      as in _BinaryGPCLaplace.predict_proba) and the probability
      E[sigmoid(f)] by scipy.integrate.quad over that Gaussian (not
      sklearn's five-erf approximation);
    case "skewgp-exact": the exact probit GP class probability on
      classify-small.csv (no standardisation), RBF kernel, variance 1,
      ARD lengthscales (1, 10): P(y* = 1) = P(t > 0, f* + e* > 0) / P(t > 0),
      t = y . f(X) + e, e ~ N(0, I) (000 Corollary 2), both orthant
      probabilities by scipy's Genz integrator (abseps 1e-12, releps 1e-9);
      latent mean and sd are not computed (NaN).
(Debian 12 python3-sklearn 1.2.1, scipy 1.10.1; seed 4.)
"""
import os
import sys

import numpy as np
from scipy import integrate, stats
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

out = sys.argv[1] if len(sys.argv) > 1 else "."
rng = np.random.default_rng(4)

n = 30
X = np.c_[rng.normal(size=n), 10 * rng.normal(size=n)]
f = X[:, 0] + 0.04 * X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=n)
y = (f > 0).astype(int)
Xs = np.c_[rng.normal(size=6), 10 * rng.normal(size=6)]
fmt = "%.6f"
np.savetxt(os.path.join(out, "classify-train.csv"), np.c_[X, y], delimiter=",",
           fmt=[fmt, fmt, "%d"], header="x1,x2,label", comments="")
np.savetxt(os.path.join(out, "classify-test.csv"), Xs, delimiter=",", fmt=fmt)
# Reload what was written, so the references use the rounded values.
X = np.loadtxt(os.path.join(out, "classify-train.csv"), delimiter=",", skiprows=1)
y = X[:, 2].astype(int)
X = X[:, :2]
Xs = np.loadtxt(os.path.join(out, "classify-test.csv"), delimiter=",")

ys = 2 * y[:8] - 1
assert len(set(ys)) == 2
np.savetxt(os.path.join(out, "classify-small.csv"), np.c_[X[:8], ys], delimiter=",",
           fmt=[fmt, fmt, "%d"])

rows = []

# Laplace, logistic link, on standardised inputs.
mu, sd = X.mean(0), X.std(0, ddof=1)
Z, Zs = (X - mu) / sd, (Xs - mu) / sd
kernel = ConstantKernel(2.0, constant_value_bounds="fixed") * RBF(1.5, length_scale_bounds="fixed")
gpc = GaussianProcessClassifier(kernel=kernel, optimizer=None).fit(Z, y)
b = gpc.base_estimator_
Ks = b.kernel_(b.X_train_, Zs)
fmean = Ks.T.dot(b.y_train_ - b.pi_)
v = np.linalg.solve(b.L_, b.W_sr_[:, None] * Ks)
fvar = b.kernel_.diag(Zs) - np.einsum("ij,ij->j", v, v)
for i in range(len(Zs)):
    m, s = fmean[i], np.sqrt(fvar[i])
    p = integrate.quad(lambda u: stats.norm.pdf(u) / (1 + np.exp(-(m + s * u))), -40, 40,
                       epsabs=1e-14, epsrel=1e-13)[0]
    rows.append(("laplace-logistic", i, p, m, s))


def rbf(A, B, var=1.0, ell=1.0):
    d2 = (((A[:, None, :] - B[None, :, :]) / ell) ** 2).sum(-1)
    return var * np.exp(-0.5 * d2)


def orthant(cov):
    k = cov.shape[0]
    return stats.multivariate_normal.cdf(np.zeros(k), mean=np.zeros(k), cov=cov,
                                         maxpts=2_000_000 * k, abseps=1e-12, releps=1e-9)


# Exact probit GP (SkewGP s = 0) on classify-small.csv: t = y f + e > 0.
Xa = X[:8]
for i in range(len(Xs)):
    P = np.r_[Xa, Xs[i:i + 1]]
    K = rbf(P, P, ell=np.array([1.0, 10.0]))
    W = np.diag(np.r_[ys, 1.0])
    C = W.dot(K).dot(W) + np.eye(9)
    # P(t > 0) = P(-t < 0): orthant of the negated vector, same covariance.
    num, den = orthant(C), orthant(C[:8, :8])
    rows.append(("skewgp-exact", i, num / den, float("nan"), float("nan")))

with open(os.path.join(out, "classify-ref.csv"), "w") as fh:
    fh.write("case,row,probability,latent_mean,latent_sd\n")
    for c, i, p, m, s in rows:
        fh.write(f"{c},{i},{p:.12g},{m:.12g},{s:.12g}\n")
