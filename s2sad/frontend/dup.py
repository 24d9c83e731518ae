"""dup: ANF -> explicit-duplication form.

Contract
--------
`insert_dups(fn)` returns a copy of the ANF function `fn` in which every local name
is read at most once on any path (`fn` stays as it is; the two share the lines and
subexpressions the splitting leaves as they are, which no later stage changes in
place). A name read at several places is split, right after it is defined (at the
start of the block for parameters and for names that come into a branch from
outside), by

    x%a, x%b, ... = dup(x)          (printed ``x_a, x_b = dup(x)``, or
                                    ``x_a, x_b, x_c = dup(x, 3)``)

and each read is renamed to its own copy, in program order. An ``if`` statement counts
as one read of every outer name it reads (in its test or in either branch); inside a
branch, a name that arrives from outside and is read several times there is split
again at the start of that branch. Copies of ``x`` are lettered ``a, b, ...`` in
order across the whole function, so nested splits stay short (``x_c``, not ``x_a_b``).

Nothing else changes: the result still runs and returns what `fn` returns, given
``dup = lambda v, n: (v,) * n`` (the runtime's `dup`). The reverse transform relies on
this form: a read becomes the definition of an adjoint, so each adjoint is defined
exactly once, and the only place adjoints are summed is the reverse of a `dup`.
"""

from __future__ import annotations

import ast
import string

from .. import ir


def insert_dups(fn: ir.Function) -> ir.Function:
    # (a line with no nested block is renamed into a copy where a read of it is split,
    # and kept where none is: most lines of straight-line code; `_Splitter` changes the
    # others in place, on a copy)
    body = [s if type(s) in _OWN_COPY else ir.copy_tree(s) for s in fn.body]
    fn = ir.Function(fn.name, ir.copy_tree(fn.params), body, dict(fn.refs), fn.source, fn.doc)
    looped = _pass_through_reads(fn.body)
    splitter = _Splitter(ir.local_names(fn))
    fn.body = splitter.block(fn.body, [p.name for p in fn.params], shared=True)
    if looped:  # (an `Exit` is in a loop)
        _drop_self_copies(fn.body)
    return fn


# the statements `_Splitter.rename_reads` copies where it renames a read (their fields
# replaced, not changed in place), which `insert_dups` need not copy first
_OWN_COPY = frozenset({ir.Assign, ir.Expr, ir.Return, ir.SetItem, ir.AugAssign})


def _loop_exits(body):
    """The `Exit`s of this loop body (not those of loops nested in it)."""
    for s in body:
        if isinstance(s, ir.Exit):
            yield s
        elif isinstance(s, ir.If):
            yield from _loop_exits(s.body)
            yield from _loop_exits(s.orelse)


def _pass_through_reads(body):
    """An `Exit` that leaves a loop-carried value as it is still passes that value on
    (to the next iteration, or out of the loop): it reads it. Spell that read as a
    copy ``p = p``, so splitting counts it (a value split earlier in the iteration
    gives one of its copies to this path too, and the reverse of that copy carries the
    adjoint through); `_drop_self_copies` removes the ones that stay ``p = p``.
    Whether there is a loop."""
    looped = False
    for s in ir.walk(body):
        if not isinstance(s, ir.Loop):
            continue
        looped = True
        for exit_ in _loop_exits(s.body):
            copied = {c.targets[0] for c in exit_.copies}
            for phi in s.phis:
                if phi.name not in copied:
                    exit_.copies.append(ir.Assign((phi.name,), ir.name(phi.name), exit_.line))
    return looped


def _drop_self_copies(body):
    for s in ir.walk(body):
        if isinstance(s, ir.Exit):
            s.copies = [c for c in s.copies if not (
                isinstance(c.value, ast.Name) and c.value.id == c.targets[0])]


# The suffixes later stages derive names with (`ir.adjoint`'s ``x%bar``, `ir.tangent`'s
# ``x%dot``, a part, a saved value, a tape...), which no copy may take
_RESERVED = frozenset({"bar", "dot", "part", "saved", "seed", "old", "next", "fwd", "bwd",
                       "jvp", "hvp", "out", "seq", "tape", "step", "count", "state", "ckpt",
                       "args", "items", "result", "retval", "outer", "probe", "indices",
                       "returned", "broke", "derivative", "hessian", "jacobian"})


def _letters(k: int) -> str:
    letters = string.ascii_lowercase
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = letters[r] + out
    return out


class _Splitter:
    def __init__(self, locals_):
        self.locals = set(locals_)  # (and the copies, as they are made)
        self.root: dict[str, str] = {}  # copy name -> the name it copies
        self.counter: dict[str, int] = {}
        self.is_local = self.locals.__contains__  # (a local, or a copy of one)

    def copies(self, n: str, count: int) -> tuple:
        root = self.root.get(n, n)
        k = self.counter.get(root, 0)
        names = []
        while len(names) < count:
            suffix, k = _letters(k), k + 1
            name = ir.derived(root, suffix)
            # (a value read 1,396 times would otherwise have its copy ``x%bar``, the
            # name its adjoint is given: the gradient read as the value itself)
            if suffix not in _RESERVED and name not in self.locals:
                names.append(name)
        self.counter[root] = k
        names = tuple(names)
        for c in names:
            self.root[c] = root
        self.locals.update(names)
        return names

    def block(self, stmts: list, incoming: list, outflow=frozenset(), shared=False) -> list:
        """Split the names read more than once in `stmts`. `incoming` lists the
        names defined before the block (in definition order). `outflow` (for a branch
        of an ``if``) names what the block defines that is read after the ``if``:
        leaving the branch is one more read of such a name, if the block reads it
        too, and the block ends by handing its last copy back under the name.
        `shared`: its lines of `_OWN_COPY` are the ANF function's (`rename_reads`)."""
        sites: dict[str, int] = {}
        last: dict[str, int] = {}  # name -> the index of the last line reading it
        reads = [self.reads(s) for s in stmts]  # (no line is renamed before its turn)
        for i, read in enumerate(reads):
            for n in read:
                sites[n] = sites.get(n, 0) + 1
                last[n] = i
        handed = []
        if outflow and not (ir.terminates(stmts) or (stmts and isinstance(stmts[-1], ir.Exit))):
            defined = {n for s in stmts for n in self.defines(s)}
            handed = sorted(n for n in outflow if n in defined and sites.get(n))
            for n in handed:
                sites[n] += 1
        copies = {n: list(self.copies(n, k)) for n, k in sites.items() if k > 1}
        out = []
        for n in incoming:
            if n in copies:
                out.append(ir.Dup(tuple(copies[n]), n, 0))
        for i, s in enumerate(stmts):
            if type(s) is ir.Assign:  # (the commonest: its value is its one slot)
                if copies and not copies.keys().isdisjoint(reads[i]):
                    value = _renamed_each(s.value, copies, self.is_local)
                    if shared:
                        s = _copied(s)
                    s.value = value
            elif copies:
                s = self.rename_reads(s, copies, shared and type(s) in _OWN_COPY)
            if isinstance(s, ir.If):
                outer = self.inner_reads(s)
                # (what it defines that a line after it reads, or the block hands on)
                flows = frozenset(n for n in self.defines(s)
                                  if last.get(n, -1) > i or n in outflow)
                s.body = self.block(s.body, outer, flows)
                s.orelse = self.block(s.orelse, outer, flows)
            elif isinstance(s, ir.Loop):
                self.loop_body(s)
            out.append(s)
            for n in s.targets if type(s) is ir.Assign else self.defines(s):
                if n in copies:
                    out.append(ir.Dup(tuple(copies[n]), n, getattr(s, "line", 0)))
        line = next((getattr(s, "line", 0) for s in reversed(stmts) if getattr(s, "line", 0)), 0)
        for n in handed:
            # the block's own definition takes a name of its own, so `n` is still
            # defined once on this path: by the hand-back
            own = self.copies(n, 1)[0]
            ir.rename_defs(out, {n: own})
            ir.rename_reads(out, {n: own})  # (a loop in the block reads its own phi)
            out.append(ir.Assign((n,), ir.name(copies[n].pop(0)), line))
        return out

    def loop_body(self, s: ir.Loop):
        """One iteration (condition, test, body) is a block whose incoming names are
        the loop-carried variables, the target and the outer names it reads."""
        marker = ir.Expr(s.test) if s.test is not None else None
        region = s.cond + ([marker] if marker else []) + s.body
        incoming = [p.name for p in s.phis] + ([s.target] if s.target else []) \
            + self.inner_reads(s)
        region = self.block(region, incoming)
        if marker is None:
            s.cond, s.body = [], region
        else:
            i = next(k for k, x in enumerate(region) if x is marker)
            s.cond, s.test, s.body = region[:i], marker.value, region[i + 1:]

    # ---------------------------------------------------------------- reads

    def own_exprs(self, s) -> list:
        """The expressions a statement reads itself, outside its nested blocks."""
        if isinstance(s, ir.Exit):
            return [c.value for c in s.copies]
        return list(ir.exprs(s))

    def reads(self, s) -> list:
        """Read sites of a statement: every read; an `if` or a loop also reads, once
        each, the outer names its nested blocks read."""
        if type(s) is ir.Assign:  # (the commonest: its value is all it reads)
            return ir.local_reads(s.value, self.is_local)
        own = [n for node in self.own_exprs(s) for n in ir.local_reads(node, self.is_local)]
        if isinstance(s, (ir.If, ir.Loop)):
            return own + self.inner_reads(s)
        return own

    def inner_reads(self, s) -> list:
        """Outer names the nested blocks of `s` read, each once, in order of first read."""
        if isinstance(s, ir.If):
            region = s.body + s.orelse
            inner_defs = ir.all_defined(region, exits=False)
            extra = []
        else:
            region = s.cond + s.body
            inner_defs = ir.all_defined(region) | set(ir.defined_names(s))
            extra = [s.test] if s.test is not None else []
        seen = []
        nodes = [node for sub in ir.walk(region) for node in self.own_exprs(sub)
                 if not isinstance(sub, ir.Exit)]
        for node in extra + nodes:
            for n in ir.local_reads(node, self.is_local):
                if n not in inner_defs and n not in seen:
                    seen.append(n)
        return seen

    def defines(self, s) -> tuple:
        if isinstance(s, ir.If):
            return tuple(sorted(ir.all_defined(s.body, exits=False)
                                | ir.all_defined(s.orelse, exits=False),
                                key=_first_def_order(s)))
        if isinstance(s, ir.Exit):
            return ()
        return ir.defined_names(s)

    def rename_reads(self, s, copies, shared=False):
        """Give each read of a split name its next copy (an `if` or a loop: one copy
        for all the reads in its nested blocks). Returns the statement: `s`, changed
        in place, or where `s` is `shared` (one of `_OWN_COPY`, the ANF function's), a
        copy of it where a read is renamed."""
        if isinstance(s, ir.Exit):
            for c in s.copies:
                c.value = _rename_each(c.value, copies, self.is_local)
            return s
        if isinstance(s, ir.Dup):
            if s.source in copies:
                s.source = copies[s.source].pop(0)
            return s
        if type(s) is ir.Assign:  # (the commonest: its value is its one slot)
            value = _rename_each(s.value, copies, self.is_local)
            if value is not s.value:
                if shared:
                    s = _copied(s)
                s.value = value
            return s
        values = [_rename_each(get(), copies, self.is_local) for get, _ in ir.slots(s)]
        if shared:
            if all(v is get() for v, (get, _) in zip(values, ir.slots(s))):
                return s
            s = _copied(s)
        for v, (_, set_) in zip(values, ir.slots(s)):
            set_(v)
        if isinstance(s, (ir.If, ir.Loop)):
            mapping = {n: copies[n].pop(0) for n in self.inner_reads(s) if n in copies}
            if mapping:
                region = s.body + s.orelse if isinstance(s, ir.If) else s.cond + s.body
                ir.rename_reads(region, mapping)
                if isinstance(s, ir.Loop) and s.test is not None:
                    s.test = ir.substitute(s.test, mapping)
        return s


def _first_def_order(s: ir.If):
    order = {}
    for sub in ir.walk(s.body + s.orelse):
        for n in ir.defined_names(sub):
            order.setdefault(n, len(order))
    return lambda n: order[n]



def _copied(node):
    """A shallow copy of a statement or an AST node (its fields shared)."""
    new = type(node).__new__(type(node))
    new.__dict__ = node.__dict__.copy()
    return new


def _rename_each(node, copies, is_local):
    """Rename the reads of split names in one expression, each read to the next copy,
    in the order `ir.local_reads` visits them: the node itself where none is read, else
    a copy of the nodes down to each renamed name, the rest shared (`node` is not
    changed: it may be the ANF function's)."""
    if copies.keys().isdisjoint(ir.names_in(node)):
        return node
    return _renamed_each(node, copies, is_local)


def _renamed_each(node, copies, is_local):
    """`_RenameEach` on a copy of `node`, the commonest nodes taken inline in the order
    it visits them, and copied only where a name below them is renamed."""
    t = type(node)
    if t is ast.Name:
        if node.id in copies and is_local(node.id):
            return ast.Name(id=copies[node.id].pop(0), ctx=node.ctx)
        return node
    if t is ast.Constant:
        return node
    if t is ast.BinOp:
        left = _renamed_each(node.left, copies, is_local)
        right = _renamed_each(node.right, copies, is_local)
        if left is node.left and right is node.right:
            return node
        node = _copied(node)
        node.left, node.right = left, right
        return node
    if t is ast.UnaryOp:
        operand = _renamed_each(node.operand, copies, is_local)
        if operand is node.operand:
            return node
        node = _copied(node)
        node.operand = operand
        return node
    if t is ast.Attribute:  # (`_RenameEach.visit_Attribute`)
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and not is_local(root.id):
            return node
        value = _renamed_each(node.value, copies, is_local)
        if value is node.value:
            return node
        node = _copied(node)
        node.value = value
        return node
    if t is ast.Call:
        func = _renamed_each(node.func, copies, is_local)
        changed = func is not node.func
        args = []
        for a in node.args:
            b = _renamed_each(a, copies, is_local)
            changed = changed or b is not a
            args.append(b)
        keywords = []
        for k in node.keywords:
            value = _renamed_each(k.value, copies, is_local)
            if value is not k.value:
                k = _copied(k)
                k.value = value
                changed = True
            keywords.append(k)
        if not changed:
            return node
        node = _copied(node)
        node.func, node.args, node.keywords = func, args, keywords
        return node
    if copies.keys().isdisjoint(ir.names_in(node)):
        return node
    return _RenameEach(copies, is_local).visit(ir.copy_tree(node))


class _RenameEach(ast.NodeTransformer):
    def __init__(self, copies, is_local):
        self.copies = copies
        self.is_local = is_local

    def visit_Attribute(self, n):
        root = n
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and not self.is_local(root.id):
            return n
        self.generic_visit(n)
        return n

    def visit_Name(self, n):
        if n.id in self.copies and self.is_local(n.id):
            return ast.Name(id=self.copies[n.id].pop(0), ctx=n.ctx)
        return n
