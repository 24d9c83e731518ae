"""Comprehensions, generator expressions and list operations as users write them.
Each entry of ZOO is (function, arguments, wrt); `tests/test_comprehensions.py`
checks gradients, forward mode and (for SECOND) Hessians against central
differences."""

import math

import numpy as np


def sum_of_squares(xs):
    return sum(x * x for x in xs)


def sum_of_list_comp(xs):
    return sum([math.sin(x) for x in xs])


def filtered(xs, c):
    return sum(c * x * x for x in xs if x > 0.0)


def nested_fors(xs, ys):
    return sum(x * y for x in xs for y in ys if x < y)


def nested_comprehensions(xs):
    return sum(sum(x * y for y in xs) * x for x in xs)


def named_list(xs, w):
    ys = [w * x for x in xs]
    return ys[0] * ys[-1] + ys[1]


def to_array(xs):
    return np.sum(np.array([x ** 2 for x in xs]) * np.arange(len(xs)))


def stacked_rows(w):
    rows = [w * i + 1.0 for i in range(3)]
    return np.sum(np.stack(rows) ** 2)


def loop_variable_does_not_leak(xs, x):
    s = sum(x * v for v in xs)
    t = [x * 2.0 for x in xs]
    return s * x + t[0]


def over_enumerate_and_zip(xs, ys):
    a = sum(i * x for i, x in enumerate(xs))
    b = sum(x * y for x, y in zip(xs, ys))
    return a * b


def smallest_and_largest(xs):
    return min(x * x for x in xs) + 2.0 * max(math.sin(x) for x in xs)


def exact_sum(xs):
    return math.fsum(x * x for x in xs)


def as_list_and_indexed(xs):
    ys = list(x + 1.0 for x in xs)
    return ys[1] * ys[2]


def comprehension_in_a_loop(xs, n):
    acc = 0.0
    for k in range(n):
        acc = acc + sum(x ** (k + 1) for x in xs)
    return acc


def conditional_comprehension(xs, c):
    return sum(x for x in xs) if c > 0 else max(x * c for x in xs)


def over_arrays(ws):
    return sum(np.sum(w * w) for w in ws)


def with_defaults(xs):
    big = max(xs, default=0.5)
    small = min((x * x for x in xs if x > 5.0), default=xs[0] * 2.0)
    return big + small + math.prod((x for x in xs), start=0.5)


def min_max_of_list(xs):
    return min(xs) * max(xs)


def nary_min_max(a, b, c):
    return min(a, b * 2.0, c) + max(a, b, c * c)


def sum_with_start(xs, v):
    return sum(xs, v * v)


def product(xs):
    return math.prod(xs) + math.prod(x + 1.0 for x in xs)


def fsum_of_list(xs):
    return math.fsum(xs) * xs[0]


def reversed_loop(xs):
    t = 0.0
    for x in reversed(xs):
        t = t * 0.5 + x
    return t


def reversed_list(xs):
    ys = list(reversed(xs))
    return ys[0] * 3.0 + ys[-1]


def for_else(xs, limit):
    t = 0.0
    for x in xs:
        if x > limit:
            break
        t = t + x * x
    else:
        t = t * 2.0
    return t


def while_else(x, n):
    k = 0
    while k < n:
        x = x * 1.5 + 0.1
        k += 1
    else:
        x = x * x
    return x


def star_unpacking(xs):
    first, *rest = xs
    a, *middle, b = xs
    return first * sum(rest) + a * b + sum(middle)


def nested_and_chained_stars(xs):
    (a, *b), c = xs[:3], xs[3]
    d, *e = f, *g = xs
    h, (i, *j) = xs[0], xs[1:]
    return a * c + sum(b) + d * f + sum(e) * sum(g) + h * i + sum(j)


def inside_errstate(xs):
    with np.errstate(divide="ignore"):
        t = sum(x * x for x in xs)
    return t


def _scaled(a, b, c):
    return a * b + c


def star_call(xs, s):
    args = (xs[0], s * xs[1])
    return _scaled(*args, 1.0) + _scaled(*[s, s, s])


def extend_list(xs, v):
    ys = [v]
    ys.extend(xs)
    ys.extend(x * v for x in xs)
    return sum(ys) * v


def repeated_list(x, n):
    ys = [0.0] * n
    ys[1] = x
    zs = [x, 2.0 * x] * 2
    return sum(ys) * x + zs[3] * zs[0]


def concatenated(xs, v):
    ys = xs + [v * v]
    zs = [v] + ys
    return zs[0] * zs[-1] + sum(ys) * ys[1]


def popped_stack(xs):
    stack = [x * x for x in xs]
    total = 0.0
    while len(stack) > 1:
        a = stack.pop()
        b = stack.pop()
        stack.append(a * b + 0.5 * a)
        total = total + a
    return total + stack[0]


def sorted_values(xs):
    ys = sorted(xs)
    top = sorted((x * x for x in xs), reverse=True)
    return ys[len(ys) // 2] * 2.0 + ys[0] * ys[-1] + sum(top[1:-1])


def in_a_while_test(x):
    n = 0
    while sum(x * k for k in range(n + 1)) < 5.0 and n < 10:
        n += 1
        x = x * 1.1
    return x * n


def in_an_elif_and_lazy_parts(xs, c):
    if c > 1.0:
        r = c
    elif max(x * c for x in xs) > 0.5:
        r = sum(xs) * c
    else:
        r = -c
    v = (c > 0 and sum(x * c for x in xs)) or 0.5 * c
    w = c if 0.0 < sum(x * c for x in xs) < 10.0 else -c
    return r + v * c + w


def _scaled_list(xs, s):
    return [s * x for x in xs]


def from_a_callee(xs, s):
    ys = _scaled_list(xs, s)
    return sum(ys) * ys[0]


def starred_display(xs, v):
    ys = [*xs, v * v, *xs[:1]]
    return ys[-1] * ys[-2] + sum(ys)


def slices(xs):
    head = xs[:2]
    back = xs[::-1]
    return head[0] * back[0] + sum(xs[1:])


def settings_by_comprehension(x, n):
    scale = {k: 0.5 * k for k in range(n)}
    parity = {k % 2 for k in range(n)}
    return x * x * scale[n - 1] + x * len(parity)


def divmod_of_ints(x, n):
    q, r = divmod(n, 3)
    return x * q + r


def hypot_of_two(a, b):
    return math.hypot(a, b * 2.0) + math.hypot(a, b, a * b)


def _square(v):
    return v * v


def mapped(xs, w):
    a = sum(map(math.sin, xs))
    b = sum(map(lambda v: w * v * v, xs))
    c = list(map(_square, xs))
    d = max(map(np.tanh, xs))
    return a + b * c[1] + d


def mapped_pairs(xs, ys):
    return sum(map(lambda a, b: a * b, xs, ys)) + sum(map(math.atan2, xs, ys))


def mapped_local(xs, w):
    def scale(v):
        return w * math.exp(v)

    sq = lambda v: v * v  # noqa: E731
    return sum(map(scale, xs)) + math.fsum(map(sq, xs)) * w


def keyed_extremes(xs, c):
    nearest = min(xs, key=lambda t: (t - c) ** 2)
    widest = max(xs, key=abs)
    first = min(xs[0], xs[1] * c, key=abs)
    return nearest * c + widest * widest + max(xs, key=_square, default=c) + first


def keyed_sorted(xs, w):
    ys = sorted(xs, key=lambda t: -t * w)
    zs = sorted((x * w for x in xs), key=abs, reverse=True)
    return ys[0] * 1.0 + ys[1] * 2.0 + ys[-1] * ys[2] + zs[0] * zs[-1]


def tuple_of_generator(xs):
    t = tuple(x * x for x in xs)
    return t[0] * t[-1] + sum(t[1:])


def _sum_of_squares(*vals):
    total = 0.0
    for v in vals:
        total = total + v * v
    return total * len(vals) + vals[0]


def _weighted(x, *rest, scale=1.0, **opts):
    shift = opts["shift"] if "shift" in opts else 0.0
    return x * scale * opts["gain"] + sum(rest) + shift


def _forwarding(*args, **kwargs):
    return _weighted(*args, **kwargs)


def star_args_and_kwargs(x, y):
    a = _sum_of_squares(x, y, x * y)
    b = _weighted(x, y, 2.0, gain=y)
    c = _forwarding(x, scale=0.5, gain=x, shift=y)
    return a + b * c


def inserted_and_popped(xs, c):
    ys = [x * c for x in xs]
    ys.insert(1, xs[0] * xs[-1])
    ys.insert(-1, c * c)
    ys.insert(len(ys) + 3, math.sin(c))
    a = ys.pop(2)
    b = ys.pop(-2)
    queue = []
    for y in ys:
        queue.insert(0, y * a)
    first = queue.pop(0)
    return a * b + first * queue[-1] + sum(ys) * ys[1]


XS = [0.5, -1.25, 2.0, 1.5]

ZOO = [
    (sum_of_squares, (XS,), 0),
    (sum_of_list_comp, (XS,), 0),
    (filtered, (XS, 1.5), (0, 1)),
    (nested_fors, (XS, [1.0, 0.25]), (0, 1)),
    (nested_comprehensions, (XS,), 0),
    (named_list, (XS, 0.7), (0, 1)),
    (to_array, (XS,), 0),
    (stacked_rows, (np.array([0.5, -1.0]),), 0),
    (loop_variable_does_not_leak, (XS, 1.3), (0, 1)),
    (over_enumerate_and_zip, (XS, [1.0, 2.0, 3.0]), (0, 1)),
    (smallest_and_largest, (XS,), 0),
    (exact_sum, (XS,), 0),
    (as_list_and_indexed, (XS,), 0),
    (comprehension_in_a_loop, (XS, 3), 0),
    (conditional_comprehension, (XS, 1.0), (0, 1)),
    (conditional_comprehension, (XS, -1.0), (0, 1)),
    (over_arrays, ([np.array([1.0, 2.0]), np.array([[0.5, -1.0]])],), 0),
    (min_max_of_list, (XS,), 0),
    (with_defaults, (XS,), 0),
    (with_defaults, ([0.5, 6.0, 2.0, 7.5],), 0),  # (items over 5: the default unused)
    (nary_min_max, (0.5, 0.1, -0.7), (0, 1, 2)),
    (sum_with_start, (XS, 0.3), (0, 1)),
    (product, (XS,), 0),
    (fsum_of_list, (XS,), 0),
    (reversed_loop, (XS,), 0),
    (reversed_list, (XS,), 0),
    (for_else, (XS, 1.8), (0, 1)),
    (for_else, (XS, 5.0), (0, 1)),
    (while_else, (0.7, 3), 0),
    (star_unpacking, (XS,), 0),
    (inside_errstate, (XS,), 0),
    (nested_and_chained_stars, (XS,), 0),
    (star_call, (XS, 0.6), (0, 1)),
    (extend_list, (XS, 0.9), (0, 1)),
    (repeated_list, (1.3, 3), 0),
    (slices, (XS,), 0),
    (starred_display, (XS, 1.5), (0, 1)),
    (in_a_while_test, (0.7,), 0),
    (in_an_elif_and_lazy_parts, (XS, 0.5), (0, 1)),
    (in_an_elif_and_lazy_parts, (XS, -0.5), (0, 1)),
    (from_a_callee, (XS, 1.5), (0, 1)),
    (sorted_values, (XS,), 0),
    (popped_stack, (XS,), 0),
    (concatenated, (XS, 0.8), (0, 1)),
    (divmod_of_ints, (1.5, 7), 0),
    (settings_by_comprehension, (1.5, 4), 0),
    (hypot_of_two, (0.3, 0.4), (0, 1)),
    (mapped, (XS, 0.7), (0, 1)),
    (mapped_pairs, (XS, [1.0, 2.0, -0.5]), (0, 1)),
    (mapped_local, (XS, 0.7), (0, 1)),
    (keyed_extremes, (XS, 0.8), (0, 1)),
    (keyed_sorted, (XS, 0.6), (0, 1)),
    (keyed_sorted, (XS, -0.6), (0, 1)),
    (tuple_of_generator, (XS,), 0),
    (star_args_and_kwargs, (1.5, 0.7), (0, 1)),
    (inserted_and_popped, (XS, 0.8), (0, 1)),
]

# (function, arguments) whose Hessians are checked
SECOND = [
    (sum_of_squares, (XS,)),
    (nested_fors, (XS, [1.0, 0.25])),
    (named_list, (XS, 0.7)),
    (smallest_and_largest, (XS,)),
    (product, (XS,)),
    (star_unpacking, (XS,)),
    (sum_with_start, (XS, 0.3)),
    (repeated_list, (1.3, 3)),
    (for_else, (XS, 1.8)),
    (concatenated, (XS, 0.8)),
    (settings_by_comprehension, (1.5, 4)),
    (popped_stack, (XS,)),
    (sorted_values, (XS,)),
    (mapped, (XS, 0.7)),
    (mapped_pairs, (XS, [1.0, 2.0, -0.5])),
    (mapped_local, (XS, 0.7)),
    (keyed_extremes, (XS, 0.8)),
    (keyed_sorted, (XS, 0.6)),
    (tuple_of_generator, (XS,)),
    (star_args_and_kwargs, (1.5, 0.7)),
    (inserted_and_popped, (XS, 0.8)),
]
