"""Programs written the way users write them that s2sad once refused or got wrong, for
`test_user_forms.py`: a dict or list of constants added into in a loop, a tuple grown
by `+=`, lambdas with default arguments (the closure-capture idiom included), and
`first, *rest = ...` handed on. Each takes the float `x` (and data after it)."""

import enum
import functools
import math
import operator
from functools import reduce

import numpy as np

# ------------------------------------------------------------ entries added into


def dict_in_loop(x):
    d = {"a": 0.0, "b": 1.0}
    for i in range(3):
        d["a"] += x * i
        d["b"] *= x
    return d["a"] + d["b"]


def dict_in_data_loop(x, data):
    d = {"s": 0.0, "p": 1.0}
    for v in data:
        d["s"] += np.sin(x * v)
        d["p"] *= 1.0 + x * v
    return d["s"] * d["p"]


def dict_rebuilt_sum(x, n):
    d = {"a": 0.0}
    for i in range(n):
        d["a"] = d["a"] + x ** i
    return d["a"]


def empty_dict_filled(x):
    d = {}
    d["s"] = x
    for i in range(2):
        for j in range(3):
            d["s"] += x * i * j
    return d["s"] * x


def dict_filled_over_a_display(x):
    # (the display's values computed before the loop: `y` rebound in it is not read)
    out = {}
    y = x * 0.5
    for name, v in (("a", x), ("b", y), ("c", x * y)):
        out[name] = v ** 2
        y = y * 3.0
    for i, w in enumerate([x, 2.0]):
        out[i] = w * out["a"]
    total = 0.0
    for k in ("a", "b", "c", 0, 1):
        total += out[k] * x
    return total + y


def list_in_loop(x):
    acc = [0.0, 1.0]
    for i in range(3):
        acc[0] += x * i
        acc[1] *= x
    return acc[0] + acc[1]


def _add_into(d, v):
    d["a"] += v


def _add_into_list(acc, v):
    acc[0] += v


def dict_written_by_a_helper(x):
    d = {"a": 0.0}
    for i in range(3):
        _add_into(d, x * i)
    return d["a"] * x


def list_written_by_a_helper(x):
    acc = [0.0, 1.0]
    for i in range(3):
        _add_into_list(acc, x * i)
    return acc[0] * x + acc[1]


def _accumulated(x):
    d = {"a": 1.0}
    for i in range(2):
        d["a"] *= x
    return d["a"]


def dict_in_a_called_function(x):
    return _accumulated(x) + _accumulated(2.0 * x)


def copied_params(x, params):
    p = dict(params)
    for i in range(3):
        p["w"] += x * i
    return p["w"] * x


def copy_written_original_read(x, params):
    q = dict(params)
    q["w"] = 2.0 * x
    return params["w"] * x + q["w"]


def params_written(x, params):
    for i in range(3):
        params["w"] += x * i
    return params["w"] * x


# ------------------------------------------------------------ tuples grown


def tuple_grown(x):
    out = ()
    for v in [1.0, 2.0, 3.0]:
        out += (v * x,)
    return sum(out)


def tuple_grown_over_data(x, data):
    out = ()
    for v in data:
        out = out + (np.sin(v * x),)
    return sum(out) * out[0] + len(out)


def tuple_grown_by_pairs(x):
    out = ()
    for i in range(3):
        out += (x * i, x ** 2)
    return out[0] * out[-1] + sum(out)


def tuple_grown_in_front(x):
    t = ()
    for i in range(3):
        t = (x * i + 1.0,) + t
    return t[0] * 2.0 + t[-1]


def tuple_grown_in_nested_loops(x):
    t = (x,)
    for i in range(2):
        for j in range(2):
            t += (t[-1] * x,)
    s = 0.0
    for v in t:
        s += v
    return s


def tuple_grown_straight(x):
    out = ()
    out += (x,)
    out += (x * x,)
    return sum(out)


def _ends(t):
    return t[0] * t[-1]


def tuple_grown_handed_on(x):
    rows = ()
    for i in range(3):
        rows = rows + (np.ones(2) * x * (i + 1),)
    kept = rows
    rows += (np.zeros(2),)
    return np.sum(np.stack(rows) ** 2) + _ends(kept)[0] + len(kept)


def tuple_joined(x, t):
    u = t + (x,)
    return u[0] * u[-1]


# ------------------------------------------------------------ lambdas


def lambda_with_default(x):
    f = lambda y, k=2.0: k * y ** 2  # noqa: E731
    return f(x) + f(x, 3.0)


def lambda_default_in_loop(x):
    tot = 0.0
    for j in range(3):
        f = lambda y, k=2.0: k * y ** 2 + j  # noqa: E731
        tot += f(x) + f(x, 3.0)
    return tot


def lambdas_by_comprehension(x):
    fs = [lambda y, i=i: y ** i for i in range(3)]
    return sum(g(x) for g in fs)


def lambdas_by_comprehension_looped(x):
    fs = [lambda y, i=i, c=2.0: c * np.sin(y * i) for i in range(1, 4)]
    t = 0.0
    for g in fs:
        t += g(x)
    return t


def lambdas_late_binding(x):
    fs = [lambda y: y * i for i in range(3)]  # (each reads the last `i`, 2)
    return sum(g(x) for g in fs)


def lambdas_in_tuple(x):
    fs = (lambda y: y, lambda y: y * y, lambda y: np.sin(y))
    return sum(g(x) for g in fs)


# ------------------------------------------------------------ starred targets


def starred_tuple_display(x):
    *init, last = (x, x * x, 3.0 * x)
    return last * sum(init)


def starred_list_display(x):
    a, b, c = x, x * 2, x * 3
    first, *rest = [a, b, c]
    return first * sum(rest)


def starred_middle(x):
    xs = [x, 2.0 * x, x * x, 3.0]
    first, *mid, last = xs
    return first * last + sum(mid)


def _prod(v):
    out = 1.0
    for e in v:
        out = out * e
    return out


def starred_handed_on(x):
    xs = [x, 2.0 * x, x * x]
    first, *rest = xs
    return first + _prod(rest) + rest[0] * len(rest)


def starred_stacked(x):
    vs = [np.ones(3) * x, np.arange(3.0) * x, np.ones(3) * x * x]
    head, *tail = vs
    return np.sum(head * np.stack(tail))


def starred_in_loop(x, n):
    s = 0.0
    for i in range(n):
        a, *b, c = [x * i, x, x * x, 2.0]
        s += a * c + sum(b)
    return s


def tuple_sliced(x):
    t = (x, x * x, np.sin(x), 2.0)
    a, b = t[1:3]
    head = t[:-1]
    back = t[::-1]
    return a * b + head[0] * back[1] + sum(t[-3:]) * t[0]


def tuple_sliced_in_loop(x, n):
    state = (x, 0.5 * x, 1.0)
    for i in range(n):
        rest = state[1:]
        state = (rest[0] * rest[1], np.cos(state[0]) + rest[1], state[0])
    return state[0] + 2.0 * state[2]


def tuple_argument_sliced(x, t):
    w, b = t[1:]
    return np.sum(np.tanh(w * x + b) * t[0])


def sorted_tuple_display(x):
    lo, mid, hi = sorted((x, 2.0 * x - 1.0, np.sin(x)))
    near = min((x - 2.0, 0.5 * x, -x), key=abs)
    return lo * mid + hi * near + max((x * x, 1.0), key=lambda v: -v)


def rows_unpacked_scaled(X):
    Y = X * 2
    a, b = Y
    return np.sum(a * b)


def rows_unpacked_twice(X):
    a, b = X
    c, d = X
    return np.sum(a * d) + np.sum(b * c * c)


def rows_unpacked_and_summed(X):
    Y = np.sin(X)
    a, b = Y
    return np.sum(a * b) + np.sum(Y * Y)


def rows_one_unused(X):
    Y = X / 2.0
    a, b = Y
    return np.sum(np.tanh(a) * a)


def items_of_a_vector(X):
    a, b = X[0] * 1.5, -X[1]
    p, q, r = a + b
    return p * q + r * r


def rows_of_unseen_kind(X):
    Y = X[0, 0] * SETTINGS["m"]
    Z = Y * 2
    a, b = Z
    return np.sum(a * b)


def _blend(a, b):
    return a * 0.5 + math.sin(b) * a


def reduced(x, n):
    xs = [x * k for k in range(1, n + 1)]
    product = functools.reduce(lambda a, b: a * b, xs, 1.0)
    horner = reduce(lambda acc, c: acc * x + c, [0.5, -1.0, 2.0, x])  # (no initial value)
    blended = functools.reduce(_blend, xs[::-1])
    added = reduce(operator.add, [np.sin(x), x * x], 0.0)
    return product + horner + blended + added


def starred_argument(xs):
    first, *rest = xs
    return first * sum(rest) + np.sum(np.stack(rest) ** 2)


def starred_argument_joined(xs):
    first, *rest = xs
    return first * sum(rest + [first])


def sum_of_an_array(xs):
    return sum(xs * xs) * xs[0]


def sum_of_rows(m):
    return np.sum(sum(m) ** 2)


# the built-in sum of values of several shapes: broadcasting makes each item's share of
# the total's adjoint larger than the item, so it is summed back to the item's shape
def sum_of_a_matrix_and_a_vector(W, b):
    return np.sum(np.sin(sum((W, b))))


def sum_of_a_number_and_arrays(a, W, c):
    return np.sum(sum([a, W, c]) ** 2)


def sum_of_a_grown_list(W, b):
    xs = [W]
    xs.append(b)
    xs.append(b * 2.0)
    return np.sum(sum(xs) ** 2)


def sum_of_a_tuple_indexed(W, b):
    return np.sum(sum((b, W))[1] * b)


def sum_in_a_loop(b, c):
    total = 0.0
    for k in range(3):
        total = total + np.sum(sum((b * k, c)) ** 2)
    return total


# the functions of `operator` that are operators, called and passed to `map`
def operator_calls(W, b):
    return np.sum(np.sin(operator.add(W, b)) * operator.mul(b, 2.0) - operator.neg(W))


def operator_scalars(x, y):
    z = operator.pow(x, 3) * operator.sub(y, x) + operator.truediv(y, x)
    return z if operator.lt(x, y) else -z


def operator_mapped(x, y):
    return sum(map(operator.mul, [x, y, x * y], [y, 2.0, x]))


# ``match`` on values: the ifs it stands for
class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


def matched_activation(x, kind, mode):
    match kind:
        case "relu":
            y = np.maximum(x, 0.0)
        case "tanh" | "th":
            y = np.tanh(x)
        case None:
            y = x
        case other if other.startswith("s"):
            y = np.sin(x) * len(other)
        case _:
            y = x ** 2
    match mode:
        case Mode.FAST:
            scale = 2.0
        case Mode.SLOW as m:
            scale = 0.5 * m.value
    return np.sum(y * scale)


def matched_returns(x, n):
    match n + 1:  # (an expression: evaluated once)
        case 1:
            return x
        case 2 | 3:
            return x ** n
    return np.sin(x)


def matched_sequence(x, t):
    match t:
        case (a, b):
            return x * a + b
    return x


def matched_alternative_binding(x, t):
    match t:
        case (1 as k) | (2 as k):
            return x * k
    return x


# the built-in sum of a list holding a value of a kind s2sad cannot see (an array
# read from a dict of settings): it may be an array, so a write into it is refused
SETTINGS = {"w": np.array([0.5, -1.0, 2.0]),
            "m": np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])}


def sum_of_a_setting_written_into(x, w):
    s2 = x[0] * np.sum(SETTINGS["w"] * 0.5)
    m4 = sum([x, w, s2]) * 1.0
    s5 = np.sum(m4 * np.sin(w))
    np.add.at(m4, np.array([0, 0]), np.sin(0.5))
    return s5


# ------------------------------------------------------------ sum(..., start=...)

def sum_start_keyword(x):
    xs = [x, x * x]
    return sum((v * i for i, v in enumerate(xs)), start=x * x) + sum(xs, start=math.sin(x)) \
        + sum([x, 2.0 * x], start=1.5)
