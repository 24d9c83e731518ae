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

The analysis is one class made of parts, a module each: the fixed point over the
statements (here), the kinds of results (`results`), shapes and origins of arrays
(`shapes`), the objects names refer to (`objects`), `isinstance` tests the kinds
decide (`static`), and the errors (`checks`, with the checks on writes in `writes`
and `holders`).

Size: just over 800 lines, the forward pass of the fixed point and what it keeps for
the passes after it (kinds, objects, the values a tape restores), which share one
pass's state; what can stand alone is in the parts above.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .. import ir
from ..errors import NotDifferentiableError
from ..ir.kinds import (INT, ITERATED, OTHER, PENDING, PLACEHOLDER, SCALAR, STARRED, UNKNOWN,
                        ArrayKind, ListKind, differentiable, kind_of, merged, opaque)
from ..primitives.facts import makes_new_object, makes_view
from ..primitives.shape_rules import broadcast
from .checks import Checks
from .classify import Op, classify, makes_text
from .objects import Objects
from .results import ResultKinds, merge
from .shifts import unused_shifts
from .shapes import ShapeInference, fresh_shape
from .static import StaticTests
from .values import complex_kinds


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
    # array name -> its shape, one symbol per axis (see `shapes.ShapeInference.shape_of`)
    shapes: dict = field(default_factory=dict)
    # array name -> the array its values came from elementwise (a parameter, or the
    # result of another operation): it has that array's shape and its dtype
    origins: dict = field(default_factory=dict)
    written: set = field(default_factory=set)  # roots of lists and arrays written into
    # names of kind SCALAR that may hold an int or a bool on some path (``1 if c else
    # 2.0``, ``(a > b) or t``): numbers, but not certainly floats
    maybe_int: set = field(default_factory=set)
    # array name -> the names of the arrays it may be a view of (a slice, a reshape, a
    # call's result)
    views: dict = field(default_factory=dict)
    # an item of a tuple a call returned -> that tuple: the item has been what it is
    # since the call (`check_view` dates it so)
    view_from: dict = field(default_factory=dict)
    fresh: set = field(default_factory=set)  # roots made by an operation that makes a new object
    # loop-carried array -> the roots of the existing arrays it may still be (its first
    # value, an array an exit hands it: see `writes.CarriedWrites.check_carried`)
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


def analyze(fn: ir.Function, wrt, param_kinds=None, callee_kind=None,
            callee=False) -> Activity:
    """`callee`: `fn` is called by another function s2sad differentiates, which sees
    any change `fn` makes to the lists and arrays it is passed."""
    return _Analysis(fn, tuple(wrt), param_kinds or {}, callee_kind, callee).run()


class _Analysis(StaticTests, ShapeInference, ResultKinds, Objects, Checks):
    """One analysis of one function. This class is the fixed point: the forward pass
    over the statements (kinds, variedness, objects, shapes), iterated over loops
    until nothing changes and run again when writes make arrays objects, then the
    backward pass (usefulness).

    Size: about 360 lines, one class because its passes share the state they build;
    each question they ask is answered by one of the parts it is made of (see the
    module docstring)."""

    def __init__(self, fn, wrt, param_kinds, callee_kind, callee=False):
        self.fn = fn
        self.callee = callee
        self.index = _Index(fn)
        self.locals = {p.name for p in fn.params} | self.index.defined.keys()
        self.result = Activity(wrt)
        self.param_kinds = param_kinds
        self.callee_kind = callee_kind
        # answers that depend only on a primitive and the kinds of its inputs (the
        # rules `classify` finds, `results.rule_result`'s kinds), kept for the analysis
        self.memo = {}

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
        if not r.roots:  # (every name its own object)
            return n
        if isinstance(r.kinds.get(n), ListKind):
            return r.root(n)
        return r.root(n) if r.written and r.root(n) in r.written else n

    def run(self) -> Activity:
        r = self.result
        self.conflicts = set()
        self.conflict_at = {}  # root -> a statement that gives its name another object
        self.join_makes = {}  # id(statement) -> the If it makes a joined object for
        self.tuple_bases = {}  # a tuple a call returned -> the arrays it may hold (`call_views`)
        self.value_joins = {}  # joined array name -> its If, or None (see `value_join`)
        self.widened = set()  # roots of lists something was appended to
        self.indexed = set()  # roots of arrays some statement reads by index
        self.any_rank = set()  # elements of lists of arrays of several ranks (see error)
        self.starred = set()  # `*` parts of unpackings of arrays and tuples (`note_starred`)
        self.complex_inputs = False  # (has an assignment read a complex value? `values`)
        for p in self.fn.params:
            default = SCALAR if p.name in r.wrt else UNKNOWN
            kind = r.kinds[p.name] = _of_no_library(self.param_kinds.get(p.name, default))
            if isinstance(kind, ArrayKind):
                r.origins[p.name] = p.name
                r.kinds[p.name] = ArrayKind(kind.ndim, kind.dtype)
                if kind.dims is not None:
                    r.shapes[p.name] = kind.dims
                elif kind.ndim is not None:
                    r.shapes[p.name] = fresh_shape(p.name, kind.ndim)
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
        self.dict_items = {}  # dict display -> the kinds of its values by constant key
        self.dead = r.dead  # id(If) -> its branch that never runs
        self.phis = self.index.phis
        defined = self.index.defined
        # a name given its value in two places (a branch join, a loop's exit copies)
        # may have either shape: it gets a shape of its own
        self.joined = {t for t, k in defined.items() if k > 1} | self.phis
        self.defined = defined
        self.versions = None  # (`restored_kind`'s index, made where it is first asked)
        self.placeholders = set()  # names given a `PLACEHOLDER` (their kind: None's)
        self.displays = set()  # names of a dict or a set display (and their copies)
        self.texts = set()  # names of text made of values (`classify.makes_text`)
        # (names given None somewhere, which only gradient code s2sad wrote reads:
        # `restored_kind`, `saved_none`)
        self.nones = self.index.nones
        self.some = {}  # one of them -> the kind of the values it is given but None
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
                # run again with that known from the start, by the roots the last pass
                # left (a join may have made the object of a name written another's)
                r.written = {r.root(n) for n in r.written}
                # (and the objects they are now: a join may have put a parameter's
                # under another root, which the names' aliasing no longer varies)
                r.varied = {n for p in self.fn.params if p.name in r.varied
                            for n in (p.name, self.key(p.name))}
                # (kinds again from the parameters' too: merged with the first pass's, an
                # empty list's `[]` would lose the element kind its appends gave it)
                r.kinds = {p.name: r.kinds[p.name] for p in self.fn.params}
                self.widened = set()
                self.forward(self.fn.body)
        for n, k in r.kinds.items():  # (a value still pending was never computed here:
            if type(k) is str and k == PENDING:  # nothing this analysis can say of its kind)
                r.kinds[n] = OTHER if n in self.placeholders else UNKNOWN
        lists = [n for n, k in r.kinds.items() if isinstance(k, ListKind)] \
            if _holds(r.kinds, ListKind) else []
        r.containers = {r.root(n) for n in lists} | self.indexed | r.written
        # (a row maximum subtracted before a softmax: the result does not depend on it)
        self.unused_shifts = unused_shifts(self.fn.body)
        self.keyed = bool(r.roots and (r.written or lists))  # (else `key` is the name)
        self.backward(self.fn.body)
        # (a list's names, and those of an array written into, are varied and useful
        # as their object is)
        shared = [n for n, k in r.kinds.items() if isinstance(k, ListKind)
                  or r.root(n) in r.written] if r.written else lists
        for group in (r.varied, r.useful):
            group |= {n for n in shared if r.root(n) in group}
        r.active = {n for n in r.varied & r.useful if _differentiable(r.kinds.get(n))}
        if r.written or self.index.writes or any(
                r.ops.get(id(s)) is not None and r.ops[id(s)].kind in ("append", "pop")
                for s in self.index.exprs):
            self.check_writes()
        if self.starred:
            self.check_starred()
        self.check(self.fn.body)
        self.check_conflicts()
        return r

    def saved_none(self, phi) -> bool:
        """In gradient code s2sad wrote, is `phi` a variable first given a value in its
        loop that starts as the None its tape saves for the first iteration
        (`tapes.fill_tapes`)? Nothing reads that None as a value: the variable's kind
        is that of the values the iterations give it."""
        source = self.fn.source
        return source is not None and source.generated and isinstance(phi.init, ast.Name) \
            and phi.init.id in self.nones and self.defined.get(phi.init.id) == 1

    def restored_kind(self, s, op):
        """Where `s` is the reverse sweep of gradient code s2sad wrote taking a value
        back off its tape (``t8 = tape_1.pop()``, ``t8%1`` once renamed), the kind of
        the value the forward sweep pushed under that name (a tape holding values of
        several kinds would make it unknown); else None."""
        source = self.fn.source
        if not (op.kind == "pop" and source is not None and
                source.generated and
                isinstance(op.inputs[0], ast.Name) and op.inputs[0].id.startswith("tape")
                and len(s.targets) == 1 and not s.unpack):
            return None
        base, _, version = s.targets[0].rpartition("%")
        if not version.isdigit():
            return None
        if self.versions is None:  # (base name -> the names of its versions, once)
            self.versions = {}
            for n in self.defined:
                b, _, v = n.rpartition("%")
                self.versions.setdefault(b if v.isdigit() else n, []).append(n)
        # (the forward sweep's values of that name, but the None a path that did not
        # compute it pushes in its place, which that path's reverse does not read)
        kind = None
        for n in self.versions.get(base, ()):
            k = self.some.get(n) if n in self.nones else self.result.kinds.get(n)
            if n != s.targets[0] and k is not None:
                kind = k if kind is None else merged(kind, k)
        return kind if kind not in (None, UNKNOWN, PENDING) else None

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
                op = classify(s.value, self.fn, self.is_local, self.atom_kind, self.memo)
                r.ops[id(s)] = op
                if isinstance(s.value, ast.Call):  # (only a call changes its arguments)
                    self.check_mutation(s, op)
                kinds_, locals_ = r.kinds, self.locals  # (`atom_kind`, a local's inline)
                inputs = [kinds_.get(x.id, UNKNOWN) if type(x) is ast.Name and x.id in locals_
                          else self.atom_kind(x) for x in op.inputs]
                if not self.complex_inputs and complex_kinds(op.inputs, inputs):
                    self.complex_inputs = True  # (else no line computes with one)
                kinds = self.out_kinds(s, op, inputs)
                marks = s.value.__dict__  # (`frontend`'s marks on the value, if any)
                placeholder = marks.get(PLACEHOLDER, False)
                if placeholder:
                    self.placeholders.update(s.targets)  # (a None, never read)
                if op.kind == "inactive":  # (a dict or a set display, an f-string)
                    self.displays.update(s.targets)
                    if makes_text(s.value, self.fn):
                        self.texts.update(s.targets)
                if marks.get(STARRED, False):
                    self.note_starred(s)
                # (the item a loop reads, ``seq[i]``; ``iterated(seq, i)`` where an
                # earlier build of this function read it so: `common.iterate_unknown`)
                seq = (s.value.value if type(s.value) is ast.Subscript else s.value.args[0]) \
                    if marks.get(ITERATED, False) else None
                # (a literal's items, a string's characters, read by index as they
                # iterate)
                if type(seq) is ast.Name and (opaque(self.atom_kind(seq)) or
                                              seq.id in self.displays):
                    raise self.error(
                        NotDifferentiableError, s, op,
                        f"s2sad runs a `for` loop by reading its items by index, right for "
                        f"lists, tuples and arrays; `{seq.id.split('%')[0] or 'it'}` is "
                        "something else here (a dict, a set, a string, an iterator), whose "
                        "items it would not read",
                        "Loop over a list of them: `for k in list(d)`, "
                        "`for k, v in list(d.items())`.")
                if PENDING in inputs or placeholder:
                    kinds = [PENDING] * len(kinds)  # (of a result not known yet)
                restored = self.restored_kind(s, op) if op.kind == "pop" else None
                if restored is not None:
                    kinds = [restored]
                if op.kind == "listpack" and not op.inputs and len(s.targets) == 1 and \
                        isinstance(r.kinds.get(s.targets[0]), ListKind):
                    # (``xs = []`` again, in a loop's next pass: an empty list holds
                    # nothing, and what the appends gave its elements stays)
                    kinds = [ListKind(r.kinds[s.targets[0]].elem)]
                if op.kind in ("copy", "nondiff") or isinstance(s.value, (ast.Tuple,
                                                                        ast.UnaryOp)):
                    self.note_static(s, op)  # (what it looks at)
                for t, k in zip(s.targets, kinds):
                    if t in self.nones and not (isinstance(s.value, ast.Constant)
                                                and s.value.value is None):
                        self.some[t] = merge(self.some.get(t), k)  # (see `restored_kind`)
                    if not (t in self.keep and t in r.kinds):
                        old = r.kinds.get(t)
                        if old == INT and k == SCALAR or old == SCALAR and k == INT or \
                                op.kind == "copy" and \
                                isinstance(op.inputs[0], ast.Name) and \
                                op.inputs[0].id in r.maybe_int:
                            r.maybe_int.add(t)  # (a number, not certainly a float)
                        r.kinds[t] = merge(old, k)
                    if type(r.kinds[t]) is str:
                        continue  # (a number, an integer...: no shape, no object)
                    if isinstance(r.kinds[t], ArrayKind):
                        r.origins[t] = self.origin(t, op)
                        shape = self.shape_of(t, s, op)
                        if shape is None:
                            r.shapes.pop(t, None)
                        else:
                            r.shapes[t] = shape
                    elif isinstance(r.kinds[t], tuple):  # (the arrays a call returns)
                        self.note_tuple_shapes(t, s, op)
                        if op.kind == "call" and not s.unpack:
                            self.call_views(t, s, op, self.tuple_bases)
                        elif op.inputs and isinstance(op.inputs[0], ast.Name) and \
                                op.inputs[0].id in self.tuple_bases:  # (``h, cache = ...``)
                            self.item_views(t, s, op, self.tuple_bases)
                    if isinstance(r.kinds.get(t), (ListKind, ArrayKind)):  # (an object)
                        join = self.value_join(t) if not s.unpack and (  # (else None)
                            t in self.joined or t in self.value_joins) else None
                        if join is not None:
                            self.join_value(t, op, s.value, join)
                        elif op.kind == "copy" and not s.unpack:
                            self.alias(t, op.inputs[0].id)
                        elif (root := r.root(t)) not in r.created:
                            r.created[root] = id(s)
                            if makes_new_object(op, s.value, self.atom_kind):
                                self.fresh.add(root)
                            elif makes_view(op, r.kinds[t], self.atom_kind) \
                                    and isinstance(op.inputs[0], ast.Name):
                                # (a user's rule: of any list or array it is given)
                                r.views[t] = (op.inputs[0].id,) + tuple(
                                    x.id for x in op.inputs[1:] if op.kind == "rule"
                                    and self.is_object_atom(x))
                            elif op.kind == "call":
                                self.call_views(t, s, op, r.views)
                            elif op.inputs and isinstance(op.inputs[0], ast.Name) and \
                                    op.inputs[0].id in self.tuple_bases:
                                # (an item of a tuple a call returned, ``b, s = pair(a)``:
                                # it may be what the call was given)
                                self.item_views(t, s, op, r.views)
                        elif r.created[root] != id(s):
                            join = self.join_makes.get(id(s)) or self.fresh_join(t)
                            if join is not None:
                                # a new object on every path into `join` (and no
                                # other): one object made at the join, whose
                                # adjoint starts there
                                r.created[root] = id(join)
                            else:
                                # `t` names an object made here on one path and another
                                # object (made elsewhere, or aliased) on another path
                                self.conflicts.add(root)
                                self.conflict_at.setdefault(root, s)
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
                varied = False  # (`key(n)` is `n` but for a list's or one written into)
                for d, x in zip(op.diff, op.inputs):
                    if d and isinstance(x, ast.Name) and (self.key(x.id) if r.roots and (
                            r.written or isinstance(r.kinds.get(x.id), ListKind))
                            else x.id) in r.varied:
                        varied = True
                        break
                if varied:
                    for t in s.targets:
                        if _differentiable(r.kinds[t]):
                            r.varied.add(self.key(t))
            elif isinstance(s, ir.Dup):
                src = s.source  # (each copy gets its source's entries, object, variedness)
                kind = r.kinds.get(src, UNKNOWN)
                sets = [x for x in (self.any_rank, self.displays, self.typed) if src in x]
                tables = [x for x in (self.static, r.shapes, r.origins, self.dict_items) if
                          src in x]
                obj = isinstance(kind, (ListKind, ArrayKind))
                keyed = r.written or isinstance(kind, ListKind)  # (else `key` is the name)
                varied = not obj and self.key(src) in r.varied  # (an object's: after `alias`)
                for t in s.targets:
                    r.kinds[t] = kind
                    for x in sets:
                        x.add(t)
                    for x in tables:
                        x[t] = x[src]
                    if obj:
                        self.alias(t, src)
                    if varied or obj and (self.key(src) if keyed else src) in r.varied:
                        r.varied.add(self.key(t) if keyed else t)
            elif isinstance(s, ir.If):
                known = self.static.get(s.test.id) if isinstance(s.test, ast.Name) else None
                if known is None:
                    self.forward(s.body)
                    self.forward(s.orelse)
                else:
                    self.forward_decided(s, known)
            elif isinstance(s, ir.Kept) and s.defines:
                # what a `try` or `with` run as written assigns: of unknown kind, and
                # varied if it reads a varied value (`checks` refuses it if active)
                varied = any(self.is_varied(a) for a in s.args)
                for t, k in zip(s.defines, self.kept_kinds(s)):
                    r.kinds[t] = merge(r.kinds.get(t), k)
                    if varied:
                        r.varied.add(t)
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
                op = r.ops[id(s)] = classify(s.value, self.fn, self.is_local, self.atom_kind,
                                             self.memo)
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

    def call_views(self, t, s, op, views: dict):
        """A call's result may be one of the lists or arrays it was given, or a view
        of one (``def half(a): return a[:2]``): it counts as a view of those (in
        `views`; a tuple's, the arrays its items may be: per item where the callee
        makes a tuple display, a tuple of them)."""
        shared = getattr(self.callee_kind, "shared", None)
        positions = shared(op.key, s, [self.atom_kind(x) for x in op.inputs]) \
            if shared is not None else range(len(op.inputs))

        def bases(at):
            return tuple(op.inputs[i].id for i in at
                         if i < len(op.inputs) and self.is_object_atom(op.inputs[i]))

        got = tuple(bases(p) for p in positions) if isinstance(positions, tuple) \
            else bases(positions)
        if isinstance(positions, tuple) and views is self.result.views:
            got = tuple(dict.fromkeys(b for item in got for b in item))
        if got and any(got):
            views[t] = got

    def item_views(self, t, s, op, views: dict):
        """`t`, an item of a tuple a call returned (``b, s = pair(a)``, ``pair(a)[0]``),
        counts as a view of what that item may be (`call_views`)."""
        got = self.tuple_bases[op.inputs[0].id]
        self.result.view_from[t] = op.inputs[0].id
        if got and isinstance(got[0], tuple):  # (per item)
            at = s.targets.index(t) if s.unpack else op.inputs[1].value if len(
                op.inputs) > 1 and isinstance(op.inputs[1], ast.Constant) and isinstance(
                op.inputs[1].value, int) else None
            got = got[at] if at is not None and -len(got) <= at < len(got) else tuple(
                dict.fromkeys(b for item in got for b in item))
        if got:
            views[t] = got

    def is_object_atom(self, atom) -> bool:
        return isinstance(atom, ast.Name) and isinstance(
            self.atom_kind(atom), (ListKind, ArrayKind))

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
            r.kinds[xs] = ListKind(merge(old, elem))
        for n in list(r.kinds):
            if self.is_list(n) and r.root(n) == r.root(xs):
                r.kinds[n] = r.kinds[xs]

    def forward_loop(self, s: ir.Loop):
        """Kinds and variedness of a loop: iterate over the body until nothing changes
        (a value varied in one iteration is varied in the next through the phis)."""
        r = self.result
        if s.target is not None:
            r.kinds[s.target] = INT
        for _ in range(50):
            before = (len(r.varied), dict(r.kinds))
            for phi in s.phis:
                if phi.init is not None and not phi.unborn and not self.saved_none(phi):
                    r.kinds[phi.name] = merge(r.kinds.get(phi.name), self.atom_kind(phi.init))
                    if self.is_object(phi.name) and isinstance(phi.init, ast.Name):
                        self.alias(phi.name, phi.init.id)
                    if isinstance(r.kinds[phi.name], ArrayKind) or self.is_list(phi.name) \
                            and self.own_each_iteration(phi.name):
                        r.created.setdefault(phi.name, id(s))
                    if isinstance(r.kinds[phi.name], ArrayKind):
                        # it may change from one iteration to the next
                        r.origins[phi.name] = phi.name
                        if r.kinds[phi.name].ndim is not None:
                            r.shapes[phi.name] = fresh_shape(phi.name, r.kinds[phi.name].ndim)
                    if self.is_varied(phi.init) and differentiable(r.kinds[phi.name]):
                        r.varied.add(self.key(phi.name))
                elif phi.name not in r.kinds:
                    # (first given a value in the loop: of the kind the iterations give
                    # it, which the first pass does not know yet)
                    r.kinds[phi.name] = PENDING
                elif isinstance(r.kinds.get(phi.name), ArrayKind):
                    # (first given a value in the loop, ``if i == 0: h = x``: an array of
                    # its own from the first iteration's exit on, as above; and in
                    # gradient code s2sad wrote, one it starts as None for its tape)
                    r.created.setdefault(phi.name, id(s))
                    r.origins[phi.name] = phi.name
            self.forward(s.cond)
            self.forward(s.body)
            if (len(r.varied), r.kinds) == before:
                self.unborn_shapes(s)
                self.unborn_lists(s)
                return

    def unborn_lists(self, s: ir.Loop):
        """A list first made inside the loop `s` and read in a later iteration or after
        the loop (``for ...: ys = [x * i, x]``, then ``ys[0]``) is another list in each
        iteration: one adjoint list cannot follow it, so reverse mode refuses it, as it
        does such a list made before the loop too (`conflicts`); forward mode follows it.
        Changed in place as well (``if i == 0: acc = []``, then ``acc.append(v)``), it
        is refused in both modes: which list the changes go to is not followed yet."""
        r = self.result
        source = self.fn.source
        if source is not None and source.generated:
            return
        for phi in s.phis:
            if not (phi.init is None or phi.unborn) or not self.is_list(phi.name):
                continue
            root = r.root(phi.name)
            names = [n for n in r.kinds if r.root(n) == root]
            if root in r.written or root in self.widened:
                at = next((x for x in ir.walk(s.body) if id(x) in r.ops and r.ops[id(x)].kind
                           in ("append", "pop") and any(isinstance(a, ast.Name) and
                                                        r.root(a.id) == root
                                                        for a in r.ops[id(x)].inputs)), s)
                raise self.error(
                    NotDifferentiableError, at, r.ops.get(id(at)),
                    f"s2sad cannot differentiate a list first made inside a loop and changed "
                    f"in place in the iterations after (`{phi.name.split('%')[0]}`) yet",
                    f"Make the list before the loop (`{phi.name.split('%')[0]} = []`).")
            self.conflicts.add(root)
            at = next((x for x in ir.walk(s.body) if isinstance(x, ir.Assign)
                       and id(x) in r.ops and set(x.targets) & set(names)), None)
            if at is not None:
                self.conflict_at.setdefault(root, at)

    def unborn_shapes(self, s: ir.Loop):
        """A variable first given a value in the loop `s` whose every exit gives it
        an array of one shape, known before the loop (``v = x * s`` each iteration),
        has that shape from the first exit on: where nothing reads it before (Python
        would raise), it is an array of that shape. (A shape of a value made in the
        loop may be another one in each iteration.)"""
        r = self.result
        inside = ir.all_defined(s.cond + s.body) | {p.name for p in s.phis}

        def before_the_loop(axis):
            return isinstance(axis, int) or isinstance(axis, str) and \
                axis.rpartition(".")[0] not in inside

        for phi in s.phis:
            if not (phi.init is None or phi.unborn or self.saved_none(phi)) or \
                    not isinstance(r.kinds.get(phi.name), ArrayKind):
                continue
            shapes = {r.shapes.get(c.value.id) if isinstance(c.value, ast.Name) else None
                      for x in ir.walk(s.body) if isinstance(x, ir.Exit) for c in x.copies
                      if c.targets[0] == phi.name}
            shape = shapes.pop() if len(shapes) == 1 else None
            if shape is not None and all(before_the_loop(a) for a in shape):
                r.shapes[phi.name] = shape

    def backward(self, body):
        """Usefulness, from the end: an assignment whose result is useful makes the
        inputs it differentiates useful (not a row maximum whose shift cancels:
        `shifts`); a dup whose copy is useful, its source."""
        r = self.result
        useful, shifts, locals_ = r.useful, self.unused_shifts, self.locals
        key = self.key if self.keyed else None  # (else a name's key is the name)
        for s in reversed(body):
            kind = type(s)  # (the commonest first; no class derives from these two)
            if kind is ir.Assign or kind is ir.Dup:
                for t in s.targets:
                    if (key(t) if key else t) in useful:
                        break
                else:
                    continue
                if kind is ir.Dup:
                    if s.source in locals_:  # (`mark_useful`)
                        useful.add(key(s.source) if key else s.source)
                    continue
                op = r.ops[id(s)]
                shift = shifts.get(id(s)) if shifts else None
                for d, x in zip(op.diff, op.inputs):
                    if d and isinstance(x, ast.Name) and x.id != shift and x.id in locals_:
                        useful.add(key(x.id) if key else x.id)
                continue
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
            elif isinstance(s, ir.If):
                self.backward(s.body)
                self.backward(s.orelse)


class _Index:
    """What the analysis asks of the function's statements before it runs, from one
    walk: how often each name is given a value (in order of definition), the
    loop-carried names, the names given None in gradient code s2sad wrote (see
    `_Analysis.restored_kind`), the names that are None wherever they are read
    (`given_none`, for ``off is not None``: `static.StaticTests.is_none`), whether an assignment writes in place or into an
    item, and the expression statements."""

    def __init__(self, fn: ir.Function):
        self.defined, self.phis, self.nones, self.exprs = {}, set(), set(), []
        given_none, dups = set(), []
        self.writes = False
        defined = self.defined
        generated = fn.source is not None and fn.source.generated
        for s in ir.walk(fn.body):
            kind = type(s)  # (no class derives from these two)
            if kind is ir.Assign or kind is ir.Dup:
                for t in s.targets:
                    defined[t] = defined.get(t, 0) + 1
                if kind is ir.Assign:
                    if s.inplace or s.item:
                        self.writes = True
                    if isinstance(s.value, ast.Constant) and s.value.value is None:
                        given_none.update(s.targets)
                        if generated:
                            self.nones.update(s.targets)
                else:
                    dups.append(s)
                continue
            for t in ir.defined_names(s):
                defined[t] = defined.get(t, 0) + 1
            if isinstance(s, ir.Loop):
                self.phis.update(p.name for p in s.phis)
            elif isinstance(s, ir.Expr):
                self.exprs.append(s)
        # the names that are None wherever they are read: given None once, and
        # nothing else, or copies of one (``off = None``, ``off_a, off_b = dup(off)``)
        self.given_none = {n for n in given_none if defined[n] == 1 and n not in self.phis}
        for d in dups:
            if d.source in self.given_none:
                self.given_none.update(d.targets)


def _holds(kinds: dict, cls) -> bool:
    """Is one of the values of `kinds` an instance of `cls` (its types found in C)?"""
    return any(issubclass(t, cls) for t in set(map(type, kinds.values())))


_NAMED = {}  # (`differentiable` of each kind that is a name: "scalar", "int", ...)


def _differentiable(kind) -> bool:
    """`differentiable(kind)`, of a kind that is a name from a table."""
    if type(kind) is not str:
        return differentiable(kind)
    if kind not in _NAMED:
        _NAMED[kind] = differentiable(kind)
    return _NAMED[kind]


def _of_no_library(kind):
    """`kind` (a parameter's) with no array library (`ArrayKind.xp`) in the arrays a
    list or tuple holds: the analysis gives an array parameter's kind none either, so
    an element and an array computed from another (``[w, w * 2.0]``) merge."""
    if isinstance(kind, ArrayKind) and kind.xp is not None:
        return ArrayKind(kind.ndim, kind.dtype, kind.dims, kind.exact)
    if isinstance(kind, ListKind):
        return ListKind(_of_no_library(kind.elem), kind.items if kind.items is None else
                        tuple(map(_of_no_library, kind.items)))
    if isinstance(kind, tuple):
        return tuple(map(_of_no_library, kind))
    return kind


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
