"""masks: the adjoints of ``np.where``'s branches, without NaN at the masked points.

``np.where(x > 0, np.sqrt(x), 0.0)`` gives its branch ``np.sqrt(x)`` the adjoint
``where(c, g, 0.0)``: zero where the branch is not taken. The rule of ``np.sqrt``
then multiplies that zero by its local derivative ``1 / (2 * sqrt(x))``, infinite at
``x == 0`` and NaN at ``x < 0``: ``0 * inf`` is NaN, and the gradient of a function
that never used the masked branch's value is NaN there (JAX's and PyTorch's answer).

The rule (docs/design.md, "Kinks have one convention"; docs/guide/numpy.md): a term
whose adjoint is exactly zero is zero. Here that is done by moving the local
derivative inside the mask: the term of an elementwise rule whose ``out_bar`` is
``where(c, g, 0.0)`` is written ``where(c, term(g), 0.0)`` (the rule inlined with
``g`` for ``out_bar``), which equals ``term(where(c, g, 0.0))`` wherever ``c`` holds
and is exactly zero elsewhere, whatever the local derivative is there. The result is
again a masked adjoint, so the mask follows the branch's chain of elementwise rules
up to the inputs, and a `dup` whose uses all carry the same mask keeps it
(``where(c, a + b, 0.0)``).

It costs nothing where no NaN can arise: the mask moves through a rule only when the
rule reads one active input (one ``where`` in, one out: the ``where`` of the branch
moves up, and the lines it leaves behind are dead), or when the rule may be singular
(its value or derivative may be infinite or NaN at finite inputs: not in
`primitives.facts.BOUNDED`, or it reads a value that may be non-finite, such as the
``log(x)`` of ``x * log(x)``). Elsewhere the rule reads the ``where`` as before.
Golden files show no change: nothing else is touched.

Where the mask stops: at a rule that is not elementwise (a reduction, a matrix
product, a reshape), at an ``unbroadcast`` (the branch broadcast up), at an adjoint
that accumulates (a loop's, a container's), and at the end of the block the
``where`` is reversed in. Beyond it the rules are as before.

A mixin of `reverse._Transform`: reads its `act`, `fn`, `params`, `fresh`, `set_adj`,
`is_container` and `is_accumulator`; its state is `masks` (name -> `Mask`) and the
memo of `finite`. May import `common`, `primitives`, `ir`.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import numpy as np

from .. import ir
from ..ir.kinds import SCALAR, ArrayKind
from ..primitives.facts import BOUNDED, facts_of
from .common import adj


@dataclass(frozen=True)
class Mask:
    """A masked adjoint: ``where(cond, value, 0.0)`` (``where(cond, 0.0, value)``
    when not `keep`); of a `number`, ``value if cond else 0.0``."""

    cond: ast.expr
    keep: bool
    value: ast.expr
    number: bool = False

    def same(self, other) -> bool:
        return self.keep == other.keep and ir.expr_key(self.cond) == ir.expr_key(other.cond)

    def wrap(self, expr, other=None, number=False) -> ast.expr:
        """``where(cond, expr, other)`` (`other` 0.0 by default), or ``where(cond,
        other, expr)`` when not `keep`; ``expr if cond else other`` for a number
        (which computes only the branch taken)."""
        zero = ir.const(0.0) if other is None else other
        cond = ir.name(self.cond.id) if isinstance(self.cond, ast.Name) \
            else ir.const(self.cond.value)
        taken, masked = (expr, zero) if self.keep else (zero, expr)
        if number:
            return ast.IfExp(test=cond, body=taken, orelse=masked)
        return ast.Call(func=ast.Attribute(value=ir.name("np"), attr="where", ctx=ast.Load()),
                        args=[cond, taken, masked], keywords=[])


def elementwise(key) -> bool:
    """An operator, a NumPy ufunc without a shape of its own, or a `math` function."""
    if isinstance(key, str) or isinstance(key, np.ufunc):
        return facts_of(key).shape is None
    return getattr(key, "__module__", None) == "math" or key in (abs, pow)


class MaskedAdjoints:
    """The masked adjoints of ``np.where``'s branches (see the module docstring)."""

    def branch_masks(self, op, target: str, out_bar, terms: dict) -> None:
        """After ``np.where``'s terms are made: record the mask of each branch whose
        adjoint is exactly ``where(cond, out_bar, 0.0)`` (or ``where(cond, 0.0,
        out_bar)``; for numbers in an ``unbroadcast``) and set by a plain
        assignment."""
        if op.key is not np.where or not isinstance(out_bar, ast.Name):
            return
        for i, keep in ((1, True), (2, False)):
            term, like = self.unwrapped(terms.get(i), target)
            if isinstance(term, ast.IfExp):  # (of numbers: ``out_bar if cond else 0.0``)
                parts, number = [term.test, term.body, term.orelse], True
            elif isinstance(term, ast.Call) and ir.dotted(term.func) == "np.where" \
                    and len(term.args) == 3 and not term.keywords:
                parts, number = term.args, like is not None
            else:
                continue
            value = parts[1 if keep else 2]
            other = parts[2 if keep else 1]
            if isinstance(value, ast.Name) and value.id == out_bar.id \
                    and isinstance(other, ast.Constant) and other.value == 0.0 \
                    and isinstance(parts[0], (ast.Name, ast.Constant)) \
                    and self.plain_adjoint(op.inputs[i].id):
                self.masks[op.inputs[i].id] = Mask(parts[0], keep, out_bar, number)

    def unwrapped(self, term, target: str):
        """`term` and None, or for ``unbroadcast(e, x)`` with `x` and `target`
        numbers (no broadcasting: it only makes a 0-d array a number), `e` and `x`."""
        if isinstance(term, ast.Call) and ir.dotted(term.func) == "unbroadcast" \
                and len(term.args) == 2 and isinstance(term.args[1], ast.Name) \
                and self.act.kinds.get(term.args[1].id) == SCALAR \
                and self.act.kinds.get(target) == SCALAR:
            return term.args[0], term.args[1].id
        return term, None

    def plain_adjoint(self, n: str) -> bool:
        return not self.is_container(n) and not self.is_accumulator(n)

    def mask_through(self, op, target: str, wanted: list):
        """The mask to carry through this rule's terms, or None: `target`'s adjoint
        is masked, the rule is elementwise, and it reads one active input or may be
        singular."""
        mask = self.masks.get(target)
        if mask is None or op.key is np.where or not elementwise(op.key) or not all(
                self.act.kinds.get(op.inputs[i].id) == SCALAR
                or isinstance(self.act.kinds.get(op.inputs[i].id), ArrayKind)
                for i in wanted):
            return None  # (a list's adjoint is a list: no mask around it)
        if len(wanted) == 1 or not self.bounded(op):
            return mask
        return None

    def bounded(self, op) -> bool:
        """Does `op` certainly give a finite value and a finite derivative (finite
        inputs to a rule in `BOUNDED`)?"""
        try:
            known = op.key in BOUNDED
        except TypeError:
            return False
        return known and all(self.finite(x) for x in op.inputs)

    def finite(self, atom) -> bool:
        """Is `atom` certainly finite, given finite arguments? A constant, a
        parameter, or a value of a `bounded` rule (a copy of one)."""
        if isinstance(atom, ast.Constant):
            return isinstance(atom.value, (int, float)) and math.isfinite(atom.value)
        if not isinstance(atom, ast.Name):
            return False
        n = atom.id
        if n in self.params:
            return True
        if n in self.finite_memo:
            return self.finite_memo[n]
        self.finite_memo[n] = False  # (a loop's carried values: not known)
        if self.definitions is None:
            self.definitions = {}  # name -> its one definition (None: several)
            for s in ir.walk(self.fn.body):
                targets = s.targets if isinstance(s, (ir.Dup, ir.Assign)) else ()
                for t in targets:
                    self.definitions[t] = None if t in self.definitions else s
        s = self.definitions.get(n)
        result = False
        if isinstance(s, ir.Dup):
            result = self.finite(ir.name(s.source))
        elif isinstance(s, ir.Assign) and len(s.targets) == 1 and not s.unpack:
            op = self.act.op(s)
            if op.kind == "copy":
                result = all(self.finite(x) for x in op.inputs)
            elif op.kind == "rule":
                result = self.bounded(op)
        self.finite_memo[n] = result
        return result

    def unmasked_seed(self, seed: ast.Name, mask: Mask, assigns: list, terms: dict,
                      line) -> list:
        """The rule was inlined with the name `seed` for ``out_bar``: put the mask's
        value in its place where it is read once (`assigns` and `terms` changed in
        place), or bind it (the line returned) where it is read more often."""
        exprs = [e for _, e in assigns] + list(terms.values())
        reads = sum(1 for e in exprs for n in ast.walk(e)
                    if isinstance(n, ast.Name) and n.id == seed.id)
        if reads > 1 and not isinstance(mask.value, (ast.Name, ast.Constant)):
            return [ir.Assign((seed.id,), mask.value, line)]
        mapping = {seed.id: mask.value}
        assigns[:] = [(n, ir.substitute(e, mapping)) for n, e in assigns]
        for i in terms:
            terms[i] = ir.substitute(terms[i], mapping)
        return []

    def masked_terms(self, inputs, target: str, terms: dict, mask: Mask, line) -> list:
        """The statements giving each input its masked term, ``x%bar = where(cond,
        term, 0.0)``, the mask recorded for `x`; a term that broadcasts back
        (``unbroadcast(e, x)``) or an adjoint that accumulates is masked inside and
        not recorded."""
        out = []
        for i, term in terms.items():
            n = inputs[i].id
            inner, like = self.unwrapped(term, target)
            if like is None and isinstance(term, ast.Call) \
                    and ir.dotted(term.func) == "unbroadcast" and term.args:
                term.args[0] = mask.wrap(term.args[0])
                out.append(self.set_adj(n, term, line))
            elif not self.plain_adjoint(n):
                out.append(self.set_adj(n, mask.wrap(term), line))
            else:
                out.extend(self.masked_assign(n, inner, mask, line))
        return out

    def masked_assign(self, n: str, value, mask: Mask, line) -> list:
        """``n%bar = where(cond, value, 0.0)``, its mask recorded with `value` (a
        rule reading the mask inlines `value`: the line is dead if only such rules
        read it); a number's ``value if cond else 0.0``."""
        number = self.act.kinds.get(n) == SCALAR
        self.masks[n] = Mask(mask.cond, mask.keep, value, number)
        return [ir.Assign((adj(n),), mask.wrap(ir.copy_tree(value), number=number), line)]

    def masked_sum(self, source: str, copies: list, line):
        """The adjoint of a `dup` whose uses all carry one mask: ``where(cond, a +
        b, 0.0)``, still masked; of one used in each branch of one ``where``:
        ``where(cond, a, b)``; None otherwise."""
        masks = [self.masks.get(c) for c in copies]
        if len(copies) == 2 and None not in masks and masks[0].keep != masks[1].keep \
                and ir.expr_key(masks[0].cond) == ir.expr_key(masks[1].cond) \
                and self.plain_adjoint(source):
            # (one use in each branch: ``where(cond, a, b)``)
            a, b = masks if masks[0].keep else masks[::-1]
            both = a.wrap(ir.copy_tree(a.value), ir.copy_tree(b.value),
                          self.act.kinds.get(source) == SCALAR)
            return [ir.Assign((adj(source),), both, line)]
        if len(copies) < 2 or any(m is None for m in masks) \
                or not all(m.same(masks[0]) for m in masks) or not self.plain_adjoint(source):
            return None
        total = ir.copy_tree(masks[0].value)
        for m in masks[1:]:
            total = ast.BinOp(left=total, op=ast.Add(), right=ir.copy_tree(m.value))
        return self.masked_assign(source, total, masks[0], line)
