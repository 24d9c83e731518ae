"""dead: passes that drop lines whose work nothing needs.

`drop_dead` drops reverse-sweep assignments nothing needs (and the branches and
loops left empty), `dead_stores` those overwritten before anything reads them,
`drop_dead_forward` forward assignments nothing needs that cannot raise
(`cannot_raise`, which `cse.hoist_invariants` asks too: float arithmetic, and the
calls on floats of functions the facts call total; and copies, tuples of names, and
the items and unpacking of names that certainly hold a tuple of that length), with
the phis of the values they carried around loops and the ``for`` loops over a
``range`` of ints left with nothing to do, and
`drop_needless_restores` the reverse sweep's restores of lists and arrays (an
element put back, an append or a pop undone) that nothing run after them reads,
with the forward lines that saved the old values.

"Nothing needs" is a mark and sweep (`_dead_lines`), not a count of reads: what the
other sweep and the result read, the names to keep, and every line that may raise or
change something are the roots, and a line no root reaches goes even when lines that
go too read it. A value carried around a loop that nothing after the loop reads
(``acc = acc + t``, and the phi's copy ``acc%1 = acc%2`` that reads it back) goes
so, unless a line of its cycle, or one reading it, may raise: that line is a root.
"""

from __future__ import annotations

import ast

from .. import ir
from .common import reads_of, without
from .context import Context, NameKinds


def _has_effect(node) -> bool:
    """A method call (``acc.pop()``) changes a list: it must run even if unused."""
    t = type(node)  # (the commonest: names and operators on them, no call)
    if t is ast.Name or t is ast.Constant:
        return False
    if t is ast.BinOp and type(node.left) in _ATOMS and type(node.right) in _ATOMS:
        return False
    stack = [node]  # (operators, negations, attributes and calls inline, the rest by ir.nodes)
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n = pop()
        t = type(n)
        if t is ast.Name or t is ast.Constant:
            continue
        if t is ast.BinOp:
            push(n.left)
            push(n.right)
        elif t is ast.UnaryOp:
            push(n.operand)
        elif t is ast.Attribute:
            push(n.value)
        elif t is ast.Call:
            if _method_call(n):
                return True
            push(n.func)
            extend(n.args)
            extend([k.value for k in n.keywords])
        elif any(type(c) is ast.Call and _method_call(c) for c in ir.nodes(n)):
            return True
    return False


def _method_call(call) -> bool:
    """Is `call` a method of a name of the code's (``acc%1.pop()``)?"""
    if type(call.func) is not ast.Attribute:
        return False
    text = ir.dotted(call.func)
    return text is not None and "%" in text


_ATOMS = frozenset({ast.Name, ast.Constant})


def _dead_lines(body, droppable, needed, code) -> tuple:
    """Mark and sweep: ``(dead, live, needed)``, the ids of the lines among those
    `droppable` accepts that nothing needs (they go), the ids of the loops' phis,
    branches and droppable lines that stay, and the names something needs.

    The roots are the names in `needed` (what the other sweep and the result read,
    the names to keep) and every line `droppable` refuses (it may raise, or change
    something), with what it reads. A needed name needs every line that assigns it
    (a droppable one, and a loop's phi: its value before the loop); a needed line
    needs what it reads, and the tests of the branches around it when it is `code`.
    A loop stays with what its range and its test read (whether it ends is kept as
    written). A name no root reaches goes with all its lines, so a value carried
    around a loop that nothing else reads goes too (``acc = acc + t`` and the
    phi's copy at the iteration's end read each other: a count of reads never
    frees either).

    `droppable` is asked only of assignments (it accepts nothing else), and only of
    those left unneeded by the marking from the other roots: it may look at kinds and
    shapes, and most lines are needed. One it refuses is a root after all, and the
    marking goes on from it (a root that is needed anyway adds nothing)."""
    definers = {}  # name -> [(id, the names it reads, the branch around it)]
    test_of = {}  # id of a branch -> (the names its test reads, the branch around it)
    live = set()
    work = list(needed)
    branches = []  # branches to mark live, with what they read
    assigns = []  # (assignment, the names it reads, the branch around it)

    def visit(stmts, around):
        for s in stmts:
            t = type(s)
            if t is ir.Comment:
                continue
            if t is ir.If:
                test_of[id(s)] = (ir.names_in(s.test), around)
                visit(s.body, s)
                visit(s.orelse, s)
            elif t is ir.Loop or t is ir.ForEach:
                branches.append(around)
                for node in ([] if s.iter is None else [s.iter]) + \
                        ([] if getattr(s, "test", None) is None else [s.test]):
                    work.extend(ir.names_in(node))
                for phi in getattr(s, "phis", ()):
                    reads = () if phi.init is None else ir.names_in(phi.init)
                    definers.setdefault(phi.name, []).append((id(phi), reads, around))
                for block in ir.blocks(s):
                    visit(block, around)
            elif t is ir.Exit:
                branches.append(around)  # (a break or a continue is control flow)
                visit(s.copies, around)
            elif t is ir.Assign:
                reads = ir.names_in(s.value)
                for n in s.targets:
                    definers.setdefault(n, []).append((id(s), reads, around))
                assigns.append((s, reads, around))
            else:
                work.extend(ir.stmt_reads(s))
                if code(s):
                    branches.append(around)

    def mark(branch):
        while branch is not None and id(branch) not in live:
            live.add(id(branch))
            reads, branch = test_of[id(branch)]
            work.extend(reads)

    visit(body, None)
    del visit  # (it calls itself: a reference cycle holding what it saw otherwise)
    for branch in branches:
        mark(branch)
    seen = set()
    _marked(work, seen, definers, live, mark)
    # (then the assignments nothing needs so far, each asked once: one refused is
    # kept, with all it reads)
    for s, reads, around in [a for a in assigns if id(a[0]) not in live]:
        if not droppable(s):
            live.add(id(s))
            work.extend(reads)
            if code(s):
                mark(around)
    _marked(work, seen, definers, live, mark)
    dead = {key for found in definers.values() for key, _, _ in found} - live
    return dead, live, seen


def _marked(work, seen, definers, live, mark):
    """`_dead_lines`' marking: every name in `work` needed (into `seen`), with the lines
    defining it (into `live`, with the branches around them) and what they read."""
    while work:
        n = work.pop()
        if n in seen:
            continue
        seen.add(n)
        for key, reads, around in definers.get(n, ()):
            if key not in live:
                live.add(key)
                work.extend(reads)
                mark(around)


def drop_dead(forward, reverse, ctx: Context):
    """`reverse` without the assignments nothing in either sweep needs (`_dead_lines`:
    nothing reads them, or only lines that go themselves, a loop's adjoints that
    only each other read included) that are not in `ctx.keep` and change nothing
    else, and without a branch or loop left with nothing to do."""
    needed = set(ctx.keep)
    for s in ir.walk(forward):
        needed.update(ir.stmt_reads(s))
    dead_ids, _, _ = _dead_lines(
        reverse, lambda s: type(s) is ir.Assign and not _has_effect(s.value), needed,
        lambda s: not isinstance(s, (ir.Comment, ir.Pop)))
    if dead_ids:
        reverse = without(reverse, lambda s: id(s) in dead_ids)
    if not any(type(s) in _BLOCKS for s in reverse):
        return reverse  # (no branch or loop, at any depth)
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


def dead_stores(body, ctx: Context, before=None):
    """Drop reverse assignments that are overwritten before anything reads them (a
    branch's zero adjoint that the code after the branch replaces); the names in
    `ctx.keep` are read at the end.

    `before`: the names assigned before `body` runs (the forward sweep's, the
    parameters), given when `drop_dead` has just dropped what nothing needs. Then
    a body with no branch or loop that assigns each name once, none of `before`,
    holds no dead store (each line left is read by a later line that stays, or
    kept: an earlier line cannot read what no line before assigned), and its lines
    are not looked at."""
    if before is not None and _single_stores(body, before):
        return body
    out, _ = _live_block(body, set(ctx.keep))
    return out


def _single_stores(body, before) -> bool:
    """Has `body` no branch or loop, and does it assign each name once, none of
    `before`, and no unpacking into nothing (``() = bar``, left by a step function's
    adjoint of an empty state: `drop_dead` keeps a line that defines no name, and
    `_live_block` drops it)?"""
    seen = set()
    for s in body:
        t = type(s)
        if t is ir.Assign:
            names = s.targets
            if not names:
                return False
        elif t in _BLOCKS or t is ir.AugAssign:
            return False
        else:
            names = ir.defined_names(s)
        for n in names:
            if n in seen or n in before:
                return False
            seen.add(n)
    return True


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
    """Does the branch or loop `s` hold a line that does something: not a comment, a
    pop (its tape's balance is `tapes.fill_tapes`'s), or a branch holding none? A
    branch `_dead_lines` found dead may still hold the branches emptied inside it,
    and its test's value went with the dead lines: it goes as a whole."""
    for block in ir.blocks(s):
        for x in block:
            t = type(x)
            if t is ir.Comment or t is ir.Pop or t is ir.If and not _has_code(x):
                continue
            return True
    return False


_NON_RAISING = (ast.Add, ast.Sub, ast.Mult)
_NON_RAISING_TYPES = frozenset(_NON_RAISING)


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
    """Arithmetic and comparisons on Python floats that never raise (arithmetic
    overflows to inf), a call of a function that no float makes raise
    (``math.atan(x)``, ``math.tanh(x)``: a total function,
    `primitives.facts.Facts.total`) on floats, an empty list (a tape
    nothing is pushed on), and NumPy work on float arrays that cannot raise either
    (see `_array_cannot_raise`). A line that may raise stays even when nothing reads
    it (``math.log(x)``, ``math.sin(x)``, which raises on an infinity,
    ``math.exp(x)``, which overflows), so the derivative raises where the function
    does."""
    t = type(node)  # (the commonest first: a number, and arithmetic on numbers)
    if t is ast.Name or t is ast.Constant:
        return _numeric(node, kinds)
    if t is ast.BinOp:  # (of the tests below, only these two take an operator)
        return type(node.op) in _NON_RAISING_TYPES and cannot_raise(node.left, kinds) \
            and cannot_raise(node.right, kinds) or _array_cannot_raise(node, kinds)
    if t is ast.Call:  # (of the tests below, only these two take a call)
        return not node.keywords and node.args and kinds.total(ir.dotted(node.func) or "") \
            and all(_float(a, kinds) for a in node.args) or _array_cannot_raise(node, kinds)
    if isinstance(node, ast.List) and not node.elts:
        return True
    if t is ast.Attribute and type(node.value) is ast.Name:  # (``self.k`` held, bound)
        return kinds.held(node.value.id, node.attr)
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
    if isinstance(node, ast.Compare) and all(isinstance(op, _ORDERS) for op in node.ops):
        # (numbers compare without raising, an int with a float exactly)
        return all(cannot_raise(x, kinds) for x in (node.left, *node.comparators))
    return _numeric(node, kinds)


_ORDERS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


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
    if isinstance(node, ast.BinOp) and type(node.op) in _ARRAY_ARITHMETIC:
        left, right = node.left, node.right
        a, b = _arrayish(left, array), _arrayish(right, array)
        if not (a or b) or not (a or _numeric(left, kinds)) \
                or not (b or _numeric(right, kinds)):
            return False
        if a and b:
            return left.id == right.id or kinds.broadcastable(left.id, right.id)
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) \
            and _arrayish(node.left, array) and _arrayish(node.right, array):
        # matrices whose inner lengths are one symbol (no stacks: their broadcasting
        # is not checked here)
        a, b = kinds.shape(node.left.id), kinds.shape(node.right.id)
        return a is not None and b is not None and len(a) == len(b) == 2 \
            and a[1] == b[0]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _arrayish(node.operand, array)
    if isinstance(node, ast.Call) and not node.keywords:
        text = ir.dotted(node.func) or ""
        if len(node.args) == 1 and _arrayish(node.args[0], array):
            return text in _SAFE_REDUCTIONS or kinds.unary_ufunc(text)
        if text == "np.einsum":
            return _einsum_cannot_raise(node, kinds)
        if text in _SAFE_BINARY and len(node.args) == 2:
            left, right = node.args  # (elementwise: shapes that broadcast, or a number)
            a, b = _arrayish(left, array), _arrayish(right, array)
            if a and b:
                return left.id == right.id or kinds.broadcastable(left.id, right.id)
            return (a or b) and (a or _numeric(left, kinds)) and (b or _numeric(right, kinds))
        if not node.args and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _SAFE_METHODS and _arrayish(node.func.value, array):
            return True
    return False


_ARRAY_ARITHMETIC = frozenset({ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow})


def _arrayish(n, array) -> bool:
    """Is `n` a name that certainly holds a float array (`array`: `NameKinds.array`)?"""
    return isinstance(n, ast.Name) and array(n.id)


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
    """`forward` without the assignments nothing needs (`_dead_lines`: nothing in
    either sweep reads them, or only lines that go themselves, a loop-carried value
    that only its own next value reads included, with the phi that carries it) whose
    computation cannot raise (with `ctx.replayed`, whose computation changes nothing
    else: it ran once already), and without a branch left empty. A line that may
    raise stays with everything it reads, so the derivative raises where the
    function does."""
    kinds, replayed = ctx.kinds, ctx.replayed
    # (the tuples' sizes and the bounded reads are asked of unpackings and
    # subscripts only: with none, they are not worked out)
    items = any(type(s) is ir.Assign and (s.unpack or type(s.value) is ast.Subscript)
                for s in ir.walk(forward))
    sizes = _tuple_sizes(forward) if items else {}
    bounded = _bounded_reads(forward, ctx) if items else set()

    def droppable(s):
        if type(s) is not ir.Assign:
            return False
        value = s.value
        if s.unpack:  # (``u, v = pair`` of a pair cannot raise)
            return type(value) is ast.Name and sizes.get(value.id) == len(s.targets)
        return _atoms(value) or cannot_raise(value, kinds) or _item(value, sizes) or \
            bool(replayed and not _has_effect(value)) or (
                type(value) is ast.Subscript and type(value.value) is ast.Name and
                type(value.slice) is ast.Name and
                (value.value.id, value.slice.id) in bounded)

    needed = set(ctx.keep) | _free_reads(reverse, frozenset())
    while True:
        dead_ids, live, used = _dead_lines(forward, droppable, needed, lambda s: True)
        if dead_ids:
            forward = without(forward, lambda s: id(s) in dead_ids)
        if not any(type(s) in _BLOCKS for s in forward):
            return forward  # (no branch, loop or exit: no phi, nothing left idle)
        carried = {c.targets[0] for s in ir.walk(forward) if type(s) is ir.Exit
                   for c in s.copies}
        for s in ir.walk(forward):
            if type(s) is ir.Loop and s.phis:
                s.phis = [p for p in s.phis if id(p) in live or p.name in carried]
        forward = without(forward, lambda s: isinstance(s, ir.If) and not _has_code(s))
        # a loop left with nothing to do goes, and then what its range read may go
        # too (an outer loop whose index only the emptied inner loop read)
        idle = {id(s) for s in ir.walk(forward) if _idle_loop(s, used, kinds)}
        if not idle:
            return forward
        forward = without(forward, lambda s: id(s) in idle)


_BLOCKS = frozenset({ir.If, ir.Loop, ir.ForEach, ir.Exit})  # (statements with blocks)


def _idle_loop(s, used, kinds) -> bool:
    """Is `s` a ``for`` loop over a ``range`` of ints (which cannot raise, and ends)
    whose body does nothing, and whose index nothing reads after it?"""
    if type(s) is not ir.Loop or s.iter is None or s.phis or s.cond or s.checkpoint \
            or s.target in used:
        return False
    it = s.iter

    def int_atom(a):
        return type(a) is ast.Constant and type(a.value) is int or \
            type(a) is ast.Name and kinds.is_int(a.id)

    if not (type(it) is ast.Call and ir.dotted(it.func) == "range" and not it.keywords
            and 1 <= len(it.args) <= 3 and all(int_atom(a) for a in it.args)):
        return False
    if len(it.args) == 3 and not (type(it.args[2]) is ast.Constant and it.args[2].value):
        return False  # (a step of 0 raises)
    return all(type(x) is ir.Comment or type(x) is ir.Exit and not x.copies
               or type(x) is ir.Push and not x.values for x in ir.walk(s.body))


def _free_reads(body, bound, defined=frozenset()) -> set:
    """The names `body` reads before it assigns them itself on every path (`defined`:
    those assigned already), so the values it needs from before it: not a loop's
    index where a loop of `body` binds it (the reverse sweep's ``for i in
    reversed(range(n))`` reads its own `i`), nor a value the reverse sweep recomputes
    from others before reading it (``t2 = x[i]`` in its loop)."""
    return _reads_before(body, bound, set(defined))[0]


def _reads_before(body, bound, defined) -> tuple:
    """``(free reads, names assigned on every path through body)`` (`_free_reads`)."""
    out = set()
    for s in body:
        if type(s) is ir.Assign:
            out.update(n for n in ir.names_in(s.value) if n not in defined)
            defined.update(s.targets)
            continue
        if type(s) is ir.Comment:  # (reads and assigns nothing)
            continue
        out.update(n for n in ir.stmt_reads(s) if n not in defined)
        inner = bound | {s.target} if type(s) in (ir.ForEach, ir.Loop) and s.target \
            else bound
        after = None
        for block in ir.blocks(s):
            reads, assigned = _reads_before(block, inner, set(defined))
            out |= reads
            after = assigned if after is None else after & assigned
        if type(s) is ir.If and after is not None:
            defined |= after  # (a loop may run no iteration: what it assigns is not)
        elif not ir.blocks(s):
            defined.update(ir.defined_names(s))
    return out - bound, defined


def _tuple_sizes(body) -> dict:
    """The names of `body` that certainly hold a tuple, with its length: every line
    that assigns one (a loop's phi included) assigns a tuple display of that length
    (``pair = (a, b)``) or a copy of such a name, the tuples carried around a loop
    included (``pair%1`` is ``pair`` or ``pair%2``)."""
    sources = {}  # name -> what its lines assign (None: something else)
    for s in ir.walk(body):
        if type(s) is ir.Assign and not s.unpack:
            sources.setdefault(s.targets[0], []).append(s.value)
        elif type(s) is ir.Loop:
            if s.target:
                sources.setdefault(s.target, []).append(None)
            for phi in s.phis:
                sources.setdefault(phi.name, []).append(phi.init)
        else:
            for n in ir.defined_names(s):
                sources.setdefault(n, []).append(None)
    # optimistic, as constant propagation is: None while no line has said (a tuple
    # carried around a loop is the copy of one sized after it), -1 once two lines
    # disagree or one assigns something else; a size only ever becomes -1
    size = {n: None for n, values in sources.items() if all(
        type(v) is ast.Name or type(v) is ast.Tuple
        and not any(type(e) is ast.Starred for e in v.elts) for v in values)}
    copies = {}  # name -> the names assigned a copy of it
    for n in size:
        for v in sources[n]:
            if type(v) is ast.Name:
                copies.setdefault(v.id, []).append(n)
    work = [n for n in size if any(type(v) is ast.Tuple for v in sources[n])]
    work += [n for n in size if any(type(v) is ast.Name and v.id not in size
                                    for v in sources[n])]
    while work:  # (a size changes twice at most: each name is looked at a few times)
        n = work.pop()
        if size[n] == -1:
            continue
        got = None
        for v in sources[n]:
            k = len(v.elts) if type(v) is ast.Tuple else size.get(v.id, -1)
            if k is not None:
                got = k if got is None or got == k else -1
            if got == -1:
                break
        if got != size[n]:
            size[n] = got
            work += copies.get(n, ())
    return {n: k for n, k in size.items() if k is not None and k >= 0}


def _bounded_reads(forward, ctx) -> set:
    """``(a, i)`` where ``a[i]`` cannot raise: `i` the index of a loop over
    ``range(n)``, `n` assigned once, ``len(a)`` (or the ``min`` of such lengths, a
    ``zip``), `a` an array assigned once that nothing writes into."""
    lengths, defs = {}, {}
    for s in ir.walk(forward):
        for t in ir.defined_names(s):
            defs[t] = defs.get(t, 0) + 1
        if type(s) is ir.Assign and not s.unpack and type(s.value) is ast.Call \
                and type(s.value.func) is ast.Name and not s.value.keywords:
            args = s.value.args
            if s.value.func.id == "len" and len(args) == 1 and type(args[0]) is ast.Name:
                lengths[s.targets[0]] = {args[0].id}
            elif s.value.func.id == "min" and args and all(
                    type(a) is ast.Name and a.id in lengths for a in args):
                lengths[s.targets[0]] = set().union(*(lengths[a.id] for a in args))
    out = set()
    for s in ir.walk(forward):
        n = s.iter.args[0] if type(s) in (ir.Loop, ir.ForEach) and type(s.iter) is ast.Call \
            and type(s.iter.func) is ast.Name and s.iter.func.id == "range" \
            and len(s.iter.args) == 1 else None
        if type(n) is ast.Name and defs.get(n.id) == 1 and n.id in lengths:
            out.update((a, s.target) for a in lengths[n.id]
                       if ctx.kinds.array(a) and a not in ctx.mutable and defs.get(a, 0) <= 1)
    return out


def _item(value, sizes) -> bool:
    """``pair[0]`` of a name holding a tuple long enough (`_tuple_sizes`)."""
    if type(value) is not ast.Subscript or type(value.value) is not ast.Name \
            or type(value.slice) is not ast.Constant or type(value.slice.value) is not int:
        return False
    size = sizes.get(value.value.id)
    return size is not None and -size <= value.slice.value < size


def _atoms(value) -> bool:
    """A copy of a name, or a tuple of names and literals: nothing to raise."""
    if type(value) is ast.Tuple:
        return all(type(e) in (ast.Name, ast.Constant) for e in value.elts)
    return type(value) is ast.Name


def _shape_arguments(call) -> list:
    """The arguments of `call` whose shape and dtype alone it reads."""
    name = ir.dotted(call.func)
    if name == "np.zeros_like":
        return call.args
    if name in ("unbroadcast", "unreduce") and len(call.args) >= 2:
        return call.args[1:2]
    return []


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

    # A helper's forward sweep hands its backward sweep the arrays it was given, by
    # reference (``s, s%saved = h%fwd(v, y)``): reading `s%saved` reads them.
    saved = {}
    for s in ir.walk(forward):
        call = s.value if isinstance(s, ir.Assign) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                and call.func.id.endswith("%fwd"):
            given = {mutable[n.id] for a in call.args + [k.value for k in call.keywords]
                     for n in ast.walk(a) if isinstance(n, ast.Name) and n.id in mutable}
            saved.update({t: given for t in s.targets if given and t.endswith("%saved")})

    def restore(s) -> bool:
        return isinstance(s, (ir.SetItem, ir.Expr)) and s.restore

    def container(s) -> str:
        return s.container if isinstance(s, ir.SetItem) else s.value.func.value.id

    def reads(s) -> set:
        """The objects `s` reads the values of (``np.zeros_like(x)``,
        ``unbroadcast(g, x)`` and ``unreduce(g, x)`` read only `x`'s shape and dtype,
        which no write changes)."""
        out = set()
        for node in ir.exprs(s):
            shape_only = {id(a) for n in ast.walk(node) if isinstance(n, ast.Call)
                          for a in _shape_arguments(n)}
            out |= {mutable[n.id] for n in ast.walk(node) if isinstance(n, ast.Name)
                    and n.id in mutable and id(n) not in shape_only}
            out |= {o for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in saved
                    for o in saved[n.id]}
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
    del block  # (it calls itself: a reference cycle holding what it saw otherwise)
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

    forward = _unsaved(forward, olds)
    return forward, reverse


def _unsaved(body, olds) -> list:
    """`body` without the saves in `olds`; ``xs%old = xs.pop()`` pops unsaved."""
    out = []
    for s in body:
        if isinstance(s, ir.Assign) and any(t in olds for t in s.targets):
            if isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                    and s.value.func.attr == "pop":
                out.append(ir.Expr(s.value, s.line))
            continue
        for b in ir.blocks(s):
            b[:] = _unsaved(b, olds)
        out.append(s)
    return out
