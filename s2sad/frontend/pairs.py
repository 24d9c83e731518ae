"""pairs: a list of tuples the function builds, as one list per position.

Contract
--------
`split_lists(tree)` finds the local lists of tuples of one length k the function
makes and reads in the ways below, and rewrites each list ``L`` into k lists
``L%0`` ... ``L%{k-1}``, one per position. Reverse mode differentiates lists of
numbers and arrays, not lists of tuples, and the k lists are what a person writes
for it ("keep one flat list per value").

Made as (every assignment of ``L`` must be one of these):

* ``L = []``, grown by ``L.append((a, b))`` and shrunk by ``L.pop()``;
* ``L = [(a, b), (c, d)]``, a display of k-tuples;
* ``L = [(f(x), g(x)) for x in xs if ...]``, lowered to a loop that appends to
  each list (its variables renamed, so they do not leak, as Python scopes them);
* ``L = M``, ``L = list(M)``, ``L = M[a:b]`` and ``L = M + N`` of such lists.

Read as: ``for a, b in L`` (in a loop or a comprehension, also over ``L[a:b]``,
``reversed(L)`` and ``enumerate(L)``), ``for p in L`` where ``p`` is only read as
``p[j]`` or unpacked, ``len(L)``, ``a, b = L[i]``, ``L[i][j]`` (a constant ``j``),
``a, b = L.pop()``. A list made or read any other way (passed to a function,
returned, read by a computed position) is left as it is, and reverse mode refuses
it with its own message. It runs in `parse`, before the other rewrites, and again
on what `structures` returns (a helper put in place of its call reads the list
where the caller made it).

Imports nothing from s2sad.
"""

from __future__ import annotations

import ast
import copy
import itertools

from .tree_index import Nodes, fix_locations, has, of


def split_lists(tree: ast.FunctionDef, nodes=None) -> bool:
    """Rewrite, in place, the lists of tuples of `tree` that qualify (see the module
    docstring). `nodes`: ``list(ast.walk(tree))``, where the caller has it. Whether
    it may have rewritten anything."""
    if nodes is None:
        nodes = Nodes(tree)
    if not has(nodes, ast.Tuple):
        return False  # (no tuple at all: the commonest)
    # (most make no list of tuples)
    parallel = any(isinstance(n.value, ast.Tuple) and isinstance(n.targets[0], ast.Tuple)
                   for n in of(nodes, ast.Assign))
    # (a tuple display: appended, in a display, a comprehension)
    made = any(isinstance(n.ctx, ast.Load) for n in of(nodes, ast.Tuple))
    if parallel:
        _Parallel().visit(tree)
    if not made:
        return parallel
    found = _Analysis(tree, None if parallel else nodes)
    widths = found.widths()
    if widths:
        elements = {p: widths[min(lists)] for p, lists in found.elements.items()
                    if min(lists) in widths}
        _Split(widths, elements, itertools.count()).visit(tree)
        fix_locations(tree)
    return parallel or bool(widths)


class _Parallel(ast.NodeTransformer):
    """``xs, vs = [], []`` as ``xs = []`` and ``vs = []``: new lists, each its own
    (a display reading none of the names assigned, so the order cannot matter)."""

    def visit_Assign(self, node):
        t, v = node.targets[0], node.value
        if len(node.targets) == 1 and isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) \
                and len(t.elts) == len(v.elts) and \
                all(isinstance(e, ast.Name) for e in t.elts) and \
                all(isinstance(e, (ast.List, ast.ListComp)) for e in v.elts):
            names = {e.id for e in t.elts}
            if len(names) == len(t.elts) and not any(
                    isinstance(x, ast.Name) and x.id in names for x in ast.walk(v)):
                return [ast.copy_location(ast.Assign(targets=[a], value=b), node)
                        for a, b in zip(t.elts, v.elts)]
        return node


def tuple_lists(tree) -> set:
    """The names `tree` makes lists of tuples of: appended a tuple display, or
    assigned a list display or comprehension of tuple displays (whether or not
    `split_lists` takes them)."""
    out = set()
    assigns = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "append" and isinstance(node.func.value, ast.Name) and \
                len(node.args) == 1 and _width(node.args[0]):
            out.add(node.func.value.id)
        elif isinstance(node, ast.Assign):
            assigns.append(node)
    while True:  # (``M = L + [(a, b)]``, ``M = L[1:]``: lists of tuples too)
        more = {t.id for a in assigns if _made_of_tuples(a.value, out)
                for t in a.targets if isinstance(t, ast.Name)} - out
        if not more:
            return out
        out |= more


def _made_of_tuples(v, lists) -> bool:
    """Is `v` a list of tuples (`lists`: the names known to hold one)?"""
    if isinstance(v, ast.ListComp):
        return bool(_width(v.elt))
    if isinstance(v, ast.List):
        return bool(v.elts) and all(_width(e) for e in v.elts)
    if isinstance(v, ast.Name):
        return v.id in lists
    if isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Slice):
        return _made_of_tuples(v.value, lists)
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and \
            v.func.id == "list" and len(v.args) == 1:
        return _made_of_tuples(v.args[0], lists)
    return isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and \
        (_made_of_tuples(v.left, lists) or _made_of_tuples(v.right, lists))


def _position(e):
    """The int a constant index is (``2``, ``-1``), or None."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = _position(e.operand)
        return None if inner is None else -inner
    return e.value if isinstance(e, ast.Constant) and type(e.value) is int else None


def _width(t):
    """k for a tuple display of k items with no ``*``, else None."""
    if isinstance(t, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in t.elts):
        return len(t.elts)
    return None


def _pure(e) -> bool:
    """An expression the rewrite may write once per list: no call, no ``:=``."""
    return not any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield,
                                  ast.YieldFrom, ast.Lambda)) for n in ast.walk(e))


def _called(node, parents, name, nargs=(1,)):
    """The call ``name(node, ...)`` `node` is the first argument of, or None."""
    call = parents.get(node)
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
            call.func.id == name and call.args and call.args[0] is node and \
            len(call.args) in nargs and not call.keywords:
        return call
    return None


def _method(node, parents, attr):
    """The call ``node.attr(...)``, or None."""
    parent = parents.get(node)
    call = parents.get(parent)
    if isinstance(parent, ast.Attribute) and parent.attr == attr and \
            isinstance(call, ast.Call) and call.func is parent and not call.keywords:
        return call
    return None


def _list_iterated(over):
    """The name ``L`` of ``L``, ``L[a:b]`` or ``reversed(L)``, or None."""
    if isinstance(over, ast.Call) and isinstance(over.func, ast.Name) and \
            over.func.id == "reversed" and len(over.args) == 1:
        over = over.args[0]
    if isinstance(over, ast.Subscript) and isinstance(over.slice, ast.Slice):
        over = over.value
    return over.id if isinstance(over, ast.Name) else None


def _iterated(node, parents):
    """The loop or comprehension iterating over `node` (also over ``node[a:b]``,
    ``reversed(node)``, ``enumerate(node[, start])``), its target and the
    expression it iterates; None where `node` is not so read."""
    over = node
    parent = parents.get(node)
    if isinstance(parent, ast.Subscript) and parent.value is node and \
            isinstance(parent.slice, ast.Slice) and _pure(parent.slice):
        over = parent
    elif _called(node, parents, "reversed") is not None:
        over = parents[node]
    elif _called(node, parents, "enumerate", (1, 2)) is not None:
        over = parents[node]
    loop = parents.get(over)
    if isinstance(loop, (ast.For, ast.comprehension)) and loop.iter is over:
        target = loop.target
        if isinstance(over, ast.Call) and over.func.id == "enumerate":
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return None
            target = target.elts[1]
        return loop, target, over
    return None


class _Analysis:
    """Which names are lists of tuples `split_lists` rewrites, and their k.

    Each name's assignments (`defs`) and reads (`reads`) are classified; a name
    qualifies when all are of the forms the module docstring lists, and the k they
    imply agree, across the lists made from one another."""

    def __init__(self, tree, nodes=None):
        """`nodes`: ``list(ast.walk(tree))``, where the caller has it (nothing here
        changes the tree)."""
        nodes = list(ast.walk(tree)) if nodes is None else nodes
        self.parents = {}
        for node in nodes:
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.bad = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef)) \
                    and node is not tree:
                self.bad |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                self.bad |= set(node.names)
        self.ks: dict = {}       # name -> the k its makes and reads give (0: any)
        self.links: dict = {}    # name -> the lists it is made from (one k for all)
        self.positions: dict = {}  # name -> the constant j of its ``L[i][j]``
        self.defined: set = set()
        self.elements: dict = {}  # p -> the list ``for p in L`` reads
        self.loose: set = set()
        for node in nodes:
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    self.store(node)
                elif isinstance(node.ctx, ast.Load):
                    self.load(node)
                else:
                    self.bad.add(node.id)
        self.element_names(tree)

    def need(self, name, k):
        if k is None:
            self.bad.add(name)
        else:
            self.ks.setdefault(name, set()).add(k)

    def store(self, node):
        n = node.id
        parent = self.parents.get(node)
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.target is node:
            self.loose.add(n)  # (bad, unless it is a loop's element `element_names` takes)
            return
        if not (isinstance(parent, ast.Assign) and parent.targets == [node]):
            self.bad.add(n)
            return
        self.defined.add(n)
        v = parent.value
        if isinstance(v, ast.List):
            ks = {_width(e) for e in v.elts}
            self.need(n, ks.pop() if len(ks) == 1 else (0 if not ks else None))
        elif isinstance(v, ast.ListComp):
            self.need(n, _width(v.elt) if self.lowerable(v) else None)
        elif isinstance(v, ast.Name):
            self.links.setdefault(n, set()).add(v.id)
        elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and \
                isinstance(v.slice, ast.Slice) and _pure(v.slice):
            self.links.setdefault(n, set()).add(v.value.id)
        elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and \
                v.func.id == "list" and len(v.args) == 1 and not v.keywords and \
                isinstance(v.args[0], ast.Name):
            self.links.setdefault(n, set()).add(v.args[0].id)
        elif isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and \
                all(isinstance(x, (ast.Name, ast.List, ast.ListComp)) for x in (v.left, v.right)):
            for x in (v.left, v.right):  # (``M + N``, ``M + [(a, b)]``, ``[... for ...] + M``)
                if isinstance(x, ast.Name):
                    self.links.setdefault(n, set()).add(x.id)
                elif isinstance(x, ast.ListComp):
                    self.need(n, _width(x.elt) if self.lowerable(x) else None)
                else:
                    ks = {_width(e) for e in x.elts}
                    self.need(n, ks.pop() if len(ks) == 1 else (0 if not ks else None))
        else:
            self.bad.add(n)

    def lowerable(self, comp: ast.ListComp) -> bool:
        """A comprehension `_Split` lowers to a loop: plain generators whose
        variables no scope inside it binds again."""
        bound = set()
        for g in comp.generators:
            if g.is_async:
                return False
            bound |= {x.id for x in ast.walk(g.target) if isinstance(x, ast.Name)}
        for node in ast.walk(comp):
            if node is not comp and isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                      ast.GeneratorExp, ast.Lambda)):
                inner = {x.id for x in ast.walk(node) if isinstance(x, ast.Name)
                         and isinstance(x.ctx, ast.Store)}
                if isinstance(node, ast.Lambda):
                    inner |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
                if inner & bound:
                    return False
        return True

    def load(self, node):
        n, parents = node.id, self.parents
        parent = parents.get(node)
        call = _method(node, parents, "append")
        if call is not None:
            ok = len(call.args) == 1 and isinstance(parents.get(call), ast.Expr)
            self.need(n, _width(call.args[0]) if ok else None)
            return
        call = _method(node, parents, "pop")
        if call is not None:
            user = parents.get(call)
            if call.args:
                self.bad.add(n)
            elif isinstance(user, ast.Expr):
                self.need(n, 0)
            elif isinstance(user, ast.Assign) and user.value is call and len(user.targets) == 1:
                self.need(n, _width(user.targets[0]))
            else:
                self.bad.add(n)
            return
        if _called(node, parents, "len") is not None:
            self.need(n, 0)
            return
        loop = _iterated(node, parents)
        if loop is not None:
            _, target, _ = loop
            if isinstance(target, ast.Name):
                self.elements.setdefault(target.id, set()).add(n)
                self.need(n, 0)
            else:
                self.need(n, _width(target) if all(
                    isinstance(e, ast.Name) for e in target.elts) else None)
            return
        if isinstance(parent, ast.Subscript) and parent.value is node and \
                not isinstance(parent.slice, ast.Slice) and _pure(parent.slice):
            outer = parents.get(parent)
            if isinstance(outer, ast.Subscript) and outer.value is parent and \
                    _position(outer.slice) is not None and isinstance(outer.ctx, ast.Load):
                self.positions.setdefault(n, set()).add(_position(outer.slice))
                self.need(n, 0)
                return
            if isinstance(outer, ast.Assign) and outer.value is parent and \
                    len(outer.targets) == 1:
                self.need(n, _width(outer.targets[0]))
                return
        # (the source of another list of tuples: ``M = L``, ``list(L)``, ``L[a:b]``, ``L + N``)
        user = parent
        if isinstance(parent, ast.Subscript) or _called(node, parents, "list") is not None or \
                isinstance(parent, ast.BinOp):
            user = parents.get(parent)
        if isinstance(user, ast.Assign) and len(user.targets) == 1 and \
                isinstance(user.targets[0], ast.Name) and user.value in (node, parent):
            return  # (`store` links the two; `widths` takes or drops them together)
        self.loose.add(n)  # (bad, unless it is a loop's element `element_names` takes)

    def element_names(self, tree):
        """``for p in L`` with `p` read only as ``p[j]`` or unpacked, and assigned
        nowhere else: `p`'s k is `L`'s; any other `p` makes `L` not qualify."""
        for p, lists in list(self.elements.items()):
            ok = p not in self.bad and p not in self.defined
            self.loose.discard(p)
            first = min(lists)
            for other in lists - {first}:  # (one name over several lists: one k)
                self.links.setdefault(other, set()).add(first)
            for node in ast.walk(tree):
                if not ok:
                    break
                if not (isinstance(node, ast.Name) and node.id == p):
                    continue
                parent = self.parents.get(node)
                if isinstance(node.ctx, ast.Store):
                    loop = parent
                    ok = isinstance(loop, (ast.For, ast.comprehension)) and \
                        loop.target is node and _list_iterated(loop.iter) in lists
                elif isinstance(parent, ast.Subscript) and parent.value is node and \
                        _position(parent.slice) is not None and isinstance(parent.ctx, ast.Load):
                    for lst in lists:
                        self.positions.setdefault(lst, set()).add(_position(parent.slice))
                elif isinstance(parent, ast.Assign) and parent.value is node and \
                        len(parent.targets) == 1 and _width(parent.targets[0]):
                    for lst in lists:
                        self.need(lst, _width(parent.targets[0]))
                else:
                    ok = False
            if not ok:
                self.bad |= lists
                del self.elements[p]
        self.bad |= self.loose

    def widths(self) -> dict:
        """{name: k} of the lists that qualify."""
        names = set(self.ks) | set(self.links)
        for sources in self.links.values():
            names |= sources
        groups = []  # (lists made from one another: rewritten together, with one k)
        for n in sorted(names):
            group = {n} | self.links.get(n, set())
            for g in [g for g in groups if g & group]:
                groups.remove(g)
                group |= g
            groups.append(group)
        out = {}
        for group in groups:
            if not all(n in self.defined and n not in self.bad for n in group):
                continue
            ks = set().union(*(self.ks.get(n, set()) for n in group)) - {0}
            if len(ks) != 1:
                continue
            (k,) = ks
            if k < 2 or not all(-k <= j < k for n in group
                                for j in self.positions.get(n, ())):
                continue
            out.update({n: k for n in group})
        return out


class _Split(ast.NodeTransformer):
    """Rewrites the lists `widths` names into one list per position, and the loop
    variables `elements` names into one variable per position."""

    def __init__(self, widths, elements, counter):
        self.widths, self.elements, self.counter = widths, elements, counter

    def mine(self, e):
        return e.id if isinstance(e, ast.Name) and e.id in self.widths else None

    @staticmethod
    def part(name, j, ctx=ast.Load):
        return ast.Name(id=f"{name}%{j}", ctx=ctx())

    def parts(self, name):
        return [self.part(name, j) for j in range(self.widths[name])]

    def visit_Assign(self, node):
        t = node.targets[0] if len(node.targets) == 1 else None
        if self.mine(t) is not None:
            return self.made(t.id, node)
        v = node.value
        if isinstance(v, ast.Subscript) and self.mine(v.value) is not None and \
                not isinstance(v.slice, ast.Slice):
            self.generic_visit(v)
            node.value = ast.Tuple(elts=[ast.Subscript(value=p, slice=copy.deepcopy(v.slice),
                                                       ctx=ast.Load())
                                         for p in self.parts(v.value.id)], ctx=ast.Load())
            return node
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and \
                v.func.attr == "pop" and self.mine(v.func.value) is not None:
            pops = [self.method(p, "pop", []) for p in self.parts(v.func.value.id)]
            if isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts):
                # (one ``a = L%0.pop()`` per list: a pop is a statement of its own)
                return [ast.copy_location(ast.Assign(targets=[e], value=pop), node)
                        for e, pop in zip(t.elts, pops)]
            node.value = ast.Tuple(elts=pops, ctx=ast.Load())
            return node
        if isinstance(v, ast.Name) and v.id in self.elements:
            node.value = ast.Tuple(elts=[self.part(v.id, j) for j in
                                         range(self.elements[v.id])], ctx=ast.Load())
            return node
        return self.generic_visit(node)

    @staticmethod
    def method(obj, attr, args):
        return ast.Call(func=ast.Attribute(value=obj, attr=attr, ctx=ast.Load()),
                        args=args, keywords=[])

    def made(self, name, node):
        """The k assignments (or the loop) making `name`'s lists."""
        k = self.widths[name]
        v = node.value

        def each(values):
            return [ast.copy_location(ast.Assign(targets=[self.part(name, j, ast.Store)],
                                                 value=x), node) for j, x in enumerate(values)]

        if isinstance(v, ast.List):
            self.generic_visit(v)
            return each([ast.List(elts=[e.elts[j] for e in v.elts], ctx=ast.Load())
                         for j in range(k)])
        if isinstance(v, ast.ListComp):
            return each([ast.List(elts=[], ctx=ast.Load()) for _ in range(k)]) + \
                [self.lowered(name, v, node)]
        if isinstance(v, ast.Name):
            return each(self.parts(v.id))
        if isinstance(v, ast.Subscript):
            return each([ast.Subscript(value=p, slice=copy.deepcopy(v.slice), ctx=ast.Load())
                         for p in self.parts(v.value.id)])
        if isinstance(v, ast.Call):  # list(M)
            return each([ast.Call(func=ast.Name(id="list", ctx=ast.Load()), args=[p],
                                  keywords=[]) for p in self.parts(v.args[0].id)])
        made = []  # (a comprehension among the operands: lowered first, in order)

        def side(x):
            if isinstance(x, ast.Name):
                return self.parts(x.id)
            if isinstance(x, ast.ListComp):
                part = f"{name}%c{next(self.counter)}"
                made.extend(ast.copy_location(ast.Assign(
                    targets=[ast.Name(id=f"{part}%{j}", ctx=ast.Store())],
                    value=ast.List(elts=[], ctx=ast.Load())), node) for j in range(k))
                self.widths[part] = k
                made.append(self.lowered(part, x, node))
                return self.parts(part)
            x = self.visit(x)
            return [ast.List(elts=[e.elts[j] for e in x.elts], ctx=ast.Load())
                    for j in range(k)]

        left, right = side(v.left), side(v.right)
        return made + each([ast.BinOp(left=a, op=ast.Add(), right=b)
                            for a, b in zip(left, right)])

    def lowered(self, name, comp, node):
        """``[(a, b) for x in xs if c]`` as the loop appending ``a`` and ``b`` to
        `name`'s lists, its variables given names of their own."""
        comp = copy.deepcopy(comp)
        renames = {}
        for g in comp.generators:
            for x in ast.walk(g.target):
                if isinstance(x, ast.Name):
                    renames.setdefault(x.id, f"{x.id}%{name}{next(self.counter)}")
        for x in ast.walk(comp):
            if isinstance(x, ast.Name) and x.id in renames:
                x.id = renames[x.id]
        comp = self.visit(comp)  # (the lists it reads are split too)
        body = [ast.Expr(value=self.method(self.part(name, j), "append", [e]))
                for j, e in enumerate(comp.elt.elts)]
        for g in reversed(comp.generators):
            for cond in reversed(g.ifs):
                body = [ast.If(test=cond, body=body, orelse=[])]
            body = [ast.For(target=g.target, iter=g.iter, body=body, orelse=[])]
        (loop,) = body
        for x in ast.walk(loop):
            if isinstance(x, (ast.stmt, ast.expr)):
                ast.copy_location(x, node) if not hasattr(x, "lineno") else None
        return ast.copy_location(loop, node)

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                self.mine(call.func.value) is not None:
            name = call.func.value.id
            self.generic_visit(node)
            if call.func.attr == "append":
                values = call.args[0].elts
                return [ast.copy_location(ast.Expr(value=self.method(p, "append", [e])), node)
                        for p, e in zip(self.parts(name), values)]
            return [ast.copy_location(ast.Expr(value=self.method(p, "pop", [])), node)
                    for p in self.parts(name)]
        return self.generic_visit(node)

    def visit_For(self, node):
        self.iterate(node)
        return self.generic_visit(node)

    def visit_comprehension(self, node):
        self.iterate(node)
        return self.generic_visit(node)

    def iterate(self, loop):
        """``for a, b in L`` (or over ``L[a:b]``, ``reversed(L)``, ``enumerate(L)``)
        reads the lists in step."""
        over = loop.iter
        wrap = None
        if isinstance(over, ast.Call) and isinstance(over.func, ast.Name) and \
                over.func.id in ("reversed", "enumerate") and over.args:
            wrap, over = over, over.args[0]
        inner = over.value if isinstance(over, ast.Subscript) else over
        name = self.mine(inner)
        if name is None:
            return
        parts = self.parts(name)
        if isinstance(over, ast.Subscript):
            parts = [ast.Subscript(value=p, slice=copy.deepcopy(over.slice), ctx=ast.Load())
                     for p in parts]
        if wrap is not None and wrap.func.id == "reversed":
            parts = [ast.Call(func=ast.Name(id="reversed", ctx=ast.Load()), args=[p],
                              keywords=[]) for p in parts]
        zipped = ast.Call(func=ast.Name(id="zip", ctx=ast.Load()), args=parts, keywords=[])
        if wrap is not None and wrap.func.id == "enumerate":
            wrap.args[0] = zipped
            zipped = wrap
            target = loop.target.elts[1]
        else:
            target = loop.target
        if isinstance(target, ast.Name) and target.id in self.elements:
            tuple_target = ast.Tuple(elts=[self.part(target.id, j, ast.Store) for j in
                                           range(self.elements[target.id])], ctx=ast.Store())
            if target is loop.target:
                loop.target = tuple_target
            else:
                loop.target.elts[1] = tuple_target
        loop.iter = ast.copy_location(zipped, loop.iter)

    def visit_Subscript(self, node):
        inner = node.value
        if isinstance(inner, ast.Subscript) and self.mine(inner.value) is not None and \
                _position(node.slice) is not None and not isinstance(inner.slice, ast.Slice):
            self.generic_visit(inner)
            k = self.widths[inner.value.id]
            return ast.copy_location(ast.Subscript(
                value=self.part(inner.value.id, _position(node.slice) % k),
                slice=inner.slice, ctx=node.ctx), node)
        if isinstance(inner, ast.Name) and inner.id in self.elements and \
                _position(node.slice) is not None:
            k = self.elements[inner.id]
            return ast.copy_location(self.part(inner.id, _position(node.slice) % k), node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and self.mine(node.args[0]) is not None:
            node.args = [self.part(node.args[0].id, 0)]
        return node
