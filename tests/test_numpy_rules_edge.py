"""NumPy rules at the edges users found: stacks of matrices, 1-D operands, None bounds,
lists given to reductions, norms s2sad does not differentiate, and ``x ** y`` at a
negative base. Each gradient is compared with central differences in both modes;
each refusal is a clear `S2SADError` at transform time."""

import inspect
import math

import numpy as np
import pytest

import s2sad
from helpers import central_diff

MODES = ["reverse", "forward"]


def stack(*shape, seed=0):
    """Well-conditioned matrices of `shape` (..., n, n), the second with a negative
    determinant."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-0.3, 0.3, shape) + 2.0 * np.eye(shape[-1])
    if len(shape) > 2 and shape[0] > 1:
        a[1] *= -1.0
    return a


def vector(*shape, seed=1):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


def check(f, args, wrt=0, mode="reverse", rtol=1e-5, atol=1e-7):
    got = s2sad.grad(f, wrt=wrt, mode=mode)(*args)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    gots = got if isinstance(wrt, tuple) else (got,)
    for i, g in zip(items, gots):
        expected = central_diff(f, list(args), i)
        assert np.shape(g) == np.shape(expected), (i, np.shape(g), np.shape(expected))
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol)
    return got


def line_of(f, marker):
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if f"marker: {marker}" in line)


# -------------------------------------------------------------- 1-D matmul, abs


def matmul_vectors(x, y):
    return np.matmul(x, y)


def matmul_matrix_vector(a, y):
    return np.sum(np.matmul(a, y) ** 2) + np.matmul(y, a) @ y


@pytest.mark.parametrize("mode", MODES)
def test_np_matmul_of_vectors(mode):
    check(matmul_vectors, [vector(4), vector(4, seed=2)], wrt=(0, 1), mode=mode)
    check(matmul_matrix_vector, [vector(4, 4), vector(4, seed=2)], wrt=(0, 1), mode=mode)


def builtin_abs(x):
    return np.sum(abs(x) * x) + abs(x[0])


@pytest.mark.parametrize("mode", MODES)
def test_builtin_abs_of_an_array(mode):
    check(builtin_abs, [np.array([-1.5, 0.3, 2.0, -0.1])], mode=mode)


# ------------------------------------------------------------- clip, reductions


def clip_above(x):
    return np.sum(np.clip(x, None, 0.6) ** 2)


def clip_below(x, lo):
    return np.sum(np.clip(x, lo, None) ** 2) + np.sum(x.clip(None, lo) * 3.0)


@pytest.mark.parametrize("mode", MODES)
def test_clip_with_a_none_bound(mode):
    x = np.array([-0.9, 0.1, 0.5, 0.7, 1.3])
    check(clip_above, [x], mode=mode)
    check(clip_below, [x, 0.2], wrt=(0, 1), mode=mode)


def sum_of_list(x, y):
    return np.sum([x, y * y])


def reductions_of_lists(x, y):
    return (np.mean([x, y * y, 0.3]) + np.max([x, y]) * np.prod([x, y, 2.0])
            + np.std([x, y * x]) + np.linalg.norm([x, y]))


def sum_of_list_of_arrays(x, y):
    return np.sum(np.sum([x, y * x], axis=0) ** 2) + np.sum([x, y])


@pytest.mark.parametrize("mode", MODES)
def test_reductions_of_lists(mode):
    check(sum_of_list, [0.5, 1.5], wrt=(0, 1), mode=mode)
    check(reductions_of_lists, [0.5, 1.5], wrt=(0, 1), mode=mode)
    check(sum_of_list_of_arrays, [vector(3), vector(3, seed=2)], wrt=(0, 1), mode=mode)
