"""simplify: tidy a derivative's statements without changing what they compute, and
decide what loops save on their tapes.

Contract
--------
`simplify(forward, reverse, keep, outputs, pure, float_name)` takes a forward sweep
and a reverse sweep (lists of IR statements that run one after the other) and returns
both, rewritten so that

* no `dup` is left: a copy made by `dup` is the same value as its source, so every
  read of a copy reads the source instead (the dup form did its job: adjoint names
  such as ``x%a%bar`` still say which read each adjoint belongs to);
* an adjoint or temporary defined once as a plain copy of another name
  (``t1%bar = z%bar``) is replaced by that name and the copy dropped, when the name
  it copies is assigned at most once on any path (never a loop-carried name);
* with `float_name`, a constant adjoint such as the seed ``out_bar = 1.0`` is folded
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
* a reverse-sweep assignment whose result nothing reads, and which is not in `keep`,
  is dropped (repeatedly), as is a reverse `if` or loop left with nothing to do;
* with `float_name`, a forward assignment nothing reads whose computation cannot
  raise (``+``, ``-``, ``*``, negation and comparisons of Python numbers) is dropped:
  it cannot change the result or raise, so only its cost would remain (this drops
  the output's own last line from a gradient that does not return it);
* every loop's `Push`/`Pop` pair carries exactly the values its reverse reads that
  the iteration computed (Tapenade's to-be-recorded set): nothing loop-invariant,
  nothing the reverse loop recomputes (its index, and cheap lines such as
  ``t1 = a / x`` from the saved ``x``), nothing only a nested loop's own tape
  restores; a saved value an exit path has not computed is set to None on that
  path first;
* with `float_name`, reverse-sweep arithmetic on floats takes its cheapest exact
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

`saved_names(forward, reverse)` gives what the reverse sweep reads from the forward
sweep outside all loops (the values a split derivative's forward function returns).
"""

from __future__ import annotations

import ast
import copy

from .. import ir, primitives as rules


def simplify(forward: list, reverse: list, keep=(), outputs=(), pure=None,
             float_name=None, inputs=(), mutable=None, replayed=False) -> tuple:
    """``(forward, reverse, outputs)``: `outputs` are expressions read after both
    sweeps (what the derivative returns), renamed along with everything else.
    `pure(value)` says which forward right-hand sides may be nested into the line
    that reads them (see `_nest`); without it nothing is nested. `float_name(n)`
    says which names certainly hold a Python float. `inputs` are names that hold a
    value before the forward sweep starts (the parameters). `mutable` maps every name
    of a list or array the code writes into (and of a view of one) to the name of
    that object: what such a name holds changes, so no line reading it is computed
    once for two places, moved or recomputed. With `replayed`, the forward lines
    replay an iteration that already ran once (a checkpointed loop's step), so one
    nothing reads goes even if it could raise: it did not."""
    keep = set(keep)
    global _INPUTS, _MUTABLE
    _INPUTS = set(inputs)
    _MUTABLE = dict(mutable or {})
    result = ir.Return(ast.Tuple(elts=ir.copy_tree(list(outputs)), ctx=ast.Load()))
    body = ir.copy_tree(forward) + [_MARK] + ir.copy_tree(reverse) + [result]
    body = _elide_dups(body)
    body = _propagate_copies(body, keep)
    forward, reverse, result = _split(body)
    for _ in range(3 if float_name is not None else 0):  # a folded line may fold the next
        before = _count_constants(reverse)
        reverse = _fold_constant_adjoints(reverse + [result], keep, float_name)
        result = reverse.pop()
        forward, reverse, result = _split(_propagate_copies(
            forward + [_MARK] + reverse + [result], keep))
        if _count_constants(reverse) == before:
            break
    if pure is not None:
        most = _max_defs(forward)
        for n in _changed_in_place(forward) | set(_MUTABLE):
            most[n] = 2  # never shared
        _cse_forward(forward, most, pure, _appended(forward))
    if float_name is not None:
        forward = _hoist_invariants(forward, float_name)
    _common_subexpressions(forward, reverse)
    forward, reverse, result = _split(_propagate_copies(forward + [_MARK] + reverse + [result],
                                                        keep))
    reverse = _drop_dead(forward, reverse + [result], keep)
    reverse = _dead_stores(reverse, set(keep))
    reverse = _merge_element_updates(reverse)
    if _MUTABLE:
        forward, reverse = _drop_needless_restores(forward, reverse)
    # (nothing later writes a spread or a size where there was none)
    spreads = float_name is not None and _any_spread(reverse)
    if spreads:
        reverse = _spread_by_broadcasting(reverse, float_name)
    _fill_tapes(forward, reverse)
    _count_by_tape(forward, reverse)
    if float_name is not None:
        forward = _drop_dead_forward(forward, reverse, float_name, replayed)
    array = getattr(float_name, "array", None)
    if array is not None:
        reverse = _nest_array_adjoints(reverse, ir.reads_in(forward + reverse), array)
    if float_name is not None:
        def tangent(n):
            return n.endswith("%dot")

        forward = _float_arithmetic(forward, float_name, tangent)
        if spreads:
            reverse = _spread_by_broadcasting(reverse, float_name)  # (what nesting wrote in)
        reverse = _float_arithmetic(reverse, float_name)
        reverse = _factor_out_of_sums(reverse, float_name)
        # counted once: folding and doubling move reads, or drop them, never add any
        reads, defs = ir.reads_in(forward + reverse), _definitions(reverse)
        forward = _absorb_negations(forward, reads, _definitions(forward), tangent)
        # (adjoint lines only: a value the reverse recomputes stays as the user wrote it)
        reverse = _absorb_negations(reverse, reads, defs, lambda n: n.endswith("%bar"))
        if spreads:
            reverse = _spread_by_broadcasting(reverse, float_name)  # (and absorbing)
        reverse = _double_sums(reverse, reads, defs, float_name)
        if spreads and getattr(float_name, "rank", None) is not None:
            reverse = _unit_products(reverse, keep, float_name)
            reverse = _drop_dead(forward, reverse, keep)
        if spreads:
            # a value spreading made the reverse sweep stop reading (``t5 = y * C``
            # kept for ``unreduce(g, t5) * C``) goes now
            forward = _drop_dead_forward(forward, reverse, float_name, replayed)
    if pure is not None:
        # a value the reverse sweep computes again for itself (a reversed loop's
        # recomputed ``t7 = t4 - t6``) is the reverse's own: its reads there are not
        # of the forward line, and its adjoint has its ``t7`` beside it there
        again = {t for x in ir.walk(reverse) for t in ir.defined_names(x)}
        reads = ir.reads_in(forward)
        for n, k in ir.reads_in(reverse).items():
            if n not in again:
                reads[n] = reads.get(n, 0) + k
        forward = _nest(forward, reads, lambda s: pure(s.value) and (
            ir.adjoint(s.targets[0]) not in again or s.targets[0] in again))
        forward = _tangents_after_primals(forward)
    if getattr(float_name, "array", None) is not None:
        reverse = _sizes_as_attributes(reverse, float_name)
    reverse.pop()
    if not reverse:
        forward = _coalesce_carried(forward, ir.reads_in(forward + [result]))
    forward, reverse = _without_self_copies(forward), _without_self_copies(reverse)
    return forward, _tidy_comments(reverse), list(result.value.elts)


def _sizes_as_attributes(body, float_name) -> list:
    """``np.size(x)`` of an array (a mean's scale) in the reverse sweep is
    ``x.size``: an attribute, not a call (0.02 us against 0.2; a layer-norm gradient
    made four). (Tangent code keeps the call, which `batching` reads.)"""
    class _Attribute(ast.NodeTransformer):
        def visit_Call(self, n):
            self.generic_visit(n)
            if ir.dotted(n.func) == "np.size" and len(n.args) == 1 and not n.keywords \
                    and isinstance(n.args[0], ast.Name) and float_name.rank(n.args[0].id):
                return ast.Attribute(value=n.args[0], attr="size", ctx=ast.Load())
            return n

    for s in ir.walk(body):
        for get, set_ in ir.slots(s):
            node = get()
            if node is not None and any(type(c) is ast.Call and ir.dotted(c.func) == "np.size"
                                        for c in ir.nodes(node)):
                set_(_Attribute().visit(ir.copy_tree(node)))
    return body


def _coalesce_carried(body, reads) -> list:
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


def _without_self_copies(body):
    """``a = a`` (left where a branch hands a split value back under its name and
    the copies became the same name again) does nothing."""
    return _without(body, lambda s: isinstance(s, ir.Assign) and not s.unpack
                    and isinstance(s.value, ast.Name) and s.value.id == s.targets[0])


_MARK = ir.Comment("---")
_INPUTS: set = set()  # names assigned before the sweeps start (for _max_defs)
_MUTABLE: dict = {}  # names of written lists and arrays (and their views) -> object


def _reads_mutable(node) -> bool:
    return bool(_MUTABLE) and any(n in _MUTABLE for n in ir.names_in(node))


def _split(body):
    result = body[-1]
    i = next(i for i, s in enumerate(body) if s is _MARK)
    return body[:i], body[i + 1:-1], result


# ------------------------------------------------------------------ helpers


def _without(body, drop):
    out = []
    for s in body:
        if drop(s):
            continue
        if isinstance(s, ir.If):
            s.body = _without(s.body, drop)
            s.orelse = _without(s.orelse, drop)
        elif isinstance(s, ir.Loop):
            s.cond = _without(s.cond, drop)
            s.body = _without(s.body, drop)
        elif isinstance(s, ir.ForEach):
            s.body = _without(s.body, drop)
        elif isinstance(s, ir.Exit):
            s.copies = _without(s.copies, drop)
        out.append(s)
    return out


def _definitions(body) -> dict:
    count = {}
    for s in ir.walk(body):
        for t in ir.defined_names(s):
            count[t] = count.get(t, 0) + (2 if isinstance(s, ir.AugAssign) else 1)
    return count


def _max_defs(body) -> dict:
    """For each name, the most times it is assigned along one path (a loop body or
    an `ir.Exit` counts once, but a name assigned both outside and inside a loop, or
    by a loop and before it, counts twice)."""
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
    for n in _INPUTS:
        count[n] = count.get(n, 0) + 1
    return count


def _propagatable(n: str) -> bool:
    """Adjoints and compiler temporaries may vanish; user names and SSA versions stay."""
    if n.endswith("%bar") or n.endswith("%dot"):
        return True
    base = n.split("%")
    return n.startswith("%") and len(base) == 2 and (base[1].isdigit() or base[1][:1] == "r")


# ------------------------------------------------------------------- copies


def _elide_dups(body):
    mapping = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Dup):
            src = mapping.get(s.source, s.source)
            for t in s.targets:
                mapping[t] = src
    body = _without(body, lambda s: isinstance(s, ir.Dup))
    if mapping:
        ir.rename_reads(body, mapping)
    return body


class _CopyTable:
    """One walk of a body for `_propagate_copies`: it drops copy-backs (``w = v``
    followed, with neither reassigned in between, by ``v = w``, which leaves `v`
    unchanged: a loop-carried adjoint passing through a sum) and takes, of what
    stays, the counts `_definitions`, `ir.reads_in` and `_max_defs` give and the
    plain copies ``v = w`` in program order. Which statements read or define each
    name (`index`) is made only if some copy goes."""

    def __init__(self, body):
        self.defs, self.reads = {}, {}
        self.copies = []
        self.named = []  # (statement, names it reads, names it defines)
        self.body, most = self.block(body)
        for n in _INPUTS:
            most[n] = most.get(n, 0) + 1
        self.most = most

    def index(self):
        """``({name: {id: statement reading it}}, {name: {id: statement defining it}})``"""
        readers, definers = {}, {}
        for s, read, defined in self.named:
            for n in read:
                readers.setdefault(n, {})[id(s)] = s
            for n in defined:
                definers.setdefault(n, {})[id(s)] = s
        return readers, definers

    def block(self, body):
        """(what stays of `body`, its `_max_defs` counts without the inputs)"""
        recent = {}  # name -> name it was last copied from, in this straight-line run
        copied = {}  # name -> the names in `recent` copied from it

        def forget(n):
            """Forget every copy to or from `n`."""
            source = recent.pop(n, None)
            if source is not None:
                copied[source].discard(n)
            for k in copied.pop(n, ()):
                del recent[k]

        reads, defs, named = self.reads, self.defs, self.named
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
            read = ir.stmt_reads(s)
            for n in read:
                reads[n] = reads.get(n, 0) + 1
            if t is ir.Comment and "\0" in s.text:
                read = s.text.split("\0")[1::2]  # (renamed as reads are, not counted)
            defined = ir.defined_names(s)
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


def _propagate_copies(body, keep):
    """Remove ``v = w`` copies: read `w` where `v` was read, or, when `v` must stay
    (a gradient the function returns), give `w`'s definitions the name `v`.

    Rounds: each round takes, in program order, every copy the counts allow whose
    names no earlier copy of the round involves, then renames. The counts (definitions,
    reads, most definitions on one path) and which statements read or define each
    name are taken once, in one walk (`_CopyTable`), and updated as copies go: a
    round costs what it changes, not another walk of the whole body."""
    table = _CopyTable(body)
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
            most[v] = most.get(w, 0) - (w in _INPUTS)
            most[w] = int(w in _INPUTS)
            changed_reads.update(readers.get(w, {}))
            changed_defs.update(definers.get(w, {}))
            readers.setdefault(v, {}).update(readers.pop(w, {}))
            definers[v] = definers.pop(w, {})
        both = {**mapping, **renames}
        for s in changed_reads.values():
            ir.rename_stmt_reads(s, both)
        for s in changed_defs.values():
            ir.rename_stmt_defs(s, renames)
    return _without(body, lambda x: id(x) in dropped) if dropped else body


# ------------------------------------------------------------------ dead code


def _has_effect(node) -> bool:
    """A method call (``acc.pop()``) changes a list: it must run even if unused."""
    for n in ir.nodes(node):
        if type(n) is ast.Call and type(n.func) is ast.Attribute:
            text = ir.dotted(n.func)
            if text is not None and "%" in text:
                return True
    return False


def _drop_unread(candidates, reads, unread) -> set:
    """The ids of the assignments among `candidates` that go: one goes when
    `unread(s)` holds, which it does once the reads `reads` counts of its targets are
    gone, and its own reads go with it (so one line going can free another). Which
    lines go does not depend on the order they are looked at, so each is looked at
    when it may have become free, not on every sweep of the body."""
    defining = {}
    for s in candidates:
        for t in s.targets:
            defining.setdefault(t, []).append(s)
    dead = set()
    work = [s for s in candidates if unread(s)]
    while work:
        s = work.pop()
        if id(s) in dead or not unread(s):
            continue
        dead.add(id(s))
        for n in ir.names_in(s.value):
            reads[n] -= 1
            if not reads[n]:
                work.extend(defining.get(n, ()))
    return dead


def _drop_dead(forward, reverse, keep):
    reads = ir.reads_in(forward + reverse)
    candidates = [s for s in ir.walk(reverse)
                  if isinstance(s, ir.Assign) and not _has_effect(s.value)]
    dead_ids = _drop_unread(candidates, reads, lambda s: not any(
        reads.get(t) or t in keep for t in s.targets))
    reverse = _without(reverse, lambda s: id(s) in dead_ids)
    return _without(reverse, lambda s: isinstance(s, (ir.If, ir.ForEach)) and not _has_code(s))


def _reads_of(s) -> set:
    out = set()
    for node in ir.exprs(s):
        out |= set(ir.names_in(node))
    return out


def _dead_stores(body, live):
    """Drop reverse assignments that are overwritten before anything reads them (a
    branch's zero adjoint that the code after the branch replaces)."""
    out, _ = _live_block(body, set(live))
    return out


def _live_block(body, live):
    out = []
    for s in reversed(body):
        if isinstance(s, ir.Assign) and not any(t in live for t in s.targets) \
                and not _has_effect(s.value):
            continue
        if isinstance(s, ir.If):
            s.body, a = _live_block(s.body, set(live))
            s.orelse, b = _live_block(s.orelse, set(live))
            live = a | b | _reads_of(s)
        elif isinstance(s, (ir.ForEach, ir.Loop)):
            # values read in the body may come from the previous iteration
            everything = set()
            for x in ir.walk(sum(ir.blocks(s), [])):
                everything |= _reads_of(x)
                if isinstance(x, ir.Loop) and x.test is not None:
                    everything |= set(ir.names_in(x.test))
            inner = live | everything
            for block in ir.blocks(s):
                block[:], _ = _live_block(block, set(inner))
            live = inner | _reads_of(s)
        else:
            for t in ir.defined_names(s):
                if not isinstance(s, ir.AugAssign):
                    live.discard(t)
            live |= _reads_of(s)
        out.append(s)
    out.reverse()
    return out, live


def _has_code(s) -> bool:
    return any(not isinstance(x, (ir.Comment, ir.Pop)) for x in ir.walk(sum(ir.blocks(s), [])))


_NON_RAISING = (ast.Add, ast.Sub, ast.Mult)


def _numeric(node, float_name) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool)
    if isinstance(node, ast.Name):
        return float_name(node.id) or getattr(float_name, "is_int", lambda n: False)(node.id)
    return False


def _cannot_raise(node, float_name) -> bool:
    """Arithmetic on Python floats that never raises (it overflows to inf), an empty
    list (a tape nothing is pushed on), and NumPy work on float arrays that cannot
    raise either (see `_array_cannot_raise`)."""
    if isinstance(node, ast.List) and not node.elts:
        return True
    if _array_cannot_raise(node, float_name):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NON_RAISING):
        return all(_cannot_raise(x, float_name) for x in (node.left, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _cannot_raise(node.operand, float_name)
    return _numeric(node, float_name)


_SAFE_REDUCTIONS = {"np.sum", "np.mean", "np.prod"}
_SAFE_METHODS = {"sum", "mean", "prod"}


def _array_cannot_raise(node, float_name) -> bool:
    """An expression over float arrays that NumPy evaluates without raising (at worst
    with a warning): a unary ufunc, arithmetic between arrays whose shapes certainly
    broadcast together or with a number, a total sum, mean or product. Mismatched
    shapes raise; these cannot."""
    array = getattr(float_name, "array", None)
    if array is None:
        return False

    def arrayish(n):
        return isinstance(n, ast.Name) and array(n.id)

    def operand(n):
        return arrayish(n) or _numeric(n, float_name)

    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                            ast.Div, ast.Pow)):
        left, right = node.left, node.right
        if not (operand(left) and operand(right)) or not (arrayish(left) or arrayish(right)):
            return False
        if arrayish(left) and arrayish(right):
            return left.id == right.id or float_name.broadcastable(left.id, right.id)
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return arrayish(node.operand)
    if isinstance(node, ast.Call) and not node.keywords:
        text = ir.dotted(node.func) or ""
        if len(node.args) == 1 and arrayish(node.args[0]):
            return text in _SAFE_REDUCTIONS or float_name.unary_ufunc(text)
        if not node.args and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _SAFE_METHODS and arrayish(node.func.value):
            return True
    return False


def _drop_dead_forward(forward, reverse, float_name, replayed=False):
    reads = ir.reads_in(forward + reverse)
    candidates = [s for s in ir.walk(forward) if isinstance(s, ir.Assign) and not s.unpack]
    harmless = {}  # id -> may this line go when nothing reads it?

    def unread(s):
        if reads.get(s.targets[0]):
            return False
        got = harmless.get(id(s))
        if got is None:
            got = harmless[id(s)] = bool(replayed and not _has_effect(s.value)
                                         or _cannot_raise(s.value, float_name))
        return got

    dead_ids = _drop_unread(candidates, reads, unread)
    forward = _without(forward, lambda s: id(s) in dead_ids)
    return _without(forward, lambda s: isinstance(s, ir.If) and not _has_code(s))


# ------------------------------------------------------- constants and CSE


def _is_float(node, float_name) -> bool:
    """Does this expression certainly evaluate to a Python float?"""
    if isinstance(node, ast.Name):
        return float_name(node.id)
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return _is_float(node.left, float_name) or _is_float(node.right, float_name) \
                or _is_numberish(node.left) and _is_numberish(node.right)
        return _is_float(node.left, float_name) or _is_float(node.right, float_name)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _is_float(node.operand, float_name)
    if isinstance(node, ast.Call):
        text = ir.dotted(node.func) or ""
        return text.startswith("math.") and text not in ("math.floor", "math.ceil",
                                                          "math.trunc", "math.isnan",
                                                          "math.isinf", "math.isfinite")
    if isinstance(node, ast.IfExp):
        return _is_float(node.body, float_name) and _is_float(node.orelse, float_name)
    return False


def _is_numberish(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _count_constants(body) -> int:
    return sum(1 for s in ir.walk(body) if isinstance(s, ir.Assign)
               and isinstance(s.value, ast.Constant))


def _fold_constant_adjoints(body, keep, float_name):
    """Fold adjoints defined once as a float literal into the products and negations
    that read them (``t3_bar = t4_bar * y`` with ``t4_bar = 1.0`` reads ``t3_bar =
    y``). A constant added into a sum keeps its name: it says which use it is."""
    defs = _definitions(body)
    constants = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Assign) and not s.unpack and s.targets[0].endswith("%bar") \
                and isinstance(s.value, ast.Constant) and type(s.value.value) is float \
                and defs.get(s.targets[0]) == 1 and s.targets[0] not in keep:
            constants[s.targets[0]] = s.value.value
    if not constants:
        return body

    def const_of(node):
        if isinstance(node, ast.Name) and node.id in constants:
            return constants[node.id]
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        return None

    class _Fold(ast.NodeTransformer):
        def visit_BinOp(self, n):
            self.generic_visit(n)
            a, b = const_of(n.left), const_of(n.right)
            named = any(isinstance(x, ast.Name) and x.id in constants for x in (n.left, n.right))
            if a is not None and b is not None and named:
                folded = rules.fold(ast.BinOp(left=ast.Constant(a), op=n.op,
                                              right=ast.Constant(b)))
                if isinstance(folded, ast.Constant):
                    return folded
            if isinstance(n.op, ast.Mult):
                for const, other in ((n.left, n.right), (n.right, n.left)):
                    value = const_of(const)
                    if value is None or type(value) is not float or not _is_float(other, float_name):
                        continue
                    if value == 1.0:
                        return other
                    if value == -1.0:
                        return ast.UnaryOp(op=ast.USub(), operand=other)
                    if isinstance(const, ast.Name):
                        return ast.BinOp(left=ast.Constant(value), op=ast.Mult(), right=other) \
                            if const is n.left else ast.BinOp(left=other, op=ast.Mult(),
                                                               right=ast.Constant(value))
            if isinstance(n.op, ast.Div) and isinstance(n.left, ast.Name) \
                    and n.left.id in constants:
                n.left = ast.Constant(constants[n.left.id])
            return n

        def visit_UnaryOp(self, n):
            self.generic_visit(n)
            value = const_of(n.operand)
            if isinstance(n.op, ast.USub) and value is not None and type(value) is float:
                return ast.Constant(-value)
            return n

    for s in ir.walk(body):
        for get, set_ in ir.slots(s):
            node = get()
            if any(n in constants for n in ir.names_in(node)):
                set_(_Fold().visit(ir.copy_tree(node)))
    return body


def _unit_products(body, keep, float_name) -> list:
    """``y_bar = t3_bar * C`` with ``t3_bar = 1.0`` and `C` a float array is `C`
    itself (a copy of it, in NumPy, for nothing), where the adjoint cannot show
    that it is the same object: nothing changes it in place, it is not a result, and
    every line reading it makes a new array of it (arithmetic, or an `unbroadcast`
    that sums it to an operand of another rank)."""
    defs = _definitions(body)
    ones = {s.targets[0] for s in ir.walk(body) if isinstance(s, ir.Assign)
            and not s.unpack and isinstance(s.value, ast.Constant)
            and type(s.value.value) is float and s.value.value == 1.0
            and defs.get(s.targets[0]) == 1}
    if not ones:
        return body

    def one(n):
        return isinstance(n, ast.Name) and n.id in ones or \
            isinstance(n, ast.Constant) and type(n.value) is float and n.value == 1.0

    changed = _changed_in_place(body)
    candidates = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.BinOp) \
                and isinstance(s.value.op, ast.Mult) and s.targets[0].endswith("%bar") \
                and defs.get(s.targets[0]) == 1 and s.targets[0] not in keep \
                and s.targets[0] not in changed:
            for const, other in ((s.value.left, s.value.right), (s.value.right, s.value.left)):
                if one(const) and isinstance(other, ast.Name) and float_name.array(other.id):
                    candidates[s.targets[0]] = (s, other)
    if not candidates:
        return body

    def consumed(t) -> bool:
        base = t[: -len("%bar")]
        for s in ir.walk(body):
            for get, _ in ir.slots(s):
                node = get()
                if node is None or t not in ir.names_in(node):
                    continue
                for parent in ir.nodes(node):
                    for child in ast.iter_child_nodes(parent):
                        if isinstance(child, ast.Name) and child.id == t and not (
                                isinstance(parent, (ast.BinOp, ast.UnaryOp))
                                or isinstance(parent, ast.Call) and ir.dotted(parent.func)
                                == "unbroadcast" and len(parent.args) == 2
                                and parent.args[0] is child
                                and isinstance(parent.args[1], ast.Name)
                                and float_name.rank(parent.args[1].id) not in (
                                    None, float_name.rank(base))):
                            return False
                if isinstance(node, ast.Name) and node.id == t:
                    return False  # (a copy, a return)
        return True

    for t, (s, other) in candidates.items():
        if consumed(t):
            s.value = ir.name(other.id)
    return body


def _changed_in_place(body) -> set:
    """Names of objects some statement changes in place (``x[i] = v``,
    ``x_bar[i] += g``): two such objects are never one, however alike their first
    values."""
    out = set()
    for s in ir.walk(body):
        target = s.target if isinstance(s, (ir.SetItem, ir.AugAssign)) else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            out.add(target.value.id)
    return out


def _common_subexpressions(forward, reverse):
    """Reuse a value the forward sweep's top level or an enclosing reverse block
    already computed, instead of computing it again."""
    most = _max_defs(forward + reverse)
    for n in _changed_in_place(forward + reverse):
        most[n] = 2  # never shared
    table = {}
    for s in forward:
        key = _cse_key(s, most)
        if key is not None:
            table.setdefault(key, s.targets[0])
    _cse_block(reverse, table, most)


def _cse_key(s, most):
    if not (isinstance(s, ir.Assign) and not s.unpack) or most.get(s.targets[0], 0) > 1 \
            or s.targets[0] in _MUTABLE:
        return None
    value = s.value
    if isinstance(value, (ast.Name, ast.Constant)) or _reads_mutable(value):
        return None
    for n in ir.nodes(value):
        if isinstance(n, ast.Name) and most.get(n.id, 0) > 1:
            return None  # a name that changes (in a loop, or accumulated)
        if isinstance(n, ast.Subscript) or (isinstance(n, ast.Call)
                                             and isinstance(n.func, ast.Attribute)
                                             and ir.dotted(n.func) and "%" in ir.dotted(n.func)):
            return None  # an element of a list that may change, or a method call
        if isinstance(n, ast.Call) and "%" in (ir.dotted(n.func) or "%"):
            return None  # a derivative function: not a pure expression
    return ir.expr_key(value)


def _cse_block(body, table, most):
    table = dict(table)
    for s in body:
        for block in ir.blocks(s):
            _cse_block(block, table, most)
        key = _cse_key(s, most)
        if key is None:
            continue
        if key in table:
            s.value = ir.name(table[key])
        else:
            table[key] = s.targets[0]


def _appended(body) -> set:
    """Names of lists the forward sweep appends to."""
    out = set()
    for s in ir.walk(body):
        for node in ir.exprs(s):
            for n in ir.nodes(node):
                if type(n) is ast.Call and type(n.func) is ast.Attribute \
                        and n.func.attr == "append" and type(n.func.value) is ast.Name:
                    out.add(n.func.value.id)
    return out


def _cse_forward(body, most, pure, appended, table=None):
    table = dict(table or {})
    for s in body:
        for block in ir.blocks(s):
            if not isinstance(s, ir.Exit):
                _cse_forward(block, most, pure, appended, table)
        if not (isinstance(s, ir.Assign) and not s.unpack) or most.get(s.targets[0], 0) > 1 \
                or isinstance(s.value, (ast.Name, ast.Constant)) or not pure(s.value):
            continue
        value = s.value
        nodes = ir.nodes(value)
        if any(type(n) is ast.Name and most.get(n.id, 0) > 1 for n in nodes) \
                or _reads_mutable(value):
            continue
        if any(type(n) is ast.Subscript and (type(n.value) is not ast.Name
                                             or n.value.id in appended)
               for n in nodes):
            continue  # a list that grows: xs[-1] may name another element later
        key = ir.expr_key(value)
        if key in table:
            s.value = ir.name(table[key])
        else:
            table[key] = s.targets[0]


def _hoist_invariants(body, float_name):
    """Move loop-invariant lines that cannot raise out of loops (innermost first)."""
    out = []
    for s in body:
        if isinstance(s, ir.If):
            s.body = _hoist_invariants(s.body, float_name)
            s.orelse = _hoist_invariants(s.orelse, float_name)
        elif isinstance(s, ir.Loop):
            s.body = _hoist_invariants(s.body, float_name)
            inside = ir.all_defined(s.cond + s.body) | {p.name for p in s.phis}
            if s.target:
                inside.add(s.target)
            moved = []
            counts = _max_defs(s.cond + s.body)
            changed = {t.target for t in ir.walk(s.cond + s.body)
                       if isinstance(t, ir.AugAssign) and isinstance(t.target, str)}
            for x in s.body:
                if isinstance(x, ir.AugAssign) and isinstance(x.target, str) \
                        and isinstance(x.value, ast.Constant):
                    continue  # a while loop's count
                if not (isinstance(x, ir.Assign) and not x.unpack):
                    break
                if counts.get(x.targets[0], 0) == 1 and x.targets[0] not in changed and \
                        _cannot_raise(x.value, float_name) and not _reads_mutable(x.value) and \
                        not set(ir.names_in(x.value)) & (inside - {m.targets[0] for m in moved}):
                    moved.append(x)
            if moved:
                s.body = [x for x in s.body if all(x is not m for m in moved)]
                out.extend(moved)
        out.append(s)
    return out


def _merge_element_updates(body):
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = _merge_element_updates(block)
    i = 0
    while i < len(out):
        a = out[i]
        if isinstance(a, ir.AugAssign) and isinstance(a.target, ast.Subscript) \
                and isinstance(a.target.value, ast.Name):
            key = ir.expr_key(a.target)
            container = a.target.value.id
            needs = set(ir.names_in(a.target)) | set(ir.names_in(a.value))
            for j in range(i + 1, len(out)):
                b = out[j]
                if isinstance(b, ir.AugAssign) and not isinstance(b.target, str) \
                        and ir.expr_key(b.target) == key:
                    b.value = ast.BinOp(left=a.value, op=ast.Add(), right=b.value)
                    del out[i]
                    i -= 1
                    break
                if isinstance(b, ir.Comment):
                    continue
                if ir.blocks(b) or container in _reads_of(b) \
                        or set(ir.defined_names(b)) & needs:
                    break
        i += 1
    return out


def _drop_needless_restores(forward, reverse):
    """A restore ``x[i] = x%old`` in the reverse sweep matters only when something the
    reverse sweep runs after it reads `x` (or a view of it); drop the others, with
    the forward sweep's ``x%old = x[i]``. So with a list's restores (`ir.Expr`'s):
    ``xs.pop()`` undoing an append, and ``xs.append(xs%old)`` undoing a pop, whose
    forward ``xs%old = xs.pop()`` is ``xs.pop()`` again without it."""
    kept = set()
    # A checkpointed loop's scheduler holds what its forward sweep was given (the
    # initial state, the values the loop reads) and the states it kept, and its
    # ``ckpt.reverse(...)`` recomputes steps from them: that call reads those objects,
    # and the loop's results (a state passed on unchanged is the same object).
    held = {}
    for s in ir.walk(forward):
        call = s.value if isinstance(s, ir.Assign) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                and call.func.attr in ("forward", "forward_while") \
                and isinstance(call.func.value, ast.Name) \
                and call.func.value.id.startswith("%ckpt"):
            held[call.func.value.id] = set(s.targets) | {
                n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)}

    def restore(s) -> bool:
        return isinstance(s, (ir.SetItem, ir.Expr)) and s.restore

    def container(s) -> str:
        return s.container if isinstance(s, ir.SetItem) else s.value.func.value.id

    def reads(s) -> set:
        """The objects `s` reads the values of (``np.zeros_like(x)`` reads only a shape)."""
        out = set()
        for node in ir.exprs(s):
            shape_only = {id(a) for n in ast.walk(node) if isinstance(n, ast.Call)
                          and ir.dotted(n.func) == "np.zeros_like" for a in n.args}
            out |= {_MUTABLE[n.id] for n in ast.walk(node) if isinstance(n, ast.Name)
                    and n.id in _MUTABLE and id(n) not in shape_only}
            out |= {_MUTABLE[n] for c in ast.walk(node) if isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Attribute) and c.func.attr == "reverse"
                    and isinstance(c.func.value, ast.Name)
                    for n in held.get(c.func.value.id, ()) if n in _MUTABLE}
        return out

    def block(body, live) -> set:
        for s in reversed(body):
            if restore(s):
                if _MUTABLE.get(container(s)) in live:
                    kept.add(id(s))
                continue
            if isinstance(s, ir.Pop):  # from here back, the name holds another object
                live = live - {_MUTABLE[n] for n in s.targets if n in _MUTABLE}
                continue
            if isinstance(s, ir.If):
                live = block(s.body, set(live)) | block(s.orelse, set(live)) | reads(s)
            elif isinstance(s, (ir.ForEach, ir.Loop)):
                # a later iteration runs the body's first lines after its last ones
                inner = block(sum(ir.blocks(s), []), set(live))
                inner = block(sum(ir.blocks(s), []), live | inner)
                live = live | inner | reads(s)
            else:
                live = live | reads(s)
        return live

    block(reverse, set())
    dropped = [s for s in ir.walk(reverse) if restore(s) and id(s) not in kept]
    if not dropped:
        return forward, reverse

    def old(s):
        """The saved value `s` puts back (a SetItem's ``x%old``, a pop's ``xs%old``)."""
        if isinstance(s, ir.SetItem):
            return s.value.id
        args = s.value.args
        return args[0].id if args and isinstance(args[0], ast.Name) \
            and args[0].id.endswith("%old") else None

    olds = {old(s) for s in dropped} - {None}
    olds -= {old(s) for s in ir.walk(reverse) if restore(s) and id(s) in kept}
    gone = {id(s) for s in dropped}
    reverse = _without(reverse, lambda s: id(s) in gone or (
        isinstance(s, ir.Assign) and any(t in olds for t in s.targets)))

    def unsaved(body):
        """`body` without the saves in `olds`; ``xs%old = xs.pop()`` pops unsaved."""
        out = []
        for s in body:
            if isinstance(s, ir.Assign) and any(t in olds for t in s.targets):
                if isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                        and s.value.func.attr == "pop":
                    out.append(ir.Expr(s.value, s.line))
                continue
            for b in ir.blocks(s):
                b[:] = unsaved(b)
            out.append(s)
        return out

    forward = unsaved(forward)
    return forward, reverse


# --------------------------------------------------------------------- tapes


def _fill_tapes(forward, reverse):
    """Decide each loop's Push/Pop values (see the module docstring)."""
    loops = {s.tag: s for s in ir.walk(forward) if isinstance(s, ir.Loop)}
    saved = {}
    _needed(reverse, loops, saved)
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


def _count_by_tape(forward, reverse):
    """A ``while`` loop that no other loop encloses and that saves something every
    iteration has as many tape entries as iterations: its reverse runs
    ``len(tape)`` times, and the forward sweep needs no count. (A ``for`` loop with
    a ``break`` keeps its count: ``range(n)[:count]`` says what it means.)"""
    def top_loops(block):
        for s in block:
            if isinstance(s, ir.Loop):
                yield block, s
            elif isinstance(s, ir.If):
                yield from top_loops(s.body)
                yield from top_loops(s.orelse)

    for block, loop in list(top_loops(forward)):
        first = loop.body[0] if loop.body else None
        pushes = [x for x in ir.walk(loop.body) if isinstance(x, ir.Push) and x.tag == loop.tag]
        if not (loop.iter is None and isinstance(first, ir.AugAssign)
                and isinstance(first.target, str)
                and pushes and all(x.values for x in pushes)):
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
        for x in ir.walk(reverse):
            for get, set_ in ir.slots(x):
                set_(ir.substitute(get(), {count: length}))


def saved_names(forward, reverse) -> list:
    """What the reverse sweep reads from the forward sweep outside every loop, in the
    order the forward sweep defines it."""
    loops = {s.tag: s for s in ir.walk(forward) if isinstance(s, ir.Loop)}
    needed = _needed(reverse, loops, {}, planned=True)
    outside = set()  # what the forward sweep defines outside loop bodies

    def visit(block):
        for s in block:
            outside.update(ir.defined_names(s))
            if isinstance(s, ir.If):
                visit(s.body)
                visit(s.orelse)

    visit(forward)
    order = _definition_order(forward)
    return sorted((n for n in needed if n in outside), key=order.index)


def _definition_order(body) -> list:
    order = []
    for s in ir.walk(body):
        for n in ir.defined_names(s):
            if n not in order:
                order.append(n)
    return order


def _needed(body, loops, saved, planned=False) -> list:
    """Names `body` reads that it does not get from a nested loop's tape; fills
    `saved[tag]` for every reverse loop inside, and puts in each the lines that
    recompute what its tape does not hold (`_recompute_plan`). With `planned`, that
    was done already (the tapes are filled): only what the loops pop is taken as
    theirs, and nothing is changed. (Planning twice would put a second plan, made
    from the first one's reads, in front of the first, reading what that defines.)"""
    out = []

    def add(names):
        for n in names:
            if n not in out:
                out.append(n)

    for s in body:
        add(n for node in ir.exprs(s) for n in ir.names_in(node))
        if isinstance(s, ir.ForEach) and s.tag in loops and planned:
            inner = _needed(s.body, loops, saved, planned)
            own = {n for x in ir.walk(s.body) if isinstance(x, ir.Pop) and x.tag == s.tag
                   for n in x.targets}
            add(n for n in inner if n not in own and n != s.target)
        elif isinstance(s, ir.ForEach) and s.tag in loops:
            inner = _needed(s.body, loops, saved)
            loop = loops[s.tag]
            order = [p.name for p in loop.phis] + _definition_order(loop.cond + loop.body)
            own = sorted((n for n in inner if n in order and n != s.target), key=order.index)
            plan, kept = _recompute_plan(loop, own, s.target)
            if plan:
                at = 1 if s.body and isinstance(s.body[0], ir.Pop) else 0
                s.body[at:at] = plan
                own = kept
                inner = _needed(s.body, loops, saved)
            saved[s.tag] = own
            add(n for n in inner if n not in own and n != s.target
                and n not in {t for x in plan or () for t in x.targets})
        else:
            for block in ir.blocks(s):
                add(_needed(block, loops, saved, planned))
    return out


_CHEAP = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript, ast.Name, ast.Constant,
          ast.operator, ast.unaryop, ast.cmpop, ast.expr_context)


def _recompute_plan(loop, names, target):
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
            and not _reads_mutable(s.value) \
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
    order = list(prefix)
    plan.sort(key=lambda s: order.index(s.targets[0]))
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


# -------------------------------------------------------------------- nesting


def _is_temp(n: str) -> bool:
    """A temporary (``%3``), or a temporary's tangent (``%3%dot``)."""
    parts = n.split("%")
    return parts[0] == "" and parts[1].isdigit() and (
        len(parts) == 2 or len(parts) == 3 and parts[2] == "dot")


def _reads_in_order(node) -> list:
    """Names read by an expression, in Python's evaluation order."""
    out = []

    def visit(n):
        if isinstance(n, ast.Name):
            out.append(n.id)
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return out


def _nest(body, reads, pure, tail=None) -> list:
    """See the module docstring. `tail` is a (get, set) slot read right after the
    block (a while loop's test after its condition statements).

    Forward-mode code interleaves two computations, the primal lines and the tangent
    lines (``t3 = c * v``, ``t3_dot = c * v_dot``, ``a = t2 - t3``): each has its own
    queue of temporaries waiting for their reader, and a line of one does not stop
    the other's temporaries from nesting (both are pure, and neither assigns what the
    other reads), so ``a = t2 - c * v`` and ``a_dot = t2_dot - c * v_dot``."""
    out = []
    queues = {False: [], True: []}  # tangent? -> [(temp, value)], oldest first

    def flush(pending, upto=None):
        keep = pending if upto is None else pending[:upto]
        for name, value in keep:
            out.append(ir.Assign((name,), value))
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

    for s in body:
        if isinstance(s, ir.Exit):
            flush_all()
            out.append(s)
            continue
        own = ir.slots(s)
        tangent = isinstance(s, ir.Assign) and not s.unpack and _is_tangent(s.targets[0])
        if isinstance(s, ir.Assign) and not s.unpack:
            other = queues[not tangent]
            # the other computation's temporaries wait on, unless this line reads one
            # or assigns a name one of them reads
            read = set(ir.names_in(s.value))
            if any(n in read or any(t in ir.names_in(v) for t in s.targets)
                   for n, v in other):
                flush(other)
            absorb(queues[tangent], *own[0])
            if _is_temp(s.targets[0]) and reads.get(s.targets[0]) == 1 and pure(s) \
                    and not _reads_mutable(s.value) and _read_later(s, body, tail):
                queues[tangent].append((s.targets[0], s.value))
                continue
            flush(queues[tangent])
            out.append(s)
            continue
        if isinstance(s, (ir.If, ir.Expr, ir.Return, ir.SetItem)):
            for pending in _oldest_first(queues):
                absorb(pending, *own[0])
        if isinstance(s, ir.If):
            flush_all()
            s.body = _nest(s.body, reads, pure)
            s.orelse = _nest(s.orelse, reads, pure)
            out.append(s)
            continue
        if isinstance(s, ir.Loop):
            flush_all()
            test = ir.loop_test_slot(s)
            s.cond = _nest(s.cond, reads, pure, test[0] if test else None)
            s.body = _nest(s.body, reads, pure)
            out.append(s)
            continue
        flush_all()
        out.append(s)
    if tail is not None:
        for pending in _oldest_first(queues):
            absorb(pending, *tail)
    flush_all()
    return out


def _tangents_after_primals(body) -> list:
    """Each tangent line right after the line computing its value (``d1 = ...`` then
    ``d1_dot = ...``), where nesting left it further down: moved up past plain
    assignments that assign nothing it reads."""
    out = []
    for s in body:
        for b in ir.blocks(s):
            b[:] = _tangents_after_primals(b)
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


def _read_later(s, body, tail) -> bool:
    """Is `s`'s target read by a later statement of this same block (not nested), or
    by the slot read right after the block?"""
    target = s.targets[0]
    seen = False
    for other in body:
        if other is s:
            seen = True
            continue
        if not seen or isinstance(other, ir.Exit):
            continue
        own = ir.slots(other)[:1] if isinstance(other, (ir.If, ir.Assign, ir.Expr,
                                                         ir.Return, ir.SetItem)) else []
        if any(target in ir.names_in(get()) for get, _ in own):
            return True
    return tail is not None and target in ir.names_in(tail[0]())


def _nest_array_adjoints(body, reads, array) -> list:
    """An array adjoint read once, by a later line of the same adjoint block, is
    written into that line (``t4_bar = g / (1.0 + t4)`` then ``t3_bar = t4_bar * t4``
    becomes ``t3_bar = g / (1.0 + t4) * t4``): NumPy evaluates the expression with
    one temporary less (reusing it in place), and the arrays alive at once are fewer.
    Scalar adjoints keep their lines."""
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = _nest_array_adjoints(block, reads, array)

    def movable(s) -> bool:
        if not (isinstance(s, ir.Assign) and not s.unpack):
            return False
        n = s.targets[0]
        base = n[: -len("%bar")] if n.endswith("%bar") else None
        return base is not None and array(base) and reads.get(n) == 1 \
            and not isinstance(s.value, (ast.Name, ast.Constant))

    i = 0
    while i < len(out):
        s = out[i]
        if not movable(s):
            i += 1
            continue
        n = s.targets[0]
        j = _reader_in_block(out, i, comments=False)  # (not into another line's block)
        done = False
        if j is not None:
            x = out[j]
            slots = ir.slots(x)
            hits = [k for k, (get, _) in enumerate(slots) if n in ir.names_in(get())]
            if len(hits) == 1 and isinstance(x, (ir.Assign, ir.AugAssign, ir.SetItem)):
                get, set_ = slots[hits[0]]
                set_(ir.substitute(get(), {n: s.value}))
                del out[i]
                done = True
        if not done:
            i += 1
    return out


def _reader_in_block(out, i, comments=True):
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
        if n in _reads_of(x):
            return j
        if _changed_by(x) & needs:
            return None
    return None


# ----------------------------------------------------------- float arithmetic


def _float_arithmetic(body, float_name, mine=None) -> list:
    """Reverse-sweep arithmetic on Python floats in the form that costs least:
    ``x ** 2`` is ``x * x`` (the reverse recomputes the square the forward computed
    once without overflow; ``pow`` costs a libm call), and an integer literal a
    float is multiplied or divided by is a float literal (``t_bar * 2 * x`` reads
    ``t_bar * 2.0 * x``: the same product without converting 2 each time), and a
    product added to itself is doubled (``a_dot * a + a * a_dot`` ->
    ``2.0 * (a_dot * a)``, from ``a * a``: one product instead of two). With
    `mine`, only the lines whose target `mine` accepts."""

    class _Cheaper(ast.NodeTransformer):
        def visit_BinOp(self, n):
            self.generic_visit(n)
            if isinstance(n.op, ast.Add) and _same_product(n.left, n.right):
                return ast.BinOp(left=ast.Constant(2.0), op=ast.Mult(), right=n.left)
            if isinstance(n.op, ast.Pow) and isinstance(n.left, ast.Name) \
                    and isinstance(n.right, ast.Constant) and n.right.value == 2 \
                    and type(n.right.value) in (int, float) and float_name(n.left.id):
                return ast.BinOp(left=n.left, op=ast.Mult(), right=ir.name(n.left.id))
            if isinstance(n.op, (ast.Mult, ast.Div)):
                for side, other in (("left", n.right), ("right", n.left)):
                    const = getattr(n, side)
                    if isinstance(const, ast.Constant) and type(const.value) is int \
                            and abs(const.value) < 2 ** 53 and _is_float(other, float_name):
                        setattr(n, side, ast.Constant(float(const.value)))
            return n

    for s in ir.walk(body):
        if isinstance(s, ir.AugAssign) and mine is None or isinstance(s, ir.Assign) and (
                mine is None or not s.unpack and mine(s.targets[0])):
            if any(type(n) is ast.BinOp and (type(n.op) in (ast.Pow, ast.Add) or type(
                    n.left) is ast.Constant or type(n.right) is ast.Constant)
                   for n in ir.nodes(s.value)):
                s.value = _Cheaper().visit(ir.copy_tree(s.value))
    return body


# ----------------------------------------------------------------- spreading


def _spread_by_broadcasting(body, float_name) -> list:
    """An adjoint spread over an array by `unreduce` is combined with another array
    of that shape by broadcasting instead: ``unreduce(g, x, -1, True) * xc`` reads
    ``g * xc`` when `xc` has `x`'s shape (the same numbers, without first writing
    `g` into a new array of that shape), and a number scales `g` before it is
    spread (``unreduce(g, x, ...) * c`` -> ``unreduce(g * c, x, ...)``). The size
    of a number is 1 (``np.size(t5)`` of a total ``np.mean``), so the number need
    not be computed."""
    array = getattr(float_name, "array", None)
    if array is None:
        return body

    def parts(node):
        if not (isinstance(node, ast.Call) and ir.dotted(node.func) == "unreduce"
                and not node.keywords and 2 <= len(node.args) <= 4
                and isinstance(node.args[1], ast.Name) and array(node.args[1].id)):
            return None
        options = [a.value if isinstance(a, ast.Constant) else ... for a in node.args[2:]]
        axis, keepdims = (options + [None, False])[:2] if len(options) < 2 else options
        if axis is ... or keepdims is ...:
            return None
        return node.args[0], node.args[1].id, axis, keepdims

    def number(n) -> bool:
        if isinstance(n, ast.Constant):
            return type(n.value) in (int, float)
        if isinstance(n, ast.Name):
            return float_name(n.id)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return number(n.left) and number(n.right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return number(n.operand)
        return isinstance(n, ast.Call) and ir.dotted(n.func) == "np.size"

    class _Size(ast.NodeTransformer):
        def visit_Call(self, n):
            self.generic_visit(n)
            if ir.dotted(n.func) == "np.size" and len(n.args) == 1 and not n.keywords \
                    and isinstance(n.args[0], ast.Name) and float_name(n.args[0].id):
                return ast.Constant(1)  # the size of a number
            return n

    def shaped(n, x) -> bool:
        """Does `n` certainly evaluate to an array of `x`'s shape?"""
        if isinstance(n, ast.Name):
            base = n.id[: -len("%bar")] if n.id.endswith("%bar") else n.id
            return base == x or float_name.same_shape(base, x)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return shaped(n.left, x) and (number(n.right) or shaped(n.right, x)) \
                or number(n.left) and shaped(n.right, x)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return shaped(n.operand, x)
        p = parts(n)
        return p is not None and shaped(ir.name(p[1]), x)

    class _Spread(ast.NodeTransformer):
        def visit_BinOp(self, n):
            self.generic_visit(n)
            if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
                return n
            for side, other in (("left", n.right), ("right", n.left)):
                p = parts(getattr(n, side))
                if p is None:
                    continue
                g, x, axis, keepdims = p
                call = getattr(n, side)
                if isinstance(n.op, ast.Mult) and number(other) or \
                        isinstance(n.op, ast.Div) and side == "left" and number(other):
                    scaled = ast.BinOp(left=g, op=n.op, right=other) if side == "left" \
                        else ast.BinOp(left=other, op=n.op, right=g)
                    return ast.Call(func=call.func, args=[scaled] + call.args[1:],
                                    keywords=[])
                if (axis is None or keepdims is True) and shaped(other, x):
                    setattr(n, side, g)
                    return n
            return n

    for s in ir.walk(body):
        for get, set_ in ir.slots(s):
            node = get()
            if any(type(c) is ast.Call and _spreads(c) for c in ir.nodes(node)):
                set_(_Spread().visit(_Size().visit(ir.copy_tree(node))))
    return body


def _factor_out_of_sums(body, float_name) -> list:
    """A factor that is the same for every element an `unbroadcast` adds up moves out
    of the sum: ``unbroadcast(g * xhat / t2, t2)`` (t2 of the summed-to shape, one
    value per row) reads ``unbroadcast(g * xhat, t2) / t2``, one division per row
    instead of one per element. Numbers are such factors, and so are arrays of the
    shape the sum gives. This is the one rewrite of simplify that is exact in real
    arithmetic only: the sum of quotients and the quotient of the sum round
    differently (by about the sum's own rounding error)."""
    array = getattr(float_name, "array", None)
    if array is None:
        return body

    def number(n) -> bool:
        return isinstance(n, ast.Constant) and type(n.value) in (int, float) or \
            isinstance(n, ast.Name) and float_name(n.id)

    def constant_along(d, x) -> bool:
        return number(d) or isinstance(d, ast.Name) and array(d.id) and array(x) \
            and float_name.same_shape(d.id, x)

    class _Factor(ast.NodeTransformer):
        def visit_Call(self, n):
            self.generic_visit(n)
            if ir.dotted(n.func) != "unbroadcast" or len(n.args) != 2 or n.keywords \
                    or not isinstance(n.args[1], ast.Name):
                return n
            e, x = n.args[0], n.args[1].id
            outer = []
            while isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Div)) \
                    and constant_along(e.right, x) and not number(e.left):
                outer.append((e.op, e.right))
                e = e.left
            if not outer:
                return n
            out = ast.Call(func=n.func, args=[e, n.args[1]], keywords=[])
            for op, d in reversed(outer):
                out = ast.BinOp(left=out, op=op, right=d)
            return out

    for s in ir.walk(body):
        for get, set_ in ir.slots(s):
            node = get()
            if any(type(c) is ast.Call and ir.dotted(c.func) == "unbroadcast"
                   for c in ir.nodes(node)):
                set_(_Factor().visit(ir.copy_tree(node)))
    return body


def _any_spread(body) -> bool:
    return any(type(c) is ast.Call and _spreads(c) for s in ir.walk(body)
               for get, _ in ir.slots(s) for c in ir.nodes(get()))


def _spreads(call) -> bool:
    f = call.func
    return type(f) is ast.Name and f.id == "unreduce" or type(f) is ast.Attribute \
        and f.attr == "size" and type(f.value) is ast.Name and f.value.id == "np"


def _same_product(a, b) -> bool:
    """Are `a` and `b` one product of two names, perhaps with the factors swapped?"""
    def factors(n):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) \
                and all(isinstance(x, (ast.Name, ast.Constant)) for x in (n.left, n.right)):
            return [ast.dump(n.left), ast.dump(n.right)]
        return None

    fa, fb = factors(a), factors(b)
    return fa is not None and fb is not None and (fa == fb or fa == fb[::-1])


# ---------------------------------------------------------------- negations


def _lift(node, strict=False) -> tuple:
    """``(negated, expr)`` with ``node == -expr`` when `negated`: a negation moved
    out of products and quotients and absorbed by sums and differences
    (``(-a) * b`` -> ``-(a * b)``, ``c + (-d)`` -> ``c - d``). Each step gives the
    same value in floating point (rounding is symmetric about zero, and ``a + b ==
    b + a``), except that ``(-a) + (-b)`` -> ``-(a + b)`` gives -0.0 where the sum is
    an exact 0.0. Only the sign of a zero differs, which a sum or a product passes
    on as a zero; a divisor or a function's argument could turn it into a wrong
    sign (``1 / -0.0``), so there (`strict`) two negated terms keep their
    negations."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        negated, inner = _lift(node.operand, strict)
        return not negated, inner
    if isinstance(node, ast.Call) and ir.dotted(node.func) in _LINEAR_IN_FIRST \
            and node.args and not any(isinstance(a, ast.Starred) for a in node.args):
        negated, first = _lift(node.args[0], strict)
        rest = [_signed(*_lift(a, True)) for a in node.args[1:]]
        return negated, ast.Call(func=node.func, args=[first] + rest,
                                 keywords=node.keywords)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.Add, ast.Sub)):
        op = node.op
        ln, left = _lift(node.left, strict)
        rn, right = _lift(node.right, strict or isinstance(op, ast.Div))
        if isinstance(op, (ast.Mult, ast.Div)):
            return ln != rn, ast.BinOp(left=left, op=op, right=right)
        if isinstance(op, ast.Sub):
            rn = not rn
        if ln and rn and strict:  # -a - b, as it was
            return False, ast.BinOp(left=_signed(True, left), op=ast.Sub(), right=right)
        if ln == rn:  # a + b, or -(a + b)
            return ln, ast.BinOp(left=left, op=ast.Add(), right=right)
        if rn:  # a - b
            return False, ast.BinOp(left=left, op=ast.Sub(), right=right)
        return False, ast.BinOp(left=right, op=ast.Sub(), right=left)  # -a + b
    if isinstance(node, (ast.BinOp, ast.Call, ast.Subscript, ast.Attribute, ast.Compare,
                         ast.Tuple, ast.List)):  # (lifting within each operand)
        new = copy.copy(node)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(new, field, _signed(*_lift(value, True)))
            elif isinstance(value, list):
                setattr(new, field, [_signed(*_lift(v, True)) if isinstance(v, ast.expr)
                                     else v for v in value])
        return False, new
    return False, node


def _signed(negated, node):
    return ast.UnaryOp(op=ast.USub(), operand=node) if negated else node


# runtime helpers linear in their first argument, which they sum or spread over
# another shape: a negation costs less outside them (one pass over the smaller array)
_LINEAR_IN_FIRST = ("unbroadcast", "unreduce", "extreme_bar")


def _negations(node) -> int:
    """Negations in `node`, one inside a runtime sum or spread counting twice."""
    total = 0
    stack = [(node, 1)]
    while stack:
        n, weight = stack.pop()
        t = type(n)
        if t is ast.UnaryOp:
            if type(n.op) is ast.USub:
                total += weight
            stack.append((n.operand, weight))
        elif t is ast.BinOp:
            stack.append((n.left, weight))
            stack.append((n.right, weight))
        elif t is ast.Call and n.args and ir.dotted(n.func) in _LINEAR_IN_FIRST:
            stack.append((n.args[0], 2))
            stack.extend((a, weight) for a in n.args[1:])
        elif t not in (ast.Name, ast.Constant):
            for c in ast.iter_child_nodes(n):
                if isinstance(c, ast.keyword):
                    c = c.value
                if isinstance(c, ast.expr):
                    stack.append((c, weight))
    return total


def _cost(s) -> int:
    """Negations a statement evaluates (``x += -e`` is written ``x -= e``)."""
    n = _negations(s.value)
    if isinstance(s, ir.AugAssign) and isinstance(s.value, ast.UnaryOp) \
            and isinstance(s.value.op, ast.USub):
        n -= 1
    return n


def _has_negation(node) -> bool:
    return any(type(x) is ast.UnaryOp and type(x.op) is ast.USub for x in ir.nodes(node))


def _lifted(s):
    """`s` with its value's negations lifted, or None when that saves none."""
    if not _has_negation(s.value):
        return None
    new = ir.copy_tree(s)
    new.value = _signed(*_lift(s.value))
    return new if _cost(new) < _cost(s) else None


def _double_sums(body, reads, defs, float_name) -> list:
    """``x_a_bar + x_a_bar`` (the two uses of an array `x` in ``x * x``) of a product
    with a number among its factors, ``x_a_bar = t_bar * c * x``, reads ``t_bar * (2.0 * c)
    * x``: doubling is exact, so the number doubled gives the same values as the sum,
    and an array product is computed once instead of computed and added to itself."""
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = _double_sums(block, reads, defs, float_name)

    def array(n) -> bool:  # (for numbers the sum costs what the doubling costs)
        base = n[: -len("%bar")] if n.endswith("%bar") else n
        return getattr(float_name, "array", None) is not None and float_name.array(base)

    def doubled(product):
        """`product` with one number factor doubled, or None."""
        if isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult):
            for side in ("right", "left"):
                factor = getattr(product, side)
                if isinstance(factor, ast.Constant) and type(factor.value) in (int, float) \
                        or isinstance(factor, ast.Name) and float_name(factor.id) \
                        or _is_size_ratio(factor):
                    new = copy.copy(product)
                    setattr(new, side, ast.BinOp(left=ast.Constant(2.0), op=ast.Mult(),
                                                 right=factor))
                    return new
            inner = doubled(product.left)
            if inner is not None:
                new = copy.copy(product)
                new.left = inner
                return new
        return None

    i = 0
    while i < len(out):
        s = out[i]
        n = s.targets[0] if isinstance(s, ir.Assign) and not s.unpack else None
        if n is None or reads.get(n) != 2 or defs.get(n) != 1 or not array(n):
            i += 1
            continue
        j = _reader_in_block(out, i)
        x = out[j] if j is not None else None
        new = doubled(s.value) if isinstance(x, (ir.Assign, ir.AugAssign)) \
            and n not in _reads_of_target(x) else None
        if new is not None:
            twice = ast.dump(ast.BinOp(left=ir.name(n), op=ast.Add(), right=ir.name(n)))
            found = [node for node in ast.walk(x.value)
                     if isinstance(node, ast.BinOp) and ast.dump(node) == twice]
            if len(found) == 1:  # (n's two reads are that sum, in place)
                x.value = _replaced(x.value, found[0], new)
                del out[i]
                continue
        i += 1
    return out


def _replaced(tree, old, new):
    """A copy of `tree` with the subtree `old` (an object in it) replaced by `new`."""
    if tree is old:
        return ir.copy_tree(new)
    out = copy.copy(tree)
    for field, value in ast.iter_fields(tree):
        if isinstance(value, ast.AST):
            setattr(out, field, _replaced(value, old, new))
        elif isinstance(value, list):
            setattr(out, field, [_replaced(v, old, new) if isinstance(v, ast.AST) else v
                                 for v in value])
    return out


def _is_size_ratio(node) -> bool:
    """Arithmetic on literals and ``np.size(...)`` (a mean's scale)."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mult)):
        return _is_size_ratio(node.left) and _is_size_ratio(node.right)
    return isinstance(node, ast.Call) and ir.dotted(node.func) == "np.size"


def _absorb_negations(body, reads, defs, mine=None) -> list:
    """Negations an adjoint block would evaluate only to add or subtract their
    result are folded into that sum: ``t10_bar = -t9_bar`` ... ``xs_bar[i] +=
    t10_bar + t5_bar`` becomes ``xs_bar[i] -= t9_bar + t5_bar``, and
    ``x_c_bar = -t2_bar * t1 / x`` then ``x_bar = x_c_bar + t2_bar`` becomes
    ``x_bar = t2_bar - t2_bar * t1 / x``. A negation costs a new float (a pass over
    an array) and changes nothing a sum cannot say itself. Only a name assigned
    once and read once, by a later line of the same block, is written into its
    reader, and only when that removes a negation; otherwise every line stays.
    With `mine`, only lines whose target `mine` accepts change (a forward-mode
    derivative's tangent lines, not the user's computation beside them)."""
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = _absorb_negations(block, reads, defs, mine)

    def ours(s) -> bool:
        target = s.target if isinstance(s, ir.AugAssign) else s.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            target = target.value.id  # (an element of an adjoint list or array)
        return mine is None or isinstance(target, str) and mine(target)

    for i, s in enumerate(out):
        if (isinstance(s, ir.AugAssign) or isinstance(s, ir.Assign) and not s.unpack) \
                and ours(s):
            better = _lifted(s)
            if better is not None:
                out[i] = better

    # what the lines of this block read (a name read elsewhere has no reader here)
    here = set()
    for x in out:
        if not ir.blocks(x):
            here.update(_reads_of(x))

    def reader(i):
        """The index of the line reading out[i]'s target, when it can take its value."""
        s = out[i]
        if not (isinstance(s, ir.Assign) and not s.unpack) or not ours(s):
            return None
        n = s.targets[0]
        if n not in here or reads.get(n) != 1 or defs.get(n) != 1 \
                or not _has_negation(s.value) or not _lift(s.value)[0]:
            return None
        j = _reader_in_block(out, i)
        if j is None:
            return None
        x = out[j]
        ok = isinstance(x, (ir.Assign, ir.AugAssign)) and \
            n in ir.names_in(x.value) and n not in _reads_of_target(x) and ours(x)
        return j if ok else None

    def absorb(i):
        """Write out[i] into its reader (and on, while the negation is still there)
        when that removes a negation: the new lines by index, or None."""
        j = reader(i)
        if j is None:
            return None
        s, x = out[i], out[j]
        merged = ir.copy_tree(x)
        merged.value = ir.substitute(x.value, {s.targets[0]: s.value})
        negated, value = _lift(merged.value)
        merged.value = _signed(negated, value)
        if _cost(merged) < _cost(s) + _cost(x):
            return {i: None, j: merged}
        if negated and isinstance(merged, ir.Assign):
            out[j] = merged
            more = absorb(j)
            out[j] = x
            if more is not None:
                return {i: None, **more}
        return None

    i = 0
    while i < len(out):
        change = absorb(i)
        if change is None:
            i += 1
            continue
        for k, new in change.items():
            out[k] = new
        out = [x for x in out if x is not None]
    return out


def _changed_by(x) -> set:
    """Names a line assigns, and the container it writes into in place."""
    changed = set(ir.defined_names(x))
    target = getattr(x, "target", None)
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        changed.add(target.value.id)
    return changed


def _reads_of_target(s) -> set:
    target = getattr(s, "target", None)
    return set(ir.names_in(target)) if isinstance(target, ast.AST) else set()


# ------------------------------------------------------------------ comments


def _tidy_comments(body, last=None):
    """Drop comments with no statement after them, and a comment that repeats the
    comment just before it (such as a branch's first line quoting the `if` again)."""
    out = []
    for i, s in enumerate(body):
        if isinstance(s, ir.Comment):
            following = body[i + 1] if i + 1 < len(body) else None
            if following is None or isinstance(following, ir.Comment) or s.text == last:
                continue
            last = s.text
        if isinstance(s, ir.If):
            s.body = _tidy_comments(s.body, last)
            s.orelse = _tidy_comments(s.orelse, last)
            last = None
        elif isinstance(s, ir.ForEach):
            s.body = _tidy_comments(s.body, last)
            last = None
        out.append(s)
    return out
