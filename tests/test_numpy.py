"""NumPy programs end to end: gradients against central differences, with the shape
and dtype of each argument."""

import math

import numpy as np
import pytest

import s2sad
import zoo_numpy
from helpers import both_modes, central_diff, positions


def ids(zoo):
    return [f"{f.__name__}-{k}" for k, (f, _, _) in enumerate(zoo)]


@pytest.mark.parametrize("f,args,wrt", zoo_numpy.ZOO, ids=ids(zoo_numpy.ZOO))
def test_numpy_zoo_against_central_differences(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt)(*args)
    got = got if isinstance(wrt, tuple) else (got,)
    for g, i in zip(got, positions(f, wrt)):
        expected = central_diff(f, args, i)
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
            expected = central_diff(f, [a.astype(np.float64) if isinstance(a, np.ndarray) else a
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


# ------------------------------- outputs that are one number, whatever built them


def ones_of_a_shape_read_at_run_time(A):
    return np.ones(A.shape[0]) @ A @ np.ones(A.shape[1])


def zeros_of_a_length(x):
    return np.sum(np.zeros(len(x)) + x * x)


def ones_like_contracted(x, w):
    v = np.ones_like(x) * w
    return v @ x


def sum_of_ones_of_a_shape(A):
    return np.sum(np.ones(A.shape) * A * A) + np.sum(np.zeros(A.shape[1]) + A[0])


def float_of_a_sum(x):
    return float(np.sum(x * x))


def float_of_a_0d_array(a):
    return float(np.asarray(a * a)) * a


def float_of_a_0d_array_param(a, x):
    return float(a * 2.0) + np.sum(x) * float(np.sum(x * x))


def isinstance_dispatch(x):
    if isinstance(x, float):
        return x * x
    else:
        return np.sum(x * x)


def isinstance_dispatch_on_arrays(x):
    if isinstance(x, np.ndarray):
        return np.sum(np.sin(x))
    return math.sin(x)


def isinstance_dispatch_negated(x, y):
    if not isinstance(x, (float, int)):
        s = np.sum(x * y)
    else:
        s = x * y
    return s


def det_of_a_matrix_of_floats(a, b, c, d):
    return np.linalg.det(np.array([[a, b], [c, d]]))


def trace_of_nested_displays(a, b):
    return np.trace(np.asarray([[a, b], [b * a, a]]) @ np.array([[a, 1.0], [2.0, b]]))


def concatenate_of_a_tuple_holding_a_list(x, a):
    # (a tuple display of an array and a list display, handed to NumPy)
    return np.sum(np.concatenate((x, [a, a * a])) ** 2) + np.sum(np.vstack(([a, 1.0], x)) ** 3)


def quadratic_form_after_a_loop(A, x):
    v = np.ones(A.shape[0])
    for i in range(3):
        v = A @ v + x
    return v @ A @ v


def quadratic_form_of_a_float_made_an_array(A, x):
    v = 1.0
    for i in range(3):
        v = A @ x * v
    return v @ A @ v


def quadratic_form_through_an_index_list(A, x):
    v = x
    for i in range(3):
        v = (A @ v)[[1, 0]] + x
    return v @ A @ v


def index_array_of_ints(A, x):
    idx = np.array([1, 0])
    return np.sum(A[idx] * x) * (A[:, idx] @ x)[0]


M = np.array([[0.6, 0.1, -0.3], [0.2, 0.5, 0.4]])
S = np.array([[0.6, 0.1], [0.2, 0.5]])
SCALAR_OUTPUTS = [
    (ones_of_a_shape_read_at_run_time, (M,)),
    (zeros_of_a_length, (np.array([0.5, -1.0, 2.0]),)),
    (ones_like_contracted, (np.array([0.5, -1.0, 2.0]), 1.5)),
    (sum_of_ones_of_a_shape, (M,)),
    (float_of_a_sum, (np.array([0.5, -1.0, 2.0]),)),
    (float_of_a_0d_array, (1.5,)),
    (float_of_a_0d_array_param, (np.array(1.5), np.array([0.5, -1.0]))),
    (isinstance_dispatch, (np.array([0.5, -1.0, 2.0]),)),
    (isinstance_dispatch, (1.5,)),
    (isinstance_dispatch_on_arrays, (np.array([0.5, -1.0, 2.0]),)),
    (isinstance_dispatch_on_arrays, (0.7,)),
    (isinstance_dispatch_negated, (np.array([0.5, -1.0]), np.array([2.0, 3.0]))),
    (isinstance_dispatch_negated, (1.5, 2.0)),
    (det_of_a_matrix_of_floats, (1.0, 2.0, 3.0, 5.0)),
    (trace_of_nested_displays, (2.0, 3.0)),
    (concatenate_of_a_tuple_holding_a_list, (np.array([0.5, -1.0]), 1.5)),
    (quadratic_form_after_a_loop, (S, np.array([1.0, -0.5]))),
    (quadratic_form_of_a_float_made_an_array, (S, np.array([1.0, -0.5]))),
    (quadratic_form_through_an_index_list, (S, np.array([1.0, -0.5]))),
    (index_array_of_ints, (S, np.array([1.0, -0.5]))),
]


@pytest.mark.parametrize("f,args", SCALAR_OUTPUTS, ids=ids([(f, a, None) for f, a in SCALAR_OUTPUTS]))
def test_functions_that_return_a_number_are_not_refused(f, args):
    both_modes(f, args)


@pytest.mark.parametrize("f,args", SCALAR_OUTPUTS, ids=ids([(f, a, None) for f, a in SCALAR_OUTPUTS]))
def test_the_kinds_prove_those_outputs_are_numbers(f, args):
    """Only a value that is a float or an array depending on a loop's count needs
    its output checked when the gradient runs."""
    text = s2sad.source(f, wrt=tuple(range(len(args))), example=args)
    assert ("scalar_seed" in text) == (f is quadratic_form_of_a_float_made_an_array)


def test_the_dead_branch_of_an_isinstance_dispatch_carries_nothing():
    text = s2sad.source(isinstance_dispatch, example=(np.array([0.5, -1.0]),))
    # the output is known to be one number, and the branch for floats, which runs for
    # no array, has no derivative code (x_bar comes from the other branch only)
    assert "scalar_seed" not in text
    assert text.count("x_bar") == text.count("x_bar = ") + 1  # set once, returned


def test_an_output_of_a_rank_known_only_at_run_time_is_checked_when_it_runs():
    def maybe_array(A, x, n):
        v = 1.0
        for i in range(n):
            v = A @ x * v
        return v * 2.0

    g = s2sad.grad(maybe_array, wrt=(0, 1))
    with pytest.raises(s2sad.NonScalarOutputError, match=r"shape \(2,\)"):
        g(S, np.array([1.0, -0.5]), 2)
    got = g(S, np.array([1.0, -0.5]), 0)  # no iteration: the float 2.0
    assert np.array_equal(got[0], np.zeros((2, 2))) and np.array_equal(got[1], np.zeros(2))


def array_of_a_shape_read_at_run_time(A):
    return np.ones(A.shape[0]) @ A


def float_or_array_branch(x):
    if isinstance(x, float):
        return np.sum(x * x)
    return x * x


def matrix_of_floats(a, b):
    return np.array([[a, b], [b, a]]) * 2.0


@pytest.mark.parametrize("f,args", [
    (array_of_a_shape_read_at_run_time, (M,)),
    (float_or_array_branch, (np.array([0.5, -1.0]),)),
    (matrix_of_floats, (1.0, 2.0)),
])
def test_functions_that_return_an_array_are_still_refused_before_running(f, args):
    with pytest.raises(s2sad.NonScalarOutputError, match="returns an array"):
        s2sad.grad(f, wrt=0)(*args)


def _doubled_if_array(v):
    if isinstance(v, np.ndarray):
        return np.sum(v) * 2.0
    return v * 3.0


def _through_a_0d_product(a):
    return _doubled_if_array(a * 2.0)  # a NumPy scalar, not an array, at run time


def test_isinstance_of_a_value_of_rank_0_is_left_to_run_time():
    assert float(s2sad.grad(_through_a_0d_product)(np.array(1.5))) == 6.0
    assert float(s2sad.jvp(_through_a_0d_product, (np.array(1.5),), (np.array(1.0),))[1]) == 6.0


def _doubled_n_times(u, n):
    if n == 0:
        return u
    return _doubled_n_times(u * 2.0, n - 1)


def test_a_recursive_function_returning_an_array_is_refused_by_grad():
    """A recursive function's result kind is found from its paths that do not recurse
    (`driver.stages.Kinds`): an array it returns is refused when the derivative is
    built, at the line, never differentiated as its sum."""
    def f(x):
        return _doubled_n_times(x, 2)

    with pytest.raises(s2sad.NonScalarOutputError, match=r"returns an array"):
        s2sad.grad(f)(np.ones(3))
    assert s2sad.grad(f)(1.5) == 4.0
    assert float(s2sad.grad(lambda_free_sum_of_doubled)(np.ones(3))[0]) == 4.0


def lambda_free_sum_of_doubled(x):
    return np.sum(_doubled_n_times(x, 2))


# ------------------------------- a name given a new array on every path of a join


def centred_or_scaled(x, w):
    if x[0] > 0.3:
        m = (w - np.mean(w, axis=1, keepdims=True)) ** 2
    else:
        m = w[1] * w
    return m[0][-1]


def three_ways(x, w):
    if x[0] > 0.3:
        m = w * 2.0
    elif x[1] > 0.0:
        m = w * w
    else:
        m = np.sin(w)
    return m[0, 1] * m[1, 2] + m[0][0]


def read_in_its_branch(x, w):
    if x[0] > 0.3:
        m = w * 2.0
        t = m[0, 1] * np.sum(m)
    else:
        m = w * w
        t = m[1, 1]
    return m[0, 0] * m[1, 1] + t


def written_after_the_join(x, w):
    if x[0] > 0.3:
        m = w * 2.0
    else:
        m = w * w
    m[0, 1] = x[1] * 3.0
    return m[0, 1] * m[1, 1] + np.sum(m)


def list_made_on_both_paths(x, w):
    if x[0] > 0.3:
        xs = [x[1], w[0, 0]]
        a = xs[0] * xs[1]
    else:
        xs = [w[1, 1] * 2.0, x[2], x[1]]
        a = xs[-1]
    xs.append(x[0] * w[1, 2])
    return xs[-2] * xs[0] + xs[-1] * a


@pytest.mark.parametrize("f", [centred_or_scaled, three_ways, read_in_its_branch,
                               written_after_the_join, list_made_on_both_paths])
def test_a_new_array_on_every_path_of_a_join_is_one_object(f):
    """`m` is a new array on every path into the join, indexed afterwards: one object
    made at the join, whose adjoint starts there. Reverse mode used to refuse it as a
    name referring to different arrays on different paths."""
    w = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, -1.0]])
    for x in (np.array([0.5, -0.2, 0.4]), np.array([0.1, 0.2, -0.4]),
              np.array([0.0, -0.02, -0.16])):
        both_modes(f, (x, w))
        _, pullback = s2sad.vjp(f, x, w)
        want = [central_diff(f, (x, w), i) for i in range(2)]
        assert all(np.allclose(g, v, rtol=1e-5, atol=1e-6) for g, v in zip(pullback(1.0), want))
        H = s2sad.hessian(f, wrt=1)(x, w)
        g = s2sad.grad(f, wrt=1)
        h = 1e-5
        for k in np.ndindex(w.shape):
            e = np.zeros_like(w)
            e[k] = h
            assert np.allclose(H[(...,) + k], (g(x, w + e) - g(x, w - e)) / (2 * h),
                               rtol=1e-5, atol=1e-6)


def joined_with_an_existing_array(x, w):
    v = w * 2.0
    if x[0] > 0.3:
        m = v
    else:
        m = w * w
    return m[0, 1] * v[0, 1]


def joined_with_a_view(x, w):
    if x[0] > 0.3:
        m = w[1:]
    else:
        m = w * w
    return m[0, 1]


def joined_after_a_write(x, w):
    if x[0] > 0.3:
        m = w * 2.0
        m[0, 0] = x[2]
    else:
        m = w * w
    return m[0, 0] * m[1, 1]


def joined_after_going_into_a_list(x, w):
    if x[0] > 0.3:
        m = w * 2.0
        lst = [m]
    else:
        m = w * w
        lst = [w * 3.0]
    return m[0, 0] * lst[0][1, 1]


@pytest.mark.parametrize("f", [joined_with_an_existing_array, joined_with_a_view,
                               joined_after_a_write, joined_after_going_into_a_list])
def test_a_join_of_objects_that_exist_elsewhere_is_a_value(f):
    """Where a path gives the name an object another name (a view, a list) also
    reaches, or one changed before the join, and nothing writes into it afterwards,
    the join is a value: its adjoint goes to that object's like any copy's (see
    `test_a_join_of_an_existing_array_is_a_value`; these were refused before)."""
    w = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, -1.0]])
    for x in (np.array([0.5, -0.2, 0.4]), np.array([0.1, 0.2, -0.4])):
        both_modes(f, (x, w))


# ------------------- a name given an existing array on some path of a join


def arg_or_new(x, w):
    if np.var(x) > 0.3:
        v3 = x
    else:
        v3 = -(np.where(w > 0.0, 2.0, 0.5 * w))
    v5 = np.concatenate([w, v3[1:2]])
    return np.sum(v5 * v5) + np.sum(x)


def new_or_arg(x, w):
    if np.var(x) <= 0.3:
        v3 = w * x
    else:
        v3 = w
    return v3[0] * v3[2] + np.sum(v3[1:] ** 2) * x[1]


def arg_or_arg(x, w):
    if np.var(x) > 0.3:
        v = x
    else:
        v = w
    return v[0] * v[-1] + np.sum(v[:2] * w[1:]) + x[2]


def arg_or_its_view(x, w):
    if np.var(x) > 0.3:
        v = x
    else:
        v = x[::-1]
    return v[0] * w[1] + v[1] ** 2 * v[2]


def variable_or_new(x, w):
    u = np.sin(w) * x
    if np.var(x) > 0.3:
        v = u
    else:
        v = u * 3.0
    return v[0] * u[1] + np.sum(v[1:]) * u[2]


def nested_joins(x, w):
    if np.var(x) > 0.3:
        if x[0] > 0.5:
            v = x
        else:
            v = w[::-1]
    else:
        v = w * 2.0
    return v[1] * v[2] + np.sum(v)


def carried_or_argument(x, w):
    v = x * 1.0
    for i in range(3):
        if v[0] > 0.2 * i:
            v = w
        else:
            v = v * x + w[i]
    return v[1] * v[2] + np.sum(v[:2])


def argument_some_iterations(x, w):
    v = x
    for i in range(3):
        if (i + int(x[0] > 0.3)) % 2 == 0:
            v = x
        else:
            v = np.tanh(v) * w
    return v[0] * v[1] + np.sum(v[1:])


def written_before_the_join(x, w):
    u = w * 2.0
    u[0] = x[1] * x[2]
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    return v[0] * v[1] + u[2]


def changed_in_place_before_the_join(x, w):
    u = w * 2.0
    u += x
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    return v[0] * v[1] + u[2]


def layers_of_other_widths(x, w):
    layers = [(np.outer(w[:2], x[:1]), w[2:]), (np.outer(x[:1], w[:2]) * 0.5, x[1:3])]
    h = np.stack([x[:2], w[:2]])  # (2, 2), then (2, 1), then (2, 2)
    for i, (W, b) in enumerate(layers):
        h = h @ W + b[: W.shape[1]]
        if i < len(layers) - 1:
            h = np.tanh(h)
    return np.sum(h[:, 0] ** 2) + np.mean(h[:, 1] ** 3)


def widths_changing_each_step(x, w):
    h = x
    for M in [np.outer(w, x[:1]), np.outer(x[:1], x), np.outer(x, w)]:
        h = np.sin(h @ M) + 0.5
    return h[0] * h[2] + np.sum(h * h)


def summed_from_zero(x, w):
    v = sum(np.outer(w, x)[0] * k for k in range(3))  # (an int 0, then arrays)
    return np.tanh(v[0]) + np.sum(v * x)


@pytest.mark.parametrize("f", [layers_of_other_widths, widths_changing_each_step,
                               summed_from_zero])
def test_an_array_carried_through_layers_of_other_widths(f):
    """An activation carried through a loop over layers of other widths (2 to 1 to
    2), read by index after the loop: its adjoint is one array updated in place, and
    each reversed layer starts the layer's input's adjoint again from zeros of the
    input's shape, not of the output's. Those zeros broadcast into a gradient twice
    too large, silently, or raised."""
    x, w = np.array([0.4, -0.7, 0.3]), np.array([0.9, 0.2, -0.5])
    both_modes(f, (x, w))
    for k in (0, 1):
        assert np.allclose(s2sad.grad(f, wrt=k)(x, w), central_diff(f, (x, w), k),
                           rtol=1e-6, atol=1e-8)
    eps = 1e-5
    H = s2sad.hessian(f)(x, w)
    g = s2sad.grad(f)
    for j in range(3):
        e = np.eye(3)[j] * eps
        assert np.allclose(H[..., j], (g(x + e, w) - g(x - e, w)) / (2 * eps), rtol=1e-4,
                           atol=1e-6)


@pytest.mark.parametrize("f", [arg_or_new, new_or_arg, arg_or_arg, arg_or_its_view,
                               variable_or_new, nested_joins, carried_or_argument,
                               argument_some_iterations, written_before_the_join,
                               changed_in_place_before_the_join])
def test_a_join_of_an_existing_array_is_a_value(f):
    """A name given an existing array (an argument, another variable, a view of one)
    on some path of a join and read by index, where nothing writes into it or into
    what it may be afterwards: its join is a value, and the reverse of ``v = x`` hands
    `v`'s adjoint over to `x`. Reverse mode refused these as a variable referring to
    different arrays on different paths. Both branches, grad, a pullback called twice,
    Hessians in each argument."""
    w = np.array([0.95, 0.2, -0.4])
    for x in (np.array([0.63, 0.33, 0.0]), np.array([1.63, 0.33, -0.4]),
              np.array([0.1, 0.2, -0.4]), np.array([0.5, -0.2, 0.4])):
        both_modes(f, (x, w))
        want = [central_diff(f, (x, w), i) for i in range(2)]
        _, pullback = s2sad.vjp(f, x, w)
        for _ in range(2):
            got = pullback(1.0)
            assert all(np.allclose(g, v, rtol=1e-5, atol=1e-6) for g, v in zip(got, want))
        h = 1e-5
        for k in (0, 1):
            H = s2sad.hessian(f, wrt=k)(x, w)
            g = s2sad.grad(f, wrt=k)
            for j in range(3):
                e = np.zeros(3)
                e[j] = h
                up, down = [x, w], [x, w]
                up[k], down[k] = up[k] + e, down[k] - e
                assert np.allclose(H[..., j], (g(*up) - g(*down)) / (2 * h),
                                   rtol=1e-4, atol=1e-5)


def written_after_the_join(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    v[0] = x[1]
    return v[0] * v[1] + np.sum(u)


def argument_written_after_the_join(x, w):
    if np.var(x) > 0.3:
        v = x
    else:
        v = w * x
    v[0] = w[1]
    return v[0] * v[1]


def source_written_after_the_join(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    u[1] = x[0]
    return v[1] * u[1] + v[0]


def added_into_after_the_join(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    v += x
    return v[0] * u[0]


def source_added_into_after_the_join(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    u += x
    return v[0] * u[1]


def view_of_the_join_written(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = u
    else:
        v = w * x
    z = v[0:2]
    z[0] = x[2]
    return v[0] * u[0]


def written_in_the_loop(x, w):
    v = x * 1.0
    for i in range(3):
        if v[0] > 0.2 * i:
            v = w
        else:
            v = v * x
        v[1] = x[i]
    return v[1] * v[2]


def source_written_in_the_loop(x, w):
    u = w * 2.0
    v = u
    for i in range(2):
        u[i] = x[i] * 2.0
        if x[2] > 0.0:
            v = u
        else:
            v = w * x
    return v[0] * v[1]


def source_written_in_its_branch(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = u
        u[0] = x[1]
    else:
        v = w * x
    return v[0] * v[1] + u[2]


def source_written_in_the_other_branch(x, w):
    u = w * 2.0
    if np.var(x) > 0.3:
        v = w * x
    else:
        u[0] = x[1]
        v = u
    return v[0] * v[1] + u[2]


@pytest.mark.parametrize("f", [written_after_the_join, argument_written_after_the_join,
                               source_written_after_the_join, added_into_after_the_join,
                               source_added_into_after_the_join, view_of_the_join_written,
                               written_in_the_loop, source_written_in_the_loop,
                               source_written_in_its_branch,
                               source_written_in_the_other_branch])
def test_a_write_through_a_join_of_an_existing_array_is_refused(f):
    """Where something writes into the joined name, a view of it, or the array it may
    be while it is alive, its object matters: reverse mode refuses it (never a wrong
    number), on both paths."""
    w = np.array([0.95, 0.2, -0.4])
    for x in (np.array([0.63, 0.33, 0.0]), np.array([1.63, 0.33, 0.4])):
        with pytest.raises(s2sad.NotDifferentiableError):
            s2sad.grad(f, wrt=(0, 1))(x, w)


@pytest.mark.parametrize("f", [written_after_the_join, source_written_after_the_join,
                               source_written_in_its_branch,
                               source_written_in_the_other_branch])
def test_forward_mode_still_follows_a_write_through_a_join(f):
    """Forward mode, which follows values by name, keeps taking the joins reverse
    mode refuses for a write: the name keeps the objects it is given (the tangent of
    `u` written in the other branch was lost once)."""
    w = np.array([0.95, 0.2, -0.4])
    for x in (np.array([0.63, 0.33, 0.0]), np.array([1.63, 0.33, 0.4])):
        t = (np.array([1.0, -0.5, 0.25]), np.array([0.5, 2.0, -1.0]))
        _, d = s2sad.jvp(f, (x, w), t)
        want = sum(np.sum(central_diff(f, (x, w), i) * t[i]) for i in range(2))
        assert np.allclose(d, want, rtol=1e-5, atol=1e-6)


def _either_array(x, c):
    a = x if c > 0 else np.arange(3)
    return a[0] * 2.0


def test_an_element_of_an_array_of_unknown_dtype_carries_its_derivative():
    """`a` is a float array or an int array: its dtype is unknown, and an element of
    it may carry a derivative (it was taken for a constant: x_bar undefined)."""
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(s2sad.grad(_either_array)(x, 1.0), [2.0, 0.0, 0.0])
    assert s2sad.jvp(_either_array, (x, 1.0), (np.ones(3), 0.0))[1] == 2.0
    np.testing.assert_allclose(s2sad.grad(_either_array)(x, -1.0), [0.0, 0.0, 0.0])


def _log_softmax_loss(W, X, Y):
    Z = X @ W
    Z = Z - np.max(Z, axis=1, keepdims=True)
    logp = Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))
    return -np.sum(Y * logp)


def _softmax_loss(Z, C):
    E = np.exp(Z - np.max(Z, axis=-1, keepdims=True))
    return np.sum(E / np.sum(E, axis=-1, keepdims=True) * C)


def _shift_kept(Z):
    m = np.max(Z, axis=1, keepdims=True)
    return np.sum(np.exp(Z - m))  # the maximum does not cancel


def _shift_other_axis(Z):
    E = np.exp(Z - np.max(Z, axis=1, keepdims=True))
    return np.sum(E / np.sum(E, axis=0, keepdims=True))


def _shift_read_in_a_branch(Z, flag):
    Z = Z - np.max(Z, axis=1, keepdims=True)
    if flag > 0:
        return np.sum(Z * Z)  # (here the maximum does not cancel)
    return np.sum(np.exp(Z) / np.sum(np.exp(Z), axis=1, keepdims=True))


def test_a_softmax_max_shift_has_no_derivative_computed():
    rng = np.random.default_rng(3)
    W, X = rng.normal(size=(4, 3)), rng.normal(size=(5, 4))
    Y = np.eye(3)[rng.integers(0, 3, 5)]
    Z, C = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    for f, args, wrt in ((_log_softmax_loss, (W, X, Y), 0), (_softmax_loss, (Z, C), 0)):
        for mode in ("reverse", "forward"):
            text = s2sad.source(f, mode=mode, wrt=wrt, example=args)
            assert "extreme_bar" not in text and "np.max(" in text
            got = s2sad.grad(f, wrt=wrt, mode=mode)(*args)
            want = central_diff(f, args, 0)
            assert np.allclose(got, want, atol=1e-7)
    for f in (_shift_kept, _shift_other_axis):  # the maximum's derivative is not zero
        text = s2sad.source(f, example=(Z,))
        assert "extreme_bar" in text
        assert np.allclose(s2sad.grad(f)(Z), central_diff(f, (Z,), 0), atol=1e-7)
    assert "extreme_bar" in s2sad.source(_shift_read_in_a_branch, example=(Z, 1.0))
    assert np.allclose(s2sad.grad(_shift_read_in_a_branch)(Z, 1.0),
                       central_diff(_shift_read_in_a_branch, (Z, 1.0), 0), atol=1e-6)


def test_numpy_of_a_list_of_numbers_is_an_array():
    """``np.sin([x[0], x[2]])`` is an array of rank 1 (NumPy converts the list), so a
    number it is multiplied by gets the sum of its adjoint, not an array (whose kind
    was not known: the rule for numbers was taken, and the gradient raised)."""
    def f(x):
        return np.sum(np.sin([x[0], x[2]]) * x[2]) + np.sum(np.real((x[0], x[2])) * x[1]) \
            + np.sum(np.maximum([x[0], x[1]], x[2]) * x[2])

    x = np.array([0.3, 0.5, 0.7])
    eps = 1e-6
    numeric = [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(3)]
    assert np.allclose(s2sad.grad(f)(x), numeric, rtol=1e-6)
    assert np.allclose(s2sad.jvp(f, (x,), (np.eye(3)[2],))[1], numeric[2], rtol=1e-6)


def _written_copy_of_numpy_of_a_list(x, s):
    t = np.sin([s, s * 0.5, s]).copy()
    t[-1] *= x[0]
    return np.sum(t * x)


def test_numpy_of_a_list_of_floats_has_their_dtype():
    """``np.sin([s, s * 0.5, s])`` of floats is a float array, so a copy of it may be
    written into (its dtype was unknown, and the write refused)."""
    args = (np.array([0.3, 0.5, 0.7]), 0.77)
    got = s2sad.grad(_written_copy_of_numpy_of_a_list, wrt=(0, 1))(*args)
    want = tuple(central_diff(_written_copy_of_numpy_of_a_list, args, i) for i in (0, 1))
    assert np.allclose(got[0], want[0], atol=1e-7) and np.isclose(got[1], want[1])


_SETTINGS = {"w": np.array([1.0, 2.0, 3.0])}


def test_a_number_times_a_value_of_unknown_kind_gets_a_number_for_adjoint():
    """An array the compiler cannot see the kind of (an item of a dict of settings, of
    an argument not differentiated) times a number: the number's adjoint is the sum
    over the array, as for an array whose kind is known. The rule for numbers was
    taken, and the gradient of a float came back as an array."""
    def from_settings(s):
        return np.sum(_SETTINGS["w"] * s * s)

    def from_an_argument(s, opts):
        return np.sum(opts["w"] * s)

    assert s2sad.grad(from_settings)(0.5) == pytest.approx(6.0)
    g = s2sad.grad(from_an_argument)(0.5, {"w": np.array([1.0, 2.0, 3.0])})
    assert np.ndim(g) == 0 and g == pytest.approx(6.0)
    assert s2sad.jvp(from_settings, (0.5,), (1.0,))[1] == pytest.approx(6.0)
    assert s2sad.hessian(from_settings)(0.5) == pytest.approx(12.0)


def cholesky_from_tril(theta, n, X):
    L = np.zeros((n, n))
    L[np.tril_indices(n)] = theta
    L[np.diag_indices(n)] = np.exp(np.diag(L))
    S = L @ L.T
    return np.sum(X @ S * X) + np.sum(np.log(np.diag(L)))


def upper_and_grid(x):
    A = np.outer(x, x)
    i, j = np.indices((3, 3))
    return np.sum(A[np.triu_indices(3, 1)] ** 2) + np.sum(A * (i - 2 * j)) + np.sum(
        x * np.hamming(3))


def through_chkfinite(x):
    return np.sum(np.asarray_chkfinite(x) ** 2)  # the line of the refusal


@pytest.mark.parametrize("f,args,wrt", [
    (cholesky_from_tril, (np.array([0.3, -0.2, 0.1, 0.4, -0.5, 0.2]), 3,
                          np.arange(12.0).reshape(4, 3) / 10), (0,)),
    (upper_and_grid, (np.array([0.3, -0.7, 1.1]),), (0,)),
])
def test_numpy_python_functions_of_indices_run_as_written(f, args, wrt):
    """np.tril_indices, np.indices, np.hamming are NumPy functions written in Python:
    they were put in place like the user's and refused inside NumPy's source (a write
    into an array np.indices made); with no derivative through them they run as
    written."""
    both_modes(f, args, wrt)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_numpy_python_function_a_derivative_passes_through_is_refused_at_the_call(mode):
    with pytest.raises(s2sad.NoRuleError, match="asarray_chkfinite") as info:
        s2sad.grad(through_chkfinite, mode=mode)(np.array([0.3, -0.7]))
    assert info.value.lineno == through_chkfinite.__code__.co_firstlineno + 1


def _by_argsort(x):
    return np.sum(x[x.argsort()] * np.arange(4.0)) + x[x.argmax()] - x[x.argmin()]


def _by_nonzero(x):
    return np.sum(x[x.nonzero()] ** 2)


def _by_rounded(x):
    return np.sum(x * x.round()) + np.sum(x * x.round(1)) + float(x.any()) + float(x.all())


def _by_trace(A):
    return A.trace() * 2.0 + A.trace(1) + np.sum(A.conj() * A) + np.sum(A.conjugate())


@pytest.mark.parametrize("f", [_by_argsort, _by_nonzero, _by_rounded, _by_trace],
                         ids=["argsort", "nonzero", "round", "trace and conj"])
@pytest.mark.parametrize("mode", ["reverse", "forward", "tape"])
def test_array_methods_are_their_numpy_functions(f, mode):
    """``x.argsort()``, ``x.nonzero()``, ``x.round()``, ``x.any()``, ``x.trace()``,
    ``x.conj()``... are ``np.argsort(x)`` and the rest: refused before, the
    message saying they were called for an effect."""
    x = np.array([[1.0, 2.0, 0.5, 0.0], [0.3, -1.0, 2.0, 0.2], [0.7, 0.1, -0.4, 1.1],
                  [0.2, 0.4, 0.6, -0.9]]) if f is _by_trace else np.array([0.3, -1.2, 0.8, 2.1])
    got = s2sad.grad(f, mode=mode)(x)
    assert np.allclose(got, central_diff(f, (x,), 0), rtol=1e-6, atol=1e-8)


_W5 = np.arange(5.0) ** 2


def _scatter_by_batch(x, batch):
    y = np.zeros(5)
    y[batch["idx"]] = x  # (an index of a kind the compiler does not see; it repeats)
    return np.sum(y * _W5)


def _scatter_by_method(x):
    y = np.zeros(5)
    y[x.argsort() % 2] += x * x
    return np.sum(y * _W5)


@pytest.mark.parametrize("f, extra", [(_scatter_by_batch, ({"idx": np.array([0, 0, 2, 3, 3])},)),
                                      (_scatter_by_method, ())], ids=["dict item", "method"])
def test_a_repeating_index_of_a_kind_not_known_credits_the_kept_value_only(f, extra):
    """NumPy keeps the last value written to an element an index names twice; only
    that one has a derivative. Reverse mode credited every value written where the
    index's kind was not known when the derivative was built (a dict argument's
    item, an array method's result)."""
    x = np.array([0.3, -1.2, 0.8, 0.1, -0.4])
    want = central_diff(lambda v: f(v, *extra), (x,), 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(x, *extra), want, atol=1e-6), mode
    g = s2sad.grad(f)
    assert np.allclose(s2sad.hessian(f)(x, *extra).diagonal(),
                       (g(x + 1e-5, *extra) - g(x - 1e-5, *extra)) / 2e-5, atol=1e-4)
