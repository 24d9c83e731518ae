"""native: an emitted reverse-mode unit compiled with numba, for ``grad(f, jit=True)``.

Contract
--------
`compiled(unit, fn, args, kwargs)` returns ``(callable, guards)``: the unit's entry
function compiled by ``numba.njit`` (nopython mode) for the types of `args` and
`kwargs`, and the user names it froze (below) for the dispatcher to re-check on
every call; or, where numba cannot compile the derivative, `fn` itself (the Python
derivative) after one `NativeWarning` saying why, and no guards. It never returns
code that could compute another number than `fn`, but for the order in which sums
over arrays add their terms (below): what numba cannot type, or what it would read
differently, is refused before anything runs.

What the compiled code is: each function of the unit from its emitted text (the
same text `s2sad.source` prints) as `native_text.rewritten` spells it (descending
ranges for ``reversed``, a tape's runs of pushes as tuples). It runs in a namespace
of its own: ``math``, NumPy,
the unit's other functions (compiled the same way), and a snapshot of the user's
globals and closure cells it reads. Numba freezes such values into the machine
code, so only immutable ones are taken (numbers, strings, booleans, None, tuples of
them, modules, and such attributes of the user's modules: `_attribute_guards`),
each returned as a guard: when the user rebinds one, the dispatcher builds the
derivative again. A call with an int beyond 2**53 runs the Python derivative
(`_converting`): numba compares it with floats as a float. A global array or list
(which the function could change in place, unseen), a Python function numba has
not compiled, a
runtime helper of `s2sad.runtime` without a numba version here (`_natives`: the
seed, `add_into`, and `unreduce` and `unbroadcast` in their common cases), a list
argument whose elements numba types differently, or a checkpointing scheduler is
refused with its name in the warning.

Tapes need nothing more: the emitted ``tape = []`` / ``tape.append(...)`` /
``tape.pop()`` is a numba list, of tuples where `native_text` grouped the pushes,
or, in a counted loop, arrays (`native_text._arrays`, with `_put` and `_reserve`
here); where numba refuses the arrays (a dtype guessed wrong), the unit is compiled
again with its lists.
A list argument of numbers the derivative only indexes is passed as an array
(`_converting`).

On numbers the compiled code gives Python's results to the last bit (the same
libm; ``**`` as `_power`). Numba differs from Python where no derivative should
depend on it, and the guide (docs/guide/native.md) says so: ``math.sqrt(-1.0)`` and
``math.log(0.0)`` give NaN and -inf where Python raises ``ValueError``, integers are
64-bit, and numba's sums over arrays add their terms in another order than NumPy's
(one after another, not pairwise: the same accuracy, other rounding). Python's
compensated ``sum`` (3.12 on) is refused (`_refuse_python_only`).

Compiled dispatchers are cached per unit (`_cache`), so a second
``grad(f, jit=True)`` of the same function and argument kinds reuses the machine
code. Numba is imported on first use only (`require`).
"""

from __future__ import annotations

import ast
import dis
import math
import random
import re
import sys
import types
import warnings
import weakref

import numpy as np

from .. import runtime
from ..frontend.structure_calls import library_module
from . import native_text
from ..errors import S2SADError


class NativeWarning(UserWarning):
    """``grad(f, jit=True)`` runs the Python derivative: numba cannot compile it."""


_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # unit -> dispatcher
_FROZEN = (int, float, complex, bool, str, bytes, type(None))


Refused = native_text.Refused


def require(what: str):
    """The numba module, or an `S2SADError` saying how to install it."""
    try:
        import numba
    except ImportError as exc:
        if exc.name == "numba":  # (not installed)
            raise S2SADError(f"{what}(jit=True) compiles the derivative with numba, which is "
                             "not installed", hint="pip install 's2sad[jit]' (or pip install "
                             "numba)") from None
        raise S2SADError(f"{what}(jit=True) compiles the derivative with numba, which is "
                         f"installed but does not load: {exc}",
                         hint="Install a numba release that supports this NumPy and Python "
                              "(pip install -U numba), or drop jit=True.") from None
    return numba


def compiled(unit, fn, args, kwargs):
    """``(callable, guards)`` for ``jit=True``: see the module's docstring."""
    numba = require("grad")
    # (what numba raises where it cannot compile: its errors, the bytecode it reads
    # but does not take, an `import` or an f-string's format, which is not one, and
    # its internal errors on code it does not take, `isinstance` of a float or
    # `a[...] = x`: an AttributeError, a NotImplementedError. Nothing runs before
    # the compilation ends, so any exception here is numba's, never the function's)
    errors = (Exception,)
    try:
        try:
            kinds = {n: _kind(v) for n, v in kwargs.items()}
            return _compiled(unit, fn, args, kwargs, numba, arrays=(
                tuple(_kind(v) for v in args), tuple(sorted(kinds.items()))))
        except Refused:
            raise  # (what lists of tapes would refuse alike: no second try)
        except errors:
            got = _cache.get(unit)
            if got is None or not got[4]:  # (no tape was an array: lists fail the same)
                raise
            return _compiled(unit, fn, args, kwargs, numba, arrays=None)
    except Refused as exc:
        _warn(unit, str(exc))
        return fn, []
    except errors as exc:
        text = str(exc)
        _warn(unit, "it raises an int to an int power, which Python computes exactly (an "
                    "int of any size, or a float for a negative power) and numba as a "
                    "64-bit int" if "_power.<locals>.power" in text
              and "No implementation" in text else "numba: " + _first_lines(text))
        return fn, []


def _compiled(unit, fn, args, kwargs, numba, arrays):
    """`compiled`'s result where numba compiles the unit, with counted loops' tapes as
    arrays (`arrays`: the kinds of the arguments, by position and by name) or not
    (None); raises `Refused` or numba's error."""
    dispatcher, guards, readonly = _dispatcher(unit, numba, arrays)
    py = dispatcher.py_func
    names = py.__code__.co_varnames[:py.__code__.co_argcount]
    as_arrays = [n for n, v in list(zip(names, args)) + list(kwargs.items())
                 if n in readonly and _numbers(v)]
    if as_arrays:
        args = [np.asarray(v) if n in as_arrays else v for n, v in zip(names, args)]
        kwargs = {n: np.asarray(v) if n in as_arrays else v for n, v in kwargs.items()}
    for name, value in list(zip(names, args)) + list(kwargs.items()):
        if dispatcher.typeof_pyval(value) == numba.types.pyobject:
            raise Refused(f"its argument `{name}` is a {type(value).__name__}, which "
                          "numba cannot type")
        _wide(name, value)
        _homogeneous(value, dispatcher)
    _compile_for(dispatcher, args, kwargs, numba)
    ints = [n for n, v in list(zip(names, args)) + list(kwargs.items())
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))]
    if as_arrays or ints:
        return _converting(dispatcher, names, as_arrays, ints, fn), guards
    return dispatcher, guards


_WIDE = (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_))


def _wide(name, value):
    """Refuse an array (or NumPy number) of another dtype than float64, int64 or bool:
    numba computes some of a float32 array's arithmetic in float64, and rounds
    otherwise than NumPy (the last bit of a float32 gradient)."""
    for v in value if type(value) in (list, tuple) else (value,):
        if isinstance(v, (list, tuple)):
            _wide(name, v)
        elif isinstance(v, (np.ndarray, np.generic)) and v.dtype not in _WIDE:
            raise Refused(f"its argument `{name}` holds {v.dtype} numbers, which numba "
                          "computes with otherwise than NumPy (float64, int64 and bool "
                          "compile)")


def _homogeneous(value, dispatcher):
    """Refuse a list whose elements numba types differently (a vector and a matrix):
    it has no numba type, and numba would type it by its first element."""
    if type(value) is list and len({dispatcher.typeof_pyval(v) for v in value}) > 1:
        raise Refused("a list argument holds values numba types differently")
    for v in value if type(value) in (list, tuple) else ():
        _homogeneous(v, dispatcher)


def _numbers(value) -> bool:
    """A list of floats only, or of ints only (its array holds the same numbers)."""
    return type(value) is list and len(value) > 0 and len({type(v) for v in value}) == 1 \
        and type(value[0]) in (float, int)


def _converting(dispatcher, names, as_arrays, ints=(), fn=None):
    """`dispatcher` behind a function with its parameters that passes the lists
    `as_arrays` names as NumPy arrays: numba converts a list argument element by
    element on every call, and back (a reflected list, 100 times slower than an
    array for 100 floats). Where `ints` name integer parameters, a call with one
    beyond 2**53 runs `fn`, the Python derivative: numba compares such an int with a
    float, and divides it, as a float (``n > 2.0 ** 53`` is False for ``2 ** 53 +
    1``), where Python is exact."""
    py = dispatcher.py_func
    call = ", ".join(f"_asarray({n})" if n in as_arrays else n for n in names)
    text = f"def {py.__name__}({', '.join(names)}):\n"
    if ints:
        wide = " or ".join(f"not -_EXACT <= {n} <= _EXACT" for n in ints)
        text += f"    if {wide}:\n        return _python({', '.join(names)})\n"
    text += f"    return _native({call})\n"
    ns = {"_native": dispatcher, "_asarray": np.asarray, "_python": fn, "_EXACT": 2 ** 53}
    exec(compile(text, f"<s2sad native {py.__name__}>", "exec"), ns)
    wrapper = ns[py.__name__]
    wrapper.__defaults__ = py.__defaults__
    return wrapper


def _warn(unit, why: str):
    user = unit.functions[0].user
    warnings.warn(f"s2sad: the derivative of {user.__qualname__} runs as Python, not "
                  f"compiled with numba: {why}", NativeWarning, stacklevel=5)


def _first_lines(text: str) -> str:
    """Numba's message without its colours, the help and the passes' names."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    keep = [line.strip() for line in text.splitlines()
            if line.strip() and not line.startswith(("During:", "Failed in", "File "))
            and "<source missing" not in line and "http" not in line]
    return " ".join(keep[:3]) or "it could not compile the code"


def _compile_for(dispatcher, args, kwargs, numba):
    """Compile `dispatcher` now for these arguments' types (omitted ones at their
    defaults), so a failure is seen before anything runs."""
    positional = [dispatcher.typeof_pyval(a) for a in args]
    named = {k: dispatcher.typeof_pyval(v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        # a list argument is a reflected list, which numba plans to replace
        warnings.simplefilter("ignore", numba.core.errors.NumbaPendingDeprecationWarning)
        _, types_ = dispatcher.fold_argument_types(positional, named)
        dispatcher.compile(tuple(types_))


def _dispatcher(unit, numba, arrays=None):
    """The numba dispatcher of the unit's entry function, and its guards; with
    `arrays` (`_compiled`), counted loops' tapes as arrays (`native_text`)."""
    got = _cache.get(unit)
    if got is not None and got[3] == arrays and all(_holds(g) for g in got[1]):
        return got[:3]
    namer = unit.namer
    ns = {"__builtins__": __builtins__}
    guards = []
    for name, obj in unit.helpers.items():
        ns[name] = _helper(name, obj, numba)
    for name in (native_text.POW, native_text.PUT, native_text.RESERVE, native_text.NP):
        ns[name] = _natives(numba)[name]
    sources = {}
    for uf in unit.functions:
        rendered = namer(uf.fn.name)
        text = unit.texts[uf.fn.name]
        sources[rendered] = native_text.rewritten(text, False if arrays is None else _params(
            text, arrays if uf.fn.name == unit.entry[0] else None))
    rendered_names = set(sources)
    _refuse_recursion(sources)
    users = {}  # name -> the object a user's name means (one namespace for the unit)
    for uf in unit.functions:
        code = compile(sources[namer(uf.fn.name)], "<s2sad native>", "exec")
        for name in _reads(code):
            if name in ns and name not in rendered_names:
                _refuse_global_draws(name, ns[name], code)  # (`np`, the emitted code's)
            if name in rendered_names or name in ns and name not in users:
                continue
            value, guard = _user_value(uf.user, name)
            _refuse_global_draws(name, value, code)
            if name in users and users[name] is not value:
                raise Refused(f"two of its functions read `{name}` from modules where it "
                              "means different objects")
            users[name] = ns[name] = value
            if guard is not None and not any(g[1] is guard[1] and g[2] == name for g in guards):
                guards.append(guard)
    guards += _attribute_guards(sources.values(), users, guards)
    for text in sources.values():
        _refuse_python_only(text)
    made = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.core.errors.NumbaPendingDeprecationWarning)
        for uf in unit.functions:
            rendered = namer(uf.fn.name)
            exec(compile(sources[rendered], f"<s2sad native {rendered}>", "exec"), ns)
            py = ns[rendered]
            if uf.keep_defaults and uf.user.__defaults__:
                py.__defaults__ = uf.user.__defaults__
            if uf.user.__kwdefaults__ and uf.keep_defaults:
                raise Refused("numba takes no keyword-only parameters")
            # (an index out of range raises IndexError, as in Python)
            made[rendered] = numba.njit(py, boundscheck=True)
        ns.update(made)  # callees: resolved when the caller compiles
    entry = namer(unit.entry[0])
    got = (made[entry], guards, _readonly(ast.parse(sources[entry]).body[0]))
    _cache[unit] = got + (arrays, any(native_text.PUT in t for t in sources.values()))
    return got


def _kind(value) -> str:
    """The kind `native_text` gives a parameter called with `value`."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    return "float" if isinstance(value, (float, np.floating)) else "other"


def _params(text, kinds) -> dict:
    """{parameter: kind} of the function `text` for the argument kinds `kinds`
    (positional, by name), or {} for no kinds (a callee: floats guessed)."""
    if kinds is None:
        return {}
    fn = ast.parse(text).body[-1]
    names = [a.arg for a in fn.args.args]
    return dict(zip(names, kinds[0])) | dict(kinds[1])


def _holds(guard) -> bool:
    kind, container, name, obj = guard
    root, _, chain = name.partition(".")
    current = container.get(root) if kind == "global" else container.cell_contents
    for attr in chain.split(".") if chain else ():
        current = getattr(current, attr, _MISSING)
    return current is obj


_MISSING = object()


def _attribute_guards(texts, users: dict, guards: list) -> list:
    """A guard for each attribute the derivative reads of a module of the user's
    (``cfg.scale``, ``cfg.sub.rate``): numba freezes its value into the machine code,
    so the dispatcher builds the derivative again once it is rebound. One that could
    change in place (an array, a list) is refused, as a global would be. Modules of
    libraries (``np.pi``, ``math.tau``) are taken as they are."""
    modules = {n: v for n, v in users.items() if isinstance(v, types.ModuleType)
               and not library_module(v)}
    if not modules:
        return []
    chains = set()
    for text in texts:
        for node in ast.walk(ast.parse(text)):
            chain = _chain(node)
            if chain is not None and chain[0] in modules and len(chain) > 1:
                chains.add(".".join(chain))
    out = []
    for text in sorted(chains):
        root, *attrs = text.split(".")
        kind, container = next((g[0], g[1]) for g in guards if g[2] == root)
        value, read = users[root], root
        for attr in attrs:
            value, read = getattr(value, attr, _MISSING), f"{read}.{attr}"
            if value is _MISSING:
                raise Refused(f"it reads `{read}`, which is not defined")
            if isinstance(value, types.FunctionType):
                raise Refused(f"it calls `{read}`, a Python function numba has not "
                              "compiled (decorate it with numba.njit)")
            if not isinstance(value, types.ModuleType):
                if not (_immutable(value) or callable(value)):
                    raise Refused(f"it reads `{read}` ({type(value).__name__}), which numba "
                                  "would freeze into the compiled code although it can "
                                  "change in place")
                break
            if library_module(value):
                break  # (a library reached through the user's module: ``cfg.np.pi``)
        if not any(g[2] == read for g in out):
            out.append((kind, container, read, value))
    return out


def _chain(node):
    """``["cfg", "sub", "rate"]`` of the expression ``cfg.sub.rate``; None for any
    other than a name's attributes."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return [node.id] + attrs[::-1] if isinstance(node, ast.Name) and attrs else None


def _reads(code: types.CodeType) -> list:
    """The global names the code reads."""
    names = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += [i.argval for i in dis.get_instructions(const)
                      if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
    return list(dict.fromkeys(names))


def _helper(name, obj, numba):
    """What an emitted helper name means to numba: ``math`` and NumPy themselves and
    NumPy's ufuncs, the runtime helpers of `_natives`; nothing else of s2sad's (the
    other runtime helpers, checkpointing schedulers) or of the user's held by a name
    of its own (`defaults.capture`)."""
    if obj is math or obj is np or isinstance(obj, np.ufunc):
        return obj  # (a ufunc: an item of a sequence of functions, ``LAYERS_0``)
    made = _natives(numba).get(obj)
    if made is not None:
        return made
    if not str(getattr(obj, "__module__", "")).startswith("s2sad"):
        raise Refused(f"it calls `{name}`, a function of yours it holds (a closure's "
                      "variable or an item of a sequence of functions), which numba "
                      "cannot compile")
    raise Refused(f"it calls s2sad's helper `{name}`, which numba cannot compile")


_NATIVES: dict = {}


def _add_into(acc, parts):
    for i, part in enumerate(parts):
        acc[i] = acc[i] + part


def _natives(numba) -> dict:
    """{runtime helper: its numba version}: `runtime.add_into` as `_add_into` (its
    loop, without the list-of-lists seed's case, which a gradient never has);
    `runtime.scalar_seed` 1.0 for a number, and no version for anything else (the
    Python derivative then raises the error the helper raises); `runtime.zero_tangent`
    as `_zero_tangent` says."""
    if not _NATIVES:
        from numba import types as nt
        from numba.extending import overload

        def scalar_seed(out):
            raise NotImplementedError  # (numba runs its overload; Python never calls it)

        @overload(scalar_seed)
        def _scalar_seed(out):
            if isinstance(out, (nt.Float, nt.Integer, nt.Boolean)):
                return lambda out: 1.0
            return None

        _NATIVES[runtime.scalar_seed] = scalar_seed
        _NATIVES[runtime.zero_tangent] = _zero_tangent(overload, nt)
        _NATIVES[runtime.add_into] = numba.njit(_add_into)
        _NATIVES[runtime.unreduce] = _unreduce(overload, nt)
        _NATIVES[runtime.unbroadcast] = _unbroadcast(overload, nt)
        _NATIVES[native_text.POW] = _power(overload, nt)
        _NATIVES[native_text.PUT] = _put(overload, nt)
        _NATIVES[native_text.RESERVE] = numba.njit(_reserve)
        _NATIVES[native_text.NP] = np
    return _NATIVES


def _zero_tangent(overload, nt):
    """`runtime.zero_tangent` where numba knows the type: zeros like an array, 0.0
    for a number or a value that may be None (a variable the function first binds to
    None, then to a number); no version for anything else."""
    def zero_tangent(value):
        raise NotImplementedError  # (numba runs its overload; Python never calls it)

    @overload(zero_tangent)
    def _zero(value):
        inner = value.type if isinstance(value, nt.Optional) else value
        if isinstance(inner, nt.Array):
            if isinstance(value, nt.Optional):
                return None  # (None or an array: no one version)
            return lambda value: np.zeros_like(value)
        if isinstance(inner, (nt.Float, nt.Integer, nt.Boolean, nt.NoneType)):
            return lambda value: 0.0
        return None

    return zero_tangent


def _put(overload, nt):
    """``a[k] = v`` for an array tape, compiled only where `v`'s type is the array's
    dtype (a float into float64, an int into int64, a bool into bool), where numba
    would convert it silently: ``native_text`` guesses the dtypes from the text, and
    a wrong guess must fail to compile rather than store an int as a float."""
    def put(a, k, v):
        raise NotImplementedError  # (numba runs its overload; Python never calls it)

    @overload(put)  # (LLVM inlines it; numba's own inlining costs 0.1 s a function)
    def _overload(a, k, v):
        if isinstance(a, nt.Array) and a.ndim == 1 and nt.unliteral(v) == a.dtype:
            def store(a, k, v):
                a[k] = v
            return store
        return None

    return put


def _reserve(a, need):
    """`a`, or a copy with room for `need` entries (twice its length at least). (A
    loop copies: numba compiles a slice's assignment in seconds.)"""
    if need <= a.shape[0]:
        return a
    grown = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    for j in range(a.shape[0]):
        grown[j] = a[j]
    return grown


def _power(overload, nt):
    """``a ** b`` as Python computes it: C's `pow` for floats (numba multiplies for an
    int exponent, which rounds otherwise), NumPy's power of a float64 array by a
    number with the exponent a float (so `pow` too, as NumPy's own loop calls it). An
    int to an int power is not compiled: Python's is an int of any size, or a float
    for a negative exponent, where numba's int64 wraps (and gives 0 for ``2 ** -1``)."""
    def power(a, b):
        raise NotImplementedError  # (numba runs its overload; Python never calls it)

    @overload(power)
    def _overload(a, b):
        if isinstance(a, nt.Integer) and isinstance(b, nt.Integer):
            # (Python's is an int, of any size, or a float for a negative exponent:
            # numba has no one type for both, and its int64 wraps; not compiled)
            return None
        number = (nt.Float, nt.Integer, nt.Boolean)
        if isinstance(a, number) and isinstance(b, number):
            return lambda a, b: math.pow(float(a), float(b))
        if isinstance(a, nt.Array) and a.dtype == nt.float64 and isinstance(b, number):
            return lambda a, b: np.power(a, np.float64(b))
        return None

    return power


def _unreduce(overload, nt):
    """`runtime.unreduce` for the adjoint of a float64 array's total (``np.sum(x)``,
    ``np.mean(x)``): the number spread over the array. Other reductions have none."""
    def unreduce(g, x, axis=None, keepdims=False):
        raise NotImplementedError  # (numba runs its overload; Python never calls it)

    @overload(unreduce)
    def _overload(g, x, axis=None, keepdims=False):
        whole = axis is None or isinstance(axis, (nt.NoneType, nt.Omitted))
        if whole and isinstance(x, nt.Array) and x.dtype == nt.float64 \
                and isinstance(g, (nt.Float, nt.Integer)):
            return lambda g, x, axis=None, keepdims=False: np.full(x.shape, np.float64(g))
        return None

    return unreduce


def _unbroadcast(overload, nt):
    """`runtime.unbroadcast` where the operand is a number (the adjoint summed) or a
    float64 array of one or two axes against an adjoint of as many or (a vector) two:
    summed over the axes where the operand has length 1 and the adjoint not, and
    over the adjoint's leading axis. Other ranks have none."""
    def unbroadcast(g, x):
        raise NotImplementedError  # (numba runs its overload; Python never calls it)

    @overload(unbroadcast)
    def _overload(g, x):
        number = (nt.Float, nt.Integer, nt.Boolean)
        if isinstance(x, number) and isinstance(g, number):
            return lambda g, x: g
        if isinstance(x, number) and isinstance(g, nt.Array) and g.ndim >= 1:
            return lambda g, x: np.sum(g)
        if not (isinstance(x, nt.Array) and isinstance(g, nt.Array)
                and x.dtype == nt.float64 and g.dtype == nt.float64):
            return None
        if x.ndim == g.ndim == 1:
            def one(g, x):
                if x.shape[0] == 1 and g.shape[0] != 1:
                    return np.full(1, np.sum(g))
                return np.ascontiguousarray(g)
            return one
        if x.ndim == 1 and g.ndim == 2:
            def lead(g, x):
                r = np.sum(g, axis=0)
                if x.shape[0] == 1 and r.shape[0] != 1:
                    return np.full(1, np.sum(r))
                return r
            return lead
        if x.ndim == g.ndim == 2:
            def two(g, x):
                r = np.ascontiguousarray(g)
                if x.shape[0] == 1 and r.shape[0] != 1:
                    r = np.sum(r, axis=0).reshape((1, r.shape[1]))
                if x.shape[1] == 1 and r.shape[1] != 1:
                    r = np.sum(r, axis=1).reshape((r.shape[0], 1))
                return r
            return two
        return None

    return unbroadcast


def _user_value(user, name):
    """``(value, guard)`` for a name the derivative reads from `user`'s globals or
    closure: a module or an immutable value, frozen, with the dispatcher's guard."""
    cells = dict(zip(user.__code__.co_freevars, user.__closure__ or ()))
    if name in cells:
        value, guard = cells[name].cell_contents, ("cell", cells[name], name, None)
    elif name in user.__globals__:
        value, guard = user.__globals__[name], ("global", user.__globals__, name, None)
    else:
        import builtins
        if hasattr(builtins, name):
            return getattr(builtins, name), None
        raise Refused(f"it reads `{name}`, which is not defined")
    if isinstance(value, types.ModuleType):
        return value, guard[:3] + (value,)
    if _immutable(value):
        return value, guard[:3] + (value,)
    if isinstance(value, types.FunctionType):
        raise Refused(f"it calls `{name}`, a Python function numba has not compiled "
                      "(decorate it with numba.njit)")
    if callable(value):  # numba's own functions, math.sin imported as sin: numba decides
        return value, guard[:3] + (value,)
    raise Refused(f"it reads the global `{name}` ({type(value).__name__}), which numba "
                  "would freeze into the compiled code although it can change in place")


_GLOBAL_GENERATORS = (np.random.mtrand._rand, random._inst)


def _refuse_python_only(text):
    """Refuse a derivative whose text calls ``round(x, ndigits)``: numba rounds the
    binary value (``round(2.675, 2)`` is 2.68 there), Python the decimal one (2.67).
    From Python 3.12 on, also one calling the builtin ``sum``: Python's adds floats
    with a compensation for what each addition rounds off, numba's one after another
    (``sum([1e16, x, -1e16])`` is x in Python, 0.0 compiled)."""
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id == "round" and len(node.args) + len(node.keywords) > 1:
            raise Refused("it calls round(x, ndigits), which numba rounds otherwise than "
                          "Python (round(2.675, 2) is 2.68 there, 2.67 in Python)")
        if node.func.id == "sum" and sys.version_info >= (3, 12):
            raise Refused("it calls sum(), which from Python 3.12 on adds floats with a "
                          "compensation for rounding, and numba without")


def _refuse_recursion(sources: dict):
    """Refuse a derivative whose functions call themselves, directly or through
    each other (a recursive function's): numba infers a recursion's types only
    after trying long (tens of seconds for a small one), when it does at all."""
    calls = {name: {n.func.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Name) and n.func.id in sources}
             for name, text in sources.items()}
    done, path = set(), []

    def visit(name):
        if name in path:
            cycle = " -> ".join(path[path.index(name):] + [name])
            raise Refused(f"it is recursive ({cycle}), and numba infers a recursion's types "
                          "only after trying long, when at all")
        if name in done:
            return
        path.append(name)
        for callee in sorted(calls[name]):
            visit(callee)
        path.pop()
        done.add(name)

    for name in sorted(calls):
        visit(name)


def _refuse_global_draws(name, value, code):
    """Refuse a derivative that draws from NumPy's or the `random` module's global
    generator (``np.random.normal()``, ``random.gauss``, ``from random import
    gauss``): numba replaces them with generators of its own, so the compiled code
    would draw other numbers than the function, and leave Python's state as it was.
    A `np.random.Generator` the function is given is another matter: numba draws
    from it."""
    if value is random or value is np.random or \
            getattr(value, "__self__", None) in _GLOBAL_GENERATORS or \
            value is np and "random" in _attributes(code):
        raise Refused(f"it draws random numbers through `{name}`, from a global "
                      "generator numba replaces with its own (it would draw other numbers "
                      "than the function)")


def _attributes(code: types.CodeType) -> set:
    """The attribute and global names `code` and the code nested in it read."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _attributes(c)
    return out


def _readonly(fn: ast.FunctionDef) -> set:
    """The parameters the function only indexes (``xs[i]``) and measures
    (``len(xs)``): a list of numbers there reads the same as its array."""
    params = {a.arg for a in fn.args.args}
    fine = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            fine.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "len" and len(node.args) == 1:
            fine.add(id(node.args[0]))
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in params and id(node) not in fine:
            params.discard(node.id)
    return params


def _immutable(value) -> bool:
    if isinstance(value, tuple):
        return all(_immutable(v) for v in value)
    return isinstance(value, _FROZEN) or isinstance(value, np.generic)
