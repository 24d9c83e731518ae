"""Lists: built with append, read by index, summed, iterated, as arguments."""

import math


def rosenbrock(xs):
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
    return total


def build_and_sum(x, n):
    ys = []
    for i in range(n):
        ys.append(math.sin(x * i) + x)
    return sum(ys) + ys[0] * ys[-1]


def weighted(xs, ws):
    total = 0.0
    for k, (x, w) in enumerate(zip(xs, ws)):
        total += w * x * x / (k + 1)
    return total


def step(s, x):
    if s > 0.5:
        return s * x - math.cos(s)
    return s + x * x


def calls_in_loop(x, n):
    s = x
    for i in range(n):
        s = step(s, x)
    return s


CASES = [
    ("rosenbrock", ([0.5, 1.2, -0.3, 0.8],), "xs"),
    ("build_and_sum", (0.7, 6), "x"),
    ("calls_in_loop", (0.7, 6), "x"),
]
