"""arithmetic: passes that give the sweeps' arithmetic its cheapest exact form, with
what is known of names' types (`NameKinds`).

Constant adjoints are folded into the lines that read them
(`fold_constant_adjoints`, `unit_products`); float arithmetic takes its cheapest
form (`float_arithmetic`: ``x ** 2`` as ``x * x``, integer literals as floats, a
product added to itself doubled; `double_sums`: the same for array products, by
doubling a number factor); an adjoint spread over an array is combined with
another array by broadcasting instead (`spread_by_broadcasting`), a factor the
same for every element of a sum moves out of it (`factor_out_of_sums`), and an
array's size is an attribute (`sizes_as_attributes`).
"""

from __future__ import annotations

import ast
import copy

from .. import ir, primitives as rules
from .common import (BlockIndex, changed_in_place, definitions, max_defs, reads_of_target,
                     without)
from .context import Context, NameKinds


def _is_float(node, kinds: NameKinds) -> bool:
    """Does this expression certainly evaluate to a Python float?"""
    if isinstance(node, ast.Name):
        return kinds.is_float(node.id)
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return _is_float(node.left, kinds) or _is_float(node.right, kinds) \
                or _is_numberish(node.left) and _is_numberish(node.right)
        return _is_float(node.left, kinds) or _is_float(node.right, kinds)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _is_float(node.operand, kinds)
    if isinstance(node, ast.Call):
        text = ir.dotted(node.func) or ""
        return text.startswith("math.") and text not in ("math.floor", "math.ceil",
                                                          "math.trunc", "math.isnan",
                                                          "math.isinf", "math.isfinite")
    if isinstance(node, ast.IfExp):
        return _is_float(node.body, kinds) and _is_float(node.orelse, kinds)
    return False


def _is_numberish(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def count_constants(body) -> int:
    """How many assignments of `body` assign a literal."""
    return sum(1 for s in ir.walk(body) if isinstance(s, ir.Assign)
               and isinstance(s.value, ast.Constant))


def fold_constant_adjoints(body, ctx: Context) -> tuple:
    """``(body, folded)``: `body` with adjoints defined once as a float literal folded
    into the products and negations that read them (``t3_bar = t4_bar * y`` with
    ``t4_bar = 1.0`` reads ``t3_bar = y``), and whether any line changed. A constant
    added into a sum keeps its name: it says which use it is, and so does one in
    `ctx.keep`."""
    keep, kinds = ctx.keep, ctx.kinds
    defs = definitions(body)

    def constant(s):
        """The float `s` assigns to an adjoint defined once, or None."""
        if type(s) is ir.Assign and not s.unpack and type(s.value) is ast.Constant \
                and type(s.value.value) is float and s.targets[0].endswith("%bar") \
                and defs.get(s.targets[0]) == 1 and s.targets[0] not in keep:
            return s.value.value
        return None

    constants = {}
    for s in ir.walk(body):
        value = constant(s)
        if value is not None:
            constants[s.targets[0]] = value
    if not constants:
        return body, False

    # (in program order: a line folded to a literal is a constant for the lines
    # after it, as the next round would find it, without the round's other passes)
    folded = False
    for s in ir.walk(body):
        if not any(n in constants for node in ir.slot_values(s) for n in ir.names_in(node)):
            continue
        for get, set_ in ir.slots(s):
            node = get()
            if any(n in constants for n in ir.names_in(node)):
                new = _Fold(constants, kinds).visit(ir.copy_tree(node))
                folded = folded or ir.expr_key(new) != ir.expr_key(node)
                set_(new)
        value = constant(s)
        if value is not None:
            constants[s.targets[0]] = value
    return body, folded


class _Fold(ast.NodeTransformer):
    """`fold_constant_adjoints`'s rewriting of one expression, `constants` the
    adjoints known to hold a float literal."""

    def __init__(self, constants: dict, kinds: NameKinds):
        self.constants, self.kinds = constants, kinds

    def const_of(self, node):
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        return None

    def visit_BinOp(self, n):
        self.generic_visit(n)
        constants, kinds = self.constants, self.kinds
        a, b = self.const_of(n.left), self.const_of(n.right)
        named = any(isinstance(x, ast.Name) and x.id in constants for x in (n.left, n.right))
        if a is not None and b is not None and named:
            folded = rules.fold(ast.BinOp(left=ast.Constant(a), op=n.op,
                                          right=ast.Constant(b)))
            if isinstance(folded, ast.Constant):
                return folded
        if isinstance(n.op, ast.Mult):
            for const, other in ((n.left, n.right), (n.right, n.left)):
                value = self.const_of(const)
                if value is None or type(value) is not float or not _is_float(
                        other, kinds) or type(other) is ast.Name and kinds.mixed(other.id):
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
        value = self.const_of(n.operand)
        if isinstance(n.op, ast.USub) and value is not None and type(value) is float:
            return ast.Constant(-value)
        return n


def unit_products(body, ctx: Context) -> list:
    """``y_bar = t3_bar * C`` with ``t3_bar = 1.0`` and `C` a float array is `C`
    itself (a copy of it, in NumPy, for nothing), where the adjoint cannot show
    that it is the same object: nothing changes either in place, it is not a result, and
    every line reading it makes a new array of it (arithmetic, or an `unbroadcast`
    that sums it to an operand of another rank)."""
    keep, kinds = ctx.keep, ctx.kinds
    defs = definitions(body)
    ones = {s.targets[0] for s in ir.walk(body) if isinstance(s, ir.Assign)
            and not s.unpack and isinstance(s.value, ast.Constant)
            and type(s.value.value) is float and s.value.value == 1.0
            and defs.get(s.targets[0]) == 1}
    if not ones:
        return body

    def one(n):
        return isinstance(n, ast.Name) and n.id in ones or \
            isinstance(n, ast.Constant) and type(n.value) is float and n.value == 1.0

    changed = changed_in_place(body)
    candidates = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.BinOp) \
                and isinstance(s.value.op, ast.Mult) and s.targets[0].endswith("%bar") \
                and defs.get(s.targets[0]) == 1 and s.targets[0] not in keep \
                and s.targets[0] not in changed:
            for const, other in ((s.value.left, s.value.right), (s.value.right, s.value.left)):
                if one(const) and isinstance(other, ast.Name) and kinds.array(other.id) \
                        and other.id not in changed and other.id not in ctx.mutable:
                    # (`other` written into by the sweep, the restore of a write for
                    # a scheduler's reads among them, or through another name, a
                    # helper's parameter put in place, would change the adjoint that
                    # is the same object)
                    candidates[s.targets[0]] = (s, other)
    if not candidates:
        return body

    # (the expressions reading each candidate, found in one walk, not one per candidate)
    readers = {t: [] for t in candidates}
    for s in ir.walk(body):
        for get, _ in ir.slots(s):
            node = get()
            if node is not None:
                _note_readers(node, readers)
    for t, (s, other) in candidates.items():
        if _consumed(t, readers[t], kinds):
            old, s.value = s.value, ir.name(other.id)
            for n in set(ir.names_in(old)) & readers.keys():
                readers[n] = [x for x in readers[n] if x is not old]
            _note_readers(s.value, readers)
    return body


def _note_readers(node, readers):
    """`node` noted in `readers` under each name it reads that `readers` holds."""
    for n in set(ir.names_in(node)):
        got = readers.get(n)
        if got is not None:
            got.append(node)


def _consumed(t, nodes, kinds) -> bool:
    """Does every expression of `nodes` (those reading the adjoint `t`) make a new
    array of it: `t` is an operand of arithmetic, or summed by an `unbroadcast` to an
    operand of another rank, never copied or returned as it is?"""
    base = t[: -len("%bar")]
    for node in nodes:
        for parent in ir.nodes(node):
            for child in ast.iter_child_nodes(parent):
                if isinstance(child, ast.Name) and child.id == t and not (
                        isinstance(parent, (ast.BinOp, ast.UnaryOp))
                        or isinstance(parent, ast.Call) and ir.dotted(parent.func)
                        == "unbroadcast" and len(parent.args) == 2
                        and parent.args[0] is child
                        and isinstance(parent.args[1], ast.Name)
                        and kinds.rank(parent.args[1].id) not in (None, kinds.rank(base))):
                    return False
        if isinstance(node, ast.Name) and node.id == t:
            return False  # (a copy, a return)
    return True


def float_arithmetic(body, ctx: Context, mine=None) -> list:
    """Reverse-sweep arithmetic on Python floats in the form that costs least:
    ``x ** 2`` is ``x * x`` (the reverse recomputes the square the forward computed
    once without overflow; ``pow`` costs a libm call), and an integer literal a
    float is multiplied or divided by is a float literal (``t_bar * 2 * x`` reads
    ``t_bar * 2.0 * x``: the same product without converting 2 each time), and a
    product added to itself is doubled (``a_dot * a + a * a_dot`` ->
    ``2.0 * (a_dot * a)``, from ``a * a``: one product instead of two). With
    `mine`, only the lines whose target `mine` accepts."""
    kinds = ctx.kinds

    for s in ir.walk(body):
        if isinstance(s, ir.AugAssign) and mine is None or isinstance(s, ir.Assign) and (
                mine is None or not s.unpack and mine(s.targets[0])):
            if any(type(n) is ast.BinOp and _may_be_cheaper(n) for n in ir.nodes(s.value)):
                s.value = _Cheaper(kinds).visit(ir.copy_tree(s.value))
    return body


class _Cheaper(ast.NodeTransformer):
    """`float_arithmetic`'s rewriting of one expression."""

    def __init__(self, kinds: NameKinds):
        self.kinds = kinds

    def visit_BinOp(self, n):
        self.generic_visit(n)
        if isinstance(n.op, ast.Add) and _same_product(n.left, n.right):
            return ast.BinOp(left=ast.Constant(2.0), op=ast.Mult(), right=n.left)
        if isinstance(n.op, ast.Pow) and isinstance(n.left, ast.Name) \
                and isinstance(n.right, ast.Constant) and n.right.value == 2 \
                and type(n.right.value) in (int, float) and self.kinds.is_float(n.left.id):
            return ast.BinOp(left=n.left, op=ast.Mult(), right=ir.name(n.left.id))
        if isinstance(n.op, (ast.Mult, ast.Div)):
            for side, other in (("left", n.right), ("right", n.left)):
                const = getattr(n, side)
                if isinstance(const, ast.Constant) and type(const.value) is int \
                        and abs(const.value) < 2 ** 53 and _is_float(other, self.kinds):
                    setattr(n, side, ast.Constant(float(const.value)))
        return n


def _may_be_cheaper(n) -> bool:
    """Does the operator node `n` have the shape of one `float_arithmetic` rewrites (a
    sum of two products, a square, a product or quotient with an int literal)? A
    value with none is left as it is: its operators are rewritten from the leaves up,
    and no leaf changes to give its parent that shape."""
    op, left, right = type(n.op), type(n.left), type(n.right)
    if op is ast.Add:
        return left is ast.BinOp and right is ast.BinOp and type(n.left.op) is ast.Mult \
            and type(n.right.op) is ast.Mult
    if op is ast.Pow:
        return right is ast.Constant
    if op is ast.Mult or op is ast.Div:
        return left is ast.Constant and type(n.left.value) is int or \
            right is ast.Constant and type(n.right.value) is int
    return False


def _same_product(a, b) -> bool:
    """Are `a` and `b` one product of two names, perhaps with the factors swapped?"""
    def factors(n):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) \
                and all(isinstance(x, (ast.Name, ast.Constant)) for x in (n.left, n.right)):
            return [ir.expr_key(n.left), ir.expr_key(n.right)]
        return None

    fa, fb = factors(a), factors(b)
    return fa is not None and fb is not None and (fa == fb or fa == fb[::-1])


def spread_by_broadcasting(body, ctx: Context) -> list:
    """An adjoint spread over an array by `unreduce` is combined with another array
    of that shape by broadcasting instead: ``unreduce(g, x, -1, True) * xc`` reads
    ``g * xc`` when `xc` has `x`'s shape (the same numbers, without first writing
    `g` into a new array of that shape), and a number scales `g` before it is
    spread (``unreduce(g, x, ...) * c`` -> ``unreduce(g * c, x, ...)``). The size
    of a number is 1 (``np.size(t5)`` of a total ``np.mean``), so the number need
    not be computed."""
    how = _Broadcasting(ctx.kinds)
    spread = how.spread
    # (an assignment's reads, kept for `_spread_named`: a spread calls ``unreduce``
    # or ``np.size``, so a line reading neither name holds none)
    names = {}
    for s in ir.walk(body):
        if type(s) is ir.Assign:
            read = names[id(s)] = ir.names_in(s.value)
            if "unreduce" not in read and "np" not in read:
                continue
        if not any(type(c) is ast.Call and _spreads(c) for node in ir.slot_values(s)
                   for c in ir.nodes(node)):
            continue
        names.pop(id(s), None)  # (rewritten below)
        for get, set_ in ir.slots(s):
            node = get()
            if any(type(c) is ast.Call and _spreads(c) for c in ir.nodes(node)):
                set_(spread(node))
    return _spread_named(body, how.parts, spread, ctx, names)


class _Broadcasting:
    """`spread_by_broadcasting`'s questions of an expression, from what `kinds` knows
    (at module level, with its transformers: a class or a function that calls itself
    nested in the pass is a reference cycle, left for the cyclic collector)."""

    def __init__(self, kinds: NameKinds):
        self.kinds = kinds

    def parts(self, node):
        if not (isinstance(node, ast.Call) and ir.dotted(node.func) == "unreduce"
                and not node.keywords and 2 <= len(node.args) <= 4
                and isinstance(node.args[1], ast.Name) and self.kinds.array(node.args[1].id)):
            return None
        options = [a.value if isinstance(a, ast.Constant) else ... for a in node.args[2:]]
        axis, keepdims = (options + [None, False])[:2] if len(options) < 2 else options
        if axis is ... or keepdims is ...:
            return None
        return node.args[0], node.args[1].id, axis, keepdims

    def number(self, n) -> bool:
        if isinstance(n, ast.Constant):
            return type(n.value) in (int, float)
        if isinstance(n, ast.Name):
            return self.kinds.is_float(n.id)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return self.number(n.left) and self.number(n.right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return self.number(n.operand)
        return isinstance(n, ast.Call) and ir.dotted(n.func) == "np.size"

    def shaped(self, n, x) -> bool:
        """Does `n` certainly evaluate to an array of `x`'s shape?"""
        if isinstance(n, ast.Name):
            base = n.id[: -len("%bar")] if n.id.endswith("%bar") else n.id
            return base == x or self.kinds.same_shape(base, x)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return self.shaped(n.left, x) and (self.number(n.right) or self.shaped(n.right, x)) \
                or self.number(n.left) and self.shaped(n.right, x)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return self.shaped(n.operand, x)
        if isinstance(n, ast.Compare) and len(n.ops) == 1:  # (a mask: ``t >= 0.0``)
            a, b = n.left, n.comparators[0]
            return self.shaped(a, x) and (self.number(b) or self.shaped(b, x)) or \
                self.number(a) and self.shaped(b, x)
        if isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords and \
                self.kinds.unary_ufunc(ir.dotted(n.func) or ""):  # (``np.sign(t)``)
            return self.shaped(n.args[0], x)
        p = self.parts(n)
        return p is not None and self.shaped(ir.name(p[1]), x)

    def spread(self, node):
        return _Spread(self).visit(_Size(self.kinds).visit(ir.copy_tree(node)))


class _Size(ast.NodeTransformer):
    """``np.size(x)`` of a name: 1 where `x` is a number (`spread_by_broadcasting`),
    or with `attribute`, ``x.size`` where `x` is an array (`sizes_as_attributes`)."""

    def __init__(self, kinds: NameKinds, attribute=False):
        self.kinds, self.attribute = kinds, attribute

    def visit_Call(self, n):
        self.generic_visit(n)
        if ir.dotted(n.func) != "np.size" or len(n.args) != 1 or n.keywords \
                or not isinstance(n.args[0], ast.Name):
            return n
        if self.attribute:
            return ast.Attribute(value=n.args[0], attr="size", ctx=ast.Load()) \
                if self.kinds.rank(n.args[0].id) else n
        return ast.Constant(1) if self.kinds.is_float(n.args[0].id) else n


class _Spread(ast.NodeTransformer):
    """`spread_by_broadcasting`'s rewriting of one expression (`how`: a
    `_Broadcasting`)."""

    def __init__(self, how: _Broadcasting):
        self.how = how

    def visit_BinOp(self, n):
        self.generic_visit(n)
        if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return n
        for side, other in (("left", n.right), ("right", n.left)):
            p = self.how.parts(getattr(n, side))
            if p is None:
                continue
            g, x, axis, keepdims = p
            call = getattr(n, side)
            if isinstance(n.op, ast.Mult) and self.how.number(other) or \
                    isinstance(n.op, ast.Div) and side == "left" and self.how.number(other):
                scaled = ast.BinOp(left=g, op=n.op, right=other) if side == "left" \
                    else ast.BinOp(left=other, op=n.op, right=g)
                return ast.Call(func=call.func, args=[scaled] + call.args[1:],
                                keywords=[])
            if (axis is None or keepdims is True) and self.how.shaped(other, x):
                setattr(n, side, g)
                return n
        return n


def _spread_named(body, parts, spread, ctx: Context, names) -> list:
    """A number spread into an array of its own (``t5_bar = unreduce(1.0, t, None,
    False)``) that every line reading it combines with arrays of that shape is
    written into those lines and spread there by broadcasting (`spread`): the array
    of copies of one number is never made. `parts` reads an `unreduce` call;
    `names`, the names some assignments' values read (by id: those not rewritten
    since)."""
    counts = None  # (counted once a line spreads: most lines do not)
    candidates = {}  # target -> its line
    for s in ir.walk(body):
        p = parts(s.value) if isinstance(s, ir.Assign) and not s.unpack else None
        if p is None:
            continue
        if counts is None:
            counts, defs = max_defs(body, ctx.inputs), definitions(body)
        g, x = p[0], p[1]
        # (the target assigned once in all: one assigned on each path of a branch,
        # ``z_bar = np.zeros_like(z)`` on one, is not this value on the other)
        if defs.get(s.targets[0], 0) == 1 and counts.get(x, 0) <= 1 and (
                isinstance(g, ast.Constant) or isinstance(g, ast.Name)
                and counts.get(g.id, 0) <= 1 and ctx.kinds.is_float(g.id)):
            candidates[s.targets[0]] = s
    if not candidates:
        return body
    # (one walk: the candidates' reads, as `ir.reads_in` counts them, and the slots
    # that read them, each made only for a line that reads one)
    reads = dict.fromkeys(candidates, 0)
    slots = {t: [] for t in candidates}  # target -> [(slot's set, its expression)]
    for r in ir.walk(body):
        if type(r) is ir.Assign:  # (the commonest: its value is all it reads)
            read = names.get(id(r))
            if read is None:
                read = ir.names_in(r.value)
            if not any(n in reads for n in read):
                continue
            for n in read:
                if n in reads:
                    reads[n] += 1
        elif type(r) is ir.Comment:  # (reads nothing, has no slot)
            continue
        else:
            for n in ir.stmt_reads(r):
                if n in reads:
                    reads[n] += 1
        for get, set_ in ir.slots(r):
            node = get()
            if node is None:
                continue
            for n in set(ir.names_in(node)) & slots.keys():
                slots[n].append((set_, node, r))
    dropped, touched = set(), set()
    for target, s in candidates.items():
        found = [(set_, node) for set_, node, r in slots[target] if r is not s]
        seen = sum(1 for _, node in found for n in ir.nodes(node)
                   if isinstance(n, ast.Name) and n.id == target)
        if not found or seen != reads.get(target, 0) \
                or any(id(node) in touched for _, node in found):
            continue  # (a read outside a slot, or in a line rewritten already)
        rewritten = [(set_, spread(ir.substitute(node, {target: s.value})))
                     for set_, node in found]
        if any(type(c) is ast.Call and ir.dotted(c.func) == "unreduce"
               for _, new in rewritten for c in ir.nodes(new)):
            continue  # (a reader that needs the array: it stays)
        for set_, new in rewritten:
            set_(new)
        touched.update(id(node) for _, node in found)
        dropped.add(id(s))
    return without(body, lambda t: id(t) in dropped) if dropped else body


def factor_out_of_sums(body, ctx: Context) -> list:
    """A factor that is the same for every element an `unbroadcast` adds up moves out
    of the sum: ``unbroadcast(g * xhat / t2, t2)`` (t2 of the summed-to shape, one
    value per row) reads ``unbroadcast(g * xhat, t2) / t2``, one division per row
    instead of one per element. Numbers are such factors, and so are arrays of the
    shape the sum gives. This is the one rewrite of simplify that is exact in real
    arithmetic only: the sum of quotients and the quotient of the sum round
    differently (by about the sum's own rounding error)."""
    kinds = ctx.kinds
    for s in ir.walk(body):
        if not any(type(c) is ast.Call and ir.dotted(c.func) == "unbroadcast"
                   for node in ir.slot_values(s) for c in ir.nodes(node)):
            continue
        for get, set_ in ir.slots(s):
            node = get()
            if any(type(c) is ast.Call and ir.dotted(c.func) == "unbroadcast"
                   for c in ir.nodes(node)):
                set_(_Factor(kinds).visit(ir.copy_tree(node)))
    return body


class _Factor(ast.NodeTransformer):
    """`factor_out_of_sums`'s rewriting of one expression."""

    def __init__(self, kinds: NameKinds):
        self.kinds = kinds

    def number(self, n) -> bool:
        return isinstance(n, ast.Constant) and type(n.value) in (int, float) or \
            isinstance(n, ast.Name) and self.kinds.is_float(n.id)

    def constant_along(self, d, x) -> bool:
        array = self.kinds.array
        return self.number(d) or isinstance(d, ast.Name) and array(d.id) and array(x) \
            and self.kinds.same_shape(d.id, x)

    def visit_Call(self, n):
        self.generic_visit(n)
        if ir.dotted(n.func) != "unbroadcast" or len(n.args) != 2 or n.keywords \
                or not isinstance(n.args[1], ast.Name):
            return n
        e, x = n.args[0], n.args[1].id
        outer = []
        while isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Div)) \
                and self.constant_along(e.right, x) and not self.number(e.left):
            outer.append((e.op, e.right))
            e = e.left
        if not outer:
            return n
        out = ast.Call(func=n.func, args=[e, n.args[1]], keywords=[])
        for op, d in reversed(outer):
            out = ast.BinOp(left=out, op=op, right=d)
        return out


def called(body) -> set:
    """The dotted names of the functions `body` calls (``unreduce``, ``np.size``,
    ``unbroadcast``): which passes here have something to do."""
    out = set()
    for s in ir.walk(body):
        for node in ir.slot_values(s):
            if node is not None and type(node) is not ast.Name:
                for c in ir.nodes(node):
                    if type(c) is ast.Call:
                        out.add(ir.dotted(c.func))
    return out


def any_spread(called_names) -> bool:
    """Does a body calling `called_names` (`called`) spread an adjoint over an array
    (`unreduce`) or take a size?"""
    return "unreduce" in called_names or "np.size" in called_names


def _spreads(call) -> bool:
    f = call.func
    return type(f) is ast.Name and f.id == "unreduce" or type(f) is ast.Attribute \
        and f.attr == "size" and type(f.value) is ast.Name and f.value.id == "np"


def double_sums(body, reads, defs, ctx: Context) -> list:
    """``x_a_bar + x_a_bar`` (the two uses of an array `x` in ``x * x``) of a product
    with a number among its factors, ``x_a_bar = t_bar * c * x``, reads ``t_bar * (2.0 * c)
    * x``: doubling is exact, so the number doubled gives the same values as the sum,
    and an array product is computed once instead of computed and added to itself."""
    out = list(body)
    for s in out:
        for block in ir.blocks(s):
            block[:] = double_sums(block, reads, defs, ctx)

    kinds = ctx.kinds

    def array(n) -> bool:  # (for numbers the sum costs what the doubling costs)
        base = n[: -len("%bar")] if n.endswith("%bar") else n
        return kinds.array(base)

    index = None
    for i, s in enumerate(out):
        n = s.targets[0] if isinstance(s, ir.Assign) and not s.unpack else None
        if n is None or reads.get(n) != 2 or defs.get(n) != 1 or not array(n):
            continue
        index = index or BlockIndex(out)
        j = index.reader(i)
        x = out[j] if j is not None else None
        new = _doubled(s.value, kinds) if isinstance(x, (ir.Assign, ir.AugAssign)) \
            and n not in reads_of_target(x) else None
        if new is not None:
            twice = ir.expr_key(ast.BinOp(left=ir.name(n), op=ast.Add(), right=ir.name(n)))
            found = [node for node in ast.walk(x.value)
                     if isinstance(node, ast.BinOp) and ir.expr_key(node) == twice]
            if len(found) == 1:  # (n's two reads are that sum, in place)
                x.value = _replaced(x.value, found[0], new)
                index.drop(i)
                index.rewritten(j)
    return [x for x in out if x is not None]


def _doubled(product, kinds):
    """`product` with one number factor doubled, or None (`double_sums`'s)."""
    if isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult):
        for side in ("right", "left"):
            factor = getattr(product, side)
            if isinstance(factor, ast.Constant) and type(factor.value) in (int, float) \
                    or isinstance(factor, ast.Name) and kinds.is_float(factor.id) \
                    or _is_size_ratio(factor):
                new = copy.copy(product)
                setattr(new, side, ast.BinOp(left=ast.Constant(2.0), op=ast.Mult(),
                                             right=factor))
                return new
        inner = _doubled(product.left, kinds)
        if inner is not None:
            new = copy.copy(product)
            new.left = inner
            return new
    return None


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


def sizes_as_attributes(body, ctx: Context) -> list:
    """``np.size(x)`` of an array (a mean's scale) in the reverse sweep is
    ``x.size``: an attribute, not a call (0.02 us against 0.2; a layer-norm gradient
    made four). (Tangent code keeps the call, which `batching` reads.)"""
    kinds = ctx.kinds
    for s in ir.walk(body):
        if not any(type(c) is ast.Call and ir.dotted(c.func) == "np.size"
                   for node in ir.slot_values(s) if node is not None for c in ir.nodes(node)):
            continue
        for get, set_ in ir.slots(s):
            node = get()
            if node is not None and any(type(c) is ast.Call and ir.dotted(c.func) == "np.size"
                                        for c in ir.nodes(node)):
                set_(_Size(kinds, attribute=True).visit(ir.copy_tree(node)))
    return body
