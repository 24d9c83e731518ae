"""Forward mode: the cost of a jvp against the primal on every benchmark case, and
`jacobian(mode="forward")` (vector mode: one pass carrying every direction) against
one jvp per input on a function of 50 numbers.

    python -m benchmarks.forward [--quick]

Times are medians of interleaved rounds (see timing.py); each ratio is the median of
per-round ratios, so the two sides of a ratio were measured side by side. The jvp is
the compiled forward derivative called directly, with a random direction on the
case's `wrt` arguments; its output is checked against the hand-written gradient
dotted with that direction before it is timed. Writes results/forward.md."""

import argparse
import importlib
import os
import random
import sys

from .threads import PINNED  # noqa: I001  (one BLAS thread, before NumPy loads)
from .allocator import STEADY  # noqa: I001  (before anything allocates arrays)
import numpy as np

import s2sad
from s2sad.api import dispatch
from s2sad.ir.kinds import kind_of

from . import harness
from .timing import interleaved, median, ratio

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_MODULES = ["scalar_cases", "loop_cases", "numpy_cases"]


def direction(x, rng):
    if isinstance(x, np.ndarray):
        return np.asarray([rng.uniform(-1, 1) for _ in range(x.size)]).reshape(x.shape)
    if isinstance(x, list):
        return [rng.uniform(-1, 1) for _ in x]
    return rng.uniform(-1, 1)


def dot(a, b):
    if isinstance(a, (list, tuple)):
        return sum(dot(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


def compiled_jvp(f, args, positions, rng):
    """(function, arguments) calling the compiled forward derivative directly."""
    names = list(__import__("inspect").signature(f).parameters)
    kinds = {n: kind_of(v) for n, v in zip(names, args)}
    wrt = tuple(names[i] for i in positions)
    fn = dispatch.compiled_forward(f, wrt, kinds)[1]
    dots = [direction(args[i], rng) for i in positions]
    return fn, tuple(args) + tuple(dots), dots


def jvp_rows(quick):
    rows = []
    rng = random.Random(0)
    settings = dict(rounds=5, target=0.002) if quick else dict(rounds=31, target=0.005)
    for module_name in CASE_MODULES:
        module = importlib.import_module(f".{module_name}", __package__)
        for case in harness.load(module):
            fn, call_args, dots = compiled_jvp(case.f, case.args, case.positions, rng)
            out, out_dot = fn(*call_args)
            by_hand = case.by_hand(*case.args)
            grads = by_hand if isinstance(case.wrt, tuple) else (by_hand,)
            expected = sum(dot(g, d) for g, d in zip(grads, dots))
            if abs(out_dot - expected) > 1e-7 * (1 + abs(expected)):
                raise SystemExit(f"{case.name}: jvp gives {out_dot}, the hand-written "
                                 f"gradient along the direction {expected}")
            times = interleaved({"primal": lambda *a, f=case.f, n=len(case.args):
                                 f(*a[:n]), "jvp": fn}, call_args, **settings)
            rows.append((case.name, median(times["primal"]), median(times["jvp"]),
                         ratio(times, "jvp", "primal")))
    return rows


def chain(xs):
    """50 numbers in, 50 out: a smoothing step with a nonlinearity (a tridiagonal
    Jacobian), the kind of map whose Jacobian a stiff ODE solver asks for."""
    n = len(xs)
    out = []
    for i in range(n):
        left = xs[i - 1] if i > 0 else 0.0
        right = xs[i + 1] if i < n - 1 else 0.0
        out.append(math.tanh(xs[i]) + 0.25 * (left + right) - 0.1 * xs[i] * xs[i])
    return out


def jacobian_row(quick, n=50):
    xs = [0.01 * k - 0.2 for k in range(n)]
    vector = s2sad.jacobian(chain, mode="forward")
    kinds = {"xs": kind_of(xs)}
    fn = dispatch.compiled_forward(chain, ("xs",), kinds)[1]
    units = [[1.0 if j == k else 0.0 for j in range(n)] for k in range(n)]

    def one_jvp_per_input(xs):
        return np.stack([np.asarray(fn(xs, u)[1]) for u in units], axis=-1)

    def public_jvp_per_input(xs):
        return np.stack([np.asarray(s2sad.jvp(chain, (xs,), (u,))[1]) for u in units],
                        axis=-1)

    J = vector(xs)
    assert np.allclose(J, one_jvp_per_input(xs), rtol=1e-12, atol=1e-14)
    settings = dict(rounds=5, target=0.002) if quick else dict(rounds=21, target=0.01)
    times = interleaved({"vector": vector, "compiled jvp x n": one_jvp_per_input,
                         "s2sad.jvp x n": public_jvp_per_input, "primal": chain},
                        (xs,), **settings)
    return n, {k: median(v) for k, v in times.items()}, {
        k: ratio(times, k, "vector") for k in ("compiled jvp x n", "s2sad.jvp x n")}, \
        ratio(times, "vector", "primal")


def array_jacobian_row(quick, n=50):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, n)
    W = rng.normal(0.0, 1.0 / np.sqrt(n), (n, n))
    vector = s2sad.jacobian(array_map, mode="forward")
    kinds = {"x": kind_of(x), "W": kind_of(W)}
    fn = dispatch.compiled_forward(array_map, ("x",), kinds)[1]
    units = list(np.eye(n))

    def one_jvp_per_input(x, W):
        return np.stack([fn(x, W, u)[1] for u in units], axis=-1)

    J = vector(x, W)
    assert np.allclose(J, one_jvp_per_input(x, W), rtol=1e-12, atol=1e-14)
    settings = dict(rounds=5, target=0.002) if quick else dict(rounds=21, target=0.01)
    times = interleaved({"vector": vector, "compiled jvp x n": one_jvp_per_input,
                         "primal": array_map}, (x, W), **settings)
    return {k: median(v) for k, v in times.items()}, \
        ratio(times, "compiled jvp x n", "vector"), ratio(times, "vector", "primal")


def array_map(x, W):
    """50 numbers in, 50 out, through NumPy: a layer with a normalising term."""
    return np.tanh(W @ x) + x * np.mean(x * x)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.forward", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke run")
    parser.add_argument("--malloc", choices=["steady", "default"], default="steady",
                        help="glibc keeps freed memory (steady) or uses its own thresholds")
    args = parser.parse_args(argv)
    lines = ["# Forward mode", "", "| case | primal | jvp | jvp / primal |", "|---|---:|---:|---:|"]
    for name, p, j, r in jvp_rows(args.quick):
        lines.append(f"| {name} | {p * 1e6:.1f} µs | {j * 1e6:.1f} µs | {r:.2f} |")
    n, t, over, per_primal = jacobian_row(args.quick)
    lines += ["", f"Jacobian of a map of {n} numbers to {n} numbers:", "",
              "| method | time | / vector mode |", "|---|---:|---:|",
              f"| `jacobian(mode=\"forward\")` (vector mode, one pass) | "
              f"{t['vector'] * 1e6:.0f} µs | 1 |",
              f"| compiled jvp, one call per input | {t['compiled jvp x n'] * 1e6:.0f} µs | "
              f"{over['compiled jvp x n']:.1f} |",
              f"| `s2sad.jvp`, one call per input | {t['s2sad.jvp x n'] * 1e6:.0f} µs | "
              f"{over['s2sad.jvp x n']:.1f} |",
              "", f"(vector mode / primal: {per_primal:.1f})"]
    t, over, per_primal = array_jacobian_row(args.quick)
    lines += ["", "Jacobian of a NumPy map of 50 numbers to 50 numbers "
              "(`np.tanh(W @ x) + x * np.mean(x * x)`):", "",
              "| method | time | / vector mode |", "|---|---:|---:|",
              f"| `jacobian(mode=\"forward\")` (vector mode, one pass) | "
              f"{t['vector'] * 1e6:.0f} µs | 1 |",
              f"| compiled jvp, one call per input | {t['compiled jvp x n'] * 1e6:.0f} µs | "
              f"{over:.1f} |", "", f"(vector mode / primal: {per_primal:.1f})"]
    lines += ["", f"OpenBLAS limited to {PINNED} thread{'s' if PINNED != 1 else ''}."
              if PINNED else "OpenBLAS threads: the library's own default."]
    lines += ["glibc keeps freed memory in the process (--malloc steady, see "
              "benchmarks/allocator.py)." if STEADY else "The allocator's own thresholds."]
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "forward.md"), "w") as fh:
        fh.write(text)
    return 0


import math  # noqa: E402  (used by `chain`, defined above for reading order)

if __name__ == "__main__":
    sys.exit(main())
