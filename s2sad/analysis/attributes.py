"""attributes: which attributes of an object argument a derivative may take the kinds
of, and whether a call of it may rebind them.

Contract
--------
`attribute_names(func, classes)` is a superset of the names of the attributes a call
of `func` with objects of `classes` reads of them: every name the code of `func`
and of the functions its classes define loads (their ``co_names``, nested code
included). The API takes the kinds of the numbers and arrays an object argument
holds under those names (`kinds.held_attributes`) as part of its kind
(`ObjectKind.attrs`), which the dispatcher checks on every call; fewer names, fewer
checks.

`runs_unseen_code(fn, act, seen)` says whether `fn`, analysed as `act`, runs code
s2sad does not see into, which may rebind an attribute of an object while the
derivative runs: a function or method of the user's run as written (a call for its
effect of one s2sad cannot read, `seen`) or a callable object (a call with no rule:
``self.grow()``, ``hooks[0](x)``, ``np.vectorize(f)(x)``), a function registered
as non-differentiable, an operation any of whose inputs (a loop's count, a
repetition's too) is not a number, a NumPy array of numbers or a container of them
(a value of unknown kind or an object may run its class's ``__add__``,
``__index__``, ``__bool__``; a callable handed to a library function may be
called; an abstract class's ``isinstance`` asks its subclasses), an attribute read
through a property or another descriptor, or where the class has ``__getattr__``,
or of a value of unknown kind, a name read through a module of the user's with a
``__getattr__``, and a block run as written (``try``, ``with``, ``assert``). What
s2sad compiles itself (the function, the functions and methods it calls, which
`parse` refuses to assign an attribute) and the functions it has rules for (a
rule's function is a function of its inputs) rebind nothing; nor, it takes, do the
hooks any line may reach (``sys.stdout``, ``warnings.showwarning``,
``np.seterrcall``, audit hooks). The builder gives a derivative the attributes'
kinds only where no function it analyses runs unseen code
(`driver.stages.Kinds.unseen`), and builds it again without them otherwise.
"""

from __future__ import annotations

import ast
import inspect
import types

import numpy as np

from .. import ir
from ..ir.kinds import (INT, SCALAR, UNKNOWN, ArrayKind, DTypeKind, ListKind, ObjectKind,
                        library_module, library_object)

_NAMES: dict = {}  # (code objects...) -> the names they load (`attribute_names`)
_LIMIT = 4096  # the most entries `_NAMES` keeps (then it starts afresh)


def attribute_names(func, classes: tuple) -> frozenset:
    """The names the code of `func` and of the functions `classes` define load."""
    codes = [func.__code__] + [
        f.__code__ for cls in classes for klass in cls.__mro__[:-1]
        for v in vars(klass).values()
        for f in _functions(v)]
    key = tuple(codes)
    got = _NAMES.get(key)
    if got is None:
        if len(_NAMES) >= _LIMIT:
            _NAMES.clear()
        names = set()
        todo = list(codes)
        while todo:
            code = todo.pop()
            names.update(code.co_names)
            todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        got = _NAMES[key] = frozenset(names)
    return got


def _functions(value) -> list:
    """The Python functions a class's entry `value` runs: a function, a static or
    class method's, a property's getter, setter and deleter."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel)
                if isinstance(f, types.FunctionType)]
    return [value] if isinstance(value, types.FunctionType) else []


def plain(kind) -> bool:
    """Is a value of `kind` one whose operations run no code of the user's: a number,
    a NumPy array of numbers (or another library's), a dtype, a tuple or a list of
    those?"""
    if kind == SCALAR or kind == INT:
        return True
    if isinstance(kind, ArrayKind):
        return kind.dtype in ("f", "i", "b", "c")
    if isinstance(kind, tuple):
        return all(map(plain, kind))
    if isinstance(kind, ListKind):
        return plain(kind.elem) and all(map(plain, kind.items or ()))
    return isinstance(kind, DTypeKind)


_PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), range,
                slice)


def _plain_value(value) -> bool:
    """Is `value`, a name's outside the function, one whose use runs no code of the
    user's (a number, text, an array of numbers, a module, a library's class or
    function)?"""
    if type(value) in _PLAIN_TYPES:
        return True
    if isinstance(value, types.ModuleType):  # (a library's, or one with no `__getattr__`)
        return library_module(value.__name__) or \
            type(value) is types.ModuleType and "__getattr__" not in vars(value)
    if type(value) is np.ndarray:
        return value.dtype.kind in "fiubc"
    if isinstance(value, type) and type(value) is not type:
        return False  # (an abstract base class: `isinstance` asks its subclasses' hooks)
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return library_object(value) and not isinstance(value, np.ufunc) or \
            isinstance(value, np.ufunc) and getattr(np, value.__name__, None) is value
    return False


class _Unseen:
    """One walk of `runs_unseen_code`."""

    def __init__(self, fn: ir.Function, act, seen):
        self.fn = fn
        self.act = act
        self.seen = seen

    def atom(self, x) -> bool:
        """Does using the atom `x` run no code of the user's?"""
        if isinstance(x, ast.Constant):
            return True
        if isinstance(x, ast.Name):
            kind = self.act.kinds.get(x.id)
            if kind is not None:
                return plain(kind)
            return x.id in self.fn.refs and _plain_value(self.fn.refs[x.id])
        if isinstance(x, (ast.Tuple, ast.List)):
            return all(map(self.atom, x.elts))
        if isinstance(x, ast.Slice):
            return all(self.atom(p) for p in (x.lower, x.upper, x.step) if p is not None)
        if isinstance(x, ast.Attribute):  # (a static chain: np.pi, np.float64)
            return self.chain(x)
        if isinstance(x, ast.UnaryOp):
            return self.atom(x.operand)
        return False

    def chain(self, x) -> bool:
        """Is the static chain `x` (``np.pi``, ``mylib.f``) read with no code of the
        user's: each module on its way plain, and what it means plain?"""
        text = ir.dotted(x)
        if text is None or text not in self.fn.refs:
            return False
        parts = text.split(".")
        for i in range(1, len(parts)):
            module = self.fn.refs.get(".".join(parts[:i]))
            if isinstance(module, types.ModuleType) and not _plain_value(module):
                return False
        return _plain_value(self.fn.refs[text])

    def callee(self, value) -> bool:
        """Is the function a call names (``np.sum``, ``lazy.f``) reached with no code of
        the user's (no module of the user's with a `__getattr__` on the way)?"""
        func = value.func if type(value) is ast.Call else None
        if not isinstance(func, ast.Attribute) or ir.dotted(func) is None:
            return True
        parts = ir.dotted(func).split(".")
        return all(_plain_value(m) for i in range(1, len(parts))
                   if isinstance(m := self.fn.refs.get(".".join(parts[:i])), types.ModuleType))

    def container(self, x) -> bool:
        """Is the atom `x` a list or a tuple (whose items may be anything: indexing
        one, appending to it, runs no code of theirs), or plain?"""
        kind = self.act.kinds.get(x.id) if isinstance(x, ast.Name) else None
        held = self.fn.refs.get(x.id) if isinstance(x, ast.Name) and kind is None else None
        return isinstance(kind, (ListKind, tuple)) or isinstance(x, (ast.List, ast.Tuple)) \
            or type(held) in (list, tuple) or self.atom(x)  # (a global list: ``CL[0]``)

    def op(self, s, op) -> bool:
        """Does the operation `op` (the statement `s`'s) run code s2sad does not see?"""
        kind = op.kind
        if kind == "copy":
            return False
        if kind == "const":  # (``mylib.scale``: a module's `__getattr__` may be the user's)
            return not self.callee(ast.Call(func=s.value, args=[], keywords=[]))
        if kind == "call":  # (a function s2sad reads is analysed itself; not one it runs
            # as written, the function of a call for its effect that it cannot read)
            return not self.seen(op.key, s, [self.act.atom_kind(x, self.fn.refs)
                                             for x in op.inputs])
        if kind in ("pack", "listpack", "tuplecat"):
            return False
        if kind in ("append", "pop"):
            return not self.container(op.inputs[0])
        if kind in ("repeat", "concat"):  # (a repetition's count: its `__index__`)
            return not (self.container(op.inputs[0]) and self.container(op.inputs[1]))
        if kind == "getitem":
            return not (self.container(op.inputs[0]) and all(map(self.atom, op.inputs[1:])))
        if kind == "unknown" and type(s.value) is ast.Attribute:
            obj = s.value.value
            held = self.act.kinds.get(obj.id) if isinstance(obj, ast.Name) else None
            return not (isinstance(held, ObjectKind) and _plain_attribute(held, s.value.attr))
        values = list(op.inputs) + list(op.options.values()) + list(op.keywords.values())
        if type(s.value) is ast.Call:  # (every argument: one a rule takes as an option,
            # or a `key=` a call with no rule leaves out of its inputs)
            values += s.value.args + [k.value for k in s.value.keywords]
        if not all(map(self.atom, values)) or not self.callee(s.value):
            return True
        if kind in ("rule", "sum", "add_at", "add_into", "inactive"):
            return False
        key = op.key
        if kind == "nondiff":
            return isinstance(key, types.FunctionType) and not library_object(key)
        # a call with no rule: a library's function of numbers
        return not (isinstance(key, (types.FunctionType, types.BuiltinFunctionType))
                    and library_object(key))

    def counts(self, x) -> bool:
        """Is the loop's `iter`, a ``range`` (or an atom holding one), made of plain
        numbers (a count's `__index__` may be the user's)?"""
        if type(x) is ast.Call:
            return all(map(self.atom, x.args))
        kind = self.act.kinds.get(x.id) if isinstance(x, ast.Name) else None
        return kind is None or plain(kind)

    def body(self, statements) -> bool:
        for s in statements:
            t = type(s)
            if t is ir.Assign or t is ir.Expr:
                op = self.act.ops.get(id(s))
                if op is None or self.op(s, op):
                    return True
            elif t is ir.If:
                if not self.container(s.test) or self.body(s.body) or self.body(s.orelse):
                    return True
            elif t is ir.Loop:
                if s.test is not None and not self.container(s.test) or \
                        s.iter is not None and not self.counts(s.iter) or \
                        self.body(s.cond) or self.body(s.body):
                    return True
            elif t is ir.Exit:
                if self.body(s.copies):
                    return True
            elif t is ir.SetItem:
                if not (self.container(s.target.value) and self.atom(s.target.slice)):
                    return True
            elif t is ir.Kept:
                return True
        return False


def _plain_attribute(kind: ObjectKind, attr: str) -> bool:
    """Is reading ``obj.attr`` of an object of `kind` a read of its ``__dict__`` (or a
    method bound, a class's plain value), running no code of the user's: no
    descriptor of the class's own (a property) decides it, nor ``__getattr__`` one
    the object may not hold?"""
    if kind.attribute(attr) == UNKNOWN and _static(kind.cls, "__getattr__") is not None:
        return False
    found = _static(kind.cls, attr)
    if found is None or isinstance(found, (types.FunctionType, staticmethod, classmethod)):
        return True
    return not hasattr(type(found), "__get__")


def _static(cls, name):
    try:
        return inspect.getattr_static(cls, name)
    except AttributeError:
        return None


def runs_unseen_code(fn: ir.Function, act, seen) -> bool:
    """Does `fn`, analysed as `act`, run code s2sad does not see into (see the
    module's docstring)? ``seen(func, stmt, arg_kinds)`` says whether s2sad reads
    (and so looks at) the function of the user's a statement calls with arguments
    of those kinds."""
    return _Unseen(fn, act, seen).body(fn.body)
