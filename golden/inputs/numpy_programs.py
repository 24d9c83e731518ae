"""NumPy programs: a logistic regression loss, an MLP layer, a broadcasting
normalisation, a softmax cross-entropy, and time stepping that writes into arrays."""

import numpy as np

rng = np.random.default_rng(7)


def logistic_loss(w, b, X, y):
    z = X @ w + b
    return np.sum(np.log1p(np.exp(-y * z))) / len(y)


def mlp_layer(W, b, X, target):
    h = np.tanh(X @ W + b)
    return 0.5 * np.sum((h - target) ** 2)


def normalise(x, gain, bias):
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5)
    return np.sum((y * gain + bias) ** 2)


def softmax_xent(W, X, onehot):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(onehot * logp) / X.shape[0]


def heat(u0, c):
    u = u0.copy()
    for _ in range(4):
        un = u.copy()
        for i in range(1, len(u) - 1):
            un[i] = u[i] + c * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        u = un
    return np.sum(u * u)


def running_max_pool(x):
    out = np.zeros(len(x) - 1)
    for i in range(len(x) - 1):
        out[i] = max(x[i], x[i + 1])
    return np.sum(out ** 2)


def _arr(*shape):
    return rng.uniform(-1.0, 1.0, size=shape)


CASES = [
    ("logistic_loss", (_arr(3), 0.1, _arr(8, 3), np.sign(_arr(8))), ("w", "b")),
    ("mlp_layer", (_arr(3, 2), _arr(2), _arr(5, 3), _arr(5, 2)), ("W", "b")),
    ("normalise", (_arr(3, 4), _arr(4), _arr(4)), ("x", "gain", "bias")),
    ("softmax_xent", (_arr(4, 3), _arr(5, 4), np.eye(3)[[0, 2, 1, 1, 0]]), "W"),
    ("heat", (_arr(6), 0.2), ("u0", "c")),
    ("running_max_pool", (np.array([0.3, -0.2, 0.8, 0.5, 0.1]),), "x"),
]
