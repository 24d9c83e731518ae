"""Random well-formed programs for property tests.

`program_text(draw)` draws a function ``f(x, y)`` of straight-line assignments
(arithmetic and smooth math calls), conditional expressions, ``if``/``else`` blocks
and calls of a helper; `load(text)` defines it from a real file so its source can be
read."""

import itertools
import math
import os
import sys
import tempfile

from hypothesis import strategies as st

UNARY = ["math.sin({0})", "math.cos({0})", "math.tanh({0})", "math.atan({0})",
         "math.sqrt(1.0 + {0} * {0})", "math.log(1.0 + {0} * {0})", "math.exp(math.tanh({0}))",
         "-{0}", "abs({0})", "helper({0}, 0.5)", "{0} ** 2", "{0} ** 3"]
BINARY = ["{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / (1.0 + {1} * {1})", "min({0}, {1})",
          "max({0}, {1})", "helper({0}, {1})", "math.hypot({0}, {1})"]


@st.composite
def expression(draw, names, depth=2):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        if draw(st.integers(0, 4)) == 0:
            return repr(draw(st.sampled_from([0.5, 2.0, 1.5, 3.0])))
        return draw(st.sampled_from(names))
    if draw(st.booleans()):
        return "(" + draw(st.sampled_from(UNARY)).format(draw(expression(names, depth - 1))) + ")"
    a = draw(expression(names, depth - 1))
    b = draw(expression(names, depth - 1))
    return "(" + draw(st.sampled_from(BINARY)).format(a, b) + ")"


@st.composite
def program_text(draw, with_branches=True):
    names = ["x", "y"]
    lines = []
    fresh = itertools.count()
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.integers(0, 5 if with_branches else 2))
        target = draw(st.sampled_from(names + [f"v{next(fresh)}"]))
        if kind <= 2:
            lines.append(f"    {target} = {draw(expression(names))}")
        elif kind == 3:
            op = draw(st.sampled_from(["+=", "*=", "-="]))
            src = draw(st.sampled_from(names))
            lines.append(f"    {src} {op} {draw(expression(names, 1))}")
            target = src
        elif kind == 4:
            c = draw(expression(names, 1))
            lines.append(f"    {target} = {draw(expression(names, 1))} if {c} > 0.3 else "
                         f"{draw(expression(names, 1))}")
        else:
            c = draw(expression(names, 1))
            lines.append(f"    if {c} > 0.1:")
            lines.append(f"        {target} = {draw(expression(names))}")
            lines.append("    else:")
            lines.append(f"        {target} = {draw(expression(names))}")
        if target not in names:
            names.append(target)
    lines.append(f"    return {draw(expression(names))}")
    return "import math\n\n\ndef helper(a, b):\n    return a * math.sin(b) + b\n\n\n" \
           "def f(x, y):\n" + "\n".join(lines) + "\n"


_count = itertools.count()
_dir = tempfile.mkdtemp(prefix="s2sad-programs-")


def load(text):
    path = os.path.join(_dir, f"prog{next(_count)}.py")
    with open(path, "w") as fh:
        fh.write(text)
    ns = {"__name__": f"prog{next(_count)}"}
    exec(compile(text, path, "exec"), ns)
    return ns["f"]


def lines_run(f, args):
    """The line numbers `f(*args)` executes, in order, in the file `f` comes from:
    its control-flow path."""
    path = []
    filename = f.__code__.co_filename

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        if event == "line":
            path.append(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        f(*args)
    finally:
        sys.settrace(None)
    return path


def smooth_at(f, args, i, h=1e-5):
    """Central differences at two step sizes agree and the steps take the same path
    through `f` as `args` itself: no branch switch nearby, not even one that happens
    to join continuously (where the derivative of the path taken is the one AD gives,
    and differences see the other)."""
    def at(step):
        moved = list(args)
        moved[i] += step
        return f(*moved)

    def moved(step):
        out = list(args)
        out[i] += step
        return out

    path = lines_run(f, args)
    if any(lines_run(f, moved(s)) != path for s in (h, -h, h / 10, -h / 10)):
        return False, math.nan

    f0 = f(*args)
    right = (at(h) - f0) / h
    left = (f0 - at(-h)) / h
    central = (at(h / 10) - at(-h / 10)) / (h / 5)
    # one-sided slopes from a step small enough that a smooth function's curvature
    # cannot separate them as much as a kink the test's tolerance would notice
    tiny = h / 100
    right_near = (at(tiny) - f0) / tiny
    left_near = (f0 - at(-tiny)) / tiny
    ok = all(map(math.isfinite, (left, right, central, left_near, right_near))) and \
        abs(left - right) <= 1e-3 * (1 + abs(central)) and \
        abs(left_near - right_near) <= 2e-5 * (1 + abs(central)) and \
        abs((left + right) / 2 - central) <= 1e-4 * (1 + abs(central))
    return ok, central


@st.composite
def loop_program_text(draw):
    """A function with a loop (for over range, or a counted while), a loop-carried
    value, and sometimes a branch, break, continue or a list."""
    names = ["x", "y"]
    body = []
    kind = draw(st.sampled_from(["for", "while", "list"]))
    trips = draw(st.integers(0, 5))
    lines = ["    acc = x"]
    if kind == "for":
        lines.append(f"    for i in range({trips}):")
    elif kind == "while":
        lines.append("    k = 0")
        lines.append(f"    while k < {trips}:")
        body.append("k = k + 1")
    else:
        lines.append("    ys = []")
        lines.append(f"    for i in range({trips}):")
    inner = names + ["acc"] + (["i"] if kind != "while" else [])
    for _ in range(draw(st.integers(1, 3))):
        body.append(f"acc = {draw(expression(['acc', 'x', 'y'], 2))}")
    extra = draw(st.sampled_from(["", "if", "break", "continue"]))
    if extra == "if":
        body.append(f"if {draw(expression(['acc', 'y'], 1))} > 0.5:")
        body.append(f"    acc = {draw(expression(['acc', 'x'], 1))}")
    elif extra in ("break", "continue"):
        body.append(f"if {draw(expression(['acc', 'x'], 1))} > 1.0:")
        if kind == "while" and extra == "continue":
            body.append("    k = k + 1")
        body.append(f"    {extra}")
        body.append(f"acc = acc * {draw(st.sampled_from(['0.5', 'y', 'x']))}")
    if kind == "list":
        body.append(f"ys.append({draw(expression(['acc', 'x'], 1))})")
    lines += ["        " + b for b in body]
    result = draw(expression(["acc", "x", "y"], 1))
    if kind == "list":
        result = f"({result}) + sum(ys) + (ys[-1] if len(ys) > 0 else 0.0)"
    lines.append(f"    return {result}")
    del inner
    return "import math\n\n\ndef helper(a, b):\n    return a * math.sin(b) + b\n\n\n" \
           "def f(x, y):\n" + "\n".join(lines) + "\n"
