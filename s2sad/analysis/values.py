"""values: the checks on values that Python and s2sad's derivative would not treat
the same way, a part of activity's analysis (`checks.Checks` takes them in).

The `*` part of an unpacking of an array or a tuple (``first, *rest = a``, a list in
Python, a slice here: `ir.kinds.STARRED`) is followed from its assignment
(`note_starred`) to what reads it, and refused where that would not read it as a
list's items (`check_starred`). Complex numbers between real ones are refused where
they meet a value that carries a derivative (`computes_complex`, `refuse_complex`):
the rules are those of real arithmetic.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir
from ..errors import NotDifferentiableError
from ..ir.kinds import ArrayKind, libraries_in
from .classify import reports_only

# builtins that read a sequence's items only, the same of a list as of a slice
_ITERATING = (len, sum, min, max, sorted, any, all, enumerate, zip, reversed, iter, list,
              tuple)


class ValueChecks:
    """A mixin of activity's analysis: it reads `result`, `fn`, `param_kinds`,
    `starred` and `atom_kind`, and raises with `error`."""

    def note_starred(self, s):
        """``rest = xs[1:]``, the `*` part of an unpacking (`ir.kinds.STARRED`): a list
        in Python, a tuple or an array here when `xs` is one; `check_starred` follows
        what reads it."""
        kind = self.atom_kind(s.value.value)
        if isinstance(kind, (ArrayKind, tuple)):
            self.starred.update(s.targets)
        if isinstance(kind, ArrayKind) and any(libraries_in(k) for k in
                                               self.param_kinds.values()):
            # (another library's functions take a list, not an array, for a sequence
            # of arrays: `stack`, `concat`)
            self.__dict__.setdefault("starred_elsewhere", set()).update(s.targets)

    def check_starred(self):
        """Refuse the `*` part of an unpacking of an array or a tuple (`note_starred`)
        where it is read other than as the items of a list are (by index, by a loop,
        by `len`, by NumPy): ``rest + [y]`` joins two lists in Python, and would add
        them here. Its copies and slices are followed too."""
        r = self.result
        starred, changed = set(self.starred), True
        while changed:  # (a loop's phi takes it at the iteration's end, read before)
            changed = False
            for s in ir.walk(self.fn.body):
                op = r.ops.get(id(s)) if isinstance(s, (ir.Assign, ir.Expr)) else None
                read = [x.id for x in op.inputs if isinstance(x, ast.Name)
                        and x.id in starred] if op is not None else []
                if not read:
                    continue
                value = s.value
                if op.kind == "copy" or op.kind == "getitem" and isinstance(
                        getattr(value, "slice", None), ast.Slice):
                    new = set(getattr(s, "targets", ())) - starred
                    starred |= new
                    changed |= bool(new)
                elif not (op.kind == "getitem" or isinstance(value, ast.Call) and
                          self.reads_items(value, elsewhere=bool(
                              set(read) & getattr(self, "starred_elsewhere", set())))):
                    name = read[0].split("%")[0]
                    raise self.error(
                        NotDifferentiableError, s, op,
                        f"`{name}`, the `*` part of an unpacking, is a list in Python, and "
                        f"s2sad holds it as a slice of the tuple or array it came from, "
                        f"which {op.text or 'this line'} would not treat as a list",
                        f"Make the list yourself: `{name} = [a[i] for i in range(1, "
                        "len(a))]` for an array `a`, `list(t[1:])` for a tuple `t`.")

    def reads_items(self, call, elsewhere=False) -> bool:
        """Does `call` read a sequence's items as it would a list's: a builtin that
        iterates (`len`, `sum`, `min`...), a NumPy (or SciPy) function (not for an
        array of another library: `elsewhere`), or a function with no derivative that
        only reports?"""
        text = ir.dotted(call.func)
        obj = self.fn.refs.get(text) if text else None
        package = (getattr(obj, "__module__", None) or "").split(".")[0]
        return any(obj is b for b in _ITERATING) or reports_only(obj) or not elsewhere and (
            type(obj).__name__ == "ufunc" or package in ("numpy", "scipy"))

    def refuse_complex(self, s, op):
        raise self.error(
            NotDifferentiableError, s, op,
            f"{op.text or 'this line'} computes with complex numbers and a value that "
            "carries a derivative: s2sad's derivatives are those of real arithmetic, "
            "and a complex value in between would need its derivatives conjugated, "
            "which s2sad does not do yet",
            "Write it with real and imaginary parts (np.cos(a) and np.sin(a) for "
            "np.exp(1j * a)), or compute it outside the differentiated function.")

    def computes_complex(self, s, op) -> bool:
        """Does the assignment `s` compute with a complex number: a complex literal,
        a complex array, or a value such an assignment gave (its targets are noted)?"""
        seen = self.__dict__.setdefault("complex_values", set())
        if not seen and not self.__dict__.get("complex_inputs", True):
            return False  # (no assignment reads a complex literal or array: `forward`)
        if _complex_input(self, op.inputs, seen) or \
                isinstance(s.value, (ast.List, ast.Tuple)) and any(
                    isinstance(e, ast.Name) and e.id in seen or isinstance(e, ast.Constant)
                    and isinstance(e.value, complex) for e in s.value.elts):
            value = s.value
            func = self.fn.refs.get(ir.dotted(value.func) or "") \
                if isinstance(value, ast.Call) else None
            if not (func in (abs, np.abs, np.real, np.imag, np.angle) or isinstance(
                    value, ast.Attribute) and value.attr in ("real", "imag")):
                seen.update(s.targets)  # (not a real number made of a complex one)
            return True
        return False


_NAME, _STR = frozenset({ast.Name}), frozenset({str})


def complex_kinds(inputs, kinds) -> bool:
    """Is one of the atoms `inputs`, of `kinds`, a complex literal or of a complex
    kind (what `computes_complex` looks for, but the names it noted)?"""
    if _NAME.issuperset(map(type, inputs)) and _STR.issuperset(map(type, kinds)):
        return False  # (the commonest: names of numbers)
    for x, k in zip(inputs, kinds):
        if type(k) is not str and getattr(k, "dtype", None) == "c" or \
                isinstance(x, ast.Constant) and isinstance(x.value, complex):
            return True
    return False


def _complex_input(analysis, inputs, seen) -> bool:
    """Is one of `inputs` a complex literal, a name of `seen`, or of a complex kind?"""
    for x in inputs:
        t = type(x)
        if t is ast.Name:
            if x.id in seen:
                return True
        elif isinstance(x, ast.Constant) and isinstance(x.value, complex) or \
                isinstance(x, ast.Name) and x.id in seen:
            return True
        kind = analysis.atom_kind(x)
        if type(kind) is not str and getattr(kind, "dtype", None) == "c":
            return True
    return False
