"""The checks every rule table gets, for the tables of one module (the SciPy rule
modules' test files use it): `tables(module)` gives its reverse and forward rows, and
`checks(...)` the four parametrised tests of `test_rules` over them (central
differences in each mode, the dot-product pairing, the inlined template against the
rule), each test file assigning them to its own names so pytest collects them."""

import pytest

from s2sad import primitives as rules
from test_rules import (dot_product_holds, forward_matches_differences,
                        reverse_matches_differences, template_equals_rule)


def tables(module) -> tuple:
    """``(reverse rows, forward rows)``: ``(key, rule)`` of the rules `module` defines."""
    def table(found):
        return [(key, r) for key, rs in found.items() for r in rs
                if r.func.__module__ == module.__name__]
    return table(rules.REVERSE), table(rules.FORWARD)


def checks(rev, fwd, ids, examples, templates=2):
    """The four tests over the rows `rev` and `fwd`, named by ``ids(rows)``, on
    ``examples(key, rule)`` (the first `templates` of them for the template)."""

    @pytest.mark.parametrize("key,rule", rev, ids=ids(rev))
    def reverse(key, rule):
        reverse_matches_differences(key, rule, examples(key, rule))

    @pytest.mark.parametrize("key,rule", fwd, ids=ids(fwd))
    def forward(key, rule):
        forward_matches_differences(key, rule, examples(key, rule))

    @pytest.mark.parametrize("key,rule", rev, ids=ids(rev))
    def dot_product(key, rule):
        """<J u, v> == <u, J^T v>, as for the built-in tables."""
        dot_product_holds(key, rule, examples(key, rule))

    @pytest.mark.parametrize("key,rule", rev + fwd, ids=ids(rev) + ids(fwd))
    def template(key, rule):
        template_equals_rule(key, rule, examples(key, rule)[:templates])

    return reverse, forward, dot_product, template
