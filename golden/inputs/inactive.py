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


def parsed_setting(x, text):
    n = 2
    try:
        n = int(text)
    except ValueError:
        print(f"not a number: {text!r}")
    return x ** n


CASES = [
    ("checked", (1.5, 0.7), ("x", "y")),
    ("settings", (0.8,), 0),
    ("parsed_setting", (1.3, "3"), 0),
]
