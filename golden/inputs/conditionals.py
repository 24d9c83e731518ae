"""Conditional expressions, boolean operators and early returns."""

import math


def relu_like(x):
    return x if x > 0 else 0.1 * x


def safe_sqrt(x, y):
    s = math.sqrt(x) if x > 0 else 0.0
    return s * y


def branch(x, y):
    if x > y:
        z = x * y
    elif x > 0:
        z = x + y
    else:
        z = -x
    return z * z


def early_return(x):
    if x < 0:
        return -x
    y = x * x
    if y > 4:
        return y
    return y + x


def chained(x, y):
    inside = 0.0 < x < 1.0 and y > 0
    return x * y if inside else x + y


CASES = [
    ("relu_like", (1.5,), "x"),
    ("safe_sqrt", (2.0, 3.0), ("x", "y")),
    ("branch", (2.0, 1.0), ("x", "y")),
    ("early_return", (1.5,), "x"),
    ("chained", (0.5, 2.0), ("x", "y")),
]
