"""pairs: a list of tuples the function builds, as one list per position.

Contract
--------
`split_lists(tree)` finds the local lists the function builds as ``L = []`` and
grows only by ``L.append((a, b))`` of tuples of one length k, and reads only as
``for a, b in L``, ``len(L)``, ``a, b = L[i]`` or ``L[i][j]`` (a constant j), and
rewrites each into k lists: ``L%0 = []``, ``L%0.append(a)``, ``for a, b in zip(L%0,
L%1)``, ``a, b = L%0[i], L%1[i]``, ``L%j[i]``. Reverse mode differentiates lists of
numbers and arrays, not lists of tuples, and the k lists are what a person writes
for it ("keep one flat list per value"). A list used any other way is left as it
is. It runs in `parse`, before the other rewrites.

Imports nothing from s2sad.
"""

from __future__ import annotations

import ast


def split_lists(tree: ast.FunctionDef) -> None:
    """Rewrite, in place, the lists of tuples of `tree` that qualify (see the module
    docstring)."""
    for name, k in _candidates(tree).items():
        _Split(name, k).visit(tree)


def _candidates(tree) -> dict:
    """{name: tuple length} of the lists that qualify."""
    made: dict = {}  # name -> how many times it is assigned
    widths: dict = {}
    bad: set = set()
    positions: dict = {}  # name -> the constant positions ``L[i][j]`` reads
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            made[node.id] = made.get(node.id, 0) + 1
            parent = parents.get(node)
            if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and
                    parent.targets[0] is node and isinstance(parent.value, ast.List) and
                    not parent.value.elts):
                bad.add(node.id)
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        width = _use_width(node, parents)
        outer = parents.get(parents.get(node))
        if width == 0 and isinstance(outer, ast.Subscript) and \
                _position(outer.slice) is not None:
            positions.setdefault(node.id, set()).add(_position(outer.slice))
        if width is None:
            bad.add(node.id)
        elif width:
            widths.setdefault(node.id, set()).add(width)
    out = {}
    for n, w in widths.items():
        if n in bad or made.get(n) != 1 or len(w) != 1 or w == {1}:
            continue
        k = w.pop()
        if all(-k <= j < k for j in positions.get(n, ())):
            out[n] = k
    return out


def _use_width(node, parents):
    """The tuple length a use of a list's name implies (0: any), or None where the
    use is not one `split_lists` rewrites."""
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.attr == "append":
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent and len(call.args) == 1 and \
                not call.keywords and isinstance(call.args[0], ast.Tuple) and \
                not any(isinstance(e, ast.Starred) for e in call.args[0].elts) and \
                isinstance(parents.get(call), ast.Expr):
            return len(call.args[0].elts)
        return None
    if isinstance(parent, ast.For) and parent.iter is node:
        t = parent.target
        return len(t.elts) if isinstance(t, ast.Tuple) and all(
            isinstance(e, ast.Name) for e in t.elts) else None
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
            parent.func.id == "len" and parent.args == [node]:
        return 0
    if isinstance(parent, ast.Subscript) and parent.value is node and \
            not isinstance(parent.slice, ast.Slice):
        outer = parents.get(parent)
        if isinstance(outer, ast.Subscript) and outer.value is parent and \
                _position(outer.slice) is not None:
            return 0
        if isinstance(outer, ast.Assign) and outer.value is parent and len(outer.targets) == 1 \
                and isinstance(outer.targets[0], ast.Tuple):
            return len(outer.targets[0].elts)
    return None


def _position(e):
    """The int a constant index is (``2``, ``-1``), or None."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = _position(e.operand)
        return None if inner is None else -inner
    return e.value if isinstance(e, ast.Constant) and type(e.value) is int else None


class _Split(ast.NodeTransformer):
    def __init__(self, name, k):
        self.name, self.k = name, k

    def part(self, j, ctx=ast.Load):
        return ast.Name(id=f"{self.name}%{j}", ctx=ctx())

    def visit_Assign(self, node):
        self.generic_visit(node)
        t = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(t, ast.Name) and t.id == self.name:  # (L = [])
            return [ast.copy_location(ast.Assign(targets=[self.part(j, ast.Store)],
                                                 value=ast.List(elts=[], ctx=ast.Load())),
                                      node) for j in range(self.k)]
        if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Subscript) and \
                isinstance(node.value.value, ast.Name) and node.value.value.id == self.name:
            index = node.value.slice
            node.value = ast.Tuple(elts=[ast.Subscript(value=self.part(j), slice=index,
                                                       ctx=ast.Load())
                                         for j in range(self.k)], ctx=ast.Load())
        return node

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                isinstance(call.func.value, ast.Name) and call.func.value.id == self.name:
            self.generic_visit(node)
            return [ast.copy_location(ast.Expr(value=ast.Call(
                func=ast.Attribute(value=self.part(j), attr="append", ctx=ast.Load()),
                args=[e], keywords=[])), node) for j, e in enumerate(call.args[0].elts)]
        return self.generic_visit(node)

    def visit_For(self, node):
        self.generic_visit(node)
        if isinstance(node.iter, ast.Name) and node.iter.id == self.name:
            node.iter = ast.copy_location(ast.Call(
                func=ast.Name(id="zip", ctx=ast.Load()),
                args=[self.part(j) for j in range(self.k)], keywords=[]), node.iter)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        inner = node.value
        if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and \
                inner.value.id == self.name and _position(node.slice) is not None:
            return ast.copy_location(ast.Subscript(value=self.part(_position(node.slice) % self.k),
                                                   slice=inner.slice, ctx=node.ctx), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == self.name:
            node.args = [self.part(0)]
        return node
