"""Large generated functions, the data of tests/test_reused_names.py: straight-line
code and loops whose bodies are hundreds of lines long, with branches, so that their
gradients have more than 255 locals.

Each line is one of ``0.5 * x + 0.4 * y``, ``x * y``, ``0.9 * math.sin(x)``,
``0.5 * math.cos(x) - 0.5 * y`` on a value of the last few lines (`x`) and any
earlier one (`y`), chosen by a fixed seed; every 40th line is an ``if`` on the sign
of `x` choosing between two of them. Every value stays within [-1, 1] and no line
multiplies a derivative by more than one, so central differences agree with the
gradient to six digits however long the code (the benchmark's functions of
`benchmarks.first_call` differ from their own central differences in the first digit
at 400 lines: their derivatives reach 1e5).

`straight(n, seed)` is a new function object ``f(a, b, c, d)`` of `n` lines returning
the sum of the last three values; `looped(n, seed, while_loop)` one of ``f(a, b, c,
d, steps)`` running a body of `n` lines `steps` times (a ``for`` loop, or a
``while`` loop counting up to `steps`), the four carried values set to the last four
at the end of each step, returning their sum, read after the loop."""

import linecache
import math
import random
from itertools import count

STRAIGHT_ARGS = (0.3, 0.5, 0.7, 0.9)
ARGS = (0.3, 0.5, 0.7, 0.9, 4)
_count = count()


def _lines(n, seed, indent) -> tuple:
    """(the `n` lines, the names they assign, in order)"""
    rnd = random.Random(seed)
    names = list("abcd")
    pad = " " * indent
    lines = []
    for i in range(n):
        name = f"v{i}"
        x = rnd.choice(names[-4:])
        y = rnd.choice(names)
        forms = [f"0.5 * {x} + 0.4 * {y}", f"{x} * {y}", f"0.9 * math.sin({x})",
                 f"0.5 * math.cos({x}) - 0.5 * {y}", f"0.6 * {x} - 0.3 * {y}"]
        if i % 40 == 39:
            one, other = rnd.sample(forms, 2)
            lines += [f"{pad}if {x} > 0:", f"{pad}    {name} = {one}", f"{pad}else:",
                      f"{pad}    {name} = {other}"]
        else:
            lines.append(f"{pad}{name} = {rnd.choice(forms)}")
        names.append(name)
    return lines, names[4:]


def straight_source(n, seed=0) -> str:
    lines, names = _lines(n, seed, 4)
    return "\n".join(["def f(a, b, c, d):", *lines,
                      f"    return {' + '.join(names[-3:])}"]) + "\n"


def looped_source(n, seed=0, while_loop=False) -> str:
    lines, names = _lines(n, seed, 8)
    head = ["    k = 0", "    while k < steps:", "        k += 1"] if while_loop else \
        ["    for _ in range(steps):"]
    return "\n".join(["def f(a, b, c, d, steps):", *head, *lines,
                      f"        a, b, c, d = "
                      f"{', '.join(f'{p} + 0.1 * {v}' for p, v in zip('abcd', names[-4:]))}",
                      "    return a + b + c + d"]) + "\n"


def _function(source, label):
    filename = f"<{label}-{next(_count)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"math": math}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


def straight(n, seed=0):
    return _function(straight_source(n, seed), f"straight-{n}")


def looped(n, seed=0, while_loop=False):
    return _function(looped_source(n, seed, while_loop), f"looped-{n}")
