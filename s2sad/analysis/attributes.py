"""attributes: the attributes of the user's objects a function reads, where nothing
it runs can rebind one.

Contract
--------
`read_attributes(func, classes)` is the set of the names of the attributes that the
functions a call of `func` may run read (``self.a``, ``model.W``), or None where
one of them may assign or delete an attribute of an object, or calls something this
scan cannot see into. `classes` are the classes of the call's objects of the
user's (`kinds.ObjectKind`). A derivative of `func` takes the kinds of those
attributes its object arguments hold as known (`kinds.held_attributes`: ``self.a``
is a float, not a value of unknown kind), and the dispatcher checks them on each
call; they stay what it checked for the whole call only where nothing in it can
rebind them, so only there are they taken as known.

What it reads is the Python source of `func` and, as it finds them, of every
function the call may run: a function or class of the user's that a name in it
means (called, or handed to a call as a value, which may call it), a method of one
of `classes` called on any name, and every special method (``__call__``,
``__add__``: an operator on an object runs them) and property of `classes`. It
answers None for
- an attribute assigned, augmented or deleted (``obj.a = ...``, ``del obj.a``),
  ``__dict__``, ``__setattr__``, and the builtins that do the same by text
  (``setattr``, ``delattr``, ``vars``, ``exec``, ...);
- a call whose callee it cannot name: a parameter or other local called (a
  function defined or a lambda written in the function is read with it), a method
  other than the classes' and those NumPy arrays, lists and dicts have, a call of
  a call's result;
- a name that means nothing, or a function whose source cannot be read.
A library's function or class (NumPy's, `math`'s, the builtins', s2sad's; a
callable with an s2sad rule, which is a function of its inputs) is taken not to
rebind the user's objects' attributes.

The answer depends on what names mean; it is kept per function and classes and used
again while every name it followed means what it meant (`_Scan.deps`).
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import textwrap
import types

from ..frontend.parse import MISSING, lookup
from ..frontend.source import source_lines
from ..ir.kinds import library_object, user_class
from ..primitives import has_rule
from ..primitives.facts import METHODS

# the builtins that assign, delete or reach attributes and names by text
_REBINDING = frozenset({"setattr", "delattr", "vars", "exec", "eval", "compile", "globals",
                        "locals", "__import__"})
# the attributes whose use may rebind another (``obj.__dict__.update(...)``)
_DYNAMIC = frozenset({"__dict__", "__setattr__", "__delattr__", "__setstate__"})
# the methods of Python's containers and text, which change no attribute of an object
_PLAIN_METHODS = frozenset(
    name for tp in (list, dict, tuple, str, float, int, complex) for name in dir(tp)
    if not name.startswith("_")) - {"update", "setdefault", "pop", "popitem", "clear"} | {
    "append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear"}
# the special methods not run by an operator on an object (its making and its end)
_NOT_OPERATORS = frozenset({"__init__", "__new__", "__init_subclass__", "__del__",
                            "__set_name__", "__class_getitem__", "__subclasshook__",
                            "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__",
                            "__copy__", "__deepcopy__"})

_KEPT: dict = {}  # (func, classes) -> (its code, the answer, the scan's deps)
_TREES: dict = {}  # code object -> the function's tree (None: no source)
_LIMIT = 4096  # the most entries either keeps (then it starts afresh)
_VISITS = 256  # the most values `reachable_classes` looks at


def read_attributes(func, objects: tuple, method: bool = False):
    """The names of the attributes a call of `func` with the user's objects `objects`
    among its arguments (with `method`, its first one) may read, or None (see the
    module's docstring)."""
    classes = reachable_classes(objects)
    key = (func, classes, method)
    got = _KEPT.get(key)
    if got is not None and got[0] is func.__code__ and all(map(_holds, got[2])):
        return got[1]
    while True:
        scan = _Scan(classes)
        try:
            scan.run(func, method)
        except _Rebinds:
            names = None
        except _MoreClasses:
            classes = tuple(sorted(set(classes) | scan.more, key=_order))
            continue
        else:
            names = frozenset(scan.names)
        break
    if len(_KEPT) >= _LIMIT:
        _KEPT.clear()
    _KEPT[key] = (func.__code__, names, scan.deps)
    return names


def reachable_classes(objects, depth: int = 3) -> tuple:
    """The classes of the user's objects `objects` are, and of those their attributes
    hold, and the items of lists, tuples and dicts they hold, `depth` levels down
    (a method called on any of them may be any of these classes')."""
    found: set = set()
    todo, seen = [(v, depth) for v in objects], set()
    while todo and len(seen) < _VISITS:
        value, d = todo.pop()
        if id(value) in seen or d < 0:
            continue
        seen.add(id(value))
        tp = type(value)
        if tp in (list, tuple):
            todo.extend((v, d - 1) for v in value[:64])
        elif tp is dict:
            todo.extend((v, d - 1) for v in list(value.values())[:64])
        elif user_class(tp):
            found.add(tp)
            own = getattr(value, "__dict__", None)
            if isinstance(own, dict):
                todo.extend((v, d - 1) for v in list(own.values())[:64])
    return tuple(sorted(found, key=_order))


def _order(cls) -> tuple:
    return (cls.__module__, cls.__qualname__, id(cls))


class _Rebinds(Exception):
    """The scan met something that may rebind an attribute, or that it cannot read."""


class _MoreClasses(Exception):
    """The scan met objects of classes of the user's it was not given (`_Scan.more`):
    it starts again with them, so a method called on any name is looked up in them."""


def _holds(dep) -> bool:
    """Does the name a dependency ``(where, name, value)`` records mean `value` still?"""
    where, name, value = dep
    if isinstance(where, dict):  # a module's globals (then its builtins)
        return lookup(name, where, {}) is value
    if isinstance(where, types.CellType):
        try:
            return where.cell_contents is value
        except ValueError:
            return False
    return _static(where, name) is value  # an attribute of a module or a class


def _static(obj, name):
    try:
        return inspect.getattr_static(obj, name)
    except AttributeError:
        return MISSING


def _tree(func):
    """The tree of `func`'s source (None where it cannot be read)."""
    code = func.__code__
    if code not in _TREES:
        if len(_TREES) >= _LIMIT:
            _TREES.clear()
        try:
            lines, _ = source_lines(func)
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except (OSError, TypeError, SyntaxError, IndentationError):
            tree = None
        top = tree.body[0] if tree is not None and len(tree.body) == 1 else None
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # (its defaults, decorators and annotations ran where it was defined)
            top.decorator_list, top.returns = [], None
            top.args.defaults = []
            top.args.kw_defaults = [None] * len(top.args.kw_defaults)
            for a in ast.walk(top.args):
                if isinstance(a, ast.arg):
                    a.annotation = None
        _TREES[code] = tree
    return _TREES[code]


def _local_names(tree) -> tuple:
    """The names `tree` binds, and of them those its own `def`, `lambda` or
    `class` statements give (what calling them runs is in `tree`)."""
    bound, defined = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            defined.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
    top = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
        bound.discard(top.name)  # (the function's own name: its global meaning)
        defined.discard(top.name)
    return bound, defined


class _Scan:
    """One run of `read_attributes`: the functions read, the names found."""

    def __init__(self, classes: tuple):
        self.classes = classes
        self.names: set = set()
        self.deps: list = []
        self.seen: set = set()
        self.more: set = set()
        self.unresolved = False  # (a method none of the classes has was called)

    def run(self, func, method):
        for cls in self.classes:
            for klass in cls.__mro__[:-1]:
                for name, value in vars(klass).items():
                    if isinstance(value, property):
                        for f in (value.fget, value.fset, value.fdel):
                            if f is not None:
                                self.callee(f, True)
                    elif name.startswith("__") and name.endswith("__") and \
                            name not in _NOT_OPERATORS and callable(value):
                        self.deps.append((cls, name, _static(cls, name)))
                        self.callee(value, True)
        self.function(func, method)
        if self.unresolved:
            raise _Rebinds

    def function(self, func, method=False):
        """Read `func` (with `method`, a method of one of the classes: its first
        parameter is an object of one of them, which it may call, `__call__`)."""
        if (func.__code__, method) in self.seen:
            return
        self.seen.add((func.__code__, method))
        tree = _tree(func)
        if tree is None:
            raise _Rebinds
        bound, defined = _local_names(tree)
        if method and func.__code__.co_argcount:
            defined = defined | {func.__code__.co_varnames[0]}
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                if not isinstance(node.ctx, ast.Load) or node.attr in _DYNAMIC:
                    raise _Rebinds
                self.names.add(node.attr)
            elif isinstance(node, ast.Call):
                self.call(node.func, bound, defined, func, cells)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and node.id not in bound:
                self.value(self.resolve(node.id, func, cells))

    def resolve(self, name, func, cells):
        """What the free name `name` of `func` means (recorded as a dependency)."""
        value = lookup(name, func.__globals__, cells)
        if value is MISSING:
            raise _Rebinds
        self.deps.append((cells[name] if name in cells else func.__globals__, name, value))
        return value

    def call(self, node, bound, defined, func, cells):
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            raise _Rebinds  # (a call of a call's result, of an item, of a lambda)
        if node.id in bound:
            if not chain:
                if node.id not in defined:
                    raise _Rebinds  # (a parameter or a local called)
                return
            # (a method of an object of any of the classes, or of an array or a list)
            method = chain[0]
            found = [(cls, _static(cls, method)) for cls in self.classes]
            found = [(cls, f) for cls, f in found if f is not MISSING]
            for cls, f in found:
                self.deps.append((cls, method, f))
                self.callee(f, True)
            if not found and method not in METHODS and method not in _PLAIN_METHODS:
                # (refused at the end, unless the scan meets a class that has it)
                self.unresolved = True
            return
        value = self.resolve(node.id, func, cells)
        self.value(value)  # (an object's classes, before its methods are looked up)
        for attr in reversed(chain):
            got = _static(value, attr)
            if got is MISSING:
                raise _Rebinds
            self.deps.append((value, attr, got))
            value = got
        self.callee(value)

    def value(self, value):
        """A name that means `value` is read: what calling it would run, where it is
        a function or a class of the user's; an object of the user's, and those it
        holds, whose methods may be called."""
        if isinstance(value, (types.FunctionType, type)) and not library_object(value):
            self.callee(value)
        elif not isinstance(value, types.ModuleType):
            self.meet(reachable_classes((value,)))

    def meet(self, classes):
        """Objects of `classes` may be among the values the call handles."""
        new = set(classes) - set(self.classes)
        if new:
            self.more |= new
            raise _MoreClasses

    def callee(self, value, method=False):
        """Read what calling `value` runs (`method`: a method of one of the classes,
        called on an object of it)."""
        if isinstance(value, (staticmethod, classmethod, types.MethodType)):
            method = method and not isinstance(value, staticmethod)
            value = value.__func__
        if isinstance(value, functools.partial):
            self.callee(value.func)
            return
        if isinstance(value, types.ModuleType):
            return
        if isinstance(value, types.BuiltinFunctionType) and value.__self__ in (builtins, None):
            if value.__name__ in _REBINDING:
                raise _Rebinds
            return
        if library_object(value) or has_rule(value):
            return
        if isinstance(value, types.FunctionType):
            self.function(value, method)
        elif isinstance(value, type) and user_class(value):
            self.meet([value])
            init = _static(value, "__init__")
            if isinstance(init, types.FunctionType):
                self.function(init, True)
        elif user_class(type(value)):
            call = _static(type(value), "__call__")
            if not isinstance(call, types.FunctionType):
                raise _Rebinds
            self.function(call, True)
        else:
            raise _Rebinds
