"""`s2sad.jacobian` in its three modes, against central differences, and vector mode
(one forward pass carrying every direction) where it applies."""

import math

import numpy as np
import pytest

import s2sad
import zoo
import zoo_loops
from helpers import central_diff
from s2sad.api import dispatch
from s2sad.api import jacobians as jacobian_api


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def neighbours(xs):
    out = []
    for i in range(len(xs)):
        out.append(xs[i] * xs[(i + 1) % len(xs)])
    return out


def layer(x, W):
    return np.tanh(W @ x) * x[0]


def stepped(x, n):
    """A loop with a data-dependent branch and a call, two outputs."""
    a, b = x, 1.0
    for i in range(n):
        if a > 0.5:
            a = a * 0.9 + zoo.seed_z(b, 0.3)
        else:
            b = b + a * a
    return a, b


def numeric(f, args, i):
    """Central-difference Jacobian of f's output parts with respect to argument i,
    shaped output + input as jacobian returns it: one row of central differences
    (`helpers.central_diff`) per number of each output part."""
    def parts(y):
        return [np.asarray(p, dtype=float) for p in (y if isinstance(y, tuple) else (y,))]

    shape_in = np.shape(np.asarray(args[i], dtype=float))
    out = []
    for p, part in enumerate(parts(f(*args))):
        rows = [np.asarray(central_diff(lambda *a, p=p, e=e: parts(f(*a))[p][e], args, i),
                           dtype=float) for e in np.ndindex(part.shape)]
        out.append(np.reshape(rows, part.shape + shape_in))
    return out


CASES = [
    (polar, (1.5, 0.4), (0, 1)),
    (neighbours, ([1.0, 2.0, -0.5],), 0),
    (layer, (np.array([0.3, -0.2, 0.5]), np.arange(6.0).reshape(2, 3) / 7), (0, 1)),
    (stepped, (0.9, 7), 0),
    (zoo_loops.rosenbrock, ([0.5, 1.2, -0.3, 0.8],), 0),
    (zoo.seed_program, (0.7, 1.9), (0, 1)),
]


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
@pytest.mark.parametrize("f,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_jacobian_matches_differences(f, args, wrt, mode):
    got = s2sad.jacobian(f, wrt=wrt, mode=mode)(*args)
    y = f(*args)
    many = isinstance(y, tuple)
    got_parts = list(got) if many else [got]
    where = wrt if isinstance(wrt, tuple) else (wrt,)
    for k, i in enumerate(where):
        want = numeric(f, args, i)
        for e, w in enumerate(want):
            block = got_parts[e][k] if isinstance(wrt, tuple) else got_parts[e]
            assert np.shape(block) == np.shape(w), (np.shape(block), np.shape(w))
            assert np.allclose(block, w, rtol=1e-6, atol=1e-7), (mode, e, k)


def test_a_function_of_numbers_takes_one_forward_pass(monkeypatch):
    """Vector mode: the tangents are vectors of directions, so the compiled forward
    derivative runs once, not once per input number."""
    calls = []
    real = dispatch.compiled_forward

    def counting(*a, **k):
        unit, fn = real(*a, **k)

        def run(*args):
            calls.append(1)
            return fn(*args)
        return unit, run

    monkeypatch.setattr(dispatch, "compiled_forward", counting)
    J = s2sad.jacobian(stepped, mode="forward")(0.9, 7)
    assert len(calls) == 1
    J2 = s2sad.jacobian(neighbours, mode="forward")([1.0, 2.0, -0.5, 4.0])
    assert len(calls) == 2 and J2.shape == (4, 4)
    assert all(np.ndim(p) == 0 for p in J)


def test_auto_picks_the_cheaper_direction(monkeypatch):
    used = []
    for name in ("_jacobian_forward", "_jacobian_reverse"):
        real = getattr(jacobian_api, name)
        monkeypatch.setattr(jacobian_api, name,
                            lambda *a, _r=real, _n=name: used.append(_n) or _r(*a))
    s2sad.jacobian(zoo_loops.rosenbrock)([0.5, 1.2, -0.3, 0.8])  # 4 inputs, 1 output
    s2sad.jacobian(polar, wrt=0)(1.5, 0.4)  # 1 input, 2 outputs
    assert used == ["_jacobian_reverse", "_jacobian_forward"]


def test_bad_modes_and_arguments_are_refused():
    with pytest.raises(s2sad.S2SADError, match="mode"):
        s2sad.jacobian(polar, mode="sideways")
    with pytest.raises(s2sad.WrtError):
        s2sad.jacobian(stepped, wrt="n")(0.9, 7)


SCALAR_CASES = [(f, args, wrt) for f, args, wrt in zoo.ZOO + zoo_loops.ZOO
                if not any(isinstance(a, np.ndarray) for a in args)]


@pytest.mark.parametrize("f,args,wrt", SCALAR_CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(SCALAR_CASES)])
def test_vector_mode_agrees_with_the_gradient_on_every_scalar_case(f, args, wrt):
    """Every tangent line scales and adds; with vectors of directions it must give
    the reverse gradient exactly as one direction at a time does."""
    got = s2sad.jacobian(f, wrt=wrt, mode="forward")(*args)
    want = s2sad.grad(f, wrt=wrt)(*args)
    got, want = (got, want) if isinstance(wrt, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert np.allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float),
                           rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------- vector mode on arrays


def _array_cases():
    import zoo_numpy

    cases = [(f, args, wrt) for f, args, wrt in zoo_numpy.ZOO
             if all(isinstance(args[i], (np.ndarray, float))
                    for i in (wrt if isinstance(wrt, tuple) else (wrt,)))]
    cases += [(layer, (np.array([0.3, -0.2, 0.5]), np.arange(6.0).reshape(2, 3) / 7), 0),
              (lambda_free_rows, (np.linspace(-1, 1, 12).reshape(3, 4),), 0),
              (matrix_times_vector, (np.linspace(-1, 1, 6).reshape(2, 3),
                                     np.array([0.5, -1.0, 2.0])), (0, 1))]
    return cases


def lambda_free_rows(X):
    return np.exp(X[1:] - np.mean(X, axis=0)) * np.sum(X, axis=1, keepdims=True)[1:]


def matrix_times_vector(A, x):
    return np.tanh(A @ x) * np.sum(x)


@pytest.mark.parametrize("f,args,wrt", _array_cases(),
                         ids=lambda v: getattr(v, "__name__", None))
def test_vector_mode_on_arrays_agrees_with_one_pass_per_direction(f, args, wrt, monkeypatch):
    """Where the forward derivative can carry every direction at once, one pass gives
    the Jacobian that one pass per input number gives."""
    batched = s2sad.jacobian(f, wrt=wrt, mode="forward")(*args)
    monkeypatch.setattr(jacobian_api, "_jacobian_batched", lambda *a: None)
    single = s2sad.jacobian(f, wrt=wrt, mode="forward")(*args)
    for b, s in zip(batched if isinstance(wrt, tuple) else [batched],
                    single if isinstance(wrt, tuple) else [single]):
        assert np.shape(b) == np.shape(s)
        assert np.allclose(b, s, rtol=1e-10, atol=1e-12)


def test_vector_mode_runs_array_code_in_one_pass(monkeypatch):
    import zoo_numpy

    def passes(f, args, wrt):
        seen = []
        real = dispatch.compiled_forward

        def counted(*a, **k):
            unit, fn = real(*a, **k)
            return unit, fn and (lambda *args: seen.append(1) or fn(*args))

        monkeypatch.setattr(dispatch, "compiled_forward", counted)
        s2sad.jacobian(f, wrt=wrt, mode="forward")(*args)
        monkeypatch.undo()
        return len(seen)

    for f, args, wrt in _array_cases():
        if f in (zoo_numpy.broadcast_mul, zoo_numpy.ufuncs, zoo_numpy.reductions,
                 zoo_numpy.matmul_mixes, zoo_numpy.softmax_rows, zoo_numpy.logistic_nll,
                 zoo_numpy.mlp_layer, layer, matrix_times_vector, lambda_free_rows,
                 zoo_numpy.fill_in_loop, zoo_numpy.mask_write, zoo_numpy.column_update,
                 zoo_numpy.slice_writes, zoo_numpy.heat_steps):
            assert passes(f, args, wrt) == 1, f.__name__
    # np.reshape's tangent line is not one batching proves: one pass per number
    assert passes(zoo_numpy.shapes, (zoo_numpy.a(3, 4),), 0) == 12


# ------------------------------------------- NumPy on the tangents of numbers
# Vector mode runs the tangent code of a function of numbers with every tangent a
# vector of directions. A NumPy reduction of a number's tangent (np.sum(t_dot)) would
# then sum the directions together: such a function must not take vector mode.


def dot_of_numbers(x, y):
    return np.sum(x * y)


def dot_and_sum(x, y):
    return np.sum(x * y), x + y


def numpy_on_numbers(x, y):
    a = np.mean(x * y) + np.max(x - y) * np.min(y * 2.0) + np.prod(x + y)
    b = np.linalg.norm(x * y) + np.where(x > y, x * x, y) + np.sin(x) * np.exp(y)
    return a * b, (x, y)[1] * np.sqrt(x) + np.tanh(np.sum(x) * y)


def numpy_on_a_list(xs, y):
    return np.sum(xs) * y + np.mean(xs) + xs[0] * np.max(xs[1] * y)


def numpy_vector_in_loop(xs, y):
    total = 0.0
    out = []
    for v in xs:
        total = total + np.sum(v * y) * v
        out.append(np.mean(v + y) * total)
    return total, out


NUMPY_ON_NUMBERS = [
    (dot_of_numbers, (0.3, 0.8), (0, 1)),
    (dot_and_sum, (0.3, 0.8), (0, 1)),
    (numpy_on_numbers, (0.7, 0.4), (0, 1)),
    (numpy_on_a_list, ([0.3, 0.5, -0.2], 0.8), (0, 1)),
    (numpy_vector_in_loop, ([0.3, 0.5, -0.2], 0.8), (0, 1)),
]


@pytest.mark.parametrize("mode", ["forward", "auto"])
@pytest.mark.parametrize("f,args,wrt", NUMPY_ON_NUMBERS,
                         ids=[c[0].__name__ for c in NUMPY_ON_NUMBERS])
def test_numpy_on_the_tangents_of_numbers(f, args, wrt, mode):
    assert_jacobian_is_the_differences(f, args, wrt, mode)


def test_the_issue_numbers():
    assert s2sad.jacobian(dot_of_numbers, wrt=(0, 1), mode="forward")(0.3, 0.8) == \
        pytest.approx((0.8, 0.3), rel=1e-15)
    J = s2sad.jacobian(dot_and_sum, wrt=(0, 1))(0.3, 0.8)
    assert np.allclose(np.asarray(J, dtype=float), [[0.8, 0.3], [1.0, 1.0]], rtol=1e-15)


def test_vector_mode_refuses_a_reduction_of_a_number_tangent():
    """The check behind vector mode: pure arithmetic passes, np.sum of a number's
    tangent does not (and the function of floats takes the batched pass instead)."""
    kinds = {"x": s2sad.ir.kinds.kind_of(0.3), "y": s2sad.ir.kinds.kind_of(0.8)}
    unit, _ = dispatch.compiled_forward(dot_of_numbers, ("x", "y"), kinds)
    assert unit.scalar_tangents and not jacobian_api._carries_vectors(unit)
    kinds = {"r": s2sad.ir.kinds.kind_of(1.5), "theta": s2sad.ir.kinds.kind_of(0.4)}
    unit, _ = dispatch.compiled_forward(polar, ("r", "theta"), kinds)
    assert jacobian_api._carries_vectors(unit)
    kinds = {"xs": s2sad.ir.kinds.kind_of([1.0, 2.0])}
    unit, _ = dispatch.compiled_forward(neighbours, ("xs",), kinds)
    assert jacobian_api._carries_vectors(unit)


# ------------------------------------------- outputs with constant entries
# Forward mode leaves the tangent of a value nothing varying reaches as the number
# 0.0: in a list output, a tuple output, or an array the inputs do not reach.


def list_with_a_constant(x, y):
    return [x * y, 1.0]


def list_partly_rewritten(x, y):
    xs = [x, y]
    xs[0] = 3.0
    return xs


def reduced_and_plain(x, y):
    return [np.sum(x * y), x * y]


def constant_array_part(x, y):
    return x * y, np.ones(3)


def list_of_an_array_function(x, y):
    return [np.sum(x * x) * y, 2.0]


def list_argument_constant_entry(xs, y):
    return [np.sum(xs) * y, 2.0]


def list_argument_constant_array(xs, y):
    return np.sum(xs) * y, np.zeros(2)


CONSTANT_ENTRIES = [
    (list_with_a_constant, (0.7, 1.3), (0, 1)),
    (list_partly_rewritten, (0.7, 1.3), (0, 1)),
    (reduced_and_plain, (0.7, 1.3), (0, 1)),
    (constant_array_part, (0.7, 1.3), (0, 1)),
    (list_of_an_array_function, (np.array([0.5, -1.0, 2.0]), 1.3), (0, 1)),
    (list_argument_constant_entry, ([0.5, -1.0, 2.0], 1.3), (0, 1)),
    (list_argument_constant_array, ([0.5, -1.0, 2.0], 1.3), (0, 1)),
]


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
@pytest.mark.parametrize("f,args,wrt", CONSTANT_ENTRIES,
                         ids=[c[0].__name__ for c in CONSTANT_ENTRIES])
def test_outputs_with_constant_entries(f, args, wrt, mode):
    assert_jacobian_is_the_differences(f, args, wrt, mode)


def assert_jacobian_is_the_differences(f, args, wrt, mode):
    """Every block of the Jacobian has the shape of, and agrees with, the central
    differences of f with respect to that argument."""
    got = s2sad.jacobian(f, wrt=wrt, mode=mode)(*args)
    y = f(*args)
    got_parts = list(got) if isinstance(y, tuple) else [got]
    for k, i in enumerate(wrt):
        for e, w in enumerate(numeric(f, args, i)):
            block = got_parts[e][k]
            assert np.shape(block) == np.shape(w), (np.shape(block), np.shape(w))
            assert np.allclose(block, w, rtol=1e-6, atol=1e-7), (e, k, block, w)


@pytest.mark.parametrize("f,args,wrt", CONSTANT_ENTRIES,
                         ids=[c[0].__name__ for c in CONSTANT_ENTRIES])
def test_outputs_with_constant_entries_one_pass_per_number(f, args, wrt, monkeypatch):
    """The same Jacobians from one forward pass per input number."""
    want = s2sad.jacobian(f, wrt=wrt, mode="reverse")(*args)
    monkeypatch.setattr(jacobian_api, "_carries_vectors", lambda unit: False)
    monkeypatch.setattr(jacobian_api, "_jacobian_batched", lambda *a: None)
    got = s2sad.jacobian(f, wrt=wrt, mode="forward")(*args)
    for g, w in zip(_blocks(got), _blocks(want), strict=True):
        assert g.shape == w.shape and np.allclose(g, w, rtol=1e-12, atol=1e-14)


def _blocks(J):
    if isinstance(J, tuple):
        return [b for part in J for b in _blocks(part)]
    return [np.asarray(J, dtype=float)]


def constant_in_loop(x, s):
    s2 = s * s
    for i in range(len(x)):
        s2 = np.sin(2.0)
    return np.linalg.norm(s2 - x)


def test_vector_mode_where_a_constant_replaces_a_carried_number():
    """The loop gives s2 a constant, whose tangent is zero: in vector mode that zero
    has one entry per direction like s2's first tangent (it was a bare 0.0, which
    the batched code indexed). Found by the fuzzer."""
    x = np.array([0.3, -0.2, 0.5])
    jx, js = s2sad.jacobian(constant_in_loop, wrt=(0, 1), mode="forward")(x, 0.7)
    rx, rs = s2sad.jacobian(constant_in_loop, wrt=(0, 1), mode="reverse")(x, 0.7)
    assert np.allclose(jx, rx) and np.allclose(js, rs) and js == 0.0


def list_of_arrays_out(x):
    return [x * 2.0, np.sin(x)]


def ragged_list_out(x):
    return [x * 2.0, np.sum(x)]


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_an_output_that_is_a_list_of_arrays_stacks(mode):
    x = np.array([0.1, 0.2, 0.3])
    J = s2sad.jacobian(list_of_arrays_out, mode=mode)(x)
    assert J.shape == (2, 3, 3)
    assert np.allclose(J[0], 2.0 * np.eye(3)) and np.allclose(J[1], np.diag(np.cos(x)))
    with pytest.raises(s2sad.S2SADError, match="different shapes"):
        s2sad.jacobian(ragged_list_out, mode=mode)(x)


def test_a_carried_number_that_starts_as_a_constant_in_batched_forward_mode():
    """A loop-carried number whose value before the loop is a constant has a zero
    tangent there, which the batched forward Jacobian gives one zero per direction:
    the iterations write it into an array's slice (``v_dot[:, 1:] = s_dot[:, None]``).
    It raised a TypeError (found by the array fuzzer)."""
    def f(x, s):
        s1 = -1.25
        for i in range(2):
            v2 = np.sin(x).copy()
            v2[1:] = s1 * 0.5 + s
            s1 = s1 * 0.5 + np.sum(v2) * 0.25
        return s1

    x = np.array([0.3, -0.5, 0.8])
    forward = s2sad.jacobian(f, wrt=(0, 1), mode="forward")(x, 0.7)
    reverse = s2sad.grad(f, wrt=(0, 1))(x, 0.7)
    assert np.allclose(forward[0], reverse[0]) and np.isclose(forward[1], reverse[1])
    assert np.isclose(reverse[1], 0.5 * (0.75 + 1.0))


def _lists_in_a_tuple(x):
    return [x, 2 * x], [x * x]


def _a_list_of_lists(x):
    return [[x * 1.0, np.sin(x)], [x * x]]


def test_outputs_of_lists_of_arrays_in_a_tuple_and_in_a_list():
    # (reverse mode seeds every other part with zeros of its structure: a list of
    # arrays' zeros are arrays; a vjp's seed of a list of lists goes item by item)
    x = np.array([1.0, 2.0])
    by_rows = s2sad.jacobian(_lists_in_a_tuple, mode="reverse")(x)
    by_columns = s2sad.jacobian(_lists_in_a_tuple, mode="forward")(x)
    assert all(np.allclose(a, b) for a, b in zip(by_rows, by_columns))
    out, pullback = s2sad.vjp(_a_list_of_lists, x)
    (got,) = pullback([[np.ones(2), np.ones(2)], [np.ones(2)]])
    assert np.allclose(got, 1.0 + np.cos(x) + 2 * x)
    assert np.allclose(out[1][0], x * x)


def _nested(x, y):
    return x * y, (math.sin(x), y)


def _nested_arrays(w):
    return w * 2, (np.sum(w ** 2), w[0] * w)


@pytest.mark.parametrize("mode", ["auto", "forward", "reverse"])
def test_a_tuple_in_a_tuple_output_nests(mode):
    """A tuple inside the output tuple nests its blocks as a container output does
    (the output's structure outside, the inputs' inside), in every mode. Forward
    mode crashed building one array of it, and reverse mode refused its own seed."""
    x, y = 0.4, 1.1
    J = s2sad.jacobian(_nested, mode=mode)(x, y)
    assert J == (pytest.approx(y), (pytest.approx(math.cos(x)), 0.0))
    J = s2sad.jacobian(_nested, wrt=(0, 1), mode=mode)(x, y)
    assert J[0] == (pytest.approx(y), pytest.approx(x))
    assert J[1] == ((pytest.approx(math.cos(x)), 0.0), (0.0, 1.0))
    w = np.array([0.5, -1.0, 2.0])
    a, (b, c) = s2sad.jacobian(_nested_arrays, mode=mode)(w)
    np.testing.assert_allclose(a, 2 * np.eye(3))
    np.testing.assert_allclose(b, 2 * w)
    np.testing.assert_allclose(c, w[0] * np.eye(3) + np.outer(w, [1.0, 0.0, 0.0]))
