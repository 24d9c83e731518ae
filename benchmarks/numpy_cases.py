"""NumPy benchmark cases (issue 4): the losses a person writes every day, each in
plain NumPy beside the reverse sweep an expert writes by hand, the reference for what
NumPy can do.

Arguments are float64 arrays built from a fixed seed (once per process: the fresh
definitions of this module for first-call timing share them); the arrays a case does
not differentiate (the batch, the targets, the labels as a one-hot matrix) are ordinary
arguments. autograd, JAX and tangent run the code below as it is, with ``np`` bound
to their NumPy (see harness.py); PyTorch runs the ``*_torch`` ports beside the cases
(the same lines in torch's spelling), which turn the constant arrays into tensors
with ``torch.from_numpy`` (no copy) as part of the call; the ``import torch`` inside
a port finds the module loaded, a dictionary lookup."""

import numpy as np

from .harness import shared_args


def _rng():
    return np.random.default_rng(20240604)


# -------------------------------------------------------------- 2-layer tanh MLP


def mlp(W1, b1, W2, b2, X, Y):
    """A 2-layer tanh MLP, mean squared error against targets Y."""
    H = np.tanh(X @ W1 + b1)
    out = H @ W2 + b2
    d = out - Y
    return np.mean(d * d)


def mlp_by_hand(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1 + b1)
    G = (H @ W2 + b2 - Y) * (2.0 / Y.size)  # d loss / d out
    gW2 = H.T @ G
    gb2 = G.sum(axis=0)
    GA = (G @ W2.T) * (1.0 - H * H)  # d loss / d (X @ W1 + b1)
    gW1 = X.T @ GA
    gb1 = GA.sum(axis=0)
    return gW1, gb1, gW2, gb2


def mlp_torch(W1, b1, W2, b2, X, Y):
    import torch

    X, Y = torch.from_numpy(X), torch.from_numpy(Y)
    H = torch.tanh(X @ W1 + b1)
    out = H @ W2 + b2
    d = out - Y
    return torch.mean(d * d)


def _mlp_args(n=64, width=256):
    rng = _rng()
    scale = 1.0 / np.sqrt(width)
    W1 = rng.normal(0.0, scale, (width, width))
    b1 = rng.normal(0.0, 0.1, width)
    W2 = rng.normal(0.0, scale, (width, width))
    b2 = rng.normal(0.0, 0.1, width)
    X = rng.normal(0.0, 1.0, (n, width))
    Y = rng.normal(0.0, 1.0, (n, width))
    return W1, b1, W2, b2, X, Y


# ---------------------------------------------------------- logistic regression


def logistic_nll(w, X, y):
    """Negative log-likelihood of logistic regression, labels y in {-1, +1}:
    sum log(1 + exp(-y x.w)), written stably as max(t, 0) + log1p(exp(-|t|)).
    (``np.logaddexp(0.0, t)`` says the same, but s2sad has no rule for it yet.)"""
    t = -y * (X @ w)
    return np.sum(np.maximum(t, 0.0) + np.log1p(np.exp(-np.abs(t))))


def logistic_nll_by_hand(w, X, y):
    z = y * (X @ w)
    p = 0.5 - 0.5 * np.tanh(0.5 * z)  # sigmoid(-z), stable for any z
    return (-y * p) @ X


def logistic_nll_torch(w, X, y):
    import torch

    X, y = torch.from_numpy(X), torch.from_numpy(y)
    t = -y * (X @ w)
    return torch.sum(torch.clamp(t, min=0.0) + torch.log1p(torch.exp(-torch.abs(t))))


def _logistic_args(n=10000, d=100):
    rng = _rng()
    X = rng.normal(0.0, 1.0, (n, d))
    truth = rng.normal(0.0, 1.0 / np.sqrt(d), d)
    y = np.where(X @ truth + rng.normal(0.0, 0.5, n) > 0.0, 1.0, -1.0)
    w = rng.normal(0.0, 1.0 / np.sqrt(d), d)
    return w, X, y


# ------------------------------------------------------- softmax cross-entropy


def softmax_xent(W, X, Y):
    """Mean softmax cross-entropy of the linear scores X @ W against one-hot labels
    Y; the row maximum is subtracted first, so exp never overflows."""
    Z = X @ W
    Z = Z - np.max(Z, axis=1, keepdims=True)
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


def softmax_xent_by_hand(W, X, Y):
    Z = X @ W
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)  # softmax (the shift cancels: no gradient)
    return X.T @ ((P - Y) / X.shape[0])


def softmax_xent_torch(W, X, Y):
    import torch

    X, Y = torch.from_numpy(X), torch.from_numpy(Y)
    Z = X @ W
    Z = Z - torch.amax(Z, dim=1, keepdim=True)
    logp = Z - torch.log(torch.sum(torch.exp(Z), dim=1, keepdim=True))
    return -torch.sum(Y * logp) / X.shape[0]


def _softmax_args(n=1000, d=256, k=10):
    rng = _rng()
    X = rng.normal(0.0, 1.0, (n, d))
    W = rng.normal(0.0, 1.0 / np.sqrt(d), (d, k))
    labels = rng.integers(0, k, n)
    Y = np.eye(k)[labels]  # one-hot, float
    return W, X, Y


# ---------------------------------------------------------- layer normalisation


def layer_norm(x, gain, bias, C):
    """Layer normalisation over the last axis (gain and bias broadcast over the
    rows), then a fixed linear read-out: sum(y * C)."""
    mu = np.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = np.mean(xc * xc, axis=-1, keepdims=True)
    xhat = xc / np.sqrt(var + 1e-5)
    y = gain * xhat + bias
    return np.sum(y * C)


def layer_norm_by_hand(x, gain, bias, C):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    rstd = 1.0 / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + 1e-5)
    xhat = xc * rstd
    g_bias = C.sum(axis=0)
    g_gain = (C * xhat).sum(axis=0)
    gh = C * gain  # d loss / d xhat
    g_x = rstd * (gh - gh.mean(axis=-1, keepdims=True)
                  - xhat * (gh * xhat).mean(axis=-1, keepdims=True))
    return g_x, g_gain, g_bias


def layer_norm_torch(x, gain, bias, C):
    import torch

    C = torch.from_numpy(C)
    mu = torch.mean(x, dim=-1, keepdim=True)
    xc = x - mu
    var = torch.mean(xc * xc, dim=-1, keepdim=True)
    xhat = xc / torch.sqrt(var + 1e-5)
    y = gain * xhat + bias
    return torch.sum(y * C)


def _layer_norm_args(n=64, d=256):
    rng = _rng()
    x = rng.normal(0.5, 2.0, (n, d))
    gain = rng.normal(1.0, 0.1, d)
    bias = rng.normal(0.0, 0.1, d)
    C = rng.normal(0.0, 1.0, (n, d))
    return x, gain, bias, C


TITLE = "NumPy arrays"

CASES = [
    # name, function, hand-written gradient, arguments, wrt
    ("MLP 2x256 tanh, batch 64", mlp, mlp_by_hand, shared_args(_mlp_args), (0, 1, 2, 3)),
    ("logistic NLL, X 10000x100", logistic_nll, logistic_nll_by_hand,
     shared_args(_logistic_args), 0),
    ("softmax x-entropy, 1000x256x10", softmax_xent, softmax_xent_by_hand,
     shared_args(_softmax_args), 0),
    ("layer norm, 64x256", layer_norm, layer_norm_by_hand, shared_args(_layer_norm_args),
     (0, 1, 2)),
]

# {case name: {tool key: port}}: PyTorch's spelling of each case (torch.* for np.*,
# dim/keepdim for axis/keepdims, constant arrays made tensors); every other peer runs
# the case itself with np rebound.
PORTS = {
    "MLP 2x256 tanh, batch 64": {"torch": mlp_torch},
    "logistic NLL, X 10000x100": {"torch": logistic_nll_torch},
    "softmax x-entropy, 1000x256x10": {"torch": softmax_xent_torch},
    "layer norm, 64x256": {"torch": layer_norm_torch},
}
