"""common: questions about statement lists that several of the optimizer's passes
ask (how often a name is assigned, what a line reads or changes, which later line
reads a value: `BlockIndex`), and `without`, the one way a pass drops statements
from nested blocks. Nothing here rewrites an expression.
"""

from __future__ import annotations

import ast
import bisect

from .. import ir


def without(body, drop):
    """`body` without the statements `drop` accepts, at every depth (the blocks of
    the statements that stay are changed in place)."""
    out = []
    for s in body:
        if drop(s):
            continue
        if type(s) in FLAT:  # (the commonest)
            out.append(s)
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


# the statement types with no nested blocks (`ir.blocks` gives none), for a fast test
FLAT = frozenset({ir.Assign, ir.AugAssign, ir.SetItem, ir.Dup, ir.Expr, ir.Push,
        ir.Pop, ir.Kept, ir.Return, ir.Comment})


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
    count = _max_defs_block(body)
    for n in inputs:
        count[n] = count.get(n, 0) + 1
    return count


def _max_defs_block(stmts) -> dict:
    """`max_defs` of one block, `inputs` aside (at module level: a nested function that
    calls itself is a reference cycle, left for the cyclic collector)."""
    count = {}
    for s in stmts:
        t = type(s)
        if t is ir.Assign:  # (the commonest, inline)
            for n in s.targets:
                count[n] = count.get(n, 0) + 1
            continue
        if t is ir.Comment:
            continue
        if isinstance(s, ir.If):
            a, b = _max_defs_block(s.body), _max_defs_block(s.orelse)
            inner = {n: max(a.get(n, 0), b.get(n, 0)) for n in set(a) | set(b)}
        elif isinstance(s, (ir.Loop, ir.ForEach)):
            inner = _max_defs_block(getattr(s, "cond", [])) | {}
            for n, k in _max_defs_block(s.body).items():
                inner[n] = inner.get(n, 0) + k
            for n in ir.defined_names(s):
                inner[n] = inner.get(n, 0) + 1
        elif isinstance(s, ir.Exit):
            inner = _max_defs_block(s.copies)
        else:
            inner = {}
            for n in ir.defined_names(s):
                inner[n] = inner.get(n, 0) + (2 if isinstance(s, ir.AugAssign) else 1)
        for n, k in inner.items():
            count[n] = count.get(n, 0) + k
    return count


def reads_of(s) -> set:
    """The names a statement's own expressions read (not those of its blocks)."""
    if type(s) is ir.Assign:
        return set(ir.names_in(s.value))
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


class BlockIndex:
    """Which later line of one block reads a line's value (`reader`), for a pass
    that asks it of many lines and rewrites the block as it goes: which lines read
    and change each name, and where the branches, loops and comments are, indexed
    once, so a question costs what lies between a line and its reader, not a scan
    of every line on the way (asked of every line of a long straight-line block,
    the scan made a pass quadratic).

    The pass keeps the block's positions: a line it drops becomes None in `out`
    (`drop`; the caller removes the Nones when it is done), and a line it rewrites
    is told (`rewritten`) after the change. A rewrite may change what a line reads,
    not what it assigns or whether it has blocks (the passes only rewrite values)."""

    def __init__(self, out):
        self.out = out
        self.reads = []  # position -> the names the line reads (`reads_of`)
        self.readers = {}  # name -> positions of lines that read it, in order
        self.changers = {}  # name -> positions of lines that change it (`_changed_by`)
        self.blocks = []  # positions of lines with blocks
        self.comments = []  # positions of comments
        readers, changers, Assign = self.readers, self.changers, ir.Assign
        for k, x in enumerate(out):
            t = type(x)
            if t is Assign:  # (the commonest, inline: `reads_of`, `_changed_by`)
                read = set(ir.names_in(x.value))
                changed = set(x.targets) if x.unpack else x.targets
            elif t is ir.Comment:
                read, changed = set(), ()
            else:
                read, changed = reads_of(x), _changed_by(x)
            self.reads.append(read)
            for n in read:
                if n in readers:
                    readers[n].append(k)
                else:
                    readers[n] = [k]
            for n in changed:
                if n in changers:
                    changers[n].append(k)
                else:
                    changers[n] = [k]
            if t is ir.Comment:
                self.comments.append(k)
            elif t not in FLAT and ir.blocks(x):
                self.blocks.append(k)

    def drop(self, k):
        """Line `k` is gone (None in `out`)."""
        self.out[k] = None

    def rewritten(self, k):
        """Line `k` (a new statement, or the same one changed) reads what it reads now."""
        read = reads_of(self.out[k])
        for n in read - self.reads[k]:
            positions = self.readers.setdefault(n, [])
            bisect.insort(positions, k)
        self.reads[k] = read

    def reader(self, i, comments=True):
        """The position of the first line after `out[i]` that reads its target, when
        nothing between changes what `out[i]` reads and no branch or loop comes first
        (the reader itself none either) and, with ``comments=False``, no comment (the
        start of another line's block); else None. Dropped lines are not there."""
        out = self.out
        n = out[i].targets[0]
        positions = self.readers.get(n, ())
        j = None
        for a in range(bisect.bisect_right(positions, i), len(positions)):
            k = positions[a]
            if out[k] is not None and n in self.reads[k]:
                j = k
                break
        end = len(out) if j is None else j
        if _any_between(self.blocks, i, end) or not comments and \
                _any_between(self.comments, i, end):
            return None
        if j is None or ir.blocks(out[j]):
            return None
        for m in set(ir.names_in(out[i].value)):
            positions = self.changers.get(m, ())
            for a in range(bisect.bisect_right(positions, i), len(positions)):
                k = positions[a]
                if k >= j:
                    break
                if out[k] is not None:
                    return None
        return j


def _any_between(positions, i, j) -> bool:
    """Is one of the sorted `positions` strictly between `i` and `j`?"""
    k = bisect.bisect_right(positions, i)
    return k < len(positions) and positions[k] < j


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
