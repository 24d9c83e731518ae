"""`check_source` compiles the tree `parse` read instead of parsing the function's text
a second time, where that gives the same code: a function with no free variables."""

import ast
import textwrap

import pytest

import zoo
import zoo_loops
import zoo_numpy
from benchmarks.first_call import straight_line
from s2sad.frontend import compiled, parse

FUNCTIONS = [f for f, _, _ in zoo.ZOO + zoo_loops.ZOO + zoo_numpy.ZOO]


def _tree(f):
    lines, first = parse._source_lines(f)
    return lines, ast.parse("\n" * (max(first, 1) - 1) + textwrap.dedent("".join(lines)))


@pytest.mark.parametrize("f", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_the_tree_compiles_to_what_the_text_does(f):
    lines, module = _tree(f)
    digests = [compiled.code_digest(c) for c in compiled.code_of_text(f.__code__, lines)]
    assert digests and digests == [compiled.code_digest(c)
                                   for c in compiled.code_of_text(f.__code__, lines, module)]


def test_a_closure_is_compiled_from_its_text_indented():
    """The text of a closure is compiled inside an enclosing function, its strings'
    continuation lines indented with it, as the closure's own were."""
    def closure(x):
        """Two
        lines."""
        return x * scale

    scale = 2.0
    lines, module = _tree(closure)
    digest = compiled.code_digest(closure.__code__)
    for given in (None, module):
        assert [compiled.code_digest(c) for c in compiled.code_of_text(
            closure.__code__, lines, given)] == [digest]


def test_check_source_compiles_the_parsed_tree(monkeypatch):
    calls = []
    real = parse.code_of_text

    def recording(code, lines, module=None):
        calls.append(module is not None)
        return real(code, lines, module)

    monkeypatch.setattr(parse, "code_of_text", recording)
    f = straight_line(30, seed=7)
    parse.parse(f)
    assert calls == [True]
    parse.parse(straight_line(30, seed=7))  # (the same code again: known to compile)
    assert calls == [True]
