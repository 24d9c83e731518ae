"""static: `isinstance` tests whose answer the parameters' kinds decide.

The compiled code is specialised on the types of its arguments, so
``isinstance(p, float)`` of a parameter `p` is known before the call: the branch it
rules out never runs, gives no kind to the names it joins and varies nothing.
"""

from __future__ import annotations

import ast

from .. import ir
from ..ir.kinds import INT, NONE, SCALAR, isinstance_known


class StaticTests:
    """The `isinstance` tests the kinds decide: a part of activity's analysis (it
    reads and writes the analysis's `static`, `classes`, `typed`, `keep` and `dead`)."""

    def note_static(self, s, op):
        """Record the answer of ``isinstance(p, cls)`` where the kind of the parameter
        `p` decides it (and of ``not`` of such a test, and of copies)."""
        if len(s.targets) != 1 or s.unpack:
            return
        t = s.targets[0]
        value = s.value
        if isinstance(value, ast.Tuple):  # a tuple of classes, for isinstance
            classes = [self.static_ref(e) for e in value.elts]
            if value.elts and all(isinstance(c, type) for c in classes):
                self.classes[t] = tuple(classes)
            return
        if op.kind == "copy" and op.inputs[0].id in self.static:
            self.static[t] = self.static[op.inputs[0].id]
        elif op.kind == "copy" and op.inputs[0].id in self.typed:
            self.typed.add(t)
        elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) and \
                isinstance(value.operand, ast.Name) and value.operand.id in self.static:
            self.static[t] = not self.static[value.operand.id]
        elif isinstance(value, ast.Compare) and len(value.ops) == 1 and \
                isinstance(value.ops[0], (ast.Is, ast.IsNot)):
            known = self.is_none(value.left, value.comparators[0])
            if known is not None:
                self.static[t] = known if isinstance(value.ops[0], ast.Is) else not known
        elif op.kind == "nondiff" and op.key is isinstance and isinstance(value, ast.Call) \
                and len(value.args) == 2 and not value.keywords \
                and isinstance(value.args[0], ast.Name) and value.args[0].id in self.typed:
            given = value.args[1]
            if isinstance(given, ast.Name) and given.id in self.classes:
                resolved = self.classes[given.id]
            else:
                resolved = tuple(self.static_ref(c) for c in (
                    given.elts if isinstance(given, ast.Tuple) else [given]))
            if not all(isinstance(c, type) for c in resolved):
                return
            kind = self.atom_kind(value.args[0])
            if self.callee and kind in (SCALAR, INT):
                # a callee's parameter has the kind of what its callers pass, and an int
                # joined with a float on another path is a float there
                return
            known = isinstance_known(kind, resolved)
            if known is not None:
                self.static[t] = known

    def is_none(self, left, right):
        """``a is None`` (or ``None is a``) where the kind of the parameter (or copy of
        one) `a` decides it, or the value of the global `a` (the dispatcher builds
        again for one of another kind, `api.guards.value_guards`): True, False, or
        None when neither does."""
        if isinstance(left, ast.Constant) and left.value is None:
            left, right = right, left
        if not (isinstance(right, ast.Constant) and right.value is None):
            return None
        if isinstance(left, ast.Name) and left.id in self.index.given_none:
            return True  # (a local given None once, and nothing else: ``off = None``)
        if isinstance(left, ast.Name) and left.id in self.typed:
            kind = self.atom_kind(left)
            return True if kind == NONE else isinstance_known(kind, (type(None),))
        text = ir.dotted(left)
        if text is None or self.is_local(text.split(".")[0]) or text not in self.fn.refs:
            return None
        return self.fn.refs[text] is None

    def static_ref(self, node):
        """The object a global or builtin name (or dotted name) stands for; None for
        anything else."""
        text = ir.dotted(node)
        if text is None or self.is_local(text.split(".")[0]):
            return None
        return self.fn.refs.get(text)

    def forward_decided(self, s: ir.If, known: bool):
        """An `if` whose test the parameters' kinds decide: the branch that runs, then
        the other one, which gives no kind to the names it shares with the rest of the
        function (a join: ``return x * x`` for a float, ``np.sum(x * x)`` for an
        array) and makes nothing varied, so nothing in it is active."""
        r = self.result
        live, dead = (s.body, s.orelse) if known else (s.orelse, s.body)
        self.dead[id(s)] = dead
        self.forward(live)
        own = {}
        for st in ir.walk(dead):
            for t in ir.defined_names(st):
                own[t] = own.get(t, 0) + 1
        outer, varied = self.keep, set(r.varied)
        self.keep = outer | {t for t, k in own.items() if self.defined.get(t, 0) > k}
        self.forward(dead)
        self.keep = outer
        r.varied.intersection_update(varied)
