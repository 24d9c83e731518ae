"""Every refusal is an S2SADError subclass naming the user's file and line."""

import contextlib
import inspect
import math
import traceback

import numpy as np
import pytest

import bad
import s2sad
import zoo
from s2sad import errors


def line_of(f, text):
    lines, first = inspect.getsourcelines(f)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(text)


@pytest.mark.parametrize("f,marker,what", [
    (bad.uses_yield, "yield x", "`yield`"),
    (bad.uses_lambda, "lambda t", "lambda"),
    (bad.uses_exec, 'exec("', "`exec`"),
    (bad.uses_global, "global C", "`global`"),
    (bad.uses_with, "with open", "`with`"),
    (bad.uses_class, "class A", "class definition"),
    (bad.uses_nested_def, "table = [inner]", "function defined inside"),
])
def test_unsupported_syntax(f, marker, what):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(f)(1.0)
    err = info.value
    assert isinstance(err, SyntaxError) and isinstance(err, s2sad.S2SADError)
    assert what in err.message
    assert err.filename == bad.__file__
    assert err.lineno == line_of(f, marker)
    text = str(err)
    assert f"{bad.__file__}:{err.lineno}:" in text
    assert "^" in text and err.hint and err.hint in text
    # Python's own traceback printer draws the caret too
    printed = "".join(traceback.format_exception_only(type(err), err))
    assert marker.split("(")[0] in printed and "^" in printed


@pytest.mark.parametrize("f,marker,what", [
    (bad.uses_set, "return max({", "runs a set as written"),
    (bad.uses_try, "try:", "runs this `try` block as written"),
])
def test_code_run_as_written_refuses_an_active_value_at_its_line(f, marker, what):
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(f)(1.0)
    err = info.value
    assert what in err.message and "`x`" in err.message and "carries a derivative" in err.message
    assert err.filename == bad.__file__ and err.lineno == line_of(f, marker)


def test_star_args_are_refused_early():
    with pytest.raises(s2sad.WrtError) as info:
        s2sad.grad(bad.uses_star_args)
    assert "*args" in str(info.value)


def test_no_rule_names_the_function_and_line():
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(bad.no_rule)(1.5)
    err = info.value
    assert "np.i0" in err.message
    assert err.lineno == line_of(bad.no_rule, "np.i0")
    assert "register_rule" in err.hint


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_method_of_an_object_with_a_varied_argument(mode):
    """The arguments of a method call count as its inputs: `s.scale(x)` depends on x
    (it once counted as a constant, a silently wrong derivative)."""
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(bad.calls_a_method, mode=mode)(1.5)
    err = info.value
    assert "the method .scale()" in err.message and "depends on x" in err.message
    assert err.lineno == line_of(bad.calls_a_method, "s.scale(x)")
    assert "methods of NumPy arrays" in err.hint
    assert s2sad.grad(bad.calls_a_method_inactive, mode=mode)(1.5) == 6.0


def test_no_rule_needed_when_the_call_is_inactive():
    assert s2sad.grad(bad.no_rule_ok_when_inactive)(1.5, 4.0) == np.i0(4.0)


def test_non_scalar_output():
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        s2sad.grad(bad.returns_tuple)(1.0)
    err = info.value
    assert "tuple" in err.message and "vjp" in err.hint
    assert err.lineno == line_of(bad.returns_tuple, "return x, x * 2.0")


def test_list_output_is_not_a_scalar():
    with pytest.raises(s2sad.NonScalarOutputError) as info:
        s2sad.grad(bad.returns_list)(1.0)
    assert "list" in info.value.message


def test_unresolved_name():
    with pytest.raises(s2sad.UnresolvedNameError) as info:
        s2sad.grad(bad.unknown_name)(1.0)
    assert "NOT_DEFINED" in info.value.message
    assert info.value.lineno == line_of(bad.unknown_name, "NOT_DEFINED")


def test_read_before_assignment_behaves_like_python():
    g = s2sad.grad(bad.read_before_assign)
    assert g(2.0) == 1.0
    with pytest.raises(UnboundLocalError):
        g(-2.0)


@pytest.mark.parametrize("wrt,text", [
    (5, "out of range"),
    ("z", "not a parameter"),
    ((0, "x"), "twice"),
    (1.5, "parameter position"),
    ((), "no gradient"),
])
def test_bad_wrt(wrt, text):
    with pytest.raises(s2sad.WrtError) as info:
        s2sad.grad(zoo.seed_z, wrt=wrt)
    assert text in str(info.value)


def test_integer_argument():
    with pytest.raises(s2sad.IntegerArgumentError) as info:
        s2sad.grad(zoo.quadratic)(5)
    assert "5.0" in info.value.hint
    assert s2sad.grad(zoo.quadratic)(5.0) == 13.0  # nothing was cached by the failure


def test_wrt_a_string_argument():
    with pytest.raises(s2sad.WrtError):
        s2sad.grad(zoo.quadratic)("a")


def test_source_not_found():
    ns = {}
    exec("def f(x):\n    return x\n", ns)
    with pytest.raises(s2sad.SourceNotFoundError):
        s2sad.grad(ns["f"])(1.0)
    with pytest.raises(s2sad.S2SADError):
        s2sad.grad(math.sin)
    with pytest.raises(s2sad.SourceNotFoundError):
        s2sad.grad(eval("lambda x: x"))(1.0)
    assert s2sad.grad(lambda x: x * x)(3.0) == 6.0  # (a lambda in a file is read)


def test_source_not_found_suggests_the_tape():
    ns = {}
    exec("def f(x):\n    return x * x\n", ns)
    with pytest.raises(s2sad.SourceNotFoundError) as info:
        s2sad.grad(ns["f"])(1.0)
    assert 's2sad.grad(f, mode="tape")' in info.value.hint
    with pytest.raises(s2sad.SourceNotFoundError) as info:
        s2sad.value_and_grad(eval("lambda x: x"))(1.0)
    assert 's2sad.value_and_grad(f, mode="tape")' in str(info.value)
    assert s2sad.grad(ns["f"], mode="tape")(3.0) == 6.0  # and the suggestion works


def test_every_error_class_is_exported_and_derives_from_the_base():
    for name in dir(errors):
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and obj.__module__ == errors.__name__:
            assert issubclass(obj, s2sad.S2SADError)
            assert getattr(s2sad, name) is obj


def test_failed_transform_caches_nothing():
    g = s2sad.grad(bad.no_rule)
    for _ in range(2):
        with pytest.raises(s2sad.NoRuleError):
            g(1.5)
    assert not g.__s2sad__.specs


def test_an_error_in_a_derivative_names_the_users_line():
    """A ZeroDivisionError (or a shape error) raised while a derivative runs gets a
    note naming the user's file and line, for grad, jvp and vjp alike."""
    import sys

    import bad_runtime

    for call in (lambda: s2sad.grad(bad_runtime.pole)(2.0),
                 lambda: s2sad.jvp(bad_runtime.pole, (2.0,), (1.0,)),
                 lambda: s2sad.vjp(bad_runtime.pole, 2.0)):
        with pytest.raises(ZeroDivisionError) as e:
            call()
        if sys.version_info >= (3, 11):
            (note,) = e.value.__notes__
            assert f"{bad_runtime.__file__}:{bad_runtime.POLE_LINE}" in note
            assert "return 1.0 / (x - 2.0) + x" in note
    out, pullback = s2sad.vjp(bad_runtime.root_of_square, 0.0)
    with pytest.raises(ZeroDivisionError) as e:
        pullback(1.0)
    if sys.version_info >= (3, 11):
        assert f"{bad_runtime.__file__}:{bad_runtime.SQRT_LINE}" in e.value.__notes__[0]


def test_debug_names_the_first_line_whose_derivative_is_not_finite(monkeypatch):
    import numpy as np

    import bad_runtime

    x, y = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    with np.errstate(all="ignore"):
        plain = s2sad.grad(bad_runtime.root_of_square_np, wrt=(0, 1))(x, y)
        assert np.isnan(plain[0][0])  # without debug: a NaN in the gradient
        with pytest.raises(s2sad.NonFiniteError) as e:
            s2sad.grad(bad_runtime.root_of_square_np, wrt=(0, 1), debug=True)(x, y)
        assert (e.value.filename, e.value.lineno) == (bad_runtime.__file__,
                                                      bad_runtime.ROOT_LINE)
        assert "b = np.sqrt(a)" in str(e.value) and "`a_bar`" in str(e.value)
        # the environment variable turns it on too, for value_and_grad as well
        monkeypatch.setenv("S2SAD_DEBUG_NANS", "1")
        with pytest.raises(FloatingPointError):
            s2sad.value_and_grad(bad_runtime.root_of_square_np)(x, y)
    # where everything is finite, debug changes nothing
    good = s2sad.grad(bad_runtime.root_of_square_np, wrt=(0, 1), debug=True)(x + 1.0, y)
    monkeypatch.delenv("S2SAD_DEBUG_NANS")
    want = s2sad.grad(bad_runtime.root_of_square_np, wrt=(0, 1))(x + 1.0, y)
    assert all(np.array_equal(a, b) for a, b in zip(good, want))


def test_a_tuple_returned_on_one_path_is_not_one_number():
    import bad_runtime

    with pytest.raises(s2sad.NonScalarOutputError) as e:
        s2sad.grad(bad_runtime.sometimes_a_pair)(1.0, 2.0)
    assert e.value.lineno == bad_runtime.PAIR_LINE
    assert "returns a tuple" in str(e.value)


def test_numpy_constructors_that_move_with_their_arguments_are_not_constants():
    """np.linspace, np.full, np.arange are constants only while their arguments
    are: with a varying argument they have no rule yet, and say so. (np.sort, once
    one of them, has its rules: the sorted values move with the argument.)"""
    import numpy as np

    import bad_runtime

    with pytest.raises(s2sad.NoRuleError, match="np.linspace|np.full"):
        s2sad.grad(bad_runtime.ramp_sum)(2.0)
    for mode in ("reverse", "tape"):
        assert s2sad.grad(bad_runtime.sorted_first, mode=mode)(0.7, 1.3) == pytest.approx(2.3)
    assert s2sad.jvp(bad_runtime.sorted_first, (0.7, 1.3), (1.0, 0.0))[1] == pytest.approx(2.3)
    # with constant arguments they stay constants
    assert s2sad.grad(lambda_free_arange)(np.ones(3)) == pytest.approx([0.0, 2.0, 4.0])


def lambda_free_arange(x):
    return np.sum(x * np.arange(3.0) * x)


def _filled_like(x, c=2.0):
    return np.sum(np.full_like(x, c) * x * x)


def test_full_like_takes_only_its_arrays_shape():
    """``np.full_like(x, 2.0)`` moves with its fill value, not with `x` (its shape
    and dtype only): a constant where the value is one, in every mode; a varying
    fill value is still refused."""
    x = np.array([1.0, -2.0, 0.5])
    for mode in ("reverse", "forward", "tape"):
        assert s2sad.grad(_filled_like, mode=mode)(x) == pytest.approx(4.0 * x)
    assert s2sad.hessian(_filled_like)(x) == pytest.approx(4.0 * np.eye(3))
    with pytest.raises(s2sad.NoRuleError, match="np.full_like"):
        s2sad.grad(_filled_like, wrt=(0, 1))(x, 2.0)


_EDITED = '''
import math


def helper(x):
    return x * x


def f(x):
    return helper(x) + math.sin(x)


def g(x):
    return x * x * 3.0


def outer(a):
    def inner(x):
        return a * x * x
    return inner


class K:
    def m(self, x):
        return x * x
'''


def _import_then_edit(tmp_path, monkeypatch, name, old, new):
    """A module written to a file and imported, then its file rewritten without a
    reload (the function objects keep the code of the old text)."""
    import importlib
    import os

    path = tmp_path / f"{name}.py"
    path.write_text(_EDITED)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    monkeypatch.setitem(__import__("sys").modules, name, module)
    assert s2sad.grad(module.g)(2.0) == 12.0  # (built before the edit: stays right)
    assert _EDITED.count(old) >= 1
    path.write_text(_EDITED.replace(old, new))
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    return module


def test_a_function_whose_file_changed_since_import_is_refused(tmp_path, monkeypatch):
    m = _import_then_edit(tmp_path, monkeypatch, "s2sad_edited_a", "x * x\n", "x * x * x\n")
    calls = {
        "grad": lambda: s2sad.grad(m.f)(2.0),
        "value_and_grad": lambda: s2sad.value_and_grad(m.f)(2.0),
        "grad at a 0-d array": lambda: s2sad.grad(m.helper)(np.array(2.0)),
        "forward": lambda: s2sad.grad(m.f, mode="forward")(2.0),
        "jvp": lambda: s2sad.jvp(m.f, (2.0,), (1.0,)),
        "vjp": lambda: s2sad.vjp(m.f, 2.0),
        "jacobian": lambda: s2sad.jacobian(m.f)(2.0),
        "hessian": lambda: s2sad.hessian(m.f)(2.0),
        "source": lambda: s2sad.source(m.f),
        "source of the text": lambda: s2sad.source(m.helper, stage="source"),
        "a closure": lambda: s2sad.grad(m.outer(3.0))(2.0),
        "a method": lambda: s2sad.grad(m.K.m, wrt=1)(None, 2.0),
    }
    for what, call in calls.items():
        with pytest.raises(s2sad.StaleSourceError) as info:
            call()
        text = str(info.value)
        assert "changed in its file since it was defined" in text, what
        assert "importlib.reload" in text, what
        assert info.value.filename.endswith("s2sad_edited_a.py"), what
    # the callee changed: the error names it, at its def
    with pytest.raises(s2sad.StaleSourceError, match="helper") as info:
        s2sad.grad(m.f)(2.0)
    assert info.value.lineno == 5
    # the tape engine runs the function itself, and a reload fixes the rest
    assert s2sad.grad(m.f, mode="tape")(2.0) == pytest.approx(4.0 + math.cos(2.0))
    import importlib

    m = importlib.reload(m)
    assert s2sad.grad(m.f)(2.0) == pytest.approx(12.0 + math.cos(2.0))


def test_a_function_moved_in_its_file_is_refused(tmp_path, monkeypatch):
    """Lines added above the function: the text at its line is another function's."""
    m = _import_then_edit(tmp_path, monkeypatch, "s2sad_edited_b", "\nimport math\n",
                          "\nimport math\n\n\ndef before(x):\n    return x\n")
    with pytest.raises(s2sad.StaleSourceError):
        s2sad.grad(m.f)(2.0)


def test_an_edit_that_keeps_the_code_is_not_refused(tmp_path, monkeypatch):
    """Comments and spacing inside a function do not change what it computes."""
    m = _import_then_edit(tmp_path, monkeypatch, "s2sad_edited_c", "return x * x * 3.0",
                          "return x*x * 3.0  # (three squares)")
    assert s2sad.grad(m.g)(np.array(2.0)) == 12.0
    assert s2sad.grad(m.f)(2.0) == pytest.approx(4.0 + math.cos(2.0))


def test_a_function_compiled_statement_by_statement_is_not_stale(tmp_path):
    """A notebook compiles each statement of a cell on its own: ``math.sin`` then
    compiles as it would not in the whole file, and the function is still its text."""
    import ast

    text = "import math\n\n\ndef f(x):\n    return math.sin(x) * x\n"
    path = tmp_path / "cell.py"
    path.write_text(text)
    ns = {}
    for stmt in ast.parse(text).body:
        exec(compile(ast.Module(body=[stmt], type_ignores=[]), str(path), "exec"), ns)
    assert s2sad.grad(ns["f"])(2.0) == pytest.approx(math.cos(2.0) * 2.0 + math.sin(2.0))


def _asserting(x):
    assert x > 0.0
    return x * x


def test_a_function_pytest_rewrote_runs_its_assert():
    """pytest compiles this file's `assert`s its own way: s2sad runs them as written,
    and does not take the difference for a changed file."""
    assert s2sad.grad(_asserting)(2.0) == 4.0
    with pytest.raises(AssertionError):
        s2sad.grad(_asserting)(-2.0)


def _times_an_option(x, t):
    return x * 2.0


@pytest.mark.parametrize("value", ["relu", 1 + 2j, np.array([1j]), memoryview(b"ab")],
                         ids=["str", "complex", "complex array", "memoryview"])
def test_every_entry_point_refuses_what_has_no_derivative_alike(value):
    calls = {
        "grad": lambda: s2sad.grad(_times_an_option, wrt=1)(1.0, value),
        "forward": lambda: s2sad.grad(_times_an_option, wrt=1, mode="forward")(1.0, value),
        "jvp": lambda: s2sad.jvp(_times_an_option, (1.0, value), (1.0, value)),
        "jacobian": lambda: s2sad.jacobian(_times_an_option, wrt=1)(1.0, value),
        "hessian": lambda: s2sad.hessian(_times_an_option, wrt=1)(1.0, value),
        "vjp": lambda: s2sad.vjp(_times_an_option, 1.0, value),
    }
    for what, call in calls.items():
        with pytest.raises(s2sad.WrtError) as info:
            call()
        assert "`t`" in info.value.message and info.value.filename == __file__, what
    # held fixed, it is no one's business
    assert s2sad.jvp(_times_an_option, (1.0, value), (1.0, None)) == (2.0, 2.0)
    assert s2sad.jacobian(_times_an_option)(1.0, value) == 2.0


def test_a_standard_library_function_runs_as_written_or_is_refused_at_the_call():
    """A Python function of the standard library (``copy.deepcopy``,
    ``statistics.fmean``) is not code to differentiate: on values without a
    derivative it runs as written, and where a derivative would pass through it the
    refusal names the user's line (it named a line of copy.py or statistics.py)."""
    import copy
    import statistics

    def settings(x):
        cfg = copy.deepcopy({"a": 2.0})
        return float(np.sum(x * cfg["a"])) * statistics.fmean([1.0, 2.0])

    def through(x):
        return statistics.fmean([x[0], x[1]])

    x = np.array([0.1, 0.2, -0.3])
    assert np.allclose(s2sad.grad(settings)(x), 3.0)
    with pytest.raises(s2sad.S2SADError, match="no derivative rule for `statistics.fmean`") \
            as info:
        s2sad.grad(through)(x)
    assert info.value.filename == __file__ and "statistics.fmean([x[0], x[1]])" in str(info.value)



def _inner_loss(w):
    return np.sum(w ** 2)


def _meta_loss(w):
    g = s2sad.grad(_inner_loss)(w)
    return np.sum(g * w)


def test_a_derivative_called_inside_says_what_to_use():
    """s2sad.grad(g)(x) inside the function differentiated (a meta-learning loss) is
    refused at its line, naming hessian and hvp for second derivatives."""
    with pytest.raises(errors.S2SADError, match="hessian and hvp") as info:
        s2sad.grad(_meta_loss)(np.ones(2))
    assert info.value.lineno == line_of(_meta_loss, "s2sad.grad(_inner_loss)")


@pytest.mark.parametrize("f, args, marker, words, hint", [
    (bad.pops_at_an_object, (3.0, bad.Position()), "xs.pop(i)", "position given to `.pop",
     "xs.pop(int(i))"),
    (bad.inserts_at_an_object, (3.0, bad.Position()), "xs.insert(i", "`.insert(...)`",
     "xs.insert(int(i), v)"),
    (bad.writes_at_an_object, (3.0, bad.Position()), "xs[i] = x * x",
     "an object of class `Position`", "xs[int(i)] = v"),
    (bad.extends_by_a_tuple, (3.0,), "xs += (", "`+` of a list",
     "xs.extend(t)"),
    (bad.list_of_a_tuple, (3.0,), "xs = list(t)", "`list` of a tuple", "[v for v in t]"),
    (bad.list_of_an_array, (3.0,), "xs = list(a)", "`list` of a tuple", "[v for v in t]"),
])
def test_list_operations_python_runs_are_refused_at_their_line(f, args, marker, words, hint):
    # (each runs in Python; s2sad once raised an internal TypeError or a message about
    # indexing for some of them)
    f(*args)
    with pytest.raises(s2sad.S2SADError) as info:
        s2sad.grad(f)(*args)
    err = info.value
    assert err.filename == bad.__file__ and err.lineno == line_of(f, marker)
    assert words in str(err) and hint in str(err)


@pytest.mark.parametrize("f, other, words", [
    (bad.times_an_object, bad.Scaled(np.array([1.0, 2.0])), "an object of class `Scaled`"),
    (bad.times_an_object_array, np.array([1.0, 2.0], dtype=object),
     "a value that is neither a number nor an array"),
    (bad.times_an_object, "ab", "a value that is neither a number nor an array"),
])
def test_an_operator_on_an_object_is_refused_not_taken_for_a_number(f, other, words):
    # (the rule for numbers was taken: the gradient of `np.sum(o * x)` came back as
    # `[array([1., 2.]), array([1., 2.])]` for a float `x`, and as the object array)
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(f)(3.0, other)
    err = info.value
    assert err.filename == bad.__file__ and err.lineno == line_of(f, "np.sum(o * x)")
    assert f"the `*` operator on {words}" in str(err) and "runs as written" in str(err)
    assert s2sad.grad(f, wrt=0)(3.0, 2.0) == 2.0  # (a float: the rule for numbers)


@pytest.mark.parametrize("f, args, marker, words", [
    # (each took the rule for plain numbers or arrays: a wrong gradient)
    (bad.plus_an_offset, (1.5, bad.Offset(2.0)), "x * x + c", "the `+` operator on"),
    (bad.times_a_matrix, (1.5,), "MATRIX * x", "the `*` operator on"),
    (bad.multiplies_a_matrix, (np.array([0.5, -1.0]),), "np.multiply(MATRIX", "`np.multiply` on"),
    (bad.fits_masked_data, (0.5,), "- MISSING", "the `-` operator on"),
])
def test_numbers_and_arrays_with_operators_of_their_own_are_refused(f, args, marker, words):
    f(*args)
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.NoRuleError) as info:
            s2sad.grad(f, mode=mode)(*args)
        err = info.value
        assert err.lineno == line_of(f, marker) and words in str(err)


def test_a_subclass_that_computes_as_its_base_is_still_a_number():
    import enum

    class Level(enum.IntEnum):
        LOW = 2

    class Meters(float):
        unit = "m"

    def f(x, n, c):
        return x ** n * c

    assert s2sad.grad(f)(1.5, Level.LOW, Meters(2.0)) == 2 * 1.5 * 2.0


def test_an_in_place_method_of_a_global_array_is_refused():
    # (``BUFFER.fill(5.0)`` after the function read it: reverse mode read the new
    # values, as `BUFFER[:] = 5.0` and `np.copyto(BUFFER, 5.0)`, refused, would)
    x = np.array([1.5, -0.5])
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(bad.fills_a_global_after_use)(x)
    assert info.value.lineno == line_of(bad.fills_a_global_after_use, "BUFFER.fill")
    assert "`.fill()` changes `BUFFER` in place" in str(info.value)


def _shadows_len(xs):
    len = 2.0
    return xs[0] * len + xs[1]


def _shadows_reversed(xs):
    reversed = 1.0
    s = 0.0
    for i in range(2):
        s = s * xs[i] + reversed
    return s


@pytest.mark.parametrize("f,name", [(_shadows_len, "len"), (_shadows_reversed, "reversed")])
def test_a_local_named_as_a_builtin_the_derivative_calls_is_refused(f, name):
    """The reverse sweep calls ``len`` and ``reversed``: a local of those names made
    it raise TypeError ("'float' object is not callable") inside s2sad's code."""
    with pytest.raises(s2sad.S2SADError, match=f"Python's `{name}`"):
        s2sad.grad(f)([0.7, 0.3])
    assert s2sad.grad(f, mode="forward")([0.7, 0.3]) == pytest.approx(
        [2.0, 1.0] if name == "len" else [0.0, 1.0])


# ------------------------------------ names bound where the compiler does not look


def rebound_by_with(x, w):
    y = w * x
    with contextlib.nullcontext(4.0) as w:
        pass
    return y + w * x


def rebound_by_import(x):
    w = 2.0
    y = w * x
    from math import pi as w
    return y + w * x


def module_name_rebound(x):
    math = 2.0
    y = math * x
    import math
    return y + math.pi * x


@pytest.mark.parametrize("f, args, where", [
    (rebound_by_with, (1.5, 2.0), "with contextlib.nullcontext(4.0) as w:"),
    (rebound_by_import, (1.5,), "from math import pi as w"),
    (module_name_rebound, (1.5,), "import math"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_name_an_import_or_with_rebinds_is_refused(f, args, where):
    # (the later stages follow assignments: the name kept its other value)
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="another elsewhere") as caught:
            s2sad.grad(f, mode=mode)(*args)
        assert caught.value.source_line.strip() == where


def imported_once(x):
    import math as m
    with contextlib.nullcontext(2.0) as k:
        pass
    return m.sin(x) * k


def test_names_an_import_or_with_binds_once_are_as_before():
    assert s2sad.grad(imported_once)(0.5) == pytest.approx(2.0 * math.cos(0.5))


def key_given_twice(x):
    d = {"a": x, "b": 1.0, "a": x * x}
    return d["a"] + len(d) * 10.0


def keys_python_takes_as_one(x):
    d = {1: x, 1.0: x * 2.0}
    return d[1] + len(d)


def dict_union(x):
    d = {"a": x, "b": 2.0}
    d2 = d | {"c": 1.0}
    return d2["a"] * 3.0


@pytest.mark.parametrize("f, where, what", [
    (key_given_twice, 'd = {"a": x, "b": 1.0, "a": x * x}', "key 'a' a value again"),
    (keys_python_takes_as_one, "d = {1: x, 1.0: x * 2.0}", "key 1.0 a value again"),
    (dict_union, 'd2 = d | {"c": 1.0}', "dict"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_dicts_python_would_build_otherwise_are_refused(f, where, what):
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.S2SADError, match=what) as caught:
            s2sad.grad(f, mode=mode)(1.5)
        assert caught.value.source_line.strip() == where


@pytest.mark.parametrize("f, marker", [(bad.mixed_list, "t = [x, (y"),
                                       (bad.mixed_list_unpacked, "= [x, [x")])
def test_a_list_of_items_of_different_kinds_is_refused_at_its_display(f, marker):
    """``[x, (y, 2.0)]`` had a list of float zeros for its adjoint, to which the
    tuple's was added: a TypeError inside the gradient. Reverse mode refuses it where
    the list is made; forward mode takes it."""
    args = (0.7, 1.3)[:f.__code__.co_argcount]
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(f)(*args)
    err = info.value
    assert "items are of different kinds" in err.message and "tuple" in err.hint
    assert err.filename == bad.__file__ and err.lineno == line_of(f, marker)
    e = 1e-6
    want = (f(*(args[0] + e,) + args[1:]) - f(*(args[0] - e,) + args[1:])) / (2 * e)
    assert s2sad.grad(f, mode="forward")(*args) == pytest.approx(want, rel=1e-6)


G_SCALE = 2.0


def _reads_a_declared_global(x):
    global G_SCALE
    return G_SCALE * math.sin(x)


def test_a_global_statement_of_a_name_only_read_is_accepted():
    """``global G`` of a name the function never assigns changes nothing; it was
    refused as if the function wrote it (`bad.uses_global`, which does, still is)."""
    global G_SCALE
    for mode in ("reverse", "forward"):
        assert s2sad.grad(_reads_a_declared_global, mode=mode)(0.5) == \
            pytest.approx(2.0 * math.cos(0.5))
    try:
        G_SCALE = 5.0
        assert s2sad.grad(_reads_a_declared_global)(0.5) == pytest.approx(5.0 * math.cos(0.5))
    finally:
        G_SCALE = 2.0


def _extended_by_plus_equals(x):
    xs = [x]
    for i in range(3):
        xs += [x * i]
    return sum(xs)


def test_a_list_extended_by_plus_equals_in_a_loop_gets_the_spellings_that_work():
    with pytest.raises(s2sad.NotDifferentiableError, match="different lists") as info:
        s2sad.grad(_extended_by_plus_equals)(0.3)
    assert "xs.extend(...)" in info.value.hint and "xs = xs + [...]" in info.value.hint
    assert s2sad.grad(_extended_by_plus_equals, mode="forward")(0.3) == pytest.approx(4.0)
