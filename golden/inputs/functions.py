"""Functions defined inside the function, lambdas, and dicts of computed values: put
in place where they are called, followed where they are read."""

import math

import numpy as np


def closure(x, w):
    def act(z):
        return np.tanh(z) * w

    h = act(x * 2.0)
    return np.sum(act(h))


def squares(x):
    sq = lambda v: v * v  # noqa: E731
    return sum(sq(x[i]) for i in range(len(x)))


def stepped(x, n):
    scale = 2.0

    def step(v, k=1.0):
        y = v * scale
        if y > 1.0:
            return y - k
        return y + k

    for i in range(n):
        x = step(x)
    return step(x, 0.5)


def state_dict(w, xs):
    state = {"h": 0.0, "steps": 0}
    for x in xs:
        state = {"h": math.tanh(w * state["h"] + x), "steps": state["steps"] + 1}
    return state["h"] ** 2 / state["steps"]


def chosen(x, smooth):
    act = np.tanh if smooth else np.sin
    total = 0.0
    for f in (math.exp, math.cos):
        total += f(act(x))
    return total


CASES = [
    ("closure", (np.array([0.3, -0.5]), 1.5), ("x", "w")),
    ("squares", (np.array([1.0, 2.0]),), 0),
    ("stepped", (0.2, 3), 0),
    ("state_dict", (0.7, [0.1, -0.4, 0.3]), 0),
    ("chosen", (0.4, True), 0),
]
