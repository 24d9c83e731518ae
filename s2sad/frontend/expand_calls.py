"""expand_calls: the assignments and calls `expand` lowers, and the small AST
builders both modules use.

`TargetLowering` is a mixin of `expand`'s expander: ``a, *rest, b = xs`` and the
nested and chained assignments holding a ``*``. `CallLowering` is a mixin of its
lowering of one statement: ``sum``, ``min``, ``max``, ``list`` and ``math.prod`` of a
comprehension (`call_comp`), ``sum(xs, start)``, ``math.prod(xs)``, ``min(xs)``,
n-ary ``min``/``max``, ``sorted``, ``min``/``max``/``sorted`` with ``key=``, ``xs.pop(i)``,
``reversed``, ``functools.reduce`` (its function a template `higher_order` made) and
``f(*display)``; each method returns what replaces the call, having added the
statements before it. `starred_display` and `starred_shape` say where a ``*`` of a
shape is joined as a display (`shape_function`: the function that takes it so).
`single_displays` finds the names whose length a display fixes. Imports the standard library, `ir.kinds` (the marks of a ``*`` part and of a
value never read) and `tree_index`.
"""

from __future__ import annotations

import ast
import copy
import math
import operator
import types

from .. import ir
from ..ir.kinds import PLACEHOLDER, STARRED
from .tree_index import Nodes, has, of

COMPS = (ast.ListComp, ast.GeneratorExp)


def _display_as_list(node):
    """A tuple display (``(a, b, c)``, no ``*``) as the list display of its items, which
    ``list()`` of it would make; any other node as it is."""
    if type(node) is ast.Tuple and not any(type(e) is ast.Starred for e in node.elts):
        return ast.copy_location(ast.List(elts=node.elts, ctx=ast.Load()), node)
    return node


def single_displays(tree, nodes=None) -> dict:
    """Local names assigned exactly once, by a tuple display with no ``*``, or by
    such a list display and read only by ``*`` and indexing (nothing could change
    its length): their length is known (``args = (x, y)`` read by ``f(*args)``).
    `nodes`: ``list(ast.walk(tree))`` (or its `tree_index.Nodes`), where the caller
    has it."""
    stores: dict = {}
    plain_reads = set()  # ids of the loads of a name as `*name` or `name[...]`
    if nodes is None:
        nodes = Nodes(tree)
    if not has(nodes, ast.Tuple, ast.List):
        return {}  # (no display at all)
    assigns = [n for n in of(nodes, ast.Assign) if isinstance(n.value, (ast.Tuple, ast.List))]
    if not assigns:
        return {}  # (most functions assign no display)
    names = of(nodes, ast.Name)
    for n in names:
        if isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    for n in of(nodes, ast.Starred, ast.Subscript):
        if isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Load):
            plain_reads.add(id(n.value))
    for n in names:
        if isinstance(n.ctx, ast.Load) and id(n) not in plain_reads:
            stores[n.id] = stores.get(n.id, 0) + 0.5  # (a list read otherwise)
    out = {}
    for n in assigns:
        if len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, (ast.Tuple, ast.List)) \
                and not any(isinstance(e, ast.Starred) for e in n.value.elts) \
                and (stores.get(n.targets[0].id) == 1 or isinstance(n.value, ast.Tuple)
                     and int(stores.get(n.targets[0].id)) == 1) \
                and n.targets[0].id not in {a.arg for a in ast.walk(tree.args)
                                            if isinstance(a, ast.arg)}:
            out[n.targets[0].id] = len(n.value.elts)
    return out


def name(n, store=False):
    return ast.Name(id=n, ctx=ast.Store() if store else ast.Load())


def call(func, args):
    return ast.Call(func=func, args=list(args), keywords=[])


def located(node, like):
    for child in ast.walk(node):
        if isinstance(child, (ast.expr, ast.stmt)) and not hasattr(child, "lineno"):
            child.lineno, child.col_offset = like.lineno, like.col_offset
            child.end_lineno = getattr(like, "end_lineno", like.lineno)
            child.end_col_offset = getattr(like, "end_col_offset", like.col_offset)
    return node


def assign(target, value, like):
    return located(ast.Assign(targets=[name(target, True)], value=value), like)


def add(acc, term):
    return ast.BinOp(left=acc, op=ast.Add(), right=term)


def mul(acc, term):
    return ast.BinOp(left=acc, op=ast.Mult(), right=term)


def int_constant(node):
    """The int `node` writes (``3``, ``-1``), or None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def simple(node) -> bool:
    """Nothing to compute: reading it first or later is the same."""
    return isinstance(node, (ast.Name, ast.Constant)) or \
        (isinstance(node, ast.Attribute) and simple(node.value))


class TargetLowering:
    """Assignments to ``*`` targets, as methods of `expand`'s expander (`self.fresh`
    makes a name, `self.block` expands statements)."""

    def star_lengths(self, elts):
        """For items some of them ``*x``: each ``*x``'s length if all are known (a
        display's, or a name's in `self.displays`)."""
        out = []
        for e in elts:
            if not isinstance(e, ast.Starred):
                continue
            v = e.value
            if isinstance(v, (ast.Tuple, ast.List)) and \
                    not any(isinstance(i, ast.Starred) for i in v.elts):
                out.append(len(v.elts))
            elif isinstance(v, ast.Name) and v.id in self.displays:
                out.append(self.displays[v.id])
            else:
                return None
        return out

    def starred_targets(self, s, lift, pre) -> list:
        """An assignment with a ``*`` target: several targets assigned one by one from
        the value, a nested unpacking holding a ``*`` (``(a, *b), c = ...``) done by
        a statement of its own after the outer one, and the outer `star_assign`."""
        if len(s.targets) > 1:
            value = name(self.fresh("items"))
            pre.append(assign(value.id, lift(s.value), s))
            return pre + self.block([located(ast.Assign(targets=[t], value=name(value.id)), s)
                                     for t in s.targets])
        target = copy.copy(s.targets[0])
        later = []
        target.elts = list(target.elts)
        for i, e in enumerate(target.elts):
            if isinstance(e, ast.Tuple) and any(isinstance(n, ast.Starred) for n in ast.walk(e)):
                part = self.fresh("part")
                target.elts[i] = name(part, True)
                later.append(located(ast.Assign(targets=[e], value=name(part)), s))
        new = copy.copy(s)
        new.targets = [target]
        if any(isinstance(e, ast.Starred) for e in target.elts):
            out = self.starassign(new, lift, pre)
        else:
            new.value = lift(s.value)
            out = pre + [new]
        return out + self.block(later)

    def starassign(self, s, lift, pre) -> list:
        """``a, *rest, b = xs``: ``a = xs[0]``, ``%rest = xs[1:]``, ``rest = %rest[:-1]``,
        ``b = %rest[-1]`` (too few items raise an IndexError where Python raises a
        ValueError); ``first, *rest = xs`` is ``first = xs[0]``, ``rest = xs[1:]``.
        ``*rest, = xs`` is ``rest = xs[0:]``, a copy, as Python's. From a display,
        ``first, *rest = (a, b, c)``, each target is given its items: ``first = a``,
        ``rest = [b, c]`` (a list, as Python's)."""
        target = s.targets[0]
        elts = target.elts
        k = next(i for i, e in enumerate(elts) if isinstance(e, ast.Starred))
        before, star, after = elts[:k], elts[k], elts[k + 1:]
        value = lift(s.value)
        bound = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if isinstance(value, (ast.Tuple, ast.List)) and \
                len(value.elts) >= len(before) + len(after) and not any(
                    isinstance(n, ast.Starred) or isinstance(n, ast.Name) and n.id in bound
                    for n in ast.walk(value)):
            end = len(value.elts) - len(after)
            return pre + [located(ast.Assign(targets=[t], value=v), s) for t, v in zip(
                before + [star.value] + after, value.elts[:k] + [ast.List(
                    elts=value.elts[k:end], ctx=ast.Load())] + value.elts[end:])]
        if not isinstance(value, ast.Name) or value.id in bound:
            seq = self.fresh("items")
            pre.append(assign(seq, value, s))
            value = name(seq)
        out = list(pre)

        def item(seq, i):
            return ast.Subscript(value=name(seq), slice=ast.Constant(i), ctx=ast.Load())

        def bind(t, v):
            out.append(located(ast.Assign(targets=[t], value=v), s))

        for i, t in enumerate(before):
            bind(t, item(value.id, i))
        rest = ast.Subscript(value=name(value.id), slice=ast.Slice(
            lower=ast.Constant(len(before))), ctx=ast.Load())
        if not after:
            setattr(rest, STARRED, True)  # (a list in Python: `ir.kinds.STARRED`)
            bind(star.value, rest)
            return out
        tail = value.id
        if before:
            tail = self.fresh("rest")
            out.append(assign(tail, rest, s))
        part = ast.Subscript(value=name(tail), slice=ast.Slice(
            upper=ast.Constant(-len(after))), ctx=ast.Load())
        setattr(part, STARRED, True)
        bind(star.value, part)
        for i, t in enumerate(after):
            bind(t, item(tail, i - len(after)))
        return out


# the functions of `operator` that are an operator, with how many operands it takes
OPERATOR_CALLS = {f: (op(), n) for f, op, n in [
    (operator.add, ast.Add, 2), (operator.sub, ast.Sub, 2), (operator.mul, ast.Mult, 2),
    (operator.truediv, ast.Div, 2), (operator.floordiv, ast.FloorDiv, 2),
    (operator.mod, ast.Mod, 2), (operator.pow, ast.Pow, 2), (operator.matmul, ast.MatMult, 2),
    (operator.neg, ast.USub, 1), (operator.pos, ast.UAdd, 1), (operator.lt, ast.Lt, 2),
    (operator.le, ast.LtE, 2), (operator.gt, ast.Gt, 2), (operator.ge, ast.GtE, 2),
    (operator.eq, ast.Eq, 2), (operator.ne, ast.NotEq, 2)]}


def operator_call(obj):
    """``(operator, operands)`` of `obj` where it is in `OPERATOR_CALLS`, else None."""
    return OPERATOR_CALLS.get(obj) if type(obj) is types.BuiltinFunctionType else None


class CallLowering:
    """The calls `expand` lowers (its `call_kind` names which), as methods of the
    lowering of one statement (`self.ex`: the function's expander)."""


    def call_comp(self, node):
        """A call given a comprehension: `sum`, `min`, `max` and `list` of it fold it
        into a loop; any other call gets the list."""
        func, args = node.func, node.args
        comp = next(a for a in args if isinstance(a, COMPS))
        if len(args) == 1 and args[0] is comp and all(k.arg == "default" for k in node.keywords) \
                and (self.ex.builtin(func, min) or self.ex.builtin(func, max)):
            default = self(node.keywords[0].value) if node.keywords else None
            return self.extreme(comp, name(func.id) if isinstance(func, ast.Name)
                                else copy.deepcopy(func), default)
        given = args[1:] + [k.value for k in node.keywords if k.arg == "start"]
        if args[0] is comp and self.ex.builtin(func, sum) and len(given) <= 1 and \
                len(args) + len(node.keywords) == 1 + len(given):  # (start, or start=)
            start = self(given[0]) if given else ast.Constant(0)
            return self.accumulate(comp, "total", start, add)
        if not node.keywords and args[0] is comp:
            if len(args) == 1 and self.ex.builtin(func, list):
                return self.comprehension(comp)
            if len(args) == 1 and isinstance(comp, ast.GeneratorExp) and \
                    len(comp.generators) == 1 and (self.ex.builtin(func, any) or
                                                   self.ex.builtin(func, all)):
                return self.first_that(comp, self.ex.builtin(func, any))
        if self.ex.builtin(func, math.prod) and args[0] is comp and len(args) == 1:
            start = ast.Constant(1)
            for k in node.keywords:
                start = self(k.value)
            return self.accumulate(comp, "product", start, mul)
        return self.children(node)

    def first_that(self, comp, found: bool):
        """``any`` (`found`) or ``all`` of the generator `comp` (one ``for``): a loop
        that stops at the first term that is true (false), as the builtin stops
        drawing from the generator there."""
        acc = self.result("found" if found else "every")
        comp = self.rename(comp)
        test = comp.elt if found else ast.UnaryOp(op=ast.Not(), operand=comp.elt)
        stop = located(ast.If(test=test, body=[assign(acc, ast.Constant(found), self.s),
                                               located(ast.Break(), self.s)], orelse=[]),
                       self.s)
        self.emit([assign(acc, ast.Constant(not found), self.s)] + self.loops(comp, [stop]))
        return name(acc)

    def call_sum(self, node):
        given = node.args[1] if len(node.args) == 2 else node.keywords[0].value  # (start=)
        seq = self(node.args[0])
        if not simple(seq) and self.ex.needs(given):
            seq = self.temp("items", seq)  # (Python evaluates it before the start)
        start = self(given)
        return self.accumulate(seq, "total", start, add)

    def call_operator(self, node):
        """``operator.add(a, b)`` (and the other functions of `OPERATOR_CALLS`): the
        operator itself, ``a + b``, which calls the same method of ``a`` or ``b``."""
        op, _ = OPERATOR_CALLS[self.ex.refs[ir.dotted(node.func)]]  # (`call_kind`'s)
        args = [self(x) for x in node.args]
        if isinstance(op, ast.unaryop):
            return ast.UnaryOp(op=op, operand=args[0])
        if isinstance(op, ast.cmpop):
            return ast.Compare(left=args[0], ops=[op], comparators=[args[1]])
        return ast.BinOp(left=args[0], op=op, right=args[1])

    def call_divmod(self, node):
        """``divmod(a, b)``: ``(a // b, a % b)``, each operand computed once."""
        a, b = (self(x) for x in node.args)
        if not simple(a):
            a = self.temp("numerator", a)
        if not simple(b):
            b = self.temp("divisor", b)
        return ast.Tuple(elts=[ast.BinOp(left=a, op=ast.FloorDiv(), right=b),
                               ast.BinOp(left=copy.deepcopy(a), op=ast.Mod(),
                                         right=copy.deepcopy(b))], ctx=ast.Load())

    def call_prod(self, node):
        seq = self(node.args[0])
        start = self(node.keywords[0].value) if node.keywords else ast.Constant(1)
        return self.accumulate(seq, "product", start, mul)

    def call_extreme(self, node):
        func = node.func
        seq = node.args[0]
        if node.keywords and not simple(seq):
            seq = self.temp("items", self(seq))  # (Python evaluates it before the default)
        default = self(node.keywords[0].value) if node.keywords else None
        return self.extreme(seq, name(func.id) if isinstance(func, ast.Name)
                            else copy.deepcopy(func), default)

    def call_nary(self, node):
        node = self.children(node)
        out = node.args[0]
        for a in node.args[1:]:
            out = call(copy.deepcopy(node.func), [out, a])
        return out

    def call_sorted(self, node, keyed=None):
        """``sorted(xs)``: the order of the indices by their items, then the items in
        that order: ``%items = list(xs)``, ``%order = sorted(range(len(%items)),
        key=%items.__getitem__)``, ``[%items[i] for i in %order]`` (the same stable
        sort, so the same list; its derivative moves each adjoint back to its item).
        `keyed`: the items and their keys, already computed (`call_keyed`)."""
        if keyed is None:
            first = _display_as_list(node.args[0])
            seq = self(first)
            if not isinstance(first, (*COMPS, ast.List)):
                seq = call(name("list"), [seq])
                self.ex.refs.setdefault("list", list)
            items = keys = self.temp("items", seq)
        else:
            items, keys = keyed
        keywords = [ast.keyword(arg="key", value=ast.Attribute(
            value=name(keys.id), attr="__getitem__", ctx=ast.Load()))] + [
            ast.keyword(arg=k.arg, value=self(k.value)) for k in node.keywords
            if k.arg != "key"]
        order = self.temp("order", ast.Call(func=copy.deepcopy(node.func), args=[call(
            name("range"), [call(name("len"), [name(items.id)])])], keywords=keywords))
        index = self.ex.fresh("i")
        return self.comprehension(ast.ListComp(
            elt=ast.Subscript(value=name(items.id), slice=name(index), ctx=ast.Load()),
            generators=[ast.comprehension(target=name(index, True), iter=order, ifs=[],
                                          is_async=0)]))

    def call_keyed(self, node):
        """``min(xs, key=f)``, ``max(...)``, ``sorted(...)``: the items in a list, the
        list of their keys (the generator `higher_order` made of `f`, over the items),
        then the index the builtin picks by the keys (``min(range(len(%keys)),
        key=%keys.__getitem__)``: the first of the least, as Python's ``min`` returns)
        and its item, or the items in the order `sorted` gives; the keys carry no
        derivative, only the items picked do. ``default=`` gives the default where
        there is no item; ``min(a, b, key=f)`` is ``min([a, b], key=f)``."""
        func, args = node.func, node.args
        template = next(k.value for k in node.keywords if k.arg == "key")
        first = _display_as_list(args[0]) if len(args) == 1 else \
            ast.List(elts=list(args), ctx=ast.Load())
        seq = self(first)
        if not isinstance(first, (*COMPS, ast.List)):
            seq = call(name("list"), [seq])
            self.ex.refs.setdefault("list", list)
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        items = self.temp("items", seq)
        if default is not None:
            default = self(default)  # (evaluated before the keys)
            if not simple(default):
                default = self.temp("default", default)
        gen = copy.deepcopy(template)
        gen.generators[0].iter = name(items.id)
        keys = self.comprehension(ast.ListComp(elt=gen.elt, generators=gen.generators))
        if self.ex.builtin(func, sorted):
            return self.call_sorted(node, (items, keys))
        keywords = [ast.keyword(arg="key", value=ast.Attribute(
            value=name(keys.id), attr="__getitem__", ctx=ast.Load()))]
        if default is not None:
            keywords.append(ast.keyword(arg="default", value=ast.Constant(None)))
        at = self.temp("at", ast.Call(func=copy.deepcopy(func), args=[call(
            name("range"), [call(name("len"), [name(keys.id)])])], keywords=keywords))
        picked = ast.Subscript(value=name(items.id), slice=name(at.id), ctx=ast.Load())
        if default is None:
            return picked
        out = self.ex.fresh("value")
        self.pre.append(located(ast.If(
            test=ast.Compare(left=name(at.id), ops=[ast.Is()], comparators=[
                ast.Constant(None)]),
            body=[assign(out, default, self.s)], orelse=[assign(out, picked, self.s)]),
            self.s))
        return name(out)

    def call_reduce(self, node):
        """``functools.reduce(f, xs, init)``: ``%reduced = init``, then for each item
        ``a, b = %reduced, item`` (`f`'s parameters, named apart) and ``%reduced = `` its
        body. Without `init` the first item starts the fold, and an empty sequence
        raises Python's TypeError."""
        template, seq = node.args[0], node.args[1]
        seq = self(seq)
        start = None
        if len(node.args) == 3:
            if not simple(seq):
                seq = self.temp("items", seq)  # (Python evaluates it before the start)
            start = self(node.args[2])
        comp = self.rename(template)
        acc, item = self.result("reduced"), self.ex.fresh("item")
        first, second = (e.id for e in comp.generators[0].target.elts)
        step = [assign(first, name(acc), self.s), assign(second, name(item), self.s),
                assign(acc, comp.elt, self.s)]
        if start is not None:
            self.emit([assign(acc, start, self.s), located(ast.For(
                target=name(item, True), iter=seq, body=step, orelse=[]), self.s)])
            return name(acc)
        empty = self.ex.fresh("empty")
        placeholder = ast.Constant(None)  # (never read: the first item replaces it)
        setattr(placeholder, PLACEHOLDER, True)
        message = "reduce() of empty iterable with no initial value"
        self.emit([assign(empty, ast.Constant(True), self.s), assign(acc, placeholder, self.s),
                   located(ast.For(target=name(item, True), iter=seq, body=[ast.If(
                       test=name(empty), body=[assign(acc, name(item), self.s),
                                               assign(empty, ast.Constant(False), self.s)],
                       orelse=step)], orelse=[]), self.s),
                   located(ast.If(test=name(empty), body=[ast.Raise(
                       exc=call(name("TypeError"), [ast.Constant(message)]), cause=None)],
                       orelse=[]), self.s)])
        return name(acc)

    def call_pop_at(self, node):
        """``xs.pop(i)``: the place counted from the start (``%at = i + len(xs)`` where
        `i` is negative; one still negative raises the IndexError Python raises), so
        the derivative puts the item back there (``xs_bar.insert(%at, v_bar)``)."""
        xs = node.func.value.id
        known = int_constant(node.args[0])
        if known == -1:
            new = copy.copy(node)
            new.args = []
            return new  # (the last one: ``xs.pop()``)
        self.ex.builtins_at(self.s, f"{xs}.pop(...)", ("len",))
        index = self(node.args[0])
        n = call(name("len"), [name(xs)])
        self.ex.refs.setdefault("len", len)
        if known is not None:
            place = ast.BinOp(left=n, op=ast.Sub(), right=ast.Constant(-known))
        else:
            if not simple(index):
                index = self.temp("index", index)
            place = ast.IfExp(test=ast.Compare(left=index, ops=[ast.Lt()],
                                               comparators=[ast.Constant(0)]),
                              body=ast.BinOp(left=n, op=ast.Add(), right=index), orelse=index)
        at = self.temp("at", place)
        error = call(name("IndexError"), [ast.Constant("pop index out of range")])
        self.pre.append(located(ast.If(
            test=ast.Compare(left=name(at.id), ops=[ast.Lt()], comparators=[ast.Constant(0)]),
            body=[located(ast.Raise(exc=error, cause=None), self.s)], orelse=[]), self.s))
        new = copy.copy(node)
        new.args = [name(at.id)]
        return new

    def call_reversed(self, node):
        seq = self(node.args[0])
        return ast.Subscript(value=seq, slice=ast.Slice(step=ast.Constant(-1)), ctx=ast.Load())

    def call_star(self, node):
        node = self.children(node)
        args = []
        for a in node.args:
            if not isinstance(a, ast.Starred):
                args.append(a)
                continue
            v = a.value
            if isinstance(v, (ast.Tuple, ast.List)):
                args.extend(v.elts)
                continue
            n = self.ex.displays[v.id]
            args.extend(ast.Subscript(value=name(v.id), slice=ast.Constant(i), ctx=ast.Load())
                        for i in range(n))
        node.args = args
        return node


def starred_display(node) -> bool:
    """Is `node` a list display with a ``*`` item (``[*a, b]``), or a tuple display
    whose ``*`` items are shapes, axes or ranges (``(*x.shape, 2)``: ints)?"""
    if not (type(node) in (ast.List, ast.Tuple) and isinstance(node.ctx, ast.Load)):
        return False
    starred = [e.value for e in node.elts if isinstance(e, ast.Starred)]
    return bool(starred) and (type(node) is ast.List or all(map(_of_ints, starred)))


def _of_ints(node) -> bool:
    """Is `node` an array's shape (``x.shape``, ``np.shape(x)``), a part of one
    (``x.shape[:-1]``), a ``range(...)``, or a display of int literals?"""
    if isinstance(node, ast.Subscript):
        return _of_ints(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    if isinstance(node, ast.Call):
        return ir.dotted(node.func) in ("range", "np.shape", "numpy.shape")
    return isinstance(node, (ast.Tuple, ast.List)) and all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)


def starred_shape(node, refs) -> bool:
    """Is `node` a call ``x.reshape(*s, ...)`` or ``x.transpose(*s, ...)`` (an array's
    shape or axes given item by item, some of them unpacked), or NumPy's
    ``np.random.rand(*x.shape)`` or ``randn`` (`refs`: the chains' values)?"""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            not node.keywords and any(isinstance(a, ast.Starred) for a in node.args)):
        return False
    if node.func.attr in _SAMPLERS:
        import numpy

        return refs.get(ir.dotted(node.func.value) or "") is numpy.random
    return node.func.attr in ("reshape", "transpose")


# NumPy's samplers that take a shape item by item, and the ones that take it whole
_SAMPLERS = {"rand": "random_sample", "randn": "standard_normal"}


def shape_function(func: ast.Attribute, refs) -> ast.Attribute:
    """The function of a `starred_shape` call that takes the shape as one tuple: the
    array's method itself, the sampler ``rand`` stands for (drawing the same
    numbers: NumPy's ``rand`` calls it), its chain added to `refs`."""
    if func.attr not in _SAMPLERS:
        return func
    import numpy

    whole = _SAMPLERS[func.attr]
    refs[f"{ir.dotted(func.value)}.{whole}"] = getattr(numpy.random, whole)
    return ast.copy_location(ast.Attribute(value=func.value, attr=whole, ctx=ast.Load()), func)
