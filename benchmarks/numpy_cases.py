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


# ------------------------------------------------------------ attention layer


def attention(Wq, Wk, Wv, X, C):
    """One head of self-attention over the rows of X: scores by np.einsum, a softmax
    over each row (its maximum subtracted first, so exp never overflows), the values
    mixed by another einsum, and a fixed read-out sum(out * C)."""
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    S = np.einsum("id,jd->ij", Q, K) * (1.0 / np.sqrt(X.shape[1]))
    S = S - np.max(S, axis=1, keepdims=True)
    E = np.exp(S)
    A = E / np.sum(E, axis=1, keepdims=True)
    out = np.einsum("ij,jd->id", A, V)
    return np.sum(out * C)


def attention_by_hand(Wq, Wk, Wv, X, C):
    scale = 1.0 / np.sqrt(X.shape[1])
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    S = np.einsum("id,jd->ij", Q, K) * scale
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    gA = np.einsum("id,jd->ij", C, V)  # d loss / d A
    # d loss / d S, scaled: the softmax's Jacobian (the shift cancels: no gradient)
    gS = A * (gA - (gA * A).sum(axis=1, keepdims=True)) * scale
    gQ = np.einsum("ij,jd->id", gS, K)
    gK = np.einsum("ij,id->jd", gS, Q)
    gV = np.einsum("ij,id->jd", A, C)
    return X.T @ gQ, X.T @ gK, X.T @ gV


def attention_torch(Wq, Wk, Wv, X, C):
    import torch

    X, C = torch.from_numpy(X), torch.from_numpy(C)
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    S = torch.einsum("id,jd->ij", Q, K) * (1.0 / np.sqrt(X.shape[1]))
    S = S - torch.amax(S, dim=1, keepdim=True)
    E = torch.exp(S)
    A = E / torch.sum(E, dim=1, keepdim=True)
    out = torch.einsum("ij,jd->id", A, V)
    return torch.sum(out * C)


def _attention_args(n=128, d=64):
    rng = _rng()
    X = rng.normal(0.0, 1.0, (n, d))
    Wq, Wk, Wv = (rng.normal(0.0, 1.0 / np.sqrt(d), (d, d)) for _ in range(3))
    C = rng.normal(0.0, 1.0, (n, d))
    return Wq, Wk, Wv, X, C


# ------------------------------------------------------- cumulative-sum loss


def cumsum_loss(W, X, Y):
    """Paths as the cumulative sums of tanh steps along each row (np.cumsum), mean
    squared error against target paths Y."""
    steps = np.tanh(X @ W)
    paths = np.cumsum(steps, axis=1)
    d = paths - Y
    return np.mean(d * d)


def cumsum_loss_by_hand(W, X, Y):
    steps = np.tanh(X @ W)
    G = (np.cumsum(steps, axis=1) - Y) * (2.0 / Y.size)  # d loss / d paths
    gsteps = np.cumsum(G[:, ::-1], axis=1)[:, ::-1]  # a cumsum's adjoint: from the end
    return X.T @ (gsteps * (1.0 - steps * steps))


def cumsum_loss_torch(W, X, Y):
    import torch

    X, Y = torch.from_numpy(X), torch.from_numpy(Y)
    steps = torch.tanh(X @ W)
    paths = torch.cumsum(steps, dim=1)
    d = paths - Y
    return torch.mean(d * d)


def _cumsum_args(n=1000, d=32, t=50):
    rng = _rng()
    X = rng.normal(0.0, 1.0, (n, d))
    W = rng.normal(0.0, 0.5 / np.sqrt(d), (d, t))
    Y = np.cumsum(rng.normal(0.0, 0.3, (n, t)), axis=1)
    return W, X, Y


# ------------------------------------------------ eigendecomposition-based loss


def eigh_loss(B, C):
    """A matrix function of the symmetric matrix B + B.T: its eigenvectors with tanh
    of its eigenvalues (np.linalg.eigh), read out by sum(F * C)."""
    w, V = np.linalg.eigh(B + B.T)
    F = (V * np.tanh(w)) @ V.T
    return np.sum(F * C)


def eigh_loss_by_hand(B, C):
    w, V = np.linalg.eigh(B + B.T)
    g = np.tanh(w)
    gap = w[:, None] - w
    np.fill_diagonal(gap, 1.0)
    L = (g[:, None] - g) / gap  # divided differences of tanh (Daleckii-Krein)
    np.fill_diagonal(L, 1.0 - g * g)
    G = V @ (L * (V.T @ C @ V)) @ V.T  # d loss / d (B + B.T), as a symmetric matrix
    return G + G.T


def eigh_loss_torch(B, C):
    import torch

    C = torch.from_numpy(C)
    w, V = torch.linalg.eigh(B + B.T)
    F = (V * torch.tanh(w)) @ V.T
    return torch.sum(F * C)


def _eigh_args(n=64):
    rng = _rng()
    B = rng.normal(0.0, 1.0 / np.sqrt(n), (n, n))  # (eigenvalues of B + B.T apart)
    C = rng.normal(0.0, 1.0, (n, n))
    return B, C


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
    ("attention, einsum + softmax, 128x64", attention, attention_by_hand,
     shared_args(_attention_args), (0, 1, 2)),
    ("cumsum paths, 1000x32 -> 50 steps", cumsum_loss, cumsum_loss_by_hand,
     shared_args(_cumsum_args), 0),
    ("eigh matrix function, 64x64", eigh_loss, eigh_loss_by_hand, shared_args(_eigh_args), 0),
]

# {case name: {tool key: port}}: PyTorch's spelling of each case (torch.* for np.*,
# dim/keepdim for axis/keepdims, constant arrays made tensors); every other peer runs
# the case itself with np rebound.
PORTS = {
    "MLP 2x256 tanh, batch 64": {"torch": mlp_torch},
    "logistic NLL, X 10000x100": {"torch": logistic_nll_torch},
    "softmax x-entropy, 1000x256x10": {"torch": softmax_xent_torch},
    "layer norm, 64x256": {"torch": layer_norm_torch},
    "attention, einsum + softmax, 128x64": {"torch": attention_torch},
    "cumsum paths, 1000x32 -> 50 steps": {"torch": cumsum_loss_torch},
    "eigh matrix function, 64x64": {"torch": eigh_loss_torch},
}
