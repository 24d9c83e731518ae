"""Rules users register for callables the compiler cannot read."""

import math

import pytest

import s2sad
import custom_fns as c


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


def test_registering_a_rule_later_takes_effect():
    g = s2sad.grad(c.uses_late)
    with pytest.raises(s2sad.NoRuleError):
        g(1.0)
    s2sad.register_rule(c.late, reverse=c.late_reverse)
    assert g(1.0) == 2.0
    s2sad.register_rule(c.late, reverse=c.late_reverse_changed)
    assert g(1.0) == 4.0
