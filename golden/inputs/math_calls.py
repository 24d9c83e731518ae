"""Calls of math functions, by module attribute and by imported name."""

import math
from math import exp, log, sqrt


def trig(x):
    return math.sin(x) * math.cos(x) + math.tan(x) + math.atan2(x, 2.0)


def exp_log(x, y):
    return exp(-x * y) + log(x) * math.log1p(y) + sqrt(x * y)


def special(x):
    return math.erf(x) + math.hypot(x, 3.0) + math.tanh(x) ** 2


def black_scholes(S, K, T, r, sigma):
    sqrtT = math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return S * N1 - K * math.exp(-r * T) * N2


CASES = [
    ("trig", (0.4,), "x"),
    ("exp_log", (0.8, 1.3), ("x", "y")),
    ("special", (0.3,), "x"),
    ("black_scholes", (100.0, 95.0, 0.5, 0.02, 0.3), ("S", "K", "T", "r", "sigma")),
]
