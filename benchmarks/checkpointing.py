"""python -m benchmarks.checkpointing [--quick] [--rounds R] [--snapshots S,...]: memory
and time of the gradient of an Euler integrator with N steps, with a tape (no
checkpointing), with the CTZ schedule and with binomial checkpointing (revolve) at 10
snapshots (and at each count of ``--snapshots``, by ``grad(..., checkpoint="binomial",
snapshots=S)``), and of the same integrator written as a ``while`` loop (tape, and
CTZ: its trip count is not known when it starts); prints a Markdown table.

Every gradient is first checked against the taped one. Peak memory is tracemalloc's
peak during one gradient call (the arguments and the compiled code exist before it
starts). Time is the median over interleaved rounds (each round calls every variant
of one N, starting one further along each round) and ``time / tape`` the median of the
per-round ratios, so a machine that slows down between rounds does not move it.
``steps / N`` counts the steps the step functions run (forward sweep and recomputation)
per loop step, and ``bound`` is what the issue asks the time ratio to stay near:
``t`` for binomial (the smallest t with C(s+t, s) >= N), log2 N for CTZ."""

import argparse
import gc
import math
import tracemalloc

import s2sad
from s2sad.checkpoint import CTZ, Binomial, repetitions

from .timing import interleaved, median, ratio

SNAPSHOTS = 10
DT = 0.5**10  # a power of two: the while loop's time t = k * DT is exact


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


def euler_while(k, c, n):
    """The integrator up to the time n * DT: a loop whose trip count is not known
    when it starts (here it is n, as DT is a power of two)."""
    x = 1.0
    v = 0.0
    t = 0.0
    end = n * DT
    while t < end:
        a = -k * x - c * v
        x = x + DT * v
        v = v + DT * a
        t = t + DT
    return x


def euler_while_ctz(k, c, n):
    x = 1.0
    v = 0.0
    t = 0.0
    end = n * DT
    while s2sad.checkpointed(t < end):
        a = -k * x - c * v
        x = x + DT * v
        v = v + DT * a
        t = t + DT
    return x


# (loop, gradient, function, schedule or None): the first of each loop is the tape
VARIANTS = [("for", "tape (no checkpointing)", euler, None),
            ("for", "CTZ", euler_ctz, "ctz"),
            ("for", f"binomial, {SNAPSHOTS} snapshots", euler_binomial, "binomial"),
            ("while", "tape (no checkpointing)", euler_while, None),
            ("while", "CTZ", euler_while_ctz, "ctz")]


def peak_kib(g, n):
    gc.collect()
    tracemalloc.start()
    g(2.0, 0.3, n)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def step_calls(schedule, n, snapshots=SNAPSHOTS):
    """How many steps the schedule runs (forward sweep and recomputation) for n."""
    if schedule is None:
        return n
    driver = CTZ() if schedule == "ctz" else Binomial(snapshots)
    driver.forward(lambda indices, state, args: state, range(n), (), ())
    driver.reverse(lambda i, state, args, bar: bar, ())
    return driver.steps


def bound(schedule, n, snapshots=SNAPSHOTS):
    if schedule == "ctz":
        return f"{math.log2(n):.1f}"
    if schedule == "binomial":
        return str(repetitions(n, snapshots))
    return ""


def fmt_time(t):
    return f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 10^3 and 10^4 only")
    parser.add_argument("--rounds", type=int, default=21,
                        help="timing rounds per N (fewer at 10^5: about a minute each)")
    parser.add_argument("--snapshots", default="",
                        help="more snapshot counts for binomial rows, comma-separated")
    args = parser.parse_args(argv)
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5]
    grads = [(loop, label, s2sad.grad(f, wrt=(0, 1)), schedule)
             for loop, label, f, schedule in VARIANTS]
    counts = {label: SNAPSHOTS for _, label, _, _ in grads}
    more = [int(x) for x in args.snapshots.split(",") if x and int(x) != SNAPSHOTS]
    for i, s in enumerate(more):
        label = f"binomial, {s} snapshots"
        counts[label] = s
        g = s2sad.grad(euler, wrt=(0, 1), checkpoint="binomial", snapshots=s)
        grads.insert(3 + i, ("for", label, g, "binomial"))
    rows = []
    for n in sizes:
        want = {}
        for loop, label, g, _ in grads:
            got = g(2.0, 0.3, n)  # also compiles it
            want.setdefault(loop, got)
            assert all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(got, want[loop])), \
                (n, loop, label, got, want[loop])
        contenders = {(loop, label): g for loop, label, g, _ in grads}
        rounds = args.rounds if n < 10**5 else max(5, args.rounds // 3)
        times = interleaved(contenders, (2.0, 0.3, n), rounds=rounds, budget=None)
        for loop, label, g, schedule in grads:
            tape = next(key for key in contenders if key[0] == loop)
            rows.append((f"{n:,}", loop, label, peak_kib(g, n),
                         step_calls(schedule, n, counts[label]) / n,
                         median(times[loop, label]), ratio(times, (loop, label), tape),
                         bound(schedule, n, counts[label])))
    print("| N | loop | gradient | peak KiB | steps / N | time | time / tape | bound |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    for n, loop, label, kib, steps, t, r, b in rows:
        print(f"| {n} | `{loop}` | {label} | {kib:,.1f} | {steps:.2f} | {fmt_time(t)} | "
              f"{r:.2f} | {b} |")


if __name__ == "__main__":
    main()
