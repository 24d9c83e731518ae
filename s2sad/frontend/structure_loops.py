"""structure_loops: the loops `structures` rewrites.

A ``for`` over a container (or `enumerate`, `zip`, `reversed`, ``.items()`` of
containers, or ``range(len(p))`` indexing one) is unrolled, its variable bound to
each item in turn (`LoopRewrites.static_items`). Any other loop stays a loop: the
containers its body assigns to names get fresh variables each iteration starts from
and ends in (`carry_into`, `carry_on`, also at a ``break`` and a ``continue``), and
the constants its body changes are forgotten before it.

`LoopRewrites` is a mixin of `structures._Rewriter`: its methods read and change the
rewriter's state (`env`, `consts`, `carried`, `pending`). Imports
`structure_values` only.
"""

from __future__ import annotations

import ast
import copy

from .structure_values import DICT_METHODS, Const, Node, assign, called, node_of


class LoopRewrites:
    """The loop statements of `structures._Rewriter` (see the module docstring)."""

    def stmt_For(self, s) -> list:
        items = self.static_items(s.iter, s)
        if items is None:
            return self.loop(s)
        if _breaks(s.body):
            raise self.refuse(s, "s2sad unrolls a loop over a container and cannot `break` "
                                 "or `continue` inside it yet", hint="Use an `if` around the "
                                                                     "rest of the body.")
        out = []
        for item in items:
            out.extend(self.bind(s.target, item, s))
            out.extend(self.block(copy.deepcopy(s.body)))
        out.extend(self.block(s.orelse))
        return out

    def stmt_While(self, s) -> list:
        return self.loop(s)

    def loop(self, s) -> list:
        if isinstance(s, ast.For):
            s.iter = self.expr(s.iter)
            for n in ast.walk(s.target):
                if isinstance(n, ast.Name):
                    self.forget_quietly(n.id, s)
        pre, carried = self.carry_into(s)
        if isinstance(s, ast.While):
            before = len(self.pending)
            s.test = self.expr(s.test)
            if len(self.pending) != before:
                raise self.refuse(s, "s2sad cannot pass a container of parameters to a "
                                     "function in a `while` condition",
                                  hint="Compute the condition at the end of the body.")
        self.loop_depth += 1
        self.carried.append(carried)
        body = self.block(s.body)
        if not body or not isinstance(body[-1], (ast.Break, ast.Continue, ast.Return)):
            body.extend(self.carry_on(s))
        s.body = body or [ast.Pass()]
        self.carried.pop()
        self.loop_depth -= 1
        for name, node in carried.items():
            self.env[name] = node
        s.orelse = self.block(s.orelse)
        return pre + [s]

    def carry_into(self, s) -> tuple:
        pre, carried = self.carry_containers(s)
        assigned = {n.id for n in ast.walk(ast.Module(body=s.body, type_ignores=[]))
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for name in assigned:  # (a constant before the loop may change in it)
            self.consts.pop(name, None)
        return pre, carried

    def carry_containers(self, s) -> tuple:
        """Before the loop `s`: each name holding a container that the loop's body
        assigns gets a container of fresh variables (``state%h%c1``) that every
        iteration starts from and ends in: the statements that fill it, and
        {name: container}."""
        assigned = {n.id for n in ast.walk(ast.Module(body=s.body, type_ignores=[]))
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        pre, carried = [], {}
        for name in sorted(assigned & self.env.keys()):
            node = self.env[name]
            self.fresh += 1
            tag = self.fresh
            fresh = node_of(node.spec(), iter([self.slot(name, f"c{tag}_{i}")
                                               for i in range(len(node.leaves()))]))
            fresh.owned = True
            pre.extend(assign(new, ast.Name(id=old, ctx=ast.Load()), s)
                       for new, old in zip(fresh.leaves(), node.leaves()))
            self.env[name] = carried[name] = fresh
        return pre, carried

    def carry_on(self, s) -> list:
        """Where an iteration of the innermost loop ends (its body's end, a
        `continue`, a `break`): the containers it carries put back in its variables."""
        if not self.carried:
            return []
        out = []
        for name, node in self.carried[-1].items():
            now = self.env.get(name)
            if now is node:
                continue
            if not isinstance(now, Node) or now.spec() != node.spec():
                raise self.refuse(s, f"`{name}` holds a container of one structure before "
                                     "this loop and of another, or none, after an iteration",
                                  hint="Give it the same keys in every iteration.")
            out.extend(assign(new, ast.Name(id=old, ctx=ast.Load()), s)
                       for new, old in zip(node.leaves(), now.leaves()) if new != old)
        return out

    def stmt_Break(self, s) -> list:
        return self.carry_on(s) + [s]

    def stmt_Continue(self, s) -> list:
        return self.carry_on(s) + [s]

    def static_items(self, e, s):
        """What a `for` over `e` binds, one entry per iteration, where `e` is a
        container or built of one (``enumerate``, ``zip``, ``reversed``,
        ``.items()``...) or ``range(len(p))`` of known bounds whose body indexes a
        container by the loop's variable; else None (an ordinary loop)."""
        got = self.value(e, [], probe=True)
        if isinstance(got, Node):
            items = got.iteration()
            if items is None:
                raise self.refuse(e, f"a {got.type.__name__} is not iterable")
            return items
        if not isinstance(e, ast.Call) or e.keywords and not called(e, "enumerate"):
            return None
        if isinstance(e.func, ast.Attribute) and e.func.attr in DICT_METHODS and not e.args:
            base = self.value(e.func.value, [], probe=True)
            if isinstance(base, Node) and base.form == "dict":
                keys = [Const(k) for k in base.keys]
                return {"keys": keys, "values": list(base.children),
                        "items": list(zip(keys, base.children))}[e.func.attr]
            return None
        if called(e, "enumerate") and e.args:
            inner = self.static_items(e.args[0], s)
            start = self.static(e.keywords[0].value if e.keywords else e.args[1]) \
                if len(e.args) + len(e.keywords) == 2 else Const(0)
            if inner is None or start is None:
                return None
            return [(Const(start.value + i), x) for i, x in enumerate(inner)]
        if called(e, "zip") and e.args:
            parts = [self.static_items(a, s) for a in e.args]
            if any(p is None for p in parts):
                if any(p is not None for p in parts):
                    raise self.refuse(e, "s2sad zips a container of parameters with other "
                                         "containers or ranges it knows the length of",
                                      hint="Index the other sequence by the position: for "
                                           "i, p in enumerate(params): x = xs[i].")
                return None
            return list(zip(*parts))
        if called(e, "reversed") and len(e.args) == 1:
            inner = self.static_items(e.args[0], s)
            return None if inner is None else inner[::-1]
        if called(e, "range"):
            bounds = [self.static(a) for a in e.args]
            if any(b is None for b in bounds) or not _indexes_container(self, s):
                return None
            return [Const(i) for i in range(*(b.value for b in bounds))]
        return None


def _breaks(body) -> bool:
    for s in body:
        for n in ast.walk(s) if not isinstance(s, (ast.For, ast.While)) else [s]:
            if isinstance(n, (ast.Break, ast.Continue)):
                return True
        if isinstance(s, (ast.For, ast.While)):
            continue
    return False


def _indexes_container(r, s: ast.For) -> bool:
    """Does the body of the range loop `s` index a container by its variable?"""
    if not isinstance(s.target, ast.Name):
        return False
    var = s.target.id
    for n in ast.walk(ast.Module(body=s.body, type_ignores=[])):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and \
                n.slice.id == var and isinstance(r.value(n.value, [], probe=True), Node):
            return True
    return False
