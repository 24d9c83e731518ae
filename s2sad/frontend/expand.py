"""expand: comprehensions and builtins over sequences -> the loops s2sad differentiates.

Contract
--------
`expand(body, parsed, loc)` returns the statements `body` with every expression below
written as plain statements (the subset `anf` lowers), computing what the user's code
computes, in the same order:

* a list comprehension or generator expression, with ``if`` clauses and nested
  ``for``s, becomes a list built by ``append`` in those loops; a generator consumed by
  ``sum`` (or ``sum(..., start)``) becomes a loop that adds up its terms, by
  ``min``/``max`` a loop that keeps the least (greatest) value through the two-argument
  builtin (a tie keeps the first, as Python's ``min`` does), and by ``list`` the list
  itself; the comprehension's variables get names of their own (they do not leak, and a
  name of the same name outside keeps its value); a set or dict comprehension is
  ``set``/``dict`` of such a list (of ``(key, value)`` pairs);
* ``operator.add(a, b)`` (``mul``, ``neg``, ``lt``... of `operator`) is ``a + b``;
* ``sum(xs, start)``, ``math.prod(xs)`` and ``min(xs)``/``max(xs)`` of one sequence
  become the same loops over ``xs``; ``min(a, b, c)`` the two-argument calls nested
  (``min(min(a, b), c)``, which returns what Python's does, ties included);
  ``reversed(xs)`` of a sequence that is not a ``range`` the slice ``xs[::-1]``;
  ``sorted(xs)`` the items in the order ``sorted(range(len(xs)), key=...)`` gives;
  ``min``, ``max`` and ``sorted`` given ``key=`` (a generator of the keys, made by
  `higher_order`) the list of the keys over the items, then the index the builtin
  picks by them (``min(range(len(keys)), key=keys.__getitem__)``) and its item (or the
  items in that order): the keys carry no derivative;
* ``functools.reduce(f, xs[, init])`` (``f`` a ``lambda`` of two parameters or a
  function, made a template by `higher_order`) a loop folding the items into one
  name, the first item starting it where there is no ``init`` (an empty ``xs``
  raises Python's TypeError);
* ``xs.insert(i, v)`` and ``xs.pop(i)`` the place Python uses, counted from the start
  (``%at = min(i, len(xs))``...; a pop out of range raises), so the derivative moves
  the adjoint at that place; ``xs.pop(-1)`` is ``xs.pop()``;
* ``xs.extend(ys)`` a loop appending ``ys``'s items; ``a, *rest, b = xs`` items and
  slices of ``xs`` (too few items raise an IndexError), nested and chained ones and
  ``for a, *b in rows`` statement by statement; ``[*xs, v]`` the lists joined;
  ``f(*args)`` of a tuple display, or of a name assigned one tuple display (or one list
  display read only by ``*`` and indexing), its items;
* ``for ... else`` and ``while ... else``: the ``else`` part after the loop, under a
  flag that each ``break`` clears.

Statements in the bodies of ``if``, loops and ``with`` are expanded; a ``try``, which
`kept` runs as written, is left as it is.

Where an expanded expression is evaluated after other parts of its statement, those
parts are computed first into names of their own; inside a conditional expression,
``and``/``or`` or a chained comparison the lazy part becomes an ``if``. Names it adds
start with ``%`` (printed as words: ``total``, ``items``). It leaves alone what it does
not know (a ``*`` of a value of unknown length, a comprehension inside a ``lambda``),
for the later stages to refuse at the user's line.

`comprehension_bound(nodes)` gives the names a comprehension binds, which `parse`
counts neither as the function's locals nor as free names.
"""

from __future__ import annotations

import ast
import copy
import functools
import math

from .. import ir
from ..checkpoint import checkpointed
from ..ir.kinds import PLACEHOLDER
from ..errors import UnsupportedSyntaxError
from .expand_calls import COMPS as _COMPS
from .expand_calls import shape_function as _shape_function, starred_display as _starred_display
from .expand_calls import starred_shape as _starred_shape
from .expand_calls import (OPERATOR_CALLS, CallLowering, TargetLowering, int_constant, operator_call,
                           single_displays)
from .expand_calls import assign as _assign, call as _call, located as _located, name as _name
from .expand_calls import simple as _simple
from .higher_order import key_template, reducer_template
from .tree_index import Nodes, of

_ALL_COMPS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)
# the statements a function with nothing to lower (`_plain`) keeps as they are
_AS_WRITTEN = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return})


def comprehension_bound(nodes) -> set:
    """The ids of the `ast.Name` nodes among `nodes` (a function's nodes, as
    `ast.walk` gives them) that are a comprehension's own variables: its targets and
    their reads in its elements, conditions and inner iterables; and a lambda's
    parameters read in its body (one left as written: a parameter's default)."""
    out = set()
    for node in of(nodes, ast.Lambda, *_ALL_COMPS):
        if isinstance(node, ast.Lambda):
            bound = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            out.update(id(n) for n in ast.walk(node.body)
                       if isinstance(n, ast.Name) and n.id in bound)
            continue
        bound = {n.id for g in node.generators for n in ast.walk(g.target)
                 if isinstance(n, ast.Name)}
        scoped = [g.target for g in node.generators] + \
            [c for g in node.generators for c in g.ifs] + \
            [g.iter for g in node.generators[1:]]
        scoped += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in scoped:
            for n in ast.walk(part):
                if isinstance(n, ast.Name) and n.id in bound:
                    out.add(id(n))
    return out


def expand(body, parsed, loc=None) -> list:
    """`body` with the expressions above lowered. See the module docstring. `loc`
    (`parse.Located`) builds the errors it raises at the user's lines."""
    return _Expander(parsed, loc).block(body)


def _named_object(func, locals_, refs):
    """What `func` (a call's function) names where it is a free name or an attribute
    chain on one (a builtin, `math`'s: `refs` resolved them), else None."""
    text = ir.dotted(func)
    if text is None or text.split(".")[0] in locals_:
        return None
    return refs.get(text, None)


def _ends_loop(stmts) -> bool:
    """Does `stmts` hold a ``break`` of this loop (not of a nested one)?"""
    for s in stmts:
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            continue
        for field in ("body", "orelse", "handlers", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and _ends_loop(block):
                return True
    return False


def _fresh(counts: dict, issued: set, word: str) -> str:
    """A name no other call gave (`counts`: the last number of each word; `issued`:
    the names given): ``%item``, ``%item2``, ... (a word that ends in a digit,
    ``item2``, skips what another word's count gave)."""
    n = counts.get(word, 0)
    while True:
        n += 1
        name = f"%{word}" if n == 1 else f"%{word}{n}"
        if name not in issued:
            break
    counts[word] = n
    issued.add(name)
    return name


class _Expander(TargetLowering):
    """The expansion of one function (its names, its resolved builtins, the fresh
    names it made)."""

    def __init__(self, parsed, loc):
        self.refs = parsed.refs
        self.loc = loc
        self.locals = parsed.locals
        nodes = _nodes(parsed)
        self.counts: dict = {}
        self.issued: set = set()  # (every name `fresh` gave)
        self.displays = single_displays(parsed.tree, nodes)
        self.plain = _plain(self, nodes)

    # ------------------------------------------------------------ helpers

    def fresh(self, word: str) -> str:
        return _fresh(self.counts, self.issued, word)

    def builtin(self, func, obj) -> bool:
        """Is `func` (a call's function) a name for `obj` (a builtin or `math`'s)?"""
        return _named_object(func, self.locals, self.refs) is obj

    # ---------------------------------------------------------- what to do

    def needs(self, node) -> bool:
        """Does expression `node` hold something this module lowers?"""
        for n in () if self.plain else _walk_eager(node):  # (`_plain`: nothing)
            t = type(n)
            if t is ast.Name or t is ast.Constant:
                continue  # (the commonest nodes, neither of the kinds below)
            if isinstance(n, _COMPS) or self.collection(n) is not None:
                return True
            if _starred_display(n) or _starred_shape(n, self.refs) and self.call_kind(n) is None:
                return True
            if isinstance(n, ast.Call) and self.call_kind(n) is not None:
                return True
        return False

    def collection(self, node):
        """For a set or dict comprehension, the builtin (`set`, `dict`) that makes it
        from a list of its items (of ``(key, value)`` pairs); else None."""
        kind = {ast.SetComp: set, ast.DictComp: dict}.get(type(node))
        if kind is None or kind.__name__ in self.locals:
            return None
        self.refs.setdefault(kind.__name__, kind)
        return kind

    def call_kind(self, node: ast.Call):
        """What this module does with the call `node`, or None."""
        args, kws = node.args, node.keywords
        starred = any(isinstance(a, ast.Starred) for a in args)
        if starred:
            return "star" if self.star_lengths(args) is not None and not \
                any(k.arg is None for k in kws) else None
        func = node.func
        target = _named_object(func, self.locals, self.refs)
        if isinstance(func, ast.Attribute) and func.attr == "pop" and len(args) == 1 \
                and not kws and isinstance(func.value, ast.Name) \
                and func.value.id in self.locals and not (
                    isinstance(args[0], ast.Constant) and type(args[0].value) is int
                    and args[0].value >= 0):
            return "pop_at"
        if any(k.arg == "key" and key_template(k.value) is not None for k in kws):
            # (``min(xs, key=f)``: `higher_order` made the key a generator of f's values)
            if (target is min or target is max) and args and \
                    all(k.arg in ("key", "default") for k in kws) and \
                    (len(args) == 1 or not any(k.arg == "default" for k in kws)) or \
                    target is sorted and len(args) == 1 and \
                    all(k.arg in ("key", "reverse") for k in kws):
                return "keyed"
            return None
        if target is sorted and len(args) == 1 and all(
                k.arg == "reverse" for k in kws):
            return "sorted"
        if target is functools.reduce and 2 <= len(args) <= 3 and not kws and \
                reducer_template(args[0]) is not None:
            return "reduce"
        if any(isinstance(a, _COMPS) for a in args):
            return "comp"
        if kws:
            if target is math.prod and len(args) == 1 \
                    and [k.arg for k in kws] == ["start"]:
                return "prod"
            if target is sum and len(args) == 1 and [k.arg for k in kws] == ["start"]:
                return "sum"
            if (target is min or target is max) and len(args) == 1 \
                    and [k.arg for k in kws] == ["default"]:
                return "extreme"
            return None
        for obj in (min, max):
            if target is obj and len(args) >= 3:
                return "nary"
            if target is obj and len(args) == 1:
                return "extreme"
        if target is sum and len(args) == 2:
            return "sum"
        if target is math.prod and len(args) == 1:
            return "prod"
        if target is divmod and len(args) == 2:  # (no keyword: returned above; no *)
            return "divmod"
        if (operator_call(target) or (0, -1))[1] == len(args):
            return "operator"
        if target is reversed and len(args) == 1 and not (
                isinstance(args[0], ast.Call) and self.builtin(args[0].func, range)):
            return "reversed"
        return None

    # ------------------------------------------------------------ statements

    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            out.extend(self.statement(s))
        return out

    def statement(self, s) -> list:
        if self.plain and type(s) in _AS_WRITTEN:
            return [s]  # (nothing in it to lower: no later stage changes it)
        if isinstance(s, (ast.For, ast.While)) and s.orelse:
            return self.loop_else(s)
        pre: list = []
        lift = _Lift(self, pre, s)
        if isinstance(s, ast.Assign):
            if any(type(t) is not ast.Name and any(isinstance(n, ast.Starred)
                                                   for n in ast.walk(t)) for t in s.targets):
                return self.starred_targets(s, lift, pre)
            if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and lift.into(s.value, s.targets[0].id):
                return pre  # (built in the name itself: ``ys = []``, appends)
            new = _copied(s)
            new.value = lift(s.value)
        elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
            new = _copied(s)
            new.value = lift(s.value) if s.value is not None else None
        elif isinstance(s, ast.Return):
            new = _copied(s)
            new.value = lift(s.value) if s.value is not None else None
        elif isinstance(s, ast.Expr):
            extended = self.extend(s)
            if extended is None:
                extended = self.insert(s)
            if extended is not None:
                return extended
            new = _copied(s)
            new.value = lift(s.value)
        elif isinstance(s, ast.If):
            new = _copied(s)
            new.test = lift(s.test)
            new.body = self.block(s.body)
            new.orelse = self.block(s.orelse)
        elif isinstance(s, ast.For):
            new = _copied(s)
            new.iter = lift(s.iter)
            body = s.body
            if isinstance(s.target, ast.Tuple) and any(
                    isinstance(n, ast.Starred) for n in ast.walk(s.target)):
                # ``for a, *b in rows:``: each row unpacked by a statement of its own
                row = self.fresh("row")
                new.target = _name(row, True)
                body = [_located(ast.Assign(targets=[s.target], value=_name(row)), s)] + body
            new.body = self.block(body)
        elif isinstance(s, ast.With):
            # (its body: `with np.errstate(...)` is differentiated as if it were not
            # there; a `try`, run as written where it carries no derivative, stays so)
            new = _copied(s)
            new.body = self.block(s.body)
        elif isinstance(s, ast.While):
            new = _copied(s)
            new.body = self.block(s.body)
            assigns = any(isinstance(n, ast.NamedExpr) for n in ast.walk(s.test))
            if assigns and isinstance(s.test, ast.Call) and \
                    self.refs.get(ir.dotted(s.test.func)) is checkpointed:
                raise self.loc.error(
                    UnsupportedSyntaxError, s.test, "s2sad cannot checkpoint a `while` "
                    "loop whose condition assigns a name (`:=`) yet",
                    "Assign it before the loop and at the end of the body.")
            if self.needs(s.test) or assigns:
                # the test runs before every iteration: ``while True:`` computing it,
                # then ``if not test: break`` (so a name the test assigns, ``while (r :=
                # f(y)) > tol``, leaves the loop with its value of the last test)
                test = lift(s.test)
                stop = _located(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test),
                                       body=[_located(ast.Break(), s)], orelse=[]), s)
                new.test = _located(ast.Constant(True), s)
                new.body = pre + [stop] + new.body
                return [new]
        else:
            return [s]
        return pre + [new]

    def loop_else(self, s) -> list:
        """``for/while ... else``: the ``else`` part after the loop, under a flag that
        each ``break`` of this loop clears."""
        new = copy.copy(s)
        new.orelse = []
        if not _ends_loop(s.body):
            return self.block([new] + list(s.orelse))
        flag = self.fresh("finished")
        new.body = self._clear_at_breaks(s.body, flag)
        first = _assign(flag, ast.Constant(True), s)
        after = _located(ast.If(test=_name(flag), body=list(s.orelse), orelse=[]), s.orelse[0])
        return self.block([first, new, after])

    def _clear_at_breaks(self, stmts, flag):
        out = []
        for s in stmts:
            if isinstance(s, ast.Break):
                out.append(_assign(flag, ast.Constant(False), s))
                out.append(s)
                continue
            if not isinstance(s, (ast.For, ast.While, ast.FunctionDef)):
                new = copy.copy(s)
                for field in ("body", "orelse", "handlers", "finalbody"):
                    block = getattr(s, field, None)
                    if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                        setattr(new, field, self._clear_at_breaks(block, flag))
                s = new
            out.append(s)
        return out

    def extend(self, s):
        """``xs.extend(ys)``: a loop appending the items of ``ys``."""
        v = s.value
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                and v.func.attr == "extend" and isinstance(v.func.value, ast.Name)
                and v.func.value.id in self.locals and len(v.args) == 1
                and not v.keywords and not isinstance(v.args[0], ast.Starred)):
            return None
        item = self.fresh("item")
        append = _located(ast.Expr(value=_call(
            ast.Attribute(value=_name(v.func.value.id), attr="append", ctx=ast.Load()),
            [_name(item)])), s)
        loop = _located(ast.For(target=_name(item, True), iter=v.args[0], body=[append],
                                orelse=[]), s)
        return self.block([loop])

    def builtins_at(self, node, what, names):
        """Refuse, at `node`, to compute the place of `what` with the builtins `names`
        where the function names one of them otherwise."""
        shadowed = [b for b in names if b in self.locals]
        if shadowed:
            raise self.loc.error(
                UnsupportedSyntaxError, node, f"s2sad computes where `{what}` puts or takes "
                f"the item with the builtin `{shadowed[0]}`, which this function names "
                "otherwise", f"Rename the variable `{shadowed[0]}`.")

    def insert(self, s):
        """``xs.insert(i, v)``: `i` made the place the item goes (``min(i, len(xs))``,
        from the end where negative, as Python reads it), so the derivative takes the
        adjoint back from there (``v_bar = xs_bar.pop(at)``); ``xs.insert(0, v)`` as
        it is."""
        v = s.value
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                and v.func.attr == "insert" and isinstance(v.func.value, ast.Name)
                and v.func.value.id in self.locals and len(v.args) == 2 and not v.keywords
                and not any(isinstance(a, ast.Starred) for a in v.args)):
            return None
        xs = v.func.value.id
        index, value = v.args
        known = int_constant(index)
        if known == 0:
            return None  # (the place is 0 whatever the length)
        self.builtins_at(s, f"{xs}.insert(...)", ("min", "max", "len"))
        out = []
        if not _simple(index):
            name = self.fresh("index")
            out += self.block([_assign(name, index, s)])
            index = _name(name)
        if not _simple(value):
            name = self.fresh("value")
            out += self.block([_assign(name, value, s)])
            value = _name(name)
        n = _call(_name("len"), [_name(xs)])
        for b in (min, max, len):
            self.refs.setdefault(b.__name__, b)
        low = _call(_name("max"), [ast.BinOp(left=n, op=ast.Add(), right=index),
                                   ast.Constant(0)])
        high = _call(_name("min"), [index, copy.deepcopy(n)])
        if known is not None:
            index = ast.Constant(known)
            low = _call(_name("max"), [ast.BinOp(left=copy.deepcopy(n), op=ast.Sub(),
                                                 right=ast.Constant(-known)), ast.Constant(0)])
            high = _call(_name("min"), [index, copy.deepcopy(n)])
            place = high if known >= 0 else low
        else:
            place = ast.IfExp(test=ast.Compare(left=index, ops=[ast.GtE()],
                                               comparators=[ast.Constant(0)]),
                              body=high, orelse=low)
        at = self.fresh("at")
        out.append(_assign(at, place, s))
        new = copy.copy(v)
        new.args = [_name(at), value]
        return out + [_located(ast.Expr(value=new), s)]


def _nodes(parsed) -> Nodes:
    """The nodes of `parsed.tree`: those `parse` walked, where they are its."""
    got = parsed.nodes
    return got if isinstance(got, Nodes) and got.tree is parsed.tree else Nodes(parsed.tree)


def _plain(ex, nodes) -> bool:
    """Is there nothing to lower anywhere in `nodes` (no comprehension, no ``*``, no
    call `ex` rewrites)? Then `needs` is False for every expression, without a look.
    (`call_kind` is None for a call that names none of `_LOWERED`, passes no keyword
    and pops nothing: only the others are asked.)"""
    if nodes.has(*_ALL_COMPS, ast.Starred):
        return False
    named = {t for t, v in ex.refs.items() if any(v is o for o in _LOWERED)}
    return not any((n.keywords or type(n.func) is ast.Attribute and n.func.attr == "pop"
                    or named and ir.dotted(n.func) in named) and ex.call_kind(n) is not None
                   for n in nodes.of(ast.Call))


_LOWERED = (min, max, sum, math.prod, sorted, divmod, reversed, functools.reduce,
            *OPERATOR_CALLS)


def _first_comp(call):
    return next((a for a in call.args if isinstance(a, _COMPS)), None)


def _copied(node):
    """``copy.copy(node)`` of an AST node (its fields shared), without `copy`'s
    generic protocol: `statement` copies every statement."""
    new = type(node).__new__(type(node))
    new.__dict__.update(node.__dict__)
    return new


def _walk_eager(node):
    """The nodes of `node` as `ast.walk` gives them, not entering a ``lambda`` (a
    list: every statement is asked, and `ast.iter_child_nodes` is a generator)."""
    out, todo = [], [node]
    add, pop, push, extend, AST = out.append, todo.pop, todo.append, todo.extend, ast.AST
    while todo:
        n = pop()
        add(n)
        if isinstance(n, ast.Lambda):
            continue
        d = n.__dict__
        for f in n._fields:
            v = d.get(f)
            if isinstance(v, AST):
                push(v)
            elif isinstance(v, list):
                extend([x for x in v if isinstance(x, AST)])
    return out


class _Lift(CallLowering):
    """Lowers the expressions of one statement `s`, appending to `pre` the statements
    that must run before it; calling it on an expression gives what replaces it."""

    def __init__(self, ex: _Expander, pre: list, s):
        self.ex = ex
        self.pre = pre
        self.s = s
        self.target = None  # the name the next list or accumulator is made in

    def into(self, node, name) -> bool:
        """Lower `node` (the whole value of ``name = node``) building its list or its
        accumulator in `name` itself, where `node` is a comprehension or a fold of one
        sequence that does not read `name`; False (and nothing done) otherwise."""
        if self.ex.plain:
            return False  # (no comprehension, no call it lowers)
        if not isinstance(node, (*_COMPS, ast.Call)) or \
                any(type(n) is ast.Name and n.id == name for n in ir.nodes(node)):
            return False
        if isinstance(node, ast.GeneratorExp):
            return False  # (a generator is not a list)
        if isinstance(node, ast.Call):
            kind = self.ex.call_kind(node)
            if kind not in ("comp", "sum", "prod", "extreme", "sorted") or \
                    any(self.ex.needs(a) for a in node.args[kind == "comp":]) or \
                    any(self.ex.needs(k.value) for k in node.keywords) or \
                    (kind == "comp" and (node.args[0] is not _first_comp(node) or
                                         not self._folds(node))):
                return False
        self.target = name
        got = self(node)
        if self.target is not None or not (isinstance(got, ast.Name) and got.id == name):
            raise AssertionError("expand: the value was not built in its name")
        return True

    def _folds(self, node) -> bool:
        """Does `call_comp` fold the call `node` into a loop (rather than pass it a list)?"""
        func, n = node.func, len(node.args)
        if self.ex.builtin(func, math.prod):
            return n == 1 and all(k.arg == "start" for k in node.keywords)
        if n == 1 and (self.ex.builtin(func, min) or self.ex.builtin(func, max)):
            return all(k.arg == "default" for k in node.keywords)
        if self.ex.builtin(func, sum):  # (its start by position or as ``start=``)
            return n + len(node.keywords) <= 2 and all(k.arg == "start" for k in node.keywords)
        return not node.keywords and n == 1 and self.ex.builtin(func, list)

    def result(self, word) -> str:
        """A name for the list or the accumulator being made."""
        if self.target is not None:
            name, self.target = self.target, None
            return name
        return self.ex.fresh(word)

    def __call__(self, node):
        if node is None or not self.ex.needs(node):
            return node
        if isinstance(node, _COMPS):
            return self.comprehension(node)
        if _starred_display(node):
            return self.joined(node)
        if _starred_shape(node, self.ex.refs) and self.ex.call_kind(node) is None:
            # (``h.reshape(*h.shape[:-1], H, D)``: the shape as one tuple, ``joined``)
            func = self(node.func) if self.ex.needs(node.func) else _shape_function(
                node.func, self.ex.refs)
            return ast.Call(func=func, args=[self(ast.Tuple(elts=node.args, ctx=ast.Load()))],
                            keywords=[])
        kind = self.ex.collection(node)
        if kind is not None:
            # ``{k: v for ...}``: ``dict([(k, v) for ...])``, the list lowered
            elt = ast.Tuple(elts=[node.key, node.value], ctx=ast.Load()) \
                if isinstance(node, ast.DictComp) else node.elt
            items = self.comprehension(ast.ListComp(elt=elt, generators=node.generators))
            return _call(_name(kind.__name__), [items])
        if isinstance(node, ast.IfExp):
            return self.if_exp(node)
        if isinstance(node, ast.BoolOp):
            return self.bool_op(node)
        if isinstance(node, ast.Compare) and len(node.ops) > 1:
            return self.chain(node)
        if isinstance(node, ast.Call):
            kind = self.ex.call_kind(node)
            if kind is not None:
                return getattr(self, "call_" + kind)(node)
        return self.children(node)

    def joined(self, node):
        """``[*a, b, *c]``: ``list(a) + [b] + list(c)``, and ``(*a, b)``: ``tuple(a) +
        (b,)`` (the parts in order)."""
        node = self.children(node)
        display = type(node)
        word = "list" if display is ast.List else "tuple"
        parts, run = [], []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                if run:
                    parts.append(display(elts=run, ctx=ast.Load()))
                    run = []
                parts.append(_call(_name(word), [e.value]))
                self.ex.refs.setdefault(word, list if display is ast.List else tuple)
            else:
                run.append(e)
        if run:
            parts.append(display(elts=run, ctx=ast.Load()))
        out = parts[0]
        for p in parts[1:]:
            out = ast.BinOp(left=out, op=ast.Add(), right=p)
        return out

    def temp(self, word, value):
        n = self.ex.fresh(word)
        self.pre.append(_assign(n, value, self.s))
        return _name(n)

    def children(self, node):
        """`node` with its parts lowered in Python's order: the parts before the
        last that needs lowering computed first, into names of their own."""
        node = copy.copy(node)
        slots = []  # (holder, field, index or None)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                slots.append((node, field, None))
            elif isinstance(value, list):
                value = list(value)
                setattr(node, field, value)
                for i, item in enumerate(value):
                    if isinstance(item, ast.expr):
                        slots.append((value, None, i))
                    elif isinstance(item, ast.keyword):
                        item = value[i] = copy.copy(item)
                        slots.append((item, "value", None))
        get = lambda h, f, i: getattr(h, f) if i is None else h[i]  # noqa: E731

        def put(h, f, i, v):
            if i is None:
                setattr(h, f, v)
            else:
                h[i] = v

        last = max((k for k, slot in enumerate(slots) if self.ex.needs(get(*slot))),
                   default=-1)
        for k, slot in enumerate(slots[:last + 1]):
            value = self(get(*slot))
            if k < last and not _simple(value) and not isinstance(value, ast.Starred) \
                    and not self.pairing(value):
                value = self.temp("value", value)
            put(*slot, value)
        return node

    def pairing(self, value) -> bool:
        """Is `value` ``zip`` or ``enumerate`` of names (and those of them), which a
        loop over a ``zip`` reads in step with its other sequences (`anf`), and which
        does nothing when made but take its sequences?"""
        return isinstance(value, ast.Call) and (
            self.ex.builtin(value.func, zip) and not value.keywords
            or self.ex.builtin(value.func, enumerate)
            and all(k.arg == "start" and _simple(k.value) for k in value.keywords)) \
            and all(_simple(a) or self.pairing(a) for a in value.args)

    # --------------------------------------------------------- lazy parts

    def branch(self, value, target):
        """Statements computing `value` into `target`."""
        inner = []
        got = _Lift(self.ex, inner, self.s)(value)
        return inner + [_assign(target, got, self.s)]

    def if_exp(self, node):
        test = self(node.test)
        target = self.ex.fresh("value")
        self.pre.append(_located(ast.If(test=test, body=self.branch(node.body, target),
                                        orelse=self.branch(node.orelse, target)), self.s))
        return _name(target)

    def bool_op(self, node):
        target = self.ex.fresh("value")
        first = self(node.values[0])
        self.pre.append(_assign(target, first, self.s))
        rest = node.values[1:]
        if not rest:
            return _name(target)
        inner_node = ast.BoolOp(op=node.op, values=rest) if len(rest) > 1 else rest[0]
        body = self.branch(inner_node, target)
        test = _name(target)
        if isinstance(node.op, ast.Or):
            test = ast.UnaryOp(op=ast.Not(), operand=test)
        self.pre.append(_located(ast.If(test=test, body=body, orelse=[]), self.s))
        return _name(target)

    def chain(self, node):
        """``a < b < c`` as ``a < %b and %b < c``, `b` computed once."""
        left = self(node.left)
        operands = [left]
        for i, c in enumerate(node.comparators):
            if i < len(node.comparators) - 1:
                c = self(c) if i == 0 else c
                if not _simple(c):
                    c = self.temp("value", c) if i == 0 else c
            operands.append(c)
        # comparators after the first are lazy: lower them in the `and`
        pairs = [ast.Compare(left=operands[i], ops=[op], comparators=[operands[i + 1]])
                 for i, op in enumerate(node.ops)]
        return self.bool_op(ast.BoolOp(op=ast.And(), values=pairs))

    # ------------------------------------------------------ comprehensions

    def rename(self, comp):
        """A copy of `comp` (a list comprehension or a generator) whose variables
        have names of their own."""
        comp = copy.deepcopy(comp)
        mapping = {}
        for g in comp.generators:
            for n in ast.walk(g.target):
                if isinstance(n, ast.Name) and n.id not in mapping:
                    mapping[n.id] = self.ex.fresh(n.id.lstrip("%") or "item")
        scoped = [g.target for g in comp.generators] + \
            [c for g in comp.generators for c in g.ifs] + \
            [g.iter for g in comp.generators[1:]] + [comp.elt]
        for part in scoped:
            for n in _walk_eager(part):
                if isinstance(n, ast.Name) and n.id in mapping:
                    n.id = mapping[n.id]
        return comp

    def loops(self, comp, inner):
        """The ``for``/``if`` nest of `comp` (renamed) around the statements `inner`."""
        body = inner
        for g in reversed(comp.generators):
            for cond in reversed(g.ifs):
                body = [_located(ast.If(test=cond, body=body, orelse=[]), self.s)]
            body = [_located(ast.For(target=g.target, iter=g.iter, body=body, orelse=[]),
                             self.s)]
        return body

    def emit(self, stmts):
        self.pre.extend(self.ex.block(stmts))

    def comprehension(self, node):
        """A list built by ``append`` in the comprehension's loops."""
        comp = self.rename(node)
        items = self.result("items")
        append = ast.Expr(value=_call(ast.Attribute(value=_name(items), attr="append",
                                                    ctx=ast.Load()), [comp.elt]))
        self.emit([_assign(items, ast.List(elts=[], ctx=ast.Load()), self.s)]
                  + self.loops(comp, [_located(append, self.s)]))
        return _name(items)

    def accumulate(self, node, word, start, combine):
        """A loop over `node`'s terms (a comprehension, or any sequence) folding each
        into `%word` with `combine(acc, term)`."""
        acc = self.result(word)
        if isinstance(node, _COMPS):
            comp = self.rename(node)
            term, loops = comp.elt, lambda inner: self.loops(comp, inner)
        else:
            item = self.ex.fresh("item")
            term = _name(item)
            seq = self(node)
            loops = lambda inner: [_located(ast.For(  # noqa: E731
                target=_name(item, True), iter=seq, body=inner, orelse=[]), self.s)]
        step = _assign(acc, combine(_name(acc), term), self.s)
        self.emit([_assign(acc, start, self.s)] + loops([step]))
        return _name(acc)

    def extreme(self, node, func, default=None):
        """``min``/``max`` of the terms of `node`: the first term, then the builtin of
        two arguments (a tie keeps the first), and where there is no term `default`
        (``min(xs, default=d)``), or the builtin's ValueError."""
        if default is not None and not _simple(default):
            default = self.temp("default", default)  # (evaluated before the terms)
        acc = self.result("lowest" if self.ex.builtin(func, min) else "highest")
        empty = self.ex.fresh("empty")
        if isinstance(node, _COMPS):
            comp = self.rename(node)
            term, loops = comp.elt, lambda inner: self.loops(comp, inner)
        else:
            item = self.ex.fresh("item")
            term = _name(item)
            seq = self(node)
            loops = lambda inner: [_located(ast.For(  # noqa: E731
                target=_name(item, True), iter=seq, body=inner, orelse=[]), self.s)]
        value = self.ex.fresh("term")
        step = [_assign(value, term, self.s), _located(ast.If(
            test=_name(empty),
            body=[_assign(acc, _name(value), self.s), _assign(empty, ast.Constant(False), self.s)],
            orelse=[_assign(acc, _call(copy.copy(func), [_name(acc), _name(value)]), self.s)]),
            self.s)]
        # (the text of Python 3.10 to 3.11, on every version: the emitted code is the same)
        message = f"{ir.dotted(func).split('.')[-1]}() arg is an empty sequence"
        error = _call(_name("ValueError"), [ast.Constant(message)])
        none = _located(ast.Raise(exc=error, cause=None), self.s) if default is None else \
            _assign(acc, default, self.s)
        # (the accumulator's first value is never read: the first item replaces it, or
        # the empty sequence raises or gives the default; activity takes it as PLACEHOLDER)
        first = ast.Constant(None)
        setattr(first, PLACEHOLDER, True)
        self.emit([_assign(empty, ast.Constant(True), self.s),
                   _assign(acc, first, self.s)] + loops(step)
                  + [_located(ast.If(test=_name(empty), body=[none], orelse=[]), self.s)])
        return _name(acc)
