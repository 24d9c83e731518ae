"""simplify: tidy a derivative's statements without changing what they compute, and
decide what loops save on their tapes.

Contract
--------
`simplify(forward, reverse, keep, outputs, pure, kinds)` takes a forward sweep
and a reverse sweep (lists of IR statements that run one after the other) and returns
both, rewritten so that

* no `dup` is left: a copy made by `dup` is the same value as its source, so every
  read of a copy reads the source instead (the dup form did its job: adjoint names
  such as ``x%a%bar`` still say which read each adjoint belongs to);
* an adjoint or temporary defined once as a plain copy of another name
  (``t1%bar = z%bar``) is replaced by that name and the copy dropped, when the name
  it copies is assigned at most once on any path (never a loop-carried name);
* with `kinds`, a constant adjoint such as the seed ``out_bar = 1.0`` is folded
  into the lines that read it where that cannot change a result's type
  (``out_bar * y`` -> ``y`` when `y` is a float), and literal arithmetic is folded;
* a reverse-sweep expression computed twice over names that do not change
  (``g_a_bar = t6_bar * g`` and ``g_b_bar = t6_bar * g``, from ``g * g``) is
  computed once, and so is a pure forward expression (an operator, a rule-bearing
  call, reading a list element) the user's code computes twice: the second time
  cannot raise or give anything else;
* a forward line inside a loop that cannot raise and reads only values the loop
  does not change (``t1 = -k``) moves before the loop;
* two updates of one adjoint element (``xs_bar[i] += a`` ... ``xs_bar[i] += b``)
  with nothing between them that reads the list become one;
* a reverse-sweep assignment whose result nothing needs (nothing reads it, or only
  lines dropped themselves), and which is not in `keep`, is dropped, as is a reverse
  `if` or loop left with nothing to do;
* with `kinds`, a forward assignment nothing needs whose computation cannot
  raise (``+``, ``-``, ``*``, negation and comparisons of Python numbers, a copy, a
  tuple of names) is dropped: it cannot change the result or raise, so only its
  cost would remain (this drops the output's own last line from a gradient that
  does not return it). "Needs" is a mark and sweep from what the reverse sweep,
  the result and the lines that may raise read, so a value carried around a loop
  that only its own next value reads goes too, with its phi (the sum a gradient
  does not return); a line that may raise stays with all it reads. A ``for`` loop
  over a ``range`` of ints left with nothing to do goes;
* every loop's `Push`/`Pop` pair carries exactly the values its reverse reads that
  the iteration computed (Tapenade's to-be-recorded set): nothing loop-invariant,
  nothing the reverse loop recomputes (its index, and cheap lines such as
  ``t1 = a / x`` from the saved ``x``), nothing only a nested loop's own tape
  restores; a saved value an exit path has not computed is set to None on that
  path first;
* with `kinds`, reverse-sweep arithmetic on floats takes its cheapest exact
  form (``x ** 2`` recomputed as ``x * x``; ``t_bar * 2`` as ``t_bar * 2.0``), and a
  negation whose result is only added or subtracted is folded into that sum
  (``y_b_bar = -b_bar``, ``y_bar = a_bar + y_b_bar`` -> ``y_bar = a_bar - b_bar``;
  ``k_bar += -t1_bar`` -> ``k_bar -= t1_bar``) on adjoint lines: each step gives
  the same value in floating point (up to the sign of a zero sum, and not even that
  in a divisor or a function's argument), and a negation costs a new float or a pass
  over an array;
* a forward temporary read exactly once, by a later line of the same block, and by
  nothing in the reverse sweep, is nested back into that line when its computation
  is pure and nothing else is evaluated in between (``t1 = x * y; a = t1 + z``
  becomes ``a = x * y + z``): the forward sweep reads like the user's code and
  evaluates the same operations in the same order. A temporary whose adjoint has a
  name in the reverse sweep keeps its line, so every ``t3_bar`` has its ``t3``.

The forward sweep keeps the user's computation in order, so it raises and prints
exactly what the user's function would. Comments stay with the statements they
describe; a comment left with no statement after it is dropped.

`tapes.saved_names(forward, reverse)` gives what the reverse sweep reads from the
forward sweep outside all loops (the values a split derivative's forward function
returns).

Passes
------
Each family of passes has its module: `copies` (dups, copy propagation, self
copies), `arithmetic` (constant adjoints, float arithmetic, sums, spreading by
broadcasting, sizes), `cse` (common subexpressions, invariants, element updates),
`dead` (dead code, dead stores, needless restores), `tapes` (what loops save),
`negations`, `nesting` and `comments`. What they know beyond the statements is one
frozen `Context` (`context`), built here once per call and handed to each pass that
needs it. `simplify` below is the order they run in.
"""

from __future__ import annotations

import ast
from types import MappingProxyType

from .. import ir
from . import arithmetic, comments, copies, cse, dead, nesting, tapes
from .common import definitions
from .context import Context
from .negations import absorb_negations


def simplify(forward: list, reverse: list, keep=(), outputs=(), pure=None,
             kinds=None, inputs=(), mutable=None, replayed=False) -> tuple:
    """``(forward, reverse, outputs)``: `outputs` are expressions read after both
    sweeps (what the derivative returns), renamed along with everything else.
    `pure(value)` says which forward right-hand sides may be computed once for two
    lines or nested into the line that reads them; without it none is. `kinds` (a
    `NameKinds`) says which names certainly hold Python floats, ints or float
    arrays, of what rank and shape; without it the passes that need types do
    nothing. `inputs` are names that hold a value before the forward sweep starts
    (the parameters).
    `mutable` maps every name of a list or array the code writes into (and of a view
    of one) to the name of that object: what such a name holds changes, so no line
    reading it is computed once for two places, moved or recomputed. With
    `replayed`, the forward lines replay an iteration that already ran once (a
    checkpointed loop's step), so one nothing reads goes even if it could raise: it
    did not."""
    ctx = Context(frozenset(keep), frozenset(inputs), MappingProxyType(dict(mutable or {})),
                  pure, None if kinds is None else kinds.remembered(), replayed)
    kinds = ctx.kinds
    # (the statements are the caller's: copied, and their dups elided in the copy)
    dups = copies.dup_sources(forward + reverse)
    result = ir.Return(ast.Tuple(elts=ir.copy_tree(list(outputs)), ctx=ast.Load()))
    if dups:
        ir.rename_stmt_reads(result, dups)
    # (what each line reads, noted as it is copied, for the propagations' counts)
    reads = {}
    body = copies.elided_copy(forward, dups, reads) + [_MARK] + \
        copies.elided_copy(reverse, dups, reads) + [result]
    forward, reverse, result = _split(copies.propagate_copies(body, ctx, reads))
    if kinds is not None:
        forward, reverse, result = _fold_constants(forward, reverse, result, ctx, reads)
    shared = cse.cse_forward(forward, ctx) if pure is not None else 0
    if kinds is not None:
        forward = cse.hoist_invariants(forward, ctx)
    shared += cse.common_subexpressions(forward, reverse, ctx)
    if shared:  # (with no copy made since the last propagation, another is idle)
        forward, reverse, result = _propagated(forward, reverse, result, ctx, reads)
    del reads  # (the lines change from here on in ways it does not follow)
    # from here on the reverse sweep ends with `result`
    reverse = dead.drop_dead(forward, reverse + [result], ctx)
    reverse = dead.dead_stores(reverse, ctx, ir.all_defined(forward) | ctx.inputs)
    reverse = cse.merge_element_updates(reverse)
    if ctx.mutable:
        forward, reverse = dead.drop_needless_restores(forward, reverse, ctx)
    # (nothing later writes a spread, a size or an `unbroadcast` where there was none)
    calls = arithmetic.called(reverse) if kinds is not None else set()
    spreads = kinds is not None and arithmetic.any_spread(calls)
    if spreads:
        reverse = arithmetic.spread_by_broadcasting(reverse, ctx)
    tapes.fill_tapes(forward, reverse, ctx)
    tapes.count_by_tape(forward, reverse)
    reverse = dead.without_idle_loops(reverse)
    if kinds is not None:
        forward = dead.drop_dead_forward(forward, reverse, ctx)
        if _array_adjoints(reverse, kinds):
            reverse = nesting.nest_array_adjoints(reverse, ir.reads_in(forward + reverse), ctx)
        forward, reverse = _cheapest_arithmetic(forward, reverse, spreads, calls, ctx)
    if pure is not None:
        forward = nesting.nest_forward(forward, reverse, ctx)
        forward = nesting.tangents_after_primals(forward)
    if kinds is not None and "np.size" in calls:
        reverse = arithmetic.sizes_as_attributes(reverse, ctx)
    reverse.pop()
    if not reverse:
        forward = copies.coalesce_carried(forward, ir.reads_in(forward + [result]))
    forward = copies.without_self_copies(forward)
    reverse = copies.without_self_copies(reverse)
    return forward, comments.tidy_comments(reverse), list(result.value.elts)


def _fold_constants(forward, reverse, result, ctx, reads):
    """Constant adjoints folded into their readers, and the copies that leaves
    propagated, until no constant goes (three times at most: a propagated copy may
    make a constant of a line). A round folds in program order, so where no copy
    went and no loop reads a constant before the line assigning it, the next round
    would fold nothing: it is not run."""
    before = arithmetic.count_constants(reverse)
    loops = any(type(s) is ir.ForEach or type(s) is ir.Loop for s in ir.walk(reverse))
    for _ in range(3):
        reverse, folded = arithmetic.fold_constant_adjoints(reverse + [result], ctx)
        result = reverse.pop()
        if not folded:
            break
        body = forward + [_MARK] + reverse + [result]
        propagated = copies.propagate_copies(body, ctx, reads)
        if propagated is body and not loops:
            break
        forward, reverse, result = _split(propagated)
        after = arithmetic.count_constants(reverse)  # (the next round's count before)
        if after == before:
            break
        before = after
    return forward, reverse, result


def _cheapest_arithmetic(forward, reverse, spreads, calls, ctx):
    """Both sweeps' arithmetic in its cheapest exact form (the forward sweep's
    tangent lines only: the user's computation stays as written). `spreads`: the
    reverse sweep spreads an adjoint over an array; `calls`: the functions it
    calls (`arithmetic.called`)."""
    def tangent(n):
        return n.endswith("%dot")

    forward = arithmetic.float_arithmetic(forward, ctx, tangent)
    if spreads:
        reverse = arithmetic.spread_by_broadcasting(reverse, ctx)  # (what nesting wrote in)
    reverse = arithmetic.float_arithmetic(reverse, ctx)
    if "unbroadcast" in calls:
        reverse = arithmetic.factor_out_of_sums(reverse, ctx)
    # counted once: folding and doubling move reads, or drop them, never add any
    reads, defs = ir.reads_in(forward + reverse), definitions(reverse)
    if any(tangent(n) for n in _targets(forward)):  # (else none of its lines is one)
        forward = absorb_negations(forward, reads, definitions(forward), tangent)
    # (adjoint lines only: a value the reverse recomputes stays as the user wrote it)
    reverse = absorb_negations(reverse, reads, defs, lambda n: n.endswith("%bar"))
    if spreads:
        reverse = arithmetic.spread_by_broadcasting(reverse, ctx)  # (and absorbing)
    reverse = arithmetic.double_sums(reverse, reads, defs, ctx)
    if spreads:
        reverse = arithmetic.unit_products(reverse, ctx)
        reverse = dead.drop_dead(forward, reverse, ctx)
        # a value spreading made the reverse sweep stop reading (``t5 = y * C``
        # kept for ``unreduce(g, t5) * C``) goes now
        forward = dead.drop_dead_forward(forward, reverse, ctx)
    return forward, reverse


def _targets(body) -> set:
    """The names `body` assigns, and the lists and arrays it writes elements of."""
    out = set()
    for s in ir.walk(body):
        target = getattr(s, "target", None)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            out.add(target.value.id)
        out.update(ir.defined_names(s))
    return out


def _array_adjoints(body, kinds) -> bool:
    """Does `body` assign an array's adjoint (what `nest_array_adjoints` may move)?"""
    array = kinds.array
    return any(type(s) is ir.Assign and not s.unpack and s.targets[0].endswith("%bar")
               and array(s.targets[0][:-4]) for s in ir.walk(body))


_MARK = ir.Comment("---")  # where the forward sweep ends in one list of both sweeps


def _propagated(forward, reverse, result, ctx, reads):
    """Both sweeps with their copies propagated across the two (see
    `copies.propagate_copies`; `reads`, its `known`)."""
    return _split(copies.propagate_copies(forward + [_MARK] + reverse + [result], ctx, reads))


def _split(body):
    """``(forward, reverse, result)`` of one list of both sweeps and the result."""
    i = body.index(_MARK)  # (statements compare by identity)
    return body[:i], body[i + 1:-1], body[-1]
