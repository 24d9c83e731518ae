"""`dup` copies only the lines it renames: the dup function shares the others, and the
subexpressions it leaves as they are, with the ANF function, whose text stays what
it was through `insert_dups` and through building both derivatives from the same
fronts (no later stage changes a line of the dup function in place)."""

import pytest

import zoo
import zoo_loops
import zoo_numpy
from benchmarks.first_call import straight_line
from s2sad import ir
from s2sad.api.reverse import emitted
from s2sad.backend import emit
from s2sad.frontend import dup, program

CASES = [(f, args, wrt) for f, args, wrt in zoo.ZOO + zoo_loops.ZOO + zoo_numpy.ZOO]


def _text(fn) -> str:
    return emit.emit_function(fn).text


@pytest.mark.parametrize("f,args,wrt", CASES,
                         ids=[f"{f.__name__}{i}" for i, (f, _, _) in enumerate(CASES)])
def test_anf_stays_as_it_was(monkeypatch, f, args, wrt):
    seen = []  # (ANF function, its text before `insert_dups`)
    real = dup.insert_dups

    def recording(fn):
        seen.append((fn, _text(fn)))
        return real(fn)

    monkeypatch.setattr(dup, "insert_dups", recording)
    w = wrt if isinstance(wrt, tuple) else (wrt,)
    for mode in ("reverse", "forward"):
        emitted(f, mode, w, "reverse", tuple(args))
    assert seen
    for fn, text in seen:
        assert _text(fn) == text, fn.name


def test_unrenamed_lines_are_shared():
    fr = program.front(straight_line(60))
    anf_lines = {id(s) for s in fr.anf.body}
    shared = [s for s in fr.dup.body if id(s) in anf_lines]
    renamed = [s for s in fr.dup.body if isinstance(s, ir.Assign) and id(s) not in anf_lines]
    assert shared and renamed  # (a line whose reads are split is a copy)
    assert all(not isinstance(s, ir.Dup) for s in shared)
