"""grad(f, jit=True): the tapes of counted loops as NumPy arrays
(s2sad/backend/native_text.py, `_arrays`).

A loop whose trip count is known when it starts (``for i in range(n)``, no
``break``) saves its values in arrays written at a count; a ``while`` loop or a
loop left by ``break`` keeps its list. Every compiled gradient here equals the
Python one to the last bit. The rewrite itself is also run as Python, with
stand-ins for the helpers numba compiles, so it is checked without numba too."""

import math
import warnings

import numpy as np
import pytest

import s2sad
from benchmarks import loop_cases
from s2sad.backend import native, native_text
from helpers import needs_numba
from s2sad.backend.native import NativeWarning


def nested(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * x
        for j in range(i):
            s = s * math.cos(s + j)
    return s


def int_and_float(x, n):
    s = x
    k = 0
    for i in range(n):
        if s > 0.3:
            k = k + i
        s = math.sin(s * k + x)
    return s


def carried_int(x, m):
    s = x
    for i in range(5):
        m = m * 3 % 7 + i
        s = math.sin(s * m)
    return s


def with_break(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * x
        if s > 0.9:
            break
    return s


def two_loops(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * x
    if s > 0.0:
        for i in range(n):
            s = math.cos(s) * x
    return s


def ints_from_a_list(x, ks):
    s = x
    m = 1
    for i in range(len(ks)):
        m = m * ks[i] % 7
        s = math.sin(s * m)
    return s


def text(f, params=None):
    src = s2sad.source(f)
    return native_text.rewritten(src[src.index("def "):], params or True)


def as_python(f, params=None):
    """The rewritten gradient of `f` run by Python, with the helpers numba compiles
    (the array store that checks the type, the growth) written in Python."""
    def put(a, k, v):
        assert type(v) is {np.float64: float, np.int64: int}[a.dtype.type]
        a[k] = v

    def reserve(a, need):
        grown = native._reserve(a, need)
        assert grown is a or len(grown) >= max(need, 2 * len(a))
        return grown

    ns = {"math": math, native_text.NP: np, native_text.PUT: put,
          native_text.RESERVE: reserve}
    exec(text(f, params), ns)
    return ns[f.__name__ + "_grad"]


@pytest.mark.parametrize("f, args, params", [
    (loop_cases.euler, (2.0, 0.3), None),
    (nested, (0.7, 6), {"n": "int"}),
    (nested, (0.7, 0), {"n": "int"}),
    (int_and_float, (0.4, 9), {"n": "int"}),
    (int_and_float, (0.4, 0), {"n": "int"}),
    (two_loops, (0.8, 7), {"n": "int"}),
])
def test_the_rewrite_runs_as_python_to_the_same_numbers(f, args, params):
    got = as_python(f, params)(*args)
    assert native_text.PUT in text(f, params)
    assert got == s2sad.grad(f)(*args)  # (a float64 read from an array is a float)


def test_which_tapes_become_arrays():
    euler = text(loop_cases.euler)
    assert ".append(" not in euler and ".pop()" not in euler
    # one loop at the top level: arrays as long as its run, made just before it
    assert "tape_0 = __s2sad_np__.empty(len(range(1000)), __s2sad_np__.float64)" in euler
    assert native_text.RESERVE not in euler
    # the inner loop's tape grows: the runs of the inner loop differ
    assert f"{native_text.RESERVE}(tape_2_0, tape_2_top + len(range(i)))" in text(
        nested, {"n": "int"})
    # an int beside a float on one tape: an array of each
    mixed = text(int_and_float, {"n": "int"})
    assert "__s2sad_np__.int64" in mixed and "__s2sad_np__.float64" in mixed
    # a loop inside an `if`: the arrays exist on every path
    assert "tape_2_0 = __s2sad_np__.empty(0, __s2sad_np__.float64)" in text(two_loops)
    # a loop left by `break`, a while loop: their lists
    for f in (with_break, loop_cases.newton):
        out = text(f)
        assert "tape.append(" in out and native_text.PUT not in out


def native_arrays(g) -> bool:
    """Does the compiled code of the dispatcher `g` hold an array tape?"""
    fn = g.__s2sad__.primary[1]
    fn = getattr(fn, "py_func", None) or fn.__globals__["_native"].py_func
    return native_text.PUT in fn.__code__.co_names


@needs_numba
@pytest.mark.parametrize("f, args, wrt, arrays", [
    (loop_cases.euler, (2.0, 0.3), (0, 1), True),
    (loop_cases.loop_sum, (0.7, 1.3), (0, 1), True),
    (nested, (0.7, 6), 0, True),
    (nested, (0.7, 0), 0, True),
    (int_and_float, (0.4, 9), 0, True),
    (int_and_float, (0.4, 0), 0, True),
    (carried_int, (0.4, 2), 0, True),
    (two_loops, (0.8, 7), 0, True),
    (with_break, (0.8, 9), 0, False),
    # m is guessed a float (an element of a list): numba refuses the store, and the
    # gradient is compiled again with the lists
    (ints_from_a_list, (0.5, [3, 5, 2, 6]), 0, False),
])
def test_compiled_with_array_tapes_to_the_same_numbers(f, args, wrt, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeWarning)
        jitted = s2sad.grad(f, wrt=wrt, jit=True)
        got = jitted(*args)
    assert native_arrays(jitted) is arrays
    assert got == s2sad.grad(f, wrt=wrt)(*args)
    assert jitted(*args) == got


@needs_numba
def test_a_callee_with_its_own_counted_loop():
    def inner(x, n):
        s = x
        for i in range(n):
            s = math.sin(s) + x * i
        return s

    def outer(x, n):
        return inner(x, n) * inner(x * 0.5, n + 1)

    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeWarning)
        jitted = s2sad.grad(outer, jit=True)
        got = jitted(0.6, 8)
    assert got == s2sad.grad(outer)(0.6, 8)


def test_a_tape_two_loops_push_reserves_before_each():
    src = """def f(x, n):
    tape = []
    for i in range(n):
        tape.append(x * i)
    for i in range(2, n + 3):
        tape.append(x + i)
    s = 0.0
    for _ in range(len(tape)):
        t = tape.pop()
        s = s * 0.5 + t
    return s
"""
    out = native_text.rewritten(src)
    assert out.count(native_text.RESERVE) == 2 and "tape" + "_top + len(range(2, n + 3))" in out
    ns = {native_text.NP: np, native_text.RESERVE: native._reserve,
          native_text.PUT: lambda a, k, v: a.__setitem__(k, v)}
    exec(src, ns)
    exec(out.replace("def f", "def g"), ns)
    for n in (0, 1, 5, 40):
        assert ns["f"](0.3, n) == ns["g"](0.3, n)
