#!/usr/bin/python3
"""Reference outputs of scikit-learn's binary Laplace GP classifier.

Generates the gpc-* files used by tests/test-laplace.c (logistic Laplace
with a fixed kernel must agree with sklearn's GaussianProcessClassifier,
optimizer=None). Run once from the repository root:

    /usr/bin/python3 tests/data/gen-gpc-ref.py tests/data

For each data set NAME it writes
  gpc-NAME-train.csv  x_1..x_d, label (+1 / -1)
  gpc-NAME-test.csv   x_1..x_d, f_mean, f_var, p1
                      (sklearn's latent mean and variance at the test point,
                      from _BinaryGPCLaplace.predict_proba lines 4-6, and its
                      predict_proba()[:, 1])
  gpc-NAME-meta.csv   key,value[,value...] lines: the kernel (sklearn
                      ConstantKernel(c) * RBF(l), l isotropic or ARD), the
                      Laplace log marginal likelihood and its gradient in
                      sklearn's theta = (log c, log l...), and the deviation
                      of sklearn's latent mean from a Newton iteration run to
                      round-off (how well sklearn itself converged).
"""
import sys
import os

import numpy as np
import sklearn
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.special import expit
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel


def blobs():
    """Two Gaussian classes in 2-D, in the style of paper 002 example 1."""
    rng = np.random.RandomState(2002)
    x0 = rng.multivariate_normal([1.0, 0.0], [[1.0, -0.5], [-0.5, 1.0]], 40)
    x1 = rng.multivariate_normal([0.0, 1.5], [[1.0, 0.9], [0.9, 1.0]], 30)
    X = np.vstack([x0, x1])
    y = np.r_[np.zeros(40), np.ones(30)].astype(int)
    Xt = rng.uniform([-3, -3], [4, 4], size=(50, 2))
    kernel = ConstantKernel(1.5) * RBF(0.8)
    return X, y, Xt, kernel


def iris():
    """Iris versicolor (0) vs virginica (1), all four features (cm)."""
    d = load_iris()
    keep = d.target > 0
    X = d.data[keep]
    y = (d.target[keep] == 2).astype(int)
    rng = np.random.RandomState(150)
    Xt = rng.uniform(X.min(axis=0) - 0.5, X.max(axis=0) + 0.5, size=(40, 4))
    kernel = ConstantKernel(2.0) * RBF(1.0)
    return X, y, Xt, kernel


def cancer():
    """Breast cancer, first 120 rows, 5 standardised features, ARD RBF."""
    d = load_breast_cancer()
    X = d.data[:120, [0, 1, 4, 7, 20]]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = d.target[:120].astype(int)
    rng = np.random.RandomState(569)
    Xt = rng.normal(size=(40, 5))
    kernel = ConstantKernel(3.0) * RBF([2.5, 1.5, 3.0, 2.0, 1.0])
    return X, y, Xt, kernel


def converged_mode(K, y01):
    """R&W algorithm 3.1 run until the step is at round-off level."""
    f = np.zeros(len(y01))
    for _ in range(200):
        pi = expit(f)
        W = pi * (1 - pi)
        sW = np.sqrt(W)
        L = cholesky(np.eye(len(f)) + sW[:, None] * K * sW, lower=True)
        b = W * f + (y01 - pi)
        a = b - sW * cho_solve((L, True), sW * K.dot(b))
        fn = K.dot(a)
        step = np.max(np.abs(fn - f))
        f = fn
        if step < 1e-14 * (1 + np.max(np.abs(f))):
            break
    return f


def write(outdir, name, X, y, Xt, kernel):
    gpc = GaussianProcessClassifier(kernel=kernel, optimizer=None)
    gpc.fit(X, y)
    est = gpc.base_estimator_
    k = est.kernel_
    # predict_proba lines 4-6 (R&W algorithm 3.2), copied from sklearn 1.2
    Ks = k(est.X_train_, Xt)
    f_mean = Ks.T.dot(est.y_train_ - est.pi_)
    v = solve_triangular(est.L_, est.W_sr_[:, None] * Ks, lower=True)
    f_var = k.diag(Xt) - np.einsum("ij,ij->j", v, v)
    p1 = gpc.predict_proba(Xt)[:, 1]
    lml, grad = est.log_marginal_likelihood(k.theta, eval_gradient=True)

    # sklearn stops when the evidence changes by < 1e-10; measure how far
    # its predictive mean is from the fully converged mode.
    fm = converged_mode(k(X), y.astype(float))
    f_mean_conv = Ks.T.dot(y - expit(fm))
    dev = np.max(np.abs(f_mean_conv - f_mean))

    d = X.shape[1]
    fmt = "%.17g"
    with open(os.path.join(outdir, "gpc-%s-train.csv" % name), "w") as fh:
        fh.write(",".join(["x%d" % (j + 1) for j in range(d)] + ["label"]) + "\n")
        for xi, yi in zip(X, y):
            fh.write(",".join([fmt % v for v in xi] + ["%d" % (2 * yi - 1)]) + "\n")
    with open(os.path.join(outdir, "gpc-%s-test.csv" % name), "w") as fh:
        fh.write(",".join(["x%d" % (j + 1) for j in range(d)]
                          + ["f_mean", "f_var", "p1"]) + "\n")
        for xi, m, s, p in zip(Xt, f_mean, f_var, p1):
            fh.write(",".join([fmt % v for v in xi] + [fmt % m, fmt % s, fmt % p]) + "\n")
    ls = np.atleast_1d(k.k2.length_scale)
    with open(os.path.join(outdir, "gpc-%s-meta.csv" % name), "w") as fh:
        fh.write("sklearn,%s\n" % sklearn.__version__)
        fh.write("dim,%d\n" % d)
        fh.write("n_train,%d\n" % len(y))
        fh.write("n_test,%d\n" % len(Xt))
        fh.write("constant," + fmt % k.k1.constant_value + "\n")
        fh.write("lengthscales," + ",".join(fmt % v for v in ls) + "\n")
        fh.write("log_marginal_likelihood," + fmt % lml + "\n")
        fh.write("lml_gradient," + ",".join(fmt % v for v in grad) + "\n")
        fh.write("sklearn_mean_convergence_error," + fmt % dev + "\n")
    print("%-8s n=%3d d=%d lml=%.10f  sklearn mean vs converged mode: %.2e"
          % (name, len(y), d, lml, dev))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, make in (("blobs", blobs), ("iris", iris), ("cancer", cancer)):
        write(outdir, name, *make())


if __name__ == "__main__":
    main()
