"""One function per kind of error s2sad raises: the README's error catalogue calls
each of these, and tests/test_readme.py checks that the messages it shows are the
ones s2sad prints."""

import math

import numpy as np

import s2sad


def uses_try(x):
    try:
        return math.log(x)
    except ValueError:
        return 0.0


def unknown_name(x):
    return x * rate  # noqa: F821  (never defined)


def opaque_call(x):
    return np.i0(x) * 2.0


def pair(x):
    return x * x, 2.0 * x


def poly(x, y):
    return x * x * y


def count(x, n):
    return x ** n


def scale_in_place(w):
    w[0] = 2.0 * w[0]
    return np.sum(w * w)


def points(x):
    pts = []
    for i in range(3):
        pts.append((x * i, x))
    total = 0.0
    for a, b in list(pts):  # (a copy of the list of pairs: not one list per position)
        total += a * b
    return total


def pole(x):
    return 1.0 / (x - 2.0) + x


def root(x, y):
    r = np.sqrt(x * x)
    return np.sum(r * y)


def stepped_until(x, n):
    for i in s2sad.checkpointed(range(n)):
        if x > 2.0:
            return x
        x = x * 1.5
    return x


HISTORY = []


def recorded(w):
    loss = np.sum(w * w)
    HISTORY.append(loss)
    return HISTORY[-1] + w[0]
