"""Losses written with ``np.`` that the tests of other libraries' arrays
(tests/test_jax_arrays.py, tests/test_torch_tensors.py) differentiate on that
library's arrays and compare with the NumPy gradient (`leaves`: a result's arrays,
in order, for the comparison)."""

import numpy as np


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2
    return np.sum((out - y) ** 2) / X.shape[0]


def logistic(w, b, X, y):
    z = X @ w + b
    return np.sum(np.log1p(np.exp(-y * z))) / len(y)


def normalise(x, gain, bias):
    mu = np.mean(x, axis=1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=1, keepdims=True)
    return np.sum(((x - mu) / np.sqrt(var + 1e-5) * gain + bias) ** 2)


def recurrent(W, h0, steps):
    h = h0
    for _ in range(steps):
        h = np.tanh(W @ h)
    return np.sum(h * h)


def curved(x, W):
    return np.sum(np.tanh(W @ x) ** 2) + np.sum(np.outer(x, x) * x)


def mapped(x, W):
    return np.tanh(W @ x) * np.sum(x)


def leaves(value):
    return [e for v in value for e in leaves(v)] if isinstance(value, tuple) else [value]
