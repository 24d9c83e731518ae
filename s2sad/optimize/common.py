"""common: questions about statement lists that several of the optimizer's passes
ask (how often a name is assigned, what a line reads or changes, which later line
reads a value), and `without`, the one way a pass drops statements from nested
blocks. Nothing here rewrites an expression.
"""

from __future__ import annotations

import ast

from .. import ir


def without(body, drop):
    """`body` without the statements `drop` accepts, at every depth (the blocks of
    the statements that stay are changed in place)."""
    out = []
    for s in body:
        if drop(s):
            continue
        if isinstance(s, ir.If):
            s.body = without(s.body, drop)
            s.orelse = without(s.orelse, drop)
        elif isinstance(s, ir.Loop):
            s.cond = without(s.cond, drop)
            s.body = without(s.body, drop)
        elif isinstance(s, ir.ForEach):
            s.body = without(s.body, drop)
        elif isinstance(s, ir.Exit):
            s.copies = without(s.copies, drop)
        out.append(s)
    return out


def definitions(body) -> dict:
    """How many times each name is assigned in `body` (an update counting twice)."""
    count = {}
    for s in ir.walk(body):
        for t in ir.defined_names(s):
            count[t] = count.get(t, 0) + (2 if isinstance(s, ir.AugAssign) else 1)
    return count


def max_defs(body, inputs) -> dict:
    """For each name, the most times it is assigned along one path (a loop body or
    an `ir.Exit` counts once, but a name assigned both outside and inside a loop, or
    by a loop and before it, counts twice); each of `inputs`, assigned before `body`
    starts, once more."""
    def block(stmts) -> dict:
        count = {}
        for s in stmts:
            if isinstance(s, ir.If):
                a, b = block(s.body), block(s.orelse)
                inner = {n: max(a.get(n, 0), b.get(n, 0)) for n in set(a) | set(b)}
            elif isinstance(s, (ir.Loop, ir.ForEach)):
                inner = block(getattr(s, "cond", [])) | {}
                for n, k in block(s.body).items():
                    inner[n] = inner.get(n, 0) + k
                for n in ir.defined_names(s):
                    inner[n] = inner.get(n, 0) + 1
            elif isinstance(s, ir.Exit):
                inner = block(s.copies)
            else:
                inner = {}
                for n in ir.defined_names(s):
                    inner[n] = inner.get(n, 0) + (2 if isinstance(s, ir.AugAssign) else 1)
            for n, k in inner.items():
                count[n] = count.get(n, 0) + k
        return count

    count = block(body)
    for n in inputs:
        count[n] = count.get(n, 0) + 1
    return count


def reads_of(s) -> set:
    """The names a statement's own expressions read (not those of its blocks)."""
    out = set()
    for node in ir.exprs(s):
        out |= set(ir.names_in(node))
    return out


def changed_in_place(body) -> set:
    """Names of objects some statement changes in place (``x[i] = v``,
    ``x_bar[i] += g``): two such objects are never one, however alike their first
    values."""
    out = set()
    for s in ir.walk(body):
        target = s.target if isinstance(s, (ir.SetItem, ir.AugAssign)) else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            out.add(target.value.id)
    return out


def reader_in_block(out, i, comments=True):
    """The index of the first line after `out[i]` that reads its target, when nothing
    between changes what `out[i]` reads and no branch or loop comes first (and, with
    ``comments=False``, no comment: the start of another line's block); else None."""
    n = out[i].targets[0]
    needs = set(ir.names_in(out[i].value))
    for j in range(i + 1, len(out)):
        x = out[j]
        if isinstance(x, ir.Comment):
            if comments:
                continue
            return None
        if ir.blocks(x):
            return None
        if n in reads_of(x):
            return j
        if _changed_by(x) & needs:
            return None
    return None


def _changed_by(x) -> set:
    """Names a line assigns, and the container it writes into in place."""
    changed = set(ir.defined_names(x))
    target = getattr(x, "target", None)
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        changed.add(target.value.id)
    return changed


def reads_of_target(s) -> set:
    """The names an update's or a store's target reads (``xs_bar[i]`` reads `i`)."""
    target = getattr(s, "target", None)
    return set(ir.names_in(target)) if isinstance(target, ast.AST) else set()
