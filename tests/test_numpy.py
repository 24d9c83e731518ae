"""NumPy programs end to end: gradients against central differences, with the shape
and dtype of each argument."""

import numpy as np
import pytest

import s2sad
import zoo_numpy
from helpers import positions


def numeric(f, args, i, h=1e-6):
    x = args[i]
    if not isinstance(x, np.ndarray):
        up, down = list(args), list(args)
        up[i], down[i] = x + h, x - h
        return (f(*up) - f(*down)) / (2 * h)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        g[k] = (f(*args[:i], up, *args[i + 1:]) - f(*args[:i], down, *args[i + 1:])) / (2 * h)
    return g


def ids(zoo):
    return [f"{f.__name__}-{k}" for k, (f, _, _) in enumerate(zoo)]


@pytest.mark.parametrize("f,args,wrt", zoo_numpy.ZOO, ids=ids(zoo_numpy.ZOO))
def test_numpy_zoo_against_central_differences(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt)(*args)
    got = got if isinstance(wrt, tuple) else (got,)
    for g, i in zip(got, positions(f, wrt)):
        expected = numeric(f, args, i)
        assert type(g) is type(args[i]) or (isinstance(args[i], float) and np.ndim(g) == 0)
        assert np.shape(g) == np.shape(args[i])
        if isinstance(g, np.ndarray):
            assert g.dtype == args[i].dtype
        assert np.allclose(g, expected, rtol=1e-5, atol=1e-7), (i, g, expected)


@pytest.mark.parametrize("f,args,wrt", zoo_numpy.ZOO, ids=ids(zoo_numpy.ZOO))
def test_float32_arguments_get_float32_gradients(f, args, wrt):
    """Also where the function itself computes in float64 (a float64 constant): a
    gradient has its argument's dtype, and a float argument's is a float."""
    args32 = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64
                   else a for a in args)
    got = s2sad.grad(f, wrt=wrt)(*args32)
    got = got if isinstance(wrt, tuple) else (got,)
    for g, i in zip(got, positions(f, wrt)):
        if isinstance(args32[i], np.ndarray):
            assert g.dtype == np.float32 and g.shape == args32[i].shape
            expected = numeric(f, [a.astype(np.float64) if isinstance(a, np.ndarray) else a
                                   for a in args32], i)
            assert np.allclose(g, expected, rtol=1e-3, atol=1e-3)
        else:
            assert type(g) is float


def zero_d(x, w):
    return np.sum(w * x) * x


def test_a_0d_array_gets_a_0d_array():
    g = s2sad.grad(zero_d, wrt=(0, 1))(np.array(0.5), np.ones(3))
    assert isinstance(g[0], np.ndarray) and g[0].shape == () and g[0] == 3.0


def prod_of_matvec(x, w):
    return np.sin(np.prod(w @ x)) + np.prod(x, axis=0).sum()


def test_prod_has_the_right_derivative_at_zeros():
    """np.prod's derivative is the product of the other elements; dividing the
    product by the element gives NaN where an element is zero."""
    x = np.array([0.0, 2.0, 3.0])
    g = s2sad.grad(prod_of_matvec, wrt=0)(x, np.zeros((2, 3)))
    assert np.all(np.isfinite(g))
    assert np.allclose(g, [6.0, 0.0, 0.0])
    t = s2sad.jvp(prod_of_matvec, (x, np.zeros((2, 3))), (np.ones(3), None))[1]
    assert t == pytest.approx(6.0)
    H = s2sad.hessian(lambda_free_prod)(np.array([0.0, 2.0, 3.0]))
    assert np.allclose(H, [[0.0, 3.0, 2.0], [3.0, 0.0, 0.0], [2.0, 0.0, 0.0]])


def lambda_free_prod(x):
    return np.prod(x)


def norm_of_square(x):
    return np.linalg.norm(x ** 2) + np.linalg.norm(x * 0.0, axis=0).sum()


def test_norm_at_zero_has_derivative_zero_not_nan():
    g = s2sad.grad(norm_of_square)(np.zeros(3))
    assert np.array_equal(g, np.zeros(3))


def where_of_a_float(x, s):
    return np.sin(np.where(0.5 > 0.0, s, 0.25)) + np.sum(x)


def test_a_float_gets_a_float_gradient_through_np_where():
    g = s2sad.grad(where_of_a_float, wrt=(0, 1))(np.zeros(2), 0.0)
    assert isinstance(g[1], float) and g[1] == 1.0
