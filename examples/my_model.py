"""Code that knows nothing about s2sad. `custom_rules.py` beside it teaches s2sad the
derivatives it cannot work out from this file (the README's "Custom derivative
rules" walks through it)."""

import bisect
import math

import numpy as np


def radius(area):
    """The radius of a circle of this area (np.emath.sqrt has no s2sad rule)."""
    return np.emath.sqrt(area / math.pi)


def quantize(x):
    """`x` rounded to a quarter."""
    return round(x * 4.0) / 4.0


def quantized_loss(w, x, y):
    return (quantize(w * x) - y) ** 2


LEVELS = [0.0, 100.0, 500.0, 2000.0]  # what a customer must have spent to reach each level


def price(amount, spent):
    """`amount` less 5% for each loyalty level reached (found by `bisect`, a C function)."""
    level = bisect.bisect_right(LEVELS, spent) - 1
    return amount * (1.0 - 0.05 * level)
