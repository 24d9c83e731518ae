"""Running a user's function in a world where `math` understands traced values.

Contract
--------
* `Shim().function(f)` returns a copy of the Python function `f` that runs with a
  copy of its globals (and fresh closure cells) in which the module `math`, every
  function imported from it (``from math import sin``), and the builtin ``float``
  (when `f` reads the name) are replaced by versions that accept traced values
  (`numpy` too, for ``np.asarray`` and ``np.array`` of a traced array: `_NumPy`), and
  every Python function it names (found in its globals or closure) is replaced by
  its own shimmed copy, recursively (recursion and mutual recursion included).
  Functions of the standard library, of installed packages and of s2sad itself are
  left alone. The user's module is never modified; a function that rebinds globals
  rebinds them in the copy.
* A callable the user registered a rule for (`s2sad.register_rule`) is replaced by a
  version that applies that rule to traced arguments: the tape reads the reverse
  rule, the dual numbers the forward rule, as the compiler would. A Python function
  whose rule is registered for the other mode only is followed through its code; an
  opaque callable without a rule for the engine's mode raises `EngineError`. A
  callable registered as nondifferentiable gets the primal values. A SciPy module
  (``scipy.linalg``) or an object whose methods have rules (``scipy.stats.norm``)
  is read through a proxy that gives those functions so (``linalg.cho_solve``);
  a distribution called to freeze it (``stats.norm(mu, sigma)``) gives an object
  whose methods of points call the distribution's with the parameters after the
  points, as the compiler reads them (`frontend.frozen`).
* `TRACED_MATH` is that `math`: a function with a derivative rule applies it, a
  function without one refuses traced inputs with `EngineError`, and plain inputs
  always get the real function.
* `run(f, traced_args, plain_args, kwargs, engine)` calls the shimmed `f` (a `math`
  function given as `f` becomes its traced version; other callables are called as
  they are). If the traced call raises something other than an `S2SADError`, the
  plain call is tried: when it raises too, that is the function's own error and it
  propagates; when it succeeds, the engine could not follow the function and an
  `EngineError` says what failed and where. After the call the caller's arguments are
  as the function's own run leaves them: a traced value written into one replaced by
  its primal, and a list or array traced in its place and changed in place by the
  function changed so in the caller's too.
"""

from __future__ import annotations

import builtins
import math
import os
import sysconfig
import traceback
import types

import numpy as np

from .. import primitives as rules
from ..errors import S2SADError
from ..frontend.frozen import METHODS as FROZEN_METHODS
from .primitives import EngineError, bind_options, user_place
from .traced import Traced, contains_traced, deep_primal, primal

_NONDIFFERENTIABLE_MATH = {"isclose", "gcd", "lcm", "isqrt", "factorial", "comb", "perm"}


def _engine_of(args):
    for a in args:
        if isinstance(a, Traced):
            return type(a)
        if isinstance(a, (list, tuple)) and contains_traced(a):
            return _engine_of(a)
    return None


def _traced_math_function(fn, name):
    def traced(*args, **kwargs):
        cls = _engine_of(list(args) + list(kwargs.values()))
        if cls is None:
            return fn(*args, **kwargs)
        if name in _NONDIFFERENTIABLE_MATH and not kwargs:
            if any(isinstance(a, (list, tuple)) for a in args):
                raise EngineError(f"math.{name} of a list of traced values is not supported")
            return fn(*(primal(a) for a in args))
        if kwargs or not rules.candidates(fn, cls.mode) or \
                any(isinstance(a, (list, tuple)) for a in args):
            raise EngineError(f"math.{name} has no derivative rule for these arguments, so the "
                              f"{cls.engine} engine cannot differentiate through it")
        return cls.apply(fn, fn, args)

    traced.__name__ = traced.__qualname__ = name
    traced.__doc__ = fn.__doc__
    return traced


def _make_traced_math():
    mod = types.ModuleType("math", "The math module, accepting the s2sad engines' traced values.")
    for name in dir(math):
        if name.startswith("_"):
            continue
        value = getattr(math, name)
        setattr(mod, name, _traced_math_function(value, name) if callable(value) else value)
    return mod


TRACED_MATH = _make_traced_math()
_MATH_NAMES = {id(getattr(math, n)): n for n in dir(math)
               if not n.startswith("_") and callable(getattr(math, n))}


class _FloatMeta(type):
    """``float`` for shimmed code: ``float(traced)`` stays traced (derivative 1), and
    ``isinstance(traced, float)`` looks at the primal value."""

    def __call__(cls, *args):
        if len(args) == 1 and isinstance(args[0], Traced):
            return type(args[0]).apply(float, builtins.float, args)
        return builtins.float(*args)

    def __instancecheck__(cls, obj):
        return isinstance(primal(obj), builtins.float)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, builtins.float)

    def __getattr__(cls, name):
        return getattr(builtins.float, name)


class TracedFloat(metaclass=_FloatMeta):
    """Stands for ``float`` in shimmed code (see `_FloatMeta`). A traced array's
    ``.astype(float)`` reads `numpy_dtype` (NumPy itself sees a class, an object
    dtype)."""

    numpy_dtype = np.dtype(float)


def _registered(v) -> bool:
    """Whether `v` is a callable the user registered a rule for (the rule tables'
    own keys are strings, `math`, NumPy and builtin functions)."""
    if isinstance(v, (str, type, types.ModuleType)) or not callable(v) or not rules.has_rule(v):
        return False
    module = getattr(v, "__module__", None) or type(v).__module__ or ""
    return module != "builtins" and module.split(".")[0] not in ("math", "numpy")


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # s2sad itself
    return tuple(os.path.abspath(d) + os.sep for d in dirs if d)


_LIBRARY_DIRS = _library_dirs()


def is_user_function(f) -> bool:
    if not isinstance(f, types.FunctionType):
        return False
    filename = f.__code__.co_filename
    if filename.startswith("<frozen"):
        return False
    if filename.startswith("<"):
        return True
    return not os.path.abspath(filename).startswith(_LIBRARY_DIRS)


def _global_names(code, out=None) -> set:
    out = set() if out is None else out
    out.update(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _global_names(const, out)
    return out


class _Attributes:
    """A module or object holding functions with rules (``scipy.linalg``,
    ``scipy.stats.norm``) as shimmed code sees it: each attribute read is what
    `Shim.value` makes of it, so ``linalg.cho_solve(...)`` applies its rule."""

    def __init__(self, shim, target):
        self._shim, self._target = shim, target

    def __getattr__(self, name):
        return self._shim.value(getattr(self._target, name))

    def __call__(self, *args, **kwargs):
        # a distribution frozen with its parameters (``stats.norm(mu, sigma)``), as
        # the compiler reads it (frontend.frozen); an object of another kind is called
        target = self._target
        if not (type(target).__module__.startswith("scipy.stats")
                and (hasattr(target, "logpdf") or hasattr(target, "logpmf"))):
            return self._target(*args, **kwargs)
        return _Frozen(self, args, kwargs)

    def __repr__(self):
        return repr(self._target)


class _Frozen:
    """A frozen SciPy distribution: its methods of the points (``dist.logpdf(x)``)
    are the distribution's, given the parameters after the points, so their rules
    apply to traced points and parameters; its other attributes are the frozen
    object's where no parameter is traced, and are not followed where one is."""

    def __init__(self, distribution, args, kwargs):
        self._distribution, self._args, self._kwargs = distribution, args, kwargs

    def __getattr__(self, name):
        if name not in FROZEN_METHODS and not contains_traced(
                list(self._args) + list(self._kwargs.values())):
            return getattr(self._distribution._target(*self._args, **self._kwargs), name)
        if name not in FROZEN_METHODS:
            raise EngineError(f"the {name!r} of a frozen {self._distribution!r} whose "
                              "parameters carry a derivative is not followed; its methods of "
                              f"points are ({', '.join(sorted(FROZEN_METHODS))})" + user_place())
        method = getattr(self._distribution, name)
        return lambda *points, **options: method(*points, *self._args, **options, **self._kwargs)


def _asarray(a, dtype=None, order=None, **options):
    """``np.asarray`` (and ``np.asanyarray``) in shimmed code: a traced array given
    back as it is, as NumPy gives back an array of the dtype asked for (a write
    through the result is a write into `a`, which the engines then refuse). NumPy
    would make an object array of `a`'s items, a copy that a write changes alone."""
    if isinstance(a, Traced) and isinstance(a.value, np.ndarray) and order is None \
            and not options and _same_dtype(dtype, a.value):
        return a
    return np.asarray(a, dtype, order, **options)


def _same_dtype(dtype, value) -> bool:
    """Is `dtype` None or `value`'s (``float`` in shimmed code is `TracedFloat`)?"""
    return dtype is None or np.dtype(getattr(dtype, "numpy_dtype", dtype)) == value.dtype


def _array(a, dtype=None, *, copy=True, **options):
    """``np.array`` in shimmed code: of a traced array with ``copy=False`` (no copy),
    itself, as `_asarray`; else NumPy's (a copy: an object array of the items, which
    a write changes alone, as it does the copy)."""
    if copy is False and isinstance(a, Traced) and isinstance(a.value, np.ndarray) \
            and not options and _same_dtype(dtype, a.value):
        return a
    return np.array(a, dtype, copy=copy, **options)


class _NumPy(types.ModuleType):
    """The module `numpy` as shimmed code sees it: a copy of its namespace (a read is
    a module's dict lookup, as of `numpy` itself; what NumPy loads lazily comes from
    it), but for `asarray`, `asanyarray` and `array` of traced arrays (`_asarray`,
    `_array`)."""

    def __getattr__(self, name):
        return getattr(np, name)

    def __repr__(self):
        return repr(np)


TRACED_NUMPY = _NumPy("numpy")
vars(TRACED_NUMPY).update({k: v for k, v in vars(np).items() if not k.startswith("__")},
                          asarray=_asarray, asanyarray=_asarray, array=_array)
_NUMPY_FUNCTIONS = {id(np.asarray): _asarray, id(np.asanyarray): _asarray, id(np.array): _array}


class Shim:
    """Shimmed copies of functions; one `Shim` per engine run (see module docstring)."""

    def __init__(self):
        self._functions = {}  # id(original) -> (original, copy)
        self._ruled = {}  # id(callable with a registered rule) -> (it, its rule-applying form)
        self._namespaces = {}  # id(original globals) -> (original, copy)
        self._owners = None  # ids of the objects whose bound methods are rule keys

    def value(self, v):
        """What a global or closure value becomes in shimmed code."""
        if v is math:
            return TRACED_MATH
        if v is np:
            return TRACED_NUMPY
        if id(v) in _NUMPY_FUNCTIONS and v in (np.asarray, np.asanyarray, np.array):
            return _NUMPY_FUNCTIONS[id(v)]
        name = _MATH_NAMES.get(id(v))
        if name is not None and getattr(math, name) is v:
            return getattr(TRACED_MATH, name)
        if _registered(v):
            return self.ruled(v)
        if is_user_function(v):
            return self.function(v)
        if self._holds_rules(v):
            return _Attributes(self, v)
        return v

    def _holds_rules(self, v) -> bool:
        """Whether `v` is a SciPy module or an object whose methods have rules
        (``scipy.stats.norm``): shimmed code reads its attributes through `_Attributes`."""
        if isinstance(v, types.ModuleType):
            return v.__name__ == "scipy" or v.__name__.startswith("scipy.")
        if self._owners is None:
            self._owners = {id(k.__self__) for table in (rules.REVERSE, rules.FORWARD)
                            for k in table if isinstance(k, types.MethodType)}
        return id(v) in self._owners

    def ruled(self, fn):
        """`fn` (which has a registered rule) in a form that applies the rule to
        traced arguments (see the module docstring)."""
        got = self._ruled.get(id(fn))
        if got is not None:
            return got[1]

        def call(*args, **kwargs):
            cls = _engine_of(list(args) + list(kwargs.values()))
            if cls is None:
                return fn(*args, **kwargs)
            if fn in rules.NONDIFFERENTIABLE:
                return fn(*(deep_primal(a) for a in args),
                          **{k: deep_primal(v) for k, v in kwargs.items()})
            if rules.candidates(fn, cls.mode):
                inputs, options, call = bind_options(fn, args, kwargs, cls.mode)
                return cls.apply(fn, call, inputs, options)
            if is_user_function(fn):
                return self.function(fn)(*args, **kwargs)
            other = "forward" if cls.mode == "reverse" else "reverse"
            raise EngineError(
                f"{_name(fn)} has a registered {other} rule but no {cls.mode} rule"
                f"{' for keyword arguments' if kwargs else ''}, so the {cls.engine} engine "
                f"cannot differentiate it (register_rule(..., {cls.mode}=...) adds one)")

        call.__name__ = call.__qualname__ = getattr(fn, "__name__", "registered")
        self._ruled[id(fn)] = (fn, call)
        return call

    def function(self, f):
        """The shimmed copy of `f` (or `f` itself when it is not user code)."""
        if not is_user_function(f):
            return f
        got = self._functions.get(id(f))
        if got is not None:
            return got[1]
        original_globals = f.__globals__
        ns = self._namespace(original_globals)
        cells = None
        if f.__closure__:
            cells = tuple(types.CellType() for _ in f.__closure__)
        new = types.FunctionType(f.__code__, ns, f.__name__, f.__defaults__, cells)
        new.__kwdefaults__ = f.__kwdefaults__
        new.__qualname__ = f.__qualname__
        new.__module__ = f.__module__
        new.__dict__.update(f.__dict__)
        self._functions[id(f)] = (f, new)
        for cell, old in zip(cells or (), f.__closure__ or ()):
            try:
                cell.cell_contents = self.value(old.cell_contents)
            except ValueError:  # an empty cell (a name assigned later)
                pass
        for name in _global_names(f.__code__):
            if name in original_globals:
                ns[name] = self.value(original_globals[name])
            elif name == "float":
                ns[name] = TracedFloat
        return new

    def _namespace(self, original):
        got = self._namespaces.get(id(original))
        if got is None:
            got = self._namespaces[id(original)] = (original, dict(original))
        return got[1]

    def namespace_of(self, f) -> dict:
        """The names a shimmed `f` sees as globals, closure variables included (for
        running the compiler's IR of `f` with traced values)."""
        new = self.function(f)
        if not isinstance(new, types.FunctionType):
            return {}
        ns = dict(new.__globals__)
        for name, cell in zip(new.__code__.co_freevars, new.__closure__ or ()):
            try:
                ns[name] = cell.cell_contents
            except ValueError:
                pass
        return ns


def _name(f) -> str:
    return getattr(f, "__qualname__", None) or repr(f)


def _innermost_place(tb) -> str:
    frames = traceback.extract_tb(tb)
    here = os.path.dirname(os.path.abspath(__file__))
    for frame in reversed(frames):
        if os.path.dirname(os.path.abspath(frame.filename)) != here:
            code = f": {frame.line.strip()}" if frame.line else ""
            return f" (at {frame.filename}:{frame.lineno}{code})"
    return ""


def run(f, traced_args, plain_args, kwargs, engine: str):
    """Call `f` on traced arguments in shimmed form (see the module docstring)."""
    kwargs = kwargs or {}
    shimmed = Shim().value(f)  # a math function becomes its traced version too
    before = [list(t) if type(t) is list and t is not p else None
              for t, p in zip(traced_args, plain_args)]
    try:
        out = shimmed(*traced_args, **kwargs)
        _put_back(traced_args, plain_args, before)
        return out
    except S2SADError:
        raise
    except Exception as exc:
        failure = f"{type(exc).__name__}: {exc}{_innermost_place(exc.__traceback__)}"
    f(*plain_args, **kwargs)  # the function's own error, if it has one, propagates
    raise EngineError(f"the {engine} engine cannot follow {_name(f)}: {failure}")


def _put_back(traced_args, plain_args, before) -> None:
    """Leave the caller's arguments as the function's own run leaves them: a traced
    value a write put in an argument replaced by its primal (the number Python's run
    writes there), and a list or array the engine traced in its place, changed in
    place by the function, changed so in the caller's too. (`before`: each traced
    list's items before the call, None for an argument passed as it is.)"""
    for t, p, items in zip(traced_args, plain_args, before):
        if t is p:
            _primals_in(p, set())
        elif type(p) is list and type(t) is list:
            if len(t) != len(items) or any(a is not b for a, b in zip(t, items)):
                p[:] = [deep_primal(v) for v in t]
        elif isinstance(p, np.ndarray) and isinstance(t, Traced):
            value = t.value
            if isinstance(value, np.ndarray) and value.shape == p.shape and \
                    not np.array_equal(value, p, equal_nan=True):
                p[...] = value


def _primals_in(x, seen) -> None:
    """Replace, in place, the traced values inside the lists and dicts of `x`."""
    if id(x) in seen or type(x) not in (list, dict):
        return
    seen.add(id(x))
    for k, v in (enumerate(x) if type(x) is list else list(x.items())):
        if isinstance(v, Traced):
            x[k] = deep_primal(v)
        else:
            _primals_in(v, seen)
