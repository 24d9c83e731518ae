"""tree_index: the nodes of a function's tree, walked once, with those of each type.

Contract
--------
`Nodes(tree)` is ``list(ast.walk(tree))`` (the same nodes in the same order: breadth
first, each node's children in `ast.iter_child_nodes` order) without the leaves no
pass looks for, the expression contexts (``Load``, ``Store``) and the operators (a
third of a function's nodes), and it also knows the nodes of each type: `nodes.of(ast.Call)` gives the calls, in that order, without looking at
the other nodes, and `nodes.has(ast.ListComp, ...)` whether there is any. `parse`
walks a function's tree once this way and hands the result to its passes, and on to
`expand`: a pass for something the function does not hold (comprehensions, dicts,
lambdas, ``*``...) returns at once.

`nodes.names()` lists each name's ``(node, id, context type)``, read as the walk
meets the name (on a long function, whose nodes lie far apart in memory, another
pass over them all costs more than the work it does).

A `Nodes` is a snapshot: a pass that rewrites the tree says so, and its caller walks
it again. Types are matched exactly (the concrete node classes `ast.parse` makes, not
their abstract bases). `of(nodes, *types)` does the same on any list of nodes.

`fix_locations(tree)` is ``ast.fix_missing_locations(tree)`` without a reference cycle
per call.
"""

from __future__ import annotations

import ast


class Nodes(list):
    """``list(ast.walk(tree))`` less its contexts and operators, with its nodes by
    type. See the module docstring."""

    def __init__(self, tree: ast.AST):
        super().__init__()
        by: dict = {}
        self.by_type = by
        self.tree = tree
        self._names = names = []
        out = self
        out.append(tree)
        add, extend, get, i = out.append, out.extend, by.get, 0
        AST, Name, Constant, BinOp, Attribute, Call, Assign = (
            ast.AST, ast.Name, ast.Constant, ast.BinOp, ast.Attribute, ast.Call, ast.Assign)
        leaf = _LEAVES
        while i < len(out):
            n = out[i]
            i += 1
            t = type(n)
            b = get(t)
            if b is None:
                by[t] = [n]
            else:
                b.append(n)
            if t is Name:  # (the commonest: nothing below but a context)
                d = n.__dict__
                names.append((n, d.get("id"), type(d.get("ctx"))))
                continue
            if t is Constant:
                continue
            d = n.__dict__
            if t is BinOp:
                for v in (d.get("left"), d.get("right")):
                    if isinstance(v, AST):
                        add(v)
                continue
            if t is Attribute:
                v = d.get("value")
                if isinstance(v, AST):
                    add(v)
                continue
            if t is Call or t is Assign:  # (their fields in `_fields` order, taken inline)
                for f in n._fields:
                    v = d.get(f)
                    if type(v) is list:
                        extend(v)  # (arguments, keywords, targets: no leaf, no None)
                    elif isinstance(v, AST):
                        add(v)
                continue
            for f in n._fields:
                v = d.get(f)
                if isinstance(v, AST):
                    if type(v) not in leaf:
                        add(v)
                elif isinstance(v, list):
                    extend([x for x in v if isinstance(x, AST) and type(x) not in leaf])

    def of(self, *types) -> list:
        """The nodes of exactly these `types`, in walk order (do not change the list)."""
        by = self.by_type
        if len(types) == 1:
            return by.get(types[0], _NONE)
        present = [t for t in types if t in by]
        if not present:
            return _NONE
        if len(present) == 1:
            return by[present[0]]
        kinds = set(present)
        return [n for n in self if type(n) in kinds]

    def names(self) -> list:
        """``(node, id, type of its ctx)`` of each `ast.Name`, in walk order (see the
        module docstring; do not change the list)."""
        return self._names

    def has(self, *types) -> bool:
        """Is there a node of one of these `types`?"""
        by = self.by_type
        return any(t in by for t in types)


_NONE: list = []


def _kinds(base) -> set:
    out, todo = set(), [base]
    while todo:
        k = todo.pop()
        out.add(k)
        todo.extend(k.__subclasses__())
    return out


# the leaves `Nodes` leaves out: every context and operator class
_LEAVES = frozenset().union(*(_kinds(b) for b in (
    ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)))


def of(nodes, *types) -> list:
    """`Nodes.of` of `nodes`, a `Nodes` or any list of nodes (filtered then)."""
    if isinstance(nodes, Nodes):
        return nodes.of(*types)
    kinds = set(types)
    return [n for n in nodes if type(n) in kinds]


def has(nodes, *types) -> bool:
    """`Nodes.has` of `nodes`, a `Nodes` or any list of nodes."""
    if isinstance(nodes, Nodes):
        return nodes.has(*types)
    kinds = set(types)
    return any(type(n) in kinds for n in nodes)


def fix_locations(tree):
    """``ast.fix_missing_locations(tree)``: each node without a line or column takes its
    parent's (the root's: line 1, column 0), in the same order, with a stack of its
    own (the library's nests a function that calls itself, a reference cycle per call
    left for the cyclic collector). Returns `tree`."""
    stack = [(tree, 1, 0, 1, 0)]
    pop, push, AST = stack.pop, stack.append, ast.AST
    while stack:
        node, lineno, col, end_lineno, end_col = pop()
        attributes = node._attributes
        if "lineno" in attributes:
            if not hasattr(node, "lineno"):
                node.lineno = lineno
            else:
                lineno = node.lineno
        if "end_lineno" in attributes:
            if getattr(node, "end_lineno", None) is None:
                node.end_lineno = end_lineno
            else:
                end_lineno = node.end_lineno
        if "col_offset" in attributes:
            if not hasattr(node, "col_offset"):
                node.col_offset = col
            else:
                col = node.col_offset
        if "end_col_offset" in attributes:
            if getattr(node, "end_col_offset", None) is None:
                node.end_col_offset = end_col
            else:
                end_col = node.end_col_offset
        children = []
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, AST):
                children.append(value)
            elif isinstance(value, list):
                children.extend(x for x in value if isinstance(x, AST))
        for child in reversed(children):  # (the library's order: a shared node once)
            push((child, lineno, col, end_lineno, end_col))
    return tree
