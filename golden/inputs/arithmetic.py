"""Operators, unary minus, abs, min/max, constants, reassignment and integers."""

import math


def operators(x, y):
    a = x + y
    b = x - y
    c = x * y
    d = x / y
    e = x**y
    f = (x * 4.0) // y
    return a * b + c - d + e - f


def unary_abs_min_max(x, y):
    return -x + abs(x - y) + min(x, y) * max(x, 2.0)


def constants(x):
    return math.pi * x * x + 1e-3 * x - math.e


def augmented(x, y):
    s = x
    s += y
    s *= x
    s -= 1.0
    s /= y
    s **= 2
    return s


def shadowing(x, y):
    t = x * y
    x = t + x
    t = x * x
    y = t - y
    return x * y


def integer_power(x, n):
    return x**n + n * x


CASES = [
    ("operators", (1.7, 0.8), ("x", "y")),
    ("unary_abs_min_max", (0.6, 1.9), ("x", "y")),
    ("constants", (0.7,), "x"),
    ("augmented", (1.2, 0.9), ("x", "y")),
    ("shadowing", (1.1, 0.4), ("x", "y")),
    ("integer_power", (1.3, 3), "x"),
]
