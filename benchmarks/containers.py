"""Containers of parameters: the gradient of a model whose parameters are a list of
``(W, b)`` pairs or a dict, against the same model written with one argument per
array, interleaved in one process.

    python -m benchmarks.containers [--quick]

Two models: the 2-layer tanh MLP of the NumPy cases (64 x 256, width 256) and a small
RNN (hidden 64, 20 steps over inputs of 32), each in three spellings (one argument
per array, a list of pairs, a dict). Each gradient is checked against the
one-argument one before it is timed. Times are medians of interleaved rounds (see
timing.py); each ratio is the median of per-round ratios against the
one-argument spelling. Writes results/containers.md."""

import sys

from .threads import PINNED  # noqa: I001  (one BLAS thread, before NumPy loads)
from .allocator import STEADY  # noqa: I001  (before anything allocates arrays)
import numpy as np

import s2sad

from .spellings import compare, main, mlp_weights


# ------------------------------------------------------------------- the MLP


def mlp_args(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1 + b1)
    d = H @ W2 + b2 - Y
    return np.mean(d * d)


def mlp_pairs(layers, X, Y):
    h = X
    for i, (W, b) in enumerate(layers):
        h = h @ W + b
        if i < len(layers) - 1:
            h = np.tanh(h)
    d = h - Y
    return np.mean(d * d)


def mlp_dict(p, X, Y):
    H = np.tanh(X @ p["W1"] + p["b1"])
    d = H @ p["W2"] + p["b2"] - Y
    return np.mean(d * d)


# ------------------------------------------------------------------- the RNN


def rnn_args(Wx, Wh, b, V, xs, y):
    h = np.zeros(Wh.shape[0])
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
    d = V @ h - y
    return d * d


def rnn_dict(p, xs, y):
    h = np.zeros(p["Wh"].shape[0])
    for x in xs:
        h = np.tanh(p["Wx"] @ x + p["Wh"] @ h + p["b"])
    d = p["V"] @ h - y
    return d * d


def rnn_pairs(cells, xs, y):
    (Wx, Wh, b), (V,) = cells
    h = np.zeros(Wh.shape[0])
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
    d = V @ h - y
    return d * d


def models():
    rng = np.random.default_rng(20240604)
    W1, b1, W2, b2, X, Y = mlp_weights(rng)
    mlp = {
        "one argument per array": (s2sad.grad(mlp_args, wrt=(0, 1, 2, 3)),
                                   (W1, b1, W2, b2, X, Y), lambda g: list(g)),
        "list of (W, b) pairs": (s2sad.grad(mlp_pairs), ([(W1, b1), (W2, b2)], X, Y),
                                 lambda g: [g[0][0], g[0][1], g[1][0], g[1][1]]),
        "dict": (s2sad.grad(mlp_dict), ({"W1": W1, "b1": b1, "W2": W2, "b2": b2}, X, Y),
                 lambda g: [g["W1"], g["b1"], g["W2"], g["b2"]]),
    }
    hidden, inputs, steps = 64, 32, 20
    Wx = rng.normal(0, 0.2, (hidden, inputs))
    Wh = rng.normal(0, 0.2, (hidden, hidden))
    b, V = rng.normal(0, 0.1, hidden), rng.normal(0, 0.2, hidden)
    xs = [rng.normal(size=inputs) for _ in range(steps)]
    rnn = {
        "one argument per array": (s2sad.grad(rnn_args, wrt=(0, 1, 2, 3)),
                                   (Wx, Wh, b, V, xs, 0.5), lambda g: list(g)),
        "list of tuples": (s2sad.grad(rnn_pairs), ([(Wx, Wh, b), (V,)], xs, 0.5),
                           lambda g: [g[0][0], g[0][1], g[0][2], g[1][0]]),
        "dict": (s2sad.grad(rnn_dict), ({"Wx": Wx, "Wh": Wh, "b": b, "V": V}, xs, 0.5),
                 lambda g: [g["Wx"], g["Wh"], g["b"], g["V"]]),
    }
    return {"MLP (64 x 256, width 256)": mlp, "RNN (20 steps, hidden 64)": rnn}


def run(quick=False):
    return compare(models(), "one argument per array", [
        "# Containers of parameters", "",
        "Gradient time of one model in three spellings, against one argument per array "
        "(median of interleaved rounds; ratio: median of per-round ratios)."],
        "containers", quick, unit=("ms", 1e3, ".3f"))


if __name__ == "__main__":
    sys.exit(main(run, __doc__))
