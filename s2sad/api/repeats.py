"""`Repeats`: the derivatives that run a function more than once at one point (a
Jacobian or a Hessian by forward mode, one pass per input number; the gradient by
forward mode) see the same function every time.

A function that draws random numbers is another function at each call, and a matrix
built from passes that drew differently belongs to none of them: a Hessian that is
not symmetric, a gradient whose entries come from different draws. So before each
pass after the first, `Repeats.rewind` puts back the state of every random number
generator the function can reach (NumPy's global one, the `random` module's, and a
`np.random.Generator`, `RandomState` or `random.Random` among its arguments, their
items and attributes, or the globals and closures of its code and of the functions
it calls), so that every pass draws what the first drew, and the generators end where
one call leaves them. What no rewinding can make the same (a generator made inside
the function without a seed, a clock, a global the function changes) `Repeats.same`
catches: the passes' values at one point must be equal to the bit, or the derivative
refuses with an error, never a mixed matrix.

Imports `errors` and `api.shapes`.
"""

from __future__ import annotations

import contextlib
import functools
import random
import types

import numpy as np

from ..errors import S2SADError
from ..transform.checkpointing import DRAW_NAMES, RANDOM_OWNERS as _OWNERS
from . import shapes

_UNSEEN = object()


class Repeats:
    """The passes of one derivative of `f` at the point `arguments` (`what` names
    the derivative in errors)."""

    def __init__(self, f, arguments: dict, what: str):
        self.f, self.what = f, what
        # (putting a generator back costs tens of microseconds: only where the code
        # `f` reaches names a draw; a draw it does not reach, `same` catches)
        self.draws = _may_draw(f, arguments)
        self.owners = _reachable(f, arguments) if self.draws else []
        self.states = [_state(o) for o in self.owners]
        self.runs = 0
        self.first = _UNSEEN

    def again(self, run, got):
        """After the first run of a function whose code draws random numbers: `run` it
        once more from the same generator states, and refuse unless everything it gives
        (its value and its tangents, or what a vjp saved) is `got`, to the bit. The
        values alone can agree where the draws change only a derivative (a Hessian at
        a minimum): a generator the function makes itself, or one out of reach, shows
        here instead."""
        if self.draws and self.runs == 1:
            self.rewind()
            if not _equal(run(), got):
                raise self.mixed()

    def rewind(self):
        """Before a run of `f`: every generator it reaches back where it was before the
        first run (nothing to do before the first)."""
        if self.runs:
            for owner, state in zip(self.owners, self.states):
                _restore(owner, state)
        self.runs += 1

    @contextlib.contextmanager
    def apart(self):
        """A run of `f` after its result was given (`vjp`'s pullback called again): it
        draws what the first run drew, and leaves the generators where they were
        before it."""
        now = [_state(o) for o in self.owners]
        self.rewind()
        try:
            yield
        finally:
            for owner, state in zip(self.owners, now):
                _restore(owner, state)

    def same(self, value):
        """After a run: `value` (its output, or the gradient a pass of forward mode over
        the gradient gives) must be the first run's, to the bit."""
        if self.first is _UNSEEN:
            self.first = value
        elif not _equal(self.first, value):
            raise self.mixed()

    def mixed(self) -> S2SADError:
        """The error for runs at one point that differ."""
        name = getattr(self.f, "__qualname__", "the function")
        return S2SADError(
            f"{self.what} of {name} runs it more than once, and two of these runs "
            "gave different values: it draws random numbers from a generator s2sad "
            "cannot put back between runs (one made inside it, or out of its "
            "reach), reads something that changes from call to call, or an argument "
            "was changed in place between the runs (an array given to vjp, before "
            "its pullback was called again). A derivative built from such runs "
            "would mix different functions",
            hint="Draw the random numbers outside and pass them in as an argument, "
                 "or draw from a generator the function reaches (a global, an "
                 "argument, np.random's own), which s2sad puts back between runs; "
                 "change a copy of an argument, not the array itself.")


def _reachable(f, arguments: dict) -> list:
    """The random number generators `f` can reach: NumPy's and `random`'s global ones,
    those among the arguments (two levels into lists, tuples, dicts and attributes),
    and those named by the globals or held in the closures of `f` and of the
    functions it reaches that way."""
    found = {}

    def take(value, depth):
        if isinstance(value, _OWNERS):
            found.setdefault(id(value), value)
        elif isinstance(value, types.FunctionType):
            functions.append(value)
        elif depth <= 0 or isinstance(value, (str, bytes, np.ndarray, type, types.ModuleType)):
            return
        elif isinstance(value, (list, tuple)):
            for v in value[:64]:
                take(v, depth - 1)
        elif isinstance(value, dict):
            for v in list(value.values())[:64]:
                take(v, depth - 1)
        elif isinstance(getattr(value, "__dict__", None), dict):
            for v in list(vars(value).values())[:64]:
                take(v, depth - 1)
            for v in vars(type(value)).values():  # (a generator the class holds)
                if isinstance(v, _OWNERS):
                    found.setdefault(id(v), v)

    functions = [getattr(f, "__func__", f)]
    take(np.random.mtrand._rand, 0)
    take(random._inst, 0)
    for value in arguments.values():
        take(value, 2)
    for fn in _walk(functions):  # (`take` adds the functions it meets to the walk)
        g, names = fn.__globals__, _names(fn.__code__)
        for name in names:
            if name in g:
                take(g[name], 1)
            if isinstance(g.get(name), types.ModuleType):  # (``helpers.RNG.normal()``)
                for attr in names:
                    v = getattr(g[name], attr, None)
                    if isinstance(v, _OWNERS):
                        found.setdefault(id(v), v)
        for cell in fn.__closure__ or ():
            try:
                take(cell.cell_contents, 1)
            except ValueError:  # (an empty cell)
                pass
        if fn.__defaults__:
            take(fn.__defaults__, 1)
    return list(found.values())


def _walk(todo: list):
    """The functions in `todo` and those they reach (the functions named by the
    globals their code reads, held in their closure cells, given as defaults), each
    once; `todo` may grow while the walk runs."""
    seen = set()
    while todo:
        fn = todo.pop()
        code = getattr(fn, "__code__", None)
        if code is None or code in seen or not hasattr(fn, "__globals__"):
            continue
        seen.add(code)
        yield fn
        g = fn.__globals__
        todo += [g[n] for n in _names(code) if type(g.get(n)) is types.FunctionType]
        for cell in fn.__closure__ or ():
            try:
                todo.append(cell.cell_contents)
            except ValueError:  # (an empty cell)
                pass
        todo += [d for d in fn.__defaults__ or () if type(d) is types.FunctionType]


def _may_draw(f, arguments: dict) -> bool:
    """Does the code of `f`, of the functions its globals, closure cells and defaults
    hold, of those among the arguments and of the methods of objects among them,
    read a name that draws random numbers
    (``np.random.normal``, ``rng.normal``, ``random.gauss``, ``dist.rvs``)?"""
    functions = [getattr(f, "__func__", f)]
    for v in arguments.values():  # (a function passed in; an object's methods)
        if isinstance(v, (types.FunctionType, types.MethodType)):
            functions.append(getattr(v, "__func__", v))
        elif not isinstance(v, (np.ndarray, float, int, list, tuple, dict, str)) \
                and hasattr(v, "__dict__"):
            functions += [m for m in vars(type(v)).values() if type(m) is types.FunctionType]
    return any(_names(fn.__code__) & _DRAWING for fn in _walk(functions))


_DRAWING = DRAW_NAMES | {"random"}


@functools.lru_cache(maxsize=4096)
def _names(code) -> frozenset:
    """The global and attribute names `code` and the code nested in it read."""
    return frozenset(n for c in _codes(code) for n in c.co_names)


def _codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _state(owner):
    if isinstance(owner, np.random.Generator):
        return owner.bit_generator.state
    if isinstance(owner, np.random.RandomState):
        return owner.get_state()
    return owner.getstate()


def _restore(owner, state):
    if isinstance(owner, np.random.Generator):
        owner.bit_generator.state = state
    elif isinstance(owner, np.random.RandomState):
        owner.set_state(state)
    else:
        owner.setstate(state)


def _equal(a, b) -> bool:
    """Are two values of runs at one point the same to the bit (NaN equal to NaN)?
    Arrays of a library other than NumPy count as equal (comparing a lazy one would
    compute it)."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if shapes.namespace(a) is not None or shapes.namespace(b) is not None:
        return True
    try:
        x, y = np.asarray(a), np.asarray(b)
    except Exception:
        return True
    if x.dtype == object or y.dtype == object or x.shape != y.shape:
        return x.shape == y.shape
    if x.dtype.kind in "fc" and y.dtype.kind in "fc":
        return bool(np.array_equal(x, y, equal_nan=True))
    return bool(np.array_equal(x, y))
