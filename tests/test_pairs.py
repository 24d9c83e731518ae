"""Lists of tuples and tuples of lists the function builds, in reverse mode: a list
of tuples is one list per position (`frontend.pairs`), a tuple holding lists is its
items (`frontend.structures`), in every way the function makes and reads them, also
across the functions it calls; and recursive functions returning lists."""

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


def read_by_item(x):
    pairs = []
    pairs.append((x, 2.0 * x))
    pairs.append((x * x, 1.0))
    return sum(p[0] * p[1] for p in pairs)  # (an element read by position)


def made_by_comprehension(x):
    pts = [(x * i, math.sin(x * i)) for i in range(4) if i != 2]
    total = 0.0
    for i, (a, b) in enumerate(pts):
        total = total + i * a * b
    for p in reversed(pts):
        total = total * 0.9 + p[0] - p[1]
    a, b = pts.pop()
    return total + a * b + len(pts) + sum(u * v for u, v in pts[1:])


def energy(pts):
    return sum(a * b for a, b in pts)


def displayed_and_passed(x):
    pts = [(x, 2 * x), (x * x, 1.0)]
    more = pts + [(3.0, x)]
    copied = list(more)
    return energy(more) + energy(pts[1:]) + energy(copied) * 0.5


def spring(x, n):
    out = []
    p, v = x, 0.0
    for _ in range(n):
        v = v - 0.1 * math.sin(p)
        p = p + 0.1 * v
        out.append((p, v))
    return out


def returned_by_a_helper(x):
    path = spring(x, 6)
    return sum(p * p + v for p, v in path)


def arrays_in_pairs(x, v):
    layers = []
    for i in range(3):
        layers.append((np.sin(v * i * x), x * i))
    out = 0.0
    for w, b in layers:
        out = out + np.sum(w) * b
    return out


def simulate(x, n):
    xs, vs = [], []
    p, v = x, 0.0
    for _ in range(n):
        v = v - 0.1 * math.sin(p)
        p = p + 0.1 * v
        xs.append(p)
        vs.append(v)
    return xs, vs


def tuple_of_lists_returned(x):
    xs, vs = simulate(x, 5)
    run = simulate(x * 0.5, 3)
    return sum(a * a for a in xs) + vs[-1] + run[0][1] * run[1][2]


def tuple_of_lists_looped(x):
    a = []
    for i in range(3):
        a.append(x * i)
    b = [x * x, math.cos(x)]
    total = 0.0
    for seq in (a, b):
        for value in seq:
            total = total * 0.5 + value
    both = (a, [2.0 * x])
    return total + both[0][2] * both[1][0]


def halving(x, n):
    if n == 0:
        return [x]
    rest = halving(x * 0.5, n - 1)
    return [x * x] + rest


def recursive_list(x):
    ys = halving(x, 3)
    return sum(halving(x, 2)) + ys[0] * ys[3]


def made_again_each_turn(x, y):
    acc = x
    ys = [y, x]
    n = 0
    while n < 2 and x < 2.5:
        n += 1
        pr = [(v, math.exp(math.tanh(acc)) * v) for v in ys] + [(x * 0.5, x)]
        for i, (a, b) in enumerate(pr):
            acc = acc + 0.125 * i * a - b
        acc = acc + pr[-1][1] * len(pr) + sum(a * b for a, b in pr[1:])
        if len(pr) > 1:
            a, b = pr.pop()
            acc = acc + a - b
    return acc


def repacked(x, y):
    heads, tails = simulate(x, 3)
    both = (heads, halving(y, 2))  # (a list unpacked from a call, packed again)
    total = 0.0
    for seq in both:
        total = total + 0.25 * seq[-1]
    return total + heads[0] * both[1][1] + sum(tails)


CASES = [
    (trajectory, (0.5, 4)),
    (repacked, (0.3, 0.2)),
    (indexed, (0.7, np.array([0.2, -0.4]))),
    (read_by_item, (1.5,)),
    (made_by_comprehension, (0.7,)),
    (displayed_and_passed, (0.7,)),
    (returned_by_a_helper, (0.8,)),
    (arrays_in_pairs, (0.7, np.array([0.1, 0.2]))),
    (tuple_of_lists_returned, (0.7,)),
    (tuple_of_lists_looped, (0.9,)),
    (recursive_list, (1.3,)),
]


@pytest.mark.parametrize("f,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_in_reverse_forward_and_second_order(f, args):
    g = s2sad.grad(f)(*args)
    assert g == pytest.approx(tree_numeric_grad(f, args, 0), rel=1e-6)
    _, dot = s2sad.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))
    assert dot == pytest.approx(g, rel=1e-9)
    h = s2sad.hessian(f)(*args)
    eps = 1e-5
    up = s2sad.grad(f)(args[0] + eps, *args[1:])
    down = s2sad.grad(f)(args[0] - eps, *args[1:])
    assert h == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-6)


def test_lists_of_pairs_made_again_in_each_turn_of_a_while_loop():
    args = (0.3, 0.2)
    g = s2sad.grad(made_again_each_turn)(*args)
    assert g == pytest.approx(tree_numeric_grad(made_again_each_turn, args, 0), rel=1e-6)
    assert s2sad.jvp(made_again_each_turn, args, (1.0, None))[1] == pytest.approx(g)
    # (forward mode over the gradient code takes each value off the loop's tape, which
    # holds lists and counts together, with the kind it had when it was pushed)
    eps = 1e-5
    up = s2sad.grad(made_again_each_turn)(args[0] + eps, args[1])
    down = s2sad.grad(made_again_each_turn)(args[0] - eps, args[1])
    assert s2sad.hessian(made_again_each_turn)(*args) == pytest.approx(
        (up - down) / (2 * eps), rel=1e-4)


def test_the_gradient_reads_like_one_list_per_position():
    text = s2sad.source(made_by_comprehension, example=(0.7,))
    assert "pts_0.append(" in text and "pts_1.append(" in text
    assert "a = pts_0[" in text and "b_1 = pts_1.pop()" in text


def read_otherwise(x):
    pts = []
    for i in range(3):
        pts.append((x * i, x + i))
    q = pts[1]  # (an element kept as a tuple: not one list per position)
    return q[0] * q[1]


def test_a_list_of_tuples_read_otherwise_is_refused_at_its_line():
    assert s2sad.jvp(read_otherwise, (1.5,), (1.0,)) == pytest.approx((1.5 * 2.5, 4.0))
    with pytest.raises(s2sad.S2SADError, match="list of tuples") as e:
        s2sad.grad(read_otherwise)(1.5)
    assert "q = pts[1]" in str(e.value) or "return q[0] * q[1]" in str(e.value)
