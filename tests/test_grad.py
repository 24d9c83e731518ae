"""End to end: gradients of user-style functions, and the API's behaviour."""

import math
import threading

import pytest

import s2sad
import zoo
from helpers import central_diff, close, numeric_grad


@pytest.mark.parametrize("f,args,wrt", zoo.ZOO, ids=[f"{f.__name__}{args}" for f, args, _ in zoo.ZOO])
def test_zoo_against_central_differences(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt)(*args)
    assert close(got, numeric_grad(f, args, wrt))


@pytest.mark.parametrize("f,args,wrt", zoo.ZOO, ids=[f"{f.__name__}{args}" for f, args, _ in zoo.ZOO])
def test_value_and_grad_matches(f, args, wrt):
    value, grad = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)
    assert grad == s2sad.grad(f, wrt=wrt)(*args)


def test_seed_values_exactly():
    assert s2sad.value_and_grad(zoo.quadratic)(5.0) == (42.0, 13.0)
    value, (dx, dy) = s2sad.value_and_grad(zoo.seed_z, wrt=(0, 1))(0.5, 4.2)
    assert value == 2.579425538604203
    assert dx == 5.077582561890373
    assert dy == 0.5


def test_seed_program_closed_form():
    # v = 2*p*q + 3*r with p = 7x, q = 35x^2, r = 1/y: v = 490 x^3 + 3/y
    x, y = 1.5, 0.7
    dx, dy = s2sad.grad(zoo.seed_program, wrt=("x", "y"))(x, y)
    assert dx == pytest.approx(1470 * x * x, rel=1e-15)
    assert dy == pytest.approx(-3 / (y * y), rel=1e-15)


def test_decorator_forms():
    @s2sad.grad
    def f(x):
        return x * x

    @s2sad.grad(wrt=("x", "y"))
    def g(x, y):
        return x * y

    @s2sad.value_and_grad(wrt=1)
    def h(x, y):
        return x * y

    assert f(3.0) == 6.0
    assert g(2.0, 5.0) == (5.0, 2.0)
    assert h(2.0, 5.0) == (10.0, 2.0)


def test_wrt_forms_and_signature():
    g = s2sad.grad(zoo.seed_z, wrt="y")
    assert g(0.5, 4.2) == 0.5
    assert s2sad.grad(zoo.seed_z, wrt=-1)(0.5, 4.2) == 0.5
    assert s2sad.grad(zoo.seed_z, wrt=("y",))(0.5, 4.2) == (0.5,)
    assert g(x=0.5, y=4.2) == 0.5
    assert g.__name__ == "seed_z"
    assert g.__wrapped__ is zoo.seed_z
    import inspect
    assert list(inspect.signature(g).parameters) == ["x", "y"]


def test_defaults_and_keywords():
    g = s2sad.grad(zoo.with_default)
    assert g(1.5) == 6.0
    assert g(1.5, 3.0) == 9.0
    assert g(1.5, scale=1.0) == 3.0


def _loss_made_with_defaults(scale, w0):
    def loss(x, s=scale * 2.0, *, w=w0):
        return s * w * x ** 3
    return loss


def _caller_of_a_local_with_defaults(scale):
    def h(x, s=scale):
        return s * x ** 3
    def f(x):
        return h(x) + h(x, 1.0)
    return f


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_defaults_computed_where_a_nested_def_ran(mode):
    """A default of a function made inside another (``def h(x, s=scale)``, `scale` the
    maker's local, which `h` does not read) is the value Python computed when the
    ``def`` ran; its name was looked up in `h`'s own scope and refused as having no
    value."""
    loss = _loss_made_with_defaults(1.5, 0.5)
    assert close(s2sad.grad(loss, mode=mode)(2.0), 3.0 * 0.5 * 3 * 2.0 ** 2)
    assert close(s2sad.grad(loss, mode=mode)(2.0, 1.0, w=2.0), 2.0 * 3 * 2.0 ** 2)
    f = _caller_of_a_local_with_defaults(3.0)
    assert close(s2sad.grad(f, mode=mode)(2.0), numeric_grad(f, (2.0,), 0))
    assert close(s2sad.hessian(f)(2.0), 4.0 * 6 * 2.0)


def _scaled(c):
    def inner(t):
        return c * t * t
    return inner


_double, _cube = _scaled(2.0), _scaled(5.0)
_square_lambda = lambda t, p=2.0: p * t * t  # noqa: E731


def _two_of_one_name(x, y):
    return _double(x) + _cube(y) * x


_outer_lambda = lambda x, y: 1.5 * _two_of_one_name(x, y) + _square_lambda(y)  # noqa: E731


@pytest.mark.parametrize("f", [_two_of_one_name, _outer_lambda])
def test_two_functions_of_one_name(f):
    """Two functions of one name called in one derivative (the `inner` of two calls of
    a factory, two lambdas, ``a.helper`` and ``b.helper``) had derivatives of one
    name, and every call went to one of them: a wrong gradient in reverse mode, in
    forward mode and in the Hessian."""
    args = (0.4, -0.3)
    want = numeric_grad(f, args, (0, 1))
    for mode in ("reverse", "forward"):
        assert close(s2sad.grad(f, wrt=(0, 1), mode=mode)(*args), want)
    assert close(s2sad.jvp(f, args, (0.0, 1.0))[1], want[1])
    h = 1e-5
    hess = s2sad.hessian(f, wrt=(0, 1))(*args)
    for i in range(2):
        shifted = [list(args), list(args)]
        shifted[0][i] += h
        shifted[1][i] -= h
        g_plus = s2sad.grad(f, wrt=(0, 1))(*shifted[0])
        g_minus = s2sad.grad(f, wrt=(0, 1))(*shifted[1])
        assert close(hess[i], tuple((a - b) / (2 * h) for a, b in zip(g_plus, g_minus)),
                     rtol=1e-5)


def test_keyword_only_parameters():
    g = s2sad.grad(zoo.kwonly, wrt=("x", "scale"))
    assert g(3.0, scale=2.0) == (12.0, 9.0)
    assert g(3.0) == (12.0, 9.0)


def test_integer_argument_is_not_differentiated():
    g = s2sad.grad(zoo.int_arg)
    assert close(g(1.3, 3), 3 * 1.3 ** 2 + 3)


def test_gradient_type_follows_the_argument():
    assert isinstance(s2sad.grad(zoo.quadratic)(2.0), float)
    assert s2sad.grad(zoo.unused_arg, wrt=1)(1.0, 2.0) == 0.0


def test_vjp_scalar_and_tuple_output():
    out, pullback = s2sad.vjp(zoo.seed_z, 0.5, 4.2)
    assert out == zoo.seed_z(0.5, 4.2)
    assert pullback(1.0) == (5.077582561890373, 0.5)
    assert pullback(2.0) == (2 * 5.077582561890373, 1.0)
    out, pullback = s2sad.vjp(zoo.helper_pair, 2.0, 3.0)
    assert out == (5.0, 6.0)
    assert pullback((1.0, 0.0)) == (1.0, 1.0)
    assert pullback((0.0, 1.0)) == (3.0, 2.0)


def test_a_pullback_can_be_called_again():
    """The backward sweep consumes the forward sweep's tapes and restores the arrays
    it wrote: every call of the pullback must still give the right adjoints."""
    import numpy as np
    import zoo_loops
    import zoo_numpy

    out, pullback = s2sad.vjp(zoo_loops.loop_sum, 0.7, 1.3, 20)
    first = pullback(1.0)
    assert pullback(1.0) == first
    assert pullback(2.0) == (2 * first[0], 2 * first[1], None)
    A, e = np.arange(12.0).reshape(3, 4) / 10, np.array([0.5, -0.2, 0.3])
    out, pullback = s2sad.vjp(zoo_numpy.column_update, A, e[:1].repeat(3))
    first = pullback(1.0)
    again = pullback(1.0)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))


def test_vjp_seeds_a_list_output_and_a_written_array_output():
    """An output that is a list built by append, or an array written into, has an
    adjoint the backward sweep updates in place: it must start from the seed."""
    import numpy as np
    import zoo_loops
    import zoo_numpy

    out, pullback = s2sad.vjp(zoo_loops.powers_list, 0.7, 4)
    (g, n_bar) = pullback([1.0, 0.0, 2.0, 0.0])
    assert g == pytest.approx(1.0 + 2.0 * 3 * 0.7 ** 2) and n_bar is None
    seed = [1.0, 1.0, 1.0, 1.0]
    pullback(seed)
    assert seed == [1.0, 1.0, 1.0, 1.0]  # the caller's seed is not consumed

    for f in (zoo_numpy.returns_written, zoo_numpy.written_output):
        x = np.array([0.3, -0.8, 1.1])
        out, pullback = s2sad.vjp(f, x)
        v = np.linspace(0.5, 2.0, np.size(out)).reshape(np.shape(out))
        (got,) = pullback(v)
        assert np.allclose(got, central_diff(f, (x,), 0, seed=v), rtol=1e-6, atol=1e-8)
        assert np.array_equal(v, np.linspace(0.5, 2.0, np.size(out)))


def test_vjp_integer_argument_gets_none():
    out, pullback = s2sad.vjp(zoo.int_arg, 1.3, 3)
    gx, gn = pullback(1.0)
    assert gn is None
    assert close(gx, 3 * 1.3 ** 2 + 3)


def test_repeated_calls_hit_the_cache():
    g = s2sad.grad(zoo.seed_z)
    first = g(0.5, 4.2)
    state = g.__s2sad__
    fns = list(state.specs.values())
    for _ in range(3):
        assert g(0.5, 4.2) == first
    assert list(state.specs.values()) == fns


def test_redefined_function_is_transformed_again():
    ns = {"math": math}
    exec_in_file(ns, "def f(x):\n    return x * x\n")
    g1 = s2sad.grad(ns["f"])
    assert g1(3.0) == 6.0
    exec_in_file(ns, "def f(x):\n    return x * x * x\n")
    g2 = s2sad.grad(ns["f"])
    assert g2(3.0) == 27.0
    assert g1(3.0) == 6.0


def test_rebinding_a_called_function_is_seen():
    import zoo_mutable as m

    g = s2sad.grad(m.outer)
    assert g(2.0) == 4.0  # d/dx (x * x)
    original = m.inner
    try:
        m.inner = m.cube
        assert g(2.0) == 12.0  # d/dx x**3
    finally:
        m.inner = original
    assert g(2.0) == 4.0


def test_closure_variables_are_live():
    fs = [zoo.make_scaled(a) for a in (2.0, 3.0)]
    assert [s2sad.grad(f)(1.0) for f in fs] == [2.0, 3.0]


def test_threads_agree():
    g = s2sad.grad(zoo.math_calls)
    results = []

    def work():
        results.append(g(1.2))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1


def exec_in_file(ns, text, _counter=[0]):
    """Define functions from text in a real file, so their source can be read."""
    import os
    import tempfile

    _counter[0] += 1
    path = os.path.join(tempfile.mkdtemp(), f"defs{_counter[0]}.py")
    with open(path, "w") as fh:
        fh.write(text)
    exec(compile(text, path, "exec"), ns)


@pytest.mark.parametrize("f,args,wrt", zoo.ZOO, ids=[f"{f.__name__}{args}" for f, args, _ in zoo.ZOO])
def test_vjp_matches_grad(f, args, wrt):
    from helpers import positions

    out, pullback = s2sad.vjp(f, *args)
    assert out == f(*args)
    adjoints = pullback(1.0)
    assert len(adjoints) == len(args)
    got = tuple(adjoints[i] for i in positions(f, wrt))
    expected = s2sad.grad(f, wrt=wrt)(*args)
    expected = expected if isinstance(wrt, tuple) else (expected,)
    assert close(got, expected, rtol=1e-12, atol=1e-14)


def test_traceback_shows_the_generated_line():
    import traceback

    g = s2sad.grad(zoo.seed_program, wrt=("x", "y"))
    try:
        g(1.0, 0.0)
    except ZeroDivisionError as exc:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    else:
        raise AssertionError("expected ZeroDivisionError")
    assert "seed_program_grad" in text
    assert "1 / y" in text  # the generated line, read back through linecache


# A loop whose reverse recomputes values from what its tape holds: the split
# functions (vjp's pullback, a called function's backward sweep) once planned the
# recomputation twice, the second plan (from the first one's reads) in front of the
# first and reading what only the first defines: an UnboundLocalError.


def _recomputed_while(x, n):
    y = 0.5
    i = 0
    while i < n:
        t0 = x
        t2 = t0 / (2.0 + y * y) * i
        y = math.sin(math.sin(y))
        y = x / (2.0 + x * x) * t2 / (2.0 + t2 * t2)
        i += 1
    return y


def _recomputed_for(x, n):
    y = x
    z = 0.5
    for i in range(n):
        t0 = z * x * z
        z = math.sin(z) - x
        y = y + t0 / (2.0 + t0 * t0) * x
    return y + z


def _calls_recomputed(x, n):
    return 2.0 * _recomputed_while(x, n) + _recomputed_for(x, n)


@pytest.mark.parametrize("f", [_recomputed_while, _recomputed_for, _calls_recomputed])
def test_pullback_of_a_loop_that_recomputes_values(f):
    expected = numeric_grad(f, (0.7, 3), 0)
    assert close(s2sad.grad(f)(0.7, 3), expected, rtol=1e-6)
    out, pullback = s2sad.vjp(f, 0.7, 3)
    assert out == f(0.7, 3)
    first = pullback(1.0)[0]
    assert close(first, expected, rtol=1e-6)
    assert close(pullback(2.0)[0], 2.0 * first, rtol=1e-12)  # (the forward sweep again)
    assert close(s2sad.jacobian(f, mode="reverse")(0.7, 3), first, rtol=1e-12)


# ------------------------- isinstance dispatch: the branch a type rules out is dead


def _sum_or_scale(xs, y):
    if isinstance(xs, list):
        t = 0.0
        for v in xs:
            t = t + v * y
        return t
    return xs * y  # (list repetition for a list: never runs for one)


def _sine_or_sines(x, n):
    s = 0.0
    for i in range(n):
        if isinstance(x, (list, tuple)):
            for v in x:
                s = s + math.sin(v) * i
            if i > 2:
                break
        else:
            s = s + math.sin(x) * i
    return s


def test_isinstance_dispatch_on_lists_and_floats():
    g = s2sad.grad(_sum_or_scale, wrt=(0, 1))
    assert g([1.0, 2.0], 3.0) == ([3.0, 3.0], 3.0)
    assert g(1.5, 3.0) == (3.0, 1.5)
    assert s2sad.jvp(_sum_or_scale, ([1.0, 2.0], 3.0), ([1.0, 0.0], 1.0))[1] == 6.0
    assert s2sad.jvp(_sum_or_scale, (1.5, 3.0), (1.0, 0.0))[1] == 3.0


def test_isinstance_decided_by_a_parameter_inside_a_loop():
    got = s2sad.grad(_sine_or_sines, wrt=0)(0.7, 4)
    assert close(got, math.cos(0.7) * 6.0, rtol=1e-12)
    got = s2sad.grad(_sine_or_sines, wrt=0)([0.7, 0.2], 5)
    assert close(got, [math.cos(0.7) * 6.0, math.cos(0.2) * 6.0], rtol=1e-12)
    assert close(s2sad.jvp(_sine_or_sines, (0.7, 4), (1.0, 0))[1], math.cos(0.7) * 6.0,
                 rtol=1e-12)


def test_isinstance_the_kinds_do_not_decide_keeps_both_branches():
    def f(x):
        if isinstance(x, int):  # a float is never an int, an np.float32 neither
            return x * 3.0
        return x * x

    assert s2sad.grad(f)(1.5) == 3.0


def _times_if_int(v, x):
    if isinstance(v, int):
        return x * v
    return x * x * v


def _int_or_float(x, flag):
    v = 3 if flag > 0 else 2.0
    return _times_if_int(v, x)


def test_isinstance_of_a_callee_parameter_that_may_be_an_int_or_a_float():
    g = s2sad.grad(_int_or_float, wrt=0)
    assert g(1.5, 1) == 3.0 and g(1.5, -1) == 6.0


# Every entry point gives each argument's derivative its argument's type and dtype.

import numpy as np  # noqa: E402


def _promoted(x, y):
    """float32 `x` meets float64 constants: the arithmetic is float64."""
    return np.sum(x * np.array([1.0, 2.0, 3.0])[: x.size].reshape(x.shape) * y) + y * y


def _typed(got, like):
    if isinstance(like, np.ndarray):
        return type(got) is np.ndarray and got.dtype == like.dtype and got.shape == like.shape
    return isinstance(got, float)  # (a float; float64's NumPy scalar is one)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0], dtype=np.float32),
                               np.array(1.5), np.array(1.5, dtype=np.float32),
                               np.array([[1.0, 2.0, 3.0]])],
                         ids=["float32", "0-d", "0-d float32", "float64"])
def test_every_entry_point_gives_the_arguments_type(x):
    y = 0.5
    expected = s2sad.grad(_promoted, wrt=(0, 1))(x, y)
    assert _typed(expected[0], x) and _typed(expected[1], y)
    results = {
        "value_and_grad": s2sad.value_and_grad(_promoted, wrt=(0, 1))(x, y)[1],
        "forward": s2sad.grad(_promoted, wrt=(0, 1), mode="forward")(x, y),
        "tape": s2sad.grad(_promoted, wrt=(0, 1), mode="tape")(x, y),
        "vjp": s2sad.vjp(_promoted, x, y)[1](1.0),
        "vjp of a float32 seed": s2sad.vjp(_promoted, x, y)[1](np.float32(1.0)),
        "jacobian": s2sad.jacobian(_promoted, wrt=(0, 1), mode="forward")(x, y),
        "jacobian by the pullback": s2sad.jacobian(_promoted, wrt=(0, 1), mode="reverse")(x, y),
    }
    for what, got in results.items():
        assert _typed(got[0], x) and _typed(got[1], y), (what, got)
        assert close(np.asarray(got[0], dtype=float), np.asarray(expected[0], dtype=float),
                     rtol=1e-6), what
    H = s2sad.hessian(_promoted, wrt=(0, 1))(x, y)
    assert H[0][0].dtype == x.dtype and H[0][0].shape == x.shape * 2
    assert type(H[1][1]) is float and H[0][1].dtype == x.dtype
    # the tangent of a float32 output is float32, of a 0-d one 0-d
    out, tangent = s2sad.jvp(_times_two, (x,), (np.ones_like(x),))
    assert type(tangent) is type(out) and tangent.dtype == out.dtype == x.dtype


def _times_two(x):
    return x * 2.0


def test_a_float32_number_gets_what_grad_gives_it():
    x = np.float32(1.5)
    expected = s2sad.grad(_times_two)(x)
    for got in (s2sad.grad(_times_two, mode="forward")(x), s2sad.vjp(_times_two, x)[1](1.0)[0]):
        assert type(got) is type(expected) and got == expected


def _sqrt_times(x, c):
    return np.sum(np.sqrt(x) * c)


def _made_float32(x):
    return np.sum(x.astype(np.float32) ** 2)


W32 = np.array([0.5, 2.0], dtype=np.float32)


def _times_a_float32_global(x):
    return np.sum(W32 * x)


@pytest.mark.parametrize("f, args, want", [
    (_sqrt_times, (np.array([1.0, 2.0], np.float32), np.array([1.0, 3.0])),
     ([0.5, 1.5 / 2 ** 0.5], [1.0, 2 ** 0.5])),
    (_made_float32, (np.array([0.3, -1.2]),), ([0.6, -2.4],)),
    (_times_a_float32_global, (np.array([0.3, -1.2]),), ([0.5, 2.0],)),
], ids=["float32 argument", "astype", "float32 global"])
def test_a_float64_arrays_gradient_stays_float64_beside_float32_values(f, args, want):
    """The gradient has its argument's dtype where float32 values meet a float64
    argument's adjoint (another argument, a conversion, a global): the simplified
    arithmetic (``1.0 * t1``) would keep the float32 one's (it did)."""
    wrt = tuple(range(len(args)))
    for mode in ("reverse", "forward"):
        got = s2sad.grad(f, wrt=wrt, mode=mode)(*args)
        for g, x in zip(got, args):
            assert g.dtype == x.dtype, (mode, g.dtype, x.dtype)
        assert close(list(got), [np.array(w) for w in want], rtol=1e-6, atol=1e-7)
    _, pullback = s2sad.vjp(f, *args)
    assert [g.dtype for g in pullback(1.0)] == [x.dtype for x in args]


def _with_options(x, opts, n, flag=None):
    return x * x * n


@pytest.mark.parametrize("value", ["relu", 1 + 2j, np.array([1j]), memoryview(b"ab")],
                         ids=["str", "complex", "complex array", "memoryview"])
def test_vjp_refuses_an_argument_it_cannot_give_an_adjoint(value):
    with pytest.raises(s2sad.WrtError) as info:
        s2sad.vjp(_with_options, 2.0, value, 3)
    text = str(info.value)
    assert "`opts`" in text and "float" in text and "None" in text
    assert info.value.filename == __file__


def test_vjp_gives_none_for_arguments_held_fixed():
    for fixed in (3, True, None, np.array([1, 2]), [1, 2]):
        out, pullback = s2sad.vjp(_with_options, 2.0, fixed, 3, fixed)
        assert out == 12.0 and pullback(1.0) == (12.0, None, None, None)
    # (a tuple is a container: None at each leaf, in its structure)
    out, pullback = s2sad.vjp(_with_options, 2.0, (1, 2), 3, {"a": 1})
    assert out == 12.0 and pullback(1.0) == (12.0, (None, None), None, {"a": None})
    assert s2sad.vjp(_with_options, 2.0, 1.5, 3)[1](1.0) == (12.0, 0.0, None)
    # jacobian(mode="reverse") holds what is not in wrt, whatever it is
    assert s2sad.jacobian(_with_options, mode="reverse")(2.0, "relu", 3) == 12.0


def _list_promoted(params, x):
    W, b = params
    return np.sum(np.tanh(W @ x + b))


def _list_of_numbers(ps):
    a, c = ps
    return np.sum(a * c * c)


@pytest.mark.parametrize("params,rest,f", [
    ([np.ones((2, 3), np.float32), np.ones(2, np.float32)], (np.ones(3),), _list_promoted),
    ([np.array(1.0), np.array(2.0)], (), _list_of_numbers),
    ([np.array(1.0, np.float32), np.array(2.0, np.float32)], (), _list_of_numbers),
], ids=["float32 arrays", "0-d arrays", "0-d float32 arrays"])
def test_a_list_arguments_elements_get_their_types(params, rest, f):
    expected = [np.array(4.0), np.array(4.0)] if f is _list_of_numbers else None  # (c², 2ac)
    results = {
        "grad": s2sad.grad(f)(params, *rest),
        "grad again": s2sad.grad(f)(params, *rest),
        "value_and_grad": s2sad.value_and_grad(f, wrt=(0,))(params, *rest)[1][0],
        "forward": s2sad.grad(f, mode="forward")(params, *rest),
        "vjp": s2sad.vjp(f, params, *rest)[1](1.0)[0],
    }
    for what, got in results.items():
        assert type(got) is list and len(got) == len(params), what
        for g, p in zip(got, params):
            assert type(g) is np.ndarray and g.dtype == p.dtype and g.shape == p.shape, what
        if expected is not None:
            assert close([np.asarray(g, dtype=float) for g in got], expected), what


# lists of arrays of different ranks as arguments: each element read by a constant
# index, an unpacking or a loop has its own kind (`kinds.ListKind.items`)

def _elements_by_index(params, x):
    return params[0][1][-1] * x + params[1] @ params[1]


def _elements_by_index_sep(w, b, x):
    return w[1][-1] * x + b @ b


def _elements_unpacked(params, x):
    w, b = params
    v = (b @ w).copy()
    v[-1] = x
    return np.concatenate([w @ v, b[1:2]])[0] + np.sum(v)


def _elements_unpacked_sep(w, b, x):
    v = (b @ w).copy()
    v[-1] = x
    return np.concatenate([w @ v, b[1:2]])[0] + np.sum(v)


def _elements_in_a_loop(params, x):
    s = 0.0
    for p in params:
        s = s + np.sum(p * p) * x
    for i in range(len(params)):
        s = s + np.sum(np.sin(params[i]))
    return s + np.sum(params[-1] * params[-2][0][:2])


def _elements_in_a_loop_sep(w, b, x):
    s = 0.0
    for p in (w, b):
        s = s + np.sum(p * p) * x
    return s + np.sum(np.sin(w)) + np.sum(np.sin(b)) + np.sum(b * w[0][:2])


def _elements_unused(params, x):
    w, b = params
    return np.mean(params[0]) * x


def _elements_unused_sep(w, b, x):
    return np.mean(w) * x


def _elements_of_a_callee(params, x):
    return _elements_by_index(params, x) * 2.0


def _elements_of_a_callee_sep(w, b, x):
    return _elements_by_index_sep(w, b, x) * 2.0


@pytest.mark.parametrize("f,separate", [
    (_elements_by_index, _elements_by_index_sep),
    (_elements_unpacked, _elements_unpacked_sep),
    (_elements_in_a_loop, _elements_in_a_loop_sep),
    (_elements_unused, _elements_unused_sep),
    (_elements_of_a_callee, _elements_of_a_callee_sep),
], ids=["index", "unpacked", "loops", "unused", "callee"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_list_of_arrays_of_different_ranks(f, separate, dtype):
    params = [np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype), np.array([0.3, 0.7], dtype)]
    x = 0.5
    expected = list(s2sad.grad(separate, wrt=(0, 1))(*params, x))
    results = {
        "grad": s2sad.grad(f)(params, x),
        "value_and_grad": s2sad.value_and_grad(f)(params, x)[1],
        "forward": s2sad.grad(f, mode="forward")(params, x),
        "vjp": s2sad.vjp(f, params, x)[1](1.0)[0],
    }
    for what, got in results.items():
        assert type(got) is list and len(got) == 2, what
        for g, p, e in zip(got, params, expected):
            assert type(g) is np.ndarray and g.shape == p.shape and g.dtype == p.dtype, what
            assert close(g.astype(float), e.astype(float)), what


def test_a_list_of_arrays_keys_the_derivative_by_each_elements_kind():
    def f(params, x):
        return np.sum(params[0]) * x + np.sum(params[1] * params[1])

    w, b = np.ones((2, 3)), np.array([0.3, 0.7])
    g = s2sad.grad(f)
    assert close(g([w, b], 2.0), [np.full((2, 3), 2.0), 2 * b])
    got = g([b, w], 2.0)  # the same ranks the other way round: not the code above
    assert got[0].shape == (2,) and got[1].shape == (2, 3)
    assert close(got, [np.full(2, 2.0), 2 * w])
    got = g([b, b], 2.0)
    assert close(got, [np.full(2, 2.0), 2 * b])


def _appends_a_matrix(params, x):
    params = list(params)  # (an argument itself is not changed in place: refused)
    params.append(np.outer(x, x))
    return np.sum(params[-1] @ params[1]) + np.sum(params[0][-1] * x)


def test_a_list_of_arrays_changed_in_place_forgets_its_elements_kinds():
    # after the append, `params[-1]` is the matrix, not the vector the list held
    w, b, x = np.ones((2, 3)), np.array([0.3, 0.7, 0.1]), np.array([1.0, 2.0, 3.0])
    got = s2sad.grad(_appends_a_matrix)([w, b], x)
    assert close(got, [np.array([[0.0] * 3, [1.0, 2.0, 3.0]]), np.outer(x, x).sum(axis=0)])
    out, pullback = s2sad.vjp(_appends_a_matrix, [w, b], x)
    assert close(pullback(1.0)[0], got)


def _sum_of_sines(x):
    return np.sum(np.sin(x))


def test_the_tape_gives_a_float32_argument_a_float32_gradient():
    x = np.arange(3.0, dtype=np.float32)
    expected = s2sad.grad(_sum_of_sines)(x)
    for got in (s2sad.grad(_sum_of_sines, mode="tape")(x),
                s2sad.value_and_grad(_sum_of_sines, mode="tape")(x)[1]):
        assert type(got) is np.ndarray and got.dtype == np.float32 and close(got, expected)


def _pops_what_it_appended(xs, y):
    xs = list(xs)
    xs.append(y)
    r = xs[-1] * xs[0]
    xs.pop()
    return r


def _pops_into_a_name(xs, y):
    xs = list(xs)
    xs.append(y)
    r = xs[-1] * xs[0]
    z = xs.pop()
    return r


@pytest.mark.parametrize("f", [_pops_what_it_appended, _pops_into_a_name])
def test_a_pop_whose_value_is_unused_keeps_the_adjoint_list_aligned(f):
    # (the reverse of the pop puts a zero back: the gradient has one entry per element)
    assert s2sad.grad(f, wrt=(0, 1))([1.0, 2.0], 3.0) == ([3.0, 0.0], 1.0)
    assert s2sad.vjp(f, [1.0, 2.0], 3.0)[1](1.0) == ([3.0, 0.0], 1.0)


def _reads_two_of_many(params, x):
    return np.sum(params[0] @ x) + np.sum(params[5])


@pytest.mark.parametrize("n", [7, s2sad.ir.kinds.ITEMS + 8])
def test_unread_elements_of_a_list_of_arrays_get_zeros_of_their_shape(n):
    w, b, x = np.ones((2, 3)), np.array([0.3, 0.7], np.float32), np.arange(3.0)
    params = [w] + [b] * (n - 1)
    for got in (s2sad.grad(_reads_two_of_many)(params, x),
                s2sad.grad(_reads_two_of_many, mode="forward")(params, x),
                s2sad.vjp(_reads_two_of_many, params, x)[1](1.0)[0]):
        assert len(got) == n
        for g, p in zip(got, params):
            assert type(g) is np.ndarray and g.shape == p.shape and g.dtype == p.dtype
        assert close(got[0], np.tile(x, (2, 1))) and close(got[5], np.ones(2))
        assert close(got[1], np.zeros(2)) and close(got[-1], np.zeros(2))


def test_the_gradient_of_an_unpacked_list_of_arrays_is_the_list_of_its_adjoints():
    # as one would write it: no zeros added to, no add_into
    text = s2sad.source(_list_promoted, example=([np.ones((2, 3)), np.ones(2)], np.ones(3)))
    # (b's adjoint is W @ x + b's, nested into the tanh: an array is not held)
    assert "params_bar = [W_bar, t3_bar]" in text
    assert "zeros_like" not in text and "add_into" not in text
    text = s2sad.source(_elements_unused, example=([np.ones((2, 3)), np.ones(2)], 0.5))
    assert "np.zeros_like(params[1])]" in text and "add_into" not in text


def _products_of_elements(params, x):
    a, c = params
    return np.sum(a * c) + np.sum(params[0] * x)


def test_a_list_of_arrays_keys_the_derivative_by_its_elements_shape_pattern():
    # the code for c of a's shape sums nothing back; c of shape (1, 3) needs the sum
    g = s2sad.grad(_products_of_elements)
    a, x = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])
    for c in (np.ones((2, 3)), np.ones((1, 3)), np.ones((2, 1)), np.ones((2, 3))):
        got = g([a, c], x)
        assert got[0].shape == a.shape and got[1].shape == c.shape
        assert close(got[0], np.broadcast_to(c + x, a.shape))
        axes = tuple(i for i in range(2) if c.shape[i] == 1)
        assert close(got[1], a.sum(axis=axes, keepdims=True) if axes else a)
    text = s2sad.source(_list_promoted, example=([np.ones((2, 3)), np.ones(2)], np.ones(3)))
    assert "unbroadcast" not in text  # (b has the shape of W @ x)


def _dot_in_a_loop_over_ranks(params, x):
    s = 0.0
    for p in params:
        s = s + np.sum(np.dot(x, p))
    return s


def test_a_rule_that_needs_the_rank_of_an_element_read_at_a_run_time_index_is_refused():
    # (`p` is W in one iteration and b in the next: no rule of np.dot takes any rank)
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(_dot_in_a_loop_over_ranks)([np.ones((3, 3)), np.ones(3)], np.ones(3))
    assert "`p` is an array of unknown rank" in str(info.value)
    assert "W, b = params" in info.value.hint and info.value.filename == __file__
    # the same loop over arrays of one rank is differentiated
    got = s2sad.grad(_dot_in_a_loop_over_ranks)([np.ones(3), np.ones(3)], np.arange(3.0))
    assert close(got, [np.arange(3.0), np.arange(3.0)])


def _gathers_rows(params, x):
    W, idx = params
    return np.sum(W[idx] * x)


def test_a_list_of_a_float_array_and_an_index_array():
    W, idx, x = np.ones((3, 2)), np.array([0, 2]), np.array([1.0, 2.0])
    expected = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0]])
    for got in (s2sad.grad(_gathers_rows)([W, idx], x),
                s2sad.grad(_gathers_rows, mode="forward")([W, idx], x),
                s2sad.vjp(_gathers_rows, [W, idx], x)[1](1.0)[0]):
        assert close(got[0], expected) and got[1].shape == idx.shape and not got[1].any()


def _slice_of_a_list_of_arrays(params, x):
    rest = params[1:]
    return np.sum(rest[0] @ rest[1]) * x + np.sum(params[0] ** 2)


def _slice_of_a_list_of_arrays_sep(a, m, v, x):
    return np.sum(m @ v) * x + np.sum(a ** 2)


def _horner_reversed(xs, y):
    s = 0.0
    for v in xs[::-1]:
        s = s * y + v
    return s


def _second_of_the_rest(xs, y):
    rest = xs[1:]
    return rest[0] * y


def test_a_slice_of_a_list_argument_is_a_list_whose_adjoints_go_back_element_by_element():
    params = [np.ones((2, 2)), np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([3.0, 5.0])]
    expected = s2sad.grad(_slice_of_a_list_of_arrays_sep, wrt=(0, 1, 2))(*params, 2.0)
    for got in (s2sad.grad(_slice_of_a_list_of_arrays)(params, 2.0),
                s2sad.grad(_slice_of_a_list_of_arrays, mode="forward")(params, 2.0),
                s2sad.vjp(_slice_of_a_list_of_arrays, params, 2.0)[1](1.0)[0]):
        assert len(got) == 3 and all(g.shape == p.shape for g, p in zip(got, params))
        assert close(got, list(expected))
    # (3y² + 2y + 1 at y = 0.5)
    assert close(s2sad.grad(_horner_reversed, wrt=(0, 1))([1.0, 2.0, 3.0], 0.5),
                 ([1.0, 0.5, 0.25], 5.0))
    assert s2sad.grad(_second_of_the_rest)([1.0, 2.0, 4.0], 3.0) == [0.0, 3.0, 0.0]


def _where_of_numbers(x, s):
    return np.where(x > 0.0, 2.0 + s, 0.5 * s)


def test_vjp_gives_a_float_for_a_float_whatever_the_seed():
    """The output is a 0-d array (np.where), the seed too: the adjoint of the float
    `s` is a float, as grad gives it (found by the array fuzzer)."""
    out, pullback = s2sad.vjp(_where_of_numbers, 1.0, 0.5)
    got = pullback(np.array(1.5))
    assert type(got[0]) is float and type(got[1]) is float and got[1] == 1.5


def _bound_on_one_path(x, flag):
    y = np.sum(x)
    if flag:
        t = np.exp(x)  # (bound only where flag is true...)
    if flag:
        y = y + np.sum(t * t)  # (...and read only there)
    return y


@pytest.mark.parametrize("flag", [True, False])
def test_a_name_bound_on_one_path_only(flag):
    """The reverse of the second `if` gives `t` a zero adjoint on the path where it is
    not read; that path did not bind `t`, so the zero is a number, not zeros_like(t)
    (which raised UnboundLocalError)."""
    x = np.array([0.3, -0.2, 0.5])
    want = np.ones(3) + (2.0 * np.exp(2.0 * x) if flag else 0.0)
    assert np.allclose(s2sad.grad(_bound_on_one_path)(x, flag), want)
    assert np.allclose(s2sad.jvp(_bound_on_one_path, (x, flag), (np.ones(3), None))[1],
                       np.sum(want))
    h = s2sad.hessian(_bound_on_one_path, 0)(x, flag)
    assert np.allclose(h, np.diag(4.0 * np.exp(2.0 * x)) if flag else 0.0)


def test_a_number_that_may_be_an_int_keeps_a_float_gradient():
    """``v = (a > b) or t`` is a bool on one path and a float on the other: the
    gradient of ``v * x`` in `x` is ``1.0 * v``, a float, not `v` itself (which gave
    ``True``: the right value, of the wrong type)."""
    def chosen(x, a, b, t):
        v = (a > b) or t
        return v * x

    def picked(x, c):
        v = 1 if c > 0 else 2.5
        return v * x

    got = s2sad.grad(chosen)(2.0, 1.0, 0.0, 3.0)
    assert got == 1.0 and type(got) is float
    got = s2sad.grad(picked)(2.0, 1.0)
    assert got == 1.0 and type(got) is float
    assert s2sad.grad(chosen)(2.0, 0.0, 1.0, 3.0) == 3.0


@pytest.mark.parametrize("point", [(0.3, 0.2), (1.06, -0.4)])
def test_a_tuple_split_by_place_and_given_a_second_version_keeps_both_apart(point):
    f = zoo.tuple_places_and_versions
    got = s2sad.grad(f, wrt=(0, 1))(*point)
    assert got == pytest.approx(tuple(central_diff(f, point, i) for i in (0, 1)), rel=1e-6)
    assert s2sad.grad(f, wrt=(0, 1), mode="forward")(*point) == pytest.approx(got, rel=1e-12)


def _summed_after_a_return(x):
    z = np.sin(x)
    if x[0] > 0.0:
        return np.sum(x)
    return np.sum(z)


def _product_after_a_return(x):
    z = x * x
    if x[0] > 0.0:
        return 2.0 * x[1]
    return np.sum(x * np.sum(z))


@pytest.mark.parametrize("f", [_summed_after_a_return, _product_after_a_return])
@pytest.mark.parametrize("first", [0.31, -0.31])
def test_an_adjoint_spread_on_one_path_is_not_read_on_the_other(f, first):
    """(The spread of ``np.sum``'s adjoint, assigned on the path that returns
    ``np.sum(z)``, was written into its reader after the branch, so the path that
    returned first got the other path's derivative; or the reader found it unbound.)"""
    x = np.array([first, -0.72, 1.13])
    want = central_diff(f, (x,), 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(x), want, rtol=1e-6, atol=1e-8)


# ------------------------------------------ outputs a callee wrote into


def _filled(x):
    y = np.zeros(2)
    y[0] = x[0] * x[1]
    return y


def _loss_with_filled_aux(x):
    y = _filled(x)
    return np.sum(y * y), {"y": y, "ys": [y, _filled(2.0 * x)]}


def _filled_output(x):
    return _filled(x)


def test_an_output_a_callee_wrote_into_is_not_put_back_by_the_pullback():
    """The callee's backward sweep puts back what its write overwrote, in the array it
    returned: the has_aux metrics came back as zeros, a vjp's output was zeroed when
    its pullback ran, and a second pullback (or jacobian(mode="reverse")) refused the
    deterministic function as one that draws random numbers."""
    x = np.array([0.3, -0.5])
    g, aux = s2sad.grad(_loss_with_filled_aux, has_aux=True)(x)
    assert np.allclose(aux["y"], [-0.15, 0.0]) and np.allclose(aux["ys"][1], [-0.6, 0.0])
    assert np.allclose(g, 2 * -0.15 * np.array([x[1], x[0]]))
    out, pullback = s2sad.vjp(_filled_output, x)
    first = pullback(np.array([1.0, 0.0]))[0]
    assert np.allclose(out, [-0.15, 0.0])
    assert np.allclose(pullback(np.array([0.0, 1.0]))[0], 0.0)
    assert np.allclose(first, [x[1], x[0]])
    J = s2sad.jacobian(_filled_output, mode="reverse")(x)
    assert np.allclose(J, [[x[1], x[0]], [0.0, 0.0]])


def _passed_through(x, y):
    return x + y


def _list_passed_through(xs):
    return [xs[0] * 1.0, xs[1]]


def test_no_adjoint_a_pullback_gives_is_the_seed_passed_in():
    """``x + y`` hands the output's adjoint on as it is: the pullback gave the caller's
    cotangent array back as both gradients, so changing one in place changed the
    other and the caller's array."""
    _, pullback = s2sad.vjp(_passed_through, np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    seed = np.array([1.0, 1.0])
    gx, gy = pullback(seed)
    assert gx is not seed and gy is not seed
    gx *= 0.5
    assert seed.tolist() == [1.0, 1.0]
    _, pullback = s2sad.vjp(_list_passed_through, [np.ones(2), np.ones(2)])
    seeds = [np.ones(2), np.full(2, 2.0)]
    (got,) = pullback(seeds)
    assert all(g is not s for g in got for s in seeds)
    assert [g.tolist() for g in got] == [[1.0, 1.0], [2.0, 2.0]]


def _zero_d_written(x):
    y = np.zeros(())
    y[()] = x * x
    return y


def _zero_d_written_in_a_helper(x):
    return _zero_d_written(x) * 2.0


@pytest.mark.parametrize("f,want", [(_zero_d_written, 3.0), (_zero_d_written_in_a_helper, 6.0)])
def test_a_zero_d_array_written_into(f, want):
    """The adjoint of a 0-d array written into started as ``zeros + seed``, a NumPy
    scalar, which the reverse of the write could not write into (TypeError)."""
    for mode in ("reverse", "forward"):
        assert s2sad.grad(f, mode=mode)(1.5) == want
        assert s2sad.value_and_grad(f, mode=mode)(1.5)[1] == want
    assert s2sad.vjp(f, 1.5)[1](np.array(1.0))[0] == want


def leaf_or_pair(node, b):
    if isinstance(node, tuple):
        return node[0] * b
    return node


def tree_net(node, b):
    if isinstance(node, tuple):
        return np.tanh(tree_net(node[0], b) + tree_net(node[1], b) + b)
    return node


def leaf_loss(b, x):
    return np.sum(leaf_or_pair(x, b) * b)


def tree_loss(b, x, y):
    return np.sum(tree_net((x, y), b) ** 2)


def test_a_parameter_the_path_the_kinds_decide_never_reads_gets_a_zero_adjoint():
    # (an array `node` decides `isinstance(node, tuple)` when the derivative is built:
    # the helper's backward sweep is left with no line giving `b` an adjoint)
    b, x, y = np.array([0.1, -0.2, 0.3]), np.array([0.5, 0.4, -0.3]), np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(s2sad.grad(leaf_loss)(b, x), x)
    want = s2sad.grad(tree_loss, mode="forward")(b, x, y)
    np.testing.assert_allclose(s2sad.grad(tree_loss)(b, x, y), want, rtol=1e-12)
    np.testing.assert_allclose(
        want, [(tree_loss(b + h, x, y) - tree_loss(b - h, x, y)) / 2e-6
               for h in np.eye(3) * 1e-6], rtol=1e-6)
    # (a parameter returned as it is: its adjoint is the seed, which no line gives)
    assert s2sad.grad(returned_as_it_is)(0.5) == 1.0
    assert s2sad.grad(returned_as_it_is, wrt=(0, 1))(0.5, 2.0) == (1.0, 0.0)


def returned_as_it_is(a, c=1.0):
    return a


def _contracted(A, C):
    return np.tensordot(A, C, axes=2)  # (a 0-d array)


def test_a_pullback_of_a_0d_array_output_takes_a_number():
    A, C = np.ones((2, 3)), np.arange(6.0).reshape(2, 3)
    out, pullback = s2sad.vjp(_contracted, A, C)
    assert type(out) is np.ndarray and out.shape == ()
    for seed in (1.0, 2, np.float64(1.5), np.array(0.5)):
        gA, gC = pullback(seed)
        assert close(gA, float(seed) * C) and close(gC, float(seed) * A)
    with pytest.raises(s2sad.S2SADError, match="takes an adjoint with the structure"):
        pullback((1.0,))


def _annotated(x, n: int = 2):
    c: float  # (a bare annotation: nothing happens where it runs)
    c = x * 2.0
    d: float = x**n
    if x > 0.0:
        e: float
    return c * d


def test_annotations_bare_or_with_a_value():
    for mode in ("reverse", "forward"):
        assert s2sad.grad(_annotated, mode=mode)(1.5) == pytest.approx(6 * 1.5**2)
