"""Arguments whose axes happen to have equal lengths: a square matrix beside a
vector, (d, 1) beside (1, d), (d, d, d) beside (d,). The compiled code is
specialised on which axes are equal (`kinds.shape_pattern`), so two arrays of
different meaning can have the same symbolic shape: here the mean's term of
``multivariate_normal.logpdf`` of d points once lost its sum over the points
(a (d, d) gradient for a (d,) mean), because the result had the mean's shape, and
its rule solved points (n, d, d) as a stack of d matrices (a wrong derivative
where the lengths coincide, an error where they do not).
Every program is checked against central differences in every entry point:
grad, value_and_grad, vjp, jvp, grad in forward mode, the tape engine, hessian
and jacobian."""

import numpy as np
import pytest

import s2sad
from helpers import central_diff, close

stats = pytest.importorskip("scipy.stats")


def mvn_points(X, m, C):
    return np.sum(stats.multivariate_normal.logpdf(X, m, C))


def mvn_weighted(X, m, C):
    return np.sum(stats.multivariate_normal.logpdf(X, m, C) * m[0])


def norm_points(X, b):
    return np.sum(stats.norm.logpdf(X, b, 1.5 + b * b))


def centred(X, m):
    return np.sum((X - m) ** 2 * m)


def scaled(X, b):
    return np.sum(np.sin(X * b) + X / (1.0 + b * b))


def rows(X, b):
    return np.sum(np.cos(X + b[None, :] * b))


def products(X, b):
    return np.sum(np.tanh(X @ b) * b) + np.sum(np.dot(X, b) ** 2) + np.sum(X.T * b)


def reductions(X, b):
    return np.sum(np.sum(X * b, axis=0) * b) \
        + np.sum(np.mean(X, axis=-1, keepdims=True) * b) + np.sum(np.max(X * b, axis=-1))


def looped(X, b):
    t = 0.0
    y = b
    for i in range(3):
        y = np.sum(np.sin(X * y), axis=-1) * 0.5
        t = t + np.sum(y * b) + np.sum(X * b) * 0.1
    return t


def picked(X, b):
    z = np.where(X > 0.7, X * b, b * b)
    return np.sum(z * z) + np.sum(np.maximum(X, b) * b)


SQUARE = (3, 3)
PAIRS = {  # program -> the shapes of its two arguments
    mvn_points: [(SQUARE, (3,)), ((2, 2), (2,)), ((3, 3, 3), (3,)), ((3,), (3,)),
                 ((4, 3), (3,))],
    mvn_weighted: [(SQUARE, (3,)), ((3, 3, 3), (3,))],
    norm_points: [(SQUARE, (3,)), (SQUARE, (3, 1)), ((3, 1), (1, 3)), ((3, 3, 3), (3,))],
    centred: [(SQUARE, (3,)), (SQUARE, (3, 1)), ((3, 1), (1, 3)), ((1, 3), (3, 1)),
              ((3, 3, 3), (3,)), ((3, 3, 3), (3, 3))],
    scaled: [(SQUARE, (3,)), (SQUARE, (1, 3)), ((3, 1), (1, 3)), ((3, 3, 3), (3, 1))],
    rows: [(SQUARE, (3,)), ((3, 3, 3), (3,)), ((1, 3), (3,))],
    products: [(SQUARE, (3,)), ((2, 2), (2,))],
    reductions: [(SQUARE, (3,)), (SQUARE, (3, 1)), ((3, 3, 3), (3,)), ((3, 1), (1, 3))],
    looped: [(SQUARE, (3,)), ((3, 3, 3), (3,)), (SQUARE, (3, 1))],
    picked: [(SQUARE, (3,)), ((3, 1), (1, 3)), ((3, 3, 3), (3,))],
}
CASES = [(f, sx, sb) for f, pairs in PAIRS.items() for sx, sb in pairs]
IDS = [f"{f.__name__}-{sx}-{sb}" for f, sx, sb in CASES]


def point(shape, seed):
    return np.random.default_rng(seed).uniform(0.2, 1.2, shape)


def arguments(f, sx, sb, seed=1):
    """The points of shapes `sx` and `sb`, and for a multivariate normal a
    covariance matrix beside them (an argument, so its shape is known)."""
    args = (point(sx, seed), point(sb, seed + 1))
    if f in (mvn_points, mvn_weighted):
        a = point(sb + sb, seed + 2)
        args += (a @ a.T + sb[0] * np.eye(sb[0]),)
    return args


def numeric(f, args):
    return tuple(central_diff(f, args, i) for i in range(len(args)))


def assert_gradient(got, want):
    assert [np.shape(g) for g in got] == [np.shape(w) for w in want], (got, want)
    assert close(tuple(got), want, 1e-5, 1e-7), (got, want)


@pytest.mark.parametrize("f,sx,sb", CASES, ids=IDS)
def test_reverse_entry_points(f, sx, sb):
    args = arguments(f, sx, sb)
    want = numeric(f, args)
    every = tuple(range(len(args)))
    assert_gradient(s2sad.grad(f, wrt=every)(*args), want)
    assert_gradient((s2sad.grad(f, wrt=1)(*args),), want[1:2])
    value, got = s2sad.value_and_grad(f, wrt=every)(*args)
    assert value == pytest.approx(f(*args))
    assert_gradient(got, want)
    out, pullback = s2sad.vjp(f, *args)
    assert_gradient(pullback(2.0), tuple(2.0 * w for w in want))


@pytest.mark.parametrize("f,sx,sb", CASES, ids=IDS)
def test_forward_entry_points(f, sx, sb):
    args = arguments(f, sx, sb)
    want = numeric(f, args)
    tangents = tuple(a - 0.7 for a in arguments(f, sx, sb, seed=5))
    value, tangent = s2sad.jvp(f, args, tangents)
    expect = sum(float(np.sum(w * t)) for w, t in zip(want, tangents))
    assert float(tangent) == pytest.approx(expect, rel=1e-5, abs=1e-7)
    every = tuple(range(len(args)))
    assert_gradient(s2sad.grad(f, wrt=every, mode="forward")(*args), want)
    assert_gradient(s2sad.grad(f, wrt=every, mode="tape")(*args), want)


@pytest.mark.parametrize("f,sx,sb", CASES, ids=IDS)
def test_hessian(f, sx, sb):
    args = arguments(f, sx, sb)
    h = 1e-4

    def gradient(b):  # (central differences of the function itself)
        return central_diff(f, (args[0], b, *args[2:]), 1, h=h)

    want = np.zeros(sb + sb)
    for k in np.ndindex(sb):
        up, down = args[1].copy(), args[1].copy()
        up[k] += h
        down[k] -= h
        want[(Ellipsis,) + k] = (gradient(up) - gradient(down)) / (2 * h)
    got = s2sad.hessian(f, wrt=1)(*args)
    assert np.shape(got) == sb + sb
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4), (got, want)


def mvn_values(X, m, C):
    return stats.multivariate_normal.logpdf(X, m, C) * m[-1]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("d", [2, 3])
def test_jacobian_of_values_at_square_points(mode, d):
    args = arguments(mvn_points, (d, d), (d,), seed=5)
    got = s2sad.jacobian(mvn_values, wrt=1, mode=mode)(*args)
    want = np.stack([central_diff(lambda *a, j=j: mvn_values(*a)[j], args, 1)
                     for j in range(d)])
    assert np.shape(got) == (d, d) and np.allclose(got, want, rtol=1e-5, atol=1e-7)


def test_one_gradient_object_across_square_and_oblong_points():
    """Square points after oblong ones and before them: each call's pattern of
    equal lengths picks its own specialisation."""
    grad = s2sad.grad(mvn_points, wrt=(0, 1))
    for sx in [SQUARE, (4, 3), SQUARE, (5, 5), (4, 3)]:
        args = arguments(mvn_points, sx, sx[-1:], seed=7)
        assert_gradient(grad(*args), numeric(mvn_points, args)[:2])

