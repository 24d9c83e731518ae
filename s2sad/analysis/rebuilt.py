"""rebuilt: loop-carried lists a loop makes anew in each iteration.

``xs = [g(x) for x in xs]`` in a loop gives the carried name `xs` a new list in every
iteration. Were it one object with its first value (the argument, say), as a name
that joins lists is, its adjoint would be one list for all of them, and reverse mode
would have to refuse it. `RebuiltLists.own_each_iteration` says when it is, like a
carried array, an object of its own in each iteration instead: every value the loop
hands it is a new list made in the body (a comprehension, a slice plus an item, a
user function's new list), and nothing changes in place a list it may be.
`carried_sources` lists the values a loop-carried name takes.
"""

from __future__ import annotations

import ast

from .. import ir
from ..ir.kinds import PENDING, UNKNOWN, ListKind
from ..primitives.facts import makes_new_object


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


class RebuiltLists:
    """A part of the activity analysis (it reads `fn`, `definitions`, `op_of`,
    `atom_kind`, `is_object_atom` and `callee_kind`)."""

    def own_each_iteration(self, phi) -> bool:
        """Is the loop-carried list `phi` a new list in every iteration, ``xs = [g(x)
        for x in xs]``: every value the loop hands it made in the loop's body by an
        operation that makes a new object, and nothing in the function changes in
        place a list it may be (its first value, its names)? Then, like a carried
        array, it is an object of its own in each iteration, not its first value's
        list: its adjoint moves along the loop's copies."""
        loop = next((s for s in ir.walk(self.fn.body) if isinstance(s, ir.Loop)
                     and any(p.name == phi for p in s.phis)), None)
        sites = self.definitions(phi)
        return loop is not None and bool(sites) and all(
            isinstance(st, ir.Assign) and not st.unpack and not st.inplace
            and isinstance(st.value, ast.Name) and any(c is loop for c, _ in chain)
            and self.made_here(st.value.id, loop) for st, chain in sites) \
            and not self.changed(phi, loop)

    def made_here(self, name, loop, seen=None) -> bool:
        """Is `name` (through copies, and through each branch of an ``if`` that
        binds it) made in `loop`'s body by an operation that makes a new object?"""
        seen = {} if seen is None else seen  # (name -> its answer; False while open)
        if name not in seen:
            seen[name] = False
            sites = self.definitions(name)
            seen[name] = bool(sites) and all(self.made_at(st, chain, loop, seen)
                                             for st, chain in sites)
        return seen[name]

    def made_at(self, st, chain, loop, seen) -> bool:
        """Is the value the definition `st` (inside the blocks `chain`) binds a new
        object made in `loop`'s body (`made_here`; `seen`: the names' answers)?"""
        if isinstance(st, ir.Dup):
            return self.made_here(st.source, loop, seen)
        if not (isinstance(st, ir.Assign) and not st.unpack and len(st.targets) == 1
                and any(c is loop for c, _ in chain)):
            return False
        op = self.op_of(st)
        if op.kind == "copy" and isinstance(op.inputs[0], ast.Name):
            return self.made_here(op.inputs[0].id, loop, seen)
        if op.kind == "call":  # (a function of the user's that returns a new list)
            return self.new_from_call(op, st)
        # (a slice the loop hands a list is a list's: a new list, whatever the
        # analysis knows of the kind it is taken of yet)
        return makes_new_object(op, st.value, self.atom_kind) or op.kind == "getitem" \
            and isinstance(op.inputs[1], ast.Slice)

    def new_from_call(self, op, st) -> bool:
        """Does the call of a function of the user's `op` (in `st`) return a list that
        is none of the lists and arrays it is given (nor a view of one)?"""
        shared = getattr(self.callee_kind, "shared", None)
        kinds = [self.atom_kind(x) for x in op.inputs]
        if shared is None or any(k in (UNKNOWN, PENDING) for k in kinds):
            return False
        return not any(i < len(op.inputs) and self.is_object_atom(op.inputs[i])
                       for i in shared(op.key, st, kinds))

    def changed(self, phi, loop) -> bool:
        """Does a statement of the function change in place a list the loop-carried
        `phi` or its first value may be (`changes_in_place`)?"""
        init = next(p.init for p in loop.phis if p.name == phi)
        return bool(self.changes_in_place({phi} | ({init.id} if isinstance(init, ast.Name)
                                                   else set())))

    def changes_in_place(self, names: set) -> list:
        """The statements of the function that change in place (a write, an append, a
        pop, ``op=``) a list one of `names` may be: the names copies and dups give
        them."""
        names = set(names)
        statements = list(ir.walk(self.fn.body))
        for _ in range(len(statements)):
            before = len(names)
            for st in statements:
                if isinstance(st, ir.Dup) and st.source in names:
                    names |= set(st.targets)
                elif isinstance(st, ir.Assign) and isinstance(st.value, ast.Name) \
                        and st.value.id in names and not st.unpack:
                    names |= set(st.targets)
            if len(names) == before:
                break
        out = []
        for st in statements:
            if isinstance(st, ir.SetItem) and st.container in names:
                out.append(st)
            elif isinstance(st, ir.Assign) and (st.inplace or st.item) and isinstance(
                    st.value, ast.BinOp) and isinstance(st.value.left, (ast.Name, ast.Subscript)) \
                    and names & set(ir.stmt_reads(st)):
                out.append(st)
            elif isinstance(st, (ir.Assign, ir.Expr)) and names & set(ir.stmt_reads(st)):
                op = self.op_of(st)
                if op.kind in ("append", "pop", "add_at", "add_into") and op.inputs \
                        and isinstance(op.inputs[0], ast.Name) and op.inputs[0].id in names:
                    out.append(st)
        return out


def note_carried(a) -> None:
    """A loop-carried list the loop makes anew in each iteration may be its first
    value's list or a list an exit hands it: `Activity.carried` says which (of the
    analysis `a`), as it does of carried arrays, so that what changes those (the
    reverse sweep's pops) counts for it too."""
    r = a.result
    for phi, values in carried_sources(ir.walk(a.fn.body)).items():
        if isinstance(r.kinds.get(phi), ListKind) and r.root(phi) == phi \
                and a.own_each_iteration(phi):
            bases = {r.root(v.id) for v in values if isinstance(v, ast.Name)} - {phi}
            if bases:
                r.carried[phi] = tuple(sorted(bases))
