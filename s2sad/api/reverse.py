"""The public API: `grad`, `value_and_grad`, `vjp`, `source`.

`mode` selects how `grad` and `value_and_grad` compute: ``"reverse"`` (the default)
is the compiler described below; ``"tape"`` runs the function itself on the tape
engine (`s2sad.engines.tape_grad`), which needs no source, so it is the fallback for
functions built with `exec`, at a REPL or with `lambda`, and for constructs the
compiler refuses. Nothing falls back silently: the compiler's `SourceNotFoundError`
suggests ``mode="tape"``.

`grad(f)` returns a function with `f`'s signature. Its first call with a given set of
argument types runs the pipeline, compiles the derivative and remembers it; every
later call is one dictionary lookup on the argument types, a check that the functions
`f` calls are still the ones the derivative was built from, and a plain call of the
generated function. The dispatcher is itself generated Python with `f`'s exact
parameter list, so no ``*args`` packing happens on the way.

Cache: derivatives are kept per code object (so a redefined function is transformed
afresh), per mode, `wrt`, output form and argument kinds. An entry is used only while
every name its transform resolved (the functions it calls) still means the same
object. A transform that fails caches nothing. When the disk cache is on
(`s2sad.enable_disk_cache`, see `diskcache`), a miss here looks for the emitted
source on disk before running the pipeline, and stores what the pipeline builds.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import types
import weakref

from ..backend import compile as compile_mod
from ..backend import diskcache, emit
from ..ir.kinds import (INT, ITEMS, SCALAR, UNKNOWN, ArrayKind, ListKind, differentiable, kind_of,
                        shape_pattern, shaped_arguments, with_shapes)
from ..frontend import parse
from .. import driver as pipeline, primitives as rules
from ..engines import tape_grad
from ..checkpoint import SCHEDULES
from ..errors import IntegerArgumentError, S2SADError, SourceNotFoundError, WrtError

_lock = threading.RLock()
_units: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_states: "weakref.WeakSet" = weakref.WeakSet()


def _forget_everything():
    """A rule was registered: every derivative built before may be out of date."""
    with _lock:
        _units.clear()
        for state in list(_states):
            state.reset()


rules.ON_CHANGE.append(_forget_everything)


# -------------------------------------------------------------------- wrt


def _at_def(f) -> dict:
    """Error location keywords pointing at the `def` line of `f`."""
    code = f.__code__
    import linecache

    line = code.co_firstlineno
    text = linecache.getline(code.co_filename, line)
    while text.lstrip().startswith("@"):
        line += 1
        text = linecache.getline(code.co_filename, line)
    return dict(filename=code.co_filename, lineno=line, source_line=text or None,
                col=(len(text) - len(text.lstrip())) if text else None)


def _signature_params(f):
    code = f.__code__
    n_pos = code.co_argcount
    n_kw = code.co_kwonlyargcount
    names = code.co_varnames[: n_pos + n_kw]
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        raise WrtError(
            f"s2sad cannot differentiate {f.__qualname__}: it takes *args or **kwargs",
            hint="List the parameters one by one.", **_at_def(f),
        )
    return list(names), n_pos


def normalize_wrt(f, wrt):
    """(`wrt` as a tuple of parameter names, whether the caller asked for a tuple)."""
    names, n_pos = _signature_params(f)
    as_tuple = isinstance(wrt, (tuple, list))
    items = list(wrt) if as_tuple else [wrt]
    if not items:
        raise WrtError(f"wrt=() asks for no gradient of {f.__qualname__}",
                       hint=f"Name a parameter: one of {', '.join(names)}.", **_at_def(f))
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise WrtError(f"wrt must be a parameter position, a parameter name or a tuple "
                           f"of them; got {item!r}",
                           hint=f"The parameters of {f.__qualname__} are {', '.join(names)}.",
                           **_at_def(f))
        if isinstance(item, int):
            if not -n_pos <= item < n_pos:
                raise WrtError(
                    f"wrt={item} is out of range: {f.__qualname__} has {n_pos} positional "
                    f"parameter{'s' if n_pos != 1 else ''} ({', '.join(names[:n_pos])})",
                    hint="Positions count from 0.", **_at_def(f))
            name = names[item % n_pos]
        else:
            if item not in names:
                raise WrtError(f"wrt={item!r} is not a parameter of {f.__qualname__}",
                               hint=f"Its parameters are {', '.join(names) or 'none'}.",
                               **_at_def(f))
            name = item
        if name in out:
            raise WrtError(f"wrt names the parameter {name!r} twice", **_at_def(f))
        out.append(name)
    return tuple(out), as_tuple


def _check_function(f, what):
    if getattr(f, "__s2sad__", None) is not None:
        from . import forward as forward_api

        forward_api.refuse_derived(f, what)  # (names the user's function, at its def)
    if isinstance(f, types.MethodType):
        raise S2SADError(f"{what} needs a plain function; got the bound method {f!r}",
                         hint="Differentiate a module-level function that takes the object's "
                              "values as arguments.")
    if not isinstance(f, types.FunctionType):
        raise S2SADError(f"{what} needs a Python function written with `def`; got {f!r}",
                         hint="For a built-in or C function, register a derivative rule "
                              "with s2sad.register_rule instead.")


# ------------------------------------------------------------------ cache


def _still_valid(unit) -> bool:
    for func, name, obj in unit.resolved:
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
        if parse.lookup(name, func.__globals__, cells) is not obj:
            return False
    return True


def _unit(f, wrt, entry, kinds, as_tuple, checkpoint=None, copy_views=False):
    """The compiled unit for these options, built (and cached) when needed
    (`copy_views`: the gradient second derivatives differentiate, see
    `pipeline.reverse_unit`; never on disk)."""
    key = (entry, wrt, as_tuple, tuple(kinds.items()), checkpoint, copy_views)
    per_code = _units.get(f.__code__)
    if per_code is not None:
        got = per_code.get(key)
        if got is not None and got[0].root is f and _still_valid(got[0]):
            return got
    hit, ticket = (None, None) if copy_views else diskcache.lookup(
        f, entry, wrt, kinds=kinds, as_tuple=as_tuple, checkpoint=checkpoint)
    if hit is not None:
        unit, compiled = hit
    else:
        unit = pipeline.reverse_unit(f, wrt, entry, kinds, as_tuple, checkpoint, copy_views)
        compiled = compile_mod.compile_unit(unit)
        if ticket is not None:
            diskcache.save(ticket, unit)
    unit.root = f
    _units.setdefault(f.__code__, {})[key] = (unit, compiled)
    return unit, compiled


def _kinds(f, values: dict, wrt, what):
    kinds = {}
    for name, value in values.items():
        kind = kind_of(value)
        if name in wrt:
            if isinstance(kind, ArrayKind) and kind.dtype in ("i", "b"):
                raise IntegerArgumentError(
                    f"{what} of {f.__qualname__} with respect to `{name}`: it is an array of "
                    f"{value.dtype}, and gradients are taken with respect to real numbers",
                    hint=f"Pass a float array: {name}.astype(float).", **_at_def(f))
            if kind == INT:
                raise IntegerArgumentError(
                    f"{what} of {f.__qualname__} with respect to `{name}`: its value "
                    f"{value!r} is an integer, and gradients are taken with respect to "
                    "real numbers",
                    hint=f"Pass a float (for example {float(value)!r} instead of {value!r}), "
                         "or take the gradient with respect to another parameter.",
                    **_at_def(f))
            if not differentiable(kind) or isinstance(kind, tuple):
                raise WrtError(
                    f"{what} of {f.__qualname__} with respect to `{name}`: its value is a "
                    f"{type(value).__name__}, and s2sad differentiates with respect to "
                    "floats",
                    hint="Pass each number as its own argument.", **_at_def(f))
        kinds[name] = kind
    return with_shapes(kinds, values)


# -------------------------------------------------------------- dispatcher


class _State:
    """One `grad(f)` (or `value_and_grad(f)`): its dispatcher and specialisations.

    The dispatcher is generated Python with `f`'s parameter list. Its fast path checks
    the argument types of the first specialisation with ``type(x) is T`` (and that
    the functions `f` calls are still the same objects) and calls the compiled
    derivative; anything else goes to `miss`, which looks up or builds the
    specialisation for the argument types it got."""

    def __init__(self, f, wrt, entry, as_tuple, checkpoint=None):
        self.f = f
        self.wrt = wrt
        self.entry = entry
        self.as_tuple = as_tuple
        self.checkpoint = checkpoint
        self.names, self.n_pos = _signature_params(f)
        self.specs: dict = {}  # tuple of argument types -> compiled derivative
        self.primary = None  # (types, function) the fast path checks for
        self.guards: list = []  # (kind, container, name, obj)
        self.ns = {"__builtins__": __builtins__, "_miss": self.miss,
                   "_explain": compile_mod.explain}
        self.dispatcher = None
        _states.add(self)

    def call_text(self) -> str:
        pos = self.names[: self.n_pos]
        kw = self.names[self.n_pos:]
        return ", ".join(pos + [f"{k}={k}" for k in kw])

    def source(self) -> str:
        pos = self.names[: self.n_pos]
        kw = self.names[self.n_pos:]
        params = ", ".join(pos + (["*"] + kw if kw else []))
        call = self.call_text()
        name = self.f.__name__ if self.f.__name__.isidentifier() else "f"
        lines = [f"def {name}({params}):"]
        if self.primary is not None:
            checks = []
            for i, n in enumerate(self.names):
                checks.append(f"type({n}) is _T{i}")
                signature = self.primary[0][i]
                if isinstance(signature, tuple) and len(signature) == 2:
                    # a list of floats: every element a float (a list of ints: ints)
                    checks.append(f"set(map(type, {n})) == _E{i}")
                elif isinstance(signature, tuple):  # an array: rank and dtype too
                    checks.append(f"{n}.ndim == _N{i} and {n}.dtype is _D{i}")
            for i, (kind, _, gname, _) in enumerate(self.guards):
                if kind == "global":
                    checks.append(f"_G{i}.get({gname!r}) is _O{i}")
                else:
                    checks.append(f"_G{i}.cell_contents is _O{i}")
            checks += self.shape_checks()
            if checks:
                lines.append(f"    if {' and '.join(checks)}:")
                lines.append(f"        return _F({call})")
            else:
                lines.append(f"    return _F({call})")
        lines.append(f"    return _miss({call})")
        # an error in the derivative gets a note naming the user's line (a `try`
        # costs nothing until something raises)
        body = ["    " + line for line in lines[1:]]
        lines = lines[:1] + ["    try:"] + body + [
            "    except Exception as e:", "        _explain(e)", "        raise"]
        return "\n".join(lines) + "\n"

    def shape_checks(self) -> list:
        """What the primary specialisation assumes of the arrays' shapes: which axes
        have length 1 and which have equal lengths (`shape_pattern`). It relies
        on nothing else, so a call with more equal lengths may use it too."""
        axes: dict = {}
        for name, dims in zip(self.names, self.primary[0][-1] or ()):
            for i, label in enumerate(dims or ()):
                axes.setdefault(label, []).append(f"{name}.shape[{i}]")
        checks = [f"{a} == 1" for a in axes.pop(1, [])]
        checks += [" == ".join(same) for same in axes.values() if len(same) > 1]
        return checks

    def build(self):
        if self.primary is not None:
            for i, t in enumerate(self.primary[0][:len(self.names)]):
                if isinstance(t, tuple) and len(t) == 2:
                    self.ns[f"_E{i}"] = {_uniform_list(t)}
                    t = t[0]
                elif isinstance(t, tuple):
                    t, self.ns[f"_N{i}"], self.ns[f"_D{i}"] = t
                self.ns[f"_T{i}"] = t
            self.ns["_F"] = self.primary[1]
        for i, (_, container, _, obj) in enumerate(self.guards):
            self.ns[f"_G{i}"] = container
            self.ns[f"_O{i}"] = obj
        code = compile(self.source(), f"<s2sad dispatcher {self.f.__qualname__}>", "exec")
        inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        if self.dispatcher is None:
            d = types.FunctionType(inner, self.ns, self.f.__name__, self.f.__defaults__)
            d.__kwdefaults__ = self.f.__kwdefaults__
            d.__qualname__ = self.f.__qualname__
            d.__module__ = self.f.__module__
            d.__doc__ = self.f.__doc__
            d.__wrapped__ = self.f
            d.__s2sad__ = self
            self.dispatcher = d
        else:
            self.dispatcher.__code__ = inner
        return self.dispatcher

    def reset(self):
        """Forget every specialisation (a called function changed, or a rule)."""
        self.specs.clear()
        self.primary = None
        self.guards = []
        self.build()

    def guards_hold(self) -> bool:
        for kind, container, name, obj in self.guards:
            current = container.get(name) if kind == "global" else container.cell_contents
            if current is not obj:
                return False
        return True

    def miss(self, *args, **kwargs):
        with _lock:
            if not self.guards_hold():
                self.reset()
            values = dict(zip(self.names, args))
            values.update(kwargs)
            key = tuple(_signature(values[n]) for n in self.names) + (_pattern(values),)
            fn = self.specs.get(key)
            if fn is None:
                kinds = _kinds(self.f, values, self.wrt, self.entry)
                try:
                    unit, compiled = _unit(self.f, self.wrt, self.entry, kinds,
                                           self.as_tuple, self.checkpoint)
                except SourceNotFoundError as exc:
                    exc.hint = " ".join(filter(None, [exc.hint, tape_fallback(self.f,
                                                                              self.entry)]))
                    raise
                fn = compile_mod.bind(unit, compiled)[unit.entry[0]]
                guards = _guards(unit)
                self.specs[key] = fn
                changed = [g[1:] for g in guards] != [g[1:] for g in self.guards]
                if changed:
                    self.guards = guards
                if changed or self.primary is None and _fast(key):
                    self.primary = (key, fn) if _fast(key) else None
                    self.build()
        result = fn(*args, **kwargs)
        lists = [n for n in self.wrt if _retyped_list(values[n])]
        if lists:  # (elements the compiled gradient does not type: see _retyped_list)
            grads = result[1] if self.entry == "value_and_grad" else result
            grads = list(grads) if self.as_tuple or len(self.wrt) > 1 else [grads]
            typed = typed_gradients(values, lists, [grads[self.wrt.index(n)] for n in lists])
            for n, g in zip(lists, typed):
                grads[self.wrt.index(n)] = g
            grads = tuple(grads) if self.as_tuple or len(self.wrt) > 1 else grads[0]
            result = (result[0], grads) if self.entry == "value_and_grad" else grads
        return result


def _retyped_list(x) -> bool:
    """Is `x` a list whose elements' gradients need their types put back (a 0-d
    array's gradient may come out a NumPy scalar, a float32 array's float64)? The
    compiled gradient types each argument by its kind, and a list's kind does not
    tell its elements' dtypes; the dispatcher (which sees the values) does it. The
    kind tells the elements' shapes only for a list of at most `ITEMS` elements
    (`ListKind.items`): in a longer one, an array nothing reads gets 0.0, which
    `typed_like` makes zeros of its shape."""
    if type(x) is not list:
        return False
    if len(x) > ITEMS and any(getattr(e, "ndim", 0) for e in x):
        return True
    for e in x:
        if type(e) is list and _retyped_list(e) or getattr(e, "ndim", None) == 0 or \
                getattr(e, "dtype", None) is not None and getattr(e, "ndim", 0) and \
                e.dtype.name != "float64":
            return True
    return False


def _pattern(values: dict) -> tuple:
    """Per argument, the `dims` labels of an array's shape (None for anything else;
    for a list whose kind lists its elements, ``("items", labels per element)``:
    `with_shapes` gives them to the kind)."""
    shaped = shaped_arguments(values)
    if not shaped:
        return ()
    labels: dict = {}
    for (n, i, _), dims in zip(shaped, shape_pattern([shape for _, _, shape in shaped])):
        if i is None:
            labels[n] = dims
        else:
            labels.setdefault(n, ["items"]).append((i, dims))
    return tuple(tuple(labels[n]) if isinstance(labels.get(n), list) else labels.get(n)
                 for n in values)


def _signature(value):
    """What the derivative's code depends on in an argument: its type, and for a
    NumPy array its rank and dtype; for a list or a tuple its kind (what its elements
    are: `kind_of`), as ``(type, kind)``."""
    tp = type(value)
    if tp.__module__ == "numpy" and tp.__name__ == "ndarray":
        return (tp, value.ndim, value.dtype)
    if tp is list or tp is tuple:
        return (tp, kind_of(value))
    return tp


def _fast(key) -> bool:
    """Can the dispatcher's fast path recognise the arguments of `key` by their types
    (and arrays' ranks and dtypes)? A list of floats (or of ints) it can: the set of
    its elements' types, computed in C, is ``{float}``. Not another list or a tuple:
    what the derivative depends on is in its elements (a list of vectors and one of
    matrices take different rules), which only `miss` looks at."""
    return all(_uniform_list(s) is not None for s in key[:-1]
               if isinstance(s, tuple) and len(s) == 2)


def _uniform_list(signature):
    """The one element type of a list whose `_signature` says it holds only floats
    (or only ints), which the fast path checks; None for any other list or tuple."""
    tp, kind = signature
    if tp is list and isinstance(kind, ListKind) and kind.items is None:
        return {SCALAR: float, INT: int}.get(kind.elem)
    return None


def _guards(unit) -> list:
    """What the dispatcher re-checks on every call: the names that resolved to a
    function s2sad differentiates or to a callable with a rule."""
    out = []
    for func, name, obj in unit.resolved:
        if not (isinstance(obj, types.FunctionType) or rules.has_rule(obj)):
            continue
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
        if name in cells:
            g = ("cell", cells[name], name, obj)
        elif name in func.__globals__:
            g = ("global", func.__globals__, name, obj)
        else:
            continue  # a builtin
        if not any(x[1] is g[1] and x[2] == name for x in out):
            out.append(g)
    return out


def _transformed(f, wrt, entry, checkpoint=None):
    _check_function(f, entry)
    wrt, as_tuple = normalize_wrt(f, wrt)
    return _State(f, wrt, entry, as_tuple, checkpoint).build()


def _checkpoint_option(checkpoint, snapshots, what, mode="reverse"):
    """``checkpoint=`` and ``snapshots=`` of `grad` and friends as the pipeline takes
    them: None, or ``(schedule, snapshots)``."""
    if checkpoint is None:
        if snapshots is not None:
            raise S2SADError(f"{what}(snapshots={snapshots!r}) needs a schedule",
                             hint='Add checkpoint="binomial" (or "ctz").')
        return None
    if checkpoint not in SCHEDULES:
        raise S2SADError(f"{what} has no checkpoint schedule {checkpoint!r}; the schedules "
                         f"are {', '.join(map(repr, SCHEDULES))}, or None (a tape)")
    if snapshots is not None and (isinstance(snapshots, bool) or not isinstance(
            snapshots, int) or snapshots < 1):
        raise S2SADError(f"{what}(snapshots={snapshots!r}): the number of snapshots is an "
                         "integer of at least 1")
    if mode != "reverse":
        raise S2SADError(f"{what}(checkpoint=...) checkpoints the loops of the compiled "
                         f"reverse mode, not mode={mode!r}")
    return (checkpoint, snapshots)


# ------------------------------------------------------------------ the tape

MODES = ("reverse", "forward", "tape")


def tape_fallback(f, entry="grad") -> str:
    """The hint a `SourceNotFoundError` from `grad` gets: the tape engine needs no
    source."""
    name = getattr(f, "__name__", "f")
    name = name if name.isidentifier() else "f"
    return (f'Or differentiate it without reading the source: s2sad.{entry}({name}, '
            f'mode="tape") runs it on the tape engine.')


def _check_mode(mode, what):
    if mode in MODES:
        return
    raise S2SADError(f"{what} has no mode {mode!r}; the modes are \"reverse\" (the "
                     "compiler, the default), \"forward\" (the compiler's forward mode: "
                     "one pass per input number) and \"tape\" (the tape engine: runs the "
                     "function on traced values, no source needed)")


def _taped(f, wrt, entry):
    """`grad(f, wrt, mode="tape")` (or `value_and_grad`): a function with `f`'s
    parameters that runs `f` on the tape engine."""
    if getattr(f, "__s2sad__", None) is not None:
        raise S2SADError(f"{entry} of a function s2sad already transformed is not supported "
                         "yet", hint="Differentiate the original function.")
    if not callable(f):
        raise S2SADError(f"{entry} needs a function; got {f!r}")
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):
        raise S2SADError(f"{entry}(mode=\"tape\") cannot read the parameters of {f!r}",
                         hint="Wrap it in a Python function.") from None
    params = list(signature.parameters.values())
    names = None  # (the parameters `wrt` names, when they are plain parameters)
    if isinstance(f, types.FunctionType) and not f.__code__.co_flags & (
            inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        names, as_tuple = normalize_wrt(f, wrt)  # refuses a bad wrt now, as mode="reverse"
        wrt = names if as_tuple else names[0]
    elif isinstance(wrt, list):
        wrt = tuple(wrt)
    keyword_only = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
    for name in (wrt if isinstance(wrt, tuple) else (wrt,)):
        if name in keyword_only:
            raise WrtError(f"{entry}(mode=\"tape\") differentiates with respect to "
                           f"positional parameters; `{name}` is keyword-only",
                           hint="Make it a positional parameter.")
    with_value = entry == "value_and_grad"

    @functools.wraps(f)
    def taped(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{getattr(f, '__qualname__', f)}(): {exc}") from None
        bound.apply_defaults()
        value, gradient = tape_grad(f, bound.args, wrt, bound.kwargs)
        if names is not None:  # (each gradient with its argument's type, as grad's)
            grads = typed_gradients(bound.arguments, names,
                                    gradient if isinstance(wrt, tuple) else (gradient,))
            gradient = tuple(grads) if isinstance(wrt, tuple) else grads[0]
        return (value, gradient) if with_value else gradient

    taped.__s2sad__ = "tape"
    return taped


def _by_forward_mode(f, wrt, entry):
    """`grad(f, wrt, mode="forward")`: the gradient from one forward pass per input
    number (the compiler's forward mode, see `forward_api`)."""
    from . import forward as forward_api

    _check_function(f, entry)
    names, as_tuple = normalize_wrt(f, wrt)

    @functools.wraps(f)
    def by_forward_mode(*args, **kwargs):
        value, gradient = forward_api.value_and_grad_by_forward_mode(f, names, as_tuple,
                                                                     args, kwargs)
        return (value, gradient) if entry == "value_and_grad" else gradient

    by_forward_mode.__s2sad__ = "forward"
    return by_forward_mode


# ------------------------------------------------------------------ public


def grad(f=None, wrt=0, mode="reverse", debug=None, checkpoint=None, snapshots=None):
    """The gradient of `f`'s scalar output with respect to the parameter(s) `wrt`.

    `wrt` is a parameter position, a parameter name, or a tuple of them (then the
    gradient is a tuple). Use as ``grad(f)``, ``@grad`` or ``@grad(wrt=("x", "y"))``.
    The returned function takes the same arguments as `f`.

    ``mode="reverse"`` (the default) compiles the derivative from `f`'s source;
    ``mode="tape"`` runs `f` on the tape engine instead: no source needed (functions
    made by `exec`, at a REPL, lambdas; constructs the compiler refuses), same
    results, slower calls.

    ``debug=True`` (default: the ``S2SAD_DEBUG_NANS`` environment variable) raises
    `NonFiniteError` at the first user line whose derivative becomes NaN or
    infinite (see `debug`); calls are much slower.

    ``checkpoint="ctz"`` or ``"binomial"`` (with ``snapshots=s``, default 10)
    checkpoints the outermost loops of `f` as if each were marked with
    `s2sad.checkpointed` (a ``while`` loop, or one with a ``break``, always with
    CTZ), except loops marked already and loops the schedule cannot reverse (a
    ``return`` inside, an in-place change of what the loop carries or reads), which
    keep their tape.
    ``s2sad.source(f, checkpoint=...)`` shows which is which.
    """
    _check_mode(mode, "grad")
    ckpt = _checkpoint_option(checkpoint, snapshots, "grad", mode)
    if f is None:
        return lambda g: grad(g, wrt, mode, debug, checkpoint, snapshots)
    if _debugging(debug) and mode == "reverse":
        return _debugged(grad(f, wrt, mode, False, checkpoint, snapshots))
    inner = getattr(f, "__s2sad__", None)
    if isinstance(inner, _State) and ckpt is not None:
        raise S2SADError("grad(grad(f), checkpoint=...) is not supported: the outer "
                         "derivative is forward mode over the gradient's code, which "
                         "has no reverse sweep to checkpoint",
                         hint="Drop checkpoint= from the outer grad; second derivatives "
                              "reverse the loops of f with their tape.")
    if isinstance(inner, _State) and inner.entry == "grad" and not inner.as_tuple \
            and mode == "reverse":
        # grad(grad(f)): forward mode over the compiled gradient (which does not
        # checkpoint, even for grad(f, checkpoint=...): see _gradient_function)
        from . import forward as forward_api

        return forward_api.grad_of_gradient(inner, inner.f, inner.wrt, wrt)
    if mode == "tape":
        return _taped(f, wrt, "grad")
    if mode == "forward":
        return _by_forward_mode(f, wrt, "grad")
    return _transformed(f, wrt, "grad", ckpt)


def value_and_grad(f=None, wrt=0, mode="reverse", debug=None, checkpoint=None,
                   snapshots=None):
    """Like `grad`, but the returned function gives ``(f(...), gradient)``."""
    _check_mode(mode, "value_and_grad")
    ckpt = _checkpoint_option(checkpoint, snapshots, "value_and_grad", mode)
    if f is None:
        return lambda g: value_and_grad(g, wrt, mode, debug, checkpoint, snapshots)
    if _debugging(debug) and mode == "reverse":
        return _debugged(value_and_grad(f, wrt, mode, False, checkpoint, snapshots))
    if mode == "tape":
        return _taped(f, wrt, "value_and_grad")
    if mode == "forward":
        return _by_forward_mode(f, wrt, "value_and_grad")
    return _transformed(f, wrt, "value_and_grad", ckpt)


def _debugging(debug) -> bool:
    if debug is None:
        return os.environ.get("S2SAD_DEBUG_NANS", "") not in ("", "0")
    return bool(debug)


def _debugged(g):
    from . import debug

    @functools.wraps(g)
    def checked(*args, **kwargs):
        return debug.run(g, args, kwargs)

    return checked


def _compiled_gradient(f, wrt, args, kwargs=None):
    """The compiled function `grad(f, wrt)` calls for these arguments (every
    parameter given, defaults included), for `s2sad.check`, which runs it on the dual
    engine to get a Hessian."""
    _check_function(f, "grad")
    wrt_names, as_tuple = normalize_wrt(f, wrt)
    names, _ = _signature_params(f)
    values = dict(zip(names, args))
    values.update(kwargs or {})
    kinds = _kinds(f, values, wrt_names, "grad")
    with _lock:
        unit, compiled = _unit(f, wrt_names, "grad", kinds, as_tuple)
        return compile_mod.bind(unit, compiled)[unit.entry[0]]


def vjp(f, *primals, checkpoint=None, snapshots=None):
    """``(out, pullback)``: `f` evaluated at `primals`, and a function that maps an
    adjoint of `out` (same structure as `out`) to one adjoint per positional argument,
    with its argument's type (``None`` for an argument that is held fixed: an integer,
    a bool, an array of integers, None). An argument that is none of those nor a
    float, a float array, or a list or tuple of them (a string, a dict, a complex
    number, another library's array) is refused. `checkpoint` and `snapshots` as for
    `grad`."""
    return _vjp(f, primals, checkpoint, snapshots)


def fixed_argument(value) -> bool:
    """Is `value` an argument that has no derivative and needs none: an integer, a
    bool, None, or a list, tuple or array of integers or bools? (Its adjoint is None,
    and grad refuses it as `wrt`.)"""
    if value is None:
        return True
    kind = kind_of(value)
    return not differentiable(kind) and _numeric_kind(kind)


def _numeric_kind(kind) -> bool:
    if isinstance(kind, tuple):
        return all(_numeric_kind(k) for k in kind)
    if isinstance(kind, ListKind):  # (its elements one by one where it lists them)
        return _numeric_kind(kind.elem) if kind.items is None else \
            all(_numeric_kind(k) for k in kind.items)
    if isinstance(kind, ArrayKind):
        return kind.dtype != "c" and kind.dtype != "?"
    return kind in (SCALAR, INT, UNKNOWN)


def _vjp(f, primals, checkpoint=None, snapshots=None, held=()):
    """`vjp`; the parameters named in `held` are held fixed whatever they are (with
    None as their adjoints), as `jacobian(mode="reverse")` holds its options."""
    ckpt = _checkpoint_option(checkpoint, snapshots, "vjp")
    _check_function(f, "vjp")
    names, n_pos = _signature_params(f)
    if len(primals) > n_pos:
        raise WrtError(f"vjp got {len(primals)} arguments; {f.__qualname__} takes at most {n_pos}")
    values = dict(zip(names, primals))
    kinds = with_shapes({n: kind_of(v) for n, v in values.items()}, values)
    for name, value in values.items():
        if name in held or fixed_argument(value) or differentiable(kinds[name]) and \
                _numeric_kind(kinds[name]):
            continue
        what = type(value).__name__
        if type(value).__module__ == "numpy" and what == "ndarray":
            what = f"array of {value.dtype}"
        raise WrtError(
            f"vjp of {f.__qualname__}: `{name}` is {'an' if what[0] in 'aeiou' else 'a'} "
            f"{what}; vjp gives an adjoint for every positional argument that is a float, "
            "a float array, or a list or tuple of those, and None for one held fixed (an "
            "integer, a bool, an array of integers, None)",
            hint=f"Leave `{name}` out of the arguments: take the vjp of a function that "
                 f"gets it from outside (a closure or a default value).", **_at_def(f))
    wrt = tuple(n for n in names[: len(primals)]
                if n not in held and differentiable(kinds[n]))
    with _lock:
        unit, compiled = _unit(f, wrt, "vjp", kinds, True, ckpt)
        made = compile_mod.bind(unit, compiled)
    fwd, bwd = (made[n] for n in unit.entry)
    try:
        out, saved = fwd(*primals)
    except Exception as exc:
        compile_mod.explain(exc)
        raise
    positions = [names.index(n) for n in wrt]
    retyped = [i for i in positions if _retyped_list(primals[i])]
    state = [saved]

    def pullback(out_bar):
        if not _fits(out, out_bar):
            raise S2SADError(f"the pullback of {f.__qualname__} takes an adjoint with the "
                             f"structure of its output {out!r}; got {out_bar!r}",
                             hint="Pass a tuple for a tuple, a list of the same length for "
                                  "a list, a number for a number.")
        # the backward sweep consumes what the forward sweep saved (its tapes, the
        # slots it restores into arrays): a second call runs the forward sweep again
        try:
            saved = state.pop() if state else fwd(*primals)[1]
            grads = bwd(saved, out_bar)
        except Exception as exc:
            compile_mod.explain(exc)
            raise
        result = [None] * len(primals)
        for i, g in zip(positions, grads):
            result[i] = g
        if retyped:  # (list elements: see _retyped_list)
            for i, g in zip(retyped, typed_gradients(values, [names[i] for i in retyped],
                                                     [result[i] for i in retyped])):
                result[i] = g
        return tuple(result)

    return out, pullback


def typed_like(g, x, narrow=False):
    """`g`, a derivative computed for the argument `x` (its gradient, a tangent of its
    shape, a Jacobian or Hessian block), with `x`'s type, by the rule the compiled
    gradient follows (`pipeline.gradient_cast`): a float32 array's is float32, a 0-d
    array's a 0-d array, a float's a float when some argument is a narrower array
    (`narrow`, `pipeline.narrow_arrays`). A list's, element by element; None stays
    None."""
    if g is None:
        return None
    if isinstance(x, list) and isinstance(g, list) and len(g) == len(x):
        return [typed_like(e, v, narrow) for e, v in zip(g, x)]
    if isinstance(x, tuple) and isinstance(g, tuple) and len(g) == len(x):
        return tuple(typed_like(e, v, narrow) for e, v in zip(g, x))
    kind = kind_of(x)
    if isinstance(kind, ArrayKind):
        kind = with_shapes({"x": kind}, {"x": x})["x"]
        if kind.ndim and type(g) in (float, int) and g == 0:
            # (an element of a long list that nothing read: see _retyped_list)
            import numpy as np

            g = np.zeros_like(x, float)
    cast = pipeline.gradient_cast(kind, narrow)
    if cast == "float" or kind == SCALAR and not isinstance(g, float) \
            and _one_number(g):
        # (forward mode carries a number's tangent through NumPy calls that return 0-d
        # arrays, ``np.where(c, s_dot, 0.0)``, or NumPy scalars of a narrower dtype;
        # the compiled gradient's own code avoids both: `gradient_cast` is None there)
        return float(g)
    if cast is not None:
        import numpy as np

        return np.asarray(g, getattr(np, cast))
    return g


def _one_number(g) -> bool:
    """Is `g` one real number of any type (a 0-d array, a NumPy scalar, an int)?"""
    import numpy as np

    return isinstance(g, (int, np.ndarray, np.number)) and np.ndim(g) == 0 \
        and not np.iscomplexobj(g)


def typed_gradients(arguments: dict, names, grads) -> list:
    """The gradients `grads` of the arguments `names` (of `arguments`, every argument
    of the call) with their arguments' types (`typed_like`)."""
    values = {n: v for n, v in arguments.items()}
    kinds = with_shapes({n: kind_of(v) for n, v in values.items()}, values)
    narrow = pipeline.narrow_arrays(kinds)
    return [typed_like(g, arguments[n], narrow) for n, g in zip(names, grads)]


def _fits(out, out_bar) -> bool:
    """Has the seed `out_bar` the structure of the output `out` (tuples and lists
    of the same length, all the way down)?"""
    if isinstance(out, (tuple, list)):
        return isinstance(out_bar, (tuple, list)) and len(out_bar) == len(out) and \
            all(_fits(o, b) for o, b in zip(out, out_bar))
    if type(out).__module__ == "numpy" and type(out).__name__ == "ndarray":
        return getattr(out_bar, "shape", None) == out.shape
    return not isinstance(out_bar, (tuple, list))


def source(f, mode="reverse", wrt=0, stage="reverse", example=None, checkpoint=None,
           snapshots=None) -> str:
    """The text s2sad emits for `f` at `stage` (``source``, ``anf``, ``dup``,
    ``activity``, ``reverse`` or ``forward``), formatted with black. With
    ``mode="forward"`` the derivative shown is the forward-mode one (``f_jvp``).

    The derivative depends on the kinds of the arguments (float, int, list). Give
    `example`, a tuple of example arguments, to see the code a call with such
    arguments runs; without it every parameter is taken to be a float, except those
    the function indexes, measures with len(), sums or appends to, which are taken
    to be lists of floats. `checkpoint` and `snapshots` as for `grad`: the code
    shows which loops a scheduler (`ckpt.forward`) runs and which keep a tape."""
    if mode not in ("reverse", "forward"):
        raise S2SADError(f"mode={mode!r} is not a mode of the compiler; use \"reverse\" or "
                         "\"forward\"")
    if mode == "forward" and stage == "reverse":
        stage = "forward"
    ckpt = _checkpoint_option(checkpoint, snapshots, "source", mode)
    if ckpt is not None and stage != "reverse":
        raise S2SADError(f"source(checkpoint=...) changes the reverse stage only, not "
                         f"stage={stage!r}")
    _check_function(f, "source")
    if stage == "source":
        return parse.user_source(f)
    wrt_names, as_tuple = normalize_wrt(f, wrt)
    if example is not None:
        kinds = pipeline.kinds_of_example(f, example)
        names, _ = _signature_params(f)
        _kinds(f, {n: v for n, v in zip(names, example)}, wrt_names, "source")
    else:
        kinds = pipeline.assumed_kinds(f)
    if stage == "reverse":
        unit = pipeline.reverse_unit(f, wrt_names, "grad", kinds, as_tuple, ckpt)
        return format_code(unit.text)
    if stage == "forward":
        return format_code(pipeline.forward_unit(f, wrt_names, kinds).text)
    if stage not in pipeline.STAGES:
        raise S2SADError(f"unknown stage {stage!r}; choose one of {', '.join(pipeline.STAGES)}")
    module = pipeline.stage_module(f, stage, wrt_names, kinds)
    return format_code(emit.emit_module(module).text)


def format_code(text: str) -> str:
    """`text` as black formats it (our emitter already writes black's style, so this
    only changes lines longer than 88 characters)."""
    try:
        import black
    except ImportError:  # pragma: no cover - black is a dependency
        return text
    try:
        return black.format_str(text, mode=black.Mode())
    except Exception:  # pragma: no cover - never hide the code because of the formatter
        return text
