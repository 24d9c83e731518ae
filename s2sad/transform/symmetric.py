"""symmetric: matrices symmetric by construction, whose triangle folds are not needed.

``np.linalg.eigh``, ``eigvalsh`` and ``cholesky`` read one triangle of their input,
so their reverse rules give the adjoint of that triangle: the symmetric adjoint g
folded into it, ``(g + g.T) * tri - g * eye``, and zero in the other triangle (what
central differences of NumPy's function see). Where the input is a matrix that is
symmetric for every value of the function's arguments (``B + B.T``, ``X.T @ X``),
its tangent is symmetric too, so the adjoint's antisymmetric part never reaches
an argument, and g, which has the fold's symmetric part, gives the same gradient:
the rules of `linalg_reverse.OF_SYMMETRIC` return g, three passes over the matrix
and a mask fewer, as a gradient written by hand does.

`SymmetricInputs.symmetric` is the proof, by the one definition of a name (through
``dup``s and copies): ``x + x.T`` and ``x.T + x``, ``x @ x.T`` and ``x.T @ x``
(``x.T`` as ``np.transpose(x)`` of a matrix: of a stack it reverses every axis),
sums and differences of symmetric matrices (or of matrices that carry no derivative,
whose tangent is zero: ``X.T @ X + np.diag(d)``), and a symmetric matrix times or
over a number. Anything else, a name defined twice (a loop's carried value, a join)
and a matrix written into (``S[0, 1] = 0.0``) included, is not known symmetric and
keeps the rule that folds.

A mixin of `reverse._Transform` (it reads `fn` and `act`). May import `primitives`
and `ir`.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir
from ..ir.kinds import INT, SCALAR, ArrayKind
from ..primitives.linalg_reverse import OF_SYMMETRIC

_PRODUCTS = ("matmul", np.matmul, np.dot)


class SymmetricInputs:
    """The rule of `op`, or its variant for a symmetric input (see the module
    docstring)."""

    def rule_of(self, op):
        try:
            variants = OF_SYMMETRIC.get(op.key)
        except TypeError:  # (an unhashable key)
            variants = None
        if not variants or len(op.inputs) != 1 or not self.symmetric(op.inputs[0]):
            return op.rule
        for rule in variants:
            if rule.arity == op.rule.arity and tuple(rule.options) == tuple(op.rule.options):
                return rule
        return op.rule

    def symmetric(self, atom, value=False) -> bool:
        """Is every tangent of `atom` a symmetric matrix (with `value`: is `atom`
        one for every value of the arguments, and so its tangents too)? A value
        that carries no derivative has no tangent: it is symmetric unless `value`."""
        if not isinstance(atom, ast.Name) or not self._matrix(atom.id):
            return False
        act = self.act
        if act.written and any(r in act.written for r in [act.root(atom.id)]
                               + list(act.viewed_roots(atom.id))):
            return False  # (written into, ``S[0, 1] = 0.0``: symmetric no longer)
        if not self.act.is_active(atom):
            return not value and self._matrix(atom.id)
        memo = self.__dict__.setdefault("_symmetric_memo", {})
        key = (atom.id, value)
        if key not in memo:
            memo[key] = False  # (a definition that reads itself: not known)
            memo[key] = self._symmetric_definition(atom.id, value)
        return memo[key]

    def _symmetric_definition(self, n, value) -> bool:
        op = self._definition(n)
        if op is None or op.kind != "rule" or len(op.inputs) != 2:
            return False
        a, b = op.inputs
        if op.key in _PRODUCTS and not op.options or op.key == "add":
            if self._transposes(a, b) or self._transposes(b, a):
                return True  # (x.T @ x, x + x.T)
        if op.key in ("add", "sub"):
            return self.symmetric(a, value) and self.symmetric(b, value)
        # (d(c s) = dc s + c ds: s itself symmetric where the number c varies)
        if op.key == "mul" and self._number(a):
            a, b = b, a
        if op.key in ("mul", "truediv") and self._number(b):
            return self.symmetric(a, value or self.act.is_active(b))
        return False

    def _transposes(self, t, x) -> bool:
        """Is `t` ``np.transpose(x)`` (``x.T``) of the matrix `x`, as values?"""
        if not isinstance(t, ast.Name) or not isinstance(x, ast.Name):
            return False
        op = self._definition(t.id)
        if op is None or op.kind != "rule" or op.key is not np.transpose or op.options \
                or len(op.inputs) != 1 or not isinstance(op.inputs[0], ast.Name):
            return False
        return self._matrix(x.id) and self._source(op.inputs[0].id) == self._source(x.id)

    def _definition(self, n):
        """The op of `n`'s one definition (through dups and copies), or None."""
        return self._definitions().get(self._source(n))

    def _source(self, n) -> str:
        """The name `n` is a copy of (through ``dup``s and plain copies), or `n`."""
        self._definitions()
        copies, seen = self.__dict__["_copies"], set()
        while n in copies and n not in seen:
            seen.add(n)
            n = copies[n]
        return n

    def _definitions(self) -> dict:
        """name -> the op of its one definition (names defined more than once and
        unpacked ones left out), and `_copies`: name -> the name it copies."""
        got = self.__dict__.get("_symmetric_defs")
        if got is not None:
            return got
        defs, copies, count = {}, {}, {}
        for s in ir.walk(self.fn.body):
            targets = s.targets if isinstance(s, (ir.Dup, ir.Assign)) else ()
            for t in targets:
                count[t] = count.get(t, 0) + 1
            if isinstance(s, ir.Dup):
                for t in s.targets:
                    copies[t] = s.source
            elif isinstance(s, ir.Assign) and len(s.targets) == 1 and not s.unpack:
                op = self.act.op(s)
                if op.kind == "copy" and len(op.inputs) == 1 \
                        and isinstance(op.inputs[0], ast.Name):
                    copies[s.targets[0]] = op.inputs[0].id
                else:
                    defs[s.targets[0]] = op
        for t, k in count.items():
            if k > 1:
                defs.pop(t, None)
                copies.pop(t, None)
        self.__dict__["_copies"] = copies
        self.__dict__["_symmetric_defs"] = defs
        return defs

    def _matrix(self, n) -> bool:
        kind = self.act.kinds.get(n)
        return isinstance(kind, ArrayKind) and kind.ndim == 2

    def _number(self, atom) -> bool:
        if isinstance(atom, ast.Constant):
            return isinstance(atom.value, (int, float)) and not isinstance(atom.value, bool)
        return isinstance(atom, ast.Name) and self.act.kinds.get(atom.id) in (SCALAR, INT)
