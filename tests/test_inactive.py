"""Code that carries no derivative runs as written in every derivative: asserts and
raises (a failing assert raises the user's AssertionError), f-strings, prints (once
per call, in order), logging, settings in dicts and sets, imports, `with` and `try`
blocks, `:=`. Gradients against central differences in both modes and Hessians; what
reads an active value in a way s2sad cannot differentiate is refused at its line,
naming the value."""

import logging

import numpy as np
import pytest

import s2sad
import zoo_inactive as zoo
from helpers import central_diff

CASES = [
    (zoo.guarded, (1.5, 0.7)),
    (zoo.printing, (0.8, 1.3)),
    (zoo.settings, (0.9, 1.1)),
    (zoo.imports_inside, (0.6,)),
    (zoo.with_blocks, (1.7, 0.4)),
    (zoo.with_try, (1.2,)),
    (zoo.walrus, (0.8, 1.3)),
    (zoo.raises_late, (1.3,)),
    (zoo.calls_helper, (0.4,)),
    (zoo.in_a_loop, (0.3,)),
    (zoo.walrus_in_while, (0.7,)),
    (zoo.calls_one_that_imports, (0.7,)),
]


@pytest.mark.parametrize("f,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients_both_modes_and_hessian(f, args, capsys):
    wrt = tuple(range(len(args)))
    expected = [central_diff(f, args, i) for i in wrt]
    got = s2sad.grad(f, wrt=wrt)(*args)
    got = got if isinstance(got, tuple) else (got,)
    assert np.allclose(got, expected, rtol=1e-6, atol=1e-7)
    value, pullback = s2sad.vjp(f, *args)
    assert np.isclose(value, f(*args))
    assert np.allclose(pullback(1.0), expected, rtol=1e-6, atol=1e-7)
    for i in wrt:
        tangent = tuple(1.0 if j == i else 0.0 for j in wrt)
        value, deriv = s2sad.jvp(f, args, tangent)
        assert np.isclose(value, f(*args))
        assert np.isclose(deriv, expected[i], rtol=1e-6, atol=1e-7)
    hess = np.atleast_2d(s2sad.hessian(f, wrt=wrt)(*args))
    for i in wrt:
        g_i = lambda *a: s2sad.grad(f, wrt=wrt)(*a)[i] if len(wrt) > 1 \
            else s2sad.grad(f)(*a)  # noqa: E731
        row = [central_diff(g_i, args, j, h=1e-5) for j in wrt]
        assert np.allclose(hess[i], row, rtol=1e-4, atol=1e-5)


def test_prints_once_per_call_in_order(capsys):
    capsys.readouterr()
    for entry in (s2sad.grad(zoo.printing), s2sad.value_and_grad(zoo.printing)):
        entry(0.8, 1.3)
        direct = capsys.readouterr().out
        zoo.printing(0.8, 1.3)
        assert direct == capsys.readouterr().out
        assert direct.startswith("start x=0.80\nstep 0")
    s2sad.jvp(zoo.printing, (0.8, 1.3), (1.0, 0.0))
    assert capsys.readouterr().out.count("start") == 1
    s2sad.hessian(zoo.printing)(0.8, 1.3)
    assert capsys.readouterr().out.count("start") == 1
    s2sad.vjp(zoo.calls_helper, 0.4)[1](1.0)
    assert capsys.readouterr().out == "helper 0.5\nhelper 0.9\n"
    # several directions: the passes after the first leave out what only reports
    s2sad.grad(zoo.printing, wrt=(0, 1), mode="forward")(0.8, 1.3)
    assert capsys.readouterr().out.count("start") == 1
    s2sad.hessian(zoo.printing, wrt=(0, 1))(0.8, 1.3)
    assert capsys.readouterr().out.count("start") == 1
    w = np.array([0.3, -0.7, 1.1])
    hess = s2sad.hessian(zoo.prints_an_array)(w)
    assert capsys.readouterr().out.count("w =") == 1
    g = s2sad.grad(zoo.prints_an_array, mode="forward")(w)
    assert capsys.readouterr().out.count("w =") == 1
    assert np.allclose(g, central_diff(zoo.prints_an_array, (w,), 0))
    grad = s2sad.grad(zoo.prints_an_array)
    rows = [central_diff(lambda v: grad(v)[i], (w,), 0, h=1e-5) for i in range(3)]
    assert np.allclose(hess, rows, rtol=1e-5, atol=1e-6)


def test_checkpointed_loops_print_once_per_step(capsys, caplog):
    """A checkpointed loop's scheduler recomputes iterations from its snapshots with
    the step's quiet twin: what the body prints, logs or checks runs once per step."""
    capsys.readouterr()
    got = s2sad.grad(zoo.checkpointed_prints)(0.5)
    assert capsys.readouterr().out == "".join(f"step {i}\n" for i in range(6))
    assert np.isclose(got, central_diff(zoo.checkpointed_prints, (0.5,), 0))
    assert "_quiet" in s2sad.source(zoo.checkpointed_prints)
    with caplog.at_level(logging.INFO, logger="s2sad.tests.inactive"):
        got = s2sad.grad(zoo.checkpointed_while_logs)(0.3)
    assert [r.getMessage() for r in caplog.records] == [f"step {k}" for k in range(5)]
    assert np.isclose(got, central_diff(zoo.checkpointed_while_logs, (0.3,), 0))


def test_logging_runs(caplog):
    with caplog.at_level(logging.INFO, logger="s2sad.tests.inactive"):
        s2sad.grad(zoo.printing)(0.8, 1.3)
    assert [r.getMessage() for r in caplog.records] == [
        f"done with {zoo.printing(0.8, 1.3) / 0.8}"]


@pytest.mark.parametrize("entry", ["grad", "jvp", "hessian"])
def test_failing_assert_and_raise(entry):
    def call(f, *args):
        if entry == "jvp":
            return s2sad.jvp(f, args, (1.0,) * len(args))
        return getattr(s2sad, entry)(f)(*args)

    with pytest.raises(AssertionError, match="x must be positive, got -1.5"):
        call(zoo.guarded, -1.5, 0.7)
    with pytest.raises(ValueError, match="is too large"):
        call(zoo.guarded, 2000.0, 1000.0)
    with pytest.raises(ValueError, match="x = -2.0 is not positive"):
        call(zoo.raises_late, -2.0)


def test_a_comprehension_in_an_assert_is_its_own():
    xs = [1.0, 2.0, 0.5]
    expected = central_diff(zoo.checks_a_list, (xs,), 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(zoo.checks_a_list, mode=mode)(xs), expected)
    with pytest.raises(AssertionError, match=r"not positive: \[1.0, -2.0\]"):
        s2sad.grad(zoo.checks_a_list)([1.0, -2.0])
    assert "assert all(v > 0 for v in xs), " in s2sad.source(zoo.checks_a_list,
                                                             example=(xs,))


@pytest.mark.parametrize("text,scale", [("3", 2.0), ("x", None), ("4", "1.5")])
def test_a_try_assigns_what_is_read_after_it(text, scale, capsys):
    """What a `try` block assigns (a setting parsed from text, with a default where
    parsing fails) is read after it; the `except` that passes keeps the value from
    before the block."""
    f = lambda x: zoo.try_settings(x, text, scale)  # noqa: E731
    expected = central_diff(f, (1.3,), 0)
    for mode in ("reverse", "forward"):
        assert np.isclose(s2sad.grad(zoo.try_settings, mode=mode)(1.3, text, scale), expected)
    value, deriv = s2sad.jvp(zoo.try_settings, (1.3, text, scale), (1.0, None, None))
    assert np.isclose(value, f(1.3)) and np.isclose(deriv, expected)
    capsys.readouterr()
    s2sad.grad(zoo.try_settings)(1.3, text, scale)
    assert capsys.readouterr().out == ("not a number: x\n" if text == "x" else "")


@pytest.mark.parametrize("f", [zoo.try_in_a_loop, zoo.try_keeps_the_last])
def test_a_try_in_a_loop(f):
    """A name a `try` assigns in a loop: on the tape where the reverse sweep reads it,
    and carried from the iteration before where the `except` passes."""
    texts = ["2", "oops", "0.5", "x"]
    g = lambda x: f(x, texts)  # noqa: E731
    expected = central_diff(g, (0.7,), 0)
    for mode in ("reverse", "forward"):
        assert np.isclose(s2sad.grad(f, mode=mode)(0.7, texts), expected)
    assert np.isclose(s2sad.grad(f, checkpoint="ctz")(0.7, texts), expected)
    h = 1e-4
    second = (s2sad.grad(f)(0.7 + h, texts) - s2sad.grad(f)(0.7 - h, texts)) / (2 * h)
    assert np.isclose(s2sad.hessian(f)(0.7, texts), second, rtol=1e-5)


def test_kept_as_written_in_the_source():
    text = s2sad.source(zoo.guarded, wrt=(0, 1))
    assert 'assert x > 0, f"x must be positive, got {x}"' in text
    assert 'raise ValueError(f"z = {z:.3g} is too large")' in text
    text = s2sad.source(zoo.with_try, mode="forward")
    assert "try:\n        import no_such_module_s2sad" in text
    assert "except ImportError:" in text
    text = s2sad.source(zoo.settings, example=(0.9, 1.1))
    assert "scalar_seed" not in text  # (the dict's values have their kinds)
    text = s2sad.source(zoo.try_settings, example=(1.3, "3", 2.0))
    assert "scalar_seed" not in text  # (int(...) and float(...) in a `try`: their kinds)


REFUSED = [
    (zoo.string_of_active, (1.5,), "runs an f-string as written", "`x` carries"),
    (zoo.try_assigns_active, (1.5,), "runs this `try` block as written",
     "`y`, which it assigns, may depend on `x`, which carries a derivative"),
    (zoo.try_returns, (1.5,), "`try` statement", "`return` that leaves the function"),
    (zoo.with_other_manager, (1.5,), "`with` block", "`y`, which it assigns, may depend"),
    (zoo.try_appends, (1.5,), "`try` statement", "changes `xs` in place"),
    (zoo.hands_an_array_to_an_unknown_function, (1.5,), "cannot tell whether `np.save`",
     "changes `y` in place, and `y` carries a derivative"),
]


@pytest.mark.parametrize("f,args,what,why", REFUSED, ids=[r[0].__name__ for r in REFUSED])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_refused_at_the_line_naming_the_value(f, args, what, why, mode):
    with pytest.raises(s2sad.S2SADError) as info:
        if mode == "reverse":
            s2sad.grad(f)(*args)
        else:
            s2sad.jvp(f, args, (1.0,) + (0.0,) * (len(args) - 1))
    err = info.value
    assert what in str(err) and why in str(err)
    assert err.filename.endswith("zoo_inactive.py")
    source = open(err.filename).read().splitlines()
    assert source[err.lineno - 1].strip().startswith(("d =", "s =", "try:", "with", "np.save"))


_GLOBAL_V = np.array([0.5, -1.0, 2.0])
_GLOBAL_L = [0.5, -1.0, 2.0]


def _returns_a_global_arrays_element(x):
    s = np.sum(x)
    if s > -0.4:
        return _GLOBAL_V[0]  # (a constant on this path; the other carries x)
    return s * 2.0


def _returns_a_global_lists_element(x):
    s = np.sum(x * x)
    if s > 1.0:
        r = _GLOBAL_L[1]
    else:
        r = s * 2.0
    return r


@pytest.mark.parametrize("f", [_returns_a_global_arrays_element, _returns_a_global_lists_element])
def test_an_element_of_a_global_on_one_path_of_a_join(f):
    """``return V[0]`` of a global array on one path, a value carrying the derivative
    on the other: the check took the global for a value of unknown kind (it reads a
    local's kind) and refused the indexing."""
    for x in (np.array([0.1, 0.2, 0.3]), np.array([-0.5, -0.2, 0.1]), np.array([1.0, -0.2, 0.9])):
        for mode in ("reverse", "forward", "tape"):
            got = s2sad.grad(f, mode=mode)(x)
            assert np.allclose(got, central_diff(f, (x,), 0), atol=1e-7), (mode, x)
