"""The engines on array code the compiler differentiates: a product with a plain
matrix on the left (``W @ x``, which NumPy sends to the traced value as the ufunc
np.matmul), ``x.copy()`` and ``np.copy``, and functions of lists of traced arrays
(``np.concatenate``, ``np.stack``, ``np.hstack``, ``np.vstack``), in both engines,
against central differences and the compiler."""

import numpy as np
import pytest

import s2sad
from s2sad.engines import EngineError, dual_grad, dual_jacobian, tape_grad
from tests.helpers import central_diff

ENGINES = [pytest.param(tape_grad, id="tape"), pytest.param(dual_grad, id="dual")]

W = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])
X = np.array([0.7, -0.3, 1.1])
Y = np.array([0.2, 0.9, -0.4])


def plain_matrix_times_traced(W, x):
    return np.sum(np.tanh(W @ x)) + np.sum(x @ W.T)


def copies(x, W):
    y = x.copy()
    return np.sum(y * np.copy(x) * y[1]) + np.sum(W.copy() ** 2)


def concatenated(x, y):
    return np.sum(np.concatenate([x, y]) ** 2) + np.sum(np.concatenate((x, 2.0 * y), axis=0) * X.sum())


def concatenated_with_a_plain_array(x, y):
    return np.sum(np.sin(np.concatenate([x, Y, y])))


def stacked(x, y):
    s = np.stack([x, y], axis=1)  # (3, 2)
    t = np.stack((y, x, X), axis=-1)
    return np.sum(s[:, 0] * s[:, 1]) + np.sum(t ** 3) + np.sum(np.stack([x, y]) @ W.T)


def hstacked_and_vstacked(x, y):
    return np.sum(np.hstack([x, y]) ** 2) + np.sum(np.vstack([x, y, X]) ** 3)


def two_d_parts(A, B):
    return np.sum(np.concatenate([A, B], axis=1) ** 2) + np.sum(np.stack([A, B], axis=0)[1])


CASES = [
    (plain_matrix_times_traced, (W, X)),
    (copies, (X, W)),
    (concatenated, (X, Y)),
    (concatenated_with_a_plain_array, (X, Y)),
    (stacked, (X, Y)),
    (hstacked_and_vstacked, (X, Y)),
    (two_d_parts, (W, W[::-1] * 2.0)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_central_differences(engine, f, args):
    for wrt in [0, 1, (0, 1)]:
        value, grads = engine(f, args, wrt)
        assert value == pytest.approx(f(*args), rel=1e-12)
        grads = grads if isinstance(wrt, tuple) else (grads,)
        for i, g in zip(wrt if isinstance(wrt, tuple) else (wrt,), grads):
            assert np.shape(g) == np.shape(args[i])
            np.testing.assert_allclose(g, central_diff(f, args, i), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_engines_agree_with_the_compiler(f, args):
    compiled = s2sad.grad(f, wrt=(0, 1))(*args)
    for engine in (tape_grad, dual_grad):
        for c, e in zip(compiled, engine(f, args, (0, 1))[1]):
            np.testing.assert_allclose(e, c, rtol=1e-10, atol=1e-12)
    taped = s2sad.grad(f, wrt=(0, 1), mode="tape")(*args)
    for c, e in zip(compiled, taped):
        np.testing.assert_allclose(e, c, rtol=1e-10, atol=1e-12)


def test_dual_jacobian_of_concatenated_outputs():
    _, J = dual_jacobian(lambda x: np.concatenate([x * Y, W @ x]), (X,), 0)
    expected = np.vstack([np.diag(Y), W])
    np.testing.assert_allclose(J, expected, rtol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_of_lists_of_traced_values_is_refused(engine):
    def f(x):
        return np.sum(np.concatenate([x, [x[0], x[1]]]))

    with pytest.raises(EngineError, match="list of lists"):
        engine(f, (X,), 0)


def reductions_of_numbers(x, y):
    return np.sum(0.75 * (x + y)) + np.mean(x * y) + np.max(x) * np.prod(y) + np.std(x) \
        + np.linalg.norm(y)


def test_a_reduction_of_a_number_keeps_its_directions_apart():
    # a number's tangent holds one entry per direction: np.sum of it must not add the
    # directions together (the dual engine gave 1.5 for d/dx np.sum(0.75 * (x + y)))
    want = s2sad.grad(reductions_of_numbers, wrt=(0, 1))(0.3, 0.5)
    for engine in (tape_grad, dual_grad):
        _, got = engine(reductions_of_numbers, [0.3, 0.5], wrt=(0, 1))
        assert np.allclose(got, want, rtol=1e-12), (engine, got, want)


def _through_layers(params, x):
    h = x
    for W in params:
        h = np.tanh(h @ W)
    return np.sum(h)


def test_the_engines_take_a_list_of_arrays():
    """``params = [W1, W2]`` (JAX's stax, a list of layers): the tape and the dual
    engine refused it as not a list of floats."""
    params = [np.full((3, 3), 0.1), np.full((3, 2), 0.2, dtype=np.float32)]
    x = np.ones((2, 3))
    want = s2sad.grad(_through_layers)(params, x)
    for mode in ("tape", "forward"):
        got = s2sad.grad(_through_layers, mode=mode)(params, x)
        assert [g.dtype for g in got] == [np.float64, np.float32]
        assert all(np.allclose(g, w, rtol=1e-6) for g, w in zip(got, want))
    got = dual_grad(_through_layers, (params, x))[1]
    assert all(np.allclose(g, w, rtol=1e-6) for g, w in zip(got, want))
