"""containers: reverse mode's adjoints of lists and arrays changed in place.

A list, or an array the function writes into or reads by index, has one adjoint
object shared by every name of it (`acc`), updated in place by the reverse sweep.
Owns `ContainerAdjoints`, the methods of `reverse._Transform` that make those
adjoint objects (`list_inits`, `zero_list`, `assembled_lists`), save what a write
overwrites for the reverse sweep to put back (`save_overwritten`), and reverse the
operations that change or read a container in place: a write ``x[i] = v``
(`reverse_setitem`), a loop-carried array taking its next value (`hand_over`), a
slice of a list (`reverse_list_slice`), a list repeated (`reverse_repeat`) or joined
(`reverse_concat`), a ``pop`` (`reverse_unread_pop`). The class
is a mixin: its methods read the state of `reverse._Transform` (the activity, the
helpers the emitted code reads) and call its `set_adj` and `np_call`.
May import `common`, `primitives`, `ir` and `runtime`; `reverse` imports it.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir, runtime
from ..errors import NotDifferentiableError
from ..ir.kinds import INT, SCALAR, UNKNOWN, ArrayKind, ListKind
from ..primitives.facts import fancy_index, index_kind
from .common import adj, slices_as_calls, zero, zeros_like_list


def _zeroed_here(t, body, top) -> tuple:
    """``(roots, inner)``: the lists and arrays whose adjoints `t.list_inits` zeroes
    at the start of `body` (those made by its statements, or received, at the top;
    and those made inside an `if` of it whose paths all give them a name, ``u = u +
    u[0]`` in a loop on one path: the join, zeroed before the `if`'s reverse), and
    the `if` of `body` each statement inside one is in (by id)."""
    roots = []
    created = t.act.created  # (none: no list or array is made, nothing to zero)
    ids = ({id(s) for s in body} | ({0} if top else set())) if created else ()
    inner = {id(x): s for s in body if isinstance(s, ir.If) for x in ir.walk(s.body + s.orelse)
             if created} if any(isinstance(s, ir.If) for s in body) else {}
    for root, made in created.items():
        if root in t.zeroed_roots or root not in t.act.active or \
                not t.is_container(root) or root in roots:
            continue
        join = inner.get(made)
        if made in ids or join is not None and any(t.act.root(n) == root for n in (
                ir.definitely_assigned(join.body) & ir.definitely_assigned(join.orelse))):
            roots.append(root)
    return roots, inner


class ContainerAdjoints:
    """Adjoints of lists and arrays, as methods of `reverse._Transform` (see the
    module docstring)."""

    def is_list(self, n: str) -> bool:
        return isinstance(self.act.kinds.get(n), ListKind)

    def is_container(self, n: str) -> bool:
        return self.act.is_container(n)

    def acc(self, n: str) -> str:
        """The adjoint of the list object `n` refers to: one list of adjoints, shared by
        every name of that list, updated in place."""
        return adj(self.act.root(n))

    def list_inits(self, body, top) -> list:
        """Adjoint lists of the lists this block creates (or receives, at the top),
        zeroed before any reverse statement of the block touches them."""
        roots, inner = _zeroed_here(self, body, top)
        self.zeroed_roots.update(roots)
        out = []
        joins = {id(s): s for s in body if isinstance(s, ir.If)} if roots else {}
        for r in roots:
            name = r
            join = joins.get(self.act.created[r]) or inner.get(self.act.created[r])
            if join is not None:  # (made at a join: a name every path gives it)
                both = ir.definitely_assigned(join.body) & ir.definitely_assigned(join.orelse)
                name = min((n for n in both if self.act.root(n) == r), default=r)
            zeros = self.zero_list(name) if self.is_list(r) else self.np_call("zeros_like",
                                                                              [ir.name(name)])
            out.append(ir.Assign((adj(r),), zeros, 0))
            if isinstance(zeros, ast.List):
                self.element_zeros[adj(r)] = out[-1]
            if r == self.seeded:
                seed = ir.name(self.seed_name)
                if self.is_list(r):  # (new elements: the caller's stay as they are)
                    self.helpers["add_into"] = runtime.add_into
                    out.append(ir.Expr(ast.Call(func=ir.name("add_into"), args=[
                        ir.name(adj(r)), seed], keywords=[]), 0))
                else:
                    out[-1] = ir.Assign((adj(r),), _seeded(self, zeros, name, r, seed), 0)
        return out

    def assembled_lists(self, block) -> list:
        """`block` where an adjoint list that starts as one zero per element
        (`zero_list`) gets nothing but one ``add_into(xs%bar, (a, b))`` (the reverse
        of ``a, b = xs``): the list is made there, ``xs%bar = [a, b]``, as one would
        write it, with the zero of an element the unpacking gave nothing."""
        for acc, init in self.element_zeros.items():
            touching = [s for s in ir.walk(block)
                        if acc in ir.stmt_reads(s) or acc in ir.defined_names(s)]
            if len(touching) != 2 or touching[0] is not init:
                continue
            add = touching[1]
            if not (any(s is add for s in block) and isinstance(add, ir.Expr)
                    and isinstance(add.value, ast.Call)
                    and ir.dotted(add.value.func) == "add_into"
                    and isinstance(add.value.args[1], ast.Tuple)
                    and len(add.value.args[1].elts) == len(init.value.elts)):
                continue
            parts = [zero if isinstance(part, ast.Constant) else part
                     for part, zero in zip(add.value.args[1].elts, init.value.elts)]
            made = ir.Assign((acc,), ast.List(elts=parts, ctx=ast.Load()), add.line)
            block = [made if s is add else s for s in block if s is not init]
        return block

    def zero_list(self, n: str) -> ast.expr:
        """The zero adjoint of the list `n`: ``[0.0] * len(n)``, or where its kind
        lists its elements (`ListKind.items`: an argument holding arrays), one
        zero per element, an array's of its shape and dtype
        (``[np.zeros_like(n[0]), np.zeros_like(n[1])]``), so that the gradient of an
        element nothing reads is that, not the number 0.0."""
        items = self.act.kinds[n].items
        if items is None:
            return zeros_like_list(n)
        zeros = []
        for i, k in enumerate(items):
            if isinstance(k, ArrayKind):
                element = ast.Subscript(value=ir.name(n), slice=ir.const(i), ctx=ast.Load())
                zeros.append(self.np_call("zeros_like", [element]))
            else:
                zeros.append(zero(k))
        return ast.List(elts=zeros, ctx=ast.Load())

    def popped_list(self, s):
        """The name of the list ``xs`` of ``xs.pop()``, `s`'s value, or None."""
        op = self.act.ops.get(id(s))
        if op is None or op.kind != "pop" or not isinstance(op.inputs[0], ast.Name):
            return None
        return op.inputs[0].id

    def save_overwritten(self, s: ir.SetItem) -> ir.Assign:
        """``x%old = x[i]`` (a copy for a slice) before the write ``x[i] = v``: the
        reverse sweep puts it back, so what it reads of `x` is what the forward sweep
        read at the same point. `simplify` drops the pair when nothing after the
        write's reverse reads `x`. A list's element is saved as the object it is: the
        write rebinds the slot and leaves that object as it was (a copy would break
        on a number, and would not be the object other names hold)."""
        c = s.container
        index = ir.copy_tree(s.target.slice)
        value = ast.Subscript(value=ir.name(c), slice=index, ctx=ast.Load())
        if self.array_slot(c, index):
            value = ast.Call(func=ast.Attribute(value=value, attr="copy", ctx=ast.Load()),
                             args=[], keywords=[])
        return ir.Assign((ir.derived(c, "old"),), value, s.line)

    def array_slot(self, container: str, index) -> bool:
        """Whether ``container[index]`` is a view of `container`'s memory (an array
        container, a basic index that leaves an array), which a write into the same
        slot changes: saving it, or its adjoint, takes a copy."""
        return isinstance(self.act.kinds.get(container), ArrayKind) \
            and isinstance(self.slot_kind(container, index), ArrayKind) \
            and not fancy_index(index, self.atom_kind)

    def slot_kind(self, container: str, index):
        """The kind of ``container[index]``."""
        kind = self.act.kinds.get(container)
        if isinstance(kind, ListKind):
            return kind.elem
        if isinstance(kind, ArrayKind):
            return index_kind(kind, index, self.atom_kind)
        return UNKNOWN

    def reverse_list_slice(self, xs: str, index, part: str, line) -> ir.ForEach:
        """The reverse of ``part = xs[a:b]`` (a new list of some of `xs`'s elements):
        each element's adjoint goes to the element of `xs` it is, ``for k in
        range(len(part_bar)): xs_bar[range(len(xs_bar))[a:b][k]] += part_bar[k]``
        (``xs_bar[a:b] += part_bar`` would concatenate the lists)."""
        acc, got = ir.name(self.acc(xs)), ir.name(self.acc(part))
        k = "%k"

        def length(n):
            return ast.Call(func=ir.name("len"), args=[n], keywords=[])

        positions = ast.Subscript(value=ast.Call(func=ir.name("range"), args=[length(acc)],
                                                 keywords=[]),
                                  slice=ir.copy_tree(index), ctx=ast.Load())
        slot = ast.Subscript(value=ir.copy_tree(acc), slice=ast.Subscript(
            value=positions, slice=ir.name(k), ctx=ast.Load()), ctx=ast.Load())
        if isinstance(index, ast.Slice) and index.lower is index.upper is index.step is None:
            # a copy (``xs[:]``, ``list(xs)``): each element is the one at its place
            slot = ast.Subscript(value=ir.copy_tree(acc), slice=ir.name(k), ctx=ast.Load())
        every = ast.Call(func=ir.name("range"), args=[length(ir.copy_tree(got))], keywords=[])
        add = ir.AugAssign(slot, ast.Subscript(value=ir.copy_tree(got), slice=ir.name(k),
                                               ctx=ast.Load()), line)
        return ir.ForEach(k, every, [add], line)

    def reverse_repeat(self, s, op, out_bar) -> list:
        """The reverse of ``ys = xs * n`` (a new list, `xs`'s elements `n` times over):
        ``for k in range(len(ys_bar)): xs_bar[k % len(xs_bar)] += ys_bar[k]``; nothing
        where `xs` is inactive (``[0.0] * n``)."""
        xs = op.inputs[0]
        if out_bar is None or not isinstance(xs, ast.Name) or not self.act.is_active(xs) \
                or not self.is_list(s.targets[0]):
            return []
        acc, got = ir.name(self.acc(xs.id)), ir.name(self.acc(s.targets[0]))
        k = "%k"

        def length(n):
            return ast.Call(func=ir.name("len"), args=[n], keywords=[])

        slot = ast.Subscript(value=acc, slice=ast.BinOp(
            left=ir.name(k), op=ast.Mod(), right=length(ir.copy_tree(acc))), ctx=ast.Load())
        every = ast.Call(func=ir.name("range"), args=[length(got)], keywords=[])
        add = ir.AugAssign(slot, ast.Subscript(value=ir.copy_tree(got), slice=ir.name(k),
                                               ctx=ast.Load()), s.line)
        return [ir.ForEach(k, every, [add], s.line)]

    def reverse_concat(self, s, op, out_bar) -> list:
        """The reverse of ``v = xs + ys`` (a new list of `xs`'s elements, then `ys`'s):
        ``xs_bar[k] += v_bar[k]`` for each of `xs`'s, ``ys_bar[k] += v_bar[n + k]``
        for each of `ys`'s, `n` being ``len(xs_bar)`` (or, where `xs` is inactive,
        ``len(v_bar) - len(ys_bar)``)."""
        if out_bar is None or not self.is_list(s.targets[0]):
            return []
        got = self.acc(s.targets[0])
        xs, ys = op.inputs
        out = []
        k = "%k"

        def length(n):
            return ast.Call(func=ir.name("len"), args=[ir.name(n)], keywords=[])

        for x, at in ((xs, None), (ys, "tail")):
            if not isinstance(x, ast.Name) or not self.act.is_active(x):
                continue
            acc = self.acc(x.id)
            where = ir.name(k)
            if at is not None:
                start = length(self.acc(xs.id)) if isinstance(xs, ast.Name) and \
                    self.act.is_active(xs) else ast.BinOp(left=length(got), op=ast.Sub(),
                                                          right=length(acc))
                where = ast.BinOp(left=start, op=ast.Add(), right=where)
            slot = ast.Subscript(value=ir.name(acc), slice=ir.name(k), ctx=ast.Load())
            add = ir.AugAssign(slot, ast.Subscript(value=ir.name(got), slice=where,
                                                   ctx=ast.Load()), s.line)
            every = ast.Call(func=ir.name("range"), args=[length(acc)], keywords=[])
            out.append(ir.ForEach(k, every, [add], s.line))
        return out

    def reverse_unread_pop(self, s, out_bar=None) -> list:
        """The reverse of ``xs.pop()``: the element's adjoint (`out_bar`, or zero where
        its value gives the output nothing) goes back on the end of the adjoint list,
        which the reverse sweep found one element shorter, so the adjoints after it
        stay with their elements."""
        op = self.act.op(s)
        if op.kind != "pop" or not isinstance(op.inputs[0], ast.Name):
            return []
        xs = op.inputs[0].id
        # the element goes back on the list too, for what the reverse sweep reads of
        # it afterwards (`simplify` drops this, and the forward save, when nothing does)
        old = ir.name(s.targets[0] if isinstance(s, ir.Assign) else ir.derived(xs, "old"))
        # (``xs.pop(at)``: back in its place, counted from the start)
        at = op.options.get("at")
        grows = "append" if at is None else "insert"

        def place():
            return [] if at is None else [ir.copy_tree(at)]

        restore = ir.Expr(ast.Call(func=ast.Attribute(value=ir.name(xs), attr=grows,
                                                      ctx=ast.Load()),
                                   args=place() + [old], keywords=[]), s.line, restore=True)
        if xs not in self.act.active:
            return [restore]
        grow = ast.Call(func=ast.Attribute(value=ir.name(self.acc(xs)),
                                           attr=grows, ctx=ast.Load()),
                        args=place() + [ir.const(0.0) if out_bar is None else out_bar],
                        keywords=[])
        return [ir.Expr(grow, s.line), restore]

    def reverse_setitem(self, s: ir.SetItem) -> list:
        """The reverse of ``x[i] = v``: `v`'s adjoint is what the slot's adjoint holds,
        the slot's adjoint becomes zero (the values before the write did not reach the
        output through it), and the overwritten values go back into `x`."""
        c = s.container
        index = s.target.slice
        out = []
        if c in self.act.active:
            acc = ir.name(self.acc(c))
            slot = ast.Subscript(value=acc, slice=ir.copy_tree(index), ctx=ast.Load())
            if self.act.is_active(s.value):
                out.append(self.set_adj(s.value.id, self.slot_adjoint(
                    slot, c, index, s.value, s.line, overwrites=True), s.line))
            out.append(ir.SetItem(ast.Subscript(value=ir.copy_tree(acc), slice=ir.copy_tree(index),
                                                ctx=ast.Store()), ir.const(0.0), s.line))
        out.append(ir.SetItem(ast.Subscript(value=ir.name(c), slice=ir.copy_tree(index),
                                            ctx=ast.Store()),
                              ir.name(ir.derived(c, "old")), s.line, restore=True))
        return out

    def slot_adjoint(self, slot, container, index, value, line, overwrites=False) -> ast.expr:
        """The adjoint of the value written into ``container[index]`` (at `line`),
        read from the slot of the container's adjoint (a copy, since the slot is
        zeroed next): the slot itself for one element, its sum for a number written
        into many, else the slot summed to the value's shape (`unbroadcast`), which
        is also what a value of a kind not known here gets (an array read from a
        setting: its adjoint is not a number). A list or a tuple of values is refused.
        A write that `overwrites` (``x[i] = v``, not ``np.add.at``) reads it `kept`."""
        target = self.slot_kind(container, index)
        kind = self.act.kinds.get(value.id)
        if isinstance(kind, (ListKind, tuple)) and isinstance(target, ArrayKind):
            info = self.fn.source
            raise NotDifferentiableError(
                "s2sad cannot differentiate writing a list or a tuple of values into an "
                "array in reverse mode yet", filename=info.filename if info else None,
                lineno=line or None, source_line=info.line_text(line) if info and line
                else None, hint="Write an array (`np.array([...])`) instead; forward mode "
                "(jvp) takes it as it is.")
        if not isinstance(target, ArrayKind):
            return slot  # one element: a number, not a view
        if overwrites:
            slot = kept(self, slot, index)
        if kind in (SCALAR, INT):
            return self.np_call("sum", [slot])  # one number written into many elements
        self.helpers["unbroadcast"] = runtime.unbroadcast
        if not isinstance(kind, ArrayKind) or kind.ndim is None or target.ndim is None \
                or kind.ndim >= target.ndim:
            if self.array_slot(container, index):  # (a list's slot is rebound, not zeroed)
                slot = ast.Call(func=ast.Attribute(value=slot, attr="copy", ctx=ast.Load()),
                                args=[], keywords=[])
        return ast.Call(func=ir.name("unbroadcast"), args=[slot, ir.name(value.id)], keywords=[])

    def hand_over(self, target: str, source, line) -> list:
        """The reverse of a loop-carried array taking its next value, ``u = v``: what
        `u`'s adjoint holds belongs to `v`; `u`'s adjoint starts again from zero for
        the array `u` held before, of `u`'s shape (`loops.TapedLoops.zeros_before`)."""
        acc = ir.name(self.acc(target))
        out = []
        if self.act.is_active(ir.name(source)):
            out.append(self.set_adj(source, acc, line))
        out.append(ir.Assign((self.acc(target),), self.zeros_before(
            target, source, self.acc(target)), line))
        return out


def kept(t, slot, index):
    """The slot's adjoint (`slot`, ``x_bar[index]``) as the value a write into
    ``x[index]`` gets it (`t`, the reverse transform): where the index may name an
    element twice, only the value the element kept has a derivative
    (`runtime.kept_slots`)."""
    if not may_repeat(t, index):  # (an index of a kind not known here may too)
        return slot
    t.helpers["kept_slots"] = runtime.kept_slots
    return ast.Call(func=ir.name("kept_slots"), args=[
        slot, ir.copy_tree(slot.value), slices_as_calls(ir.copy_tree(index))], keywords=[])


def may_repeat(t, index) -> bool:
    """May an index of integer arrays or lists, or of values of a kind not known,
    name one element twice (`t`, the reverse transform)? Not where its one such part is a boolean mask, a list
    display of distinct non-negative integers (``x[[0, 2]] = v``) or what
    ``np.arange(n)`` or ``np.argsort`` of a vector made, and nothing changes it in
    place."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    # (a name of a kind not known here may hold an array of indices: ``x.argsort()``,
    # ``batch["idx"]``, what a call returns)
    fancy = [p for p in parts if isinstance(p, ast.List) or isinstance(p, ast.Name)
             and t.atom_kind(p) not in (INT, SCALAR)]
    if all(isinstance(t.atom_kind(p), ArrayKind) and t.atom_kind(p).dtype == "b"
           for p in fancy if isinstance(p, ast.Name)) and not any(
            isinstance(p, ast.List) for p in fancy):
        return False
    if len(fancy) != 1:
        return True
    part = fancy[0]
    if isinstance(part, ast.Name):
        root = t.act.root(part.id)
        made = None
        for s in ir.walk(t.fn.body):
            value = getattr(s, "value", None)
            if type(value) is ast.Call and type(value.func) is ast.Attribute \
                    and type(value.func.value) is ast.Name \
                    and t.act.root(value.func.value.id) == root:
                return True  # (changed in place: what it was made as says nothing)
            if type(s) is ir.Assign and not s.unpack and s.targets == (part.id,):
                made = value
        if root in t.act.written:
            return True
        if isinstance(made, ast.Call) and len(made.args) == 1 and not made.keywords:
            kind = t.atom_kind(part)
            return t.fn.refs.get(ir.dotted(made.func)) not in (np.arange, np.argsort) \
                or not (isinstance(kind, ArrayKind) and kind.ndim == 1)
        part = made
    if not isinstance(part, ast.List):
        return True
    values = [e.value if isinstance(e, ast.Constant) else None for e in part.elts]
    return not all(type(v) is int and v >= 0 for v in values) \
        or len(set(values)) != len(values)


def _seeded(t, zeros, name, root, seed):
    """The start of the adjoint of the output `root` (an array written into, named
    `name` where it starts) of the transform `t`: ``zeros + seed``, or for a 0-d
    array, where that is a NumPy scalar no write can go into, ``np.full_like``."""
    if getattr(t.act.kinds.get(root), "ndim", None) == 0:
        return t.np_call("full_like", [ir.name(name), seed])
    return ast.BinOp(left=zeros, op=ast.Add(), right=seed)
