"""shapes: the shapes of arrays, as symbols, and where their values come from.

A shape is a tuple of symbols, one per axis (`shape_of`): two axes with the same
symbol have the same length, the symbol 1 is an axis of length 1, and a symbol of
its own (`fresh_shape`) says nothing about the length. What an operation does to
its inputs' shapes is its row's in `primitives.facts` (`call_shape`, with NumPy's
rules in `primitives.shape_rules`). `ShapeInference` gives each array of an
analysed function its shape and its origin (the array its values came from
elementwise), which the transforms and the optimizer read from `Activity.shapes`
and `Activity.origins`.
"""

from __future__ import annotations

import ast

from ..ir.kinds import INT, SCALAR, ArrayKind, ListKind
from ..primitives.facts import (call_shape, constant_value, facts_of, reductions,
                                stops_gradient)
from ..primitives.shape_rules import broadcast, knows_symbols


def fresh_shape(name: str, rank: int) -> tuple:
    """A shape of `rank` axes of which nothing is known."""
    return tuple(f"{name}.{i}" for i in range(rank))


_NAMES = frozenset({ast.Name})


def literals_key(op) -> tuple:
    """What a shape rule reads of `op` besides its inputs' kinds or shapes: the
    literal value of each input and option (`facts.call_shape`'s), each by its text
    (``1``, ``1.0`` and ``True`` are equal keys of a dict, not equal arguments)."""
    if not op.options and _NAMES.issuperset(map(type, op.inputs)):
        return len(op.inputs)  # (the commonest: no literal at all)
    return (tuple(repr(constant_value(x)) for x in op.inputs),
            tuple((name, repr(constant_value(x))) for name, x in op.options.items()))


_SHAPE = object()  # (the tag of `inferred_shape`'s keys in the analysis's memo)


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
            tokens, kept = set(), False
            for x in op.inputs:
                kind = self.atom_kind(x)
                if isinstance(kind, ArrayKind):
                    token = r.origins.get(x.id) if isinstance(x, ast.Name) else None
                    tokens.add(token)
                    kept = kept or isinstance(token, tuple)
                elif kind not in (SCALAR, INT):
                    tokens.add(None)
            if not kept:  # (the commonest: no keepdims reduction, one test below)
                if len(tokens) == 1 and None not in tokens and op.key != "matmul":
                    return tokens.pop()
                tokens = ()
            # a reduction of `x` with keepdims broadcasts back to `x`'s shape
            full = {t for t in tokens if not (isinstance(t, tuple) and t[0] == "keepdims")}
            if len(full) == 1 and None not in full and op.key != "matmul" \
                    and all(t in full or t == ("keepdims", next(iter(full))) for t in tokens):
                return next(iter(full))
            if len(tokens) == 1 and None not in tokens and op.key != "matmul":
                return tokens.pop()
        if op.kind == "rule" and isinstance(op.options.get("keepdims"), ast.Constant) \
                and op.key in reductions() and op.options["keepdims"].value is True and isinstance(op.inputs[0], ast.Name) \
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
        x = op.inputs[0] if op.inputs else None  # (`listed_item` is None but of a list)
        item = self.listed_item(target, s, op) if isinstance(x, ast.Name) and isinstance(
            r.kinds.get(x.id), ListKind) else None
        if item is not None and item.dims is not None and len(item.dims) == rank:
            return item.dims  # (an array element of a list argument: its labels)
        parts = getattr(self, "tuple_shapes", {}).get(op.inputs[0].id) \
            if s.unpack and op.kind == "copy" \
            and isinstance(op.inputs[0], ast.Name) else None
        if parts is not None and len(parts) == len(s.targets) and s.targets.count(target) == 1:
            shape = parts[s.targets.index(target)]  # (``w, V = np.linalg.eigh(a)``)
            return shape if shape is not None and len(shape) == rank else \
                fresh_shape(target, rank)
        shape = self.inferred_shape(s, op)
        if shape is None or len(shape) != rank:
            return fresh_shape(target, rank)
        return shape

    def note_tuple_shapes(self, target, s, op):
        """Where `target` is a tuple of arrays a call returns (``np.linalg.eigh(a)``:
        its facts row gives one shape per item), remember the items' shapes for the
        unpacking that takes them out (`shape_of`)."""
        if not hasattr(self, "tuple_shapes"):
            self.tuple_shapes = {}
        self.tuple_shapes.pop(target, None)
        if target in self.joined or s.unpack or op.kind != "rule":
            return
        shapes = [self.atom_shape(x) for x in op.inputs]
        if None in shapes:
            return
        got = call_shape(op.key, shapes, op.inputs, op.options)
        if isinstance(got, list) and all(isinstance(x, tuple) and knows_symbols(x)
                                         for x in got):
            self.tuple_shapes[target] = got

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
        if isinstance(atom, ast.Constant) and isinstance(atom.value, str):
            return ()  # (np.einsum's subscripts: no axes)
        return () if self.atom_kind(atom) in (SCALAR, INT) else None

    def inferred_shape(self, s, op):
        """The shape of `op`'s result from its inputs' (None where the rank is unknown
        or only the rank is known): a copy's is its source's, a ``np.zeros_like(x)``'s
        (without a ``shape=`` or other keywords) `x`'s, a rule's its row's
        (`facts.call_shape`)."""
        shapes = [self.atom_shape(x) for x in op.inputs]
        if op.kind == "copy" or stops_gradient(op):
            return shapes[0]
        if isinstance(s.value, ast.Compare) or isinstance(s.value, ast.UnaryOp) \
                and isinstance(s.value.op, ast.Invert):
            # (a comparison, or ``~`` of one, broadcasts its operands: the mask of
            # np.where(x > 0, ...) has x's shape)
            return None if None in shapes else broadcast(shapes)
        shaped = op.kind == "nondiff" and isinstance(s.value, ast.Call) and shapes \
            and facts_of(op.key).shape is not None and "shape" not in op.options \
            and not s.value.keywords  # (a function without a derivative, with a shape)
        if not shaped and (op.kind != "rule" or None in shapes):
            return None
        # (of the same primitive, shapes and literals, the same shape: kept for the
        # analysis, which asks it again for each line of a long function)
        try:
            at = (_SHAPE, op.kind, op.key, tuple(shapes), literals_key(op))
            known = self.memo.get(at)
        except TypeError:  # (an unhashable key or shape)
            at = known = None
        if known is not None:
            return known[0]
        shape = call_shape(op.key, shapes, op.inputs, op.options)
        shape = shape if knows_symbols(shape) else None
        if at is not None:
            self.memo[at] = (shape,)
        return shape
