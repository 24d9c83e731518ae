"""activity: which variables carry derivatives.

Contract
--------
`analyze(fn, wrt, param_kinds, callee_kind)` takes a function in dup form and returns
an `Activity`:

* `kinds`: the kind of every local (see `ops.kind_of`), propagated forward from the
  parameters' kinds (by default "scalar" for `wrt` parameters, unknown for the others);
* `varied`: the locals that depend on a `wrt` parameter through operations that have
  a derivative;
* `useful`: the locals the return value depends on through such operations;
* `active`: varied, useful and of a kind that can carry a derivative. Integers,
  booleans, conditions, indices and strings are never active.

Only active variables get tangents or adjoints. Because the input is SSA, every set
is a set of names; nothing is attached to the IR. It raises `NoRuleError` when a value
flows from `wrt` to the output through a call that has no derivative rule and no
Python source, naming the call and the user's line, and `NotDifferentiableError` for
an operation the compiler cannot differentiate yet (such as indexing into something
that is not a tuple).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from . import ir, ops
from .errors import NoRuleError, NotDifferentiableError

_INT_RESULT = {int, round, len, bool, math.floor, math.ceil, math.trunc}
_INT_PRESERVING = {"add", "sub", "mul", "floordiv", "mod", "neg", "pos", abs, min, max}


@dataclass
class Activity:
    wrt: tuple
    kinds: dict = field(default_factory=dict)
    varied: set = field(default_factory=set)
    useful: set = field(default_factory=set)
    active: set = field(default_factory=set)
    ops: dict = field(default_factory=dict)  # id(Assign) -> ops.Op
    roots: dict = field(default_factory=dict)  # list/array name -> the name of its object
    created: dict = field(default_factory=dict)  # root -> id of the statement making it
    containers: set = field(default_factory=set)  # roots whose adjoint is updated in place
    shapes: dict = field(default_factory=dict)  # array name -> a token; same token, same shape

    def same_shape(self, a: str, b: str) -> bool:
        """Are `a` and `b` arrays that certainly have the same shape?"""
        return a in self.shapes and self.shapes.get(a) == self.shapes.get(b)

    def root(self, n: str) -> str:
        """The name that stands for the list or array object `n` refers to."""
        while self.roots.get(n, n) != n:
            n = self.roots[n]
        return n

    def is_container(self, n: str) -> bool:
        """Does `n` refer to a list, or to an array read by index, whose adjoint is
        one object updated in place (``xs_bar[i] += ...``)?"""
        return self.root(n) in self.containers

    def op(self, stmt) -> ops.Op:
        return self.ops[id(stmt)]

    def is_active(self, atom) -> bool:
        return isinstance(atom, ast.Name) and atom.id in self.active


def analyze(fn: ir.Function, wrt, param_kinds=None, callee_kind=None) -> Activity:
    a = _Analysis(fn, tuple(wrt), param_kinds or {}, callee_kind)
    return a.run()


class _Analysis:
    def __init__(self, fn, wrt, param_kinds, callee_kind):
        self.fn = fn
        self.locals = ir.local_names(fn)
        self.result = Activity(wrt)
        self.param_kinds = param_kinds
        self.callee_kind = callee_kind

    def is_local(self, n):
        return n in self.locals

    # Lists are mutable objects: variedness and usefulness belong to the object, so
    # for a list-valued name the sets hold the name of its object (`key`). Arrays get
    # objects too (copies are the same array), used for arrays read by index.

    def is_list(self, n) -> bool:
        return isinstance(self.result.kinds.get(n), ops.ListKind)

    def is_object(self, n) -> bool:
        return isinstance(self.result.kinds.get(n), (ops.ListKind, ops.ArrayKind))

    def key(self, n):
        return self.result.root(n) if self.is_list(n) else n

    def alias(self, a, b):
        """`a` and `b` refer to the same list object."""
        r = self.result
        ra, rb = r.root(a), r.root(b)
        if ra == rb:
            return
        if ra in r.created and rb in r.created:
            self.conflicts.add(ra)
            self.conflicts.add(rb)
        # the name that made the list stays its name (xs, not the copy xs_a)
        keep, other = (ra, rb) if ra in r.created or rb not in r.created and "%" not in ra \
            else (rb, ra)
        r.roots[other] = keep
        for group in (r.varied, r.useful):
            if other in group:
                group.add(keep)

    def run(self) -> Activity:
        r = self.result
        self.conflicts = set()
        self.indexed = set()  # roots of arrays some statement reads by index
        for p in self.fn.params:
            default = ops.SCALAR if p.name in r.wrt else ops.UNKNOWN
            r.kinds[p.name] = self.param_kinds.get(p.name, default)
            if isinstance(r.kinds[p.name], ops.ArrayKind):
                r.shapes[p.name] = p.name
            if isinstance(r.kinds[p.name], (ops.ListKind, ops.ArrayKind)):
                r.created[p.name] = 0  # made by the caller
            if p.name in r.wrt and ops.differentiable(r.kinds[p.name]):
                r.varied.add(p.name)
        self.forward(self.fn.body)
        r.containers = {r.root(n) for n in r.kinds if self.is_list(n)} | self.indexed
        self.backward(self.fn.body)
        for group in (r.varied, r.useful):
            group |= {n for n in r.kinds if self.is_list(n) and r.root(n) in group}
        r.active = {n for n in r.varied & r.useful if ops.differentiable(r.kinds.get(n))}
        self.check(self.fn.body)
        return r

    # ----------------------------------------------------------- forward

    def atom_kind(self, atom):
        if isinstance(atom, ast.Name) and atom.id in self.locals:
            return self.result.kinds.get(atom.id, ops.UNKNOWN)
        if isinstance(atom, ast.Constant):
            return ops.kind_of(atom.value)
        text = ir.dotted(atom)
        if text is not None and text in self.fn.refs:
            return ops.kind_of(self.fn.refs[text])
        return ops.UNKNOWN

    def is_varied(self, atom) -> bool:
        return isinstance(atom, ast.Name) and self.key(atom.id) in self.result.varied

    def mark_useful(self, n):
        if n in self.locals:
            self.result.useful.add(self.key(n))

    def forward(self, body):
        r = self.result
        for s in body:
            if isinstance(s, ir.Loop):
                self.forward_loop(s)
                continue
            if isinstance(s, ir.Exit):
                self.forward(s.copies)
                continue
            if isinstance(s, ir.Assign):
                op = ops.classify(s.value, self.fn, self.is_local, self.atom_kind)
                r.ops[id(s)] = op
                kinds = self.out_kinds(s, op)
                for t, k in zip(s.targets, kinds):
                    r.kinds[t] = _merge(r.kinds.get(t), k)
                    if isinstance(r.kinds[t], ops.ArrayKind):
                        r.shapes[t] = self.shape_token(t, op)
                    if self.is_object(t):
                        if op.kind == "copy":
                            self.alias(t, op.inputs[0].id)
                        elif r.root(t) not in r.created:
                            r.created[r.root(t)] = id(s)
                if op.kind == "getitem" and isinstance(op.inputs[0], ast.Name) \
                        and isinstance(r.kinds.get(op.inputs[0].id), ops.ArrayKind):
                    self.indexed.add(r.root(op.inputs[0].id))
                varied = any(d and self.is_varied(x) for d, x in zip(op.diff, op.inputs))
                if varied:
                    for t in s.targets:
                        if ops.differentiable(r.kinds[t]):
                            r.varied.add(self.key(t))
            elif isinstance(s, ir.Dup):
                for t in s.targets:
                    r.kinds[t] = r.kinds.get(s.source, ops.UNKNOWN)
                    if s.source in r.shapes:
                        r.shapes[t] = r.shapes[s.source]
                    if self.is_object(t):
                        self.alias(t, s.source)
                    if self.key(s.source) in r.varied:
                        r.varied.add(self.key(t))
            elif isinstance(s, ir.If):
                self.forward(s.body)
                self.forward(s.orelse)
            elif isinstance(s, ir.Expr):
                op = r.ops[id(s)] = ops.classify(s.value, self.fn, self.is_local, self.atom_kind)
                if op.kind == "append":
                    xs, v = op.inputs
                    kind = r.kinds.get(xs.id)
                    if isinstance(kind, ops.ListKind):
                        r.kinds[xs.id] = ops.ListKind(_merge(kind.elem if kind.elem != ops.UNKNOWN
                                                             else None, self.atom_kind(v)))
                        for n in list(r.kinds):
                            if self.is_list(n) and r.root(n) == r.root(xs.id):
                                r.kinds[n] = r.kinds[xs.id]
                        if self.is_varied(v):
                            r.varied.add(r.root(xs.id))

    def shape_token(self, target, op) -> str:
        """Copies keep their source's shape; an elementwise operation whose array
        inputs all have one shape keeps it; anything else has a shape of its own."""
        r = self.result
        if op.kind == "copy":
            return r.shapes.get(op.inputs[0].id, target)
        if op.kind == "rule" and (isinstance(op.key, str) or _is_ufunc(op.key)):
            tokens = set()
            for x in op.inputs:
                kind = self.atom_kind(x)
                if isinstance(kind, ops.ArrayKind):
                    tokens.add(r.shapes.get(x.id) if isinstance(x, ast.Name) else None)
                elif kind not in (ops.SCALAR, ops.INT):
                    tokens.add(None)
            if len(tokens) == 1 and None not in tokens and op.key != "matmul":
                return tokens.pop()
        return target

    def forward_loop(self, s: ir.Loop):
        """Kinds and variedness of a loop: iterate over the body until nothing changes
        (a value varied in one iteration is varied in the next through the phis)."""
        r = self.result
        if s.target is not None:
            r.kinds[s.target] = ops.INT
        for _ in range(50):
            before = (len(r.varied), dict(r.kinds))
            for phi in s.phis:
                if phi.init is not None:
                    r.kinds[phi.name] = _merge(r.kinds.get(phi.name), self.atom_kind(phi.init))
                    if self.is_object(phi.name) and isinstance(phi.init, ast.Name):
                        self.alias(phi.name, phi.init.id)
                    if isinstance(r.kinds[phi.name], ops.ArrayKind):
                        r.shapes[phi.name] = phi.name  # may change from one iteration to the next
                    if self.is_varied(phi.init) and ops.differentiable(r.kinds[phi.name]):
                        r.varied.add(self.key(phi.name))
            self.forward(s.cond)
            self.forward(s.body)
            if (len(r.varied), r.kinds) == before:
                return

    def out_kinds(self, s: ir.Assign, op: ops.Op) -> list:
        n = len(s.targets)
        if s.unpack:
            value = self.atom_kind(s.value) if op.kind in ("copy", "const") else \
                self.out_kinds(ir.Assign(("_",), s.value), op)[0]
            if isinstance(value, tuple) and len(value) == n:
                return list(value)
            return [ops.UNKNOWN] * n
        inputs = [self.atom_kind(x) for x in op.inputs]
        if op.kind in ("copy", "const"):
            return [self.atom_kind(s.value)]
        if op.kind == "pack":
            return [tuple(inputs)]
        if op.kind == "listpack":
            elem = None
            for k in inputs:
                elem = _merge(elem, k)
            return [ops.ListKind(ops.UNKNOWN if elem is None else elem)]
        if op.kind == "sum":
            kind = inputs[0]
            if isinstance(kind, ops.ListKind):
                return [ops.SCALAR if kind.elem in (ops.SCALAR, ops.INT, ops.UNKNOWN)
                        else kind.elem]
            return [ops.UNKNOWN]
        if op.kind == "getitem":
            container, index = inputs[0], op.inputs[1]
            if isinstance(container, ops.ListKind):
                return [container.elem]
            if isinstance(container, ops.ArrayKind):
                return [ops.index_kind(container, index, self.atom_kind)]
            if isinstance(container, tuple) and isinstance(index, ast.Constant) \
                    and isinstance(index.value, int) and -len(container) <= index.value < len(container):
                return [container[index.value]]
            return [ops.UNKNOWN]
        if op.kind == "call":
            if self.callee_kind is not None:
                return [self.callee_kind(op.key, s, inputs)]
            return [ops.UNKNOWN]
        if op.kind == "nondiff":
            if isinstance(s.value, (ast.Compare, ast.UnaryOp, ast.BinOp)):
                return [ops.logical_kind(inputs)]
            if op.key in _INT_RESULT:
                return [ops.INT]
            if isinstance(s.value, ast.Call):
                made = ops.constant_kind(s.value, op.key, self.atom_kind)
                if made is not None:
                    return [made]
            return [ops.UNKNOWN]
        if op.kind == "rule":
            if _hashable_in(op.key, _INT_RESULT):
                return [ops.INT]
            numpy_kind = ops.rule_result_kind(op, inputs)
            if numpy_kind is not None:
                return [numpy_kind]
            if any(not isinstance(k, str) or k in (ops.UNKNOWN, ops.OTHER) for k in inputs):
                return [ops.UNKNOWN]
            if all(k == ops.INT for k in inputs) and _hashable_in(op.key, _INT_PRESERVING):
                return [ops.INT]
            return [ops.SCALAR]
        return [ops.UNKNOWN]

    # ---------------------------------------------------------- backward

    def backward(self, body):
        r = self.result
        for s in reversed(body):
            if isinstance(s, ir.Loop):
                for _ in range(50):
                    before = len(r.useful)
                    self.backward(s.body)
                    self.backward(s.cond)
                    if len(r.useful) == before:
                        break
                for phi in s.phis:
                    if self.key(phi.name) in r.useful and isinstance(phi.init, ast.Name):
                        self.mark_useful(phi.init.id)
                continue
            if isinstance(s, ir.Exit):
                self.backward(s.copies)
                continue
            if isinstance(s, ir.Return):
                if isinstance(s.value, ast.Name):
                    self.mark_useful(s.value.id)
            elif isinstance(s, ir.Assign):
                if any(self.key(t) in r.useful for t in s.targets):
                    op = r.ops[id(s)]
                    for d, x in zip(op.diff, op.inputs):
                        if d and isinstance(x, ast.Name):
                            self.mark_useful(x.id)
            elif isinstance(s, ir.Expr):
                op = r.ops.get(id(s))
                if op is not None and op.kind == "append":
                    xs, v = op.inputs
                    if self.key(xs.id) in r.useful and isinstance(v, ast.Name):
                        self.mark_useful(v.id)
            elif isinstance(s, ir.Dup):
                if any(self.key(t) in r.useful for t in s.targets):
                    self.mark_useful(s.source)
            elif isinstance(s, ir.If):
                self.backward(s.body)
                self.backward(s.orelse)

    # ------------------------------------------------------------ errors

    def check(self, body):
        r = self.result
        for s in body:
            blocks = ir.blocks(s)
            if blocks:
                for b in blocks:
                    self.check(b)
                continue
            if not isinstance(s, ir.Assign) or not any(t in r.active for t in s.targets):
                continue
            op = r.ops[id(s)]
            if op.kind == "unknown":
                raise self.error(NoRuleError, s, op)
            if op.kind == "getitem" and not isinstance(r.kinds.get(op.inputs[0].id),
                                                       (tuple, ops.ListKind, ops.ArrayKind)):
                raise self.error(NotDifferentiableError, s, op)
            if op.kind == "getitem" and isinstance(r.kinds.get(op.inputs[0].id), tuple) \
                    and not isinstance(op.inputs[1], ast.Constant):
                raise self.error(NotDifferentiableError, s, op,
                                 "s2sad cannot differentiate indexing a tuple with a value "
                                 "computed at run time yet",
                                 "Make it a list: xs = [a, b, c].")
            for t in s.targets:
                if r.is_container(t) and r.root(t) in self.conflicts:
                    raise self.error(NotDifferentiableError, s, op,
                                     "s2sad cannot differentiate a variable that refers to "
                                     "different lists (or indexed arrays) on different paths",
                                     "Give each its own name, or copy into one on every path.")

    def error(self, cls, s, op, message=None, hint=None):
        info = self.fn.source
        filename = info.filename if info else None
        text = info.line_text(s.line) if info and s.line else None
        if message is not None:
            pass
        elif cls is NoRuleError:
            what = op.text or "this operation"
            message = f"s2sad has no derivative rule for {what}, and the result depends on " \
                      f"{', '.join(self.result.wrt)}"
            hint = ("Register one with s2sad.register_rule(func, reverse=..., forward=...) "
                    "(see 'Custom derivative rules' in the README), or mark it "
                    "non-differentiable with s2sad.register_rule(func, nondifferentiable=True).")
        else:
            message = "s2sad cannot differentiate indexing into a value that is not a " \
                      "tuple or a list yet"
            hint = "Index into tuples and lists only, or unpack the tuple into names."
        return cls(message, filename=filename, lineno=s.line or None,
                   col=_col(text), source_line=text, hint=hint)

    # ------------------------------------------------------------ text


def _is_ufunc(obj) -> bool:
    return type(obj).__name__ == "ufunc"


def _col(text):
    if not text:
        return None
    return len(text) - len(text.lstrip())


def _hashable_in(key, collection) -> bool:
    try:
        return key in collection
    except TypeError:
        return False


def _merge(old, new):
    if old is None or old == new:
        return new
    if {old, new} <= {ops.INT, ops.SCALAR}:
        return ops.SCALAR
    if isinstance(old, ops.ArrayKind) or isinstance(new, ops.ArrayKind):
        arrays = [k for k in (old, new) if isinstance(k, ops.ArrayKind)]
        others = [k for k in (old, new) if not isinstance(k, ops.ArrayKind)]
        if all(k in (ops.SCALAR, ops.INT) for k in others):
            ndims = {a.ndim for a in arrays}
            dtypes = {a.dtype for a in arrays}
            return ops.ArrayKind(ndims.pop() if len(ndims) == 1 and not others else None,
                                 dtypes.pop() if len(dtypes) == 1 else "?")
    return ops.UNKNOWN


def annotate(fn: ir.Function, activity: Activity) -> ir.Function:
    """The text form of this stage: `fn` with a comment naming its active variables."""
    out = fn.clone()
    order = [p.name for p in fn.params if p.name in activity.active]
    for s in ir.walk(fn.body):
        for t in ir.defined_names(s):
            if t in activity.active and t not in order:
                order.append(t)
    out.body.insert(0, ir.Comment("active: " + (", ".join(f"\0{n}\0" for n in order) or "none")))
    return out
