"""python -m benchmarks [--quick]: run the benchmark cases, print a Markdown table."""

import argparse
import os
import platform
import sys
import time

import s2sad

from . import loop_cases, scalar_cases
from .timing import interleaved, median, ratio, spread

HERE = os.path.dirname(os.path.abspath(__file__))


def first_call_ms(func, args, wrt, repeats):
    """Parse-to-compiled time of a gradient: the function is defined anew each time
    (a fresh code object), so nothing is cached."""
    module = sys.modules[func.__module__]
    path = module.__file__
    with open(path) as fh:
        text = fh.read()
    out = []
    for i in range(repeats):
        ns = {"__name__": f"_bench_fresh_{i}"}
        exec(compile(text, path, "exec"), ns)
        fresh = ns[func.__name__]
        start = time.perf_counter()
        s2sad.grad(fresh, wrt=wrt)(*args)
        out.append((time.perf_counter() - start) * 1e3)
    return median(out)


def flat(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in flat(v)]
    return [value]


def check(got, expected, name):
    got, expected = flat(got), flat(expected)
    if len(got) != len(expected) or any(abs(g - e) > 1e-9 * (1 + abs(e))
                                        for g, e in zip(got, expected)):
        raise SystemExit(f"{name}: s2sad's gradient {got} differs from the reference {expected}")


def peak_kib(fn, args):
    """Peak memory allocated during one call (tracemalloc), in KiB."""
    import tracemalloc

    fn(*args)
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def table(cases, quick, memory=False):
    rounds = 5 if quick else 41
    rows = []
    for name, f, by_hand, args, wrt in cases:
        g = s2sad.grad(f, wrt=wrt)
        check(g(*args), by_hand(*args), name)
        times = interleaved({"primal": f, "s2sad": g, "by hand": by_hand}, args, rounds,
                            target=0.002 if quick else 0.005)
        p, s = median(times["primal"]), median(times["s2sad"])
        rows.append((name, p * 1e6, s * 1e6, spread(times["s2sad"]),
                     ratio(times, "s2sad", "primal"), ratio(times, "s2sad", "by hand"),
                     first_call_ms(f, args, wrt, 3 if quick else 9),
                     peak_kib(g, args) if memory else None,
                     peak_kib(by_hand, args) if memory else None))
    head = "| case | primal (µs) | s2sad grad (µs) | spread | grad / primal | grad / by hand | first call (ms) |"
    rule = "|---|---:|---:|---:|---:|---:|---:|"
    if memory:
        head += " peak memory, s2sad / by hand (KiB) |"
        rule += "---:|"
    lines = [head, rule]
    for name, p, s, sp, r, rh, fc, mem, mem_hand in rows:
        line = f"| {name} | {p:.2f} | {s:.2f} | ±{sp:.0%} | {r:.2f} | {rh:.2f} | {fc:.1f} |"
        if memory:
            line += f" {mem:.1f} / {mem_hand:.1f} |"
        lines.append(line)
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    args = parser.parse_args(argv)
    print(f"# s2sad {s2sad.__version__} benchmarks")
    print(f"Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cores; medians of interleaved rounds\n")
    print("## Scalar functions\n")
    print(table(scalar_cases.CASES, args.quick))
    print("\n## Loops\n")
    print(table(loop_cases.CASES, args.quick, memory=True))


if __name__ == "__main__":
    main()
