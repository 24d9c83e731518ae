"""python -m benchmarks.first_call [--quick] [--repeats R] [--steady]: the first call of
``s2sad.grad`` (parse, transform, simplify, emit, compile, and one run) against the
size of a straight-line function, 25 to 6,400 operations, scalar and NumPy; prints a
Markdown table of milliseconds and milliseconds per operation.

The functions are generated (`straight_line`): four parameters and one line per
operation, each line one of ``x + y``, ``x * y``, ``x - y``, ``sin(x)``, ``exp(x)``
(``math`` on floats, ``np`` on arrays of 5 floats) over a recent value and any value
before it, chosen by a fixed seed so that every value stays finite. The NumPy
variant returns ``np.sum`` of its last values. Each figure is the best of
``--repeats`` first calls, each of a new function object of the same source (no
cache knows it), in CPU seconds of the benchmark's process (`time.process_time`): on
a shared machine, what other processes take does not count.

``--steady`` times instead the built gradient of the scalar functions against the
function itself, per call (`steady_state`), with the number of locals of the
gradient's code object: from 256 locals on, CPython reaches a local through an extra
instruction, which `s2sad.backend.reuse` keeps the gradient under where it can."""

import argparse
import gc
import linecache
import math
import random
import statistics
import time

import numpy as np

import s2sad

SIZES = (25, 100, 400, 1600, 6400)
PARAMETERS = ("a", "b", "c", "d")
SCALAR_ARGS = (0.3, 0.5, 0.7, 0.9)
_count = iter(range(10**9))


def array_args():
    return tuple(np.linspace(0.1, 0.9, 5) * k for k in (1.0, 1.5, 2.0, 2.5))


def straight_line_source(n, numpy=False, seed=0) -> str:
    """The source of a function of four parameters with `n` operations in a chain:
    each line one operation (``+``, ``*``, ``-``, ``sin``, ``exp``) on a value of the
    last few lines and any earlier one, chosen so that every value stays within
    [-1e3, 1e3] at the benchmark's arguments (an ``exp`` only of a value below 5)."""
    rnd = random.Random(seed)
    lib = np if numpy else math
    prefix = "np" if numpy else "math"
    values = dict(zip(PARAMETERS, array_args() if numpy else SCALAR_ARGS))
    names = list(PARAMETERS)
    lines = [f"def f({', '.join(PARAMETERS)}):"]
    for i in range(n):
        x = rnd.choice(names[-4:])
        y = rnd.choice(names)
        options = [("+", f"{x} + {y}", values[x] + values[y]),
                   ("*", f"{x} * {y}", values[x] * values[y]),
                   ("-", f"{x} - {y}", values[x] - values[y]),
                   ("sin", f"{prefix}.sin({x})", lib.sin(values[x]))]
        if np.max(values[x]) < 5:
            options.append(("exp", f"{prefix}.exp({x})", lib.exp(values[x])))
        options = [o for o in options if np.max(np.abs(o[2])) < 1e3]
        _, text, value = rnd.choice(options)
        name = f"v{i}"
        lines.append(f"    {name} = {text}")
        names.append(name)
        values[name] = value
    total = " + ".join(names[-3:])
    lines.append(f"    return np.sum({total})" if numpy else f"    return {total}")
    return "\n".join(lines) + "\n"


def straight_line(n, numpy=False, seed=0):
    """A new function object of `straight_line_source(n, numpy, seed)` (its source
    registered in `linecache`, so s2sad reads it as it reads a file's)."""
    source = straight_line_source(n, numpy, seed)
    filename = f"<straight-line-{n}-{next(_count)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"math": math, "np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


def first_call_seconds(n, numpy=False, repeats=3) -> float:
    """The best of `repeats` first calls of the gradient of a new `n`-operation
    function, in CPU seconds."""
    args = array_args() if numpy else SCALAR_ARGS
    best = math.inf
    for _ in range(repeats):
        f = straight_line(n, numpy)
        gc.collect()
        start = time.process_time()
        s2sad.grad(f, wrt=(0, 1, 2, 3))(*args)
        best = min(best, time.process_time() - start)
    return best


def steady_state(n, numpy=False, rounds=9) -> tuple:
    """``(primal µs, gradient µs, gradient / primal, locals)`` of an `n`-operation
    function once its gradient is built: CPU time per call, the primal and
    ``s2sad.grad`` timed in turn in each round, the medians over the rounds (of the
    times, and of the per-round ratios), and ``co_nlocals`` of the gradient's code."""
    args = array_args() if numpy else SCALAR_ARGS
    f = straight_line(n, numpy)
    g = s2sad.grad(f, wrt=(0, 1, 2, 3))
    g(*args)
    namespace = {}
    exec(s2sad.source(f, wrt=(0, 1, 2, 3)), namespace)
    nlocals = namespace["f_grad"].__code__.co_nlocals
    calls = max(5, 20000 // n)
    primal, gradient = [], []
    for _ in range(rounds):
        for fn, out in ((f, primal), (g, gradient)):
            start = time.process_time()
            for _ in range(calls):
                fn(*args)
            out.append((time.process_time() - start) / calls)
    ratio = statistics.median(b / a for a, b in zip(primal, gradient))
    return (statistics.median(primal) * 1e6, statistics.median(gradient) * 1e6, ratio,
            nlocals)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="25 to 400 operations only")
    parser.add_argument("--repeats", type=int, default=3,
                        help="first calls per size, the best one counts (default 3)")
    parser.add_argument("--steady", action="store_true",
                        help="the built gradient's time per call against the primal's, "
                             "scalar, instead of the first call")
    args = parser.parse_args(argv)
    sizes = [n for n in SIZES if n <= 400] if args.quick else SIZES
    if args.steady:
        print("| operations | primal (µs) | gradient (µs) | gradient / primal | locals |")
        print("|---:|---:|---:|---:|---:|")
        for n in sizes:
            primal, gradient, ratio, nlocals = steady_state(n)
            print(f"| {n:,} | {primal:,.1f} | {gradient:,.1f} | {ratio:.2f} | {nlocals:,} |",
                  flush=True)
        return
    first_call_seconds(10, repeats=1)  # (s2sad's own imports and caches, once)
    first_call_seconds(10, numpy=True, repeats=1)
    print("| operations | scalar (ms) | scalar (ms / op) | NumPy (ms) | NumPy (ms / op) |")
    print("|---:|---:|---:|---:|---:|")
    for n in sizes:
        scalar = first_call_seconds(n, repeats=args.repeats) * 1e3
        array = first_call_seconds(n, numpy=True, repeats=args.repeats) * 1e3
        print(f"| {n:,} | {scalar:,.1f} | {scalar / n:.3f} | {array:,.1f} | "
              f"{array / n:.3f} |", flush=True)


if __name__ == "__main__":
    main()
