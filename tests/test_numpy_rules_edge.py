"""NumPy rules at the edges users found: stacks of matrices, 1-D operands, None bounds,
lists given to reductions, norms s2sad does not differentiate, and ``x ** y`` at a
negative base. Each gradient is compared with central differences in both modes;
each refusal is a clear `S2SADError` at transform time."""

import ast
import inspect
import math

import numpy as np
import pytest

import s2sad
from helpers import central_diff
from s2sad.engines import dual_grad
import zoo_numpy_edges as zoo

MODES = ["reverse", "forward"]


def stack(*shape, seed=0):
    """Well-conditioned matrices of `shape` (..., n, n), the second with a negative
    determinant."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-0.3, 0.3, shape) + 2.0 * np.eye(shape[-1])
    if len(shape) > 2 and shape[0] > 1:
        a[1] *= -1.0
    return a


def vector(*shape, seed=1):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


def check(f, args, wrt=0, mode="reverse", rtol=1e-5, atol=1e-7):
    got = s2sad.grad(f, wrt=wrt, mode=mode)(*args)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    gots = got if isinstance(wrt, tuple) else (got,)
    for i, g in zip(items, gots):
        expected = central_diff(f, list(args), i)
        assert np.shape(g) == np.shape(expected), (i, np.shape(g), np.shape(expected))
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol)
    return got


def line_of(f, marker):
    lines, first = inspect.getsourcelines(f)
    return first + next(i for i, line in enumerate(lines) if f"marker: {marker}" in line)


# --------------------------------------------- stacks of matrices (det, slogdet, ...)


@pytest.mark.parametrize("mode", MODES)
def test_det_of_a_stack_swaps_only_the_matrix_axes(mode):
    a = np.array([[[2.0, 1.0], [0.0, 3.0]], [[1.0, 0.5], [0.2, 1.0]]])
    got = s2sad.grad(zoo.sum_det, mode=mode)(a)
    np.testing.assert_allclose(got, [[[3, 0], [-1, 2]], [[1, -0.2], [-0.5, 1]]], atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_det_of_stacks(mode):
    check(zoo.sum_det, [stack(2, 3, 3)], mode=mode)
    check(zoo.sum_det, [stack(2, 2, 3, 3)], mode=mode)
    check(zoo.logdet_of_matrix, [stack(3, 3)], mode=mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("a_shape,b_shape", [
    ((2, 3, 3), (2, 3, 2)), ((2, 3, 3), (1, 3, 2)), ((3, 3), (2, 3, 2)),
    ((1, 3, 3), (2, 3, 2)), ((3, 3), (3,)), ((3, 3), (3, 2))])
def test_solve_with_stacks(a_shape, b_shape, mode):
    check(zoo.solve_squared, [stack(*a_shape), vector(*b_shape)], wrt=(0, 1), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_slogdet_of_stacks(mode):
    """slogdet of a stack gives one sign and one log-determinant per matrix: taken
    for two numbers, np.mean(logdet ** 2) was divided by 1, not 3 (a gradient 3
    times too large)."""
    check(zoo.mean_square_logdet, [stack(3, 3, 3)], mode=mode)
    check(zoo.mean_square_logdet, [stack(2, 2, 3, 3)], mode=mode)
    check(zoo.mean_square_logdet, [stack(3, 3)], mode=mode)
    check(zoo.sum_logdet, [stack(2, 3, 3)], mode=mode)
    check(zoo.weighted_logdet, [stack(2, 3, 3)], mode=mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("a_shape,b_shape", [
    ((2, 3, 3), (3,)), ((2, 3, 3), (3, 2)), ((2, 2, 3, 3), (3,)), ((2, 2, 3, 3), (2, 3, 2)),
    ((3, 3), (2, 2, 3, 2))])
def test_solve_of_a_stack_and_a_vector_or_a_matrix(a_shape, b_shape, mode):
    """The result of solve has one axis less than a for a 1-D b (NumPy 2), else the
    rank of the larger operand: taken for b's kind, np.mean was divided wrongly."""
    check(zoo.solve_squared, [stack(*a_shape), vector(*b_shape)], wrt=(0, 1), mode=mode)
    check(zoo.solve_weighted, [stack(*a_shape), vector(*b_shape)], wrt=(0, 1), mode=mode)


def test_kinds_of_stacked_linalg_results():
    from s2sad.analysis.classify import Op
    from s2sad.ir.kinds import SCALAR, ArrayKind
    from s2sad.primitives.facts import rule_result_kind

    def kind(key, *ranks):
        op = Op("rule", [ast.Name(id=f"v{i}") for i in range(len(ranks))], key=key)
        return rule_result_kind(op, [ArrayKind(r) for r in ranks])

    A = ArrayKind
    assert kind(np.linalg.slogdet, 2) == (SCALAR, SCALAR)
    assert kind(np.linalg.slogdet, 3) == (A(1), A(1))
    assert kind(np.linalg.slogdet, 4) == (A(2), A(2))
    assert kind(np.linalg.slogdet, None) == (A(None), A(None))
    assert kind(np.linalg.det, 2) == SCALAR and kind(np.linalg.det, 4) == A(2)
    assert kind(np.trace, 2) == SCALAR and kind(np.trace, 3) == A(1)
    assert kind(np.linalg.solve, 2, 1) == A(1) and kind(np.linalg.solve, 3, 1) == A(2)
    assert kind(np.linalg.solve, 3, 2) == A(3) and kind(np.linalg.solve, 2, 4) == A(4)
    assert kind(np.linalg.solve, None, 2) == A(None)
    assert kind(np.linalg.solve, 3, None) == A(None)


@pytest.mark.parametrize("mode", MODES)
def test_inv_of_a_stack(mode):
    check(zoo.inv_squared, [stack(2, 3, 3)], mode=mode)
    check(zoo.inv_squared, [stack(3, 3)], mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_trace_of_three_axes_is_an_array(mode):
    check(zoo.trace_squared, [vector(3, 4, 2)], mode=mode)
    check(zoo.trace_squared, [vector(3, 4)], mode=mode)


# -------------------------------------------------------------- 1-D matmul, abs


@pytest.mark.parametrize("mode", MODES)
def test_np_matmul_of_vectors(mode):
    check(zoo.matmul_vectors, [vector(4), vector(4, seed=2)], wrt=(0, 1), mode=mode)
    check(zoo.matmul_matrix_vector, [vector(4, 4), vector(4, seed=2)], wrt=(0, 1), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_builtin_abs_of_an_array(mode):
    check(zoo.builtin_abs, [np.array([-1.5, 0.3, 2.0, -0.1])], mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_builtin_pow_of_arrays(mode):
    check(zoo.builtin_pow, [vector(4) + 2.0, vector(4, seed=3)], wrt=(0, 1), mode=mode)


# ------------------------------------------------------------- clip, reductions


@pytest.mark.parametrize("mode", MODES)
def test_clip_with_a_none_bound(mode):
    x = np.array([-0.9, 0.1, 0.5, 0.7, 1.3])
    check(zoo.clip_above, [x], mode=mode)
    check(zoo.clip_below, [x, 0.2], wrt=(0, 1), mode=mode)


@pytest.mark.parametrize("mode", MODES + ["tape"])
def test_clip_with_its_bounds_by_keyword(mode):
    x = np.array([-0.9, 0.1, 0.5, 0.7, 1.3])
    check(zoo.clip_by_keywords, [x, 0.2], wrt=(0, 1), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_clip_with_bounds_crossed_gives_hi_its_derivative(mode):
    x = np.array([-0.9, 0.1, 0.5, 0.7, 1.3])
    check(zoo.clip_with_bounds_crossed, [x, np.full(5, 0.6), np.full(5, 0.3)], wrt=(0, 1, 2),
          mode=mode)
    check(zoo.clip_with_bounds_crossed, [x, np.array([0.2, 0.2, 0.9, 0.9, 0.2]),
                                         np.array([0.6, 0.6, 0.4, 0.4, 0.6])],
          wrt=(0, 1, 2), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_reductions_of_lists(mode):
    check(zoo.sum_of_list, [0.5, 1.5], wrt=(0, 1), mode=mode)
    check(zoo.reductions_of_lists, [0.5, 1.5], wrt=(0, 1), mode=mode)
    check(zoo.sum_of_list_of_arrays, [vector(3), vector(3, seed=2)], wrt=(0, 1), mode=mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [zoo.ufuncs_of_a_list, zoo.binary_ufuncs_of_lists,
                               zoo.ufuncs_of_a_tuple, zoo.list_times_array,
                               zoo.hstack_of_numbers])
def test_numpy_functions_of_python_lists(f, mode):
    """Rules whose arithmetic needs arrays convert a list (or tuple) operand with
    np.asarray (a TypeError from the derivative before); a list times an array is
    NumPy's elementwise product, not a list repetition (forward mode dropped the
    array's tangent: half the gradient); np.hstack of numbers gives numbers."""
    check(f, [0.4, 0.6], wrt=(0, 1), mode=mode)


def test_second_derivatives_of_functions_of_lists():
    for f in (zoo.ufuncs_of_a_list, zoo.binary_ufuncs_of_lists):
        h = s2sad.hessian(f, wrt=(0, 1))(0.4, 0.6)
        g = s2sad.grad(f, wrt=(0, 1))
        step = 1e-5
        for i in range(2):
            up, down = [0.4, 0.6], [0.4, 0.6]
            up[i] += step
            down[i] -= step
            numeric = (np.array(g(*up)) - np.array(g(*down))) / (2 * step)
            np.testing.assert_allclose([h[0][i], h[1][i]], numeric, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------- norms


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f,x,marker", [
    (zoo.norm_0, vector(4), "ord 0"), (zoo.norm_0_of_rows, vector(3, 4), "ord 0 of rows")])
def test_a_literal_norm_order_without_a_derivative_is_refused_at_transform_time(f, x, marker,
                                                                                 mode):
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.source(f, mode=mode, example=(x,))
    assert info.value.lineno == line_of(f, marker)
    assert "np.linalg.norm" in str(info.value) and "ord=0" in str(info.value)
    with pytest.raises(s2sad.NoRuleError):
        s2sad.grad(f, mode=mode)(x)


@pytest.mark.parametrize("mode", MODES)
def test_norms_of_every_order(mode):
    """Vectors' 1, +-inf and p-norms, matrices' spectral, nuclear and +-1, +-inf norms,
    over a pair of axes and with keepdims, against central differences."""
    check(zoo.norms_s2sad_differentiates, [vector(4), vector(3, 4, seed=4)], wrt=(0, 1), mode=mode)
    check(zoo.vector_norms, [vector(5), vector(3, 4, seed=4)], wrt=(0, 1), mode=mode)
    check(zoo.matrix_norms, [vector(3, 4, seed=5), vector(2, 3, 4, seed=6)], wrt=(0, 1),
          mode=mode)
    assert s2sad.grad(zoo.constant_norm, mode=mode)(2.0, vector(4)) == pytest.approx(
        np.linalg.norm(vector(4), 1) + np.linalg.norm(vector(4), np.inf))


def test_norms_at_their_kinks():
    """At a zero element the 1-norm's derivative is sign(0) = 0, ties of the largest
    magnitude share it equally (as np.max's), and rows of equal sums share a matrix
    norm's."""
    x = np.array([0.0, -2.0, 2.0, 1.0])
    np.testing.assert_array_equal(s2sad.grad(zoo.norm_of_order)(x, 1), [0.0, -1.0, 1.0, 1.0])
    np.testing.assert_array_equal(s2sad.grad(zoo.norm_of_order)(x, np.inf), [0, -0.5, 0.5, 0])
    a = np.array([[1.0, -2.0], [3.0, 0.0]])  # (rows sum to 3 and 3: the inf-norm ties)
    g = s2sad.grad(zoo.norm_of_order)(a, np.inf)
    np.testing.assert_array_equal(g, [[0.5, -0.5], [0.5, 0.0]])


def test_hessians_of_norms():
    def f(x, a):
        return (np.linalg.norm(x, 3) + np.linalg.norm(x, 1) * np.linalg.norm(x, np.inf)
                + np.linalg.norm(a, "nuc") + np.linalg.norm(a, 2) ** 2 + np.linalg.norm(a, -2)
                + np.linalg.norm(a, 1) ** 2)

    x, a = vector(4), vector(3, 4, seed=5)
    for i, arg in enumerate((x, a)):
        g = s2sad.grad(f, wrt=i)
        n = arg.size
        expected = np.array([central_diff(lambda *v: g(*v).ravel()[k], [x, a], i).ravel()
                             for k in range(n)])
        H = s2sad.hessian(f, wrt=i)(x, a)
        np.testing.assert_allclose(np.reshape(H, (n, n)), expected, rtol=1e-5, atol=1e-6)


def test_a_norm_order_known_only_at_run_time_is_checked_at_run_time():
    with pytest.raises(ValueError, match="ord=0"):
        s2sad.grad(zoo.norm_of_order)(vector(4), 0)
    x = vector(4)
    assert s2sad.grad(zoo.norm_of_order)(x, 2) == pytest.approx(x / np.linalg.norm(x))
    assert s2sad.grad(zoo.norm_of_order)(x, 1) == pytest.approx(np.sign(x))
    # the spectral norm through a tuple of axes given when the function runs
    a = vector(3, 3)
    u, _, vh = np.linalg.svd(a)
    np.testing.assert_allclose(s2sad.grad(zoo.spectral_by_given_axes, mode="forward")(a, (0, 1)),
                               np.outer(u[:, 0], vh[0]), atol=1e-12)


# ------------------------------------------------------------------ tuple axes


@pytest.mark.parametrize("mode", MODES)
def test_a_literal_tuple_of_axes_reduces_to_a_number(mode):
    """A tuple of axes used to reach the reduction as a name, so its result's kind
    was an array and grad refused a function that returns one number."""
    check(zoo.frobenius_by_axes, [vector(3, 4)], mode=mode)
    check(zoo.sum_over_two_axes, [vector(3, 4)], mode=mode)
    check(zoo.reductions_over_tuples, [vector(2, 3, 4)], mode=mode)
    text = s2sad.source(zoo.sum_over_two_axes, mode=mode, example=(vector(3, 4),))
    assert "axis=(0, 1)" in text or "(0, 1)" in text


# ------------------------------------------------------------- argmax, argmin


@pytest.mark.parametrize("mode", MODES)
def test_argmax_without_an_axis_is_an_int(mode):
    """np.argmax/np.argmin (and the methods) with no axis return an int: x[i] is one
    number, not an array (a false NonScalarOutputError)."""
    x = np.array([0.3, -0.7, 0.9, 0.1])
    check(zoo.pick_largest, [x], mode=mode)
    check(zoo.pick_by_methods, [x, vector(4, 3)], wrt=(0, 1), mode=mode)


def test_kinds_of_argmax():
    from s2sad.ir.kinds import INT, SCALAR, ArrayKind, ListKind, kind_of
    from s2sad.primitives.facts import constant_kind

    def kind(text, **kinds):
        call = ast.parse(text, mode="eval").body
        obj = np.argmin if "argmin" in text else np.argmax
        return constant_kind(call, obj, lambda a: kinds.get(getattr(a, "id", None),
                                                            kind_of(getattr(a, "value", None))))

    A = ArrayKind
    m = A(2)
    assert kind("np.argmax(x)", x=m) == INT and kind("x.argmin()", x=m) == INT
    assert kind("np.argmax(x, axis=0)", x=m) == A(1, "i") == kind("x.argmax(1)", x=m)
    assert kind("np.argmax(v, 0)", v=A(1)) == INT
    assert kind("np.argmax(x, 0, keepdims=True)", x=m) == A(2, "i")
    assert kind("np.argmin(xs)", xs=ListKind(SCALAR)) == INT


# ------------------------------------------------------------ x ** y, x < 0


@pytest.mark.parametrize("f", [zoo.power, zoo.powers])
def test_power_at_a_negative_base(f):
    """d/dy of x ** y at x < 0 is NaN (JAX's convention, and the array rule's): never
    an exception, never a finite number; d/dx is exact."""
    scale = 1.0 if f is zoo.power else 2.0
    for mode in MODES:
        assert s2sad.grad(f, wrt=0, mode=mode)(-2.0, 3.0) == pytest.approx(12.0 * scale)
        dx, dy = s2sad.grad(f, wrt=(0, 1))(-2.0, 3.0)
        assert dx == pytest.approx(12.0 * scale) and math.isnan(dy)
    # forward mode with y active but held still: no math domain error
    out, tangent = s2sad.jvp(f, (-2.0, 3.0), (1.0, 0.0))
    assert out == pytest.approx(-8.0 * scale) and (math.isnan(tangent) or tangent == 12.0 * scale)
    assert math.isnan(s2sad.jvp(f, (-2.0, 3.0), (0.0, 1.0))[1])
    # at x == 0 the y-derivative is 0 (log's zero replaced by one, as JAX)
    assert s2sad.grad(f, wrt=(0, 1))(0.0, 3.0) == (0.0, 0.0)


# ------------------------------------------------------------ second derivatives


@pytest.mark.parametrize("f,wrt", [(zoo.det_then_trace, 0), (zoo.det_then_trace, 1),
                                   (zoo.logdet_then_solve, 0), (zoo.logdet_then_solve, 1)])
def test_hessians_through_the_stack_rules(f, wrt):
    """Forward mode over the reverse rules of stacks (their adjoint code has rules too)."""
    args = [stack(2, 3, 3), vector(3, 3, 2)] if f is zoo.det_then_trace else \
        [stack(2, 3, 3), vector(2, 3, 2)]
    h = s2sad.hessian(f, wrt=wrt)(*args)
    x = args[wrt]
    g = s2sad.grad(f, wrt=wrt)
    numeric = np.zeros((x.size, x.size))
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = 1e-5
        up, down = list(args), list(args)
        up[wrt], down[wrt] = x + step.reshape(x.shape), x - step.reshape(x.shape)
        numeric[:, k] = ((g(*up) - g(*down)) / 2e-5).ravel()
    np.testing.assert_allclose(np.reshape(h, numeric.shape), numeric, rtol=1e-5, atol=1e-6)


# ---------------------------------- axes counted from the end, and concatenate(axis=None)


@pytest.mark.parametrize("mode", MODES)
def test_transposes_with_axes_counted_from_the_end(mode):
    """The reverse rule inverted the permutation with np.argsort(axes), which for
    (-1, 0, 1) is the identity: an adjoint of the wrong shape (or, for a square
    array, silently the wrong permutation)."""
    a = vector(2, 3, 4)
    check(zoo.transpose_negative, [a], mode=mode)
    check(zoo.transpose_method_negative, [a], mode=mode)
    for axes in [(-1, 0, 1), [2, -3, 1], (2, 0, -2)]:
        check(zoo.transpose_runtime_axes, [a, axes], mode=mode)
    check(zoo.swapaxes_negative, [vector(2, 3, 4)], mode=mode)
    check(zoo.transpose_method_varargs, [a], mode=mode)
    check(zoo.moveaxis_negative, [a], mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_a_transpose_counted_from_the_end_of_a_cube(mode):
    """Where every axis has the same length, the wrong permutation has the right
    shape: a silently wrong gradient."""
    check(zoo.square_transpose, [vector(2, 2, 2)], mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_axis_taking_rules_with_axes_counted_from_the_end(mode):
    a = vector(2, 3, 4) + 2.0
    check(zoo.reductions_negative, [a], mode=mode)
    check(zoo.expand_squeeze_negative, [vector(2, 3, 4)], mode=mode)
    check(zoo.stack_concat_negative, [vector(3, 2), vector(3, 2, seed=3)], wrt=(0, 1), mode=mode)
    check(zoo.stack_family, [vector(3, 2), vector(3, 2, seed=3)], wrt=(0, 1), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_concatenate_with_axis_none_flattens(mode):
    """np.concatenate(..., axis=None) flattens its parts: the reverse helper indexed
    a shape with None, forward mode dropped `axis=None` as if it were the default
    (it is 0), and the result was taken to have the parts' rank."""
    check(zoo.concat_flattened, [vector(2, 3), vector(4, seed=3)], wrt=(0, 1), mode=mode)
    check(zoo.concat_flattened_then_matrix, [vector(2, 3), vector(2, 2, seed=3)], wrt=(0, 1),
          mode=mode)


# ------------------------------------------- x ** k at x == 0 with k == 0 at run time


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", [0, 1, 2, 3, 0.0, 1.0, 2.5])
def test_a_power_at_zero_is_exact_where_it_is_smooth(k, mode):
    """x ** 0 is 1 everywhere: its derivative at x == 0 is 0, where k * x ** (k - 1)
    computed 0 * 0.0 ** -1 (ZeroDivisionError for numbers, NaN for arrays). x ** 1
    has derivative 1 there, x ** 2 and x ** 3 derivative 0."""
    with np.errstate(all="raise"):
        got = s2sad.grad(zoo.power_of_number, mode=mode)(0.0, k)
        assert got == 3.0 * (k == 1)
        x = np.array([0.0, 0.0, 0.5, 1.5])
        want = 3.0 * (k * x ** (k - 1) if k else 0.0 * x)
        want[:2] = 3.0 * (k == 1)
        np.testing.assert_allclose(s2sad.grad(zoo.power_of_array, mode=mode)(x, k), want)
        if k != 2.5:
            np.testing.assert_allclose(s2sad.grad(zoo.power_of_a_list, mode=mode)([0.0, 0.5], k),
                                       [k == 1, k * 0.5 ** (k - 1) if k else 0.0])


@pytest.mark.parametrize("mode", MODES)
def test_an_array_of_exponents_with_zeros_at_zero(mode):
    x = np.array([0.0, 0.0, 0.0, 0.5])
    k = np.array([0, 1, 2, 0])
    with np.errstate(all="raise"):
        got = s2sad.grad(zoo.power_of_arrays, mode=mode)(x, k)
    np.testing.assert_allclose(got, [0.0, zoo.WEIGHTS[1] + 1.0, 0.0, 0.0])


def test_second_derivatives_of_a_power_at_zero():
    for k, want in [(0, 0.0), (1, 0.0), (2, 6.0), (3, 0.0)]:
        assert s2sad.hessian(zoo.power_of_number)(0.0, k) == want
        np.testing.assert_allclose(s2sad.hessian(zoo.power_of_array)(np.zeros(2), k),
                                   want * np.eye(2))


def test_mixed_second_derivatives_of_a_power_at_a_zero_exponent():
    """d/dy of y * x ** (y - 1) at y == 0 is 1 / x: the rule's guard for x == y == 0
    must not hold the exponent still in y elsewhere (H was not symmetric: 1 and 1/2)."""
    h = s2sad.hessian(zoo.power_of_both, wrt=(0, 1))(2.0, 0.0)
    np.testing.assert_allclose(np.array(h, dtype=float), [[0.0, 1.5], [1.5, h[1][1]]])
    x, y = np.array([2.0, 4.0, 0.5]), np.array([0.0, 1.0, 0.0])
    (hxx, hxy), (hyx, hyy) = s2sad.hessian(zoo.powers_of_both, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(hxy, hyx.T)
    # d2/dxdy of x ** y + x ** (2 y): x ** (y - 1) (1 + y log x) + 2 x ** (2y - 1) (1 + 2y log x)
    want = x ** (y - 1) * (1 + y * np.log(x)) + 2 * x ** (2 * y - 1) * (1 + 2 * y * np.log(x))
    np.testing.assert_allclose(np.diag(hxy), want)


def test_a_literal_exponent_emits_what_it_did():
    """Only an exponent known at run time pays for the test of k == 0."""
    text = s2sad.source(zoo.literal_square, example=(np.zeros(3),))
    assert "if" not in text.split("def ", 1)[1] and "2.0 * x" in text.replace("2 * x", "2.0 * x")
    assert "(x if k else np.ones_like(x)) ** (k - 1)" in s2sad.source(
        zoo.power_of_array, example=(np.zeros(3), 2))


# ------------------------------------------------------ det at a singular matrix

SINGULAR = np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.3, -0.7, 1.1]])  # rank 2
RANK_ONE = np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0])


def adjugate(a):
    """adj(a) by its definition (the transposed matrix of signed minors)."""
    n = a.shape[-1]
    c = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c.T


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("a", [SINGULAR, RANK_ONE, np.zeros((3, 3)), np.zeros((1, 1)),
                               np.array([[1.0, 2.0], [2.0, 4.0]])])
def test_det_at_a_singular_matrix(a, mode):
    """det is a polynomial: its gradient adj(a).T exists everywhere. It was
    det * inv(a).T, a LinAlgError at a singular matrix (forward mode: solve)."""
    want = adjugate(a).T if a.shape[0] > 1 else np.ones((1, 1))
    np.testing.assert_allclose(s2sad.grad(zoo.det_of, mode=mode)(a), want, atol=1e-12)
    check(zoo.det_squared_plus, [a], mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_det_of_a_stack_with_singular_matrices(mode):
    a = np.stack([SINGULAR, stack(3, 3), RANK_ONE, np.zeros((3, 3))])
    want = np.stack([adjugate(m).T for m in a])
    np.testing.assert_allclose(s2sad.grad(zoo.sum_det, mode=mode)(a), want, atol=1e-12)


def test_second_derivatives_of_det_at_a_singular_matrix():
    for a in [SINGULAR, RANK_ONE, stack(3, 3)]:
        h = s2sad.hessian(zoo.det_of)(a)
        numeric = np.zeros((9, 9))
        for k in range(9):
            step = np.zeros(9)
            step[k] = 1e-5
            numeric[:, k] = ((adjugate(a + step.reshape(3, 3)).T
                              - adjugate(a - step.reshape(3, 3)).T) / 2e-5).ravel()
        np.testing.assert_allclose(np.reshape(h, (9, 9)), numeric, rtol=1e-6, atol=1e-8)
    h = s2sad.hessian(zoo.sum_det)(np.stack([SINGULAR, RANK_ONE]))
    assert np.all(np.isfinite(h))


@pytest.mark.parametrize("mode", MODES)
def test_slogdet_inv_and_solve_at_a_singular_matrix_raise(mode):
    """None of them is differentiable at a singular matrix. inv and solve raise there
    themselves, and so do their derivatives (the same error, from the user's call);
    slogdet gives log |det| = -inf, and its derivative says it has none there (still
    a LinAlgError, never NaN)."""
    a = SINGULAR
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        s2sad.grad(zoo.inv_sum, mode=mode)(a)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        s2sad.grad(zoo.solve_sum, mode=mode)(a, np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="log-determinant is -inf"):
        s2sad.grad(zoo.logdet_of_matrix, mode=mode)(a)
    with pytest.raises(np.linalg.LinAlgError, match="log-determinant is -inf"):
        s2sad.grad(zoo.sum_logdet, mode=mode)(np.stack([stack(3, 3), a]))


@pytest.mark.parametrize("mode", MODES)
def test_std_of_one_element_is_constant(mode):
    """std over one element is 0 for every value: derivative 0, where
    out_bar / out * (x - mean) was 0 / 0 = NaN."""
    with np.errstate(all="raise"):
        got = s2sad.grad(zoo.std_of_single_rows, mode=mode)(vector(3, 1))
        np.testing.assert_array_equal(got, np.zeros((3, 1)))
        assert s2sad.grad(zoo.std_of_a_number, mode=mode)(0.3) == 2.0


@pytest.mark.parametrize("f,args", [
    (zoo.power_of_number, (0.0, 0)), (zoo.power_of_array, (np.array([0.0, 0.5]), 0)),
    (zoo.power_of_arrays, (np.array([0.0, 0.0, 0.0, 0.5]), np.array([0, 1, 2, 0]))),
    (zoo.det_squared_plus, (SINGULAR,)), (zoo.sum_det, (np.stack([SINGULAR, RANK_ONE]),)),
    (zoo.transpose_negative, (vector(2, 3, 4),)), (zoo.moveaxis_negative, (vector(2, 3, 4),)),
    (zoo.concat_flattened, (vector(2, 3), vector(4, seed=3))),
    (zoo.std_of_single_rows, (vector(3, 1),))])
def test_every_method_agrees_at_the_edges(f, args):
    """The compiler in both modes, the tape and the dual numbers (which have their own
    rule for a constant exponent) against central differences."""
    s2sad.check(f, *args)


def angled_arrays(x):
    return np.sum(np.angle(x) * x ** 2 + np.real_if_close(x) ** 3) + np.angle(x[0], deg=True) * x[1]


def angled(x):
    return angled_arrays(x) + np.sum(np.real_if_close([x[0], x[2]]) * x[1:3])


@pytest.mark.parametrize("mode", MODES)
def test_angle_and_real_if_close_of_real_values(mode):
    """np.angle of real values is 0 or pi (derivative 0), np.real_if_close x itself."""
    check(angled, [np.array([0.7, -1.2, 0.4, -0.3])], mode=mode)
    # (angle(x) x^2: 2 angle(x); x^3: 6 x; [x0, x2] @ x[1:3]: x0 x1 + x2 x2)
    x = np.array([0.7, -1.2, 0.4, -0.3])
    expected = np.diag(2.0 * np.angle(x) + 6.0 * x)
    expected[0, 1] = expected[1, 0] = 1.0
    expected[2, 2] += 2.0
    assert np.allclose(s2sad.hessian(angled)(x), expected)
    # at 0, where angle jumps from pi to 0: derivative 0, as at the other kinks
    assert np.array_equal(s2sad.grad(lambda_free_angle, mode=mode)(np.array([0.0, -0.5])),
                          [0.0, 0.0])
    # (the engines: of arrays; np.real_if_close of a list of traced numbers, like
    # np.real's, they do not follow yet)
    for f in (s2sad.grad(angled_arrays, mode="tape"), lambda x: dual_grad(angled_arrays, (x,))[1]):
        assert np.allclose(f(x), central_diff(angled_arrays, [x], 0))


def lambda_free_angle(x):
    return np.sum(np.angle(x))
