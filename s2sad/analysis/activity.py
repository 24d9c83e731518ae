"""activity: which variables carry derivatives.

Contract
--------
`analyze(fn, wrt, param_kinds, callee_kind)` takes a function in dup form and returns
an `Activity`:

* `kinds`: the kind of every local (see `kind_of`), propagated forward from the
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
from dataclasses import dataclass, field

from .. import ir
from ..ir.kinds import (INT, OTHER, SCALAR, UNKNOWN, ArrayKind, ListKind, attribute_kind,
                        differentiable, isinstance_known, kind_of, logical_kind, merged)
from ..primitives.facts import (INT_PRESERVING, INT_RESULT, hashable_in, constant_kind, fancy_index, index_kind, literal, makes_new_object,
                                makes_view, reductions, result_dtype, rule_result_kind,
                                stops_gradient)
from .classify import Op, changed_in_place, classify
from ..errors import NoRuleError, NotDifferentiableError

# the message and hint of Activity.conflict
_CONFLICT = ("s2sad cannot differentiate a variable that refers to different lists (or "
             "indexed arrays) on different paths in reverse mode",
             "Give each its own name, or copy into one on every path (forward mode, "
             "s2sad.jvp, handles it).")


@dataclass
class Activity:
    wrt: tuple
    kinds: dict = field(default_factory=dict)
    varied: set = field(default_factory=set)
    useful: set = field(default_factory=set)
    active: set = field(default_factory=set)
    ops: dict = field(default_factory=dict)  # id(Assign) -> Op
    roots: dict = field(default_factory=dict)  # list/array name -> the name of its object
    created: dict = field(default_factory=dict)  # root -> id of the statement making it
    containers: set = field(default_factory=set)  # roots whose adjoint is updated in place
    # array name -> its shape, one symbol per axis (see `_Analysis.shape_of`)
    shapes: dict = field(default_factory=dict)
    # array name -> the array its values came from elementwise (a parameter, or the
    # result of another operation): it has that array's shape and its dtype
    origins: dict = field(default_factory=dict)
    written: set = field(default_factory=set)  # roots of lists and arrays written into
    # array name -> the names of the arrays it may be a view of (a slice, a reshape, a
    # call's result)
    views: dict = field(default_factory=dict)
    fresh: set = field(default_factory=set)  # roots made by an operation that makes a new object
    # loop-carried array -> the roots of the existing arrays it may still be (its first
    # value, an array an exit hands it: see `_Writes.check_carried`)
    carried: dict = field(default_factory=dict)
    # an error for reverse mode: a name holds different lists or indexed arrays on
    # different paths (forward mode follows values by name and needs no such object)
    conflict: Exception | None = None
    # id(If) -> its branch that never runs: an `isinstance` test of a parameter that
    # its kind decides (nothing in that branch is active)
    dead: dict = field(default_factory=dict)

    def same_shape(self, a: str, b: str) -> bool:
        """Are `a` and `b` arrays that certainly have the same shape?"""
        return a in self.shapes and self.shapes.get(a) == self.shapes.get(b)

    def broadcastable(self, a: str, b: str) -> bool:
        """Do the arrays `a` and `b` certainly broadcast together (so an elementwise
        operation on them cannot raise)?"""
        return a in self.shapes and b in self.shapes and \
            broadcast([self.shapes[a], self.shapes[b]], strict=True) is not None

    def same_shape_names(self, x: str) -> list:
        """The arrays certainly of `x`'s shape, `x` first, then in order of definition."""
        shape = self.shapes.get(x)
        if shape is None:
            return []
        return [x] + [n for n, s in self.shapes.items() if s == shape and n != x]

    def viewed_roots(self, n: str) -> list:
        """The objects `n` may be a view of, through views of views."""
        out, todo = [], [*self.views.get(n, ()), *self.views.get(self.root(n), ())]
        while todo:
            base = todo.pop()
            root = self.root(base)
            if root not in out:
                out.append(root)
                todo += [*self.views.get(base, ()), *self.views.get(root, ())]
        return out

    def root(self, n: str) -> str:
        """The name that stands for the list or array object `n` refers to."""
        while self.roots.get(n, n) != n:
            n = self.roots[n]
        return n

    def is_container(self, n: str) -> bool:
        """Does `n` refer to a list, or to an array read by index, whose adjoint is
        one object updated in place (``xs_bar[i] += ...``)?"""
        return self.root(n) in self.containers

    def op(self, stmt) -> Op:
        return self.ops[id(stmt)]

    def atom_kind(self, atom, refs):
        """The kind of an atom: a local's, a literal's, or that of the static value a
        reference resolves to (`refs`, the function's resolved names)."""
        if isinstance(atom, ast.Name) and atom.id in self.kinds:
            return self.kinds[atom.id]
        if isinstance(atom, ast.Constant):
            return kind_of(atom.value)
        text = ir.dotted(atom)
        if text is not None and text in refs:  # (a global list may change: no items)
            return kind_of(refs[text], items=False)
        return UNKNOWN

    def is_active(self, atom) -> bool:
        return isinstance(atom, ast.Name) and atom.id in self.active


def carried_sources(statements) -> dict:
    """For each loop-carried name, the values it takes among `statements`: its
    first value (the `Phi`'s init) and what each `Exit` hands it."""
    sources = {}
    for s in statements:
        if isinstance(s, ir.Loop):
            for p in s.phis:
                sources.setdefault(p.name, []).append(p.init)
        if isinstance(s, ir.Exit):
            for c in s.copies:
                sources.setdefault(c.targets[0], []).append(c.value)
    return sources


def analyze(fn: ir.Function, wrt, param_kinds=None, callee_kind=None,
            callee=False) -> Activity:
    """`callee`: `fn` is called by another function s2sad differentiates, which sees
    any change `fn` makes to the lists and arrays it is passed."""
    return _Analysis(fn, tuple(wrt), param_kinds or {}, callee_kind, callee).run()


class _Analysis:
    def __init__(self, fn, wrt, param_kinds, callee_kind, callee=False):
        self.fn = fn
        self.callee = callee
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
        return isinstance(self.result.kinds.get(n), ListKind)

    def is_object(self, n) -> bool:
        return isinstance(self.result.kinds.get(n), (ListKind, ArrayKind))

    def key(self, n):
        r = self.result
        return r.root(n) if self.is_list(n) or r.root(n) in r.written else n

    def alias(self, a, b):
        """`a` and `b` refer to the same list object."""
        r = self.result
        ra, rb = r.root(a), r.root(b)
        if ra == rb:
            return
        if a in self.phis and not (self.is_list(a) or self.is_list(b)):
            # a loop-carried array holds a different array in each iteration: it is
            # an object of its own, and its adjoint moves along the loop's copies
            return
        join = None
        if ra in r.created and rb in r.created:
            join = self.fresh_join(a)
            if join is None:
                self.conflicts.add(ra)
                self.conflicts.add(rb)
        # the name that made the list stays its name (xs, not the copy xs_a)
        keep, other = (ra, rb) if ra in r.created or rb not in r.created and "%" not in ra \
            else (rb, ra)
        r.roots[other] = keep
        if join is not None:  # (one object, made at the join: see `fresh_join`)
            r.created[keep] = id(join)
            r.created.pop(other, None)
        if not (self.is_list(a) or self.is_list(b) or keep in r.written
                or other in r.written):
            # (an array nothing writes into is varied and useful by name, see `key`:
            # ``s1 = s`` in one branch of a join whose other branch gives `s1` a
            # varied value does not make the argument `s` vary)
            return
        for group in (r.varied, r.useful):
            if other in group:
                group.add(keep)

    def run(self) -> Activity:
        r = self.result
        self.conflicts = set()
        self.conflict_at = {}  # root -> a statement that gives its name another object
        self.join_makes = {}  # id(statement) -> the If it makes a joined object for
        self.value_joins = {}  # joined array name -> its If, or None (see `value_join`)
        self.widened = set()  # roots of lists something was appended to
        self.indexed = set()  # roots of arrays some statement reads by index
        self.any_rank = set()  # elements of lists of arrays of several ranks (see error)
        for p in self.fn.params:
            default = SCALAR if p.name in r.wrt else UNKNOWN
            kind = r.kinds[p.name] = self.param_kinds.get(p.name, default)
            if isinstance(kind, ArrayKind):
                r.origins[p.name] = p.name
                r.kinds[p.name] = ArrayKind(kind.ndim, kind.dtype)
                if kind.dims is not None:
                    r.shapes[p.name] = kind.dims
                elif kind.ndim is not None:
                    r.shapes[p.name] = _fresh(p.name, kind.ndim)
            if isinstance(r.kinds[p.name], (ListKind, ArrayKind)):
                r.created[p.name] = 0  # made by the caller
            if p.name in r.wrt and differentiable(r.kinds[p.name]):
                r.varied.add(p.name)
        self.fresh = r.fresh  # roots made by an operation that returns a new object
        # `isinstance` tests whose answer the kinds of the parameters decide (the
        # compiled code is specialised on their types): name -> True/False; the branch
        # such a test rules out gives no kind to the names it joins and varies nothing
        self.static = {}
        self.classes = {}  # name -> the tuple of classes it holds
        self.typed = {p.name for p in self.fn.params}  # parameters and their copies
        self.keep = set()
        self.dead = r.dead  # id(If) -> its branch that never runs
        self.phis = {p.name for s in ir.walk(self.fn.body) if isinstance(s, ir.Loop)
                     for p in s.phis}
        defined = {}
        for s in ir.walk(self.fn.body):
            for t in ir.defined_names(s):
                defined[t] = defined.get(t, 0) + 1
        # a name given its value in two places (a branch join, a loop's exit copies)
        # may have either shape: it gets a shape of its own
        self.joined = {t for t, k in defined.items() if k > 1} | self.phis
        self.defined = defined
        self.forward(self.fn.body)
        if r.written:
            reverted = self.written_joins()
            for t in reverted:
                # (its object matters: it keeps the objects it is given, see `alias`;
                # one pass more gives every write the objects as they end up)
                self.value_joins[t] = None
                r.created.pop(t, None)
                r.views.pop(t, None)
                r.written.discard(t)
            for _ in range(2 if reverted else 1):
                # a write makes the array one object whose every name is varied alike:
                # run again with that known from the start
                r.varied = {p.name for p in self.fn.params if p.name in r.varied}
                # (kinds again from the parameters' too: merged with the first pass's, an
                # empty list's `[]` would lose the element kind its appends gave it)
                r.kinds = {p.name: r.kinds[p.name] for p in self.fn.params}
                self.widened = set()
                self.forward(self.fn.body)
        r.containers = {r.root(n) for n in r.kinds if self.is_list(n)} | self.indexed | r.written
        self.backward(self.fn.body)
        for group in (r.varied, r.useful):
            group |= {n for n in r.kinds if (self.is_list(n) or r.root(n) in r.written)
                      and r.root(n) in group}
        r.active = {n for n in r.varied & r.useful if differentiable(r.kinds.get(n))}
        if r.written or any(isinstance(s, ir.Assign) and (s.inplace or s.item)
                            or isinstance(s, ir.Expr) and r.ops.get(id(s)) is not None
                            and r.ops[id(s)].kind == "append" for s in ir.walk(self.fn.body)):
            self.check_writes()
        self.check(self.fn.body)
        self.check_conflicts()
        return r

    # ----------------------------------------------------------- forward

    def atom_kind(self, atom):
        if isinstance(atom, ast.Name) and atom.id in self.locals:
            return self.result.kinds.get(atom.id, UNKNOWN)
        return self.result.atom_kind(atom, self.fn.refs)

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
                op = classify(s.value, self.fn, self.is_local, self.atom_kind)
                r.ops[id(s)] = op
                self.check_mutation(s, op)
                kinds = self.out_kinds(s, op)
                self.note_static(s, op)
                for t, k in zip(s.targets, kinds):
                    if not (t in self.keep and t in r.kinds):
                        r.kinds[t] = _merge(r.kinds.get(t), k)
                    if isinstance(r.kinds[t], ArrayKind):
                        r.origins[t] = self.origin(t, op)
                        shape = self.shape_of(t, s, op)
                        if shape is None:
                            r.shapes.pop(t, None)
                        else:
                            r.shapes[t] = shape
                    if self.is_object(t):
                        join = self.value_join(t) if not s.unpack else None
                        if join is not None:
                            self.join_value(t, op, s.value, join)
                        elif op.kind == "copy" and not s.unpack:
                            self.alias(t, op.inputs[0].id)
                        elif r.root(t) not in r.created:
                            r.created[r.root(t)] = id(s)
                            if makes_new_object(op, s.value, self.atom_kind):
                                self.fresh.add(r.root(t))
                            elif makes_view(op, r.kinds[t], self.atom_kind) \
                                    and isinstance(op.inputs[0], ast.Name):
                                # (a user's rule: of any list or array it is given)
                                r.views[t] = (op.inputs[0].id,) + tuple(
                                    x.id for x in op.inputs[1:] if op.kind == "rule"
                                    and self.is_object_atom(x))
                            elif op.kind == "call":
                                self.call_views(t, s, op)
                        elif r.created[r.root(t)] != id(s):
                            join = self.join_makes.get(id(s)) or self.fresh_join(t)
                            if join is not None:
                                # a new object on every path into `join` (and no
                                # other): one object made at the join, whose
                                # adjoint starts there
                                r.created[r.root(t)] = id(join)
                            else:
                                # `t` names an object made here on one path and another
                                # object (made elsewhere, or aliased) on another path
                                self.conflicts.add(r.root(t))
                                self.conflict_at.setdefault(r.root(t), s)
                if op.kind == "pop":
                    r.written.add(r.root(op.inputs[0].id))
                    self.widen_list(op.inputs[0].id, None)  # (its length changes)
                if op.kind == "getitem" and isinstance(op.inputs[0], ast.Name) \
                        and isinstance(r.kinds.get(op.inputs[0].id), ArrayKind):
                    self.indexed.add(r.root(op.inputs[0].id))
                if op.kind == "getitem" and isinstance(op.inputs[0], ast.Name) \
                        and isinstance(r.kinds.get(op.inputs[0].id), ListKind) \
                        and isinstance(r.kinds[s.targets[0]], ArrayKind) \
                        and r.kinds[s.targets[0]].ndim is None:
                    self.any_rank.add(s.targets[0])
                varied = any(d and self.is_varied(x) for d, x in zip(op.diff, op.inputs))
                if varied:
                    for t in s.targets:
                        if differentiable(r.kinds[t]):
                            r.varied.add(self.key(t))
            elif isinstance(s, ir.Dup):
                for t in s.targets:
                    r.kinds[t] = r.kinds.get(s.source, UNKNOWN)
                    if s.source in self.any_rank:
                        self.any_rank.add(t)
                    if s.source in self.typed:
                        self.typed.add(t)
                    if s.source in self.static:
                        self.static[t] = self.static[s.source]
                    for table in (r.shapes, r.origins):
                        if s.source in table:
                            table[t] = table[s.source]
                    if self.is_object(t):
                        self.alias(t, s.source)
                    if self.key(s.source) in r.varied:
                        r.varied.add(self.key(t))
            elif isinstance(s, ir.If):
                known = self.static.get(s.test.id) if isinstance(s.test, ast.Name) else None
                if known is None:
                    self.forward(s.body)
                    self.forward(s.orelse)
                else:
                    self.forward_decided(s, known)
            elif isinstance(s, ir.SetItem):
                c = s.container
                r.written.add(r.root(c))
                kind = r.kinds.get(c)
                if isinstance(kind, ListKind):
                    # (a list keeps what is written: a float into a list of ints)
                    self.widen_list(c, self.atom_kind(s.value))
                    kind = r.kinds.get(c)
                if self.is_varied(s.value) and differentiable(kind):
                    r.varied.add(self.key(c))
            elif isinstance(s, ir.Expr):
                op = r.ops[id(s)] = classify(s.value, self.fn, self.is_local, self.atom_kind)
                self.check_mutation(s, op)
                if op.kind == "call" and self.callee_kind is not None and any(
                        self.is_object_atom(x) for x in op.inputs):
                    # a call for its effect: the callee's own checks refuse changes to
                    # the lists and arrays it is given
                    self.callee_kind(op.key, s, [self.atom_kind(x) for x in op.inputs])
                if op.kind == "append":
                    xs, v = op.inputs
                    if self.callee and r.created.get(r.root(xs.id)) == 0:
                        raise self.error(
                            NotDifferentiableError, s, op,
                            f"this appends to the argument `{xs.id.split('%')[0]}`, which "
                            "changes the caller's list; s2sad cannot follow a change to a "
                            "list across a call",
                            "Return the new list (`return xs + [v]`), or append in the "
                            "caller.")
                    if isinstance(r.kinds.get(xs.id), ListKind):
                        self.widen_list(xs.id, self.atom_kind(v))
                        if self.is_varied(v):
                            r.varied.add(r.root(xs.id))
                elif op.kind in ("add_at", "add_into"):
                    # adds into its first argument in place: a write
                    target, v = op.inputs[0], op.inputs[-1]
                    r.written.add(r.root(target.id))
                    if self.is_varied(v):
                        r.varied.add(self.key(target.id))

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

    def call_views(self, t, s, op):
        """A call's result may be one of the lists or arrays it was given, or a view
        of one (``def half(a): return a[:2]``): it counts as a view of those."""
        shared = getattr(self.callee_kind, "shared", None)
        positions = shared(op.key, s, [self.atom_kind(x) for x in op.inputs]) \
            if shared is not None else range(len(op.inputs))
        bases = tuple(op.inputs[i].id for i in positions
                      if i < len(op.inputs) and self.is_object_atom(op.inputs[i]))
        if bases:
            self.result.views[t] = bases

    def is_object_atom(self, atom) -> bool:
        return isinstance(atom, ast.Name) and isinstance(
            self.atom_kind(atom), (ListKind, ArrayKind))

    def check_mutation(self, s, op):
        """Refuse a call that changes a list or an array in place (``out=``,
        ``y.fill(0.0)``, ``np.copyto(y, x)``, ``xs.sort()``): the derivative would
        take the object's values from before the change."""
        changed = changed_in_place(s.value, op, self.fn, self.is_local, self.atom_kind)
        if changed is None:
            return
        what, atom, instead = changed
        name = ir.dotted(atom) or "an array"
        raise self.error(NotDifferentiableError, s, op,
                         f"{what} changes `{name.split('%')[0]}` in place; s2sad cannot "
                         "follow a change to a list or an array made by a call",
                         instead)

    def widen_list(self, xs: str, elem):
        """The list `xs` (and every name of its object) also holds values of kind `elem`
        (None: nothing new, its length changes). A list changed in place forgets its
        `items`: its kind then says what its elements may be, not which is which."""
        r = self.result
        kind = r.kinds[xs]
        if not isinstance(kind, ListKind):
            return
        if elem is None:
            r.kinds[xs] = ListKind(kind.elem)
        else:
            # an element kind of UNKNOWN means "no element seen yet" only before the
            # first append: after that it is what mixing kinds gave, and it must stay
            # (else the kind would depend on which append came last)
            old = kind.elem
            if old == UNKNOWN and r.root(xs) not in self.widened:
                old = None
            self.widened.add(r.root(xs))
            r.kinds[xs] = ListKind(_merge(old, elem))
        for n in list(r.kinds):
            if self.is_list(n) and r.root(n) == r.root(xs):
                r.kinds[n] = r.kinds[xs]

    def origin(self, target, op) -> str:
        """Copies keep their source's origin; an elementwise operation whose array
        inputs all have one origin (or are a keepdims reduction of it) keeps it;
        anything else is an origin of its own."""
        r = self.result
        if op.kind == "copy" or stops_gradient(op) and isinstance(op.inputs[0], ast.Name):
            return r.origins.get(op.inputs[0].id, target)
        if op.kind == "rule" and (isinstance(op.key, str) or _is_ufunc(op.key)):
            tokens = set()
            for x in op.inputs:
                kind = self.atom_kind(x)
                if isinstance(kind, ArrayKind):
                    tokens.add(r.origins.get(x.id) if isinstance(x, ast.Name) else None)
                elif kind not in (SCALAR, INT):
                    tokens.add(None)
            # a reduction of `x` with keepdims broadcasts back to `x`'s shape
            full = {t for t in tokens if not (isinstance(t, tuple) and t[0] == "keepdims")}
            if len(full) == 1 and None not in full and op.key != "matmul" \
                    and all(t in full or t == ("keepdims", next(iter(full))) for t in tokens):
                return next(iter(full))
            if len(tokens) == 1 and None not in tokens and op.key != "matmul":
                return tokens.pop()
        if op.kind == "rule" and op.key in reductions() and \
                isinstance(op.options.get("keepdims"), ast.Constant) and \
                op.options["keepdims"].value is True and isinstance(op.inputs[0], ast.Name) \
                and op.inputs[0].id in r.origins:
            return ("keepdims", r.origins[op.inputs[0].id])
        return target

    def shape_of(self, target, s, op):
        """`target`'s shape as a tuple of symbols, one per axis (None: its rank is
        unknown). Two axes with the same symbol have the same length; the symbol 1 is
        an axis of length 1. Parameters have the `dims` of their kinds (the labels of
        the call's shape pattern) or symbols of their own; an operation's result gets
        its shape from its inputs' where NumPy's rules say what it is (broadcasting,
        reductions with a literal axis, matrix products, transposes), and otherwise
        new symbols, which say nothing about the lengths."""
        r = self.result
        rank = r.kinds[target].ndim
        if rank is None:
            return None
        if target in self.joined:
            return _fresh(target, rank)
        item = self.listed_item(target, s, op)
        if item is not None and item.dims is not None and len(item.dims) == rank:
            return item.dims  # (an array element of a list argument: its labels)
        shape = self.inferred_shape(s, op)
        if shape is None or len(shape) != rank:
            return _fresh(target, rank)
        return shape

    def listed_item(self, target, s, op):
        """The kind `ListKind.items` gives `target` where `s` takes it out of such a
        list by a constant index or an unpacking (None elsewhere)."""
        if not op.inputs or not isinstance(op.inputs[0], ast.Name):
            return None
        kind = self.result.kinds.get(op.inputs[0].id)
        if not isinstance(kind, ListKind) or kind.items is None:
            return None
        if s.unpack and op.kind == "copy" and len(s.targets) == len(kind.items) \
                and s.targets.count(target) == 1:
            return kind.items[s.targets.index(target)]
        if op.kind == "getitem" and not s.unpack and isinstance(op.inputs[1], ast.Constant) \
                and type(op.inputs[1].value) is int \
                and -len(kind.items) <= op.inputs[1].value < len(kind.items):
            return kind.items[op.inputs[1].value]
        return None

    def atom_shape(self, atom):
        if isinstance(atom, ast.Name) and atom.id in self.result.shapes:
            return self.result.shapes[atom.id]
        return () if self.atom_kind(atom) in (SCALAR, INT) else None

    def inferred_shape(self, s, op):
        import numpy as np

        shapes = [self.atom_shape(x) for x in op.inputs]
        if op.kind == "copy" or stops_gradient(op):
            return shapes[0]
        key = op.key
        if op.kind == "nondiff" and isinstance(s.value, ast.Call) and hashable_in(
                key, {np.zeros_like, np.ones_like, np.empty_like, np.full_like}) and shapes \
                and "shape" not in op.options and not s.value.keywords:
            return shapes[0]
        if op.kind != "rule" or None in shapes:
            return None
        if key in ("matmul", np.matmul, np.dot):
            a, b = shapes[:2]
            if not a or not b:  # (np.dot with a number multiplies)
                return broadcast([a, b]) if key is np.dot else None
            if len(a) > 2 or len(b) > 2:
                return None
            return a[:-1] + (b[-1:] if len(b) == 2 else ())
        if hashable_in(key, reductions()):
            if key is np.linalg.norm and op.options.get("ord") is not None:
                return None  # (the 2-norm of a matrix is a number)
            return _reduced(shapes[0], literal(op.options.get("axis"), None),
                            literal(op.options.get("keepdims"), False))
        if key is np.transpose and op.options.get("axes") is None:
            return shapes[0][::-1]
        if key is np.outer and all(len(x) == 1 for x in shapes):
            return shapes[0] + shapes[1]
        if isinstance(key, str) or _is_ufunc(key) or key in (np.where, np.clip):
            return broadcast(shapes)
        return None

    def forward_loop(self, s: ir.Loop):
        """Kinds and variedness of a loop: iterate over the body until nothing changes
        (a value varied in one iteration is varied in the next through the phis)."""
        r = self.result
        if s.target is not None:
            r.kinds[s.target] = INT
        for _ in range(50):
            before = (len(r.varied), dict(r.kinds))
            for phi in s.phis:
                if phi.init is not None and not phi.unborn:  # (not the lowering's None)
                    r.kinds[phi.name] = _merge(r.kinds.get(phi.name), self.atom_kind(phi.init))
                    if self.is_object(phi.name) and isinstance(phi.init, ast.Name):
                        self.alias(phi.name, phi.init.id)
                    if isinstance(r.kinds[phi.name], ArrayKind):
                        r.created.setdefault(phi.name, id(s))
                    if isinstance(r.kinds[phi.name], ArrayKind):
                        # it may change from one iteration to the next
                        r.origins[phi.name] = phi.name
                        if r.kinds[phi.name].ndim is not None:
                            r.shapes[phi.name] = _fresh(phi.name, r.kinds[phi.name].ndim)
                    if self.is_varied(phi.init) and differentiable(r.kinds[phi.name]):
                        r.varied.add(self.key(phi.name))
            self.forward(s.cond)
            self.forward(s.body)
            if (len(r.varied), r.kinds) == before:
                return

    def out_kinds(self, s: ir.Assign, op: Op) -> list:
        n = len(s.targets)
        if s.unpack:
            value = self.atom_kind(s.value) if op.kind in ("copy", "const") else \
                self.out_kinds(ir.Assign(("_",), s.value), op)[0]
            if isinstance(value, tuple) and len(value) == n:
                return list(value)
            if isinstance(value, ListKind):  # (a list of another length raises)
                return list(value.items) if value.items is not None \
                    and len(value.items) == n else [value.elem] * n
            return [UNKNOWN] * n
        inputs = [self.atom_kind(x) for x in op.inputs]
        if op.kind in ("copy", "const"):
            return [self.atom_kind(s.value)]
        if op.kind == "pack":
            return [tuple(inputs)]
        if op.kind == "pop":
            kind = inputs[0]
            return [kind.elem if isinstance(kind, ListKind) else UNKNOWN]
        if op.kind == "repeat":
            kind = inputs[0]
            if isinstance(kind, ListKind):
                return [ListKind(kind.elem)]
            if isinstance(op.inputs[0], ast.List):
                elem = None
                for e in op.inputs[0].elts:
                    elem = _merge(elem, self.atom_kind(e))
                return [ListKind(UNKNOWN if elem is None else elem)]
            return [UNKNOWN]
        if op.kind == "listpack":
            elem = None
            for k in inputs:
                elem = _merge(elem, k)
            return [ListKind(UNKNOWN if elem is None else elem)]
        if op.kind == "sum":
            kind = inputs[0]
            if isinstance(kind, ListKind):
                return [SCALAR if kind.elem in (SCALAR, INT, UNKNOWN)
                        else kind.elem]
            return [UNKNOWN]
        if op.kind == "getitem":
            container, index = inputs[0], op.inputs[1]
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
                    and isinstance(index.value, int) and -len(container) <= index.value < len(container):
                return [container[index.value]]
            if isinstance(container, tuple) and container and not isinstance(index, ast.Constant) \
                    and self.atom_kind(index) == INT:
                # an index known at run time (a loop over the tuple): any of its items
                return [_items_kind(container)]
            return [UNKNOWN]
        if op.kind == "call":
            if self.callee_kind is not None:
                return [self.callee_kind(op.key, s, inputs)]
            return [UNKNOWN]
        if op.kind == "nondiff":
            if stops_gradient(op):  # its input itself
                kind = inputs[0]
                return [kind if isinstance(kind, ArrayKind) or kind in (SCALAR, INT)
                        else UNKNOWN]
            if isinstance(s.value, (ast.Compare, ast.UnaryOp, ast.BinOp)):
                return [logical_kind(inputs)]
            if op.key in INT_RESULT:
                return [INT]
            if isinstance(s.value, ast.Attribute):  # x.shape, x.ndim, x.size
                return [attribute_kind(s.value.attr, inputs[0])]
            if isinstance(s.value, ast.Call):
                made = constant_kind(s.value, op.key, self.atom_kind, self.fn.refs)
                if made is not None:
                    return [made]
            return [UNKNOWN]
        if op.kind == "rule":
            if hashable_in(op.key, INT_RESULT):
                return [INT]
            numpy_kind = result_dtype(rule_result_kind(op, inputs), op, inputs)
            if numpy_kind is not None:
                return [numpy_kind]
            if any(not isinstance(k, str) or k in (UNKNOWN, OTHER) for k in inputs):
                return [UNKNOWN]
            if all(k == INT for k in inputs) and hashable_in(op.key, INT_PRESERVING):
                return [INT]
            return [SCALAR]
        return [UNKNOWN]

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
            elif isinstance(s, ir.SetItem):
                # (a value written into an integer array is truncated: no derivative
                # passes through the write)
                if self.key(s.container) in r.useful and isinstance(s.value, ast.Name) \
                        and differentiable(r.kinds.get(s.container)):
                    self.mark_useful(s.value.id)
            elif isinstance(s, ir.Expr):
                op = r.ops.get(id(s))
                if op is not None and op.kind in ("append", "add_at", "add_into"):
                    xs, v = op.inputs[0], op.inputs[-1]
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
                    if b is not self.dead.get(id(s)):  # (a branch that never runs)
                        self.check(b)
                continue
            if isinstance(s, ir.Assign) and r.ops[id(s)].kind == "nondiff" and \
                    _moves_with_arguments(r.ops[id(s)].key) and \
                    any(self.is_varied(x) for x in r.ops[id(s)].inputs) and \
                    any(self.key(t) in r.useful for t in s.targets):
                raise self.error(NoRuleError, s, r.ops[id(s)])
            if not isinstance(s, ir.Assign) or not any(t in r.active for t in s.targets):
                continue
            op = r.ops[id(s)]
            if op.kind == "unknown":
                raise self.error(NoRuleError, s, op)
            if op.kind == "getitem" and not isinstance(r.kinds.get(op.inputs[0].id),
                                                       (tuple, ListKind, ArrayKind)):
                raise self.error(NotDifferentiableError, s, op)
            if op.kind == "getitem" and isinstance(r.kinds.get(op.inputs[0].id), tuple) \
                    and not isinstance(op.inputs[1], ast.Constant) and (
                        self.atom_kind(op.inputs[1]) != INT
                        or not _one_kind(r.kinds[op.inputs[0].id])):
                if self.atom_kind(op.inputs[1]) != INT:
                    raise self.error(NotDifferentiableError, s, op,
                                     "s2sad can index a tuple with an int, not a slice or "
                                     "another value, where the result carries a derivative",
                                     "Unpack the tuple into names, or make it a list.")
                words = sorted({_kind_word(k) for k in r.kinds[op.inputs[0].id]})
                raise self.error(NotDifferentiableError, s, op,
                                 f"the items of this tuple are of different kinds "
                                 f"({', '.join(words)}), and which one this reads is known "
                                 "only at run time: s2sad compiles the code that uses it "
                                 "once, for one kind",
                                 "Keep items of one kind in the tuple you loop over or "
                                 "index (numbers, or NumPy arrays), or unpack it into "
                                 "names and write the code once per item.")
            for t in s.targets:
                if r.is_container(t) and r.root(t) in self.conflicts \
                        and r.conflict is None:
                    # one adjoint object per list (or indexed array) cannot follow a
                    # name that holds different ones: reverse mode raises this
                    at = self.conflict_at.get(r.root(t), s)
                    r.conflict = self.error(
                        NotDifferentiableError, at, r.ops[id(at)],
                        *_CONFLICT)

    def definitions(self, t) -> list:
        """``(statement, chain)`` for every statement assigning `t`, in program order;
        `chain` is the ``(statement, branch)`` of each `If` (branch 0 or 1), `Loop`
        and `Exit` (branch None) around it, outermost first."""
        if not hasattr(self, "_definitions"):
            found = {}

            def visit(body, chain):
                for st in body:
                    if isinstance(st, ir.If):
                        visit(st.body, chain + ((st, 0),))
                        visit(st.orelse, chain + ((st, 1),))
                    elif isinstance(st, ir.Loop):
                        visit(st.cond + st.body, chain + ((st, None),))
                    elif isinstance(st, ir.Exit):
                        visit(st.copies, chain + ((st, None),))
                    else:
                        for n in ir.defined_names(st):
                            found.setdefault(n, []).append((st, chain))

            visit(self.fn.body, ())
            self._definitions = found
        return self._definitions.get(t, [])

    def fresh_join(self, t):
        """The `If` at whose end every path assigns `t` a new object (an operation's
        result, `makes_new_object`), when those are all of `t`'s assignments: no
        other object ever goes by that name, so it is one object made at the join.
        None otherwise (a copy or a view on some path, an assignment elsewhere)."""
        sites = self.definitions(t)
        if len(sites) < 2 or t in self.phis:
            return None
        makes = []
        for st, chain in sites:
            if not isinstance(st, ir.Assign) or st.unpack or len(st.targets) != 1:
                return None
            op = self.op_of(st)
            if op.kind == "copy":
                made = self.branch_own(st, chain)
                if made is None:
                    return None
                makes.append(made)
            elif not makes_new_object(op, st.value, self.atom_kind):
                return None
            else:
                makes.append(st)
        join = self.common_if(t, sites)
        if join is None:
            return None
        for st in makes:  # (a second pass over the function meets them again)
            self.join_makes[id(st)] = join
        return join

    def value_join(self, t):
        """The `If` at whose end `t`, an array, gets its value on every path, where some
        path hands over an array that exists already (``v = x``, an argument or another
        variable, or a view of one, ``v = x[::-1]``), so `t` is not one new object
        (`fresh_join`). While nothing writes into `t` or into what it may be (the
        write checks refuse that: `t` counts as a view of each), its value is all that
        matters: `t` is an object of its own made at the join, and the reverse of
        ``v = x`` hands `v`'s adjoint over to `x` like any copy. None otherwise (the
        name keeps the objects it is given, see `alias`)."""
        if t in self.value_joins:
            return self.value_joins[t]
        r = self.result
        if t not in self.joined or t in self.phis or self.own_code() \
                or not isinstance(r.kinds.get(t), ArrayKind):
            # (s2sad's own gradient code, which forward mode differentiates for second
            # derivatives, writes into its adjoints: its names keep their objects)
            return None
        join = None
        if self.fresh_join(t) is None:
            join = self.join_of(t)
        if join is not None:
            sites = self.definitions(t)
            existing = False
            for st, chain in sites:
                op = self.op_of(st)
                if op.kind == "copy":
                    src = op.inputs[0].id
                    if self.is_list(src):
                        join = None
                        break
                    existing = existing or self.branch_own(st, chain) is None
                elif not makes_new_object(op, st.value, self.atom_kind):
                    existing = True
            if not existing:
                join = None
        self.value_joins[t] = join
        return join

    def written_joins(self) -> list:
        """The names `value_join` made objects of their own whose object identity a
        write can show: something writes into the name or into a view of it, or into
        an array it may be after the join (or in a loop around it). Those keep the
        objects they are given, as forward mode needs (reverse mode refuses them)."""
        r = self.result
        joins = {t: j for t, j in self.value_joins.items() if j is not None}
        if not joins:
            return []
        order = []  # (statement, enclosing loops), in program order
        ends = {}  # id(If) -> the position after its last statement

        def visit(body, loops):
            for st in body:
                order.append((st, loops))
                if isinstance(st, ir.Loop):
                    visit(st.cond + st.body, loops + (st,))
                elif isinstance(st, ir.If):
                    visit(st.body, loops)
                    visit(st.orelse, loops)
                    ends[id(st)] = len(order)
                elif isinstance(st, ir.Exit):
                    visit(st.copies, loops)

        visit(self.fn.body, ())
        writes = []  # (position, loops, root written)
        for k, (st, loops) in enumerate(order):
            if isinstance(st, ir.SetItem):
                writes.append((k, loops, r.root(st.container)))
            elif isinstance(st, (ir.Expr, ir.Assign)) and id(st) in r.ops:
                op = r.ops[id(st)]
                if op.kind in ("add_at", "add_into", "pop") and op.inputs \
                        and isinstance(op.inputs[0], ast.Name):
                    writes.append((k, loops, r.root(op.inputs[0].id)))
        out = []
        for t, join in joins.items():
            at = next((loops for st, loops in order if st is join), None)
            first = next((k for k, (st, _) in enumerate(order)
                          if t in ir.defined_names(st)), ends[id(join)])
            own = {t} | {n for n in r.views if t in r.viewed_roots(n)}
            own = {r.root(n) for n in own}
            bases = set(r.viewed_roots(t)) - {t}
            for k, loops, root in writes:
                # (a write into what `t` may be after `t` is first given a value, or
                # in a loop around the join, may show in `t`)
                if root in own or root in bases and (
                        at is None or k > first or any(loop in at for loop in loops)):
                    out.append(t)
                    break
        return out

    def join_value(self, t, op, value, join):
        """`t` (see `value_join`) gets its value here: its object is made at `join`,
        and may be (a view of) the objects this statement reads."""
        r = self.result
        r.roots.pop(t, None)
        r.created[t] = id(join)
        if op.kind != "copy" and makes_new_object(op, value, self.atom_kind):
            return
        bases = tuple(x.id for x in op.inputs
                      if isinstance(x, ast.Name) and self.is_object_atom(x))
        if bases:
            r.views[t] = tuple(dict.fromkeys(r.views.get(t, ()) + bases))

    def join_of(self, t):
        """The `If` whose branches both assign `t`, where every assignment of `t` is
        one array or list given to it alone, inside that `If` and not in a loop below
        it; None otherwise."""
        sites = self.definitions(t)
        if len(sites) < 2 or t in self.phis:
            return None
        for st, _ in sites:
            if not isinstance(st, ir.Assign) or st.unpack or len(st.targets) != 1:
                return None
        return self.common_if(t, sites)

    @staticmethod
    def common_if(t, sites):
        """The `If` at whose end both branches assign `t`, given `t`'s assignments
        with their chains of enclosing statements (`definitions`): the innermost
        statement all chains share, when it is an `If`, no loop stands between it and
        an assignment, and every path through it assigns `t`; None otherwise."""
        chains = [c for _, c in sites]
        k = 0
        while all(len(c) > k for c in chains) and all(
                c[k][0] is chains[0][k][0] and c[k][1] == chains[0][k][1] for c in chains):
            k += 1
        if not all(len(c) > k for c in chains):
            return None
        join = chains[0][k][0]
        if not isinstance(join, ir.If) or any(c[k][0] is not join for c in chains) \
                or any(not isinstance(st, ir.If) for c in chains for st, _ in c[k:]):
            return None  # (a loop between the join and an assignment)
        if t not in ir.definitely_assigned(join.body) \
                or t not in ir.definitely_assigned(join.orelse):
            return None
        return join

    def op_of(self, st):
        return self.result.ops.get(id(st)) or classify(st.value, self.fn, self.is_local,
                                                           self.atom_kind)

    def branch_own(self, copy, chain):
        """Is ``t = src`` (`copy`, the last statement of a branch) handing back a new
        object the branch made (``src = w * 2.0``, then `dup` copies of it), which
        the branch only reads (an element, an operation of it), never changes or
        stores? The statement making it, or None."""
        if not chain or chain[-1][1] is None:
            return None
        owner, branch = chain[-1]
        block = owner.body if branch == 0 else owner.orelse
        if not block or block[-1] is not copy:
            return None
        names, source = set(), copy.value.id
        while True:
            names.add(source)
            made = next((st for st in block if source in ir.defined_names(st)), None)
            if isinstance(made, ir.Dup):
                source = made.source
                continue
            break
        if not (isinstance(made, ir.Assign) and not made.unpack and made.targets == (source,)
                and makes_new_object(self.op_of(made), made.value, self.atom_kind)):
            return None
        for st in block:  # (every dup copy of it too)
            if isinstance(st, ir.Dup) and st.source in names:
                names |= set(st.targets)
        for st in block:
            if st is copy or st is made or isinstance(st, ir.Dup) and st.source in names:
                continue
            if isinstance(st, (ir.If, ir.Loop)):
                if names & {n for x in ir.walk([st]) for n in ir.stmt_reads(x)}:
                    return None
                continue
            read = names & set(ir.stmt_reads(st))
            if not read:
                continue
            if not isinstance(st, ir.Assign) or st.inplace or st.item:
                return None
            if self.op_of(st).kind not in ("getitem", "rule"):
                return None  # (a write through a view of it is refused as such)
        return made

    def check_conflicts(self):
        """Also a conflict that no active assignment shows: an argument read by
        index whose object a dead name shares with another (`v = x` on one path)."""
        r = self.result
        if r.conflict is not None:
            return
        bad = {r.root(n) for n in r.active if r.is_container(n)} & self.conflicts
        if not bad:
            return
        sites = [s for s in ir.walk(self.fn.body) if isinstance(s, ir.Assign)
                 and any(r.root(t) in bad for t in s.targets)]
        at = next((self.conflict_at[b] for b in sorted(bad) if b in self.conflict_at), None) \
            or next((s for s in sites if r.ops[id(s)].kind == "copy"), None) \
            or (sites[0] if sites else None)
        if at is None:
            return
        r.conflict = self.error(
            NotDifferentiableError, at, r.ops[id(at)],
            *_CONFLICT)

    def check_writes(self):
        """Writes go into objects s2sad can follow: see `_Writes`."""
        self.fresh_phis()
        _Writes(self).check()

    def own_code(self) -> bool:
        """Is this s2sad's own derivative code (a gradient that forward mode
        differentiates for a Hessian)? Its writes restore values popped from its
        tapes and update adjoint arrays in place, and forward mode, whose tangents
        share and view each other exactly as the values they go with do, follows
        them, as it follows its accumulators (``x_bar += g`` on arrays no other name
        refers to): the checks on writes and in-place operators are left out."""
        info = self.fn.source
        return bool(info and info.filename.startswith("<s2sad"))

    def fresh_phis(self):
        """A loop-carried array is a new object when its first value and every value
        the loop gives it are."""
        r = self.result
        sources = carried_sources(ir.walk(self.fn.body))
        changed = True
        while changed:
            changed = False
            for phi, values in sources.items():
                if phi in self.fresh or not isinstance(r.kinds.get(phi), ArrayKind):
                    continue
                if all(isinstance(v, ast.Name) and r.root(v.id) in self.fresh for v in values):
                    self.fresh.add(phi)
                    changed = True

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
                    "(see 'Custom derivative rules' in the README), or declare it "
                    "non-differentiable with s2sad.nondifferentiable(func).")
            if what.startswith("the method ."):
                hint = ("s2sad differentiates the methods of NumPy arrays only; call a "
                        "function instead, written with def (s2sad differentiates it) or "
                        "given a rule with s2sad.register_rule.")
            unknown = [x.id for x in op.inputs if isinstance(x, ast.Name)
                       and x.id in getattr(self, "any_rank", ())]
            if unknown:
                name = unknown[0].split("%")[0]
                message += f" (`{name}` is an array of unknown rank)"
                hint = (f"`{name}` is an element of a list whose arrays have different "
                        "ranks, taken at an index known only when the code runs, so its "
                        "rank is not known. Read the elements by constant indices "
                        "(`params[0]`) or unpack the list (`W, b = params`).")
        else:
            message = "s2sad cannot differentiate indexing into a value that is not a " \
                      "tuple or a list yet"
            hint = "Index into tuples and lists only, or unpack the tuple into names."
        return cls(message, filename=filename, lineno=s.line or None,
                   col=_col(text), source_line=text, hint=hint)

    # ------------------------------------------------------------ text


class _Writes:
    """Checks on writes into lists and arrays (``x[i] = v``): each goes into an object
    the function made itself and nothing else shares (not an argument, not a slice,
    reshape or ``.T`` of another array), and no view of a written array is read
    after a write that could change what it shows (the derivative would take the
    view's values from before the write, while Python sees them after)."""

    def __init__(self, analysis):
        self.a = analysis
        self.r = analysis.result
        self.order = []  # (statement, enclosing loops), in program order
        self.visit(analysis.fn.body, ())

    def visit(self, body, loops):
        for s in body:
            self.order.append((s, loops))
            if isinstance(s, ir.Loop):
                self.visit(s.cond, loops + (s,))
                self.visit(s.body, loops + (s,))
            elif isinstance(s, ir.If):
                self.visit(s.body, loops)
                self.visit(s.orelse, loops)
            elif isinstance(s, ir.Exit):
                self.visit(s.copies, loops)

    def fail(self, s, message, hint):
        raise self.a.error(NotDifferentiableError, s, None, message, hint)

    def name(self, n: str) -> str:
        return n.split("%")[0] or "this value"

    def check(self):
        r = self.r
        if self.a.own_code():
            return  # (see `_Analysis.own_code`)
        writes = {}  # root -> [(position, loops)]
        for k, (s, loops) in enumerate(self.order):
            if isinstance(s, ir.Assign) and s.inplace and isinstance(s.value, ast.BinOp) \
                    and isinstance(s.value.left, ast.Name) and self.a.is_object(s.value.left.id):
                for root in self.inplace(s):
                    writes.setdefault(root, []).append((k, loops))
                continue
            if not isinstance(s, ir.SetItem):
                continue
            c = s.container
            root = r.root(c)
            writes.setdefault(root, []).append((k, loops))
            user = self.name(c)
            if isinstance(s.value, ast.Name) and s.value.id in r.kinds \
                    and r.root(s.value.id) == root:
                self.fail(s, f"this writes `{user}` into itself; s2sad's derivative would "
                             "read the values the write has already changed",
                          f"Write a copy: `{user}[...] = {self.name(s.value.id)}.copy()`.")
            # (what `c` may be here, not what other names sharing its object may be: a
            # later ``v = c`` on one path of a join does not make `c` `v`'s other value)
            for obj, made in self.origins(c) or [(c, None)]:
                op = r.ops.get(id(made)) if made is not None else None
                if op is not None and makes_new_object(op, made.value, self.a.atom_kind):
                    continue
                who = f"`{user}`" if self.name(obj) == user else \
                    f"`{user}` (which may be `{self.name(obj)}`)"
                if r.created.get(obj) == 0:
                    self.fail(s, f"s2sad cannot differentiate a write into the argument "
                                 f"`{self.name(obj)}`"
                                 f"{'' if self.name(obj) == user else f' (`{user}` may be it)'}: "
                                 f"the caller's list or array would change",
                              f"Write into a copy made first: `{user} = {user}.copy()`.")
                self.joined_write(s, obj, f"`{user}[...] = ...` writes into `{user}`")
                bases = r.views.get(obj) or (r.views.get(c) if obj == root else None)
                if not bases and op is not None and op.inputs \
                        and isinstance(op.inputs[0], ast.Name) \
                        and makes_view(op, r.kinds.get(obj), self.a.atom_kind):
                    bases = (op.inputs[0].id,)
                if bases:
                    base = self.name(bases[0])
                    self.fail(s, f"{who} may share memory with `{base}` (a slice, a reshape "
                                 f"or .T of it, or what a function given it returns), and "
                                 f"s2sad cannot follow a write through it",
                              f"Write into `{base}` itself, or make `{user}` a copy: "
                              f"`{user} = ....copy()`.")
                if op is not None and (made.unpack or op.kind in ("getitem", "pop") and not
                                       isinstance(self.a.atom_kind(op.inputs[0]), ArrayKind)):
                    named = bool(op.inputs) and isinstance(op.inputs[0], ast.Name)
                    source = self.name(op.inputs[0].id) if named else "a list or tuple"
                    in_list = named and self.a.is_list(op.inputs[0].id)
                    self.fail(s, f"`{user}` is an element of `{source}` (the same object, which "
                                 f"`{source}` still holds), and s2sad cannot follow a write "
                                 "through it",
                              f"Change a copy and put it back: `{user} = {source}[i].copy()`, "
                              f"`{user}[...] = v`, `{source}[i] = {user}`." if in_list else
                              f"Write into a copy (`{user} = {user}.copy()` first), and make "
                              f"a new tuple with it where the tuple should show the change.")
                self.fail(s, f"s2sad cannot tell whether the value of `{user}` is shared with "
                             "another value, so it cannot follow a write into it",
                          f"Write into a copy made first: `{user} = {user}.copy()`.")
            kind = r.kinds.get(c)
            index = s.target.slice
            if isinstance(kind, ArrayKind) and kind.dtype == "?" and self.a.is_varied(s.value):
                self.fail(s, f"s2sad cannot tell the dtype of `{user}` before the call: if it "
                             "holds integers, NumPy truncates what this writes (no derivative "
                             "passes through), if floats, it keeps it",
                          f"Give `{user}` its dtype where it is made with a name s2sad can "
                          f"read (`dtype=float`, `dtype=np.float32`, `dtype=int`).")
            if isinstance(kind, ListKind) and not (
                    isinstance(index, (ast.Name, ast.Constant))
                    and self.a.atom_kind(index) == INT):
                self.fail(s, "s2sad can write one element of a list (`xs[i] = v`), not a slice",
                          "Write the elements one by one in a loop.")
            if isinstance(kind, ArrayKind) and r.is_active(s.value) and \
                    fancy_index(index, self.a.atom_kind) and not self.boolean(index):
                self.fail(s, "s2sad cannot differentiate writing values through an integer "
                             "array index yet (a repeated index keeps only its last value)",
                          "Write through a boolean mask, slices or single indices, or "
                          "build the array with np.where.")
        for view in r.views:
            for root in r.viewed_roots(view):
                if root in writes:
                    self.check_view(view, writes[root])
        if writes:
            self.check_carried(writes)
        _Holders(self).check()

    def origins(self, n: str) -> list:
        """``(name, statement)`` for each definition that makes an object `n` may be
        where it is written (the statement None for an argument): copies, dups, the
        first and next values of a loop-carried name and every assignment of a joined
        name are followed back to what they hand over, the way values flow, so that a
        later ``v = n`` (on one path of a join whose other path gives `v` a view of
        another array) does not make `n` what `v` may be. A name `value_join` made an
        object of its own stops the walk: its own checks apply to it."""
        r, a = self.r, self.a
        inits = {p.name: p.init for loop in ir.walk(a.fn.body) if isinstance(loop, ir.Loop)
                 for p in loop.phis}
        params = {p.name for p in a.fn.params}
        out, seen, todo = [], set(), [n]
        while todo:
            m = todo.pop()
            if m in seen or m not in r.kinds:
                continue
            seen.add(m)
            if m in params:
                out.append((m, None))
            init = inits.get(m)
            if isinstance(init, ast.Name):
                todo.append(init.id)
            joined = a.value_joins.get(m) is not None
            for st, _ in a.definitions(m):
                op = r.ops.get(id(st))
                if isinstance(st, ir.Dup) and not joined:
                    todo.append(st.source)
                elif isinstance(st, ir.Assign) and not st.unpack and not joined \
                        and op is not None and op.kind == "copy" \
                        and isinstance(op.inputs[0], ast.Name):
                    todo.append(op.inputs[0].id)
                elif isinstance(st, ir.Assign):
                    out.append((m, st))
        return out

    def joined_write(self, s, root, what):
        """Refuse a write into `root`, a name given an array that exists already on
        some path into a join (`_Analysis.value_join`): it may be that array."""
        if self.a.value_joins.get(root) is None:
            return
        user = self.name(root)
        bases = [self.name(b) for b in self.r.views.get(root, ())]
        base = next((b for b in bases if b != "this value"), "another array")
        self.fail(s, f"{what}, which is `{base}` itself (or a view of it) on some path "
                     f"into it; s2sad cannot follow a write into an array that another "
                     f"name may hold",
                  f"Make `{user}` a copy on that path (`{user} = {base}.copy()`), or write "
                  f"into a copy made here: `{user} = {user}.copy()`.")

    def inplace(self, s) -> list:
        """``x op= y`` on a list or an array (`s.inplace`): the SSA form's new name is
        right only if the object is the function's own, and no other variable refers
        to it. Gives the objects the statement changes (through a loop's carried
        value, the object it started from too)."""
        r = self.r
        src = s.value.left.id
        user = self.name(src)
        what = "list" if self.a.is_list(src) else "array"
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
              ast.MatMult: "@", ast.FloorDiv: "//", ast.Mod: "%"}.get(type(s.value.op), "+")
        roots, todo = [], [r.root(src)]
        inits = {p.name: p.init for loop in ir.walk(self.a.fn.body)
                 if isinstance(loop, ir.Loop) for p in loop.phis}
        while todo:
            root = todo.pop()
            if root in roots:
                continue
            roots.append(root)
            init = inits.get(root)
            if isinstance(init, ast.Name) and init.id in r.kinds:
                todo.append(r.root(init.id))
        for root in roots:
            if root not in self.a.fresh:
                self.joined_write(s, root, f"`{user} {op}= ...` changes `{user}` in place")
                if r.created.get(root) == 0:
                    self.fail(s, f"`{user} {op}= ...` changes the argument `{self.name(root)}` "
                                 f"in place: the caller's {what} would change",
                              f"Write `{user} = {user} {op} ...` (a new {what}), or change a "
                              f"copy made first: `{user} = {user}.copy()`.")
                self.fail(s, f"`{user} {op}= ...` changes `{user}` in place, and s2sad cannot "
                             f"tell whether it shares memory with another value (a slice, "
                             f"reshape or .T of an array, an element of a list, a call's "
                             f"result)",
                          f"Write `{user} = {user} {op} ...` (a new {what}), or make "
                          f"`{user}` a copy where it is taken.")
            others = sorted({self.name(n) for n in r.kinds if r.root(n) == root} - {user})
            others = [n for n in others if n != "this value"]
            if others:
                self.fail(s, f"`{user} {op}= ...` changes the {what} `{user}` in place, and "
                             f"`{others[0]}` refers to the same {what}: s2sad's derivative "
                             f"would see `{others[0]}` unchanged",
                          f"Write `{user} = {user} {op} ...` if `{others[0]}` keeps its "
                          f"value, or make one of them a copy (`{user} = {others[0]}.copy()`).")
        return roots

    def carried_bases(self, loop, phi, bases, seen=()) -> bool:
        """Add to `bases` the roots of the arrays that exist before `loop` which the
        carried array `phi` may be at its head or after the loop: its first value
        (the loop may run no iteration, or leave it as it is) and any array an exit
        hands over that the loop does not make anew (``u = w``). True where some exit
        may leave `phi` an array of an earlier iteration (passed on unchanged, or such
        an array), so that a later iteration or the code after the loop may see it."""
        r = self.r
        if phi in seen:
            return False
        seen = seen + (phi,)
        inits = {p.name: p.init for st in ir.walk([loop]) if isinstance(st, ir.Loop)
                 for p in st.phis}
        init = inits.get(phi)
        if isinstance(init, ast.Name) and init.id in r.kinds:
            self.carried_root(r.root(init.id), bases, seen)
        made_in = {id(st) for st in ir.walk(loop.cond + loop.body)}
        keeps = False
        for st in ir.walk(loop.cond + loop.body):
            if not isinstance(st, ir.Exit):
                continue
            for copy in st.copies:
                if phi not in ir.defined_names(copy) or not isinstance(copy, ir.Assign) \
                        or not isinstance(copy.value, ast.Name) \
                        or copy.value.id not in r.kinds:
                    continue
                src = r.root(copy.value.id)
                if src == r.root(phi):
                    keeps = True
                elif not (src in self.a.fresh and r.created.get(src) in made_in):
                    keeps = True
                    self.carried_root(src, bases, seen)
        return keeps

    def carried_root(self, root, bases, seen):
        """(`carried_bases`: `root`, or what it may be where it is itself carried)"""
        r = self.r
        loop = next((st for st, _ in self.order if isinstance(st, ir.Loop)
                     and any(p.name == root for p in st.phis)), None)
        if loop is not None and isinstance(r.kinds.get(root), ArrayKind):
            self.carried_bases(loop, root, bases, seen)
            return
        bases.add(root)
        for b in r.viewed_roots(root):
            bases.add(b)

    def check_carried(self, writes):
        """A carried array (an `ir.Phi`) is an object of its own for reverse mode (its
        adjoint moves along the loop's copies), but it is the very array it starts
        from while the loop has not given it a new one: all through the first
        iteration, and after a loop that ran no iteration (or broke out at once), and
        every array an exit hands over unmade. A write into such an array while the
        carried name may still hold it, with the other name read afterwards, is what
        reverse mode cannot follow (forward mode's tangents share as the values do):
        refused there (`Activity.conflict`), at the write."""
        r, a = self.r, self.a
        copies = {id(c) for st in ir.walk(a.fn.body) if isinstance(st, ir.Exit)
                  for c in st.copies}
        reads = {}  # name -> positions of the statements that read it

        for k, (s, _) in enumerate(self.order):
            if id(s) in copies:
                continue  # (handing a value on is no read of what it holds)
            if isinstance(s, ir.Loop):
                names = {p.init.id for p in s.phis if isinstance(p.init, ast.Name)}
            elif isinstance(s, ir.If):
                names = set()
            else:
                names = {n for node in ir.exprs(s) for n in ir.names_in(node)}
            for n in names:
                reads.setdefault(n, []).append(k)

        def read_at(root):
            group = {n for n in r.kinds if r.root(n) == root or root in r.viewed_roots(n)}
            return sorted({k for n in group for k in reads.get(n, ())})

        for kl, (loop, _) in enumerate(self.order):
            if not isinstance(loop, ir.Loop):
                continue
            inside = {k for k, (_, loops) in enumerate(self.order) if loop in loops}
            for p in loop.phis:
                phi = p.name
                if not isinstance(r.kinds.get(phi), ArrayKind):
                    continue
                bases = set()
                keeps = self.carried_bases(loop, phi, bases)
                own = r.root(phi)
                bases.discard(own)
                if bases:
                    r.carried[own] = tuple(sorted(bases))
                for base in sorted(bases):
                    # a write into the array `phi` may be, `phi` read afterwards
                    for kw, _ in writes.get(base, ()) if r.conflict is None else ():
                        if kw < kl:
                            continue  # (before `phi` takes it)
                        for k in read_at(own):
                            if kw in inside and (k > kw and (k in inside or keeps)
                                                 or k in inside and keeps) \
                                    or kw not in inside and k > kw:
                                self.refuse_carried(kw, phi, base, self.name(phi))
                    # a write into `phi` where it may be that array, read afterwards
                    for kw, _ in writes.get(own, ()) if r.conflict is None else ():
                        for k in read_at(base):
                            if k > kw or kw in inside and k in inside:
                                self.refuse_carried(kw, phi, base, self.name(base))

    def refuse_carried(self, kw, phi, base, shown):
        if self.r.conflict is not None:
            return
        user, other = self.name(phi), self.name(base)
        s = self.order[kw][0]
        self.r.conflict = self.a.error(
            NotDifferentiableError, s, None,
            f"this write changes the array that both `{user}` and `{other}` may hold "
            f"(`{user}`, carried by a loop, is `{other}`'s array until the loop gives it "
            f"a new one, and still after a loop that runs no iteration), and `{shown}` is "
            f"read afterwards; reverse mode cannot follow a write into an array that "
            f"another name may hold",
            f"Make `{user}` a copy where it takes `{other}`: `{user} = {other}.copy()` "
            f"(forward mode, s2sad.jvp, handles it as it is).")

    def boolean(self, index) -> bool:
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        kinds = [self.a.atom_kind(p) for p in parts if isinstance(p, (ast.Name, ast.List))]
        return all(isinstance(k, ArrayKind) and k.dtype == "b" for k in kinds)

    def check_view(self, view, writes):
        r = self.r
        group = {n for n in r.kinds if r.root(n) == r.root(view)}
        define = next(((k, loops) for k, (s, loops) in enumerate(self.order)
                       if view in ir.defined_names(s)), None)
        if define is None:
            return
        kd, loops_d = define
        for k, (s, loops) in enumerate(self.order):
            if isinstance(s, (ir.Loop, ir.If)):
                reads = {p.init.id for p in getattr(s, "phis", ())
                         if isinstance(p.init, ast.Name)} & group
                carried = isinstance(s, ir.Loop) and any(p.name in group for p in s.phis)
            else:
                reads = {n for node in ir.exprs(s) for n in ir.names_in(node)} & group
                carried = False
            if not reads and not carried:
                continue
            for kw, loops_w in writes:
                between = kd < kw < k
                again = any(loop not in loops_d and loop in loops_w for loop in loops) or (
                    carried and s in loops_w)
                if between or again:
                    s_w = self.order[kw][0]
                    if view.startswith("%"):  # a part read within a line
                        self.fail(s_w, "this write changes a slice or row of the array that "
                                       "was read before it (it shares the array's memory: "
                                       "`A[0], A[1] = A[1], A[0]` does not swap rows in "
                                       "NumPy), and that part is used afterwards; s2sad "
                                       "cannot follow a write through a view",
                                  "Copy the parts where you read them: "
                                  "`A[0], A[1] = A[1].copy(), A[0].copy()`.")
                    self.fail(s_w, f"this write changes what `{self.name(view)}` shows (it "
                                   f"may share memory with the array written), and "
                                   f"`{self.name(view)}` is read again afterwards; s2sad cannot "
                                   "follow a write through a view",
                              f"Make `{self.name(view)}` a copy where it is taken: "
                              f"`{self.name(view)} = ....copy()`.")


def _items_kind(kinds: tuple):
    """The kind of an item of a tuple whose items have `kinds`, read at an index known
    only at run time."""
    out = None
    for k in kinds:
        out = _merge(out, k)
    return out


def _one_kind(kinds: tuple) -> bool:
    """Can one compiled piece of code use any item of a tuple with these item kinds?
    Numbers (ints count as floats) and arrays of any ranks can: the rules for arrays of
    unknown rank take numbers too. Lists, tuples and other values must all be alike."""
    merged = _items_kind(kinds)
    if merged in (SCALAR, INT) or isinstance(merged, ArrayKind):
        return True
    return merged not in (UNKNOWN, OTHER) and all(k == merged for k in kinds)


def _kind_word(kind) -> str:
    if kind in (SCALAR, INT):
        return "numbers"
    if isinstance(kind, ArrayKind):
        return "arrays"
    if isinstance(kind, ListKind):
        return "lists"
    if isinstance(kind, tuple):
        return "tuples"
    return "other values"


class _Holders:
    """Lists and tuples hold the very lists and arrays put in them (``[y, z]``,
    ``(y, z)``, ``xs.append(y)``, ``xs[i] = y``, and what is taken out again:
    ``a = xs[0]``, ``a, b = t``, a call's result). A change made in place to such an
    object (``y[i] = v``, ``y *= 3``, ``inner.append(v)``, and ``xs[i] += v`` on an
    element that is an array) changes what the container, and every value taken out
    of it, shows; s2sad's derivative does not follow that (each name has its own
    adjoint, and ``y *= 3`` gives `y` a new value), so such a change is refused at its
    line when a value that may show the changed object is read after it."""

    def __init__(self, writes):
        self.w, self.a, self.r = writes, writes.a, writes.r
        self.holds = {}  # key -> roots of the lists and arrays the value may be or hold
        self.stores = {}  # root -> {position of a statement putting it in a container}
        self.defined = {}  # name -> (position, loops) of its first definition
        for k, (s, loops) in enumerate(writes.order):
            for t in ir.defined_names(s):
                self.defined.setdefault(t, (k, loops))
        self.flow()

    def key(self, n: str) -> str:
        return self.r.root(n) if self.a.is_object(n) else n

    def contents(self, atom) -> set:
        if not isinstance(atom, ast.Name) or atom.id not in self.r.kinds:
            return set()
        return set(self.holds.get(self.key(atom.id), ()))

    def reach(self, atom) -> set:
        """The objects `atom` is or may be, or holds."""
        if not isinstance(atom, ast.Name) or atom.id not in self.r.kinds:
            return set()
        own = {self.r.root(atom.id)} if self.a.is_object(atom.id) else set()
        return own | self.contents(atom)

    def links(self, s) -> list:
        """``(name, roots, stored)``: after `s`, `name` may be or hold `roots` (put
        into a container by `s` itself when `stored`)."""
        r = self.r
        if isinstance(s, ir.Assign):
            op = r.ops.get(id(s))
            if op is None:
                return []
            if s.unpack:
                src = self.contents(s.value) if isinstance(s.value, ast.Name) else \
                    set().union(*[self.reach(x) for x in op.inputs])
                return [(t, src, False) for t in s.targets]
            t = s.targets[0]
            kind = r.kinds.get(t)
            if t in r.views:  # (a view of what may be a held object shows it too)
                return [(t, set().union(*[self.contents(ir.name(b)) for b in r.views[t]]),
                         False)]
            if op.kind in ("listpack", "pack"):
                return [(t, set().union(*[self.reach(e) for e in op.inputs]), True)]
            if op.kind == "repeat":
                x = op.inputs[0]
                src = set().union(*[self.reach(e) for e in x.elts]) \
                    if isinstance(x, ast.List) else self.contents(x)
                return [(t, src, True)]
            if op.kind in ("getitem", "pop") and not isinstance(
                    self.a.atom_kind(op.inputs[0]), ArrayKind):
                return [(t, self.contents(op.inputs[0]), False)]
            if op.kind == "copy" or stops_gradient(op):
                return [(t, self.reach(op.inputs[0]), False)]
            if kind in (SCALAR, INT):
                return []
            if op.kind in ("call", "unknown"):  # (it may return what it is given)
                return [(t, set().union(*[self.reach(x) for x in op.inputs]), False)]
            if op.kind in ("rule", "sum") and not isinstance(kind, ArrayKind):
                return [(t, set().union(*[self.contents(x) for x in op.inputs]), False)]
            return []
        if isinstance(s, ir.Dup):
            return [(t, self.reach(ir.name(s.source)), False) for t in s.targets]
        if isinstance(s, ir.Expr):
            op = r.ops.get(id(s))
            if op is not None and op.kind == "append":
                return [(op.inputs[0].id, self.reach(op.inputs[1]), True)]
            return []
        if isinstance(s, ir.SetItem) and not isinstance(r.kinds.get(s.container), ArrayKind):
            return [(s.container, self.reach(s.value), True)]
        if isinstance(s, ir.Loop):
            return [(p.name, self.contents(p.init), False) for p in s.phis
                    if isinstance(p.init, ast.Name)]
        return []

    def flow(self):
        changed = True
        while changed:
            changed = False
            for k, (s, _) in enumerate(self.w.order):
                for n, roots, stored in self.links(s):
                    key = self.key(n)
                    held = self.holds.setdefault(key, set())
                    new = roots - held - {key}
                    if new:
                        held |= new
                        changed = True
                    if stored:
                        for root in roots:
                            self.stores.setdefault(root, set()).add(k)

    def carried(self, root) -> set:
        """A loop-carried array is, in turn, its first value and the values each
        iteration hands the next: writing it changes those objects too."""
        sources = carried_sources(s for s, _ in self.w.order)
        out, todo = set(), [root]
        while todo:
            n = todo.pop()
            for v in sources.get(n, ()):
                if isinstance(v, ast.Name) and v.id in self.r.kinds:
                    v_root = self.r.root(v.id)
                    if v_root not in out and v_root != root:
                        out.add(v_root)
                        todo.append(v_root)
        return out

    def reads(self, s) -> set:
        if isinstance(s, ir.Loop):
            return {p.init.id for p in s.phis if isinstance(p.init, ast.Name)}
        if isinstance(s, ir.If):
            return set(ir.names_in(s.test))
        return {n for node in ir.exprs(s) for n in ir.names_in(node)}

    def after(self, k1, loops1, k2, loops2, created=None) -> bool:
        """May position `k2` run after position `k1` (later in the text, or in a later
        iteration of a loop around both)? With `created`, the position where the
        object is made: a loop that makes it anew each iteration does not count."""
        if k1 < k2:
            return True
        inside = self.w.order[created][1] if created is not None else ()
        return any(loop in loops2 and loop not in inside for loop in loops1)

    def changes(self):
        """``(position, statement, roots changed in place, roots reached through a
        loop's carried value, names whose own object it is)`` per change."""
        r = self.r
        for k, (s, loops) in enumerate(self.w.order):
            name = None
            if isinstance(s, ir.SetItem):
                name = s.container
            elif isinstance(s, ir.Assign) and s.inplace and isinstance(s.value, ast.BinOp) \
                    and isinstance(s.value.left, ast.Name) and self.a.is_object(s.value.left.id):
                name = s.value.left.id
            elif isinstance(s, (ir.Assign, ir.Expr)) and id(s) in r.ops and \
                    r.ops[id(s)].kind in ("append", "pop", "add_at") and \
                    isinstance(r.ops[id(s)].inputs[0], ast.Name):
                name = r.ops[id(s)].inputs[0].id
            if name is not None and name in r.kinds:
                root = r.root(name)
                yield k, s, {root}, self.carried(root), name

    def check(self):
        r = self.r
        position = {id(s): k for k, (s, _) in enumerate(self.w.order)}
        reads = [self.reads(s) for s, _ in self.w.order]
        for kw, s_w, roots, via, name in self.changes():
            loops_w = self.w.order[kw][1]
            group = {n for n in r.kinds if r.root(n) == r.root(name)}
            for root in roots | via:
                created = position.get(r.created.get(root)) if root in roots else None
                stored = [ks for ks in self.stores.get(root, ())
                          if self.after(ks, self.w.order[ks][1], kw, loops_w, created)]
                if not stored:
                    continue
                # a write changes the object in the derivative's own sweep too: what
                # was taken out of the container before it (to be read again by the
                # reverse sweep) counts as well; `y op= v` makes a new array there
                since = [(kw, loops_w)] if isinstance(s_w, ir.Assign) and s_w.inplace \
                    else [(ks, self.w.order[ks][1]) for ks in stored]
                for k, (s, loops) in enumerate(self.w.order):
                    shown = [n for n in reads[k] - group if n in r.kinds
                             and root in self.holds.get(self.key(n), ())]
                    if shown and any(self.after(k0, loops0, k, loops) for k0, loops0 in since):
                        self.refuse(s_w, name, root, shown[0])
        self.check_items(position, reads)

    def refuse(self, s_w, name, root, shown):
        user = self.w.name(name)
        holder = self.w.name(shown)
        what = "list" if self.a.is_list(name) else "array"
        through = "" if holder == "this value" else f" (`{holder}` may show it)"
        copy = "[:]" if what == "list" else ".copy()"
        self.w.fail(s_w, f"this changes the {what} `{user}` in place after it was put into a "
                         f"list or a tuple, which still holds it{through}; s2sad's derivative "
                         f"would see the {what} there unchanged",
                    f"Put a copy into the container (`[{user}{copy}, ...]`, "
                    f"`.append({user}{copy})`), or give `{user}` a new value instead of "
                    f"changing it: " + (
                        f"`{user} = {user} * 3` for `{user} *= 3`." if isinstance(s_w, ir.Assign)
                        and s_w.inplace else
                        f"`{user} = {user} + [v]` for `{user}.append(v)`." if what == "list"
                        else f"`{user} = {user}.copy()` before `{user}[...] = v`."))

    def check_items(self, position, reads):
        """``xs[i] += v`` where ``xs[i]`` is an array (or a list): Python changes that
        object, which the SSA form, ``xs[i] = xs[i] + v``, follows only when nothing
        else shows it: it is the function's own, held once, by `xs` alone."""
        r = self.r
        for kw, (s, loops_w) in enumerate(self.w.order):
            if not (isinstance(s, ir.Assign) and s.item and isinstance(s.value, ast.BinOp)
                    and isinstance(s.value.left, ast.Name)):
                continue
            element = s.value.left.id
            if not isinstance(r.kinds.get(element), (ArrayKind, ListKind)) and \
                    r.kinds.get(element) != UNKNOWN:
                continue
            define = next((st for st, _ in self.w.order if element in ir.defined_names(st)), None)
            op = r.ops.get(id(define)) if define is not None else None
            if op is None or op.kind != "getitem" or not isinstance(op.inputs[0], ast.Name) \
                    or isinstance(r.kinds.get(op.inputs[0].id), ArrayKind):
                continue
            xs = op.inputs[0].id
            user, elem = self.w.name(xs), self.w.name(element)
            group = {n for n in r.kinds if r.root(n) == r.root(xs)} | {element}
            for root in self.contents(ir.name(xs)):
                if not self.a.is_object(root) or root not in self.a.fresh:
                    self.w.fail(s, f"this changes the element of `{user}` in place, and "
                                   f"s2sad cannot tell whether it is shared with another "
                                   f"value (an argument, a view, what a call returned)",
                                f"Write `{user}[i] = {user}[i] + ...` (a new element), or put "
                                f"copies into `{user}`.")
                stores = self.stores.get(root, set())
                created = position.get(r.created.get(root))
                inside = self.w.order[created][1] if created is not None else ()
                twice = len(stores) > 1 or any(
                    loop not in inside for ks in stores for loop in self.w.order[ks][1]) or any(
                    self.twice_in(self.w.order[ks][0], root) for ks in stores)
                # (what is taken out of `xs` after the change shows the new element)
                shown = [n for k, (st, loops) in enumerate(self.w.order)
                         for n in reads[k] - group if n in r.kinds and (
                             r.root(n) == root or root in self.holds.get(self.key(n), ()))
                         and self.stale(n, kw, loops_w, k, loops)]
                if twice or shown:
                    other = f"`{self.w.name(shown[0])}` refers to the same object" \
                        if shown and self.w.name(shown[0]) != "this value" \
                        else "another name or element refers to the same object"
                    self.w.fail(s, f"`{user}[...] += ...` changes the element of `{user}` in "
                                   f"place (it is a list or an array), and {other}: s2sad's "
                                   f"derivative would see it unchanged",
                                f"Write `{user}[i] = {user}[i] + ...` if the other keeps its "
                                f"value, or put copies into `{user}`.")

    def stale(self, n, kw, loops_w, k, loops) -> bool:
        """Is `n`, read at position `k`, a value taken before the change at `kw`
        (defined before it, or outside a loop around both)?"""
        define = self.defined.get(n)
        kd, loops_d = (define if define is not None else (-1, ()))
        return kd < kw < k or any(loop in loops_w and loop not in loops_d for loop in loops)

    def twice_in(self, s, root) -> bool:
        """Does the statement put `root` into its container more than once
        (``[y, y]``, ``[y] * n``)?"""
        op = self.r.ops.get(id(s))
        if op is None:
            return False
        if op.kind == "repeat":
            return True
        if op.kind in ("listpack", "pack"):
            return sum(root in self.reach(e) for e in op.inputs) > 1
        return False


def _fresh(name: str, rank: int) -> tuple:
    """A shape of `rank` axes of which nothing is known."""
    return tuple(f"{name}.{i}" for i in range(rank))


def broadcast(shapes: list, strict=False):
    """The shape NumPy broadcasts `shapes` to: axes aligned from the right, an axis of
    length 1 (or a missing one) taking the other's length. Axes with different
    symbols, neither 1, have lengths that may or may not be equal: the result's axis
    is a new symbol, or with `strict` the answer is None (they may not broadcast)."""
    rank = max(len(x) for x in shapes)
    out = []
    for i in range(rank):
        axis = {x[len(x) - rank + i] for x in shapes if len(x) - rank + i >= 0} - {1}
        if len(axis) > 1:
            if strict:
                return None
            axis = {f"?{'|'.join(sorted(map(str, axis)))}"}
        out.append(axis.pop() if axis else 1)
    return tuple(out)


def _reduced(shape, axis, keepdims):
    """The shape of a reduction of an array of `shape` over `axis` (None: all)."""
    if axis == "?" or keepdims not in (True, False):
        return None
    axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    try:
        axes = {a % len(shape) for a in axes}
    except (TypeError, ZeroDivisionError):
        return None
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _is_ufunc(obj) -> bool:
    return type(obj).__name__ == "ufunc"


def _col(text):
    if not text:
        return None
    return len(text) - len(text.lstrip())


def _moves_with_arguments(key) -> bool:
    from .. import primitives as rules

    try:
        return key in rules.MOVES_WITH_ARGUMENTS
    except TypeError:
        return False


def _merge(old, new):
    if old is None or old == new:
        return new
    return merged(old, new)


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
