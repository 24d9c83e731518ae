"""Edge cases of the forward-mode entry points (`jvp`, `derivative`,
`grad(mode="forward")`, `jacobian`, `hessian`, `hvp`, ``grad(grad(f))``): keyword
and keyword-only arguments, and derivatives of the functions s2sad makes."""

import math
import os

import numpy as np
import pytest

import s2sad
from helpers import central_diff
from s2sad import S2SADError


def scaled(x, *, s=2.0):
    return s * x * x


def scaled_no_default(x, *, s):
    return s * x * x


def scaled_keyword(x, s=2.0):
    return s * x * x


def weighted(x, *, w):
    return np.sum(w * x ** 3) + x[0] * x[-1]


def spread(x, *, w, shift=0.0):
    return w * x ** 3 + np.array([x[-1], 0.0, x[0]]) + shift


def spread_dict(p, *, w):
    return {"y": w * p["x"] ** 3, "end": p["x"][0] * p["x"][-1]}


def with_aux(x, y, *, s=2.0):
    return np.sum(np.sin(x) * s * y), {"s": s}


def with_aux_list(xs, *, s=2.0):
    return np.sum(np.sin(xs[0]) * s), s


def central(g, x, h=1e-6):
    return central_diff(g, (x,), 0, h)


# ------------------------------------------------- keyword-only arguments


@pytest.mark.parametrize("f", [scaled, scaled_no_default, scaled_keyword])
def test_grad_in_forward_mode_uses_the_keyword_arguments(f):
    assert s2sad.grad(f, mode="forward")(3.0, s=5.0) == 30.0
    assert s2sad.value_and_grad(f, mode="forward")(3.0, s=5.0) == (45.0, 30.0)
    assert s2sad.grad(f, mode="forward")(3.0, s=5.0) == s2sad.grad(f)(3.0, s=5.0)


@pytest.mark.parametrize("f", [scaled, scaled_no_default, scaled_keyword])
def test_grad_in_forward_mode_with_respect_to_a_keyword_parameter(f):
    assert s2sad.grad(f, wrt="s", mode="forward")(3.0, s=5.0) == 9.0
    assert s2sad.grad(f, wrt=("x", "s"), mode="forward")(3.0, s=5.0) == (30.0, 9.0)


def test_the_default_of_a_keyword_only_parameter_still_applies():
    assert s2sad.grad(scaled, mode="forward")(3.0) == 12.0
    assert s2sad.derivative(scaled)(3.0) == 12.0
    assert s2sad.jvp(scaled, (3.0,), (1.0,)) == (18.0, 12.0)


@pytest.mark.parametrize("f", [scaled, scaled_no_default, scaled_keyword])
def test_derivative_passes_keyword_arguments_through(f):
    assert s2sad.derivative(f)(3.0, s=5.0) == 30.0
    assert s2sad.derivative(f)(3, s=5.0) == 30.0


def test_derivative_passes_positional_arguments_through():
    assert s2sad.derivative(scaled_keyword)(3.0, 5.0) == 30.0


def test_jvp_without_a_keyword_only_value_says_why():
    with pytest.raises(S2SADError, match="missing a required argument: 's'") as e:
        s2sad.jvp(scaled_no_default, (3.0,), (1.0,))
    assert "keyword-only" in e.value.hint
    assert e.value.filename == __file__


@pytest.mark.parametrize("mode", ["forward", "auto"])
@pytest.mark.parametrize("f", [scaled, scaled_no_default, scaled_keyword])
def test_jacobian_uses_the_keyword_arguments(f, mode):
    assert s2sad.jacobian(f, mode=mode)(3.0, s=5.0) == 30.0
    assert s2sad.jacobian(f, wrt=(0, "s"), mode=mode)(3.0, s=5.0) == (30.0, 9.0)


def test_jacobian_of_an_array_function_with_a_keyword_only_array():
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    J = s2sad.jacobian(weighted, mode="forward")(x, w=w)
    want = 3 * w * x ** 2 + np.array([x[-1], 0.0, x[0]])
    assert np.allclose(J, want, rtol=1e-12)
    assert np.allclose(s2sad.jacobian(weighted)(x, w=w), want, rtol=1e-12)


@pytest.mark.parametrize("f", [scaled, scaled_no_default, scaled_keyword])
def test_jacobian_in_reverse_mode_passes_keyword_only_arguments_by_keyword(f):
    assert s2sad.jacobian(f, mode="reverse")(3.0, s=5.0) == 30.0
    assert s2sad.jacobian(f, wrt=0, mode="reverse")(3.0, s=5.0) == 30.0


def test_jacobian_in_reverse_mode_of_an_array_function_with_keyword_only_arrays():
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    want = np.diag(3 * w * x ** 2) + np.array([[0, 0, 1.0], [0, 0, 0], [1.0, 0, 0]])
    assert np.allclose(s2sad.jacobian(spread, mode="reverse")(x, w=w), want, rtol=1e-12)
    assert np.allclose(s2sad.jacobian(spread, mode="reverse")(x, w=w, shift=4.0), want,
                       rtol=1e-12)


def test_jacobian_in_reverse_mode_of_containers_with_keyword_only_arguments():
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    J = s2sad.jacobian(spread_dict, mode="reverse")({"x": x}, w=w)
    F = s2sad.jacobian(spread_dict, mode="forward")({"x": x}, w=w)
    assert set(J) == {"y", "end"}
    for k in J:
        assert np.allclose(J[k]["x"], F[k]["x"], rtol=1e-12)
    assert np.allclose(J["y"]["x"], np.diag(3 * w * x ** 2), rtol=1e-12)


def test_jacobian_in_reverse_mode_refuses_a_keyword_only_wrt_clearly():
    with pytest.raises(S2SADError, match="keyword-only") as e:
        s2sad.jacobian(scaled, wrt="s", mode="reverse")(3.0, s=5.0)
    assert 'mode="forward"' in e.value.hint
    assert s2sad.jacobian(scaled, wrt="s")(3.0, s=5.0) == 9.0


def test_has_aux_passes_keyword_only_arguments_by_keyword():
    x = np.array([0.5, -1.0, 2.0])
    g, aux = s2sad.grad(with_aux, has_aux=True)(x, 2.0, s=3.0)
    assert np.allclose(g, 3.0 * 2.0 * np.cos(x), rtol=1e-12) and aux == {"s": 3.0}
    (value, aux), (gx, gy) = s2sad.value_and_grad(with_aux, has_aux=True, wrt=(0, 1))(
        x, 2.0, s=3.0)
    assert value == pytest.approx(np.sum(np.sin(x)) * 6.0) and aux == {"s": 3.0}
    assert gy == pytest.approx(np.sum(np.sin(x)) * 3.0)
    g, aux = s2sad.grad(with_aux, has_aux=True)([x][0], 2.0)
    assert np.allclose(g, 2.0 * 2.0 * np.cos(x), rtol=1e-12) and aux == {"s": 2.0}
    g, aux = s2sad.grad(with_aux_list, has_aux=True)([x, x], s=3.0)
    assert np.allclose(g[0], 3.0 * np.cos(x), rtol=1e-12) and aux == 3.0
    assert np.allclose(g[1], 0.0) and isinstance(g, list)
    with pytest.raises(S2SADError, match="`s` is keyword-only"):
        s2sad.grad(with_aux, has_aux=True, wrt="s")


@pytest.mark.parametrize("f", [scaled, scaled_no_default, scaled_keyword])
def test_second_derivatives_use_the_keyword_arguments(f):
    assert s2sad.hessian(f)(3.0, s=5.0) == 10.0
    assert s2sad.hvp(f)(3.0, 1.0, s=5.0) == 10.0
    assert s2sad.grad(s2sad.grad(f))(3.0, s=5.0) == 10.0
    H = s2sad.hessian(f, wrt=("x", "s"))(3.0, s=5.0)
    assert H == ((10.0, 6.0), (6.0, 0.0))
    assert s2sad.grad(s2sad.grad(f), wrt="s")(3.0, s=5.0) == 6.0


def test_second_derivatives_of_an_array_function_with_a_keyword_only_array():
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    want = np.diag(6 * w * x) + np.array([[0, 0, 1.0], [0, 0, 0], [1.0, 0, 0]])
    assert np.allclose(s2sad.hessian(weighted)(x, w=w), want, rtol=1e-12)
    v = np.array([1.0, -2.0, 0.5])
    assert np.allclose(s2sad.hvp(weighted)(x, v, w=w), want @ v, rtol=1e-12)
    # against central differences of the reverse gradient
    g = s2sad.grad(weighted)
    for j in range(3):
        e = np.eye(3)[j]
        column = central(lambda t: g(x + t * e, w=w), 0.0)
        assert np.allclose(column, want[:, j], rtol=1e-6, atol=1e-6)


def test_hvp_refuses_a_direction_of_the_wrong_shape():
    x = np.array([0.5, -1.0, 2.0])
    with pytest.raises(S2SADError, match="v has shape"):
        s2sad.hvp(weighted)(x, np.ones(2), w=x)


def test_bad_arguments_get_a_clear_error_at_the_def():
    with pytest.raises(S2SADError, match="do not fit") as e:
        s2sad.hessian(scaled_no_default)(3.0)
    assert e.value.filename == __file__
    with pytest.raises(S2SADError, match="do not fit"):
        s2sad.grad(scaled, mode="forward")(3.0, t=1.0)
    with pytest.raises(s2sad.IntegerArgumentError):
        s2sad.grad(scaled, mode="forward")(3)


# ---------------------------- derivatives of the functions s2sad makes


def wave(x):
    return math.sin(x) * x


WAVE_LINE = wave.__code__.co_firstlineno


@pytest.mark.parametrize("make", [
    lambda: s2sad.derivative(s2sad.derivative(wave)),
    lambda: s2sad.derivative(s2sad.grad(wave)),
    lambda: s2sad.hessian(s2sad.grad(wave)),
    lambda: s2sad.hvp(s2sad.grad(s2sad.grad(wave))),
    lambda: s2sad.jacobian(s2sad.derivative(wave)),
    lambda: s2sad.hessian(s2sad.hessian(wave)),
    lambda: s2sad.jacobian(s2sad.grad(wave, mode="forward")),
], ids=["derivative-derivative", "derivative-grad", "hessian-grad", "hvp-grad-grad",
        "jacobian-derivative", "hessian-hessian", "jacobian-forward-grad"])
def test_a_derivative_of_a_derivative_names_the_users_function(make):
    with pytest.raises(S2SADError) as e:
        make()(1.0)
    assert e.value.filename == __file__ and e.value.lineno == WAVE_LINE, str(e.value)
    assert "wave" in e.value.message
    assert "s2sad.hessian(f)" in e.value.hint and "s2sad.grad(s2sad.grad(f))" in e.value.hint


def test_jvp_of_a_derivative_names_the_users_function():
    with pytest.raises(S2SADError) as e:
        s2sad.jvp(s2sad.derivative(wave), (1.0,), (1.0,))
    assert e.value.filename == __file__ and e.value.lineno == WAVE_LINE


def test_a_third_derivative_is_refused_without_pointing_into_s2sad():
    with pytest.raises(S2SADError) as e:
        s2sad.grad(s2sad.grad(s2sad.grad(wave)))(1.0)
    assert os.path.join("s2sad", "api", "forward.py") not in str(e.value)
    assert e.value.filename is None or e.value.filename == __file__


def test_second_derivatives_still_work():
    d2 = s2sad.grad(s2sad.grad(wave))
    assert math.isclose(d2(1.0), 2 * math.cos(1.0) - math.sin(1.0), rel_tol=1e-12)
    assert math.isclose(s2sad.hessian(wave)(1.0), d2(1.0), rel_tol=1e-15)


# ------------------------------------------------- a list of arrays as an argument


def mlp(params, x):
    W, b = params
    return np.sum(np.tanh(W @ x + b) ** 2) + np.sum(b * b) * np.sum(W)


def scaled_list(ps, x):
    a, c = ps
    return a * x + c * c * x


def vector_out(params, x):
    W, b = params
    return np.tanh(W @ x + b)


def _params(dtype=float):
    W = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], dtype=dtype)
    b = np.array([0.2, -0.1], dtype=dtype)
    return [W, b], np.array([0.7, -0.3, 0.2], dtype=dtype)


def _central_list(f, params, rest, k, h=1e-6):
    """d f / d params[k] by central differences, an array of params[k]'s shape."""
    out = np.zeros(np.shape(params[k]))
    for i in np.ndindex(out.shape):
        up = [np.array(p, dtype=float) for p in params]
        down = [np.array(p, dtype=float) for p in params]
        up[k][i] += h
        down[k][i] -= h
        out[i] = (np.asarray(f(up, *rest)) - np.asarray(f(down, *rest))).sum() / (2 * h)
    return out


def _same_structure(got, like):
    assert type(got) is list and len(got) == len(like)
    for g, p in zip(got, like):
        assert type(g) is type(p) and np.shape(g) == np.shape(p) and g.dtype == p.dtype


def test_a_list_of_arrays_in_forward_mode_is_a_list_of_gradients():
    params, x = _params()
    expected = s2sad.grad(mlp)(params, x)
    for k in range(2):
        assert np.allclose(expected[k], _central_list(mlp, params, (x,), k), atol=1e-8)
    got = s2sad.grad(mlp, mode="forward")(params, x)
    _same_structure(got, params)
    assert all(np.allclose(g, e, rtol=1e-12, atol=1e-14) for g, e in zip(got, expected))
    value, got = s2sad.value_and_grad(mlp, mode="forward")(params, x)
    assert value == mlp(params, x)
    assert all(np.allclose(g, e, rtol=1e-12, atol=1e-14) for g, e in zip(got, expected))
    # both parameters
    got = s2sad.grad(mlp, wrt=(0, 1), mode="forward")(params, x)
    assert np.allclose(got[1], s2sad.grad(mlp, wrt=1)(params, x), rtol=1e-12)
    # a list of floats stays a list of floats
    assert s2sad.grad(scaled_list, mode="forward")([1.0, 2.0], 3.0) == [3.0, 12.0]


def test_jvp_takes_a_list_of_tangents_for_a_list_of_arrays():
    params, x = _params()
    dots = [np.full((2, 3), 0.5), np.array([1.0, -1.0])]
    value, tangent = s2sad.jvp(mlp, (params, x), (dots, None))
    assert value == mlp(params, x)
    g = s2sad.grad(mlp)(params, x)
    assert tangent == pytest.approx(np.sum(g[0] * dots[0]) + np.sum(g[1] * dots[1]),
                                    rel=1e-12)
    with pytest.raises(S2SADError, match=r"\[\(2, 3\), \(3,\)\]"):
        s2sad.jvp(mlp, (params, x), ([dots[0], np.ones(3)], None))
    with pytest.raises(S2SADError, match="shape"):
        s2sad.jvp(mlp, (params, x), (dots[0], None))


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_the_jacobian_of_a_list_of_arrays_has_a_block_per_element(mode):
    params, x = _params()
    blocks = s2sad.jacobian(vector_out, mode=mode)(params, x)
    assert type(blocks) is list and [b.shape for b in blocks] == [(2, 2, 3), (2, 2)]
    for k in range(2):
        for o in range(2):
            column = _central_list(lambda p, x: vector_out(p, x)[o], params, (x,), k)
            assert np.allclose(blocks[k][o], column, atol=1e-8)
    # a scalar output: the blocks are the gradient
    blocks = s2sad.jacobian(mlp, mode=mode)(params, x)
    assert all(np.allclose(b, g, rtol=1e-10) for b, g in zip(blocks, s2sad.grad(mlp)(params, x)))
    # with another argument: a tuple of (the list of blocks, the array block)
    blocks, dx = s2sad.jacobian(vector_out, wrt=(0, 1), mode=mode)(params, x)
    assert [b.shape for b in blocks] == [(2, 2, 3), (2, 2)] and dx.shape == (2, 3)


def test_the_hessian_of_a_list_of_arrays_is_nested_per_element():
    params, x = _params()
    H = s2sad.hessian(mlp)(params, x)
    assert type(H) is list and len(H) == 2 and all(type(row) is list for row in H)
    assert [[b.shape for b in row] for row in H] == [[(2, 3, 2, 3), (2, 3, 2)],
                                                      [(2, 2, 3), (2, 2)]]
    # each block: the derivative of the gradient's element i along element j
    h = 1e-6
    for j in range(2):
        for idx in np.ndindex(params[j].shape):
            up = [p.copy() for p in params]
            down = [p.copy() for p in params]
            up[j][idx] += h
            down[j][idx] -= h
            gu, gd = s2sad.grad(mlp)(up, x), s2sad.grad(mlp)(down, x)
            for i in range(2):
                column = (gu[i] - gd[i]) / (2 * h)
                assert np.allclose(H[i][j][(Ellipsis,) + idx], column, atol=1e-7)
    assert np.allclose(H[0][1], np.moveaxis(H[1][0], 0, -1))  # (symmetric)
    # wrt two parameters: the list's blocks nest inside the tuple's
    H = s2sad.hessian(mlp, wrt=(0, 1))(params, x)
    assert [b.shape for b in H[0][1]] == [(2, 3, 3), (2, 3)] and H[1][1].shape == (3, 3)
    assert [b.shape for b in H[1][0]] == [(3, 2, 3), (3, 2)]


def where_of_a_number(x, w, s):
    return np.where(w[1, 2] > 0.0, s + 2.0, 0.5 * w[1, 2])


def test_a_float_arguments_derivative_is_a_float_in_every_entry_point():
    # np.where makes the tangent of the number `s` a 0-d array: forward mode's
    # gradient, hvp and grad(grad(f)) give the float's derivative as a float all the same
    args = (np.zeros(3), np.ones((2, 3)), 0.0)
    for mode in ("reverse", "forward", "tape"):
        g = s2sad.grad(where_of_a_number, wrt=(0, 1, 2), mode=mode)(*args)
        assert isinstance(g[2], float) and g[2] == 1.0, mode
        assert type(g[0]) is np.ndarray and g[1].shape == (2, 3)
    v, g = s2sad.value_and_grad(where_of_a_number, wrt=2)(*args)
    assert isinstance(g, float) and g == 1.0

    def square_where(s, w):
        return np.where(w > 0.0, s * s, w)

    assert isinstance(s2sad.hvp(square_where)(0.5, 1.0, 1.0), float)
    assert isinstance(s2sad.grad(s2sad.grad(square_where))(0.5, 1.0), float)
    assert isinstance(s2sad.grad(square_where, mode="forward")(0.5, np.array(1.0)), float)
    assert s2sad.grad(square_where, mode="forward")(0.5, np.array(1.0)) == 1.0


def tanh_or_constant(s):
    if s > 0.3:
        s1 = np.tanh(s)
    else:
        s1 = -1.25
    return -(s - s1)


def test_jvp_gives_the_output_tangent_the_outputs_type():
    # a float32 0-d argument through a join with a float constant: the output is a
    # float32 NumPy scalar, and so is its tangent (the constant's zero tangent is float64)
    for x in (0.1, 0.5):
        s = np.array(x, np.float32)
        y, t = s2sad.jvp(tanh_or_constant, (s,), (np.array(1.0, np.float32),))
        assert type(y) is np.float32 and type(t) is np.float32
        g = s2sad.grad(tanh_or_constant)(s)
        assert type(g) is np.ndarray and g.dtype == np.float32 and g.ndim == 0
        assert np.isclose(t, g)
    # a float output whose tangent went through np.where: a float
    y, t = s2sad.jvp(lambda_free_where, (0.5, 1.0), (1.0, 0.0))
    assert type(y) is np.ndarray and type(t) is np.ndarray and t.ndim == 0
    y, t = s2sad.jvp(float_of_where, (0.5,), (1.0,))
    assert type(y) is float and type(t) is float and t == 2.0
    # a tuple output: element by element
    y, t = s2sad.jvp(pair_of_float32, (np.array(0.5, np.float32),),
                     (np.array(1.0, np.float32),))
    assert [type(e) for e in t] == [type(e) for e in y] == [np.float32, np.ndarray]
    assert t[1].dtype == np.float32


def lambda_free_where(s, w):
    return np.where(w > 0.0, s * s, w)


def float_of_where(s):
    return 2.0 * s if s > 0.0 else 0.0


def pair_of_float32(s):
    return s * 2.0, np.asarray(s) * np.ones(2, np.float32)


def max_or_argument(w, s):
    if np.max(w) > 0.3:
        s1 = np.sin(np.mean(w))
    else:
        s1 = s
    return s1 * 2.0


def sin_or_argument(w, s):
    if np.max(w) > 0.3:
        s1 = np.sin(w[0])
    else:
        s1 = s
    return np.sum(s1 * s1)


def test_a_branch_that_copies_an_array_argument_does_not_make_it_vary():
    # `s1 = s` in one branch, a value varying with `w` in the other: `s` itself does
    # not vary with `w` (forward mode read a tangent of `s` it never had: NameError)
    cases = [(max_or_argument, np.array(0.47)), (sin_or_argument, np.array([0.4, 0.2, 0.1]))]
    for f, s in cases:
        for w in (np.zeros((2, 3)), np.full((2, 3), 0.5)):
            r = s2sad.grad(f, wrt=(0, 1))(w, s)
            g = s2sad.grad(f, wrt=(0, 1), mode="forward")(w, s)
            assert all(np.allclose(a, b) for a, b in zip(r, g))
            assert type(g[1]) is np.ndarray and g[1].shape == s.shape
            _, t = s2sad.jvp(f, (w, s), (np.ones_like(w), None))
            assert np.isclose(t, np.sum(r[0]))
            J = s2sad.jacobian(f, wrt=(0, 1), mode="forward")(w, s)
            assert all(np.allclose(a, b) for a, b in zip(J, r))
            assert "s_dot" not in s2sad.source(f, mode="forward", wrt=0, example=(w, s))


def float_of_an_array(x):
    return float(np.where(x > 0.0, x * x, 0.0))


def test_derivative_gives_the_output_tangent_the_outputs_type():
    # float() of a 0-d array is a float; its tangent, the 0-d array's, must be one too
    assert type(s2sad.derivative(float_of_an_array)(0.5)) is float
    assert s2sad.derivative(float_of_an_array)(0.5) == 1.0
    y, t = s2sad.jvp(float_of_an_array, (0.5,), (1.0,))
    assert type(y) is float and type(t) is float and t == 1.0


def cubed_sum(p, *, w):
    return np.sum(w * p["x"] ** 3)


@pytest.mark.parametrize("mode", ["reverse", "forward", "tape"])
def test_grad_of_a_container_beside_a_keyword_only_argument(mode):
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    g = s2sad.grad(cubed_sum, mode=mode)({"x": x}, w=w)
    assert np.allclose(g["x"], 3 * w * x ** 2, rtol=1e-12)
    H = s2sad.hessian(cubed_sum)({"x": x}, w=w)
    assert np.allclose(H["x"]["x"], np.diag(6 * w * x), rtol=1e-12)
