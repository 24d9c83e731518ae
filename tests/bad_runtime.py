"""Functions whose derivatives raise at run time (for the note naming the user's
line). `root_of_square` at 0 runs forward and fails in the backward sweep
(the derivative of sqrt at 0). The line numbers are checked by tests/test_errors.py."""

import math

import numpy as np


def pole(x):
    return 1.0 / (x - 2.0) + x


POLE_LINE = 11


def root_of_square(x):
    y = x * x
    return math.sqrt(y) * 2.0


SQRT_LINE = 19


def root_of_square_np(x, y):
    a = x * x
    b = np.sqrt(a)
    return np.sum(b * y) + np.exp(y[0])


ROOT_LINE = 27


def sometimes_a_pair(x, y):
    if x > 0.0:
        return x, y
    return x * y


PAIR_LINE = 36


def sorted_first(x, y):
    v = np.sort(np.array([x, y]))[0]
    return v * y + x


def ramp_sum(x):
    return np.sum(np.linspace(0.0, x, 5)) + np.sum(np.full(3, x))
