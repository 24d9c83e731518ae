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

import argparse
import os
import sys

from .threads import PINNED  # noqa: I001  (one BLAS thread, before NumPy loads)
from .allocator import STEADY  # noqa: I001  (before anything allocates arrays)
import numpy as np

import s2sad

from .timing import interleaved, median, ratio

HERE = os.path.dirname(os.path.abspath(__file__))


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


def models():
    params = (1.3, 0.1, 0.01, 200)
    oscillators = {
        "method, attributes' kinds known": (s2sad.grad(Oscillator(*params).loss), (0.8,)),
        "method, the call runs a method as written": (
            s2sad.grad(CountedOscillator(*params).loss), (0.8,)),
        "function of arguments": (
            (lambda g: lambda x: g(x, *params))(s2sad.grad(oscillator)), (0.8,)),
    }
    rng = np.random.default_rng(20240604)
    width, n = 256, 64
    s = 1.0 / np.sqrt(width)
    W1, W2 = rng.normal(0, s, (width, width)), rng.normal(0, s, (width, width))
    b1, b2 = rng.normal(0, 0.1, width), rng.normal(0, 0.1, width)
    X, Y = rng.normal(size=(n, width)), rng.normal(size=(n, width))
    mlps = {
        "method, attributes' kinds known": (s2sad.grad(MLP(W1, b1, W2, b2).loss), (X, Y)),
        "method, the call runs a method as written": (
            s2sad.grad(CountedMLP(W1, b1, W2, b2).loss), (X, Y)),
        "function of arguments": (
            (lambda g: lambda X, Y: g(X, W1, b1, W2, b2, Y))(s2sad.grad(mlp)), (X, Y)),
    }
    return {"oscillator, 200 Euler steps": oscillators, "MLP (64 x 256, width 256)": mlps}


def run(quick=False):
    rounds, target = (5, 0.002) if quick else (31, 0.01)
    lines = ["# Methods of objects", "",
             "Gradient time of a method reading its object's numbers and arrays, against "
             "the same function of arguments (median of interleaved rounds; ratio: "
             "median of per-round ratios).", "",
             "| model | spelling | gradient (µs) | ratio |", "|---|---|---:|---:|"]
    for title, spellings in models().items():
        reference = None
        for name, (g, args) in spellings.items():
            got = g(*args)
            if reference is None:
                reference = got
            np.testing.assert_allclose(got, reference, rtol=1e-10, atol=1e-12)
        times = interleaved({n: (lambda *_, g=g, args=args: g(*args))
                             for n, (g, args) in spellings.items()}, (),
                            rounds=rounds, target=target)
        for name in spellings:
            lines.append(f"| {title} | {name} | {median(times[name]) * 1e6:.1f} | "
                         f"{ratio(times, name, 'function of arguments'):.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "methods.md"), "w") as fh:
        fh.write(text)
    return text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few rounds: a smoke test")
    args = parser.parse_args(argv)
    run(args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
