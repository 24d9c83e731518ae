"""Rules users register for callables the compiler cannot read."""

import importlib
import linecache
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import s2sad
import custom_fns as c
from helpers import central_diff
from s2sad.backend import diskcache
from s2sad import primitives as rules
from s2sad.engines import dual_grad


def test_rule_for_an_opaque_callable():
    s2sad.register_rule(c.softsign, reverse=c.softsign_reverse, forward=c.softsign_forward)
    g = s2sad.grad(c.uses_softsign)
    x = 0.7
    expected = 2 * x * (1 / (1 + abs(x * x)) ** 2)
    assert g(x) == pytest.approx(expected)
    text = s2sad.source(c.uses_softsign)
    assert "/ (1.0 + abs(" in text  # the rule is inlined, not called


def test_rule_replaces_the_source_of_a_python_function():
    s2sad.register_rule(c.careful_log1pexp, reverse=c.careful_reverse)
    g = s2sad.grad(c.uses_careful)
    assert g(2.0) == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert "careful_log1pexp_fwd" not in s2sad.source(c.uses_careful)


def test_nondifferentiable_registration():
    s2sad.register_rule(c.opaque_count, nondifferentiable=True)
    assert s2sad.grad(c.uses_count)(3.0) == 3.0


def test_malformed_rules_are_refused():
    def wrong(x, out_bar):
        return out_bar

    with pytest.raises(s2sad.S2SADError):
        s2sad.register_rule(c.softsign, reverse=wrong)

    def two_terms(x, out, out_bar):
        return out_bar, out_bar

    with pytest.raises(s2sad.S2SADError):
        s2sad.register_rule(c.softsign, reverse=two_terms)
    with pytest.raises(s2sad.S2SADError):
        s2sad.register_rule(c.softsign)
    with pytest.raises(s2sad.S2SADError, match="needs a function"):
        s2sad.register_rule(c.softsign, forward=3)


def _scaled_square(a, b):
    return a * b * b


def _by_position(x, y):
    return _scaled_square(x, y)


def _by_keyword(x, y):
    return _scaled_square(b=y, a=x)


def test_a_rule_naming_the_parameters_in_another_order_is_refused():
    """``lambda b, a, ...`` for ``def f(a, b)``: a call by position gave the rule
    `a` as its `b`, a call by keyword gave it `b`, two derivatives of one function."""
    with pytest.raises(s2sad.S2SADError, match="parameter 2, given to the rule as input 1"):
        s2sad.register_rule(_scaled_square, forward=lambda b, a, out, b_dot, a_dot: (
            b * b * b_dot, 2 * a * b * a_dot))
    # (names of the rule's own, in the function's order: both calls the same)
    s2sad.register_rule(_scaled_square, forward=lambda p, q, out, p_dot, q_dot: (
        q * q * p_dot, 2 * p * q * q_dot))
    for mode in ("reverse", "forward"):
        assert s2sad.grad(_by_position, wrt=(0, 1), mode=mode)(2.0, 3.0) == (9.0, 12.0)
        assert s2sad.grad(_by_keyword, wrt=(0, 1), mode=mode)(2.0, 3.0) == (9.0, 12.0)


def test_registering_a_rule_later_takes_effect():
    """`late`, an object whose class's ``__call__`` is Python, is differentiated
    through that code until a rule is registered for it; then by the rule."""
    g = s2sad.grad(c.uses_late)
    assert g(1.5) == 3.0
    s2sad.register_rule(c.late, reverse=c.late_reverse_changed)
    assert g(1.5) == 6.0
    s2sad.register_rule(c.late, reverse=c.late_reverse)
    assert g(1.5) == 3.0


# ------------------------------------------------------------------ helpers


def central(f, x, h=1e-6):
    """Central differences of f at the array or float `x`."""
    return central_diff(f, (x,), 0, h)


# ------------------------------------------- a rule in every mode, loops, branches


def test_rule_in_reverse_forward_and_second_order_through_loops_and_branches():
    s2sad.register_rule(c.smooth, reverse=c.smooth_reverse, forward=c.smooth_forward)
    x, n = 0.3, 5
    exact = central(lambda v: c.smooth_in_loop_exact(v, n), x)
    assert s2sad.grad(c.smooth_in_loop)(x, n) == pytest.approx(exact, rel=1e-7)
    assert s2sad.jvp(c.smooth_in_loop, (x, n), (1.0, None))[1] == pytest.approx(exact, rel=1e-7)
    assert s2sad.derivative(c.smooth_in_loop)(x, n) == pytest.approx(exact, rel=1e-7)
    second = central(lambda v: central(lambda u: c.smooth_in_loop_exact(u, n), v, 1e-5), x, 1e-4)
    assert s2sad.hessian(c.smooth_in_loop)(x, n) == pytest.approx(second, rel=1e-5)
    assert s2sad.hvp(c.smooth_in_loop)(x, n, 2.0) == pytest.approx(2.0 * second, rel=1e-5)
    assert s2sad.grad(s2sad.grad(c.smooth_in_loop))(x, n) == pytest.approx(second, rel=1e-5)
    # the rule is inlined in both modes
    assert "/ (1.0 + abs(" in s2sad.source(c.smooth_in_loop)
    assert "/ (1.0 + abs(" in s2sad.source(c.smooth_in_loop, mode="forward")
    # and the compiler, the engines and central differences agree, to second order
    s2sad.check(c.smooth_in_loop, x, n)
    s2sad.check(c.smooth_in_loop, x, n, order=2)


def test_check_catches_a_rule_whose_modes_disagree():
    s2sad.register_rule(c.twice, reverse=c.twice_reverse, forward=c.twice_forward_wrong)
    with pytest.raises(s2sad.GradientCheckError) as caught:
        s2sad.check(c.uses_twice, 0.7)
    report = caught.value.report
    status = {m: report.method(m).status for m in ("reverse", "forward", "tape", "dual")}
    assert status == {"reverse": "agrees", "tape": "agrees",
                      "forward": "disagrees", "dual": "disagrees"}
    assert "check the forward rules" in str(caught.value)


def test_a_redefined_function_does_not_reuse_the_old_ones_rule(monkeypatch, tmp_path):
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    s2sad.enable_disk_cache(str(tmp_path))  # (the disk cache must not bring it back either)
    original = c.redefinable
    s2sad.register_rule(original, reverse=c.redefinable_reverse, forward=c.redefinable_forward)
    g = s2sad.grad(c.uses_redefinable)
    assert g(0.5) == 200.0  # the rule, not math.cos
    assert s2sad.jvp(c.uses_redefinable, (0.5,), (1.0,))[1] == 200.0
    monkeypatch.setattr(c, "redefinable", c.redefined)  # as if `def redefinable` again
    assert g(0.5) == 2.0  # the new function's own derivative, 2 * 2x
    assert s2sad.grad(c.uses_redefinable)(0.5) == 2.0
    assert s2sad.jvp(c.uses_redefinable, (0.5,), (1.0,))[1] == 2.0
    assert s2sad.grad(c.uses_redefinable, mode="tape")(0.5) == 2.0
    s2sad.check(c.uses_redefinable, 0.5)
    monkeypatch.setattr(c, "redefinable", original)  # the old function, and its rule, again
    assert g(0.5) == 200.0


# ------------------------------------------------------- forward rules only


def test_forward_only_rule_gives_reverse_mode_by_transposing_it():
    s2sad.register_rule(c.soft_only_forward, forward=c.soft_forward)
    x = 0.7
    expected = 2 * x / (1 + x * x) ** 2 + 1
    assert s2sad.grad(c.uses_soft_only_forward)(x) == pytest.approx(expected)
    text = s2sad.source(c.uses_soft_only_forward)
    assert "r1 = (1.0 + abs(t1)) ** 2" in text and "t1_bar = unbroadcast(t2_bar / r1, t1)" in text
    # (one rule: what the function returns is not known, so its term is summed back to
    # the input's shape, which a number passes through)
    derived = [r for r in rules.REVERSE[c.soft_only_forward]]
    assert [(r.derived, r.when) for r in derived] == [(True, None)]
    s2sad.check(c.uses_soft_only_forward, x, order=2)  # the tape reads the derived rule


def test_forward_only_rule_on_arrays_sums_broadcast_axes():
    s2sad.register_rule(c.product, forward=c.product_forward)
    x, y = np.linspace(0.1, 1.2, 12).reshape(3, 4), np.linspace(-1.0, 1.0, 4)
    gx, gy = s2sad.grad(c.uses_product, wrt=(0, 1))(x, y)
    assert gx.shape == x.shape and gy.shape == y.shape
    assert np.allclose(gx, central(lambda v: c.uses_product(v, y), x))
    assert np.allclose(gy, central(lambda v: c.uses_product(x, v), y))
    assert "unbroadcast(" in s2sad.source(c.uses_product, wrt=(0, 1), example=(x, y))
    s2sad.check(c.uses_product, x, y, wrt=(0, 1))


def test_forward_only_rule_with_kinks_sums_lines_and_options():
    s2sad.register_rule(c.kinked, forward=c.kinked_forward)
    for x, y in ((0.4, 1.5), (-0.4, 1.5), (0.4, -1.5)):
        gx, gy = s2sad.grad(c.uses_kinked, wrt=(0, 1))(x, y)
        assert gx == pytest.approx(central(lambda v: c.kinked_exact(v, y), x))
        assert gy == pytest.approx(central(lambda v: c.kinked_exact(x, v), y))
    assert s2sad.jvp(c.uses_kinked, (0.4, 1.5), (1.0, 0.0))[1] == pytest.approx(
        central(lambda v: c.kinked_exact(v, 1.5), 0.4))


@pytest.mark.parametrize("func,forward,user,args,shown", [
    (c.cumulative, c.cumulative_forward, c.uses_cumulative, (np.ones(3),), "np.cumsum(x_dot)"),
    (c.matrix_product, c.matrix_product_forward, c.uses_matrix_product,
     (np.ones((2, 3)), np.ones(3)), "x_dot @ y"),
    (c.squared, c.squared_forward_nonlinear, c.uses_squared, (0.5,), "x_dot * x_dot"),
    (c.pair, c.pair_forward_crossed, c.uses_pair, (0.5, 2.0), "reads `y_dot`"),
])
def test_forward_only_rule_that_is_not_elementwise_linear_is_refused(func, forward, user, args,
                                                                     shown):
    s2sad.register_rule(func, forward=forward)
    with pytest.raises(s2sad.NoRuleError) as caught:
        s2sad.grad(user)(*args)
    message = str(caught.value)
    assert "has a forward rule but no reverse rule" in message
    assert shown in message
    assert "register_rule(func, reverse=...)" in message
    assert caught.value.lineno is not None  # at the user's line
    assert rules.REVERSE.get(func, []) == []
    # forward mode has what it needs
    s2sad.jvp(user, args, tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0
                                for a in args))
    # a reverse rule registered later is used (and the forward rule stays)
    s2sad.register_rule(func, reverse=lambda_free_reverse(func))
    s2sad.grad(user)(*args)


def lambda_free_reverse(func):
    """A correct reverse rule for each of the parametrized callables."""
    return {c.cumulative: c_rev.cumulative, c.matrix_product: c_rev.matrix_product,
            c.squared: c_rev.squared, c.pair: c_rev.pair}[func]


class c_rev:
    @staticmethod
    def cumulative(x, out, out_bar):
        return np.cumsum(out_bar[::-1])[::-1]

    @staticmethod
    def matrix_product(x, y, out, out_bar):
        return np.outer(out_bar, y), out_bar @ x

    @staticmethod
    def squared(x, out, out_bar):
        return 2.0 * x * out_bar

    @staticmethod
    def pair(x, y, out, out_bar):
        return out_bar * y, out_bar * x

    @staticmethod
    def spread(x, out, out_bar):
        return np.sum(out_bar * np.array([1.0, 2.0, 3.0]))

    @staticmethod
    def doubled_total(v, out, out_bar):
        return 2.0 * out_bar * np.ones_like(v)


def test_registering_a_reverse_rule_replaces_the_derived_one():
    f = c.squared_again
    s2sad.register_rule(f, forward=c.squared_forward_mixed)
    assert [r.derived for r in rules.REVERSE[f]] == [True]
    assert s2sad.grad(c.uses_squared_again)(0.5) == 1.0
    s2sad.register_rule(f, reverse=c_rev.squared)
    assert [r.derived for r in rules.REVERSE[f]] == [False]
    s2sad.register_rule(f, forward=c.squared_forward_mixed)  # the user's reverse rule stays
    assert [r.derived for r in rules.REVERSE[f]] == [False]
    s2sad.register_rule(f, forward=c.squared_forward_nonlinear, reverse=c_rev.squared)
    assert s2sad.grad(c.uses_squared_again)(0.5) == 1.0


def test_a_rule_of_a_number_may_return_an_array():
    # nothing says what a function with a rule returns: a function of a float that
    # returns an array gets its adjoint summed back, through the rule derived from a
    # forward rule and past the product with another input
    s2sad.register_rule(c.spread, forward=c.spread_forward)
    x, z = 0.7, 1.5
    assert s2sad.grad(c.uses_spread)(x, z) == pytest.approx(6.0 * z)
    assert s2sad.grad(c.uses_spread, wrt=(0, 1))(x, z) == pytest.approx((6.0 * z, 6.0 * x))
    assert s2sad.grad(c.uses_spread_twice)(x) == pytest.approx(28.0 * x + 1.0)
    for mode in ("forward", "tape"):
        assert s2sad.grad(c.uses_spread, wrt=(0, 1), mode=mode)(x, z) == \
            pytest.approx((6.0 * z, 6.0 * x))
    s2sad.register_rule(c.spread, reverse=c_rev.spread, forward=c.spread_forward)
    assert s2sad.grad(c.uses_spread, wrt=(0, 1))(x, z) == pytest.approx((6.0 * z, 6.0 * x))
    s2sad.check(c.uses_spread, x, z)


def test_a_rule_of_an_array_may_return_a_number():
    s2sad.register_rule(c.doubled_total, reverse=c_rev.doubled_total,
                        forward=c.doubled_total_forward)
    w = np.array([0.3, -0.2, 0.5])
    expected = 2.0 * (2.0 * np.sum(w)) * 2.0 * np.ones(3)
    np.testing.assert_allclose(s2sad.grad(c.uses_doubled_total)(w), expected)
    np.testing.assert_allclose(s2sad.grad(c.uses_doubled_total, mode="forward")(w), expected)


def test_reverse_only_rule_in_forward_mode_says_which_rule_to_add():
    s2sad.register_rule(c.only_reverse, reverse=c.only_reverse_reverse)
    assert s2sad.grad(c.uses_only_reverse)(2.0) == 12.0
    with pytest.raises(s2sad.NoRuleError, match=r"has a reverse rule but no forward rule") as caught:
        s2sad.jvp(c.uses_only_reverse, (2.0,), (1.0,))
    assert "register_rule(func, forward=...)" in str(caught.value)


# ---------------------------------------------------------------- stop_gradient


def test_stop_gradient_returns_its_argument():
    x = np.ones(3)
    assert s2sad.stop_gradient(x) is x
    assert s2sad.stop_gradient(2.5) == 2.5


def test_stop_gradient_makes_a_constant_in_every_mode():
    x = 2.0
    expected = x  # d/dx of x * c + sin(c) with c = x held constant
    assert s2sad.grad(c.stopped)(x) == expected
    assert s2sad.jvp(c.stopped, (x,), (1.0,))[1] == expected
    assert s2sad.grad(c.stopped, mode="tape")(x) == expected
    assert dual_grad(c.stopped, (x,))[1] == expected
    assert s2sad.hessian(c.stopped)(x) == 0.0
    assert "stop_gradient(x)" in s2sad.source(c.stopped)
    assert s2sad.grad(c.stopped_by_attribute)(x) == x * x
    assert s2sad.grad(c.stopped_by_attribute, mode="tape")(x) == x * x
    assert dual_grad(c.stopped_by_attribute, (x,))[1] == x * x


def test_stop_gradient_in_loops_and_branches():
    x, n = 0.6, 5
    expected = central(lambda v: c.stopped_in_loop_reference(v, n, x), x)
    assert s2sad.grad(c.stopped_in_loop)(x, n) == pytest.approx(expected)
    assert s2sad.jvp(c.stopped_in_loop, (x, n), (1.0, None))[1] == pytest.approx(expected)
    assert s2sad.grad(c.stopped_in_loop, mode="tape")(x, n) == pytest.approx(expected)
    assert dual_grad(c.stopped_in_loop, (x, n))[1] == pytest.approx(expected)


def test_stop_gradient_on_arrays():
    x = np.array([0.5, 2.0, -1.0])
    softmax = np.exp(x) / np.sum(np.exp(x))  # the max's adjoint would cancel out anyway
    assert np.allclose(s2sad.grad(c.stable_logsumexp)(x), softmax)
    assert np.allclose(s2sad.grad(c.stable_logsumexp, mode="tape")(x), softmax)
    assert np.allclose(dual_grad(c.stable_logsumexp, (x,))[1], softmax)
    text = s2sad.source(c.stable_logsumexp, example=(x,))
    assert "stop_gradient(np.max(x))" in text and "extreme_bar" not in text


def test_stop_gradient_of_an_array_written_later_is_refused():
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(c.stopped_alias_written)(0.5)
    assert caught.value.lineno is not None


# ----------------------------------------------------------- nondifferentiable


def test_nondifferentiable_decorator():
    x = -1.5
    expected = abs(x) + 1.0  # scale_of(x) is a constant
    assert c.scale_of(x) == 2.5  # the decorator returns the function
    assert s2sad.grad(c.uses_scale_of)(x) == expected
    assert s2sad.jvp(c.uses_scale_of, (x,), (1.0,))[1] == expected
    assert s2sad.grad(c.uses_scale_of, mode="tape")(x) == expected
    assert dual_grad(c.uses_scale_of, (x,))[1] == expected


def test_the_missing_rule_error_mentions_nondifferentiable():
    with pytest.raises(s2sad.NoRuleError, match=r"s2sad\.nondifferentiable\(func\)"):
        s2sad.grad(c.uses_late_unregistered)(1.0)


def test_a_module_reloaded_with_new_definitions_does_not_reuse_old_rules(tmp_path, monkeypatch):
    source = """
import math

import s2sad


def activation(x):
    return math.tanh(x)


def activation_reverse(x, out, out_bar):
    return out_bar * 7.0


{register}

def model(x):
    return activation(x) * 3.0
"""
    path = tmp_path / "reloaded_model.py"
    path.write_text(source.format(register="s2sad.register_rule(activation, "
                                           "reverse=activation_reverse)"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import reloaded_model as m

    old_model = m.model
    g = s2sad.grad(old_model)
    assert g(0.5) == 21.0
    path.write_text(source.format(register="").replace("math.tanh(x)", "x * x"))
    linecache.checkcache(str(path))
    importlib.reload(m)  # new `activation` and `model` in the same module, no rule
    assert s2sad.grad(m.model)(0.5) == 3.0
    assert g(0.5) == 3.0  # the old model reads the module's new activation too
    assert s2sad.grad(m.model, mode="tape")(0.5) == 3.0


def test_the_custom_rules_example_runs():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, os.path.join("examples", "custom_rules.py")],
                          capture_output=True, text=True, cwd=root,
                          env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr
    assert "radius'(2.0) = 0.1994711" in done.stdout


def test_second_derivatives_built_before_a_registration_are_built_again(tmp_path):
    """Registering a rule forgets every derivative built before: the gradients that
    hessian, hvp and grad(grad(f)) differentiate too (they kept the old gradient, a
    stale Hessian with no word)."""
    path = tmp_path / "cubed_mod.py"
    path.write_text("def g(x):\n    return x ** 3\n\n\ndef f(x):\n    return g(x) + x ** 2\n")
    spec = importlib.util.spec_from_file_location("cubed_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    second = (s2sad.hessian(mod.f), s2sad.grad(s2sad.grad(mod.f)))
    assert [d(2.0) for d in second] == [14.0, 14.0]
    assert s2sad.hvp(mod.f)(2.0, 1.0) == 14.0
    s2sad.register_rule(mod.g, nondifferentiable=True)
    assert [d(2.0) for d in second] == [2.0, 2.0]
    assert s2sad.hvp(mod.f)(2.0, 1.0) == 2.0
    assert s2sad.hessian(mod.f)(2.0) == 2.0


def test_rules_written_as_lambdas(tmp_path):
    """A rule may be a lambda (its body is the one term it returns); two lambdas with
    the same parameters on one line cannot be told apart: a clear error, not an
    internal one (AttributeError before)."""
    path = tmp_path / "lambda_rules.py"
    path.write_text(
        "import s2sad\n\n\n"
        "def twice(x):\n    return x * 2.0\n\n\n"
        "def thrice(x):\n    return x * 3.0\n\n\n"
        "def f(x):\n    return twice(x) * x\n\n\n"
        "def g(x):\n    return thrice(x) + x\n\n\n"
        "s2sad.register_rule(twice, forward=lambda x, out, x_dot: 2.0 * x_dot)\n"
        "s2sad.register_rule(thrice, reverse=lambda x, out, out_bar: 3.0 * out_bar,\n"
        "                    forward=lambda x, out, x_dot: 3.0 * x_dot)\n")
    spec = importlib.util.spec_from_file_location("lambda_rules", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert s2sad.grad(mod.f)(1.5) == 6.0  # d(2x * x) = 4x
    assert s2sad.jvp(mod.f, (1.5,), (1.0,)) == (4.5, 6.0)
    assert s2sad.grad(mod.g)(2.0) == 4.0
    path2 = tmp_path / "lambda_twins.py"
    path2.write_text(
        "import s2sad\n\n\ndef g(x):\n    return x\n\n\ndef h(x):\n    return x\n\n\n"
        "s2sad.register_rule(g, forward=lambda x, out, x_dot: x_dot); "
        "s2sad.register_rule(h, forward=lambda x, out, x_dot: x_dot)\n")
    spec = importlib.util.spec_from_file_location("lambda_twins", path2)
    with pytest.raises(s2sad.S2SADError, match="lambda s2sad cannot tell apart"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
