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
