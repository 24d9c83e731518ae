"""higher_order: the builtins that take a function, as the comprehensions they compute.

Contract
--------
`lower(tree, meaning)` rewrites, in place, the calls of the function `tree` (an
``ast.FunctionDef`` as `parse` reads it) that hand a function to a builtin, before
`structures` puts local functions in place and before the checks of `parse`, so
what is left is a comprehension the later stages lower to loops
(`expand`). ``meaning(name)`` is the object a free name means (None for none);
a call is rewritten only where its builtin's name means the builtin (not a local
name, nor a global of the same name).

* ``filter(f, xs)`` is the generator ``(item for item in xs if f(item))`` (of a
  ``lambda``, its body the condition; ``filter(None, xs)`` the items that are true),
  for the `f` ``map`` takes.
* ``map(f, xs)`` is the generator ``(f(item) for item in xs)``, ``map(f, xs, ys)``
  ``(f(item, item2) for item, item2 in zip(xs, ys))`` (as lazy as ``map``, and it
  stops at the shortest); a ``lambda`` is its body, its parameters the
  comprehension's variables. `f` is a name or an attribute chain (``math.sin``,
  ``np.exp``) that is not a local variable, a local ``def`` (or a name given a
  ``lambda``), a function passed as an argument, or a ``lambda`` of as many
  positional parameters as there are sequences; any other `f` (a local variable
  holding a function: ``key=xs.__getitem__``) is left as written.
* ``min(xs, key=f)``, ``max(xs, key=f)`` and ``sorted(xs, key=f)`` (with
  ``reverse=`` and ``default=`` too) get, in place of the function, the generator
  of its values: ``key=(f(item) for item in [])``, marked with `KEY`; `expand`
  iterates it over the items once they are computed (`key_template`). The keys
  only order the items: no derivative goes through them.
* ``list(zip(xs, ys))`` and ``list(enumerate(xs))`` (`listed_pairs`, before `pairs`):
  where a loop goes through it, the iterator; given to a name, the list
  comprehension of its tuples, ``[(item, item2) for item, item2 in zip(xs, ys)]``;
  and ``p = dict(zip(names, arrays))`` the dict comprehension
  ``{item: item2 for item, item2 in zip(names, arrays)}``.
* ``functools.reduce(f, xs[, init])`` gets, in place of its function, the generator
  ``(body for (a, b) in [])`` of the lambda ``lambda a, b: body`` (or ``(f(item,
  item2) for (item, item2) in [])`` of a function), marked with `REDUCER`; `expand`
  folds the items with it (`reducer_template`).

The names it adds are ``item``, ``item2``... not otherwise used in the function.
Imports only the standard library.
"""

from __future__ import annotations

import ast
import builtins
import functools

from .tree_index import Nodes, of

KEY = "s2sad_key_of"  # the attribute marking a key's generator (`key_template`)
REDUCER = "s2sad_reducer"  # and a function `functools.reduce` folds with (`reducer_template`)

_FOLDS = ("min", "max", "sorted")


def lower(tree: ast.FunctionDef, meaning, passed=(), nodes=None) -> bool:
    """See the module docstring. `passed`: the parameters that hold a function the
    derivative is specialised on (a function passed as an argument); `nodes`:
    ``list(ast.walk(tree))``, where the caller has it. Whether it may have rewritten
    anything."""
    if nodes is None:
        nodes = Nodes(tree)
    if not any(isinstance(n.func, ast.Name) and n.func.id in ("map", "filter", "reduce") + _FOLDS
               or isinstance(n.func, ast.Attribute) and n.func.attr == "reduce"
               for n in of(nodes, ast.Call)):
        return False
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    names = {n.id for n in nodes if isinstance(n, ast.Name)} | params
    local = {n.id for n in nodes if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)} | params
    # the local names that are functions: a ``def`` inside, ``f = lambda ...``
    functions = {n.name for n in nodes if isinstance(n, ast.FunctionDef) and n is not tree} | {
        n.targets[0].id for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Lambda)}
    callable_ = (local - functions - set(passed))
    _Lowering(names, local, meaning, callable_).visit(tree)
    return True


def listed_pairs(tree: ast.FunctionDef, meaning, nodes) -> bool:
    """``list(zip(xs, ys))`` and ``list(enumerate(xs))`` where a loop or a
    comprehension goes through it, as the iterator (the same items), and given to a
    name, as the list comprehension of its tuples (``pairs = [(item, item2) for
    item, item2 in zip(xs, ys)]``), which `pairs` then splits into one list per
    position. Run before `pairs`. Whether it may have rewritten anything."""
    if not any(isinstance(n.func, ast.Name) and n.func.id in ("list", "dict")
               for n in of(nodes, ast.Call)):
        return False
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    local = {n.id for n in nodes if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)} | params
    low = _Lowering({n.id for n in nodes if isinstance(n, ast.Name)} | params, local, meaning,
                    set())
    changed = False
    for n in nodes:  # (``for i, w in reversed(list(enumerate(ws)))``: the list named first)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(n, field, None)
            for k in range(len(block) - 1, -1, -1) if isinstance(block, list) else ():
                s = block[k]
                if not isinstance(s, ast.For) or low.listed(s.iter, s.iter) is not None:
                    continue
                for call, name in _wrapped_lists(low, s.iter):
                    block.insert(k, ast.copy_location(ast.Assign(
                        targets=[ast.Name(id=name, ctx=ast.Store())],
                        value=low.listed(call, call)), s))
                    changed = True
    for n in nodes:
        if isinstance(n, (ast.For, ast.comprehension)) and low.listed(n.iter, n.iter):
            n.iter, changed = n.iter.args[0], True
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(
                n.targets[0], ast.Name):
            got = low.listed(n.value, n.value)
            if got is not None:
                n.value, changed = got, True
        for field, value in ast.iter_fields(n):  # (``dict(zip(...))`` wherever it is)
            if isinstance(value, ast.expr) and (got := low.dicted(value)) is not None:
                setattr(n, field, got)
                changed = True
            elif isinstance(value, list):
                for i, x in enumerate(value):
                    if isinstance(x, ast.expr) and (got := low.dicted(x)) is not None:
                        value[i], changed = got, True
    return changed


def _wrapped_lists(low, it) -> list:
    """The ``list(zip(...))`` and ``list(enumerate(...))`` inside the builtins that
    wrap a loop's sequence (``enumerate(reversed(list(zip(Ws, hs))))``), each
    replaced in place by a new name: ``(call, name)`` pairs, innermost last."""
    out = []
    if isinstance(it, ast.Call) and any(low.builtin(it.func, b) for b in (
            "reversed", "enumerate", "zip")):
        for i, a in enumerate(it.args):
            if low.listed(a, a) is not None:
                name = low.fresh("pairs")
                out.append((a, name))
                it.args[i] = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), a)
            else:
                out += _wrapped_lists(low, a)
    return out


def reducer_template(node):
    """The generator `lower` put in place of the function ``functools.reduce`` is
    given (its loop's target the pair of the function's parameters), or None."""
    return node if isinstance(node, ast.GeneratorExp) and getattr(node, REDUCER, False) \
        else None


def key_template(node):
    """The generator `lower` put in place of a ``key=`` function (its first loop over
    ``[]``), or None."""
    return node if isinstance(node, ast.GeneratorExp) and getattr(node, KEY, False) else None


class _Lowering(ast.NodeTransformer):
    def __init__(self, names: set, local: set, meaning, values: set):
        self.names = names
        self.local = local
        self.meaning = meaning
        self.values = values  # local names that are values, not functions it knows

    def builtin(self, func, name) -> bool:
        return isinstance(func, ast.Name) and func.id == name and name not in self.local \
            and self.meaning(name) is getattr(builtins, name)

    def fresh(self, base="item") -> str:
        k = 1
        while True:
            name = base if k == 1 else f"{base}{k}"
            if name not in self.names:
                self.names.add(name)
                return name
            k += 1

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.builtin(node.func, "map") and len(node.args) >= 2 and not node.keywords \
                and not any(isinstance(a, ast.Starred) for a in node.args):
            got = self.mapped(node.args[0], node.args[1:], node)
            return node if got is None else got
        if self.builtin(node.func, "filter") and len(node.args) == 2 and not node.keywords \
                and not any(isinstance(a, ast.Starred) for a in node.args):
            got = self.filtered(node.args[0], node.args[1], node)
            return node if got is None else got
        if self.reduce(node.func) and 2 <= len(node.args) <= 3 and not node.keywords \
                and not any(isinstance(a, ast.Starred) for a in node.args):
            got = self.mapped(node.args[0], [ast.List(elts=[], ctx=ast.Load())] * 2,
                              node.args[0], zipped=False)
            if got is not None:
                setattr(got, REDUCER, True)
                node.args[0] = got
            return node
        if any(self.builtin(node.func, b) for b in _FOLDS):
            for k in node.keywords:
                if k.arg == "key" and not (isinstance(k.value, ast.Constant)
                                           and k.value.value is None):
                    got = self.mapped(k.value, [ast.List(elts=[], ctx=ast.Load())], k.value)
                    if got is not None:
                        setattr(got, KEY, True)
                        k.value = got
        return node

    def listed(self, call, at):
        """``list(zip(xs, ys))`` or ``list(enumerate(xs))`` (`call`): the list of its
        tuples as a comprehension, ``[(item, item2) for item, item2 in zip(xs,
        ys)]``; None for another call."""
        if not (isinstance(call, ast.Call) and self.builtin(call.func, "list") and len(
                call.args) == 1 and not call.keywords):
            return None
        it = call.args[0]
        if not (isinstance(it, ast.Call) and any(self.builtin(it.func, b) for b in (
                "zip", "enumerate")) and it.args and not any(
                isinstance(a, ast.Starred) for a in it.args)) or it.keywords and not (
                self.builtin(it.func, "enumerate") and len(it.keywords) == 1 and
                it.keywords[0].arg == "start"):
            return None
        n = 2 if it.func.id == "enumerate" else len(it.args)
        names = [self.fresh() for _ in range(n)]
        comp = ast.ListComp(elt=ast.Tuple(elts=[ast.Name(id=v, ctx=ast.Load())
                                                for v in names], ctx=ast.Load()),
                            generators=[ast.comprehension(target=ast.Tuple(elts=[
                                ast.Name(id=v, ctx=ast.Store()) for v in names],
                                ctx=ast.Store()), iter=it, ifs=[], is_async=0)])
        for node in ast.walk(comp):
            if isinstance(node, ast.expr) and not hasattr(node, "lineno"):
                ast.copy_location(node, at)
        return comp

    def dicted(self, call):
        """``dict(zip(keys, values))`` (`call`) as the comprehension ``{item: item2
        for item, item2 in zip(keys, values)}``, which `structures` builds as a dict
        display where it knows the keys; None for another call."""
        if not (isinstance(call, ast.Call) and self.builtin(call.func, "dict") and len(
                call.args) == 1 and not call.keywords):
            return None
        it = call.args[0]
        if not (isinstance(it, ast.Call) and self.builtin(it.func, "zip") and len(it.args) == 2
                and not it.keywords and not any(isinstance(a, ast.Starred) for a in it.args)):
            return None
        k, v = self.fresh(), self.fresh()
        comp = ast.DictComp(key=ast.Name(id=k, ctx=ast.Load()), value=ast.Name(id=v, ctx=ast.Load()),
                            generators=[ast.comprehension(target=ast.Tuple(elts=[
                                ast.Name(id=k, ctx=ast.Store()), ast.Name(id=v, ctx=ast.Store())],
                                ctx=ast.Store()), iter=it, ifs=[], is_async=0)])
        for node in ast.walk(comp):
            if isinstance(node, ast.expr) and not hasattr(node, "lineno"):
                ast.copy_location(node, call)
        return comp

    def reduce(self, func) -> bool:
        """Does `func` name ``functools.reduce`` (``reduce`` imported from it, or the
        module's attribute)?"""
        if isinstance(func, ast.Name):
            return func.id not in self.local and self.meaning(func.id) is functools.reduce
        return isinstance(func, ast.Attribute) and func.attr == "reduce" and \
            isinstance(func.value, ast.Name) and func.value.id not in self.local and \
            self.meaning(func.value.id) is functools

    def filtered(self, f, seq, at):
        """The generator of the items of `seq` for which `f` is true (``f`` None: the
        items that are true), or None where `mapped` knows no call of `f`."""
        if isinstance(f, ast.Constant) and f.value is None:
            f = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=self.fresh())],
                                              kwonlyargs=[], kw_defaults=[], defaults=[]),
                           body=None)
            f.body = ast.Name(id=f.args.args[0].arg, ctx=ast.Load())
        gen = self.mapped(f, [seq], at)
        if gen is None:
            return None
        loop = gen.generators[0]
        loop.ifs = [gen.elt]
        gen.elt = ast.copy_location(ast.Name(id=loop.target.id, ctx=ast.Load()), at)
        return gen

    def mapped(self, f, seqs, at, zipped=True):
        """The generator of `f`'s values over the items of `seqs` (None where `f` is
        not a function this module knows how to call there). Without `zipped`, its
        loop's target is the tuple of the parameters, over `seqs[0]` (a template:
        `reducer_template`)."""
        if isinstance(f, ast.Lambda):
            a = f.args
            params = a.posonlyargs + a.args
            if a.vararg or a.kwarg or a.kwonlyargs or len(params) != len(seqs):
                return None
            targets = [ast.Name(id=p.arg, ctx=ast.Store()) for p in params]
            elt = f.body
        elif _root(f) is not None and _root(f) not in self.values:
            names = [self.fresh() for _ in seqs]
            targets = [ast.Name(id=n, ctx=ast.Store()) for n in names]
            elt = ast.Call(func=f, args=[ast.Name(id=n, ctx=ast.Load()) for n in names],
                           keywords=[])
        else:
            return None
        if len(seqs) == 1:
            target, seq = targets[0], seqs[0]
        elif not zipped:
            target, seq = ast.Tuple(elts=targets, ctx=ast.Store()), seqs[0]
        else:
            if not self.builtin(ast.Name(id="zip", ctx=ast.Load()), "zip"):
                return None
            target = ast.Tuple(elts=targets, ctx=ast.Store())
            seq = ast.Call(func=ast.Name(id="zip", ctx=ast.Load()), args=list(seqs),
                           keywords=[])
        gen = ast.GeneratorExp(elt=elt, generators=[ast.comprehension(
            target=target, iter=seq, ifs=[], is_async=0)])
        for n in ast.walk(gen):
            if isinstance(n, (ast.expr, ast.stmt)) and not hasattr(n, "lineno"):
                ast.copy_location(n, at)
        return gen


def _root(node):
    """The name an attribute chain (``np.exp``) starts from, or a name's own; None
    for another expression."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
