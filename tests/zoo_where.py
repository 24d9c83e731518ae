"""Functions that differentiate through np.where where the branch not taken has an
infinite or NaN derivative (or value) at some of the points (tests/test_where.py).

Each case is ``(f, taken, other, cond, points)``: ``f(x)`` sums ``np.where(cond(x),
taken(x), other(x))``; `taken`, `other` and `cond` are the same elementwise NumPy
expressions, for the reference derivatives (central differences of the branch each
point takes); `points` include the masked points where the other branch is singular.
"""

import numpy as np


def sqrt_or_zero(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def log_or_constant(x):
    return np.sum(np.where(x > 0, np.log(x), -1.0))


def x_over_x(x):
    return np.sum(np.where(x != 0, x / x, 1.0))


def sinc(d):
    return np.sum(np.where(np.abs(d) > 1e-3, np.sin(d) / d, 1.0))


def arcsin_near_one(x):
    return np.sum(np.where(x < 0.9, np.arcsin(x), 2.0 * x))


def power_of_positive(x):
    return np.sum(np.where(x > 0, x ** 1.5, 0.0))


def entropy_term(x):
    return np.sum(np.where(x > 0, x * np.log(x), 0.0))


def sqrt_in_else(x):
    return np.sum(np.where(x <= 0, x * x, 3.0 * np.sqrt(x)))


def exp_overflowing(x):
    return np.sum(np.where(x < 20.0, np.exp(50.0 * x), 0.0))


def chain_of_singular(x):
    return np.sum(np.where(x > 1, np.sqrt(np.log(x)) / x, 0.0))


CASES = [
    (sqrt_or_zero, np.sqrt, lambda x: 0.0 * x, lambda x: x > 0,
     [-1.0, 0.0, 0.5, 2.0]),
    (log_or_constant, np.log, lambda x: 0.0 * x - 1.0, lambda x: x > 0,
     [-1.0, 0.0, 0.5, 2.0]),
    (x_over_x, lambda x: x / x, lambda x: 0.0 * x + 1.0, lambda x: x != 0,
     [0.0, 1.0, -2.0, 0.0]),
    (sinc, lambda d: np.sin(d) / d, lambda d: 0.0 * d + 1.0,
     lambda d: np.abs(d) > 1e-3, [0.0, 0.5, -2.0, 1.5]),
    (arcsin_near_one, np.arcsin, lambda x: 2.0 * x, lambda x: x < 0.9,
     [1.0, 1.5, 0.3, -0.5]),
    (power_of_positive, lambda x: x ** 1.5, lambda x: 0.0 * x, lambda x: x > 0,
     [-1.0, 0.0, 2.0, 0.5]),
    (entropy_term, lambda x: x * np.log(x), lambda x: 0.0 * x, lambda x: x > 0,
     [-1.0, 0.0, 2.0, 0.5]),
    (sqrt_in_else, lambda x: x * x, lambda x: 3.0 * np.sqrt(x), lambda x: x <= 0,
     [-1.0, 0.0, 2.0, 0.5]),
    (exp_overflowing, lambda x: np.exp(50.0 * x), lambda x: 0.0 * x, lambda x: x < 20.0,
     [30.0, 0.1, -0.2, 25.0]),
    (chain_of_singular, lambda x: np.sqrt(np.log(x)) / x, lambda x: 0.0 * x,
     lambda x: x > 1, [1.0, 0.5, 2.0, -1.0]),
]


def sqrt_steps_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.where(x > i, np.sqrt(x - i), 0.0))
    return s
