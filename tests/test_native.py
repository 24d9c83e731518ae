"""grad(f, jit=True): the emitted derivative compiled with numba (s2sad/backend/native.py).

Each compiled gradient is compared with the Python one on the scalar and loop
benchmark cases; what numba cannot compile runs as Python after a NativeWarning.
Without numba, only the refusals run (CI installs the jit extra for this file:
.ci/run)."""

import math
import sys
import warnings

import numpy as np
import pytest

import s2sad
import zoo_loops
from benchmarks import loop_cases, scalar_cases
from helpers import needs_numba
from s2sad.backend.native import NativeWarning


CASES = scalar_cases.CASES + loop_cases.CASES


def native(g) -> bool:
    """Does the dispatcher `g` run numba's code for its first specialisation?"""
    fn = g.__s2sad__.primary[1]
    return hasattr(fn, "py_func") or hasattr(fn.__globals__.get("_native"), "py_func")


def close(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y)
    else:
        assert a == pytest.approx(b, rel=1e-12, abs=1e-14)


@needs_numba
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_compiled_gradient_is_the_python_one(case):
    _, f, by_hand, args, wrt = case
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeWarning)
        jitted = s2sad.grad(f, wrt=wrt, jit=True)
        got = jitted(*args)
    assert native(jitted)
    assert got == s2sad.grad(f, wrt=wrt)(*args)  # to the last bit: the same libm calls
    assert jitted(*args) == got  # the fast path, second call
    np.testing.assert_allclose(np.ravel(got), np.ravel(by_hand(*args)), rtol=1e-9)


# loops that reverse a stepped range (ranges), stop at a `break` or a `return`
# (reversed(range(n)[:count])), seed a gradient numba types (returns_from_two_loops:
# scalar_seed) and add a callee's list adjoint into the caller's (calls_a_list_maker:
# add_into)
ZOO = [c for c in zoo_loops.ZOO if c[0].__name__ in (
    "ranges", "with_break", "returns_in_loop", "returns_from_two_loops",
    "calls_a_list_maker")] + [
    # (`while True` left by a `break`: numba compiled a loop that never ends)
    (zoo_loops.halve_until_small, (0.7,), 0), (zoo_loops.kepler, (0.8, 0.3), (0, 1))]


@needs_numba
@pytest.mark.parametrize("case", ZOO, ids=[f"{c[0].__name__}{c[1]}" for c in ZOO])
def test_zoo_loops_compile_to_the_same_numbers(case):
    f, args, wrt = case
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeWarning)
        jitted = s2sad.grad(f, wrt=wrt, jit=True)
        got = jitted(*args)
    assert native(jitted)
    close(got, s2sad.grad(f, wrt=wrt)(*args))


def test_reversed_ranges_as_numba_takes_them():
    """The rewrite of reversed(range(...)[:c]) runs the same indices, in Python."""
    from s2sad.backend.native_text import rewritten
    text = "def f(a, b, s, c):\n    return list(reversed(range(a, b, s)[:c]))\n"
    plain = "def f(a, b, s):\n    return list(reversed(range(a, b, s)))\n"
    ns = {}
    exec(rewritten(text), ns)
    exec(rewritten(plain).replace("def f", "def g"), ns)
    for a in range(-3, 4):
        for b in range(-3, 6):
            for s in (-3, -2, -1, 1, 2, 3):
                assert ns["g"](a, b, s) == list(reversed(range(a, b, s)))
                for c in (-5, -1, 0, 1, 2, 7):
                    assert ns["f"](a, b, s, c) == list(reversed(range(a, b, s)[:c]))


def test_a_tapes_runs_of_pushes_become_tuples():
    from s2sad.backend.native_text import rewritten
    text = """def f(x, n):
    tape = []
    for i in range(n):
        tape.append(x)
        tape.append(i)
        x = x * 0.5
    s = 0.0
    for _ in range(len(tape) // 2):
        i = tape.pop()
        x = tape.pop()
        s += x * i
    return s
"""
    out = rewritten(text, arrays=False)  # (with arrays, this counted loop's tape is two)
    assert "tape.append((x, i))" in out and "x, i = tape.pop()" in out
    assert "range(len(tape))" in out
    ns = {}
    exec(text, ns)
    exec(out.replace("def f", "def g"), ns)
    assert ns["f"](3.0, 5) == ns["g"](3.0, 5)
    # runs of two lengths, or a tape read another way: kept as it is
    for other in (text.replace("        tape.append(i)\n", "        tape.append(i)\n"
                               "        tape.append(i)\n"),
                  text.replace("len(tape) // 2", "len(tape)")):
        assert "tape.append((" not in rewritten(other, arrays=False)


@needs_numba
def test_array_adjoints_summed_and_spread():
    """unreduce (np.sum's adjoint) and unbroadcast (a scalar's, a vector's against a
    matrix, a length-1 axis's) have numba versions."""
    def steps(x, a, b):
        total = 0.0
        for i in range(10):
            total += np.sum(np.sin(x * a + b + i))
        return total

    def layer(W, b, x):
        return np.sum(np.tanh(W * x + b))

    for f, args in ((steps, (np.linspace(0.1, 1.0, 5), 0.3, np.ones(1))),
                    (layer, (np.full((4, 3), 0.1), np.ones(3), np.ones((1, 3))))):
        with warnings.catch_warnings():
            warnings.simplefilter("error", NativeWarning)
            jitted = s2sad.grad(f, wrt=(0, 1, 2), jit=True)
            got = jitted(*args)
        assert native(jitted)
        for a, b in zip(got, s2sad.grad(f, wrt=(0, 1, 2))(*args)):
            assert np.shape(a) == np.shape(b)
            np.testing.assert_allclose(a, b, rtol=1e-12)


@needs_numba
def test_float32_runs_as_python():
    """numba computes part of a float32 array's arithmetic in float64: the last bit
    of the gradient would differ from NumPy's."""
    def f(x):
        s = 0.0
        for i in range(3):
            s += np.sum(np.sin(x * 0.5 + i))
        return s

    x = np.ones(4, dtype=np.float32)
    with pytest.warns(NativeWarning, match="float32"):
        got = s2sad.grad(f, jit=True)(x)
    want = s2sad.grad(f)(x)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def _isinstance_of_a_float(x, y):
    if isinstance(y, float):
        return x * y
    return x * np.sum(y)


def _ellipsis_write(x):
    a = np.zeros(2)
    a[...] = x
    return np.sum(a * a)


def _boolean_eye(x):
    return np.sum(x * np.eye(3, dtype=bool))


@needs_numba
@pytest.mark.parametrize("f,args", [(_isinstance_of_a_float, (0.7, 2.0)),
                                    (_ellipsis_write, (np.array([0.3, -0.5]),)),
                                    (_boolean_eye, (np.ones((3, 3)),))])
def test_what_numba_fails_on_inside_runs_as_python(f, args):
    """(numba raised its own AttributeError, NotImplementedError or TypeError at
    these, not one of its errors, and it reached the caller.)"""
    with pytest.warns(NativeWarning, match="numba"):
        got = s2sad.grad(f, jit=True)(*args)
    np.testing.assert_array_equal(got, s2sad.grad(f)(*args))


@needs_numba
def test_a_list_of_arrays_of_two_ranks_runs_as_python():
    def f(xs):
        return np.sum(xs[0] * 2.0) + np.sum(xs[1])

    xs = [np.array([1.0, 2.0]), np.array([[1.0, -2.0]])]
    with pytest.warns(NativeWarning, match="numba types differently"):
        got = s2sad.grad(f, jit=True)(xs)
    assert [g.tolist() for g in got] == [[2.0, 2.0], [[1.0, 1.0]]]


@needs_numba
def test_powers_as_python_computes_them():
    """numba raises a float to an int power by products; the compiled code calls
    C's pow, as Python does (an int to an int power runs as Python: see below)."""
    def f(x, n):
        y = x ** 3 + x ** n + x ** 2.5
        y **= 2
        return y * 2.0 ** -n + float(n) ** 2

    jitted = s2sad.grad(f, jit=True)
    plain = s2sad.grad(f)
    for k in range(200):
        x = 0.1 + 0.047 * k
        assert jitted(x, 3) == plain(x, 3)
    assert native(jitted)


@needs_numba
def test_value_and_grad_and_defaults():
    def f(x, y=2.0):
        s = 0.0
        for i in range(50):
            s += math.sin(x * i) * y
        return s

    jitted = s2sad.value_and_grad(f, wrt=(0, 1), jit=True)
    close(jitted(0.3), s2sad.value_and_grad(f, wrt=(0, 1))(0.3))
    close(jitted(0.3, y=1.5), s2sad.value_and_grad(f, wrt=(0, 1))(0.3, 1.5))
    assert native(jitted)
    f.__defaults__ = (0.5,)  # assigned after: the compiled gradient takes the new one
    close(jitted(0.3), s2sad.value_and_grad(f, wrt=(0, 1))(0.3, 0.5))


def _scaled(x, a=2.0):
    return a * x * x


@needs_numba
def test_a_callees_defaults_assigned_after_grad():
    def f(x):
        return _scaled(x) + x

    jitted = s2sad.grad(f, jit=True)
    assert jitted(3.0) == 13.0
    _scaled.__defaults__ = (5.0,)
    try:
        assert jitted(3.0) == 31.0
    finally:
        _scaled.__defaults__ = (2.0,)


@needs_numba
def test_while_loop_and_list_of_floats():
    def f(xs, a):
        total = 0.0
        i = 0
        while i < len(xs) and total < 1e6:
            total += xs[i] * xs[i] * a
            i += 1
        return total

    xs = [0.5 + 0.1 * k for k in range(20)]
    jitted = s2sad.grad(f, wrt=(0, 1), jit=True)
    got = jitted(xs, 1.5)
    close(got, s2sad.grad(f, wrt=(0, 1))(xs, 1.5))
    assert type(got[0]) is list and native(jitted)


@needs_numba
def test_index_out_of_range_raises_as_in_python():
    def f(xs):
        total = 0.0
        for i in range(len(xs)):
            total += xs[i + 1] * xs[i]
        return total

    with pytest.raises(IndexError):
        s2sad.grad(f)([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        s2sad.grad(f, jit=True)([1.0, 2.0, 3.0])


SCALE = 2.0
WEIGHTS = np.array([1.0, 2.0])


@needs_numba
def test_a_global_number_is_frozen_and_guarded():
    global SCALE

    def f(x):
        return SCALE * x * x

    jitted = s2sad.grad(f, jit=True)
    assert jitted(3.0) == 12.0 and native(jitted)
    try:
        SCALE = 3.0
        assert jitted(3.0) == 18.0  # built and compiled again, never the old value
    finally:
        SCALE = 2.0


N_LAYERS = 2


def _layers(p, x):
    h = x
    for i in range(N_LAYERS):
        h = math.sin(p[f"W{i}"] * h)
    return h


@needs_numba
def test_a_global_count_is_guarded_by_its_value():
    """``range(N_LAYERS)`` unrolled for the keys ``p[f"W{i}"]``: compiled for the
    value the global holds, and built again for another (`test_decided_globals`)."""
    global N_LAYERS
    p = {"W0": 0.5, "W1": 0.7, "W2": 0.9}
    jitted = s2sad.grad(_layers, jit=True)
    try:
        for n in (2, 3, 1):
            N_LAYERS = n
            got, want = jitted(p, 1.3), s2sad.grad(_layers)(p, 1.3)
            assert got == pytest.approx(want, rel=1e-12) and got["W2"] == (0.0 if n < 3 else
                                                                            got["W2"])
            e = 1e-6
            numeric = (_layers(dict(p, W0=0.5 + e), 1.3) - _layers(dict(p, W0=0.5 - e), 1.3))
            assert got["W0"] == pytest.approx(numeric / (2 * e), rel=1e-6)
    finally:
        N_LAYERS = 2


@needs_numba
def test_a_modules_attributes_are_frozen_and_guarded(tmp_path, monkeypatch):
    """Attributes of a module of the user's (a settings file) are frozen like its
    globals: rebinding one builds and compiles the derivative again, a new
    ``grad(f, jit=True)`` included; one that can change in place (an array) runs as
    Python. They were read as they were at the first compilation, for ever."""
    (tmp_path / "native_cfg.py").write_text(
        "import types\nscale = 2.0\nW = (1.0, 2.0)\narr = [1.0, 2.0]\n"
        "sub = types.ModuleType('native_cfg.sub')\nsub.rate = 0.5\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import native_cfg as cfg

    def f(x):
        s = 0.0
        for i in range(2):
            s += cfg.scale * cfg.W[i] * x * x * cfg.sub.rate
        return s

    jitted = s2sad.grad(f, jit=True)
    assert jitted(1.0) == 6.0 and native(jitted)
    cfg.scale = 3.0
    assert jitted(1.0) == 9.0 and s2sad.grad(f, jit=True)(1.0) == 9.0
    cfg.sub.rate = 1.0
    assert jitted(1.0) == 18.0
    cfg.W = (1.0, 0.0)
    assert jitted(1.0) == 6.0 and native(jitted)

    def reads_list(x):
        return cfg.arr[0] * x * x

    with pytest.warns(NativeWarning, match="`cfg.arr` \\(list\\).*change in place"):
        assert s2sad.grad(reads_list, jit=True)(1.0) == 2.0
    cfg.arr[0] = 10.0
    assert s2sad.grad(reads_list, jit=True)(1.0) == 20.0


@needs_numba
def test_ints_past_2_to_the_53_run_as_python():
    """Numba compares an int with a float, and divides ints, as floats: past 2**53
    that is not Python's exact answer, so such a call runs the Python derivative."""
    def f(x, n):
        if n > 2.0 ** 53:
            return x * x * (n / 3 % 2)
        return x

    jitted = s2sad.grad(f, jit=True)
    assert jitted(1.5, 3) == 1.0 and native(jitted)
    for n in (2 ** 53 + 1, -2 ** 60, 2 ** 62 + 1):
        assert jitted(1.5, n) == s2sad.grad(f)(1.5, n)


@needs_numba
def test_a_name_two_modules_bind_differently(tmp_path, monkeypatch):
    """The unit's functions share one namespace in numba: a global each of two
    modules binds to its own value is refused, not read from the first."""
    (tmp_path / "native_mod_a.py").write_text(
        "import native_mod_b\nSCALE = 2.0\n\ndef f(x):\n    return SCALE * native_mod_b.g(x)\n")
    (tmp_path / "native_mod_b.py").write_text("SCALE = 5.0\n\ndef g(x):\n    return SCALE * x * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import native_mod_a
    with pytest.warns(NativeWarning, match="`SCALE` from modules where it means different"):
        assert s2sad.grad(native_mod_a.f, jit=True)(3.0) == 60.0


@needs_numba
def test_what_numba_cannot_compile_runs_as_python_with_a_warning():
    def reads_array(x):
        return WEIGHTS[0] * x * x  # a global array: numba would freeze its contents

    with pytest.warns(NativeWarning, match="global `WEIGHTS`.*change in place"):
        assert s2sad.grad(reads_array, jit=True)(3.0) == 6.0
    WEIGHTS[0] = 5.0
    try:
        with pytest.warns(NativeWarning):
            assert s2sad.grad(reads_array, jit=True)(3.0) == 30.0
    finally:
        WEIGHTS[0] = 1.0

    def broadcasts(x, y):
        return np.max(x * y)  # the adjoint of np.max: a runtime helper numba has no version of

    x, y = np.ones((3, 2)), np.array([1.0, 2.0])
    with pytest.warns(NativeWarning, match="runs as Python.*extreme_bar"):
        got = s2sad.grad(broadcasts, wrt=(0, 1), jit=True)(x, y)
    close([g.tolist() for g in got],
          [g.tolist() for g in s2sad.grad(broadcasts, wrt=(0, 1))(x, y)])


@needs_numba
def test_a_checkpointed_loop_runs_as_python_with_a_warning():
    f = loop_cases.euler
    with pytest.warns(NativeWarning, match="helper"):
        got = s2sad.grad(f, wrt=(0, 1), checkpoint="ctz", jit=True)(2.0, 0.3)
    close(got, s2sad.grad(f, wrt=(0, 1))(2.0, 0.3))


def test_refusals():
    def f(x):
        return x * x

    for call in (lambda: s2sad.grad(f, mode="forward", jit=True),
                 lambda: s2sad.grad(f, has_aux=True, jit=True),
                 lambda: s2sad.grad(s2sad.grad(f), jit=True)):
        with pytest.raises(s2sad.S2SADError, match="jit=True"):
            call()


def test_without_numba_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` fails
    with pytest.raises(s2sad.S2SADError, match="numba, which is not installed") as info:
        s2sad.grad(lambda x: x * x, jit=True)
    assert "s2sad[jit]" in str(info.value)


@needs_numba
@pytest.mark.parametrize("f, args", [(zoo_loops.imports_a_module, (2.0, 3.0)),
                                     (zoo_loops.formats_in_a_loop, (0.5,))],
                         ids=["imports_a_module", "formats_in_a_loop"])
def test_bytecode_numba_does_not_take_runs_as_python(f, args):
    # (numba's UnsupportedBytecodeError is not one of its NumbaErrors)
    with pytest.warns(NativeWarning, match="numba"):
        got = s2sad.grad(f, jit=True)(*args)
    assert got == s2sad.grad(f)(*args)


def _draws_from_random(x, sigma):
    import random
    s = 0.0
    for _ in range(5):
        s += math.sin(x + sigma * random.gauss(0.0, 1.0)) ** 2
    return s


def _draws_from_numpy(x, sigma):
    s = 0.0
    for _ in range(5):
        s += math.sin(x + sigma * np.random.normal()) ** 2
    return s


def _draws_from_a_generator(x, sigma, rng):
    s = 0.0
    for _ in range(5):
        s += math.sin(x + sigma * rng.normal()) ** 2
    return s


@needs_numba
@pytest.mark.parametrize("f", [_draws_from_random, _draws_from_numpy])
def test_draws_from_a_global_generator_run_as_python(f):
    # (numba replaces NumPy's and random's global generators with its own: compiled,
    # the gradient would be that of other draws than the function's)
    import random
    with pytest.warns(NativeWarning, match="draws random numbers"):
        random.seed(3)
        np.random.seed(3)
        got = s2sad.grad(f, wrt=(0, 1), jit=True)(0.4, 0.2)
    random.seed(3)
    np.random.seed(3)
    assert got == s2sad.grad(f, wrt=(0, 1))(0.4, 0.2)


@needs_numba
def test_draws_from_a_generator_passed_in_are_compiled():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeWarning)
        got = s2sad.grad(_draws_from_a_generator, wrt=(0, 1), jit=True)(
            0.4, 0.2, np.random.default_rng(1))
    assert got == s2sad.grad(_draws_from_a_generator, wrt=(0, 1))(
        0.4, 0.2, np.random.default_rng(1))


def _hand_written_generator(x):
    m = 2 ** 32
    seed = 12345
    total = 0.0
    for _ in range(3):
        seed = (1664525 * seed + 1013904223) % m
        total += x * seed / m
    return total


def _rounded(x):
    return round(x * 2.675, 2) + x * x


def _int_power(x, n):
    return x * 2 ** n + x ** n


def _summed(x):
    s = sum([1e16, x, -1e16])
    return s * s


@needs_numba
def test_sum_of_floats_as_the_running_python_adds_them():
    """From Python 3.12 on, ``sum`` compensates for rounding (2.0 below), numba's
    does not (0.0): such a derivative runs as Python there; before 3.12 both add
    one after another and it compiles."""
    if sys.version_info >= (3, 12):
        with pytest.warns(NativeWarning, match="sum"):
            assert s2sad.grad(_summed, jit=True)(1.0) == s2sad.grad(_summed)(1.0) == 2.0
    else:
        jitted = s2sad.grad(_summed, jit=True)
        assert jitted(1.0) == s2sad.grad(_summed)(1.0) and native(jitted)


@needs_numba
@pytest.mark.parametrize("f,args,match", [
    (_hand_written_generator, (0.7,), "int to an int power"),
    (_int_power, (0.7, 3), "int to an int power"),
    (_rounded, (1.0,), "round")])
def test_what_python_computes_otherwise_runs_as_python(f, args, match):
    """``2 ** 32`` came out of numba as a float (and a large int power wraps), and
    ``round(x, 2)`` rounds the binary value there: the compiled gradient differed
    from the function's (0.300 where 0.317 is right)."""
    with pytest.warns(NativeWarning, match=match):
        got = s2sad.grad(f, jit=True)(*args)
    assert got == s2sad.grad(f)(*args)


def _fib_like(x, n):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return _fib_like(x, n - 1) + x * _fib_like(x, n - 2)


def _of_a_recursion(x):
    return _fib_like(x, 6)


@needs_numba
def test_a_recursive_function_runs_as_python_at_once():
    """numba took 19 s to give up on this recursion's types; the recursion is seen
    in the derivative's text, before numba is asked."""
    import time

    start = time.perf_counter()
    with pytest.warns(NativeWarning, match=r"recursive \(_fib_like_\w+ -> _fib_like_\w+\)"):
        got = s2sad.grad(_of_a_recursion, jit=True)(0.7)
    assert time.perf_counter() - start < 10.0
    assert got == s2sad.grad(_of_a_recursion)(0.7)


_ACTIVATIONS = (np.sin, np.tanh)


def _layered(ws, x):
    s = 0.0
    for act, w in zip(_ACTIVATIONS, ws):
        s = s + act(w * x)
    return s


@needs_numba
def test_a_loop_over_a_tuple_of_ufuncs_compiles():
    """Each item of the tuple is read by a name of its own (``_ACTIVATIONS_0``), a
    ufunc numba calls as NumPy's: compiled, not the Python path with a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeWarning)
        got = s2sad.grad(_layered, jit=True)([0.3, 0.5], 0.7)
    assert got == pytest.approx(s2sad.grad(_layered)([0.3, 0.5], 0.7), rel=1e-12)
