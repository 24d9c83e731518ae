"""Loops, lists and control flow as users write them. Each entry of ZOO is
(function, arguments, wrt); gradients are checked against central differences."""

import math


def loop_sum(x, y, n):
    acc = 0.0
    for i in range(n):
        acc += math.sin(x * i) * y
    return acc


def ranges(x, a, b):
    s = 0.0
    for i in range(a, b):
        s = s + x * i
    for i in range(b, a, -2):
        s = s * 0.9 + x / (1 + i)
    for i in range(a + b):
        s += math.cos(s) * 0.1
    return s


def overwrite_in_body(x, n):
    v = x
    for i in range(n):
        w = v * v
        w = w * 0.5 + math.sin(v)
        w = w - 0.1 * v
        v = w
    return v


def several_carried(x, y, n):
    a = x
    b = y
    k = 0
    pair = (x, y)
    for i in range(n):
        a, b = b, a * 0.5 + b * 0.3
        k = k + 2
        pair = (pair[1], pair[0] + a)
    return a * b + k * pair[0] + pair[1]


def over_tuple(x):
    total = 0.0
    for w in (0.5, 1.0, 2.0):
        total = total + w * x ** w
    return total


def over_list(xs, w):
    total = 0.0
    for v in xs:
        total = total + w * v * v
    return total


def with_enumerate(xs, w):
    total = 0.0
    for k, v in enumerate(xs, 1):
        total += w * v * k
    return total


def with_zip(xs, ys):
    total = 0.0
    for a, b in zip(xs, ys):
        total += a * b + math.sin(a - b)
    return total


def nested(x, n):
    s = x
    for i in range(n):
        for j in range(i):
            s = s * 0.9 + x * j
    return s


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def projectile(v0, angle):
    g = 9.81
    dt = 0.01
    x = 0.0
    y = 0.0
    vx = v0 * math.cos(angle)
    vy = v0 * math.sin(angle)
    while y >= 0.0:
        x = x + vx * dt
        y = y + vy * dt
        vy = vy - g * dt
        vx = vx * 0.999
    return x


def with_break(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
        if s > 10.0:
            break
        s = s * 1.1
    return s


def with_continue(x, n):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        s = s + math.sin(x * i)
        if i % 2 == 0:
            s = s * x
            continue
        s = s - x
    return s


def returns_in_loop(x):
    for i in range(20):
        x = x * 1.5
        if x > 5.0:
            return x * 2.0
        if x < -5.0:
            return -x
    return x


def while_in_for_with_break(x, n):
    total = 0.0
    for i in range(n):
        y = x + i
        while y > 1.0:
            y = y * 0.5
            if y < 1.3:
                break
        total += y * x
    return total


def alternating(x, n):
    """A branch inside a loop that switches every iteration: a wrong tape order shows."""
    s = x
    for i in range(n):
        if i % 2 == 0:
            t = s * s
            s = t * 0.5
        else:
            s = math.sin(s) + x
    return s


def data_dependent_branch(x, n):
    s = x
    for i in range(n):
        if s > 1.0:
            s = s * 0.7 + math.log(s)
        else:
            s = s * 1.6 + 0.1
    return s


def step(s, x):
    if s > 0.5:
        return s * x - math.cos(s)
    return s + x * x


def calls_in_loop(x, n):
    s = x
    for i in range(n):
        s = step(s, x)
    return s


def series(x, n):
    """Recursion with a loop inside."""
    if n == 0:
        return 1.0
    term = 1.0
    for k in range(n):
        term = term * x / (k + 1)
    return term + series(x, n - 1)


def build_and_sum(x, n):
    ys = []
    for i in range(n):
        ys.append(math.sin(x * i) + x)
    return sum(ys) + ys[0] * ys[-1] + len(ys)


def list_of_products(xs):
    out = []
    for i in range(len(xs) - 1):
        out.append(xs[i] * xs[i + 1])
    total = 0.0
    for v in out:
        total = total + v * v
    return total


def rosenbrock(xs):
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
    return total


def euler(k, c):
    """A damped oscillator, explicit Euler."""
    x = 1.0
    v = 0.0
    dt = 0.01
    for i in range(200):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v * v


def zero_trip(x, n):
    s = x * 2.0
    for i in range(n):
        s = s * x
    return s


def target_read_after(x, n):
    # the loop variable keeps its earlier value when the loop runs no iteration
    j = 0.5
    s = x
    for i in range(n):
        for j in range(i):
            s = s * 0.9 + x * j
    return s * j


def element_read_after(xs, y):
    s = 0.0
    v = y
    for v in xs:
        s = s + v * v
        if s > 10.0:
            break
    return s * v + v


def loop_name_reused(x, n):
    s = x
    for i in range(n):
        for j in range(i):
            s = s * 0.9 + x * j
    for j in range(n):
        s = s + x * j
    return s


def powers_list(x, n):
    out = []
    p = x
    for i in range(n):
        out.append(p)
        p = p * x
    return out


def calls_a_list_maker(x):
    ys = powers_list(x, 4)
    return ys[0] + 3.0 * ys[1] - ys[3] * ys[2]


def loop_name_reused_in_a_branch(x, n):
    # `j` is never read after the `if`: the join must not copy it out of a loop
    # that may have run no iteration
    for j in range(n):
        x = x * 1.1
    if n > 2:
        for j in range(n):
            x = x * 0.9
    return x


def continue_in_a_nested_else(x, y):
    # the join copy of the outer `if` and the end of the iteration must not run on
    # the `continue` path (it would push the loop's tape twice)
    acc = x
    for i in range(4):
        if acc > 0.5:
            acc = acc + y * y
        else:
            if x > 0.7:
                return math.log(1.0 + acc * acc)
            if acc / (1.0 + x * x) > 0.3:
                continue
    return acc * y


def continue_keeps_a_split_value(x):
    # `acc` is read twice before the paths part (so it is split there); the
    # `continue` path passes it on unchanged, and its adjoint must pass back too
    acc = x
    for i in range(3):
        if acc > 100.0:
            acc = acc + 1.0
        else:
            if i == 1:
                continue
            acc = acc * acc + acc
    return acc


def break_keeps_a_split_value(x, n):
    acc = x
    for i in range(n):
        if acc > 2.0:
            break
        acc = acc * acc + 0.5
    return acc * 3.0


def returns_from_two_loops(x, n):
    # the second loop carries `retval`, which only the first loop (in a branch that
    # may not run) assigns
    acc = x
    if x > 0.0:
        for i in range(n):
            if acc > 50.0:
                return acc * 2.0
    for i in range(n):
        acc = acc * 1.1
        if acc > 3.0:
            return acc - 1.0
    return acc


def while_count_in_a_for(x, n):
    # the inner loop's count starts at 0 in every outer iteration and is changed by
    # the inner loop: the reverse must save it, not recompute it as 0
    acc = x
    for i in range(n):
        k = 0
        while k < 2:
            k += 1
            acc = acc * 0.5 + 1.0
    return acc


ZOO = [
    (loop_sum, (0.7, 1.3, 20), (0, 1)),
    (ranges, (0.8, 2, 9), 0),
    (overwrite_in_body, (0.6, 5), 0),
    (several_carried, (0.7, 1.2, 6), (0, 1)),
    (over_tuple, (1.3,), 0),
    (over_list, ([0.5, 1.2, -0.3], 2.0), (0, 1)),
    (with_enumerate, ([0.5, 1.2, -0.3], 2.0), (0, 1)),
    (with_zip, ([0.5, 1.2, -0.3], [1.0, 2.0, 3.0, 4.0]), (0, 1)),
    (nested, (0.7, 5), 0),
    (newton_sqrt, (2.0,), 0),
    (newton_sqrt, (30.0,), 0),
    (projectile, (10.0, 0.7), (0, 1)),
    (with_break, (0.9, 10), 0),
    (with_break, (0.1, 10), 0),
    (with_continue, (0.7, 12), 0),
    (returns_in_loop, (0.4,), 0),
    (returns_in_loop, (-0.4,), 0),
    (returns_in_loop, (0.001,), 0),
    (while_in_for_with_break, (2.7, 4), 0),
    (alternating, (0.8, 7), 0),
    (data_dependent_branch, (0.9, 8), 0),
    (data_dependent_branch, (2.3, 8), 0),
    (calls_in_loop, (0.7, 6), 0),
    (series, (0.8, 5), 0),
    (build_and_sum, (0.7, 6), 0),
    (list_of_products, ([0.5, 1.2, -0.3, 0.8],), 0),
    (rosenbrock, ([0.5, 1.2, -0.3, 0.8],), 0),
    (euler, (2.0, 0.3), (0, 1)),
    (zero_trip, (0.7, 0), 0),
    (zero_trip, (0.7, 1), 0),
    (zero_trip, (0.7, 4), 0),
    (target_read_after, (0.7, 0), 0),
    (target_read_after, (0.7, 1), 0),
    (target_read_after, (0.7, 4), 0),
    (element_read_after, ([], 0.5), (0, 1)),
    (element_read_after, ([1.0], 0.5), (0, 1)),
    (element_read_after, ([1.0, 2.0, 3.0, 4.0], 0.5), (0, 1)),
    (loop_name_reused, (0.7, 4), 0),
    (calls_a_list_maker, (0.7,), 0),
    (loop_name_reused_in_a_branch, (0.7, 0), 0),
    (loop_name_reused_in_a_branch, (0.7, 4), 0),
    (continue_in_a_nested_else, (0.4, 0.9), (0, 1)),
    (continue_in_a_nested_else, (0.2, 0.8), (0, 1)),
    (continue_in_a_nested_else, (0.45, -0.3), (0, 1)),
    (continue_keeps_a_split_value, (0.3,), 0),
    (break_keeps_a_split_value, (0.9, 6), 0),
    (returns_from_two_loops, (0.7, 20), 0),
    (returns_from_two_loops, (0.7, 3), 0),
    (while_count_in_a_for, (0.7, 3), 0),
]


# ----------------------------------------------- `while True` left by a `break`
# (numba 0.68 compiled these into loops that never end: backend.native_text)


def halve_until_small(x):
    y = x
    while True:
        y = y * 0.5
        if not y > 0.05:
            break
    return y


def kepler(M, e):
    E = M
    it = 0
    while True:
        d = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E = E - d
        it += 1
        if abs(d) < 1e-13 or it > 100:
            break
    return E


def imports_a_module(x, y):
    import operator

    return operator.mul(x, y) + x


def formats_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s += x * i
        _ = f"{s:.3f}"
    return s


def comprehension_under_a_branch_of_a_while_loop(x, y):
    # (the gradient's tape holds the comprehension's list on one path and None on
    # the other; forward mode over the gradient took the popped value for either,
    # and refused the Hessian at its first read by index)
    acc = x
    ys = [y, x]
    n = 0
    while n < 2 and acc < 2.5:
        n += 1
        if y > 0.5:
            acc = acc + 0.5 * sum(a * w for a in ys[::-1] for w in ys[:2] if a < 0.9)
            ys.append(y * 0.5)
        acc = x * acc + y
    return acc * y + sum(ys)
