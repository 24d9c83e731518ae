"""Loops: for over range and lists, while, break, continue, return, nesting."""

import math


def loop_sum(x, y, n):
    acc = 0.0
    for i in range(n):
        acc += math.sin(x * i) * y
    return acc


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def with_break(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
        if s > 10.0:
            break
        s = s * 1.1
    return s


def with_continue(x, n):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        s = s + math.sin(x * i)
    return s


def return_in_loop(x):
    for i in range(20):
        x = x * 1.5
        if x > 5.0:
            return x * 2.0
    return x


def nested(x, n):
    s = x
    for i in range(n):
        for j in range(i):
            s = s * 0.9 + x * j
    return s


def euler(k, c):
    x = 1.0
    v = 0.0
    dt = 0.01
    for i in range(100):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v * v


CASES = [
    ("loop_sum", (0.7, 1.3, 20), ("x", "y")),
    ("newton_sqrt", (2.0,), "a"),
    ("with_break", (0.9, 10), "x"),
    ("with_continue", (0.7, 12), "x"),
    ("return_in_loop", (0.4,), "x"),
    ("nested", (0.7, 5), "x"),
    ("euler", (2.0, 0.3), ("k", "c")),
]
