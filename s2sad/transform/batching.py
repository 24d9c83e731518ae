"""batching: forward-mode tangent code that carries many directions in one pass.

Contract
--------
`batch(fn, kinds)` takes a forward-mode derivative function as `simplify` leaves it
(tangent names end in ``%dot``) and the kinds of its names, and rewrites it in place
so that every tangent may carry a leading axis of directions: the tangent of a value
of shape ``s`` is an array of shape ``(n,) + s``, and one call computes the n
directional derivatives (`jacobian`'s vector mode for array functions).

Most tangent code needs no change: the primal values a tangent line reads broadcast
over the direction axis, because NumPy aligns shapes from the right. What `batch`
proves for every line that reads a tangent is exactly that: the ranks of every operand
are known, and a matrix product keeps the direction axis a batch axis. It rewrites
what would reach the direction axis: a tangent meeting an operand of higher rank gets
the missing axes after its direction axis (``t1 * t3_dot[:, None]``), ``W @ x_dot``
of a vector tangent reads ``x_dot @ W.T``, a reduction over every axis or over a
counted axis (``np.sum(t_dot, axis=0)``) runs over the same axes counted from the
end, an element read or write ``x_dot[i]`` is ``x_dot[:, i]`` (a copy of it where
the array is written into by element: a number's tangent is its own), an array's
unpacking ``a, b = y`` unpacks ``np.moveaxis(y_dot, 1, 0)``, the zero tangent of
an array the function writes into has the direction axis, ``np.broadcast_to``
keeps the axis in front, ``np.flip``, ``roll``, ``cumsum``, ``diff`` and
``repeat`` of a tangent along an axis count it from the end (``triu`` and ``tril``
keep to the last two axes as they are), and ``np.einsum`` of one tangent gives the
direction axis a label of its own. Anything else that touches a tangent (a method, an unknown
call, a write whose element rank is not known) raises `NotBatchable`, and the caller
takes one pass per direction: a line `batch` cannot prove is never run on directions.

`check_vectors(fn, resolve)` answers the same question for `jacobian`'s vector mode
on functions of numbers, where each number's tangent is a vector of directions and
the code runs unchanged: it passes a function only if every operation that reads a
tangent works entry by entry (arithmetic, elementwise ufuncs, lists and tuples of
tangents, ...), and raises `NotBatchable` at a reduction such as ``np.sum(t_dot)``,
which on a vector would sum the directions together.

What it relies on
-----------------
`batch` reads the code as `forward`, the rule templates and `simplify` write it, by
its text, not by what it computes: a tangent is a name ending in ``%dot``; a
callee's forward derivative is a call whose name ends in ``%jvp`` (or holds
``%jvp%``); NumPy is ``np`` and its functions are known by their dotted spelling
(``np.sum``, ``np.zeros_like``, ``np.broadcast_to``, ``np.shape``, ``np.where``,
``np.newaxis``, ...; the reductions and ``np.zeros_like``'s kin by the names
`primitives.facts` gives them), the runtime's adjoint helpers by their names
(`_LIKE_FIRST`, `_LIKE_SECOND`); the zero tangent of an array the function writes into is the line
``x%dot = np.zeros_like(x)`` and a number's a literal 0; a broadcast term is
``np.broadcast_to(term, np.shape(result))``. Its ranks are its own: those of the
kinds of the primal names (`kinds`), and of what it reads of each expression
(`_Batcher.rank`) for the temporaries a rule's lines add; it does not read the
shapes activity infers (`Activity.shapes`). A change to any of those spellings
makes a line `NotBatchable` (one pass per direction: slower, still right) or, where
a spelling comes to mean something else, a wrong rewrite; `tests/test_jacobian.py`
covers the vector mode. `check_vectors` resolves the names it reads (`resolve`)
instead of matching their spelling."""

from __future__ import annotations

import ast
import builtins

import numpy as np

from .. import ir
from ..ir.kinds import INT, SCALAR, ArrayKind
from ..primitives.facts import LIKE_FIRST_NAMES, NUMPY_REDUCTION_NAMES


class NotBatchable(Exception):
    """The function has a tangent line `batch` cannot run on many directions."""


def batch(fn: ir.Function, kinds: dict) -> None:
    reference = next((p.name for p in fn.params if _is_tangent(p.name)), None)
    if reference is None:
        raise NotBatchable(fn)
    written = {s.target.value.id for s in ir.walk(fn.body) if isinstance(s, ir.SetItem)
               and isinstance(s.target.value, ast.Name) and _is_tangent(s.target.value.id)}
    _Batcher(kinds, reference, written).block(fn.body)


def _batched_value(s, value, rank, kinds, written):
    """The value the assignment `s` takes in batched code (`value`, its value batched,
    of `rank`): `_rows` of an unpacking, else `_own_element`."""
    return _rows(s.value, value, kinds, written) if s.unpack else \
        _own_element(s.value, value, rank, written)


def _rows(node, value, kinds, written):
    """The batched value of an unpacking, ``a, b = y`` (`node`, batched `value`): an
    array's tangent unpacks along its first axis after the directions
    (``np.moveaxis(y_dot, 1, 0)``, copied where `y` is written into by element, which
    would change the rows it gives), a tuple's as it is."""
    if not (isinstance(node, ast.Name) and _is_tangent(node.id)):
        return value
    kind = kinds.get(node.id[: -len("%dot")])
    if not isinstance(kind, ArrayKind):
        return value
    if not isinstance(kind.ndim, int) or kind.ndim < 1:
        raise NotBatchable(node)
    rows = _np("moveaxis", [value, ir.const(1), ir.const(0)])
    return ast.Call(ast.Attribute(rows, "copy", ast.Load()), [], []) if node.id in written \
        else rows


def _own_element(node, value, rank, written):
    """`value`, the batched `node`, copied where `node` reads an element of a tangent
    written into by element: an element, a number of its own, is a column of the
    directions there, a view a later write into the array would change."""
    if rank == 0 and isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
            and node.value.id in written:
        return ast.Call(ast.Attribute(value, "copy", ast.Load()), [], [])
    return value


def _is_tangent(n: str) -> bool:
    return n.endswith("%dot")


def _has_tangent(node) -> bool:
    return any(_is_tangent(n) for n in ir.names_in(node))


def _rank(kind):
    if kind in (SCALAR, INT):
        return 0
    if isinstance(kind, ArrayKind) and isinstance(kind.ndim, int):
        return kind.ndim
    return None


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div)
# calls whose result has the shape of their first argument (``np.zeros_like`` and its
# kin, `primitives.facts.LIKE_FIRST_NAMES`; prod_others: the product of the other
# elements), or of their second (the runtime's spread adjoints)
_LIKE_FIRST = (*sorted(LIKE_FIRST_NAMES), "prod_others")
_LIKE_SECOND = ("extreme_bar", "norm_bar", "unreduce")
# calls linear in their first argument that act along counted axes, by where a call
# may give the axis by position and its default (None: the triangles of the last two
# axes): with the axes counted from the end, a tangent's direction axis in front is
# one more axis they leave alone
_ALONG_AXIS = {"np.flip": (1, None), "np.roll": (2, None), "np.cumsum": (1, None),
               "np.diff": (2, -1), "np.repeat": (2, None), "np.triu": None, "np.tril": None}
# the NumPy reductions but the norm
_REDUCTIONS = tuple(n for n in NUMPY_REDUCTION_NAMES if n != "np.linalg.norm")


class _Batcher:
    def __init__(self, kinds, reference, written=frozenset()):
        # (`reference`: a tangent parameter, whose first axis counts directions;
        # `written`: the tangents written into by element)
        self.kinds, self.reference, self.written = kinds, reference, written
        self.ranks = {}  # primal names without a kind (a rule's own lines): their ranks

    def rank_of_name(self, n: str):
        base = n[: -len("%dot")] if _is_tangent(n) else n
        if base not in self.kinds:
            return self.ranks.get(base)
        return _rank(self.kinds.get(base))

    # ------------------------------------------------------------ statements

    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, ir.Assign):
            if not s.unpack and s.targets[0] not in self.kinds:
                self.ranks[s.targets[0]] = self.rank(s.value)
            if not s.unpack and _is_tangent(s.targets[0]) and _call_of(s.value, "np.zeros_like"):
                # the tangent of an array the function writes into starts as zeros
                # with the direction axis: zeros_like(out, shape=(n,) + out.shape)
                shape = ast.BinOp(left=self.directions(), op=ast.Add(),
                                  right=_np("shape", [ir.copy_tree(s.value.args[0])]))
                s.value = ast.Call(func=s.value.func, args=s.value.args,
                                   keywords=[ast.keyword(arg="shape", value=shape)])
            elif not s.unpack and _is_tangent(s.targets[0]) and _zero_literal(s.value) \
                    and self.rank_of_name(s.targets[0]) == 0:
                # a number's zero tangent: one zero per direction, as every other
                # value of the name has (a loop-carried tangent that a constant
                # replaces, read later as ``s_dot[:, None]``)
                s.value = _np("zeros", [self.directions()])
            elif _has_tangent(s.value) or any(_is_tangent(t) for t in s.targets):
                value, rank, _ = self.expr(s.value)
                if not s.unpack:
                    target = self.rank_of_name(s.targets[0])
                    if target is None or rank is not None and rank > target or \
                            rank is None and not isinstance(value, ast.Subscript):
                        raise NotBatchable(s)
                s.value = _batched_value(s, value, rank, self.kinds, self.written)
        elif isinstance(s, ir.If):
            _steady_control(s)
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, ir.Loop):
            _steady_control(s)
            for phi in s.phis:
                phi.init = _phi_init(self, phi)
            self.block(s.cond)
            self.block(s.body)
        elif isinstance(s, ir.Exit):
            self.block(s.copies)
        elif isinstance(s, ir.Return):
            s.value, _, _ = self.expr(s.value)
        elif isinstance(s, ir.Comment):
            pass
        elif isinstance(s, ir.SetItem) and isinstance(s.target.value, ast.Name) \
                and _is_tangent(s.target.value.id) and not _has_tangent(s.target.slice):
            self.write(s)
        elif any(_has_tangent(get()) for get, _ in ir.slots(s)) or \
                isinstance(s, ir.AugAssign) and isinstance(s.target, str) \
                and _is_tangent(s.target):
            raise NotBatchable(s)  # a write into a tangent, an expression statement

    def directions(self) -> ast.expr:
        """``np.shape(x_dot)[:1]``: the direction axis's length, as a shape."""
        return ast.Subscript(value=_np("shape", [ir.name(self.reference)]),
                             slice=ast.Slice(upper=ir.const(1)), ctx=ast.Load())

    def write(self, s):
        """``y_dot[i] = v_dot`` -> ``y_dot[:, i] = v_dot``, the value given the
        element's rank after its direction axis."""
        rank = self.rank_of_name(s.target.value.id)
        parts = s.target.slice.elts if isinstance(s.target.slice, ast.Tuple) \
            else [s.target.slice]
        slot = self.indexed_rank(rank, parts) if rank is not None else None
        if slot is None and len(parts) == 1 and isinstance(parts[0], ast.Name):
            mask = self.kinds.get(parts[0].id)  # a mask of the array's own rank
            if isinstance(mask, ArrayKind) and mask.dtype == "b" and mask.ndim == rank:
                slot = 1
        value, vrank, batched = self.expr(s.value)
        if batched:
            if slot is None or vrank is None or vrank > slot:
                raise NotBatchable(s)
            if vrank < slot:
                value = _expand(value, slot - vrank)
        index = ast.Tuple(elts=[ast.Slice()] + list(parts), ctx=ast.Load())
        s.target = ast.Subscript(value=s.target.value, slice=index, ctx=ast.Store())
        s.value = value

    # ----------------------------------------------------------- expressions

    def rank(self, node):
        """The rank of an expression without tangents (None: not known)."""
        if isinstance(node, ast.Name):
            return self.rank_of_name(node.id)
        if isinstance(node, ast.Constant):
            return 0 if isinstance(node.value, (int, float)) else None
        if isinstance(node, ast.UnaryOp):
            return self.rank(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ELEMENTWISE + (
                ast.Pow, ast.BitAnd, ast.BitOr)):
            a, b = self.rank(node.left), self.rank(node.right)
            return None if a is None or b is None else max(a, b)
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            a, b = self.rank(node.left), self.rank(node.comparators[0])
            return None if a is None or b is None else max(a, b)
        if isinstance(node, ast.Call) and node.args:
            text = ir.dotted(node.func) or ""
            obj = getattr(np, text[3:], None) if text.startswith("np.") else None
            if isinstance(obj, np.ufunc) and obj.nin == 1 and len(node.args) == 1 \
                    or text in _LIKE_FIRST:
                return self.rank(node.args[0])
            if text == "np.where" and len(node.args) == 3:
                ranks = [self.rank(a) for a in node.args]
                return None if None in ranks else max(ranks)
            if text in _LIKE_SECOND and len(node.args) >= 2:
                return self.rank(node.args[1])  # (the runtime's adjoints of x)
            if text in _REDUCTIONS:
                return self.reduced_rank(node)
            if text in ("len", "np.size", "np.ndim"):
                return 0
        return None

    def reduced_rank(self, node):
        """The rank of ``np.sum(x, axis, ..., keepdims=...)`` and its kin."""
        rank = self.rank(node.args[0])
        options = {k.arg: k.value for k in node.keywords}
        axis = node.args[1] if len(node.args) > 1 else options.get("axis", ir.const(None))
        keepdims = options.get("keepdims", ir.const(False))
        if rank is None or not isinstance(keepdims, ast.Constant):
            return None
        if keepdims.value:
            return rank
        try:
            axis = ast.literal_eval(axis)
        except ValueError:
            return None
        if axis is None:
            return 0
        return rank - (1 if isinstance(axis, int) else len(axis))

    def expr(self, node):
        """``(rewritten node, rank without the direction axis, carries the axis)``."""
        if not _has_tangent(node):
            return node, self.rank(node), False
        if isinstance(node, ast.Name):
            return node, self.rank_of_name(node.id), True
        if isinstance(node, ast.Tuple):
            elts = [self.expr(e)[0] for e in node.elts]
            return ast.Tuple(elts=elts, ctx=ast.Load()), None, True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand, rank, _ = self.expr(node.operand)
            return ast.UnaryOp(op=node.op, operand=operand), rank, True
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript) and not _has_tangent(node.slice):
            value, rank, batched = self.expr(node.value)
            if not batched or rank is None or rank < 1:
                raise NotBatchable(node)
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            index = ast.Tuple(elts=[ast.Slice()] + list(parts), ctx=ast.Load())
            return ast.Subscript(value=value, slice=index, ctx=ast.Load()), \
                self.indexed_rank(rank, parts), True
        raise NotBatchable(node)

    def indexed_rank(self, rank, parts):
        """The rank of an array of `rank` indexed by `parts` (None: not known, as for
        an index array or a mask)."""
        for p in parts:
            if isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and p.value is ...:
                continue
            if isinstance(p, ast.Constant) and p.value is None or ir.dotted(p) == "np.newaxis":
                rank += 1
            elif isinstance(p, ast.Constant) and type(p.value) is int or \
                    isinstance(p, ast.Name) and self.kinds.get(p.id) == INT:
                rank -= 1
            else:
                return None
        return rank

    def binop(self, node):
        left, a, ta = self.expr(node.left)
        right, b, tb = self.expr(node.right)
        if a is None or b is None:
            raise NotBatchable(node)
        if isinstance(node.op, _ELEMENTWISE):
            # a tangent meeting an operand of higher rank gets the missing axes after
            # its direction axis (``t1 * t3_dot`` of an array t1 and a number t3
            # reads ``t1 * t3_dot[:, None]``), so the direction axis stays in front
            if ta and a < b:
                left = _expand(left, b - a)
            if tb and b < a:
                right = _expand(right, a - b)
            return ast.BinOp(left=left, op=node.op, right=right), max(a, b), True
        out = ast.BinOp(left=left, op=node.op, right=right)
        if isinstance(node.op, ast.MatMult) and not (ta and tb) and 1 <= min(a, b) \
                and (b if ta else a) <= 2:
            # (n, k) @ (k, m) and (n, ..., k) @ (k,) keep n in front, as does
            # (m, k) @ (n, k, p); a matrix times a vector tangent, W @ x_dot, is
            # x_dot @ W.T (the same sums of products, one row per direction)
            rank = (a - 1) + (b - 1) if min(a, b) == 1 else max(a, b)
            if tb and b == 1:  # (v @ x_dot is x_dot @ v)
                other = left if a == 1 else ast.Attribute(value=left, attr="T", ctx=ast.Load())
                return ast.BinOp(left=right, op=ast.MatMult(), right=other), rank, True
            return out, rank, True
        raise NotBatchable(node)

    def call(self, node):
        text = ir.dotted(node.func) or ""
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise NotBatchable(node)
        if text.endswith("%jvp") or "%jvp%" in text:
            # a callee's forward derivative, itself batched: tangents pass through
            args = [self.expr(a)[0] for a in node.args]
            return ast.Call(func=node.func, args=args, keywords=node.keywords), None, True
        if text in ("np.sum", "np.mean"):
            return self.reduction(node)
        if text in ("np.dot", "np.matmul") and len(node.args) == 2 and not node.keywords:
            # (np.dot and matmul agree on 1-D and 2-D operands, which binop checks)
            product = ast.BinOp(left=node.args[0], op=ast.MatMult(), right=node.args[1])
            if all(self.rank(a) in (1, 2) or _has_tangent(a) for a in node.args):
                new, rank, _ = self.binop(product)
                if isinstance(new, ast.BinOp) and isinstance(new.op, ast.MatMult) and \
                        all(r in (1, 2) for r in (self.expr(node.args[0])[1],
                                                  self.expr(node.args[1])[1])):
                    return new, rank, True
            raise NotBatchable(node)
        if text == "np.array" and len(node.args) == 1 and not node.keywords:
            value, rank, batched = self.expr(node.args[0])  # a copy keeps the axis
            return ast.Call(func=node.func, args=[value], keywords=[]), rank, batched
        if isinstance(node.func, ast.Attribute) and node.func.attr == "copy" and \
                not node.args and not node.keywords and _has_tangent(node.func.value):
            value, rank, batched = self.expr(node.func.value)  # (x_dot.copy(): the same)
            return ast.Call(ast.Attribute(value, "copy", ast.Load()), [], []), rank, batched
        if text == "np.broadcast_to" and len(node.args) == 2 and not node.keywords:
            return self.broadcast_to(node)
        if (text in _ALONG_AXIS or text == "np.einsum") and node.args:
            return _along_axis(self, node, text)
        if text == "np.where" and len(node.args) == 3 and not node.keywords \
                and not _has_tangent(node.args[0]):
            parts = [self.expr(a) for a in node.args]
            ranks = [r for _, r, _ in parts]
            if None in ranks:
                raise NotBatchable(node)
            top = max(ranks)
            if any(t and r != top for _, r, t in parts):
                raise NotBatchable(node)
            return ast.Call(func=node.func, args=[p[0] for p in parts], keywords=[]), top, True
        raise NotBatchable(node)

    def reduction(self, node):
        if not 1 <= len(node.args) <= 2 or len(node.args) == 2 and _has_tangent(node.args[1]):
            raise NotBatchable(node)
        value, rank, batched = self.expr(node.args[0])
        options = {k.arg: k.value for k in node.keywords}
        if set(options) - {"axis", "keepdims"} or rank is None or not batched:
            raise NotBatchable(node)
        axis = node.args[1] if len(node.args) == 2 else options.get("axis", ir.const(None))
        keepdims = options.get("keepdims", ir.const(False))
        if not (isinstance(axis, (ast.Constant, ast.Tuple, ast.UnaryOp))
                and isinstance(keepdims, ast.Constant)):
            raise NotBatchable(node)
        try:
            axis = ast.literal_eval(axis)
        except ValueError:
            raise NotBatchable(node) from None
        axes = tuple(range(rank)) if axis is None else \
            (axis,) if isinstance(axis, int) else axis
        if not all(isinstance(x, int) and -rank <= x < rank for x in axes):
            raise NotBatchable(node)
        from_end = tuple(sorted({x - rank if x >= 0 else x for x in axes}))
        keywords = [ast.keyword(arg="axis", value=_ints(from_end))]
        if keepdims.value:
            keywords.append(ast.keyword(arg="keepdims", value=ir.const(True)))
        new = ast.Call(func=node.func, args=[value], keywords=keywords)
        return new, rank if keepdims.value else rank - len(from_end), True

    def broadcast_to(self, node):
        value, rank, batched = self.expr(node.args[0])
        shape = node.args[1]
        if not batched or rank is None or _has_tangent(shape) or not (
                isinstance(shape, ast.Call) and ir.dotted(shape.func) == "np.shape"
                and len(shape.args) == 1):
            raise NotBatchable(node)
        target = self.rank(shape.args[0])
        if target is None or target < rank:
            raise NotBatchable(node)
        front = ast.Subscript(value=_np("shape", [ir.copy_tree(value)]),
                              slice=ast.Slice(upper=ir.const(1)), ctx=ast.Load())
        if target > rank:  # new axes go after the direction axis
            value = _np("expand_dims", [value, _ints(range(1, 1 + target - rank))])
        full = ast.BinOp(left=front, op=ast.Add(), right=shape)
        return ast.Call(func=node.func, args=[value, full], keywords=[]), target, True


def _phi_init(batcher, phi):
    """A loop-carried tangent's value before the loop, batched: a number's zero
    tangent one zero per direction, as `_Batcher.stmt` makes an assigned one (the
    iterations read ``s_dot[:, None]``)."""
    if phi.init is not None and _has_tangent(phi.init):
        return batcher.expr(phi.init)[0]
    if _is_tangent(phi.name) and phi.init is not None and _zero_literal(phi.init) \
            and batcher.rank_of_name(phi.name) == 0:
        return _np("zeros", [batcher.directions()])
    return phi.init


def _along_axis(batcher, node, text):
    """`_Batcher.call` of ``np.flip(t_dot, 0)`` and its kin (`_ALONG_AXIS`): the same
    call with the axes counted from the end, ``np.flip(t_dot, -2)`` of a matrix
    tangent; the triangles of ``np.triu`` and ``np.tril`` are the last two axes
    already. (``np.einsum``: `_einsum`.)"""
    if any(_has_tangent(k.value) for k in node.keywords):
        raise NotBatchable(node)
    if text == "np.einsum":
        return _einsum(batcher, node)
    if any(_has_tangent(a) for a in node.args[1:]):
        raise NotBatchable(node)
    value, rank, batched = batcher.expr(node.args[0])
    place = _ALONG_AXIS[text]
    if not batched or rank is None or rank < (2 if place is None else 1):
        raise NotBatchable(node)
    args, keywords = [value] + list(node.args[1:]), list(node.keywords)
    if place is None:
        return ast.Call(func=node.func, args=args, keywords=keywords), rank, True
    at, default = place
    named = {k.arg: k for k in keywords}
    if set(named) - {"axis", "n"}:
        raise NotBatchable(node)
    given = args[at] if len(args) > at else named["axis"].value if "axis" in named \
        else ir.const(default)
    try:
        axis = ast.literal_eval(given)
    except ValueError:
        raise NotBatchable(node) from None
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(type(a) is int and -rank <= a < rank for a in axes):
        raise NotBatchable(node)  # (None: the directions would be flattened in)
    from_end = [a - rank if a >= 0 else a for a in axes]
    counted = _ints(from_end) if isinstance(axis, tuple) else ir.const(from_end[0])
    if len(args) > at:
        args[at] = counted
    elif "axis" in named:
        keywords = [ast.keyword(arg="axis", value=counted) if k.arg == "axis" else k
                    for k in keywords]
    else:
        keywords.append(ast.keyword(arg="axis", value=counted))
    return ast.Call(func=node.func, args=args, keywords=keywords), rank, True


def _einsum(batcher, node):
    """``np.einsum("ij,jk->ik", x_dot, y)`` of one tangent, with literal subscripts
    and no ``...``: a new label for the direction axis, in front of the tangent's
    labels and the output's (``"zij,jk->zik"``)."""
    spec = node.args[0]
    operands = node.args[1:]
    tangents = [i for i, a in enumerate(operands) if _has_tangent(a)]
    if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)) \
            or "." in spec.value or len(tangents) != 1:
        raise NotBatchable(node)
    inputs, arrow, output = spec.value.replace(" ", "").partition("->")
    parts = inputs.split(",")
    i = tangents[0]
    value, rank, batched = batcher.expr(operands[i])
    if not batched or rank != len(parts[i]) or len(parts) != len(operands):
        raise NotBatchable(node)
    if not arrow:  # (implicit: the labels that appear once, in order)
        output = "".join(sorted(c for c in set(inputs) if inputs.count(c) == 1 and c != ","))
    label = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                 if c not in spec.value)
    parts[i] = label + parts[i]
    args = [ir.const(",".join(parts) + "->" + label + output)] + list(operands)
    args[1 + i] = value
    return ast.Call(func=node.func, args=args, keywords=list(node.keywords)), len(output), True


def _call_of(node, text) -> bool:
    return isinstance(node, ast.Call) and ir.dotted(node.func) == text \
        and len(node.args) == 1 and not node.keywords and not _has_tangent(node.args[0])


def _steady_control(s):
    """A branch or a loop whose test (or range) reads a tangent could take another path
    for each direction: one pass cannot carry them all."""
    if isinstance(s, ir.If):
        reads = [s.test]
    else:
        reads = [e for e in (s.iter, s.test) if e is not None]
    if any(_has_tangent(e) for e in reads):
        raise NotBatchable(s)


def _zero_literal(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) \
        and node.value == 0


def _expand(node, by: int) -> ast.Subscript:
    """``node[:, None, ...]``: `by` new axes after the direction axis."""
    index = ast.Tuple(elts=[ast.Slice()] + [ir.const(None)] * by, ctx=ast.Load())
    return ast.Subscript(value=node, slice=index, ctx=ast.Load())


def _np(func, args) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=ir.name("np"), attr=func, ctx=ast.Load()),
                    args=args, keywords=[])


def _ints(values) -> ast.Tuple:
    return ast.Tuple(elts=[ir.const(v) for v in values], ctx=ast.Load())


# ------------------------------------------------- vectors of number tangents


def check_vectors(fn: ir.Function, resolve) -> None:
    """`jacobian`'s vector mode for a function of numbers: is every tangent line of
    `fn` (a forward derivative whose tangents are numbers, or lists and tuples of
    numbers) right when each number tangent is a vector with one entry per direction?
    Raises `NotBatchable` at the first line that may not be.

    A line is right on vectors when each of its operations works entry by entry:
    arithmetic (``+ - * / **``; the primals are numbers, so they broadcast), unary
    minus, tuples and lists of tangents and reading their elements, a branch on a
    primal (``a_dot if c else b_dot``), an elementwise NumPy ufunc, ``np.where`` on a
    primal condition, ``sum``/``len``/``list``/``tuple`` of a list of tangents, the
    list methods ``append``/``pop``/``copy``/``extend``/``insert`` on a list of
    tangents, and the forward derivative of a callee (checked on its own). Anything
    else that reads a tangent may mix the directions and is refused: a reduction
    (``np.sum(t_dot)`` of a number's tangent sums the directions together), a matrix
    product, ``np.array`` or ``np.sum`` of a list of tangents, indexing a NumPy value,
    an in-place add (it would change a vector other tangents share). `resolve` maps
    a dotted name of the code (``np.sum``, ``sum``) to the object it names, or None."""
    _Vectors(resolve).block(fn.body)


_VECTOR_BUILTINS = ("sum", "len", "list", "tuple")
_LIST_METHODS = ("append", "pop", "copy", "extend", "insert")


class _Vectors:
    def __init__(self, resolve):
        self.resolve = resolve

    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, (ir.Assign, ir.Return)):
            self.expr(s.value)
        elif isinstance(s, ir.SetItem):
            # a write into a list of tangents (a number tangent is never indexed)
            if _has_tangent(s.target.slice) or not isinstance(s.target.value, ast.Name):
                raise NotBatchable(s)
            self.expr(s.value)
        elif isinstance(s, ir.Expr):
            self.expr(s.value)
        elif isinstance(s, ir.If):
            _steady_control(s)
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, ir.Loop):
            _steady_control(s)
            for phi in s.phis:
                if phi.init is not None:
                    self.expr(phi.init)
            self.block(s.cond)
            self.block(s.body)
        elif isinstance(s, ir.Exit):
            self.block(s.copies)
        elif isinstance(s, ir.ForEach):
            if _has_tangent(s.iter):
                raise NotBatchable(s)
            self.block(s.body)
        elif isinstance(s, (ir.Comment, ir.Dup)):
            pass
        elif any(_has_tangent(e) for e in ir.exprs(s)) or \
                isinstance(s, ir.AugAssign):
            # (an in-place add would change a vector other tangents may share)
            raise NotBatchable(s)

    def expr(self, node):
        if not _has_tangent(node) or isinstance(node, ast.Name):
            return
        if isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    raise NotBatchable(node)
                self.expr(e)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self.expr(node.operand)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _ELEMENTWISE + (ast.Pow,)):
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, ast.Subscript):
            # an element or a slice of a list or tuple of tangents
            if _has_tangent(node.slice):
                raise NotBatchable(node)
            self.expr(node.value)
        elif isinstance(node, ast.IfExp):
            if _has_tangent(node.test):
                raise NotBatchable(node)
            self.expr(node.body)
            self.expr(node.orelse)
        elif isinstance(node, ast.Call):
            self.call(node)
        else:
            raise NotBatchable(node)

    def call(self, node):
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None or _has_tangent(k.value) for k in node.keywords):
            raise NotBatchable(node)
        text = ir.dotted(node.func)
        if text is None:
            raise NotBatchable(node)
        if text.endswith("%jvp") or "%jvp%" in text:
            pass  # a callee's forward derivative: its own lines are checked
        elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and _is_tangent(node.func.value.id):
            if node.func.attr not in _LIST_METHODS:
                raise NotBatchable(node)
        else:
            obj = self.resolve(text)
            if obj is np.where and len(node.args) == 3 and not node.keywords:
                if _has_tangent(node.args[0]):
                    raise NotBatchable(node)
            elif isinstance(obj, np.ufunc) and obj.signature is None and obj.nout == 1 \
                    and not node.keywords:
                pass  # elementwise
            elif not any(obj is getattr(builtins, b) for b in _VECTOR_BUILTINS) \
                    or node.keywords:
                raise NotBatchable(node)
        for a in node.args:
            self.expr(a)
