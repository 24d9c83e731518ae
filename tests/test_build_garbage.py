"""A derivative's build leaves no reference cycles.

`stages.building` turns the cyclic garbage collector off while a build runs, so what
a build drops must be freed by reference counting there and then. A cycle made on
the way (a nested function that calls itself holds its own cell; a class defined in
a function is always in one; `ast.dump` and `ast.fix_missing_locations` make such a
function per call) keeps everything it reaches alive until the first collection after
the build, which then walks all of it: at 1,600 operations, 26,600 objects (the
activity analysis, a pass' state, IR statements) and 20-44 ms of the first call.

Each case builds a new function's derivative (its source registered in `linecache`,
as `benchmarks.first_call` does) with the collector off, after one build of the same
shape warmed s2sad's own first-use costs, and asserts that a collection then finds
nothing the build made."""

import ast
import gc
import itertools
import linecache
import math
import types

import numpy as np
import pytest

import s2sad
from benchmarks.first_call import SCALAR_ARGS, array_args, straight_line
from s2sad.driver import stages

_count = itertools.count()

LOOP = '''
def f(x, n):
    s = 0.0
    i = 0
    while i < n:
        s = s + math.sin(x * s + i)
        i += 1
    return s
'''

CHECKPOINTED = '''
def f(x, n):
    s = x
    for i in s2sad.checkpointed(range(n), snapshots=3):
        s = s * math.cos(s) + x
    return s
'''

COMPREHENSION = '''
def f(xs):
    return sum([x * x + math.sin(x) for x in xs if x > 0.0])
'''

LIST_OF_ARRAYS = '''
def f(W, b):
    layers = [W, b]
    for k in range(2):
        layers[k] = layers[k] * 2.0 + 1.0
    return np.sum(np.tanh(layers[0] @ layers[1]))
'''

BRANCHES = '''
def f(x, y):
    if x > y and y > 0.0 or x < -1.0:
        z = x * y
    else:
        z = x / (1.0 + y * y)
    return z if z > 0.0 else -z
'''

WHERE = '''
def f(x):
    return np.sum(np.where(x > 0.0, x, 0.01 * x) ** 2)
'''

PARAMS = '''
def f(params, x):
    h = np.tanh(x @ params["layers"][0]["W"] + params["layers"][0]["b"])
    return np.sum(h * params["scale"]) + params["bias"] ** 2
'''

TO_ARRAY = '''
def f(a, b):
    v = np.array([a, b, a * b, [a, b][0]])
    return np.sum(v ** 2)
'''

HESSIAN = '''
def f(x, y):
    return x ** 3 * y + math.exp(x * y) - y ** 2
'''


def _function(source: str):
    """A new function object of `source` (a ``def f``), its source in `linecache`."""
    filename = f"<build-garbage-{next(_count)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"math": math, "np": np, "s2sad": s2sad}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


# every function the cases make, kept alive: one made by ``exec`` is in a cycle with
# its namespace (the user's own), found by a collection whenever s2sad's caches let
# go of it
_MADE = []


def _case(make, derive, args):
    """A case: a function giving a new function's derivative and the arguments of
    its first call."""
    def made():
        _MADE.append(make())
        return derive(_MADE[-1]), args
    return made


W, B = np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.linspace(0.5, 1.5, 3).reshape(3, 1)
CASES = {
    "straight-line scalar": _case(lambda: straight_line(200),
                                  lambda f: s2sad.grad(f, wrt=(0, 1, 2, 3)), SCALAR_ARGS),
    "straight-line NumPy": _case(lambda: straight_line(200, numpy=True),
                                 lambda f: s2sad.grad(f, wrt=(0, 1, 2, 3)), array_args()),
    "loop with a tape": _case(lambda: _function(LOOP), s2sad.grad, (0.3, 5)),
    "checkpointed loop": _case(lambda: _function(CHECKPOINTED), s2sad.grad, (0.3, 7)),
    "comprehension": _case(lambda: _function(COMPREHENSION), s2sad.grad,
                           ([0.5, -1.0, 2.0],)),
    "list of arrays in place": _case(lambda: _function(LIST_OF_ARRAYS),
                                     lambda f: s2sad.grad(f, wrt=(0, 1)), (W, B)),
    "branches and chained tests": _case(lambda: _function(BRANCHES),
                                        lambda f: s2sad.grad(f, wrt=(0, 1)), (0.7, 0.4)),
    "masked arrays": _case(lambda: _function(WHERE), s2sad.grad,
                           (np.array([[0.5, -0.4], [0.9, -0.05]]),)),
    "forward mode": _case(lambda: _function(LOOP),
                          lambda f: s2sad.grad(f, mode="forward"), (0.3, 5)),
    "containers of parameters": _case(
        lambda: _function(PARAMS), s2sad.grad,
        ({"layers": [{"W": W.T, "b": np.ones(2)}], "scale": 0.5, "bias": 0.3}, W)),
    "numbers made an array": _case(lambda: _function(TO_ARRAY),
                                   lambda f: s2sad.grad(f, wrt=(0, 1)), (0.3, 0.8)),
    "checkpoint option": _case(lambda: _function(LOOP),
                               lambda f: s2sad.grad(f, checkpoint="binomial"), (0.3, 9)),
    "hessian": _case(lambda: _function(HESSIAN),
                     lambda f: s2sad.hessian(f, wrt=(0, 1)), (0.4, 0.9)),
}


def _describe(o) -> str:
    if isinstance(o, types.FunctionType):
        return f"function {o.__qualname__} ({o.__code__.co_filename})"
    if isinstance(o, type):
        return f"class {o.__qualname__}"
    return type(o).__qualname__


@pytest.mark.parametrize("case", list(CASES))
def test_build_leaves_no_cycles(case, monkeypatch):
    built = [0]
    enter = stages.building

    def counted():
        built[0] += 1
        return enter()

    monkeypatch.setattr(stages, "building", counted)
    warm, args = CASES[case]()
    warm(*args)  # (s2sad's first use of what this shape needs)
    derivative, args = CASES[case]()  # (alive throughout: not the build's garbage)
    gc.collect()
    was_on = gc.isenabled()
    gc.disable()
    try:
        before = built[0]
        derivative(*args)
        assert built[0] > before, "no derivative was built: the test measured nothing"
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_on:
            gc.enable()
    # (what made a cycle first: its functions and classes, then s2sad's objects)
    named = sorted({_describe(o) for o in garbage if not isinstance(
        o, (list, dict, tuple, set, frozenset)) and type(o).__module__ != "ast"},
        key=lambda d: (not d.startswith(("function", "class")), d))
    assert found == 0, f"{case}: the build left {found} objects in cycles: {named[:20]}"


def _tree_nodes() -> set:
    return {id(o) for o in gc.get_objects() if isinstance(o, ast.AST)}


@pytest.mark.parametrize("entry", ["grad", "value_and_grad", "vjp"])
def test_a_built_gradient_keeps_none_of_its_ir(entry):
    """What the dispatcher keeps of a reverse-mode build is its text, code and guards:
    the IR (about 30,000 tree nodes, 4 MB, for 1,600 operations) is freed with the
    build, before the collector is back on to walk it."""
    def build(f):
        if entry == "vjp":
            _, pullback = s2sad.vjp(f, *SCALAR_ARGS)
            pullback(1.0)
        else:
            getattr(s2sad, entry)(f, wrt=(0, 1, 2, 3))(*SCALAR_ARGS)

    build(straight_line(200))  # (s2sad's first use of its rules: templates it keeps)
    f = straight_line(200)
    gc.collect()
    before = _tree_nodes()
    build(f)
    gc.collect()
    kept = [o for o in gc.get_objects() if isinstance(o, ast.AST) and id(o) not in before]
    assert not kept, f"{len(kept)} tree nodes outlive the build of {entry}"
