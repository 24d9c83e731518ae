"""iterators: generators and the builtins' iterators, used where Python uses them.

Contract
--------
`single_pass(tree, meaning, nodes, loc, calls_followed)` rewrites, in place, the
function `tree` (an ``ast.FunctionDef`` as `parse` reads it, after `higher_order`) so
that the later stages, which compute a generator's items where the generator stands
(`expand` builds them in a list), compute what Python computes. In Python a generator
expression, and the iterator ``map``, ``filter``, ``zip``, ``enumerate`` or
``reversed`` makes, is lazy and runs once: what its first ``for`` loops over (the
builtin's arguments) is taken where it is made, its items are computed as they are
used, from the values the names have then, and once used up it gives nothing more.

* An iterator given to a name (``g = (w * c for c in cs)``) that one line after it in
  the same block reads once (``total = sum(g)``), not in a loop, is written where it
  is read (``total = sum(w * c for c in cs)``): its items see the names as that line
  does (after ``w = w * w`` between the two, the new ``w``, as in Python). What it
  took where it was made is taken there into a name of its own (``g_seq = xs[1:]``)
  where a line in between may change it; a sequence named as it is (``for c in cs``)
  is the same object in both places, and Python's iterator reads it as it is when
  used too.
* An iterator stands where it is used up at once when it is the sequence of a
  ``for`` or of a comprehension, an argument of a builtin that reads it whole or
  wraps it (`CONSUMERS`: ``sum``, ``min``, ``list``, ``sorted``, ``zip``...), unpacked
  (``f(*g)``, ``a, b = g``), or, a generator, returned: a function that returns one
  is an iterator to its caller (`returns_iterator(func)`: a ``return`` in its source
  gives one), whose result the caller reads once, in the next line or where it
  stands. An iterator given to a name nothing reads is never run (its line is
  dropped).
* Anything else is refused at the user's line, saying what to write instead: an
  iterator read twice, in a loop or in another block (a second pass gives nothing in
  Python), one kept in a list or handed to a function of the user's, or given to a
  library function that does not read it as a sequence (``np.array`` of a generator
  is an array holding the generator).
* A ``for`` loop over a list (by its name, or through ``enumerate``, ``zip``,
  ``reversed``) whose body makes that list longer or shorter (``append``, ``pop``,
  ``del``...) is refused at that line: Python's loop runs over the items as they are
  at each step, the derivative's as many times as the list had items.

Functions and names of the builtins are told by `meaning` (the object a free
name means), so a local ``zip`` or a global of that name is not the builtin.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import math
import textwrap
import types

import numpy as np

from .. import ir
from ..errors import UnsupportedSyntaxError
from .higher_order import key_template, reducer_template
from .structure_calls import library_code
from .tree_index import Nodes, fix_locations, of

_LAZY = ("map", "filter", "zip", "enumerate", "reversed")
# what reads an iterator whole (or wraps it in another iterator) when it is called
CONSUMERS = (sum, min, max, sorted, list, tuple, set, frozenset, dict, any, all, next, map,
             filter, zip, enumerate, reversed, math.fsum, math.prod, functools.reduce,
             np.fromiter)
_SEQUENCE_CALLS = ("range", "len")  # (taken where the iterator is made or later: the same)
# the methods of a list that change its length
_RESIZE = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})
_SYMBOL = {ast.Add: "+", ast.Mult: "*"}
_USE = "Make it a list to read it again (`[...]` or `list(...)`), or write it where it is used."


def single_pass(tree: ast.FunctionDef, meaning, nodes, loc, calls_followed=True) -> Nodes:
    """See the module docstring. `nodes`: the tree's (`tree_index.Nodes`); `loc`
    builds the errors; `calls_followed`: whether a call of a function of the user's
    that returns an iterator is one (`returns_iterator`). Returns the tree's nodes
    (`nodes` itself where nothing was rewritten)."""
    calls = of(nodes, ast.Call)
    if of(nodes, ast.For) and (of(nodes, ast.Delete, ast.AugAssign) or any(
            type(c.func) is ast.Attribute and c.func.attr in _RESIZE
            or type(c.func) is ast.Name for c in calls)):
        aliases = _aliases(of(nodes, ast.Assign))
        defs = {n.name: n for n in of(nodes, ast.FunctionDef) if n is not tree}
        fresh = _fresh_before(tree) if aliases else {}
        for loop in of(nodes, ast.For):
            own = fresh.get(id(loop), set())
            _check_sized(loop, loc, {n: {n} if n in own else group - own
                                     for n, group in aliases.items()},
                         lambda n: defs.get(n) or meaning(n))
    if not of(nodes, ast.GeneratorExp) and not any(
            type(c.func) is ast.Name and c.func.id in _LAZY for c in calls) and not (
            calls_followed and any(
                type(v) is ast.Call and type(v.func) is ast.Name
                and type(meaning(v.func.id)) is types.FunctionType
                for v in [s.value for s in of(nodes, ast.Assign)] +
                [s.iter for s in of(nodes, ast.For, ast.comprehension)])):
        return nodes
    return Nodes(tree) if _Iterators(tree, meaning, loc, calls_followed).run() else nodes


class _Iterators:
    def __init__(self, tree, meaning, loc, calls_followed):
        self.tree = tree
        self.meaning = meaning
        self.loc = loc
        self.calls_followed = calls_followed
        self.params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
        self.local = self.params | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                                    and not isinstance(n.ctx, ast.Load)} | {
            n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n is not tree}
        self.changed = False
        self.index()
        self.names = set(self.uses) | self.params

    def index(self):
        """Each node's parent, and each statement's block."""
        self.parent = {}
        self.block_of = {}
        self.uses = {}  # a name -> its Name nodes
        for node in ast.walk(self.tree):
            if type(node) is ast.Name:
                self.uses.setdefault(node.id, []).append(node)
            for field, value in ast.iter_fields(node):
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.parent[id(item)] = node
                            if isinstance(item, ast.stmt):
                                self.block_of[id(item)] = value
                elif isinstance(value, ast.AST):
                    self.parent[id(value)] = node

    # ------------------------------------------------------------- what is what

    def builtin(self, func, names) -> bool:
        return type(func) is ast.Name and func.id in names and func.id not in self.local \
            and self.meaning(func.id) is getattr(builtins, func.id)

    def lazy(self, node) -> bool:
        """Is `node` an expression whose value is a generator or a builtin's iterator?"""
        if type(node) is ast.GeneratorExp:
            return key_template(node) is None and reducer_template(node) is None
        return type(node) is ast.Call and self.builtin(node.func, _LAZY)

    def user_call(self, node) -> bool:
        """Is `node` a call of a function of the user's (which may return an iterator)?"""
        return type(node) is ast.Call and type(node.func) is ast.Name \
            and node.func.id not in self.local and self.calls_followed \
            and type(self.meaning(node.func.id)) is types.FunctionType

    def consumer(self, call) -> bool:
        """Does `call` read an iterator it is given whole, at once (`CONSUMERS`, a
        list's ``extend``, ``str.join``)?"""
        func = call.func
        if type(func) is ast.Attribute:
            if type(func.value) is ast.Constant and isinstance(func.value.value, str):
                return func.attr == "join"
            root = ir.dotted(func)
            if root is None:
                return False
            root = root.split(".")[0]
            if root in self.local:
                return func.attr == "extend" and type(func.value) is ast.Name
            obj = self.meaning(root)
            for part in ir.dotted(func).split(".")[1:]:
                obj = getattr(obj, part, None)
        elif type(func) is ast.Name and func.id not in self.local:
            obj = self.meaning(func.id)
        else:
            return False
        return obj is not None and any(obj is c for c in CONSUMERS)

    def used_up(self, node) -> bool:
        """Is the iterator `node` used up where it stands (the module docstring)?"""
        parent = self.parent.get(id(node))
        t = type(parent)
        if t is ast.For or t is ast.comprehension:
            return parent.iter is node
        if t is ast.Starred:
            return type(self.parent.get(id(parent))) in (ast.Call, ast.List, ast.Tuple, ast.Set)
        if t is ast.Call:
            return node in parent.args and self.consumer(parent)
        if t is ast.keyword:
            return self.consumer(self.parent[id(parent)])
        if t is ast.Assign:
            return len(parent.targets) == 1 and type(parent.targets[0]) in (ast.Tuple, ast.List)
        return t is ast.Return and type(node) is ast.GeneratorExp  # (a list, to s2sad)

    # ------------------------------------------------------------------ the pass

    def run(self) -> bool:
        # (a statement's value moves into a later one, which stays where it is: the
        # statements to look at are the same before and after)
        for s in [s for s in ast.walk(self.tree) if type(s) is ast.Assign
                  and len(s.targets) == 1 and type(s.targets[0]) is ast.Name
                  and (self.lazy(s.value) or self.user_call(s.value))]:
            self.named(s)
        for node in list(ast.walk(self.tree)):
            if self.lazy(node) and not self.used_up(node):
                raise self.refuse(node, "this iterator (a generator, or what `map`, `zip`, "
                                  "`enumerate`, `filter` or `reversed` makes) is "
                                  f"{self.where(node)}; Python runs it lazily, once, "
                                  "which s2sad follows only where it is used up at once "
                                  "(`sum(...)`, `for ... in ...`)",
                                  "Pass or keep a list: `[...]` or `list(...)`.")
        for node in ast.walk(self.tree):
            if type(node) in (ast.For, ast.comprehension) and self.user_call(node.iter):
                func = self.meaning(node.iter.func.id)
                if "builtin" in returns_iterator(func):
                    raise self.refuse(node.iter, f"`{node.iter.func.id}` returns the iterator "
                                      "of a builtin (`zip`, `map`, `enumerate`...), which "
                                      "s2sad does not loop over yet",
                                      "Return a list from it, or write the `zip(...)` here.")
        if self.changed:
            fix_locations(self.tree)
        return self.changed

    def where(self, node) -> str:
        parent = self.parent.get(id(node))
        if type(parent) is ast.Call and node in parent.args:
            return f"handed to `{ast.unparse(parent.func)}`"
        if type(parent) in (ast.List, ast.Tuple, ast.Set, ast.Dict):
            return "kept in a container"
        return "kept"

    def refuse(self, node, message, hint=_USE):
        return self.loc.error(UnsupportedSyntaxError, node, message, hint)

    def named(self, s: ast.Assign):
        """``name = iterator``: written where it is read (the module docstring)."""
        name, value = s.targets[0].id, s.value
        called = not self.lazy(value)
        uses = self.uses.get(name, [])
        loads = [n for n in uses if type(n.ctx) is ast.Load]
        block = self.block_of[id(s)]
        k = next(i for i, x in enumerate(block) if x is s)
        at, problem = None, None
        if name in self.params or len(uses) != 2 or len(loads) != 1:
            problem = "read more than once" if len(loads) > 1 else "given another value" \
                if len(loads) == 1 else "never read"
        else:
            at, problem = self.statement_of(loads[0], block)
            if at is None:
                problem = problem or "read in another block"
            elif at <= k:
                problem = "read before the line that makes it"
            elif not self.used_up(loads[0]):
                problem = f"{self.where(loads[0])} where it is read"
            elif called and at != k + 1:
                problem = "read after a line in between"
        if called:
            if not returns_iterator(self.meaning(value.func.id)):
                return  # (an ordinary value)
            if problem is None:
                return  # (used up in the next line, as it is)
        if problem == "never read" and not called:
            # (Python never runs it: nor does the derivative)
            block[k] = ast.copy_location(ast.Pass(), s)
            self.changed = True
            self.index()
            return
        if problem is not None:
            what = "a generator" if type(value) is ast.GeneratorExp else \
                f"the iterator `{ast.unparse(value.func)}(...)` returns" if called else \
                f"the iterator `{ast.unparse(value.func)}(...)` makes"
            raise self.refuse(loads[1] if len(loads) > 1 else loads[0] if loads else s,
                              f"`{name}` holds {what}, which Python runs lazily and only "
                              f"once, and it is {problem}: s2sad follows one that a line "
                              f"after it reads once, where it is used up (`sum({name})`, "
                              f"`for v in {name}:`)")
        hoisted = []
        if at > k + 1:  # (read in the next line: nothing between changes what it took)
            self.take_parts(value, _changed_names(block[k + 1:at], block[at]), name,
                            hoisted, s)
        block[k:k + 1] = hoisted
        load = loads[0]
        _replace(self.parent[id(load)], load, value)
        self.changed = True
        self.index()

    def statement_of(self, node, block):
        """``(index, None)``: the statement of `block` that holds `node`; ``(None,
        why)``: `node` is read in a loop, a comprehension's item or a function (which
        may read it more than once, or later); ``(None, None)``: in no statement of
        `block`."""
        child = node
        while True:
            parent = self.parent.get(id(child))
            if parent is None:
                return None, None
            t = type(parent)
            if t in (ast.While, ast.Lambda, ast.FunctionDef) or (
                    t is ast.For and parent.iter is not child) or (
                    t is ast.comprehension and (parent.iter is not child or self.parent[
                        id(parent)].generators[0] is not parent)) or (
                    t in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
                    and type(child) is not ast.comprehension):
                return None, "read in a loop or a function, which may read it again"
            if isinstance(parent, ast.stmt) and self.block_of.get(id(parent)) is block:
                return next(i for i, x in enumerate(block) if x is parent), None
            child = parent

    def take_parts(self, value, changed, name, hoisted, s):
        """Take into names of their own, before the iterator's new place, the parts of
        `value` Python evaluates where it is made that a line in between may change."""
        if type(value) is ast.GeneratorExp:
            slots = [(value.generators[0], "iter")]
        else:
            slots = [(value.args, i) for i in range(len(value.args))] + \
                [(k, "value") for k in value.keywords]
        backwards = type(value) is ast.Call and self.builtin(value.func, ("reversed",))
        for owner, key in slots:
            part = owner[key] if isinstance(owner, list) else getattr(owner, key)
            inner = part.value if type(part) is ast.Starred else part
            if self.lazy(inner):
                self.take_parts(inner, changed, name, hoisted, s)
                continue
            if type(inner) is ast.Name:
                if backwards and inner.id in changed.all:
                    raise self.refuse(s, f"`{name}` holds `reversed(...)`, which starts at "
                                      "the end the sequence has where it is made, and a "
                                      "line before its use may change the sequence")
                if inner.id not in changed.rebound:
                    continue  # (the same object: Python's iterator reads it as it is then)
            elif type(inner) is ast.Lambda:
                # (its body reads the names when it is called, as written in place;
                # only its defaults are taken where it is made)
                a = inner.args
                if not any({n.id for d in a.defaults + [d for d in a.kw_defaults if d]
                            for n in ast.walk(d) if type(n) is ast.Name} & changed.all):
                    continue
                raise self.refuse(s, f"`{name}` holds an iterator made with a `lambda` whose "
                                  "defaults read a name a line before its use changes")
            elif _constant(inner) or not (
                    {n.id for n in ast.walk(inner) if type(n) is ast.Name} & changed.all) \
                    and _plain(inner, self):
                continue
            temp = self.fresh(f"{name}_seq")
            hoisted.append(ast.copy_location(ast.Assign(
                targets=[ast.Name(id=temp, ctx=ast.Store())], value=inner), s))
            new = ast.Name(id=temp, ctx=ast.Load())
            if type(part) is ast.Starred:
                part.value = new
            elif isinstance(owner, list):
                owner[key] = new
            else:
                setattr(owner, key, new)

    def fresh(self, word) -> str:
        k = 1
        while True:
            name = word if k == 1 else f"{word}{k}"
            if name not in self.names:
                self.names.add(name)
                return name
            k += 1


def _aliases(assigns) -> dict:
    """Each name to the names that may hold the same object as it, through
    assignments of one name to another (``ys = xs``) anywhere in the function."""
    pairs = [(s.targets[0].id, s.value.id) for s in assigns if len(s.targets) == 1
             and type(s.targets[0]) is ast.Name and type(s.value) is ast.Name]
    out = {}
    for a, b in pairs:
        group = out.get(a, {a}) | out.get(b, {b})
        for n in group:
            out[n] = group
    return out


def _fresh_before(tree) -> dict:
    """For each loop (by id), the names the statements before it in its block give a
    new list (``outs = []``, a comprehension, ``list(...)``) and do not bind or read
    after: at the loop's start each holds a list no other name holds, whatever
    assignment elsewhere makes it another's alias (``seq = outs`` at the end of an
    outer loop's iteration)."""
    out = {}
    for block in (b for node in ast.walk(tree) for b in _blocks_of(node)):
        fresh = set()
        for s in block:
            if type(s) is ast.For:
                out[id(s)] = set(fresh)
            # (bound again, or read: a read may hand the list to another name)
            fresh -= {n.id for n in ast.walk(s) if type(n) is ast.Name}
            if type(s) is ast.Assign and len(s.targets) == 1 and \
                    type(s.targets[0]) is ast.Name and _new_list(s.value):
                fresh.add(s.targets[0].id)
    return out


def _blocks_of(node) -> list:
    """The statement lists of `node` (a function, loop, `if`, `with`, `try`), if any."""
    return [v for f in ("body", "orelse", "finalbody") if isinstance(
        v := getattr(node, f, None), list) and v and isinstance(v[0], ast.stmt)]


def _new_list(value) -> bool:
    return type(value) in (ast.List, ast.ListComp) or type(value) is ast.Call and \
        type(value.func) is ast.Name and value.func.id == "list"


def _check_sized(loop: ast.For, loc, aliases, meaning) -> None:
    """Refuse a ``for`` loop over a list (by its name, or through ``enumerate``,
    ``zip``, ``reversed``) that its body makes longer or shorter, by that name or
    another given the same list (`aliases`): Python's loop runs over the items as
    they are at each step, the items added too, where the derivative's loop runs as
    many times as the list had items when it started."""
    it = loop.iter
    names = {it.id} if type(it) is ast.Name else {
        a.id for a in it.args if type(a) is ast.Name} if type(it) is ast.Call and \
        type(it.func) is ast.Name and it.func.id in ("enumerate", "zip", "reversed") else set()
    if not names:
        return
    shown = " and ".join(f"`{n}`" for n in sorted(names))
    names = set().union(*(aliases.get(n, {n}) for n in names))
    for node in (n for s in loop.body for n in ast.walk(s)):
        t = type(node)
        if t is ast.Call and type(node.func) is ast.Attribute and node.func.attr in _RESIZE \
                and type(node.func.value) is ast.Name and node.func.value.id in names:
            how = f"`{node.func.value.id}.{node.func.attr}(...)`"
        elif t is ast.AugAssign and type(node.target) is ast.Name \
                and node.target.id in names and type(node.op) in (ast.Add, ast.Mult) \
                and type(node.value) in (ast.List, ast.ListComp, ast.Tuple):
            how = f"`{node.target.id} {_SYMBOL[type(node.op)]}= ...`"
        elif t is ast.Delete and any(type(x) is ast.Subscript and _root(x) in names
                                     for x in node.targets):
            how = "`del`"
        elif t is ast.Subscript and type(node.ctx) is ast.Store and \
                type(node.slice) is ast.Slice and _root(node) in names:
            how = "a write into a slice"
        elif t is ast.Call and type(node.func) is ast.Name and any(
                type(a) is ast.Name and a.id in names and _resizes(meaning(node.func.id), i)
                for i, a in enumerate(node.args)):
            how = f"`{node.func.id}(...)`, which appends to it or pops from it"
        else:
            continue
        raise loc.error(UnsupportedSyntaxError, node,
                        f"the loop over {shown} changes the length of the list it runs "
                        f"over ({how}): Python's loop then also runs over the items added "
                        "(or stops early), which s2sad does not follow yet",
                        "Loop with an index, `i = 0`, `while i < len(xs):` ... `i += 1`, or "
                        "over a copy, `for v in list(xs):`, if the loop should see only the "
                        "items it started with.")


def _resizes(func, position) -> bool:
    """Does the function `func` of the user's (or a ``def`` inside the function)
    change the length of the list it is given at `position` (``xs.append(...)``,
    ``xs.pop()``... on that parameter, read from its source)?"""
    if type(func) is ast.FunctionDef:
        params = func.args.posonlyargs + func.args.args
        name = params[position].arg if position < len(params) else None
        tree = func
    else:
        tree = _source_tree(func)
        code = getattr(func, "__code__", None)
        name = code.co_varnames[position] if tree is not None and \
            position < code.co_argcount else None
    return name is not None and any(
        type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr in _RESIZE
        and type(n.func.value) is ast.Name and n.func.value.id == name
        for n in ast.walk(tree))


def returns_iterator(func) -> frozenset:
    """What the ``return`` statements of the function `func` of the user's return of
    iterators, read from its source: a set of "generator" (a generator expression)
    and "builtin" (``zip(...)``, ``map(...)``... that its module leaves the builtins),
    empty where none does."""
    tree = _source_tree(func)
    names = getattr(func, "__globals__", {})
    return frozenset(
        "generator" if type(r.value) is ast.GeneratorExp else "builtin"
        for r in (ast.walk(tree) if tree is not None else ())
        if type(r) is ast.Return and (type(r.value) is ast.GeneratorExp or (
            type(r.value) is ast.Call and type(r.value.func) is ast.Name
            and r.value.func.id in _LAZY and r.value.func.id not in names)))


def _source_tree(func):
    """The tree of the source of `func`, a Python function of the user's (not of a
    library, nor a derivative s2sad made), or None. Kept per code object."""
    code = getattr(func, "__code__", None)
    if type(func) is not types.FunctionType or hasattr(func, "__s2sad__") \
            or library_code(func):
        return None
    if code not in _TREES:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
        except (OSError, TypeError, SyntaxError):
            tree = None
        if len(_TREES) >= 256:
            _TREES.clear()
        _TREES[code] = tree
    return _TREES[code]


_TREES: dict = {}  # code object -> `_source_tree` of its function


class _Changes:
    def __init__(self):
        self.rebound = set()  # names given another value
        self.all = set()  # those, and names whose objects may be changed in place


def _changed_names(between, use) -> _Changes:
    """The names the statements `between` rebind, and those they or the statement
    `use` may change in place (written into, a method called, handed to a call)."""
    out = _Changes()
    for i, s in enumerate(list(between) + [use]):
        last = i == len(between)
        for n in ast.walk(s):
            t = type(n)
            if t is ast.Name and type(n.ctx) is not ast.Load and not last:
                out.rebound.add(n.id)
            elif t in (ast.Subscript, ast.Attribute) and type(n.ctx) is not ast.Load:
                root = _root(n)
                if root is not None:
                    out.all.add(root)
            elif t is ast.Call:
                if type(n.func) is ast.Attribute:
                    root = _root(n.func.value)
                    if root is not None:
                        out.all.add(root)
                for a in list(n.args) + [k.value for k in n.keywords]:
                    out.all.update(x.id for x in ast.walk(a) if type(x) is ast.Name)
            elif t is ast.FunctionDef and not last:
                out.rebound.add(n.name)
    out.all |= out.rebound
    return out


def _root(node):
    while type(node) in (ast.Subscript, ast.Attribute, ast.Starred):
        node = node.value
    return node.id if type(node) is ast.Name else None


def _constant(node) -> bool:
    """A literal, or a display of literals."""
    if type(node) is ast.Constant:
        return True
    return type(node) in (ast.List, ast.Tuple) and all(_constant(e) for e in node.elts)


def _plain(node, it) -> bool:
    """Does `node` compute its value from its names' values alone (no call but
    ``range`` and ``len``, nothing that assigns or defers)?"""
    for n in ast.walk(node):
        if type(n) is ast.Call and not it.builtin(n.func, _SEQUENCE_CALLS):
            return False
        if type(n) in (ast.NamedExpr, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                       ast.GeneratorExp, ast.Await, ast.Yield, ast.YieldFrom):
            return False
    return True


def _replace(parent, old, new) -> None:
    """Put `new` where `old` is among `parent`'s fields."""
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return
    raise AssertionError("iterators: the node is not among its parent's fields")
