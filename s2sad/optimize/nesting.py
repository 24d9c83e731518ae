"""nesting: passes that write a value into the one line that reads it.

`nest_forward` writes a forward temporary back into its reader, so the forward
sweep reads like the user's code and evaluates the same operations in the same
order; `tangents_after_primals` then puts each tangent line right after its
primal's. `nest_array_adjoints` writes an array adjoint into the one adjoint line
that reads it, so NumPy makes one temporary less.
"""

from __future__ import annotations

import ast

from .. import ir
from .common import BlockIndex
from .context import Context


def _is_user(n: str) -> bool:
    """A user's name, or a later version of one (``S%1``, emitted ``S_1``)."""
    parts = n.split("%")
    return parts[0] != "" and all(p.isdigit() for p in parts[1:])


def _is_temp(n: str) -> bool:
    """A temporary (``%3``), or a temporary's tangent (``%3%dot``)."""
    parts = n.split("%")
    return parts[0] == "" and parts[1].isdigit() and (
        len(parts) == 2 or len(parts) == 3 and parts[2] == "dot")


def _reads_in_order(node) -> list:
    """Names read by an expression, in Python's evaluation order."""
    out = []
    _add_reads(node, out)
    return out


def _add_reads(n, out) -> None:
    """`_reads_in_order`'s walk (at module level: a nested function that calls itself
    is a reference cycle, left for the cyclic collector)."""
    if isinstance(n, ast.Name):
        out.append(n.id)
        return
    for child in ast.iter_child_nodes(n):
        _add_reads(child, out)


def nest_forward(forward, reverse, ctx: Context) -> list:
    """`forward` with its temporaries nested into their readers (see `_nest`) where
    their computation is pure (`ctx.pure`) and nothing in the reverse sweep reads
    them. A value the reverse sweep computes again for itself (a reversed loop's
    recomputed ``t7 = t4 - t6``) is the reverse's own: its reads there are not of
    the forward line, and its adjoint has its ``t7`` beside it there. A temporary
    whose adjoint the reverse sweep names otherwise keeps its line, so every
    ``t3_bar`` has its ``t3``, unless it is an array: one bound to a name stays in
    memory until the derivative returns (``t1 = X @ W1 + b1`` held through the whole
    reverse sweep), one nested is freed once its reader has run."""
    pure = ctx.pure
    array = ctx.kinds.array if ctx.kinds is not None else (lambda n: False)
    again = {t for x in ir.walk(reverse) for t in ir.defined_names(x)}
    # with a reverse sweep, a user's array read once, by the next line, is nested
    # too (``d = H @ W2 + b2 - Y`` for ``out = H @ W2 + b2; d = out - Y``): held to
    # the end it would cost its size through the whole reverse sweep
    held = (lambda n: _is_user(n) and array(n)) if reverse else (lambda n: False)
    if not any(type(s) is ir.Assign and not s.unpack and (
            _is_temp(s.targets[0]) or held(s.targets[0])) for s in ir.walk(forward)):
        return forward  # (no line `_nest` could move: the reads need not be counted)
    reads = ir.reads_in(forward)
    for n, k in ir.reads_in(reverse).items():
        if n not in again:
            reads[n] = reads.get(n, 0) + k
    return _nest(forward, reads, lambda s: pure(s.value) and (
        ir.adjoint(s.targets[0]) not in again or s.targets[0] in again
        or array(s.targets[0])), ctx, held=held)


def _nest(body, reads, nestable, ctx: Context, tail=None, held=None) -> list:
    """A temporary of `body` read exactly once (`reads` counts the reads), by a later
    line of the same block, is written into that line when `nestable(s)` holds for
    its line `s`, it reads no list or array the code writes into (`ctx.mutable`), and
    nothing else is evaluated in between (``t1 = x * y; a = t1 + z`` becomes ``a = x *
    y + z``). `tail` is a (get, set) slot read right after the block (a while loop's
    test after its condition statements).

    Forward-mode code interleaves two computations, the primal lines and the tangent
    lines (``t3 = c * v``, ``t3_dot = c * v_dot``, ``a = t2 - t3``): each has its own
    queue of temporaries waiting for their reader, and a line of one does not stop
    the other's temporaries from nesting (both are pure, and neither assigns what the
    other reads), so ``a = t2 - c * v`` and ``a_dot = t2_dot - c * v_dot``."""
    out = []
    queues = {False: [], True: []}  # tangent? -> [(temp, value)], oldest first
    lines = {}  # temp -> its line's user line, kept when the line is put back

    def flush(pending, upto=None):
        keep = pending if upto is None else pending[:upto]
        for name, value in keep:
            out.append(ir.Assign((name,), value, lines.get(name, 0)))
        del pending[: len(keep)]

    def flush_all():
        for pending in _oldest_first(queues):
            flush(pending)

    def absorb(pending, get, set_):
        node = get()
        if node is None or not pending:
            return
        order = [n for n in _reads_in_order(node) if any(n == p for p, _ in pending)]
        k = len(pending)
        while k and [p for p, _ in pending[-k:]] != [n for n in order
                                                     if any(n == p for p, _ in pending[-k:])]:
            k -= 1
        if k and all(any(n == p for n in order) for p, _ in pending[-k:]):
            nested = dict(pending[-k:])
            flush(pending, len(pending) - k)
            pending.clear()
            set_(ir.substitute(node, nested))

    last = _last_reads(body)

    def read_later(i, target) -> bool:
        """Is the target of line `i` read by a later line of this block (not nested),
        or by the slot read right after the block?"""
        return last.get(target, -1) > i or \
            tail is not None and target in ir.names_in(tail[0]())

    for i, s in enumerate(body):
        if isinstance(s, ir.Exit):
            flush_all()
            out.append(s)
            continue
        tangent = isinstance(s, ir.Assign) and not s.unpack and _is_tangent(s.targets[0])
        if isinstance(s, ir.Assign) and not s.unpack:
            other = queues[not tangent]
            # the other computation's temporaries wait on, unless this line reads one
            # or assigns a name one of them reads
            if other:
                read = set(ir.names_in(s.value))
                if any(n in read or any(t in ir.names_in(v) for t in s.targets)
                       for n, v in other):
                    flush(other)
            if queues[tangent]:  # (the slot's closures only for a line that may absorb)
                absorb(queues[tangent], *ir.slots(s)[0])
            if (_is_temp(s.targets[0]) or held is not None and held(s.targets[0])
                    and last.get(s.targets[0]) == i + 1) \
                    and reads.get(s.targets[0]) == 1 and nestable(s) \
                    and not ctx.reads_mutable(s.value) and read_later(i, s.targets[0]):
                queues[tangent].append((s.targets[0], s.value))
                lines[s.targets[0]] = s.line
                continue
            flush(queues[tangent])
            out.append(s)
            continue
        if isinstance(s, (ir.If, ir.Expr, ir.Return, ir.SetItem)) and any(queues.values()):
            own = ir.slots(s)
            for pending in _oldest_first(queues):
                absorb(pending, *own[0])
        if isinstance(s, ir.If):
            flush_all()
            s.body = _nest(s.body, reads, nestable, ctx)
            s.orelse = _nest(s.orelse, reads, nestable, ctx)
            out.append(s)
            continue
        if isinstance(s, ir.Loop):
            flush_all()
            test = ir.loop_test_slot(s)
            s.cond = _nest(s.cond, reads, nestable, ctx, test[0] if test else None)
            s.body = _nest(s.body, reads, nestable, ctx)
            out.append(s)
            continue
        flush_all()
        out.append(s)
    if tail is not None:
        for pending in _oldest_first(queues):
            absorb(pending, *tail)
    flush_all()
    return out


def tangents_after_primals(body) -> list:
    """Each tangent line right after the line computing its value (``d1 = ...`` then
    ``d1_dot = ...``), where nesting left it further down: moved up past plain
    assignments that assign nothing it reads."""
    out = []
    for s in body:
        for b in ir.blocks(s):
            b[:] = tangents_after_primals(b)
        if isinstance(s, ir.Assign) and not s.unpack and _is_tangent(s.targets[0]):
            primal = s.targets[0][: -len("%dot")]
            read = set(ir.names_in(s.value))
            k = len(out)
            while k and isinstance(out[k - 1], ir.Assign) \
                    and primal not in out[k - 1].targets \
                    and not read & set(out[k - 1].targets):
                k -= 1
            if k and isinstance(out[k - 1], ir.Assign) and primal in out[k - 1].targets:
                while k < len(out) and isinstance(out[k], ir.Assign) \
                        and _is_tangent(out[k].targets[0]):
                    k += 1  # after the tangents already there
                out.insert(k, s)
                continue
        out.append(s)
    return out


def _is_tangent(n: str) -> bool:
    return n.endswith("%dot")


def _oldest_first(queues) -> list:
    """The primal queue, then the tangent one: the order they were computed in, for a
    primal temporary always comes before its tangent."""
    return [queues[False], queues[True]]


def _last_reads(body) -> dict:
    """Each name -> the position of the last statement of `body` whose own first
    expression reads it (not in nested blocks): `s` at position `i` is read by a later
    statement of the same block when its target's position is above `i`. Taken once
    per block, before nesting changes any line (a scan per line was quadratic)."""
    last = {}
    for k, other in enumerate(body):
        if isinstance(other, (ir.If, ir.Assign, ir.Expr, ir.Return, ir.SetItem)):
            for n in ir.names_in(ir.slot_values(other)[0]):
                last[n] = k
    return last


_CHANGING = frozenset({"pop", "append", "insert", "extend", "remove", "clear"})


def _changes(value, reader) -> bool:
    """Does `value` change a list (``xs_bar.pop()``, the adjoint of an append) that
    the statement `reader` reads otherwise? Written into it, the change would come
    after the reader's target is read: ``hs_bar[-1] += hs_bar.pop() * 2.0`` adds
    into the element that was last before the pop."""
    changed = {ir.dotted(n.func.value) for n in ir.nodes(value) if type(n) is ast.Call
               and type(n.func) is ast.Attribute and n.func.attr in _CHANGING}
    if not changed:
        return False
    # (a slot of the reader holds a subscript target, ``hs_bar[-1]``, too)
    return any(n in changed for node in ir.slot_values(reader) for n in ir.names_in(node)) \
        or bool(changed & set(ir.defined_names(reader)))


def nest_array_adjoints(body, reads, ctx: Context) -> list:
    """An array adjoint read once, by a later line of the same adjoint block, is
    written into that line (``t4_bar = g / (1.0 + t4)`` then ``t3_bar = t4_bar * t4``
    becomes ``t3_bar = g / (1.0 + t4) * t4``): NumPy evaluates the expression with
    one temporary less (reusing it in place), and the arrays alive at once are fewer.
    Scalar adjoints keep their lines."""
    array = ctx.kinds.array
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = nest_array_adjoints(block, reads, ctx)

    def movable(s) -> bool:
        if not (isinstance(s, ir.Assign) and not s.unpack):
            return False
        n = s.targets[0]
        base = n[: -len("%bar")] if n.endswith("%bar") else None
        return base is not None and array(base) and reads.get(n) == 1 \
            and not isinstance(s.value, (ast.Name, ast.Constant))

    index = BlockIndex(out)
    for i, s in enumerate(out):
        if not movable(s):
            continue
        n = s.targets[0]
        j = index.reader(i, comments=False)  # (not into another line's block)
        if j is not None:
            x = out[j]
            slots = ir.slots(x)
            hits = [k for k, (get, _) in enumerate(slots) if n in ir.names_in(get())]
            if len(hits) == 1 and isinstance(x, (ir.Assign, ir.AugAssign, ir.SetItem)) \
                    and not _changes(s.value, x):
                get, set_ = slots[hits[0]]
                set_(ir.substitute(get(), {n: s.value}))
                index.drop(i)
                index.rewritten(j)
    return [x for x in out if x is not None]
