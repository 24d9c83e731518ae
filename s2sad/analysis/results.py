"""results: the kind of each operation's result, from the kinds of its inputs.

`ResultKinds.out_kinds(s, op)` gives the kinds of an assignment's targets. It
dispatches on the kind of the operation (`classify.KINDS`) through `RESULT_KINDS`,
one method per kind; what a NumPy function gives (rank and dtype) is
`primitives.facts`'s to say.
"""

from __future__ import annotations

import ast
import types

from .. import ir
from ..ir.kinds import (INT, NONE, OTHER, SCALAR, UNKNOWN, ArrayKind, ListKind, ObjectKind,
                        attribute_kind, kind_of, logical_kind, merged)
from ..primitives.facts import (DEFAULT, constant_kind, facts_of, index_kind, result_dtype,
                                rule_result_kind, stops_gradient)
from ..primitives.registry import registered
from .classify import Op, makes_text
from .shapes import literals_key


def merge(old, new):
    if old is None or old == new:
        return new
    return merged(old, new)


def constant_kind_of(node):
    """The kind of a literal (``-1.5`` included)."""
    try:
        return kind_of(ast.literal_eval(node))
    except ValueError:
        return UNKNOWN


def items_kind(kinds: tuple):
    """The kind of an item of a tuple whose items have `kinds`, read at an index known
    only at run time."""
    out = None
    for k in kinds:
        out = merge(out, k)
    return out


def tuple_sum_kind(kinds: tuple):
    """The kind of the built-in ``sum`` of a tuple of values of `kinds` (``0 +`` each
    item in turn): a number of numbers, an array of the highest rank of arrays and
    numbers that broadcast into it (``sum((W, b))``), else unknown."""
    if all(k == INT for k in kinds):
        return INT
    if all(k in (SCALAR, INT) for k in kinds):
        return SCALAR
    arrays = [k for k in kinds if type(k) is ArrayKind]
    if any(k not in (SCALAR, INT) and type(k) is not ArrayKind for k in kinds) or any(
            a.ndim is None or a.dtype not in ("f", "i", "b") for a in arrays) or \
            len({a.xp for a in arrays}) != 1:
        return UNKNOWN
    dtype = "f" if SCALAR in kinds or any(a.dtype == "f" for a in arrays) else "i"
    return ArrayKind(max(a.ndim for a in arrays), dtype, xp=arrays[0].xp)


_RESULT = object()  # (the tag of `rule_result`'s keys in the analysis's memo)
_SAME = object()  # (and of those by the identity of the kinds)
_STR, _STR_ARRAY = frozenset({str}), frozenset({str, ArrayKind})


JOINED = 8  # (the longest tuple a join of tuples is followed as)


class ResultKinds:
    """The kinds of results: a part of activity's analysis (it reads the analysis's
    `atom_kind`, `callee_kind` and `fn`)."""

    def out_kinds(self, s: ir.Assign, op: Op, inputs=None) -> list:
        """`inputs`: the kinds of `op`'s inputs, where the caller has them."""
        n = len(s.targets)
        if s.unpack:
            value = self.atom_kind(s.value) if op.kind in ("copy", "const") else \
                self.out_kinds(ir.Assign(("_",), s.value), op)[0]
            if isinstance(value, tuple) and len(value) == n:
                return list(value)
            if isinstance(value, ListKind):  # (a list of another length raises)
                return list(value.items) if value.items is not None \
                    and len(value.items) == n else [value.elem] * n
            if isinstance(value, ArrayKind) and value.ndim != 0:
                # (an array's items along its first axis: what ``value[0]`` is)
                return [index_kind(value, ir.const(0), self.atom_kind)] * n
            return [UNKNOWN] * n
        if inputs is None:
            inputs = [self.atom_kind(x) for x in op.inputs]
        return RESULT_KINDS[op.kind](self, s, op, inputs)

    def copy_result(self, s, op, inputs) -> list:
        return [self.atom_kind(s.value)]

    def pack_result(self, s, op, inputs) -> list:
        return [tuple(inputs)]

    def pop_result(self, s, op, inputs) -> list:
        kind = inputs[0]
        return [kind.elem if isinstance(kind, ListKind) else UNKNOWN]

    def repeat_result(self, s, op, inputs) -> list:
        kind = inputs[0]
        if isinstance(kind, ListKind):
            return [ListKind(kind.elem)]
        if isinstance(op.inputs[0], ast.List):
            elem = None
            for e in op.inputs[0].elts:
                elem = merge(elem, self.atom_kind(e))
            return [ListKind(UNKNOWN if elem is None else elem)]
        return [UNKNOWN]

    def concat_result(self, s, op, inputs) -> list:
        return [ListKind(merge(inputs[0].elem, inputs[1].elem))]

    def tuplecat_result(self, s, op, inputs) -> list:
        """Both tuples' kinds, up to `JOINED` items: a tuple a recursive function
        grows by one each call (``grown(t + (1.0,), n - 1)``) would make a new
        kind, and a new analysis of the function, at every depth."""
        left, right = inputs
        if isinstance(left, tuple) and isinstance(right, tuple) \
                and len(left) + len(right) <= JOINED:
            return [left + right]
        return [UNKNOWN]

    def listpack_result(self, s, op, inputs) -> list:
        elem = None
        for k in inputs:
            elem = merge(elem, k)
        return [ListKind(UNKNOWN if elem is None else elem)]

    def sum_result(self, s, op, inputs) -> list:
        kind = inputs[0]
        if isinstance(kind, ListKind):
            return [SCALAR if kind.elem in (SCALAR, INT) else kind.elem]
        if isinstance(kind, tuple) and kind:
            return [tuple_sum_kind(kind)]
        return [UNKNOWN]

    def getitem_result(self, s, op, inputs) -> list:
        container, index = inputs[0], op.inputs[1]
        items = self.dict_items.get(op.inputs[0].id) \
            if isinstance(op.inputs[0], ast.Name) else None
        if items is not None and isinstance(index, ast.Constant) \
                and isinstance(index.value, (str, int, float, bool)) and index.value in items:
            return [items[index.value]]
        if isinstance(container, ListKind):
            if isinstance(index, ast.Slice):  # (a new list of some of its elements)
                return [ListKind(container.elem)]
            items = container.items
            if items is not None and isinstance(index, ast.Constant) and \
                    type(index.value) is int and -len(items) <= index.value < len(items):
                return [items[index.value]]
            return [container.elem]
        if isinstance(container, ArrayKind):
            return [index_kind(container, index, self.atom_kind)]
        if isinstance(container, tuple) and isinstance(index, ast.Constant) \
                and isinstance(index.value, int) \
                and -len(container) <= index.value < len(container):
            return [container[index.value]]
        picked = ir.constant_slice(index) if isinstance(container, tuple) else None
        if picked is not None:  # (a slice with bounds known here: the items it picks)
            return [container[picked]]
        if isinstance(container, tuple) and container and not isinstance(index, ast.Constant) \
                and self.atom_kind(index) == INT:
            # an index known at run time (a loop over the tuple): any of its items
            return [items_kind(container)]
        return [UNKNOWN]

    def call_result(self, s, op, inputs) -> list:
        if self.callee_kind is not None:
            return [self.callee_kind(op.key, s, inputs)]
        return [UNKNOWN]

    def nondiff_result(self, s, op, inputs) -> list:
        if stops_gradient(op):  # its input itself
            kind = inputs[0]
            return [kind if isinstance(kind, ArrayKind) or kind in (SCALAR, INT) else UNKNOWN]
        if isinstance(s.value, (ast.Compare, ast.UnaryOp, ast.BinOp)):
            return [logical_kind(inputs)]
        if facts_of(op.key).int_result:
            return [INT]
        if isinstance(s.value, ast.Attribute):  # x.shape, x.ndim, x.size
            return [attribute_kind(s.value.attr, inputs[0])]
        if isinstance(s.value, ast.Call):
            made = constant_kind(s.value, op.key, self.atom_kind, self.fn.refs)
            if made is not None:
                return [made]
        return [UNKNOWN]

    def rule_result(self, s, op, inputs) -> list:
        if registered(op.key) and facts_of(op.key) is DEFAULT:
            return [self.registered_result(s, op, inputs)]
        # (of inputs that are no arrays, lists or tuples, the kind depends on the
        # primitive and the kinds only, unless its row takes lists: kept for the analysis)
        at = None
        types = set(map(type, inputs))
        if types <= _STR:
            try:
                at = (_RESULT, op.key, *inputs)
                known = self.memo.get(at)
            except TypeError:  # (an unhashable key)
                at = known = None
            if known is not None:
                return [known]
        elif types <= _STR_ARRAY:
            # (of arrays, the shape rule also reads the literal inputs and options; the
            # same kind objects, kept alive by the entry, are found without hashing or
            # comparing their fields)
            try:
                literals = literals_key(op)
                same = (_SAME, op.key, *map(id, inputs), literals)
                known = self.memo.get(same)
                if known is not None:
                    return [known[0]]
                at = (_RESULT, op.key, *inputs, literals)
                known = self.memo.get(at)
            except TypeError:
                at = known = None
            if known is not None:
                self.memo[same] = (known, tuple(inputs))
                return [known]
            if at is not None and not facts_of(op.key).lists:
                out = self._rule_result(op, inputs)
                self.memo[at] = out[0]
                self.memo[same] = (out[0], tuple(inputs))
                return out
        out = self._rule_result(op, inputs)
        if at is not None and not facts_of(op.key).lists:
            self.memo[at] = out[0]
        return out

    def _rule_result(self, op, inputs) -> list:
        if facts_of(op.key).int_result:
            return [INT]
        numpy_kind = result_dtype(rule_result_kind(op, inputs), op, inputs)
        if numpy_kind is not None:
            return [numpy_kind]
        if any(not isinstance(k, str) or k in (UNKNOWN, OTHER, NONE) for k in inputs):
            return [UNKNOWN]
        if all(k == INT for k in inputs) and facts_of(op.key).int_preserving:
            return [INT]
        return [SCALAR]

    def registered_result(self, s, op, inputs):
        """The kind of what a function the user gave rules returns (`REGISTERED`: a
        rule does not say): where it is a Python function s2sad reads, the kind its
        code gives, as for a call of it without rules; otherwise not known (the
        gradient then sums adjoints to their inputs' shapes as it runs)."""
        if self.callee_kind is None or type(op.key) is not types.FunctionType \
                or type(s.value) is not ast.Call:
            return UNKNOWN
        try:
            return self.callee_kind(op.key, s, inputs)
        except Exception:  # noqa: BLE001 (code s2sad cannot read: its rule is why)
            return UNKNOWN

    def unknown_result(self, s, op, inputs) -> list:
        if type(s.value) is ast.Attribute and isinstance(inputs[0], ObjectKind):
            # an attribute of an object of the user's whose kind the call's is known
            # (`ObjectKind.attrs`)
            return [inputs[0].attribute(s.value.attr)]
        if op.key is sorted and type(s.value) is ast.Call and s.value.args:
            seq = self.atom_kind(s.value.args[0])  # (a list, whatever it sorts)
            return [ListKind(seq.elem if isinstance(seq, ListKind) else
                             items_kind(seq) if isinstance(seq, tuple) and seq else UNKNOWN)]
        if getattr(op.key, "__module__", None) == "numpy" and facts_of(op.key).shape \
                is not None and type(s.value) is ast.Call:
            # (a NumPy call no rule takes, ``np.diag([0.0, 3.0])`` of a list: its shape
            # rule still gives its rank, as for a call a rule takes)
            try:
                kind = result_dtype(rule_result_kind(op, inputs), op, inputs)
            except Exception:  # (options of a form the shape rule does not read)
                kind = None
            if kind is not None:
                return [kind]
        return [UNKNOWN]

    def kept_kinds(self, s: ir.Kept) -> list:
        """The kinds of what a `try` or `with` block run as written assigns: where
        every assignment of a name in it is a literal, ``float(...)`` or ``int(...)``
        (or the name's value from before the block), that kind; else unknown."""
        out = []
        for t in s.defines:
            kind = None
            stores = sum(isinstance(n, ast.Name) and n.id == t and isinstance(n.ctx, ast.Store)
                         for n in ast.walk(s.stmt))
            plain = sum(isinstance(x, ast.Name) and x.id == t for n in ast.walk(s.stmt)
                        if isinstance(n, ast.Assign) for x in n.targets)
            if stores != plain:  # (`n += 1`, a loop's target, `as n`: not followed)
                out.append(UNKNOWN)
                continue
            for node in ast.walk(s.stmt):
                if not (isinstance(node, ast.Assign) and any(
                        isinstance(x, ast.Name) and x.id == t for x in node.targets)):
                    continue
                value = node.value
                if isinstance(value, ast.Name) and value.id.startswith(ir.KEPT_ARG):
                    k = self.atom_kind(s.args[int(value.id[len(ir.KEPT_ARG):])])
                elif isinstance(value, ast.Constant) or isinstance(value, ast.UnaryOp) \
                        and isinstance(value.operand, ast.Constant):
                    k = constant_kind_of(value)
                elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                        and self.fn.refs.get(value.func.id) in (float, int):
                    k = SCALAR if self.fn.refs[value.func.id] is float else INT
                else:
                    k = UNKNOWN
                kind = merge(kind, k)
            out.append(UNKNOWN if kind is None else kind)
        return out

    def inactive_result(self, s, op, inputs) -> list:
        """A string that no derivative reaches is a string; otherwise (and a dict or a
        set) of unknown kind, so a derivative that would have to pass through it is
        refused (`checks`), not lost."""
        if makes_text(s.value, self.fn) and not any(self.is_varied(x) for x in op.inputs):
            return [OTHER]
        base = s.targets[0].split("%")[0]
        if isinstance(s.value, ast.Dict) and all(
                isinstance(k, ast.Constant) for k in s.value.keys) and not any(
                isinstance(w, ir.SetItem) and w.container.split("%")[0] == base
                for w in ir.walk(self.fn.body)):
            # a dict of settings never written into: ``cfg["lr"]`` has its value's kind
            self.dict_items[s.targets[0]] = {
                k.value: self.atom_kind(v) for k, v in zip(s.value.keys, s.value.values)}
        return [UNKNOWN]


# the method giving the kind of the result of each kind of operation (`classify.KINDS`;
# an append, `np.add.at` and `add_into` are statements without a result)
RESULT_KINDS = {
    "copy": ResultKinds.copy_result, "const": ResultKinds.copy_result,
    "rule": ResultKinds.rule_result, "call": ResultKinds.call_result,
    "pack": ResultKinds.pack_result, "getitem": ResultKinds.getitem_result,
    "listpack": ResultKinds.listpack_result, "append": ResultKinds.unknown_result,
    "pop": ResultKinds.pop_result, "repeat": ResultKinds.repeat_result,
    "concat": ResultKinds.concat_result, "tuplecat": ResultKinds.tuplecat_result,
    "add_at": ResultKinds.unknown_result, "add_into": ResultKinds.unknown_result,
    "sum": ResultKinds.sum_result, "nondiff": ResultKinds.nondiff_result,
    "inactive": ResultKinds.inactive_result, "unknown": ResultKinds.unknown_result,
}
