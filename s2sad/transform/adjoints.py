"""adjoints: the reverse of one operation, by the kind `classify` gives it.

Owns `BY_KIND`, the table from each kind of operation (`classify.KINDS`) to the
method that reverses an assignment or an expression statement of that kind, and
`OperationAdjoints`, those methods: the inlined reverse rule of a primitive, the
``%bwd`` call of a user function, the adjoints of copies, tuples, lists, element
reads and sums, and the refusals (`NotDifferentiableError`, `NoRuleError`) for what
reverse mode cannot differentiate. The class is a mixin: its methods read the state
of `reverse._Transform` (the activity, the callee requests `forward_call` made, the
helpers the emitted code reads) and call its `set_adj` and `np_call`.
May import `common`, `primitives`, `ir` and `errors`; `reverse` imports it.
"""

from __future__ import annotations

import ast

from .. import ir, runtime
from ..errors import NotDifferentiableError
from ..ir.kinds import INT, SCALAR, UNKNOWN, ArrayKind, ListKind
from ..primitives.facts import shape_rule
from ..primitives.shape_rules import elementwise as broadcast_rule
from .common import adj, missing_rule, slices_as_calls, zero
from .containers import ContainerAdjoints
from .scatter import ScatterAdjoints


class OperationAdjoints:
    """The reverse of one operation, as methods of `reverse._Transform` (see the
    module docstring).

    Size: about 300 lines, one short method per kind of operation (`BY_KIND`) and
    the refusals, all reading the transform's one state."""

    def reverse_operation(self, s) -> list:
        """The reverse of an assignment or an expression statement: `BY_KIND`'s
        method for the kind of its operation, given `out_bar`, the adjoint of the
        active value the statement defines (None for an expression statement, and
        for an assignment whose value the output does not depend on). An active
        unpacking ``a, b = t`` is the same for every kind (`reverse_unpack`)."""
        op = self.act.ops[id(s)]
        if not isinstance(s, ir.Assign):
            return BY_KIND[op.kind](self, s, op, None)
        active = self.act.active
        for t in s.targets:
            if t in active:
                break
        else:
            return BY_KIND[op.kind](self, s, op, None)
        if self.nested_lists is not False:  # (None: not asked yet)
            self.refuse_nested_lists(s, op)
        if s.unpack:
            return self.reverse_unpack(s)
        (target,) = s.targets
        # (a container's adjoint is its object's: made at a join, it is named for
        # the object made on another path)
        out_bar = ir.name(self.acc(target) if self.act.containers and self.is_container(target)
                          else adj(target))
        return BY_KIND[op.kind](self, s, op, out_bar)

    def refuse_nested_lists(self, s: ir.Assign, op):
        """Refuse an active assignment that reads or makes a list inside a tuple, or
        a list of tuples or lists (`NotDifferentiableError`)."""
        if self.nested_lists is None:  # (does any value hold one? asked once)
            kinds = self.act.kinds.values()  # (only a tuple or a list can hold one)
            self.nested_lists = any(issubclass(t, (tuple, ListKind)) for t in
                                    set(map(type, kinds))) and any(map(_nested_list, kinds))
        names = [t for t in s.targets if t in self.act.active] + [
            x.id for x in op.inputs if self.act.is_active(x)] if self.nested_lists else []
        if any(_nested_list(self.act.kinds.get(n)) for n in names) and not (
                op.kind in ("listpack", "pack", "copy", "rule") and not s.unpack
                and all(_lists_only(self.act.kinds.get(n)) for n in names)):
            # (lists of lists built by displays and handed to NumPy, as in
            # ``np.array([[a, b], [c, d]])``, are fine: their adjoints are lists of rows;
            # so is a tuple display of them, ``np.concatenate((x, [a, b]))``)
            line = s.line
            info = self.fn.source
            raise NotDifferentiableError(
                "s2sad cannot differentiate a list inside a tuple, or a list of tuples or "
                "lists, in reverse mode yet",
                filename=info.filename if info else None, lineno=line or None,
                source_line=info.line_text(line) if info and line else None,
                hint="Read a list of pairs you build with `for a, b in pts:`, `pts[i]` or "
                     "len(pts), which s2sad takes as one list per position; or keep one flat "
                     "list per value (xs.append(a); ys.append(b)), or use a NumPy array.")

    def reverse_unpack(self, s: ir.Assign) -> list:
        value = s.value
        if not self.act.is_active(value):
            return []
        kind = self.act.kinds.get(value.id)
        # an item with no adjoint: zeros of its shape in an array, None for
        # `unpacked_bar` (a value of unseen kind, an array or a tuple when it runs),
        # else its kind's zero (a list's parts are added into its adjoint list, whose
        # elements are zeros of their kinds already: 0.0 adds nothing)
        if isinstance(kind, ArrayKind):
            missing = lambda t: self.np_call("zeros_like", [ir.name(t)])  # noqa: E731
        elif kind == UNKNOWN:
            missing = lambda t: ir.const(None)  # noqa: E731
        else:
            list_ = self.is_list(value.id)
            missing = lambda t: zero(self.act.kinds.get(t), None if list_ else t)  # noqa: E731
        whole = ast.Tuple(elts=[ir.name(adj(t)) if t in self.act.active else missing(t)
                                for t in s.targets], ctx=ast.Load())
        if isinstance(kind, ArrayKind):
            # (an array unpacked along its first axis: its adjoint is the array of its
            # items' adjoints, not a tuple, which `*` and `+` would repeat or join)
            whole = self.np_call("stack", [whole])
        elif kind == UNKNOWN:
            self.helpers["unpacked_bar"] = runtime.unpacked_bar
            whole = ast.Call(func=ir.name("unpacked_bar"), args=[ir.name(value.id), whole],
                             keywords=[])
        return [self.set_adj(value.id, whole, s.line)]

    def no_adjoint(self, s, op, out_bar) -> list:
        """A constant, or a result no derivative flows through (activity refuses an
        active operation of unknown kind before): nothing to reverse."""
        return []

    def refuse_active(self, s, op, out_bar) -> list:
        """An operation reverse mode cannot differentiate yet: refused where its
        result is active."""
        if out_bar is not None:
            raise self.unsupported(s, op)
        return []

    def reverse_copy(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (target,) = s.targets
        if self.is_container(target):
            source = op.inputs[0].id
            if self.act.root(source) == self.act.root(target):
                return []  # the same object: its adjoint is shared
            return self.hand_over(target, source, s.line)
        if self.is_list(target):
            return []  # the same list object: its adjoint list is shared
        (x,) = op.inputs
        return [self.set_adj(x.id, out_bar, s.line)] if self.act.is_active(x) else []

    def reverse_listpack(self, s, op, out_bar) -> list:
        if out_bar is None or not self.is_list(s.targets[0]):
            return []
        kind = self.act.kinds.get(s.targets[0])
        if isinstance(kind, ListKind) and kind.elem == UNKNOWN and op.inputs and all(
                self.act.kinds.get(x.id) != UNKNOWN for x in op.inputs
                if isinstance(x, ast.Name)):
            # (``[x, (y, 2.0)]``: items whose kinds merge to none, whose adjoints
            # one list of zeros would not hold)
            raise _refusal(self.fn, s.line,
                           "s2sad cannot differentiate a list whose items are of different "
                           "kinds (a number and a tuple, say) in reverse mode yet",
                           "Make it a tuple, `(x, (y, 2.0))`, whose items may differ, or "
                           "keep one list per kind of item.")
        acc = ir.name(self.acc(s.targets[0]))
        return [self.set_adj(x.id, ast.Subscript(value=acc, slice=ir.const(i),
                                                 ctx=ast.Load()), s.line)
                for i, x in enumerate(op.inputs) if self.act.is_active(x)]

    def reverse_pack(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        return [self.set_adj(x.id, ast.Subscript(value=out_bar, slice=ir.const(i),
                                                 ctx=ast.Load()), s.line)
                for i, x in enumerate(op.inputs) if self.act.is_active(x)]

    def reverse_tuplecat(self, s, op, out_bar) -> list:
        """``v = t + u`` of tuples: `t`'s adjoint the first ``len(t)`` items of `v`'s
        (a tuple of them, as a display's is), `u`'s the rest."""
        if out_bar is None:
            return []
        t, u = op.inputs
        n = len(self.act.atom_kind(t, self.fn.refs))
        parts = ((t, ast.Slice(upper=ir.const(n))), (u, ast.Slice(lower=ir.const(n))))
        return [self.set_adj(x.id, ast.Subscript(value=ir.copy_tree(out_bar), slice=part,
                                                 ctx=ast.Load()), s.line)
                for x, part in parts if self.act.is_active(x)]

    def reverse_pop(self, s, op, out_bar) -> list:
        """``v = xs.pop()``: `v`'s adjoint back on the list's (`reverse_unread_pop`);
        a popped array with an adjoint is refused (it would go in by reference)."""
        if out_bar is not None and self.act.kinds.get(s.targets[0]) not in (SCALAR, INT):
            raise self.unsupported(s, op)
        return self.reverse_unread_pop(s, out_bar)

    def reverse_append(self, s, op, out_bar) -> list:
        if not isinstance(s, ir.Expr):
            return []
        xs, v = op.inputs
        at = [op.options["at"]] if "at" in op.options else []  # (``xs.insert(at, v)``)
        # the list as it was before the append, for what the reverse sweep
        # reads of it afterwards (`simplify` drops this when nothing does)
        restore = ir.Expr(_method(xs.id, "pop", at), s.line, restore=True)
        if xs.id not in self.act.active:
            return [restore]
        pop = _method(self.acc(xs.id), "pop", at)
        if self.act.is_active(v):
            return [self.set_adj(v.id, pop, s.line), restore]
        return [ir.Expr(pop, s.line), restore]  # keep the adjoint list aligned

    def reverse_add_at(self, s, op, out_bar) -> list:
        """``add_into(acc, parts)`` into an active array or list (the Hessian's
        sweep over gradient code) is refused; so is an ``np.add.at`` into one that
        `scatter` does not follow."""
        if isinstance(s, ir.Expr) and op.inputs[0].id in self.act.active:
            raise self.unsupported(s, op)
        return []

    def reverse_sum(self, s, op, out_bar) -> list:
        (xs,) = op.inputs
        if out_bar is None or not self.act.is_active(xs):
            return []
        kind = self.act.kinds.get(xs.id)
        if isinstance(kind, tuple):  # (a tuple's adjoint: a tuple)
            items = [out_bar if all(k in (SCALAR, INT) for k in kind) else self.summed_item(
                out_bar, ast.Subscript(value=ir.name(xs.id), slice=ir.const(i),
                                       ctx=ast.Load())) for i in range(len(kind))]
            return [self.set_adj(xs.id, ast.Tuple(elts=items, ctx=ast.Load()), s.line)]
        if isinstance(self.act.kinds.get(xs.id), ArrayKind):  # (the sum of its rows: each
            # row's adjoint is the sum's, added into an array adjoint where it has one)
            row = out_bar if self.is_container(xs.id) else ast.BinOp(
                left=self.np_call("zeros_like", [ir.name(xs.id)]), op=ast.Add(), right=out_bar)
            return [self.set_adj(xs.id, row, s.line)]
        _list_summed(self.fn, s, kind)
        acc = ir.name(self.acc(xs.id))
        item = ast.Subscript(value=acc, slice=ir.name("%k"), ctx=ast.Load())
        every = ast.Call(func=ir.name("range"), args=[ast.Call(
            func=ir.name("len"), args=[acc], keywords=[])], keywords=[])
        if kind.elem not in (SCALAR, INT):
            out_bar = self.summed_item(out_bar, ast.Subscript(
                value=ir.name(xs.id), slice=ir.name("%k"), ctx=ast.Load()))
        return [ir.ForEach("%k", every, [ir.AugAssign(item, out_bar, s.line)], s.line)]

    def summed_item(self, out_bar, item) -> ast.expr:
        """The adjoint of `item`, one of the values the built-in ``sum`` added: the
        sum's adjoint summed over the axes broadcasting gave it beyond the item's own
        (``sum((W, b))`` of a matrix and a vector: the vector's adjoint is a vector,
        a number's a number)."""
        self.helpers["unbroadcast"] = runtime.unbroadcast
        return ast.Call(func=ir.name("unbroadcast"), args=[out_bar, item], keywords=[])

    def reverse_getitem(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (target,) = s.targets
        line = s.line
        container, index = op.inputs
        if not self.act.is_active(container):
            return []
        kind = self.act.kinds[container.id]
        if isinstance(kind, ListKind) and isinstance(index, ast.Slice) \
                and self.is_list(target):
            return [self.reverse_list_slice(container.id, index, target, line)]
        if isinstance(kind, ListKind):
            item = ast.Subscript(value=ir.name(self.acc(container.id)), slice=index,
                                 ctx=ast.Load())
            return [ir.AugAssign(item, out_bar, line)]
        if isinstance(kind, ArrayKind):
            acc = ir.name(self.acc(container.id))
            if self.fancy(index):  # repeated indices must add up: np.add.at
                add_at = ast.Attribute(value=ast.Attribute(value=ir.name("np"), attr="add",
                                                           ctx=ast.Load()),
                                       attr="at", ctx=ast.Load())
                self.np_call("add", [])
                return [ir.Expr(ast.Call(func=add_at, args=[acc, slices_as_calls(index),
                                                            out_bar],
                                         keywords=[]), line)]
            item = ast.Subscript(value=acc, slice=index, ctx=ast.Load())
            return [ir.AugAssign(item, out_bar, line)]
        picked = ir.constant_slice(index)
        if picked is not None:  # (``t[1:]``: each picked item's adjoint, in its place)
            at = {j: k for k, j in enumerate(range(len(kind))[picked])}
            parts = [ast.Subscript(value=ir.copy_tree(out_bar), slice=ir.const(at[j]),
                                   ctx=ast.Load()) if j in at else zero(k)
                     for j, k in enumerate(kind)]
            return [self.set_adj(container.id, ast.Tuple(elts=parts, ctx=ast.Load()), line)]
        if not isinstance(index, ast.Constant):
            # an index known at run time only (a loop over the tuple): the adjoint
            # goes to the item it read, ``(g if i == 0 or i == -2 else 0.0, ...)``
            n = len(kind)
            parts = [ast.IfExp(test=_equals_one_of(index, (j, j - n)), body=out_bar,
                               orelse=zero(k)) for j, k in enumerate(kind)]
            return [self.set_adj(container.id, ast.Tuple(elts=parts, ctx=ast.Load()),
                                 line)]
        i = index.value % len(kind)
        parts = [out_bar if j == i else zero(k) for j, k in enumerate(kind)]
        return [self.set_adj(container.id, ast.Tuple(elts=parts, ctx=ast.Load()), line)]

    def reverse_rule(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (target,) = s.targets
        line = s.line
        if op.rule.mode != "reverse":
            raise self.missing_rule(s, op, "reverse")
        active = self.act.active
        wanted = [i for i, x in enumerate(op.inputs)
                  if isinstance(x, ast.Name) and x.id in active]  # (`Activity.is_active`)
        # (an adjoint masked by np.where goes through the rule as its unmasked value,
        # the mask put around each term: `masks`)
        mask = self.mask_through(op, target, wanted) if self.masks else None
        seed = ir.name(self.fresh()) if mask else out_bar
        rule = self.rule_of(op)
        assigns, terms = rule.instantiate(op.inputs, ir.name(target), [seed], wanted,
                                          self.fresh, op.options)
        # (the functions the rule calls: a call of another is not in its instance)
        calls = _calls_in(rule.template, self.template_calls) if self.act.shapes else ()
        if self.act.shapes and "unbroadcast" in calls:  # (else none is known needless)
            terms = {i: _needless_unbroadcast_dropped(self.act, e, target, op.key)
                     for i, e in terms.items()}
        self.branch_masks(op, target, out_bar, terms)
        bound = self.unmasked_seed(seed, mask, assigns, terms, line) if mask else []
        helpers, own = rule.template.helpers, self.helpers
        for n, v in helpers.items():
            if own.get(n, self) is not v:
                used = {n for e in [e for _, e in assigns] + list(terms.values())
                        for n in ir.names_in(e)}  # (an unbroadcast dropped needs no import)
                own.update({n: v for n, v in helpers.items() if n in used})
                break
        # (`shape_donor` gives each expression back as it is without shapes, in a
        # reversed loop, or without a call that reads a shape)
        donor = self.shape_donor if self.act.shapes and not self.accumulators \
            and not _SHAPE_READERS.isdisjoint(calls) else _same
        out = bound + [ir.Assign((n,), donor(e), line) for n, e in assigns]
        if mask:
            return out + self.masked_terms(
                op.inputs, target,
                {i: donor(terms[i]) for i in wanted if i in terms}, mask, line)
        for i in wanted:
            if i in terms:
                out.append(self.set_adj(op.inputs[i].id, donor(terms[i]), line))
        return out

    def reverse_call(self, s, op, out_bar) -> list:
        if out_bar is None or id(s) not in self.calls:
            return []  # (no active argument: the call's result is a constant)
        (target,) = s.targets
        line = s.line
        request, bound = self.calls[id(s)]
        names = [atom.id for p, atom in bound if p in request.active]
        call = ast.Call(func=ir.name(request.bwd),
                        args=[ir.name(ir.derived(target, "saved")), out_bar], keywords=[])
        # an adjoint that accumulates over a loop's iterations, or belongs to a list
        # or array object (one written into, or read by index), receives this
        # call's part
        added = [self.is_accumulator(n) or self.is_container(n) for n in names]
        parts = tuple(ir.derived(adj(n), "part") if a else adj(n)
                      for n, a in zip(names, added))
        out = [ir.Assign(parts, call, line, unpack=len(parts) > 1)]
        return out + [self.set_adj(n, ir.name(t), line)
                      for n, t, a in zip(names, parts, added) if a]

    def unsupported(self, s, op):
        info = self.fn.source
        text = info.line_text(s.line) if info and s.line else None
        return NotDifferentiableError(
            f"s2sad cannot differentiate {op.name} in reverse mode yet",
            filename=info.filename if info else None, lineno=s.line or None,
            source_line=text, hint=_ADD_AT_HINT if op.kind == "add_at" else
            "Build the list with append and read it by index.")

    def missing_rule(self, s, op, mode):
        return missing_rule(self.fn, s, op, mode)

    def fancy(self, index) -> bool:
        """Could this index name one element twice (an integer array or list)?"""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice) or isinstance(part, ast.Constant):
                continue
            dotted = ir.dotted(part)
            if dotted is not None and dotted in self.fn.refs and self.fn.refs[dotted] is None:
                continue  # np.newaxis
            kind = self.act.kinds.get(part.id) if isinstance(part, ast.Name) else None
            if kind == INT or (isinstance(kind, ArrayKind) and kind.dtype == "b"):
                continue
            return True
        return False

    def shape_donor(self, expr):
        """``unreduce(g, t4, ...)``, ``unbroadcast(g, t4)`` and ``np.size(t4)`` read
        only `t4`'s shape (and `unreduce` its dtype): read them from a parameter or a
        value the function computes at its top level (which the reverse sweep can
        see) that certainly has them, so a forward line computed only for its shape
        (``t4 = t3 ** 2``) can go. For `unbroadcast` and `np.size` any array of
        `t4`'s shape will do, the earliest first; for `unreduce`, only the array `t4`
        was computed elementwise from (`Activity.origins`), which has its dtype."""
        if self.accumulators or not isinstance(expr, ast.AST) or not self.act.shapes:
            return expr  # (in a reversed loop a shape may change; no shapes, no donors)
        for node in ir.nodes(expr):
            if not isinstance(node, ast.Call):
                continue
            text = ir.dotted(node.func)
            at = 1 if text in ("unreduce", "unbroadcast") else 0 if text == "np.size" else None
            if at is None or len(node.args) <= at or not isinstance(node.args[at], ast.Name):
                continue
            x = node.args[at].id
            if text == "unreduce":
                origin = self.act.origins.get(x)
                donors = [origin] if isinstance(origin, str) and origin != x \
                    and self.act.same_shape(origin, x) else []
            else:
                # a parameter first, then `x` itself where the reverse sweep sees it,
                # then the earliest value of its shape
                same = self.act.same_shape_names(x)
                donors = [n for n in same if n in self.params] + [
                    n for n in same if n not in self.params]
            for donor in donors:
                if donor == x and x in self.top_level:
                    break
                if donor in self.top_level and isinstance(self.act.kinds.get(donor),
                                                          ArrayKind) \
                        and (text != "unreduce" or self.act.kinds[donor].dtype == "f"):
                    node.args[at] = ir.name(donor)
                    break
        return expr


# What the reverse sweep does for each kind of operation `classify` names (every
# kind in `classify.KINDS` has an entry): ``method(transform, statement, op,
# out_bar)`` returns the reverse of the statement (see `reverse_operation`).
_ADD_AT_HINT = ("Add in a loop (`a[i[k]] += v[k]`), or with a matrix product "
                "(`a = a + np.eye(len(a))[i].T @ v`); forward mode (jvp) takes np.add.at.")

BY_KIND = {
    "copy": OperationAdjoints.reverse_copy,
    "const": OperationAdjoints.no_adjoint,
    "rule": OperationAdjoints.reverse_rule,
    "call": OperationAdjoints.reverse_call,
    "pack": OperationAdjoints.reverse_pack, "tuplecat": OperationAdjoints.reverse_tuplecat,
    "getitem": OperationAdjoints.reverse_getitem,
    "listpack": OperationAdjoints.reverse_listpack,
    "append": OperationAdjoints.reverse_append,
    "pop": OperationAdjoints.reverse_pop,
    "repeat": ContainerAdjoints.reverse_repeat,
    "concat": ContainerAdjoints.reverse_concat,
    "add_at": ScatterAdjoints.reverse_scatter,
    "add_into": OperationAdjoints.reverse_add_at,
    "sum": OperationAdjoints.reverse_sum,
    "nondiff": OperationAdjoints.no_adjoint,
    "inactive": OperationAdjoints.no_adjoint,  # (activity refuses an active one)
    "unknown": OperationAdjoints.no_adjoint,
}


def _same(expr):
    return expr


_SHAPE_READERS = frozenset({"unreduce", "unbroadcast", "np.size"})  # (`shape_donor`'s)


def _calls_in(template, memo: dict) -> frozenset:
    """The dotted names of the functions `template`'s lines and terms call (kept in
    `memo` by the template's id, with the template, whose id is then not reused)."""
    found = memo.get(id(template))
    if found is None:
        exprs = [e for _, e in template.assigns] + [t for t in template.terms if t is not None]
        found = memo[id(template)] = (frozenset(
            ir.dotted(n.func) for e in exprs for n in ast.walk(e) if isinstance(n, ast.Call)),
            template)
    return found[0]


def _needless_unbroadcast_dropped(act, term, target: str, key):
    """A rule's `term`, ``unbroadcast(g, x)`` read as `g` where `g` certainly has
    `x`'s shape (by `act`'s shapes): where the rule of `key` broadcasts its inputs
    into its result (its shape rule is `shape_rules.elementwise`), its terms,
    elementwise in the result's adjoint, have the shape of the result `target`: `x`'s,
    where `x` has it. Another rule's terms may have any shape, whatever the result's:
    the mean's term of ``multivariate_normal.logpdf`` of d points (d, d) is (d, d),
    its result and the mean (d,), so the term is summed even where `x` has the
    result's shape."""
    if isinstance(term, ast.Call) and ir.dotted(term.func) == "unbroadcast" \
            and len(term.args) == 2 and isinstance(term.args[1], ast.Name) \
            and shape_rule(key) is broadcast_rule and act.same_shape(term.args[1].id, target):
        return term.args[0]
    return term


def _nested_list(kind) -> bool:
    """A list inside a tuple, or a list of tuples or lists: adjoints of these are not
    kept yet (a list of arrays or of numbers is fine)."""
    if isinstance(kind, tuple):
        return any(isinstance(k, ListKind) or _nested_list(k) for k in kind)
    if isinstance(kind, ListKind):
        return isinstance(kind.elem, (tuple, ListKind)) or _nested_list(kind.elem)
    return False


def _equals_one_of(atom, values) -> ast.expr:
    tests = [ast.Compare(left=ir.copy_tree(atom), ops=[ast.Eq()], comparators=[ir.const(v)])
             for v in values]
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.Or(), values=tests)


def _lists_only(kind, top=True) -> bool:
    """Lists of lists (of numbers or arrays), or a tuple of them (a tuple display
    handed to NumPy, ``np.concatenate((x, [y]))``): no tuple below the top."""
    if isinstance(kind, ListKind):
        return _lists_only(kind.elem, False)
    if isinstance(kind, tuple):
        return top and all(_lists_only(k, False) for k in kind)
    return True


def _method(name: str, attr: str, args) -> ast.Call:
    """``name.attr(*args)``, the arguments copied."""
    return ast.Call(func=ast.Attribute(value=ir.name(name), attr=attr, ctx=ast.Load()),
                    args=ir.copy_tree(list(args)), keywords=[])


def _list_summed(fn, s, kind):
    """Refuse the built-in ``sum(xs)`` of a value of a kind not known here (``sum(w *
    x)`` of an array read from a dict of settings): the adjoint of a list's items
    would be wrong for an array, whose rows it sums."""
    if isinstance(kind, ListKind):
        return
    raise _refusal(
        fn, s.line,
        "s2sad cannot tell whether the value summed here is a list or an array (it is "
        "computed from a value whose kind it cannot see, such as an array read from a "
        "dict or an attribute), so it cannot differentiate the built-in sum() of it in "
        "reverse mode",
        "Sum an array with np.sum(..., axis=0), or make the value an array where "
        "it is made (`np.array(...)`).")


def _refusal(fn, line, message, hint) -> NotDifferentiableError:
    """A refusal of reverse mode at the user's `line` of `fn`."""
    info = fn.source
    return NotDifferentiableError(
        message, filename=info.filename if info else None, lineno=line or None,
        source_line=info.line_text(line) if info and line else None, hint=hint)
