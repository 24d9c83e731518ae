"""Programs for tests/test_hessian.py, whose second derivatives are checked against
differences of their gradients; it holds no tests.

Functions linear in an argument (their Hessian blocks are zeros of the argument's
shape), elements read from an array a loop or a recursion carries, calls whose inputs
vary along one path only (helpers with loops, breaks, saved arrays and recursion), and
powers of a negative base."""

import math

import numpy as np


def rosenbrock(x, y):
    return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2


# ------------------------------------------------------- zero Hessian blocks
# Forward mode leaves the tangent of a gradient nothing varying reaches (a function
# linear in an argument) as the number 0.0: the Hessian block is zeros of its shape.


Y = np.arange(6.0).reshape(2, 3) / 5
A = np.linspace(-1.0, 1.0, 12).reshape(4, 3)


def summed_twice(x):
    return np.sum(x) * 2.0


def matrix_times(x):
    return np.sum(Y @ x)


def dot_times(x):
    return np.sum(np.dot(Y, x))


def summed_product(c):
    return np.sum(A @ c)


def linear_in_one(x, y):
    return np.sum(x * x) + np.sum(y) * 3.0


def bilinear(x, y):
    return np.sum(x * y)


def indexed_list(xs):
    return xs[0] * 2.0 + xs[1]


# ------------------------------------------ elements of a carried array


def carried_element(x0):
    x = x0
    for i in range(3):
        x = x * x[0]
    return np.sum(x)


def recursive_element(x, depth):
    if depth == 0:
        return np.sum(x * x)
    return recursive_element(x * 0.5, depth - 1) * x[0]


W = np.array([[1.2, 0.0, 1.2], [0.0, 0.3, -1.0], [0.4, 0.0, -0.5]])


def slice_skipped_by_continue(x):
    # (the gradient's tape holds None for the arrays an iteration left by `continue`
    # did not compute; the array sliced is popped from it)
    v = x + x
    for i in range(2):
        if np.sum(x) > 5.0:
            continue
        v = np.concatenate([W @ x, x[1:2]])[1:]
    return np.sum(v * v)


# ---------------------------------- calls whose inputs vary on one path only


def _halving_with_break(a, b):
    s = a
    for k in range(3):
        s = 0.5 * s + math.sin(b * k)
        if s > 1.0:
            break
    return s * b


def branch_call_without_varied_input(x, y):
    if x > 0.0:
        return _halving_with_break(1.2, _halving_with_break(x, x))
    return _halving_with_break(math.atan2(y + x, 1.5 + math.tanh(x)), 1.5)


def loop_call_without_varied_input(x, y):
    s = 0.0
    for k in range(3):
        if k == 1:
            t = _halving_with_break(x, x)
        else:
            t = _halving_with_break(x * y, y)
        s = s + t * x
    return s


def _sines_of_an_array(a, b):
    v = np.array([0.5, 1.0, 2.0]) * a
    w = np.sin(v) * b
    if np.sum(w) > 0.0:
        return np.sum(w * w)
    return np.sum(w)


def branch_call_saving_an_array(x, y):
    if x > 0.0:
        return _sines_of_an_array(1.1, _sines_of_an_array(x, x))
    return _sines_of_an_array(x * y, 1.5)


def _sine_recursion(a, b, n):
    if n <= 0:
        return a * b
    return _sine_recursion(math.sin(a) * b, b, n - 1)


def branch_recursive_call_without_varied_input(x, y):
    if x > 0.0:
        return _sine_recursion(1.2, _sine_recursion(x, x, 2), 2)
    return _sine_recursion(math.atan2(y + x, 1.5), 1.5, 2)


def loop_recursive_call_without_varied_input(x, y):
    s = 0.0
    for k in range(3):
        if k == 1:
            s = s + _sine_recursion(x, x, 2)
        else:
            s = s + _sine_recursion(x * y, y, 1) * x
    return s


# -------------------------------------------------------- powers of a negative base


def integer_exponent_saved_on_a_tape(x, y):
    acc = x
    ys = [y, x]
    for _ in range(2):
        if x > -1.0:
            acc = acc + 0.5 * x ** (len(ys) - 2)  # the exponent: 0, then 1
        ys.append(math.log(1.0 + acc * acc))
    return acc + 0.5 * ys[len(ys) - 2]


def array_float_exponent(x, y):
    return np.sum(x ** y)


def array_of_a_comprehension(x, s):
    # (the gradient adds the array's adjoint into the list's: add_into, item by item)
    v = np.array([s ** 2 * (k + 1.0) for k in range(3)])
    return np.tanh(s) * np.sum(v * x) + np.sum(np.array([x[0] * s, s]) ** 2)
