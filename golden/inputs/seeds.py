"""The worked examples of the background notes."""

import math


def quadratic(x):
    return x * x + 3 * x + 2


def z(x, y):
    z = x * y + math.sin(x)
    return z


def program(x, y):
    p = 7 * x
    r = 1 / y
    q = p * x * 5
    v = 2 * p * q + 3 * r
    return v


CASES = [
    ("quadratic", (5.0,), 0),
    ("z", (0.5, 4.2), ("x", "y")),
    ("program", (1.5, 0.7), ("x", "y")),
]
