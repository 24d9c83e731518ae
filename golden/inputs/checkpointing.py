"""Checkpointed loops: the body becomes a step function and its reverse, driven by a
scheduler from s2sad.checkpoint (binomial with a known trip count, CTZ online)."""

import math

import s2sad


def euler(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.01
    for i in s2sad.checkpointed(range(n), snapshots=10, schedule="binomial"):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x


def branchy_ctz(x, y, n):
    s = x
    for i in s2sad.checkpointed(range(n), schedule="ctz"):
        if i % 2 == 0:
            s = s * y
        else:
            s = math.sin(s) + y
    return s


def newton_while(a, tol):
    x = a
    while s2sad.checkpointed(abs(x * x - a) > tol * a):
        x = 0.5 * (x + a / x)
    return x


CASES = [
    ("euler", (2.0, 0.3, 50), ("k", "c")),
    ("branchy_ctz", (0.7, 1.1, 9), ("x", "y")),
    ("newton_while", (2.0, 1e-12), "a"),
]
