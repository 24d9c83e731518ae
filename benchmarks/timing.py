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
    """(calls per round, seconds per round): enough calls that a round lasts
    ``target`` seconds, or one call for a callable slower than that."""
    number = 1
    while True:
        t = per_call(fn, args, number) * number
        if t >= target:
            return number, t
        number *= 2 if t == 0 else max(2, min(100, int(target / max(t, 1e-9)) + 1))


def interleaved(contenders, args, rounds=15, target=0.02, budget=None, min_rounds=5,
                collect=True):
    """{name: [seconds per call, one per round]} for callables measured in turn.

    Each round calls every contender once (``number`` calls each, from calibration),
    starting one further along the list each round, so none is always first. The
    garbage collector is off while a contender runs and, with ``collect``, runs
    between contenders, so one tool's garbage (autograd's graphs) does not slow the
    next. With a ``budget`` in seconds, ``rounds`` is an upper bound: slow cases get
    fewer rounds (never fewer than ``min_rounds``)."""
    calibrated = {name: calibrate(fn, args, target) for name, fn in contenders.items()}
    if budget is not None:
        per_round = sum(t for _, t in calibrated.values())
        rounds = max(min_rounds, min(rounds, int(budget / max(per_round, 1e-9))))
    names = list(contenders)
    times = {name: [] for name in names}
    gc_was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            for k in range(len(names)):
                name = names[(r + k) % len(names)]
                times[name].append(per_call(contenders[name], args, calibrated[name][0]))
                if collect:
                    gc.collect(1)  # the young generations: cheap, and the garbage is young
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
