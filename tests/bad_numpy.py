"""NumPy functions s2sad must refuse, each with a clear error at the right line."""

import numpy as np

TABLE = np.zeros(3)


def write_into_argument(x):
    x[0] = 1.0  # marker: argument
    return np.sum(x)


def write_through_view(x):
    y = x.copy()
    v = y[1:]
    v[0] = 2.0 * x[0]  # marker: view write
    return np.sum(y)


def view_read_after_write(x):
    y = x.copy()
    v = y[1:]
    y[1] = 5.0 * x[0]  # marker: changes the view
    return np.sum(v)


def view_read_in_later_iteration(x):
    y = x.copy()
    top = y[:2]
    for i in range(3):
        y[i] = top[0] * x[i]  # marker: loop write
    return np.sum(y)


def list_of_values_written_into_an_array(x):
    y = np.zeros(4)
    y[:2] = [x[0] * x[1], x[2]]  # marker: list of values
    return np.sum(y * y)


def write_list_slice(x, y):
    ys = [x, y, x]
    ys[0:2] = [y, x]  # marker: list slice
    return ys[0] * ys[1]


def write_into_global(x):
    TABLE[0] = x[0]  # marker: global
    return np.sum(TABLE)


def write_nested_subscript(x):
    y = np.zeros((2, 2))
    y[0][1] = x[0]  # marker: nested
    return np.sum(y)


def no_rule(x):
    return np.sum(np.i0(x))  # marker: no rule


def write_into_call_result(x):
    y = helper(x)
    y[0] = 1.0  # marker: call result
    return np.sum(y)


def helper(v):
    return v


def dot_of_numbers(x):
    return np.dot(x, 2.0)  # marker: dot of numbers


def dot_of_a_list(x):
    return np.sum(np.dot(x, [1.0, 2.0, 3.0, 4.0]))  # marker: dot of a list


def norm_of_order_zero(x):
    return np.linalg.norm(x, ord=0)  # marker: norm ord


def norm_with_a_wrong_keyword(x):
    return np.linalg.norm(x, order=1)  # marker: norm keyword


def inner_of_matrices(x):
    return np.sum(np.inner(x, x))  # marker: inner


def _oscillator(y, k):
    return np.array([y[1], -k * y[0]])


def list_made_an_array_in_a_loop(y0, k):
    y = y0
    for _ in range(5):
        y = y + 0.1 * _oscillator(y, k)
    return y[0]  # marker: list then array


def list_made_an_array_first(y0, k):
    y = np.asarray(y0)
    for _ in range(5):
        y = y + 0.1 * _oscillator(y, k)
    return y[0]


def einsum_sublist_form(x):
    # (its rules read the subscripts' text: the operand first was taken for them, and
    # its gradient was zeros)
    return np.sum(np.einsum(x, [0], x, [0], []))  # marker: sublist


def meshgrid_of_three(x):
    # (the third array took the place of `indexing`: an internal ValueError)
    X, Y, Z = np.meshgrid(x, x[:2], x[:3])  # marker: three grids
    return np.sum(X * Y * Z)
