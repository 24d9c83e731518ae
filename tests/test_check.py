"""`s2sad.check`: the gradient checker (compiler, tape, dual numbers, central
differences), its report, and the rules it catches."""

import math

import numpy as np
import pytest

import s2sad
from s2sad.errors import (
    GradientCheckError,
    IntegerArgumentError,
    NonScalarOutputError,
    S2SADError,
    WrtError,
)
from tests import zoo, zoo_loops


def seed_z(x, y):
    z = x * y + math.sin(x)
    return z


CALLS = 0


def counts_its_calls(x):
    global CALLS
    CALLS += 1
    return 1.0 + x + x**2


def uses_i0(x):
    return np.i0(x)


# Callables the compiler cannot read, with rules registered below: one right, one
# with a wrong reverse rule (the forward rule is right), one wrong on arrays.


class _Cube:
    def __call__(self, x):
        return x * x * x


class _Square:
    def __call__(self, x):
        return x * x


cube = _Cube()
bad_cube = _Cube()
bad_square = _Square()


def cube_reverse(x, out, out_bar):
    return out_bar * 3.0 * x * x


def cube_forward(x, out, x_dot):
    return 3.0 * x * x * x_dot


def bad_cube_reverse(x, out, out_bar):
    return out_bar * 2.0 * x * x  # wrong: 3x^2


def bad_square_reverse(x, out, out_bar):
    return out_bar * x  # wrong: 2x


def bad_square_forward(x, out, x_dot):
    return 2.0 * x * x_dot


@pytest.fixture(autouse=True, scope="module")
def rules():
    """Registered when the tests run, not at import: test_rules.py collects every rule
    registered at import time and checks it, and these are wrong on purpose."""
    s2sad.register_rule(cube, reverse=cube_reverse, forward=cube_forward)
    s2sad.register_rule(bad_cube, reverse=bad_cube_reverse, forward=cube_forward)
    s2sad.register_rule(bad_square, reverse=bad_square_reverse, forward=bad_square_forward)


def uses_cube(x, y):
    return cube(x) * y + y


def uses_bad_cube(x, y):
    return bad_cube(x) * y + y


def uses_bad_square(w):
    return np.sum(bad_square(w))


def statuses(report):
    return {m.name: m.status for m in report.methods}


# ---------------------------------------------------------------- agreement


def test_seed_function_agrees_everywhere():
    report = s2sad.check(seed_z, 0.5, 4.2, wrt=("x", "y"))
    assert report.ok and bool(report)
    assert statuses(report) == {"central differences": "reference", "reverse": "agrees",
                                "tape": "agrees", "dual": "agrees",
                                "forward": "agrees"}
    for name in ("reverse", "tape", "dual", "central differences"):
        g = report.method(name).derivative
        assert isinstance(g, tuple) and len(g) == 2
        assert g[0] == pytest.approx(5.077582561890373, rel=1e-9)
        assert g[1] == pytest.approx(0.5, rel=1e-9)
    assert report.method("reverse").derivative == s2sad.grad(seed_z, wrt=(0, 1))(0.5, 4.2)
    assert report.method("central differences").max_error < 1e-9  # its error estimate
    text = str(report)
    assert text.splitlines()[0] == ("s2sad.check: seed_z(x=0.5, y=4.2), gradient with "
                                    "respect to x, y: ok")
    assert "method" in text and "max error" in text
    assert report.method("forward").derivative == s2sad.grad(seed_z, wrt=(0, 1),
                                                            mode="forward")(0.5, 4.2)


def test_a_single_wrt_gives_a_single_gradient():
    report = s2sad.check(seed_z, 0.5, 4.2, wrt="y")
    assert report.method("tape").derivative == pytest.approx(0.5)
    assert report.wrt == ("y",)


def test_registered_right_rule_agrees():
    assert s2sad.check(uses_cube, 1.5, 2.0, wrt=(0, 1)).ok


@pytest.mark.parametrize("f, args, wrt", [
    pytest.param(f, args, wrt, id=f.__name__)
    for f, args, wrt in zoo.ZOO[:12] + zoo_loops.ZOO[:6]])
def test_zoo_functions_pass(f, args, wrt):
    assert s2sad.check(f, *args, wrt=wrt).ok


# ---------------------------------------------------------------- disagreement


def test_wrong_reverse_rule_is_a_disagreement_naming_method_and_argument():
    with pytest.raises(GradientCheckError) as info:
        s2sad.check(uses_bad_cube, 1.5, 2.0, wrt=("x", "y"))
    report = info.value.report
    assert not report.ok
    assert str(info.value) == str(report)
    # the compiled gradient and the tape use the reverse rule; dual numbers the forward
    assert statuses(report)["reverse"] == "disagrees"
    assert statuses(report)["tape"] == "disagrees"
    assert statuses(report)["dual"] == "agrees"
    reverse = report.method("reverse")
    assert reverse.where == "x"
    assert reverse.max_error == pytest.approx(2.0 * 1.5 ** 2, rel=1e-6)  # (3 - 2) x^2 y
    assert reverse.derivative[0] == pytest.approx(2 * 1.5 ** 2 * 2.0)
    text = str(report)
    assert "NOT OK" in text.splitlines()[0]
    words = " ".join(text.split())  # notes are wrapped at 88 columns
    assert "reverse disagrees at x: 9.0 where central differences gives 13.5" in words
    assert "tape disagrees at x" in words
    assert "check the reverse rules" in words


def test_raise_on_failure_false_returns_the_report():
    report = s2sad.check(uses_bad_cube, 1.5, 2.0, wrt=("x", "y"), raise_on_failure=False)
    assert not report.ok and not report


def test_tolerances_decide():
    # 9.0 instead of 13.5: a relative error of 1/3 passes rtol=0.5
    assert s2sad.check(uses_bad_cube, 1.5, 2.0, rtol=0.5).ok
    assert not s2sad.check(uses_bad_cube, 1.5, 2.0, rtol=0.3, raise_on_failure=False).ok


def test_array_argument_names_the_element():
    w = np.array([[0.5, -2.0], [1.0, 0.25]])
    report = s2sad.check(uses_bad_square, w, raise_on_failure=False)
    assert statuses(report)["reverse"] == "disagrees"
    assert statuses(report)["dual"] == "agrees"
    reverse = report.method("reverse")
    assert reverse.where == "w[0, 1]"  # |2w - w| is largest where |w| is
    assert reverse.max_error == pytest.approx(2.0)
    assert isinstance(reverse.derivative, np.ndarray) and reverse.derivative.shape == (2, 2)
    assert "reverse disagrees at w[0, 1]: -2.0 where central differences gives -4.0" \
        in " ".join(str(report).split())
    assert "w=array([[0.5, -2.0], [1.0, 0.25]])" in str(report)


def test_arrays_and_lists_that_agree():
    def f(x, ys):
        return np.sum(np.sin(x) * x) + ys[0] * ys[1] ** 2

    report = s2sad.check(f, np.array([0.3, 0.5, 0.9]), [1.0, 2.0], wrt=(0, 1))
    assert report.ok
    grad_x, grad_ys = report.method("dual").derivative
    assert isinstance(grad_x, np.ndarray) and grad_x.shape == (3,)
    assert grad_ys == pytest.approx([4.0, 4.0])


# ---------------------------------------------------------------- methods that cannot run


def test_compiler_refusal_is_could_not_run_not_disagreement():
    report = s2sad.check(counts_its_calls, 2.0)
    assert report.ok  # tape, dual and the differences still ran
    reverse = report.method("reverse")
    assert reverse.status == "could not run" and not reverse.ran and reverse.agrees is None
    assert "`global`" in reverse.reason and "\n" not in reverse.reason
    assert "reverse              could not run: " in str(report)


def test_fewer_than_two_methods_is_not_ok():
    report = s2sad.check(uses_i0, 1.5, raise_on_failure=False)
    assert [m.name for m in report.methods if m.ran] == ["central differences"]
    assert not report.ok
    assert "Only 1 method could compute" in str(report)
    with pytest.raises(GradientCheckError):
        s2sad.check(uses_i0, 1.5)


def test_without_differences_the_first_method_is_the_reference():
    def edge(x):  # log of a negative number one step down: differences cannot run
        return math.log(x - 1.0)

    report = s2sad.check(edge, 1.0 + 1e-6)
    assert report.ok and report.reference == "reverse"
    assert report.method("central differences").status == "could not run"
    assert "math domain error" in report.method("central differences").reason


# ---------------------------------------------------------------- order 2


def test_second_derivatives_of_the_seed():
    report = s2sad.check(seed_z, 0.5, 4.2, wrt=("x", "y"), order=2)
    assert report.ok
    expected = np.array([[-math.sin(0.5), 1.0], [1.0, 0.0]])
    for m in report.methods:
        if m.ran:
            np.testing.assert_allclose(m.derivative, expected, atol=1e-7)
    assert statuses(report)["dual over reverse"] == "agrees"  # nested: forward over reverse
    assert statuses(report)["dual over tape"] == "not available"
    assert statuses(report)["forward over reverse"] == "agrees"  # s2sad.hessian
    assert "second derivatives with respect to x, y: ok" in str(report)


def test_second_derivatives_of_a_list_argument():
    def rosenbrock(xs):
        total = 0.0
        for i in range(len(xs) - 1):
            total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
        return total

    report = s2sad.check(rosenbrock, [0.5, 1.2, 0.8], order=2)
    assert report.ok
    h = report.method("dual over reverse").derivative
    assert h.shape == (3, 3) and h[0, 0] == pytest.approx(1200 * 0.25 - 400 * 1.2 + 2)


def test_second_derivatives_catch_a_wrong_rule():
    report = s2sad.check(uses_bad_cube, 1.5, 2.0, wrt=(0, 1), order=2,
                         raise_on_failure=False)
    assert not report.ok
    assert statuses(report)["reverse + differences"] == "disagrees"
    assert statuses(report)["dual + differences"] == "agrees"
    assert report.method("dual over reverse").where == "(x, x)"


# ---------------------------------------------------------------- mistakes in the call


def test_mistakes_raise_their_own_errors():
    with pytest.raises(WrtError):
        s2sad.check(seed_z, 0.5, 4.2, wrt="q")
    with pytest.raises(IntegerArgumentError):
        s2sad.check(seed_z, 1, 4.2)
    with pytest.raises(NonScalarOutputError):
        s2sad.check(lambda x: (x, x), 1.0)
    with pytest.raises(S2SADError, match="order=1"):
        s2sad.check(seed_z, 0.5, 4.2, order=3)
    with pytest.raises(S2SADError, match="original function"):
        s2sad.check(s2sad.grad(seed_z), 0.5, 4.2)
    with pytest.raises(ZeroDivisionError):  # the function's own error at the point
        s2sad.check(lambda x: 1.0 / x, 0.0)


def test_lambdas_are_checked_by_the_engines():
    report = s2sad.check(lambda x: x ** 3, 2.0)  # (read from this file)
    assert report.ok and report.method("reverse").status == "agrees"
    report = s2sad.check(eval("lambda x: x ** 3"), 2.0)  # (no source: the engines)
    assert report.ok
    assert report.method("reverse").status == "could not run"
    assert report.method("tape").derivative == pytest.approx(12.0)
