"""User-style functions the tests differentiate. Each entry of ZOO is
(function, arguments, wrt): the gradient is checked against central differences."""

import math
from math import exp, sin


def quadratic(x):
    return x * x + 3 * x + 2


def seed_z(x, y):
    z = x * y + math.sin(x)
    return z


def seed_program(x, y):
    p = 7 * x
    r = 1 / y
    q = p * x * 5
    v = 2 * p * q + 3 * r
    return v


def all_ops(x, y):
    a = x + y - x * y / (1.0 + y * y)
    b = -a + +x
    c = a ** 2 + x ** y + 2.0 ** x
    d = (x * 10.0) // 3.0 + (x * 7.0) % 2.0
    return a * b + c - d + abs(a) + min(x, y) + max(a, b)


def math_calls(x):
    a = math.sin(x) + math.cos(x) + math.tan(x)
    b = math.asin(x / 3) + math.acos(x / 3) + math.atan(x)
    c = math.sinh(x) + math.cosh(x) + math.tanh(x)
    d = math.exp(x) + math.expm1(x) + math.log(x) + math.log1p(x)
    e = math.log2(x) + math.log10(x) + math.sqrt(x) + math.pow(x, 1.5)
    f = math.hypot(x, 2.0) + math.erf(x) + math.erfc(x) + math.fabs(-x)
    g = math.atan2(x, 2.0) + math.log(x, 3.0) + math.degrees(x) + math.radians(x)
    return a + b + c + d + e + f + g


def imported_names(x):
    return sin(x) * exp(-x)


def constants(x):
    return math.pi * x + math.e * x * x - math.tau


def reassign(x, y):
    a = x
    a = a * y
    a = a + x
    x = x * 2.0
    a += x
    a *= y
    a -= 1.0
    a /= 3.0
    return a


def shadow(x):
    y = x
    x = y * y
    y = x * 3.0
    return x + y


def tuples(x, y):
    a, b = x, y
    a, b = b, a * b
    t = (a, b)
    c, d = t
    return c * d + t[0]


def conditional_expr(x):
    y = x * x if x > 0 else -x
    z = math.sqrt(x) if x > 0 else 0.0
    return y + z


def int_arg(x, n):
    return x ** n + n * x


def with_default(x, scale=2.0):
    return scale * x * x


def helper(u, v):
    return u * v + math.sin(u)


def helper_kw(u, scale=3.0, offset=1.0):
    return scale * u + offset * u * u


def helper_pair(u, v):
    return u + v, u * v


def calls(x, y):
    a = helper(x, y)
    b = helper(a, x)
    c = helper_kw(x, offset=y)
    d = helper_kw(b)
    s, p = helper_pair(x, c)
    return a + b + c + d + s * p


def nested_calls(x):
    return helper(helper(x, x), helper_kw(x, scale=x))


def branches(x, y):
    if x > y:
        z = x * y
    elif x > 0:
        z = x + y
    else:
        z = -x
    return z * z


def early_return(x):
    if x < 0:
        return -x
    y = x * x
    if y > 4:
        return y
    return y + x


def bool_ops(x, y):
    a = x > 0 and y > 0
    b = x if x > 1 or y > 1 else y
    c = 0 < x < 3
    return b * 2.0 + (1.0 if a else 0.0) + (2.0 if c else 0.0)


def unused_arg(x, y):
    return x * 2.0


def constant_output(x):
    return 3.0


def read_in_branch_and_after(x):
    # `a` is read in its branch and after the `if`: both reads' adjoints add up
    if x > 10.0:
        a = 1.0
        b = 0.0
    else:
        a = x * 2.0
        b = a * 3.0
    return a + b


def appended_in_branch_and_returned(x, y):
    acc = x
    ys = [y, x]
    if x > 10.0:
        acc = 0.5
    else:
        acc = acc + 0.5 * ys[-1]
        ys.append(acc)
    return acc + ys[0]


def handed_back_through_a_loop(x, y):
    acc = x
    ys = [y, x]
    if x > 10.0:
        acc = 0.5
    else:
        acc = acc + 0.5 * ys[-1]
        for i in range(2):
            acc = acc + 2.0 * y
        ys.append(acc)
    return acc * ys[0]


ZOO = [
    (handed_back_through_a_loop, (0.3, 0.7), (0, 1)),
    (read_in_branch_and_after, (1.0,), 0),
    (appended_in_branch_and_returned, (0.3, 0.7), (0, 1)),
    (quadratic, (5.0,), 0),
    (seed_z, (0.5, 4.2), (0, 1)),
    (seed_program, (1.5, 0.7), ("x", "y")),
    (all_ops, (1.3, 0.4), (0, 1)),
    (math_calls, (1.2,), 0),
    (imported_names, (0.7,), 0),
    (constants, (0.7,), 0),
    (reassign, (1.1, 0.9), (0, 1)),
    (shadow, (1.7,), 0),
    (tuples, (1.1, 2.3), (0, 1)),
    (conditional_expr, (1.3,), 0),
    (conditional_expr, (-1.3,), 0),
    (int_arg, (1.3, 3), 0),
    (with_default, (1.5,), 0),
    (calls, (0.8, 1.4), (0, 1)),
    (nested_calls, (0.6,), 0),
    (branches, (2.0, 1.0), (0, 1)),
    (branches, (0.5, 1.0), (0, 1)),
    (branches, (-0.5, 1.0), (0, 1)),
    (early_return, (-2.0,), 0),
    (early_return, (1.5,), 0),
    (early_return, (2.5,), 0),
    (bool_ops, (1.5, 0.5), (0, 1)),
    (bool_ops, (0.5, 2.0), (0, 1)),
    (unused_arg, (1.0, 2.0), (0, 1)),
    (constant_output, (1.0,), 0),
]


def kwonly(x, *, scale=2.0):
    return scale * x * x


def make_scaled(a):
    def scaled(x):
        return a * x

    return scaled


def sigmoid(t):
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def logistic_loss(w, b, x, y):
    p = sigmoid(w * x + b)
    return (p - y) ** 2


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def uses_power(x):
    return power(x, 3) + power(math.sin(x), 2)


ZOO += [
    (logistic_loss, (0.3, -0.1, 2.0, 1.0), (0, 1)),
    (logistic_loss, (-0.9, -0.1, 2.0, 1.0), (0, 1, 2)),
    (power, (1.3, 4), 0),
    (uses_power, (0.7,), 0),
]


# --------------------------------- a tuple split by place, given a second version


def _heads_tails(vals, w):
    heads, tails = [], []
    for v in vals:
        heads.append(v * w)
        tails.append(math.sin(v + w))
    return heads, tails


def _squares(a, n):
    if n <= 0:
        return [a]
    return [a * a] + _squares(0.5 * a, n - 1)


def tuple_places_and_versions(x, y):
    # (the tuple `q` is split into one name per place, `q%0` and `q%1`; the loop's
    # two paths gave `q` a second version, which was named `q%1` too: one name for
    # two values, whose kind was then unknown and `acc += x` refused)
    acc = x
    ys = [y, x]
    for i0 in range(3):
        for i1 in range(1, 4, 2):
            if acc > 0.5:
                if acc > 0.6:
                    continue
            heads, tails = _heads_tails(ys, 0.25 * i0 - 2.0)
            q = (heads, _squares(0.5 / (1.0 + 0.25 * i1 * 0.25 * i1), 2))
            acc = acc + 0.5 * tails[0] * q[1][1] + q[0][1]
        acc += x
    return acc
