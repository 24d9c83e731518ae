"""guards: what a built derivative depends on outside its arguments, and the checks
that it still holds.

A derivative is built for the functions the names it reads meant, and for the kinds
of the numbers and arrays it reads from outside (a float `C` in ``C * x`` takes no
sum in the adjoint of `x`; a matrix does). `of_unit` lists what the dispatcher
checks on every call: each name that resolved to a function or a rule, the class of
an object of the user's, each attribute chain that resolved to a function
(`attribute_guards`), and each global, closure variable or plain attribute chain
holding a number, an array, a tuple, a list or None (`value_guards`), compared with
its signature when the unit was built (`built_signatures`), and the code of each
function of the user's the unit was built from, with each callee's defaults
(`function_guards`). Each global whose value the
rewrite of containers decided something by is guarded by that value
(`decided_guards`). `holds` checks one guard
(the cache's `dispatch.still_valid`), `value_check` and `equal_check` write one as the
fast path's test, and `signature` is what a derivative depends on in an argument.
"""

from __future__ import annotations

import functools
import types

from .. import primitives as rules
from ..frontend import parse
from ..frontend.structure_calls import library_code
from ..ir.kinds import INT, NONE, SCALAR, ArrayKind, ListKind, array_library, kind_of, shadows


def holds(guard) -> bool:
    """Does the guard ``(kind, container, name, obj)`` (`of_unit`) hold now?"""
    kind, container, name, obj = guard
    if kind == "function":
        return obj.holds(container)
    root, _, chain = name.partition(".")
    current = container.get(root) if kind.startswith("global") else container.cell_contents
    for attr in chain.split(".") if chain else ():
        current = getattr(current, attr, None)
    if kind.endswith("type"):  # (an object of the class, holding none of its methods)
        return type(current) is obj and not shadows(current)
    if kind.endswith("value"):  # (a number or an array of the kind it was)
        return _value_signature(current) == obj
    if kind.endswith("equal"):  # (the value a count or a key was decided by)
        return type(current) is type(obj) and current == obj
    return current is obj


def value_check(value: str, i: int, signature, ns: dict) -> str:
    """The fast path's test that the global read by `value` (text) still has the
    `signature` (`_value_signature`) of guard `i`: its type, an array's rank and
    dtype, a tuple's kind."""
    if isinstance(signature, type):
        return f"type({value}) is _O{i}"
    if signature[0] is tuple:
        ns["_kind_of"] = kind_of
        return f"_kind_of({value}) == _O{i}[1]"
    if signature[0] is list and isinstance(signature[1], frozenset):
        # (a list of numbers: each item of a type it had; a pass in C, no call)
        ns[f"_VT{i}"] = signature[1]
        return f"type(_v{i} := {value}) is list and set(map(type, _v{i})) <= _VT{i}"
    if signature[0] is list:
        ns["_list_signature"] = _list_signature
        return f"type(_v{i} := {value}) is list and _list_signature(_v{i}) == _O{i}"
    ns[f"_VD{i}"] = signature[2]
    return (f"type(_v{i} := {value}) is _O{i}[0] and _v{i}.ndim == {signature[1]} and "
            f"_v{i}.dtype is _VD{i}")


def signature(value):
    """What the derivative's code depends on in an argument: its type, and for a
    NumPy array (or another library's, `array_library`) its rank and dtype; for a
    list or a tuple its kind (what its elements are: `kind_of`), as ``(type,
    kind)``; for an object of the user's that holds one of its class's methods in
    its own ``__dict__`` (whose methods are then not resolved, `kinds.ObjectKind`),
    ``("shadows", type)``."""
    tp = type(value)
    if tp.__module__ == "numpy" and tp.__name__ == "ndarray" or array_library(value):
        return (tp, value.ndim, value.dtype)
    if tp is list or tp is tuple:
        return (tp, kind_of(value))
    if shadows(value):
        return ("shadows", tp)
    return tp


def of_unit(unit) -> list:
    """What the dispatcher re-checks on every call: the names that resolved to a
    function s2sad differentiates, to a callable with a rule, to a class of the
    user's (a namedtuple's fields), or to a ``functools.partial`` (its function and
    the names of its bound arguments are written into the derivative); and the class
    of an object of the user's
    (``model(x)`` is its class's ``__call__``, put in place: another class, another
    derivative; its attributes are read when the derivative runs)."""
    out = []
    for func, name, obj in unit.resolved:
        typed = _user_object(obj)
        if not (typed or isinstance(obj, (types.FunctionType, functools.partial)) or
                rules.has_rule(obj) or _user_class(obj)):
            continue
        cells = parse.cells_of(func)
        suffix, obj = ("_type", type(obj)) if typed else ("", obj)
        if name in cells:
            g = ("cell" + suffix, cells[name], name, obj)
        elif name in func.__globals__:
            g = ("global" + suffix, func.__globals__, name, obj)
        else:
            continue  # a builtin
        if not any(x[1] is g[1] and x[2] == name for x in out):
            out.append(g)
    for callee, name, obj in getattr(unit, "captured", ()):  # (held as it was built)
        cells = parse.cells_of(callee)
        out.append(("cell", cells[name], name, obj) if name in cells else
                   ("global", callee.__globals__, name, obj))
    out += attribute_guards(unit, out)
    return out + value_guards(unit, out) + function_guards(unit) + decided_guards(unit)


def decided_guards(unit) -> list:
    """Each global or closure variable whose value the derivative was built for
    (``range(N_LAYERS)`` unrolled, ``p[KEY]``, ``if USE_BIAS:`` decided: see
    `Unit.decided`), as ``("global_equal" or "cell_equal", container, name,
    value)``: another value, even of the same type, builds it again."""
    out = []
    for func, name, value in unit.decided:
        g = decided_guard(func, name, value)
        if g is not None and not any(x[0] == g[0] and x[1] is g[1] and x[2] == name
                                     for x in out):
            out.append(g)
    return out


def decided_guard(func, name, value):
    """The guard that `func`'s global or closure variable `name` still holds `value`
    (`decided_guards`); None for a builtin's name (``__debug__``: the same while the
    process runs)."""
    cells = parse.cells_of(func)
    if name in cells:
        return ("cell_equal", cells[name], name, value)
    if name in func.__globals__:
        return ("global_equal", func.__globals__, name, value)
    return None


def equal_check(value: str, i: int, obj, ns: dict) -> str:
    """The fast path's test of guard `i`, that `value` (text) is still `obj`, of its
    type (``True`` is not ``1``)."""
    ns[f"_OT{i}"] = type(obj)
    return f"type(_v{i} := {value}) is _OT{i} and _v{i} == _O{i}"


def function_guards(unit) -> list:
    """Each function of the user's in `unit` as its derivative was built from it, as
    ``("function", function, "", Built)``: its code (IPython's ``autoreload`` and
    other reloaders put a function's new code into the same function object, whose
    derivative is then another), and a callee's defaults (``helper(x)`` of ``def
    helper(x, a=2.0)`` runs ``helper_fwd`` with the default it had; a function given
    by default is called by name in the derivative), whose kinds it was built for and
    whose values it holds, so that ``helper.__defaults__ = (5.0,)`` builds it again
    too. Taken once, as the unit is built (`built_signatures`)."""
    got = getattr(unit, "function_guards", None)
    if got is None:
        got = unit.function_guards = []
        entry = {uf.user for uf in unit.functions if uf.fn.name in unit.entry}
        # (the functions derived, and the user's functions they resolved: one put in
        # place of its call, with a function it takes by default written there)
        users = [uf.user for uf in unit.functions] + [
            obj for _, _, obj in unit.resolved if isinstance(obj, types.FunctionType)
            and not library_code(obj)]
        for user in users:
            if not isinstance(user, types.FunctionType):
                continue
            # (a callee's defaults, kept or read as it was built: ``act=np.tanh``
            # becomes the call ``np.tanh(x)`` in its derivative)
            keeps = user not in entry and bool(user.__defaults__ or user.__kwdefaults__)
            known = next((g for g in got if g[1] is user), None)
            if known is None:
                got.append(("function", user, "", Built(user, keeps)))
            elif keeps and not known[3].keeps:
                got[got.index(known)] = ("function", user, "", Built(user, True))
    return list(got)


class Built:
    """A function's code and, with `keeps`, its ``__defaults__`` (a tuple: replaced,
    never changed) and ``__kwdefaults__`` (a dict, which may also change in place:
    its values are kept) as a derivative was built from them. Equal to another of
    the same objects (`State.miss` compares a unit's guards with the dispatcher's)."""

    __slots__ = ("code", "keeps", "positional", "keywords", "values")

    def __init__(self, f, keeps):
        self.code, self.keeps = f.__code__, keeps
        self.positional = f.__defaults__ if keeps else None
        self.keywords = f.__kwdefaults__ if keeps else None
        self.values = tuple((self.keywords or {}).values())

    def holds(self, f) -> bool:
        return self == Built(f, self.keeps)

    def check(self, value: str, i: int, ns: dict) -> str:
        """The fast path's test of guard `i` on the function `value` (text), the objects
        it compares with put in `ns`."""
        if self.keywords is not None:
            return f"_O{i}.holds({value})"
        ns[f"_C{i}"], ns[f"_P{i}"] = self.code, self.positional
        text = f"{value}.__code__ is _C{i}"
        return text + f" and {value}.__defaults__ is _P{i}" if self.keeps else text

    def __eq__(self, other):
        return type(other) is Built and other.code is self.code and \
            other.keeps == self.keeps and other.positional is self.positional and \
            other.keywords is self.keywords and len(other.values) == len(self.values) \
            and all(a is b for a, b in zip(other.values, self.values))

    __hash__ = None


def _held_refs(unit):
    """Each name and attribute chain a user function of `unit` resolved, with where
    its root is held: ``(text, obj, chain, place, container, held)``, `place` "cell"
    (`container` the closure cell) or "global" (the globals); a builtin is left out."""
    for uf in unit.functions:
        user = uf.user
        if not isinstance(user, types.FunctionType):
            continue
        cells = parse.cells_of(user)
        for text, obj in uf.fn.refs.items():
            root, _, chain = text.partition(".")
            if root in cells:
                try:
                    held = cells[root].cell_contents
                except ValueError:  # (a closure variable not given a value yet)
                    continue
                yield text, obj, chain, "cell", cells[root], held
            elif root in user.__globals__:
                yield text, obj, chain, "global", user.__globals__, user.__globals__[root]


def attribute_guards(unit, out) -> list:
    """``cfg.act`` and ``mylib.helper`` (not a library's module's function) that
    resolved to a function or a callable with a rule: the derivative was built for
    that function, so an assignment ``cfg.act = np.sin`` must build it again."""
    more = []
    for text, obj, chain, place, container, held in _held_refs(unit):
        if not chain or not (isinstance(obj, types.FunctionType) or rules.has_rule(obj)):
            continue
        if isinstance(held, types.ModuleType) and (
                held.__name__.partition(".")[0] in _LIBRARIES or "site-packages" in
                (getattr(held, "__file__", None) or "")):
            continue  # (np.tanh: a library's functions are not reassigned)
        if not any(x[1] is container and x[2] == text for x in out + more):
            more.append((place, container, text, obj))
    return more


def value_guards(unit, out, chains_only=False) -> list:
    """The globals, closure variables and plain attribute chains (``cfg.scale``,
    ``model.W`` of a module or of an object holding it in its ``__dict__``) that
    held a number, an array, a tuple, a list or None: the derivative was built for
    the kind it had (a float `K` in ``K * x`` takes no sum in the adjoint of `x`; an
    array does), so one of another type, rank or dtype must build it again. Rebound
    to another value of the same kind, the derivative reads the new value. A list
    is checked by its items' kinds too (`_list_signature`): it may be changed in
    place. `chains_only`: the attribute chains and lists alone, for `still_valid`,
    which checks that each name means the same object already."""
    more = []
    for text, obj, chain, place, container, held in _held_refs(unit):
        if chains_only and not chain and type(obj) is not list or not _valued(obj) or \
                chain and not _plain_chain(held, chain):
            continue
        if not any(x[1] is container and x[2] == text for x in out + more):
            more.append((place + "_value", container, text, built_signatures(unit)[id(obj)]))
    return more


def built_signatures(unit) -> dict:
    """{id of a value `unit` read from outside: its `_value_signature`}, taken once,
    as the unit is built (the dispatcher calls this then): a list changed in place
    afterwards is the same object, whose signature now is not the one the
    derivative was built for."""
    function_guards(unit)
    got = getattr(unit, "value_signatures", None)
    if got is None:
        got = unit.value_signatures = {id(obj): _value_signature(obj)
                                       for _, obj, *_ in _held_refs(unit) if _valued(obj)}
    return got


def _valued(obj) -> bool:
    """Is `obj` a number, an array, a tuple, a list or None (whose kind a derivative
    takes: ``if w is not None:`` of a global None is decided where it is built)?"""
    kind = kind_of(obj, items=False)
    return kind in (INT, SCALAR, NONE) or isinstance(kind, (tuple, ListKind, ArrayKind))


def _value_signature(value):
    """What a derivative depends on in a value a global holds (`value_guards`): an
    argument's `signature` (its type; an array's rank and dtype; a tuple's kind), a
    list's `_list_signature`."""
    return _list_signature(value) if type(value) is list else signature(value)


def _list_signature(value) -> tuple:
    """What a derivative depends on in a list a global holds: the kind of its items
    (``list[scalar]``: ``C[0] * x`` takes no sum in the adjoint of `x`; changed in
    place to hold an array, it must), as ``(list, kind)``; for a list of numbers
    alone, the common case, ``(list, types)``, the set of its items' types, which
    one pass in C finds (a list of 1,000 floats: 67 µs, where its kind takes 570;
    the fast path's `value_check` lets a list holding fewer types than it had pass,
    whose kind is then the same or narrower)."""
    types_ = set(map(type, value))
    if types_ <= _NUMBER_TYPES:
        return (list, frozenset(types_))
    return (list, kind_of(value, items=False))


_NUMBER_TYPES = {float, int, bool}


def _plain_chain(value, chain) -> bool:
    """Does each attribute of `chain` read from `value` come from a module's or an
    object's own ``__dict__`` (no property, no ``__getattr__`` to run on each call)?"""
    for attr in chain.split("."):
        own = getattr(value, "__dict__", None)
        if not isinstance(own, dict) or attr not in own or \
                not isinstance(value, types.ModuleType) and any(
                    attr in vars(c) or isinstance(vars(c).get("__getattribute__"),
                                                  types.FunctionType)
                    for c in type(value).__mro__):
            return False
        value = own[attr]
    return True


def _user_object(obj) -> bool:
    """Is `obj` an instance of a class of the user's Python (not a function, class,
    module, partial or an object with a rule; not a library's)?"""
    tp = type(obj)
    return isinstance(getattr(tp, "__dict__", None), types.MappingProxyType) and not (
        isinstance(obj, (types.FunctionType, types.ModuleType, type, functools.partial))
        or rules.has_rule(obj) or (tp.__module__ or "").partition(".")[0] in _LIBRARIES)


def _user_class(obj) -> bool:
    """Is `obj` a class of the user's (``P`` of ``P = namedtuple("P", "a b")``, a
    dataclass)? The derivative reads its fields as they were: another class bound
    to the name builds it again."""
    return isinstance(obj, type) and (obj.__module__ or "").partition(".")[0] not in _LIBRARIES


_LIBRARIES = {"builtins", "numpy", "scipy", "jax", "jaxlib", "torch", "dask", "functools",
              "collections", "s2sad", "math", "types", "typing"}
