"""Comprehensions, generator expressions and list operations, lowered to loops."""

import math


def filtered_energy(xs, c):
    return sum(c * x * x for x in xs if x > 0.0)


def softest(xs, w):
    scaled = [w * x for x in xs]
    return min(math.exp(s) for s in scaled) + scaled[-1]


def split_and_join(xs, v):
    first, *rest = xs
    ys = rest + [v * first]
    return math.prod(ys) + max(ys)


CASES = [
    ("filtered_energy", ([0.5, -1.25, 2.0, 1.5], 1.5), ("xs", "c")),
    ("softest", ([0.5, -1.25, 2.0], 0.7), ("xs", "w")),
    ("split_and_join", ([0.5, 1.25, 2.0], 0.8), ("xs", "v")),
]
