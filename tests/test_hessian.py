"""Second derivatives: `hvp`, `hessian` and ``grad(grad(f))`` are forward mode over
the compiled reverse-mode gradient. Every case of the reverse-mode suites is checked
against central differences of its (already tested) reverse gradient."""

import math
import random

import numpy as np
import pytest

import s2sad
from s2sad.api import dispatch
import zoo
import zoo_loops
import zoo_numpy
from helpers import positions
from test_forward import direction
from zoo_containers import (last_read_in_loop_then_appended, popped_and_appended_in_loop,
                            popped_then_read_last, read_last_then_append,
                            read_last_then_append_mixed, whole_list_read_then_changed)
from zoo_numpy_edges import power
from zoo_second_order import (array_float_exponent, bilinear, branch_call_saving_an_array,
                              branch_call_without_varied_input,
                              branch_recursive_call_without_varied_input, carried_element,
                              dot_times, indexed_list, integer_exponent_saved_on_a_tape,
                              linear_in_one, loop_call_without_varied_input,
                              loop_recursive_call_without_varied_input, matrix_times,
                              recursive_element, rosenbrock, slice_skipped_by_continue,
                              array_of_a_comprehension,
                              summed_product, summed_twice)

CASES = [(f, args, wrt) for f, args, wrt in zoo.ZOO + zoo_loops.ZOO + zoo_numpy.ZOO]
IDS = [f"{f.__module__}.{f.__name__}-{k}" for k, (f, _, _) in enumerate(CASES)]


def shifted(args, where, v, h):
    out = list(args)
    for i in where:
        a = args[i]
        if isinstance(a, np.ndarray):
            out[i] = a + h * v[i]
        elif isinstance(a, list):
            out[i] = [x + h * d for x, d in zip(a, v[i])]
        else:
            out[i] = a + h * v[i]
    return out


def gradient_difference(f, args, where, v, h=1e-5):
    """(grad(x + h v) - grad(x - h v)) / 2h, one block per parameter in `where`."""
    g = s2sad.grad(f, wrt=tuple(where))
    up = g(*shifted(args, where, v, h))
    down = g(*shifted(args, where, v, -h))
    return [(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) / (2 * h)
            for a, b in zip(up, down)]


def differentiable_everywhere_near(f, args, where, v):
    """Cases with kinks (abs, max, floor, branches) have no second derivative at
    some points; skip a point where the gradient jumps within the step."""
    a = gradient_difference(f, args, where, v, 1e-5)
    b = gradient_difference(f, args, where, v, 1e-4)
    return all(np.allclose(x, y, rtol=1e-3, atol=1e-5) for x, y in zip(a, b))


# parameters whose second derivatives s2sad refuses (none now: loop-carried arrays
# written into and restored from the tape, boundary_writes and heat_steps for c, used
# to be)
WRITES = {}


@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_hvp_matches_differences_of_the_gradient(f, args, wrt):
    rng = random.Random(3)
    where = positions(f, wrt)
    for refused in WRITES.get(f, ()):
        with pytest.raises(s2sad.S2SADError, match="cannot yet take second derivatives") as e:
            s2sad.hvp(f, wrt=refused)(*args, direction(args[refused], rng))
        assert e.value.filename == zoo_numpy.__file__
    v = {i: direction(args[i], rng) for i in where}
    if not differentiable_everywhere_near(f, args, where, v):
        pytest.skip("the gradient has a kink near this point")
    for k, i in enumerate(where):
        if i in WRITES.get(f, ()):
            continue
        got = s2sad.hvp(f, wrt=i)(*args, v[i])
        # H v restricted to direction v_i only: compare along that one parameter
        only = {j: (v[j] if j == i else _zero(args[j])) for j in where}
        want = gradient_difference(f, args, where, only)[k]
        assert np.allclose(np.asarray(got, dtype=float), want, rtol=1e-4, atol=1e-5), (got, want)


def _zero(x):
    if isinstance(x, np.ndarray):
        return np.zeros_like(x)
    if isinstance(x, list):
        return [0.0] * len(x)
    return 0.0


def _number(x):
    return float(np.asarray(x))


def test_hessian_of_rosenbrock_is_exact():
    H = s2sad.hessian(rosenbrock, wrt=("x", "y"))(1.5, 0.5)
    x, y = 1.5, 0.5
    exact = ((2 - 400 * (y - x * x) + 800 * x * x, -400 * x), (-400 * x, 200.0))
    for i in range(2):
        for j in range(2):
            assert math.isclose(_number(H[i][j]), exact[i][j], rel_tol=1e-12)


def test_hessian_of_an_array_function_has_shape_s_plus_s():
    def f(x):
        return np.sum(np.tanh(x) ** 2) + x[0] * x[1] * x[2]

    x = np.array([0.3, -0.7, 1.1])
    H = s2sad.hessian(f)(x)
    assert H.shape == (3, 3)
    assert np.allclose(H, H.T)
    t = np.tanh(x)
    exact = np.diag(2 * (1 - t ** 2) * (1 - 3 * t ** 2))
    exact += np.array([[0, x[2], x[1]], [x[2], 0, x[0]], [x[1], x[0], 0]])
    assert np.allclose(H, exact, rtol=1e-12, atol=1e-12)


def test_hessian_of_a_list_argument_and_of_a_loop():
    H = s2sad.hessian(zoo_loops.rosenbrock)([0.5, 1.2, -0.3, 0.8])
    assert H.shape == (4, 4) and np.allclose(H, H.T)
    h = 1e-5
    g = s2sad.grad(zoo_loops.rosenbrock)
    xs = [0.5, 1.2, -0.3, 0.8]
    for j in range(4):
        up = [x + (h if k == j else 0.0) for k, x in enumerate(xs)]
        down = [x - (h if k == j else 0.0) for k, x in enumerate(xs)]
        column = (np.asarray(g(up)) - np.asarray(g(down))) / (2 * h)
        assert np.allclose(H[:, j], column, rtol=1e-6, atol=1e-6)


def test_grad_of_grad_through_a_while_loop():
    # Newton's iteration converges to sqrt(a) for every a: d2/da2 sqrt(a) = -a**-1.5/4
    d2 = s2sad.grad(s2sad.grad(zoo_loops.newton_sqrt))
    for a in (2.0, 30.0):
        assert math.isclose(d2(a), -0.25 * a ** -1.5, rel_tol=1e-6)


def test_grad_of_grad_of_a_two_argument_function():
    def f(x, y):
        return x ** 3 * y + math.sin(x * y)

    dfdx = s2sad.grad(f, wrt="x")
    dxy = s2sad.grad(dfdx, wrt="y")
    x, y = 0.7, 1.3
    assert math.isclose(dxy(x, y), 3 * x * x + math.cos(x * y) - x * y * math.sin(x * y),
                        rel_tol=1e-12)
    dxx = s2sad.grad(dfdx, wrt="x")
    assert math.isclose(dxx(x, y), 6 * x * y - y * y * math.sin(x * y), rel_tol=1e-12)


def test_hvp_equals_the_hessian_times_v():
    def f(x):
        return np.sum(np.exp(x) * np.sin(x[::-1])) + np.dot(x, x) ** 2

    x = np.array([0.2, -0.4, 0.9, 0.1])
    v = np.array([1.0, 0.5, -2.0, 0.3])
    assert np.allclose(s2sad.hvp(f)(x, v), s2sad.hessian(f)(x) @ v, rtol=1e-12, atol=1e-12)


def test_second_derivative_code_calls_the_runtime_helpers_forward_rules():
    """Forward over reverse code inlines the helpers' forward rules: no helper is
    transformed from its source."""
    def f(x, b):
        return np.sum(np.tanh(x + b) ** 2) + np.max(b)

    x, b = np.ones((2, 3)) * 0.1, np.array([0.2, -0.3, 0.5])
    got = s2sad.hvp(f, wrt="b")(x, b, np.ones_like(b))
    assert got.shape == b.shape
    gradient = dispatch.gradient_to_differentiate(f, ("b",), {"x": x, "b": b})
    text = s2sad.source(gradient, mode="forward", wrt="b")
    assert text.count("def ") == 1, text
    assert "unbroadcast(t" in text and "extreme_bar(" in text


# ------------------------------------------------------- zero Hessian blocks
# Forward mode leaves the tangent of a gradient nothing varying reaches (a function
# linear in an argument) as the number 0.0: the Hessian block is zeros of its shape.

LINEAR = [(summed_twice, np.array([1.0, 2.0, 3.0])), (matrix_times, np.ones(3)),
          (dot_times, np.array([0.5, -1.0, 2.0])), (summed_product, np.ones(3)),
          (summed_twice, [1.0, 2.0]), (indexed_list, [1.0, 2.0])]


@pytest.mark.parametrize("f,x", LINEAR, ids=[f"{f.__name__}-{type(x).__name__}"
                                             for f, x in LINEAR])
def test_the_hessian_of_a_linear_function_is_zeros_of_its_shape(f, x):
    n = len(x)
    H = s2sad.hessian(f)(x)
    assert isinstance(H, np.ndarray) and H.shape == (n, n) and not H.any()
    v = np.ones(n) if isinstance(x, np.ndarray) else [1.0] * n
    Hv = s2sad.hvp(f)(x, v)
    assert type(Hv) is type(x) and np.shape(Hv) == (n,) and not np.any(Hv)


def test_zero_blocks_among_nonzero_ones():
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.0, 3.0])
    (xx, xy), (yx, yy) = s2sad.hessian(linear_in_one, wrt=(0, 1))(x, y)
    assert np.array_equal(xx, 2.0 * np.eye(3))
    assert xy.shape == (3, 2) and yx.shape == (2, 3) and yy.shape == (2, 2)
    assert not (xy.any() or yx.any() or yy.any())
    assert np.array_equal(s2sad.hvp(linear_in_one, wrt=1)(x, y, np.ones(2)), np.zeros(2))


def test_a_bilinear_function_against_differences_of_its_gradient():
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.0, 3.0, -2.0])
    H = s2sad.hessian(bilinear, wrt=(0, 1))(x, y)
    rng = random.Random(5)
    for j, (a, b) in enumerate(((1, 0), (0, 1))):
        v = {0: a * direction(x, rng), 1: b * direction(y, rng)}
        want = gradient_difference(bilinear, (x, y), (0, 1), v)
        for i in range(2):
            got = H[i][j] @ v[j]
            assert np.allclose(got, want[i], rtol=1e-6, atol=1e-8), (i, j)
    assert np.array_equal(H[0][0], np.zeros((3, 3))) and np.array_equal(H[0][1], np.eye(3))
    assert np.array_equal(s2sad.hvp(bilinear)(x, y, np.ones(3)), np.zeros(3))


def test_grad_of_grad_of_a_linear_function_is_zero():
    def line(x, y):
        return 3.0 * x + y * y

    assert s2sad.grad(s2sad.grad(line))(1.0, 2.0) == 0.0
    assert s2sad.grad(s2sad.grad(line, wrt=1), wrt=0)(1.0, 2.0) == 0.0
    assert s2sad.hessian(line, wrt=(0, 1))(1.0, 2.0) == ((0.0, 0.0), (0.0, 2.0))


def test_the_hessian_with_an_empty_argument():
    def f(x, y):
        return np.sum(x * x) * y + y * y

    (xx, xy), (yx, yy) = s2sad.hessian(f, wrt=(0, 1))(np.ones(0), 2.0)
    assert xx.shape == (0, 0) and xy.shape == (0,) and yx.shape == (0,) and yy == 2.0


@pytest.mark.parametrize("f,args", [(carried_element, (np.array([0.5, 0.3]),)),
                                    (recursive_element, (np.array([0.7, -0.4, 0.2]), 2)),
                                    (slice_skipped_by_continue, (np.array([0.1, 0.2, -0.3]),))])
def test_hessian_of_code_reading_an_element_of_a_carried_array(f, args):
    """The gradient pops the carried array from its tape and reads an element: its
    tape of arrays used to lose its element kind, and the Hessian was refused. Where
    an iteration left by `continue` pushed None for the array it did not compute, the
    array's adjoint (``np.zeros_like`` of the popped array, written by slice) lost its
    derivative and the Hessian was zeros."""
    x = args[0]
    H = s2sad.hessian(f)(*args)
    g = s2sad.grad(f)
    h = 1e-5
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        column = (g(x + e, *args[1:]) - g(x - e, *args[1:])) / (2 * h)
        assert np.allclose(H[:, j], column, rtol=1e-5, atol=1e-6)


# ---------------------------------------- lists that grow or shrink after a read


@pytest.mark.parametrize("f", [read_last_then_append, read_last_then_append_mixed,
                               popped_then_read_last, popped_and_appended_in_loop,
                               last_read_in_loop_then_appended,
                               whole_list_read_then_changed])
def test_hessian_of_a_list_read_before_it_grows_or_shrinks(f):
    """The gradient pops its adjoint list where the function appended (and puts back
    what it popped); forward mode over it popped only the value list, not its tangent
    list, so ``ys_bar[-1]`` of the tangents read the element after: Hessians of
    zero, or of the wrong entries, for a value read by a negative index before an
    append."""
    g = s2sad.grad(f, wrt=(0, 1))
    for x, y in [(-0.1, 0.0), (0.4, -0.7)]:
        H = np.array(s2sad.hessian(f, wrt=(0, 1))(x, y))
        h = 1e-5
        want = [(f(x + h, y) - f(x - h, y)) / (2 * h), (f(x, y + h) - f(x, y - h)) / (2 * h)]
        assert np.allclose(g(x, y), want, rtol=1e-5, atol=1e-6), (f.__name__, g(x, y), want)
        for j, (dx, dy) in enumerate([(h, 0.0), (0.0, h)]):
            column = (np.array(g(x + dx, y + dy)) - np.array(g(x - dx, y - dy))) / (2 * h)
            assert np.allclose(H[:, j], column, rtol=1e-5, atol=1e-6), (f.__name__, H, column)


@pytest.mark.parametrize("f", [branch_call_without_varied_input, loop_call_without_varied_input,
                               branch_call_saving_an_array,
                               branch_recursive_call_without_varied_input,
                               loop_recursive_call_without_varied_input])
def test_hessian_of_a_call_whose_inputs_vary_on_one_path_only(f):
    """The gradient unpacks a call's (value, saved values) on each path; where no
    input of the call varies along the direction, forward mode gave the saved values
    no tangent (``saved_dot = saved_dot``: unbound, or an earlier iteration's), and
    the callee's derivative unpacks it: its zero must be a tuple of zeros shaped like
    the values saved on that path (UnboundLocalError before), and where that shape
    is known only at run time (a recursive callee's), built at run time (a float
    zero, unpacked by the callee's derivative: TypeError)."""
    g = s2sad.grad(f, wrt=(0, 1))
    for x, y in [(-0.3, 0.2), (0.4, -0.7), (0.9, 0.0)]:
        H = np.array(s2sad.hessian(f, wrt=(0, 1))(x, y))
        h = 1e-5
        for j, (dx, dy) in enumerate([(h, 0.0), (0.0, h)]):
            column = (np.array(g(x + dx, y + dy)) - np.array(g(x - dx, y - dy))) / (2 * h)
            assert np.allclose(H[:, j], column, rtol=1e-5, atol=1e-6), (f.__name__, x, y, H, column)


def test_a_power_of_a_negative_base_along_a_direction_that_keeps_the_exponent():
    """Where the base is negative the power has no derivative in its exponent, but
    along a direction that does not move the exponent the term is 0, not NaN * 0.
    The gradient saves an integer exponent on a tape (beside None on the other path),
    so the Hessian's forward pass sees a number there and took the exponent's term:
    NaN at every negative base."""
    g = s2sad.grad(integer_exponent_saved_on_a_tape, wrt=(0, 1))
    x, y, h = -0.7885625938502046, 0.0, 1e-6
    H = np.array(s2sad.hessian(integer_exponent_saved_on_a_tape, wrt=(0, 1))(x, y))
    column = (np.array(g(x + h, y)) - np.array(g(x - h, y))) / (2 * h)
    assert np.allclose(H[:, 0], column, rtol=1e-5, atol=1e-6), (H, column)
    # x ** y at x = -2, y = 2.0: smooth in x; in y it has no derivative (NaN)
    H = np.array(s2sad.hessian(power, wrt=(0, 1))(-2.0, 2.0))
    assert H[0, 0] == 2.0 and np.isnan(H[0, 1]) and np.isnan(H[1, 1]), H
    assert s2sad.jvp(power, (-2.0, 2.0), (1.0, 0.0))[1] == -4.0
    assert np.isnan(s2sad.jvp(power, (-2.0, 2.0), (0.0, 1.0))[1])
    xs, ys = np.array([-2.0, 3.0]), np.array([2.0, 0.5])
    tangent = s2sad.jvp(array_float_exponent, (xs, ys), (np.ones(2), np.zeros(2)))[1]
    assert np.isclose(tangent, -4.0 + 0.5 * 3.0 ** -0.5), tangent


def test_hessian_of_an_array_made_of_a_list():
    """``np.array([... for k in range(3)])``: the gradient adds the array's adjoint
    into the list's item by item, which forward mode follows; it was refused at
    ``add_into(items_bar, list(v_bar))`` (no rule for `list` of an array)."""
    x, s = np.array([0.3, -0.5, 0.8]), 0.7
    H = s2sad.hessian(array_of_a_comprehension, wrt=(0, 1))(x, s)
    g = s2sad.grad(array_of_a_comprehension, wrt=(0, 1))
    h = 1e-5
    up, down = g(x, s + h), g(x, s - h)
    assert np.allclose(H[1][1], (up[1] - down[1]) / (2 * h), rtol=1e-5)
    assert np.allclose(H[0][1], (up[0] - down[0]) / (2 * h), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract])
def test_the_hessian_through_an_outer_sum_with_one_operand_held(ufunc):
    """(The tangent of ``np.add.outer(a, b)`` along `a` alone had `a`'s shape with
    axes of length 1, not the result's: the gradient's reshape raised.)"""
    def f(a, b):
        return np.sum(ufunc.outer(a, b) ** 2 * np.arange(1.0, 13.0).reshape(2, 3, 2))

    a, b = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]), np.array([0.5, -1.0])
    for wrt, x in ((0, a), (1, b)):
        h = s2sad.hessian(f, wrt=wrt)(a, b)
        step = 1e-5
        columns = []
        for e in np.eye(x.size):
            up = [a, b]
            down = [a, b]
            up[wrt] = x + step * e.reshape(x.shape)
            down[wrt] = x - step * e.reshape(x.shape)
            columns.append((s2sad.grad(f, wrt=wrt)(*up) - s2sad.grad(f, wrt=wrt)(*down))
                           / (2 * step))
        numeric = np.stack(columns, axis=-1).reshape(x.shape + x.shape)
        assert np.allclose(h, numeric, atol=1e-6)


@pytest.mark.parametrize("point", [(0.3, 0.7), (0.4, 0.2)])
def test_the_hessian_reads_a_value_a_tape_holds_on_one_path_only(point):
    f = zoo_loops.comprehension_under_a_branch_of_a_while_loop
    h = np.array(s2sad.hessian(f, wrt=(0, 1))(*point), dtype=float).reshape(2, 2)
    step = 1e-5
    numeric = [[(s2sad.grad(f, wrt=j)(*np.add(point, step * e))
                 - s2sad.grad(f, wrt=j)(*np.subtract(point, step * e))) / (2 * step)
                for j in (0, 1)] for e in np.eye(2)]
    assert np.allclose(h, numeric, atol=1e-6)


_scaled_tanh = lambda a: a * math.tanh(a)  # noqa: E731


def _constant_rows(ys, h):
    return [math.sin(_scaled_tanh(h)) for y in ys]


def through_a_helpers_comprehension(x, h):
    ys = _constant_rows([x, x], h)
    return ys[0] * x


def test_a_tape_of_what_callees_saved_gets_zeros_of_their_structure():
    # (along x, nothing the lambda is given varies: the zero tangent of the helper's
    # tape, which holds the lambda's saved tuples among numbers, has their structure)
    x, h = 0.3, 0.4
    t = math.tanh(h)
    slope = math.cos(h * t) * (t + h * (1 - t * t))
    H = s2sad.hessian(through_a_helpers_comprehension, wrt=(0, 1))(x, h)
    assert H[0][0] == 0.0
    assert H[0][1] == pytest.approx(slope) and H[1][0] == pytest.approx(slope)


def _tight_binding(x):
    H = np.diag(x) + np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    w, v = np.linalg.eigh(H)
    return w[0] + np.sum(v[:, 0] ** 4)


def test_hessian_through_an_adjoint_summed_back_to_a_matrix():
    """``np.diag(x) + A``: the gradient's ``np.diag(unbroadcast(H_bar, t1))`` read a
    result of no known rank, and forward mode over it found no rule of ``np.diag``."""
    x = np.array([0.1, 0.5, 1.2])
    e = 1e-5
    want = np.array([(s2sad.grad(_tight_binding)(x + e * d) -
                      s2sad.grad(_tight_binding)(x - e * d)) / (2 * e) for d in np.eye(3)])
    np.testing.assert_allclose(s2sad.hessian(_tight_binding)(x), want, rtol=1e-6, atol=1e-9)
