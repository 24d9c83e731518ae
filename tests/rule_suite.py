"""The checks every rule table gets, for the tables of one module (the SciPy rule
modules' test files use it): `tables(module)` gives its reverse and forward rows, and
`checks(...)` the four parametrised tests of `test_rules` over them (central
differences in each mode, the dot-product pairing, the inlined template against the
rule), each test file assigning them to its own names so pytest collects them."""

import numpy as np
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


# (x, shape parameters, loc and scale) shapes a location-scale distribution's array
# rules are checked on: broadcasting in each of them
SHAPES = [((), (), ()), ((4,), (), ()), ((3, 4), (4,), (3, 1)), ((4,), (4,), (4,))]


def arr(r, shape, lo, hi):
    """A number (shape ``()``) or an array of `shape` drawn uniformly from [lo, hi)."""
    if shape == ():
        return r.uniform(lo, hi)
    return np.asarray([r.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)


def location_scale_examples(r, parameters, array, points=arr):
    """Argument lists ``([x, shape parameters..., loc, scale], {})`` for a rule of a
    location-scale distribution whose `parameters` are ``(ranges of its shape
    parameters, range of the standardised point z, edges)``, the edges being points
    ``(z, shape parameters...)`` near the support's ends or far out: arrays of the
    `SHAPES` (with the edges as one array) where `array`, else numbers. `points(r,
    shape, lo, hi)` draws z."""
    shapes, (zlo, zhi), edges = parameters
    cases = []
    if array:
        for xs, ps, ls in SHAPES:
            z = points(r, xs, zlo, zhi)
            params = [arr(r, ps, lo, hi) for lo, hi in shapes]
            loc, scale = arr(r, ls, -1.0, 1.0), arr(r, ls, 0.5, 2.0)
            cases.append(([z * scale + loc, *params, loc, scale], {}))
        z = np.array([e[0] for e in edges])
        cases.append(([z, *[np.array([e[i + 1] for e in edges]) for i in range(len(shapes))],
                       0.0, 1.0], {}))
        return cases
    for _ in range(3):
        z = points(r, (), zlo, zhi)
        params = [r.uniform(lo, hi) for lo, hi in shapes]
        loc, scale = r.uniform(-1, 1), r.uniform(0.5, 2.0)
        cases.append(([z * scale + loc, *params, loc, scale], {}))
    for z, *params in edges:
        cases.append(([z * 0.7 + 0.3, *params, 0.3, 0.7], {}))
    return cases
