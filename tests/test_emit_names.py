"""The namer of a large function keeps clear of the names `reuse`'s walk found it
mentions (`reuse.renames`'s `mentioned`, so that `emit.user_names` need not walk it
again): for every function the zoo's gradients and forward derivatives are made of,
scanned as a large function is (the limit at 0), those names are `emit.user_names`'
exactly: locals, globals and builtins read, a kept statement's own names, not the
names only a loop's test reads. And what is live where such a function starts, which
`reuse` reads off its walk where the function has no branch nor loop, is what the
liveness over its whole structure finds."""

import importlib
import os
import sys
import warnings

import pytest

from s2sad.api.reverse import emitted
from s2sad.backend import emit, reuse
from s2sad.driver import builder

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

ZOOS = ["zoo", "zoo_comprehensions", "zoo_loops", "zoo_numpy"]
LIMIT_OF_STEPS = 3


def kept_try_and_assert(x, y):
    assert x > -1e9, "finite"
    try:
        import math as m
        z = m.sin(x) * y
    except ValueError as err:
        raise RuntimeError("no") from err
    return z * sum(t * x for t in (1.0, 2.0))


def loop_test_reads_a_global(x):
    n = 0
    while n < LIMIT_OF_STEPS:  # (a global only a loop's test reads)
        x = x * 1.5
        n += 1
    return x


def lambda_and_with(x, y):
    import contextlib
    scale = lambda v, k=2.0: v * k  # noqa: E731
    with contextlib.suppress(KeyError):
        y = scale(y)
    return scale(x) * y


OWN = [(kept_try_and_assert, (0.3, 0.7), (0, 1)), (loop_test_reads_a_global, (0.4,), (0,)),
       (lambda_and_with, (0.3, 0.7), (0, 1))]


def _cases(module):
    if module == "own":
        yield from OWN
        return
    mod = importlib.import_module(module)
    for lname in sorted(vars(mod)):
        seq = getattr(mod, lname)
        if not lname.isupper() or not isinstance(seq, list):
            continue
        for case in seq:
            if isinstance(case, tuple) and len(case) >= 3 and callable(case[0]) \
                    and isinstance(case[1], tuple) and isinstance(case[2], (int, str, tuple)):
                yield case[:3]


@pytest.mark.parametrize("zoo", ZOOS + ["own"])
def test_mentioned_names_are_the_user_names(zoo, monkeypatch):
    units = []
    printing = builder._print
    monkeypatch.setattr(builder, "_print", lambda unit: (units.append(unit), printing(unit)))
    monkeypatch.setattr(reuse, "LIMIT", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f, args, wrt in _cases(zoo):
            for mode in ("reverse", "forward"):
                try:
                    emitted(f, mode, wrt if isinstance(wrt, tuple) else (wrt,), "reverse",
                            tuple(args))
                except Exception:  # (a case the zoo keeps for its error)
                    pass
    checked = flat = 0
    for unit in units:
        mentioned = {}
        reuse.renames(unit.module, mentioned)
        for fn in unit.module.functions:
            assert fn.name in mentioned
            got = emit.make_namer([fn], (), mentioned).taken
            assert got == emit.user_names(fn), fn.name
            checked += 1
            scan = reuse._Scan(fn)
            live = reuse._Live(fn, scan.local, reads_of=scan.reads_of)
            assert reuse._entry_and_heads(fn, scan) == (live.entry, live.heads), fn.name
            flat += not scan.compound
    assert checked > 0 and (flat > 0 or zoo == "own")


def _renamed_t1(xs, ys):
    x_0 = sum([x * t1 for x, t1 in zip(xs, ys)])
    x_1 = sum(map(lambda x, t1: x - t1 * (1.0 + x * x), xs, ys))
    return x_0 * 1.0 + x_1 * 2.0


def test_a_renamed_name_and_a_temporary_never_print_alike():
    """The second comprehension's `t1`, renamed apart (``%t12``), printed as ``t12``,
    and so did the temporary ``%12`` after it: one variable in the vjp's functions,
    and a wrong pullback."""
    import s2sad
    xs, ys = [0.0, 1.0], [0.0, 0.0]
    _, pullback = s2sad.vjp(_renamed_t1, xs, ys)
    assert pullback(1.5) == ([3.0, 3.0], [-3.0, -4.5])
    text = s2sad.source(_renamed_t1, wrt=(0, 1), example=(xs, ys))
    assert s2sad.grad(_renamed_t1, wrt=(0, 1))(xs, ys) == ([2.0, 2.0], [-2.0, -3.0])
    assert "t12 = t12" not in text
