"""Functions s2sad must refuse, each with a clear error at the right line."""

import math

import numpy as np


def uses_yield(x):
    for i in range(3):
        x = x * 2.0
        yield x


def uses_try(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def uses_lambda(x):
    fs = [lambda t: t * t, lambda t: -t]  # (functions held in a list)
    return fs[0](x)


def uses_exec(x):
    exec("y = 2")
    return x


def uses_global(x):
    global COUNTER
    COUNTER = 1
    return x


def uses_with(x):
    with open("f") as fh:
        return x * float(fh.read())


def uses_star_args(*xs):
    return xs[0]


def uses_class(x):
    class A:
        pass

    return x


def uses_nested_def(x):
    def inner(t):
        return t

    table = [inner]
    return table[0](x)


def no_rule(x):
    return np.i0(x)


def no_rule_ok_when_inactive(x, n):
    return x * np.i0(n)


def returns_tuple(x):
    return x, x * 2.0


def unknown_name(x):
    return x * NOT_DEFINED  # noqa: F821


def read_before_assign(x):
    if x > 0:
        y = x
    return y


def uses_set(x):
    return max({x, 2.0 * x})


def returns_list(x):
    return [x, x * 2.0]


class Scaler:
    def scale(self, x):
        return 3.0 * x


def calls_a_method(x):
    s = Scaler()
    return s.scale(x) * x


def calls_a_method_inactive(x):
    s = Scaler()
    return s.scale(2.0) * x


class Position:
    """An index Python takes through `__index__`, which s2sad does not compare with 0."""

    def __index__(self):
        return 1


def pops_at_an_object(x, i):
    xs = [x, 2.0 * x]
    return xs.pop(i) * x


def inserts_at_an_object(x, i):
    xs = [x, 2.0 * x]
    xs.insert(i, x * x)
    return xs[1] * x


def writes_at_an_object(x, i):
    xs = [x, 2.0 * x]
    xs[i] = x * x
    return xs[1] * x


def extends_by_a_tuple(x):
    xs = [x]
    xs += (2.0 * x, x)
    return xs[0] * xs[1]


def list_of_a_tuple(x):
    t = (x, 2.0 * x)
    xs = list(t)
    return xs[0] * xs[1]


def list_of_an_array(x):
    a = np.array([x, 2.0 * x])
    xs = list(a)
    return xs[0] * xs[1]


class Scaled:
    """An object with its own `*`: s2sad does not see into it (here it is linear, but
    another `__mul__` need not be)."""

    def __init__(self, v):
        self.v = v

    def __mul__(self, x):
        return self.v * x

    __rmul__ = __mul__


def times_an_object(x, o):
    return np.sum(o * x)


def times_an_object_array(x, o):
    return np.sum(o * x)


class Offset(float):
    """A float whose `+` is its own."""

    def __radd__(self, other):
        return 10.0 * other + float(self)

    __add__ = __radd__


def plus_an_offset(x, c):
    return x * x + c


MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])


def times_a_matrix(x):
    return np.sum(MATRIX * x)


def multiplies_a_matrix(x):
    return np.sum(np.multiply(MATRIX, x))


MISSING = np.ma.masked_invalid(np.array([1.0, np.nan, 3.0]))


def fits_masked_data(w):
    return np.sum((w * np.arange(3.0) - MISSING) ** 2)


BUFFER = np.array([1.0, 2.0])


def fills_a_global_after_use(x):
    s = np.sum(BUFFER * x * x)
    BUFFER.fill(5.0)
    return s


def mixed_list(x, y):
    t = [x, (y, 2.0)]
    b, c = t[1]
    return t[0] * b * c


def mixed_list_unpacked(x):
    a, (b, c) = [x, [x, 2.0]]
    return a * b * c
