"""NumPy programs at the edges of s2sad's rules, for tests/test_numpy_rules_edge.py
(and `power`, for tests/test_hessian.py); it holds no tests.

Stacks of matrices given to det, slogdet, inv, solve and trace; 1-D matmul, the
builtins abs and pow on arrays; clip with a None bound; reductions and ufuncs of
Python lists; norms with and without a rule (a line s2sad refuses ends with
``# marker: <name>``, which the tests look for); tuples of axes and axes counted from
the end; argmax and argmin; powers at a negative base and at zero; det at a singular
matrix; std of one element."""

import math

import numpy as np


# --------------------------------------------- stacks of matrices (det, slogdet, ...)


def sum_det(a):
    return np.sum(np.linalg.det(a))


def weighted_logdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.sum(logdet * np.array([1.0, 2.0]))


def sum_logdet(a):
    return np.sum(np.linalg.slogdet(a)[1])


def logdet_of_matrix(a):
    sign, logdet = np.linalg.slogdet(a)
    return logdet * 2.0


def solve_squared(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def mean_square_logdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.mean(logdet ** 2) + np.sum(sign * logdet)


def solve_weighted(a, b):
    return np.mean(np.linalg.solve(a, b) ** 2) + np.sum(np.linalg.solve(a, b)[0])


def inv_squared(a):
    return np.sum(np.linalg.inv(a) ** 2 * np.arange(1.0, 10.0).reshape(3, 3))


def trace_squared(x):
    return np.sum(np.trace(x) ** 2)


# -------------------------------------------------------------- 1-D matmul, abs


def matmul_vectors(x, y):
    return np.matmul(x, y)


def matmul_matrix_vector(a, y):
    return np.sum(np.matmul(a, y) ** 2) + np.matmul(y, a) @ y


def builtin_abs(x):
    return np.sum(abs(x) * x) + abs(x[0])


def builtin_pow(x, y):
    return np.sum(pow(x, y))


# ------------------------------------------------------------- clip, reductions


def clip_above(x):
    return np.sum(np.clip(x, None, 0.6) ** 2)


def clip_below(x, lo):
    return np.sum(np.clip(x, lo, None) ** 2) + np.sum(x.clip(None, lo) * 3.0)


def clip_by_keywords(x, lo):
    # (NumPy's names for the bounds: a_min= and a_max=, min= and max= since 2.1)
    return np.sum(np.clip(x, a_min=lo, a_max=0.6) ** 2) + np.sum(np.clip(a=x, a_min=None, a_max=lo) * x) \
        + np.sum(np.clip(x, min=-0.5) * 2.0) + np.sum(x.clip(max=lo) ** 2)


def clip_with_bounds_crossed(x, lo, hi):
    # (NumPy clips to minimum(maximum(x, lo), hi): where lo > hi every element is hi,
    # whose derivative the rule gave lo)
    return np.sum(np.clip(x, lo, hi) ** 2 * np.arange(1.0, 6.0))


def sum_of_list(x, y):
    return np.sum([x, y * y])


def reductions_of_lists(x, y):
    return (np.mean([x, y * y, 0.3]) + np.max([x, y]) * np.prod([x, y, 2.0])
            + np.std([x, y * x]) + np.linalg.norm([x, y]))


def sum_of_list_of_arrays(x, y):
    return np.sum(np.sum([x, y * x], axis=0) ** 2) + np.sum([x, y])


def ufuncs_of_a_list(x, y):
    xs = [x, y]
    return np.sum(np.square(xs) + np.power(xs, 1.5) + np.log(xs) + np.arcsin(xs)
                  + np.arccos(xs) + np.arctan(xs) + np.log1p(xs) + np.log2(xs)
                  + np.log10(xs) + np.sqrt(xs) * np.exp(xs) + np.tanh(xs))


def binary_ufuncs_of_lists(x, y):
    xs = [x, y]
    c = np.array([0.5, 0.55])
    return np.sum(np.maximum(xs, 0.5) + np.minimum(0.55, xs) + np.maximum(xs, c) * 2.0
                  + np.arctan2(xs, y) + np.arctan2(x, xs) + np.power(2.0, xs)
                  + np.power(xs, [y, x]) + np.minimum(xs, xs[::-1]))


def ufuncs_of_a_tuple(x, y):
    return np.sum(np.square((x, y)) * np.log((y, x)) + np.maximum((x, y), 0.5))


def list_times_array(x, y):
    xs = [x, y]
    c = np.array([0.3, 0.7])
    return np.sum(c * xs * xs) + np.sum(xs * (c * xs))


def hstack_of_numbers(x, y):
    return np.sum(np.hstack([x, y * x]) * np.array([0.3, 0.7])) + np.hstack((y, x))[0]


# ------------------------------------------------------------------------- norms


def norm_0(x):
    return np.linalg.norm(x, ord=0)  # marker: ord 0


def norm_0_of_rows(a):
    return np.sum(np.linalg.norm(a, 0.0, axis=1))  # marker: ord 0 of rows


def norms_s2sad_differentiates(x, a):
    return (np.linalg.norm(x, ord=2) + np.linalg.norm(x, 2.0) + np.linalg.norm(a, "fro")
            + np.sum(np.linalg.norm(a, 2, axis=1)) + np.linalg.norm(a, ord=None))


def vector_norms(x, a):
    return (np.linalg.norm(x, ord=1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, -np.inf)
            + np.linalg.norm(x, 3) + np.linalg.norm(x, ord=-1.5)
            + np.sum(np.linalg.norm(a, 1, axis=1) * np.arange(1.0, 4.0))
            + np.sum(np.linalg.norm(a, np.inf, axis=0, keepdims=True) ** 2)
            + np.sum(np.linalg.norm(a, 2.5, axis=-1)))


def matrix_norms(a, s):
    return (np.linalg.norm(a, 2) + np.linalg.norm(a, "nuc") ** 2 + np.linalg.norm(a, -2)
            + np.linalg.norm(a, 1) + np.linalg.norm(a, -1) + np.linalg.norm(a, np.inf)
            + np.linalg.norm(a, -np.inf)
            + np.sum(np.linalg.norm(s, 2, (2, 1)) * np.arange(1.0, 3.0))
            + np.sum(np.linalg.norm(s, "nuc", axis=(-2, -1), keepdims=True) ** 2)
            + np.sum(np.linalg.norm(s, -np.inf, (1, 2))))


def constant_norm(x, c):
    return x * np.linalg.norm(c, ord=1) + x * np.linalg.norm(c, np.inf)


def norm_of_order(x, order):
    return np.linalg.norm(x, ord=order)


def spectral_by_given_axes(a, axes):
    return np.linalg.norm(a, 2, axes)


# ------------------------------------------------------------------ tuple axes


def frobenius_by_axes(a):
    return np.linalg.norm(a, None, (0, 1))


def sum_over_two_axes(x):
    return np.sum(x, axis=(0, 1)) * x[0, 0]


def reductions_over_tuples(x):
    return (x.mean(axis=(0, -1)) @ np.max(x, axis=(0, 2)) + np.sum(x ** 2, (1, 2), keepdims=True)[1, 0, 0]
            + np.std(x, axis=(1, 2)).sum() + np.reshape(x, (4, 6))[1, 2] * np.transpose(x, (2, 0, 1))[3, 1, 2])


# ------------------------------------------------------------- argmax, argmin


def pick_largest(x):
    return x[np.argmax(x)] * np.sum(x)


def pick_by_methods(x, m):
    return x[x.argmax()] * x[x.argmin()] + np.sum(m[np.argmin(m, axis=0), 0]) \
        + np.ravel(m)[np.argmax(m)] * 1.0 + np.sum(x[np.argmax(m, 1)])


# ------------------------------------------------------------ x ** y, x < 0


def power(x, y):
    return x ** y


def powers(x, y):
    return pow(x, y) + math.pow(x, y)


# ------------------------------------------------------------ second derivatives


def det_then_trace(a, x):
    return np.sum(np.linalg.det(a) ** 2) + np.sum(np.trace(x) ** 2) + np.sum(np.linalg.inv(a))


def logdet_then_solve(a, x):
    sign, logdet = np.linalg.slogdet(a)
    return np.mean(logdet ** 2) + np.sum(np.linalg.solve(a, x[0]) ** 2) \
        + np.sum(np.linalg.solve(a, x) * x)


# ---------------------------------- axes counted from the end, and concatenate(axis=None)


WEIGHTS = np.linspace(-1.0, 2.0, 24)


def transpose_negative(a):
    return np.sum(np.transpose(a, (-1, 0, 1)) * WEIGHTS.reshape(4, 2, 3))


def transpose_method_negative(a):
    b = a.transpose((-2, -1, 0))
    return np.sum(b * WEIGHTS.reshape(3, 4, 2))


def transpose_runtime_axes(a, axes):
    return np.sum(np.transpose(a, axes) * WEIGHTS.reshape(4, 2, 3))


def transpose_method_varargs(a):
    return np.sum(a.transpose(-1, 0, -2) * WEIGHTS.reshape(4, 2, 3))


def moveaxis_negative(a):
    b = np.moveaxis(a, -1, 0) * WEIGHTS.reshape(4, 2, 3)
    c = np.moveaxis(a, (0, -1), (-1, -3)) * WEIGHTS.reshape(4, 3, 2)
    return np.sum(b ** 2) + np.sum(c ** 3)


def swapaxes_negative(a):
    return np.sum(np.swapaxes(a, -1, 0) * WEIGHTS.reshape(4, 3, 2))


def reductions_negative(a):
    return (np.sum(np.sum(a, axis=-1) ** 2) + np.sum(np.mean(a, axis=(-2, -1)) ** 2)
            + np.sum(np.max(a, axis=-2) * WEIGHTS[:8].reshape(2, 4))
            + np.sum(np.prod(a, axis=-1, keepdims=True) ** 2)
            + np.sum(np.var(a, axis=-1)) + np.sum(np.std(a, axis=(0, -1)))
            + np.sum(np.linalg.norm(a, axis=-1)))


def expand_squeeze_negative(a):
    b = np.expand_dims(a, -1) * WEIGHTS.reshape(2, 3, 4, 1)
    c = np.expand_dims(a, (0, -1)) * WEIGHTS.reshape(1, 2, 3, 4, 1)
    return np.sum(np.squeeze(b, axis=-1) ** 2) + np.sum(np.squeeze(c, axis=-5) ** 3)


def stack_concat_negative(a, b):
    s = np.stack([a, b], axis=-1) * WEIGHTS[:12].reshape(3, 2, 2)
    t = np.concatenate([a, b], axis=-1) * WEIGHTS[:12].reshape(3, 4)
    u = np.concatenate([a, b], axis=-2) * WEIGHTS[:12].reshape(6, 2)
    return np.sum(s ** 2) + np.sum(t ** 2) + np.sum(u ** 3)


def concat_flattened(a, b):
    y = np.concatenate([a, b], axis=None)
    return np.sum(y * WEIGHTS[:10]) + y @ WEIGHTS[10:20]


def concat_flattened_then_matrix(a, b):
    y = np.concatenate((a, b), axis=None)
    return np.sum(np.reshape(y, (2, 5)) ** 2 * WEIGHTS[:10].reshape(2, 5))


def stack_family(a, b):
    h = np.hstack([a, b]) * WEIGHTS[:12].reshape(3, 4)
    v = np.vstack([a, b]) * WEIGHTS[:12].reshape(6, 2)
    return np.sum(h ** 2) + np.sum(v ** 3)


def square_transpose(a):
    return np.sum(np.transpose(a, (-1, 0, 1)) * WEIGHTS[:8].reshape(2, 2, 2))


# ------------------------------------------- x ** k at x == 0 with k == 0 at run time


def power_of_number(x, k):
    return x ** k + pow(x, k) + math.pow(x, k)


def power_of_array(x, k):
    return np.sum(x ** k) + np.sum(np.power(x, k)) + np.sum(pow(x, k))


def power_of_arrays(x, k):
    return np.sum(x ** k * WEIGHTS[:4]) + np.sum(np.power(x, k))


def power_of_a_list(xs, k):
    return np.sum(np.power(xs, k))


def power_of_both(x, y):
    return x ** y + np.sum(np.power(x * np.array([1.0, 2.0]), y))


def powers_of_both(x, y):
    return np.sum(x ** y) + np.sum(np.power(x, 2.0 * y))


def literal_square(x):
    return np.sum(x ** 2) + np.sum(x ** 0)


# ------------------------------------------------------ det at a singular matrix


def det_of(a):
    return np.linalg.det(a)


def det_squared_plus(a):
    return np.linalg.det(a) ** 2 + 3.0 * np.linalg.det(a)


def inv_sum(a):
    return np.sum(np.linalg.inv(a))


def solve_sum(a, b):
    return np.sum(np.linalg.solve(a, b))


# ------------------------------------------------------------ std of one element


def std_of_single_rows(x):
    return np.sum(np.std(x, axis=1) * WEIGHTS[:3]) + np.sum(np.std(x[0]))


def std_of_a_number(x):
    return np.std(x) + 2.0 * x
