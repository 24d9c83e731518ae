"""structure_loops: the loops `structures` rewrites.

A ``for`` over a container (or `enumerate`, `zip`, `reversed`, ``.items()`` of
containers, or a ``range`` of bounds known here or a display whose body reads a
container by a key made of the loop's variable, ``p[f"W{i}"]``, itself or in a
function it passes the variable to) is unrolled, its variable bound to
each item in turn (`LoopRewrites.static_items`). Any other loop stays a loop: the
containers its body assigns to names get fresh variables each iteration starts from
and ends in (`carry_into`, `carry_on`, also at a ``break`` and a ``continue``), and
the constants its body changes are forgotten before it and after it; a name holding no container
before the loop that the body makes one (``carry, h = step(carry, x)``, `step` put in
place) is built in its variable where each iteration ends (`carry_on`, `built`), as
the next iteration and the code after the loop read it, where the body reads it
before assigning it or it is a tuple or list. A comprehension over values known only
at run time that passes a container to a function of several lines is written as
such a loop of appends (`looped_comprehension`).

`LoopRewrites` is a mixin of `structures._Rewriter`: its methods read and change the
rewriter's state (`env`, `consts`, `carried`, `pending`). Imports
`structure_values` and `errors` only.
"""

from __future__ import annotations

import ast
import builtins
import copy

from .. import ir
from ..errors import S2SADError
from .function_loops import function_items, named_functions
from .structure_values import (DICT_METHODS, Const, Node, assign, called, located, node_of,
                               own_names)


# The most iterations of a loop over a ``range`` s2sad unrolls to read containers by
# keys made of its variable: a longer one stays a loop, and such a key is refused
UNROLLED = 1000


class LoopRewrites:
    """The loop statements of `structures._Rewriter` (see the module docstring)."""

    def stmt_For(self, s) -> list:
        out = []
        if isinstance(s.iter, ast.Tuple) and getattr(s.iter, "container", False):
            # (``for seq in (xs, vs)``, lists among them: `mark_list_tuples`)
            items = self.value(s.iter, out).iteration()
        else:
            items = self.static_items(s.iter, s)
        if items is None:
            return self.loop(s)
        if _breaks(s.body):
            raise self.refuse(s, "s2sad unrolls a loop over a container and cannot `break` "
                                 "or `continue` inside it yet", hint="Use an `if` around the "
                                                                     "rest of the body.")
        for item in items:
            body = copy.deepcopy(s.body)
            target, item = named_functions(self, s.target, item, body, s)
            late = [(t, x) for t, x in zip(target.elts, item) if isinstance(x, Runtime)] \
                if isinstance(item, tuple) and isinstance(target, ast.Tuple) else []
            if not late:
                out.extend(self.bind(target, item, s) if target is not None else [])
                out.extend(self.block(body))
                continue
            # (zipped with a sequence known at run time: this iteration runs where it is
            # long enough, as zip stops at the shortest)
            for t, x in zip(target.elts, item):
                if not isinstance(x, Runtime):
                    out.extend(self.bind(t, x, s))
            out.extend(self.stmt(_guarded(late, body, s)))
        out.extend(self.block(s.orelse))
        return out

    def one_generator(self, e):
        """``(its generator, the items it goes through, its variables)`` of a
        comprehension with one ``for`` over a container; None for any other."""
        if len(e.generators) != 1 or e.generators[0].is_async:
            return None
        gen = e.generators[0]
        items = self.static_items(gen.iter, e)
        if items is None:
            return None
        return gen, items, {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}

    def comprehension(self, e):
        """A list comprehension or generator expression as `static_comprehension`
        writes it, or else as `looped_comprehension` does; None for any other."""
        got = self.static_comprehension(e)
        return got if got is not None else looped_comprehension(self, e)

    def static_comprehension(self, e):
        """A list comprehension or generator expression with one ``for`` over a
        container (``sum(np.sum(W ** 2) for W, b in params)``) as the list display of
        its elements, one per item, where its ``if`` clauses are decided here; its
        variables renamed apart (they do not leak), bound to each item as a ``for``
        over the container binds them. None for any other."""
        one = self.one_generator(e)
        if one is None:
            return None
        gen, items, names = one
        if any(isinstance(x, Runtime) for item in items if isinstance(item, tuple)
               for x in item):
            return _zipped_comprehension(self, e, gen, items, names)
        parts = []  # (element, its filter where known only at run time)
        for item in items:
            self.fresh += 1
            renamed = {n: f"{n}%c{self.fresh}" for n in names}
            target, elt, conds = (_renamed(copy.deepcopy(x), renamed)
                                  for x in (gen.target, e.elt, ast.Tuple(
                                      elts=list(gen.ifs), ctx=ast.Load())))
            self.pending.extend(self.bind(target, item, e))
            keep, tests = True, []
            for cond in conds.elts:
                known = self.static(cond)
                if known is None:
                    tests.append(self.expr(cond))
                else:
                    keep = keep and bool(known.value)
            if keep:
                parts.append((self.expr(elt), tests))
        if not any(tests for _, tests in parts):
            return ast.copy_location(ast.List(elts=[x for x, _ in parts], ctx=ast.Load()), e)
        if self.lazy:
            return None  # (its filters would run before the expression decides to)
        # (a filter known only at run time: the list built by appends under them)
        name = self.anonymous()
        self.pending.append(assign(name, ast.List(elts=[], ctx=ast.Load()), e))
        for x, tests in parts:
            add = ast.Expr(value=ast.Call(func=ast.Attribute(
                value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load()),
                args=[x], keywords=[]))
            self.pending.append(ast.If(test=tests[0] if len(tests) == 1 else ast.BoolOp(
                op=ast.And(), values=tests), body=[add], orelse=[]) if tests else add)
        located(self.pending, e)
        return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), e)

    def stmt_While(self, s) -> list:
        return self.loop(s)

    def loop(self, s) -> list:
        if isinstance(s, ast.For):
            s.iter = self.expr(s.iter)
            for n in ast.walk(s.target):
                if isinstance(n, ast.Name):
                    self.forget_quietly(n.id, s)
        if isinstance(s, ast.While) and not s.orelse and self.puts_lines_in(s.test):
            # (its lines run before each test: ``while True:``, the test first in the
            # body, ``if not test: break``, as a person writes it)
            stop = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=s.test),
                          body=[ast.Break()], orelse=[])
            s.test, s.body = ast.Constant(value=True), [stop] + s.body
            for n in ast.walk(stop):
                ast.copy_location(n, s)
        pre, carried = self.carry_into(s)
        if isinstance(s, ast.While):
            before = len(self.pending)
            s.test = self.expr(s.test)
            if len(self.pending) != before:
                raise self.refuse(s, "s2sad cannot pass a container of parameters to a "
                                     "function in the condition of a `while ... else`",
                                  hint="Compute the condition at the end of the body.")
        self.loop_depth += 1
        self.carried.append(carried)
        assigned = {n.id for n in ast.walk(ast.Module(body=s.body, type_ignores=[]))
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.exposed.append((_read_first(s.body, set()) - self.env.keys(),
                             assigned - self.env.keys()))
        defined = self.enter_loop(s)
        body = self.block(s.body)
        self.leave_loop(s, defined)
        for name in assigned:  # (the loop may run no iteration: not known after it)
            self.consts.pop(name, None)
        if not body or not isinstance(body[-1], (ast.Break, ast.Continue, ast.Return)):
            body.extend(self.carry_on(s))
        s.body = body or [ast.Pass()]
        self.carried.pop()
        for name in self.built(self.exposed.pop()):  # (its variable holds it after the loop)
            self.env.pop(name, None)
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
        uses = _slot_uses(self.env)
        for name in sorted(assigned & self.env.keys()):
            node = self.env[name]
            if node.owned and uses[id(node)] == 1 and all(
                    uses[leaf] == 1 for leaf in node.leaves()):
                # (its own variables, read through no other name: they carry it)
                carried[name] = node
                continue
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
        # (a name read before it is assigned, holding a value before the loop and a
        # container the body makes (`carry, h = step(carry, x)`, `step` put in place):
        # the container built in its variable, which the next iteration reads)
        out = [assign(name, self.materialised(self.env[name], s), s)
               for name in self.built(self.exposed[-1])]
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

    def built(self, exposed) -> list:
        """The names of `exposed` (``(read first, assigned)`` by a loop's body, none
        a container before it) that hold a container here which their variable
        holds from each iteration's end: those read first, and those holding tuples
        and lists of leaves (a loop that runs no iteration leaves them as they were)."""
        first, assigned = exposed
        return [n for n in sorted(first | assigned) if isinstance(self.env.get(n), Node) and (
            n in first or _sequences(self.env[n]))]

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
        if isinstance(e, (ast.Tuple, ast.List)) and _indexes_container(self, s):
            # (``for k, v in (("a", x), ("b", y)): out[k] = v``, into a dict the function
            # fills: its items, each value computed once before the loop, as Python does)
            return [_displayed(self, x, s) for x in e.elts]
        known = self.static(e) if isinstance(e, (ast.Constant, ast.Name)) else None
        if known is not None and type(known.value) in (str, tuple) \
                and (isinstance(s, ast.DictComp) or _indexes_container(self, s)):
            # (``for g in "ifog": p[f"W_{g}"]``, or a tuple of keys kept in a name; a
            # dict's keys: ``{k: v for k, v in zip(NAMES, arrays)}``)
            return [Const(c) for c in known.value]
        if isinstance(e, ast.Name):  # (a global's or closure's tuple of functions)
            return function_items(self, e)
        if not isinstance(e, ast.Call) or e.keywords and not (
                called(e, "enumerate") or called(e, "sorted")):
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
                if all(p is None for p in parts):
                    return None
                target = _target_and_body(s)[0]
                if not isinstance(target, ast.Tuple) or len(target.elts) != len(parts):
                    raise self.refuse(e, "s2sad unrolls a zip of a container with a sequence "
                                         "known only at run time when the loop unpacks it "
                                         "(for p, x in zip(params, xs))",
                                      hint="Unpack the items in the `for` line.")
                n = max(len(p) for p in parts if p is not None)
                for k, (p, a) in enumerate(zip(parts, e.args)):
                    if p is None:  # (read by position, where its length allows: `Runtime`)
                        got = self.expr(a)
                        if isinstance(got, ast.Name) and not isinstance(s, ast.For):
                            name = got.id  # (a comprehension's: read where it is made)
                        else:
                            name = self.anonymous()
                            self.pending.append(assign(name, got, s))
                        parts[k] = [Runtime(name, i) for i in range(n)]
            return list(zip(*parts))
        if called(e, "reversed") and len(e.args) == 1:
            inner = self.static_items(e.args[0], s)
            return None if inner is None else inner[::-1]
        if called(e, "sorted") and len(e.args) == 1:
            inner = self.static_items(e.args[0], s)
            return None if inner is None else _sorted_items(self, e, inner)
        if called(e, "range"):
            if not _indexes_container(self, s):
                return None  # (before the bounds: a global count is guarded if read)
            bounds = [self.static(a) for a in e.args]
            if any(b is None for b in bounds) or len(range(*(b.value for b in bounds))) > UNROLLED:
                return None
            return [Const(i) for i in range(*(b.value for b in bounds))]
        return None


def _sorted_items(rw, e, items) -> list:
    """``sorted(...)`` of a loop's `items` (`static_items`) by their keys: keys, or
    items whose first parts are keys no two share (a dict's ``.items()``, an
    `enumerate`), so that Python too compares keys only. ``reverse=`` must be known
    here; ``key=`` and items of values are refused."""
    first = [x[0] if isinstance(x, tuple) and x else x for x in items]
    keys = [k.value for k in first if isinstance(k, Const)]
    reverse = [rw.static(k.value) if k.arg == "reverse" else None for k in e.keywords]
    order = None
    if len(keys) == len(items) and not any(r is None for r in reverse):
        try:
            order = sorted(range(len(items)), key=keys.__getitem__,
                           reverse=bool(reverse[0].value) if reverse else False)
        except TypeError as error:  # (keys Python cannot compare: its own error)
            raise rw.refuse(e, f"Python cannot sort these keys: {error}",
                            hint="Give the container keys of one type.") from None
    if order is None or first != items and any(
            keys[i] == keys[j] for i, j in zip(order, order[1:])):
        raise rw.refuse(e, "s2sad sorts a loop's items where it builds the derivative "
                           "when they are keys it knows (sorted(params), "
                           "sorted(params.items())); these are values or need `key=`",
                        hint="Sort the keys (for k in sorted(params): ... params[k]).")
    return [items[i] for i in order]


def static_dict_comprehension(rw, e, pre, hint):
    """``{k: f(v) for k, v in d.items()}`` over a container, with keys and ``if``
    clauses decided here: the dict it builds (a `Node`), its values computed in
    `pre`, its variables renamed apart; None for any other (`rw`, the
    rewriter)."""
    one = rw.one_generator(e)
    if one is None:
        return None
    gen, items, names = one
    keys, values = [], []
    for item in items:
        rw.fresh += 1
        renamed = {n: f"{n}%c{rw.fresh}" for n in names}
        target, key, value, conds = (_renamed(copy.deepcopy(x), renamed) for x in (
            gen.target, e.key, e.value, ast.Tuple(elts=list(gen.ifs), ctx=ast.Load())))
        if isinstance(item, tuple) and isinstance(target, ast.Tuple) and len(item) == len(
                target.elts):
            # (a variable given a key, or an item of a sequence known at run time,
            # ``zip(NAMES, arrays)``: read in its place, ``{"W": arrays[0], ...}``)
            plain = {t.id: _read(x) for t, x in zip(target.elts, item)
                     if isinstance(t, ast.Name) and isinstance(x, (Const, Runtime))}
            key, value, conds = located([ir.substitute(x, plain) for x in (key, value,
                                                                           conds)], e)
            for t, x in zip(target.elts, item):
                if not (isinstance(t, ast.Name) and t.id in plain):
                    pre.extend(rw.stmt(ast.copy_location(ast.Assign(
                        targets=[t], value=_read(x)), e)) if isinstance(x, Runtime)
                        else rw.bind(t, x, e))
        else:
            pre.extend(rw.bind(target, item, e))
        decided = [rw.static(c) for c in conds.elts]
        if any(d is None for d in decided):
            raise rw.refuse(e, "s2sad builds a dict comprehension over a container "
                                 "when its `if` is known where the derivative is built")
        if not all(d.value for d in decided):
            continue
        known = rw.static(key)
        if known is None:
            raise rw.refuse(key, "s2sad builds dicts whose keys it knows when it "
                                   "builds the derivative (constants, or a loop's keys)",
                              hint="Use constant keys.")
        keys.append(known.value)
        values.append(value)
    return rw.made(dict, "dict", keys, values, pre, hint)


def scoped(rw, e):
    """A comprehension or lambda over values known only at run time (`rw`, the
    rewriter), rewritten inside: its first iterable where it is made, as Python
    runs it; its own variables hide the function's constants and containers."""
    first = getattr(e, "generators", [None])[0]
    made = first and rw.expr(first.iter)  # (run where it is made, as Python does)
    rw.lazy += 1
    # (its own variables hide the function's constants and containers there)
    hidden = [(n, rw.consts.pop(n, None), rw.env.pop(n, None))
              for n in own_names(e)]
    try:
        if first:
            first.iter = ast.Constant(value=())
        return rw.inside(e)
    finally:
        rw.lazy -= 1
        if first:
            first.iter = made
        for n, const, node in hidden:
            if const is not None:
                rw.consts[n] = const
            if node is not None:
                rw.env[n] = node


def _guarded(late, body, at) -> ast.If:
    """`body` under the test that each sequence of `late` (``(target, Runtime)``
    pairs) is long enough, the targets read from them first."""
    tests = [ast.Compare(left=ast.Call(func=ast.Name(id="len", ctx=ast.Load()),
                                       args=[ast.Name(id=x.name, ctx=ast.Load())], keywords=[]),
                         ops=[ast.Gt()], comparators=[ast.Constant(value=x.index)])
             for _, x in late]
    reads = [ast.Assign(targets=[t], value=ast.Subscript(
        value=ast.Name(id=x.name, ctx=ast.Load()), slice=ast.Constant(value=x.index),
        ctx=ast.Load())) for t, x in late]
    guarded = ast.If(test=tests[0] if len(tests) == 1 else ast.BoolOp(
        op=ast.And(), values=tests), body=reads + body, orelse=[])
    ast.copy_location(guarded, at)
    for node in ast.walk(guarded):
        if getattr(node, "lineno", None) is None and isinstance(node, (ast.stmt, ast.expr)):
            ast.copy_location(node, at)
    return guarded


def _zipped_comprehension(rw, e, gen, items, names):
    """A comprehension over ``zip`` of a container and a sequence known only at run
    time (``sum(w * x for w, x in zip(params, xs))``), in `rw` (a `LoopRewrites`): the
    list built by appends, each item's under the test that the sequence is long
    enough, as the ``for`` over such a zip runs (`LoopRewrites.stmt_For`)."""
    if rw.lazy:
        raise rw.refuse(e, "s2sad cannot zip a container of parameters with a sequence "
                           "known only at run time in a comprehension inside a conditional "
                           "expression, a lambda or another comprehension",
                        hint="Build the list on a line of its own.")
    name = rw.anonymous()
    rw.pending.append(assign(name, ast.List(elts=[], ctx=ast.Load()), e))
    for item in items:
        rw.fresh += 1
        renamed = {n: f"{n}%c{rw.fresh}" for n in names}
        target, elt, conds = (_renamed(copy.deepcopy(x), renamed) for x in (
            gen.target, e.elt, ast.Tuple(elts=list(gen.ifs), ctx=ast.Load())))
        for t, x in zip(target.elts, item):
            if not isinstance(x, Runtime):
                rw.pending.extend(rw.bind(t, x, e))
        add = ast.Expr(value=ast.Call(func=ast.Attribute(
            value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load()),
            args=[elt], keywords=[]))
        if conds.elts:
            add = ast.If(test=conds.elts[0] if len(conds.elts) == 1 else ast.BoolOp(
                op=ast.And(), values=conds.elts), body=[add], orelse=[])
        late = [(t, x) for t, x in zip(target.elts, item) if isinstance(x, Runtime)]
        rw.pending.extend(rw.stmt(_guarded(late, [add], e)))
    return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), e)


def _slot_uses(env: dict) -> dict:
    """How many times each container (by id) and each leaf variable is reached from
    the names in `env`, counting each container once."""
    uses: dict = {}
    seen = set()
    for node in env.values():
        _count_uses(node, uses, seen)
    return uses


def _count_uses(node, uses: dict, seen: set) -> None:
    """`_slot_uses`'s walk from one container."""
    uses[id(node)] = uses.get(id(node), 0) + 1
    if id(node) in seen:
        return
    seen.add(id(node))
    for c in node.children:
        if isinstance(c, Node):
            _count_uses(c, uses, seen)
        else:
            uses[c] = uses.get(c, 0) + 1


def container_comprehension(rw, e, pre, hint):
    """A list comprehension with one ``for`` over a container, no ``if``, whose
    element is a display (``[(W - lr * vW, b - lr * vb) for (W, b), (vW, vb) in
    zip(params, vel)]``) or a dict comprehension over a container: the list of
    containers (a `Node`) its list display would be, as `_Rewriter.value` makes one,
    so a loop over steps may carry it; its variables renamed apart and bound, its
    leaves computed, in `pre`. None for any
    other (`static_comprehension` writes those as a display of values)."""
    if not isinstance(e.elt, (ast.Tuple, ast.List, ast.Dict, ast.DictComp)) or \
            len(e.generators) != 1 or e.generators[0].ifs:
        return None
    one = rw.one_generator(e)
    if one is None or any(isinstance(x, Runtime) for item in one[1]
                          if isinstance(item, tuple) for x in item):
        return None
    gen, items, names = one
    elts = []
    for item in items:
        rw.fresh += 1
        renamed = {n: f"{n}%c{rw.fresh}" for n in names}
        target, elt = (_renamed(copy.deepcopy(x), renamed) for x in (gen.target, e.elt))
        pre.extend(rw.bind(target, item, e))
        elts.append(elt)
    return rw.made(list, "sequence", [], elts, pre, hint)


def looped_comprehension(self, e):
    """A list comprehension, or a generator expression a call consumes whole
    (`consumed_generators`), whose element or filters pass a container of
    parameters to a function of several lines (``sum(loss(p, x, y) for x, y in
    data)``, `data` known only at run time, `puts_lines`; `self` the rewriter): the
    list of its elements, built before the line by the loops of appends a person
    writes instead (its variables renamed apart: they do not leak), so the function
    is put in place in the loop's body as in a ``for`` loop's. None for any other
    (and where it is evaluated lazily)."""
    if self.lazy or any(g.is_async for g in e.generators):
        return None
    if isinstance(e, ast.GeneratorExp):
        call = self.consumed.get(id(e))
        if call is None or self.loc_refs(call.func) not in _CONSUMERS:
            return None
    parts = [e.elt] + [c for g in e.generators for c in g.ifs]
    if not any(isinstance(n, ast.Call) and self.puts_lines(n)
               for part in parts for n in ast.walk(part)):
        return None  # (an expression holds what it computes: it stays one)
    self.fresh += 1
    renamed = {n.id: f"{n.id}%c{self.fresh}" for g in e.generators
               for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    name = self.anonymous()
    body = [ast.Expr(value=ast.Call(func=ast.Attribute(
        value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load()),
        args=[_renamed(e.elt, renamed)], keywords=[]))]
    for k, g in reversed(list(enumerate(e.generators))):
        for cond in reversed(g.ifs):
            body = [ast.If(test=_renamed(cond, renamed), body=body, orelse=[])]
        # (the first iterable is evaluated outside, in the function's scope)
        body = [ast.For(target=_renamed(g.target, renamed),
                        iter=_renamed(g.iter, renamed) if k else g.iter, body=body,
                        orelse=[])]
    lines = [assign(name, ast.List(elts=[], ctx=ast.Load()), e)] + body
    self.pending.extend(self.block(located(lines, e)))
    return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), e)


# builtins that consume a generator whole: one passed to them may be built first
_CONSUMERS = (sum, list, tuple, min, max, sorted)


def consumed_generators(tree) -> dict:
    """{id of a generator expression: the call it is the first argument of} where the
    call may be one of `_CONSUMERS` (which it is, `looped_comprehension` asks)."""
    return {id(n.args[0]): n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and n.args and isinstance(n.args[0], ast.GeneratorExp)
            and len(n.args) <= 2 and isinstance(n.func, ast.Name)}


def _renamed(node, names: dict):
    """`node` with the names in `names` renamed."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in names:
            n.id = names[n.id]
    return node


def _read(x):
    """The expression of a `Const` or of a `Runtime` item (``arrays[1]``)."""
    if isinstance(x, Const):
        return ast.Constant(value=x.value)
    return ast.Subscript(value=ast.Name(id=x.name, ctx=ast.Load()),
                         slice=ast.Constant(value=x.index), ctx=ast.Load())


class Runtime:
    """Item `index` of the sequence the variable `name` holds, zipped with a container:
    read in the iteration where the sequence is long enough."""

    def __init__(self, name, index):
        self.name, self.index = name, index


def _sequences(node) -> bool:
    return node.type in (tuple, list) and all(
        _sequences(c) for c in node.children if isinstance(c, Node))


def _read_first(body, written: set) -> set:
    """The names the statements `body` may read before they assign them (on some
    path), given the names `written` already assigned; `written` gains those they
    assign on every path."""
    read = set()

    def loads(node):
        read.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and
                    isinstance(n.ctx, ast.Load) and n.id not in written)

    for st in body:
        if isinstance(st, ast.Assign):
            loads(st.value)
            for t in st.targets:
                loads(t)  # (an index, the array a subscript writes into)
                written.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name) and
                               isinstance(n.ctx, ast.Store))
        elif isinstance(st, ast.If):
            loads(st.test)
            a, b = set(written), set(written)
            read |= _read_first(st.body, a) | _read_first(st.orelse, b)
            written |= a & b
        elif not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            loads(st)
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and \
                    st.target.id not in written:
                read.add(st.target.id)
    return read


def _breaks(body) -> bool:
    for s in body:
        for n in ast.walk(s) if not isinstance(s, (ast.For, ast.While)) else [s]:
            if isinstance(n, (ast.Break, ast.Continue)):
                return True
        if isinstance(s, (ast.For, ast.While)):
            continue
    return False


def _target_and_body(s) -> tuple:
    """The variables and the body (a list of nodes) of `s`: a ``for`` statement, or a
    comprehension (its first generator's target; its element and ``if`` clauses)."""
    if isinstance(s, ast.For):
        return s.target, s.body
    parts = [s.key, s.value] if isinstance(s, ast.DictComp) else [s.elt]
    return s.generators[0].target, parts + list(s.generators[0].ifs)


def _indexes_container(r, s) -> bool:
    """Does the body of the loop or comprehension `s` index a container by a key made
    of its variable (one of them: ``for k, v in ...``): ``p[i]``, ``p[f"W{i}"]``,
    ``p[i + 1]``, or pass the variable to a function with a container
    (``layer(p, h, i)``, which may do that)?"""
    target, body = _target_and_body(s)
    names = _made_of({n.id for n in ast.walk(target) if isinstance(n, ast.Name)}, body)

    def of_variable(e) -> bool:
        return any(isinstance(k, ast.Name) and k.id in names for k in ast.walk(e))

    def container(e) -> bool:
        return isinstance(r.value(e, [], probe=True), Node)

    for n in (n for part in body for n in ast.walk(part)):
        if isinstance(n, ast.Subscript) and not isinstance(n.slice, ast.Slice) \
                and of_variable(n.slice) and container(n.value):
            return True
        if isinstance(n, ast.Call) and _keys_of_argument(r, n, names):
            return True
    return False


_KEY_PARTS = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.JoinedStr,
              ast.FormattedValue, ast.Subscript, ast.Tuple, ast.Load, ast.operator,
              ast.unaryop)


def _root_name(node):
    """The name an item or attribute chain (``p["layers"][i].W``) starts from."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _made_of(names: set, body) -> set:
    """`names` and the names `body` (a list of nodes) assigns a key made of them
    (``j = n - 1 - i``, ``k = f"W{i}"``: what `structure_values.computed` works
    out), and of those, and so on."""
    assigns = [n for part in body for n in ast.walk(part)
               if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name)
               and all(isinstance(x, _KEY_PARTS) for x in ast.walk(n.value))]
    names = set(names)
    grown = True
    while grown:
        grown = False
        for a in assigns:
            if a.targets[0].id not in names and any(
                    isinstance(x, ast.Name) and x.id in names for x in ast.walk(a.value)):
                names.add(a.targets[0].id)
                grown = True
    return names


def _keys_of_argument(r, call: ast.Call, names: set) -> bool:
    """Is `call` one of a function put in place (a container passed to it) that is
    given one of `names` and reads that container by a key made of it, or passes
    both on to another call (``layer(p, h, i)`` reading ``p[f"W{i}"]``)?"""
    if not any(isinstance(a, ast.Name) and a.id in names
               for a in call.args + [k.value for k in call.keywords]):
        return False
    callee = r.passes_container(call)
    if callee is None:
        return False
    args = list(call.args)
    if not isinstance(callee, ast.FunctionDef):
        if r.parse is None:
            return False
        method = r.bound_method(call)
        if method is not None:
            args = [method[1]] + args  # (`self` first)
        try:
            callee = r.parse(callee).tree
        except S2SADError:
            return False  # (refused where the call is put in place)
    params = [a.arg for a in callee.args.posonlyargs + callee.args.args]
    given = {p for p, a in zip(params, args) if isinstance(a, ast.Name) and a.id in names}
    given |= {k.arg for k in call.keywords
              if isinstance(k.value, ast.Name) and k.value.id in names}
    given = _made_of(given, callee.body)
    # (the parameters given a container: an item of another, an array's ``forcing[i]``,
    # is read at run time in a loop that stays a loop)
    holders = {p for p, a in zip(params, args) if isinstance(r.value(a, [], probe=True), Node)}
    holders |= {k.arg for k in call.keywords
                if isinstance(r.value(k.value, [], probe=True), Node)}
    for n in ast.walk(callee):
        if isinstance(n, ast.Subscript) and _root_name(n) in holders and any(
                isinstance(x, ast.Name) and x.id in given for x in ast.walk(n.slice)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and not hasattr(builtins, n.func.id):
            passed = {a.id for a in n.args + [k.value for k in n.keywords]
                      if isinstance(a, ast.Name)}
            if passed & given and passed & holders:
                return True  # (passed on, with the container, to a function of the user's)
    return False


def _displayed(r, x, s):
    """An item of a display a loop `s` unrolled goes over: a `Const`, a tuple of
    items, or the variable its value is computed into before the loop."""
    if isinstance(x, ast.Constant):
        return Const(x.value)
    if isinstance(x, ast.Tuple):
        return tuple(_displayed(r, y, s) for y in x.elts)
    name = r.anonymous()
    r.pending.append(assign(name, r.expr(x), s))
    return name
