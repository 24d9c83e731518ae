"""NumPy functions whose rules were added after the first tables, differentiated in
programs: the gradient in reverse and forward mode and the Hessian against central
differences (the rules themselves are checked row by row in tests/test_rules.py,
tests/test_scipy_*_rules.py), and the conventions their rules document."""

import warnings

import numpy as np
import pytest

import s2sad
from helpers import central_diff


def vdot_of_matrices(x):
    return np.vdot(x.reshape(2, 3), x[::-1].reshape(3, 2)) + np.vdot(x, x)


def polynomial(x):
    return np.sum(np.polyval(x[:3], x)) + np.polyval([x[0], 2.0, x[1]], x[2])


def float_powers(x):
    return np.sum(np.float_power(x, x[0])) + np.sum(np.float_power(x, 3))


def traces(x):
    a = np.outer(x, x)
    return np.trace(a, offset=1) + np.trace(a, -2) + np.trace(a[:, :4], 1, 1, 0) \
        + np.sum(np.trace(a.reshape(2, 3, 6), 1, 2, 1))


def steps_and_casts(x):
    step = np.heaviside(x - 1.0, x)
    return np.sum(step * x) + np.float64(x[0]) * 2.0 + np.float64(np.sum(x)) ** 2


def outer_ufuncs(x):
    m = x.reshape(2, 3)
    return np.sum(np.add.outer(x, x[:4]) ** 2) + np.sum(np.sin(np.subtract.outer(m, x))) \
        + np.sum(np.multiply.outer(x, m) ** 3)


def grids(x):
    X, Y = np.meshgrid(x[:2], x[2:])
    g = np.meshgrid(x[:3], x[3:], indexing="ij")
    return np.sum(X * Y ** 2 + np.sin(X)) + np.sum(g[1] ** 3 * g[0]) \
        + np.sum(np.meshgrid(x[:2], x)[1] ** 2)


def masked_reductions(x):
    m = x.reshape(2, 3)
    return np.mean(x, where=x > 0.5) + np.sum(x ** 2, where=x < 1.0) \
        + np.sum(np.mean(m ** 2, axis=1, where=m > 0.3)) + np.sum(m.sum(axis=0, where=m < 1.2) ** 2) \
        + x.mean(where=x > 0.5) * x.sum(where=x < 1.0)


def order_statistics(x):
    m = x.reshape(2, 3)
    return np.quantile(x, 0.3) + np.percentile(x, 30.0) + np.median(x) \
        + np.sum(np.quantile(m, [0.2, 0.8], axis=1) ** 2) \
        + np.sum(np.percentile(m ** 2, [10.0, 95.0], axis=0, keepdims=True))


def gradients(x):
    return np.sum(np.gradient(x) ** 2) + np.sum(np.gradient(x, x[0]) ** 3) \
        + np.sum(np.gradient(x.reshape(2, 3), axis=1) ** 2 * x[:3]) \
        + np.sum(np.gradient(x.reshape(3, 2), 0.5, axis=0) ** 2)


PROGRAMS = [vdot_of_matrices, polynomial, float_powers, traces, steps_and_casts, outer_ufuncs,
            grids, masked_reductions, order_statistics, gradients]


@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_gradients_and_hessians_match_central_differences(f):
    x = np.array([0.2, 1.1, 0.45, 1.5, 0.7, 0.95])  # (no ties: a tie is a kink of a quantile)
    want = central_diff(f, (x,), 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(x), want, rtol=1e-6, atol=1e-7), mode
    grad = s2sad.grad(f)
    numeric = np.array([central_diff(lambda v: grad(v)[i], (x,), 0) for i in range(x.size)])
    assert np.allclose(s2sad.hessian(f)(x), numeric, rtol=1e-5, atol=1e-6)


def heaviside_at_zero(x, h):
    return np.sum(np.heaviside(x, h))


def test_heaviside_is_a_step_in_x_and_its_value_at_zero_in_h():
    x, h = np.array([0.0, -0.5, 0.0, 2.0]), np.array([0.3, 0.4, 0.5, 0.6])
    dx, dh = s2sad.grad(heaviside_at_zero, wrt=(0, 1))(x, h)
    assert dx.tolist() == [0.0] * 4 and dh.tolist() == [1.0, 0.0, 1.0, 0.0]
    dh = s2sad.grad(heaviside_at_zero, wrt=1, mode="forward")(x, h)
    assert dh.tolist() == [1.0, 0.0, 1.0, 0.0]


def single_precision(x):
    y = np.float32(x)
    return np.sum(y * y)


def test_float32_cast_passes_the_derivative_as_astype_does():
    """np.float32(x) rounds (a step of 1e-7 that has no derivative); the derivative
    passes through, as with x.astype(np.float32), computed in the float32 arithmetic
    after it, and the gradient has the argument's dtype, float64."""
    x = np.array([0.2, 0.5, 1.3])
    g = s2sad.grad(single_precision)(x)
    assert g.dtype == np.float64 and np.array_equal(g, 2 * x.astype(np.float32))
    assert np.allclose(s2sad.grad(single_precision, mode="forward")(x), g, rtol=1e-6)


def masked_rows(x, mask):
    return np.sum(np.nan_to_num(np.mean(x, axis=1, where=mask)))


def test_a_mask_that_leaves_a_row_empty_gives_its_elements_no_derivative():
    """Elements the mask leaves out get 0, and so do those of a row it leaves empty
    (whose mean NumPy gives as NaN, which nan_to_num makes 0), not 0 / 0."""
    x = np.array([[0.5, 1.5], [2.0, 3.0]])
    mask = np.array([[False, False], [True, False]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's mean of an empty row)
        for mode in ("reverse", "forward"):
            assert s2sad.grad(masked_rows, mode=mode)(x, mask).tolist() == [[0.0, 0.0], [1.0, 0.0]]


def quantile_at_a_tie(x):
    return np.quantile(x, 0.5)


def lower_quantile(x):
    return np.quantile(x, 0.5, method="lower")


def test_quantile_conventions():
    """At a tie the weight goes to the element a stable sort puts at that place (equal
    elements keep their order in x); methods other than 'linear' are refused at the
    line."""
    x = np.array([0.5, 2.0, 0.5, 1.0])  # (sorted: 0.5, 0.5, 1.0, 2.0; the median 0.75)
    assert s2sad.grad(quantile_at_a_tie)(x).tolist() == [0.0, 0.0, 0.5, 0.5]
    with pytest.raises(s2sad.NoRuleError, match="method='lower'"):
        s2sad.grad(lower_quantile)(x)


def gradient_of_a_matrix(x):
    return np.sum(np.gradient(x.reshape(2, 3))[0])


def gradient_at_points(x, t):
    return np.sum(np.gradient(x, t))


def test_gradient_forms_without_a_rule_are_refused_at_the_line():
    """NumPy's list of one array per axis, coordinates in place of a spacing, and
    edge_order=2 have no rule: refused, never differentiated as another form."""
    x = np.array([0.2, 1.1, 0.45, 1.5, 0.7, 0.95])
    with pytest.raises(s2sad.NoRuleError, match="without axis= naming"):
        s2sad.grad(gradient_of_a_matrix)(x)
    with pytest.raises(s2sad.NoRuleError, match="np.gradient"):
        s2sad.grad(gradient_at_points)(x, np.cumsum(x))


def _diag_above(x):
    return np.sum(np.diag(x, 1) ** 3)


def _diag_below(A):
    return np.sum(np.diag(A, -1) ** 3)


def _diag_then_eigh(x):
    w, V = np.linalg.eigh(np.diag(x, 0) + 1.0)
    return np.sum(w ** 3) + np.sum(np.diag(np.outer(x, x)) ** 2)


@pytest.mark.parametrize("f, a", [(_diag_above, np.array([2.0, -1.0, 3.0])),
                                  (_diag_below, np.arange(9.0).reshape(3, 3) / 7),
                                  (_diag_then_eigh, np.array([2.0, -1.0, 3.0]))])
def test_np_diag_with_its_offset_by_position(f, a):
    """``np.diag(x, 1)`` had no rule (only ``k=1`` by keyword), and the gradient of
    ``np.diag`` wrote its offset by position, which forward mode then could not take:
    a Hessian of ``np.diag`` of a vector stopped there."""
    e = 1e-6
    want = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = e
        want[idx] = (f(a + d) - f(a - d)) / (2 * e)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(a), want, rtol=1e-6, atol=1e-8), mode
    if a.ndim == 1 and f is not _diag_then_eigh:
        g = s2sad.grad(f)
        numeric = np.array([(g(a + 1e-5 * u) - g(a - 1e-5 * u)) / 2e-5 for u in np.eye(len(a))])
        assert np.allclose(s2sad.hessian(f)(a), numeric, rtol=1e-5, atol=1e-6)
