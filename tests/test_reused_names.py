"""A gradient with more than `reuse.LIMIT` locals gives dead names to later values
(`s2sad.backend.reuse`), so CPython reaches its locals without ``EXTENDED_ARG``: the
code object has under 256 locals where the values live at once allow it, and the
gradient is the one of the function printed without reuse, to the last bit, and
agrees with central differences. Straight-line code, ``for`` and ``while`` loops
with branches and values read after the loop (`programs_large`), the benchmark's
functions (`benchmarks.first_call`), and a name a generator reads in a kept
``assert``."""

import ast
import linecache
import math

import pytest

import s2sad
from benchmarks.first_call import SCALAR_ARGS, straight_line
from helpers import central_diff, close
from programs_large import ARGS, STRAIGHT_ARGS, looped, straight, straight_source
from s2sad.api.reverse import emitted
from s2sad.backend import reuse

WRT = (0, 1, 2, 3)


def _gradient(f, args, called=True):
    """The gradient of `f` at `args` by its printed text (as emitted, before black,
    which takes seconds over thousands of lines), the code object of that text, and
    the text; `called`: the gradient `s2sad.grad` gives is the same."""
    text = emitted(f, wrt=WRT)[0].text
    namespace = {}
    exec(compile(text, "<reused>", "exec"), namespace)
    printed = namespace["f_grad"]
    got = printed(*args)
    if called:
        assert s2sad.grad(f, wrt=WRT)(*args) == got
    return got, printed.__code__, text


def _both(make, args, monkeypatch):
    """(reused, plain): the gradient and code of a new `make()` with names reused, and
    of another without (the limit out of reach)."""
    reused = _gradient(make(), args)
    with monkeypatch.context() as m:
        m.setattr(reuse, "LIMIT", 10**9)
        plain = _gradient(make(), args, called=False)
    return reused, plain


def _check_numbers(f, args, got):
    want = tuple(central_diff(f, args, i) for i in WRT)
    assert close(got, want, rtol=1e-5, atol=1e-6), (got, want)


@pytest.mark.parametrize("n", [400, 1600])
def test_straight_line(n, monkeypatch):
    (got, code, _), (plain, plain_code, plain_text) = _both(
        lambda: straight(n), STRAIGHT_ARGS, monkeypatch)
    assert got == plain
    _check_numbers(straight(n), STRAIGHT_ARGS, got)
    assert plain_code.co_nlocals > 500
    peak = _peak_live(plain_text)
    assert code.co_nlocals <= peak + len(WRT), (code.co_nlocals, peak)
    if n == 400:
        assert code.co_nlocals < 256
    else:
        # 700 values live at once where the reverse sweep starts: no naming goes lower
        assert peak > 600


def test_the_benchmarks_functions(monkeypatch):
    """`benchmarks.first_call`'s 400 operations (the README's figure): under 256."""
    (got, code, _), (plain, plain_code, _) = _both(
        lambda: straight_line(400), SCALAR_ARGS, monkeypatch)
    assert got == plain
    assert plain_code.co_nlocals > 600 and code.co_nlocals < 256


@pytest.mark.parametrize("while_loop", [False, True])
def test_loop_of_400_operations_run_four_times(while_loop, monkeypatch):
    assert ARGS[-1] == 4  # (1,600 operations)
    (got, code, text), (plain, plain_code, _) = _both(
        lambda: looped(400, while_loop=while_loop), ARGS, monkeypatch)
    assert got == plain
    assert plain_code.co_nlocals > 500 and code.co_nlocals < 256, \
        (plain_code.co_nlocals, code.co_nlocals)
    assert "r1" in text and "tape = []" in text  # (the tape keeps its name)
    _check_numbers(looped(400, while_loop=while_loop), ARGS, got)


def test_small_functions_print_as_before(monkeypatch):
    text = s2sad.source(straight(60), wrt=WRT)
    with monkeypatch.context() as m:
        m.setattr(reuse, "LIMIT", 10**9)
        assert s2sad.source(straight(60), wrt=WRT) == text
    assert "r1" not in text


def test_a_name_a_generator_reads_keeps_its_own(monkeypatch):
    """``w``, read inside the generator of a kept ``assert``, is held in a cell: it
    must keep its name, never given to a later value."""
    head, *body, last = straight_source(300).splitlines()
    lines = [head, "    w = a * b", *body, "    assert all(x < w + 1e9 for x in (v0, v1))",
             last + " + w * v299"]
    source = "\n".join(lines) + "\n"

    def make():
        filename = f"<kept-generator-{make.count}>"
        make.count += 1
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"math": math}
        exec(compile(source, filename, "exec"), namespace)
        return namespace["f"]
    make.count = 0
    (got, code, text), (plain, plain_code, _) = _both(make, STRAIGHT_ARGS, monkeypatch)
    assert got == plain
    assert plain_code.co_nlocals > 255 > code.co_nlocals
    assert "for x in (v0, v1)" in text and "x < w + " in text
    assert all(not line.strip().startswith("w = ") or line.strip() == "w = a * b"
               for line in text.splitlines())
    _check_numbers(make(), STRAIGHT_ARGS, got)


def test_native_compiles_the_reused_names():
    pytest.importorskip("numba")
    f = looped(400)
    native = s2sad.grad(f, wrt=WRT, jit=True)(*ARGS)
    assert native == s2sad.grad(f, wrt=WRT)(*ARGS)


def _peak_live(text: str) -> int:
    """The most names of a function's text without loops live at once (read later, or
    assigned by the line itself): what no renaming can go below."""
    peak = [0]

    def names(node, ctx):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ctx) and n.id != "math"}

    def block(stmts, live):
        for stmt in reversed(stmts):
            if isinstance(stmt, ast.If):
                live = block(stmt.body, live) | block(stmt.orelse, live) \
                    | names(stmt.test, ast.Load)
                continue
            assert not isinstance(stmt, (ast.For, ast.While))
            stored = names(stmt, ast.Store)
            peak[0] = max(peak[0], len(live | stored))
            live = set() if isinstance(stmt, ast.Return) else live - stored
            live |= names(stmt, ast.Load)
        return live

    block(ast.parse(text).body[-1].body, set())
    return peak[0]
