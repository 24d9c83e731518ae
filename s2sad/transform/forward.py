"""forward: dup-form function + activity -> forward-mode derivative (IR).

Contract
--------
`transform(fn, activity, derivative_of)` returns a `Forward`:

* `body`: the function's statements without its ``return``, each followed by the
  lines that compute the tangent of every active name it defines: for a primitive,
  ``t%dot = term + term`` with the forward rule's terms of the active inputs inlined
  from the rule table; a copy, a `dup`, a tuple or list display, an element read and
  an ``append`` move tangents the way the statement moves values; a write
  ``x[i] = v`` writes ``x%dot[i] = v%dot``; a call of a user function that needs a
  derivative, ``t = g(a, b)``, becomes ``t, t%dot = g%jvp(a, b, a%dot, b%dot)``
  (the callee's forward derivative, which takes the tangents of its active
  parameters). Branches keep their shape; a loop gets a tangent phi for every
  active loop-carried name (zero when the name starts inactive), and its exits copy
  tangents along with values.
* `tangents`: per `wrt` parameter, the name of its tangent parameter;
* `output`, `output_dot`: the returned atom and its tangent (a zero of its kind when
  it does not depend on `wrt`);
* `requests`: the callees whose ``%jvp`` functions the body calls.

Only active names (varied and useful, see `activity`) get tangents. A term that may
have a smaller shape than the result (``x%dot`` of ``x + y`` when `x` broadcasts) is
spread to the result's shape with ``np.broadcast_to``; the tangent of an array the
function writes into starts as an array of its own, so a write never reaches a
tangent the caller passed in. No tape: forward mode runs once, alongside the primal.
`derivative_of(callee, active_params, kinds)` is the orchestrator's callback that
names (and schedules) a callee's forward derivative.

This module owns the contract (`Forward`, `Request`), the pass (`_Transform`) and
`BY_KIND`, the table from each kind of operation (`classify.KINDS`) to the method
that writes the tangent lines of an assignment or expression statement of that
kind. May import `common`, `analysis`, `primitives`, `ir` and `runtime`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .. import ir, primitives as rules, runtime
from ..ir.kinds import INT, SCALAR, UNKNOWN, ArrayKind, ListKind, differentiable, kind_of
from ..analysis.activity import Activity
from ..primitives.facts import makes_view
from .common import bind, call_np, missing_rule, zero, zeros_like_list


@dataclass
class Request:
    func: object
    active: tuple  # names of the callee's parameters that carry tangents
    jvp: str


@dataclass
class Forward:
    body: list
    tangents: dict
    output: ast.expr
    output_dot: ast.expr
    output_line: int
    requests: list = field(default_factory=list)
    helpers: dict = field(default_factory=dict)


def dot(n: str) -> str:
    return ir.tangent(n)


def transform(fn: ir.Function, activity: Activity, derivative_of) -> Forward:
    return _Transform(fn, activity, derivative_of).run()


class _Transform:
    """One forward transform.

    Size: near 400 lines, one class because it is one pass whose methods share its
    state (the activity, the helpers and requests of the emitted code); a third of
    it is the methods of `BY_KIND`, one per kind of operation."""

    def __init__(self, fn, activity, derivative_of):
        self.fn = fn
        self.act = activity
        self.derivative_of = derivative_of
        self.requests: list[Request] = []
        self.helpers: dict = {}
        self.temps = 0
        if any(isinstance(k, ArrayKind) for k in activity.kinds.values()):
            import numpy

            self.helpers["np"] = numpy

    def fresh(self) -> str:
        self.temps += 1
        return f"%f{self.temps}"

    def run(self) -> Forward:
        body = list(self.fn.body)
        ret = body.pop() if body and isinstance(body[-1], ir.Return) else None
        output = ret.value if ret else ir.const(None)
        # a parameter without a tangent of its own that activity counts active (a
        # list whose object a varied list may become, through a loop's name) starts
        # with a zero tangent
        out = [ir.Assign((dot(p.name),), self.zero_tangent(p.name), ret.line if ret else 0)
               for p in self.fn.params if p.name in self.act.active and p.name not in self.act.wrt]
        out += self.block(body)
        tangents = {p: dot(p) for p in self.act.wrt}
        return Forward(out, tangents, output, self.tangent_of(output),
                       ret.line if ret else 0, self.requests, self.helpers)

    # --------------------------------------------------------------- helpers

    def active(self, atom) -> bool:
        return self.act.is_active(atom)

    def kind(self, n):
        return self.act.kinds.get(n)

    def tangent_of(self, atom) -> ast.expr:
        """The tangent of an atom: its tangent name, or a zero of its kind."""
        if isinstance(atom, ast.Name) and self.active(atom):
            return ir.name(dot(atom.id))
        if isinstance(atom, ast.Name) and atom.id in self.act.kinds:
            return self.zero_tangent(atom.id)
        return ir.const(0.0)

    def item_tangent(self, atom) -> ast.expr:
        """The tangent of an item put in a tuple or a list: `tangent_of`'s, and for a
        global's or closure's array, list or tuple a zero of its structure, as for a
        local (a number's 0.0 would not stack with the others: ``np.stack([S, x])``)."""
        if isinstance(atom, ast.Name) and atom.id not in self.act.kinds and \
                atom.id in self.fn.refs:
            kind = kind_of(self.fn.refs[atom.id])
            if isinstance(kind, (ArrayKind, ListKind, tuple)):
                return self.zero_of(kind, ir.name(atom.id))
        return self.tangent_of(atom)

    def zero_tangent(self, n: str) -> ast.expr:
        """A zero tangent for the value of `n`, of its kind."""
        kind = self.kind(n)
        if isinstance(kind, ListKind):
            return self.zero_list(n)
        if kind == UNKNOWN:
            # (a value of one structure or another, known at run time: None on
            # one path and a callee's saved values on another)
            return self.zero_of(kind, ir.name(n))
        return self.zero(kind, n)

    def zero(self, kind, like):
        if isinstance(kind, tuple):
            # (with the tuple's structure all the way down: a callee's derivative
            # may unpack it, index a list in it)
            return self.zero_of(kind, ir.name(like))
        if isinstance(kind, ArrayKind):
            return self.np_call("zeros_like", [ir.name(like)])
        if kind == INT:
            # an integer inside a tuple may be read, as a value of unknown kind, by
            # code that multiplies its tangent (a recursive callee): a real zero
            return ir.const(0.0)
        return zero(kind, like)

    def zero_of(self, kind, value: ast.expr) -> ast.expr:
        """A zero tangent for `value` (an expression) of `kind`, with its structure:
        a tuple's items each get one, a list ``[0.0] * len(value)``, an array
        ``np.zeros_like(value)``."""
        if isinstance(kind, tuple):
            return ast.Tuple(elts=[self.zero_of(k, ast.Subscript(
                value=ir.copy_tree(value), slice=ir.const(i), ctx=ast.Load()))
                for i, k in enumerate(kind)], ctx=ast.Load())
        if isinstance(kind, ListKind):
            return self.zeros_of_list(kind, value)
        if isinstance(kind, ArrayKind):
            return self.np_call("zeros_like", [ir.copy_tree(value)])
        if kind == INT:
            return ir.const(0.0)
        if kind == UNKNOWN:
            # (a structure known only at run time: what a recursive callee saved)
            self.helpers["zero_tangent"] = runtime.zero_tangent
            return ast.Call(func=ir.name("zero_tangent"), args=[ir.copy_tree(value)],
                            keywords=[])
        return zero(kind)

    def zero_list(self, n: str) -> ast.expr:
        """The zero tangent of the list `n` (`zeros_of_list`)."""
        kind = self.kind(n)
        return self.zeros_of_list(kind, ir.name(n)) if isinstance(kind, ListKind) \
            else zeros_like_list(n)

    def zeros_of_list(self, kind: ListKind, value: ast.expr) -> ast.expr:
        """The zero tangent of a list (`value`): ``[0.0] * len(xs)`` for numbers, for
        arrays ``list(map(np.zeros_like, xs))``, each an array of its element's shape
        (a matrix product reads it: ``U @ hs_dot[-1]`` of ``hs = [h0]``); for items of
        other structures (a tape holding what callees saved, tuples among numbers)
        `runtime.zero_tangent`, item by item."""
        if isinstance(kind.elem, ArrayKind):
            zeros = self.np_call("zeros_like", [])
            return ast.Call(func=ir.name("list"), args=[ast.Call(
                func=ir.name("map"), args=[zeros.func, ir.copy_tree(value)], keywords=[])],
                keywords=[])
        if kind.elem in (SCALAR, INT) or not differentiable(kind.elem) and kind.elem != UNKNOWN:
            return ast.BinOp(left=ast.List(elts=[ir.const(0.0)], ctx=ast.Load()),
                             op=ast.Mult(), right=ast.Call(func=ir.name("len"), args=[
                                 ir.copy_tree(value)], keywords=[]))
        self.helpers["zero_tangent"] = runtime.zero_tangent
        return ast.Call(func=ir.name("zero_tangent"), args=[ir.copy_tree(value)], keywords=[])

    def np_call(self, func, args) -> ast.Call:
        import numpy

        self.helpers["np"] = numpy
        return call_np(func, args)

    def written(self, n: str) -> bool:
        return self.act.root(n) in self.act.written

    def feeds_written(self) -> set:
        """Roots of arrays that become a written loop-carried array (its first value,
        or the value an iteration hands the next): the same object, written through
        the carried name."""
        if getattr(self, "_feeds", None) is None:
            act, links = self.act, []
            for s in ir.walk(self.fn.body):
                if isinstance(s, ir.Loop):
                    links += [(p.name, p.init) for p in s.phis]
                elif isinstance(s, ir.Exit):
                    links += [(c.targets[0], c.value) for c in s.copies]
            feeds, changed = set(), True
            while changed:
                changed = False
                for phi, value in links:
                    if isinstance(value, ast.Name) and act.root(value.id) not in feeds and (
                            self.written(phi) or act.root(phi) in feeds):
                        feeds.add(act.root(value.id))
                        changed = True
            self._feeds = feeds
        return self._feeds

    def own_array(self, target: str, value: ast.expr, s=None) -> ast.expr:
        """The tangent of an array must be an array of its own where it may be another
        tangent (or a view of one) and either array is written into: copy it. (The
        arrays are two objects, ``z = y + b`` with `b` constant: a write into `y`
        must not change `z`'s tangent, nor one into `z` `y`'s.) Where the statement
        `s` makes a view (``t = y[:, 1]``), its tangent is the view of `y`'s that it
        is; `writes` refuses what a write into `y` would change."""
        if not self.act.written or not isinstance(self.kind(target), ArrayKind) \
                or not _may_share(value):
            return value
        if self.changed(target):
            return self.np_call("array", [value])
        op = self.act.ops.get(id(s)) if s is not None else None
        if op is not None and makes_view(op, self.kind(target), self.input_kind):
            return value
        source = value
        while isinstance(source, ast.Subscript) or isinstance(source, ast.Call) and source.args:
            source = source.value if isinstance(source, ast.Subscript) else source.args[0]
        base = source.id[:-len(_DOT)] if isinstance(source, ast.Name) \
            and source.id.endswith(_DOT) else None
        if base is not None and any(self.changed(n) for n in self.act.viewed_roots(base)
                                    + [base]):
            return self.np_call("array", [value])
        return value

    def changed(self, n: str) -> bool:
        """Is `n`'s array written into, or one a written loop-carried array becomes?"""
        return self.written(n) or self.act.root(n) in self.feeds_written()

    # ------------------------------------------------------------ statements

    def block(self, body) -> list:
        out = []
        for s in body:
            out.extend(self.statement(s))
        return out

    def statement(self, s) -> list:
        if isinstance(s, (ir.Assign, ir.Expr)):
            return self.operation(s)
        if isinstance(s, ir.Dup):
            copies = [t for t in s.targets if t in self.act.active]
            if s.source not in self.act.active or not copies:
                return [s]
            return [s, ir.Dup(tuple(dot(t) for t in s.targets), dot(s.source), s.line)]
        if isinstance(s, ir.SetItem):
            c = s.container
            if c not in self.act.active:
                return [s]
            target = ast.Subscript(value=ir.name(dot(c)), slice=ir.copy_tree(s.target.slice),
                                   ctx=ast.Store())
            return [s, ir.SetItem(target, self.tangent_of(s.value), s.line)]
        if isinstance(s, ir.If):
            return [ir.If(s.test, self.block(s.body), self.block(s.orelse), s.line)]
        if isinstance(s, ir.Loop):
            return [self.loop(s)]
        if isinstance(s, ir.Exit):
            copies, zeroed = [], {}
            for c in s.copies:
                copies.extend(self.shared_zero(c, zeroed) or self.statement(c))
            return [ir.Exit(copies, s.brk, s.line)]
        return [s]

    def loop(self, s: ir.Loop) -> ir.Loop:
        phis = list(s.phis)
        for p in s.phis:
            if p.name not in self.act.active:
                continue
            init = self.tangent_of(p.init) if p.init is not None else None
            phis.append(ir.Phi(dot(p.name), init))
        return ir.Loop(s.target, s.iter, self.block(s.body), phis, s.line, s.tag,
                       self.block(s.cond), s.test)

    # ------------------------------------------------- operations, by kind

    def operation(self, s) -> list:
        """An assignment or an expression statement and the lines of its tangents:
        `BY_KIND`'s method for the kind of its operation, given `target`, the active
        name the statement defines (None for an expression statement, and for an
        assignment whose value does not vary). An active unpacking ``a, b = t`` is
        the same for every kind (`unpack`)."""
        op = self.act.op(s)
        active = [t for t in s.targets if t in self.act.active] \
            if isinstance(s, ir.Assign) else []
        if active and s.unpack:
            return self.unpack(s, active)
        return BY_KIND[op.kind](self, s, op, active[0] if active else None)

    def unpack(self, s: ir.Assign, active) -> list:
        line = s.line
        if self.active(s.value):
            targets = tuple(dot(t) for t in s.targets)
            return [s, ir.Assign(targets, ir.name(dot(s.value.id)), line, unpack=True)]
        # no input varies here (another path may make the targets vary): each
        # active target's tangent is a zero of the value it takes on this path,
        # with that value's structure (a saved tuple the callee's derivative
        # unpacks); its own tangent name would be unbound, or a stale one
        kinds = self.kind(s.value.id) if isinstance(s.value, ast.Name) else None
        if not (isinstance(kinds, tuple) and len(kinds) == len(s.targets)):
            kinds = tuple(self.kind(t) for t in s.targets)
        return [s] + [ir.Assign((dot(t),), self.zero_of(k, ir.name(t)), line)
                      for t, k in zip(s.targets, kinds) if t in active]

    def tangent(self, s, target, value, own=True) -> list:
        """`s` and the lines that give `target` its tangent: `value` is ``(lines,
        expression)``, or None when no input carries a tangent (a constant the
        function then makes vary, as a written array: a zero of its kind). With
        `own`, the tangent of an array the function writes into is made an array of
        its own (`own_array`)."""
        line = s.line
        if value is None:
            kind = self.kind(target)
            zero_value = self.zero_list(target) if isinstance(kind, ListKind) else \
                self.zero_of(kind, ir.name(target)) if kind == UNKNOWN else \
                self.zero(kind, target)
            return [s, ir.Assign((dot(target),), zero_value, line)]
        assigns, value = value
        out = [s] + [ir.Assign((n,), e, line) for n, e in assigns]
        if own:
            value = self.own_array(target, value, s)
        out.append(ir.Assign((dot(target),), value, line))
        return out

    def no_tangent(self, s, op, target) -> list:
        """A constant, or a result no derivative flows through (activity refuses an
        active operation of unknown kind before): a zero tangent where the name
        varies on another path."""
        return [s] if target is None else self.tangent(s, target, None)

    def shared_zero(self, c, zeroed: dict):
        """An exit's copy that hands an array without a tangent to a carried name
        with one, where an earlier copy of the exit handed the same array to a name
        of the same object (``u = v`` in the loop, `u` written after it): its tangent
        is that name's zero (two zeros would part the object's tangent). None for
        any other copy; `zeroed` maps (the object, the array) to the first name."""
        if not (isinstance(c, ir.Assign) and len(c.targets) == 1 and isinstance(
                c.value, ast.Name) and c.targets[0] in self.act.active and not self.active(
                c.value) and isinstance(self.kind(c.targets[0]), ArrayKind)):
            return None
        key = (self.act.root(c.targets[0]), self.act.root(c.value.id))
        if key not in zeroed:
            zeroed[key] = c.targets[0]
            return None
        return [c, ir.Assign((dot(c.targets[0]),), ir.name(dot(zeroed[key])), c.line)]

    def copy_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        (x,) = op.inputs
        # (a copy is the same array, with the same tangent)
        return self.tangent(s, target, ([], ir.name(dot(x.id))) if self.active(x) else None,
                            own=False)

    def pack_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        if not any(self.active(x) for x in op.inputs):
            return self.tangent(s, target, None)
        return self.tangent(s, target, ([], ast.Tuple(
            elts=[self.item_tangent(x) for x in op.inputs], ctx=ast.Load())))

    def tuplecat_tangent(self, s, op, target) -> list:
        """``v = t + u`` of tuples: ``v_dot = t_dot + u_dot`` (an inactive one's tangent
        a tuple of zeros, as long as it)."""
        if target is None:
            return [s]
        if not any(self.active(x) for x in op.inputs):
            return self.tangent(s, target, None)
        left, right = (self.tangent_of(x) if self.active(x) else
                       _zeros_of_items(x, self.act.atom_kind(x, self.fn.refs))
                       for x in op.inputs)
        return self.tangent(s, target, ([], ast.BinOp(left=left, op=ast.Add(), right=right)))

    def listpack_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        if not any(self.active(x) for x in op.inputs):
            return self.tangent(s, target, None)
        return self.tangent(s, target, ([], ast.List(
            elts=[self.item_tangent(x) for x in op.inputs], ctx=ast.Load())))

    def getitem_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        container, index = op.inputs
        if not self.active(container):
            return self.tangent(s, target, None)
        return self.tangent(s, target, ([], ast.Subscript(
            value=ir.name(dot(container.id)), slice=ir.copy_tree(index), ctx=ast.Load())))

    def concat_tangent(self, s, op, target) -> list:
        """``v = xs + ys`` of lists: ``v_dot = xs_dot + ys_dot`` (an inactive one's
        tangent a list of zeros as long as it)."""
        if target is None:
            return [s]
        if not any(self.active(x) for x in op.inputs):
            return self.tangent(s, target, None)
        left, right = (ir.name(dot(x.id)) if self.active(x) else self.zero_list(x.id)
                       for x in op.inputs)
        return self.tangent(s, target, ([], ast.BinOp(left=left, op=ast.Add(), right=right)))

    def repeat_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        xs, n = op.inputs
        if not self.active(xs):
            return self.tangent(s, target, None)
        return self.tangent(s, target, ([], ast.BinOp(left=ir.name(dot(xs.id)), op=ast.Mult(),
                                                      right=ir.copy_tree(n))))

    def sum_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        (xs,) = op.inputs
        if not self.active(xs):
            return self.tangent(s, target, None)
        return self.tangent(s, target, ([], ast.Call(func=ir.name("sum"),
                                                     args=[ir.name(dot(xs.id))], keywords=[])))

    def pop_tangent(self, s, op, target) -> list:
        (xs,) = op.inputs
        if target is not None:
            return self.tangent(s, target, ([], self.pop(xs, op)) if self.active(xs)
                                else None)
        if isinstance(xs, ast.Name) and xs.id in self.act.active:
            # ``xs.pop()`` for its effect, or its value unused: the tangent list loses
            # its last element too, or ``xs[-1]`` would read another element's tangent
            return [s, ir.Expr(self.pop(xs, op), s.line)]
        return [s]

    def append_tangent(self, s, op, target) -> list:
        if target is not None:
            return self.tangent(s, target, None)
        xs, v = op.inputs
        if isinstance(s, ir.Expr) and xs.id in self.act.active:
            place = [ir.copy_tree(op.options["at"])] if "at" in op.options else []
            call = ast.Call(func=ast.Attribute(value=ir.name(dot(xs.id)),
                                               attr="insert" if place else "append",
                                               ctx=ast.Load()),
                            args=place + [self.item_tangent(v)], keywords=[])
            return [s, ir.Expr(call, s.line)]
        return [s]

    def add_at_tangent(self, s, op, target) -> list:
        """``np.add.at(a, i, v)`` and ``add_into(acc, parts)``: the same call on the
        tangents."""
        if target is not None:
            return self.tangent(s, target, None)
        if not isinstance(s, ir.Expr):
            return [s]
        acc, v = op.inputs[0], op.inputs[-1]
        if acc.id in self.act.active and self.active(v):
            args = [ir.name(dot(acc.id))] + [ir.copy_tree(a) for a in op.inputs[1:-1]]
            call = ast.Call(func=ir.copy_tree(s.value.func),
                            args=args + [ir.name(dot(v.id))], keywords=[])
            return [s, ir.Expr(call, s.line)]
        return [s]

    def call_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        if not any(self.active(x) for x in op.inputs):
            return self.tangent(s, target, None)
        return self.call(s, op, target)

    def rule_tangent(self, s, op, target) -> list:
        if target is None:
            return [s]
        return self.tangent(s, target, self.rule_terms(s, op, target))

    def rule_terms(self, s, op, target):
        """``(lines, expression)`` for the tangent of `target` computed by a rule, or
        None when no input carries a tangent."""
        inputs = op.inputs
        wanted = [i for i, x in enumerate(inputs) if self.active(x)]
        if not wanted:
            return None
        rule = rules.lookup(op.key, len(inputs), "forward",
                            [self.input_kind(x) for x in inputs])
        rule = next((r for r in rules.candidates(op.key, "forward")
                     if (r.arity, r.when) == (op.rule.arity, op.rule.when)), rule)
        if rule is None:
            raise missing_rule(self.fn, s, op, "forward")
        seeds = [ir.name(dot(x.id)) if i in wanted else None for i, x in enumerate(inputs)]
        assigns, terms = rule.instantiate(inputs, ir.name(target), seeds, wanted,
                                          self.fresh, op.options)
        used = set()
        for e in [e for _, e in assigns] + list(terms.values()):
            used |= set(ir.names_in(e))
        self.helpers.update({n: v for n, v in rules.helper_objects(rule.template).items()
                             if n in used})
        parts = [terms[i] for i in wanted if i in terms]
        if not parts:
            return None
        total = parts[0]
        for p in parts[1:]:
            total = ast.BinOp(left=total, op=ast.Add(), right=p)
        total = rules.fold(total)
        if _elementwise(op.key) and not self.full_shape(total, inputs, target):
            if isinstance(self.kind(target), ArrayKind):
                total = self.np_call("broadcast_to", [total, self.np_call("shape", [
                    ir.name(target)])])
            else:  # (a number or an array, unknown here: zeros of its structure added)
                self.helpers["zero_tangent"] = runtime.zero_tangent
                total = ast.BinOp(left=total, op=ast.Add(), right=ast.Call(
                    func=ir.name("zero_tangent"), args=[ir.name(target)], keywords=[]))
        return assigns, total

    def pop(self, xs, op) -> ast.Call:
        place = [ir.copy_tree(op.options["at"])] if "at" in op.options else []
        return ast.Call(func=ast.Attribute(value=ir.name(dot(xs.id)), attr="pop", ctx=ast.Load()),
                        args=place, keywords=[])

    def input_kind(self, atom):
        return self.act.atom_kind(atom, self.fn.refs)

    def full_shape(self, term, inputs, target) -> bool:
        """Has `term` (the tangent of the result of an elementwise operation) certainly
        the shape of `target`? Yes when the result is not an array, when the term reads
        the result or a value of its shape, or when it reads every array input (or its
        tangent): ``x%dot * y`` of ``x * y`` broadcasts to the result's shape,
        ``x%dot`` of ``x + y`` (with `y` held fixed) has only `x`'s. An input of a kind
        not known here (an array read from a dict of settings) may be an array too."""
        if self.kind(target) in (SCALAR, INT):
            return True
        names = set(ir.names_in(term))
        primal = {n[: -len("%dot")] if n.endswith("%dot") else n for n in names}
        if target in primal or any(n in self.act.shapes and self.act.same_shape(n, target)
                                   for n in primal):
            return True
        arrays = [x.id for x in inputs if isinstance(x, ast.Name)
                  and self.kind(x.id) not in (SCALAR, INT)]
        return all(x in names or dot(x) in names for x in arrays)

    def call(self, s, op, target) -> list:
        callee = op.key
        bound = bind(callee, s.value, self.fn, s.line)
        active = tuple(p for p, atom in bound if self.active(atom))
        kinds = {p: self.input_kind(atom) for p, atom in bound}
        jvp = self.derivative_of(callee, active, kinds)
        if all(r.jvp != jvp for r in self.requests):
            self.requests.append(Request(callee, active, jvp))
        dots = [ir.name(dot(atom.id)) for p, atom in bound if p in active]
        call = ast.Call(func=ir.name(jvp), args=dots + list(s.value.args),
                        keywords=list(s.value.keywords))
        return [ir.Assign((target, dot(target)), call, s.line, unpack=True)]


# What forward mode does for each kind of operation `classify` names (every kind in
# `classify.KINDS` has an entry): ``method(transform, statement, op, target)`` returns
# the statement and the lines of its tangents (see `_Transform.operation`).
def _zeros_of_items(x, kind) -> ast.expr:
    """The tangent of a tuple `x` (an atom of tuple `kind`) that carries none: a tuple
    of zeros, an array's ``np.zeros_like`` of it (a number's 0.0 would not stack
    with arrays: ``np.hstack(args + (ones,))``)."""
    return ast.Tuple(elts=[call_np("zeros_like", [ast.Subscript(
        value=ir.copy_tree(x), slice=ir.const(i), ctx=ast.Load())])
        if isinstance(k, ArrayKind) else zero(k) for i, k in enumerate(kind)], ctx=ast.Load())


BY_KIND = {
    "copy": _Transform.copy_tangent,
    "const": _Transform.no_tangent,
    "rule": _Transform.rule_tangent,
    "call": _Transform.call_tangent,
    "pack": _Transform.pack_tangent, "tuplecat": _Transform.tuplecat_tangent,
    "getitem": _Transform.getitem_tangent,
    "listpack": _Transform.listpack_tangent,
    "append": _Transform.append_tangent,
    "pop": _Transform.pop_tangent,
    "repeat": _Transform.repeat_tangent,
    "concat": _Transform.concat_tangent,
    "add_at": _Transform.add_at_tangent,
    "add_into": _Transform.add_at_tangent,
    "sum": _Transform.sum_tangent,
    "nondiff": _Transform.no_tangent,
    "inactive": _Transform.no_tangent,  # (activity refuses an active one)
    "unknown": _Transform.no_tangent,
}


# tangent expressions that may be views of another tangent (`own_array` copies them:
# ``x.flatten()``'s tangent is ravel's; `np.asarray` of an array is refused as a view
# before, of a list it makes a new array)
_VIEWS = {"np.broadcast_to", "np.ravel", "np.reshape", "np.transpose", "np.squeeze",
          "np.expand_dims", "np.swapaxes", "np.moveaxis"}
_DOT = ir.tangent("")  # (the end of a tangent's name)


def _may_share(value) -> bool:
    """May a tangent expression be another tangent, or a view of one (a name, a
    subscript or a view-making call of one, and so on), or an array no write may go
    into (``np.broadcast_to``'s, read-only)?"""
    while isinstance(value, (ast.Subscript, ast.Call)):
        if isinstance(value, ast.Call):
            if ir.dotted(value.func) == "np.broadcast_to":
                return True
            if ir.dotted(value.func) not in _VIEWS or not value.args:
                return False
            value = value.args[0]
        else:
            value = value.value
    return isinstance(value, ast.Name)


def _elementwise(key) -> bool:
    """Does the primitive broadcast its inputs against each other (so one input's
    term may be smaller than the result)? Matrix products, reductions and shape
    functions give terms of the result's shape."""
    if isinstance(key, str):
        return key != "matmul"
    import numpy as np

    if isinstance(key, np.ufunc):
        return key.signature is None
    return key in (np.where, np.clip)

