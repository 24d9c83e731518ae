"""negations: moving negations out of adjoint arithmetic.

`absorb_negations` folds a negation whose result is only added or subtracted into
that sum (``y_b_bar = -b_bar``, ``y_bar = a_bar + y_b_bar`` -> ``y_bar = a_bar -
b_bar``; ``k_bar += -t1_bar`` -> ``k_bar -= t1_bar``): each step gives the same
value in floating point, up to the sign of a zero sum (see `_lift`), and a negation
costs a new float or a pass over an array.
"""

from __future__ import annotations

import ast
import copy

from .. import ir
from .common import FLAT, BlockIndex, reads_of_target


# runtime helpers linear in their first argument, which they sum or spread over
# another shape: a negation costs less outside them (one pass over the smaller array)
_LINEAR_IN_FIRST = ("unbroadcast", "unreduce", "extreme_bar")


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
    t = type(node)  # (the common nodes inline; any other, node by node)
    if t is ast.Name or t is ast.Constant:
        return False
    if t is ast.BinOp:
        return _has_negation(node.left) or _has_negation(node.right)
    if t is ast.UnaryOp:
        return type(node.op) is ast.USub or _has_negation(node.operand)
    return any(type(x) is ast.UnaryOp and type(x.op) is ast.USub for x in ir.nodes(node))


def _lifted(s):
    """`s` with its value's negations lifted, or None when that saves none."""
    if not _has_negation(s.value):
        return None
    new = _copy_with_value(s, _signed(*_lift(s.value)))
    return new if _cost(new) < _cost(s) else None


def _copy_with_value(s, value):
    """A copy of the statement `s` (``ir.copy_tree``) with `value` for its value,
    which is not copied first only to be replaced."""
    new = type(s).__new__(type(s))
    new.__dict__ = {k: value if k == "value" else ir.copy_tree(v)
                    for k, v in s.__dict__.items()}
    return new


def absorb_negations(body, reads, defs, mine=None) -> list:
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
        if type(s) not in FLAT:
            for block in ir.blocks(s):
                block[:] = absorb_negations(block, reads, defs, mine)

    def ours(s) -> bool:
        target = s.target if isinstance(s, ir.AugAssign) else s.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            target = target.value.id  # (an element of an adjoint list or array)
        return mine is None or isinstance(target, str) and mine(target)

    negating = False
    negates = {}  # id of a line of ours -> (the line, does its value negate?)
    for i, s in enumerate(out):
        if (isinstance(s, ir.AugAssign) or isinstance(s, ir.Assign) and not s.unpack) \
                and ours(s):
            negated = _has_negation(s.value)
            negates[id(s)] = (s, negated)
            if negated:
                negating = True
                better = _lifted(s)
                if better is not None:
                    out[i] = better
    if not negating:
        return out  # (no line of this block of ours negates: none can be absorbed)

    def negation_in(s) -> bool:
        """``_has_negation(s.value)``, asked once of a line."""
        known = negates.get(id(s))
        return known[1] if known is not None and known[0] is s else _has_negation(s.value)

    # what the lines of this block read (a name read elsewhere has no reader here)
    index = BlockIndex(out)
    here = set()
    for x, read in zip(out, index.reads):
        if type(x) in FLAT or not ir.blocks(x):
            here.update(read)

    def reader(i):
        """The index of the line reading out[i]'s target, when it can take its value."""
        s = out[i]
        if not (isinstance(s, ir.Assign) and not s.unpack):
            return None
        n = s.targets[0]  # (the cheap questions first)
        if n not in here or reads.get(n) != 1 or defs.get(n) != 1 \
                or not negation_in(s) or not ours(s) or not _lift(s.value)[0]:
            return None
        j = index.reader(i)
        if j is None:
            return None
        x = out[j]
        ok = isinstance(x, (ir.Assign, ir.AugAssign)) and \
            n in ir.names_in(x.value) and n not in reads_of_target(x) and ours(x)
        return j if ok else None

    def absorb(i):
        """Write out[i] into its reader (and on, while the negation is still there)
        when that removes a negation: the new lines by index, or None."""
        j = reader(i)
        if j is None:
            return None
        s, x = out[i], out[j]
        merged = _copy_with_value(x, ir.substitute(x.value, {s.targets[0]: s.value}))
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

    for i in range(len(out)):
        if out[i] is None:
            continue
        change = absorb(i)
        if change is None:
            continue
        for k, new in change.items():
            if new is None:
                index.drop(k)
            else:
                out[k] = new
                index.rewritten(k)
    del absorb  # (it calls itself: a reference cycle holding the lines otherwise)
    return [x for x in out if x is not None]
