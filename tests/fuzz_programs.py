"""Random programs for the fuzz tests (`test_fuzz.py`).

* `scalar_program(draw)`: a module with helper functions (branches, loops, early
  returns, a bounded recursion, a keyword default; two closures of one name and two
  lambdas, with defaults their maker computed; functions defined inside a helper,
  whose names shadow the helper's; methods of two module-level objects, of a class
  and its subclass, that call the object's other methods through ``self``, and a
  helper calling the methods of the object it is given) and ``f(x, y)`` made of nested
  statements: assignments, augmented assignments, ``if``/``else``, early ``return``,
  ``for`` over ``range``, ``while`` loops whose trip count depends on the data but is
  bounded, ``break``/``continue``, helper calls (also in loops), a list built with
  ``append`` and read by index, comprehensions and generator expressions folded by
  ``sum``/``min``/``max``/``math.fsum``/``math.prod`` or indexed (`comprehension`),
  list operations (`LIST_OPS`: ``min(ys)``, slices, concatenation, ``.extend``,
  ``map``, ``key=``, ``tuple`` of a generator, helpers taking ``*args``/``**kwargs``,
  ``insert`` and ``pop`` at a place,
  ``*`` unpacking, ``for ... else``...), ``x ** k`` with an integer ``k`` known at run
  time only (0 included), and loops marked with ``s2sad.checkpointed`` (``for`` with each
  schedule, ``while``) with ``continue``, ``break``, ``return`` and ``append`` in them.
* `array_program(draw, params=False, rows=2)`: ``f(x, w, s)`` with ``x`` of shape (3,),
  ``w`` (rows, 3) and ``s`` a number (rows 3: ``w`` square, ``w @ x`` as long as ``x``,
  so axes of different meaning have equal lengths): elementwise NumPy, broadcasting,
  ``multivariate_normal.logpdf`` of the rows of a matrix, ``logsumexp`` with weights,
  ``np.convolve``, ``np.correlate``, ``np.take_along_axis``, ``np.trapezoid``,
  ``np.interp`` and ``np.bincount`` with weights, reductions, indexing and
  slicing, ``@``, writes into a copy, branches on reductions and loops over elements;
  negative ``axis``/``axes`` (and tuples of them) of reductions, ``transpose``,
  ``swapaxes``, ``moveaxis``, ``stack``, ``concatenate``, ``expand_dims`` on 2-D and
  3-D arrays; arrays held in lists and tuples (displays, ``append``, packing and
  unpacking, a loop keeping every state) then changed in place through the container
  or the name (`CONTAINER_CASES`); numbers and arrays built by comprehensions
  (``np.array([...])``, ``np.stack``, ``sum``). With `params`, ``f(params, x, s)``
  takes ``w`` and a ``b`` of shape (rows,) from the list ``params``, and may loop over it
  or fold a comprehension over it.
* `malformed_program(draw)`: an otherwise valid ``f(x, y)`` with one construct s2sad
  may not support (or Python may reject at run time) mixed in, among them values
  stored where the function reads them back but a derivative cannot follow them (a
  module-level list or array, an attribute, set by a helper or a method).

Every program is text; `load` writes it to a real file (so `inspect` finds the source)
and returns its ``f``. `smooth` decides whether central differences are a fair
reference at a point (no branch switch, loop trip count change or kink nearby).
"""

import itertools
import math
import os
import sys
import tempfile

import numpy as np
from hypothesis import strategies as st

# ------------------------------------------------------------------ loading

_count = itertools.count()
_dir = tempfile.mkdtemp(prefix="s2sad-fuzz-")


def write(text, stem="fuzz"):
    """The path of a new file holding `text`."""
    path = os.path.join(_dir, f"{stem}{next(_count)}.py")
    with open(path, "w") as fh:
        fh.write(text)
    return path


def load(text, name="f"):
    path = write(text)
    ns = {"__name__": f"fuzz{next(_count)}"}
    exec(compile(text, path, "exec"), ns)
    return ns[name]


# ------------------------------------------------------------------ smoothness


def _path(f, args):
    """The lines of `f`'s file run by ``f(*args)``, in order (the control-flow path,
    helpers included), and the condition of every ``np.where`` it calls: a branch
    taken element by element, whose derivative is the chosen side's (at a point
    where a condition flips, the function may be smooth while no side's derivative
    is its own: ``np.where(s ** 2 > 0, s, 0.5 * s ** 2)`` at s = 0)."""
    import numpy

    seen = []
    filename = f.__code__.co_filename

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        if event == "line":
            seen.append(frame.f_lineno)
        return tracer

    where = numpy.where

    def recorded(condition, *rest):
        mask = numpy.asarray(condition)
        seen.append((mask.shape, mask.tobytes()))
        return where(condition, *rest)

    old = sys.gettrace()
    numpy.where = recorded
    sys.settrace(tracer)
    try:
        f(*args)
    finally:
        sys.settrace(old)
        numpy.where = where
    return seen


def leaves(value):
    """The numbers of `value` (floats and arrays, inside lists and tuples), in order."""
    if isinstance(value, (list, tuple)):
        return [leaf for part in value for leaf in leaves(part)]
    return [value]


def flat(value):
    """All the numbers of `value` as one float64 vector."""
    parts = [np.ravel(np.asarray(leaf, dtype=float)) for leaf in leaves(value)]
    return np.concatenate(parts) if parts else np.zeros(0)


def _flat(args):
    """All the numbers of `args` as one float vector, and its inverse: arguments of the
    same structure (lists stay lists, an array of any dtype or rank an array of that
    shape, a float a float) holding float64 numbers, the reference the differences
    are taken at."""
    vec = flat(list(args))

    def rebuild(v):
        k = 0

        def build(t):
            nonlocal k
            if isinstance(t, (list, tuple)):
                return type(t)(build(e) for e in t)
            if isinstance(t, np.ndarray):
                out = v[k:k + t.size].reshape(t.shape).copy()
                k += t.size
                return out
            k += 1
            return float(v[k - 1])

        return [build(a) for a in args]

    return vec, rebuild


def smooth(f, args, h=1e-5):
    """(ok, central differences of f at args, one per number of args, flattened).

    ok is False when a step of the differences changes the control-flow path through
    f's file (a branch, a loop's trip count, a break), or the one-sided slopes
    disagree (a kink: abs, min, max), or something is not finite. The differences
    are taken in float64 at the same numbers (a float32 array becomes a float64 one)."""
    vec, rebuild = _flat(args)
    args = rebuild(vec)
    path = _path(f, args)
    f0 = f(*args)
    out = []
    for i in range(len(vec)):
        def moved(step):
            v = vec.copy()
            v[i] += step
            return rebuild(v)

        if any(_path(f, moved(s)) != path for s in (h, -h, h / 10, -h / 10)):
            return False, None

        def at(step):
            return f(*moved(step))

        right = (at(h) - f0) / h
        left = (f0 - at(-h)) / h
        central = (at(h / 10) - at(-h / 10)) / (h / 5)
        tiny = h / 100
        right_near = (at(tiny) - f0) / tiny
        left_near = (f0 - at(-tiny)) / tiny
        scale = 1 + abs(central)
        ok = all(map(math.isfinite, (left, right, central, left_near, right_near))) and \
            abs(left - right) <= 1e-3 * scale and \
            abs(left_near - right_near) <= 2e-5 * scale and \
            abs((left + right) / 2 - central) <= 1e-4 * scale
        if not ok:
            return False, None
        out.append(central)
    # partial derivatives can all exist where f is not differentiable (a tie in
    # np.max: flat along each number, not along all of them at once): the slope
    # along one direction that moves every number must be the partials' combination
    if len(vec) > 1:
        direction = np.cos(np.arange(1, len(vec) + 1) * 1.7)
        along = (f(*rebuild(vec + h / 10 * direction)) - f(*rebuild(vec - h / 10 * direction))) \
            / (h / 5)
        if not math.isfinite(along) or abs(along - float(np.dot(out, direction))) > \
                1e-4 * (1 + abs(along)):
            return False, None
    return True, np.array(out)


# ------------------------------------------------------------------ scalar programs

UNARY = ["math.sin({0})", "math.cos({0})", "math.tanh({0})", "math.atan({0})",
         "math.sqrt(1.0 + {0} * {0})", "math.log(1.0 + {0} * {0})", "math.exp(math.tanh({0}))",
         "-{0}", "abs({0})", "{0} ** 2", "g1({0}, 0.5)", "g3({0})", "rec({0}, 2)",
         "{0} ** 0", "{0} ** 1", "{0} ** 3", "gapply(math.sin, {0})", "gapply(g3, {0}, 1)",
         "gapply(fn=math.tanh, a={0})", "gf1({0})", "gf2({0})", "gl1({0})", "gl2({0})",
         "gapply(gf2, {0})", "gapply(gl1, {0}, 1)", "gnest({0}, 0.5)", "st1.shrink({0})",
         "st2({0})"]
BINARY = ["{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / (1.0 + {1} * {1})", "min({0}, {1})",
          "max({0}, {1})", "g1({0}, {1})", "g2({0}, {1})", "g3({0}, b={1})",
          "math.atan2({0}, 1.5 + math.tanh({1}))", "0.5 * {0} if {1} > 0.2 else {1}",
          "gf1({0}, {1})", "gl2({0}, {1})", "gnest({0}, {1})", "st1.step({0}, {1})",
          "gm(st2, {0}, {1})", "gm(st1, {0}, {1})"]

HELPERS = '''import functools
import math

import s2sad


def g1(a, b):
    if a > b:
        return a * math.sin(b) + b
    return math.tanh(a - b) * b


def g2(a, b):
    s = a
    for k in range(3):
        s = 0.5 * s + math.sin(b * k)
        if s > 1.0:
            break
    return s * b


def g3(a, b=0.5):
    n = 0
    t = a
    while n < 4 and abs(t) < 2.0:
        t = t * 1.25 + b
        n += 1
    return t


def rec(a, n):
    if n <= 0:
        return a
    return math.sin(rec(a, n - 1)) + 0.5 * a


def gs(*vals, scale=1.0):
    return scale * sum(vals) + vals[0] * vals[-1]


def gk(a, **kw):
    return a * kw["w"] + math.sin(kw["w"])


def gp(pairs, w):
    total = 0.0
    for a, b in pairs:
        total = total * w + a * b
    return total


def gtl(vals, w):
    heads, tails = [], []
    for v in vals:
        heads.append(v * w)
        tails.append(math.sin(v + w))
    return heads, tails


def grl(a, n):
    if n <= 0:
        return [a]
    return [a * a] + grl(0.5 * a, n - 1)


def grow_to(lst, n, v):
    if len(lst) < n:
        lst.append(v)


def gapply(fn, a, steps=2):
    for _ in range(steps):
        a = a + 0.25 * fn(a)
    return a


def _scaled(c):
    k = 2.0 * c
    def inner(a, b=k):
        return c * math.sin(a) + b * a
    return inner


def gnest(a, w):
    # (functions defined inside a helper f calls: one's parameter and local shadow
    # the helper's names, the other reads the helper's `a` where it is called)
    def step(a):
        a = a * math.tanh(w) + math.sin(a)
        return a

    def push(v):
        v = v * 0.5
        return v + a

    for _ in range(2):
        a = step(a * 0.5 + w)
    return push(a)


class Stepper:
    # (methods calling the object's other methods, its `__call__` and a staticmethod
    # through `self`; a subclass overriding one, both passed to `gm`)
    # (`float(self.k)`: an attribute's kind is not known, and `acc += ` of a value of
    # unknown kind is refused, as it may be an array another name holds)
    def __init__(self, k):
        self.k = k

    def step(self, a, b):
        if a > b:
            return float(self.k) * math.sin(a) + b
        return self.shrink(a) * b + self(b)

    def shrink(self, a):
        t = a
        for _ in range(2):
            t = 0.5 * t + float(self.k) * math.tanh(t)
        return t

    @staticmethod
    def bump(a):
        return a * a * 0.25

    def __call__(self, a):
        return self.bump(a) + float(self.k) * a


class Stepper2(Stepper):
    def shrink(self, a):
        return math.atan(a) * float(self.k)


def gm(obj, a, b):
    return obj.step(a, b) + obj(a)


st1, st2 = Stepper(0.7), Stepper2(-0.4)


# functions of one name (two `inner`s, two lambdas), with defaults their maker computed
gf1, gf2 = _scaled(0.5), _scaled(-1.25)
gl1 = lambda a: a * math.tanh(a)  # noqa: E731
gl2 = lambda a, b=0.75: b * a * a - a  # noqa: E731


SMOOTH = True


'''


@st.composite
def expression(draw, names, depth=2):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        if draw(st.integers(0, 5)) == 0:
            return repr(draw(st.sampled_from([0.5, 2.0, 1.5, -0.75])))
        return draw(st.sampled_from(names))
    if draw(st.booleans()):
        inner = draw(expression(names, depth - 1))
        return "(" + draw(st.sampled_from(UNARY)).format(inner) + ")"
    a = draw(expression(names, depth - 1))
    b = draw(expression(names, depth - 1))
    return "(" + draw(st.sampled_from(BINARY)).format(a, b) + ")"


class _Scope:
    def __init__(self, partial=False):
        self.partial = partial  # (draw `partial` statements: `scalar_program`)
        self.fresh = itertools.count()
        self.loops = 0
        # integers that exist at this point of the program (run-time exponents)
        self.ints = ["(len(ys) - 2)"]
        # per enclosing loop, innermost last: is it a checkpointed one?
        self.loop_stack = []
        # S2SADError classes the program may be refused with (see `allowed_refusals`)
        self.refusals = set()
        self.acts = 0  # (local names given functions so far: `act1`, `act2`...)

    def in_checkpointed(self):
        return any(self.loop_stack)

    def loop_body(self, draw, checkpointed, ints, *args):
        self.loop_stack.append(checkpointed)
        self.ints += ints
        try:
            return draw(_block(self, *args))
        finally:
            self.loop_stack.pop()
            del self.ints[len(self.ints) - len(ints):]


@st.composite
def _block(draw, scope, names, indent, depth, in_loop, loop_vars):
    """Statements at `indent`. Names read: `names` (always defined); targets inside
    nested blocks are names that exist already, so every read is defined on every
    path. Returns the lines and the names defined for what follows."""
    lines = []
    names = list(names)
    pad = " " * indent
    readable = names + loop_vars
    for _ in range(draw(st.integers(1, 3 if depth > 0 else 2))):
        kind = draw(st.sampled_from(
            ["assign", "assign", "aug", "if", "return", "for", "while", "append", "read",
             "power", "checkpointed", "comprehension", "list_op", "nested"]
            + (["break", "continue"] if in_loop else [])
            + (["partial", "partial"] if scope.partial and not scope.loop_stack else [])))
        target_pool = [n for n in names if n not in ("x", "y") or indent == 4]
        if kind == "assign":
            if indent == 4 and draw(st.booleans()):
                target = f"v{next(scope.fresh)}"
            else:
                target = draw(st.sampled_from(target_pool or ["acc"]))
                if target not in names:
                    lines.append(f"{pad}{target} = 0.0")
            lines.append(f"{pad}{target} = {draw(expression(readable))}")
            if target not in names:
                names.append(target)
                readable.append(target)
        elif kind == "aug" and target_pool:
            op = draw(st.sampled_from(["+=", "*=", "-="]))
            t = draw(st.sampled_from(target_pool))
            lines.append(f"{pad}{t} {op} {draw(expression(readable, 1))}")
        elif kind == "if" and depth > 0:
            lines.append(f"{pad}if {draw(expression(readable, 1))} > "
                         f"{draw(st.sampled_from(['0.1', '0.5', '-0.3']))}:")
            body, _ = draw(_block(scope, names, indent + 4, depth - 1, in_loop, loop_vars))
            lines += body
            if draw(st.booleans()):
                lines.append(f"{pad}else:")
                body, _ = draw(_block(scope, names, indent + 4, depth - 1, in_loop, loop_vars))
                lines += body
        elif kind == "partial" and depth > 0:
            # (a name an `if` assigns after a `return` in it, read after the `if` on
            # every path: the statements after it are moved into its branches, and the
            # path the test never takes reads the name unbound, as Python would; the
            # test, always true, is not decided where the derivative is built)
            m = f"m{next(scope.fresh)}"
            lines += [f"{pad}if abs({draw(expression(readable, 1))}) > -1.0:",
                      f"{pad}    if {draw(expression(readable, 1))} > 0.7:",
                      f"{pad}        return {draw(expression(readable))}",
                      f"{pad}    {m} = {draw(expression(readable))}"]
            names.append(m)
            readable.append(m)
        elif kind == "return" and len(scope.loop_stack) < 2:
            # (a `return` two loops deep is refused, as the README says)
            if scope.in_checkpointed():
                scope.refusals.add("CheckpointError")
            lines.append(f"{pad}if {draw(expression(readable, 1))} > 0.7:")
            lines.append(f"{pad}    return {draw(expression(readable + ['ys[-1]']))}")
        elif kind == "for" and depth > 0 and scope.loops < 3:
            scope.loops += 1
            var = f"i{len(loop_vars)}"
            over = draw(st.sampled_from([f"range({draw(st.integers(0, 4))})",
                                         "range(len(ys))", "range(1, 4, 2)"]))
            lines.append(f"{pad}for {var} in {over}:")
            inner = loop_vars + [f"(0.25 * {var})"] + (
                [f"ys[{var}]"] if over == "range(len(ys))" else [])
            body, _ = scope.loop_body(draw, False, [var], names, indent + 4, depth - 1, True,
                                      inner)
            lines += body
        elif kind == "while" and depth > 0 and scope.loops < 3:
            scope.loops += 1
            n = f"n{next(scope.fresh)}"
            cond = draw(expression(readable, 1))
            lines.append(f"{pad}{n} = 0")
            lines.append(f"{pad}while {n} < {draw(st.integers(1, 4))} and {cond} < 2.5:")
            lines.append(f"{pad}    {n} += 1")
            body, _ = scope.loop_body(draw, False, [n], names, indent + 4, depth - 1, True,
                                      loop_vars)
            lines += body
        elif kind == "checkpointed" and indent == 4 and scope.loops < 3:
            # a marked loop (only outside other loops: inside one, s2sad refuses it);
            # its body may `continue`; `break`, `return` and appending to `ys` in it
            # are refused (CheckpointError), which is all right for such a program
            scope.loops += 1
            if draw(st.booleans()):
                var = f"i{len(loop_vars)}"
                options = draw(st.sampled_from(
                    ["", ", snapshots=1", ", snapshots=2, schedule='binomial'",
                     ", schedule='binomial'", ", schedule='ctz'"]))
                lines.append(f"{pad}for {var} in s2sad.checkpointed(range("
                             f"{draw(st.integers(0, 5))}){options}):")
                ints, inner = [var], loop_vars + [f"(0.25 * {var})"]
            else:
                var = f"n{next(scope.fresh)}"
                cond = draw(expression(readable, 1))
                lines.append(f"{pad}{var} = 0")
                lines.append(f"{pad}while s2sad.checkpointed({var} < "
                             f"{draw(st.integers(1, 4))} and {cond} < 2.5):")
                lines.append(f"{pad}    {var} += 1")
                ints, inner = [var], loop_vars
            body, _ = scope.loop_body(draw, True, ints, names, indent + 4, depth, True, inner)
            lines += body
        elif kind == "power" and target_pool:
            # x ** k with k an integer known at run time only (0 included, at x = 0 too)
            t = draw(st.sampled_from(target_pool))
            base = draw(st.sampled_from(["x", "y", t, draw(expression(readable, 1))]))
            k = draw(st.sampled_from(scope.ints))
            lines.append(f"{pad}{t} = {t} + 0.5 * {base} ** {k}")
        elif kind == "append":
            if scope.in_checkpointed():
                scope.refusals.add("CheckpointError")
            lines.append(f"{pad}ys.append({draw(expression(readable, 1))})")
        elif kind == "read" and target_pool:
            t = draw(st.sampled_from(target_pool))
            idx = draw(st.sampled_from(["-1", "0", "len(ys) // 2", "len(ys) - 2"]))
            lines.append(f"{pad}{t} = {t} + 0.5 * ys[{idx}]")
        elif kind == "comprehension" and target_pool:
            t = draw(st.sampled_from(target_pool))
            made = draw(comprehension(readable))
            if "gnest(" in made:
                # (a function defining functions inside is put in place of its call,
                # which s2sad cannot do in a comprehension yet: refused at the call)
                scope.refusals.add("NotDifferentiableError")
            lines.append(f"{pad}{t} = {t} + 0.5 * {made}")
        elif kind in ("list_op", "nested") and target_pool:
            t = draw(st.sampled_from(target_pool))
            # (nested: lists of tuples and tuples of lists, `pairs_program`)
            op = draw(st.sampled_from(LIST_OPS if kind == "list_op" else
                                      ["pairs", "lists", "function values"]))
            if op == "for-else":
                if scope.loops >= 3:
                    continue
                scope.loops += 1
                lines += [f"{pad}for v in ys:",
                          f"{pad}    if v > {draw(st.sampled_from(['0.3', '1.2', '5.0']))}:",
                          f"{pad}        break",
                          f"{pad}    {t} = {t} + 0.25 * v * {draw(expression(readable, 1))}",
                          f"{pad}else:",
                          f"{pad}    {t} = {t} * 0.5"]
                continue
            if op == "extend":
                if scope.in_checkpointed():
                    scope.refusals.add("CheckpointError")
                lines.append(f"{pad}ys.extend([{draw(expression(readable, 1))}, "
                             f"{draw(expression(readable, 1))}])")
                continue
            if op == "insert-pop":
                if scope.in_checkpointed():
                    scope.refusals.add("CheckpointError")
                place = draw(st.sampled_from(["0", "1", "-1", "5", "-9", "len(ys) - 1"]))
                taken = draw(st.sampled_from(["0", "1", "-1", "-2"]))
                lines += [f"{pad}ys.insert({place}, {draw(expression(readable, 1))})",
                          f"{pad}{t} = {t} + 0.5 * ys.pop({taken})"]
                continue
            if op == "pop":  # (a checkpointed loop's recomputed steps would pop again)
                if scope.in_checkpointed():
                    scope.refusals.add("CheckpointError")
                lines.append(f"{pad}{t} = {t} + 0.5 * (ys.pop() if len(ys) > 2 else ys[0])")
                continue
            if op == "star":
                lines += [f"{pad}first, *rest = ys",
                          f"{pad}{t} = {t} + 0.5 * first * sum(rest)"]
                continue
            if op == "pairs":  # (a list of tuples: one list per position, frontend.pairs)
                if scope.in_checkpointed():
                    scope.refusals.add("CheckpointError")
                lines += [pad + line for line in draw(pairs_program(readable, t))]
                continue
            if op == "function values":  # (local names given functions: function_values)
                e = draw(expression(readable, 1))
                # (a name of its own: the same name given another function would be a
                # local rebound from one function to another, which s2sad refuses)
                scope.acts += 1
                draw(st.integers(0, 10 ** 6))  # (drawn as before: the same programs)
                act = f"act{scope.acts}"
                held = draw(st.sampled_from(["math.tanh", "g1", "math.atan if SMOOTH else "
                                             "math.sin", "(lambda u: u * 0.5 + math.sin(u))"]))
                lines += [f"{pad}{act} = {held}",
                          f"{pad}{t} = {t} + 0.5 * " + (f"{act}({e}, x)" if held == "g1"
                                                        else f"{act}({e})")]
                form = draw(st.sampled_from(["loop", "generator"]))
                fns = draw(st.sampled_from(["(math.sin, math.cos)", "[math.atan, g3]",
                                            "(math.exp, lambda u: u * u)"]))
                if form == "loop" and scope.loops < 3:
                    lines += [f"{pad}for fn in {fns}:",
                              f"{pad}    {t} = {t} * 0.5 + 0.25 * fn({e})"]
                elif "lambda" not in fns:
                    lines.append(f"{pad}{t} = {t} + 0.25 * sum(fn({e}) for fn in {fns})")
                continue
            if op == "lists":  # (a tuple of lists a helper returns; a recursive list)
                e = draw(expression(readable, 1))
                q = f"q{draw(st.integers(0, 10 ** 6))}"
                lines += [f"{pad}{q}0, {q}1 = gtl(ys, {e})",
                          f"{pad}{q} = ({q}0, grl({draw(expression(readable, 1))}, 2))",
                          f"{pad}for seq in {q}:",
                          f"{pad}    {t} = {t} + 0.25 * seq[-1]",
                          f"{pad}{t} = {t} + 0.5 * {q}1[0] * {q}[1][1] + sum({q}1)"]
                continue
            # (inside a lambda, not a function passed to a helper, ``gapply(math.sin,
            # v)``, nor one defining functions inside, ``gnest``: refused there, as in a
            # comprehension's element)
            fill = expression(readable, 1).filter(
                lambda e: "gapply(" not in e and "gnest(" not in e) \
                if "lambda" in op else expression(readable, 1)
            fills = [draw(fill) for _ in range(3)]
            lines.append(f"{pad}{t} = {t} + 0.5 * {op.format(*fills)}")
        elif kind in ("break", "continue"):
            if kind == "break" and scope.loop_stack and scope.loop_stack[-1]:
                scope.refusals.add("CheckpointError")
            lines.append(f"{pad}if {draw(expression(readable, 1))} > 0.6:")
            lines.append(f"{pad}    {kind}")
    if not lines:
        lines.append(f"{pad}acc = acc + {draw(expression(readable, 1))}")
    return lines, names


# list operations (`frontend.expand` lowers most of them to loops), with up to three
# expressions to fill in; "for-else", "extend", "star" and "insert-pop" (an item put at
# a place, then one taken from another) are statements of their own; the last two
# slice tuple displays (appended last: CI's derandomized draws of the others stay;
# joins of tuples: `tuple_join_program`)
LIST_OPS = ["min(ys)", "max(ys)", "min({0}, {1}, {2})", "max({0}, {1}, {2})",
            "math.prod(ys[:3])", "math.fsum(ys)", "sum(ys, {0})", "(ys + [{0}])[-1]",
            "([{0}] * 2 + ys)[1]", "list(reversed(ys))[0]", "ys[::-1][0]", "sum(ys[1:])",
            "math.hypot({0}, {1})", "for-else", "extend", "star", "pop",
            "sum(map(math.sin, ys))", "sum(map(lambda t: t * {0}, ys))",
            "max(map(g1, ys, [{0}, {1}]))", "list(map(abs, ys))[-1]",
            "min(ys, key=lambda t: (t - {0}) ** 2)", "max(ys, key=abs)",
            "sorted(ys, key=lambda t: -t)[0]", "sorted(ys, key=abs, reverse=True)[-1]",
            "min({0}, {1}, key=abs)", "tuple({0} * t for t in ys)[-1]",
            "gs({0}, {1}, {2})", "gs(*[{0}, {1}], scale=0.5)", "gk({0}, w={1})",
            "insert-pop", "sum(({0}, {1}, {2})[1:])", "({0}, {1}, {2})[::-1][0] * ({0}, {1})[:-1][0]"]


@st.composite
def tuple_join_program(draw):
    """Text of a module defining ``f(x, y)`` that joins tuples with ``+``: displays,
    tuples made earlier, one a helper's ``*args`` holds (``args + (c,)``), read by
    position, sliced, unpacked and summed; the tuples' lengths known where the
    derivative is built, each item's derivative its own."""
    names = ["x", "y"]
    lines = [HELPERS, "", "def joined(w, *args):",
             "    both = args + (w * 0.5,)", "    return both[0] * both[-1] + sum(both[1:])",
             "", "", "def f(x, y):", "    acc = 0.0"]
    tuples = {}  # (name -> length: a join is followed up to 8 items, `results.JOINED`)
    for k in range(draw(st.integers(1, 4))):
        parts, length = [], 0
        for _ in range(2):
            short = [t for t, n in tuples.items() if n + length <= 5]
            if short and draw(st.booleans()):
                parts.append(draw(st.sampled_from(short)))
                length += tuples[parts[-1]]
            else:
                n = draw(st.integers(1, 3))
                items = [draw(expression(names, 1)) for _ in range(n)]
                parts.append("(" + ", ".join(items) + ("," if n == 1 else "") + ")")
                length += n
        name = f"t{k}"
        lines.append(f"    {name} = {parts[0]} + {parts[1]}")
        tuples[name] = length
        read = draw(st.sampled_from(["{t}[0] * {t}[-1]", "sum({t})", "sum({t}[1:]) * x",
                                     "joined(y, {t}[0], {t}[-1])", "math.prod({t}[:2])",
                                     "max({t}) + min({t})"]))
        lines.append(f"    acc = acc + {read.format(t=name)}")
        names = names + [f"{name}[0]"]
    lines.append("    return acc")
    return "\n".join(lines) + "\n"


@st.composite
def pairs_program(draw, names, t):
    """Lines that make a list of pairs from ``ys`` (appended in a loop, a
    comprehension, a display, joined) and read it back into `t` (a loop, a
    comprehension, ``enumerate``, ``reversed``, a slice, an item by position,
    ``pop``, ``len``, a helper it is passed to)."""
    pr = f"pr{draw(st.integers(0, 10 ** 6))}"
    e1, e2 = draw(expression(names, 1)), draw(expression(names, 1))
    made = draw(st.sampled_from(["append", "comprehension", "display", "joined"]))
    if made == "append":
        lines = [f"{pr} = []", "for v in ys:", f"    {pr}.append((v * {e1}, v + {e2}))"]
    elif made == "comprehension":
        lines = [f"{pr} = [(v * {e1}, v + {e2}) for v in ys if v != 0.25]"]
    elif made == "display":
        lines = [f"{pr} = [({e1}, {e2}), (x, y)]"]
    else:
        lines = [f"{pr} = [(v, {e1} * v) for v in ys] + [({e2}, x)]"]
    reads = draw(st.lists(st.sampled_from([
        "for a, b in {p}:\n    {t} = {t} + 0.25 * a * b",
        "{t} = {t} + sum(a * b for a, b in {p}[1:])",
        "for i, (a, b) in enumerate({p}):\n    {t} = {t} + 0.125 * i * a - b",
        "for q in reversed({p}):\n    {t} = {t} * 0.5 + q[0] * q[1]",
        "{t} = {t} + {p}[-1][1] * len({p})",
        "a, b = {p}[0]\n{t} = {t} + a * b",
        "{t} = {t} + 0.5 * gp({p}, {e})",
        "{t} = {t} + 0.5 * gp(list({p}), 0.5)",
        "if len({p}) > 1:\n    a, b = {p}.pop()\n    {t} = {t} + a - b"]),
        min_size=1, max_size=3))
    for r in reads:
        lines += r.format(p=pr, t=t, e=draw(expression(names, 1))).split("\n")
    return lines


@st.composite
def comprehension(draw, names):
    """A comprehension or generator expression over ``ys`` (or a display), folded by
    ``sum``, ``min``, ``max``, ``math.fsum``, ``math.prod`` or read by index; its
    variable is sometimes named like a variable outside (``x``), which it must not
    change."""
    var = draw(st.sampled_from(["v", "v", "x"]))
    inner = [n for n in names if n != var] + [var]
    # (not a function passed to a helper, ``gapply(math.sin, v)``: refused inside a
    # comprehension)
    elt = draw(expression(inner, 1).filter(lambda e: "gapply(" not in e))
    src = draw(st.sampled_from(["ys", "ys[1:]", "ys[::-1]", "[x, y]", "ys + [x]"]))
    cond = draw(st.sampled_from(["", "", f" if {var} > 0.1", f" if {var} < 0.5"]))
    form = draw(st.sampled_from([
        "sum({e} for {v} in {s}{c})", "sum([{e} for {v} in {s}{c}], 0.5)",
        "min({e} for {v} in {s})", "max([{e} for {v} in {s}])",
        "math.fsum({e} for {v} in {s}{c})", "[{e} for {v} in {s}][-1]",
        "list({e} for {v} in {s})[0]", "math.prod(0.5 + 0.25 * math.tanh({e}) for {v} in {s})",
        "sum({v} * w for {v} in {s} for w in ys[:2]{c})",
        "sum(i * {e} for i, {v} in enumerate({s}){c})",
        "sum(a * {v} for a, {v} in zip(ys, {s}))",
        "sum(sum(w * {v} for w in ys) for {v} in {s})",
        # (folds: a loop of the lambda's body; last, so CI's draws of the others stay)
        "functools.reduce(lambda a, {v}: a * 0.5 + {e}, {s}, 0.25)",
        "functools.reduce(lambda a, {v}: a + {e} * 0.5, {s})"]))
    return form.format(e=elt, v=var, s=src, c=cond)


@st.composite
def scalar_program(draw, partial=False):
    """Text of a module defining helpers and ``f(x, y)``; one in four a method of an
    object (``f = Prog(...).f``) reading the numbers it holds (``self.k``, a float,
    and ``self.c``, an int: their kinds are known, `analysis.attributes`), some of
    them after calling a method that rebinds one (whose kinds are then not taken as
    known). With `partial`, ``if`` blocks that assign a name after a ``return`` in
    them, read on every path after (`test_fuzz.test_names_assigned_after_a_return`)."""
    scope = _Scope(partial)
    body, names = draw(_block(scope, ["x", "y", "acc"], 4, 2, False, []))
    method = draw(st.integers(0, 3)) == 0
    # (`self.c` times a float: a result made of ints alone is an int, whose tangent
    # the checks want an int)
    held = ["self.k", "0.5 * self.c"] if method else []
    result = draw(expression(names + ["sum(ys)", "ys[-1]"] + held, 2))
    # (two functions of one name, both called: each derivative its own)
    start = draw(st.sampled_from(["x * self.k", "self.k * x + self.c * y"] if method else
                                 ["x", "x", "gf1(x) + gf2(y)", "gl1(x) - gl2(y, x)"]))
    head = ["def f(self, x, y):"] if method else ["def f(x, y):"]
    if method and draw(st.booleans()):
        head.append("    self.retune()")
    if method and partial:
        # (after `retune`, and along some joins, `self.k`'s kind is not known, and `acc
        # += ...` of a value of unknown kind is refused, as it may be an array another
        # name holds: these programs test another thing; the result reads `self.k`)
        start = start.replace("self.k", "float(self.k)").replace("self.c", "int(self.c)")
    lines = head + [f"    acc = {start}", "    ys = [y, x]"] + body + [
        f"    return {result}"]
    if method:
        k, c = draw(st.sampled_from([0.7, -1.25, 2.0])), draw(st.sampled_from([0, 1, 3]))
        lines += ["", "", "class Prog:", "    def __init__(self, k, c):", "        self.k = k",
                  "        self.c = c", "", "    def retune(self):",
                  "        self.k = self.k * 1.0", "", "    f = f", "", "",
                  f"f = Prog({k!r}, {c!r}).f"]
    return HELPERS + "\n".join(lines + _refusal_note(scope.refusals)) + "\n"


@st.composite
def assigning_program(draw):
    """Text of a module defining ``f(x, y)`` whose values pass through forms that
    assign or choose one value over another computed beside it: a ``while`` whose
    condition assigns a name (``:=``, on every test) that is read after the loop,
    and ``max``/``min`` of a sequence (with items or empty) with a computed
    ``default=`` that carries a derivative only where the sequence is empty; a name
    bound only inside a loop that may run no iteration, read after it where it ran."""
    names = ["x", "y", "acc"]
    e = [draw(expression(names, 2)) for _ in range(6)]
    k, t = draw(st.integers(1, 4)), draw(st.sampled_from([0, 1, 5]))
    m = draw(st.sampled_from([0, 0, 2]))
    extreme = draw(st.sampled_from(["max", "min"]))
    key = draw(st.sampled_from(["", ", key=abs"]))
    lines = ["def f(x, y):", "    acc = x * 0.5 + y", "    w = 0.0", "    k = 0",
             f"    while (w := {e[0]} + 0.25 * k) < 2.5 and k < {k}:",
             "        k += 1", f"        acc = acc * 0.5 + {e[1]}",
             f"    v = {extreme}([acc, {e[2]}], default={e[3]}{key})",
             f"    u = {extreme}((s * x for s in range(3) if s > {t}), default={e[4]})",
             f"    for i in range({m}):", f"        last = {e[5]} * (i + 1)",
             f"    z = last * x if {m} > 0 else y",
             "    return acc + 0.25 * w + v + u + z"]
    return HELPERS + "\n".join(lines) + "\n"


# how a loop makes its carried list ``xs`` anew (``{e}``: an expression of ``x``, ``h``
# and, where the loop zips them, ``v``); each keeps the list's length
REBUILDS = ["xs = [{e} for x in xs]", "xs = [{e} for x, v in zip(xs, vs)]",
            "xs = [{e} * (i + 1) for i, x in enumerate(xs)]", "xs = xs[1:] + [xs[0] * h]",
            "xs = [{e} for x in xs][::-1]", "xs = list(map(lambda x: {e}, xs))",
            "xs = step(xs, h)", "xs = [{e} for x in xs if True]"]


@st.composite
def rebuilt_program(draw):
    """Text of a module defining ``f(xs, h)`` (``xs`` a list of floats) with loops that
    carry lists they make anew in each iteration (``xs = [g(x) for x in xs]``, a
    slice plus an item, a helper's new list, two lists updated in turn as a
    simulation's positions and velocities are), starting from the argument itself,
    a copy, or a list made from it; loops of no iteration, of several, nested, a
    ``while`` left by ``break``; made anew on both paths of an ``if``; what the loop
    hands on kept as numbers in a history."""
    e = lambda names: draw(expression(names, 2))  # noqa: E731
    start = draw(st.sampled_from(["", "    xs = list(xs)", "    xs = [x * 1.0 for x in xs]"]))
    second = draw(st.booleans())
    lines = ["def step(ys, h):", f"    return [{e(['y', 'h'])} for y in ys]", "", "",
             "def f(xs, h):"] + ([start] if start else [])
    if second:
        lines.append(f"    vs = [{e(['x', 'h'])} for x in xs]")
    lines.append("    hist = []")
    loop = draw(st.sampled_from(["for", "while", "nested"]))
    trips = draw(st.sampled_from([0, 1, 3])) if loop == "for" else draw(st.sampled_from([1, 2]))
    if loop == "for":
        lines.append(f"    for k in range({trips}):")
    elif loop == "while":
        lines += ["    k = 0", "    while True:"]
    else:
        lines += [f"    for j in range({trips}):", "        for k in range(2):"]
    pad = "            " if loop == "nested" else "        "
    forms = REBUILDS if second else [r for r in REBUILDS if "vs" not in r]
    fill = lambda form: form.format(e=e(["x", "h", "v"] if "v, " in form else ["x", "h"]))  # noqa: E731
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.booleans()):  # (made anew on every path of an `if`)
            lines += [pad + draw(st.sampled_from(["if k % 2 == 0:", "if k == 1:"])),
                      pad + "    " + fill(draw(st.sampled_from(forms))), pad + "else:",
                      pad + "    " + fill(draw(st.sampled_from(forms)))]
        else:
            lines.append(pad + fill(draw(st.sampled_from(forms))))
        if second and draw(st.booleans()):
            lines.append(pad + f"vs = [{e(['v', 'x', 'h'])} for x, v in zip(xs, vs)]")
    lines.append(pad + "hist.append(sum(xs))")
    if loop == "while":
        lines += [pad + "k += 1", pad + f"if k >= {trips}:", pad + "    break"]
    tail = "sum(x * x for x in xs) + xs[0] * h + 0.5 * sum(hist)"
    lines.append(f"    return {tail}" + (" + vs[-1]" if second else ""))
    return HELPERS + "\n".join(lines) + "\n"


# how an ``if`` gives the list ``ys`` a new value (``{e}``: an expression of ``y`` and ``h``)
JOINED_FORMS = ["ys = [{e} for y in ys]", "ys = [{e} * (i + 1) for i, y in enumerate(ys)]",
                "ys = ys[1:] + [ys[0] * h]", "ys = [{e} for y in ys][::-1]",
                "ys = list(map(lambda y: {e}, ys))", "ys = step(ys, h)", "ys = ys[::-1]",
                "ys = [ys[-1], ys[0] * h] + ys[1:-1]"]


@st.composite
def joined_list_program(draw):
    """Text of a module defining ``f(xs, h)`` (``xs`` a list of floats) where an ``if``
    gives a list ``ys`` a new value on one path or both, and keeps on the other the
    list it held: the argument itself, a copy, or a list made from it. The test
    (``len(xs) > 0``) always holds where it runs, which the compiler cannot know. After
    the join the list is read by index and whole, or changed in place (a pop, an
    append, a write), so that it may be the argument the caller gave."""
    e = lambda: draw(expression(["y", "h"], 2))  # noqa: E731
    start = draw(st.sampled_from(["xs", "list(xs)", "[x * 1.0 for x in xs]", "xs[:]"]))
    fill = lambda: draw(st.sampled_from(JOINED_FORMS)).format(e=e())  # noqa: E731
    lines = ["def step(ys, h):", f"    return [{e()} for y in ys]", "", "",
             "def f(xs, h):", f"    ys = {start}", "    if len(xs) > 0:", "        " + fill()]
    if draw(st.booleans()):
        lines += ["    else:", "        " + fill()]
    change = draw(st.sampled_from(["", "", "last = ys.pop()", "ys.append(h * h)",
                                   "ys[0] = ys[0] * h"]))
    tail = "sum(y * y for y in ys) + ys[0] * h + 0.5 * sum(xs)"
    if change:
        lines.append("    " + change)
        tail += " + last * h" if "pop" in change else ""
    refusals = {"NotDifferentiableError"} if change else set()
    lines.append(f"    return {tail}")
    return HELPERS + "\n".join(lines + _refusal_note(refusals)) + "\n"


# a list holding the argument's arrays (a shallow copy), or new arrays of its own
ELEMENT_LISTS = {"list(ws)": True, "ws[:]": True, "[w for w in ws]": True, "ws": True,
                 "[w * 1.0 for w in ws]": False, "[np.sin(w) for w in ws]": False}
ELEMENT_CHANGES = ["ys[{i}] += {e}", "ys[{i}] *= {e}", "ys[{i}] -= {e}",
                   "y = ys[{i}]\n    y += {e}", "ys[{i}][0] = {e}", ""]


@st.composite
def element_program(draw):
    """Text of a module defining ``f(ws, h)`` (``ws`` a list of two arrays of shape
    (2,)) that makes a list ``ys`` of the argument's arrays (a shallow copy: ``list(ws)``,
    ``ws[:]``) or of new arrays, perhaps joined at an ``if`` with a new list, changes
    an element in place (``ys[0] += v``, through a name taken out of it, a write into
    it), and reads the list and the argument afterwards. Where the element may be the
    caller's array, the change is the caller's too: refused, or followed, never a
    derivative of a function where it did not happen. The module's ``SHARED`` says
    whether the program may refuse."""
    e = lambda: draw(expression(["h", "np.sum(ws[1])", "ys[1][0]"], 1))  # noqa: E731
    start = draw(st.sampled_from(sorted(ELEMENT_LISTS)))
    shared = ELEMENT_LISTS[start]
    lines = ["import numpy as np", "", "", "def f(ws, h):", f"    ys = {start}"]
    lines[0] = HELPERS + "import numpy as np"
    joined = draw(st.booleans())
    if joined:  # (a change after it is refused, whatever the lists hold)
        lines += ["    if np.sum(ws[0]) > 0.0:", "        ys = [w * h for w in ws]"]
    change = draw(st.sampled_from(ELEMENT_CHANGES))
    if change:
        lines.append("    " + change.format(i=draw(st.sampled_from([0, 1])), e=e()))
    after = draw(st.sampled_from(["", " + np.sum(ws[0]) * h", " + np.sum(ws[1] * ws[0])"]))
    lines.append(f"    return np.sum(ys[0] * ys[1]) + np.sum(ys[1]) * h{after}")
    # (a change through a name taken out of the list, ``y = ys[0]; y += v``, is
    # refused whatever the list holds, as the guide says)
    taken = change.startswith("y = ")
    lines.append(f"\n\nSHARED = {bool((shared or joined or taken) and change)}")
    return "\n".join(lines) + "\n"


# names a program binds in comprehensions, lambdas, folds and inner functions: a word
# and the same word with a digit, as s2sad's fresh names are (``%x``, ``%x2``)
BOUND_NAMES = ["x", "x2", "x3", "item", "item2", "y", "y2", "t", "t1", "t2", "reduced",
               "acc", "acc2"]
BINDINGS = [
    "sum({a} * {e} for {a} in xs)",
    "sum([{a} * {b} for {a}, {b} in zip(xs, ys)])",
    "sum({b} * {e} for {a}, {b} in enumerate(ys))",
    "functools.reduce(lambda {a}, {b}: {a} * 0.5 + {b} * {e}, xs, 1.0)",
    "functools.reduce(operator.add, [{a} * {e} for {a} in ys])",
    "sum(map(lambda {a}: {a} * {e}, xs))",
    "sum(map(lambda {a}, {b}: {a} - {b} * {e}, xs, ys))",
    "max({a} * {e} for {a} in ys)",
    "inner_{n}(xs)",
]


@st.composite
def bound_names_program(draw):
    """Text of a module defining ``f(xs, ys)`` (two lists of floats of one length) that
    adds several comprehensions, generators, folds, maps of lambdas and calls of inner
    functions, each binding names drawn from `BOUND_NAMES`: the same names in several
    of them, and names that differ by a digit (``x`` and ``x2``), which the lowering
    renames apart into fresh names of its own."""
    lines = ["import operator", "", "", "def f(xs, ys):"]
    parts = []
    for n in range(draw(st.integers(2, 4))):
        a = draw(st.sampled_from(BOUND_NAMES))
        b = draw(st.sampled_from([a + "2", a + "3", "x", "item", "t1"]).filter(lambda b: b != a))
        form = draw(st.sampled_from(BINDINGS))
        e = draw(st.sampled_from(["0.5", a, "(1.0 + " + a + " * " + a + ")", "ys[0]"]))
        if form.startswith("inner"):
            lines += [f"    def inner_{n}(vs):",
                      f"        return sum({a} * {e} for {a} in vs)"]
        lines.append(f"    {draw(st.sampled_from(BOUND_NAMES))}_{n} = "
                     + form.format(a=a, b=b, e=e, n=n))
        parts.append(lines[-1].split(" = ")[0].strip())
    lines.append("    return " + " + ".join(f"{p} * {k + 1.0}" for k, p in enumerate(parts)))
    return HELPERS + "\n".join(lines) + "\n"


FILLS = ["y = np.zeros(3)", "y = x.copy()", "y = x * 0.5", "y = np.ones_like(x)"]
WRITES = ["y[{i}] = {e}", "y[{i}] += {e}", "y[{i}:] = {e}", "y *= {e}", "y[{i}] = y[{j}] * {e}"]


@st.composite
def filled_program(draw):
    """Text of a module defining ``g(x, w)``, a helper that makes an array and writes
    into it (items, slices, ``op=``), reading it between the writes, and returns it;
    ``f(x, w)`` returns it, and ``loss(x, w)`` returns a number with it as metrics:
    ``(value, {"y": y, "both": [y, g(w, x)]})``."""
    e = lambda: draw(expression(["x[0]", "x[1]", "w[2]", "np.sum(y)"], 1))  # noqa: E731
    lines = ["import numpy as np", "", "", "def g(x, w):", "    " + draw(st.sampled_from(FILLS))]
    for _ in range(draw(st.integers(1, 3))):
        lines.append("    " + draw(st.sampled_from(WRITES)).format(
            i=draw(st.integers(0, 2)), j=draw(st.integers(0, 2)), e=e()))
    lines += ["    return y", "", "", "def f(x, w):", "    return g(x, w)", "", "",
              "def loss(x, w):", "    y = g(x, w)",
              "    return np.sum(y * y) + np.sum(np.tanh(y) * w), {'y': y, 'both': [y, g(w, x)]}"]
    return HELPERS + "\n".join(lines) + "\n"


LOCAL_BODIES = ["u * 2.0", "u * x", "math.sin(u) + y", "u * u * 0.5", "u - y * x"]


@st.composite
def local_function_program(draw):
    """Text of a module defining ``f(x, y)`` whose functions defined inside (a
    ``def``, a lambda bound to a name) are given on some paths only (an ``if`` on the
    arguments, a loop that rebinds them), nested in another one under the same name,
    and called before, inside and after those: each call runs the function its path
    gives it, or is refused; never the last one in the text."""
    name = lambda: draw(st.sampled_from(["g", "h"]))  # noqa: E731
    body = lambda: draw(st.sampled_from(LOCAL_BODIES))  # noqa: E731

    def define(pad, n):
        if draw(st.booleans()):
            return [f"{pad}def {n}(u):", f"{pad}    return {body()}"]
        return [f"{pad}{n} = lambda u: {body()}"]

    lines = ["def f(x, y):", "    acc = 0.0"] + define("    ", "g") + define("    ", "h")
    for _ in range(draw(st.integers(1, 3))):
        form = draw(st.sampled_from(["if", "if_else", "loop", "nested", "call"]))
        n = name()
        if form == "call":
            lines.append(f"    acc = acc + {n}(x)")
        elif form in ("if", "if_else"):
            lines.append(f"    if {draw(st.sampled_from(['x > y', 'y > 0.25', 'x < 0.0']))}:")
            lines += define("        ", n)
            if draw(st.booleans()):
                lines.append(f"        acc = acc + {n}(y)")
            if form == "if_else":
                lines.append("    else:")
                lines += define("        ", n)
        elif form == "loop":
            lines.append(f"    for k in range({draw(st.integers(0, 2))}):")
            lines.append(f"        acc = acc + {n}(x) * (k + 1)")
            lines += define("        ", n)
        else:  # (a function whose own `def` shadows the caller's)
            other = "h" if n == "g" else "g"
            lines += [f"    def outer(u):", f"        def {n}(v):",
                      f"            return v * {draw(st.sampled_from(['3.0', 'y', 'u']))}",
                      f"        return {n}(u) + {other}(u)",
                      "    acc = acc + outer(x)"]
        lines.append(f"    acc = acc + {name()}(acc * 0.5)")
    lines.append("    return acc")
    return HELPERS + "\n".join(lines + _refusal_note({"NotDifferentiableError"})) + "\n"


ROW_BUILDS = ["rows = [[xs[0]] for _ in range(2)]", "rows = [[x] for x in xs[:2]]",
              "a = [xs[0], xs[1]]\n    rows = [a, a]", "a = [xs[0]]\n    b = [xs[1]]\n    rows = [a, b]",
              "rows = [list(xs), [xs[0] * 2.0]]"]
ROW_CHANGES = ["rows[{i}].append({e})", "for r in rows:\n        r.append({e})",
               "for i, x in enumerate(xs):\n        rows[i % 2].append({e})",
               "rows[{i}].pop()", "r = rows[{i}]\n    r.append({e})", "rows[{i}].insert(0, {e})"]


@st.composite
def nested_list_program(draw):
    """Text of a module defining ``f(xs)`` (a list of floats) that keeps lists in a
    list (``rows``; two names for one list, ``[a, a]``) and changes them through it:
    ``rows[i].append(v)``, a loop over the rows or over the items appending to
    ``rows[i % 2]``, a pop, an insert, through a name taken out of it. Each change is
    followed, or refused; never differentiated as if it had not happened."""
    e = lambda: draw(expression(["xs[0]", "xs[1]", "xs[-1]"], 1))  # noqa: E731
    lines = ["def f(xs):", "    " + draw(st.sampled_from(ROW_BUILDS))]
    for _ in range(draw(st.integers(1, 2))):
        change = draw(st.sampled_from(ROW_CHANGES))
        lines.append("    " + change.format(i=draw(st.integers(0, 1)), e=e()))
    reads = ["sum(rows[0]) * 2.0", "sum(rows[-1])", "len(rows[0]) * xs[0]"]
    if any(line.strip().startswith("a = ") for line in lines):
        reads.append("sum(a) * 3.0")
    lines.append(f"    return {' + '.join(reads)}")
    return HELPERS + "\n".join(lines + _refusal_note({"NotDifferentiableError"})) + "\n"


REFUSAL_NOTE = "# fuzz: may be refused with "


ITERATORS = {  # an iterator kept in a name -> whether it gives pairs
    "(v * {e} for v in {seq})": False, "map(lambda v: v * {e}, {seq})": False,
    "(v + {e} for v in {seq} if v > 0.3)": False, "filter(lambda v: v > 0.3, {seq})": False,
    "reversed({seq})": False, "zip({seq}, {seq2})": True, "enumerate({seq})": True,
    "((a, b * {e}) for a, b in zip({seq}, {seq2}))": True}
ITERATED = ["xs", "ys", "xs[1:]", "[x, y]", "ys + [x]"]
ELEMENTS = ["x", "y", "(x * y)", "math.sin(x)", "(x + y * y)", "math.exp(0.5 * y)"]
BETWEEN = ["x = x * y", "xs.append(x * 0.5)", "ys = [y, x * y]", "ys.append(y * y)",
           "xs = [y, 2.0 * y]", "y = y + 1.0", "xs[0] = x * y"]


RESIZING = ["for v in xs:\n    if len(xs) < 4:\n        xs.append(v * x)",
            "for i, v in enumerate(xs):\n    if len(xs) > 1:\n        acc = acc + xs.pop() * v",
            "for v in ys:\n    acc = acc + v\n    if v > 0.5:\n        del ys[0]",
            "i = 0\nwhile i < len(xs):\n    if len(xs) < 4:\n        xs.append(xs[i] * y)\n"
            "    i += 1",
            "same = xs\nfor v in xs:\n    if len(same) < 4:\n        same.append(v * x)",
            "for v in xs:\n    if len(xs) < 4:\n        xs += [v * y]",
            "for v in xs:\n    grow_to(xs, 4, v * x)"]
# a generator drawn from until `any`/`all` knows (its walrus sees the last item drawn)
SHORT_CIRCUITS = ["if any((z := v * x) > 0.3 for v in xs):\n    acc = acc + z",
                  "if all((z := v + y) < 0.8 for v in xs):\n    acc = acc - z\nacc = acc + z",
                  "acc = acc + any(v > 0.5 for v in ys) * x"]


@st.composite
def iterator_program(draw):
    """Text of a module defining ``f(x, y, xs)`` that keeps a generator or a builtin's
    iterator in a name (``map``, ``zip``, ``enumerate``, ``filter``, ``reversed``),
    then changes what it reads (a name rebound, the list it runs over grown or
    rebound) and uses it: once, twice (a second pass gives nothing in Python), in a
    loop; and may loop over a list its body makes longer or shorter. Each derivative
    computes what Python computes (its items from the names as they are where it is
    used, its sequence as it was where it was made; a loop over every item the list
    has as it runs), or the program is refused."""
    e = lambda: draw(st.sampled_from(ELEMENTS))  # noqa: E731
    lines = ["def f(x, y, xs):", "    xs = list(xs)", "    ys = [x * y, y]", "    acc = 0.0"]
    refusals = {"UnsupportedSyntaxError"}
    for k in range(draw(st.integers(1, 2))):
        form = draw(st.sampled_from(sorted(ITERATORS)))
        pairs = ITERATORS[form]
        if form.startswith("(("):  # (tuples a generator makes: refused in reverse mode)
            refusals.add("NotDifferentiableError")
        made = form.format(e=e(), seq=draw(st.sampled_from(ITERATED)),
                           seq2=draw(st.sampled_from(ITERATED)))
        g = f"g{k}"
        lines.append(f"    {g} = {made}")
        lines += ["    " + b for b in draw(st.lists(st.sampled_from(BETWEEN), max_size=2))]
        item = "sum(a * b for a, b in {g})" if pairs else \
            draw(st.sampled_from(["sum({g})", "max({g}, default=0.0)", "sum(list({g}))"]))
        use = draw(st.sampled_from(["once", "once", "loop", "twice", "in a loop"]))
        if use == "loop":
            target = "a, b" if pairs else "v"
            lines += [f"    for {target} in {g}:",
                      f"        acc = acc + {'a * b' if pairs else 'v'} * x"]
        elif use == "in a loop":
            lines += ["    for _ in range(2):", f"        acc = acc + {item.format(g=g)}"]
        else:
            lines.append(f"    acc = acc + {item.format(g=g)}")
            if use == "twice":
                lines.append(f"    acc = acc + 2.0 * {item.format(g=g)}")
    if draw(st.booleans()):
        lines += ["    " + line for line in draw(st.sampled_from(SHORT_CIRCUITS)).split("\n")]
    if draw(st.booleans()):  # (a loop over a list that grows or shrinks as it runs)
        lines += ["    " + line for line in draw(st.sampled_from(RESIZING)).split("\n")]
    lines.append("    return acc * x + sum(xs) * y")
    return HELPERS + "\n".join(lines + _refusal_note(refusals)) + "\n"


def _refusal_note(refusals):
    return [REFUSAL_NOTE + ", ".join(sorted(refusals))] if refusals else []


# in a note: reverse mode may refuse a name that holds different arrays on different
# paths (an argument on one, a new array on the other) and is read by index, as the
# README says; forward mode must take it
JOIN = "JOIN"


def allowed_refusals(text):
    """The names of the S2SADError classes a generated program may be refused with
    (S2SADError itself: any; `JOIN`: see there), from the note its generator wrote at
    its end; for every other program a refusal is a failure."""
    for line in text.splitlines():
        if line.startswith(REFUSAL_NOTE):
            return tuple(line[len(REFUSAL_NOTE):].split(", "))
    return ()


# ------------------------------------------------------------------ array programs

A_UNARY = ["np.sin({0})", "np.tanh({0})", "np.exp(np.tanh({0}))", "np.sqrt(1.0 + {0} * {0})",
           "{0} / (1.0 + {0} * {0})", "-{0}", "{0} ** 2", "np.log1p({0} * {0})",
           "np.abs({0})", "np.arctan({0})"]
A_BINARY = ["{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / (2.0 + np.tanh({1}))",
            "np.maximum({0}, {1})", "np.where({1} > 0.0, {0}, 0.5 * {1})"]


def _has_rule(name):
    from s2sad import primitives as rules
    return rules.has_rule(getattr(np, name, None))


# shape-changing operations given negative axes (and tuples of them), on 2-D and 3-D
# arrays: each must reverse to the axes it names, which count from the end
NEGATIVE_AXES = {
    "s": ["np.sum({m}, axis=(-2, -1))", "np.mean({m}, axis=(-1, 0))",
          "np.sum(np.stack([{m}, {m} * {s}], axis=-1), axis=(0, -1, -2))",
          "np.max({m}, axis=(-1, -2))"],
    "v": ["np.sum({m}, axis=-2)", "{m}.mean(axis=-2)", "np.min({m}, axis=-2)",
          "np.transpose({m}, (-1, 0)) @ {u}", "np.swapaxes({m}, -1, 0) @ {u}",
          "np.sum(np.stack([{m}, {m} * 2.0], axis=-1), axis=(-1, 0))",
          "np.sum(np.transpose(np.stack([{m}, {v} * {m}]), (-1, 0, -2)), axis=(1, -1))",
          "np.prod({m}, axis=-2)", "np.var({m}, axis=-2)",
          "np.concatenate([{u}, {v}], axis=-1)[1:4]",
          "np.squeeze(np.expand_dims({v}, axis=-1), axis=-1)"],
    "m": ["np.stack([{u}, {u} * 2.0, {u}], axis=-1)", "np.stack([{v}, {v}], axis=-2)",
          "np.expand_dims({u}, -1) * {m}", "np.expand_dims({v}, axis=-2) * {m}",
          "np.concatenate([{m}, {m}], axis=-1)[:, 2:5]",
          "np.transpose(np.transpose({m}, (-1, -2)) * {v}[:, None], (-1, 0))",
          "{m} - np.mean({m}, axis=-1, keepdims=True)",
          "{m} / (1.0 + np.sum({m} * {m}, axis=-2, keepdims=True))"],
    "u": ["np.sum({m}, axis=-1)", "np.mean({m}, axis=-1)", "{m}.max(axis=-1)",
          "np.linalg.norm(1.0 + {m} * {m}, axis=-1)", "np.std({m}, axis=-1)",
          "{v} @ np.transpose({m}, (-1, 0))", "{v} @ np.swapaxes({m}, 0, -1)",
          "np.sum({m}, axis=-1, keepdims=True)[:, 0]", "np.min({m}, axis=(-1,))",
          "np.sum({m}, axis=-1) + np.sum({m}.T, axis=-2)"],
}
if _has_rule("moveaxis"):
    NEGATIVE_AXES["v"].append("np.moveaxis({m}, -1, 0) @ {u}")
    NEGATIVE_AXES["u"].append("np.sum(np.moveaxis(np.stack([{m}, {m}]), 0, -1), axis=(-1, -2))")

# the templates above that name the rows of w (two), and what they read for three
ROWS3 = {"np.array([{s}, {s}])": "np.array([{s}, {s}, {s}])",
         "{v}[1:]": "{v}[0:]",
         "np.concatenate([{u}, {v}[1:2]])": "np.concatenate([{u}, {v}[1:2]])[1:]",
         "np.stack([{v}, {v}])": "np.stack([{v}, {v} * 0.5, {v}])",
         "np.stack([{v}, {v}], axis=-2)": "np.stack([{v}, {v}, {v} * 2.0], axis=-2)"}


def _has_stats():
    try:
        from scipy import stats  # noqa: F401
    except ImportError:
        return False
    return True


# the density of the rows of a matrix (points) about a mean of shape (3,): a rule
# whose result (one value per row) is not the shape of its terms (one per entry), so
# with three rows the mean has the result's shape and its term must still be summed
MVN = "stats.multivariate_normal.logpdf({m}, {v}, np.eye(3) + 0.1 * ({m}.T @ {m}))"
# (and log-sum-exp with weights, which carry the derivative too)
STATS = {"s": ["np.sum(" + MVN + ")", "special.logsumexp({v}, b=1.0 + {v} * {v})"],
         "u": [MVN, MVN + " * {u}", "special.logsumexp({m}, axis=-1, b=np.exp({m}))"],
         "m": ["np.expand_dims(" + MVN + ", -1) * {m}"]} if _has_stats() else {}


@st.composite
def array_expr(draw, shape, env, depth=2):
    """An expression of `shape` ('s' scalar, 'v' (3,), 'm' (rows, 3), 'u' (rows,), with
    env["rows"] 2 or 3) over the names in env[shape]."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if shape == "s" and draw(st.integers(0, 4)) == 0:
            return repr(draw(st.sampled_from([0.5, 2.0, -1.25])))
        return draw(st.sampled_from(env[shape]))
    d = depth - 1
    choice = draw(st.integers(0, 3))
    if choice == 0:  # elementwise unary
        return "(" + draw(st.sampled_from(A_UNARY)).format(draw(array_expr(shape, env, d))) + ")"
    if choice == 1:  # elementwise binary, maybe broadcast against a scalar or smaller rank
        other = shape
        if shape != "s" and draw(st.booleans()):
            other = draw(st.sampled_from(["s"] + (["v"] if shape == "m" else [])))
        a, b = draw(array_expr(shape, env, d)), draw(array_expr(other, env, d))
        if draw(st.booleans()):
            a, b = b, a
        return "(" + draw(st.sampled_from(A_BINARY)).format(a, b) + ")"
    # shape-changing: reductions, indexing, products
    options = {
        "s": ["np.sum({v})", "np.mean({m})", "{v}[0]", "{v}[-1]", "{m}[1, 2]", "np.dot({v}, {v})",
              "np.max({v})", "{m}.sum()", "np.prod({u})", "np.linalg.norm({v})", "{u} @ {u}",
              "np.var({v})",
              # (a setting of unknown kind times a number: the number's adjoint is a sum)
              "np.sum(SETTINGS['w'] * {s})", "np.sum({v} * SETTINGS['w']) * {s}",
              "np.sum((SETTINGS['w'][:3] > 0.0) * {s})",
              "np.correlate({v}, {v})[0]",
              # (integrals and interpolation: a point on a knot is a kink `smooth` sees)
              "np.trapezoid({v})", "np.trapezoid({v}, {v} * 0.5)", "np.trapezoid({v}, dx={s})",
              "np.interp({s}, np.array([-1.0, 0.0, 1.5]), {v})"],
        "v": ["np.sum({m}, axis=0)", "{m}[0]", "{m}[1]", "{v}[::-1]", "{u} @ {m}",
              "np.mean({m}, axis=0)", "np.concatenate([{u}, {v}[1:2]])", "{m}.max(axis=0)",
              # (NumPy of a list or tuple of numbers: an array, times a number after)
              "np.sin([{s}, {s} * 0.5, {s}])", "np.maximum(({s}, {s}, 0.5), {s})",
              # (a window of a convolution, picks along an axis with repeats)
              "np.convolve({v}, {u}, 'same')", "np.correlate({u}, {v}, 'full')[1:4]",
              "np.take_along_axis({m}, np.array([[1, 0, 1]]), axis=0)[0]",
              "np.take_along_axis({v}, np.array([2, 0, 2]), None)",
              "np.trapezoid({m}, axis=0)", "np.interp({v}, np.array([-0.5, 0.5, 2.0]), {v})",
              "np.bincount(np.array([2, 0, 2]), weights={v}, minlength=3)",
              # (an array of a kind unknown to the compiler, carrying a derivative)
              "SETTINGS['w'][:3] * {s}", "SETTINGS['w'][:3] + {s}",
              "{s} - SETTINGS['w'][:3]", "sum(({s}, {v}))", "sum([{v}, {s} * {v}])",
              # (compared, it is an array of bools; an exponent, no number either)
              "np.where(SETTINGS['w'][:3] > {s}, {s}, 2.0 * {s})",
              "(1.0 + {s} * {s}) ** (SETTINGS['w'][:3] + 2.0)",
              # (a tuple sliced by literals: the tuple of the items it picks; last in
              # the list, so CI's derandomized draws of the others stay)
              "({s} * {v}, {v}, {s})[1:][0]", "({m}[0], {s}, {v} * {s})[::-2][0]",
              # (rows unpacked, of an array then scaled, and of one of unseen kind)
              "g_rows({m} * 2)", "g_rows(SETTINGS['w'][:2, None] * {v})"],
        "m": ["np.outer({u}, {v})", "{v} * {m}", "{m} - np.mean({m}, axis=1, keepdims=True)",
              "np.stack([{v}, {v}])", "{m}[::-1]",
              # (the built-in sum of values of several shapes: each item's adjoint is
              # the sum's, summed back to the item's shape)
              "sum(({m}, {v}))", "sum([{v}, {m}, {s}])", "sum(({s}, {m}))"],
        "u": ["{m} @ {v}", "np.sum({m}, axis=1)", "{m}[:, 0]", "{v}[1:]", "{m}[:, 1:].sum(axis=1)",
              "np.array([{s}, {s}])", "sum([{u}, {s}, {u}])",
              "np.take_along_axis({m}, np.argmax({m}, axis=1)[:, None], axis=1)[:, 0]"],
    }
    if draw(st.integers(0, 2)) == 0:
        options = NEGATIVE_AXES
    elif shape in STATS and draw(st.integers(0, 3)) == 0:
        options = STATS
    template = draw(st.sampled_from(options[shape]))
    if env.get("rows") == 3:
        template = ROWS3.get(template, template)
    fills = {k: draw(array_expr(k, env, d)) for k in "svmu" if "{" + k + "}" in template}
    return "(" + template.format(**fills) + ")"


# Arrays held in lists and tuples, then changed in place through one name or another:
# the container and the name are the same array, so the change shows through both.
# {a}, {c}: fresh arrays of shape (3,) (copies) the lines make; {lst}, {p}, {q}, {j}:
# fresh names; {E}, {E2}, {E3}: expressions of shape (3,); {S}: of a number; {OP}: an
# in-place operator; {IDX}: an index or slice. The last line defines {out}.
CONTAINER_CASES = [
    # in place through the list's element
    ["{lst} = [{a}, {c}]", "{lst}[0] {OP} {S}", "{out} = {lst}[0] * {a} + {lst}[1]"],
    ["{lst} = [{c}, {a}]", "{lst}[-1] {OP} {E3}", "{out} = {lst}[1] + {a} * {S}"],
    # writing into the element through the list
    ["{lst} = [{a}, {c}]", "{lst}[0][{IDX}] = {S}", "{out} = {a} + {lst}[0] * {lst}[1]"],
    ["{lst} = [{a}, {c}]", "{lst}[1][{IDX}] {OP} {S}", "{out} = {c} * {lst}[1] + {a}"],
    # an element taken out of the list, changed in place
    ["{lst} = [{a}, {c}]", "{p} = {lst}[0]", "{p} {OP} {S}", "{out} = {lst}[0] + {p} * {a}"],
    # the name changed after the list took it
    ["{lst} = [{a}, {c}]", "{a} {OP} {S}", "{out} = {lst}[0] * {c} + {a}"],
    ["{lst} = [{a}, {c}]", "{a}[{IDX}] = {S}", "{out} = {lst}[0] + {a}"],
    # tuples: packing, unpacking, then in place
    ["{lst} = ({a}, {c})", "{p}, {q} = {lst}", "{p} {OP} {q}", "{out} = {lst}[0] + {a} * {q}"],
    ["{lst} = {a}, {c}", "{p}, {q} = {lst}", "{q}[{IDX}] = {S}", "{out} = {lst}[1] * {c} + {p}"],
    ["{p}, {q} = {a}, {c}", "{q} {OP} {S}", "{out} = {c} + {q} * {p}"],
    # built by append, changed through a run-time index
    ["{lst} = []", "{lst}.append({a})", "{lst}.append({c})",
     "for {j} in range(len({lst})):", "    {lst}[{j}] {OP} {E3}", "{out} = {lst}[0] + {a} * {c}"],
    ["{lst} = [{a}]", "{lst}.append({a})", "{lst}[1] {OP} {S}", "{out} = {lst}[0] * {lst}[1]"],
    # a loop keeps every state, then changes the state in place (or makes a new one)
    ["{lst} = []", "for {j} in range(3):", "    {lst}.append({a})", "    {a} {OP} {S}",
     "{out} = {lst}[0] + {lst}[-1] * {a}"],
    ["{lst} = []", "for {j} in range(3):", "    {lst}.append({a})", "    {a} = {a} * {S}",
     "{out} = {lst}[0] + {lst}[-1] * {a}"],
    # numbers in a list: += rebinds the element, nothing is shared
    ["{lst} = [{S}, {a}]", "{lst}[0] += {S}", "{lst}[1] += {E3}", "{out} = {lst}[1] * {lst}[0]"],
    # views a function returns in a list, and rows an unpacking takes, then the arrays
    # written (last in the list, so CI's derandomized draws of the others stay)
    ["{lst} = np.stack([{a}, {c}])", "{p}, {q} = {lst}", "{j} = np.split({a}, 3)",
     "{lst}[0, {IDX}] = {S}", "{a}[{IDX}] = {S}", "{out} = {p} + {q} * {j}[1]"],
    # a recurrence's states, each appended made of the last (the adjoint of the append,
    # a pop, must run before the adjoint of the read of the last element)
    ["{lst} = [{a}]", "for {j} in range(2):", "    {lst}.append(np.tanh({lst}[-1]) * {S})",
     "{out} = {lst}[0] * {lst}[2] + {lst}[1]"],
]


@st.composite
def container_lines(draw, env, fresh):
    """Lines from one of `CONTAINER_CASES`, and the name of shape (3,) they define."""
    case = draw(st.sampled_from(CONTAINER_CASES))
    n = next(fresh)
    names = {k: f"{k}{n}" for k in ("a", "c", "lst", "p", "q", "j", "out")}
    a_copy = draw(st.sampled_from(["({0}).copy()", "({0}) * 1.0", "np.array({0})",
                                   "({0}) + 0.0"]))
    lines = [f"{names['a']} = {a_copy.format(draw(array_expr('v', env, 1)))}",
             f"{names['c']} = ({draw(array_expr('v', env, 1))}) * 0.5"]
    fills = dict(names, OP=draw(st.sampled_from(["+=", "*=", "-="])),
                 IDX=draw(st.sampled_from(["0", "-1", "1:", "::2", "-2:"])))
    for line in case:
        for key in ("E3", "S"):
            while "{" + key + "}" in line:
                expr = draw(array_expr("v" if key == "E3" else "s", env, 1))
                line = line.replace("{" + key + "}", expr, 1)
        lines.append(line.format(**fills))
    return lines, names["out"]


# matrices of the array programs by (rows, columns), rows standing for `rows`: what
# `layers_lines` multiplies an activation by, one layer after another
LAYERS = {("3", "rows"): ["w.T", "(w * {s}).T"], ("rows", "3"): ["w", "np.tanh(w)"],
          ("3", "1"): ["w[:1].T"], ("1", "3"): ["np.outer(x[:1], x)"],
          ("3", "3"): ["np.outer(x, x) * 0.5"], ("rows", "1"): ["w[:, :1]"],
          ("1", "rows"): ["w[:, :1].T * {s}"]}


@st.composite
def layers_lines(draw, env, name):
    """A loop over a list of matrices of other shapes, one layer each (an MLP's
    layers of other widths): the array it carries changes its shape from one
    iteration to the next, and is read by index after the loop (which makes its
    adjoint one array updated in place), then summed into the number `name`."""
    width, chain = "3", []
    for _ in range(draw(st.integers(1, 4))):
        out = draw(st.sampled_from([o for (i, o) in LAYERS if i == width]))
        chain.append(draw(st.sampled_from(LAYERS[(width, out)])))
        width = out
    if width != "3":
        chain.append(draw(st.sampled_from(LAYERS[(width, "3")])))
    chain = [m.replace("{s}", draw(array_expr("s", env, 1))) for m in chain]
    h = f"h{name}"
    step = draw(st.sampled_from(["np.tanh({h} @ M)", "{h} @ M + 0.5",
                                 "np.tanh({h} @ M) if i < {n} else {h} @ M"]))
    return [f"{h} = {draw(array_expr('v', env, 1))}",
            f"for i, M in enumerate([{', '.join(chain)}]):",
            "    " + f"{h} = " + step.format(h=h, n=len(chain) - 1),
            f"{name} = {h}[0] * {draw(array_expr('s', env, 1))} + np.sum({h} * {h})"]


@st.composite
def array_program(draw, params=False, rows=2, buffers=False, repeats=False):
    """``f(x, w, s)``, or with `params` ``f(params, x, s)`` that takes ``w`` and a ``b`` of
    shape (rows,) from the list ``params = [w, b]``; ``w`` has `rows` rows (2 or 3)."""
    env = {"s": ["s"], "v": ["x"], "m": ["w"], "u": ["(w @ x)"], "rows": rows}
    lines = ["import math", "", "import numpy as np", "", "import s2sad", "", "",
             # (a setting the function reads, an array of unknown kind to the compiler)
             # (and a dict the loops below may run over: its keys, as Python does)
             "SETTINGS = {'w': np.array([0.5, -1.0, 2.0]), 'order': {0: 2, 2: 1}, "
             "'idx': np.array([0, 0, 2])}", "", "",
             # (an array unpacked into its rows: its adjoint is an array, not a tuple)
             "def g_rows(m):", "    a, b = m[:2] * 2", "    return a * b + np.sum(m) * a", "", "",
             "def f(x, w, s):"]
    if STATS:
        lines[2:3] = ["import numpy as np", "from scipy import special, stats"]
    refusals = set()
    # one in four a method of an object holding a float, a vector and a matrix, which
    # it reads as `self.k`, `self.V`, `self.M` (their kinds known: the rules that pick
    # by rank, `np.dot`, `@`, `.T`, take them)
    method = not params and draw(st.integers(0, 3)) == 0
    if method:
        lines[-1] = "def f(self, x, w, s):"
        env = {**env, "s": ["s", "self.k"], "v": ["x", "self.V"], "m": ["w", "self.M"]}
    if params:
        lines[-1] = "def f(params, x, s):"
        lines += ["    " + line for line in draw(st.sampled_from([
            ["w, b = params"], ["w = params[0]", "b = params[1]"],
            ["w, b = params[0], params[-1]"], ["(w, b) = params"]]))]
        env["u"] = env["u"] + ["b", "params[1]", "(w @ x + b)"]
        env["m"] = env["m"] + ["params[0]"]
        if draw(st.booleans()):
            term = draw(st.sampled_from(["0.1 * np.sum(p * p)", "np.mean(np.tanh(p))"]))
            lines += ["    s = s * 1.0", "    for p in params:", f"        s = s + {term}"]
        if draw(st.booleans()):
            # comprehensions over the list of arrays
            lines += ["    " + draw(st.sampled_from([
                "s = s + sum(0.1 * np.sum(p * p) for p in params)",
                "s = s + 0.1 * sum([np.mean(np.tanh(p)) for p in params])",
                "s = s + 0.1 * max(np.sum(p) for p in params[::-1])",
                "s = s + 0.1 * np.sum([p * 0.5 for p in params][0])",
                "s = s + 0.1 * math.fsum(float(np.sum(p ** 2)) for p in params)"]))]
    fresh = itertools.count()
    read = []  # (names the result reads, whatever expression it draws)
    for k in range(draw(st.integers(1, 4))):
        kind = "repeats" if repeats and k == 0 else draw(st.sampled_from([
                                     "assign", "assign", "if", "loop", "write", "while",
                                     "container", "checkpointed", "comprehension",
                                     "loop_write", "one_path", "layers", "star",
                                     "complex", "scatter", "unseen", "early_return"]
                                    + ["buffers"] * 3 * buffers + ["repeats"] * 3 * repeats))
        shape = draw(st.sampled_from("svmu"))
        name = f"{shape}{next(fresh)}"
        if kind == "assign":
            lines.append(f"    {name} = {draw(array_expr(shape, env))}")
        elif kind == "if":
            if shape != "s":
                refusals.add(JOIN)
            cond = draw(array_expr("s", env, 1))
            lines.append(f"    if {cond} > 0.3:")
            lines.append(f"        {name} = {draw(array_expr(shape, env))}")
            lines.append("    else:")
            lines.append(f"        {name} = {draw(array_expr(shape, env))}")
        elif kind == "loop":
            shape = "s"
            name = f"s{next(fresh)}"
            lines.append(f"    {name} = {draw(array_expr('s', env, 1))}")
            # (over a dict of settings, whose kind the compiler cannot see: the loop
            # reads its keys 0 and 2, not its values at the keys 0 and 1)
            # (chosen from what is drawn already, by the program's length so far: a
            # draw of its own would change every program drawn after it)
            over = "SETTINGS['order']" if len(lines) % 3 == 0 else "range(len(x))"
            lines.append(f"    for i in {over}:")
            inner = dict(env, s=env["s"] + [name, "x[i]", "w[1, i]", "x[i] ** i",
                                            f"{name} ** i"])
            skip = draw(st.sampled_from(["", "break", "continue"]))
            if skip == "continue":
                lines.append(f"        if x[i] > {draw(st.sampled_from(['0.5', '-0.2']))}:")
                lines.append("            continue")
            lines.append(f"        {name} = {draw(array_expr('s', inner, 1))}")
            if over != "range(len(x))":  # (an order the result depends on)
                lines.append(f"        {name} = {name} * x[i] + w[1, i]")
            if skip == "break":
                lines.append(f"        if x[i] > {draw(st.sampled_from(['0.5', '-0.2']))}:")
                lines.append("            break")
        elif kind == "checkpointed":
            # a marked loop carrying an array and a number, `continue` maybe
            shape = "v"
            name, acc = f"v{next(fresh)}", f"s{next(fresh)}"
            options = draw(st.sampled_from(["", ", snapshots=1", ", schedule='binomial'",
                                            ", snapshots=2, schedule='binomial'"]))
            lines.append(f"    {name} = {draw(array_expr('v', env, 1))}")
            lines.append(f"    {acc} = {draw(array_expr('s', env, 1))}")
            lines.append(f"    for i in s2sad.checkpointed(range({draw(st.integers(0, 4))})"
                         f"{options}):")
            inner = dict(env, s=env["s"] + [acc, "x[i % 3]", f"{name}[i % 3]"],
                         v=env["v"] + [name])
            if draw(st.booleans()):
                lines.append(f"        if {draw(array_expr('s', inner, 1))} > "
                             f"{draw(st.sampled_from(['0.5', '-0.2']))}:")
                lines.append("            continue")
            lines.append(f"        {acc} = {draw(array_expr('s', inner, 1))}")
            lines.append(f"        {name} = {draw(array_expr('v', inner, 1))}")
            refusals.add(JOIN)  # (the loop joins the array before it with the new one)
            env["s"] = env["s"] + [acc]
        elif kind == "while":
            shape = "s"
            name = f"s{next(fresh)}"
            lines.append(f"    {name} = {draw(array_expr('s', env, 1))}")
            lines.append("    k = 0")
            lines.append(f"    while k < 3 and abs({name}) < 3.0:")
            inner = dict(env, s=env["s"] + [name, "x[k]"])
            lines.append(f"        {name} = {draw(array_expr('s', inner, 1))}")
            lines.append("        k += 1")
        elif kind == "comprehension":
            # arrays and numbers built by comprehensions, consumed by NumPy and sum
            shape = draw(st.sampled_from("sv"))
            name = f"{shape}{next(fresh)}"
            inner = dict(env, s=env["s"] + ["x[k]", "(0.5 * k)"])
            if shape == "s":
                form = draw(st.sampled_from([
                    "sum({S} for k in range(3))", "max({S} for k in range(len(x)))",
                    "sum([np.sum({V} * k) for k in range(2)])",
                    "np.sum(np.array([{S} for k in range(3) if k != 1]))"]))
            else:
                form = draw(st.sampled_from([
                    "np.array([{S} for k in range(3)])",
                    "np.sum(np.stack([{V} * (k + 1) for k in range(2)]), axis=0)",
                    "sum({V} * k for k in range(3))"]))
            while "{S}" in form or "{V}" in form:
                form = form.replace("{S}", draw(array_expr("s", inner, 1)), 1) \
                    .replace("{V}", draw(array_expr("v", inner, 1)), 1)
            lines.append(f"    {name} = {form}")
        elif kind == "container":
            shape = "v"
            body, name = draw(container_lines(env, fresh))
            lines += ["    " + line for line in body]
            refusals.add("S2SADError")
        elif kind == "loop_write":
            # a new array each turn, made of values the loop does not change, then
            # written into: one array hoisted out of the loop would carry each turn's
            # writes into the next
            shape = "s"
            acc, made = f"s{next(fresh)}", f"v{next(fresh)}"
            lines.append(f"    {acc} = {draw(array_expr('s', env, 1))}")
            lines.append(f"    for i in range({draw(st.integers(1, 3))}):")
            fresh_array = draw(st.sampled_from(["{} * 1.0", "{}.copy()", "np.zeros(3) + {}"]))
            lines.append(f"        {made} = " + fresh_array.format(
                f"({draw(array_expr('v', env, 1))})"))
            idx = draw(st.sampled_from(["0", "-1", "1:"]))
            lines.append(f"        {made}[{idx}] {draw(st.sampled_from(['=', '+=']))} "
                         f"{acc} * 0.5")
            lines.append(f"        {acc} = {acc} * 0.5 + np.sum({made}) * 0.25")
            name = acc
        elif kind == "buffers":
            # buffers that trade places each step, one written in place (`u, un = un,
            # u`), made as two copies of one value: refused in reverse mode; forward
            # mode must keep the two apart (one object for both gave another value)
            shape = "s"
            u, un, name = f"v{next(fresh)}", f"v{next(fresh)}", f"s{next(fresh)}"
            src = draw(array_expr("v", env, 1))
            copy = draw(st.sampled_from(["({}).copy()", "np.array({})", "({}) * 1.0"]))
            lines += [f"    {u} = {copy.format(src)}", f"    {un} = {copy.format(src)}",
                      f"    for i in range({draw(st.integers(1, 3))}):",
                      f"        {un}[{draw(st.sampled_from(['0', '1:', '::2']))}] = "
                      f"{u}[0] * {draw(array_expr('s', env, 1))}",
                      f"        {u}, {un} = {un}, {u}",
                      f"    {name} = {u}[0] + 2.0 * np.sum({un})"]
            refusals.add("NotDifferentiableError")
        elif kind == "repeats":
            # a write through an index that names an element twice, of a kind the
            # compiler may not see (a setting's array, an array method's result, a
            # search): NumPy keeps the last value written there, and only that value
            # has a derivative (reverse mode credited every value written)
            shape = "s"
            made, name = f"v{next(fresh)}", f"s{next(fresh)}"
            index = draw(st.sampled_from(["x.argsort() % 2", "(-x).argsort() // 2",
                                          "np.searchsorted(np.array([-0.5, 0.5]), x)",
                                          "SETTINGS['idx']", "np.argsort(x) % 2", "[2, 0, 2]"]))
            op = draw(st.sampled_from(["=", "+=", "*="]))
            lines += [f"    {made} = ({draw(array_expr('v', env, 1))}) * 1.0",
                      f"    {made}[{index}] {op} {draw(array_expr('v', env, 1))}",
                      f"    {name} = np.sum({made} * w[0])"]
            read.append(name)  # (the result reads it: else its write may go unseen)
        elif kind == "one_path":
            # a value bound under one `if` and read under another of the same test: on
            # the other path it is never bound (its adjoint's zero must not read it)
            shape = "s"
            made, name = f"{draw(st.sampled_from('svm'))}{next(fresh)}", f"s{next(fresh)}"
            cond = f"{draw(array_expr('s', env, 1))} > 0.3"
            lines.append(f"    if {cond}:")
            lines.append(f"        {made} = {draw(array_expr(made[0], env, 1))}")
            lines.append(f"    {name} = {draw(array_expr('s', env, 1))}")
            lines.append(f"    if {cond}:")
            lines.append(f"        {name} = {name} + np.sum({made} * {made})")
        elif kind == "star":
            # the `*` part of an array: a list in Python, read as its items or (refused)
            # joined as a list
            shape = "s"
            name, first, rest = f"s{next(fresh)}", f"f{next(fresh)}", f"r{next(fresh)}"
            use = draw(st.sampled_from([
                "{f} * sum({r})", "np.sum(np.stack({r}) ** 2) + {f}", "len({r}) * {f}",
                "{r}[-1] * {f} + max({r})", "np.sum(np.array({r} + [{s}]))"]))
            if "+ [" in use:
                refusals.add("NotDifferentiableError")
            lines.append(f"    {first}, *{rest} = {draw(array_expr('v', env, 1))}")
            lines.append(f"    {name} = " + use.format(f=first, r=rest,
                                                        s=draw(array_expr("s", env, 1))))
        elif kind == "complex":
            # complex numbers between real ones: refused, never a complex gradient
            shape = "s"
            name = f"s{next(fresh)}"
            form = draw(st.sampled_from([
                "np.sum(np.abs(np.exp(1j * {v}) + {v}) ** 2)",
                "np.sum((np.array([1 + 2j, 3j, 1.0]) * {v}).real)",
                "np.sum(np.abs({v} + 0.5j) * {s})", "np.sum({v}) * abs(3 + 4j)"]))
            refusals.add("NotDifferentiableError")
            lines.append(f"    {name} = " + form.format(v=draw(array_expr("v", env, 1)),
                                                        s=draw(array_expr("s", env, 1))))
        elif kind == "early_return":
            # a return under a test: what follows, the reads of the values computed
            # before, runs on the other path only (their adjoints are zero on this one)
            shape, name, made = "s", f"s{next(fresh)}", f"v{next(fresh)}"
            lines.append(f"    {made} = {draw(array_expr('v', env, 1))}")
            lines.append(f"    if {draw(array_expr('s', env, 1))} > "
                         f"{draw(st.sampled_from(['0.3', '-0.4']))}:")
            lines.append(f"        return {draw(array_expr('s', env, 1))}")
            use = draw(st.sampled_from(["np.sum({v})", "np.sum(np.tanh({v}))",
                                        "np.mean({v} * {v})", "{s} * np.sum({v})"]))
            lines.append(f"    {name} = " + use.format(v=made, s=draw(array_expr('s', env, 1))))
            env["v"] = env["v"] + [made]
        elif kind == "layers":
            shape = "s"
            name = f"s{next(fresh)}"
            lines += ["    " + line for line in draw(layers_lines(env, name))]
        elif kind == "scatter":
            # np.add.at into an array the function made (an index named twice adds
            # twice), read before the write and after it
            shape = draw(st.sampled_from("vm"))
            name, before = f"{shape}{next(fresh)}", f"s{next(fresh)}"
            # (not the built-in sum of a display: an item of a kind the compiler cannot
            # see makes the sum's kind unknown, and a write into it is refused)
            made = draw(array_expr(shape, env, 1).filter(lambda e: "sum((" not in e
                                                          and "sum([" not in e))
            lines.append(f"    {name} = {made} * 1.0")
            lines.append(f"    {before} = np.sum({name} * {draw(array_expr(shape, env, 1))})")
            index = draw(st.sampled_from(
                ["np.array([0, 2, 2])", "[1, 1, 0]", "np.array([2, 0, 1])"] if shape == "v"
                else ["np.array([0, 0])", "[1, 0, 1]", "(np.array([0, 1]), np.array([2, 2]))"]))
            value = draw(array_expr(draw(st.sampled_from("sv")), env, 1))
            if index.startswith("("):
                value = draw(array_expr("s", env, 1))  # (one element per pair)
            if draw(st.integers(0, 3)) == 0:
                # (a view of it read after the add, which the add changes: refused,
                # as after ``a[i] += v``)
                view = f"s{next(fresh)}"
                lines.append(f"    {view} = {name}[1:]")
                lines.append(f"    np.add.at({name}, {index}, {value})")
                lines.append(f"    {before} = {before} + np.sum({view})")
                refusals.add("NotDifferentiableError")
            else:
                lines.append(f"    np.add.at({name}, {index}, {value})")
            env["s"] = env["s"] + [before]
        elif kind == "unseen":
            # `u op= ...` on a value of a kind the compiler cannot see (an array, from
            # the settings): followed where nothing else holds it (a number at first,
            # or arithmetic's new array), refused where a copy or a list does
            shape, name, other = "s", f"s{next(fresh)}", f"a{next(fresh)}"
            made = f"v{next(fresh)}"
            start = draw(st.sampled_from(["0.0", "SETTINGS['w'][:3] * {s}"]))
            lines.append(f"    {made} = " + start.format(s=draw(array_expr("s", env, 1))))
            share = draw(st.sampled_from(["", "", f"{other} = {made}", f"{other} = [{made}]"]))
            if share:
                lines.append(f"    {share}")
            op = draw(st.sampled_from(["+=", "-=", "*="]))
            lines.append(f"    {made} {op} SETTINGS['w'][:3] * {draw(array_expr('s', env, 1))}")
            held = other + ("[0]" if "[" in share else "") if share else made
            lines.append(f"    {name} = np.sum({held} * {made}) * {draw(array_expr('s', env, 1))}")
        else:  # write into an array the function made
            shape = "v"
            lines.append(f"    {name} = {draw(array_expr('v', env, 1))}.copy()")
            # (integer arrays and lists that name an element twice keep one value)
            idx = draw(st.sampled_from(["0", "-1", "1:", "x > 0.0", "[0, 2, 0]",
                                        "np.array([2, 2, 1])", "[2, 0]",
                                        "np.array([1, -2, 1])"]))
            val = draw(array_expr("s", env, 1))
            if idx in ("1:", "[2, 0]") and draw(st.booleans()):  # (an array into the slice)
                val = f"{draw(array_expr('v', env, 1))}[1:]"
            elif idx.count(",") == 2 and draw(st.booleans()):  # (three values, three slots)
                val = draw(array_expr("v", env, 1))
            # (a new array made from it beforehand, whose tangent may be its own: the
            # write must not change that array's tangent)
            other = draw(st.sampled_from(["", "", "{} + np.arange(3.0)", "{} * 1.0",
                                          "{}[::-1] - 0.5", "{}.flatten()"]))
            if other:
                made = f"v{next(fresh)}"
                lines.append(f"    {made} = " + other.format(name))
                env["v"] = env["v"] + [made]
            op = draw(st.sampled_from(["=", "+=", "*="]))
            lines.append(f"    {name}[{idx}] {op} {val}")
        env[shape] = env[shape] + [name]
    lines.append(f"    return {draw(array_expr('s', env, 2))}" + "".join(f" + {n}" for n in read))
    if any("SETTINGS['w'][:3]" in line for line in lines):
        # (an array of a kind the compiler cannot see: read by index, by np.dot or
        # written into, it is refused)
        refusals |= {"NotDifferentiableError", "NoRuleError"}
    if method:
        lines += ["", "", "class Prog:", "    def __init__(self, rows):", "        self.k = 0.75",
                  "        self.V = np.array([0.5, -1.0, 2.0])",
                  "        self.M = np.linspace(-1.0, 1.0, 3 * rows).reshape(rows, 3)", "",
                  "    f = f", "", "", f"f = Prog({rows}).f"]
    return "\n".join(lines + _refusal_note(refusals)) + "\n"


# ------------------------------------------------------------------ malformed programs

# (where, text): "stmt" lines go into the body of f (indented by 4), "sig" replaces
# the signature, "top" goes before f, "ret" replaces the return expression
ODDITIES = [
    ("stmt", "v = v + D_SQ(x, y)"), ("stmt", "v = v * D_SQ(0.5)"),
    ("stmt", "v = v + D_SQ_FWD(y, x)[1]"), ("ret", "H_SQ(v) * x + v"),
    ("stmt", "d = functools.partial(D_SQ, b=y)\nv = v + d(x)"),
    ("stmt", "try:\n    v = x * 2.0\nexcept ValueError:\n    v = y"),
    ("stmt", "with open(__file__) as fh:\n    v = x"),
    ("stmt", "global G\nG = x"),
    ("stmt", "def inner():\n    nonlocal v\n    v = 2.0\ninner()"),
    ("stmt", "del v"),
    ("stmt", "h = lambda t: t * 2.0\nv = h(x)"),
    ("stmt", "v = sum([t * x for t in range(3)])"),
    ("stmt", "v = sum(t * x for t in range(3))"),
    ("stmt", "v = {t: x for t in range(2)}[1]"),
    ("stmt", "v = len({x, y})"),
    ("stmt", "v = float(f'{x:.3f}')"),
    ("stmt", "v = (w := x * 2.0) + w"),
    ("stmt", "match 1:\n    case 1:\n        v = x\n    case _:\n        v = y"),
    ("stmt", "class C:\n    pass\nv = x"),
    ("stmt", "def inner(t):\n    return t * x\nv = inner(y)"),
    ("stmt", "v = undefined_name * x"),
    ("stmt", "v = str(x)"),
    ("stmt", "v = float(str(x))"),
    ("stmt", "v = hash(x) * x"),
    ("stmt", "v = id(x) * 0.0 + x"),
    ("stmt", "v = bisect.bisect([0.0, 1.0], x) * x"),
    ("stmt", "v = math.gamma(1.5 + x * x)"),
    ("stmt", "v = math.factorial(3) * x"),
    ("stmt", "v = divmod(x, 0.7)[1]"),
    ("stmt", "v = pow(x, 2)"),
    ("stmt", "v = round(x, 2) + x"),
    ("stmt", "v = int(x) + x"),
    ("stmt", "v = complex(x, y).real"),
    ("stmt", "v = x.real + x.conjugate()"),
    ("stmt", "v = sorted([x, y])[0]"),
    ("stmt", "v = getattr(math, 'sin')(x)"),
    ("stmt", "v = eval('x * 2.0')"),
    ("stmt", "exec('v = 1.0')"),
    ("stmt", "v = [x, y]\nv.sort()\nv = v[0]"),
    ("stmt", "v = [x, y]\nv.insert(0, x)\nv = v[0]"),
    ("stmt", "v, *rest = [x, y, x]"),
    ("stmt", "(a, *b), c = [x, y, x], y\nv = a * c + sum(b)"),
    ("stmt", "a, *b = c, *d = [x, y]\nv = a * c + sum(b) * sum(d)"),
    ("stmt", "for a, *b in [[x, y], [y, x]]:\n    v = a * sum(b)"),
    ("stmt", "v = [*[x, y], x][2] + sum([*(x, y)])"),
    ("stmt", "v = g_star(*[x, y]) + g_star(*(y,))"),
    ("stmt", "v = sorted([x, y], key=abs)[0]"),
    ("stmt", "v = sorted((t * x for t in range(3)), reverse=True)[1]"),
    ("stmt", "v = min((t * x for t in range(3)), key=abs)"),
    ("stmt", "v = max((t * x for t in range(3) if t > 5), default=y)"),
    ("stmt", "v = min(x, y, x * y, default=0.0)"),
    ("stmt", "v = sum({t: t * x for t in range(2)}.values())"),
    ("stmt", "v = max({t * x for t in range(3)})"),
    ("stmt", "v = x\nfor w in {0.5, 2.0, 0.5}:\n    v = v + w * y"),
    ("stmt", "v = x\nfor k, w in {'a': 0.5, 'bc': 2.0}.items():\n    v = v * w + len(k) * y"),
    ("stmt", "d = {0: 0, 1: 0}\nv = x\nfor k in d:\n    v = v + (k + 1) * y"),
    ("stmt", "v = sum(x * t for t in range(2) for t in range(t + 1))"),
    ("stmt", "v = [x for x in [y]][0] + x"),
    ("stmt", "v = sum(x for _ in range(2)) if y > 0 else min(y for _ in [])"),
    ("stmt", "v = math.fsum([x, y]) + math.prod([x, y], start=2.0)"),
    ("stmt", "ys = [x]\nys.extend(t * y for t in range(2))\nv = ys.pop() * ys.pop()"),
    ("stmt", "for t in range(2):\n    if t > x:\n        break\nelse:\n    v = x * y"),
    ("stmt", "v = u = x"),
    ("stmt", "a, b = x"),
    ("stmt", "v = x[0]"),
    ("stmt", "v = x @ y"),
    ("stmt", "assert x > -10.0\nv = x"),
    ("stmt", "if x > 100.0:\n    raise ValueError('too big')\nv = x"),
    ("stmt", "import math as m2\nv = m2.sin(x)"),
    ("stmt", "try:\n    print(x)\nexcept ValueError:\n    pass\nv = x"),
    ("stmt", "cfg = {'s': 2.0, 'n': 3}\nv = x * cfg['s'] ** cfg['n']"),
    ("stmt", "with np.errstate(all='ignore'):\n    v = np.log(x * x + 1.0)"),
    ("stmt", "assert x == x, f'x={x:.2f}'\nv = x"),
    ("stmt", "v = x\nprint(f'{v:.3f}', {'k': y}, {1, 2})"),
    ("stmt", "pass\nv = x"),
    ("stmt", "for t in range(2):\n    v = x\nelse:\n    v = y"),
    ("stmt", "while False:\n    pass\nelse:\n    v = y"),
    ("stmt", "v = print(x) or x"),
    ("stmt", "v = isinstance(x, float) * x"),
    ("stmt", "v = type(x)(2.0) * x"),
    ("stmt", "v = (lambda: x)()"),
    ("stmt", "v = x if 'a' else y"),
    ("stmt", "v = 'a' * 2"),
    ("stmt", "v = b'ab'"),
    ("stmt", "v = ...\nv = x"),
    ("stmt", "v = None\nv = v + x"),
    ("stmt", "v = not x"),
    ("stmt", "v = x and y"),
    ("stmt", "v = 0.0 < x < 1.0"),
    ("stmt", "v = [x, y][1:]"),
    ("stmt", "v = (x, y)[y > 0.0]"),
    ("stmt", "v = {'a': x}['a']"),
    ("stmt", "v = x\nv.attr = 2.0"),
    ("stmt", "v = super()"),
    ("stmt", "v = x\nyield v"),
    ("stmt", "v = x\nawait v"),
    ("stmt", "v = g_star(*[x, y])"),
    ("stmt", "v = g_star(**{'a': x, 'b': y})"),
    ("stmt", "v = g_star(x, b=y, c=x)"),
    ("stmt", "v = g_star(x)"),
    ("stmt", "v = CONST * x"),
    ("stmt", "v = GLOBAL_LIST[0] * x"),
    ("stmt", "GLOBAL_LIST.append(x)\nv = x"),
    ("stmt", "v = np.array([x, y])\nv = v.sum()"),
    ("stmt", "v = np.i0(x)"),
    ("stmt", "v = np.sort(np.array([x, y]))[0]"),
    ("stmt", "v = x\nfor t in range(3):\n    for q in range(2):\n        if x > 5.0:\n            return x"),
    ("stmt", "v = [x for _ in range(2)]\nv = v[0]"),
    ("stmt", "v = " + "(" * 60 + "x" + ")" * 60),
    ("stmt", "v = x\n" + "v = v + 1.0\n" * 40),
    ("stmt", "v = x\nif x > 0.0:\n    return x, y"),
    ("sig", "def f(x, y, *args):"),
    ("sig", "def f(x, y, **kwargs):"),
    ("sig", "def f(x, y, *, z=1.0):"),
    ("sig", "def f(x, /, y):"),
    ("sig", "def f(x, y=1):"),
    ("sig", "async def f(x, y):"),
    ("sig", "def f(x: float, y: 'float' = 2.0) -> float:"),
    ("top", "@staticmethod"),
    ("top", "@functools.lru_cache(maxsize=None)"),
    ("ret", "x, y"),
    ("ret", "[x, y]"),
    ("ret", "None"),
    ("ret", "'x'"),
    ("ret", "int(x)"),
    ("ret", "x > y"),
    ("ret", "{'a': x}"),
    ("ret", "np.array([x, y])"),
    ("ret", ""),
    # (a value with a derivative stored where the function reads it back from, but
    # the derivative cannot follow it: refused, never a derivative without that path)
    ("stmt", "GLOBAL_LIST.append(x * y)\nv = GLOBAL_LIST[-1] + x"),
    ("stmt", "keep(x * y)\nv = BOX.v + x"),
    ("stmt", "BOX.hist.append(x * y)\nv = BOX.hist[-1] + y"),
    ("stmt", "BOX.remember(x * y)\nv = BOX.v * x"),
    ("stmt", "GLOBAL_ARRAY.fill(x)\nv = np.sum(GLOBAL_ARRAY) + y"),
    ("stmt", "np.copyto(GLOBAL_ARRAY, x * y)\nv = GLOBAL_ARRAY[0]"),
    ("stmt", "held = GLOBAL_LIST\nheld.append(x * y)\nv = GLOBAL_LIST[-1]"),
    ("stmt", "r = GLOBAL_LIST.append(x * y)\nv = GLOBAL_LIST[-1] + x"),
    ("stmt", "try:\n    GLOBAL_LIST.append(x * y)\nexcept ValueError:\n    pass\n"
             "v = GLOBAL_LIST[-1]"),
    ("stmt", "GLOBAL_LIST.append(f'{x * y:.3f}')\nv = x * y"),
    # an object's own operator, an object array, a position given by `__index__`, a
    # list grown by a tuple or made of one (refused, where once an internal error or a
    # number's rule came out)
    ("stmt", "v = SCALE * x + y * SCALE"),
    ("stmt", "v = np.sum(np.array([x, y], dtype=object) * x)"),
    ("stmt", "ys = [x, y]\nv = ys.pop(POSITION) * x"),
    ("stmt", "ys = [x, y]\nys.insert(POSITION, x * y)\nv = ys[1]"),
    ("stmt", "ys = [x]\nys += (y, x * y)\nv = ys[2]"),
    ("stmt", "ys = list((x, y * x))\nv = ys[1]"),
    # a term switched off with None (the branch never runs: decided where the
    # derivative is built), a float whose `+` is its own (refused)
    ("stmt", "off = None\nif off is not None:\n    v = v * off"),
    ("stmt", "if OFF is not None:\n    v = v + OFF * x"),
    ("stmt", "v = x + OFFSET"),
    # (appended last: the derandomized draws of the others stay) a default computed
    # but not used where the sequence has items gets no adjoint; a name a `while`
    # condition assigns leaves the loop with the last test's value
    ("stmt", "v = max([x, y * 2.0], default=x * y)"),
    ("stmt", "v = min((t * x for t in range(3) if t > 0), default=y * y, key=abs)"),
    ("stmt", "v = max((t * x for t in range(3) if t > 5), default=y * y + x)"),
    ("stmt", "s = 0.0\nk = 0\nwhile (s := s + x * y) < 2.0 and k < 6:\n    k += 1\nv = s"),
    ("stmt", "r = 1.0\nwhile abs(r := r * 0.5 - x * 0.01) > 0.1:\n    pass\nv = r * y + x"),
]

MALFORMED_HEADER = '''import bisect
import functools
import math

import numpy as np

import s2sad

CONST = 2.5
GLOBAL_LIST = [1.0]
GLOBAL_ARRAY = np.zeros(3)


class Box:
    def __init__(self):
        self.v, self.hist = 0.0, [0.0]

    def remember(self, a):
        self.v = a


BOX = Box()


def keep(a):
    BOX.v = a


class Scale:
    def __mul__(self, a):
        return 2.0 * a * a

    __rmul__ = __mul__


class Position:
    def __index__(self):
        return 1


class Offset(float):
    def __radd__(self, a):
        return 10.0 * a + float(self)


SCALE, POSITION, OFF, OFFSET = Scale(), Position(), None, Offset(2.0)


def g_star(a, b=1.0, *rest, **kw):
    return a * b


def g_sq(a, b=1.0):
    return a * a * b


# (derivatives s2sad made, called inside: their text is the function they came from)
D_SQ = s2sad.grad(g_sq)
D_SQ_FWD = s2sad.grad(g_sq, wrt=(0, 1), mode="forward")
H_SQ = s2sad.hessian(g_sq)


'''


@st.composite
def malformed_program(draw):
    """(text, wrt, args): an otherwise valid f(x, y) with oddities mixed in, the
    `wrt` to ask for (sometimes a bad one) and the arguments (sometimes ints)."""
    oddities = draw(st.lists(st.sampled_from(ODDITIES), min_size=1, max_size=2))
    sig = "def f(x, y):"
    top, ret = [], "v * y + x"
    body = ["v = x + y"]
    for where, text in oddities:
        if where == "sig":
            sig = text
        elif where == "top":
            top.append(text)
        elif where == "ret":
            ret = text
        else:
            body += text.splitlines()
    if draw(st.booleans()):
        body = ["v = math.sin(x) * y"] + body + ["v = v + x * x"]
    lines = top + [sig] + ["    " + b for b in body] + [f"    return {ret}".rstrip()]
    wrt = draw(st.sampled_from([0, 1, (0, 1), "x", ("x", "y"), 5, "z", (0, 0), 1.5, None,
                                (), [0, 1], True]))
    args = draw(st.sampled_from([(0.7, 1.3), (0.7, 2), (1, 2), (0.7, [1.0, 2.0]),
                                 (np.array([0.5, 1.5]), 1.3), ("a", 1.0), (0.7, None)]))
    return MALFORMED_HEADER + "\n".join(lines) + "\n", wrt, args
