"""Functions a factory makes (stax's ``serial``, ``Dense``, autograd's
``make_nn_funs``), put in place where a container of parameters is passed to them:
the variables they read from their closure are read by names of their own, and a
loop over a tuple or list of functions (``for fun, p in zip(apply_funs, params)``)
is unrolled one function at a time. The derivative is built again when a closure's
variable or the sequence of functions is another."""

import math

import numpy as np
import pytest

import s2sad
from helpers import tree_numeric_grad

rng = np.random.default_rng(11)


def _relu(x):
    return np.maximum(x, 0.0)


def elementwise(fun):
    def init_fun(shape):
        return shape, ()

    def apply_fun(params, inputs):
        return fun(inputs)

    return init_fun, apply_fun


def dense(scale=1.0):
    def init_fun(shape):
        return shape, ()

    def apply_fun(params, inputs):
        W, b = params
        return scale * (inputs @ W) + b

    return init_fun, apply_fun


def serial(*layers):
    init_funs, apply_funs = zip(*layers)

    def apply_fun(params, inputs):
        for fun, param in zip(apply_funs, params):
            inputs = fun(param, inputs)
        return inputs

    return init_funs, apply_fun


def _params(*shapes):
    return [(rng.normal(size=s), rng.normal(size=s[1])) if s else () for s in shapes]


def _check(loss, params, *rest, rtol=1e-6):
    g = s2sad.grad(loss)(params, *rest)
    want = tree_numeric_grad(loss, (params,) + rest, 0)
    for got, expect in zip(g, want):
        for a, b in zip(got, expect):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-8)
    return g


def test_a_stax_network_of_closures():
    """`serial`'s `apply_funs` and each layer's `fun` and `scale` are closure
    variables; the caller has none of those names (or has `fun` for another thing)."""
    _, net = serial(dense(0.5), elementwise(_relu), dense(), elementwise(np.tanh), dense())

    def loss(params, x, y):
        return np.mean((net(params, x) - y) ** 2)

    def loss_shadowing(params, x, y):
        fun = 3.0  # (the caller's own `fun`: another value than the layer's)
        return np.mean((net(params, x) - y) ** 2) * fun

    params = _params((3, 4), (), (4, 3), (), (3, 2))
    x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    g = _check(loss, params, x, y)
    assert isinstance(g, list) and g[1] == () and isinstance(g[0], tuple)
    g3 = _check(loss_shadowing, params, x, y)
    np.testing.assert_allclose(g3[2][0], 3.0 * g[2][0], rtol=1e-12)
    value, tangent = s2sad.jvp(loss, (params, x, y), (params, np.zeros_like(x),
                                                      np.zeros_like(y)))
    assert value == pytest.approx(loss(params, x, y), rel=1e-12)
    assert tangent == pytest.approx(sum(np.sum(a * b) for p, q in zip(g, params)
                                        for a, b in zip(p, q)), rel=1e-9)


def test_another_network_builds_the_derivative_again():
    """The function put in place is guarded, and so is each closure variable its
    derivative reads (by identity), and the sequence it loops over (by value)."""
    _, net = serial(dense(), elementwise(np.tanh), dense())

    def loss(params, x):
        return np.sum(net(params, x) ** 2)

    params = _params((3, 4), (), (4, 2))
    x = rng.normal(size=(5, 3))
    grad = s2sad.grad(loss)
    first = grad(params, x)
    _, net = serial(dense(2.0), elementwise(_relu), dense())  # (read by `loss`)
    np.testing.assert_allclose(grad(params, x)[0][0],
                               tree_numeric_grad(loss, (params, x), 0)[0][0], rtol=1e-6)
    assert not np.allclose(grad(params, x)[0][0], first[0][0])


def test_a_closure_variable_rebound_builds_the_derivative_again():
    def make():
        scale = 1.0

        def layer(p, x):
            return scale * np.sum(np.tanh(x @ p["W"]))

        def set_scale(s):
            nonlocal scale
            scale = s

        return layer, set_scale

    layer, set_scale = make()

    def loss(p, x):
        return layer(p, x)

    p = {"W": rng.normal(size=(3, 2))}
    x = rng.normal(size=(4, 3))
    grad = s2sad.grad(loss)
    one = grad(p, x)["W"]
    set_scale(2.5)
    np.testing.assert_allclose(grad(p, x)["W"], 2.5 * one, rtol=1e-12)
    set_scale(np.float64(0.5))
    np.testing.assert_allclose(grad(p, x)["W"], 0.5 * one, rtol=1e-12)


LAYERS = [np.tanh, _relu, np.sin]


def test_a_global_list_of_functions_changed_in_place():
    def loss(ps, x):
        for act, p in zip(LAYERS, ps):
            x = act(x @ p)
        return np.sum(x)

    ps = [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)]
    x = rng.normal(size=(2, 3))
    grad = s2sad.grad(loss)
    for acts in ([np.tanh, _relu, np.sin], [np.sin, np.tanh, np.cos]):
        LAYERS[:] = acts  # (the same list: the derivative is built for its items)
        want = tree_numeric_grad(loss, (ps, x), 0)
        for a, b in zip(grad(ps, x), want):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
    LAYERS[:] = [np.tanh, _relu, np.sin]


def test_enumerate_and_reversed_over_a_tuple_of_functions():
    acts = (math.sin, math.tanh, math.exp)

    def loss(ws, x):
        for i, f in enumerate(acts):
            x = f(ws[i] * x) + i
        for f in reversed(acts):
            x = f(0.1 * x)
        return x

    ws = [0.3, -0.2, 0.1]
    g = s2sad.grad(loss)(ws, 0.7)
    want = tree_numeric_grad(loss, (ws, 0.7), 0)
    np.testing.assert_allclose(g, want, rtol=1e-6)


def test_a_list_of_the_pairs_of_functions_and_parameters():
    """``list(zip(LAYERS, ps))``, looped over as it is, reversed, or kept in a name
    that loops read: the loop over the functions, unrolled as the ``zip`` would be."""
    def named(ps, x):
        pairs = list(zip(LAYERS, ps))
        for act, p in pairs:
            x = act(x @ p)
        for act, p in reversed(pairs):
            x = act(x @ p) * 0.5
        return np.sum(x)

    def backwards(ps, x):
        for act, p in reversed(list(zip(LAYERS, ps))):
            x = act(x @ p)
        return np.sum(x)

    ps = [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)]
    x = rng.normal(size=(2, 3))
    for loss in (named, backwards):
        for mode in ("reverse", "forward"):
            got = s2sad.grad(loss, mode=mode)(ps, x)
            for a, b in zip(got, tree_numeric_grad(loss, (ps, x), 0)):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


def test_a_global_the_caller_names_otherwise():
    """`_scaled` reads the global `SCALE`; its caller has a local `SCALE` of its own."""
    def loss(p, x):
        SCALE = 10.0  # noqa: N806
        return _scaled(p, x) + SCALE * 0.0

    p = {"w": np.array([0.3, -0.4])}
    x = np.array([1.0, 2.0])
    assert s2sad.grad(loss)(p, x)["w"] == pytest.approx(SCALE * x)


SCALE = 0.25


def _scaled(p, x):
    return SCALE * np.sum(p["w"] * x)


def test_the_emitted_code_names_what_it_holds():
    _, net = serial(dense(0.5), elementwise(np.tanh))

    def loss(params, x):
        return np.sum(net(params, x))

    params = _params((3, 2), ())
    text = s2sad.source(loss, example=(params, rng.normal(size=(4, 3))))
    assert "scale_apply_fun" in text and "# held where the derivative was built" in text
    assert "from numpy import tanh as fun_apply_fun" in text


def test_a_loop_variable_that_takes_a_function_and_more_is_refused():
    fs = (np.tanh, np.sin)

    def nested(ps, x):
        for (f, c), p in zip(zip(fs, (1.0, 2.0)), ps):
            x = f(x @ p) * c
        return np.sum(x)

    ps = [np.eye(2), np.eye(2)]
    with pytest.raises(s2sad.S2SADError, match="sequence of functions") as info:
        s2sad.grad(nested)(ps, np.ones(2))
    assert "for (f, c), p in" in str(info.value)


def test_a_closure_function_put_in_place_rebound_builds_the_derivative_again():
    """`layer` is a closure variable of `loss`; the flat function made for the dict
    reads it no more once it is put in place, and was kept, with its derivative,
    after `layer` was given another function."""
    def layer(p, x):
        return np.sum(np.tanh(x @ p["W"]))

    def loss(p, x):
        return layer(p, x)

    p = {"W": np.full((3, 2), 0.1)}
    x = np.ones((2, 3))
    grad = s2sad.grad(loss)
    np.testing.assert_allclose(grad(p, x)["W"], tree_numeric_grad(loss, (p, x), 0)["W"],
                               rtol=1e-6)

    def layer(p, x):  # noqa: F811 (the closure variable, given another function)
        return np.sum(np.sin(x @ p["W"]))

    np.testing.assert_allclose(grad(p, x)["W"], tree_numeric_grad(loss, (p, x), 0)["W"],
                               rtol=1e-6)


def test_a_helper_further_down_the_file_put_in_place():
    """The flat function's code has the lines of `_later`, below its caller: its
    source is still the caller's own lines."""
    def loss(p, x):
        return _later(p, x) * 2.0

    p = {"w": np.array([0.3, -0.4])}
    assert s2sad.grad(loss)(p, np.array([1.0, 2.0]))["w"] == pytest.approx([2.0, 4.0])
    assert s2sad.jacobian(loss)(p, np.array([1.0, 2.0]))["w"] == pytest.approx([2.0, 4.0])


def _later(p, x):
    return np.sum(p["w"] * x)
