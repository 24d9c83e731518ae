"""Lists: built with append, read by index, summed, iterated, as arguments."""

import math


def rosenbrock(xs):
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
    return total


def build_and_sum(x, n):
    ys = []
    for i in range(n):
        ys.append(math.sin(x * i) + x)
    return sum(ys) + ys[0] * ys[-1]


def weighted(xs, ws):
    total = 0.0
    for k, (x, w) in enumerate(zip(xs, ws)):
        total += w * x * x / (k + 1)
    return total


def step(s, x):
    if s > 0.5:
        return s * x - math.cos(s)
    return s + x * x


def calls_in_loop(x, n):
    s = x
    for i in range(n):
        s = step(s, x)
    return s


def spring_path(x, n):
    path = []
    p, v = x, 0.0
    for _ in range(n):
        v = v - 0.1 * math.sin(p)
        p = p + 0.1 * v
        path.append((p, v))
    energy = sum(q * q + w * w for q, w in path)
    return energy + path[-1][0] * len(path)


def pairs_by_comprehension(x, n):
    pts = [(x * i, math.cos(x * i)) for i in range(n) if i != 1]
    total = 0.0
    for i, (a, b) in enumerate(pts):
        total += i * a * b
    return total


def trajectories(x, n):
    xs, vs = [], []
    p, v = x, 0.0
    for _ in range(n):
        v = v - 0.1 * p
        p = p + 0.1 * v
        xs.append(p)
        vs.append(v)
    return xs, vs


def tuple_of_lists(x, n):
    xs, vs = trajectories(x, n)
    return sum(xs) + vs[-1] * vs[-1]


def halving(x, n):
    if n == 0:
        return [x]
    return [x * x] + halving(x * 0.5, n - 1)


def recursive_list(x, n):
    ys = halving(x, n)
    return ys[0] + ys[-1] * 2.0


CASES = [
    ("rosenbrock", ([0.5, 1.2, -0.3, 0.8],), "xs"),
    ("build_and_sum", (0.7, 6), "x"),
    ("calls_in_loop", (0.7, 6), "x"),
    ("spring_path", (0.7, 5), "x"),
    ("pairs_by_comprehension", (0.7, 5), "x"),
    ("tuple_of_lists", (0.7, 5), "x"),
    ("recursive_list", (1.3, 3), "x"),
]
