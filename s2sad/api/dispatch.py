"""The compiled derivatives the entry points run, and the caches that keep them.

`compiled_reverse` and `compiled_forward` find or build (with the driver) and
compile the unit for a function, its `wrt`, argument kinds and options;
`gradient_to_differentiate` is the reverse-mode gradient second derivatives run
forward mode over. `State` is one ``grad(f)``: its dispatcher, generated Python
with `f`'s exact parameter list, so no ``*args`` packing happens on the way. Its
first call with a given set of argument types builds the derivative and remembers
it; every later call is a check of the argument types, a check that the functions
`f` calls are still the ones the derivative was built from (`State.guards`), and a
plain call of the generated function.

Cache: derivatives are kept per code object (so a redefined function is transformed
afresh), per mode, `wrt`, output form and argument kinds. An entry is used only while
every name its transform resolved (the functions it calls) still means the same
object (`still_valid`). A transform that fails caches nothing. When the disk cache
is on (`s2sad.enable_disk_cache`, see `diskcache`), a miss here looks for the
emitted source on disk before running the pipeline, and stores what the pipeline
builds. Registering a rule forgets everything (`forget_everything`).

Logged (``logging.getLogger("s2sad.api.dispatch")``, INFO): each derivative built,
with its function, mode, `wrt`, argument kinds and the time of each stage (see
`builder._Builder.timed`; ``compile``: `compile.compile_unit`), and each one built
again because a name its transform resolved now means another object. A hit in
the in-memory cache runs no logging code and reads no clock.

The pipeline runs under `lock` (an `RLock`), whoever runs it. Imports `arguments`
from `api`.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import types
import weakref
from dataclasses import dataclass

from .. import primitives as rules
from ..backend import compile as compile_mod
from ..backend import diskcache, native
from ..checkpoint import CTZ, Binomial
from ..driver import builder, effects, stages
from ..errors import CheckpointError, SourceNotFoundError, user_traceback
from ..frontend import defaults, parse
from ..ir.kinds import (INT, SCALAR, ListKind, attribute_signature, decides_attributes,
                        method_names, namespace_of, shadows, shape_pattern, shaped_arguments,
                        user_class)
from ..transform import batching
from . import guards, structured
from .arguments import (argument_kinds, check_function, held_kinds, normalize_wrt,
                        retyped_list, signature_params, typed_gradients)

lock = threading.RLock()
log = logging.getLogger(__name__)
STAGES = ("parse", "activity", "transform", "simplify", "emit", "compile")
_units: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # reverse mode
_states: "weakref.WeakSet" = weakref.WeakSet()  # every `State`
_forward_units: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_gradients: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # for forward mode


def forget_everything():
    """A rule was registered: every derivative built before may be out of date."""
    with lock:
        _units.clear()
        for state in list(_states):
            state.reset()
        _forward_units.clear()
        _gradients.clear()


rules.ON_CHANGE.append(forget_everything)


def still_valid(unit) -> bool:
    """Does every name `unit`'s transform resolved still mean the same object (and
    every attribute of the user's resolved to a function, `guards.attribute_guards`,
    and every number or array a chain of attributes reached, and every list, has the
    kind it had, `guards.value_guards`), an object of the user's holding none of its
    class's methods itself?"""
    for func, name, obj in unit.resolved:
        cells = parse.cells_of(func)
        if parse.lookup(name, func.__globals__, cells) is not obj:
            return False
        if shadows(obj):
            return False  # (an object of the user's now holds one of its methods)
    return all(map(guards.holds, guards.attribute_guards(unit, []) +
                   guards.value_guards(unit, [], True) + guards.function_guards(unit) +
                   guards.decided_guards(unit)))


def compiled_reverse(f, wrt, entry, kinds, as_tuple, checkpoint=None, copy_views=False):
    """``(unit, compiled)``: the reverse-mode unit for these options, built (and
    cached) when needed (`copy_views`: the gradient second derivatives
    differentiate, see `builder.reverse_unit`; never on disk). The caller holds
    `lock`."""
    key = (entry, wrt, as_tuple, tuple(kinds.items()), checkpoint, copy_views)
    per_code = _units.get(f.__code__)
    if per_code is not None:
        got = per_code.get(key)
        if got is not None and got[0].root is f:
            if still_valid(got[0]):
                return got
            _log_stale(f, got[0])
    hit, ticket = (None, None) if copy_views else diskcache.lookup(
        f, entry, wrt, kinds=kinds, as_tuple=as_tuple, checkpoint=checkpoint)
    if hit is not None:
        unit, compiled = hit
    else:
        # (kept: not the unit's IR, which nothing after the build reads; it is freed
        # before the collector, off while building, is back on and would walk it)
        with stages.building():
            start = time.perf_counter()
            unit = builder.reverse_unit(f, wrt, entry, kinds, as_tuple, checkpoint, copy_views)
            compiling = time.perf_counter()
            compiled = compile_mod.compile_unit(unit, namespace_of(kinds))
            unit.times["compile"] = time.perf_counter() - compiling
            _log_built(f, entry, wrt, kinds, unit.times, time.perf_counter() - start)
            if ticket is not None:
                diskcache.save(ticket, unit)
            unit = _kept(unit)
    unit.root = f
    guards.built_signatures(unit)
    _units.setdefault(f.__code__, {})[key] = (unit, compiled)
    return unit, compiled


def _kept(unit) -> diskcache.CachedUnit:
    """The record of a reverse unit just built and compiled that the cache keeps:
    what the disk cache rebuilds of an entry, not the unit's IR (tens of thousands of
    tree nodes for a long function, which nothing after the build reads)."""
    return diskcache.CachedUnit(
        [diskcache.CachedFunction(diskcache.CachedName(uf.fn.name, uf.fn.refs), uf.user,
                                  uf.keep_defaults) for uf in unit.functions],
        unit.entry, unit.helpers, unit.resolved, unit.texts,
        {uf.fn.name: unit.namer(uf.fn.name) for uf in unit.functions}, unit.text,
        from_disk=False, restores=unit.restores, decided=unit.decided,
        captured=unit.captured)


def compiled_forward(f, wrt: tuple, kinds: dict, batched=False, quiet=False):
    """``(unit, function)``: the forward derivative of `f`, compiled once per key;
    with `batched`, its tangents carry a leading axis of directions (``(None,
    None)`` when a line cannot, see `batching`); with `quiet`, without what `f` only
    prints, logs or checks (`builder.forward_unit`), for a pass after the first at the
    same point (the derivative itself where it has none of that)."""
    if quiet:
        unit, fn = compiled_forward(f, wrt, kinds, batched)
        if unit is None or not effects.reports(unit.functions):
            return unit, fn
    check_function(f, "jvp")
    key = (wrt, tuple(kinds.items()), batched) + (("quiet",) if quiet else ())
    with lock:
        per_code = _forward_units.setdefault(f.__code__, {})
        got = per_code.get(key)
        if got is not None and (got[0] is None or got[0].root is f and still_valid(got[0])):
            return got
        if got is not None and got[0].root is f:
            _log_stale(f, got[0])
        start = time.perf_counter()
        try:
            unit = builder.forward_unit(f, wrt, kinds, batched, quiet)
        except batching.NotBatchable:
            per_code[key] = (None, None)
            return None, None
        unit.root = f
        guards.built_signatures(unit)
        compiling = time.perf_counter()
        fn = compile_mod.bind(unit, compile_mod.compile_unit(unit, namespace_of(kinds)))[
            unit.entry[0]]
        unit.times["compile"] = time.perf_counter() - compiling
        _log_built(f, "jvp (batched)" if batched else "jvp", wrt, kinds, unit.times,
                   time.perf_counter() - start)
        per_code[key] = (unit, fn)
        return unit, fn


def _log_built(f, entry, wrt, kinds, times, total):
    """Log a derivative built: its function, entry point, mode, `wrt`, argument
    kinds, and the seconds each stage took (also on the record, as ``s2sad``)."""
    if not log.isEnabledFor(logging.INFO):
        return
    mode = "forward" if entry.startswith("jvp") else "reverse"
    stages = {s: times[s] for s in STAGES if s in times}
    log.info("built %s of %s (%s mode, wrt %s; %s) in %.1f ms: %s", entry, f.__qualname__,
             mode, ", ".join(wrt) or "nothing",
             ", ".join(f"{n}: {k}" for n, k in kinds.items()) or "no arguments",
             total * 1e3, ", ".join(f"{s} {t * 1e3:.1f} ms" for s, t in stages.items()),
             extra={"s2sad": {"function": f.__qualname__, "entry": entry, "mode": mode,
                              "wrt": tuple(wrt), "kinds": dict(kinds), "times": stages,
                              "total": total}})


def _log_stale(f, unit):
    """Log that `unit` is built again: a name it resolved now means another object."""
    if not log.isEnabledFor(logging.INFO):
        return
    for func, name, obj in unit.resolved:
        cells = parse.cells_of(func)
        if parse.lookup(name, func.__globals__, cells) is not obj:
            log.info("building the derivative of %s again: `%s` in %s now means another "
                     "object", f.__qualname__, name, func.__qualname__,
                     extra={"s2sad": {"function": f.__qualname__, "name": name}})
            return


def gradient_to_differentiate(f, names: tuple, arguments: dict, what="hessian"):
    """The compiled reverse-mode gradient of `f` with respect to `names` (a tuple of
    gradients), specialised on `arguments` (every parameter with its value), as one
    stable function object, so the forward-mode derivative of it is compiled once
    too.

    Second derivatives do not checkpoint: where the gradient would run loops through
    a checkpointing scheduler (loops marked with `s2sad.checkpointed`, in `f` or in a
    function it calls), whose calls the forward transform cannot see into, it is
    built again with every loop on its tape (`stages.TAPED_LOOPS`): the same
    function of the arguments, in memory proportional to the trip count."""
    kinds = argument_kinds(f, arguments, names, what)
    key = (names, tuple(kinds.items()))
    with lock:
        per_f = _gradients.setdefault(f, {})
        got = per_f.get(key)
        if got is not None and still_valid(got[0]):
            return got[1]
        try:
            unit, compiled = compiled_reverse(f, names, "grad", kinds, True, copy_views=True)
            scheduled = any(unit.helpers.get(c.__name__) is c for c in (CTZ, Binomial))
        except CheckpointError:  # (a marked loop the schedulers cannot take: its tape)
            scheduled = True
        if scheduled:
            unit, compiled = compiled_reverse(f, names, "grad", kinds, True,
                                              stages.TAPED_LOOPS, copy_views=True)
        if namespace_of(kinds) is not None:
            # (the NumPy names as NumPy's, for the forward transform to read: the
            # forward derivative of this gradient runs with the namespace's)
            compiled = compile_mod.compile_unit(unit)
        fn = compile_mod.bind(unit, compiled)[unit.entry[0]]
        per_f[key] = (unit, fn)
        return fn


def compiled_grad(f, wrt, args, kwargs=None):
    """The compiled function `grad(f, wrt)` calls for these arguments (every
    parameter given, defaults included), for `s2sad.check`, which runs it on the dual
    engine to get a Hessian."""
    check_function(f, "grad")
    wrt_names, as_tuple = normalize_wrt(f, wrt)
    names, _ = signature_params(f)
    values = dict(zip(names, args))
    values.update(kwargs or {})
    kinds = argument_kinds(f, values, wrt_names, "grad")
    with lock:
        unit, compiled = compiled_reverse(f, wrt_names, "grad", kinds, as_tuple)
        return compile_mod.bind(unit, compiled)[unit.entry[0]]


# -------------------------------------------------------------- dispatcher


def transformed(f, wrt, entry, checkpoint=None, jit=False):
    """The dispatcher of ``grad(f, wrt)`` (`entry` ``"grad"``) or of
    ``value_and_grad``; with `jit`, each specialisation compiled with numba
    (`native`)."""
    check_function(f, entry)
    wrt, as_tuple = normalize_wrt(f, wrt)
    return State(f, wrt, entry, as_tuple, checkpoint, jit).build()


class State:
    """One `grad(f)` (or `value_and_grad(f)`): its dispatcher and specialisations.

    The dispatcher is generated Python with `f`'s parameter list. Its fast path checks
    the argument types of the first specialisation with ``type(x) is T`` (and that
    the functions `f` calls are still the same objects) and calls the compiled
    derivative; anything else goes to `miss`, which looks up or builds the
    specialisation for the argument types it got."""

    def __init__(self, f, wrt, entry, as_tuple, checkpoint=None, jit=False):
        self.f = f
        self.jit = jit
        self.wrt = wrt
        self.entry = entry
        self.as_tuple = as_tuple
        self.checkpoint = checkpoint
        self.names, self.n_pos = signature_params(f)
        # (the names the dispatcher's text gives the parameters: a flat function's
        # leaves, ``params%W``, are not identifiers and are only positional)
        self.idents = [n if n.isidentifier() else f"_a{i}" for i, n in enumerate(self.names)]
        # tuple of argument types -> (compiled derivative, the guards it was built with)
        self.specs: dict = {}
        self.primary = None  # (types, function) the fast path checks for
        self.guards: list = []  # (kind, container, name, obj)
        self.ns = {"__builtins__": __builtins__, "_miss": self.miss,
                   "_explain": compile_mod.explain, "_user_traceback": user_traceback}
        self.dispatcher = None
        self.flat_states: dict = {}  # (flat function, its wrt) -> its dispatcher
        # the call with containers the dispatcher checks for first (`structured`)
        self.structured_fast = None
        self.structured_code = None  # (`f`'s code when `structured_fast` was made)
        _states.add(self)

    def call_text(self) -> str:
        pos = self.idents[: self.n_pos]
        kw = self.idents[self.n_pos:]
        return ", ".join(pos + [f"{k}={k}" for k in kw])

    def source(self) -> str:
        pos = self.idents[: self.n_pos]
        kw = self.idents[self.n_pos:]
        params = ", ".join(pos + (["*"] + kw if kw else []))
        call = self.call_text()
        name = self.f.__name__ if self.f.__name__.isidentifier() else "f"
        lines = [f"def {name}({params}):"]
        prologue = self.default_lines()
        if self.primary is not None:
            checks = []
            for i, n in enumerate(self.idents):
                checks.append(f"type({n}) is _T{i}")
                signature = self.primary[0][i]
                if isinstance(signature, _Held):
                    checks += _held_checks(n, i, signature, self.ns)
                    signature = signature.tp
                if isinstance(signature, type) and method_names(signature):
                    # (an object holding its own `predict` is not the kind the
                    # derivative was built for: its class's `predict` was resolved)
                    self.ns[f"_M{i}"] = method_names(signature)
                    checks.append(f"{n}.__dict__.keys().isdisjoint(_M{i})")
                if isinstance(signature, tuple) and len(signature) == 2:
                    # a list of floats: every element a float (a list of ints: ints)
                    checks.append(f"set(map(type, {n})) == _E{i}")
                elif isinstance(signature, tuple):  # an array: rank and dtype too
                    checks.append(f"{n}.ndim == _N{i} and {n}.dtype is _D{i}")
            for i, (kind, _, gname, obj) in enumerate(self.guards):
                if kind == "function":
                    checks.append(obj.check(f"_G{i}", i, self.ns))
                    continue
                root, dot, chain = gname.partition(".")
                value = (f"_G{i}.get({root!r})" if kind.startswith("global") else
                         f"_G{i}.cell_contents") + dot + chain
                if kind.endswith("value"):
                    checks.append(guards.value_check(value, i, obj, self.ns))
                    continue
                if kind.endswith("equal"):
                    checks.append(guards.equal_check(value, i, obj, self.ns))
                    continue
                checks.append(f"type({value}) is _O{i}" if kind.endswith("type") else
                              f"{value} is _O{i}")
                if kind.endswith("type") and method_names(obj):
                    # (and it holds none of its class's methods itself: `guards.holds`)
                    self.ns[f"_MG{i}"] = method_names(obj)
                    checks.append(f"{value}.__dict__.keys().isdisjoint(_MG{i})")
            checks += self.shape_checks()
            if checks:
                lines.append(f"    if {' and '.join(checks)}:")
                lines.append(f"        return _F({call})")
            else:
                lines.append(f"    return _F({call})")
        if self.structured_fast is not None:
            # (for the code `f` had when it was made: an edit put into `f` builds anew)
            self.ns.update(_S=self.structured_fast, _f=self.f, _FC=self.structured_code)
            lines += ["    if _f.__code__ is _FC:", f"        return _S({call})"]
            lines.append(f"    return _miss({call})")
        else:
            lines.append(f"    return _miss({call})")
        # an error in the derivative gets a note naming the user's line, an
        # S2SADError loses s2sad's frames (a `try` costs nothing until something
        # raises; the bare `raise` adds no frame)
        body = ["    " + line for line in lines[1:]]
        lines = lines[:1] + prologue + ["    try:"] + body + [
            "    except Exception as e:", "        _explain(e)", "        _user_traceback(e)",
            "        raise"]
        return "\n".join(lines) + "\n"

    def default_lines(self) -> list:
        """The dispatcher's first lines: a parameter with a default gets `_UNSET` as
        its default in the dispatcher, and an omitted one the value `f` holds now
        (``f.__defaults__`` and ``f.__kwdefaults__`` may be assigned after `grad`;
        one copied into the dispatcher would be stale). An omitted parameter whose
        default is gone raises the `TypeError` Python raises."""
        f, out = self.f, []
        n_defaults = len(f.__defaults__ or ())
        for i in range(self.n_pos - n_defaults, self.n_pos):
            out += _fill(self.idents[i], f"_f.__defaults__[{i - self.n_pos}]",
                         "(TypeError, IndexError)", "positional")
        for i in range(self.n_pos, len(self.names)):
            if self.names[i] in (f.__kwdefaults__ or {}):
                out += _fill(self.idents[i], f"_f.__kwdefaults__[{self.names[i]!r}]",
                             "(TypeError, KeyError)", "keyword-only")
        if out:
            self.ns.update(_f=f, _U=_UNSET, _missing=functools.partial(_missing, f))
        return out

    def shape_checks(self) -> list:
        """What the primary specialisation assumes of the arrays' shapes: which axes
        have length 1 and which have equal lengths (`shape_pattern`). It relies
        on nothing else, so a call with more equal lengths may use it too."""
        axes: dict = {}
        for name, dims in zip(self.idents, self.primary[0][-1] or ()):
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
                elif isinstance(t, _Held):
                    t = t.tp
                self.ns[f"_T{i}"] = t
            self.ns["_F"] = self.primary[1]
        for i, (_, container, _, obj) in enumerate(self.guards):
            self.ns[f"_G{i}"] = container
            self.ns[f"_O{i}"] = obj
        code = compile(self.source(), f"<s2sad dispatcher {self.f.__qualname__}>", "exec")
        inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        if self.dispatcher is None:
            d = types.FunctionType(inner, self.ns, self.f.__name__,
                                   (_UNSET,) * len(self.f.__defaults__ or ()) or None)
            d.__kwdefaults__ = dict.fromkeys(self.f.__kwdefaults__ or (), _UNSET) or None
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
        self.structured_fast = None
        self.guards = []
        self.build()

    def guards_hold(self) -> bool:
        return all(map(guards.holds, self.guards))

    def miss(self, *args, **kwargs):
        values = dict(zip(self.names, args))
        values.update(kwargs)
        if structured.flat_needed(values, self.wrt, self.f):
            return self.structured_call(values)
        with lock:
            if not self.guards_hold():
                self.reset()
            key = self.held(tuple(guards.signature(values[n]) for n in self.names), values) + (
                _pattern(values),)
            # (each specialisation with its own guards: the fast path checks the
            # primary's, and another's may have gone stale meanwhile)
            fn, held = self.specs.get(key, (None, ()))
            if fn is not None and not all(map(guards.holds, held)):
                fn = None
            if fn is None:
                kinds = argument_kinds(self.f, values, self.wrt, self.entry)
                try:
                    unit, compiled = compiled_reverse(self.f, self.wrt, self.entry, kinds,
                                                      self.as_tuple, self.checkpoint)
                except SourceNotFoundError as exc:
                    exc.hint = " ".join(filter(None, [exc.hint, tape_fallback(self.f,
                                                                              self.entry)]))
                    raise
                fn = compile_mod.bind(unit, compiled)[unit.entry[0]]
                checked = guards.of_unit(unit)
                if self.jit:
                    fn, frozen = native.compiled(unit, fn, args, kwargs)
                    checked += frozen
                self.specs[key] = (fn, checked)
                changed = [g[1:] for g in checked] != [g[1:] for g in self.guards]
                if changed:
                    self.guards = checked
                if changed or self.primary is None and _fast(key):
                    self.primary = (key, fn) if _fast(key) else None
                    self.build()
        result = fn(*args, **kwargs)
        lists = [n for n in self.wrt if retyped_list(values[n])]
        if lists:  # (elements the compiled gradient does not type: see retyped_list)
            grads = result[1] if self.entry == "value_and_grad" else result
            grads = list(grads) if self.as_tuple or len(self.wrt) > 1 else [grads]
            typed = typed_gradients(values, lists, [grads[self.wrt.index(n)] for n in lists])
            for n, g in zip(lists, typed):
                grads[self.wrt.index(n)] = g
            grads = tuple(grads) if self.as_tuple or len(self.wrt) > 1 else grads[0]
            result = (result[0], grads) if self.entry == "value_and_grad" else grads
        return result


    def held(self, key: tuple, values: dict) -> tuple:
        """`key`, where an argument is an object of the user's whose numbers and
        arrays the derivative takes the kinds of (`arguments.with_attributes`), with
        what they are (`_Held`)."""
        objects = {self.names[i]: values[self.names[i]] for i, s in enumerate(key)
                   if isinstance(s, type) and user_class(s)}
        held = held_kinds(self.f, objects)
        return tuple(_Held(s, held[n], attribute_signature(values[n], held[n]),
                           decides_attributes(s, held[n])) if n in held else s
                     for n, s in zip(self.names, key))

    def structured_slow(self, *args, **kwargs):
        """The fast path's fallback: any call its checks do not recognise."""
        values = dict(zip(self.names, args))
        values.update(kwargs)
        if structured.flat_needed(values, self.wrt, self.f):
            return self.structured_call(values)
        return self.miss(*args, **kwargs)

    def structured_call(self, values: dict):
        """A call with containers among the arguments `wrt` names: the gradient of
        the function specialised on their structures (`structured.Flat`), built
        back in them."""
        values = {n: values[n] for n in self.names if n in values}
        for n, default in defaults.values(self.f).items():
            values.setdefault(n, default)
        flat = structured.Flat(self.f, values, self.wrt, self.entry)
        wrt = flat.wrt()
        with lock:
            inner = self.flat_states.get((flat.flat, wrt))
            if inner is None:
                inner = self.flat_states[(flat.flat, wrt)] = State(
                    flat.flat, wrt, self.entry, True, self.checkpoint, self.jit).build()
        single = not (self.as_tuple or len(self.wrt) > 1)
        if self.structured_fast is not None and self.structured_code is not self.f.__code__:
            self.structured_fast = None  # (made for the code `f` had before)
        if self.structured_fast is None:
            pos = self.idents[: self.n_pos]
            kw = self.idents[self.n_pos:]
            fast = structured.fast_caller(flat, wrt, inner, self.structured_slow, self.entry,
                                          single, ", ".join(pos + (["*"] + kw if kw else [])),
                                          self.call_text())
            if fast is not None:
                self.structured_fast, self.structured_code = fast, self.f.__code__
                self.build()
        args, keywords = flat.split_args()
        with flat.naming():
            result = inner(*args, **keywords)
        value, grads = result if self.entry == "value_and_grad" else (None, result)
        grads = flat.regroup(grads, wrt)
        grads = tuple(grads) if self.as_tuple or len(self.wrt) > 1 else grads[0]
        return (flat.output(value), grads) if self.entry == "value_and_grad" else grads


_UNSET = type("Unset", (), {"__repr__": lambda self: "<the function's default>"})()


def _fill(name: str, default: str, errors: str, what: str) -> list:
    """The dispatcher's lines giving an omitted parameter `name` its `default` (text)."""
    return [f"    if {name} is _U:", "        try:", f"            {name} = {default}",
            f"        except {errors}:", f"            _missing({name!r}, {what!r})"]


def _missing(f, name: str, what: str):
    """Raise what Python raises for a parameter without a value (its default gone)."""
    raise TypeError(f"{f.__qualname__}() missing 1 required {what} argument: '{name}'")


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


@dataclass(frozen=True)
class _Held:
    """The signature of an object of the user's class `tp` whose attributes `attrs`
    (an `ObjectKind`'s) the derivative takes the kinds of: `types`, per attribute,
    its type (and an array's rank and dtype: `attribute_signature`), and what of the
    class decides them (`decides`), which the fast path checks too."""

    tp: type
    attrs: tuple
    types: tuple
    decides: tuple  # (`kinds.decides_attributes`)


def _held_checks(name: str, i: int, held: _Held, ns: dict) -> list:
    """The fast path's checks of the attributes of the argument `name` (the `i`th) a
    derivative took the kinds of: each one's type (an array's rank and dtype too),
    read from the object's ``__dict__`` (where `held_attributes` found them)."""
    # (each class of it as it was: no ``__getattribute__`` of its own, and what it
    # held of each name, mostly nothing, so no property added since comes first; a
    # class's ``__dict__`` is a live view, asked in C)
    checks = []
    for k, klass in enumerate(c for c in held.tp.__mro__ if c is not object):
        view = ns[f"_D{i}_{k}"] = klass.__dict__
        checks.append(f"'__getattribute__' not in _D{i}_{k}")
        for j, (attr, _) in enumerate(held.attrs):
            if attr in view:
                ns[f"_A{i}_{j}_{k}"] = view[attr]
                checks.append(f"_D{i}_{k}.get({attr!r}) is _A{i}_{j}_{k}")
            else:
                checks.append(f"{attr!r} not in _D{i}_{k}")
    for j, ((attr, _), sig) in enumerate(zip(held.attrs, held.types)):
        value = f"{name}.__dict__.get({attr!r})"
        tp = sig[0] if isinstance(sig, tuple) else sig
        ns[f"_A{i}_{j}"] = tp
        checks.append(f"type({value}) is _A{i}_{j}")
        if isinstance(sig, tuple):
            ns[f"_A{i}_{j}n"], ns[f"_A{i}_{j}d"] = sig[1:]
            checks.append(f"{name}.{attr}.ndim == _A{i}_{j}n and "
                          f"{name}.{attr}.dtype is _A{i}_{j}d")
    return checks


def _fast(key) -> bool:
    """Can the dispatcher's fast path recognise the arguments of `key` by their types
    (and arrays' ranks and dtypes)? A list of floats (or of ints) it can: the set of
    its elements' types, computed in C, is ``{float}``. Not another list or a tuple:
    what the derivative depends on is in its elements (a list of vectors and one of
    matrices take different rules), which only `miss` looks at."""
    return all(_uniform_list(s) is not None for s in key[:-1]
               if isinstance(s, tuple) and len(s) == 2)


def _uniform_list(signature):
    """The one element type of a list whose `guards.signature` says it holds only floats
    (or only ints), which the fast path checks; None for any other list or tuple."""
    tp, kind = signature
    if tp is list and isinstance(kind, ListKind) and kind.items is None:
        return {SCALAR: float, INT: int}.get(kind.elem)
    return None


def tape_fallback(f, entry="grad") -> str:
    """The hint a `SourceNotFoundError` from `grad` gets: the tape engine needs no
    source."""
    name = getattr(f, "__name__", "f")
    name = name if name.isidentifier() else "f"
    return (f'Or differentiate it without reading the source: s2sad.{entry}({name}, '
            f'mode="tape") runs it on the tape engine.')
