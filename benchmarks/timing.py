"""Side-by-side timing: every contender is measured in the same run, in interleaved
rounds, and reported as a median (and spread) per call."""

import gc
import statistics
import time


def per_call(fn, args, number):
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number


def calibrate(fn, args, target=0.02):
    number = 1
    while True:
        t = per_call(fn, args, number) * number
        if t >= target:
            return number
        number *= 2 if t == 0 else max(2, min(100, int(target / max(t, 1e-9)) + 1))


def interleaved(contenders, args, rounds=15, target=0.02):
    """{name: [seconds per call, one per round]} for callables measured in turn."""
    numbers = {name: calibrate(fn, args, target) for name, fn in contenders.items()}
    times = {name: [] for name in contenders}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for name, fn in contenders.items():
                times[name].append(per_call(fn, args, numbers[name]))
    finally:
        if gc_was:
            gc.enable()
    return times


def ratio(times, num, den):
    """Median over rounds of the per-round ratio num/den: both were measured within
    the same round, so a machine that speeds up or slows down between rounds does
    not move the ratio."""
    return statistics.median(a / b for a, b in zip(times[num], times[den]))


def median(xs):
    return statistics.median(xs)


def spread(xs):
    """Half the interquartile range, relative to the median."""
    qs = statistics.quantiles(xs, n=4)
    return (qs[2] - qs[0]) / 2 / statistics.median(xs)
