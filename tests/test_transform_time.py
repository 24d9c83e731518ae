"""The transform's time grows with the code's size, not faster: a pass that scans the
rest of a block for every line (quadratic) shows in the first call of long
straight-line functions (`benchmarks.first_call`), first in how often the compiler
asks the IR's helpers about statements and expressions (a count no other process on
the machine can change), then in time."""

import gc
import linecache
import time

import s2sad
from benchmarks.first_call import SCALAR_ARGS, straight_line
from s2sad import ir
from s2sad.primitives import shape_rules

# the IR's questions every stage asks of statements and expressions
HELPERS = ("names_in", "nodes", "walk", "exprs", "copy_tree", "expr_key",
           "defined_names", "stmt_reads", "blocks", "slots")


def _first_call(n) -> float:
    """The best of three first calls of a new `n`-operation function's gradient, in
    seconds of this process's CPU time (what other processes on a shared machine take
    does not count)."""
    best = float("inf")
    gc.collect()  # (once: a build runs with the collector off, `stages.building`)
    for _ in range(3):
        f = straight_line(n)
        start = time.process_time()
        s2sad.grad(f, wrt=(0, 1, 2, 3))(*SCALAR_ARGS)
        best = min(best, time.process_time() - start)
    return best


def test_questions_grow_linearly(monkeypatch):
    asked = [0]
    for name in HELPERS:
        def counted(*args, _helper=getattr(ir, name), **kwargs):
            asked[0] += 1
            return _helper(*args, **kwargs)
        monkeypatch.setattr(ir, name, counted)

    def questions(n) -> int:
        asked[0] = 0
        s2sad.grad(straight_line(n), wrt=(0, 1, 2, 3))(*SCALAR_ARGS)
        return asked[0]

    questions(10)
    small, large = questions(400), questions(1600)
    # 4 times the code (4.1 times the gradient's lines): 4.4 times the questions now
    # (a few passes repeat while constants still fold), 6.8 with the quadratic
    # passes this test was written against
    assert large / small < 5.0, (small, large)


def test_first_call_grows_linearly():
    _first_call(10)  # (s2sad's own first-use costs)
    small, large = _first_call(400), _first_call(1600)
    # 4 times the code: 4 to 5.5 times the time when linear (larger trees are slower
    # to allocate and walk), up to 7.2 beside another test process on CI's two cores
    # (the larger build suffers more from the shared cache), 16 when quadratic
    assert large / small < 8.0, (small, large)


def test_broadcast_symbols_stay_short():
    """Chained broadcasts of unknown lengths name their result by the set of symbols
    met, not by nesting the names (which doubled their length at every line: an
    8 GB, 50-second NumPy Hessian of 200 lines)."""
    shape = ("a",)
    for symbol in "bcdbcadcb" * 20:
        shape = shape_rules.broadcast([shape, (symbol,)])
    assert shape == ("?a|b|c|d",)
    assert shape_rules.broadcast([("?a|b",), ("?b|c",)]) == ("?a|b|c",)


def test_a_value_read_hundreds_of_times():
    """The adjoint of a parameter read 400 times is a sum 400 deep, which the passes
    walk recursively: a RecursionError in Python's 1,000 frames before builds raised
    the limit (`driver.stages.building`)."""
    lines = ["def f(a):\n", "    v = a\n"] + ["    v = v * a - a\n"] * 200 + ["    return v\n"]
    source, filename = "".join(lines), "<read 400 times>"
    linecache.cache[filename] = (len(source), None, lines, filename)  # (s2sad reads it)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    a = 0.5
    v, dv = a, 1.0
    for _ in range(200):
        v, dv = v * a - a, dv * a + v - 1.0
    assert abs(s2sad.grad(namespace["f"])(a) - dv) <= 1e-12 * abs(dv)
