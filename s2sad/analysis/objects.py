"""objects: which list or array object each name refers to.

Lists are mutable objects, and arrays written into or read by index are too: a name
that refers to one stands for its object (`Activity.roots`), made by one statement
(`Activity.created`). `Objects` joins the names of one object (`alias`), and decides
where a name given its value on several paths is one object made at the join
(`fresh_join`, `value_join`) rather than the objects it is given; a loop-carried
list the loop makes anew in each iteration is one object per iteration (`rebuilt`).
"""

from __future__ import annotations

import ast

from .. import ir
from ..ir.kinds import ArrayKind, ListKind
from ..primitives.facts import makes_new_object
from .classify import classify
from .rebuilt import RebuiltLists


def _add_definitions(body, chain, found) -> None:
    """`Objects.definitions`'s walk: put in `found` each name's ``(statement, chain)``
    (a module-level function: one nested that calls itself is a reference cycle)."""
    for st in body:
        if isinstance(st, ir.If):
            _add_definitions(st.body, chain + ((st, 0),), found)
            _add_definitions(st.orelse, chain + ((st, 1),), found)
        elif isinstance(st, ir.Loop):
            _add_definitions(st.cond + st.body, chain + ((st, None),), found)
        elif isinstance(st, ir.Exit):
            _add_definitions(st.copies, chain + ((st, None),), found)
        else:
            for n in ir.defined_names(st):
                found.setdefault(n, []).append((st, chain))


def _add_in_order(body, loops, order, ends) -> None:
    """`Objects.written_joins`' walk: put in `order` each ``(statement, enclosing
    loops)`` in program order, in `ends` each `If`'s position after its last one."""
    for st in body:
        order.append((st, loops))
        if isinstance(st, ir.Loop):
            _add_in_order(st.cond + st.body, loops + (st,), order, ends)
        elif isinstance(st, ir.If):
            _add_in_order(st.body, loops, order, ends)
            _add_in_order(st.orelse, loops, order, ends)
            ends[id(st)] = len(order)
        elif isinstance(st, ir.Exit):
            _add_in_order(st.copies, loops, order, ends)


class Objects(RebuiltLists):
    """The objects names refer to: a part of activity's analysis (it reads the
    analysis's `result`, `fn`, `phis`, `joined`, `conflicts`, `join_makes`,
    `value_joins` and `atom_kind`). Its methods are the rules of one question, which
    object a name is at a join, and call each other."""

    def alias(self, a, b):
        """`a` and `b` refer to the same list object."""
        r = self.result
        ra, rb = r.root(a), r.root(b)
        if ra == rb:
            return
        lists = self.is_list(a) or self.is_list(b)
        if a in self.phis and (not lists or self.own_each_iteration(a)):
            # a loop-carried array holds a different array in each iteration: it is
            # an object of its own, and its adjoint moves along the loop's copies
            # (so does a list the loop makes anew in each iteration)
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
        if not (lists or keep in r.written or other in r.written):
            # (an array nothing writes into is varied and useful by name, see `key`:
            # ``s1 = s`` in one branch of a join whose other branch gives `s1` a
            # varied value does not make the argument `s` vary)
            return
        for group in (r.varied, r.useful):
            if other in group:
                group.add(keep)

    def definitions(self, t) -> list:
        """``(statement, chain)`` for every statement assigning `t`, in program order;
        `chain` is the ``(statement, branch)`` of each `If` (branch 0 or 1), `Loop`
        and `Exit` (branch None) around it, outermost first."""
        if not hasattr(self, "_definitions"):
            found = {}
            _add_definitions(self.fn.body, (), found)
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
                or not isinstance(r.kinds.get(t), (ArrayKind, ListKind)):
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
                    existing = existing or self.branch_own(st, chain) is None
                elif not makes_new_object(op, st.value, self.atom_kind):
                    existing = True
            if not existing or self.is_list(t) and self.list_changed(t, sites, join):
                join = None
        self.value_joins[t] = join
        return join

    def list_changed(self, t, sites, join) -> bool:
        """Is the list `t` (joined at `join` from its assignments `sites`), or a list
        that exists before the join it may be (an argument, another name's list, and
        what that is a copy of), changed in place after the join, or in a loop around
        it? Then which object it is matters, and it keeps the objects it is given. (A
        list a branch makes, and fills as a comprehension does, is that branch's own;
        what fills a list before the join is in its value.)"""
        names, todo = {t}, []
        for st, _ in sites:
            op = self.op_of(st)
            if op.kind == "copy" and isinstance(op.inputs[0], ast.Name):
                todo.append(op.inputs[0].id)
        while todo:
            n = todo.pop()
            defs = self.definitions(n)
            if n in names or defs and all(any(c is join for c, _ in chain) for _, chain in defs):
                continue
            names.add(n)
            for st, _ in defs:  # (and what it is a copy of)
                if isinstance(st, ir.Dup):
                    todo.append(st.source)
                elif isinstance(st, ir.Assign) and isinstance(st.value, ast.Name) \
                        and not st.unpack:
                    todo.append(st.value.id)
        changes = {id(st) for st in self.changes_in_place(names)}
        if not changes:
            return False
        order, ends = [], {}
        _add_in_order(self.fn.body, (), order, ends)
        around = next((loops for st, loops in order if st is join), ())
        return any(id(st) in changes and (k >= ends[id(join)] or any(
            loop in around for loop in loops)) for k, (st, loops) in enumerate(order))

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
        _add_in_order(self.fn.body, (), order, ends)
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
        if op.kind != "copy" and makes_new_object(op, value, self.atom_kind) or self.is_list(t):
            return  # (a list nothing changes in place after the join: `list_changed`)
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
