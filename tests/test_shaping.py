"""NumPy's shaping functions (the rules of primitives.shaping_reverse and
shaping_forward) in functions as a user writes them: gradients, tangents and
Hessians against central differences, the tape and dual engines, and what is
refused (np.pad's other modes, y.sort() in place, np.convolve's modes by number)."""

import numpy as np
import pytest

import s2sad
from helpers import central_diff
from s2sad.engines import dual_grad


def cumulative(x):
    return np.sum(np.cumprod(x, axis=1) * np.cos(x)) + np.sum(np.sin(np.cumprod(x)))


def differences(x):
    return np.sum(np.diff(x, axis=0) ** 2) + np.sum(np.diff(x, 2) ** 3)


def sorted_and_picked(x):
    return (np.sum(np.sort(x, axis=0)[0] * np.arange(4.0)) + np.sort(x, axis=None)[-1]
            + np.sum(np.take(x, [0, 2, 2], axis=1) ** 2) + np.sum(x.take([1, 1]))
            + np.sum(np.partition(x, 1, axis=0)[:2] ** 2) + np.partition(x, -2, axis=None)[-2]
            + np.sum(x[0, np.argpartition(x[0], 1)[:2]] ** 3))


def rolled_and_flipped(x):
    return (np.sum(np.roll(x, 1, axis=0) * x) + np.sum(np.roll(x, (1, 2), axis=(0, 1)) * x ** 2)
            + np.sum(np.flip(x, -1) * x) + np.sum(np.fliplr(x) * np.flipud(x) ** 2)
            + np.sum(np.rot90(x) @ x ** 2) + np.sum(np.rot90(x, 2) * x ** 3)
            + np.sum(np.rot90(x[None], -1, axes=(2, 1))[0] @ x)
            + np.sum(np.rollaxis(x[None] * x[:, None], 2, 1) ** 3))


def padded_and_tiled(x):
    return (np.sum(np.pad(x, 1) ** 2) + np.sum(np.pad(x, ((1, 0), (0, 2)), constant_values=2.0) ** 3)
            + np.sum(np.tile(x, (2, 1)) ** 3) + np.sum(np.repeat(x, 2, axis=0) ** 3)
            + np.sum(x.repeat(3) ** 2))


def products(x):
    return (np.sum(np.kron(x, x) ** 2) + np.sum(np.tensordot(x, x, axes=((0,), (0,))) ** 2)
            + np.sum(np.tensordot(x, x.T, 1) ** 2) + np.einsum("ij,jk,k->", x.T, x, x[0])
            + np.sum(np.cross(x[:, :3], x[0, 1:]) ** 2) + np.sum(np.cross(x[:, 1:], x[:, :3], axis=0)))


def contracted(x):
    return (np.sum(np.einsum("ij,kj->ik", x, x) ** 2) + np.einsum("ii", x[:3, :3])
            + np.sum(np.einsum("ij", x) ** 3) + np.sum(np.einsum("...j,j->...", x, x[1]) ** 2))


def diagonals(x):
    return (np.sum(np.diag(x, 1) ** 2) + np.sum(np.diag(np.diag(x)) @ x)
            + np.sum(np.triu(x, 1) ** 2) + np.sum(np.tril(x, -1) ** 3)
            + np.sum(np.diagonal(x, -1) ** 3) + np.sum(x.diagonal(1) * x[0, :3])
            + np.sum(np.diagonal(x[None] * x[:, None], 1, axis1=-1, axis2=1) ** 2))


def statistics(x):
    return (np.median(x) + np.sum(np.median(x, axis=0) ** 2)
            + np.sum(np.median(x, axis=-1, keepdims=True) * x) + np.average(x)
            + np.sum(np.average(x, axis=0, weights=x[:, 0] ** 2 + 1.0) ** 2)
            + np.average(x, weights=x ** 2 + 0.5) + np.nansum(x ** 2)
            + np.sum(np.nanmean(x, axis=0) ** 2))


def promoted(x):
    return (np.sum(np.atleast_2d(x[0]) * x) + np.sum(np.atleast_3d(x) ** 2)
            + np.sum(np.atleast_1d(x[0, 0]) ** 2))


def split_up(x):
    a, b, c = np.split(x, 3, axis=0)
    left, right = np.hsplit(x, [1])
    parts = np.array_split(x, 3, axis=-1)
    rows = np.split(x, x.shape[0])  # (a count not known where the derivative is built)
    return (np.sum(a * c ** 2) + np.sum(np.sin(left) * right[:, 1:2])
            + np.sum(parts[0] ** 3) + np.sum(np.vsplit(x, (2,))[1] ** 2)
            + np.sum(rows[-1] * rows[1] ** 2))


def picked_along_axes(x):
    return (np.sum(np.take_along_axis(x, np.array([[0, 0], [3, 1], [2, 2]]), 1) ** 2)
            + np.sum(np.take_along_axis(x, np.array([[2, 0, 1, 1]]), axis=0) * x[0])
            + np.sum(np.take_along_axis(x, np.array([5, 5, 11]), None) ** 3)
            + np.sum(np.take_along_axis(x, np.argmax(x, axis=1)[:, None], axis=1) ** 2)
            + np.sum(np.take_along_axis(x, np.argsort(x, axis=0), axis=0)[0] * np.arange(4.0)))


def convolved(x):
    return (np.sum(np.convolve(x[0], x[1], "same") ** 2)
            + np.sum(np.convolve(x[2, :2], x[1]) * x[0, 0])
            + np.sum(np.convolve(x[1, :3], x[2], mode="valid") ** 3)
            + np.sum(np.correlate(x[0], x[2, 1:]) ** 2)
            + np.sum(np.tanh(np.correlate(x[1, :3], x[2], "same")))
            + np.sum(np.correlate(x[0, :2], x[1, 1:], "full") * x[2]))


def integrated(x):
    return (np.trapezoid(x ** 2) @ x[:, 0] + np.trapezoid(np.sin(x), dx=0.5, axis=0) @ x[0]
            + np.trapezoid(x[0] ** 2, np.cumsum(x[1] ** 2)) + np.sum(np.trapezoid(x, x[0] ** 3) ** 2)
            + np.trapezoid(np.exp(x), x=x * 2.0, axis=0) @ x[1] + np.trapezoid(x[2], dx=x[0, 0] ** 2))


def interpolated(x):
    # (knots away from X's entries: a point on a knot is a kink)
    xp = np.array([-1.1, -0.35, 0.25, 0.95])
    return (np.sum(np.interp(x, xp, x[1] ** 2) ** 2) + np.interp(x[0, 2], xp, np.cos(x[2]))
            + np.sum(np.interp(x[0] * 1.5, xp, x[2], left=x[1, 1], right=0.5) * x[1]))


def counted(x):
    bins = np.array([0, 2, 2, 1, 4, 0])
    return (np.sum(np.bincount(bins[:4], weights=x[0] ** 2, minlength=6) * np.arange(6.0))
            + np.sum(np.bincount(bins, np.ravel(x[:, :2]) ** 3) ** 2))


FUNCTIONS = [cumulative, differences, sorted_and_picked, rolled_and_flipped, padded_and_tiled,
             products, contracted, diagonals, statistics, promoted, split_up, picked_along_axes,
             convolved, integrated, interpolated, counted]
X = np.array([[0.3, -0.7, 1.1, 0.45], [0.9, -0.2, 0.6, -1.3], [0.15, 0.8, -0.55, 1.7]])


@pytest.mark.parametrize("f", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_gradient_and_tangent_match_central_differences(f):
    expected = central_diff(f, (X,), 0)
    assert np.allclose(s2sad.grad(f)(X), expected, rtol=1e-5, atol=1e-6)
    u = np.cos(np.arange(X.size)).reshape(X.shape)
    value, tangent = s2sad.jvp(f, (X,), (u,))
    assert value == pytest.approx(f(X)) and tangent == pytest.approx(np.sum(expected * u), rel=1e-5)
    assert np.allclose(s2sad.grad(f, mode="tape")(X), expected, rtol=1e-5, atol=1e-6)
    assert np.allclose(dual_grad(f, (X,))[1], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [cumulative, sorted_and_picked, padded_and_tiled, contracted,
                               diagonals, statistics, split_up, picked_along_axes, convolved,
                               integrated, interpolated, counted],
                         ids=lambda f: f.__name__)
def test_hessian_matches_differences_of_the_gradient(f):
    """Forward mode over the gradient: the runtime helpers the adjoints call (take_bar,
    unpad, einsum_bar, median_bar...) have forward rules."""
    grad = s2sad.grad(f)
    numeric = np.stack([central_diff(lambda y: grad(y)[i, j], (X,), 0)
                        for i in range(3) for j in range(4)]).reshape(3, 4, 3, 4)
    assert np.allclose(s2sad.hessian(f)(X), numeric, rtol=1e-4, atol=1e-5)


def cumprod_through_zeros(x):
    return np.sum(np.cumprod(x) * np.arange(1.0, 7.0))


def test_cumprod_is_right_at_zeros():
    """No division by an element that is zero: the elements before the first zero,
    the first zero itself (the products with it taken as one) and the rest."""
    for x in (np.array([0.5, 0.0, 1.5, -2.0, 0.7, 1.1]), np.array([0.5, 0.0, 1.5, 0.0, 0.7, 1.1]),
              np.array([0.0, 0.9, 1.5, -2.0, 0.7, 1.1])):
        expected = central_diff(cumprod_through_zeros, (x,), 0)
        assert np.all(np.isfinite(s2sad.grad(cumprod_through_zeros)(x)))
        assert np.allclose(s2sad.grad(cumprod_through_zeros)(x), expected, atol=1e-6)
        assert np.allclose(s2sad.hessian(cumprod_through_zeros)(x),
                           np.stack([central_diff(lambda y: s2sad.grad(cumprod_through_zeros)(y)[i],
                                                  (x,), 0) for i in range(6)]), atol=1e-5)


def padded_by_edge(x):
    return np.sum(np.pad(x, 1, mode="edge") ** 2)


def padded_with(x, c):
    return np.sum(np.pad(x, 1, constant_values=c) ** 2)


def sorted_in_place(x):
    y = x * 2.0
    y.sort()
    return np.sum(y * x)


def crossed_2_vectors(x):
    return np.sum(np.cross(x, x[::-1]))


def convolved_by_number(x):
    return np.sum(np.convolve(x, x[:2], 1) ** 2)


def convolved_in(x, mode):
    return np.sum(np.convolve(x, x[:2], mode) ** 2)


def test_what_is_refused_says_why():
    x = np.array([0.3, -0.2, 0.9])
    with pytest.raises(s2sad.NoRuleError, match="mode='edge'.*'constant' only.*'reflect'"):
        s2sad.grad(padded_by_edge)(x)
    with pytest.raises(s2sad.NoRuleError, match=r"constant_values.*np.pad\(x - c, width\) \+ c"):
        s2sad.grad(padded_with)(x, 0.5)
    with pytest.raises(s2sad.NotDifferentiableError, match=r"y = np.sort\(y\)"):
        s2sad.grad(sorted_in_place)(x)
    with pytest.raises(ValueError, match="np.cross of 3-vectors only"), \
            pytest.warns(DeprecationWarning):
        s2sad.grad(crossed_2_vectors)(np.ones((3, 2)))
    with pytest.raises(s2sad.NoRuleError, match=r"mode=1 \(s2sad differentiates mode='full'"):
        s2sad.grad(convolved_by_number)(x)
    with pytest.raises(s2sad.NoRuleError, match="a mode that is not a literal"):
        s2sad.grad(convolved_in)(x, "same")
    for mode in ("reverse", "forward"):  # (np.interp's knots, and a period)
        with pytest.raises(s2sad.NoRuleError, match="with respect to its argument `xp`"):
            s2sad.grad(interpolated_on_moving_knots, mode=mode)(x)
        with pytest.raises(s2sad.NoRuleError, match="np.interp` with period="):
            s2sad.grad(interpolated_with_period, mode=mode)(x)


def interpolated_on_moving_knots(x):
    return np.sum(np.interp(x, np.sort(x) * 2.0, x))


def interpolated_with_period(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 2.0]), x, period=2.0))


def interpolated_at(t, fp):
    return np.sum(np.interp(t, np.array([0.0, 1.0, 1.5, 3.0]), fp))


def test_interp_at_a_knot_takes_the_segment_to_its_right_as_jax_does():
    """At an inner knot the slope of the segment starting there, at the last knot the
    last segment's, past either end 0; fp's weights are 1 at the knot itself."""
    fp = np.array([0.0, 2.0, 5.0, 2.0])  # slopes 2, 6, -2
    t = np.array([0.0, 1.0, 1.5, 3.0, -0.5, 3.5])
    for mode in ("reverse", "forward"):
        dt, dfp = s2sad.grad(interpolated_at, wrt=(0, 1), mode=mode)(t, fp)
        assert dt.tolist() == [2.0, 6.0, -2.0, -2.0, 0.0, 0.0]
        assert dfp.tolist() == [2.0, 1.0, 1.0, 2.0]


def trapezoid_by_keyword(y, h):
    return np.trapezoid(y ** 2, dx=h) + np.trapezoid(y, x=y ** 3)


def test_trapezoid_differentiates_its_step_and_its_points():
    y = np.array([0.3, 0.5, 0.9, 1.4])
    expected = [central_diff(trapezoid_by_keyword, (y, 0.3), i) for i in (0, 1)]
    for mode in ("reverse", "forward", "tape"):
        got = s2sad.grad(trapezoid_by_keyword, wrt=(0, 1), mode=mode)(y, 0.3)
        assert np.allclose(got[0], expected[0]) and np.isclose(got[1], expected[1])


def along_axes(x):
    return (np.sum(np.flip(x, 0) * x) + np.roll(x, 1, axis=-1) * x + np.cumsum(x, axis=0)
            + np.diff(x, axis=0)[0] + np.sum(np.repeat(x, 2, 1) ** 2) + np.triu(x)[0]
            + np.tril(x, -1)[1])


def contractions(x, y):
    return (np.einsum("ii->i", x[:, :3]) * np.einsum("ij,jk", x, y)[:, 0]
            + np.einsum("ij,ij->i", x, x) + np.einsum("ij,ij", x, x) * y[0, :3])


@pytest.mark.parametrize("f,wrt", [(along_axes, 0), (contractions, (0, 1))],
                         ids=["along_axes", "einsum"])
def test_jacobian_carries_every_direction_through_axis_wise_calls(f, wrt, monkeypatch):
    """jacobian's vector mode: np.flip, roll, cumsum, diff, repeat of a tangent along an
    axis count the axis from the end, and np.einsum gives the directions a label, so
    one pass carries every direction."""
    from s2sad.api import dispatch

    seen = []
    real = dispatch.compiled_forward

    def counted(*a, **k):
        unit, fn = real(*a, **k)
        return unit, fn and (lambda *args: seen.append(1) or fn(*args))

    monkeypatch.setattr(dispatch, "compiled_forward", counted)
    x = np.linspace(-1.0, 1.0, 12).reshape(3, 4) ** 3 + 0.1
    args = (x, np.linspace(0.0, 1.0, 16).reshape(4, 4)) if f is contractions else (x,)
    batched = s2sad.jacobian(f, wrt=wrt, mode="forward")(*args)
    assert len(seen) == 1
    monkeypatch.undo()
    for b, r in zip(*((batched, s2sad.jacobian(f, wrt=wrt)(*args)) if isinstance(wrt, tuple)
                      else ([batched], [s2sad.jacobian(f, wrt=wrt)(*args)]))):
        assert np.allclose(b, r, rtol=1e-12)


def written_diagonal_matrix(v):
    m = np.diag(v)  # (of a vector: a new matrix, which the function may write into)
    m[0, 1] = v[2] * 2.0
    return np.sum(m @ v)


def test_the_matrix_np_diag_makes_of_a_vector_is_a_new_array():
    v = np.array([0.3, -0.5, 0.9])
    assert np.allclose(s2sad.grad(written_diagonal_matrix)(v),
                       central_diff(written_diagonal_matrix, (v,), 0), atol=1e-7)


def of_lists(x, y):
    s = np.sort([x, y, 0.5])
    m = np.median((x, y, 0.1))
    d = np.diff([x, y, x * y])
    c = np.cumprod([x, y])
    t = np.triu([[x, y], [y, x]])
    return s[0] * 2.0 + s[2] + m * d[1] + c[1] * t[0, 1] + np.flip([x, 2.0 * y])[0]


def test_lists_and_tuples_of_numbers_are_arrays_of_their_dtype():
    """np.cumprod([x, y])[1] is a float that carries the derivative (an element of
    an array of unknown dtype was taken for a constant: a zero gradient)."""
    expected = [central_diff(of_lists, (0.7, 0.2), i) for i in (0, 1)]
    for mode in ("reverse", "forward", "tape"):
        got = s2sad.grad(of_lists, wrt=(0, 1), mode=mode)(0.7, 0.2)
        assert np.allclose(got, expected, atol=1e-7), mode


def smoothed(x, k):
    return np.sum(np.convolve(x, k, "same") ** 2) + np.sum(np.correlate(x, k) ** 2)


def test_the_adjoint_of_a_convolution_is_a_correlation_of_the_padded_adjoint():
    """What a person writes: the literal mode folded, no helper, and for 'full' no
    padding at all."""
    text = s2sad.source(smoothed, wrt=(0, 1), example=(np.ones(6), np.ones(3)))
    assert "mode ==" not in text and "np.pad(" in text and "min(x.size, k.size) - 1" in text
    assert "np.correlate(x, " in text and "s2sad.runtime" not in text
    text = s2sad.source(lambda_free_full, wrt=(0, 1), example=(np.ones(6), np.ones(3)))
    assert "np.pad(" not in text and "min(" not in text
    assert "np.correlate(t1_bar, k, \"valid\")" in text, text


def lambda_free_full(x, k):
    return np.sum(np.convolve(x, k) ** 2)


def test_picks_along_an_axis_that_repeat_add_up():
    x = np.array([[0.3, -0.7, 1.1], [0.9, -0.2, 0.6]])
    got = s2sad.grad(lambda_free_picks)(x)
    assert np.allclose(got, [[0.0, 0.0, 3.0], [0.0, 2.0, 1.0]])  # (a place read 3 times: 3)
    text = s2sad.source(lambda_free_picks, example=(x,))
    assert "take_along_axis_bar(" in text


def lambda_free_picks(x):
    return np.sum(np.take_along_axis(x, np.array([[2, 2, 2], [1, 1, 2]]), axis=1))
