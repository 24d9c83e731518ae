"""python -m benchmarks.checkpointing [--quick]: memory and time of the gradient of an
Euler integrator with N steps, with a tape (no checkpointing), with the CTZ schedule
and with binomial checkpointing (revolve) at 10 snapshots; prints a Markdown table.

Peak memory is tracemalloc's peak during one gradient call (the arguments and the
compiled code exist before it starts); time is the median of a few calls."""

import argparse
import gc
import statistics
import time
import tracemalloc

import s2sad


def euler(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.001
    for i in range(n):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x


def euler_ctz(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.001
    for i in s2sad.checkpointed(range(n), schedule="ctz"):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x


def euler_binomial(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.001
    for i in s2sad.checkpointed(range(n), snapshots=10, schedule="binomial"):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x


VARIANTS = [("tape (no checkpointing)", euler), ("CTZ", euler_ctz),
            ("binomial, 10 snapshots", euler_binomial)]


def peak_kib(g, n):
    gc.collect()
    tracemalloc.start()
    g(2.0, 0.3, n)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def seconds(g, n, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        g(2.0, 0.3, n)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fmt_time(t):
    return f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 10^3 and 10^4 only")
    args = parser.parse_args(argv)
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5]
    grads = [(label, s2sad.grad(f, wrt=(0, 1))) for label, f in VARIANTS]
    want = {n: grads[0][1](2.0, 0.3, n) for n in sizes}
    rows = []
    for n in sizes:
        base = None
        for label, g in grads:
            got = g(2.0, 0.3, n)  # also compiles it
            assert all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(got, want[n]))
            t = seconds(g, n, 5 if n < 10**5 else 3)
            base = base or t
            rows.append((f"{n:,}", label, peak_kib(g, n), t, t / base))
    print("| N | gradient | peak KiB | time | time / tape |")
    print("|---:|---|---:|---:|---:|")
    for n, label, kib, t, ratio in rows:
        print(f"| {n} | {label} | {kib:,.1f} | {fmt_time(t)} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
