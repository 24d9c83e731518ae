"""holders: the lists and arrays that lists and tuples hold, and changes to them.

A list or a tuple holds the very objects put in it, and so does every value taken
out of it. `Holders` follows what each value may be or hold, and refuses a change
made in place to an object that a container, or a value taken out of one, still
shows where it is read afterwards. `writes.Writes` runs it after its own checks.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir
from ..ir.kinds import INT, SCALAR, UNKNOWN, ArrayKind, ListKind
from ..primitives.facts import facts_of, stops_gradient
from .rebuilt import carried_sources


class Holders:
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
        for p in writes.a.fn.params:  # (the caller's objects a list or tuple argument holds)
            if isinstance(self.r.kinds.get(p.name), (ListKind, tuple)):
                self.holds[self.key(p.name)] = {f"{p.name}%items"}
        self.flow()

    def key(self, n: str) -> str:
        return self.r.root(n) if self.a.is_object(n) else n

    def contents(self, atom) -> set:
        if not isinstance(atom, ast.Name) or atom.id not in self.r.kinds:
            return set()
        return set(self.holds.get(self.key(atom.id), ()))

    def reach(self, atom) -> set:
        """The objects `atom` is or may be, or holds; a view (``Y[0]``, a row a loop
        over `Y` takes) reaches the arrays it shows too, so a container holding it
        shows a change made to them."""
        if not isinstance(atom, ast.Name) or atom.id not in self.r.kinds:
            return set()
        own = {self.r.root(atom.id)} if self.a.is_object(atom.id) else set()
        if own and self.r.views:
            own.update(self.r.viewed_roots(atom.id))
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
            if kind in (SCALAR, INT):  # (a number holds no list or array)
                return []
            if t in r.views:  # (a view of what may be a held object shows it too)
                return [(t, set().union(*[self.contents(ir.name(b)) for b in r.views[t]]),
                         False)]
            if op.kind in ("listpack", "pack"):
                return [(t, set().union(*[self.reach(e) for e in op.inputs]), True)]
            if op.kind in ("concat", "tuplecat"):  # (a new list or tuple of both's items)
                return [(t, set().union(*[self.contents(x) for x in op.inputs]), True)]
            if op.kind == "repeat":
                x = op.inputs[0]
                src = set().union(*[self.reach(e) for e in x.elts]) \
                    if isinstance(x, ast.List) else self.contents(x)
                return [(t, src, True)]
            if op.kind in ("getitem", "pop") and not isinstance(
                    self.a.atom_kind(op.inputs[0]), ArrayKind):
                return [(t, self.contents(op.inputs[0]), False)]
            if op.kind == "copy" and isinstance(kind, ListKind) and r.root(t) == t and (
                    t in self.a.phis and self.a.own_each_iteration(t)
                    or self.a.value_joins.get(t) is not None):
                # (a list the loop makes anew in each iteration, handed to its carried
                # name, or a list given its value at a join (`value_join`), an object of
                # its own: it holds what that list holds)
                return [(t, self.contents(op.inputs[0]), False)]
            if op.kind == "copy" or stops_gradient(op):
                return [(t, self.reach(op.inputs[0]), False)]
            if op.kind in ("call", "unknown"):  # (it may return what it is given)
                return [(t, set().union(*[self.reach(x) for x in op.inputs]), False)]
            if op.kind == "rule" and not isinstance(kind, ArrayKind) and _views_in_container(op):
                # (``np.split(y, 2)``, ``np.meshgrid(a, b, copy=False)``: a list or tuple
                # of views of the arrays it is given, which holds what they show)
                return [(t, set().union(*[self.reach(x) for x in op.inputs]), True)]
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
            for root in sorted(roots | via):  # (sorted: the same refusal every run)
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
                    shown = [n for n in sorted(reads[k] - group) if n in r.kinds
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
            for root in sorted(self.contents(ir.name(xs))):
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
                         for n in sorted(reads[k] - group) if n in r.kinds and (
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


def _views_in_container(op) -> bool:
    """Does the rule-bearing call `op` return a list or tuple of views of its inputs
    (the ``split`` family; ``np.meshgrid`` given ``copy=False`` or a copy flag it
    cannot read)?"""
    if op.copies:
        return False
    if op.key is np.meshgrid:
        copy = op.options.get("copy")
        return copy is not None and not (isinstance(copy, ast.Constant) and copy.value is True)
    return facts_of(op.key).view
