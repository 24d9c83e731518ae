"""cse: passes that compute a value once where the code computes it more often.

`cse_forward` shares a pure forward expression the user's code computes twice,
`common_subexpressions` lets the reverse sweep reuse what the forward sweep's top
level or an enclosing reverse block computed, `hoist_invariants` moves a loop's
invariant lines that cannot raise before the loop, and `merge_element_updates`
makes two updates of one adjoint element one. None of them shares a name whose
value changes (assigned twice on a path, or written in place).
"""

from __future__ import annotations

import ast

from .. import ir
from .common import changed_in_place, max_defs, reads_of
from .context import Context
from .dead import cannot_raise


def common_subexpressions(forward, reverse, ctx: Context) -> int:
    """Reuse a value the forward sweep's top level or an enclosing reverse block
    already computed, instead of computing it again; how many lines now copy a name
    instead."""
    most = max_defs(forward + reverse, ctx.inputs)
    for n in changed_in_place(forward + reverse):
        most[n] = 2  # never shared
    table = _Seen()
    for s in forward:
        if _shareable(s, most, ctx):
            table.setdefault(s.value, s.targets[0])
    return _cse_block(reverse, table, most, ctx)


class _Seen:
    """The values a block has met (and the blocks around it, `outer`), each with the
    name first assigned it, told apart as `ir.expr_key` tells them. A value's key
    is made only when another value of its type reads the same names in the same
    order (as two values of one key do): a value met once, as most are, costs a
    walk for its names, not its key."""

    def __init__(self, outer=None):
        self.outer = outer
        self.by_reads = {}  # (type, *names read) -> [[value, its key or None, name]]

    def setdefault(self, value, name):
        """The name of a value met already with `value`'s key, or None, and then
        `value` is met, with `name`."""
        reads = (type(value), *ir.names_in(value))
        key = None
        seen = self
        while seen is not None:
            found = seen.by_reads.get(reads)
            if found:
                if key is None:
                    key = ir.expr_key(value)
                for entry in found:
                    if entry[1] is None:
                        entry[1] = ir.expr_key(entry[0])
                    if entry[1] == key:
                        return entry[2]
            seen = seen.outer
        self.by_reads.setdefault(reads, []).append([value, key, name])
        return None


def _shareable(s, most, ctx) -> bool:
    if not (isinstance(s, ir.Assign) and not s.unpack) or most.get(s.targets[0], 0) > 1 \
            or s.targets[0] in ctx.mutable:
        return False
    value = s.value
    if isinstance(value, (ast.Name, ast.Constant)) or ctx.reads_mutable(value):
        return False
    return _fixed(value, most)


def _fixed(node, most) -> bool:
    """Is `node` a value that is the same wherever it is computed: it reads no name
    that changes (assigned twice on a path: in a loop, or accumulated), no element
    of a list that may change, and calls no method or derivative function (not
    pure)? The common nodes are taken inline; any other, node by node."""
    t = type(node)
    if t is ast.Name:
        return most.get(node.id, 0) <= 1
    if t is ast.Constant:
        return True
    if t is ast.BinOp:
        return _fixed(node.left, most) and _fixed(node.right, most)
    if t is ast.UnaryOp:
        return _fixed(node.operand, most)
    if t is ast.Attribute:
        return _fixed(node.value, most)
    if t is ast.Call and not node.keywords:
        text = ir.dotted(node.func)
        return text is not None and "%" not in text and _fixed(node.func, most) and \
            all(_fixed(a, most) for a in node.args)
    for n in ir.nodes(node):
        t = type(n)
        if t is ast.Name:
            if most.get(n.id, 0) > 1:
                return False
        elif t is ast.Subscript:
            return False
        elif t is ast.Call:
            text = ir.dotted(n.func)
            if text is None or "%" in text:
                return False
    return True


def _cse_block(body, table, most, ctx) -> int:
    table = _Seen(table)
    shared = 0
    for s in body:
        for block in ir.blocks(s):
            shared += _cse_block(block, table, most, ctx)
        if not _shareable(s, most, ctx):
            continue
        found = table.setdefault(s.value, s.targets[0])
        if found is not None:
            s.value = ir.name(found)
            shared += 1
    return shared


def _appended(body, replaced=()) -> set:
    """Names of lists the forward sweep appends (or inserts) to (in `body`, and in
    the expressions `replaced`, which its lines computed before they were shared)."""
    out = set()
    for node in [node for s in ir.walk(body) for node in ir.exprs(s)] + list(replaced):
        for n in ir.nodes(node):
            if type(n) is ast.Call and type(n.func) is ast.Attribute \
                    and n.func.attr in ("append", "insert") \
                    and type(n.func.value) is ast.Name:
                out.add(n.func.value.id)
    return out


class _Appended:
    """`_appended` of a body, taken when first asked (only a subscript asks) of the
    body as it was at the start: what `_cse_forward` replaced is looked at too."""

    def __init__(self, body):
        self.body, self.replaced, self.names = body, [], None

    def __contains__(self, name) -> bool:
        if self.names is None:
            self.names = _appended(self.body, self.replaced)
        return name in self.names


def cse_forward(body, ctx: Context) -> int:
    """Compute once a pure forward expression (`ctx.pure`) over names that do not
    change that the code computes twice: the second line reads the first's name.
    How many lines now copy a name instead."""
    most = max_defs(body, ctx.inputs)
    for n in changed_in_place(body) | set(ctx.mutable):
        most[n] = 2  # never shared
    return _cse_forward(body, most, ctx, _Appended(body))


def _cse_forward(body, most, ctx, appended, table=None) -> int:
    pure = ctx.pure
    table = _Seen(table)
    shared = 0
    for s in body:
        for block in ir.blocks(s):
            if not isinstance(s, ir.Exit):
                shared += _cse_forward(block, most, ctx, appended, table)
        if not (isinstance(s, ir.Assign) and not s.unpack) or most.get(s.targets[0], 0) > 1 \
                or isinstance(s.value, (ast.Name, ast.Constant)):
            continue
        value = s.value
        if not _unchanging(value, most, appended) or ctx.reads_mutable(value):
            continue
        # (whether it is pure is asked only of a value met again: two values of one
        # key are the same expression of the same names, both pure or neither)
        found = table.setdefault(value, s.targets[0])
        if found is not None and pure(value):
            appended.replaced.append(value)
            s.value = ir.name(found)
            shared += 1
    return shared


def _unchanging(node, most, appended) -> bool:
    """Does `node` read only names that do not change (assigned at most once on a
    path), and elements only of named lists the forward sweep does not append to (a
    list that grows: ``xs[-1]`` may name another element later)? The common nodes
    are taken inline; any other, node by node."""
    t = type(node)
    if t is ast.Name:
        return most.get(node.id, 0) <= 1
    if t is ast.Constant:
        return True
    if t is ast.BinOp:
        return _unchanging(node.left, most, appended) and \
            _unchanging(node.right, most, appended)
    if t is ast.UnaryOp:
        return _unchanging(node.operand, most, appended)
    if t is ast.Attribute:
        return _unchanging(node.value, most, appended)
    if t is ast.Call and not node.keywords:
        return _unchanging(node.func, most, appended) and \
            all(_unchanging(a, most, appended) for a in node.args)
    nodes = ir.nodes(node)
    return not any(type(n) is ast.Name and most.get(n.id, 0) > 1 for n in nodes) and \
        not any(type(n) is ast.Subscript and (type(n.value) is not ast.Name
                                              or n.value.id in appended) for n in nodes)


_NEW_OBJECTS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _number(n: str, kinds) -> bool:
    return kinds is not None and (kinds.is_float(n) or kinds.is_int(n))


def hoist_invariants(body, ctx: Context):
    """Move loop-invariant lines that cannot raise out of loops (innermost first);
    never one making a new list, dict or set, nor an array or a list where the loop
    changes an object in place (one object for every turn would be another value)."""
    out = []
    for s in body:
        if isinstance(s, ir.If):
            s.body = hoist_invariants(s.body, ctx)
            s.orelse = hoist_invariants(s.orelse, ctx)
        elif isinstance(s, ir.Loop):
            s.body = hoist_invariants(s.body, ctx)
            inside = ir.all_defined(s.cond + s.body) | {p.name for p in s.phis}
            if s.target:
                inside.add(s.target)
            moved = []
            # (a list, dict or set made on each turn is a new object each time, and an
            # array or list the loop may change in place is one too: hoisted, the one
            # object would carry one turn's changes into the next)
            writes = bool(changed_in_place(s.cond + s.body)) or any(
                isinstance(x, ir.Expr) and isinstance(x.value, ast.Call) and
                isinstance(x.value.func, ast.Attribute) for x in ir.walk(s.cond + s.body))
            counts = max_defs(s.cond + s.body, ctx.inputs)
            changed = {t.target for t in ir.walk(s.cond + s.body)
                       if isinstance(t, ir.AugAssign) and isinstance(t.target, str)}
            for x in s.body:
                if isinstance(x, ir.AugAssign) and isinstance(x.target, str) \
                        and isinstance(x.value, ast.Constant):
                    continue  # a while loop's count
                if not (isinstance(x, ir.Assign) and not x.unpack):
                    break
                if counts.get(x.targets[0], 0) == 1 and x.targets[0] not in changed and \
                        not isinstance(x.value, _NEW_OBJECTS) and \
                        not (writes and not _number(x.targets[0], ctx.kinds)) and \
                        cannot_raise(x.value, ctx.kinds) and \
                        not ctx.reads_mutable(x.value) and \
                        not set(ir.names_in(x.value)) & (inside - {m.targets[0] for m in moved}):
                    moved.append(x)
            if moved:
                s.body = [x for x in s.body if all(x is not m for m in moved)]
                out.extend(moved)
        out.append(s)
    return out


def merge_element_updates(body):
    """``xs_bar[i] += a`` then ``xs_bar[i] += b`` is ``xs_bar[i] += a + b`` when the
    lines between are neither a branch nor a loop, do not read the list, and assign
    nothing the first update reads."""
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = merge_element_updates(block)
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
                if ir.blocks(b) or container in reads_of(b) \
                        or set(ir.defined_names(b)) & needs:
                    break
        i += 1
    return out
