"""shapes: the shapes of arrays, as symbols, and where their values come from.

A shape is a tuple of symbols, one per axis (`shape_of`): two axes with the same
symbol have the same length, the symbol 1 is an axis of length 1, and a symbol of
its own (`fresh_shape`) says nothing about the length. `broadcast` and `reduced`
are NumPy's rules on such shapes. `ShapeInference` gives each array of an analysed
function its shape and its origin (the array its values came from elementwise),
which the transforms and the optimizer read from `Activity.shapes` and
`Activity.origins`.
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.kinds import INT, SCALAR, ArrayKind, ListKind
from ..primitives.facts import hashable_in, constant_value, reductions, stops_gradient


def fresh_shape(name: str, rank: int) -> tuple:
    """A shape of `rank` axes of which nothing is known."""
    return tuple(f"{name}.{i}" for i in range(rank))


def broadcast(shapes: list, strict=False):
    """The shape NumPy broadcasts `shapes` to: axes aligned from the right, an axis of
    length 1 (or a missing one) taking the other's length. Axes with different
    symbols, neither 1, have lengths that may or may not be equal: the result's axis
    is a new symbol, or with `strict` the answer is None (they may not broadcast)."""
    rank = max(len(x) for x in shapes)
    out = []
    for i in range(rank):
        axis = {x[len(x) - rank + i] for x in shapes if len(x) - rank + i >= 0} - {1}
        if len(axis) > 1:
            if strict:
                return None
            axis = {f"?{'|'.join(sorted(map(str, axis)))}"}
        out.append(axis.pop() if axis else 1)
    return tuple(out)


def reduced(shape, axis, keepdims):
    """The shape of a reduction of an array of `shape` over `axis` (None: all)."""
    if axis == "?" or keepdims not in (True, False):
        return None
    axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    try:
        axes = {a % len(shape) for a in axes}
    except (TypeError, ZeroDivisionError):
        return None
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def is_ufunc(obj) -> bool:
    return type(obj).__name__ == "ufunc"


class ShapeInference:
    """The shapes and origins of arrays: a part of activity's analysis (it reads the
    analysis's `result`, `joined` and `atom_kind`)."""

    def origin(self, target, op) -> str:
        """Copies keep their source's origin; an elementwise operation whose array
        inputs all have one origin (or are a keepdims reduction of it) keeps it;
        anything else is an origin of its own."""
        r = self.result
        if op.kind == "copy" or stops_gradient(op) and isinstance(op.inputs[0], ast.Name):
            return r.origins.get(op.inputs[0].id, target)
        if op.kind == "rule" and (isinstance(op.key, str) or is_ufunc(op.key)):
            tokens = set()
            for x in op.inputs:
                kind = self.atom_kind(x)
                if isinstance(kind, ArrayKind):
                    tokens.add(r.origins.get(x.id) if isinstance(x, ast.Name) else None)
                elif kind not in (SCALAR, INT):
                    tokens.add(None)
            # a reduction of `x` with keepdims broadcasts back to `x`'s shape
            full = {t for t in tokens if not (isinstance(t, tuple) and t[0] == "keepdims")}
            if len(full) == 1 and None not in full and op.key != "matmul" \
                    and all(t in full or t == ("keepdims", next(iter(full))) for t in tokens):
                return next(iter(full))
            if len(tokens) == 1 and None not in tokens and op.key != "matmul":
                return tokens.pop()
        if op.kind == "rule" and op.key in reductions() and \
                isinstance(op.options.get("keepdims"), ast.Constant) and \
                op.options["keepdims"].value is True and isinstance(op.inputs[0], ast.Name) \
                and op.inputs[0].id in r.origins:
            return ("keepdims", r.origins[op.inputs[0].id])
        return target

    def shape_of(self, target, s, op):
        """`target`'s shape as a tuple of symbols, one per axis (None: its rank is
        unknown). Two axes with the same symbol have the same length; the symbol 1 is
        an axis of length 1. Parameters have the `dims` of their kinds (the labels of
        the call's shape pattern) or symbols of their own; an operation's result gets
        its shape from its inputs' where NumPy's rules say what it is (broadcasting,
        reductions with a constant_value axis, matrix products, transposes), and otherwise
        new symbols, which say nothing about the lengths."""
        r = self.result
        rank = r.kinds[target].ndim
        if rank is None:
            return None
        if target in self.joined:
            return fresh_shape(target, rank)
        item = self.listed_item(target, s, op)
        if item is not None and item.dims is not None and len(item.dims) == rank:
            return item.dims  # (an array element of a list argument: its labels)
        shape = self.inferred_shape(s, op)
        if shape is None or len(shape) != rank:
            return fresh_shape(target, rank)
        return shape

    def listed_item(self, target, s, op):
        """The kind `ListKind.items` gives `target` where `s` takes it out of such a
        list by a constant index or an unpacking (None elsewhere)."""
        if not op.inputs or not isinstance(op.inputs[0], ast.Name):
            return None
        kind = self.result.kinds.get(op.inputs[0].id)
        if not isinstance(kind, ListKind) or kind.items is None:
            return None
        if s.unpack and op.kind == "copy" and len(s.targets) == len(kind.items) \
                and s.targets.count(target) == 1:
            return kind.items[s.targets.index(target)]
        if op.kind == "getitem" and not s.unpack and isinstance(op.inputs[1], ast.Constant) \
                and type(op.inputs[1].value) is int \
                and -len(kind.items) <= op.inputs[1].value < len(kind.items):
            return kind.items[op.inputs[1].value]
        return None

    def atom_shape(self, atom):
        if isinstance(atom, ast.Name) and atom.id in self.result.shapes:
            return self.result.shapes[atom.id]
        return () if self.atom_kind(atom) in (SCALAR, INT) else None

    def inferred_shape(self, s, op):
        shapes = [self.atom_shape(x) for x in op.inputs]
        if op.kind == "copy" or stops_gradient(op):
            return shapes[0]
        key = op.key
        if op.kind == "nondiff" and isinstance(s.value, ast.Call) and hashable_in(
                key, {np.zeros_like, np.ones_like, np.empty_like, np.full_like}) and shapes \
                and "shape" not in op.options and not s.value.keywords:
            return shapes[0]
        if op.kind != "rule" or None in shapes:
            return None
        if key in ("matmul", np.matmul, np.dot):
            a, b = shapes[:2]
            if not a or not b:  # (np.dot with a number multiplies)
                return broadcast([a, b]) if key is np.dot else None
            if len(a) > 2 or len(b) > 2:
                return None
            return a[:-1] + (b[-1:] if len(b) == 2 else ())
        if hashable_in(key, reductions()):
            if key is np.linalg.norm and op.options.get("ord") is not None:
                return None  # (the 2-norm of a matrix is a number)
            return reduced(shapes[0], constant_value(op.options.get("axis"), None),
                            constant_value(op.options.get("keepdims"), False))
        if key is np.transpose and op.options.get("axes") is None:
            return shapes[0][::-1]
        if key is np.outer and all(len(x) == 1 for x in shapes):
            return shapes[0] + shapes[1]
        if isinstance(key, str) or is_ufunc(key) or key in (np.where, np.clip):
            return broadcast(shapes)
        return None
