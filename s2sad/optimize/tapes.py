"""tapes: what loops save for their reverse.

`fill_tapes` decides each loop's `Push`/`Pop` values: exactly what its reverse reads
that the iteration computed, less what the reverse recomputes from the index and
what it saves anyway (`_recompute_plan`), less what only a nested loop's own tape
restores; a saved value an exit path has not computed is set to None on that path,
and a saved variable with no value before its loop starts as None.
`count_by_tape` lets a top-level ``while`` loop's reverse run ``len(tape)`` times
instead of counting its iterations, and `saved_names` says what a split
derivative's forward function hands its backward one.
"""

from __future__ import annotations

import ast

from .. import ir
from .context import Context


def fill_tapes(forward, reverse, ctx: Context):
    """Decide each loop's Push/Pop values (see the module docstring)."""
    loops = {s.tag: s for s in ir.walk(forward) if isinstance(s, ir.Loop)}
    if not loops:
        return  # (no tape to fill, no reverse loop to plan)
    saved = {}
    _needed(reverse, loops, saved, ctx)
    for tag, names in saved.items():
        for s in ir.walk(reverse):
            if isinstance(s, ir.Pop) and s.tag == tag:
                s.targets = tuple(names)
    for tag, loop in loops.items():
        names = tuple(saved.get(tag, ()))
        for s in ir.walk(loop.body):
            if isinstance(s, ir.Push) and s.tag == tag:
                s.values = names
        if names:
            start = {p.name for p in loop.phis} | ({loop.target} if loop.target else set())
            _fill_paths(loop.cond + loop.body, start, set(names), tag)
        for p in loop.phis:
            if p.init is None and p.name in names:
                # (a variable first assigned in the loop, ``if i == 0: prev = x``, has no
                # value when the first iteration saves it: it starts as None, which the
                # reverse of that iteration does not read, as in `anf`'s copies)
                p.init, p.unborn = ir.const(None), True


def count_by_tape(forward, reverse):
    """A ``while`` loop that no other loop encloses and that saves something every
    iteration has as many tape entries as iterations: its reverse runs
    ``len(tape)`` times, and the forward sweep needs no count. (A ``for`` loop with
    a ``break`` keeps its count: ``range(n)[:count]`` says what it means.)"""
    for block, loop in list(_top_loops(forward)):
        first = loop.body[0] if loop.body else None
        pushes = [x for x in ir.walk(loop.body) if isinstance(x, ir.Push) and x.tag == loop.tag]
        if not (loop.iter is None and isinstance(first, ir.AugAssign)
                and isinstance(first.target, str)
                and pushes and all(x.values for x in pushes)
                and len({len(x.values) for x in pushes}) == 1):
            continue
        count, tape = first.target, pushes[0].tape
        at = block.index(loop)
        init = next((k for k in range(at - 1, -1, -1) if isinstance(block[k], ir.Assign)
                     and block[k].targets == (count,)), None)  # (hoisted lines between)
        if init is None or ir.reads_in(forward).get(count, 0) > 1:  # (its own `+= 1`)
            continue
        del loop.body[0]
        del block[init]
        length = ast.Call(func=ir.name("len"), args=[ir.name(tape)], keywords=[])
        if len(pushes[0].values) > 1:  # (an entry per value saved: see `ir.Push`)
            length = ast.BinOp(left=length, op=ast.FloorDiv(),
                               right=ast.Constant(len(pushes[0].values)))
        for x in ir.walk(reverse):
            for get, set_ in ir.slots(x):
                set_(ir.substitute(get(), {count: length}))


def _top_loops(block):
    """``(block, loop)`` for each loop of `block` no other loop encloses."""
    for s in block:
        if isinstance(s, ir.Loop):
            yield block, s
        elif isinstance(s, ir.If):
            yield from _top_loops(s.body)
            yield from _top_loops(s.orelse)


def saved_names(forward, reverse) -> list:
    """What the reverse sweep reads from the forward sweep outside every loop, in the
    order the forward sweep defines it."""
    loops = {s.tag: s for s in ir.walk(forward) if isinstance(s, ir.Loop)}
    needed = _needed(reverse, loops, {}, Context(), planned=True)
    outside = set()  # what the forward sweep defines outside loop bodies
    _add_defined_outside_loops(forward, outside)
    order = _definition_order(forward)
    return sorted((n for n in needed if n in outside), key=order.__getitem__)


def _add_defined_outside_loops(block, outside) -> None:
    """Put in `outside` the names `block` defines outside loop bodies."""
    for s in block:
        outside.update(ir.defined_names(s))
        if isinstance(s, ir.If):
            _add_defined_outside_loops(s.body, outside)
            _add_defined_outside_loops(s.orelse, outside)


def _definition_order(body) -> dict:
    """Each name `body` defines -> its place among them, in order of first definition."""
    order = {}
    for s in ir.walk(body):
        for n in ir.defined_names(s):
            order.setdefault(n, len(order))
    return order


def _needed(body, loops, saved, ctx, planned=False) -> list:
    """Names `body` reads that it does not get from a nested loop's tape; fills
    `saved[tag]` for every reverse loop inside, and puts in each the lines that
    recompute what its tape does not hold (`_recompute_plan`). With `planned`, that
    was done already (the tapes are filled): only what the loops pop is taken as
    theirs, and nothing is changed. (Planning twice would put a second plan, made
    from the first one's reads, in front of the first, reading what that defines.)"""
    out = {}  # (a dict for its order: a list's `in` made long bodies quadratic)

    def add(names):
        for n in names:
            out.setdefault(n)

    for s in body:
        add(n for node in ir.exprs(s) for n in ir.names_in(node))
        if isinstance(s, ir.ForEach) and s.tag in loops and planned:
            inner = _needed(s.body, loops, saved, ctx, planned)
            own = {n for x in ir.walk(s.body) if isinstance(x, ir.Pop) and x.tag == s.tag
                   for n in x.targets}
            add(n for n in inner if n not in own and n != s.target)
        elif isinstance(s, ir.ForEach) and s.tag in loops:
            inner = _needed(s.body, loops, saved, ctx)
            loop = loops[s.tag]
            order = {p.name: k - len(loop.phis) for k, p in enumerate(loop.phis)}
            order.update((n, k) for n, k in _definition_order(loop.cond + loop.body).items()
                         if n not in order)
            own = sorted((n for n in inner if n in order and n != s.target),
                         key=order.__getitem__)
            plan, kept = _recompute_plan(loop, own, s.target, ctx)
            if plan:
                at = 1 if s.body and isinstance(s.body[0], ir.Pop) else 0
                s.body[at:at] = plan
                own = kept
                inner = _needed(s.body, loops, saved, ctx)
            saved[s.tag] = own
            add(n for n in inner if n not in own and n != s.target
                and n not in {t for x in plan or () for t in x.targets})
        else:
            for block in ir.blocks(s):
                add(_needed(block, loops, saved, ctx, planned))
    return list(out)


_CHEAP = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript, ast.Name, ast.Constant,
          ast.operator, ast.unaryop, ast.cmpop, ast.expr_context)


def _recompute_plan(loop, names, target, ctx):
    """Which values the reverse of `loop` needs from an iteration it recomputes
    instead of saving: ``(plan, kept)``, the statements recomputing them (in forward
    order) and the names still saved.

    A value is recomputed when it is cheap (``t = x * i``, ``a = xs[i]``,
    ``t1 = a / x``) and reads only the loop index, values that do not change in the
    loop, other recomputed values, and values that are saved anyway. When every
    value can be recomputed the loop needs no tape. Otherwise values are recomputed
    only when that shortens what each iteration saves: ``x`` and ``t1 = a / x``
    save ``x`` alone.

    Only values computed before anything in the iteration can branch or leave it
    are recomputed, so the reverse evaluates exactly what the forward evaluated,
    with the same values, and cannot raise where the forward did not. A saved value
    a recomputation reads is a phi or one of those values, so the saved copy (taken
    where the iteration leaves) is the value the forward read."""
    if not names:
        return [], list(names)
    prefix = {}
    for s in loop.body:
        if isinstance(s, ir.AugAssign) and isinstance(s.target, str) \
                and isinstance(s.value, ast.Constant):
            continue  # the loop's count
        if not isinstance(s, ir.Assign) or s.unpack:
            break
        prefix[s.targets[0]] = s
    phis = {p.name for p in loop.phis}
    in_loop = ir.all_defined(loop.cond + loop.body) | phis
    # a name the iteration changes after the prefix (an inner loop's count, `+=`)
    # no longer holds what the prefix gave it
    defs = {}
    for x in ir.walk(loop.body):
        for t in ir.defined_names(x):
            defs[t] = defs.get(t, 0) + 1

    def cheap(n) -> bool:
        s = prefix.get(n)
        return s is not None and defs.get(n, 0) <= 1 \
            and all(isinstance(x, _CHEAP) for x in ast.walk(s.value)) \
            and not ctx.reads_mutable(s.value) \
            and sum(isinstance(x, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript))
                    for x in ast.walk(s.value)) <= 3
        # (a written array may hold other values by the reverse)

    def attempt(kept):
        plan, chosen = [], set()

        def add(n) -> bool:
            if n in chosen:
                return True
            if not cheap(n):
                return False
            for m in ir.names_in(prefix[n].value):
                if m == target or m not in in_loop or m in kept:
                    continue
                if not add(m):
                    return False
            chosen.add(n)
            plan.append(ir.copy_tree(prefix[n]))
            return True

        failed = [n for n in names if n not in kept and not add(n)]
        del add  # (it calls itself: a reference cycle holding the plan otherwise)
        return plan, failed

    plan, failed = attempt(set())
    if not failed:
        kept = []
    else:
        # save what cannot be recomputed (a phi, a value computed after a branch)
        # and recompute the rest from it, if that saves fewer values
        kept = [n for n in names if n in phis or not cheap(n)]
        while True:
            plan, failed = attempt(set(kept))
            if not failed:
                break
            kept += failed
        if not (set(kept) <= phis | set(prefix)) or len(kept) >= len(names):
            return [], list(names)
        plan = [s for s in plan if s.targets[0] not in kept]
    order = {n: k for k, n in enumerate(prefix)}
    plan.sort(key=lambda s: order[s.targets[0]])
    return plan, [n for n in names if n in kept]


def _fill_paths(block, assigned, saved, tag):
    """Make every saved value assigned at every Push of loop `tag`: set it to None
    on a path that has not computed it. Returns what is assigned at the end of
    `block`, or None when every path through it has left the iteration."""
    i = 0
    while i < len(block):
        s = block[i]
        if isinstance(s, ir.Push) and s.tag == tag:
            missing = [n for n in s.values if n not in assigned]
            block[i:i] = [ir.Assign((n,), ir.const(None), s.line) for n in missing]
            i += len(missing)
        elif isinstance(s, ir.Exit):
            return None
        elif isinstance(s, ir.If):
            a = _fill_paths(s.body, set(assigned), saved, tag)
            b = _fill_paths(s.orelse, set(assigned), saved, tag)
            if a is None and b is None:
                return None
            if a is None or b is None:
                assigned = a if b is None else b
            else:
                for mine, other_block, other in ((a, s.orelse, b), (b, s.body, a)):
                    missing = sorted((saved & mine) - other)
                    if missing:
                        other_block.append(ir.Comment("not computed on this path"))
                        other_block.extend(ir.Assign((n,), ir.const(None), s.line)
                                           for n in missing)
                assigned = a | b
        elif isinstance(s, ir.Loop):
            assigned |= {p.name for p in s.phis if p.init is not None}
        else:
            assigned |= set(ir.defined_names(s))
        i += 1
    return assigned
