"""Code that carries no derivative, run as written in the derivative."""

import math

import numpy as np


def checked(x, y):
    assert x > 0, f"x must be positive, got {x}"
    z = x * y
    if z > 1e6:
        raise ValueError(f"z = {z:.3g} is too large")
    return math.log(x) * z


def settings(x):
    import math as m

    cfg = {"scale": 0.5, "power": 3}
    with np.errstate(divide="ignore"):
        y = m.sin(x) * cfg["scale"]
    return y ** cfg["power"]


CASES = [
    ("checked", (1.5, 0.7), ("x", "y")),
    ("settings", (0.8,), 0),
]
