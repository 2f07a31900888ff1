#!/usr/bin/python3
"""Reference optima of type-II maximum likelihood for tests/test-fit.c.

Run once from the repository root:

    /usr/bin/python3 tests/data/gen-fit-ref.py tests/data

Writes two data sets, each as NAME.csv (inputs, target) and NAME-meta.csv
(key,value lines), fitted by scikit-learn with many restarts of L-BFGS-B:

  fit-gpr   GP regression, 1-D, 30 points of sin(3x) + N(0, 0.2^2):
            ConstantKernel(v) * RBF(l) + WhiteKernel(noise^2), zero mean
            (normalize_y=False). The exact log marginal likelihood; in
            SkewBench terms a GP prior (s = 0) with numeric observations,
            free lengthscale, variance and numeric_sd.
  fit-gpc   Binary classification, 2-D, 60 points, logistic link,
            ConstantKernel(v) * RBF([l1, l2]): sklearn's Laplace evidence
            (paper 002; R&W alg. 3.1 / 5.1) maximised over v, l1, l2.

Meta keys: variance, lengthscales (one per dimension), noise_sd (fit-gpr),
log_marginal_likelihood, and the sklearn version.
"""
import os
import sys

import numpy as np
import sklearn
from sklearn.gaussian_process import (GaussianProcessClassifier,
                                      GaussianProcessRegressor)
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

FMT = "%.17g"


def write_csv(path, X, y, target):
    with open(path, "w") as fh:
        d = X.shape[1]
        fh.write(",".join(["x%d" % (j + 1) for j in range(d)] + [target]) + "\n")
        for xi, yi in zip(X, y):
            fh.write(",".join([FMT % v for v in xi] + [FMT % yi]) + "\n")


def write_meta(path, items):
    with open(path, "w") as fh:
        fh.write("sklearn,%s\n" % sklearn.__version__)
        for key, value in items:
            vals = np.atleast_1d(value)
            fh.write(key + "," + ",".join(FMT % v for v in vals) + "\n")


def gpr(outdir):
    rng = np.random.RandomState(31)
    X = np.sort(rng.uniform(-2, 2, size=(30, 1)), axis=0)
    y = np.sin(3 * X[:, 0]) + rng.normal(0, 0.2, size=30)
    kernel = (ConstantKernel(1.0, (1e-3, 1e3)) * RBF(1.0, (1e-2, 1e2))
              + WhiteKernel(0.1, (1e-6, 1e1)))
    model = GaussianProcessRegressor(kernel, n_restarts_optimizer=20,
                                     random_state=0, normalize_y=False)
    model.fit(X, y)
    k = model.kernel_
    write_csv(os.path.join(outdir, "fit-gpr.csv"), X, y, "y")
    write_meta(os.path.join(outdir, "fit-gpr-meta.csv"), [
        ("variance", k.k1.k1.constant_value),
        ("lengthscales", k.k1.k2.length_scale),
        ("noise_sd", np.sqrt(k.k2.noise_level)),
        ("log_marginal_likelihood", model.log_marginal_likelihood_value_),
    ])
    print("fit-gpr: %s  lml=%.10f" % (k, model.log_marginal_likelihood_value_))


def gpc(outdir):
    rng = np.random.RandomState(60)
    X = rng.uniform(-2, 2, size=(60, 2))
    f = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 - 0.5
    p = 1 / (1 + np.exp(-3 * f))
    y = (rng.uniform(size=60) < p).astype(int)
    kernel = ConstantKernel(1.0, (1e-2, 1e3)) * RBF([1.0, 1.0], (1e-2, 1e2))
    model = GaussianProcessClassifier(kernel, n_restarts_optimizer=20,
                                      random_state=0)
    model.fit(X, y)
    k = model.kernel_
    lml = model.log_marginal_likelihood_value_
    write_csv(os.path.join(outdir, "fit-gpc.csv"), X, 2 * y - 1, "label")
    write_meta(os.path.join(outdir, "fit-gpc-meta.csv"), [
        ("variance", k.k1.constant_value),
        ("lengthscales", k.k2.length_scale),
        ("log_marginal_likelihood", lml),
    ])
    print("fit-gpc: %s  lml=%.10f" % (k, lml))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    gpr(outdir)
    gpc(outdir)


if __name__ == "__main__":
    main()
