"""copies: passes that remove names which only copy another.

`elided_copy` copies a sweep without its `dup` lines, reading every copy's source
in its place (`dup_sources`); `propagate_copies` drops plain copies ``v = w``
(reading `w` for `v`, or naming `w`'s definitions `v` when `v` must stay);
`coalesce_carried` computes a forward-mode loop's carried value in the
carried name instead of copying it there; `without_self_copies` drops ``a = a``.
"""

from __future__ import annotations

import ast

from .. import ir
from .common import without
from .context import Context


def _propagatable(n: str) -> bool:
    """Adjoints and compiler temporaries may vanish; user names and SSA versions stay."""
    if n.endswith("%bar") or n.endswith("%dot"):
        return True
    base = n.split("%")
    return n.startswith("%") and len(base) == 2 and (base[1].isdigit() or base[1][:1] == "r")


def dup_sources(body) -> dict:
    """Each copy an `ir.Dup` line of `body` makes -> the name it copies (at the
    first: a copy of a copy maps to the source)."""
    mapping = {}
    for s in ir.walk(body):
        if type(s) is ir.Dup:
            src = mapping.get(s.source, s.source)
            for t in s.targets:
                mapping[t] = src
    return mapping


def elided_copy(body, mapping, reads=None) -> list:
    """A copy of `body` (`ir.copy_tree`) without its `ir.Dup` lines, every read of a
    copy reading its source (`mapping`, from `dup_sources`): the statements the
    caller owns, in one walk that copies and renames (an assignment's value is
    copied with its names renamed; any other line is copied, then renamed). With
    `reads`, a dict, each new assignment's id -> (the line, its value, the names
    the value reads: what `ir.names_in` gives, perhaps in another order), for
    `propagate_copies`."""
    out = []
    Assign, Dup = ir.Assign, ir.Dup
    for s in body:
        t = type(s)
        if t is Assign:
            new = t.__new__(t)
            d = s.__dict__.copy()
            names = []
            d["value"] = _copy_renamed(d["value"], mapping, names)
            new.__dict__ = d
            if reads is not None:
                reads[id(new)] = (new, d["value"], names)
            out.append(new)
        elif t is Dup:
            continue
        elif t is ir.Comment and "\0" not in s.text:
            out.append(ir.copy_tree(s))
        else:
            new = ir.copy_tree(s)
            if ir.blocks(new):
                [new] = without([new], lambda x: type(x) is Dup)
                ir.rename_reads([new], mapping)
            else:
                ir.rename_stmt_reads(new, mapping)
            out.append(new)
    return out


def _copy_renamed(node, mapping, names):
    """``ir.copy_tree(node)`` with its Names renamed by `mapping` (the common node
    types copied field by field, inline; any other with `ir.copy_tree`); the names
    the copy reads are appended to `names`."""
    t = type(node)
    if t is ast.Name:
        new = t.__new__(t)
        d = node.__dict__.copy()
        renamed = mapping.get(d["id"])
        if renamed is not None:
            d["id"] = renamed
        names.append(d["id"])
        new.__dict__ = d
        return new
    if t is ast.BinOp:
        new = t.__new__(t)
        d = node.__dict__.copy()
        d["left"] = _copy_renamed(d["left"], mapping, names)
        d["right"] = _copy_renamed(d["right"], mapping, names)
        new.__dict__ = d
        return new
    if t is ast.Attribute or t is ast.UnaryOp:
        field = "value" if t is ast.Attribute else "operand"
        new = t.__new__(t)
        d = node.__dict__.copy()
        d[field] = _copy_renamed(d[field], mapping, names)
        new.__dict__ = d
        return new
    if t is ast.Call:
        new = t.__new__(t)
        d = node.__dict__.copy()
        d["func"] = _copy_renamed(d["func"], mapping, names)
        d["args"] = [_copy_renamed(a, mapping, names) for a in d["args"]]
        if d["keywords"]:
            d["keywords"] = keywords = ir.copy_tree(d["keywords"])
            for k in keywords:
                ir.rename_in_place(k.value, mapping)
                names += ir.names_in(k.value)
        else:
            d["keywords"] = []
        new.__dict__ = d
        return new
    new = ir.copy_tree(node)
    if mapping:
        ir.rename_in_place(new, mapping)
    names += ir.names_in(new)
    return new


class _CopyTable:
    """One walk of a body for `propagate_copies`: it drops copy-backs (``w = v``
    followed, with neither reassigned in between, by ``v = w``, which leaves `v`
    unchanged: a loop-carried adjoint passing through a sum) and takes, of what
    stays, the counts `definitions`, `ir.reads_in` and `max_defs` give and the
    plain copies ``v = w`` in program order. Which statements read or define each
    name (`index`) is made only if some copy goes."""

    def __init__(self, body, inputs, known=None):
        # id of an assignment -> (it, its value, the names the value reads)
        self.known = {} if known is None else known
        self.defs, self.reads = {}, {}
        self.copies = []
        self.named = []  # (statement, names it reads, names it defines)
        self.body, most = self.block(body)
        for n in inputs:
            most[n] = most.get(n, 0) + 1
        self.most = most

    def index(self):
        """``({name: {id: statement reading it}}, {name: {id: statement defining it}})``
        for the names of the copies (the rounds rename no other name)."""
        names = {s.targets[0] for s in self.copies} | {s.value.id for s in self.copies}
        readers, definers = {}, {}
        for s, read, defined in self.named:
            for n in read:
                if n in names:
                    readers.setdefault(n, {})[id(s)] = s
            for n in defined:
                if n in names:
                    definers.setdefault(n, {})[id(s)] = s
        return readers, definers

    def block(self, body):
        """(what stays of `body`, its `max_defs` counts without the inputs)"""
        recent = {}  # name -> name it was last copied from, in this straight-line run
        copied = {}  # name -> the names in `recent` copied from it

        def forget(n):
            """Forget every copy to or from `n`."""
            source = recent.pop(n, None)
            if source is not None:
                copied[source].discard(n)
            for k in copied.pop(n, ()):
                del recent[k]

        reads, defs, named, known = self.reads, self.defs, self.named, self.known
        out, count = [], {}
        for s in body:
            t = type(s)
            if t is ir.Assign and not s.unpack and type(s.value) is ast.Name:
                v, w = s.targets[0], s.value.id
                if recent.get(w) == v:
                    continue
                reads[w] = reads.get(w, 0) + 1
                defs[v] = defs.get(v, 0) + 1
                named.append((s, [w], (v,)))
                self.copies.append(s)
                count[v] = count.get(v, 0) + 1
                if recent:
                    forget(v)
                recent[v] = w
                copied.setdefault(w, set()).add(v)
                out.append(s)
                continue
            if t is ir.Assign and not s.unpack:  # (the commonest line, inline)
                entry, v = known.get(id(s)), s.targets[0]
                if entry is not None and entry[0] is s and entry[1] is s.value:
                    read = entry[2]
                else:
                    read = ir.names_in(s.value)
                    known[id(s)] = (s, s.value, read)
                for n in read:
                    reads[n] = reads.get(n, 0) + 1
                defs[v] = defs.get(v, 0) + 1
                named.append((s, read, s.targets))
                count[v] = count.get(v, 0) + 1
                if recent and (v in recent or v in copied):
                    forget(v)
                out.append(s)
                continue
            if t is ir.Comment:  # (reads nothing, defines nothing)
                if "\0" in s.text:  # (names renamed as reads are, not counted)
                    named.append((s, s.text.split("\0")[1::2], ()))
                out.append(s)
                continue
            if t is ir.Assign:  # (the commonest, inline)
                read, defined = ir.names_in(s.value), tuple(s.targets)
            else:
                read, defined = ir.stmt_reads(s), ir.defined_names(s)
            for n in read:
                reads[n] = reads.get(n, 0) + 1
            if t is ir.Comment and "\0" in s.text:
                read = s.text.split("\0")[1::2]  # (renamed as reads are, not counted)
            weight = 2 if t is ir.AugAssign else 1
            for n in defined:
                defs[n] = defs.get(n, 0) + weight
            if read or defined:
                named.append((s, read, defined))
            if t is ir.If:
                s.body[:], a = self.block(s.body)
                s.orelse[:], b = self.block(s.orelse)
                inner = {n: max(a.get(n, 0), b.get(n, 0)) for n in set(a) | set(b)}
            elif t is ir.Loop or t is ir.ForEach:
                inner = {}
                if t is ir.Loop:
                    s.cond[:], inner = self.block(s.cond)
                s.body[:], own = self.block(s.body)
                for n, k in own.items():
                    inner[n] = inner.get(n, 0) + k
                for n in defined:
                    inner[n] = inner.get(n, 0) + 1
            elif t is ir.Exit:
                s.copies[:], inner = self.block(s.copies)
            else:
                for n in defined:
                    count[n] = count.get(n, 0) + weight
                if t is ir.Pop:
                    recent.clear()
                    copied.clear()
                elif recent:
                    for n in defined:
                        forget(n)
                out.append(s)
                continue
            for n, k in inner.items():
                count[n] = count.get(n, 0) + k
            recent.clear()  # (a branch, a loop or an exit ends the straight-line run)
            copied.clear()
            out.append(s)
        return out, count


def propagate_copies(body, ctx: Context, known=None):
    """Remove ``v = w`` copies: read `w` where `v` was read, or, when `v` must stay
    (a gradient the function returns, in `ctx.keep`), give `w`'s definitions the
    name `v`.

    Rounds: each round takes, in program order, every copy the counts allow whose
    names no earlier copy of the round involves, then renames. The counts (definitions,
    reads, most definitions on one path) and which statements read or define each
    name are taken once, in one walk (`_CopyTable`), and updated as copies go: a
    round costs what it changes, not another walk of the whole body. Where the
    copies' names alone show that none can go (`_idle`), `body` itself (the same
    list, unchanged) comes back, counted by no walk. `known` (`elided_copy`'s
    `reads`, kept from one call to the next): the reads of the lines whose values
    are the objects noted there and unchanged since (a pass that rewrites a value
    gives the line a new one; the renames here are noted), not walked again."""
    keep, inputs = ctx.keep, ctx.inputs
    if _idle(body, keep):
        return body
    table = _CopyTable(body, inputs, known)
    body, copies = table.body, table.copies
    if not copies:
        return body
    defs, reads, most = table.defs, table.reads, table.most
    readers = definers = None
    dropped = set()
    while True:
        mapping, renames, touched = {}, {}, set()
        for s in copies:
            if id(s) in dropped:
                continue
            v, w = s.targets[0], s.value.id
            if v == w or defs.get(v) != 1 or most.get(w, 0) > 1 or most.get(v, 0) > 1 \
                    or v in touched or w in touched:
                continue
            if v in keep:
                if _propagatable(w) and w not in keep and reads.get(w) == 1:
                    renames[w] = v  # w's definitions take the name v
                    touched |= {v, w}
                    dropped.add(id(s))
            elif _propagatable(v) and (w.endswith("%bar") or not v.endswith("%bar")):
                # (an adjoint that equals a primal value, `x_bar = a`, keeps its
                # line: it says which use contributed what)
                mapping[v] = w  # reads of v read w
                touched |= {v, w}
                dropped.add(id(s))
        if not mapping and not renames:
            break
        # the counts after the round: each copy `v = w` goes (one definition of v,
        # one read of w), and no name is in two of the round's renamings
        if readers is None:
            readers, definers = table.index()
        changed_reads, changed_defs = {}, {}
        for v, w in mapping.items():
            defs[v] = 0
            reads[w] += reads.pop(v, 0) - 1
            most[v] = 0  # (v was defined once, and is not an input)
            changed_reads.update(readers.get(v, {}))
            readers.setdefault(w, {}).update(readers.pop(v, {}))
            definers.pop(v, None)
        for w, v in renames.items():
            defs[v] = defs.pop(w, 0)
            reads[w] = 0  # its one read was the copy
            most[v] = most.get(w, 0) - (w in inputs)
            most[w] = int(w in inputs)
            changed_reads.update(readers.get(w, {}))
            changed_defs.update(definers.get(w, {}))
            readers.setdefault(v, {}).update(readers.pop(w, {}))
            definers[v] = definers.pop(w, {})
        both = {**mapping, **renames}
        known = table.known
        for s in changed_reads.values():
            ir.rename_stmt_reads(s, both)
            known.pop(id(s), None)
        for s in changed_defs.values():
            ir.rename_stmt_defs(s, renames)
    return without(body, lambda x: id(x) in dropped) if dropped else body


def _idle(body, keep) -> bool:
    """Is `body` one `propagate_copies` leaves as it is, by what its copies' names
    alone say: no copy ``v = w`` a round could take (whatever the counts), and no
    copy-back (``w = v`` and ``v = w`` both there)? A look at each line's type, not
    the counts' walk of every expression (after folding constants, the copies are
    often only those no round takes)."""
    pairs = set()
    for s in ir.walk(body):
        if type(s) is ir.Assign and not s.unpack and type(s.value) is ast.Name:
            v, w = s.targets[0], s.value.id
            if v == w:  # (no round takes it; a second one after it is a copy-back)
                pass
            elif v in keep:
                if _propagatable(w) and w not in keep:
                    return False
            elif _propagatable(v) and (w.endswith("%bar") or not v.endswith("%bar")):
                return False
            if (w, v) in pairs:
                return False
            pairs.add((v, w))
    return True


def coalesce_carried(body, reads) -> list:
    """In code with no reverse sweep (forward mode), a loop-carried value computed in
    its own name and copied into the carried one at the iteration's end (``x_2 =
    x_1 + dt * v_1`` ... ``x_1 = x_2``) is computed in the carried name instead
    (``x_1 = x_1 + dt * v_1``), when nothing after that line in the iteration reads
    the old value: a copy per value and iteration less. Loops with one exit only."""
    for s in ir.walk(body):
        if not isinstance(s, ir.Loop) or not s.body or not isinstance(s.body[-1], ir.Exit) \
                or any(isinstance(x, ir.Exit) for x in ir.walk(s.body[:-1])):
            continue
        exit_ = s.body[-1]
        inside = ir.reads_in(s.body)
        phis = {p.name for p in s.phis}
        assigned = {}
        for k, x in enumerate(s.body[:-1]):
            for t in ir.defined_names(x):
                assigned[t] = k if t not in assigned and isinstance(x, ir.Assign) \
                    and not x.unpack else None
        renames = {}
        for copy in exit_.copies:
            p, d = copy.targets[0], copy.value
            if not isinstance(d, ast.Name) or d.id in phis or p in assigned:
                continue
            at = assigned.get(d.id)
            if at is None or reads.get(d.id, 0) != inside.get(d.id, 0) or any(
                    ir.names_in(c.value).count(d.id) for c in exit_.copies if c is not copy):
                continue
            later = s.body[at + 1:-1]
            if p in ir.reads_in(later) or any(p in ir.names_in(c.value)
                                              for c in exit_.copies):
                continue
            renames[d.id] = p
        if renames:
            s.body[:-1] = [_renamed(x, renames) for x in s.body[:-1]]
            exit_.copies = [c for c in exit_.copies if not (
                isinstance(c.value, ast.Name) and renames.get(c.value.id) == c.targets[0])]
    return body


def _renamed(stmt, mapping):
    """`stmt` with the names in `mapping` renamed, where it reads and where it assigns."""
    for x in ir.walk([stmt]):
        for get, set_ in ir.slots(x):
            node = get()
            if node is not None:
                set_(ir.substitute(node, mapping))
        if isinstance(x, ir.Assign):
            x.targets = tuple(mapping.get(t, t) for t in x.targets)
    return stmt


def without_self_copies(body):
    """``a = a`` (left where a branch hands a split value back under its name and
    the copies became the same name again) does nothing."""
    return without(body, lambda s: isinstance(s, ir.Assign) and not s.unpack
                    and isinstance(s.value, ast.Name) and s.value.id == s.targets[0])
