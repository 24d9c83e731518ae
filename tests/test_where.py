"""Gradients through np.where: the derivative of the branch each point takes, never
NaN from the branch it does not take (docs/guide/numpy.md, "np.where without
NaN"), in reverse mode, forward mode and second order, for arrays and numbers."""

import re
import warnings

import numpy as np
import pytest

import s2sad
from zoo_where import CASES

IDS = [case[0].__name__ for case in CASES]


def branch_derivatives(taken, other, cond, x, h=1e-6):
    """First and second derivatives, element by element, of the branch each point of
    `x` takes (central differences of that branch alone)."""
    with np.errstate(all="ignore"):
        first = np.where(cond(x), (taken(x + h) - taken(x - h)) / (2 * h),
                         (other(x + h) - other(x - h)) / (2 * h))
        k = 1e-4
        second = np.where(cond(x), (taken(x + k) - 2 * taken(x) + taken(x - k)) / k**2,
                          (other(x + k) - 2 * other(x) + other(x - k)) / k**2)
    return first, second


@pytest.fixture(autouse=True)
def quiet():
    # (the masked branch's own value is NaN or infinite at some points: NumPy warns
    # in the function itself)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@pytest.mark.parametrize("f, taken, other, cond, points", CASES, ids=IDS)
def test_reverse(f, taken, other, cond, points):
    x = np.array(points)
    first, _ = branch_derivatives(taken, other, cond, x)
    g = s2sad.grad(f)(x)
    assert np.all(np.isfinite(g)), g
    np.testing.assert_allclose(g, first, rtol=1e-5, atol=1e-6 * np.abs(first).max())


@pytest.mark.parametrize("f, taken, other, cond, points", CASES, ids=IDS)
def test_forward(f, taken, other, cond, points):
    x = np.array(points)
    first, _ = branch_derivatives(taken, other, cond, x)
    v = np.linspace(0.5, 1.5, x.size)
    _, t = s2sad.jvp(f, (x,), (v,))
    assert np.isfinite(t)
    np.testing.assert_allclose(t, np.dot(first, v), rtol=1e-5)


@pytest.mark.parametrize("f, taken, other, cond, points", CASES, ids=IDS)
def test_hessian(f, taken, other, cond, points):
    x = np.array(points)
    _, second = branch_derivatives(taken, other, cond, x)
    H = s2sad.hessian(f)(x)
    assert np.all(np.isfinite(H)), H
    np.testing.assert_allclose(H, np.diag(second), rtol=1e-4,
                               atol=1e-6 * max(1.0, np.abs(second).max()))


@pytest.mark.parametrize("f, taken, other, cond, points", CASES, ids=IDS)
def test_numbers(f, taken, other, cond, points):
    """The same functions of one number (np.where of numbers gives a 0-d array)."""
    for p in points:
        try:
            f(p)
        except ZeroDivisionError:
            continue  # (x / x of the float 0.0 raises in the function itself)
        first, second = branch_derivatives(taken, other, cond, np.array([p]))
        g = s2sad.grad(f)(p)
        assert np.isfinite(g)
        np.testing.assert_allclose(g, first[0], rtol=1e-5, atol=1e-9)
        assert np.isclose(s2sad.derivative(f)(p), first[0], rtol=1e-5, atol=1e-9)
        # (a NumPy float: the gradient's tangent lines divide by x, which for the
        # Python float 0.0 raises, as x_dot / x does in forward mode of np.log(x))
        np.testing.assert_allclose(s2sad.hessian(f)(np.float64(p)), second[0], rtol=1e-4,
                                   atol=1e-6 * max(1.0, abs(second[0])))


def test_the_mask_costs_nothing_where_no_nan_can_arise():
    """A branch of bounded rules on finite values reads the mask as before (one
    np.where in the gradient); a singular one moves its local derivative inside
    the mask instead of multiplying the masked adjoint by it."""
    def bounded(x, y):
        return np.sum(np.where(x > 0, x * y, 0.0))

    def singular(x):
        return np.sum(np.where(x > 0, np.sqrt(x), 0.0))

    x = np.array([1.0, -1.0])
    text = s2sad.source(bounded, example=(x, x), wrt=(0, 1))
    assert re.search(r"x_bar = t\d+_bar \* y", text) and text.count("np.where") == 3, text
    text = s2sad.source(singular, example=(x,))
    assert "x_bar = np.where(t1, t4_bar / (2.0 * t2), 0.0)" in text, text


def test_a_masked_branch_read_elsewhere_keeps_its_derivative():
    """A value used by the masked branch and elsewhere: its derivative through the
    other use is the function's own (infinite for sqrt at 0)."""
    def f(x):
        s = np.sqrt(x)
        return np.sum(np.where(x > 1, np.log(s), 0.0)) + np.sum(s)

    x = np.array([0.0, 4.0])
    g = s2sad.grad(f)(x)
    assert g[0] == np.inf and np.isclose(g[1], 1 / 8 + 1 / 4)


def test_in_a_loop():
    from zoo_where import sqrt_steps_in_a_loop

    x = np.array([-1.0, 0.0, 1.0, 2.5])
    expected = sum(np.where(x > i, 0.5 / np.sqrt(np.abs(x - i) + (x <= i)), 0.0)
                   for i in range(3))
    np.testing.assert_allclose(s2sad.grad(sqrt_steps_in_a_loop)(x), expected)
    H = s2sad.hessian(sqrt_steps_in_a_loop)(x)
    assert np.all(np.isfinite(H))
    second = sum(np.where(x > i, -0.25 * (np.abs(x - i) + (x <= i)) ** -1.5, 0.0)
                 for i in range(3))
    np.testing.assert_allclose(H, np.diag(second))


def log_gap_or_product(x, y):
    return float(np.where(x > y, np.log(x - y), y * x))


def test_numbers_take_one_branch_in_forward_mode():
    """np.where of numbers: the tangent of the branch taken only, one conditional
    expression (the sum of the two branches' terms folded), no ZeroDivisionError for
    the float 0.0 of the branch not taken."""
    text = s2sad.source(log_gap_or_product, example=(1.0, 0.5), mode="forward", wrt=(0, 1))
    assert "t3_dot = (x_dot - y_dot) / t2 if t1 else y_dot * x + y * x_dot" in text, text
    _, t = s2sad.jvp(log_gap_or_product, (0.5, 0.5), (1.0, 2.0))
    assert t == pytest.approx(2.0 * 0.5 + 0.5 * 1.0)
    assert s2sad.grad(log_gap_or_product, wrt=(0, 1))(0.5, 0.5) == (0.5, 0.5)
