"""dead: passes that drop lines whose work nothing needs.

`drop_dead` drops reverse-sweep assignments nothing reads (and the branches and
loops left empty), `dead_stores` those overwritten before anything reads them,
`drop_dead_forward` forward assignments nothing reads that cannot raise
(`cannot_raise`, which `cse.hoist_invariants` asks too: float arithmetic, and the
calls on floats of functions the facts call total), and
`drop_needless_restores` the reverse sweep's restores of lists and arrays (an
element put back, an append or a pop undone) that nothing run after them reads,
with the forward lines that saved the old values.
"""

from __future__ import annotations

import ast

from .. import ir
from .common import reads_of, without
from .context import Context, NameKinds


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


def drop_dead(forward, reverse, ctx: Context):
    """`reverse` without the assignments nothing in either sweep reads that are not
    in `ctx.keep` and change nothing else (repeatedly), and without a branch or loop
    left with nothing to do."""
    keep = ctx.keep
    reads = ir.reads_in(forward + reverse)
    candidates = [s for s in ir.walk(reverse)
                  if isinstance(s, ir.Assign) and not _has_effect(s.value)]
    dead_ids = _drop_unread(candidates, reads, lambda s: not any(
        reads.get(t) or t in keep for t in s.targets))
    reverse = without(reverse, lambda s: id(s) in dead_ids)
    return without(reverse, lambda s: isinstance(s, (ir.If, ir.ForEach)) and not _has_code(s))


def without_idle_loops(reverse):
    """`reverse` without the loops (and branches) left doing nothing once the tapes
    are filled: a reversed loop whose iterations only pop an empty tuple (what it
    read was dropped after `drop_dead`, or recomputed nowhere)."""
    def idle(s):
        return isinstance(s, (ir.If, ir.ForEach)) and all(
            isinstance(x, ir.Comment) or isinstance(x, ir.Pop) and not x.targets
            for x in ir.walk(sum(ir.blocks(s), [])))
    return without(reverse, idle)


def dead_stores(body, ctx: Context):
    """Drop reverse assignments that are overwritten before anything reads them (a
    branch's zero adjoint that the code after the branch replaces); the names in
    `ctx.keep` are read at the end."""
    out, _ = _live_block(body, set(ctx.keep))
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
            live = a | b | reads_of(s)
        elif isinstance(s, (ir.ForEach, ir.Loop)):
            # values read in the body may come from the previous iteration
            everything = set()
            for x in ir.walk(sum(ir.blocks(s), [])):
                everything |= reads_of(x)
                if isinstance(x, ir.Loop) and x.test is not None:
                    everything |= set(ir.names_in(x.test))
            inner = live | everything
            for block in ir.blocks(s):
                block[:], _ = _live_block(block, set(inner))
            live = inner | reads_of(s)
        else:
            for t in ir.defined_names(s):
                if not isinstance(s, ir.AugAssign):
                    live.discard(t)
            live |= reads_of(s)
        out.append(s)
    out.reverse()
    return out, live


def _has_code(s) -> bool:
    return any(not isinstance(x, (ir.Comment, ir.Pop)) for x in ir.walk(sum(ir.blocks(s), [])))


_NON_RAISING = (ast.Add, ast.Sub, ast.Mult)


def _numeric(node, kinds: NameKinds) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool)
    if isinstance(node, ast.Name):
        return kinds.is_float(node.id) or kinds.is_int(node.id)
    return False


def _float(node, kinds: NameKinds) -> bool:
    """Is `node` certainly a Python float (a float literal, or a name holding one)?"""
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    return isinstance(node, ast.Name) and kinds.is_float(node.id)


def cannot_raise(node, kinds: NameKinds) -> bool:
    """Arithmetic on Python floats that never raises (it overflows to inf), a call of
    a function that no float makes raise (``math.atan(x)``, ``math.tanh(x)``: a
    total function, `primitives.facts.Facts.total`) on floats, an empty list (a tape
    nothing is pushed on), and NumPy work on float arrays that cannot raise either
    (see `_array_cannot_raise`). A line that may raise stays even when nothing reads
    it (``math.log(x)``, ``math.sin(x)``, which raises on an infinity,
    ``math.exp(x)``, which overflows), so the derivative raises where the function
    does."""
    if isinstance(node, ast.List) and not node.elts:
        return True
    if _array_cannot_raise(node, kinds):
        return True
    if isinstance(node, ast.Call) and not node.keywords and node.args \
            and kinds.total(ir.dotted(node.func) or "") \
            and all(_float(a, kinds) for a in node.args):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NON_RAISING):
        return all(cannot_raise(x, kinds) for x in (node.left, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return cannot_raise(node.operand, kinds)
    return _numeric(node, kinds)


_SAFE_REDUCTIONS = {"np.sum", "np.mean", "np.prod"}


_SAFE_METHODS = {"sum", "mean", "prod"}


_SAFE_BINARY = {"np.maximum", "np.minimum"}


def _array_cannot_raise(node, kinds: NameKinds) -> bool:
    """An expression over float arrays that NumPy evaluates without raising (at worst
    with a warning): a unary ufunc, arithmetic between arrays whose shapes certainly
    broadcast together or with a number, a total sum, mean or product. Mismatched
    shapes raise; these cannot. So do `np.maximum` and `np.minimum` of such operands
    (``np.maximum(t, 0.0)``, which a NaN passes through), `np.einsum` of arrays
    whose shapes agree label by label (`_einsum_cannot_raise`), and the product ``a @
    b`` of matrices whose inner lengths are one symbol."""
    array = kinds.array

    def arrayish(n):
        return isinstance(n, ast.Name) and array(n.id)

    def operand(n):
        return arrayish(n) or _numeric(n, kinds)

    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                            ast.Div, ast.Pow)):
        left, right = node.left, node.right
        if not (operand(left) and operand(right)) or not (arrayish(left) or arrayish(right)):
            return False
        if arrayish(left) and arrayish(right):
            return left.id == right.id or kinds.broadcastable(left.id, right.id)
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) \
            and arrayish(node.left) and arrayish(node.right):
        # matrices whose inner lengths are one symbol (no stacks: their broadcasting
        # is not checked here)
        a, b = kinds.shape(node.left.id), kinds.shape(node.right.id)
        return a is not None and b is not None and len(a) == len(b) == 2 \
            and a[1] == b[0]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return arrayish(node.operand)
    if isinstance(node, ast.Call) and not node.keywords:
        text = ir.dotted(node.func) or ""
        if len(node.args) == 1 and arrayish(node.args[0]):
            return text in _SAFE_REDUCTIONS or kinds.unary_ufunc(text)
        if text == "np.einsum":
            return _einsum_cannot_raise(node, kinds)
        if text in _SAFE_BINARY and len(node.args) == 2:
            left, right = node.args  # (elementwise: shapes that broadcast, or a number)
            if arrayish(left) and arrayish(right):
                return left.id == right.id or kinds.broadcastable(left.id, right.id)
            return (arrayish(left) or arrayish(right)) and operand(left) and operand(right)
        if not node.args and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _SAFE_METHODS and arrayish(node.func.value):
            return True
    return False


def _einsum_cannot_raise(node, kinds: NameKinds) -> bool:
    """``np.einsum("ij,jd->id", A, V)`` of float arrays whose shapes are known and
    agree: every operand has as many labels as axes, the axes of one label have the
    same length (or length 1), and the output names each of its labels once, from
    the inputs."""
    spec, operands = node.args[0], node.args[1:]
    if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)) or not operands \
            or "." in spec.value:
        return False
    inputs, arrow, output = spec.value.replace(" ", "").partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(operands) or not all(
            isinstance(a, ast.Name) and kinds.array(a.id) for a in operands):
        return False
    lengths = {}
    for labels, a in zip(inputs, operands):
        shape = kinds.shape(a.id)
        if shape is None or len(shape) != len(labels) or not labels.isalpha():
            return False
        for label, symbol in zip(labels, shape):
            if symbol != 1 and lengths.setdefault(label, symbol) != symbol:
                return False
    known = set("".join(inputs))
    return not arrow or (output.isalpha() or not output) and \
        len(set(output)) == len(output) and set(output) <= known


def drop_dead_forward(forward, reverse, ctx: Context):
    """`forward` without the assignments nothing in either sweep reads whose
    computation cannot raise (with `ctx.replayed`, whose computation changes nothing
    else: it ran once already), repeatedly, and without a branch left empty."""
    kinds, replayed = ctx.kinds, ctx.replayed
    reads = ir.reads_in(forward + reverse)
    candidates = [s for s in ir.walk(forward) if isinstance(s, ir.Assign) and not s.unpack]
    harmless = {}  # id -> may this line go when nothing reads it?

    def unread(s):
        if reads.get(s.targets[0]):
            return False
        got = harmless.get(id(s))
        if got is None:
            got = harmless[id(s)] = bool(replayed and not _has_effect(s.value)
                                         or cannot_raise(s.value, kinds))
        return got

    dead_ids = _drop_unread(candidates, reads, unread)
    forward = without(forward, lambda s: id(s) in dead_ids)
    return without(forward, lambda s: isinstance(s, ir.If) and not _has_code(s))


def drop_needless_restores(forward, reverse, ctx: Context):
    """A restore ``x[i] = x%old`` in the reverse sweep matters only when something the
    reverse sweep runs after it reads `x` (or a view of it); drop the others, with
    the forward sweep's ``x%old = x[i]``. So with a list's restores (`ir.Expr`'s):
    ``xs.pop()`` undoing an append, and ``xs.append(xs%old)`` undoing a pop, whose
    forward ``xs%old = xs.pop()`` is ``xs.pop()`` again without it. `ctx.mutable`
    says which object each name holds."""
    mutable = ctx.mutable
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
            out |= {mutable[n.id] for n in ast.walk(node) if isinstance(n, ast.Name)
                    and n.id in mutable and id(n) not in shape_only}
            out |= {mutable[n] for c in ast.walk(node) if isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Attribute) and c.func.attr == "reverse"
                    and isinstance(c.func.value, ast.Name)
                    for n in held.get(c.func.value.id, ()) if n in mutable}
        return out

    def block(body, live) -> set:
        for s in reversed(body):
            if restore(s):
                if mutable.get(container(s)) in live:
                    kept.add(id(s))
                continue
            if isinstance(s, ir.Pop):  # from here back, the name holds another object
                live = live - {mutable[n] for n in s.targets if n in mutable}
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
        args = s.value.args  # (``xs.append(xs%old)``, ``xs.insert(at, xs%old)``)
        return args[-1].id if args and isinstance(args[-1], ast.Name) \
            and args[-1].id.endswith("%old") else None

    olds = {old(s) for s in dropped} - {None}
    olds -= {old(s) for s in ir.walk(reverse) if restore(s) and id(s) in kept}
    gone = {id(s) for s in dropped}
    reverse = without(reverse, lambda s: id(s) in gone or (
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
