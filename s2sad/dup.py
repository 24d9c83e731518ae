"""dup: ANF -> explicit-duplication form.

Contract
--------
`insert_dups(fn)` returns a copy of the ANF function `fn` in which every local name
is read at most once on any path. A name read at several places is split, right after
it is defined (at the start of the block for parameters and for names that come into
a branch from outside), by

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
import copy
import string

from . import ir


def insert_dups(fn: ir.Function) -> ir.Function:
    fn = fn.clone()
    splitter = _Splitter(ir.local_names(fn))
    fn.body = splitter.block(fn.body, [p.name for p in fn.params])
    return fn


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
        self.locals = set(locals_)
        self.root: dict[str, str] = {}  # copy name -> the name it copies
        self.counter: dict[str, int] = {}

    def is_local(self, n):
        return n in self.locals or n in self.root

    def copies(self, n: str, count: int) -> tuple:
        root = self.root.get(n, n)
        start = self.counter.get(root, 0)
        self.counter[root] = start + count
        names = tuple(ir.derived(root, _letters(start + i)) for i in range(count))
        for c in names:
            self.root[c] = root
        return names

    def block(self, stmts: list, incoming: list) -> list:
        """Split the names read more than once in `stmts`. `incoming` lists the
        names defined before the block (in definition order)."""
        sites: dict[str, int] = {}
        for s in stmts:
            for n in self.reads(s):
                sites[n] = sites.get(n, 0) + 1
        copies = {n: list(self.copies(n, k)) for n, k in sites.items() if k > 1}
        out = []
        for n in incoming:
            if n in copies:
                out.append(ir.Dup(tuple(copies[n]), n, 0))
        for s in stmts:
            self.rename_reads(s, copies)
            if isinstance(s, ir.If):
                outer = self.branch_reads(s)
                s.body = self.block(s.body, outer)
                s.orelse = self.block(s.orelse, outer)
            out.append(s)
            for n in self.defines(s):
                if n in copies:
                    out.append(ir.Dup(tuple(copies[n]), n, getattr(s, "line", 0)))
        return out

    # ---------------------------------------------------------------- reads

    def reads(self, s) -> list:
        """Read sites of a statement: every read; for an `if`, every read in its test
        and one read per outer name its branches read."""
        if isinstance(s, ir.If):
            return ir.local_reads(s.test, self.is_local) + self.branch_reads(s)
        return [n for node in ir.exprs(s) for n in ir.local_reads(node, self.is_local)]

    def branch_reads(self, s: ir.If) -> list:
        """Outer names the branches of `s` read, each once, in order of first read."""
        inner_defs = ir.all_defined(s.body) | ir.all_defined(s.orelse)
        seen = []
        for sub in ir.walk(s.body + s.orelse):
            for node in ir.exprs(sub):
                for n in ir.local_reads(node, self.is_local):
                    if n not in inner_defs and n not in seen:
                        seen.append(n)
        return seen

    def defines(self, s) -> tuple:
        if isinstance(s, ir.If):
            return tuple(sorted(ir.all_defined(s.body) | ir.all_defined(s.orelse),
                                key=_first_def_order(s)))
        return ir.defined_names(s)

    def rename_reads(self, s, copies):
        """Give each read of a split name its next copy (an `if`: one copy for all)."""
        if isinstance(s, ir.If):
            s.test = _rename_each(s.test, copies, self.is_local)
            mapping = {n: copies[n].pop(0) for n in self.branch_reads(s) if n in copies}
            if mapping:
                _rename_reads_in(s.body + s.orelse, mapping)
            return
        if isinstance(s, ir.Dup):
            if s.source in copies:
                s.source = copies[s.source].pop(0)
            return
        if isinstance(s, (ir.Assign, ir.Expr, ir.Return, ir.AugAssign)):
            s.value = _rename_each(s.value, copies, self.is_local)


def _first_def_order(s: ir.If):
    order = {}
    for sub in ir.walk(s.body + s.orelse):
        for n in ir.defined_names(sub):
            order.setdefault(n, len(order))
    return lambda n: order[n]



def _rename_each(node, copies, is_local):
    """Rename the reads of split names in one expression, each read to the next copy,
    in the order `ir.local_reads` visits them."""

    class _R(ast.NodeTransformer):
        def visit_Attribute(self, n):
            root = n
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and not is_local(root.id):
                return n
            self.generic_visit(n)
            return n

        def visit_Name(self, n):
            if n.id in copies and is_local(n.id):
                return ast.Name(id=copies[n.id].pop(0), ctx=n.ctx)
            return n

    return _R().visit(copy.deepcopy(node))


def _rename_reads_in(stmts, mapping):
    for s in ir.walk(stmts):
        if isinstance(s, (ir.Assign, ir.AugAssign, ir.Expr, ir.Return)):
            s.value = ir.substitute(s.value, mapping)
        elif isinstance(s, ir.If):
            s.test = ir.substitute(s.test, mapping)
        elif isinstance(s, ir.Dup):
            s.source = mapping.get(s.source, s.source)
