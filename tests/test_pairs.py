"""A list of tuples the function builds (`frontend.pairs`): one list per position, so
reverse mode differentiates it, in every way the function reads it."""

import math

import numpy as np
import pytest

import s2sad
from helpers import tree_numeric_grad


def trajectory(x, n):
    pairs = []
    for i in range(n):
        pairs.append((x * i, math.sin(x + i)))
    total = 0.0
    for a, b in pairs:
        total = total + a * b
    return total + len(pairs)


def indexed(x, v):
    points = []
    for i in range(3):
        points.append((x * i, x * x, np.sin(v * i * x)))
    first, second, third = points[1]
    return first * second + np.sum(points[2][2]) + points[-1][-1][0] * points[0][1]


def used_otherwise(x):
    pairs = []
    pairs.append((x, 2.0 * x))
    return sum(p[0] for p in pairs)  # (read by a comprehension: left a list of tuples)


@pytest.mark.parametrize("f,args", [(trajectory, (0.5, 4)),
                                    (indexed, (0.7, np.array([0.2, -0.4])))])
def test_lists_of_tuples_in_both_modes(f, args):
    g = s2sad.grad(f)(*args)
    assert g == pytest.approx(tree_numeric_grad(f, args, 0), rel=1e-6)
    _, dot = s2sad.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))
    assert dot == pytest.approx(g, rel=1e-9)
    h = s2sad.hessian(f)(*args)
    eps = 1e-5
    up = s2sad.grad(f)(args[0] + eps, *args[1:])
    down = s2sad.grad(f)(args[0] - eps, *args[1:])
    assert h == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-6)


def test_a_list_of_tuples_read_otherwise_is_left_as_it_is():
    assert s2sad.jvp(used_otherwise, (1.5,), (1.0,)) == (1.5, 1.0)
    with pytest.raises(s2sad.S2SADError, match="list of tuples"):
        s2sad.grad(used_otherwise)(1.5)
