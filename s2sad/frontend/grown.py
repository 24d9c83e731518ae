"""grown: a tuple the function grows (``out += (v * x,)``) as the list a person appends to.

Contract
--------
`as_lists(tree, meaning, nodes)` rewrites, in place, the function `tree` (an
``ast.FunctionDef`` as `parse` reads it) where a local name is only ever given a
tuple display (``out = ()``, ``t = (a, b)``) or that tuple grown by a display
(``out += (v * x,)``, ``t = t + (y, z)``), at least once grown:

* a display given to it is a list display (``out = []``), a growth by one item an
  ``append`` (``out.append(v * x)``), by several an ``extend`` by a list display;
* where it is read whole (``sum(out)``, ``len(out)``, ``out[i]``, ``for v in out``
  when the loop does not grow it, the builtins over sequences, NumPy functions
  (``meaning(name)`` says which names are NumPy's), the read is left as it is, the
  list giving what the tuple gives;
* anywhere else (``u = out``, ``return out``, ``g(out)``, ``out + (1.0,)``) the read
  is ``tuple(out)``: a tuple of the items it holds at that line, as the tuple was, so
  no other name ever shares the list that grows.

A tuple whose length changes from iteration to iteration of a loop over data is then
a list built by ``append``, which both modes differentiate, and a tuple grown in
straight-line code is one too (its ``+`` is not the elementwise ``+`` of arrays).
A name also bound some other way (a parameter, a ``for`` target, unpacking, a
``global``), or read or written inside a nested function or lambda, is left as
written. Imports nothing of s2sad.
"""

from __future__ import annotations

import ast
import types

from .tree_index import fix_locations, has, of

# the builtins that read a sequence whole, as they read a list
_READERS = {"len", "sum", "min", "max", "sorted", "list", "tuple", "enumerate", "zip",
            "reversed", "any", "all"}


def as_lists(tree: ast.FunctionDef, meaning, nodes=None) -> bool:
    """See the module docstring. `nodes`: ``list(ast.walk(tree))``, where the caller
    has it. Whether it rewrote anything (its nodes are then another list)."""
    nodes = list(ast.walk(tree)) if nodes is None else nodes
    grown = _grown_names(tree, nodes)
    if not grown:
        return False
    _Rewriter(grown, meaning).visit(tree)
    fix_locations(tree)
    return True


def _display(e) -> bool:
    return isinstance(e, ast.Tuple) and not any(isinstance(x, ast.Starred) for x in e.elts)


def _growth(s):
    """The display `s` grows its name by (``t += (a,)``, ``t = t + (a,)``; one item
    put in front, ``t = (a,) + t``, has the attribute ``front``), or None."""
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and \
            isinstance(s.op, ast.Add) and _display(s.value):
        return s.value
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.BinOp) and
            isinstance(s.value.op, ast.Add)):
        return None
    name, left, right = s.targets[0].id, s.value.left, s.value.right
    if isinstance(left, ast.Name) and left.id == name and _display(right):
        return right
    if isinstance(right, ast.Name) and right.id == name and _display(left) and \
            len(left.elts) == 1:
        left.front = True
        return left
    return None


def _grown_names(tree, nodes) -> set:
    """The names of `tree` given only tuple displays and growths, grown somewhere."""
    if not has(nodes, ast.Tuple) or not any(
            _growth(n) is not None for n in of(nodes, ast.Assign, ast.AugAssign)):
        return set()  # (most functions grow no tuple: one cheap look first)
    given, grows, other = set(), set(), set()
    other.update(a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg))
    for n in nodes:
        if n is not tree and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                            ast.Lambda, ast.ClassDef)):
            other.update(m.id for m in ast.walk(n) if isinstance(m, ast.Name))
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            other.update(n.names)
        elif _growth(n) is not None:
            grows.add(n.target.id if isinstance(n, ast.AugAssign) else n.targets[0].id)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name) and _display(n.value):
            given.add(n.targets[0].id)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For,
                            ast.comprehension, ast.With, ast.NamedExpr, ast.Delete)):
            targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else \
                [w.optional_vars for w in n.items] if isinstance(n, ast.With) else [n.target]
            other.update(m.id for t in targets if t is not None for m in ast.walk(t)
                         if isinstance(m, ast.Name))
    return (grows & given) - other


class _Rewriter(ast.NodeTransformer):
    def __init__(self, grown: set, meaning):
        self.grown = grown
        self.meaning = meaning
        self.loops: list = []  # the names the loops around the line grow

    # ------------------------------------------------------------ statements

    def visit_Assign(self, s):
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.grown:
            name = s.targets[0].id
            items = _growth(s)
            if items is not None:
                return self._grow(name, self._reads(items), s)
            s.value = ast.copy_location(ast.List(elts=self._reads(s.value).elts,
                                                 ctx=ast.Load()), s.value)
            return s
        return self.generic_visit(s)

    def visit_AugAssign(self, s):
        if isinstance(s.target, ast.Name) and s.target.id in self.grown:
            return self._grow(s.target.id, self._reads(_growth(s)), s)
        return self.generic_visit(s)

    def _grow(self, name, items: ast.Tuple, s):
        method, args = ("insert", [ast.Constant(value=0), items.elts[0]]) \
            if getattr(items, "front", False) else ("append", items.elts) \
            if len(items.elts) == 1 else ("extend", [ast.List(elts=items.elts, ctx=ast.Load())])
        call = ast.Call(func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()),
                                           attr=method, ctx=ast.Load()),
                        args=args, keywords=[])
        return ast.copy_location(ast.Expr(value=call), s)

    def _reads(self, e):
        return self.visit(e)

    def visit_For(self, s):
        grows = {m.id for b in s.body + s.orelse for m in ast.walk(b)
                 if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store)}
        if isinstance(s.iter, ast.Name) and s.iter.id in self.grown and s.iter.id not in grows:
            s.target = self.visit(s.target)
            s.body = [self.visit(b) for b in s.body]
            s.orelse = [self.visit(b) for b in s.orelse]
            return s
        return self.generic_visit(s)

    # ------------------------------------------------------------ reads

    def visit_Call(self, e):
        func = e.func
        direct = isinstance(func, ast.Name) and func.id in _READERS or \
            self._numpy(func)
        if direct:
            e.func = self.visit(func)
            e.args = [a if isinstance(a, ast.Name) and a.id in self.grown else self.visit(a)
                      for a in e.args]
            e.keywords = [self.visit(k) for k in e.keywords]
            return e
        return self.generic_visit(e)

    def visit_Subscript(self, e):
        if isinstance(e.value, ast.Name) and e.value.id in self.grown and \
                isinstance(e.ctx, ast.Load) and not isinstance(e.slice, ast.Slice):
            e.slice = self.visit(e.slice)
            return e
        return self.generic_visit(e)

    def visit_comprehension(self, c):
        if isinstance(c.iter, ast.Name) and c.iter.id in self.grown:
            c.target = self.visit(c.target)
            c.ifs = [self.visit(i) for i in c.ifs]
            return c
        return self.generic_visit(c)

    def visit_Name(self, e):
        if e.id in self.grown and isinstance(e.ctx, ast.Load):
            return ast.copy_location(ast.Call(func=ast.Name(id="tuple", ctx=ast.Load()),
                                              args=[e], keywords=[]), e)
        return e

    def _numpy(self, func) -> bool:
        """Is `func` a NumPy function (``np.stack``), which reads a list as a tuple?"""
        chain = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or not chain:
            return False
        owner = self.meaning(func.id)
        return isinstance(owner, types.ModuleType) and \
            owner.__name__.split(".")[0] == "numpy"
