"""The front's short ways give what its full walks give: `compiler_locals` from the
statements' targets alone where the user's function stores no name in an expression,
and `expand`'s look at only the calls it could rewrite."""

import ast

import pytest

import zoo
import zoo_comprehensions
import zoo_loops
import zoo_numpy
from benchmarks.first_call import straight_line
from s2sad.frontend import desugar, expand, parse

FUNCTIONS = [case[0] for case in zoo.ZOO + zoo_loops.ZOO + zoo_numpy.ZOO + zoo_comprehensions.ZOO]


@pytest.mark.parametrize("f", FUNCTIONS, ids=[f"{f.__name__}{i}" for i, f in enumerate(FUNCTIONS)])
def test_short_ways_agree_with_the_walks(f):
    parsed = parse.parse(f)
    ex = expand._Expander(parsed, parse.Located(parsed.info, 0))
    assert ex.plain == (not parsed.nodes.has(*expand._ALL_COMPS, ast.Starred) and not any(
        ex.call_kind(n) is not None for n in parsed.nodes.of(ast.Call)))
    tree = desugar.desugar(parsed)
    assert desugar.compiler_locals(tree, parsed) == desugar.compiler_locals(tree)


def test_the_short_ways_are_taken():
    """On straight-line code, and on a loop that sums a list (expand's own names)."""
    parsed = parse.parse(straight_line(40))
    assert not parsed.nodes.has(*desugar._STORING)
    assert expand._Expander(parsed, None).plain
    parsed = parse.parse(_summed)
    tree = desugar.desugar(parsed)
    assert not parsed.nodes.has(*desugar._STORING)
    found = desugar.compiler_locals(tree, parsed)
    assert found and found == desugar.compiler_locals(tree)


def _summed(xs, x):
    total = sum(xs, x)
    return total * x
