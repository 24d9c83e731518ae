"""NumPy functions whose rules were added for user code that called them (np.cbrt,
np.broadcast_to, np.column_stack and np.dstack, np.append, np.insert, np.delete,
np.compress, np.select, np.ptp, np.ediff1d, np.linalg.matrix_power and multi_dot, the
NaN-skipping reductions, np.cov and np.corrcoef, np.modf), differentiated in programs:
the gradient in reverse and forward mode, in a loop, and the Hessian against central
differences (the rules themselves are checked row by row in tests/test_rules.py,
with the examples of tests/shaping_examples.py and tests/linalg_examples.py), and the
argument forms they refuse."""

import warnings

import numpy as np
import pytest

import s2sad
from helpers import central_diff


def joins(x):
    m = x.reshape(2, 3)
    return np.sum(np.column_stack([x[:3], x[3:] ** 2]) ** 2) + np.sum(np.dstack([m, m ** 2]) ** 3) \
        + np.sum(np.broadcast_to(x[:3], (2, 3)) * m) + np.sum(np.append(x, x[:2] ** 2) ** 2) \
        + np.sum(np.append(m, m[:1] * 2.0, axis=0) ** 3) + np.sum(np.column_stack([m.T, x[:3]]) ** 3)


def edits(x):
    m = x.reshape(2, 3)
    return np.sum(np.insert(x, 2, x[0] ** 2) ** 2) + np.sum(np.insert(m, 1, x[:2], axis=1) ** 3) \
        + np.sum(np.delete(x, [1, 4]) ** 3) + np.sum(np.delete(m, 0, axis=1) ** 2 * 2.0) \
        + np.sum(np.compress(x > 0.6, x) ** 2) + np.sum(np.compress([True, False, True], m, axis=1) ** 3)


def spreads(x):
    m = x.reshape(2, 3)
    return np.ptp(x) * x[0] + np.sum(np.ptp(m, axis=1) ** 2) + np.sum(np.ediff1d(x) ** 2 * x[1:]) \
        + np.sum(np.cbrt(x) * x) + np.cbrt(x[1] - 2.0) ** 2


def powers(x):
    a = x[:4].reshape(2, 2)
    return np.sum(np.linalg.matrix_power(a, 3)) + np.sum(np.linalg.matrix_power(a, 0) * a) \
        + np.sum(np.linalg.matrix_power(a, -2)) + np.linalg.multi_dot([x[:2], a, x[2:4]]) \
        + np.sum(np.linalg.multi_dot([a, a.T, a]) ** 2)


def nan_skipping(x):
    # (the element above 1.2 is NaN: it gets no derivative)
    y = np.where(x > 1.2, np.nan, x)
    m = y.reshape(2, 3)
    return np.nanmax(y) + np.nanmin(y) * 2.0 + np.nanvar(y) + np.nanstd(y) * x[0] + np.nanprod(y) \
        + np.sum(np.nancumsum(y) ** 2) + np.nansum(y ** 2) + np.sum(np.nanmax(m, axis=1) ** 2) \
        + np.sum(np.nanvar(m, axis=1, ddof=1)) + np.sum(np.nanstd(m, axis=1, keepdims=True))


def selections(x):
    m = x.reshape(2, 3)
    return np.sum(np.select([x > 1.0, x < 0.5], [x ** 2, np.sin(x)], x ** 3)) \
        + np.sum(np.select([m > 0.8], [m * x[0]], 0.5) ** 2)


def covariances(x):
    m = x.reshape(2, 3)
    return np.sum(np.cov(m) ** 2) + np.sum(np.corrcoef(m, rowvar=False) ** 3) + np.cov(x, bias=True) \
        + np.sum(np.cov(m.T, rowvar=False, ddof=0)) + np.corrcoef(x ** 2, rowvar=True).item() \
        + np.corrcoef(m)[0, 1]


def fractions(x):
    frac, whole = np.modf(x * 3.0)
    return np.sum(frac ** 2 + whole * x) + np.sum(np.modf(x)[0] * x)


def in_a_loop(x):
    total = 0.0
    y = x
    for i in range(3):
        y = np.append(y[1:], np.ptp(y) * 0.5)
        total = total + np.nanmax(y * x) + np.sum(np.cov(y.reshape(2, 3)) ** 2) \
            + np.sum(np.linalg.matrix_power(y[:4].reshape(2, 2), i + 1))
    return total


PROGRAMS = [joins, edits, spreads, powers, nan_skipping, selections, covariances, fractions,
            in_a_loop]


@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_gradients_and_hessians_match_central_differences(f):
    x = np.array([0.2, 1.1, 0.45, 1.5, 0.7, 0.95])  # (no ties, no integers in 3 x)
    want = central_diff(f, (x,), 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(x), want, rtol=1e-6, atol=1e-6), mode
    grad = s2sad.grad(f)
    numeric = np.array([central_diff(lambda v: grad(v)[i], (x,), 0) for i in range(x.size)])
    assert np.allclose(s2sad.hessian(f)(x), numeric, rtol=1e-5, atol=1e-5)


def nanmax_of(x):
    return np.nanmax(x) + np.sum(np.nancumsum(x))


def test_a_nan_element_gets_no_derivative():
    """In both modes a NaN element of x gets 0, as JAX gives it."""
    x = np.array([0.5, np.nan, 2.0, 1.0])
    for mode in ("reverse", "forward"):
        assert s2sad.grad(nanmax_of, mode=mode)(x).tolist() == [4.0, 0.0, 3.0, 1.0]


_HOLES = np.array([1.0, np.nan, 1.0])


def nan_reductions_of_holes(x):
    y = x * _HOLES  # (the NaN's tangent is NaN too)
    return np.nanmean(y) + np.nansum(y) + np.nanmax(y) + np.nanvar(y) + np.nanstd(y)


def test_a_nan_whose_tangent_is_nan_is_not_read():
    """nanmean's forward rule multiplied the NaN's tangent by 0: NaN, in jvp and in
    grad(mode="forward"), where the other nan reductions skip it."""
    x = np.array([0.5, 2.0, 3.0])
    _, t = s2sad.jvp(nan_reductions_of_holes, (x,), (np.array([1.0, 0.0, 0.0]),))
    g = s2sad.grad(nan_reductions_of_holes)(x)
    assert np.isfinite(t) and t == pytest.approx(g[0], rel=1e-12)
    forward = s2sad.grad(nan_reductions_of_holes, mode="forward")(x)
    assert np.allclose(forward[[0, 2]], g[[0, 2]], rtol=1e-12) and forward[1] == 0.0


def ptp_at_a_tie(x):
    return np.ptp(x)


def test_ptp_shares_a_tie_as_max_and_min_do():
    x = np.array([2.0, 0.5, 2.0, 0.5, 1.0])
    for mode in ("reverse", "forward"):
        assert s2sad.grad(ptp_at_a_tie, mode=mode)(x).tolist() == [0.5, -0.5, 0.5, -0.5, 0.0]


def ends_added(x):
    return np.sum(np.ediff1d(x, to_end=x[0]))


def cov_of_a_flag(x, flag):
    return np.sum(np.cov(x.reshape(2, 3), rowvar=flag))


def cov_of_two(x, y):
    return np.sum(np.cov(x, y))


def weighted_cov(x, w):
    return np.sum(np.cov(x.reshape(2, 3), aweights=w))


def test_forms_without_a_rule_are_refused_at_the_line():
    x = np.array([0.2, 1.1, 0.45, 1.5, 0.7, 0.95])
    with pytest.raises(s2sad.NoRuleError, match="to_end"):
        s2sad.grad(ends_added)(x)
    with pytest.raises(s2sad.NoRuleError, match="rowvar= not a literal"):
        s2sad.grad(cov_of_a_flag)(x, True)
    with pytest.raises(s2sad.NoRuleError, match="np.cov"):
        s2sad.grad(cov_of_two)(x, x[::-1])
    with pytest.raises(s2sad.NoRuleError, match="np.cov"):
        s2sad.grad(weighted_cov)(x, np.array([1.0, 2.0, 1.0]))


def values_inserted(x, v):
    return np.sum(np.insert(x.reshape(2, 3), [0, 2], v, axis=1) ** 2)


def test_insert_gives_a_broadcast_value_the_sum_of_its_places():
    """A value NumPy broadcast into several places gets the adjoints of all of them."""
    x, v = np.array([0.2, 1.1, 0.45, 1.5, 0.7, 0.95]), np.array([[0.3], [0.8]])
    want = central_diff(values_inserted, (x, v), 1)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(values_inserted, wrt=1, mode=mode)(x, v), want, rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s2sad.grad(values_inserted)(x, v)
