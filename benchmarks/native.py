"""Loops compiled with numba: ``grad(f, jit=True)`` against the Python primal, s2sad's
Python gradient, the hand-written gradient, the hand-written gradient compiled with
``numba.njit`` ("by hand, jit": the best compiled gradient a person writes, the
bound for jit=True) and (when JAX is installed) ``jax.jit`` of JAX's gradient of the
minimal JAX port, its compile time included.

    python -m benchmarks.native [--quick]

The cases are the loop cases (loop_cases.py: a 1000-term sum, Rosenbrock over 100
floats, a 1000-step Euler integrator, Newton's square root, a ``while`` loop JAX
cannot reverse) and one more ``while`` loop of 1000 steps. Per-call times are
medians of interleaved rounds (timing.py), every contender of a case measured side
by side. "compile" is the first call of a new ``grad(f, jit=True)``: s2sad's
transform and numba's compilation for those argument types (numba's one-time start-up
is measured apart, on a one-line function, before the first case); for ``jax.jit``,
its first call (tracing and XLA). "by hand, jit" compiles the case's hand-written
gradient as it is (their reverse loops run a descending ``range``, which numba
compiles, where it has no ``reversed``), and is given a list of floats as an array,
as jit=True passes it. Needs numba (pip install -e '.[jit]'); JAX's
column is left out without JAX. Writes results/native.md."""

import argparse
import math
import os
import sys
import time

from .threads import PINNED  # noqa: I001  (one BLAS thread, before NumPy loads)
import numpy as np

import s2sad

from . import loop_cases
from .timing import interleaved, median

HERE = os.path.dirname(os.path.abspath(__file__))


def decay(k):
    """A ``while`` loop of 1000 steps whose trip count only the run knows."""
    x = 1.0
    t = 0.0
    while t < 1.0:
        x = x - 0.001 * k * x * math.cos(x)
        t += 0.001
    return x


def decay_by_hand(k):
    x = 1.0
    t = 0.0
    xs = []
    while t < 1.0:
        xs.append(x)
        x = x - 0.001 * k * x * math.cos(x)
        t += 0.001
    xb = 1.0
    kb = 0.0
    while xs:
        x = xs.pop()
        c = math.cos(x)
        kb -= 0.001 * x * c * xb
        xb = xb * (1.0 - 0.001 * k * (c - x * math.sin(x)))
    return kb


CASES = loop_cases.CASES + [("while loop, 1000 steps", decay, decay_by_hand, (1.5,), 0)]


def jax_row(name, wrt, args):
    """(compile seconds, per-call function) for jax.jit of JAX's gradient of the port,
    the reason it has none, or None without JAX."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    port = loop_cases.PORTS.get(name, {}).get("jax-jit")
    if port is None:
        return "no port (the Python loop unrolls)"
    argnums = wrt if isinstance(wrt, tuple) else (wrt,)
    fn = jax.jit(jax.grad(port, argnums=argnums))
    start = time.perf_counter()
    try:
        jax.block_until_ready(fn(*args))
    except Exception as exc:  # noqa: BLE001 (JAX's refusal is the result)
        return f"cannot: {type(exc).__name__}"
    compile_s = time.perf_counter() - start
    return compile_s, lambda *a: jax.block_until_ready(fn(*a))


def numba_start_up() -> float:
    """Seconds for numba's first compilation of anything in this process."""
    import numba
    start = time.perf_counter()
    numba.njit(lambda x: x + 1.0)(1.0)
    return time.perf_counter() - start


def by_hand_jit(by_hand, args):
    """The hand-written gradient compiled with numba.njit (compiled now), taking a
    list of floats as an array, as ``grad(f, jit=True)`` does."""
    import numba
    fn = numba.njit(by_hand)
    if not any(type(a) is list for a in args):
        fn(*args)
        return fn

    def as_arrays(*a):
        return fn(*[np.asarray(v) if type(v) is list else v for v in a])

    as_arrays(*args)
    return as_arrays


def rows(quick):
    settings = dict(rounds=5, target=0.002) if quick else dict(rounds=21, target=0.01)
    out = []
    for name, f, by_hand, args, wrt in CASES:
        start = time.perf_counter()
        jitted = s2sad.grad(f, wrt=wrt, jit=True)
        got = jitted(*args)
        compile_s = time.perf_counter() - start
        python = s2sad.grad(f, wrt=wrt)
        want = by_hand(*args)
        assert np.allclose(np.ravel(got), np.ravel(want), rtol=1e-9), (name, got, want)
        assert np.allclose(np.ravel(python(*args)), np.ravel(got), rtol=1e-12), name
        compiled_by_hand = by_hand_jit(by_hand, args)
        assert np.allclose(np.ravel(compiled_by_hand(*args)), np.ravel(want), rtol=1e-9), name
        contenders = {"primal": f, "python": python, "by hand": by_hand, "jit": jitted,
                      "by hand, jit": compiled_by_hand}
        jax = jax_row(name, wrt, args)
        if isinstance(jax, tuple):
            contenders["jax"] = jax[1]
        times = interleaved(contenders, args, **settings)
        t = {k: median(v) for k, v in times.items()}
        out.append((name, compile_s, t, jax))
    return out


def us(seconds):
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.native")
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke run")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for BLAS and XLA (set before NumPy loads)")
    args = parser.parse_args(argv)
    try:
        start_up = numba_start_up()
    except ImportError:
        print("numba is not installed: pip install -e '.[jit]'", file=sys.stderr)
        return 1
    found = rows(args.quick)
    has_jax = any(j is not None for *_, j in found)
    head = ["case", "primal", "Python gradient", "by hand", "jit=True", "primal / jit",
            "compile", "by hand, jit", "jit=True / by hand, jit"] + (
        ["jax.jit", "jax.jit compile"] if has_jax else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, compile_s, t, jax in found:
        cells = [name, us(t["primal"]), us(t["python"]), us(t["by hand"]), us(t["jit"]),
                 f"{t['primal'] / t['jit']:.1f}x", f"{compile_s:.2f} s",
                 us(t["by hand, jit"]), f"{t['jit'] / t['by hand, jit']:.2f}"]
        if has_jax:
            cells += ([us(t["jax"]), f"{jax[0]:.2f} s"] if isinstance(jax, tuple)
                      else [jax or "", ""])
        lines.append("| " + " | ".join(cells) + " |")
    threads = f"{PINNED}" if PINNED else "the libraries' own"
    text = "\n".join(lines) + (f"\n\nnumba's start-up (its first compilation in the process, "
                               f"before the first case): {start_up:.2f} s. Threads for BLAS "
                               f"and XLA: {threads}.\n")
    print(text)
    if not args.quick:
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "native.md"), "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
