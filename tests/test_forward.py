"""Forward mode end to end: every case of the reverse-mode suites through `jvp`,
checked against the reverse gradient (<grad, u> == jvp along u) and the primal."""

import random

import numpy as np
import pytest

import s2sad
import zoo
import zoo_loops
import zoo_numpy
from helpers import close, numeric_grad, positions

CASES = [(f, args, wrt) for f, args, wrt in zoo.ZOO + zoo_loops.ZOO + zoo_numpy.ZOO]
IDS = [f"{f.__module__}.{f.__name__}-{k}" for k, (f, _, _) in enumerate(CASES)]


def direction(x, rng):
    if isinstance(x, np.ndarray):
        return np.asarray([rng.uniform(-1, 1) for _ in range(x.size)]).reshape(x.shape)
    if isinstance(x, list):
        return [rng.uniform(-1, 1) for _ in x]
    return rng.uniform(-1, 1)


def inner(a, b):
    if isinstance(a, (list, tuple)):
        return sum(inner(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_jvp_matches_the_reverse_gradient(f, args, wrt):
    rng = random.Random(7)
    where = positions(f, wrt)
    tangents = [direction(a, rng) if i in where else None for i, a in enumerate(args)]
    out, out_dot = s2sad.jvp(f, tuple(args), tuple(tangents))
    expected_out = f(*args)
    assert close(out, expected_out, rtol=1e-12, atol=1e-14) or out == expected_out
    grads = s2sad.grad(f, wrt=wrt if isinstance(wrt, tuple) else (wrt,))(*args)
    expected = sum(inner(g, tangents[i]) for g, i in zip(grads, where))
    assert np.ndim(out_dot) == 0
    assert abs(out_dot - expected) <= 1e-9 * (1 + abs(expected)), (out_dot, expected)


@pytest.mark.parametrize("f,args,wrt", CASES[:40], ids=IDS[:40])
def test_grad_in_forward_mode(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt, mode="forward")(*args)
    assert close(got, numeric_grad(f, args, wrt), rtol=1e-5, atol=1e-6)


def test_derivative_of_a_scalar_function():
    d = s2sad.derivative(zoo.quadratic)
    assert d(5.0) == 13.0
    assert d(2) == 7.0


def test_jvp_of_an_array_output():
    def f(x):
        return np.sin(x) * x

    x = np.array([0.1, 0.5, 0.9])
    u = np.array([1.0, -1.0, 0.5])
    out, out_dot = s2sad.jvp(zoo_numpy.elementwise_out, (x,), (u,))
    assert np.allclose(out_dot, (np.cos(x) * x + np.sin(x)) * u)


def test_jvp_refusals():
    with pytest.raises(s2sad.S2SADError, match="one tangent per primal"):
        s2sad.jvp(zoo.quadratic, (1.0,), ())
    with pytest.raises(s2sad.S2SADError, match="shape"):
        s2sad.jvp(zoo_numpy.elementwise_out, (np.ones(3),), (np.ones(2),))
    with pytest.raises(s2sad.S2SADError, match="as a tuple"):
        s2sad.jvp(zoo.quadratic, 1.0, 1.0)


def _all_hidden_states(U, W, h0, xs):
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(W @ x + U @ hs[-1]))
    return sum(np.sum(h ** 2) for h in hs[1:])


def test_zero_tangent_of_a_list_of_arrays_has_their_shapes():
    """``hs = [h0]`` with `h0` held fixed, then ``U @ hs[-1]``: the list's zero
    tangent holds arrays of its elements' shapes, which a matrix product takes (it
    was ``[0.0] * len(hs)``, and the product of a 0-d tangent raised)."""
    rng = np.random.default_rng(3)
    U, W = rng.normal(size=(2, 2)), rng.normal(size=(2, 3))
    h0, xs = np.zeros(2), [rng.normal(size=3) for _ in range(3)]
    u = rng.normal(size=(2, 2))
    y, y_dot = s2sad.jvp(_all_hidden_states, (U, W, h0, xs), (u, None, None, None))
    assert y == pytest.approx(_all_hidden_states(U, W, h0, xs))
    g = s2sad.grad(_all_hidden_states)(U, W, h0, xs)
    assert y_dot == pytest.approx(float(np.sum(g * u)))
    assert np.allclose(g, numeric_grad(_all_hidden_states, (U, W, h0, xs), 0), rtol=1e-5)


_HELD = np.array([[1.0, -2.0], [0.5, 3.0]])


def _stacked(x):
    return np.sum(np.stack([_HELD, x]) ** 2)


def _joined(x):
    return np.sum(np.concatenate((x, _HELD)) ** 2)


def _rows(x):
    return np.sum(np.array([_HELD[0], x[0]]) ** 2)


def _appended(x):
    parts = []
    parts.append(_HELD)
    parts.append(x * 2.0)
    return np.sum(np.vstack(parts) ** 2)


def _made_with_it(x):
    parts = [_HELD]  # (a list made here, holding a global array: appending is fine)
    parts.append(2.0 * x)
    return np.sum(np.hstack(parts) ** 2)


@pytest.mark.parametrize("f", [_stacked, _joined, _rows, _appended, _made_with_it])
def test_a_global_array_in_a_list_with_arrays_that_carry_tangents(f):
    """Its tangent in the list is an array of its shape, not 0.0 (which NumPy cannot
    stack with the others: ValueError in the derivative's code)."""
    x = np.array([[0.3, -0.7], [1.1, 0.2]])
    want = s2sad.grad(f)(x)
    np.testing.assert_allclose(want, numeric_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(f, mode="forward")(x), want, rtol=1e-12)
    assert s2sad.jvp(f, (x,), (np.ones_like(x),))[1] == pytest.approx(np.sum(want))
    h = s2sad.hessian(f)(x)
    assert h.shape == (2, 2, 2, 2) and np.all(np.isfinite(h))
