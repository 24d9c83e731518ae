"""Methods of objects: the gradient of a method that reads the numbers and arrays its
object holds (``grad(model.loss)``), against the same function with them as
arguments, interleaved in one process.

    python -m benchmarks.methods [--quick]

Two models, each in three spellings: a method whose object's attributes have kinds
the derivative is specialised on (``self.k``, a float; ``self.W``, a matrix); the
same method where the call also runs a method as written that counts its calls
(``self.calls += 1``: it may rebind an attribute, so their kinds are not taken as
known and the derivative is the general one, what every method got before); and a
function taking the same values as arguments. The models: a damped oscillator's
Euler loop of 200 steps over floats (``k``, ``c``, ``dt``, an int step count), the
gradient with respect to the starting position; a 2-layer tanh MLP (64 x 256,
width 256), the gradient with respect to its input ``X``. Each gradient is checked
against the function's before it is timed. Times are medians of interleaved rounds
(see timing.py); each ratio is the median of per-round ratios against the function
with arguments. Writes results/methods.md."""

import sys

from .threads import PINNED  # noqa: I001  (one BLAS thread, before NumPy loads)
from .allocator import STEADY  # noqa: I001  (before anything allocates arrays)
import numpy as np

import s2sad

from .spellings import compare, main, mlp_weights


# -------------------------------------------------------------- the oscillator


def oscillator(x, k, c, dt, n):
    v = 0.0
    for _ in range(n):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v * v


class Oscillator:
    def __init__(self, k, c, dt, n):
        self.k, self.c, self.dt, self.n = k, c, dt, n
        self.calls = 0

    def loss(self, x):
        v = 0.0
        for _ in range(self.n):
            a = -self.k * x - self.c * v
            x = x + self.dt * v
            v = v + self.dt * a
        return x * x + v * v

    def count(self):
        self.calls += 1


class CountedOscillator(Oscillator):
    def loss(self, x):
        self.count()  # (run as written: it assigns an attribute)
        return Oscillator.loss(self, x)


# --------------------------------------------------------------------- the MLP


def mlp(X, W1, b1, W2, b2, Y):
    H = np.tanh(X @ W1 + b1)
    d = H @ W2 + b2 - Y
    return np.mean(d * d)


class MLP:
    def __init__(self, W1, b1, W2, b2):
        self.W1, self.b1, self.W2, self.b2 = W1, b1, W2, b2
        self.calls = 0

    def loss(self, X, Y):
        H = np.tanh(X @ self.W1 + self.b1)
        d = H @ self.W2 + self.b2 - Y
        return np.mean(d * d)

    def count(self):
        self.calls += 1


class CountedMLP(MLP):
    def loss(self, X, Y):
        self.count()
        return MLP.loss(self, X, Y)


def _one(g):
    return [g]


def models():
    params = (1.3, 0.1, 0.01, 200)
    oscillators = {
        "method, attributes' kinds known": (s2sad.grad(Oscillator(*params).loss), (0.8,), _one),
        "method, the call runs a method as written": (
            s2sad.grad(CountedOscillator(*params).loss), (0.8,), _one),
        "function of arguments": (
            (lambda g: lambda x: g(x, *params))(s2sad.grad(oscillator)), (0.8,), _one),
    }
    W1, b1, W2, b2, X, Y = mlp_weights()
    mlps = {
        "method, attributes' kinds known": (s2sad.grad(MLP(W1, b1, W2, b2).loss), (X, Y), _one),
        "method, the call runs a method as written": (
            s2sad.grad(CountedMLP(W1, b1, W2, b2).loss), (X, Y), _one),
        "function of arguments": (
            (lambda g: lambda X, Y: g(X, W1, b1, W2, b2, Y))(s2sad.grad(mlp)), (X, Y), _one),
    }
    return {"oscillator, 200 Euler steps": oscillators, "MLP (64 x 256, width 256)": mlps}


def run(quick=False):
    return compare(models(), "function of arguments", [
        "# Methods of objects", "",
        "Gradient time of a method reading its object's numbers and arrays, against the "
        "same function of arguments (median of interleaved rounds; ratio: median of "
        "per-round ratios)."], "methods", quick)


if __name__ == "__main__":
    sys.exit(main(run, __doc__))
