"""The runtime engines (`s2sad.engines`): reverse mode on a tape and forward mode with
vector dual numbers, checked against the seeds, central differences and the compiler."""

import copy
import math
import statistics

import numpy as np
import pytest

import s2sad
from s2sad.engines import EngineError, dual_grad, dual_jacobian, tape_grad, trace
from s2sad.engines.tape import Tape
from s2sad.errors import (IntegerArgumentError, NonScalarOutputError, S2SADError,
                          WrtError)
from tests import zoo, zoo_loops, zoo_mutable
from tests.helpers import central_diff, close, numeric_grad

ENGINES = [pytest.param(tape_grad, id="tape"), pytest.param(dual_grad, id="dual")]

# Zoo cases an engine cannot run, as (engine name, function name) -> reason. Both
# engines run every case of tests/zoo.py and tests/zoo_loops.py today, so this is
# empty; a case added here must raise S2SADError in that engine.
CANNOT_RUN: dict = {}

ZOO_CASES = [pytest.param(f, args, wrt, id=f"{f.__name__}{args}")
             for f, args, wrt in zoo.ZOO + zoo_loops.ZOO]


def seed_z(x, y):
    z = x * y + math.sin(x)
    return z


def shared(x, y):
    s = x * y
    return s + s


# ---------------------------------------------------------------- seeds


@pytest.mark.parametrize("engine", ENGINES)
def test_seed_z_exact(engine):
    value, grad = engine(seed_z, (0.5, 4.2), (0, 1))
    assert value == 2.579425538604203
    assert grad == (5.077582561890373, 0.5)


@pytest.mark.parametrize("engine", ENGINES)
def test_shared_value_exact(engine):
    assert engine(shared, (3.0, 2.0), (0, 1)) == (12.0, (4.0, 6.0))


def test_tape_visits_shared_node_once():
    rec = trace(shared, (3.0, 2.0), (0, 1))
    tape = rec.tape
    muls = [i for i, label in enumerate(tape.labels) if label == "*"]
    assert len(muls) == 1  # s is computed once...
    (s,) = muls
    assert tape.parents[len(tape) - 1] == (s, s)  # ...and read twice by s + s
    visits = []
    adj = tape.backward(rec.output.index, on_visit=visits.append)
    assert visits.count(s) == 1  # one visit, with both contributions already summed
    assert adj[s] == 2.0
    assert len(visits) == len(set(visits)) == len(tape)
    x, y = rec.inputs
    assert (adj[x.index], adj[y.index]) == (4.0, 6.0)


def two_outputs(x, y):
    return x * y, x + math.sin(y)


def test_one_tape_serves_several_outputs():
    rec = trace(two_outputs, (0.5, 4.2), (0, 1))
    first, second = rec.output
    x, y = rec.inputs
    adj1 = rec.tape.backward(first.index)
    adj2 = rec.tape.backward(second.index)
    assert (adj1[x.index], adj1[y.index]) == (4.2, 0.5)
    assert (adj2[x.index], adj2[y.index]) == (1.0, math.cos(4.2))
    again = rec.tape.backward(first.index)  # the tape holds no adjoints: sweep again
    assert again == adj1
    seeded = rec.tape.backward(first.index, seed=2.0)
    assert seeded[x.index] == 8.4


def test_tape_by_hand():
    tape = Tape()
    x, y = tape.leaf(0.5), tape.leaf(4.2)
    z = x * y + x
    assert len(tape) == 4 and tape.labels == ["input", "input", "*", "+"]
    assert tape.parents[2] == (0, 1) and tape.partials[2] == (4.2, 0.5)
    adj = tape.backward(z.index)
    assert adj == [5.2, 0.5, 1.0, 1.0]


# ---------------------------------------------------------------- zoo


def _run(engine, f, args, wrt):
    reason = CANNOT_RUN.get((engine.__name__, f.__name__))
    if reason is not None:
        with pytest.raises(S2SADError):
            engine(f, args, wrt)
        pytest.skip(f"expected refusal: {reason}")
    return engine(f, args, wrt)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("f, args, wrt", ZOO_CASES)
def test_zoo(engine, f, args, wrt):
    value, grad = _run(engine, f, args, wrt)
    assert value == f(*args)
    assert close(grad, numeric_grad(f, args, wrt), rtol=1e-5, atol=1e-6)
    assert close(grad, s2sad.grad(f, wrt=wrt)(*args), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f, args, wrt", ZOO_CASES)
def test_engines_agree(f, args, wrt):
    _, g_tape = tape_grad(f, args, wrt)
    _, g_dual = dual_grad(f, args, wrt)
    assert close(g_tape, g_dual, rtol=1e-12, atol=1e-14)


def test_gradient_shapes():
    value, grad = tape_grad(zoo_loops.with_zip, ([0.5, 1.2, -0.3], [1.0, 2.0, 3.0, 4.0]),
                            (0, 1))
    assert isinstance(grad, tuple) and [len(g) for g in grad] == [3, 4]
    assert grad[1][3] == 0.0  # the fourth y is never read
    assert all(type(v) is float for g in grad for v in g)
    assert type(dual_grad(zoo.quadratic, (5.0,), 0)[1]) is float
    assert dual_grad(zoo.seed_z, (0.5, 4.2), ("x",))[1] == (5.077582561890373,)


# ---------------------------------------------------------------- semantics


CALLS = []


def counted(x, y, zs):
    CALLS.append(1)
    return x * y * sum(zs)


@pytest.mark.parametrize("engine", ENGINES)
def test_one_run_gives_every_partial(engine):
    CALLS.clear()
    _, grad = engine(counted, (2.0, 3.0, [4.0, 5.0]), (0, 1, 2))
    assert grad == (27.0, 18.0, [6.0, 6.0])
    assert len(CALLS) == 1


def probe(x):
    # plain numbers out of comparisons and integer conversions
    assert type(x < 1.0) is bool and type(x == x) is bool
    assert type(int(x)) is int and type(round(x)) is int
    assert type(math.floor(x)) is int
    assert isinstance(x // 0.25, float)
    assert isinstance(x, float)  # looks at the primal value
    assert f"{x:.2f}" == "1.30"
    return float(x) * x + (x // 0.25) + divmod(x, 0.5)[1]


@pytest.mark.parametrize("engine", ENGINES)
def test_primal_semantics(engine):
    value, grad = engine(probe, (1.3,), 0)
    assert value == probe(1.3)
    assert close(grad, numeric_grad(probe, (1.3,), 0))


def uses_globals(x):
    return zoo.sin(x) + zoo.math.cos(x) + zoo_mutable.outer(x)


@pytest.mark.parametrize("engine", ENGINES)
def test_user_module_is_left_alone(engine):
    engine(zoo.imported_names, (0.7,), 0)
    assert zoo.math is math and zoo.sin is math.sin and zoo.exp is math.exp


@pytest.mark.parametrize("engine", ENGINES)
def test_rebound_global_is_followed(engine):
    assert engine(zoo_mutable.outer, (2.0,), 0)[1] == 4.0
    old = zoo_mutable.inner
    zoo_mutable.inner = zoo_mutable.cube
    try:
        assert engine(zoo_mutable.outer, (2.0,), 0)[1] == 12.0
    finally:
        zoo_mutable.inner = old


def with_kwargs(x, *, scale=1.0):
    return scale * x * x


@pytest.mark.parametrize("engine", ENGINES)
def test_keyword_arguments_and_closures(engine):
    assert tape_grad(with_kwargs, (3.0,), 0, kwargs={"scale": 2.0}) == (18.0, 12.0)
    assert engine(zoo.make_scaled(2.5), (1.5,), 0) == (3.75, 2.5)


def test_functions_without_source():
    ns = {"math": math}
    exec("def built(x, y):\n    return math.exp(x) * y\n", ns)
    with pytest.raises(S2SADError):
        s2sad.grad(ns["built"])(0.5, 2.0)  # the compiler needs the source...
    e = math.exp(0.5)
    for engine in (tape_grad, dual_grad):  # ...the engines do not
        assert engine(ns["built"], (0.5, 2.0), (0, 1)) == (2.0 * e, (2.0 * e, e))
        assert engine(lambda x: math.cos(x) * x, (0.5,), 0)[1] == \
            pytest.approx(math.cos(0.5) - 0.5 * math.sin(0.5), rel=1e-15)
        assert engine(math.sin, (0.5,), 0) == (math.sin(0.5), math.cos(0.5))
        assert engine(math.atan2, (1.0, 2.0), (0, 1))[1] == (0.4, -0.2)


# ---------------------------------------------------------------- refusals


def local_import(x):
    import math as real_math

    return real_math.sin(x)


def fsum(xs):
    return math.fsum(xs)


def statistics_mean(xs):
    return statistics.mean(xs)


def bitwise(x):
    return (int(x) & 1) + (x & 1)


def float_formatting(x):
    return float("%.3f" % x) * x


def complex_maths(x):
    return (x * 1j).real


def sqrt_at_zero(x):
    return math.sqrt(x - 1.0)


def own_error(x):
    return 1.0 / (x - x)


def attribute(x):
    return x.real


REFUSALS = [
    (local_import, (0.3,), "float"),  # the real math.sin gets a traced value
    (fsum, ([1.0, 2.0],), "math.fsum"),
    (statistics_mean, ([1.0, 2.0],), "statistics_mean"),
    (bitwise, (1.5,), "&"),
    (float_formatting, (1.5,), "float"),
    (complex_maths, (1.5,), "complex"),
    (sqrt_at_zero, (1.0,), "math.sqrt"),  # infinite slope: no wrong number
    (attribute, (1.0,), "real"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("f, args, words", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_refusals_name_the_operation(engine, f, args, words):
    with pytest.raises(S2SADError) as info:
        engine(f, args, 0)
    assert isinstance(info.value, EngineError)
    assert words in str(info.value)
    assert info.value.__cause__ is None or isinstance(info.value.__cause__, S2SADError)


@pytest.mark.parametrize("engine", ENGINES)
def test_refusal_points_at_the_line(engine):
    with pytest.raises(EngineError, match=r"test_engines.py:\d+: return real_math.sin\(x\)"):
        engine(local_import, (0.3,), 0)


@pytest.mark.parametrize("engine", ENGINES)
def test_functions_own_errors_propagate(engine):
    with pytest.raises(ZeroDivisionError):
        engine(own_error, (1.0,), 0)
    with pytest.raises(ValueError):
        engine(zoo.math_calls, (5.0,), 0)  # asin(5 / 3): math domain error


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_calls(engine):
    with pytest.raises(NonScalarOutputError):
        engine(two_outputs, (1.0, 2.0), 0)
    with pytest.raises(NonScalarOutputError):
        engine(lambda x: np.array([1.0, 2.0]) * x, (1.0,), 0)
    with pytest.raises(IntegerArgumentError):
        engine(zoo.quadratic, (5,), 0)
    with pytest.raises(IntegerArgumentError):
        engine(zoo_loops.over_list, ([1, 2.0], 2.0), 0)
    for wrt in ("nope", 3, (0, 0), 1.5):
        with pytest.raises(WrtError):
            engine(zoo.seed_z, (1.0, 2.0), wrt)
    assert engine(zoo.int_arg, (1.3, 3), 0)[1] == pytest.approx(3 * 1.3**2 + 3)


def derivative_unused(x):
    math.sqrt(x - 1.0)  # undefined slope, but the output does not depend on it
    return x * 2.0


def test_tape_needs_only_the_rules_it_reaches():
    assert tape_grad(derivative_unused, (1.0,), 0) == (2.0, 2.0)


# ---------------------------------------------------------------- NumPy


def np_broadcast(a, b):
    return np.sum(a * b + a - b / 3.0)


def np_elementwise(a, s):
    return (np.sin(a) * np.exp(s * a)).sum() + np.mean(a ** 2)


def np_reductions(a, b):
    m = a[:, None] * b  # (3, 2)
    return m.sum(axis=0)[1] + np.max(a) + np.dot(a, a) + (a @ a) / 2.0


def np_python_loop(a):
    total = 0.0
    for v in a:
        total = total + math.sin(v) * v
    return total + a[0] * a[-1]


ARRAY_CASES = [
    (np_broadcast, (np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]), np.array([1.0, 2.0, 3.0]))),
    (np_elementwise, (np.array([0.3, -0.7, 1.1]), 0.4)),
    (np_reductions, (np.array([0.3, -0.7, 1.1]), np.array([2.0, 0.5]))),
    (np_python_loop, (np.array([0.3, -0.7, 1.1]),)),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("f, args", ARRAY_CASES, ids=[c[0].__name__ for c in ARRAY_CASES])
def test_numpy_against_central_differences(engine, f, args):
    wrt = tuple(range(len(args)))
    value, grads = engine(f, args, wrt)
    assert value == pytest.approx(f(*args), rel=1e-12)
    for i, g in enumerate(grads):
        expected = central_diff(f, args, i) if isinstance(args[i], np.ndarray) else \
            (f(*[a + 1e-6 if j == i else a for j, a in enumerate(args)])
             - f(*[a - 1e-6 if j == i else a for j, a in enumerate(args)])) / 2e-6
        assert np.shape(g) == np.shape(args[i])
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)


def np_unsupported(a):
    return np.linalg.cond(np.outer(a, a) + np.eye(2))


@pytest.mark.parametrize("engine", ENGINES)
def test_numpy_without_rule_is_refused(engine):
    with pytest.raises(EngineError, match="numpy.linalg.cond|cond"):
        engine(np_unsupported, (np.array([1.0, 2.0]),), 0)


def np_wrapped_scalar(x):
    return np.asarray(x * 3.0)  # NumPy wraps the traced number in a 0-d object array


@pytest.mark.parametrize("engine", ENGINES)
def test_a_wrapped_traced_number_is_unwrapped_not_silently_constant(engine):
    assert engine(np_wrapped_scalar, (2.0,), 0) == (6.0, 3.0)


def np_array_of_traced(x):
    return np.sum(np.array(x) * x)  # (an object array holding the traced array)


def np_array_of_items(x):
    return np.sum(np.array([x[0], 2.0 * x[1]]) * x[:2])


@pytest.mark.parametrize("f", [np_array_of_traced, np_array_of_items])
def test_traced_values_in_an_object_array_are_refused_with_a_hint(f):
    # (the tape said "f returned a Var": a traced value whose value held traced values)
    with pytest.raises(EngineError, match="object array") as info:
        s2sad.grad(f, mode="tape")(np.array([1.0, 2.0, 3.0]))
    assert "np.stack" in info.value.hint


def _pendulum_step(y, theta):
    return np.array([y[1], -theta[0] * np.sin(y[0]) - theta[1] * y[1]])


def pendulum_loss(theta, y0):
    y = y0
    for _ in range(40):  # (each step nested the object array in the last: 2 ** 40)
        y = y + 0.1 * _pendulum_step(y, theta)
    return np.sum(y ** 2)


@pytest.mark.parametrize("mode", ["tape", "dual"])
def test_an_object_array_read_by_an_operation_is_refused_there(mode):
    # (it was refused at the output, after a time that doubled with each step: 70 s
    # at 13 steps)
    args = (np.array([1.5, 0.2]), np.array([1.0, 0.0]))
    engine = tape_grad if mode == "tape" else dual_grad
    with pytest.raises(EngineError, match="what `.*` reads is a NumPy array of Python") \
            as info:
        engine(pendulum_loss, args, 1)
    assert "np.stack" in info.value.hint


def list_written_after(w):
    L = [0.5, -1.2, 2.0]
    y = np.multiply(w, L)
    L[1] = 7.0  # (after the product read it: its derivative reads the old -1.2)
    return np.sum(y ** 2)


def table_written_after(w):
    xp, fp = [-2.0, 0.0, 2.0], [0.5, -1.0, 3.0]
    y = np.interp(w, xp, fp)
    fp[1] = 4.0
    return np.sum(y ** 2)


def array_in_a_list_written_after(w):
    C = np.array([[4.0, 1.0, 0.0], [0.5, 3.0, 0.2], [0.1, 0.0, 5.0]])
    y = np.linalg.multi_dot([C, C, w])
    C[:] = 2.5
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [list_written_after, table_written_after,
                               array_in_a_list_written_after])
def test_tape_keeps_plain_lists_and_their_arrays_as_they_were_read(f):
    w = np.array([0.3, -0.8, 0.5])
    want = [(f(w + h) - f(w - h)) / 2e-6 for h in np.eye(3) * 1e-6]
    np.testing.assert_allclose(s2sad.grad(f, mode="tape")(w), want, rtol=1e-6, atol=1e-6)


def times_a_list(w):
    return np.sum((w * [0.5, -1.2, 2.0]) ** 2) + np.sum([1.0, 2.0, 3.0] - w)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_of_numbers_beside_a_traced_array_is_an_array(engine):
    # (as NumPy takes it; the engines said "can't multiply sequence by non-int of
    # type 'Var'")
    w = np.array([0.3, -0.8, 0.5])
    _, grad = engine(times_a_list, (w,), 0)
    np.testing.assert_allclose(grad, s2sad.grad(times_a_list)(w), rtol=1e-12)


def incomplete_gamma_of_its_order(a):
    from scipy import special
    return special.gammainc(a, 2.0)


def test_scipy_special_functions_are_named_as_scipys():
    # (SciPy's special functions are NumPy ufuncs too: the tape called this one
    # "numpy.gammainc")
    pytest.importorskip("scipy")
    with pytest.raises(EngineError, match=r"scipy\.special\.gammainc has no derivative"):
        s2sad.grad(incomplete_gamma_of_its_order, mode="tape")(1.5)


def test_dual_jacobian_refuses_object_arrays():
    with pytest.raises(EngineError, match="object array"):
        dual_jacobian(lambda x: np.array([x, 2.0 * x]), (1.0,), 0)


# ---------------------------------------------------------------- rules users register


class _Opaque:
    """A callable object; its rules below give the derivative 3 (its code says 2)."""

    def __call__(self, x):
        return 2.0 * x


opaque = _Opaque()
reverse_only = _Opaque()


def opaque_reverse(x, out, out_bar):
    return 3.0 * out_bar


def opaque_forward(x, out, x_dot):
    return 3.0 * x_dot


@pytest.fixture
def opaque_rules():
    """Registered when the tests run, not at import (test_rules.py checks every rule
    registered at import time against central differences; these disagree with
    `_Opaque`'s code on purpose)."""
    s2sad.register_rule(opaque, reverse=opaque_reverse, forward=opaque_forward)
    s2sad.register_rule(reverse_only, reverse=opaque_reverse)


def uses_opaque(x):
    return opaque(x) * x


def uses_reverse_only(x):
    return reverse_only(x)


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_apply_registered_rules(engine, opaque_rules):
    # d/dx opaque(x) * x = 3 x + 2 x with the registered rule (not 2 x + 2 x)
    assert engine(uses_opaque, (1.5,), 0) == (4.5, pytest.approx(7.5))
    assert s2sad.grad(uses_opaque)(1.5) == pytest.approx(7.5)


def test_a_rule_for_one_mode_only(opaque_rules):
    assert tape_grad(uses_reverse_only, (1.0,), 0)[1] == 3.0
    with pytest.raises(EngineError, match="no forward rule"):
        dual_grad(uses_reverse_only, (1.0,), 0)


# ---------------------------------------------------------------- dual_jacobian


def test_dual_jacobian_of_several_outputs():
    def f(x, ys, a):
        return x * x, [ys[0] * x, math.sin(ys[1])], a * x

    value, jac = dual_jacobian(f, (2.0, [3.0, 0.5], np.array([1.0, 5.0])), (0, 1, 2))
    assert value[0] == 4.0 and value[1][0] == 6.0
    np.testing.assert_allclose(value[2], [2.0, 10.0])
    expected = [[4.0, 0.0, 0.0, 0.0, 0.0], [3.0, 2.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, math.cos(0.5), 0.0, 0.0],
                [1.0, 0.0, 0.0, 2.0, 0.0], [5.0, 0.0, 0.0, 0.0, 2.0]]
    np.testing.assert_allclose(jac, expected)


def test_dual_numbers_through_the_runtime_helpers_keep_their_directions():
    # a gradient's `unbroadcast(g, y)` of numbers: its rule sums over broadcast axes,
    # which must not be the directions of the dual numbers (x's tangent is not y's)
    from s2sad.runtime import unbroadcast

    _, jac = dual_jacobian(lambda x, y: unbroadcast(math.sin(x), y), (1.5, 2.0), (0, 1))
    np.testing.assert_allclose(jac, [[math.cos(1.5), 0.0]])
    _, jac = dual_jacobian(lambda x, y: unbroadcast(np.stack([x, 2.0 * x]) * y, y),
                           (1.5, 2.0), (0, 1))
    np.testing.assert_allclose(jac, [[6.0, 4.5]])


def test_dual_over_the_compiled_gradient_is_the_hessian():
    g = s2sad.grad(seed_z, wrt=(0, 1))
    g(0.5, 4.2)  # compile
    from s2sad.api import dispatch

    compiled = dispatch.compiled_grad(seed_z, (0, 1), (0.5, 4.2))
    _, hess = dual_jacobian(compiled, (0.5, 4.2), (0, 1))
    np.testing.assert_allclose(hess, [[-math.sin(0.5), 1.0], [1.0, 0.0]], atol=1e-15)


# ---------------------------------------------------------------- grad(mode="tape")


def test_mode_tape_matches_the_compiler():
    compiled = s2sad.grad(seed_z, wrt=("x", "y"))(0.5, 4.2)
    taped = s2sad.grad(seed_z, wrt=("x", "y"), mode="tape")
    assert taped(0.5, 4.2) == compiled
    assert taped(0.5, y=4.2) == compiled  # keywords bind as they do for f
    assert s2sad.value_and_grad(seed_z, mode="tape")(0.5, 4.2) == \
        s2sad.value_and_grad(seed_z)(0.5, 4.2)
    assert taped.__wrapped__ is seed_z and taped.__name__ == "seed_z"


def test_mode_tape_decorators():
    @s2sad.grad(mode="tape")
    def square(x):
        return x * x

    @s2sad.value_and_grad(wrt="y", mode="tape")
    def product(x, y):
        return x * y

    assert square(3.0) == 6.0
    assert product(2.0, 5.0) == (10.0, 2.0)


def test_mode_tape_needs_no_source():
    ns = {"math": math}
    exec("def h(x, y):\n    return x * math.sin(y)\n", ns)
    with pytest.raises(s2sad.SourceNotFoundError):
        s2sad.grad(ns["h"])(1.0, 2.0)
    assert s2sad.grad(ns["h"], wrt=1, mode="tape")(1.0, 2.0) == pytest.approx(math.cos(2.0))
    assert s2sad.grad(lambda x: x ** 3, mode="tape")(2.0) == pytest.approx(12.0)
    # a construct the compiler refuses
    assert s2sad.grad(lambda x: sum(x ** k for k in range(3)), mode="tape")(2.0) == 5.0


def test_mode_tape_errors():
    with pytest.raises(WrtError, match="not a parameter"):
        s2sad.grad(seed_z, wrt="q", mode="tape")  # refused at once, as mode="reverse"
    with pytest.raises(IntegerArgumentError):
        s2sad.grad(seed_z, mode="tape")(1, 2.0)
    with pytest.raises(NonScalarOutputError):
        s2sad.grad(lambda x: (x, x), mode="tape")(1.0)
    with pytest.raises(EngineError, match="numpy.i0"):
        s2sad.grad(lambda x: np.i0(x), mode="tape")(1.5)
    with pytest.raises(S2SADError, match="already transformed"):
        s2sad.grad(s2sad.grad(seed_z, mode="tape"), mode="tape")


@pytest.mark.parametrize("entry", [s2sad.grad, s2sad.value_and_grad])
def test_unknown_modes_list_the_modes(entry):
    with pytest.raises(S2SADError, match='"reverse".*"forward".*"tape"'):
        entry(seed_z, mode="dual")
    with pytest.raises(S2SADError, match='"reverse".*"forward".*"tape"'):
        entry(mode="Tape")  # refused before decorating anything
    # forward mode is a mode of the compiler, with the same results
    assert entry(seed_z, wrt=(0, 1), mode="forward")(0.5, 4.2) == \
        entry(seed_z, wrt=(0, 1))(0.5, 4.2)


# ------------------------------------------------- arrays changed in place


def changed_through_a_list(x, w, s):
    a = (s / (2.0 + np.tanh(x))) * 1.0
    c = x * 0.5
    lst = []
    lst.append(a)
    lst.append(c)
    for j in range(len(lst)):
        lst[j] -= np.min(w, axis=-2)
    out = lst[0] + a * c
    return np.max(out)


def changed_through_another_name(x, w, s):
    a = x * s
    b = a
    b *= w[0]
    b += x
    b /= 2.0 + w[1]
    b **= 2
    return np.sum(a * x)


def argument_changed_in_place(x, w, s):
    x -= w[0] * s
    return np.sum(x * x)


def reshaped_temporary_changed(x, w, s):
    h = (x * s).reshape(-1)
    h += w[1]
    return np.sum(h * h)


def number_changed(x, w, s):
    t = s * 2.0
    u = t
    u *= s  # (a number: `u` gets a new value, `t` keeps its own)
    return t + u + np.sum(x)


@pytest.mark.parametrize("f", [changed_through_a_list, changed_through_another_name,
                               argument_changed_in_place, reshaped_temporary_changed,
                               number_changed])
@pytest.mark.parametrize("engine", ENGINES)
def test_arrays_changed_in_place_are_followed(engine, f):
    """``lst[j] -= v`` on an array changes the array every name of it sees: the engines
    used to give the list a new traced value and leave `a` and `c` as they were (the
    value and the derivative of another function)."""
    x = np.array([-0.65, -1.2, 0.1])
    w = np.array([[-1.43, 0.84, -0.86], [0.2, 0.1, 0.3]])
    args = (x, w, 0.3)
    value, grads = engine(f, tuple(a.copy() if isinstance(a, np.ndarray) else a
                                   for a in args), (0, 1, 2))
    assert np.isclose(value, f(*(a.copy() if isinstance(a, np.ndarray) else a for a in args)))
    want = numeric_grad(lambda x, w, s: f(x.copy(), w.copy(), s), args, (0, 1, 2))
    assert close(grads, want, rtol=1e-5, atol=1e-6), (grads, want)


def view_then_base_changed(x):
    a = x * 2.0
    v = a[0:2]
    a += 1.0
    return np.sum(v * v)


def view_changed(x):
    a = x * 2.0
    v = a[0:2]
    v *= x[0:2]
    return np.sum(a * a)


def transpose_then_changed(x):
    m = np.outer(x, x)
    r = m.T
    m -= 1.0
    return np.sum(r * r)


def stopped_then_changed(x):
    a = x * 1.0
    b = s2sad.stop_gradient(a)
    a -= x
    return np.sum(a * x) + np.sum(b)


@pytest.mark.parametrize("f", [view_then_base_changed, view_changed, transpose_then_changed,
                               stopped_then_changed])
@pytest.mark.parametrize("engine", ENGINES)
def test_arrays_changed_in_place_under_a_view_are_refused(engine, f):
    """Where another array may share the memory (a view, the same array given to
    `stop_gradient`), the engines cannot update it: an error, never other numbers."""
    with pytest.raises(EngineError, match="changes a traced array in place"):
        engine(f, (np.array([0.3, -0.5, 0.8]),), 0)
    with pytest.raises(EngineError, match="changes a traced array in place"):
        s2sad.grad(f, mode="tape")(np.array([0.3, -0.5, 0.8]))


def _ufuncs_of_a_list(x, y):
    return np.sum(np.log([x, y])) + np.sum(np.exp(np.array([x, y * x]))) + \
        float(np.tanh([x])[0])


@pytest.mark.parametrize("engine", [tape_grad, dual_grad])
def test_a_ufunc_of_a_list_of_traced_numbers(engine):
    """``np.log([x, y])``: NumPy's loop over an array of objects calls each traced
    number's method of the ufunc's name, which applies the ufunc's rule."""
    value, g = engine(_ufuncs_of_a_list, (1.5, 0.7), (0, 1))
    assert value == pytest.approx(_ufuncs_of_a_list(1.5, 0.7))
    assert close(g, numeric_grad(_ufuncs_of_a_list, (1.5, 0.7), (0, 1)), rtol=1e-6)


_BUFFER = np.array([1.0, 2.0, 3.0])


def _reads_then_changes_constants(x):
    acc = np.zeros(3)
    out = 0.0
    for k in range(3):
        acc += k  # (an accumulator changed after each product read it)
        out = out + np.dot(acc, x ** 2)
    out = out + np.sum(_BUFFER * x)
    _BUFFER[:] = 5.0  # (a global buffer reset after the read)
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_a_constant_array_changed_after_an_operation_read_it(engine):
    # (the tape's pullbacks held the arrays themselves, and the backward sweep read
    # what they held at its end: 2 * 9 * x where 2 * (0 + 1 + 3) * x is right)
    x = np.array([1.5, -0.5, 0.7])
    _BUFFER[:] = [1.0, 2.0, 3.0]
    expected = 2 * (0 + 1 + 3) * x + np.array([1.0, 2.0, 3.0])
    _BUFFER[:] = [1.0, 2.0, 3.0]
    _, got = engine(_reads_then_changes_constants, (x,), 0)
    assert close(got, expected)


def _array_methods(x):
    y = x.reshape(2, 2)
    return y.std() + y.var(axis=0).sum() + y.flatten()[1] * y.squeeze()[0, 0] + \
        x.clip(-0.1, 0.3).sum() + (x.clip(max=0.2) ** 2).sum()


def test_the_tape_engine_takes_the_array_methods_the_compiler_takes():
    x = np.array([0.5, -0.2, 0.1, 0.9])
    assert np.allclose(s2sad.grad(_array_methods, mode="tape")(x), s2sad.grad(_array_methods)(x),
                       rtol=1e-12)


def _writes_into_its_list(xs, x):
    xs[0] = x * x
    return sum(xs) * x


def _adds_into_its_array(w):
    w += 1.0
    return np.sum(w * w)


@pytest.mark.parametrize("mode", ["tape", "forward"])
def test_the_engines_leave_arguments_as_the_function_leaves_them(mode):
    # (a traced value written into an argument is its number afterwards, and a list or
    # array the engine traced in the argument's place, changed in place, is changed in
    # the caller's as Python's run changes it)
    a = [1.0, 2.0]
    value, grad = s2sad.value_and_grad(_writes_into_its_list, wrt=1, mode="tape")(a, 1.5) \
        if mode == "tape" else (None, dual_grad(_writes_into_its_list, (a, 1.5), 1)[1])
    assert a == [2.25, 2.0] and all(type(v) is float for v in a)
    assert grad == pytest.approx(2 * 1.5 * 1.5 + 2.25 + 2.0)
    a = [1.0, 2.0]
    s2sad.grad(_writes_into_its_list, wrt=(0, 1), mode="tape")(a, 1.5)
    assert a == [2.25, 2.0]
    w = np.array([1.0, 2.0])
    assert np.allclose(s2sad.grad(_adds_into_its_array, mode="tape")(w), [4.0, 6.0])
    np.testing.assert_array_equal(w, [2.0, 3.0])


def _written_through_asarray(x):
    arr = x * 1.0
    a = np.asarray(arr)  # (the same array: a write into `a` is one into `arr`)
    a[0] = a[0] * 3.0
    return np.sum(arr * arr)


def _read_through_asarray(x):
    y = np.asarray(x, dtype=float)
    return np.sum(np.sin(y) * np.asarray(x))


@pytest.mark.parametrize("engine", ENGINES)
def test_np_asarray_of_a_traced_array_is_that_array(engine):
    """``np.asarray`` of a traced array gave an object array of its items, a copy: a
    write through it changed the copy alone, and the tape's value and gradient were
    those of another function (6.5 and [3, 4, 1] where 24.5 and [27, 4, 1] are
    right). Now it is the array itself, whose write the engines refuse; read only,
    it is followed as the array (no longer item by item)."""
    x = np.array([1.5, 2.0, 0.5])
    with pytest.raises(EngineError, match="assigning into an element"):
        engine(_written_through_asarray, (x,))
    value, g = engine(_read_through_asarray, (x,))
    assert value == pytest.approx(_read_through_asarray(x))
    close(g, s2sad.grad(_read_through_asarray)(x))


def _deep_copied(x):
    y = copy.deepcopy(x)
    z = y * 3.0
    w = x * x  # (a value after the copy's: the copy's result was read off the tape)
    return z + 0.0 * w


def _copied_array(x):
    y = copy.copy(x)
    y += 1.0  # (changes the copy, not `x`)
    return np.sum(y * x)


@pytest.mark.parametrize("mode", ["tape"])
def test_copies_of_traced_values(mode):
    """``copy.deepcopy(x)`` copied the engine's record with the value: the result on
    the copy was read on the original tape, the gradient of another value (1.4
    where 3.0 is right) or an IndexError."""
    assert s2sad.grad(_deep_copied, mode=mode)(0.7) == pytest.approx(3.0)
    x = np.array([1.0, 2.0])
    assert np.allclose(s2sad.grad(_copied_array, mode=mode)(x), 2 * x + 1.0)
    assert np.allclose(s2sad.check(_copied_array, x).method("dual").derivative, 2 * x + 1.0)
