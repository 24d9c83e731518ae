"""Tuple packing and unpacking, and calls of user functions."""

import math


def swap(x, y):
    a, b = x, y
    a, b = b, a * b
    return a - b


def polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


def from_polar(x, y):
    r, theta = polar(x, y)
    return r * math.cos(theta) + r * theta


def scaled(u, scale=2.0, shift=0.0):
    return scale * u * u + shift


def calls(x, y):
    a = scaled(x)
    b = scaled(y, scale=x)
    c = scaled(a, 3.0, shift=b)
    return a + b + c


CASES = [
    ("swap", (1.5, 2.5), ("x", "y")),
    ("from_polar", (1.2, 0.7), ("x", "y")),
    ("calls", (0.9, 1.1), ("x", "y")),
]
